/*
 * check_timeconv.c — unit conversion of time arrays (runtime/base/timeconv.c)
 * and inlay_writer_append_time (runtime/write/writer.c) on top of it.
 *
 * inl_timeconv_run is checked by hand for each kind of step (multiply, floor
 * toward negative infinity, narrowing to int32, the overflow bounds of
 * each) and then against a 128-bit reference for every pair of units.
 * append_time is checked through files read back with chunk_reader.h:
 * values land converted, a value that does not fit is INLAY_ERR_VALUE
 * naming column and row and leaves the file byte for byte as if the call
 * had not been made, the slot of a null never counts, columns that are not
 * dates or times are refused, and in steady state (past the first page,
 * dictionary dropped) appending allocates nothing; a column without a
 * dictionary gets converted values straight into its page.
 */
#define _POSIX_C_SOURCE 200809L
#include "timeconv.h"

#include "chunk_reader.h"

static const int64_t NS[] = { 86400000000000LL, 1000000000LL, 1000000LL, 1000LL, 1LL };

/* floor(a / b) for b > 0. */
static __int128 floor_div128(__int128 a, __int128 b)
{
    __int128 q = a / b;
    if (a % b != 0 && a < 0) q--;
    return q;
}

/* v in unit `from` as unit `to`, exactly. */
static __int128 reference(int64_t v, inlay_unit from, inlay_unit to)
{
    return floor_div128((__int128)v * NS[from], NS[to]);
}

static int64_t clamp64(__int128 x)
{
    return x > INT64_MAX ? INT64_MAX : x < INT64_MIN ? INT64_MIN : (int64_t)x;
}

static bool fits(__int128 x, bool narrow)
{
    return narrow ? x >= INT32_MIN && x <= INT32_MAX : x >= INT64_MIN && x <= INT64_MAX;
}

/* ---- inl_timeconv_run by hand ------------------------------------------------------------------- */

START_TEST(test_unit_ns)
{
    for (int u = INLAY_UNIT_DAYS; u <= INLAY_UNIT_NANOS; u++)
        ck_assert_int_eq(inl_timeconv_unit_ns((inlay_unit)u), NS[u]);
}
END_TEST

START_TEST(test_multiply)
{
    /* seconds -> micros: times 10^6, up to the last second that fits */
    const int64_t lim = INT64_MAX / 1000000;    /* 9223372036854 */
    const int64_t v[] = { 0, 1, -1, 86400, 1700000000, lim, -lim };
    int64_t out[7];
    ck_assert_uint_eq(inl_timeconv_run(out, false, v, 7, INLAY_UNIT_SECONDS, INLAY_UNIT_MICROS, NULL), 7);
    for (int i = 0; i < 7; i++) ck_assert_int_eq(out[i], v[i] * 1000000);

    const int64_t over[] = { 1, 2, lim + 1, INT64_MAX };
    ck_assert_uint_eq(inl_timeconv_run(out, false, over, 4, INLAY_UNIT_SECONDS, INLAY_UNIT_MICROS, NULL), 2);
    const int64_t under[] = { -lim - 1 };
    ck_assert_uint_eq(inl_timeconv_run(out, false, under, 1, INLAY_UNIT_SECONDS, INLAY_UNIT_MICROS, NULL), 0);
    const int64_t min[] = { 5, INT64_MIN };
    ck_assert_uint_eq(inl_timeconv_run(out, false, min, 2, INLAY_UNIT_SECONDS, INLAY_UNIT_MICROS, NULL), 1);
    /* days -> nanos: 106751 days fit, 106752 do not */
    const int64_t days[] = { 106751, -106751, 106752 };
    ck_assert_uint_eq(inl_timeconv_run(out, false, days, 3, INLAY_UNIT_DAYS, INLAY_UNIT_NANOS, NULL), 2);
    ck_assert_int_eq(out[0], 106751 * 86400000000000LL);
    ck_assert_int_eq(out[1], -106751 * 86400000000000LL);
}
END_TEST

START_TEST(test_floor)
{
    /* nanos -> micros rounds toward negative infinity */
    const int64_t v[] = { -1, -999, -1000, -1001, 0, 999, 1000, 1999, INT64_MIN, INT64_MAX };
    const int64_t want[] = { -1, -1, -1, -2, 0, 0, 1, 1, -9223372036854776LL, 9223372036854775LL };
    int64_t out[10];
    ck_assert_uint_eq(inl_timeconv_run(out, false, v, 10, INLAY_UNIT_NANOS, INLAY_UNIT_MICROS, NULL), 10);
    for (int i = 0; i < 10; i++) ck_assert_int_eq(out[i], want[i]);
    /* seconds -> days */
    const int64_t s[] = { -1, 0, 86399, 86400, -86400, -86401, 1700000000 };
    const int64_t d[] = { -1, 0, 0, 1, -1, -2, 19675 };
    ck_assert_uint_eq(inl_timeconv_run(out, false, s, 7, INLAY_UNIT_SECONDS, INLAY_UNIT_DAYS, NULL), 7);
    for (int i = 0; i < 7; i++) ck_assert_int_eq(out[i], d[i]);
}
END_TEST

START_TEST(test_narrow)
{
    int32_t out[8];
    /* seconds -> DATE days (int32) */
    const int64_t s[] = { -1, 0, 86399, 86400, -86401, (int64_t)INT32_MIN * 86400,
                          ((int64_t)INT32_MAX + 1) * 86400 - 1 };
    const int32_t d[] = { -1, 0, 0, 1, -2, INT32_MIN, INT32_MAX };
    ck_assert_uint_eq(inl_timeconv_run(out, true, s, 7, INLAY_UNIT_SECONDS, INLAY_UNIT_DAYS, NULL), 7);
    for (int i = 0; i < 7; i++) ck_assert_int_eq(out[i], d[i]);
    const int64_t s_over[] = { 0, ((int64_t)INT32_MAX + 1) * 86400 };
    ck_assert_uint_eq(inl_timeconv_run(out, true, s_over, 2, INLAY_UNIT_SECONDS, INLAY_UNIT_DAYS, NULL), 1);
    const int64_t s_under[] = { (int64_t)INT32_MIN * 86400 - 1 };
    ck_assert_uint_eq(inl_timeconv_run(out, true, s_under, 1, INLAY_UNIT_SECONDS, INLAY_UNIT_DAYS, NULL), 0);

    /* micros -> TIME(ms) */
    const int64_t us[] = { 0, 1500, 1999, 86399999999LL, 43200000000LL, (int64_t)INT32_MAX * 1000 + 999 };
    const int32_t ms[] = { 0, 1, 1, 86399999, 43200000, INT32_MAX };
    ck_assert_uint_eq(inl_timeconv_run(out, true, us, 6, INLAY_UNIT_MICROS, INLAY_UNIT_MILLIS, NULL), 6);
    for (int i = 0; i < 6; i++) ck_assert_int_eq(out[i], ms[i]);
    const int64_t us_over[] = { 1, 2, 3, ((int64_t)INT32_MAX + 1) * 1000 };
    ck_assert_uint_eq(inl_timeconv_run(out, true, us_over, 4, INLAY_UNIT_MICROS, INLAY_UNIT_MILLIS, NULL), 3);

    /* days -> millis narrowed: 24 days fit in int32 milliseconds, 25 do not */
    const int64_t days[] = { 24, -24, 25 };
    ck_assert_uint_eq(inl_timeconv_run(out, true, days, 3, INLAY_UNIT_DAYS, INLAY_UNIT_MILLIS, NULL), 2);
    ck_assert_int_eq(out[0], 24 * 86400000);
    ck_assert_int_eq(out[1], -24 * 86400000);
    const int64_t neg[] = { -25 };
    ck_assert_uint_eq(inl_timeconv_run(out, true, neg, 1, INLAY_UNIT_DAYS, INLAY_UNIT_MILLIS, NULL), 0);

    /* the same unit: a copy, narrowed with a check */
    const int64_t same[] = { INT32_MAX, INT32_MIN, (int64_t)INT32_MAX + 1 };
    ck_assert_uint_eq(inl_timeconv_run(out, true, same, 3, INLAY_UNIT_DAYS, INLAY_UNIT_DAYS, NULL), 2);
    ck_assert_int_eq(out[0], INT32_MAX);
    ck_assert_int_eq(out[1], INT32_MIN);
    const int64_t same_low[] = { (int64_t)INT32_MIN - 1 };
    ck_assert_uint_eq(inl_timeconv_run(out, true, same_low, 1, INLAY_UNIT_MILLIS, INLAY_UNIT_MILLIS, NULL), 0);
    int64_t wide[3];
    const int64_t ext[] = { INT64_MIN, INT64_MAX, 0 };
    ck_assert_uint_eq(inl_timeconv_run(wide, false, ext, 3, INLAY_UNIT_NANOS, INLAY_UNIT_NANOS, NULL), 3);
    ck_assert_int_eq(wide[0], INT64_MIN);
    ck_assert_int_eq(wide[1], INT64_MAX);
}
END_TEST

START_TEST(test_validity)
{
    /* a value that does not fit is reported only where its bit is set */
    const int64_t v[] = { 1, INT64_MAX, 3, INT64_MIN, 5 };
    const uint8_t rows_0_2_4 = 0x15, all = 0x1F, rows_0_1 = 0x03;
    int64_t out[5];
    int32_t out32[5];
    ck_assert_uint_eq(inl_timeconv_run(out, false, v, 5, INLAY_UNIT_SECONDS, INLAY_UNIT_MICROS, &rows_0_2_4), 5);
    ck_assert_int_eq(out[0], 1000000);
    ck_assert_int_eq(out[2], 3000000);
    ck_assert_int_eq(out[4], 5000000);
    ck_assert_uint_eq(inl_timeconv_run(out, false, v, 5, INLAY_UNIT_SECONDS, INLAY_UNIT_MICROS, &all), 1);
    ck_assert_uint_eq(inl_timeconv_run(out, false, v, 5, INLAY_UNIT_SECONDS, INLAY_UNIT_MICROS, &rows_0_1), 1);
    const uint8_t row_3 = 0x08;
    ck_assert_uint_eq(inl_timeconv_run(out, false, v, 5, INLAY_UNIT_SECONDS, INLAY_UNIT_MICROS, &row_3), 3);
    /* the floor path, narrowed: micros -> millis */
    ck_assert_uint_eq(inl_timeconv_run(out32, true, v, 5, INLAY_UNIT_MICROS, INLAY_UNIT_MILLIS, &rows_0_2_4), 5);
    ck_assert_int_eq(out32[0], 0);
    ck_assert_int_eq(out32[4], 0);
    ck_assert_uint_eq(inl_timeconv_run(out32, true, v, 5, INLAY_UNIT_MICROS, INLAY_UNIT_MILLIS, &row_3), 3);
    /* the multiply path, narrowed: seconds -> millis */
    ck_assert_uint_eq(inl_timeconv_run(out32, true, v, 5, INLAY_UNIT_SECONDS, INLAY_UNIT_MILLIS, &rows_0_2_4), 5);
    ck_assert_int_eq(out32[2], 3000);
    ck_assert_uint_eq(inl_timeconv_run(out32, true, v, 5, INLAY_UNIT_SECONDS, INLAY_UNIT_MILLIS, &all), 1);
    /* across bytes of the bitmap */
    static int64_t many[20];
    static const uint8_t bits[3] = { 0xFF, 0xFF, 0x0B };   /* row 18 null, row 19 not */
    many[18] = INT64_MAX;
    int64_t out20[20];
    ck_assert_uint_eq(inl_timeconv_run(out20, false, many, 20, INLAY_UNIT_SECONDS, INLAY_UNIT_MICROS, bits), 20);
    many[19] = INT64_MIN;
    ck_assert_uint_eq(inl_timeconv_run(out20, false, many, 20, INLAY_UNIT_SECONDS, INLAY_UNIT_MICROS, bits), 19);
}
END_TEST

/* Every pair of units, wide and narrow, against reference(): values near
 * the bounds and random ones; the result is the index of the first value
 * that does not fit, and every value before it is converted exactly. */
START_TEST(test_every_pair)
{
    const inlay_unit from = (inlay_unit)(_i / 5), to = (inlay_unit)(_i % 5);
    enum { N = 3000 };
    static int64_t v[N];
    static int64_t out[N];
    static int32_t out32[N];
    uint64_t rng = 1000 + (uint64_t)_i;
    for (int narrow = 0; narrow < 2; narrow++) {
        /* the largest input that fits, by bisection on the reference */
        int64_t lo = 0, hi = INT64_MAX;
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2 + 1;
            if (fits(reference(mid, from, to), narrow)) lo = mid;
            else hi = mid - 1;
        }
        const int64_t top = lo;
        for (int round = 0; round < 4; round++) {
            for (size_t i = 0; i < N; i++) {
                uint64_t r = rng_next(&rng);
                switch (r % 6) {
                case 0: v[i] = (int64_t)rng_next(&rng); break;
                case 1: v[i] = top - (int64_t)(r >> 40) % 3; break;
                case 2: v[i] = clamp64(-(__int128)top - (int64_t)(r >> 40) % 3); break;
                case 3: v[i] = (int64_t)(r >> 20) - (INT64_C(1) << 43); break;
                case 4: v[i] = (int64_t)(r >> 40) % 5 - 2; break;
                default: v[i] = top ? (int64_t)(rng_next(&rng) % (uint64_t)top) * (r & 1 ? 1 : -1) : 0; break;
                }
            }
            /* most rounds: only values that fit */
            if (round < 3) {
                for (size_t i = 0; i < N; i++)
                    if (!fits(reference(v[i], from, to), narrow)) v[i] = (int64_t)(i % 1000);
            }
            size_t want = N;
            for (size_t i = 0; i < N && want == N; i++)
                if (!fits(reference(v[i], from, to), narrow)) want = i;
            size_t got = inl_timeconv_run(narrow ? (void *)out32 : (void *)out, narrow, v, N, from, to, NULL);
            ck_assert_msg(got == want, "%d -> %d %s: first misfit %zu, want %zu", from, to,
                          narrow ? "narrow" : "wide", got, want);
            for (size_t i = 0; i < want; i++) {
                __int128 x = reference(v[i], from, to);
                int64_t g = narrow ? out32[i] : out[i];
                ck_assert_msg((__int128)g == x, "%d -> %d %s: value %zu (%lld) converts to %lld",
                              from, to, narrow ? "narrow" : "wide", i, (long long)v[i], (long long)g);
            }
        }
    }
}
END_TEST

/* The fast paths (a check-free loop, vectorised with AVX2 where the CPU has
 * it, then a second scan only when something did not fit) against a plain
 * loop over reference(): every pair of units, both widths, lengths around
 * the vector and unroll sizes, values at and just past both bounds, a
 * misfit at the first, a middle or the last index, and validity masks
 * that hide misfits. */

/* The smallest and the largest inputs whose conversion fits. */
static void input_bounds(inlay_unit from, inlay_unit to, bool narrow, int64_t *bottom, int64_t *top)
{
    int64_t lo = 0, hi = INT64_MAX;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2 + 1;
        if (fits(reference(mid, from, to), narrow)) lo = mid;
        else hi = mid - 1;
    }
    *top = lo;
    lo = INT64_MIN;
    hi = 0;
    while (lo < hi) {
        int64_t mid = hi - (int64_t)(((uint64_t)hi - (uint64_t)lo) / 2) - 1;
        if (fits(reference(mid, from, to), narrow)) hi = mid;
        else lo = mid + 1;
    }
    *bottom = hi;
}

/* A value near one of the bounds, or anywhere in between. */
static int64_t near_bounds(uint64_t *rng, int64_t bottom, int64_t top)
{
    uint64_t r = rng_next(rng);
    int64_t k = (int64_t)(r >> 40) % 5 - 2;   /* -2..2 */
    switch (r % 5) {
    case 0: return clamp64((__int128)top + k);
    case 1: return clamp64((__int128)bottom + k);
    case 2: return (int64_t)rng_next(rng);
    case 3: return k;
    default: {
        uint64_t span = (uint64_t)top - (uint64_t)bottom + 1;   /* 0: every int64 */
        uint64_t x = rng_next(rng);
        return span ? clamp64((__int128)bottom + (__int128)(x % span)) : (int64_t)x;
    }
    }
}

/* Index of the first entry whose value does not fit and whose bit is set. */
static size_t first_misfit(const int64_t *v, size_t n, inlay_unit from, inlay_unit to, bool narrow,
                           const uint8_t *validity)
{
    for (size_t i = 0; i < n; i++)
        if (!fits(reference(v[i], from, to), narrow) && (!validity || (validity[i >> 3] >> (i & 7) & 1)))
            return i;
    return n;
}

static void check_against_reference(const int64_t *v, size_t n, inlay_unit from, inlay_unit to,
                                    bool narrow, const uint8_t *validity, const char *what)
{
    static int64_t out[1100];
    static int32_t out32[1100];
    size_t want = first_misfit(v, n, from, to, narrow, validity);
    size_t got = inl_timeconv_run(narrow ? (void *)out32 : (void *)out, narrow, v, n, from, to, validity);
    ck_assert_msg(got == want, "%d -> %d %s, n %zu, %s: first misfit %zu, want %zu", from, to,
                  narrow ? "narrow" : "wide", n, what, got, want);
    for (size_t i = 0; i < n; i++) {
        __int128 x = reference(v[i], from, to);
        if (!fits(x, narrow)) continue;   /* nothing is promised there */
        int64_t g = narrow ? out32[i] : out[i];
        ck_assert_msg((__int128)g == x, "%d -> %d %s, n %zu, %s: value %zu (%lld) converts to %lld",
                      from, to, narrow ? "narrow" : "wide", n, what, i, (long long)v[i], (long long)g);
    }
}

START_TEST(test_fast_paths)
{
    const inlay_unit from = (inlay_unit)(_i / 5), to = (inlay_unit)(_i % 5);
    static const size_t lengths[] = { 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65,
                                      127, 128, 129, 255, 256, 257, 1000, 1023, 1024, 1025 };
    static int64_t v[1100];
    static uint8_t validity[1100 / 8 + 1];
    uint64_t rng = 77 + (uint64_t)_i;
    for (int narrow = 0; narrow < 2; narrow++) {
        int64_t bottom, top;
        input_bounds(from, to, narrow, &bottom, &top);
        for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
            const size_t n = lengths[li];
            for (int round = 0; round < 4; round++) {
                /* values that fit, at and near both bounds */
                for (size_t i = 0; i < n; i++) {
                    int64_t x = near_bounds(&rng, bottom, top);
                    v[i] = x < bottom ? bottom : x > top ? top : x;
                }
                check_against_reference(v, n, from, to, narrow, NULL, "all fit");
                if (top == INT64_MAX && bottom == INT64_MIN) {
                    for (size_t i = 0; i < n; i++) v[i] = (int64_t)rng_next(&rng);
                    check_against_reference(v, n, from, to, narrow, NULL, "anything");
                    continue;   /* every input fits: nothing to overflow */
                }
                /* one misfit, just past a bound, at the first, a middle, the last and a random index */
                const size_t at[4] = { 0, n / 2, n - 1, rng_next(&rng) % n };
                for (int k = 0; k < 4; k++) {
                    int64_t keep = v[at[k]];
                    bool up = top < INT64_MAX && (bottom == INT64_MIN || rng_next(&rng) & 1);
                    v[at[k]] = up ? top + 1 + (int64_t)(rng_next(&rng) % 2) * (top < INT64_MAX - 1)
                                  : bottom - 1;
                    check_against_reference(v, n, from, to, narrow, NULL, "one misfit");
                    v[at[k]] = keep;
                }
                /* misfits anywhere, some hidden by a validity mask */
                for (size_t i = 0; i < n; i++) v[i] = near_bounds(&rng, bottom, top);
                check_against_reference(v, n, from, to, narrow, NULL, "misfits");
                for (size_t b = 0; b < (n + 7) / 8; b++) validity[b] = (uint8_t)rng_next(&rng);
                check_against_reference(v, n, from, to, narrow, validity, "a random mask");
                /* every misfit hidden but one, then all of them */
                size_t last = n;
                for (size_t i = 0; i < n; i++) {
                    bool misfit = !fits(reference(v[i], from, to), narrow);
                    if (misfit) last = i;
                    validity[i >> 3] = (uint8_t)((validity[i >> 3] & ~(1u << (i & 7))) |
                                                 (unsigned)!misfit << (i & 7));
                }
                check_against_reference(v, n, from, to, narrow, validity, "every misfit null");
                if (last < n) {
                    validity[last >> 3] |= (uint8_t)(1u << (last & 7));
                    check_against_reference(v, n, from, to, narrow, validity, "the last misfit valid");
                }
            }
        }
    }
}
END_TEST

/* Arrays that start off a 32-byte boundary take the same paths. */
START_TEST(test_offset_arrays)
{
    static int64_t buf[300], out[301];
    static int32_t out32[301];
    uint64_t rng = 5;
    for (size_t i = 0; i < 300; i++) buf[i] = (int64_t)(rng_next(&rng) >> 20) - (INT64_C(1) << 43);
    const int64_t *vv = buf + 1;
    for (int from = 0; from < 5; from++)
        for (int to = 0; to < 5; to++) {
            size_t n = inl_timeconv_run(out + 1, false, vv, 299, (inlay_unit)from, (inlay_unit)to, NULL);
            size_t m = inl_timeconv_run(out32 + 1, true, vv, 299, (inlay_unit)from, (inlay_unit)to, NULL);
            ck_assert_uint_eq(n, first_misfit(vv, 299, (inlay_unit)from, (inlay_unit)to, false, NULL));
            ck_assert_uint_eq(m, first_misfit(vv, 299, (inlay_unit)from, (inlay_unit)to, true, NULL));
            for (size_t i = 0; i < n; i++)
                ck_assert((__int128)out[1 + i] == reference(vv[i], (inlay_unit)from, (inlay_unit)to));
            for (size_t i = 0; i < m; i++)
                ck_assert((__int128)out32[1 + i] == reference(vv[i], (inlay_unit)from, (inlay_unit)to));
        }
}
END_TEST

/* ---- append_time -------------------------------------------------------------------------- */

static inlay_options options(void)
{
    inlay_options o;
    inlay_options_init(&o);
    o.compression = INLAY_UNCOMPRESSED;
    o.page_rows = 1000;
    return o;
}

#define APPEND_OK(call) \
    do { int st_ = (call); ck_assert_msg(st_ == INLAY_OK, "%s: %d %s", #call, st_, inlay_writer_errmsg(w)); } while (0)

/* Write `values` in `unit` to a one-column file of type t and decode what
 * the column holds into d (values little-endian int32 or int64). */
static void write_time(file *f, inlay_type t, inlay_repetition rep, const int64_t *values, size_t n,
                       inlay_unit unit, const inlay_levels *lv, decoded *d)
{
    inlay_options o = options();
    inlay_writer *w = open_one(f, "t", rep, t, INLAY_ENCODING_AUTO, &o);
    APPEND_OK(inlay_writer_append_time(w, 0, values, n, unit, lv));
    finish(w, f);
    decode_column(f, "t", t.physical == INLAY_INT32 ? 4 : 8, rep == INLAY_OPTIONAL, 0, d);
}

/* The public wrapper: bad units, in place, narrow, the index of the first
 * value that does not fit. */
START_TEST(test_public_convert)
{
    int64_t v[4] = { 1, -1, 2, 3 };
    ck_assert_uint_eq(inlay_time_convert(v, false, v, 4, (inlay_unit)9, INLAY_UNIT_MICROS), SIZE_MAX);
    ck_assert_uint_eq(inlay_time_convert(v, false, v, 4, INLAY_UNIT_SECONDS, (inlay_unit)-1), SIZE_MAX);
    ck_assert_int_eq(v[0], 1);   /* untouched */
    ck_assert_uint_eq(inlay_time_convert(v, false, v, 0, INLAY_UNIT_SECONDS, INLAY_UNIT_MICROS), 0);
    ck_assert_uint_eq(inlay_time_convert(v, false, v, 4, INLAY_UNIT_SECONDS, INLAY_UNIT_MILLIS), 4);
    ck_assert_int_eq(v[0], 1000);
    ck_assert_int_eq(v[1], -1000);
    int32_t days[4];
    ck_assert_uint_eq(inlay_time_convert(days, true, v, 4, INLAY_UNIT_MILLIS, INLAY_UNIT_DAYS), 4);
    ck_assert_int_eq(days[0], 0);
    ck_assert_int_eq(days[1], -1);   /* floors */
    const int64_t big[3] = { 0, 1, INT64_MAX / 1000 + 1 };
    int64_t out[3];
    ck_assert_uint_eq(inlay_time_convert(out, false, big, 3, INLAY_UNIT_MICROS, INLAY_UNIT_NANOS), 2);
    const int64_t far[2] = { 0, (int64_t)INT32_MAX + 1 };
    ck_assert_uint_eq(inlay_time_convert(days, true, far, 2, INLAY_UNIT_DAYS, INLAY_UNIT_DAYS), 1);
}
END_TEST

/* A column without a dictionary takes converted values straight into its
 * page when the page takes the batch whole: batches of every size around
 * the page's edge (1,000 rows), wide and narrow, with nulls by levels, and
 * between them refused calls whose values were converted in place too:
 * the file must be as if they had never been made. */
START_TEST(test_in_place)
{
    static const size_t sizes[] = { 1, 7, 500, 492, 999, 1000, 1, 1001, 2500, 3, 998, 2 };
    enum { MAX = 2500, TOTAL = 7504 };
    static int64_t secs[MAX], want[TOTAL];
    static int16_t def[MAX];
    for (int narrow = 0; narrow < 2; narrow++) {
        inlay_type t = narrow ? inlay_type_date() : inlay_type_timestamp(INLAY_MICROS, true);
        file f[2];
        size_t nwant = 0;
        for (int refuse = 0; refuse < 2; refuse++) {
            inlay_options o = options();
            inlay_writer *w = open_one(&f[refuse], "t", INLAY_OPTIONAL, t,
                                       narrow ? INLAY_ENCODING_PLAIN : INLAY_ENCODING_DELTA, &o);
            int64_t row = 0;
            for (size_t b = 0; b < sizeof sizes / sizeof *sizes; b++) {
                const size_t n = sizes[b];
                size_t nv = 0;
                for (size_t i = 0; i < n; i++, row++) {
                    def[i] = row % 9 != 4;
                    if (!def[i]) continue;
                    secs[nv] = 1700000000 + row * 86399 - (row % 5) * 7;
                    if (!refuse)
                        want[nwant++] = narrow ? (int64_t)floor_div128(secs[nv], 86400) : secs[nv] * 1000000;
                    nv++;
                }
                inlay_levels lv = { def, NULL, NULL };
                if (refuse && nv > 1) {   /* the same batch with its last value past the column */
                    int64_t keep = secs[nv - 1];
                    secs[nv - 1] = narrow ? (int64_t)1 << 50 : INT64_MAX / 10;
                    ck_assert_int_eq(inlay_writer_append_time(w, 0, secs, n, INLAY_UNIT_SECONDS, &lv), INLAY_ERR_VALUE);
                    secs[nv - 1] = keep;
                }
                APPEND_OK(inlay_writer_append_time(w, 0, secs, n, INLAY_UNIT_SECONDS, &lv));
            }
            finish(w, &f[refuse]);
        }
        ck_assert_msg(f[0].out.len == f[1].out.len && memcmp(f[0].out.data, f[1].out.data, f[0].out.len) == 0,
                      "refused calls converted in place changed the file (%s)", narrow ? "date" : "timestamp");
        decoded d = { 0 };
        decode_column(&f[0], "t", narrow ? 4 : 8, 1, 0, &d);
        if (narrow) {
            static int32_t days[TOTAL];
            for (size_t i = 0; i < nwant; i++) days[i] = (int32_t)want[i];
            expect_fixed(&d, days, nwant, 4);
        } else {
            expect_fixed(&d, want, nwant, 8);
        }
        ck_assert_uint_eq(d.nlevels, TOTAL);
        decoded_free(&d);
        file_free(&f[0]);
        file_free(&f[1]);
    }
}
END_TEST

START_TEST(test_seconds_to_micros)
{
    const int64_t s[] = { 0, 1, -1, 1700000000, -86400, 9223372036854LL };
    int64_t want[6];
    for (int i = 0; i < 6; i++) want[i] = s[i] * 1000000;
    file f;
    decoded d = { 0 };
    write_time(&f, inlay_type_timestamp(INLAY_MICROS, true), INLAY_REQUIRED, s, 6, INLAY_UNIT_SECONDS, NULL, &d);
    expect_fixed(&d, want, 6, 8);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_nanos_to_micros)
{
    const int64_t ns[] = { -1, -1000, -1001, 999, 1000, 1999, 1700000000123456789LL, INT64_MIN };
    const int64_t want[] = { -1, -1, -2, 0, 1, 1, 1700000000123456LL, -9223372036854776LL };
    file f;
    decoded d = { 0 };
    write_time(&f, inlay_type_timestamp(INLAY_MICROS, false), INLAY_REQUIRED, ns, 8, INLAY_UNIT_NANOS, NULL, &d);
    expect_fixed(&d, want, 8, 8);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_seconds_to_date)
{
    const int64_t s[] = { -1, 0, 86399, 86400, -86401, 1700000000 };
    const int32_t want[] = { -1, 0, 0, 1, -2, 19675 };
    file f;
    decoded d = { 0 };
    write_time(&f, inlay_type_date(), INLAY_REQUIRED, s, 6, INLAY_UNIT_SECONDS, NULL, &d);
    expect_fixed(&d, want, 6, 4);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_micros_to_time_millis)
{
    const int64_t us[] = { 0, 1500, 1999, 86399999999LL, 43200000000LL };
    const int32_t want[] = { 0, 1, 1, 86399999, 43200000 };
    file f;
    decoded d = { 0 };
    write_time(&f, inlay_type_time(INLAY_MILLIS, true), INLAY_REQUIRED, us, 5, INLAY_UNIT_MICROS, NULL, &d);
    expect_fixed(&d, want, 5, 4);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

/* Every column kind from every unit, with nulls given as def levels: the
 * values that fit (for TIME, within a day) land as reference() says. */
START_TEST(test_every_column_kind)
{
    static const struct { inlay_logical kind; inlay_time_unit u; } kinds[] = {
        { INLAY_LOGICAL_DATE, INLAY_MILLIS }, { INLAY_LOGICAL_TIME, INLAY_MILLIS },
        { INLAY_LOGICAL_TIME, INLAY_MICROS }, { INLAY_LOGICAL_TIME, INLAY_NANOS },
        { INLAY_LOGICAL_TIMESTAMP, INLAY_MILLIS }, { INLAY_LOGICAL_TIMESTAMP, INLAY_MICROS },
        { INLAY_LOGICAL_TIMESTAMP, INLAY_NANOS },
    };
    const int k = _i / 5;
    const inlay_unit from = (inlay_unit)(_i % 5);
    inlay_type t;
    inlay_unit to;
    if (kinds[k].kind == INLAY_LOGICAL_DATE) {
        t = inlay_type_date();
        to = INLAY_UNIT_DAYS;
    } else {
        t = kinds[k].kind == INLAY_LOGICAL_TIME ? inlay_type_time(kinds[k].u, false)
                                                : inlay_type_timestamp(kinds[k].u, true);
        to = (inlay_unit)(INLAY_UNIT_MILLIS + (int)kinds[k].u);
    }
    const bool narrow = t.physical == INLAY_INT32;
    const bool time = kinds[k].kind == INLAY_LOGICAL_TIME;
    const __int128 per_day = (__int128)NS[INLAY_UNIT_DAYS] / NS[to];
    /* targets whose input in `from` stays well inside int64 */
    __int128 bound = narrow ? (__int128)INT32_MAX : (__int128)INT64_MAX / 1000;
    const __int128 by_input = (__int128)(INT64_MAX / 2) * NS[from] / NS[to];
    if (by_input < bound) bound = by_input;
    if (bound < 1) bound = 1;
    enum { N = 2000 };
    static int64_t v[N], want64[N];
    static int32_t want32[N];
    static int16_t def[N];
    uint64_t rng = 500 + (uint64_t)_i;
    size_t nv = 0;
    for (size_t i = 0; i < N; i++) {
        def[i] = rng_next(&rng) % 5 != 0;
        if (!def[i]) continue;
        /* a target in range, then an input in `from` that floors to it */
        __int128 target;
        uint64_t r = rng_next(&rng);
        if (time) target = (__int128)(r % (uint64_t)per_day);
        else target = (__int128)(int64_t)r % bound;
        __int128 x = target * NS[to];
        if (NS[from] <= NS[to])      /* anywhere within the target's unit */
            x += (__int128)(rng_next(&rng) % (uint64_t)(NS[to] / NS[from])) * NS[from];
        int64_t in = clamp64(floor_div128(x, NS[from]));
        __int128 got = reference(in, from, to);
        if (!fits(got, narrow) || (time && (got < 0 || got >= per_day))) in = 0, got = 0;
        v[nv] = in;
        if (narrow) want32[nv] = (int32_t)got;
        else want64[nv] = (int64_t)got;
        nv++;
    }
    inlay_levels lv = { def, NULL, NULL };
    file f;
    decoded d = { 0 };
    write_time(&f, t, INLAY_OPTIONAL, v, N, from, &lv, &d);
    ck_assert_int_eq(memcmp(d.def, def, sizeof def), 0);
    if (narrow) expect_fixed(&d, want32, nv, 4);
    else expect_fixed(&d, want64, nv, 8);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

/* ---- refused calls change nothing ----------------------------------------------------------- */

enum { C_TS, C_DAY, C_TOD, C_NAME, C_COUNT, C_RAW, NCOLS };

static inlay_schema *time_schema(void)
{
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "ts", INLAY_OPTIONAL, inlay_type_timestamp(INLAY_MICROS, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "day", INLAY_OPTIONAL, inlay_type_date(), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "tod", INLAY_REQUIRED, inlay_type_time(INLAY_MILLIS, false), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "name", INLAY_OPTIONAL, inlay_type_string(), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "count", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "raw", INLAY_REQUIRED, inlay_type_physical(INLAY_INT64), NULL), 0);
    return s;
}

/* Ten rows starting at row r in every column, through append_time where
 * it applies. */
static void append_rows(inlay_writer *w, int r)
{
    int64_t secs[10], us_of_day[10], counts[10];
    inlay_bytes names[10];
    for (int i = 0; i < 10; i++) {
        secs[i] = 1700000000 + (int64_t)(r + i) * 3607;
        us_of_day[i] = (int64_t)(r + i) * 1000123;
        counts[i] = r + i;
        names[i] = bytes_of("x");
    }
    APPEND_OK(inlay_writer_append_time(w, C_TS, secs, 10, INLAY_UNIT_SECONDS, NULL));
    APPEND_OK(inlay_writer_append_time(w, C_DAY, secs, 10, INLAY_UNIT_SECONDS, NULL));
    APPEND_OK(inlay_writer_append_time(w, C_TOD, us_of_day, 10, INLAY_UNIT_MICROS, NULL));
    APPEND_OK(inlay_writer_append_bytes(w, C_NAME, names, 10, NULL));
    APPEND_OK(inlay_writer_append_i64(w, C_COUNT, counts, 10, NULL));
    APPEND_OK(inlay_writer_append_i64(w, C_RAW, counts, 10, NULL));
}

typedef struct refused_call {
    const char *what;
    int status;
    const char *column;        /* as the message must name it, or NULL */
    long row;                  /* -1: no row in the message */
    int (*call)(inlay_writer *w);
} refused_call;

static int ts_seconds_overflow(inlay_writer *w)
{
    static const int64_t v[] = { 1, 2, INT64_MAX };
    return inlay_writer_append_time(w, C_TS, v, 3, INLAY_UNIT_SECONDS, NULL);
}

static int ts_seconds_underflow(inlay_writer *w)
{
    static const int64_t v[] = { INT64_MIN };
    return inlay_writer_append_time(w, C_TS, v, 1, INLAY_UNIT_SECONDS, NULL);
}

static int ts_days_overflow(inlay_writer *w)
{
    static const int64_t v[] = { 0, 106751991, 106751992 };   /* days: the last is past int64 micros */
    return inlay_writer_append_time(w, C_TS, v, 3, INLAY_UNIT_DAYS, NULL);
}

static int ts_overflow_after_nulls(inlay_writer *w)
{
    /* dense values with def levels: the bad value is entry 3 */
    static const int64_t v[] = { 1, 2, INT64_MAX / 1000 + 1 };
    static const int16_t def[] = { 1, 0, 1, 1 };
    inlay_levels lv = { def, NULL, NULL };
    return inlay_writer_append_time(w, C_TS, v, 4, INLAY_UNIT_MILLIS, &lv);
}

static int ts_overflow_valid_slot(inlay_writer *w)
{
    /* spaced values with a bitmap: row 1 null, row 2 present and too big */
    static const int64_t v[] = { 1, INT64_MAX, INT64_MAX };
    static const uint8_t valid[] = { 0x05 };
    inlay_levels lv = { NULL, NULL, valid };
    return inlay_writer_append_time(w, C_TS, v, 3, INLAY_UNIT_SECONDS, &lv);
}

static int day_overflow(inlay_writer *w)
{
    static const int64_t v[] = { 0, ((int64_t)INT32_MAX + 1) * 86400 };
    return inlay_writer_append_time(w, C_DAY, v, 2, INLAY_UNIT_SECONDS, NULL);
}

static int tod_int32_overflow(inlay_writer *w)
{
    static const int64_t v[] = { 5, ((int64_t)INT32_MAX + 1) * 1000 };
    return inlay_writer_append_time(w, C_TOD, v, 2, INLAY_UNIT_MICROS, NULL);
}

static int tod_past_midnight(inlay_writer *w)
{
    static const int64_t v[] = { 86400000000LL };    /* 24:00:00.000 */
    return inlay_writer_append_time(w, C_TOD, v, 1, INLAY_UNIT_MICROS, NULL);
}

static int tod_negative(inlay_writer *w)
{
    static const int64_t v[] = { 0, -1 };             /* floors to -1 ms */
    return inlay_writer_append_time(w, C_TOD, v, 2, INLAY_UNIT_MICROS, NULL);
}

static int time_on_string(inlay_writer *w)
{
    static const int64_t v[] = { 1 };
    return inlay_writer_append_time(w, C_NAME, v, 1, INLAY_UNIT_SECONDS, NULL);
}

static int time_on_int(inlay_writer *w)
{
    static const int64_t v[] = { 1 };
    return inlay_writer_append_time(w, C_COUNT, v, 1, INLAY_UNIT_SECONDS, NULL);
}

static int time_on_plain_int64(inlay_writer *w)
{
    static const int64_t v[] = { 1 };
    return inlay_writer_append_time(w, C_RAW, v, 1, INLAY_UNIT_MICROS, NULL);
}

static int time_bad_unit(inlay_writer *w)
{
    static const int64_t v[] = { 1 };
    return inlay_writer_append_time(w, C_TS, v, 1, (inlay_unit)5, NULL);
}

static int time_bad_column(inlay_writer *w)
{
    static const int64_t v[] = { 1 };
    return inlay_writer_append_time(w, NCOLS, v, 1, INLAY_UNIT_SECONDS, NULL);
}

static int time_null_required(inlay_writer *w)
{
    /* a null in a required column is a null, whatever its slot holds */
    static const int64_t v[] = { 1, INT64_MAX };
    static const uint8_t valid[] = { 0x01 };
    inlay_levels lv = { NULL, NULL, valid };
    return inlay_writer_append_time(w, C_TOD, v, 2, INLAY_UNIT_MICROS, &lv);
}

static const refused_call refused[] = {
    { "seconds overflow micros", INLAY_ERR_VALUE, "'ts'", 22, ts_seconds_overflow },
    { "seconds underflow micros", INLAY_ERR_VALUE, "'ts'", 20, ts_seconds_underflow },
    { "days overflow micros", INLAY_ERR_VALUE, "'ts'", 22, ts_days_overflow },
    { "overflow after nulls", INLAY_ERR_VALUE, "'ts'", 23, ts_overflow_after_nulls },
    { "overflow in a present slot", INLAY_ERR_VALUE, "'ts'", 22, ts_overflow_valid_slot },
    { "date past int32", INLAY_ERR_VALUE, "'day'", 21, day_overflow },
    { "time of day past int32", INLAY_ERR_VALUE, "'tod'", 21, tod_int32_overflow },
    { "time of day 24:00", INLAY_ERR_VALUE, "'tod'", 20, tod_past_midnight },
    { "negative time of day", INLAY_ERR_VALUE, "'tod'", 21, tod_negative },
    { "string column", INLAY_ERR_TYPE, "'name'", -1, time_on_string },
    { "INT(64) column", INLAY_ERR_TYPE, "'count'", -1, time_on_int },
    { "plain INT64 column", INLAY_ERR_TYPE, "'raw'", -1, time_on_plain_int64 },
    { "unknown unit", INLAY_ERR_ARGUMENT, NULL, -1, time_bad_unit },
    { "no such column", INLAY_ERR_COLUMN, NULL, -1, time_bad_column },
    { "null in a required column", INLAY_ERR_NULL, "'tod'", 21, time_null_required },
};
enum { NREFUSED = sizeof refused / sizeof refused[0] };

static bool mentions_row(const char *msg, long row)
{
    char want[32];
    snprintf(want, sizeof want, "row %ld", row);
    for (const char *p = strstr(msg, want); p; p = strstr(p + 1, want)) {
        char next = p[strlen(want)];
        if (next < '0' || next > '9') return true;
    }
    return false;
}

/* Rows 0..19, then (in file A) the refused call, then rows 20..39: A and
 * a file B written without the call are the same bytes. */
START_TEST(test_refused_changes_nothing)
{
    const refused_call *k = &refused[_i];
    inlay_buffer a, b;
    for (int pass = 0; pass < 2; pass++) {
        inlay_schema *s = time_schema();
        inlay_options o = options();
        o.page_rows = 15;
        inlay_buffer *out = pass ? &b : &a;
        inlay_buffer_init(out, NULL);
        inlay_writer *w;
        ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(out), s, &o), INLAY_OK);
        inlay_schema_free(s);
        append_rows(w, 0);
        append_rows(w, 10);
        if (pass == 0) {
            int st = k->call(w);
            const char *msg = inlay_writer_errmsg(w);
            ck_assert_msg(st == k->status, "%s: status %d, want %d (%s)", k->what, st, k->status, msg);
            if (k->column) ck_assert_msg(strstr(msg, k->column), "%s: \"%s\" does not name %s", k->what, msg, k->column);
            if (k->row >= 0) ck_assert_msg(mentions_row(msg, k->row), "%s: \"%s\" does not say row %ld", k->what, msg, k->row);
            ck_assert_uint_eq(inlay_writer_rows(w), 20);
        }
        append_rows(w, 20);
        append_rows(w, 30);
        ck_assert_msg(inlay_writer_close(w) == INLAY_OK, "%s: %s", k->what, inlay_writer_errmsg(w));
        inlay_writer_free(w);
    }
    ck_assert_msg(a.len == b.len && memcmp(a.data, b.data, a.len) == 0, "%s: the files differ", k->what);
    inlay_buffer_free(&a);
    inlay_buffer_free(&b);
}
END_TEST

/* ---- nulls never overflow ------------------------------------------------------------------- */

START_TEST(test_null_slot_overflow_is_not_an_error)
{
    /* spaced values with a bitmap: the slots of nulls hold values that
     * could not be converted, and are ignored */
    const int64_t secs[] = { 1, INT64_MAX, 3, INT64_MIN, 5 };
    const uint8_t valid[] = { 0x15 };                    /* rows 0, 2, 4 */
    inlay_levels lv = { NULL, NULL, valid };
    const int16_t want_def[] = { 1, 0, 1, 0, 1 };
    file f;
    decoded d = { 0 };
    write_time(&f, inlay_type_timestamp(INLAY_MICROS, true), INLAY_OPTIONAL, secs, 5, INLAY_UNIT_SECONDS, &lv, &d);
    const int64_t want[] = { 1000000, 3000000, 5000000 };
    ck_assert_int_eq(memcmp(d.def, want_def, sizeof want_def), 0);
    expect_fixed(&d, want, 3, 8);
    decoded_free(&d);
    file_free(&f);

    /* narrowed: DATE, whose day would not fit int32 */
    d = (decoded){ 0 };
    write_time(&f, inlay_type_date(), INLAY_OPTIONAL, secs, 5, INLAY_UNIT_SECONDS, &lv, &d);
    const int32_t days[] = { 0, 0, 0 };
    ck_assert_int_eq(memcmp(d.def, want_def, sizeof want_def), 0);
    expect_fixed(&d, days, 3, 4);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_null_slot_time_of_day)
{
    /* TIME(ms): the slot of a null may hold a time outside the day, or
     * one past int32 once converted */
    const int64_t us[] = { 1000, -5, 2000, INT64_MAX, 86399999999LL };
    const uint8_t valid[] = { 0x15 };                    /* rows 0, 2, 4 */
    inlay_levels lv = { NULL, NULL, valid };
    file f;
    decoded d = { 0 };
    write_time(&f, inlay_type_time(INLAY_MILLIS, true), INLAY_OPTIONAL, us, 5, INLAY_UNIT_MICROS, &lv, &d);
    const int32_t want[] = { 1, 2, 86399999 };
    const int16_t want_def[] = { 1, 0, 1, 0, 1 };
    ck_assert_int_eq(memcmp(d.def, want_def, sizeof want_def), 0);
    expect_fixed(&d, want, 3, 4);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

/* ---- steady state allocates nothing -------------------------------------------------------------- */

START_TEST(test_no_allocation_in_steady_state)
{
    /* Default pages (20000 rows): 21 warm-up batches of 1000 end the first
     * page, where the cost check drops the dictionary of these distinct
     * sorted timestamps. After that, appending within the second page
     * (through append_time and append_i64 alike) allocates nothing. */
    test_alloc ta = { 0 };
    inlay_options o;
    inlay_options_init(&o);
    o.alloc = test_allocator(&ta);
    o.threads = 1;   /* counts of allocations per call: the jobs handed to workers would vary */
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "ts", INLAY_REQUIRED, inlay_type_timestamp(INLAY_MICROS, true), NULL), 0);
    file f = { .meta = NULL };
    inlay_buffer_init(&f.out, NULL);                      /* the file's bytes are not counted */
    inlay_writer *w;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&f.out), s, &o), INLAY_OK);
    inlay_schema_free(s);
    enum { B = 1000, WARM = 21, MEASURED = 5, N = (WARM + 2 * MEASURED) * B };
    static int64_t secs[N], want[N];
    for (size_t i = 0; i < N; i++) {
        secs[i] = 1700000000 + (int64_t)i * 3 + (int64_t)(i * 7 % 3);
        want[i] = secs[i] * 1000000;
    }
    size_t at = 0;
    for (int k = 0; k < WARM; k++, at += B)
        APPEND_OK(inlay_writer_append_time(w, 0, secs + at, B, INLAY_UNIT_SECONDS, NULL));
    const unsigned long before = ta.requests;
    for (int k = 0; k < MEASURED; k++, at += B)
        APPEND_OK(inlay_writer_append_time(w, 0, secs + at, B, INLAY_UNIT_SECONDS, NULL));
    const unsigned long after_time = ta.requests;
    for (int k = 0; k < MEASURED; k++, at += B)
        APPEND_OK(inlay_writer_append_i64(w, 0, want + at, B, NULL));
    const unsigned long after_i64 = ta.requests;
    ck_assert_msg(after_time == before, "append_time: %lu allocations in steady state", after_time - before);
    ck_assert_msg(after_i64 == after_time, "append_i64: %lu allocations in steady state", after_i64 - after_time);
    finish(w, &f);
    ck_assert_no_leak(&ta);
    /* and it was the steady state the test means: two pages, no dictionary */
    decoded d = { 0 };
    decode_column(&f, "ts", 8, 0, 0, &d);
    expect_fixed(&d, want, N, 8);
    ck_assert_int_eq(d.dictionary_pages, 0);
    ck_assert_uint_eq(d.npages, 2);
    ck_assert_int_eq(d.pages[0].num_values, 20000);
    expect_all_pages(&d, E_DBP);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

static Suite *timeconv_suite(void)
{
    Suite *s = suite_create("timeconv");
    TCase *c;

    c = tcase_create("conversion");
    tcase_add_test(c, test_unit_ns);
    tcase_add_test(c, test_multiply);
    tcase_add_test(c, test_floor);
    tcase_add_test(c, test_narrow);
    tcase_add_test(c, test_validity);
    tcase_add_test(c, test_public_convert);
    tcase_add_loop_test(c, test_every_pair, 0, 25);
    tcase_add_loop_test(c, test_fast_paths, 0, 25);
    tcase_add_test(c, test_offset_arrays);
    suite_add_tcase(s, c);

    c = tcase_create("append_time");
    tcase_add_test(c, test_in_place);
    tcase_add_test(c, test_seconds_to_micros);
    tcase_add_test(c, test_nanos_to_micros);
    tcase_add_test(c, test_seconds_to_date);
    tcase_add_test(c, test_micros_to_time_millis);
    tcase_add_loop_test(c, test_every_column_kind, 0, 7 * 5);
    tcase_add_loop_test(c, test_refused_changes_nothing, 0, NREFUSED);
    tcase_add_test(c, test_null_slot_overflow_is_not_an_error);
    tcase_add_test(c, test_null_slot_time_of_day);
    suite_add_tcase(s, c);

    c = tcase_create("allocation");
    tcase_add_test(c, test_no_allocation_in_steady_state);
    suite_add_tcase(s, c);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(timeconv_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
