/*
 * check_stats.c — column statistics (runtime/encode/stats.c): min/max in each
 * column's sort order (parquet.thrift ColumnOrder), NaN kept out, the
 * -0/+0 widening, byte orders, and the same bounds as they reach the
 * footer through the public API, with every encoding choice (the
 * dictionary path computes them from dictionary entries, PLAIN from the
 * values); the truncation of long byte bounds (a prefix for the min, a
 * rounded-up prefix for the max, UTF-8 kept whole), the fold of page
 * statistics into a chunk's, and the comparison of PLAIN values the
 * boundary order is found by.
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

/* Long arrays take the vector rounds: their bounds, signed and unsigned,
 * equal a plain loop's wherever the extremes sit and whatever the tail. */
START_TEST(test_i64_long_arrays)
{
    static int64_t v[1100];
    uint64_t seed = 7;
    const size_t sizes[] = { 64, 65, 71, 100, 1000, 1099 };
    for (int order = 0; order < 2; order++)
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
            for (int trial = 0; trial < 20; trial++) {
                const size_t n = sizes[z];
                for (size_t i = 0; i < n; i++) {
                    uint64_t r = rng_next(&seed);
                    /* small values around zero and the range's ends, so the signed and unsigned answers differ */
                    v[i] = trial % 3 == 0 ? (int64_t)(r % 2001) - 1000 : (int64_t)r;
                }
                if (trial % 4 == 1) v[n - 1] = INT64_MIN;   /* an extreme in the tail or a lane */
                if (trial % 4 == 2) v[rng_next(&seed) % n] = INT64_MAX;
                if (trial % 4 == 3) v[0] = -1;
                int64_t lo = v[0], hi = v[0];
                for (size_t i = 1; i < n; i++) {
                    if (order ? (uint64_t)v[i] < (uint64_t)lo : v[i] < lo) lo = v[i];
                    if (order ? (uint64_t)v[i] > (uint64_t)hi : v[i] > hi) hi = v[i];
                }
                inl_stats_reset(&st);
                st.order = order ? ORDER_UNSIGNED : ORDER_SIGNED;
                inl_stats_update_i64(&st, v, n);
                expect_min_max(INLAY_INT64, &lo, &hi, 8);
            }
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

/* Two strings into s. */
static void update_bytes_into(stats *s, const char *a, const char *b)
{
    ck_assert_int_eq(inl_stats_update_bytes(s, &alloc, (const uint8_t *)a, strlen(a)), 0);
    ck_assert_int_eq(inl_stats_update_bytes(s, &alloc, (const uint8_t *)b, strlen(b)), 0);
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

/* ---- truncation of byte bounds (inl_stats_truncate) ---------------------------------- */

/* Bounds of min[0..minlen) and max[0..maxlen) after inl_stats_truncate. */
typedef struct cut {
    stats_bounds b;
    buf scratch;
} cut;

static void do_cut(cut *c, const void *min, size_t minlen, const void *max, size_t maxlen, size_t limit,
                   bool utf8)
{
    memset(c, 0, sizeof *c);
    c->b.min = min;
    c->b.max = max;
    c->b.min_len = minlen;
    c->b.max_len = maxlen;
    c->b.min_exact = c->b.max_exact = true;
    ck_assert_int_eq(inl_stats_truncate(&c->b, limit, utf8, &c->scratch, &alloc), 0);
}

static void cut_free(cut *c)
{
    inl_buf_free(&c->scratch, &alloc);
}

/* Unsigned bytewise comparison, written here rather than taken from the module. */
static int bytewise(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    for (size_t i = 0; i < alen && i < blen; i++)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return (alen > blen) - (alen < blen);
}

#define EXPECT_CUT_MIN(c, want, wantlen, exact)                                     \
    do {                                                                           \
        ck_assert_bytes((c)->b.min, (c)->b.min_len, (want), (wantlen));            \
        ck_assert_msg((c)->b.min_exact == (exact), "min_exact is %d", (c)->b.min_exact); \
    } while (0)
#define EXPECT_CUT_MAX(c, want, wantlen, exact)                                     \
    do {                                                                           \
        ck_assert_bytes((c)->b.max, (c)->b.max_len, (want), (wantlen));            \
        ck_assert_msg((c)->b.max_exact == (exact), "max_exact is %d", (c)->b.max_exact); \
    } while (0)

START_TEST(test_cut_binary_trailing_ff)
{
    /* cut to 5: "abc" FF FF; the FFs have no successor byte, so they go and
     * 'c' becomes 'd' */
    static const char v[] = "abc\xFF\xFF\xFFzz";
    cut c;
    do_cut(&c, v, 8, v, 8, 5, false);
    EXPECT_CUT_MIN(&c, "abc\xFF\xFF", 5, false);
    EXPECT_CUT_MAX(&c, "abd", 3, false);
    ck_assert_int_gt(bytewise(c.b.max, c.b.max_len, (const uint8_t *)v, 8), 0);
    ck_assert_int_lt(bytewise(c.b.min, c.b.min_len, (const uint8_t *)v, 8), 0);
    cut_free(&c);
}
END_TEST

START_TEST(test_cut_binary_increment)
{
    /* no 0xFF: the byte at the cut is incremented, 0xFE to 0xFF included */
    static const char v[] = "ab\xFE" "cdef";
    cut c;
    do_cut(&c, "a", 1, v, 7, 3, false);
    EXPECT_CUT_MIN(&c, "a", 1, true);
    EXPECT_CUT_MAX(&c, "ab\xFF", 3, false);
    cut_free(&c);
}
END_TEST

START_TEST(test_cut_all_ff)
{
    /* a max of nothing but 0xFF has no shorter upper bound: kept whole and exact */
    uint8_t v[10];
    memset(v, 0xFF, sizeof v);
    cut c;
    do_cut(&c, v, 10, v, 10, 4, false);
    EXPECT_CUT_MAX(&c, v, 10, true);
    EXPECT_CUT_MIN(&c, v, 4, false);
    cut_free(&c);
    /* 0xFF only up to the limit, then other bytes: still no shorter bound */
    uint8_t w[8] = { 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x02, 0x03, 0x04 };
    do_cut(&c, w, 8, w, 8, 4, false);
    EXPECT_CUT_MAX(&c, w, 8, true);
    cut_free(&c);
}
END_TEST

START_TEST(test_cut_min_prefix)
{
    cut c;
    do_cut(&c, "abcdefgh", 8, "zz", 2, 3, false);
    EXPECT_CUT_MIN(&c, "abc", 3, false);
    EXPECT_CUT_MAX(&c, "zz", 2, true);      /* within the limit: untouched */
    cut_free(&c);
    /* a utf8 min is cut the same way when the cut falls between characters */
    do_cut(&c, "abcdefgh", 8, "zz", 2, 3, true);
    EXPECT_CUT_MIN(&c, "abc", 3, false);
    cut_free(&c);
}
END_TEST

START_TEST(test_cut_limit_zero)
{
    char v[300];
    memset(v, 'q', sizeof v);
    cut c;
    do_cut(&c, v, sizeof v, v, sizeof v, 0, false);
    EXPECT_CUT_MIN(&c, v, sizeof v, true);
    EXPECT_CUT_MAX(&c, v, sizeof v, true);
    cut_free(&c);
    do_cut(&c, v, sizeof v, v, sizeof v, 0, true);
    EXPECT_CUT_MIN(&c, v, sizeof v, true);
    EXPECT_CUT_MAX(&c, v, sizeof v, true);
    cut_free(&c);
}
END_TEST

START_TEST(test_cut_at_limit)
{
    /* exactly the limit: no cut; one byte more: cut */
    cut c;
    do_cut(&c, "abcd", 4, "wxyz", 4, 4, _i);
    EXPECT_CUT_MIN(&c, "abcd", 4, true);
    EXPECT_CUT_MAX(&c, "wxyz", 4, true);
    cut_free(&c);
    do_cut(&c, "abcde", 5, "wxyza", 5, 4, _i);
    EXPECT_CUT_MIN(&c, "abcd", 4, false);
    EXPECT_CUT_MAX(&c, "wxy{", 4, false);
    cut_free(&c);
    /* a 4-byte character that ends exactly at the limit stays */
    do_cut(&c, "\xF0\x9F\x98\x80", 4, "\xF0\x9F\x98\x80", 4, 4, _i);
    EXPECT_CUT_MIN(&c, "\xF0\x9F\x98\x80", 4, true);
    EXPECT_CUT_MAX(&c, "\xF0\x9F\x98\x80", 4, true);
    cut_free(&c);
}
END_TEST

START_TEST(test_cut_no_bounds)
{
    /* nothing to cut when there are no bounds */
    stats_bounds b;
    memset(&b, 0, sizeof b);
    b.min_exact = b.max_exact = true;
    buf scratch = { 0 };
    ck_assert_int_eq(inl_stats_truncate(&b, 4, true, &scratch, &alloc), 0);
    ck_assert_ptr_null(b.min);
    ck_assert_ptr_null(b.max);
    ck_assert(b.min_exact && b.max_exact);
    inl_buf_free(&scratch, &alloc);
}
END_TEST

START_TEST(test_cut_utf8_backs_off)
{
    /* "abc" + U+00E9 (C3 A9) + "def": a cut at 4 would split the é */
    static const char v[] = "abc\xC3\xA9" "def";
    cut c;
    do_cut(&c, v, 8, v, 8, 4, true);
    EXPECT_CUT_MIN(&c, "abc", 3, false);
    EXPECT_CUT_MAX(&c, "abd", 3, false);
    ck_assert(inlay_utf8_valid(c.b.min, c.b.min_len));
    ck_assert(inlay_utf8_valid(c.b.max, c.b.max_len));
    cut_free(&c);
    /* the same bytes as BINARY are cut mid-character */
    do_cut(&c, v, 8, v, 8, 4, false);
    EXPECT_CUT_MIN(&c, "abc\xC3", 4, false);
    EXPECT_CUT_MAX(&c, "abc\xC4", 4, false);
    cut_free(&c);
    /* a 4-byte character across the limit: back to its start */
    static const char w[] = "ab\xF0\x9F\x98\x80" "c";
    do_cut(&c, w, 7, w, 7, 5, true);
    EXPECT_CUT_MIN(&c, "ab", 2, false);
    EXPECT_CUT_MAX(&c, "ac", 2, false);
    cut_free(&c);
}
END_TEST

START_TEST(test_cut_utf8_increment)
{
    cut c;
    /* "x" U+00E9 "zzz", cut after the é: its successor U+00EA (C3 AA) */
    static const char e[] = "x\xC3\xA9zzz";
    do_cut(&c, e, 6, e, 6, 3, true);
    EXPECT_CUT_MAX(&c, "x\xC3\xAA", 3, false);
    EXPECT_CUT_MIN(&c, "x\xC3\xA9", 3, false);
    cut_free(&c);
    /* U+D7FF (ED 9F BF) is followed by U+E000 (EE 80 80): the surrogates are skipped */
    static const char d[] = "a\xED\x9F\xBF" "b";
    do_cut(&c, d, 5, d, 5, 4, true);
    EXPECT_CUT_MAX(&c, "a\xEE\x80\x80", 4, false);
    cut_free(&c);
    /* U+007F to U+0080 (C2 80): one byte longer than the limit, still valid */
    static const char del[] = "a\x7F" "zz";
    do_cut(&c, del, 4, del, 4, 2, true);
    EXPECT_CUT_MAX(&c, "a\xC2\x80", 3, false);
    cut_free(&c);
    /* U+07FF (DF BF) to U+0800 (E0 A0 80) */
    static const char two[] = "\xDF\xBF" "zz";
    do_cut(&c, two, 4, two, 4, 2, true);
    EXPECT_CUT_MAX(&c, "\xE0\xA0\x80", 3, false);
    cut_free(&c);
    /* U+FFFF (EF BF BF) to U+10000 (F0 90 80 80) */
    static const char three[] = "\xEF\xBF\xBF" "zz";
    do_cut(&c, three, 5, three, 5, 3, true);
    EXPECT_CUT_MAX(&c, "\xF0\x90\x80\x80", 4, false);
    cut_free(&c);
}
END_TEST

START_TEST(test_cut_utf8_last_code_point)
{
    cut c;
    /* "ab" U+10FFFF "c" cut after U+10FFFF: it has no successor, so it is
     * dropped and 'b' becomes 'c' */
    static const char v[] = "ab\xF4\x8F\xBF\xBF" "c";
    do_cut(&c, v, 7, v, 7, 6, true);
    EXPECT_CUT_MAX(&c, "ac", 2, false);
    EXPECT_CUT_MIN(&c, v, 6, false);
    cut_free(&c);
    /* two of them in a row: both dropped */
    static const char w[] = "a\xF4\x8F\xBF\xBF\xF4\x8F\xBF\xBF" "c";
    do_cut(&c, w, 10, w, 10, 9, true);
    EXPECT_CUT_MAX(&c, "b", 1, false);
    cut_free(&c);
    /* nothing but U+10FFFF up to the cut: no shorter bound, kept whole */
    static const char x[] = "\xF4\x8F\xBF\xBF\xF4\x8F\xBF\xBF" "a";
    do_cut(&c, x, 9, x, 9, 8, true);
    EXPECT_CUT_MAX(&c, x, 9, true);
    cut_free(&c);
}
END_TEST

START_TEST(test_cut_utf8_first_char_too_long)
{
    /* a limit smaller than the first character: the min becomes the empty
     * string (still a lower bound), the max cannot be shortened */
    static const char v[] = "\xC3\xA9zz";
    cut c;
    do_cut(&c, v, 4, v, 4, 1, true);
    EXPECT_CUT_MIN(&c, "", 0, false);
    EXPECT_CUT_MAX(&c, v, 4, true);
    cut_free(&c);
}
END_TEST

/* A random string of n characters drawn to hit the edges of each UTF-8 length. */
static size_t random_utf8(uint64_t *seed, uint8_t *out, size_t nchars)
{
    static const uint32_t edges[] = { 0x41, 0x7E, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFD,
                                      0xFFFF, 0x10000, 0x10FFFE, 0x10FFFF, 0xE9, 0x4E2D };
    size_t k = 0;
    for (size_t i = 0; i < nchars; i++) {
        uint64_t r = rng_next(seed);
        uint32_t cp = r % 3 ? edges[(r >> 8) % (sizeof edges / sizeof edges[0])] : (uint32_t)(0x20 + (r >> 8) % 0x5F);
        if (cp < 0x80) {
            out[k++] = (uint8_t)cp;
        } else if (cp < 0x800) {
            out[k++] = (uint8_t)(0xC0 | cp >> 6);
            out[k++] = (uint8_t)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out[k++] = (uint8_t)(0xE0 | cp >> 12);
            out[k++] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
            out[k++] = (uint8_t)(0x80 | (cp & 0x3F));
        } else {
            out[k++] = (uint8_t)(0xF0 | cp >> 18);
            out[k++] = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
            out[k++] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
            out[k++] = (uint8_t)(0x80 | (cp & 0x3F));
        }
    }
    return k;
}

START_TEST(test_cut_utf8_random)
{
    /* for many strings and limits: both bounds valid UTF-8 and still
     * bounds, the min a prefix within the limit, the max at most one byte
     * over it (a character's successor may be one byte longer), and
     * inexact exactly when changed */
    uint64_t seed = 0x5EED5EEDULL;
    uint8_t v[4 * 24];
    for (int round = 0; round < 4000; round++) {
        size_t n = random_utf8(&seed, v, 1 + rng_next(&seed) % 24);
        size_t limit = 1 + rng_next(&seed) % 40;
        ck_assert(inlay_utf8_valid(v, n));
        cut c;
        do_cut(&c, v, n, v, n, limit, true);
        ck_assert_msg(inlay_utf8_valid(c.b.min, c.b.min_len), "min not UTF-8: %s", hex(c.b.min, c.b.min_len));
        ck_assert_msg(inlay_utf8_valid(c.b.max, c.b.max_len), "max not UTF-8: %s", hex(c.b.max, c.b.max_len));
        ck_assert_int_le(bytewise(c.b.min, c.b.min_len, v, n), 0);
        ck_assert_msg(bytewise(c.b.max, c.b.max_len, v, n) >= 0, "max %s below value %s",
                      hex(c.b.max, c.b.max_len), hex(v, n));
        ck_assert(c.b.min_len <= limit || c.b.min_len == n);
        ck_assert(memcmp(c.b.min, v, c.b.min_len) == 0);
        ck_assert(c.b.min_exact == (c.b.min_len == n));
        ck_assert(c.b.max_exact == (c.b.max_len == n && memcmp(c.b.max, v, n) == 0));
        if (n <= limit) ck_assert(c.b.min_exact && c.b.max_exact);
        if (!c.b.max_exact) ck_assert_uint_le(c.b.max_len, limit + 1);
        /* the min keeps as many characters as fit */
        if (!c.b.min_exact) {
            size_t next = c.b.min_len + 1;
            while (next < n && (v[next] & 0xC0) == 0x80) next++;
            ck_assert_msg(next > limit, "min cut to %zu bytes, the next character ends at %zu <= %zu",
                          c.b.min_len, next, limit);
        }
        cut_free(&c);
    }
}
END_TEST

START_TEST(test_cut_binary_random)
{
    uint64_t seed = 99;
    uint8_t v[32];
    for (int round = 0; round < 4000; round++) {
        size_t n = 1 + rng_next(&seed) % 32;
        for (size_t i = 0; i < n; i++) {
            uint64_t r = rng_next(&seed);
            v[i] = r % 3 == 0 ? 0xFF : (uint8_t)(r >> 8);
        }
        size_t limit = 1 + rng_next(&seed) % 32;
        cut c;
        do_cut(&c, v, n, v, n, limit, false);
        const size_t min_want = n < limit ? n : limit;
        ck_assert_bytes(c.b.min, c.b.min_len, v, min_want);
        ck_assert(c.b.min_exact == (min_want == n));
        /* the max: the first `limit` bytes without trailing 0xFF, the last incremented */
        size_t keep = min_want;
        if (n > limit) {
            while (keep > 0 && v[keep - 1] == 0xFF) keep--;
        }
        if (n <= limit || keep == 0) {
            ck_assert_bytes(c.b.max, c.b.max_len, v, n);
            ck_assert(c.b.max_exact);
        } else {
            uint8_t want[32];
            memcpy(want, v, keep);
            want[keep - 1]++;
            ck_assert_bytes(c.b.max, c.b.max_len, want, keep);
            ck_assert(!c.b.max_exact);
            ck_assert_int_gt(bytewise(c.b.max, c.b.max_len, v, n), 0);
        }
        cut_free(&c);
    }
}
END_TEST

START_TEST(test_cut_nomem)
{
    /* the rounded-up max needs memory: refused, -1 */
    test_alloc ta = { .fail_at = 1, .fail_after = true };
    inlay_allocator a = test_allocator(&ta);
    stats_bounds b;
    memset(&b, 0, sizeof b);
    b.min = b.max = (const uint8_t *)"abcdef";
    b.min_len = b.max_len = 6;
    b.min_exact = b.max_exact = true;
    buf scratch = { 0 };
    ck_assert_int_eq(inl_stats_truncate(&b, 3, _i, &scratch, &a), -1);
    ck_assert_uint_ge(ta.refused, 1);
    inl_buf_free(&scratch, &a);
    ck_assert_no_leak(&ta);
}
END_TEST

/* ---- merging page statistics (inl_stats_merge) --------------------------------------- */

/* The PLAIN min and max of s (numeric). */
static void numeric_bounds(const stats *s, int physical, uint8_t lo[8], uint8_t hi[8], size_t *w)
{
    ck_assert_msg(inl_stats_min_max(s, physical, lo, hi, w), "no bounds");
}

START_TEST(test_merge_i32_signed_unsigned)
{
    const int32_t a[] = { -1, -1 }, b[] = { 1, 2 };
    for (int unsig = 0; unsig < 2; unsig++) {
        stats x = { .order = unsig ? ORDER_UNSIGNED : ORDER_SIGNED }, y = x;
        inl_stats_update_i32(&x, a, 2);
        inl_stats_update_i32(&y, b, 2);
        x.null_count = 2;
        y.null_count = 5;
        ck_assert_int_eq(inl_stats_merge(&x, &y, false, &alloc), 0);
        ck_assert_uint_eq(x.null_count, 7);
        uint8_t lo[8], hi[8];
        size_t w;
        numeric_bounds(&x, INLAY_INT32, lo, hi, &w);
        ck_assert_uint_eq(w, 4);
        /* signed: -1 .. 2; unsigned: 1 .. 0xFFFFFFFF (-1) */
        const int32_t want_lo = unsig ? 1 : -1, want_hi = unsig ? -1 : 2;
        ck_assert_bytes(lo, 4, &want_lo, 4);
        ck_assert_bytes(hi, 4, &want_hi, 4);
    }
}
END_TEST

START_TEST(test_merge_i64_signed_unsigned)
{
    const int64_t a[] = { INT64_MIN, -1 }, b[] = { 1, INT64_MAX };
    for (int unsig = 0; unsig < 2; unsig++) {
        stats x = { .order = unsig ? ORDER_UNSIGNED : ORDER_SIGNED }, y = x;
        inl_stats_update_i64(&y, b, 2);   /* merged into an empty one first */
        ck_assert_int_eq(inl_stats_merge(&x, &y, false, &alloc), 0);
        stats z = { .order = x.order };
        inl_stats_update_i64(&z, a, 2);
        ck_assert_int_eq(inl_stats_merge(&x, &z, false, &alloc), 0);
        uint8_t lo[8], hi[8];
        size_t w;
        numeric_bounds(&x, INLAY_INT64, lo, hi, &w);
        ck_assert_uint_eq(w, 8);
        /* signed: INT64_MIN .. INT64_MAX; unsigned: 1 .. 0xFFFF...FF (-1) */
        const int64_t want_lo = unsig ? 1 : INT64_MIN, want_hi = unsig ? -1 : INT64_MAX;
        ck_assert_bytes(lo, 8, &want_lo, 8);
        ck_assert_bytes(hi, 8, &want_hi, 8);
    }
}
END_TEST

START_TEST(test_merge_from_empty)
{
    /* a page with nulls only brings its null count and leaves the bounds */
    stats x = { .order = ORDER_SIGNED }, y = x;
    inl_stats_update_i32(&x, (const int32_t[]){ 4, 9 }, 2);
    y.null_count = 3;
    ck_assert_int_eq(inl_stats_merge(&x, &y, false, &alloc), 0);
    ck_assert_uint_eq(x.null_count, 3);
    uint8_t lo[8], hi[8];
    size_t w;
    numeric_bounds(&x, INLAY_INT32, lo, hi, &w);
    ck_assert_int_eq((int32_t)le32(lo), 4);
    ck_assert_int_eq((int32_t)le32(hi), 9);
    /* and into an empty one that stays empty */
    stats e = { .order = ORDER_SIGNED };
    ck_assert_int_eq(inl_stats_merge(&e, &y, false, &alloc), 0);
    ck_assert(!e.has_minmax);
    ck_assert_uint_eq(e.null_count, 3);
}
END_TEST

START_TEST(test_merge_double_zeros)
{
    /* a page of -0.0 then one of +0.0: written as min -0.0, max +0.0 */
    stats x = { .order = ORDER_FLOAT }, y = x;
    inl_stats_update_double(&x, (const double[]){ -0.0 }, 1);
    inl_stats_update_double(&y, (const double[]){ 0.0 }, 1);
    ck_assert_int_eq(inl_stats_merge(&x, &y, false, &alloc), 0);
    uint8_t lo[8], hi[8];
    size_t w;
    numeric_bounds(&x, INLAY_DOUBLE, lo, hi, &w);
    double l, h;
    memcpy(&l, lo, 8);
    memcpy(&h, hi, 8);
    ck_assert_double_bits(l, -0.0);
    ck_assert_double_bits(h, 0.0);
    /* then a page of -5 and +0: min -5, max +0 */
    stats z = { .order = ORDER_FLOAT };
    inl_stats_update_double(&z, (const double[]){ -5.0, NAN, 0.0 }, 3);
    ck_assert_int_eq(inl_stats_merge(&x, &z, false, &alloc), 0);
    numeric_bounds(&x, INLAY_DOUBLE, lo, hi, &w);
    memcpy(&l, lo, 8);
    memcpy(&h, hi, 8);
    ck_assert_double_bits(l, -5.0);
    ck_assert_double_bits(h, 0.0);
}
END_TEST

START_TEST(test_merge_float_infinities)
{
    stats x = { .order = ORDER_FLOAT }, y = x, z = x;
    inl_stats_update_float(&x, (const float[]){ 1.0f, 2.0f }, 2);
    inl_stats_update_float(&y, (const float[]){ INFINITY, NAN }, 2);
    inl_stats_update_float(&z, (const float[]){ -INFINITY }, 1);
    ck_assert_int_eq(inl_stats_merge(&x, &y, false, &alloc), 0);
    ck_assert_int_eq(inl_stats_merge(&x, &z, false, &alloc), 0);
    uint8_t lo[8], hi[8];
    size_t w;
    numeric_bounds(&x, INLAY_FLOAT, lo, hi, &w);
    ck_assert_uint_eq(w, 4);
    float l, h;
    memcpy(&l, lo, 4);
    memcpy(&h, hi, 4);
    ck_assert_float_bits(l, -INFINITY);
    ck_assert_float_bits(h, INFINITY);
    /* an all-NaN page merges as nothing */
    stats n = { .order = ORDER_FLOAT }, m = n;
    inl_stats_update_float(&n, (const float[]){ NAN }, 1);
    inl_stats_update_float(&m, (const float[]){ 3.0f }, 1);
    ck_assert_int_eq(inl_stats_merge(&m, &n, false, &alloc), 0);
    numeric_bounds(&m, INLAY_FLOAT, lo, hi, &w);
    memcpy(&l, lo, 4);
    memcpy(&h, hi, 4);
    ck_assert_float_bits(l, 3.0f);
    ck_assert_float_bits(h, 3.0f);
}
END_TEST

START_TEST(test_merge_bytes)
{
    stats x = { .order = ORDER_BYTES }, y = x, e = x;
    update_bytes_into(&x, "b", "c");
    update_bytes_into(&y, "\x80", "a");
    ck_assert_int_eq(inl_stats_merge(&e, &x, true, &alloc), 0);   /* into empty: a copy */
    ck_assert_bytes(e.min_bytes.data, e.min_bytes.len, "b", 1);
    ck_assert_bytes(e.max_bytes.data, e.max_bytes.len, "c", 1);
    ck_assert_int_eq(inl_stats_merge(&e, &y, true, &alloc), 0);
    /* unsigned bytes: 0x80 is above every ASCII letter */
    ck_assert_bytes(e.min_bytes.data, e.min_bytes.len, "a", 1);
    ck_assert_bytes(e.max_bytes.data, e.max_bytes.len, "\x80", 1);
    /* the copy does not share the source's memory */
    inl_stats_free(&x, &alloc);
    inl_stats_free(&y, &alloc);
    ck_assert_bytes(e.min_bytes.data, e.min_bytes.len, "a", 1);
    inl_stats_free(&e, &alloc);
}
END_TEST

START_TEST(test_merge_decimal_bytes)
{
    /* DECIMAL on BYTE_ARRAY: by value, not by bytes */
    stats x = { .order = ORDER_DECIMAL_BYTES }, y = x;
    ck_assert_int_eq(inl_stats_update_bytes(&x, &alloc, (const uint8_t *)"\x01\x00", 2), 0);   /* 256 */
    ck_assert_int_eq(inl_stats_update_bytes(&y, &alloc, (const uint8_t *)"\xFF", 1), 0);       /* -1 */
    ck_assert_int_eq(inl_stats_update_bytes(&y, &alloc, (const uint8_t *)"\x7F", 1), 0);       /* 127 */
    ck_assert_int_eq(inl_stats_merge(&x, &y, true, &alloc), 0);
    ck_assert_bytes(x.min_bytes.data, x.min_bytes.len, "\xFF", 1);
    ck_assert_bytes(x.max_bytes.data, x.max_bytes.len, "\x01\x00", 2);
    inl_stats_free(&x, &alloc);
    inl_stats_free(&y, &alloc);
}
END_TEST

START_TEST(test_merge_random_pages)
{
    /* pages merged one by one give what one pass over all values gives */
    uint64_t seed = 7;
    for (int order = 0; order < 2; order++) {
        stats all = { .order = order ? ORDER_UNSIGNED : ORDER_SIGNED }, folded = all;
        for (int page = 0; page < 50; page++) {
            int64_t v[17];
            for (int i = 0; i < 17; i++) v[i] = (int64_t)rng_next(&seed);
            stats p = { .order = all.order };
            inl_stats_update_i64(&p, v, 17);
            inl_stats_update_i64(&all, v, 17);
            ck_assert_int_eq(inl_stats_merge(&folded, &p, false, &alloc), 0);
        }
        uint8_t a_lo[8], a_hi[8], f_lo[8], f_hi[8];
        size_t w;
        numeric_bounds(&all, INLAY_INT64, a_lo, a_hi, &w);
        numeric_bounds(&folded, INLAY_INT64, f_lo, f_hi, &w);
        ck_assert_bytes(f_lo, 8, a_lo, 8);
        ck_assert_bytes(f_hi, 8, a_hi, 8);
    }
}
END_TEST

START_TEST(test_merge_nomem)
{
    test_alloc ta = { .fail_at = 1, .fail_after = true };
    inlay_allocator a = test_allocator(&ta);
    stats x = { .order = ORDER_BYTES }, y = x;
    ck_assert_int_eq(inl_stats_update_bytes(&y, &alloc, (const uint8_t *)"abc", 3), 0);
    ck_assert_int_eq(inl_stats_merge(&x, &y, true, &a), -1);
    inl_stats_free(&x, &a);
    inl_stats_free(&y, &alloc);
    ck_assert_no_leak(&ta);
}
END_TEST

/* ---- comparing PLAIN values (inl_stats_compare_plain) --------------------------------- */

static int cmp_i32(sort_order o, int32_t x, int32_t y)
{
    return inl_stats_compare_plain(o, INLAY_INT32, (const uint8_t *)&x, 4, (const uint8_t *)&y, 4);
}

static int cmp_i64(sort_order o, int64_t x, int64_t y)
{
    return inl_stats_compare_plain(o, INLAY_INT64, (const uint8_t *)&x, 8, (const uint8_t *)&y, 8);
}

static int cmp_f(float x, float y)
{
    return inl_stats_compare_plain(ORDER_FLOAT, INLAY_FLOAT, (const uint8_t *)&x, 4, (const uint8_t *)&y, 4);
}

static int cmp_d(double x, double y)
{
    return inl_stats_compare_plain(ORDER_FLOAT, INLAY_DOUBLE, (const uint8_t *)&x, 8, (const uint8_t *)&y, 8);
}

START_TEST(test_compare_ints)
{
    ck_assert_int_lt(cmp_i32(ORDER_SIGNED, -1, 1), 0);
    ck_assert_int_gt(cmp_i32(ORDER_UNSIGNED, -1, 1), 0);
    ck_assert_int_gt(cmp_i32(ORDER_SIGNED, INT32_MAX, INT32_MIN), 0);
    ck_assert_int_lt(cmp_i32(ORDER_UNSIGNED, INT32_MAX, INT32_MIN), 0);
    ck_assert_int_eq(cmp_i32(ORDER_UNSIGNED, -7, -7), 0);
    ck_assert_int_lt(cmp_i64(ORDER_SIGNED, -1, 1), 0);
    ck_assert_int_gt(cmp_i64(ORDER_UNSIGNED, -1, 1), 0);
    ck_assert_int_gt(cmp_i64(ORDER_SIGNED, INT64_MAX, INT64_MIN), 0);
    ck_assert_int_lt(cmp_i64(ORDER_UNSIGNED, INT64_MAX, INT64_MIN), 0);
    ck_assert_int_eq(cmp_i64(ORDER_SIGNED, 12345, 12345), 0);
    /* antisymmetric */
    ck_assert_int_gt(cmp_i32(ORDER_SIGNED, 1, -1), 0);
    ck_assert_int_lt(cmp_i64(ORDER_UNSIGNED, 1, -1), 0);
}
END_TEST

START_TEST(test_compare_floats)
{
    ck_assert_int_eq(cmp_f(-0.0f, 0.0f), 0);
    ck_assert_int_eq(cmp_f(0.0f, -0.0f), 0);
    ck_assert_int_eq(cmp_d(-0.0, 0.0), 0);
    ck_assert_int_eq(cmp_d(0.0, -0.0), 0);
    ck_assert_int_lt(cmp_d(-INFINITY, -1e308), 0);
    ck_assert_int_gt(cmp_d(INFINITY, 1e308), 0);
    ck_assert_int_lt(cmp_f(-INFINITY, INFINITY), 0);
    ck_assert_int_eq(cmp_f(INFINITY, INFINITY), 0);
    ck_assert_int_lt(cmp_d(-2.5, -0.0), 0);
    ck_assert_int_gt(cmp_f(1e-45f, -0.0f), 0);   /* the least subnormal above both zeros */
    /* bytes of a negative float would compare above a positive one as integers */
    ck_assert_int_lt(cmp_f(-1.0f, 1.0f), 0);
    ck_assert_int_lt(cmp_d(-3.0, -2.0), 0);
}
END_TEST

START_TEST(test_compare_other)
{
    const uint8_t f = 0, t = 1;
    ck_assert_int_lt(inl_stats_compare_plain(ORDER_UNSIGNED, INLAY_BOOLEAN, &f, 1, &t, 1), 0);
    ck_assert_int_eq(inl_stats_compare_plain(ORDER_UNSIGNED, INLAY_BOOLEAN, &t, 1, &t, 1), 0);
    ck_assert_int_lt(inl_stats_compare_plain(ORDER_BYTES, INLAY_BYTE_ARRAY, (const uint8_t *)"a", 1,
                                             (const uint8_t *)"\x80", 1), 0);
    ck_assert_int_lt(inl_stats_compare_plain(ORDER_BYTES, INLAY_BYTE_ARRAY, (const uint8_t *)"ab", 2,
                                             (const uint8_t *)"abc", 3), 0);
    ck_assert_int_lt(inl_stats_compare_plain(ORDER_DECIMAL_BYTES, INLAY_FIXED_LEN_BYTE_ARRAY,
                                             (const uint8_t *)"\xFF\xFF", 2, (const uint8_t *)"\x00\x01", 2), 0);
    ck_assert_int_lt(inl_stats_compare_plain(ORDER_FLOAT16, INLAY_FIXED_LEN_BYTE_ARRAY, H_MINUS_TWO, 2,
                                             H_ONE, 2), 0);
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
    tcase_add_test(c, test_i64_long_arrays);
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

    c = tcase_create("truncation");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_cut_binary_trailing_ff);
    tcase_add_test(c, test_cut_binary_increment);
    tcase_add_test(c, test_cut_all_ff);
    tcase_add_test(c, test_cut_min_prefix);
    tcase_add_test(c, test_cut_limit_zero);
    tcase_add_loop_test(c, test_cut_at_limit, 0, 2);   /* binary, utf8 */
    tcase_add_test(c, test_cut_no_bounds);
    tcase_add_loop_test(c, test_cut_nomem, 0, 2);
    suite_add_tcase(s, c);

    c = tcase_create("truncation utf8");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_cut_utf8_backs_off);
    tcase_add_test(c, test_cut_utf8_increment);
    tcase_add_test(c, test_cut_utf8_last_code_point);
    tcase_add_test(c, test_cut_utf8_first_char_too_long);
    tcase_add_test(c, test_cut_utf8_random);
    tcase_add_test(c, test_cut_binary_random);
    suite_add_tcase(s, c);

    c = tcase_create("merge");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_merge_i32_signed_unsigned);
    tcase_add_test(c, test_merge_i64_signed_unsigned);
    tcase_add_test(c, test_merge_from_empty);
    tcase_add_test(c, test_merge_double_zeros);
    tcase_add_test(c, test_merge_float_infinities);
    tcase_add_test(c, test_merge_bytes);
    tcase_add_test(c, test_merge_decimal_bytes);
    tcase_add_test(c, test_merge_random_pages);
    tcase_add_test(c, test_merge_nomem);
    suite_add_tcase(s, c);

    c = tcase_create("compare plain");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_compare_ints);
    tcase_add_test(c, test_compare_floats);
    tcase_add_test(c, test_compare_other);
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
