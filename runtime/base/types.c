/*
 * types.c — type constructors and the traits table (see types.h).
 *
 * Two tables: one row per physical type (its widths, whether values are
 * bytes, its order and name), one per logical annotation (its name, the
 * physical types it may annotate, whether values are UTF-8). A logical
 * row's order, when it has one, wins over the physical row's.
 */
#include <stdio.h>
#include <string.h>

#include "types.h"

/* ---- constructors ------------------------------------------------------ */

inlay_type inlay_type_physical(inlay_physical p)
{
    inlay_type t;
    memset(&t, 0, sizeof t);
    t.physical = p;
    return t;
}

inlay_type inlay_type_boolean(void) { return inlay_type_physical(INLAY_BOOLEAN); }
inlay_type inlay_type_float(void) { return inlay_type_physical(INLAY_FLOAT); }
inlay_type inlay_type_double(void) { return inlay_type_physical(INLAY_DOUBLE); }
inlay_type inlay_type_binary(void) { return inlay_type_physical(INLAY_BYTE_ARRAY); }

static inlay_type logical(inlay_physical p, inlay_logical l)
{
    inlay_type t = inlay_type_physical(p);
    t.logical = l;
    return t;
}

inlay_type inlay_type_int(int bit_width, bool is_signed)
{
    inlay_type t = logical(bit_width == 64 ? INLAY_INT64 : INLAY_INT32, INLAY_LOGICAL_INT);
    t.bit_width = bit_width;
    t.is_signed = is_signed;
    return t;
}

inlay_type inlay_type_string(void) { return logical(INLAY_BYTE_ARRAY, INLAY_LOGICAL_STRING); }
inlay_type inlay_type_enum(void) { return logical(INLAY_BYTE_ARRAY, INLAY_LOGICAL_ENUM); }
inlay_type inlay_type_json(void) { return logical(INLAY_BYTE_ARRAY, INLAY_LOGICAL_JSON); }

inlay_type inlay_type_fixed(int32_t width)
{
    inlay_type t = inlay_type_physical(INLAY_FIXED_LEN_BYTE_ARRAY);
    t.type_length = width;
    return t;
}

inlay_type inlay_type_uuid(void)
{
    inlay_type t = logical(INLAY_FIXED_LEN_BYTE_ARRAY, INLAY_LOGICAL_UUID);
    t.type_length = 16;
    return t;
}

inlay_type inlay_type_float16(void)
{
    inlay_type t = logical(INLAY_FIXED_LEN_BYTE_ARRAY, INLAY_LOGICAL_FLOAT16);
    t.type_length = 2;
    return t;
}

inlay_type inlay_type_date(void) { return logical(INLAY_INT32, INLAY_LOGICAL_DATE); }

inlay_type inlay_type_time(inlay_time_unit u, bool utc)
{
    inlay_type t = logical(u == INLAY_MILLIS ? INLAY_INT32 : INLAY_INT64, INLAY_LOGICAL_TIME);
    t.unit = u;
    t.utc = utc;
    return t;
}

inlay_type inlay_type_timestamp(inlay_time_unit u, bool utc)
{
    inlay_type t = logical(INLAY_INT64, INLAY_LOGICAL_TIMESTAMP);
    t.unit = u;
    t.utc = utc;
    return t;
}

inlay_type inlay_type_decimal(int32_t precision, int32_t scale, inlay_physical p, int32_t width)
{
    inlay_type t = logical(p, INLAY_LOGICAL_DECIMAL);
    t.precision = precision;
    t.scale = scale;
    if (p == INLAY_FIXED_LEN_BYTE_ARRAY) t.type_length = width > 0 ? width : inl_decimal_width(precision);
    return t;
}

/* ---- the tables ---------------------------------------------------------- */

#define PHYS(p) (1u << (p))
#define ANY_PHYSICAL (PHYS(INLAY_BOOLEAN) | PHYS(INLAY_INT32) | PHYS(INLAY_INT64) | PHYS(INLAY_FLOAT) | \
                      PHYS(INLAY_DOUBLE) | PHYS(INLAY_BYTE_ARRAY) | PHYS(INLAY_FIXED_LEN_BYTE_ARRAY))

typedef struct physical_row {
    const char *name;       /* FIXED_LEN_BYTE_ARRAY prints as fixed(width) */
    uint8_t value_size;     /* in the append arrays */
    uint8_t plain_width;    /* 0: BYTE_ARRAY, or the type's own width */
    bool bytes;
    sort_order order;
} physical_row;

static const physical_row physical_rows[INLAY_FIXED_LEN_BYTE_ARRAY + 1] = {
    [INLAY_BOOLEAN] = { "boolean", sizeof(bool), 1, false, ORDER_UNSIGNED },
    [INLAY_INT32] = { "int32", sizeof(int32_t), 4, false, ORDER_SIGNED },
    [INLAY_INT64] = { "int64", sizeof(int64_t), 8, false, ORDER_SIGNED },
    [INLAY_FLOAT] = { "float", sizeof(float), 4, false, ORDER_FLOAT },
    [INLAY_DOUBLE] = { "double", sizeof(double), 8, false, ORDER_FLOAT },
    [INLAY_BYTE_ARRAY] = { "binary", sizeof(inlay_bytes), 0, true, ORDER_BYTES },
    [INLAY_FIXED_LEN_BYTE_ARRAY] = { "fixed", sizeof(inlay_bytes), 0, true, ORDER_BYTES },
};

typedef struct logical_row {
    const char *name;       /* TIME, TIMESTAMP, DECIMAL, INT print their parameters too */
    unsigned annotates;     /* PHYS() set of the physical types it may annotate */
    const char *rule;       /* the message when it annotates another */
    bool utf8;
    int order;              /* a sort_order, or -1 for the physical type's */
} logical_row;

static const logical_row logical_rows[] = {
    [INLAY_LOGICAL_NONE] = { NULL, ANY_PHYSICAL, NULL, false, -1 },
    [INLAY_LOGICAL_STRING] = { "string", PHYS(INLAY_BYTE_ARRAY), "STRING, ENUM and JSON annotate BYTE_ARRAY", true, -1 },
    [INLAY_LOGICAL_ENUM] = { "enum", PHYS(INLAY_BYTE_ARRAY), "STRING, ENUM and JSON annotate BYTE_ARRAY", true, -1 },
    [INLAY_LOGICAL_JSON] = { "json", PHYS(INLAY_BYTE_ARRAY), "STRING, ENUM and JSON annotate BYTE_ARRAY", true, -1 },
    [INLAY_LOGICAL_UUID] = { "uuid", PHYS(INLAY_FIXED_LEN_BYTE_ARRAY), "UUID is FIXED_LEN_BYTE_ARRAY(16)", false, -1 },
    [INLAY_LOGICAL_DATE] = { "date", PHYS(INLAY_INT32), "DATE annotates INT32", false, -1 },
    [INLAY_LOGICAL_TIME] = { "time", PHYS(INLAY_INT32) | PHYS(INLAY_INT64),
                             "TIME(MILLIS) annotates INT32, TIME(MICROS/NANOS) INT64", false, -1 },
    [INLAY_LOGICAL_TIMESTAMP] = { "timestamp", PHYS(INLAY_INT64), "TIMESTAMP annotates INT64", false, -1 },
    [INLAY_LOGICAL_DECIMAL] = { "decimal", PHYS(INLAY_INT32) | PHYS(INLAY_INT64) | PHYS(INLAY_BYTE_ARRAY) |
                                PHYS(INLAY_FIXED_LEN_BYTE_ARRAY),
                                "DECIMAL annotates INT32, INT64, FIXED_LEN_BYTE_ARRAY or BYTE_ARRAY", false, -1 },
    [INLAY_LOGICAL_INT] = { "int", PHYS(INLAY_INT32) | PHYS(INLAY_INT64),
                            "INT(8/16/32) annotates INT32, INT(64) INT64", false, -1 },
    [INLAY_LOGICAL_FLOAT16] = { "float16", PHYS(INLAY_FIXED_LEN_BYTE_ARRAY), "FLOAT16 is FIXED_LEN_BYTE_ARRAY(2)",
                                false, ORDER_FLOAT16 },
};

enum { LOGICAL_ROWS = sizeof logical_rows / sizeof logical_rows[0] };

static const char *const unit_names[] = { "ms", "us", "ns" };

/* Rows of a type whose enums are in range (inl_type_check says the rest). */
static const physical_row *prow(const inlay_type *t)
{
    static const physical_row none = { "?", 0, 0, false, ORDER_NONE };
    unsigned p = (unsigned)t->physical;
    return p <= INLAY_FIXED_LEN_BYTE_ARRAY && physical_rows[p].name ? &physical_rows[p] : &none;
}

static const logical_row *lrow(const inlay_type *t)
{
    unsigned l = (unsigned)t->logical;
    return l < LOGICAL_ROWS ? &logical_rows[l] : &logical_rows[INLAY_LOGICAL_NONE];
}

/* ---- traits -------------------------------------------------------------- */

size_t inl_type_value_size(const inlay_type *t) { return prow(t)->value_size; }

size_t inl_type_plain_width(const inlay_type *t)
{
    if (t->physical == INLAY_FIXED_LEN_BYTE_ARRAY) return t->type_length > 0 ? (size_t)t->type_length : 0;
    return prow(t)->plain_width;
}

bool inl_type_is_bytes(const inlay_type *t) { return prow(t)->bytes; }

bool inl_type_is_utf8(const inlay_type *t) { return lrow(t)->utf8; }

sort_order inl_type_sort_order(const inlay_type *t)
{
    const logical_row *l = lrow(t);
    if (l->order >= 0) return (sort_order)l->order;
    if (t->logical == INLAY_LOGICAL_INT && !t->is_signed) return ORDER_UNSIGNED;
    if (t->logical == INLAY_LOGICAL_DECIMAL && prow(t)->bytes) return ORDER_DECIMAL_BYTES;
    return prow(t)->order;
}

static const int64_t pow10_i64[19] = {
    1LL, 10LL, 100LL, 1000LL, 10000LL, 100000LL, 1000000LL, 10000000LL, 100000000LL,
    1000000000LL, 10000000000LL, 100000000000LL, 1000000000000LL, 10000000000000LL,
    100000000000000LL, 1000000000000000LL, 10000000000000000LL, 100000000000000000LL,
    1000000000000000000LL,
};

bool inl_type_int_range(const inlay_type *t, int64_t *lo, int64_t *hi)
{
    if (t->physical == INLAY_INT32) {
        *lo = INT32_MIN;
        *hi = INT32_MAX;
    } else if (t->physical == INLAY_INT64) {
        *lo = INT64_MIN;
        *hi = INT64_MAX;
    } else {
        return false;
    }
    switch (t->logical) {
    case INLAY_LOGICAL_INT:
        if (t->bit_width < 1 || t->bit_width > 64) return true;
        if (t->bit_width == 64) return t->is_signed;   /* int64: the whole range; uint64: past it */
        *lo = t->is_signed ? -((int64_t)1 << (t->bit_width - 1)) : 0;
        *hi = t->is_signed ? ((int64_t)1 << (t->bit_width - 1)) - 1 : ((int64_t)1 << t->bit_width) - 1;
        return true;
    case INLAY_LOGICAL_DECIMAL:
        if (t->precision >= 1 && t->precision <= 18) {
            *hi = pow10_i64[t->precision] - 1;
            *lo = -*hi;
        }
        return true;
    case INLAY_LOGICAL_TIME: {
        static const int64_t per_day[] = { 86400000LL, 86400000000LL, 86400000000000LL };
        if ((unsigned)t->unit <= INLAY_NANOS) {
            *lo = 0;
            *hi = per_day[t->unit] - 1;
        }
        return true;
    }
    default:
        return true;
    }
}

int32_t inl_decimal_max_precision(int32_t width)
{
    if (width <= 0) return 0;
    const double digits = (8.0 * width - 1) * 0.30102999566398120;   /* floor(log10(2^(8n-1) - 1)) */
    return digits >= INT32_MAX ? INT32_MAX : (int32_t)digits;
}

int32_t inl_decimal_width(int32_t precision)
{
    if (precision <= 0) return 1;
    int32_t n = (int32_t)(((double)precision / 0.30102999566398120 + 1) / 8);   /* close; then exact */
    if (n < 1) n = 1;
    while (n > 1 && inl_decimal_max_precision(n - 1) >= precision) n--;
    while (inl_decimal_max_precision(n) < precision) n++;
    return n;
}

int32_t inl_decimal_precision_limit(const inlay_type *t)
{
    switch (t->physical) {
    case INLAY_INT32: return 9;
    case INLAY_INT64: return 18;
    case INLAY_FIXED_LEN_BYTE_ARRAY: return inl_decimal_max_precision(t->type_length);
    case INLAY_BYTE_ARRAY: return INT32_MAX;
    default: return 0;
    }
}

#define TYPE_FAIL(...) return snprintf(why, cap, __VA_ARGS__), -1

int inl_type_check(const inlay_type *t, char *why, size_t cap)
{
    const inlay_physical p = t->physical;
    if ((unsigned)p > INLAY_FIXED_LEN_BYTE_ARRAY || !physical_rows[p].name)
        TYPE_FAIL("unknown physical type %d", (int)p);
    if (p == INLAY_FIXED_LEN_BYTE_ARRAY && t->type_length < 1)
        TYPE_FAIL("fixed width %d must be at least 1", (int)t->type_length);
    if ((unsigned)t->logical >= LOGICAL_ROWS) TYPE_FAIL("unknown logical type %d", (int)t->logical);
    const logical_row *l = &logical_rows[t->logical];
    if (!(l->annotates & PHYS(p))) TYPE_FAIL("%s", l->rule);
    switch (t->logical) {
    case INLAY_LOGICAL_UUID:
        if (t->type_length != 16) TYPE_FAIL("%s", l->rule);
        return 0;
    case INLAY_LOGICAL_FLOAT16:
        if (t->type_length != 2) TYPE_FAIL("%s", l->rule);
        return 0;
    case INLAY_LOGICAL_TIME:
        if ((unsigned)t->unit > INLAY_NANOS) TYPE_FAIL("bad time unit");
        if (p != (t->unit == INLAY_MILLIS ? INLAY_INT32 : INLAY_INT64)) TYPE_FAIL("%s", l->rule);
        return 0;
    case INLAY_LOGICAL_TIMESTAMP:
        if ((unsigned)t->unit > INLAY_NANOS) TYPE_FAIL("bad time unit");
        return 0;
    case INLAY_LOGICAL_INT:
        if (t->bit_width != 8 && t->bit_width != 16 && t->bit_width != 32 && t->bit_width != 64)
            TYPE_FAIL("INT bit width must be 8, 16, 32 or 64");
        if (p != (t->bit_width == 64 ? INLAY_INT64 : INLAY_INT32)) TYPE_FAIL("%s", l->rule);
        return 0;
    case INLAY_LOGICAL_DECIMAL: {
        const int32_t maxp = inl_decimal_precision_limit(t);
        if (t->precision < 1 || t->precision > maxp)
            TYPE_FAIL("decimal precision %d out of range 1..%d for its physical type", (int)t->precision, (int)maxp);
        if (t->scale < 0 || t->scale > t->precision)
            TYPE_FAIL("decimal scale %d out of range 0..%d", (int)t->scale, (int)t->precision);
        return 0;
    }
    default:
        return 0;
    }
}

#undef TYPE_FAIL

/* ---- names ----------------------------------------------------------------- */

size_t inl_type_name(const inlay_type *t, char *buf, size_t cap)
{
    const char *utc = t->utc ? ", utc" : "";
    const char *unit = (unsigned)t->unit <= INLAY_NANOS ? unit_names[t->unit] : "?";
    int n;
    switch (t->logical) {
    case INLAY_LOGICAL_TIME: case INLAY_LOGICAL_TIMESTAMP:
        n = snprintf(buf, cap, "%s(%s%s)", lrow(t)->name, unit, utc);
        break;
    case INLAY_LOGICAL_DECIMAL:
        n = snprintf(buf, cap, "decimal(%d,%d)", (int)t->precision, (int)t->scale);
        break;
    case INLAY_LOGICAL_INT:
        n = snprintf(buf, cap, "%sint%d", t->is_signed ? "" : "u", (int)t->bit_width);
        break;
    case INLAY_LOGICAL_NONE:
        if (t->physical == INLAY_FIXED_LEN_BYTE_ARRAY) n = snprintf(buf, cap, "fixed(%d)", (int)t->type_length);
        else n = snprintf(buf, cap, "%s", prow(t)->name);
        break;
    default:
        n = snprintf(buf, cap, "%s", lrow(t)->name);
        break;
    }
    return n < 0 ? 0 : (size_t)n;
}

/* Reads "name(" at *p; moves *p past it. */
static bool take(const char **p, const char *end, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(end - *p) < n || memcmp(*p, word, n) != 0) return false;
    *p += n;
    return true;
}

/* A decimal integer 0..INT32_MAX at *p. */
static bool take_int(const char **p, const char *end, int32_t *out)
{
    int64_t v = 0;
    const char *q = *p;
    while (q < end && *q >= '0' && *q <= '9' && v <= INT32_MAX) v = v * 10 + (*q++ - '0');
    if (q == *p || v > INT32_MAX) return false;
    *p = q;
    *out = (int32_t)v;
    return true;
}

static bool parse_time(const char *p, const char *end, bool timestamp, inlay_type *out)
{
    for (int u = 0; u < 3; u++) {
        const char *q = p;
        if (!take(&q, end, unit_names[u])) continue;
        bool utc = take(&q, end, ", utc");
        if (q + 1 != end || *q != ')') return false;
        *out = timestamp ? inlay_type_timestamp((inlay_time_unit)u, utc) : inlay_type_time((inlay_time_unit)u, utc);
        return true;
    }
    return false;
}

bool inl_type_parse(const char *name, size_t len, inlay_type *out)
{
    const char *p = name, *end = name + len;
    /* "int32" and "int64" name the annotated INT types, as scripts mean them */
    const bool is_unsigned = take(&p, end, "uint");
    if (is_unsigned || take(&p, end, "int")) {
        int32_t bits;
        if (!take_int(&p, end, &bits) || p != end || (bits != 8 && bits != 16 && bits != 32 && bits != 64))
            return false;
        *out = inlay_type_int(bits, !is_unsigned);
        return true;
    }
    for (unsigned i = 0; i <= INLAY_FIXED_LEN_BYTE_ARRAY; i++) {
        const char *n = physical_rows[i].name;
        if (n && i != INLAY_FIXED_LEN_BYTE_ARRAY && strlen(n) == len && memcmp(n, name, len) == 0) {
            *out = inlay_type_physical((inlay_physical)i);
            return true;
        }
    }
    for (unsigned i = 0; i < LOGICAL_ROWS; i++) {
        const char *n = logical_rows[i].name;
        if (!n || strlen(n) != len || memcmp(n, name, len) != 0) continue;
        switch (i) {
        case INLAY_LOGICAL_STRING: *out = inlay_type_string(); return true;
        case INLAY_LOGICAL_ENUM: *out = inlay_type_enum(); return true;
        case INLAY_LOGICAL_JSON: *out = inlay_type_json(); return true;
        case INLAY_LOGICAL_UUID: *out = inlay_type_uuid(); return true;
        case INLAY_LOGICAL_DATE: *out = inlay_type_date(); return true;
        case INLAY_LOGICAL_FLOAT16: *out = inlay_type_float16(); return true;
        default: return false;   /* the ones that need parameters */
        }
    }
    if (take(&p, end, "timestamp(")) return parse_time(p, end, true, out);
    if (take(&p, end, "time(")) return parse_time(p, end, false, out);
    int32_t a, b;
    if (take(&p, end, "fixed(")) {
        if (!take_int(&p, end, &a) || a < 1 || !take(&p, end, ")") || p != end) return false;
        *out = inlay_type_fixed(a);
        return true;
    }
    if (take(&p, end, "decimal(")) {
        if (!take_int(&p, end, &a) || !take(&p, end, ",")) return false;
        take(&p, end, " ");
        if (!take_int(&p, end, &b) || !take(&p, end, ")") || p != end) return false;
        if (a < 1 || b > a || a > inl_decimal_max_precision(32)) return false;
        *out = inlay_type_decimal(a, b, a <= 9 ? INLAY_INT32 : a <= 18 ? INLAY_INT64 : INLAY_FIXED_LEN_BYTE_ARRAY, 0);
        return true;
    }
    return false;
}

/* ---- the public face ------------------------------------------------------ */

size_t inlay_type_name(const inlay_type *t, char *buf, size_t cap)
{
    if (!t) return 0;
    return inl_type_name(t, buf, cap);
}

bool inlay_type_parse(const char *name, size_t len, inlay_type *out)
{
    return name && out && inl_type_parse(name, len, out);
}

size_t inlay_type_value_size(const inlay_type *t) { return t ? inl_type_value_size(t) : 0; }

bool inlay_type_int_range(const inlay_type *t, int64_t *lo, int64_t *hi)
{
    return t && lo && hi && inl_type_int_range(t, lo, hi);
}

bool inlay_type_is_utf8(const inlay_type *t) { return t && inl_type_is_utf8(t); }
