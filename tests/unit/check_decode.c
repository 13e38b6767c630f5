/*
 * check_decode.c — the reader's value and level decoders
 * (runtime/read/decode.c).
 *
 * Round trips through the writer's encoders (runtime/encode/) for every
 * decoder, over sizes around the group, miniblock and block boundaries
 * (0, 1, 7, 8, 9, 127, 128, 129, 100000), every hybrid bit width 0..32,
 * the extremes of INT32 and INT64 deltas (which wrap), empty and long
 * strings; known INT96 values; DELTA_BINARY_PACKED streams in other block
 * shapes than inlay writes, from a bit-by-bit encoder below, with garbage
 * where the spec allows it (padding bits, widths of unused miniblocks).
 *
 * Then hostile input. Every decoder reads from a copy of exactly the bytes
 * it is given and writes into an array of exactly `count` values, so under
 * -DINLAY_SANITIZE=ON any access outside them fails the test: every
 * truncation of a valid encoding is rejected or, where the spec lets the
 * last run stop early, yields the very values; thousands of random
 * mutations (fixed seed) never crash and never claim more bytes than they
 * were given; and the checks the decoders promise (bit widths, indices,
 * levels, DELTA headers) reject what they should.
 */
#define _POSIX_C_SOURCE 200809L
#include "decode.h"

#include "bool_rle.h"
#include "bss.h"
#include "delta.h"
#include "plain.h"
#include "rle.h"
#include "unit.h"

#include "out_fixture.h"

static const size_t SIZES[] = { 0, 1, 7, 8, 9, 127, 128, 129, 100000 };
#define NSIZES (sizeof SIZES / sizeof SIZES[0])

/* ---- helpers ------------------------------------------------------------------- */

/* A heap copy of exactly n bytes, so the sanitizer sees any read past it. */
static uint8_t *exact(const void *p, size_t n)
{
    uint8_t *c = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(c);
    if (n) memcpy(c, p, n);
    return c;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(p);
    return p;
}

static uint64_t seed = 0x9E3779B97F4A7C15ULL;

static uint64_t rnd(void)
{
    return rng_next(&seed);
}

/* Values below 2^w in one of three shapes: uniform, runs of random
 * lengths (RLE and mixed), or all at the top of the range. */
static void fill_u32(uint32_t *v, size_t n, int w, int shape)
{
    const uint64_t range = UINT64_C(1) << w;
    size_t i = 0;
    while (i < n) {
        const uint32_t x = (uint32_t)(shape == 2 ? range - 1 : rnd() % range);
        size_t run = shape == 1 ? 1 + rnd() % 40 : 1;
        for (; run && i < n; run--) v[i++] = x;
    }
}

/* got[0..n) == want[0..n), asserted once (a Check assertion per value
 * would write to Check's log every time). `what` says which case. */
#define ASSERT_SAME(got, want, n, what)                                              \
    do {                                                                             \
        size_t i_ = 0;                                                               \
        while (i_ < (size_t)(n) && (got)[i_] == (want)[i_]) i_++;                    \
        ck_assert_msg(i_ == (size_t)(n), "%s: value %zu of %zu is %lld, want %lld", (what), i_, \
                      (size_t)(n), (long long)(got)[i_], (long long)(want)[i_]);     \
    } while (0)

static char what[160];          /* the case a round trip is in, for messages */

static bool bytes_equal(const inlay_bytes *x, const inlay_bytes *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (x[i].len != y[i].len || (x[i].len && memcmp(x[i].data, y[i].data, x[i].len)))
            return false;
    return true;
}

/* Random strings: lengths 0..max, sharing prefixes with the one before
 * half the time (DELTA_BYTE_ARRAY's case), drawn from a small alphabet.
 * The bytes live in *store (malloc'd). */
static inlay_bytes *make_strings(size_t n, size_t max, uint8_t **store)
{
    inlay_bytes *v = xmalloc(n * sizeof *v);
    uint8_t *s = xmalloc(n * max + 1);
    for (size_t i = 0; i < n; i++) {
        uint8_t *d = s + i * max;
        size_t len = max ? rnd() % (max + 1) : 0;
        size_t keep = 0;
        if (i && rnd() % 2) {
            keep = v[i - 1].len < len ? v[i - 1].len : len;
            keep = keep ? rnd() % (keep + 1) : 0;
            memcpy(d, v[i - 1].data, keep);
        }
        for (size_t k = keep; k < len; k++) d[k] = (uint8_t)('a' + rnd() % 4);
        v[i].data = d;
        v[i].len = len;
    }
    *store = s;
    return v;
}

/* ---- PLAIN --------------------------------------------------------------------------- */

START_TEST(test_plain_fixed)
{
    for (size_t s = 0; s < NSIZES; s++) {
        const size_t n = SIZES[s];
        for (size_t width = 4; width <= 8; width += 4) {
            uint8_t *v = xmalloc(n * width);
            for (size_t i = 0; i < n * width; i++) v[i] = (uint8_t)rnd();
            out.len = 0;
            ck_assert_int_eq(inl_plain_put_fixed(&out, &alloc, v, n, width), 0);
            uint8_t *in = exact(out.data, out.len), *got = xmalloc(n * width);
            ck_assert_int_eq(inl_dec_plain_fixed(in, out.len, n, width, got), (long)(n * width));
            ck_assert(n == 0 || memcmp(got, v, n * width) == 0);
            if (n) ck_assert_int_eq(inl_dec_plain_fixed(in, out.len - 1, n, width, got), -1);
            free(in);
            free(got);
            free(v);
        }
    }
    int32_t x;
    ck_assert_int_eq(inl_dec_plain_fixed((const uint8_t *)"abcd", 4, 1, 0, &x), -1);
    /* a count whose byte size wraps */
    ck_assert_int_eq(inl_dec_plain_fixed((const uint8_t *)"abcd", 4, SIZE_MAX / 4 + 2, 4, &x), -1);
}
END_TEST

static void int96(uint8_t *p, uint64_t nanos, uint32_t julian)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(nanos >> (8 * i));
    inl_put_u32le(p + 8, julian);
}

START_TEST(test_plain_int96)
{
    uint8_t p[5 * 12];
    int96(p, 0, 2440588);                                   /* 1970-01-01 */
    int96(p + 12, 0, 2451545);                              /* 2000-01-01 */
    int96(p + 24, UINT64_C(43200000000001), 2440588);       /* 1970-01-01T12:00:00.000000001 */
    int96(p + 36, UINT64_C(86399000000000), 2440587);       /* 1969-12-31T23:59:59 */
    int96(p + 48, UINT64_C(3723004005006), 2459581);        /* 2022-01-01T01:02:03.004005006 */
    int64_t got[5];
    uint8_t *in = exact(p, sizeof p);
    ck_assert_int_eq(inl_dec_plain_int96_nanos(in, sizeof p, 5, got), 60);
    ck_assert_int_eq(got[0], 0);
    ck_assert_int_eq(got[1], INT64_C(946684800000000000));
    ck_assert_int_eq(got[2], INT64_C(43200000000001));
    ck_assert_int_eq(got[3], INT64_C(-1000000000));
    ck_assert_int_eq(got[4], INT64_C(1640998923004005006));
    ck_assert_int_eq(inl_dec_plain_int96_nanos(in, sizeof p - 1, 5, got), -1);
    ck_assert_int_eq(inl_dec_plain_int96_nanos(in, 11, 1, got), -1);
    /* far from the epoch: wraps, defined */
    int96(in, UINT64_MAX, UINT32_MAX);
    ck_assert_int_eq(inl_dec_plain_int96_nanos(in, 12, 1, got), 12);
    free(in);
}
END_TEST

START_TEST(test_plain_bool)
{
    for (size_t n = 0; n < 300; n = n < 20 ? n + 1 : n * 2 + 1) {
        uint8_t *v = xmalloc(n), *packed = xmalloc((n + 7) / 8);
        for (size_t i = 0; i < n; i++) v[i] = (uint8_t)(rnd() & 1);
        inl_rle_pack_bools(packed, v, n);
        uint8_t *in = exact(packed, (n + 7) / 8);
        bool *got = xmalloc(n * sizeof(bool));
        ck_assert_int_eq(inl_dec_plain_bool(in, (n + 7) / 8, n, got), (long)((n + 7) / 8));
        ASSERT_SAME(got, v, n, "plain bool");
        if (n) ck_assert_int_eq(inl_dec_plain_bool(in, (n + 7) / 8 - 1, n, got), -1);
        free(v);
        free(packed);
        free(in);
        free(got);
    }
    /* every byte value spreads to the right bits */
    for (int b = 0; b < 256; b++) {
        uint8_t byte = (uint8_t)b;
        bool got[8];
        ck_assert_int_eq(inl_dec_plain_bool(&byte, 1, 8, got), 1);
        for (int k = 0; k < 8; k++) ck_assert_int_eq(got[k], (b >> k) & 1);
    }
}
END_TEST

START_TEST(test_plain_bytes)
{
    for (size_t s = 0; s < NSIZES; s++) {
        const size_t n = SIZES[s];
        uint8_t *store;
        inlay_bytes *v = make_strings(n, n == 1 ? 70000 : 40, &store);
        out.len = 0;
        ck_assert_int_eq(inl_plain_put_bytes(&out, &alloc, v, n), 0);
        uint8_t *in = exact(out.data, out.len);
        inlay_bytes *got = xmalloc(n * sizeof *got);
        ck_assert_int_eq(inl_dec_plain_bytes(in, out.len, n, got), (long)out.len);
        ck_assert(bytes_equal(got, v, n));
        size_t outside = 0;
        for (size_t i = 0; i < n; i++)
            outside += got[i].data < (const void *)in || got[i].data > (const void *)(in + out.len);
        ck_assert_uint_eq(outside, 0);
        if (n) ck_assert_int_eq(inl_dec_plain_bytes(in, out.len - 1, n, got), -1);
        free(in);
        free(got);
        free(v);
        free(store);
    }
    /* a length past the end */
    static const uint8_t bad[] = { 5, 0, 0, 0, 'a', 'b', 'c', 'd' };
    inlay_bytes b;
    ck_assert_int_eq(inl_dec_plain_bytes(bad, sizeof bad, 1, &b), -1);
    static const uint8_t huge[] = { 0xff, 0xff, 0xff, 0xff, 'a' };
    ck_assert_int_eq(inl_dec_plain_bytes(huge, sizeof huge, 1, &b), -1);
}
END_TEST

START_TEST(test_plain_flba)
{
    static const size_t widths[] = { 1, 2, 3, 12, 16, 100 };
    for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
        const size_t width = widths[k];
        for (size_t s = 0; s < NSIZES; s++) {
            const size_t n = SIZES[s];
            uint8_t *raw = xmalloc(n * width);
            inlay_bytes *v = xmalloc(n * sizeof *v);
            for (size_t i = 0; i < n * width; i++) raw[i] = (uint8_t)rnd();
            for (size_t i = 0; i < n; i++) v[i] = (inlay_bytes){ raw + i * width, width };
            out.len = 0;
            ck_assert_int_eq(inl_plain_put_flba(&out, &alloc, v, n, width), 0);
            uint8_t *in = exact(out.data, out.len);
            inlay_bytes *got = xmalloc(n * sizeof *got);
            ck_assert_int_eq(inl_dec_plain_flba(in, out.len, n, width, got), (long)(n * width));
            ck_assert(bytes_equal(got, v, n));
            if (n) ck_assert_int_eq(inl_dec_plain_flba(in, out.len - 1, n, width, got), -1);
            if (n) ck_assert_int_eq(inl_dec_plain_flba(in, out.len, n, 0, got), -1);
            free(in);
            free(got);
            free(v);
            free(raw);
        }
    }
}
END_TEST

/* ---- RLE / bit-packed hybrid ---------------------------------------------------------- */

START_TEST(test_hybrid_widths)
{
    for (int w = 0; w <= 32; w++) {
        const uint32_t max = w == 32 ? UINT32_MAX : (uint32_t)((UINT64_C(1) << w) - 1);
        for (size_t s = 0; s < NSIZES; s++) {
            const size_t n = SIZES[s];
            for (int shape = 0; shape < 3; shape++) {
                uint32_t *v = xmalloc(n * sizeof *v), *got = xmalloc(n * sizeof *got);
                fill_u32(v, n, w, shape);
                out.len = 0;
                ck_assert_int_eq(inl_rle_encode_u32(&out, &alloc, v, n, w), 0);
                uint8_t *in = exact(out.data, out.len);
                long used = inl_dec_hybrid_u32(in, out.len, w, n, max, got);
                ck_assert_msg(used == (long)(n ? out.len : 0), "width %d, %zu values, shape %d: %ld of %zu",
                              w, n, shape, used, out.len);
                snprintf(what, sizeof what, "width %d, %zu values, shape %d", w, n, shape);
                ASSERT_SAME(got, v, n, what);

                /* as dictionary indices: the width byte first; a dictionary
                 * one entry short is refused */
                uint32_t top = 0;
                for (size_t i = 0; i < n; i++) top = v[i] > top ? v[i] : top;
                uint8_t *d = xmalloc(out.len + 1);
                d[0] = (uint8_t)w;
                memcpy(d + 1, out.data, out.len);
                if (top < UINT32_MAX) {
                    used = inl_dec_dict_indices(d, out.len + 1, n, top + 1, got);
                    ck_assert_int_eq(used, (long)(n ? out.len + 1 : 0));
                    ASSERT_SAME(got, v, n, what);
                    if (n) ck_assert_int_eq(inl_dec_dict_indices(d, out.len + 1, n, top, got), -1);
                }
                free(d);
                free(in);
                free(v);
                free(got);
            }
        }
    }
}
END_TEST

START_TEST(test_levels)
{
    for (int w = 0; w <= 15; w++) {
        const int16_t max = (int16_t)((1 << w) - 1);
        for (size_t s = 0; s < NSIZES; s++) {
            const size_t n = SIZES[s];
            for (int shape = 0; shape < 3; shape++) {
                uint32_t *v32 = xmalloc(n * sizeof *v32);
                uint16_t *v = xmalloc(n * sizeof *v);
                int16_t *got = xmalloc(n * sizeof *got);
                fill_u32(v32, n, w, shape);
                for (size_t i = 0; i < n; i++) v[i] = (uint16_t)v32[i];
                out.len = 0;
                ck_assert_int_eq(inl_rle_encode_u16(&out, &alloc, v, n, w), 0);
                uint8_t *in = exact(out.data, out.len);
                long used = inl_dec_levels(in, out.len, w, n, max, got);
                ck_assert_int_eq(used, (long)(n ? out.len : 0));
                snprintf(what, sizeof what, "levels at width %d, %zu values, shape %d", w, n, shape);
                ASSERT_SAME(got, v, n, what);

                /* the values' own maximum passes; one less does not */
                uint16_t top = 0;
                for (size_t i = 0; i < n; i++) top = v[i] > top ? v[i] : top;
                ck_assert_int_eq(inl_dec_levels(in, out.len, w, n, (int16_t)top, got), used);
                if (top) ck_assert_int_eq(inl_dec_levels(in, out.len, w, n, (int16_t)(top - 1), got), -1);
                free(in);
                free(v32);
                free(v);
                free(got);
            }
        }
    }
}
END_TEST

START_TEST(test_level_above_max)
{
    /* one level of 3 among 1s, in a bit-packed run and in an RLE run */
    uint16_t v[64];
    for (int i = 0; i < 64; i++) v[i] = 1;
    v[5] = 3;
    out.len = 0;
    ck_assert_int_eq(inl_rle_encode_u16(&out, &alloc, v, 64, 2), 0);
    int16_t got[64];
    ck_assert_int_eq(inl_dec_levels(out.data, out.len, 2, 64, 2, got), -1);
    ck_assert_int_gt(inl_dec_levels(out.data, out.len, 2, 64, 3, got), 0);
    for (int i = 0; i < 64; i++) v[i] = 3;
    out.len = 0;
    ck_assert_int_eq(inl_rle_encode_u16(&out, &alloc, v, 64, 2), 0);
    ck_assert_int_eq(inl_dec_levels(out.data, out.len, 2, 64, 2, got), -1);
    ck_assert_int_eq(inl_dec_levels(out.data, out.len, 2, 64, -1, got), -1);
    /* padding past the count is not checked: 9 values, the 10th would be 3 */
    static const uint8_t packed[] = { 0x05, 0x55, 0x55, 0x0d, 0x00 };  /* 2 groups at width 2 */
    ck_assert_int_eq(inl_dec_levels(packed, sizeof packed, 2, 9, 1, got), (long)sizeof packed);
    ck_assert_int_eq(inl_dec_levels(packed, sizeof packed, 2, 10, 1, got), -1);
}
END_TEST

START_TEST(test_bad_widths)
{
    static const uint8_t p[] = { 0x10, 0x01, 0x00, 0x00, 0x00, 0x00 };
    uint32_t u[8];
    int16_t l[8];
    ck_assert_int_eq(inl_dec_hybrid_u32(p, sizeof p, 33, 8, UINT32_MAX, u), -1);
    ck_assert_int_eq(inl_dec_hybrid_u32(p, sizeof p, -1, 8, UINT32_MAX, u), -1);
    ck_assert_int_eq(inl_dec_levels(p, sizeof p, 33, 8, INT16_MAX, l), -1);
    ck_assert_int_eq(inl_dec_hybrid_u32(p, sizeof p, 32, 8, UINT32_MAX, u), 5);
    static const uint8_t d[] = { 33, 0x10, 0x01, 0x00, 0x00, 0x00, 0x00 };
    ck_assert_int_eq(inl_dec_dict_indices(d, sizeof d, 8, UINT32_MAX, u), -1);
    static const uint8_t d32[] = { 32, 0x10, 0x01, 0x00, 0x00, 0x00 };
    ck_assert_int_eq(inl_dec_dict_indices(d32, sizeof d32, 8, 2, u), (long)sizeof d32);
    ck_assert_int_eq(inl_dec_dict_indices(d32, sizeof d32, 8, 0, u), -1);
    ck_assert_int_eq(inl_dec_dict_indices(d32, 0, 8, 2, u), -1);
    /* an index with the top bit set at width 32, bit-packed and as a run */
    static const uint8_t top[] = { 32, 0x03, 1, 0, 0, 0, 0, 0, 0, 0x80, 2, 0, 0, 0, 3, 0, 0, 0,
                                   4, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0, 7, 0, 0, 0 };
    ck_assert_int_eq(inl_dec_dict_indices(top, sizeof top, 8, 100, u), -1);
    ck_assert_int_eq(inl_dec_dict_indices(top, sizeof top, 8, UINT32_MAX, u), (long)sizeof top);
    ck_assert_uint_eq(u[1], 0x80000000u);
    static const uint8_t top_run[] = { 32, 0x10, 0, 0, 0, 0x80 };
    ck_assert_int_eq(inl_dec_dict_indices(top_run, sizeof top_run, 8, 100, u), -1);
    ck_assert_int_eq(inl_dec_hybrid_u32(top + 1, sizeof top - 1, 32, 8, INT32_MAX, u), -1);
    ck_assert_int_eq(inl_dec_hybrid_u32(top + 1, sizeof top - 1, 32, 8, 0x80000000u, u), (long)sizeof top - 1);
}
END_TEST

START_TEST(test_index_out_of_range)
{
    /* 100 indices < 10, one of them 10, in a bit-packed run and then in a run */
    uint32_t v[100], got[100];
    for (int pos = 0; pos < 2; pos++) {
        for (int i = 0; i < 100; i++) v[i] = pos ? 3 : (uint32_t)(i % 10);
        v[pos ? 50 : 37] = 10;
        if (pos) for (int i = 50; i < 70; i++) v[i] = 10;
        out.len = 0;
        ck_assert_int_eq(inl_buf_append(&out, &alloc, "\x04", 1), 0);
        ck_assert_int_eq(inl_rle_encode_u32(&out, &alloc, v, 100, 4), 0);
        ck_assert_int_eq(inl_dec_dict_indices(out.data, out.len, 100, 10, got), -1);
        ck_assert_int_eq(inl_dec_dict_indices(out.data, out.len, 100, 11, got), (long)out.len);
        ASSERT_SAME(got, v, 100, "indices");
    }
}
END_TEST

START_TEST(test_hybrid_spec_choices)
{
    uint32_t got[20];
    /* width 0: no bytes at all read as zeros; a run header is read too */
    got[0] = 7;
    ck_assert_int_eq(inl_dec_hybrid_u32(NULL, 0, 0, 20, 0, got), 0);
    for (int i = 0; i < 20; i++) ck_assert_uint_eq(got[i], 0);
    static const uint8_t run0[] = { 40 };
    ck_assert_int_eq(inl_dec_hybrid_u32(run0, 1, 0, 20, 0, got), 1);
    /* a run longer than the values wanted */
    static const uint8_t run[] = { 200, 1, 5 };
    ck_assert_int_eq(inl_dec_hybrid_u32(run, sizeof run, 3, 20, 7, got), 3);
    for (int i = 0; i < 20; i++) ck_assert_uint_eq(got[i], 5);
    /* a truncated RLE value, a truncated header, a varint of 11 bytes */
    ck_assert_int_eq(inl_dec_hybrid_u32(run, 2, 3, 20, 7, got), -1);
    ck_assert_int_eq(inl_dec_hybrid_u32(run, 1, 3, 20, 7, got), -1);
    static const uint8_t long_varint[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 5 };
    ck_assert_int_eq(inl_dec_hybrid_u32(long_varint, sizeof long_varint, 3, 1, 7, got), -1);
    /* a 10-byte varint is fine (a run of 2^62 values, clamped) */
    static const uint8_t ten[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 5 };
    ck_assert_int_eq(inl_dec_hybrid_u32(ten, sizeof ten, 3, 20, 7, got), (long)sizeof ten);
    ck_assert_uint_eq(got[19], 5);
    /* a last bit-packed run that stops once the values wanted are there:
     * 63 groups announced, 9 values at width 4 need 5 bytes */
    static const uint8_t cut[] = { 0x7f, 0x21, 0x43, 0x65, 0x87, 0x09 };
    ck_assert_int_eq(inl_dec_hybrid_u32(cut, sizeof cut, 4, 9, 15, got), (long)sizeof cut);
    for (int i = 0; i < 9; i++) ck_assert_uint_eq(got[i], (uint32_t)(i + 1) % 10);
    ck_assert_int_eq(inl_dec_hybrid_u32(cut, sizeof cut, 4, 11, 15, got), -1);
}
END_TEST

START_TEST(test_rle_bool)
{
    for (size_t s = 0; s < NSIZES; s++) {
        const size_t n = SIZES[s];
        for (int shape = 0; shape < 3; shape++) {
            uint32_t *v32 = xmalloc(n * sizeof *v32);
            uint8_t *v = xmalloc(n);
            bool *got = xmalloc(n * sizeof *got);
            fill_u32(v32, n, 1, shape);
            for (size_t i = 0; i < n; i++) v[i] = (uint8_t)v32[i];
            out.len = 0;
            ck_assert_int_eq(inl_bool_rle_encode(&out, &alloc, v, n), 0);
            uint8_t *in = exact(out.data, out.len);
            ck_assert_int_eq(inl_dec_rle_bool(in, out.len, n, got), (long)(n ? out.len : 0));
            ASSERT_SAME(got, v, n, "rle bool");
            if (n) ck_assert_int_eq(inl_dec_rle_bool(in, out.len - 1, n, got), -1);
            free(in);
            free(v32);
            free(v);
            free(got);
        }
    }
    /* a value of 2 is not a boolean */
    static const uint8_t two[] = { 2, 0, 0, 0, 0x10, 0x02 };
    bool b[8];
    ck_assert_int_eq(inl_dec_rle_bool(two, sizeof two, 8, b), -1);
}
END_TEST

/* ---- DELTA_BINARY_PACKED ------------------------------------------------------------ */

/* INT32 and INT64 sequences in several shapes: full-range random, small
 * steps, constant, sorted, the extremes alternating (every delta wraps),
 * and the extremes mixed with zero. */
static int64_t pick(int shape, size_t i, int bits)
{
    const int64_t lo = bits == 32 ? INT32_MIN : INT64_MIN, hi = bits == 32 ? INT32_MAX : INT64_MAX;
    switch (shape) {
    case 0: return bits == 32 ? (int32_t)rnd() : (int64_t)rnd();
    case 1: return (int64_t)(rnd() % 1000) - 500;
    case 2: return 42;
    case 3: return (int64_t)i * 3 + (int64_t)(rnd() % 3);
    case 4: return i % 2 ? lo : hi;
    default: { const int64_t x[] = { lo, 0, hi, -1, 1, lo, lo + 1, hi - 1 }; return x[rnd() % 8]; }
    }
}
#define NSHAPES 6

START_TEST(test_delta_i32)
{
    for (size_t s = 0; s < NSIZES; s++) {
        const size_t n = SIZES[s];
        for (int shape = 0; shape < NSHAPES; shape++) {
            int32_t *v = xmalloc(n * sizeof *v), *got = xmalloc(n * sizeof *got);
            int64_t acc = 0;
            for (size_t i = 0; i < n; i++) {
                v[i] = (int32_t)pick(shape, i, 32);
                if (shape == 1) v[i] = (int32_t)(acc += v[i]);
            }
            out.len = 0;
            ck_assert_int_eq(inl_delta_encode_i32(&out, &alloc, v, n), 0);
            uint8_t *in = exact(out.data, out.len);
            ck_assert_int_eq(inl_dec_delta_i32(in, out.len, n, got), (long)(n ? out.len : 0));
            snprintf(what, sizeof what, "int32, %zu values, shape %d", n, shape);
            ASSERT_SAME(got, v, n, what);
            /* fewer values than the stream holds: the stream is still read to its end */
            if (n > 1) ck_assert_int_eq(inl_dec_delta_i32(in, out.len, n / 2, got), (long)out.len);
            /* more than it holds */
            int32_t *more = xmalloc((n + 1) * sizeof *more);
            ck_assert_int_eq(inl_dec_delta_i32(in, out.len, n + 1, more), -1);
            free(more);
            free(in);
            free(v);
            free(got);
        }
    }
}
END_TEST

START_TEST(test_delta_i64)
{
    for (size_t s = 0; s < NSIZES; s++) {
        const size_t n = SIZES[s];
        for (int shape = 0; shape < NSHAPES; shape++) {
            int64_t *v = xmalloc(n * sizeof *v), *got = xmalloc(n * sizeof *got);
            uint64_t acc = 0;
            for (size_t i = 0; i < n; i++) {
                v[i] = pick(shape, i, 64);
                if (shape == 1) v[i] = (int64_t)(acc += (uint64_t)v[i]);
            }
            out.len = 0;
            ck_assert_int_eq(inl_delta_encode_i64(&out, &alloc, v, n), 0);
            uint8_t *in = exact(out.data, out.len);
            ck_assert_int_eq(inl_dec_delta_i64(in, out.len, n, got), (long)(n ? out.len : 0));
            snprintf(what, sizeof what, "int64, %zu values, shape %d", n, shape);
            ASSERT_SAME(got, v, n, what);
            if (n > 1) ck_assert_int_eq(inl_dec_delta_i64(in, out.len, n - 1, got), (long)out.len);
            free(in);
            free(v);
            free(got);
        }
    }
    /* every width 0..64 in one stream: deltas of 2^k - 1 */
    int64_t v[1 + 65 * 128], got[1 + 65 * 128];
    uint64_t x = 0;
    v[0] = 0;
    for (int k = 0; k <= 64; k++)
        for (int i = 0; i < 128; i++) {
            const uint64_t d = i % 2 ? (k == 64 ? UINT64_MAX : (UINT64_C(1) << k) - 1) : 0;
            x += d;
            v[1 + k * 128 + i] = (int64_t)x;
        }
    out.len = 0;
    ck_assert_int_eq(inl_delta_encode_i64(&out, &alloc, v, 1 + 65 * 128), 0);
    ck_assert_int_eq(inl_dec_delta_i64(out.data, out.len, 1 + 65 * 128, got), (long)out.len);
    ck_assert(memcmp(got, v, sizeof v) == 0);
}
END_TEST

/* A DELTA_BINARY_PACKED encoder of any block shape, bit by bit, for
 * streams inlay does not write. `junk` goes into the widths of unused
 * miniblocks and the padding bits of the last one (both unspecified). */
static void put_uleb_b(buf *b, uint64_t v)
{
    uint8_t t[10];
    size_t k = 0;
    while (v >= 0x80) { t[k++] = (uint8_t)(v | 0x80); v >>= 7; }
    t[k++] = (uint8_t)v;
    ck_assert_int_eq(inl_buf_append(b, &alloc, t, k), 0);
}

static uint64_t zz(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static void dbp_encode(buf *b, const int64_t *v, size_t n, int bits, uint64_t block, uint64_t minis,
                       uint8_t junk)
{
    const uint64_t mask = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    const uint64_t per_mini = block / minis;
    put_uleb_b(b, block);
    put_uleb_b(b, minis);
    put_uleb_b(b, n);
    put_uleb_b(b, zz(n ? v[0] : 0));
    for (size_t i = 1; i < n; i += block) {
        const size_t cnt = n - i < block ? n - i : block;
        uint64_t *d = xmalloc(cnt * sizeof *d);
        int64_t min = INT64_MAX;
        for (size_t k = 0; k < cnt; k++) {
            d[k] = ((uint64_t)v[i + k] - (uint64_t)v[i + k - 1]) & mask;
            const int64_t s = bits == 32 ? (int32_t)(uint32_t)d[k] : (int64_t)d[k];
            min = s < min ? s : min;
        }
        put_uleb_b(b, zz(min));
        for (size_t k = 0; k < cnt; k++) d[k] = (d[k] - (uint64_t)min) & mask;
        uint8_t wid[64];
        for (uint64_t m = 0; m < minis; m++) {
            uint64_t any = 0;
            for (size_t k = m * per_mini; k < cnt && k < (m + 1) * per_mini; k++) any |= d[k];
            wid[m] = m * per_mini < cnt ? (uint8_t)(any ? 64 - __builtin_clzll(any) : 0) : junk;
        }
        ck_assert_int_eq(inl_buf_append(b, &alloc, wid, minis), 0);
        for (uint64_t m = 0; m < minis && m * per_mini < cnt; m++) {
            const int w = wid[m];
            const size_t bytes = per_mini * (size_t)w / 8;
            ck_assert_int_eq(inl_buf_reserve(b, &alloc, bytes), 0);
            uint8_t *o = b->data + b->len;
            memset(o, 0, bytes);
            for (size_t k = 0; k < per_mini; k++) {
                const uint64_t x = m * per_mini + k < cnt ? d[m * per_mini + k] : junk;
                for (int bit = 0; bit < w; bit++)
                    if (x >> bit & 1) {
                        const size_t at = k * (size_t)w + (size_t)bit;
                        o[at / 8] |= (uint8_t)(1u << (at % 8));
                    }
            }
            b->len += bytes;
        }
        free(d);
    }
}

START_TEST(test_delta_block_shapes)
{
    static const uint64_t shapes[][2] = { { 128, 4 }, { 128, 1 }, { 256, 8 }, { 512, 2 }, { 1024, 4 }, { 128, 2 } };
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
        for (size_t s = 0; s < NSIZES; s++)
            for (int shape = 0; shape < NSHAPES; shape++) {
                const size_t n = SIZES[s] > 5000 ? 5000 : SIZES[s];
                int64_t *v = xmalloc(n * sizeof *v), *got = xmalloc(n * sizeof *got);
                int32_t *v32 = xmalloc(n * sizeof *v32), *got32 = xmalloc(n * sizeof *got32);
                for (size_t i = 0; i < n; i++) {
                    v[i] = pick(shape, i, 64);
                    v32[i] = (int32_t)pick(shape, i, 32);
                }
                out.len = 0;
                dbp_encode(&out, v, n, 64, shapes[k][0], shapes[k][1], 0xff);
                ck_assert_int_eq(inl_dec_delta_i64(out.data, out.len, n, got), (long)(n ? out.len : 0));
                snprintf(what, sizeof what, "block %d/%d, %zu values, shape %d", (int)shapes[k][0],
                         (int)shapes[k][1], n, shape);
                ASSERT_SAME(got, v, n, what);
                for (size_t i = 0; i < n; i++) v[i] = v32[i];
                out.len = 0;
                dbp_encode(&out, v, n, 32, shapes[k][0], shapes[k][1], 0x3);
                ck_assert_int_eq(inl_dec_delta_i32(out.data, out.len, n, got32), (long)(n ? out.len : 0));
                ASSERT_SAME(got32, v32, n, what);
                /* the same values with deltas taken in 64 bits: miniblocks up to 33 bits wide */
                out.len = 0;
                dbp_encode(&out, v, n, 64, shapes[k][0], shapes[k][1], 0x3);
                memset(got32, 0, n * sizeof *got32);
                ck_assert_int_eq(inl_dec_delta_i32(out.data, out.len, n, got32), (long)(n ? out.len : 0));
                ASSERT_SAME(got32, v32, n, what);
                free(v);
                free(got);
                free(v32);
                free(got32);
            }
}
END_TEST

/* A stream from its header fields and raw bytes after them. */
static size_t dbp_header(uint8_t *p, uint64_t block, uint64_t minis, uint64_t total, uint64_t first)
{
    out.len = 0;
    put_uleb_b(&out, block);
    put_uleb_b(&out, minis);
    put_uleb_b(&out, total);
    put_uleb_b(&out, first);
    memcpy(p, out.data, out.len);
    return out.len;
}

START_TEST(test_delta_bad_headers)
{
    uint8_t p[64] = { 0 };
    int32_t v[4];
    int64_t w[4];
    size_t h;
    /* a valid one first: 2 values, min delta 1, widths 0 */
    h = dbp_header(p, 128, 4, 2, 0);
    p[h] = 2;
    ck_assert_int_eq(inl_dec_delta_i32(p, h + 5, 2, v), (long)h + 5);
    ck_assert_int_eq(v[1], 1);
    h = dbp_header(p, 0, 4, 2, 0);
    ck_assert_int_eq(inl_dec_delta_i32(p, h + 5, 2, v), -1);
    h = dbp_header(p, 100, 4, 2, 0);
    ck_assert_int_eq(inl_dec_delta_i32(p, h + 5, 2, v), -1);
    h = dbp_header(p, 129, 1, 2, 0);
    ck_assert_int_eq(inl_dec_delta_i32(p, h + 5, 2, v), -1);
    h = dbp_header(p, 128, 0, 2, 0);
    ck_assert_int_eq(inl_dec_delta_i32(p, h + 5, 2, v), -1);
    h = dbp_header(p, 128, 3, 2, 0);                 /* does not divide the block */
    ck_assert_int_eq(inl_dec_delta_i32(p, h + 5, 2, v), -1);
    h = dbp_header(p, 128, 8, 2, 0);                 /* miniblocks of 16 */
    ck_assert_int_eq(inl_dec_delta_i32(p, h + 10, 2, v), -1);
    h = dbp_header(p, UINT64_C(1) << 62, 4, 2, 0);   /* huge block */
    ck_assert_int_eq(inl_dec_delta_i32(p, h + 5, 2, v), -1);
    h = dbp_header(p, 128, 4, UINT64_C(1) << 40, 0); /* huge total */
    ck_assert_int_eq(inl_dec_delta_i32(p, sizeof p, 2, v), -1);
    h = dbp_header(p, 128, 4, UINT64_MAX, 0);
    ck_assert_int_eq(inl_dec_delta_i64(p, sizeof p, 2, w), -1);
    h = dbp_header(p, 128, 4, 1, 0);                 /* fewer values than wanted */
    ck_assert_int_eq(inl_dec_delta_i32(p, h, 2, v), -1);
    /* a header varint of 11 bytes */
    static const uint8_t eleven[] = { 0x80, 0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 4, 1, 0 };
    ck_assert_int_eq(inl_dec_delta_i32(eleven, sizeof eleven, 1, v), -1);
    /* miniblock widths 33 (INT32) and 65 (INT64) */
    h = dbp_header(p, 128, 4, 2, 0);
    memset(p + h, 0, sizeof p - h);
    p[h + 1] = 33;   /* an INT32 stream from a writer that takes deltas in 64 bits (DuckDB) */
    ck_assert_int_gt(inl_dec_delta_i32(p, sizeof p, 2, v), 0);
    ck_assert_int_gt(inl_dec_delta_i64(p, sizeof p, 2, w), 0);
    p[h + 1] = 65;
    ck_assert_int_eq(inl_dec_delta_i32(p, sizeof p, 2, v), -1);
    ck_assert_int_eq(inl_dec_delta_i64(p, sizeof p, 2, w), -1);
    /* but the width of a miniblock past the values may be anything */
    p[h + 1] = 0;
    p[h + 2] = 200;
    ck_assert_int_eq(inl_dec_delta_i32(p, h + 5, 2, v), (long)h + 5);
}
END_TEST

/* ---- DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY -------------------------------------- */

/* Longest strings of a round trip: the rebuild of DELTA_BYTE_ARRAY keeps
 * values of up to 16 and 32 bytes in registers and copies longer ones. */
static const size_t MAX_LENGTHS[] = { 0, 8, 20, 40, 200 };

START_TEST(test_delta_length_bytes)
{
    for (size_t s = 0; s < NSIZES; s++) {
        const size_t n = SIZES[s];
        for (size_t m = 0; m < sizeof MAX_LENGTHS / sizeof MAX_LENGTHS[0]; m++) {
            const size_t max = MAX_LENGTHS[m];
            uint8_t *store;
            inlay_bytes *v = make_strings(n, n == 1 ? 100000 : max, &store);
            out.len = 0;
            ck_assert_int_eq(inl_delta_encode_length_bytes(&out, &alloc, v, n), 0);
            uint8_t *in = exact(out.data, out.len);
            inlay_bytes *got = xmalloc(n * sizeof *got);
            ck_assert_int_eq(inl_dec_delta_length_bytes(in, out.len, n, got), (long)(n ? out.len : 0));
            ck_assert(bytes_equal(got, v, n));
            if (n) ck_assert_int_eq(inl_dec_delta_length_bytes(in, out.len - 1, n, got) < 0 ||
                                    bytes_equal(got, v, n), 1);
            free(in);
            free(got);
            free(v);
            free(store);
        }
    }
}
END_TEST

START_TEST(test_delta_bytes)
{
    buf arena = { 0 };
    for (size_t s = 0; s < NSIZES; s++) {
        const size_t n = SIZES[s];
        for (size_t m = 0; m < sizeof MAX_LENGTHS / sizeof MAX_LENGTHS[0]; m++) {
            const size_t max = MAX_LENGTHS[m];
            uint8_t *store;
            inlay_bytes *v = make_strings(n, n == 1 ? 100000 : max, &store);
            out.len = 0;
            ck_assert_int_eq(inl_delta_encode_bytes(&out, &alloc, v, n), 0);
            uint8_t *in = exact(out.data, out.len);
            inlay_bytes *got = xmalloc(n * sizeof *got);
            /* the arena is appended to: what it held stays */
            arena.len = 0;
            ck_assert_int_eq(inl_buf_append(&arena, &alloc, "keep", 4), 0);
            ck_assert_int_eq(inl_dec_delta_bytes(in, out.len, n, 0, &arena, &alloc, got), (long)(n ? out.len : 0));
            ck_assert(memcmp(arena.data, "keep", 4) == 0);
            size_t total = 0;
            for (size_t i = 0; i < n; i++) total += v[i].len;
            ck_assert_uint_eq(arena.len, 4 + total);
            free(in);                                   /* values live in the arena */
            ck_assert(bytes_equal(got, v, n));
            free(got);
            free(v);
            free(store);
        }
    }
    inl_buf_free(&arena, &alloc);
}
END_TEST

START_TEST(test_delta_bytes_fixed)
{
    buf arena = { 0 };
    for (size_t width = 1; width <= 16; width *= 4) {
        const size_t n = 1000;
        uint8_t *raw = xmalloc(n * width);
        inlay_bytes *v = xmalloc(n * sizeof *v), *got = xmalloc(n * sizeof *got);
        for (size_t i = 0; i < n; i++) {
            for (size_t k = 0; k < width; k++) raw[i * width + k] = (uint8_t)(k < width / 2 ? i / 100 : rnd());
            v[i] = (inlay_bytes){ raw + i * width, width };
        }
        out.len = 0;
        ck_assert_int_eq(inl_delta_encode_bytes(&out, &alloc, v, n), 0);
        arena.len = 0;
        ck_assert_int_eq(inl_dec_delta_bytes(out.data, out.len, n, width, &arena, &alloc, got), (long)out.len);
        ck_assert(bytes_equal(got, v, n));
        ck_assert_int_eq(inl_dec_delta_bytes(out.data, out.len, n, width + 1, &arena, &alloc, got), -1);
        free(raw);
        free(v);
        free(got);
    }
    inl_buf_free(&arena, &alloc);
}
END_TEST

/* A DELTA_BYTE_ARRAY from prefix and suffix lengths and suffix bytes. */
static void dba_build(buf *b, const int64_t *pre, const int64_t *suf, size_t n, const char *bytes)
{
    b->len = 0;
    dbp_encode(b, pre, n, 32, 128, 4, 0);
    dbp_encode(b, suf, n, 32, 128, 4, 0);
    ck_assert_int_eq(inl_buf_append(b, &alloc, bytes, strlen(bytes)), 0);
}

START_TEST(test_delta_bytes_bad)
{
    buf arena = { 0 }, b = { 0 };
    inlay_bytes got[3];
    /* "axis", "axle", "babble" from prefixes 0 2 0 */
    dba_build(&b, (int64_t[]){ 0, 2, 0 }, (int64_t[]){ 4, 2, 6 }, 3, "axislebabble");
    ck_assert_int_eq(inl_dec_delta_bytes(b.data, b.len, 3, 0, &arena, &alloc, got), (long)b.len);
    ck_assert(got[1].len == 4 && memcmp(got[1].data, "axle", 4) == 0);
    ck_assert(got[2].len == 6 && memcmp(got[2].data, "babble", 6) == 0);
    /* a prefix longer than the value before */
    dba_build(&b, (int64_t[]){ 0, 5, 0 }, (int64_t[]){ 4, 2, 6 }, 3, "axislebabble");
    ck_assert_int_eq(inl_dec_delta_bytes(b.data, b.len, 3, 0, &arena, &alloc, got), -1);
    /* a first value with a prefix */
    dba_build(&b, (int64_t[]){ 1, 2, 0 }, (int64_t[]){ 4, 2, 6 }, 3, "axislebabble");
    ck_assert_int_eq(inl_dec_delta_bytes(b.data, b.len, 3, 0, &arena, &alloc, got), -1);
    /* negative lengths */
    dba_build(&b, (int64_t[]){ 0, -1, 0 }, (int64_t[]){ 4, 2, 6 }, 3, "axislebabble");
    ck_assert_int_eq(inl_dec_delta_bytes(b.data, b.len, 3, 0, &arena, &alloc, got), -1);
    dba_build(&b, (int64_t[]){ 0, 2, 0 }, (int64_t[]){ 4, -2, 6 }, 3, "axislebabble");
    ck_assert_int_eq(inl_dec_delta_bytes(b.data, b.len, 3, 0, &arena, &alloc, got), -1);
    /* suffixes past the end */
    dba_build(&b, (int64_t[]){ 0, 2, 0 }, (int64_t[]){ 4, 2, 7 }, 3, "axislebabble");
    ck_assert_int_eq(inl_dec_delta_bytes(b.data, b.len, 3, 0, &arena, &alloc, got), -1);
    /* DLBA: a negative length and one past the end */
    b.len = 0;
    dbp_encode(&b, (int64_t[]){ 1, -1 }, 2, 32, 128, 4, 0);
    ck_assert_int_eq(inl_buf_append(&b, &alloc, "xyz", 3), 0);
    ck_assert_int_eq(inl_dec_delta_length_bytes(b.data, b.len, 2, got), -1);
    b.len = 0;
    dbp_encode(&b, (int64_t[]){ 1, 3 }, 2, 32, 128, 4, 0);
    ck_assert_int_eq(inl_buf_append(&b, &alloc, "xyz", 3), 0);
    ck_assert_int_eq(inl_dec_delta_length_bytes(b.data, b.len, 2, got), -1);
    /* only empty values: nothing in the arena */
    dba_build(&b, (int64_t[]){ 0, 0, 0 }, (int64_t[]){ 0, 0, 0 }, 3, "");
    arena.len = 0;
    ck_assert_int_eq(inl_dec_delta_bytes(b.data, b.len, 3, 0, &arena, &alloc, got), (long)b.len);
    ck_assert(got[0].len == 0 && got[2].len == 0 && arena.len == 0);
    inl_buf_free(&arena, &alloc);
    inl_buf_free(&b, &alloc);
}
END_TEST

START_TEST(test_delta_bytes_nomem)
{
    test_alloc t = { 0 };
    inlay_allocator ta = test_allocator(&t);
    t.fail_at = 1;
    buf arena = { 0 };
    uint8_t *store;
    inlay_bytes *v = make_strings(100, 20, &store), got[100];
    v[0] = bytes_of("hello");                          /* at least one byte to rebuild */
    out.len = 0;
    ck_assert_int_eq(inl_delta_encode_bytes(&out, &alloc, v, 100), 0);
    ck_assert_int_eq(inl_dec_delta_bytes(out.data, out.len, 100, 0, &arena, &ta, got), -1);
    ck_assert_uint_eq(arena.len, 0);
    ck_assert_int_eq(inl_dec_delta_bytes(out.data, out.len, 100, 0, &arena, &ta, got), (long)out.len);
    ck_assert(bytes_equal(got, v, 100));
    inl_buf_free(&arena, &ta);
    ck_assert_no_leak(&t);
    free(v);
    free(store);
}
END_TEST

/* ---- BYTE_STREAM_SPLIT and the gather -------------------------------------------------- */

START_TEST(test_bss)
{
    static const size_t widths[] = { 2, 4, 8, 16, 1, 3, 12, 24 };
    for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++)
        for (size_t s = 0; s < NSIZES; s++) {
            const size_t width = widths[k], n = SIZES[s];
            uint8_t *v = xmalloc(n * width), *got = xmalloc(n * width);
            for (size_t i = 0; i < n * width; i++) v[i] = (uint8_t)rnd();
            out.len = 0;
            ck_assert_int_eq(inl_bss_encode(&out, &alloc, v, n, width), 0);
            uint8_t *in = exact(out.data, out.len);
            ck_assert_int_eq(inl_dec_bss(in, out.len, n, width, got), (long)(n * width));
            ck_assert(n == 0 || memcmp(got, v, n * width) == 0);
            if (n) ck_assert_int_eq(inl_dec_bss(in, out.len - 1, n, width, got), -1);
            free(in);
            free(v);
            free(got);
        }
    uint8_t x[4];
    ck_assert_int_eq(inl_dec_bss(x, 4, 1, 0, x), -1);
}
END_TEST

START_TEST(test_gather)
{
    static const size_t widths[] = { 1, 2, 4, 8, 12, 16, sizeof(inlay_bytes), 5 };
    const size_t n = 1000, dict_n = 37;
    for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++) {
        const size_t w = widths[k];
        uint8_t *dict = xmalloc(dict_n * w), *got = xmalloc(n * w);
        uint32_t *idx = xmalloc(n * sizeof *idx);
        for (size_t i = 0; i < dict_n * w; i++) dict[i] = (uint8_t)rnd();
        for (size_t i = 0; i < n; i++) idx[i] = (uint32_t)(rnd() % dict_n);
        inl_dec_gather(got, dict, idx, n, w);
        size_t wrong = 0;
        for (size_t i = 0; i < n; i++) wrong += memcmp(got + i * w, dict + idx[i] * w, w) != 0;
        ck_assert_uint_eq(wrong, 0);
        free(dict);
        free(got);
        free(idx);
    }
}
END_TEST

/* ---- hostile input ------------------------------------------------------------------------ */

/* One decoder under a common shape: count values of `size` bytes (or
 * inlay_bytes, compared by content) from p[0..n). */
typedef struct codec {
    const char *name;
    long (*dec)(const uint8_t *p, size_t n, size_t count, void *out);
    size_t size;
    bool bytes;
} codec;

static int codec_width;            /* the bit width or value width a codec runs at */
static buf codec_arena;

static long c_fixed(const uint8_t *p, size_t n, size_t c, void *o) { return inl_dec_plain_fixed(p, n, c, 8, o); }
static long c_int96(const uint8_t *p, size_t n, size_t c, void *o) { return inl_dec_plain_int96_nanos(p, n, c, o); }
static long c_bool(const uint8_t *p, size_t n, size_t c, void *o) { return inl_dec_plain_bool(p, n, c, o); }
static long c_bytes(const uint8_t *p, size_t n, size_t c, void *o) { return inl_dec_plain_bytes(p, n, c, o); }
static long c_flba(const uint8_t *p, size_t n, size_t c, void *o) { return inl_dec_plain_flba(p, n, c, 3, o); }
static long c_levels(const uint8_t *p, size_t n, size_t c, void *o) { return inl_dec_levels(p, n, codec_width, c, 5, o); }
static long c_hybrid(const uint8_t *p, size_t n, size_t c, void *o)
{
    return inl_dec_hybrid_u32(p, n, codec_width, c, (uint32_t)((UINT64_C(1) << codec_width) - 1), o);
}
static long c_dict(const uint8_t *p, size_t n, size_t c, void *o) { return inl_dec_dict_indices(p, n, c, 1000, o); }
static long c_rle_bool(const uint8_t *p, size_t n, size_t c, void *o) { return inl_dec_rle_bool(p, n, c, o); }
static long c_d32(const uint8_t *p, size_t n, size_t c, void *o) { return inl_dec_delta_i32(p, n, c, o); }
static long c_d64(const uint8_t *p, size_t n, size_t c, void *o) { return inl_dec_delta_i64(p, n, c, o); }
static long c_dlba(const uint8_t *p, size_t n, size_t c, void *o) { return inl_dec_delta_length_bytes(p, n, c, o); }
static long c_dba(const uint8_t *p, size_t n, size_t c, void *o)
{
    codec_arena.len = 0;
    return inl_dec_delta_bytes(p, n, c, 0, &codec_arena, &alloc, o);
}
static long c_bss(const uint8_t *p, size_t n, size_t c, void *o) { return inl_dec_bss(p, n, c, 8, o); }

enum { HOSTILE_N = 300, NCODECS = 16 };

/* Codec k with a valid encoding of HOSTILE_N values in `out`. */
static codec make_case(int k)
{
    static uint8_t *store;
    static inlay_bytes *strings;
    free(store);
    free(strings);
    store = NULL;
    strings = NULL;
    out.len = 0;
    const size_t n = HOSTILE_N;
    uint32_t u[HOSTILE_N];
    uint16_t l[HOSTILE_N];
    uint8_t b[HOSTILE_N];
    int64_t v[HOSTILE_N];
    int32_t v32[HOSTILE_N];
    for (size_t i = 0; i < n; i++) {
        v[i] = pick((int)(i / 50) % NSHAPES, i, 64);
        v32[i] = (int32_t)pick((int)(i / 50) % NSHAPES, i, 32);
    }
    switch (k) {
    case 0:
        ck_assert_int_eq(inl_plain_put_fixed(&out, &alloc, v, n, 8), 0);
        return (codec){ "plain int64", c_fixed, 8, false };
    case 1:
        for (size_t i = 0; i < n; i++) {
            uint8_t t[12];
            int96(t, (uint64_t)v[i], (uint32_t)rnd());
            ck_assert_int_eq(inl_buf_append(&out, &alloc, t, 12), 0);
        }
        return (codec){ "int96", c_int96, 8, false };
    case 2:
        for (size_t i = 0; i < n; i++) b[i] = (uint8_t)(rnd() & 1);
        ck_assert_int_eq(inl_buf_reserve(&out, &alloc, n / 8 + 1), 0);
        inl_rle_pack_bools(out.data, b, n);
        out.len = (n + 7) / 8;
        return (codec){ "plain bool", c_bool, sizeof(bool), false };
    case 3:
        strings = make_strings(n, 20, &store);
        ck_assert_int_eq(inl_plain_put_bytes(&out, &alloc, strings, n), 0);
        return (codec){ "plain bytes", c_bytes, sizeof(inlay_bytes), true };
    case 4:
        ck_assert_int_eq(inl_plain_put_fixed(&out, &alloc, v, n, 3), 0);
        return (codec){ "plain flba(3)", c_flba, sizeof(inlay_bytes), true };
    case 5: case 6:
        codec_width = k == 5 ? 1 : 3;
        fill_u32(u, n, codec_width, 1);
        for (size_t i = 0; i < n; i++) l[i] = (uint16_t)(u[i] > 5 ? 5 : u[i]);
        ck_assert_int_eq(inl_rle_encode_u16(&out, &alloc, l, n, codec_width), 0);
        return (codec){ "levels", c_levels, sizeof(int16_t), false };
    case 7: case 8:
        codec_width = k == 7 ? 7 : 32;
        fill_u32(u, n / 2, codec_width, 0);
        fill_u32(u + n / 2, n - n / 2, codec_width, 1);
        ck_assert_int_eq(inl_rle_encode_u32(&out, &alloc, u, n, codec_width), 0);
        return (codec){ "hybrid", c_hybrid, sizeof(uint32_t), false };
    case 9:
        fill_u32(u, n, 9, 1);
        for (size_t i = 0; i < n; i++) u[i] %= 1000;
        ck_assert_int_eq(inl_buf_append(&out, &alloc, "\x0a", 1), 0);
        ck_assert_int_eq(inl_rle_encode_u32(&out, &alloc, u, n, 10), 0);
        return (codec){ "dict indices", c_dict, sizeof(uint32_t), false };
    case 10:
        fill_u32(u, n, 1, 1);
        for (size_t i = 0; i < n; i++) b[i] = (uint8_t)u[i];
        ck_assert_int_eq(inl_bool_rle_encode(&out, &alloc, b, n), 0);
        return (codec){ "rle bool", c_rle_bool, sizeof(bool), false };
    case 11:
        ck_assert_int_eq(inl_delta_encode_i32(&out, &alloc, v32, n), 0);
        return (codec){ "delta int32", c_d32, sizeof(int32_t), false };
    case 12:
        ck_assert_int_eq(inl_delta_encode_i64(&out, &alloc, v, n), 0);
        return (codec){ "delta int64", c_d64, sizeof(int64_t), false };
    case 13:
        strings = make_strings(n, 20, &store);
        ck_assert_int_eq(inl_delta_encode_length_bytes(&out, &alloc, strings, n), 0);
        return (codec){ "delta length bytes", c_dlba, sizeof(inlay_bytes), true };
    case 14:
        strings = make_strings(n, 20, &store);
        ck_assert_int_eq(inl_delta_encode_bytes(&out, &alloc, strings, n), 0);
        return (codec){ "delta bytes", c_dba, sizeof(inlay_bytes), true };
    default:
        ck_assert_int_eq(inl_bss_encode(&out, &alloc, v, n, 8), 0);
        return (codec){ "bss", c_bss, 8, false };
    }
}

/* What a decoder promises of any output it accepts, whatever the input:
 * booleans are 0 or 1, levels and indices within their bounds, byte
 * strings inside the input (or the arena). */
static bool sane(int k, const void *o, size_t count, const uint8_t *in, size_t n)
{
    const inlay_bytes *b = o;
    const uint8_t *lo = in, *hi = in + n;
    if (k == 14) {
        lo = codec_arena.data;
        hi = codec_arena.data + codec_arena.len;
    }
    for (size_t i = 0; i < count; i++) {
        switch (k) {
        case 2: case 10:
            if (((const uint8_t *)o)[i] > 1) return false;
            break;
        case 3: case 4: case 13: case 14:
            if (b[i].len && ((const uint8_t *)b[i].data < lo || b[i].len > (size_t)(hi - (const uint8_t *)b[i].data)))
                return false;
            break;
        case 5: case 6:
            if (((const int16_t *)o)[i] < 0 || ((const int16_t *)o)[i] > 5) return false;
            break;
        case 7: case 8:
            if (((const uint32_t *)o)[i] > (uint32_t)((UINT64_C(1) << codec_width) - 1)) return false;
            break;
        case 9:
            if (((const uint32_t *)o)[i] >= 1000) return false;
            break;
        default:
            break;
        }
    }
    return true;
}

static bool same_values(const codec *c, const void *x, const void *y, size_t n)
{
    return c->bytes ? bytes_equal(x, y, n) : memcmp(x, y, n * c->size) == 0;
}

START_TEST(test_truncations)
{
    for (int k = 0; k < NCODECS; k++) {
        codec c = make_case(k);
        const size_t n = HOSTILE_N, len = out.len;
        uint8_t *full = exact(out.data, len);
        void *want = xmalloc(n * c.size), *got = xmalloc(n * c.size);
        ck_assert_msg(c.dec(full, len, n, want) == (long)len, "%s: the valid encoding", c.name);
        /* DELTA_BYTE_ARRAY's values live in the arena: keep a copy */
        buf keep = { 0 };
        if (k == 14) {
            ck_assert_int_eq(inl_buf_append(&keep, &alloc, codec_arena.data, codec_arena.len), 0);
            for (size_t i = 0; i < n; i++)
                ((inlay_bytes *)want)[i].data = keep.data + ((const uint8_t *)((inlay_bytes *)want)[i].data - codec_arena.data);
        }
        int accepted = 0;
        for (size_t cut = 0; cut < len; cut++) {
            uint8_t *in = exact(full, cut);
            const long used = c.dec(in, cut, n, got);
            if (used >= 0) {
                accepted++;
                ck_assert_msg((size_t)used <= cut, "%s cut at %zu: used %ld", c.name, cut, used);
                ck_assert_msg(same_values(&c, got, want, n), "%s cut at %zu: other values", c.name, cut);
            }
            free(in);
        }
        /* only the padding of a last bit-packed run or miniblock may go */
        const bool may_pad = (k >= 5 && k <= 9) || k == 11 || k == 12;
        ck_assert_msg(may_pad || accepted == 0, "%s: %d truncations accepted", c.name, accepted);
        inl_buf_free(&keep, &alloc);
        free(full);
        free(want);
        free(got);
    }
    inl_buf_free(&codec_arena, &alloc);
}
END_TEST

START_TEST(test_mutations)
{
    seed = 12345;
    for (int k = 0; k < NCODECS; k++) {
        codec c = make_case(k);
        const size_t len = out.len;
        uint8_t *valid = exact(out.data, len);
        for (int iter = 0; iter < 3000; iter++) {
            uint8_t *in = exact(valid, len);
            const int flips = 1 + (int)(rnd() % 4);
            for (int f = 0; f < flips; f++) {
                const size_t at = rnd() % len;
                in[at] = rnd() % 3 ? (uint8_t)rnd() : (uint8_t)(in[at] ^ (1u << (rnd() % 8)));
            }
            if (k == 9 && iter % 3 == 0) in[0] = (uint8_t)(rnd() % 34);   /* the index width */
            const size_t count = iter % 4 == 0 ? rnd() % (HOSTILE_N + 10) : HOSTILE_N;
            const size_t n = iter % 8 == 1 ? rnd() % (len + 1) : len;
            void *o = xmalloc(count * c.size);
            const long used = c.dec(in, n, count, o);
            ck_assert_msg(used >= -1 && (used < 0 || (size_t)used <= n), "%s: used %ld of %zu", c.name, used, n);
            ck_assert_msg(used < 0 || sane(k, o, count, in, n), "%s: accepted out of bounds", c.name);
            free(o);
            free(in);
        }
        /* and plain noise */
        for (int iter = 0; iter < 500; iter++) {
            const size_t n = rnd() % 64;
            uint8_t *in = xmalloc(n);
            for (size_t i = 0; i < n; i++) in[i] = (uint8_t)(iter % 2 ? rnd() : rnd() % 4);
            const size_t count = rnd() % 100;
            void *o = xmalloc(count * c.size);
            const long used = c.dec(in, n, count, o);
            ck_assert(used >= -1 && (used < 0 || (size_t)used <= n));
            ck_assert_msg(used < 0 || sane(k, o, count, in, n), "%s: accepted out of bounds", c.name);
            free(o);
            free(in);
        }
        free(valid);
    }
    inl_buf_free(&codec_arena, &alloc);
}
END_TEST

static Suite *decode_suite(void)
{
    Suite *s = suite_create("decode");
    TCase *c;

    c = tcase_create("plain");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_set_timeout(c, 60);
    tcase_add_test(c, test_plain_fixed);
    tcase_add_test(c, test_plain_int96);
    tcase_add_test(c, test_plain_bool);
    tcase_add_test(c, test_plain_bytes);
    tcase_add_test(c, test_plain_flba);
    suite_add_tcase(s, c);

    c = tcase_create("hybrid");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_set_timeout(c, 120);
    tcase_add_test(c, test_hybrid_widths);
    tcase_add_test(c, test_levels);
    tcase_add_test(c, test_level_above_max);
    tcase_add_test(c, test_bad_widths);
    tcase_add_test(c, test_index_out_of_range);
    tcase_add_test(c, test_hybrid_spec_choices);
    tcase_add_test(c, test_rle_bool);
    suite_add_tcase(s, c);

    c = tcase_create("delta");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_set_timeout(c, 120);
    tcase_add_test(c, test_delta_i32);
    tcase_add_test(c, test_delta_i64);
    tcase_add_test(c, test_delta_block_shapes);
    tcase_add_test(c, test_delta_bad_headers);
    tcase_add_test(c, test_delta_length_bytes);
    tcase_add_test(c, test_delta_bytes);
    tcase_add_test(c, test_delta_bytes_fixed);
    tcase_add_test(c, test_delta_bytes_bad);
    tcase_add_test(c, test_delta_bytes_nomem);
    suite_add_tcase(s, c);

    c = tcase_create("byte stream split and gather");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_set_timeout(c, 60);
    tcase_add_test(c, test_bss);
    tcase_add_test(c, test_gather);
    suite_add_tcase(s, c);

    c = tcase_create("hostile input");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_set_timeout(c, 240);
    tcase_add_test(c, test_truncations);
    tcase_add_test(c, test_mutations);
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(decode_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
