/*
 * check_input.c — the byte source under the text readers (runtime/input/input.c):
 * plain files, stdin from a pipe or a file, gzip (also concatenated
 * members) and zstd (also concatenated and skippable frames) from files and
 * callbacks, whatever the read sizes; truncated or corrupt compressed data
 * as a sticky error, never an early end, after the same bytes whatever the
 * read sizes; open errors with their messages;
 * size and progress; the compression told by the first bytes, on files
 * whatever their name, on stdin from a pipe and on callbacks that hand out
 * a byte at a time; a prefix taken from the stream earlier; bytes put
 * back; a stream cut short on purpose; reading at an offset; the file's
 * identity; and every allocation failing in turn without a leak.
 */
#define _POSIX_C_SOURCE 200809L
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "unit.h"

/* ---- sources and data -------------------------------------------------------------------- */

enum { READ_WHOLE, READ_ONE, READ_RANDOM };

/* A callback source over memory: everything asked for, one byte per call, or
 * random amounts; fail_call = N makes the Nth call fail. */
typedef struct mem_src {
    const uint8_t *data;
    size_t len, pos;
    int mode;
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
    if (s->mode == READ_RANDOM && n > 1) n = 1 + (size_t)(rng_next(&s->rng) % (n < 70000 ? n : 70000));
    memcpy(dst, s->data + s->pos, n);
    s->pos += n;
    return (ptrdiff_t)n;
}

static mem_src source(const void *data, size_t len, int mode)
{
    mem_src s = { data, len, 0, mode, 99, 0, 0 };
    return s;
}

/* CSV-like text that compresses well but not trivially. */
static uint8_t *make_text(size_t n, uint64_t seed)
{
    uint8_t *t = malloc(n);
    ck_assert_ptr_nonnull(t);
    size_t i = 0;
    while (i < n) {
        char line[96];
        uint64_t r = rng_next(&seed);
        int k = snprintf(line, sizeof line, "%llu,name_%u,%u.%02u,%s\n", (unsigned long long)(r % 100000000),
                         (unsigned)(r >> 40) % 500, (unsigned)(r >> 20) % 10000, (unsigned)(r >> 8) % 100,
                         r & 1 ? "true" : "false");
        size_t m = (size_t)k < n - i ? (size_t)k : n - i;
        memcpy(t + i, line, m);
        i += m;
    }
    return t;
}

static uint8_t *gzip_mem(const void *data, size_t len, size_t *out_len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    ck_assert_int_eq(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, (uLong)len);
    uint8_t *out = malloc(cap);
    ck_assert_ptr_nonnull(out);
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    *out_len = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

static uint8_t *zstd_mem(const void *data, size_t len, size_t *out_len)
{
    size_t cap = ZSTD_compressBound(len);
    uint8_t *out = malloc(cap);
    ck_assert_ptr_nonnull(out);
    size_t n = ZSTD_compress(out, cap, data, len, 3);
    ck_assert(!ZSTD_isError(n));
    *out_len = n;
    return out;
}

/* a followed by b, in a new block */
static uint8_t *concat(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
    uint8_t *c = malloc(na + nb + 1);
    ck_assert_ptr_nonnull(c);
    memcpy(c, a, na);
    if (nb) memcpy(c + na, b, nb);
    return c;
}

/* Reads r to its end in pieces of at most `piece` bytes; returns the bytes
 * (malloc) and their count, or NULL with *len the bytes read before -1. */
static uint8_t *read_all(input_reader *r, size_t piece, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    uint8_t *out = malloc(cap);
    ck_assert_ptr_nonnull(out);
    for (;;) {
        if (cap - n < piece) {
            cap = 2 * cap + piece;
            out = realloc(out, cap);
            ck_assert_ptr_nonnull(out);
        }
        ptrdiff_t k = inl_input_read(r, out + n, piece);
        if (k < 0) {
            free(out);
            *len = n;
            return NULL;
        }
        if (k == 0) break;
        ck_assert_uint_le((size_t)k, piece);
        n += (size_t)k;
    }
    *len = n;
    return out;
}

/* Opens fn over data with compression c, reads everything and checks it is want. */
static void expect_fn(const void *data, size_t len, input_compression c, int mode, size_t piece,
                      const void *want, size_t want_len)
{
    mem_src s = source(data, len, mode);
    input_reader *r;
    char err[256];
    ck_assert_int_eq(inl_input_open_fn(&r, mem_read, &s, c, NULL, err, sizeof err), 0);
    size_t n;
    uint8_t *got = read_all(r, piece, &n);
    ck_assert_msg(got != NULL, "read failed after %zu bytes: %s", n, inl_input_errmsg(r));
    ck_assert_uint_eq(n, want_len);
    ck_assert_msg(memcmp(got, want, n) == 0, "bytes differ");
    ck_assert_uint_eq(inl_input_consumed(r), len);
    ck_assert_int_eq(inl_input_read(r, got, 1), 0);       /* the end stays the end */
    free(got);
    inl_input_close(r);
}

/* Opens fn over data with compression c and expects a read to fail with msg. */
static void expect_fn_error(const void *data, size_t len, input_compression c, size_t piece, const char *msg)
{
    mem_src s = source(data, len, READ_WHOLE);
    input_reader *r;
    ck_assert_int_eq(inl_input_open_fn(&r, mem_read, &s, c, NULL, NULL, 0), 0);
    size_t n;
    uint8_t *got = read_all(r, piece, &n);
    ck_assert_msg(got == NULL, "read %zu bytes without the error \"%s\"", n, msg);
    ck_assert_str_eq(inl_input_errmsg(r), msg);
    uint8_t b[16];
    ck_assert_int_eq(inl_input_read(r, b, sizeof b), -1);   /* sticky */
    ck_assert_str_eq(inl_input_errmsg(r), msg);
    inl_input_close(r);
}

/* A temporary file holding data; its name ends with ext. */
static void temp_file(char *path, size_t cap, const char *ext, const void *data, size_t len)
{
    snprintf(path, cap, "/tmp/check_input_%ld_XXXXXX", (long)getpid());
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    size_t done = 0;
    while (done < len) {
        ssize_t k = write(fd, (const uint8_t *)data + done, len - done);
        ck_assert_int_gt(k, 0);
        done += (size_t)k;
    }
    close(fd);
    char named[512];
    snprintf(named, sizeof named, "%s%s", path, ext);
    ck_assert_int_eq(rename(path, named), 0);
    snprintf(path, cap, "%s", named);
}

/* ---- plain files --------------------------------------------------------------------------- */

START_TEST(test_plain_file)
{
    size_t len = 3 * 1000 * 1000 + 17;
    uint8_t *data = make_text(len, 1);
    char path[512];
    temp_file(path, sizeof path, ".csv", data, len);
    static const size_t pieces[] = { 1 << 20, 4096, 7 };
    for (size_t i = 0; i < 3; i++) {
        input_reader *r;
        char err[256] = "untouched";
        ck_assert_int_eq(inl_input_open(&r, path, NULL, err, sizeof err), 0);
        ck_assert_str_eq(err, "");
        ck_assert_str_eq(inl_input_name(r), path);
        ck_assert_uint_eq(inl_input_size(r), len);
        ck_assert_uint_eq(inl_input_consumed(r), 0);
        size_t n;
        uint8_t *got = read_all(r, pieces[i], &n);
        ck_assert_ptr_nonnull(got);
        ck_assert_uint_eq(n, len);
        ck_assert(memcmp(got, data, len) == 0);
        ck_assert_uint_eq(inl_input_consumed(r), len);
        ck_assert_int_eq(inl_input_read(r, got, 10), 0);
        ck_assert_int_eq(inl_input_read(r, got, 0), 0);
        ck_assert_str_eq(inl_input_errmsg(r), "");
        free(got);
        inl_input_close(r);
    }
    unlink(path);
    free(data);
}
END_TEST

START_TEST(test_plain_empty_file)
{
    char path[512];
    temp_file(path, sizeof path, ".csv", "", 0);
    input_reader *r;
    ck_assert_int_eq(inl_input_open(&r, path, NULL, NULL, 0), 0);
    uint8_t b[8];
    ck_assert_int_eq(inl_input_read(r, b, sizeof b), 0);
    ck_assert_uint_eq(inl_input_size(r), 0);
    inl_input_close(r);
    unlink(path);
}
END_TEST

START_TEST(test_plain_callback)
{
    size_t len = 200000;
    uint8_t *data = make_text(len, 2);
    expect_fn(data, len, INPUT_PLAIN, READ_WHOLE, 1 << 20, data, len);
    expect_fn(data, len, INPUT_PLAIN, READ_ONE, 1 << 20, data, len);
    expect_fn(data, len, INPUT_PLAIN, READ_RANDOM, 999, data, len);
    mem_src s = source(data, len, READ_WHOLE);
    input_reader *r;
    ck_assert_int_eq(inl_input_open_fn(&r, mem_read, &s, INPUT_PLAIN, NULL, NULL, 0), 0);
    ck_assert_str_eq(inl_input_name(r), "<input>");
    ck_assert_uint_eq(inl_input_size(r), 0);
    inl_input_close(r);
    free(data);
}
END_TEST

START_TEST(test_callback_error)
{
    static const char text[] = "a,b\nc,d\n";
    static const input_compression kinds[] = { INPUT_PLAIN, INPUT_GZIP, INPUT_ZSTD };
    size_t lens[3] = { sizeof text - 1, 0, 0 };
    uint8_t *bytes[3] = { NULL, gzip_mem(text, lens[0], &lens[1]), zstd_mem(text, lens[0], &lens[2]) };
    bytes[0] = concat((const uint8_t *)text, lens[0], NULL, 0);
    for (int k = 0; k < 3; k++) {
        mem_src s = source(bytes[k], lens[k], READ_ONE);
        s.fail_call = 3;
        input_reader *r;
        ck_assert_int_eq(inl_input_open_fn(&r, mem_read, &s, kinds[k], NULL, NULL, 0), 0);
        size_t n;
        ck_assert_ptr_null(read_all(r, 100, &n));
        ck_assert_str_eq(inl_input_errmsg(r), "<input>: read error");
        uint8_t b[4];
        ck_assert_int_eq(inl_input_read(r, b, 4), -1);
        unsigned long calls = s.calls;
        ck_assert_int_eq(inl_input_read(r, b, 4), -1);
        ck_assert_uint_eq(s.calls, calls);        /* a failed reader reads no more */
        inl_input_close(r);
        free(bytes[k]);
    }
}
END_TEST

/* ---- stdin ----------------------------------------------------------------------------------- */

/* Runs body with fd 0 replaced by fd, restoring the real stdin after. */
static void with_stdin(int fd, void (*body)(void *), void *arg)
{
    int saved = dup(0);
    ck_assert_int_ge(saved, 0);
    ck_assert_int_eq(dup2(fd, 0), 0);
    close(fd);
    body(arg);
    ck_assert_int_eq(dup2(saved, 0), 0);
    close(saved);
}

typedef struct stdin_case {
    const uint8_t *data;
    size_t len;
    uint64_t want_size;
} stdin_case;

static void read_stdin(void *arg)
{
    stdin_case *c = arg;
    input_reader *r;
    ck_assert_int_eq(inl_input_open(&r, "-", NULL, NULL, 0), 0);
    ck_assert_str_eq(inl_input_name(r), "<stdin>");
    ck_assert_uint_eq(inl_input_size(r), c->want_size);
    size_t n;
    uint8_t *got = read_all(r, 1 << 20, &n);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(n, c->len);
    ck_assert(memcmp(got, c->data, n) == 0);
    free(got);
    inl_input_close(r);
    /* inl_input_close leaves stdin open */
    ck_assert_int_ne(fcntl(0, F_GETFD), -1);
}

START_TEST(test_stdin_pipe)
{
    /* more than a pipe holds, written by a child while we read */
    size_t len = 1 << 20;
    uint8_t *data = make_text(len, 3);
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fds[0]);
        size_t done = 0;
        while (done < len) {
            size_t piece = len - done < 10000 ? len - done : 10000;
            ssize_t k = write(fds[1], data + done, piece);
            if (k <= 0) _exit(1);
            done += (size_t)k;
        }
        _exit(0);
    }
    close(fds[1]);
    stdin_case c = { data, len, 0 };
    with_stdin(fds[0], read_stdin, &c);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    free(data);
}
END_TEST

START_TEST(test_stdin_file)
{
    size_t len = 5000;
    uint8_t *data = make_text(len, 4);
    char path[512];
    temp_file(path, sizeof path, ".gz", data, len);       /* stdin is plain whatever the file's name */
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    stdin_case c = { data, len, len };
    with_stdin(fd, read_stdin, &c);
    unlink(path);
    free(data);
}
END_TEST

/* ---- open errors ------------------------------------------------------------------------------ */

START_TEST(test_open_missing)
{
    static int dummy;
    input_reader *r = (input_reader *)&dummy;
    char err[256];
    ck_assert_int_eq(inl_input_open(&r, "/nonexistent/x.csv", NULL, err, sizeof err), INLAY_ERR_IO);
    ck_assert_str_eq(err, "cannot open '/nonexistent/x.csv': No such file or directory");
    ck_assert_ptr_null(r);
    ck_assert_int_eq(inl_input_open(&r, "/nonexistent/x.csv.gz", NULL, NULL, 0), INLAY_ERR_IO);
    char small[12];
    ck_assert_int_eq(inl_input_open(&r, "/nonexistent/x.csv", NULL, small, sizeof small), INLAY_ERR_IO);
    ck_assert_str_eq(small, "cannot open");
}
END_TEST

START_TEST(test_open_directory)
{
    input_reader *r;
    char err[256];
    ck_assert_int_eq(inl_input_open(&r, "/tmp", NULL, err, sizeof err), INLAY_ERR_IO);
    ck_assert_str_eq(err, "cannot open '/tmp': Is a directory");
}
END_TEST

START_TEST(test_open_arguments)
{
    input_reader *r;
    char err[256];
    ck_assert_int_eq(inl_input_open(&r, NULL, NULL, err, sizeof err), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inl_input_open_fn(&r, NULL, NULL, INPUT_PLAIN, NULL, err, sizeof err), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inl_input_open_fn(&r, mem_read, NULL, (input_compression)7, NULL, err, sizeof err),
                     INLAY_ERR_ARGUMENT);
    ck_assert_str_ne(err, "");
    inl_input_close(NULL);
}
END_TEST

/* ---- gzip ------------------------------------------------------------------------------------- */

START_TEST(test_gzip_callback)
{
    size_t len = 3 * 1000 * 1000;       /* several compressed and decompressed buffers */
    uint8_t *data = make_text(len, 5);
    size_t zlen;
    uint8_t *z = gzip_mem(data, len, &zlen);
    expect_fn(z, zlen, INPUT_GZIP, READ_WHOLE, 1 << 20, data, len);
    expect_fn(z, zlen, INPUT_GZIP, READ_RANDOM, 1 << 20, data, len);
    expect_fn(z, zlen, INPUT_GZIP, READ_WHOLE, 13, data, len);
    free(z);
    z = gzip_mem(data, 20000, &zlen);
    expect_fn(z, zlen, INPUT_GZIP, READ_ONE, 1 << 20, data, 20000);
    expect_fn(z, zlen, INPUT_GZIP, READ_ONE, 1, data, 20000);
    free(z);
    z = gzip_mem("", 0, &zlen);                  /* a member of nothing is an empty input */
    expect_fn(z, zlen, INPUT_GZIP, READ_WHOLE, 100, "", 0);
    free(z);
    free(data);
}
END_TEST

START_TEST(test_gzip_members)
{
    static const char a[] = "id,name\n1,x\n", b[] = "2,y\n3,z\n";
    size_t na, nb, ne;
    uint8_t *za = gzip_mem(a, sizeof a - 1, &na), *zb = gzip_mem(b, sizeof b - 1, &nb);
    uint8_t *ze = gzip_mem("", 0, &ne);
    uint8_t *ab = concat(za, na, zb, nb);
    expect_fn(ab, na + nb, INPUT_GZIP, READ_WHOLE, 100, "id,name\n1,x\n2,y\n3,z\n", 20);
    expect_fn(ab, na + nb, INPUT_GZIP, READ_ONE, 100, "id,name\n1,x\n2,y\n3,z\n", 20);
    expect_fn(ab, na + nb, INPUT_GZIP, READ_WHOLE, 1, "id,name\n1,x\n2,y\n3,z\n", 20);
    uint8_t *aeb = concat(ab, na + nb, ze, ne);    /* with an empty member at the end */
    expect_fn(aeb, na + nb + ne, INPUT_GZIP, READ_RANDOM, 7, "id,name\n1,x\n2,y\n3,z\n", 20);
    /* and as a file */
    char path[512];
    temp_file(path, sizeof path, ".csv.GZ", ab, na + nb);
    input_reader *r;
    ck_assert_int_eq(inl_input_open(&r, path, NULL, NULL, 0), 0);
    size_t n;
    uint8_t *got = read_all(r, 1 << 20, &n);
    ck_assert_ptr_nonnull(got);
    ck_assert_bytes(got, n, "id,name\n1,x\n2,y\n3,z\n", 20);
    ck_assert_uint_eq(inl_input_size(r), na + nb);
    ck_assert_uint_eq(inl_input_consumed(r), na + nb);
    free(got);
    inl_input_close(r);
    unlink(path);
    free(za);
    free(zb);
    free(ze);
    free(ab);
    free(aeb);
}
END_TEST

START_TEST(test_gzip_file_gzwrite)
{
    size_t len = 400000;
    uint8_t *data = make_text(len, 6);
    char path[512];
    temp_file(path, sizeof path, ".gz", "", 0);
    gzFile g = gzopen(path, "wb");
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(gzwrite(g, data, (unsigned)len), (int)len);
    ck_assert_int_eq(gzclose(g), Z_OK);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    input_reader *r;
    ck_assert_int_eq(inl_input_open(&r, path, NULL, NULL, 0), 0);
    ck_assert_uint_eq(inl_input_size(r), (uint64_t)st.st_size);
    size_t n;
    uint8_t *got = read_all(r, 65536, &n);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(n, len);
    ck_assert(memcmp(got, data, len) == 0);
    ck_assert_uint_eq(inl_input_consumed(r), (uint64_t)st.st_size);
    free(got);
    inl_input_close(r);
    unlink(path);
    free(data);
}
END_TEST

START_TEST(test_gzip_progress)
{
    size_t len = 4 * 1000 * 1000;
    uint8_t *data = make_text(len, 7);
    size_t zlen;
    uint8_t *z = gzip_mem(data, len, &zlen);
    mem_src s = source(z, zlen, READ_WHOLE);
    input_reader *r;
    ck_assert_int_eq(inl_input_open_fn(&r, mem_read, &s, INPUT_GZIP, NULL, NULL, 0), 0);
    uint8_t *b = malloc(65536);
    uint64_t last = 0;
    size_t total = 0;
    bool moved_inside = false;
    ptrdiff_t k;
    while ((k = inl_input_read(r, b, 65536)) > 0) {
        uint64_t c = inl_input_consumed(r);
        ck_assert_uint_ge(c, last);
        ck_assert_uint_le(c, zlen);
        if (c > 0 && c < zlen) moved_inside = true;
        last = c;
        total += (size_t)k;
    }
    ck_assert_int_eq(k, 0);
    ck_assert_uint_eq(total, len);
    ck_assert_uint_eq(inl_input_consumed(r), zlen);
    ck_assert(moved_inside);
    free(b);
    inl_input_close(r);
    free(z);
    free(data);
}
END_TEST

/* ---- gzip errors ------------------------------------------------------------------------------ */

START_TEST(test_gzip_truncated)
{
    size_t len = 300000;
    uint8_t *data = make_text(len, 8);
    size_t zlen;
    uint8_t *z = gzip_mem(data, len, &zlen);
    /* cut in the header, the body, the trailer, and one byte short */
    const size_t cuts[] = { 0, 5, 10, zlen / 2, zlen - 8, zlen - 1 };
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
        expect_fn_error(z, cuts[i], INPUT_GZIP, 1 << 16, "<input>: truncated gzip data");
    /* a complete member and a cut one */
    uint8_t *zz = concat(z, zlen, z, zlen);
    expect_fn_error(zz, zlen + zlen / 3, INPUT_GZIP, 1 << 16, "<input>: truncated gzip data");
    /* and from a file, named by its path */
    char path[512], want[600];
    temp_file(path, sizeof path, ".gz", z, zlen - 3);
    input_reader *r;
    ck_assert_int_eq(inl_input_open(&r, path, NULL, NULL, 0), 0);
    size_t n;
    ck_assert_ptr_null(read_all(r, 1 << 20, &n));
    snprintf(want, sizeof want, "%s: truncated gzip data", path);
    ck_assert_str_eq(inl_input_errmsg(r), want);
    inl_input_close(r);
    unlink(path);
    free(zz);
    free(z);
    free(data);
}
END_TEST

START_TEST(test_gzip_corrupt)
{
    size_t len = 100000;
    uint8_t *data = make_text(len, 9);
    size_t zlen;
    uint8_t *z = gzip_mem(data, len, &zlen);
    uint8_t *bad = concat(z, zlen, NULL, 0);
    bad[zlen / 2] ^= 0x55;
    bad[zlen / 2 + 1] ^= 0xAA;
    expect_fn_error(bad, zlen, INPUT_GZIP, 1 << 16, "<input>: corrupt gzip data");
    memcpy(bad, z, zlen);
    bad[zlen - 5] ^= 1;                     /* the length in the trailer */
    expect_fn_error(bad, zlen, INPUT_GZIP, 1 << 16, "<input>: corrupt gzip data");
    memcpy(bad, z, zlen);
    bad[zlen - 8] ^= 1;                     /* the CRC */
    expect_fn_error(bad, zlen, INPUT_GZIP, 1 << 16, "<input>: corrupt gzip data");
    /* not gzip at all */
    expect_fn_error("a,b\nc,d\n", 8, INPUT_GZIP, 100, "<input>: corrupt gzip data");
    /* a member and then garbage */
    uint8_t *tail = concat(z, zlen, (const uint8_t *)"garbage", 7);
    expect_fn_error(tail, zlen + 7, INPUT_GZIP, 1 << 20, "<input>: corrupt gzip data");
    free(tail);
    free(bad);
    free(z);
    free(data);
}
END_TEST

/* ---- zstd ------------------------------------------------------------------------------------- */

START_TEST(test_zstd_callback)
{
    size_t len = 3 * 1000 * 1000;
    uint8_t *data = make_text(len, 10);
    size_t zlen;
    uint8_t *z = zstd_mem(data, len, &zlen);
    expect_fn(z, zlen, INPUT_ZSTD, READ_WHOLE, 1 << 20, data, len);
    expect_fn(z, zlen, INPUT_ZSTD, READ_RANDOM, 1 << 20, data, len);
    expect_fn(z, zlen, INPUT_ZSTD, READ_WHOLE, 13, data, len);
    free(z);
    z = zstd_mem(data, 20000, &zlen);
    expect_fn(z, zlen, INPUT_ZSTD, READ_ONE, 1 << 20, data, 20000);
    expect_fn(z, zlen, INPUT_ZSTD, READ_ONE, 1, data, 20000);
    free(z);
    z = zstd_mem("", 0, &zlen);
    expect_fn(z, zlen, INPUT_ZSTD, READ_WHOLE, 100, "", 0);
    free(z);
    free(data);
}
END_TEST

START_TEST(test_zstd_frames)
{
    static const char a[] = "id,name\n1,x\n", b[] = "2,y\n3,z\n";
    size_t na, nb;
    uint8_t *za = zstd_mem(a, sizeof a - 1, &na), *zb = zstd_mem(b, sizeof b - 1, &nb);
    uint8_t *ab = concat(za, na, zb, nb);
    expect_fn(ab, na + nb, INPUT_ZSTD, READ_WHOLE, 100, "id,name\n1,x\n2,y\n3,z\n", 20);
    expect_fn(ab, na + nb, INPUT_ZSTD, READ_ONE, 3, "id,name\n1,x\n2,y\n3,z\n", 20);
    /* a skippable frame between them */
    static const uint8_t skip[] = { 0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 'x', 'y', 'z' };
    uint8_t *as = concat(za, na, skip, sizeof skip);
    uint8_t *asb = concat(as, na + sizeof skip, zb, nb);
    expect_fn(asb, na + sizeof skip + nb, INPUT_ZSTD, READ_RANDOM, 5, "id,name\n1,x\n2,y\n3,z\n", 20);
    /* files, by both extensions */
    static const char *exts[] = { ".zst", ".csv.zstd" };
    for (int i = 0; i < 2; i++) {
        char path[512];
        temp_file(path, sizeof path, exts[i], ab, na + nb);
        input_reader *r;
        ck_assert_int_eq(inl_input_open(&r, path, NULL, NULL, 0), 0);
        size_t n;
        uint8_t *got = read_all(r, 1 << 20, &n);
        ck_assert_ptr_nonnull(got);
        ck_assert_bytes(got, n, "id,name\n1,x\n2,y\n3,z\n", 20);
        ck_assert_uint_eq(inl_input_consumed(r), na + nb);
        free(got);
        inl_input_close(r);
        unlink(path);
    }
    free(za);
    free(zb);
    free(ab);
    free(as);
    free(asb);
}
END_TEST

START_TEST(test_zstd_truncated)
{
    size_t len = 300000;
    uint8_t *data = make_text(len, 11);
    size_t zlen;
    uint8_t *z = zstd_mem(data, len, &zlen);
    const size_t cuts[] = { 0, 3, 6, zlen / 2, zlen - 4, zlen - 1 };
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
        expect_fn_error(z, cuts[i], INPUT_ZSTD, 1 << 16, "<input>: truncated zstd data");
    uint8_t *zz = concat(z, zlen, z, zlen);
    expect_fn_error(zz, zlen + zlen / 3, INPUT_ZSTD, 1 << 16, "<input>: truncated zstd data");
    free(zz);
    free(z);
    free(data);
}
END_TEST

START_TEST(test_zstd_corrupt)
{
    size_t len = 100000;
    uint8_t *data = make_text(len, 12);
    size_t zlen;
    uint8_t *z = zstd_mem(data, len, &zlen);
    mem_src s = source("a,b\nc,d\n", 8, READ_WHOLE);
    input_reader *r;
    ck_assert_int_eq(inl_input_open_fn(&r, mem_read, &s, INPUT_ZSTD, NULL, NULL, 0), 0);
    uint8_t b[64];
    ck_assert_int_eq(inl_input_read(r, b, sizeof b), -1);
    ck_assert_msg(strncmp(inl_input_errmsg(r), "<input>: corrupt zstd data", 26) == 0, "%s", inl_input_errmsg(r));
    inl_input_close(r);
    /* the checksum of the content catches a flipped byte in the body */
    size_t clen = ZSTD_compressBound(len);
    uint8_t *c = malloc(clen);
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
    clen = ZSTD_compress2(cc, c, clen, data, len);
    ck_assert(!ZSTD_isError(clen));
    ZSTD_freeCCtx(cc);
    c[clen / 2] ^= 0x20;
    s = source(c, clen, READ_WHOLE);
    ck_assert_int_eq(inl_input_open_fn(&r, mem_read, &s, INPUT_ZSTD, NULL, NULL, 0), 0);
    size_t n;
    ck_assert_ptr_null(read_all(r, 1 << 20, &n));
    ck_assert_msg(strncmp(inl_input_errmsg(r), "<input>: corrupt zstd data", 26) == 0, "%s", inl_input_errmsg(r));
    inl_input_close(r);
    free(c);
    free(z);
    free(data);
}
END_TEST

/* ---- damage read through any read sizes ------------------------------------------------------ */

/* Reads r until it fails, in pieces of at most `piece` bytes (through the
 * read-ahead's blocks when it runs); returns the bytes before the error
 * (malloc) and their count. */
static uint8_t *read_to_error(input_reader *r, size_t piece, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    uint8_t *out = malloc(cap);
    ck_assert_ptr_nonnull(out);
    for (;;) {
        if (cap - n < piece + (1u << 20)) {
            cap = 2 * cap + piece + (1u << 20);
            out = realloc(out, cap);
            ck_assert_ptr_nonnull(out);
        }
        ptrdiff_t k;
        uint8_t *data;
        if (inl_input_reading_ahead(r) && (n / 7) % 2) {
            k = inl_input_block(r, &data);
            if (k > 0) memcpy(out + n, data, (size_t)k);
        } else {
            k = inl_input_read(r, out + n, piece);
        }
        ck_assert_msg(k != 0, "the damaged input ended without an error after %zu bytes", n);
        if (k < 0) break;
        n += (size_t)k;
    }
    *len = n;
    return out;
}

/* The bytes handed out before damaged compressed data fails, and the
 * message, are the same whatever the read sizes, with or without the
 * read-ahead: the bytes decoded in the call that met the damage come first. */
static void expect_same_before_damage(const uint8_t *z, size_t zlen, input_compression c, const char *ext,
                                      const uint8_t *data, bool exact)
{
    static const size_t pieces[] = { 1 << 20, 3 << 20, 1 << 16, 4099, 301 };
    uint8_t *first = NULL;
    size_t first_len = 0;
    char first_msg[600] = "";
    for (size_t i = 0; i <= sizeof pieces / sizeof pieces[0]; i++) {
        const bool ahead = i == sizeof pieces / sizeof pieces[0];
        input_reader *r;
        mem_src s = source(z, zlen, READ_RANDOM);
        char path[512], msg[600];
        if (ahead) {
            temp_file(path, sizeof path, ext, z, zlen);
            ck_assert_int_eq(inl_input_open(&r, path, NULL, NULL, 0), 0);
            ck_assert_int_eq(inl_input_readahead(r), 0);
            ck_assert(inl_input_reading_ahead(r));
        } else {
            ck_assert_int_eq(inl_input_open_fn(&r, mem_read, &s, c, NULL, NULL, 0), 0);
        }
        size_t n;
        uint8_t *got = read_to_error(r, ahead ? 1 << 16 : pieces[i], &n);
        /* the file's message names the file; the rest is the same */
        const char *m = inl_input_errmsg(r);
        snprintf(msg, sizeof msg, "%s", ahead ? m + strlen(path) : m + strlen("<input>"));
        uint8_t one[8];
        ck_assert_int_eq(inl_input_read(r, one, sizeof one), -1);   /* sticky */
        if (exact) ck_assert_msg(memcmp(got, data, n) == 0, "bytes before the damage differ from the input's");
        if (!first) {
            first = got;
            first_len = n;
            snprintf(first_msg, sizeof first_msg, "%s", msg);
            ck_assert_uint_gt(n, 0);
        } else {
            ck_assert_msg(n == first_len, "read size %zu%s: %zu bytes before the error, %zu with %zu",
                          ahead ? 0 : pieces[i], ahead ? " (read-ahead)" : "", n, first_len, pieces[0]);
            ck_assert_msg(memcmp(got, first, n) == 0, "the bytes before the error differ");
            ck_assert_str_eq(msg, first_msg);
            free(got);
        }
        inl_input_close(r);
        if (ahead) unlink(path);
    }
    free(first);
}

START_TEST(test_gzip_damage_read_sizes)
{
    size_t len = 5 * 1000 * 1000;
    uint8_t *data = make_text(len, 31);
    size_t zlen;
    uint8_t *z = gzip_mem(data, len, &zlen);
    /* cut in the middle and near the end */
    expect_same_before_damage(z, zlen / 2, INPUT_GZIP, ".gz", data, true);
    expect_same_before_damage(z, zlen - 3, INPUT_GZIP, ".gz", data, true);
    /* flipped bits in several places */
    const size_t at[] = { zlen / 3, zlen / 2 + 17, zlen - 4000 };
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        uint8_t *bad = concat(z, zlen, NULL, 0);
        bad[at[i]] ^= 0x10;
        bad[at[i] + 1] ^= 0x81;
        expect_same_before_damage(bad, zlen, INPUT_GZIP, ".gz", data, false);
        free(bad);
    }
    free(z);
    free(data);
}
END_TEST

START_TEST(test_zstd_damage_read_sizes)
{
    size_t len = 5 * 1000 * 1000;
    uint8_t *data = make_text(len, 32);
    size_t zlen;
    uint8_t *z = zstd_mem(data, len, &zlen);
    expect_same_before_damage(z, zlen / 2, INPUT_ZSTD, ".zst", data, true);
    expect_same_before_damage(z, zlen - 2, INPUT_ZSTD, ".zst", data, true);
    /* flipped bits, with the content's checksum too */
    size_t clen = ZSTD_compressBound(len);
    uint8_t *c = malloc(clen);
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
    clen = ZSTD_compress2(cc, c, clen, data, len);
    ck_assert(!ZSTD_isError(clen));
    ZSTD_freeCCtx(cc);
    const size_t at[] = { clen / 3, clen / 2 + 17, clen - 4000 };
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        uint8_t *bad = concat(c, clen, NULL, 0);
        bad[at[i]] ^= 0x10;
        bad[at[i] + 1] ^= 0x81;
        expect_same_before_damage(bad, clen, INPUT_ZSTD, ".zst", data, false);
        free(bad);
    }
    c[clen - 2] ^= 1;   /* the checksum itself: every byte comes out first */
    expect_same_before_damage(c, clen, INPUT_ZSTD, ".zst", data, true);
    free(c);
    free(z);
    free(data);
}
END_TEST

/* ---- the compression told by the first bytes ---------------------------------------------- */

/* gzip and zstd on a callback that hands out one byte per call, as a slow
 * pipe does: the magic is assembled across calls and kept for the reads. */
START_TEST(test_auto_callback)
{
    size_t len = 200000;
    uint8_t *data = make_text(len, 21);
    size_t zlen[2];
    uint8_t *z[2] = { gzip_mem(data, len, &zlen[0]), zstd_mem(data, len, &zlen[1]) };
    static const input_compression want[] = { INPUT_GZIP, INPUT_ZSTD };
    for (int i = 0; i < 2; i++) {
        for (int mode = READ_WHOLE; mode <= READ_RANDOM; mode++) {
            mem_src s = source(z[i], zlen[i], mode);
            input_reader *r;
            char err[256];
            ck_assert_int_eq(inl_input_open_fn(&r, mem_read, &s, INPUT_AUTO, NULL, err, sizeof err), 0);
            ck_assert_int_eq(inl_input_compression(r), want[i]);
            size_t n;
            uint8_t *got = read_all(r, 4096, &n);
            ck_assert_ptr_nonnull(got);
            ck_assert_uint_eq(n, len);
            ck_assert(memcmp(got, data, len) == 0);   /* nothing of the magic lost, no garbage */
            ck_assert_uint_eq(inl_input_consumed(r), zlen[i]);
            free(got);
            inl_input_close(r);
        }
    }
    /* plain text, also shorter than a magic, and nothing at all */
    expect_fn(data, len, INPUT_AUTO, READ_ONE, 1000, data, len);
    expect_fn("a\n", 2, INPUT_AUTO, READ_ONE, 10, "a\n", 2);
    expect_fn("", 0, INPUT_AUTO, READ_WHOLE, 10, "", 0);
    /* text that starts like gzip's first byte only */
    static const uint8_t almost[] = { 0x1f, 'a', ',', 'b', '\n' };
    expect_fn(almost, sizeof almost, INPUT_AUTO, READ_ONE, 10, almost, sizeof almost);
    free(z[0]);
    free(z[1]);
    free(data);
}
END_TEST

/* A compressed file is decompressed whatever its name; without a magic
 * the name still says gzip or zstd (a damaged file is an error, not text). */
START_TEST(test_auto_file)
{
    size_t len = 50000;
    uint8_t *data = make_text(len, 22);
    size_t zlen[2];
    uint8_t *z[2] = { gzip_mem(data, len, &zlen[0]), zstd_mem(data, len, &zlen[1]) };
    static const char *const names[] = { ".csv", ".txt", "" };
    for (int i = 0; i < 2; i++) {
        for (int k = 0; k < 3; k++) {
            char path[512];
            temp_file(path, sizeof path, names[k], z[i], zlen[i]);
            input_reader *r;
            ck_assert_int_eq(inl_input_open(&r, path, NULL, NULL, 0), 0);
            ck_assert_int_eq(inl_input_compression(r), i ? INPUT_ZSTD : INPUT_GZIP);
            size_t n;
            uint8_t *got = read_all(r, 1 << 16, &n);
            ck_assert_ptr_nonnull(got);
            ck_assert_uint_eq(n, len);
            ck_assert(memcmp(got, data, len) == 0);
            ck_assert(inl_input_pread(r, 0, got, 10) == -1);   /* no offsets into compressed data */
            free(got);
            inl_input_close(r);
            unlink(path);
        }
    }
    char path[512];
    temp_file(path, sizeof path, ".csv.gz", data, len);      /* text named .gz */
    input_reader *r;
    ck_assert_int_eq(inl_input_open(&r, path, NULL, NULL, 0), 0);
    size_t n;
    ck_assert_ptr_null(read_all(r, 1 << 16, &n));
    ck_assert_ptr_nonnull(strstr(inl_input_errmsg(r), "corrupt gzip data"));
    inl_input_close(r);
    unlink(path);
    free(z[0]);
    free(z[1]);
    free(data);
}
END_TEST

typedef struct stdin_auto {
    const uint8_t *want;
    size_t want_len;
    input_compression comp;
} stdin_auto;

static void read_stdin_auto(void *arg)
{
    stdin_auto *c = arg;
    input_reader *r;
    ck_assert_int_eq(inl_input_open(&r, "-", NULL, NULL, 0), 0);
    ck_assert_int_eq(inl_input_compression(r), c->comp);
    size_t n;
    uint8_t *got = read_all(r, 1 << 20, &n);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(n, c->want_len);
    ck_assert(memcmp(got, c->want, n) == 0);
    free(got);
    inl_input_close(r);
}

/* gzip and zstd through a pipe on stdin, written a few bytes at a time. */
START_TEST(test_auto_stdin_pipe)
{
    size_t len = 300000;
    uint8_t *data = make_text(len, 23);
    size_t zlen[2];
    uint8_t *z[2] = { gzip_mem(data, len, &zlen[0]), zstd_mem(data, len, &zlen[1]) };
    for (int i = 0; i < 2; i++) {
        int fds[2];
        ck_assert_int_eq(pipe(fds), 0);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            close(fds[0]);
            size_t done = 0;
            while (done < zlen[i]) {
                size_t piece = done < 8 ? 1 : zlen[i] - done < 3000 ? zlen[i] - done : 3000;
                ssize_t k = write(fds[1], z[i] + done, piece);
                if (k <= 0) _exit(1);
                done += (size_t)k;
                if (done < 8) nanosleep(&(struct timespec){ 0, 1000000 }, NULL);   /* the magic arrives in pieces */
            }
            _exit(0);
        }
        close(fds[1]);
        stdin_auto c = { data, len, i ? INPUT_ZSTD : INPUT_GZIP };
        with_stdin(fds[0], read_stdin_auto, &c);
        int status;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    free(z[0]);
    free(z[1]);
    free(data);
}
END_TEST

/* A prefix taken from the stream earlier (a sample read from a pipe): the
 * compressed stream is whole again, however it was split. */
START_TEST(test_prefix)
{
    size_t len = 100000;
    uint8_t *data = make_text(len, 24);
    size_t zlen;
    uint8_t *z = zstd_mem(data, len, &zlen);
    const size_t splits[] = { 1, 3, 4, 100, zlen - 1 };
    for (size_t i = 0; i < sizeof splits / sizeof splits[0]; i++) {
        char path[512];
        temp_file(path, sizeof path, ".bin", z + splits[i], zlen - splits[i]);
        input_reader *r;
        ck_assert_int_eq(inl_input_open_after(&r, path, z, splits[i], NULL, NULL, 0), 0);
        ck_assert_int_eq(inl_input_compression(r), INPUT_ZSTD);
        size_t n;
        uint8_t *got = read_all(r, 7777, &n);
        ck_assert_ptr_nonnull(got);
        ck_assert_uint_eq(n, len);
        ck_assert(memcmp(got, data, len) == 0);
        ck_assert_uint_eq(inl_input_consumed(r), zlen);
        free(got);
        inl_input_close(r);
        unlink(path);
    }
    free(z);
    free(data);
}
END_TEST

/* Bytes put back come first, once; a second block waits for the first. */
START_TEST(test_unread)
{
    static const char text[] = "id,name\n1,x\n2,y\n";
    mem_src s = source(text, sizeof text - 1, READ_WHOLE);
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    input_reader *r;
    ck_assert_int_eq(inl_input_open_fn(&r, mem_read, &s, INPUT_AUTO, &a, NULL, 0), 0);
    uint8_t head[8];
    size_t have = 0;
    while (have < 8) have += (size_t)inl_input_read(r, head + have, 8 - have);   /* reads may be short */
    ck_assert_int_eq(inl_input_unread(r, head, 8), 0);
    ck_assert_int_eq(inl_input_unread(r, head, 8), INLAY_ERR_ARGUMENT);
    size_t n;
    uint8_t *got = read_all(r, 3, &n);
    ck_assert_ptr_nonnull(got);
    ck_assert_bytes(got, n, text, sizeof text - 1);
    /* also after the end */
    ck_assert_int_eq(inl_input_unread(r, "z\n", 2), 0);
    ck_assert_int_eq(inl_input_read(r, head, 8), 2);
    ck_assert_int_eq(inl_input_read(r, head, 8), 0);
    free(got);
    inl_input_close(r);
    ck_assert_no_leak(&ta);
}
END_TEST

/* A sample cut from the head of a compressed stream ends quietly where it
 * stops, once asked to (zstd decodes whole blocks of 128 KiB: the text is
 * long enough for half of it to hold some). */
START_TEST(test_allow_cut)
{
    size_t len = 2000000;
    uint8_t *data = make_text(len, 25);
    size_t zlen[2];
    uint8_t *z[2] = { gzip_mem(data, len, &zlen[0]), zstd_mem(data, len, &zlen[1]) };
    for (int i = 0; i < 2; i++) {
        mem_src s = source(z[i], zlen[i] / 2, READ_RANDOM);
        input_reader *r;
        ck_assert_int_eq(inl_input_open_fn(&r, mem_read, &s, INPUT_AUTO, NULL, NULL, 0), 0);
        inl_input_allow_cut(r);
        size_t n;
        uint8_t *got = read_all(r, 1 << 16, &n);
        ck_assert_ptr_nonnull(got);
        ck_assert_uint_gt(n, 0);
        ck_assert_uint_lt(n, len);
        ck_assert(memcmp(got, data, n) == 0);
        free(got);
        inl_input_close(r);
    }
    free(z[0]);
    free(z[1]);
    free(data);
}
END_TEST

/* Plain files are read at offsets without moving the stream; the identity
 * is the file's (also through a link). */
START_TEST(test_pread_identity)
{
    size_t len = 100000;
    uint8_t *data = make_text(len, 26);
    char path[512], link[600];
    temp_file(path, sizeof path, ".csv", data, len);
    snprintf(link, sizeof link, "%s.link", path);
    ck_assert_int_eq(symlink(path, link), 0);
    input_reader *r;
    ck_assert_int_eq(inl_input_open(&r, link, NULL, NULL, 0), 0);
    uint8_t b[100];
    size_t have = 0;
    while (have < 10) have += (size_t)inl_input_read(r, b + have, 10 - have);   /* reads may be short */
    ck_assert_int_eq(inl_input_pread(r, 5000, b, 100), 100);
    ck_assert(memcmp(b, data + 5000, 100) == 0);
    ck_assert_int_eq(inl_input_pread(r, len - 10, b, 100), 10);   /* short at the end */
    ck_assert_int_eq(inl_input_read(r, b, 10), 10);               /* the stream did not move */
    ck_assert(memcmp(b, data + 10, 10) == 0);
    uint64_t dev, ino;
    ck_assert(inl_input_identity(r, &dev, &ino));
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_uint_eq(dev, (uint64_t)st.st_dev);
    ck_assert_uint_eq(ino, (uint64_t)st.st_ino);
    inl_input_close(r);
    mem_src s = source(data, len, READ_WHOLE);
    ck_assert_int_eq(inl_input_open_fn(&r, mem_read, &s, INPUT_PLAIN, NULL, NULL, 0), 0);
    ck_assert(!inl_input_identity(r, &dev, &ino));
    ck_assert_int_eq(inl_input_pread(r, 0, b, 10), -1);
    inl_input_close(r);
    unlink(link);
    unlink(path);
    free(data);
}
END_TEST

/* ---- out of memory ---------------------------------------------------------------------------- */

START_TEST(test_nomem_open)
{
    char paths[3][512];
    temp_file(paths[0], sizeof paths[0], ".csv", "a\n", 2);
    size_t zlen;
    uint8_t *z = gzip_mem("a\n", 2, &zlen);
    temp_file(paths[1], sizeof paths[1], ".gz", z, zlen);
    free(z);
    z = zstd_mem("a\n", 2, &zlen);
    temp_file(paths[2], sizeof paths[2], ".zst", z, zlen);
    free(z);
    for (int i = 0; i < 3; i++) {
        bool done = false;
        for (unsigned long fail = 1; !done; fail++) {
            test_alloc ta = { .fail_at = fail };
            inlay_allocator a = test_allocator(&ta);
            input_reader *r;
            char err[600];
            int rc = inl_input_open(&r, paths[i], &a, err, sizeof err);
            if (rc == 0) {
                ck_assert_uint_eq(ta.refused, 0);
                done = true;
                inl_input_close(r);
            } else {
                ck_assert_int_eq(rc, INLAY_ERR_NOMEM);
                ck_assert_ptr_null(r);
                ck_assert_msg(strstr(err, "out of memory") != NULL, "%s", err);
            }
            ck_assert_no_leak(&ta);
            ck_assert_uint_lt(fail, 100);
        }
        unlink(paths[i]);
    }
}
END_TEST

START_TEST(test_nomem_read)
{
    size_t len = 2 * 1000 * 1000;
    uint8_t *data = make_text(len, 13);
    size_t zlen[2];
    uint8_t *z[2] = { gzip_mem(data, len, &zlen[0]), zstd_mem(data, len, &zlen[1]) };
    static const input_compression kinds[] = { INPUT_GZIP, INPUT_ZSTD };
    for (int i = 0; i < 2; i++) {
        bool done = false;
        for (unsigned long fail = 1; !done; fail++) {
            test_alloc ta = { .fail_at = fail, .fail_after = true };
            inlay_allocator a = test_allocator(&ta);
            mem_src s = source(z[i], zlen[i], READ_RANDOM);
            input_reader *r;
            char err[256];
            int rc = inl_input_open_fn(&r, mem_read, &s, kinds[i], &a, err, sizeof err);
            if (rc != 0) {
                ck_assert_int_eq(rc, INLAY_ERR_NOMEM);
                ck_assert_str_eq(err, "<input>: out of memory");
            } else {
                size_t n;
                uint8_t *got = read_all(r, 1 << 20, &n);
                if (got) {
                    ck_assert_uint_eq(ta.refused, 0);
                    ck_assert_uint_eq(n, len);
                    ck_assert(memcmp(got, data, len) == 0);
                    done = true;
                    free(got);
                } else {
                    ck_assert_uint_gt(ta.refused, 0);
                    ck_assert_str_eq(inl_input_errmsg(r), "<input>: out of memory");
                }
                inl_input_close(r);
            }
            ck_assert_no_leak(&ta);
            ck_assert_uint_lt(fail, 100);
        }
    }
    free(z[0]);
    free(z[1]);
    free(data);
}
END_TEST

START_TEST(test_allocator_used)
{
    /* zlib's and zstd's own memory comes from our allocator too */
    size_t len = 100000;
    uint8_t *data = make_text(len, 14);
    size_t zlen[2];
    uint8_t *z[2] = { gzip_mem(data, len, &zlen[0]), zstd_mem(data, len, &zlen[1]) };
    static const input_compression kinds[] = { INPUT_GZIP, INPUT_ZSTD };
    for (int i = 0; i < 2; i++) {
        test_alloc ta = { 0 };
        inlay_allocator a = test_allocator(&ta);
        mem_src s = source(z[i], zlen[i], READ_WHOLE);
        input_reader *r;
        ck_assert_int_eq(inl_input_open_fn(&r, mem_read, &s, kinds[i], &a, NULL, 0), 0);
        size_t n;
        uint8_t *got = read_all(r, 1 << 16, &n);
        ck_assert_ptr_nonnull(got);
        ck_assert_uint_eq(n, len);
        /* the reader, its name and buffer, and at least one block of the decoder's */
        ck_assert_uint_ge(ta.live_blocks, 4);
        ck_assert_uint_gt(ta.peak_bytes, (1u << 20) + 1000);
        free(got);
        inl_input_close(r);
        ck_assert_no_leak(&ta);
    }
    free(z[0]);
    free(z[1]);
    free(data);
}
END_TEST

/* ---- read-ahead ------------------------------------------------------------------------------- */

/* Reads r to its end through blocks and reads in turn (reads of up to
 * `piece` bytes, blocks two times in three). Each block's head room and
 * pad are written over, as a tokenizer does, and the block before stays
 * intact while the next is taken. Returns the bytes (malloc) and their
 * count, or NULL with *len the bytes before -1. */
static uint8_t *read_all_blocks(input_reader *r, size_t piece, size_t *len)
{
    size_t cap = 4u << 20, n = 0;
    uint8_t *out = malloc(cap);
    ck_assert_ptr_nonnull(out);
    uint64_t seed = 5, last = 0;
    const uint8_t *held = NULL;   /* the last block, and where its bytes went in out */
    size_t held_len = 0, held_at = 0;
    for (;;) {
        if (cap - n < (2u << 20)) {
            cap *= 2;
            out = realloc(out, cap);
            ck_assert_ptr_nonnull(out);
        }
        ptrdiff_t k;
        if (rng_next(&seed) % 3) {
            uint8_t *data;
            k = inl_input_block(r, &data);
            ck_assert_int_ne(k, INPUT_NO_BLOCK);
            if (held) ck_assert_msg(memcmp(held, out + held_at, held_len) == 0, "a block changed under its reader");
            held = NULL;
            if (k > 0) {
                memcpy(out + n, data, (size_t)k);
                memset(data - INPUT_BLOCK_HEAD, 0xA5, INPUT_BLOCK_HEAD);
                memset(data + k, 0x5A, INPUT_BLOCK_PAD);
                held = data;
                held_len = (size_t)k;
                held_at = n;
            }
        } else {
            k = inl_input_read(r, out + n, piece);
            if (held) ck_assert_msg(memcmp(held, out + held_at, held_len) == 0, "a block changed under its reader");
            held = NULL;
        }
        if (k < 0) {
            free(out);
            *len = n;
            return NULL;
        }
        const uint64_t c = inl_input_consumed(r);
        ck_assert_uint_ge(c, last);
        last = c;
        if (k == 0) break;
        n += (size_t)k;
    }
    *len = n;
    return out;
}

START_TEST(test_readahead)
{
    size_t len = 6 * 1000 * 1000 + 12345;   /* blocks of 1 MiB, and a short last one */
    uint8_t *data = make_text(len, 21);
    size_t zlen[2];
    uint8_t *z[2] = { gzip_mem(data, len, &zlen[0]), zstd_mem(data, len, &zlen[1]) };
    static const char *const ext[] = { ".gz", ".zst" };
    for (int i = 0; i < 2; i++) {
        char path[512];
        temp_file(path, sizeof path, ext[i], z[i], zlen[i]);
        static const size_t pieces[] = { 1000, 1 << 20, 3 << 20 };
        for (size_t p = 0; p < sizeof pieces / sizeof pieces[0]; p++) {
            test_alloc ta = { 0 };
            inlay_allocator a = test_allocator(&ta);
            input_reader *r;
            ck_assert_int_eq(inl_input_open(&r, path, &a, NULL, 0), 0);
            /* the first bytes before the thread starts, as a tokenizer's header */
            uint8_t head[100];
            ck_assert_int_eq(inl_input_read(r, head, sizeof head), (ptrdiff_t)sizeof head);
            ck_assert(!inl_input_reading_ahead(r));
            ck_assert_int_eq(inl_input_readahead(r), 0);
            ck_assert(inl_input_reading_ahead(r));
            ck_assert_int_eq(inl_input_readahead(r), 0);   /* once is enough */
            size_t n;
            uint8_t *got = read_all_blocks(r, pieces[p], &n);
            ck_assert_msg(got != NULL, "read failed after %zu bytes: %s", n, inl_input_errmsg(r));
            ck_assert_uint_eq(n + sizeof head, len);
            ck_assert(memcmp(head, data, sizeof head) == 0);
            ck_assert_msg(memcmp(got, data + sizeof head, n) == 0, "bytes differ (%s, pieces of %zu)", ext[i],
                          pieces[p]);
            ck_assert_uint_eq(inl_input_consumed(r), zlen[i]);
            uint8_t *b;
            ck_assert_int_eq(inl_input_block(r, &b), 0);   /* the end stays the end */
            ck_assert_int_eq(inl_input_read(r, head, sizeof head), 0);
            free(got);
            inl_input_close(r);
            ck_assert_no_leak(&ta);
        }
        unlink(path);
    }
    free(z[0]);
    free(z[1]);
    free(data);
}
END_TEST

/* Plain input and anything that is not a regular file go on as before. */
START_TEST(test_readahead_not_wanted)
{
    size_t len = 3 * 1000 * 1000;
    uint8_t *data = make_text(len, 22);
    char path[512];
    temp_file(path, sizeof path, ".csv", data, len);
    input_reader *r;
    ck_assert_int_eq(inl_input_open(&r, path, NULL, NULL, 0), 0);
    ck_assert_int_eq(inl_input_readahead(r), 0);
    ck_assert(!inl_input_reading_ahead(r));
    uint8_t *b;
    ck_assert_int_eq(inl_input_block(r, &b), INPUT_NO_BLOCK);
    size_t n;
    uint8_t *got = read_all(r, 1 << 20, &n);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(n, len);
    ck_assert(memcmp(got, data, len) == 0);
    free(got);
    inl_input_close(r);
    unlink(path);

    size_t zlen;
    uint8_t *z = gzip_mem(data, len, &zlen);
    mem_src s = source(z, zlen, READ_RANDOM);
    ck_assert_int_eq(inl_input_open_fn(&r, mem_read, &s, INPUT_GZIP, NULL, NULL, 0), 0);
    ck_assert_int_eq(inl_input_readahead(r), 0);
    ck_assert_int_eq(inl_input_block(r, &b), INPUT_NO_BLOCK);
    got = read_all(r, 1 << 20, &n);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(n, len);
    ck_assert(memcmp(got, data, len) == 0);
    free(got);
    inl_input_close(r);

    /* bytes put back come first, through reads, and then the blocks */
    temp_file(path, sizeof path, ".gz", z, zlen);
    ck_assert_int_eq(inl_input_open(&r, path, NULL, NULL, 0), 0);
    uint8_t head[64];
    ck_assert_int_eq(inl_input_read(r, head, sizeof head), (ptrdiff_t)sizeof head);
    ck_assert_int_eq(inl_input_unread(r, head, sizeof head), 0);
    ck_assert_int_eq(inl_input_readahead(r), 0);
    ck_assert(inl_input_reading_ahead(r));
    ck_assert_int_eq(inl_input_block(r, &b), INPUT_NO_BLOCK);
    got = read_all(r, 1 << 20, &n);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(n, len);
    ck_assert(memcmp(got, data, len) == 0);
    free(got);
    inl_input_close(r);
    unlink(path);
    free(z);
    free(data);
}
END_TEST

/* A truncated or corrupt file: the bytes before the fault, then the error,
 * named by the path, and it stays. */
START_TEST(test_readahead_failure)
{
    size_t len = 4 * 1000 * 1000;
    uint8_t *data = make_text(len, 23);
    size_t zlen[2];
    uint8_t *z[2] = { gzip_mem(data, len, &zlen[0]), zstd_mem(data, len, &zlen[1]) };
    z[1][zlen[1] / 2] ^= 0xFF;
    z[1][zlen[1] / 2 + 7] ^= 0x55;
    static const char *const ext[] = { ".gz", ".zst" };
    const size_t keep[] = { zlen[0] - 3, zlen[1] };
    static const char *const what[] = { "truncated gzip data", "corrupt zstd data" };
    for (int i = 0; i < 2; i++) {
        char path[512], want[600];
        temp_file(path, sizeof path, ext[i], z[i], keep[i]);
        input_reader *r;
        ck_assert_int_eq(inl_input_open(&r, path, NULL, NULL, 0), 0);
        ck_assert_int_eq(inl_input_readahead(r), 0);
        size_t n;
        ck_assert_ptr_null(read_all_blocks(r, 1 << 16, &n));
        ck_assert_uint_le(n, len);   /* a cut trailer fails after the last byte */
        snprintf(want, sizeof want, "%s: %s", path, what[i]);
        ck_assert_msg(strncmp(inl_input_errmsg(r), want, strlen(want)) == 0, "got \"%s\"", inl_input_errmsg(r));
        uint8_t *b, one[8];
        ck_assert_int_eq(inl_input_block(r, &b), -1);
        ck_assert_int_eq(inl_input_read(r, one, sizeof one), -1);
        inl_input_close(r);
        unlink(path);
    }
    free(z[0]);
    free(z[1]);
    free(data);
}
END_TEST

/* len bytes of make_text(seed) in *data, zstd-compressed into a new
 * temporary file at path (".zst"); returns the file's size. */
static size_t zstd_text_file(char *path, size_t cap, size_t len, uint64_t seed, uint8_t **data)
{
    *data = make_text(len, seed);
    size_t zlen;
    uint8_t *z = zstd_mem(*data, len, &zlen);
    temp_file(path, cap, ".zst", z, zlen);
    free(z);
    return zlen;
}

/* Closed while the thread reads ahead, or waits for a block to fill:
 * prompt, and nothing left behind. */
START_TEST(test_readahead_close)
{
    uint8_t *data;
    char path[512];
    zstd_text_file(path, sizeof path, 8 * 1000 * 1000, 24, &data);
    for (int taken = 0; taken < 4; taken++) {
        test_alloc ta = { 0 };
        inlay_allocator a = test_allocator(&ta);
        input_reader *r;
        ck_assert_int_eq(inl_input_open(&r, path, &a, NULL, 0), 0);
        ck_assert_int_eq(inl_input_readahead(r), 0);
        for (int k = 0; k < taken; k++) {
            uint8_t *b;
            ck_assert_int_gt(inl_input_block(r, &b), 0);
        }
        if (taken == 3) {   /* the ring full: the thread waits for a block */
            struct timespec pause = { 0, 100 * 1000 * 1000 };
            nanosleep(&pause, NULL);
        }
        inl_input_close(r);
        ck_assert_no_leak(&ta);
    }
    unlink(path);
    free(data);
}
END_TEST

/* Every allocation refused in turn: the read-ahead not started (reads go
 * on without it) or the thread's decoder out of memory (an error), never a
 * leak. */
START_TEST(test_readahead_nomem)
{
    const size_t len = 3 * 1000 * 1000;
    uint8_t *data;
    char path[512];
    zstd_text_file(path, sizeof path, len, 25, &data);
    bool done = false;
    int without = 0;
    for (unsigned long fail = 1; !done; fail++) {
        test_alloc ta = { .fail_at = fail };
        inlay_allocator a = test_allocator(&ta);
        input_reader *r;
        int rc = inl_input_open(&r, path, &a, NULL, 0);
        if (rc != 0) {
            ck_assert_int_eq(rc, INLAY_ERR_NOMEM);
        } else {
            rc = inl_input_readahead(r);
            uint8_t *b;
            if (rc != 0) {
                ck_assert_int_eq(rc, INLAY_ERR_NOMEM);
                ck_assert_int_eq(inl_input_block(r, &b), INPUT_NO_BLOCK);
                without++;
            }
            size_t n;
            uint8_t *got = rc == 0 ? read_all_blocks(r, 1 << 20, &n) : read_all(r, 1 << 20, &n);
            if (got) {
                ck_assert_uint_eq(n, len);
                ck_assert(memcmp(got, data, len) == 0);
                done = ta.refused == 0;
                free(got);
            } else {
                ck_assert_uint_gt(ta.refused, 0);
                ck_assert_msg(strstr(inl_input_errmsg(r), "out of memory") != NULL, "got \"%s\"",
                              inl_input_errmsg(r));
            }
            inl_input_close(r);
        }
        ck_assert_no_leak(&ta);
        ck_assert_uint_lt(fail, 100);
    }
    ck_assert_int_gt(without, 0);
    unlink(path);
    free(data);
}
END_TEST

static Suite *input_suite(void)
{
    Suite *s = suite_create("input");
    TCase *c = tcase_create("plain files and callbacks");
    tcase_set_timeout(c, 60);
    tcase_add_test(c, test_plain_file);
    tcase_add_test(c, test_plain_empty_file);
    tcase_add_test(c, test_plain_callback);
    tcase_add_test(c, test_callback_error);
    suite_add_tcase(s, c);

    c = tcase_create("stdin");
    tcase_add_test(c, test_stdin_pipe);
    tcase_add_test(c, test_stdin_file);
    suite_add_tcase(s, c);

    c = tcase_create("open errors");
    tcase_add_test(c, test_open_missing);
    tcase_add_test(c, test_open_directory);
    tcase_add_test(c, test_open_arguments);
    suite_add_tcase(s, c);

    c = tcase_create("gzip");
    tcase_set_timeout(c, 60);
    tcase_add_test(c, test_gzip_callback);
    tcase_add_test(c, test_gzip_members);
    tcase_add_test(c, test_gzip_file_gzwrite);
    tcase_add_test(c, test_gzip_progress);
    suite_add_tcase(s, c);

    c = tcase_create("gzip errors");
    tcase_add_test(c, test_gzip_truncated);
    tcase_add_test(c, test_gzip_corrupt);
    suite_add_tcase(s, c);

    c = tcase_create("zstd");
    tcase_set_timeout(c, 60);
    tcase_add_test(c, test_zstd_callback);
    tcase_add_test(c, test_zstd_frames);
    suite_add_tcase(s, c);

    c = tcase_create("zstd errors");
    tcase_add_test(c, test_zstd_truncated);
    tcase_add_test(c, test_zstd_corrupt);
    suite_add_tcase(s, c);

    c = tcase_create("damage whatever the read sizes");
    tcase_set_timeout(c, 120);
    tcase_add_test(c, test_gzip_damage_read_sizes);
    tcase_add_test(c, test_zstd_damage_read_sizes);
    suite_add_tcase(s, c);

    c = tcase_create("compression by content");
    tcase_set_timeout(c, 60);
    tcase_add_test(c, test_auto_callback);
    tcase_add_test(c, test_auto_file);
    tcase_add_test(c, test_auto_stdin_pipe);
    tcase_add_test(c, test_prefix);
    tcase_add_test(c, test_unread);
    tcase_add_test(c, test_allow_cut);
    tcase_add_test(c, test_pread_identity);
    suite_add_tcase(s, c);

    c = tcase_create("read-ahead");
    tcase_set_timeout(c, 120);
    tcase_add_test(c, test_readahead);
    tcase_add_test(c, test_readahead_not_wanted);
    tcase_add_test(c, test_readahead_failure);
    tcase_add_test(c, test_readahead_close);
    tcase_add_test(c, test_readahead_nomem);
    suite_add_tcase(s, c);

    c = tcase_create("out of memory");
    tcase_set_timeout(c, 120);
    tcase_add_test(c, test_nomem_open);
    tcase_add_test(c, test_nomem_read);
    tcase_add_test(c, test_allocator_used);
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(input_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
