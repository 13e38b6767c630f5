/*
 * check_csv.c — the CSV tokenizer (runtime/input/csv.c): every quoting rule, line
 * ends and the line numbers after them, empty lines, the BOM, a missing
 * final newline, skip_rows, other delimiters and quotes, a backslash
 * escape instead of doubled quotes, bad records and
 * reading on after them, the raw record, fields longer than the buffer,
 * compressed input, damaged compressed input whatever the read sizes,
 * allocation failures; and, over random inputs, agreement
 * with a byte-at-a-time reference parser whatever the read sizes.
 *
 * A reader's output is written down as a transcript, one line per result:
 * "L:[a]<b>" is a record starting on line L with an unquoted field a and a
 * quoted field b; "!L:message" is a bad record at line L. The full form
 * adds each record's raw bytes, field lengths and error columns, for the
 * random tests.
 */
#define _POSIX_C_SOURCE 200809L
#include "csv.h"

#include <stdarg.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "unit.h"

/* ---- sources ---------------------------------------------------------------------------- */

enum { READ_WHOLE, READ_ONE, READ_RANDOM, READ_MODES };

typedef struct mem_src {
    const uint8_t *data;
    size_t len, pos;
    int mode;
    size_t max_chunk;            /* READ_RANDOM: 1..max_chunk bytes per call */
    uint64_t rng;
    unsigned long calls, fail_call;
} mem_src;

static ptrdiff_t mem_read(void *ctx, void *dst, size_t cap)
{
    mem_src *s = ctx;
    s->calls++;
    if (s->fail_call && s->calls == s->fail_call) return -1;
    size_t n = s->len - s->pos;
    if (n > cap) n = cap;
    if (s->mode == READ_ONE && n > 1) n = 1;
    if (s->mode == READ_RANDOM && n > 1) n = 1 + (size_t)(rng_next(&s->rng) % (n < s->max_chunk ? n : s->max_chunk));
    memcpy(dst, s->data + s->pos, n);
    s->pos += n;
    return (ptrdiff_t)n;
}

static mem_src source(const void *data, size_t len, int mode, size_t max_chunk)
{
    mem_src s = { data, len, 0, mode, max_chunk, 12345, 0, 0 };
    return s;
}

/* ---- transcripts -------------------------------------------------------------------------- */

typedef struct text {
    char *p;
    size_t len, cap;
} text;

static void text_add(text *t, const void *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + n + 1) cap *= 2;
        t->p = realloc(t->p, cap);
        if (!t->p) ck_abort_msg("out of memory in the test");
        t->cap = cap;
    }
    if (n) memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = 0;
}

static void text_printf(text *t, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    text_add(t, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* A number in decimal (printf is too slow for the millions of these). */
static void text_num(text *t, uint64_t v)
{
    char d[24];
    size_t k = sizeof d;
    do d[--k] = (char)('0' + v % 10);
    while (v /= 10);
    text_add(t, d + k, sizeof d - k);
}

static void emit_field(text *t, const void *data, size_t len, bool quoted, bool full)
{
    if (full) text_num(t, len);
    text_add(t, quoted ? "<" : "[", 1);
    text_add(t, data, len);
    text_add(t, quoted ? ">" : "]", 1);
}

static void emit_raw(text *t, const void *raw, size_t len)
{
    text_add(t, " {", 2);
    text_num(t, len);
    text_add(t, ":", 1);
    text_add(t, raw, len);
    text_add(t, "}", 1);
}

/* Everything a reader returns, as a transcript (malloc). */
static char *transcript_of(csv_reader *r, bool full)
{
    text t = { 0 };
    text_add(&t, "", 0);
    for (;;) {
        const csv_field *f;
        size_t n;
        int rc = inl_csv_next(r, &f, &n);
        if (rc == 0) break;
        size_t raw_len;
        const char *raw = inl_csv_raw_record(r, &raw_len);
        if (rc < 0) {
            if (inl_csv_error_status(r) != INLAY_ERR_VALUE) {
                text_printf(&t, "FATAL %s\n", inl_csv_errmsg(r));
                break;
            }
            text_printf(&t, "!%llu:", (unsigned long long)inl_csv_error_line(r));
            if (full) text_printf(&t, "%llu:", (unsigned long long)inl_csv_error_column(r));
            text_add(&t, inl_csv_errmsg(r), strlen(inl_csv_errmsg(r)));
        } else {
            /* (an assertion per record would dominate the run time) */
            if (inl_csv_error_status(r) != 0) ck_abort_msg("status %d after a record", inl_csv_error_status(r));
            text_num(&t, inl_csv_record_line(r));
            text_add(&t, ":", 1);
            for (size_t i = 0; i < n; i++) emit_field(&t, f[i].data, f[i].len, f[i].quoted, full);
        }
        if (full) emit_raw(&t, raw, raw_len);
        text_add(&t, "\n", 1);
    }
    return t.p;
}

static char *run(const void *data, size_t len, int mode, size_t max_chunk, const csv_options *o, bool full)
{
    mem_src s = source(data, len, mode, max_chunk);
    input_reader *in;
    ck_assert_int_eq(inl_input_open_fn(&in, mem_read, &s, INPUT_PLAIN, NULL, NULL, 0), 0);
    csv_reader *r;
    ck_assert_int_eq(inl_csv_open(&r, in, o, NULL), 0);
    char *t = transcript_of(r, full);
    ck_assert_uint_eq(inl_csv_bytes_read(r), len);
    inl_csv_close(r);
    inl_input_close(in);
    return t;
}

/* The transcript of data under o, the same with every way of reading it. */
static void expect_opts(const char *data, const csv_options *o, const char *want)
{
    size_t len = strlen(data);
    static const char *names[] = { "whole", "one byte", "random" };
    for (int mode = 0; mode < READ_MODES; mode++) {
        char *got = run(data, len, mode, 5, o, false);
        ck_assert_msg(strcmp(got, want) == 0, "input \"%s\" read %s:\n got:\n%s\n want:\n%s", data,
                      names[mode], got, want);
        free(got);
    }
}

static void expect(const char *data, const char *want)
{
    expect_opts(data, NULL, want);
}

/* ---- the reference parser ------------------------------------------------------------------ */

/* The rules of csv.h, a byte at a time over the whole input, writing the
 * full transcript. */
static char *reference(const uint8_t *s, size_t n, const csv_options *o)
{
    text t = { 0 };
    text_add(&t, "", 0);
    const int d = (uint8_t)o->delimiter, q = o->quote ? (uint8_t)o->quote : 256;
    const int x = o->quote && o->escape && o->escape != o->quote ? (uint8_t)o->escape : 256;
    size_t pos = 0;
    uint64_t line = 1;
    if (n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) pos = 3;
    for (size_t k = 0; k < o->skip_rows && pos < n; k++) {
        while (pos < n && s[pos] != '\n') pos++;
        if (pos < n) {
            pos++;
            line++;
        }
    }
    text fields = { 0 }, value = { 0 };
    for (;;) {
        while (pos < n && (s[pos] == '\n' || (s[pos] == '\r' && pos + 1 < n && s[pos + 1] == '\n'))) {
            pos += s[pos] == '\r' ? 2 : 1;
            line++;
        }
        if (pos == n) break;
        const size_t rec = pos;
        const uint64_t rec_line = line;
        fields.len = 0;
        text_add(&fields, "", 0);
        const char *err = NULL;
        size_t err_at = 0, stop = 0, next = 0;
        uint64_t err_line = 0;
        for (;;) {
            value.len = 0;
            text_add(&value, "", 0);
            if (pos < n && s[pos] == q) {
                const size_t open = pos;
                const uint64_t open_line = line;
                size_t i = pos + 1;
                for (;;) {
                    if (i == n) break;
                    if (s[i] == x && i + 1 < n && (s[i + 1] == q || s[i + 1] == x)) {
                        if (s[i + 1] == '\n') line++;
                        text_add(&value, &s[i + 1], 1);
                        i += 2;
                        continue;
                    }
                    if (s[i] == q) {
                        if (x == 256 && i + 1 < n && s[i + 1] == q) {
                            text_add(&value, &s[i], 1);
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    if (s[i] == '\n') line++;
                    text_add(&value, &s[i], 1);
                    i++;
                }
                if (i == n) {
                    err = "unterminated quoted field";
                    err_at = open;
                    err_line = open_line;
                    break;
                }
                emit_field(&fields, value.p, value.len, true, true);
                size_t a = i + 1;
                if (a == n) {
                    stop = next = n;
                    break;
                }
                if (s[a] == d) {
                    pos = a + 1;
                    continue;
                }
                if (s[a] == '\n') {
                    stop = a;
                    next = a + 1;
                    line++;
                    break;
                }
                if (s[a] == '\r' && a + 1 < n && s[a + 1] == '\n') {
                    stop = a;
                    next = a + 2;
                    line++;
                    break;
                }
                err = "unexpected character after closing quote";
                err_at = a;
                err_line = line;
                break;
            }
            size_t i = pos;
            while (i < n && s[i] != d && s[i] != '\n' && !(s[i] == '\r' && i + 1 < n && s[i + 1] == '\n')) i++;
            emit_field(&fields, s + pos, i - pos, false, true);
            if (i == n) {
                stop = next = n;
                break;
            }
            if (s[i] == d) {
                pos = i + 1;
                continue;
            }
            stop = i;
            next = i + (s[i] == '\r' ? 2 : 1);
            line++;
            break;
        }
        if (err) {
            size_t nl = err_at;
            while (nl < n && s[nl] != '\n') nl++;
            size_t end = nl;
            if (nl < n && end > rec && s[end - 1] == '\r') end--;
            size_t ls = err_at;
            while (ls > rec && s[ls - 1] != '\n') ls--;
            text_printf(&t, "!%llu:%zu:%s", (unsigned long long)err_line, err_at - ls + 1, err);
            emit_raw(&t, s + rec, end - rec);
            text_add(&t, "\n", 1);
            pos = nl < n ? nl + 1 : n;
            line = err_line + (nl < n);
            continue;
        }
        text_num(&t, rec_line);
        text_add(&t, ":", 1);
        text_add(&t, fields.p, fields.len);
        emit_raw(&t, s + rec, stop - rec);
        text_add(&t, "\n", 1);
        pos = next;
    }
    free(fields.p);
    free(value.p);
    return t.p;
}

/* Random CSV-ish bytes, heavy in the characters that matter. */
static size_t random_csv(uint8_t *out, size_t cap, uint64_t *rng, char delim, char quote)
{
    static const char plain[] = "abcxyz01 ";
    size_t n = (size_t)(rng_next(rng) % cap);
    size_t i = 0;
    if (n >= 3 && rng_next(rng) % 8 == 0) {
        memcpy(out, "\xEF\xBB\xBF", 3);
        i = 3;
    }
    for (; i < n; i++) {
        unsigned k = (unsigned)(rng_next(rng) % 32);
        out[i] = k < 14 ? (uint8_t)plain[k % 9]
               : k < 19 ? (uint8_t)delim
               : k < 23 ? (uint8_t)(quote ? quote : '"')
               : k < 26 ? '\n'
               : k < 29 ? '\r'
               : k < 30 ? ','
               : k < 31 ? '\t'
                        : '"';
    }
    return n;
}

/* Reads data every way and compares each transcript with the reference. */
static void agree(const uint8_t *data, size_t len, const csv_options *o, size_t max_chunk)
{
    char *want = reference(data, len, o);
    for (int mode = 0; mode < READ_MODES; mode++) {
        if (mode == READ_ONE && len > 3000000) continue;
        char *got = run(data, len, mode, max_chunk, o, true);
        if (strcmp(got, want) != 0) {
            size_t at = 0;
            while (got[at] == want[at]) at++;
            ck_abort_msg("read mode %d: transcripts differ at byte %zu:\n got: %.200s\n want: %.200s", mode,
                         at, got + (at > 40 ? at - 40 : 0), want + (at > 40 ? at - 40 : 0));
        }
        free(got);
    }
    free(want);
}

/* ---- quoting ------------------------------------------------------------------------------- */

START_TEST(test_unquoted)
{
    expect("a,b,c\n", "1:[a][b][c]\n");
    expect("a,,b\n", "1:[a][][b]\n");
    expect(",\n", "1:[][]\n");
    expect("a,\n", "1:[a][]\n");
    expect(",a\n", "1:[][a]\n");
    expect("x\n", "1:[x]\n");
    expect(" a , b \n", "1:[ a ][ b ]\n");
    expect("a,b\nc,d,e\nf\n", "1:[a][b]\n2:[c][d][e]\n3:[f]\n");
    expect("\xC3\xA9t\xC3\xA9,\xE2\x82\xAC\n", "1:[\xC3\xA9t\xC3\xA9][\xE2\x82\xAC]\n");
}
END_TEST

START_TEST(test_quoted)
{
    expect("\"a\",\"b\"\n", "1:<a><b>\n");
    expect("\"a,b\",c\n", "1:<a,b>[c]\n");
    expect("x,\"a,b,c\",y\n", "1:[x]<a,b,c>[y]\n");
    expect("\"\",x\n", "1:<>[x]\n");
    expect("x,\"\"\n", "1:[x]<>\n");
    expect("\"\",\"\"\n", "1:<><>\n");
    expect("\"a\",\n", "1:<a>[]\n");
}
END_TEST

START_TEST(test_doubled_quotes)
{
    expect("\"a\"\"b\"\n", "1:<a\"b>\n");
    expect("\"\"\"\"\n", "1:<\">\n");
    expect("\"\"\"\"\"\"\n", "1:<\"\">\n");
    expect("\"\"\"a\"\"\",b\n", "1:<\"a\">[b]\n");
    expect("x,\"say \"\"hi\"\", \"\"bye\"\"\",y\n", "1:[x]<say \"hi\", \"bye\">[y]\n");
    /* unescaped fields and the others of the record stay right */
    expect("\"a\"\"\",\"b\",\"\"\"c\",d\n\"e\"\"f\"\n", "1:<a\"><b><\"c>[d]\n2:<e\"f>\n");
}
END_TEST

START_TEST(test_quote_in_unquoted)
{
    expect("ab\"c,d\n", "1:[ab\"c][d]\n");
    expect("a\"\",b\"\n", "1:[a\"\"][b\"]\n");
    expect("5'10\",x\n", "1:[5'10\"][x]\n");
}
END_TEST

START_TEST(test_only_quoted_empty)
{
    /* one empty field comes only from "" */
    expect("\"\"\n", "1:<>\n");
    expect("\"\"", "1:<>\n");
    expect("\n\"\"\n\n", "2:<>\n");
}
END_TEST

START_TEST(test_many_fields)
{
    text t = { 0 }, want = { 0 };
    text_add(&want, "1:", 2);
    for (int i = 0; i < 1000; i++) {
        text_printf(&t, i ? ",%s%d%s" : "%s%d%s", i % 3 ? "" : "\"", i, i % 3 ? "" : "\"");
        text_printf(&want, i % 3 ? "[%d]" : "<%d>", i);
    }
    text_add(&t, "\nlast\n", 6);
    text_add(&want, "\n2:[last]\n", 10);
    expect(t.p, want.p);
    free(t.p);
    free(want.p);
}
END_TEST

/* ---- line ends ---------------------------------------------------------------------------- */

START_TEST(test_lf_crlf_mixed)
{
    expect("a,b\r\nc,d\r\n", "1:[a][b]\n2:[c][d]\n");
    expect("a,b\nc,d\r\ne\n", "1:[a][b]\n2:[c][d]\n3:[e]\n");
    expect("\"a\"\r\n\"b\"\n", "1:<a>\n2:<b>\n");
    expect("a,\r\n", "1:[a][]\n");
}
END_TEST

START_TEST(test_lone_cr)
{
    /* a CR not before an LF is data outside quotes */
    expect("a\rb,c\r\n", "1:[a\rb][c]\n");
    expect("\r,\rx\r\r\n", "1:[\r][\rx\r]\n");
    expect("a\r", "1:[a\r]\n");
    expect("\r", "1:[\r]\n");
    expect("a\r\r\nb\n", "1:[a\r]\n2:[b]\n");
}
END_TEST

START_TEST(test_newlines_in_quotes)
{
    expect("\"a\nb\",c\nd\n", "1:<a\nb>[c]\n3:[d]\n");
    expect("\"x\r\ny\"\r\nz\r\n", "1:<x\r\ny>\n3:[z]\n");
    expect("\"x\ry\"\nz\n", "1:<x\ry>\n2:[z]\n");
    expect("\"\n\n\n\",\"\n\"\nq\n", "1:<\n\n\n><\n>\n6:[q]\n");
    expect("a,\"b\n\nc\"\n\n\nd\n", "1:[a]<b\n\nc>\n6:[d]\n");
}
END_TEST

START_TEST(test_crlf_split)
{
    /* CRLF (and CR, LF, quotes) falling on every read boundary: one byte
     * per read, and chunks of 1..3 bytes */
    static const char data[] = "a,b\r\n\"c\r\nd\",e\r\n\"f\"\r\n\r\ng\r\r\n\"h\"\"\"\r\n";
    static const char want[] = "1:[a][b]\n2:<c\r\nd>[e]\n4:<f>\n6:[g\r]\n7:<h\">\n";
    expect(data, want);
    for (size_t chunk = 1; chunk <= 3; chunk++) {
        char *got = run(data, strlen(data), READ_RANDOM, chunk, NULL, false);
        ck_assert_str_eq(got, want);
        free(got);
    }
}
END_TEST

/* ---- read boundaries ------------------------------------------------------------------------ */

/* Records that put CRs, quotes and delimiters on every offset near the end
 * of the first 1 MiB read. */
START_TEST(test_buffer_boundary)
{
    static const char *unit[] = { "ab,\"c\"\"d\"\r\n", "\"x\r\ny\",z\n", "p\rq,\"\"\r\n", "\n\r\n", "\"\",,\"r\"\n" };
    size_t cap = (1 << 20) + 4096;
    uint8_t *data = malloc(cap);
    csv_options o;
    inl_csv_options_init(&o);
    for (size_t shift = 0; shift < 24; shift++) {
        size_t n = 0;
        memset(data, 'k', shift);
        n = shift;
        data[n++] = '\n';
        for (size_t u = 0; n < cap - 64; u++) {
            size_t k = strlen(unit[u % 5]);
            memcpy(data + n, unit[u % 5], k);
            n += k;
        }
        agree(data, n, &o, 1 << 16);
    }
    free(data);
}
END_TEST

START_TEST(test_random_agree)
{
    enum { CAP = 400 };
    uint8_t data[CAP];
    uint64_t rng = 2024;
    csv_options o;
    for (int i = 0; i < 4800; i++) {
        inl_csv_options_init(&o);
        switch (i % 6) {
        case 1: o.delimiter = '\t'; break;
        case 2: o.quote = 0; break;
        case 3: o.quote = '\''; o.delimiter = ';'; break;
        case 4: o.skip_rows = (size_t)(rng_next(&rng) % 4); break;
        case 5: o.escape = '\\'; break;
        }
        size_t n = random_csv(data, CAP, &rng, o.delimiter, o.quote);
        if (o.escape)
            for (size_t k = 0; k < n; k++)
                if (data[k] == 'x' || data[k] == 'y') data[k] = '\\';
        agree(data, n, &o, 1 + (size_t)(rng_next(&rng) % 16));
    }
}
END_TEST

START_TEST(test_random_agree_large)
{
    /* a few MiB of random records, so that reads restart records at the
     * buffer's end over and over */
    size_t cap = 5 * 1000 * 1000;
    uint8_t *data = malloc(cap);
    uint64_t rng = 77;
    csv_options o;
    inl_csv_options_init(&o);
    size_t n = 0;
    while (n < cap - 512) n += random_csv(data + n, 400, &rng, ',', '"');
    agree(data, n, &o, 100000);
    free(data);
}
END_TEST

/* ---- long fields ------------------------------------------------------------------------------ */

START_TEST(test_long_fields)
{
    /* 3 MiB unquoted; 3 MiB quoted with doubled quotes and newlines; a
     * record of 300001 fields; each longer than the 1 MiB buffer */
    size_t big = 3 << 20, pieces = big / 1000;
    text t = { 0 }, quoted = { 0 };
    char *fill = malloc(big);
    memset(fill, 'v', big);
    text_add(&t, "a,", 2);
    text_add(&t, fill, big);
    text_add(&t, "\n\"", 2);
    for (size_t i = 0; i < pieces; i++) {
        text_add(&t, "\"\"", 2);
        text_add(&t, fill, 998);
        text_add(&t, "\n", 1);
        text_add(&quoted, "\"", 1);
        text_add(&quoted, fill, 998);
        text_add(&quoted, "\n", 1);
    }
    text_add(&t, "\",z\n", 4);
    for (size_t i = 0; i < 300000; i++) text_add(&t, "ab,", 3);
    text_add(&t, "end\nafter\n", 10);

    mem_src s = source(t.p, t.len, READ_RANDOM, 300000);
    input_reader *in;
    ck_assert_int_eq(inl_input_open_fn(&in, mem_read, &s, INPUT_PLAIN, NULL, NULL, 0), 0);
    csv_reader *r;
    ck_assert_int_eq(inl_csv_open(&r, in, NULL, NULL), 0);
    const csv_field *f;
    size_t n;
    ck_assert_int_eq(inl_csv_next(r, &f, &n), 1);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(inl_csv_record_line(r), 1);
    ck_assert_bytes(f[0].data, f[0].len, "a", 1);
    ck_assert_uint_eq(f[1].len, big);
    ck_assert(memcmp(f[1].data, fill, big) == 0);

    ck_assert_int_eq(inl_csv_next(r, &f, &n), 1);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(inl_csv_record_line(r), 2);
    ck_assert(f[0].quoted);
    ck_assert_uint_eq(f[0].len, quoted.len);
    ck_assert(memcmp(f[0].data, quoted.p, quoted.len) == 0);
    ck_assert_bytes(f[1].data, f[1].len, "z", 1);

    ck_assert_int_eq(inl_csv_next(r, &f, &n), 1);
    ck_assert_uint_eq(inl_csv_record_line(r), 2 + pieces + 1);
    ck_assert_uint_eq(n, 300001);
    bool ok = true;
    for (size_t i = 0; i < 300000; i++) ok &= f[i].len == 2 && memcmp(f[i].data, "ab", 2) == 0 && !f[i].quoted;
    ck_assert(ok);
    ck_assert_bytes(f[300000].data, f[300000].len, "end", 3);

    ck_assert_int_eq(inl_csv_next(r, &f, &n), 1);
    ck_assert_uint_eq(inl_csv_record_line(r), 2 + pieces + 2);
    ck_assert_bytes(f[0].data, f[0].len, "after", 5);
    ck_assert_int_eq(inl_csv_next(r, &f, &n), 0);
    inl_csv_close(r);
    inl_input_close(in);

    /* and all of it agrees with the reference */
    csv_options o;
    inl_csv_options_init(&o);
    agree((const uint8_t *)t.p, t.len, &o, 1 << 20);
    free(fill);
    free(t.p);
    free(quoted.p);
}
END_TEST

START_TEST(test_buffer_kept)
{
    /* after one long record the buffer stays big: reading on allocates nothing */
    size_t big = 3 << 20;
    text t = { 0 };
    char *fill = malloc(big);
    memset(fill, 'w', big);
    text_add(&t, fill, big);
    text_add(&t, "\n", 1);
    for (int i = 0; i < 200000; i++) text_printf(&t, "%d,\"%d\"\"\",xyz\n", i, i);
    text_add(&t, fill, big);
    text_add(&t, "\n", 1);
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    mem_src s = source(t.p, t.len, READ_WHOLE, 0);
    input_reader *in;
    ck_assert_int_eq(inl_input_open_fn(&in, mem_read, &s, INPUT_PLAIN, NULL, NULL, 0), 0);
    csv_reader *r;
    ck_assert_int_eq(inl_csv_open(&r, in, NULL, &a), 0);
    const csv_field *f;
    size_t n;
    ck_assert_int_eq(inl_csv_next(r, &f, &n), 1);
    ck_assert_uint_eq(f[0].len, big);
    ck_assert_int_eq(inl_csv_next(r, &f, &n), 1);    /* the first with doubled quotes: scratch */
    unsigned long before = ta.requests;
    int records = 1;
    int rc;
    while ((rc = inl_csv_next(r, &f, &n)) == 1) records++;
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(records, 200001);
    ck_assert_uint_eq(f[0].len, big);
    ck_assert_msg(ta.requests == before, "%lu allocations while reading on", ta.requests - before);
    inl_csv_close(r);
    inl_input_close(in);
    ck_assert_no_leak(&ta);
    free(fill);
    free(t.p);
}
END_TEST

/* ---- empty lines, BOM, last line ---------------------------------------------------------------- */

START_TEST(test_empty_lines)
{
    expect("\n\na\n\n\r\nb\n\n", "3:[a]\n6:[b]\n");
    expect("", "");
    expect("\n", "");
    expect("\r\n\r\n\n", "");
    expect("a\n\n", "1:[a]\n");
    expect("\n\n\"\"", "3:<>\n");
}
END_TEST

START_TEST(test_bom)
{
    expect("\xEF\xBB\xBF" "a,b\n", "1:[a][b]\n");
    expect("\xEF\xBB\xBF\"a\",b\n", "1:<a>[b]\n");
    expect("\xEF\xBB\xBF", "");
    expect("\xEF\xBB\xBF\n\nx", "3:[x]\n");
    /* only at the very start */
    expect("a\n\xEF\xBB\xBF" "b\n", "1:[a]\n2:[\xEF\xBB\xBF" "b]\n");
    expect("\xEF\xBB", "1:[\xEF\xBB]\n");
    expect("\xEF\xBB" "a", "1:[\xEF\xBB" "a]\n");
}
END_TEST

START_TEST(test_no_final_newline)
{
    expect("a,b", "1:[a][b]\n");
    expect("a,b\nc", "1:[a][b]\n2:[c]\n");
    expect("\"a\"", "1:<a>\n");
    expect("a,", "1:[a][]\n");
    expect("a,\"b\"", "1:[a]<b>\n");
    expect("a\r\nb", "1:[a]\n2:[b]\n");
}
END_TEST

START_TEST(test_skip_rows)
{
    csv_options o;
    inl_csv_options_init(&o);
    o.skip_rows = 2;
    expect_opts("junk \"\nmore,junk\na,b\n", &o, "3:[a][b]\n");
    /* physical lines: quotes do not matter while skipping */
    o.skip_rows = 1;
    expect_opts("\"x\ny\"\nz\n", &o, "2:[y\"]\n3:[z]\n");
    /* empty lines count, the BOM goes before */
    o.skip_rows = 3;
    expect_opts("\xEF\xBB\xBFtitle\n\n\r\nh1,h2\n1,2\n", &o, "4:[h1][h2]\n5:[1][2]\n");
    /* more than there are */
    o.skip_rows = 10;
    expect_opts("a\nb\nc", &o, "");
    o.skip_rows = 1;
    expect_opts("only line without newline", &o, "");
}
END_TEST

/* ---- delimiters and quotes ---------------------------------------------------------------------- */

START_TEST(test_tab_delimiter)
{
    csv_options o;
    inl_csv_options_init(&o);
    o.delimiter = '\t';
    expect_opts("a\tb,c\t\"d\te\"\n\t\n", &o, "1:[a][b,c]<d\te>\n2:[][]\n");
    o.delimiter = ';';
    expect_opts("1,5;\"x;y\"\n", &o, "1:[1,5]<x;y>\n");
    o.delimiter = '|';
    expect_opts("a|b||\n", &o, "1:[a][b][][]\n");
}
END_TEST

START_TEST(test_no_quote)
{
    csv_options o;
    inl_csv_options_init(&o);
    o.quote = 0;
    expect_opts("\"a,b\",c\n\"\"\n", &o, "1:[\"a][b\"][c]\n2:[\"\"]\n");
    expect_opts("\"x\ny\"\n", &o, "1:[\"x]\n2:[y\"]\n");
    /* a NUL byte is data, not a quote */
    mem_src s = source("a\0b,\0\n", 6, READ_WHOLE, 0);
    input_reader *in;
    ck_assert_int_eq(inl_input_open_fn(&in, mem_read, &s, INPUT_PLAIN, NULL, NULL, 0), 0);
    csv_reader *r;
    ck_assert_int_eq(inl_csv_open(&r, in, &o, NULL), 0);
    const csv_field *f;
    size_t n;
    ck_assert_int_eq(inl_csv_next(r, &f, &n), 1);
    ck_assert_uint_eq(n, 2);
    ck_assert_bytes(f[0].data, f[0].len, "a\0b", 3);
    ck_assert_bytes(f[1].data, f[1].len, "\0", 1);
    ck_assert(!f[1].quoted);
    inl_csv_close(r);
    inl_input_close(in);
}
END_TEST

START_TEST(test_other_quote)
{
    csv_options o;
    inl_csv_options_init(&o);
    o.quote = '\'';
    expect_opts("'a,b','it''s',\"x\"\n", &o, "1:<a,b><it's>[\"x\"]\n");
}
END_TEST

/* A backslash escapes a quote or itself inside quotes; elsewhere it is
 * data, and doubled quotes end the field. */
START_TEST(test_escape)
{
    csv_options o;
    inl_csv_options_init(&o);
    o.escape = '\\';
    expect_opts("\"say \\\"hi\\\"\",1\n", &o, "1:<say \"hi\">[1]\n");
    expect_opts("\"c:\\\\dir\",\"a\\b\"\n", &o, "1:<c:\\dir><a\\b>\n");
    expect_opts("a\\\"b,\"\\\\\"\n", &o, "1:[a\\\"b]<\\>\n");
    expect_opts("\"x\"\"y\"\nz\n", &o, "!1:unexpected character after closing quote\n2:[z]\n");
    expect_opts("\"a\\\nb\",c\r\nd\r\n", &o, "1:<a\\\nb>[c]\n3:[d]\n");
    expect_opts("\"open\\\"\n", &o, "!1:unterminated quoted field\n");
    /* the quote given as its own escape: doubled quotes, as by default */
    o.escape = '"';
    expect_opts("\"a\"\"b\"\n", &o, "1:<a\"b>\n");
    /* without a quote, nothing is escaped */
    o.escape = '\\';
    o.quote = 0;
    expect_opts("a\\,b\n", &o, "1:[a\\][b]\n");
}
END_TEST

START_TEST(test_bad_options)
{
    mem_src s = source("", 0, READ_WHOLE, 0);
    input_reader *in;
    ck_assert_int_eq(inl_input_open_fn(&in, mem_read, &s, INPUT_PLAIN, NULL, NULL, 0), 0);
    static const char bad[][2] = { { '\n', '"' }, { '\r', '"' }, { ',', '\n' }, { ',', '\r' }, { '"', '"' } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        csv_options o;
        inl_csv_options_init(&o);
        o.delimiter = bad[i][0];
        o.quote = bad[i][1];
        csv_reader *r = (csv_reader *)&s;
        ck_assert_int_eq(inl_csv_open(&r, in, &o, NULL), INLAY_ERR_ARGUMENT);
        ck_assert_ptr_null(r);
    }
    csv_reader *r;
    ck_assert_int_eq(inl_csv_open(&r, NULL, NULL, NULL), INLAY_ERR_ARGUMENT);
    csv_options o;
    inl_csv_options_init(&o);
    ck_assert_int_eq(o.delimiter, ',');
    ck_assert_int_eq(o.quote, '"');
    ck_assert_uint_eq(o.skip_rows, 0);
    o.quote = 0;
    o.delimiter = '"';           /* with no quoting, '"' may delimit */
    ck_assert_int_eq(inl_csv_open(&r, in, &o, NULL), 0);
    inl_csv_close(r);
    inl_csv_options_init(&o);
    o.escape = ',';              /* the delimiter cannot escape */
    ck_assert_int_eq(inl_csv_open(&r, in, &o, NULL), INLAY_ERR_ARGUMENT);
    o.escape = '\n';
    ck_assert_int_eq(inl_csv_open(&r, in, &o, NULL), INLAY_ERR_ARGUMENT);
    inl_csv_close(NULL);
    inl_input_close(in);
}
END_TEST

/* ---- bad records --------------------------------------------------------------------------------- */

START_TEST(test_after_closing_quote)
{
    expect("a,b\n\"ab\"x,c\nd,e\n", "1:[a][b]\n!2:unexpected character after closing quote\n3:[d][e]\n");
    expect("\"a\" ,b\nc\n", "!1:unexpected character after closing quote\n2:[c]\n");
    expect("x,\"a\"\"b\"c\nd\n", "!1:unexpected character after closing quote\n2:[d]\n");
    /* a CR after the closing quote must be a CRLF */
    expect("\"a\"\rb\nc\n", "!1:unexpected character after closing quote\n2:[c]\n");
    expect("\"a\"\r", "!1:unexpected character after closing quote\n");
    /* the error on the record's last line */
    expect("\"a\nb\"x,y\nc\n", "!2:unexpected character after closing quote\n3:[c]\n");
    /* at the end, with no newline */
    expect("a\n\"b\"c", "1:[a]\n!2:unexpected character after closing quote\n");
    /* one after the other */
    expect("\"a\"b\n\"c\"d\r\ne\n", "!1:unexpected character after closing quote\n"
                                    "!2:unexpected character after closing quote\n3:[e]\n");
}
END_TEST

START_TEST(test_unterminated)
{
    expect("a\n\"bc,d\ne,f\n", "1:[a]\n!2:unterminated quoted field\n3:[e][f]\n");
    expect("\"abc", "!1:unterminated quoted field\n");
    expect("x,\"abc\n", "!1:unterminated quoted field\n");
    /* opening on the second line of a record: reading resumes after it */
    expect("\"x\ny\",\"z\nw\n", "!2:unterminated quoted field\n3:[w]\n");
    /* the quotes that follow pair up differently: errors, then records again */
    expect("a\n\"b\nc\"d\ne\n", "1:[a]\n!3:unexpected character after closing quote\n4:[e]\n");
}
END_TEST

START_TEST(test_error_details)
{
    static const char data[] = "h1,h2\r\n\"ok\",1\r\n\"bad\"x,2\r\n3,\"a\"\"b\"\r\n\"c\nd\"e\r\nlast";
    mem_src s = source(data, sizeof data - 1, READ_ONE, 0);
    input_reader *in;
    ck_assert_int_eq(inl_input_open_fn(&in, mem_read, &s, INPUT_PLAIN, NULL, NULL, 0), 0);
    csv_reader *r;
    ck_assert_int_eq(inl_csv_open(&r, in, NULL, NULL), 0);
    const csv_field *f;
    size_t n, len;
    ck_assert_str_eq(inl_csv_errmsg(r), "");
    ck_assert_uint_eq(inl_csv_record_line(r), 0);
    ck_assert_int_eq(inl_csv_next(r, &f, &n), 1);
    ck_assert_int_eq(inl_csv_next(r, &f, &n), 1);
    ck_assert_uint_eq(inl_csv_record_line(r), 2);

    ck_assert_int_eq(inl_csv_next(r, &f, &n), -1);
    ck_assert_int_eq(inl_csv_error_status(r), INLAY_ERR_VALUE);
    ck_assert_str_eq(inl_csv_errmsg(r), "unexpected character after closing quote");
    ck_assert_uint_eq(inl_csv_error_line(r), 3);
    ck_assert_uint_eq(inl_csv_error_column(r), 6);
    const char *raw = inl_csv_raw_record(r, &len);
    ck_assert_bytes(raw, len, "\"bad\"x,2", 8);

    ck_assert_int_eq(inl_csv_next(r, &f, &n), 1);
    ck_assert_int_eq(inl_csv_error_status(r), 0);
    ck_assert_uint_eq(inl_csv_record_line(r), 4);
    ck_assert_uint_eq(n, 2);
    ck_assert_bytes(f[0].data, f[0].len, "3", 1);
    ck_assert_bytes(f[1].data, f[1].len, "a\"b", 3);
    ck_assert(f[1].quoted);
    raw = inl_csv_raw_record(r, &len);
    ck_assert_bytes(raw, len, "3,\"a\"\"b\"", 8);

    ck_assert_int_eq(inl_csv_next(r, &f, &n), -1);
    ck_assert_uint_eq(inl_csv_error_line(r), 6);
    ck_assert_uint_eq(inl_csv_error_column(r), 3);
    raw = inl_csv_raw_record(r, &len);
    ck_assert_bytes(raw, len, "\"c\nd\"e", 6);

    ck_assert_int_eq(inl_csv_next(r, &f, &n), 1);
    ck_assert_uint_eq(inl_csv_record_line(r), 7);
    ck_assert_bytes(f[0].data, f[0].len, "last", 4);
    ck_assert_int_eq(inl_csv_next(r, &f, &n), 0);
    ck_assert_int_eq(inl_csv_next(r, &f, &n), 0);
    ck_assert_uint_eq(inl_csv_bytes_read(r), sizeof data - 1);
    inl_csv_close(r);
    inl_input_close(in);
}
END_TEST

/* ---- raw records ------------------------------------------------------------------------------- */

START_TEST(test_raw_record)
{
    static const char data[] = "\xEF\xBB\xBF" "a,\"b\"\"c\"\r\n\n\nd\n\"e\nf\",g\r\n\"h\"";
    static const char *raws[] = { "a,\"b\"\"c\"", "d", "\"e\nf\",g", "\"h\"" };
    mem_src s = source(data, sizeof data - 1, READ_RANDOM, 4);
    input_reader *in;
    ck_assert_int_eq(inl_input_open_fn(&in, mem_read, &s, INPUT_PLAIN, NULL, NULL, 0), 0);
    csv_reader *r;
    ck_assert_int_eq(inl_csv_open(&r, in, NULL, NULL), 0);
    const csv_field *f;
    size_t n, len;
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(inl_csv_next(r, &f, &n), 1);
        const char *raw = inl_csv_raw_record(r, &len);
        ck_assert_bytes(raw, len, raws[i], strlen(raws[i]));
    }
    ck_assert_int_eq(inl_csv_next(r, &f, &n), 0);
    inl_csv_close(r);
    inl_input_close(in);
}
END_TEST

START_TEST(test_bytes_and_lines)
{
    static const char data[] = "\xEF\xBB\xBF" "a,b\r\n\n\"c\nd\"\ne";
    static const uint64_t bytes[] = { 8, 15, 16 }, lines[] = { 1, 3, 5 };
    mem_src s = source(data, sizeof data - 1, READ_ONE, 0);
    input_reader *in;
    ck_assert_int_eq(inl_input_open_fn(&in, mem_read, &s, INPUT_PLAIN, NULL, NULL, 0), 0);
    csv_reader *r;
    ck_assert_int_eq(inl_csv_open(&r, in, NULL, NULL), 0);
    ck_assert_uint_eq(inl_csv_bytes_read(r), 0);
    const csv_field *f;
    size_t n;
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(inl_csv_next(r, &f, &n), 1);
        ck_assert_uint_eq(inl_csv_bytes_read(r), bytes[i]);
        ck_assert_uint_eq(inl_csv_record_line(r), lines[i]);
    }
    ck_assert_int_eq(inl_csv_next(r, &f, &n), 0);
    ck_assert_uint_eq(inl_csv_bytes_read(r), sizeof data - 1);
    inl_csv_close(r);
    inl_input_close(in);
}
END_TEST

/* ---- compressed input ------------------------------------------------------------------------ */

static uint8_t *gzip_mem(const void *data, size_t len, size_t *out_len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    ck_assert_int_eq(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, (uLong)len);
    uint8_t *out = malloc(cap);
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    *out_len = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

static char *run_compressed(const uint8_t *z, size_t zlen, input_compression c, int mode)
{
    mem_src s = source(z, zlen, mode, 1000);
    input_reader *in;
    ck_assert_int_eq(inl_input_open_fn(&in, mem_read, &s, c, NULL, NULL, 0), 0);
    csv_reader *r;
    ck_assert_int_eq(inl_csv_open(&r, in, NULL, NULL), 0);
    char *t = transcript_of(r, true);
    inl_csv_close(r);
    inl_input_close(in);
    return t;
}

START_TEST(test_gzip_zstd)
{
    text t = { 0 };
    for (int i = 0; i < 50000; i++) text_printf(&t, "%d,\"n\"\"%d\",x\r\n", i, i % 7);
    char *want = run(t.p, t.len, READ_WHOLE, 0, NULL, true);
    size_t glen;
    uint8_t *g = gzip_mem(t.p, t.len, &glen);
    size_t zcap = ZSTD_compressBound(t.len);
    uint8_t *z = malloc(zcap);
    size_t zlen = ZSTD_compress(z, zcap, t.p, t.len, 1);
    ck_assert(!ZSTD_isError(zlen));
    for (int mode = READ_WHOLE; mode <= READ_RANDOM; mode += 2) {
        char *got = run_compressed(g, glen, INPUT_GZIP, mode);
        ck_assert(strcmp(got, want) == 0);
        free(got);
        got = run_compressed(z, zlen, INPUT_ZSTD, mode);
        ck_assert(strcmp(got, want) == 0);
        free(got);
    }
    /* a file by its name */
    char path[256];
    snprintf(path, sizeof path, "/tmp/check_csv_%ld.csv.zst", (long)getpid());
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(z, 1, zlen, fp), zlen);
    fclose(fp);
    input_reader *in;
    ck_assert_int_eq(inl_input_open(&in, path, NULL, NULL, 0), 0);
    csv_reader *r;
    ck_assert_int_eq(inl_csv_open(&r, in, NULL, NULL), 0);
    char *got = transcript_of(r, true);
    ck_assert(strcmp(got, want) == 0);
    ck_assert_uint_eq(inl_csv_bytes_read(r), t.len);
    ck_assert_uint_eq(inl_input_consumed(in), zlen);
    free(got);
    inl_csv_close(r);
    inl_input_close(in);
    unlink(path);
    free(g);
    free(z);
    free(want);
    free(t.p);
}
END_TEST

/* data compressed with zstd (level 1) into a new file at path; returns its size. */
static size_t zstd_file(const char *path, const void *data, size_t len)
{
    size_t zcap = ZSTD_compressBound(len);
    uint8_t *z = malloc(zcap);
    ck_assert_ptr_nonnull(z);
    size_t zlen = ZSTD_compress(z, zcap, data, len, 1);
    ck_assert(!ZSTD_isError(zlen));
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(z, 1, zlen, fp), zlen);
    fclose(fp);
    free(z);
    return zlen;
}

/* A compressed file read ahead on the input's thread: records across block
 * boundaries, a record longer than a block's head room (and one longer
 * than a block) read through the reader's own buffer, then blocks again;
 * the same transcript, lines and bytes as the plain bytes give. */
START_TEST(test_readahead_blocks)
{
    text t = { 0 };
    uint64_t seed = 77;
    for (int part = 0; part < 3; part++) {
        for (int i = 0; i < 60000; i++)
            text_printf(&t, "%d,\"q%llu\",x%d\r\n", i, (unsigned long long)(rng_next(&seed) % 1000000), part);
        const size_t longest = part == 0 ? 100 * 1000 : part == 1 ? 3 * 1000 * 1000 : 65 * 1024;
        text_add(&t, "long,\"", 6);
        for (size_t k = 0; k < longest; k++) text_add(&t, k % 1000 == 999 ? "\n" : "a", 1);
        text_add(&t, "\",end\n", 6);
        text_add(&t, "bad,\"x\"y,z\n", 11);
    }
    char *want = run(t.p, t.len, READ_WHOLE, 0, NULL, true);
    char path[256];
    snprintf(path, sizeof path, "/tmp/check_csv_ra_%ld.csv.zst", (long)getpid());
    const size_t zlen = zstd_file(path, t.p, t.len);
    for (int cut = 0; cut < 2; cut++) {
        if (cut) ck_assert_int_eq(truncate(path, (off_t)(zlen - 2)), 0);
        input_reader *in;
        ck_assert_int_eq(inl_input_open(&in, path, NULL, NULL, 0), 0);
        csv_reader *r;
        ck_assert_int_eq(inl_csv_open(&r, in, NULL, NULL), 0);
        const csv_field *f;
        size_t n;
        ck_assert_int_eq(inl_csv_next(r, &f, &n), 1);   /* the first record before the thread starts */
        ck_assert_int_eq(inl_input_readahead(in), 0);
        ck_assert(inl_input_reading_ahead(in));
        char *got = transcript_of(r, true);
        const char *rest = strchr(want, '\n') + 1;   /* the first record's line */
        if (!cut) {
            ck_assert_msg(strcmp(got, rest) == 0, "the transcripts differ");
            ck_assert_uint_eq(inl_csv_bytes_read(r), t.len);
            ck_assert_uint_eq(inl_input_consumed(in), zlen);
        } else {
            char fatal[400];
            snprintf(fatal, sizeof fatal, "FATAL %s: truncated zstd data\n", path);
            const size_t head = strlen(got) - strlen(fatal);
            ck_assert_msg(strlen(got) > strlen(fatal) && strcmp(got + head, fatal) == 0, "no fatal error at the end");
            ck_assert_msg(strncmp(got, rest, head) == 0, "the records before the failure differ");
        }
        free(got);
        inl_csv_close(r);
        inl_input_close(in);
    }
    unlink(path);
    free(want);
    free(t.p);
}
END_TEST

/* Every allocation refused in turn while a compressed file with a record
 * longer than a block is read ahead: the records before, then an "out of
 * memory" that ends the reader (or a read-ahead that never started), and
 * nothing leaks. */
START_TEST(test_readahead_nomem)
{
    text t = { 0 };
    for (int i = 0; i < 30000; i++) text_printf(&t, "%d,abc\n", i);
    text_add(&t, "long,\"", 6);
    for (size_t k = 0; k < 3 * 1000 * 1000; k++) text_add(&t, "a", 1);
    text_add(&t, "\"\n", 2);
    for (int i = 0; i < 30000; i++) text_printf(&t, "%d,def\n", i);
    char *want = run(t.p, t.len, READ_WHOLE, 0, NULL, false);
    char path[256];
    snprintf(path, sizeof path, "/tmp/check_csv_ranm_%ld.csv.zst", (long)getpid());
    zstd_file(path, t.p, t.len);
    bool done = false;
    unsigned long fail;
    int failures = 0;
    for (fail = 1; !done && fail < 200; fail++) {
        test_alloc ta = { .fail_at = fail };
        inlay_allocator a = test_allocator(&ta);
        input_reader *in;
        if (inl_input_open(&in, path, &a, NULL, 0) != 0) {
            ck_assert_no_leak(&ta);
            continue;
        }
        csv_reader *r;
        if (inl_csv_open(&r, in, NULL, &a) != 0) {
            inl_input_close(in);
            ck_assert_no_leak(&ta);
            continue;
        }
        (void)inl_input_readahead(in);   /* refused: read without it */
        char *got = transcript_of(r, false);
        if (ta.refused == 0) {
            ck_assert(inl_input_reading_ahead(in));
            ck_assert_msg(strcmp(got, want) == 0, "the transcripts differ");
            done = true;
        } else if (strcmp(got, want) != 0) {
            static const char *const tail = "out of memory\n";
            const size_t gl = strlen(got), tl = strlen(tail);
            ck_assert_msg(gl > tl && strcmp(got + gl - tl, tail) == 0 && strstr(got, "FATAL ") != NULL,
                          "N=%lu: no out-of-memory end", fail);
            const char *fatal = strstr(got, "FATAL ");
            ck_assert_msg(strncmp(got, want, (size_t)(fatal - got)) == 0, "N=%lu: the records before differ", fail);
            failures++;
        }
        free(got);
        inl_csv_close(r);
        inl_input_close(in);
        ck_assert_no_leak(&ta);
    }
    ck_assert(done);
    ck_assert_int_gt(failures, 0);
    unlink(path);
    free(want);
    free(t.p);
}
END_TEST

START_TEST(test_input_failure)
{
    /* truncated gzip: the records before it, then a failure that stays */
    text t = { 0 };
    for (int i = 0; i < 100000; i++) text_printf(&t, "%d,abc\n", i);
    size_t glen;
    uint8_t *g = gzip_mem(t.p, t.len, &glen);
    mem_src s = source(g, glen - 10, READ_WHOLE, 0);
    input_reader *in;
    ck_assert_int_eq(inl_input_open_fn(&in, mem_read, &s, INPUT_GZIP, NULL, NULL, 0), 0);
    csv_reader *r;
    ck_assert_int_eq(inl_csv_open(&r, in, NULL, NULL), 0);
    const csv_field *f;
    size_t n;
    int rc, records = 0;
    while ((rc = inl_csv_next(r, &f, &n)) == 1) records++;
    ck_assert_int_eq(rc, -1);
    ck_assert_int_gt(records, 90000);
    ck_assert_int_eq(inl_csv_error_status(r), INLAY_ERR_IO);
    ck_assert_str_eq(inl_csv_errmsg(r), "<input>: truncated gzip data");
    ck_assert_int_eq(inl_csv_next(r, &f, &n), -1);
    ck_assert_int_eq(inl_csv_error_status(r), INLAY_ERR_IO);
    inl_csv_close(r);
    inl_input_close(in);

    /* a failing read callback */
    s = source(t.p, t.len, READ_RANDOM, 1000);
    s.fail_call = 5;
    ck_assert_int_eq(inl_input_open_fn(&in, mem_read, &s, INPUT_PLAIN, NULL, NULL, 0), 0);
    ck_assert_int_eq(inl_csv_open(&r, in, NULL, NULL), 0);
    while ((rc = inl_csv_next(r, &f, &n)) == 1) continue;
    ck_assert_int_eq(rc, -1);
    ck_assert_str_eq(inl_csv_errmsg(r), "<input>: read error");
    ck_assert_int_eq(inl_csv_error_status(r), INLAY_ERR_IO);
    inl_csv_close(r);
    inl_input_close(in);
    free(g);
    free(t.p);
}
END_TEST

/* The bytes zlib gets from a damaged gzip stream before it fails, cut
 * after their last LF: the records complete before the damage. */
static size_t before_damage(const uint8_t *g, size_t glen, uint8_t *out, size_t cap)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    ck_assert_int_eq(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
    z.next_in = (Bytef *)(uintptr_t)g;
    z.avail_in = (uInt)glen;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    ck_assert_int_ne(inflate(&z, Z_SYNC_FLUSH), Z_STREAM_END);
    size_t n = cap - z.avail_out;
    inflateEnd(&z);
    while (n && out[n - 1] != '\n') n--;
    return n;
}

/* Damaged compressed input under a record longer than the head room of the
 * input's blocks (read through the reader's own buffer, in several reads):
 * every record complete before the damage comes out, in order, bad ones
 * too, then the input's error; the same whatever the read sizes, with the
 * read-ahead too. */
START_TEST(test_damage_keeps_records)
{
    text t = { 0 };
    for (int i = 0; i < 3000; i++) text_printf(&t, "%d,abc\n", i);
    text_add(&t, "long,\"", 6);
    for (int i = 0; i < 300 * 1000; i++) text_add(&t, "y", 1);
    text_add(&t, "\"\n", 2);
    for (int i = 0; i < 400; i++) text_printf(&t, i == 200 ? "\"bad\"x,%d\n" : "%d,def\n", i);
    size_t glen;
    uint8_t *g = gzip_mem(t.p, t.len, &glen);
    const size_t cut = glen - 12;   /* the trailer and the last few bytes of the data */
    uint8_t *plain = malloc(t.len);
    ck_assert_ptr_nonnull(plain);
    const size_t kept = before_damage(g, cut, plain, t.len);
    ck_assert_uint_gt(kept, t.len - 4000);   /* past the long record and the bad one */
    char *want = run(plain, kept, READ_WHOLE, 0, NULL, true);
    text w = { 0 };
    text_add(&w, want, strlen(want));
    text_printf(&w, "FATAL <input>: truncated gzip data\n");
    for (int mode = READ_WHOLE; mode < READ_MODES; mode++) {
        char *got = run_compressed(g, cut, INPUT_GZIP, mode);
        ck_assert_msg(strcmp(got, w.p) == 0, "read mode %d: the records before the damage differ", mode);
        free(got);
    }
    /* from a file, read ahead on the input's thread */
    char path[64];
    snprintf(path, sizeof path, "/tmp/check_csv_%ld.csv.gz", (long)getpid());
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(g, 1, cut, fp), cut);
    fclose(fp);
    input_reader *in;
    ck_assert_int_eq(inl_input_open(&in, path, NULL, NULL, 0), 0);
    ck_assert_int_eq(inl_input_readahead(in), 0);
    csv_reader *r;
    ck_assert_int_eq(inl_csv_open(&r, in, NULL, NULL), 0);
    char *got = transcript_of(r, true);
    text f = { 0 };
    text_add(&f, want, strlen(want));
    text_printf(&f, "FATAL %s: truncated gzip data\n", path);
    ck_assert_msg(strcmp(got, f.p) == 0, "read ahead: the records before the damage differ");
    inl_csv_close(r);
    inl_input_close(in);
    unlink(path);
    free(got);
    free(f.p);
    free(w.p);
    free(want);
    free(plain);
    free(g);
    free(t.p);
}
END_TEST

/* ---- out of memory ------------------------------------------------------------------------------ */

START_TEST(test_nomem_open)
{
    mem_src s = source("a\n", 2, READ_WHOLE, 0);
    input_reader *in;
    ck_assert_int_eq(inl_input_open_fn(&in, mem_read, &s, INPUT_PLAIN, NULL, NULL, 0), 0);
    bool done = false;
    for (unsigned long fail = 1; !done; fail++) {
        test_alloc ta = { .fail_at = fail };
        inlay_allocator a = test_allocator(&ta);
        csv_reader *r;
        int rc = inl_csv_open(&r, in, NULL, &a);
        if (rc == 0) {
            ck_assert_uint_eq(ta.refused, 0);
            inl_csv_close(r);
            done = true;
        } else {
            ck_assert_int_eq(rc, INLAY_ERR_NOMEM);
            ck_assert_ptr_null(r);
        }
        ck_assert_no_leak(&ta);
        ck_assert_uint_lt(fail, 20);
    }
    inl_input_close(in);
}
END_TEST

START_TEST(test_nomem_growth)
{
    /* every growth: the field array, the buffer (a 3 MiB field), scratch
     * (doubled quotes); for the input and the reader on one allocator */
    text t = { 0 };
    text_add(&t, "\"a\"\"b\",", 7);
    for (int i = 0; i < 200; i++) text_printf(&t, "%d,", i);
    text_add(&t, "x\n", 2);
    size_t big = 3 << 20;
    char *fill = malloc(big);
    memset(fill, 'f', big);
    text_add(&t, "\"", 1);
    text_add(&t, fill, big);
    text_add(&t, "\"\"\"\n", 4);
    text_add(&t, "end\n", 4);
    char *want = run(t.p, t.len, READ_WHOLE, 0, NULL, false);
    bool done = false;
    for (unsigned long fail = 1; !done; fail++) {
        test_alloc ta = { .fail_at = fail, .fail_after = true };
        inlay_allocator a = test_allocator(&ta);
        mem_src s = source(t.p, t.len, READ_RANDOM, 1 << 19);
        input_reader *in;
        csv_reader *r = NULL;
        int rc = inl_input_open_fn(&in, mem_read, &s, INPUT_PLAIN, &a, NULL, 0);
        if (rc == 0) rc = inl_csv_open(&r, in, NULL, &a);
        if (rc != 0) {
            ck_assert_int_eq(rc, INLAY_ERR_NOMEM);
        } else {
            char *got = transcript_of(r, false);
            if (ta.refused == 0) {
                ck_assert_str_eq(got, want);
                done = true;
            } else {
                ck_assert_msg(strstr(got, "FATAL out of memory\n") != NULL, "%s", got);
                const csv_field *f;
                size_t n;
                ck_assert_int_eq(inl_csv_next(r, &f, &n), -1);      /* it stays failed */
                ck_assert_int_eq(inl_csv_error_status(r), INLAY_ERR_NOMEM);
            }
            free(got);
        }
        inl_csv_close(r);
        inl_input_close(in);
        ck_assert_no_leak(&ta);
        ck_assert_uint_lt(fail, 50);
    }
    free(want);
    free(fill);
    free(t.p);
}
END_TEST

static Suite *csv_suite(void)
{
    Suite *s = suite_create("csv");
    TCase *c = tcase_create("quoting");
    tcase_add_test(c, test_unquoted);
    tcase_add_test(c, test_quoted);
    tcase_add_test(c, test_doubled_quotes);
    tcase_add_test(c, test_quote_in_unquoted);
    tcase_add_test(c, test_only_quoted_empty);
    tcase_add_test(c, test_many_fields);
    suite_add_tcase(s, c);

    c = tcase_create("line ends");
    tcase_add_test(c, test_lf_crlf_mixed);
    tcase_add_test(c, test_lone_cr);
    tcase_add_test(c, test_newlines_in_quotes);
    tcase_add_test(c, test_crlf_split);
    suite_add_tcase(s, c);

    c = tcase_create("read boundaries and the reference parser");
    tcase_set_timeout(c, 240);
    tcase_add_test(c, test_buffer_boundary);
    tcase_add_test(c, test_random_agree);
    tcase_add_test(c, test_random_agree_large);
    suite_add_tcase(s, c);

    c = tcase_create("long fields");
    tcase_set_timeout(c, 120);
    tcase_add_test(c, test_long_fields);
    tcase_add_test(c, test_buffer_kept);
    suite_add_tcase(s, c);

    c = tcase_create("empty lines, BOM, last line, skip_rows");
    tcase_add_test(c, test_empty_lines);
    tcase_add_test(c, test_bom);
    tcase_add_test(c, test_no_final_newline);
    tcase_add_test(c, test_skip_rows);
    suite_add_tcase(s, c);

    c = tcase_create("delimiters and quotes");
    tcase_add_test(c, test_tab_delimiter);
    tcase_add_test(c, test_no_quote);
    tcase_add_test(c, test_other_quote);
    tcase_add_test(c, test_escape);
    tcase_add_test(c, test_bad_options);
    suite_add_tcase(s, c);

    c = tcase_create("bad records");
    tcase_add_test(c, test_after_closing_quote);
    tcase_add_test(c, test_unterminated);
    tcase_add_test(c, test_error_details);
    suite_add_tcase(s, c);

    c = tcase_create("raw records, bytes and lines");
    tcase_add_test(c, test_raw_record);
    tcase_add_test(c, test_bytes_and_lines);
    suite_add_tcase(s, c);

    c = tcase_create("compressed input and input failures");
    tcase_set_timeout(c, 60);
    tcase_add_test(c, test_gzip_zstd);
    tcase_add_test(c, test_damage_keeps_records);
    tcase_add_test(c, test_readahead_blocks);
    tcase_add_test(c, test_readahead_nomem);
    tcase_add_test(c, test_input_failure);
    suite_add_tcase(s, c);

    c = tcase_create("out of memory");
    tcase_set_timeout(c, 120);
    tcase_add_test(c, test_nomem_open);
    tcase_add_test(c, test_nomem_growth);
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(csv_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
