/*
 * fuzz_textval.c — the text-to-value parsers (runtime/input/textval.h) and
 * the public inlay_parse_int / inlay_parse_decimal on any bytes.
 *
 * Input: one byte that picks the target (a letter of TARGETS below, or any
 * other byte: TARGETS[byte % count]), then the text. The text is the end of
 * the fuzzer's buffer, so a read past s[len - 1] is a read past the block.
 * "4-9223372036854775808" is int64, "d1e-400" double, "T2024-02-29 12:00Z"
 * timestamp(us).
 *
 * Each target is also checked against a reference, besides no crash or
 * undefined behaviour:
 *   - integers against a plain digit loop in 128 bits (status and value);
 *   - double and float against strtod_l / strtof_l in the "C" locale, both
 *     ways for texts made of digits, signs, '.' and 'e' (bit for bit when
 *     accepted, infinity when out of range, refused when strtod does not
 *     take the whole text);
 *   - DECIMAL(p, s) in 128 bits against the any-width parser at 16 bytes,
 *     rounding against not rounding, the public parser at 4 and 8 bytes
 *     against the 128-bit one;
 *   - dates written back in the form they came in; timestamps and times in
 *     ms, us and ns against each other (the floor of the finer one), a
 *     date alone against midnight of that day;
 *   - float16 against the nearest of all 63488 finite halves;
 *   - inl_textval_classify against the parser of the kind it names.
 */
#define _GNU_SOURCE   /* strtod_l, newlocale */
#include "textval.h"

#include <locale.h>
#include <math.h>

#include "fuzz.h"

typedef enum tkind {
    T_INT, T_PUBINT, T_DOUBLE, T_FLOAT, T_FLOAT16, T_BOOL, T_DEC, T_DECBYTES, T_PUBDEC,
    T_DATE, T_TIMESTAMP, T_TIME, T_CLASSIFY, T_UUID,
} tkind;

typedef struct target {
    char key;
    tkind kind;
    int a, b;          /* INT: bit width, signed; DEC*: precision, scale; TIMESTAMP/TIME: unit */
    bool round;        /* DECBYTES, PUBDEC */
    size_t width;      /* DECBYTES, PUBDEC */
} target;

static const target TARGETS[] = {
    { '1', T_INT, 8, 1, false, 0 },   { '2', T_INT, 16, 1, false, 0 },  { '3', T_INT, 32, 1, false, 0 },
    { '4', T_INT, 64, 1, false, 0 },  { '5', T_INT, 8, 0, false, 0 },   { '6', T_INT, 16, 0, false, 0 },
    { '7', T_INT, 32, 0, false, 0 },  { '8', T_INT, 64, 0, false, 0 },  { '9', T_INT, 1, 0, false, 0 },
    { '0', T_INT, 63, 1, false, 0 },  { 'j', T_INT, 0, 1, false, 0 },   { 'J', T_INT, 65, 0, false, 0 },
    { 'i', T_PUBINT, 64, 1, false, 0 }, { 'I', T_PUBINT, 7, 0, false, 0 },
    { 'd', T_DOUBLE, 0, 0, false, 0 }, { 'f', T_FLOAT, 0, 0, false, 0 }, { 'h', T_FLOAT16, 0, 0, false, 0 },
    { 'b', T_BOOL, 0, 0, false, 0 },
    { 'c', T_DEC, 9, 2, false, 0 },   { 'C', T_DEC, 38, 10, false, 0 }, { 'e', T_DEC, 18, 0, false, 0 },
    { 'E', T_DEC, 1, 1, false, 0 },   { 'g', T_DEC, 0, 0, false, 0 },   { 'G', T_DEC, 20, 19, false, 0 },
    { 'x', T_DECBYTES, 76, 20, false, 32 }, { 'X', T_DECBYTES, 76, 20, true, 32 },
    { 'y', T_DECBYTES, 7, 2, true, 3 },     { 'Y', T_DECBYTES, 9, 9, false, 4 },
    { 'w', T_DECBYTES, 38, 5, true, 16 },   { 'W', T_DECBYTES, 3, 0, true, 1 },
    { 'p', T_PUBDEC, 9, 2, false, 4 },  { 'P', T_PUBDEC, 18, 6, true, 8 }, { 'q', T_PUBDEC, 40, 3, false, 17 },
    { 'Q', T_PUBDEC, 2, 2, true, 1 },   { 'r', T_PUBDEC, 0, 0, false, 4 },
    { 'D', T_DATE, 0, 0, false, 0 },
    { 't', T_TIMESTAMP, INLAY_MILLIS, 0, false, 0 }, { 'T', T_TIMESTAMP, INLAY_MICROS, 0, false, 0 },
    { 'n', T_TIMESTAMP, INLAY_NANOS, 0, false, 0 },  { 'z', T_TIMESTAMP, 7, 0, false, 0 },
    { 'm', T_TIME, INLAY_MILLIS, 0, false, 0 },      { 'M', T_TIME, INLAY_MICROS, 0, false, 0 },
    { 'N', T_TIME, INLAY_NANOS, 0, false, 0 },
    { 'k', T_CLASSIFY, 0, 0, false, 0 }, { 'u', T_UUID, 0, 0, false, 0 },
};
enum { NTARGETS = sizeof TARGETS / sizeof TARGETS[0] };

static const target *pick(uint8_t byte)
{
    for (int i = 0; i < NTARGETS; i++)
        if (TARGETS[i].key == (char)byte) return &TARGETS[i];
    return &TARGETS[byte % NTARGETS];
}

/* ---- integers ------------------------------------------------------------------------ */

static int ref_int(const uint8_t *s, size_t n, int bw, bool sgn, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (n && (s[0] == '+' || s[0] == '-')) neg = s[i++] == '-';
    if (i == n) return TEXTVAL_SYNTAX;
    unsigned __int128 mag = 0;
    bool big = false;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return TEXTVAL_SYNTAX;
        if (!big) mag = mag * 10 + (unsigned)(s[i] - '0');
        big |= mag > UINT64_MAX;
    }
    if (bw < 1 || bw > 64 || big) return TEXTVAL_RANGE;
    const unsigned __int128 pos_max = ((unsigned __int128)1 << (bw - sgn)) - 1, neg_max = sgn ? pos_max + 1 : 0;
    if (neg ? mag > neg_max : mag > pos_max) return TEXTVAL_RANGE;
    *out = neg ? (int64_t)(0 - (uint64_t)mag) : (int64_t)(uint64_t)mag;
    return TEXTVAL_OK;
}

static void check_int(const target *t, const char *s, size_t n)
{
    int64_t got = 0x5A5A5A5A, want = 0;
    const int r = inl_textval_int(s, n, t->a, t->b, &got), w = ref_int((const uint8_t *)s, n, t->a, t->b, &want);
    FUZZ_CHECK(r == w, "int%d%s: status %d, reference %d", t->a, t->b ? "" : "u", r, w);
    FUZZ_CHECK(r != TEXTVAL_OK || got == want, "int: %lld, reference %lld", (long long)got, (long long)want);
    FUZZ_CHECK(r == TEXTVAL_OK || got == 0x5A5A5A5A, "int: output written on failure");
    const char *why = NULL;
    int64_t pub = 0;
    const int p = inlay_parse_int(s, n, t->a, t->b, &pub, &why);
    if (t->a < 1 || t->a > 64) {
        FUZZ_CHECK(p == INLAY_ERR_VALUE && why, "inlay_parse_int with bit width %d: %d", t->a, p);
        return;
    }
    FUZZ_CHECK((p == INLAY_OK) == (r == TEXTVAL_OK), "inlay_parse_int %d, inl_textval_int %d", p, r);
    FUZZ_CHECK(p == INLAY_OK ? pub == got && why == NULL : p == INLAY_ERR_VALUE && why != NULL,
               "inlay_parse_int: %d", p);
}

/* ---- floating point ------------------------------------------------------------------- */

static locale_t c_locale(void)
{
    static locale_t loc;
    if (!loc) loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    FUZZ_CHECK(loc != (locale_t)0, "no C locale");
    return loc;
}

/* Digits, signs, '.' and 'e': where strtod's grammar and ours are the same. */
static bool plain_number_text(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char c = s[i];
        if (!((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E')) return false;
    }
    return n > 0;
}

static void check_double(const char *s, size_t n, char *z)
{
    double got = 0;
    const int r = inl_textval_double(s, n, &got);
    char *end;
    const double ref = strtod_l(z, &end, c_locale());
    const bool whole = n > 0 && end == z + n;
    if (r == TEXTVAL_OK) {
        FUZZ_CHECK(whole, "double: accepted, strtod stops at %td of %zu", end - z, n);
        if (isnan(ref)) FUZZ_CHECK(isnan(got), "double: not NaN");
        else FUZZ_CHECK(memcmp(&got, &ref, 8) == 0, "double: %a, strtod %a", got, ref);
    } else if (r == TEXTVAL_RANGE) {
        FUZZ_CHECK(whole && isinf(ref), "double: out of range, strtod gives %a", ref);
    } else {
        FUZZ_CHECK(r == TEXTVAL_SYNTAX, "double: status %d", r);
        FUZZ_CHECK(!(plain_number_text(s, n) && whole), "double: refused, strtod takes it as %a", ref);
    }
}

static void check_float(const char *s, size_t n, char *z)
{
    float got = 0;
    const int r = inl_textval_float(s, n, &got);
    char *end;
    const float ref = strtof_l(z, &end, c_locale());
    const bool whole = n > 0 && end == z + n;
    if (r == TEXTVAL_OK) {
        FUZZ_CHECK(whole, "float: accepted, strtof stops at %td of %zu", end - z, n);
        if (isnan(ref)) FUZZ_CHECK(isnan(got), "float: not NaN");
        else FUZZ_CHECK(memcmp(&got, &ref, 4) == 0, "float: %a, strtof %a", (double)got, (double)ref);
    } else if (r == TEXTVAL_RANGE) {
        FUZZ_CHECK(whole && isinf(ref), "float: out of range, strtof gives %a", (double)ref);
    } else {
        FUZZ_CHECK(r == TEXTVAL_SYNTAX, "float: status %d", r);
        FUZZ_CHECK(!(plain_number_text(s, n) && whole), "float: refused, strtof takes it as %a", (double)ref);
    }
}

/* The exact value of a finite half. */
static double half_value(uint16_t h)
{
    const int e = h >> 10 & 0x1F, m = h & 0x3FF;
    const double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
    return h & 0x8000 ? -v : v;
}

/* The half nearest to x, ties to even; from 65520 on, infinity. */
static uint16_t ref_half(double x)
{
    const uint16_t sign = signbit(x) ? 0x8000 : 0;
    if (isnan(x)) return sign | 0x7E00;
    const double a = fabs(x);
    if (a >= 65520.0) return sign | 0x7C00;
    uint16_t lo = 0, hi = 0x7BFF;   /* the largest half <= a, by bisection over the ordered bit patterns */
    while (lo < hi) {
        const uint16_t mid = (uint16_t)((lo + hi + 1) / 2);
        if (half_value(mid) <= a) lo = mid;
        else hi = (uint16_t)(mid - 1);
    }
    if (lo == 0x7BFF) return sign | lo;   /* 65504 <= a < 65520 */
    const double below = half_value(lo), above = half_value((uint16_t)(lo + 1));
    const double dl = a - below, du = above - a;
    return sign | (dl < du || (dl == du && !(lo & 1)) ? lo : (uint16_t)(lo + 1));
}

static void check_float16(const char *s, size_t n)
{
    double d;
    if (inl_textval_double(s, n, &d) != TEXTVAL_OK) return;
    const uint16_t h = inlay_float16_bits(d), want = ref_half(d);
    FUZZ_CHECK(h == want, "float16 of %a: 0x%04x, nearest 0x%04x", d, h, want);
}

/* ---- booleans ------------------------------------------------------------------------ */

static void check_bool(const char *s, size_t n)
{
    static const char *const yes[] = { "true", "t", "yes", "y", "1" }, *const no[] = { "false", "f", "no", "n", "0" };
    char low[8] = { 0 };
    int want = -1;
    if (n < sizeof low) {
        for (size_t i = 0; i < n; i++) low[i] = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] + 32) : s[i];
        for (int i = 0; i < 5; i++) {
            if (strlen(yes[i]) == n && memcmp(low, yes[i], n) == 0) want = 1;
            if (strlen(no[i]) == n && memcmp(low, no[i], n) == 0) want = 0;
        }
    }
    bool got = false;
    const int r = inl_textval_bool(s, n, &got);
    FUZZ_CHECK(r == (want < 0 ? TEXTVAL_SYNTAX : TEXTVAL_OK), "bool: status %d, reference %d", r, want);
    FUZZ_CHECK(r != TEXTVAL_OK || got == (want == 1), "bool: %d, reference %d", got, want);
}

/* ---- decimals ------------------------------------------------------------------------ */

/* hi:lo as 16 big-endian bytes. */
static void be128(int64_t lo, int64_t hi, uint8_t out[16])
{
    for (int i = 0; i < 8; i++) {
        out[i] = (uint8_t)((uint64_t)hi >> (56 - 8 * i));
        out[8 + i] = (uint8_t)((uint64_t)lo >> (56 - 8 * i));
    }
}

static void check_dec(const target *t, const char *s, size_t n)
{
    int64_t lo = 0, hi = 0;
    const int r = inl_textval_decimal(s, n, t->a, t->b, &lo, &hi);
    uint8_t wide[16], mine[16];
    const int w = inl_textval_decimal_bytes(s, n, t->a, t->b, false, wide, 16);
    FUZZ_CHECK(r == (w == TEXTVAL_SCALE ? TEXTVAL_RANGE : w), "decimal(%d,%d): status %d, 16-byte form %d", t->a,
               t->b, r, w);
    if (r != TEXTVAL_OK) return;
    be128(lo, hi, mine);
    FUZZ_CHECK(memcmp(mine, wide, 16) == 0, "decimal(%d,%d): 128-bit and 16-byte values differ", t->a, t->b);
    FUZZ_CHECK(hi == (lo < 0 ? -1 : 0) || t->a > 18, "decimal(%d,%d): hi is not lo's sign", t->a, t->b);
}

static void check_decbytes(const target *t, const char *s, size_t n)
{
    uint8_t out[32], alt[32];
    memset(out, 0xA5, sizeof out);
    const int r = inl_textval_decimal_bytes(s, n, t->a, t->b, t->round, out, t->width);
    for (size_t i = t->width; i < sizeof out; i++) FUZZ_CHECK(out[i] == 0xA5, "decimal bytes: wrote past width");
    if (r != TEXTVAL_OK) {
        for (size_t i = 0; i < t->width; i++) FUZZ_CHECK(out[i] == 0xA5, "decimal bytes: output written on failure");
    }
    const int o = inl_textval_decimal_bytes(s, n, t->a, t->b, !t->round, alt, t->width);
    /* exact texts come out the same rounded or not; what is exact fits rounded too */
    const int exact = t->round ? o : r, rounded = t->round ? r : o;
    FUZZ_CHECK(!(exact == TEXTVAL_OK) || rounded == TEXTVAL_OK, "decimal bytes: exact but not when rounding");
    if (r == TEXTVAL_OK && o == TEXTVAL_OK && exact == TEXTVAL_OK)
        FUZZ_CHECK(memcmp(out, alt, t->width) == 0, "decimal bytes: rounding changed an exact value");
    FUZZ_CHECK(rounded != TEXTVAL_SCALE, "decimal bytes: TEXTVAL_SCALE when rounding");
    FUZZ_CHECK((r == TEXTVAL_SYNTAX) == (o == TEXTVAL_SYNTAX), "decimal bytes: syntax depends on rounding");
}

static void check_pubdec(const target *t, const char *s, size_t n)
{
    uint8_t out[40], ref[40];
    const char *why = NULL;
    const int p = inlay_parse_decimal(s, n, t->a, t->b, t->round, out, t->width, &why);
    if (t->a < 1 || t->b < 0 || t->b > t->a) {
        FUZZ_CHECK(p == INLAY_ERR_ARGUMENT && why, "parse_decimal(%d,%d): %d", t->a, t->b, p);
        return;
    }
    const int r = inl_textval_decimal_bytes(s, n, t->a, t->b, t->round, ref, t->width);
    FUZZ_CHECK((p == INLAY_OK) == (r == TEXTVAL_OK), "parse_decimal %d, decimal_bytes %d", p, r);
    FUZZ_CHECK(p == INLAY_OK ? why == NULL && memcmp(out, ref, t->width) == 0 : p == INLAY_ERR_VALUE && why != NULL,
               "parse_decimal: %d", p);
    if (t->round || (t->width != 4 && t->width != 8)) return;
    /* INT32 and INT64 forms: the same as the 128-bit parser's low bits */
    int64_t lo = 0, hi = 0;
    const int d = inl_textval_decimal(s, n, t->a, t->b, &lo, &hi);
    FUZZ_CHECK((d == TEXTVAL_OK) == (p == INLAY_OK), "parse_decimal %d, decimal %d", p, d);
    if (d != TEXTVAL_OK) return;
    uint8_t mine[16];
    be128(lo, hi, mine);
    FUZZ_CHECK(memcmp(mine + 16 - t->width, out, t->width) == 0, "parse_decimal: other bytes than decimal");
}

/* ---- dates and times ------------------------------------------------------------------- */

/* Howard Hinnant's civil_from_days. */
static void civil(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = (unsigned)(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static void check_date(const char *s, size_t n)
{
    int32_t days = 0;
    if (inl_textval_date(s, n, &days) != TEXTVAL_OK) return;
    int64_t y;
    unsigned m, d;
    civil(days, &y, &m, &d);
    /* written back with the sign and year digits it came with */
    const bool sign = s[0] == '+' || s[0] == '-';
    const int ydigits = (int)n - 6 - sign;
    FUZZ_CHECK(ydigits >= 4 && ydigits <= 6 && (sign || ydigits == 4), "date: %zu bytes accepted", n);
    FUZZ_CHECK(!sign || y == 0 || (s[0] == '-') == (y < 0), "date: year %lld for sign '%c'", (long long)y, s[0]);
    char back[32];
    snprintf(back, sizeof back, "%s%0*lld-%02u-%02u", sign ? (s[0] == '-' ? "-" : "+") : "", ydigits,
             (long long)(y < 0 ? -y : y), m, d);
    FUZZ_CHECK(strlen(back) == n && memcmp(back, s, n) == 0, "date: \"%.*s\" is day %d, which is %s", (int)n, s,
               (int)days, back);
    int64_t ts = 0;
    bool off = true;
    FUZZ_CHECK(inl_textval_timestamp(s, n, INLAY_MILLIS, &ts, &off) == TEXTVAL_OK && !off &&
               ts == (int64_t)days * 86400000, "date: the timestamp at midnight is %lld", (long long)ts);
}

static int64_t floor_div(int64_t a, int64_t b)
{
    const int64_t q = a / b;
    return q * b > a ? q - 1 : q;
}

static void check_timestamp(const target *t, const char *s, size_t n)
{
    int64_t v[3] = { 0 };
    int r[3];
    bool off[3] = { false };
    for (int u = 0; u < 3; u++) r[u] = inl_textval_timestamp(s, n, (inlay_time_unit)u, &v[u], &off[u]);
    int64_t other = 0;
    const int x = inl_textval_timestamp(s, n, (inlay_time_unit)t->a, &other, NULL);
    if (t->a < 0 || t->a > INLAY_NANOS) FUZZ_CHECK(x == TEXTVAL_SYNTAX, "timestamp: unit %d accepted", t->a);
    else FUZZ_CHECK(x == r[t->a] && (x != TEXTVAL_OK || other == v[t->a]), "timestamp: had_offset NULL differs");
    /* ms, us, ns: one syntax, and a coarser unit holds what a finer one does */
    for (int u = 0; u < 2; u++) {
        FUZZ_CHECK((r[u] == TEXTVAL_SYNTAX) == (r[u + 1] == TEXTVAL_SYNTAX), "timestamp: syntax by unit");
        FUZZ_CHECK(r[u + 1] != TEXTVAL_OK || r[u] == TEXTVAL_OK, "timestamp: fits unit %d but not %d", u + 1, u);
        if (r[u] == TEXTVAL_OK && r[u + 1] == TEXTVAL_OK)
            FUZZ_CHECK(v[u] == floor_div(v[u + 1], 1000) && off[u] == off[u + 1], "timestamp: %lld in unit %d, %lld in %d",
                       (long long)v[u], u, (long long)v[u + 1], u + 1);
    }
    if (r[0] == TEXTVAL_OK) FUZZ_CHECK(inl_textval_classify(s, n, NULL) == TEXTVAL_KIND_TIMESTAMP ||
                                       inl_textval_classify(s, n, NULL) == TEXTVAL_KIND_DATE,
                                       "timestamp: accepted but not classified as one");
}

static void check_time(const target *t, const char *s, size_t n)
{
    int64_t v[3] = { 0 };
    int r[3];
    static const int64_t per_day[3] = { 86400000LL, 86400000000LL, 86400000000000LL };
    for (int u = 0; u < 3; u++) {
        r[u] = inl_textval_time(s, n, (inlay_time_unit)u, &v[u]);
        FUZZ_CHECK(r[u] == r[0], "time: status by unit");
        FUZZ_CHECK(r[u] != TEXTVAL_OK || (v[u] >= 0 && v[u] < per_day[u]), "time: %lld out of the day",
                   (long long)v[u]);
        if (u && r[u] == TEXTVAL_OK) FUZZ_CHECK(v[u - 1] == v[u] / 1000, "time: units disagree");
    }
    int64_t x = 0;
    if (t->a < 0 || t->a > INLAY_NANOS)
        FUZZ_CHECK(inl_textval_time(s, n, (inlay_time_unit)t->a, &x) == TEXTVAL_SYNTAX, "time: unit %d accepted", t->a);
    if (r[0] == TEXTVAL_OK) FUZZ_CHECK(inl_textval_classify(s, n, NULL) == TEXTVAL_KIND_TIME, "time: not classified as one");
}

/* ---- inference ----------------------------------------------------------------------- */

static void check_classify(const char *s, size_t n)
{
    textval_class c;
    const textval_kind k = inl_textval_classify(s, n, &c);
    FUZZ_CHECK(inl_textval_classify(s, n, NULL) == k, "classify: info NULL differs");
    int64_t i = 0;
    double d = 0;
    bool b = false;
    int32_t days = 0;
    switch (k) {
    case TEXTVAL_KIND_INT:
        if (c.big) {
            FUZZ_CHECK(inl_textval_int(s, n, 64, false, &i) == TEXTVAL_OK && i == c.value && i < 0,
                       "classify: big INT that uint64 does not take");
        } else {
            FUZZ_CHECK(inl_textval_int(s, n, 64, true, &i) == TEXTVAL_OK && i == c.value, "classify: INT %lld, int64 %lld",
                       (long long)c.value, (long long)i);
        }
        return;
    case TEXTVAL_KIND_DOUBLE:
        FUZZ_CHECK(inl_textval_double(s, n, &d) == TEXTVAL_OK, "classify: DOUBLE that does not parse");
        FUZZ_CHECK(inl_textval_int(s, n, 64, true, &i) != TEXTVAL_OK, "classify: DOUBLE that is an int64");
        return;
    case TEXTVAL_KIND_BOOL:
        FUZZ_CHECK(inl_textval_bool(s, n, &b) == TEXTVAL_OK && b == c.truth, "classify: BOOL");
        return;
    case TEXTVAL_KIND_DATE:
        FUZZ_CHECK(inl_textval_date(s, n, &days) == TEXTVAL_OK, "classify: DATE that does not parse");
        return;
    case TEXTVAL_KIND_TIMESTAMP: {
        const int r = inl_textval_timestamp(s, n, INLAY_MILLIS, &i, NULL);
        FUZZ_CHECK(r == TEXTVAL_OK || r == TEXTVAL_RANGE, "classify: TIMESTAMP that does not parse");
        FUZZ_CHECK(inl_textval_date(s, n, &days) != TEXTVAL_OK, "classify: TIMESTAMP that is a date");
        return;
    }
    case TEXTVAL_KIND_TIME:
        FUZZ_CHECK(inl_textval_time(s, n, INLAY_NANOS, &i) == TEXTVAL_OK, "classify: TIME that does not parse");
        return;
    case TEXTVAL_KIND_STRING:
        /* nothing narrower takes it */
        FUZZ_CHECK(inl_textval_int(s, n, 64, true, &i) != TEXTVAL_OK, "classify: STRING that is an int64");
        FUZZ_CHECK(inl_textval_date(s, n, &days) != TEXTVAL_OK, "classify: STRING that is a date");
        FUZZ_CHECK(inl_textval_time(s, n, INLAY_NANOS, &i) != TEXTVAL_OK, "classify: STRING that is a time");
        return;
    }
    FUZZ_CHECK(0, "classify: kind %d", (int)k);
}

static void check_uuid(const char *s, size_t n)
{
    uint8_t u[16];
    if (!inlay_uuid_parse(s, n, u)) return;
    char back[37];
    snprintf(back, sizeof back, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    FUZZ_CHECK(n == 36 && strncasecmp(back, s, 36) == 0, "uuid: %.*s read as %s", (int)n, s, back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const target *t = pick(data[0]);
    const char *s = (const char *)data + 1;
    const size_t n = size - 1;
    switch (t->kind) {
    case T_INT: case T_PUBINT: check_int(t, s, n); break;
    case T_DOUBLE: case T_FLOAT: {
        char *z = malloc(n + 1);   /* strtod needs a terminated copy */
        FUZZ_CHECK(z != NULL, "out of memory");
        memcpy(z, s, n);
        z[n] = 0;
        if (memchr(s, 0, n) == NULL) {   /* a NUL would end strtod's text early */
            if (t->kind == T_DOUBLE) check_double(s, n, z);
            else check_float(s, n, z);
        }
        free(z);
        break;
    }
    case T_FLOAT16: check_float16(s, n); break;
    case T_BOOL: check_bool(s, n); break;
    case T_DEC: check_dec(t, s, n); break;
    case T_DECBYTES: check_decbytes(t, s, n); break;
    case T_PUBDEC: check_pubdec(t, s, n); break;
    case T_DATE: check_date(s, n); break;
    case T_TIMESTAMP: check_timestamp(t, s, n); break;
    case T_TIME: check_time(t, s, n); break;
    case T_CLASSIFY: check_classify(s, n); break;
    case T_UUID: check_uuid(s, n); break;
    }
    /* every target also goes through the classifier, which every source runs when inferring */
    (void)inl_textval_classify(s, n, NULL);
    return 0;
}
