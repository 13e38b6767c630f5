/*
 * bloom.c — the split-block bloom filter (see bloom.h).
 *
 * The bitset is used in place as 32-bit words: it comes from the allocator,
 * so it is aligned for them, and on a little-endian host a word in memory
 * is already its file form. On a big-endian host the one-bit masks are
 * byte-swapped instead of the words, which OR does not mind.
 */
#include "bloom.h"

#include <math.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define BLOOM_LE32(x) __builtin_bswap32(x)
#define BLOOM_BIG_ENDIAN 1
#else
#define BLOOM_LE32(x) (x)
#define BLOOM_BIG_ENDIAN 0
#endif

static const uint32_t SALT[8] = { 0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                  0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U };

/* ---- sizing and memory ------------------------------------------------- */

size_t inl_bloom_bytes_for(uint64_t ndv, double fpp, size_t max_bytes)
{
    size_t max = INL_BLOOM_BLOCK_BYTES;
    while (max <= max_bytes / 2) max *= 2;
    if (ndv == 0 || fpp >= 1) return INL_BLOOM_BLOCK_BYTES;
    if (!(fpp > 0)) return max;
    /* log1p: for a tiny fpp, 1 - fpp^(1/8) rounds to 1 and log() to 0 */
    double bits = -8.0 * (double)ndv / log1p(-pow(fpp, 1.0 / 8));
    size_t n = INL_BLOOM_BLOCK_BYTES;
    while (n < max && (double)n * 8 < bits) n *= 2;
    return n;
}

int inl_bloom_reset(bloom *b, const inlay_allocator *a, size_t nbytes)
{
    if (nbytes > b->cap) {
        uint8_t *p = inl_mem_alloc(a, nbytes);
        if (!p) return INLAY_ERR_NOMEM;
        if (b->bits) inl_mem_free(a, b->bits, b->cap);
        b->bits = p;
        b->cap = nbytes;
    }
    memset(b->bits, 0, nbytes);
    b->nbytes = nbytes;
    return 0;
}

void inl_bloom_free(bloom *b, const inlay_allocator *a)
{
    if (b->bits) inl_mem_free(a, b->bits, b->cap);
    b->bits = NULL;
    b->nbytes = b->cap = 0;
}

/* ---- insert and check -------------------------------------------------- */

/* The block a hash picks: its high 32 bits scaled to the block count. */
static inline uint32_t *bloom_block(const bloom *b, uint64_t hash)
{
    uint64_t nblocks = b->nbytes / INL_BLOOM_BLOCK_BYTES;
    size_t i = (size_t)(((hash >> 32) * nblocks) >> 32);
    return (uint32_t *)(void *)(b->bits + i * INL_BLOOM_BLOCK_BYTES);
}

/* The spec's Mask(): one bit per word, ORed into the block. */
static inline void block_set(uint32_t *w, uint32_t key)
{
    for (int i = 0; i < 8; i++) w[i] |= BLOOM_LE32(UINT32_C(1) << ((key * SALT[i]) >> 27));
}

void inl_bloom_insert(bloom *b, uint64_t hash)
{
    if (INLAY_UNLIKELY(!b->nbytes)) return;
    block_set(bloom_block(b, hash), (uint32_t)hash);
}

/* The bulk insert, built for AVX2 too: there the eight lanes are one
 * multiply, shift, variable shift and OR on a 256-bit vector, three to four
 * times faster than eight scalar lanes. GCC vectorises them only as a loop
 * (its straight-line vectoriser cannot pair shifts by different amounts),
 * so the lane loop is kept rolled. The block 16 values ahead is
 * prefetched: in a filter larger than the caches each value is otherwise
 * a miss, and a 16 MiB filter fills a third (AVX2) to two thirds faster
 * with it, for about 10% more time when the filter fits in L2. */
#define BLOOM_PREFETCH 16

INLAY_MULTIVERSION
void inl_bloom_insert_many(bloom *b, const uint64_t *hashes, size_t n)
{
    if (INLAY_UNLIKELY(!b->nbytes)) return;
    for (size_t i = 0; i < n; i++) {
        if (i + BLOOM_PREFETCH < n) __builtin_prefetch(bloom_block(b, hashes[i + BLOOM_PREFETCH]), 1);
        uint32_t *w = bloom_block(b, hashes[i]), key = (uint32_t)hashes[i];
#pragma GCC unroll 1
        for (int k = 0; k < 8; k++) w[k] |= BLOOM_LE32(UINT32_C(1) << ((key * SALT[k]) >> 27));
    }
}

bool inl_bloom_check(const bloom *b, uint64_t hash)
{
    if (INLAY_UNLIKELY(!b->nbytes)) return true;
    const uint32_t *w = bloom_block(b, hash);
    uint32_t key = (uint32_t)hash, missing = 0;
    for (int i = 0; i < 8; i++) {
        uint32_t m = BLOOM_LE32(UINT32_C(1) << ((key * SALT[i]) >> 27));
        missing |= m & ~w[i];
    }
    return missing == 0;
}

/* ---- hashing ----------------------------------------------------------- */

uint64_t inl_bloom_hash(const void *p, size_t len)
{
    return XXH64(p, len, 0);
}

/* Constant lengths let the inlined XXH64 fold to straight-line code, five
 * 64-bit multiplies a value. (An AVX2 build of this loop, which has to
 * emulate them from 32-bit multiplies, measured slower.) */
void inl_bloom_hash_fixed(const void *values, size_t n, size_t width, uint64_t *out)
{
    const uint8_t *v = values;
    if (width == 8) {
        for (size_t i = 0; i < n; i++) {
            uint64_t x;
            memcpy(&x, v + i * 8, 8);
            if (BLOOM_BIG_ENDIAN) x = __builtin_bswap64(x);
            out[i] = XXH64(&x, 8, 0);
        }
    } else if (width == 4) {
        for (size_t i = 0; i < n; i++) {
            uint32_t x;
            memcpy(&x, v + i * 4, 4);
            if (BLOOM_BIG_ENDIAN) x = __builtin_bswap32(x);
            out[i] = XXH64(&x, 4, 0);
        }
    } else {
        for (size_t i = 0; i < n; i++) out[i] = XXH64(v + i * width, width, 0);
    }
}

void inl_bloom_hash_bytes(const inlay_bytes *v, size_t n, uint64_t *out)
{
    for (size_t i = 0; i < n; i++) out[i] = XXH64(v[i].data, v[i].len, 0);
}
