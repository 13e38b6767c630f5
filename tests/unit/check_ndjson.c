/*
 * check_ndjson.c — the NDJSON tokenizer (runtime/input/ndjson.c): every value
 * kind, escapes, nested values kept raw, wanted/unknown/repeated/absent
 * keys, line structure (blank lines, CRLF, BOM, last line), lines longer
 * than the buffer, reads of any size giving the same result, every error
 * and going on after it, depth, UTF-8, and allocation failures.
 */
#define _POSIX_C_SOURCE 200809L
#include "ndjson.h"

#include <stdarg.h>

#include "unit.h"

/* ---- input from memory --------------------------------------------------------------------- */

/* Hands out data in reads of at most `chunk` bytes (0 = as asked), of a
 * random size in 1..chunk when rng is set; `fail_call` = N makes read N fail. */
typedef struct mem_input {
    const char *data;
    size_t len, off;
    size_t chunk;
    uint64_t rng;
    unsigned long calls, fail_call, calls_after_eof;
    bool eof_seen;
    bool overflow;   /* return one byte more than asked */
} mem_input;

static ptrdiff_t mem_read(void *ctx, void *dst, size_t cap)
{
    mem_input *m = ctx;
    m->calls++;
    if (m->eof_seen) m->calls_after_eof++;
    if (m->fail_call && m->calls == m->fail_call) return -1;
    if (m->overflow) return (ptrdiff_t)cap + 1;
    size_t n = m->len - m->off;
    if (n > cap) n = cap;
    size_t lim = m->chunk;
    if (lim && m->rng) lim = 1 + (size_t)(rng_next(&m->rng) % m->chunk);
    if (lim && n > lim) n = lim;
    memcpy(dst, m->data + m->off, n);
    m->off += n;
    if (!n) m->eof_seen = true;
    return (ptrdiff_t)n;
}

static mem_input input_of(const char *s, size_t len)
{
    mem_input m = { .data = s, .len = len };
    return m;
}

/* A reader over mem with the given keys; fails the test if open fails. */
static ndjson_reader *open_on(mem_input *m, const char *const *keys, size_t nkeys, bool strict,
                              const inlay_allocator *a)
{
    ndjson_reader *r = NULL;
    ndjson_options o = { .strict = strict };
    char err[200];
    int rc = inl_ndjson_open(&r, mem_read, m, keys, nkeys, &o, a, err, sizeof err);
    ck_assert_msg(rc == 0 && r, "open: %d %s", rc, err);
    return r;
}

#define ck_assert_value(v, k, text)                                                 \
    do {                                                                            \
        const ndjson_value *ck_v_ = &(v);                                           \
        ck_assert_int_eq(ck_v_->kind, (k));                                         \
        ck_assert_bytes(ck_v_->data, ck_v_->len, (text), sizeof(text) - 1);         \
    } while (0)

#define ck_assert_absent(v)                                                         \
    do {                                                                            \
        ck_assert_int_eq((v).kind, NDJSON_ABSENT);                                  \
        ck_assert_ptr_null((v).data);                                               \
        ck_assert_uint_eq((v).len, 0);                                              \
    } while (0)

/* ---- transcripts: everything a run returns, as text ------------------------------------------ */

typedef struct text {
    char *p;
    size_t len, cap;
} text;

static void text_add(text *t, const void *p, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 1024;
        while (cap < t->len + n + 1) cap *= 2;
        t->p = realloc(t->p, cap);
        ck_assert_ptr_nonnull(t->p);
        t->cap = cap;
    }
    memcpy(t->p + t->len, p, n);
    t->len += n;
    t->p[t->len] = 0;
}

__attribute__((format(printf, 2, 3)))
static void text_printf(text *t, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    text_add(t, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void text_bytes(text *t, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c >= 0x20 && c < 0x7F && c != '\\') text_add(t, &c, 1);
        else text_printf(t, "\\%02x", c);
    }
}

static const char *const corpus_keys[] = { "id", "name", "v", "nested", "list", "" };
enum { CORPUS_KEYS = 6 };

/* Runs a reader over all of in and writes down every result. Returns the
 * final status (0 or a fatal one). */
static int transcript(mem_input *m, const char *const *keys, size_t nkeys, bool strict,
                      const inlay_allocator *a, text *t)
{
    ndjson_reader *r = open_on(m, keys, nkeys, strict, a);
    ndjson_value v[16];
    int rc;
    while ((rc = inl_ndjson_next(r, v)) != 0) {
        size_t rawlen;
        const char *raw = inl_ndjson_raw_line(r, &rawlen);
        if (rc == 1) {
            text_printf(t, "line %llu:", (unsigned long long)inl_ndjson_line(r));
            for (size_t i = 0; i < nkeys; i++) {
                text_printf(t, " %d[", v[i].kind);
                text_bytes(t, v[i].data, v[i].len);
                text_add(t, "]", 1);
            }
        } else if (rc == -1) {
            text_printf(t, "bad %llu: %s raw[", (unsigned long long)inl_ndjson_error_line(r), inl_ndjson_errmsg(r));
            text_bytes(t, raw, rawlen);
            text_add(t, "]", 1);
        } else {
            text_printf(t, "fatal %d: %s", rc, inl_ndjson_errmsg(r));
            break;
        }
        text_add(t, "\n", 1);
    }
    text_printf(t, "end, %llu bytes\n", (unsigned long long)inl_ndjson_bytes_read(r));
    ck_assert_uint_eq(m->calls_after_eof, 0);
    inl_ndjson_close(r);
    return rc;
}

/* ---- value kinds ------------------------------------------------------------------------------------ */

START_TEST(test_kinds)
{
    static const char in[] =
        "{\"n\":null,\"t\":true,\"f\":false,\"i\":-12,\"d\":3.25e-2,\"s\":\"hi there\","
        "\"o\":{\"x\":[1,{}]},\"a\":[true,null,\"z\"],\"e\":\"\"}\n";
    static const char *const keys[] = { "n", "t", "f", "i", "d", "s", "o", "a", "e" };
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, 9, false, &a);
    ndjson_value v[9];
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_value(v[0], NDJSON_NULL, "null");
    ck_assert_value(v[1], NDJSON_TRUE, "true");
    ck_assert_value(v[2], NDJSON_FALSE, "false");
    ck_assert_value(v[3], NDJSON_NUMBER, "-12");
    ck_assert_value(v[4], NDJSON_NUMBER, "3.25e-2");
    ck_assert_value(v[5], NDJSON_STRING, "hi there");
    ck_assert_value(v[6], NDJSON_OBJECT, "{\"x\":[1,{}]}");
    ck_assert_value(v[7], NDJSON_ARRAY, "[true,null,\"z\"]");
    ck_assert_value(v[8], NDJSON_STRING, "");
    ck_assert_uint_eq(inl_ndjson_line(r), 1);
    ck_assert_int_eq(inl_ndjson_next(r, v), 0);
    ck_assert_int_eq(inl_ndjson_next(r, v), 0);
    inl_ndjson_close(r);
}
END_TEST

START_TEST(test_numbers)
{
    static const char *const good[] = { "0", "-0", "7", "-123", "1.5", "-0.0", "0e0", "1E+9", "2e-07",
                                        "6.02214076e23", "123456789012345678901234567890.123456789",
                                        "-9223372036854775809" };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        char line[128];
        int n = snprintf(line, sizeof line, "{\"x\" : %s , \"y\":%s}", good[i], good[i]);
        mem_input m = input_of(line, (size_t)n);
        inlay_allocator a = inl_mem_default();
        static const char *const keys[] = { "x", "y" };
        ndjson_reader *r = open_on(&m, keys, 2, false, &a);
        ndjson_value v[2];
        ck_assert_msg(inl_ndjson_next(r, v) == 1, "%s: %s", good[i], inl_ndjson_errmsg(r));
        ck_assert_int_eq(v[0].kind, NDJSON_NUMBER);
        ck_assert_bytes(v[0].data, v[0].len, good[i], strlen(good[i]));
        ck_assert_bytes(v[1].data, v[1].len, good[i], strlen(good[i]));
        inl_ndjson_close(r);
    }
}
END_TEST

START_TEST(test_number_lengths)
{
    /* every length of digit run, in the integer part and the fraction,
     * ended by each byte that can follow a number */
    static const char *const tails[] = { "}", ",\"b\":0}", " }", "\t}", "e7}", "E-12}" };
    static const char *const keys[] = { "a" };
    inlay_allocator a = inl_mem_default();
    for (int frac = 0; frac < 2; frac++) {
        for (int n = 1; n <= 40; n++) {
            for (size_t t = 0; t < sizeof tails / sizeof *tails; t++) {
                char num[100], line[160];
                int k = 0;
                for (int i = 0; i < n; i++) num[k++] = (char)('1' + (i * 7) % 9);
                if (frac) {
                    num[k++] = '.';
                    for (int i = 0; i < n; i++) num[k++] = (char)('0' + (i * 3) % 10);
                }
                const char *tail = tails[t];
                size_t exp = tail[0] == 'e' || tail[0] == 'E' ? strcspn(tail, "}") : 0;
                memcpy(num + k, tail, exp);
                k += (int)exp;
                num[k] = 0;
                int len = snprintf(line, sizeof line, "{\"a\":%s%s", num, tail + exp);
                mem_input m = input_of(line, (size_t)len);
                ndjson_reader *r = open_on(&m, keys, 1, false, &a);
                ndjson_value v[1];
                ck_assert_msg(inl_ndjson_next(r, v) == 1, "%s: %s", line, inl_ndjson_errmsg(r));
                ck_assert_int_eq(v[0].kind, NDJSON_NUMBER);
                ck_assert_bytes(v[0].data, v[0].len, num, (size_t)k);
                inl_ndjson_close(r);
            }
        }
    }
}
END_TEST

START_TEST(test_literal_data)
{
    /* literals and numbers point at their text in the line */
    static const char in[] = "{\"a\":true,\"b\":12}";
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    static const char *const keys[] = { "a", "b" };
    ndjson_reader *r = open_on(&m, keys, 2, false, &a);
    ndjson_value v[2];
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    size_t len;
    const char *raw = inl_ndjson_raw_line(r, &len);
    ck_assert_ptr_eq(v[0].data, raw + 5);
    ck_assert_ptr_eq(v[1].data, raw + 14);
    inl_ndjson_close(r);
}
END_TEST

/* ---- escapes ------------------------------------------------------------------------------------------- */

START_TEST(test_escapes)
{
    static const char in[] =
        "{\"s\":\"a\\nb\\tc\\\"d\\\\e\\/f\\bg\\fh\\ri\","
        "\"u\":\"\\u0041\\u00e9\\u20AC\\ud83d\\ude00!\","
        "\"z\":\"x\\u0000y\","
        "\"m\":\"caf\xc3\xa9 \\u00e9 \xe2\x82\xac\\n\xf0\x9f\x98\x80\"}\n";
    static const char *const keys[] = { "s", "u", "z", "m" };
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, 4, false, &a);
    ndjson_value v[4];
    ck_assert_msg(inl_ndjson_next(r, v) == 1, "%s", inl_ndjson_errmsg(r));
    ck_assert_value(v[0], NDJSON_STRING, "a\nb\tc\"d\\e/f\bg\fh\ri");
    ck_assert_value(v[1], NDJSON_STRING, "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80!");
    ck_assert_value(v[2], NDJSON_STRING, "x\0y");
    ck_assert_value(v[3], NDJSON_STRING, "caf\xc3\xa9 \xc3\xa9 \xe2\x82\xac\n\xf0\x9f\x98\x80");
    /* every unescaped value is intact at the end of the line: none overwrote another */
    ck_assert_value(v[0], NDJSON_STRING, "a\nb\tc\"d\\e/f\bg\fh\ri");
    inl_ndjson_close(r);
}
END_TEST

START_TEST(test_escape_boundaries)
{
    /* escapes first, last, alone and back to back; the highest code points */
    static const char in[] =
        "{\"a\":\"\\n\",\"b\":\"\\\\\\\\\",\"c\":\"\\u007f\\u0080\\u07ff\\u0800\\uffff\","
        "\"d\":\"\\udbff\\udfff\",\"e\":\"\\\"x\",\"f\":\"x\\\"\"}";
    static const char *const keys[] = { "a", "b", "c", "d", "e", "f" };
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, 6, false, &a);
    ndjson_value v[6];
    ck_assert_msg(inl_ndjson_next(r, v) == 1, "%s", inl_ndjson_errmsg(r));
    ck_assert_value(v[0], NDJSON_STRING, "\n");
    ck_assert_value(v[1], NDJSON_STRING, "\\\\");
    ck_assert_value(v[2], NDJSON_STRING, "\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf");
    ck_assert_value(v[3], NDJSON_STRING, "\xf4\x8f\xbf\xbf");
    ck_assert_value(v[4], NDJSON_STRING, "\"x");
    ck_assert_value(v[5], NDJSON_STRING, "x\"");
    inl_ndjson_close(r);
}
END_TEST

START_TEST(test_zero_copy)
{
    /* a string with no escape points into the line; one with escapes does not */
    static const char in[] = "{\"a\":\"plain\",\"b\":\"esc\\n\"}\n";
    static const char *const keys[] = { "a", "b" };
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, 2, false, &a);
    ndjson_value v[2];
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    size_t len;
    const char *raw = inl_ndjson_raw_line(r, &len);
    ck_assert_ptr_eq(v[0].data, raw + 6);
    ck_assert(v[1].data < raw || v[1].data >= raw + len);
    ck_assert_value(v[1], NDJSON_STRING, "esc\n");
    /* the raw line is untouched by unescaping */
    ck_assert_bytes(raw, len, in, sizeof in - 2);
    inl_ndjson_close(r);
}
END_TEST

/* ---- nested values ---------------------------------------------------------------------------------- */

START_TEST(test_nested)
{
    static const char in[] =
        "{\"o\": { \"k\" : [ 1 , -2.5e3 , \"s\\\"}]\" , { } , [ ] , null ] , \"k2\":{\"\":true} } ,"
        "\"a\":[[[]],[{\"x\":\"\\ud83d\\ude00\"}]], \"e\":{}, \"ea\":[]}";
    static const char *const keys[] = { "o", "a", "e", "ea" };
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, 4, false, &a);
    ndjson_value v[4];
    ck_assert_msg(inl_ndjson_next(r, v) == 1, "%s", inl_ndjson_errmsg(r));
    ck_assert_value(v[0], NDJSON_OBJECT,
                    "{ \"k\" : [ 1 , -2.5e3 , \"s\\\"}]\" , { } , [ ] , null ] , \"k2\":{\"\":true} }");
    ck_assert_value(v[1], NDJSON_ARRAY, "[[[]],[{\"x\":\"\\ud83d\\ude00\"}]]");
    ck_assert_value(v[2], NDJSON_OBJECT, "{}");
    ck_assert_value(v[3], NDJSON_ARRAY, "[]");
    inl_ndjson_close(r);
}
END_TEST

/* ---- keys: unknown, repeated, absent, escaped ------------------------------------------------------ */

START_TEST(test_unknown_skipped)
{
    static const char in[] =
        "{\"skip\":{\"deep\":[1,2,{\"x\":\"\\u00e9\"}]},\"id\":5,\"more\":\"a\\tb\",\"t\":[true]}\n";
    static const char *const keys[] = { "id" };
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, 1, false, &a);
    ndjson_value v[1];
    ck_assert_msg(inl_ndjson_next(r, v) == 1, "%s", inl_ndjson_errmsg(r));
    ck_assert_value(v[0], NDJSON_NUMBER, "5");
    ck_assert_int_eq(inl_ndjson_next(r, v), 0);
    inl_ndjson_close(r);
}
END_TEST

/* The `other` hook sees every member whose key is not wanted: key and
 * string value unescaped, nested values as their text. */
typedef struct seen_members {
    char text[512];
    size_t len;
} seen_members;

static void note_member(void *ctx, const char *key, size_t klen, const ndjson_value *v)
{
    seen_members *m = ctx;
    m->len += (size_t)snprintf(m->text + m->len, sizeof m->text - m->len, "%.*s=%d:%.*s;", (int)klen, key,
                               (int)v->kind, (int)v->len, v->data);
}

START_TEST(test_unknown_reported)
{
    static const char in[] = "{\"sk\\u00efp\":{\"a\":[1]},\"id\":5,\"more\":\"a\\tb\",\"n\":null,\"f\":-1.5e3}\n";
    static const char *const keys[] = { "id" };
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    seen_members seen = { .len = 0 };
    ndjson_options o = { .other = note_member, .other_ctx = &seen };
    ndjson_reader *r = NULL;
    char err[200];
    ck_assert_int_eq(inl_ndjson_open(&r, mem_read, &m, keys, 1, &o, &a, err, sizeof err), 0);
    ndjson_value v[1];
    ck_assert_msg(inl_ndjson_next(r, v) == 1, "%s", inl_ndjson_errmsg(r));
    ck_assert_value(v[0], NDJSON_NUMBER, "5");
    char want[256];
    snprintf(want, sizeof want, "sk\xc3\xafp=%d:{\"a\":[1]};more=%d:a\tb;n=%d:null;f=%d:-1.5e3;", NDJSON_OBJECT,
             NDJSON_STRING, NDJSON_NULL, NDJSON_NUMBER);
    ck_assert_str_eq(seen.text, want);
    inl_ndjson_close(r);
}
END_TEST

START_TEST(test_unknown_validated)
{
    /* a value under an unknown key is still checked */
    static const char in[] = "{\"x\":\"\\q\",\"id\":1}\n{\"x\":[1,,2],\"id\":2}\n{\"x\":\"\xff\",\"id\":3}\n"
                             "{\"x\":01,\"id\":4}\n{\"x\":\"\\ud800\",\"id\":5}\n{\"x\":tru,\"id\":6}\n{\"id\":7}\n";
    static const char *const keys[] = { "id" };
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, 1, false, &a);
    ndjson_value v[1];
    for (uint64_t line = 1; line <= 6; line++) {
        ck_assert_int_eq(inl_ndjson_next(r, v), -1);
        ck_assert_uint_eq(inl_ndjson_error_line(r), line);
    }
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_value(v[0], NDJSON_NUMBER, "7");
    ck_assert_uint_eq(inl_ndjson_line(r), 7);
    inl_ndjson_close(r);
}
END_TEST

START_TEST(test_strict)
{
    static const char in[] = "{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"foo\":3}\n{\"na\\u006de\":\"b\"}\n"
                             "{\"id\":3,\"id\":4}\n";
    static const char *const keys[] = { "id", "name" };
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, 2, true, &a);
    ndjson_value v[2];
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_int_eq(inl_ndjson_next(r, v), -1);
    ck_assert_str_eq(inl_ndjson_errmsg(r), "unknown key 'foo' at byte 9");
    ck_assert_uint_eq(inl_ndjson_error_line(r), 2);
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);   /* an escaped wanted key is known */
    ck_assert_value(v[1], NDJSON_STRING, "b");
    ck_assert_absent(v[0]);
    ck_assert_uint_eq(inl_ndjson_line(r), 3);
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);   /* a repeat is not unknown */
    ck_assert_value(v[0], NDJSON_NUMBER, "4");
    ck_assert_int_eq(inl_ndjson_next(r, v), 0);
    inl_ndjson_close(r);

    /* the same input without strict: the unknown key is ignored */
    m = input_of(in, sizeof in - 1);
    r = open_on(&m, keys, 2, false, &a);
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_value(v[0], NDJSON_NUMBER, "2");
    ck_assert_absent(v[1]);
    inl_ndjson_close(r);
}
END_TEST

START_TEST(test_strict_message_escapes)
{
    /* an unknown key is shown unescaped, non-printable bytes as \xNN */
    static const char in[] = "{\"a\\u0000\\n\xc3\xa9\":1}";
    static const char *const keys[] = { "a" };
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, 1, true, &a);
    ndjson_value v[1];
    ck_assert_int_eq(inl_ndjson_next(r, v), -1);
    ck_assert_str_eq(inl_ndjson_errmsg(r), "unknown key 'a\\x00\\x0a\\xc3\\xa9' at byte 2");
    inl_ndjson_close(r);
}
END_TEST

START_TEST(test_duplicates)
{
    static const char in[] = "{\"a\":1,\"b\":\"x\",\"a\":\"two\\n\",\"b\":[2],\"\\u0061\":{\"three\":3}}\n";
    static const char *const keys[] = { "a", "b" };
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, 2, false, &a);
    ndjson_value v[2];
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_value(v[0], NDJSON_OBJECT, "{\"three\":3}");
    ck_assert_value(v[1], NDJSON_ARRAY, "[2]");
    inl_ndjson_close(r);
}
END_TEST

START_TEST(test_absent)
{
    static const char in[] = "{\"b\":1}\n{}\n{ }\n{\"a\":null}\n";
    static const char *const keys[] = { "a", "b" };
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, 2, false, &a);
    ndjson_value v[2];
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_absent(v[0]);
    ck_assert_value(v[1], NDJSON_NUMBER, "1");
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);   /* a value from the line before does not linger */
    ck_assert_absent(v[0]);
    ck_assert_absent(v[1]);
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_absent(v[1]);
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_value(v[0], NDJSON_NULL, "null");   /* null is not absent */
    ck_assert_absent(v[1]);
    ck_assert_int_eq(inl_ndjson_next(r, v), 0);
    inl_ndjson_close(r);
}
END_TEST

START_TEST(test_key_matching)
{
    /* exact bytes after unescaping: no prefix, case or NUL-truncated matches */
    static const char in[] = "{\"i\":1,\"idx\":2,\"ID\":3,\"id\\u0000\":4,\"q\\\"k\":5,\"\":6,\"\\u00e9t\\u00e9\":7,"
                             "\"\\u0069\\u0064\":8}\n";
    static const char *const keys[] = { "id", "q\"k", "", "\xc3\xa9t\xc3\xa9" };
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, 4, false, &a);
    ndjson_value v[4];
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_value(v[0], NDJSON_NUMBER, "8");
    ck_assert_value(v[1], NDJSON_NUMBER, "5");
    ck_assert_value(v[2], NDJSON_NUMBER, "6");
    ck_assert_value(v[3], NDJSON_NUMBER, "7");
    inl_ndjson_close(r);
}
END_TEST

START_TEST(test_key_order)
{
    /* members in a different order on each line, keys that extend or are
     * escaped forms of the key seen at the same place on the line before */
    static const char in[] =
        "{\"id\":1,\"a_key_longer_than_16\":2,\"x\":3}\n"
        "{\"a_key_longer_than_16\":4,\"id\":5,\"x\":6}\n"
        "{\"idx\":7,\"a_key_longer_than_16_\":8,\"x\":9}\n"
        "{\"i\\u0064\":10,\"a_key_longer_than_1\":11,\"\\u0078\":12}\n"
        "{\"id\":13,\"a_key_longer_than_16\":14,\"x\":15}\n"
        "{\"x\":16,\"id\":17}\n"
        "{\"x\":18,\"id\":19,\"a_key_longer_than_16\":20}\n";
    static const char *const keys[] = { "id", "a_key_longer_than_16", "x" };
    static const char *const want[][3] = {
        { "1", "2", "3" }, { "5", "4", "6" }, { NULL, NULL, "9" }, { "10", NULL, "12" },
        { "13", "14", "15" }, { "17", NULL, "16" }, { "19", "20", "18" },
    };
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, 3, false, &a);
    ndjson_value v[3];
    for (size_t line = 0; line < 7; line++) {
        ck_assert_int_eq(inl_ndjson_next(r, v), 1);
        for (size_t k = 0; k < 3; k++) {
            if (!want[line][k]) {
                ck_assert_msg(v[k].kind == NDJSON_ABSENT, "line %zu key %zu", line + 1, k);
            } else {
                ck_assert_msg(v[k].kind == NDJSON_NUMBER && v[k].len == strlen(want[line][k]) &&
                              memcmp(v[k].data, want[line][k], v[k].len) == 0, "line %zu key %zu", line + 1, k);
            }
        }
    }
    ck_assert_int_eq(inl_ndjson_next(r, v), 0);
    inl_ndjson_close(r);
}
END_TEST

START_TEST(test_key_order_strict)
{
    /* a key that only looks like the one expected at its place is still unknown */
    static const char in[] = "{\"id\":1}\n{\"idx\":2}\n{\"id\":3}\n{\"i\":4}\n";
    static const char *const keys[] = { "id" };
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, 1, true, &a);
    ndjson_value v[1];
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_int_eq(inl_ndjson_next(r, v), -1);
    ck_assert_str_eq(inl_ndjson_errmsg(r), "unknown key 'idx' at byte 2");
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_value(v[0], NDJSON_NUMBER, "3");
    ck_assert_int_eq(inl_ndjson_next(r, v), -1);
    ck_assert_str_eq(inl_ndjson_errmsg(r), "unknown key 'i' at byte 2");
    inl_ndjson_close(r);
}
END_TEST

START_TEST(test_unpredictable_keys)
{
    /* wanted keys that are not plain ASCII must never be matched by their
     * raw bytes: the line's own escapes, UTF-8 and control bytes decide */
    static const char *const keys[] = { "a\"", "\x01", "\xff", "b\\" };
    static const char in[] = "{\"a\\\"\":1,\"\\u0001\":2,\"b\\\\\":3}\n"   /* all matched, escaped */
                             "{\"a\"\":1}\n"                 /* invalid JSON */
                             "{\"x\":0,\"\x01\":2}\n"          /* raw control byte */
                             "{\"x\":0,\"x\":0,\"b\\\":3}\n"   /* b\" is an unterminated key */
                             "{\"\xff\":1}\n";               /* invalid UTF-8 */
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, 4, false, &a);
    ndjson_value v[4];
    ck_assert_msg(inl_ndjson_next(r, v) == 1, "%s", inl_ndjson_errmsg(r));
    ck_assert_value(v[0], NDJSON_NUMBER, "1");
    ck_assert_value(v[1], NDJSON_NUMBER, "2");
    ck_assert_absent(v[2]);
    ck_assert_value(v[3], NDJSON_NUMBER, "3");
    ck_assert_int_eq(inl_ndjson_next(r, v), -1);
    ck_assert_str_eq(inl_ndjson_errmsg(r), "expected ':' at byte 5");
    ck_assert_int_eq(inl_ndjson_next(r, v), -1);
    ck_assert_str_eq(inl_ndjson_errmsg(r), "raw control character 0x01 in a string at byte 9");
    ck_assert_int_eq(inl_ndjson_next(r, v), -1);
    ck_assert_str_eq(inl_ndjson_errmsg(r), "unterminated string at byte 21");
    ck_assert_int_eq(inl_ndjson_next(r, v), -1);
    ck_assert_str_eq(inl_ndjson_errmsg(r), "invalid UTF-8 in a string at byte 3");
    inl_ndjson_close(r);
}
END_TEST

START_TEST(test_many_keys)
{
    /* a large table, keys that share long prefixes and suffixes, all found
     * at their own index whatever the order in the line */
    enum { N = 2000 };
    static char names[N][48];
    static const char *keys[N];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "a_shared_prefix_%d_and_a_shared_suffix", i);
        keys[i] = names[i];
    }
    text t = { 0 };
    text_add(&t, "{", 1);
    for (int i = N - 1; i >= 0; i--) text_printf(&t, "\"%s\":%d%s", names[i], i, i ? "," : "");
    static const char tail[] = ",\"a_shared_prefix_x_and_a_shared_suffix\":0,\"a\":1}";
    const size_t body = t.len;
    text_add(&t, tail, sizeof tail - 1);
    mem_input m = input_of(t.p, t.len);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, N, true, &a);
    static ndjson_value v[N];
    ck_assert_int_eq(inl_ndjson_next(r, v), -1);   /* the two last keys are unknown */
    char want[100];
    snprintf(want, sizeof want, "unknown key 'a_shared_prefix_x_and_a_shared_suffix' at byte %zu", body + 2);
    ck_assert_str_eq(inl_ndjson_errmsg(r), want);
    inl_ndjson_close(r);

    t.len = body;
    text_add(&t, "}", 1);
    m = input_of(t.p, t.len);
    r = open_on(&m, keys, N, true, &a);
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    bool ok = true;
    for (int i = 0; i < N; i++) {
        char digits[16];
        int n = snprintf(digits, sizeof digits, "%d", i);
        ok &= v[i].kind == NDJSON_NUMBER && v[i].len == (size_t)n && memcmp(v[i].data, digits, (size_t)n) == 0;
    }
    ck_assert(ok);
    inl_ndjson_close(r);
    free(t.p);
}
END_TEST

START_TEST(test_no_keys)
{
    /* no wanted keys: lines are still checked, values may be NULL */
    static const char in[] = "{\"a\":1}\n{\"a\":}\n{}\n";
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, NULL, 0, false, &a);
    ck_assert_int_eq(inl_ndjson_next(r, NULL), 1);
    ck_assert_int_eq(inl_ndjson_next(r, NULL), -1);
    ck_assert_int_eq(inl_ndjson_next(r, NULL), 1);
    ck_assert_int_eq(inl_ndjson_next(r, NULL), 0);
    inl_ndjson_close(r);
    m = input_of(in, sizeof in - 1);
    r = open_on(&m, NULL, 0, true, &a);
    ck_assert_int_eq(inl_ndjson_next(r, NULL), -1);
    ck_assert_str_eq(inl_ndjson_errmsg(r), "unknown key 'a' at byte 2");
    inl_ndjson_close(r);
}
END_TEST

/* ---- line structure ------------------------------------------------------------------------------ */

START_TEST(test_blank_lines)
{
    static const char in[] = "\n   \n\t\r\n{\"a\":1}\n\n \t \n{\"a\":2}\n\r\n";
    static const char *const keys[] = { "a" };
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, 1, false, &a);
    ndjson_value v[1];
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_uint_eq(inl_ndjson_line(r), 4);
    ck_assert_value(v[0], NDJSON_NUMBER, "1");
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_uint_eq(inl_ndjson_line(r), 7);
    ck_assert_value(v[0], NDJSON_NUMBER, "2");
    ck_assert_int_eq(inl_ndjson_next(r, v), 0);
    ck_assert_uint_eq(inl_ndjson_line(r), 7);
    inl_ndjson_close(r);

    /* nothing but blank lines, and nothing at all */
    static const char *const empty[] = { "", "\n", "\n\n  \n", "\r\n", "   " };
    for (size_t i = 0; i < 5; i++) {
        m = input_of(empty[i], strlen(empty[i]));
        r = open_on(&m, keys, 1, false, &a);
        ck_assert_int_eq(inl_ndjson_next(r, v), 0);
        ck_assert_uint_eq(inl_ndjson_line(r), 0);
        ck_assert_uint_eq(inl_ndjson_error_line(r), 0);
        inl_ndjson_close(r);
    }
}
END_TEST

START_TEST(test_crlf)
{
    static const char in[] = "{\"a\":\"x\"}\r\n{\"a\":2}  \r\n\r\n{\"a\" :\r3\r}\r\n";
    static const char *const keys[] = { "a" };
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, 1, false, &a);
    ndjson_value v[1];
    size_t len;
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_value(v[0], NDJSON_STRING, "x");
    const char *raw = inl_ndjson_raw_line(r, &len);
    ck_assert_bytes(raw, len, "{\"a\":\"x\"}", 9);
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_value(v[0], NDJSON_NUMBER, "2");
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);   /* a CR inside the line is whitespace */
    ck_assert_value(v[0], NDJSON_NUMBER, "3");
    ck_assert_uint_eq(inl_ndjson_line(r), 4);
    ck_assert_int_eq(inl_ndjson_next(r, v), 0);
    inl_ndjson_close(r);

    /* a CR inside a string is a control character */
    static const char in2[] = "{\"a\":\"x\ry\"}\r\n";
    m = input_of(in2, sizeof in2 - 1);
    r = open_on(&m, keys, 1, false, &a);
    ck_assert_int_eq(inl_ndjson_next(r, v), -1);
    ck_assert_str_eq(inl_ndjson_errmsg(r), "raw control character 0x0d in a string at byte 8");
    inl_ndjson_close(r);
}
END_TEST

START_TEST(test_bom)
{
    static const char in[] = "\xEF\xBB\xBF{\"a\":1}\n\xEF\xBB\xBF{\"a\":2}\n";
    static const char *const keys[] = { "a" };
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, 1, false, &a);
    ndjson_value v[1];
    size_t len;
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_value(v[0], NDJSON_NUMBER, "1");
    const char *raw = inl_ndjson_raw_line(r, &len);
    ck_assert_bytes(raw, len, "{\"a\":1}", 7);
    /* only at the start of the input */
    ck_assert_int_eq(inl_ndjson_next(r, v), -1);
    ck_assert_str_eq(inl_ndjson_errmsg(r), "expected a JSON object at byte 1");
    inl_ndjson_close(r);

    /* a BOM then a blank first line */
    static const char in2[] = "\xEF\xBB\xBF\r\n{\"a\":3}";
    m = input_of(in2, sizeof in2 - 1);
    r = open_on(&m, keys, 1, false, &a);
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_value(v[0], NDJSON_NUMBER, "3");
    ck_assert_uint_eq(inl_ndjson_line(r), 2);
    inl_ndjson_close(r);
}
END_TEST

START_TEST(test_last_line)
{
    /* the last line may lack its terminator, whatever ends it */
    static const char *const ins[] = { "{\"a\":1}\n{\"a\":\"end\"}", "{\"a\":1}\n{\"a\":\"end\"}\r",
                                       "{\"a\":1}\n{\"a\":\"end\"}\n", "{\"a\":1}\n{\"a\":\"end\"}  " };
    static const char *const keys[] = { "a" };
    inlay_allocator a = inl_mem_default();
    for (size_t i = 0; i < 4; i++) {
        mem_input m = input_of(ins[i], strlen(ins[i]));
        ndjson_reader *r = open_on(&m, keys, 1, false, &a);
        ndjson_value v[1];
        ck_assert_int_eq(inl_ndjson_next(r, v), 1);
        ck_assert_int_eq(inl_ndjson_next(r, v), 1);
        ck_assert_value(v[0], NDJSON_STRING, "end");
        ck_assert_uint_eq(inl_ndjson_line(r), 2);
        ck_assert_int_eq(inl_ndjson_next(r, v), 0);
        ck_assert_uint_eq(inl_ndjson_bytes_read(r), strlen(ins[i]));
        inl_ndjson_close(r);
    }
    /* a truncated last line is an error, not silently dropped */
    static const char cut[] = "{\"a\":1}\n{\"a\":\"en";
    mem_input m = input_of(cut, sizeof cut - 1);
    ndjson_reader *r = open_on(&m, keys, 1, false, &a);
    ndjson_value v[1];
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_int_eq(inl_ndjson_next(r, v), -1);
    ck_assert_str_eq(inl_ndjson_errmsg(r), "unterminated string at byte 9");
    ck_assert_int_eq(inl_ndjson_next(r, v), 0);
    inl_ndjson_close(r);
}
END_TEST

/* ---- long lines --------------------------------------------------------------------------------- */

static char *long_line_input(size_t n, size_t *len, bool escape)
{
    /* {"s":"<n bytes>"}\n{"s":"after"}\n */
    char *in = malloc(n + 64);
    ck_assert_ptr_nonnull(in);
    size_t k = (size_t)sprintf(in, "{\"s\":\"");
    for (size_t i = 0; i < n; i++) in[k + i] = (char)('a' + i % 26);
    if (escape) memcpy(in + k + n / 2, "\\n", 2);
    k += n;
    k += (size_t)sprintf(in + k, "\"}\n{\"s\":\"after\"}\n");
    *len = k;
    return in;
}

START_TEST(test_long_line)
{
    const size_t n = 3u << 20;
    const bool escape = _i == 1;
    size_t len;
    char *in = long_line_input(n, &len, escape);
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    static const char *const keys[] = { "s" };
    mem_input m = input_of(in, len);
    m.chunk = 100000;
    ndjson_reader *r = open_on(&m, keys, 1, false, &a);
    ndjson_value v[1];
    ck_assert_msg(inl_ndjson_next(r, v) == 1, "%s", inl_ndjson_errmsg(r));
    ck_assert_int_eq(v[0].kind, NDJSON_STRING);
    ck_assert_uint_eq(v[0].len, escape ? n - 1 : n);
    bool ok = true;
    for (size_t i = 0; i < v[0].len; i++) {
        char want = escape && i == n / 2 ? '\n' : (char)('a' + (escape && i > n / 2 ? i + 1 : i) % 26);
        ok &= v[0].data[i] == want;
    }
    ck_assert_msg(ok, "the long value differs");
    size_t rawlen;
    inl_ndjson_raw_line(r, &rawlen);
    ck_assert_uint_eq(rawlen, n + 8);
    ck_assert_uint_ge(ta.peak_bytes, n);
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_value(v[0], NDJSON_STRING, "after");
    ck_assert_uint_eq(inl_ndjson_line(r), 2);
    ck_assert_int_eq(inl_ndjson_next(r, v), 0);
    inl_ndjson_close(r);
    ck_assert_no_leak(&ta);
    free(in);
}
END_TEST

START_TEST(test_buffer_kept)
{
    /* after growing for one long line, a second one costs no allocation */
    const size_t n = 3u << 20;
    size_t len;
    char *one = long_line_input(n, &len, true);
    char *in = malloc(2 * len);
    memcpy(in, one, len);
    memcpy(in + len, one, len);
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    static const char *const keys[] = { "s" };
    mem_input m = input_of(in, 2 * len);
    ndjson_reader *r = open_on(&m, keys, 1, false, &a);
    ndjson_value v[1];
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    unsigned long before = ta.requests;
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_uint_eq(v[0].len, n - 1);
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_int_eq(inl_ndjson_next(r, v), 0);
    ck_assert_uint_eq(ta.requests, before);
    inl_ndjson_close(r);
    ck_assert_no_leak(&ta);
    free(in);
    free(one);
}
END_TEST

START_TEST(test_steady_state)
{
    /* many lines with escapes and nesting: after the first, nothing is allocated */
    text t = { 0 };
    for (int i = 0; i < 5000; i++)
        text_printf(&t, "{\"id\":%d,\"s\":\"row\\t%d\\u00e9\",\"o\":{\"k\":[%d,\"x\\n\"]},\"skip\":\"\\\\\"}\n",
                    i, i, i);
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    static const char *const keys[] = { "id", "s", "o" };
    mem_input m = input_of(t.p, t.len);
    m.chunk = 4096;
    ndjson_reader *r = open_on(&m, keys, 3, false, &a);
    ndjson_value v[3];
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    unsigned long before = ta.requests;
    int rc, rows = 1;
    char want[64];
    bool ok = true;
    while ((rc = inl_ndjson_next(r, v)) == 1) {
        int n = snprintf(want, sizeof want, "row\t%d\xc3\xa9", rows);
        ok &= v[1].len == (size_t)n && memcmp(v[1].data, want, (size_t)n) == 0;
        rows++;
    }
    ck_assert(ok);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(rows, 5000);
    ck_assert_uint_eq(ta.requests, before);
    inl_ndjson_close(r);
    ck_assert_no_leak(&ta);
    free(t.p);
}
END_TEST

/* ---- reads of any size ------------------------------------------------------------------------- */

/* Good and bad lines of every shape, blank lines, CRLF, a BOM, no final newline. */
static text build_corpus(void)
{
    text t = { 0 };
    text_add(&t, "\xEF\xBB\xBF", 3);
    uint64_t rng = 99;
    static const char *const pieces[] = {
        "{\"id\":1,\"name\":\"plain\",\"v\":1.5}",
        "{\"name\":\"esc\\n\\u00e9\\ud83d\\ude00\",\"id\":-0}",
        "  {\"nested\":{\"a\":[1,2,{\"b\":null}]},\"list\":[\"x\",true,false]}  ",
        "{\"\":\"empty key\",\"other\":{\"deep\":[[[[]]]]}}",
        "{\"id\":01}",
        "{\"name\":\"\\ud800\"}",
        "[1,2,3]",
        "{\"v\":\"caf\xc3\xa9\",\"id\":7",
        "{\"name\":\"bad \xc3\x28 utf8\"}",
        "",
        "   ",
        "{\"v\":\"tab\there\"}",
        "{\"id\":2}{\"id\":3}",
        "{\"id\":3,\"id\":4,\"name\":\"a\\\"b\",\"name\":\"last\"}",
        "{}",
    };
    const size_t np = sizeof pieces / sizeof *pieces;
    for (int i = 0; i < 3000; i++) {
        const char *p = pieces[rng_next(&rng) % np];
        text_add(&t, p, strlen(p));
        if (rng_next(&rng) % 7 == 0) {
            text_printf(&t, "\n{\"id\":%d,\"name\":\"", i);
            size_t n = rng_next(&rng) % 5000;
            for (size_t k = 0; k < n; k++) text_add(&t, k % 97 == 0 ? "\\\"" : "z", k % 97 == 0 ? 2 : 1);
            text_add(&t, "\"}", 2);
        }
        const bool crlf = rng_next(&rng) % 4 == 0;
        text_add(&t, crlf ? "\r\n" : "\n", crlf ? 2 : 1);
    }
    text_add(&t, "{\"id\":\"last, no newline\"}", 25);
    return t;
}

START_TEST(test_chunk_sizes)
{
    text corpus = build_corpus();
    inlay_allocator a = inl_mem_default();
    text whole = { 0 };
    mem_input m = input_of(corpus.p, corpus.len);
    ck_assert_int_eq(transcript(&m, corpus_keys, CORPUS_KEYS, false, &a, &whole), 0);
    ck_assert_ptr_nonnull(strstr(whole.p, " 4[1] 5[plain] 4[1.5] 0[] 0[] 0[]\n"));
    ck_assert_ptr_nonnull(strstr(whole.p, ": 5[last, no newline] 0[] 0[] 0[] 0[] 0[]\nend"));
    ck_assert_ptr_nonnull(strstr(whole.p, "bad "));
    ck_assert_ptr_nonnull(strstr(whole.p, "zz\"zz"));   /* a long escaped value came through */
    struct { size_t chunk; uint64_t seed; } how[] = { { 1, 0 }, { 2, 0 }, { 7, 0 }, { 37, 5 }, { 4096, 6 },
                                                     { 65536, 7 } };
    for (size_t i = 0; i < sizeof how / sizeof *how; i++) {
        text t = { 0 };
        m = input_of(corpus.p, corpus.len);
        m.chunk = how[i].chunk;
        m.rng = how[i].seed;
        ck_assert_int_eq(transcript(&m, corpus_keys, CORPUS_KEYS, false, &a, &t), 0);
        ck_assert_msg(t.len == whole.len && memcmp(t.p, whole.p, t.len) == 0,
                      "reads of %zu bytes (seed %llu) give a different result", how[i].chunk,
                      (unsigned long long)how[i].seed);
        free(t.p);
    }
    free(whole.p);
    free(corpus.p);
}
END_TEST

START_TEST(test_chunk_long_line)
{
    /* a line longer than the buffer, read one byte at a time */
    const size_t n = (1u << 20) + 100;
    size_t len;
    char *in = long_line_input(n, &len, true);
    inlay_allocator a = inl_mem_default();
    static const char *const keys[] = { "s" };
    text whole = { 0 }, bytewise = { 0 };
    mem_input m = input_of(in, len);
    ck_assert_int_eq(transcript(&m, keys, 1, false, &a, &whole), 0);
    m = input_of(in, len);
    m.chunk = 1;
    ck_assert_int_eq(transcript(&m, keys, 1, false, &a, &bytewise), 0);
    ck_assert(whole.len > n && whole.len == bytewise.len && memcmp(whole.p, bytewise.p, whole.len) == 0);
    ck_assert_uint_eq(m.calls, len + 1);
    free(whole.p);
    free(bytewise.p);
    free(in);
}
END_TEST

/* ---- errors ----------------------------------------------------------------------------------------- */

static const struct bad_case {
    const char *line;
    const char *msg;
} bad_cases[] = {
    { "[1,2]", "expected a JSON object at byte 1" },
    { "  \"x\"", "expected a JSON object at byte 3" },
    { "1", "expected a JSON object at byte 1" },
    { "null", "expected a JSON object at byte 1" },
    { "{\"a\":1} x", "unexpected data after the object at byte 9" },
    { "{\"a\":1}{\"b\":2}", "unexpected data after the object at byte 8" },
    { "{\"a\":1}}", "unexpected data after the object at byte 8" },
    { "{\"a\":1},", "unexpected data after the object at byte 8" },
    { "{", "expected a string key at byte 2" },
    { "{\"a\":\"abc", "unterminated string at byte 10" },
    { "{\"a", "unterminated string at byte 4" },
    { "{\"a\":\"a\\", "unterminated string at byte 9" },
    { "{\"a\":\"a\tb\"}", "raw control character 0x09 in a string at byte 8" },
    { "{\"a\":\"\x01\"}", "raw control character 0x01 in a string at byte 7" },
    { "{\"a\x1f\":1}", "raw control character 0x1f in a string at byte 4" },
    { "{\"a\":\"\\x\"}", "invalid escape '\\x' at byte 7" },
    { "{\"a\":\"\\U0041\"}", "invalid escape '\\U' at byte 7" },
    { "{\"a\":\"\\'\"}", "invalid escape '\\'' at byte 7" },
    { "{\"a\":\"\\\xc3\xa9\"}", "invalid escape '\\' followed by 0xc3 at byte 7" },
    { "{\"a\":\"\\ud800\"}", "lone surrogate \\ud800 at byte 7" },
    { "{\"a\":\"\\udbff\"}", "lone surrogate \\udbff at byte 7" },
    { "{\"a\":\"\\udc00\"}", "lone surrogate \\udc00 at byte 7" },
    { "{\"a\":\"x\\ud800\\u0041\"}", "lone surrogate \\ud800 at byte 8" },
    { "{\"a\":\"\\ud800\\ud800\"}", "lone surrogate \\ud800 at byte 7" },
    { "{\"a\":\"\\ud800\\n\"}", "lone surrogate \\ud800 at byte 7" },
    { "{\"a\":\"\\ud83d\\ude00\\ude00\"}", "lone surrogate \\ude00 at byte 19" },
    { "{\"a\":\"\\u12G4\"}", "invalid \\u escape at byte 7" },
    { "{\"a\":\"\\u12\"}", "invalid \\u escape at byte 7" },
    { "{\"a\":\"\\u\"}", "invalid \\u escape at byte 7" },
    { "{\"a\":\"\\u004", "invalid \\u escape at byte 7" },
    { "{\"a\" 1}", "expected ':' at byte 6" },
    { "{\"a\"}", "expected ':' at byte 5" },
    { "{\"a\":1,}", "expected a string key at byte 8" },
    { "{a:1}", "expected a string key at byte 2" },
    { "{'a':1}", "expected a string key at byte 2" },
    { "{\"a\":1 \"b\":2}", "expected ',' or '}' at byte 8" },
    { "{\"a\":1;\"b\":2}", "expected ',' or '}' at byte 7" },
    { "{\"a\":}", "expected a value at byte 6" },
    { "{\"a\":", "unexpected end of line, expected a value at byte 6" },
    { "{\"a\":1", "unexpected end of line, expected ',' or '}' at byte 7" },
    { "{\"a\":1,\"b\"", "expected ':' at byte 11" },
    { "{\"a\":tru}", "invalid literal at byte 6" },
    { "{\"a\":nul}", "invalid literal at byte 6" },
    { "{\"a\":fals}", "invalid literal at byte 6" },
    { "{\"a\":True}", "expected a value at byte 6" },
    { "{\"a\":truex}", "expected ',' or '}' at byte 10" },
    { "{\"a\":NaN}", "expected a value at byte 6" },
    { "{\"a\":01}", "invalid number (leading zero) at byte 6" },
    { "{\"a\":-01}", "invalid number (leading zero) at byte 6" },
    { "{\"a\":-}", "invalid number at byte 6" },
    { "{\"a\":-x}", "invalid number at byte 6" },
    { "{\"a\":-:}", "invalid number at byte 6" },
    { "{\"a\":-/}", "invalid number at byte 6" },
    { "{\"a\":0:1}", "expected ',' or '}' at byte 7" },
    { "{\"a\":1.:}", "invalid number (no digit after '.') at byte 6" },
    { "{\"a\":1e:}", "invalid number (no digit in the exponent) at byte 6" },
    { "{\"a\":12345678:}", "expected ',' or '}' at byte 14" },
    { "{\"a\":1234567/}", "expected ',' or '}' at byte 13" },
    { "{\"a\":1.}", "invalid number (no digit after '.') at byte 6" },
    { "{\"a\":1.e5}", "invalid number (no digit after '.') at byte 6" },
    { "{\"a\":1e}", "invalid number (no digit in the exponent) at byte 6" },
    { "{\"a\":1e+}", "invalid number (no digit in the exponent) at byte 6" },
    { "{\"a\":+1}", "expected a value at byte 6" },
    { "{\"a\":.5}", "expected a value at byte 6" },
    { "{\"a\":1e5x}", "expected ',' or '}' at byte 9" },
    { "{\"a\":0x1F}", "expected ',' or '}' at byte 7" },
    { "{\"a\":[1,]}", "expected a value at byte 9" },
    { "{\"a\":[,1]}", "expected a value at byte 7" },
    { "{\"a\":[1 2]}", "expected ',' or ']' at byte 9" },
    { "{\"a\":[}", "expected a value at byte 7" },
    { "{\"a\":[", "unexpected end of line, expected a value at byte 7" },
    { "{\"a\":[1,2}", "expected ',' or ']' at byte 10" },
    { "{\"a\":{\"b\" 1}}", "expected ':' at byte 11" },
    { "{\"a\":{1:2}}", "expected a string key at byte 7" },
    { "{\"a\":{\"b\":1,}}", "expected a string key at byte 13" },
    { "{\"a\":{\"b\":1]}", "expected ',' or '}' at byte 12" },
    { "{\"a\":{\"b\":}}", "expected a value at byte 11" },
    { "{\"a\":{\"b\":\"\\q\"}}", "invalid escape '\\q' at byte 12" },
    { "{\"a\":{\"\\ud800\":1}}", "lone surrogate \\ud800 at byte 8" },
    { "{\"a\":1,\x01\"b\":2}", "expected a string key at byte 8" },
};

START_TEST(test_error_cases)
{
    static const char *const keys[] = { "a" };
    inlay_allocator a = inl_mem_default();
    for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; i++) {
        /* the bad line, then a good one: the reader goes on after the error */
        const char *line = bad_cases[i].line;
        size_t n = strlen(line);
        char in[256];
        memcpy(in, line, n);
        memcpy(in + n, "\n\n{\"a\":7}\n", 10);
        mem_input m = input_of(in, n + 10);
        ndjson_reader *r = open_on(&m, keys, 1, false, &a);
        ndjson_value v[1];
        int rc = inl_ndjson_next(r, v);
        ck_assert_msg(rc == -1, "case %zu (%s): returned %d", i, line, rc);
        ck_assert_msg(strcmp(inl_ndjson_errmsg(r), bad_cases[i].msg) == 0, "case %zu (%s): \"%s\", want \"%s\"", i,
                      line, inl_ndjson_errmsg(r), bad_cases[i].msg);
        ck_assert_uint_eq(inl_ndjson_error_line(r), 1);
        ck_assert_uint_eq(inl_ndjson_line(r), 0);
        size_t rawlen;
        const char *raw = inl_ndjson_raw_line(r, &rawlen);
        ck_assert_bytes(raw, rawlen, line, n);
        ck_assert_int_eq(inl_ndjson_next(r, v), 1);
        ck_assert_str_eq(inl_ndjson_errmsg(r), "");
        ck_assert_uint_eq(inl_ndjson_line(r), 3);
        ck_assert_uint_eq(inl_ndjson_error_line(r), 1);
        ck_assert_value(v[0], NDJSON_NUMBER, "7");
        ck_assert_int_eq(inl_ndjson_next(r, v), 0);
        inl_ndjson_close(r);
    }
}
END_TEST

START_TEST(test_nul_in_line)
{
    /* a NUL byte inside the line (not its end) */
    static const char in[] = "{\"a\":1\0}\n{\"a\":\"x\0y\"}\n{\"a\":2}\n";
    static const char *const keys[] = { "a" };
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, 1, false, &a);
    ndjson_value v[1];
    ck_assert_int_eq(inl_ndjson_next(r, v), -1);
    ck_assert_str_eq(inl_ndjson_errmsg(r), "expected ',' or '}' at byte 7");
    ck_assert_int_eq(inl_ndjson_next(r, v), -1);
    ck_assert_str_eq(inl_ndjson_errmsg(r), "raw control character 0x00 in a string at byte 8");
    size_t len;
    const char *raw = inl_ndjson_raw_line(r, &len);
    ck_assert_bytes(raw, len, "{\"a\":\"x\0y\"}", 11);
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_uint_eq(inl_ndjson_line(r), 3);
    inl_ndjson_close(r);
}
END_TEST

START_TEST(test_error_resume_lines)
{
    /* good, bad and blank lines mixed: each result carries its own line number */
    static const char in[] = "{\"a\":1}\n"      /* 1 */
                             "{\"a\":}\n"       /* 2 bad */
                             "\n"               /* 3 */
                             "{\"a\":\"\\ud800\"}\r\n" /* 4 bad */
                             "{\"a\":2}\n"      /* 5 */
                             "  \n"             /* 6 */
                             "[]\n"             /* 7 bad */
                             "{\"a\":3}\n"      /* 8 */
                             "{\"a\":\"x";      /* 9 bad, no newline */
    static const struct { int rc; uint64_t line; const char *val; } want[] = {
        { 1, 1, "1" }, { -1, 2, NULL }, { -1, 4, NULL }, { 1, 5, "2" }, { -1, 7, NULL }, { 1, 8, "3" },
        { -1, 9, NULL }, { 0, 0, NULL },
    };
    static const char *const keys[] = { "a" };
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, 1, false, &a);
    ndjson_value v[1];
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        int rc = inl_ndjson_next(r, v);
        ck_assert_msg(rc == want[i].rc, "call %zu: %d", i, rc);
        if (rc == 1) {
            ck_assert_uint_eq(inl_ndjson_line(r), want[i].line);
            ck_assert_bytes(v[0].data, v[0].len, want[i].val, 1);
        } else if (rc == -1) {
            ck_assert_uint_eq(inl_ndjson_error_line(r), want[i].line);
            ck_assert_str_ne(inl_ndjson_errmsg(r), "");
        }
    }
    ck_assert_int_eq(inl_ndjson_next(r, v), 0);
    ck_assert_uint_eq(inl_ndjson_bytes_read(r), sizeof in - 1);
    inl_ndjson_close(r);
}
END_TEST

/* ---- raw lines ------------------------------------------------------------------------------------------- */

START_TEST(test_raw_line)
{
    static const char in[] = "\xEF\xBB\xBF  {\"a\":1}  \r\n\n{\"a\":bad}\t\n{\"a\":\"\\n\"}";
    static const char *const keys[] = { "a" };
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, 1, false, &a);
    ndjson_value v[1];
    size_t len = 99;
    ck_assert_ptr_null(inl_ndjson_raw_line(r, &len));
    ck_assert_uint_eq(len, 0);
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    const char *raw = inl_ndjson_raw_line(r, &len);
    ck_assert_bytes(raw, len, "  {\"a\":1}  ", 11);
    ck_assert_int_eq(inl_ndjson_next(r, v), -1);
    raw = inl_ndjson_raw_line(r, &len);
    ck_assert_bytes(raw, len, "{\"a\":bad}\t", 10);
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    raw = inl_ndjson_raw_line(r, &len);
    ck_assert_bytes(raw, len, "{\"a\":\"\\n\"}", 10);   /* the escape as written */
    ck_assert_value(v[0], NDJSON_STRING, "\n");
    ck_assert_ptr_nonnull(inl_ndjson_raw_line(r, NULL));
    ck_assert_int_eq(inl_ndjson_next(r, v), 0);
    ck_assert_ptr_null(inl_ndjson_raw_line(r, &len));
    ck_assert_uint_eq(len, 0);
    inl_ndjson_close(r);
}
END_TEST

/* ---- depth ---------------------------------------------------------------------------------------------------- */

/* {"a": then depth-1 more opening brackets (the line's object is depth 1), closed. */
static text nested_line(int depth, bool objects)
{
    text t = { 0 };
    text_add(&t, "{\"a\":", 5);
    for (int i = 1; i < depth; i++) text_add(&t, objects ? "{\"k\":" : "[", objects ? 5 : 1);
    text_add(&t, "0", 1);
    for (int i = 1; i < depth; i++) text_add(&t, objects ? "}" : "]", 1);
    text_add(&t, "}\n", 2);
    return t;
}

START_TEST(test_depth)
{
    const bool objects = _i == 1;
    static const char *const wanted[] = { "a" };
    inlay_allocator a = inl_mem_default();
    for (int unknown = 0; unknown < 2; unknown++) {
        text ok = nested_line(NDJSON_MAX_DEPTH, objects);
        mem_input m = input_of(ok.p, ok.len);
        ndjson_reader *r = open_on(&m, wanted, unknown ? 0 : 1, false, &a);
        ndjson_value v[1];
        ck_assert_msg(inl_ndjson_next(r, v) == 1, "%s", inl_ndjson_errmsg(r));
        if (!unknown) {
            ck_assert_int_eq(v[0].kind, objects ? NDJSON_OBJECT : NDJSON_ARRAY);
            ck_assert_uint_eq(v[0].len, ok.len - 7);
        }
        inl_ndjson_close(r);

        text deep = nested_line(NDJSON_MAX_DEPTH + 1, objects);
        m = input_of(deep.p, deep.len);
        r = open_on(&m, wanted, unknown ? 0 : 1, false, &a);
        ck_assert_int_eq(inl_ndjson_next(r, v), -1);
        char want[64];
        snprintf(want, sizeof want, "nesting deeper than 256 at byte %d",
                 objects ? 6 + 5 * (NDJSON_MAX_DEPTH - 1) : 6 + NDJSON_MAX_DEPTH - 1);
        ck_assert_str_eq(inl_ndjson_errmsg(r), want);
        inl_ndjson_close(r);
        free(ok.p);
        free(deep.p);
    }
}
END_TEST

START_TEST(test_depth_hostile)
{
    /* a megabyte of '[' is rejected without exhausting anything, and the next line is read */
    size_t n = 1u << 20;
    char *in = malloc(n + 32);
    memcpy(in, "{\"a\":", 5);
    memset(in + 5, '[', n);
    memcpy(in + 5 + n, "\n{\"a\":1}\n", 9);
    static const char *const keys[] = { "a" };
    mem_input m = input_of(in, n + 14);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, 1, false, &a);
    ndjson_value v[1];
    ck_assert_int_eq(inl_ndjson_next(r, v), -1);
    ck_assert_str_eq(inl_ndjson_errmsg(r), "nesting deeper than 256 at byte 261");
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_uint_eq(inl_ndjson_line(r), 2);
    inl_ndjson_close(r);
    free(in);
}
END_TEST

/* ---- UTF-8 ------------------------------------------------------------------------------------------------------ */

START_TEST(test_utf8_valid)
{
    static const char in[] = "{\"\xc3\xa9\":\"\xc2\x80\xdf\xbf\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xef\xbf\xbf"
                             "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\",\"k\":[\"\xe6\x97\xa5\xe6\x9c\xac\"]}";
    static const char *const keys[] = { "\xc3\xa9", "k" };
    mem_input m = input_of(in, sizeof in - 1);
    inlay_allocator a = inl_mem_default();
    ndjson_reader *r = open_on(&m, keys, 2, false, &a);
    ndjson_value v[2];
    ck_assert_msg(inl_ndjson_next(r, v) == 1, "%s", inl_ndjson_errmsg(r));
    ck_assert_value(v[0], NDJSON_STRING,
                    "\xc2\x80\xdf\xbf\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xef\xbf\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf");
    ck_assert_value(v[1], NDJSON_ARRAY, "[\"\xe6\x97\xa5\xe6\x9c\xac\"]");
    inl_ndjson_close(r);
}
END_TEST

START_TEST(test_utf8_invalid)
{
    static const char *const bad_text[] = {
        "\x80", "\xbf", "\xc0\x80", "\xc1\xbf", "\xc2", "\xc2\x41", "\xe0\x80\x80", "\xe0\x9f\xbf", "\xed\xa0\x80",
        "\xed\xbf\xbf", "\xe1\x80", "\xef\xbf", "\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80",
        "\xf5\x80\x80\x80", "\xf8\x88\x80\x80\x80", "\xfe", "\xff", "\xf1\x80\x80", "\xe1\x80\x41",
    };
    static const char *const keys[] = { "a" };
    inlay_allocator a = inl_mem_default();
    for (size_t i = 0; i < sizeof bad_text / sizeof *bad_text; i++) {
        for (int where = 0; where < 4; where++) {
            /* in a wanted value (at the start and after text), an unknown key, a nested value */
            static const char *const shape[] = { "{\"a\":\"%s\"}", "{\"a\":\"abc\\n%s\"}", "{\"%s\":1}",
                                                 "{\"a\":[{\"x\":\"%s\"}]}" };
            static const int col[] = { 7, 12, 3, 13 };
            char in[64];
            int n = snprintf(in, sizeof in, shape[where], bad_text[i]);
            mem_input m = input_of(in, (size_t)n);
            ndjson_reader *r = open_on(&m, keys, 1, false, &a);
            ndjson_value v[1];
            ck_assert_msg(inl_ndjson_next(r, v) == -1, "%s accepted", hex(in, (size_t)n));
            char want[64];
            snprintf(want, sizeof want, "invalid UTF-8 in a string at byte %d", col[where]);
            ck_assert_msg(strcmp(inl_ndjson_errmsg(r), want) == 0, "%s: %s", hex(in, (size_t)n), inl_ndjson_errmsg(r));
            inl_ndjson_close(r);
        }
    }
}
END_TEST

START_TEST(test_utf8_agrees)
{
    /* random byte strings, one per line: accepted exactly when
     * inlay_utf8_valid says so */
    enum { LINES = 20000 };
    static uint8_t s[LINES][8];
    static size_t n[LINES];
    uint64_t rng = 3;
    text t = { 0 };
    for (int i = 0; i < LINES; i++) {
        n[i] = 1 + rng_next(&rng) % 6;
        for (size_t k = 0; k < n[i]; k++) {
            uint8_t b = (uint8_t)rng_next(&rng);
            s[i][k] = b < 0x80 ? (uint8_t)('a' + b % 26) : b;
        }
        text_add(&t, "{\"a\":\"", 6);
        text_add(&t, s[i], n[i]);
        text_add(&t, "\"}\n", 3);
    }
    static const char *const keys[] = { "a" };
    inlay_allocator a = inl_mem_default();
    mem_input m = input_of(t.p, t.len);
    ndjson_reader *r = open_on(&m, keys, 1, false, &a);
    int accepted = 0;
    for (int i = 0; i < LINES; i++) {
        ndjson_value v[1];
        int rc = inl_ndjson_next(r, v);
        bool valid = inlay_utf8_valid(s[i], n[i]);
        ck_assert_msg(rc == (valid ? 1 : -1), "%s: %d", hex(s[i], n[i]), rc);
        if (valid) {
            ck_assert_bytes(v[0].data, v[0].len, s[i], n[i]);
            accepted++;
        }
    }
    ndjson_value end[1];
    ck_assert_int_eq(inl_ndjson_next(r, end), 0);
    ck_assert_int_gt(accepted, 100);
    inl_ndjson_close(r);
    free(t.p);
}
END_TEST

/* ---- the read callback ------------------------------------------------------------------------------------ */

START_TEST(test_read_error)
{
    static const char in[] = "{\"a\":1}\n{\"a\":2}\n";
    static const char *const keys[] = { "a" };
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    mem_input m = input_of(in, sizeof in - 1);
    m.chunk = 9;
    m.fail_call = 2;
    ndjson_reader *r = open_on(&m, keys, 1, false, &a);
    ndjson_value v[1];
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_int_eq(inl_ndjson_next(r, v), INLAY_ERR_IO);
    ck_assert_str_eq(inl_ndjson_errmsg(r), "read error after 9 bytes");
    ck_assert_ptr_null(inl_ndjson_raw_line(r, NULL));
    /* sticky: the callback is not asked again */
    ck_assert_int_eq(inl_ndjson_next(r, v), INLAY_ERR_IO);
    ck_assert_uint_eq(m.calls, 2);
    inl_ndjson_close(r);
    ck_assert_no_leak(&ta);

    m = input_of(in, sizeof in - 1);
    m.overflow = true;
    r = open_on(&m, keys, 1, false, &a);
    ck_assert_int_eq(inl_ndjson_next(r, v), INLAY_ERR_IO);
    ck_assert_ptr_nonnull(strstr(inl_ndjson_errmsg(r), "returned"));
    inl_ndjson_close(r);
    ck_assert_no_leak(&ta);
}
END_TEST

START_TEST(test_bytes_read)
{
    static const char in[] = "{\"a\":1}\n{\"a\":2}\n";
    static const char *const keys[] = { "a" };
    inlay_allocator a = inl_mem_default();
    mem_input m = input_of(in, sizeof in - 1);
    m.chunk = 5;
    ndjson_reader *r = open_on(&m, keys, 1, false, &a);
    ndjson_value v[1];
    ck_assert_uint_eq(inl_ndjson_bytes_read(r), 0);
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_uint_eq(inl_ndjson_bytes_read(r), 10);
    ck_assert_int_eq(inl_ndjson_next(r, v), 1);
    ck_assert_uint_eq(inl_ndjson_bytes_read(r), 16);
    ck_assert_int_eq(inl_ndjson_next(r, v), 0);
    ck_assert_uint_eq(inl_ndjson_bytes_read(r), 16);
    inl_ndjson_close(r);
}
END_TEST

/* ---- opening -------------------------------------------------------------------------------------------------- */

START_TEST(test_open_arguments)
{
    mem_input m = input_of("", 0);
    ndjson_reader *r = (ndjson_reader *)&m;
    char err[100];
    static const char *const keys[] = { "a", "b", "a" };
    static const char *const with_null[] = { "a", NULL };
    ck_assert_int_eq(inl_ndjson_open(&r, NULL, &m, keys, 1, NULL, NULL, err, sizeof err), INLAY_ERR_ARGUMENT);
    ck_assert_ptr_null(r);
    ck_assert_str_eq(err, "no read callback");
    ck_assert_int_eq(inl_ndjson_open(NULL, mem_read, &m, keys, 1, NULL, NULL, err, sizeof err), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inl_ndjson_open(&r, mem_read, &m, NULL, 2, NULL, NULL, err, sizeof err), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inl_ndjson_open(&r, mem_read, &m, with_null, 2, NULL, NULL, err, sizeof err), INLAY_ERR_ARGUMENT);
    ck_assert_str_eq(err, "key 1 is NULL");
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    ck_assert_int_eq(inl_ndjson_open(&r, mem_read, &m, keys, 3, NULL, &a, err, sizeof err), INLAY_ERR_ARGUMENT);
    ck_assert_str_eq(err, "key 'a' is given twice");
    ck_assert_ptr_null(r);
    ck_assert_no_leak(&ta);
    /* no err buffer, default options and allocator */
    ck_assert_int_eq(inl_ndjson_open(&r, mem_read, &m, keys, 3, NULL, NULL, NULL, 0), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inl_ndjson_open(&r, mem_read, &m, keys, 2, NULL, NULL, NULL, 0), 0);
    ck_assert_int_eq(inl_ndjson_next(r, NULL), 0);
    inl_ndjson_close(r);
    inl_ndjson_close(NULL);
}
END_TEST

/* ---- out of memory ----------------------------------------------------------------------------------------------- */

START_TEST(test_nomem_open)
{
    static const char *const keys[] = { "id", "name", "value" };
    mem_input m = input_of("{\"id\":1}", 8);
    bool done = false;
    for (unsigned long fail = 1; !done; fail++) {
        ck_assert_uint_lt(fail, 50);
        test_alloc ta = { .fail_at = fail };
        inlay_allocator a = test_allocator(&ta);
        ndjson_reader *r = NULL;
        char err[100];
        int rc = inl_ndjson_open(&r, mem_read, &m, keys, 3, NULL, &a, err, sizeof err);
        if (rc == 0) {
            ck_assert_uint_eq(ta.refused, 0);
            ndjson_value v[3];
            ck_assert_int_eq(inl_ndjson_next(r, v), 1);
            ck_assert_value(v[0], NDJSON_NUMBER, "1");
            inl_ndjson_close(r);
            done = true;
        } else {
            ck_assert_int_eq(rc, INLAY_ERR_NOMEM);
            ck_assert_ptr_null(r);
            ck_assert_str_eq(err, "out of memory");
        }
        ck_assert_no_leak(&ta);
    }
}
END_TEST

/* Fail allocation N while reading an input that needs the line buffer and
 * the scratch buffer to grow: a clean, sticky NOMEM, lines before the
 * failure intact, nothing leaked; past the last allocation, the full run. */
START_TEST(test_nomem_growth)
{
    const size_t n = 3u << 20;
    size_t len;
    char *in = long_line_input(n, &len, true);
    static const char *const keys[] = { "s" };
    bool done = false;
    unsigned long failures = 0;
    for (unsigned long fail = 1; !done; fail++) {
        ck_assert_uint_lt(fail, 50);
        test_alloc ta = { .fail_at = fail, .fail_after = _i == 1 };
        inlay_allocator a = test_allocator(&ta);
        mem_input m = input_of(in, len);
        m.chunk = 300000;
        ndjson_reader *r = NULL;
        ndjson_options o = { 0 };
        if (inl_ndjson_open(&r, mem_read, &m, keys, 1, &o, &a, NULL, 0) != 0) {
            ck_assert_no_leak(&ta);
            continue;
        }
        ndjson_value v[1];
        int rc = inl_ndjson_next(r, v);
        if (rc == INLAY_ERR_NOMEM) {
            ck_assert_ptr_nonnull(strstr(inl_ndjson_errmsg(r), "out of memory"));
            ck_assert_int_eq(inl_ndjson_next(r, v), INLAY_ERR_NOMEM);
            failures++;
        } else {
            ck_assert_int_eq(rc, 1);
            ck_assert_uint_eq(v[0].len, n - 1);
            ck_assert_int_eq(inl_ndjson_next(r, v), 1);
            ck_assert_value(v[0], NDJSON_STRING, "after");
            ck_assert_int_eq(inl_ndjson_next(r, v), 0);
            ck_assert_uint_eq(ta.refused, 0);
            done = true;
        }
        inl_ndjson_close(r);
        ck_assert_no_leak(&ta);
    }
    ck_assert_uint_ge(failures, 3);   /* two doublings of the line buffer and the scratch buffer */
    free(in);
}
END_TEST

static Suite *ndjson_suite(void)
{
    Suite *s = suite_create("ndjson");
    TCase *c;

    c = tcase_create("value kinds");
    tcase_add_test(c, test_kinds);
    tcase_add_test(c, test_numbers);
    tcase_add_test(c, test_number_lengths);
    tcase_add_test(c, test_literal_data);
    suite_add_tcase(s, c);

    c = tcase_create("escapes");
    tcase_add_test(c, test_escapes);
    tcase_add_test(c, test_escape_boundaries);
    tcase_add_test(c, test_zero_copy);
    suite_add_tcase(s, c);

    c = tcase_create("nested values");
    tcase_add_test(c, test_nested);
    suite_add_tcase(s, c);

    c = tcase_create("unknown keys");
    tcase_add_test(c, test_unknown_skipped);
    tcase_add_test(c, test_unknown_reported);
    tcase_add_test(c, test_unknown_validated);
    tcase_add_test(c, test_strict);
    tcase_add_test(c, test_strict_message_escapes);
    tcase_add_test(c, test_no_keys);
    suite_add_tcase(s, c);

    c = tcase_create("repeated and absent keys");
    tcase_add_test(c, test_duplicates);
    tcase_add_test(c, test_absent);
    suite_add_tcase(s, c);

    c = tcase_create("key matching");
    tcase_add_test(c, test_key_matching);
    tcase_add_test(c, test_key_order);
    tcase_add_test(c, test_key_order_strict);
    tcase_add_test(c, test_unpredictable_keys);
    tcase_add_test(c, test_many_keys);
    suite_add_tcase(s, c);

    c = tcase_create("line structure");
    tcase_add_test(c, test_blank_lines);
    tcase_add_test(c, test_crlf);
    tcase_add_test(c, test_bom);
    tcase_add_test(c, test_last_line);
    suite_add_tcase(s, c);

    c = tcase_create("long lines");
    tcase_set_timeout(c, 60);
    tcase_add_loop_test(c, test_long_line, 0, 2);
    tcase_add_test(c, test_buffer_kept);
    tcase_add_test(c, test_steady_state);
    suite_add_tcase(s, c);

    c = tcase_create("read sizes");
    tcase_set_timeout(c, 120);
    tcase_add_test(c, test_chunk_sizes);
    tcase_add_test(c, test_chunk_long_line);
    suite_add_tcase(s, c);

    c = tcase_create("errors and resuming");
    tcase_add_test(c, test_error_cases);
    tcase_add_test(c, test_nul_in_line);
    tcase_add_test(c, test_error_resume_lines);
    suite_add_tcase(s, c);

    c = tcase_create("raw lines");
    tcase_add_test(c, test_raw_line);
    suite_add_tcase(s, c);

    c = tcase_create("depth limit");
    tcase_add_loop_test(c, test_depth, 0, 2);
    tcase_add_test(c, test_depth_hostile);
    suite_add_tcase(s, c);

    c = tcase_create("UTF-8");
    tcase_add_test(c, test_utf8_valid);
    tcase_add_test(c, test_utf8_invalid);
    tcase_add_test(c, test_utf8_agrees);
    suite_add_tcase(s, c);

    c = tcase_create("read callback");
    tcase_add_test(c, test_read_error);
    tcase_add_test(c, test_bytes_read);
    suite_add_tcase(s, c);

    c = tcase_create("open");
    tcase_add_test(c, test_open_arguments);
    suite_add_tcase(s, c);

    c = tcase_create("out of memory");
    tcase_set_timeout(c, 120);
    tcase_add_test(c, test_nomem_open);
    tcase_add_loop_test(c, test_nomem_growth, 0, 2);
    suite_add_tcase(s, c);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(ndjson_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
