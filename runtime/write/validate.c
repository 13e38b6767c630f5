/*
 * validate.c — batch validation (see validate.h).
 */
#include "validate.h"

#include <string.h>

#include "utf8.h"

/* The reason, with the entry at fault as the error's row. */
#define fail(err, status, entry, ...) \
    ((err)->row = (inl_err_set(err, status, __VA_ARGS__), (int64_t)(entry)), (status))

int inl_validate_levels(const column *c, const int16_t *def, const int16_t *rep, size_t count, inl_err *err)
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

/* The range a column's integers are checked against, where it is narrower
 * than their storage, and how to say a value is outside it. */
static const char *int_range(const inlay_type *t, int64_t *lo, int64_t *hi)
{
    if (!inl_type_int_range(t, lo, hi)) return NULL;
    const int64_t slo = t->physical == INLAY_INT32 ? INT32_MIN : INT64_MIN;
    const int64_t shi = t->physical == INLAY_INT32 ? INT32_MAX : INT64_MAX;
    if (*hi > shi || (*lo == slo && *hi == shi)) return NULL;   /* every stored value is one */
    switch (t->logical) {
    case INLAY_LOGICAL_DECIMAL: return "unscaled decimal out of range %lld..%lld, got %lld";
    case INLAY_LOGICAL_TIME: return "time of day out of range %lld..%lld, got %lld";
    default: return "integer out of range %lld..%lld, got %lld";
    }
}

/* No NULL data with a length, no length past INT32_MAX (nor, for fixed > 0,
 * other than fixed): one pass without a branch; the caller looks for the
 * value at fault only when it fails. */
static bool shapes_ok_portable(const inlay_bytes *v, size_t n, size_t fixed)
{
    size_t bad = 0;
    if (fixed) {
        for (size_t i = 0; i < n; i++)
            bad |= (v[i].len ^ fixed) | (size_t)(v[i].data == NULL);
    } else {
        for (size_t i = 0; i < n; i++)
            bad |= (v[i].len >> 31) | ((size_t)(v[i].data == NULL) & (size_t)(v[i].len != 0));
    }
    return bad == 0;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* Two values per register, as {data, len, data, len}: a zero data word
 * whose len word is not zero, or a len word with a bit at 31 or above. */
__attribute__((target("avx2"))) static bool shapes_ok_avx2(const inlay_bytes *v, size_t n)
{
    const __m256i zero = _mm256_setzero_si256();
    const __m256i data_lanes = _mm256_set_epi64x(0, -1, 0, -1);
    const __m256i len_high = _mm256_set_epi64x((long long)0xFFFFFFFF80000000ull, 0,
                                               (long long)0xFFFFFFFF80000000ull, 0);
    __m256i bad0 = zero, bad1 = zero;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const __m256i x = _mm256_loadu_si256((const __m256i *)(v + i));
        const __m256i y = _mm256_loadu_si256((const __m256i *)(v + i + 2));
        const __m256i zx = _mm256_cmpeq_epi64(x, zero), zy = _mm256_cmpeq_epi64(y, zero);
        /* each len word's "is zero" moved down onto its data word */
        const __m256i nx = _mm256_andnot_si256(_mm256_srli_si256(zx, 8), zx);
        const __m256i ny = _mm256_andnot_si256(_mm256_srli_si256(zy, 8), zy);
        bad0 = _mm256_or_si256(bad0, _mm256_or_si256(_mm256_and_si256(nx, data_lanes),
                                                     _mm256_and_si256(x, len_high)));
        bad1 = _mm256_or_si256(bad1, _mm256_or_si256(_mm256_and_si256(ny, data_lanes),
                                                     _mm256_and_si256(y, len_high)));
    }
    const __m256i bad = _mm256_or_si256(bad0, bad1);
    return _mm256_testz_si256(bad, bad) && shapes_ok_portable(v + i, n - i, 0);
}
#define HAVE_SHAPES_AVX2 1
#endif

static bool bytes_shapes_ok(const inlay_bytes *v, size_t n, size_t fixed)
{
    if (!n) return true;   /* v may be NULL */
#ifdef HAVE_SHAPES_AVX2
    if (!fixed && sizeof(size_t) == 8 && __builtin_cpu_supports("avx2")) return shapes_ok_avx2(v, n);
#endif
    return shapes_ok_portable(v, n, fixed);
}

#define UTF8_CACHE_MIN_BATCH 64
#define UTF8_CACHE_PROBATION 256

/* A value's UTF-8 check. 8..32 bytes of ASCII -- most short text -- are
 * seen in four overlapping words without a call. */
static inline bool utf8_value_ok(const uint8_t *p, size_t len)
{
    if (len - 8 <= 24) {
        const size_t x = len - 8;
        uint64_t w0, w1, w2, w3;
        memcpy(&w0, p, 8);
        memcpy(&w1, p + ((x * 171) >> 9), 8);
        memcpy(&w2, p + ((x * 342) >> 9), 8);
        memcpy(&w3, p + x, 8);
        if (!((w0 | w1 | w2 | w3) & 0x8080808080808080ull)) return true;
    }
    return inl_utf8_valid(p, len);
}

/* The values' checks; `prechecked` byte strings are taken as they are. */
static int check_values(const column *c, const void *values, size_t n, bool prechecked, inl_err *err)
{
    const inlay_type *t = c->type;
    int64_t lo = 0, hi = 0;
    const char *what;
    switch (t->physical) {
    case INLAY_INT32: {
        if (!(what = int_range(t, &lo, &hi))) return 0;
        const int32_t *v = values;
        for (size_t i = 0; i < n; i++)
            if (INLAY_UNLIKELY(v[i] < lo || v[i] > hi))
                return fail(err, INLAY_ERR_VALUE, i, what, (long long)lo, (long long)hi, (long long)v[i]);
        return 0;
    }
    case INLAY_INT64: {
        if (!(what = int_range(t, &lo, &hi))) return 0;
        const int64_t *v = values;
        for (size_t i = 0; i < n; i++)
            if (INLAY_UNLIKELY(v[i] < lo || v[i] > hi))
                return fail(err, INLAY_ERR_VALUE, i, what, (long long)lo, (long long)hi, (long long)v[i]);
        return 0;
    }
    case INLAY_BYTE_ARRAY: case INLAY_FIXED_LEN_BYTE_ARRAY: {
        if (prechecked) return 0;
        const inlay_bytes *v = values;
        const bool fixed = t->physical == INLAY_FIXED_LEN_BYTE_ARRAY;
        if (!bytes_shapes_ok(v, n, fixed ? (size_t)t->type_length : 0)) {
            for (size_t i = 0; i < n; i++) {
                if (!v[i].data && v[i].len)
                    return fail(err, INLAY_ERR_VALUE, i, "NULL data with length %zu", v[i].len);
                if (fixed && v[i].len != (size_t)t->type_length)
                    return fail(err, INLAY_ERR_VALUE, i, "expected %d bytes, got %zu", (int)t->type_length,
                                v[i].len);
                if (v[i].len > INT32_MAX)
                    return fail(err, INLAY_ERR_VALUE, i, "value of %zu bytes is too long (max %d)",
                                v[i].len, INT32_MAX);
            }
        }
        if (!inl_type_is_utf8(t)) return 0;
        size_t i = 0;
        if (n >= UTF8_CACHE_MIN_BATCH) {
            /* Values repeated by reference (interned strings, string pools)
             * are checked once per call: the caller's memory cannot change
             * during it. A batch that does not repeat addresses drops the
             * cache after a probation. */
            struct { const void *data; size_t len; } seen[256];
            for (size_t k = 0; k < 256; k++) seen[k].len = SIZE_MAX;
            size_t hits = 0;
            for (; i < n; i++) {
                if (i == UTF8_CACHE_PROBATION && hits < UTF8_CACHE_PROBATION / 4) break;
                size_t slot = ((uintptr_t)v[i].data * 0x9E3779B97F4A7C15ull) >> 56;
                if (seen[slot].data == v[i].data && seen[slot].len == v[i].len) {
                    hits++;
                    continue;
                }
                seen[slot].data = v[i].data;
                seen[slot].len = v[i].len;
                if (!utf8_value_ok(v[i].data, v[i].len))
                    return fail(err, INLAY_ERR_VALUE, i, "invalid UTF-8 in a text column");
            }
        }
        for (; i < n; i++)
            if (!utf8_value_ok(v[i].data, v[i].len))
                return fail(err, INLAY_ERR_VALUE, i, "invalid UTF-8 in a text column");
        return 0;
    }
    default:
        return 0;
    }
}

int inl_validate_values(const column *c, const void *values, size_t n, inl_err *err)
{
    return check_values(c, values, n, false, err);
}

int inl_validate_values_prechecked(const column *c, const void *values, size_t n, inl_err *err)
{
    return check_values(c, values, n, true, err);
}

/* Values staged per slice: their array and bytes stay in cache from the
 * shape check to the lookup. */
#define STAGE_SLICE 4096

int inl_validate_stage_bytes(column *c, column_env *e, const inlay_bytes *v, size_t n, bool prechecked,
                             inl_err *err, size_t *staged)
{
    const bool utf8 = !prechecked && inl_type_is_utf8(c->type);
    inl_column_stage_begin(c);
    size_t done = 0;
    while (done < n && !inl_column_stage_full(c, e)) {
        const size_t m = n - done < STAGE_SLICE ? n - done : STAGE_SLICE;
        const inlay_bytes *s = v + done;
        const size_t before = c->memo_bytes.count;
        int st = inl_column_stage(c, e, s, m);
        if (st == INLAY_ERR_VALUE) {   /* the table refused a value's shape */
            st = check_values(c, s, m, false, err);   /* the first fault of the slice, UTF-8 included */
            err->row += (int64_t)done;
            inl_column_unstage(c);
            return st ? st : inl_err_set(err, INLAY_ERR_VALUE, "value not accepted");
        }
        if (st) {
            inl_column_unstage(c);
            inl_err_set(err, INLAY_ERR_NOMEM, "out of memory");
            err->row = (int64_t)done;
            return INLAY_ERR_NOMEM;
        }
        for (size_t x = before; utf8 && x < c->memo_bytes.count; x++) {
            size_t len;
            const uint8_t *b = inl_memo_bytes_value(&c->memo_bytes, x, &len);
            if (utf8_value_ok(b, len)) continue;
            /* an entry's first use is the earliest value that is not valid */
            const uint32_t *idx = inl_column_staged(c) + done;
            size_t i = 0;
            while (idx[i] != x) i++;
            inl_column_unstage(c);
            return fail(err, INLAY_ERR_VALUE, done + i, "invalid UTF-8 in a text column");
        }
        done += m;
    }
    *staged = done;
    return 0;
}
