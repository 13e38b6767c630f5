/*
 * check_sink.c — sinks (runtime/write/sink.c) and the writer's side of their
 * contract: a sink whose write fails at the Nth call (for every N) gives
 * INLAY_ERR_IO, sticky, with no leak, no more writes and exactly one abort;
 * a failing finish is reported and followed by nothing; the reason a sink
 * leaves in errno reaches the message. The file sink writes a locked
 * temporary file beside the target: freeing or aborting the writer leaves
 * the folder as it was, a successful close leaves exactly the target
 * (synced before the rename, its folder after), a failing allocation
 * leaves no file either, a target that is not a regular file is refused at
 * open, and an open removes the temporaries killed writers left but never
 * a live writer's. The descriptor sink writes the same bytes as the others
 * to a file or a pipe, and a stream that fails or is aborted has no footer.
 *
 * Failures of the system are real ones: a file size limit (RLIMIT_FSIZE,
 * EFBIG) in a child process, /dev/full (ENOSPC), a pipe whose reader left
 * (EPIPE); fsync is counted, and failed on request, by a definition of our
 * own that the library's calls bind to.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE   /* syscall() */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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
    o.threads = 1;   /* row groups reach the sink during the appends; one allocation sequence */
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
        ck_assert_msg(strstr(inlay_writer_errmsg(w), "writing to the sink failed") != NULL, "message: %s",
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

/* A sink that fails its Nth write (or its finish) with errno set, as a
 * sink over a system call leaves it. */
typedef struct errno_sink {
    unsigned long writes, fail_write;
    int write_errno, finish_errno;
} errno_sink;

static int errno_sink_write(void *ctx, const void *p, size_t n)
{
    errno_sink *s = ctx;
    (void)p, (void)n;
    if (++s->writes != s->fail_write) return 0;
    errno = s->write_errno;
    return -1;
}

static int errno_sink_finish(void *ctx)
{
    errno_sink *s = ctx;
    if (!s->finish_errno) return 0;
    errno = s->finish_errno;
    return -1;
}

static void errno_sink_abort(void *ctx) { (void)ctx; }

static int write_to_errno_sink(errno_sink *es, char *msg, size_t cap)
{
    inlay_sink k = { errno_sink_write, errno_sink_finish, errno_sink_abort, es };
    inlay_schema *s = make_schema(NULL);
    inlay_options o = options(NULL);
    inlay_writer *w = NULL;
    int st = inlay_writer_open(&w, k, s, &o);
    inlay_schema_free(s);
    if (st == INLAY_OK) {
        errno = EACCES;   /* stale: must not be taken for the sink's reason */
        st = write_rows(w);
    }
    snprintf(msg, cap, "%s", w ? inlay_writer_errmsg(w) : "");
    inlay_writer_free(w);
    return st;
}

START_TEST(test_sink_errno_reaches_message)
{
    char msg[600];
    /* the header's write, a row group's, the footer's */
    for (unsigned long n = 1; n <= 3; n++) {
        errno_sink es = { .fail_write = n, .write_errno = ENOSPC };
        ck_assert_int_eq(write_to_errno_sink(&es, msg, sizeof msg), INLAY_ERR_IO);
        ck_assert_msg(strstr(msg, "writing to the sink failed: ") && strstr(msg, strerror(ENOSPC)),
                      "write %lu: %s", n, msg);
    }
    errno_sink fin = { .finish_errno = EDQUOT };
    ck_assert_int_eq(write_to_errno_sink(&fin, msg, sizeof msg), INLAY_ERR_IO);
    ck_assert_msg(strstr(msg, "finishing the sink failed: ") && strstr(msg, strerror(EDQUOT)), "%s", msg);
    /* a sink that fails for a reason of its own: no system reason at all */
    errno_sink quiet = { .fail_write = 2, .write_errno = 0 };
    ck_assert_int_eq(write_to_errno_sink(&quiet, msg, sizeof msg), INLAY_ERR_IO);
    ck_assert_msg(strstr(msg, "writing to the sink failed") && !strstr(msg, "failed: "), "%s", msg);
    /* the memory sink out of memory says so */
    test_alloc ta = { .fail_at = 1 };
    inlay_allocator a = test_allocator(&ta);
    inlay_buffer b;
    inlay_buffer_init(&b, &a);
    inlay_schema *s = make_schema(NULL);
    inlay_writer *w = NULL;
    inlay_options o = options(NULL);
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&b), s, &o), INLAY_ERR_IO);
    ck_assert_msg(strstr(inlay_writer_errmsg(w), strerror(ENOMEM)) != NULL, "%s", inlay_writer_errmsg(w));
    inlay_writer_free(w);
    inlay_schema_free(s);
    inlay_buffer_free(&b);
}
END_TEST

/* ---- the file sink ---------------------------------------------------------------------------- */

#include "tmp_folders.h"

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
    /* hidden: a reader listing the folder skips it */
    ck_assert_msg(strncmp(got, ".out.parquet.", 13) == 0 && strstr(got, ".tmp "), "temporary file: \"%s\"", got);
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
    /* the target becomes a folder while the file is written: close fails
     * with the system's reason, and the temporary file goes */
    inlay_writer *w = open_file(target("out.parquet"), NULL);
    ck_assert_int_eq(mkdir(target("out.parquet"), 0700), 0);
    ck_assert_int_eq(mkdir(target("out.parquet/inside"), 0700), 0);
    ck_assert_int_eq(write_rows(w), INLAY_ERR_IO);
    const char *m = inlay_writer_errmsg(w);
    ck_assert_msg(strstr(m, "renaming") && strstr(m, target("out.parquet")) && strstr(m, strerror(EISDIR)), "%s", m);
    EXPECT_LISTING("out.parquet ");
    ck_assert_ptr_null(inlay_writer_temp_path(w));
    inlay_writer_free(w);
    EXPECT_LISTING("out.parquet ");
    rmdir(target("out.parquet/inside"));
}
END_TEST

/* Opening `path` is refused with INLAY_ERR_IO and a message holding `want`;
 * nothing is created. */
static void expect_refused(const char *path, const char *want)
{
    char before[2048];
    listing(before, sizeof before);
    inlay_schema *s = make_schema(NULL);
    inlay_writer *w = NULL;
    ck_assert_int_eq(inlay_writer_open_file(&w, path, s, NULL), INLAY_ERR_IO);
    inlay_schema_free(s);
    ck_assert_ptr_nonnull(w);
    ck_assert_msg(strstr(inlay_writer_errmsg(w), want) != NULL, "message \"%s\" lacks \"%s\"",
                  inlay_writer_errmsg(w), want);
    ck_assert_ptr_null(inlay_writer_temp_path(w));
    inlay_writer_free(w);
    EXPECT_LISTING(before);
}

START_TEST(test_target_not_regular)
{
    char want[600];
    ck_assert_int_eq(mkdir(target("out.parquet"), 0700), 0);
    snprintf(want, sizeof want, "'%s' is a directory", target("out.parquet"));
    expect_refused(target("out.parquet"), want);
    expect_refused("/dev/null", "'/dev/null' is not a regular file (a character device)");
    ck_assert_int_eq(mkfifo(target("fifo"), 0600), 0);   /* refused without opening it: no hang */
    snprintf(want, sizeof want, "'%s' is not a regular file (a FIFO)", target("fifo"));
    expect_refused(target("fifo"), want);
    /* a symlink is followed: one to a device is refused, by its own name */
    ck_assert_int_eq(symlink("/dev/null", target("null-link")), 0);
    snprintf(want, sizeof want, "'%s' is not a regular file (a character device)", target("null-link"));
    expect_refused(target("null-link"), want);
    char dir_path[600];
    snprintf(dir_path, sizeof dir_path, "%s", target("out.parquet"));
    ck_assert_int_eq(symlink(dir_path, target("dir-link")), 0);
    snprintf(want, sizeof want, "'%s' is a directory", target("dir-link"));
    expect_refused(target("dir-link"), want);
}
END_TEST

START_TEST(test_symlink_target)
{
    /* a symlink to a regular file: the rename replaces the link itself, and
     * the file it pointed to keeps its contents */
    write_text(target("old.parquet"), "old");
    ck_assert_int_eq(symlink("old.parquet", target("out.parquet")), 0);
    inlay_writer *w = open_file(target("out.parquet"), NULL);
    ck_assert_int_eq(write_rows(w), INLAY_OK);
    inlay_writer_free(w);
    struct stat st;
    ck_assert_int_eq(lstat(target("out.parquet"), &st), 0);
    ck_assert(S_ISREG(st.st_mode));
    size_t len;
    uint8_t *p = read_file(target("old.parquet"), &len);
    ck_assert_bytes(p, len, "old", 3);
    free(p);
    /* a dangling one is replaced the same way */
    ck_assert_int_eq(symlink("nowhere", target("dangling.parquet")), 0);
    w = open_file(target("dangling.parquet"), NULL);
    ck_assert_int_eq(write_rows(w), INLAY_OK);
    inlay_writer_free(w);
    ck_assert_int_eq(lstat(target("dangling.parquet"), &st), 0);
    ck_assert(S_ISREG(st.st_mode));
    EXPECT_LISTING("dangling.parquet old.parquet out.parquet ");
}
END_TEST

START_TEST(test_bad_options_touch_nothing)
{
    /* a failed open changes nothing on disk: no temporary, and a stale one
     * stays for an open that succeeds */
    write_text(target(".out.parquet.0a0b0c.tmp"), "stale");
    inlay_schema *s = make_schema(NULL);
    inlay_options o = options(NULL);
    o.page_rows = 0;
    inlay_writer *w = NULL;
    ck_assert_int_eq(inlay_writer_open_file(&w, target("out.parquet"), s, &o), INLAY_ERR_ARGUMENT);
    inlay_writer_free(w);
    ck_assert_int_eq(inlay_writer_open_file(&w, target("out.parquet"), NULL, NULL), INLAY_ERR_ARGUMENT);
    inlay_writer_free(w);
    inlay_schema_free(s);
    EXPECT_LISTING(".out.parquet.0a0b0c.tmp ");
}
END_TEST

START_TEST(test_temp_path)
{
    inlay_writer *w = open_file(target("out.parquet"), NULL);
    const char *t = inlay_writer_temp_path(w);
    ck_assert_ptr_nonnull(t);
    char got[2048], want[600];
    listing(got, sizeof got);
    snprintf(want, sizeof want, "%s ", strrchr(t, '/') + 1);
    ck_assert_str_eq(got, want);
    ck_assert_int_eq(strncmp(t, target(".out.parquet."), strlen(target(".out.parquet."))), 0);
    ck_assert_uint_eq(strlen(t), strlen(target(".out.parquet.123456.tmp")));
    ck_assert_int_eq(write_rows(w), INLAY_OK);
    ck_assert_ptr_null(inlay_writer_temp_path(w));   /* closed */
    inlay_writer_free(w);
    w = open_file(target("b.parquet"), NULL);
    ck_assert_ptr_nonnull(inlay_writer_temp_path(w));
    inlay_writer_abort(w);
    ck_assert_ptr_null(inlay_writer_temp_path(w));
    inlay_writer_free(w);
    EXPECT_LISTING("out.parquet ");
    /* other sinks have none */
    inlay_buffer b;
    inlay_buffer_init(&b, NULL);
    inlay_schema *s = make_schema(NULL);
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&b), s, NULL), INLAY_OK);
    ck_assert_ptr_null(inlay_writer_temp_path(w));
    inlay_writer_free(w);
    int fd = open(target("fd.parquet"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(inlay_writer_open_fd(&w, fd, s, NULL), INLAY_OK);
    ck_assert_ptr_null(inlay_writer_temp_path(w));
    inlay_writer_free(w);
    close(fd);
    inlay_schema_free(s);
    inlay_buffer_free(&b);
    ck_assert_ptr_null(inlay_writer_temp_path(NULL));
}
END_TEST

/* ---- fsync, counted ------------------------------------------------------------------------------ */

/* The library's fsync calls bind to this definition (the executable's own
 * comes before the C library's): it counts them, notes whether `watch`
 * existed at each, fails on request, and otherwise syncs. */
static struct {
    const char *watch;
    int files, dirs;                     /* calls on regular files, on folders */
    int files_with_watch, dirs_with_watch;
    int fail_file, fail_dir;             /* errno to fail with; 0 = none */
} fsyncs;

int fsync(int fd)
{
    struct stat st;
    const bool seen = fsyncs.watch && access(fsyncs.watch, F_OK) == 0;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        fsyncs.dirs++;
        fsyncs.dirs_with_watch += seen;
        if (fsyncs.fail_dir) return errno = fsyncs.fail_dir, -1;
    } else {
        fsyncs.files++;
        fsyncs.files_with_watch += seen;
        if (fsyncs.fail_file) return errno = fsyncs.fail_file, -1;
    }
    return (int)syscall(SYS_fsync, fd);
}

static int write_file_with_sync(const char *path, bool sync, char *msg, size_t cap)
{
    memset(&fsyncs, 0, sizeof fsyncs);
    fsyncs.watch = path;
    inlay_schema *s = make_schema(NULL);
    inlay_options o = options(NULL);
    o.sync = sync;
    inlay_writer *w = NULL;
    int st = inlay_writer_open_file(&w, path, s, &o);
    inlay_schema_free(s);
    ck_assert_int_eq(st, INLAY_OK);
    st = write_rows(w);
    snprintf(msg, cap, "%s", inlay_writer_errmsg(w));
    inlay_writer_free(w);
    return st;
}

START_TEST(test_close_syncs)
{
    char msg[600];
    inlay_options o;
    inlay_options_init(&o);
    ck_assert(o.sync);   /* durable by default */
    /* the file before the rename (the target not there yet), the folder after */
    ck_assert_int_eq(write_file_with_sync(target("out.parquet"), true, msg, sizeof msg), INLAY_OK);
    ck_assert_int_eq(fsyncs.files, 1);
    ck_assert_int_eq(fsyncs.files_with_watch, 0);
    ck_assert_int_eq(fsyncs.dirs, 1);
    ck_assert_int_eq(fsyncs.dirs_with_watch, 1);
    EXPECT_LISTING("out.parquet ");
    /* sync = false: none at all, and the file is published the same */
    ck_assert_int_eq(write_file_with_sync(target("nosync.parquet"), false, msg, sizeof msg), INLAY_OK);
    ck_assert_int_eq(fsyncs.files + fsyncs.dirs, 0);
    EXPECT_LISTING("nosync.parquet out.parquet ");
    size_t la, lb;
    uint8_t *a = read_file(target("out.parquet"), &la), *b = read_file(target("nosync.parquet"), &lb);
    ck_assert(la == lb && memcmp(a, b, la) == 0);
    free(a);
    free(b);
}
END_TEST

START_TEST(test_sync_fails)
{
    char msg[600];
    /* the file's sync fails: nothing is published, the temporary goes */
    memset(&fsyncs, 0, sizeof fsyncs);
    fsyncs.fail_file = EIO;
    inlay_schema *s = make_schema(NULL);
    inlay_writer *w = NULL;
    ck_assert_int_eq(inlay_writer_open_file(&w, target("out.parquet"), s, NULL), INLAY_OK);
    ck_assert_int_eq(append_rows(w, 0, BATCH), INLAY_OK);
    ck_assert_int_eq(inlay_writer_close(w), INLAY_ERR_IO);
    snprintf(msg, sizeof msg, "syncing '%s' to disk: %s", target("out.parquet"), strerror(EIO));
    ck_assert_str_eq(inlay_writer_errmsg(w), msg);
    ck_assert_int_eq(inlay_writer_close(w), INLAY_ERR_STATE);
    inlay_writer_free(w);
    EXPECT_LISTING("");
    /* the folder's sync fails: the file is in place, and close says it may
     * not survive a crash */
    memset(&fsyncs, 0, sizeof fsyncs);
    fsyncs.fail_dir = EIO;
    ck_assert_int_eq(inlay_writer_open_file(&w, target("out.parquet"), s, NULL), INLAY_OK);
    ck_assert_int_eq(append_rows(w, 0, BATCH), INLAY_OK);
    ck_assert_int_eq(inlay_writer_close(w), INLAY_ERR_IO);
    const char *m = inlay_writer_errmsg(w);
    ck_assert_msg(strstr(m, "is in place") && strstr(m, "may not survive a crash") && strstr(m, strerror(EIO)), "%s", m);
    inlay_writer_free(w);
    EXPECT_LISTING("out.parquet ");
    /* a folder that cannot be synced at all (EINVAL) is no failure */
    memset(&fsyncs, 0, sizeof fsyncs);
    fsyncs.fail_dir = EINVAL;
    ck_assert_int_eq(inlay_writer_open_file(&w, target("b.parquet"), s, NULL), INLAY_OK);
    ck_assert_int_eq(append_rows(w, 0, BATCH), INLAY_OK);
    ck_assert_int_eq(inlay_writer_close(w), INLAY_OK);
    inlay_writer_free(w);
    inlay_schema_free(s);
    EXPECT_LISTING("b.parquet out.parquet ");
}
END_TEST

/* ---- the system's reason, for real ------------------------------------------------------------ */

/* What a child process reports back. */
typedef struct child_result {
    int status;
    char msg[600];
} child_result;

/* Runs fn in a child process whose file size limit is `limit` bytes, with
 * SIGXFSZ ignored, so that a write past the limit fails with EFBIG ("File
 * too large") instead of ending the process; returns what fn reported. The
 * child never returns into the test. */
static child_result with_file_size_limit(rlim_t limit, void (*fn)(child_result *, void *), void *arg)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(p[0]);
        child_result r = { .status = 999, .msg = "setrlimit failed" };
        struct rlimit rl = { limit, limit };
        signal(SIGXFSZ, SIG_IGN);
        if (setrlimit(RLIMIT_FSIZE, &rl) == 0) fn(&r, arg);
        ssize_t n = write(p[1], &r, sizeof r);
        _exit(n == (ssize_t)sizeof r ? 0 : 1);
    }
    close(p[1]);
    child_result r = { .status = 12345, .msg = "no report" };
    size_t got = 0;
    for (ssize_t n; got < sizeof r && (n = read(p[0], (char *)&r + got, sizeof r - got)) > 0;) got += (size_t)n;
    close(p[0]);
    int ws;
    ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
    ck_assert_msg(WIFEXITED(ws) && WEXITSTATUS(ws) == 0 && got == sizeof r, "the child failed: %s", r.msg);
    return r;
}

/* The bytes write_rows produces, from a memory sink. */
static uint8_t *reference_bytes(size_t *len)
{
    inlay_buffer b;
    inlay_buffer_init(&b, NULL);
    inlay_schema *s = make_schema(NULL);
    inlay_options o = options(NULL);
    inlay_writer *w;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&b), s, &o), INLAY_OK);
    inlay_schema_free(s);
    ck_assert_int_eq(write_rows(w), INLAY_OK);
    inlay_writer_free(w);
    *len = b.len;
    return b.data;   /* malloc'd: the default allocator */
}

static void write_file_in_child(child_result *r, void *path)
{
    inlay_schema *s = make_schema(NULL);
    inlay_options o = options(NULL);
    inlay_writer *w = NULL;
    r->status = inlay_writer_open_file(&w, path, s, &o);
    if (r->status == INLAY_OK) r->status = write_rows(w);
    snprintf(r->msg, sizeof r->msg, "%s", w ? inlay_writer_errmsg(w) : "no writer");
    inlay_writer_free(w);
    inlay_schema_free(s);
}

START_TEST(test_file_too_large)
{
    size_t len;
    uint8_t *ref = reference_bytes(&len);
    free(ref);
    ck_assert_uint_gt(len, 200);
    child_result r = with_file_size_limit(len / 2, write_file_in_child, target("out.parquet"));
    ck_assert_int_eq(r.status, INLAY_ERR_IO);
    char want[600];
    snprintf(want, sizeof want, "writing '%s': %s", target("out.parquet"), strerror(EFBIG));
    ck_assert_msg(strstr(r.msg, want) != NULL, "message \"%s\" lacks \"%s\"", r.msg, want);
    EXPECT_LISTING("");   /* the temporary went with the failure */
}
END_TEST

/* ---- stale temporaries -------------------------------------------------------------------------- */

/* A child that opens a writer on `path`, appends, reports its temporary's
 * name through `report`, then either dies by SIGKILL (go < 0) or waits for
 * a byte on `go` and closes, exiting 0 when that succeeded. */
static pid_t spawn_writer(const char *path, int report, int go)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid != 0) return pid;
    inlay_schema *s = make_schema(NULL);
    inlay_options o = options(NULL);
    inlay_writer *w = NULL;
    if (inlay_writer_open_file(&w, path, s, &o) != INLAY_OK || append_rows(w, 0, BATCH) != INLAY_OK) _exit(2);
    const char *t = inlay_writer_temp_path(w);
    if (write(report, t, strlen(t) + 1) < 0) _exit(3);
    if (go < 0) raise(SIGKILL);
    char c;
    if (read(go, &c, 1) != 1) _exit(4);
    for (int r = BATCH; r < ROWS; r += BATCH)
        if (append_rows(w, r, BATCH) != INLAY_OK) _exit(5);
    _exit(inlay_writer_close(w) == INLAY_OK ? 0 : 6);
}

static void read_name(int fd, char *out, size_t cap)
{
    size_t n = 0;
    while (n + 1 < cap && read(fd, out + n, 1) == 1 && out[n]) n++;
    out[n] = 0;
    ck_assert_uint_gt(n, 0);
}

START_TEST(test_stale_temp_removed)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    pid_t pid = spawn_writer(target("out.parquet"), p[1], -1);
    close(p[1]);
    char stale[600];
    read_name(p[0], stale, sizeof stale);
    close(p[0]);
    int ws;
    ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
    ck_assert_msg(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL, "the writer was not killed (%d)", ws);
    ck_assert_int_eq(access(stale, F_OK), 0);
    ck_assert_msg(strncmp(strrchr(stale, '/'), "/.out.parquet.", 14) == 0, "not hidden: %s", stale);
    /* what an earlier version, which did not hide its temporaries, left */
    write_text(target("out.parquet.0a1b2c.tmp"), "stale");
    /* names that are not a temporary of ours for this target, or not a file */
    static const char *const others[] = {
        "other.parquet.123abc.tmp", "out.parquet-123abc.tmp", "out.parquet.12345.tmp", "out.parquet.1234567.tmp",
        "out.parquet.123abc.tmp.x", "out.parquet.ABCDEF.tmp", ".out.parquet.zzzzzz.tmp", ".other.parquet.123abc.tmp",
        "..out.parquet.123abc.tmp",
    };
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) write_text(target(others[i]), "keep");
    ck_assert_int_eq(mkfifo(target(".out.parquet.abcdef.tmp"), 0600), 0);
    ck_assert_int_eq(mkdir(target(".out.parquet.bcdef0.tmp"), 0700), 0);
    inlay_writer *w = open_file(target("out.parquet"), NULL);
    ck_assert_msg(access(stale, F_OK) != 0 && errno == ENOENT, "the stale temporary %s is still there", stale);
    ck_assert_int_eq(write_rows(w), INLAY_OK);
    inlay_writer_free(w);
    EXPECT_LISTING("..out.parquet.123abc.tmp .other.parquet.123abc.tmp .out.parquet.abcdef.tmp "
                   ".out.parquet.bcdef0.tmp .out.parquet.zzzzzz.tmp other.parquet.123abc.tmp out.parquet "
                   "out.parquet-123abc.tmp out.parquet.12345.tmp out.parquet.1234567.tmp out.parquet.123abc.tmp.x "
                   "out.parquet.ABCDEF.tmp ");
}
END_TEST

/* A target name as long as a folder takes (255 bytes) is written: its
 * temporary's name keeps only the first bytes that fit, cut before a UTF-8
 * sequence, and a killed writer's leftover of that form is removed by the
 * next open of the same target. */
static char *long_target(const char *name)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

START_TEST(test_long_target_name)
{
    static const size_t lens[] = { 243, 244, 250, 255 };
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        char name[256];
        memset(name, 'n', lens[i]);
        memcpy(name + lens[i] - 8, ".parquet", 8);
        name[lens[i]] = 0;
        inlay_writer *w = open_file(long_target(name), NULL);
        const char *t = strrchr(inlay_writer_temp_path(w), '/') + 1;
        ck_assert_msg(strlen(t) <= 255, "temporary of %zu bytes", strlen(t));
        ck_assert_uint_eq(strlen(t), (lens[i] + 12 <= 255 ? lens[i] : 243) + 12);
        ck_assert_int_eq(t[0], '.');
        ck_assert_int_eq(strncmp(t + 1, name, strlen(t) - 12), 0);
        ck_assert_int_eq(write_rows(w), INLAY_OK);
        inlay_writer_free(w);
        ck_assert_int_eq(access(long_target(name), F_OK), 0);
        ck_assert_int_eq(unlink(long_target(name)), 0);
    }
    /* two-byte UTF-8 letters from byte 242 on: the cut comes before the one at 242 */
    char name[256];
    memset(name, 'n', 242);
    for (size_t k = 242; k + 1 < 247; k += 2) memcpy(name + k, "\xc3\xa9", 2);
    memcpy(name + 246, ".parquet", 9);
    inlay_writer *w = open_file(long_target(name), NULL);
    const char *t = strrchr(inlay_writer_temp_path(w), '/') + 1;
    ck_assert_uint_eq(strlen(t), 242 + 12);
    ck_assert_int_eq(strncmp(t + 1, name, 242), 0);
    ck_assert_int_eq(t[243], '.');
    inlay_writer_abort(w);
    inlay_writer_free(w);
    EXPECT_LISTING("");
    /* bytes that are not UTF-8 (continuation bytes only, from 200 on): cut where it fits */
    memset(name, 'n', 200);
    memset(name + 200, 0x80, 46);
    memcpy(name + 246, ".parquet", 9);
    w = open_file(long_target(name), NULL);
    t = strrchr(inlay_writer_temp_path(w), '/') + 1;
    ck_assert_uint_eq(strlen(t), 243 + 12);
    inlay_writer_abort(w);
    inlay_writer_free(w);
    /* a name no folder takes (256 bytes) is refused at open, nothing created */
    char over[257];
    memset(over, 'n', 256);
    memcpy(over + 248, ".parquet", 9);
    inlay_schema *sc = make_schema(NULL);
    inlay_options o = options(NULL);
    w = NULL;
    ck_assert_int_eq(inlay_writer_open_file(&w, long_target(over), sc, &o), INLAY_ERR_IO);
    ck_assert_msg(w && strstr(inlay_writer_errmsg(w), "too long"), "%s", w ? inlay_writer_errmsg(w) : "no writer");
    inlay_writer_free(w);
    inlay_schema_free(sc);
    EXPECT_LISTING("");
    /* a leftover of the 255-byte target's form, and one of another long target */
    char longest[256], stale[256], other[256];
    memset(longest, 'n', 255);
    memcpy(longest + 247, ".parquet", 9);
    snprintf(stale, sizeof stale, ".%.243s.0a1b2c.tmp", longest);
    write_text(long_target(stale), "stale");
    snprintf(other, sizeof other, ".%.242sx.0a1b2c.tmp", longest);
    write_text(long_target(other), "keep");
    w = open_file(long_target(longest), NULL);
    ck_assert_msg(access(long_target(stale), F_OK) != 0 && errno == ENOENT, "the stale temporary is still there");
    ck_assert_int_eq(access(long_target(other), F_OK), 0);
    ck_assert_int_eq(write_rows(w), INLAY_OK);
    inlay_writer_free(w);
    ck_assert_int_eq(access(long_target(longest), F_OK), 0);
}
END_TEST

START_TEST(test_live_temp_kept)
{
    /* another writer of the same target in this process */
    inlay_writer *a = open_file(target("out.parquet"), NULL);
    char ta[600];
    snprintf(ta, sizeof ta, "%s", inlay_writer_temp_path(a));
    inlay_writer *b = open_file(target("out.parquet"), NULL);
    ck_assert_int_eq(access(ta, F_OK), 0);
    ck_assert_int_eq(write_rows(a), INLAY_OK);
    ck_assert_int_eq(write_rows(b), INLAY_OK);
    inlay_writer_free(a);
    inlay_writer_free(b);
    EXPECT_LISTING("out.parquet ");
    /* and in another process */
    int report[2], go[2];
    ck_assert_int_eq(pipe(report), 0);
    ck_assert_int_eq(pipe(go), 0);
    pid_t pid = spawn_writer(target("c.parquet"), report[1], go[0]);
    close(report[1]);
    close(go[0]);
    char tc[600];
    read_name(report[0], tc, sizeof tc);
    close(report[0]);
    inlay_writer *d = open_file(target("c.parquet"), NULL);
    ck_assert_msg(access(tc, F_OK) == 0, "the live writer's temporary %s was removed", tc);
    ck_assert_int_eq(write(go[1], "x", 1), 1);
    close(go[1]);
    int ws;
    ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
    ck_assert_msg(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "the other writer's close failed (%d)", ws);
    ck_assert_int_eq(access(target("c.parquet"), F_OK), 0);
    ck_assert_int_eq(write_rows(d), INLAY_OK);
    inlay_writer_free(d);
    EXPECT_LISTING("c.parquet out.parquet ");
}
END_TEST

/* ---- the descriptor sink ------------------------------------------------------------------------ */

static inlay_writer *open_fd_writer(int fd)
{
    inlay_schema *s = make_schema(NULL);
    inlay_options o = options(NULL);
    inlay_writer *w = NULL;
    int st = inlay_writer_open_fd(&w, fd, s, &o);
    ck_assert_msg(st == INLAY_OK, "%d %s", st, w ? inlay_writer_errmsg(w) : "");
    inlay_schema_free(s);
    return w;
}

START_TEST(test_fd_same_bytes)
{
    size_t rlen, len;
    uint8_t *ref = reference_bytes(&rlen);
    int fd = open(target("fd.parquet"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    inlay_writer *w = open_fd_writer(fd);
    ck_assert_int_eq(write_rows(w), INLAY_OK);
    ck_assert_uint_eq(inlay_writer_bytes(w), rlen);
    inlay_writer_free(w);
    ck_assert_int_ne(fcntl(fd, F_GETFD), -1);   /* the caller's, still open */
    close(fd);
    uint8_t *p = read_file(target("fd.parquet"), &len);
    ck_assert(len == rlen && memcmp(p, ref, len) == 0);
    free(p);
    free(ref);
    EXPECT_LISTING("fd.parquet ");   /* no temporary, no rename */
}
END_TEST

/* A child that copies what comes down the pipe into `path`, up to `max`
 * bytes (0: all), then exits. */
static pid_t spawn_reader(int rd, int wr, const char *path, size_t max)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid != 0) return pid;
    close(wr);
    int out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    char chunk[1000];
    size_t total = 0;
    for (ssize_t n; (!max || total < max) && (n = read(rd, chunk, max && max - total < sizeof chunk ? max - total : sizeof chunk)) > 0;) {
        if (write(out, chunk, (size_t)n) != n) _exit(1);
        total += (size_t)n;
        usleep(200);   /* slower than the writer: it has to wait */
    }
    _exit(close(out) == 0 ? 0 : 1);
}

/* Rows of random text, enough to fill a pipe's buffer many times over. */
static int write_big(inlay_writer *w)
{
    enum { BIG_ROWS = 6000 };
    static char text[BATCH][48];
    uint64_t seed = 42;
    for (int r = 0; r < BIG_ROWS; r += BATCH) {
        int64_t id[BATCH];
        inlay_bytes name[BATCH];
        for (int i = 0; i < BATCH; i++) {
            id[i] = r + i;
            for (int k = 0; k < 48; k++) text[i][k] = (char)(33 + rng_next(&seed) % 90);
            name[i].data = text[i];
            name[i].len = 48;
        }
        int st = inlay_writer_append_i64(w, 0, id, BATCH, NULL);
        if (!st) st = inlay_writer_append_bytes(w, 1, name, BATCH, NULL);
        if (st) return st;
    }
    return inlay_writer_close(w);
}

START_TEST(test_fd_pipe)
{
    size_t rlen, len;
    inlay_buffer b;
    inlay_buffer_init(&b, NULL);
    inlay_schema *s = make_schema(NULL);
    inlay_options o = options(NULL);
    inlay_writer *w;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&b), s, &o), INLAY_OK);
    inlay_schema_free(s);
    ck_assert_int_eq(write_big(w), INLAY_OK);
    inlay_writer_free(w);
    uint8_t *ref = b.data;
    rlen = b.len;
    ck_assert_uint_gt(rlen, 4 * 65536);
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    ck_assert_int_eq(fcntl(p[1], F_SETFL, O_NONBLOCK), 0);   /* waited on, not failed */
    pid_t pid = spawn_reader(p[0], p[1], target("piped.parquet"), 0);
    close(p[0]);
    w = open_fd_writer(p[1]);   /* sync is on: a pipe has nothing to sync */
    ck_assert_int_eq(write_big(w), INLAY_OK);
    inlay_writer_free(w);
    close(p[1]);
    int ws;
    ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
    ck_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    uint8_t *got = read_file(target("piped.parquet"), &len);
    ck_assert_uint_eq(len, rlen);
    ck_assert(memcmp(got, ref, len) == 0);
    free(got);
    inlay_buffer_free(&b);
}
END_TEST

START_TEST(test_fd_broken_pipe)
{
    /* the reader takes the header and leaves: the next write fails with
     * EPIPE, and SIGPIPE neither ends this process nor stays pending */
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    pid_t pid = spawn_reader(p[0], p[1], target("head.bin"), 4);
    close(p[0]);
    inlay_writer *w = open_fd_writer(p[1]);
    int ws;
    ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
    ck_assert_int_eq(write_rows(w), INLAY_ERR_IO);
    ck_assert_msg(strstr(inlay_writer_errmsg(w), "writing the stream: Broken pipe") != NULL, "%s",
                  inlay_writer_errmsg(w));
    sigset_t mask, pending;
    ck_assert_int_eq(sigprocmask(SIG_BLOCK, NULL, &mask), 0);
    ck_assert(!sigismember(&mask, SIGPIPE));
    ck_assert_int_eq(sigpending(&pending), 0);
    ck_assert(!sigismember(&pending, SIGPIPE));
    inlay_writer_free(w);
    ck_assert_int_ne(fcntl(p[1], F_GETFD), -1);
    close(p[1]);
}
END_TEST

START_TEST(test_fd_no_space)
{
    int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
    ck_assert_int_ge(fd, 0);
    inlay_schema *s = make_schema(NULL);
    inlay_writer *w = NULL;
    ck_assert_int_eq(inlay_writer_open_fd(&w, fd, s, NULL), INLAY_ERR_IO);   /* the header's write */
    ck_assert_str_eq(inlay_writer_errmsg(w), "writing the stream: No space left on device");
    inlay_writer_free(w);
    inlay_schema_free(s);
    close(fd);
}
END_TEST

static void write_fd_in_child(child_result *r, void *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    inlay_schema *s = make_schema(NULL);
    inlay_options o = options(NULL);
    inlay_writer *w = NULL;
    r->status = inlay_writer_open_fd(&w, fd, s, &o);
    if (r->status == INLAY_OK) r->status = write_rows(w);
    snprintf(r->msg, sizeof r->msg, "%s", w ? inlay_writer_errmsg(w) : "no writer");
    inlay_writer_free(w);
    inlay_schema_free(s);
    close(fd);
}

/* The stream so far is a prefix of the reference, and no reader can take it
 * for a file: it does not end in "PAR1". */
static void expect_cut_stream(const char *path, const uint8_t *ref, size_t rlen, size_t at_most)
{
    size_t len;
    uint8_t *p = read_file(path, &len);
    ck_assert_uint_le(len, at_most);
    ck_assert_uint_ge(len, 4);
    ck_assert_mem_eq(p, "PAR1", 4);
    ck_assert_msg(memcmp(p + len - 4, "PAR1", 4) != 0, "a cut stream of %zu bytes ends in PAR1", len);
    /* the last byte may be the one abort adds */
    ck_assert_msg(len - 1 < rlen && memcmp(p, ref, len - 1) == 0, "the stream is not what was written");
    free(p);
}

START_TEST(test_fd_cut_streams)
{
    size_t rlen;
    uint8_t *ref = reference_bytes(&rlen);
    /* a write fails (the file size limit) mid-stream */
    child_result r = with_file_size_limit(rlen / 2, write_fd_in_child, target("cut.parquet"));
    ck_assert_int_eq(r.status, INLAY_ERR_IO);
    ck_assert_msg(strstr(r.msg, "writing the stream: File too large") != NULL, "%s", r.msg);
    expect_cut_stream(target("cut.parquet"), ref, rlen, rlen / 2);
    /* aborted after a row group went out */
    int fd = open(target("aborted.parquet"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    inlay_writer *w = open_fd_writer(fd);
    ck_assert_int_eq(append_rows(w, 0, BATCH), INLAY_OK);
    ck_assert_int_eq(append_rows(w, BATCH, BATCH), INLAY_OK);
    ck_assert_uint_gt(inlay_writer_row_groups(w), 0);
    inlay_writer_abort(w);
    inlay_writer_free(w);
    close(fd);
    expect_cut_stream(target("aborted.parquet"), ref, rlen, rlen - 1);
    /* aborted right after the header: "PAR1" alone would end in PAR1 */
    fd = open(target("header.parquet"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    w = open_fd_writer(fd);
    inlay_writer_free(w);
    close(fd);
    size_t len;
    uint8_t *p = read_file(target("header.parquet"), &len);
    ck_assert_bytes(p, len, "PAR1\0", 5);
    free(p);
    free(ref);
}
END_TEST

START_TEST(test_fd_refused)
{
    inlay_schema *s = make_schema(NULL);
    inlay_writer *w = NULL;
    ck_assert_int_eq(inlay_writer_open_fd(&w, -1, s, NULL), INLAY_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(w);
    inlay_writer_free(w);
    int fd = open(target("x"), O_WRONLY | O_CREAT, 0600);
    close(fd);   /* a descriptor no longer open */
    ck_assert_int_eq(inlay_writer_open_fd(&w, fd, s, NULL), INLAY_ERR_IO);
    ck_assert_msg(strstr(inlay_writer_errmsg(w), strerror(EBADF)) != NULL, "%s", inlay_writer_errmsg(w));
    inlay_writer_free(w);
    fd = open(target("x"), O_RDONLY);
    ck_assert_int_eq(inlay_writer_open_fd(&w, fd, s, NULL), INLAY_ERR_IO);
    ck_assert_ptr_nonnull(strstr(inlay_writer_errmsg(w), "not open for writing"));
    inlay_writer_free(w);
    close(fd);
    inlay_options o = options(NULL);
    o.page_bytes = 0;   /* bad options: nothing reaches the descriptor */
    fd = open(target("y"), O_WRONLY | O_CREAT, 0600);
    ck_assert_int_eq(inlay_writer_open_fd(&w, fd, s, &o), INLAY_ERR_ARGUMENT);
    inlay_writer_free(w);
    close(fd);
    struct stat st;
    ck_assert_int_eq(stat(target("y"), &st), 0);
    ck_assert_int_eq(st.st_size, 0);
    ck_assert_int_eq(stat(target("x"), &st), 0);
    ck_assert_int_eq(st.st_size, 0);
    inlay_schema_free(s);
}
END_TEST

/* The counting allocator, with new memory filled with garbage: a block
 * freed by the length of a string never written into it must not pass
 * because malloc handed back an old copy of the same string. */
static void *garbage_alloc_fn(void *ud, void *ptr, size_t osize, size_t nsize)
{
    uint8_t *p = test_alloc_fn(ud, ptr, osize, nsize);
    if (p && nsize > (ptr ? osize : 0)) memset(p + (ptr ? osize : 0), 0xa5, nsize - (ptr ? osize : 0));
    return p;
}

START_TEST(test_file_alloc_faults)
{
    test_alloc ta = { 0 };
    inlay_allocator a = { garbage_alloc_fn, &ta };
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
    tcase_add_test(c, test_sink_errno_reaches_message);
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
    tcase_add_test(c, test_target_not_regular);
    tcase_add_test(c, test_symlink_target);
    tcase_add_test(c, test_bad_options_touch_nothing);
    tcase_add_test(c, test_temp_path);
    tcase_add_test(c, test_file_alloc_faults);
    tcase_add_test(c, test_close_syncs);
    tcase_add_test(c, test_sync_fails);
    tcase_add_test(c, test_file_too_large);
    tcase_add_test(c, test_stale_temp_removed);
    tcase_add_test(c, test_long_target_name);
    tcase_add_test(c, test_live_temp_kept);
    suite_add_tcase(s, c);

    c = tcase_create("descriptor sink");
    tcase_set_timeout(c, 60);
    tcase_add_unchecked_fixture(c, make_base, remove_base);
    tcase_add_checked_fixture(c, make_dir, remove_dir);
    tcase_add_test(c, test_fd_same_bytes);
    tcase_add_test(c, test_fd_pipe);
    tcase_add_test(c, test_fd_broken_pipe);
    tcase_add_test(c, test_fd_no_space);
    tcase_add_test(c, test_fd_cut_streams);
    tcase_add_test(c, test_fd_refused);
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
