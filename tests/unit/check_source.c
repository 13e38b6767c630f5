/*
 * check_source.c — text sources (source.c) and schema inference (infer.c):
 * records into column batches, batch boundaries, nulls, the parsing thread,
 * bad records failing or skipped to the reject file, allocation failures,
 * and inferred schemas; the dialect detected and what was given; gzip and
 * zstd whatever the file's name; a reject file that is the input refused
 * with the input untouched; and the advice a value past an inferred
 * schema's sample gets, also from stdin.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "unit.h"

static char g_dir[256];

static void setup(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/check_source.%ld", (long)getpid());
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s", g_dir, g_dir);
    ck_assert_int_eq(system(cmd), 0);
}

static void teardown(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
    if (system(cmd) != 0) { /* best effort */ }
}

static const char *write_input(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return buf;
}

/* id int64 required, name string optional, score double optional */
static inlay_schema *events_schema(void)
{
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_ge(inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    ck_assert_int_ge(inlay_schema_add(s, 0, "name", INLAY_OPTIONAL, inlay_type_string(), NULL), 0);
    ck_assert_int_ge(inlay_schema_add(s, 0, "score", INLAY_OPTIONAL, inlay_type_double(), NULL), 0);
    return s;
}

/* Reads the whole source, checking row r has id r + 1 and name "n<r+1>"
 * unless r % 3 == 2 (null name); returns the rows. */
static size_t drain_events(inlay_source *src, size_t batch_rows)
{
    size_t total = 0, rows;
    for (;;) {
        ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_OK);
        if (!rows) break;
        ck_assert_uint_le(rows, batch_rows);
        int n;
        const inlay_column_batch *b = inlay_source_batch(src, &n);
        ck_assert_int_eq(n, 3);
        const int64_t *ids = b[0].values;
        const inlay_bytes *names = b[1].values;
        ck_assert_ptr_null(b[0].levels.def);
        ck_assert_ptr_nonnull(b[1].levels.def);
        size_t k = 0;
        for (size_t i = 0; i < rows; i++) {
            const size_t r = total + i;
            ck_assert_int_eq(ids[i], (int64_t)r + 1);
            ck_assert_uint_eq(b[0].count, rows);
            if (r % 3 == 2) {
                ck_assert_int_eq(b[1].levels.def[i], 0);
            } else {
                char want[32];
                int len = snprintf(want, sizeof want, "n%zu", r + 1);
                ck_assert_int_eq(b[1].levels.def[i], 1);
                ck_assert_uint_eq(names[k].len, (size_t)len);
                ck_assert(memcmp(names[k].data, want, (size_t)len) == 0);
                k++;
            }
        }
        total += rows;
    }
    return total;
}

static const char *events_csv(size_t rows)
{
    static char text[1 << 16];
    size_t o = (size_t)snprintf(text, sizeof text, "score,id,name,ignored\n");
    for (size_t r = 0; r < rows; r++) {
        if (r % 3 == 2)
            o += (size_t)snprintf(text + o, sizeof text - o, "%zu.5,%zu,,x\n", r, r + 1);
        else
            o += (size_t)snprintf(text + o, sizeof text - o, ",%zu,\"n%zu\",x\n", r + 1, r + 1);
    }
    return text;
}

START_TEST(test_csv_batches)
{
    const char *path = write_input("e.csv", events_csv(100));
    inlay_schema *s = events_schema();
    for (int threads = 1; threads <= 2; threads++) {
        for (size_t batch = 1; batch <= 101; batch += 33) {
            inlay_source_options o;
            inlay_source_options_init(&o);
            o.batch_rows = batch;
            o.threads = threads;
            inlay_source *src;
            ck_assert_int_eq(inlay_source_open(&src, path, s, &o), INLAY_OK);
            ck_assert_uint_eq(drain_events(src, batch), 100);
            size_t rows;
            ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_OK);   /* the end stays the end */
            ck_assert_uint_eq(rows, 0);
            inlay_source_stats st;
            inlay_source_get_stats(src, &st);
            ck_assert_uint_eq(st.rows, 100);
            ck_assert_uint_eq(st.records, 100);
            ck_assert_uint_eq(st.skipped, 0);
            ck_assert_uint_gt(st.bytes_read, 0);
            ck_assert_uint_eq(st.bytes_total, st.bytes_consumed);
            inlay_source_free(src);
        }
    }
    inlay_schema_free(s);
}
END_TEST

START_TEST(test_ndjson_batches)
{
    char text[1 << 16];
    size_t o = 0;
    for (size_t r = 0; r < 50; r++) {
        if (r % 3 == 2)
            o += (size_t)snprintf(text + o, sizeof text - o, "{\"id\": %zu, \"name\": null}\n", r + 1);
        else
            o += (size_t)snprintf(text + o, sizeof text - o, "{\"name\": \"n%zu\", \"x\": [1], \"id\": %zu}\n", r + 1,
                                  r + 1);
    }
    const char *path = write_input("e.ndjson", text);
    inlay_schema *s = events_schema();
    inlay_source *src;
    inlay_source_options so;
    inlay_source_options_init(&so);
    so.batch_rows = 7;
    ck_assert_int_eq(inlay_source_open(&src, path, s, &so), INLAY_OK);
    ck_assert_uint_eq(drain_events(src, 7), 50);
    inlay_source_free(src);
    inlay_schema_free(s);
}
END_TEST

START_TEST(test_bad_record_fails)
{
    const char *path = write_input("bad.csv", "id,name,score\n1,a,1\n2,b,oops\n3,c,3\n");
    inlay_schema *s = events_schema();
    for (int threads = 1; threads <= 2; threads++) {
        inlay_source_options o;
        inlay_source_options_init(&o);
        o.threads = threads;
        inlay_source *src;
        ck_assert_int_eq(inlay_source_open(&src, path, s, &o), INLAY_OK);
        size_t rows;
        ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_ERR_VALUE);
        ck_assert_uint_eq(rows, 0);
        ck_assert_msg(strstr(inlay_source_errmsg(src), "bad.csv:3: column 'score': cannot parse \"oops\" as double"),
                      "%s", inlay_source_errmsg(src));
        ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_ERR_VALUE);   /* sticky */
        inlay_source_free(src);
    }
    inlay_schema_free(s);
}
END_TEST

START_TEST(test_skip_and_reject)
{
    const char *path = write_input("skip.csv", "id,name,score\n1,a,1\nx,b,2\n3,c,3\n4,d\n5,\"e,5\n");
    char reject[300];
    snprintf(reject, sizeof reject, "%s/rejects.txt", g_dir);
    inlay_schema *s = events_schema();
    inlay_source_options o;
    inlay_source_options_init(&o);
    o.on_error = INLAY_ON_ERROR_SKIP;
    o.reject_path = reject;
    o.quote = '"';   /* sniffed, the unterminated quote would make it no quote at all */
    inlay_source *src;
    ck_assert_int_eq(inlay_source_open(&src, path, s, &o), INLAY_OK);
    size_t rows;
    ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_OK);
    ck_assert_uint_eq(rows, 2);
    const inlay_column_batch *b = inlay_source_batch(src, NULL);
    ck_assert_int_eq(((const int64_t *)b[0].values)[0], 1);
    ck_assert_int_eq(((const int64_t *)b[0].values)[1], 3);
    ck_assert_uint_eq(((const inlay_bytes *)b[1].values)[1].len, 1);
    ck_assert_int_eq(((const char *)((const inlay_bytes *)b[1].values)[1].data)[0], 'c');
    ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_OK);
    ck_assert_uint_eq(rows, 0);
    inlay_source_stats st;
    inlay_source_get_stats(src, &st);
    ck_assert_uint_eq(st.skipped, 3);
    ck_assert_uint_eq(st.rows, 2);
    ck_assert_uint_eq(st.records, 5);
    inlay_source_free(src);
    const char *rej = read_all(reject);
    ck_assert_ptr_nonnull(rej);
    ck_assert_msg(strstr(rej, "skip.csv:3: column 'id': cannot parse \"x\" as int64\tx,b,2\n"), "%s", rej);
    ck_assert_msg(strstr(rej, "skip.csv:5: expected 3 fields, got 2\t4,d\n"), "%s", rej);
    ck_assert_msg(strstr(rej, "skip.csv:6: unterminated quoted field\t5,\"e,5\n"), "%s", rej);
    inlay_schema_free(s);
}
END_TEST

START_TEST(test_open_errors)
{
    inlay_schema *s = events_schema();
    inlay_source *src;
    ck_assert_int_eq(inlay_source_open(&src, "/nonexistent/x.csv", s, NULL), INLAY_ERR_IO);
    ck_assert_msg(strstr(inlay_source_errmsg(src), "cannot open '/nonexistent/x.csv'"), "%s", inlay_source_errmsg(src));
    size_t rows;
    ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_ERR_IO);
    inlay_source_free(src);
    const char *path = write_input("h.csv", "name,score\na,1\n");
    ck_assert_int_eq(inlay_source_open(&src, path, s, NULL), INLAY_ERR_SCHEMA);
    ck_assert_msg(strstr(inlay_source_errmsg(src), "required column 'id' is not in the header"), "%s",
                  inlay_source_errmsg(src));
    inlay_source_free(src);
    inlay_source_options o;
    inlay_source_options_init(&o);
    o.threads = 3;
    ck_assert_int_eq(inlay_source_open(&src, path, s, &o), INLAY_ERR_ARGUMENT);
    inlay_source_free(src);
    inlay_schema_free(s);
}
END_TEST

/* Every allocation of open and of reading refused in turn: a clean error,
 * nothing leaked, and once nothing is refused the data is right. */
START_TEST(test_allocation_failures)
{
    const char *path = write_input("f.csv", events_csv(100));
    inlay_schema *s = events_schema();
    bool done = false;
    for (unsigned long fail = 1; !done && fail < 2000; fail++) {
        test_alloc ta = { .fail_at = fail };
        inlay_source_options o;
        inlay_source_options_init(&o);
        o.alloc = test_allocator(&ta);
        o.batch_rows = 16;
        inlay_source *src = NULL;
        int st = inlay_source_open(&src, path, s, &o);
        size_t total = 0, rows = 0;
        while (st == INLAY_OK) {
            st = inlay_source_next(src, &rows);
            if (st != INLAY_OK || rows == 0) break;
            total += rows;
        }
        if (ta.refused == 0) {
            ck_assert_int_eq(st, INLAY_OK);
            ck_assert_uint_eq(total, 100);
            done = true;
        } else {
            ck_assert_int_eq(st, INLAY_ERR_NOMEM);
        }
        inlay_source_free(src);
        ck_assert_no_leak(&ta);
    }
    ck_assert(done);
    inlay_schema_free(s);
}
END_TEST

START_TEST(test_infer)
{
    const char *path = write_input("i.csv", "a,b,c,d,e\n1,2.5,2024-01-01T00:00:00Z,x,\n300,3,2024-01-02T00:00:00.5Z,y,\n");
    inlay_schema *s;
    char err[256];
    inlay_source_options no;
    inlay_source_options_init(&no);
    no.narrow_ints = true;
    ck_assert_int_eq(inlay_source_infer(&s, path, &no, 0, err, sizeof err), INLAY_OK);
    ck_assert_int_eq(inlay_schema_num_columns(s), 5);
    const char *name;
    inlay_type t;
    inlay_repetition rep;
    ck_assert_int_eq(inlay_schema_column(s, 0, &name, &t, &rep), INLAY_OK);
    ck_assert_str_eq(name, "a");
    ck_assert_int_eq(t.logical, INLAY_LOGICAL_INT);
    ck_assert_int_eq(t.bit_width, 16);
    ck_assert_int_eq(rep, INLAY_REQUIRED);
    ck_assert_int_eq(inlay_schema_column(s, 1, &name, &t, &rep), INLAY_OK);
    ck_assert_int_eq(t.physical, INLAY_DOUBLE);
    ck_assert_int_eq(inlay_schema_column(s, 2, &name, &t, &rep), INLAY_OK);
    ck_assert_int_eq(t.logical, INLAY_LOGICAL_TIMESTAMP);
    ck_assert(t.utc);
    ck_assert_int_eq(t.unit, INLAY_MICROS);
    ck_assert_int_eq(inlay_schema_column(s, 4, &name, &t, &rep), INLAY_OK);
    ck_assert_int_eq(rep, INLAY_OPTIONAL);
    ck_assert_int_eq(inlay_schema_column(s, 5, &name, &t, &rep), INLAY_ERR_COLUMN);
    inlay_schema_free(s);
    /* from memory, with the last record cut short */
    const char sample[] = "{\"k\": 1}\n{\"k\": 2, \"j\": \"2024-01-01\"}\n{\"k\": 3.5, \"j";
    ck_assert_int_eq(inlay_source_infer_buffer(&s, sample, sizeof sample - 1, false, "x.ndjson", NULL, 0, err,
                                               sizeof err), INLAY_OK);
    ck_assert_int_eq(inlay_schema_num_columns(s), 2);
    ck_assert_int_eq(inlay_schema_column(s, 0, &name, &t, &rep), INLAY_OK);
    ck_assert_int_eq(t.bit_width, 64);   /* a partial sample; 3.5 was in the cut record, left out */
    ck_assert_int_eq(inlay_schema_column(s, 1, &name, &t, &rep), INLAY_OK);
    ck_assert_str_eq(name, "j");
    ck_assert_int_eq(t.logical, INLAY_LOGICAL_DATE);
    ck_assert_int_eq(rep, INLAY_OPTIONAL);
    inlay_schema_free(s);
    /* whether the sample stops before the end or not: int64 (narrowed only when asked) */
    path = write_input("long.csv", "n\n1\n2\n3\n4\n");
    for (size_t rows = 3; rows <= 4; rows++) {
        ck_assert_int_eq(inlay_source_infer(&s, path, NULL, rows, err, sizeof err), INLAY_OK);
        ck_assert_int_eq(inlay_schema_column(s, 0, &name, &t, &rep), INLAY_OK);
        ck_assert_int_eq(t.bit_width, 64);
        inlay_schema_free(s);
        ck_assert_int_eq(inlay_source_infer(&s, path, &no, rows, err, sizeof err), INLAY_OK);
        ck_assert_int_eq(inlay_schema_column(s, 0, &name, &t, &rep), INLAY_OK);
        ck_assert_int_eq(t.bit_width, 8);
        inlay_schema_free(s);
    }
    /* spaces around numbers, dates and flags do not make them text, as in parsing */
    path = write_input("sp.csv", "n,d,b\n 1,2024-01-01 ,true\n2, 2024-01-02, false\n");
    ck_assert_int_eq(inlay_source_infer(&s, path, NULL, 0, err, sizeof err), INLAY_OK);
    ck_assert_int_eq(inlay_schema_column(s, 0, &name, &t, &rep), INLAY_OK);
    ck_assert_int_eq(t.logical, INLAY_LOGICAL_INT);
    ck_assert_int_eq(inlay_schema_column(s, 1, &name, &t, &rep), INLAY_OK);
    ck_assert_int_eq(t.logical, INLAY_LOGICAL_DATE);
    ck_assert_int_eq(inlay_schema_column(s, 2, &name, &t, &rep), INLAY_OK);
    ck_assert_int_eq(t.physical, INLAY_BOOLEAN);
    inlay_schema_free(s);
    ck_assert_int_eq(inlay_source_infer(&s, "/nonexistent.csv", NULL, 0, err, sizeof err), INLAY_ERR_IO);
    ck_assert_ptr_null(s);
}
END_TEST

/* Invalid UTF-8 is an error in a STRING column and fine in a binary one;
 * spaces around numbers are ignored, text keeps them. */
START_TEST(test_utf8_and_spaces)
{
    const char *path = write_input("u.csv", "s,b,n\n ok , \xff\xfe , 42 \n\xff,x,1\n");
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_ge(inlay_schema_add(s, 0, "s", INLAY_REQUIRED, inlay_type_string(), NULL), 0);
    ck_assert_int_ge(inlay_schema_add(s, 0, "b", INLAY_REQUIRED, inlay_type_binary(), NULL), 0);
    ck_assert_int_ge(inlay_schema_add(s, 0, "n", INLAY_REQUIRED, inlay_type_int(32, true), NULL), 0);
    inlay_source_options o;
    inlay_source_options_init(&o);
    o.on_error = INLAY_ON_ERROR_SKIP;
    char reject[300];
    snprintf(reject, sizeof reject, "%s/r.txt", g_dir);
    o.reject_path = reject;
    inlay_source *src;
    ck_assert_int_eq(inlay_source_open(&src, path, s, &o), INLAY_OK);
    size_t rows;
    ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_OK);
    ck_assert_uint_eq(rows, 1);
    const inlay_column_batch *b = inlay_source_batch(src, NULL);
    const inlay_bytes *sv = b[0].values, *bv = b[1].values;
    ck_assert_uint_eq(sv[0].len, 4);
    ck_assert(memcmp(sv[0].data, " ok ", 4) == 0);
    ck_assert_uint_eq(bv[0].len, 4);
    ck_assert(memcmp(bv[0].data, " \xff\xfe ", 4) == 0);
    ck_assert_int_eq(((const int32_t *)b[2].values)[0], 42);
    inlay_source_free(src);
    ck_assert_msg(strstr(read_all(reject), "u.csv:3: column 's': invalid UTF-8 in a string column"), "%s",
                  read_all(reject));
    inlay_schema_free(s);
}
END_TEST

/* Decimals on FIXED_LEN_BYTE_ARRAY of any width parse exactly; a BYTE_ARRAY
 * decimal, which has no fixed width to write, is refused at open. */
START_TEST(test_wide_decimals)
{
    const char *path = write_input("d.csv", "w\n-1234567890123456789012345678901234567890.125\n0.5\n1.2345\n");
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_ge(inlay_schema_add(s, 0, "w", INLAY_REQUIRED,
                                      inlay_type_decimal(50, 3, INLAY_FIXED_LEN_BYTE_ARRAY, 0), NULL), 0);
    inlay_source_options o;
    inlay_source_options_init(&o);
    o.on_error = INLAY_ON_ERROR_SKIP;
    inlay_source *src;
    ck_assert_int_eq(inlay_source_open(&src, path, s, &o), INLAY_OK);
    size_t rows;
    ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_OK);
    ck_assert_uint_eq(rows, 2);   /* 1.2345 has a digit past the scale */
    const inlay_bytes *v = inlay_source_batch(src, NULL)[0].values;
    ck_assert_uint_eq(v[0].len, 21);   /* the narrowest width for 50 digits */
    uint8_t want[21];
    ck_assert_int_eq(inlay_parse_decimal("-1234567890123456789012345678901234567890.125", 45, 50, 3, false, want, 21,
                                         NULL), INLAY_OK);
    ck_assert(memcmp(v[0].data, want, 21) == 0);
    ck_assert(((const uint8_t *)v[1].data)[20] == 0xF4 && ((const uint8_t *)v[1].data)[19] == 0x01);   /* 500 */
    inlay_source_stats st;
    inlay_source_get_stats(src, &st);
    ck_assert_uint_eq(st.skipped, 1);
    inlay_source_free(src);
    inlay_schema_free(s);

    s = inlay_schema_create(NULL);
    ck_assert_int_ge(inlay_schema_add(s, 0, "w", INLAY_REQUIRED, inlay_type_decimal(10, 2, INLAY_BYTE_ARRAY, 0), NULL),
                     0);
    ck_assert_int_eq(inlay_source_open(&src, path, s, &o), INLAY_ERR_SCHEMA);
    ck_assert_ptr_nonnull(strstr(inlay_source_errmsg(src), "not supported by text sources"));
    inlay_source_free(src);
    inlay_schema_free(s);
}
END_TEST

/* The prefix option: a sample already read comes first. */
START_TEST(test_prefix)
{
    const char *path = write_input("rest.csv", "3,,\n4,n4,\n");
    inlay_schema *s = events_schema();
    inlay_source_options o;
    inlay_source_options_init(&o);
    o.header = false;
    const char prefix[] = "1,n1,\n2,n2,\n";
    o.prefix = prefix;
    o.prefix_len = sizeof prefix - 1;
    inlay_source *src;
    ck_assert_int_eq(inlay_source_open(&src, path, s, &o), INLAY_OK);
    size_t rows;
    ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_OK);
    ck_assert_uint_eq(rows, 4);
    const int64_t *ids = inlay_source_batch(src, NULL)[0].values;
    for (int i = 0; i < 4; i++) ck_assert_int_eq(ids[i], i + 1);
    inlay_source_free(src);
    inlay_schema_free(s);
}
END_TEST


/* ---- what is detected -------------------------------------------------------------------------- */

/* data as a file at dir/name, compressed with gzip (1) or zstd (2) or not (0). */
static const char *write_bytes(const char *name, const char *text, int comp)
{
    size_t len = strlen(text), zlen = len;
    uint8_t *z = NULL;
    const void *p = text;
    if (comp == 1) {
        z_stream zs;
        memset(&zs, 0, sizeof zs);
        ck_assert_int_eq(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
        zlen = deflateBound(&zs, (uLong)len);
        z = malloc(zlen);
        zs.next_in = (Bytef *)(uintptr_t)text;
        zs.avail_in = (uInt)len;
        zs.next_out = z;
        zs.avail_out = (uInt)zlen;
        ck_assert_int_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
        zlen -= zs.avail_out;
        deflateEnd(&zs);
        p = z;
    } else if (comp == 2) {
        z = malloc(ZSTD_compressBound(len));
        zlen = ZSTD_compress(z, ZSTD_compressBound(len), text, len, 3);
        ck_assert(!ZSTD_isError(zlen));
        p = z;
    }
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(p, 1, zlen, f), zlen);
    fclose(f);
    free(z);
    return path;
}

/* The events of events_csv, rows of them, in a new block (malloc). */
static char *events_csv_big(size_t rows)
{
    size_t cap = 64 + rows * 48, o = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    o += (size_t)snprintf(text + o, cap - o, "score,id,name,ignored\n");
    for (size_t r = 0; r < rows; r++) {
        if (r % 3 == 2)
            o += (size_t)snprintf(text + o, cap - o, "%zu.5,%zu,,x\n", r, r + 1);
        else
            o += (size_t)snprintf(text + o, cap - o, ",%zu,\"n%zu\",x\n", r + 1, r + 1);
    }
    return text;
}

/* A gzip or zstd file over several read-ahead blocks, parsed on the
 * source's thread and decoded on the input's: the same rows as on one
 * thread; freed in mid-stream, it stops both threads and leaks nothing. */
START_TEST(test_compressed_threads)
{
    const size_t total = 400000;   /* about 7 MB of text */
    char *text = events_csv_big(total);
    inlay_schema *s = events_schema();
    for (int comp = 1; comp <= 2; comp++) {
        const char *path = write_bytes(comp == 1 ? "big.csv.gz" : "big.csv.zst", text, comp);
        for (int threads = 1; threads <= 2; threads++) {
            test_alloc ta = { 0 };
            inlay_source_options o;
            inlay_source_options_init(&o);
            o.alloc = test_allocator(&ta);
            o.threads = threads;
            inlay_source *src;
            ck_assert_int_eq(inlay_source_open(&src, path, s, &o), INLAY_OK);
            ck_assert_uint_eq(drain_events(src, INLAY_DEFAULT_BATCH_ROWS), total);
            inlay_source_stats st;
            inlay_source_get_stats(src, &st);
            ck_assert_uint_eq(st.rows, total);
            ck_assert_uint_eq(st.bytes_read, strlen(text));
            ck_assert_uint_eq(st.bytes_consumed, st.bytes_total);
            inlay_source_free(src);
            ck_assert_no_leak(&ta);

            /* freed after one batch, the read-ahead still going */
            ck_assert_int_eq(inlay_source_open(&src, path, s, &o), INLAY_OK);
            size_t rows;
            ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_OK);
            ck_assert_uint_gt(rows, 0);
            inlay_source_free(src);
            ck_assert_no_leak(&ta);
        }
    }
    inlay_schema_free(s);
    free(text);
}
END_TEST

/* The first value of column c in the first batch, as text (strings) or a number. */
static int64_t first_int(inlay_source *src, int c)
{
    size_t rows;
    ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_OK);
    ck_assert_uint_gt(rows, 0);
    return ((const int64_t *)inlay_source_batch(src, NULL)[c].values)[0];
}

START_TEST(test_dialect)
{
    inlay_schema *s = events_schema();
    /* zstd content in a file named .csv, ';' and a header detected */
    const char *path = write_bytes("z.csv", "name;id;score\nann;7;1.5\nbob;8;2\n", 2);
    inlay_source *src;
    inlay_source_options o;
    inlay_source_options_init(&o);
    o.on_error = INLAY_ON_ERROR_SKIP;
    ck_assert_int_eq(inlay_source_open(&src, path, s, &o), INLAY_OK);
    inlay_source_dialect d;
    inlay_source_get_dialect(src, &d);
    ck_assert_int_eq(d.format, INLAY_FORMAT_CSV);
    ck_assert_int_eq(d.compression, INLAY_INPUT_ZSTD);
    ck_assert_int_eq(d.delimiter, ';');
    ck_assert_int_eq(d.quote, '"');
    ck_assert_int_eq(d.escape, '"');
    ck_assert(d.header);
    ck_assert_uint_eq(d.sniffed, INLAY_SNIFFED_FORMAT | INLAY_SNIFFED_DELIMITER | INLAY_SNIFFED_QUOTE |
                                     INLAY_SNIFFED_ESCAPE | INLAY_SNIFFED_HEADER);
    ck_assert_int_eq(first_int(src, 0), 7);
    inlay_source_free(src);
    /* gzip content, no header (by position), '|' */
    path = write_bytes("g.txt", "7|ann|1.5\n8|bob|2.5\n", 1);
    ck_assert_int_eq(inlay_source_open(&src, path, s, NULL), INLAY_OK);
    inlay_source_get_dialect(src, &d);
    ck_assert_int_eq(d.compression, INLAY_INPUT_GZIP);
    ck_assert_int_eq(d.delimiter, '|');
    ck_assert(!d.header);
    ck_assert_int_eq(first_int(src, 0), 7);
    inlay_source_free(src);
    /* NDJSON by its first byte, gzip by its magic, whatever the name */
    path = write_bytes("j.dat", "{\"id\": 9, \"name\": \"x\"}\n", 1);
    ck_assert_int_eq(inlay_source_open(&src, path, s, NULL), INLAY_OK);
    inlay_source_get_dialect(src, &d);
    ck_assert_int_eq(d.format, INLAY_FORMAT_NDJSON);
    ck_assert_int_eq(d.compression, INLAY_INPUT_GZIP);
    ck_assert_uint_eq(d.sniffed, INLAY_SNIFFED_FORMAT);
    ck_assert_int_eq(first_int(src, 0), 9);
    inlay_source_free(src);
    /* given options are kept: the first record is data when told so */
    inlay_source_options_init(&o);
    o.header = 0;
    o.delimiter = ',';
    o.on_error = INLAY_ON_ERROR_SKIP;
    path = write_bytes("h.csv", "id,name,score\n5,e,1\n", 0);
    ck_assert_int_eq(inlay_source_open(&src, path, s, &o), INLAY_OK);
    inlay_source_get_dialect(src, &d);
    ck_assert(!d.header);
    ck_assert_uint_eq(d.sniffed & (INLAY_SNIFFED_HEADER | INLAY_SNIFFED_DELIMITER), 0);
    size_t rows;
    ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_OK);
    ck_assert_uint_eq(rows, 1);   /* "id" is not an int64: skipped */
    inlay_source_stats st;
    inlay_source_get_stats(src, &st);
    ck_assert_uint_eq(st.skipped, 1);
    inlay_source_free(src);
    /* nothing for a failed source */
    ck_assert_int_ne(inlay_source_open(&src, "/nonexistent/x.csv", s, NULL), INLAY_OK);
    inlay_source_get_dialect(src, &d);
    ck_assert_int_eq(d.format, INLAY_FORMAT_AUTO);
    inlay_source_free(src);
    inlay_source_get_dialect(NULL, &d);
    ck_assert_int_eq(d.format, INLAY_FORMAT_AUTO);
    inlay_schema_free(s);
}
END_TEST

/* Backslash escapes and single quotes, as detected. */
START_TEST(test_escapes_and_quotes)
{
    inlay_schema *s = events_schema();
    const char *path = write_bytes("e.csv", "id,name\n1,\"say \\\"hi\\\"\"\n2,\"c:\\\\x\"\n", 0);
    inlay_source *src;
    ck_assert_int_eq(inlay_source_open(&src, path, s, NULL), INLAY_OK);
    inlay_source_dialect d;
    inlay_source_get_dialect(src, &d);
    ck_assert_int_eq(d.escape, '\\');
    size_t rows;
    ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_OK);
    ck_assert_uint_eq(rows, 2);
    const inlay_bytes *names = inlay_source_batch(src, NULL)[1].values;
    ck_assert_bytes(names[0].data, names[0].len, "say \"hi\"", 8);
    ck_assert_bytes(names[1].data, names[1].len, "c:\\x", 4);
    inlay_source_free(src);
    path = write_bytes("q.csv", "'id';'name'\n1;'a;b'\n2;'c'\n", 0);
    ck_assert_int_eq(inlay_source_open(&src, path, s, NULL), INLAY_OK);
    ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_OK);
    ck_assert_uint_eq(rows, 2);
    names = inlay_source_batch(src, NULL)[1].values;
    ck_assert_bytes(names[0].data, names[0].len, "a;b", 3);
    inlay_source_free(src);
    inlay_schema_free(s);
}
END_TEST

/* ---- the reject file ------------------------------------------------------------------------- */

static uint64_t file_hash(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    uint64_t h = 1469598103934665603ULL;   /* FNV-1a */
    int c;
    size_t n = 0;
    while ((c = fgetc(f)) != EOF) {
        h = (h ^ (uint64_t)c) * 1099511628211ULL;
        n++;
    }
    fclose(f);
    return h ^ n;
}

/* The reject file may not be the input, by whatever name: refused before
 * anything is truncated, the input byte for byte what it was. */
START_TEST(test_reject_is_input)
{
    const char *path = write_input("in.csv", "id,name,score\n1,a,1\nx,b,2\n3,c,3\n");
    char input[512], soft[600], hard[600];
    snprintf(input, sizeof input, "%s", path);
    snprintf(soft, sizeof soft, "%s/soft.csv", g_dir);
    snprintf(hard, sizeof hard, "%s/hard.csv", g_dir);
    ck_assert_int_eq(symlink(input, soft), 0);
    ck_assert_int_eq(link(input, hard), 0);
    const uint64_t before = file_hash(input);
    struct stat st0;
    ck_assert_int_eq(stat(input, &st0), 0);
    inlay_schema *s = events_schema();
    const char *rejects[] = { input, soft, hard };
    for (int i = 0; i < 3; i++) {
        for (int skip = 0; skip < 2; skip++) {
            inlay_source_options o;
            inlay_source_options_init(&o);
            o.reject_path = rejects[i];
            o.on_error = skip ? INLAY_ON_ERROR_SKIP : INLAY_ON_ERROR_FAIL;
            inlay_source *src;
            ck_assert_int_eq(inlay_source_open(&src, input, s, &o), INLAY_ERR_ARGUMENT);
            ck_assert_msg(strstr(inlay_source_errmsg(src), "is the input"), "%s", inlay_source_errmsg(src));
            ck_assert_msg(strstr(inlay_source_errmsg(src), rejects[i]), "%s", inlay_source_errmsg(src));
            inlay_source_free(src);
            ck_assert_uint_eq(file_hash(input), before);
            struct stat st;
            ck_assert_int_eq(stat(input, &st), 0);
            ck_assert_int_eq(st.st_size, st0.st_size);
        }
    }
    /* the input read through the link, the reject file named as the input */
    inlay_source_options o;
    inlay_source_options_init(&o);
    o.reject_path = input;
    o.on_error = INLAY_ON_ERROR_SKIP;
    inlay_source *src;
    ck_assert_int_eq(inlay_source_open(&src, soft, s, &o), INLAY_ERR_ARGUMENT);
    inlay_source_free(src);
    ck_assert_uint_eq(file_hash(input), before);
    /* another file is truncated and written as before */
    const char *other = write_input("rej.txt", "left over from an earlier run, longer than what comes\n");
    char rej[512];
    snprintf(rej, sizeof rej, "%s", other);
    o.reject_path = rej;
    ck_assert_int_eq(inlay_source_open(&src, input, s, &o), INLAY_OK);
    size_t rows;
    ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_OK);
    ck_assert_uint_eq(rows, 2);
    inlay_source_free(src);
    const char *got = read_all(rej);
    ck_assert_msg(strncmp(got, input, strlen(input)) == 0 && strstr(got, ":3: column 'id'") && !strstr(got, "left over"),
                  "%s", got);
    ck_assert_uint_eq(file_hash(input), before);
    inlay_schema_free(s);
}
END_TEST

/* ---- past the sample ---------------------------------------------------------------------------- */

/* The schema inferred from a sample, then a value the sample did not have:
 * the message names the column, the value, the line and the way out. */
START_TEST(test_past_sample_message)
{
    char text[1 << 16];
    size_t n = (size_t)snprintf(text, sizeof text, "n,when,s\n");
    for (int i = 1; i <= 300; i++) n += (size_t)snprintf(text + n, sizeof text - n, "%d,2024-01-%02d,x\n", i, 1 + i % 28);
    n += (size_t)snprintf(text + n, sizeof text - n, "12.5,2024-01-01 10:00:00,y\n");
    const char *path = write_input("late.csv", text);
    char input[512];
    snprintf(input, sizeof input, "%s", path);
    inlay_schema *s;
    char err[256];
    ck_assert_int_eq(inlay_source_infer_buffer(&s, text, 2000, false, "late.csv", NULL, 0, err, sizeof err), INLAY_OK);
    inlay_source_options o;
    inlay_source_options_init(&o);
    o.inferred_schema = true;
    inlay_source *src;
    ck_assert_int_eq(inlay_source_open(&src, input, s, &o), INLAY_OK);
    size_t rows;
    ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_ERR_VALUE);
    const char *m = inlay_source_errmsg(src);
    char want[1024];
    snprintf(want, sizeof want,
             "%s:302: column 'n': cannot parse \"12.5\" as int64; its type was inferred from a sample of the input "
             "(use --infer-rows N, --schema FILE or --types n=double)", input);
    ck_assert_str_eq(m, want);
    inlay_source_free(src);
    /* the next column over: a timestamp in a date column */
    inlay_schema_free(s);
    n = (size_t)snprintf(text, sizeof text, "when\n2024-01-01\n2024-01-02 10:00:00\n");
    path = write_input("d.csv", text);
    ck_assert_int_eq(inlay_source_infer_buffer(&s, text, 16, false, "d.csv", NULL, 0, err, sizeof err), INLAY_OK);
    ck_assert_int_eq(inlay_source_open(&src, path, s, &o), INLAY_OK);
    ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_ERR_VALUE);
    ck_assert_msg(strstr(inlay_source_errmsg(src), ":3: column 'when': cannot parse \"2024-01-02 10:00:00\" as date;") &&
                  strstr(inlay_source_errmsg(src), "--types when=timestamp(us))"), "%s", inlay_source_errmsg(src));
    inlay_source_free(src);
    /* without inferred_schema: the plain message */
    o.inferred_schema = false;
    ck_assert_int_eq(inlay_source_open(&src, path, s, &o), INLAY_OK);
    ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_ERR_VALUE);
    ck_assert_ptr_null(strstr(inlay_source_errmsg(src), "--types"));
    inlay_source_free(src);
    inlay_schema_free(s);
}
END_TEST

typedef struct stdin_run {
    const char *head;       /* what inference saw: the prefix */
    size_t head_len;
    inlay_schema *schema;
    char msg[1024];
    int status;
} stdin_run;

/* As `inlay convert -` does: infer from the head of stdin, then read it
 * all, the head first. */
static void convert_stdin(stdin_run *r)
{
    inlay_source_options o;
    inlay_source_options_init(&o);
    o.inferred_schema = true;
    o.prefix = r->head;
    o.prefix_len = r->head_len;
    inlay_source *src;
    ck_assert_int_eq(inlay_source_open(&src, "-", r->schema, &o), INLAY_OK);
    size_t rows;
    while ((r->status = inlay_source_next(src, &rows)) == INLAY_OK && rows > 0) {}
    snprintf(r->msg, sizeof r->msg, "%s", inlay_source_errmsg(src));
    inlay_source_free(src);
}

/* gzip on stdin, the head taken for inference first: the type error past
 * it names <stdin>, the line, the column and the value. */
START_TEST(test_past_sample_stdin)
{
    static char text[1 << 20];
    size_t n = (size_t)snprintf(text, sizeof text, "id,v\n");
    for (int i = 1; i <= 20000; i++) n += (size_t)snprintf(text + n, sizeof text - n, "%d,%d\n", i, i % 7);
    n += (size_t)snprintf(text + n, sizeof text - n, "20001,seven\n");
    const char *path = write_bytes("s.gz", text, 1);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    static char z[1 << 20];
    size_t zlen = fread(z, 1, sizeof z, f);
    fclose(f);
    const size_t head = zlen / 3;   /* a piece of the compressed stream */
    inlay_schema *s;
    char err[256];
    ck_assert_int_eq(inlay_source_infer_buffer(&s, z, head, false, "<stdin>", NULL, 0, err, sizeof err), INLAY_OK);
    const char *name;
    inlay_type t;
    ck_assert_int_eq(inlay_schema_column(s, 1, &name, &t, NULL), INLAY_OK);
    ck_assert_str_eq(name, "v");
    ck_assert_int_eq(t.bit_width, 64);
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {   /* the rest of the stream, through the pipe */
        close(fds[0]);
        size_t done = head;
        while (done < zlen) {
            ssize_t k = write(fds[1], z + done, zlen - done < 4096 ? zlen - done : 4096);
            if (k <= 0) _exit(1);
            done += (size_t)k;
        }
        _exit(0);
    }
    close(fds[1]);
    int saved = dup(0);
    ck_assert_int_eq(dup2(fds[0], 0), 0);
    close(fds[0]);
    stdin_run r = { z, head, s, "", 0 };
    convert_stdin(&r);
    ck_assert_int_eq(dup2(saved, 0), 0);
    close(saved);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_int_eq(r.status, INLAY_ERR_VALUE);
    ck_assert_str_eq(r.msg, "<stdin>:20002: column 'v': cannot parse \"seven\" as int64; its type was inferred from a "
                            "sample of the input (use --infer-rows N, --schema FILE or --types v=string)");
    inlay_schema_free(s);
}
END_TEST

/* A skipped record is no failure of the source: whatever was skipped, on
 * either thread, status and message stay clear between batches and after
 * the last (the reason of a skipped record only goes to the reject file).
 * With threads = 2 this also polls them while the parsing thread meets
 * bad records (a data race for ThreadSanitizer if they were its). */
START_TEST(test_skip_keeps_status_clear)
{
    char text[8192];
    size_t o = (size_t)snprintf(text, sizeof text, "id,name,score\n");
    for (int r = 1; r <= 200; r++)
        o += (size_t)snprintf(text + o, sizeof text - o, r % 3 ? "%d,a,1\n" : "bad%d,b,2\n", r);
    const char *path = write_input("status.csv", text);
    inlay_schema *s = events_schema();
    for (int threads = 1; threads <= 2; threads++) {
        inlay_source_options op;
        inlay_source_options_init(&op);
        op.threads = threads;
        op.on_error = INLAY_ON_ERROR_SKIP;
        op.batch_rows = 5;
        inlay_source *src;
        ck_assert_int_eq(inlay_source_open(&src, path, s, &op), INLAY_OK);
        size_t rows, total = 0;
        do {
            ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_OK);
            total += rows;
            ck_assert_int_eq(inlay_source_status(src), INLAY_OK);
            ck_assert_str_eq(inlay_source_errmsg(src), "");
        } while (rows);
        ck_assert_uint_eq(total, 134);
        inlay_source_stats st;
        inlay_source_get_stats(src, &st);
        ck_assert_uint_eq(st.skipped, 66);
        inlay_source_free(src);
    }
    inlay_schema_free(s);
}
END_TEST

static void sleep_ms(long ms)
{
    const struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* The reject file and the counters follow the batches handed out, not the
 * parsing: a caller that stops after the first batch finds no reject line
 * of the second, though the parsing thread has long parsed it, and the
 * counters of the first; one that reads on finds both. The same with
 * threads = 1 and 2. */
START_TEST(test_rejects_follow_batches)
{
    const char *path = write_input("ahead.csv", "id,name,score\n1,a,1\n2,b,2\n3,c,3\n4,d,4\n5,e,oops\n6,f,6\n");
    char reject[300];
    snprintf(reject, sizeof reject, "%s/ahead-rejects.txt", g_dir);
    inlay_schema *s = events_schema();
    for (int threads = 1; threads <= 2; threads++) {
        for (int read_on = 0; read_on <= 1; read_on++) {
            inlay_source_options op;
            inlay_source_options_init(&op);
            op.threads = threads;
            op.on_error = INLAY_ON_ERROR_SKIP;
            op.reject_path = reject;
            op.batch_rows = 4;
            inlay_source *src;
            ck_assert_int_eq(inlay_source_open(&src, path, s, &op), INLAY_OK);
            size_t rows;
            ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_OK);
            ck_assert_uint_eq(rows, 4);
            sleep_ms(200);   /* time for the parsing thread to fill the next batch */
            inlay_source_stats st;
            inlay_source_get_stats(src, &st);
            ck_assert_uint_eq(st.skipped, 0);
            ck_assert_uint_eq(st.records, 4);
            ck_assert_uint_eq(st.rows, 4);
            ck_assert_str_eq(read_all(reject), "");
            if (read_on) {
                ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_OK);
                ck_assert_uint_eq(rows, 1);
                inlay_source_get_stats(src, &st);
                ck_assert_uint_eq(st.skipped, 1);
                ck_assert_uint_eq(st.records, 6);
                /* written as its batch is handed out */
                ck_assert_ptr_nonnull(strstr(read_all(reject), "ahead.csv:6:"));
            }
            inlay_source_free(src);
            const char *rej = read_all(reject);
            if (read_on) {
                ck_assert_msg(strstr(rej, "ahead.csv:6: column 'score': cannot parse \"oops\" as double\t5,e,oops\n"),
                              "%s", rej);
                ck_assert_int_eq(strchr(rej, '\n')[1], 0);   /* that line only */
            } else
                ck_assert_str_eq(rej, "");
        }
    }
    inlay_schema_free(s);
}
END_TEST

/* A long run of bad records (a wrong schema) does not pile up its reject
 * lines in memory: once the batch is sure to be handed out (the caller
 * waits for it), they are written as they come, in order. */
START_TEST(test_reject_run_bounded)
{
    enum { BAD = 100000 };
    char *text = malloc(64 + BAD * 6 + 64);
    ck_assert_ptr_nonnull(text);
    size_t o = (size_t)sprintf(text, "id,name,score\n1,a,1\n");
    for (int i = 0; i < BAD; i++) o += (size_t)sprintf(text + o, "x,b,2\n");
    sprintf(text + o, "2,b,2\n");
    const char *path = write_input("run.csv", text);
    free(text);
    char reject[300];
    snprintf(reject, sizeof reject, "%s/run-rejects.txt", g_dir);
    inlay_schema *s = events_schema();
    for (int threads = 1; threads <= 2; threads++) {
        test_alloc ta = { 0 };
        inlay_source_options op;
        inlay_source_options_init(&op);
        op.alloc = test_allocator(&ta);
        op.threads = threads;
        op.on_error = INLAY_ON_ERROR_SKIP;
        op.reject_path = reject;
        op.batch_rows = 1000;
        inlay_source *src;
        ck_assert_int_eq(inlay_source_open(&src, path, s, &op), INLAY_OK);
        size_t rows, total = 0;
        do {
            ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_OK);
            total += rows;
        } while (rows);
        ck_assert_uint_eq(total, 2);
        inlay_source_stats st;
        inlay_source_get_stats(src, &st);
        ck_assert_uint_eq(st.skipped, BAD);
        inlay_source_free(src);
        ck_assert_no_leak(&ta);
        ck_assert_msg(ta.peak_bytes < 4u << 20, "peak %zu bytes", ta.peak_bytes);
        FILE *f = fopen(reject, "rb");
        ck_assert_ptr_nonnull(f);
        char line[512];
        unsigned long n = 0;
        while (fgets(line, sizeof line, f)) {
            n++;
            char want[64];
            snprintf(want, sizeof want, "run.csv:%lu: column 'id'", n + 2);
            ck_assert_msg(strstr(line, want), "line %lu: %s", n, line);
        }
        fclose(f);
        ck_assert_uint_eq(n, BAD);
    }
    inlay_schema_free(s);
}
END_TEST

/* A reject file that cannot be written fails the source with its own
 * message, on either thread. */
START_TEST(test_reject_write_error)
{
    const char *path = write_input("full.csv", "id,name,score\n1,a,1\nx,b,2\n3,c,3\n");
    inlay_schema *s = events_schema();
    for (int threads = 1; threads <= 2; threads++) {
        inlay_source_options op;
        inlay_source_options_init(&op);
        op.threads = threads;
        op.on_error = INLAY_ON_ERROR_SKIP;
        op.reject_path = "/dev/full";
        inlay_source *src;
        ck_assert_int_eq(inlay_source_open(&src, path, s, &op), INLAY_OK);
        size_t rows;
        ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_ERR_IO);
        ck_assert_uint_eq(rows, 0);
        ck_assert_int_eq(inlay_source_status(src), INLAY_ERR_IO);
        ck_assert_str_eq(inlay_source_errmsg(src), "cannot write the reject file '/dev/full': No space left on device");
        ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_ERR_IO);   /* sticky */
        inlay_source_free(src);
    }
    inlay_schema_free(s);
}
END_TEST

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Writes 4 good records then bad ones to the FIFO for up to `seconds`, or
 * until the reader goes away. */
static void produce_bad_records(const char *fifo, double seconds)
{
    signal(SIGPIPE, SIG_IGN);
    int fd = open(fifo, O_WRONLY);
    if (fd < 0) _exit(1);
    static const char head[] = "id,name,score\n1,a,1\n2,b,2\n3,c,3\n4,d,4\n";
    if (write(fd, head, sizeof head - 1) < 0) _exit(1);
    static char chunk[1 << 16];
    for (size_t i = 0; i + 6 <= sizeof chunk; i += 6) memcpy(chunk + i, "x,b,2\n", 6);
    const size_t len = sizeof chunk / 6 * 6;
    const double end = now_seconds() + seconds;
    while (now_seconds() < end)
        if (write(fd, chunk, len) < 0) break;
    _exit(0);
}

/* Freed while its thread parses a stream of bad records from a producer
 * that keeps writing, the source stops that thread at the next record
 * rather than when the stream (or a full batch) ends. */
START_TEST(test_free_stops_parsing)
{
    char fifo[300];
    snprintf(fifo, sizeof fifo, "%s/stream.csv", g_dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    const pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) produce_bad_records(fifo, 30);
    inlay_schema *s = events_schema();
    inlay_source_options op;
    inlay_source_options_init(&op);
    op.threads = 2;
    op.on_error = INLAY_ON_ERROR_SKIP;
    op.format = INLAY_FORMAT_CSV;
    op.delimiter = ',';
    op.quote = '"';
    op.header = 1;
    op.batch_rows = 4;
    inlay_source *src;
    ck_assert_int_eq(inlay_source_open(&src, fifo, s, &op), INLAY_OK);
    size_t rows;
    ck_assert_int_eq(inlay_source_next(src, &rows), INLAY_OK);
    ck_assert_uint_eq(rows, 4);
    sleep_ms(100);   /* the parsing thread well into the bad records */
    const double t0 = now_seconds();
    inlay_source_free(src);
    const double took = now_seconds() - t0;
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(took < 5, "inlay_source_free took %.1f s", took);
    inlay_schema_free(s);
}
END_TEST

/* NDJSON cut short in a gzip stream: the input's own message, with the
 * file's name and the cause, as for CSV. */
START_TEST(test_ndjson_truncated_message)
{
    char *text = malloc(1 << 20);
    ck_assert_ptr_nonnull(text);
    size_t o = 0;
    for (int r = 1; o + 64 < (1 << 20); r++)
        o += (size_t)snprintf(text + o, (1 << 20) - o, "{\"id\":%d,\"name\":\"n%d\",\"score\":%d.25}\n", r, r * 7, r);
    const char *path = write_bytes("cut.json.gz", text, 1);
    free(text);
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_int_eq(truncate(path, sb.st_size / 2), 0);
    inlay_schema *s = events_schema();
    for (int threads = 1; threads <= 2; threads++) {
        inlay_source_options op;
        inlay_source_options_init(&op);
        op.threads = threads;
        inlay_source *src;
        ck_assert_int_eq(inlay_source_open(&src, path, s, &op), INLAY_OK);
        size_t rows;
        int st;
        while ((st = inlay_source_next(src, &rows)) == INLAY_OK && rows) {}
        ck_assert_int_eq(st, INLAY_ERR_IO);
        ck_assert_int_eq(inlay_source_status(src), INLAY_ERR_IO);
        char want[600];
        snprintf(want, sizeof want, "%s: truncated gzip data", path);
        ck_assert_str_eq(inlay_source_errmsg(src), want);
        inlay_source_free(src);
    }
    inlay_schema_free(s);
}
END_TEST

static Suite *source_suite(void)
{
    Suite *s = suite_create("source");
    TCase *c = tcase_create("batches");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_csv_batches);
    tcase_add_test(c, test_ndjson_batches);
    tcase_add_test(c, test_prefix);
    tcase_add_test(c, test_wide_decimals);
    suite_add_tcase(s, c);
    c = tcase_create("compressed input on threads");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_set_timeout(c, 120);
    tcase_add_test(c, test_compressed_threads);
    suite_add_tcase(s, c);
    c = tcase_create("detection");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_dialect);
    tcase_add_test(c, test_escapes_and_quotes);
    suite_add_tcase(s, c);
    c = tcase_create("reject file and advice");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_reject_is_input);
    tcase_add_test(c, test_past_sample_message);
    tcase_add_test(c, test_past_sample_stdin);
    suite_add_tcase(s, c);
    c = tcase_create("errors");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_bad_record_fails);
    tcase_add_test(c, test_skip_and_reject);
    tcase_add_test(c, test_open_errors);
    tcase_add_test(c, test_utf8_and_spaces);
    tcase_add_test(c, test_skip_keeps_status_clear);
    tcase_add_test(c, test_rejects_follow_batches);
    tcase_add_test(c, test_reject_write_error);
    tcase_add_test(c, test_reject_run_bounded);
    tcase_add_test(c, test_ndjson_truncated_message);
    suite_add_tcase(s, c);
    c = tcase_create("freeing while parsing");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_set_timeout(c, 120);
    tcase_add_test(c, test_free_stops_parsing);
    suite_add_tcase(s, c);
    c = tcase_create("allocation");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_set_timeout(c, 120);
    tcase_add_test(c, test_allocation_failures);
    suite_add_tcase(s, c);
    c = tcase_create("infer");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_infer);
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(source_suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
