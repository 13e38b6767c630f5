/*
 * lfmt.c — values as text (see lfmt.h, and lprint.h for the forms).
 *
 * Numbers are written by hand where it is the hot path of `cat`
 * (integers, dates, times), and floats in the shortest %.*g that reads
 * back as the same value. Decimals of any width come from their
 * big-endian two's complement bytes by long division. Dates use
 * H. Hinnant's civil_from_days, exact over the whole int64 range.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "lfmt.h"

/* ---- growable text ---------------------------------------------------------- */

bool inl_lua_sb_reserve(sbuf *b, size_t more)
{
    if (b->oom) return false;
    if (b->cap - b->len > more) return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len <= more) {
        if (cap > SIZE_MAX / 2) {
            b->oom = true;
            return false;
        }
        cap *= 2;
    }
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

void inl_lua_sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[128];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) {
        sb_put(b, tmp, (size_t)n);
        return;
    }
    if (!inl_lua_sb_reserve(b, (size_t)n + 1)) return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void inl_lua_sb_free(sbuf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

void inl_lua_put_u64(sbuf *b, uint64_t v)
{
    char tmp[24];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    sb_put(b, tmp + i, sizeof tmp - i);
}

void inl_lua_put_i64(sbuf *b, int64_t v)
{
    if (v < 0) {
        sb_putc(b, '-');
        inl_lua_put_u64(b, (uint64_t)0 - (uint64_t)v);
    } else {
        inl_lua_put_u64(b, (uint64_t)v);
    }
}

/* Fixed width, zero padded. */
static void put_digits(sbuf *b, uint64_t v, int width)
{
    char tmp[24];
    for (int i = width - 1; i >= 0; i--) {
        tmp[i] = (char)('0' + v % 10);
        v /= 10;
    }
    sb_put(b, tmp, (size_t)width);
}

/* ---- text: UTF-8, JSON strings, blobs ---------------------------------------- */

/* The length of the valid UTF-8 sequence at p (n bytes left), 0 if none. */
static size_t utf8_seq(const uint8_t *p, size_t n)
{
    const uint8_t c = p[0];
    if (c < 0x80) return 1;
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) len = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF) len = 3, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4) len = 4, cp = c & 0x07;
    else return 0;
    if (n < len) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (p[i] & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return len;
}

static const char hexdig[] = "0123456789abcdef";
static const char HEXDIG[] = "0123456789ABCDEF";

/* One byte as DuckDB writes it in a BLOB's text: \xHH. */
void inl_lua_put_xbyte(sbuf *b, uint8_t c)
{
    char t[4] = { '\\', 'x', HEXDIG[c >> 4], HEXDIG[c & 15] };
    sb_put(b, t, 4);
}

/* Appends s[0..n) as it goes inside a JSON string: " \ and control
 * characters escaped, the rest as it is. */
static void json_escape(sbuf *b, const char *s, size_t n)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        sb_put(b, s + run, i - run);
        run = i + 1;
        switch (c) {
        case '"': sb_put(b, "\\\"", 2); break;
        case '\\': sb_put(b, "\\\\", 2); break;
        case '\n': sb_put(b, "\\n", 2); break;
        case '\r': sb_put(b, "\\r", 2); break;
        case '\t': sb_put(b, "\\t", 2); break;
        case '\b': sb_put(b, "\\b", 2); break;
        case '\f': sb_put(b, "\\f", 2); break;
        default: {
            char t[6] = { '\\', 'u', '0', '0', hexdig[c >> 4], hexdig[c & 15] };
            sb_put(b, t, 6);
        }
        }
    }
    sb_put(b, s + run, n - run);
}

/* A piece of plain text, escaped when the output is JSON. */
static void emit(sbuf *b, const char *s, size_t n, int mode)
{
    if (mode == M_JSON) json_escape(b, s, n);
    else sb_put(b, s, n);
}

/* Text bytes: as they are where valid UTF-8, \xHH for bytes that are not.
 * Quoted in JSON. */
void inl_lua_put_text(sbuf *b, const uint8_t *p, size_t n, int mode)
{
    if (mode == M_JSON) sb_putc(b, '"');
    if (inlay_utf8_valid(p, n)) {
        emit(b, (const char *)p, n, mode);
    } else {
        size_t run = 0, i = 0;
        while (i < n) {
            size_t k = utf8_seq(p + i, n - i);
            if (k) {
                i += k;
                continue;
            }
            emit(b, (const char *)p + run, i - run, mode);
            if (mode == M_JSON) sb_putc(b, '\\');   /* the backslash of \xHH, escaped */
            inl_lua_put_xbyte(b, p[i]);
            run = ++i;
        }
        emit(b, (const char *)p + run, n - run, mode);
    }
    if (mode == M_JSON) sb_putc(b, '"');
}

/* Binary as DuckDB's BLOB text: printable ASCII but \ ' " as it is, the
 * rest \xHH. Quoted in JSON. */
static void put_blob(sbuf *b, const uint8_t *p, size_t n, int mode)
{
    if (mode == M_JSON) sb_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        const uint8_t c = p[i];
        if (c >= 0x20 && c <= 0x7E && c != '\\' && c != '\'' && c != '"') {
            sb_putc(b, (char)c);
        } else {
            if (mode == M_JSON) sb_putc(b, '\\');
            inl_lua_put_xbyte(b, c);
        }
    }
    if (mode == M_JSON) sb_putc(b, '"');
}

void inl_lua_json_str(sbuf *b, const char *s)
{
    inl_lua_put_text(b, (const uint8_t *)s, strlen(s), M_JSON);
}

void inl_lua_json_key(sbuf *b, const char *s, bool first)
{
    if (!first) sb_putc(b, ',');
    inl_lua_json_str(b, s);
    sb_putc(b, ':');
}

/* ---- numbers, times, decimals -------------------------------------------------- */

/* The shortest %.*g that reads back as x. */
static void put_double(sbuf *b, double x, int mode)
{
    if (isnan(x) || isinf(x)) {
        sb_puts(b, mode == M_JSON ? "null" : isnan(x) ? "nan" : x < 0 ? "-inf" : "inf");
        return;
    }
    char tmp[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, x);
        if (prec == 17 || strtod(tmp, NULL) == x) break;
    }
    sb_puts(b, tmp);
}

static void put_float(sbuf *b, float x, int mode)
{
    if (isnan(x) || isinf(x)) {
        put_double(b, (double)x, mode);
        return;
    }
    char tmp[40];
    for (int prec = 6; prec <= 9; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, (double)x);
        if (prec == 9 || strtof(tmp, NULL) == x) break;
    }
    sb_puts(b, tmp);
}

static double half_to_double(uint16_t h)
{
    const int e = (h >> 10) & 0x1F, m = h & 0x3FF;
    double v;
    if (e == 0) v = ldexp((double)m, -24);
    else if (e == 31) v = m ? NAN : INFINITY;
    else v = ldexp((double)(m | 0x400), e - 25);
    return (h & 0x8000) ? -v : v;
}

static void put_half(sbuf *b, uint16_t bits, int mode)
{
    const double x = half_to_double(bits);
    if (isnan(x) || isinf(x)) {
        put_double(b, x, mode);
        return;
    }
    /* all the integer digits, so 65504 is not 6.55e+04 */
    int prec = 1;
    for (double m = fabs(x); m >= 10 && prec < 5; m /= 10) prec++;
    char tmp[40];
    for (; prec <= 6; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, x);
        if (prec == 6 || inlay_float16_bits(strtod(tmp, NULL)) == bits) break;
    }
    sb_puts(b, tmp);
}

static int64_t floor_div(int64_t a, int64_t d)
{
    int64_t q = a / d;
    return (a % d != 0 && (a < 0) != (d < 0)) ? q - 1 : q;
}

/* Days since 1970-01-01 as YYYY-MM-DD (H. Hinnant's civil_from_days). */
static void put_date(sbuf *b, int64_t days)
{
    const int64_t z = days + 719468;
    const int64_t era = floor_div(z, 146097);
    const unsigned doe = (unsigned)(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    const unsigned d = doy - (153 * mp + 2) / 5 + 1;
    const unsigned m = mp < 10 ? mp + 3 : mp - 9;
    const int64_t y = (int64_t)yoe + era * 400 + (m <= 2);
    if (y >= 0 && y <= 9999) {
        put_digits(b, (uint64_t)y, 4);
    } else if (y > 9999) {
        sb_putc(b, '+');
        inl_lua_put_u64(b, (uint64_t)y);
    } else {
        sb_putc(b, '-');
        const uint64_t a = (uint64_t)0 - (uint64_t)y;
        if (a < 10000) put_digits(b, a, 4);
        else inl_lua_put_u64(b, a);
    }
    sb_putc(b, '-');
    put_digits(b, m, 2);
    sb_putc(b, '-');
    put_digits(b, d, 2);
}

static const int64_t unit_per_second[] = { 1000, 1000000, 1000000000 };
static const int unit_digits[] = { 3, 6, 9 };

/* A count of `unit` since midnight as HH:MM:SS.fff (hours past 23 are
 * shown as they are: a time out of range stays visible). */
static void put_clock(sbuf *b, int64_t secs_of_day, int64_t frac, inlay_time_unit unit)
{
    const uint64_t hours = (uint64_t)(secs_of_day / 3600);
    if (hours < 100) put_digits(b, hours, 2);
    else inl_lua_put_u64(b, hours);
    sb_putc(b, ':');
    put_digits(b, (uint64_t)(secs_of_day / 60 % 60), 2);
    sb_putc(b, ':');
    put_digits(b, (uint64_t)(secs_of_day % 60), 2);
    sb_putc(b, '.');
    put_digits(b, (uint64_t)frac, unit_digits[unit]);
}

static void put_time(sbuf *b, const inlay_type *t, int64_t v, int mode)
{
    const int64_t per = unit_per_second[t->unit];
    int64_t secs = floor_div(v, per), frac = v - secs * per;
    if (mode == M_JSON) sb_putc(b, '"');
    if (secs < 0) {   /* before midnight: not a valid time; show the day it falls in */
        sb_putc(b, '-');
        secs = -secs - (frac > 0);
        frac = frac ? per - frac : 0;
    }
    put_clock(b, secs, frac, t->unit);
    if (t->utc) sb_putc(b, 'Z');
    if (mode == M_JSON) sb_putc(b, '"');
}

static void put_timestamp(sbuf *b, const inlay_type *t, int64_t v, int mode)
{
    const int64_t per = unit_per_second[t->unit];
    const int64_t secs = floor_div(v, per), frac = v - secs * per;
    const int64_t days = floor_div(secs, 86400), sod = secs - days * 86400;
    if (mode == M_JSON) sb_putc(b, '"');
    put_date(b, days);
    sb_putc(b, 'T');
    put_clock(b, sod, frac, t->unit);
    if (t->utc) sb_putc(b, 'Z');
    if (mode == M_JSON) sb_putc(b, '"');
}

/* A decimal's magnitude digits (most significant first) with the point
 * put `scale` digits from the right. */
static void put_decimal_digits(sbuf *b, bool neg, const char *digits, size_t nd, int32_t scale)
{
    if (neg) sb_putc(b, '-');
    if (scale <= 0) {
        sb_put(b, digits, nd);
        return;
    }
    const size_t s = (size_t)scale;
    if (nd <= s) {
        sb_put(b, "0.", 2);
        for (size_t i = nd; i < s; i++) sb_putc(b, '0');
        sb_put(b, digits, nd);
    } else {
        sb_put(b, digits, nd - s);
        sb_putc(b, '.');
        sb_put(b, digits + nd - s, s);
    }
}

static void put_decimal_i64(sbuf *b, int64_t v, int32_t scale)
{
    char tmp[24];
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    size_t i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + m % 10);
        m /= 10;
    } while (m);
    put_decimal_digits(b, v < 0, tmp + i, sizeof tmp - i, scale);
}

enum { MAX_DECIMAL_BYTES = 64 };

/* Big-endian two's complement of any width up to MAX_DECIMAL_BYTES: the
 * magnitude is divided by 10 over and over, digit by digit. */
static bool put_decimal_bytes(sbuf *b, const uint8_t *p, size_t n, int32_t scale)
{
    if (n > MAX_DECIMAL_BYTES) return false;
    if (n <= 8) {
        int64_t v = n && (p[0] & 0x80) ? -1 : 0;
        for (size_t i = 0; i < n; i++) v = (int64_t)((uint64_t)v << 8 | p[i]);
        put_decimal_i64(b, v, scale);
        return true;
    }
    uint8_t mag[MAX_DECIMAL_BYTES];
    const bool neg = p[0] & 0x80;
    memcpy(mag, p, n);
    if (neg) {   /* negate: invert and add one */
        unsigned carry = 1;
        for (size_t i = n; i-- > 0;) {
            unsigned x = (uint8_t)~mag[i] + carry;
            mag[i] = (uint8_t)x;
            carry = x >> 8;
        }
    }
    char digits[MAX_DECIMAL_BYTES * 3];
    size_t nd = 0, start = 0;
    while (start < n && mag[start] == 0) start++;
    while (start < n) {
        unsigned rem = 0;
        for (size_t i = start; i < n; i++) {
            unsigned cur = rem << 8 | mag[i];
            mag[i] = (uint8_t)(cur / 10);
            rem = cur % 10;
        }
        digits[nd++] = (char)('0' + rem);
        while (start < n && mag[start] == 0) start++;
    }
    if (nd == 0) digits[nd++] = '0';
    for (size_t i = 0; i < nd / 2; i++) {
        char c = digits[i];
        digits[i] = digits[nd - 1 - i];
        digits[nd - 1 - i] = c;
    }
    put_decimal_digits(b, neg, digits, nd, scale);
    return true;
}

static void put_uuid(sbuf *b, const uint8_t *p, int mode)
{
    char t[36];
    size_t k = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) t[k++] = '-';
        t[k++] = hexdig[p[i] >> 4];
        t[k++] = hexdig[p[i] & 15];
    }
    if (mode == M_JSON) sb_putc(b, '"');
    sb_put(b, t, sizeof t);
    if (mode == M_JSON) sb_putc(b, '"');
}

/* ---- one value ----------------------------------------------------------------- */

/* A value as the reader's arrays or the footer's statistics hold it. */
typedef struct scalar {
    int64_t i;            /* BOOLEAN (0 or 1), INT32 (sign-extended), INT64 */
    double d;             /* DOUBLE */
    float f;              /* FLOAT */
    const uint8_t *p;     /* BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY */
    size_t n;
} scalar;

static bool is_text_type(const inlay_type *t)
{
    return t->logical == INLAY_LOGICAL_STRING || t->logical == INLAY_LOGICAL_ENUM || t->logical == INLAY_LOGICAL_JSON;
}

bool inl_lua_type_is_numeric(const inlay_type *t)
{
    switch (t->physical) {
    case INLAY_INT32:
    case INLAY_INT64:
        return t->logical == INLAY_LOGICAL_NONE || t->logical == INLAY_LOGICAL_INT || t->logical == INLAY_LOGICAL_DECIMAL;
    case INLAY_FLOAT:
    case INLAY_DOUBLE: return true;
    case INLAY_FIXED_LEN_BYTE_ARRAY:
    case INLAY_BYTE_ARRAY: return t->logical == INLAY_LOGICAL_DECIMAL || t->logical == INLAY_LOGICAL_FLOAT16;
    default: return false;
    }
}

static void put_integer(sbuf *b, const inlay_type *t, int64_t v, int mode)
{
    switch (t->logical) {
    case INLAY_LOGICAL_DATE:
        if (mode == M_JSON) sb_putc(b, '"');
        put_date(b, v);
        if (mode == M_JSON) sb_putc(b, '"');
        return;
    case INLAY_LOGICAL_TIME: put_time(b, t, v, mode); return;
    case INLAY_LOGICAL_TIMESTAMP: put_timestamp(b, t, v, mode); return;
    case INLAY_LOGICAL_DECIMAL: put_decimal_i64(b, v, t->scale); return;
    case INLAY_LOGICAL_INT:
        if (!t->is_signed) {
            inl_lua_put_u64(b, t->physical == INLAY_INT32 ? (uint64_t)(uint32_t)v : (uint64_t)v);
            return;
        }
        break;
    default: break;
    }
    inl_lua_put_i64(b, v);
}

static void put_bytes_value(sbuf *b, const inlay_type *t, const uint8_t *p, size_t n, int mode)
{
    if (is_text_type(t)) {
        inl_lua_put_text(b, p, n, mode);
    } else if (t->logical == INLAY_LOGICAL_UUID && n == 16) {
        put_uuid(b, p, mode);
    } else if (t->logical == INLAY_LOGICAL_FLOAT16 && n == 2) {
        put_half(b, (uint16_t)(p[0] | p[1] << 8), mode);
    } else if (t->logical == INLAY_LOGICAL_DECIMAL && put_decimal_bytes(b, p, n, t->scale)) {
        /* written */
    } else {
        put_blob(b, p, n, mode);
    }
}

static void put_scalar(sbuf *b, const inlay_type *t, const scalar *v, int mode)
{
    switch (t->physical) {
    case INLAY_BOOLEAN: sb_puts(b, v->i ? "true" : "false"); return;
    case INLAY_INT32:
    case INLAY_INT64: put_integer(b, t, v->i, mode); return;
    case INLAY_FLOAT: put_float(b, v->f, mode); return;
    case INLAY_DOUBLE: put_double(b, v->d, mode); return;
    default: put_bytes_value(b, t, v->p, v->n, mode); return;
    }
}

static void slot_scalar(const inlay_type *t, const void *values, size_t i, scalar *v)
{
    switch (t->physical) {
    case INLAY_BOOLEAN: v->i = ((const bool *)values)[i]; break;
    case INLAY_INT32: v->i = ((const int32_t *)values)[i]; break;
    case INLAY_INT64: v->i = ((const int64_t *)values)[i]; break;
    case INLAY_FLOAT: v->f = ((const float *)values)[i]; break;
    case INLAY_DOUBLE: v->d = ((const double *)values)[i]; break;
    default: {
        const inlay_bytes *x = &((const inlay_bytes *)values)[i];
        v->p = x->data;
        v->n = x->len;
    }
    }
}

static uint64_t load_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

/* A statistic's plain bytes as the leaf's value; `stored` is the chunk's
 * physical type as the file has it (INT96 reads as timestamp(ns)). False
 * when the length does not fit the type. */
static bool stat_scalar(const inlay_type *t, int stored, const uint8_t *p, size_t n, scalar *v)
{
    memset(v, 0, sizeof *v);
    if (stored == 3) {   /* INT96: nanoseconds of the day, then the Julian day */
        if (n != 12) return false;
        const int64_t nanos = (int64_t)load_le(p, 8), jd = (int64_t)load_le(p + 8, 4);
        v->i = (jd - 2440588) * 86400 * INT64_C(1000000000) + nanos;
        return true;
    }
    switch (t->physical) {
    case INLAY_BOOLEAN:
        if (n < 1) return false;
        v->i = p[0] & 1;
        return true;
    case INLAY_INT32:
        if (n != 4) return false;
        v->i = (int32_t)(uint32_t)load_le(p, 4);
        return true;
    case INLAY_INT64:
        if (n != 8) return false;
        v->i = (int64_t)load_le(p, 8);
        return true;
    case INLAY_FLOAT:
        if (n != 4) return false;
        memcpy(&v->f, p, 4);
        return true;
    case INLAY_DOUBLE:
        if (n != 8) return false;
        memcpy(&v->d, p, 8);
        return true;
    default:
        v->p = p;
        v->n = n;
        return true;
    }
}

void inl_lua_put_stat(sbuf *b, const inlay_type *t, int stored, const uint8_t *p, size_t n, int mode)
{
    scalar v;
    if (!p) sb_puts(b, mode == M_JSON ? "null" : "-");
    else if (stat_scalar(t, stored, p, n, &v)) put_scalar(b, t, &v, mode);
    else put_blob(b, p, n, mode);
}

/* ---- the shape of a field ------------------------------------------------------- */

void inl_lua_shape_free(pnode *n)
{
    for (int k = 0; k < n->nkids; k++) inl_lua_shape_free(&n->kids[k]);
    free(n->kids);
    n->kids = NULL;
    n->nkids = 0;
}

static int pn_build(pnode *pn, const inlay_schema *s, int node, bool as_element);

/* The kids of pn: the children of schema node `group`, or `group` itself
 * as the one element when it is a primitive (a repeated leaf). */
static int pn_kids(pnode *pn, const inlay_schema *s, int group)
{
    inlay_node_info g;
    if (inlay_schema_node(s, group, &g) != INLAY_OK) return INLAY_ERR_FORMAT;
    const int n = g.is_group ? g.num_children : 1;
    pn->kids = calloc((size_t)(n ? n : 1), sizeof *pn->kids);
    if (!pn->kids) return INLAY_ERR_NOMEM;
    if (!g.is_group) {
        pn->nkids = 1;
        return pn_build(&pn->kids[0], s, group, true);
    }
    for (int c = g.first_child; c >= 0 && pn->nkids < n; pn->nkids++) {
        int st = pn_build(&pn->kids[pn->nkids], s, c, false);
        if (st) {
            pn->nkids++;
            return st;
        }
        inlay_node_info ci;
        if (inlay_schema_node(s, c, &ci) != INLAY_OK) return INLAY_ERR_FORMAT;
        c = ci.next_sibling;
    }
    return INLAY_OK;
}

/* `as_element`: the node is the element of a repeated field handled by the
 * caller, so its own repetition does not make it a list again. */
static int pn_build(pnode *pn, const inlay_schema *s, int node, bool as_element)
{
    inlay_node_info in;
    memset(pn, 0, sizeof *pn);
    if (inlay_schema_node(s, node, &in) != INLAY_OK) return INLAY_ERR_FORMAT;
    pn->name = in.name;
    if (in.repetition == INLAY_REPEATED && !as_element) {
        pn->kind = PN_REPEATED;
        pn->elem_struct = in.is_group;
        return pn_kids(pn, s, node);
    }
    if (!in.is_group) {
        pn->kind = PN_LEAF;
        pn->type = in.type;
        return INLAY_OK;
    }
    if ((in.group == INLAY_GROUP_LIST || in.group == INLAY_GROUP_MAP) && in.first_child >= 0) {
        pn->kind = in.group == INLAY_GROUP_LIST ? PN_LIST : PN_MAP;
        int st = pn_kids(pn, s, in.first_child);
        if (st) return st;
        pn->elem_struct = pn->kind == PN_LIST && pn->nkids > 1;
        pn->text_keys = pn->kind == PN_MAP && pn->kids[0].kind == PN_LEAF && is_text_type(&pn->kids[0].type);
        return INLAY_OK;
    }
    pn->kind = PN_STRUCT;
    return pn_kids(pn, s, node);
}

static void struct_type(sbuf *b, const pnode *pn)
{
    sb_puts(b, "struct<");
    for (int k = 0; k < pn->nkids; k++) {
        if (k) sb_puts(b, ", ");
        inl_lua_sb_printf(b, "%s: ", pn->kids[k].name);
        inl_lua_shape_type(b, &pn->kids[k]);
    }
    sb_putc(b, '>');
}

void inl_lua_shape_type(sbuf *b, const pnode *pn)
{
    char tmp[64];
    switch (pn->kind) {
    case PN_LEAF: {
        size_t n = inlay_type_name(&pn->type, tmp, sizeof tmp);
        sb_put(b, tmp, n < sizeof tmp ? n : sizeof tmp - 1);
        return;
    }
    case PN_LIST:
    case PN_REPEATED:
        sb_puts(b, "list<");
        if (pn->elem_struct) struct_type(b, pn);
        else if (pn->nkids) inl_lua_shape_type(b, &pn->kids[0]);
        sb_putc(b, '>');
        return;
    case PN_MAP:
        sb_puts(b, "map<");
        for (int k = 0; k < pn->nkids; k++) {
            if (k) sb_puts(b, ", ");
            inl_lua_shape_type(b, &pn->kids[k]);
        }
        sb_putc(b, '>');
        return;
    case PN_STRUCT: struct_type(b, pn); return;
    }
}

/* ---- nested values as JSON -------------------------------------------------------- */

static bool valid_at(const inlay_array *a, size_t i)
{
    return !a->validity || (a->validity[i >> 3] >> (i & 7) & 1);
}

static void put_json(render *rd, const pnode *pn, const inlay_array *a, size_t i);

static void sep(render *rd) { sb_puts(rd->b, rd->pretty ? ", " : ","); }

static void key_text(render *rd, const char *name)
{
    inl_lua_json_str(rd->b, name);
    sb_puts(rd->b, rd->pretty ? ": " : ":");
}

/* Entry j of kid arrays as an object of the kids (a struct, or an element
 * of a repeated group). */
static void put_object(render *rd, const pnode *pn, const inlay_array *a, size_t j)
{
    sb_putc(rd->b, '{');
    for (int k = 0; k < pn->nkids; k++) {
        if (k) sep(rd);
        key_text(rd, pn->kids[k].name);
        put_json(rd, &pn->kids[k], &a->children[k], j);
    }
    sb_putc(rd->b, '}');
}

static void put_map(render *rd, const pnode *pn, const inlay_array *a, size_t lo, size_t hi)
{
    const inlay_array *keys = &a->children[0];
    const inlay_array *vals = pn->nkids > 1 ? &a->children[1] : NULL;
    if (!vals) {   /* a set: the keys */
        sb_putc(rd->b, '[');
        for (size_t j = lo; j < hi; j++) {
            if (j > lo) sep(rd);
            put_json(rd, &pn->kids[0], keys, j);
        }
        sb_putc(rd->b, ']');
        return;
    }
    sb_putc(rd->b, pn->text_keys ? '{' : '[');
    for (size_t j = lo; j < hi; j++) {
        if (j > lo) sep(rd);
        if (pn->text_keys) {
            if (valid_at(keys, j)) put_json(rd, &pn->kids[0], keys, j);
            else sb_puts(rd->b, "\"\"");   /* keys are required; never invalid JSON all the same */
            sb_puts(rd->b, rd->pretty ? ": " : ":");
        } else {
            sb_putc(rd->b, '{');
            key_text(rd, "key");
            put_json(rd, &pn->kids[0], keys, j);
            sep(rd);
            key_text(rd, "value");
        }
        put_json(rd, &pn->kids[1], vals, j);
        if (!pn->text_keys) sb_putc(rd->b, '}');
    }
    sb_putc(rd->b, pn->text_keys ? '}' : ']');
}

/* Entry i of array a, a value of shape pn, as JSON. */
static void put_json(render *rd, const pnode *pn, const inlay_array *a, size_t i)
{
    if (i >= a->length) {
        rd->bad = true;
        sb_puts(rd->b, "null");
        return;
    }
    if (!valid_at(a, i)) {
        sb_puts(rd->b, "null");
        return;
    }
    if (pn->kind == PN_LEAF) {
        scalar v;
        slot_scalar(&pn->type, a->values, i, &v);
        put_scalar(rd->b, &pn->type, &v, M_JSON);
        return;
    }
    if (pn->kind == PN_STRUCT) {
        for (int k = 0; k < pn->nkids; k++)
            if (i >= a->children[k].length) rd->bad = true;
        if (!rd->bad) put_object(rd, pn, a, i);
        else sb_puts(rd->b, "null");
        return;
    }
    const size_t lo = (size_t)a->offsets[i], hi = (size_t)a->offsets[i + 1];
    bool ok = a->offsets[i] >= 0 && lo <= hi;
    for (int k = 0; k < pn->nkids && ok; k++) ok = hi <= a->children[k].length;
    if (!ok) {
        rd->bad = true;
        sb_puts(rd->b, "null");
        return;
    }
    if (pn->kind == PN_MAP) {
        put_map(rd, pn, a, lo, hi);
        return;
    }
    sb_putc(rd->b, '[');
    for (size_t j = lo; j < hi; j++) {
        if (j > lo) sep(rd);
        if (pn->elem_struct) put_object(rd, pn, a, j);
        else put_json(rd, &pn->kids[0], &a->children[0], j);
    }
    sb_putc(rd->b, ']');
}

/* A top-level value: a leaf in `mode`, a nested value as JSON. False for a
 * null (nothing written). */
bool inl_lua_put_field(render *rd, const pnode *pn, const inlay_array *a, size_t i, int mode)
{
    if (i >= a->length) {
        rd->bad = true;
        return false;
    }
    if (!valid_at(a, i)) return false;
    if (pn->kind == PN_LEAF) {
        scalar v;
        slot_scalar(&pn->type, a->values, i, &v);
        put_scalar(rd->b, &pn->type, &v, mode);
    } else {
        put_json(rd, pn, a, i);
    }
    return true;
}

int inl_lua_shape_build(pnode *pn, const inlay_schema *s, int node)
{
    return pn_build(pn, s, node, false);
}
