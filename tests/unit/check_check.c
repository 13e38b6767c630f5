/*
 * check_check.c — batch validation (runtime/check.c) called directly:
 * level ranges and row starts, value ranges of the logical types at their
 * exact limits, fixed widths, and UTF-8 (every class of invalid sequence,
 * at every offset around the 8-byte ASCII fast path).
 *
 * (The module is named check; this suite follows the check_<module>
 * pattern. The same rules through the public API, with their messages,
 * are in check_writer.c.)
 */
#define _POSIX_C_SOURCE 200809L
#include "check.h"

#include "unit.h"

static schema_leaf leaf;
static inlay_type type;
static column col;
static check_error err;

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
    ck_assert_int_eq(check_levels(c, def, rep, 5, &err), 0);
    ck_assert_int_eq(check_levels(c, NULL, NULL, 5, &err), 0);
    ck_assert_int_eq(check_levels(c, def, NULL, 5, &err), 0);
    ck_assert_int_eq(check_levels(c, NULL, NULL, 0, &err), 0);
}
END_TEST

START_TEST(test_def_out_of_range)
{
    const column *c = column_of(inlay_type_physical(INLAY_INT32), 1, 0);
    static const int16_t high[] = { 0, 1, 2, 1 }, low[] = { 1, -1 };
    ck_assert_int_eq(check_levels(c, high, NULL, 4, &err), INLAY_ERR_LEVEL);
    ck_assert_int_eq(err.status, INLAY_ERR_LEVEL);
    ck_assert_uint_eq(err.entry, 2);
    ck_assert_ptr_nonnull(strstr(err.what, "definition level 2"));
    ck_assert_int_eq(check_levels(c, low, NULL, 2, &err), INLAY_ERR_LEVEL);
    ck_assert_uint_eq(err.entry, 1);
    /* a required column: only 0 */
    c = column_of(inlay_type_physical(INLAY_INT32), 0, 0);
    static const int16_t one[] = { 0, 0, 1 };
    ck_assert_int_eq(check_levels(c, one, NULL, 3, &err), INLAY_ERR_LEVEL);
    ck_assert_uint_eq(err.entry, 2);
}
END_TEST

START_TEST(test_rep_out_of_range)
{
    const column *c = column_of(inlay_type_physical(INLAY_INT32), 2, 1);
    static const int16_t def[] = { 2, 2, 2 }, rep[] = { 0, 1, 2 }, mid[] = { 1, 0, 0 }, neg[] = { 0, -1, 0 };
    ck_assert_int_eq(check_levels(c, def, rep, 3, &err), INLAY_ERR_LEVEL);
    ck_assert_uint_eq(err.entry, 2);
    ck_assert_ptr_nonnull(strstr(err.what, "repetition level 2"));
    ck_assert_int_eq(check_levels(c, def, mid, 3, &err), INLAY_ERR_LEVEL);   /* must start a row */
    ck_assert_uint_eq(err.entry, 0);
    ck_assert_int_eq(check_levels(c, def, neg, 3, &err), INLAY_ERR_LEVEL);
    ck_assert_uint_eq(err.entry, 1);
}
END_TEST

/* ---- values ------------------------------------------------------------------------------- */

/* check_values of one int32 value */
static int i32(inlay_type t, int32_t v)
{
    const column *c = column_of(t, 0, 0);
    return check_values(c, &v, 1, &err);
}

static int i64(inlay_type t, int64_t v)
{
    const column *c = column_of(t, 0, 0);
    return check_values(c, &v, 1, &err);
}

START_TEST(test_int_ranges)
{
    ck_assert_int_eq(i32(inlay_type_int(8, true), -128), 0);
    ck_assert_int_eq(i32(inlay_type_int(8, true), 127), 0);
    ck_assert_int_eq(i32(inlay_type_int(8, true), 128), INLAY_ERR_VALUE);
    ck_assert_ptr_nonnull(strstr(err.what, "128"));
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
    ck_assert_int_eq(check_values(c, v, 4, &err), INLAY_ERR_VALUE);
    ck_assert_uint_eq(err.entry, 2);
    ck_assert_int_eq(check_values(c, v, 2, &err), 0);     /* only n values are looked at */
}
END_TEST

START_TEST(test_fixed_width)
{
    const column *c = column_of(inlay_type_fixed(3), 0, 0);
    const inlay_bytes ok[] = { { "abc", 3 }, { "\0\0\0", 3 } };
    const inlay_bytes bad[] = { { "abc", 3 }, { "ab", 2 } };
    const inlay_bytes empty[] = { { NULL, 0 } };
    ck_assert_int_eq(check_values(c, ok, 2, &err), 0);
    ck_assert_int_eq(check_values(c, bad, 2, &err), INLAY_ERR_VALUE);
    ck_assert_uint_eq(err.entry, 1);
    ck_assert_ptr_nonnull(strstr(err.what, "3"));
    ck_assert_int_eq(check_values(c, empty, 1, &err), INLAY_ERR_VALUE);
}
END_TEST

START_TEST(test_null_data)
{
    const column *c = column_of(inlay_type_binary(), 0, 0);
    const inlay_bytes v[] = { { NULL, 0 }, { NULL, 1 } };
    ck_assert_int_eq(check_values(c, v, 1, &err), 0);      /* empty: data may be NULL */
    ck_assert_int_eq(check_values(c, v, 2, &err), INLAY_ERR_VALUE);
    ck_assert_uint_eq(err.entry, 1);
}
END_TEST

START_TEST(test_text_columns)
{
    const inlay_bytes v[] = { { "ok", 2 }, { "\xFF", 1 } };
    ck_assert_int_eq(check_values(column_of(inlay_type_string(), 0, 0), v, 2, &err), INLAY_ERR_VALUE);
    ck_assert_uint_eq(err.entry, 1);
    ck_assert_int_eq(check_values(column_of(inlay_type_json(), 0, 0), v, 2, &err), INLAY_ERR_VALUE);
    ck_assert_int_eq(check_values(column_of(inlay_type_enum(), 0, 0), v, 2, &err), INLAY_ERR_VALUE);
    ck_assert_int_eq(check_values(column_of(inlay_type_binary(), 0, 0), v, 2, &err), 0);
    ck_assert_int_eq(check_values(column_of(inlay_type_decimal(5, 0, INLAY_BYTE_ARRAY, 0), 0, 0), v, 2, &err), 0);
}
END_TEST

/* ---- UTF-8 --------------------------------------------------------------------------------- */

typedef struct seq {
    const char *bytes;
    size_t len;
    const char *what;
} seq;

#define SEQ(s, what) { s, sizeof s - 1, what }

static const seq valid[] = {
    SEQ("", "empty"), SEQ("a", "ASCII"), SEQ("\x7F", "DEL"),
    SEQ("\xC2\x80", "U+0080"), SEQ("\xDF\xBF", "U+07FF"), SEQ("\xC3\xA9", "U+00E9"),
    SEQ("\xE0\xA0\x80", "U+0800"), SEQ("\xE2\x82\xAC", "U+20AC"), SEQ("\xED\x9F\xBF", "U+D7FF"),
    SEQ("\xEE\x80\x80", "U+E000"), SEQ("\xEF\xBF\xBF", "U+FFFF"),
    SEQ("\xF0\x90\x80\x80", "U+10000"), SEQ("\xF0\x9D\x84\x9E", "U+1D11E"), SEQ("\xF4\x8F\xBF\xBF", "U+10FFFF"),
};

static const seq invalid[] = {
    SEQ("\x80", "lone continuation"), SEQ("\xBF", "lone continuation"),
    SEQ("\xC0\x80", "overlong U+0000"), SEQ("\xC1\xBF", "overlong U+007F"),
    SEQ("\xE0\x80\x80", "overlong 3 bytes"), SEQ("\xE0\x9F\xBF", "overlong U+07FF"),
    SEQ("\xF0\x80\x80\x80", "overlong 4 bytes"), SEQ("\xF0\x8F\xBF\xBF", "overlong U+FFFF"),
    SEQ("\xED\xA0\x80", "surrogate U+D800"), SEQ("\xED\xBF\xBF", "surrogate U+DFFF"),
    SEQ("\xF4\x90\x80\x80", "U+110000"), SEQ("\xF5\x80\x80\x80", "lead F5"),
    SEQ("\xF8\x88\x80\x80\x80", "5-byte form"), SEQ("\xFE", "FE"), SEQ("\xFF", "FF"),
    SEQ("\xC3", "truncated 2"), SEQ("\xE2\x82", "truncated 3"), SEQ("\xF0\x9D\x84", "truncated 4"),
    SEQ("\xC3\x41", "ASCII as continuation"), SEQ("\xE2\x28\xA1", "bad second byte"),
    SEQ("\xE2\x82\x28", "bad third byte"), SEQ("\xF0\x9D\x84\x28", "bad fourth byte"),
    SEQ("\xC3\xA9\xA9", "extra continuation"),
};

START_TEST(test_utf8_sequences)
{
    for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++)
        ck_assert_msg(check_utf8((const uint8_t *)valid[i].bytes, valid[i].len), "%s rejected", valid[i].what);
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++)
        ck_assert_msg(!check_utf8((const uint8_t *)invalid[i].bytes, invalid[i].len), "%s accepted", invalid[i].what);
}
END_TEST

START_TEST(test_utf8_every_offset)
{
    /* each sequence with 0..24 ASCII bytes before and 0..24 after: the
     * verdict must not depend on where the 8-byte blocks fall */
    uint8_t text[64];
    unsigned long wrong = 0;
    char first[96] = "";
    for (int pass = 0; pass < 2; pass++) {
        const seq *set = pass ? invalid : valid;
        size_t n = pass ? sizeof invalid / sizeof invalid[0] : sizeof valid / sizeof valid[0];
        for (size_t i = 0; i < n; i++)
            for (size_t pre = 0; pre <= 24; pre++)
                for (size_t post = 0; post <= 24; post++) {
                    memset(text, 'x', pre);
                    memcpy(text + pre, set[i].bytes, set[i].len);
                    memset(text + pre + set[i].len, 'y', post);
                    bool ok = check_utf8(text, pre + set[i].len + post);
                    if (ok != !pass && !wrong++)
                        snprintf(first, sizeof first, "%s with %zu bytes before, %zu after", set[i].what, pre, post);
                }
    }
    ck_assert_msg(wrong == 0, "%lu wrong verdicts; the first: %s", wrong, first);
}
END_TEST

START_TEST(test_utf8_ascii_lengths)
{
    uint8_t text[40];
    memset(text, 'a', sizeof text);
    for (size_t n = 0; n <= sizeof text; n++) ck_assert(check_utf8(text, n));
    /* a high byte at every position of every length */
    for (size_t n = 1; n <= sizeof text; n++)
        for (size_t at = 0; at < n; at++) {
            text[at] = 0x80;
            ck_assert_msg(!check_utf8(text, n), "0x80 at %zu of %zu accepted", at, n);
            text[at] = 'a';
        }
}
END_TEST

START_TEST(test_utf8_long_text)
{
    /* mixed text, valid, then spoiled at one place */
    char text[4000];
    size_t n = 0;
    static const char *parts[] = { "plain ", "caf\xC3\xA9 ", "\xE2\x82\xAC" "5 ", "\xF0\x9D\x84\x9E ", "12345678" };
    for (int i = 0; n + 16 < sizeof text; i++) {
        size_t l = strlen(parts[i % 5]);
        memcpy(text + n, parts[i % 5], l);
        n += l;
    }
    ck_assert(check_utf8((const uint8_t *)text, n));
    text[n - 3] = (char)0xC3;
    ck_assert(!check_utf8((const uint8_t *)text, n - 2));    /* truncated at the end */
}
END_TEST

static Suite *check_suite(void)
{
    Suite *s = suite_create("check");
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

    c = tcase_create("utf-8");
    tcase_add_test(c, test_utf8_sequences);
    tcase_add_test(c, test_utf8_every_offset);
    tcase_add_test(c, test_utf8_ascii_lengths);
    tcase_add_test(c, test_utf8_long_text);
    suite_add_tcase(s, c);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(check_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
