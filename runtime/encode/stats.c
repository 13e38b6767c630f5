/*
 * stats.c — min/max and null counts (see stats.h).
 */
#include "stats.h"

#include <math.h>

void inl_stats_reset(stats *s)
{
    s->has_minmax = false;
    s->null_count = 0;
    s->min_bytes.len = s->max_bytes.len = 0;
}

void inl_stats_free(stats *s, const inlay_allocator *a)
{
    inl_buf_free(&s->min_bytes, a);
    inl_buf_free(&s->max_bytes, a);
}

void inl_stats_update_bool(stats *s, const uint8_t *v, size_t n)
{
    if (!n) return;
    uint8_t any_true = 0, all_true = 1;
    for (size_t i = 0; i < n; i++) { any_true |= v[i]; all_true &= v[i]; }
    if (!s->has_minmax) {
        s->min.i = all_true;
        s->max.i = any_true;
        s->has_minmax = true;
        return;
    }
    if (!all_true) s->min.i = 0;
    if (any_true) s->max.i = 1;
}

/* 64-bit min/max has no single instruction before AVX-512: compare and
 * blend, whose chain the compiler's loop keeps in one register and so
 * waits on. Two pairs of accumulators let the chains overlap; unsigned
 * values are compared as signed with their top bit flipped. Returns how
 * many values it took (a multiple of 8); *lo and *hi hold a value of v
 * on entry. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_MINMAX_I64_AVX2 1

__attribute__((target("avx2"))) static size_t minmax_i64_avx2(const int64_t *v, size_t n, bool is_unsigned,
                                                              int64_t *lo, int64_t *hi)
{
    const int64_t flip = is_unsigned ? INT64_MIN : 0;
    const __m256i f = _mm256_set1_epi64x(flip);
    __m256i l0 = _mm256_set1_epi64x(*lo ^ flip), l1 = l0, h0 = _mm256_set1_epi64x(*hi ^ flip), h1 = h0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i a = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(v + i)), f);
        __m256i b = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(v + i + 4)), f);
        l0 = _mm256_blendv_epi8(l0, a, _mm256_cmpgt_epi64(l0, a));
        l1 = _mm256_blendv_epi8(l1, b, _mm256_cmpgt_epi64(l1, b));
        h0 = _mm256_blendv_epi8(h0, a, _mm256_cmpgt_epi64(a, h0));
        h1 = _mm256_blendv_epi8(h1, b, _mm256_cmpgt_epi64(b, h1));
    }
    l0 = _mm256_blendv_epi8(l0, l1, _mm256_cmpgt_epi64(l0, l1));
    h0 = _mm256_blendv_epi8(h0, h1, _mm256_cmpgt_epi64(h1, h0));
    int64_t ls[4], hs[4];
    _mm256_storeu_si256((__m256i *)ls, l0);
    _mm256_storeu_si256((__m256i *)hs, h0);
    int64_t l = ls[0], h = hs[0];
    for (int k = 1; k < 4; k++) {
        l = ls[k] < l ? ls[k] : l;
        h = hs[k] > h ? hs[k] : h;
    }
    *lo = l ^ flip;
    *hi = h ^ flip;
    return i;
}
#endif

#define INT_UPDATE(NAME, T, UT)                                               \
    INLAY_MULTIVERSION                                                        \
    void inl_stats_update_##NAME(stats *s, const T *v, size_t n)                  \
    {                                                                         \
        if (!n) return;                                                       \
        if (s->order == ORDER_UNSIGNED) {                                     \
            UT lo = (UT)v[0], hi = (UT)v[0];                                  \
            for (size_t i = 1; i < n; i++) {                                  \
                UT x = (UT)v[i];                                              \
                lo = x < lo ? x : lo;                                         \
                hi = x > hi ? x : hi;                                         \
            }                                                                 \
            if (!s->has_minmax || lo < (UT)s->min.u) s->min.u = lo;           \
            if (!s->has_minmax || hi > (UT)s->max.u) s->max.u = hi;           \
        } else {                                                              \
            T lo = v[0], hi = v[0];                                           \
            for (size_t i = 1; i < n; i++) {                                  \
                lo = v[i] < lo ? v[i] : lo;                                   \
                hi = v[i] > hi ? v[i] : hi;                                   \
            }                                                                 \
            if (!s->has_minmax || lo < s->min.i) s->min.i = lo;               \
            if (!s->has_minmax || hi > s->max.i) s->max.i = hi;               \
        }                                                                     \
        s->has_minmax = true;                                                 \
    }

/* the compiler's loop, for what the AVX2 rounds leave and other processors */
void inl_stats_update_i64_loop(stats *s, const int64_t *v, size_t n);

INT_UPDATE(i32, int32_t, uint32_t)
INT_UPDATE(i64_loop, int64_t, uint64_t)

void inl_stats_update_i64(stats *s, const int64_t *v, size_t n)
{
#ifdef HAVE_MINMAX_I64_AVX2
    if (n >= 64 && __builtin_cpu_supports("avx2")) {
        int64_t lo = v[0], hi = v[0];
        size_t done = minmax_i64_avx2(v, n, s->order == ORDER_UNSIGNED, &lo, &hi);
        const int64_t bounds[2] = { lo, hi };
        inl_stats_update_i64_loop(s, bounds, 2);
        if (done < n) inl_stats_update_i64_loop(s, v + done, n - done);
        return;
    }
#endif
    inl_stats_update_i64_loop(s, v, n);
}

static void update_real(stats *s, double lo, double hi)
{
    if (!s->has_minmax || lo < s->min.d) s->min.d = lo;
    if (!s->has_minmax || hi > s->max.d) s->max.d = hi;
    s->has_minmax = true;
}

/* MINPD/MAXPD compute x < lo ? x : lo (an unordered pair keeps the second
 * operand), so with accumulators that start at a number, NaN never
 * replaces a bound. The compiler will not vectorise the scalar form
 * without fast-math, so SSE2 (every x86-64) is spelled out. */
#if defined(__SSE2__)
#include <emmintrin.h>

static size_t minmax_double_sse2(const double *v, size_t n, double *lo, double *hi)
{
    __m128d l0 = _mm_set1_pd(*lo), l1 = l0, h0 = _mm_set1_pd(*hi), h1 = h0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m128d a = _mm_loadu_pd(v + i), b = _mm_loadu_pd(v + i + 2);
        l0 = _mm_min_pd(a, l0);
        l1 = _mm_min_pd(b, l1);
        h0 = _mm_max_pd(a, h0);
        h1 = _mm_max_pd(b, h1);
    }
    double ls[2], hs[2];
    _mm_storeu_pd(ls, _mm_min_pd(l0, l1));
    _mm_storeu_pd(hs, _mm_max_pd(h0, h1));
    *lo = ls[0] < ls[1] ? ls[0] : ls[1];
    *hi = hs[0] > hs[1] ? hs[0] : hs[1];
    return i;
}

static size_t minmax_float_sse2(const float *v, size_t n, float *lo, float *hi)
{
    __m128 l0 = _mm_set1_ps(*lo), l1 = l0, h0 = _mm_set1_ps(*hi), h1 = h0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128 a = _mm_loadu_ps(v + i), b = _mm_loadu_ps(v + i + 4);
        l0 = _mm_min_ps(a, l0);
        l1 = _mm_min_ps(b, l1);
        h0 = _mm_max_ps(a, h0);
        h1 = _mm_max_ps(b, h1);
    }
    float ls[4], hs[4];
    _mm_storeu_ps(ls, _mm_min_ps(l0, l1));
    _mm_storeu_ps(hs, _mm_max_ps(h0, h1));
    for (int k = 1; k < 4; k++) {
        if (ls[k] < ls[0]) ls[0] = ls[k];
        if (hs[k] > hs[0]) hs[0] = hs[k];
    }
    *lo = ls[0];
    *hi = hs[0];
    return i;
}
#define MINMAX_double minmax_double_sse2
#define MINMAX_float minmax_float_sse2
#else
static size_t minmax_none(const void *v, size_t n, void *lo, void *hi) { (void)v; (void)n; (void)lo; (void)hi; return 0; }
#define MINMAX_double(v, n, lo, hi) minmax_none(v, n, lo, hi)
#define MINMAX_float(v, n, lo, hi) minmax_none(v, n, lo, hi)
#endif

#define REAL_UPDATE(NAME, T)                                                  \
    void inl_stats_update_##NAME(stats *s, const T *v, size_t n)                  \
    {                                                                         \
        size_t i = 0;                                                         \
        while (i < n && isnan(v[i])) i++;                                     \
        if (i == n) return;                                                   \
        T lo = v[i], hi = v[i];                                               \
        i += MINMAX_##T(v + i, n - i, &lo, &hi);                              \
        for (; i < n; i++) {                                                  \
            T x = v[i];                                                       \
            lo = x < lo ? x : lo;                                             \
            hi = x > hi ? x : hi;                                             \
        }                                                                     \
        update_real(s, lo, hi);                                               \
    }

REAL_UPDATE(float, float)
REAL_UPDATE(double, double)

float inl_stats_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31;
    uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
    if (exp == 0) {
        if (mant == 0) {
            bits = sign;
        } else {                       /* subnormal: renormalise */
            int e = -1;
            do { e++; mant <<= 1; } while (!(mant & 0x400));
            bits = sign | (uint32_t)(127 - 15 - e) << 23 | (mant & 0x3ff) << 13;
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | mant << 13;
    } else {
        bits = sign | (exp + 127 - 15) << 23 | mant << 13;
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static int cmp_half(const uint8_t *a, const uint8_t *b)
{
    float x = inl_stats_half_to_float((uint16_t)(a[0] | a[1] << 8));
    float y = inl_stats_half_to_float((uint16_t)(b[0] | b[1] << 8));
    if (x < y) return -1;
    if (x > y) return 1;
    /* -0 sorts before +0 so min keeps -0 and max keeps +0 */
    return (signbit(y) != 0) - (signbit(x) != 0);
}

/* Big-endian two's complement integers of any widths, by value: compare as
 * if both were sign-extended to the longer width. */
static int compare_decimal(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    int sa = alen && (a[0] & 0x80), sb = blen && (b[0] & 0x80);
    if (sa != sb) return sa ? -1 : 1;
    const uint8_t pad = sa ? 0xFF : 0x00;
    size_t n = alen > blen ? alen : blen;
    for (size_t i = 0; i < n; i++) {
        uint8_t x = i < n - alen ? pad : a[i - (n - alen)];
        uint8_t y = i < n - blen ? pad : b[i - (n - blen)];
        if (x != y) return x < y ? -1 : 1;
    }
    return 0;
}

int inl_stats_compare_bytes(sort_order o, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    if (o == ORDER_FLOAT16) return cmp_half(a, b);
    if (o == ORDER_DECIMAL_BYTES) return compare_decimal(a, alen, b, blen);
    size_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    if (c) return c;
    return (alen > blen) - (alen < blen);
}

int inl_stats_update_bytes(stats *s, const inlay_allocator *a, const uint8_t *v, size_t len)
{
    if (s->order == ORDER_FLOAT16) {
        float f = inl_stats_half_to_float((uint16_t)(v[0] | v[1] << 8));
        if (isnan(f)) return 0;
    }
    if (!s->has_minmax) {
        s->min_bytes.len = s->max_bytes.len = 0;
        if (inl_buf_append(&s->min_bytes, a, v, len) || inl_buf_append(&s->max_bytes, a, v, len)) return -1;
        s->has_minmax = true;
        return 0;
    }
    if (inl_stats_compare_bytes(s->order, v, len, s->min_bytes.data, s->min_bytes.len) < 0) {
        s->min_bytes.len = 0;
        if (inl_buf_append(&s->min_bytes, a, v, len)) return -1;
    }
    if (inl_stats_compare_bytes(s->order, v, len, s->max_bytes.data, s->max_bytes.len) > 0) {
        s->max_bytes.len = 0;
        if (inl_buf_append(&s->max_bytes, a, v, len)) return -1;
    }
    return 0;
}

bool inl_stats_min_max(const stats *s, int physical, uint8_t *min8, uint8_t *max8, size_t *width)
{
    if (!s->has_minmax) return false;
    switch (physical) {
    case INLAY_BOOLEAN:
        min8[0] = (uint8_t)s->min.i; max8[0] = (uint8_t)s->max.i; *width = 1;
        return true;
    case INLAY_INT32: {
        int32_t lo = (int32_t)s->min.i, hi = (int32_t)s->max.i;
        memcpy(min8, &lo, 4); memcpy(max8, &hi, 4); *width = 4;
        return true;
    }
    case INLAY_INT64:
        memcpy(min8, &s->min.i, 8); memcpy(max8, &s->max.i, 8); *width = 8;
        return true;
    case INLAY_FLOAT: {
        /* a zero bound may stand for both zeros: widen it (-0 min, +0 max) */
        float lo = s->min.d == 0 ? -0.0f : (float)s->min.d;
        float hi = s->max.d == 0 ? 0.0f : (float)s->max.d;
        memcpy(min8, &lo, 4); memcpy(max8, &hi, 4); *width = 4;
        return true;
    }
    case INLAY_DOUBLE: {
        double lo = s->min.d == 0 ? -0.0 : s->min.d;
        double hi = s->max.d == 0 ? 0.0 : s->max.d;
        memcpy(min8, &lo, 8); memcpy(max8, &hi, 8); *width = 8;
        return true;
    }
    default:
        return false;
    }
}

bool inl_stats_bounds_of(const stats *s, int physical, stats_bounds *b)
{
    size_t w;
    b->min_exact = b->max_exact = true;
    if (s->order == ORDER_NONE) {
        b->min = b->max = NULL;
        b->min_len = b->max_len = 0;
        return false;
    }
    if (inl_stats_min_max(s, physical, b->min8, b->max8, &w)) {
        b->min = b->min8;
        b->max = b->max8;
        b->min_len = b->max_len = w;
        return true;
    }
    if (!s->has_minmax) {
        b->min = b->max = NULL;
        b->min_len = b->max_len = 0;
        return false;
    }
    b->min = s->min_bytes.data;
    b->max = s->max_bytes.data;
    b->min_len = s->min_bytes.len;
    b->max_len = s->max_bytes.len;
    if (s->order == ORDER_FLOAT16) {
        /* a zero bound may stand for both zeros: widen it (-0 min, +0 max) */
        static const uint8_t neg_zero[2] = { 0x00, 0x80 }, pos_zero[2] = { 0x00, 0x00 };
        if ((b->min[1] & 0x7f) == 0 && b->min[0] == 0) b->min = neg_zero;
        if ((b->max[1] & 0x7f) == 0 && b->max[0] == 0) b->max = pos_zero;
    }
    return true;
}

int inl_stats_merge(stats *into, const stats *from, bool bytes, const inlay_allocator *a)
{
    into->null_count += from->null_count;
    if (!from->has_minmax) return 0;
    if (!into->has_minmax) {
        into->min = from->min;
        into->max = from->max;
        into->min_bytes.len = into->max_bytes.len = 0;
        if (inl_buf_append(&into->min_bytes, a, from->min_bytes.data, from->min_bytes.len) ||
            inl_buf_append(&into->max_bytes, a, from->max_bytes.data, from->max_bytes.len))
            return -1;
        into->has_minmax = true;
        return 0;
    }
    if (bytes) {
        const sort_order o = into->order;
        if (inl_stats_compare_bytes(o, from->min_bytes.data, from->min_bytes.len,
                                    into->min_bytes.data, into->min_bytes.len) < 0) {
            into->min_bytes.len = 0;
            if (inl_buf_append(&into->min_bytes, a, from->min_bytes.data, from->min_bytes.len)) return -1;
        }
        if (inl_stats_compare_bytes(o, from->max_bytes.data, from->max_bytes.len,
                                    into->max_bytes.data, into->max_bytes.len) > 0) {
            into->max_bytes.len = 0;
            if (inl_buf_append(&into->max_bytes, a, from->max_bytes.data, from->max_bytes.len)) return -1;
        }
        return 0;
    }
    switch (into->order) {
    case ORDER_UNSIGNED:
        if (from->min.u < into->min.u) into->min.u = from->min.u;
        if (from->max.u > into->max.u) into->max.u = from->max.u;
        break;
    case ORDER_FLOAT:
        if (from->min.d < into->min.d) into->min.d = from->min.d;
        if (from->max.d > into->max.d) into->max.d = from->max.d;
        break;
    default:
        if (from->min.i < into->min.i) into->min.i = from->min.i;
        if (from->max.i > into->max.i) into->max.i = from->max.i;
        break;
    }
    return 0;
}

/* Length of the longest prefix of p[0..len) that ends on a UTF-8 character
 * boundary and is at most limit bytes. */
static size_t utf8_cut(const uint8_t *p, size_t len, size_t limit)
{
    size_t n = limit < len ? limit : len;
    while (n > 0 && n < len && (p[n] & 0xC0) == 0x80) n--;
    return n;
}

/* p[0..n) with its last character replaced by the next code point
 * (surrogates skipped), dropping trailing characters that have no
 * successor, into out: a string that sorts after every string p[0..n)
 * begins. False when no character is left. */
static bool utf8_round_up(const uint8_t *p, size_t n, buf *out, const inlay_allocator *a, int *nomem)
{
    while (n > 0) {
        size_t start = n - 1;
        while (start > 0 && (p[start] & 0xC0) == 0x80) start--;
        size_t clen = n - start;
        uint32_t cp;
        if (clen == 1) cp = p[start];
        else if (clen == 2) cp = (uint32_t)(p[start] & 0x1F) << 6 | (p[start + 1] & 0x3F);
        else if (clen == 3) cp = (uint32_t)(p[start] & 0x0F) << 12 | (uint32_t)(p[start + 1] & 0x3F) << 6 | (p[start + 2] & 0x3F);
        else cp = (uint32_t)(p[start] & 0x07) << 18 | (uint32_t)(p[start + 1] & 0x3F) << 12 |
                  (uint32_t)(p[start + 2] & 0x3F) << 6 | (p[start + 3] & 0x3F);
        cp++;
        if (cp == 0xD800) cp = 0xE000;
        if (cp > 0x10FFFF) { n = start; continue; }
        uint8_t enc[4];
        size_t elen;
        if (cp < 0x80) { enc[0] = (uint8_t)cp; elen = 1; }
        else if (cp < 0x800) { enc[0] = (uint8_t)(0xC0 | cp >> 6); enc[1] = (uint8_t)(0x80 | (cp & 0x3F)); elen = 2; }
        else if (cp < 0x10000) {
            enc[0] = (uint8_t)(0xE0 | cp >> 12); enc[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
            enc[2] = (uint8_t)(0x80 | (cp & 0x3F)); elen = 3;
        } else {
            enc[0] = (uint8_t)(0xF0 | cp >> 18); enc[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
            enc[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3F)); enc[3] = (uint8_t)(0x80 | (cp & 0x3F)); elen = 4;
        }
        out->len = 0;
        if (inl_buf_append(out, a, p, start) || inl_buf_append(out, a, enc, elen)) { *nomem = 1; return false; }
        return true;
    }
    return false;
}

/* p[0..n) with trailing 0xFF bytes dropped and the last byte incremented,
 * into out. False when every byte is 0xFF. */
static bool bytes_round_up(const uint8_t *p, size_t n, buf *out, const inlay_allocator *a, int *nomem)
{
    while (n > 0 && p[n - 1] == 0xFF) n--;
    if (n == 0) return false;
    out->len = 0;
    if (inl_buf_append(out, a, p, n)) { *nomem = 1; return false; }
    out->data[n - 1]++;
    return true;
}

int inl_stats_truncate(stats_bounds *b, size_t limit, bool utf8, buf *scratch, const inlay_allocator *a)
{
    /* (a min of no bytes may have no pointer: it still bounds, and the max is still cut) */
    if (!limit) return 0;
    if (b->min_len > limit) {
        size_t n = utf8 ? utf8_cut(b->min, b->min_len, limit) : limit;
        if (n < b->min_len) {
            b->min_len = n;
            b->min_exact = false;
        }
    }
    if (b->max_len > limit) {
        size_t n = utf8 ? utf8_cut(b->max, b->max_len, limit) : limit;
        int nomem = 0;
        bool up = utf8 ? utf8_round_up(b->max, n, scratch, a, &nomem)
                       : bytes_round_up(b->max, n, scratch, a, &nomem);
        if (nomem) return -1;
        if (up) {   /* otherwise no shorter bound exists: the max stays whole and exact */
            b->max = scratch->data;
            b->max_len = scratch->len;
            b->max_exact = false;
        }
    }
    return 0;
}

int inl_stats_compare_plain(sort_order o, int physical, const uint8_t *a, size_t alen,
                            const uint8_t *b, size_t blen)
{
    switch (physical) {
    case INLAY_BOOLEAN:
        return (a[0] > b[0]) - (a[0] < b[0]);
    case INLAY_INT32: {
        int32_t x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        if (o == ORDER_UNSIGNED) return ((uint32_t)x > (uint32_t)y) - ((uint32_t)x < (uint32_t)y);
        return (x > y) - (x < y);
    }
    case INLAY_INT64: {
        int64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (o == ORDER_UNSIGNED) return ((uint64_t)x > (uint64_t)y) - ((uint64_t)x < (uint64_t)y);
        return (x > y) - (x < y);
    }
    case INLAY_FLOAT: {
        float x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return (x > y) - (x < y);
    }
    case INLAY_DOUBLE: {
        double x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        return (x > y) - (x < y);
    }
    default:
        return inl_stats_compare_bytes(o, a, alen, b, blen);
    }
}
