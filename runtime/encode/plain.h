/*
 * plain.h — PLAIN encoding of values into a page buffer.
 *
 * Fixed-width values are their little-endian bytes (the host must be
 * little-endian; the writer checks at open), BYTE_ARRAY values a 4-byte
 * little-endian length then the bytes, FIXED_LEN_BYTE_ARRAY values their
 * bytes, BOOLEAN values bits packed LSB first (inl_rle_pack_bools).
 */
#ifndef INLAY_PLAIN_H
#define INLAY_PLAIN_H

#include "alloc.h"

/* Append n fixed-width values of `width` bytes each. */
static inline int inl_plain_put_fixed(buf *out, const inlay_allocator *a,
                                  const void *v, size_t n, size_t width)
{
    return inl_buf_append(out, a, v, n * width);
}

/* Encoded size of n byte-array values. */
size_t inl_plain_bytes_size(const inlay_bytes *v, size_t n);

/* Append n BYTE_ARRAY values (length-prefixed). */
int inl_plain_put_bytes(buf *out, const inlay_allocator *a, const inlay_bytes *v, size_t n);

/* Append n FIXED_LEN_BYTE_ARRAY values of `width` bytes (lengths already
 * checked). */
int inl_plain_put_flba(buf *out, const inlay_allocator *a, const inlay_bytes *v, size_t n,
                   size_t width);

#endif
