/*
 * check_workers.c — the writer's worker threads (runtime/write/workers.c):
 * the same bytes at every thread count, whatever the batches and row-group
 * boundaries; allocation and sink failures at every N with two threads
 * (a clean error naming the column and row group, nothing published,
 * nothing leaked, no hang); the library's own sinks, which a worker writes
 * to: the same bytes, and a failing device reported by a later call; a
 * writer freed while its workers are busy; a warm writer that allocates
 * nothing however its threads are scheduled; the options; serialize_alloc;
 * the signals the workers leave to the host's threads.
 */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"

enum { ROWS = 9000 };

/* id INT64, ts TIMESTAMP, name STRING (optional, many distinct values: the
 * dictionary passes its limit mid-chunk), cat STRING (a few values), val
 * DOUBLE, flag BOOLEAN, tags LIST<INT32>, key FIXED(16) with a bloom
 * filter, code INT32 with gzip and the default encoding's first-page
 * check. */
static inlay_schema *table_schema(void)
{
    inlay_schema *s = inlay_schema_create(NULL);
    inlay_column_options co;
    ck_assert_int_gt(inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "ts", INLAY_REQUIRED, inlay_type_timestamp(INLAY_MICROS, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "name", INLAY_OPTIONAL, inlay_type_string(), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "cat", INLAY_REQUIRED, inlay_type_string(), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "val", INLAY_OPTIONAL, inlay_type_double(), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "flag", INLAY_REQUIRED, inlay_type_boolean(), NULL), 0);
    int l = inlay_schema_add_list(s, 0, "tags", INLAY_OPTIONAL);
    ck_assert_int_gt(l, 0);
    ck_assert_int_gt(inlay_schema_add(s, l, "element", INLAY_OPTIONAL, inlay_type_int(32, true), NULL), 0);
    inlay_column_options_init(&co);
    co.bloom_filter = true;
    ck_assert_int_gt(inlay_schema_add(s, 0, "key", INLAY_REQUIRED, inlay_type_fixed(16), &co), 0);
    inlay_column_options_init(&co);
    co.compression = INLAY_GZIP;
    ck_assert_int_gt(inlay_schema_add(s, 0, "code", INLAY_REQUIRED, inlay_type_int(32, true), &co), 0);
    return s;
}

enum { NCOLS = 9 };

/* Rows [from, from + n) of the table, in buffers of the caller's. */
typedef struct rows {
    int64_t id[ROWS], ts[ROWS];
    inlay_bytes name[ROWS], cat[ROWS], key[ROWS];
    int16_t name_def[ROWS], val_def[ROWS], tag_def[3 * ROWS], tag_rep[3 * ROWS];
    double val[ROWS];
    bool flag[ROWS];
    int32_t tag[3 * ROWS], code[ROWS];
    char text[ROWS][40];
    uint8_t keys[ROWS][16];
    size_t nname, nval, ntag_entries, ntags;
} rows;

static const char *const CATS[] = { "alpha", "beta", "gamma", "delta", "epsilon" };

static void make_rows(rows *r, size_t from, size_t n)
{
    r->nname = r->nval = r->ntag_entries = r->ntags = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t g = from + i, h = g * 0x9E3779B97F4A7C15u;
        r->id[i] = (int64_t)g;
        r->ts[i] = 1700000000000000 + (int64_t)g * 1000 + (int64_t)(h >> 54);
        r->name_def[i] = (int16_t)(g % 7 != 0);
        if (r->name_def[i]) {
            int len = snprintf(r->text[r->nname], sizeof r->text[0], "user-%llu-%llu", (unsigned long long)(g % 3000),
                               (unsigned long long)(h >> 40));
            r->name[r->nname] = (inlay_bytes){ (const uint8_t *)r->text[r->nname], (size_t)len };
            r->nname++;
        }
        r->cat[i] = (inlay_bytes){ (const uint8_t *)CATS[h >> 61 & 3], strlen(CATS[h >> 61 & 3]) };
        r->val_def[i] = (int16_t)(g % 5 != 0);
        if (r->val_def[i]) r->val[r->nval++] = (double)(h >> 11) / 9007199254740992.0 * 1000.0;
        r->flag[i] = (h >> 33) & 1;
        const int ntag = (int)(g % 4);   /* 0: an empty list; g % 11 == 0: a null list */
        if (g % 11 == 0) {
            r->tag_def[r->ntag_entries] = 0;
            r->tag_rep[r->ntag_entries++] = 0;
        } else if (ntag == 0) {
            r->tag_def[r->ntag_entries] = 1;
            r->tag_rep[r->ntag_entries++] = 0;
        } else {
            for (int k = 0; k < ntag; k++) {
                r->tag_def[r->ntag_entries] = (int16_t)(k == 1 && g % 3 == 0 ? 2 : 3);
                r->tag_rep[r->ntag_entries] = (int16_t)(k ? 1 : 0);
                if (r->tag_def[r->ntag_entries] == 3) r->tag[r->ntags++] = (int32_t)(g * 31 + (uint64_t)k);
                r->ntag_entries++;
            }
        }
        for (int k = 0; k < 16; k++) r->keys[i][k] = (uint8_t)(h >> (k % 8 * 8)) ^ (uint8_t)(g % 97);
        r->key[i] = (inlay_bytes){ r->keys[i], 16 };
        r->code[i] = (int32_t)(g % 250);
    }
}

static void batches_of(const rows *r, size_t n, inlay_column_batch *b)
{
    const inlay_levels none = { 0 };
    b[0] = (inlay_column_batch){ 0, r->id, n, none };
    b[1] = (inlay_column_batch){ 1, r->ts, n, none };
    b[2] = (inlay_column_batch){ 2, r->name, n, { r->name_def, NULL, NULL } };
    b[3] = (inlay_column_batch){ 3, r->cat, n, none };
    b[4] = (inlay_column_batch){ 4, r->val, n, { r->val_def, NULL, NULL } };
    b[5] = (inlay_column_batch){ 5, r->flag, n, none };
    b[6] = (inlay_column_batch){ 6, r->tag, r->ntag_entries, { r->tag_def, r->tag_rep, NULL } };
    b[7] = (inlay_column_batch){ 7, r->key, n, none };
    b[8] = (inlay_column_batch){ 8, r->code, n, none };
}

/* How a file is written: its options and the shape of the calls. */
typedef struct plan {
    int threads, in_flight, page_version;
    size_t batch;              /* rows per append_columns */
    bool column_at_a_time;     /* each column's ROWS rows whole, one column after the other */
    size_t flush_every;        /* flush_row_group after this many rows (0: never) */
    size_t row_group_bytes;    /* 0: the default */
} plan;

static inlay_options plan_options(const plan *p)
{
    inlay_options o;
    inlay_options_init(&o);
    o.threads = p->threads;
    o.row_groups_in_flight = p->in_flight;
    o.page_version = p->page_version;
    o.page_rows = 700;
    o.row_group_rows = 4000;
    o.dictionary_bytes = 16 << 10;
    if (p->row_group_bytes) o.row_group_bytes = p->row_group_bytes;
    return o;
}

static rows g_rows;

/* The file, or the first failing status (st) and the writer's message.
 * fd >= 0: written to that descriptor (the library's fd sink) rather than
 * to sink. */
static int write_plan_to(const plan *p, const inlay_options *o, inlay_sink sink, int fd, char *msg, size_t cap)
{
    inlay_schema *s = table_schema();
    inlay_writer *w = NULL;
    int st = fd >= 0 ? inlay_writer_open_fd(&w, fd, s, o) : inlay_writer_open(&w, sink, s, o);
    inlay_schema_free(s);
    inlay_column_batch b[NCOLS];
    if (st == INLAY_OK && p->column_at_a_time) {
        make_rows(&g_rows, 0, ROWS);
        batches_of(&g_rows, ROWS, b);
        for (int c = 0; c < NCOLS && st == INLAY_OK; c++) st = inlay_writer_append_columns(w, &b[c], 1);
    } else {
        size_t since_flush = 0;
        for (size_t at = 0; at < ROWS && st == INLAY_OK; at += p->batch) {
            const size_t n = ROWS - at < p->batch ? ROWS - at : p->batch;
            make_rows(&g_rows, at, n);
            batches_of(&g_rows, n, b);
            st = inlay_writer_append_columns(w, b, NCOLS);
            since_flush += n;
            if (st == INLAY_OK && p->flush_every && since_flush >= p->flush_every) {
                st = inlay_writer_flush_row_group(w);
                since_flush = 0;
            }
        }
    }
    if (st == INLAY_OK) st = inlay_writer_close(w);
    if (msg) snprintf(msg, cap, "%s", w ? inlay_writer_errmsg(w) : inlay_strerror(st));
    inlay_writer_free(w);
    return st;
}

static int write_plan(const plan *p, const inlay_options *o, inlay_sink sink, char *msg, size_t cap)
{
    return write_plan_to(p, o, sink, -1, msg, cap);
}

static void write_to(const plan *p, test_sink *out)
{
    memset(out, 0, sizeof *out);
    const inlay_options o = plan_options(p);
    char msg[512];
    const int st = write_plan(p, &o, test_sink_interface(out), msg, sizeof msg);
    ck_assert_msg(st == INLAY_OK, "threads %d: %s", p->threads, msg);
}

/* ---- the same bytes -------------------------------------------------------------------------- */

static const plan SHAPES[] = {
    { .batch = 997 },
    { .batch = 4096, .page_version = 2 },
    { .batch = 333, .flush_every = 2500 },
    { .column_at_a_time = true },
    { .batch = 1500, .row_group_bytes = 60000 },   /* row groups ended by their bytes */
};

START_TEST(test_same_bytes_at_every_thread_count)
{
    plan p = SHAPES[_i];
    if (!p.page_version) p.page_version = 1;
    p.threads = 1;
    test_sink ref;
    write_to(&p, &ref);
    ck_assert_uint_gt(ref.len, 1000);
    static const int counts[] = { 2, 3, 4, 8 };
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++)
        for (int in_flight = 1; in_flight <= 2; in_flight++) {
            p.threads = counts[k];
            p.in_flight = in_flight;
            test_sink out;
            write_to(&p, &out);
            ck_assert_msg(out.len == ref.len && memcmp(out.data, ref.data, ref.len) == 0,
                          "shape %d, %d threads, %d in flight: %zu bytes, not the %zu of one thread", _i, p.threads,
                          in_flight, out.len, ref.len);
            test_sink_free(&out);
        }
    /* through the descriptor sink, which a worker writes to */
    p.threads = 2;
    p.in_flight = 1;
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    inlay_options o = plan_options(&p);
    o.sync = false;
    char msg[512];
    const int st = write_plan_to(&p, &o, (inlay_sink){ 0 }, fileno(f), msg, sizeof msg);
    ck_assert_msg(st == INLAY_OK, "%s", msg);
    uint8_t *got = malloc(ref.len + 1);
    ck_assert_int_eq(fseek(f, 0, SEEK_SET), 0);
    const size_t n = fread(got, 1, ref.len + 1, f);
    ck_assert_msg(n == ref.len && memcmp(got, ref.data, ref.len) == 0,
                  "shape %d through a descriptor: %zu bytes, not the same %zu", _i, n, ref.len);
    free(got);
    fclose(f);
    test_sink_free(&ref);
}
END_TEST

/* ---- failures --------------------------------------------------------------------------------- */

static char g_dir[256];

static void make_dir(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/inlay_check_workers_%d", (int)getpid());
    mkdir(g_dir, 0700);
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* 0 when the folder is empty. */
static int entries_in(const char *dir)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", dir);
    return system(cmd) == 0 ? 0 : 1;
}

static int write_file(const plan *p, const inlay_allocator *a, const char *path, char *msg, size_t cap)
{
    inlay_schema *s = table_schema();
    inlay_options o = plan_options(p);
    if (a) o.alloc = *a;
    o.sync = false;
    inlay_writer *w = NULL;
    int st = inlay_writer_open_file(&w, path, s, &o);
    inlay_schema_free(s);
    inlay_column_batch b[NCOLS];
    for (size_t at = 0; at < 3000 && st == INLAY_OK; at += p->batch) {
        make_rows(&g_rows, at, p->batch);
        batches_of(&g_rows, p->batch, b);
        st = inlay_writer_append_columns(w, b, NCOLS);
    }
    if (st == INLAY_OK) st = inlay_writer_close(w);
    if (msg) snprintf(msg, cap, "%s", w ? inlay_writer_errmsg(w) : inlay_strerror(st));
    inlay_writer_free(w);
    return st;
}

/* Allocation N refused (once, or from N on) with two threads, for every
 * N the writer makes: each run succeeds only if nothing was refused, and
 * otherwise fails with NOMEM, publishes no file, leaves no temporary and
 * gives back every block. */
static void alloc_faults(bool from_then_on)
{
    make_dir();
    char path[300];
    snprintf(path, sizeof path, "%s/out.parquet", g_dir);
    const plan p = { .threads = 2, .batch = 500, .page_version = 1 };
    test_alloc count = { 0 };
    inlay_allocator a = test_allocator(&count);
    ck_assert_int_eq(write_file(&p, &a, path, NULL, 0), INLAY_OK);
    ck_assert_no_leak(&count);
    unlink(path);
    const unsigned long total = count.requests;
    ck_assert_uint_gt(total, 100);
    unsigned long failed = 0;
    for (unsigned long n = 1; n <= total + 10; n++) {
        test_alloc ta = { .fail_at = n, .fail_after = from_then_on };
        a = test_allocator(&ta);
        char msg[512];
        const int st = write_file(&p, &a, path, msg, sizeof msg);
        if (ta.refused) {
            ck_assert_msg(st == INLAY_ERR_NOMEM, "request %lu refused: status %d (%s)", n, st, msg);
            ck_assert_msg(!exists(path), "request %lu refused, yet the file was published", n);
            failed++;
        } else {
            ck_assert_msg(st == INLAY_OK, "nothing refused (request %lu), yet status %d: %s", n, st, msg);
            unlink(path);
        }
        ck_assert_msg(entries_in(g_dir) == 0, "request %lu: something left in the folder", n);
        ck_assert_msg(ta.live_bytes == 0 && ta.live_blocks == 0 && ta.bad_sizes == 0,
                      "request %lu: %zu bytes in %zu blocks live, %lu wrong sizes (%s)", n, ta.live_bytes,
                      ta.live_blocks, ta.bad_sizes, msg);
    }
    ck_assert_uint_gt(failed, total / 2);
    rmdir(g_dir);
}

START_TEST(test_alloc_fails_once) { alloc_faults(false); }
END_TEST

START_TEST(test_alloc_fails_from_n) { alloc_faults(true); }
END_TEST

/* Write N of the sink fails, for every N: IO from some call, the sink
 * aborted and never finished, no write after the failure, no leak. */
START_TEST(test_sink_fails_at_every_write)
{
    plan p = { .threads = 2, .batch = 1000, .page_version = 1 };
    test_sink ref;
    write_to(&p, &ref);
    const unsigned long writes = ref.writes;
    test_sink_free(&ref);
    ck_assert_uint_gt(writes, 10);
    for (unsigned long n = 1; n <= writes; n++) {
        test_sink out = { .fail_write = n };
        test_alloc ta = { 0 };
        inlay_options o = plan_options(&p);
        o.alloc = test_allocator(&ta);
        char msg[512];
        const int st = write_plan(&p, &o, test_sink_interface(&out), msg, sizeof msg);
        ck_assert_msg(st == INLAY_ERR_IO, "write %lu failed: status %d (%s)", n, st, msg);
        ck_assert_msg(out.finishes == 0 && out.aborts == 1, "write %lu: %lu finishes, %lu aborts", n, out.finishes,
                      out.aborts);
        ck_assert_uint_eq(out.writes_after_failure, 0);
        ck_assert_no_leak(&ta);
        test_sink_free(&out);
    }
}
END_TEST

/* A file that may not grow past 64 KiB (RLIMIT_FSIZE; the test runs in a
 * process of its own): the library's file sink, written to from a worker
 * when there are workers, fails part way with EFBIG. The next call (or
 * close) reports the system's reason, every later call says the writer
 * failed earlier, nothing is published or left behind, nothing leaks. */
START_TEST(test_file_too_large)
{
    make_dir();
    char path[300];
    snprintf(path, sizeof path, "%s/big.parquet", g_dir);
    signal(SIGXFSZ, SIG_IGN);
    const struct rlimit lim = { 64 << 10, 64 << 10 };
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
    for (int threads = 1; threads <= 3; threads++) {
        plan p = { .threads = threads, .batch = 500, .page_version = 1 };
        test_alloc ta = { 0 };
        inlay_options o = plan_options(&p);
        o.alloc = test_allocator(&ta);
        o.sync = false;
        inlay_schema *s = table_schema();
        inlay_writer *w = NULL;
        int st = inlay_writer_open_file(&w, path, s, &o);
        inlay_schema_free(s);
        ck_assert_int_eq(st, INLAY_OK);
        inlay_column_batch b[NCOLS];
        for (size_t at = 0; at < ROWS && st == INLAY_OK; at += p.batch) {
            make_rows(&g_rows, at, p.batch);
            batches_of(&g_rows, p.batch, b);
            st = inlay_writer_append_columns(w, b, NCOLS);
        }
        if (st == INLAY_OK) st = inlay_writer_close(w);
        ck_assert_msg(st == INLAY_ERR_IO, "%d threads: status %d (%s)", threads, st, inlay_writer_errmsg(w));
        ck_assert_msg(strstr(inlay_writer_errmsg(w), "File too large"), "%d threads: %s", threads,
                      inlay_writer_errmsg(w));
        ck_assert_int_eq(inlay_writer_close(w), INLAY_ERR_IO);
        ck_assert_msg(strstr(inlay_writer_errmsg(w), "failed earlier") && strstr(inlay_writer_errmsg(w), "File too large"),
                      "%d threads, a later call: %s", threads, inlay_writer_errmsg(w));
        inlay_writer_free(w);
        ck_assert_msg(!exists(path), "%d threads: the file was published", threads);
        ck_assert_msg(entries_in(g_dir) == 0, "%d threads: something left in the folder", threads);
        ck_assert_no_leak(&ta);
    }
    rmdir(g_dir);
}
END_TEST

/* An allocator that refuses the worker threads' requests from the Nth on
 * (the calling thread's all succeed). */
typedef struct worker_faults {
    pthread_t caller;
    atomic_ulong worker_requests;
    unsigned long fail_from;
    test_alloc inner;
} worker_faults;

static void *worker_faults_fn(void *ud, void *p, size_t o, size_t n)
{
    worker_faults *f = ud;
    if (n > 0 && !pthread_equal(pthread_self(), f->caller) &&
        atomic_fetch_add(&f->worker_requests, 1) + 1 >= f->fail_from)
        return NULL;
    return test_alloc_fn(&f->inner, p, o, n);
}

START_TEST(test_worker_failure_names_column_and_row_group)
{
    plan p = { .threads = 2, .batch = 500, .page_version = 1 };
    for (unsigned long from = 1; from < 40; from += 3) {
        worker_faults f = { .caller = pthread_self(), .fail_from = from };
        inlay_options o = plan_options(&p);
        o.alloc = (inlay_allocator){ worker_faults_fn, &f };
        test_sink out = { 0 };
        char msg[512];
        const int st = write_plan(&p, &o, test_sink_interface(&out), msg, sizeof msg);
        if (atomic_load(&f.worker_requests) < from) {   /* the workers never got that far */
            ck_assert_int_eq(st, INLAY_OK);
        } else {
            ck_assert_msg(st == INLAY_ERR_NOMEM, "status %d: %s", st, msg);
            ck_assert_msg(strstr(msg, "column '") && strstr(msg, "row group ") && strstr(msg, "out of memory"),
                          "the message names no column and row group: %s", msg);
            ck_assert_uint_eq(out.finishes, 0);
        }
        ck_assert_no_leak(&f.inner);
        test_sink_free(&out);
    }
}
END_TEST

/* ---- abort --------------------------------------------------------------------------------------- */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Pages that take their workers a while (zstd's slowest level): freed
 * with many queued, the writer returns once the running ones are done,
 * publishes nothing and keeps nothing. */
/* threads: with four workers or more, pages of one column run side by
 * side and some wait for their turn while others are skipped. */
static void free_while_busy(int threads)
{
    make_dir();
    char path[300];
    snprintf(path, sizeof path, "%s/busy.parquet", g_dir);
    inlay_schema *s = inlay_schema_create(NULL);
    inlay_column_options co;
    inlay_column_options_init(&co);
    co.encoding = INLAY_ENCODING_PLAIN;
    for (int c = 0; c < 4; c++) {
        char name[8];
        snprintf(name, sizeof name, "v%d", c);
        ck_assert_int_gt(inlay_schema_add(s, 0, name, INLAY_REQUIRED, inlay_type_int(64, true), &co), 0);
    }
    test_alloc ta = { 0 };
    inlay_options o;
    inlay_options_init(&o);
    o.alloc = test_allocator(&ta);
    o.threads = threads;
    o.compression = INLAY_ZSTD;
    o.compression_level = 19;
    o.min_compression_gain = 0;
    o.page_rows = 1 << 16;
    o.page_bytes = 1 << 20;
    inlay_writer *w = NULL;
    ck_assert_int_eq(inlay_writer_open_file(&w, path, s, &o), INLAY_OK);
    inlay_schema_free(s);
    enum { N = 1 << 16 };
    static int64_t v[N];
    uint64_t x = 88172645463325252u;
    for (int round = 0; round < 6; round++) {
        for (int i = 0; i < N; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            v[i] = (int64_t)(x & 0xffffff);
        }
        for (int c = 0; c < 4; c++) ck_assert_int_eq(inlay_writer_append_i64(w, c, v, N, NULL), INLAY_OK);
    }
    const double t0 = now();
    inlay_writer_free(w);
    const double took = now() - t0;
    /* at most one page per worker still running: a fraction of the ~24 queued */
    ck_assert_msg(took < 10.0, "%d threads: free took %.2f s", threads, took);
    ck_assert(!exists(path));
    ck_assert_int_eq(entries_in(g_dir), 0);
    ck_assert_no_leak(&ta);
    rmdir(g_dir);
}

START_TEST(test_free_while_busy)
{
    free_while_busy(3);
    free_while_busy(6);
}
END_TEST

/* ---- options ----------------------------------------------------------------------------------- */

START_TEST(test_thread_options)
{
    inlay_schema *s = table_schema();
    inlay_options o;
    inlay_options_init(&o);
    ck_assert_int_eq(o.threads, 0);
    ck_assert_int_eq(o.row_groups_in_flight, 0);
    ck_assert(!o.serialize_alloc);
    test_sink out = { 0 };
    inlay_writer *w = NULL;
    static const int bad_threads[] = { -1, 65 };
    for (int k = 0; k < 2; k++) {
        o.threads = bad_threads[k];
        ck_assert_int_eq(inlay_writer_open(&w, test_sink_interface(&out), s, &o), INLAY_ERR_ARGUMENT);
        ck_assert_ptr_nonnull(strstr(inlay_writer_errmsg(w), "threads must be in 0..64"));
        inlay_writer_free(w);
    }
    o.threads = 2;
    o.row_groups_in_flight = -1;
    ck_assert_int_eq(inlay_writer_open(&w, test_sink_interface(&out), s, &o), INLAY_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(inlay_writer_errmsg(w), "row_groups_in_flight"));
    inlay_writer_free(w);
    ck_assert_uint_eq(out.writes, 0);   /* bad options touch no sink */
    inlay_schema_free(s);
}
END_TEST

/* Whether /proc says task tid blocks signal sig (its SigBlk mask); -1 when
 * it cannot be read. */
static int task_blocks(long tid, int sig)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/self/task/%ld/status", tid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    int blocks = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "SigBlk:", 7) == 0) blocks = (int)(strtoull(line + 7, NULL, 16) >> (sig - 1) & 1);
    fclose(f);
    return blocks;
}

/* The workers take none of the host's signals (a command's SIGTERM handler
 * runs on its own thread, whose mask it controls). The caller's mask is as
 * it was. (That they keep the signals a fault raises is not checked: a
 * sanitizer's runtime blocks those in the threads it starts.) */
START_TEST(test_workers_block_signals)
{
    sigset_t before, after;
    pthread_sigmask(SIG_SETMASK, NULL, &before);
    inlay_schema *s = table_schema();
    const plan p = { .threads = 3, .batch = 1000, .page_version = 1 };
    inlay_options o = plan_options(&p);
    test_sink out = { 0 };
    inlay_writer *w = NULL;
    ck_assert_int_eq(inlay_writer_open(&w, test_sink_interface(&out), s, &o), INLAY_OK);
    /* A new thread starts with every signal blocked and sets its mask
     * first thing: look once the workers have had pages to finish. */
    inlay_column_batch b[NCOLS];
    make_rows(&g_rows, 0, ROWS);
    batches_of(&g_rows, ROWS, b);
    ck_assert_int_eq(inlay_writer_append_columns(w, b, NCOLS), INLAY_OK);
    const long self = (long)getpid();   /* Check runs each test on its process's main thread */
    DIR *d = opendir("/proc/self/task");
    ck_assert_ptr_nonnull(d);
    int others = 0;
    for (struct dirent *e; (e = readdir(d));) {
        const long tid = strtol(e->d_name, NULL, 10);
        if (tid <= 0 || tid == self) continue;
        others++;
        ck_assert_msg(task_blocks(tid, SIGTERM) == 1, "thread %ld takes SIGTERM", tid);
        ck_assert_msg(task_blocks(tid, SIGINT) == 1, "thread %ld takes SIGINT", tid);
        ck_assert_msg(task_blocks(tid, SIGHUP) == 1, "thread %ld takes SIGHUP", tid);
    }
    closedir(d);
    ck_assert_int_ge(others, 2);
    ck_assert_int_eq(task_blocks(self, SIGTERM), sigismember(&before, SIGTERM));
    pthread_sigmask(SIG_SETMASK, NULL, &after);
    ck_assert_int_eq(sigismember(&after, SIGTERM), sigismember(&before, SIGTERM));
    ck_assert_int_eq(sigismember(&after, SIGHUP), sigismember(&before, SIGHUP));
    inlay_writer_free(w);
    test_sink_free(&out);
    inlay_schema_free(s);
}
END_TEST

/* An allocator that notes when two threads are inside it at once. */
typedef struct single_entry {
    atomic_int inside;
    atomic_int overlaps;
    atomic_ulong calls;
} single_entry;

static void *single_entry_fn(void *ud, void *p, size_t o, size_t n)
{
    single_entry *e = ud;
    if (atomic_fetch_add(&e->inside, 1) != 0) atomic_fetch_add(&e->overlaps, 1);
    atomic_fetch_add(&e->calls, 1);
    for (volatile int spin = 0; spin < 200; spin++) {}   /* widen the window */
    void *r = n ? realloc(p, n) : (free(p), NULL);
    (void)o;
    atomic_fetch_sub(&e->inside, 1);
    return r;
}

START_TEST(test_serialize_alloc)
{
    plan p = { .threads = 4, .batch = 997, .page_version = 1 };
    for (int round = 0; round < 3; round++) {
        single_entry e = { 0 };
        inlay_options o = plan_options(&p);
        o.alloc = (inlay_allocator){ single_entry_fn, &e };
        o.serialize_alloc = true;
        test_sink out = { 0 };
        char msg[512];
        ck_assert_int_eq(write_plan(&p, &o, test_sink_interface(&out), msg, sizeof msg), INLAY_OK);
        ck_assert_uint_gt(atomic_load(&e.calls), 100);
        ck_assert_int_eq(atomic_load(&e.overlaps), 0);
        test_sink_free(&out);
    }
}
END_TEST

/* ---- a warm writer allocates nothing, whatever the timing -------------------------------- */

/* A game-like host (as examples/game_loop.cpp): frames of 100 to 299
 * events, a row group every 120 frames, so its pages take five sizes in
 * turn; its allocator counts. Which page_work meets which page depends on
 * the timing, and two spinning threads on the same cores shuffle it: once
 * every size has been met (the first half of the frames), no call of the
 * host's may see an allocation, in any of the runs. */
typedef struct steady_counter {
    _Atomic uint64_t calls;
} steady_counter;

static void *steady_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    steady_counter *c = ud;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    if (nsize > osize) atomic_fetch_add(&c->calls, 1);
    return realloc(ptr, nsize);
}

static _Atomic bool spin_stop;

static void *spin(void *arg)
{
    (void)arg;
    volatile uint64_t x = 0;
    while (!atomic_load_explicit(&spin_stop, memory_order_relaxed)) x++;
    return NULL;
}

enum { GAME_EVENTS = 300, GAME_FRAMES = 1200, GAME_FLUSH = 120, GAME_RUNS = 60 };

static uint64_t game_run(void)
{
    static const char *const kinds[] = { "move", "shoot", "hit", "pickup" };
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "ts", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "kind", INLAY_REQUIRED, inlay_type_string(), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "value", INLAY_OPTIONAL, inlay_type_double(), NULL), 0);
    steady_counter count = { 0 };
    inlay_options o;
    inlay_options_init(&o);
    o.alloc = (inlay_allocator){ steady_alloc, &count };
    o.threads = 2;
    test_sink out = { 0 };
    inlay_writer *w = NULL;
    ck_assert_int_eq(inlay_writer_open(&w, test_sink_interface(&out), s, &o), INLAY_OK);
    inlay_schema_free(s);
    static int64_t ts[GAME_EVENTS];
    static inlay_bytes kind[GAME_EVENTS];
    static double value[GAME_EVENTS];
    static int16_t def[GAME_EVENTS];
    uint64_t steady = 0;
    for (int64_t f = 0; f < GAME_FRAMES; f++) {
        uint64_t r = (uint64_t)f * 2654435761u + 7;
        const size_t n = 100 + (size_t)(f % 200);
        size_t nv = 0;
        for (size_t i = 0; i < n; i++) {
            r = r * 6364136223846793005u + 1442695040888963407u;
            const char *k = kinds[(r >> 33) % 4];
            ts[i] = 1717200000000000 + f * 16667 + (int64_t)i;
            kind[i] = (inlay_bytes){ (const uint8_t *)k, strlen(k) };
            def[i] = k[0] == 'h';
            if (def[i]) value[nv++] = (double)((r >> 40) % 1000) / 10.0;
        }
        const inlay_column_batch b[3] = {
            { 0, ts, n, { 0 } }, { 1, kind, n, { 0 } }, { 2, value, n, { def, NULL, NULL } },
        };
        const uint64_t before = atomic_load(&count.calls);
        ck_assert_int_eq(inlay_writer_append_columns(w, b, 3), INLAY_OK);
        if ((f + 1) % GAME_FLUSH == 0) ck_assert_int_eq(inlay_writer_flush_row_group(w), INLAY_OK);
        if (f >= GAME_FRAMES / 2) steady += atomic_load(&count.calls) - before;
    }
    ck_assert_int_eq(inlay_writer_close(w), INLAY_OK);
    inlay_writer_free(w);
    test_sink_free(&out);
    return steady;
}

START_TEST(test_warm_writer_allocates_nothing_under_contention)
{
    atomic_store(&spin_stop, false);
    pthread_t spinners[2];
    for (int i = 0; i < 2; i++) ck_assert_int_eq(pthread_create(&spinners[i], NULL, spin, NULL), 0);
    uint64_t worst = 0;
    int failed = 0;
    for (int run = 0; run < GAME_RUNS; run++) {
        const uint64_t n = game_run();
        failed += n != 0;
        if (n > worst) worst = n;
    }
    atomic_store(&spin_stop, true);
    for (int i = 0; i < 2; i++) pthread_join(spinners[i], NULL);
    ck_assert_msg(failed == 0, "%d of %d runs allocated after warm-up (at most %llu times)", failed, GAME_RUNS,
                  (unsigned long long)worst);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("workers");
    TCase *c = tcase_create("the same bytes");
    tcase_set_timeout(c, 120);
    tcase_add_loop_test(c, test_same_bytes_at_every_thread_count, 0, (int)(sizeof SHAPES / sizeof *SHAPES));
    suite_add_tcase(s, c);
    c = tcase_create("failures");
    tcase_set_timeout(c, 240);
    tcase_add_test(c, test_alloc_fails_once);
    tcase_add_test(c, test_alloc_fails_from_n);
    tcase_add_test(c, test_sink_fails_at_every_write);
    tcase_add_test(c, test_file_too_large);
    tcase_add_test(c, test_worker_failure_names_column_and_row_group);
    suite_add_tcase(s, c);
    c = tcase_create("abort");
    tcase_set_timeout(c, 60);
    tcase_add_test(c, test_free_while_busy);
    suite_add_tcase(s, c);
    c = tcase_create("steady");
    tcase_set_timeout(c, 120);
    tcase_add_test(c, test_warm_writer_allocates_nothing_under_contention);
    suite_add_tcase(s, c);
    c = tcase_create("options");
    tcase_add_test(c, test_thread_options);
    tcase_add_test(c, test_serialize_alloc);
    tcase_add_test(c, test_workers_block_signals);
    suite_add_tcase(s, c);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
