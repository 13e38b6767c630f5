/*
 * rle_reader.h — an independent decoder of the RLE / bit-packed hybrid
 * encoding, written from Parquet's Encodings.md for the tests:
 *
 *   run     := header (ULEB128)
 *              header & 1 == 1: bit-packed, (header >> 1) groups of 8 values,
 *                               width bits each, packed LSB first
 *              header & 1 == 0: RLE, (header >> 1) repeats of one value
 *                               stored in ceil(width / 8) little-endian bytes
 *
 * It is strict where the spec leaves the writer a choice that inlay does
 * not take: runs are never empty, values fit the width, and the padding of
 * a last bit-packed group is zeros.
 */
#ifndef INLAY_RLE_READER_H
#define INLAY_RLE_READER_H

#include <stddef.h>
#include <stdint.h>

static inline int uleb(const uint8_t *p, size_t len, size_t *at, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*at >= len) return -1;
        uint8_t b = p[(*at)++];
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return 0;
    }
    return -1;
}

/* Decode n values of `width` bits from p[0..len) into out. Returns the
 * number of bytes read, or -1 with *why set. */
static inline long hybrid_decode(const uint8_t *p, size_t len, int width, uint32_t *out,
                                 size_t n, const char **why)
{
    const uint64_t limit = width >= 32 ? UINT64_C(1) << 32 : UINT64_C(1) << width;
    size_t at = 0, got = 0;
    *why = "";
    while (got < n) {
        uint64_t header;
        if (uleb(p, len, &at, &header)) { *why = "truncated run header"; return -1; }
        uint64_t count = header >> 1;
        if (count == 0) { *why = "empty run"; return -1; }
        if (header & 1) {
            uint64_t values = count * 8;
            size_t bytes = (size_t)(count * (uint64_t)width);   /* 8 values of width bits = width bytes */
            if (len - at < bytes) { *why = "truncated bit-packed run"; return -1; }
            for (uint64_t j = 0; j < values; j++) {
                uint64_t v = 0;
                for (int b = 0; b < width; b++) {
                    uint64_t bit = j * (uint64_t)width + (uint64_t)b;
                    v |= (uint64_t)(p[at + bit / 8] >> (bit % 8) & 1) << b;
                }
                if (got < n) out[got++] = (uint32_t)v;
                else if (v != 0) { *why = "nonzero padding"; return -1; }
            }
            at += bytes;
        } else {
            int nbytes = (width + 7) / 8;
            if (len - at < (size_t)nbytes) { *why = "truncated RLE value"; return -1; }
            uint64_t v = 0;
            for (int b = 0; b < nbytes; b++) v |= (uint64_t)p[at + (size_t)b] << (8 * b);
            at += (size_t)nbytes;
            if (v >= limit) { *why = "RLE value wider than the bit width"; return -1; }
            if (count > n - got) { *why = "RLE run past the value count"; return -1; }
            for (uint64_t j = 0; j < count; j++) out[got++] = (uint32_t)v;
        }
    }
    return (long)at;
}

#endif
