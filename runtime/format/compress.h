/*
 * compress.h — page compression. One compressor per writer; the zstd
 * context is created once, allocates through the writer's allocator, and is
 * reused for every page.
 */
#ifndef INLAY_COMPRESS_H
#define INLAY_COMPRESS_H

#include "alloc.h"

typedef struct compressor {
    inlay_compression codec;
    int level;
    void *zctx;                     /* ZSTD_CCtx */
    const inlay_allocator *alloc;
} compressor;

/* Returns 0, INLAY_ERR_ARGUMENT for an unknown codec or bad level, or
 * INLAY_ERR_NOMEM. */
int inl_compress_init(compressor *c, const inlay_allocator *a, inlay_compression codec, int level);
void inl_compress_free(compressor *c);
/* Worst-case compressed size of n bytes. */
size_t inl_compress_bound(const compressor *c, size_t n);
/* Compress src into dst (capacity >= inl_compress_bound). Returns the
 * compressed size, or SIZE_MAX on failure with *status set to
 * INLAY_ERR_NOMEM (the allocator failed inside zstd) or INLAY_ERR_COMPRESS. */
size_t inl_compress_run(compressor *c, void *dst, size_t cap, const void *src, size_t n, int *status);

#endif
