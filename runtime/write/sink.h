/*
 * sink.h — the file sink: bytes go to a temporary file beside the target,
 * which is renamed into place by finish() and removed by abort().
 * (The memory sink is inlay_buffer_sink in the public header.)
 */
#ifndef INLAY_SINK_H
#define INLAY_SINK_H

#include "alloc.h"

typedef struct file_sink {
    int fd;
    char *path;      /* the target */
    char *tmp;       /* the temporary file */
    size_t tmp_size; /* bytes allocated for tmp */
    const inlay_allocator *alloc;
} file_sink;

/* Create the temporary file. Returns 0, or INLAY_ERR_IO / INLAY_ERR_NOMEM
 * with a message in err. */
int inl_file_sink_open(file_sink *f, const inlay_allocator *a, const char *path, char *err, size_t errcap);
inlay_sink inl_file_sink_interface(file_sink *f);
/* Release the names (after finish or abort). */
void inl_file_sink_release(file_sink *f);

#endif
