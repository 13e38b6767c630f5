/*
 * input.c — files, stdin and callbacks as a stream of plain bytes, with gzip
 * and zstd decoded on the way (see input.h).
 *
 * The reader owns one source (an fd or a callback) and, for compressed
 * input, a buffer of compressed bytes `raw[raw_pos..raw_len)` not yet fed to
 * the decompressor. In front of the source come, in this order, the bytes
 * peeked at open to tell the compression (`peek`) and a caller's prefix
 * (`pre`, bytes of the stream it took earlier); source_read hands them out
 * before reading more, so the decompressor sees the stream whole. On the
 * other side, `back` holds decompressed bytes put back by inl_input_unread,
 * returned before anything else. `raw_total` counts the bytes taken from
 * the stream (peeked and prefix bytes included), so the bytes consumed are
 * raw_total minus what still waits in front of the decompressor. Once
 * `failed` is set every read returns -1 with the message in `err`.
 *
 * Read-ahead (inl_input_readahead: compressed regular files, whose reads
 * never block for long, so stopping the thread is prompt): a thread of the
 * reader's own reads and decodes into a ring of RA_BLOCKS blocks while the
 * caller parses. From then on that thread alone touches the stream side
 * (fd, prefix, peek, raw, decoders, raw_total, failed, err) and the caller
 * only the blocks it was handed, under the ring's mutex; the thread's error
 * is read by the caller only after the block that ends with it was handed
 * over, and the thread writes nothing more after that. A block handed out
 * stays the caller's until it has taken two more, so a tokenizer can copy
 * the unread tail of one block in front of the next one's bytes (the
 * block's head room) instead of copying the block (inl_input_block).
 */
#define _POSIX_C_SOURCE 200809L
#define ZSTD_STATIC_LINKING_ONLY   /* ZSTD_customMem: zstd allocates through us */
#include "input.h"

#include "error.h"
#include "thread.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#define INPUT_RAW_CAP ((size_t)1 << 20)
/* A zstd block header: its hint counts the next one in (a preload). */
#define ZSTD_BLOCK_HEAD 3
/* Enough for the longest magic we look for (zstd's four bytes). */
#define INPUT_PEEK 4
/* One read(2) asks for at most this much, well below SSIZE_MAX. */
#define INPUT_MAX_READ ((size_t)1 << 30)
/* Read-ahead: blocks of RA_BLOCK bytes, with INPUT_BLOCK_HEAD bytes of head
 * room before and INPUT_BLOCK_PAD after; two are the caller's at most, the
 * thread fills the others. */
#define RA_BLOCK ((size_t)1 << 20)
#define RA_BLOCKS 4
#define RA_BLOCK_MEM (INPUT_BLOCK_HEAD + RA_BLOCK + INPUT_BLOCK_PAD)

enum { RA_FREE, RA_READY, RA_HELD };

typedef struct ra_block {
    uint8_t *mem;               /* RA_BLOCK_MEM bytes; the data at mem + INPUT_BLOCK_HEAD */
    size_t len;
    int state;                  /* RA_FREE: the thread's to fill; RA_READY: filled; RA_HELD: the caller's */
    bool end, failed;           /* the input ends (or failed) after these len bytes */
    uint64_t consumed;          /* inl_input_consumed once the block was read */
} ra_block;

typedef struct readahead {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t filled, freed;
    bool stop;
    ra_block blocks[RA_BLOCKS];
    int fill_at;                /* the thread's next block */
    /* the caller's side */
    int take_at;                /* the next block to take */
    int cur, prev;              /* the blocks held (-1: none) */
    size_t cur_pos;             /* bytes of cur handed out */
    uint64_t consumed_before;   /* inl_input_consumed when the read-ahead started */
} readahead;

struct input_reader {
    inlay_allocator alloc;
    int fd;                     /* -1 for a callback */
    bool own_fd;                /* false for stdin */
    input_read_fn fn;
    void *ctx;
    input_compression comp;

    uint8_t peek[INPUT_PEEK];   /* the first bytes, read at open to look at them */
    size_t peek_pos, peek_len;
    const uint8_t *pre;         /* the caller's prefix (borrowed) */
    size_t pre_pos, pre_len;
    uint8_t *back;              /* decompressed bytes put back, back_len of them */
    size_t back_pos, back_len;
    bool cut_ok;                /* compressed data cut short ends the input */
    bool src_eof;               /* the fd or callback said end of input: not asked again */
    bool seekable;              /* a plain regular file of our own: inl_input_pread works */
    bool has_id;
    uint64_t dev, ino;

    uint8_t *raw;               /* compressed bytes, INPUT_RAW_CAP of them */
    size_t raw_pos, raw_len;
    uint64_t raw_total;         /* bytes taken from the source */
    bool raw_eof;               /* the source said end of input */

    z_stream zs;
    bool zs_ready;              /* inflateInit2 done */
    bool member_done;           /* the last gzip member ended */
    ZSTD_DCtx *zd;
    bool frame_open;            /* a zstd frame is due or unfinished (true at the start:
                                   an empty stream is truncated) */
    size_t zd_step;             /* compressed bytes of zstd's next decoding step (at most) */
    bool zd_flush;              /* zstd may hold decoded bytes not flushed yet */

    bool done, failed;
    bool fail_next;             /* err is set, the bytes decoded before it went out: the next read fails */
    bool regular;               /* a regular file: reading it never blocks for long */
    uint64_t size;
    char *name;
    inl_err err;
    readahead *ra;              /* NULL until inl_input_readahead */
};

/* ---- allocation hooks for zlib and zstd ---------------------------------- */

static voidpf zlib_alloc(voidpf opaque, uInt items, uInt size)
{
    if (size && items > SIZE_MAX / size) return Z_NULL;
    return inl_mem_sized_alloc(opaque, (size_t)items * size);
}

static void zlib_free(voidpf opaque, voidpf p)
{
    inl_mem_sized_free(opaque, p);
}

/* ---- messages ------------------------------------------------------------ */

static const char *errno_text(int e, char *text, size_t cap)
{
    if (strerror_r(e, text, cap) != 0) snprintf(text, cap, "error %d", e);
    return text;
}

/* Sets the sticky error "name: what" and returns -1. */
static ptrdiff_t fail(input_reader *r, const char *what)
{
    inl_err_set(&r->err, INLAY_ERR_IO, "%s: %s", r->name, what);
    r->failed = true;
    return -1;
}

/* Like fail, when got bytes were decoded in the same call before the damage
 * was found: they are returned first, and the next read fails (decode_read),
 * so what comes out before the error does not depend on the read sizes. */
static ptrdiff_t fail_after(input_reader *r, size_t got, const char *what)
{
    if (!got) return fail(r, what);
    inl_err_set(&r->err, INLAY_ERR_IO, "%s: %s", r->name, what);
    r->fail_next = true;
    return (ptrdiff_t)got;
}

/* ---- the source ------------------------------------------------------------ */

/* Up to cap bytes of the stream past the peeked ones: the prefix, then the
 * fd or the callback; -1 with the error set. */
static ptrdiff_t stream_read(input_reader *r, void *dst, size_t cap)
{
    if (cap > INPUT_MAX_READ) cap = INPUT_MAX_READ;
    if (r->pre_pos < r->pre_len) {
        size_t n = r->pre_len - r->pre_pos < cap ? r->pre_len - r->pre_pos : cap;
        memcpy(dst, r->pre + r->pre_pos, n);
        r->pre_pos += n;
        r->raw_total += n;
        return (ptrdiff_t)n;
    }
    if (r->src_eof) return 0;
    if (r->fn) {
        ptrdiff_t n = r->fn(r->ctx, dst, cap);
        if (n < 0 || (size_t)n > cap) return fail(r, "read error");
        r->raw_total += (uint64_t)n;
        r->src_eof = n == 0;
        return n;
    }
    for (;;) {
        ssize_t n = read(r->fd, dst, cap);
        if (n >= 0) {
            r->raw_total += (uint64_t)n;
            r->src_eof = n == 0;
            return n;
        }
        if (errno == EINTR) continue;
        char text[128], what[160];
        snprintf(what, sizeof what, "read error: %s", errno_text(errno, text, sizeof text));
        return fail(r, what);
    }
}

/* Up to cap bytes of the stream: what was peeked at (counted in raw_total
 * when it was read), then the rest. */
static ptrdiff_t source_read(input_reader *r, void *dst, size_t cap)
{
    if (r->peek_pos < r->peek_len) {
        size_t n = r->peek_len - r->peek_pos < cap ? r->peek_len - r->peek_pos : cap;
        memcpy(dst, r->peek + r->peek_pos, n);
        r->peek_pos += n;
        return (ptrdiff_t)n;
    }
    return stream_read(r, dst, cap);
}

/* Refills the compressed buffer once it is drained. -1 on a read error. */
static int raw_fill(input_reader *r)
{
    if (r->raw_pos < r->raw_len || r->raw_eof) return 0;
    ptrdiff_t n = source_read(r, r->raw, INPUT_RAW_CAP);
    if (n < 0) return -1;
    r->raw_pos = 0;
    r->raw_len = (size_t)n;
    if (n == 0) r->raw_eof = true;
    return 0;
}

/* ---- gzip ---------------------------------------------------------------- */

static ptrdiff_t gzip_read(input_reader *r, uint8_t *dst, size_t cap)
{
    if (cap > UINT_MAX) cap = UINT_MAX;
    for (;;) {
        if (r->zs.avail_in == 0) {
            if (raw_fill(r)) return -1;
            r->zs.next_in = r->raw + r->raw_pos;
            r->zs.avail_in = (uInt)(r->raw_len - r->raw_pos);
        }
        if (r->member_done) {
            /* Another member may follow; only the end of the source ends the stream. */
            if (r->zs.avail_in == 0) {
                if (r->raw_eof) return 0;
                continue;
            }
            if (inflateReset(&r->zs) != Z_OK) return fail(r, "corrupt gzip data");
            r->member_done = false;
        }
        r->zs.next_out = dst;
        r->zs.avail_out = (uInt)cap;
        int rc = inflate(&r->zs, Z_NO_FLUSH);
        size_t got = cap - r->zs.avail_out;
        r->raw_pos = r->raw_len - r->zs.avail_in;
        if (rc == Z_STREAM_END) {
            r->member_done = true;
        } else if (rc == Z_BUF_ERROR) {
            /* No progress possible: out of input mid-member. */
            if (got == 0 && r->zs.avail_in == 0 && r->raw_eof)
                return r->cut_ok ? 0 : fail(r, "truncated gzip data");
        } else if (rc == Z_MEM_ERROR) {
            return fail_after(r, got, "out of memory");
        } else if (rc != Z_OK) {
            return fail_after(r, got, "corrupt gzip data");
        }
        if (got) return (ptrdiff_t)got;
    }
}

/* ---- zstd ---------------------------------------------------------------- */

/* A failing ZSTD_decompressStream reports none of the bytes it wrote in
 * that call. So each call does one thing: flush what an earlier one
 * decoded (no input), or take the compressed bytes of one decoding step (a
 * header, a block, a checksum; zstd's hint less the next block's header it
 * would preload). A call that fails then has decoded nothing, and what was
 * decoded before the damage is handed out whatever cap is. */
static ptrdiff_t zstd_read(input_reader *r, uint8_t *dst, size_t cap)
{
    for (;;) {
        if (raw_fill(r)) return -1;
        if (r->raw_pos == r->raw_len && r->raw_eof && !r->frame_open) return 0;
        const size_t avail = r->raw_len - r->raw_pos;
        const size_t take = r->zd_flush ? 0 : avail < r->zd_step ? avail : r->zd_step;
        ZSTD_inBuffer in = { r->raw, r->raw_pos + take, r->raw_pos };
        ZSTD_outBuffer out = { dst, cap, 0 };
        size_t rc = ZSTD_decompressStream(r->zd, &out, &in);
        r->raw_pos = in.pos;
        if (ZSTD_isError(rc)) {
            if (ZSTD_getErrorCode(rc) == ZSTD_error_memory_allocation) return fail(r, "out of memory");
            char what[160];
            snprintf(what, sizeof what, "corrupt zstd data (%s)", ZSTD_getErrorName(rc));
            return fail(r, what);
        }
        /* 0 means a frame is complete and flushed; another may follow. */
        r->frame_open = rc != 0;
        r->zd_step = rc == 0 ? ZSTD_FRAMEHEADERSIZE_PREFIX(ZSTD_f_zstd1)
                   : ZSTD_nextInputType(r->zd) == ZSTDnit_block && rc > ZSTD_BLOCK_HEAD ? rc - ZSTD_BLOCK_HEAD : rc;
        r->zd_flush = out.pos == cap;   /* a full buffer may have left decoded bytes behind */
        if (out.pos) return (ptrdiff_t)out.pos;
        if (r->raw_pos == r->raw_len && r->raw_eof) {
            if (r->frame_open) return r->cut_ok ? 0 : fail(r, "truncated zstd data");
            return 0;
        }
    }
}

/* ---- open / read / close -------------------------------------------------- */

static int reader_new(input_reader **out, const inlay_allocator *a, const char *name, input_compression c,
                      char *err, size_t errcap)
{
    inlay_allocator al = inl_mem_or_default(a);
    input_reader *r = inl_mem_alloc(&al, sizeof *r);
    if (!r) goto nomem;
    memset(r, 0, sizeof *r);
    r->alloc = al;
    r->fd = -1;
    r->comp = c;
    r->name = inl_mem_strdup(&al, name);
    if (!r->name) goto nomem;
    *out = r;
    return 0;
nomem:
    inl_input_close(r);
    inl_err_format(err, errcap, INLAY_ERR_NOMEM, "%s: out of memory", name);
    return INLAY_ERR_NOMEM;
}

/* The decoder for r->comp, once it is known. */
static int decoder_new(input_reader *r, char *err, size_t errcap)
{
    if (r->comp != INPUT_PLAIN) {
        r->raw = inl_mem_alloc(&r->alloc, INPUT_RAW_CAP);
        if (!r->raw) goto nomem;
    }
    if (r->comp == INPUT_GZIP) {
        r->zs.zalloc = zlib_alloc;
        r->zs.zfree = zlib_free;
        r->zs.opaque = &r->alloc;
        int rc = inflateInit2(&r->zs, 16 + MAX_WBITS);
        if (rc != Z_OK) goto nomem;
        r->zs_ready = true;
    } else if (r->comp == INPUT_ZSTD) {
        ZSTD_customMem mem = { inl_mem_sized_alloc, inl_mem_sized_free, &r->alloc };
        r->zd = ZSTD_createDCtx_advanced(mem);
        if (!r->zd) goto nomem;
        r->frame_open = true;
        r->zd_step = ZSTD_FRAMEHEADERSIZE_PREFIX(ZSTD_f_zstd1);
        /* Accept frames written with --long=31; the window comes from our allocator. */
        ZSTD_DCtx_setParameter(r->zd, ZSTD_d_windowLogMax, sizeof(size_t) == 8 ? 31 : 30);
    }
    return 0;
nomem:
    inl_err_format(err, errcap, INLAY_ERR_NOMEM, "%s: out of memory", r->name);
    return INLAY_ERR_NOMEM;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    if (n < k) return false;
    for (size_t i = 0; i < k; i++) {
        char c = s[n - k + i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != suffix[i]) return false;
    }
    return true;
}

/* What the first bytes say, or `dflt` when they say nothing. */
static input_compression by_magic(const uint8_t *p, size_t n, input_compression dflt)
{
    if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b) return INPUT_GZIP;
    if (n >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd) return INPUT_ZSTD;
    /* a skippable frame (0x184D2A50..5F, little-endian) starts a zstd stream too */
    if (n >= 4 && (p[0] & 0xf0) == 0x50 && p[1] == 0x2a && p[2] == 0x4d && p[3] == 0x18) return INPUT_ZSTD;
    return dflt;
}

/* Reads the first bytes (up to INPUT_PEEK; a pipe may hand them out one
 * at a time) and settles the compression: by magic, else `dflt`. The
 * bytes stay in `peek` for the first reads. */
static int look(input_reader *r, input_compression dflt, char *err, size_t errcap)
{
    while (r->peek_len < INPUT_PEEK) {
        ptrdiff_t n = stream_read(r, r->peek + r->peek_len, INPUT_PEEK - r->peek_len);
        if (n < 0) {
            inl_err_format(err, errcap, INLAY_ERR_IO, "%s", r->err.msg);
            return INLAY_ERR_IO;
        }
        if (n == 0) break;
        r->peek_len += (size_t)n;
    }
    r->comp = by_magic(r->peek, r->peek_len, dflt);
    return decoder_new(r, err, errcap);
}

int inl_input_open_after(input_reader **out, const char *path, const void *prefix, size_t prefix_len,
                         const inlay_allocator *a, char *err, size_t errcap)
{
    if (err && errcap) err[0] = 0;
    if (!out || !path || (!prefix && prefix_len)) {
        inl_err_format(err, errcap, INLAY_ERR_ARGUMENT, "no path given");
        return INLAY_ERR_ARGUMENT;
    }
    *out = NULL;
    bool is_stdin = strcmp(path, "-") == 0;
    input_compression by_name = INPUT_PLAIN;
    if (!is_stdin && ends_with(path, ".gz")) by_name = INPUT_GZIP;
    else if (!is_stdin && (ends_with(path, ".zst") || ends_with(path, ".zstd"))) by_name = INPUT_ZSTD;

    int fd = 0;
    if (!is_stdin) {
        do fd = open(path, O_RDONLY | O_CLOEXEC);
        while (fd < 0 && errno == EINTR);
        if (fd < 0) {
            char text[128];
            inl_err_format(err, errcap, INLAY_ERR_IO, "cannot open '%s': %s", path, errno_text(errno, text, sizeof text));
            return INLAY_ERR_IO;
        }
    }
    struct stat st;
    uint64_t size = 0;
    bool has_st = fstat(fd, &st) == 0;
    if (has_st) {
        if (S_ISDIR(st.st_mode)) {
            if (!is_stdin) close(fd);
            char text[128];
            inl_err_format(err, errcap, INLAY_ERR_IO, "cannot open '%s': %s", path, errno_text(EISDIR, text, sizeof text));
            return INLAY_ERR_IO;
        }
        if (S_ISREG(st.st_mode)) size = (uint64_t)st.st_size;
    }
#ifdef POSIX_FADV_SEQUENTIAL
    if (size) posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    input_reader *r;
    int rc = reader_new(&r, a, is_stdin ? "<stdin>" : path, INPUT_PLAIN, err, errcap);
    if (rc) {
        if (!is_stdin) close(fd);
        return rc;
    }
    r->fd = fd;
    r->own_fd = !is_stdin;
    r->regular = has_st && S_ISREG(st.st_mode);
    r->size = size;
    r->pre = prefix;
    r->pre_len = prefix_len;
    if (has_st) {
        r->has_id = true;
        r->dev = (uint64_t)st.st_dev;
        r->ino = (uint64_t)st.st_ino;
    }
    if ((rc = look(r, by_name, err, errcap))) {
        inl_input_close(r);
        return rc;
    }
    r->seekable = r->own_fd && size && !prefix_len && r->comp == INPUT_PLAIN;
    *out = r;
    return 0;
}

int inl_input_open(input_reader **out, const char *path, const inlay_allocator *a, char *err, size_t errcap)
{
    return inl_input_open_after(out, path, NULL, 0, a, err, errcap);
}

ptrdiff_t inl_input_membuf_read(void *ctx, void *dst, size_t cap)
{
    input_membuf *m = ctx;
    const size_t n = m->len - m->pos < cap ? m->len - m->pos : cap;
    if (n) memcpy(dst, m->p + m->pos, n);
    m->pos += n;
    return (ptrdiff_t)n;
}

int inl_input_open_fn(input_reader **out, input_read_fn fn, void *ctx, input_compression c,
                  const inlay_allocator *a, char *err, size_t errcap)
{
    if (err && errcap) err[0] = 0;
    if (!out || !fn || (c != INPUT_PLAIN && c != INPUT_GZIP && c != INPUT_ZSTD && c != INPUT_AUTO)) {
        inl_err_format(err, errcap, INLAY_ERR_ARGUMENT, "no read function or an unknown compression");
        return INLAY_ERR_ARGUMENT;
    }
    *out = NULL;
    input_reader *r;
    INL_FORWARD(reader_new(&r, a, "<input>", c, err, errcap));
    r->fn = fn;
    r->ctx = ctx;
    int rc = c == INPUT_AUTO ? look(r, INPUT_PLAIN, err, errcap) : decoder_new(r, err, errcap);
    if (rc) {
        inl_input_close(r);
        return rc;
    }
    *out = r;
    return 0;
}

static void back_free(input_reader *r)
{
    inl_mem_free(&r->alloc, r->back, r->back_len);
    r->back = NULL;
    r->back_pos = r->back_len = 0;
}

/* Up to cap decoded bytes of the stream side: 0 at its end, -1 failed. */
static ptrdiff_t decode_read(input_reader *r, void *dst, size_t cap)
{
    if (r->failed) return -1;
    if (r->fail_next) {
        r->failed = true;
        return -1;
    }
    if (r->done) return 0;
    ptrdiff_t n;
    if (r->comp == INPUT_GZIP) n = gzip_read(r, dst, cap);
    else if (r->comp == INPUT_ZSTD) n = zstd_read(r, dst, cap);
    else n = source_read(r, dst, cap);
    if (n == 0) r->done = true;
    return n;
}

static uint64_t stream_consumed(const input_reader *r)
{
    return r->raw_total - (r->raw_len - r->raw_pos) - (r->peek_len - r->peek_pos);
}

/* ---- read-ahead ------------------------------------------------------------ */

static void *ra_main(void *arg)
{
    input_reader *r = arg;
    readahead *ra = r->ra;
    pthread_mutex_lock(&ra->mu);
    for (;;) {
        ra_block *b = &ra->blocks[ra->fill_at];
        while (!ra->stop && b->state != RA_FREE) pthread_cond_wait(&ra->freed, &ra->mu);
        if (ra->stop) break;
        pthread_mutex_unlock(&ra->mu);
        size_t len = 0;
        bool end = false, failed = false;
        while (len < RA_BLOCK) {
            ptrdiff_t n = decode_read(r, b->mem + INPUT_BLOCK_HEAD + len, RA_BLOCK - len);
            if (n <= 0) {
                failed = n < 0;
                end = n == 0;
                break;
            }
            len += (size_t)n;
        }
        const uint64_t consumed = stream_consumed(r);
        pthread_mutex_lock(&ra->mu);
        b->len = len;
        b->end = end;
        b->failed = failed;
        b->consumed = consumed;
        b->state = RA_READY;
        ra->fill_at = (ra->fill_at + 1) % RA_BLOCKS;
        pthread_cond_signal(&ra->filled);
        if (end || failed) break;   /* nothing more to read; r->err is final */
    }
    pthread_mutex_unlock(&ra->mu);
    return NULL;
}

static void ra_free(input_reader *r)
{
    readahead *ra = r->ra;
    for (int i = 0; i < RA_BLOCKS; i++) inl_mem_free(&r->alloc, ra->blocks[i].mem, RA_BLOCK_MEM);
    inl_mem_free(&r->alloc, ra, sizeof *ra);
    r->ra = NULL;
}

int inl_input_readahead(input_reader *r)
{
    /* Plain bytes cost one copy from the page cache on either thread, and
     * copied where they are parsed they are in that core's cache: only
     * decoding pays for the thread. */
    if (r->ra || !r->regular || r->comp == INPUT_PLAIN || r->failed || r->done) return 0;
    readahead *ra = inl_mem_alloc(&r->alloc, sizeof *ra);
    if (!ra) return INLAY_ERR_NOMEM;
    memset(ra, 0, sizeof *ra);
    r->ra = ra;
    for (int i = 0; i < RA_BLOCKS; i++)
        if (!(ra->blocks[i].mem = inl_mem_alloc(&r->alloc, RA_BLOCK_MEM))) {
            ra_free(r);
            return INLAY_ERR_NOMEM;
        }
    ra->cur = ra->prev = -1;
    ra->consumed_before = stream_consumed(r);
    if (pthread_mutex_init(&ra->mu, NULL) != 0) goto no_mutex;
    if (pthread_cond_init(&ra->filled, NULL) != 0) goto no_filled;
    if (pthread_cond_init(&ra->freed, NULL) != 0) goto no_freed;
    if (inl_thread_start(&ra->thread, ra_main, r) != 0) goto no_thread;
    return 0;
no_thread:
    pthread_cond_destroy(&ra->freed);
no_freed:
    pthread_cond_destroy(&ra->filled);
no_filled:
    pthread_mutex_destroy(&ra->mu);
no_mutex:
    ra_free(r);
    return INLAY_ERR_NOMEM;
}

bool inl_input_reading_ahead(const input_reader *r)
{
    return r->ra != NULL;
}

static void ra_stop(input_reader *r)
{
    readahead *ra = r->ra;
    pthread_mutex_lock(&ra->mu);
    ra->stop = true;
    pthread_cond_broadcast(&ra->freed);
    pthread_mutex_unlock(&ra->mu);
    pthread_join(ra->thread, NULL);
    pthread_cond_destroy(&ra->freed);
    pthread_cond_destroy(&ra->filled);
    pthread_mutex_destroy(&ra->mu);
    ra_free(r);
}

/* Once the current block's bytes are all handed out, and it is not the
 * last: the next one becomes current (when the thread has filled it), and
 * the one before the current goes back to the thread. */
static void ra_advance(readahead *ra)
{
    ra_block *b = &ra->blocks[ra->take_at];
    pthread_mutex_lock(&ra->mu);
    if (ra->prev >= 0) {
        ra->blocks[ra->prev].state = RA_FREE;
        pthread_cond_signal(&ra->freed);
    }
    while (b->state != RA_READY) pthread_cond_wait(&ra->filled, &ra->mu);
    b->state = RA_HELD;
    pthread_mutex_unlock(&ra->mu);
    ra->prev = ra->cur;
    ra->cur = ra->take_at;
    ra->take_at = (ra->take_at + 1) % RA_BLOCKS;
    ra->cur_pos = 0;
}

/* The bytes of the current block not handed out yet, after advancing past
 * exhausted blocks; 0 at the end, -1 on failure. */
static ptrdiff_t ra_ready(readahead *ra)
{
    for (;;) {
        if (ra->cur >= 0) {
            const ra_block *b = &ra->blocks[ra->cur];
            if (ra->cur_pos < b->len) return (ptrdiff_t)(b->len - ra->cur_pos);
            if (b->failed) return -1;
            if (b->end) return 0;
        }
        ra_advance(ra);
    }
}

ptrdiff_t inl_input_block(input_reader *r, uint8_t **data)
{
    readahead *ra = r->ra;
    if (!ra || r->back) return INPUT_NO_BLOCK;
    ptrdiff_t n = ra_ready(ra);
    if (n <= 0) return n;
    *data = ra->blocks[ra->cur].mem + INPUT_BLOCK_HEAD + ra->cur_pos;
    ra->cur_pos += (size_t)n;
    return n;
}

ptrdiff_t inl_input_read(input_reader *r, void *dst, size_t cap)
{
    if (!r->ra && r->failed) return -1;
    if (cap == 0) return 0;
    if (r->back) {
        size_t n = r->back_len - r->back_pos < cap ? r->back_len - r->back_pos : cap;
        memcpy(dst, r->back + r->back_pos, n);
        r->back_pos += n;
        if (r->back_pos == r->back_len) back_free(r);
        return (ptrdiff_t)n;
    }
    if (!r->ra) return decode_read(r, dst, cap);
    readahead *ra = r->ra;
    ptrdiff_t n = ra_ready(ra);
    if (n <= 0) return n;
    if ((size_t)n > cap) n = (ptrdiff_t)cap;
    memcpy(dst, ra->blocks[ra->cur].mem + INPUT_BLOCK_HEAD + ra->cur_pos, (size_t)n);
    ra->cur_pos += (size_t)n;
    return n;
}

int inl_input_unread(input_reader *r, const void *p, size_t len)
{
    if (r->back) return INLAY_ERR_ARGUMENT;
    if (!len) return 0;
    r->back = inl_mem_alloc(&r->alloc, len);
    if (!r->back) return INLAY_ERR_NOMEM;
    memcpy(r->back, p, len);
    r->back_len = len;
    r->back_pos = 0;
    return 0;
}

void inl_input_allow_cut(input_reader *r)
{
    r->cut_ok = true;
}

input_compression inl_input_compression(const input_reader *r)
{
    return r->comp;
}

ptrdiff_t inl_input_pread(input_reader *r, uint64_t offset, void *dst, size_t cap)
{
    if (!r->seekable || offset > (uint64_t)INT64_MAX) return -1;
    if (cap > INPUT_MAX_READ) cap = INPUT_MAX_READ;
    size_t got = 0;
    while (got < cap) {
        ssize_t n = pread(r->fd, (uint8_t *)dst + got, cap - got, (off_t)(offset + got));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -1;
        if (n == 0) break;
        got += (size_t)n;
    }
    return (ptrdiff_t)got;
}

bool inl_input_identity(const input_reader *r, uint64_t *dev, uint64_t *ino)
{
    if (!r->has_id) return false;
    *dev = r->dev;
    *ino = r->ino;
    return true;
}

const char *inl_input_errmsg(const input_reader *r)
{
    return r->err.msg;
}

uint64_t inl_input_size(const input_reader *r)
{
    return r->size;
}

uint64_t inl_input_consumed(const input_reader *r)
{
    const readahead *ra = r->ra;
    if (!ra) return stream_consumed(r);
    if (ra->cur < 0) return ra->consumed_before;
    const ra_block *b = &ra->blocks[ra->cur];
    /* plain bytes are the file's: exact; decoded ones: as far as the block's read went */
    return r->comp == INPUT_PLAIN ? b->consumed - (b->len - ra->cur_pos) : b->consumed;
}

const char *inl_input_name(const input_reader *r)
{
    return r->name;
}

void inl_input_close(input_reader *r)
{
    if (!r) return;
    inlay_allocator a = r->alloc;
    if (r->ra) ra_stop(r);
    if (r->own_fd && r->fd >= 0) close(r->fd);
    if (r->zs_ready) inflateEnd(&r->zs);
    if (r->zd) ZSTD_freeDCtx(r->zd);
    if (r->raw) inl_mem_free(&a, r->raw, INPUT_RAW_CAP);
    back_free(r);
    inl_mem_strfree(&a, r->name);
    inl_mem_free(&a, r, sizeof *r);
}
