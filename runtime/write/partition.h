/*
 * partition.h — which partition each row of a batch belongs to, and the
 * rows of each partition.
 *
 * Each partition column has a memo table of the values it has seen (the
 * value id is its index + 1; 0 is null), filled for a whole batch with
 * the bulk inserts; the ids of a row's partition columns then go through
 * one more table (a direct map for one column, a 64-bit key for two, a
 * tuple beyond) whose index is the partition's number, in order of first
 * appearance. No per-row call, no per-row allocation.
 *
 * Grouping: a counting sort of the batch's rows by partition, partitions
 * in order of their first row in the batch, rows in batch order, so the
 * files' contents depend only on the data.
 */
#ifndef INLAY_PARTITION_H
#define INLAY_PARTITION_H

#include "hive.h"
#include "memo.h"
#include "schema.h"

typedef struct partition_column {
    int leaf;              /* the dataset's leaf column */
    const char *name;
    hive_kind kind;
    inlay_physical physical;
    memo_fixed fixed;      /* INT32 / INT64 */
    memo_bytes bytes;      /* BYTE_ARRAY */
} partition_column;

typedef struct partitioner {
    inlay_allocator alloc;
    partition_column *cols;
    int ncols;
    size_t count;          /* partitions seen */
    buf values;            /* uint32 value ids, ncols per partition */
    memo_fixed pairs;      /* two columns: (id0 << 32 | id1) -> partition */
    memo_bytes tuples;     /* three or more: the ids' bytes -> partition */
    buf single;            /* one column: value id -> partition + 1 (0: none yet) */
    /* per batch, reused */
    buf ids;               /* uint32 value ids, rows per column */
    buf dense;             /* present values of a column with nulls */
    buf keys;              /* uint64 keys or tuple views */
    buf tuple_bytes;
    buf row_part;          /* uint32 partition of each row */
    buf counts;            /* uint32 per partition: rows in this batch (zero between batches) */
    buf touched;           /* uint32 partitions of this batch, in order of first row */
    buf starts;            /* size_t per touched partition + 1: its rows in `order` */
    buf order;             /* uint32 rows grouped by partition */
} partitioner;

/* Set up for partition columns leaves[0..n) of s (checked by the caller:
 * top-level, not repeated, of a kind inl_hive_kind_of gives). Returns 0 or
 * -1 (out of memory; free it all the same). The schema must outlive it. */
int inl_partitioner_init(partitioner *p, const inlay_allocator *a, const inlay_schema *s, const int *leaves,
                         int n);
void inl_partitioner_free(partitioner *p);

/* The folder form of a column's type, or -1 when it has none. */
int inl_hive_kind_of(const inlay_type *t);

/* Find the partitions of `rows` rows, the partition columns' batches being
 * by[0..ncols) (flat: values with def levels or a validity bitmap, checked
 * already), and group them. Returns 0 or -1 (out of memory: partitions
 * found so far stay known, nothing else changes). Then p->touched holds
 * ntouched partitions, partition p->touched[t]'s rows being
 * p->order[starts[t] .. starts[t + 1]). */
int inl_partition_batch(partitioner *p, const inlay_column_batch *const *by, size_t rows, size_t *ntouched);

/* Partition `part`'s value of partition column k. */
void inl_partition_value(const partitioner *p, size_t part, int k, hive_value *v);

#endif
