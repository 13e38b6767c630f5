/*
 * sbuf.h — a growable string and the JSON pieces the fixture writers and
 * read_dump print expectations and values with. Running out of memory ends
 * the program: these are test tools.
 */
#ifndef INLAY_INTEROP_SBUF_H
#define INLAY_INTEROP_SBUF_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

static inline void sb_reserve(sbuf *s, size_t more)
{
    if (s->len + more + 1 <= s->cap)
        return;
    size_t cap = s->cap ? s->cap : 4096;
    while (cap < s->len + more + 1)
        cap *= 2;
    char *p = realloc(s->p, cap);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    s->p = p;
    s->cap = cap;
}

static inline void sb_putn(sbuf *s, const char *str, size_t n)
{
    sb_reserve(s, n);
    memcpy(s->p + s->len, str, n);
    s->len += n;
    s->p[s->len] = 0;
}

static inline void sb_puts(sbuf *s, const char *str) { sb_putn(s, str, strlen(str)); }

__attribute__((format(printf, 2, 3))) static inline void sb_printf(sbuf *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        fprintf(stderr, "vsnprintf failed\n");
        exit(1);
    }
    sb_reserve(s, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(s->p + s->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    s->len += (size_t)n;
}

static inline void sb_free(sbuf *s)
{
    free(s->p);
    memset(s, 0, sizeof *s);
}

/* A JSON string literal of bytes: " and \ escaped, control characters and
 * DEL as \u00XX, everything else as it is (the caller keeps it UTF-8). */
static inline void sb_json_str(sbuf *s, const unsigned char *p, size_t n)
{
    sb_reserve(s, n + 2);
    sb_putn(s, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            sb_putn(s, e, 2);
        } else if (c < 0x20 || c == 0x7f) {
            sb_printf(s, "\\u%04x", c);
        } else {
            sb_putn(s, (const char *)&c, 1);
        }
    }
    sb_putn(s, "\"", 1);
}

/* Bytes as a JSON string of lowercase hex digits. */
static inline void sb_hex(sbuf *s, const unsigned char *p, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    sb_reserve(s, 2 * n + 2);
    s->p[s->len++] = '"';
    for (size_t i = 0; i < n; i++) {
        s->p[s->len++] = hx[p[i] >> 4];
        s->p[s->len++] = hx[p[i] & 15];
    }
    s->p[s->len++] = '"';
    s->p[s->len] = 0;
}

#endif
