/*
 * check_pageindex.c — what a reader skips by, as the public writer puts it
 * in the file: the statistics of every data page header, the chunk's
 * statistics folded from them, byte-array bounds cut to
 * statistics_truncate_length, the page index (a ColumnIndex and an
 * OffsetIndex per chunk), size statistics, page CRCs, sorting_columns with
 * the order check, and bloom filters.
 *
 * Each test writes rows it generates, reads the bytes back with
 * thrift_reader.h (independent of the encoder), walks every chunk page by
 * page, and compares with what it works out itself from the rows: per-page
 * min/max/null counts in each column's order, level histograms, byte
 * counts, CRC32s (zlib) and bloom filter bits (XXH64 and BloomFilter.md's
 * block/bit rule written out here). page_rows is small so the page
 * boundaries are known.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <zlib.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "thrift_reader.h"
#include "unit.h"

enum { PAGE_DATA_V1 = 0, PAGE_DICT = 2, PAGE_DATA_V2 = 3 };
enum { ORDER_UNORDERED = 0, ORDER_ASCENDING = 1, ORDER_DESCENDING = 2 };

/* ---- the file ------------------------------------------------------------------------- */

typedef struct pfile {
    inlay_buffer out;
    fm_file *f;
} pfile;

static inlay_writer *pfile_open(pfile *p, const inlay_schema *s, const inlay_options *o)
{
    memset(p, 0, sizeof *p);
    inlay_buffer_init(&p->out, NULL);
    inlay_writer *w = NULL;
    int st = inlay_writer_open(&w, inlay_buffer_sink(&p->out), s, o);
    ck_assert_msg(st == INLAY_OK, "open: %d %s", st, w ? inlay_writer_errmsg(w) : "");
    return w;
}

static void pfile_close(pfile *p, inlay_writer *w)
{
    int st = inlay_writer_close(w);
    ck_assert_msg(st == INLAY_OK, "close: %d %s", st, inlay_writer_errmsg(w));
    inlay_writer_free(w);
    const char *why = "";
    p->f = fm_read(p->out.data, p->out.len, &why);
    ck_assert_msg(p->f != NULL, "the footer does not parse: %s", why);
}

static void pfile_free(pfile *p)
{
    free(p->f);
    inlay_buffer_free(&p->out);
}

static const fm_chunk *chunk_of(const pfile *p, int rg, const char *name)
{
    const fm_chunk *k = fm_find(p->f, rg, name);
    ck_assert_msg(k != NULL, "no chunk '%s' in row group %d", name, rg);
    return k;
}

#define APPEND_OK(w, call)                                                                  \
    do {                                                                                    \
        int st_ = (call);                                                                   \
        ck_assert_msg(st_ == INLAY_OK, "%s: %d %s", #call, st_, inlay_writer_errmsg(w));    \
    } while (0)

/* ---- walking a chunk page by page ------------------------------------------------------- */

#define MAX_PAGES 64

typedef struct wpage {
    size_t at;                   /* file offset of the page header */
    ph h;
} wpage;

typedef struct walk {
    wpage dict[2];
    int ndict;
    wpage data[MAX_PAGES];
    int ndata;
} walk;

/* Every page of chunk k, from its first page to its last byte: the pages
 * must tile the chunk's total_compressed_size exactly. */
static void walk_chunk(const pfile *p, const fm_chunk *k, walk *w)
{
    memset(w, 0, sizeof *w);
    const size_t start = (size_t)(k->dictionary_page_offset >= 0 ? k->dictionary_page_offset : k->data_page_offset);
    const size_t end = start + (size_t)k->total_compressed;
    ck_assert_msg(end <= p->out.len, "chunk '%s' runs past the file", k->path);
    size_t at = start;
    while (at < end) {
        ph h;
        ck_assert_msg(ph_read(p->out.data + at, end - at, &h), "chunk '%s': no page header at %zu", k->path, at);
        ck_assert_msg(h.compressed >= 0 && at + h.header_len + (size_t)h.compressed <= end,
                      "chunk '%s': page at %zu runs past the chunk", k->path, at);
        if (h.type == PAGE_DICT) {
            ck_assert_msg(w->ndict < 2 && w->ndata == 0, "chunk '%s': a dictionary page out of place", k->path);
            ck_assert_uint_eq(at, (size_t)k->dictionary_page_offset);
            w->dict[w->ndict].at = at;
            w->dict[w->ndict++].h = h;
        } else {
            ck_assert_msg(h.type == PAGE_DATA_V1 || h.type == PAGE_DATA_V2, "chunk '%s': page type %d", k->path,
                          h.type);
            ck_assert_int_lt(w->ndata, MAX_PAGES);
            if (w->ndata == 0) ck_assert_uint_eq(at, (size_t)k->data_page_offset);
            w->data[w->ndata].at = at;
            w->data[w->ndata++].h = h;
        }
        at += h.header_len + (size_t)h.compressed;
    }
    ck_assert_uint_eq(at, end);
}

/* The chunk's ColumnIndex / OffsetIndex, which must be present and parse. */
static void read_column_index(const pfile *p, const fm_chunk *k, ci_index *ci)
{
    ck_assert_msg(k->index_offset[1] >= 0 && k->index_length[1] > 0, "chunk '%s' of row group %d: no ColumnIndex",
                  k->path, k->row_group);
    ck_assert((size_t)k->index_offset[1] + (size_t)k->index_length[1] <= p->out.len - 8);
    ck_assert_msg(ci_read(p->out.data + k->index_offset[1], (size_t)k->index_length[1], ci),
                  "chunk '%s': the ColumnIndex does not parse", k->path);
}

static void read_offset_index(const pfile *p, const fm_chunk *k, oi_index *oi)
{
    ck_assert_msg(k->index_offset[0] >= 0 && k->index_length[0] > 0, "chunk '%s' of row group %d: no OffsetIndex",
                  k->path, k->row_group);
    ck_assert((size_t)k->index_offset[0] + (size_t)k->index_length[0] <= p->out.len - 8);
    ck_assert_msg(oi_read(p->out.data + k->index_offset[0], (size_t)k->index_length[0], oi),
                  "chunk '%s': the OffsetIndex does not parse", k->path);
}

/* The OffsetIndex describes exactly the data pages walked, and their first
 * rows are first_rows[] (NULL: multiples of page_rows). */
static void check_offset_index(const pfile *p, const fm_chunk *k, const walk *w, size_t page_rows,
                               const int64_t *first_rows)
{
    oi_index oi;
    read_offset_index(p, k, &oi);
    ck_assert_int_eq(oi.npages, w->ndata);
    for (int i = 0; i < w->ndata; i++) {
        const oi_page *g = &oi.pages[i];
        const wpage *d = &w->data[i];
        ck_assert_msg(g->offset == (int64_t)d->at, "'%s' page %d: offset %lld, the page is at %zu", k->path, i,
                      (long long)g->offset, d->at);
        ck_assert_msg(g->compressed_page_size == (int32_t)(d->h.header_len + (size_t)d->h.compressed),
                      "'%s' page %d: compressed_page_size %d, header %zu + body %d", k->path, i,
                      g->compressed_page_size, d->h.header_len, d->h.compressed);
        const int64_t want = first_rows ? first_rows[i] : (int64_t)(i * page_rows);
        ck_assert_msg(g->first_row_index == want, "'%s' page %d: first_row_index %lld, want %lld", k->path, i,
                      (long long)g->first_row_index, (long long)want);
    }
    oi_free(&oi);
}

/* ---- the model: the rows a test appends ---------------------------------------------------- */

enum { K_I32, K_U32, K_I64, K_U64, K_DOUBLE, K_BYTES };

typedef struct mcol {
    const char *name;
    int kind;
    bool *null;                  /* per row; NULL: none */
    int64_t *iv;                 /* integer kinds: the value (the bits, for unsigned ones) */
    double *dv;
    inlay_bytes *bv;
} mcol;

static bool is_null(const mcol *c, size_t r)
{
    return c->null && c->null[r];
}

/* Usable as a bound: not null, not NaN. */
static bool bounded(const mcol *c, size_t r)
{
    return !is_null(c, r) && !(c->kind == K_DOUBLE && isnan(c->dv[r]));
}

static int sign3(int64_t d) { return (d > 0) - (d < 0); }

static int bytes_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    for (size_t i = 0; i < alen && i < blen; i++)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return (alen > blen) - (alen < blen);
}

/* Rows a and b in the column's order (parquet.thrift ColumnOrder). */
static int row_cmp(const mcol *c, size_t a, size_t b)
{
    switch (c->kind) {
    case K_I32: return sign3((int64_t)(int32_t)c->iv[a] - (int64_t)(int32_t)c->iv[b]);
    case K_U32: {
        uint32_t x = (uint32_t)c->iv[a], y = (uint32_t)c->iv[b];
        return (x > y) - (x < y);
    }
    case K_I64: return (c->iv[a] > c->iv[b]) - (c->iv[a] < c->iv[b]);
    case K_U64: {
        uint64_t x = (uint64_t)c->iv[a], y = (uint64_t)c->iv[b];
        return (x > y) - (x < y);
    }
    case K_DOUBLE: return (c->dv[a] > c->dv[b]) - (c->dv[a] < c->dv[b]);
    default:
        return bytes_cmp(c->bv[a].data, c->bv[a].len, c->bv[b].data, c->bv[b].len);
    }
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* A bound as PLAIN bytes. */
typedef struct bound {
    uint8_t small[8];
    const uint8_t *p;
    size_t len;
} bound;

static void bound_of(const mcol *c, size_t r, bound *b, bool is_max)
{
    b->p = b->small;
    switch (c->kind) {
    case K_I32: case K_U32: put_le(b->small, (uint64_t)c->iv[r], 4); b->len = 4; break;
    case K_I64: case K_U64: put_le(b->small, (uint64_t)c->iv[r], 8); b->len = 8; break;
    case K_DOUBLE: {
        double d = c->dv[r];
        /* parquet.thrift: a zero min is written -0.0, a zero max +0.0 */
        if (d == 0) d = is_max ? 0.0 : -0.0;
        uint64_t bits;
        memcpy(&bits, &d, 8);
        put_le(b->small, bits, 8);
        b->len = 8;
        break;
    }
    default:
        b->p = c->bv[r].data;
        b->len = c->bv[r].len;
        break;
    }
}

/* Two bounds of the column in its order (-0.0 and +0.0 equal). */
static int bound_cmp(const mcol *c, const bound *a, const bound *b)
{
    switch (c->kind) {
    case K_I32: return sign3((int64_t)(int32_t)get_le(a->p, 4) - (int64_t)(int32_t)get_le(b->p, 4));
    case K_U32: case K_U64: {
        int n = c->kind == K_U32 ? 4 : 8;
        uint64_t x = get_le(a->p, n), y = get_le(b->p, n);
        return (x > y) - (x < y);
    }
    case K_I64: {
        int64_t x = (int64_t)get_le(a->p, 8), y = (int64_t)get_le(b->p, 8);
        return (x > y) - (x < y);
    }
    case K_DOUBLE: {
        uint64_t xb = get_le(a->p, 8), yb = get_le(b->p, 8);
        double x, y;
        memcpy(&x, &xb, 8);
        memcpy(&y, &yb, 8);
        return (x > y) - (x < y);
    }
    default: return bytes_cmp(a->p, a->len, b->p, b->len);
    }
}

/* What the statistics of rows [from, to) must be. */
typedef struct pstat {
    int64_t nulls, values;
    bool has;                    /* bounds: some value neither null nor NaN */
    bound lo, hi;
    int64_t ba_bytes;            /* byte arrays: the non-null values' bytes */
} pstat;

static void expect_stats(const mcol *c, size_t from, size_t to, pstat *s)
{
    memset(s, 0, sizeof *s);
    size_t lo = SIZE_MAX, hi = SIZE_MAX;
    for (size_t r = from; r < to; r++) {
        if (is_null(c, r)) {
            s->nulls++;
            continue;
        }
        s->values++;
        if (c->kind == K_BYTES) s->ba_bytes += (int64_t)c->bv[r].len;
        if (!bounded(c, r)) continue;
        if (lo == SIZE_MAX || row_cmp(c, r, lo) < 0) lo = r;
        if (hi == SIZE_MAX || row_cmp(c, r, hi) > 0) hi = r;
    }
    if (lo == SIZE_MAX) return;
    s->has = true;
    bound_of(c, lo, &s->lo, false);
    bound_of(c, hi, &s->hi, true);
}

/* The boundary order of pages' bounds, null pages skipped. */
static int expect_order(const mcol *c, const pstat *ps, int n)
{
    bool asc = true, desc = true;
    int prev = -1;
    for (int i = 0; i < n; i++) {
        if (!ps[i].has) continue;
        if (prev >= 0) {
            int dmin = bound_cmp(c, &ps[i].lo, &ps[prev].lo), dmax = bound_cmp(c, &ps[i].hi, &ps[prev].hi);
            if (dmin < 0 || dmax < 0) asc = false;
            if (dmin > 0 || dmax > 0) desc = false;
        }
        prev = i;
    }
    return asc ? ORDER_ASCENDING : desc ? ORDER_DESCENDING : ORDER_UNORDERED;
}

/* A Statistics struct (page header or chunk) says what s says, bounds exact. */
static void check_statistics(const tr_statistics *t, const pstat *s, const char *what, const char *name, int page)
{
    ck_assert_msg(t->present, "%s '%s' [%d]: no statistics", what, name, page);
    ck_assert_msg(t->null_count == s->nulls, "%s '%s' [%d]: null_count %lld, want %lld", what, name, page,
                  (long long)t->null_count, (long long)s->nulls);
    ck_assert_msg(!t->has_legacy, "%s '%s' [%d]: the deprecated min/max are written", what, name, page);
    if (!s->has) {
        ck_assert_msg(t->min_len < 0 && t->max_len < 0, "%s '%s' [%d]: bounds without a value", what, name, page);
        return;
    }
    ck_assert_msg(t->min_len >= 0 && t->max_len >= 0, "%s '%s' [%d]: no min/max", what, name, page);
    char label[160];
    snprintf(label, sizeof label, "%s '%s' [%d]", what, name, page);
    ck_assert_msg(t->min_len == (int)s->lo.len && memcmp(t->min, s->lo.p, s->lo.len) == 0,
                  "%s: min %s", label, hex(t->min, (size_t)t->min_len));
    ck_assert_msg(t->max_len == (int)s->hi.len && memcmp(t->max, s->hi.p, s->hi.len) == 0,
                  "%s: max %s", label, hex(t->max, (size_t)t->max_len));
    ck_assert_msg(t->min_exact == 1 && t->max_exact == 1, "%s: exact flags %d %d", label, t->min_exact,
                  t->max_exact);
}

/* Everything about a flat column's chunk: rows [row0, row0 + rows) of c in
 * row group rg. Pages hold page_rows rows each (the last fewer), or, with
 * page_rows 0, as many as their headers say (a page may end early: the
 * dictionary given up, say). want_order >= 0: the boundary order that data
 * was built to have. */
static void check_flat_chunk(const pfile *p, int rg, const mcol *c, bool optional, size_t row0, size_t rows,
                             size_t page_rows, int version, int want_order)
{
    const fm_chunk *k = chunk_of(p, rg, c->name);
    walk w;
    walk_chunk(p, k, &w);
    if (page_rows) {
        const int want = (int)((rows + page_rows - 1) / page_rows);
        ck_assert_msg(w.ndata == want, "'%s' rg %d: %d data pages, want %d", c->name, rg, w.ndata, want);
    }
    const int npages = w.ndata;
    ck_assert_int_eq(k->num_values, (int64_t)rows);

    pstat ps[MAX_PAGES], all;
    int64_t first_rows[MAX_PAGES];
    size_t from = row0;
    for (int i = 0; i < npages; i++) {
        const size_t n = page_rows ? (from + page_rows < row0 + rows ? page_rows : row0 + rows - from)
                                   : (size_t)w.data[i].h.num_values;   /* flat: an entry a row */
        ck_assert_msg(n > 0 && from + n <= row0 + rows, "'%s' rg %d page %d: %zu rows from %zu", c->name, rg, i,
                      n, from);
        const size_t to = from + n;
        first_rows[i] = (int64_t)(from - row0);
        expect_stats(c, from, to, &ps[i]);
        const ph *h = &w.data[i].h;
        ck_assert_int_eq(h->type, version == 2 ? PAGE_DATA_V2 : PAGE_DATA_V1);
        ck_assert_int_eq(h->num_values, (int32_t)(to - from));
        if (version == 2) {
            ck_assert_int_eq(h->num_rows, (int32_t)(to - from));
            ck_assert_int_eq(h->num_nulls, (int32_t)ps[i].nulls);
        }
        check_statistics(&h->stats, &ps[i], "page header", c->name, i);
        from = to;
    }
    ck_assert_uint_eq(from, row0 + rows);
    expect_stats(c, row0, row0 + rows, &all);
    ck_assert(k->has_statistics);
    check_statistics(&k->stats, &all, "chunk", c->name, rg);

    /* size statistics */
    ck_assert_msg(k->has_size_stats, "'%s': no SizeStatistics", c->name);
    ck_assert_int_eq(k->unencoded_bytes, c->kind == K_BYTES ? all.ba_bytes : -1);
    ck_assert_int_eq(k->nrep_hist, -1);
    if (optional) {
        ck_assert_int_eq(k->ndef_hist, 2);
        ck_assert_int_eq(k->def_hist[0], all.nulls);
        ck_assert_int_eq(k->def_hist[1], all.values);
    } else {
        ck_assert_int_eq(k->ndef_hist, -1);
    }

    /* the ColumnIndex: the page headers' bounds again */
    ci_index ci;
    read_column_index(p, k, &ci);
    ck_assert_int_eq(ci.npages, npages);
    ck_assert_int_eq(ci.nmin, npages);
    ck_assert_int_eq(ci.nmax, npages);
    ck_assert_int_eq(ci.nnull_counts, npages);
    for (int i = 0; i < npages; i++) {
        const bool null_page = ps[i].values == 0;
        ck_assert_msg(ci.null_pages[i] == null_page, "'%s' rg %d page %d: null_pages %d", c->name, rg, i,
                      ci.null_pages[i]);
        ck_assert_int_eq(ci.null_counts[i], ps[i].nulls);
        if (null_page) {
            ck_assert_uint_eq(ci.min_len[i], 0);
            ck_assert_uint_eq(ci.max_len[i], 0);
            continue;
        }
        ck_assert_msg(ps[i].has, "a page of values but no bounds: not in this test");
        ck_assert_bytes(ci.min[i], ci.min_len[i], ps[i].lo.p, ps[i].lo.len);
        ck_assert_bytes(ci.max[i], ci.max_len[i], ps[i].hi.p, ps[i].hi.len);
    }
    const int order = expect_order(c, ps, npages);
    if (want_order >= 0) ck_assert_int_eq(order, want_order);   /* the data is what the test meant */
    ck_assert_msg(ci.boundary_order == order, "'%s' rg %d: boundary_order %d, want %d", c->name, rg,
                  ci.boundary_order, order);
    ck_assert_int_eq(ci.nrep_hist, -1);
    if (optional) {
        ck_assert_int_eq(ci.ndef_hist, 2 * npages);
        int64_t sum0 = 0, sum1 = 0;
        for (int i = 0; i < npages; i++) {
            ck_assert_int_eq(ci.def_hist[2 * i], ps[i].nulls);
            ck_assert_int_eq(ci.def_hist[2 * i + 1], ps[i].values);
            sum0 += ci.def_hist[2 * i];
            sum1 += ci.def_hist[2 * i + 1];
        }
        ck_assert_int_eq(sum0, k->def_hist[0]);
        ck_assert_int_eq(sum1, k->def_hist[1]);
    } else {
        ck_assert_int_eq(ci.ndef_hist, -1);
    }
    ci_free(&ci);

    /* the OffsetIndex: the pages as walked, and their byte-array bytes */
    check_offset_index(p, k, &w, page_rows, first_rows);
    oi_index oi;
    read_offset_index(p, k, &oi);
    if (c->kind == K_BYTES) {
        ck_assert_int_eq(oi.nunencoded, npages);
        for (int i = 0; i < npages; i++)
            ck_assert_msg(oi.unencoded[i] == ps[i].ba_bytes, "'%s' page %d: unencoded bytes %lld, want %lld",
                          c->name, i, (long long)oi.unencoded[i], (long long)ps[i].ba_bytes);
    } else {
        ck_assert_int_eq(oi.nunencoded, -1);
    }
    oi_free(&oi);
}

/* ---- the flat file ------------------------------------------------------------------------- */

enum { FLAT_ROWS = 600, FLAT_PAGE = 100, FLAT_GROUP = 300, FLAT_BATCH = 75 };
enum { F_I8, F_U8, F_U32, F_U64, F_DBL, F_S, F_SP, F_OI, F_ASC, F_DESC, F_NCOLS };

static bool flat_null[FLAT_ROWS];
static int64_t flat_iv[F_NCOLS][FLAT_ROWS];
static double flat_dv[FLAT_ROWS];
static inlay_bytes flat_bv[FLAT_ROWS];
static char flat_text[FLAT_ROWS][40];
static mcol flat[F_NCOLS];

static const char *const flat_names[F_NCOLS] = { "i8", "u8", "u32", "u64", "dbl", "s", "sp", "oi", "asc", "desc" };

/* A value in [lo, lo + span) from the generator. */
static uint64_t pick(uint64_t *seed, uint64_t lo, uint64_t span)
{
    return lo + rng_next(seed) % span;
}

static void make_flat(void)
{
    static const char *const words[] = { "apple", "\xC3\x84pfel", "zebra", "\xC3\xA9t\xC3\xA9",
                                         "\xE4\xB8\xAD\xE6\x96\x87", "\xF0\x9F\x8D\x8E", "", "a\xC2\xA0" "b",
                                         "~tilde", "Zulu", "\x7F" "del", "\xEF\xBF\xBD" };
    static const int i8_center[6] = { 0, 60, -60, -60, 60, 0 };
    const uint64_t G = UINT64_C(1) << 30;
    /* u32: ascending in row group 0 only in unsigned order, shuffled in 1 */
    static const uint64_t u32_lo[6] = { 0, 2, 3, 3, 0, 2 }, u32_span[6] = { 2, 1, 1, 1, 1, 1 };
    uint64_t seed = 0xC0FFEE;
    for (size_t r = 0; r < FLAT_ROWS; r++) {
        const size_t page = r / FLAT_PAGE;
        flat_iv[F_I8][r] = i8_center[page] + (int64_t)pick(&seed, 0, 41) - 20;
        flat_iv[F_U8][r] = (int64_t)pick(&seed, 0, 256);
        flat_iv[F_U32][r] = (int64_t)(int32_t)(uint32_t)pick(&seed, u32_lo[page] * G, u32_span[page] * G);
        /* u64: ascending across 2^63 in row group 0, descending in 1 (unsigned) */
        static const uint64_t u64_q[6] = { 0, 2, 3, 3, 2, 0 };
        flat_iv[F_U64][r] = (int64_t)(u64_q[page] * (UINT64_C(1) << 62) + rng_next(&seed) % (UINT64_C(1) << 62));
        flat_iv[F_ASC][r] = (int64_t)r * 3 - 500;
        flat_iv[F_DESC][r] = 1000000 - (int64_t)r * 7;
        /* rows 200..299 all null, then one in five */
        flat_null[r] = (r >= 200 && r < 300) || rng_next(&seed) % 5 == 0;
        flat_iv[F_OI][r] = (int64_t)(int32_t)rng_next(&seed);
        const char *word = words[rng_next(&seed) % (sizeof words / sizeof words[0])];
        if (r % 4) snprintf(flat_text[r], sizeof flat_text[r], "%s%d", word, (int)(r % 50));
        else snprintf(flat_text[r], sizeof flat_text[r], "%s", word);
        flat_bv[r].data = flat_text[r];
        flat_bv[r].len = strlen(flat_text[r]);
        double d;
        switch (page) {
        case 0: d = r % 7 == 3 ? NAN : (double)(int64_t)pick(&seed, 0, 20001) / 100.0 - 100.0; break;
        case 1: d = r % 3 == 0 ? -0.0 : r % 3 == 1 ? 0.0 : NAN; break;                  /* zeros (and NaN) */
        case 2: d = r == 250 ? INFINITY : r == 260 ? -INFINITY : r % 11 == 0 ? NAN : (double)(r % 17) - 8; break;
        case 3: d = 0.0; break;                                                          /* +0.0 only */
        case 4: d = -0.0; break;                                                         /* -0.0 only */
        default: d = r % 2 ? -0.0 : (double)(r % 13) + 0.5; break;
        }
        flat_dv[r] = d;
    }
    for (int c = 0; c < F_NCOLS; c++) {
        flat[c] = (mcol){ .name = flat_names[c], .kind = K_I32, .iv = flat_iv[c] };
    }
    flat[F_U8].kind = K_I32;     /* 0..255: the same in either order */
    flat[F_U32].kind = K_U32;
    flat[F_U64].kind = K_U64;
    flat[F_ASC].kind = flat[F_DESC].kind = K_I64;
    flat[F_DBL].kind = K_DOUBLE;
    flat[F_DBL].dv = flat_dv;
    flat[F_S].kind = flat[F_SP].kind = K_BYTES;
    flat[F_S].bv = flat[F_SP].bv = flat_bv;
    flat[F_S].null = flat[F_SP].null = flat[F_OI].null = flat_null;
}

static bool flat_optional(int c)
{
    return c == F_S || c == F_SP || c == F_OI;
}

/* The flat schema; column no_stats (or -1) without statistics. */
static inlay_schema *flat_schema(int no_stats)
{
    inlay_schema *s = inlay_schema_create(NULL);
    const inlay_type types[F_NCOLS] = {
        inlay_type_int(8, true), inlay_type_int(8, false), inlay_type_int(32, false), inlay_type_int(64, false),
        inlay_type_double(), inlay_type_string(), inlay_type_string(), inlay_type_int(32, true),
        inlay_type_int(64, true), inlay_type_int(64, true),
    };
    for (int c = 0; c < F_NCOLS; c++) {
        inlay_column_options co;
        inlay_column_options_init(&co);
        if (c == F_S) co.encoding = INLAY_ENCODING_DICTIONARY;
        if (c == F_SP) co.encoding = INLAY_ENCODING_PLAIN;
        if (c == no_stats) co.statistics = false;
        ck_assert_int_gt(inlay_schema_add(s, 0, flat_names[c], flat_optional(c) ? INLAY_OPTIONAL : INLAY_REQUIRED,
                                          types[c], &co), 0);
    }
    return s;
}

static inlay_options flat_options(int version)
{
    inlay_options o;
    inlay_options_init(&o);
    o.page_rows = FLAT_PAGE;
    o.row_group_rows = FLAT_GROUP;
    o.page_version = version;
    return o;
}

/* Append rows [from, to) of every flat column. */
static void append_flat(inlay_writer *w, size_t from, size_t to)
{
    int32_t i32[FLAT_ROWS];
    int64_t i64[FLAT_ROWS];
    inlay_bytes bv[FLAT_ROWS];
    int16_t def[FLAT_ROWS];
    const size_t n = to - from;
    for (int c = 0; c < F_NCOLS; c++) {
        size_t nv = 0;
        for (size_t r = from; r < to; r++) {
            def[r - from] = (int16_t)!is_null(&flat[c], r);
            if (is_null(&flat[c], r)) continue;
            i32[nv] = (int32_t)flat[c].iv[r];
            i64[nv] = flat[c].iv[r];
            if (flat[c].bv) bv[nv] = flat[c].bv[r];
            nv++;
        }
        inlay_levels lv = { def, NULL, NULL };
        const inlay_levels *l = flat_optional(c) ? &lv : NULL;
        switch (c) {
        case F_I8: case F_U8: case F_U32: case F_OI: APPEND_OK(w, inlay_writer_append_i32(w, c, i32, n, l)); break;
        case F_U64: case F_ASC: case F_DESC: APPEND_OK(w, inlay_writer_append_i64(w, c, i64, n, l)); break;
        case F_DBL: APPEND_OK(w, inlay_writer_append_double(w, c, flat_dv + from, n, l)); break;
        default: APPEND_OK(w, inlay_writer_append_bytes(w, c, bv, n, l)); break;
        }
    }
}

static void write_flat_batches(pfile *p, const inlay_options *o, int no_stats, size_t batch)
{
    make_flat();
    inlay_schema *s = flat_schema(no_stats);
    inlay_writer *w = pfile_open(p, s, o);
    inlay_schema_free(s);
    for (size_t r = 0; r < FLAT_ROWS; r += batch) append_flat(w, r, r + batch);
    pfile_close(p, w);
    ck_assert_int_eq(p->f->num_rows, FLAT_ROWS);
    ck_assert_int_eq(p->f->num_row_groups, FLAT_ROWS / FLAT_GROUP);
}

static void write_flat(pfile *p, const inlay_options *o, int no_stats)
{
    write_flat_batches(p, o, no_stats, FLAT_BATCH);
}

/* ---- page statistics and the page index, flat columns ---------------------------------------- */

START_TEST(test_flat)
{
    const int version = _i;
    pfile p;
    inlay_options o = flat_options(version);
    write_flat(&p, &o, -1);
    /* the boundary order each column was built to have, per row group (-1: whatever it is) */
    static const int want[F_NCOLS][2] = {
        [F_I8] = { ORDER_UNORDERED, ORDER_UNORDERED }, [F_U8] = { -1, -1 },
        [F_U32] = { ORDER_ASCENDING, ORDER_UNORDERED }, [F_U64] = { ORDER_ASCENDING, ORDER_DESCENDING },
        [F_DBL] = { -1, ORDER_ASCENDING }, [F_S] = { -1, -1 }, [F_SP] = { -1, -1 }, [F_OI] = { -1, -1 },
        [F_ASC] = { ORDER_ASCENDING, ORDER_ASCENDING }, [F_DESC] = { ORDER_DESCENDING, ORDER_DESCENDING },
    };
    for (int rg = 0; rg < 2; rg++)
        for (int c = 0; c < F_NCOLS; c++)
            check_flat_chunk(&p, rg, &flat[c], flat_optional(c), (size_t)rg * FLAT_GROUP, FLAT_GROUP, FLAT_PAGE,
                             version, want[c][rg]);
    /* no bloom filters were asked for; no sorting_columns either */
    for (int i = 0; i < p.f->nchunks; i++) ck_assert_int_eq(p.f->chunks[i].bloom_offset, -1);
    ck_assert_int_eq(p.f->nsorting[0], -1);
    pfile_free(&p);
}
END_TEST

START_TEST(test_flat_columns_ahead)
{
    /* each column appended whole before the next: the first ones run
     * through both row groups (their second chunk filled and sealed) while
     * the others have nothing yet */
    pfile p;
    inlay_options o = flat_options(_i);
    write_flat_batches(&p, &o, -1, FLAT_ROWS);
    for (int rg = 0; rg < 2; rg++)
        for (int c = 0; c < F_NCOLS; c++)
            check_flat_chunk(&p, rg, &flat[c], flat_optional(c), (size_t)rg * FLAT_GROUP, FLAT_GROUP, FLAT_PAGE,
                             _i, -1);
    pfile_free(&p);
}
END_TEST

START_TEST(test_zero_pages)
{
    /* the spec's rule for zeros, spelled out: a page of only +0.0, only
     * -0.0, or both, has min -0.0 and max +0.0 */
    pfile p;
    inlay_options o = flat_options(1);
    write_flat(&p, &o, -1);
    static const int pages[][2] = { { 0, 1 }, { 1, 0 }, { 1, 1 } };   /* (rg, page): mixed, +0 only, -0 only */
    for (int i = 0; i < 3; i++) {
        const fm_chunk *k = chunk_of(&p, pages[i][0], "dbl");
        walk w;
        walk_chunk(&p, k, &w);
        const tr_statistics *s = &w.data[pages[i][1]].h.stats;
        ck_assert_int_eq(s->min_len, 8);
        ck_assert_int_eq(s->max_len, 8);
        ck_assert_uint_eq(get_le(s->min, 8), UINT64_C(0x8000000000000000));   /* -0.0 */
        ck_assert_uint_eq(get_le(s->max, 8), 0);                               /* +0.0 */
    }
    pfile_free(&p);
}
END_TEST

START_TEST(test_dictionary_and_plain_agree)
{
    /* the dictionary path finds page bounds from the entries a page uses,
     * PLAIN from the values: the same bounds either way */
    pfile p;
    inlay_options o = flat_options(_i);
    write_flat(&p, &o, -1);
    for (int rg = 0; rg < 2; rg++) {
        const fm_chunk *kd = chunk_of(&p, rg, "s"), *kp = chunk_of(&p, rg, "sp");
        ck_assert_msg(kd->dictionary_page_offset >= 0, "'s' is not dictionary-encoded");
        ck_assert_int_eq(kp->dictionary_page_offset, -1);
        walk wd, wp;
        walk_chunk(&p, kd, &wd);
        walk_chunk(&p, kp, &wp);
        ck_assert_int_eq(wd.ndata, wp.ndata);
        for (int i = 0; i < wd.ndata; i++) {
            const tr_statistics *a = &wd.data[i].h.stats, *b = &wp.data[i].h.stats;
            ck_assert_int_eq(a->null_count, b->null_count);
            ck_assert_int_eq(a->min_len, b->min_len);
            ck_assert_int_eq(a->max_len, b->max_len);
            if (a->min_len > 0) ck_assert_bytes(a->min, (size_t)a->min_len, b->min, (size_t)b->min_len);
            if (a->max_len > 0) ck_assert_bytes(a->max, (size_t)a->max_len, b->max, (size_t)b->max_len);
        }
        ck_assert_bytes(kd->stats.min, (size_t)kd->stats.min_len, kp->stats.min, (size_t)kp->stats.min_len);
        ck_assert_bytes(kd->stats.max, (size_t)kd->stats.max_len, kp->stats.max, (size_t)kp->stats.max_len);
        ck_assert_int_eq(kd->unencoded_bytes, kp->unencoded_bytes);
    }
    pfile_free(&p);
}
END_TEST

/* ---- DELTA pages: bounds from the encoder's pass --------------------------------------------- */

START_TEST(test_delta_bounds)
{
    /* A DELTA_BINARY_PACKED page's bounds come from the pass that takes its
     * deltas (signed orders); they must be what PLAIN pages of the same
     * values say, and the page's true min and max. UINT_64 (unsigned order)
     * and int8 (narrow, signed) ride along. */
    enum { ROWS = 700, PAGE = 100 };
    static const char *const names[] = { "l_d", "l_p", "u_d", "u_p", "b_d", "b_p" };
    inlay_schema *s = inlay_schema_create(NULL);
    for (int c = 0; c < 6; c++) {
        inlay_column_options co;
        inlay_column_options_init(&co);
        co.encoding = c % 2 ? INLAY_ENCODING_PLAIN : INLAY_ENCODING_DELTA;
        inlay_type t = c < 2 ? inlay_type_int(64, true) : c < 4 ? inlay_type_int(64, false) : inlay_type_int(8, true);
        ck_assert_int_gt(inlay_schema_add(s, 0, names[c], INLAY_REQUIRED, t, &co), 0);
    }
    inlay_options o = flat_options(1 + _i);
    o.page_rows = PAGE;
    o.row_group_rows = ROWS;
    pfile p;
    inlay_writer *w = pfile_open(&p, s, &o);
    inlay_schema_free(s);
    static int64_t l[ROWS];
    static int32_t b[ROWS];
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int r = 0; r < ROWS; r++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        const int page = r / PAGE;
        /* page 0 all negative, 1 mixed, 2 extremes, the rest random */
        l[r] = page == 0 ? -(int64_t)(x % 1000) - 1 : page == 1 ? (int64_t)(x % 2001) - 1000
             : page == 2 ? (r % 3 == 0 ? INT64_MIN : r % 3 == 1 ? INT64_MAX : 0) : (int64_t)x;
        b[r] = (int32_t)(int8_t)x;
    }
    for (int c = 0; c < 6; c++) {
        if (c < 4) APPEND_OK(w, inlay_writer_append_i64(w, c, l, ROWS, NULL));
        else APPEND_OK(w, inlay_writer_append_i32(w, c, b, ROWS, NULL));
    }
    pfile_close(&p, w);
    for (int c = 0; c < 6; c += 2) {
        const fm_chunk *kd = chunk_of(&p, 0, names[c]), *kp = chunk_of(&p, 0, names[c + 1]);
        walk wd, wp;
        walk_chunk(&p, kd, &wd);
        walk_chunk(&p, kp, &wp);
        ck_assert_int_eq(wd.ndata, ROWS / PAGE);
        ck_assert_int_eq(wp.ndata, ROWS / PAGE);
        for (int pg = 0; pg < wd.ndata; pg++) {
            ck_assert_int_eq(wd.data[pg].h.encoding, 5);   /* DELTA_BINARY_PACKED */
            const tr_statistics *a = &wd.data[pg].h.stats, *q = &wp.data[pg].h.stats;
            ck_assert_bytes(a->min, (size_t)a->min_len, q->min, (size_t)q->min_len);
            ck_assert_bytes(a->max, (size_t)a->max_len, q->max, (size_t)q->max_len);
            if (c == 0) {   /* and the page's own signed bounds */
                int64_t lo = INT64_MAX, hi = INT64_MIN;
                for (int r = pg * PAGE; r < (pg + 1) * PAGE; r++) {
                    lo = l[r] < lo ? l[r] : lo;
                    hi = l[r] > hi ? l[r] : hi;
                }
                uint8_t want[8];
                put_le(want, (uint64_t)lo, 8);
                ck_assert_bytes(a->min, (size_t)a->min_len, want, 8);
                put_le(want, (uint64_t)hi, 8);
                ck_assert_bytes(a->max, (size_t)a->max_len, want, 8);
            }
        }
        ck_assert_bytes(kd->stats.min, (size_t)kd->stats.min_len, kp->stats.min, (size_t)kp->stats.min_len);
        ck_assert_bytes(kd->stats.max, (size_t)kd->stats.max_len, kp->stats.max, (size_t)kp->stats.max_len);
    }
    pfile_free(&p);
}
END_TEST

/* ---- FLOAT16, BOOLEAN, FLOAT ------------------------------------------------------------------ */

START_TEST(test_other_orders)
{
    /* three pages each, built so that the boundary order needs each type's
     * own comparison: FLOAT16 by value (its bytes would not do), booleans
     * false < true, floats with NaN and zeros */
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "h", INLAY_REQUIRED, inlay_type_float16(), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "b", INLAY_REQUIRED, inlay_type_boolean(), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "f", INLAY_REQUIRED, inlay_type_float(), NULL), 0);
    inlay_options o = flat_options(_i);
    pfile p;
    inlay_writer *w = pfile_open(&p, s, &o);
    inlay_schema_free(s);
    static uint8_t h[300][2];
    inlay_bytes hv[300];
    bool bv[300];
    float fv[300];
    /* FLOAT16: {-2, -1} | {+0, NaN} | {0.5, 65504}; BOOLEAN: false | both | true;
     * FLOAT: {3, 2} | {1, NaN} | {-inf, -0.0} */
    static const double h_vals[3][2] = { { -2.0, -1.0 }, { 0.0, NAN }, { 0.5, 65504.0 } };
    static const float f_vals[3][2] = { { 3.0f, 2.0f }, { 1.0f, NAN }, { -INFINITY, -0.0f } };
    for (int r = 0; r < 300; r++) {
        const int page = r / 100;
        const uint16_t bits = inlay_float16_bits(h_vals[page][r % 2]);
        h[r][0] = (uint8_t)bits;
        h[r][1] = (uint8_t)(bits >> 8);
        hv[r].data = h[r];
        hv[r].len = 2;
        bv[r] = page == 2 || (page == 1 && r % 2);
        fv[r] = f_vals[page][r % 2];
    }
    APPEND_OK(w, inlay_writer_append_bytes(w, 0, hv, 300, NULL));
    APPEND_OK(w, inlay_writer_append_bool(w, 1, bv, 300, NULL));
    APPEND_OK(w, inlay_writer_append_float(w, 2, fv, 300, NULL));
    pfile_close(&p, w);

    /* FLOAT16 bounds per page, little-endian half bits */
    static const uint16_t h_lo[3] = { 0xC000, 0x8000, 0x3800 }, h_hi[3] = { 0xBC00, 0x0000, 0x7BFF };
    static const uint8_t b_lo[3] = { 0, 0, 1 }, b_hi[3] = { 0, 1, 1 };
    static const float f_lo[3] = { 2.0f, 1.0f, -INFINITY }, f_hi[3] = { 3.0f, 1.0f, 0.0f };
    static const char *const names[3] = { "h", "b", "f" };
    static const int orders[3] = { ORDER_ASCENDING, ORDER_ASCENDING, ORDER_DESCENDING };
    for (int c = 0; c < 3; c++) {
        const fm_chunk *k = chunk_of(&p, 0, names[c]);
        walk wk;
        walk_chunk(&p, k, &wk);
        ck_assert_int_eq(wk.ndata, 3);
        ci_index ci;
        read_column_index(&p, k, &ci);
        ck_assert_int_eq(ci.npages, 3);
        for (int pg = 0; pg < 3; pg++) {
            uint8_t lo[4], hi[4];
            size_t n;
            if (c == 0) { put_le(lo, h_lo[pg], 2); put_le(hi, h_hi[pg], 2); n = 2; }
            else if (c == 1) { lo[0] = b_lo[pg]; hi[0] = b_hi[pg]; n = 1; }
            else { memcpy(lo, &f_lo[pg], 4); memcpy(hi, &f_hi[pg], 4); n = 4; }
            const tr_statistics *t = &wk.data[pg].h.stats;
            ck_assert_int_eq(t->null_count, 0);
            ck_assert_msg(t->min_len == (int)n && memcmp(t->min, lo, n) == 0, "'%s' page %d: min %s", names[c], pg,
                          hex(t->min, t->min_len > 0 ? (size_t)t->min_len : 0));
            ck_assert_msg(t->max_len == (int)n && memcmp(t->max, hi, n) == 0, "'%s' page %d: max %s", names[c], pg,
                          hex(t->max, t->max_len > 0 ? (size_t)t->max_len : 0));
            ck_assert_bytes(ci.min[pg], ci.min_len[pg], lo, n);
            ck_assert_bytes(ci.max[pg], ci.max_len[pg], hi, n);
        }
        ck_assert_msg(ci.boundary_order == orders[c], "'%s': boundary_order %d", names[c], ci.boundary_order);
        ci_free(&ci);
    }
    pfile_free(&p);
}
END_TEST

/* ---- switches: page_index, statistics ---------------------------------------------------------- */

START_TEST(test_no_page_index)
{
    pfile p;
    inlay_options o = flat_options(_i);
    o.page_index = false;
    write_flat(&p, &o, -1);
    for (int i = 0; i < p.f->nchunks; i++) {
        const fm_chunk *k = &p.f->chunks[i];
        ck_assert_msg(k->index_offset[0] == -1 && k->index_offset[1] == -1,
                      "'%s': page index references with page_index off", k->path);
        ck_assert_int_eq(k->index_length[0], 0);
        ck_assert_int_eq(k->index_length[1], 0);
        /* statistics stay */
        ck_assert(k->has_statistics);
        walk w;
        walk_chunk(&p, k, &w);
        for (int j = 0; j < w.ndata; j++) ck_assert(w.data[j].h.stats.present);
    }
    /* the footer follows the last chunk directly: nothing written for an index */
    const fm_chunk *last = &p.f->chunks[p.f->nchunks - 1];
    const size_t end = (size_t)(last->dictionary_page_offset >= 0 ? last->dictionary_page_offset
                                                                  : last->data_page_offset) +
                       (size_t)last->total_compressed;
    const size_t footer = p.out.len - 8 - le32(p.out.data + p.out.len - 8);
    ck_assert_uint_eq(end, footer);
    pfile_free(&p);
}
END_TEST

/* A chunk written without statistics: none in its pages or metadata, no
 * ColumnIndex, but an OffsetIndex that still describes its pages. */
static void check_no_statistics(const pfile *p, int rg, const mcol *c)
{
    const fm_chunk *k = chunk_of(p, rg, c->name);
    ck_assert_msg(!k->has_statistics, "'%s': chunk statistics", c->name);
    ck_assert_msg(!k->has_size_stats, "'%s': size statistics", c->name);
    walk w;
    walk_chunk(p, k, &w);
    for (int i = 0; i < w.ndata; i++)
        ck_assert_msg(!w.data[i].h.stats.present, "'%s' page %d: statistics in the header", c->name, i);
    ck_assert_msg(k->index_offset[1] == -1 && k->index_length[1] == 0, "'%s': a ColumnIndex", c->name);
    check_offset_index(p, k, &w, FLAT_PAGE, NULL);
    oi_index oi;
    read_offset_index(p, k, &oi);
    /* byte counts, if written at all, must be right */
    if (oi.nunencoded >= 0) {
        ck_assert_int_eq(oi.nunencoded, w.ndata);
        for (int i = 0; i < w.ndata; i++) {
            pstat s;
            const size_t from = (size_t)rg * FLAT_GROUP + (size_t)i * FLAT_PAGE;
            expect_stats(c, from, from + FLAT_PAGE, &s);
            ck_assert_msg(oi.unencoded[i] == s.ba_bytes,
                          "'%s' rg %d page %d: OffsetIndex unencoded_byte_array_data_bytes %lld, the page "
                          "holds %lld bytes", c->name, rg, i, (long long)oi.unencoded[i], (long long)s.ba_bytes);
        }
    }
    oi_free(&oi);
}

START_TEST(test_statistics_off)
{
    pfile p;
    inlay_options o = flat_options(_i);
    o.statistics = false;
    write_flat(&p, &o, -1);
    for (int rg = 0; rg < 2; rg++)
        for (int c = 0; c < F_NCOLS; c++) check_no_statistics(&p, rg, &flat[c]);
    pfile_free(&p);
}
END_TEST

START_TEST(test_statistics_off_one_column)
{
    /* off for one column: that one has none, the others all of theirs */
    static const int off[] = { F_S, F_SP, F_DBL, F_U64 };
    pfile p;
    inlay_options o = flat_options(1);
    write_flat(&p, &o, off[_i]);
    for (int rg = 0; rg < 2; rg++) {
        for (int c = 0; c < F_NCOLS; c++) {
            if (c == off[_i]) check_no_statistics(&p, rg, &flat[c]);
            else check_flat_chunk(&p, rg, &flat[c], flat_optional(c), (size_t)rg * FLAT_GROUP, FLAT_GROUP,
                                  FLAT_PAGE, 1, -1);
        }
    }
    pfile_free(&p);
}
END_TEST

/* ---- an all-NaN page ------------------------------------------------------------------------- */

START_TEST(test_all_nan_page)
{
    /* a page of NaNs only has values but no bounds: its header carries the
     * null count alone, and no ColumnIndex can describe it (a reader would
     * take empty bounds for a page of nulls), so the chunk has none; its
     * OffsetIndex stays */
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "d", INLAY_REQUIRED, inlay_type_double(), NULL), 0);
    inlay_options o = flat_options(_i);
    pfile p;
    inlay_writer *w = pfile_open(&p, s, &o);
    inlay_schema_free(s);
    static double v[300];
    for (int i = 0; i < 300; i++) v[i] = i >= 100 && i < 200 ? NAN : (double)i;
    APPEND_OK(w, inlay_writer_append_double(w, 0, v, 300, NULL));
    pfile_close(&p, w);
    const fm_chunk *k = chunk_of(&p, 0, "d");
    walk wk;
    walk_chunk(&p, k, &wk);
    ck_assert_int_eq(wk.ndata, 3);
    const tr_statistics *nan_page = &wk.data[1].h.stats;
    ck_assert(nan_page->present);
    ck_assert_int_eq(nan_page->null_count, 0);
    ck_assert_int_eq(nan_page->min_len, -1);
    ck_assert_int_eq(nan_page->max_len, -1);
    /* the chunk's bounds come from the other pages */
    ck_assert_int_eq(k->stats.min_len, 8);
    const double lo = 0.0, hi = 299.0;
    uint64_t lo_bits, hi_bits;
    memcpy(&lo_bits, &lo, 8);
    memcpy(&hi_bits, &hi, 8);
    ck_assert_uint_eq(get_le(k->stats.min, 8), lo_bits | UINT64_C(0x8000000000000000));   /* 0 as -0.0 */
    ck_assert_uint_eq(get_le(k->stats.max, 8), hi_bits);
    ck_assert_int_eq(k->index_offset[1], -1);
    check_offset_index(&p, k, &wk, 100, NULL);
    pfile_free(&p);
}
END_TEST

/* ---- truncation of byte-array bounds ------------------------------------------------------------ */

/* The expected cut of value v (written here from the rules, not from the
 * module): the min a prefix of at most `limit` bytes, at a character
 * boundary for UTF-8; the max that prefix with its last byte (binary) or
 * character (UTF-8, surrogates skipped) stepped up, trailing ones with no
 * successor (0xFF, U+10FFFF) dropped first; no shorter max: the value
 * whole. */
enum { LONG_LEN = 5001, LONG_ROWS = 200 };

typedef struct cutv {
    uint8_t min[LONG_LEN], max[LONG_LEN];
    size_t min_len, max_len;
    bool min_exact, max_exact;
} cutv;

static size_t utf8_len_at(uint8_t b)
{
    return b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
}

static void expect_cut(const uint8_t *v, size_t n, size_t limit, bool utf8, cutv *c)
{
    ck_assert_uint_le(n, LONG_LEN);
    if (!limit || n <= limit) {
        memcpy(c->min, v, n);
        memcpy(c->max, v, n);
        c->min_len = c->max_len = n;
        c->min_exact = c->max_exact = true;
        return;
    }
    /* the longest prefix within limit, whole characters */
    size_t cut = limit;
    if (utf8) {
        size_t at = 0;
        while (at + utf8_len_at(v[at]) <= limit) at += utf8_len_at(v[at]);
        cut = at;
    }
    memcpy(c->min, v, cut);
    c->min_len = cut;
    c->min_exact = false;
    /* the max: step the last unit up */
    uint8_t *t = c->max;
    memcpy(t, v, cut);
    size_t len = cut;
    while (len > 0) {
        if (!utf8) {
            if (t[len - 1] == 0xFF) { len--; continue; }
            t[len - 1]++;
            break;
        }
        size_t start = len - 1;
        while ((t[start] & 0xC0) == 0x80) start--;
        uint32_t cp = t[start] < 0x80 ? t[start] : t[start] < 0xE0 ? t[start] & 0x1Fu
                    : t[start] < 0xF0 ? t[start] & 0x0Fu : t[start] & 0x07u;
        for (size_t i = start + 1; i < len; i++) cp = cp << 6 | (t[i] & 0x3Fu);
        cp++;
        if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xE000;
        if (cp > 0x10FFFF) { len = start; continue; }
        len = start;
        if (cp < 0x80) t[len++] = (uint8_t)cp;
        else if (cp < 0x800) { t[len++] = (uint8_t)(0xC0 | cp >> 6); t[len++] = (uint8_t)(0x80 | (cp & 0x3F)); }
        else if (cp < 0x10000) {
            t[len++] = (uint8_t)(0xE0 | cp >> 12); t[len++] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
            t[len++] = (uint8_t)(0x80 | (cp & 0x3F));
        } else {
            t[len++] = (uint8_t)(0xF0 | cp >> 18); t[len++] = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
            t[len++] = (uint8_t)(0x80 | (cp >> 6 & 0x3F)); t[len++] = (uint8_t)(0x80 | (cp & 0x3F));
        }
        break;
    }
    if (len == 0) {   /* no shorter upper bound: the value whole */
        memcpy(c->max, v, n);
        c->max_len = n;
        c->max_exact = true;
        return;
    }
    c->max_len = len;
    c->max_exact = false;
}

enum { L_ASCII, L_UTF8, L_BIN, L_FF, L_NCOLS };
static const char *const long_names[L_NCOLS] = { "ascii", "utf8", "bin", "ff" };

/* Row r of long column c: 5001 bytes. Every value of a page shares its
 * first 100 bytes; the row number sits beyond them. */
static void long_value(int c, size_t r, uint8_t *out)
{
    const size_t page = r / 100;
    for (size_t j = 0; j < LONG_LEN; j++) out[j] = (uint8_t)('a' + j % 26);
    switch (c) {
    case L_ASCII:
        out[0] = (uint8_t)('b' + 2 * page);
        break;
    case L_UTF8:
        /* page 0: 63 'x' then U+00E9 across the 64-byte cut; page 1: 62 'x' then é ending at 64 */
        memset(out, 'x', 64);
        out[63 - page] = 0xC3;
        out[64 - page] = 0xA9;
        break;
    case L_BIN:
        /* 63 'a' then 0xFF to the end (page 0); page 1 with 'c' first */
        memset(out, 'a', 63);
        memset(out + 63, 0xFF, LONG_LEN - 63);
        if (page) out[0] = 'c';
        break;
    default:
        memset(out, 0xFF, LONG_LEN);
        break;
    }
    snprintf((char *)out + 200, 16, "%05u", (unsigned)(r % 100000));
    out[205] = c == L_FF ? 0xFF : 'q';
}

START_TEST(test_truncation)
{
    /* _i % 4: the limit ([0]: the default, 64; [3]: 0, never); _i / 4:
     * PLAIN or DICTIONARY; the page version alternates */
    static const size_t limits[] = { 0, 10, 64, 0 };
    const int which = _i % 4;
    const size_t limit = which == 0 ? 64 : limits[which];
    inlay_column_options co;
    inlay_column_options_init(&co);
    co.encoding = _i / 4 ? INLAY_ENCODING_DICTIONARY : INLAY_ENCODING_PLAIN;
    inlay_schema *s = inlay_schema_create(NULL);
    for (int c = 0; c < L_NCOLS; c++)
        ck_assert_int_gt(inlay_schema_add(s, 0, long_names[c], INLAY_REQUIRED,
                                          c <= L_UTF8 ? inlay_type_string() : inlay_type_binary(), &co), 0);
    inlay_options o = flat_options(1 + _i % 2);
    if (which) o.statistics_truncate_length = limits[which];
    pfile p;
    inlay_writer *w = pfile_open(&p, s, &o);
    inlay_schema_free(s);
    static uint8_t vals[LONG_ROWS][LONG_LEN];
    for (int c = 0; c < L_NCOLS; c++) {
        inlay_bytes b[LONG_ROWS];
        for (size_t r = 0; r < LONG_ROWS; r++) {
            long_value(c, r, vals[r]);
            b[r].data = vals[r];
            b[r].len = LONG_LEN;
        }
        APPEND_OK(w, inlay_writer_append_bytes(w, c, b, LONG_ROWS, NULL));
    }
    pfile_close(&p, w);
    for (int c = 0; c < L_NCOLS; c++) {
        for (size_t r = 0; r < LONG_ROWS; r++) long_value(c, r, vals[r]);
        const fm_chunk *k = chunk_of(&p, 0, long_names[c]);
        walk wk;
        walk_chunk(&p, k, &wk);
        ck_assert_int_eq(wk.ndata, 2);
        ck_assert_int_eq(wk.ndict, _i / 4);
        ci_index ci;
        read_column_index(&p, k, &ci);
        ck_assert_int_eq(ci.npages, 2);
        static uint8_t lo[LONG_LEN], hi[LONG_LEN];
        static cutv pc[2], cmin, cmax;
        for (int pg = 0; pg < 2; pg++) {
            /* a page's values share their first 200 bytes: the min is the
             * least row, the max the greatest, both by the row number */
            long_value(c, (size_t)pg * 100, lo);
            long_value(c, (size_t)pg * 100 + 99, hi);
            expect_cut(lo, LONG_LEN, limit, c <= L_UTF8, &cmin);
            expect_cut(hi, LONG_LEN, limit, c <= L_UTF8, &cmax);
            memcpy(pc[pg].min, cmin.min, cmin.min_len);
            pc[pg].min_len = cmin.min_len;
            pc[pg].min_exact = cmin.min_exact;
            memcpy(pc[pg].max, cmax.max, cmax.max_len);
            pc[pg].max_len = cmax.max_len;
            pc[pg].max_exact = cmax.max_exact;
            const tr_statistics *t = &wk.data[pg].h.stats;
            char label[64];
            snprintf(label, sizeof label, "'%s' page %d, limit %zu", long_names[c], pg, limit);
            ck_assert_msg(t->min_len == (int)cmin.min_len && memcmp(t->min, cmin.min, cmin.min_len) == 0,
                          "%s: min [%d] %s", label, t->min_len, hex(t->min, t->min_len > 0 ? (size_t)t->min_len : 0));
            ck_assert_msg(t->min_exact == cmin.min_exact, "%s: is_min_value_exact %d", label, t->min_exact);
            ck_assert_msg(t->max_len == (int)cmax.max_len && memcmp(t->max, cmax.max, cmax.max_len) == 0,
                          "%s: max [%d] %s", label, t->max_len, hex(t->max, t->max_len > 0 ? (size_t)t->max_len : 0));
            ck_assert_msg(t->max_exact == cmax.max_exact, "%s: is_max_value_exact %d", label, t->max_exact);
            /* as a reader relies on: within limit + 1 bytes when cut, still bounds, UTF-8 kept */
            if (limit && c != L_FF) ck_assert_int_le(t->max_len, (int)limit + 1);
            if (limit) ck_assert_int_le(t->min_len, (int)limit);
            for (size_t r = (size_t)pg * 100; r < (size_t)pg * 100 + 100; r++) {
                ck_assert_int_le(bytes_cmp(t->min, (size_t)t->min_len, vals[r], LONG_LEN), 0);
                ck_assert_int_ge(bytes_cmp(t->max, (size_t)t->max_len, vals[r], LONG_LEN), 0);
            }
            if (c <= L_UTF8) {
                ck_assert(inlay_utf8_valid(t->min, (size_t)t->min_len));
                ck_assert(inlay_utf8_valid(t->max, (size_t)t->max_len));
            }
            /* the ColumnIndex has the same bounds */
            ck_assert_bytes(ci.min[pg], ci.min_len[pg], t->min, (size_t)t->min_len);
            ck_assert_bytes(ci.max[pg], ci.max_len[pg], t->max, (size_t)t->max_len);
        }
        /* the chunk: page 0's min, page 1's max, cut the same way */
        const tr_statistics *t = &k->stats;
        ck_assert_bytes(t->min, (size_t)t->min_len, pc[0].min, pc[0].min_len);
        ck_assert_int_eq(t->min_exact, pc[0].min_exact);
        ck_assert_bytes(t->max, (size_t)t->max_len, pc[1].max, pc[1].max_len);
        ck_assert_int_eq(t->max_exact, pc[1].max_exact);
        if (limit && c != L_FF) {
            ck_assert(!t->min_exact && !t->max_exact);
            ck_assert_int_le(t->max_len, (int)limit + 1);
        }
        /* page 1 sorts after page 0 in every column but ff, whose bounds are all alike */
        ck_assert_int_eq(ci.boundary_order, ORDER_ASCENDING);
        ci_free(&ci);
        /* the byte counts are of the whole values */
        ck_assert_int_eq(k->unencoded_bytes, (int64_t)LONG_ROWS * LONG_LEN);
    }
    pfile_free(&p);
}
END_TEST

/* ---- nested: level histograms ------------------------------------------------------------------ */

enum { N_ROWS = 350, N_PAGE = 100, N_MAX_ENTRIES = 4 * N_ROWS };

/* A list column's entries: rows of a null list (def 0), an empty list
 * (def 1), or 1..4 elements each null (def 2) or a value (def 3); rows
 * 100..199 have no values at all. */
typedef struct nested {
    int16_t def[N_MAX_ENTRIES], rep[N_MAX_ENTRIES];
    size_t row_start[N_ROWS + 1];        /* first entry of each row */
    size_t n;
    int32_t iv[N_MAX_ENTRIES];           /* per entry (used where def == 3) */
    inlay_bytes sv[N_MAX_ENTRIES];
    char text[N_MAX_ENTRIES][12];
} nested;

static nested nst;

static void make_nested(void)
{
    uint64_t seed = 4242;
    size_t e = 0;
    for (size_t r = 0; r < N_ROWS; r++) {
        nst.row_start[r] = e;
        const uint64_t kind = rng_next(&seed) % 6;
        const bool empty_rows = r >= 100 && r < 200;
        if (kind == 0 || (empty_rows && kind % 2)) {
            nst.def[e] = 0; nst.rep[e++] = 0;
        } else if (kind == 1 || empty_rows) {
            nst.def[e] = 1; nst.rep[e++] = 0;
        } else {
            const size_t k = 1 + rng_next(&seed) % 4;
            for (size_t j = 0; j < k; j++) {
                nst.def[e] = rng_next(&seed) % 4 == 0 ? 2 : 3;
                nst.rep[e] = j ? 1 : 0;
                nst.iv[e] = (int32_t)rng_next(&seed);
                snprintf(nst.text[e], sizeof nst.text[e], "v%u", (unsigned)(rng_next(&seed) % 100000));
                nst.sv[e].data = nst.text[e];
                nst.sv[e].len = strlen(nst.text[e]);
                e++;
            }
        }
    }
    nst.row_start[N_ROWS] = e;
    nst.n = e;
}

START_TEST(test_nested_histograms)
{
    const int version = _i;
    make_nested();
    inlay_schema *s = inlay_schema_create(NULL);
    int li = inlay_schema_add_list(s, 0, "li", INLAY_OPTIONAL);
    ck_assert_int_gt(inlay_schema_add(s, li, "element", INLAY_OPTIONAL, inlay_type_int(32, true), NULL), 0);
    int ls = inlay_schema_add_list(s, 0, "ls", INLAY_OPTIONAL);
    ck_assert_int_gt(inlay_schema_add(s, ls, "element", INLAY_OPTIONAL, inlay_type_string(), NULL), 0);
    inlay_options o = flat_options(version);
    o.row_group_rows = 100000;
    pfile p;
    inlay_writer *w = pfile_open(&p, s, &o);
    inlay_schema_free(s);
    /* in batches of 70 rows: dense values per batch */
    for (size_t r0 = 0; r0 < N_ROWS; r0 += 70) {
        const size_t r1 = r0 + 70 < N_ROWS ? r0 + 70 : N_ROWS;
        const size_t e0 = nst.row_start[r0], e1 = nst.row_start[r1];
        int32_t iv[N_MAX_ENTRIES];
        inlay_bytes sv[N_MAX_ENTRIES];
        size_t nv = 0;
        for (size_t e = e0; e < e1; e++)
            if (nst.def[e] == 3) {
                iv[nv] = nst.iv[e];
                sv[nv++] = nst.sv[e];
            }
        inlay_levels lv = { nst.def + e0, nst.rep + e0, NULL };
        APPEND_OK(w, inlay_writer_append_i32(w, 0, iv, e1 - e0, &lv));
        APPEND_OK(w, inlay_writer_append_bytes(w, 1, sv, e1 - e0, &lv));
    }
    pfile_close(&p, w);

    static const char *const paths[2] = { "li.list.element", "ls.list.element" };
    for (int col = 0; col < 2; col++) {
        const fm_chunk *k = chunk_of(&p, 0, paths[col]);
        walk wk;
        walk_chunk(&p, k, &wk);
        const int npages = (N_ROWS + N_PAGE - 1) / N_PAGE;
        ck_assert_int_eq(wk.ndata, npages);
        int64_t def_total[4] = { 0 }, rep_total[2] = { 0 }, bytes_total = 0;
        int64_t page_def[MAX_PAGES][4], page_rep[MAX_PAGES][2], page_nulls[MAX_PAGES], page_bytes[MAX_PAGES];
        bool page_has[MAX_PAGES];
        int32_t page_min[MAX_PAGES], page_max[MAX_PAGES];
        size_t smin[MAX_PAGES], smax[MAX_PAGES];
        memset(page_def, 0, sizeof page_def);
        memset(page_rep, 0, sizeof page_rep);
        for (int pg = 0; pg < npages; pg++) {
            const size_t r0 = (size_t)pg * N_PAGE, r1 = r0 + N_PAGE < N_ROWS ? r0 + N_PAGE : N_ROWS;
            const size_t e0 = nst.row_start[r0], e1 = nst.row_start[r1];
            page_nulls[pg] = page_bytes[pg] = 0;
            page_has[pg] = false;
            for (size_t e = e0; e < e1; e++) {
                page_def[pg][nst.def[e]]++;
                page_rep[pg][nst.rep[e]]++;
                if (nst.def[e] != 3) { page_nulls[pg]++; continue; }
                page_bytes[pg] += (int64_t)nst.sv[e].len;
                if (!page_has[pg] || nst.iv[e] < page_min[pg]) page_min[pg] = nst.iv[e];
                if (!page_has[pg] || nst.iv[e] > page_max[pg]) page_max[pg] = nst.iv[e];
                const inlay_bytes *v = &nst.sv[e];
                if (!page_has[pg] || bytes_cmp(v->data, v->len, nst.sv[smin[pg]].data, nst.sv[smin[pg]].len) < 0)
                    smin[pg] = e;
                if (!page_has[pg] || bytes_cmp(v->data, v->len, nst.sv[smax[pg]].data, nst.sv[smax[pg]].len) > 0)
                    smax[pg] = e;
                page_has[pg] = true;
            }
            for (int d = 0; d < 4; d++) def_total[d] += page_def[pg][d];
            for (int d = 0; d < 2; d++) rep_total[d] += page_rep[pg][d];
            bytes_total += page_bytes[pg];
            const ph *h = &wk.data[pg].h;
            ck_assert_int_eq(h->num_values, (int32_t)(e1 - e0));
            if (version == 2) {
                ck_assert_int_eq(h->num_rows, (int32_t)(r1 - r0));
                ck_assert_int_eq(h->num_nulls, (int32_t)page_nulls[pg]);
            }
            ck_assert_int_eq(h->stats.null_count, page_nulls[pg]);
            if (!page_has[pg]) {
                ck_assert_int_eq(h->stats.min_len, -1);
                continue;
            }
            if (col == 0) {
                ck_assert_int_eq(h->stats.min_len, 4);
                ck_assert_int_eq((int32_t)le32(h->stats.min), page_min[pg]);
                ck_assert_int_eq((int32_t)le32(h->stats.max), page_max[pg]);
            } else {
                ck_assert_bytes(h->stats.min, (size_t)h->stats.min_len, nst.sv[smin[pg]].data, nst.sv[smin[pg]].len);
                ck_assert_bytes(h->stats.max, (size_t)h->stats.max_len, nst.sv[smax[pg]].data, nst.sv[smax[pg]].len);
            }
        }
        ck_assert_msg(!page_has[1], "the test meant page 1 to hold no values");
        /* the entries counted are every level written */
        ck_assert_int_eq(def_total[0] + def_total[1] + def_total[2] + def_total[3], (int64_t)nst.n);
        ck_assert_int_eq(rep_total[0], N_ROWS);
        ck_assert_int_eq(k->num_values, (int64_t)nst.n);
        ck_assert_int_eq(k->stats.null_count, def_total[0] + def_total[1] + def_total[2]);

        /* SizeStatistics: the chunk's histograms */
        ck_assert(k->has_size_stats);
        ck_assert_int_eq(k->ndef_hist, 4);
        ck_assert_int_eq(k->nrep_hist, 2);
        for (int d = 0; d < 4; d++) ck_assert_int_eq(k->def_hist[d], def_total[d]);
        for (int d = 0; d < 2; d++) ck_assert_int_eq(k->rep_hist[d], rep_total[d]);
        ck_assert_int_eq(k->unencoded_bytes, col == 1 ? bytes_total : -1);

        /* the ColumnIndex: per page, summing to the chunk's */
        ci_index ci;
        read_column_index(&p, k, &ci);
        ck_assert_int_eq(ci.npages, npages);
        ck_assert_int_eq(ci.ndef_hist, 4 * npages);
        ck_assert_int_eq(ci.nrep_hist, 2 * npages);
        int64_t sum_def[4] = { 0 }, sum_rep[2] = { 0 };
        for (int pg = 0; pg < npages; pg++) {
            for (int d = 0; d < 4; d++) {
                ck_assert_msg(ci.def_hist[4 * pg + d] == page_def[pg][d], "page %d def %d: %lld, want %lld", pg, d,
                              (long long)ci.def_hist[4 * pg + d], (long long)page_def[pg][d]);
                sum_def[d] += ci.def_hist[4 * pg + d];
            }
            for (int d = 0; d < 2; d++) {
                ck_assert_int_eq(ci.rep_hist[2 * pg + d], page_rep[pg][d]);
                sum_rep[d] += ci.rep_hist[2 * pg + d];
            }
            ck_assert_int_eq(ci.null_pages[pg], !page_has[pg]);
            ck_assert_int_eq(ci.null_counts[pg], page_nulls[pg]);
        }
        for (int d = 0; d < 4; d++) ck_assert_int_eq(sum_def[d], k->def_hist[d]);
        for (int d = 0; d < 2; d++) ck_assert_int_eq(sum_rep[d], k->rep_hist[d]);
        ci_free(&ci);

        /* the OffsetIndex: pages start at rows 0, 100, 200, 300 */
        check_offset_index(&p, k, &wk, N_PAGE, NULL);
        oi_index oi;
        read_offset_index(&p, k, &oi);
        if (col == 1) {
            ck_assert_int_eq(oi.nunencoded, npages);
            for (int pg = 0; pg < npages; pg++) ck_assert_int_eq(oi.unencoded[pg], page_bytes[pg]);
        } else {
            ck_assert_int_eq(oi.nunencoded, -1);
        }
        oi_free(&oi);
    }
    pfile_free(&p);
}
END_TEST

/* ---- page checksums ------------------------------------------------------------------------- */

START_TEST(test_page_crc)
{
    /* every page, dictionary pages included, compressed or not */
    const int version = 1 + _i % 2;
    pfile p;
    inlay_options o = flat_options(version);
    o.page_checksum = true;
    if (_i >= 2) o.compression = INLAY_UNCOMPRESSED;
    else o.min_compression_gain = 0;
    write_flat(&p, &o, -1);
    int dict_pages = 0, data_pages = 0;
    for (int i = 0; i < p.f->nchunks; i++) {
        walk w;
        walk_chunk(&p, &p.f->chunks[i], &w);
        for (int j = 0; j < w.ndict + w.ndata; j++) {
            const wpage *pg = j < w.ndict ? &w.dict[j] : &w.data[j - w.ndict];
            ck_assert_msg(pg->h.has_crc, "'%s' page %d: no crc", p.f->chunks[i].path, j);
            const uint8_t *body = p.out.data + pg->at + pg->h.header_len;
            const uint32_t want = (uint32_t)crc32(crc32(0L, Z_NULL, 0), body, (uInt)pg->h.compressed);
            ck_assert_msg(pg->h.crc == want, "'%s' page %d (type %d): crc %08x, want %08x", p.f->chunks[i].path, j,
                          pg->h.type, pg->h.crc, want);
        }
        dict_pages += w.ndict;
        data_pages += w.ndata;
    }
    ck_assert_int_gt(dict_pages, 0);
    ck_assert_int_eq(data_pages, F_NCOLS * FLAT_ROWS / FLAT_PAGE);
    /* and the statistics are unchanged by it */
    for (int c = 0; c < F_NCOLS; c++)
        check_flat_chunk(&p, 1, &flat[c], flat_optional(c), FLAT_GROUP, FLAT_GROUP, FLAT_PAGE, version, -1);
    pfile_free(&p);
}
END_TEST

START_TEST(test_page_crc_off)
{
    pfile p;
    inlay_options o = flat_options(1);
    write_flat(&p, &o, -1);
    for (int i = 0; i < p.f->nchunks; i++) {
        walk w;
        walk_chunk(&p, &p.f->chunks[i], &w);
        for (int j = 0; j < w.ndict; j++) ck_assert(!w.dict[j].h.has_crc);
        for (int j = 0; j < w.ndata; j++) ck_assert(!w.data[j].h.has_crc);
    }
    pfile_free(&p);
}
END_TEST

/* ---- sorting_columns -------------------------------------------------------------------------- */

/* id int64 (required), name string (optional), v double (required). */
static inlay_schema *sorted_schema(void)
{
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "name", INLAY_OPTIONAL, inlay_type_string(), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "v", INLAY_REQUIRED, inlay_type_double(), NULL), 0);
    return s;
}

/* True if msg has "row N" with nothing more of the number after it. */
static bool mentions_row(const char *msg, unsigned long row)
{
    char want[32];
    snprintf(want, sizeof want, "row %lu", row);
    for (const char *p = strstr(msg, want); p; p = strstr(p + 1, want)) {
        char next = p[strlen(want)];
        if (next < '0' || next > '9') return true;
    }
    return false;
}

/* n rows of id (from ids), name "n<id>" and v = id / 2 in one call. */
static int append_rows(inlay_writer *w, const int64_t *ids, size_t n)
{
    static char text[64][24];
    inlay_bytes names[64];
    double v[64];
    ck_assert_uint_le(n, 64);
    for (size_t i = 0; i < n; i++) {
        snprintf(text[i], sizeof text[i], "n%lld", (long long)ids[i]);
        names[i] = bytes_of(text[i]);
        v[i] = (double)ids[i] / 2;
    }
    const inlay_column_batch b[3] = {
        { 0, ids, n, { NULL, NULL, NULL } },
        { 1, names, n, { NULL, NULL, NULL } },
        { 2, v, n, { NULL, NULL, NULL } },
    };
    return inlay_writer_append_columns(w, b, 3);
}

START_TEST(test_sorting_refused)
{
    inlay_schema *s = sorted_schema();
    const inlay_sorting_column key[] = { { "id", false, false } };
    inlay_options o = flat_options(1);
    o.sorting_columns = key;
    o.sorting_columns_count = 1;
    pfile p;
    inlay_writer *w = pfile_open(&p, s, &o);
    inlay_schema_free(s);
    int64_t ids[40];
    for (int i = 0; i < 40; i++) ids[i] = i * 10;            /* rows 0..39: 0 .. 390 */
    APPEND_OK(w, append_rows(w, ids, 40));
    /* rows 40..: 400, 410, 405 (out of order at row 42), 5000 */
    const int64_t bad[] = { 400, 410, 405, 5000 };
    int st = append_rows(w, bad, 4);
    ck_assert_int_eq(st, INLAY_ERR_VALUE);
    const char *msg = inlay_writer_errmsg(w);
    ck_assert_msg(strstr(msg, "'id'") && mentions_row(msg, 42), "message: %s", msg);
    /* one column at a time, the same: the row counted from what was accepted */
    const int64_t bad2[] = { 390 - 1 };
    st = inlay_writer_append_i64(w, 0, bad2, 1, NULL);
    ck_assert_int_eq(st, INLAY_ERR_VALUE);
    msg = inlay_writer_errmsg(w);
    ck_assert_msg(strstr(msg, "'id'") && mentions_row(msg, 40), "message: %s", msg);
    /* still usable: an in-order batch goes in; equal keys are in order */
    const int64_t good[] = { 390, 400, 401, 401 };
    APPEND_OK(w, append_rows(w, good, 4));
    pfile_close(&p, w);
    ck_assert_int_eq(p.f->num_rows, 44);
    const fm_chunk *k = chunk_of(&p, 0, "id");
    ck_assert_int_eq(k->num_values, 44);
    ck_assert_int_eq((int64_t)get_le(k->stats.min, 8), 0);
    ck_assert_int_eq((int64_t)get_le(k->stats.max, 8), 401);   /* not 5000 nor 410 */
    ck_assert_int_eq(chunk_of(&p, 0, "v")->num_values, 44);
    ck_assert_int_eq(chunk_of(&p, 0, "name")->num_values, 44);
    /* the declaration, in every row group */
    ck_assert_int_eq(p.f->nsorting[0], 1);
    ck_assert_int_eq(p.f->sorting[0][0].column_idx, 0);
    ck_assert_int_eq(p.f->sorting[0][0].descending, 0);
    ck_assert_int_eq(p.f->sorting[0][0].nulls_first, 0);
    pfile_free(&p);
}
END_TEST

START_TEST(test_sorting_two_keys)
{
    /* id ascending, then name descending with nulls first: name is judged
     * only where id ties */
    inlay_schema *s = sorted_schema();
    const inlay_sorting_column key[] = { { "id", false, false }, { "name", true, true } };
    inlay_options o = flat_options(1);
    o.row_group_rows = 5;
    o.sorting_columns = key;
    o.sorting_columns_count = 2;
    pfile p;
    inlay_writer *w = pfile_open(&p, s, &o);
    inlay_schema_free(s);
    const int64_t ids[] = { 1, 1, 1, 2, 2, 3 };
    const int16_t def[] = { 0, 1, 1, 1, 1, 1 };
    const inlay_bytes names[] = { bytes_of("m"), bytes_of("c"), bytes_of("z"), bytes_of("a"), bytes_of("b") };
    /* ids 1: null, "m", "c" (descending, null first); 2: "z", "a"; 3: "b" (a new id: any name) */
    const double v[6] = { 0 };
    inlay_column_batch b[3] = {
        { 0, ids, 6, { NULL, NULL, NULL } },
        { 1, names, 6, { def, NULL, NULL } },
        { 2, v, 6, { NULL, NULL, NULL } },
    };
    APPEND_OK(w, inlay_writer_append_columns(w, b, 3));
    /* id 3 again with "c" > "b": out of order by the second key, at row 6 */
    const int64_t ids2[] = { 3 };
    const inlay_bytes names2[] = { bytes_of("c") };
    b[0].values = ids2;
    b[0].count = 1;
    b[1].values = names2;
    b[1].count = 1;
    b[1].levels.def = NULL;
    b[2].count = 1;
    ck_assert_int_eq(inlay_writer_append_columns(w, b, 3), INLAY_ERR_VALUE);
    const char *msg = inlay_writer_errmsg(w);
    ck_assert_msg(strstr(msg, "'name'") && mentions_row(msg, 6), "message: %s", msg);
    /* id 3 with null: a null before a value when nulls come first, out of order too */
    b[1].levels.def = (const int16_t[]){ 0 };
    ck_assert_int_eq(inlay_writer_append_columns(w, b, 3), INLAY_ERR_VALUE);
    /* id 3 with "a" < "b": in order */
    const inlay_bytes names3[] = { bytes_of("a") };
    b[1].values = names3;
    b[1].levels.def = NULL;
    APPEND_OK(w, inlay_writer_append_columns(w, b, 3));
    /* a larger id with any name, appended column by column */
    const int64_t ids4[] = { 4 };
    APPEND_OK(w, inlay_writer_append_i64(w, 0, ids4, 1, NULL));
    const inlay_bytes names4[] = { bytes_of("zzz") };
    APPEND_OK(w, inlay_writer_append_bytes(w, 1, names4, 1, NULL));
    APPEND_OK(w, inlay_writer_append_double(w, 2, v, 1, NULL));
    pfile_close(&p, w);
    ck_assert_int_eq(p.f->num_rows, 8);
    ck_assert_int_eq(p.f->num_row_groups, 2);
    for (int rg = 0; rg < 2; rg++) {
        ck_assert_int_eq(p.f->nsorting[rg], 2);
        ck_assert_int_eq(p.f->sorting[rg][0].column_idx, 0);
        ck_assert_int_eq(p.f->sorting[rg][0].descending, 0);
        ck_assert_int_eq(p.f->sorting[rg][0].nulls_first, 0);
        ck_assert_int_eq(p.f->sorting[rg][1].column_idx, 1);
        ck_assert_int_eq(p.f->sorting[rg][1].descending, 1);
        ck_assert_int_eq(p.f->sorting[rg][1].nulls_first, 1);
    }
    ck_assert_int_eq(p.f->row_group_rows[0], 5);
    ck_assert_int_eq(p.f->row_group_rows[1], 3);
    pfile_free(&p);
}
END_TEST

START_TEST(test_sorting_bad_declarations)
{
    /* a key that is no column, or inside a list, or named twice: refused at open */
    inlay_schema *s = sorted_schema();
    int l = inlay_schema_add_list(s, 0, "tags", INLAY_OPTIONAL);
    ck_assert_int_gt(inlay_schema_add(s, l, "element", INLAY_OPTIONAL, inlay_type_int(32, true), NULL), 0);
    const inlay_sorting_column nope[] = { { "nope", false, false } };
    const inlay_sorting_column listed[] = { { "tags.list.element", false, false } };
    const inlay_sorting_column twice[] = { { "id", false, false }, { "id", true, false } };
    const inlay_sorting_column *cases[] = { nope, listed, twice };
    const size_t counts[] = { 1, 1, 2 };
    for (int i = 0; i < 3; i++) {
        inlay_options o = flat_options(1);
        o.sorting_columns = cases[i];
        o.sorting_columns_count = counts[i];
        inlay_buffer out;
        inlay_buffer_init(&out, NULL);
        inlay_writer *w = NULL;
        int st = inlay_writer_open(&w, inlay_buffer_sink(&out), s, &o);
        ck_assert_msg(st == INLAY_ERR_ARGUMENT, "case %d: %d", i, st);
        inlay_writer_free(w);
        inlay_buffer_free(&out);
    }
    inlay_schema_free(s);
}
END_TEST

/* ---- bloom filters -------------------------------------------------------------------------- */

/* BloomFilter.md's check, written out: the block from the hash's high 32
 * bits, one bit per 32-bit word from its low 32 bits and the salts. */
static bool spec_bloom_check(const uint8_t *bits, size_t nbytes, uint64_t hash)
{
    static const uint32_t salt[8] = { 0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                      0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U };
    const uint64_t nblocks = nbytes / 32;
    const size_t block = (size_t)(((hash >> 32) * nblocks) >> 32);
    const uint32_t key = (uint32_t)hash;
    for (int i = 0; i < 8; i++) {
        const uint32_t word = le32(bits + block * 32 + (size_t)i * 4);
        const uint32_t bit = (uint32_t)(key * salt[i]) >> 27;
        if (!(word >> bit & 1)) return false;
    }
    return true;
}

typedef struct bloom_view {
    const uint8_t *bits;
    size_t nbytes;
} bloom_view;

/* The chunk's bloom filter, which must be present and well formed. */
static bloom_view read_bloom(const pfile *p, const fm_chunk *k)
{
    ck_assert_msg(k->bloom_offset > 0 && k->bloom_length > 0, "'%s' rg %d: no bloom filter", k->path, k->row_group);
    ck_assert((size_t)k->bloom_offset + (size_t)k->bloom_length <= p->out.len - 8);
    bf_header h;
    ck_assert(bf_read_header(p->out.data + k->bloom_offset, (size_t)k->bloom_length, &h));
    ck_assert_msg(h.num_bytes >= 32 && (h.num_bytes & (h.num_bytes - 1)) == 0, "numBytes %d", h.num_bytes);
    ck_assert_int_eq(h.algorithm, 1);    /* BLOCK */
    ck_assert_int_eq(h.hash, 1);         /* XXHASH */
    ck_assert_int_eq(h.compression, 1);  /* UNCOMPRESSED */
    ck_assert_int_eq((size_t)k->bloom_length, h.header_len + (size_t)h.num_bytes);
    bloom_view v = { p->out.data + k->bloom_offset + h.header_len, (size_t)h.num_bytes };
    return v;
}

enum { B_ROWS = 3000, B_GROUP = 1500 };

START_TEST(test_bloom)
{
    /* an int64 and a string column with filters (AUTO: the dictionary
     * path; PLAIN: values one by one), an int64 column without */
    const inlay_encoding_choice enc = _i ? INLAY_ENCODING_PLAIN : INLAY_ENCODING_AUTO;
    inlay_schema *s = inlay_schema_create(NULL);
    inlay_column_options co;
    inlay_column_options_init(&co);
    co.bloom_filter = true;
    co.encoding = enc;
    ck_assert_int_gt(inlay_schema_add(s, 0, "k", INLAY_REQUIRED, inlay_type_int(64, true), &co), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "s", INLAY_OPTIONAL, inlay_type_string(), &co), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "plain", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    inlay_options o = flat_options(1);
    o.row_group_rows = B_GROUP;
    pfile p;
    inlay_writer *w = pfile_open(&p, s, &o);
    inlay_schema_free(s);
    static int64_t k[B_ROWS];
    static char text[B_ROWS][24];
    static inlay_bytes sv[B_ROWS];
    static int16_t def[B_ROWS];
    uint64_t seed = 31337;
    size_t ns = 0;
    for (size_t r = 0; r < B_ROWS; r++) {
        k[r] = (int64_t)(rng_next(&seed) % 100000) * (r % 2 ? -1 : 1);   /* repeats, both signs */
        def[r] = r % 9 != 0;
        if (def[r]) {
            snprintf(text[ns], sizeof text[ns], "s\xC3\xA9%u", (unsigned)(rng_next(&seed) % 2000));
            sv[ns] = bytes_of(text[ns]);
            ns++;
        }
    }
    /* in batches of 500 rows; the strings are dense per batch */
    size_t vi = 0;
    for (size_t r = 0; r < B_ROWS; r += 500) {
        size_t nv = 0;
        for (size_t i = r; i < r + 500; i++) nv += (size_t)def[i];
        inlay_levels lv = { def + r, NULL, NULL };
        APPEND_OK(w, inlay_writer_append_i64(w, 0, k + r, 500, NULL));
        APPEND_OK(w, inlay_writer_append_bytes(w, 1, sv + vi, 500, &lv));
        APPEND_OK(w, inlay_writer_append_i64(w, 2, k + r, 500, NULL));
        vi += nv;
    }
    pfile_close(&p, w);
    ck_assert_int_eq(p.f->num_row_groups, 2);
    size_t v0 = 0;
    for (int rg = 0; rg < 2; rg++) {
        const size_t r0 = (size_t)rg * B_GROUP, r1 = r0 + B_GROUP;
        const fm_chunk *kk = chunk_of(&p, rg, "k"), *ks = chunk_of(&p, rg, "s"), *kp = chunk_of(&p, rg, "plain");
        ck_assert_int_eq(kp->bloom_offset, -1);
        ck_assert_int_eq(kp->bloom_length, -1);
        const bloom_view bk = read_bloom(&p, kk), bs = read_bloom(&p, ks);
        /* the filters follow the row group's chunks, before the next row group */
        const int64_t rg_end = kp->data_page_offset + kp->total_compressed;
        ck_assert_int_ge(kk->bloom_offset, rg_end);
        ck_assert_int_ge(ks->bloom_offset, rg_end);
        if (rg == 0) {
            const fm_chunk *next = chunk_of(&p, 1, "k");
            const int64_t next_start = next->dictionary_page_offset >= 0 ? next->dictionary_page_offset
                                                                         : next->data_page_offset;
            ck_assert_int_le(kk->bloom_offset + kk->bloom_length, next_start);
            ck_assert_int_le(ks->bloom_offset + ks->bloom_length, next_start);
        }
        /* every value of the row group is in its filters: XXH64 (seed 0) of
         * the PLAIN bytes, little-endian for the int64 */
        size_t nstr = 0;
        for (size_t r = r0; r < r1; r++) {
            uint8_t le[8];
            put_le(le, (uint64_t)k[r], 8);
            ck_assert_msg(spec_bloom_check(bk.bits, bk.nbytes, XXH64(le, 8, 0)), "rg %d: %lld not in the filter",
                          rg, (long long)k[r]);
            if (def[r]) {
                const inlay_bytes *b = &sv[v0 + nstr++];
                ck_assert_msg(spec_bloom_check(bs.bits, bs.nbytes, XXH64(b->data, b->len, 0)),
                              "rg %d: '%.*s' not in the filter", rg, (int)b->len, (const char *)b->data);
            }
        }
        v0 += nstr;
        /* and values never written mostly are not (1% asked for; 5% allowed) */
        int hits = 0, hits_s = 0;
        for (int64_t x = 200000; x < 210000; x++) {
            uint8_t le[8];
            put_le(le, (uint64_t)x, 8);
            hits += spec_bloom_check(bk.bits, bk.nbytes, XXH64(le, 8, 0));
            char t[24];
            int n = snprintf(t, sizeof t, "absent%lld", (long long)x);
            hits_s += spec_bloom_check(bs.bits, bs.nbytes, XXH64(t, (size_t)n, 0));
        }
        ck_assert_msg(hits < 500 && hits_s < 500, "false positives: %d and %d of 10000", hits, hits_s);
    }
    /* a null is not a value: nothing for it */
    pfile_free(&p);
}
END_TEST

START_TEST(test_bloom_float_zero)
{
    /* values hashed by bit pattern, as the spec says: -0.0 and +0.0 are
     * different values to the filter */
    inlay_schema *s = inlay_schema_create(NULL);
    inlay_column_options co;
    inlay_column_options_init(&co);
    co.bloom_filter = true;
    co.encoding = _i ? INLAY_ENCODING_PLAIN : INLAY_ENCODING_AUTO;
    ck_assert_int_gt(inlay_schema_add(s, 0, "d", INLAY_REQUIRED, inlay_type_double(), &co), 0);
    inlay_options o = flat_options(1);
    pfile p;
    inlay_writer *w = pfile_open(&p, s, &o);
    inlay_schema_free(s);
    const double v[] = { -0.0, 1.5, -2.25, INFINITY };
    APPEND_OK(w, inlay_writer_append_double(w, 0, v, 4, NULL));
    pfile_close(&p, w);
    const bloom_view b = read_bloom(&p, chunk_of(&p, 0, "d"));
    for (int i = 0; i < 4; i++) {
        uint64_t bits;
        memcpy(&bits, &v[i], 8);
        uint8_t le[8];
        put_le(le, bits, 8);
        ck_assert_msg(spec_bloom_check(b.bits, b.nbytes, XXH64(le, 8, 0)), "%g not in the filter", v[i]);
    }
    pfile_free(&p);
}
END_TEST

/* Every non-null value of rows [from, to) of c is in chunk k's bloom
 * filter: XXH64 (seed 0) of its PLAIN bytes. */
static void check_bloom_has(const pfile *p, const fm_chunk *k, const mcol *c, size_t from, size_t to)
{
    const bloom_view b = read_bloom(p, k);
    for (size_t r = from; r < to; r++) {
        if (is_null(c, r)) continue;
        uint8_t le[8];
        uint64_t h;
        switch (c->kind) {
        case K_I32: case K_U32: put_le(le, (uint64_t)c->iv[r], 4); h = XXH64(le, 4, 0); break;
        case K_I64: case K_U64: put_le(le, (uint64_t)c->iv[r], 8); h = XXH64(le, 8, 0); break;
        case K_DOUBLE: {
            uint64_t bits;
            memcpy(&bits, &c->dv[r], 8);
            put_le(le, bits, 8);
            h = XXH64(le, 8, 0);
            break;
        }
        default: h = XXH64(c->bv[r].data, c->bv[r].len, 0); break;
        }
        ck_assert_msg(spec_bloom_check(b.bits, b.nbytes, h), "'%s' row %zu: not in the bloom filter", c->name, r);
    }
}

/* One column of model c, n rows in batches of `batch`. */
static void write_model(pfile *p, const mcol *c, size_t n, size_t batch, bool optional, inlay_type t,
                        const inlay_column_options *co, const inlay_options *o)
{
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, c->name, optional ? INLAY_OPTIONAL : INLAY_REQUIRED, t, co), 0);
    inlay_writer *w = pfile_open(p, s, o);
    inlay_schema_free(s);
    int16_t *def = malloc(batch * sizeof *def);
    int32_t *i32 = malloc(batch * sizeof *i32);
    int64_t *i64 = malloc(batch * sizeof *i64);
    double *dv = malloc(batch * sizeof *dv);
    inlay_bytes *bv = malloc(batch * sizeof *bv);
    ck_assert(def && i32 && i64 && dv && bv);
    for (size_t r0 = 0; r0 < n; r0 += batch) {
        const size_t r1 = r0 + batch < n ? r0 + batch : n;
        size_t nv = 0;
        for (size_t r = r0; r < r1; r++) {
            def[r - r0] = (int16_t)!is_null(c, r);
            if (is_null(c, r)) continue;
            if (c->iv) { i32[nv] = (int32_t)c->iv[r]; i64[nv] = c->iv[r]; }
            if (c->dv) dv[nv] = c->dv[r];
            if (c->bv) bv[nv] = c->bv[r];
            nv++;
        }
        inlay_levels lv = { def, NULL, NULL };
        const inlay_levels *l = optional ? &lv : NULL;
        switch (c->kind) {
        case K_I32: case K_U32: APPEND_OK(w, inlay_writer_append_i32(w, 0, i32, r1 - r0, l)); break;
        case K_I64: case K_U64: APPEND_OK(w, inlay_writer_append_i64(w, 0, i64, r1 - r0, l)); break;
        case K_DOUBLE: APPEND_OK(w, inlay_writer_append_double(w, 0, dv, r1 - r0, l)); break;
        default: APPEND_OK(w, inlay_writer_append_bytes(w, 0, bv, r1 - r0, l)); break;
        }
    }
    free(def); free(i32); free(i64); free(dv); free(bv);
    pfile_close(p, w);
}

enum { D_ROWS = 800 };
static char d_text[D_ROWS][40];
static inlay_bytes d_bv[D_ROWS];
static bool d_null[D_ROWS];

START_TEST(test_dictionary_given_up)
{
    /* DICTIONARY with a small dictionary_bytes: the dictionary is given up
     * partway through the first chunk, whose page then ends early and the
     * rest goes out in the fallback encoding; the second chunk starts a
     * dictionary again. Bounds, counts, the index and the bloom filter
     * span the switch. */
    uint64_t seed = 77;
    for (size_t r = 0; r < D_ROWS; r++) {
        snprintf(d_text[r], sizeof d_text[r], "%c%llx\xC3\xB8", 'A' + (int)(rng_next(&seed) % 58),
                 (unsigned long long)(rng_next(&seed) % 0xFFFFFFFFFFull));
        d_bv[r] = bytes_of(d_text[r]);
        d_null[r] = r % 10 == 3;
    }
    mcol c = { .name = "s", .kind = K_BYTES, .null = d_null, .bv = d_bv };
    inlay_column_options co;
    inlay_column_options_init(&co);
    co.encoding = INLAY_ENCODING_DICTIONARY;
    co.bloom_filter = true;
    inlay_options o = flat_options(1 + _i);
    o.row_group_rows = 500;
    o.dictionary_bytes = 2500;
    o.page_checksum = true;
    pfile p;
    write_model(&p, &c, D_ROWS, 64, true, inlay_type_string(), &co, &o);
    ck_assert_int_eq(p.f->num_row_groups, 2);
    for (int rg = 0; rg < 2; rg++) {
        const size_t r0 = rg ? 500 : 0, n = rg ? 300 : 500;
        check_flat_chunk(&p, rg, &c, true, r0, n, 0, 1 + _i, -1);
        check_bloom_has(&p, chunk_of(&p, rg, "s"), &c, r0, r0 + n);
    }
    /* the first chunk did switch: a dictionary page, then pages in two encodings */
    walk w;
    walk_chunk(&p, chunk_of(&p, 0, "s"), &w);
    ck_assert_int_eq(w.ndict, 1);
    ck_assert_int_eq(w.data[0].h.encoding, 8);                    /* RLE_DICTIONARY */
    ck_assert_int_ne(w.data[w.ndata - 1].h.encoding, 8);
    ck_assert_int_gt(w.ndata, 5);                                  /* one page ended early */
    ck_assert_int_lt(w.data[1].h.num_values, 100);
    pfile_free(&p);
}
END_TEST

START_TEST(test_null_first_page_auto)
{
    /* AUTO: a first page of nulls only does not decide the dictionary; it
     * goes out dictionary-encoded, and when the next page finds the
     * dictionary does not pay, an empty dictionary page backs it */
    uint64_t seed = 78;
    for (size_t r = 0; r < 300; r++) {
        snprintf(d_text[r], sizeof d_text[r], "%016llx%016llx", (unsigned long long)rng_next(&seed),
                 (unsigned long long)rng_next(&seed));
        d_bv[r] = bytes_of(d_text[r]);
        d_null[r] = r < 100 || r % 7 == 0;
    }
    mcol c = { .name = "s", .kind = K_BYTES, .null = d_null, .bv = d_bv };
    inlay_column_options co;
    inlay_column_options_init(&co);
    co.bloom_filter = true;
    inlay_options o = flat_options(1 + _i);
    o.page_checksum = true;
    pfile p;
    write_model(&p, &c, 300, 50, true, inlay_type_string(), &co, &o);
    check_flat_chunk(&p, 0, &c, true, 0, 300, 100, 1 + _i, -1);
    check_bloom_has(&p, chunk_of(&p, 0, "s"), &c, 0, 300);
    walk w;
    walk_chunk(&p, chunk_of(&p, 0, "s"), &w);
    ck_assert_int_eq(w.ndata, 3);
    ck_assert_int_eq(w.data[0].h.stats.null_count, 100);
    ck_assert_int_eq(w.data[0].h.stats.min_len, -1);
    /* the null page went out dictionary-encoded, the rest not */
    ck_assert_int_eq(w.ndict, 1);
    ck_assert_int_eq(w.data[0].h.encoding, 8);
    ck_assert_int_ne(w.data[1].h.encoding, 8);
    /* the CRCs hold for an empty dictionary page too */
    for (int j = 0; j < w.ndict; j++) {
        const uint8_t *body = p.out.data + w.dict[j].at + w.dict[j].h.header_len;
        ck_assert(w.dict[j].h.has_crc);
        ck_assert_uint_eq(w.dict[j].h.crc, (uint32_t)crc32(crc32(0L, Z_NULL, 0), body, (uInt)w.dict[j].h.compressed));
    }
    pfile_free(&p);
}
END_TEST

START_TEST(test_column_stats_sizes)
{
    /* inlay_writer_column_stats counts the index and filter bytes the footer points at */
    make_flat();
    inlay_schema *s = flat_schema(F_DBL);
    inlay_options o = flat_options(1);
    pfile p;
    inlay_writer *w = pfile_open(&p, s, &o);
    inlay_schema_free(s);
    for (size_t r = 0; r < FLAT_ROWS; r += FLAT_BATCH) append_flat(w, r, r + FLAT_BATCH);
    ck_assert_int_eq(inlay_writer_close(w), INLAY_OK);
    inlay_column_stats cs[F_NCOLS];
    for (int c = 0; c < F_NCOLS; c++) ck_assert_int_eq(inlay_writer_column_stats(w, c, &cs[c]), INLAY_OK);
    inlay_writer_free(w);
    p.f = fm_read(p.out.data, p.out.len, NULL);
    ck_assert_ptr_nonnull(p.f);
    for (int c = 0; c < F_NCOLS; c++) {
        uint64_t ci = 0, oi = 0;
        for (int rg = 0; rg < 2; rg++) {
            const fm_chunk *k = chunk_of(&p, rg, flat_names[c]);
            ci += (uint64_t)k->index_length[1];
            oi += (uint64_t)k->index_length[0];
        }
        ck_assert_uint_eq(cs[c].column_index_bytes, ci);
        ck_assert_uint_eq(cs[c].offset_index_bytes, oi);
        ck_assert_uint_eq(cs[c].bloom_filter_bytes, 0);
        if (c == F_DBL) ck_assert_uint_eq(ci, 0);   /* statistics off: no ColumnIndex */
        else ck_assert_uint_gt(ci, 0);
        ck_assert_uint_gt(oi, 0);
    }
    pfile_free(&p);
}
END_TEST

/* BloomFilter.md's size for ndv distinct values at rate fpp, in bytes: a
 * power of two of at least 32. */
static size_t spec_bloom_bytes(double ndv, double fpp)
{
    const double bits = -8 * ndv / log(1 - pow(fpp, 1.0 / 8));
    size_t n = 32;
    while ((double)n * 8 < bits) n *= 2;
    return n;
}

START_TEST(test_bloom_sizes)
{
    /* sized for bloom_ndv when given, else for the chunk's distinct values
     * (dictionary-encoded) or its non-null values (otherwise), at bloom_fpp */
    enum { R = 1000 };
    inlay_schema *s = inlay_schema_create(NULL);
    static const struct { inlay_encoding_choice enc; uint64_t ndv; double fpp; } cols[] = {
        { INLAY_ENCODING_DICTIONARY, 0, 0 }, { INLAY_ENCODING_PLAIN, 0, 0 },
        { INLAY_ENCODING_PLAIN, 1000000, 0 }, { INLAY_ENCODING_PLAIN, 1000, 0.5 },
        { INLAY_ENCODING_PLAIN, 0, 0.001 },
    };
    const int ncols = (int)(sizeof cols / sizeof cols[0]);
    for (int c = 0; c < ncols; c++) {
        inlay_column_options co;
        inlay_column_options_init(&co);
        co.bloom_filter = true;
        co.encoding = cols[c].enc;
        co.bloom_ndv = cols[c].ndv;
        co.bloom_fpp = cols[c].fpp;
        char name[8];
        snprintf(name, sizeof name, "c%d", c);
        ck_assert_int_gt(inlay_schema_add(s, 0, name, INLAY_OPTIONAL, inlay_type_int(64, true), &co), 0);
    }
    inlay_options o = flat_options(1);
    o.row_group_rows = R;
    pfile p;
    inlay_writer *w = pfile_open(&p, s, &o);
    inlay_schema_free(s);
    static int64_t v[R];
    static int16_t def[R];
    size_t nv = 0;
    for (size_t r = 0; r < R; r++) {
        def[r] = r % 10 != 0;            /* 900 values */
        if (def[r]) v[nv++] = (int64_t)(r % 300) * 1000003;   /* 300 distinct */
    }
    inlay_levels lv = { def, NULL, NULL };
    for (int c = 0; c < ncols; c++) APPEND_OK(w, inlay_writer_append_i64(w, c, v, R, &lv));
    pfile_close(&p, w);
    const size_t want[] = { spec_bloom_bytes(300, 0.01), spec_bloom_bytes(900, 0.01),
                            spec_bloom_bytes(1000000, 0.01), spec_bloom_bytes(1000, 0.5),
                            spec_bloom_bytes(900, 0.001) };
    for (int c = 0; c < ncols; c++) {
        char name[8];
        snprintf(name, sizeof name, "c%d", c);
        const fm_chunk *k = chunk_of(&p, 0, name);
        const bloom_view b = read_bloom(&p, k);
        ck_assert_msg(b.nbytes == want[c], "'%s': %zu bytes, want %zu", name, b.nbytes, want[c]);
        for (size_t i = 0; i < nv; i++) {
            uint8_t le[8];
            put_le(le, (uint64_t)v[i], 8);
            ck_assert(spec_bloom_check(b.bits, b.nbytes, XXH64(le, 8, 0)));
        }
    }
    /* the values the sizes come from are as meant */
    ck_assert_uint_eq(nv, 900);
    ck_assert_uint_eq(want[2], 2097152);
    pfile_free(&p);
}
END_TEST

START_TEST(test_bloom_types)
{
    /* INT32 (unsigned bits), FIXED_LEN_BYTE_ARRAY, DOUBLE and INT64 with
     * nulls, each by the dictionary path (AUTO) and value by value (PLAIN) */
    enum { R = 700 };
    static int64_t iv[R];
    static double dv[R];
    static char text[R][6];
    static inlay_bytes bv[R];
    static bool nul[R];
    uint64_t seed = 5150;
    for (size_t r = 0; r < R; r++) {
        iv[r] = (int64_t)(int32_t)(uint32_t)(rng_next(&seed) % 300 * 0x01000193u);
        dv[r] = (double)(rng_next(&seed) % 200) / 8 - 12;
        for (int j = 0; j < 6; j++) text[r][j] = (char)(0x80 + rng_next(&seed) % 3);
        bv[r].data = text[r];
        bv[r].len = 6;
        nul[r] = r % 6 == 1;
    }
    const int kind = _i / 2;
    mcol c = { .name = "x" };
    inlay_type t;
    bool optional = false;
    switch (kind) {
    case 0: c.kind = K_U32; c.iv = iv; t = inlay_type_int(32, false); break;
    case 1: c.kind = K_BYTES; c.bv = bv; t = inlay_type_fixed(6); break;
    case 2: c.kind = K_DOUBLE; c.dv = dv; t = inlay_type_double(); break;
    default: c.kind = K_I64; c.iv = iv; c.null = nul; optional = true; t = inlay_type_int(64, true); break;
    }
    inlay_column_options co;
    inlay_column_options_init(&co);
    co.bloom_filter = true;
    co.encoding = _i % 2 ? INLAY_ENCODING_PLAIN : INLAY_ENCODING_AUTO;
    inlay_options o = flat_options(1);
    o.row_group_rows = 400;
    pfile p;
    write_model(&p, &c, R, 90, optional, t, &co, &o);
    ck_assert_int_eq(p.f->num_row_groups, 2);
    check_bloom_has(&p, chunk_of(&p, 0, "x"), &c, 0, 400);
    check_bloom_has(&p, chunk_of(&p, 1, "x"), &c, 400, R);
    if (kind != 1) {   /* and the statistics and index of the same chunks */
        check_flat_chunk(&p, 0, &c, optional, 0, 400, 100, 1, -1);
        check_flat_chunk(&p, 1, &c, optional, 400, R - 400, 100, 1, -1);
    }
    pfile_free(&p);
}
END_TEST

/* ---- the allocator and the sink failing ------------------------------------------------------------------- */

/* A file with every feature of this suite: a sorted int64 key with a
 * bloom filter, an optional dictionary string with one, a list, CRCs, v2
 * pages, several row groups. Returns the first failing status (and stops
 * there) or INLAY_OK. */
static int write_everything(const inlay_allocator *a, inlay_sink sink)
{
    inlay_schema *s = inlay_schema_create(NULL);
    inlay_column_options co;
    inlay_column_options_init(&co);
    co.bloom_filter = true;
    ck_assert_int_gt(inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), &co), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "s", INLAY_OPTIONAL, inlay_type_string(), &co), 0);
    int l = inlay_schema_add_list(s, 0, "l", INLAY_OPTIONAL);
    ck_assert_int_gt(inlay_schema_add(s, l, "element", INLAY_OPTIONAL, inlay_type_int(32, true), NULL), 0);
    const inlay_sorting_column key[] = { { "id", false, false } };
    inlay_options o;
    inlay_options_init(&o);
    o.alloc = *a;
    o.page_rows = 10;
    o.row_group_rows = 40;
    o.page_version = 2;
    o.page_checksum = true;
    o.statistics_truncate_length = 8;
    o.sorting_columns = key;
    o.sorting_columns_count = 1;
    inlay_writer *w = NULL;
    int st = inlay_writer_open(&w, sink, s, &o);
    inlay_schema_free(s);
    for (int b = 0; st == INLAY_OK && b < 4; b++) {
        int64_t id[25];
        inlay_bytes sv[25];
        int16_t sdef[25], ldef[50], lrep[50];
        int32_t lv[50];
        static char text[25][32];
        size_t ns = 0, nl = 0, nlv = 0;
        for (int i = 0; i < 25; i++) {
            const int r = b * 25 + i;
            id[i] = r / 2;
            sdef[i] = r % 5 != 0;
            if (sdef[i]) {
                snprintf(text[ns], sizeof text[ns], "value-\xC3\xA9-%d-long-enough", r % 7);
                sv[ns] = bytes_of(text[ns]);
                ns++;
            }
            ldef[nl] = (int16_t)(r % 4);
            lrep[nl++] = 0;
            if (r % 4 == 3) {
                lv[nlv++] = r;
                ldef[nl] = 3;
                lrep[nl++] = 1;
                lv[nlv++] = -r;
            }
        }
        const inlay_column_batch batches[3] = {
            { 0, id, 25, { NULL, NULL, NULL } },
            { 1, sv, 25, { sdef, NULL, NULL } },
            { 2, lv, nl, { ldef, lrep, NULL } },
        };
        st = inlay_writer_append_columns(w, batches, 3);
    }
    if (st == INLAY_OK) st = inlay_writer_close(w);
    inlay_writer_free(w);
    return st;
}

START_TEST(test_alloc_failures)
{
    inlay_buffer want;
    inlay_buffer_init(&want, NULL);
    const inlay_allocator dflt = { NULL, NULL };
    ck_assert_int_eq(write_everything(&dflt, inlay_buffer_sink(&want)), INLAY_OK);
    /* the reference file parses, with an index and filters */
    fm_file *f = fm_read(want.data, want.len, NULL);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->num_rows, 100);
    ck_assert_int_ge(fm_find(f, 0, "id")->bloom_offset, 0);
    ck_assert_int_ge(fm_find(f, 0, "l.list.element")->index_offset[1], 0);
    free(f);
    for (unsigned long k = 1;; k++) {
        test_alloc ta = { .fail_at = k };
        const inlay_allocator a = test_allocator(&ta);
        inlay_buffer out;
        inlay_buffer_init(&out, NULL);
        const int st = write_everything(&a, inlay_buffer_sink(&out));
        ck_assert_no_leak(&ta);
        if (!ta.refused) {
            ck_assert_int_eq(st, INLAY_OK);
            ck_assert_bytes(out.data, out.len, want.data, want.len);
            inlay_buffer_free(&out);
            ck_assert_uint_gt(k, 20);
            break;
        }
        ck_assert_msg(st == INLAY_ERR_NOMEM, "allocation %lu refused: status %d", k, st);
        inlay_buffer_free(&out);
    }
    inlay_buffer_free(&want);
}
END_TEST

START_TEST(test_sink_failures)
{
    /* the page index and bloom filters are written like the rest: a sink
     * failing at any write is INLAY_ERR_IO, the sink aborted, never
     * finished, never called again */
    const inlay_allocator dflt = { NULL, NULL };
    for (unsigned long k = 1;; k++) {
        test_sink ts = { .fail_write = k };
        const int st = write_everything(&dflt, test_sink_interface(&ts));
        if (!ts.failed) {
            ck_assert_int_eq(st, INLAY_OK);
            ck_assert_uint_eq(ts.finishes, 1);
            fm_file *f = fm_read(ts.data, ts.len, NULL);
            ck_assert_ptr_nonnull(f);
            ck_assert_int_eq(f->num_rows, 100);
            free(f);
            test_sink_free(&ts);
            ck_assert_uint_gt(k, 5);
            break;
        }
        ck_assert_msg(st == INLAY_ERR_IO, "write %lu failing: status %d", k, st);
        ck_assert_uint_eq(ts.finishes, 0);
        ck_assert_uint_eq(ts.aborts, 1);
        ck_assert_uint_eq(ts.writes_after_failure, 0);
        ck_assert_uint_eq(ts.late_calls, 0);
        test_sink_free(&ts);
    }
}
END_TEST

static Suite *pageindex_suite(void)
{
    Suite *s = suite_create("pageindex");
    TCase *c;

    /* loop index: the data page version */
    c = tcase_create("page statistics");
    tcase_set_timeout(c, 60);
    tcase_add_loop_test(c, test_flat, 1, 3);
    tcase_add_loop_test(c, test_flat_columns_ahead, 1, 3);
    tcase_add_test(c, test_zero_pages);
    tcase_add_loop_test(c, test_dictionary_and_plain_agree, 1, 3);
    tcase_add_loop_test(c, test_delta_bounds, 0, 2);
    tcase_add_loop_test(c, test_all_nan_page, 1, 3);
    tcase_add_loop_test(c, test_other_orders, 1, 3);
    tcase_add_loop_test(c, test_dictionary_given_up, 0, 2);
    tcase_add_loop_test(c, test_null_first_page_auto, 0, 2);
    tcase_add_test(c, test_column_stats_sizes);
    suite_add_tcase(s, c);

    c = tcase_create("truncation");
    tcase_set_timeout(c, 60);
    tcase_add_loop_test(c, test_truncation, 0, 8);
    suite_add_tcase(s, c);

    c = tcase_create("nested");
    tcase_add_loop_test(c, test_nested_histograms, 1, 3);
    suite_add_tcase(s, c);

    c = tcase_create("switches");
    tcase_set_timeout(c, 60);
    tcase_add_loop_test(c, test_no_page_index, 1, 3);
    tcase_add_loop_test(c, test_statistics_off, 1, 3);
    tcase_add_loop_test(c, test_statistics_off_one_column, 0, 4);
    suite_add_tcase(s, c);

    c = tcase_create("checksums");
    tcase_set_timeout(c, 60);
    tcase_add_loop_test(c, test_page_crc, 0, 4);
    tcase_add_test(c, test_page_crc_off);
    suite_add_tcase(s, c);

    c = tcase_create("sorting columns");
    tcase_add_test(c, test_sorting_refused);
    tcase_add_test(c, test_sorting_two_keys);
    tcase_add_test(c, test_sorting_bad_declarations);
    suite_add_tcase(s, c);

    c = tcase_create("bloom filters");
    tcase_set_timeout(c, 60);
    tcase_add_loop_test(c, test_bloom, 0, 2);
    tcase_add_loop_test(c, test_bloom_float_zero, 0, 2);
    tcase_add_loop_test(c, test_bloom_types, 0, 8);
    tcase_add_test(c, test_bloom_sizes);
    suite_add_tcase(s, c);

    c = tcase_create("failures");
    tcase_set_timeout(c, 240);
    tcase_add_test(c, test_alloc_failures);
    tcase_add_test(c, test_sink_failures);
    suite_add_tcase(s, c);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(pageindex_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
