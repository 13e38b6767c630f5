/*
 * rle.c — RLE / bit-packed hybrid encoder (see rle.h).
 *
 * Bit-packed groups are packed eight values at a time by a routine
 * specialised for each width, so the shifts and the bytes stored are
 * constants rather than a loop that moves one byte at a time.
 */
#include <string.h>

#include "rle.h"

size_t inl_rle_max_size(size_t n, int width)
{
    /* Worst case alternates short RLE runs and single literal groups:
     * per 8 values at most a 1-byte literal header + width bytes, or a
     * 5-byte run header + 4 value bytes. The 16 spare bytes let a group
     * be stored with whole-word writes past its last byte. */
    return (n / 8 + 2) * ((size_t)width + 10) + 16;
}

static uint8_t *put_uleb(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static uint8_t *put_run(uint8_t *p, size_t count, uint32_t value, int width)
{
    p = put_uleb(p, (uint64_t)count << 1);
    for (int b = 0; b < (width + 7) / 8; b++) *p++ = (uint8_t)(value >> (8 * b));
    return p;
}

static inline void store64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static inline void store32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

/* Eight values of W bits, LSB first, at p: exactly W bytes of output
 * (the stores may touch up to 8 bytes beyond them). W is a constant at
 * every call, so this unrolls to shifts and ORs. */
#define PACK8_BODY(v, W)                                                            \
    do {                                                                            \
        if ((W) <= 8) {                                                             \
            uint64_t acc = 0;                                                       \
            for (int k = 0; k < 8; k++) acc |= (uint64_t)(v)[k] << ((W) * k);       \
            store64(p, acc);                                                        \
        } else if ((W) <= 16) {                                                     \
            uint64_t lo = 0, hi = 0;                                                \
            for (int k = 0; k < 4; k++) lo |= (uint64_t)(v)[k] << ((W) * k);        \
            for (int k = 0; k < 4; k++) hi |= (uint64_t)(v)[k + 4] << ((W) * k);    \
            /* lo holds 4W bits; hi goes right after them */                        \
            store64(p, lo | (4 * (W) < 64 ? hi << ((4 * (W)) & 63) : 0));           \
            store64(p + 8, 4 * (W) < 64 ? hi >> ((64 - 4 * (W)) & 63) : hi);        \
        } else {                                                                    \
            uint64_t acc = 0;                                                       \
            int bits = 0;                                                           \
            uint8_t *q = p;                                                         \
            for (int k = 0; k < 8; k++) {                                           \
                acc |= (uint64_t)(v)[k] << bits;                                    \
                bits += (W);                                                        \
                if (bits >= 32) {                                                   \
                    store32(q, (uint32_t)acc);                                      \
                    q += 4;                                                         \
                    acc >>= 32;                                                     \
                    bits -= 32;                                                     \
                }                                                                   \
            }                                                                       \
            store32(q, (uint32_t)acc);                                              \
        }                                                                           \
    } while (0)

#define WIDTHS(X)                                                                   \
    X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14)      \
    X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27)   \
    X(28) X(29) X(30) X(31) X(32)

/* A literal (bit-packed) run from v[*at], at most 63 groups of eight,
 * ending before a group that starts a run of 8 or more equal values (not
 * looked for in the first group, which the caller found is none) or at n;
 * the last group may hold fewer than eight real values, packed with zeros.
 * Each group is checked, packed and (uses) counted in one visit. Writes
 * the run's header and groups at p and returns the end of the output. */
#define LITERAL(NAME, T)                                                            \
    static uint8_t *literal_##NAME(uint8_t *p, const T *v, size_t *at, size_t n,    \
                                   int w, uint32_t *uses)                           \
    {                                                                               \
        uint8_t *header = p++;                                                      \
        size_t i = *at, groups = 0;                                                 \
        switch (w) {                                                                \
            WIDTHS(LITERAL_CASE_##NAME)                                             \
        default: break;                                                             \
        }                                                                           \
        *header = (uint8_t)((groups << 1) | 1);                                     \
        *at = i;                                                                    \
        return p;                                                                   \
    }

#define LITERAL_CASE(NAME, T, W)                                                    \
    case W:                                                                         \
        while (i < n && groups < 63) {                                              \
            if (groups > 0 && run_at_##NAME(v, i, n, 8) >= 8) break;                \
            const T *g = v + i;                                                     \
            size_t real = 8;                                                        \
            T last[8] = { 0 };                                                      \
            if (n - i < 8) {                                                        \
                real = n - i;                                                       \
                memcpy(last, g, real * sizeof(T));                                  \
                g = last;                                                           \
            }                                                                       \
            PACK8_BODY(g, W);                                                       \
            if (uses)                                                               \
                for (size_t k = 0; k < real; k++) uses[g[k]]++;                     \
            p += W;                                                                 \
            i += real;                                                              \
            groups++;                                                               \
        }                                                                           \
        break;
#define LITERAL_CASE_u16(W) LITERAL_CASE(u16, uint16_t, W)
#define LITERAL_CASE_u32(W) LITERAL_CASE(u32, uint32_t, W)

/* The encoder is the same for both value widths; instantiate it twice.
 * uses (may be NULL): each value's count is added to uses[value], while
 * the values are in cache. */
#define RLE_ENCODER(NAME, T)                                                     \
    static size_t run_at_##NAME(const T *v, size_t i, size_t n, size_t cap)      \
    {                                                                            \
        size_t r = 1;                                                            \
        while (i + r < n && r < cap && v[i + r] == v[i]) r++;                    \
        return r;                                                                \
    }                                                                            \
    LITERAL(NAME, T)                                                             \
    static int encode_##NAME(buf *out, const inlay_allocator *a, const T *v,     \
                             size_t n, int width, uint32_t *uses)                \
    {                                                                            \
        if (inl_buf_reserve(out, a, inl_rle_max_size(n, width))) return -1;      \
        uint8_t *p = out->data + out->len;                                       \
        size_t i = 0;                                                            \
        if (width == 0) {                                                        \
            if (n) p = put_run(p, n, 0, 0);                                      \
            out->len = (size_t)(p - out->data);                                  \
            return 0;                                                            \
        }                                                                        \
        while (i < n) {                                                          \
            size_t r = run_at_##NAME(v, i, n, SIZE_MAX);                         \
            if (r >= 8) {                                                        \
                p = put_run(p, r, v[i], width);                                  \
                if (uses) uses[v[i]] += (uint32_t)r;                             \
                i += r;                                                          \
                continue;                                                        \
            }                                                                    \
            p = literal_##NAME(p, v, &i, n, width, uses);                        \
        }                                                                        \
        out->len = (size_t)(p - out->data);                                      \
        return 0;                                                                \
    }

RLE_ENCODER(u16, uint16_t)
RLE_ENCODER(u32, uint32_t)

int inl_rle_encode_u16(buf *out, const inlay_allocator *a, const uint16_t *v, size_t n, int width)
{
    return encode_u16(out, a, v, n, width, NULL);
}

int inl_rle_encode_u32(buf *out, const inlay_allocator *a, const uint32_t *v, size_t n, int width)
{
    return encode_u32(out, a, v, n, width, NULL);
}

int inl_rle_encode_u32_counting(buf *out, const inlay_allocator *a, const uint32_t *v, size_t n, int width,
                                uint32_t *uses)
{
    return encode_u32(out, a, v, n, width, uses);
}
void inl_rle_pack_bools(uint8_t *dst, const uint8_t *v, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        *dst++ = (uint8_t)(v[i] | v[i + 1] << 1 | v[i + 2] << 2 | v[i + 3] << 3 |
                           v[i + 4] << 4 | v[i + 5] << 5 | v[i + 6] << 6 | v[i + 7] << 7);
    }
    if (i < n) {
        uint8_t b = 0;
        for (int k = 0; i < n; i++, k++) b |= (uint8_t)(v[i] << k);
        *dst = b;
    }
}
