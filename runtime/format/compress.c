/*
 * compress.c — zstd (or no) compression of page bodies (see compress.h).
 */
#define ZSTD_STATIC_LINKING_ONLY   /* ZSTD_customMem: zstd allocates through us */
#include "compress.h"

#include <zstd.h>
#include <zstd_errors.h>


/* The work space of a context for inputs of up to n bytes, whatever their
 * size below n: zstd picks its parameters by size class. */
static size_t space_for(int level, size_t n)
{
    static const size_t classes[] = { 16 << 10, 128 << 10, 256 << 10 };
    size_t most = ZSTD_estimateCCtxSize_usingCParams(ZSTD_getCParams(level, n, 0));
    for (size_t i = 0; i < sizeof classes / sizeof classes[0] && classes[i] < n; i++) {
        size_t k = ZSTD_estimateCCtxSize_usingCParams(ZSTD_getCParams(level, classes[i], 0));
        if (k > most) most = k;
    }
    return most;
}

int inl_compress_init(compressor *c, const inlay_allocator *a, inlay_compression codec, int level,
                      size_t sized_for)
{
    memset(c, 0, sizeof *c);
    c->codec = codec;
    c->level = level;
    c->alloc = a;
    if (codec == INLAY_UNCOMPRESSED) return 0;
    if (codec != INLAY_ZSTD) return INLAY_ERR_ARGUMENT;
    if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) return INLAY_ERR_ARGUMENT;
    c->sized_for = sized_for ? sized_for : 2 * (size_t)INLAY_DEFAULT_PAGE_BYTES;
    c->space_size = space_for(level, c->sized_for);
    c->space = inl_mem_alloc(a, c->space_size);
    if (!c->space) return INLAY_ERR_NOMEM;
    ZSTD_CCtx *z = ZSTD_initStaticCCtx(c->space, c->space_size);
    if (z) ZSTD_CCtx_reset(z, ZSTD_reset_session_and_parameters);   /* the defaults a created context has */
    if (!z || ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, level))) {
        inl_compress_free(c);
        return INLAY_ERR_ARGUMENT;
    }
    c->zctx = z;
    return 0;
}

void inl_compress_free(compressor *c)
{
    if (c->zbig) ZSTD_freeCCtx(c->zbig);   /* the static context has nothing of its own to free */
    if (c->space) inl_mem_free(c->alloc, c->space, c->space_size);
    c->zctx = c->zbig = c->space = NULL;
}

/* The context for inputs past sized_for, allocating through the writer's
 * allocator. */
static ZSTD_CCtx *big_context(compressor *c)
{
    if (c->zbig) return c->zbig;
    ZSTD_customMem mem = { inl_mem_sized_alloc, inl_mem_sized_free, (void *)c->alloc };
    ZSTD_CCtx *z = ZSTD_createCCtx_advanced(mem);
    if (!z) return NULL;
    if (ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, c->level))) {
        ZSTD_freeCCtx(z);
        return NULL;
    }
    return c->zbig = z;
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
    size_t r = n <= c->sized_for ? ZSTD_compress2(c->zctx, dst, cap, src, n) : (size_t)-ZSTD_error_memory_allocation;
    if (ZSTD_isError(r) && ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation) {   /* past the static space */
        ZSTD_CCtx *big = big_context(c);
        if (!big) {
            *status = INLAY_ERR_NOMEM;
            return SIZE_MAX;
        }
        r = ZSTD_compress2(big, dst, cap, src, n);
    }
    if (!ZSTD_isError(r)) return r;
    if (ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation) *status = INLAY_ERR_NOMEM;
    return SIZE_MAX;
}
