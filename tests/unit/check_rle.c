/*
 * check_rle.c — the RLE / bit-packed hybrid encoder (runtime/encode/rle.c).
 *
 * Two kinds of checks: exact bytes for small cases worked out by hand from
 * Encodings.md (run header = ULEB128 of count << 1 for an RLE run, of
 * groups << 1 | 1 for a bit-packed run; values packed LSB first), and, for
 * every bit width 0..32, round trips of random and structured sequences
 * through the independent decoder in rle_reader.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "rle.h"

#include "rle_reader.h"
#include "unit.h"

#include "out_fixture.h"

static void encode(const uint32_t *v, size_t n, int width)
{
    out.len = 0;
    ck_assert_int_eq(inl_rle_encode_u32(&out, &alloc, v, n, width), 0);
}

/* Encode v at width and compare with the bytes given. */
#define EXPECT_RLE(width, v, n, ...)                                 \
    do {                                                             \
        static const uint8_t want_[] = { __VA_ARGS__ };              \
        encode((v), (n), (width));                                   \
        ck_assert_bytes(out.data, out.len, want_, sizeof want_);     \
    } while (0)

static void fill(uint32_t *v, size_t from, size_t n, uint32_t x)
{
    for (size_t i = 0; i < n; i++) v[from + i] = x;
}

/* ---- bit width -------------------------------------------------------------- */

START_TEST(test_bit_width)
{
    ck_assert_int_eq(inl_rle_bit_width(0), 0);
    ck_assert_int_eq(inl_rle_bit_width(1), 1);
    ck_assert_int_eq(inl_rle_bit_width(2), 2);
    ck_assert_int_eq(inl_rle_bit_width(3), 2);
    ck_assert_int_eq(inl_rle_bit_width(4), 3);
    ck_assert_int_eq(inl_rle_bit_width(255), 8);
    ck_assert_int_eq(inl_rle_bit_width(256), 9);
    ck_assert_int_eq(inl_rle_bit_width(UINT32_MAX), 32);
    ck_assert_int_eq(inl_rle_bit_width(UINT64_MAX), 64);
}
END_TEST

/* ---- hand-computed bytes ------------------------------------------------------ */

START_TEST(test_rle_run_width1)
{
    uint32_t v[8];
    fill(v, 0, 8, 1);
    EXPECT_RLE(1, v, 8, 0x10, 0x01);            /* 8 << 1, value 1 in one byte */
}
END_TEST

START_TEST(test_bit_packed_width1)
{
    static const uint32_t v[] = { 1, 0, 1, 0, 1, 0, 1, 0 };
    EXPECT_RLE(1, v, 8, 0x03, 0x55);            /* 1 group: 1 << 1 | 1 */
}
END_TEST

START_TEST(test_spec_example_width3)
{
    /* Encodings.md: 0..7 at width 3 pack to 10001000 11000110 11111010 */
    static const uint32_t v[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    EXPECT_RLE(3, v, 8, 0x03, 0x88, 0xC6, 0xFA);
}
END_TEST

START_TEST(test_width0)
{
    static const uint32_t v[10] = { 0 };
    EXPECT_RLE(0, v, 10, 0x14);                 /* a run of 10, no value bytes */
    encode(v, 0, 0);
    ck_assert_uint_eq(out.len, 0);
    encode(v, 0, 5);
    ck_assert_uint_eq(out.len, 0);
}
END_TEST

START_TEST(test_long_run_header)
{
    static uint32_t v[1000];
    fill(v, 0, 1000, 3);
    EXPECT_RLE(2, v, 1000, 0xD0, 0x0F, 0x03);   /* 2000 = ULEB d0 0f */
}
END_TEST

START_TEST(test_run_value_bytes)
{
    uint32_t v[8];
    fill(v, 0, 8, 0x1FF);
    EXPECT_RLE(9, v, 8, 0x10, 0xFF, 0x01);      /* ceil(9/8) = 2 value bytes */
    fill(v, 0, 8, 0x1ABCD);
    EXPECT_RLE(17, v, 8, 0x10, 0xCD, 0xAB, 0x01);
    fill(v, 0, 8, 0xDEADBEEF);
    EXPECT_RLE(32, v, 8, 0x10, 0xEF, 0xBE, 0xAD, 0xDE);
    fill(v, 0, 8, 0);
    EXPECT_RLE(32, v, 8, 0x10, 0x00, 0x00, 0x00, 0x00);
}
END_TEST

START_TEST(test_u16_bytes)
{
    uint16_t v[8];
    for (int i = 0; i < 8; i++) v[i] = 0xABCD;
    out.len = 0;
    ck_assert_int_eq(inl_rle_encode_u16(&out, &alloc, v, 8, 16), 0);
    static const uint8_t want[] = { 0x10, 0xCD, 0xAB };
    ck_assert_bytes(out.data, out.len, want, sizeof want);
    static const uint16_t levels[] = { 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
    out.len = 0;
    ck_assert_int_eq(inl_rle_encode_u16(&out, &alloc, levels, 16, 1), 0);
    /* the first group has a 0 and is bit-packed; eight 1s follow as a run */
    static const uint8_t want2[] = { 0x03, 0xFB, 0x10, 0x01 };
    ck_assert_bytes(out.data, out.len, want2, sizeof want2);
}
END_TEST

/* ---- run boundaries -------------------------------------------------------------- */

START_TEST(test_run_of_7)
{
    uint32_t v[7];
    fill(v, 0, 7, 1);
    EXPECT_RLE(1, v, 7, 0x03, 0x7F);            /* too short: one padded group */
}
END_TEST

START_TEST(test_run_of_8)
{
    uint32_t v[8];
    fill(v, 0, 8, 1);
    EXPECT_RLE(1, v, 8, 0x10, 0x01);
}
END_TEST

START_TEST(test_run_of_9)
{
    uint32_t v[9];
    fill(v, 0, 9, 1);
    EXPECT_RLE(1, v, 9, 0x12, 0x01);
}
END_TEST

START_TEST(test_straddle_short_tail)
{
    /* 1 2 3 then ten 0s: the zeros start inside the first group and only
     * five are left after it: two bit-packed groups, zero padded */
    uint32_t v[13] = { 1, 2, 3 };
    EXPECT_RLE(2, v, 13, 0x05, 0x39, 0x00, 0x00, 0x00);
}
END_TEST

START_TEST(test_straddle_then_run)
{
    /* 1 2 3 then sixteen 0s: the first group takes five of them, the
     * other eleven are an RLE run */
    uint32_t v[19] = { 1, 2, 3 };
    EXPECT_RLE(2, v, 19, 0x03, 0x39, 0x00, 0x16, 0x00);
}
END_TEST

START_TEST(test_straddle_run_of_8_stays_packed)
{
    /* eight 1s at 1..8 cross the group boundary: no 8 equal values start
     * where a group could, so it is all bit-packed */
    static const uint32_t v[] = { 0, 1, 1, 1, 1, 1, 1, 1, 1, 0 };
    EXPECT_RLE(1, v, 10, 0x05, 0xFE, 0x01);
    static const uint32_t w[] = { 5, 7, 7, 7, 7, 7, 7, 7, 7 };
    EXPECT_RLE(3, w, 9, 0x05, 0xFD, 0xFF, 0xFF, 0x07, 0x00, 0x00);
}
END_TEST

START_TEST(test_literal_then_run_at_boundary)
{
    uint32_t v[16] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    fill(v, 8, 8, 9);
    EXPECT_RLE(4, v, 16, 0x03, 0x21, 0x43, 0x65, 0x87, 0x10, 0x09);
}
END_TEST

START_TEST(test_run_then_literal)
{
    uint32_t v[10];
    fill(v, 0, 8, 9);
    v[8] = 1;
    v[9] = 2;
    EXPECT_RLE(4, v, 10, 0x10, 0x09, 0x03, 0x21, 0x00, 0x00, 0x00);
}
END_TEST

START_TEST(test_two_runs)
{
    uint32_t v[16];
    fill(v, 0, 8, 1);
    fill(v, 8, 8, 2);
    EXPECT_RLE(2, v, 16, 0x10, 0x01, 0x10, 0x02);
}
END_TEST

/* Alternating 0/1 at width 1 packs to 0xAA per group. */
static size_t expect_alternating(uint8_t *want, size_t n)
{
    size_t k = 0, groups = (n + 7) / 8;
    while (groups) {
        size_t g = groups > 63 ? 63 : groups;
        want[k++] = (uint8_t)(g << 1 | 1);
        for (size_t i = 0; i < g; i++) want[k++] = 0xAA;
        groups -= g;
    }
    return k;
}

START_TEST(test_literal_over_63_groups)
{
    static const size_t sizes[] = { 504, 512, 1000 };
    static uint32_t v[1000];
    for (size_t i = 0; i < 1000; i++) v[i] = (uint32_t)(i & 1);
    for (size_t s = 0; s < 3; s++) {
        uint8_t want[300];
        size_t k = expect_alternating(want, sizes[s]);
        encode(v, sizes[s], 1);
        ck_assert_bytes(out.data, out.len, want, k);
    }
    ck_assert_uint_eq(out.data[0], 0x7F);     /* 63 groups: the largest one-byte header */
    ck_assert_uint_eq(out.data[64], 0x7D);    /* then the remaining 62 */
}
END_TEST

START_TEST(test_63_groups_then_run)
{
    static uint32_t v[524];
    for (size_t i = 0; i < 504; i++) v[i] = (uint32_t)(i & 1);
    fill(v, 504, 20, 1);
    uint8_t want[80];
    size_t k = expect_alternating(want, 504);
    want[k++] = 0x28;
    want[k++] = 0x01;
    encode(v, 524, 1);
    ck_assert_bytes(out.data, out.len, want, k);
}
END_TEST

START_TEST(test_appends)
{
    /* the encoding is appended after what the buffer holds */
    ck_assert_int_eq(inl_buf_append(&out, &alloc, "ab", 2), 0);
    uint32_t v[8];
    fill(v, 0, 8, 1);
    ck_assert_int_eq(inl_rle_encode_u32(&out, &alloc, v, 8, 1), 0);
    static const uint8_t want[] = { 'a', 'b', 0x10, 0x01 };
    ck_assert_bytes(out.data, out.len, want, sizeof want);
}
END_TEST

/* ---- round trips through the independent decoder ----------------------------- */

enum { PATTERNS = 10 };

static void make_sequence(uint32_t *v, size_t n, int width, int pattern, uint64_t *rng)
{
    const uint32_t max = width == 32 ? UINT32_MAX : width == 0 ? 0 : (uint32_t)((1ULL << width) - 1);
    size_t i = 0;
    switch (pattern) {
    case 0:                                   /* uniform random */
        for (; i < n; i++) v[i] = (uint32_t)rng_next(rng) & max;
        break;
    case 1: fill(v, 0, n, 0); break;
    case 2: fill(v, 0, n, max); break;
    case 3:                                   /* random runs of 1..20 */
        while (i < n) {
            size_t len = 1 + rng_next(rng) % 20;
            uint32_t x = (uint32_t)rng_next(rng) & max;
            for (size_t k = 0; k < len && i < n; k++) v[i++] = x;
        }
        break;
    case 4: for (; i < n; i++) v[i] = i & 1 ? max : 0; break;
    case 5: for (; i < n; i++) v[i] = (uint32_t)i & max; break;
    case 6: {                                 /* runs of exactly 7, 8, 9 */
        size_t r = 0;
        while (i < n) {
            size_t len = 7 + r % 3;
            uint32_t x = (uint32_t)(r++ % 2 ? max : max / 2);
            for (size_t k = 0; k < len && i < n; k++) v[i++] = x;
        }
        break;
    }
    case 7:                                   /* long runs between short literals */
        while (i < n) {
            size_t len = rng_next(rng) % 3 ? 100 + rng_next(rng) % 1900 : 1 + rng_next(rng) % 30;
            int literal = rng_next(rng) % 2;
            uint32_t x = (uint32_t)rng_next(rng) & max;
            for (size_t k = 0; k < len && i < n; k++) v[i++] = literal ? (uint32_t)rng_next(rng) & max : x;
        }
        break;
    case 8:                                   /* mostly 0, sometimes anything */
        for (; i < n; i++) v[i] = rng_next(rng) % 17 == 0 ? (uint32_t)rng_next(rng) & max : 0;
        break;
    default:                                  /* two values, as definition levels */
        for (; i < n; i++) v[i] = rng_next(rng) % 5 ? max : 0;
        break;
    }
}

START_TEST(test_round_trip)
{
    const int width = _i;
    static const size_t lengths[] = { 0, 1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65, 503, 504, 505,
                                      1000, 4099, 12000 };
    enum { MAXN = 12000 };
    static uint32_t v[MAXN], got[MAXN];
    static uint16_t v16[MAXN];
    buf out16 = { 0 };
    uint64_t rng = 0x1234567 + (uint64_t)width;
    for (int pattern = 0; pattern < PATTERNS; pattern++) {
        for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
            const size_t n = lengths[li];
            make_sequence(v, n, width, pattern, &rng);
            encode(v, n, width);
            ck_assert_msg(out.len <= inl_rle_max_size(n, width),
                          "width %d pattern %d n %zu: %zu bytes > inl_rle_max_size %zu", width, pattern,
                          n, out.len, inl_rle_max_size(n, width));
            const char *why;
            memset(got, 0xEE, n * sizeof *got);
            long used = hybrid_decode(out.data, out.len, width, got, n, &why);
            ck_assert_msg(used >= 0, "width %d pattern %d n %zu: %s", width, pattern, n, why);
            ck_assert_msg((size_t)used == out.len, "width %d pattern %d n %zu: %zu bytes, %ld decoded",
                          width, pattern, n, out.len, used);
            size_t bad = 0;
            while (bad < n && got[bad] == v[bad]) bad++;
            ck_assert_msg(bad == n, "width %d pattern %d n %zu: value %zu is %u, wrote %u",
                          width, pattern, n, bad, got[bad < n ? bad : 0], v[bad < n ? bad : 0]);
            if (width <= 16) {
                for (size_t i = 0; i < n; i++) v16[i] = (uint16_t)v[i];
                out16.len = 0;
                ck_assert_int_eq(inl_rle_encode_u16(&out16, &alloc, v16, n, width), 0);
                ck_assert_msg(out16.len == out.len && (n == 0 || memcmp(out16.data, out.data, out.len) == 0),
                              "width %d pattern %d n %zu: u16 and u32 encodings differ", width, pattern, n);
            }
        }
    }
    inl_buf_free(&out16, &alloc);
}
END_TEST

START_TEST(test_constant_is_one_run)
{
    /* n equal values are one RLE run: header + ceil(width/8) bytes */
    const int width = _i;
    static uint32_t v[5000];
    const uint32_t x = width == 0 ? 0 : (uint32_t)(((1ULL << width) - 1) / 3);
    static const size_t lengths[] = { 8, 9, 63, 64, 65, 1000, 5000 };
    for (size_t li = 0; li < 7; li++) {
        const size_t n = lengths[li];
        fill(v, 0, n, x);
        encode(v, n, width);
        size_t header = (n << 1) < 0x80 ? 1 : (n << 1) < 0x4000 ? 2 : 3;
        ck_assert_uint_eq(out.len, header + (size_t)(width + 7) / 8);
        ck_assert_uint_eq(out.data[0] & 1, 0);
    }
}
END_TEST

/* ---- booleans --------------------------------------------------------------------- */

START_TEST(test_pack_bools)
{
    static const uint8_t v[] = { 1, 0, 1, 1, 0, 0, 0, 1, 1, 1 };
    uint8_t dst[4] = { 0xEE, 0xEE, 0xEE, 0xEE };
    inl_rle_pack_bools(dst, v, 10);
    static const uint8_t want[] = { 0x8D, 0x03, 0xEE, 0xEE };
    ck_assert_bytes(dst, 4, want, 4);
}
END_TEST

START_TEST(test_pack_bools_edges)
{
    uint8_t dst[3] = { 0xEE, 0xEE, 0xEE };
    uint8_t ones[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    inl_rle_pack_bools(dst, ones, 0);
    ck_assert_uint_eq(dst[0], 0xEE);
    inl_rle_pack_bools(dst, ones, 8);
    ck_assert_uint_eq(dst[0], 0xFF);
    ck_assert_uint_eq(dst[1], 0xEE);
    inl_rle_pack_bools(dst, ones, 1);
    ck_assert_uint_eq(dst[0], 0x01);
    ck_assert_uint_eq(dst[1], 0xEE);
}
END_TEST

START_TEST(test_pack_bools_random)
{
    uint64_t rng = 99;
    uint8_t v[200] = { 0 }, dst[26];
    for (size_t n = 0; n <= 200; n++) {
        for (size_t i = 0; i < n; i++) v[i] = (uint8_t)(rng_next(&rng) & 1);
        memset(dst, 0xEE, sizeof dst);
        inl_rle_pack_bools(dst, v, n);
        size_t bad = 0;
        while (bad < n && (dst[bad / 8] >> (bad % 8) & 1) == v[bad]) bad++;
        ck_assert_msg(bad == n, "n %zu: bit %zu differs", n, bad);
        size_t untouched = (n + 7) / 8;
        while (untouched < sizeof dst && dst[untouched] == 0xEE) untouched++;
        ck_assert_msg(untouched == sizeof dst, "n %zu: byte %zu written", n, untouched);
        if (n % 8) ck_assert_uint_eq(dst[n / 8] >> (n % 8), 0);   /* padding bits are 0 */
    }
}
END_TEST

/* ---- out of memory -------------------------------------------------------------- */

START_TEST(test_nomem)
{
    test_alloc ta = { .fail_at = 1, .fail_after = true };
    inlay_allocator a = test_allocator(&ta);
    buf b = { 0 };
    static uint32_t v[100];
    ck_assert_int_eq(inl_rle_encode_u32(&b, &a, v, 100, 3), -1);
    ck_assert_uint_eq(b.len, 0);
    ck_assert_no_leak(&ta);

    /* with bytes already there: they stay, and len does not move */
    ta = (test_alloc){ .fail_at = 2, .fail_after = true };
    ck_assert_int_eq(inl_buf_append(&b, &a, "xyz", 3), 0);
    static uint32_t big[5000];
    for (size_t i = 0; i < 5000; i++) big[i] = (uint32_t)i;
    ck_assert_int_eq(inl_rle_encode_u32(&b, &a, big, 5000, 13), -1);
    ck_assert_uint_eq(b.len, 3);
    ck_assert_mem_eq(b.data, "xyz", 3);
    inl_buf_free(&b, &a);
    ck_assert_no_leak(&ta);
}
END_TEST

/* ---- counting -------------------------------------------------------------- */

/* The counting form writes the same bytes as the plain one and adds each
 * value's occurrences to uses[], over runs, literal runs and short tails. */
START_TEST(test_counting)
{
    enum { N = 3001, DISTINCT = 100 };
    static uint32_t v[N];
    uint32_t uses[DISTINCT], want[DISTINCT];
    uint64_t x = 88172645463325252ull;
    for (int shape = 0; shape < 3; shape++) {
        for (size_t n = 0; n <= N; n += n < 40 ? 1 : 397) {
            for (size_t i = 0; i < n; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                bool repeat = i > 0 && (shape == 1 ? x % 4 != 0 : shape == 2 ? x % 50 != 0 : false);
                v[i] = repeat ? v[i - 1] : (uint32_t)(x % DISTINCT);
            }
            memset(want, 0, sizeof want);
            for (size_t i = 0; i < n; i++) want[v[i]]++;
            for (uint32_t k = 0; k < DISTINCT; k++) uses[k] = 7;   /* added to, not set */
            buf counted = { 0 };
            ck_assert_int_eq(inl_rle_encode_u32_counting(&counted, &alloc, v, n, 7, uses), 0);
            encode(v, n, 7);
            ck_assert_bytes(counted.data, counted.len, out.data, out.len);
            for (uint32_t k = 0; k < DISTINCT; k++) ck_assert_uint_eq(uses[k], want[k] + 7);
            inl_buf_free(&counted, &alloc);
        }
    }
}
END_TEST

static Suite *rle_suite(void)
{
    Suite *s = suite_create("rle");
    TCase *c;

    c = tcase_create("bit width");
    tcase_add_test(c, test_bit_width);
    suite_add_tcase(s, c);

    c = tcase_create("hand-computed bytes");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_rle_run_width1);
    tcase_add_test(c, test_bit_packed_width1);
    tcase_add_test(c, test_spec_example_width3);
    tcase_add_test(c, test_width0);
    tcase_add_test(c, test_long_run_header);
    tcase_add_test(c, test_run_value_bytes);
    tcase_add_test(c, test_u16_bytes);
    tcase_add_test(c, test_appends);
    suite_add_tcase(s, c);

    c = tcase_create("counting");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_counting);
    suite_add_tcase(s, c);

    c = tcase_create("run boundaries");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_run_of_7);
    tcase_add_test(c, test_run_of_8);
    tcase_add_test(c, test_run_of_9);
    tcase_add_test(c, test_straddle_short_tail);
    tcase_add_test(c, test_straddle_then_run);
    tcase_add_test(c, test_straddle_run_of_8_stays_packed);
    tcase_add_test(c, test_literal_then_run_at_boundary);
    tcase_add_test(c, test_run_then_literal);
    tcase_add_test(c, test_two_runs);
    tcase_add_test(c, test_literal_over_63_groups);
    tcase_add_test(c, test_63_groups_then_run);
    suite_add_tcase(s, c);

    c = tcase_create("round trip, widths 0..32");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_set_timeout(c, 60);
    tcase_add_loop_test(c, test_round_trip, 0, 33);
    tcase_add_loop_test(c, test_constant_is_one_run, 0, 33);
    suite_add_tcase(s, c);

    c = tcase_create("booleans");
    tcase_add_test(c, test_pack_bools);
    tcase_add_test(c, test_pack_bools_edges);
    tcase_add_test(c, test_pack_bools_random);
    suite_add_tcase(s, c);

    c = tcase_create("out of memory");
    tcase_add_test(c, test_nomem);
    suite_add_tcase(s, c);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(rle_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
