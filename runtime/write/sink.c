/*
 * sink.c — the file sink (a locked temporary file, synced and renamed into
 * place on finish), the descriptor sink, and the memory sink.
 *
 * Publishing a file is done as SQLite commits:
 *
 *     fsync(tmp)   rename(tmp, target)   fsync(folder)
 *
 * so that a successful close means the file survives a crash or a power
 * loss. Without the first fsync the rename may reach the disk before the
 * data (the right name over garbage or zeros); without the last, the rename
 * itself may be lost. inlay_options.sync = false leaves both to hosts that
 * batch their own syncs.
 *
 * Stale temporaries: a writer killed before its close leaves its temporary
 * behind. Each writer holds flock(LOCK_EX) on its own from creation until
 * the rename or the unlink, and the kernel drops a lock when its process
 * dies; so a temporary of our naming pattern whose lock can be taken is
 * nobody's and may go. A new temporary is locked right after its O_EXCL
 * creation; a cleaner may take the lock in between and unlink the file, so
 * the creator then checks that its file still has a name (st_nlink) and
 * tries another name if not.
 */
#define _POSIX_C_SOURCE 200809L
#include "sink.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "error.h"

const char *inl_sys_reason(int err, char *out, size_t cap)
{
    if (strerror_r(err, out, cap) != 0) snprintf(out, cap, "error %d", err);
    return out;
}

/* Write all of p[0..len); *done counts what went out, a failure included.
 * A descriptor the host made non-blocking is waited on rather than failed. */
static int write_all(int fd, const uint8_t *p, size_t len, size_t *done)
{
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                struct pollfd pf = { .fd = fd, .events = POLLOUT };
                if (poll(&pf, 1, -1) >= 0 || errno == EINTR) continue;
            }
            return -1;
        }
        if (n == 0) {   /* no progress and no reason: do not spin */
            errno = EIO;
            return -1;
        }
        p += n;
        len -= (size_t)n;
        *done += (size_t)n;
    }
    return 0;
}

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISSOCK(m) ? "a socket"
                         : "a special file";
}

/* ---- file ------------------------------------------------------------- */

static int file_write(void *ctx, const void *data, size_t len)
{
    file_sink *f = ctx;
    size_t done = 0;
    if (write_all(f->fd, data, len, &done) == 0) return 0;
    f->op = SINK_OP_WRITE;
    f->err = errno;
    return -1;
}

/* After the rename the new name lives in the folder, which must reach the
 * disk too. A file system that cannot sync a folder says EINVAL (or
 * ENOTSUP, EBADF), and a folder we may not read cannot be opened to sync:
 * those pass, as in SQLite; an I/O error does not. */
static int sync_dir(const file_sink *f)
{
    int d = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d < 0) return 0;
    int rc = fsync(d);
    int e = errno;
    close(d);
    if (rc != 0 && (e == EINVAL || e == ENOTSUP || e == EOPNOTSUPP || e == EBADF)) rc = 0;
    errno = e;
    return rc;
}

static int file_finish(void *ctx)
{
    file_sink *f = ctx;
    sink_op failed = SINK_OP_NONE;
    if (f->sync && fsync(f->fd) != 0) failed = SINK_OP_SYNC;
    if (!failed) {
        /* close() is where some file systems (NFS) report writes they
         * deferred, so its result counts; a duplicate of the descriptor
         * keeps the lock (it belongs to the open file, not the descriptor)
         * until the rename, so no cleaner takes the finished file for a
         * dead writer's. Without one (no descriptor left), the rename
         * follows unlocked. */
        int keep = fcntl(f->fd, F_DUPFD_CLOEXEC, 0);
        int fd = f->fd;
        f->fd = keep;
        if (close(fd) != 0 && errno != EINTR) failed = SINK_OP_CLOSE;
    }
    /* The target may be a symlink: rename() replaces the link itself and
     * leaves the file it pointed to alone, as most tools that save
     * atomically do. */
    if (!failed && rename(f->tmp, f->path) != 0) failed = SINK_OP_RENAME;
    if (failed) {
        f->op = failed;
        f->err = errno;
        unlink(f->tmp);   /* while still locked */
    }
    if (f->fd >= 0) close(f->fd);
    f->fd = -1;
    if (failed) return -1;
    if (f->sync && sync_dir(f) != 0) {   /* the file is in place; the message says so */
        f->op = SINK_OP_SYNC_DIR;
        f->err = errno;
        return -1;
    }
    return 0;
}

static void file_abort(void *ctx)
{
    file_sink *f = ctx;
    if (f->tmp) unlink(f->tmp);   /* before the close, while still locked */
    if (f->fd >= 0) close(f->fd);
    f->fd = -1;
}

/* Lock a temporary just created. False when a cleaner took it between our
 * open and our lock (it is gone or going): the caller tries another name.
 * A file system without flock fails alike for every process, so nobody can
 * take such a file for stale either, and it is used unlocked. */
static bool lock_new(int fd)
{
    int rc;
    while ((rc = flock(fd, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR) {}
    if (rc != 0) return errno != EWOULDBLOCK;
    struct stat st;
    return fstat(fd, &st) != 0 || st.st_nlink > 0;
}

#ifndef NAME_MAX
#define NAME_MAX 255
#endif
enum { TEMP_EXTRA = 12 };   /* ".", ".XXXXXX" and ".tmp" around the target's name */

/* How much of a target's name (base, blen bytes, at most NAME_MAX) its
 * temporary's carries: all of it, unless the temporary's name would pass
 * the longest a folder takes: then as many bytes as fit, cut before a
 * UTF-8 sequence rather than inside one (a name that is not UTF-8 is cut
 * where it fits). */
static size_t temp_keep(const char *base, size_t blen)
{
    if (blen + TEMP_EXTRA <= NAME_MAX) return blen;
    const size_t k = NAME_MAX - TEMP_EXTRA;
    if (((unsigned char)base[k] & 0xC0) != 0x80) return k;
    for (size_t d = 1; d <= 3; d++)   /* the lead byte of the sequence base[k] continues */
        if (((unsigned char)base[k - d] & 0xC0) != 0x80) return k - d;
    return k;
}

int inl_file_sink_open(file_sink *f, const inlay_allocator *a, const char *path, bool sync, char *err,
                       size_t errcap)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    f->alloc = a;
    f->sync = sync;
    /* Refused now rather than found at the rename, after all the work: a
     * folder cannot be replaced by a file, and writing "to" /dev/stdout or
     * a FIFO through a temporary and a rename would replace the device node
     * itself. stat() follows symlinks, so a link to one is refused too. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) return inl_err_format(err, errcap, INLAY_ERR_IO, "'%s' is a directory", path);
        return inl_err_format(err, errcap, INLAY_ERR_IO, "'%s' is not a regular file (%s)", path,
                              kind_of(st.st_mode));
    }
    const char *slash = strrchr(path, '/');
    const size_t dlen = !slash ? 1 : slash == path ? 1 : (size_t)(slash - path);
    size_t n = strlen(path) + 32;
    f->tmp_size = n;
    f->path = inl_mem_strdup(a, path);
    f->tmp = inl_mem_alloc(a, n);
    f->dir = inl_mem_alloc(a, dlen + 1);
    if (f->dir) {   /* a string at once: release frees it by its length */
        memcpy(f->dir, slash ? path : ".", dlen);
        f->dir[dlen] = 0;
    }
    if (!f->path || !f->tmp || !f->dir) {
        inl_file_sink_release(f);
        return inl_err_format(err, errcap, INLAY_ERR_NOMEM, "out of memory");
    }
    f->base = f->path + (slash ? (size_t)(slash - path) + 1 : 0);
    if (strlen(f->base) > NAME_MAX) {   /* no folder takes it: refused now, not at the rename */
        char why[128];
        inl_err_format(err, errcap, INLAY_ERR_IO, "cannot create '%s': %s", path,
                       inl_sys_reason(ENAMETOOLONG, why, sizeof why));
        inl_file_sink_release(f);
        return INLAY_ERR_IO;
    }
    /* A name in the same folder, so the final rename is atomic; hidden (a
     * leading dot), so that a reader listing the folder (Spark, Trino,
     * Hadoop's input formats skip names that start with '.' or '_') never
     * takes a killed writer's leftover, or a live one's, for data. */
    const int dir_len = (int)(f->base - f->path);
    const int keep = (int)temp_keep(f->base, strlen(f->base));
    unsigned long seed = (unsigned long)getpid() * 2654435761u ^ (unsigned long)time(NULL) ^
                         (unsigned long)(uintptr_t)f;
    for (int attempt = 0; attempt < 100; attempt++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        snprintf(f->tmp, n, "%.*s.%.*s.%06lx.tmp", dir_len, path, keep, f->base, (seed >> 20) & 0xffffff);
        int fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0) {
            if (errno == EEXIST) continue;
            break;
        }
        if (lock_new(fd)) {
            f->fd = fd;
            return 0;
        }
        close(fd);
        errno = EEXIST;
    }
    char why[128];
    inl_err_format(err, errcap, INLAY_ERR_IO, "cannot create '%s': %s", f->tmp, inl_sys_reason(errno, why, sizeof why));
    inl_file_sink_release(f);
    return INLAY_ERR_IO;
}

/* "<base>.XXXXXX.tmp" with six lowercase hex digits. */
static bool temp_of(const char *name, const char *base, size_t blen)
{
    if (strncmp(name, base, blen) != 0 || name[blen] != '.') return false;
    const char *p = name + blen + 1;
    for (int i = 0; i < 6; i++)
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f'))) return false;
    return strcmp(p + 6, ".tmp") == 0;
}

/* ".<base>.XXXXXX.tmp", the one name inl_file_sink_open makes (base cut
 * as temp_keep says), or the same without the dot, the name earlier
 * versions made. Nothing else of the folder is ever touched -- except that
 * two targets of more than 243 bytes whose first 243 are the same take
 * each other's leftovers for their own (removed only when no writer holds
 * them, as always). */
static bool stale_name(const char *name, const char *base, size_t blen)
{
    return (name[0] == '.' && temp_of(name + 1, base, temp_keep(base, blen))) || temp_of(name, base, blen);
}

static void remove_if_unlocked(int dfd, const char *name)
{
    /* O_NONBLOCK: a FIFO of that name must not hang the open */
    int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return;
    struct stat st, now;
    /* Locked: nobody else holds it, so its writer is gone. The name must
     * still be that file when it goes. */
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
        fstatat(dfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == st.st_dev && now.st_ino == st.st_ino)
        unlinkat(dfd, name, 0);
    close(fd);
}

bool inl_file_sink_remove_if_stale(int dfd, const char *name, const char *target, size_t target_len)
{
    if (!stale_name(name, target, target_len)) return false;
    remove_if_unlocked(dfd, name);
    return true;
}

void inl_file_sink_remove_stale(file_sink *f)
{
    if (!f->base || !*f->base) return;
    /* opendir's buffer comes from the C library's malloc, not the host's
     * allocator: POSIX has no other way to list a folder, and it lives only
     * for this loop. The cost is one pass over the folder per open. */
    DIR *d = opendir(f->dir);
    if (!d) return;
    const int dfd = dirfd(d);
    const size_t blen = strlen(f->base);
    struct dirent *e;
    while ((e = readdir(d)))
        if (stale_name(e->d_name, f->base, blen)) remove_if_unlocked(dfd, e->d_name);
    closedir(d);
}

inlay_sink inl_file_sink_interface(file_sink *f)
{
    inlay_sink s = { file_write, file_finish, file_abort, f };
    return s;
}

void inl_file_sink_release(file_sink *f)
{
    inl_mem_strfree(f->alloc, f->path);
    inl_mem_strfree(f->alloc, f->dir);
    if (f->tmp) inl_mem_free(f->alloc, f->tmp, f->tmp_size);
    f->path = f->tmp = f->dir = NULL;
    f->base = NULL;
}

void inl_file_sink_message(const file_sink *f, char *out, size_t cap)
{
    char why[128];
    const char *p = f->path ? f->path : "";
    inl_sys_reason(f->err, why, sizeof why);
    switch (f->op) {
    case SINK_OP_WRITE: snprintf(out, cap, "writing '%s': %s", p, why); break;
    case SINK_OP_SYNC: snprintf(out, cap, "syncing '%s' to disk: %s", p, why); break;
    case SINK_OP_CLOSE: snprintf(out, cap, "closing '%s': %s", p, why); break;
    case SINK_OP_RENAME: snprintf(out, cap, "renaming the temporary file to '%s': %s", p, why); break;
    case SINK_OP_SYNC_DIR:
        snprintf(out, cap, "'%s' is in place, but syncing its folder to disk failed (it may not survive a crash): %s",
                 p, why);
        break;
    default: snprintf(out, cap, "writing '%s' failed", p); break;
    }
}

/* ---- file descriptor -------------------------------------------------- */

/* A write to a pipe whose reader is gone raises SIGPIPE, which ends the
 * process unless the host handles it; a library reports EPIPE instead. As
 * libpq does: block SIGPIPE in this thread around the write, consume the
 * one the write raised (unless one was pending already, which is the
 * host's), and restore the mask. */
typedef struct pipe_guard {
    sigset_t old;
    bool on, pending;
} pipe_guard;

static void guard_pipe(pipe_guard *g)
{
    sigset_t block, pend;
    sigemptyset(&block);
    sigaddset(&block, SIGPIPE);
    g->on = pthread_sigmask(SIG_BLOCK, &block, &g->old) == 0;
    g->pending = g->on && sigismember(&g->old, SIGPIPE) && sigpending(&pend) == 0 && sigismember(&pend, SIGPIPE);
}

static void unguard_pipe(pipe_guard *g, bool epipe)
{
    if (!g->on) return;
    const int e = errno;
    sigset_t pend;
    if (epipe && !g->pending && sigpending(&pend) == 0 && sigismember(&pend, SIGPIPE)) {
        sigset_t block;
        sigemptyset(&block);
        sigaddset(&block, SIGPIPE);
        const struct timespec now = { 0, 0 };
        sigtimedwait(&block, NULL, &now);
    }
    pthread_sigmask(SIG_SETMASK, &g->old, NULL);
    errno = e;
}

static int fd_put(fd_sink *f, const uint8_t *p, size_t len)
{
    pipe_guard g;
    if (f->pipe) guard_pipe(&g);
    size_t done = 0;
    int rc = write_all(f->fd, p, len, &done);
    if (f->pipe) unguard_pipe(&g, rc != 0 && errno == EPIPE);
    /* the last four bytes out, for fd_abort */
    if (done >= 4) {
        memcpy(f->tail, p + done - 4, 4);
    } else if (done) {
        memmove(f->tail, f->tail + done, 4 - done);
        memcpy(f->tail + 4 - done, p, done);
    }
    f->written += done;
    return rc;
}

static int fd_write(void *ctx, const void *data, size_t len)
{
    fd_sink *f = ctx;
    if (fd_put(f, data, len) == 0) return 0;
    f->op = SINK_OP_WRITE;
    f->err = errno;
    return -1;
}

static int fd_finish(void *ctx)
{
    fd_sink *f = ctx;
    /* Only a regular file has anything to sync; a pipe or a terminal has
     * not (fsync says EINVAL there). */
    if (f->sync && f->regular && fsync(f->fd) != 0) {
        f->op = SINK_OP_SYNC;
        f->err = errno;
        return -1;
    }
    return 0;
}

/* The stream ends here, without a footer, so that no reader takes it for a
 * file. Should what went out end in "PAR1" all the same (only the header
 * was written, or a page happened to end so), one more byte makes sure it
 * does not. */
static void fd_abort(void *ctx)
{
    fd_sink *f = ctx;
    if (f->written >= 4 && memcmp(f->tail, "PAR1", 4) == 0) {
        const uint8_t zero = 0;
        fd_put(f, &zero, 1);
    }
}

int inl_fd_sink_open(fd_sink *f, int fd, bool sync, char *err, size_t errcap)
{
    memset(f, 0, sizeof *f);
    f->fd = fd;
    f->sync = sync;
    char why[128];
    if (fd < 0) return inl_err_format(err, errcap, INLAY_ERR_ARGUMENT, "%d is not a file descriptor", fd);
    int flags = fcntl(fd, F_GETFL);
    struct stat st;
    if (flags < 0 || fstat(fd, &st) != 0)
        return inl_err_format(err, errcap, INLAY_ERR_IO, "file descriptor %d: %s", fd,
                              inl_sys_reason(errno, why, sizeof why));
    if ((flags & O_ACCMODE) == O_RDONLY)
        return inl_err_format(err, errcap, INLAY_ERR_IO, "file descriptor %d is not open for writing", fd);
    f->regular = S_ISREG(st.st_mode);
    f->pipe = S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
    return 0;
}

inlay_sink inl_fd_sink_interface(fd_sink *f)
{
    inlay_sink s = { fd_write, fd_finish, fd_abort, f };
    return s;
}

void inl_fd_sink_message(const fd_sink *f, char *out, size_t cap)
{
    char why[128];
    inl_sys_reason(f->err, why, sizeof why);
    if (f->op == SINK_OP_SYNC) snprintf(out, cap, "syncing the stream to disk: %s", why);
    else snprintf(out, cap, "writing the stream: %s", why);
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
    /* grown, not reserved: the public inlay_buffer has nowhere to keep how
     * far its pages were mapped ahead (alloc.h), so it is not done */
    buf tmp = { b->data, b->len, b->cap, 0 };
    if (len > SIZE_MAX - tmp.len || inl_buf_grow(&tmp, &b->alloc, tmp.len + len)) {
        errno = ENOMEM;   /* the writer's message says why (see inlay_sink) */
        return -1;
    }
    if (len) memcpy(tmp.data + tmp.len, data, len);
    b->data = tmp.data;
    b->len = tmp.len + len;
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
