/*
 * compress.c — page bodies through one codec (see compress.h), and the
 * public table of codecs: their names, their levels, and which of them
 * this build has (INLAY_HAVE_SNAPPY, INLAY_HAVE_LZ4, INLAY_HAVE_BROTLI;
 * ZSTD and GZIP are always built).
 *
 * Every codec but SNAPPY allocates through the writer's allocator, and an
 * allocation it is refused ends the call with INLAY_ERR_NOMEM, nothing
 * leaked. brotli's encoder needs help for that: left to itself it calls
 * exit() when an allocation fails (see the pool below).
 */
#define ZSTD_STATIC_LINKING_ONLY   /* ZSTD_customMem: zstd allocates through us */
#include "compress.h"

#include <limits.h>
#include <stdbool.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>
#ifdef INLAY_HAVE_SNAPPY
#include <snappy-c.h>
#endif
#ifdef INLAY_HAVE_LZ4
#include <lz4.h>
#include <lz4hc.h>
#endif
#ifdef INLAY_HAVE_BROTLI
#include <setjmp.h>
#include <brotli/encode.h>
#endif

/* ---- the codecs' table ------------------------------------------------- */

typedef struct codec_info {
    const char *name;      /* as the format spells it; NULL: not an inlay_compression */
    bool built;
    bool levels;           /* lo..hi, dflt apply */
    int lo, hi, dflt;
} codec_info;

#ifdef INLAY_HAVE_SNAPPY
#define BUILT_SNAPPY true
#else
#define BUILT_SNAPPY false
#endif
#ifdef INLAY_HAVE_LZ4
#define BUILT_LZ4 true
#else
#define BUILT_LZ4 false
#endif
#ifdef INLAY_HAVE_BROTLI
#define BUILT_BROTLI true
#else
#define BUILT_BROTLI false
#endif

/* The ranges are the libraries' own: zstd's minimum is -ZSTD_TARGETLENGTH_MAX
 * and its maximum 22 (both clamped by zstd anyway), lz4's acceleration
 * stops at 65537 (LZ4_ACCELERATION_MAX, in lz4.c only) and its HC levels at
 * LZ4HC_CLEVEL_MAX, brotli's qualities are BROTLI_MIN/MAX_QUALITY. */
static const codec_info codecs[] = {
    [INLAY_UNCOMPRESSED] = { "UNCOMPRESSED", true, false, 0, 0, 0 },
    [INLAY_SNAPPY] = { "SNAPPY", BUILT_SNAPPY, false, 0, 0, 0 },
    [INLAY_GZIP] = { "GZIP", true, true, 1, 9, INLAY_DEFAULT_GZIP_LEVEL },
    [INLAY_BROTLI] = { "BROTLI", BUILT_BROTLI, true, 0, 11, INLAY_DEFAULT_BROTLI_LEVEL },
    [INLAY_ZSTD] = { "ZSTD", true, true, -131072, 22, INLAY_DEFAULT_ZSTD_LEVEL },
    [INLAY_LZ4_RAW] = { "LZ4_RAW", BUILT_LZ4, true, -65537, 12, INLAY_DEFAULT_LZ4_LEVEL },
};
#define NCODECS ((int)(sizeof codecs / sizeof codecs[0]))

_Static_assert(ZSTD_TARGETLENGTH_MAX == 131072, "zstd's lowest level is not -131072");
_Static_assert(Z_BEST_SPEED == 1 && Z_BEST_COMPRESSION == 9, "zlib's levels are not 1..9");
#ifdef INLAY_HAVE_LZ4
_Static_assert(LZ4HC_CLEVEL_MAX == 12 && LZ4HC_CLEVEL_MIN == 3, "lz4's HC levels are not 3..12");
#endif
#ifdef INLAY_HAVE_BROTLI
_Static_assert(BROTLI_MIN_QUALITY == 0 && BROTLI_MAX_QUALITY == 11, "brotli's qualities are not 0..11");
#endif

static const codec_info *info_of(int c)
{
    return c >= 0 && c < NCODECS && codecs[c].name ? &codecs[c] : NULL;
}

const char *inlay_compression_name(inlay_compression c)
{
    const codec_info *k = info_of((int)c);
    return k ? k->name : NULL;
}

/* ASCII only: the names are, and the locale must not matter. */
static bool same_name(const char *a, const char *b)
{
    for (;; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b - 'A' + 'a') : *b;
        if (x != y) return false;
        if (!x) return true;
    }
}

bool inlay_compression_parse(const char *name, inlay_compression *out)
{
    if (!name) return false;
    int found = -1;
    if (same_name(name, "none")) found = INLAY_UNCOMPRESSED;
    else if (same_name(name, "lz4")) found = INLAY_LZ4_RAW;   /* the block format: the one inlay writes */
    for (int c = 0; c < NCODECS && found < 0; c++)
        if (codecs[c].name && same_name(name, codecs[c].name)) found = c;
    if (found < 0) return false;
    if (out) *out = (inlay_compression)found;
    return true;
}

bool inlay_compression_supported(inlay_compression c)
{
    const codec_info *k = info_of((int)c);
    return k && k->built;
}

bool inlay_compression_levels(inlay_compression c, int *lo, int *hi, int *dflt)
{
    const codec_info *k = info_of((int)c);
    if (!k || !k->levels) return false;
    if (lo) *lo = k->lo;
    if (hi) *hi = k->hi;
    if (dflt) *dflt = k->dflt;
    return true;
}

/* The level codec c runs at, in *out, or false when c is not built or does
 * not take `level`. A codec without levels ignores it (inl_codec_check has
 * refused a level given to one, and resolved the default to 0). */
static bool resolve_level(int c, int level, int *out)
{
    const codec_info *k = info_of(c);
    if (!k || !k->built) return false;
    if (!k->levels) {
        *out = 0;
        return true;
    }
    if (level == INLAY_LEVEL_DEFAULT) level = k->dflt;
    *out = level;
    return level >= k->lo && level <= k->hi;
}

/* ---- ZSTD -------------------------------------------------------------- */

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

static int zstd_init(compressor *c, size_t sized_for)
{
    c->sized_for = sized_for ? sized_for : 2 * (size_t)INLAY_DEFAULT_PAGE_BYTES;
    c->space_size = space_for(c->level, c->sized_for);
    c->space = inl_mem_alloc(c->alloc, c->space_size);
    if (!c->space) return INLAY_ERR_NOMEM;
    ZSTD_CCtx *z = ZSTD_initStaticCCtx(c->space, c->space_size);
    if (z) ZSTD_CCtx_reset(z, ZSTD_reset_session_and_parameters);   /* the defaults a created context has */
    if (!z || ZSTD_isError(ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, c->level))) return INLAY_ERR_ARGUMENT;
    c->zctx = z;
    return 0;
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

static size_t zstd_run(compressor *c, void *dst, size_t cap, const void *src, size_t n, int *status)
{
    if (!c->zctx) {   /* released (inl_compress_release): made again, as init made it */
        const int st = zstd_init(c, c->sized_for);
        if (st) {
            if (c->space) inl_mem_free(c->alloc, c->space, c->space_size);
            c->space = NULL;
            *status = st;
            return SIZE_MAX;
        }
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

/* ---- GZIP -------------------------------------------------------------- */

static voidpf zlib_alloc(voidpf opaque, uInt items, uInt size)
{
    if (size && items > SIZE_MAX / size) return Z_NULL;
    return inl_mem_sized_alloc(opaque, (size_t)items * size);
}

static void zlib_free(voidpf opaque, voidpf p)
{
    inl_mem_sized_free(opaque, p);
}

/* A gzip member (windowBits 15 + 16) with zlib's default memLevel: the
 * header has no name and no time, so the output depends on the input
 * alone. */
static int gzip_init(compressor *c)
{
    z_stream *z = inl_mem_alloc(c->alloc, sizeof *z);
    if (!z) return INLAY_ERR_NOMEM;
    memset(z, 0, sizeof *z);
    z->zalloc = zlib_alloc;
    z->zfree = zlib_free;
    z->opaque = (voidpf)c->alloc;
    int rc = deflateInit2(z, c->level, Z_DEFLATED, MAX_WBITS + 16, 8, Z_DEFAULT_STRATEGY);
    if (rc != Z_OK) {   /* zlib has freed what it took */
        inl_mem_free(c->alloc, z, sizeof *z);
        return rc == Z_MEM_ERROR ? INLAY_ERR_NOMEM : INLAY_ERR_ARGUMENT;
    }
    c->zlib = z;
    return 0;
}

/* The stream is reset after each page rather than before: deflateBound
 * reads the stream's state, and a finished gzip stream (its trailer
 * written) gives a bound without the header and trailer. */
static size_t gzip_run(compressor *c, void *dst, size_t cap, const void *src, size_t n)
{
    z_stream *z = c->zlib;
    if (n > UINT_MAX) return SIZE_MAX;
    z->next_in = (Bytef *)src;
    z->avail_in = (uInt)n;
    z->next_out = dst;
    z->avail_out = cap > UINT_MAX ? UINT_MAX : (uInt)cap;
    int rc = deflate(z, Z_FINISH);
    size_t made = (size_t)(z->next_out - (Bytef *)dst);
    if (deflateReset(z) != Z_OK || rc != Z_STREAM_END) return SIZE_MAX;   /* out of room */
    return made;
}

/* ---- LZ4_RAW ----------------------------------------------------------- */

#ifdef INLAY_HAVE_LZ4
static int lz4_init(compressor *c)
{
    int size = c->level >= LZ4HC_CLEVEL_MIN ? LZ4_sizeofStateHC() : LZ4_sizeofState();
    c->lz4 = inl_mem_alloc(c->alloc, (size_t)size);
    if (!c->lz4) return INLAY_ERR_NOMEM;
    c->lz4_size = (size_t)size;
    return 0;
}

/* Below level 3 the fast compressor, accelerated by -level; from 3 on the
 * high-compression one. Each call starts from a reset state: pages are
 * independent blocks. */
static size_t lz4_run(compressor *c, void *dst, size_t cap, const void *src, size_t n)
{
    if (n > LZ4_MAX_INPUT_SIZE) return SIZE_MAX;
    int room = cap > INT_MAX ? INT_MAX : (int)cap;
    int r;
    if (c->level >= LZ4HC_CLEVEL_MIN) {
        r = LZ4_compress_HC_extStateHC(c->lz4, src, dst, (int)n, room, c->level);
    } else {
        r = LZ4_compress_fast_extState(c->lz4, src, dst, (int)n, room, c->level < -1 ? -c->level : 1);
    }
    return r > 0 ? (size_t)r : SIZE_MAX;
}
#endif

/* ---- SNAPPY ------------------------------------------------------------ */

#ifdef INLAY_HAVE_SNAPPY
/* snappy_compress allocates its work space with C++'s operator new on every
 * call: it takes no allocator, so that memory is outside the writer's
 * allocator and its limits, and running out of it throws std::bad_alloc,
 * which no C caller can catch. */
static size_t snappy_run(void *dst, size_t cap, const void *src, size_t n)
{
    if (n > UINT32_MAX) return SIZE_MAX;   /* snappy's length field is 32 bits */
    size_t out = cap;
    if (snappy_compress(src, n, dst, &out) != SNAPPY_OK) return SIZE_MAX;   /* cap below the bound */
    return out;
}
#endif

/* ---- BROTLI ------------------------------------------------------------ */

#ifdef INLAY_HAVE_BROTLI
/*
 * brotli's encoder has no reset: an instance compresses one stream. A page
 * is one stream, so each page gets a new instance, created with our
 * allocation hooks. Those hooks draw from a pool the compressor keeps:
 *
 *   - A block brotli gives back is kept, not freed, and handed out again
 *     for a later request it holds (see pool_alloc). Pages of similar
 *     sizes thus run on the same blocks: after the first page, a steady
 *     writer asks its allocator for little or nothing. The trade-off:
 *     between pages the compressor holds about what brotli needs for the
 *     last page at its peak (for a 1 MiB page of text, some 11 MiB at the
 *     default quality 5, 42 at 9, 51 at 11), as a kept zstd context would
 *     hold its work space. Kept blocks a page did not touch are freed when it
 *     ends; a smaller page runs on the blocks of the larger ones.
 *   - brotli 1.0 (built without BROTLI_ENCODER_CLEANUP_ON_OOM, as
 *     distributions build it) calls exit() when an allocation fails. So a
 *     refused allocation never returns to brotli: the hook longjmps back to
 *     brotli_run, which frees every block the instance held (the pool
 *     tracks them all) and reports INLAY_ERR_NOMEM; that instance is never
 *     touched again. brotli is C, holds no locks and no global state, so
 *     leaving its frames this way skips nothing but its own bookkeeping.
 *
 * BrotliEncoderCompress (one-shot) would be simpler, but it allocates with
 * malloc (and exits the same way).
 */
typedef union pool_block {
    struct {
        union pool_block *prev, *next;
        size_t size;           /* bytes after the header */
        unsigned long run;     /* the run that last gave it back */
    } h;
    max_align_t align;
} pool_block;

typedef struct brotli_pool {
    const inlay_allocator *alloc;
    pool_block *held;          /* given to brotli */
    pool_block *kept;          /* given back, for the next request */
    unsigned long run;         /* pages compressed (or tried) so far */
    jmp_buf oom;               /* where a refused allocation goes */
} brotli_pool;

static void pool_link(pool_block **list, pool_block *b)
{
    b->h.prev = NULL;
    b->h.next = *list;
    if (*list) (*list)->h.prev = b;
    *list = b;
}

static void pool_unlink(pool_block **list, pool_block *b)
{
    if (b->h.prev) b->h.prev->h.next = b->h.next;
    else *list = b->h.next;
    if (b->h.next) b->h.next->h.prev = b->h.prev;
}

static void pool_release(brotli_pool *p, pool_block **list, bool stale_only)
{
    for (pool_block *b = *list, *next; b; b = next) {
        next = b->h.next;
        if (stale_only && b->h.run == p->run) continue;
        pool_unlink(list, b);
        inl_mem_free(p->alloc, b, sizeof *b + b->h.size);
    }
}

/* The smallest kept block that holds n bytes. When none does, a new one,
 * and the largest kept block too small for it is freed first: brotli gave
 * it back and now asks for more, so it would sit in the pool while the new
 * block grows the total past what brotli itself ever holds at once. */
static void *pool_alloc(void *opaque, size_t n)
{
    brotli_pool *p = opaque;
    pool_block *fit = NULL, *short_of = NULL;
    for (pool_block *b = p->kept; b; b = b->h.next) {
        if (b->h.size >= n) {
            if (!fit || b->h.size < fit->h.size) fit = b;
        } else if (!short_of || b->h.size > short_of->h.size) {
            short_of = b;
        }
    }
    if (fit) {
        pool_unlink(&p->kept, fit);
    } else {
        if (short_of) {
            pool_unlink(&p->kept, short_of);
            inl_mem_free(p->alloc, short_of, sizeof *short_of + short_of->h.size);
        }
        fit = n <= SIZE_MAX - sizeof *fit ? inl_mem_alloc(p->alloc, sizeof *fit + n) : NULL;
        if (!fit) longjmp(p->oom, 1);
        fit->h.size = n;
    }
    pool_link(&p->held, fit);
    return fit + 1;
}

static void pool_free(void *opaque, void *ptr)
{
    brotli_pool *p = opaque;
    if (!ptr) return;
    pool_block *b = (pool_block *)ptr - 1;
    pool_unlink(&p->held, b);
    b->h.run = p->run;
    pool_link(&p->kept, b);
}

static int brotli_init(compressor *c)
{
    brotli_pool *p = inl_mem_alloc(c->alloc, sizeof *p);
    if (!p) return INLAY_ERR_NOMEM;
    memset(p, 0, sizeof *p);
    p->alloc = c->alloc;
    c->brotli = p;
    return 0;
}

static void brotli_free(compressor *c)
{
    brotli_pool *p = c->brotli;
    pool_release(p, &p->held, false);
    pool_release(p, &p->kept, false);
    inl_mem_free(c->alloc, p, sizeof *p);
}

/* One stream of quality `quality` in one call; SIZE_MAX when dst is too
 * small. The window is the smallest that holds the whole page, up to
 * brotli's default of 22 bits (as the brotli command picks it): a larger
 * one finds no more matches in a page that size, and costs its memory on
 * both sides. */
static size_t brotli_stream(brotli_pool *p, int quality, void *dst, size_t cap, const void *src, size_t n)
{
    BrotliEncoderState *s = BrotliEncoderCreateInstance(pool_alloc, pool_free, p);
    if (!s) return SIZE_MAX;
    int lgwin = BROTLI_MIN_WINDOW_BITS;
    while (lgwin < BROTLI_DEFAULT_WINDOW && ((size_t)1 << lgwin) - 16 < n) lgwin++;
    BrotliEncoderSetParameter(s, BROTLI_PARAM_QUALITY, (uint32_t)quality);
    BrotliEncoderSetParameter(s, BROTLI_PARAM_LGWIN, (uint32_t)lgwin);
    BrotliEncoderSetParameter(s, BROTLI_PARAM_MODE, BROTLI_MODE_GENERIC);
    BrotliEncoderSetParameter(s, BROTLI_PARAM_SIZE_HINT, n < (1u << 30) ? (uint32_t)n : 1u << 30);
    size_t in_left = n, out_left = cap;
    const uint8_t *in = src;
    uint8_t *out = dst;
    BROTLI_BOOL ok = BrotliEncoderCompressStream(s, BROTLI_OPERATION_FINISH, &in_left, &in, &out_left, &out, NULL);
    ok = ok && BrotliEncoderIsFinished(s);
    BrotliEncoderDestroyInstance(s);
    return ok ? cap - out_left : SIZE_MAX;
}

static size_t brotli_run(compressor *c, void *dst, size_t cap, const void *src, size_t n, int *status)
{
    brotli_pool *p = c->brotli;
    p->run++;
    if (setjmp(p->oom)) {   /* the allocator refused brotli: its instance is abandoned */
        pool_release(p, &p->held, false);
        pool_release(p, &p->kept, false);
        *status = INLAY_ERR_NOMEM;
        return SIZE_MAX;
    }
    size_t r = brotli_stream(p, c->level, dst, cap, src, n);
    pool_release(p, &p->kept, true);   /* what this page did not use */
    return r;
}
#endif

/* ---- the compressor ---------------------------------------------------- */

int inl_compress_init(compressor *c, const inlay_allocator *a, inlay_compression codec, int level,
                      size_t sized_for)
{
    memset(c, 0, sizeof *c);
    c->codec = codec;
    c->alloc = a;
    if (!resolve_level((int)codec, level, &c->level)) return INLAY_ERR_ARGUMENT;
    int st = 0;
    switch (codec) {
    case INLAY_ZSTD: st = zstd_init(c, sized_for); break;
    case INLAY_GZIP: st = gzip_init(c); break;
#ifdef INLAY_HAVE_LZ4
    case INLAY_LZ4_RAW: st = lz4_init(c); break;
#endif
#ifdef INLAY_HAVE_BROTLI
    case INLAY_BROTLI: st = brotli_init(c); break;
#endif
    default: break;   /* UNCOMPRESSED and SNAPPY keep nothing */
    }
    if (st) inl_compress_free(c);
    return st;
}

void inl_compress_free(compressor *c)
{
    if (c->zbig) ZSTD_freeCCtx(c->zbig);   /* the static context has nothing of its own to free */
    if (c->space) inl_mem_free(c->alloc, c->space, c->space_size);
    if (c->zlib) {
        deflateEnd(c->zlib);
        inl_mem_free(c->alloc, c->zlib, sizeof(z_stream));
    }
    if (c->lz4) inl_mem_free(c->alloc, c->lz4, c->lz4_size);
#ifdef INLAY_HAVE_BROTLI
    if (c->brotli) brotli_free(c);
#endif
    c->zctx = c->zbig = c->space = c->zlib = c->lz4 = c->brotli = NULL;
}

void inl_compress_release(compressor *c)
{
    if (c->codec != INLAY_ZSTD || !c->zctx) return;
    if (c->zbig) ZSTD_freeCCtx(c->zbig);
    inl_mem_free(c->alloc, c->space, c->space_size);
    c->zctx = c->zbig = c->space = NULL;
}

size_t inl_compress_bound(const compressor *c, size_t n)
{
    switch (c->codec) {
    case INLAY_ZSTD: {
        size_t b = ZSTD_compressBound(n);
        return ZSTD_isError(b) ? SIZE_MAX : b;
    }
    case INLAY_GZIP:   /* the bound of this stream's parameters (it is always reset), tighter than zlib's general one */
        if (n > UINT_MAX) return SIZE_MAX;   /* more than gzip_run takes */
        return c->zlib ? deflateBound((z_streamp)c->zlib, n) : n;
#ifdef INLAY_HAVE_LZ4
    case INLAY_LZ4_RAW: return n <= SIZE_MAX - 16 - n / 255 ? n + n / 255 + 16 : SIZE_MAX;   /* LZ4_COMPRESSBOUND */
#endif
#ifdef INLAY_HAVE_SNAPPY
    case INLAY_SNAPPY: return n <= SIZE_MAX - 32 - n / 6 ? snappy_max_compressed_length(n) : SIZE_MAX;
#endif
#ifdef INLAY_HAVE_BROTLI
    case INLAY_BROTLI: {
        size_t b = BrotliEncoderMaxCompressedSize(n);
        return b ? b : SIZE_MAX;   /* 0: the bound overflows size_t */
    }
#endif
    default: return n;
    }
}

size_t inl_compress_run(compressor *c, void *dst, size_t cap, const void *src, size_t n, int *status)
{
    *status = INLAY_ERR_COMPRESS;
    switch (c->codec) {
    case INLAY_UNCOMPRESSED:
        if (cap < n) return SIZE_MAX;
        if (n) memcpy(dst, src, n);
        return n;
    case INLAY_ZSTD: return zstd_run(c, dst, cap, src, n, status);
    case INLAY_GZIP: return gzip_run(c, dst, cap, src, n);
#ifdef INLAY_HAVE_LZ4
    case INLAY_LZ4_RAW: return lz4_run(c, dst, cap, src, n);
#endif
#ifdef INLAY_HAVE_SNAPPY
    case INLAY_SNAPPY: return snappy_run(dst, cap, src, n);
#endif
#ifdef INLAY_HAVE_BROTLI
    case INLAY_BROTLI: return brotli_run(c, dst, cap, src, n, status);
#endif
    default: return SIZE_MAX;
    }
}
