/*
 * check_plain.c — PLAIN encoding (runtime/encode/plain.c, plain.h) against the
 * bytes the Parquet spec gives each physical type: fixed-width values
 * little-endian, BYTE_ARRAY as a 4-byte little-endian length then the
 * bytes, FIXED_LEN_BYTE_ARRAY as the bare bytes. (BOOLEAN's bit packing is
 * inl_rle_pack_bools, covered in check_rle.c.)
 */
#define _POSIX_C_SOURCE 200809L
#include "plain.h"

#include "unit.h"

#include "out_fixture.h"

#define EXPECT(...)                                                 \
    do {                                                            \
        static const uint8_t want_[] = { __VA_ARGS__ };             \
        ck_assert_bytes(out.data, out.len, want_, sizeof want_);    \
    } while (0)

/* ---- fixed width --------------------------------------------------------------- */

START_TEST(test_int32)
{
    static const int32_t v[] = { 1, -1, 0x12345678, INT32_MIN };
    ck_assert_int_eq(inl_plain_put_fixed(&out, &alloc, v, 4, 4), 0);
    EXPECT(0x01, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0x78, 0x56, 0x34, 0x12,
           0x00, 0x00, 0x00, 0x80);
}
END_TEST

START_TEST(test_int64)
{
    static const int64_t v[] = { 1, -2, INT64_MAX };
    ck_assert_int_eq(inl_plain_put_fixed(&out, &alloc, v, 3, 8), 0);
    EXPECT(0x01, 0, 0, 0, 0, 0, 0, 0,
           0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
           0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F);
}
END_TEST

START_TEST(test_float)
{
    static const float v[] = { 1.0f, -0.0f, -2.5f };
    ck_assert_int_eq(inl_plain_put_fixed(&out, &alloc, v, 3, 4), 0);
    EXPECT(0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x20, 0xC0);
}
END_TEST

START_TEST(test_double)
{
    static const double v[] = { 1.0, -0.0 };
    ck_assert_int_eq(inl_plain_put_fixed(&out, &alloc, v, 2, 8), 0);
    EXPECT(0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 0, 0, 0, 0, 0, 0, 0, 0x80);
}
END_TEST

START_TEST(test_fixed_none)
{
    ck_assert_int_eq(inl_plain_put_fixed(&out, &alloc, NULL, 0, 4), 0);
    ck_assert_uint_eq(out.len, 0);
}
END_TEST

/* ---- BYTE_ARRAY ------------------------------------------------------------------ */

START_TEST(test_bytes)
{
    const inlay_bytes v[] = { { NULL, 0 }, { "a", 1 }, { "hello", 5 }, { "", 0 } };
    ck_assert_uint_eq(inl_plain_bytes_size(v, 4), 4 * 4 + 6);
    ck_assert_int_eq(inl_plain_put_bytes(&out, &alloc, v, 4), 0);
    EXPECT(0, 0, 0, 0,
           1, 0, 0, 0, 'a',
           5, 0, 0, 0, 'h', 'e', 'l', 'l', 'o',
           0, 0, 0, 0);
}
END_TEST

START_TEST(test_bytes_long)
{
    /* a length that needs more than one byte of the prefix */
    static uint8_t data[70000];
    for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 31 + 7);
    const inlay_bytes v[] = { { data, 300 }, { data, sizeof data } };
    ck_assert_int_eq(inl_plain_put_bytes(&out, &alloc, v, 2), 0);
    ck_assert_uint_eq(out.len, 8 + 300 + sizeof data);
    static const uint8_t len1[] = { 0x2C, 0x01, 0x00, 0x00 }, len2[] = { 0x70, 0x11, 0x01, 0x00 };
    ck_assert_mem_eq(out.data, len1, 4);
    ck_assert_mem_eq(out.data + 4, data, 300);
    ck_assert_mem_eq(out.data + 304, len2, 4);
    ck_assert_int_eq(memcmp(out.data + 308, data, sizeof data), 0);
}
END_TEST

START_TEST(test_bytes_appends)
{
    const inlay_bytes a = { "xy", 2 }, b = { "z", 1 };
    ck_assert_int_eq(inl_plain_put_bytes(&out, &alloc, &a, 1), 0);
    ck_assert_int_eq(inl_plain_put_bytes(&out, &alloc, &b, 1), 0);
    EXPECT(2, 0, 0, 0, 'x', 'y', 1, 0, 0, 0, 'z');
}
END_TEST

/* ---- FIXED_LEN_BYTE_ARRAY ------------------------------------------------------- */

START_TEST(test_flba)
{
    const inlay_bytes v[] = { { "abc", 3 }, { "\0\1\2", 3 }, { "xyz", 3 } };
    ck_assert_int_eq(inl_plain_put_flba(&out, &alloc, v, 3, 3), 0);
    EXPECT('a', 'b', 'c', 0, 1, 2, 'x', 'y', 'z');
}
END_TEST

START_TEST(test_flba_uuid_width)
{
    uint8_t u[16];
    for (int i = 0; i < 16; i++) u[i] = (uint8_t)(0xF0 + i);
    const inlay_bytes v[] = { { u, 16 }, { u, 16 } };
    ck_assert_int_eq(inl_plain_put_flba(&out, &alloc, v, 2, 16), 0);
    ck_assert_uint_eq(out.len, 32);
    ck_assert_mem_eq(out.data, u, 16);
    ck_assert_mem_eq(out.data + 16, u, 16);
}
END_TEST

/* ---- out of memory ---------------------------------------------------------------- */

START_TEST(test_nomem)
{
    test_alloc ta = { .fail_at = 1, .fail_after = true };
    inlay_allocator a = test_allocator(&ta);
    buf b = { 0 };
    const inlay_bytes v[] = { { "abc", 3 } };
    static const int32_t x[] = { 1 };
    ck_assert_int_eq(inl_plain_put_bytes(&b, &a, v, 1), -1);
    ck_assert_int_eq(inl_plain_put_flba(&b, &a, v, 1, 3), -1);
    ck_assert_int_eq(inl_plain_put_fixed(&b, &a, x, 1, 4), -1);
    ck_assert_uint_eq(b.len, 0);
    ck_assert_no_leak(&ta);
}
END_TEST

static Suite *plain_suite(void)
{
    Suite *s = suite_create("plain");
    TCase *c;

    c = tcase_create("fixed width");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_int32);
    tcase_add_test(c, test_int64);
    tcase_add_test(c, test_float);
    tcase_add_test(c, test_double);
    tcase_add_test(c, test_fixed_none);
    suite_add_tcase(s, c);

    c = tcase_create("byte array");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_bytes);
    tcase_add_test(c, test_bytes_long);
    tcase_add_test(c, test_bytes_appends);
    suite_add_tcase(s, c);

    c = tcase_create("fixed len byte array");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_flba);
    tcase_add_test(c, test_flba_uuid_width);
    suite_add_tcase(s, c);

    c = tcase_create("out of memory");
    tcase_add_test(c, test_nomem);
    suite_add_tcase(s, c);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(plain_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
