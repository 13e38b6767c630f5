/*
 * check_sink.c — sinks (runtime/write/sink.c) and the writer's side of their
 * contract: a sink whose write fails at the Nth call (for every N) gives
 * INLAY_ERR_IO, sticky, with no leak, no more writes and exactly one abort;
 * a failing finish is reported and followed by nothing. The file sink
 * writes a temporary file beside the target: freeing or aborting the
 * writer leaves the folder as it was, a successful close leaves exactly
 * the target, and a failing allocation leaves no file either.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

/* ---- a small write ------------------------------------------------------------------------ */

static inlay_schema *make_schema(const inlay_allocator *a)
{
    inlay_schema *s = inlay_schema_create(a);
    if (!s) return NULL;
    if (inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL) < 0 ||
        inlay_schema_add(s, 0, "name", INLAY_OPTIONAL, inlay_type_string(), NULL) < 0) {
        inlay_schema_free(s);
        return NULL;
    }
    return s;
}

static inlay_options options(const inlay_allocator *a)
{
    inlay_options o;
    inlay_options_init(&o);
    if (a) o.alloc = *a;
    o.page_rows = 50;
    o.row_group_rows = 120;
    return o;
}

enum { ROWS = 400, BATCH = 100 };

static int append_rows(inlay_writer *w, int from, int n)
{
    int64_t id[BATCH];
    inlay_bytes name[BATCH];
    int16_t def[BATCH];
    static char text[BATCH][16];
    size_t nv = 0;
    for (int i = 0; i < n; i++) {
        id[i] = from + i;
        def[i] = (from + i) % 4 != 0;
        if (def[i]) {
            int k = snprintf(text[nv], sizeof text[nv], "n%d", (from + i) % 9);
            name[nv].data = text[nv];
            name[nv].len = (size_t)k;
            nv++;
        }
    }
    inlay_levels lv = { def, NULL, NULL };
    int st = inlay_writer_append_i64(w, 0, id, (size_t)n, NULL);
    int st2 = inlay_writer_append_bytes(w, 1, name, (size_t)n, &lv);
    return st ? st : st2;
}

/* Append ROWS rows in batches and close; returns the first failure. Later
 * calls must return the same status. */
static int write_rows(inlay_writer *w)
{
    int first = 0;
    for (int r = 0; r < ROWS; r += BATCH) {
        int st = append_rows(w, r, BATCH);
        if (first) ck_assert_msg(st == first, "append after %d gave %d", first, st);
        else first = st;
    }
    int st = inlay_writer_close(w);
    if (first) ck_assert_msg(st == first, "close after %d gave %d", first, st);
    else first = st;
    return first;
}

/* ---- failing writes ------------------------------------------------------------------------ */

START_TEST(test_write_fails_at_n)
{
    test_sink ref = { 0 };
    {
        inlay_schema *s = make_schema(NULL);
        inlay_options o = options(NULL);
        inlay_writer *w;
        ck_assert_int_eq(inlay_writer_open(&w, test_sink_interface(&ref), s, &o), INLAY_OK);
        inlay_schema_free(s);
        ck_assert_int_eq(write_rows(w), INLAY_OK);
        inlay_writer_free(w);
        ck_assert_uint_eq(ref.finishes, 1);
        ck_assert_uint_eq(ref.aborts, 0);
        ck_assert_uint_eq(ref.late_calls, 0);
    }
    const unsigned long writes = ref.writes;
    ck_assert_uint_gt(writes, 5);
    for (unsigned long n = 1; n <= writes; n++) {
        test_alloc ta = { 0 };
        inlay_allocator a = test_allocator(&ta);
        test_sink ts = { .fail_write = n };
        inlay_schema *s = make_schema(&a);
        inlay_options o = options(&a);
        inlay_writer *w = NULL;
        int st = inlay_writer_open(&w, test_sink_interface(&ts), s, &o);
        inlay_schema_free(s);
        if (st == INLAY_OK) st = write_rows(w);
        ck_assert_msg(st == INLAY_ERR_IO, "write %lu of %lu failed: status %d", n, writes, st);
        ck_assert_ptr_nonnull(w);
        ck_assert_msg(strstr(inlay_writer_errmsg(w), inlay_strerror(INLAY_ERR_IO)) != NULL, "message: %s",
                      inlay_writer_errmsg(w));
        inlay_writer_free(w);
        ck_assert_msg(ts.writes == n && ts.writes_after_failure == 0,
                      "write %lu failed, yet %lu writes were made", n, ts.writes);
        ck_assert_msg(ts.aborts == 1 && ts.finishes == 0 && ts.late_calls == 0,
                      "write %lu failed: %lu aborts, %lu finishes, %lu calls after them", n, ts.aborts,
                      ts.finishes, ts.late_calls);
        ck_assert_msg(ts.len == 0 || memcmp(ts.data, ref.data, ts.len) == 0, "bytes before the failure differ");
        ck_assert_no_leak(&ta);
        test_sink_free(&ts);
    }
    test_sink_free(&ref);
}
END_TEST

START_TEST(test_finish_fails)
{
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    test_sink ts = { .fail_finish = true };
    inlay_schema *s = make_schema(&a);
    inlay_options o = options(&a);
    inlay_writer *w;
    ck_assert_int_eq(inlay_writer_open(&w, test_sink_interface(&ts), s, &o), INLAY_OK);
    inlay_schema_free(s);
    ck_assert_int_eq(write_rows(w), INLAY_ERR_IO);
    ck_assert_ptr_nonnull(strstr(inlay_writer_errmsg(w), "finish"));
    ck_assert_int_eq(inlay_writer_close(w), INLAY_ERR_STATE);     /* the file is given up */
    inlay_writer_abort(w);
    inlay_writer_free(w);
    ck_assert_uint_eq(ts.finishes, 1);
    ck_assert_uint_eq(ts.aborts, 0);        /* nothing after finish, even a failed one */
    ck_assert_uint_eq(ts.late_calls, 0);
    ck_assert_no_leak(&ta);
    test_sink_free(&ts);
}
END_TEST

START_TEST(test_free_without_close_aborts)
{
    test_sink ts = { 0 };
    inlay_schema *s = make_schema(NULL);
    inlay_writer *w;
    ck_assert_int_eq(inlay_writer_open(&w, test_sink_interface(&ts), s, NULL), INLAY_OK);
    inlay_schema_free(s);
    ck_assert_int_eq(append_rows(w, 0, BATCH), INLAY_OK);
    inlay_writer_free(w);
    ck_assert_uint_eq(ts.aborts, 1);
    ck_assert_uint_eq(ts.finishes, 0);
    test_sink_free(&ts);
}
END_TEST

START_TEST(test_buffer_sink)
{
    /* the memory sink appends, and finish/abort leave the bytes alone */
    inlay_buffer b;
    inlay_buffer_init(&b, NULL);
    inlay_sink k = inlay_buffer_sink(&b);
    ck_assert_int_eq(k.write(k.ctx, "PAR1", 4), 0);
    ck_assert_int_eq(k.write(k.ctx, "xy", 2), 0);
    ck_assert_int_eq(k.write(k.ctx, NULL, 0), 0);
    ck_assert_int_eq(k.finish(k.ctx), 0);
    k.abort(k.ctx);
    ck_assert_bytes(b.data, b.len, "PAR1xy", 6);
    inlay_buffer_free(&b);
    ck_assert_uint_eq(b.len, 0);

    test_alloc ta = { .fail_at = 1 };
    inlay_allocator a = test_allocator(&ta);
    inlay_buffer_init(&b, &a);
    k = inlay_buffer_sink(&b);
    ck_assert_int_ne(k.write(k.ctx, "abc", 3), 0);     /* out of memory: the write fails */
    ck_assert_uint_eq(b.len, 0);
    ck_assert_int_eq(k.write(k.ctx, "abc", 3), 0);
    ck_assert_bytes(b.data, b.len, "abc", 3);
    inlay_buffer_free(&b);
    ck_assert_no_leak(&ta);
}
END_TEST

/* ---- the file sink ---------------------------------------------------------------------------- */

/* Each TCase gets a folder (made and removed in the runner's process, so
 * it goes even when a test fails), and each test a fresh folder inside it. */
static char base[256], dir[300];

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        unlink(path);
        return;
    }
    struct dirent *e;
    char sub[512];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        remove_tree(sub);
    }
    closedir(d);
    rmdir(path);
}

static void make_base(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(base, sizeof base, "%s/inlay-unit-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(base)) base[0] = 0;
}

static void remove_base(void)
{
    if (base[0]) remove_tree(base);
}

static void make_dir(void)
{
    ck_assert_msg(base[0] != 0, "no temporary folder");
    snprintf(dir, sizeof dir, "%s/XXXXXX", base);
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
    remove_tree(dir);
}

/* Names in the folder, sorted into one string ("a b "), for comparisons. */
static void listing(char *out, size_t cap)
{
    char names[16][256];
    int n = 0;
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (n < 16) snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    }
    closedir(d);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char t[256];
            memcpy(t, names[j], sizeof t);
            memcpy(names[j], names[j - 1], sizeof t);
            memcpy(names[j - 1], t, sizeof t);
        }
    out[0] = 0;
    for (int i = 0; i < n; i++) {
        size_t l = strlen(out);
        snprintf(out + l, cap - l, "%s ", names[i]);
    }
}

#define EXPECT_LISTING(want)                                                   \
    do {                                                                       \
        char got_[2048];                                                       \
        listing(got_, sizeof got_);                                            \
        ck_assert_msg(strcmp(got_, (want)) == 0, "folder holds \"%s\", want \"%s\"", got_, (want)); \
    } while (0)

static char *target(const char *name)
{
    static char path[400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc((size_t)n + 1);
    ck_assert_uint_eq(fread(p, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return p;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static inlay_writer *open_file(const char *path, const inlay_allocator *a)
{
    inlay_schema *s = make_schema(NULL);
    inlay_options o = options(a);
    inlay_writer *w = NULL;
    int st = inlay_writer_open_file(&w, path, s, &o);
    ck_assert_msg(st == INLAY_OK, "%d %s", st, w ? inlay_writer_errmsg(w) : "");
    inlay_schema_free(s);
    return w;
}

START_TEST(test_free_without_close)
{
    inlay_writer *w = open_file(target("out.parquet"), NULL);
    ck_assert_int_eq(append_rows(w, 0, BATCH), INLAY_OK);
    char got[2048];
    listing(got, sizeof got);
    ck_assert_msg(strncmp(got, "out.parquet.", 12) == 0 && strstr(got, ".tmp "), "temporary file: \"%s\"", got);
    inlay_writer_free(w);
    EXPECT_LISTING("");
}
END_TEST

START_TEST(test_abort_removes)
{
    inlay_writer *w = open_file(target("out.parquet"), NULL);
    ck_assert_int_eq(append_rows(w, 0, BATCH), INLAY_OK);
    inlay_writer_abort(w);
    EXPECT_LISTING("");
    ck_assert_int_eq(inlay_writer_close(w), INLAY_ERR_STATE);
    inlay_writer_free(w);
    EXPECT_LISTING("");
}
END_TEST

START_TEST(test_close_leaves_target)
{
    inlay_writer *w = open_file(target("out.parquet"), NULL);
    ck_assert_int_eq(write_rows(w), INLAY_OK);
    uint64_t bytes = inlay_writer_bytes(w);
    EXPECT_LISTING("out.parquet ");
    inlay_writer_free(w);
    EXPECT_LISTING("out.parquet ");
    /* the same bytes as a memory sink gets */
    inlay_buffer b;
    inlay_buffer_init(&b, NULL);
    inlay_schema *s = make_schema(NULL);
    inlay_options o = options(NULL);
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&b), s, &o), INLAY_OK);
    inlay_schema_free(s);
    ck_assert_int_eq(write_rows(w), INLAY_OK);
    inlay_writer_free(w);
    size_t len;
    uint8_t *p = read_file(target("out.parquet"), &len);
    ck_assert_uint_eq(len, bytes);
    ck_assert(len == b.len && memcmp(p, b.data, len) == 0);
    free(p);
    inlay_buffer_free(&b);
}
END_TEST

START_TEST(test_existing_target)
{
    /* an existing file is replaced only by a successful close */
    write_text(target("out.parquet"), "old");
    inlay_writer *w = open_file(target("out.parquet"), NULL);
    ck_assert_int_eq(append_rows(w, 0, BATCH), INLAY_OK);
    inlay_writer_free(w);
    EXPECT_LISTING("out.parquet ");
    size_t len;
    uint8_t *p = read_file(target("out.parquet"), &len);
    ck_assert_bytes(p, len, "old", 3);
    free(p);
    w = open_file(target("out.parquet"), NULL);
    ck_assert_int_eq(write_rows(w), INLAY_OK);
    inlay_writer_free(w);
    EXPECT_LISTING("out.parquet ");
    p = read_file(target("out.parquet"), &len);
    ck_assert_uint_gt(len, 12);
    ck_assert_mem_eq(p, "PAR1", 4);
    ck_assert_mem_eq(p + len - 4, "PAR1", 4);
    free(p);
}
END_TEST

START_TEST(test_missing_folder)
{
    inlay_schema *s = make_schema(NULL);
    inlay_writer *w = NULL;
    char path[400];
    snprintf(path, sizeof path, "%s/no/such/folder/out.parquet", dir);
    ck_assert_int_eq(inlay_writer_open_file(&w, path, s, NULL), INLAY_ERR_IO);
    ck_assert_ptr_nonnull(w);
    ck_assert_msg(strstr(inlay_writer_errmsg(w), "no/such/folder") != NULL, "message: %s", inlay_writer_errmsg(w));
    inlay_writer_free(w);
    inlay_schema_free(s);
    EXPECT_LISTING("");
}
END_TEST

START_TEST(test_rename_fails)
{
    /* the target is a folder: close fails, and the temporary file goes */
    ck_assert_int_eq(mkdir(target("out.parquet"), 0700), 0);
    ck_assert_int_eq(mkdir(target("out.parquet/inside"), 0700), 0);
    inlay_writer *w = open_file(target("out.parquet"), NULL);
    ck_assert_int_eq(write_rows(w), INLAY_ERR_IO);
    EXPECT_LISTING("out.parquet ");
    inlay_writer_free(w);
    EXPECT_LISTING("out.parquet ");
    rmdir(target("out.parquet/inside"));
}
END_TEST

START_TEST(test_file_alloc_faults)
{
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    inlay_writer *w = open_file(target("out.parquet"), &a);
    ck_assert_int_eq(write_rows(w), INLAY_OK);
    inlay_writer_free(w);
    ck_assert_no_leak(&ta);
    ck_assert_int_eq(unlink(target("out.parquet")), 0);
    const unsigned long total = ta.requests;
    unsigned long bad = 0, first_bad = 0;
    char what[2400] = "";
    for (unsigned long n = 1; n <= total; n++) {
        ta = (test_alloc){ .fail_at = n };
        inlay_schema *s = make_schema(NULL);
        inlay_options o = options(&a);
        w = NULL;
        int st = inlay_writer_open_file(&w, target("out.parquet"), s, &o);
        inlay_schema_free(s);
        if (st == INLAY_OK) st = write_rows(w);
        inlay_writer_free(w);
        char got[2048];
        listing(got, sizeof got);
        bool ok = st == INLAY_ERR_NOMEM && got[0] == 0 && ta.live_bytes == 0 && ta.live_blocks == 0 &&
                  ta.bad_sizes == 0;
        if (!ok && !bad++) {
            first_bad = n;
            snprintf(what, sizeof what, "status %d, folder \"%s\", %zu bytes in %zu blocks live, "
                     "%lu frees with a wrong size", st, got, ta.live_bytes, ta.live_blocks, ta.bad_sizes);
        }
        if (got[0]) remove_dir(), make_dir();
    }
    ck_assert_msg(bad == 0, "failing %lu of %lu allocations went wrong; the first, allocation %lu: %s",
                  bad, total, first_bad, what);
}
END_TEST

static Suite *sink_suite(void)
{
    Suite *s = suite_create("sink");
    TCase *c;

    c = tcase_create("failing sink");
    tcase_set_timeout(c, 60);
    tcase_add_test(c, test_write_fails_at_n);
    tcase_add_test(c, test_finish_fails);
    tcase_add_test(c, test_free_without_close_aborts);
    tcase_add_test(c, test_buffer_sink);
    suite_add_tcase(s, c);

    c = tcase_create("file sink");
    tcase_set_timeout(c, 60);
    tcase_add_unchecked_fixture(c, make_base, remove_base);
    tcase_add_checked_fixture(c, make_dir, remove_dir);
    tcase_add_test(c, test_free_without_close);
    tcase_add_test(c, test_abort_removes);
    tcase_add_test(c, test_close_leaves_target);
    tcase_add_test(c, test_existing_target);
    tcase_add_test(c, test_missing_folder);
    tcase_add_test(c, test_rename_fails);
    tcase_add_test(c, test_file_alloc_faults);
    suite_add_tcase(s, c);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(sink_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
