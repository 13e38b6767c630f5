/*
 * check_infer.c — schema inference (runtime/input/infer.c) through
 * inlay_source_infer and inlay_source_infer_buffer: int64 whatever the
 * sample, the narrowest integer with narrow_ints, doubles,
 * booleans, dates, timestamps (utc only when every value carries a zone,
 * ns when the fraction needs it), times, strings; optional columns where a
 * null or a missing value was seen; CSV with and without a header (names
 * as DuckDB gives them), TSV by extension, NDJSON keys in order of first
 * appearance with json for objects and arrays; the sample spread across a
 * file (a column that turns to text far past the head; one feed in a short
 * and a long file gives one schema); types given per column; errors and
 * their messages; and the allocator given in the options, with allocation
 * failures. Types are compared by their public names (inlay_type_name).
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdlib.h>
#include <unistd.h>

#include "unit.h"

/* One temporary directory per TCase, made and removed by an unchecked
 * fixture: it runs in the parent process, so the directory goes away even
 * when a test fails in its child (a checked teardown would not run). */
static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/check_infer.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st; (void)flag; (void)ftw;
    remove(path);
    return 0;
}

static void teardown(void)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Write text to dir/name; returns the path, which stays valid for the
 * next 15 calls. */
static const char *write_file(const char *name, const char *text)
{
    static char paths[16][128];
    static unsigned next;
    char *path = paths[next++ % 16];
    snprintf(path, sizeof paths[0], "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, strlen(text), f), strlen(text));
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

static char err[512];

/* Infer from a file holding text; the inference must succeed. */
static inlay_schema *infer_file_opts(const char *name, const char *text, const inlay_source_options *o,
                                     size_t sample)
{
    const char *path = write_file(name, text);
    inlay_schema *s = NULL;
    int st = inlay_source_infer(&s, path, o, sample, err, sizeof err);
    ck_assert_msg(st == INLAY_OK, "%s: status %d: %s", name, st, err);
    ck_assert_ptr_nonnull(s);
    return s;
}

static inlay_schema *infer_file(const char *name, const char *text)
{
    return infer_file_opts(name, text, NULL, 0);
}

static inlay_schema *infer_buffer(const char *name, const char *text, bool whole, size_t sample)
{
    inlay_schema *s = NULL;
    int st = inlay_source_infer_buffer(&s, text, strlen(text), whole, name, NULL, sample, err, sizeof err);
    ck_assert_msg(st == INLAY_OK, "%s: status %d: %s", name, st, err);
    ck_assert_ptr_nonnull(s);
    return s;
}

/* Column i is `name` of the type named `type`, required or optional. */
static void expect_col(const inlay_schema *s, int i, const char *name, const char *type, inlay_repetition rep)
{
    const char *got_name;
    inlay_type t;
    inlay_repetition got_rep;
    ck_assert_msg(inlay_schema_column(s, i, &got_name, &t, &got_rep) == INLAY_OK, "no column %d", i);
    char tn[64];
    inlay_type_name(&t, tn, sizeof tn);
    ck_assert_msg(strcmp(got_name, name) == 0 && strcmp(tn, type) == 0 && got_rep == rep,
                  "column %d: got %s %s %s, want %s %s %s", i, got_name, tn,
                  got_rep == INLAY_REQUIRED ? "required" : "optional", name, type,
                  rep == INLAY_REQUIRED ? "required" : "optional");
}

static void expect_ncols(const inlay_schema *s, int n)
{
    ck_assert_int_eq(inlay_schema_num_columns(s), n);
}

#define REQ INLAY_REQUIRED
#define OPT INLAY_OPTIONAL

/* ---- integers ---------------------------------------------------------------------- */

static const char widths_csv[] = "a,b,c,d,e,f,g,h\n"
                                 "127,128,-129,32767,32768,2147483647,2147483648,-9223372036854775808\n"
                                 "-128,0,0,-32768,-32769,-2147483648,-2147483649,9223372036854775807\n";

/* By default every integer column is int64: the sample cannot say how far
 * the values go. */
START_TEST(test_int_default)
{
    inlay_schema *s = infer_file("w.csv", widths_csv);
    expect_ncols(s, 8);
    for (int i = 0; i < 8; i++) {
        const char *name = NULL;
        ck_assert_int_eq(inlay_schema_column(s, i, &name, NULL, NULL), INLAY_OK);
        expect_col(s, i, name, "int64", REQ);
    }
    inlay_schema_free(s);
}
END_TEST

/* narrow_ints: the narrowest type that holds every sampled value. */
START_TEST(test_int_widths)
{
    inlay_source_options o;
    inlay_source_options_init(&o);
    o.narrow_ints = true;
    inlay_schema *s = infer_file_opts("w.csv", widths_csv, &o, 0);
    expect_ncols(s, 8);
    expect_col(s, 0, "a", "int8", REQ);
    expect_col(s, 1, "b", "int16", REQ);
    expect_col(s, 2, "c", "int16", REQ);
    expect_col(s, 3, "d", "int16", REQ);
    expect_col(s, 4, "e", "int32", REQ);
    expect_col(s, 5, "f", "int32", REQ);
    expect_col(s, 6, "g", "int64", REQ);
    expect_col(s, 7, "h", "int64", REQ);
    inlay_schema_free(s);
}
END_TEST

/* Past INT64_MAX: uint64 while nothing is negative, else text; past
 * UINT64_MAX always text. */
START_TEST(test_int_beyond_int64)
{
    inlay_schema *s = infer_file("u.csv",
                                 "u,v,w\n"
                                 "18446744073709551615,9223372036854775808,18446744073709551616\n"
                                 "1,-1,1\n");
    expect_col(s, 0, "u", "uint64", REQ);
    expect_col(s, 1, "v", "string", REQ);
    expect_col(s, 2, "w", "string", REQ);
    inlay_schema_free(s);
}
END_TEST

/* The type does not depend on how much of the input the sample covers;
 * with narrow_ints it is the narrowest for the values sampled. */
START_TEST(test_int_partial_file)
{
    const char *text = "n,u\n1,18446744073709551615\n2,3\n3,4\n";
    static const size_t samples[] = { 1, 2, 3, 0 };
    for (int narrow = 0; narrow < 2; narrow++) {
        inlay_source_options o;
        inlay_source_options_init(&o);
        o.narrow_ints = narrow;
        for (size_t i = 0; i < 4; i++) {
            inlay_schema *s = infer_file_opts("p.csv", text, &o, samples[i]);
            expect_col(s, 0, "n", narrow ? "int8" : "int64", REQ);
            expect_col(s, 1, "u", "uint64", REQ);
            inlay_schema_free(s);
        }
    }
}
END_TEST

/* From memory, `whole` says whether the bytes are all there is; a last
 * record without its line end is dropped from a partial buffer only. */
START_TEST(test_int_partial_buffer)
{
    inlay_schema *s = infer_buffer("b.csv", "n\n1\n2\n", true, 0);
    expect_col(s, 0, "n", "int64", REQ);
    inlay_schema_free(s);
    s = infer_buffer("b.csv", "n\n1\n2\n", false, 0);
    expect_col(s, 0, "n", "int64", REQ);
    inlay_schema_free(s);
    s = infer_buffer("b.csv", "n\n1\n2\nab", false, 0);   /* "ab" may be the start of a number */
    expect_col(s, 0, "n", "int64", REQ);
    inlay_schema_free(s);
    s = infer_buffer("b.csv", "n\n1\n2\nab", true, 0);
    expect_col(s, 0, "n", "string", REQ);
    inlay_schema_free(s);
}
END_TEST

/* Leading zeros make codes, not numbers. */
START_TEST(test_int_leading_zero)
{
    inlay_schema *s = infer_file("z.csv", "zip,zero\n00501,0\n12345,0\n");
    expect_col(s, 0, "zip", "string", REQ);
    expect_col(s, 1, "zero", "int64", REQ);
    inlay_schema_free(s);
}
END_TEST

/* ---- other kinds --------------------------------------------------------------------- */

START_TEST(test_doubles)
{
    inlay_schema *s = infer_file("d.csv", "x,y,z,i\n1.5,1,nan,7\n2,1e3,-inf,8\n");
    expect_col(s, 0, "x", "double", REQ);
    expect_col(s, 1, "y", "double", REQ);
    expect_col(s, 2, "z", "double", REQ);
    expect_col(s, 3, "i", "int64", REQ);   /* no double seen */
    inlay_schema_free(s);
}
END_TEST

START_TEST(test_booleans)
{
    inlay_schema *s = infer_file("b.csv", "a,b,c\ntrue,1,y\nFalse,0,n\nyes,1,y\nNO,0,n\nt,1,y\nF,0,n\n");
    expect_col(s, 0, "a", "boolean", REQ);
    expect_col(s, 1, "b", "int64", REQ);    /* 1/0 are numbers */
    expect_col(s, 2, "c", "string", REQ);   /* y/n are not flags here */
    inlay_schema_free(s);
}
END_TEST

START_TEST(test_dates)
{
    inlay_schema *s = infer_file("d.csv", "d,bad,mix\n2024-01-31,2024-02-30,2024-01-01\n1999-12-01,2024-01-01,"
                                          "2024-01-02T03:04:05Z\n");
    expect_col(s, 0, "d", "date", REQ);
    expect_col(s, 1, "bad", "string", REQ);                 /* February has no 30th */
    expect_col(s, 2, "mix", "timestamp(us)", REQ);          /* a date has no zone */
    inlay_schema_free(s);
}
END_TEST

START_TEST(test_timestamps)
{
    inlay_schema *s = infer_file("t.csv",
                                 "local,utc,mixed,nanos,micros\n"
                                 "2024-01-01T10:00:00,2024-01-01T10:00:00Z,2024-01-01T10:00:00Z,"
                                 "2024-01-01T10:00:00.1234567Z,2024-01-01 10:00:00.123456\n"
                                 "2024-01-02 11:30:00.5,2024-01-01T10:00:00+02:00,2024-01-01T10:00:00,"
                                 "2024-01-01T10:00:00,2024-01-01T10:00\n");
    expect_col(s, 0, "local", "timestamp(us)", REQ);
    expect_col(s, 1, "utc", "timestamp(us, utc)", REQ);
    expect_col(s, 2, "mixed", "timestamp(us)", REQ);
    expect_col(s, 3, "nanos", "timestamp(ns)", REQ);
    expect_col(s, 4, "micros", "timestamp(us)", REQ);
    inlay_schema_free(s);
}
END_TEST

START_TEST(test_timestamp_nanos_utc)
{
    inlay_schema *s = infer_file("t.csv", "ts\n2024-01-01T10:00:00.123456789Z\n2024-01-01T10:00:00-05:00\n");
    expect_col(s, 0, "ts", "timestamp(ns, utc)", REQ);
    inlay_schema_free(s);
}
END_TEST

START_TEST(test_times)
{
    inlay_schema *s = infer_file("t.csv", "t,tn,bad,mix\n12:34,12:34:56.123456789,24:00:00,12:00\n"
                                          "23:59:59.5,00:00,12:00,2024-01-01\n");
    expect_col(s, 0, "t", "time(us)", REQ);
    expect_col(s, 1, "tn", "time(ns)", REQ);
    expect_col(s, 2, "bad", "string", REQ);
    expect_col(s, 3, "mix", "string", REQ);
    inlay_schema_free(s);
}
END_TEST

START_TEST(test_strings)
{
    inlay_schema *s = infer_file("s.csv", "s,m,q\nabc,12,\"1\"\n\"x, y\",12.5x,\"2\"\n");
    expect_col(s, 0, "s", "string", REQ);
    expect_col(s, 1, "m", "string", REQ);
    expect_col(s, 2, "q", "int64", REQ);    /* CSV quotes only delimit */
    inlay_schema_free(s);
}
END_TEST

/* ---- nulls ------------------------------------------------------------------------------- */

START_TEST(test_nulls)
{
    inlay_schema *s = infer_file("n.csv", "a,b,c,d\n1,,x,\n2,5,,\n");
    expect_col(s, 0, "a", "int64", REQ);
    expect_col(s, 1, "b", "int64", OPT);
    expect_col(s, 2, "c", "string", OPT);
    expect_col(s, 3, "d", "string", OPT);    /* nothing but nulls */
    inlay_schema_free(s);
}
END_TEST

/* A quoted empty field is an empty string, not a null, by default. */
START_TEST(test_quoted_empty)
{
    inlay_schema *s = infer_file("q.csv", "a,b\n1,\"\"\n2,\"\"\n");
    expect_col(s, 1, "b", "string", REQ);
    inlay_schema_free(s);
}
END_TEST

START_TEST(test_null_markers)
{
    inlay_source_options o;
    inlay_source_options_init(&o);
    const char *const nulls[] = { "NA", "-" };
    o.null_values = nulls;
    o.null_count = 2;
    inlay_schema *s = infer_file_opts("m.csv", "a,b,c\n1,NA,\n-,2.5,x\n", &o, 0);
    expect_col(s, 0, "a", "int64", OPT);
    expect_col(s, 1, "b", "double", OPT);
    expect_col(s, 2, "c", "string", REQ);     /* "" is no longer a null marker */
    inlay_schema_free(s);
    s = infer_file("d.csv", "a\n1\nNA\n");     /* without the option NA is text */
    expect_col(s, 0, "a", "string", REQ);
    inlay_schema_free(s);
}
END_TEST

/* Records shorter than the header leave the rest null. */
START_TEST(test_short_records)
{
    inlay_schema *s = infer_file("r.csv", "a,b,c\n1,2,3\n4,5\n6\n");
    expect_ncols(s, 3);
    expect_col(s, 0, "a", "int64", REQ);
    expect_col(s, 1, "b", "int64", OPT);
    expect_col(s, 2, "c", "int64", OPT);
    inlay_schema_free(s);
}
END_TEST

/* ---- CSV layout ---------------------------------------------------------------------------- */

START_TEST(test_no_header)
{
    inlay_source_options o;
    inlay_source_options_init(&o);
    o.header = false;
    inlay_schema *s = infer_file_opts("h.csv", "1,x,2024-01-01\n2,y,2024-01-02\n", &o, 0);
    expect_ncols(s, 3);
    expect_col(s, 0, "column0", "int64", REQ);   /* DuckDB's names */
    expect_col(s, 1, "column1", "string", REQ);
    expect_col(s, 2, "column2", "date", REQ);
    inlay_schema_free(s);
    /* the same without the option: the first record types like the rest */
    s = infer_file("h.csv", "1,x,2024-01-01\n2,y,2024-01-02\n");
    expect_col(s, 0, "column0", "int64", REQ);
    inlay_schema_free(s);
    /* a record wider than those before it adds columns that were missing there */
    s = infer_file_opts("w.csv", "1\n2,3\n", &o, 0);
    expect_ncols(s, 2);
    expect_col(s, 0, "column0", "int64", REQ);
    expect_col(s, 1, "column1", "int64", OPT);
    inlay_schema_free(s);
}
END_TEST

/* Records wider than the header get made-up names for the rest. */
START_TEST(test_wider_than_header)
{
    inlay_schema *s = infer_file("w.csv", "a\n1,x\n2,y\n");
    expect_ncols(s, 2);
    expect_col(s, 0, "a", "int64", REQ);
    expect_col(s, 1, "column1", "string", REQ);
    inlay_schema_free(s);
    s = infer_file("v.csv", "a\n1\n2,y\n");
    expect_col(s, 1, "column1", "string", OPT);   /* absent from the first record */
    inlay_schema_free(s);
}
END_TEST

/* As DuckDB names them: trimmed; column<i> for an unnamed one; <name>_1,
 * _2... for repeats, also of a name made that way. */
START_TEST(test_header_names)
{
    inlay_schema *s = infer_file("n.csv", "a,,a, b ,a,a_1\n1,2,3,4,5,6\n");
    expect_ncols(s, 6);
    expect_col(s, 0, "a", "int64", REQ);
    expect_col(s, 1, "column1", "int64", REQ);
    expect_col(s, 2, "a_1", "int64", REQ);
    expect_col(s, 3, "b", "int64", REQ);
    expect_col(s, 4, "a_2", "int64", REQ);
    expect_col(s, 5, "a_1_1", "int64", REQ);
    inlay_schema_free(s);
}
END_TEST

START_TEST(test_tsv_by_extension)
{
    static const char text[] = "a\tb,c\n1,5\t2\n";
    inlay_schema *s = infer_file("t.tsv", text);
    expect_ncols(s, 2);
    expect_col(s, 0, "a", "string", REQ);     /* "1,5": a comma is text in TSV */
    expect_col(s, 1, "b,c", "int64", REQ);
    inlay_schema_free(s);
    s = infer_file("t.tab", text);
    expect_ncols(s, 2);
    inlay_schema_free(s);
    s = infer_file("t.csv", text);            /* the same bytes as CSV: both delimiters fit, ',' comes first */
    expect_ncols(s, 2);
    expect_col(s, 0, "a\tb", "int64", REQ);
    expect_col(s, 1, "c", "string", REQ);
    inlay_schema_free(s);
}
END_TEST

START_TEST(test_csv_options)
{
    inlay_source_options o;
    inlay_source_options_init(&o);
    o.delimiter = ';';
    o.skip_rows = 1;
    inlay_schema *s = infer_file_opts("o.csv", "# exported\nx;y\n1,5;7\n", &o, 0);
    expect_ncols(s, 2);
    expect_col(s, 0, "x", "string", REQ);
    expect_col(s, 1, "y", "int64", REQ);
    inlay_schema_free(s);
    /* an explicit format wins over the extension */
    inlay_source_options_init(&o);
    o.format = INLAY_FORMAT_NDJSON;
    s = infer_file_opts("j.csv", "{\"k\": 1}\n", &o, 0);
    expect_ncols(s, 1);
    expect_col(s, 0, "k", "int64", REQ);
    inlay_schema_free(s);
}
END_TEST

/* ---- NDJSON ---------------------------------------------------------------------------- */

START_TEST(test_ndjson_key_order)
{
    inlay_schema *s = infer_file("k.ndjson", "{\"b\": 1, \"a\": \"x\"}\n{\"c\": true, \"a\": \"y\", \"b\": 2}\n"
                                              "{\"a\": \"z\", \"c\": false, \"b\": 300}\n");
    expect_ncols(s, 3);
    expect_col(s, 0, "b", "int64", REQ);
    expect_col(s, 1, "a", "string", REQ);
    expect_col(s, 2, "c", "boolean", OPT);     /* missing from the first line */
    inlay_schema_free(s);
}
END_TEST

START_TEST(test_ndjson_missing_key)
{
    inlay_schema *s = infer_file("m.jsonl", "{\"a\": 1, \"b\": 1, \"c\": 1}\n{\"a\": 2}\n"
                                            "{\"a\": 3, \"b\": null, \"c\": 2}\n");
    expect_ncols(s, 3);
    expect_col(s, 0, "a", "int64", REQ);
    expect_col(s, 1, "b", "int64", OPT);     /* missing, then null */
    expect_col(s, 2, "c", "int64", OPT);     /* missing from the second line only */
    inlay_schema_free(s);
}
END_TEST

START_TEST(test_ndjson_json)
{
    inlay_schema *s = infer_file("j.json", "{\"o\": {\"x\": 1}, \"l\": [1, 2], \"m\": {\"x\": 1}, \"n\": [1], "
                                           "\"p\": 5}\n"
                                           "{\"o\": {\"y\": [2]}, \"l\": [], \"m\": 5, \"n\": \"t\", "
                                           "\"p\": {\"a\": 1}}\n");
    expect_ncols(s, 5);
    expect_col(s, 0, "o", "json", REQ);
    expect_col(s, 1, "l", "json", REQ);
    expect_col(s, 2, "m", "json", REQ);       /* an object, then a number: JSON takes both */
    expect_col(s, 3, "n", "binary", REQ);     /* an array, then text: a JSON column takes no string */
    expect_col(s, 4, "p", "json", REQ);       /* a number, then an object */
    inlay_schema_free(s);
}
END_TEST

/* Every record of the file read through a source with the schema inferred
 * from it: what inference picks must take every value it saw. */
static void reads_back(const char *name, const char *text, size_t want_rows)
{
    const char *path = write_file(name, text);
    inlay_schema *s = NULL;
    ck_assert_msg(inlay_source_infer(&s, path, NULL, 0, err, sizeof err) == INLAY_OK, "%s: %s", name, err);
    inlay_source *src = NULL;
    int st = inlay_source_open(&src, path, s, NULL);
    ck_assert_msg(st == INLAY_OK, "%s: %s", name, inlay_source_errmsg(src));
    size_t rows = 0, n;
    while ((st = inlay_source_next(src, &n)) == INLAY_OK && n) rows += n;
    ck_assert_msg(st == INLAY_OK, "%s: %s", name, inlay_source_errmsg(src));
    ck_assert_uint_eq(rows, want_rows);
    inlay_source_free(src);
    inlay_schema_free(s);
}

START_TEST(test_inferred_types_read_back)
{
    /* objects and strings under one key: binary keeps both as they are */
    const char *mixed = "{\"k\": {\"a\": 1}}\n{\"k\": \"text\"}\n{\"k\": [1, 2]}\n{\"k\": 7}\n";
    inlay_schema *s = infer_file("mixed.ndjson", mixed);
    expect_col(s, 0, "k", "binary", REQ);
    inlay_schema_free(s);
    reads_back("mixed.ndjson", mixed, 4);

    /* text that is not UTF-8: binary, not string */
    const char *bytes = "id,raw\n1,caf\xe9\n2,ok\n";
    s = infer_file("latin1.csv", bytes);
    expect_col(s, 1, "raw", "binary", REQ);
    inlay_schema_free(s);
    reads_back("latin1.csv", bytes, 2);

    /* a timestamp past int64 microseconds: text; nanoseconds past 2262: microseconds */
    const char *far = "t,u\n+300000-01-01T00:00:00,2300-01-01T00:00:00.123456789\n"
                      "2024-01-01T00:00:00,2024-01-01T00:00:00.1\n";
    s = infer_file("far.csv", far);
    expect_col(s, 0, "t", "string", REQ);
    expect_col(s, 1, "u", "timestamp(us)", REQ);
    inlay_schema_free(s);
    reads_back("far.csv", far, 2);

    /* within range, nanoseconds stay nanoseconds */
    const char *near = "u\n2200-01-01T00:00:00.123456789\n";
    s = infer_file("near.csv", near);
    expect_col(s, 0, "u", "timestamp(ns)", REQ);
    inlay_schema_free(s);
    reads_back("near.csv", near, 1);
}
END_TEST

START_TEST(test_ndjson_scalars)
{
    inlay_schema *s = infer_file("s.ndjson",
                                 "{\"i\": 1, \"f\": 1.5, \"e\": 1e3, \"big\": 18446744073709551615, \"qn\": \"12\", "
                                 "\"qb\": \"true\", \"qd\": \"2024-01-01\", \"qt\": \"2024-01-01T00:00:00Z\", "
                                 "\"z\": null}\n"
                                 "{\"i\": -100, \"f\": 2, \"e\": 2, \"big\": 1, \"qn\": \"13\", \"qb\": \"false\", "
                                 "\"qd\": \"2024-01-02\", \"qt\": \"2024-01-01T00:00:00.5+01:00\", \"z\": null}\n");
    expect_ncols(s, 9);
    expect_col(s, 0, "i", "int64", REQ);
    expect_col(s, 1, "f", "double", REQ);
    expect_col(s, 2, "e", "double", REQ);
    expect_col(s, 3, "big", "uint64", REQ);
    expect_col(s, 4, "qn", "string", REQ);          /* quoted numbers and flags stay text */
    expect_col(s, 5, "qb", "string", REQ);
    expect_col(s, 6, "qd", "date", REQ);            /* quoted dates are dates */
    expect_col(s, 7, "qt", "timestamp(us, utc)", REQ);
    expect_col(s, 8, "z", "string", OPT);
    inlay_schema_free(s);
}
END_TEST

START_TEST(test_ndjson_partial)
{
    const char *text = "{\"n\": 1}\n{\"n\": 2}\n";
    inlay_schema *s = infer_buffer("x.ndjson", text, false, 0);
    expect_col(s, 0, "n", "int64", REQ);
    inlay_schema_free(s);
    s = infer_buffer("x.ndjson", text, true, 0);
    expect_col(s, 0, "n", "int64", REQ);
    inlay_schema_free(s);
}
END_TEST

/* ---- across the file ------------------------------------------------------------------------ */

/* A generated file of `rows` records: a header, then what row(i) writes. */
typedef size_t (*row_fn)(char *out, size_t cap, size_t i);

static const char *write_rows(const char *name, const char *header, size_t rows, row_fn row)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(header, f);
    char line[512];
    for (size_t i = 0; i < rows; i++) {
        size_t n = row(line, sizeof line, i);
        ck_assert_uint_eq(fwrite(line, 1, n, f), n);
    }
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

static size_t numbers_then_text(char *out, size_t cap, size_t i)
{
    if (i < 20000) return (size_t)snprintf(out, cap, "%zu,%zu,x%zu\n", i, i * 3, i);
    return (size_t)snprintf(out, cap, "%zu,n/a,x%zu\n", i, i);
}

/* A column numeric for 20,000 rows, then text: string, with no option. */
START_TEST(test_text_after_the_head)
{
    const char *path = write_rows("late.csv", "id,v,s\n", 20100, numbers_then_text);
    inlay_schema *s = NULL;
    ck_assert_msg(inlay_source_infer(&s, path, NULL, 0, err, sizeof err) == INLAY_OK, "%s", err);
    expect_col(s, 0, "id", "int64", REQ);
    expect_col(s, 1, "v", "string", REQ);
    expect_col(s, 2, "s", "string", REQ);
    inlay_schema_free(s);
    /* from memory the head is all there is */
    FILE *f = fopen(path, "rb");
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text, f);
    fclose(f);
    ck_assert_int_eq(inlay_source_infer_buffer(&s, text, n, false, "late.csv", NULL, 0, err, sizeof err), INLAY_OK);
    expect_col(s, 1, "v", "int64", REQ);
    inlay_schema_free(s);
}
END_TEST

static size_t json_numbers_then_text(char *out, size_t cap, size_t i)
{
    if (i < 20000) return (size_t)snprintf(out, cap, "{\"id\": %zu, \"v\": %zu}\n", i, i % 100);
    return (size_t)snprintf(out, cap, "{\"id\": %zu, \"v\": \"many\", \"late\": true}\n", i);
}

START_TEST(test_ndjson_after_the_head)
{
    const char *path = write_rows("late.ndjson", "", 20050, json_numbers_then_text);
    inlay_schema *s = NULL;
    ck_assert_msg(inlay_source_infer(&s, path, NULL, 0, err, sizeof err) == INLAY_OK, "%s", err);
    expect_ncols(s, 3);
    expect_col(s, 0, "id", "int64", REQ);
    expect_col(s, 1, "v", "string", REQ);
    expect_col(s, 2, "late", "boolean", OPT);
    inlay_schema_free(s);
}
END_TEST

/* One feed: what one generator writes, whatever the length of the file. */
static size_t feed(char *out, size_t cap, size_t i)
{
    uint64_t x = i * 0x9E3779B97F4A7C15ULL;
    x ^= x >> 29;
    const unsigned small = (unsigned)(x % 100);
    return (size_t)snprintf(out, cap, "%zu,%u,%u.%02u,2024-%02u-%02u,%s,%s\n", i + 1, small, (unsigned)(x % 1000),
                            (unsigned)(x >> 20) % 100, 1 + (unsigned)(x >> 8) % 12, 1 + (unsigned)(x >> 12) % 28,
                            x & 1 ? "true" : "false", i % 50 == 7 ? "" : "text");
}

START_TEST(test_one_feed_one_schema)
{
    static const char header[] = "id,small,price,day,flag,note\n";
    const char *paths[2];
    char keep[2][256];
    paths[0] = write_rows("short.csv", header, 60, feed);
    snprintf(keep[0], sizeof keep[0], "%s", paths[0]);
    paths[1] = write_rows("long.csv", header, 300000, feed);
    snprintf(keep[1], sizeof keep[1], "%s", paths[1]);
    char text[2][1024];
    for (int i = 0; i < 2; i++) {
        inlay_schema *s = NULL;
        ck_assert_msg(inlay_source_infer(&s, keep[i], NULL, 0, err, sizeof err) == INLAY_OK, "%s", err);
        inlay_schema_format(s, text[i], sizeof text[i]);
        inlay_schema_free(s);
    }
    ck_assert_str_eq(text[0], text[1]);
    ck_assert_ptr_nonnull(strstr(text[0], "int64 small"));
    ck_assert_ptr_nonnull(strstr(text[0], "optional binary note"));
}
END_TEST

/* Multi-line quoted fields all through a long file, whose lines read as
 * records of the same width when a chunk starts inside one: such chunks
 * are uncertain and skipped, or read from a boundary that is certain, so
 * nothing of the text leaks into the number columns ("end" would make id
 * text). */
static size_t quoted_lines(char *out, size_t cap, size_t i)
{
    return (size_t)snprintf(out, cap, "%zu,\"line %zu, part 1\n%zu,2,3\nend, \"\"quoted\"\"\",%zu\n", i, i, i, i % 9);
}

START_TEST(test_chunks_with_quoted_newlines)
{
    const char *path = write_rows("q.csv", "id,note,n\n", 30000, quoted_lines);
    inlay_schema *s = NULL;
    ck_assert_msg(inlay_source_infer(&s, path, NULL, 1000, err, sizeof err) == INLAY_OK, "%s", err);
    expect_ncols(s, 3);
    expect_col(s, 0, "id", "int64", REQ);
    expect_col(s, 1, "note", "string", REQ);
    expect_col(s, 2, "n", "int64", REQ);
    inlay_schema_free(s);
}
END_TEST

/* gzip and zstd files cannot be entered in the middle: the head is the sample. */
START_TEST(test_compressed_head_only)
{
    const char *path = write_rows("late.csv", "id,v,s\n", 20100, numbers_then_text);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "gzip -c %s > %s.gz", path, path);
    ck_assert_int_eq(system(cmd), 0);
    char gz[300];
    snprintf(gz, sizeof gz, "%s.gz", path);
    inlay_schema *s = NULL;
    ck_assert_msg(inlay_source_infer(&s, gz, NULL, 0, err, sizeof err) == INLAY_OK, "%s", err);
    expect_col(s, 1, "v", "int64", REQ);
    inlay_schema_free(s);
}
END_TEST

/* ---- types given ---------------------------------------------------------------------------- */

START_TEST(test_types_given)
{
    inlay_source_options o;
    inlay_source_options_init(&o);
    const inlay_column_type types[] = { { "b", "int32" }, { "c", "timestamp(ms)" }, { "d", "decimal(10,2)" } };
    o.types = types;
    o.type_count = 3;
    inlay_schema *s = infer_file_opts("t.csv", "a,b,c,d\n1,2,2024-01-01,1.50\n3,4,2024-01-02,2\n", &o, 0);
    expect_col(s, 0, "a", "int64", REQ);
    expect_col(s, 1, "b", "int32", OPT);      /* a guess about values not sampled: nulls too */
    expect_col(s, 2, "c", "timestamp(ms)", OPT);
    expect_col(s, 3, "d", "decimal(10,2)", OPT);
    inlay_schema_free(s);
    /* a column that is not there, a type that is not one */
    const char *path = write_file("u.csv", "a\n1\n");
    const inlay_column_type nope[] = { { "z", "int32" } };
    o.types = nope;
    o.type_count = 1;
    ck_assert_int_eq(inlay_source_infer(&s, path, &o, 0, err, sizeof err), INLAY_ERR_ARGUMENT);
    ck_assert_msg(strstr(err, "no column 'z'") != NULL, "%s", err);
    const inlay_column_type bad[] = { { "a", "int33" } };
    o.types = bad;
    ck_assert_int_eq(inlay_source_infer(&s, path, &o, 0, err, sizeof err), INLAY_ERR_ARGUMENT);
    ck_assert_msg(strstr(err, "column 'a': unknown type 'int33'") != NULL, "%s", err);
    ck_assert_ptr_null(s);
}
END_TEST

/* ---- sample size ---------------------------------------------------------------------------- */

/* From memory only the first sample_rows records count: a bad record or a
 * new value after them changes nothing. A file is also sampled past them,
 * where a bad record is left out rather than failing the inference. */
START_TEST(test_csv_sample_rows)
{
    static const char text[] = "a,b\n1,2\n3,x\n5,\"q\"z\n";
    inlay_source_options o;
    inlay_source_options_init(&o);
    o.quote = '"';
    inlay_schema *s = NULL;
    ck_assert_int_eq(inlay_source_infer_buffer(&s, text, sizeof text - 1, true, "s.csv", &o, 1, err, sizeof err),
                     INLAY_OK);
    expect_ncols(s, 2);
    expect_col(s, 0, "a", "int64", REQ);
    expect_col(s, 1, "b", "int64", REQ);
    inlay_schema_free(s);
    s = infer_file_opts("s.csv", text, &o, 1);
    expect_ncols(s, 2);
    expect_col(s, 0, "a", "int64", REQ);
    expect_col(s, 1, "b", "string", REQ);
    inlay_schema_free(s);
}
END_TEST

/* ---- errors ---------------------------------------------------------------------------------- */

START_TEST(test_missing_file)
{
    char path[200];
    snprintf(path, sizeof path, "%s/absent.csv", dir);
    inlay_schema *s = (inlay_schema *)&s;
    ck_assert_int_eq(inlay_source_infer(&s, path, NULL, 0, err, sizeof err), INLAY_ERR_IO);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err, path) != NULL, "message \"%s\" does not name %s", err, path);
}
END_TEST

/* Bad quoting with '"' given (sniffed, the quote would not be '"' there). */
START_TEST(test_bad_csv_record)
{
    inlay_source_options o;
    inlay_source_options_init(&o);
    o.quote = '"';
    const char *path = write_file("bad.csv", "a,b\n1,2\n3,\"x\"y\n4,5\n");
    inlay_schema *s = (inlay_schema *)&s;
    ck_assert_int_eq(inlay_source_infer(&s, path, &o, 0, err, sizeof err), INLAY_ERR_VALUE);
    ck_assert_ptr_null(s);
    char want[200];
    snprintf(want, sizeof want, "%s:3: ", path);
    ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "message \"%s\" does not start \"%s\"", err, want);
    /* an unterminated quote, from memory */
    const char text[] = "a,b\n1,2\n\"open\n";
    ck_assert_int_eq(inlay_source_infer_buffer(&s, text, sizeof text - 1, true, "in.csv", &o, 0, err,
                                               sizeof err), INLAY_ERR_VALUE);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err, ":3: ") != NULL, "message \"%s\" does not name line 3", err);
}
END_TEST

START_TEST(test_bad_ndjson_line)
{
    const char *path = write_file("bad.ndjson", "{\"a\": 1}\n{\"a\": 2}\n{\"a\": }\n{\"a\": 4}\n");
    inlay_schema *s = (inlay_schema *)&s;
    ck_assert_int_eq(inlay_source_infer(&s, path, NULL, 0, err, sizeof err), INLAY_ERR_VALUE);
    ck_assert_ptr_null(s);
    char want[200];
    snprintf(want, sizeof want, "%s:3: ", path);
    ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "message \"%s\" does not start \"%s\"", err, want);
    /* a bad line past the sample is not read as part of it */
    s = infer_file_opts("late.ndjson", "{\"a\": 1}\n{\"a\": 2}\n{\"a\": }\n", NULL, 2);
    expect_col(s, 0, "a", "int64", REQ);
    inlay_schema_free(s);
}
END_TEST

START_TEST(test_no_columns)
{
    inlay_schema *s = (inlay_schema *)&s;
    const char *path = write_file("empty.csv", "");
    ck_assert_int_eq(inlay_source_infer(&s, path, NULL, 0, err, sizeof err), INLAY_ERR_SCHEMA);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err, "no columns") != NULL, "message \"%s\"", err);
    /* a header alone: columns without values, each optional text */
    s = infer_file("hdr.csv", "a,b\n");
    expect_ncols(s, 2);
    expect_col(s, 0, "a", "string", OPT);
    expect_col(s, 1, "b", "string", OPT);
    inlay_schema_free(s);
}
END_TEST

START_TEST(test_bad_arguments)
{
    inlay_source_options o;
    memset(&o, 0, sizeof o);                      /* never initialized */
    inlay_schema *s = (inlay_schema *)&s;
    ck_assert_int_eq(inlay_source_infer_buffer(&s, "a\n1\n", 4, true, "x.csv", &o, 0, err, sizeof err),
                     INLAY_ERR_ARGUMENT);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err, "not initialized") != NULL, "message \"%s\"", err);
    ck_assert_int_eq(inlay_source_infer_buffer(NULL, "a\n1\n", 4, true, "x.csv", NULL, 0, err, sizeof err),
                     INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inlay_source_infer_buffer(&s, NULL, 4, true, "x.csv", NULL, 0, err, sizeof err),
                     INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inlay_source_infer(&s, NULL, NULL, 0, err, sizeof err), INLAY_ERR_ARGUMENT);
    /* no room for a message is fine */
    ck_assert_int_eq(inlay_source_infer_buffer(&s, "a\n1\n", 4, true, "x.csv", NULL, 0, NULL, 0), INLAY_OK);
    expect_col(s, 0, "a", "int64", REQ);
    inlay_schema_free(s);
}
END_TEST

/* ---- allocation ----------------------------------------------------------------------------- */

static const char csv_text[] = "id,name,when,score\n1,ann,2024-01-01T00:00:00Z,1.5\n2,,2024-01-02T00:00:00Z,2\n";
static const char json_text[] = "{\"id\": 1, \"tags\": [\"a\"], \"when\": \"2024-01-01\"}\n"
                                "{\"id\": 2, \"extra\": {\"k\": null}, \"when\": \"2024-01-02\"}\n";

/* Everything, the schema handed back included, comes from the options'
 * allocator and goes back to it. */
START_TEST(test_allocator_used)
{
    const char *paths[2] = { write_file("a.csv", csv_text), write_file("a.ndjson", json_text) };
    for (int i = 0; i < 2; i++) {
        test_alloc ta = { 0 };
        inlay_source_options o;
        inlay_source_options_init(&o);
        o.alloc = test_allocator(&ta);
        inlay_schema *s = NULL;
        ck_assert_int_eq(inlay_source_infer(&s, paths[i], &o, 0, err, sizeof err), INLAY_OK);
        ck_assert_uint_gt(ta.live_blocks, 0);       /* the schema's */
        expect_col(s, 0, "id", "int64", REQ);
        inlay_schema_free(s);
        ck_assert_no_leak(&ta);
    }
    test_alloc ta = { 0 };
    inlay_source_options o;
    inlay_source_options_init(&o);
    o.alloc = test_allocator(&ta);
    inlay_schema *s = NULL;
    ck_assert_int_eq(inlay_source_infer_buffer(&s, csv_text, sizeof csv_text - 1, false, "m.csv", &o, 0, err,
                                               sizeof err), INLAY_OK);
    ck_assert_uint_gt(ta.requests, 0);
    inlay_schema_free(s);
    ck_assert_no_leak(&ta);
}
END_TEST

/* Refuse allocation n (or every one from n on), for every n until the
 * inference succeeds: INLAY_ERR_NOMEM, no schema, nothing leaked; with
 * want_message, a message in err every time. */
static void nomem_loop(const char *name, const char *text, bool after, bool want_message)
{
    const char *path = write_file(name, text);
    unsigned long failures = 0;
    bool done = false;
    for (unsigned long n = 1; !done && n < 2000; n++) {
        test_alloc ta = { .fail_at = n, .fail_after = after };
        inlay_source_options o;
        inlay_source_options_init(&o);
        o.alloc = test_allocator(&ta);
        inlay_schema *s = (inlay_schema *)&s;
        err[0] = 0;
        int st = inlay_source_infer(&s, path, &o, 0, err, sizeof err);
        if (st) {
            ck_assert_msg(st == INLAY_ERR_NOMEM, "%s, allocation %lu refused: %d (%s)", name, n, st, err);
            ck_assert_uint_ge(ta.refused, 1);
            ck_assert_ptr_null(s);
            if (want_message) ck_assert_msg(err[0] != 0, "%s, allocation %lu refused: no message", name, n);
            failures++;
        } else {
            ck_assert_uint_eq(ta.refused, 0);
            expect_col(s, 0, "id", "int64", REQ);
            inlay_schema_free(s);
            done = true;
        }
        ck_assert_msg(ta.live_bytes == 0 && ta.live_blocks == 0 && ta.bad_sizes == 0 && ta.bad_new == 0,
                      "%s, allocation %lu refused: %zu bytes in %zu blocks left, %lu wrong sizes", name, n,
                      ta.live_bytes, ta.live_blocks, ta.bad_sizes);
    }
    ck_assert_msg(done, "%s: never succeeded", name);
    ck_assert_uint_ge(failures, 3);
}

START_TEST(test_nomem_csv)
{
    nomem_loop("f.csv", csv_text, false, false);
}
END_TEST

START_TEST(test_nomem_csv_from_n)
{
    nomem_loop("g.csv", csv_text, true, false);
}
END_TEST

START_TEST(test_nomem_ndjson)
{
    nomem_loop("f.ndjson", json_text, false, false);
}
END_TEST

START_TEST(test_nomem_ndjson_from_n)
{
    nomem_loop("g.ndjson", json_text, true, false);
}
END_TEST

/* ---- what used to go wrong ----------------------------------------------------------------- */

/* From memory only the first sample_rows NDJSON lines count, as for CSV:
 * the line read past the sample (to learn that the input goes on) is
 * tokenized, but its members are not looked at. A file is sampled past
 * them too. */
START_TEST(test_ndjson_sample_rows)
{
    static const char text[] = "{\"a\": 1}\n{\"a\": 2}\n{\"a\": \"x\", \"b\": 1}\n";
    inlay_schema *s = NULL;
    ck_assert_int_eq(inlay_source_infer_buffer(&s, text, sizeof text - 1, true, "s.ndjson", NULL, 2, err, sizeof err),
                     INLAY_OK);
    expect_ncols(s, 1);
    expect_col(s, 0, "a", "int64", REQ);
    inlay_schema_free(s);
    s = infer_file_opts("s.ndjson", text, NULL, 2);
    expect_ncols(s, 2);
    expect_col(s, 0, "a", "string", REQ);
    expect_col(s, 1, "b", "int64", OPT);
    inlay_schema_free(s);
}
END_TEST

/* inlay_source_infer_buffer's `name` names the input in messages. */
START_TEST(test_buffer_name_in_message)
{
    inlay_schema *s = (inlay_schema *)&s;
    const char csv[] = "a,b\n1,2\n3,\"x\"y\n";
    inlay_source_options o;
    inlay_source_options_init(&o);
    o.quote = '"';
    ck_assert_int_eq(inlay_source_infer_buffer(&s, csv, sizeof csv - 1, true, "in.csv", &o, 0, err, sizeof err),
                     INLAY_ERR_VALUE);
    ck_assert_msg(strncmp(err, "in.csv:3: ", 10) == 0, "message \"%s\"", err);
    const char json[] = "{\"a\": 1}\n{\"a\": 2}\n{\"a\": }\n";
    ck_assert_int_eq(inlay_source_infer_buffer(&s, json, sizeof json - 1, true, "in.ndjson", NULL, 0, err,
                                               sizeof err), INLAY_ERR_VALUE);
    ck_assert_msg(strncmp(err, "in.ndjson:3: ", 13) == 0, "message \"%s\"", err);
}
END_TEST

/* Every failed allocation leaves a message in err, also those of the
 * schema the inference builds at the end. */
START_TEST(test_nomem_message)
{
    nomem_loop("m.csv", csv_text, false, true);
    nomem_loop("m.ndjson", json_text, false, true);
}
END_TEST

/* Made-up names (column<N> for an empty header name or a record wider than
 * the header) do not take a name the header already has. */
START_TEST(test_made_up_names_unique)
{
    inlay_schema *s = NULL;
    const char *path = write_file("u.csv", "column2,\n1,2\n");
    ck_assert_msg(inlay_source_infer(&s, path, NULL, 0, err, sizeof err) == INLAY_OK, "%s", err);
    expect_ncols(s, 2);
    const char *a, *b;
    ck_assert_int_eq(inlay_schema_column(s, 0, &a, NULL, NULL), INLAY_OK);
    ck_assert_int_eq(inlay_schema_column(s, 1, &b, NULL, NULL), INLAY_OK);
    ck_assert_str_ne(a, b);
    inlay_schema_free(s);
    path = write_file("v.csv", "column3,b\n1,2,3\n");
    ck_assert_msg(inlay_source_infer(&s, path, NULL, 0, err, sizeof err) == INLAY_OK, "%s", err);
    expect_ncols(s, 3);
    inlay_schema_free(s);
}
END_TEST

static Suite *infer_suite(void)
{
    Suite *s = suite_create("infer");
    TCase *t = tcase_create("integers");
    tcase_add_unchecked_fixture(t, setup, teardown);
    tcase_add_test(t, test_int_default);
    tcase_add_test(t, test_int_widths);
    tcase_add_test(t, test_int_beyond_int64);
    tcase_add_test(t, test_int_partial_file);
    tcase_add_test(t, test_int_partial_buffer);
    tcase_add_test(t, test_int_leading_zero);
    suite_add_tcase(s, t);

    t = tcase_create("other kinds");
    tcase_add_unchecked_fixture(t, setup, teardown);
    tcase_add_test(t, test_doubles);
    tcase_add_test(t, test_booleans);
    tcase_add_test(t, test_dates);
    tcase_add_test(t, test_timestamps);
    tcase_add_test(t, test_timestamp_nanos_utc);
    tcase_add_test(t, test_times);
    tcase_add_test(t, test_strings);
    suite_add_tcase(s, t);

    t = tcase_create("nulls");
    tcase_add_unchecked_fixture(t, setup, teardown);
    tcase_add_test(t, test_nulls);
    tcase_add_test(t, test_quoted_empty);
    tcase_add_test(t, test_null_markers);
    tcase_add_test(t, test_short_records);
    suite_add_tcase(s, t);

    t = tcase_create("csv layout");
    tcase_add_unchecked_fixture(t, setup, teardown);
    tcase_add_test(t, test_no_header);
    tcase_add_test(t, test_wider_than_header);
    tcase_add_test(t, test_header_names);
    tcase_add_test(t, test_tsv_by_extension);
    tcase_add_test(t, test_csv_options);
    suite_add_tcase(s, t);

    t = tcase_create("ndjson");
    tcase_add_unchecked_fixture(t, setup, teardown);
    tcase_add_test(t, test_ndjson_key_order);
    tcase_add_test(t, test_ndjson_missing_key);
    tcase_add_test(t, test_ndjson_json);
    tcase_add_test(t, test_inferred_types_read_back);
    tcase_add_test(t, test_ndjson_scalars);
    tcase_add_test(t, test_ndjson_partial);
    suite_add_tcase(s, t);

    t = tcase_create("across the file");
    tcase_set_timeout(t, 60);
    tcase_add_unchecked_fixture(t, setup, teardown);
    tcase_add_test(t, test_text_after_the_head);
    tcase_add_test(t, test_ndjson_after_the_head);
    tcase_add_test(t, test_one_feed_one_schema);
    tcase_add_test(t, test_chunks_with_quoted_newlines);
    tcase_add_test(t, test_compressed_head_only);
    tcase_add_test(t, test_types_given);
    suite_add_tcase(s, t);

    t = tcase_create("sample size");
    tcase_add_unchecked_fixture(t, setup, teardown);
    tcase_add_test(t, test_csv_sample_rows);
    suite_add_tcase(s, t);

    t = tcase_create("errors");
    tcase_add_unchecked_fixture(t, setup, teardown);
    tcase_add_test(t, test_missing_file);
    tcase_add_test(t, test_bad_csv_record);
    tcase_add_test(t, test_bad_ndjson_line);
    tcase_add_test(t, test_no_columns);
    tcase_add_test(t, test_bad_arguments);
    suite_add_tcase(s, t);

    t = tcase_create("allocation");
    tcase_add_unchecked_fixture(t, setup, teardown);
    tcase_add_test(t, test_allocator_used);
    tcase_add_test(t, test_nomem_csv);
    tcase_add_test(t, test_nomem_csv_from_n);
    tcase_add_test(t, test_nomem_ndjson);
    tcase_add_test(t, test_nomem_ndjson_from_n);
    tcase_add_test(t, test_nomem_message);
    suite_add_tcase(s, t);

    t = tcase_create("fixed");
    tcase_add_unchecked_fixture(t, setup, teardown);
    tcase_add_test(t, test_ndjson_sample_rows);
    tcase_add_test(t, test_buffer_name_in_message);
    tcase_add_test(t, test_made_up_names_unique);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(infer_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
