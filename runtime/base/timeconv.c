/*
 * timeconv.c — unit conversion of time arrays (see timeconv.h).
 */
#include "timeconv.h"

int64_t inl_timeconv_unit_ns(inlay_unit u)
{
    switch (u) {
    case INLAY_UNIT_DAYS: return 86400000000000LL;
    case INLAY_UNIT_SECONDS: return 1000000000LL;
    case INLAY_UNIT_MILLIS: return 1000000LL;
    case INLAY_UNIT_MICROS: return 1000LL;
    default: return 1;
    }
}

static inline int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return q - ((a % b != 0) & ((a < 0) != (b < 0)));
}

static bool valid(const uint8_t *validity, size_t i)
{
    return !validity || (validity[i >> 3] >> (i & 7) & 1);
}

size_t inl_timeconv_run(void *dst, bool narrow, const int64_t *src, size_t n, inlay_unit from,
                    inlay_unit to, const uint8_t *validity)
{
    const int64_t f = inl_timeconv_unit_ns(from), t = inl_timeconv_unit_ns(to);
    int64_t *d64 = dst;
    int32_t *d32 = dst;
    const int64_t lo = narrow ? INT32_MIN : INT64_MIN, hi = narrow ? INT32_MAX : INT64_MAX;
    size_t bad = n;
    if (f >= t) {
        const int64_t mul = f / t;
        const int64_t mlo = lo / mul, mhi = hi / mul;
        /* one pass that converts and notes whether anything is out of range */
        int64_t out_of_range = 0;
        if (narrow) {
            for (size_t i = 0; i < n; i++) {
                int64_t v = src[i];
                out_of_range |= (v < mlo) | (v > mhi);
                d32[i] = (int32_t)(uint32_t)((uint64_t)v * (uint64_t)mul);
            }
        } else {
            for (size_t i = 0; i < n; i++) {
                int64_t v = src[i];
                out_of_range |= (v < mlo) | (v > mhi);
                d64[i] = (int64_t)((uint64_t)v * (uint64_t)mul);
            }
        }
        if (!out_of_range) return n;
        for (size_t i = 0; i < n; i++)
            if ((src[i] < mlo || src[i] > mhi) && valid(validity, i)) { bad = i; break; }
        return bad;
    }
    const int64_t div = t / f;
    if (narrow) {
        for (size_t i = 0; i < n; i++) {
            int64_t v = floor_div(src[i], div);
            if ((v < lo || v > hi) && valid(validity, i) && bad == n) bad = i;
            d32[i] = (int32_t)(uint32_t)(uint64_t)v;
        }
        return bad;
    }
    /* A constant divisor becomes a multiply: one loop per common ratio. */
#define DIV_LOOP(D) for (size_t i = 0; i < n; i++) d64[i] = floor_div(src[i], D)
    switch (div) {
    case 1000: DIV_LOOP(1000); break;
    case 1000000: DIV_LOOP(1000000); break;
    case 1000000000: DIV_LOOP(1000000000); break;
    default: DIV_LOOP(div); break;
    }
#undef DIV_LOOP
    return bad;
}

size_t inlay_time_convert(void *dst, bool narrow, const int64_t *src, size_t n, inlay_unit from,
                          inlay_unit to)
{
    if ((unsigned)from > INLAY_UNIT_NANOS || (unsigned)to > INLAY_UNIT_NANOS) return SIZE_MAX;
    if (!n) return 0;
    return inl_timeconv_run(dst, narrow, src, n, from, to, NULL);
}
