/*
 * check_validate.c — batch validation (runtime/write/validate.c) called
 * directly: level ranges and row starts, value ranges of the logical types
 * at their exact limits, fixed widths, and text columns (the UTF-8 rules
 * themselves are check_utf8.c's). The same rules through the public API,
 * with their messages, are in check_writer.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "validate.h"

#include "unit.h"

static schema_leaf leaf;
static inlay_type type;
static column col;
static inl_err err;

/* A column of type t with the given maximum levels. */
static const column *column_of(inlay_type t, int16_t max_def, int16_t max_rep)
{
    memset(&leaf, 0, sizeof leaf);
    memset(&col, 0, sizeof col);
    memset(&err, 0, sizeof err);
    leaf.max_def = max_def;
    leaf.max_rep = max_rep;
    type = t;
    col.leaf = &leaf;
    col.type = &type;
    col.path = "c";
    return &col;
}

/* ---- levels ----------------------------------------------------------------------------- */

START_TEST(test_levels_in_range)
{
    const column *c = column_of(inlay_type_physical(INLAY_INT32), 3, 1);
    static const int16_t def[] = { 0, 1, 2, 3, 3 }, rep[] = { 0, 1, 0, 1, 1 };
    ck_assert_int_eq(inl_validate_levels(c, def, rep, 5, &err), 0);
    ck_assert_int_eq(inl_validate_levels(c, NULL, NULL, 5, &err), 0);
    ck_assert_int_eq(inl_validate_levels(c, def, NULL, 5, &err), 0);
    ck_assert_int_eq(inl_validate_levels(c, NULL, NULL, 0, &err), 0);
}
END_TEST

START_TEST(test_def_out_of_range)
{
    const column *c = column_of(inlay_type_physical(INLAY_INT32), 1, 0);
    static const int16_t high[] = { 0, 1, 2, 1 }, low[] = { 1, -1 };
    ck_assert_int_eq(inl_validate_levels(c, high, NULL, 4, &err), INLAY_ERR_LEVEL);
    ck_assert_int_eq(err.status, INLAY_ERR_LEVEL);
    ck_assert_uint_eq(err.row, 2);
    ck_assert_ptr_nonnull(strstr(err.msg, "definition level 2"));
    ck_assert_int_eq(inl_validate_levels(c, low, NULL, 2, &err), INLAY_ERR_LEVEL);
    ck_assert_uint_eq(err.row, 1);
    /* a required column: only 0 */
    c = column_of(inlay_type_physical(INLAY_INT32), 0, 0);
    static const int16_t one[] = { 0, 0, 1 };
    ck_assert_int_eq(inl_validate_levels(c, one, NULL, 3, &err), INLAY_ERR_LEVEL);
    ck_assert_uint_eq(err.row, 2);
}
END_TEST

START_TEST(test_rep_out_of_range)
{
    const column *c = column_of(inlay_type_physical(INLAY_INT32), 2, 1);
    static const int16_t def[] = { 2, 2, 2 }, rep[] = { 0, 1, 2 }, mid[] = { 1, 0, 0 }, neg[] = { 0, -1, 0 };
    ck_assert_int_eq(inl_validate_levels(c, def, rep, 3, &err), INLAY_ERR_LEVEL);
    ck_assert_uint_eq(err.row, 2);
    ck_assert_ptr_nonnull(strstr(err.msg, "repetition level 2"));
    ck_assert_int_eq(inl_validate_levels(c, def, mid, 3, &err), INLAY_ERR_LEVEL);   /* must start a row */
    ck_assert_uint_eq(err.row, 0);
    ck_assert_int_eq(inl_validate_levels(c, def, neg, 3, &err), INLAY_ERR_LEVEL);
    ck_assert_uint_eq(err.row, 1);
}
END_TEST

/* ---- values ------------------------------------------------------------------------------- */

/* check_values of one int32 value */
static int i32(inlay_type t, int32_t v)
{
    const column *c = column_of(t, 0, 0);
    return inl_validate_values(c, &v, 1, &err);
}

static int i64(inlay_type t, int64_t v)
{
    const column *c = column_of(t, 0, 0);
    return inl_validate_values(c, &v, 1, &err);
}

START_TEST(test_int_ranges)
{
    ck_assert_int_eq(i32(inlay_type_int(8, true), -128), 0);
    ck_assert_int_eq(i32(inlay_type_int(8, true), 127), 0);
    ck_assert_int_eq(i32(inlay_type_int(8, true), 128), INLAY_ERR_VALUE);
    ck_assert_ptr_nonnull(strstr(err.msg, "128"));
    ck_assert_int_eq(i32(inlay_type_int(8, true), -129), INLAY_ERR_VALUE);
    ck_assert_int_eq(i32(inlay_type_int(8, false), 0), 0);
    ck_assert_int_eq(i32(inlay_type_int(8, false), 255), 0);
    ck_assert_int_eq(i32(inlay_type_int(8, false), 256), INLAY_ERR_VALUE);
    ck_assert_int_eq(i32(inlay_type_int(8, false), -1), INLAY_ERR_VALUE);
    ck_assert_int_eq(i32(inlay_type_int(16, true), -32768), 0);
    ck_assert_int_eq(i32(inlay_type_int(16, true), 32768), INLAY_ERR_VALUE);
    ck_assert_int_eq(i32(inlay_type_int(16, false), 65535), 0);
    ck_assert_int_eq(i32(inlay_type_int(16, false), 65536), INLAY_ERR_VALUE);
    ck_assert_int_eq(i32(inlay_type_int(16, false), -1), INLAY_ERR_VALUE);
    /* 32 and 64 bits: any bits (unsigned columns take the same bits) */
    ck_assert_int_eq(i32(inlay_type_int(32, false), -1), 0);
    ck_assert_int_eq(i32(inlay_type_int(32, true), INT32_MIN), 0);
    ck_assert_int_eq(i64(inlay_type_int(64, false), -1), 0);
    ck_assert_int_eq(i32(inlay_type_physical(INLAY_INT32), INT32_MIN), 0);
    ck_assert_int_eq(i32(inlay_type_date(), INT32_MIN), 0);
}
END_TEST

START_TEST(test_decimal_ranges)
{
    ck_assert_int_eq(i32(inlay_type_decimal(4, 2, INLAY_INT32, 0), 9999), 0);
    ck_assert_int_eq(i32(inlay_type_decimal(4, 2, INLAY_INT32, 0), -9999), 0);
    ck_assert_int_eq(i32(inlay_type_decimal(4, 2, INLAY_INT32, 0), 10000), INLAY_ERR_VALUE);
    ck_assert_int_eq(i32(inlay_type_decimal(4, 2, INLAY_INT32, 0), -10000), INLAY_ERR_VALUE);
    ck_assert_int_eq(i32(inlay_type_decimal(9, 0, INLAY_INT32, 0), 999999999), 0);
    ck_assert_int_eq(i32(inlay_type_decimal(9, 0, INLAY_INT32, 0), 1000000000), INLAY_ERR_VALUE);
    ck_assert_int_eq(i32(inlay_type_decimal(1, 0, INLAY_INT32, 0), 9), 0);
    ck_assert_int_eq(i32(inlay_type_decimal(1, 0, INLAY_INT32, 0), -10), INLAY_ERR_VALUE);
    ck_assert_int_eq(i64(inlay_type_decimal(18, 0, INLAY_INT64, 0), 999999999999999999LL), 0);
    ck_assert_int_eq(i64(inlay_type_decimal(18, 0, INLAY_INT64, 0), 1000000000000000000LL), INLAY_ERR_VALUE);
    ck_assert_int_eq(i64(inlay_type_decimal(10, 0, INLAY_INT64, 0), -9999999999LL), 0);
    ck_assert_int_eq(i64(inlay_type_decimal(10, 0, INLAY_INT64, 0), INT64_MIN), INLAY_ERR_VALUE);
}
END_TEST

START_TEST(test_time_ranges)
{
    ck_assert_int_eq(i32(inlay_type_time(INLAY_MILLIS, true), 0), 0);
    ck_assert_int_eq(i32(inlay_type_time(INLAY_MILLIS, true), 86399999), 0);
    ck_assert_int_eq(i32(inlay_type_time(INLAY_MILLIS, true), 86400000), INLAY_ERR_VALUE);
    ck_assert_int_eq(i32(inlay_type_time(INLAY_MILLIS, true), -1), INLAY_ERR_VALUE);
    ck_assert_int_eq(i64(inlay_type_time(INLAY_MICROS, false), 86399999999LL), 0);
    ck_assert_int_eq(i64(inlay_type_time(INLAY_MICROS, false), 86400000000LL), INLAY_ERR_VALUE);
    ck_assert_int_eq(i64(inlay_type_time(INLAY_NANOS, false), 86399999999999LL), 0);
    ck_assert_int_eq(i64(inlay_type_time(INLAY_NANOS, false), 86400000000000LL), INLAY_ERR_VALUE);
    /* timestamps have no range */
    ck_assert_int_eq(i64(inlay_type_timestamp(INLAY_NANOS, true), INT64_MIN), 0);
}
END_TEST

START_TEST(test_first_bad_entry)
{
    const column *c = column_of(inlay_type_int(8, true), 0, 0);
    static const int32_t v[] = { 1, 2, 300, 400 };
    ck_assert_int_eq(inl_validate_values(c, v, 4, &err), INLAY_ERR_VALUE);
    ck_assert_uint_eq(err.row, 2);
    ck_assert_int_eq(inl_validate_values(c, v, 2, &err), 0);     /* only n values are looked at */
}
END_TEST

START_TEST(test_fixed_width)
{
    const column *c = column_of(inlay_type_fixed(3), 0, 0);
    const inlay_bytes ok[] = { { "abc", 3 }, { "\0\0\0", 3 } };
    const inlay_bytes bad[] = { { "abc", 3 }, { "ab", 2 } };
    const inlay_bytes empty[] = { { NULL, 0 } };
    ck_assert_int_eq(inl_validate_values(c, ok, 2, &err), 0);
    ck_assert_int_eq(inl_validate_values(c, bad, 2, &err), INLAY_ERR_VALUE);
    ck_assert_uint_eq(err.row, 1);
    ck_assert_ptr_nonnull(strstr(err.msg, "3"));
    ck_assert_int_eq(inl_validate_values(c, empty, 1, &err), INLAY_ERR_VALUE);
}
END_TEST

START_TEST(test_null_data)
{
    const column *c = column_of(inlay_type_binary(), 0, 0);
    const inlay_bytes v[] = { { NULL, 0 }, { NULL, 1 } };
    ck_assert_int_eq(inl_validate_values(c, v, 1, &err), 0);      /* empty: data may be NULL */
    ck_assert_int_eq(inl_validate_values(c, v, 2, &err), INLAY_ERR_VALUE);
    ck_assert_uint_eq(err.row, 1);
}
END_TEST

START_TEST(test_text_columns)
{
    const inlay_bytes v[] = { { "ok", 2 }, { "\xFF", 1 } };
    ck_assert_int_eq(inl_validate_values(column_of(inlay_type_string(), 0, 0), v, 2, &err), INLAY_ERR_VALUE);
    ck_assert_uint_eq(err.row, 1);
    ck_assert_int_eq(inl_validate_values(column_of(inlay_type_json(), 0, 0), v, 2, &err), INLAY_ERR_VALUE);
    ck_assert_int_eq(inl_validate_values(column_of(inlay_type_enum(), 0, 0), v, 2, &err), INLAY_ERR_VALUE);
    ck_assert_int_eq(inl_validate_values(column_of(inlay_type_binary(), 0, 0), v, 2, &err), 0);
    ck_assert_int_eq(inl_validate_values(column_of(inlay_type_decimal(5, 0, INLAY_BYTE_ARRAY, 0), 0, 0), v, 2, &err), 0);
}
END_TEST

static Suite *validate_suite(void)
{
    Suite *s = suite_create("validate");
    TCase *c;

    c = tcase_create("levels");
    tcase_add_test(c, test_levels_in_range);
    tcase_add_test(c, test_def_out_of_range);
    tcase_add_test(c, test_rep_out_of_range);
    suite_add_tcase(s, c);

    c = tcase_create("value ranges");
    tcase_add_test(c, test_int_ranges);
    tcase_add_test(c, test_decimal_ranges);
    tcase_add_test(c, test_time_ranges);
    tcase_add_test(c, test_first_bad_entry);
    suite_add_tcase(s, c);

    c = tcase_create("byte values");
    tcase_add_test(c, test_fixed_width);
    tcase_add_test(c, test_null_data);
    tcase_add_test(c, test_text_columns);
    suite_add_tcase(s, c);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(validate_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
