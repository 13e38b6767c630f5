/*
 * compress.h — page compression. One compressor per codec and level of a
 * writer, created once and reused for every page. What each codec keeps,
 * and where its memory comes from:
 *
 *   ZSTD     a static context over one block taken at init, sized for every
 *            input up to `sized_for` bytes (pages of the default 1 MiB and
 *            their dictionaries fit): zstd sizes its work space from the
 *            input and, left to itself, would free and reallocate it as page
 *            sizes come and go. Steady compression allocates nothing, and
 *            the output is the same as a growing context's. A larger input
 *            goes to a second context that allocates through the writer's
 *            allocator as it needs, created on first use.
 *   GZIP     one z_stream, deflateInit2 at init with zlib allocating through
 *            the writer's allocator; deflateReset after every page. deflate
 *            itself allocates nothing.
 *   LZ4_RAW  one state block, fast or high-compression by level, taken at
 *            init; liblz4 allocates nothing of its own.
 *   BROTLI   brotli's encoder cannot be reset, so every page gets an
 *            instance of its own; its blocks come from a pool the
 *            compressor keeps between pages (see compress.c), so pages of
 *            similar sizes reuse the same memory.
 *   SNAPPY   nothing: snappy's C API takes no allocator, and allocates its
 *            small work space (tens of KiB) with C++'s operator new on every
 *            call, outside the writer's allocator.
 */
#ifndef INLAY_COMPRESS_H
#define INLAY_COMPRESS_H

#include "alloc.h"

typedef struct compressor {
    inlay_compression codec;
    int level;                      /* resolved: INLAY_LEVEL_DEFAULT is never stored; 0 for a
                                       codec without levels */
    const inlay_allocator *alloc;
    /* ZSTD */
    void *zctx;                     /* ZSTD_CCtx, static over `space` */
    void *space;
    size_t space_size;
    size_t sized_for;               /* inputs up to this size fit zctx's space */
    void *zbig;                     /* ZSTD_CCtx for larger inputs, or NULL */
    /* GZIP */
    void *zlib;                     /* z_stream, deflateInit2 done */
    /* LZ4_RAW */
    void *lz4;                      /* LZ4_stream_t or LZ4_streamHC_t state */
    size_t lz4_size;
    /* BROTLI */
    void *brotli;                   /* the pool of the instances' blocks */
} compressor;

/* A compressor for codec at level (INLAY_LEVEL_DEFAULT: the codec's own;
 * a codec without levels ignores it) whose ZSTD context
 * fits inputs of up to sized_for bytes without allocating (0: twice the
 * default page). Returns 0, INLAY_ERR_ARGUMENT for a codec that is unknown
 * or not built in, or a level out of its range (inlay_compression_levels),
 * or INLAY_ERR_NOMEM. Whatever it returns, inl_compress_free may follow. */
int inl_compress_init(compressor *c, const inlay_allocator *a, inlay_compression codec, int level,
                      size_t sized_for);
/* Frees everything init and runs took; twice is harmless. */
void inl_compress_free(compressor *c);
/* Gives back a ZSTD compressor's context (the largest part of an idle
 * writer), made again by the next run, which may then fail with
 * INLAY_ERR_NOMEM; other codecs keep theirs. For a host holding many
 * writers that write in turn (a dataset's files). */
void inl_compress_release(compressor *c);
/* Worst-case compressed size of n bytes; SIZE_MAX when no buffer could
 * hold it. */
size_t inl_compress_bound(const compressor *c, size_t n);
/* Compress src into dst (capacity >= inl_compress_bound). Returns the
 * compressed size, or SIZE_MAX on failure with *status set to
 * INLAY_ERR_NOMEM (the allocator failed inside the codec; nothing is
 * leaked and the compressor stays usable) or INLAY_ERR_COMPRESS (dst too
 * small, or an input larger than the codec takes). */
size_t inl_compress_run(compressor *c, void *dst, size_t cap, const void *src, size_t n, int *status);

#endif
