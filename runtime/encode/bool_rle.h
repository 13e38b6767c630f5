/*
 * bool_rle.h — RLE encoding of BOOLEAN data pages (Parquet Encodings.md:
 * the RLE / bit-packed hybrid at bit width 1, prefixed by the 4-byte
 * little-endian length of the encoded runs, in v1 and v2 data pages alike).
 *
 * The framing is rle.c's: a run of 8 or more equal values that starts where
 * a group of 8 could start is an RLE run (header, then one value byte);
 * everything else is bit-packed in groups of 8, at most 63 groups per run
 * header, and only a bit-packed run at the very end is padded with zeros.
 * The encoding of a page is the same bytes as inl_rle_encode_u32 at width 1
 * would give after the length, found without a scratch copy: the values
 * are scanned and packed eight bytes at a time.
 */
#ifndef INLAY_BOOL_RLE_H
#define INLAY_BOOL_RLE_H

#include <stddef.h>
#include <stdint.h>

#include "alloc.h"

/* An upper bound of the encoded size of n values, length prefix included. */
size_t inl_bool_rle_max_size(size_t n);

/* Append the length and the encoding of v[0..n), one byte per value, each 0
 * or 1. Returns 0, or -1 when out of memory with `out` unchanged. */
int inl_bool_rle_encode(buf *out, const inlay_allocator *a, const uint8_t *v, size_t n);

#endif
