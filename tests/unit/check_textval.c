/*
 * check_textval.c — text fields to typed values (runtime/input/textval.c).
 *
 * One TCase per family: integers at the limits of every width, floats and
 * doubles bit for bit against strtod/strtof (hand-picked edges, halfway
 * cases, and a few hundred thousand seeded random literals), booleans,
 * exact decimals up to 38 digits with their 128-bit two's complement,
 * dates against timegm and the 400-year cycle, timestamps with every zone
 * form and the floor of fractions before 1970, times, classification for
 * inference, and reads that never pass the end: every input (and every
 * prefix of it) is parsed from the last bytes of a page followed by a
 * PROT_NONE page, and the random literals carry a digit right after len.
 *
 * textval allocates nothing (no allocator goes in), so there is no
 * allocation-failure case to inject.
 */
#define _GNU_SOURCE   /* timegm */
#include "textval.h"

#include <float.h>
#include <math.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"

/* ck_assert_* records every passing check through a pipe to the parent;
 * the loops over hundreds of thousands of inputs check with this instead,
 * which costs nothing until it fails. */
#define expect(cond, ...)                                                                 \
    do {                                                                                  \
        if (!(cond)) ck_abort_msg(__VA_ARGS__);                                           \
    } while (0)

static int parse_int(const char *s, int width, bool is_signed, int64_t *out)
{
    return inl_textval_int(s, strlen(s), width, is_signed, out);
}

#define ck_int_ok(s, width, sgn, want)                                                    \
    do {                                                                                  \
        int64_t got_ = 12345;                                                             \
        ck_assert_msg(parse_int(s, width, sgn, &got_) == TEXTVAL_OK, "\"%s\" refused", s); \
        ck_assert_msg(got_ == (int64_t)(want), "\"%s\": %lld", s, (long long)got_);       \
    } while (0)

#define ck_int_rc(s, width, sgn, rc)                                                      \
    do {                                                                                  \
        int64_t got_ = 12345;                                                             \
        ck_assert_msg(parse_int(s, width, sgn, &got_) == (rc), "\"%s\" not %d", s, rc);   \
        ck_assert_int_eq(got_, 12345);                                                    \
    } while (0)

static uint64_t bits_d(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

static uint32_t bits_f(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* ---- integers ------------------------------------------------------------------------ */

START_TEST(test_int_limits)
{
    char text[64];
    static const int widths[] = { 8, 16, 32, 64 };
    for (int i = 0; i < 4; i++) {
        int w = widths[i];
        /* signed: min, max, min - 1, max + 1 */
        __int128 smax = ((__int128)1 << (w - 1)) - 1, smin = -smax - 1;
        snprintf(text, sizeof text, "%lld", (long long)smax);
        ck_int_ok(text, w, true, smax);
        snprintf(text, sizeof text, "%lld", (long long)smin);
        ck_int_ok(text, w, true, smin);
        snprintf(text, sizeof text, "%llu", (unsigned long long)(smax + 1));
        ck_int_rc(text, w, true, TEXTVAL_RANGE);
        snprintf(text, sizeof text, "-%llu", (unsigned long long)(-smin + 1));
        ck_int_rc(text, w, true, TEXTVAL_RANGE);
        /* unsigned: 0, max, -1, max + 1 */
        unsigned __int128 umax = ((unsigned __int128)1 << w) - 1;
        snprintf(text, sizeof text, "%llu", (unsigned long long)umax);
        ck_int_ok(text, w, false, (int64_t)(uint64_t)umax);
        ck_int_ok("0", w, false, 0);
        ck_int_rc("-1", w, false, TEXTVAL_RANGE);
        if (w < 64) {
            snprintf(text, sizeof text, "%llu", (unsigned long long)(umax + 1));
            ck_int_rc(text, w, false, TEXTVAL_RANGE);
        }
    }
    ck_int_ok("18446744073709551615", 64, false, -1);   /* UINT64_MAX as its bit pattern */
    ck_int_ok("9223372036854775808", 64, false, INT64_MIN);
    ck_int_rc("18446744073709551616", 64, false, TEXTVAL_RANGE);
    ck_int_rc("18446744073709551620", 64, false, TEXTVAL_RANGE);
    ck_int_rc("99999999999999999999", 64, false, TEXTVAL_RANGE);
    ck_int_ok("-9223372036854775808", 64, true, INT64_MIN);
    ck_int_rc("-9223372036854775809", 64, true, TEXTVAL_RANGE);
    ck_int_rc("9223372036854775808", 64, true, TEXTVAL_RANGE);
    ck_int_rc("-18446744073709551616", 64, true, TEXTVAL_RANGE);
    ck_int_rc("123456789012345678901234567890", 64, true, TEXTVAL_RANGE);
    ck_int_rc("-123456789012345678901234567890", 32, true, TEXTVAL_RANGE);
    /* widths other than the column ones still range-check */
    ck_int_ok("-1", 1, true, -1);
    ck_int_rc("1", 1, true, TEXTVAL_RANGE);
    ck_int_ok("1", 1, false, 1);
    ck_int_rc("2", 1, false, TEXTVAL_RANGE);
    ck_int_rc("0", 0, true, TEXTVAL_RANGE);
    ck_int_rc("0", 65, true, TEXTVAL_RANGE);
}
END_TEST

START_TEST(test_int_forms)
{
    ck_int_ok("0", 32, true, 0);
    ck_int_ok("+0", 32, true, 0);
    ck_int_ok("-0", 32, true, 0);
    ck_int_ok("-0", 32, false, 0);
    ck_int_ok("-000", 8, false, 0);
    ck_int_ok("+255", 8, false, 255);
    ck_int_ok("+127", 8, true, 127);
    ck_int_ok("007", 8, true, 7);
    ck_int_ok("-007", 8, true, -7);
    ck_int_ok("12345678", 32, true, 12345678);
    ck_int_ok("123456789", 32, true, 123456789);
    ck_int_ok("1234567890123456", 64, true, 1234567890123456LL);
    ck_int_ok("1234567890123456789", 64, true, 1234567890123456789LL);
    ck_int_ok("0000000000000000000000000042", 8, true, 42);
    ck_int_ok("-0000000000000000000000000128", 8, true, -128);
    ck_int_ok("0000000000000000000000000000", 64, false, 0);
    ck_int_ok("00000000000000000000018446744073709551615", 64, false, -1);
    ck_int_ok("000000000000000000009223372036854775807", 64, true, INT64_MAX);
    ck_int_rc("-5", 64, false, TEXTVAL_RANGE);
    static const char *bad[] = {
        "", "+", "-", "--1", "+-1", "-+1", "1a", "a1", " 1", "1 ", "1.0", "1.", ".1", "0x10",
        "1e3", "1_000", "1,000", "١", "12345678a", "1234567a9", "a2345678", "123456781234567x",
        "99999999999999999999999x", "0000000000000000000000000000x", "12345678\xb9", "1234567/",
        "123456:8", "\xb1", "1\xb0", "12345678123456\xb0",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        size_t n = strlen(bad[i]);
        int64_t v = 77;
        ck_assert_msg(inl_textval_int(bad[i], n, 64, true, &v) == TEXTVAL_SYNTAX, "\"%s\" accepted", bad[i]);
        ck_assert_msg(inl_textval_int(bad[i], n, 64, false, &v) == TEXTVAL_SYNTAX, "\"%s\" accepted", bad[i]);
        ck_assert_int_eq(v, 77);
    }
    /* a NUL inside the text is a character like any other */
    int64_t v = 77;
    ck_assert_int_eq(inl_textval_int("1\0", 2, 64, true, &v), TEXTVAL_SYNTAX);
    ck_assert_int_eq(inl_textval_int("12345678\0", 9, 64, true, &v), TEXTVAL_SYNTAX);
    ck_assert_int_eq(v, 77);
}
END_TEST

/* Integer text of random length (around the 8-digit blocks and the 19/20
 * digit edges), sometimes with a stray character, against a 128-bit
 * reference. */
START_TEST(test_int_random)
{
    uint64_t seed = 0x1234567ULL;
    char text[48];
    for (int iter = 0; iter < 200000; iter++) {
        uint64_t r = rng_next(&seed);
        size_t n = 0;
        int sign = (int)(r % 5);
        if (sign == 1) text[n++] = '-';
        if (sign == 2) text[n++] = '+';
        size_t digits = 1 + (size_t)(rng_next(&seed) % 24);
        size_t zeros = rng_next(&seed) % 4 == 0 ? rng_next(&seed) % 6 : 0;
        for (size_t i = 0; i < digits; i++)
            text[n++] = i < zeros ? '0' : (char)('0' + rng_next(&seed) % 10);
        if (rng_next(&seed) % 16 == 0) text[rng_next(&seed) % n] = (char)(rng_next(&seed) % 256);
        text[n] = '5';   /* a digit past the end must not be read */

        /* reference */
        int want = TEXTVAL_OK;
        unsigned __int128 mag = 0;
        size_t i = 0;
        bool neg = false;
        if (text[0] == '-' || text[0] == '+') neg = text[i++] == '-';
        if (i == n) want = TEXTVAL_SYNTAX;
        for (; i < n; i++) {
            unsigned d = (unsigned)(unsigned char)text[i] - '0';
            if (d > 9) want = TEXTVAL_SYNTAX;
            else if (mag < ((unsigned __int128)1 << 100)) mag = mag * 10 + d;
        }
        static const int widths[] = { 8, 16, 32, 64 };
        for (int w = 0; w < 4; w++) {
            for (int sgn = 0; sgn < 2; sgn++) {
                int bw = widths[w];
                unsigned __int128 pos_max = sgn ? ((unsigned __int128)1 << (bw - 1)) - 1
                                                : ((unsigned __int128)1 << bw) - 1;
                unsigned __int128 neg_max = sgn ? pos_max + 1 : 0;
                int rc = want;
                if (rc == TEXTVAL_OK && mag > (neg ? neg_max : pos_max)) rc = TEXTVAL_RANGE;
                int64_t got = 0;
                int got_rc = inl_textval_int(text, n, bw, sgn, &got);
                expect(got_rc == rc, "\"%.*s\" width %d signed %d: %d, want %d", (int)n, text, bw, sgn,
                       got_rc, rc);
                if (rc == TEXTVAL_OK) {
                    int64_t v = neg ? (int64_t)(0 - (uint64_t)mag) : (int64_t)(uint64_t)mag;
                    expect(got == v, "\"%.*s\": %lld", (int)n, text, (long long)got);
                }
            }
        }
    }
}
END_TEST

/* ---- floating point ----------------------------------------------------------------------- */

/* inl_textval_double and inl_textval_float on s[0..n) (with a digit after it) must
 * agree bit for bit with strtod/strtof, or be TEXTVAL_RANGE where those
 * overflow. */
static void agree_double(const char *s, size_t n)
{
    char *copy = malloc(n + 2);
    memcpy(copy, s, n);
    copy[n] = 0;
    char *end;
    double ref = strtod(copy, &end);
    expect(end == copy + n, "strtod stops early in \"%s\"", copy);
    copy[n] = '7';
    double got = 0.5;
    int rc = inl_textval_double(copy, n, &got);
    copy[n] = 0;
    bool word = strpbrk(copy, "iInN") != NULL;   /* inf or nan: no overflow */
    if (isinf(ref) && !word) {
        expect(rc == TEXTVAL_RANGE, "\"%s\" overflows but gives %d", copy, rc);
        expect(bits_d(got) == bits_d(0.5), "\"%s\" wrote its output on failure", copy);
    } else {
        expect(rc == TEXTVAL_OK, "\"%s\" refused (%d)", copy, rc);
        expect(bits_d(got) == bits_d(ref), "\"%s\": %a, strtod %a", copy, got, ref);
    }
    float ref_f = strtof(copy, NULL);
    float got_f = 0.5f;
    copy[n] = '7';
    rc = inl_textval_float(copy, n, &got_f);
    copy[n] = 0;
    if (isinf(ref_f) && !word) {
        expect(rc == TEXTVAL_RANGE, "\"%s\" overflows float but gives %d", copy, rc);
    } else {
        expect(rc == TEXTVAL_OK, "\"%s\" refused as float (%d)", copy, rc);
        expect(bits_f(got_f) == bits_f(ref_f), "\"%s\": %a, strtof %a", copy, (double)got_f,
               (double)ref_f);
    }
    free(copy);
}

static void agree(const char *s)
{
    agree_double(s, strlen(s));
}

START_TEST(test_double_edges)
{
    static const char *cases[] = {
        "0", "-0", "+0", "0.0", "-0.0", "0e0", "-0e-999999999999", "0e999999999999999", ".0", "0.",
        "1", "-1", "+1", "1.5", ".5", "5.", "-.5", "+5.", "1e0", "1E+2", "1e-2", "1.e3", ".1e3",
        "123.456", "-123.456e-7", "00000001.0000000", "3.14159265358979323846264338327950288",
        "0.1", "0.2", "0.3", "0.30000000000000004", "0.1e1", "1e22", "1e23", "9007199254740992",
        "9007199254740993", "9007199254740994", "9007199254740995", "18014398509481985",
        "123456789012345", "1234567890123456", "12345678901234567", "123456789012345678901234567890",
        "1e15", "1e16", "1.7976931348623157e308", "1.7976931348623158e308",
        "1.7976931348623159e308", "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791",
        "2.2250738585072014e-308", "2.2250738585072011e-308", "2.2250738585072012e-308",
        "4.9406564584124654e-324", "2.4703282292062327e-324", "2.4703282292062328e-324",
        "5e-324", "3e-324", "2e-324", "1e-400", "-1e-400", "1e-99999999999", "1e308", "1e309",
        "-1e309", "1e400", "1e99999999999999999999", "123e-20", "123e20", "4.35", "8.41e21",
        "5e-20", "1e-22", "1e-23", "9007199254740993e-22", "9007199254740992e22",
        "9007199254740993e22", "1234567e30", "12345e37", "1e37", "1e38", "3.4028234663852886e38",
        "3.4028235e38", "3.40282357e38", "3.4028236e38", "1.17549435e-38", "1.4e-45", "7e-46",
        "7.1e-46", "16777216", "16777217", "16777219", "33554435", "1e10", "1e11", "1.5e17",
        "16777216e10", "16777217e10", "0.000000000000000000000000000000000000000000001",
        "1.00000005960464477539062499", "1.000000059604644775390625", "1.00000005960464477539062501",
        "nan", "NaN", "-nan", "+NAN", "inf", "-Inf", "+INF", "infinity", "-Infinity", "INFINITY",
        "2.470328229206232720882778e-324", "0.000000000000000000000000000000000000000000000000000001",
        "1.9999999999999999999999999999999999999", "0.9999999999999999999999999999999999",
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) agree(cases[i]);

    /* nan and inf carry their sign */
    double d;
    ck_assert_int_eq(inl_textval_double("-nan", 4, &d), TEXTVAL_OK);
    ck_assert(isnan(d) && signbit(d));
    ck_assert_int_eq(inl_textval_double("nan", 3, &d), TEXTVAL_OK);
    ck_assert(isnan(d) && !signbit(d));
    ck_assert_int_eq(inl_textval_double("-infinity", 9, &d), TEXTVAL_OK);
    ck_assert(isinf(d) && d < 0);
    float f;
    ck_assert_int_eq(inl_textval_float("-NaN", 4, &f), TEXTVAL_OK);
    ck_assert(isnan(f) && signbit(f));
    ck_assert_int_eq(inl_textval_float("Inf", 3, &f), TEXTVAL_OK);
    ck_assert(isinf(f) && f > 0);
    ck_assert_int_eq(inl_textval_double("-0", 2, &d), TEXTVAL_OK);
    ck_assert(d == 0 && signbit(d));
    ck_assert_int_eq(inl_textval_double("-1e-400", 7, &d), TEXTVAL_OK);
    ck_assert(d == 0 && signbit(d));
    ck_assert_int_eq(inl_textval_double("1e400", 5, &d), TEXTVAL_RANGE);
    ck_assert_int_eq(inl_textval_double("-1e400", 6, &d), TEXTVAL_RANGE);
    ck_assert_int_eq(inl_textval_float("1e39", 4, &f), TEXTVAL_RANGE);
    ck_assert_int_eq(inl_textval_float("3.4028236e38", 12, &f), TEXTVAL_RANGE);
    ck_assert_int_eq(inl_textval_float("1e-50", 5, &f), TEXTVAL_OK);
    ck_assert(f == 0);
    /* a huge exponent on a long significand is settled without strtod */
    char big[1200];
    memset(big, '9', 1000);
    memcpy(big + 1000, "e-1500", 7);
    agree(big);
    memcpy(big + 1000, "e-1099", 7);
    agree(big);
    memcpy(big + 1000, "e-690", 6);
    agree(big);
}
END_TEST

START_TEST(test_double_syntax)
{
    static const char *bad[] = {
        "", "+", "-", ".", "-.", "+.e1", "e1", "E5", "1e", "1e+", "1e-", "1E", "1.5e", "1..5", "1.5.",
        "..5", "1.2.3", "0x10", "0x1p3", "1f", "1d", "1.5f", " 1", "1 ", "\t1", "1\n", "1,5", "1_0",
        "--1", "+-1", "1e--1", "1e+-1", "1e1.5", "1e 5", "nan(1)", "nanx", "na", "in", "infinit",
        "infinityy", "+-inf", "inf1", "1inf", "NaN0", "i", "n", "true", "∞", "1e5x", "١",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        double d = 0.25;
        float f = 0.25f;
        size_t n = strlen(bad[i]);
        ck_assert_msg(inl_textval_double(bad[i], n, &d) == TEXTVAL_SYNTAX, "\"%s\" accepted", bad[i]);
        ck_assert_msg(inl_textval_float(bad[i], n, &f) == TEXTVAL_SYNTAX, "\"%s\" accepted", bad[i]);
        ck_assert(d == 0.25 && f == 0.25f);
    }
}
END_TEST

/* Random literals of every shape: digit strings with the point anywhere
 * and exponents across the whole range, the shortest and longer round-trip
 * forms of random doubles, and long significands. */
START_TEST(test_double_random)
{
    uint64_t seed = 0xC0FFEEULL + (uint64_t)_i;
    char text[1200];
    for (int iter = 0; iter < 100000; iter++) {
        uint64_t r = rng_next(&seed);
        size_t n = 0;
        int shape = (int)(r % 8);
        if (shape <= 3) {
            if (rng_next(&seed) % 3 == 0) text[n++] = rng_next(&seed) % 2 ? '-' : '+';
            size_t digits = 1 + (size_t)(rng_next(&seed) % (shape == 0 ? 40 : 20));
            size_t point = (size_t)(rng_next(&seed) % (digits + 2));
            size_t zeros = rng_next(&seed) % 4 == 0 ? (size_t)(rng_next(&seed) % 12) : 0;
            for (size_t i = 0; i < digits; i++) {
                if (i == point) text[n++] = '.';
                text[n++] = i < zeros ? '0' : (char)('0' + rng_next(&seed) % 10);
            }
            if (point == digits) text[n++] = '.';
            if (rng_next(&seed) % 4 != 0) {
                text[n++] = rng_next(&seed) % 2 ? 'e' : 'E';
                int sign = (int)(rng_next(&seed) % 3);
                if (sign) text[n++] = sign == 1 ? '-' : '+';
                int span = shape == 1 ? 30 : shape == 2 ? 60 : 360;
                n += (size_t)sprintf(text + n, "%d", (int)(rng_next(&seed) % (uint64_t)span));
            }
        } else if (shape <= 6) {
            uint64_t b = rng_next(&seed);
            double d;
            memcpy(&d, &b, 8);
            if (!isfinite(d)) continue;
            int prec = shape == 4 ? 17 : 1 + (int)(rng_next(&seed) % 20);
            n = (size_t)sprintf(text, rng_next(&seed) % 2 ? "%.*g" : "%.*e", prec, d);
        } else {
            size_t digits = 20 + (size_t)(rng_next(&seed) % 1000);
            text[n++] = '0';
            text[n++] = '.';
            for (size_t i = 0; i < digits; i++) text[n++] = (char)('0' + rng_next(&seed) % 10);
            n += (size_t)sprintf(text + n, "e%d", (int)(rng_next(&seed) % 640) - 320);
        }
        agree_double(text, n);
    }
}
END_TEST

/* Exactly halfway between two neighbours (ties go to even), a hair above,
 * and a hair below, for doubles (the midpoint is exact in x87 long double)
 * and floats (exact in double). */
START_TEST(test_double_halfway)
{
    uint64_t seed = 0xBADC0DEULL;
    char text[1200];
    for (int iter = 0; iter < 20000; iter++) {
        uint64_t b = rng_next(&seed) & 0x7FFFFFFFFFFFFFFFULL;
        if (iter % 4 == 0) b &= 0x000FFFFFFFFFFFFFULL;   /* subnormals */
        double d;
        memcpy(&d, &b, 8);
        if (!isfinite(d) || d == DBL_MAX) continue;
#if LDBL_MANT_DIG >= 64
        long double mid = ((long double)d + (long double)nextafter(d, INFINITY)) / 2;
        int n = snprintf(text, sizeof text - 4, "%.800Le", mid);
        char *e = strchr(text, 'e');
        char *t = e;
        while (t[-1] == '0') t--;
        char exp_part[16];
        snprintf(exp_part, sizeof exp_part, "%s", e);
        n = (int)(t - text);
        n += sprintf(text + n, "%s", exp_part);
        agree_double(text, (size_t)n);                   /* exactly halfway */
        n = (int)(t - text);
        text[n++] = '1';
        n += sprintf(text + n, "%s", exp_part);
        agree_double(text, (size_t)n);                   /* above */
        n = (int)(t - text);
        memset(text + n, '0', 850 - (size_t)n);          /* above, but past 800 digits */
        n = 850;
        text[n++] = '1';
        n += sprintf(text + n, "%s", exp_part);
        agree_double(text, (size_t)n);
        n = 20 + (int)(rng_next(&seed) % 10);
        if (text + n < t) {
            n += sprintf(text + n, "%s", exp_part);
            agree_double(text, (size_t)n);               /* below */
        }
#endif
        uint32_t fb = (uint32_t)rng_next(&seed) & 0x7FFFFFFFu;
        float f;
        memcpy(&f, &fb, 4);
        if (!isfinite(f) || f == FLT_MAX) continue;
        double fmid = ((double)f + (double)nextafterf(f, INFINITY)) / 2;
        int m = snprintf(text, sizeof text, "%.200e", fmid);
        char *fe = strchr(text, 'e');
        char *ft = fe;
        while (ft[-1] == '0') ft--;
        char fexp[16];
        snprintf(fexp, sizeof fexp, "%s", fe);
        m = (int)(ft - text);
        m += sprintf(text + m, "%s", fexp);
        agree_double(text, (size_t)m);
        m = (int)(ft - text);
        text[m++] = '1';
        m += sprintf(text + m, "%s", fexp);
        agree_double(text, (size_t)m);
    }
}
END_TEST

/* ---- booleans ------------------------------------------------------------------------------ */

START_TEST(test_bool)
{
    static const char *yes[] = { "true", "TRUE", "True", "tRuE", "t", "T", "yes", "YES", "Yes", "y", "Y", "1" };
    static const char *no[] = { "false", "FALSE", "False", "fAlSe", "f", "F", "no", "NO", "No", "n", "N", "0" };
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        bool v = false;
        ck_assert_int_eq(inl_textval_bool(yes[i], strlen(yes[i]), &v), TEXTVAL_OK);
        ck_assert_msg(v, "%s", yes[i]);
        v = true;
        ck_assert_int_eq(inl_textval_bool(no[i], strlen(no[i]), &v), TEXTVAL_OK);
        ck_assert_msg(!v, "%s", no[i]);
    }
    static const char *bad[] = {
        "", "tru", "truee", "fals", "falsee", "ye", "yess", "nO ", " no", "2", "-1", "00", "01", "10",
        "on", "off", "true ", "\x11", "\x10", "\x14rue", "4rue", "T\x12UE", "\x06\x01\x0c\x13\x05",
        "yes!", "x", "+1", "1.0", "\x19",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        bool v = true;
        ck_assert_msg(inl_textval_bool(bad[i], strlen(bad[i]), &v) == TEXTVAL_SYNTAX, "\"%s\" accepted", bad[i]);
        ck_assert(v);
    }
    bool v = false;
    ck_assert_int_eq(inl_textval_bool("truex", 4, &v), TEXTVAL_OK);   /* only len bytes count */
    ck_assert(v);
    ck_assert_int_eq(inl_textval_bool("1x", 1, &v), TEXTVAL_OK);
}
END_TEST

/* ---- decimals ------------------------------------------------------------------------------ */

static int dec(const char *s, int32_t p, int32_t scale, __int128 *v)
{
    int64_t lo = 11, hi = 22;
    int rc = inl_textval_decimal(s, strlen(s), p, scale, &lo, &hi);
    if (rc != TEXTVAL_OK) {
        ck_assert_msg(lo == 11 && hi == 22, "\"%s\" wrote its output on failure", s);
        return rc;
    }
    *v = (__int128)(((unsigned __int128)(uint64_t)hi << 64) | (uint64_t)lo);
    return rc;
}

/* The digits of s (other characters skipped) as an integer. */
static __int128 digits_value(const char *s)
{
    __int128 v = 0;
    for (; *s; s++)
        if (*s >= '0' && *s <= '9') v = v * 10 + (*s - '0');
    return v;
}

#define ck_dec_ok(s, p, scale, want)                                                      \
    do {                                                                                  \
        __int128 got_ = 0;                                                                \
        ck_assert_msg(dec(s, p, scale, &got_) == TEXTVAL_OK, "\"%s\" (%d,%d) refused", s, p, scale); \
        ck_assert_msg(got_ == (__int128)(want), "\"%s\" (%d,%d): %lld", s, p, scale, (long long)got_); \
    } while (0)

#define ck_dec_rc(s, p, scale, rc)                                                        \
    do {                                                                                  \
        __int128 got_ = 0;                                                                \
        ck_assert_msg(dec(s, p, scale, &got_) == (rc), "\"%s\" (%d,%d) not %d", s, p, scale, rc); \
    } while (0)

START_TEST(test_decimal_forms)
{
    ck_dec_ok("123.45", 9, 2, 12345);
    ck_dec_ok("-0.5", 9, 1, -5);
    ck_dec_ok("+7", 9, 0, 7);
    ck_dec_ok("+7", 9, 3, 7000);
    ck_dec_ok("1.50", 9, 2, 150);
    ck_dec_ok("1.5", 9, 2, 150);
    ck_dec_ok("1.500", 9, 2, 150);
    ck_dec_ok("1.50000000000000000000000000000000000000000000000000", 9, 2, 150);
    ck_dec_rc("1.234", 9, 2, TEXTVAL_RANGE);
    ck_dec_rc("1.001", 9, 2, TEXTVAL_RANGE);
    ck_dec_ok(".5", 9, 1, 5);
    ck_dec_ok("5.", 9, 0, 5);
    ck_dec_ok("-.25", 9, 2, -25);
    ck_dec_ok("000123.4500", 5, 2, 12345);
    ck_dec_ok("0", 1, 0, 0);
    ck_dec_ok("-0", 1, 0, 0);
    ck_dec_ok("0.000", 1, 0, 0);
    ck_dec_ok("-0.0e-99999999999", 1, 0, 0);
    ck_dec_ok("0e99999999999", 1, 0, 0);
    ck_dec_ok("1.5e2", 9, 0, 150);
    ck_dec_ok("1.5E+2", 9, 2, 15000);
    ck_dec_ok("15e-1", 9, 1, 15);
    ck_dec_rc("15e-1", 9, 0, TEXTVAL_RANGE);
    ck_dec_ok("1e-2", 9, 2, 1);
    ck_dec_ok("12300e-2", 9, 0, 123);
    ck_dec_ok("0.000000000000000000000000000000000000000000001", 6, 50, 100000);
    ck_dec_rc("0.000000000000000000000000000000000000000000001", 5, 50, TEXTVAL_RANGE);
    ck_dec_rc("1e-99999999999", 38, 38, TEXTVAL_RANGE);
    ck_dec_rc("1e99999999999", 38, 0, TEXTVAL_RANGE);
    ck_dec_ok("100", 3, 0, 100);
    ck_dec_rc("100", 2, 0, TEXTVAL_RANGE);
    ck_dec_rc("1000", 5, 2, TEXTVAL_RANGE);
    ck_dec_ok("999.99", 5, 2, 99999);
    ck_dec_ok("0.01", 1, 2, 1);
    /* negative scale: multiples of a power of ten */
    ck_dec_ok("1200", 2, -2, 12);
    ck_dec_rc("1201", 9, -2, TEXTVAL_RANGE);
    /* precision below 1 holds only zero */
    ck_dec_ok("0", 0, 0, 0);
    ck_dec_rc("1", 0, 0, TEXTVAL_RANGE);
    static const char *bad[] = {
        "", "+", "-", ".", "e2", "1e", "1e+", "1.2.3", "1,5", "nan", "inf", "-Infinity", " 1", "1 ",
        "1_0", "0x1", "1.5f", "--1", "1e1.5",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) ck_dec_rc(bad[i], 38, 2, TEXTVAL_SYNTAX);
    /* syntax wins over range */
    ck_dec_rc("1.234x", 9, 2, TEXTVAL_SYNTAX);
    ck_dec_rc("123456789012345678901234567890123456789012345x", 38, 0, TEXTVAL_SYNTAX);
}
END_TEST

START_TEST(test_decimal_limits)
{
    /* precision 9, 18, 38: the largest magnitude, and one more */
    ck_dec_ok("9999999.99", 9, 2, 999999999);
    ck_dec_ok("-9999999.99", 9, 2, -999999999);
    ck_dec_rc("10000000.00", 9, 2, TEXTVAL_RANGE);
    ck_dec_rc("-10000000", 9, 2, TEXTVAL_RANGE);
    ck_dec_ok("999999999999999999", 18, 0, 999999999999999999LL);
    ck_dec_ok("-0.999999999999999999", 18, 18, -999999999999999999LL);
    ck_dec_rc("1000000000000000000", 18, 0, TEXTVAL_RANGE);
    ck_dec_rc("-1.000000000000000000", 18, 18, TEXTVAL_RANGE);
    ck_dec_ok("9223372036854775807", 19, 0, INT64_MAX);
    ck_dec_ok("9223372036854775808", 19, 0, (__int128)INT64_MAX + 1);
    ck_dec_ok("-9223372036854775809", 19, 0, (__int128)INT64_MIN - 1);
    ck_dec_ok("18446744073709551616", 20, 0, (__int128)1 << 64);

    const char *nines38 = "99999999999999999999999999999999999999";
    int64_t lo, hi;
    ck_assert_int_eq(inl_textval_decimal(nines38, 38, 38, 0, &lo, &hi), TEXTVAL_OK);
    ck_assert_uint_eq((uint64_t)lo, 0x098A223FFFFFFFFFULL);
    ck_assert_uint_eq((uint64_t)hi, 0x4B3B4CA85A86C47AULL);
    char text[80];
    snprintf(text, sizeof text, "-%s", nines38);
    ck_assert_int_eq(inl_textval_decimal(text, 39, 38, 0, &lo, &hi), TEXTVAL_OK);
    ck_assert_uint_eq((uint64_t)lo, 0xF675DDC000000001ULL);
    ck_assert_uint_eq((uint64_t)hi, 0xB4C4B357A5793B85ULL);
    snprintf(text, sizeof text, "%s9", nines38);
    ck_assert_int_eq(inl_textval_decimal(text, 39, 38, 0, &lo, &hi), TEXTVAL_RANGE);
    ck_assert_int_eq(inl_textval_decimal(text, 39, 60, 0, &lo, &hi), TEXTVAL_RANGE);   /* capped at 38 */
    ck_dec_rc("1e38", 38, 0, TEXTVAL_RANGE);
    ck_dec_ok("1e37", 38, 0, (__int128)1000000000000000000LL * 1000000000000000000LL * 10);
    ck_dec_ok("-1", 38, 0, -1);
    ck_assert_int_eq(inl_textval_decimal("-1", 2, 38, 0, &lo, &hi), TEXTVAL_OK);
    ck_assert(lo == -1 && hi == -1);
    ck_assert_int_eq(inl_textval_decimal("5", 1, 38, 0, &lo, &hi), TEXTVAL_OK);
    ck_assert(lo == 5 && hi == 0);
    /* 38 digits with the point inside, and trailing zeros past them */
    ck_dec_ok("1234567890123456789012345678.0123456789000000000000000", 38, 10,
              digits_value("12345678901234567890123456780123456789"));
    ck_dec_ok("-1234567890123456789012345678.0123456789000000000000000", 38, 10,
              -digits_value("12345678901234567890123456780123456789"));
    ck_dec_ok("12345678901234567890.123456789", 29, 9, digits_value("12345678901234567890123456789"));
    /* the 39th significant digit is too many even when it would scale away */
    ck_dec_rc("1.00000000000000000000000000000000000001", 38, 0, TEXTVAL_RANGE);
}
END_TEST

/* Random unscaled values of up to 38 digits, written with the point in
 * place, with extra zeros and with an exponent, read back exactly. */
START_TEST(test_decimal_random)
{
    uint64_t seed = 0xDEC1ULL;
    char digits[64], text[160];
    for (int iter = 0; iter < 100000; iter++) {
        int p = 1 + (int)(rng_next(&seed) % 38);
        int nd = 1 + (int)(rng_next(&seed) % (uint64_t)p);
        int scale = (int)(rng_next(&seed) % (uint64_t)(p + 1));
        unsigned __int128 mag = 0;
        for (int i = 0; i < nd; i++) {
            unsigned d = (unsigned)(rng_next(&seed) % 10);
            if (i == 0 && d == 0) d = 1;
            digits[i] = (char)('0' + d);
            mag = mag * 10 + d;
        }
        bool neg = rng_next(&seed) % 2;
        __int128 want = neg ? -(__int128)mag : (__int128)mag;
        /* the digits as a decimal with `scale` fraction digits */
        size_t n = 0;
        if (neg) text[n++] = '-';
        int intd = nd - scale;
        if (intd <= 0) {
            text[n++] = '0';
            text[n++] = '.';
            for (int i = 0; i < -intd; i++) text[n++] = '0';
            memcpy(text + n, digits, (size_t)nd);
            n += (size_t)nd;
        } else {
            memcpy(text + n, digits, (size_t)intd);
            n += (size_t)intd;
            if (scale) {
                text[n++] = '.';
                memcpy(text + n, digits + intd, (size_t)scale);
                n += (size_t)scale;
            }
        }
        int form = (int)(rng_next(&seed) % 3);
        if (form == 1) {   /* extra zeros past the scale */
            if (!scale) text[n++] = '.';
            size_t z = (size_t)(rng_next(&seed) % 30);
            memset(text + n, '0', z);
            n += z;
        } else if (form == 2) {   /* the digits with an exponent that puts the point back */
            n = 0;
            if (neg) text[n++] = '-';
            memcpy(text + n, digits, (size_t)nd);
            n += (size_t)nd;
            n += (size_t)sprintf(text + n, "e%d", -scale);
        }
        text[n] = '3';
        int64_t lo, hi;
        expect(inl_textval_decimal(text, n, p, scale, &lo, &hi) == TEXTVAL_OK, "\"%.*s\" (%d,%d)", (int)n,
               text, p, scale);
        __int128 got = (__int128)(((unsigned __int128)(uint64_t)hi << 64) | (uint64_t)lo);
        expect(got == want, "\"%.*s\" (%d,%d) read wrong", (int)n, text, p, scale);
        /* one digit more precision than allowed, or one scale step short */
        expect(inl_textval_decimal(text, n, nd - 1, scale, &lo, &hi) == TEXTVAL_RANGE,
               "\"%.*s\" fits precision %d", (int)n, text, nd - 1);
        if (scale > 0 && digits[nd - 1] != '0')
            expect(inl_textval_decimal(text, n, p, scale - 1, &lo, &hi) == TEXTVAL_RANGE,
                   "\"%.*s\" fits scale %d", (int)n, text, scale - 1);
    }
}
END_TEST

/* ---- decimals of any width --------------------------------------------------------------- */

/* The big-endian two's complement integer in p[0..w) as decimal text, by
 * repeated division: a different road from the parser's multiply-add. */
static const char *be_text(const uint8_t *p, size_t w, char *out)
{
    uint8_t mag[32];
    if (w == 0 || w > sizeof mag) return strcpy(out, "?");
    memcpy(mag, p, w);
    bool neg = mag[0] & 0x80;
    if (neg) {   /* negate */
        unsigned carry = 1;
        for (size_t i = w; i-- > 0;) {
            unsigned v = (uint8_t)~mag[i] + carry;
            mag[i] = (uint8_t)v;
            carry = v >> 8;
        }
    }
    char rev[100];
    size_t n = 0;
    for (;;) {
        bool zero = true;
        unsigned rem = 0;
        for (size_t i = 0; i < w; i++) {
            unsigned cur = rem << 8 | mag[i];
            mag[i] = (uint8_t)(cur / 10);
            rem = cur % 10;
            zero &= mag[i] == 0;
        }
        rev[n++] = (char)('0' + rem);
        if (zero) break;
    }
    size_t k = 0;
    if (neg) out[k++] = '-';
    while (n) out[k++] = rev[--n];
    out[k] = 0;
    return out;
}

static int wide(const char *s, int32_t p, int32_t scale, bool round, size_t w, char *text)
{
    uint8_t out[32];
    memset(out, 0xAB, sizeof out);
    int rc = inl_textval_decimal_bytes(s, strlen(s), p, scale, round, out, w);
    if (rc != TEXTVAL_OK) {
        for (size_t i = 0; i < sizeof out; i++) ck_assert_msg(out[i] == 0xAB, "\"%s\" wrote its output on failure", s);
        return rc;
    }
    be_text(out, w, text);
    return rc;
}

#define ck_wide(s, p, scale, round, w, want)                                                  \
    do {                                                                                      \
        char got_[100];                                                                       \
        int rc_ = wide(s, p, scale, round, w, got_);                                          \
        ck_assert_msg(rc_ == TEXTVAL_OK, "\"%s\" (%d,%d) refused: %d", s, p, scale, rc_);      \
        ck_assert_msg(strcmp(got_, want) == 0, "\"%s\" (%d,%d): %s, not %s", s, p, scale, got_, want); \
    } while (0)

#define ck_wide_rc(s, p, scale, round, w, rc)                                                 \
    do {                                                                                      \
        char got_[100];                                                                       \
        ck_assert_msg(wide(s, p, scale, round, w, got_) == (rc), "\"%s\" (%d,%d) not %d", s, p, scale, rc); \
    } while (0)

START_TEST(test_decimal_bytes_exact)
{
    ck_wide("123.45", 9, 2, false, 4, "12345");
    ck_wide("-0.5", 9, 1, false, 4, "-5");
    ck_wide("1.500", 9, 2, false, 8, "150");
    ck_wide("1.5e2", 9, 0, false, 4, "150");
    ck_wide("-0", 5, 2, false, 3, "0");
    ck_wide("0.000", 1, 0, false, 1, "0");
    ck_wide_rc("1.234", 9, 2, false, 4, TEXTVAL_SCALE);
    ck_wide_rc("1e-2", 9, 1, false, 4, TEXTVAL_SCALE);
    ck_wide_rc("100", 2, 0, false, 4, TEXTVAL_RANGE);
    ck_wide_rc("1e99999999999", 38, 0, false, 16, TEXTVAL_RANGE);
    ck_wide("0e99999999999", 38, 0, false, 16, "0");
    static const char *bad[] = { "", "+", ".", "e2", "1e", "1.2.3", "nan", "inf", " 1", "1 ", "0x1" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) ck_wide_rc(bad[i], 38, 2, false, 16, TEXTVAL_SYNTAX);
    /* 76 digits fill 32 bytes; 77 do not */
    char nines[80], want[82];
    memset(nines, '9', 76);
    nines[76] = 0;
    ck_wide(nines, 76, 0, false, 32, nines);
    snprintf(want, sizeof want, "-%s", nines);
    ck_wide(want, 76, 0, false, 32, want);
    ck_wide_rc(nines, 75, 0, false, 32, TEXTVAL_RANGE);
    nines[76] = '9';
    nines[77] = 0;
    ck_wide_rc(nines, 76, 0, false, 32, TEXTVAL_RANGE);
    /* a precision past what the width holds is held to the width */
    ck_wide_rc("99999999999", 20, 0, false, 4, TEXTVAL_RANGE);
    ck_wide("999999999", 20, 0, false, 4, "999999999");
    /* the widths around a byte boundary: 38 digits in 16 bytes */
    ck_wide("-99999999999999999999999999999999999999", 38, 0, false, 16, "-99999999999999999999999999999999999999");
    ck_wide_rc("1", 38, 0, false, 33, TEXTVAL_RANGE);
    ck_wide_rc("1", 38, 0, false, 0, TEXTVAL_RANGE);
}
END_TEST

START_TEST(test_decimal_bytes_round)
{
    ck_wide("2.675", 9, 2, true, 4, "268");
    ck_wide("-2.675", 9, 2, true, 4, "-268");
    ck_wide("2.674", 9, 2, true, 4, "267");
    ck_wide("2.67499999", 9, 2, true, 4, "267");
    ck_wide("0.005", 9, 2, true, 4, "1");
    ck_wide("-0.005", 9, 2, true, 4, "-1");
    ck_wide("0.0049", 9, 2, true, 4, "0");
    ck_wide("0.0005", 9, 2, true, 4, "0");
    ck_wide("9.995", 4, 2, true, 4, "1000");
    ck_wide_rc("9.995", 3, 2, true, 4, TEXTVAL_RANGE);   /* rounding carries into a fourth digit */
    ck_wide("1e-30", 9, 2, true, 4, "0");
    ck_wide("12345.6789e-2", 9, 3, true, 4, "123457");
}
END_TEST

/* Random values of up to 38 digits read the same through the 128-bit
 * parser and the bytes one, at the width FIXED_LEN_BYTE_ARRAY needs. */
START_TEST(test_decimal_bytes_agree)
{
    uint64_t seed = 0xB17E5ULL;
    char text[64];
    for (int iter = 0; iter < 20000; iter++) {
        int p = 1 + (int)(rng_next(&seed) % 38);
        int nd = 1 + (int)(rng_next(&seed) % (uint64_t)p);
        int scale = (int)(rng_next(&seed) % (uint64_t)(p + 1));
        size_t n = 0;
        if (rng_next(&seed) % 2) text[n++] = '-';
        for (int i = 0; i < nd; i++) {
            if (i == nd - scale) text[n++] = '.';
            text[n++] = (char)('0' + rng_next(&seed) % 10);
        }
        text[n] = 0;
        int64_t lo, hi;
        int a = inl_textval_decimal(text, n, p, scale, &lo, &hi);
        uint8_t out[16];
        int b = inl_textval_decimal_bytes(text, n, p, scale, false, out, 16);
        expect((a == TEXTVAL_OK) == (b == TEXTVAL_OK), "\"%s\" (%d,%d): %d vs %d", text, p, scale, a, b);
        if (a != TEXTVAL_OK) continue;
        for (int i = 0; i < 8; i++) {
            expect(out[7 - i] == (uint8_t)((uint64_t)hi >> (8 * i)), "\"%s\" high bytes differ", text);
            expect(out[15 - i] == (uint8_t)((uint64_t)lo >> (8 * i)), "\"%s\" low bytes differ", text);
        }
    }
}
END_TEST

START_TEST(test_public_parsers)
{
    int64_t v = 99;
    const char *why = "unset";
    ck_assert_int_eq(inlay_parse_int("-128", 4, 8, true, &v, &why), INLAY_OK);
    ck_assert(v == -128 && why == NULL);
    ck_assert_int_eq(inlay_parse_int("128", 3, 8, true, &v, &why), INLAY_ERR_VALUE);
    ck_assert_str_eq(why, "out of range");
    ck_assert_int_eq(inlay_parse_int("12a", 3, 64, true, &v, &why), INLAY_ERR_VALUE);
    ck_assert_str_eq(why, "not a number");
    ck_assert_int_eq(inlay_parse_int("18446744073709551615", 20, 64, false, &v, NULL), INLAY_OK);
    ck_assert(v == -1);
    ck_assert_int_eq(inlay_parse_int("1", 1, 65, true, &v, &why), INLAY_ERR_VALUE);

    uint8_t out[16];
    ck_assert_int_eq(inlay_parse_decimal("1.234", 5, 9, 2, false, out, 4, &why), INLAY_ERR_VALUE);
    ck_assert_str_eq(why, "more fractional digits than the scale");
    ck_assert_int_eq(inlay_parse_decimal("12345678.9", 10, 9, 2, false, out, 4, &why), INLAY_ERR_VALUE);
    ck_assert_str_eq(why, "too many digits");
    ck_assert_int_eq(inlay_parse_decimal("12a", 3, 9, 2, false, out, 4, &why), INLAY_ERR_VALUE);
    ck_assert_str_eq(why, "not a decimal number");
    ck_assert_int_eq(inlay_parse_decimal("2.675", 5, 9, 2, true, out, 4, &why), INLAY_OK);
    ck_assert(why == NULL && out[0] == 0 && out[1] == 0 && out[2] == 0x01 && out[3] == 0x0C);   /* 268 */
    ck_assert_int_eq(inlay_parse_decimal("1", 1, 0, 0, false, out, 4, &why), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inlay_parse_decimal("1", 1, 5, 6, false, out, 4, &why), INLAY_ERR_ARGUMENT);
}
END_TEST

/* ---- dates ------------------------------------------------------------------------------- */

static int date_of(const char *s, int32_t *d)
{
    return inl_textval_date(s, strlen(s), d);
}

#define ck_date(s, want)                                                                 \
    do {                                                                                 \
        int32_t got_ = 0;                                                                \
        ck_assert_msg(date_of(s, &got_) == TEXTVAL_OK, "\"%s\" refused", s);             \
        ck_assert_msg(got_ == (want), "\"%s\": %d, want %d", s, got_, (int)(want));      \
    } while (0)

#define ck_date_bad(s)                                                                   \
    do {                                                                                 \
        int32_t got_ = 99;                                                               \
        ck_assert_msg(date_of(s, &got_) == TEXTVAL_SYNTAX, "\"%s\" accepted", s);        \
        ck_assert_int_eq(got_, 99);                                                      \
    } while (0)

START_TEST(test_date)
{
    ck_date("1970-01-01", 0);
    ck_date("1969-12-31", -1);
    ck_date("1970-01-02", 1);
    ck_date("2000-02-29", 11016);
    ck_date("2024-02-29", 19782);
    ck_date("1600-02-29", -135081);
    ck_date("1900-03-01", -25508);
    ck_date("0001-01-01", -719162);
    ck_date("9999-12-31", 2932896);
    ck_date("0000-01-01", -719528);
    ck_date("0000-02-29", -719528 + 59);   /* year 0 is a leap year */
    ck_date("+1970-01-01", 0);
    ck_date("-0001-12-31", -719528 - 1);
    ck_date("+2370-01-01", 146097);            /* one 400-year cycle on */
    ck_date("1570-01-01", -146097);
    ck_date("-0430-01-01", -6 * 146097);
    ck_date("+401970-01-01", 1000 * 146097);
    ck_date("+001970-01-01", 0);
    ck_date("-398030-01-01", -1000 * 146097);
    ck_date("+999999-12-31", 10956 + 2495 * 146097);
    ck_date("-999999-01-01", -719162 - 2500 * 146097);
    ck_date("+10000-01-01", 2932897);
    ck_date_bad("1900-02-29");
    ck_date_bad("2100-02-29");
    ck_date_bad("2023-02-29");
    ck_date_bad("2024-02-30");
    ck_date_bad("2024-04-31");
    ck_date_bad("2024-06-31");
    ck_date_bad("2024-09-31");
    ck_date_bad("2024-11-31");
    ck_date_bad("2024-01-32");
    ck_date_bad("2024-00-10");
    ck_date_bad("2024-13-01");
    ck_date_bad("2024-01-00");
    static const char *bad[] = {
        "", "2024", "2024-01", "2024-1-01", "2024-01-1", "24-01-01", "20240101", "2024/01/01",
        "2024-01-01 ", " 2024-01-01", "2024-01-01T", "2024-01-01T00:00", "12024-01-01",
        "+1234567-01-01", "+123-01-01", "-123-01-01", "+-2024-01-01", "2024-01-0a", "2024-0a-01",
        "202a-01-01", "2024_01-01", "2024-01_01", "+2024", "-", "+", "2024-01--1", "2024-+1-01",
        "\262024-01-01",   /* 0xB2: '2' with its top bit set */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) ck_date_bad(bad[i]);
}
END_TEST

/* Every day of years 1..9999 and a wider sample, against timegm. */
START_TEST(test_date_timegm)
{
    uint64_t seed = 77;
    char text[32];
    static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    for (int iter = 0; iter < 200000; iter++) {
        int y = 1 + (int)(rng_next(&seed) % 9999);
        int m = 1 + (int)(rng_next(&seed) % 12);
        bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        int dmax = mdays[m - 1] + (m == 2 && leap);
        int d = 1 + (int)(rng_next(&seed) % (uint64_t)(dmax + 1));
        snprintf(text, sizeof text, "%04d-%02d-%02d", y, m, d);
        int32_t got = 0;
        int rc = date_of(text, &got);
        if (d > dmax) {
            expect(rc == TEXTVAL_SYNTAX, "%s accepted", text);
            continue;
        }
        struct tm tm = { .tm_year = y - 1900, .tm_mon = m - 1, .tm_mday = d };
        time_t t = timegm(&tm);
        expect(rc == TEXTVAL_OK && got == (int32_t)(t / 86400), "%s: %d, want %lld", text, got,
               (long long)(t / 86400));
    }
}
END_TEST

/* ---- timestamps -------------------------------------------------------------------------- */

static int ts(const char *s, inlay_time_unit u, int64_t *v, bool *off)
{
    return inl_textval_timestamp(s, strlen(s), u, v, off);
}

#define ck_ts(s, u, want, want_off)                                                           \
    do {                                                                                      \
        int64_t got_ = 0;                                                                     \
        bool off_ = !(want_off);                                                              \
        ck_assert_msg(ts(s, u, &got_, &off_) == TEXTVAL_OK, "\"%s\" refused", s);             \
        ck_assert_msg(got_ == (int64_t)(want), "\"%s\" unit %d: %lld, want %lld", s, (int)(u), \
                      (long long)got_, (long long)(want));                                    \
        ck_assert_int_eq(off_, (want_off));                                                   \
    } while (0)

#define ck_ts_rc(s, u, rc)                                                                    \
    do {                                                                                      \
        int64_t got_ = 99;                                                                    \
        bool off_ = false;                                                                    \
        ck_assert_msg(ts(s, u, &got_, &off_) == (rc), "\"%s\" unit %d not %d", s, (int)(u), rc); \
        ck_assert_int_eq(got_, 99);                                                           \
    } while (0)

START_TEST(test_timestamp_forms)
{
    const int64_t day = 86400;
    ck_ts("1970-01-01", INLAY_MILLIS, 0, false);
    ck_ts("2024-03-10", INLAY_MICROS, 19792 * day * 1000000, false);
    ck_ts("2024-03-10T01:30", INLAY_MILLIS, (19792 * day + 5400) * 1000, false);
    ck_ts("2024-03-10t01:30:15", INLAY_MILLIS, (19792 * day + 5415) * 1000, false);
    ck_ts("2024-03-10 01:30:15.5", INLAY_MILLIS, (19792 * day + 5415) * 1000 + 500, false);
    ck_ts("2024-03-10T01:30:15.123456789", INLAY_NANOS, (19792 * day + 5415) * 1000000000 + 123456789,
          false);
    ck_ts("2024-03-10T23:59:59", INLAY_MICROS, (19793 * day - 1) * 1000000, false);
    ck_ts("0001-01-01T00:00:00", INLAY_MICROS, -719162 * day * 1000000, false);
    ck_ts("9999-12-31T23:59:59.999999", INLAY_MICROS, (2932897 * day) * 1000000 - 1, false);
    ck_ts("+10000-01-01T00:00:00Z", INLAY_MILLIS, 2932897 * day * 1000, true);
    /* every zone form; 2024-03-10T01:30:00+05:30 is 2024-03-09T20:00:00Z */
    const int64_t base = 19792 * day + 5400;
    ck_ts("2024-03-10T01:30:00+05:30", INLAY_MILLIS, 1710014400LL * 1000, true);
    ck_ts("2024-03-10T01:30:00+05:30", INLAY_NANOS, 1710014400LL * 1000000000, true);
    ck_ts("2024-03-10T01:30:00-05:30", INLAY_MILLIS, (base + 19800) * 1000, true);
    ck_ts("2024-03-10T01:30:00+0530", INLAY_MILLIS, (base - 19800) * 1000, true);
    ck_ts("2024-03-10T01:30:00-0530", INLAY_MILLIS, (base + 19800) * 1000, true);
    ck_ts("2024-03-10T01:30:00+05", INLAY_MILLIS, (base - 18000) * 1000, true);
    ck_ts("2024-03-10T01:30:00-05", INLAY_MILLIS, (base + 18000) * 1000, true);
    ck_ts("2024-03-10T01:30:00Z", INLAY_MILLIS, base * 1000, true);
    ck_ts("2024-03-10T01:30:00z", INLAY_MILLIS, base * 1000, true);
    ck_ts("2024-03-10T01:30:00+00:00", INLAY_MILLIS, base * 1000, true);
    ck_ts("2024-03-10T01:30:00-00:00", INLAY_MILLIS, base * 1000, true);
    ck_ts("2024-03-10T01:30+01:00", INLAY_MILLIS, (base - 3600) * 1000, true);
    ck_ts("2024-03-10T01:30Z", INLAY_MILLIS, base * 1000, true);
    ck_ts("2024-03-10T01:30:00.25+23:59", INLAY_MILLIS, (base - 86340) * 1000 + 250, true);
    ck_ts("2024-03-10 01:30:00.123-12:00", INLAY_MICROS, (base + 43200) * 1000000 + 123000, true);
    ck_ts("1970-01-01T00:00:00+01:00", INLAY_MILLIS, -3600000, true);
    /* had_offset may be NULL */
    int64_t v;
    ck_assert_int_eq(inl_textval_timestamp("2024-03-10T01:30Z", 17, INLAY_MILLIS, &v, NULL), TEXTVAL_OK);
    ck_assert_int_eq(v, base * 1000);

    static const char *bad[] = {
        "", "2024-03-10T", "2024-03-10 ", "2024-03-10X01:30", "2024-03-10T1:30", "2024-03-10T01:3",
        "2024-03-10T01", "2024-03-10T0130", "2024-03-10T01:30:", "2024-03-10T01:30:1",
        "2024-03-10T01:30:15.", "2024-03-10T01:30:15.1234567890", "2024-03-10T01:30:15,5",
        "2024-03-10T24:00:00", "2024-03-10T23:60:00", "2024-03-10T23:59:60", "2024-03-10T25:00",
        "2024-03-10T01:30:00+24:00", "2024-03-10T01:30:00+05:60", "2024-03-10T01:30:00+5:30",
        "2024-03-10T01:30:00+05:3", "2024-03-10T01:30:00+053", "2024-03-10T01:30:00+05:300",
        "2024-03-10T01:30:00+", "2024-03-10T01:30:00 Z", "2024-03-10T01:30:00ZZ", "2024-03-10T01:30:00UTC",
        "2024-03-10T01:30:00+05-30", "2024-03-10Z", "2024-03-10+01:00", "2024-02-30T00:00",
        "2024-03-10T01:30:00.5Z ", "2024-03-10TT01:30", "2024-03-10  01:30", "2024-03-10T01:30:00.+01",
        "2024-03-10T01:30:00*01:00", "2024-03-10T-1:30", "2024-03-10T01:-3",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        for (int u = INLAY_MILLIS; u <= INLAY_NANOS; u++) ck_ts_rc(bad[i], (inlay_time_unit)u, TEXTVAL_SYNTAX);
    ck_ts_rc("2024-03-10", (inlay_time_unit)7, TEXTVAL_SYNTAX);
}
END_TEST

START_TEST(test_timestamp_fractions)
{
    /* finer digits than the unit are dropped toward negative infinity */
    ck_ts("1970-01-01T00:00:00.9999999", INLAY_MILLIS, 999, false);
    ck_ts("1970-01-01T00:00:00.9999999", INLAY_MICROS, 999999, false);
    ck_ts("1970-01-01T00:00:00.9999999", INLAY_NANOS, 999999900, false);
    ck_ts("1969-12-31T23:59:59.9999999", INLAY_MILLIS, -1, false);
    ck_ts("1969-12-31T23:59:59.9999999", INLAY_MICROS, -1, false);
    ck_ts("1969-12-31T23:59:59.9999999", INLAY_NANOS, -100, false);
    ck_ts("1969-12-31T23:59:59.123456789", INLAY_MILLIS, -877, false);
    ck_ts("1969-12-31T23:59:59.123456789", INLAY_MICROS, -876544, false);
    ck_ts("1969-12-31T23:59:59.123456789", INLAY_NANOS, -876543211, false);
    ck_ts("1969-12-31T23:59:59.0001", INLAY_MILLIS, -1000, false);
    ck_ts("1969-12-31T23:59:59.5", INLAY_MILLIS, -500, false);
    ck_ts("1900-01-01T00:00:00.0019", INLAY_MILLIS, -2208988800000LL + 1, false);
    ck_ts("1900-01-01T00:00:00.0019", INLAY_MICROS, -2208988800000000LL + 1900, false);
    ck_ts("1970-01-01T00:00:00.1", INLAY_NANOS, 100000000, false);
    ck_ts("1970-01-01T00:00:00.000000001", INLAY_MICROS, 0, false);
    ck_ts("1969-12-31T23:59:59.999999999", INLAY_MICROS, -1, false);
    ck_ts("1970-01-01T00:59:59.999999999+01:00", INLAY_MICROS, -1, true);
}
END_TEST

START_TEST(test_timestamp_range)
{
    /* the ends of int64 nanoseconds */
    ck_ts("2262-04-11T23:47:16.854775807", INLAY_NANOS, INT64_MAX, false);
    ck_ts_rc("2262-04-11T23:47:16.854775808", INLAY_NANOS, TEXTVAL_RANGE);
    ck_ts_rc("2262-04-11T23:47:17", INLAY_NANOS, TEXTVAL_RANGE);
    ck_ts_rc("2262-04-11T23:47:16.854775807-00:01", INLAY_NANOS, TEXTVAL_RANGE);
    ck_ts("2262-04-11T23:48:16.854775807+00:01", INLAY_NANOS, INT64_MAX, true);
    ck_ts("1677-09-21T00:12:43.145224192", INLAY_NANOS, INT64_MIN, false);
    ck_ts_rc("1677-09-21T00:12:43.145224191", INLAY_NANOS, TEXTVAL_RANGE);
    ck_ts_rc("1677-09-21T00:12:42", INLAY_NANOS, TEXTVAL_RANGE);
    ck_ts_rc("1677-09-21T00:12:43.145224192+00:01", INLAY_NANOS, TEXTVAL_RANGE);
    ck_ts_rc("9999-12-31T23:59:59", INLAY_NANOS, TEXTVAL_RANGE);
    ck_ts_rc("0001-01-01", INLAY_NANOS, TEXTVAL_RANGE);
    /* micros hold +-292 thousand years, millis all six-digit years */
    ck_ts_rc("+999999-12-31T23:59:59", INLAY_MICROS, TEXTVAL_RANGE);
    ck_ts_rc("-999999-01-01", INLAY_MICROS, TEXTVAL_RANGE);
    ck_ts("+999999-12-31T23:59:59.999", INLAY_MILLIS,
          ((int64_t)(10956 + 2495 * 146097) + 1) * 86400000 - 1, false);
    ck_ts("-999999-01-01T00:00:00Z", INLAY_MILLIS, (int64_t)(-719162 - 2500 * 146097) * 86400000, true);
    ck_ts("9999-12-31T23:59:59.999999", INLAY_MICROS, 2932897LL * 86400000000 - 1, false);
}
END_TEST

/* ---- times ---------------------------------------------------------------------------------- */

START_TEST(test_time)
{
    int64_t v;
    static const struct {
        const char *s;
        int64_t ms, us, ns;
    } ok[] = {
        { "00:00", 0, 0, 0 },
        { "00:00:00", 0, 0, 0 },
        { "12:34", 45240000, 45240000000LL, 45240000000000LL },
        { "12:34:56", 45296000, 45296000000LL, 45296000000000LL },
        { "12:34:56.7", 45296700, 45296700000LL, 45296700000000LL },
        { "12:34:56.789123", 45296789, 45296789123LL, 45296789123000LL },
        { "23:59:59.999999999", 86399999, 86399999999LL, 86399999999999LL },
        { "00:00:00.000000001", 0, 0, 1 },
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        size_t n = strlen(ok[i].s);
        ck_assert_int_eq(inl_textval_time(ok[i].s, n, INLAY_MILLIS, &v), TEXTVAL_OK);
        ck_assert_int_eq(v, ok[i].ms);
        ck_assert_int_eq(inl_textval_time(ok[i].s, n, INLAY_MICROS, &v), TEXTVAL_OK);
        ck_assert_int_eq(v, ok[i].us);
        ck_assert_int_eq(inl_textval_time(ok[i].s, n, INLAY_NANOS, &v), TEXTVAL_OK);
        ck_assert_int_eq(v, ok[i].ns);
    }
    static const char *bad[] = {
        "", "24:00:00", "24:00", "23:60", "12:00:60", "1:00", "12:0", "12", "12:", "12:00:",
        "12:00:0", "12:00:00.", "12:00:00.1234567890", "12:00:00Z", "12:00:00+01:00", " 12:00",
        "12:00 ", "12-00", "1200", "12:00:00,5", "-1:00", "+12:00", "12:00:00.5x", "T12:00",
        "99:99", "ab:cd",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        v = 42;
        ck_assert_msg(inl_textval_time(bad[i], strlen(bad[i]), INLAY_MICROS, &v) == TEXTVAL_SYNTAX,
                      "\"%s\" accepted", bad[i]);
        ck_assert_int_eq(v, 42);
    }
    ck_assert_int_eq(inl_textval_time("12:00", 5, (inlay_time_unit)3, &v), TEXTVAL_SYNTAX);
}
END_TEST

/* ---- classification ------------------------------------------------------------------------- */

typedef struct class_case {
    const char *s;
    textval_kind kind;
} class_case;

START_TEST(test_classify_kinds)
{
    static const class_case cases[] = {
        { "", TEXTVAL_KIND_STRING },
        { "0", TEXTVAL_KIND_INT },
        { "-12", TEXTVAL_KIND_INT },
        { "+12", TEXTVAL_KIND_INT },
        { "007", TEXTVAL_KIND_INT },
        { "1", TEXTVAL_KIND_INT },
        { "9223372036854775807", TEXTVAL_KIND_INT },
        { "-9223372036854775808", TEXTVAL_KIND_INT },
        { "18446744073709551615", TEXTVAL_KIND_INT },
        { "18446744073709551616", TEXTVAL_KIND_STRING },
        { "-9223372036854775809", TEXTVAL_KIND_STRING },
        { "123456789012345678901234567890", TEXTVAL_KIND_STRING },
        { "1.5", TEXTVAL_KIND_DOUBLE },
        { "1.", TEXTVAL_KIND_DOUBLE },
        { ".5", TEXTVAL_KIND_DOUBLE },
        { "-.5e3", TEXTVAL_KIND_DOUBLE },
        { "1e5", TEXTVAL_KIND_DOUBLE },
        { "123456789012345678901234567890.0", TEXTVAL_KIND_DOUBLE },
        { "1e308", TEXTVAL_KIND_DOUBLE },
        { "1e309", TEXTVAL_KIND_STRING },
        { "1.7976931348623157e308", TEXTVAL_KIND_DOUBLE },
        { "1.7976931348623159e308", TEXTVAL_KIND_STRING },
        { "1e-400", TEXTVAL_KIND_DOUBLE },
        { "nan", TEXTVAL_KIND_DOUBLE },
        { "-Infinity", TEXTVAL_KIND_DOUBLE },
        { "true", TEXTVAL_KIND_BOOL },
        { "FALSE", TEXTVAL_KIND_BOOL },
        { "Yes", TEXTVAL_KIND_BOOL },
        { "no", TEXTVAL_KIND_BOOL },
        { "T", TEXTVAL_KIND_BOOL },
        { "f", TEXTVAL_KIND_BOOL },
        { "y", TEXTVAL_KIND_STRING },
        { "N", TEXTVAL_KIND_STRING },
        { "2024-02-29", TEXTVAL_KIND_DATE },
        { "+12024-02-29", TEXTVAL_KIND_DATE },
        { "-0044-03-15", TEXTVAL_KIND_DATE },
        { "2023-02-29", TEXTVAL_KIND_STRING },
        { "2024-02-29T12:00", TEXTVAL_KIND_TIMESTAMP },
        { "2024-02-29 12:00:00.123+01:00", TEXTVAL_KIND_TIMESTAMP },
        { "2024-02-29T24:00", TEXTVAL_KIND_STRING },
        { "12:00", TEXTVAL_KIND_TIME },
        { "23:59:59.123456", TEXTVAL_KIND_TIME },
        { "24:00", TEXTVAL_KIND_STRING },
        { "12:00Z", TEXTVAL_KIND_STRING },
        { "1:00", TEXTVAL_KIND_STRING },
        { "-12:00", TEXTVAL_KIND_STRING },
        { "12-34", TEXTVAL_KIND_STRING },
        { "1234-5", TEXTVAL_KIND_STRING },
        { "abc", TEXTVAL_KIND_STRING },
        { "1,5", TEXTVAL_KIND_STRING },
        { " 1", TEXTVAL_KIND_STRING },
        { "1 ", TEXTVAL_KIND_STRING },
        { "+", TEXTVAL_KIND_STRING },
        { "-", TEXTVAL_KIND_STRING },
        { ".", TEXTVAL_KIND_STRING },
        { "0x10", TEXTVAL_KIND_STRING },
        { "1e", TEXTVAL_KIND_STRING },
        { "truex", TEXTVAL_KIND_STRING },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        textval_class c;
        textval_kind k = inl_textval_classify(cases[i].s, strlen(cases[i].s), &c);
        ck_assert_msg(k == cases[i].kind, "\"%s\": kind %d, want %d", cases[i].s, k, cases[i].kind);
        ck_assert_int_eq(inl_textval_classify(cases[i].s, strlen(cases[i].s), NULL), k);
    }
}
END_TEST

START_TEST(test_classify_info)
{
    textval_class c;
    ck_assert_int_eq(inl_textval_classify("-42", 3, &c), TEXTVAL_KIND_INT);
    ck_assert(c.value == -42 && !c.big && !c.leading_zero);
    ck_assert_int_eq(inl_textval_classify("042", 3, &c), TEXTVAL_KIND_INT);
    ck_assert(c.value == 42 && c.leading_zero);
    ck_assert_int_eq(inl_textval_classify("-00", 3, &c), TEXTVAL_KIND_INT);
    ck_assert(c.value == 0 && c.leading_zero);
    ck_assert_int_eq(inl_textval_classify("0", 1, &c), TEXTVAL_KIND_INT);
    ck_assert(c.value == 0 && !c.leading_zero);
    ck_assert_int_eq(inl_textval_classify("18446744073709551615", 20, &c), TEXTVAL_KIND_INT);
    ck_assert(c.value == -1 && c.big);
    ck_assert_int_eq(inl_textval_classify("9223372036854775807", 19, &c), TEXTVAL_KIND_INT);
    ck_assert(c.value == INT64_MAX && !c.big);
    ck_assert_int_eq(inl_textval_classify("-9223372036854775808", 20, &c), TEXTVAL_KIND_INT);
    ck_assert(c.value == INT64_MIN && !c.big);

    ck_assert_int_eq(inl_textval_classify("-0012.3400", 10, &c), TEXTVAL_KIND_DOUBLE);
    ck_assert_uint_eq(c.frac_digits, 4);
    ck_assert_uint_eq(c.sig_digits, 6);
    ck_assert(!c.exponent);
    ck_assert_int_eq(inl_textval_classify("0.000123e5", 10, &c), TEXTVAL_KIND_DOUBLE);
    ck_assert_uint_eq(c.frac_digits, 6);
    ck_assert_uint_eq(c.sig_digits, 3);
    ck_assert(c.exponent);
    ck_assert_int_eq(inl_textval_classify("5.", 2, &c), TEXTVAL_KIND_DOUBLE);
    ck_assert_uint_eq(c.frac_digits, 0);
    ck_assert_uint_eq(c.sig_digits, 1);
    ck_assert_int_eq(inl_textval_classify("inf", 3, &c), TEXTVAL_KIND_DOUBLE);
    ck_assert(c.exponent);

    ck_assert_int_eq(inl_textval_classify("True", 4, &c), TEXTVAL_KIND_BOOL);
    ck_assert(c.truth);
    ck_assert_int_eq(inl_textval_classify("no", 2, &c), TEXTVAL_KIND_BOOL);
    ck_assert(!c.truth);

    ck_assert_int_eq(inl_textval_classify("2024-01-01T00:00:00.123456Z", 27, &c), TEXTVAL_KIND_TIMESTAMP);
    ck_assert(c.had_offset);
    ck_assert_uint_eq(c.frac_digits, 6);
    ck_assert_int_eq(inl_textval_classify("2024-01-01 00:00:00.1", 21, &c), TEXTVAL_KIND_TIMESTAMP);
    ck_assert(!c.had_offset);
    ck_assert_uint_eq(c.frac_digits, 1);
    ck_assert_int_eq(inl_textval_classify("2024-01-01T00:00", 16, &c), TEXTVAL_KIND_TIMESTAMP);
    ck_assert_uint_eq(c.frac_digits, 0);
    ck_assert_int_eq(inl_textval_classify("2024-01-01T00:00:00.123456789-0800", 34, &c), TEXTVAL_KIND_TIMESTAMP);
    ck_assert(c.had_offset);
    ck_assert_uint_eq(c.frac_digits, 9);
    /* a timestamp that fits no nanosecond column is still a timestamp */
    ck_assert_int_eq(inl_textval_classify("9999-01-01T00:00:00.123456789", 29, &c), TEXTVAL_KIND_TIMESTAMP);
    ck_assert_int_eq(inl_textval_classify("10:11:12.123", 12, &c), TEXTVAL_KIND_TIME);
    ck_assert_uint_eq(c.frac_digits, 3);
    ck_assert(!c.had_offset);

    /* overflow is judged from where the leading digit is, however written */
    char big[420];
    big[0] = '1';
    memset(big + 1, '0', 400);
    memcpy(big + 401, ".0", 2);
    ck_assert_int_eq(inl_textval_classify(big, 403, &c), TEXTVAL_KIND_STRING);
    memcpy(big + 300, ".0", 2);
    ck_assert_int_eq(inl_textval_classify(big, 302, &c), TEXTVAL_KIND_DOUBLE);
    ck_assert_uint_eq(c.sig_digits, 301);
    memcpy(big + 300, "e8", 2);   /* 1e307 */
    ck_assert_int_eq(inl_textval_classify(big, 302, &c), TEXTVAL_KIND_DOUBLE);
    memcpy(big + 300, "e10", 3);  /* 1e309 */
    ck_assert_int_eq(inl_textval_classify(big, 303, &c), TEXTVAL_KIND_STRING);
    memcpy(big, "0.", 2);
    memset(big + 2, '0', 400);
    memcpy(big + 402, "1e700", 5);
    ck_assert_int_eq(inl_textval_classify(big, 407, &c), TEXTVAL_KIND_DOUBLE);
    ck_assert_uint_eq(c.sig_digits, 1);
    ck_assert_uint_eq(c.frac_digits, 401);

    /* the fields not named for a kind are zero */
    memset(&c, 0x5A, sizeof c);
    ck_assert_int_eq(inl_textval_classify("abc", 3, &c), TEXTVAL_KIND_STRING);
    ck_assert(c.value == 0 && !c.big && !c.truth && c.frac_digits == 0 && c.sig_digits == 0);
}
END_TEST

/* Whatever classify says, the parser of that kind accepts. */
START_TEST(test_classify_agrees)
{
    uint64_t seed = 99;
    static const char alphabet[] = "0123456789-+.:eETtZz aflsruynNF";
    static const char numeric[] = "0123456789012345678901234567890123456789.e-+";
    static const char *const zones[] = { "", "", "Z", "+05:30", "-0800", "+01", "+24:00", "x" };
    char text[64];
    for (int iter = 0; iter < 300000; iter++) {
        size_t n = 1 + (size_t)(rng_next(&seed) % 24);
        switch (iter % 4) {
        case 0:   /* a timestamp, maybe invalid, cut anywhere */
            n = (size_t)snprintf(text, sizeof text, "%04d-%02d-%02d%c%02d:%02d:%02d.%0*d%s",
                                 (int)(rng_next(&seed) % 10000), (int)(rng_next(&seed) % 14),
                                 (int)(rng_next(&seed) % 33), "T t"[rng_next(&seed) % 3],
                                 (int)(rng_next(&seed) % 25), (int)(rng_next(&seed) % 61),
                                 (int)(rng_next(&seed) % 61), 1 + (int)(rng_next(&seed) % 10),
                                 (int)(rng_next(&seed) % 1000), zones[rng_next(&seed) % 8]);
            n = (size_t)(rng_next(&seed) % (n + 1));
            break;
        case 1:   /* a time, cut anywhere */
            n = (size_t)snprintf(text, sizeof text, "%02d:%02d:%02d.%0*d", (int)(rng_next(&seed) % 25),
                                 (int)(rng_next(&seed) % 61), (int)(rng_next(&seed) % 61),
                                 1 + (int)(rng_next(&seed) % 10), (int)(rng_next(&seed) % 1000));
            n = (size_t)(rng_next(&seed) % (n + 1));
            break;
        case 2:
            for (size_t i = 0; i < n; i++) text[i] = numeric[rng_next(&seed) % (sizeof numeric - 1)];
            break;
        default:
            for (size_t i = 0; i < n; i++) text[i] = alphabet[rng_next(&seed) % (sizeof alphabet - 1)];
            break;
        }
        textval_class c;
        textval_kind k = inl_textval_classify(text, n, &c);
        int64_t i64;
        double d;
        bool b;
        int32_t days;
        bool off;
        const char *what = "";
        switch (k) {
        case TEXTVAL_KIND_INT:
            if (inl_textval_int(text, n, 64, !c.big, &i64) != TEXTVAL_OK || i64 != c.value) what = "int";
            break;
        case TEXTVAL_KIND_DOUBLE:
            if (inl_textval_double(text, n, &d) != TEXTVAL_OK || inl_textval_int(text, n, 64, true, &i64) == TEXTVAL_OK)
                what = "double";
            break;
        case TEXTVAL_KIND_BOOL:
            if (inl_textval_bool(text, n, &b) != TEXTVAL_OK || b != c.truth) what = "bool";
            break;
        case TEXTVAL_KIND_DATE:
            if (inl_textval_date(text, n, &days) != TEXTVAL_OK) what = "date";
            break;
        case TEXTVAL_KIND_TIMESTAMP:
            if (inl_textval_timestamp(text, n, INLAY_MILLIS, &i64, &off) != TEXTVAL_OK || off != c.had_offset ||
                inl_textval_date(text, n, &days) == TEXTVAL_OK)
                what = "timestamp";
            break;
        case TEXTVAL_KIND_TIME:
            if (inl_textval_time(text, n, INLAY_NANOS, &i64) != TEXTVAL_OK) what = "time";
            break;
        case TEXTVAL_KIND_STRING:
            /* a number only when an integer too big for any integer column */
            if ((inl_textval_double(text, n, &d) == TEXTVAL_OK &&
                 (inl_textval_int(text, n, 64, true, &i64) != TEXTVAL_RANGE ||
                  inl_textval_int(text, n, 64, false, &i64) != TEXTVAL_RANGE)) ||
                inl_textval_date(text, n, &days) == TEXTVAL_OK ||
                inl_textval_timestamp(text, n, INLAY_MILLIS, &i64, &off) == TEXTVAL_OK ||
                inl_textval_time(text, n, INLAY_NANOS, &i64) == TEXTVAL_OK)
                what = "string";
            break;
        }
        expect(what[0] == 0, "\"%.*s\" classified as %s, which its parser disputes", (int)n, text, what);
    }
}
END_TEST

/* ---- reading only [s, s + len) ----------------------------------------------------------------- */

/* Every parser on s[0..n), for the guard-page test. */
static void parse_everything(const char *s, size_t n)
{
    int64_t i64, hi;
    double d;
    float f;
    bool b;
    int32_t days;
    textval_class c;
    static const int widths[] = { 8, 16, 32, 64 };
    for (int w = 0; w < 4; w++) {
        (void)inl_textval_int(s, n, widths[w], true, &i64);
        (void)inl_textval_int(s, n, widths[w], false, &i64);
    }
    (void)inl_textval_double(s, n, &d);
    (void)inl_textval_float(s, n, &f);
    (void)inl_textval_bool(s, n, &b);
    (void)inl_textval_decimal(s, n, 38, 4, &i64, &hi);
    (void)inl_textval_decimal(s, n, 9, 0, &i64, &hi);
    (void)inl_textval_date(s, n, &days);
    for (int u = INLAY_MILLIS; u <= INLAY_NANOS; u++) {
        (void)inl_textval_timestamp(s, n, (inlay_time_unit)u, &i64, &b);
        (void)inl_textval_time(s, n, (inlay_time_unit)u, &i64);
    }
    (void)inl_textval_classify(s, n, &c);
}

START_TEST(test_guard_page)
{
    static const char *inputs[] = {
        "", "0", "-", "+", "12345678", "123456789", "1234567812345678", "12345678123456781",
        "18446744073709551615", "000000000000000000000000001", "9999999999999999999999",
        "1.5", "-.5e-3", "1e", "1e+", "1.7976931348623159e308", "2.4703282292062328e-324",
        "0.30000000000000004", "3.14159265358979323846264338327950288419716939937510582097494459",
        "nan", "-inf", "Infinity", "true", "FALSE", "yes", "no", "t", "y",
        "2024-02-29", "+999999-12-31", "-0001-01-01", "2024-03-10T01:30:00+05:30",
        "2024-03-10T01:30:00+0530", "2024-03-10T01:30:00+05", "2024-03-10T01:30:00Z",
        "2024-03-10 01:30:15.123456789", "12:34:56.789", "23:59", "123.4500", "1.5e2",
        "99999999999999999999999999999999999999",
    };
    long page = sysconf(_SC_PAGESIZE);
    char *map = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert(map != MAP_FAILED);
    ck_assert_int_eq(mprotect(map + page, (size_t)page, PROT_NONE), 0);
    char *edge = map + page;
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
        size_t len = strlen(inputs[i]);
        for (size_t n = 0; n <= len; n++) {
            memcpy(edge - n, inputs[i], n);   /* every prefix, ending at the guard page */
            parse_everything(edge - n, n);
        }
    }
    /* random bytes from a number-ish alphabet, all lengths up to 40 */
    uint64_t seed = 5;
    static const char alphabet[] = "0123456789-+.:eEtTzZ ainfyos";
    for (int iter = 0; iter < 20000; iter++) {
        size_t n = (size_t)(rng_next(&seed) % 41);
        for (size_t k = 0; k < n; k++) edge[-(ptrdiff_t)n + (ptrdiff_t)k] = alphabet[rng_next(&seed) % (sizeof alphabet - 1)];
        parse_everything(edge - n, n);
    }
    /* a long literal (slow path) at the edge */
    size_t n = 1000;
    memset(edge - n, '1', n);
    edge[-500] = '.';
    parse_everything(edge - n, n);
    munmap(map, (size_t)page * 2);
}
END_TEST

/* The same parse from the middle of a buffer of digits: nothing after len
 * counts. */
START_TEST(test_no_read_past_len)
{
    char buf[64];
    int64_t v;
    double d;
    float f;
    int32_t days;
    int64_t lo, hi;
    memcpy(buf, "123456789012345678901234567890", 31);
    for (size_t n = 1; n <= 19; n++) {
        ck_assert_int_eq(inl_textval_int(buf, n, 64, true, &v), TEXTVAL_OK);
        char tmp[32];
        memcpy(tmp, buf, n);
        tmp[n] = 0;
        ck_assert_int_eq(v, strtoll(tmp, NULL, 10));
        ck_assert_int_eq(inl_textval_double(buf, n, &d), TEXTVAL_OK);
        ck_assert(d == strtod(tmp, NULL));
        ck_assert_int_eq(inl_textval_float(buf, n, &f), TEXTVAL_OK);
        ck_assert(f == strtof(tmp, NULL));
        ck_assert_int_eq(inl_textval_decimal(buf, n, 38, 0, &lo, &hi), TEXTVAL_OK);
        ck_assert_int_eq(lo, v);
    }
    memcpy(buf, "2024-02-2912:00:00.5999", 23);
    ck_assert_int_eq(inl_textval_date(buf, 10, &days), TEXTVAL_OK);
    ck_assert_int_eq(days, 19782);
    ck_assert_int_eq(inl_textval_time(buf + 10, 8, INLAY_MILLIS, &v), TEXTVAL_OK);
    ck_assert_int_eq(v, 43200000);
    ck_assert_int_eq(inl_textval_time(buf + 10, 10, INLAY_MILLIS, &v), TEXTVAL_OK);
    ck_assert_int_eq(v, 43200500);
    memcpy(buf, "2024-02-29T12:00:00+0530", 24);
    bool off;
    ck_assert_int_eq(inl_textval_timestamp(buf, 22, INLAY_MILLIS, &v, &off), TEXTVAL_OK);
    ck_assert_int_eq(v, (19782LL * 86400 + 43200 - 5 * 3600) * 1000);
    ck_assert_int_eq(inl_textval_timestamp(buf, 19, INLAY_MILLIS, &v, &off), TEXTVAL_OK);
    ck_assert(!off);
    ck_assert_int_eq(inl_textval_timestamp(buf, 21, INLAY_MILLIS, &v, &off), TEXTVAL_SYNTAX);   /* "+0" */
}
END_TEST

static Suite *textval_suite(void)
{
    Suite *s = suite_create("textval");
    TCase *c;

    c = tcase_create("integers");
    tcase_set_timeout(c, 60);
    tcase_add_test(c, test_int_limits);
    tcase_add_test(c, test_int_forms);
    tcase_add_test(c, test_int_random);
    suite_add_tcase(s, c);

    c = tcase_create("floating point");
    tcase_set_timeout(c, 240);
    tcase_add_test(c, test_double_edges);
    tcase_add_test(c, test_double_syntax);
    tcase_add_loop_test(c, test_double_random, 0, 3);
    tcase_add_test(c, test_double_halfway);
    suite_add_tcase(s, c);

    c = tcase_create("booleans");
    tcase_add_test(c, test_bool);
    suite_add_tcase(s, c);

    c = tcase_create("decimals");
    tcase_set_timeout(c, 60);
    tcase_add_test(c, test_decimal_forms);
    tcase_add_test(c, test_decimal_limits);
    tcase_add_test(c, test_decimal_random);
    tcase_add_test(c, test_decimal_bytes_exact);
    tcase_add_test(c, test_decimal_bytes_round);
    tcase_add_test(c, test_decimal_bytes_agree);
    tcase_add_test(c, test_public_parsers);
    suite_add_tcase(s, c);

    c = tcase_create("dates");
    tcase_set_timeout(c, 60);
    tcase_add_test(c, test_date);
    tcase_add_test(c, test_date_timegm);
    suite_add_tcase(s, c);

    c = tcase_create("timestamps");
    tcase_add_test(c, test_timestamp_forms);
    tcase_add_test(c, test_timestamp_fractions);
    tcase_add_test(c, test_timestamp_range);
    suite_add_tcase(s, c);

    c = tcase_create("times");
    tcase_add_test(c, test_time);
    suite_add_tcase(s, c);

    c = tcase_create("classification");
    tcase_set_timeout(c, 60);
    tcase_add_test(c, test_classify_kinds);
    tcase_add_test(c, test_classify_info);
    tcase_add_test(c, test_classify_agrees);
    suite_add_tcase(s, c);

    c = tcase_create("bounds");
    tcase_set_timeout(c, 60);
    tcase_add_test(c, test_guard_page);
    tcase_add_test(c, test_no_read_past_len);
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(textval_suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
