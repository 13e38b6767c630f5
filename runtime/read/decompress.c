/*
 * decompress.c — page bodies of every codec this build has (see
 * decompress.h). A body must come out at exactly the size its page header
 * gives: more or less is a corrupt page, never a short read.
 */
#define ZSTD_STATIC_LINKING_ONLY   /* ZSTD_customMem: zstd allocates through us */
#include "decompress.h"

#include <limits.h>
#include <stdio.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>
#ifdef INLAY_HAVE_SNAPPY
#include <snappy-c.h>
#endif
#ifdef INLAY_HAVE_LZ4
#include <lz4.h>
#endif
#ifdef INLAY_HAVE_BROTLI
#include <brotli/decode.h>
#endif

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
    switch (codec) {
    case CODEC_UNCOMPRESSED: case CODEC_ZSTD: case CODEC_GZIP: return true;
#ifdef INLAY_HAVE_SNAPPY
    case CODEC_SNAPPY: return true;
#endif
#ifdef INLAY_HAVE_LZ4
    case CODEC_LZ4: case CODEC_LZ4_RAW: return true;
#endif
#ifdef INLAY_HAVE_BROTLI
    case CODEC_BROTLI: return true;
#endif
    default: return false;
    }
}

const char *inl_codec_list(void)
{
    return "UNCOMPRESSED"
#ifdef INLAY_HAVE_SNAPPY
           ", SNAPPY"
#endif
           ", GZIP"
#ifdef INLAY_HAVE_BROTLI
           ", BROTLI"
#endif
#ifdef INLAY_HAVE_LZ4
           ", LZ4"
#endif
           ", ZSTD"
#ifdef INLAY_HAVE_LZ4
           ", LZ4_RAW"
#endif
        ;
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

#ifdef INLAY_HAVE_SNAPPY
/* snappy_uncompress writes into our buffer and allocates nothing. */
static int run_snappy(const void *src, size_t n, void *dst, size_t dst_len)
{
    size_t len;
    if (snappy_uncompressed_length(src, n, &len) != SNAPPY_OK || len != dst_len) return INLAY_ERR_FORMAT;
    if (snappy_uncompress(src, n, dst, &len) != SNAPPY_OK || len != dst_len) return INLAY_ERR_FORMAT;
    return 0;
}
#endif

#ifdef INLAY_HAVE_LZ4
/* One LZ4 block of exactly dst_len bytes; false if it is anything else. */
static bool lz4_block(const uint8_t *src, size_t n, uint8_t *dst, size_t dst_len)
{
    if (n > INT_MAX || dst_len > INT_MAX) return false;
    return LZ4_decompress_safe((const char *)src, (char *)dst, (int)n, (int)dst_len) == (int)dst_len;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The deprecated LZ4 codec (5), read as Arrow reads it. parquet-mr wrote
 * Hadoop's framing: frames of a big-endian raw length, a big-endian
 * stored length and an LZ4 block of that size, back to back; older
 * parquet-cpp wrote one bare block. So the framing is tried first, and
 * when it does not add up (lengths past the ends, a block that does not
 * come out at its length, bytes left over), the body is one block. */
static int run_lz4_hadoop(const uint8_t *src, size_t n, uint8_t *dst, size_t dst_len)
{
    size_t in = 0, out = 0;
    bool framed = true;
    while (framed && n - in >= 8) {
        uint32_t raw = be32(src + in), stored = be32(src + in + 4);
        in += 8;
        framed = stored <= n - in && raw <= dst_len - out && lz4_block(src + in, stored, dst + out, raw);
        in += stored;
        out += raw;
    }
    if (framed && in == n && out == dst_len) return 0;
    return lz4_block(src, n, dst, dst_len) ? 0 : INLAY_ERR_FORMAT;
}
#endif

#ifdef INLAY_HAVE_BROTLI
/* brotli's decoder has no reset: a finished instance decodes nothing more,
 * so each page gets a new one, on the reader's allocator (BrotliDecoder-
 * Decompress would use malloc). That costs a few allocations per page, the
 * largest about the page's size (the ring buffer), and holds nothing
 * between pages. Unlike the encoder, brotli's decoder reports a failed
 * allocation as an error. Bytes after the end of the stream are corrupt. */
static int run_brotli(decompressor *d, const void *src, size_t n, void *dst, size_t dst_len)
{
    BrotliDecoderState *s = BrotliDecoderCreateInstance(inl_mem_sized_alloc, inl_mem_sized_free, (void *)d->alloc);
    if (!s) return INLAY_ERR_NOMEM;
    size_t in_left = n, out_left = dst_len;
    const uint8_t *in = src;
    uint8_t *out = dst;
    BrotliDecoderResult r = BrotliDecoderDecompressStream(s, &in_left, &in, &out_left, &out, NULL);
    BrotliDecoderErrorCode e = BrotliDecoderGetErrorCode(s);
    BrotliDecoderDestroyInstance(s);
    if (r == BROTLI_DECODER_RESULT_SUCCESS && in_left == 0 && out_left == 0) return 0;
    if (r == BROTLI_DECODER_RESULT_ERROR && e <= BROTLI_DECODER_ERROR_ALLOC_CONTEXT_MODES &&
        e >= BROTLI_DECODER_ERROR_ALLOC_BLOCK_TYPE_TREES)   /* the ALLOC_ codes, -21 to -30 */
        return INLAY_ERR_NOMEM;
    return INLAY_ERR_FORMAT;
}
#endif

int inl_decompress(decompressor *d, int codec, const void *src, size_t n, void *dst, size_t dst_len)
{
    switch (codec) {
    case CODEC_UNCOMPRESSED:
        if (n != dst_len) return INLAY_ERR_FORMAT;
        if (n) memcpy(dst, src, n);
        return 0;
    case CODEC_ZSTD: return run_zstd(d, src, n, dst, dst_len);
    case CODEC_GZIP: return run_gzip(d, src, n, dst, dst_len);
#ifdef INLAY_HAVE_SNAPPY
    case CODEC_SNAPPY: return run_snappy(src, n, dst, dst_len);
#endif
#ifdef INLAY_HAVE_LZ4
    case CODEC_LZ4_RAW: return lz4_block(src, n, dst, dst_len) ? 0 : INLAY_ERR_FORMAT;
    case CODEC_LZ4: return run_lz4_hadoop(src, n, dst, dst_len);
#endif
#ifdef INLAY_HAVE_BROTLI
    case CODEC_BROTLI: return run_brotli(d, src, n, dst, dst_len);
#endif
    default: return INLAY_ERR_FORMAT;
    }
}
