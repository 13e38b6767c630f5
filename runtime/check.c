/*
 * check.c — batch validation (see check.h).
 */
#include "check.h"

#include <stdarg.h>
#include <stdio.h>

__attribute__((format(printf, 4, 5)))
static int fail(check_error *err, int status, size_t entry, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err->status = status;
    err->entry = entry;
    vsnprintf(err->what, sizeof err->what, fmt, ap);
    va_end(ap);
    return status;
}

int check_levels(const column *c, const int16_t *def, const int16_t *rep, size_t count,
                 check_error *err)
{
    const int16_t max_def = c->leaf->max_def, max_rep = c->leaf->max_rep;
    if (def) {
        for (size_t i = 0; i < count; i++) {
            if (INLAY_UNLIKELY(def[i] < 0 || def[i] > max_def))
                return fail(err, INLAY_ERR_LEVEL, i, "definition level %d out of range 0..%d",
                            def[i], max_def);
        }
    }
    if (rep) {
        if (count && rep[0] != 0)
            return fail(err, INLAY_ERR_LEVEL, 0,
                        "repetition level %d: a batch must start a row (level 0)", rep[0]);
        for (size_t i = 0; i < count; i++) {
            if (INLAY_UNLIKELY(rep[i] < 0 || rep[i] > max_rep))
                return fail(err, INLAY_ERR_LEVEL, i, "repetition level %d out of range 0..%d",
                            rep[i], max_rep);
        }
    }
    return 0;
}

/* True when no byte of p[0..n) has its high bit set. */
static bool all_ascii(const uint8_t *p, size_t n)
{
    uint64_t acc = 0, w;
    if (n >= 8) {
        size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            memcpy(&w, p + i, 8);
            acc |= w;
        }
        memcpy(&w, p + n - 8, 8);   /* the tail, overlapping */
        acc |= w;
    } else {
        for (size_t i = 0; i < n; i++) acc |= p[i];
    }
    return !(acc & 0x8080808080808080ull);
}

bool check_utf8(const uint8_t *p, size_t n)
{
    if (INLAY_LIKELY(all_ascii(p, n))) return true;
    size_t i = 0;
    while (i < n) {
        /* ASCII fast path, 8 bytes at a time */
        while (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            if (w & 0x8080808080808080ull) break;
            i += 8;
        }
        if (i >= n) break;
        uint8_t b = p[i];
        if (b < 0x80) { i++; continue; }
        size_t len;
        uint32_t cp;
        if ((b & 0xE0) == 0xC0) { len = 2; cp = b & 0x1F; }
        else if ((b & 0xF0) == 0xE0) { len = 3; cp = b & 0x0F; }
        else if ((b & 0xF8) == 0xF0) { len = 4; cp = b & 0x07; }
        else return false;
        if (i + len > n) return false;
        for (size_t k = 1; k < len; k++) {
            if ((p[i + k] & 0xC0) != 0x80) return false;
            cp = cp << 6 | (p[i + k] & 0x3F);
        }
        static const uint32_t min_cp[5] = { 0, 0, 0x80, 0x800, 0x10000 };
        if (cp < min_cp[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += len;
    }
    return true;
}

static const int64_t pow10_table[19] = {
    1LL, 10LL, 100LL, 1000LL, 10000LL, 100000LL, 1000000LL, 10000000LL, 100000000LL,
    1000000000LL, 10000000000LL, 100000000000LL, 1000000000000LL, 10000000000000LL,
    100000000000000LL, 1000000000000000LL, 10000000000000000LL, 100000000000000000LL,
    1000000000000000000LL,
};

static void int_range(const inlay_type *t, int64_t *lo, int64_t *hi, const char **what)
{
    *what = NULL;
    switch (t->logical) {
    case INLAY_LOGICAL_INT:
        if (t->bit_width == 8) { *lo = t->is_signed ? INT8_MIN : 0; *hi = t->is_signed ? INT8_MAX : UINT8_MAX; }
        else if (t->bit_width == 16) { *lo = t->is_signed ? INT16_MIN : 0; *hi = t->is_signed ? INT16_MAX : UINT16_MAX; }
        else return;
        *what = "integer out of range %lld..%lld, got %lld";
        return;
    case INLAY_LOGICAL_DECIMAL:
        *hi = pow10_table[t->precision] - 1;
        *lo = -*hi;
        *what = "unscaled decimal out of range %lld..%lld, got %lld";
        return;
    case INLAY_LOGICAL_TIME: {
        int64_t per_day = t->unit == INLAY_MILLIS ? 86400000LL
                        : t->unit == INLAY_MICROS ? 86400000000LL : 86400000000000LL;
        *lo = 0;
        *hi = per_day - 1;
        *what = "time of day out of range %lld..%lld, got %lld";
        return;
    }
    default:
        return;
    }
}

int check_values(const column *c, const void *values, size_t n, check_error *err)
{
    const inlay_type *t = c->type;
    int64_t lo = 0, hi = 0;
    const char *what;
    switch (t->physical) {
    case INLAY_INT32: {
        int_range(t, &lo, &hi, &what);
        if (!what) return 0;
        const int32_t *v = values;
        for (size_t i = 0; i < n; i++)
            if (INLAY_UNLIKELY(v[i] < lo || v[i] > hi))
                return fail(err, INLAY_ERR_VALUE, i, what, (long long)lo, (long long)hi, (long long)v[i]);
        return 0;
    }
    case INLAY_INT64: {
        int_range(t, &lo, &hi, &what);
        if (!what) return 0;
        const int64_t *v = values;
        for (size_t i = 0; i < n; i++)
            if (INLAY_UNLIKELY(v[i] < lo || v[i] > hi))
                return fail(err, INLAY_ERR_VALUE, i, what, (long long)lo, (long long)hi, (long long)v[i]);
        return 0;
    }
    case INLAY_BYTE_ARRAY: case INLAY_FIXED_LEN_BYTE_ARRAY: {
        const inlay_bytes *v = values;
        const bool fixed = t->physical == INLAY_FIXED_LEN_BYTE_ARRAY;
        const bool utf8 = t->logical == INLAY_LOGICAL_STRING || t->logical == INLAY_LOGICAL_JSON ||
                          t->logical == INLAY_LOGICAL_ENUM;
        /* Values repeated by reference (interned strings, string pools) are
         * checked once per call: the caller's memory cannot change during it. */
        struct { const void *data; size_t len; } seen[256];
        const bool cache = utf8 && n >= 64;
        if (cache) for (size_t k = 0; k < 256; k++) seen[k].len = SIZE_MAX;
        for (size_t i = 0; i < n; i++) {
            if (cache) {
                size_t slot = ((uintptr_t)v[i].data * 0x9E3779B97F4A7C15ull) >> 56;
                if (seen[slot].data == v[i].data && seen[slot].len == v[i].len) continue;
                seen[slot].data = v[i].data;
                seen[slot].len = v[i].len;
            }
            if (INLAY_UNLIKELY(!v[i].data && v[i].len))
                return fail(err, INLAY_ERR_VALUE, i, "NULL data with length %zu", v[i].len);
            if (fixed && INLAY_UNLIKELY(v[i].len != (size_t)t->type_length))
                return fail(err, INLAY_ERR_VALUE, i, "expected %d bytes, got %zu", (int)t->type_length,
                            v[i].len);
            if (INLAY_UNLIKELY(v[i].len > INT32_MAX))
                return fail(err, INLAY_ERR_VALUE, i, "value of %zu bytes is too long (max %d)",
                            v[i].len, INT32_MAX);
            if (utf8 && !check_utf8(v[i].data, v[i].len))
                return fail(err, INLAY_ERR_VALUE, i, "invalid UTF-8 in a text column");
        }
        return 0;
    }
    default:
        return 0;
    }
}

bool inlay_utf8_valid(const void *data, size_t len)
{
    return len == 0 || (data && check_utf8(data, len));
}
