/*
 * decompress.h — page bodies back to their bytes: UNCOMPRESSED, ZSTD and
 * GZIP always; SNAPPY, BROTLI, LZ4_RAW and the deprecated LZ4 as built
 * (INLAY_HAVE_SNAPPY, INLAY_HAVE_BROTLI, INLAY_HAVE_LZ4). One decompressor
 * per reader. zstd's and zlib's contexts are made on first use and reused
 * for every page; brotli's decoder cannot be reset, so it gets an instance
 * per page; snappy and lz4 decode with no state at all. Everything is
 * allocated through the reader's allocator.
 */
#ifndef INLAY_DECOMPRESS_H
#define INLAY_DECOMPRESS_H

#include <stdbool.h>

#include "alloc.h"

enum { CODEC_UNCOMPRESSED = 0, CODEC_SNAPPY = 1, CODEC_GZIP = 2, CODEC_LZO = 3, CODEC_BROTLI = 4,
       CODEC_LZ4 = 5, CODEC_ZSTD = 6, CODEC_LZ4_RAW = 7 };

typedef struct decompressor {
    const inlay_allocator *alloc;
    void *zstd;        /* ZSTD_DCtx */
    void *zlib;        /* z_stream, inflateInit2 done */
} decompressor;

void inl_decompress_init(decompressor *d, const inlay_allocator *a);
void inl_decompress_free(decompressor *d);

/* The codec's name as the format spells it ("SNAPPY"), "codec 42" past the
 * known ones (into tmp). */
const char *inl_codec_name(int codec, char *tmp, size_t cap);
/* Whether this build reads the codec. */
bool inl_codec_supported(int codec);
/* The codecs this build reads, for messages: "UNCOMPRESSED, SNAPPY, ...",
 * in the format's order. */
const char *inl_codec_list(void);

/* Decompress src[0..n) into exactly dst_len bytes at dst. Returns 0,
 * INLAY_ERR_FORMAT when the data is corrupt or does not come out at
 * exactly dst_len bytes, or INLAY_ERR_NOMEM. */
int inl_decompress(decompressor *d, int codec, const void *src, size_t n, void *dst, size_t dst_len);

#endif
