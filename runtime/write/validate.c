/*
 * validate.c — batch validation (see validate.h).
 */
#include "validate.h"

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
        const bool utf8 = inl_type_is_utf8(t);
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
            if (utf8 && !inl_utf8_valid(v[i].data, v[i].len))
                return fail(err, INLAY_ERR_VALUE, i, "invalid UTF-8 in a text column");
        }
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
