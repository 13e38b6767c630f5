/*
 * timeconv.c — unit conversion of time arrays (see timeconv.h).
 *
 * The unit pair is settled once per array: a multiply by one constant
 * (coarser to finer) or a floor division by one (finer to coarser), each
 * spelled for the common ratios so the compiler sees the constant. No loop
 * branches per value. A multiply ORs together whether each input lies
 * outside the range whose products fit; a floor division by a constant
 * always fits int64, so only a narrowed quotient is checked, the same way.
 * Only when that flag is set is the array scanned again for the first
 * misfit whose validity bit is set. The loops are compiled twice, for AVX2
 * (chosen at run time, where the compiler vectorises the multiply and its
 * range check) and for any x86-64 or other target.
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

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* floor(a / d) for d > 0 without a branch: a negative a is floored as
 * ~(~a / d), an unsigned division the compiler turns into a multiply. */
static ALWAYS_INLINE int64_t floor_div(int64_t a, uint64_t d)
{
    const uint64_t neg = -(uint64_t)(a < 0);
    return (int64_t)((((uint64_t)a ^ neg) / d) ^ neg);
}

/* Nonzero when v is outside lo..hi: one unsigned compare. */
static ALWAYS_INLINE uint64_t outside(int64_t v, int64_t lo, int64_t hi)
{
    return (uint64_t)v - (uint64_t)lo > (uint64_t)hi - (uint64_t)lo;
}

/* One conversion: dst = src * mul (mul > 0) or floor(src / div) (mul ==
 * 0); lo..hi bound the inputs of a multiply and the quotients of a
 * division. The loops below return whether some value was outside them. */
typedef struct {
    int64_t mul, div, lo, hi;
    bool narrow;
} step;

static ALWAYS_INLINE bool mul_loop(void *dst, bool narrow, const int64_t *src, size_t n, int64_t m,
                                   int64_t lo, int64_t hi)
{
    uint64_t bad = 0;
    if (narrow) {
        int32_t *d = dst;
        for (size_t i = 0; i < n; i++) {
            bad |= outside(src[i], lo, hi);
            d[i] = (int32_t)(uint32_t)((uint64_t)src[i] * (uint64_t)m);
        }
    } else {
        int64_t *d = dst;
        for (size_t i = 0; i < n; i++) {
            bad |= outside(src[i], lo, hi);
            d[i] = (int64_t)((uint64_t)src[i] * (uint64_t)m);
        }
    }
    return bad != 0;
}

static ALWAYS_INLINE bool div_loop(void *dst, bool narrow, const int64_t *src, size_t n, uint64_t dv,
                                   int64_t lo, int64_t hi)
{
    uint64_t bad = 0;
    if (narrow) {
        int32_t *d = dst;
        for (size_t i = 0; i < n; i++) {
            int64_t q = floor_div(src[i], dv);
            bad |= outside(q, lo, hi);
            d[i] = (int32_t)(uint32_t)(uint64_t)q;
        }
    } else {
        int64_t *d = dst;
        for (size_t i = 0; i < n; i++) d[i] = floor_div(src[i], dv);
    }
    return bad != 0;
}

static ALWAYS_INLINE bool convert(void *dst, const int64_t *src, size_t n, const step *s)
{
    const bool nw = s->narrow;
    if (s->mul) {
        switch (s->mul) {
        case 1: return mul_loop(dst, nw, src, n, 1, s->lo, s->hi);
        case 1000: return mul_loop(dst, nw, src, n, 1000, s->lo, s->hi);
        case 1000000: return mul_loop(dst, nw, src, n, 1000000, s->lo, s->hi);
        case 1000000000: return mul_loop(dst, nw, src, n, 1000000000, s->lo, s->hi);
        default: return mul_loop(dst, nw, src, n, s->mul, s->lo, s->hi);
        }
    }
    switch (s->div) {
    case 1000: return div_loop(dst, nw, src, n, 1000, s->lo, s->hi);
    case 1000000: return div_loop(dst, nw, src, n, 1000000, s->lo, s->hi);
    case 1000000000: return div_loop(dst, nw, src, n, 1000000000, s->lo, s->hi);
    case 86400: return div_loop(dst, nw, src, n, 86400, s->lo, s->hi);
    default: return div_loop(dst, nw, src, n, (uint64_t)s->div, s->lo, s->hi);
    }
}

static bool convert_portable(void *dst, const int64_t *src, size_t n, const step *s)
{
    return convert(dst, src, n, s);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_CONVERT_AVX2 1

/* AVX2 has no 64-bit multiply-high, so the division's reciprocal multiply
 * is four 32x32 products per lane. The dividend is never above 2^63 - 1
 * (a negative one is floored as ~(~a / d)), and for 63-bit dividends the
 * reciprocal m = floor(2^(63 + l) / d) + 1 with 2^(l - 1) < d <= 2^l fits
 * 64 bits and floor(a / d) = (a * m) >> (127 + l - 64) exactly (Granlund
 * and Montgomery, "Division by invariant integers using multiplication",
 * theorem 4.2). Returns how many values it took (a multiple of 4); *bad
 * says whether a narrowed quotient was outside lo..hi. */
__attribute__((target("avx2"))) static size_t div_avx2(void *dst, bool narrow, const int64_t *src,
                                                       size_t n, int64_t d, int64_t lo, int64_t hi,
                                                       bool *bad)
{
    int l = 64 - __builtin_clzll((uint64_t)d - 1);
    const uint64_t m = (uint64_t)((((unsigned __int128)1 << (63 + l)) / (uint64_t)d) + 1);
    const __m256i mlo = _mm256_set1_epi64x((int64_t)m), mhi = _mm256_set1_epi64x((int64_t)(m >> 32));
    const __m256i low32 = _mm256_set1_epi64x(0xFFFFFFFF), zero = _mm256_setzero_si256();
    const __m128i shift = _mm_cvtsi32_si128(l - 1);
    const __m256i vlo = _mm256_set1_epi64x(lo), vhi = _mm256_set1_epi64x(hi);
    const __m256i evens = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    __m256i out = zero;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(src + i));
        __m256i neg = _mm256_cmpgt_epi64(zero, a);
        __m256i u = _mm256_xor_si256(a, neg), uh = _mm256_srli_epi64(u, 32);
        __m256i ll = _mm256_mul_epu32(u, mlo), lh = _mm256_mul_epu32(u, mhi);
        __m256i hl = _mm256_mul_epu32(uh, mlo), hh = _mm256_mul_epu32(uh, mhi);
        __m256i t = _mm256_add_epi64(hl, _mm256_srli_epi64(ll, 32));
        __m256i w = _mm256_add_epi64(_mm256_and_si256(t, low32), lh);
        __m256i h = _mm256_add_epi64(hh, _mm256_add_epi64(_mm256_srli_epi64(t, 32), _mm256_srli_epi64(w, 32)));
        __m256i q = _mm256_xor_si256(_mm256_srl_epi64(h, shift), neg);
        if (narrow) {
            out = _mm256_or_si256(out, _mm256_or_si256(_mm256_cmpgt_epi64(vlo, q), _mm256_cmpgt_epi64(q, vhi)));
            _mm_storeu_si128((__m128i *)((int32_t *)dst + i),
                             _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(q, evens)));
        } else {
            _mm256_storeu_si256((__m256i *)((int64_t *)dst + i), q);
        }
    }
    *bad = !_mm256_testz_si256(out, out);
    return i;
}

__attribute__((target("avx2"))) static bool convert_avx2(void *dst, const int64_t *src, size_t n,
                                                         const step *s)
{
    if (s->mul) return convert(dst, src, n, s);
    bool bad;
    size_t done = div_avx2(dst, s->narrow, src, n, s->div, s->lo, s->hi, &bad);
    void *rest = s->narrow ? (void *)((int32_t *)dst + done) : (void *)((int64_t *)dst + done);
    return convert(rest, src + done, n - done, s) || bad;
}
#endif

static bool valid(const uint8_t *validity, size_t i)
{
    return !validity || (validity[i >> 3] >> (i & 7) & 1);
}

/* Whether src's value does not fit: the same test as the loops'. */
static bool misfit(int64_t v, const step *s)
{
    return outside(s->mul ? v : floor_div(v, (uint64_t)s->div), s->lo, s->hi) != 0;
}

size_t inl_timeconv_run(void *dst, bool narrow, const int64_t *src, size_t n, inlay_unit from,
                    inlay_unit to, const uint8_t *validity)
{
    const int64_t f = inl_timeconv_unit_ns(from), t = inl_timeconv_unit_ns(to);
    const int64_t lo = narrow ? INT32_MIN : INT64_MIN, hi = narrow ? INT32_MAX : INT64_MAX;
    step s = { .narrow = narrow, .lo = lo, .hi = hi };
    if (f >= t) {
        s.mul = f / t;
        s.lo = lo / s.mul;   /* truncation toward zero: the last inputs that fit */
        s.hi = hi / s.mul;
    } else {
        s.div = t / f;
    }
    bool any;
#ifdef HAVE_CONVERT_AVX2
    if (n >= 16 && __builtin_cpu_supports("avx2")) any = convert_avx2(dst, src, n, &s);
    else
#endif
        any = convert_portable(dst, src, n, &s);
    if (!any) return n;
    for (size_t i = 0; i < n; i++)
        if (misfit(src[i], &s) && valid(validity, i)) return i;
    return n;
}

size_t inlay_time_convert(void *dst, bool narrow, const int64_t *src, size_t n, inlay_unit from,
                          inlay_unit to)
{
    if ((unsigned)from > INLAY_UNIT_NANOS || (unsigned)to > INLAY_UNIT_NANOS) return SIZE_MAX;
    if (!n) return 0;
    return inl_timeconv_run(dst, narrow, src, n, from, to, NULL);
}
