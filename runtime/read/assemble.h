/*
 * assemble.h — a field's leaf levels and values turned into the
 * Arrow-shaped inlay_array tree inlay_writer_append_array takes.
 *
 * One asm_node per array of the tree: a primitive (values, validity), a
 * struct (validity, children), a LIST or MAP (validity, offsets, and the
 * children of its repeated middle group), or a bare repeated field
 * (offsets, and its fields — or its values as one child). Each node reads
 * the levels of the first leaf below it:
 *
 *   - an entry starts a slot of the node when def >= d_above (the
 *     enclosing repeated field has an element) and rep <= r (it does not
 *     repeat a field below the node's context);
 *   - the slot is valid when def >= def_self;
 *   - a list-like node's slot holds the entries that start an element:
 *     def >= def_elem and rep <= r + 1.
 *
 * The counts each node finds are checked against what its parent expects
 * (a struct's slots, a list's last offset), so leaves that disagree in a
 * corrupt file are an error, never an array that points past its child.
 */
#ifndef INLAY_ASSEMBLE_H
#define INLAY_ASSEMBLE_H

#include "alloc.h"
#include "chunk.h"
#include "error.h"
#include "schema.h"

typedef enum asm_kind { ASM_PRIMITIVE, ASM_STRUCT, ASM_LIST } asm_kind;

typedef struct asm_node {
    inlay_array arr;            /* what the host sees; children point at kids' arr */
    asm_kind kind;
    int leaf;                   /* the leaf whose levels this node reads */
    int16_t d_above, r, def_self, def_elem;
    bool optional;
    bool flat;                  /* a top-level primitive: levels are the chunk's own */
    const char *path;
    struct asm_node *kids;
    inlay_array *kid_arrs;
    int nkids;
    buf validity, offsets, values;
} asm_node;

/* Build the node tree for schema node `node` (a top-level field). */
int inl_asm_build(asm_node *n, const inlay_schema *s, int node, const inlay_allocator *a);
void inl_asm_free(asm_node *n, const inlay_allocator *a);

/* Fill the tree from the chunk readers' batches (indexed by leaf column)
 * for `rows` rows. */
int inl_asm_fill(asm_node *n, chunk_reader *cols, size_t rows, const inlay_allocator *a, inl_err *err);

#endif
