/*
 * decode.c — the value and level decoders of the reader (see decode.h):
 * PLAIN, the RLE / bit-packed hybrid, DELTA_BINARY_PACKED and the two
 * byte-array encodings built on it, BYTE_STREAM_SPLIT and the dictionary
 * gather.
 *
 * The input is hostile until proven otherwise. Every length, count, width
 * and varint (10 bytes at most) is checked against the bytes left before
 * it is used, sizes are compared by division (never by a product that
 * could wrap), and each decoder writes exactly the `count` values it was
 * asked for, never the padding past them. Where Encodings.md leaves the
 * writer a choice, or writers are known to differ, the decoders accept
 * what Arrow accepts: a last bit-packed run or miniblock cut short at the
 * end of the input once the values wanted are in it, any width for the
 * miniblocks past the last value, a DELTA stream holding more values than
 * wanted. A DELTA header must describe blocks of a multiple of 128 values
 * (at most 2^30) in miniblocks of a multiple of 32, and at most INT32_MAX
 * values.
 *
 * Bit-packed data is read eight values at a time: a group of 8 values of
 * w bits is exactly w bytes, and each value is one unaligned 64-bit load,
 * a shift and a mask (one load for all eight when w <= 8). The kernels are
 * instantiated per width, so every shift is a constant, and DELTA adds its
 * running sum in the same pass. A kernel may load up to 8 bytes past its
 * group, so the groups within that distance of the end of the input are
 * read through a zeroed copy. The host is little-endian, as for the writer.
 *
 * Memory: nothing is allocated except the DELTA_BYTE_ARRAY arena. The
 * byte-array decoders keep their lengths in the output array itself (a
 * value's inlay_bytes is at least two uint32 wide), then spread them into
 * inlay_bytes from the last value backward, so that no value's slot is
 * overwritten before it is read.
 */
#include "decode.h"

#include <limits.h>

_Static_assert(sizeof(inlay_bytes) >= 2 * sizeof(uint32_t), "lengths kept in the output array");

#define ALWAYS_INLINE inline __attribute__((always_inline))

enum {
    JULIAN_EPOCH = 2440588,                 /* Julian day of 1970-01-01 */
    DBP_MAX_BLOCK = 1 << 30,                /* values per DELTA block we accept */
    DBP_MAX_TOTAL = INT32_MAX,              /* a page holds at most this many values */
    ARENA_SLACK = 32                        /* DELTA_BYTE_ARRAY's arena room past its values */
};

#define NANOS_PER_DAY UINT64_C(86400000000000)

/* ---- bytes and varints ------------------------------------------------------ */

static ALWAYS_INLINE uint64_t load64(const uint8_t *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
}

static ALWAYS_INLINE uint32_t load32(const uint8_t *p)
{
    uint32_t x;
    memcpy(&x, p, 4);
    return x;
}

/* A ULEB128 of at most 10 bytes (and 64 bits) from p[*at..n). */
static ALWAYS_INLINE int get_uleb(const uint8_t *p, size_t n, size_t *at, uint64_t *v)
{
    size_t i = *at;
    if (INLAY_LIKELY(i < n && p[i] < 0x80)) {
        *v = p[i];
        *at = i + 1;
        return 0;
    }
    uint64_t x = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (i >= n) return -1;
        const uint8_t b = p[i++];
        if (shift == 63 && b > 1) return -1;          /* past 64 bits, or an 11th byte */
        x |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            *v = x;
            *at = i;
            return 0;
        }
    }
    return -1;
}

static inline uint64_t unzigzag(uint64_t z)
{
    return (z >> 1) ^ (UINT64_C(0) - (z & 1));
}

/* ---- bit unpacking ------------------------------------------------------------ */

/* The 8 values of w bits (a constant after inlining) packed LSB first in
 * the w bytes at `in`. Reads up to in[w + 7]. */
static ALWAYS_INLINE void get8(const uint8_t *in, uint64_t v[8], const int w)
{
    const uint64_t mask = w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;
    if (w == 0) {
        for (int j = 0; j < 8; j++) v[j] = 0;
    } else if (w <= 8) {
        const uint64_t x = load64(in);
        _Pragma("GCC unroll 8")
        for (int j = 0; j < 8; j++) v[j] = (x >> (j * w)) & mask;
    } else {
        _Pragma("GCC unroll 8")
        for (int j = 0; j < 8; j++) {
            const int bit = j * w, shift = bit % 8;
            uint64_t x = load64(in + bit / 8) >> shift;
            if (shift + w > 64) x |= (uint64_t)in[bit / 8 + 8] << (64 - shift);
            v[j] = x & mask;
        }
    }
}

#define W_CASE(F, W, ...) case W: F(__VA_ARGS__, W); break;
#define W_CASES8(F, B, ...)                                                      \
    W_CASE(F, B, __VA_ARGS__) W_CASE(F, B + 1, __VA_ARGS__)                      \
    W_CASE(F, B + 2, __VA_ARGS__) W_CASE(F, B + 3, __VA_ARGS__)                  \
    W_CASE(F, B + 4, __VA_ARGS__) W_CASE(F, B + 5, __VA_ARGS__)                  \
    W_CASE(F, B + 6, __VA_ARGS__) W_CASE(F, B + 7, __VA_ARGS__)
#define W_CASES_0_32(F, ...)                                                     \
    W_CASE(F, 0, __VA_ARGS__) W_CASES8(F, 1, __VA_ARGS__) W_CASES8(F, 9, __VA_ARGS__) \
    W_CASES8(F, 17, __VA_ARGS__) W_CASES8(F, 25, __VA_ARGS__)
#define W_CASES_0_64(F, ...)                                                     \
    W_CASES_0_32(F, __VA_ARGS__) W_CASES8(F, 33, __VA_ARGS__)                    \
    W_CASES8(F, 41, __VA_ARGS__) W_CASES8(F, 49, __VA_ARGS__) W_CASES8(F, 57, __VA_ARGS__)
#define W_CASE_1(F, ...) W_CASE(F, 1, __VA_ARGS__)

/* Bit k of b as byte k (0 or 1) of a word: replicate b, keep bit k in byte
 * k, then add 0x80 - 2^k to byte k so its top bit is set exactly when bit
 * k was (no byte carries into the next). */
static inline uint64_t spread_bits(uint8_t b)
{
    const uint64_t x = (b * UINT64_C(0x0101010101010101)) & UINT64_C(0x8040201008040201);
    return ((x + UINT64_C(0x00406070787C7E7F)) >> 7) & UINT64_C(0x0101010101010101);
}

/* Four values of w <= 3 bits, packed in the low 4w bits of c, as four
 * 16-bit lanes: copies of c shifted by 0, 16 - w, 2(16 - w) and 3(16 - w)
 * do not overlap (4w <= 16 - w), and copy k puts value k at bit 16k. */
static ALWAYS_INLINE uint64_t spread4_16(uint64_t c, const int w)
{
    const int step = 16 - w;
    const uint64_t mul = 1 + (UINT64_C(1) << step) + (UINT64_C(1) << 2 * step) + (UINT64_C(1) << 3 * step);
    return (c * mul) & (((UINT64_C(1) << w) - 1) * UINT64_C(0x0001000100010001));
}

/* NAME(in, groups, out, w): unpack `groups` groups of 8 values of w bits
 * (CASES: the widths it takes) into out, as T. Reads up to 8 bytes past
 * the groups. Booleans, and levels of up to 3 bits (optional columns,
 * short lists), spread by multiplication into a word of lanes at once. */
#define UNPACKER(NAME, T, CASES)                                                 \
    static ALWAYS_INLINE void NAME##_w(const uint8_t *in, size_t groups,        \
                                       T *restrict out, const int w)             \
    {                                                                            \
        if (sizeof(T) == 1 && w == 1) {                                          \
            for (size_t g = 0; g < groups; g++, out += 8) {                      \
                const uint64_t x = spread_bits(in[g]);                           \
                memcpy(out, &x, 8);                                              \
            }                                                                    \
            return;                                                              \
        }                                                                        \
        if (sizeof(T) == 2 && w >= 1 && w <= 3) {                                \
            const uint64_t chunk = (UINT64_C(1) << (w > 3 ? 0 : 4 * w)) - 1;     \
            for (size_t g = 0; g < groups; g++, in += w, out += 8) {             \
                const uint64_t x = load64(in);                                   \
                const uint64_t lo = spread4_16(x & chunk, w);                    \
                const uint64_t hi = spread4_16((x >> (w > 3 ? 0 : 4 * w)) & chunk, w); \
                memcpy(out, &lo, 8);                                             \
                memcpy(out + 4, &hi, 8);                                         \
            }                                                                    \
            return;                                                              \
        }                                                                        \
        for (size_t g = 0; g < groups; g++, in += w, out += 8) {                 \
            uint64_t v[8];                                                       \
            get8(in, v, w);                                                      \
            _Pragma("GCC unroll 8")                                              \
            for (int j = 0; j < 8; j++) out[j] = (T)v[j];                        \
        }                                                                        \
    }                                                                            \
    static void NAME(const uint8_t *in, size_t groups, T *out, int w)            \
    {                                                                            \
        switch (w) {                                                             \
        CASES(NAME##_w, in, groups, out)                                         \
        default: break;                                                          \
        }                                                                        \
    }

UNPACKER(unpack_u64, uint64_t, W_CASES_0_64)
UNPACKER(unpack_u32, uint32_t, W_CASES_0_32)
UNPACKER(unpack_i16, int16_t, W_CASES_0_32)
UNPACKER(unpack_u8, uint8_t, W_CASE_1)

/* How many of `groups` groups of w bits from `in` the kernels may read in
 * place, with their 8 bytes of slack before `end`. */
static inline size_t fast_groups(const uint8_t *in, const uint8_t *end, size_t groups, size_t w)
{
    if (!w) return groups;
    const size_t room = (size_t)(end - in), f = room >= w + 8 ? (room - 8) / w : 0;
    return f < groups ? f : groups;
}

/* The group at in (in <= end), read through a zeroed copy of what of its
 * w bytes lies before end: a group near the end, or cut short by it. */
static void get8_copy(const uint8_t *in, const uint8_t *end, uint64_t v[8], int w)
{
    uint8_t tmp[64 + 8] = { 0 };
    const size_t room = (size_t)(end - in), wb = (size_t)w;
    if (room) memcpy(tmp, in, room < wb ? room : wb);
    unpack_u64(tmp, 1, v, w);
}

/* ---- PLAIN ------------------------------------------------------------------------ */

long inl_dec_plain_fixed(const uint8_t *p, size_t n, size_t count, size_t width, void *out)
{
    if (count == 0) return 0;
    if (width == 0 || count > n / width) return -1;
    memcpy(out, p, count * width);
    return (long)(count * width);
}

long inl_dec_plain_int96_nanos(const uint8_t *p, size_t n, size_t count, int64_t *out)
{
    if (count > n / 12) return -1;
    /* Unsigned arithmetic: a day far from the epoch wraps instead of
     * overflowing (the result is then meaningless, but defined). */
    for (size_t i = 0; i < count; i++, p += 12) {
        const uint64_t nanos = load64(p);
        const uint64_t days = (uint64_t)((int64_t)load32(p + 8) - JULIAN_EPOCH);
        out[i] = (int64_t)(days * NANOS_PER_DAY + nanos);
    }
    return (long)(count * 12);
}

long inl_dec_plain_bool(const uint8_t *p, size_t n, size_t count, bool *out)
{
    const size_t full = count / 8, rest = count % 8, bytes = full + (rest != 0);
    if (bytes > n) return -1;
    uint8_t *o = (uint8_t *)out;
    for (size_t i = 0; i < full; i++) {
        const uint64_t x = spread_bits(p[i]);
        memcpy(o + 8 * i, &x, 8);
    }
    for (size_t k = 0; k < rest; k++) o[8 * full + k] = (uint8_t)(p[full] >> k & 1);
    return (long)bytes;
}

long inl_dec_plain_bytes(const uint8_t *p, size_t n, size_t count, inlay_bytes *out)
{
    size_t at = 0;
    for (size_t i = 0; i < count; i++) {
        if (n - at < 4) return -1;
        const size_t len = load32(p + at);
        at += 4;
        if (len > n - at) return -1;
        out[i].data = p + at;
        out[i].len = len;
        at += len;
    }
    return (long)at;
}

long inl_dec_plain_flba(const uint8_t *p, size_t n, size_t count, size_t width, inlay_bytes *out)
{
    if (count == 0) return 0;
    if (width == 0 || count > n / width) return -1;
    for (size_t i = 0; i < count; i++) {
        out[i].data = p + i * width;
        out[i].len = width;
    }
    return (long)(count * width);
}

/* ---- RLE / bit-packed hybrid ---------------------------------------------------- */

/* Whether any of n values of w bits is above max, in loops the compiler
 * vectorises with SSE2's signed compares: indices of up to 31 bits are
 * compared as int32 (the caller checks only when 2^w - 1 > max, so max
 * fits one too), and levels come here only at widths up to 15, so they
 * are never negative. */
static bool over_u32(const uint32_t *v, size_t n, uint64_t max, size_t w)
{
    int bad = 0;
    if (w < 32) {
        const int32_t lim = (int32_t)max;
        for (size_t i = 0; i < n; i++) bad |= (int32_t)v[i] > lim;
    } else {
        for (size_t i = 0; i < n; i++) bad |= v[i] > max;
    }
    return bad;
}

static bool over_i16(const int16_t *v, size_t n, uint64_t max, size_t w)
{
    (void)w;
    const int16_t lim = (int16_t)max;
    int bad = 0;
    for (size_t i = 0; i < n; i++) bad |= v[i] > lim;
    return bad;
}

static bool over_u8(const uint8_t *v, size_t n, uint64_t max, size_t w)
{
    (void)w;
    int bad = 0;
    for (size_t i = 0; i < n; i++) bad |= v[i] > max;
    return bad;
}

/* NAME(p, n, w, count, max, out): `count` values of the hybrid at width w
 * (0..32), each <= max, into out (T; widths below NARROW fit it). A
 * bit-packed run's padding past `count` is neither stored nor checked, and
 * the last run may end early at the end of the input as long as the values
 * wanted are there (Arrow reads it so). At width 0 the values need no
 * bytes: once the input ends, the rest are 0. Bit-packed values are
 * unpacked in place and checked after, unless the width cannot exceed max;
 * a width T cannot hold goes value by value (levels wider than 15 bits,
 * which no real level needs). */
#define HYBRID(NAME, T, UNPACK, OVER, NARROW)                                   \
    static long NAME(const uint8_t *p, size_t n, int w, size_t count,            \
                     uint64_t max, T *out)                                       \
    {                                                                            \
        if (w < 0 || w > 32) return -1;                                          \
        const size_t wb = (size_t)w, value_bytes = (wb + 7) / 8;                 \
        const bool check = ((UINT64_C(1) << wb) - 1) > max;                      \
        size_t at = 0, got = 0;                                                  \
        while (got < count) {                                                    \
            const size_t left = count - got;                                     \
            T *o = out + got;                                                    \
            uint64_t h;                                                          \
            if (w == 0 && at == n) {                                             \
                for (size_t k = 0; k < left; k++) o[k] = 0;                      \
                break;                                                           \
            }                                                                    \
            if (get_uleb(p, n, &at, &h)) return -1;                              \
            const uint64_t runs = h >> 1;                                        \
            if (!(h & 1)) {                                                      \
                if (n - at < value_bytes) return -1;                             \
                uint32_t v = 0;                                                  \
                for (size_t b = 0; b < value_bytes; b++)                         \
                    v |= (uint32_t)p[at + b] << (8 * b);                         \
                at += value_bytes;                                               \
                if (v > max) return -1;                                          \
                const size_t take = runs < left ? (size_t)runs : left;           \
                const T x = (T)v;                                                \
                for (size_t k = 0; k < take; k++) o[k] = x;                      \
                got += take;                                                     \
                continue;                                                        \
            }                                                                    \
            const size_t take = runs < left / 8 + (left % 8 != 0)               \
                                    ? (size_t)runs * 8 : left;                   \
            const size_t q = take / 8, r = take % 8, room = n - at;              \
            if (wb && (q > room / wb || q * wb + (r * wb + 7) / 8 > room))       \
                return -1;                                                       \
            const uint8_t *in = p + at, *end = p + n;                            \
            if (wb < NARROW) {                                                   \
                const size_t fast = fast_groups(in, end, q, wb);                 \
                UNPACK(in, fast, o, w);                                          \
                for (size_t g = fast; g < q + (r != 0); g++) {                   \
                    uint64_t v[8];                                               \
                    get8_copy(in + g * wb, end, v, w);                           \
                    const size_t m = g < q ? 8 : r;                              \
                    for (size_t j = 0; j < m; j++) o[8 * g + j] = (T)v[j];       \
                }                                                                \
                if (check && OVER(o, take, max, wb)) return -1;                  \
            } else {                                                             \
                for (size_t g = 0; g < q + (r != 0); g++) {                      \
                    uint64_t v[8];                                               \
                    get8_copy(in + g * wb, end, v, w);                           \
                    const size_t m = g < q ? 8 : r;                              \
                    for (size_t j = 0; j < m; j++) {                             \
                        if (v[j] > max) return -1;                               \
                        o[8 * g + j] = (T)v[j];                                  \
                    }                                                            \
                }                                                                \
            }                                                                    \
            got += take;                                                         \
            at = !wb ? at : runs <= room / wb ? at + (size_t)runs * wb : n;      \
        }                                                                        \
        return (long)at;                                                         \
    }

HYBRID(hybrid_lvl, int16_t, unpack_i16, over_i16, 16)
HYBRID(hybrid_idx, uint32_t, unpack_u32, over_u32, 33)
HYBRID(hybrid_bit, uint8_t, unpack_u8, over_u8, 8)

long inl_dec_levels(const uint8_t *p, size_t n, int bit_width, size_t count, int16_t max, int16_t *out)
{
    if (count == 0) return 0;
    if (max < 0) return -1;
    return hybrid_lvl(p, n, bit_width, count, (uint64_t)max, out);
}

long inl_dec_hybrid_u32(const uint8_t *p, size_t n, int bit_width, size_t count, uint32_t max, uint32_t *out)
{
    if (count == 0) return 0;
    return hybrid_idx(p, n, bit_width, count, max, out);
}

long inl_dec_dict_indices(const uint8_t *p, size_t n, size_t count, uint32_t dict_size, uint32_t *out)
{
    if (count == 0) return 0;
    if (n < 1 || dict_size == 0) return -1;
    const long used = hybrid_idx(p + 1, n - 1, p[0], count, dict_size - 1, out);
    return used < 0 ? -1 : used + 1;
}

long inl_dec_rle_bool(const uint8_t *p, size_t n, size_t count, bool *out)
{
    if (count == 0) return 0;
    if (n < 4) return -1;
    const size_t len = load32(p);
    if (len > n - 4) return -1;
    if (hybrid_bit(p + 4, len, 1, count, 1, (uint8_t *)out) < 0) return -1;
    return (long)(4 + len);
}

/* ---- DELTA_BINARY_PACKED -------------------------------------------------------- */

/* NAME(in, groups, out, st, w): unpack groups of 8 miniblock values and
 * add each, plus the min delta st[1], to the running value st[0], storing
 * every value. Reads up to 8 bytes past the groups. */
#define DBP_KERNEL(NAME, U, CASES)                                               \
    static ALWAYS_INLINE void NAME##_w(const uint8_t *in, size_t groups,        \
                                       U *restrict out, U *st, const int w)      \
    {                                                                            \
        U acc = st[0];                                                           \
        const U min = st[1];                                                     \
        for (size_t g = 0; g < groups; g++, in += w, out += 8) {                 \
            uint64_t v[8];                                                       \
            get8(in, v, w);                                                      \
            _Pragma("GCC unroll 8")                                              \
            for (int j = 0; j < 8; j++) {                                        \
                acc += min + (U)v[j];                                            \
                out[j] = acc;                                                    \
            }                                                                    \
        }                                                                        \
        st[0] = acc;                                                             \
    }                                                                            \
    static void NAME(const uint8_t *in, size_t groups, U *out, U *st, int w)     \
    {                                                                            \
        switch (w) {                                                             \
        CASES(NAME##_w, in, groups, out, st)                                     \
        default: break;                                                          \
        }                                                                        \
    }

DBP_KERNEL(dbp_run32, uint32_t, W_CASES_0_32)
DBP_KERNEL(dbp_run64, uint64_t, W_CASES_0_64)

/* NAME(p, n, count, out): the first `count` values of one stream of U
 * (BITS wide) into out, then on to the end of the stream (its header's
 * value count, which must be >= count). Returns the stream's size or -1.
 *
 * Only the miniblocks that hold values are read; the widths of the others
 * in the last block may be anything (Encodings.md) and they have no body.
 * A miniblock is padded to its full size, except that the very last one
 * may stop at the end of the input once its values are there. */
#define DBP_DECODER(NAME, U, BITS, KERNEL)                                       \
    static long NAME(const uint8_t *p, size_t n, size_t count, U *out)           \
    {                                                                            \
        size_t at = 0;                                                           \
        uint64_t block, minis, total, first;                                     \
        if (get_uleb(p, n, &at, &block) || get_uleb(p, n, &at, &minis) ||        \
            get_uleb(p, n, &at, &total) || get_uleb(p, n, &at, &first))          \
            return -1;                                                           \
        if (block == 0 || block % 128 || block > DBP_MAX_BLOCK) return -1;       \
        if (minis == 0 || block % minis || block / minis % 32) return -1;        \
        if (total > DBP_MAX_TOTAL || total < count) return -1;                   \
        const uint64_t per_mini = block / minis;                                 \
        U value = (U)unzigzag(first);                                            \
        size_t got = 0;                                                          \
        if (count) out[got++] = value;                                           \
        uint64_t left = total ? total - 1 : 0;                                   \
        while (left) {                                                           \
            uint64_t zz;                                                         \
            if (get_uleb(p, n, &at, &zz)) return -1;                             \
            const U min = (U)unzigzag(zz);                                       \
            if (n - at < minis) return -1;                                       \
            const uint8_t *widths = p + at;                                      \
            at += (size_t)minis;                                                 \
            for (uint64_t m = 0; m < minis && left; m++) {                       \
                const size_t w = widths[m];                                      \
                if (w > 64) return -1;   /* INT32 from 64-bit writers: 33 bits */  \
                const uint64_t in_mini = left < per_mini ? left : per_mini;      \
                const uint64_t room = n - at, bytes = per_mini / 8 * w;          \
                uint64_t used = bytes;                                           \
                if (bytes > room) {                                              \
                    if (in_mini != left || (in_mini * w + 7) / 8 > room) return -1; \
                    used = room;                                                 \
                }                                                                \
                const size_t want = count - got < in_mini ? count - got         \
                                                          : (size_t)in_mini;     \
                if (want) {                                                      \
                    U *o = out + got, st[2] = { value, min };                    \
                    const uint8_t *in = p + at, *end = p + n;                    \
                    const size_t q = want / 8, r = want % 8;                     \
                    const size_t fast = w <= BITS ? fast_groups(in, end, q, w) : 0; \
                    KERNEL(in, fast, o, st, (int)w);                             \
                    for (size_t g = fast; g < q + (r != 0); g++) {               \
                        uint64_t v[8];                                           \
                        get8_copy(in + g * w, end, v, (int)w);                   \
                        const size_t k = g < q ? 8 : r;                          \
                        for (size_t j = 0; j < k; j++) {                         \
                            st[0] += min + (U)v[j];                              \
                            o[8 * g + j] = st[0];                                \
                        }                                                        \
                    }                                                            \
                    value = st[0];                                               \
                    got += want;                                                 \
                }                                                                \
                at += (size_t)used;                                              \
                left -= in_mini;                                                 \
            }                                                                    \
        }                                                                        \
        return (long)at;                                                         \
    }

DBP_DECODER(dbp32, uint32_t, 32, dbp_run32)
DBP_DECODER(dbp64, uint64_t, 64, dbp_run64)

long inl_dec_delta_i32(const uint8_t *p, size_t n, size_t count, int32_t *out)
{
    if (count == 0) return 0;
    return dbp32(p, n, count, (uint32_t *)out);
}

long inl_dec_delta_i64(const uint8_t *p, size_t n, size_t count, int64_t *out)
{
    if (count == 0) return 0;
    return dbp64(p, n, count, (uint64_t *)out);
}

/* ---- DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY -------------------------------- */

/* Value i of `count` as inlay_bytes, from len[i] (kept in out's own memory,
 * see the top of the file) and the bytes of all of them back to back at
 * base, `total` long. Backward: out[i] covers uint32 slots from 4i on (2i
 * with 32-bit pointers), which for i > 0 are past i and already read. */
static void spread_lengths(inlay_bytes *out, const uint32_t *len, size_t count, const uint8_t *base,
                           size_t total)
{
    size_t end = total;
    for (size_t i = count; i-- > 0;) {
        const size_t l = len[i];
        end -= l;
        out[i].data = base + end;
        out[i].len = l;
    }
}

#ifdef __SIZEOF_INT128__
/* A value of up to 32 bytes held in two registers. Rebuilding a value from
 * the one just written through memory would load bytes that several
 * recent stores of different sizes wrote, which the processor cannot
 * forward (a stall of tens of cycles per value); short values are built in
 * registers instead and stored whole. */
__extension__ typedef unsigned __int128 u128;
typedef struct value32 {
    u128 lo, hi;
} value32;

static inline u128 load128(const uint8_t *p)
{
    u128 x;
    memcpy(&x, p, 16);
    return x;
}

/* 16 bytes of ones then 16 of zeros: from 16 - n on, the mask of n bytes. */
static const uint8_t LOW_MASKS[32] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                       0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* The first n (0..16) bytes of x; x shifted up or down by n bytes. */
static inline u128 low_bytes(u128 x, size_t n)
{
    return x & load128(LOW_MASKS + 16 - n);
}

static inline u128 shl_bytes(u128 x, size_t n)
{
    return n >= 16 ? 0 : x << (8 * n);
}

static inline u128 shr_bytes(u128 x, size_t n)
{
    return n >= 16 ? 0 : x >> (8 * n);
}

static inline value32 load_value32(const uint8_t *p)
{
    value32 v = { load128(p), load128(p + 16) };
    return v;
}

/* Stored as four 64-bit words straight from the registers (a copy of the
 * struct would go through the stack in halves, and be read back whole). */
static inline void store_value32(uint8_t *p, value32 v)
{
    const uint64_t w0 = (uint64_t)v.lo, w1 = (uint64_t)(v.lo >> 64);
    const uint64_t w2 = (uint64_t)v.hi, w3 = (uint64_t)(v.hi >> 64);
    memcpy(p, &w0, 8);
    memcpy(p + 8, &w1, 8);
    memcpy(p + 16, &w2, 8);
    memcpy(p + 24, &w3, 8);
}

/* The first pl bytes of prev, then the sl bytes at src (pl + sl <= 16),
 * zeros after: the common case, in one register. */
static inline u128 next_value16(u128 prev, size_t pl, const uint8_t *src, size_t sl,
                                const uint8_t *end)
{
    u128 s;
    if ((size_t)(end - src) >= 16) {
        s = load128(src);
    } else {
        uint8_t t[16] = { 0 };
        memcpy(t, src, sl);
        s = load128(t);
    }
    return low_bytes(prev, pl) | shl_bytes(low_bytes(s, sl), pl);
}

/* The same for pl + sl <= 32. src is read 32 bytes at a time only if end
 * is that far. */
static inline value32 next_value32(value32 prev, size_t pl, const uint8_t *src, size_t sl,
                                   const uint8_t *end)
{
    value32 s;
    if ((size_t)(end - src) >= 32) {
        s = load_value32(src);
    } else {
        uint8_t t[32] = { 0 };
        memcpy(t, src, sl);
        s = load_value32(t);
    }
    if (sl <= 16) {
        s.lo = low_bytes(s.lo, sl);
        s.hi = 0;
    } else {
        s.hi = low_bytes(s.hi, sl - 16);
    }
    value32 v;
    if (pl < 16) {
        v.lo = low_bytes(prev.lo, pl) | shl_bytes(s.lo, pl);
        v.hi = shr_bytes(s.lo, 16 - pl) | shl_bytes(s.hi, pl);
    } else {
        v.lo = prev.lo;
        v.hi = low_bytes(prev.hi, pl - 16) | shl_bytes(s.lo, pl - 16);
    }
    return v;
}
#endif

long inl_dec_delta_length_bytes(const uint8_t *p, size_t n, size_t count, inlay_bytes *out)
{
    if (count == 0) return 0;
    uint32_t *len = (uint32_t *)(void *)out;
    const long used = dbp32(p, n, count, len);
    if (used < 0) return -1;
    const size_t room = n - (size_t)used;
    size_t total = 0;
    for (size_t i = 0; i < count; i++) {
        if (len[i] > INT32_MAX || len[i] > room - total) return -1;
        total += len[i];
    }
    spread_lengths(out, len, count, p + used, total);
    return (long)((size_t)used + total);
}

long inl_dec_delta_bytes(const uint8_t *p, size_t n, size_t count, size_t width, buf *arena,
                         const inlay_allocator *a, inlay_bytes *out)
{
    static const uint8_t empty[1];
    if (count == 0) return 0;
    uint32_t *pre = (uint32_t *)(void *)out, *suf = pre + count;
    const long prefix_used = dbp32(p, n, count, pre);
    if (prefix_used < 0) return -1;
    const long suffix_used = dbp32(p + prefix_used, n - (size_t)prefix_used, count, suf);
    if (suffix_used < 0) return -1;
    const size_t at = (size_t)prefix_used + (size_t)suffix_used, room = n - at;
    const uint8_t *src = p + at;

    /* Check everything and size the values before touching the arena. */
    size_t suffix_total = 0, total = 0, prev = 0;
    for (size_t i = 0; i < count; i++) {
        const size_t pl = pre[i], sl = suf[i];
        if (pl > prev || sl > INT32_MAX || sl > room - suffix_total) return -1;
        suffix_total += sl;
        const size_t len = pl + sl;
        if ((width && len != width) || len > INT32_MAX || len > SIZE_MAX / 4 - total) return -1;
        total += len;
        prev = len;
    }
    if (total == 0) {
        for (size_t i = 0; i < count; i++) pre[i] = 0;
        spread_lengths(out, pre, count, empty, 0);
        return (long)(at + suffix_total);
    }
    if (inl_buf_reserve(arena, a, total + ARENA_SLACK)) return -1;

    /* Rebuild each value after the one before it; pre[i] becomes its length. */
    uint8_t *const base = arena->data + arena->len;
    const uint8_t *const end = p + n;
    size_t off = 0, prev_off = 0;
#ifdef __SIZEOF_INT128__
    /* The value before, when held: not after a long value. After a value of
     * up to 16 bytes only .lo is current, and all its successor reads. */
    value32 held = { 0, 0 };
    bool is_held = true;
#endif
    for (size_t i = 0; i < count; i++) {
        const size_t pl = pre[i], sl = suf[i];
        uint8_t *v = base + off;
#ifdef __SIZEOF_INT128__
        if (pl + sl <= 16) {
            if (!is_held) held = load_value32(base + prev_off);
            held.lo = next_value16(held.lo, pl, src, sl, end);
            const uint64_t w0 = (uint64_t)held.lo, w1 = (uint64_t)(held.lo >> 64);
            memcpy(v, &w0, 8);
            memcpy(v + 8, &w1, 8);
            is_held = true;
        } else if (pl + sl <= 32) {
            if (!is_held) held = load_value32(base + prev_off);
            held = next_value32(held, pl, src, sl, end);
            store_value32(v, held);
            is_held = true;
        } else {
            memcpy(v, base + prev_off, pl);
            memcpy(v + pl, src, sl);
            is_held = false;
        }
#else
        memcpy(v, base + prev_off, pl);
        memcpy(v + pl, src, sl);
#endif
        src += sl;
        prev_off = off;
        off += pl + sl;
        pre[i] = (uint32_t)(pl + sl);
    }
    spread_lengths(out, pre, count, base, total);
    arena->len += total;
    return (long)(at + suffix_total);
}

/* ---- BYTE_STREAM_SPLIT ------------------------------------------------------------ */

/* One width as a constant: the compiler turns the loop into vector
 * interleaves (for 2, 4, 8 and 16 bytes). */
static ALWAYS_INLINE void join_w(uint8_t *restrict out, const uint8_t *restrict s, size_t count,
                                 const size_t w)
{
    for (size_t i = 0; i < count; i++)
        for (size_t k = 0; k < w; k++) out[i * w + k] = s[k * count + i];
}

/* Transpose an 8 x 8 byte matrix held as eight little-endian words (row i,
 * byte j -> row j, byte i), as bss.c does. */
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

/* Any width: eight values by eight streams at a time as one transpose;
 * streams past a multiple of 8 and values past a multiple of 8 one byte
 * at a time. */
static void join_any(uint8_t *out, const uint8_t *s, size_t count, size_t width)
{
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        uint8_t *o = out + i * width;
        size_t k = 0;
        for (; k + 8 <= width; k += 8) {
            uint64_t r[8];
            for (size_t j = 0; j < 8; j++) memcpy(&r[j], s + (k + j) * count + i, 8);
            transpose8(r);
            for (size_t j = 0; j < 8; j++) memcpy(o + j * width + k, &r[j], 8);
        }
        for (; k < width; k++)
            for (size_t j = 0; j < 8; j++) o[j * width + k] = s[k * count + i + j];
    }
    for (; i < count; i++)
        for (size_t k = 0; k < width; k++) out[i * width + k] = s[k * count + i];
}

long inl_dec_bss(const uint8_t *p, size_t n, size_t count, size_t width, void *out)
{
    if (count == 0) return 0;
    if (width == 0 || count > n / width) return -1;
    switch (width) {
    case 2: join_w(out, p, count, 2); break;
    case 4: join_w(out, p, count, 4); break;
    case 8: join_w(out, p, count, 8); break;
    case 16: join_w(out, p, count, 16); break;
    default: join_any(out, p, count, width); break;
    }
    return (long)(count * width);
}

/* ---- dictionary gather -------------------------------------------------------------- */

/* One width as a constant, so each copy is a single load and store. */
static ALWAYS_INLINE void gather_w(uint8_t *restrict out, const uint8_t *restrict dict,
                                   const uint32_t *restrict idx, size_t count, const size_t w)
{
    for (size_t i = 0; i < count; i++) memcpy(out + i * w, dict + (size_t)idx[i] * w, w);
}

void inl_dec_gather(void *out, const void *dict, const uint32_t *idx, size_t count, size_t width)
{
    switch (width) {
    case 1: gather_w(out, dict, idx, count, 1); break;
    case 2: gather_w(out, dict, idx, count, 2); break;
    case 4: gather_w(out, dict, idx, count, 4); break;
    case 8: gather_w(out, dict, idx, count, 8); break;
    case 12: gather_w(out, dict, idx, count, 12); break;
    case 16: gather_w(out, dict, idx, count, 16); break;
    default: gather_w(out, dict, idx, count, width); break;
    }
}
