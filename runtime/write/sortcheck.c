/*
 * sortcheck.c — the declared sort order, checked row by row (see
 * sortcheck.h).
 *
 * Staging turns a batch's values into codes with one tight loop per type,
 * each value against the one before it (the first against the column's
 * last entry), then, when there are nulls, spreads them over the entries
 * and puts the nulls' placement where a null meets a value. Verifying
 * folds the keys' codes into one per row, last key first, so that each row
 * ends up with the code of its first non-tied key, and looks for a -1.
 */
#include "sortcheck.h"

#include "stats.h"

/* Bytes per value in the arrays stage takes (0: a type keys do not have). */
static size_t value_size(int physical)
{
    switch (physical) {
    case INLAY_BOOLEAN: return 1;
    case INLAY_INT32: case INLAY_FLOAT: return 4;
    case INLAY_INT64: case INLAY_DOUBLE: return 8;
    case INLAY_BYTE_ARRAY: case INLAY_FIXED_LEN_BYTE_ARRAY: return sizeof(inlay_bytes);
    default: return 0;
    }
}

static bool is_bytes(int physical)
{
    return physical == INLAY_BYTE_ARRAY || physical == INLAY_FIXED_LEN_BYTE_ARRAY;
}

/* ---- comparing two values ----------------------------------------------------------- */

/* NaN sorts after every number and ties with NaN; -0 ties with +0. When
 * either is NaN both compares are false, so the NaN terms alone decide. */
#define REAL_CMP(x, y) ((x > y) - (x < y) + (x != x) - (y != y))

/* The same order as integers, for loops that vectorise (floating-point
 * compares do not, as they may trap on NaN): sign and magnitude made two's
 * complement, so -0 and +0 are both 0, and every NaN the largest. (With
 * the signed value made before the NaN test, GCC's AVX2 loop runs about
 * twice as fast as with one nested conditional.) */
static inline int32_t float_key(const float *p)
{
    int32_t b;
    memcpy(&b, p, 4);
    const int32_t mag = b & INT32_MAX, k = b < 0 ? -mag : mag;
    return mag > 0x7f800000 ? INT32_MAX : k;
}

static inline int64_t double_key(const double *p)
{
    int64_t b;
    memcpy(&b, p, 8);
    const int64_t mag = b & INT64_MAX, k = b < 0 ? -mag : mag;
    return mag > 0x7ff0000000000000 ? INT64_MAX : k;
}

static int cmp_bytes(sort_order o, const inlay_bytes *a, const inlay_bytes *b)
{
    if (o == ORDER_FLOAT16 && a->len == 2 && b->len == 2) {
        const uint8_t *p = a->data, *q = b->data;
        float x = inl_stats_half_to_float((uint16_t)(p[0] | p[1] << 8));
        float y = inl_stats_half_to_float((uint16_t)(q[0] | q[1] << 8));
        return REAL_CMP(x, y);
    }
    if (o == ORDER_FLOAT16) o = ORDER_BYTES;
    return inl_stats_compare_bytes(o, a->data, a->len, b->data, b->len);
}

/* a against b, both values of k's type (as in the append arrays, perhaps
 * unaligned): <0, 0, >0 before any descending flip. */
static int cmp_value(const sort_key *k, const void *a, const void *b)
{
    switch (k->physical) {
    case INLAY_BOOLEAN: {
        uint8_t x = *(const uint8_t *)a, y = *(const uint8_t *)b;
        return (x > y) - (x < y);
    }
    case INLAY_INT32: {
        int32_t x, y;
        memcpy(&x, a, 4); memcpy(&y, b, 4);
        if (k->order == ORDER_UNSIGNED) return ((uint32_t)x > (uint32_t)y) - ((uint32_t)x < (uint32_t)y);
        return (x > y) - (x < y);
    }
    case INLAY_INT64: {
        int64_t x, y;
        memcpy(&x, a, 8); memcpy(&y, b, 8);
        if (k->order == ORDER_UNSIGNED) return ((uint64_t)x > (uint64_t)y) - ((uint64_t)x < (uint64_t)y);
        return (x > y) - (x < y);
    }
    case INLAY_FLOAT: {
        float x, y;
        memcpy(&x, a, 4); memcpy(&y, b, 4);
        int32_t kx = float_key(&x), ky = float_key(&y);
        return (kx > ky) - (kx < ky);
    }
    case INLAY_DOUBLE: {
        double x, y;
        memcpy(&x, a, 8); memcpy(&y, b, 8);
        int64_t kx = double_key(&x), ky = double_key(&y);
        return (kx > ky) - (kx < ky);
    }
    case INLAY_BYTE_ARRAY: case INLAY_FIXED_LEN_BYTE_ARRAY: {
        inlay_bytes x, y;
        memcpy(&x, a, sizeof x); memcpy(&y, b, sizeof y);
        return cmp_bytes(k->order, &x, &y);
    }
    default:
        return 0;
    }
}

/* ---- codes of consecutive values ---------------------------------------------------------- */

/* out[i] = the code of v[i + 1] after v[i], for i < n. flip is -1 for a
 * descending key, else 0: (c ^ flip) - flip negates c when it is -1.
 * Unsigned integers compare as signed ones once their top bit is flipped
 * (bias). */
#define INT_CODES(NAME, T)                                                                    \
    INLAY_MULTIVERSION                                                                        \
    static void NAME(int8_t *restrict out, const T *restrict v, size_t n, T bias, int8_t flip) \
    {                                                                                         \
        for (size_t i = 0; i < n; i++) {                                                      \
            T x = (T)(v[i + 1] ^ bias), y = (T)(v[i] ^ bias);                                 \
            int8_t c = (int8_t)((x > y) - (x < y));                                            \
            out[i] = (int8_t)((c ^ flip) - flip);                                             \
        }                                                                                     \
    }

INT_CODES(codes_u8, uint8_t)
INT_CODES(codes_i32, int32_t)
INT_CODES(codes_i64, int64_t)

#define REAL_CODES(NAME, T, I, KEY)                                                           \
    INLAY_MULTIVERSION                                                                        \
    static void NAME(int8_t *restrict out, const T *restrict v, size_t n, int8_t flip)        \
    {                                                                                         \
        for (size_t i = 0; i < n; i++) {                                                      \
            I x = KEY(v + i + 1), y = KEY(v + i);                                             \
            int8_t c = (int8_t)((x > y) - (x < y));                                            \
            out[i] = (int8_t)((c ^ flip) - flip);                                             \
        }                                                                                     \
    }

REAL_CODES(codes_float, float, int32_t, float_key)
REAL_CODES(codes_double, double, int64_t, double_key)

static void codes_bytes(int8_t *out, const inlay_bytes *v, size_t n, sort_order o, int8_t flip)
{
    if (o == ORDER_BYTES) {
        for (size_t i = 0; i < n; i++) {
            const inlay_bytes *x = &v[i + 1], *y = &v[i];
            size_t m = x->len < y->len ? x->len : y->len;
            int c = m ? memcmp(x->data, y->data, m) : 0;
            c = c ? (c > 0) - (c < 0) : (x->len > y->len) - (x->len < y->len);
            out[i] = (int8_t)((c ^ flip) - flip);
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        int c = cmp_bytes(o, &v[i + 1], &v[i]);
        c = (c > 0) - (c < 0);
        out[i] = (int8_t)((c ^ flip) - flip);
    }
}

/* The codes of v[1..n], each after the value before it. */
static void run_codes(const sort_key *k, int8_t *out, const void *v, size_t n, int8_t flip)
{
    if (!n) return;
    const bool u = k->order == ORDER_UNSIGNED;
    switch (k->physical) {
    case INLAY_BOOLEAN: codes_u8(out, v, n, 0, flip); break;
    case INLAY_INT32: codes_i32(out, v, n, u ? INT32_MIN : 0, flip); break;
    case INLAY_INT64: codes_i64(out, v, n, u ? INT64_MIN : 0, flip); break;
    case INLAY_FLOAT: codes_float(out, v, n, flip); break;
    case INLAY_DOUBLE: codes_double(out, v, n, flip); break;
    case INLAY_BYTE_ARRAY: case INLAY_FIXED_LEN_BYTE_ARRAY: codes_bytes(out, v, n, k->order, flip); break;
    default: memset(out, 0, n); break;
    }
}

/* Whether any of the levels is a null's: 32 at a time, in a loop that
 * vectorises. */
static bool any_null(const int16_t *def, size_t count, int16_t max_def)
{
    size_t i = 0;
    for (; count - i >= 32; i += 32) {
        int nulls = 0;
        for (size_t t = 0; t < 32; t++) nulls |= def[i + t] < max_def;
        if (nulls) return true;
    }
    for (; i < count; i++)
        if (def[i] < max_def) return true;
    return false;
}

/* The codes of n values, each after the one before, into out; the first
 * after `prev` when that is a value (else 0: the caller decides it). */
static void value_codes(const sort_key *k, int8_t *out, const void *values, size_t n, const sort_last *prev)
{
    const int8_t flip = k->descending ? -1 : 0;
    out[0] = 0;
    if (prev->state == SORT_LAST_VALUE) {
        inlay_bytes prev_bytes = { prev->bytes.data, prev->bytes.len };
        int c = cmp_value(k, values, is_bytes(k->physical) ? (const void *)&prev_bytes : (const void *)prev->raw);
        c = (c > 0) - (c < 0);
        out[0] = (int8_t)((c ^ flip) - flip);
    }
    run_codes(k, out + 1, values, n - 1, flip);
}

/* The codes of a batch, after the entry `prev`, into out (count of them).
 * Returns the number of non-null entries.
 *
 * With nulls, the values' codes go first into out[0..nvalues), and are
 * spread to their entries from the back: the value of entry i is at most
 * value i, so out[i] is written only once what it held has been read.
 * Where the entry before is a null, a value's code is the nulls' placement
 * instead. */
static size_t batch_codes(const sort_key *k, int8_t *out, const void *values, const int16_t *def, size_t count,
                          const sort_last *prev)
{
    const int16_t max_def = k->max_def;
    if (!def || !any_null(def, count, max_def)) {
        value_codes(k, out, values, count, prev);
        if (prev->state == SORT_LAST_NULL) out[0] = k->nulls_first ? 1 : -1;
        return count;
    }
    size_t nvalues = 0;
    for (size_t i = 0; i < count; i++) nvalues += def[i] >= max_def;
    if (nvalues) value_codes(k, out, values, nvalues, prev);
    const int8_t null_after_value = k->nulls_first ? -1 : 1, value_after_null = (int8_t)-null_after_value;
    size_t j = nvalues;
    for (size_t i = count - 1; i > 0; i--) {
        const bool prev_null = def[i - 1] < max_def;
        if (def[i] < max_def) {
            out[i] = prev_null ? 0 : null_after_value;
        } else {
            j--;
            out[i] = prev_null ? value_after_null : out[j];
        }
    }
    /* the first entry, after the column's last (out[0] is value 0's code) */
    if (prev->state == SORT_LAST_NONE) out[0] = 0;
    else if (def[0] < max_def) out[0] = prev->state == SORT_LAST_NULL ? 0 : null_after_value;
    else if (prev->state == SORT_LAST_NULL) out[0] = value_after_null;
    return nvalues;
}

/* ---- the checker ---------------------------------------------------------------------- */

int inl_sortcheck_init(sort_check *sc, const inlay_allocator *a, const sort_key *keys, int nkeys)
{
    memset(sc, 0, sizeof *sc);
    sc->alloc = inl_mem_or_default(a);
    if (nkeys <= 0) return 0;
    sort_column *cols = inl_mem_alloc(&sc->alloc, (size_t)nkeys * sizeof *cols);
    if (!cols) return INLAY_ERR_NOMEM;
    memset(cols, 0, (size_t)nkeys * sizeof *cols);
    for (int i = 0; i < nkeys; i++) cols[i].key = keys[i];
    sc->cols = cols;
    sc->nkeys = nkeys;
    return 0;
}

void inl_sortcheck_free(sort_check *sc)
{
    for (int i = 0; i < sc->nkeys; i++) {
        sort_column *col = &sc->cols[i];
        inl_buf_free(&col->codes, &sc->alloc);
        inl_buf_free(&col->last[0].bytes, &sc->alloc);
        inl_buf_free(&col->last[1].bytes, &sc->alloc);
    }
    if (sc->cols) inl_mem_free(&sc->alloc, sc->cols, (size_t)sc->nkeys * sizeof *sc->cols);
    memset(sc, 0, sizeof *sc);
}

int inl_sortcheck_key_of(const sort_check *sc, int leaf)
{
    for (int i = 0; i < sc->nkeys; i++)
        if (sc->cols[i].key.leaf == leaf) return i;
    return -1;
}

/* Move the live codes to the front of the buffer. */
static void compact(sort_column *col)
{
    size_t live = col->codes.len - col->head;
    if (live) memmove(col->codes.data, col->codes.data + col->head, live);
    col->codes.len = live;
    col->head = 0;
}

/* Keep a copy of the last value, v[n - 1], in last. Fails (-1, last
 * unchanged) only for a byte string that does not fit. */
static int keep_last(const sort_check *sc, const sort_key *k, sort_last *last, const void *values, size_t n)
{
    const size_t size = value_size(k->physical);
    const uint8_t *v = (const uint8_t *)values + (n - 1) * size;
    if (is_bytes(k->physical)) {
        inlay_bytes b;
        memcpy(&b, v, sizeof b);
        if (b.len > last->bytes.cap && inl_buf_grow(&last->bytes, &sc->alloc, b.len)) return -1;
        if (b.len) memcpy(last->bytes.data, b.data, b.len);
        last->bytes.len = b.len;
    } else {
        memcpy(last->raw, v, size);
    }
    last->state = SORT_LAST_VALUE;
    return 0;
}

int inl_sortcheck_stage(sort_check *sc, int key, const void *values, const int16_t *def, size_t count)
{
    sort_column *col = &sc->cols[key];
    const sort_key *k = &col->key;
    if (!count) return 0;
    /* reuse the judged rows' room before asking for more */
    if (col->head && col->codes.cap - col->codes.len < count) compact(col);
    if (inl_buf_reserve(&col->codes, &sc->alloc, count)) return INLAY_ERR_NOMEM;
    const sort_last *prev = &col->last[col->staged ? !col->cur : col->cur];
    sort_last *next = &col->last[!col->cur];
    /* the codes go past len, where nothing counts until the end */
    size_t nvalues = batch_codes(k, (int8_t *)col->codes.data + col->codes.len, values, def, count, prev);
    if (def && def[count - 1] < k->max_def) {
        next->state = SORT_LAST_NULL;
    } else if (keep_last(sc, k, next, values, nvalues)) {
        return INLAY_ERR_NOMEM;
    }
    col->codes.len += count;
    col->staged += count;
    sc->cached = false;
    return 0;
}

/* Fold the keys' codes of rows [from, from + m) into acc: each row's code
 * of its first non-tied key. */
static void fold(const sort_check *sc, int8_t *acc, size_t from, size_t m)
{
    const sort_column *least = &sc->cols[sc->nkeys - 1];
    memcpy(acc, least->codes.data + least->head + from, m);
    for (int k = sc->nkeys - 2; k >= 0; k--) {
        const int8_t *c = (const int8_t *)sc->cols[k].codes.data + sc->cols[k].head + from;
        for (size_t t = 0; t < m; t++) acc[t] = c[t] ? c[t] : acc[t];
    }
}

/* Judge the rows all keys cover, into the cache. */
static void judge(sort_check *sc)
{
    size_t n = 0;
    for (int k = 0; k < sc->nkeys; k++) {
        size_t live = sc->cols[k].codes.len - sc->cols[k].head;
        n = k == 0 || live < n ? live : n;
    }
    sc->cached = true;
    sc->cached_ok = true;
    sc->cached_judged = n;
    sc->cached_key = -1;
    sc->cached_first = n;
    if (!sc->nkeys) return;
    size_t bad = n;
    if (!n) {
        /* no row has every key yet */
    } else if (sc->nkeys == 1) {
        const uint8_t *c = sc->cols[0].codes.data + sc->cols[0].head;
        const uint8_t *p = memchr(c, 0xFF, n);
        if (p) bad = (size_t)(p - c);
    } else {
        int8_t acc[512];
        for (size_t from = 0; from < n && bad == n; from += sizeof acc) {
            size_t m = n - from < sizeof acc ? n - from : sizeof acc;
            fold(sc, acc, from, m);
            const int8_t *p = memchr(acc, 0xFF, m);
            if (p) bad = from + (size_t)(p - acc);
        }
    }
    if (bad == n) {
        /* Rows the first key has but a later key lacks: where the first key
         * goes down, the row is out of order whatever the others hold, and
         * waiting for them would let the bad value in with its own append. */
        const sort_column *first = &sc->cols[0];
        const size_t have = first->codes.len - first->head;
        size_t from = sc->first_ok > n ? sc->first_ok : n;
        sc->cached_first = have;
        if (from >= have) return;
        const uint8_t *c = first->codes.data + first->head;
        const uint8_t *p = memchr(c + from, 0xFF, have - from);
        if (!p) return;
        sc->cached_ok = false;
        sc->cached_judged = (size_t)(p - c);
        sc->cached_key = 0;
        return;
    }
    sc->cached_ok = false;
    sc->cached_judged = bad;
    for (int k = 0; k < sc->nkeys; k++) {
        if (sc->cols[k].codes.data[sc->cols[k].head + bad]) {
            sc->cached_key = k;
            break;
        }
    }
}

bool inl_sortcheck_verify(sort_check *sc, uint64_t *bad_row, int *bad_key)
{
    if (!sc->cached) judge(sc);
    if (!sc->cached_ok) {
        *bad_row = sc->base + sc->cached_judged;
        *bad_key = sc->cached_key;
    }
    return sc->cached_ok;
}

void inl_sortcheck_commit(sort_check *sc)
{
    if (!sc->cached) judge(sc);
    const size_t drop = sc->cached_judged;
    for (int k = 0; k < sc->nkeys; k++) {
        sort_column *col = &sc->cols[k];
        if (col->staged) col->cur = !col->cur;
        col->staged = 0;
        col->head += drop;
        /* amortised: what moves is never more than what was dropped */
        if (col->head >= col->codes.len - col->head) compact(col);
    }
    sc->base += drop;
    sc->first_ok = sc->cached_first > drop ? sc->cached_first - drop : 0;
    sc->cached = false;
}

void inl_sortcheck_rollback(sort_check *sc)
{
    for (int k = 0; k < sc->nkeys; k++) {
        sort_column *col = &sc->cols[k];
        col->codes.len -= col->staged;
        col->staged = 0;
    }
    sc->cached = false;
}
