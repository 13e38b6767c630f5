/*
 * delta.h — the delta encodings of Parquet's Encodings.md:
 * DELTA_BINARY_PACKED (INT32, INT64), DELTA_LENGTH_BYTE_ARRAY and
 * DELTA_BYTE_ARRAY (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY).
 *
 * DELTA_BINARY_PACKED, as written here:
 *
 *   header := ULEB(128) ULEB(4) ULEB(value count) zigzag-ULEB(first value)
 *   block  := zigzag-ULEB(min delta) width[4] (bytes) miniblock*
 *
 * A block holds the next 128 deltas between consecutive values, four
 * miniblocks of 32. Each miniblock stores delta - min delta at its own bit
 * width, packed LSB first, and is always 32 values long: a short last one is
 * padded with zero bits. Miniblocks of the last block that hold no value
 * keep their width byte (0) and have no body. One value is a header alone,
 * and so is no value (count 0, first value 0).
 *
 * All arithmetic wraps, in 32 bits for INT32 and 64 bits for INT64 (the
 * spec's overflow rule; Arrow and parquet-mr do the same), so every input
 * round-trips and an INT32 miniblock is never wider than 32 bits.
 *
 * The encoders are pure: they append to `out`, allocate nothing but the
 * buffer's growth, and return 0, or -1 when out of memory with out->len as
 * it was (bytes past it may have changed). They reserve room for
 * the largest output first (a block at a time, or for DELTA_BYTE_ARRAY all
 * at once), so the buffer may grow past what the encoding needs.
 */
#ifndef INLAY_DELTA_H
#define INLAY_DELTA_H

#include <stddef.h>
#include <stdint.h>

#include "alloc.h"

enum {
    DELTA_BLOCK_SIZE = 128,          /* values per block */
    DELTA_MINIBLOCKS = 4,            /* miniblocks per block */
    DELTA_MINIBLOCK_SIZE = 32        /* values per miniblock */
};

/* DELTA_BINARY_PACKED of v[0..n). */
int inl_delta_encode_i32(buf *out, const inlay_allocator *a, const int32_t *v, size_t n);
int inl_delta_encode_i64(buf *out, const inlay_allocator *a, const int64_t *v, size_t n);
/* The same, giving the values' signed minimum and maximum, found in the
 * pass that takes their deltas (for n = 0: INT_MAX and INT_MIN). */
int inl_delta_encode_i32_bounds(buf *out, const inlay_allocator *a, const int32_t *v, size_t n, int32_t *lo,
                                int32_t *hi);
int inl_delta_encode_i64_bounds(buf *out, const inlay_allocator *a, const int64_t *v, size_t n, int64_t *lo,
                                int64_t *hi);

/* DELTA_LENGTH_BYTE_ARRAY of v[0..n): the lengths as DELTA_BINARY_PACKED
 * INT32, then every value's bytes back to back. Each length must be at most
 * INT32_MAX (validate.c enforces it for appended values): a longer one makes
 * it return -1 rather than write a stream no reader accepts. */
int inl_delta_encode_length_bytes(buf *out, const inlay_allocator *a, const inlay_bytes *v,
                              size_t n);

/* DELTA_BYTE_ARRAY of v[0..n): the length of the prefix each value shares
 * with the one before it (0 for the first) as DELTA_BINARY_PACKED INT32,
 * then the rest of each value as DELTA_LENGTH_BYTE_ARRAY. Serves
 * FIXED_LEN_BYTE_ARRAY too, whose lengths are all written even though they
 * are equal. Lengths as for inl_delta_encode_length_bytes. */
int inl_delta_encode_bytes(buf *out, const inlay_allocator *a, const inlay_bytes *v, size_t n);

#endif
