/*
 * check_bool_rle.c — RLE-encoded BOOLEAN pages (runtime/encode/bool_rle.c).
 *
 * Exact bytes for small cases worked out by hand from Encodings.md (a
 * 4-byte little-endian length, then RLE / bit-packed runs at width 1), and
 * round trips across run and group boundaries through the independent
 * decoder in decoders.h (rle_reader.h's runs behind the length). The runs
 * must also be the very bytes inl_rle_encode_u32 gives at width 1, the encoder
 * the levels already use.
 */
#define _POSIX_C_SOURCE 200809L
#include "bool_rle.h"

#include "decoders.h"
#include "rle.h"
#include "unit.h"

#include "out_fixture.h"

static void encode(const uint8_t *v, size_t n)
{
    out.len = 0;
    ck_assert_int_eq(inl_bool_rle_encode(&out, &alloc, v, n), 0);
}

#define EXPECT_BOOLS(v, n, ...)                                      \
    do {                                                             \
        static const uint8_t want_[] = { __VA_ARGS__ };              \
        encode((v), (n));                                            \
        ck_assert_bytes(out.data, out.len, want_, sizeof want_);     \
    } while (0)

static void fill(uint8_t *v, size_t from, size_t n, uint8_t x)
{
    memset(v + from, x, n);
}

/* ---- hand-computed bytes ------------------------------------------------------ */

START_TEST(test_empty)
{
    EXPECT_BOOLS(NULL, 0, 0x00, 0x00, 0x00, 0x00);
}
END_TEST

START_TEST(test_runs)
{
    uint8_t v[1000];
    fill(v, 0, 8, 1);
    EXPECT_BOOLS(v, 8, 0x02, 0x00, 0x00, 0x00, 0x10, 0x01);
    fill(v, 0, 9, 0);
    EXPECT_BOOLS(v, 9, 0x02, 0x00, 0x00, 0x00, 0x12, 0x00);
    fill(v, 0, 1000, 1);
    EXPECT_BOOLS(v, 1000, 0x03, 0x00, 0x00, 0x00, 0xD0, 0x0F, 0x01);   /* 2000 = d0 0f */
    fill(v, 0, 8, 1);
    fill(v, 8, 8, 0);
    EXPECT_BOOLS(v, 16, 0x04, 0x00, 0x00, 0x00, 0x10, 0x01, 0x10, 0x00);
}
END_TEST

START_TEST(test_literals)
{
    static const uint8_t alt[] = { 1, 0, 1, 0, 1, 0, 1, 0 };
    EXPECT_BOOLS(alt, 8, 0x02, 0x00, 0x00, 0x00, 0x03, 0x55);
    static const uint8_t ten[] = { 1, 0, 1, 1, 0, 0, 0, 1, 1, 1 };
    EXPECT_BOOLS(ten, 10, 0x03, 0x00, 0x00, 0x00, 0x05, 0x8D, 0x03);   /* padded at the end */
    static const uint8_t one[] = { 1 };
    EXPECT_BOOLS(one, 1, 0x02, 0x00, 0x00, 0x00, 0x03, 0x01);
    uint8_t seven[7];
    fill(seven, 0, 7, 1);
    EXPECT_BOOLS(seven, 7, 0x02, 0x00, 0x00, 0x00, 0x03, 0x7F);       /* too short for a run */
}
END_TEST

START_TEST(test_boundaries)
{
    /* eight 1s across a group boundary stay bit-packed */
    static const uint8_t a[] = { 0, 1, 1, 1, 1, 1, 1, 1, 1, 0 };
    EXPECT_BOOLS(a, 10, 0x03, 0x00, 0x00, 0x00, 0x05, 0xFE, 0x01);
    /* a group, then a run that starts on the next group */
    uint8_t b[24] = { 1, 0, 0, 1, 0, 0, 0, 0 };
    fill(b, 8, 16, 1);
    EXPECT_BOOLS(b, 24, 0x04, 0x00, 0x00, 0x00, 0x03, 0x09, 0x20, 0x01);
    /* a run, then a short literal tail */
    uint8_t c[11];
    fill(c, 0, 9, 0);
    c[9] = 1;
    c[10] = 0;
    EXPECT_BOOLS(c, 11, 0x04, 0x00, 0x00, 0x00, 0x12, 0x00, 0x03, 0x01);
    /* a run that takes the tail of a literal group leaves the rest as a run */
    uint8_t d[20] = { 1, 0, 1 };
    EXPECT_BOOLS(d, 20, 0x04, 0x00, 0x00, 0x00, 0x03, 0x05, 0x18, 0x00);
}
END_TEST

START_TEST(test_63_groups)
{
    /* 64 alternating groups: one header of 63 groups, then one of 1 */
    static uint8_t v[520];
    for (size_t i = 0; i < 512; i++) v[i] = (uint8_t)(i & 1);
    encode(v, 512);
    ck_assert_uint_eq(out.len, 4 + 1 + 63 + 1 + 1);
    ck_assert_uint_eq(le32(out.data), 66);
    ck_assert_uint_eq(out.data[4], 0x7F);
    ck_assert_uint_eq(out.data[4 + 64], 0x03);
    ck_assert_uint_eq(out.data[4 + 65], 0xAA);
}
END_TEST

START_TEST(test_appends)
{
    ck_assert_int_eq(inl_buf_append(&out, &alloc, "ab", 2), 0);
    uint8_t v[8];
    fill(v, 0, 8, 1);
    ck_assert_int_eq(inl_bool_rle_encode(&out, &alloc, v, 8), 0);
    static const uint8_t want[] = { 'a', 'b', 0x02, 0x00, 0x00, 0x00, 0x10, 0x01 };
    ck_assert_bytes(out.data, out.len, want, sizeof want);
}
END_TEST

/* ---- round trips --------------------------------------------------------------- */

enum { MAXN = 20000, PATTERNS = 8 };

static void make_bools(uint8_t *v, size_t n, int pattern, uint64_t *rng)
{
    size_t i = 0, r = 0;
    switch (pattern) {
    case 0: for (; i < n; i++) v[i] = (uint8_t)(rng_next(rng) & 1); break;
    case 1: fill(v, 0, n, 0); break;
    case 2: fill(v, 0, n, 1); break;
    case 3:                                       /* runs of 1..20 */
        while (i < n) {
            size_t len = 1 + rng_next(rng) % 20;
            uint8_t x = (uint8_t)(rng_next(rng) & 1);
            for (size_t k = 0; k < len && i < n; k++) v[i++] = x;
        }
        break;
    case 4:                                       /* runs of exactly 7, 8, 9 */
        while (i < n) {
            size_t len = 7 + r % 3;
            uint8_t x = (uint8_t)(r++ & 1);
            for (size_t k = 0; k < len && i < n; k++) v[i++] = x;
        }
        break;
    case 5:                                       /* long runs between noise */
        while (i < n) {
            size_t len = rng_next(rng) % 3 ? 50 + rng_next(rng) % 3000 : 1 + rng_next(rng) % 40;
            int noise = rng_next(rng) % 2;
            uint8_t x = (uint8_t)(rng_next(rng) & 1);
            for (size_t k = 0; k < len && i < n; k++) v[i++] = noise ? (uint8_t)(rng_next(rng) & 1) : x;
        }
        break;
    case 6: for (; i < n; i++) v[i] = rng_next(rng) % 23 == 0; break;        /* mostly false */
    default: for (; i < n; i++) v[i] = (uint8_t)(i / 8 % 2 ? 1 : i & 1); break;  /* run, group, ... */
    }
}

START_TEST(test_round_trip)
{
    const int pattern = _i;
    static const size_t lengths[] = { 0, 1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65, 503, 504, 505,
                                      511, 512, 513, 1000, 4099, MAXN };
    static uint8_t store[MAXN + 8];
    static uint32_t wide[MAXN];
    static uint8_t got[MAXN];
    buf ref = { 0 };
    uint64_t rng = 0x5EED + (uint64_t)pattern;
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
        const size_t n = lengths[li];
        uint8_t *v = store + li % 8;             /* any alignment */
        make_bools(v, n, pattern, &rng);
        encode(v, n);
        ck_assert_msg(out.len <= inl_bool_rle_max_size(n), "pattern %d n %zu: %zu bytes > %zu",
                      pattern, n, out.len, inl_bool_rle_max_size(n));
        ck_assert_uint_ge(out.len, 4);
        ck_assert_msg(le32(out.data) == out.len - 4, "pattern %d n %zu: length %u, %zu bytes follow",
                      pattern, n, le32(out.data), out.len - 4);
        const char *why;
        long used = bool_rle_decode(out.data, out.len, n, got, &why);
        ck_assert_msg(used >= 0, "pattern %d n %zu: %s", pattern, n, why);
        ck_assert_msg((size_t)used == out.len, "pattern %d n %zu: %zu bytes, %ld decoded",
                      pattern, n, out.len, used);
        size_t bad = 0;
        while (bad < n && got[bad] == v[bad]) bad++;
        ck_assert_msg(bad == n, "pattern %d n %zu: value %zu differs", pattern, n, bad);

        for (size_t i = 0; i < n; i++) wide[i] = v[i];
        ref.len = 0;
        ck_assert_int_eq(inl_rle_encode_u32(&ref, &alloc, wide, n, 1), 0);
        ck_assert_msg(ref.len == out.len - 4 && (n == 0 || memcmp(ref.data, out.data + 4, ref.len) == 0),
                      "pattern %d n %zu: not the bytes inl_rle_encode_u32 writes", pattern, n);
    }
    inl_buf_free(&ref, &alloc);
}
END_TEST

START_TEST(test_every_short_input)
{
    /* every sequence of up to 14 values, against inl_rle_encode_u32 */
    uint8_t v[16];
    uint32_t wide[16];
    buf ref = { 0 };
    for (size_t n = 0; n <= 14; n++) {
        for (uint32_t bits = 0; bits < (1u << n); bits++) {
            for (size_t i = 0; i < n; i++) wide[i] = v[i] = (uint8_t)(bits >> i & 1);
            encode(v, n);
            ref.len = 0;
            ck_assert_int_eq(inl_rle_encode_u32(&ref, &alloc, wide, n, 1), 0);
            ck_assert_msg(ref.len + 4 == out.len && (n == 0 || memcmp(ref.data, out.data + 4, ref.len) == 0),
                          "n %zu bits %x differ", n, bits);
        }
    }
    inl_buf_free(&ref, &alloc);
}
END_TEST

START_TEST(test_nomem)
{
    static uint8_t v[5000];
    test_alloc ta = { .fail_at = 2, .fail_after = true };
    inlay_allocator a = test_allocator(&ta);
    buf b = { 0 };
    ck_assert_int_eq(inl_buf_append(&b, &a, "xyz", 3), 0);
    ck_assert_int_eq(inl_bool_rle_encode(&b, &a, v, 5000), -1);
    ck_assert_uint_eq(b.len, 3);
    ck_assert_mem_eq(b.data, "xyz", 3);
    inl_buf_free(&b, &a);
    ck_assert_no_leak(&ta);
}
END_TEST

static Suite *bool_rle_suite(void)
{
    Suite *s = suite_create("bool_rle");
    TCase *c;

    c = tcase_create("hand-computed bytes");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_empty);
    tcase_add_test(c, test_runs);
    tcase_add_test(c, test_literals);
    tcase_add_test(c, test_boundaries);
    tcase_add_test(c, test_63_groups);
    tcase_add_test(c, test_appends);
    suite_add_tcase(s, c);

    c = tcase_create("round trip");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_set_timeout(c, 60);
    tcase_add_loop_test(c, test_round_trip, 0, PATTERNS);
    tcase_add_test(c, test_every_short_input);
    suite_add_tcase(s, c);

    c = tcase_create("out of memory");
    tcase_add_test(c, test_nomem);
    suite_add_tcase(s, c);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(bool_rle_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
