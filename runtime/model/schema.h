/*
 * schema.h — the schema tree.
 *
 * Nodes live in one array; node 0 is the root group ("schema"). Nodes may be
 * added in any order; inl_schema_finalize() lays them out depth-first (the order
 * of the footer's flattened SchemaElement list) and numbers the leaves, which
 * are the columns of the append calls. Each leaf knows its maximum
 * definition level (count of non-required nodes on its path) and maximum
 * repetition level (count of repeated nodes), so flat and nested columns go
 * through the same buffers.
 *
 * A group may carry a LIST or MAP annotation (LogicalTypes.md, "Nested
 * Types"). The builders make the standard 3-level forms
 *
 *     <rep> group <name> (LIST) { repeated group list { <element> } }
 *     <rep> group <name> (MAP) { repeated group key_value { <key> [<value>] } }
 *
 * and hand the caller the middle group, under which the element (or key and
 * value) are added by the ordinary calls; a wrong name, repetition or count
 * there is refused when it is added, and a list or map left without its
 * fields is refused by inl_schema_finalize.
 */
#ifndef INLAY_SCHEMA_H
#define INLAY_SCHEMA_H

#include "alloc.h"
#include "error.h"
#include "types.h"

/* The annotation of a group. */
typedef enum schema_group {
    GROUP_PLAIN = 0,       /* a struct, or the repeated middle of a list or map */
    GROUP_LIST,
    GROUP_MAP,
} schema_group;

typedef struct schema_node {
    char *name;
    int parent;
    int first_child, last_child, next_sibling;
    int num_children;
    bool is_group;
    schema_group annotation;   /* groups only */
    inlay_repetition rep;
    inlay_type type;
    inlay_column_options opts;
} schema_node;

typedef struct schema_leaf {
    int node;
    int16_t max_def, max_rep;
    char *path;            /* dotted path, for messages */
    const char **parts;    /* path components, for path_in_schema */
    int depth;             /* number of parts */
    sort_order order;
} schema_leaf;

struct inlay_schema {
    inlay_allocator alloc;
    schema_node *nodes;
    int count, cap;
    /* filled by inl_schema_finalize */
    int *preorder;         /* node ids, depth-first, root first */
    schema_leaf *leaves;
    int num_leaves;
    bool finalized;
    inl_err err;            /* the last failed call */
};

/* Whether codec (an inlay_compression) is known, built in, and takes
 * `level` (INLAY_LEVEL_DEFAULT: its default, set in *resolved; 0 for a
 * codec without levels). INLAY_ERR_ARGUMENT with the reason in why. */
int inl_codec_check(int codec, int level, int *resolved, char *why, size_t cap);

/* Deep copy of s using allocator a; NULL when out of memory. */
inlay_schema *inl_schema_clone(const inlay_schema *s, const inlay_allocator *a);
/* A copy of src without the top-level fields i (in order) whose drop[i]
 * is set; not finalized. NULL when out of memory. */
inlay_schema *inl_schema_clone_without(const inlay_schema *src, const inlay_allocator *a, const bool *drop);
/* Compute layout, levels and leaves. Returns 0 or INLAY_ERR_SCHEMA /
 * INLAY_ERR_NOMEM with s->err set. */
int inl_schema_finalize(inlay_schema *s);

/* Add a node under group `parent` without the checks of the public calls
 * (names, the fixed slots of LIST and MAP groups, the type): for a reader
 * building a file's schema, which checks the file itself and leaves the
 * shape to inl_schema_finalize. type is used for primitives only. Returns
 * the node id or INLAY_ERR_NOMEM. */
int inl_schema_add_raw(inlay_schema *s, int parent, const char *name, inlay_repetition rep, bool is_group,
                       schema_group annotation, const inlay_type *type);

#endif
