/*
 * arrow.c — Arrow record batches (the C data interface) into the column
 * batches of one all-or-nothing append (inl_arrow_stage, for
 * inlay_writer_append_arrow); arrow_schema.c says what the formats mean.
 *
 * A record batch is a struct array whose children are the top-level
 * fields. It is read in two passes over the writer's schema tree, walked
 * beside the Arrow schema tree:
 *
 *   match  every Arrow format is parsed once into an `atype` kept with the
 *          schema node it stands for, and must map onto that node: a leaf
 *          type, a plain group (struct), a LIST or a MAP in the 3-level
 *          form. Nothing of the arrays is read yet, so a batch of the
 *          wrong shape fails as a schema error whatever its data.
 *   read   a top-level leaf (a flat column) becomes one
 *          inlay_column_batch: its values are the Arrow data buffer itself
 *          where the layouts agree (int32, int64, float, double, a time in
 *          the column's unit; unsigned values are the same bits) with the
 *          Arrow validity bitmap when it starts on a byte, and a converted
 *          copy in the node's scratch otherwise (booleans unpacked to
 *          bytes; strings, binaries, views, fixed-size binaries and halves
 *          as inlay_bytes pointing into the Arrow buffers; narrow integers
 *          widened; decimals to the column's form; times converted;
 *          dictionary indices looked up). A nested field becomes a tree of
 *          inlay_array (shred.h's input): validity from bit 0, list and map
 *          offsets rebased to the child entries the batch uses, children
 *          sliced to them, leaves converted as above; it is shredded into
 *          a shred state of its own (one per top-level field), so every
 *          field's levels and values are held at once.
 *
 * Nothing reaches a column here. The writer checks the staged batches all
 * together (levels, nulls in required columns, value ranges, UTF-8) and
 * only then buffers them, so a batch that fails at any point, in any field,
 * leaves the writer as it was.
 *
 * Offsets: Arrow's C interface carries no buffer sizes (except those of a
 * view array's data buffers), so string and binary offsets are checked for
 * order only, list and map offsets also against their child's length, and
 * views against their data buffers' sizes. Offsets apply as the columnar
 * format says: an array's `offset` counts entries of its own buffers
 * (bits of a bitmap); a struct's entry i is entry offset + i of each child
 * (whose own offset applies in turn); a list's offsets index its child's
 * entries; a dictionary's entries are its own array's.
 *
 * Text: the data of a string array (offsets form) is checked as UTF-8 in
 * one pass over the bytes the batch uses (a test for ASCII, in the common
 * case); with every value starting on a character boundary that checks
 * every value, and the writer skips its own checks of those byte strings.
 * When that pass fails (a null's junk, or a bad value) the writer's
 * per-value check finds the row.
 *
 * Scratch lives in the arrow_state the writer keeps, one set of buffers
 * per schema node, reused from batch to batch.
 */
#include "arrow.h"

#include <stdarg.h>
#include <stdio.h>

#include "shred.h"
#include "timeconv.h"
#include "utf8.h"

/* ---- the state the writer keeps -------------------------------------------- */

/* Values of one array as a column takes them. */
typedef struct vbufs {
    buf valid;   /* the validity bitmap from bit 0 */
    buf vals;    /* values in the column's append type */
    buf bytes;   /* bytes those values point at (decimals), or gathered raw values */
    buf wide;    /* 64-bit copies of narrower time values */
} vbufs;

/* The scratch of one schema node. */
typedef struct nscratch {
    atype t;        /* the Arrow type matched with the node in the current call */
    bool checked;   /* a leaf's byte strings need no more checks (current call) */
    vbufs main;     /* the node's own array */
    vbufs dict;     /* its dictionary's values */
    buf mask;       /* a dictionary-encoded leaf's validity, when the dictionary has nulls */
    buf offs;       /* a list's or map's offsets, rebased to 0 */
    buf kids;       /* a group's child arrays (inlay_array) */
} nscratch;

struct arrow_state {
    inlay_allocator alloc;
    int nnodes, nleaves, nfields;
    int *leaf_of;                  /* the leaf column of each node; -1 for a group */
    nscratch *nodes;
    shred *shreds;                 /* one per top-level field */
    inlay_column_batch *batches;   /* one per leaf column */
    bool *checked;
};

/* Sizes of the state's arrays, never 0 (so a block is freed with the size
 * it was taken with). */
static size_t sz(size_t n) { return n ? n : 1; }

static void vbufs_free(vbufs *v, const inlay_allocator *a)
{
    inl_buf_free(&v->valid, a);
    inl_buf_free(&v->vals, a);
    inl_buf_free(&v->bytes, a);
    inl_buf_free(&v->wide, a);
}

void inl_arrow_free(arrow_state *st)
{
    if (!st) return;
    const inlay_allocator *a = &st->alloc;
    if (st->nodes)
        for (int i = 0; i < st->nnodes; i++) {
            nscratch *n = &st->nodes[i];
            vbufs_free(&n->main, a);
            vbufs_free(&n->dict, a);
            inl_buf_free(&n->mask, a);
            inl_buf_free(&n->offs, a);
            inl_buf_free(&n->kids, a);
        }
    if (st->shreds)
        for (int i = 0; i < st->nfields; i++) inl_shred_free(&st->shreds[i]);
    inl_mem_free(a, st->leaf_of, sz((size_t)st->nnodes * sizeof *st->leaf_of));
    inl_mem_free(a, st->nodes, sz((size_t)st->nnodes * sizeof *st->nodes));
    inl_mem_free(a, st->shreds, sz((size_t)st->nfields * sizeof *st->shreds));
    inl_mem_free(a, st->batches, sz((size_t)st->nleaves * sizeof *st->batches));
    inl_mem_free(a, st->checked, sz((size_t)st->nleaves * sizeof *st->checked));
    inlay_allocator copy = *a;
    inl_mem_free(&copy, st, sizeof *st);
}

static void *zalloc(const inlay_allocator *a, size_t n)
{
    void *p = inl_mem_alloc(a, sz(n));
    if (p) memset(p, 0, sz(n));
    return p;
}

static int state_new(arrow_state **out, const inlay_allocator *a, const inlay_schema *s)
{
    arrow_state *st = zalloc(a, sizeof *st);
    if (!st) return INLAY_ERR_NOMEM;
    st->alloc = *a;
    int nfields = 0;
    for (int n = s->nodes[0].first_child; n >= 0; n = s->nodes[n].next_sibling) nfields++;
    /* sizes first, so a partial state frees what it has */
    st->leaf_of = zalloc(a, (size_t)s->count * sizeof *st->leaf_of);
    st->nodes = zalloc(a, (size_t)s->count * sizeof *st->nodes);
    st->shreds = zalloc(a, (size_t)nfields * sizeof *st->shreds);
    st->batches = zalloc(a, (size_t)s->num_leaves * sizeof *st->batches);
    st->checked = zalloc(a, (size_t)s->num_leaves * sizeof *st->checked);
    st->nnodes = s->count;
    st->nfields = nfields;
    st->nleaves = s->num_leaves;
    if (!st->leaf_of || !st->nodes || !st->shreds || !st->batches || !st->checked) {
        inl_arrow_free(st);   /* the shred states are zeros: nothing to free in them */
        return INLAY_ERR_NOMEM;
    }
    for (int i = 0; i < s->count; i++) st->leaf_of[i] = -1;
    for (int l = 0; l < s->num_leaves; l++) st->leaf_of[s->leaves[l].node] = l;
    for (int i = 0; i < nfields; i++) inl_shred_init(&st->shreds[i], &st->alloc);
    *out = st;
    return 0;
}

/* ---- reading a batch: context and errors ------------------------------------ */

typedef struct stage {
    arrow_state *st;
    const inlay_schema *s;
    const column *cols;  /* the writer's columns, for their rows so far; NULL: rows_before */
    uint64_t rows_before;
    inl_err *err;
    int col;           /* the leaf column being read */
    bool flat;         /* ... a top-level one, whose entries are rows */
    bool in_dict;      /* converting its dictionary's values */
    int64_t base;      /* the Arrow index of entry 0 of what is being converted */
    char path[256];    /* the field being read, by its Arrow names */
    size_t plen;
} stage;

/* Something wrong with the field being read: "field 'a.b': reason". */
INL_PRINTF(3, 4) static int bad(stage *g, int status, const char *fmt, ...)
{
    char reason[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    if (status == INLAY_ERR_NOMEM) return inl_err_set(g->err, status, "out of memory");
    return inl_err_set(g->err, status, "field '%s': %s", g->path, reason);
}

/* A value at fault, entry i of what is being converted: for a flat column
 * "column 'x' row N: reason" as the other appends say it (N counting the
 * column's rows), else "field 'a.b' entry N: reason" (N the Arrow index). */
INL_PRINTF(4, 5) static int value_error(stage *g, int status, int64_t i, const char *fmt, ...)
{
    char reason[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    if (g->in_dict)
        return inl_err_set(g->err, status, "field '%s' dictionary entry %lld: %s", g->path, (long long)i, reason);
    if (g->flat) {
        const uint64_t before = g->cols ? g->cols[g->col].rows : g->rows_before;
        return inl_err_at(g->err, status, "column", g->s->leaves[g->col].path, g->col, before + (uint64_t)i, "%s",
                          reason);
    }
    return inl_err_set(g->err, status, "field '%s' entry %lld: %s", g->path, (long long)(g->base + i), reason);
}

static int nomem(stage *g) { return inl_err_set(g->err, INLAY_ERR_NOMEM, "out of memory"); }

/* Room for n bytes at the start of b (its old contents are not kept). */
static void *room(stage *g, buf *b, size_t n)
{
    b->len = 0;
    if (inl_buf_reserve(b, &g->st->alloc, n ? n : 1)) return NULL;
    return b->data;
}

static inline bool bit(const uint8_t *bits, size_t i) { return bits[i >> 3] >> (i & 7) & 1; }
static inline bool is_valid(const uint8_t *validity, size_t i) { return !validity || bit(validity, i); }

static inline int32_t ld32(const void *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline int64_t ld64(const void *p)
{
    int64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* ---- reading a batch: structure ---------------------------------------------- */

static int64_t buffers_for(const atype *t)
{
    if (t->index_bits) return 2;
    switch (t->kind) {
    case A_STRUCT: return 1;
    case A_BYTES: return 3;   /* a view array has at least 3 */
    default: return 2;
    }
}

/* The parts of array a that any use of entries [start, start + n) of it
 * needs, for a field of type t (children: want_children of them). With
 * `values`, a is a dictionary's values: t's encoding does not apply. */
static int check_array(stage *g, const atype *t, const char *fmt, const struct ArrowArray *a, int64_t start,
                       int64_t n, int64_t want_children, bool values)
{
    const char *what = values ? "the dictionary" : "the array";
    if (!a) return bad(g, INLAY_ERR_ARGUMENT, "no array");
    if (a->length < 0 || a->offset < 0 || a->null_count < -1 || a->offset > INT64_MAX - a->length)
        return bad(g, INLAY_ERR_ARGUMENT, "%s has length %lld, offset %lld, null_count %lld", what,
                   (long long)a->length, (long long)a->offset, (long long)a->null_count);
    if (start > a->length || n > a->length - start)
        return bad(g, INLAY_ERR_ARGUMENT, "%s has %lld entries, %lld are needed", what, (long long)a->length,
                   (long long)(start + n));
    atype plain = *t;
    if (values) plain.index_bits = 0;
    const int64_t want = buffers_for(&plain);
    const bool views = !plain.index_bits && plain.kind == A_BYTES && plain.layout == BYTES_VIEW;
    if (views ? a->n_buffers < want : a->n_buffers != want)
        return bad(g, INLAY_ERR_ARGUMENT, "%s has %lld buffers, format \"%s\" has %s%lld", what,
                   (long long)a->n_buffers, fmt, views ? "at least " : "", (long long)want);
    if (!a->buffers) return bad(g, INLAY_ERR_ARGUMENT, "%s has no buffer pointers", what);
    if (plain.index_bits) want_children = 0;
    if (a->n_children != want_children || (want_children && !a->children))
        return bad(g, INLAY_ERR_ARGUMENT, "%s has %lld children, format \"%s\" has %lld", what,
                   (long long)a->n_children, fmt, (long long)want_children);
    for (int64_t k = 0; k < want_children; k++)
        if (!a->children[k]) return bad(g, INLAY_ERR_ARGUMENT, "child array %lld is NULL", (long long)k);
    if (!plain.index_bits != !a->dictionary)
        return bad(g, INLAY_ERR_ARGUMENT, plain.index_bits ? "a dictionary-encoded field without its dictionary"
                                                            : "a dictionary where the format has none");
    return 0;
}

/* Entries [start, start + n) of a's validity, from bit 0: the Arrow bitmap
 * itself when they start on a byte, else a shifted copy in b. NULL when
 * every entry is valid (null_count 0, or no bitmap). */
static int take_validity(stage *g, buf *b, const struct ArrowArray *a, int64_t start, int64_t n,
                         const uint8_t **out)
{
    *out = NULL;
    if (n == 0 || a->null_count == 0) return 0;
    const uint8_t *bits = a->buffers[0];
    if (!bits) {
        if (a->null_count > 0)
            return bad(g, INLAY_ERR_ARGUMENT, "null_count %lld without a validity buffer", (long long)a->null_count);
        return 0;
    }
    const uint64_t b0 = (uint64_t)(a->offset + start);
    const uint8_t *src = bits + b0 / 8;
    const unsigned sh = (unsigned)(b0 % 8);
    if (!sh) {
        *out = src;
        return 0;
    }
    const size_t nbytes = ((size_t)n + 7) / 8, last = (sh + (size_t)n - 1) / 8;
    uint8_t *d = room(g, b, nbytes);
    if (!d) return nomem(g);
    for (size_t j = 0; j < nbytes; j++) {
        unsigned v = (unsigned)src[j] >> sh;
        if (j + 1 <= last) v |= (unsigned)src[j + 1] << (8 - sh);
        d[j] = (uint8_t)v;
    }
    *out = d;
    return 0;
}

/* ---- reading a batch: values ------------------------------------------------ */

/* The data buffer (buffers[1]) at entry `at`, entries of `size` bytes. */
static int data_at(stage *g, const struct ArrowArray *a, int64_t at, size_t size, const uint8_t **out)
{
    const uint8_t *p = a->buffers[1];
    if (!p) return bad(g, INLAY_ERR_ARGUMENT, "no data buffer");
    *out = p + (size_t)at * size;
    return 0;
}

/* n values of `size` bytes as they are, when aligned for their type; else
 * copied into b. */
static int as_is(stage *g, buf *b, const uint8_t *src, size_t n, size_t size, const void **values)
{
    if ((uintptr_t)src % size == 0) {
        *values = src;
        return 0;
    }
    void *d = room(g, b, n * size);
    if (!d) return nomem(g);
    memcpy(d, src, n * size);
    *values = d;
    return 0;
}

/* Bit j of b in byte j: eight booleans from one bitmap byte. */
static inline uint64_t spread8(uint64_t x)
{
    x = (x | x << 28) & 0x0000000F0000000Full;
    x = (x | x << 14) & 0x0003000300030003ull;
    return (x | x << 7) & 0x0101010101010101ull;
}

static int convert_bool(stage *g, vbufs *vb, const uint8_t *bits, uint64_t b0, size_t n, const void **values)
{
    uint8_t *d = room(g, &vb->vals, n);
    if (!d) return nomem(g);
    size_t i = 0;
    if (b0 % 8 == 0) {
        const uint8_t *src = bits + b0 / 8;
        for (; i + 8 <= n; i += 8) {
            const uint64_t x = spread8(src[i / 8]);
            memcpy(d + i, &x, 8);
        }
    }
    for (; i < n; i++) d[i] = bit(bits, b0 + i);
    *values = d;
    return 0;
}

/* Fixed-size values (w:N, halves) as inlay_bytes pointing at them. */
static int fixed_views(stage *g, vbufs *vb, const uint8_t *src, size_t width, size_t n, const void **values)
{
    inlay_bytes *v = room(g, &vb->vals, n * sizeof *v);
    if (!v) return nomem(g);
    for (size_t i = 0; i < n; i++) {
        v[i].data = src + i * width;
        v[i].len = width;
    }
    *values = v;
    return 0;
}

/* No byte of p[0..n) has its high bit set: four words at a time. */
static bool all_ascii(const uint8_t *p, size_t n)
{
    uint64_t a = 0, b = 0, c = 0, d = 0, x;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        uint64_t w[4];
        memcpy(w, p + i, 32);
        a |= w[0], b |= w[1], c |= w[2], d |= w[3];
    }
    for (; i + 8 <= n; i += 8) {
        memcpy(&x, p + i, 8);
        a |= x;
    }
    for (; i < n; i++) b |= p[i];
    return !((a | b | c | d) & 0x8080808080808080ull);
}

/* Strings and binaries in the offsets forms (u z: int32, U Z: int64), as
 * inlay_bytes pointing into the data buffer. The offsets must not go back;
 * the text of a UTF-8 column is checked whole (see the top of the file). */
static int convert_offsets(stage *g, vbufs *vb, const atype *t, const inlay_type *ct, const struct ArrowArray *a,
                           int64_t start, size_t n, const void **values, bool *checked)
{
    const uint8_t *ob = a->buffers[1], *data = a->buffers[2];
    if (!ob) return bad(g, INLAY_ERR_ARGUMENT, "no offsets buffer");
    const bool wide = t->layout == BYTES_OFFSETS64;
    const size_t ow = wide ? 8 : 4;
    ob += (size_t)(a->offset + start) * ow;
    inlay_bytes *v = room(g, &vb->vals, n * sizeof *v);
    if (!v) return nomem(g);
    const int64_t first = wide ? ld64(ob) : ld32(ob);
    const int64_t end = wide ? ld64(ob + n * 8) : ld32(ob + n * 4);
    if (first < 0) return value_error(g, INLAY_ERR_ARGUMENT, 0, "negative offset %lld", (long long)first);
    if (end > first && !data) return bad(g, INLAY_ERR_ARGUMENT, "no data buffer");
    /* the views, and whether any offset goes back; only then are the bytes read */
    int64_t back = 0;
    if (!wide) {
        int32_t cur = (int32_t)first;
        for (size_t i = 0; i < n; i++) {
            const int32_t next = ld32(ob + (i + 1) * 4);
            const int64_t len = (int64_t)next - cur;
            back |= len;
            v[i].data = data ? data + cur : NULL;
            v[i].len = (size_t)len;
            cur = next;
        }
    } else {
        int64_t cur = first;
        for (size_t i = 0; i < n; i++) {
            const int64_t next = ld64(ob + (i + 1) * 8);
            const int64_t len = next - cur;
            back |= len;
            v[i].data = data ? data + cur : NULL;
            v[i].len = (size_t)len;
            cur = next;
        }
    }
    if (back < 0) {
        for (size_t i = 0; i < n; i++) {
            const int64_t o0 = wide ? ld64(ob + i * 8) : ld32(ob + i * 4);
            const int64_t o1 = wide ? ld64(ob + i * 8 + 8) : ld32(ob + i * 4 + 4);
            if (o1 < o0)
                return value_error(g, INLAY_ERR_ARGUMENT, (int64_t)i, "offsets go back (%lld, then %lld)",
                                   (long long)o0, (long long)o1);
        }
    }
    /* checked: data present, no value past INT32_MAX bytes (back ORs the
     * lengths, all >= 0 now), and for text, UTF-8 */
    *checked = back <= INT32_MAX;
    if (*checked && inl_type_is_utf8(ct) && end > first) {
        const uint8_t *text = data + first;
        const size_t len = (size_t)(end - first);
        if (!all_ascii(text, len)) {   /* ASCII: every byte starts a character */
            unsigned mid = 0;           /* no value may start inside a character */
            for (size_t i = 0; i < n; i++)
                if (v[i].len) mid |= (*(const uint8_t *)v[i].data & 0xC0u) == 0x80u;
            *checked = !mid && inl_utf8_valid(text, len);
        }
    }
    *values = v;
    return 0;
}

/* Strings and binaries as views (vu vz): 16 bytes each, the length, then
 * the value itself up to 12 bytes, else a prefix, the index of a data
 * buffer and the offset in it. Each view is checked against the size of
 * its buffer (the last buffer holds those sizes). Null entries are not
 * read. */
static int convert_views(stage *g, vbufs *vb, const struct ArrowArray *a, int64_t start, size_t n,
                         const uint8_t *validity, const void **values)
{
    const uint8_t *views = a->buffers[1];
    if (!views) return bad(g, INLAY_ERR_ARGUMENT, "no views buffer");
    views += (size_t)(a->offset + start) * 16;
    const int64_t nbuf = a->n_buffers - 3;
    const uint8_t *sizes = a->buffers[a->n_buffers - 1];
    if (nbuf > 0 && !sizes) return bad(g, INLAY_ERR_ARGUMENT, "no buffer of the data buffers' sizes");
    inlay_bytes *v = room(g, &vb->vals, n * sizeof *v);
    if (!v) return nomem(g);
    for (size_t i = 0; i < n; i++) {
        const uint8_t *w = views + i * 16;
        const int32_t len = ld32(w);
        v[i].data = NULL;
        v[i].len = 0;
        if (!is_valid(validity, i)) continue;
        if (len < 0) return value_error(g, INLAY_ERR_ARGUMENT, (int64_t)i, "view of length %d", (int)len);
        if (len <= 12) {
            v[i].data = w + 4;
            v[i].len = (size_t)len;
            continue;
        }
        const int32_t k = ld32(w + 8), off = ld32(w + 12);
        if (k < 0 || k >= nbuf)
            return value_error(g, INLAY_ERR_ARGUMENT, (int64_t)i, "view into data buffer %d of %lld", (int)k,
                               (long long)nbuf);
        const int64_t size = ld64(sizes + (size_t)k * 8);
        const uint8_t *data = a->buffers[2 + k];
        if (off < 0 || (int64_t)off + len > size || !data)
            return value_error(g, INLAY_ERR_ARGUMENT, (int64_t)i,
                               "view of bytes %d..%lld of data buffer %d, which has %lld", (int)off,
                               (long long)off + len, (int)k, (long long)size);
        v[i].data = data + off;
        v[i].len = (size_t)len;
    }
    *values = v;
    return 0;
}

/* 10^p as eight little-endian 32-bit limbs (p <= 76 < 77 digits < 2^256). */
static void pow10_limbs(int32_t p, uint32_t out[8])
{
    memset(out, 0, 8 * sizeof *out);
    out[0] = 1;
    for (int32_t k = 0; k < p; k++) {
        uint64_t carry = 0;
        for (int j = 0; j < 8; j++) {
            const uint64_t x = (uint64_t)out[j] * 10 + carry;
            out[j] = (uint32_t)x;
            carry = x >> 32;
        }
    }
}

/* The sw-byte little-endian two's complement at src, sign-extended to 32
 * bytes. Returns the sign byte (0 or 0xFF). */
static uint8_t dec_extend(const uint8_t *src, size_t sw, uint8_t ext[32])
{
    const uint8_t sign = src[sw - 1] & 0x80 ? 0xFF : 0;
    memcpy(ext, src, sw);
    memset(ext + sw, sign, 32 - sw);
    return sign;
}

/* The value in ext fits w bytes of two's complement. */
static bool dec_fits(const uint8_t ext[32], uint8_t sign, size_t w)
{
    for (size_t k = w; k < 32; k++)
        if (ext[k] != sign) return false;
    return (ext[w - 1] & 0x80) == (sign & 0x80);
}

/* |value| < 10^p (pow: 10^p in limbs). */
static bool dec_within(const uint8_t ext[32], uint8_t sign, const uint32_t pow[8])
{
    uint32_t m[8];
    memcpy(m, ext, 32);
    if (sign) {   /* negate: invert and add one */
        uint64_t carry = 1;
        for (int j = 0; j < 8; j++) {
            const uint64_t x = (uint64_t)(uint32_t)~m[j] + carry;
            m[j] = (uint32_t)x;
            carry = x >> 32;
        }
    }
    for (int j = 7; j >= 0; j--)
        if (m[j] != pow[j]) return m[j] < pow[j];
    return false;
}

/* Decimals (sw-byte little-endian two's complement) into the column's
 * form: INT32 or INT64 (the value must fit; the writer checks the
 * precision), else big-endian bytes of the column's width (FIXED_LEN_BYTE_ARRAY)
 * or of the Arrow width (BYTE_ARRAY), checked for width and precision. */
static int convert_decimal(stage *g, vbufs *vb, const atype *t, const inlay_type *ct, const uint8_t *src,
                           const uint8_t *validity, size_t n, const void **values)
{
    const size_t sw = (size_t)t->bits / 8;
    uint8_t ext[32];
    if (ct->physical == INLAY_INT32 || ct->physical == INLAY_INT64) {
        const size_t dw = ct->physical == INLAY_INT32 ? 4 : 8;
        if (sw == dw) return as_is(g, &vb->vals, src, n, dw, values);
        uint8_t *d = room(g, &vb->vals, n * dw);
        if (!d) return nomem(g);
        for (size_t i = 0; i < n; i++) {
            if (!is_valid(validity, i)) {
                memset(d + i * dw, 0, dw);
                continue;
            }
            const uint8_t sign = dec_extend(src + i * sw, sw, ext);
            if (!dec_fits(ext, sign, dw))
                return value_error(g, INLAY_ERR_VALUE, (int64_t)i, "unscaled decimal does not fit %s",
                                   dw == 4 ? "INT32" : "INT64");
            memcpy(d + i * dw, ext, dw);
        }
        *values = d;
        return 0;
    }
    const size_t w = ct->physical == INLAY_FIXED_LEN_BYTE_ARRAY ? (size_t)ct->type_length : sw;
    uint32_t pow[8];
    pow10_limbs(ct->precision, pow);
    uint8_t *bytes = room(g, &vb->bytes, n * w);
    if (!bytes) return nomem(g);
    inlay_bytes *v = room(g, &vb->vals, n * sizeof *v);
    if (!v) return nomem(g);
    for (size_t i = 0; i < n; i++) {
        uint8_t *d = bytes + i * w;
        v[i].data = d;
        v[i].len = w;
        if (!is_valid(validity, i)) continue;
        const uint8_t sign = dec_extend(src + i * sw, sw, ext);
        if (!dec_within(ext, sign, pow))
            return value_error(g, INLAY_ERR_VALUE, (int64_t)i, "unscaled decimal has more than %d digits",
                               (int)ct->precision);
        if (w < 32 && !dec_fits(ext, sign, w))
            return value_error(g, INLAY_ERR_VALUE, (int64_t)i, "unscaled decimal does not fit %zu bytes", w);
        for (size_t j = 0; j < w; j++) {
            const size_t k = w - 1 - j;
            d[j] = k < 32 ? ext[k] : sign;
        }
    }
    *values = v;
    return 0;
}

/* Dates, times and timestamps: as they are in the column's unit, else
 * converted (coarser to finer multiplies, finer to coarser floors; a value
 * that does not fit after it is an error, nulls aside). */
static int convert_time(stage *g, vbufs *vb, const atype *t, const inlay_type *ct, const uint8_t *src,
                        const uint8_t *validity, size_t n, const void **values)
{
    const inlay_unit to = ct->logical == INLAY_LOGICAL_DATE ? INLAY_UNIT_DAYS
                                                            : (inlay_unit)(INLAY_UNIT_MILLIS + (int)ct->unit);
    const size_t sw = (size_t)t->bits / 8;
    const bool narrow = ct->physical == INLAY_INT32;
    if (t->unit == to && sw == (narrow ? 4u : 8u)) return as_is(g, &vb->vals, src, n, sw, values);
    const int64_t *wide;
    if (sw == 8 && (uintptr_t)src % 8 == 0) {
        wide = (const int64_t *)(const void *)src;
    } else {
        int64_t *w = room(g, &vb->wide, n * 8);
        if (!w) return nomem(g);
        for (size_t i = 0; i < n; i++) w[i] = sw == 8 ? ld64(src + i * 8) : ld32(src + i * 4);
        wide = w;
    }
    void *d = room(g, &vb->vals, n * (narrow ? 4 : 8));
    if (!d) return nomem(g);
    const size_t badi = inl_timeconv_run(d, narrow, wide, n, t->unit, to, validity);
    if (badi < n) {
        static const char *const units[] = { "days", "s", "ms", "us", "ns" };
        char name[48];
        inl_type_name(ct, name, sizeof name);
        return value_error(g, INLAY_ERR_VALUE, (int64_t)badi, "%lld %s does not fit %s", (long long)wide[badi],
                           units[t->unit], name);
    }
    *values = d;
    return 0;
}

/* n fixed-width values at src (entry 0 of what is converted) in the
 * column's append type. */
static int convert_fixed(stage *g, vbufs *vb, const atype *t, const inlay_type *ct, const uint8_t *src,
                         const uint8_t *validity, size_t n, const void **values)
{
    switch (t->kind) {
    case A_INT: {
        if (t->bits >= 32) return as_is(g, &vb->vals, src, n, (size_t)t->bits / 8, values);
        int32_t *d = room(g, &vb->vals, n * 4);
        if (!d) return nomem(g);
        if (t->bits == 8) {
            if (t->is_signed) for (size_t i = 0; i < n; i++) d[i] = (int8_t)src[i];
            else for (size_t i = 0; i < n; i++) d[i] = src[i];
        } else {
            for (size_t i = 0; i < n; i++) {
                uint16_t x;
                memcpy(&x, src + i * 2, 2);
                d[i] = t->is_signed ? (int32_t)(int16_t)x : (int32_t)x;
            }
        }
        *values = d;
        return 0;
    }
    case A_FLOAT: return as_is(g, &vb->vals, src, n, 4, values);
    case A_DOUBLE: return as_is(g, &vb->vals, src, n, 8, values);
    case A_HALF: return fixed_views(g, vb, src, 2, n, values);
    case A_FIXED: return fixed_views(g, vb, src, (size_t)t->width, n, values);
    case A_DECIMAL: return convert_decimal(g, vb, t, ct, src, validity, n, values);
    default: return convert_time(g, vb, t, ct, src, validity, n, values);
    }
}

/* Bytes per value in an Arrow data buffer of a fixed-width type. */
static size_t fixed_size(const atype *t)
{
    switch (t->kind) {
    case A_HALF: return 2;
    case A_FLOAT: return 4;
    case A_DOUBLE: return 8;
    case A_FIXED: return (size_t)t->width;
    default: return (size_t)t->bits / 8;   /* A_INT, A_DECIMAL, A_DATE, A_TIME, A_TIMESTAMP */
    }
}

/* Entries [start, start + n) of a plain (not dictionary-encoded) array a
 * of type t, with their validity from bit 0. */
static int convert_plain(stage *g, vbufs *vb, const atype *t, const inlay_type *ct, const struct ArrowArray *a,
                         int64_t start, size_t n, const uint8_t *validity, const void **values, bool *checked)
{
    *checked = false;
    *values = NULL;
    if (n == 0) return 0;
    if (t->kind == A_BOOL) {
        if (!a->buffers[1]) return bad(g, INLAY_ERR_ARGUMENT, "no data buffer");
        return convert_bool(g, vb, a->buffers[1], (uint64_t)(a->offset + start), n, values);
    }
    if (t->kind == A_BYTES)
        return t->layout == BYTES_VIEW ? convert_views(g, vb, a, start, n, validity, values)
                                       : convert_offsets(g, vb, t, ct, a, start, n, values, checked);
    const uint8_t *src = NULL;
    INL_FORWARD(data_at(g, a, a->offset + start, fixed_size(t), &src));
    /* byte strings made here have the column's width, or a decimal's */
    *checked = t->kind == A_HALF || t->kind == A_FIXED || (t->kind == A_DECIMAL && inl_type_is_bytes(ct));
    return convert_fixed(g, vb, t, ct, src, validity, n, values);
}

/* One slot of `size` bytes from src[k] to dst[i]. */
static inline void copy_slot(uint8_t *dst, size_t i, const uint8_t *src, size_t k, size_t size)
{
    switch (size) {
    case 1: dst[i] = src[k]; break;
    case 4: memcpy(dst + i * 4, src + k * 4, 4); break;
    case 8: memcpy(dst + i * 8, src + k * 8, 8); break;
    case 16: memcpy(dst + i * 16, src + k * 16, 16); break;
    default: memcpy(dst + i * size, src + k * size, size); break;
    }
}

/* Index i of a dictionary-encoded array's indices. */
static inline int64_t index_at(const uint8_t *p, size_t i, int bits, bool is_signed)
{
    switch (bits) {
    case 8: return is_signed ? (int8_t)p[i] : p[i];
    case 16: {
        uint16_t x;
        memcpy(&x, p + i * 2, 2);
        return is_signed ? (int16_t)x : x;
    }
    case 32: {
        const int32_t x = ld32(p + i * 4);
        return is_signed ? x : (int64_t)(uint32_t)x;
    }
    default: return ld64(p + i * 8);   /* an unsigned index past INT64_MAX reads negative: out of range */
    }
}

/* out[i] = from[idx[i]] for n indices of type T, values of `size` bytes;
 * returns n, or the first index past the nd entries (a negative one reads
 * as a large unsigned one). */
#define GATHER_LOOP(T, SIZE)                                                      \
    for (size_t i = 0; i < n; i++) {                                              \
        T k_;                                                                     \
        memcpy(&k_, idx + i * sizeof(T), sizeof(T));                              \
        const uint64_t k = (uint64_t)(int64_t)k_;                                 \
        if (INLAY_UNLIKELY(k >= nd)) return i;                                    \
        memcpy(out + i * (SIZE), from + k * (SIZE), (SIZE));                      \
    }                                                                             \
    return n

#define GATHER_SIZES(T)                                                           \
    switch (size) {                                                               \
    case 1: GATHER_LOOP(T, 1);                                                    \
    case 4: GATHER_LOOP(T, 4);                                                    \
    case 8: GATHER_LOOP(T, 8);                                                    \
    case 16: GATHER_LOOP(T, 16);                                                  \
    default: GATHER_LOOP(T, size);                                                \
    }

static size_t gather(uint8_t *out, const uint8_t *from, size_t size, const uint8_t *idx, int bits, bool is_signed,
                     size_t n, uint64_t nd)
{
    switch (bits * 2 + is_signed) {
    case 16: GATHER_SIZES(uint8_t);
    case 17: GATHER_SIZES(int8_t);
    case 32: GATHER_SIZES(uint16_t);
    case 33: GATHER_SIZES(int16_t);
    case 64: GATHER_SIZES(uint32_t);
    case 65: GATHER_SIZES(int32_t);
    default: GATHER_SIZES(int64_t);   /* an unsigned index past INT64_MAX is out of range anyway */
    }
}

#undef GATHER_SIZES
#undef GATHER_LOOP

/* Entries [start, start + n) of a dictionary-encoded array: each valid
 * index is checked against the dictionary and looked up. Values whose
 * conversion cannot fail (booleans, byte strings) are converted once per
 * dictionary entry and gathered; the others are gathered in Arrow's form
 * and converted per row, so a value that does not fit is reported at its
 * row and a dictionary entry no row uses is never an error. An entry that
 * is null in the dictionary makes its rows null. */
static int convert_encoded(stage *g, nscratch *ns, const atype *t, const inlay_type *ct, const char *fmt,
                           const struct ArrowArray *a, int64_t start, size_t n, const uint8_t **validity,
                           const void **values, bool *checked)
{
    const struct ArrowArray *d = a->dictionary;
    INL_FORWARD(check_array(g, t, fmt, d, 0, d ? d->length : 0, 0, true));
    const uint8_t *idx = NULL;
    INL_FORWARD(data_at(g, a, a->offset + start, (size_t)t->index_bits / 8, &idx));
    const uint8_t *dvalid;
    INL_FORWARD(take_validity(g, &ns->dict.valid, d, 0, d->length, &dvalid));
    const uint8_t *valid = *validity;
    uint8_t *mask = NULL;
    if (dvalid) {   /* rows pointing at a null entry become null */
        mask = room(g, &ns->mask, (n + 7) / 8);
        if (!mask) return nomem(g);
        if (valid) memcpy(mask, valid, (n + 7) / 8);
        else memset(mask, 0xFF, (n + 7) / 8);
    }
    const int64_t nd = d->length;
    const bool early = t->kind == A_BOOL || t->kind == A_BYTES || t->kind == A_HALF || t->kind == A_FIXED;
    const size_t vsize = early ? inl_type_value_size(ct) : fixed_size(t);
    const uint8_t *from = NULL;
    if (early) {
        const void *dv;
        g->in_dict = true;
        const int st = convert_plain(g, &ns->dict, t, ct, d, 0, (size_t)nd, dvalid, &dv, checked);
        g->in_dict = false;
        if (st) return st;
        from = dv;
    } else if (nd > 0) {
        INL_FORWARD(data_at(g, d, d->offset, vsize, &from));
    }
    uint8_t *out = room(g, early ? &ns->main.vals : &ns->dict.bytes, n * vsize);
    if (!out) return nomem(g);
    if (!valid && !dvalid) {   /* no nulls anywhere: one tight loop */
        const size_t bad = gather(out, from, vsize, idx, t->index_bits, t->index_signed, n, (uint64_t)nd);
        if (bad < n)
            return value_error(g, INLAY_ERR_ARGUMENT, (int64_t)bad,
                               "dictionary index %lld, the dictionary has %lld entries",
                               (long long)index_at(idx, bad, t->index_bits, t->index_signed), (long long)nd);
    } else for (size_t i = 0; i < n; i++) {
        if (!is_valid(valid, i)) {
            memset(out + i * vsize, 0, vsize);
            continue;
        }
        const int64_t k = index_at(idx, i, t->index_bits, t->index_signed);
        if (k < 0 || k >= nd)
            return value_error(g, INLAY_ERR_ARGUMENT, (int64_t)i,
                               "dictionary index %lld, the dictionary has %lld entries", (long long)k, (long long)nd);
        if (dvalid && !bit(dvalid, (size_t)k)) {
            mask[i >> 3] &= (uint8_t)~(1u << (i & 7));
            memset(out + i * vsize, 0, vsize);
            continue;
        }
        copy_slot(out, i, from, (size_t)k, vsize);
    }
    if (mask) *validity = mask;
    if (early) {
        *values = out;
        return 0;
    }
    return convert_fixed(g, &ns->main, t, ct, out, *validity, n, values);
}

/* Entries [start, start + n) of a leaf's array a as column `col` takes
 * them: values (n slots, nulls included) and validity from bit 0. */
static int leaf_values(stage *g, int node, const char *fmt, const struct ArrowArray *a, int64_t start, int64_t n,
                       const void **values, const uint8_t **validity)
{
    nscratch *ns = &g->st->nodes[node];
    const atype *t = &ns->t;
    const inlay_type *ct = &g->s->nodes[node].type;
    g->col = g->st->leaf_of[node];
    g->base = start;
    ns->checked = false;
    INL_FORWARD(check_array(g, t, fmt, a, start, n, 0, false));
    INL_FORWARD(take_validity(g, &ns->main.valid, a, start, n, validity));
    if (t->index_bits)
        return convert_encoded(g, ns, t, ct, fmt, a, start, (size_t)n, validity, values, &ns->checked);
    return convert_plain(g, &ns->main, t, ct, a, start, (size_t)n, *validity, values, &ns->checked);
}

/* ---- reading a batch: matching the schemas ---------------------------------- */

static size_t enter(stage *g, const char *name) { return inl_arrow_path_push(g->path, &g->plen, sizeof g->path, name); }
static void leave(stage *g, size_t old) { inl_arrow_path_pop(g->path, &g->plen, old); }

static int mismatch(stage *g, const struct ArrowSchema *sch, const atype *t, int node)
{
    const schema_node *sn = &g->s->nodes[node];
    char have[64], want[64];
    inl_arrow_type_name(t, have, sizeof have);
    if (!sn->is_group) {
        const size_t k = sn->rep == INLAY_REPEATED ? (size_t)snprintf(want, sizeof want, "repeated ") : 0;
        inl_type_name(&sn->type, want + k, sizeof want - k);
    } else {
        snprintf(want, sizeof want, "%s",
                 sn->annotation == GROUP_LIST ? "list" : sn->annotation == GROUP_MAP ? "map" : "struct");
    }
    return bad(g, INLAY_ERR_SCHEMA, "Arrow format \"%s\" (%s) does not map onto the writer's %s", sch->format, have,
               want);
}

static int match(stage *g, int node, const struct ArrowSchema *sch, int depth);

/* Child k of sch against node `node`, entered under its Arrow name. */
static int match_child(stage *g, int node, const struct ArrowSchema *sch, int depth)
{
    const size_t old = enter(g, sch->name ? sch->name : g->s->nodes[node].name);
    INL_FORWARD(match(g, node, sch, depth + 1));
    leave(g, old);
    return 0;
}

static int match_children(stage *g, const struct ArrowSchema *sch, int64_t want)
{
    if (sch->n_children != want || (want && !sch->children))
        return bad(g, INLAY_ERR_SCHEMA, "Arrow format \"%s\" with %lld children where the writer has %lld", sch->format,
                   (long long)sch->n_children, (long long)want);
    for (int64_t k = 0; k < want; k++)
        if (!sch->children[k]) return bad(g, INLAY_ERR_ARGUMENT, "child %lld of the schema is NULL", (long long)k);
    return 0;
}

/* The Arrow field sch against the writer's node: the formats parsed into
 * the nodes' scratch, the shapes and types compared. */
static int match(stage *g, int node, const struct ArrowSchema *sch, int depth)
{
    const schema_node *sn = &g->s->nodes[node];
    if (depth > ARROW_MAX_DEPTH) return bad(g, INLAY_ERR_SCHEMA, "nested deeper than %d", ARROW_MAX_DEPTH);
    if (!sch->format) return bad(g, INLAY_ERR_ARGUMENT, "no format");
    atype *t = &g->st->nodes[node].t;
    const char *what, *shown;
    int st = inl_arrow_type(sch, t, &what, &shown);
    if (st == INLAY_ERR_SCHEMA) return bad(g, st, "Arrow format \"%s\" (%s) is not supported", shown, what);
    if (st) return bad(g, st, "%s", what);
    switch (t->kind) {
    case A_STRUCT: {
        if (!sn->is_group || sn->annotation != GROUP_PLAIN || sn->rep == INLAY_REPEATED)
            return mismatch(g, sch, t, node);
        INL_FORWARD(match_children(g, sch, sn->num_children));
        int k = 0;
        for (int c = sn->first_child; c >= 0; c = g->s->nodes[c].next_sibling, k++) {
            const struct ArrowSchema *cs = sch->children[k];
            if (!cs->name) return bad(g, INLAY_ERR_ARGUMENT, "child %d of the schema has no name", k);
            if (strcmp(cs->name, g->s->nodes[c].name))
                return bad(g, INLAY_ERR_SCHEMA, "field %d is '%s' in the batch but '%s' in the writer's schema", k,
                           cs->name, g->s->nodes[c].name);
            INL_FORWARD(match_child(g, c, cs, depth));
        }
        return 0;
    }
    case A_LIST: case A_MAP: {
        const schema_group want = t->kind == A_LIST ? GROUP_LIST : GROUP_MAP;
        if (!sn->is_group || sn->annotation != want) return mismatch(g, sch, t, node);
        const int mid = sn->first_child;
        const schema_node *m = &g->s->nodes[mid];
        if (!m->is_group || m->num_children != (t->kind == A_LIST ? 1 : 2))
            return bad(g, INLAY_ERR_SCHEMA, "the writer's %s is not in the 3-level form with %s",
                       t->kind == A_LIST ? "list" : "map", t->kind == A_LIST ? "an element" : "a key and a value");
        INL_FORWARD(match_children(g, sch, 1));
        if (t->kind == A_LIST) return match_child(g, m->first_child, sch->children[0], depth);
        const struct ArrowSchema *e = sch->children[0];
        if (!e->format || strcmp(e->format, "+s") || e->dictionary || e->n_children != 2 || !e->children ||
            !e->children[0] || !e->children[1])
            return bad(g, INLAY_ERR_ARGUMENT, "a map's child is not a struct of key and value");
        const size_t old = enter(g, e->name ? e->name : "entries");
        INL_FORWARD(match_child(g, m->first_child, e->children[0], depth + 1));
        INL_FORWARD(match_child(g, g->s->nodes[m->first_child].next_sibling, e->children[1], depth + 1));
        leave(g, old);
        return 0;
    }
    default:
        if (sn->is_group || sn->rep == INLAY_REPEATED || !inl_arrow_maps_onto(t, &sn->type))
            return mismatch(g, sch, t, node);
        if (sch->n_children != 0)
            return bad(g, INLAY_ERR_ARGUMENT, "format \"%s\" with %lld children", sch->format,
                       (long long)sch->n_children);
        return 0;
    }
}

/* ---- reading a batch: nested fields ------------------------------------------ */

static int build(stage *g, int node, const struct ArrowSchema *sch, const struct ArrowArray *a, int64_t start,
                 int64_t n, inlay_array *out);

/* A list's or map's offsets for entries [start, start + n) of a, rebased
 * to start at 0 (int32, as inlay_array has them); *lo and *hi are the
 * child entries they span. */
static int rebase_offsets(stage *g, nscratch *ns, const atype *t, const struct ArrowArray *a, int64_t start, int64_t n,
                          const struct ArrowArray *child, int64_t *lo, int64_t *hi, const int32_t **out)
{
    *lo = *hi = 0;
    *out = NULL;
    if (n == 0) return 0;
    const uint8_t *ob = a->buffers[1];
    if (!ob) return bad(g, INLAY_ERR_ARGUMENT, "no offsets buffer");
    const size_t ow = t->bits == 64 ? 8 : 4;
    ob += (size_t)(a->offset + start) * ow;
    int32_t *d = room(g, &ns->offs, ((size_t)n + 1) * 4);
    if (!d) return nomem(g);
    const int64_t first = ow == 8 ? ld64(ob) : ld32(ob);
    if (first < 0)
        return bad(g, INLAY_ERR_ARGUMENT, "negative offset %lld at entry %lld", (long long)first, (long long)start);
    int64_t prev = first;
    for (int64_t i = 0; i <= n; i++) {
        const int64_t o = ow == 8 ? ld64(ob + (size_t)i * 8) : ld32(ob + (size_t)i * 4);
        if (o < prev)
            return bad(g, INLAY_ERR_ARGUMENT, "offsets go back at entry %lld (%lld, then %lld)",
                       (long long)(start + i - 1), (long long)prev, (long long)o);
        if (o - first > INT32_MAX)
            return bad(g, INLAY_ERR_ARGUMENT, "more than %d child entries in one batch", INT32_MAX);
        d[i] = (int32_t)(o - first);
        prev = o;
    }
    if (prev > child->length)
        return bad(g, INLAY_ERR_ARGUMENT, "offsets reach entry %lld of a child array of %lld entries", (long long)prev,
                   (long long)child->length);
    *lo = first;
    *hi = prev;
    *out = d;
    return 0;
}

/* A map's entries are never null (the specification): those of the valid
 * maps among entries [0, n) are checked. */
static int check_entries(stage *g, const struct ArrowArray *e, int64_t lo, const int32_t *off, const uint8_t *validity,
                         int64_t n)
{
    if (e->null_count == 0 || !e->buffers[0]) return 0;
    const uint8_t *bits = e->buffers[0];
    for (int64_t i = 0; i < n; i++) {
        if (!is_valid(validity, (size_t)i)) continue;
        for (int32_t j = off[i]; j < off[i + 1]; j++)
            if (!bit(bits, (size_t)(e->offset + lo + j)))
                return bad(g, INLAY_ERR_NULL, "entry %lld of the map's entries is null", (long long)(lo + j));
    }
    return 0;
}

static inlay_array *kids(stage *g, nscratch *ns, size_t k)
{
    inlay_array *c = room(g, &ns->kids, k * sizeof *c);
    if (c) memset(c, 0, k * sizeof *c);
    return c;
}

/* Entries [start, start + n) of Arrow array a (described by sch) as the
 * inlay_array of the writer's node: see shred.h. */
static int build(stage *g, int node, const struct ArrowSchema *sch, const struct ArrowArray *a, int64_t start,
                 int64_t n, inlay_array *out)
{
    nscratch *ns = &g->st->nodes[node];
    const schema_node *sn = &g->s->nodes[node];
    const atype *t = &ns->t;
    memset(out, 0, sizeof *out);
    out->length = (size_t)n;
    if (!sn->is_group) return leaf_values(g, node, sch->format, a, start, n, &out->values, &out->validity);
    const int64_t want_children = t->kind == A_STRUCT ? sch->n_children : 1;
    INL_FORWARD(check_array(g, t, sch->format, a, start, n, want_children, false));
    INL_FORWARD(take_validity(g, &ns->main.valid, a, start, n, &out->validity));
    if (t->kind == A_STRUCT) {
        inlay_array *c = kids(g, ns, (size_t)sn->num_children);
        if (!c) return nomem(g);
        int k = 0;
        for (int ch = sn->first_child; ch >= 0; ch = g->s->nodes[ch].next_sibling, k++) {
            const size_t old = enter(g, sch->children[k]->name);
            INL_FORWARD(build(g, ch, sch->children[k], a->children[k], a->offset + start, n, &c[k]));
            leave(g, old);
        }
        out->children = c;
        return 0;
    }
    const struct ArrowArray *child = a->children[0];
    const struct ArrowSchema *cs = sch->children[0];
    if (!child) return bad(g, INLAY_ERR_ARGUMENT, "child array 0 is NULL");
    int64_t lo, hi;
    INL_FORWARD(rebase_offsets(g, ns, t, a, start, n, child, &lo, &hi, &out->offsets));
    const int mid = sn->first_child;
    if (t->kind == A_LIST) {
        inlay_array *c = kids(g, ns, 1);
        if (!c) return nomem(g);
        const size_t old = enter(g, cs->name ? cs->name : "element");
        INL_FORWARD(build(g, g->s->nodes[mid].first_child, cs, child, lo, hi - lo, &c[0]));
        leave(g, old);
        out->children = c;
        return 0;
    }
    /* a map: its child is the struct of keys and values, whose entries the
     * offsets index; the shredder takes the keys and values as the map's
     * children */
    const size_t old = enter(g, cs->name ? cs->name : "entries");
    atype entries = { .kind = A_STRUCT };
    INL_FORWARD(check_array(g, &entries, cs->format, child, lo, hi - lo, 2, false));
    if (n > 0) INL_FORWARD(check_entries(g, child, lo, out->offsets, out->validity, n));
    inlay_array *c = kids(g, ns, 2);
    if (!c) return nomem(g);
    const int key = g->s->nodes[mid].first_child, value = g->s->nodes[key].next_sibling;
    for (int k = 0; k < 2; k++) {
        const size_t o2 = enter(g, cs->children[k]->name ? cs->children[k]->name : k ? "value" : "key");
        INL_FORWARD(build(g, k ? value : key, cs->children[k], child->children[k], child->offset + lo, hi - lo, &c[k]));
        leave(g, o2);
    }
    leave(g, old);
    out->children = c;
    return 0;
}

/* ---- reading a batch ---------------------------------------------------------- */

/* The record batch itself: a struct of the writer's top-level fields, by
 * name and in order, with no null rows. */
static int check_batch(stage *g, const struct ArrowArray *array, const struct ArrowSchema *schema)
{
    const arrow_state *st = g->st;
    snprintf(g->path, sizeof g->path, "(the record batch)");
    if (!schema->format || strcmp(schema->format, "+s") || schema->dictionary)
        return bad(g, INLAY_ERR_ARGUMENT, "a record batch is a struct (\"+s\"), not \"%s\"",
                   schema->format ? schema->format : "(no format)");
    if (schema->n_children != st->nfields || (st->nfields && !schema->children))
        return bad(g, INLAY_ERR_SCHEMA, "%lld fields in the batch, %d in the writer's schema",
                   (long long)schema->n_children, st->nfields);
    atype t = { .kind = A_STRUCT };
    INL_FORWARD(check_array(g, &t, "+s", array, 0, array->length, st->nfields, false));
    if (array->null_count != 0 && array->buffers[0]) {
        const uint8_t *bits = array->buffers[0];
        for (int64_t i = 0; i < array->length; i++)
            if (!bit(bits, (size_t)(array->offset + i)))
                return bad(g, INLAY_ERR_ARGUMENT, "row %lld is null: a record batch's struct has no nulls",
                           (long long)i);
    }
    int k = 0;
    for (int n = g->s->nodes[0].first_child; n >= 0; n = g->s->nodes[n].next_sibling, k++) {
        const struct ArrowSchema *c = schema->children[k];
        if (!c) return bad(g, INLAY_ERR_ARGUMENT, "field %d of the schema is NULL", k);
        if (!c->name) return bad(g, INLAY_ERR_ARGUMENT, "field %d has no name", k);
        if (strcmp(c->name, g->s->nodes[n].name))
            return bad(g, INLAY_ERR_SCHEMA, "field %d is '%s' in the batch but '%s' in the writer's schema", k, c->name,
                       g->s->nodes[n].name);
    }
    g->path[0] = '\0';
    g->plen = 0;
    return 0;
}

/* A nested top-level field, shredded into shred state k. */
static int stage_nested(stage *g, int k, int node, const struct ArrowSchema *sch, const struct ArrowArray *a,
                        const struct ArrowArray *batch)
{
    inlay_array root;
    g->flat = false;
    INL_FORWARD(build(g, node, sch, a, batch->offset, batch->length, &root));
    shred *sh = &g->st->shreds[k];
    int first, nl;
    int st = inl_shred_field(sh, g->s, node, &root, (size_t)batch->length, &first, &nl);
    if (st == INLAY_ERR_NOMEM) return nomem(g);
    if (st && sh->err_leaf >= 0) {   /* its row counted as the flat columns' are */
        const uint64_t before = g->cols ? g->cols[sh->err_leaf].rows : g->rows_before;
        return inl_err_at(g->err, st, "field", g->s->leaves[sh->err_leaf].path, sh->err_leaf, before + sh->err_row,
                          "%s", sh->err.msg + sh->err.reason_at);
    }
    if (st) return inl_err_set(g->err, st, "%s", sh->err.msg);
    for (int j = 0; j < nl; j++) {
        const shred_leaf *l = &sh->leaves[j];
        const schema_leaf *lf = &g->s->leaves[first + j];
        inlay_column_batch *b = &g->st->batches[first + j];
        b->column = first + j;
        b->values = l->values.data;
        b->count = l->count;
        b->levels.def = lf->max_def ? (const int16_t *)(const void *)l->def.data : NULL;
        b->levels.rep = lf->max_rep ? (const int16_t *)(const void *)l->rep.data : NULL;
        b->levels.validity = NULL;
        g->st->checked[first + j] = g->st->nodes[lf->node].checked;
    }
    return 0;
}

int inl_arrow_stage(arrow_state **state, const inlay_allocator *a, const inlay_schema *s, const column *cols,
                    uint64_t rows_before, const struct ArrowArray *array, const struct ArrowSchema *schema,
                    inl_err *err, arrow_batches *out)
{
    if (!*state && state_new(state, a, s)) return inl_err_set(err, INLAY_ERR_NOMEM, "out of memory");
    stage g;
    memset(&g, 0, sizeof g);
    g.st = *state;
    g.s = s;
    g.cols = cols;
    g.rows_before = rows_before;
    g.err = err;
    INL_FORWARD(check_batch(&g, array, schema));
    int k = 0;
    for (int n = s->nodes[0].first_child; n >= 0; n = s->nodes[n].next_sibling, k++)
        INL_FORWARD(match_child(&g, n, schema->children[k], 0));
    k = 0;
    for (int n = s->nodes[0].first_child; n >= 0; n = s->nodes[n].next_sibling, k++) {
        const size_t old = enter(&g, s->nodes[n].name);
        const struct ArrowArray *child = array->children[k];
        if (s->nodes[n].is_group) {
            INL_FORWARD(stage_nested(&g, k, n, schema->children[k], child, array));
        } else {
            const int col = g.st->leaf_of[n];
            inlay_column_batch *b = &g.st->batches[col];
            memset(b, 0, sizeof *b);
            g.flat = true;
            INL_FORWARD(leaf_values(&g, n, schema->children[k]->format, child, array->offset, array->length,
                                    &b->values, &b->levels.validity));
            b->column = col;
            b->count = (size_t)array->length;
            g.st->checked[col] = g.st->nodes[n].checked;
        }
        leave(&g, old);
    }
    out->batches = g.st->batches;
    out->checked = g.st->checked;
    out->n = g.st->nleaves;
    return 0;
}
