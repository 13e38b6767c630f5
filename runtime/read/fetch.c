/*
 * fetch.c — byte ranges from a descriptor, memory or a host stream (see
 * fetch.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "fetch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static int io_error(inl_err *err, const char *name, const char *doing, int e)
{
    char why[128];
    if (strerror_r(e, why, sizeof why) != 0) snprintf(why, sizeof why, "error %d", e);
    return inl_err_set(err, INLAY_ERR_IO, "%s '%s': %s", doing, name, why);
}

int inl_fetch_open_file(fetch *f, const char *path, inl_err *err)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    f->name = path;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return io_error(err, path, "opening", errno);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return io_error(err, path, "reading", e);
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return inl_err_set(err, INLAY_ERR_IO, "reading '%s': %s", path,
                           S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
    }
    f->kind = FETCH_FD;
    f->fd = fd;
    f->size = (uint64_t)st.st_size;
    return INLAY_OK;
}

void inl_fetch_open_memory(fetch *f, const void *data, size_t len)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    f->kind = FETCH_MEMORY;
    f->mem = data;
    f->size = len;
    f->name = "memory";
}

int inl_fetch_open_stream(fetch *f, inlay_read_stream s, inl_err *err)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    f->kind = FETCH_STREAM;
    f->stream = s;
    f->name = "stream";
    if (!s.read || !s.seek) return inl_err_set(err, INLAY_ERR_ARGUMENT, "a stream needs read and seek");
    int64_t end = s.seek(s.ctx, 0, SEEK_END);
    if (end < 0) return inl_err_set(err, INLAY_ERR_IO, "seeking to the end of the stream failed");
    f->size = (uint64_t)end;
    return INLAY_OK;
}

void inl_fetch_close(fetch *f)
{
    if (f->kind == FETCH_FD && f->fd >= 0) close(f->fd);
    if (f->kind == FETCH_STREAM && f->stream.close) f->stream.close(f->stream.ctx);
    f->fd = -1;
    f->stream.close = NULL;
}

static int read_fd(fetch *f, uint64_t off, uint8_t *dst, size_t len, inl_err *err)
{
    while (len) {
        ssize_t n = pread(f->fd, dst, len, (off_t)off);
        if (n < 0) {
            if (errno == EINTR) continue;
            return io_error(err, f->name, "reading", errno);
        }
        if (n == 0) return inl_err_set(err, INLAY_ERR_FORMAT, "'%s' ends early (did it shrink?)", f->name);
        dst += n;
        off += (uint64_t)n;
        len -= (size_t)n;
    }
    return INLAY_OK;
}

static int read_stream(fetch *f, uint64_t off, uint8_t *dst, size_t len, inl_err *err)
{
    if (f->stream.seek(f->stream.ctx, (int64_t)off, SEEK_SET) != (int64_t)off)
        return inl_err_set(err, INLAY_ERR_IO, "seeking in the stream failed");
    while (len) {
        int64_t n = f->stream.read(f->stream.ctx, dst, len);
        if (n < 0 || (uint64_t)n > len) return inl_err_set(err, INLAY_ERR_IO, "reading the stream failed");
        if (n == 0) return inl_err_set(err, INLAY_ERR_FORMAT, "the stream ends early");
        dst += n;
        len -= (size_t)n;
    }
    return INLAY_OK;
}

const uint8_t *inl_fetch_range(fetch *f, uint64_t off, size_t len, buf *scratch, const inlay_allocator *a,
                               inl_err *err, const char *what, int *status)
{
    if (off > f->size || len > f->size - off) {
        *status = inl_err_set(err, INLAY_ERR_FORMAT, "%s: bytes %llu..%llu are past the end of the file (%llu bytes)",
                              what, (unsigned long long)off, (unsigned long long)(off + len),
                              (unsigned long long)f->size);
        return NULL;
    }
    if (f->kind == FETCH_MEMORY) return f->mem + off;
    scratch->len = 0;
    if (inl_buf_reserve(scratch, a, len)) {
        *status = inl_err_set(err, INLAY_ERR_NOMEM, "%s: out of memory", what);
        return NULL;
    }
    int rc = f->kind == FETCH_FD ? read_fd(f, off, scratch->data, len, err)
                                 : read_stream(f, off, scratch->data, len, err);
    if (rc) {
        inl_err_append(err, " (%s)", what);
        *status = rc;
        return NULL;
    }
    scratch->len = len;
    return scratch->data;
}
