/*
 * check_compress.c — page compression (runtime/format/compress.c) and its
 * reverse (runtime/read/decompress.c), codec by codec:
 *
 *   - the public table: inlay_compression_name / _parse / _supported /
 *     _levels, against the libraries' own constants and the build's
 *     INLAY_HAVE_* (a codec left out is refused everywhere);
 *   - the levels inl_compress_init takes and refuses, and that the level
 *     reaches the codec;
 *   - round trips of every codec at its lowest, default and highest levels
 *     (and negative zstd and lz4 levels) on random, repetitive and empty
 *     inputs, one compressor reused for every size, each body read back by
 *     inl_decompress and by the codec's own library (zlib's inflate for
 *     gzip, whose output is a gzip member: 1f 8b);
 *   - the bound as the most a run writes, a smaller capacity as
 *     INLAY_ERR_COMPRESS;
 *   - the deprecated Hadoop-framed LZ4 (codec 5) as Arrow reads it;
 *   - corrupt bodies (truncated, extended, bytes flipped, wrong sizes,
 *     garbage) as errors, never crashes;
 *   - allocation failing at every request inside each codec's init and
 *     runs (and inside the decoders) as INLAY_ERR_NOMEM with nothing
 *     leaked; SNAPPY is left out, as snappy does not allocate through us;
 *   - steady compression allocating nothing after init (brotli: after the
 *     first page, from its pool).
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>

#include <zlib.h>
#include <zstd.h>
#ifdef INLAY_HAVE_SNAPPY
#include <snappy-c.h>
#endif
#ifdef INLAY_HAVE_LZ4
#include <lz4.h>
#include <lz4hc.h>
#endif
#ifdef INLAY_HAVE_BROTLI
#include <brotli/decode.h>
#include <brotli/encode.h>
#endif

#include "compress.h"
#include "decompress.h"

#include "unit.h"

#ifdef INLAY_HAVE_SNAPPY
#define HAVE_SNAPPY true
#else
#define HAVE_SNAPPY false
#endif
#ifdef INLAY_HAVE_LZ4
#define HAVE_LZ4 true
#else
#define HAVE_LZ4 false
#endif
#ifdef INLAY_HAVE_BROTLI
#define HAVE_BROTLI true
#else
#define HAVE_BROTLI false
#endif

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static compressor c;
static inlay_allocator alloc;

static void setup(void)
{
    memset(&c, 0, sizeof c);
    alloc = inl_mem_default();
}

static void teardown(void)
{
    inl_compress_free(&c);
}

/* ---- inputs ------------------------------------------------------------- */

/* n bytes that compress well: words from a small vocabulary. */
static uint8_t *text_bytes(size_t n, uint64_t seed)
{
    static const char *const words[] = { "parquet ", "column ", "page ", "row ", "group ", "value ",
                                         "level ", "dictionary ", "zstd ", "footer " };
    uint8_t *p = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(p);
    size_t k = 0;
    while (k < n) {
        const char *w = words[rng_next(&seed) % 10];
        for (size_t i = 0; w[i] && k < n; i++) p[k++] = (uint8_t)w[i];
    }
    return p;
}

/* n bytes that do not compress. */
static uint8_t *random_bytes(size_t n, uint64_t seed)
{
    uint8_t *p = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(p);
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(rng_next(&seed) >> 56);
    return p;
}

enum { RANDOM, TEXT, ZEROS, NKINDS };

static uint8_t *input_bytes(int kind, size_t n, uint64_t seed)
{
    if (kind == RANDOM) return random_bytes(n, seed);
    if (kind == TEXT) return text_bytes(n, seed);
    uint8_t *p = calloc(n ? n : 1, 1);
    ck_assert_ptr_nonnull(p);
    return p;
}

/* ---- reading back --------------------------------------------------------- */

/* z[0..zn) back to exactly n bytes at out by the codec's own library, not
 * by inlay's reader: NULL when it comes back, else what failed. */
static const char *library_decode(inlay_compression codec, const uint8_t *z, size_t zn, uint8_t *out, size_t n)
{
    switch (codec) {
    case INLAY_UNCOMPRESSED:
        if (zn != n) return "size";
        if (n) memcpy(out, z, n);
        return NULL;
    case INLAY_ZSTD: {
        if (ZSTD_getFrameContentSize(z, zn) != n) return "ZSTD_getFrameContentSize";
        size_t r = ZSTD_decompress(out, n, z, zn);
        return !ZSTD_isError(r) && r == n ? NULL : "ZSTD_decompress";
    }
    case INLAY_GZIP: {
        z_stream s;
        memset(&s, 0, sizeof s);
        if (inflateInit2(&s, 16 + MAX_WBITS) != Z_OK) return "inflateInit2";   /* gzip only */
        s.next_in = (Bytef *)z;
        s.avail_in = (uInt)zn;
        s.next_out = out;
        s.avail_out = (uInt)n;
        int rc = inflate(&s, Z_FINISH);
        bool ok = rc == Z_STREAM_END && s.avail_out == 0 && s.avail_in == 0;
        inflateEnd(&s);
        return ok ? NULL : "inflate";
    }
#ifdef INLAY_HAVE_SNAPPY
    case INLAY_SNAPPY: {
        size_t len = n;
        return snappy_uncompress((const char *)z, zn, (char *)out, &len) == SNAPPY_OK && len == n ? NULL
                                                                                                   : "snappy_uncompress";
    }
#endif
#ifdef INLAY_HAVE_LZ4
    case INLAY_LZ4_RAW:
        return LZ4_decompress_safe((const char *)z, (char *)out, (int)zn, (int)n) == (int)n ? NULL : "LZ4_decompress_safe";
#endif
#ifdef INLAY_HAVE_BROTLI
    case INLAY_BROTLI: {
        size_t len = n;
        return BrotliDecoderDecompress(zn, z, &len, out) == BROTLI_DECODER_RESULT_SUCCESS && len == n
                   ? NULL : "BrotliDecoderDecompress";
    }
#endif
    default: return "no library for this codec";
    }
}

/* Compress src[0..n) with z into a buffer of exactly the bound, check the
 * size against the bound, and read it back twice: with the reader's
 * inl_decompress (on a counting allocator: nothing left once freed) and
 * with the codec's own library. Returns the compressed size. */
static size_t round_trip(compressor *z, const uint8_t *src, size_t n)
{
    size_t bound = inl_compress_bound(z, n);
    ck_assert_uint_ge(bound, n);
    uint8_t *dst = malloc(bound ? bound : 1);
    ck_assert_ptr_nonnull(dst);
    int status = 12345;
    size_t got = inl_compress_run(z, dst, bound, src, n, &status);
    const char *name = inlay_compression_name(z->codec);
    ck_assert_msg(got != SIZE_MAX, "%s level %d, %zu bytes: run failed with status %d", name, z->level, n, status);
    ck_assert_uint_le(got, bound);
    if (z->codec == INLAY_UNCOMPRESSED) ck_assert_uint_eq(got, n);
    if (z->codec == INLAY_GZIP) {   /* a gzip member: magic, deflate, no name, no time */
        ck_assert_uint_ge(got, 18);
        ck_assert_msg(dst[0] == 0x1f && dst[1] == 0x8b && dst[2] == 8, "gzip starts with %s", hex(dst, 4));
        ck_assert_uint_eq(le32(dst + 4), 0);
        ck_assert_uint_eq(le32(dst + got - 4), (uint32_t)n);   /* ISIZE */
    }

    uint8_t *back = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(back);
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    decompressor d;
    inl_decompress_init(&d, &a);
    int rc = inl_decompress(&d, (int)z->codec, dst, got, back, n);
    ck_assert_msg(rc == 0, "%s level %d, %zu bytes: inl_decompress gave %d", name, z->level, n, rc);
    ck_assert_bytes(back, n, src, n);
    inl_decompress_free(&d);
    ck_assert_no_leak(&ta);

    memset(back, 0xa5, n);
    const char *why = library_decode(z->codec, dst, got, back, n);
    ck_assert_msg(!why, "%s level %d, %zu bytes: %s failed", name, z->level, n, why);
    ck_assert_bytes(back, n, src, n);
    free(back);
    free(dst);
    return got;
}

/* ---- the table ------------------------------------------------------------------ */

START_TEST(test_names)
{
    static const struct { int codec; const char *name; } known[] = {
        { 0, "UNCOMPRESSED" }, { 1, "SNAPPY" }, { 2, "GZIP" }, { 4, "BROTLI" }, { 6, "ZSTD" }, { 7, "LZ4_RAW" },
    };
    for (size_t i = 0; i < COUNT(known); i++)
        ck_assert_str_eq(inlay_compression_name((inlay_compression)known[i].codec), known[i].name);
    /* LZO (3) and the deprecated LZ4 (5) are not inlay_compression values */
    static const int unknown[] = { 3, 5, 8, -1, 1000, INT_MIN, INT_MAX };
    for (size_t i = 0; i < COUNT(unknown); i++)
        ck_assert_ptr_null(inlay_compression_name((inlay_compression)unknown[i]));
}
END_TEST

START_TEST(test_parse)
{
    static const struct { const char *name; inlay_compression codec; } good[] = {
        { "uncompressed", INLAY_UNCOMPRESSED }, { "UNCOMPRESSED", INLAY_UNCOMPRESSED }, { "none", INLAY_UNCOMPRESSED },
        { "NoNe", INLAY_UNCOMPRESSED }, { "snappy", INLAY_SNAPPY }, { "Snappy", INLAY_SNAPPY }, { "gzip", INLAY_GZIP },
        { "GZIP", INLAY_GZIP }, { "brotli", INLAY_BROTLI }, { "zstd", INLAY_ZSTD }, { "ZStd", INLAY_ZSTD },
        { "lz4_raw", INLAY_LZ4_RAW }, { "LZ4_RAW", INLAY_LZ4_RAW }, { "lz4", INLAY_LZ4_RAW }, { "LZ4", INLAY_LZ4_RAW },
    };
    for (size_t i = 0; i < COUNT(good); i++) {
        inlay_compression got = (inlay_compression)99;
        ck_assert_msg(inlay_compression_parse(good[i].name, &got), "\"%s\" refused", good[i].name);
        ck_assert_int_eq(got, good[i].codec);
        /* and back: the name parses to the codec it names */
        ck_assert(inlay_compression_parse(inlay_compression_name(got), &got));
        ck_assert_int_eq(got, good[i].codec);
    }
    static const char *const bad[] = { "", "lzo", "zstd ", " zstd", "gz", "zst", "lz4raw", "lz4_", "brotli1",
                                       "uncompresse", "\xc5\xbestd", "zstd\n" };
    for (size_t i = 0; i < COUNT(bad); i++) {
        inlay_compression got = (inlay_compression)99;
        ck_assert_msg(!inlay_compression_parse(bad[i], &got), "\"%s\" accepted", bad[i]);
        ck_assert_int_eq(got, 99);   /* untouched */
    }
    ck_assert(!inlay_compression_parse(NULL, NULL));
}
END_TEST

START_TEST(test_supported)
{
    ck_assert(inlay_compression_supported(INLAY_UNCOMPRESSED));
    ck_assert(inlay_compression_supported(INLAY_ZSTD));
    ck_assert(inlay_compression_supported(INLAY_GZIP));
    ck_assert(inlay_compression_supported(INLAY_SNAPPY) == HAVE_SNAPPY);
    ck_assert(inlay_compression_supported(INLAY_LZ4_RAW) == HAVE_LZ4);
    ck_assert(inlay_compression_supported(INLAY_BROTLI) == HAVE_BROTLI);
    static const int never[] = { 3, 5, 8, -1, 1000 };
    for (size_t i = 0; i < COUNT(never); i++) ck_assert(!inlay_compression_supported((inlay_compression)never[i]));

    /* the reader reads what the writer writes, and the deprecated LZ4 with LZ4_RAW */
    for (int k = 0; k < 8; k++) {
        bool want = k == 5 ? HAVE_LZ4 : k != 3 && inlay_compression_supported((inlay_compression)k);
        ck_assert_msg(inl_codec_supported(k) == want, "codec %d", k);
    }
    ck_assert(!inl_codec_supported(8));
    ck_assert(!inl_codec_supported(-1));
    char tmp[32];
    ck_assert_str_eq(inl_codec_name(5, tmp, sizeof tmp), "LZ4");
    ck_assert_str_eq(inl_codec_name(7, tmp, sizeof tmp), "LZ4_RAW");
    ck_assert_str_eq(inl_codec_name(9, tmp, sizeof tmp), "codec 9");
    /* the list for messages names exactly the codecs read */
    char list[128];
    size_t len = 0;
    list[0] = 0;
    for (int k = 0; k < 8; k++)
        if (inl_codec_supported(k))
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", inl_codec_name(k, tmp, sizeof tmp));
    ck_assert_str_eq(inl_codec_list(), list);
}
END_TEST

START_TEST(test_levels_table)
{
    int lo = 1, hi = 2, dflt = 3;
    ck_assert(inlay_compression_levels(INLAY_ZSTD, &lo, &hi, &dflt));
    ck_assert_int_eq(lo, ZSTD_minCLevel());
    ck_assert_int_eq(lo, -131072);
    ck_assert_int_eq(hi, ZSTD_maxCLevel());
    ck_assert_int_eq(dflt, INLAY_DEFAULT_ZSTD_LEVEL);
    ck_assert_int_eq(dflt, 3);

    ck_assert(inlay_compression_levels(INLAY_GZIP, &lo, &hi, &dflt));
    ck_assert_int_eq(lo, Z_BEST_SPEED);
    ck_assert_int_eq(hi, Z_BEST_COMPRESSION);
    ck_assert_int_eq(dflt, INLAY_DEFAULT_GZIP_LEVEL);
    ck_assert_int_eq(dflt, 6);

    /* the ranges are the codec's, whether or not this build has it */
    ck_assert(inlay_compression_levels(INLAY_BROTLI, &lo, &hi, &dflt));
    ck_assert_int_eq(lo, 0);
    ck_assert_int_eq(hi, 11);
    ck_assert_int_eq(dflt, INLAY_DEFAULT_BROTLI_LEVEL);
#ifdef INLAY_HAVE_BROTLI
    ck_assert_int_eq(lo, BROTLI_MIN_QUALITY);
    ck_assert_int_eq(hi, BROTLI_MAX_QUALITY);
#endif
    ck_assert(inlay_compression_levels(INLAY_LZ4_RAW, &lo, &hi, &dflt));
    ck_assert_int_eq(lo, -65537);
    ck_assert_int_eq(hi, 12);
    ck_assert_int_eq(dflt, INLAY_DEFAULT_LZ4_LEVEL);
    ck_assert_int_eq(dflt, 1);
#ifdef INLAY_HAVE_LZ4
    ck_assert_int_eq(hi, LZ4HC_CLEVEL_MAX);
#endif

    /* no levels, or no codec: false, and nothing written */
    static const int none[] = { INLAY_UNCOMPRESSED, INLAY_SNAPPY, 3, 5, 8, -1 };
    for (size_t i = 0; i < COUNT(none); i++) {
        lo = hi = dflt = 77;
        ck_assert(!inlay_compression_levels((inlay_compression)none[i], &lo, &hi, &dflt));
        ck_assert(lo == 77 && hi == 77 && dflt == 77);
    }
    ck_assert(inlay_compression_levels(INLAY_ZSTD, NULL, NULL, NULL));   /* any output may be NULL */
}
END_TEST

/* ---- codecs and levels ---------------------------------------------------------- */

START_TEST(test_uncompressed_init)
{
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    ck_assert_int_eq(inl_compress_init(&c, &a, INLAY_UNCOMPRESSED, 99, 0), 0);   /* no levels: not looked at */
    ck_assert_int_eq(c.codec, INLAY_UNCOMPRESSED);
    ck_assert_int_eq(c.level, 0);
    ck_assert_ptr_null(c.zctx);
    ck_assert_uint_eq(ta.requests, 0);
    inl_compress_free(&c);
    ck_assert_no_leak(&ta);
}
END_TEST

START_TEST(test_zstd_init)
{
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    ck_assert_int_eq(inl_compress_init(&c, &a, INLAY_ZSTD, 3, 0), 0);
    ck_assert_int_eq(c.codec, INLAY_ZSTD);
    ck_assert_int_eq(c.level, 3);
    ck_assert_ptr_nonnull(c.zctx);
    ck_assert_uint_gt(ta.live_blocks, 0);   /* the context came from our allocator */
    inl_compress_free(&c);
    ck_assert_ptr_null(c.zctx);
    ck_assert_no_leak(&ta);
    inl_compress_free(&c);                  /* twice is harmless */
    ck_assert_no_leak(&ta);
}
END_TEST

/* Each codec this build has: made and freed, with the default level
 * resolved, and only its own state taken. */
START_TEST(test_init_each)
{
    static const inlay_compression all[] = { INLAY_UNCOMPRESSED, INLAY_SNAPPY, INLAY_GZIP, INLAY_BROTLI, INLAY_ZSTD,
                                             INLAY_LZ4_RAW };
    for (size_t i = 0; i < COUNT(all); i++) {
        if (!inlay_compression_supported(all[i])) continue;
        test_alloc ta = { 0 };
        inlay_allocator a = test_allocator(&ta);
        ck_assert_int_eq(inl_compress_init(&c, &a, all[i], INLAY_LEVEL_DEFAULT, 0), 0);
        int dflt = 0;
        inlay_compression_levels(all[i], NULL, NULL, &dflt);
        ck_assert_int_eq(c.level, dflt);
        ck_assert_int_eq(c.codec, all[i]);
        ck_assert((c.zctx != NULL) == (all[i] == INLAY_ZSTD));
        ck_assert((c.zlib != NULL) == (all[i] == INLAY_GZIP));
        ck_assert((c.lz4 != NULL) == (all[i] == INLAY_LZ4_RAW));
        ck_assert((c.brotli != NULL) == (all[i] == INLAY_BROTLI));
        /* snappy and no codec keep nothing; the others keep a context of ours */
        ck_assert((ta.live_blocks > 0) == (all[i] != INLAY_UNCOMPRESSED && all[i] != INLAY_SNAPPY));
        inl_compress_free(&c);
        ck_assert_no_leak(&ta);
        inl_compress_free(&c);
        ck_assert_no_leak(&ta);
    }
}
END_TEST

START_TEST(test_bad_codec)
{
    /* codecs Parquet has but inlay does not write (LZO 3, the deprecated LZ4 5), nonsense, and
       those this build leaves out */
    int codecs[16], n = 0;
    static const int never[] = { 3, 5, 8, -1, 1000, INT_MIN };
    for (size_t i = 0; i < COUNT(never); i++) codecs[n++] = never[i];
    if (!HAVE_SNAPPY) codecs[n++] = INLAY_SNAPPY;
    if (!HAVE_LZ4) codecs[n++] = INLAY_LZ4_RAW;
    if (!HAVE_BROTLI) codecs[n++] = INLAY_BROTLI;
    for (int i = 0; i < n; i++) {
        test_alloc ta = { 0 };
        inlay_allocator a = test_allocator(&ta);
        ck_assert_msg(inl_compress_init(&c, &a, (inlay_compression)codecs[i], INLAY_LEVEL_DEFAULT, 0) ==
                      INLAY_ERR_ARGUMENT, "codec %d accepted", codecs[i]);
        ck_assert_int_eq(inl_compress_init(&c, &a, (inlay_compression)codecs[i], 3, 0), INLAY_ERR_ARGUMENT);
        ck_assert_ptr_null(c.zctx);
        inl_compress_free(&c);
        ck_assert_uint_eq(ta.requests, 0);
        ck_assert_no_leak(&ta);
    }
}
END_TEST

/* Every codec with levels: its lowest, default and highest levels are
 * taken (and INLAY_LEVEL_DEFAULT resolves to the default); one past either
 * end, and nonsense, are INLAY_ERR_ARGUMENT with nothing taken. */
START_TEST(test_level_edges)
{
    static const inlay_compression leveled[] = { INLAY_ZSTD, INLAY_GZIP, INLAY_BROTLI, INLAY_LZ4_RAW };
    uint8_t *src = text_bytes(5000, 7);
    for (size_t k = 0; k < COUNT(leveled); k++) {
        inlay_compression codec = leveled[k];
        if (!inlay_compression_supported(codec)) continue;
        int lo, hi, dflt;
        ck_assert(inlay_compression_levels(codec, &lo, &hi, &dflt));
        const int accepted[] = { lo, lo + 1, dflt, hi - 1, hi, INLAY_LEVEL_DEFAULT };
        for (size_t i = 0; i < COUNT(accepted); i++) {
            test_alloc ta = { 0 };
            inlay_allocator a = test_allocator(&ta);
            ck_assert_msg(inl_compress_init(&c, &a, codec, accepted[i], 0) == 0, "%s level %d refused",
                          inlay_compression_name(codec), accepted[i]);
            ck_assert_int_eq(c.level, accepted[i] == INLAY_LEVEL_DEFAULT ? dflt : accepted[i]);
            round_trip(&c, src, 5000);
            inl_compress_free(&c);
            ck_assert_no_leak(&ta);
        }
        const int refused[] = { lo - 1, hi + 1, INT_MAX, INT_MIN + 1 };
        for (size_t i = 0; i < COUNT(refused); i++) {
            test_alloc ta = { 0 };
            inlay_allocator a = test_allocator(&ta);
            ck_assert_msg(inl_compress_init(&c, &a, codec, refused[i], 0) == INLAY_ERR_ARGUMENT, "%s level %d accepted",
                          inlay_compression_name(codec), refused[i]);
            ck_assert_ptr_null(c.zctx);
            inl_compress_free(&c);
            ck_assert_uint_eq(ta.requests, 0);
            ck_assert_no_leak(&ta);
        }
    }
    free(src);
}
END_TEST

/* The level reaches the codec: on text, a codec's slowest level packs
 * tighter than its fastest, and lz4's HC compressor (3 on) than its fast
 * one. */
START_TEST(test_level_applied)
{
    static const struct { inlay_compression codec; int fast, tight; } pairs[] = {
        { INLAY_ZSTD, -131072, 19 }, { INLAY_ZSTD, -5, 3 }, { INLAY_GZIP, 1, 9 }, { INLAY_BROTLI, 0, 11 },
        { INLAY_BROTLI, 1, 5 }, { INLAY_LZ4_RAW, -65537, 12 }, { INLAY_LZ4_RAW, -100, 1 }, { INLAY_LZ4_RAW, 2, 3 },
    };
    uint8_t *src = text_bytes(64 * 1024, 11);
    for (size_t i = 0; i < COUNT(pairs); i++) {
        if (!inlay_compression_supported(pairs[i].codec)) continue;
        ck_assert_int_eq(inl_compress_init(&c, &alloc, pairs[i].codec, pairs[i].fast, 0), 0);
        size_t fast = round_trip(&c, src, 64 * 1024);
        inl_compress_free(&c);
        ck_assert_int_eq(inl_compress_init(&c, &alloc, pairs[i].codec, pairs[i].tight, 0), 0);
        size_t tight = round_trip(&c, src, 64 * 1024);
        inl_compress_free(&c);
        ck_assert_msg(tight < fast, "%s: level %d gave %zu bytes, level %d %zu", inlay_compression_name(pairs[i].codec),
                      pairs[i].tight, tight, pairs[i].fast, fast);
    }
    free(src);
}
END_TEST

/* ---- round trips ---------------------------------------------------------------- */

typedef struct setting {
    inlay_compression codec;
    int level;
} setting;

static const setting settings[] = {
    { INLAY_UNCOMPRESSED, INLAY_LEVEL_DEFAULT },
    { INLAY_ZSTD, -131072 }, { INLAY_ZSTD, -5 }, { INLAY_ZSTD, 1 }, { INLAY_ZSTD, INLAY_LEVEL_DEFAULT }, { INLAY_ZSTD, 22 },
    { INLAY_GZIP, 1 }, { INLAY_GZIP, INLAY_LEVEL_DEFAULT }, { INLAY_GZIP, 9 },
    { INLAY_SNAPPY, INLAY_LEVEL_DEFAULT },
    { INLAY_LZ4_RAW, -65537 }, { INLAY_LZ4_RAW, -1 }, { INLAY_LZ4_RAW, INLAY_LEVEL_DEFAULT }, { INLAY_LZ4_RAW, 2 },
    { INLAY_LZ4_RAW, 3 }, { INLAY_LZ4_RAW, 9 }, { INLAY_LZ4_RAW, 12 },
    { INLAY_BROTLI, 0 }, { INLAY_BROTLI, 1 }, { INLAY_BROTLI, 2 }, { INLAY_BROTLI, INLAY_LEVEL_DEFAULT },
    { INLAY_BROTLI, 9 }, { INLAY_BROTLI, 10 }, { INLAY_BROTLI, 11 },
};

/* One compressor per setting, reused for every input: random, text and
 * zeros, empty to a quarter MiB, in an order that goes up and down. */
START_TEST(test_round_trips)
{
    const setting *s = &settings[_i];
    if (!inlay_compression_supported(s->codec)) {
        ck_assert_int_eq(inl_compress_init(&c, &alloc, s->codec, s->level, 0), INLAY_ERR_ARGUMENT);
        return;
    }
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    ck_assert_int_eq(inl_compress_init(&c, &a, s->codec, s->level, 0), 0);
    static const size_t sizes[] = { 0, 1, 17, 1000, 262147, 65539, 2, 4096, 0 };
    for (int kind = 0; kind < NKINDS; kind++)
        for (size_t i = 0; i < COUNT(sizes); i++) {
            uint8_t *src = input_bytes(kind, sizes[i], 31 * i + (uint64_t)kind + 1);
            size_t got = round_trip(&c, src, sizes[i]);
            /* zstd's lowest levels hardly look for matches */
            size_t most = s->codec == INLAY_ZSTD && c.level < -1000 ? SIZE_MAX : sizes[i] / 10;
            if (kind == ZEROS && sizes[i] >= 4096 && s->codec != INLAY_UNCOMPRESSED)
                ck_assert_msg(got < most, "%s level %d: %zu zeros came to %zu bytes",
                              inlay_compression_name(s->codec), c.level, sizes[i], got);
            free(src);
        }
    inl_compress_free(&c);
    ck_assert_no_leak(&ta);
}
END_TEST

/* The same input gives the same bytes: from one compressor twice, and from
 * another (gzip's header carries no time, brotli's pool changes nothing). */
START_TEST(test_deterministic)
{
    const setting *s = &settings[_i];
    if (!inlay_compression_supported(s->codec)) return;
    uint8_t *src = text_bytes(100000, 3);
    compressor other;
    ck_assert_int_eq(inl_compress_init(&c, &alloc, s->codec, s->level, 0), 0);
    ck_assert_int_eq(inl_compress_init(&other, &alloc, s->codec, s->level, 0), 0);
    size_t bound = inl_compress_bound(&c, 100000);
    uint8_t *x = malloc(bound), *y = malloc(bound), *small = malloc(bound);
    ck_assert(x && y && small);
    int st;
    size_t nx = inl_compress_run(&c, x, bound, src, 100000, &st);
    size_t ns = inl_compress_run(&c, small, bound, src, 5000, &st);   /* another size in between */
    ck_assert_uint_ne(ns, SIZE_MAX);
    size_t ny = inl_compress_run(&c, y, bound, src, 100000, &st);
    ck_assert_uint_ne(nx, SIZE_MAX);
    ck_assert_bytes(y, ny, x, nx);
    ny = inl_compress_run(&other, y, bound, src, 100000, &st);
    ck_assert_bytes(y, ny, x, nx);
    inl_compress_free(&other);
    free(x);
    free(y);
    free(small);
    free(src);
}
END_TEST

/* One context for many pages: each run is a body of its own. */
START_TEST(test_zstd_reused)
{
    ck_assert_int_eq(inl_compress_init(&c, &alloc, INLAY_ZSTD, 3, 0), 0);
    for (uint64_t i = 0; i < 6; i++) {
        size_t n = 1000 + 7919 * (size_t)i;
        uint8_t *src = i % 2 ? random_bytes(n, i + 1) : text_bytes(n, i + 1);
        round_trip(&c, src, n);
        free(src);
    }
}
END_TEST

/* ---- the bound ---------------------------------------------------------------- */

START_TEST(test_bound_zstd)
{
    ck_assert_int_eq(inl_compress_init(&c, &alloc, INLAY_ZSTD, 3, 0), 0);
    static const size_t sizes[] = { 0, 1, 2, 100, 4096, 128 * 1024 + 3, 1 << 20 };
    for (size_t i = 0; i < COUNT(sizes); i++) {
        size_t n = sizes[i];
        ck_assert_uint_ge(inl_compress_bound(&c, n), n);
        ck_assert_uint_eq(inl_compress_bound(&c, n), ZSTD_compressBound(n));
        uint8_t *src = random_bytes(n, 100 + i);   /* the worst case: nothing to gain */
        round_trip(&c, src, n);                    /* fits a buffer of exactly the bound */
        free(src);
    }
}
END_TEST

START_TEST(test_bound_uncompressed)
{
    ck_assert_int_eq(inl_compress_init(&c, &alloc, INLAY_UNCOMPRESSED, 0, 0), 0);
    ck_assert_uint_eq(inl_compress_bound(&c, 0), 0);
    ck_assert_uint_eq(inl_compress_bound(&c, 12345), 12345);
}
END_TEST

/* The bounds are the libraries' own, and an input no buffer could hold
 * has the bound SIZE_MAX, not a wrapped small one. */
START_TEST(test_bound_libraries)
{
    static const size_t sizes[] = { 0, 1, 100, 16384, 16385, 1 << 20, (size_t)INT32_MAX };
    for (size_t i = 0; i < COUNT(sizes); i++) {
        size_t n = sizes[i];
        ck_assert_int_eq(inl_compress_init(&c, &alloc, INLAY_GZIP, 6, 0), 0);
        ck_assert_uint_eq(inl_compress_bound(&c, n), deflateBound(c.zlib, n));
        ck_assert_uint_ge(inl_compress_bound(&c, n), n + 18);
        inl_compress_free(&c);
#ifdef INLAY_HAVE_LZ4
        ck_assert_int_eq(inl_compress_init(&c, &alloc, INLAY_LZ4_RAW, 1, 0), 0);
        if (n <= LZ4_MAX_INPUT_SIZE) ck_assert_uint_eq(inl_compress_bound(&c, n), (size_t)LZ4_compressBound((int)n));
        inl_compress_free(&c);
#endif
#ifdef INLAY_HAVE_SNAPPY
        ck_assert_int_eq(inl_compress_init(&c, &alloc, INLAY_SNAPPY, INLAY_LEVEL_DEFAULT, 0), 0);
        ck_assert_uint_eq(inl_compress_bound(&c, n), snappy_max_compressed_length(n));
        inl_compress_free(&c);
#endif
#ifdef INLAY_HAVE_BROTLI
        ck_assert_int_eq(inl_compress_init(&c, &alloc, INLAY_BROTLI, 5, 0), 0);
        ck_assert_uint_eq(inl_compress_bound(&c, n), BrotliEncoderMaxCompressedSize(n));
        inl_compress_free(&c);
#endif
    }
    static const inlay_compression all[] = { INLAY_SNAPPY, INLAY_GZIP, INLAY_BROTLI, INLAY_ZSTD, INLAY_LZ4_RAW };
    for (size_t i = 0; i < COUNT(all); i++) {
        if (!inlay_compression_supported(all[i])) continue;
        ck_assert_int_eq(inl_compress_init(&c, &alloc, all[i], INLAY_LEVEL_DEFAULT, 0), 0);
        ck_assert_msg(inl_compress_bound(&c, SIZE_MAX - 3) == SIZE_MAX, "%s", inlay_compression_name(all[i]));
        ck_assert_msg(inl_compress_bound(&c, SIZE_MAX / 2) >= SIZE_MAX / 2, "%s", inlay_compression_name(all[i]));
        inl_compress_free(&c);
    }
}
END_TEST

/* Every codec: a capacity below what the body needs is INLAY_ERR_COMPRESS,
 * and the compressor stays good. */
START_TEST(test_small_capacity)
{
    static const inlay_compression all[] = { INLAY_UNCOMPRESSED, INLAY_SNAPPY, INLAY_GZIP, INLAY_BROTLI, INLAY_ZSTD,
                                             INLAY_LZ4_RAW };
    uint8_t *src = random_bytes(1000, 4);
    uint8_t dst[1000];
    for (size_t i = 0; i < COUNT(all); i++) {
        if (!inlay_compression_supported(all[i])) continue;
        static const size_t caps[] = { 0, 1, 10, 999 };
        ck_assert_int_eq(inl_compress_init(&c, &alloc, all[i], INLAY_LEVEL_DEFAULT, 0), 0);
        for (size_t k = 0; k < COUNT(caps); k++) {
            int status = 0;
            ck_assert_msg(inl_compress_run(&c, dst, caps[k], src, 1000, &status) == SIZE_MAX, "%s into %zu bytes",
                          inlay_compression_name(all[i]), caps[k]);
            ck_assert_int_eq(status, INLAY_ERR_COMPRESS);
            round_trip(&c, src, 1000);   /* still good */
        }
        inl_compress_free(&c);
    }
    free(src);
}
END_TEST

/* ---- the deprecated LZ4 ------------------------------------------------------------- */

#ifdef INLAY_HAVE_LZ4
static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

/* src[0..n) cut into frames of the given sizes (the last takes the rest),
 * Hadoop's way, into out; returns the framed size. */
static size_t hadoop_frames(uint8_t *out, const uint8_t *src, size_t n, const size_t *cuts, int ncuts)
{
    size_t at = 0, len = 0;
    for (int i = 0; i <= ncuts; i++) {
        size_t part = i < ncuts ? cuts[i] : n - at;
        int m = LZ4_compress_default((const char *)src + at, (char *)out + len + 8, (int)part,
                                     LZ4_compressBound((int)part));
        ck_assert_int_gt(m, 0);
        put_be32(out + len, (uint32_t)part);
        put_be32(out + len + 4, (uint32_t)m);
        len += 8 + (size_t)m;
        at += part;
    }
    return len;
}

static int lz4_read(const uint8_t *z, size_t zn, uint8_t *out, size_t n)
{
    decompressor d;
    inl_decompress_init(&d, &alloc);
    int rc = inl_decompress(&d, CODEC_LZ4, z, zn, out, n);
    inl_decompress_free(&d);
    return rc;
}

START_TEST(test_lz4_hadoop)
{
    const size_t n = 100000;
    uint8_t *src = text_bytes(n, 9), *back = malloc(n + 1);
    uint8_t *z = malloc(2 * n + 1000);
    ck_assert(back && z);

    static const size_t three[] = { 30000, 30000 }, one[] = { 0 };
    size_t zn = hadoop_frames(z, src, n, three, 2);
    ck_assert_int_eq(lz4_read(z, zn, back, n), 0);
    ck_assert_bytes(back, n, src, n);

    zn = hadoop_frames(z, src, n, one, 0);   /* one frame */
    memset(back, 0, n);
    ck_assert_int_eq(lz4_read(z, zn, back, n), 0);
    ck_assert_bytes(back, n, src, n);
    zn = hadoop_frames(z, src, n, one, 1);   /* an empty frame first */
    ck_assert_int_eq(lz4_read(z, zn, back, n), 0);
    ck_assert_bytes(back, n, src, n);

    /* older parquet-cpp: one bare block */
    int m = LZ4_compress_default((const char *)src, (char *)z, (int)n, LZ4_compressBound((int)n));
    memset(back, 0, n);
    ck_assert_int_eq(lz4_read(z, (size_t)m, back, n), 0);
    ck_assert_bytes(back, n, src, n);

    /* frames that do not add up, and are not a block either */
    zn = hadoop_frames(z, src, n, three, 2);
    ck_assert_int_eq(lz4_read(z, zn, back, n - 1), INLAY_ERR_FORMAT);   /* more than the page */
    ck_assert_int_eq(lz4_read(z, zn, back, n + 1), INLAY_ERR_FORMAT);   /* less */
    z[zn] = 0;
    ck_assert_int_eq(lz4_read(z, zn + 1, back, n), INLAY_ERR_FORMAT);   /* a byte left over */
    ck_assert_int_eq(lz4_read(z, zn - 1, back, n), INLAY_ERR_FORMAT);   /* the last frame cut short */
    uint8_t saved[8];
    memcpy(saved, z, 8);
    put_be32(z + 4, UINT32_MAX);                                       /* a stored length past the end */
    ck_assert_int_eq(lz4_read(z, zn, back, n), INLAY_ERR_FORMAT);
    memcpy(z, saved, 8);
    put_be32(z, UINT32_MAX);                                           /* a raw length past the page */
    ck_assert_int_eq(lz4_read(z, zn, back, n), INLAY_ERR_FORMAT);
    memcpy(z, saved, 8);
    put_be32(z, 29999);                                                /* a frame one byte short */
    ck_assert_int_eq(lz4_read(z, zn, back, n), INLAY_ERR_FORMAT);
    memcpy(z, saved, 8);
    ck_assert_int_eq(lz4_read(z, zn, back, n), 0);

    /* empty: no frames, or one empty frame, or an empty block */
    ck_assert_int_eq(lz4_read(z, 0, back, 0), 0);
    put_be32(z, 0);
    m = LZ4_compress_default((const char *)src, (char *)z + 8, 0, 16);
    put_be32(z + 4, (uint32_t)m);
    ck_assert_int_eq(lz4_read(z, 8 + (size_t)m, back, 0), 0);
    ck_assert_int_eq(lz4_read(z + 8, (size_t)m, back, 0), 0);
    free(src);
    free(back);
    free(z);
}
END_TEST
#endif

/* ---- corrupt bodies ------------------------------------------------------------------ */

/* The codecs the reader reads, with a way to make a body of each. */
static const int readable[] = { CODEC_UNCOMPRESSED, CODEC_SNAPPY, CODEC_GZIP, CODEC_BROTLI, CODEC_LZ4, CODEC_ZSTD,
                                CODEC_LZ4_RAW };

/* A body of codec k holding src[0..n); its length in *zn (malloc'd). */
static uint8_t *make_body(int k, const uint8_t *src, size_t n, size_t *zn)
{
    uint8_t *z = malloc(2 * n + 1000);
    ck_assert_ptr_nonnull(z);
#ifdef INLAY_HAVE_LZ4
    if (k == CODEC_LZ4) {
        static const size_t cuts[] = { 1000 };
        *zn = hadoop_frames(z, src, n, cuts, n > 1000);
        return z;
    }
#endif
    compressor w;
    ck_assert_int_eq(inl_compress_init(&w, &alloc, (inlay_compression)k, INLAY_LEVEL_DEFAULT, 0), 0);
    int st;
    *zn = inl_compress_run(&w, z, 2 * n + 1000, src, n, &st);
    ck_assert_uint_ne(*zn, SIZE_MAX);
    inl_compress_free(&w);
    return z;
}

/* inl_decompress of z[0..zn) into n bytes, on a counting allocator: the
 * status, with nothing left behind once the decompressor is freed. */
static int read_body(int k, const uint8_t *z, size_t zn, size_t n)
{
    uint8_t *out = malloc(n + 1);
    ck_assert_ptr_nonnull(out);
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    decompressor d;
    inl_decompress_init(&d, &a);
    int rc = inl_decompress(&d, k, z, zn, out, n);
    inl_decompress_free(&d);
    ck_assert_no_leak(&ta);
    free(out);
    ck_assert_msg(rc == 0 || rc == INLAY_ERR_FORMAT, "codec %d: status %d", k, rc);
    return rc;
}

START_TEST(test_corrupt)
{
    const int k = readable[_i];
    if (!inl_codec_supported(k)) {
        uint8_t byte = 0, out[4];
        decompressor d;
        inl_decompress_init(&d, &alloc);
        ck_assert_int_eq(inl_decompress(&d, k, &byte, 1, out, 4), INLAY_ERR_FORMAT);
        inl_decompress_free(&d);
        return;
    }
    const size_t n = 5000;
    uint8_t *src = text_bytes(n, 21);
    size_t zn;
    uint8_t *z = make_body(k, src, n, &zn);
    uint8_t *copy = malloc(zn + 1);
    ck_assert_ptr_nonnull(copy);
    char tmp[32];
    const char *name = inl_codec_name(k, tmp, sizeof tmp);

    ck_assert_int_eq(read_body(k, z, zn, n), 0);
    /* the wrong size */
    ck_assert_msg(read_body(k, z, zn, n - 1) == INLAY_ERR_FORMAT, "%s: one byte less read", name);
    ck_assert_msg(read_body(k, z, zn, n + 1) == INLAY_ERR_FORMAT, "%s: one byte more read", name);
    ck_assert_msg(read_body(k, z, zn, 0) == INLAY_ERR_FORMAT, "%s: read as empty", name);
    /* cut short anywhere */
    for (size_t len = 0; len < zn; len++) {
        memcpy(copy, z, len);   /* a copy of its own size, so ASan sees a read past the end */
        ck_assert_msg(read_body(k, copy, len, n) == INLAY_ERR_FORMAT, "%s: %zu of %zu bytes read", name, len, zn);
    }
    /* a byte after the body (gzip's reader looks no further than the members it needs) */
    if (k != CODEC_GZIP) {
        memcpy(copy, z, zn);
        copy[zn] = 0;
        ck_assert_msg(read_body(k, copy, zn + 1, n) == INLAY_ERR_FORMAT, "%s: trailing byte read", name);
    }
    /* every byte changed: an error or some 5000 bytes (only gzip checks
       what it made), never a crash */
    for (size_t at = 0; at < zn; at++) {
        memcpy(copy, z, zn);
        copy[at] ^= (uint8_t)(1u << (at % 8));
        read_body(k, copy, zn, n);
        copy[at] = (uint8_t)~z[at];
        read_body(k, copy, zn, n);
    }
    /* garbage */
    uint64_t seed = 77;
    for (int i = 0; i < 300; i++) {
        size_t len = (size_t)(rng_next(&seed) % 64);
        uint8_t *junk = random_bytes(len, rng_next(&seed));
        read_body(k, junk, len, (size_t)(rng_next(&seed) % 3 ? n : len));
        free(junk);
    }
    free(copy);
    free(z);
    free(src);
}
END_TEST

/* ---- allocation failures ------------------------------------------------------------ */

typedef struct fault_case {
    inlay_compression codec;
    int level;
    size_t sized_for;       /* ZSTD: below the big page, so it takes the context that allocates */
    bool run_allocates;     /* a run may fail for memory, not only init */
} fault_case;

static const fault_case fault_cases[] = {
    { INLAY_ZSTD, 3, 4096, true },
    { INLAY_ZSTD, -5, 4096, true },
    { INLAY_GZIP, 1, 0, false },
    { INLAY_GZIP, 9, 0, false },
    { INLAY_LZ4_RAW, -10, 0, false },
    { INLAY_LZ4_RAW, 9, 0, false },
    { INLAY_BROTLI, 0, 0, true },
    { INLAY_BROTLI, 1, 0, true },
    { INLAY_BROTLI, 2, 0, true },
    { INLAY_BROTLI, 5, 0, true },
    { INLAY_BROTLI, 10, 0, true },
    { INLAY_BROTLI, 11, 0, true },
};

/* Fail allocation n (or every one from n on), for every n until init and
 * two runs (a small page, then a bigger one) all succeed: each failure is
 * INLAY_ERR_NOMEM, from init or from a run, and nothing leaks. (SNAPPY is
 * not here: it allocates with C++'s new, not through us.) */
static void nomem_loop(const fault_case *fc, bool after)
{
    static const size_t pages[] = { 3000, 60000 };
    uint8_t *src = text_bytes(60000, 5);
    const char *name = inlay_compression_name(fc->codec);
    unsigned long init_failures = 0, run_failures = 0;
    bool done = false;
    for (unsigned long n = 1; !done && n < 5000; n++) {
        test_alloc ta = { .fail_at = n, .fail_after = after };
        inlay_allocator a = test_allocator(&ta);
        int st = inl_compress_init(&c, &a, fc->codec, fc->level, fc->sized_for);
        if (st) {
            ck_assert_msg(st == INLAY_ERR_NOMEM, "%s: init with allocation %lu refused: %d", name, n, st);
            ck_assert_uint_ge(ta.refused, 1);
            ck_assert_ptr_null(c.zctx);
            init_failures++;
        } else {
            bool failed = false;
            for (size_t p = 0; p < COUNT(pages) && !failed; p++) {
                size_t bound = inl_compress_bound(&c, pages[p]);
                uint8_t *dst = malloc(bound);
                ck_assert_ptr_nonnull(dst);
                int status = 0;
                size_t got = inl_compress_run(&c, dst, bound, src, pages[p], &status);
                if (got == SIZE_MAX) {
                    ck_assert_msg(status == INLAY_ERR_NOMEM, "%s: run with allocation %lu refused: %d", name, n, status);
                    ck_assert_uint_ge(ta.refused, 1);
                    failed = true;
                    run_failures++;
                } else {
                    uint8_t *back = malloc(pages[p]);
                    ck_assert_ptr_nonnull(back);
                    ck_assert(library_decode(fc->codec, dst, got, back, pages[p]) == NULL);
                    ck_assert(memcmp(back, src, pages[p]) == 0);
                    free(back);
                }
                free(dst);
            }
            if (!failed) {
                ck_assert_uint_eq(ta.refused, 0);
                done = true;
            }
        }
        inl_compress_free(&c);
        ck_assert_msg(ta.live_bytes == 0 && ta.live_blocks == 0 && ta.bad_sizes == 0 && ta.bad_new == 0,
                      "%s: allocation %lu refused: %zu bytes in %zu blocks left, %lu frees with a wrong size", name,
                      n, ta.live_bytes, ta.live_blocks, ta.bad_sizes);
    }
    ck_assert_msg(done, "%s: never succeeded", name);
    ck_assert_uint_ge(init_failures, 1);
    if (fc->run_allocates) ck_assert_msg(run_failures >= 1, "%s level %d: no run failed", name, fc->level);
    else ck_assert_uint_eq(run_failures, 0);
    free(src);
}

START_TEST(test_nomem_once)
{
    if (inlay_compression_supported(fault_cases[_i].codec)) nomem_loop(&fault_cases[_i], false);
}
END_TEST

START_TEST(test_nomem_from_n)
{
    if (inlay_compression_supported(fault_cases[_i].codec)) nomem_loop(&fault_cases[_i], true);
}
END_TEST

/* A run that failed for memory leaves the compressor usable once memory
 * is back. zstd: its context for large inputs failed; brotli: a page on an
 * empty pool, then a larger one on a pool holding the blocks of a smaller
 * page, failing once those are taken. */
START_TEST(test_nomem_then_run)
{
    static const inlay_compression allocating[] = { INLAY_ZSTD, INLAY_BROTLI };
    static const size_t sizes[] = { 50000, 200000 };
    uint8_t *src = text_bytes(200000, 6);
    for (size_t i = 0; i < COUNT(allocating); i++) {
        if (!inlay_compression_supported(allocating[i])) continue;
        test_alloc ta = { 0 };
        inlay_allocator a = test_allocator(&ta);
        ck_assert_int_eq(inl_compress_init(&c, &a, allocating[i], 3, 4096), 0);   /* 50000 bytes: past zstd's static space */
        const int rounds = allocating[i] == INLAY_BROTLI ? 2 : 1;
        for (int round = 0; round < rounds; round++) {
            size_t n = sizes[round];
            size_t bound = inl_compress_bound(&c, n);
            uint8_t *dst = malloc(bound);
            ck_assert_ptr_nonnull(dst);
            ta.fail_at = ta.requests + 1;   /* round 1: after the blocks the pool has */
            ta.fail_after = true;
            int status = 0;
            ck_assert_msg(inl_compress_run(&c, dst, bound, src, n, &status) == SIZE_MAX, "%s, round %d: no failure",
                          inlay_compression_name(allocating[i]), round);
            ck_assert_int_eq(status, INLAY_ERR_NOMEM);
            ta.fail_at = 0;
            ta.fail_after = false;
            round_trip(&c, src, n);
            free(dst);
        }
        inl_compress_free(&c);
        ck_assert_no_leak(&ta);
    }
    free(src);
}
END_TEST

/* The decoders that allocate (zstd's and zlib's contexts, brotli's
 * instance per page): every refused allocation is INLAY_ERR_NOMEM, nothing
 * leaks, and the decompressor reads the next page. */
START_TEST(test_decompress_nomem)
{
    static const int allocating[] = { CODEC_ZSTD, CODEC_GZIP, CODEC_BROTLI };
    const size_t n = 60000;
    uint8_t *src = text_bytes(n, 8), *out = malloc(n);
    ck_assert_ptr_nonnull(out);
    for (size_t i = 0; i < COUNT(allocating); i++) {
        const int k = allocating[i];
        if (!inl_codec_supported(k)) continue;
        size_t zn;
        uint8_t *z = make_body(k, src, n, &zn);
        for (int after = 0; after < 2; after++) {
            unsigned long failures = 0;
            bool done = false;
            for (unsigned long at = 1; !done && at < 1000; at++) {
                test_alloc ta = { .fail_at = at, .fail_after = after };
                inlay_allocator a = test_allocator(&ta);
                decompressor d;
                inl_decompress_init(&d, &a);
                int rc = inl_decompress(&d, k, z, zn, out, n);
                if (rc) {
                    ck_assert_msg(rc == INLAY_ERR_NOMEM, "codec %d, allocation %lu refused: %d", k, at, rc);
                    failures++;
                    ta.fail_at = 0;
                    ta.fail_after = false;
                    memset(out, 0, n);
                    ck_assert_int_eq(inl_decompress(&d, k, z, zn, out, n), 0);   /* memory is back */
                } else {
                    ck_assert_uint_eq(ta.refused, 0);
                    done = true;
                }
                ck_assert(memcmp(out, src, n) == 0);
                inl_decompress_free(&d);
                ck_assert_no_leak(&ta);
            }
            ck_assert(done);
            ck_assert_uint_ge(failures, 1);
        }
        free(z);
    }
    free(out);
    free(src);
}
END_TEST

/* ---- steady state ---------------------------------------------------------------------- */

/* Inputs of every size up to sized_for, in any order, compress without a
 * single allocation after init, and as a context that allocates would. */
START_TEST(test_steady_no_allocation)
{
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    ck_assert_int_eq(inl_compress_init(&c, &a, INLAY_ZSTD, 3, 1 << 20), 0);
    const unsigned long after_init = ta.requests;
    ZSTD_CCtx *plain = ZSTD_createCCtx();
    ck_assert_ptr_nonnull(plain);
    ZSTD_CCtx_setParameter(plain, ZSTD_c_compressionLevel, 3);
    static const size_t sizes[] = { 100, 1 << 20, 5000, 300000, 16 << 10, 1 << 20, 1, 200000, 70000 };
    uint8_t *src = text_bytes(1 << 20, 7);
    size_t bound = inl_compress_bound(&c, 1 << 20);
    uint8_t *dst = malloc(bound), *ref = malloc(bound);
    ck_assert(dst && ref);
    for (int round = 0; round < 40; round++)
        for (size_t i = 0; i < COUNT(sizes); i++) {
            int status = 0;
            size_t got = inl_compress_run(&c, dst, bound, src, sizes[i], &status);
            ck_assert_uint_ne(got, SIZE_MAX);
            if (round == 0) {
                size_t want = ZSTD_compress2(plain, ref, bound, src, sizes[i]);
                ck_assert_uint_eq(got, want);
                ck_assert(memcmp(dst, ref, got) == 0);
            }
        }
    ck_assert_uint_eq(ta.requests, after_init);
    ZSTD_freeCCtx(plain);
    free(dst);
    free(ref);
    free(src);
    inl_compress_free(&c);
    ck_assert_no_leak(&ta);
}
END_TEST

/* gzip and lz4 (fast and HC) allocate in init only. */
START_TEST(test_steady_gzip_lz4)
{
    static const setting steady[] = { { INLAY_GZIP, 6 }, { INLAY_LZ4_RAW, 1 }, { INLAY_LZ4_RAW, 9 } };
    static const size_t sizes[] = { 100, 300000, 0, 5000, 1 << 20, 1 };
    uint8_t *src = text_bytes(1 << 20, 12);
    for (size_t i = 0; i < COUNT(steady); i++) {
        if (!inlay_compression_supported(steady[i].codec)) continue;
        test_alloc ta = { 0 };
        inlay_allocator a = test_allocator(&ta);
        ck_assert_int_eq(inl_compress_init(&c, &a, steady[i].codec, steady[i].level, 0), 0);
        const unsigned long after_init = ta.requests;
        size_t bound = inl_compress_bound(&c, 1 << 20);
        uint8_t *dst = malloc(bound);
        ck_assert_ptr_nonnull(dst);
        for (int round = 0; round < 3; round++)
            for (size_t k = 0; k < COUNT(sizes); k++) {
                int status;
                ck_assert_uint_ne(inl_compress_run(&c, dst, bound, src, sizes[k], &status), SIZE_MAX);
            }
        ck_assert_uint_eq(ta.requests, after_init);
        free(dst);
        inl_compress_free(&c);
        ck_assert_no_leak(&ta);
    }
    free(src);
}
END_TEST

#ifdef INLAY_HAVE_BROTLI
/* What brotli itself holds at its peak for one stream of src at quality q,
 * with the window compress.c picks, on a counting allocator. */
static size_t brotli_own_peak(int q, const uint8_t *src, size_t n)
{
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    BrotliEncoderState *s = BrotliEncoderCreateInstance(inl_mem_sized_alloc, inl_mem_sized_free, &a);
    ck_assert_ptr_nonnull(s);
    int lgwin = BROTLI_MIN_WINDOW_BITS;
    while (lgwin < BROTLI_DEFAULT_WINDOW && ((size_t)1 << lgwin) - 16 < n) lgwin++;
    BrotliEncoderSetParameter(s, BROTLI_PARAM_QUALITY, (uint32_t)q);
    BrotliEncoderSetParameter(s, BROTLI_PARAM_LGWIN, (uint32_t)lgwin);
    BrotliEncoderSetParameter(s, BROTLI_PARAM_SIZE_HINT, (uint32_t)n);
    size_t cap = BrotliEncoderMaxCompressedSize(n), in_left = n, out_left = cap;
    uint8_t *dst = malloc(cap), *out = dst;
    const uint8_t *in = src;
    ck_assert(BrotliEncoderCompressStream(s, BROTLI_OPERATION_FINISH, &in_left, &in, &out_left, &out, NULL));
    ck_assert(BrotliEncoderIsFinished(s));
    BrotliEncoderDestroyInstance(s);
    free(dst);
    ck_assert_no_leak(&ta);
    return ta.peak_bytes;
}

/* brotli's instance per page draws on the compressor's pool: pages of one
 * size after the first ask the allocator for nothing, the output is the
 * same as the first page's, and the pool holds about what brotli itself
 * needs at its peak. A small page runs on the blocks of the big ones and
 * the pool does not grow. */
START_TEST(test_brotli_pool)
{
    static const int qualities[] = { 0, 1, 5, 9, 11 };
    uint8_t *src = text_bytes(300000, 13);
    size_t bound = BrotliEncoderMaxCompressedSize(300000);
    uint8_t *dst = malloc(bound), *ref = malloc(bound);
    ck_assert(dst && ref);
    for (size_t q = 0; q < COUNT(qualities); q++) {
        test_alloc ta = { 0 };
        inlay_allocator a = test_allocator(&ta);
        ck_assert_int_eq(inl_compress_init(&c, &a, INLAY_BROTLI, qualities[q], 0), 0);
        const size_t pool_itself = ta.live_bytes;
        int status;
        size_t first = inl_compress_run(&c, ref, bound, src, 300000, &status);
        ck_assert_uint_ne(first, SIZE_MAX);
        const unsigned long after_first = ta.requests;
        const size_t held = ta.live_bytes, own = brotli_own_peak(qualities[q], src, 300000);
        ck_assert_msg(held - pool_itself <= own + own / 8, "quality %d: the pool holds %zu bytes, brotli's peak is %zu",
                      qualities[q], held - pool_itself, own);
        for (int round = 0; round < 4; round++) {
            size_t got = inl_compress_run(&c, dst, bound, src, 300000, &status);
            ck_assert_bytes(dst, got, ref, first);
        }
        ck_assert_msg(ta.requests == after_first, "quality %d: %lu requests after the first page",
                      qualities[q], ta.requests - after_first);
        ck_assert_uint_eq(ta.live_bytes, held);
        ck_assert_uint_ne(inl_compress_run(&c, dst, bound, src, 100, &status), SIZE_MAX);
        ck_assert_msg(ta.live_bytes <= held, "quality %d: %zu bytes held after a small page, %zu after a big one",
                      qualities[q], ta.live_bytes, held);
        round_trip(&c, src, 300000);   /* and back up */
        inl_compress_free(&c);
        ck_assert_no_leak(&ta);
    }
    free(dst);
    free(ref);
    free(src);
}
END_TEST
#endif

static Suite *compress_suite(void)
{
    Suite *s = suite_create("compress");
    TCase *t = tcase_create("table");
    tcase_add_test(t, test_names);
    tcase_add_test(t, test_parse);
    tcase_add_test(t, test_supported);
    tcase_add_test(t, test_levels_table);
    suite_add_tcase(s, t);

    t = tcase_create("codecs and levels");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_uncompressed_init);
    tcase_add_test(t, test_zstd_init);
    tcase_add_test(t, test_init_each);
    tcase_add_test(t, test_bad_codec);
    tcase_add_test(t, test_level_edges);
    tcase_add_test(t, test_level_applied);
    suite_add_tcase(s, t);

    t = tcase_create("round trips");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, test_round_trips, 0, (int)COUNT(settings));
    tcase_add_loop_test(t, test_deterministic, 0, (int)COUNT(settings));
    tcase_add_test(t, test_zstd_reused);
    suite_add_tcase(s, t);

    t = tcase_create("bound");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 60);
    tcase_add_test(t, test_bound_zstd);
    tcase_add_test(t, test_bound_uncompressed);
    tcase_add_test(t, test_bound_libraries);
    tcase_add_test(t, test_small_capacity);
    suite_add_tcase(s, t);

    t = tcase_create("reading");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 120);
#ifdef INLAY_HAVE_LZ4
    tcase_add_test(t, test_lz4_hadoop);
#endif
    tcase_add_loop_test(t, test_corrupt, 0, (int)COUNT(readable));
    suite_add_tcase(s, t);

    t = tcase_create("allocation");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 300);
    tcase_add_loop_test(t, test_nomem_once, 0, (int)COUNT(fault_cases));
    tcase_add_loop_test(t, test_nomem_from_n, 0, (int)COUNT(fault_cases));
    tcase_add_test(t, test_nomem_then_run);
    tcase_add_test(t, test_decompress_nomem);
    tcase_add_test(t, test_steady_no_allocation);
    tcase_add_test(t, test_steady_gzip_lz4);
#ifdef INLAY_HAVE_BROTLI
    tcase_add_test(t, test_brotli_pool);
#endif
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(compress_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
