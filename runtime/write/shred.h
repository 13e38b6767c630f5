/*
 * shred.h — nested values in Arrow's layout turned into what each leaf
 * column takes: definition levels, repetition levels and dense values
 * (the record shredding of the Dremel paper).
 *
 * The input for one top-level field is a tree of inlay_array (inlay.h)
 * that follows the schema below the field:
 *  - a primitive: `values` (one slot per entry, nulls included) and
 *    `validity`;
 *  - a struct (plain group): `validity` and one child per field, in order;
 *  - a LIST or MAP group: `validity` and `offsets` (entry i spans child
 *    entries offsets[i] .. offsets[i+1]), with one child per field of its
 *    repeated middle group: the element, or the key and the value;
 *  - a bare repeated group or primitive (no LIST/MAP around it, as in the
 *    Dremel paper's Document): `offsets` and one child per field of the
 *    group, or the values as children[0] for a primitive.
 * The walk keeps, per leaf, the current definition level (one more for each
 * optional node present and each repeated node with at least one entry)
 * and the repetition level at which the current entry starts; a null or an
 * empty list ends the walk of that entry with the level reached.
 *
 * The output buffers belong to the shred state and are reused from call to
 * call: steady appending allocates nothing.
 */
#ifndef INLAY_SHRED_H
#define INLAY_SHRED_H

#include "error.h"
#include "schema.h"

typedef struct shred_leaf {
    buf def, rep;            /* int16 per level entry */
    buf values;              /* dense values, in the leaf's append type */
    size_t count;            /* level entries */
    size_t nvalues;
} shred_leaf;

typedef struct shred {
    const inlay_allocator *alloc;
    shred_leaf *leaves;
    int cap;
    inl_err err;             /* "field 'hits.list.element.x' row 3: ..." */
    int err_leaf;            /* the leaf column the failure met, else -1 */
    uint64_t err_row;        /* and its row (0-based, of the call's rows) */
} shred;

void inl_shred_init(shred *sh, const inlay_allocator *a);
void inl_shred_free(shred *sh);

/* Shreds rows 0 .. rows-1 of `a`, the array of the top-level field whose
 * schema node is `field` in the finalized schema s. Its leaves are columns
 * *first .. *first + *nleaves - 1, and sh->leaves[0 .. *nleaves) hold their
 * levels and values. Returns 0, INLAY_ERR_ARGUMENT (an array that does not
 * follow the schema: missing children or values, offsets out of order or
 * past the child), INLAY_ERR_NULL (a null where the schema is required, a
 * null map key) or INLAY_ERR_NOMEM, with sh->err naming the field's path
 * and the row. */
int inl_shred_field(shred *sh, const inlay_schema *s, int field, const inlay_array *a, size_t rows, int *first,
                int *nleaves);

/* The batches of the last inl_shred_field: out[k] for column first + k of
 * s, k < n, pointing into sh (levels only where the leaf has them). */
void inl_shred_batches(const shred *sh, const inlay_schema *s, int first, int n, inlay_column_batch *out);

#endif
