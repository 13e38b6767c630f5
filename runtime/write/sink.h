/*
 * sink.h — the sinks the library provides besides the memory sink
 * (inlay_buffer_sink, in the public header):
 *
 *  - the file sink: bytes go to a temporary file beside the target, which
 *    finish() syncs, renames into place and makes durable (the folder is
 *    synced too), and abort() removes. The temporary is flock()ed for as
 *    long as it is ours, so that the next writer of the same target can
 *    tell a crashed writer's leftover (unlocked) from a live one's.
 *  - the descriptor sink: bytes go straight to a file descriptor the host
 *    owns, front to back (no seek), for pipes and standard output.
 *
 * The sink interface returns only -1 on failure; each sink here keeps what
 * it was doing and errno instead, and the writer asks it for a message
 * ("writing 'out.parquet': No space left on device"), so a full disk and a
 * refused permission do not read the same.
 */
#ifndef INLAY_SINK_H
#define INLAY_SINK_H

#include <stdbool.h>

#include "alloc.h"

/* What a file or descriptor sink was doing when it failed. */
typedef enum sink_op {
    SINK_OP_NONE = 0,
    SINK_OP_WRITE,       /* write() */
    SINK_OP_SYNC,        /* fsync() of the file */
    SINK_OP_CLOSE,       /* close() of the file */
    SINK_OP_RENAME,      /* rename() into place */
    SINK_OP_SYNC_DIR,    /* fsync() of the folder, after the rename */
} sink_op;

typedef struct file_sink {
    int fd;              /* the temporary file, flock()ed while it is ours */
    bool sync;           /* fsync the file before the rename and the folder after */
    char *path;          /* the target */
    char *tmp;           /* the temporary file: "<dir>/.<name>.XXXXXX.tmp" */
    size_t tmp_size;     /* bytes allocated for tmp */
    char *dir;           /* the target's folder ("." for a bare name) */
    const char *base;    /* the target's name in it (points into path) */
    const inlay_allocator *alloc;
    sink_op op;          /* the failure, with errno in err */
    int err;
} file_sink;

typedef struct fd_sink {
    int fd;              /* the host's: never closed here */
    bool sync;           /* fsync at finish, when fd is a regular file */
    bool regular;        /* fd is a regular file */
    bool pipe;           /* fd is a FIFO or socket: writes keep SIGPIPE from the process */
    uint8_t tail[4];     /* the last bytes written (see fd_abort) */
    uint64_t written;
    sink_op op;
    int err;
} fd_sink;

/* Refuse a target that exists and is not a regular file (a folder, a
 * device, a FIFO, or a symlink to one), then create and lock the temporary
 * file. Returns 0, or INLAY_ERR_IO / INLAY_ERR_NOMEM with a message in err
 * (nothing is left behind). */
int inl_file_sink_open(file_sink *f, const inlay_allocator *a, const char *path, bool sync, char *err,
                       size_t errcap);
inlay_sink inl_file_sink_interface(file_sink *f);
/* Remove the temporaries of the same target that crashed or killed writers
 * left: those matching ".<name>.XXXXXX.tmp" (6 lowercase hex digits; or
 * "<name>.XXXXXX.tmp", as earlier versions named them) that nobody holds a
 * lock on. Best effort: never fails, and never touches a
 * live writer's temporary (ours included). */
void inl_file_sink_remove_stale(file_sink *f);
/* The same for one entry `name` of the folder open as dfd: whether it is
 * a temporary of target[0..target_len) (a name in that folder), removed
 * when nobody holds its lock. */
bool inl_file_sink_remove_if_stale(int dfd, const char *name, const char *target, size_t target_len);
/* Release the names (after finish or abort). */
void inl_file_sink_release(file_sink *f);
/* The last failure: "writing 'out.parquet': No space left on device". */
void inl_file_sink_message(const file_sink *f, char *out, size_t cap);

/* Check that fd is open for writing and see what it is. Returns 0, or
 * INLAY_ERR_ARGUMENT / INLAY_ERR_IO with a message in err. */
int inl_fd_sink_open(fd_sink *f, int fd, bool sync, char *err, size_t errcap);
inlay_sink inl_fd_sink_interface(fd_sink *f);
void inl_fd_sink_message(const fd_sink *f, char *out, size_t cap);

/* strerror(err) into out, safe for distinct writers in distinct threads. */
const char *inl_sys_reason(int err, char *out, size_t cap);

#endif
