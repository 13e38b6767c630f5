/*
 * compress.h — page compression. One compressor per writer, created once and
 * reused for every page.
 *
 * zstd sizes its work space from the input's size and, left to itself,
 * frees and reallocates it as page sizes come and go. So the context is a
 * static one over one block taken at init, sized for every input up to
 * `sized_for` bytes (pages of the default 1 MiB and their dictionaries
 * fit): steady compression allocates nothing, and the output is the same
 * as a growing context's. A larger input goes to a second context that
 * allocates as it needs, created on first use.
 */
#ifndef INLAY_COMPRESS_H
#define INLAY_COMPRESS_H

#include "alloc.h"

typedef struct compressor {
    inlay_compression codec;
    int level;
    void *zctx;                     /* ZSTD_CCtx, static over `space` */
    void *space;
    size_t space_size;
    size_t sized_for;               /* inputs up to this size fit zctx's space */
    void *zbig;                     /* ZSTD_CCtx for larger inputs, or NULL */
    const inlay_allocator *alloc;
} compressor;

/* A compressor whose context fits inputs of up to sized_for bytes without
 * allocating (0: twice the default page). Returns 0, INLAY_ERR_ARGUMENT for
 * an unknown codec or bad level, or INLAY_ERR_NOMEM. */
int inl_compress_init(compressor *c, const inlay_allocator *a, inlay_compression codec, int level,
                      size_t sized_for);
void inl_compress_free(compressor *c);
/* Worst-case compressed size of n bytes. */
size_t inl_compress_bound(const compressor *c, size_t n);
/* Compress src into dst (capacity >= inl_compress_bound). Returns the
 * compressed size, or SIZE_MAX on failure with *status set to
 * INLAY_ERR_NOMEM (the allocator failed inside zstd) or INLAY_ERR_COMPRESS. */
size_t inl_compress_run(compressor *c, void *dst, size_t cap, const void *src, size_t n, int *status);

#endif
