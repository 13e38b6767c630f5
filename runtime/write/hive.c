/*
 * hive.c — partition values as folder names (see hive.h).
 */
#include "hive.h"

#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "utf8.h"

static bool hive_escapes(uint8_t c)
{
    if (c < 0x20 || c == 0x7F) return true;
    return strchr("\"#%'*/:=?\\{[]^", c) != NULL && c != 0;
}

static const char hex[] = "0123456789ABCDEF";

/* Escaped bytes of p[0..n): all bytes >= 0x80 too when the value is not
 * UTF-8. */
static int put_escaped(buf *out, const inlay_allocator *a, const uint8_t *p, size_t n, bool escape_high)
{
    if (inl_buf_reserve(out, a, n * 3)) return -1;
    uint8_t *d = out->data + out->len;
    for (size_t i = 0; i < n; i++) {
        const uint8_t c = p[i];
        if (hive_escapes(c) || (escape_high && c >= 0x80)) {
            *d++ = '%';
            *d++ = (uint8_t)hex[c >> 4];
            *d++ = (uint8_t)hex[c & 15];
        } else {
            *d++ = c;
        }
    }
    out->len = (size_t)(d - out->data);
    return 0;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    const int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Days since 1970-01-01 as YYYY-MM-DD (H. Hinnant's civil_from_days);
 * years outside 0..9999 as DuckDB prints them. */
static int put_date(buf *out, const inlay_allocator *a, int64_t days)
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
    char tmp[48];
    int len = y >= 0 ? snprintf(tmp, sizeof tmp, "%04lld-%02u-%02u", (long long)y, m, d)
                     : snprintf(tmp, sizeof tmp, "-%04llu-%02u-%02u",
                                (unsigned long long)((uint64_t)0 - (uint64_t)y), m, d);
    return inl_buf_append(out, a, tmp, (size_t)len);
}

int inl_hive_text(buf *out, const inlay_allocator *a, hive_kind kind, const hive_value *v)
{
    char tmp[32];
    switch (kind) {
    case HIVE_BOOL: return inl_buf_append(out, a, v->i ? "true" : "false", v->i ? 4 : 5);
    case HIVE_INT: return inl_buf_append(out, a, tmp, (size_t)snprintf(tmp, sizeof tmp, "%lld", (long long)v->i));
    case HIVE_UINT:
        return inl_buf_append(out, a, tmp, (size_t)snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)(uint64_t)v->i));
    case HIVE_DATE: return put_date(out, a, v->i);
    case HIVE_BYTES: return v->len ? inl_buf_append(out, a, v->data, v->len) : 0;
    }
    return 0;
}

static bool equals_nocase(const uint8_t *p, size_t n, const char *s)
{
    if (n != strlen(s)) return false;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        if (c >= 'A' && c <= 'Z') c = (uint8_t)(c + 32);
        if (c != (uint8_t)s[i]) return false;
    }
    return true;
}

/* The escaped form of a value's text t[0..n). */
static int put_value(buf *out, const inlay_allocator *a, const uint8_t *t, size_t n)
{
    if ((n == 1 && t[0] == '.') || (n == 2 && t[0] == '.' && t[1] == '.'))
        return inl_buf_append(out, a, n == 1 ? "%2E" : "%2E%2E", n * 3);
    const bool reserved = equals_nocase(t, n, "null") || (n == strlen(HIVE_NULL) && !memcmp(t, HIVE_NULL, n));
    if (reserved) {   /* one escaped character, and readers no longer see a null */
        if (inl_buf_reserve(out, a, 3)) return -1;
        out->data[out->len++] = '%';
        out->data[out->len++] = (uint8_t)hex[t[0] >> 4];
        out->data[out->len++] = (uint8_t)hex[t[0] & 15];
        t++, n--;
    }
    return put_escaped(out, a, t, n, !inl_utf8_valid(t, n));
}

/* Where a name of `len` bytes may be cut at or below `limit` without
 * splitting a %XX escape or a UTF-8 character. */
static size_t cut_point(const uint8_t *p, size_t len, size_t limit)
{
    size_t cut = limit < len ? limit : len;
    while (cut > 0) {
        const bool in_escape = (cut >= 1 && p[cut - 1] == '%') || (cut >= 2 && p[cut - 2] == '%');
        const bool mid_char = cut < len && (p[cut] & 0xC0) == 0x80;
        if (!in_escape && !mid_char) break;
        cut--;
    }
    return cut;
}

int inl_hive_component(buf *out, const inlay_allocator *a, const char *key, hive_kind kind,
                       const hive_value *v, bool *shortened)
{
    *shortened = false;
    const size_t start = out->len;
    const size_t klen = strlen(key);
    if (put_escaped(out, a, (const uint8_t *)key, klen, !inl_utf8_valid((const uint8_t *)key, klen)) ||
        inl_buf_append(out, a, "=", 1))
        return -1;
    const size_t key_len = out->len - start;
    if (key_len + 17 >= HIVE_NAME_MAX) {
        out->len = start;
        return -2;
    }
    if (v->is_null) return inl_buf_append(out, a, HIVE_NULL, strlen(HIVE_NULL));
    const size_t text_at = out->len;
    if (inl_hive_text(out, a, kind, v)) return -1;
    /* the text moves behind itself as its escaped form */
    buf text = { 0 };
    const size_t text_len = out->len - text_at;
    if (text_len && inl_buf_append(&text, a, out->data + text_at, text_len)) return -1;
    out->len = text_at;
    int st = put_value(out, a, text.data, text_len);
    if (!st && out->len - start > HIVE_NAME_MAX) {
        const size_t value_at = start + key_len;
        const size_t room = HIVE_NAME_MAX - key_len - 17;
        out->len = value_at + cut_point(out->data + value_at, out->len - value_at, room);
        char tail[24];
        snprintf(tail, sizeof tail, "~%016llx", (unsigned long long)XXH3_64bits(text.data, text_len));
        st = inl_buf_append(out, a, tail, 17);
        *shortened = true;
    }
    inl_buf_free(&text, a);
    if (st) out->len = start;
    return st;
}
