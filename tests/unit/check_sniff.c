/*
 * check_sniff.c — the format and CSV dialect sniffer (runtime/input/sniff.c):
 * each delimiter (, ; tab |), quotes (" ' none) and escapes (doubled,
 * backslash), a header or not by DuckDB's rule (the first row all text
 * over typed columns, a first row typed like the rest, all-text files,
 * single rows, a schema's names), a BOM, CRLF, quoted headers; options
 * given are kept and left out of `sniffed`; NDJSON or CSV by the first
 * byte and by extension; the sample growing over a long quoted field; and
 * finding record boundaries in a chunk cut from the middle of a file,
 * skipping it where quoted newlines make them uncertain.
 */
#define _POSIX_C_SOURCE 200809L
#include "sniff.h"
#include "csv.h"
#include "input.h"

#include "unit.h"

/* The dialect of text (the whole input) under options o (NULL: defaults). */
static inlay_source_dialect sniff_with(const char *path, const char *text, const inlay_source_options *o,
                                       const char *const *names, size_t nnames)
{
    inlay_source_options dflt;
    if (!o) {
        inlay_source_options_init(&dflt);
        o = &dflt;
    }
    inlay_source_dialect d;
    memset(&d, 0, sizeof d);
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    ck_assert_int_eq(inl_sniff_text((const uint8_t *)text, strlen(text), true, path, o, names, nnames, &d, &a), 0);
    ck_assert_no_leak(&ta);
    return d;
}

static inlay_source_dialect sniff(const char *text)
{
    return sniff_with("in.csv", text, NULL, NULL, 0);
}

static void expect_dialect(const inlay_source_dialect *d, char delim, char quote, char escape, bool header)
{
    ck_assert_int_eq(d->format, INLAY_FORMAT_CSV);
    ck_assert_msg(d->delimiter == delim, "delimiter %d, want %d", d->delimiter, delim);
    ck_assert_msg(d->quote == quote, "quote %d, want %d", d->quote, quote);
    ck_assert_msg(d->escape == escape, "escape %d, want %d", d->escape, escape);
    ck_assert_msg(d->header == header, "header %d, want %d", d->header, header);
}

#define ALL_CSV (INLAY_SNIFFED_DELIMITER | INLAY_SNIFFED_QUOTE | INLAY_SNIFFED_ESCAPE | INLAY_SNIFFED_HEADER)

/* ---- delimiters ----------------------------------------------------------------------- */

START_TEST(test_delimiters)
{
    inlay_source_dialect d = sniff("a,b,c\n1,2,3\n4,5,6\n");
    expect_dialect(&d, ',', '"', '"', true);
    ck_assert_uint_eq(d.sniffed, ALL_CSV | INLAY_SNIFFED_FORMAT);
    d = sniff("a;b;c\n1;2,5;3\n4;5,5;6\n");          /* decimal commas inside the fields */
    expect_dialect(&d, ';', '"', '"', true);
    d = sniff("a\tb\tc\n1\tx, y\t3\n4\tz\t6\n");
    expect_dialect(&d, '\t', '"', '"', true);
    d = sniff("a|b|c\n1|x;y|3\n4|z,w|6\n");
    expect_dialect(&d, '|', '"', '"', true);
    /* the delimiter that keeps the field count steady, not the most frequent byte */
    d = sniff("name;note\nann;a, b, c\nbob;d, e\ncid;f\n");
    expect_dialect(&d, ';', '"', '"', true);
    /* one column: nothing splits it, the default stays */
    d = sniff("word\nalpha\nbeta\n");
    expect_dialect(&d, ',', '"', '"', true);
}
END_TEST

/* A delimiter inside quotes does not count. */
START_TEST(test_delimiter_in_quotes)
{
    inlay_source_dialect d = sniff("id;text\n1;\"a,b,c,d\"\n2;\"e,f,g,h\"\n3;\"i,j,k,l\"\n");
    expect_dialect(&d, ';', '"', '"', true);
}
END_TEST

/* ---- quotes and escapes ----------------------------------------------------------------- */

START_TEST(test_quotes)
{
    /* no quote anywhere: '"', the default that reads any quoting further on */
    inlay_source_dialect d = sniff("a,b\nx,1\ny,2\n");
    expect_dialect(&d, ',', '"', '"', true);
    /* single quotes around fields holding the delimiter */
    d = sniff("'a','b'\n'x,1',2\n'y',3\n");
    expect_dialect(&d, ',', '\'', '\'', true);
    /* a '"' inside a field is data, not a quote */
    d = sniff("item,size\nboard,5\" wide\nplank,7\" long\n");
    expect_dialect(&d, ',', '"', '"', true);
    /* a quote that breaks a record of a quoted file stays: the record is reported later */
    d = sniff("a,b\n\"x, y\",1\n\"z, w\",2\n\"broken\"x,3\n\"v, u\",4\n");
    expect_dialect(&d, ',', '"', '"', true);
    /* a quote that breaks most records is no quote */
    d = sniff("a,b\n\"x\"1,1\n\"y\"2,2\n\"z\"3,3\n\"w\"4,4\n");
    ck_assert_int_ne(d.quote, '"');
}
END_TEST

START_TEST(test_escapes)
{
    /* doubled quotes */
    inlay_source_dialect d = sniff("a,b\n\"say \"\"hi\"\"\",1\n\"x\",2\n");
    expect_dialect(&d, ',', '"', '"', true);
    /* backslash-escaped quotes (and a backslash escaping itself) */
    d = sniff("a,b\n\"say \\\"hi\\\"\",1\n\"c:\\\\dir\",2\n\"x\",3\n");
    expect_dialect(&d, ',', '"', '\\', true);
    /* backslashes that escape nothing: doubled quotes still */
    d = sniff("path,n\n\"c:\\dir\\x\",1\n\"say \"\"hi\"\"\",2\n");
    expect_dialect(&d, ',', '"', '"', true);
}
END_TEST

/* ---- header ---------------------------------------------------------------------------- */

START_TEST(test_header_rule)
{
    /* the first row all text over numbers: a header */
    inlay_source_dialect d = sniff("id,score\n1,2.5\n2,3\n");
    ck_assert(d.header);
    /* the first row typed like the rest: data */
    d = sniff("1,2.5\n2,3.5\n3,4\n");
    ck_assert(!d.header);
    /* ... but a double over a column of integers does not fit it (DuckDB: a header too) */
    d = sniff("1,2.5\n2,3\n3,4\n");
    ck_assert(d.header);
    d = sniff("x,1\ny,2\nz,3\n");                 /* text over text, a number over numbers */
    ck_assert(!d.header);
    /* one cell that does not parse as its column: a header */
    d = sniff("name,2024\nann,5\nbob,6\n");
    ck_assert(!d.header);                         /* "2024" parses as the int column: data (as DuckDB) */
    d = sniff("a,when\n1,2024-01-01\n2,2024-01-02\n");
    ck_assert(d.header);
    /* all text: a header */
    d = sniff("first,last\nann,lee\nbob,ray\n");
    ck_assert(d.header);
    /* a single row: a header when it is all text */
    d = sniff("x,y\n");
    ck_assert(d.header);
    d = sniff("x;1\n");
    ck_assert(!d.header);
    /* booleans, dates, times and timestamps are typed columns too */
    d = sniff("flag,day\ntrue,2024-01-01\nfalse,2024-01-02\n");
    ck_assert(d.header);
    d = sniff("true,2024-01-01\nfalse,2024-01-02\n");
    ck_assert(!d.header);
    /* an empty first cell fits any column */
    d = sniff("a,,c\n1,2,3\n");
    ck_assert(d.header);
    d = sniff("1,,3\n4,5,6\n");
    ck_assert(!d.header);
}
END_TEST

/* With a schema, a first row naming one of its columns is a header. */
START_TEST(test_header_schema_names)
{
    static const char *const names[] = { "name", "city" };
    inlay_source_dialect d = sniff_with("in.csv", "name,city\nann,oslo\n", NULL, names, 2);
    ck_assert(d.header);
    d = sniff_with("in.csv", "bob,rome\nann,oslo\n", NULL, names, 2);
    ck_assert(d.header);                          /* all text: a header all the same */
    static const char *const ids[] = { "id" };
    d = sniff_with("in.csv", "7\n8\n", NULL, ids, 1);
    ck_assert(!d.header);
    d = sniff_with("in.csv", "id\n8\n", NULL, ids, 1);
    ck_assert(d.header);
}
END_TEST

START_TEST(test_quoted_header)
{
    inlay_source_dialect d = sniff("\"id\",\"name, full\"\n1,\"ann, lee\"\n2,\"bob, ray\"\n");
    expect_dialect(&d, ',', '"', '"', true);
    d = sniff("\"1\",\"2\"\n3,4\n");               /* quoted numbers are numbers to the header rule */
    ck_assert(!d.header);
}
END_TEST

/* ---- bytes around the records ------------------------------------------------------------------ */

START_TEST(test_bom_and_crlf)
{
    inlay_source_dialect d = sniff("\xEF\xBB\xBF" "a;b\r\n1;2\r\n3;4\r\n");
    expect_dialect(&d, ';', '"', '"', true);
    d = sniff("\xEF\xBB\xBF" "1|2\r\n3|4\r\n");
    expect_dialect(&d, '|', '"', '"', false);
    /* a quoted field across a CRLF */
    d = sniff("a\tb\r\n\"x\r\ny\"\t1\r\n\"z\"\t2\r\n");
    expect_dialect(&d, '\t', '"', '"', true);
}
END_TEST

START_TEST(test_skip_rows)
{
    inlay_source_options o;
    inlay_source_options_init(&o);
    o.skip_rows = 2;
    inlay_source_dialect d = sniff_with("in.csv", "# exported, by hand\n# v2\nx|y\n1|2\n", &o, NULL, 0);
    expect_dialect(&d, '|', '"', '"', true);
}
END_TEST

/* ---- options given ----------------------------------------------------------------------------- */

START_TEST(test_given_options)
{
    inlay_source_options o;
    inlay_source_options_init(&o);
    o.delimiter = ';';
    inlay_source_dialect d = sniff_with("in.csv", "a,b\n1,2\n", &o, NULL, 0);
    ck_assert_int_eq(d.delimiter, ';');
    ck_assert_uint_eq(d.sniffed & INLAY_SNIFFED_DELIMITER, 0);
    ck_assert_uint_eq(d.sniffed & INLAY_SNIFFED_QUOTE, INLAY_SNIFFED_QUOTE);
    inlay_source_options_init(&o);
    o.header = 0;
    o.quote = 0;
    d = sniff_with("in.csv", "a,b\n\"1\",2\n", &o, NULL, 0);
    expect_dialect(&d, ',', 0, 0, false);
    ck_assert_uint_eq(d.sniffed, INLAY_SNIFFED_DELIMITER | INLAY_SNIFFED_ESCAPE | INLAY_SNIFFED_FORMAT);
    inlay_source_options_init(&o);
    o.header = 1;
    o.escape = '\\';
    o.format = INLAY_FORMAT_CSV;
    d = sniff_with("in.txt", "1,2\n3,4\n", &o, NULL, 0);
    expect_dialect(&d, ',', '"', '\\', true);
    ck_assert_uint_eq(d.sniffed, INLAY_SNIFFED_DELIMITER | INLAY_SNIFFED_QUOTE);
    /* a NULL null marker is the source's to report: the sniffer reads on without markers */
    inlay_source_options_init(&o);
    const char *const markers[] = { "NA", NULL };
    o.null_values = markers;
    o.null_count = 2;
    d = sniff_with("in.csv", "a,b\nNA,1\n", &o, NULL, 0);
    ck_assert(d.header);
    /* the escape given as the quote itself: doubled quotes */
    inlay_source_options_init(&o);
    o.escape = '"';
    d = sniff_with("in.csv", "a,b\n\"x\",1\n", &o, NULL, 0);
    ck_assert_int_eq(d.escape, '"');
}
END_TEST

/* .tsv and .tab are tab-separated whatever the content (as before); the
 * content tells a tab-separated pipe. */
START_TEST(test_tsv)
{
    inlay_source_dialect d = sniff_with("x.tsv.gz", "a,b\tc\n1,5\t2\n", NULL, NULL, 0);
    expect_dialect(&d, '\t', '"', '"', true);
    ck_assert_uint_eq(d.sniffed & INLAY_SNIFFED_DELIMITER, INLAY_SNIFFED_DELIMITER);   /* not given */
    d = sniff_with("-", "a\tb\tc\n1\t2\t3\n", NULL, NULL, 0);
    expect_dialect(&d, '\t', '"', '"', true);
}
END_TEST

/* ---- format ------------------------------------------------------------------------------------- */

START_TEST(test_format)
{
    inlay_source_dialect d = sniff_with("-", "{\"a\": 1}\n", NULL, NULL, 0);
    ck_assert_int_eq(d.format, INLAY_FORMAT_NDJSON);
    ck_assert_uint_eq(d.sniffed, INLAY_SNIFFED_FORMAT);
    d = sniff_with("data.txt", "\xEF\xBB\xBF \r\n\t[1, 2]\n", NULL, NULL, 0);
    ck_assert_int_eq(d.format, INLAY_FORMAT_NDJSON);
    d = sniff_with("-", "a,b\n{x},1\n", NULL, NULL, 0);
    ck_assert_int_eq(d.format, INLAY_FORMAT_CSV);
    d = sniff_with("x.csv", "{\"a\": 1}\n", NULL, NULL, 0);   /* the extension says CSV */
    ck_assert_int_eq(d.format, INLAY_FORMAT_CSV);
    d = sniff_with("x.JSONL.zst", "a,b\n", NULL, NULL, 0);    /* and NDJSON, after the compression */
    ck_assert_int_eq(d.format, INLAY_FORMAT_NDJSON);
    inlay_source_options o;
    inlay_source_options_init(&o);
    o.format = INLAY_FORMAT_CSV;
    d = sniff_with("-", "{\"a\": 1}\n", &o, NULL, 0);
    ck_assert_int_eq(d.format, INLAY_FORMAT_CSV);
    ck_assert_uint_eq(d.sniffed & INLAY_SNIFFED_FORMAT, 0);
    bool tsv;
    ck_assert_int_eq(inl_sniff_format_of("a.TSV", &tsv), INLAY_FORMAT_CSV);
    ck_assert(tsv);
    ck_assert_int_eq(inl_sniff_format_of("a.dat", &tsv), INLAY_FORMAT_AUTO);
    ck_assert(!tsv);
}
END_TEST

/* ---- over an input -------------------------------------------------------------------------------- */

typedef struct mem {
    const char *p;
    size_t len, pos;
} mem;

static ptrdiff_t mem_read(void *ctx, void *dst, size_t cap)
{
    mem *m = ctx;
    size_t n = m->len - m->pos < cap ? m->len - m->pos : cap;
    if (n > 1000) n = 1000;   /* a pipe's short reads */
    memcpy(dst, m->p + m->pos, n);
    m->pos += n;
    return (ptrdiff_t)n;
}

/* The sample is put back: reading the input gives every byte, in order. */
START_TEST(test_input_put_back)
{
    size_t len = 3 * SNIFF_SAMPLE_BYTES;
    char *text = malloc(len + 1);
    size_t n = (size_t)snprintf(text, len, "k;v\n");
    for (unsigned i = 0; n + 40 < len; i++) n += (size_t)snprintf(text + n, len - n, "%u;value %u\n", i, i * 7);
    mem m = { text, n, 0 };
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    input_reader *in;
    ck_assert_int_eq(inl_input_open_fn(&in, mem_read, &m, INPUT_AUTO, &a, NULL, 0), 0);
    inlay_source_options o;
    inlay_source_options_init(&o);
    inlay_source_dialect d;
    memset(&d, 0, sizeof d);
    char err[200];
    ck_assert_int_eq(inl_sniff_input(in, "-", &o, NULL, 0, &d, &a, err, sizeof err), 0);
    expect_dialect(&d, ';', '"', '"', true);
    ck_assert_int_eq(d.compression, INLAY_INPUT_PLAIN);
    char *got = malloc(n + 1);
    size_t k = 0;
    ptrdiff_t r;
    while ((r = inl_input_read(in, got + k, n + 1 - k)) > 0) k += (size_t)r;
    ck_assert_int_eq(r, 0);
    ck_assert_uint_eq(k, n);
    ck_assert(memcmp(got, text, n) == 0);
    inl_input_close(in);
    ck_assert_no_leak(&ta);
    free(got);
    free(text);
}
END_TEST

/* A quoted field longer than the first sample: the sample grows until the
 * field closes, so its lines are not taken for records. */
START_TEST(test_long_quoted_field)
{
    size_t cap = 3 * SNIFF_SAMPLE_BYTES;
    char *text = malloc(cap);
    size_t n = (size_t)snprintf(text, cap, "id,note,n\n1,\"");
    while (n < 2 * SNIFF_SAMPLE_BYTES) n += (size_t)snprintf(text + n, cap - n, "a line; of, text\n");
    n += (size_t)snprintf(text + n, cap - n, "end\",5\n2,short,6\n");
    mem m = { text, n, 0 };
    input_reader *in;
    ck_assert_int_eq(inl_input_open_fn(&in, mem_read, &m, INPUT_PLAIN, NULL, NULL, 0), 0);
    inlay_source_options o;
    inlay_source_options_init(&o);
    inlay_source_dialect d;
    memset(&d, 0, sizeof d);
    ck_assert_int_eq(inl_sniff_input(in, "-", &o, NULL, 0, &d, NULL, NULL, 0), 0);
    expect_dialect(&d, ',', '"', '"', true);
    inl_input_close(in);
    free(text);
}
END_TEST

/* ---- chunks -------------------------------------------------------------------------------------- */

static inlay_source_dialect csv_dialect(char quote)
{
    inlay_source_dialect d;
    memset(&d, 0, sizeof d);
    d.format = INLAY_FORMAT_CSV;
    d.delimiter = ',';
    d.quote = quote;
    d.escape = quote;
    return d;
}

START_TEST(test_resync)
{
    const inlay_source_dialect d = csv_dialect('"');
    size_t a, b;
    /* no quotes: the first line end is a boundary */
    const char *c1 = "23,x,1\n4,y,2\n5,z,3\n6,w,4";
    ck_assert(inl_sniff_resync((const uint8_t *)c1, strlen(c1), false, false, &d, 3, &a, &b));
    ck_assert_uint_eq(a, 7);
    ck_assert_uint_eq(b, 19);                     /* the cut record is left out */
    ck_assert(inl_sniff_resync((const uint8_t *)c1, strlen(c1), false, true, &d, 3, &a, &b));
    ck_assert_uint_eq(b, strlen(c1));             /* at the end of the input it is whole */
    /* cut inside a quoted field that holds line ends: read from outside,
       the text breaks; from inside, it is right */
    const char *c2 = "ne two\nline three\",7\n8,\"a\",9\n10,\"b\",11\n";
    ck_assert(inl_sniff_resync((const uint8_t *)c2, strlen(c2), false, false, &d, 3, &a, &b));
    ck_assert_uint_eq(a, strlen("ne two\nline three\",7\n"));
    ck_assert_uint_eq(b, strlen(c2));
    /* both readings are right: uncertain, skipped */
    const char *c3 = "x\na\",\"b\"\n\"c\",\"d\"\n";
    ck_assert(!inl_sniff_resync((const uint8_t *)c3, strlen(c3), false, false, &d, 2, &a, &b));
    /* records of another width: skipped */
    const char *c4 = "x\n1,2\n3,4,5\n";
    ck_assert(!inl_sniff_resync((const uint8_t *)c4, strlen(c4), false, false, &d, 2, &a, &b));
    /* no line end at all */
    ck_assert(!inl_sniff_resync((const uint8_t *)"1,2,3", 5, false, false, &d, 3, &a, &b));
    /* where a known record ends: taken from there */
    ck_assert(inl_sniff_resync((const uint8_t *)c1, strlen(c1), true, false, &d, 3, &a, &b));
    ck_assert_uint_eq(a, 0);
    ck_assert_uint_eq(b, 19);
    /* without a quote there is nothing to be inside of */
    const inlay_source_dialect n = csv_dialect(0);
    ck_assert(!inl_sniff_resync((const uint8_t *)c4, strlen(c4), false, false, &n, 2, &a, &b));   /* widths */
    const char *c5 = "x\"\n1,\"a\n2,\"b\n";
    ck_assert(inl_sniff_resync((const uint8_t *)c5, strlen(c5), false, false, &n, 2, &a, &b));
    ck_assert_uint_eq(a, 3);
}
END_TEST

/* Header names as DuckDB gives them. */
START_TEST(test_header_names)
{
    csv_field f[6] = {
        { "a", 1, false }, { "", 0, false }, { " a ", 3, false }, { "b", 1, true }, { "a", 1, false }, { "a_1", 3, false },
    };
    buf nb = { NULL, 0, 0, 0 };
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    ck_assert_int_eq(inl_sniff_header_names(f, 6, &nb, &a), 0);
    static const char want[] = "a\0column1\0a_1\0b\0a_2\0a_1_1";
    ck_assert_bytes(nb.data, nb.len, want, sizeof want);
    inl_buf_free(&nb, &a);
    ck_assert_no_leak(&ta);
}
END_TEST

/* Many duplicates: each takes the first "<name>_<k>" free, k from 1, past
 * names given earlier in the header ("a_5" below) as well as made ones;
 * "column<i>" (i the field's index) for an empty name, itself renamed when
 * a field names it already; names compare case and all. */
START_TEST(test_header_names_duplicates)
{
    static const char *const in[] = {
        "a", "a", "a_1", "", "a", " a\t", "column3", "a_2", "", "A", "a_1", "a", "column8", "a_5", "a", "a_1_1",
    };
    enum { N = sizeof in / sizeof *in };
    csv_field f[N];
    for (size_t i = 0; i < N; i++) f[i] = (csv_field){ in[i], strlen(in[i]), false };
    buf nb = { NULL, 0, 0, 0 };
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    ck_assert_int_eq(inl_sniff_header_names(f, N, &nb, &a), 0);
    static const char want[] = "a\0a_1\0a_1_1\0column3\0a_2\0a_3\0column3_1\0a_2_1\0column8\0A\0"
                               "a_1_2\0a_4\0column8_1\0a_5\0a_6\0a_1_1_1";
    ck_assert_bytes(nb.data, nb.len, want, sizeof want);
    inl_buf_free(&nb, &a);
    ck_assert_no_leak(&ta);

    /* out of memory, at each request: reported, nothing left behind */
    for (unsigned long k = 1;; k++) {
        test_alloc tf = { 0 };
        tf.fail_at = k;
        inlay_allocator af = test_allocator(&tf);
        buf b = { NULL, 0, 0, 0 };
        const int st = inl_sniff_header_names(f, N, &b, &af);
        inl_buf_free(&b, &af);
        ck_assert_no_leak(&tf);
        if (!st) break;
        ck_assert_int_eq(st, INLAY_ERR_NOMEM);
    }
}
END_TEST

/* 20,000 fields of one name: "a", then "a_1" .. "a_19999", in linear time
 * (each duplicate once scanned every name before it, for every suffix it
 * tried: cubic, minutes for a few thousand columns). */
START_TEST(test_header_names_many)
{
    enum { N = 20000 };
    csv_field *f = malloc(N * sizeof *f);
    ck_assert(f);
    for (size_t i = 0; i < N; i++) f[i] = (csv_field){ "a", 1, false };
    buf nb = { NULL, 0, 0, 0 };
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    ck_assert_int_eq(inl_sniff_header_names(f, N, &nb, &a), 0);
    const char *p = (const char *)nb.data;
    ck_assert_str_eq(p, "a");
    char want[32];
    for (size_t i = 1; i < N; i++) {
        p += strlen(p) + 1;
        snprintf(want, sizeof want, "a_%zu", i);
        ck_assert_str_eq(p, want);
    }
    ck_assert_str_eq(p, "a_19999");
    ck_assert_uint_eq((size_t)(p + strlen(p) + 1 - (const char *)nb.data), nb.len);
    inl_buf_free(&nb, &a);
    ck_assert_no_leak(&ta);
    free(f);
}
END_TEST

static Suite *sniff_suite(void)
{
    Suite *s = suite_create("sniff");
    TCase *c = tcase_create("delimiters");
    tcase_add_test(c, test_delimiters);
    tcase_add_test(c, test_delimiter_in_quotes);
    suite_add_tcase(s, c);

    c = tcase_create("quotes and escapes");
    tcase_add_test(c, test_quotes);
    tcase_add_test(c, test_escapes);
    suite_add_tcase(s, c);

    c = tcase_create("header");
    tcase_add_test(c, test_header_rule);
    tcase_add_test(c, test_header_schema_names);
    tcase_add_test(c, test_quoted_header);
    tcase_add_test(c, test_header_names);
    tcase_add_test(c, test_header_names_duplicates);
    tcase_add_test(c, test_header_names_many);
    suite_add_tcase(s, c);

    c = tcase_create("bytes around the records");
    tcase_add_test(c, test_bom_and_crlf);
    tcase_add_test(c, test_skip_rows);
    suite_add_tcase(s, c);

    c = tcase_create("options and format");
    tcase_add_test(c, test_given_options);
    tcase_add_test(c, test_tsv);
    tcase_add_test(c, test_format);
    suite_add_tcase(s, c);

    c = tcase_create("inputs");
    tcase_add_test(c, test_input_put_back);
    tcase_add_test(c, test_long_quoted_field);
    suite_add_tcase(s, c);

    c = tcase_create("chunks");
    tcase_add_test(c, test_resync);
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(sniff_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
