/*
 * check_types.c — the type traits table (runtime/base/types.c): widths,
 * byte and UTF-8 types, integer ranges, sort orders, validity, and names
 * that read back as the same type.
 */
#include "types.h"

#include "unit.h"

static inlay_type every_type[32];

/* Field by field: struct copies need not keep padding bytes. */
static bool same_type(const inlay_type *a, const inlay_type *b)
{
    return a->physical == b->physical && a->logical == b->logical && a->type_length == b->type_length &&
           a->precision == b->precision && a->scale == b->scale && a->bit_width == b->bit_width &&
           a->is_signed == b->is_signed && a->utc == b->utc && a->unit == b->unit;
}

static size_t all_types(void)
{
    size_t n = 0;
    inlay_type *t = every_type;
    t[n++] = inlay_type_boolean();
    t[n++] = inlay_type_float();
    t[n++] = inlay_type_double();
    t[n++] = inlay_type_binary();
    t[n++] = inlay_type_fixed(7);
    t[n++] = inlay_type_string();
    t[n++] = inlay_type_enum();
    t[n++] = inlay_type_json();
    t[n++] = inlay_type_uuid();
    t[n++] = inlay_type_float16();
    t[n++] = inlay_type_date();
    for (int u = INLAY_MILLIS; u <= INLAY_NANOS; u++) {
        t[n++] = inlay_type_time((inlay_time_unit)u, u == INLAY_MICROS);
        t[n++] = inlay_type_timestamp((inlay_time_unit)u, u != INLAY_MICROS);
    }
    for (int bits = 8; bits <= 64; bits *= 2) {
        t[n++] = inlay_type_int(bits, true);
        t[n++] = inlay_type_int(bits, false);
    }
    t[n++] = inlay_type_decimal(9, 2, INLAY_INT32, 0);
    t[n++] = inlay_type_decimal(18, 0, INLAY_INT64, 0);
    t[n++] = inlay_type_decimal(38, 10, INLAY_FIXED_LEN_BYTE_ARRAY, 16);
    return n;
}

START_TEST(test_widths)
{
    inlay_type i8 = inlay_type_int(8, true), fx = inlay_type_fixed(5), s = inlay_type_string();
    ck_assert_uint_eq(inl_type_value_size(&i8), sizeof(int32_t));
    ck_assert_uint_eq(inl_type_plain_width(&i8), 4);
    ck_assert_uint_eq(inl_type_value_size(&fx), sizeof(inlay_bytes));
    ck_assert_uint_eq(inl_type_plain_width(&fx), 5);
    ck_assert_uint_eq(inl_type_value_size(&s), sizeof(inlay_bytes));
    ck_assert_uint_eq(inl_type_plain_width(&s), 0);
    inlay_type b = inlay_type_boolean(), d = inlay_type_double(), ts = inlay_type_timestamp(INLAY_NANOS, true);
    ck_assert_uint_eq(inl_type_value_size(&b), sizeof(bool));
    ck_assert_uint_eq(inl_type_value_size(&d), 8);
    ck_assert_uint_eq(inl_type_value_size(&ts), 8);
    ck_assert(inl_type_is_bytes(&fx) && inl_type_is_bytes(&s) && !inl_type_is_bytes(&d));
}
END_TEST

START_TEST(test_utf8_types)
{
    size_t n = all_types();
    int utf8 = 0;
    for (size_t i = 0; i < n; i++) utf8 += inl_type_is_utf8(&every_type[i]);
    ck_assert_int_eq(utf8, 3);   /* string, enum, json */
    inlay_type j = inlay_type_json();
    ck_assert(inl_type_is_utf8(&j));
}
END_TEST

START_TEST(test_int_ranges)
{
    int64_t lo, hi;
    inlay_type t = inlay_type_int(8, true);
    ck_assert(inl_type_int_range(&t, &lo, &hi));
    ck_assert(lo == -128 && hi == 127);
    t = inlay_type_int(32, false);
    ck_assert(inl_type_int_range(&t, &lo, &hi));
    ck_assert(lo == 0 && hi == 4294967295LL);
    t = inlay_type_int(64, false);
    ck_assert(!inl_type_int_range(&t, &lo, &hi));
    t = inlay_type_decimal(5, 2, INLAY_INT32, 0);
    ck_assert(inl_type_int_range(&t, &lo, &hi));
    ck_assert(lo == -99999 && hi == 99999);
    t = inlay_type_time(INLAY_MILLIS, false);
    ck_assert(inl_type_int_range(&t, &lo, &hi));
    ck_assert(lo == 0 && hi == 86399999);
    t = inlay_type_date();
    ck_assert(inl_type_int_range(&t, &lo, &hi));
    ck_assert(lo == INT32_MIN && hi == INT32_MAX);
    t = inlay_type_double();
    ck_assert(!inl_type_int_range(&t, &lo, &hi));
}
END_TEST

START_TEST(test_sort_orders)
{
    inlay_type t = inlay_type_int(16, false);
    ck_assert_int_eq(inl_type_sort_order(&t), ORDER_UNSIGNED);
    t = inlay_type_int(16, true);
    ck_assert_int_eq(inl_type_sort_order(&t), ORDER_SIGNED);
    t = inlay_type_float16();
    ck_assert_int_eq(inl_type_sort_order(&t), ORDER_FLOAT16);
    t = inlay_type_decimal(20, 2, INLAY_FIXED_LEN_BYTE_ARRAY, 9);
    ck_assert_int_eq(inl_type_sort_order(&t), ORDER_DECIMAL_BYTES);
    t = inlay_type_decimal(9, 2, INLAY_INT32, 0);
    ck_assert_int_eq(inl_type_sort_order(&t), ORDER_SIGNED);
    t = inlay_type_string();
    ck_assert_int_eq(inl_type_sort_order(&t), ORDER_BYTES);
    t = inlay_type_boolean();
    ck_assert_int_eq(inl_type_sort_order(&t), ORDER_UNSIGNED);
}
END_TEST

START_TEST(test_check)
{
    char why[128];
    size_t n = all_types();
    for (size_t i = 0; i < n; i++) ck_assert_int_eq(inl_type_check(&every_type[i], why, sizeof why), 0);
    inlay_type t = inlay_type_physical(INLAY_INT64);
    ck_assert_int_eq(inl_type_check(&t, why, sizeof why), 0);
    t = inlay_type_string();
    t.physical = INLAY_INT32;
    ck_assert_int_eq(inl_type_check(&t, why, sizeof why), -1);
    ck_assert_str_eq(why, "STRING, ENUM and JSON annotate BYTE_ARRAY");
    t = inlay_type_decimal(10, 2, INLAY_INT32, 0);
    ck_assert_int_eq(inl_type_check(&t, why, sizeof why), -1);
    ck_assert_str_eq(why, "decimal precision 10 out of range 1..9 for its physical type");
    t = inlay_type_decimal(5, 6, INLAY_INT32, 0);
    ck_assert_int_eq(inl_type_check(&t, why, sizeof why), -1);
    ck_assert_str_eq(why, "decimal scale 6 out of range 0..5");
    t = inlay_type_fixed(0);
    ck_assert_int_eq(inl_type_check(&t, why, sizeof why), -1);
    t = inlay_type_int(12, true);
    ck_assert_int_eq(inl_type_check(&t, why, sizeof why), -1);
    t = inlay_type_time(INLAY_MILLIS, false);
    t.physical = INLAY_INT64;
    ck_assert_int_eq(inl_type_check(&t, why, sizeof why), -1);
    t.logical = (inlay_logical)99;
    ck_assert_int_eq(inl_type_check(&t, why, sizeof why), -1);
    ck_assert_str_eq(why, "unknown logical type 99");
}
END_TEST

START_TEST(test_names)
{
    char name[64];
    inlay_type t = inlay_type_timestamp(INLAY_MICROS, true);
    inl_type_name(&t, name, sizeof name);
    ck_assert_str_eq(name, "timestamp(us, utc)");
    t = inlay_type_time(INLAY_MILLIS, false);
    inl_type_name(&t, name, sizeof name);
    ck_assert_str_eq(name, "time(ms)");
    t = inlay_type_int(16, false);
    inl_type_name(&t, name, sizeof name);
    ck_assert_str_eq(name, "uint16");
    t = inlay_type_decimal(10, 2, INLAY_INT64, 0);
    inl_type_name(&t, name, sizeof name);
    ck_assert_str_eq(name, "decimal(10,2)");
    t = inlay_type_fixed(16);
    inl_type_name(&t, name, sizeof name);
    ck_assert_str_eq(name, "fixed(16)");
    t = inlay_type_binary();
    ck_assert_uint_eq(inl_type_name(&t, name, 3), 6);   /* the length it needs, as snprintf */
    ck_assert_str_eq(name, "bi");
}
END_TEST

START_TEST(test_names_read_back)
{
    size_t n = all_types();
    for (size_t i = 0; i < n; i++) {
        char name[64];
        inlay_type back;
        size_t len = inl_type_name(&every_type[i], name, sizeof name);
        ck_assert_msg(inl_type_parse(name, len, &back), "'%s' does not parse", name);
        ck_assert_msg(same_type(&back, &every_type[i]), "'%s' reads back as another type", name);
    }
    static const char *const bad[] = { "", "int", "int12", "uint", "timestamp", "timestamp(s)", "time(us,utc)",
                                       "decimal(0,0)", "decimal(5,6)", "decimal(77,0)", "fixed(0)", "fixed()",
                                       "fixed(3", "strings", "INT8" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        inlay_type t;
        ck_assert_msg(!inl_type_parse(bad[i], strlen(bad[i]), &t), "'%s' parsed", bad[i]);
    }
    inlay_type t, i32 = inlay_type_int(32, true);
    ck_assert(inl_type_parse("int32", 5, &t));
    ck_assert(same_type(&t, &i32));
    ck_assert(inl_type_parse("decimal(40, 3)", 14, &t));
    ck_assert_int_eq(t.physical, INLAY_FIXED_LEN_BYTE_ARRAY);
    ck_assert_int_eq(t.type_length, inl_decimal_width(40));
    ck_assert_int_eq(inl_decimal_max_precision(t.type_length) >= 40, 1);
    ck_assert_int_eq(inl_decimal_max_precision(t.type_length - 1) < 40, 1);
}
END_TEST

START_TEST(test_public_face)
{
    char name[8];
    inlay_type t = inlay_type_timestamp(INLAY_NANOS, false), back;
    ck_assert_uint_eq(inlay_type_name(&t, name, sizeof name), strlen("timestamp(ns)"));
    ck_assert_str_eq(name, "timesta");   /* cut, NUL-terminated */
    ck_assert(inlay_type_parse("timestamp(ns)", 13, &back));
    ck_assert(same_type(&back, &t));
    ck_assert(!inlay_type_parse(NULL, 0, &back));
    ck_assert_uint_eq(inlay_type_name(NULL, name, sizeof name), 0);
    inlay_type u = inlay_type_uuid();
    ck_assert_uint_eq(inlay_type_value_size(&u), sizeof(inlay_bytes));
    ck_assert_uint_eq(inlay_type_value_size(NULL), 0);
    int64_t lo, hi;
    inlay_type d = inlay_type_decimal(3, 1, INLAY_INT32, 0);
    ck_assert(inlay_type_int_range(&d, &lo, &hi) && lo == -999 && hi == 999);
    ck_assert(!inlay_type_int_range(NULL, &lo, &hi));
    inlay_type e = inlay_type_enum();
    ck_assert(inlay_type_is_utf8(&e) && !inlay_type_is_utf8(&u) && !inlay_type_is_utf8(NULL));
    /* width 0 on FIXED_LEN_BYTE_ARRAY: the narrowest that holds the precision */
    inlay_type w = inlay_type_decimal(38, 4, INLAY_FIXED_LEN_BYTE_ARRAY, 0);
    ck_assert_int_eq(w.type_length, 16);
    w = inlay_type_decimal(39, 4, INLAY_FIXED_LEN_BYTE_ARRAY, 0);
    ck_assert_int_eq(w.type_length, 17);
    w = inlay_type_decimal(76, 0, INLAY_FIXED_LEN_BYTE_ARRAY, 0);
    ck_assert_int_eq(w.type_length, 32);
    w = inlay_type_decimal(5, 0, INLAY_FIXED_LEN_BYTE_ARRAY, 7);
    ck_assert_int_eq(w.type_length, 7);
    ck_assert_int_eq(inl_decimal_width(1), 1);
    ck_assert_int_eq(inl_decimal_width(INT32_MAX) > 0, 1);   /* large: finite, no overflow */
}
END_TEST

static Suite *types_suite(void)
{
    Suite *s = suite_create("types");
    TCase *c = tcase_create("traits");
    tcase_add_test(c, test_widths);
    tcase_add_test(c, test_utf8_types);
    tcase_add_test(c, test_int_ranges);
    tcase_add_test(c, test_sort_orders);
    tcase_add_test(c, test_check);
    suite_add_tcase(s, c);
    c = tcase_create("names");
    tcase_add_test(c, test_names);
    tcase_add_test(c, test_names_read_back);
    tcase_add_test(c, test_public_face);
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(types_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
