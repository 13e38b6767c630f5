/*
 * bool_rle.c — RLE encoding of BOOLEAN values (see bool_rle.h).
 *
 * The values are bytes of 0 or 1, so eight of them load as one 64-bit word:
 * a run continues while the word equals the run's byte repeated, and a group
 * of 8 packs into one byte with a single multiply (byte k of the word, 0 or
 * 1, lands on bit 56 + k of the product; no two partial products share a
 * bit, so nothing carries into the top byte). The host is little-endian.
 */
#include "bool_rle.h"

#define ONES UINT64_C(0x0101010101010101)

enum {
    MAX_GROUPS = 63,               /* bit-packed groups under a one-byte header */
    MAX_RUN = 0x7FFFFFFF           /* Encodings.md: run lengths fit an int32 */
};

size_t inl_bool_rle_max_size(size_t n)
{
    /* Per 8 values at most 2 bytes: a packed group and its own header, or
     * a run of 8..63 (1-byte header and the value); longer runs cost at
     * most 6 bytes for 64 or more values. */
    return 4 + 2 * (n / 8 + 2) + 8;
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

static inline uint64_t load8(const uint8_t *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
}

/* Values equal to v[i] from i on, before `end`. */
static size_t run_length(const uint8_t *v, size_t i, size_t end)
{
    const uint64_t pattern = v[i] * ONES;
    size_t j = i;
    for (; j + 8 <= end; j += 8) {
        const uint64_t x = load8(v + j);
        if (x != pattern) return j - i + (size_t)__builtin_ctzll(x ^ pattern) / 8;
    }
    while (j < end && v[j] == v[i]) j++;
    return j - i;
}

static inline uint8_t pack8(uint64_t x)
{
    return (uint8_t)((x * UINT64_C(0x0102040810204080)) >> 56);
}

/* A bit-packed run from v[i]: groups of 8 until 63 of them, the end of the
 * data, or a group that is a run of 8 equal values (after the first group,
 * which the caller knows is not). Returns the new position. */
static size_t put_literal(uint8_t **pp, const uint8_t *v, size_t i, size_t n)
{
    uint8_t *p = *pp, *header = p++;
    size_t groups = 0;
    for (; i < n && groups < MAX_GROUPS; groups++) {
        if (i + 8 > n) {
            uint8_t b = 0;
            for (int k = 0; i < n; i++, k++) b |= (uint8_t)(v[i] << k);
            *p++ = b;
            groups++;
            break;
        }
        const uint64_t x = load8(v + i);
        if (groups > 0 && x == (x & 0xFF) * ONES) break;
        *p++ = pack8(x);
        i += 8;
    }
    *header = (uint8_t)(groups << 1 | 1);
    *pp = p;
    return i;
}

int inl_bool_rle_encode(buf *out, const inlay_allocator *a, const uint8_t *v, size_t n)
{
    if (inl_buf_reserve(out, a, inl_bool_rle_max_size(n))) return -1;
    uint8_t *const length = out->data + out->len;
    uint8_t *p = length + 4;
    size_t i = 0;
    while (i < n) {
        const size_t r = run_length(v, i, n - i > MAX_RUN ? i + MAX_RUN : n);
        if (r >= 8) {
            p = put_uleb(p, (uint64_t)r << 1);
            *p++ = v[i];
            i += r;
        } else {
            i = put_literal(&p, v, i, n);
        }
    }
    inl_put_u32le(length, (uint32_t)(p - length - 4));
    out->len = (size_t)(p - out->data);
    return 0;
}
