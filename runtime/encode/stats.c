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

INT_UPDATE(i32, int32_t, uint32_t)
INT_UPDATE(i64, int64_t, uint64_t)

static void update_real(stats *s, double lo, double hi)
{
    if (!s->has_minmax || lo < s->min.d) s->min.d = lo;
    if (!s->has_minmax || hi > s->max.d) s->max.d = hi;
    s->has_minmax = true;
}

#define REAL_UPDATE(NAME, T)                                                  \
    void inl_stats_update_##NAME(stats *s, const T *v, size_t n)                  \
    {                                                                         \
        size_t i = 0;                                                         \
        while (i < n && isnan(v[i])) i++;                                     \
        if (i == n) return;                                                   \
        T lo = v[i], hi = v[i];                                               \
        for (; i < n; i++) {                                                  \
            T x = v[i];                                                       \
            if (x < lo) lo = x;                                               \
            if (x > hi) hi = x;                                               \
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
