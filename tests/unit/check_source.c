/*
 * check_source.c — text sources (source.c) and schema inference (infer.c):
 * records into column batches, batch boundaries, nulls, the parsing thread,
 * bad records failing or skipped to the reject file, allocation failures,
 * and inferred schemas.
 */
#include <unistd.h>

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
    ck_assert_int_eq(inlay_source_infer(&s, path, NULL, 0, err, sizeof err), INLAY_OK);
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
    /* a sample that stops before the end: integers become int64 */
    path = write_input("long.csv", "n\n1\n2\n3\n4\n");
    ck_assert_int_eq(inlay_source_infer(&s, path, NULL, 3, err, sizeof err), INLAY_OK);
    ck_assert_int_eq(inlay_schema_column(s, 0, &name, &t, &rep), INLAY_OK);
    ck_assert_int_eq(t.bit_width, 64);
    inlay_schema_free(s);
    ck_assert_int_eq(inlay_source_infer(&s, path, NULL, 4, err, sizeof err), INLAY_OK);
    ck_assert_int_eq(inlay_schema_column(s, 0, &name, &t, &rep), INLAY_OK);
    ck_assert_int_eq(t.bit_width, 8);
    inlay_schema_free(s);
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
    c = tcase_create("errors");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_bad_record_fails);
    tcase_add_test(c, test_skip_and_reject);
    tcase_add_test(c, test_open_errors);
    tcase_add_test(c, test_utf8_and_spaces);
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
