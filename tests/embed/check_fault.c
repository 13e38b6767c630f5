/*
 * check_fault.c — running out of memory at every point of a script's life.
 *
 * A runtime (inlay_lua.h) is made on an allocator that refuses its Nth
 * request for memory, and runs a small job: a CSV source (with a given
 * schema, then an inferred one), a map stage, a writer, the pipeline
 * written out, everything closed. For N = 1, 2, ... until the job runs
 * without meeting request N, in two modes (only request N refused, as
 * Lua's ltests.c failnext does, and every request from N on, as in a real
 * shortage), each run must end cleanly: the runtime created or refused
 * with INLAY_ERR_NOMEM, the job finished or failed with a message about
 * memory, and once the runtime is freed no block of the allocator still
 * live, no file descriptor left open, and no output file or temporary file
 * published by a job that failed. Under the sanitizer build LeakSanitizer
 * checks that nothing else leaked either.
 *
 * Only requests that grow a block are refused: Lua does not expect a block
 * to fail to shrink.
 *
 * INLAY_FAULT_STRIDE = K (the ThreadSanitizer build sets it) tries every
 * Kth N only, from N = 1 to the end: under TSan each run (a runtime, a
 * writer with its worker) is slow, and the other builds try every N.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <inlay_lua.h>

/* ---- an allocator that fails on request ------------------------------------------- */

typedef union block {
    size_t size;
    max_align_t align;
} block;

typedef struct fault_alloc {
    unsigned long requests;   /* requests that grow a block, so far */
    unsigned long fail_at;    /* refuse this one (1-based); 0 = never */
    bool from_then_on;        /* and every later one */
    unsigned long refused;
    size_t live_blocks, live_bytes;
    unsigned long bad_sizes;  /* a free or realloc that gave a wrong osize */
} fault_alloc;

static void *fault_fn(void *ud, void *ptr, size_t osize, size_t nsize)
{
    fault_alloc *f = ud;
    block *h = ptr ? (block *)ptr - 1 : NULL;
    if (h && h->size != osize) f->bad_sizes++;
    if (nsize == 0) {
        if (h) {
            f->live_blocks--;
            f->live_bytes -= h->size;
            free(h);
        }
        return NULL;
    }
    if (!h || nsize > osize) {
        f->requests++;
        if (f->fail_at && (f->requests == f->fail_at || (f->from_then_on && f->requests > f->fail_at))) {
            f->refused++;
            return NULL;
        }
    }
    const size_t old = h ? h->size : 0;
    block *n = realloc(h, sizeof *n + nsize);
    if (!n) return NULL;
    if (!h) f->live_blocks++;
    f->live_bytes = f->live_bytes - old + nsize;
    n->size = nsize;
    return n + 1;
}

/* ---- the job ------------------------------------------------------------------------ */

static char dir[256], in_path[300], out_path[300], script[2048];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/inlay_fault_%ld", (long)getpid());
    ck_assert_msg(snprintf(in_path, sizeof in_path, "%s/in.csv", dir) > 0, "path");
    snprintf(out_path, sizeof out_path, "%s/out.parquet", dir);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    ck_assert_int_eq(system(cmd), 0);
    FILE *f = fopen(in_path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("id,name,v\n1,ana,0.5\n2,,1.5\n3,chen,2.5\n", f);
    fclose(f);
    snprintf(script, sizeof script,
             "local s = inlay.schema { { 'id', 'int64' }, { 'name', 'string', optional = true }, { 'v', 'double' } }\n"
             "local src = inlay.csv('%s', { schema = s, batch_rows = 2, threads = 1 })\n"
             "src:map(function(r) r.v = r.v * 2 return r end, { reads = { 'v' }, writes = { 'v' } })\n"
             "local w = inlay.open('%s', s)\n"
             "local summary = src:write(w, { progress = false })\n"
             "local info = w:close()\n"
             "src:close()\n"
             "assert(summary.rows_out == 3 and info.rows == 3, 'rows')\n"
             "local inferred = inlay.csv('%s', { threads = 1 })\n"
             "local n = 0\n"
             "for b in inferred:batches() do n = n + b.n end\n"
             "inferred:close()\n"
             "assert(n == 3, 'inferred rows')\n",
             in_path, out_path, in_path);
}

static void teardown(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    ck_assert_ptr_nonnull(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* The names in the work folder other than the input, comma-separated. */
static void outputs(char *buf, size_t cap)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    buf[0] = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "in.csv") == 0) continue;
        size_t len = strlen(buf);
        snprintf(buf + len, cap - len, "%s%s", len ? "," : "", e->d_name);
    }
    closedir(d);
}

typedef struct outcome {
    int create;                /* inlay_lua_create's status */
    int run;                   /* inlay_lua_load_string's, when created */
    char msg[512];
} outcome;

static outcome run_job(fault_alloc *fa)
{
    outcome o = { 0, 0, "" };
    inlay_lua_options opt;
    inlay_lua_options_init(&opt);
    opt.alloc.fn = fault_fn;
    opt.alloc.ud = fa;
    inlay_lua *rt = NULL;
    o.create = inlay_lua_create(&rt, &opt);
    if (o.create != INLAY_OK) {
        ck_assert_ptr_null(rt);
        return o;
    }
    o.run = inlay_lua_load_string(rt, script, strlen(script), "=job");
    snprintf(o.msg, sizeof o.msg, "%s", inlay_lua_errmsg(rt));
    inlay_lua_free(rt);
    return o;
}

static unsigned long stride(void)
{
    const char *e = getenv("INLAY_FAULT_STRIDE");
    const long k = e ? strtol(e, NULL, 10) : 1;
    return k > 1 ? (unsigned long)k : 1;
}

/* Every N (every stride()th) until the job no longer meets request N. */
static void every_failure(bool from_then_on)
{
    const int fds = count_fds();
    const unsigned long step = stride();
    unsigned long runs = 0, created = 0, failed = 0;
    for (unsigned long n = 1;; n += step) {
        fault_alloc fa = { .fail_at = n, .from_then_on = from_then_on };
        outcome o = run_job(&fa);
        runs++;
        ck_assert_msg(fa.live_blocks == 0 && fa.live_bytes == 0 && fa.bad_sizes == 0,
                      "N=%lu: %zu blocks (%zu bytes) still live, %lu wrong sizes; status %d/%d: %s", n,
                      fa.live_blocks, fa.live_bytes, fa.bad_sizes, o.create, o.run, o.msg);
        ck_assert_msg(count_fds() == fds, "N=%lu: %d file descriptors open, %d before; status %d/%d: %s", n,
                      count_fds(), fds, o.create, o.run, o.msg);
        char out[512];
        outputs(out, sizeof out);
        if (o.create != INLAY_OK) {
            ck_assert_msg(o.create == INLAY_ERR_NOMEM, "N=%lu: inlay_lua_create gave %d", n, o.create);
            ck_assert_msg(fa.refused > 0, "N=%lu: inlay_lua_create failed with nothing refused", n);
            ck_assert_msg(out[0] == 0, "N=%lu: %s left behind", n, out);
            continue;
        }
        created++;
        if (o.run == INLAY_OK) {
            ck_assert_msg(strcmp(out, "out.parquet") == 0, "N=%lu: the job succeeded, the folder holds '%s'", n, out);
            ck_assert_int_eq(unlink(out_path), 0);
            if (fa.refused == 0) break;   /* the job made fewer than N requests: all points seen */
            continue;
        }
        failed++;
        ck_assert_msg(fa.refused > 0, "N=%lu: the job failed with nothing refused: %s", n, o.msg);
        ck_assert_msg(strstr(o.msg, "memory") != NULL, "N=%lu: the job failed with '%s'", n, o.msg);
        /* a job that failed before closing its writer publishes nothing; one
         * that failed later (in the inferred source) has closed it */
        if (out[0]) {
            ck_assert_msg(strcmp(out, "out.parquet") == 0, "N=%lu: '%s' left behind by '%s'", n, out, o.msg);
            ck_assert_int_eq(unlink(out_path), 0);
        }
        ck_assert_msg(n < 1000000, "no end in sight");
    }
    ck_assert_uint_gt(created, 0);
    ck_assert_uint_gt(failed, 0);
    fprintf(stderr, "%s: %lu runs (N in steps of %lu), %lu created, %lu failed cleanly\n",
            from_then_on ? "every request from N on" : "request N only", runs, step, created, failed);
}

START_TEST(test_fail_once)
{
    every_failure(false);
}
END_TEST

START_TEST(test_fail_from_then_on)
{
    every_failure(true);
}
END_TEST

/* Without refusals the job runs, and the counters see it all come back. */
START_TEST(test_job_runs)
{
    fault_alloc fa = { 0 };
    const int fds = count_fds();
    outcome o = run_job(&fa);
    ck_assert_int_eq(o.create, INLAY_OK);
    ck_assert_msg(o.run == INLAY_OK, "%s", o.msg);
    ck_assert_uint_gt(fa.requests, 100);
    ck_assert_uint_eq(fa.live_blocks, 0);
    ck_assert_int_eq(count_fds(), fds);
    char out[512];
    outputs(out, sizeof out);
    ck_assert_str_eq(out, "out.parquet");
}
END_TEST

static Suite *fault_suite(void)
{
    Suite *s = suite_create("fault");
    TCase *c = tcase_create("out of memory");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_set_timeout(c, 900);
    tcase_add_test(c, test_job_runs);
    tcase_add_test(c, test_fail_once);
    tcase_add_test(c, test_fail_from_then_on);
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(fault_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
