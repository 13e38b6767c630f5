/*
 * delta.c — DELTA_BINARY_PACKED and the two byte-array encodings built on
 * it (see delta.h).
 *
 * INT32 values and byte-array lengths go through one driver that asks a
 * fill function for the next 128 values, turns them into deltas in place
 * and writes a block; INT64 and DELTA_BYTE_ARRAY have their own. A block
 * first takes the signed minimum of its deltas, subtracts it (the results
 * are unsigned and fit the type's width), then packs each miniblock at the
 * width of the OR of its values. Packing is unrolled per width: with the
 * width a constant every shift and store position is known.
 *
 * Room is reserved per block for the largest block possible, so the hot
 * loops write through a plain pointer; a failed reservation puts out->len
 * back where the call found it. DELTA_BYTE_ARRAY reserves everything at
 * once instead, so that it can fill its three parts side by side.
 */
#include "delta.h"

enum {
    HEADER_MAX = 2 + 1 + 10 + 10,                       /* 128, 4, count, first */
    BLOCK32_MAX = 5 + DELTA_MINIBLOCKS + DELTA_BLOCK_SIZE * 4,
    BLOCK64_MAX = 10 + DELTA_MINIBLOCKS + DELTA_BLOCK_SIZE * 8
};

#define SIGN32 UINT32_C(0x80000000)

/* ---- varints -------------------------------------------------------------- */

static uint8_t *put_uleb(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* Zigzag on the two's complement bits, so no signed shift or overflow. */
static inline uint32_t zigzag32(uint32_t x)
{
    return x << 1 ^ (0u - (x >> 31));
}

static inline uint64_t zigzag64(uint64_t x)
{
    return x << 1 ^ (UINT64_C(0) - (x >> 63));
}

static inline int width32(uint32_t x)
{
    return x ? 32 - __builtin_clz(x) : 0;
}

static inline int width64(uint64_t x)
{
    return x ? 64 - __builtin_clzll(x) : 0;
}

static inline void put_u64le(uint8_t *p, uint64_t v)
{
    inl_put_u32le(p, (uint32_t)v);
    inl_put_u32le(p + 4, (uint32_t)(v >> 32));
}

static uint8_t *header(uint8_t *p, size_t n, uint64_t first)
{
    p = put_uleb(p, DELTA_BLOCK_SIZE);
    p = put_uleb(p, DELTA_MINIBLOCKS);
    p = put_uleb(p, n);
    return put_uleb(p, first);
}

static int put_header(buf *out, const inlay_allocator *a, size_t n, uint64_t first)
{
    if (inl_buf_reserve(out, a, HEADER_MAX)) return -1;
    out->len = (size_t)(header(out->data + out->len, n, first) - out->data);
    return 0;
}

/* ---- bit packing of one miniblock ------------------------------------------ */

/* 32 values of w <= 32 bits: a 64-bit accumulator that flushes 32 bits at a
 * time never overflows (under 32 bits left + at most 32 new), and 32 * w
 * bits always end on a 32-bit boundary. T is uint32_t or uint64_t. */
#define PACK_NARROW(T)                                                           \
    static inline __attribute__((always_inline)) uint8_t *                       \
    pack_narrow_##T(uint8_t *p, const T *u, const int w)                         \
    {                                                                            \
        uint64_t acc = 0;                                                        \
        int bits = 0;                                                            \
        _Pragma("GCC unroll 32")                                                 \
        for (int i = 0; i < DELTA_MINIBLOCK_SIZE; i++) {                         \
            acc |= (uint64_t)u[i] << bits;                                       \
            bits += w;                                                           \
            if (bits >= 32) {                                                    \
                inl_put_u32le(p, (uint32_t)acc);                                     \
                p += 4;                                                          \
                acc >>= 32;                                                      \
                bits -= 32;                                                      \
            }                                                                    \
        }                                                                        \
        return p;                                                                \
    }

PACK_NARROW(uint32_t)
PACK_NARROW(uint64_t)

#define CASE_W(T, W) case W: return pack_narrow_##T(p, u, W);
#define CASES_1_32(T)                                                            \
    CASE_W(T, 1) CASE_W(T, 2) CASE_W(T, 3) CASE_W(T, 4) CASE_W(T, 5)             \
    CASE_W(T, 6) CASE_W(T, 7) CASE_W(T, 8) CASE_W(T, 9) CASE_W(T, 10)            \
    CASE_W(T, 11) CASE_W(T, 12) CASE_W(T, 13) CASE_W(T, 14) CASE_W(T, 15)        \
    CASE_W(T, 16) CASE_W(T, 17) CASE_W(T, 18) CASE_W(T, 19) CASE_W(T, 20)        \
    CASE_W(T, 21) CASE_W(T, 22) CASE_W(T, 23) CASE_W(T, 24) CASE_W(T, 25)        \
    CASE_W(T, 26) CASE_W(T, 27) CASE_W(T, 28) CASE_W(T, 29) CASE_W(T, 30)        \
    CASE_W(T, 31) CASE_W(T, 32)

static uint8_t *pack32(uint8_t *p, const uint32_t *u, int w)
{
    switch (w) {
    CASES_1_32(uint32_t)
    default: return p;                      /* width 0: no bytes */
    }
}

/* 33..64 bits: flush 64 bits whenever the accumulator fills; an odd width
 * leaves 32 bits over at the end. */
static uint8_t *pack_wide(uint8_t *p, const uint64_t *u, int w)
{
    uint64_t acc = 0;
    int bits = 0;
    for (int i = 0; i < DELTA_MINIBLOCK_SIZE; i++) {
        acc |= u[i] << bits;
        if (bits + w >= 64) {
            put_u64le(p, acc);
            p += 8;
            acc = bits ? u[i] >> (64 - bits) : 0;
            bits = bits + w - 64;
        } else {
            bits += w;
        }
    }
    if (bits) {
        inl_put_u32le(p, (uint32_t)acc);
        p += 4;
    }
    return p;
}

static uint8_t *pack64(uint8_t *p, const uint64_t *u, int w)
{
    switch (w) {
    CASES_1_32(uint64_t)
    case 0: return p;
    default: return pack_wide(p, u, w);
    }
}

/* ---- blocks ------------------------------------------------------------------ */

/* Values in the miniblocks that hold any of `count` values, padding included. */
static inline size_t padded(size_t count)
{
    return (count + DELTA_MINIBLOCK_SIZE - 1) / DELTA_MINIBLOCK_SIZE * DELTA_MINIBLOCK_SIZE;
}

/* Write the block of d[0..count) (1..128 deltas) at p and return its end;
 * d is overwritten. */
static uint8_t *block32(uint8_t *p, uint32_t *d, size_t count)
{
    uint32_t min = UINT32_MAX;             /* signed minimum, compared biased */
    for (size_t i = 0; i < count; i++) {
        uint32_t x = d[i] ^ SIGN32;
        min = x < min ? x : min;
    }
    min ^= SIGN32;
    for (size_t i = 0; i < count; i++) d[i] -= min;
    for (size_t i = count; i < padded(count); i++) d[i] = 0;

    p = put_uleb(p, zigzag32(min));
    uint8_t *widths = p;
    p += DELTA_MINIBLOCKS;
    for (size_t m = 0; m < DELTA_MINIBLOCKS; m++) {
        const uint32_t *u = d + m * DELTA_MINIBLOCK_SIZE;
        uint32_t any = 0;
        if (m * DELTA_MINIBLOCK_SIZE < count)
            for (int i = 0; i < DELTA_MINIBLOCK_SIZE; i++) any |= u[i];
        else
            u = NULL;                      /* past the values: width 0, no body */
        widths[m] = (uint8_t)width32(any);
        if (u) p = pack32(p, u, widths[m]);
    }
    return p;
}

static int put_block32(buf *out, const inlay_allocator *a, uint32_t *d, size_t count)
{
    if (inl_buf_reserve(out, a, BLOCK32_MAX)) return -1;
    out->len = (size_t)(block32(out->data + out->len, d, count) - out->data);
    return 0;
}

/* The block of d[0..count) (1..128 deltas), whose signed minimum and
 * maximum the caller found while computing them; d is overwritten. */
static inline __attribute__((always_inline)) int put_block64(buf *out, const inlay_allocator *a, uint64_t *d,
                                                             size_t count, int64_t min, int64_t max)
{
    if (inl_buf_reserve(out, a, BLOCK64_MAX)) return -1;
    uint8_t *p = put_uleb(out->data + out->len, zigzag64((uint64_t)min));
    uint8_t *widths = p;
    p += DELTA_MINIBLOCKS;
    /* Deltas of timestamps and counters span under 2^32: pack those from a
     * 32-bit copy made in the same pass as the subtraction, half the memory
     * traffic of the 64-bit path. */
    if ((uint64_t)max - (uint64_t)min <= UINT32_MAX) {
        uint32_t n32[DELTA_MINIBLOCK_SIZE];
        for (size_t m = 0; m < DELTA_MINIBLOCKS; m++) {
            const size_t first = m * DELTA_MINIBLOCK_SIZE;
            if (first >= count) {
                widths[m] = 0;          /* past the values: width 0, no body */
                continue;
            }
            const uint64_t *src = d + first;
            uint32_t any = 0;
            if (count - first >= DELTA_MINIBLOCK_SIZE) {
                for (int i = 0; i < DELTA_MINIBLOCK_SIZE; i++) {
                    n32[i] = (uint32_t)(src[i] - (uint64_t)min);
                    any |= n32[i];
                }
            } else {
                const size_t have = count - first;
                for (size_t i = 0; i < DELTA_MINIBLOCK_SIZE; i++) {
                    n32[i] = i < have ? (uint32_t)(src[i] - (uint64_t)min) : 0;
                    any |= n32[i];
                }
            }
            widths[m] = (uint8_t)width32(any);
            p = pack32(p, n32, widths[m]);
        }
        out->len = (size_t)(p - out->data);
        return 0;
    }
    for (size_t i = 0; i < count; i++) d[i] -= (uint64_t)min;
    for (size_t i = count; i < padded(count); i++) d[i] = 0;
    for (size_t m = 0; m < DELTA_MINIBLOCKS; m++) {
        const uint64_t *u = d + m * DELTA_MINIBLOCK_SIZE;
        uint64_t any = 0;
        if (m * DELTA_MINIBLOCK_SIZE < count)
            for (int i = 0; i < DELTA_MINIBLOCK_SIZE; i++) any |= u[i];
        else
            u = NULL;
        widths[m] = (uint8_t)width64(any);
        if (u) p = pack64(p, u, widths[m]);
    }
    out->len = (size_t)(p - out->data);
    return 0;
}

/* ---- streams ------------------------------------------------------------------- */

/* Writes the 32-bit values from..from+count of some sequence into dst. */
typedef void fill32_fn(void *ctx, uint32_t *dst, size_t from, size_t count);

/* DELTA_BINARY_PACKED of the n values `fill` yields. */
static int put_stream32(buf *out, const inlay_allocator *a, size_t n, fill32_fn *fill, void *ctx)
{
    const size_t start = out->len;
    uint32_t d[DELTA_BLOCK_SIZE];
    uint32_t prev = 0;
    if (n) fill(ctx, &prev, 0, 1);
    if (put_header(out, a, n, zigzag32(prev))) return -1;
    for (size_t i = 1; i < n; i += DELTA_BLOCK_SIZE) {
        const size_t count = n - i < DELTA_BLOCK_SIZE ? n - i : DELTA_BLOCK_SIZE;
        fill(ctx, d, i, count);
        const uint32_t last = d[count - 1];
        for (size_t k = count - 1; k > 0; k--) d[k] -= d[k - 1];
        d[0] -= prev;
        prev = last;
        if (put_block32(out, a, d, count)) {
            out->len = start;
            return -1;
        }
    }
    return 0;
}

typedef struct i32_source {
    const int32_t *v;
    int32_t lo, hi;   /* the values' signed bounds so far */
} i32_source;

static void fill_i32(void *ctx, uint32_t *dst, size_t from, size_t count)
{
    i32_source *s = ctx;
    const int32_t *v = s->v + from;
    int32_t lo = s->lo, hi = s->hi;
    for (size_t k = 0; k < count; k++) {
        dst[k] = (uint32_t)v[k];
        lo = v[k] < lo ? v[k] : lo;
        hi = v[k] > hi ? v[k] : hi;
    }
    s->lo = lo;
    s->hi = hi;
}

int inl_delta_encode_i32_bounds(buf *out, const inlay_allocator *a, const int32_t *v, size_t n, int32_t *lo,
                                int32_t *hi)
{
    i32_source s = { v, INT32_MAX, INT32_MIN };
    if (put_stream32(out, a, n, fill_i32, &s)) return -1;
    *lo = s.lo;
    *hi = s.hi;
    return 0;
}

int inl_delta_encode_i32(buf *out, const inlay_allocator *a, const int32_t *v, size_t n)
{
    int32_t lo, hi;
    return inl_delta_encode_i32_bounds(out, a, v, n, &lo, &hi);
}

INLAY_MULTIVERSION
int inl_delta_encode_i64_bounds(buf *out, const inlay_allocator *a, const int64_t *v, size_t n, int64_t *lo,
                                int64_t *hi)
{
    const size_t start = out->len;
    uint64_t d[DELTA_BLOCK_SIZE];
    if (put_header(out, a, n, n ? zigzag64((uint64_t)v[0]) : 0)) return -1;
    int64_t vlo = n ? v[0] : INT64_MAX, vhi = n ? v[0] : INT64_MIN;
    for (size_t i = 1; i < n; i += DELTA_BLOCK_SIZE) {
        const size_t count = n - i < DELTA_BLOCK_SIZE ? n - i : DELTA_BLOCK_SIZE;
        /* Deltas, their signed extremes and the values' in one vectorisable
         * pass: the page's statistics need not read the values again. */
        int64_t min = INT64_MAX, max = INT64_MIN;
        for (size_t k = 0; k < count; k++) {
            const int64_t vk = v[i + k];
            const uint64_t dk = (uint64_t)vk - (uint64_t)v[i + k - 1];
            const int64_t x = (int64_t)dk;   /* two's complement, as GCC and Clang define it */
            d[k] = dk;
            min = x < min ? x : min;
            max = x > max ? x : max;
            vlo = vk < vlo ? vk : vlo;
            vhi = vk > vhi ? vk : vhi;
        }
        if (put_block64(out, a, d, count, min, max)) {
            out->len = start;
            return -1;
        }
    }
    *lo = vlo;
    *hi = vhi;
    return 0;
}

int inl_delta_encode_i64(buf *out, const inlay_allocator *a, const int64_t *v, size_t n)
{
    int64_t lo, hi;
    return inl_delta_encode_i64_bounds(out, a, v, n, &lo, &hi);
}

/* ---- byte arrays ------------------------------------------------------------------ */

static void fill_lengths(void *ctx, uint32_t *dst, size_t from, size_t count)
{
    const inlay_bytes *v = (const inlay_bytes *)ctx + from;
    for (size_t k = 0; k < count; k++) dst[k] = (uint32_t)v[k].len;
}

int inl_delta_encode_length_bytes(buf *out, const inlay_allocator *a, const inlay_bytes *v,
                              size_t n)
{
    const size_t start = out->len;
    size_t total = 0, longest = 0;
    for (size_t i = 0; i < n; i++) {
        total += v[i].len;
        if (v[i].len > longest) longest = v[i].len;
    }
    if (longest > INT32_MAX) return -1;            /* not a Parquet value; see delta.h */
    if (put_stream32(out, a, n, fill_lengths, (void *)v) || inl_buf_reserve(out, a, total)) {
        out->len = start;
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (v[i].len) memcpy(out->data + out->len, v[i].data, v[i].len);
        out->len += v[i].len;
    }
    return 0;
}

/* Bytes x and y have in common at the start, eight at a time (the host is
 * little-endian, so the lowest differing bit is in the first differing
 * byte). The last few bytes are compared as the eight that end there, so
 * no loop runs byte by byte. */
static size_t shared_prefix(const uint8_t *x, size_t xn, const uint8_t *y, size_t yn)
{
    const size_t m = xn < yn ? xn : yn;
    size_t i = 0;
    uint64_t p, q;
    for (; i + 8 <= m; i += 8) {
        memcpy(&p, x + i, 8);
        memcpy(&q, y + i, 8);
        if (p != q) return i + (size_t)__builtin_ctzll(p ^ q) / 8;
    }
    if (i == m) return m;
    if (m >= 8) {
        memcpy(&p, x + m - 8, 8);
        memcpy(&q, y + m - 8, 8);
        return p == q ? m : m - 8 + (size_t)__builtin_ctzll(p ^ q) / 8;
    }
    while (i < m && x[i] == y[i]) i++;
    return i;
}

/* The largest a 32-bit stream of n values in [0, max] can be: its deltas
 * lie in [-max, max], so no miniblock is wider than 2 * max needs. */
static size_t stream_bound(size_t n, uint32_t max)
{
    const size_t blocks = n > 1 ? (n - 2) / DELTA_BLOCK_SIZE + 1 : 0;
    const size_t w = (size_t)width32(max * 2);
    return HEADER_MAX + blocks * (5 + DELTA_MINIBLOCKS + DELTA_BLOCK_SIZE / 8 * w);
}

/* DELTA_BYTE_ARRAY in one pass over the values: each value's prefix
 * length feeds the prefix stream, the suffix-length stream and the suffix
 * bytes at once. The three are written into room reserved for the largest
 * each can be, one after the other, and then moved together. */
int inl_delta_encode_bytes(buf *out, const inlay_allocator *a, const inlay_bytes *v, size_t n)
{
    size_t total = 0, longest = 0;
    for (size_t i = 0; i < n; i++) {
        total += v[i].len;
        if (v[i].len > longest) longest = v[i].len;
    }
    if (longest > INT32_MAX) return -1;            /* not a Parquet value; see delta.h */
    const size_t bound = stream_bound(n, (uint32_t)longest);
    if (inl_buf_reserve(out, a, 2 * bound + total)) return -1;

    uint8_t *const base = out->data + out->len;
    uint8_t *const suffix_base = base + bound, *const bytes_base = suffix_base + bound;
    uint8_t *pp = header(base, n, 0);
    uint8_t *sp = header(suffix_base, n, n ? zigzag32((uint32_t)v[0].len) : 0);
    uint8_t *bp = bytes_base;
    if (n && v[0].len) memcpy(bp, v[0].data, v[0].len);
    if (n) bp += v[0].len;

    uint32_t dp[DELTA_BLOCK_SIZE], ds[DELTA_BLOCK_SIZE];
    uint32_t prev_prefix = 0, prev_suffix = n ? (uint32_t)v[0].len : 0;
    for (size_t i = 1; i < n; i += DELTA_BLOCK_SIZE) {
        const size_t count = n - i < DELTA_BLOCK_SIZE ? n - i : DELTA_BLOCK_SIZE;
        for (size_t k = 0; k < count; k++) {
            const inlay_bytes *x = &v[i + k - 1], *y = &v[i + k];
            const size_t shared = shared_prefix(x->data, x->len, y->data, y->len);
            const uint32_t prefix = (uint32_t)shared, suffix = (uint32_t)(y->len - shared);
            dp[k] = prefix - prev_prefix;
            ds[k] = suffix - prev_suffix;
            prev_prefix = prefix;
            prev_suffix = suffix;
            if (suffix) memcpy(bp, (const uint8_t *)y->data + shared, suffix);
            bp += suffix;
        }
        pp = block32(pp, dp, count);
        sp = block32(sp, ds, count);
    }
    const size_t suffix_len = (size_t)(sp - suffix_base), bytes_len = (size_t)(bp - bytes_base);
    memmove(pp, suffix_base, suffix_len);
    memmove(pp + suffix_len, bytes_base, bytes_len);
    out->len = (size_t)(pp + suffix_len + bytes_len - out->data);
    return 0;
}
