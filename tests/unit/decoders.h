/*
 * decoders.h — independent decoders of the value encodings inlay writes
 * besides PLAIN and the dictionary, written from Parquet's Encodings.md for
 * the tests (the encoder suites and the chunk reader share them):
 *
 *   DELTA_BINARY_PACKED
 *     header    := ULEB block size (128), ULEB miniblocks (4), ULEB count,
 *                  zigzag ULEB first value
 *     block     := zigzag ULEB min delta, 4 width bytes, miniblocks
 *     miniblock := 32 values of `width` bits, LSB first; the reader adds
 *                  min delta + value to the previous value, wrapping at the
 *                  type's width. Once the count is reached, padding bits
 *                  are 0, unused miniblocks have width 0 and no body.
 *   DELTA_LENGTH_BYTE_ARRAY
 *     the lengths as one DELTA_BINARY_PACKED INT32 stream, then the bytes
 *     of every value back to back
 *   DELTA_BYTE_ARRAY
 *     the prefix lengths (shared with the value before) as one
 *     DELTA_BINARY_PACKED INT32 stream, then the suffixes as
 *     DELTA_LENGTH_BYTE_ARRAY
 *   BYTE_STREAM_SPLIT
 *     n values of W bytes as W streams of n bytes: byte k of value i at
 *     k * n + i; nothing else
 *   RLE (BOOLEAN values)
 *     a 4-byte little-endian length, then that many bytes of the RLE /
 *     bit-packed hybrid at bit width 1 (rle_reader.h)
 *
 * They are strict where inlay makes a choice the spec leaves open (blocks
 * of 128 in 4 miniblocks, zero padding, no bytes left over), take a byte
 * range and never read past it, and report what was wrong in *why. No
 * libcheck here: the callers assert.
 */
#ifndef INLAY_DECODERS_H
#define INLAY_DECODERS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rle_reader.h"

static inline uint64_t unzigzag(uint64_t z)
{
    return (z >> 1) ^ (UINT64_C(0) - (z & 1));
}

/* Decode one DELTA_BINARY_PACKED stream of `bits`-bit integers (32 or 64)
 * from p[0..len) into out[0..cap), as the integers' bits (an INT32 value in
 * the low 32 bits). Sets *n to the value count and, if max_width is not
 * NULL, *max_width to the widest miniblock; returns the bytes read, or -1
 * with *why set. */
static inline long dbp_decode(const uint8_t *p, size_t len, int bits, uint64_t *out, size_t cap,
                              size_t *n, int *max_width, const char **why)
{
    const uint64_t mask = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    size_t at = 0;
    uint64_t block, minis, total, zz;
    int widest = 0;
    *why = "";
    *n = 0;
    if (max_width) *max_width = 0;
    if (uleb(p, len, &at, &block) || uleb(p, len, &at, &minis) || uleb(p, len, &at, &total) ||
        uleb(p, len, &at, &zz)) { *why = "truncated header"; return -1; }
    if (block != 128 || minis != 4) { *why = "not 128 values in 4 miniblocks"; return -1; }
    if (total > cap) { *why = "more values than expected"; return -1; }
    if (zz > mask) { *why = "first value wider than the type"; return -1; }
    if (total == 0 && zz != 0) { *why = "empty stream with a first value"; return -1; }
    uint64_t value = unzigzag(zz) & mask;
    size_t got = 0;
    if (total) out[got++] = value;
    while (got < total) {
        uint64_t mz;
        if (uleb(p, len, &at, &mz)) { *why = "truncated min delta"; return -1; }
        if (mz > mask) { *why = "min delta wider than the type"; return -1; }
        const uint64_t min = unzigzag(mz);
        if (len - at < 4) { *why = "truncated widths"; return -1; }
        const uint8_t *widths = p + at;
        at += 4;
        for (int m = 0; m < 4; m++) {
            const int w = widths[m];
            if (got >= total) {
                if (w != 0) { *why = "width of an unused miniblock not 0"; return -1; }
                continue;
            }
            if (w > bits) { *why = "miniblock wider than the type"; return -1; }
            if (w > widest) widest = w;
            const size_t bytes = 32 * (size_t)w / 8;
            if (len - at < bytes) { *why = "truncated miniblock"; return -1; }
            for (size_t j = 0; j < 32; j++) {
                uint64_t u = 0;
                for (int b = 0; b < w; b++) {
                    const size_t bit = j * (size_t)w + (size_t)b;
                    u |= (uint64_t)(p[at + bit / 8] >> (bit % 8) & 1) << b;
                }
                if (got < total) {
                    value = (value + min + u) & mask;
                    out[got++] = value;
                } else if (u != 0) {
                    *why = "nonzero padding";
                    return -1;
                }
            }
            at += bytes;
        }
    }
    *n = (size_t)total;
    if (max_width) *max_width = widest;
    return (long)at;
}

/* n lengths as a DELTA_BINARY_PACKED INT32 stream of exactly n values, each
 * 0..INT32_MAX, into len_out. Returns the bytes read or -1. */
static inline long dbp_lengths(const uint8_t *p, size_t len, size_t n, uint64_t *len_out,
                               const char **why)
{
    size_t count;
    long used = dbp_decode(p, len, 32, len_out, n, &count, NULL, why);
    if (used < 0) return -1;
    if (count != n) { *why = "length stream does not hold one length per value"; return -1; }
    for (size_t i = 0; i < n; i++)
        if (len_out[i] > INT32_MAX) { *why = "negative length"; return -1; }
    return used;
}

/* DELTA_LENGTH_BYTE_ARRAY of n values from p[0..len): ptr[i] and lens[i]
 * point into p. Returns the bytes read, or -1 with *why set. */
static inline long dlba_decode(const uint8_t *p, size_t len, size_t n, const uint8_t **ptr,
                               size_t *lens, const char **why)
{
    uint64_t *l = malloc((n + 1) * sizeof *l);
    if (!l) { *why = "out of memory"; return -1; }
    long used = dbp_lengths(p, len, n, l, why);
    if (used < 0) { free(l); return -1; }
    size_t at = (size_t)used;
    for (size_t i = 0; i < n; i++) {
        if (len - at < l[i]) { *why = "value bytes past the end"; free(l); return -1; }
        ptr[i] = p + at;
        lens[i] = (size_t)l[i];
        at += (size_t)l[i];
    }
    free(l);
    return (long)at;
}

/* DELTA_BYTE_ARRAY of n values from p[0..len). The values are rebuilt in
 * *arena (malloc'd, the caller frees it; NULL when nothing was rebuilt),
 * ptr[i] and lens[i] point into it. prefix, if not NULL, gets each value's
 * prefix length. Returns the bytes read, or -1 with *why set. */
static inline long dba_decode(const uint8_t *p, size_t len, size_t n, uint8_t **arena,
                              const uint8_t **ptr, size_t *lens, uint64_t *prefix, const char **why)
{
    *arena = NULL;
    uint64_t *pre = malloc((n + 1) * sizeof *pre);
    const uint8_t **suf = malloc((n + 1) * sizeof *suf);
    size_t *suf_len = malloc((n + 1) * sizeof *suf_len);
    long result = -1;
    if (!pre || !suf || !suf_len) { *why = "out of memory"; goto out; }
    long used = dbp_lengths(p, len, n, pre, why);
    if (used < 0) goto out;
    long rest = dlba_decode(p + used, len - (size_t)used, n, suf, suf_len, why);
    if (rest < 0) goto out;
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (pre[i] > (i ? lens[i - 1] : 0)) { *why = "prefix longer than the value before"; goto out; }
        lens[i] = (size_t)pre[i] + suf_len[i];
        total += lens[i];
    }
    *arena = malloc(total + 1);
    if (!*arena) { *why = "out of memory"; goto out; }
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t *v = *arena + at;
        if (pre[i]) memcpy(v, ptr[i - 1], (size_t)pre[i]);
        if (suf_len[i]) memcpy(v + pre[i], suf[i], suf_len[i]);
        ptr[i] = v;
        at += lens[i];
        if (prefix) prefix[i] = pre[i];
    }
    result = used + rest;
out:
    free(pre);
    free(suf);
    free(suf_len);
    return result;
}

/* BYTE_STREAM_SPLIT of n values of `width` bytes: p[0..len) must be
 * exactly n * width bytes; out gets the values back to back. Returns 0, or
 * -1 with *why set. */
static inline int bss_decode(const uint8_t *p, size_t len, size_t n, size_t width, uint8_t *out,
                             const char **why)
{
    if (width == 0 || len != n * width) { *why = "not n * width bytes"; return -1; }
    for (size_t k = 0; k < width; k++)
        for (size_t i = 0; i < n; i++) out[i * width + k] = p[k * n + i];
    return 0;
}

/* RLE-encoded BOOLEAN values: the 4-byte length, then exactly that many
 * bytes of runs at width 1 holding n values, into out (0 or 1 each).
 * Returns the bytes read (4 + the length), or -1 with *why set. */
static inline long bool_rle_decode(const uint8_t *p, size_t len, size_t n, uint8_t *out,
                                   const char **why)
{
    if (len < 4) { *why = "no length"; return -1; }
    uint32_t body = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    if (len - 4 < body) { *why = "length past the end"; return -1; }
    uint32_t *tmp = malloc((n + 1) * sizeof *tmp);
    if (!tmp) { *why = "out of memory"; return -1; }
    long used = hybrid_decode(p + 4, body, 1, tmp, n, why);
    if (used >= 0 && (size_t)used != body) { *why = "runs do not fill the length"; used = -1; }
    for (size_t i = 0; used >= 0 && i < n; i++) out[i] = (uint8_t)tmp[i];
    free(tmp);
    return used < 0 ? -1 : (long)(4 + body);
}

#endif
