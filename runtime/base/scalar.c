/*
 * scalar.c — single-value conversions that the Lua binding and the text
 * sources share: IEEE half floats from doubles (round to nearest even,
 * signs and NaN kept) and UUIDs from their 36-character text.
 */
#include <string.h>

#include "inlay.h"

uint16_t inlay_float16_bits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    uint16_t sign = (uint16_t)((b >> 48) & 0x8000);
    int exp = (int)((b >> 52) & 0x7ff);
    uint64_t mant = b & 0xfffffffffffffull;
    if (exp == 0x7ff)                           /* inf, NaN (quiet) */
        return sign | (mant ? 0x7e00 : 0x7c00);
    int e = exp - 1023;                         /* doubles' subnormals fall below e = -1022 */
    if (e > 15)
        return sign | 0x7c00;
    if (e >= -14) {                             /* a normal half: keep 10 of 52 bits */
        uint32_t h = (uint32_t)(e + 15) << 10 | (uint32_t)(mant >> 42);
        uint64_t rest = mant & ((1ull << 42) - 1), half = 1ull << 41;
        if (rest > half || (rest == half && (h & 1)))
            h++;                                /* may carry into the exponent, up to inf */
        return sign | (uint16_t)h;
    }
    /* A subnormal half counts units of 2^-24: |x| * 2^24 = sig * 2^(e - 28). */
    if (exp == 0)
        return sign;
    uint64_t sig = mant | 1ull << 52;
    int shift = 28 - e;                         /* >= 43 here */
    if (shift >= 54)
        return sign;                            /* below half a unit */
    uint64_t q = sig >> shift, rest = sig & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    if (rest > half || (rest == half && (q & 1)))
        q++;
    return sign | (uint16_t)q;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool inlay_uuid_parse(const char *s, size_t len, uint8_t out[16])
{
    if (len != 36) return false;
    int n = 0;
    for (size_t i = 0; i < 36;) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-') return false;
            i++;
            continue;
        }
        int hi = hexval((unsigned char)s[i]), lo = hexval((unsigned char)s[i + 1]);
        if (hi < 0 || lo < 0) return false;
        out[n++] = (uint8_t)(hi << 4 | lo);
        i += 2;
    }
    return true;
}
