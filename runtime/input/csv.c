/*
 * csv.c — the CSV tokenizer (see csv.h).
 *
 * One buffer holds the input: buf[pos..end) is read but not yet returned,
 * buf[end] is always an LF sentinel, and CSV_PAD bytes are allocated from
 * there on, so a 64-byte mask of the stop bytes (delimiter, CR, LF, quote)
 * can be taken at any position up to the sentinel without a bounds check.
 * Field ends are the set bits of that mask, taken in order; a stop at `end`
 * is told apart from a real LF by its position.
 *
 * A record is parsed only when it lies whole in the buffer. When the data
 * runs out mid-record the parse gives up (P_MORE), the unread tail moves to
 * the front, at least as many new bytes as the tail holds are read (the
 * buffer doubles when it is less than twice the tail), and the record is
 * parsed again from its start: work stays linear however small the reads
 * and however long the record. With the input's read-ahead the buffer is a
 * block of the input itself: the unread tail is copied into the head room
 * in front of the next block's bytes, and the block becomes the buffer
 * (no copy of the block); a tail longer than the head room goes back to the
 * reader's own buffer. A read that fails after others returned bytes ends
 * the refill: those bytes are parsed before the error is reported, so the
 * records before damaged input do not depend on the read sizes. Nothing is written into the buffer during a
 * parse, so a restart sees the input as it was; fields with doubled quotes
 * are unescaped into `scratch` once the record is complete, which also
 * keeps the raw record intact for reject files.
 *
 * With an escape character (backslash quoting) the stop bytes are the
 * delimiter, LF, the quote and the escape: CR is no longer one, and an
 * unquoted field that ends at an LF gives back a CR before it.
 */
#include "csv.h"

#include "error.h"

#include <stdio.h>

/* CSV_PORTABLE builds the word-at-a-time scanner on x86 too, for testing it. */
#if defined(__SSE2__) && !defined(CSV_PORTABLE)
#include <emmintrin.h>
#define CSV_SSE2 1
#endif

#define CSV_BUF_INIT ((size_t)1 << 20)
/* The sentinel and the rest of a 64-byte mask taken at it. */
#define CSV_PAD 64
#define CSV_FIELDS_INIT 16
#define CSV_NO_QUOTE 256           /* never equal to a byte */

_Static_assert(CSV_PAD <= INPUT_BLOCK_PAD, "a read-ahead block has room for the sentinel's mask");

enum { P_RECORD, P_MORE, P_BAD, P_END, P_NOMEM };

struct csv_reader {
    inlay_allocator alloc;
    input_reader *in;
    uint8_t delim;
    int quote;                    /* the quote byte, or CSV_NO_QUOTE */
    int esc;                      /* the escape byte, or CSV_NO_QUOTE for doubled quotes */

    uint8_t *buf;                 /* own, or a block of the input's read-ahead */
    uint8_t *own;                 /* cap + CSV_PAD bytes */
    size_t cap, pos, end;
    uint64_t base;                /* stream offset of buf[0] */
    uint64_t line;                /* physical line of buf[pos] */
    bool eof;                     /* the input has nothing more */
    /* Where the last record left the stop mask: stop bytes of blk[0..64)
     * not yet passed. Dropped when the buffer moves. */
    bool scan_valid;
    const uint8_t *blk;
    uint64_t bits;
    bool bom_done;
    size_t skip;                  /* rows still to skip */

    csv_field *fields;
    size_t fcap;
    buf scratch;                  /* unescaped fields of the last record */

    const uint8_t *raw;
    size_t raw_len;
    uint64_t rec_line, err_line, err_column;
    bool fatal;
    inl_err err;                  /* status: see inl_csv_error_status */
};

void inl_csv_options_init(csv_options *o)
{
    o->delimiter = ',';
    o->quote = '"';
    o->escape = 0;
    o->skip_rows = 0;
}

/* ---- scanning ------------------------------------------------------------ */

/* The stop bytes: delimiter, LF, CR and quote (LF again when there is no
 * quote). stops64(p) is the mask of stop bytes in p[0..64), bit i for p[i];
 * a parse walks it bit by bit, so finding the end of a field does not wait
 * on loading the bytes at the start of the field. */
#ifdef CSV_SSE2
typedef struct stopset { __m128i a, b, c, d; } stopset;

static stopset stopset_make(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
    stopset s = { _mm_set1_epi8((char)a), _mm_set1_epi8((char)b), _mm_set1_epi8((char)c),
                  _mm_set1_epi8((char)d) };
    return s;
}

static inline uint64_t stops16(const uint8_t *p, const stopset *s)
{
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, s->a), _mm_cmpeq_epi8(x, s->b)),
                             _mm_or_si128(_mm_cmpeq_epi8(x, s->c), _mm_cmpeq_epi8(x, s->d)));
    return (uint32_t)_mm_movemask_epi8(m);
}

static inline uint64_t stops64(const uint8_t *p, const stopset *s)
{
    return stops16(p, s) | stops16(p + 16, s) << 16 | stops16(p + 32, s) << 32 | stops16(p + 48, s) << 48;
}
#else
/* Eight bytes at a time in a word: a byte equal to c gets its top bit set,
 * exactly (no borrow between bytes), and the eight top bits are gathered
 * into one byte by a multiply whose partial products never overlap. */
typedef struct stopset { uint64_t a, b, c, d; } stopset;

#define CSV_ONES 0x0101010101010101ULL

static stopset stopset_make(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
    stopset s = { a * CSV_ONES, b * CSV_ONES, c * CSV_ONES, d * CSV_ONES };
    return s;
}

static inline uint64_t eq_bytes(uint64_t x, uint64_t c)
{
    uint64_t t = x ^ c;
    return ~(((t & 0x7F7F7F7F7F7F7F7FULL) + 0x7F7F7F7F7F7F7F7FULL) | t) & 0x8080808080808080ULL;
}

static inline uint64_t stops64(const uint8_t *p, const stopset *s)
{
    uint64_t m = 0;
    for (int k = 0; k < 8; k++) {
        uint64_t x;
        memcpy(&x, p + 8 * k, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        x = __builtin_bswap64(x);
#endif
        uint64_t h = eq_bytes(x, s->a) | eq_bytes(x, s->b) | eq_bytes(x, s->c) | eq_bytes(x, s->d);
        m |= ((h >> 7) * 0x0102040810204080ULL) >> 56 << (8 * k);
    }
    return m;
}
#endif

/* ---- buffer -------------------------------------------------------------- */

static int set_fatal(csv_reader *r, int status, const char *msg)
{
    inl_err_set(&r->err, status, "%s", msg);
    r->fatal = true;
    return -1;
}

/* Our own buffer with room for keep bytes and as many more (doubling);
 * with `kept` its first keep bytes stay, else they are stale and the
 * larger buffer is a new one rather than a copy. 0, or -1 with the reader
 * failed. */
static int own_room(csv_reader *r, size_t keep, bool kept)
{
    if (keep <= r->cap / 2) return 0;
    size_t cap = r->cap;
    while (cap / 2 < keep) {
        if (cap > (SIZE_MAX - CSV_PAD) / 2) return set_fatal(r, INLAY_ERR_NOMEM, "out of memory");
        cap *= 2;
    }
    uint8_t *b = kept ? inl_mem_realloc(&r->alloc, r->own, r->cap + CSV_PAD, cap + CSV_PAD)
                      : inl_mem_alloc(&r->alloc, cap + CSV_PAD);
    if (!b) return set_fatal(r, INLAY_ERR_NOMEM, "out of memory");
    if (!kept) inl_mem_free(&r->alloc, r->own, r->cap + CSV_PAD);
    r->own = b;
    r->cap = cap;
    return 0;
}

/* The sentinel at end, and defined bytes under the scanners' last load. */
static void put_sentinel(csv_reader *r)
{
    memset(r->buf + r->end, 0, CSV_PAD);
    r->buf[r->end] = '\n';
}

/* Moves the unread tail to the front and reads at least as many bytes as it
 * holds (or to the end of the input): in front of the input's next block
 * when there is read-ahead and the tail fits its head room, else in our own
 * buffer. 0, or -1 with the reader failed. */
static int refill(csv_reader *r)
{
    const size_t keep = r->end - r->pos;
    r->scan_valid = false;
    if (keep <= INPUT_BLOCK_HEAD) {
        uint8_t *data;
        const ptrdiff_t n = inl_input_block(r->in, &data);
        if (n < 0 && n != INPUT_NO_BLOCK) return set_fatal(r, INLAY_ERR_IO, inl_input_errmsg(r->in));
        if (n >= 0) {   /* at the end (0) the buffer stays where it is */
            if (n == 0) r->eof = true;
            else {
                memcpy(data - keep, r->buf + r->pos, keep);
                r->base += r->pos;
                r->buf = data - keep;
                r->pos = 0;
                r->end = keep + (size_t)n;
            }
            put_sentinel(r);
            return 0;
        }
    }
    const bool from_block = r->buf != r->own;
    if (!from_block && r->pos) memmove(r->buf, r->buf + r->pos, keep);
    if (own_room(r, keep, !from_block)) return -1;
    if (from_block) memcpy(r->own, r->buf + r->pos, keep);
    r->buf = r->own;
    r->base += r->pos;
    r->pos = 0;
    r->end = keep;
    size_t want = keep ? keep : 1, got = 0;
    while (got < want && r->end < r->cap) {
        ptrdiff_t n = inl_input_read(r->in, r->buf + r->end, r->cap - r->end);
        if (n < 0) {
            /* The bytes read before the failure are parsed first: the
             * input's errors are sticky, so the next refill, once no
             * complete record is left, meets this one again. */
            if (got) break;
            return set_fatal(r, INLAY_ERR_IO, inl_input_errmsg(r->in));
        }
        if (n == 0) {
            r->eof = true;
            break;
        }
        r->end += (size_t)n;
        got += (size_t)n;
    }
    put_sentinel(r);
    return 0;
}

static int grow_fields(csv_reader *r)
{
    size_t n = r->fcap * 2;
    if (n > SIZE_MAX / sizeof(csv_field)) return -1;
    csv_field *f = inl_mem_realloc(&r->alloc, r->fields, r->fcap * sizeof *f, n * sizeof *f);
    if (!f) return -1;
    r->fields = f;
    r->fcap = n;
    return 0;
}

/* ---- records ------------------------------------------------------------- */

/* A bad record: it runs from rec to the end of the line holding `at`
 * (physical line at_line), where reading resumes. */
static int bad_record(csv_reader *r, const uint8_t *rec, const uint8_t *at, uint64_t at_line, const char *msg)
{
    const uint8_t *e = r->buf + r->end;
    const uint8_t *nl = memchr(at, '\n', (size_t)(e - at));
    if (!nl) {
        if (!r->eof) return P_MORE;
        nl = e;
    }
    const uint8_t *stop = nl;
    if (nl < e && stop > rec && stop[-1] == '\r') stop--;
    r->raw = rec;
    r->raw_len = (size_t)(stop - rec);
    r->err_line = at_line;
    const uint8_t *ls = at;
    while (ls > rec && ls[-1] != '\n') ls--;
    r->err_column = (uint64_t)(at - ls) + 1;
    r->pos = (size_t)(nl - r->buf) + (nl < e);
    r->line = at_line + (nl < e);
    inl_err_set(&r->err, INLAY_ERR_VALUE, "%s", msg);
    return P_BAD;
}

/* Rewrites the quoted fields holding escapes into scratch: the escape
 * byte is dropped before a quote or another escape byte (elsewhere it is
 * data). */
static void unescape_with(const csv_reader *r, csv_field *f, char **outp)
{
    const char q = (char)r->quote, x = (char)r->esc;
    const char *s = f->data, *e = s + f->len;
    const char *hit = memchr(s, x, f->len);
    if (!hit) return;
    char *out = *outp, *start = out;
    while (hit) {
        size_t k = (size_t)(hit - s);
        memcpy(out, s, k);
        out += k;
        if (hit + 1 < e && (hit[1] == q || hit[1] == x)) {
            *out++ = hit[1];
            s = hit + 2;
        } else {
            *out++ = x;
            s = hit + 1;
        }
        hit = s < e ? memchr(s, x, (size_t)(e - s)) : NULL;
    }
    memcpy(out, s, (size_t)(e - s));
    out += e - s;
    f->data = start;
    f->len = (size_t)(out - start);
    *outp = out;
}

/* Rewrites the quoted fields holding doubled quotes (or escapes) into scratch. */
static int unescape(csv_reader *r, csv_field *fields, size_t n)
{
    const char q = (char)r->quote;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        if (fields[i].quoted) total += fields[i].len;
    r->scratch.len = 0;
    if (inl_buf_reserve(&r->scratch, &r->alloc, total)) return -1;
    char *out = (char *)r->scratch.data;
    for (size_t i = 0; i < n; i++) {
        csv_field *f = &fields[i];
        if (r->esc != CSV_NO_QUOTE) {
            if (f->quoted) unescape_with(r, f, &out);
            continue;
        }
        const char *s = f->data, *e = s + f->len;
        const char *hit = f->quoted ? memchr(s, q, f->len) : NULL;
        if (!hit) continue;
        char *start = out;
        while (hit) {
            size_t k = (size_t)(hit - s) + 1;   /* through the first quote of the pair */
            memcpy(out, s, k);
            out += k;
            s = hit + 2;
            hit = memchr(s, q, (size_t)(e - s));
        }
        memcpy(out, s, (size_t)(e - s));
        out += e - s;
        f->data = start;
        f->len = (size_t)(out - start);
    }
    r->scratch.len = (size_t)(out - (char *)r->scratch.data);
    return 0;
}

/* The next stop byte: q = its position, and it is passed. */
#define NEXT_STOP(q)                                  \
    do {                                              \
        while (INLAY_UNLIKELY(!bits)) {               \
            blk += 64;                                \
            bits = stops64(blk, &set);                \
        }                                             \
        (q) = blk + __builtin_ctzll(bits);            \
        bits &= bits - 1;                             \
    } while (0)

/* Passes every stop byte before x. */
#define SKIP_TO(x)                                    \
    do {                                              \
        size_t off_ = (size_t)((x) - blk);            \
        if (off_ < 64) {                              \
            bits &= ~(uint64_t)0 << off_;             \
        } else {                                      \
            blk = (x);                                \
            bits = stops64(blk, &set);                \
        }                                             \
    } while (0)

/* Parses the record at pos. The hot loop: each field end is the next bit
 * of the stop mask, the cases are ordered by frequency, and nothing but the
 * field array is written until the record is complete. */
static int parse_record(csv_reader *r, size_t *count)
{
    const uint8_t *const base = r->buf;
    const uint8_t *const e = base + r->end;
    const uint8_t *p = base + r->pos;
    const bool eof = r->eof;
    const uint8_t delim = r->delim;
    const int quote = r->quote;
    uint64_t line = r->line;

    /* Empty lines are no records. */
    for (;;) {
        if (*p == '\n') {
            if (p == e) {
                r->pos = r->end;
                r->line = line;
                return eof ? P_END : P_MORE;
            }
            p++;
            line++;
            continue;
        }
        if (*p == '\r' && p + 1 < e && p[1] == '\n') {
            p += 2;
            line++;
            continue;
        }
        break;
    }
    r->pos = (size_t)(p - base);
    r->line = line;
    if (*p == '\r' && p + 1 == e && !eof) return P_MORE;

    const int esc = r->esc;
    const stopset set = esc != CSV_NO_QUOTE ? stopset_make(delim, '\n', (uint8_t)quote, (uint8_t)esc)
                        : stopset_make(delim, '\n', '\r', quote == CSV_NO_QUOTE ? '\n' : (uint8_t)quote);
    const uint8_t *blk;
    uint64_t bits;
    if (r->scan_valid) {
        blk = r->blk;
        bits = r->bits;
        SKIP_TO(p);
    } else {
        blk = p;
        bits = stops64(blk, &set);
    }
    const uint8_t *const rec = p;
    csv_field *f = r->fields, *fend = r->fields + r->fcap;
    bool escaped = false;
    const uint8_t *stop;          /* end of the record's bytes */
    const uint8_t *next;          /* start of the next record */
    uint8_t c;

    for (;;) {
        if (INLAY_UNLIKELY(f == fend)) {
            size_t n = (size_t)(f - r->fields);
            if (grow_fields(r)) return P_NOMEM;
            f = r->fields + n;
            fend = r->fields + r->fcap;
        }
        if (INLAY_LIKELY(*p != quote)) {
            const uint8_t *q;
            for (;;) {
                NEXT_STOP(q);
                c = *q;
                if (INLAY_LIKELY(c == delim || c == '\n')) break;
                if (c == '\r') {
                    if (q + 1 == e) {
                        if (!eof) return P_MORE;
                    } else if (q[1] == '\n') {
                        break;
                    }
                }
                /* a quote or a lone CR inside the field: data */
            }
            f->data = (const char *)p;
            f->len = (size_t)(q - p);
            f->quoted = false;
            f++;
            if (INLAY_LIKELY(c == delim)) {
                p = q + 1;
                continue;
            }
            stop = q;
            if (esc != CSV_NO_QUOTE && q > p && q < e && q[-1] == '\r') {   /* CR is no stop byte here */
                f[-1].len--;
                stop = q - 1;
            }
            if (c == '\r') {
                next = q + 2;
                line++;
            } else if (q < e) {
                next = q + 1;
                line++;
            } else {
                if (!eof) return P_MORE;
                next = e;
            }
            break;
        }

        /* A quoted field: runs to a quote that is not doubled. */
        const uint64_t open_line = line;
        const uint8_t *s;
        SKIP_TO(p + 1);
        for (;;) {
            NEXT_STOP(s);
            c = *s;
            if (c == esc) {
                if (s + 1 == e && !eof) return P_MORE;
                if (s + 1 < e && (s[1] == quote || s[1] == esc)) {
                    escaped = true;
                    SKIP_TO(s + 2);
                }
                continue;   /* before anything else: data */
            }
            if (c == quote) {
                if (esc == CSV_NO_QUOTE && s + 1 < e && s[1] == quote) {
                    escaped = true;
                    SKIP_TO(s + 2);
                    continue;
                }
                if (s + 1 == e && !eof) return P_MORE;
                break;
            }
            if (c == '\n') {
                if (s == e) {
                    if (!eof) return P_MORE;
                    return bad_record(r, rec, p, open_line, "unterminated quoted field");
                }
                line++;
            }
            /* the delimiter or CR inside quotes: data */
        }
        f->data = (const char *)(p + 1);
        f->len = (size_t)(s - (p + 1));
        f->quoted = true;
        f++;
        const uint8_t *a = s + 1;
        if (a == e) {
            stop = next = e;
            break;
        }
        c = *a;
        if (c == delim) {
            p = a + 1;
            SKIP_TO(p);
            continue;
        }
        if (c == '\n') {
            stop = a;
            next = a + 1;
            line++;
            break;
        }
        if (c == '\r') {
            if (a + 1 == e && !eof) return P_MORE;
            if (a + 1 < e && a[1] == '\n') {
                stop = a;
                next = a + 2;
                line++;
                break;
            }
        }
        return bad_record(r, rec, a, line, "unexpected character after closing quote");
    }

    size_t n = (size_t)(f - r->fields);
    if (escaped && unescape(r, r->fields, n)) return P_NOMEM;
    r->raw = rec;
    r->raw_len = (size_t)(stop - rec);
    r->rec_line = r->line;
    r->pos = (size_t)(next - base);
    r->line = line;
    /* The mask may still hold the record's terminator; the next parse
     * starts with SKIP_TO past it. */
    r->blk = blk;
    r->bits = bits;
    r->scan_valid = true;
    *count = n;
    return P_RECORD;
}

/* The BOM and the skipped rows, before the first record. */
static int prologue(csv_reader *r)
{
    if (!r->bom_done) {
        if (r->end - r->pos < 3 && !r->eof) return P_MORE;
        if (r->end - r->pos >= 3 && memcmp(r->buf + r->pos, "\xEF\xBB\xBF", 3) == 0) r->pos += 3;
        r->bom_done = true;
    }
    while (r->skip) {
        const uint8_t *nl = memchr(r->buf + r->pos, '\n', r->end - r->pos);
        if (!nl) {
            r->pos = r->end;
            if (!r->eof) return P_MORE;
            r->skip = 0;
            break;
        }
        r->pos = (size_t)(nl - r->buf) + 1;
        r->line++;
        r->skip--;
    }
    return P_RECORD;
}

int inl_csv_next(csv_reader *r, const csv_field **fields, size_t *nfields)
{
    if (r->fatal) return -1;
    r->err.status = 0;
    for (;;) {
        int rc = r->bom_done && r->skip == 0 ? P_RECORD : prologue(r);
        size_t n = 0;
        if (rc == P_RECORD) rc = parse_record(r, &n);
        switch (rc) {
        case P_RECORD:
            *fields = r->fields;
            *nfields = n;
            return 1;
        case P_END:
            return 0;
        case P_BAD:
            return -1;
        case P_NOMEM:
            return set_fatal(r, INLAY_ERR_NOMEM, "out of memory");
        default:
            if (refill(r)) return -1;
        }
    }
}

/* ---- open / close / accessors -------------------------------------------- */

int inl_csv_open(csv_reader **out, input_reader *in, const csv_options *o, const inlay_allocator *a)
{
    csv_options def;
    if (!o) {
        inl_csv_options_init(&def);
        o = &def;
    }
    if (!out || !in) return INLAY_ERR_ARGUMENT;
    *out = NULL;
    const uint8_t d = (uint8_t)o->delimiter, q = (uint8_t)o->quote, x = (uint8_t)o->escape;
    if (d == '\n' || d == '\r' || q == '\n' || q == '\r' || (q && q == d)) return INLAY_ERR_ARGUMENT;
    if (q && x && x != q && (x == '\n' || x == '\r' || x == d)) return INLAY_ERR_ARGUMENT;

    inlay_allocator al = inl_mem_or_default(a);
    csv_reader *r = inl_mem_alloc(&al, sizeof *r);
    if (!r) return INLAY_ERR_NOMEM;
    memset(r, 0, sizeof *r);
    r->alloc = al;
    r->in = in;
    r->delim = d;
    r->quote = q ? q : CSV_NO_QUOTE;
    r->esc = q && x && x != q ? x : CSV_NO_QUOTE;
    r->skip = o->skip_rows;
    r->line = 1;
    r->cap = CSV_BUF_INIT;
    r->fcap = CSV_FIELDS_INIT;
    r->own = r->buf = inl_mem_alloc(&al, r->cap + CSV_PAD);
    r->fields = inl_mem_alloc(&al, r->fcap * sizeof *r->fields);
    if (!r->buf || !r->fields) {
        inl_csv_close(r);
        return INLAY_ERR_NOMEM;
    }
    memset(r->buf, 0, CSV_PAD);
    r->buf[0] = '\n';
    *out = r;
    return 0;
}

uint64_t inl_csv_record_line(const csv_reader *r)
{
    return r->rec_line;
}

uint64_t inl_csv_error_line(const csv_reader *r)
{
    return r->err_line;
}

uint64_t inl_csv_error_column(const csv_reader *r)
{
    return r->err_column;
}

const char *inl_csv_errmsg(const csv_reader *r)
{
    return r->err.msg;
}

int inl_csv_error_status(const csv_reader *r)
{
    return r->err.status;
}

uint64_t inl_csv_bytes_read(const csv_reader *r)
{
    return r->base + r->pos;
}

const char *inl_csv_raw_record(const csv_reader *r, size_t *len)
{
    *len = r->raw_len;
    return (const char *)r->raw;
}

void inl_csv_close(csv_reader *r)
{
    if (!r) return;
    inlay_allocator a = r->alloc;
    inl_mem_free(&a, r->own, r->cap + CSV_PAD);
    inl_mem_free(&a, r->fields, r->fcap * sizeof *r->fields);
    inl_buf_free(&r->scratch, &a);
    inl_mem_free(&a, r, sizeof *r);
}
