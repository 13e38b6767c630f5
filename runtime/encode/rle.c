/*
 * rle.c — RLE / bit-packed hybrid encoder (see rle.h).
 */
#include "rle.h"

size_t inl_rle_max_size(size_t n, int width)
{
    /* Worst case alternates short RLE runs and single literal groups:
     * per 8 values at most a 1-byte literal header + width bytes, or a
     * 5-byte run header + 4 value bytes. */
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

/* The encoder is the same for both value widths; instantiate it twice. */
#define RLE_ENCODER(NAME, T)                                                     \
    static size_t run_at_##NAME(const T *v, size_t i, size_t n, size_t cap)      \
    {                                                                            \
        size_t r = 1;                                                            \
        while (i + r < n && r < cap && v[i + r] == v[i]) r++;                    \
        return r;                                                                \
    }                                                                            \
    int inl_rle_encode_##NAME(buf *out, const inlay_allocator *a, const T *v,        \
                          size_t n, int width)                                   \
    {                                                                            \
        if (inl_buf_reserve(out, a, inl_rle_max_size(n, width))) return -1;              \
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
                i += r;                                                          \
                continue;                                                        \
            }                                                                    \
            size_t start = i, groups = 0;                                        \
            while (i < n && groups < 63) {                                       \
                if (groups > 0 && run_at_##NAME(v, i, n, 8) >= 8) break;         \
                i = i + 8 < n ? i + 8 : n;                                       \
                groups++;                                                        \
            }                                                                    \
            *p++ = (uint8_t)((groups << 1) | 1);                                 \
            uint64_t acc = 0;                                                    \
            int bits = 0;                                                        \
            for (size_t k = start; k < start + groups * 8; k++) {                \
                acc |= (uint64_t)(k < i ? v[k] : 0) << bits;                     \
                bits += width;                                                   \
                while (bits >= 8) {                                              \
                    *p++ = (uint8_t)acc;                                         \
                    acc >>= 8;                                                   \
                    bits -= 8;                                                   \
                }                                                                \
            }                                                                    \
        }                                                                        \
        out->len = (size_t)(p - out->data);                                      \
        return 0;                                                                \
    }

RLE_ENCODER(u16, uint16_t)
RLE_ENCODER(u32, uint32_t)

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
