/*
 * decode.h — the value and level decoders of the reader: each turns one
 * encoded run of a page into plain arrays, reading only inside the bytes
 * it is given.
 *
 * Every function takes its input as (p, n) and a count of values wanted,
 * writes exactly `count` values on success and returns the number of input
 * bytes it used (>= 0), or -1 when the input is too short or malformed
 * (a bit width out of range, a length past the end, a dictionary index
 * past the dictionary, a level above its maximum). Outputs are arrays the
 * caller sized for `count`; byte strings come out as inlay_bytes pointing
 * into p (or into the arena, for DELTA_BYTE_ARRAY, which rebuilds them).
 * Nothing allocates except through the arena's buf.
 */
#ifndef INLAY_DECODE_H
#define INLAY_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"

/* PLAIN. width: 4 or 8 for numbers (copied as bytes, little-endian);
 * 12 for INT96 into int64 nanoseconds since the epoch (julian day + nanos
 * of day). */
long inl_dec_plain_fixed(const uint8_t *p, size_t n, size_t count, size_t width, void *out);
long inl_dec_plain_int96_nanos(const uint8_t *p, size_t n, size_t count, int64_t *out);
long inl_dec_plain_bool(const uint8_t *p, size_t n, size_t count, bool *out);
long inl_dec_plain_bytes(const uint8_t *p, size_t n, size_t count, inlay_bytes *out);
long inl_dec_plain_flba(const uint8_t *p, size_t n, size_t count, size_t width, inlay_bytes *out);

/* RLE / bit-packed hybrid with no length prefix, bit_width 0..32 (0: all
 * zeros), values checked <= max. For levels (int16) and dictionary
 * indices (uint32). */
long inl_dec_levels(const uint8_t *p, size_t n, int bit_width, size_t count, int16_t max, int16_t *out);
long inl_dec_hybrid_u32(const uint8_t *p, size_t n, int bit_width, size_t count, uint32_t max, uint32_t *out);

/* RLE_DICTIONARY / PLAIN_DICTIONARY data: one byte of bit width, then the
 * hybrid run; every index must be < dict_size. */
long inl_dec_dict_indices(const uint8_t *p, size_t n, size_t count, uint32_t dict_size, uint32_t *out);

/* RLE booleans as a data page's values: a 4-byte little-endian length,
 * then the hybrid run at bit width 1. */
long inl_dec_rle_bool(const uint8_t *p, size_t n, size_t count, bool *out);

/* DELTA_BINARY_PACKED into int32 or int64 (wrapping arithmetic, as the
 * spec requires). */
long inl_dec_delta_i32(const uint8_t *p, size_t n, size_t count, int32_t *out);
long inl_dec_delta_i64(const uint8_t *p, size_t n, size_t count, int64_t *out);

/* DELTA_LENGTH_BYTE_ARRAY: the lengths (delta-packed), then the bytes. */
long inl_dec_delta_length_bytes(const uint8_t *p, size_t n, size_t count, inlay_bytes *out);

/* DELTA_BYTE_ARRAY: prefix lengths, suffixes (delta length), each value
 * rebuilt into arena (appended; pointers are fixed up after the arena
 * stops growing, so they stay valid until the arena is next changed).
 * width > 0 checks every value has that length (FIXED_LEN_BYTE_ARRAY). */
long inl_dec_delta_bytes(const uint8_t *p, size_t n, size_t count, size_t width, buf *arena,
                         const inlay_allocator *a, inlay_bytes *out);

/* BYTE_STREAM_SPLIT of `count` values of `width` bytes (4, 8, or a fixed
 * width) into out (count * width bytes). Uses exactly count * width bytes. */
long inl_dec_bss(const uint8_t *p, size_t n, size_t count, size_t width, void *out);

/* out[i] = dict[idx[i]] for i < count, values of `width` bytes (1 for
 * bool, 4, 8, or sizeof(inlay_bytes)). Indices are already checked. */
void inl_dec_gather(void *out, const void *dict, const uint32_t *idx, size_t count, size_t width);

#endif
