/*
 * bss.h — BYTE_STREAM_SPLIT (Parquet Encodings.md), for FLOAT, DOUBLE,
 * INT32, INT64 and FIXED_LEN_BYTE_ARRAY.
 *
 * n values of W bytes become W streams of n bytes, one after the other:
 * stream k holds byte k of every value, in value order. The size does not
 * change (W * n bytes, no header, no padding); the point is that the bytes
 * of equal significance end up together, which compresses better.
 *
 * Pure functions: they append to `out` and return 0, or -1 when out of
 * memory with `out` unchanged.
 */
#ifndef INLAY_BSS_H
#define INLAY_BSS_H

#include <stddef.h>
#include <stdint.h>

#include "alloc.h"

/* Split n values of `width` bytes stored back to back at `values` (their
 * little-endian bytes, as PLAIN has them). Any width works. */
int inl_bss_encode(buf *out, const inlay_allocator *a, const void *values, size_t n, size_t width);

/* The same for n FIXED_LEN_BYTE_ARRAY values given one by one; every
 * v[i].len must be `width`. */
int inl_bss_encode_bytes(buf *out, const inlay_allocator *a, const inlay_bytes *v, size_t n,
                     size_t width);

#endif
