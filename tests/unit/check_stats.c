/*
 * check_stats.c — column statistics (runtime/encode/stats.c): min/max in each
 * column's sort order (parquet.thrift ColumnOrder), NaN kept out, the
 * -0/+0 widening, byte orders, and the same bounds as they reach the
 * footer through the public API, with every encoding choice (the
 * dictionary path computes them from dictionary entries, PLAIN from the
 * values).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>

#include "stats.h"

#include "thrift_reader.h"
#include "unit.h"

static stats st;
static inlay_allocator alloc;

static void setup(void)
{
    memset(&st, 0, sizeof st);
    alloc = inl_mem_default();
}

static void teardown(void)
{
    inl_stats_free(&st, &alloc);
}

/* inl_stats_min_max gives exactly these PLAIN bytes. */
static void expect_min_max(int physical, const void *min, const void *max, size_t width)
{
    uint8_t lo[8], hi[8];
    size_t w = 0;
    ck_assert_msg(inl_stats_min_max(&st, physical, lo, hi, &w), "no min/max");
    ck_assert_uint_eq(w, width);
    ck_assert_bytes(lo, w, min, width);
    ck_assert_bytes(hi, w, max, width);
}

/* ---- integers --------------------------------------------------------------------- */

START_TEST(test_signed_i32)
{
    st.order = ORDER_SIGNED;
    const int32_t a[] = { -5, 3 }, b[] = { -100, 7 };
    inl_stats_update_i32(&st, a, 2);
    inl_stats_update_i32(&st, b, 2);
    const int32_t lo = -100, hi = 7;
    expect_min_max(INLAY_INT32, &lo, &hi, 4);
}
END_TEST

START_TEST(test_signed_i64)
{
    st.order = ORDER_SIGNED;
    const int64_t a[] = { 0, INT64_MAX, -1 }, b[] = { INT64_MIN };
    inl_stats_update_i64(&st, a, 3);
    inl_stats_update_i64(&st, b, 1);
    const int64_t lo = INT64_MIN, hi = INT64_MAX;
    expect_min_max(INLAY_INT64, &lo, &hi, 8);
}
END_TEST

START_TEST(test_unsigned_i32)
{
    st.order = ORDER_UNSIGNED;
    const int32_t a[] = { 5, -1, 0, INT32_MIN };    /* -1 is 0xFFFFFFFF */
    inl_stats_update_i32(&st, a, 4);
    const uint32_t lo = 0, hi = 0xFFFFFFFFu;
    expect_min_max(INLAY_INT32, &lo, &hi, 4);
}
END_TEST

START_TEST(test_unsigned_i32_high_min)
{
    /* both bounds above INT32_MAX, found over two batches */
    st.order = ORDER_UNSIGNED;
    const int32_t a[] = { -1 }, b[] = { (int32_t)0x80000001u, (int32_t)0x90000000u };
    inl_stats_update_i32(&st, a, 1);
    inl_stats_update_i32(&st, b, 2);
    const uint32_t lo = 0x80000001u, hi = 0xFFFFFFFFu;
    expect_min_max(INLAY_INT32, &lo, &hi, 4);
}
END_TEST

START_TEST(test_unsigned_i64)
{
    st.order = ORDER_UNSIGNED;
    const int64_t a[] = { 1, -1, INT64_MAX }, b[] = { 2 };
    inl_stats_update_i64(&st, a, 3);
    inl_stats_update_i64(&st, b, 1);
    const uint64_t lo = 1, hi = UINT64_MAX;
    expect_min_max(INLAY_INT64, &lo, &hi, 8);
}
END_TEST

START_TEST(test_bool)
{
    st.order = ORDER_UNSIGNED;
    const uint8_t f[] = { 0, 0 }, t[] = { 1, 1 };
    inl_stats_update_bool(&st, f, 2);
    expect_min_max(INLAY_BOOLEAN, "\0", "\0", 1);
    inl_stats_update_bool(&st, t, 2);
    expect_min_max(INLAY_BOOLEAN, "\0", "\1", 1);
    inl_stats_reset(&st);
    inl_stats_update_bool(&st, t, 2);
    expect_min_max(INLAY_BOOLEAN, "\1", "\1", 1);
}
END_TEST

START_TEST(test_reset)
{
    st.order = ORDER_SIGNED;
    const int32_t a[] = { -50, 50 }, b[] = { 1, 2 };
    inl_stats_update_i32(&st, a, 2);
    st.null_count = 3;
    inl_stats_reset(&st);
    ck_assert(!st.has_minmax);
    ck_assert_uint_eq(st.null_count, 0);
    uint8_t lo[8], hi[8];
    size_t w;
    ck_assert(!inl_stats_min_max(&st, INLAY_INT32, lo, hi, &w));
    inl_stats_update_i32(&st, b, 2);
    const int32_t l = 1, h = 2;
    expect_min_max(INLAY_INT32, &l, &h, 4);
}
END_TEST

/* ---- floating point ------------------------------------------------------------------ */

START_TEST(test_nan_ignored)
{
    st.order = ORDER_FLOAT;
    const float a[] = { NAN, 1.0f, -2.0f, NAN };
    inl_stats_update_float(&st, a, 4);
    const float lo = -2.0f, hi = 1.0f;
    expect_min_max(INLAY_FLOAT, &lo, &hi, 4);
}
END_TEST

START_TEST(test_all_nan)
{
    st.order = ORDER_FLOAT;
    const double a[] = { NAN, -NAN, NAN };
    inl_stats_update_double(&st, a, 3);
    uint8_t lo[8], hi[8];
    size_t w;
    ck_assert(!st.has_minmax);
    ck_assert(!inl_stats_min_max(&st, INLAY_DOUBLE, lo, hi, &w));
    /* a later batch with numbers sets them; the NaNs are still ignored */
    const double b[] = { NAN, 3.0 };
    inl_stats_update_double(&st, b, 2);
    const double three = 3.0;
    expect_min_max(INLAY_DOUBLE, &three, &three, 8);
}
END_TEST

START_TEST(test_infinities)
{
    st.order = ORDER_FLOAT;
    const double a[] = { NAN, INFINITY, -INFINITY, 0.5 };
    inl_stats_update_double(&st, a, 4);
    const double lo = -INFINITY, hi = INFINITY;
    expect_min_max(INLAY_DOUBLE, &lo, &hi, 8);
}
END_TEST

/* Min/max of one batch of floats, as inl_stats_min_max emits them. */
static void float_bounds(const float *v, size_t n, float *lo, float *hi)
{
    inl_stats_reset(&st);
    st.order = ORDER_FLOAT;
    inl_stats_update_float(&st, v, n);
    uint8_t l[8], h[8];
    size_t w;
    ck_assert(inl_stats_min_max(&st, INLAY_FLOAT, l, h, &w));
    ck_assert_uint_eq(w, 4);
    memcpy(lo, l, 4);
    memcpy(hi, h, 4);
}

#define ck_assert_float_bits(x, y) \
    ck_assert_msg(memcmp(&(float){ x }, &(float){ y }, 4) == 0, "%s is %a, want %a", #x, (double)(x), (double)(y))
#define ck_assert_double_bits(x, y) \
    ck_assert_msg(memcmp(&(double){ x }, &(double){ y }, 8) == 0, "%s is %a, want %a", #x, (x), (y))

START_TEST(test_zeros_float)
{
    /* a zero bound is written as -0 for min and +0 for max */
    float lo, hi;
    float_bounds((const float[]){ 0.0f }, 1, &lo, &hi);
    ck_assert_float_bits(lo, -0.0f);
    ck_assert_float_bits(hi, 0.0f);
    float_bounds((const float[]){ -0.0f }, 1, &lo, &hi);
    ck_assert_float_bits(lo, -0.0f);
    ck_assert_float_bits(hi, 0.0f);
    float_bounds((const float[]){ -0.0f, 5.0f }, 2, &lo, &hi);
    ck_assert_float_bits(lo, -0.0f);
    ck_assert_float_bits(hi, 5.0f);
    float_bounds((const float[]){ 0.0f, 2.0f }, 2, &lo, &hi);
    ck_assert_float_bits(lo, -0.0f);
    ck_assert_float_bits(hi, 2.0f);
    float_bounds((const float[]){ -3.0f, 0.0f }, 2, &lo, &hi);
    ck_assert_float_bits(lo, -3.0f);
    ck_assert_float_bits(hi, 0.0f);
    float_bounds((const float[]){ -3.0f, -0.0f }, 2, &lo, &hi);
    ck_assert_float_bits(lo, -3.0f);
    ck_assert_float_bits(hi, 0.0f);
    float_bounds((const float[]){ 0.0f, -0.0f, NAN }, 3, &lo, &hi);
    ck_assert_float_bits(lo, -0.0f);
    ck_assert_float_bits(hi, 0.0f);
}
END_TEST

START_TEST(test_zeros_double)
{
    st.order = ORDER_FLOAT;
    inl_stats_update_double(&st, (const double[]){ 0.0, 7.0 }, 2);
    uint8_t l[8], h[8];
    size_t w;
    ck_assert(inl_stats_min_max(&st, INLAY_DOUBLE, l, h, &w));
    double lo, hi;
    memcpy(&lo, l, 8);
    memcpy(&hi, h, 8);
    ck_assert_double_bits(lo, -0.0);
    ck_assert_double_bits(hi, 7.0);
    inl_stats_reset(&st);
    inl_stats_update_double(&st, (const double[]){ -1.0, -0.0 }, 2);
    ck_assert(inl_stats_min_max(&st, INLAY_DOUBLE, l, h, &w));
    memcpy(&lo, l, 8);
    memcpy(&hi, h, 8);
    ck_assert_double_bits(lo, -1.0);
    ck_assert_double_bits(hi, 0.0);
}
END_TEST

/* ---- byte orders ------------------------------------------------------------------ */

static void update_bytes(const char *p, size_t n)
{
    ck_assert_int_eq(inl_stats_update_bytes(&st, &alloc, (const uint8_t *)p, n), 0);
}

#define EXPECT_BYTES_BOUNDS(min, minlen, max, maxlen)                         \
    do {                                                                      \
        ck_assert(st.has_minmax);                                             \
        ck_assert_bytes(st.min_bytes.data, st.min_bytes.len, (min), (minlen)); \
        ck_assert_bytes(st.max_bytes.data, st.max_bytes.len, (max), (maxlen)); \
    } while (0)

START_TEST(test_bytes_empty_min)
{
    st.order = ORDER_BYTES;
    update_bytes("b", 1);
    update_bytes("", 0);
    update_bytes("a", 1);
    EXPECT_BYTES_BOUNDS("", 0, "b", 1);
}
END_TEST

START_TEST(test_bytes_empty_first)
{
    st.order = ORDER_BYTES;
    update_bytes(NULL, 0);
    update_bytes("a", 1);
    EXPECT_BYTES_BOUNDS("", 0, "a", 1);
}
END_TEST

START_TEST(test_bytes_unsigned)
{
    st.order = ORDER_BYTES;
    update_bytes("a", 1);
    update_bytes("\xFF", 1);
    update_bytes("\x80", 1);
    EXPECT_BYTES_BOUNDS("a", 1, "\xFF", 1);   /* signed bytes would make 0xFF and 0x80 the least */
}
END_TEST

START_TEST(test_bytes_prefix)
{
    st.order = ORDER_BYTES;
    update_bytes("ab", 2);
    update_bytes("a", 1);
    update_bytes("a\0", 2);
    EXPECT_BYTES_BOUNDS("a", 1, "ab", 2);
    ck_assert_int_lt(inl_stats_compare_bytes(ORDER_BYTES, (const uint8_t *)"a", 1, (const uint8_t *)"a\0", 2), 0);
    ck_assert_int_eq(inl_stats_compare_bytes(ORDER_BYTES, (const uint8_t *)"", 0, (const uint8_t *)"", 0), 0);
}
END_TEST

START_TEST(test_decimal_bytes_fixed)
{
    /* DECIMAL on FIXED_LEN_BYTE_ARRAY(2): big-endian two's complement */
    st.order = ORDER_DECIMAL_BYTES;
    update_bytes("\x00\x01", 2);    /* 1 */
    update_bytes("\xFF\xFF", 2);    /* -1 */
    update_bytes("\xFF\x00", 2);    /* -256 */
    update_bytes("\x7F\xFF", 2);    /* 32767 */
    update_bytes("\x80\x00", 2);    /* -32768 */
    update_bytes("\x00\x00", 2);    /* 0 */
    EXPECT_BYTES_BOUNDS("\x80\x00", 2, "\x7F\xFF", 2);
    /* and order among negatives */
    ck_assert_int_lt(inl_stats_compare_bytes(ORDER_DECIMAL_BYTES, (const uint8_t *)"\xFF\x00", 2,
                                         (const uint8_t *)"\xFF\xFF", 2), 0);
}
END_TEST

START_TEST(test_decimal_bytes_mixed_widths)
{
    /* DECIMAL on BYTE_ARRAY: the values need not share a width. The order
     * is that of the numbers: -256 < -1 < 127 < 256. */
    st.order = ORDER_DECIMAL_BYTES;
    update_bytes("\x01\x00", 2);    /* 256 */
    update_bytes("\x7F", 1);        /* 127 */
    update_bytes("\xFF", 1);        /* -1 */
    update_bytes("\xFF\x00", 2);    /* -256 */
    EXPECT_BYTES_BOUNDS("\xFF\x00", 2, "\x01\x00", 2);
}
END_TEST

/* IEEE half, little-endian */
static const uint8_t H_ONE[] = { 0x00, 0x3C }, H_MINUS_TWO[] = { 0x00, 0xC0 },
                     H_NAN[] = { 0x00, 0x7E }, H_ZERO[] = { 0x00, 0x00 },
                     H_MINUS_ZERO[] = { 0x00, 0x80 }, H_INF[] = { 0x00, 0x7C },
                     H_TINY[] = { 0x01, 0x00 }, H_MAX[] = { 0xFF, 0x7B };

START_TEST(test_half_to_float)
{
    ck_assert(inl_stats_half_to_float(0x3C00) == 1.0f);
    ck_assert(inl_stats_half_to_float(0xC000) == -2.0f);
    ck_assert(inl_stats_half_to_float(0x7BFF) == 65504.0f);
    ck_assert(inl_stats_half_to_float(0x0001) == ldexpf(1.0f, -24));
    ck_assert(inl_stats_half_to_float(0x03FF) == ldexpf(1023.0f, -24));
    ck_assert(inl_stats_half_to_float(0x0400) == ldexpf(1.0f, -14));
    ck_assert(inl_stats_half_to_float(0x7C00) == INFINITY);
    ck_assert(inl_stats_half_to_float(0xFC00) == -INFINITY);
    ck_assert(isnan(inl_stats_half_to_float(0x7E00)));
    ck_assert(isnan(inl_stats_half_to_float(0x7C01)));
    float nz = inl_stats_half_to_float(0x8000);
    ck_assert(nz == 0.0f && signbit(nz));
}
END_TEST

START_TEST(test_float16_order)
{
    st.order = ORDER_FLOAT16;
    const uint8_t *v[] = { H_ONE, H_NAN, H_MINUS_TWO, H_TINY, H_MAX, H_ZERO };
    for (size_t i = 0; i < 6; i++) ck_assert_int_eq(inl_stats_update_bytes(&st, &alloc, v[i], 2), 0);
    EXPECT_BYTES_BOUNDS(H_MINUS_TWO, 2, H_MAX, 2);
    ck_assert_int_eq(inl_stats_update_bytes(&st, &alloc, H_INF, 2), 0);
    EXPECT_BYTES_BOUNDS(H_MINUS_TWO, 2, H_INF, 2);
    /* byte order would put 0x0001 (tiny) above 0x3C00 (one) on the first byte: check value order */
    ck_assert_int_lt(inl_stats_compare_bytes(ORDER_FLOAT16, H_TINY, 2, H_ONE, 2), 0);
    ck_assert_int_lt(inl_stats_compare_bytes(ORDER_FLOAT16, H_MINUS_TWO, 2, H_MINUS_ZERO, 2), 0);
    ck_assert_int_lt(inl_stats_compare_bytes(ORDER_FLOAT16, H_MINUS_ZERO, 2, H_ZERO, 2), 0);
}
END_TEST

START_TEST(test_float16_all_nan)
{
    st.order = ORDER_FLOAT16;
    ck_assert_int_eq(inl_stats_update_bytes(&st, &alloc, H_NAN, 2), 0);
    ck_assert(!st.has_minmax);
}
END_TEST

START_TEST(test_float16_zeros)
{
    st.order = ORDER_FLOAT16;
    ck_assert_int_eq(inl_stats_update_bytes(&st, &alloc, H_ZERO, 2), 0);
    ck_assert_int_eq(inl_stats_update_bytes(&st, &alloc, H_MINUS_ZERO, 2), 0);
    EXPECT_BYTES_BOUNDS(H_MINUS_ZERO, 2, H_ZERO, 2);
}
END_TEST

START_TEST(test_float16_zeros_reversed)
{
    /* -0 first, then +0: still min -0, max +0 */
    st.order = ORDER_FLOAT16;
    ck_assert_int_eq(inl_stats_update_bytes(&st, &alloc, H_MINUS_ZERO, 2), 0);
    ck_assert_int_eq(inl_stats_update_bytes(&st, &alloc, H_ZERO, 2), 0);
    EXPECT_BYTES_BOUNDS(H_MINUS_ZERO, 2, H_ZERO, 2);
}
END_TEST

START_TEST(test_float16_compare_zeros)
{
    /* a three-way comparison: -0 before +0, each equal to itself */
    ck_assert_int_gt(inl_stats_compare_bytes(ORDER_FLOAT16, H_ZERO, 2, H_MINUS_ZERO, 2), 0);
    ck_assert_int_lt(inl_stats_compare_bytes(ORDER_FLOAT16, H_MINUS_ZERO, 2, H_ZERO, 2), 0);
    ck_assert_int_eq(inl_stats_compare_bytes(ORDER_FLOAT16, H_ZERO, 2, H_ZERO, 2), 0);
    ck_assert_int_eq(inl_stats_compare_bytes(ORDER_FLOAT16, H_MINUS_ZERO, 2, H_MINUS_ZERO, 2), 0);
    ck_assert_int_eq(inl_stats_compare_bytes(ORDER_FLOAT16, H_ONE, 2, H_ONE, 2), 0);
}
END_TEST

START_TEST(test_bytes_nomem)
{
    test_alloc ta = { .fail_at = 1, .fail_after = true };
    inlay_allocator a = test_allocator(&ta);
    st.order = ORDER_BYTES;
    ck_assert_int_eq(inl_stats_update_bytes(&st, &a, (const uint8_t *)"abc", 3), -1);
    inl_stats_free(&st, &a);
    ck_assert_no_leak(&ta);
}
END_TEST

/* ---- through the writer into the footer ----------------------------------------------- */

/* One column of type t, the encoding choice given by the loop index. */
static inlay_encoding_choice encoding_of(int i)
{
    static const inlay_encoding_choice e[] = { INLAY_ENCODING_AUTO, INLAY_ENCODING_PLAIN,
                                               INLAY_ENCODING_DICTIONARY };
    return e[i];
}

typedef struct one_column {
    inlay_buffer out;
    inlay_writer *w;
} one_column;

static void open_one(one_column *o, inlay_type t, inlay_repetition rep, int enc)
{
    inlay_schema *s = inlay_schema_create(NULL);
    inlay_column_options co;
    inlay_column_options_init(&co);
    co.encoding = encoding_of(enc);
    if (t.physical == INLAY_BOOLEAN && co.encoding == INLAY_ENCODING_DICTIONARY)
        co.encoding = INLAY_ENCODING_AUTO;
    ck_assert_int_gt(inlay_schema_add(s, 0, "c", rep, t, &co), 0);
    inlay_options opt;
    inlay_options_init(&opt);
    opt.compression = INLAY_UNCOMPRESSED;
    inlay_buffer_init(&o->out, NULL);
    ck_assert_int_eq(inlay_writer_open(&o->w, inlay_buffer_sink(&o->out), s, &opt), INLAY_OK);
    inlay_schema_free(s);
}

/* Close, read the footer, check the column has statistics. */
static fm_file *close_one(one_column *o, const fm_chunk **c)
{
    ck_assert_msg(inlay_writer_close(o->w) == INLAY_OK, "%s", inlay_writer_errmsg(o->w));
    inlay_writer_free(o->w);
    const char *why;
    fm_file *f = fm_read(o->out.data, o->out.len, &why);
    ck_assert_msg(f != NULL, "%s", why);
    inlay_buffer_free(&o->out);
    *c = fm_find(f, 0, "c");
    ck_assert_ptr_nonnull(*c);
    ck_assert((*c)->has_statistics);
    return f;
}

#define EXPECT_FOOTER_BOUNDS(c, lo, lolen, hi, hilen)                  \
    do {                                                               \
        ck_assert_int_ge((c)->min_len, 0);                             \
        ck_assert_int_ge((c)->max_len, 0);                             \
        ck_assert_bytes((c)->min, (size_t)(c)->min_len, (lo), (lolen)); \
        ck_assert_bytes((c)->max, (size_t)(c)->max_len, (hi), (hilen)); \
    } while (0)

START_TEST(test_footer_int32_signed)
{
    one_column o;
    open_one(&o, inlay_type_physical(INLAY_INT32), INLAY_REQUIRED, _i);
    const int32_t v[] = { -5, 3, -100, 3, -5 };
    ck_assert_int_eq(inlay_writer_append_i32(o.w, 0, v, 5, NULL), 0);
    const fm_chunk *c;
    fm_file *f = close_one(&o, &c);
    const int32_t lo = -100, hi = 3;
    EXPECT_FOOTER_BOUNDS(c, &lo, 4, &hi, 4);
    ck_assert_int_eq(c->null_count, 0);
    free(f);
}
END_TEST

START_TEST(test_footer_uint32)
{
    one_column o;
    open_one(&o, inlay_type_int(32, false), INLAY_REQUIRED, _i);
    const int32_t v[] = { 5, -1, 0, 7 };
    ck_assert_int_eq(inlay_writer_append_i32(o.w, 0, v, 4, NULL), 0);
    const fm_chunk *c;
    fm_file *f = close_one(&o, &c);
    EXPECT_FOOTER_BOUNDS(c, "\0\0\0\0", 4, "\xFF\xFF\xFF\xFF", 4);
    free(f);
}
END_TEST

START_TEST(test_footer_uint64)
{
    one_column o;
    open_one(&o, inlay_type_int(64, false), INLAY_REQUIRED, _i);
    const int64_t v[] = { 9, INT64_MIN, 3 };
    ck_assert_int_eq(inlay_writer_append_i64(o.w, 0, v, 3, NULL), 0);
    const fm_chunk *c;
    fm_file *f = close_one(&o, &c);
    const uint64_t lo = 3, hi = 0x8000000000000000ULL;
    EXPECT_FOOTER_BOUNDS(c, &lo, 8, &hi, 8);
    free(f);
}
END_TEST

START_TEST(test_footer_float_nan_zero)
{
    one_column o;
    open_one(&o, inlay_type_float(), INLAY_REQUIRED, _i);
    const float v[] = { NAN, 0.0f, 1.5f, NAN };
    ck_assert_int_eq(inlay_writer_append_float(o.w, 0, v, 4, NULL), 0);
    const fm_chunk *c;
    fm_file *f = close_one(&o, &c);
    const float lo = -0.0f, hi = 1.5f;
    EXPECT_FOOTER_BOUNDS(c, &lo, 4, &hi, 4);
    free(f);
}
END_TEST

START_TEST(test_footer_double_all_nan)
{
    one_column o;
    open_one(&o, inlay_type_double(), INLAY_OPTIONAL, _i);
    const double v[] = { NAN, NAN };
    const int16_t def[] = { 1, 0, 1 };
    inlay_levels lv = { def, NULL, NULL };
    ck_assert_int_eq(inlay_writer_append_double(o.w, 0, v, 3, &lv), 0);
    const fm_chunk *c;
    fm_file *f = close_one(&o, &c);
    ck_assert_int_eq(c->min_len, -1);
    ck_assert_int_eq(c->max_len, -1);
    ck_assert_int_eq(c->null_count, 1);
    free(f);
}
END_TEST

START_TEST(test_footer_double_zero)
{
    one_column o;
    open_one(&o, inlay_type_double(), INLAY_REQUIRED, _i);
    const double v[] = { 0.0, 0.0 };
    ck_assert_int_eq(inlay_writer_append_double(o.w, 0, v, 2, NULL), 0);
    const fm_chunk *c;
    fm_file *f = close_one(&o, &c);
    const double lo = -0.0, hi = 0.0;
    EXPECT_FOOTER_BOUNDS(c, &lo, 8, &hi, 8);
    free(f);
}
END_TEST

START_TEST(test_footer_string)
{
    one_column o;
    open_one(&o, inlay_type_string(), INLAY_OPTIONAL, _i);
    const inlay_bytes v[] = { bytes_of("b"), bytes_of(""), bytes_of("a"), bytes_of("b") };
    const int16_t def[] = { 1, 1, 0, 1, 1, 0 };
    inlay_levels lv = { def, NULL, NULL };
    ck_assert_int_eq(inlay_writer_append_bytes(o.w, 0, v, 6, &lv), 0);
    const fm_chunk *c;
    fm_file *f = close_one(&o, &c);
    EXPECT_FOOTER_BOUNDS(c, "", 0, "b", 1);
    ck_assert_int_eq(c->null_count, 2);
    free(f);
}
END_TEST

START_TEST(test_footer_binary_unsigned)
{
    one_column o;
    open_one(&o, inlay_type_binary(), INLAY_REQUIRED, _i);
    const inlay_bytes v[] = { bytes_of("a"), bytes_of("\xFF"), bytes_of("\x01\x02") };
    ck_assert_int_eq(inlay_writer_append_bytes(o.w, 0, v, 3, NULL), 0);
    const fm_chunk *c;
    fm_file *f = close_one(&o, &c);
    EXPECT_FOOTER_BOUNDS(c, "\x01\x02", 2, "\xFF", 1);
    free(f);
}
END_TEST

START_TEST(test_footer_decimal_fixed)
{
    one_column o;
    open_one(&o, inlay_type_decimal(4, 2, INLAY_FIXED_LEN_BYTE_ARRAY, 2), INLAY_REQUIRED, _i);
    const inlay_bytes v[] = { { "\x00\x01", 2 }, { "\xFF\x00", 2 }, { "\x7F\xFF", 2 }, { "\xFF\xFF", 2 } };
    ck_assert_int_eq(inlay_writer_append_bytes(o.w, 0, v, 4, NULL), 0);
    const fm_chunk *c;
    fm_file *f = close_one(&o, &c);
    EXPECT_FOOTER_BOUNDS(c, "\xFF\x00", 2, "\x7F\xFF", 2);
    free(f);
}
END_TEST

START_TEST(test_footer_decimal_byte_array)
{
    /* -256 < -1 < 127 < 256, in minimal big-endian widths */
    one_column o;
    open_one(&o, inlay_type_decimal(10, 2, INLAY_BYTE_ARRAY, 0), INLAY_REQUIRED, _i);
    const inlay_bytes v[] = { { "\x01\x00", 2 }, { "\x7F", 1 }, { "\xFF", 1 }, { "\xFF\x00", 2 } };
    ck_assert_int_eq(inlay_writer_append_bytes(o.w, 0, v, 4, NULL), 0);
    const fm_chunk *c;
    fm_file *f = close_one(&o, &c);
    EXPECT_FOOTER_BOUNDS(c, "\xFF\x00", 2, "\x01\x00", 2);
    free(f);
}
END_TEST

START_TEST(test_footer_float16)
{
    one_column o;
    open_one(&o, inlay_type_float16(), INLAY_REQUIRED, _i);
    const inlay_bytes v[] = { { H_ONE, 2 }, { H_NAN, 2 }, { H_MINUS_TWO, 2 }, { H_TINY, 2 } };
    ck_assert_int_eq(inlay_writer_append_bytes(o.w, 0, v, 4, NULL), 0);
    const fm_chunk *c;
    fm_file *f = close_one(&o, &c);
    EXPECT_FOOTER_BOUNDS(c, H_MINUS_TWO, 2, H_ONE, 2);
    free(f);
}
END_TEST

START_TEST(test_footer_float16_zero)
{
    /* zero bounds are written -0 for min, +0 for max, as for FLOAT */
    one_column o;
    open_one(&o, inlay_type_float16(), INLAY_REQUIRED, _i);
    const inlay_bytes v[] = { { H_ZERO, 2 }, { H_NAN, 2 } };
    ck_assert_int_eq(inlay_writer_append_bytes(o.w, 0, v, 2, NULL), 0);
    /* both zeros, in both orders */
    const inlay_bytes z[] = { { H_MINUS_ZERO, 2 }, { H_ZERO, 2 }, { H_MINUS_ZERO, 2 } };
    ck_assert_int_eq(inlay_writer_append_bytes(o.w, 0, z, 3, NULL), 0);
    const fm_chunk *c;
    fm_file *f = close_one(&o, &c);
    EXPECT_FOOTER_BOUNDS(c, H_MINUS_ZERO, 2, H_ZERO, 2);
    free(f);
}
END_TEST

START_TEST(test_footer_bool)
{
    one_column o;
    open_one(&o, inlay_type_boolean(), INLAY_REQUIRED, _i);
    const bool v[] = { true, false, true };
    ck_assert_int_eq(inlay_writer_append_bool(o.w, 0, v, 3, NULL), 0);
    const fm_chunk *c;
    fm_file *f = close_one(&o, &c);
    EXPECT_FOOTER_BOUNDS(c, "\0", 1, "\1", 1);
    free(f);
}
END_TEST

static Suite *stats_suite(void)
{
    Suite *s = suite_create("stats");
    TCase *c;

    c = tcase_create("integers");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_signed_i32);
    tcase_add_test(c, test_signed_i64);
    tcase_add_test(c, test_unsigned_i32);
    tcase_add_test(c, test_unsigned_i32_high_min);
    tcase_add_test(c, test_unsigned_i64);
    tcase_add_test(c, test_bool);
    tcase_add_test(c, test_reset);
    suite_add_tcase(s, c);

    c = tcase_create("floating point");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_nan_ignored);
    tcase_add_test(c, test_all_nan);
    tcase_add_test(c, test_infinities);
    tcase_add_test(c, test_zeros_float);
    tcase_add_test(c, test_zeros_double);
    suite_add_tcase(s, c);

    c = tcase_create("byte orders");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_bytes_empty_min);
    tcase_add_test(c, test_bytes_empty_first);
    tcase_add_test(c, test_bytes_unsigned);
    tcase_add_test(c, test_bytes_prefix);
    tcase_add_test(c, test_decimal_bytes_fixed);
    tcase_add_test(c, test_decimal_bytes_mixed_widths);
    tcase_add_test(c, test_bytes_nomem);
    suite_add_tcase(s, c);

    c = tcase_create("float16");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_half_to_float);
    tcase_add_test(c, test_float16_order);
    tcase_add_test(c, test_float16_all_nan);
    tcase_add_test(c, test_float16_zeros);
    tcase_add_test(c, test_float16_zeros_reversed);
    tcase_add_test(c, test_float16_compare_zeros);
    suite_add_tcase(s, c);

    /* loop index: AUTO, PLAIN, DICTIONARY */
    c = tcase_create("footer statistics");
    tcase_add_loop_test(c, test_footer_int32_signed, 0, 3);
    tcase_add_loop_test(c, test_footer_uint32, 0, 3);
    tcase_add_loop_test(c, test_footer_uint64, 0, 3);
    tcase_add_loop_test(c, test_footer_float_nan_zero, 0, 3);
    tcase_add_loop_test(c, test_footer_double_all_nan, 0, 3);
    tcase_add_loop_test(c, test_footer_double_zero, 0, 3);
    tcase_add_loop_test(c, test_footer_string, 0, 3);
    tcase_add_loop_test(c, test_footer_binary_unsigned, 0, 3);
    tcase_add_loop_test(c, test_footer_decimal_fixed, 0, 3);
    tcase_add_loop_test(c, test_footer_decimal_byte_array, 0, 3);
    tcase_add_loop_test(c, test_footer_float16, 0, 3);
    tcase_add_loop_test(c, test_footer_float16_zero, 0, 3);
    tcase_add_loop_test(c, test_footer_bool, 0, 2);
    suite_add_tcase(s, c);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(stats_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
