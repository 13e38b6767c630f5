/*
 * stats.h — column chunk statistics: min/max by the column's sort order and
 * the null count.
 *
 * Sort orders (parquet.thrift ColumnOrder): signed for INT32/INT64 and
 * signed logical types, unsigned for UINT_*, IEEE for FLOAT/DOUBLE/FLOAT16
 * (NaN never enters min/max; a -0.0/+0.0 bound is widened as the spec asks),
 * bytewise unsigned for strings, binary, UUID and plain FIXED_LEN_BYTE_ARRAY,
 * signed two's-complement big-endian for DECIMAL on byte arrays. Booleans
 * order false < true.
 */
#ifndef INLAY_STATS_H
#define INLAY_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc.h"
#include "types.h"

typedef struct stats {
    sort_order order;
    bool has_minmax;
    uint64_t null_count;
    union { int64_t i; uint64_t u; double d; } min, max;  /* numeric columns */
    buf min_bytes, max_bytes;                               /* byte columns */
} stats;

void inl_stats_reset(stats *s);
void inl_stats_free(stats *s, const inlay_allocator *a);

void inl_stats_update_bool(stats *s, const uint8_t *v, size_t n);
void inl_stats_update_i32(stats *s, const int32_t *v, size_t n);
void inl_stats_update_i64(stats *s, const int64_t *v, size_t n);
void inl_stats_update_float(stats *s, const float *v, size_t n);
void inl_stats_update_double(stats *s, const double *v, size_t n);
/* Byte values given one by one (plain pages, or new dictionary entries).
 * Returns 0 or -1 when out of memory. */
int inl_stats_update_bytes(stats *s, const inlay_allocator *a, const uint8_t *v, size_t len);

/* The PLAIN encoding of min and max for the footer, into out (for numeric
 * columns, `width` bytes: 1 for BOOLEAN, 4 or 8). Returns false when there
 * is no min/max (no non-NaN value seen). */
bool inl_stats_min_max(const stats *s, int physical, uint8_t *min8, uint8_t *max8, size_t *width);

/* The footer's min and max, as PLAIN bytes: numeric bounds written into
 * min8/max8 (as inl_stats_min_max), byte bounds pointing into s, a FLOAT16
 * zero bound widened to cover both zeros. min and max stay valid while s
 * and this struct do. False when there are none. */
typedef struct stats_bounds {
    uint8_t min8[8], max8[8];
    const uint8_t *min, *max;
    size_t min_len, max_len;
    bool min_exact, max_exact;   /* true unless inl_stats_truncate shortened them */
} stats_bounds;

bool inl_stats_bounds_of(const stats *s, int physical, stats_bounds *b);

/* Byte bounds longer than limit bytes (0: no limit) cut to it, as
 * readers' statistics allow: the min to a prefix (a prefix sorts before
 * the value), the max to a prefix with its last byte incremented (trailing
 * 0xFF dropped first) so it still sorts after every value, each then
 * flagged inexact. With utf8 the cut falls on a character boundary and the
 * max's last character becomes the next code point, so both stay valid
 * UTF-8. A max of nothing but 0xFF (or U+10FFFF) has no shorter bound and
 * stays whole. The rounded max is built in scratch; b points into it.
 * Only for bytewise orders. Returns 0 or -1 when out of memory. */
int inl_stats_truncate(stats_bounds *b, size_t limit, bool utf8, buf *scratch, const inlay_allocator *a);

/* Fold the statistics of a page into those of its chunk (same order;
 * bytes: the bounds are byte strings). Returns 0 or -1 when out of memory (into then holds a valid bound). */
int inl_stats_merge(stats *into, const stats *from, bool bytes, const inlay_allocator *a);

/* Compare two byte strings in a byte order; <0, 0, >0. */
int inl_stats_compare_bytes(sort_order o, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

/* Compare two PLAIN-encoded values of a physical type in order o; <0, 0, >0
 * (-0.0 and +0.0 equal). */
int inl_stats_compare_plain(sort_order o, int physical, const uint8_t *a, size_t alen,
                            const uint8_t *b, size_t blen);

/* IEEE half (little-endian bits) to float. */
float inl_stats_half_to_float(uint16_t h);

#endif
