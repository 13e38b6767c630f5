/*
 * decompress.c — UNCOMPRESSED, ZSTD and GZIP page bodies (see
 * decompress.h). A body must come out at exactly the size its page header
 * gives: more or less is a corrupt page, never a short read.
 */
#define ZSTD_STATIC_LINKING_ONLY   /* ZSTD_customMem: zstd allocates through us */
#include "decompress.h"

#include <stdio.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

void inl_decompress_init(decompressor *d, const inlay_allocator *a)
{
    memset(d, 0, sizeof *d);
    d->alloc = a;
}

void inl_decompress_free(decompressor *d)
{
    if (d->zstd) ZSTD_freeDCtx(d->zstd);
    if (d->zlib) {
        inflateEnd(d->zlib);
        inl_mem_free(d->alloc, d->zlib, sizeof(z_stream));
    }
    d->zstd = d->zlib = NULL;
}

const char *inl_codec_name(int codec, char *tmp, size_t cap)
{
    static const char *const names[] = { "UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW" };
    if (codec >= 0 && codec < (int)(sizeof names / sizeof names[0])) return names[codec];
    snprintf(tmp, cap, "codec %d", codec);
    return tmp;
}

bool inl_codec_supported(int codec)
{
    return codec == CODEC_UNCOMPRESSED || codec == CODEC_ZSTD || codec == CODEC_GZIP;
}

static int run_zstd(decompressor *d, const void *src, size_t n, void *dst, size_t dst_len)
{
    if (!d->zstd) {
        ZSTD_customMem mem = { inl_mem_sized_alloc, inl_mem_sized_free, (void *)d->alloc };
        d->zstd = ZSTD_createDCtx_advanced(mem);
        if (!d->zstd) return INLAY_ERR_NOMEM;
    }
    size_t r = ZSTD_decompressDCtx(d->zstd, dst, dst_len, src, n);
    if (ZSTD_isError(r)) {
        if (ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation) return INLAY_ERR_NOMEM;
        return INLAY_ERR_FORMAT;
    }
    return r == dst_len ? 0 : INLAY_ERR_FORMAT;
}

static voidpf zlib_alloc(voidpf opaque, uInt items, uInt size)
{
    if (size && items > SIZE_MAX / size) return Z_NULL;
    return inl_mem_sized_alloc(opaque, (size_t)items * size);
}

static void zlib_free(voidpf opaque, voidpf p)
{
    inl_mem_sized_free(opaque, p);
}

/* A gzip member (zlib streams are accepted too: windowBits 32 + 15 detects
 * either), inflated in one call; some writers chain members, so a member
 * ending early is followed into the next one. */
static int run_gzip(decompressor *d, const void *src, size_t n, void *dst, size_t dst_len)
{
    z_stream *z = d->zlib;
    if (!z) {
        z = inl_mem_alloc(d->alloc, sizeof *z);
        if (!z) return INLAY_ERR_NOMEM;
        memset(z, 0, sizeof *z);
        z->zalloc = zlib_alloc;
        z->zfree = zlib_free;
        z->opaque = (voidpf)d->alloc;
        if (inflateInit2(z, 32 + MAX_WBITS) != Z_OK) {
            inl_mem_free(d->alloc, z, sizeof *z);
            return INLAY_ERR_NOMEM;
        }
        d->zlib = z;
    }
    const uint8_t *in = src;
    uint8_t *out = dst;
    size_t in_left = n, out_left = dst_len;
    for (;;) {
        if (inflateReset(z) != Z_OK) return INLAY_ERR_FORMAT;
        z->next_in = (Bytef *)in;
        z->avail_in = in_left > UINT32_MAX ? UINT32_MAX : (uInt)in_left;
        z->next_out = out;
        z->avail_out = out_left > UINT32_MAX ? UINT32_MAX : (uInt)out_left;
        int rc = inflate(z, Z_FINISH);
        size_t used = (size_t)(z->next_in - in), made = (size_t)(z->next_out - out);
        in += used, in_left -= used, out += made, out_left -= made;
        if (rc == Z_MEM_ERROR) return INLAY_ERR_NOMEM;
        if (rc != Z_STREAM_END) return INLAY_ERR_FORMAT;
        if (out_left == 0) return 0;
        if (in_left == 0 || used == 0) return INLAY_ERR_FORMAT;
    }
}

int inl_decompress(decompressor *d, int codec, const void *src, size_t n, void *dst, size_t dst_len)
{
    switch (codec) {
    case CODEC_UNCOMPRESSED:
        if (n != dst_len) return INLAY_ERR_FORMAT;
        if (n) memcpy(dst, src, n);
        return 0;
    case CODEC_ZSTD: return run_zstd(d, src, n, dst, dst_len);
    case CODEC_GZIP: return run_gzip(d, src, n, dst, dst_len);
    default: return INLAY_ERR_FORMAT;
    }
}
