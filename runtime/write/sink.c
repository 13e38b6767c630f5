/*
 * sink.c — the file sink (temp file + rename) and the memory sink.
 */
#define _POSIX_C_SOURCE 200809L
#include "sink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- file ------------------------------------------------------------- */

static int file_write(void *ctx, const void *data, size_t len)
{
    file_sink *f = ctx;
    const uint8_t *p = data;
    while (len) {
        ssize_t n = write(f->fd, p, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int file_finish(void *ctx)
{
    file_sink *f = ctx;
    int rc = close(f->fd);
    f->fd = -1;
    if (rc == 0) rc = rename(f->tmp, f->path);
    if (rc != 0) unlink(f->tmp);
    return rc;
}

static void file_abort(void *ctx)
{
    file_sink *f = ctx;
    if (f->fd >= 0) close(f->fd);
    f->fd = -1;
    if (f->tmp) unlink(f->tmp);
}

int inl_file_sink_open(file_sink *f, const inlay_allocator *a, const char *path, char *err, size_t errcap)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    f->alloc = a;
    size_t n = strlen(path) + 32;
    f->tmp_size = n;
    f->path = inl_mem_strdup(a, path);
    f->tmp = inl_mem_alloc(a, n);
    if (!f->path || !f->tmp) {
        inl_file_sink_release(f);
        snprintf(err, errcap, "out of memory");
        return INLAY_ERR_NOMEM;
    }
    /* A name in the same folder, so the final rename is atomic. */
    unsigned long seed = (unsigned long)getpid() * 2654435761u ^ (unsigned long)time(NULL) ^
                         (unsigned long)(uintptr_t)f;
    for (int attempt = 0; attempt < 100; attempt++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        snprintf(f->tmp, n, "%s.%06lx.tmp", path, (seed >> 20) & 0xffffff);
        f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (f->fd >= 0) return 0;
        if (errno != EEXIST) break;
    }
    snprintf(err, errcap, "cannot create '%s': %s", f->tmp, strerror(errno));
    inl_file_sink_release(f);
    return INLAY_ERR_IO;
}

inlay_sink inl_file_sink_interface(file_sink *f)
{
    inlay_sink s = { file_write, file_finish, file_abort, f };
    return s;
}

void inl_file_sink_release(file_sink *f)
{
    inl_mem_strfree(f->alloc, f->path);
    if (f->tmp) inl_mem_free(f->alloc, f->tmp, f->tmp_size);
    f->path = f->tmp = NULL;
}

/* ---- memory ----------------------------------------------------------- */

void inlay_buffer_init(inlay_buffer *b, const inlay_allocator *alloc)
{
    memset(b, 0, sizeof *b);
    b->alloc = inl_mem_or_default(alloc);
}

void inlay_buffer_free(inlay_buffer *b)
{
    if (!b) return;
    inl_mem_free(&b->alloc, b->data, b->cap);
    b->data = NULL;
    b->len = b->cap = 0;
}

static int buffer_write(void *ctx, const void *data, size_t len)
{
    inlay_buffer *b = ctx;
    buf tmp = { b->data, b->len, b->cap };
    if (inl_buf_append(&tmp, &b->alloc, data, len)) return -1;
    b->data = tmp.data;
    b->len = tmp.len;
    b->cap = tmp.cap;
    return 0;
}

static int buffer_finish(void *ctx) { (void)ctx; return 0; }
static void buffer_abort(void *ctx) { (void)ctx; }

inlay_sink inlay_buffer_sink(inlay_buffer *b)
{
    inlay_sink s = { buffer_write, buffer_finish, buffer_abort, b };
    return s;
}
