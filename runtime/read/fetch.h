/*
 * fetch.h — byte ranges of the file being read, from wherever it is: a
 * descriptor (pread), memory (no copy), or a host's read/seek pair.
 *
 * A range is fetched whole, into a caller's buffer or, for memory, as a
 * pointer into it; asking for bytes past the end is INLAY_ERR_FORMAT (the
 * file is shorter than its footer says), a failing read INLAY_ERR_IO with
 * the system's reason.
 */
#ifndef INLAY_FETCH_H
#define INLAY_FETCH_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc.h"
#include "error.h"

typedef enum fetch_kind { FETCH_FD, FETCH_MEMORY, FETCH_STREAM } fetch_kind;

typedef struct fetch {
    fetch_kind kind;
    uint64_t size;
    int fd;                    /* FETCH_FD, owned */
    const uint8_t *mem;        /* FETCH_MEMORY, the host's */
    inlay_read_stream stream;  /* FETCH_STREAM */
    const char *name;          /* for messages */
} fetch;

/* Open a file read-only and learn its size. INLAY_ERR_IO on failure
 * (a folder or other non-regular file too), message in err. */
int inl_fetch_open_file(fetch *f, const char *path, inl_err *err);
void inl_fetch_open_memory(fetch *f, const void *data, size_t len);
/* Learns the stream's size by seeking to its end. */
int inl_fetch_open_stream(fetch *f, inlay_read_stream s, inl_err *err);
void inl_fetch_close(fetch *f);

/* Bytes [off, off + len): for memory a pointer into it, else read into
 * scratch (grown as needed, its len set to len). NULL on failure, with the
 * status in *status and the message in err naming `what`. */
const uint8_t *inl_fetch_range(fetch *f, uint64_t off, size_t len, buf *scratch, const inlay_allocator *a,
                               inl_err *err, const char *what, int *status);

#endif
