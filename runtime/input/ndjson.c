/*
 * ndjson.c — the NDJSON tokenizer (see ndjson.h).
 *
 * The line buffer holds data[pos, fill): bytes read but not yet consumed.
 * There is never a '\n' in data[pos, scan), so a long line arriving in
 * small reads is searched once. A line is consumed whole: its terminator
 * (or the byte after the last line) is overwritten with a NUL, which ends
 * every scan — NUL is neither whitespace, nor a token, nor allowed raw in a
 * string — so the parser needs no bounds checks, only a comparison with the
 * line end when it meets a NUL. PAD bytes after the buffer's capacity let
 * the scanners read a word at a time past that sentinel.
 */
#include "ndjson.h"

#include "error.h"

#include <stdarg.h>
#include <stdio.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define PAD 64

/* A key of up to 16 bytes is matched by its two words alone (they cover
 * all its bytes); a longer one also by memcmp. */
typedef struct key_slot {
    uint64_t a, b;     /* key_words() of the key */
    uint32_t len;
    uint32_t index1;   /* key index + 1; 0 = empty */
} key_slot;

/* A wanted key. plain: printable ASCII without '"' or '\\', so its bytes
 * in a line, followed by a quote, can only be that key. */
typedef struct key_info {
    char *text;        /* NUL-terminated copy */
    size_t len;
    uint64_t a, b;     /* key_words() */
    bool plain;
} key_info;

/* Members usually come in the same order on every line: the key seen at
 * member position j of the last line is tried first at position j. */
enum { PREDICT = 64 };

typedef struct span {
    const uint8_t *data;
    size_t len;
} span;

struct ndjson_reader {
    inlay_allocator alloc;
    ndjson_read_fn read;
    void *ctx;
    bool strict;
    ndjson_other_fn other;
    void *other_ctx;
    bool eof;
    bool scratch_ready;   /* scratch holds room for the current line's strings */
    int fatal;            /* sticky INLAY_ERR_IO / INLAY_ERR_NOMEM, else 0 */

    size_t nkeys;
    key_info *keys;
    int32_t expect[PREDICT];   /* key index at member position j of the last line, or -1 */
    key_slot *slots;      /* open addressing, linear probing, load <= 1/4 */
    size_t mask;

    uint8_t *data;        /* cap + PAD bytes */
    size_t cap, fill, pos, scan;
    buf scratch;          /* unescaped strings of the current line */

    const uint8_t *line;  /* the current line, NUL at line[line_len] */
    size_t line_len;
    uint64_t lineno, last_line, error_line, bytes_read;
    inl_err err;
};

/* ---- errors ------------------------------------------------------------------------------ */

/* Printable text for a key or byte in a message: at most 64 bytes, others as \xNN. */
static void quote_bytes(char *dst, size_t cap, const uint8_t *p, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 8 < cap; i++) {
        if (i == 64) { k += (size_t)snprintf(dst + k, cap - k, "..."); break; }
        if (p[i] >= 0x20 && p[i] < 0x7F && p[i] != '\'') dst[k++] = (char)p[i];
        else k += (size_t)snprintf(dst + k, cap - k, "\\x%02x", p[i]);
    }
    dst[k] = 0;
}

/* Record a problem of the current line at byte `at`; returns NULL so the
 * parser can `return bad(...)`. */
INL_COLD INL_PRINTF(3, 4) static const uint8_t *bad(ndjson_reader *r, const uint8_t *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    inl_err_vset(&r->err, INLAY_ERR_VALUE, fmt, ap);
    va_end(ap);
    inl_err_append(&r->err, " at byte %zu", (size_t)(at - r->line) + 1);
    return NULL;
}

/* A failure that stops the reader: every later call returns it. */
#define fatal(r, ...) ((r)->fatal = inl_err_set(&(r)->err, __VA_ARGS__))

/* ---- the wanted keys ------------------------------------------------------------------------ */

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint64_t load32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Two words that hold every byte of a key of up to 16 bytes (overlapping
 * loads; for n < 4, first, middle and last byte), and mix in the rest of a
 * longer one. Reads only p[0, n): keys unescaped into scratch have no
 * padding after them. */
static inline void key_words(const uint8_t *p, size_t n, uint64_t *a, uint64_t *b)
{
    if (INLAY_LIKELY(n >= 4 && n <= 16)) {
        if (n >= 8) { *a = load64(p); *b = load64(p + n - 8); }
        else { *a = load32(p); *b = load32(p + n - 4); }
    } else if (n > 16) {
        uint64_t h = 0;
        for (size_t i = 0; i + 8 < n; i += 8) h = (h ^ load64(p + i)) * 0x9E3779B97F4A7C15ull;
        *a = h;
        *b = load64(p + n - 8);
    } else {
        *a = n ? (uint64_t)p[0] | (uint64_t)p[n / 2] << 8 | (uint64_t)p[n - 1] << 16 : 0;
        *b = 0;
    }
}

static inline size_t key_slot_of(uint64_t a, uint64_t b, size_t n)
{
    uint64_t h = (a ^ 0x243F6A8885A308D3ull) * 0xBF58476D1CE4E5B9ull;
    h ^= (b + n) * 0x94D049BB133111EBull;
    return (size_t)(h ^ (h >> 31));
}

/* The index of key p[0, n), or -1. */
static inline long key_find(const ndjson_reader *r, const uint8_t *p, size_t n)
{
    uint64_t a, b;
    key_words(p, n, &a, &b);
    for (size_t s = key_slot_of(a, b, n) & r->mask;; s = (s + 1) & r->mask) {
        const key_slot *k = &r->slots[s];
        if (!k->index1) return -1;
        if (k->a == a && k->b == b && k->len == n &&
            (n <= 16 || memcmp(r->keys[k->index1 - 1].text, p, n) == 0))
            return (long)k->index1 - 1;
    }
}

/* True if key i is at p, followed by its closing quote. */
static inline bool key_is_at(const ndjson_reader *r, size_t i, const uint8_t *p, const uint8_t *end)
{
    const key_info *k = &r->keys[i];
    const size_t n = k->len;
    if ((size_t)(end - p) <= n || p[n] != '"') return false;
    if (INLAY_LIKELY(n <= 16)) {
        uint64_t a, b;
        key_words(p, n, &a, &b);
        return a == k->a && b == k->b;
    }
    return memcmp(p, k->text, n) == 0;
}

static void key_insert(ndjson_reader *r, size_t i)
{
    key_info *ki = &r->keys[i];
    key_words((const uint8_t *)ki->text, ki->len, &ki->a, &ki->b);
    ki->plain = true;
    for (size_t k = 0; k < ki->len; k++) {
        const uint8_t c = (uint8_t)ki->text[k];
        ki->plain &= c >= 0x20 && c < 0x7F && c != '"' && c != '\\';
    }
    key_slot k = { .a = ki->a, .b = ki->b, .len = (uint32_t)ki->len, .index1 = (uint32_t)(i + 1) };
    size_t s = key_slot_of(k.a, k.b, k.len) & r->mask;
    while (r->slots[s].index1) s = (s + 1) & r->mask;
    r->slots[s] = k;
}

/* ---- strings ------------------------------------------------------------------------------ */

static inline bool is_digit(uint8_t c)
{
    return (unsigned)(c - '0') < 10;
}

/* The first byte at or after p that is '"', '\\', below 0x20 or above 0x7F.
 * The line's NUL sentinel guarantees one. */
static inline const uint8_t *scan_plain(const uint8_t *p)
{
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
    for (;;) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        /* signed compare: bytes >= 0x80 are negative, so "< 0x20" catches them too */
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
                                 _mm_cmplt_epi8(v, space));
        unsigned mask = (unsigned)_mm_movemask_epi8(m);
        if (mask) return p + __builtin_ctz(mask);
        p += 16;
    }
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* Each zero-byte test may also flag bytes above a true hit, never below,
     * so the lowest flagged byte is a real stop. */
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    for (;;) {
        uint64_t w = load64(p);
        uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
        uint64_t t = ((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w) | w;
        t &= high;
        if (t) return p + (__builtin_ctzll(t) >> 3);
        p += 8;
    }
#else
    while (*p != '"' && *p != '\\' && *p >= 0x20 && *p < 0x80) p++;
    return p;
#endif
}

/* The end of the UTF-8 sequence starting at p (p[0] >= 0x80), or NULL when
 * it is not valid (overlong, surrogate, past U+10FFFF, truncated). A NUL
 * sentinel stops the checks before they run off the line. */
static inline const uint8_t *utf8_char(const uint8_t *p)
{
    const uint8_t c = p[0];
    if (c < 0xC2) return NULL;
    if (c < 0xE0) return (p[1] & 0xC0) == 0x80 ? p + 2 : NULL;
    if (c < 0xF0) {
        const uint8_t lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
        if (p[1] < lo || p[1] > hi || (p[2] & 0xC0) != 0x80) return NULL;
        return p + 3;
    }
    if (c < 0xF5) {
        const uint8_t lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
        if (p[1] < lo || p[1] > hi || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80) return NULL;
        return p + 4;
    }
    return NULL;
}

/* p stopped on a byte that cannot continue the string (not '"' or '\\'). */
static const uint8_t *string_stop(ndjson_reader *r, const uint8_t *p)
{
    if (*p >= 0x80) return bad(r, p, "invalid UTF-8 in a string");
    if (p == r->line + r->line_len) return bad(r, p, "unterminated string");
    return bad(r, p, "raw control character 0x%02x in a string", *p);
}

/* Skip valid UTF-8 and plain ASCII from p: the next '"', '\\' or bad byte. */
static inline const uint8_t *scan_text(const uint8_t *p)
{
    for (;;) {
        p = scan_plain(p);
        if (INLAY_LIKELY(*p < 0x80)) return p;
        const uint8_t *n = utf8_char(p);
        if (!n) return p;
        p = n;
    }
}

static inline int32_t hex_digit(uint8_t c)
{
    if (is_digit(c)) return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The value of 4 hex digits at p, or -1. Stops at the first non-digit, so
 * it never reads past the line's sentinel. */
static int32_t hex4(const uint8_t *p)
{
    int32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int32_t d = hex_digit(p[i]);
        if (d < 0) return -1;
        v = v << 4 | d;
    }
    return v;
}

static inline uint8_t *put_utf8(uint8_t *o, uint32_t cp)
{
    if (cp < 0x80) { *o++ = (uint8_t)cp; }
    else if (cp < 0x800) { *o++ = (uint8_t)(0xC0 | cp >> 6); *o++ = (uint8_t)(0x80 | (cp & 0x3F)); }
    else if (cp < 0x10000) {
        *o++ = (uint8_t)(0xE0 | cp >> 12); *o++ = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
        *o++ = (uint8_t)(0x80 | (cp & 0x3F));
    } else {
        *o++ = (uint8_t)(0xF0 | cp >> 18); *o++ = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
        *o++ = (uint8_t)(0x80 | (cp >> 6 & 0x3F)); *o++ = (uint8_t)(0x80 | (cp & 0x3F));
    }
    return o;
}

/* Room for every string of the line: unescaping never lengthens a string
 * and strings do not overlap, so one reservation covers them all and
 * nothing handed out earlier in the line moves. */
static int scratch_reserve(ndjson_reader *r)
{
    if (r->scratch_ready) return 0;
    if (inl_buf_grow(&r->scratch, &r->alloc, r->line_len))
        return fatal(r, INLAY_ERR_NOMEM, "out of memory for a line of %zu bytes", r->line_len);
    r->scratch_ready = true;
    return 0;
}

/* The rest of a string from its first backslash at p (start: after the
 * opening quote). With keep, the unescaped string goes to scratch and *s;
 * otherwise it is only checked. */
static const uint8_t *string_escaped(ndjson_reader *r, const uint8_t *start, const uint8_t *p, span *s,
                                     bool keep)
{
    uint8_t *o0 = NULL, *o = NULL;
    if (keep) {
        if (scratch_reserve(r)) return NULL;
        o0 = o = r->scratch.data + r->scratch.len;
        memcpy(o, start, (size_t)(p - start));
        o += p - start;
    }
    for (;;) {
        /* *p == '\\' */
        const uint8_t *esc = p;
        uint8_t ch;
        switch (p[1]) {
        case '"': ch = '"'; break;
        case '\\': ch = '\\'; break;
        case '/': ch = '/'; break;
        case 'b': ch = '\b'; break;
        case 'f': ch = '\f'; break;
        case 'n': ch = '\n'; break;
        case 'r': ch = '\r'; break;
        case 't': ch = '\t'; break;
        case 'u': {
            int32_t u = hex4(p + 2);
            if (u < 0) return bad(r, esc, "invalid \\u escape");
            uint32_t cp = (uint32_t)u;
            p += 6;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                int32_t lo = p[0] == '\\' && p[1] == 'u' ? hex4(p + 2) : -1;
                if (lo < 0xDC00 || lo > 0xDFFF) return bad(r, esc, "lone surrogate \\u%04x", (unsigned)cp);
                cp = 0x10000 + ((cp - 0xD800) << 10) + ((uint32_t)lo - 0xDC00);
                p += 6;
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return bad(r, esc, "lone surrogate \\u%04x", (unsigned)cp);
            }
            if (o) o = put_utf8(o, cp);
            goto text;
        }
        default:
            if (p + 1 == r->line + r->line_len) return bad(r, p + 1, "unterminated string");
            if (p[1] >= 0x20 && p[1] < 0x7F) return bad(r, esc, "invalid escape '\\%c'", p[1]);
            return bad(r, esc, "invalid escape '\\' followed by 0x%02x", p[1]);
        }
        if (o) *o++ = ch;
        p += 2;
    text:;
        const uint8_t *seg = p;
        p = scan_text(p);
        if (o) {
            memcpy(o, seg, (size_t)(p - seg));
            o += p - seg;
        }
        if (*p == '"') break;
        if (*p != '\\') return string_stop(r, p);
    }
    if (keep) {
        s->data = o0;
        s->len = (size_t)(o - o0);
        r->scratch.len += s->len;
    }
    return p + 1;
}

/* The string whose body starts at p (after the quote): *s points into the
 * line when it has no escapes. Returns the byte after the closing quote. */
static inline const uint8_t *string_at(ndjson_reader *r, const uint8_t *p, span *s, bool keep)
{
    const uint8_t *start = p;
    p = scan_text(p);
    if (INLAY_LIKELY(*p == '"')) {
        s->data = start;
        s->len = (size_t)(p - start);
        return p + 1;
    }
    if (*p == '\\') return string_escaped(r, start, p, s, keep);
    return string_stop(r, p);
}

/* ---- scalars and nested values ---------------------------------------------------------------- */

static inline const uint8_t *skip_ws(const uint8_t *p)
{
    while (INLAY_UNLIKELY(*p <= ' ') && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
    return p;
}

/* Past a run of digits, 8 bytes at a time: a byte is a digit when its high
 * nibble is 3 and adding 6 keeps it so. A carry out of a non-digit byte
 * only disturbs the bytes after it, so the lowest flagged byte is right. */
static inline const uint8_t *skip_digits(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t nib = 0xF0F0F0F0F0F0F0F0ull, three = 0x3030303030303030ull, six = 0x0606060606060606ull;
    for (;;) {
        uint64_t w = load64(p);
        uint64_t t = ((w & nib) ^ three) | (((w + six) & nib) ^ three);
        if (t) return p + (__builtin_ctzll(t) >> 3);
        p += 8;
    }
#else
    while (is_digit(*p)) p++;
    return p;
#endif
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static const uint8_t *number_at(ndjson_reader *r, const uint8_t *p)
{
    const uint8_t *start = p;
    if (*p == '-') p++;
    if (*p == '0') {
        p++;
        if (is_digit(*p)) return bad(r, start, "invalid number (leading zero)");
    } else if (is_digit(*p)) {
        p = skip_digits(p + 1);
    } else {
        return bad(r, start, "invalid number");
    }
    if (*p == '.') {
        p++;
        if (!is_digit(*p)) return bad(r, start, "invalid number (no digit after '.')");
        p = skip_digits(p + 1);
    }
    if ((*p | 0x20) == 'e') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!is_digit(*p)) return bad(r, start, "invalid number (no digit in the exponent)");
        do p++; while (is_digit(*p));
    }
    return p;
}

static const uint8_t *expected_value(ndjson_reader *r, const uint8_t *p)
{
    if (p == r->line + r->line_len) return bad(r, p, "unexpected end of line, expected a value");
    return bad(r, p, "expected a value");
}

/* A value that is not an object or array. With keep, strings go to
 * scratch when escaped; without, they are only checked. */
static inline const uint8_t *scalar_at(ndjson_reader *r, const uint8_t *p, ndjson_value *v, bool keep)
{
    span s;
    const uint8_t *start = p;
    switch (*p) {
    case '"':
        if (!(p = string_at(r, p + 1, &s, keep))) return NULL;
        v->kind = NDJSON_STRING;
        v->data = (const char *)s.data;
        v->len = s.len;
        return p;
    case 't':
        if (memcmp(p, "true", 4)) return bad(r, p, "invalid literal");
        v->kind = NDJSON_TRUE;
        p += 4;
        break;
    case 'f':
        if (memcmp(p, "false", 5)) return bad(r, p, "invalid literal");
        v->kind = NDJSON_FALSE;
        p += 5;
        break;
    case 'n':
        if (memcmp(p, "null", 4)) return bad(r, p, "invalid literal");
        v->kind = NDJSON_NULL;
        p += 4;
        break;
    case '-': case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8':
    case '9':
        p = number_at(r, p);
        v->kind = NDJSON_NUMBER;
        break;
    default:
        return expected_value(r, p);
    }
    if (p) {
        v->data = (const char *)start;
        v->len = (size_t)(p - start);
    }
    return p;
}

/* Check the object or array at p (depth: that of the object holding it)
 * and return the byte after it. Iterative, with the open brackets on a
 * small stack, so hostile nesting costs no C stack. */
static const uint8_t *nested_at(ndjson_reader *r, const uint8_t *p, int depth)
{
    uint8_t open[NDJSON_MAX_DEPTH];
    int top = 0;
    ndjson_value dummy;
    for (;;) {
        /* p is on an opening bracket */
        if (depth + top + 1 > NDJSON_MAX_DEPTH) return bad(r, p, "nesting deeper than %d", NDJSON_MAX_DEPTH);
        open[top++] = *p;
        p = skip_ws(p + 1);
        if (*p == open[top - 1] + 2) {   /* '{'+2 == '}', '['+2 == ']' */
            p++;
            goto closed;
        }
    member:
        if (open[top - 1] == '{') {
            span key;
            if (*p != '"') return bad(r, p, "expected a string key");
            if (!(p = string_at(r, p + 1, &key, false))) return NULL;
            p = skip_ws(p);
            if (*p != ':') return bad(r, p, "expected ':'");
            p = skip_ws(p + 1);
        }
        if (*p == '{' || *p == '[') continue;
        if (!(p = scalar_at(r, p, &dummy, false))) return NULL;
    after:
        p = skip_ws(p);
        if (*p == ',') {
            p = skip_ws(p + 1);
            goto member;
        }
        if (*p != open[top - 1] + 2)
            return bad(r, p, open[top - 1] == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
        p++;
    closed:
        if (--top == 0) return p;
        goto after;
    }
}

/* ---- one line ---------------------------------------------------------------------------------- */

static const uint8_t *member_value(ndjson_reader *r, const uint8_t *p, ndjson_value *v, bool keep)
{
    if (*p == '{' || *p == '[') {
        const uint8_t *end = nested_at(r, p, 1);
        if (end) {
            v->kind = *p == '{' ? NDJSON_OBJECT : NDJSON_ARRAY;
            v->data = (const char *)p;
            v->len = (size_t)(end - p);
        }
        return end;
    }
    return scalar_at(r, p, v, keep);
}

/* The object at p (first non-blank byte of the line). 0, or -1 with the
 * message set (or r->fatal). */
static int parse_object(ndjson_reader *r, const uint8_t *p, ndjson_value *values)
{
    const uint8_t *end = r->line + r->line_len;
    ndjson_value dummy;
    if (*p != '{') {
        bad(r, p, "expected a JSON object");
        return -1;
    }
    p = skip_ws(p + 1);
    if (*p != '}') {
        for (size_t j = 0;; j++) {
            const uint8_t *at = p;
            if (*p != '"') {
                bad(r, p, "expected a string key");
                return -1;
            }
            long i;
            span key = { NULL, 0 };
            if (INLAY_LIKELY(j < PREDICT) && (i = r->expect[j]) >= 0 && key_is_at(r, (size_t)i, p + 1, end)) {
                p += r->keys[i].len + 2;
            } else {
                if (!(p = string_at(r, p + 1, &key, true))) return -1;
                i = key_find(r, key.data, key.len);
                if (i < 0 && r->strict) {
                    char text[300];
                    quote_bytes(text, sizeof text, key.data, key.len);
                    bad(r, at, "unknown key '%s'", text);
                    return -1;
                }
                if (j < PREDICT) r->expect[j] = i >= 0 && r->keys[i].plain ? (int32_t)i : -1;
            }
            /* whitespace is rare in generated NDJSON: test for the expected byte first */
            if (INLAY_UNLIKELY(*p != ':')) {
                p = skip_ws(p);
                if (*p != ':') {
                    bad(r, p, "expected ':'");
                    return -1;
                }
            }
            p = skip_ws(p + 1);
            const bool other = i < 0 && r->other;
            if (!(p = member_value(r, p, i >= 0 ? &values[i] : &dummy, i >= 0 || other))) return -1;
            if (other) r->other(r->other_ctx, (const char *)key.data, key.len, &dummy);
            if (INLAY_UNLIKELY(*p != ',')) p = skip_ws(p);
            if (*p == ',') {
                p = skip_ws(p + 1);
                continue;
            }
            if (*p == '}') break;
            bad(r, p, p == end ? "unexpected end of line, expected ',' or '}'" : "expected ',' or '}'");
            return -1;
        }
    }
    p = skip_ws(p + 1);
    if (p != end) {
        bad(r, p, "unexpected data after the object");
        return -1;
    }
    return 0;
}

/* ---- input ------------------------------------------------------------------------------------- */

/* Make room and read once more: compacts the unconsumed tail to the front,
 * doubles the buffer when a line fills it. Returns 0 or a fatal status. */
static int fill(ndjson_reader *r)
{
    if (r->pos) {
        memmove(r->data, r->data + r->pos, r->fill - r->pos);
        r->fill -= r->pos;
        r->scan -= r->pos;
        r->pos = 0;
    }
    if (r->fill == r->cap) {
        if (r->cap > (SIZE_MAX - PAD) / 2)
            return fatal(r, INLAY_ERR_NOMEM, "line %llu is too long", (unsigned long long)r->lineno + 1);
        size_t cap = r->cap * 2;
        uint8_t *d = inl_mem_realloc(&r->alloc, r->data, r->cap + PAD, cap + PAD);
        if (!d)
            return fatal(r, INLAY_ERR_NOMEM, "out of memory growing the line buffer to %zu bytes for line %llu",
                         cap, (unsigned long long)r->lineno + 1);
        r->data = d;
        r->cap = cap;
    }
    const size_t room = r->cap - r->fill;
    ptrdiff_t n = r->read(r->ctx, r->data + r->fill, room);
    if (n < 0) return fatal(r, INLAY_ERR_IO, "read error after %llu bytes", (unsigned long long)r->bytes_read);
    if ((size_t)n > room)
        return fatal(r, INLAY_ERR_IO, "the read callback returned %td bytes for %zu asked", n, room);
    if (n == 0) r->eof = true;
    r->fill += (size_t)n;
    r->bytes_read += (uint64_t)n;
    /* the scanners' reads past a sentinel near the end then see defined bytes */
    memset(r->data + r->fill, 0, 16);
    return 0;
}

/* The next line into r->line (terminator and BOM removed, NUL-terminated).
 * Returns 1, 0 at end of input, or a fatal status. */
static int next_line(ndjson_reader *r)
{
    size_t nl, next;
    r->line = NULL;   /* fill() may move the buffer */
    r->line_len = 0;
    for (;;) {
        const uint8_t *hit = r->scan < r->fill ? memchr(r->data + r->scan, '\n', r->fill - r->scan) : NULL;
        if (hit) {
            nl = (size_t)(hit - r->data);
            next = nl + 1;
            break;
        }
        r->scan = r->fill;
        if (r->eof) {
            if (r->pos == r->fill) return 0;
            nl = next = r->fill;   /* a last line without terminator */
            break;
        }
        INL_FORWARD(fill(r));
    }
    size_t start = r->pos;
    r->pos = r->scan = next;
    r->lineno++;
    if (nl > start && r->data[nl - 1] == '\r') nl--;
    if (r->lineno == 1 && nl - start >= 3 && memcmp(r->data + start, "\xEF\xBB\xBF", 3) == 0) start += 3;
    r->data[nl] = 0;
    r->line = r->data + start;
    r->line_len = nl - start;
    return 1;
}

int inl_ndjson_next(ndjson_reader *r, ndjson_value *values)
{
    if (r->fatal) return r->fatal;
    r->err.msg[0] = 0;
    for (;;) {
        int rc = next_line(r);
        if (rc <= 0) return rc;
        const uint8_t *p = skip_ws(r->line);
        if (p == r->line + r->line_len) continue;   /* blank */
        r->scratch.len = 0;
        r->scratch_ready = false;
        for (size_t i = 0; i < r->nkeys; i++) {
            values[i].kind = NDJSON_ABSENT;
            values[i].data = NULL;
            values[i].len = 0;
        }
        if (INLAY_UNLIKELY(parse_object(r, p, values))) {
            if (r->fatal) return r->fatal;
            r->error_line = r->lineno;
            return -1;
        }
        r->last_line = r->lineno;
        return 1;
    }
}

/* ---- open and close ------------------------------------------------------------------------------ */

int inl_ndjson_open(ndjson_reader **out, ndjson_read_fn fn, void *ctx, const char *const *keys, size_t nkeys,
                const ndjson_options *o, const inlay_allocator *a, char *err, size_t errcap)
{
    if (err && errcap) err[0] = 0;
    if (!out) return inl_err_format(err, errcap, INLAY_ERR_ARGUMENT, "no output pointer");
    *out = NULL;
    if (!fn) return inl_err_format(err, errcap, INLAY_ERR_ARGUMENT, "no read callback");
    if (nkeys && !keys) return inl_err_format(err, errcap, INLAY_ERR_ARGUMENT, "no keys");
    if (nkeys > UINT32_MAX / 8) return inl_err_format(err, errcap, INLAY_ERR_ARGUMENT, "too many keys");
    for (size_t i = 0; i < nkeys; i++)
        if (!keys[i] || strlen(keys[i]) > UINT32_MAX)
            return inl_err_format(err, errcap, INLAY_ERR_ARGUMENT, "key %zu is %s", i, keys[i] ? "too long" : "NULL");

    inlay_allocator al = inl_mem_or_default(a);
    ndjson_reader *r = inl_mem_alloc(&al, sizeof *r);
    if (!r) return inl_err_format(err, errcap, INLAY_ERR_NOMEM, "out of memory");
    memset(r, 0, sizeof *r);
    r->alloc = al;
    r->read = fn;
    r->ctx = ctx;
    r->strict = o && o->strict;
    r->other = o && !o->strict ? o->other : NULL;
    r->other_ctx = o ? o->other_ctx : NULL;
    r->nkeys = nkeys;

    size_t slots = 8;
    while (slots < nkeys * 4) slots *= 2;
    r->mask = slots - 1;
    r->cap = NDJSON_INITIAL_BUFFER;
    if (nkeys) {
        r->keys = inl_mem_alloc(&al, nkeys * sizeof *r->keys);
        if (r->keys) memset(r->keys, 0, nkeys * sizeof *r->keys);
    }
    r->slots = inl_mem_alloc(&al, slots * sizeof *r->slots);
    r->data = inl_mem_alloc(&al, r->cap + PAD);
    if ((nkeys && !r->keys) || !r->slots || !r->data) goto nomem;
    memset(r->expect, 0xFF, sizeof r->expect);
    memset(r->slots, 0, slots * sizeof *r->slots);
    for (size_t i = 0; i < nkeys; i++) {
        if (!(r->keys[i].text = inl_mem_strdup(&al, keys[i]))) goto nomem;
        r->keys[i].len = strlen(keys[i]);
        if (key_find(r, (const uint8_t *)keys[i], r->keys[i].len) >= 0) {
            char text[300];
            quote_bytes(text, sizeof text, (const uint8_t *)keys[i], r->keys[i].len);
            inl_ndjson_close(r);
            return inl_err_format(err, errcap, INLAY_ERR_ARGUMENT, "key '%s' is given twice", text);
        }
        key_insert(r, i);
    }
    *out = r;
    return 0;

nomem:
    inl_ndjson_close(r);
    return inl_err_format(err, errcap, INLAY_ERR_NOMEM, "out of memory");
}

void inl_ndjson_close(ndjson_reader *r)
{
    if (!r) return;
    inlay_allocator al = r->alloc;
    if (r->keys)
        for (size_t i = 0; i < r->nkeys; i++) inl_mem_strfree(&al, r->keys[i].text);
    inl_mem_free(&al, r->keys, r->nkeys * sizeof *r->keys);
    inl_mem_free(&al, r->slots, (r->mask + 1) * sizeof *r->slots);
    inl_mem_free(&al, r->data, r->cap + PAD);
    inl_buf_free(&r->scratch, &al);
    inl_mem_free(&al, r, sizeof *r);
}

/* ---- queries ------------------------------------------------------------------------------------- */

uint64_t inl_ndjson_line(const ndjson_reader *r)
{
    return r->last_line;
}

uint64_t inl_ndjson_error_line(const ndjson_reader *r)
{
    return r->error_line;
}

const char *inl_ndjson_errmsg(const ndjson_reader *r)
{
    return r->err.msg;
}

const char *inl_ndjson_raw_line(const ndjson_reader *r, size_t *len)
{
    if (len) *len = r->line ? r->line_len : 0;
    return (const char *)r->line;
}

uint64_t inl_ndjson_bytes_read(const ndjson_reader *r)
{
    return r->bytes_read;
}

uint64_t inl_ndjson_bytes_consumed(const ndjson_reader *r)
{
    return r->bytes_read - (r->fill - r->pos);
}
