/*
 * rle.h — the RLE / bit-packed hybrid encoding (Parquet Encodings.md) used
 * for definition and repetition levels and for dictionary indices.
 *
 * The encoder sees a whole page of values at once: a run of 8 or more equal
 * values becomes an RLE run; everything else is bit-packed in groups of 8
 * (up to 63 groups per run header). A bit-packed run is padded with zeros
 * only at the very end of the data, where the page's value count tells the
 * reader where to stop.
 */
#ifndef INLAY_RLE_H
#define INLAY_RLE_H

#include <stddef.h>
#include <stdint.h>

#include "alloc.h"

/* Bits needed for values 0..max_value (0 for 0). */
static inline int inl_rle_bit_width(uint64_t max_value)
{
    return max_value ? 64 - __builtin_clzll(max_value) : 0;
}

/* An upper bound of the encoded size of n values of `width` bits. */
size_t inl_rle_max_size(size_t n, int width);

/* Append the encoding of v[0..n) at `width` bits (0..32) to out. Every value
 * must fit the width. Returns 0, or -1 when out of memory. */
int inl_rle_encode_u16(buf *out, const inlay_allocator *a, const uint16_t *v, size_t n, int width);
int inl_rle_encode_u32(buf *out, const inlay_allocator *a, const uint32_t *v, size_t n, int width);
/* The same, adding each value's count to uses[value] as it goes (the
 * dictionary indices of a page: which entries it uses, read while the
 * indices are in cache). */
int inl_rle_encode_u32_counting(buf *out, const inlay_allocator *a, const uint32_t *v, size_t n, int width,
                                uint32_t *uses);

/* Bit-pack n booleans (one byte each, 0 or 1), LSB first, as PLAIN
 * BOOLEAN data; writes (n + 7) / 8 bytes to dst. */
void inl_rle_pack_bools(uint8_t *dst, const uint8_t *v, size_t n);

#endif
