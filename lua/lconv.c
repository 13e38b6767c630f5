/*
 * lconv.c — the value conversions that are more than a load and a store:
 * IEEE half floats, doubles to floats without undefined behaviour, UUID
 * text, unsigned 64-bit text, and exact decimals.
 *
 * Decimals: a value is read as a string of significant digits D and a
 * power of ten E (value = D * 10^E), then shifted to the column's scale.
 * Text is exact: digits that would fall off the scale must be zeros.
 * Numbers go through their shortest round-trip text ("%.17g" at most) and
 * are rounded half away from zero to the scale, so 2.675 stores 2.68 as
 * written, not what the binary double is closest to. The unscaled integer
 * is then built in big-endian two's complement by repeated multiply-add,
 * which serves every width from INT32 to FIXED_LEN_BYTE_ARRAY(32).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linlay.h"

/* ---- floats ------------------------------------------------------------- */

float li_to_float(double d)
{
    if (LI_LIKELY(fabs(d) <= FLT_MAX) || !isfinite(d))
        return (float)d;
    /* Past FLT_MAX, round to nearest: ties go to even, which is infinity. */
    const double edge = (double)FLT_MAX + 0x1p103;
    float f = fabs(d) < edge ? FLT_MAX : INFINITY;
    return d < 0 ? -f : f;
}

/* ---- text ------------------------------------------------------------------ */


/* ---- uint64 text ---------------------------------------------------------- */

int li_parse_u64(const char *s, size_t len, uint64_t *out)
{
    if (len == 0 || len > 20) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return 0;
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

/* ---- decimals -------------------------------------------------------------- */

enum { MAX_TEXT = 160, MAX_DIGITS = 80 };

static const char *NOT_DECIMAL = "not a decimal number";

/* out = out * 10 + d over `width` big-endian bytes. */
static void be_muladd(uint8_t *out, int width, unsigned d)
{
    unsigned carry = d;
    for (int i = width - 1; i >= 0; i--) {
        unsigned v = out[i] * 10u + carry;
        out[i] = (uint8_t)v;
        carry = v >> 8;
    }
}

static void be_negate(uint8_t *out, int width)
{
    unsigned carry = 1;
    for (int i = width - 1; i >= 0; i--) {
        unsigned v = (uint8_t)~out[i] + carry;
        out[i] = (uint8_t)v;
        carry = v >> 8;
    }
}

int64_t li_be_to_i64(const uint8_t *p, int width)
{
    uint64_t v = (p[0] & 0x80) ? UINT64_MAX : 0;
    for (int i = 0; i < width; i++) v = v << 8 | p[i];
    int64_t r;
    memcpy(&r, &v, sizeof r);
    return r;
}

const char *li_decimal_from_text(const char *s, size_t len, int precision, int scale,
                                 int round, uint8_t *out, int width)
{
    char digits[MAX_DIGITS + 2];
    int nd = 0;               /* significant digits kept (leading zeros dropped) */
    long frac = 0;            /* digits after the point */
    long dropped_nonzero = 0; /* significant digits beyond MAX_DIGITS that were not zero */
    long extra = 0;           /* significant digits beyond MAX_DIGITS */
    int neg = 0, any = 0;
    size_t i = 0;
    if (len > MAX_TEXT) return NOT_DECIMAL;
    if (i < len && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    for (int point = 0; i < len; i++) {
        char c = s[i];
        if (c == '.' && !point) { point = 1; continue; }
        if (c < '0' || c > '9') break;
        any = 1;
        if (point) frac++;
        if (nd == 0 && c == '0') continue;
        if (nd < MAX_DIGITS) digits[nd++] = c;
        else { extra++; dropped_nonzero |= c != '0'; }
    }
    if (!any) return NOT_DECIMAL;
    long exp = 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        int eneg = 0, edigits = 0;
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, edigits++)
            if (exp < 100000) exp = exp * 10 + (s[i] - '0');
        if (!edigits) return NOT_DECIMAL;
        if (eneg) exp = -exp;
    }
    if (i != len) return NOT_DECIMAL;
    /* value = digits * 10^(exp - frac + extra); shift it to the scale */
    long shift = exp - frac + extra + scale;
    if (shift < 0) {
        long drop = -shift;
        int up = 0;
        if (drop > nd) {               /* every kept digit falls off */
            if (!round && (nd || dropped_nonzero)) return "more fractional digits than the scale";
            up = 0;
            nd = 0;
        } else {
            for (long k = nd - drop; k < nd; k++)
                if (digits[k] != '0' && !round) return "more fractional digits than the scale";
            if (!round && dropped_nonzero) return "more fractional digits than the scale";
            up = round && digits[nd - drop] >= '5';
            nd -= (int)drop;
        }
        if (up) {                      /* round half away from zero */
            int k = nd - 1;
            while (k >= 0 && digits[k] == '9') digits[k--] = '0';
            if (k >= 0) digits[k]++;
            else { memmove(digits + 1, digits, (size_t)nd); digits[0] = '1'; nd++; }
        }
        shift = 0;
    } else if (dropped_nonzero) {
        return "too many digits";
    }
    if (nd == 0) shift = 0;
    if (nd + shift > precision) return "too many digits";
    memset(out, 0, (size_t)width);
    for (int k = 0; k < nd; k++) be_muladd(out, width, (unsigned)(digits[k] - '0'));
    for (long k = 0; k < shift; k++) be_muladd(out, width, 0);
    if (neg && nd) be_negate(out, width);
    return NULL;
}

const char *li_decimal_from_number(double d, int precision, int scale, uint8_t *out, int width)
{
    if (!isfinite(d)) return "not a finite number";
    char buf[64];
    for (int prec = 15; prec <= 17; prec++) {   /* the shortest text that reads back as d */
        snprintf(buf, sizeof buf, "%.*g", prec, d);
        if (strtod(buf, NULL) == d) break;
    }
    for (char *p = buf; *p; p++)   /* a locale's decimal comma */
        if (*p == ',') *p = '.';
    return li_decimal_from_text(buf, strlen(buf), precision, scale, 1, out, width);
}

const char *li_decimal_from_integer(lua_Integer v, int precision, int scale, uint8_t *out, int width)
{
    char buf[32];
    snprintf(buf, sizeof buf, LUA_INTEGER_FMT, (LUAI_UACINT)v);
    return li_decimal_from_text(buf, strlen(buf), precision, scale, 0, out, width);
}
