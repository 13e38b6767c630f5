/*
 * bloom.h — the split-block bloom filter of one column chunk, exactly as
 * parquet-format's BloomFilter.md defines it.
 *
 * The filter is an array of 256-bit blocks, each eight 32-bit words stored
 * little-endian, so `bits` is already the bitset the file holds. A value is
 * hashed once (XXH64, seed 0, over its PLAIN bytes with no length prefix);
 * the hash's high 32 bits pick the block, ((hash >> 32) * num_blocks) >> 32,
 * and its low 32 bits, the key, set one bit in each word: word i gets bit
 * (key * SALT[i]) >> 27. A lookup tests the same eight bits, so there are
 * no false negatives.
 *
 * Values are hashed by bit pattern, as the spec says: -0.0 and +0.0, or
 * NaNs with different payloads, are different values to the filter.
 *
 * The bitset is kept across inl_bloom_reset, so writing chunk after chunk
 * allocates only when a chunk needs a larger filter than any before it.
 */
#ifndef INLAY_BLOOM_H
#define INLAY_BLOOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"

#define INL_BLOOM_BLOCK_BYTES 32   /* one block: eight 32-bit words */

typedef struct bloom {
    uint8_t *bits;   /* nbytes of bitset, reused across chunks */
    size_t nbytes;   /* the filter's size: a power of two >= 32, or 0 before the first reset */
    size_t cap;      /* bytes allocated at bits */
} bloom;

/* Bytes for ndv distinct values at false-positive rate fpp: the spec's
 * num_bits = -8 * ndv / ln(1 - fpp^(1/8)), in bytes rounded up to a power of
 * two, clamped to [32, max_bytes] (max_bytes rounded down to a power of two,
 * and never below 32). ndv 0 gives 32. An fpp outside (0, 1) is taken as the
 * closest rate the clamp allows: <= 0 (or NaN) gives max_bytes, >= 1 gives
 * 32. */
size_t inl_bloom_bytes_for(uint64_t ndv, double fpp, size_t max_bytes);

/* Make b an empty (all-zero) filter of nbytes, a power of two >= 32. The
 * buffer is reused when it is large enough; otherwise a new one is taken
 * from a and the old one given back. Returns 0, or INLAY_ERR_NOMEM with b
 * unchanged. */
int inl_bloom_reset(bloom *b, const inlay_allocator *a, size_t nbytes);

/* Give the bitset back to a; b is left empty (nbytes 0) and may be reset
 * again. Accepts a b that was never reset (all zero). */
void inl_bloom_free(bloom *b, const inlay_allocator *a);

/* Add one value, by its hash. On a filter never reset (nbytes 0) this does
 * nothing. */
void inl_bloom_insert(bloom *b, uint64_t hash);

/* Add n values by their hashes (as n calls of inl_bloom_insert, faster). */
void inl_bloom_insert_many(bloom *b, const uint64_t *hashes, size_t n);

/* False when the value with this hash was certainly never inserted; true
 * when it may have been (always true on a filter never reset: it can rule
 * nothing out). */
bool inl_bloom_check(const bloom *b, uint64_t hash);

/* The filter's hash of len bytes: XXH64 with seed 0. p may be NULL when
 * len is 0. */
uint64_t inl_bloom_hash(const void *p, size_t len);

/* Hash n values of width bytes each, laid out one after another at values,
 * into out[0..n). 4- and 8-byte values (INT32, FLOAT, INT64, DOUBLE) are
 * numbers in host order and are hashed as their little-endian PLAIN bytes;
 * other widths (FIXED_LEN_BYTE_ARRAY) are hashed as they lie. */
void inl_bloom_hash_fixed(const void *values, size_t n, size_t width, uint64_t *out);

/* Hash n byte strings (BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY values: their
 * bytes, no length prefix) into out[0..n). */
void inl_bloom_hash_bytes(const inlay_bytes *v, size_t n, uint64_t *out);

#endif
