/*
 * textval.c — text fields to typed values (see textval.h).
 *
 * Each parser walks its text once and never touches a byte outside
 * [s, s + len), so a field at the very end of a mapped file is safe: bytes
 * are read after comparing against `end`, and word-at-a-time loads only
 * where the length leaves room (short runs are assembled from overlapping
 * smaller loads instead of reading past). Integers take their digits eight
 * at a time and are range-checked by magnitude, so no signed arithmetic
 * can overflow. Floating point has three tiers: Clinger's fast
 * path (at most 2^53 (2^24) in the significand and a power of ten that is
 * itself exact, so one correctly rounded multiply or divide is the
 * answer), then Eisel-Lemire (a 128-bit product that either decides the
 * rounding or says it cannot), then strtod_l in the "C" locale on a
 * canonical copy of the literal ("<digits>e<exp>", no decimal point, at
 * most 801 significant digits), which is also what keeps that last tier
 * locale-proof when no "C" locale object can be had. Decimals stay exact
 * in 128 bits. Dates and times check their fixed layout ("YYYY-MM-",
 * "HH:MM:SS") a word at a time, and days come from Howard Hinnant's
 * days_from_civil.
 */
#define _GNU_SOURCE   /* strtod_l, strtof_l, newlocale */
#include "textval.h"

#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "types.h"

typedef const unsigned char *cursor;

static inline unsigned digit_of(unsigned char c)
{
    return (unsigned)c - '0';   /* > 9 when c is not a digit */
}

static const uint64_t POW10_U64[20] = {
    1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
    100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
    10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
    100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL,
};

/* ==== eight bytes at a time ============================================ */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TEXTVAL_SWAR 1

static inline uint64_t load8(cursor p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* All eight bytes are '0'..'9': the high nibbles are 3, and adding 6 does
 * not carry into them. */
static inline bool all_digits8(uint64_t v)
{
    return ((v & 0xF0F0F0F0F0F0F0F0ULL) |
            (((v + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4)) == 0x3333333333333333ULL;
}

/* The value of eight digit bytes (first byte most significant): pairs, then
 * quads, then the whole, by multiplies that keep each lane apart. */
static inline uint64_t value8(uint64_t v)
{
    const uint64_t mask = 0x000000FF000000FFULL;
    const uint64_t mul1 = 100 + (1000000ULL << 32);
    const uint64_t mul2 = 1 + (10000ULL << 32);
    v -= 0x3030303030303030ULL;
    v = v * 10 + (v >> 8);
    return (((v & mask) * mul1) + (((v >> 16) & mask) * mul2)) >> 32;
}

static inline uint64_t load4(cursor p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline uint64_t load2(cursor p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

/* p[0..n), 1 <= n <= 8, right-aligned in a word of '0's, read without
 * touching a byte outside it: two overlapping 4-byte loads (the overlap
 * carries the same bytes to the same place), or 1..3 single bytes. */
static inline uint64_t padded8(cursor p, size_t n)
{
    uint64_t w = 0x3030303030303030ULL >> 1 >> (8 * n - 1);
    if (n >= 4) return w | load4(p + n - 4) << 32 | load4(p) << (8 * (8 - n));
    if (n == 3) return w | load2(p + 1) << 48 | (uint64_t)p[0] << 40;
    if (n == 2) return w | load2(p) << 48;
    return w | (uint64_t)p[0] << 56;
}

/* Per byte, x must be 0..9 where `limit` has 0x76 and 0 where it has 0x7F
 * (x is the text XOR its expected pattern, so a digit is 0..9 and a
 * separator that matches is 0). Masking bit 7 first keeps carries in their
 * byte. */
static inline bool swar_fits(uint64_t x, uint64_t limit)
{
    return ((((x & 0x7F7F7F7F7F7F7F7FULL) + limit) | x) & 0x8080808080808080ULL) == 0;
}

/* ==== integers ========================================================= */

/* The digits p[0..n), 1 <= n <= 19 (so the value cannot wrap): one to three
 * eight-digit words, with no loop and no branch on the digits. */
static inline int digits_u64(cursor p, size_t n, uint64_t *out)
{
    if (n <= 8) {
        uint64_t w = padded8(p, n);
        if (!all_digits8(w)) return TEXTVAL_SYNTAX;
        *out = value8(w);
        return TEXTVAL_OK;
    }
    uint64_t lo = load8(p + n - 8);
    if (n <= 16) {
        uint64_t hi = padded8(p, n - 8);
        if (!all_digits8(hi) || !all_digits8(lo)) return TEXTVAL_SYNTAX;
        *out = value8(hi) * 100000000ULL + value8(lo);
        return TEXTVAL_OK;
    }
    uint64_t top = padded8(p, n - 16), mid = load8(p + n - 16);
    if (!all_digits8(top) || !all_digits8(mid) || !all_digits8(lo)) return TEXTVAL_SYNTAX;
    *out = (value8(top) * 100000000ULL + value8(mid)) * 100000000ULL + value8(lo);
    return TEXTVAL_OK;
}
#else
/* ==== integers ========================================================= */

/* The digits p[0..n), 1 <= n <= 19 (so the value cannot wrap). */
static inline int digits_u64(cursor p, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned d = digit_of(p[i]);
        if (d > 9) return TEXTVAL_SYNTAX;
        v = v * 10 + d;
    }
    *out = v;
    return TEXTVAL_OK;
}
#endif

/* More than 19 characters of digits: all must be digits, then leading
 * zeros aside at most 20 remain, and twenty only up to UINT64_MAX. */
static int digits_u64_long(cursor p, size_t n, uint64_t *out)
{
    for (size_t i = 0; i < n; i++)
        if (digit_of(p[i]) > 9) return TEXTVAL_SYNTAX;
    while (n > 19 && *p == '0') p++, n--;
    if (n <= 19) return digits_u64(p, n, out);
    if (n > 20) return TEXTVAL_RANGE;
    uint64_t v = 0;
    digits_u64(p, 19, &v);
    unsigned d = digit_of(p[19]);
    if (v > (UINT64_MAX - d) / 10) return TEXTVAL_RANGE;
    *out = v * 10 + d;
    return TEXTVAL_OK;
}

/* [+-]digits as sign and magnitude. */
static inline int scan_int(cursor p, size_t len, bool *neg, uint64_t *mag)
{
    *neg = false;
    if (INLAY_UNLIKELY(len == 0)) return TEXTVAL_SYNTAX;
    if (*p == '-' || *p == '+') {
        *neg = *p == '-';
        p++, len--;
        if (len == 0) return TEXTVAL_SYNTAX;
    }
    if (INLAY_LIKELY(len <= 19)) return digits_u64(p, len, mag);
    return digits_u64_long(p, len, mag);
}

int inl_textval_int(const char *s, size_t len, int bit_width, bool is_signed, int64_t *out)
{
    bool neg;
    uint64_t mag;
    int rc = scan_int((cursor)s, len, &neg, &mag);
    if (INLAY_UNLIKELY(rc != TEXTVAL_OK)) return rc;
    if (bit_width < 1 || bit_width > 64) return TEXTVAL_RANGE;
    /* the largest magnitude each sign may have */
    uint64_t pos_max = (UINT64_MAX >> (64 - bit_width)) >> is_signed;
    uint64_t neg_max = is_signed ? pos_max + 1 : 0;
    if (neg) {
        if (INLAY_UNLIKELY(mag > neg_max)) return TEXTVAL_RANGE;
        *out = (int64_t)(0 - mag);   /* two's complement; 2^63 lands on INT64_MIN */
    } else {
        if (INLAY_UNLIKELY(mag > pos_max)) return TEXTVAL_RANGE;
        *out = (int64_t)mag;
    }
    return TEXTVAL_OK;
}

/* ==== the number grammar ============================================== */

#define EXP_SATURATE 100000000   /* |exponent| beyond this only decides 0 or inf */

/* One scan of [+-](digits[.digits]|.digits|digits.)[(e|E)[+-]digits]. w
 * holds the first 19 significant digits and value = w * 10^e10 exactly
 * unless `inexact` (a non-zero digit fell past the 19th). */
typedef struct numscan {
    cursor int_p, int_end;      /* the digits before the point */
    cursor frac_p, frac_end;    /* the digits after it */
    uint64_t w;
    int64_t e10;
    int64_t exp;                /* the written exponent, saturated */
    uint32_t nd;                /* significant digits in w */
    bool neg, inexact, has_exp;
} numscan;

/* The optional exponent from p, which must run to end. */
static inline int scan_exponent(cursor p, cursor end, numscan *ns)
{
    ns->exp = 0;
    ns->has_exp = false;
    if (p == end) return TEXTVAL_OK;
    if ((*p | 0x20) != 'e') return TEXTVAL_SYNTAX;
    bool eneg = false;
    if (++p < end && (*p == '-' || *p == '+')) eneg = *p++ == '-';
    if (p == end) return TEXTVAL_SYNTAX;
    int64_t x = 0;
    for (; p < end; p++) {
        unsigned d = digit_of(*p);
        if (d > 9) return TEXTVAL_SYNTAX;
        if (x < EXP_SATURATE) x = x * 10 + d;
    }
    ns->exp = eneg ? -x : x;
    ns->has_exp = true;
    return TEXTVAL_OK;
}

static inline int scan_number(cursor p, cursor end, numscan *ns)
{
    ns->neg = false;
    if (p < end && (*p == '-' || *p == '+')) {
        ns->neg = *p == '-';
        p++;
    }
    uint64_t w = 0;
    uint32_t nd = 0;
    int64_t e10 = 0;
    bool inexact = false;
    ns->int_p = p;
    for (; p < end; p++) {
        unsigned d = digit_of(*p);
        if (d > 9) break;
        if (nd < 19) {
            w = w * 10 + d;
            nd += w != 0;
        } else {
            e10++;
            inexact |= d != 0;
        }
    }
    ns->int_end = p;
    ns->frac_p = ns->frac_end = p;
    if (p < end && *p == '.') {
        ns->frac_p = ++p;
        for (; p < end; p++) {
            unsigned d = digit_of(*p);
            if (d > 9) break;
            if (nd < 19) {
                w = w * 10 + d;
                nd += w != 0;
                e10--;
            } else {
                inexact |= d != 0;
            }
        }
        ns->frac_end = p;
    }
    if (ns->int_end == ns->int_p && ns->frac_end == ns->frac_p) return TEXTVAL_SYNTAX;
    if (scan_exponent(p, end, ns) != TEXTVAL_OK) return TEXTVAL_SYNTAX;
    ns->w = w;
    ns->nd = nd;
    ns->e10 = e10 + ns->exp;
    ns->inexact = inexact;
    return TEXTVAL_OK;
}

/* [+-]nan, inf or infinity in any case. Returns 1 for nan, 2 for inf, 0
 * otherwise. */
static int special_word(cursor p, cursor end, bool *neg)
{
    *neg = false;
    if (p < end && (*p == '-' || *p == '+')) *neg = *p++ == '-';
    size_t n = (size_t)(end - p);
    char low[8];
    if (n != 3 && n != 8) return 0;
    for (size_t i = 0; i < n; i++) low[i] = (char)(p[i] | 0x20);   /* exact for letters */
    if (n == 3 && memcmp(low, "nan", 3) == 0) return 1;
    if (n == 3 && memcmp(low, "inf", 3) == 0) return 2;
    if (n == 8 && memcmp(low, "infinity", 8) == 0) return 2;
    return 0;
}

/* ==== floating point slow path ======================================== */

#define CANON_DIGITS 800   /* more than any midpoint of two doubles needs (767) */

static _Atomic(locale_t) c_locale;

/* The "C" locale, created on first use; (locale_t)0 if it cannot be. */
static locale_t the_c_locale(void)
{
    locale_t l = atomic_load_explicit(&c_locale, memory_order_acquire);
    if (INLAY_LIKELY(l != (locale_t)0)) return l;
    locale_t fresh = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (fresh == (locale_t)0) return (locale_t)0;
    locale_t expected = (locale_t)0;
    if (!atomic_compare_exchange_strong_explicit(&c_locale, &expected, fresh, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        freelocale(fresh);   /* another thread won */
        return expected;
    }
    return fresh;
}

/* Writes the literal as "<digits>e<exp>" into text: the significant digits
 * (first CANON_DIGITS, then a '1' if any dropped digit is non-zero — it
 * sits strictly between the same two neighbours, and no rounding boundary
 * has that many digits) and the exponent that makes it exact. Returns the
 * length, or 0 when the value is zero; *scale10 is the decimal exponent of
 * the leading digit, so the caller can settle far-out values itself. */
static size_t canonical(const numscan *ns, char *text, int64_t *scale10)
{
    size_t k = 0;
    int64_t dropped = 0;
    bool sticky = false;
    const cursor parts[2][2] = { { ns->int_p, ns->int_end }, { ns->frac_p, ns->frac_end } };
    for (int part = 0; part < 2; part++) {
        for (cursor p = parts[part][0]; p < parts[part][1]; p++) {
            if (k == 0 && *p == '0') continue;
            if (k < CANON_DIGITS) {
                text[k++] = (char)*p;
            } else {
                dropped++;
                sticky |= *p != '0';
            }
        }
    }
    if (k == 0) return 0;
    int64_t e = ns->exp - (int64_t)(ns->frac_end - ns->frac_p) + dropped;
    if (sticky) {
        text[k++] = '1';
        e--;
    }
    *scale10 = e + (int64_t)k - 1;
    if (*scale10 > 400 || *scale10 < -400) return k;   /* the caller decides; text is not used */
    text[k++] = 'e';
    if (e < 0) {
        text[k++] = '-';
        e = -e;
    }
    char tmp[8];
    size_t t = 0;
    do {
        tmp[t++] = (char)('0' + e % 10);
        e /= 10;
    } while (e);
    while (t) text[k++] = tmp[--t];
    text[k] = 0;
    return k;
}

/* Past 10^400 every literal overflows; below 10^-400 every literal is
 * closer to zero than to the smallest subnormal. */
static int slow_double(const numscan *ns, double *out)
{
    char text[CANON_DIGITS + 16];
    int64_t scale10 = 0;
    double v;
    if (canonical(ns, text, &scale10) == 0 || scale10 < -400) {
        v = 0.0;
    } else if (scale10 > 400) {
        return TEXTVAL_RANGE;
    } else {
        locale_t loc = the_c_locale();
        v = loc != (locale_t)0 ? strtod_l(text, NULL, loc) : strtod(text, NULL);
        if (isinf(v)) return TEXTVAL_RANGE;
    }
    *out = ns->neg ? -v : v;
    return TEXTVAL_OK;
}

static int slow_float(const numscan *ns, float *out)
{
    char text[CANON_DIGITS + 16];
    int64_t scale10 = 0;
    float v;
    if (canonical(ns, text, &scale10) == 0 || scale10 < -400) {
        v = 0.0f;
    } else if (scale10 > 400) {
        return TEXTVAL_RANGE;
    } else {
        locale_t loc = the_c_locale();
        v = loc != (locale_t)0 ? strtof_l(text, NULL, loc) : strtof(text, NULL);
        if (isinf(v)) return TEXTVAL_RANGE;
    }
    *out = ns->neg ? -v : v;
    return TEXTVAL_OK;
}

/* ==== floating point: Eisel-Lemire ===================================== */

/* Between Clinger's exact cases and strtod sits the Eisel-Lemire method
 * (as in Go's strconv and fast_float): w * 10^q from one or two 64x128-bit
 * products with a 128-bit truncation of 10^q. The truncation makes the
 * product a slight underestimate, so whenever the bits that decide the
 * rounding could still change, or the value lands exactly on a tie, or
 * leaves the normal range, it gives up and strtod decides. */
#ifdef __SIZEOF_INT128__
#define TEXTVAL_EISEL_LEMIRE 1

#define EL_MIN_Q (-348)
#define EL_MAX_Q 347

/* el_pow10[q - EL_MIN_Q] = {high, low} of the first 128 bits of 10^q, the
 * leading bit set, the rest dropped. Built once, on first use, with exact
 * integer arithmetic rather than kept as 700 lines of constants. */
static uint64_t el_pow10[EL_MAX_Q - EL_MIN_Q + 1][2];
static atomic_int el_state;   /* 0 not built, 1 being built, 2 ready */

#define EL_LIMBS 44   /* 1408 bits: 2^1344 for the negative powers, 10^347 for the positive */

static void el_store(const uint32_t *x, int q)
{
    int top = EL_LIMBS - 1;
    while (x[top] == 0) top--;
    int len = top * 32 + (32 - __builtin_clz(x[top]));   /* bit length */
    uint64_t hi = 0, lo = 0;
    for (int i = 0; i < 128; i++) {
        int k = len - 1 - i;
        uint64_t bit = k >= 0 ? (x[k / 32] >> (k % 32)) & 1 : 0;
        if (i < 64) hi = hi << 1 | bit;
        else lo = lo << 1 | bit;
    }
    el_pow10[q - EL_MIN_Q][0] = hi;
    el_pow10[q - EL_MIN_Q][1] = lo;
}

static void el_build(void)
{
    uint32_t x[EL_LIMBS];
    /* 10^q for q >= 0, by multiplying */
    memset(x, 0, sizeof x);
    x[0] = 1;
    for (int q = 0; q <= EL_MAX_Q; q++) {
        el_store(x, q);
        uint64_t carry = 0;
        for (int i = 0; i < EL_LIMBS; i++) {
            uint64_t t = (uint64_t)x[i] * 10 + carry;
            x[i] = (uint32_t)t;
            carry = t >> 32;
        }
    }
    /* 10^q for q < 0 as floor(2^1344 / 10^-q): floor of floor divided is
     * the floor of the whole, and 2^1344 / 10^348 still has 188 bits */
    memset(x, 0, sizeof x);
    x[1344 / 32] = 1u << (1344 % 32);
    for (int q = -1; q >= EL_MIN_Q; q--) {
        uint64_t rem = 0;
        for (int i = EL_LIMBS - 1; i >= 0; i--) {
            uint64_t t = rem << 32 | x[i];
            x[i] = (uint32_t)(t / 10);
            rem = t % 10;
        }
        el_store(x, q);
    }
}

/* The table is ready (built here if nobody else is building it; a caller
 * that finds it being built uses strtod this once instead of waiting). */
static bool el_ready(void)
{
    if (INLAY_LIKELY(atomic_load_explicit(&el_state, memory_order_acquire) == 2)) return true;
    int expected = 0;
    if (!atomic_compare_exchange_strong(&el_state, &expected, 1)) return false;
    el_build();
    atomic_store_explicit(&el_state, 2, memory_order_release);
    return true;
}

/* floor(q * log2(10)) for |q| < 1650. */
static inline int64_t floor_log2_pow10(int64_t q)
{
    int64_t x = 217706 * q;
    return x >= 0 ? x >> 16 : -((65535 - x) >> 16);
}

/* The bits of w * 10^q (w != 0) as a positive normal double (mant_bits
 * 52, bias 1023) or float (23, 127), or false when undecided. */
static inline bool eisel_lemire(uint64_t w, int64_t q, int mant_bits, int bias, uint64_t *bits)
{
    if (q < EL_MIN_Q || q > EL_MAX_Q) return false;
    const uint64_t *t = el_pow10[q - EL_MIN_Q];
    int clz = __builtin_clzll(w);
    w <<= clz;
    int64_t exp2 = floor_log2_pow10(q) + 64 + bias - clz;
    const int sh = 61 - mant_bits;   /* bits below the significand and its rounding bit */
    const uint64_t mask = (1ULL << sh) - 1;
    unsigned __int128 x = (unsigned __int128)w * t[0];
    uint64_t xhi = (uint64_t)(x >> 64), xlo = (uint64_t)x;
    if ((xhi & mask) == mask && xlo + w < w) {
        /* the dropped low half of 10^q could carry into the bits that count */
        unsigned __int128 y = (unsigned __int128)w * t[1];
        uint64_t yhi = (uint64_t)(y >> 64), ylo = (uint64_t)y;
        uint64_t mlo = xlo + yhi, mhi = xhi + (mlo < xlo);
        if ((mhi & mask) == mask && mlo + 1 == 0 && ylo + w < w) return false;
        xhi = mhi;
        xlo = mlo;
    }
    uint64_t msb = xhi >> 63;
    uint64_t m = xhi >> (msb + (uint64_t)sh);
    exp2 -= (int64_t)(1 ^ msb);
    if (xlo == 0 && (xhi & mask) == 0 && (m & 3) == 1) return false;   /* perhaps a tie */
    m += m & 1;
    m >>= 1;
    if (m >> (mant_bits + 1)) {
        m >>= 1;
        exp2++;
    }
    if ((uint64_t)(exp2 - 1) >= (uint64_t)(2 * bias)) return false;   /* subnormal, zero or infinite */
    *bits = (uint64_t)exp2 << mant_bits | (m & ((1ULL << mant_bits) - 1));
    return true;
}

/* The literal's bits by Eisel-Lemire; with more than 19 digits, only if
 * the truncated significand and the next one up round alike (the value
 * lies strictly between them). */
static bool eisel_lemire_scan(const numscan *ns, int mant_bits, int bias, uint64_t *bits)
{
    if (!el_ready()) return false;
    if (!eisel_lemire(ns->w, ns->e10, mant_bits, bias, bits)) return false;
    if (!ns->inexact) return true;
    uint64_t up;
    return eisel_lemire(ns->w + 1, ns->e10, mant_bits, bias, &up) && up == *bits;
}
#endif

/* ==== floating point ==================================================== */

/* Clinger's fast path needs each operation rounded once, in the type. */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
#define TEXTVAL_CLINGER 1
#endif

static const double POW10_D[23] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static const float POW10_F[11] = { 1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f };

static int special_double(cursor p, cursor end, double *out)
{
    bool neg;
    int w = special_word(p, end, &neg);
    if (!w) return TEXTVAL_SYNTAX;
    double v = w == 1 ? (double)NAN : (double)INFINITY;
    *out = neg ? -v : v;
    return TEXTVAL_OK;
}

int inl_textval_double(const char *s, size_t len, double *out)
{
    cursor p = (cursor)s, end = p + len;
    numscan ns;
    if (INLAY_UNLIKELY(scan_number(p, end, &ns) != TEXTVAL_OK)) return special_double(p, end, out);
    if (ns.w == 0) {   /* no significant digit: zero, whatever the exponent */
        *out = ns.neg ? -0.0 : 0.0;
        return TEXTVAL_OK;
    }
#ifdef TEXTVAL_CLINGER
    const uint64_t max_w = 1ULL << 53;
    if (INLAY_LIKELY(!ns.inexact && ns.w <= max_w)) {
        double v;
        int64_t e = ns.e10;
        bool fast = true;
        if (e >= 0 && e <= 22) {
            v = (double)ns.w * POW10_D[e];
        } else if (e < 0 && e >= -22) {
            v = (double)ns.w / POW10_D[-e];
        } else if (e > 22 && e <= 22 + 15 && ns.w <= max_w / POW10_U64[e - 22]) {
            /* move the excess power into the (still exact) significand */
            v = (double)(ns.w * POW10_U64[e - 22]) * 1e22;
        } else {
            fast = false;
            v = 0;
        }
        if (fast) {
            *out = ns.neg ? -v : v;
            return TEXTVAL_OK;
        }
    }
#endif
#ifdef TEXTVAL_EISEL_LEMIRE
    uint64_t bits;
    if (INLAY_LIKELY(eisel_lemire_scan(&ns, 52, 1023, &bits))) {
        bits |= (uint64_t)ns.neg << 63;
        memcpy(out, &bits, 8);
        return TEXTVAL_OK;
    }
#endif
    return slow_double(&ns, out);
}

int inl_textval_float(const char *s, size_t len, float *out)
{
    cursor p = (cursor)s, end = p + len;
    numscan ns;
    if (INLAY_UNLIKELY(scan_number(p, end, &ns) != TEXTVAL_OK)) {
        double d;
        if (special_double(p, end, &d) != TEXTVAL_OK) return TEXTVAL_SYNTAX;
        *out = (float)d;
        return TEXTVAL_OK;
    }
    if (ns.w == 0) {
        *out = ns.neg ? -0.0f : 0.0f;
        return TEXTVAL_OK;
    }
#ifdef TEXTVAL_CLINGER
    const uint64_t max_w = 1ULL << 24;
    if (INLAY_LIKELY(!ns.inexact && ns.w <= max_w)) {
        float v;
        int64_t e = ns.e10;
        bool fast = true;
        if (e >= 0 && e <= 10) {
            v = (float)ns.w * POW10_F[e];
        } else if (e < 0 && e >= -10) {
            v = (float)ns.w / POW10_F[-e];
        } else if (e > 10 && e <= 10 + 7 && ns.w <= max_w / POW10_U64[e - 10]) {
            v = (float)(ns.w * POW10_U64[e - 10]) * 1e10f;
        } else {
            fast = false;
            v = 0;
        }
        if (fast) {
            *out = ns.neg ? -v : v;
            return TEXTVAL_OK;
        }
    }
#endif
#ifdef TEXTVAL_EISEL_LEMIRE
    uint64_t bits;
    if (INLAY_LIKELY(eisel_lemire_scan(&ns, 23, 127, &bits))) {
        uint32_t b32 = (uint32_t)bits | (uint32_t)ns.neg << 31;
        memcpy(out, &b32, 4);
        return TEXTVAL_OK;
    }
#endif
    return slow_float(&ns, out);
}

/* ==== booleans ========================================================= */

/* The words, as lowercase bytes in a little word; OR-ing 0x20 into a byte
 * lowercases a letter and maps nothing else onto one. Returns 1 for a true
 * word, 0 for a false one, -1 for none; single letters y/n set *short_yn. */
static int bool_word(cursor p, size_t len, bool *short_yn)
{
    uint64_t w = 0;
    *short_yn = false;
    if (len == 0 || len > 5) return -1;
    for (size_t i = 0; i < len; i++) w |= (uint64_t)(p[i] | 0x20) << (8 * i);
#define WORD2(a, b) ((uint64_t)(a) | (uint64_t)(b) << 8)
#define WORD3(a, b, c) (WORD2(a, b) | (uint64_t)(c) << 16)
#define WORD4(a, b, c, d) (WORD3(a, b, c) | (uint64_t)(d) << 24)
    switch (len) {
    case 1:
        if (w == 't') return 1;
        if (w == 'f') return 0;
        *short_yn = true;
        if (w == 'y') return 1;
        if (w == 'n') return 0;
        return -1;
    case 2: return w == WORD2('n', 'o') ? 0 : -1;
    case 3: return w == WORD3('y', 'e', 's') ? 1 : -1;
    case 4: return w == WORD4('t', 'r', 'u', 'e') ? 1 : -1;
    default: return w == (WORD4('f', 'a', 'l', 's') | (uint64_t)'e' << 32) ? 0 : -1;
    }
#undef WORD2
#undef WORD3
#undef WORD4
}

int inl_textval_bool(const char *s, size_t len, bool *out)
{
    cursor p = (cursor)s;
    if (len == 1 && (*p == '0' || *p == '1')) {
        *out = *p == '1';
        return TEXTVAL_OK;
    }
    bool yn;
    int v = bool_word(p, len, &yn);
    if (v < 0) return TEXTVAL_SYNTAX;
    *out = v == 1;
    return TEXTVAL_OK;
}

/* ==== decimals ========================================================== */

/* Unsigned 128-bit arithmetic, only what an exact decimal needs: multiply
 * by a small factor and add a digit, and the two halves. */
#ifdef __SIZEOF_INT128__
typedef unsigned __int128 u128;
static inline u128 u128_of(uint64_t v) { return v; }
static inline u128 u128_muladd(u128 x, uint32_t m, uint32_t a) { return x * m + a; }
static inline u128 u128_neg(u128 x) { return 0 - x; }
static inline uint64_t u128_lo(u128 x) { return (uint64_t)x; }
static inline uint64_t u128_hi(u128 x) { return (uint64_t)(x >> 64); }
#else
typedef struct u128 {
    uint64_t lo, hi;
} u128;
static inline u128 u128_of(uint64_t v)
{
    u128 r = { v, 0 };
    return r;
}
/* x * m + a by 32-bit limbs, modulo 2^128. */
static inline u128 u128_muladd(u128 x, uint32_t m, uint32_t a)
{
    uint32_t limb[4] = { (uint32_t)x.lo, (uint32_t)(x.lo >> 32), (uint32_t)x.hi, (uint32_t)(x.hi >> 32) };
    uint64_t carry = a;
    for (int i = 0; i < 4; i++) {
        uint64_t t = (uint64_t)limb[i] * m + carry;
        limb[i] = (uint32_t)t;
        carry = t >> 32;
    }
    u128 r = { limb[0] | (uint64_t)limb[1] << 32, limb[2] | (uint64_t)limb[3] << 32 };
    return r;
}
static inline u128 u128_neg(u128 x)
{
    u128 r = { 0 - x.lo, 0 - x.hi - (x.lo != 0) };
    return r;
}
static inline uint64_t u128_lo(u128 x) { return x.lo; }
static inline uint64_t u128_hi(u128 x) { return x.hi; }
#endif

#define DECIMAL_MAX_DIGITS 38

/* Digits accumulate without their trailing zeros, which are only counted
 * (`zeros`), so "1.5000…0" of any length costs nothing and the value
 * acc * 10^k (k from the zeros, the point, the exponent and the scale)
 * needs no overflow check: acc has nsig digits, and nsig + k is checked
 * against the precision before multiplying. */
typedef struct decacc {
    uint64_t small;   /* the value while nsig <= 19 */
    u128 big;         /* the value once nsig > 19 */
    uint32_t nsig;    /* digits in the value, from the first to the last non-zero */
    uint32_t zeros;   /* zeros seen since the last non-zero digit */
    bool too_long;    /* more than 38 significant digits */
} decacc;

static inline u128 u128_scale(u128 x, uint32_t k)
{
    for (; k >= 9; k -= 9) x = u128_muladd(x, 1000000000u, 0);
    return k ? u128_muladd(x, (uint32_t)POW10_U64[k], 0) : x;
}

static inline void dec_digit(decacc *a, unsigned d)
{
    if (d == 0) {
        if (a->nsig) a->zeros++;
        return;
    }
    uint32_t grow = a->zeros + 1;
    a->zeros = 0;
    if (a->nsig + grow <= 19) {
        a->small = a->small * POW10_U64[grow] + d;
    } else if (a->nsig + grow <= DECIMAL_MAX_DIGITS) {
        if (a->nsig <= 19) a->big = u128_of(a->small);
        a->big = u128_muladd(u128_scale(a->big, grow - 1), 10, d);
    } else {
        a->too_long = true;
    }
    a->nsig = a->too_long ? DECIMAL_MAX_DIGITS + 1 : a->nsig + grow;
}

int inl_textval_decimal(const char *s, size_t len, int32_t precision, int32_t scale,
                    int64_t *unscaled_lo, int64_t *unscaled_hi)
{
    cursor p = (cursor)s, end = p + len;
    numscan ns;
    if (scan_number(p, end, &ns) != TEXTVAL_OK) return TEXTVAL_SYNTAX;
    if (ns.nd <= 18) {
        /* every significant digit is in w, and the value is w * 10^e10:
         * settle it in 64 bits when the result stays below 10^19 */
        uint64_t v = ns.w;
        int64_t k = ns.e10 + scale;
        bool fits = true;
        for (; k < 0 && v != 0; k++) {   /* drop zeros past the scale, one constant division each */
            if (v % 10 != 0) return TEXTVAL_RANGE;
            v /= 10;
        }
        if (v != 0 && k > 0) {
            fits = k <= 18 && v < POW10_U64[19 - k];
            if (fits) v *= POW10_U64[k];
        }
        if (fits) {
            if (precision < 19 && v >= (precision > 0 ? POW10_U64[precision] : 1)) return TEXTVAL_RANGE;
            *unscaled_lo = ns.neg ? (int64_t)(0 - v) : (int64_t)v;
            *unscaled_hi = ns.neg && v != 0 ? -1 : 0;
            return TEXTVAL_OK;
        }
    }
    decacc a = { 0 };
    for (cursor q = ns.int_p; q < ns.int_end; q++) dec_digit(&a, digit_of(*q));
    for (cursor q = ns.frac_p; q < ns.frac_end; q++) dec_digit(&a, digit_of(*q));
    if (a.nsig == 0) {
        *unscaled_lo = *unscaled_hi = 0;
        return TEXTVAL_OK;
    }
    if (a.too_long) return TEXTVAL_RANGE;
    /* value = acc * 10^(zeros - fraction digits + exponent); acc ends in a
     * non-zero digit, so a negative power can never be exact */
    int64_t k = (int64_t)a.zeros - (int64_t)(ns.frac_end - ns.frac_p) + ns.exp + scale;
    int64_t max_digits = precision < DECIMAL_MAX_DIGITS ? precision : DECIMAL_MAX_DIGITS;
    if (k < 0 || (int64_t)a.nsig + k > max_digits) return TEXTVAL_RANGE;
    u128 v = a.nsig <= 19 ? u128_of(a.small) : a.big;
    v = u128_scale(v, (uint32_t)k);
    if (ns.neg) v = u128_neg(v);
    *unscaled_lo = (int64_t)u128_lo(v);
    *unscaled_hi = (int64_t)u128_hi(v);
    return TEXTVAL_OK;
}

/* ---- decimals of any width ----------------------------------------------- */

enum { WIDE_DIGITS = 80 };   /* significant digits kept; more than 76 never fit */

/* out = out * 10 + d over `width` big-endian bytes. */
static void be_muladd(uint8_t *out, size_t width, unsigned d)
{
    unsigned carry = d;
    for (size_t i = width; i-- > 0;) {
        unsigned v = out[i] * 10u + carry;
        out[i] = (uint8_t)v;
        carry = v >> 8;
    }
}

static void be_negate(uint8_t *out, size_t width)
{
    unsigned carry = 1;
    for (size_t i = width; i-- > 0;) {
        unsigned v = (uint8_t)~out[i] + carry;
        out[i] = (uint8_t)v;
        carry = v >> 8;
    }
}

/* The significant digits (leading zeros dropped) of the number's integer
 * and fraction parts, at most WIDE_DIGITS; *extra counts the ones past
 * that, *dropped_nonzero says whether any of them was not a zero. */
static int wide_digits(const numscan *ns, char *digits, int64_t *extra, bool *dropped_nonzero)
{
    int nd = 0;
    *extra = 0;
    *dropped_nonzero = false;
    for (int part = 0; part < 2; part++) {
        cursor p = part ? ns->frac_p : ns->int_p, end = part ? ns->frac_end : ns->int_end;
        for (; p < end; p++) {
            char c = (char)*p;
            if (nd == 0 && c == '0') continue;
            if (nd < WIDE_DIGITS) {
                digits[nd++] = c;
            } else {
                (*extra)++;
                *dropped_nonzero |= c != '0';
            }
        }
    }
    return nd;
}

int inl_textval_decimal_bytes(const char *s, size_t len, int32_t precision, int32_t scale, bool round,
                              uint8_t *out, size_t width)
{
    numscan ns;
    if (scan_number((cursor)s, (cursor)s + len, &ns) != TEXTVAL_OK) return TEXTVAL_SYNTAX;
    if (width < 1 || width > 32) return TEXTVAL_RANGE;
    const int32_t fits = inl_decimal_max_precision((int32_t)width);
    if (precision > fits) precision = fits;
    char digits[WIDE_DIGITS + 1];
    int64_t extra;
    bool dropped_nonzero;
    int nd = wide_digits(&ns, digits, &extra, &dropped_nonzero);
    /* value = digits * 10^(exp - fraction digits + extra); shift it to the scale */
    int64_t shift = ns.exp - (int64_t)(ns.frac_end - ns.frac_p) + extra + scale;
    if (shift < 0) {
        const int64_t drop = -shift;
        bool up = false;
        if (drop > nd) {   /* every kept digit falls off */
            if (!round && (nd || dropped_nonzero)) return TEXTVAL_SCALE;
            nd = 0;
        } else {
            if (!round) {
                for (int64_t k = nd - drop; k < nd; k++)
                    if (digits[k] != '0') return TEXTVAL_SCALE;
                if (dropped_nonzero) return TEXTVAL_SCALE;
            }
            up = round && digits[nd - drop] >= '5';
            nd -= (int)drop;
        }
        if (up) {   /* half away from zero: the magnitude goes up */
            int k = nd - 1;
            while (k >= 0 && digits[k] == '9') digits[k--] = '0';
            if (k >= 0) {
                digits[k]++;
            } else {
                memmove(digits + 1, digits, (size_t)nd);
                digits[0] = '1';
                nd++;
            }
        }
        shift = 0;
    } else if (dropped_nonzero) {
        return TEXTVAL_RANGE;
    }
    if (nd == 0) shift = 0;
    if (nd + shift > precision) return TEXTVAL_RANGE;
    memset(out, 0, width);
    for (int k = 0; k < nd; k++) be_muladd(out, width, (unsigned)(digits[k] - '0'));
    for (int64_t k = 0; k < shift; k++) be_muladd(out, width, 0);
    if (ns.neg && nd) be_negate(out, width);
    return TEXTVAL_OK;
}

/* ---- the public parsers ------------------------------------------------------ */

static int public_status(int r, const char **why, const char *range_reason)
{
    if (why) {
        *why = r == TEXTVAL_OK ? NULL
             : r == TEXTVAL_SYNTAX ? "not a number"
             : r == TEXTVAL_SCALE ? "more fractional digits than the scale"
             : range_reason;
    }
    return r == TEXTVAL_OK ? INLAY_OK : INLAY_ERR_VALUE;
}

int inlay_parse_int(const char *s, size_t len, int bit_width, bool is_signed, int64_t *out, const char **why)
{
    if (!s || !out || bit_width < 1 || bit_width > 64) return public_status(TEXTVAL_SYNTAX, why, NULL);
    return public_status(inl_textval_int(s, len, bit_width, is_signed, out), why, "out of range");
}

int inlay_parse_decimal(const char *s, size_t len, int32_t precision, int32_t scale, bool round, uint8_t *out,
                        size_t width, const char **why)
{
    if (!s || !out || precision < 1 || scale < 0 || scale > precision) {
        if (why) *why = "bad precision or scale";
        return INLAY_ERR_ARGUMENT;
    }
    int r = inl_textval_decimal_bytes(s, len, precision, scale, round, out, width);
    if (r == TEXTVAL_SYNTAX && why) {
        *why = "not a decimal number";
        return INLAY_ERR_VALUE;
    }
    return public_status(r, why, "too many digits");
}

/* ==== dates and times ==================================================== */

static inline int two_digits(cursor p)
{
    unsigned a = digit_of(p[0]), b = digit_of(p[1]);
    return (a > 9 || b > 9) ? -1 : (int)(a * 10 + b);
}

static inline bool is_leap(int64_t y)
{
    return (y % 4 == 0) & ((y % 100 != 0) | (y % 400 == 0));
}

/* Howard Hinnant's days_from_civil: years start in March, so the leap day
 * is the last of the year and the day of the year is linear in the month. */
static inline int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* A year, month and day (negative month or day: not two digits) checked
 * against the calendar. */
static inline int civil_days(int64_t y, int month, int day, int64_t *days)
{
    static const uint8_t mdays[13] = { 0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    if (month < 1 || month > 12 || day < 1 || day > mdays[month] ||
        (month == 2 && day == 29 && !is_leap(y)))
        return TEXTVAL_SYNTAX;
    *days = days_from_civil(y, (unsigned)month, (unsigned)day);
    return TEXTVAL_OK;
}

/* A date at p, up to end; *next is where it stops. */
static int parse_date(cursor p, cursor end, int64_t *days, cursor *next)
{
    size_t n = (size_t)(end - p);
    int64_t y = 0;
    int month, day;
#ifdef TEXTVAL_SWAR
    /* "YYYY-MM-" in one word: digits and dashes checked at once, then the
     * digit pairs summed in place (byte i becomes 10 * x[i] + x[i + 1]) */
    if (INLAY_LIKELY(n >= 10)) {
        uint64_t x = load8(p) ^ 0x2D30302D30303030ULL;
        if (INLAY_LIKELY(swar_fits(x, 0x7F76767F76767676ULL))) {
            uint64_t pairs = x * 10 + (x >> 8);
            y = (int64_t)((pairs & 0xFF) * 100 + ((pairs >> 16) & 0xFF));
            month = (int)((pairs >> 40) & 0xFF);
            day = two_digits(p + 8);
            *next = p + 10;
            return civil_days(y, month, day, days);
        }
    }
#endif
    if (n >= 10 && p[4] == '-') {
        for (int i = 0; i < 4; i++) {
            unsigned d = digit_of(p[i]);
            if (d > 9) return TEXTVAL_SYNTAX;
            y = y * 10 + d;
        }
        p += 5;
    } else if (n >= 11 && (*p == '+' || *p == '-')) {
        bool neg = *p++ == '-';
        int nd = 0;
        for (; p < end && nd <= 6; p++, nd++) {
            unsigned d = digit_of(*p);
            if (d > 9) break;
            y = y * 10 + d;
        }
        if (nd < 4 || nd > 6 || p == end || *p != '-') return TEXTVAL_SYNTAX;
        p++;
        if (neg) y = -y;
    } else {
        return TEXTVAL_SYNTAX;
    }
    if (end - p < 5 || p[2] != '-') return TEXTVAL_SYNTAX;
    month = two_digits(p);
    day = two_digits(p + 3);
    *next = p + 5;
    return civil_days(y, month, day, days);
}

int inl_textval_date(const char *s, size_t len, int32_t *days)
{
    cursor p = (cursor)s, end = p + len, next;
    int64_t d;
    if (parse_date(p, end, &d, &next) != TEXTVAL_OK || next != end) return TEXTVAL_SYNTAX;
    *days = (int32_t)d;   /* six year digits stay within +-366 million days */
    return TEXTVAL_OK;
}

typedef struct clock_time {
    int32_t seconds;        /* since midnight */
    uint32_t nanos;         /* the fraction, truncated to nanoseconds */
    uint32_t frac_digits;
} clock_time;

/* An optional .f (1..9 digits) at p; *next is where it stops. */
static inline int parse_fraction(cursor p, cursor end, clock_time *t, cursor *next)
{
    if (p < end && *p == '.') {
        uint32_t f = 0, nd = 0;
        for (p++; p < end && nd <= 9; p++, nd++) {
            unsigned d = digit_of(*p);
            if (d > 9) break;
            f = f * 10 + d;
        }
        if (nd == 0 || nd > 9) return TEXTVAL_SYNTAX;
        t->nanos = f * (uint32_t)POW10_U64[9 - nd];
        t->frac_digits = nd;
    }
    *next = p;
    return TEXTVAL_OK;
}

/* HH:MM[:SS[.f]] at p; *next is where it stops. */
static int parse_clock(cursor p, cursor end, clock_time *t, cursor *next)
{
    int h, m, sec = 0;
    t->nanos = 0;
    t->frac_digits = 0;
#ifdef TEXTVAL_SWAR
    /* "HH:MM:SS" in one word, as the date's "YYYY-MM-" */
    if (end - p >= 8) {
        uint64_t x = load8(p) ^ 0x30303A30303A3030ULL;
        if (swar_fits(x, 0x76767F76767F7676ULL)) {
            uint64_t pairs = x * 10 + (x >> 8);
            h = (int)(pairs & 0xFF);
            m = (int)((pairs >> 24) & 0xFF);
            sec = (int)((pairs >> 48) & 0xFF);
            if (h > 23 || m > 59 || sec > 59) return TEXTVAL_SYNTAX;
            t->seconds = h * 3600 + m * 60 + sec;
            return parse_fraction(p + 8, end, t, next);
        }
    }
#endif
    if (end - p < 5 || p[2] != ':') return TEXTVAL_SYNTAX;
    h = two_digits(p);
    m = two_digits(p + 3);
    if (h < 0 || m < 0 || h > 23 || m > 59) return TEXTVAL_SYNTAX;
    p += 5;
    if (p < end && *p == ':') {
        if (end - p < 3) return TEXTVAL_SYNTAX;
        sec = two_digits(p + 1);
        if (sec < 0 || sec > 59) return TEXTVAL_SYNTAX;
        t->seconds = h * 3600 + m * 60 + sec;
        return parse_fraction(p + 3, end, t, next);
    }
    t->seconds = h * 3600 + m * 60;
    *next = p;
    return TEXTVAL_OK;
}

/* Z, z, +HH:MM, +HHMM or +HH (or '-') at p, running to end. */
static int parse_zone(cursor p, cursor end, int32_t *offset_seconds)
{
    size_t n = (size_t)(end - p);
    if (n == 1 && (*p | 0x20) == 'z') {
        *offset_seconds = 0;
        return TEXTVAL_OK;
    }
    if ((n != 3 && n != 5 && n != 6) || (*p != '+' && *p != '-')) return TEXTVAL_SYNTAX;
    int h = two_digits(p + 1), m = 0;
    if (n == 5) m = two_digits(p + 3);
    if (n == 6) m = p[3] == ':' ? two_digits(p + 4) : -1;
    if (h < 0 || m < 0 || h > 23 || m > 59) return TEXTVAL_SYNTAX;
    *offset_seconds = (*p == '-' ? -1 : 1) * (h * 3600 + m * 60);
    return TEXTVAL_OK;
}

/* seconds * per_second + frac (0 <= frac < per_second). The fraction only
 * ever adds (it is the positive part of the instant), so truncating it to
 * the unit is the floor of the exact instant, before 1970 too. */
static inline int scaled(int64_t seconds, int64_t frac, int64_t per_second, int64_t *out)
{
    int64_t v;
    bool bad;
    if (seconds < 0 && frac > 0)   /* from the second above, so INT64_MIN itself is reachable */
        bad = __builtin_mul_overflow(seconds + 1, per_second, &v) ||
              __builtin_sub_overflow(v, per_second - frac, &v);
    else
        bad = __builtin_mul_overflow(seconds, per_second, &v) || __builtin_add_overflow(v, frac, &v);
    if (INLAY_UNLIKELY(bad)) return TEXTVAL_RANGE;
    *out = v;
    return TEXTVAL_OK;
}

/* One case per unit, so every divisor and factor is a constant. */
static inline int in_unit(int64_t seconds, uint32_t nanos, inlay_time_unit unit, int64_t *out)
{
    switch (unit) {
    case INLAY_MILLIS: return scaled(seconds, nanos / 1000000, 1000, out);
    case INLAY_MICROS: return scaled(seconds, nanos / 1000, 1000000, out);
    case INLAY_NANOS: return scaled(seconds, nanos, 1000000000, out);
    default: return TEXTVAL_SYNTAX;
    }
}

/* A timestamp in seconds and nanoseconds; *clock_given says a time part
 * was there. */
static int parse_timestamp(cursor p, cursor end, int64_t *seconds, clock_time *t, bool *clock_given,
                           bool *had_offset)
{
    int64_t days;
    cursor q;
    *clock_given = *had_offset = false;
    t->nanos = t->frac_digits = 0;
    t->seconds = 0;
    if (parse_date(p, end, &days, &q) != TEXTVAL_OK) return TEXTVAL_SYNTAX;
    int32_t offset = 0;
    if (q < end) {
        if (*q != 'T' && *q != 't' && *q != ' ') return TEXTVAL_SYNTAX;
        if (parse_clock(q + 1, end, t, &q) != TEXTVAL_OK) return TEXTVAL_SYNTAX;
        *clock_given = true;
        if (q < end) {
            if (parse_zone(q, end, &offset) != TEXTVAL_OK) return TEXTVAL_SYNTAX;
            *had_offset = true;
        }
    }
    *seconds = days * 86400 + t->seconds - offset;
    return TEXTVAL_OK;
}

int inl_textval_timestamp(const char *s, size_t len, inlay_time_unit unit, int64_t *out,
                      bool *had_offset)
{
    cursor p = (cursor)s;
    int64_t seconds;
    clock_time t;
    bool clock_given, offset;
    if (parse_timestamp(p, p + len, &seconds, &t, &clock_given, &offset) != TEXTVAL_OK)
        return TEXTVAL_SYNTAX;
    int rc = in_unit(seconds, t.nanos, unit, out);
    if (rc == TEXTVAL_OK && had_offset) *had_offset = offset;
    return rc;
}

int inl_textval_time(const char *s, size_t len, inlay_time_unit unit, int64_t *out)
{
    cursor p = (cursor)s, end = p + len, next;
    clock_time t;
    if (parse_clock(p, end, &t, &next) != TEXTVAL_OK || next != end) return TEXTVAL_SYNTAX;
    return in_unit(t.seconds, t.nanos, unit, out);
}

/* ==== inference ========================================================= */

static textval_kind classify_number(cursor p, cursor end, textval_class *c)
{
    numscan ns;
    if (scan_number(p, end, &ns) != TEXTVAL_OK) {
        bool neg;
        if (!special_word(p, end, &neg)) return TEXTVAL_KIND_STRING;
        c->exponent = true;
        return TEXTVAL_KIND_DOUBLE;
    }
    if (ns.int_end == end) {   /* no point, no exponent */
        bool neg = ns.neg;
        uint64_t mag = ns.w;   /* exact unless there are more than 19 digits */
        if (ns.e10 != 0 || ns.inexact) {
            if (scan_int(p, (size_t)(end - p), &neg, &mag) != TEXTVAL_OK) return TEXTVAL_KIND_STRING;
        }
        if (neg && mag > (uint64_t)INT64_MAX + 1) return TEXTVAL_KIND_STRING;
        c->value = neg ? (int64_t)(0 - mag) : (int64_t)mag;
        c->big = !neg && mag > (uint64_t)INT64_MAX;
        c->leading_zero = ns.int_end - ns.int_p > 1 && *ns.int_p == '0';
        return TEXTVAL_KIND_INT;
    }
    /* a literal may overflow only when its leading digit is far out */
    if (ns.w != 0 && ns.e10 + (int64_t)ns.nd > 300) {
        double d;
        if (inl_textval_double((const char *)p, (size_t)(end - p), &d) != TEXTVAL_OK) return TEXTVAL_KIND_STRING;
    }
    c->exponent = ns.has_exp;
    c->frac_digits = (uint32_t)(ns.frac_end - ns.frac_p);
    uint32_t sig = 0;
    const cursor parts[2][2] = { { ns.int_p, ns.int_end }, { ns.frac_p, ns.frac_end } };
    for (int part = 0; part < 2; part++)
        for (cursor q = parts[part][0]; q < parts[part][1]; q++)
            if (sig || *q != '0') sig++;
    c->sig_digits = sig;
    return TEXTVAL_KIND_DOUBLE;
}

textval_kind inl_textval_classify(const char *s, size_t len, textval_class *info)
{
    textval_class scratch;
    textval_class *c = info ? info : &scratch;
    memset(c, 0, sizeof *c);
    cursor p = (cursor)s, end = p + len;
    if (len == 0) return TEXTVAL_KIND_STRING;
    /* the character after the leading digits tells numbers from dates and times */
    cursor q = p + (*p == '+' || *p == '-');
    cursor digits = q;
    while (q < end && digit_of(*q) <= 9) q++;
    size_t nd = (size_t)(q - digits);
    if (q < end && *q == '-' && nd >= 4) {
        int64_t seconds;
        clock_time t;
        bool clock_given, offset;
        if (parse_timestamp(p, end, &seconds, &t, &clock_given, &offset) != TEXTVAL_OK)
            return TEXTVAL_KIND_STRING;
        if (!clock_given) return TEXTVAL_KIND_DATE;
        c->had_offset = offset;
        c->frac_digits = t.frac_digits;
        return TEXTVAL_KIND_TIMESTAMP;
    }
    if (q < end && *q == ':' && nd == 2 && digits == p) {
        clock_time t;
        cursor next;
        if (parse_clock(p, end, &t, &next) != TEXTVAL_OK || next != end) return TEXTVAL_KIND_STRING;
        c->frac_digits = t.frac_digits;
        return TEXTVAL_KIND_TIME;
    }
    if (nd == 0 && (q == end || *q != '.')) {
        bool yn;
        int v = bool_word(p, len, &yn);
        if (v >= 0 && !yn) {
            c->truth = v == 1;
            return TEXTVAL_KIND_BOOL;
        }
    }
    return classify_number(p, end, c);
}
