/*
 * bss.c — BYTE_STREAM_SPLIT (see bss.h).
 *
 * One kernel scatters `count` contiguous values into the W streams at some
 * position; stream k starts `stride` bytes after stream k - 1. Width 4 is
 * written out byte by byte with constant offsets, a shape the compiler
 * turns into vector shuffles; every other width moves 8 x 8 blocks of bytes
 * with a transpose in 64-bit words (the host is little-endian, so a word's
 * byte j is the byte at offset j). FIXED_LEN_BYTE_ARRAY values, which sit
 * anywhere in memory, are first gathered in small contiguous chunks so they
 * take the same kernel.
 */
#include "bss.h"

static void split4(uint8_t *restrict dst, size_t stride, const uint8_t *restrict src,
                   size_t count)
{
    uint8_t *restrict s0 = dst, *restrict s1 = dst + stride;
    uint8_t *restrict s2 = dst + 2 * stride, *restrict s3 = dst + 3 * stride;
    for (size_t i = 0; i < count; i++) {
        s0[i] = src[4 * i];
        s1[i] = src[4 * i + 1];
        s2[i] = src[4 * i + 2];
        s3[i] = src[4 * i + 3];
    }
}

/* Transpose an 8 x 8 byte matrix held as eight little-endian words (row i,
 * byte j -> row j, byte i): swap 1-byte, then 2-byte, then 4-byte blocks
 * between rows 1, 2 and 4 apart. */
static inline void swap_blocks(uint64_t *x, uint64_t *y, int shift, uint64_t low)
{
    const uint64_t a = *x, b = *y;
    *x = (a & low) | ((b & low) << shift);
    *y = ((a >> shift) & low) | (b & ~low);
}

static inline void transpose8(uint64_t r[8])
{
    for (int i = 0; i < 8; i += 2) swap_blocks(&r[i], &r[i + 1], 8, UINT64_C(0x00FF00FF00FF00FF));
    for (int i = 0; i < 8; i += 4) {
        swap_blocks(&r[i], &r[i + 2], 16, UINT64_C(0x0000FFFF0000FFFF));
        swap_blocks(&r[i + 1], &r[i + 3], 16, UINT64_C(0x0000FFFF0000FFFF));
    }
    for (int i = 0; i < 4; i++) swap_blocks(&r[i], &r[i + 4], 32, UINT64_C(0x00000000FFFFFFFF));
}

/* Any width: eight values at a time, each run of eight of their bytes is
 * one transpose (8 bytes of 8 streams); bytes past a multiple of 8 and
 * values past a multiple of 8 go one by one. */
static void split_any(uint8_t *dst, size_t stride, const uint8_t *src, size_t count, size_t width)
{
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const uint8_t *s = src + i * width;
        size_t k = 0;
        for (; k + 8 <= width; k += 8) {
            uint64_t r[8];
            for (int j = 0; j < 8; j++) memcpy(&r[j], s + (size_t)j * width + k, 8);
            transpose8(r);
            for (int j = 0; j < 8; j++) memcpy(dst + (k + (size_t)j) * stride + i, &r[j], 8);
        }
        for (; k < width; k++)
            for (size_t j = 0; j < 8; j++) dst[k * stride + i + j] = s[j * width + k];
    }
    for (; i < count; i++) {
        const uint8_t *s = src + i * width;
        for (size_t k = 0; k < width; k++) dst[k * stride + i] = s[k];
    }
}

static void split(uint8_t *dst, size_t stride, const uint8_t *src, size_t count, size_t width)
{
    if (width == 4)
        split4(dst, stride, src, count);
    else
        split_any(dst, stride, src, count, width);
}

/* Room for n * width more bytes: 0, or -1 (also when the product overflows). */
static int reserve(buf *out, const inlay_allocator *a, size_t n, size_t width)
{
    if (width && n > SIZE_MAX / width) return -1;
    return inl_buf_reserve(out, a, n * width);
}

int inl_bss_encode(buf *out, const inlay_allocator *a, const void *values, size_t n, size_t width)
{
    if (reserve(out, a, n, width)) return -1;
    if (n == 0 || width == 0) return 0;
    split(out->data + out->len, n, values, n, width);
    out->len += n * width;
    return 0;
}

enum { GATHER_BYTES = 4096 };

int inl_bss_encode_bytes(buf *out, const inlay_allocator *a, const inlay_bytes *v, size_t n,
                     size_t width)
{
    if (reserve(out, a, n, width)) return -1;
    if (n == 0 || width == 0) return 0;
    uint8_t *dst = out->data + out->len;
    uint8_t chunk[GATHER_BYTES];
    const size_t per = width <= GATHER_BYTES ? GATHER_BYTES / width : 1;
    for (size_t i = 0; i < n; i += per) {
        const size_t count = n - i < per ? n - i : per;
        if (width > GATHER_BYTES) {
            split(dst + i, n, v[i].data, 1, width);
            continue;
        }
        for (size_t k = 0; k < count; k++) memcpy(chunk + k * width, v[i + k].data, width);
        split(dst + i, n, chunk, count, width);
    }
    out->len += n * width;
    return 0;
}
