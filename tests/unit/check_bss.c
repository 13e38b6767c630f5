/*
 * check_bss.c — BYTE_STREAM_SPLIT (runtime/encode/bss.c).
 *
 * Exact bytes for Encodings.md's three-float example and two values of
 * each width, then, for many widths and counts, a comparison with the
 * definition (output byte k * n + i is byte k of value i) and the
 * inverse, for contiguous values and for FIXED_LEN_BYTE_ARRAY values
 * scattered in memory.
 */
#define _POSIX_C_SOURCE 200809L
#include "bss.h"

#include "decoders.h"
#include "unit.h"

#include "out_fixture.h"

#define EXPECT_BYTES(...)                                            \
    do {                                                             \
        static const uint8_t want_[] = { __VA_ARGS__ };              \
        ck_assert_bytes(out.data, out.len, want_, sizeof want_);     \
    } while (0)

static void split(const void *v, size_t n, size_t width)
{
    out.len = 0;
    ck_assert_int_eq(inl_bss_encode(&out, &alloc, v, n, width), 0);
}

START_TEST(test_spec_example)
{
    static const uint8_t v[] = { 0xAA, 0xBB, 0xCC, 0xDD, 0x00, 0x11, 0x22, 0x33,
                                 0xA3, 0xB4, 0xC5, 0xD6 };
    split(v, 3, 4);
    EXPECT_BYTES(0xAA, 0x00, 0xA3, 0xBB, 0x11, 0xB4, 0xCC, 0x22, 0xC5, 0xDD, 0x33, 0xD6);
}
END_TEST

START_TEST(test_two_values)
{
    static const uint8_t v[32] = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
                                   0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F,
                                   0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
                                   0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F };
    split(v, 2, 1);
    EXPECT_BYTES(0x00, 0x01);
    split(v, 2, 2);
    EXPECT_BYTES(0x00, 0x02, 0x01, 0x03);
    split(v, 2, 4);
    EXPECT_BYTES(0x00, 0x04, 0x01, 0x05, 0x02, 0x06, 0x03, 0x07);
    split(v, 2, 8);
    EXPECT_BYTES(0x00, 0x08, 0x01, 0x09, 0x02, 0x0A, 0x03, 0x0B,
                 0x04, 0x0C, 0x05, 0x0D, 0x06, 0x0E, 0x07, 0x0F);
    split(v, 2, 16);
    EXPECT_BYTES(0x00, 0x10, 0x01, 0x11, 0x02, 0x12, 0x03, 0x13,
                 0x04, 0x14, 0x05, 0x15, 0x06, 0x16, 0x07, 0x17,
                 0x08, 0x18, 0x09, 0x19, 0x0A, 0x1A, 0x0B, 0x1B,
                 0x0C, 0x1C, 0x0D, 0x1D, 0x0E, 0x1E, 0x0F, 0x1F);
    split(v, 2, 3);
    EXPECT_BYTES(0x00, 0x03, 0x01, 0x04, 0x02, 0x05);
}
END_TEST

START_TEST(test_typed_values)
{
    /* a float and a double, as the writer hands them over */
    const float f[2] = { 1.0f, -2.5f };          /* 0x3F800000, 0xC0200000 */
    split(f, 2, 4);
    EXPECT_BYTES(0x00, 0x00, 0x00, 0x00, 0x80, 0x20, 0x3F, 0xC0);
    const double d[1] = { 1.0 };                 /* 0x3FF0000000000000 */
    split(d, 1, 8);
    EXPECT_BYTES(0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF0, 0x3F);
    const int64_t i[2] = { -1, 0x0102030405060708 };
    split(i, 2, 8);
    EXPECT_BYTES(0xFF, 0x08, 0xFF, 0x07, 0xFF, 0x06, 0xFF, 0x05,
                 0xFF, 0x04, 0xFF, 0x03, 0xFF, 0x02, 0xFF, 0x01);
}
END_TEST

START_TEST(test_empty_and_appends)
{
    split(NULL, 0, 4);
    ck_assert_uint_eq(out.len, 0);
    out.len = 0;
    ck_assert_int_eq(inl_bss_encode_bytes(&out, &alloc, NULL, 0, 16), 0);
    ck_assert_uint_eq(out.len, 0);
    ck_assert_int_eq(inl_buf_append(&out, &alloc, "ab", 2), 0);
    static const uint8_t v[] = { 1, 2, 3, 4 };
    ck_assert_int_eq(inl_bss_encode(&out, &alloc, v, 2, 2), 0);
    EXPECT_BYTES('a', 'b', 1, 3, 2, 4);
}
END_TEST

/* ---- against the definition --------------------------------------------------- */

static void check_split(const uint8_t *v, size_t n, size_t width, const char *what)
{
    ck_assert_msg(out.len == n * width, "%s width %zu n %zu: %zu bytes", what, width, n, out.len);
    for (size_t k = 0; k < width; k++)
        for (size_t i = 0; i < n; i++)
            if (out.data[k * n + i] != v[i * width + k])
                ck_abort_msg("%s width %zu n %zu: stream %zu byte %zu differs", what, width, n,
                             k, i);
    /* and the inverse (decoders.h, as the chunk reader uses it) gives v back */
    uint8_t *back = malloc(n * width + 1);
    const char *why;
    ck_assert_msg(bss_decode(out.data, out.len, n, width, back, &why) == 0, "%s: %s", what, why);
    ck_assert_msg(n == 0 || memcmp(back, v, n * width) == 0, "%s width %zu n %zu: decodes differently",
                  what, width, n);
    free(back);
}

START_TEST(test_widths)
{
    static const size_t widths[] = { 1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 32, 100 };
    static const size_t counts[] = { 0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65,
                                     1000, 1001, 4099 };
    enum { MAXB = 4099 * 100 };
    static uint8_t v[MAXB], gathered[MAXB];
    static inlay_bytes items[4099];
    uint64_t rng = 3;
    for (size_t i = 0; i < MAXB; i++) v[i] = (uint8_t)rng_next(&rng);
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        const size_t width = widths[w];
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            const size_t n = counts[c];
            if (n * width > MAXB) continue;
            split(v, n, width);
            check_split(v, n, width, "contiguous");
            /* the same values one by one, each at a different offset in v */
            for (size_t i = 0; i < n; i++) {
                const size_t at = (i * 7919) % (MAXB - width + 1);
                items[i] = (inlay_bytes){ v + at, width };
                memcpy(gathered + i * width, v + at, width);
            }
            out.len = 0;
            ck_assert_int_eq(inl_bss_encode_bytes(&out, &alloc, items, n, width), 0);
            check_split(gathered, n, width, "items");
        }
    }
}
END_TEST

START_TEST(test_wide_flba)
{
    /* wider than the gathering chunk: values are scattered one at a time */
    enum { W = 5000, N = 3 };
    static uint8_t v[W * N];
    inlay_bytes items[N];
    for (size_t i = 0; i < sizeof v; i++) v[i] = (uint8_t)(i * 31 + i / 256);
    for (size_t i = 0; i < N; i++) items[i] = (inlay_bytes){ v + i * W, W };
    out.len = 0;
    ck_assert_int_eq(inl_bss_encode_bytes(&out, &alloc, items, N, W), 0);
    check_split(v, N, W, "wide items");
    split(v, N, W);
    check_split(v, N, W, "wide");
}
END_TEST

START_TEST(test_unaligned)
{
    /* values need not be aligned: start at every offset of a word */
    static uint8_t v[8 * 300 + 8];
    uint64_t rng = 8;
    for (size_t i = 0; i < sizeof v; i++) v[i] = (uint8_t)rng_next(&rng);
    for (size_t off = 0; off < 8; off++) {
        split(v + off, 300, 4);
        check_split(v + off, 300, 4, "unaligned");
        split(v + off, 300, 8);
        check_split(v + off, 300, 8, "unaligned");
    }
}
END_TEST

START_TEST(test_nomem)
{
    static uint8_t v[8 * 1000];
    static inlay_bytes items[1000];
    for (size_t i = 0; i < 1000; i++) items[i] = (inlay_bytes){ v + 8 * i, 8 };
    for (int which = 0; which < 2; which++) {
        test_alloc ta = { .fail_at = 2, .fail_after = true };
        inlay_allocator a = test_allocator(&ta);
        buf b = { 0 };
        ck_assert_int_eq(inl_buf_append(&b, &a, "xyz", 3), 0);
        int rc = which ? inl_bss_encode_bytes(&b, &a, items, 1000, 8) : inl_bss_encode(&b, &a, v, 1000, 8);
        ck_assert_int_eq(rc, -1);
        ck_assert_uint_eq(b.len, 3);
        ck_assert_mem_eq(b.data, "xyz", 3);
        inl_buf_free(&b, &a);
        ck_assert_no_leak(&ta);
    }
    /* a size that does not fit size_t fails too, before any write */
    buf b = { 0 };
    ck_assert_int_eq(inl_bss_encode(&b, &alloc, v, SIZE_MAX / 4, 8), -1);
    ck_assert_uint_eq(b.len, 0);
}
END_TEST

static Suite *bss_suite(void)
{
    Suite *s = suite_create("bss");
    TCase *c;

    c = tcase_create("hand-computed bytes");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_spec_example);
    tcase_add_test(c, test_two_values);
    tcase_add_test(c, test_typed_values);
    tcase_add_test(c, test_empty_and_appends);
    suite_add_tcase(s, c);

    c = tcase_create("widths and counts");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_set_timeout(c, 60);
    tcase_add_test(c, test_widths);
    tcase_add_test(c, test_wide_flba);
    tcase_add_test(c, test_unaligned);
    suite_add_tcase(s, c);

    c = tcase_create("out of memory");
    tcase_add_test(c, test_nomem);
    suite_add_tcase(s, c);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(bss_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
