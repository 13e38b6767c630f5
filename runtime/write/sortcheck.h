/*
 * sortcheck.h — checking that rows arrive in a declared sort order
 * (RowGroup.sorting_columns) across the whole file.
 *
 * Rows are ordered lexicographically by the keys: key 2 orders two rows
 * only where key 1 ties, and so on. Columns are appended independently, so
 * a row can be judged only once every key column has it. Each key column
 * therefore keeps, for the rows it has that are not judged yet, one code
 * per row comparing that row's entry with the previous row's entry of the
 * same column:
 *
 *     +1  in order       (after a descending key's flip and the key's
 *      0  tie             placement of nulls)
 *     -1  out of order
 *
 * so the column's own last entry (a value, a null or none before the first
 * row) is all it carries from one append to the next. A row is in order
 * when the first non-zero code among the keys, in key order, is +1, or all
 * are 0. The first row of the file has no previous row: every code is 0.
 *
 *     key 0 codes   [head ............................ len)
 *     key 1 codes   [head ................ len)
 *                    ^ row `base` of the file
 *                    |<-- judged at verify -->|
 *
 * Every key's live codes start at the same row `base`; rows all keys cover
 * are judged by inl_sortcheck_verify and dropped at inl_sortcheck_commit,
 * so a buffer holds only the rows by which its column is ahead of the
 * slowest key. Appends go through two phases so that a multi-column append
 * can be refused whole: stage every key column of the append, verify, then
 * commit, or roll back to forget the staged entries (and the staged last
 * values) exactly.
 */
#ifndef INLAY_SORTCHECK_H
#define INLAY_SORTCHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc.h"
#include "types.h"

/* One declared key: a leaf outside any list or map (max_rep 0), its sort
 * order (schema_leaf.order), physical type (an inlay_physical) and maximum
 * definition level (an entry with a lower level is a null). */
typedef struct sort_key {
    int leaf;
    sort_order order;
    int physical;
    int16_t max_def;
    bool descending, nulls_first;
} sort_key;

/* A key column's last entry. */
enum { SORT_LAST_NONE, SORT_LAST_NULL, SORT_LAST_VALUE };

typedef struct sort_last {
    int state;             /* SORT_LAST_* */
    uint8_t raw[8];        /* a numeric value, as in the append arrays */
    buf bytes;             /* a byte-string value, copied */
} sort_last;

typedef struct sort_column {
    sort_key key;
    buf codes;             /* int8_t per row; live from head (row `base`) to len */
    size_t head;
    size_t staged;         /* codes at the end that are staged */
    sort_last last[2];     /* last[cur] committed; the other staged, when staged > 0 */
    int cur;
} sort_column;

/* Embedded by the writer; only this module looks inside. */
typedef struct sort_check {
    inlay_allocator alloc;
    sort_column *cols;
    int nkeys;
    uint64_t base;         /* file row of every key's codes[head] */
    /* inl_sortcheck_verify's last answer, valid until the next change */
    bool cached, cached_ok;
    size_t cached_judged;  /* rows from base found in order */
    int cached_key;
    size_t cached_first;   /* rows from base whose first key is known not to go down */
    size_t first_ok;       /* the same, as committed */
} sort_check;

/* Copies the keys (nkeys >= 0). Returns 0 or INLAY_ERR_NOMEM (sc is then
 * empty: free is not needed, and is harmless). */
int inl_sortcheck_init(sort_check *sc, const inlay_allocator *a, const sort_key *keys, int nkeys);
/* Gives back everything; sc is left empty. Accepts a zeroed sc. */
void inl_sortcheck_free(sort_check *sc);

/* The key index of leaf, or -1 when it is not a key. */
int inl_sortcheck_key_of(const sort_check *sc, int leaf);

/* Stage `count` entries (one per row) of key column `key`: values dense,
 * one per non-null entry, typed as the append arrays (BOOLEAN as uint8_t
 * 0/1, int32_t, int64_t, float, double, inlay_bytes for BYTE_ARRAY and
 * FIXED_LEN_BYTE_ARRAY); def NULL when no entry is null. Staging a key again
 * before commit or rollback continues after its earlier staged entries.
 * Byte strings are copied where kept: the caller's buffers need to live
 * only through the call. Returns 0, or INLAY_ERR_NOMEM with nothing
 * changed. */
int inl_sortcheck_stage(sort_check *sc, int key, const void *values, const int16_t *def, size_t count);

/* Judge every row all keys now cover (committed and staged), and every
 * row where the first key alone goes down (out of order whatever the
 * other keys will hold). True when all are in order; otherwise false with *bad_row the 0-based file row of the
 * first one out of order and *bad_key the key whose comparison decided it.
 * Changes nothing but a cache of its answer for commit. */
bool inl_sortcheck_verify(sort_check *sc, uint64_t *bad_row, int *bad_key);

/* Staged entries become committed, and the rows verify found in order are
 * dropped (verify is run first when nothing has been verified since the
 * last stage). Meant to follow a verify that said true; after a false one
 * the row out of order stays and is refused again by every later verify. */
void inl_sortcheck_commit(sort_check *sc);

/* Forget every staged entry: the state is as before the stage calls. */
void inl_sortcheck_rollback(sort_check *sc);

#endif
