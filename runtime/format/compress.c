/*
 * compress.c — zstd (or no) compression of page bodies (see compress.h).
 */
#define ZSTD_STATIC_LINKING_ONLY   /* ZSTD_customMem: zstd allocates through us */
#include "compress.h"

#include <zstd.h>
#include <zstd_errors.h>

/* zstd's free hook has no size; keep it in a header before each block. */
typedef union { size_t size; max_align_t align; } block_header;

static void *zstd_alloc(void *opaque, size_t size)
{
    const inlay_allocator *a = opaque;
    block_header *h = inl_mem_alloc(a, sizeof *h + size);
    if (!h) return NULL;
    h->size = sizeof *h + size;
    return h + 1;
}

static void zstd_free(void *opaque, void *p)
{
    if (!p) return;
    block_header *h = (block_header *)p - 1;
    inl_mem_free(opaque, h, h->size);
}

int inl_compress_init(compressor *c, const inlay_allocator *a, inlay_compression codec, int level)
{
    memset(c, 0, sizeof *c);
    c->codec = codec;
    c->level = level;
    c->alloc = a;
    if (codec == INLAY_UNCOMPRESSED) return 0;
    if (codec != INLAY_ZSTD) return INLAY_ERR_ARGUMENT;
    if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) return INLAY_ERR_ARGUMENT;
    ZSTD_customMem mem = { zstd_alloc, zstd_free, (void *)a };
    ZSTD_CCtx *z = ZSTD_createCCtx_advanced(mem);
    if (!z) return INLAY_ERR_NOMEM;
    if (ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, level))) {
        ZSTD_freeCCtx(z);
        return INLAY_ERR_ARGUMENT;
    }
    c->zctx = z;
    return 0;
}

void inl_compress_free(compressor *c)
{
    if (c->zctx) ZSTD_freeCCtx(c->zctx);
    c->zctx = NULL;
}

size_t inl_compress_bound(const compressor *c, size_t n)
{
    return c->codec == INLAY_ZSTD ? ZSTD_compressBound(n) : n;
}

size_t inl_compress_run(compressor *c, void *dst, size_t cap, const void *src, size_t n, int *status)
{
    *status = INLAY_ERR_COMPRESS;
    if (c->codec == INLAY_UNCOMPRESSED) {
        if (cap < n) return SIZE_MAX;
        memcpy(dst, src, n);
        return n;
    }
    size_t r = ZSTD_compress2(c->zctx, dst, cap, src, n);
    if (!ZSTD_isError(r)) return r;
    if (ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation) *status = INLAY_ERR_NOMEM;
    return SIZE_MAX;
}
