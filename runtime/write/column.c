/*
 * column.c — column buffers, pages and chunks (see column.h).
 */
#include "column.h"

#include "bool_rle.h"
#include "bss.h"
#include "delta.h"
#include "plain.h"
#include "rle.h"

/* In dictionary mode a page is taken in slices of at most this many rows,
 * counted from the page's start (so wherever the batches begin): the
 * dictionary limit and the page's bytes are checked at their ends. */
#define DICT_SLICE 4096
/* ... and, near the dictionary's limit, at least this many rows (twice as
 * many as the last time while no entry has come since). */
#define DICT_MIN_CHECK 16

/* A job keeps room for a dictionary copy up to this size between uses (so
 * that a steady writer with small dictionaries allocates nothing); a larger
 * copy is given back once its job is finished, so a column holds at most the
 * copies in flight. */
#define DICT_COPY_KEEP (64u << 10)


static const inlay_allocator *A(const column_env *e) { return &e->alloc; }

/* The encoding of pages that are not dictionary-encoded (schema.c has
 * checked that the choice fits the type). */
static int value_encoding_for(const inlay_type *t, inlay_encoding_choice choice)
{
    const bool integer = t->physical == INLAY_INT32 || t->physical == INLAY_INT64;
    switch (choice) {
    case INLAY_ENCODING_PLAIN: return ENC_PLAIN;
    case INLAY_ENCODING_DELTA:
        if (integer) return ENC_DELTA_BINARY_PACKED;
        return t->physical == INLAY_BYTE_ARRAY ? ENC_DELTA_LENGTH_BYTE_ARRAY : ENC_DELTA_BYTE_ARRAY;
    case INLAY_ENCODING_DELTA_BYTE_ARRAY: return ENC_DELTA_BYTE_ARRAY;
    case INLAY_ENCODING_BYTE_STREAM_SPLIT: return ENC_BYTE_STREAM_SPLIT;
    case INLAY_ENCODING_RLE: return ENC_RLE;
    default:   /* AUTO, DICTIONARY: the fallback after the dictionary */
        if (integer) return ENC_DELTA_BINARY_PACKED;
        if (t->physical == INLAY_BYTE_ARRAY) return ENC_DELTA_LENGTH_BYTE_ARRAY;
        return ENC_PLAIN;
    }
}

static void chunk_free(chunk *k, const inlay_allocator *a)
{
    inl_buf_free(&k->dict, a);
    inl_buf_free(&k->pages, a);
    inl_stats_free(&k->st, a);
    inl_buf_free(&k->hist, a);
    inl_buf_free(&k->pg, a);
    inl_buf_free(&k->pg_bounds, a);
    inl_buf_free(&k->pg_hist, a);
    inl_buf_free(&k->hashes, a);
    inl_buf_free(&k->bloom, a);
    inl_mem_free(a, k, sizeof *k);
}

static int grow_chunks(column *c, column_env *e, int need)
{
    if (need <= c->nchunks) return 0;
    if (need > c->chunks_cap) {
        chunk **n = inl_mem_realloc(A(e), c->chunks, (size_t)c->chunks_cap * sizeof *n, (size_t)need * sizeof *n);
        if (!n) return INLAY_ERR_NOMEM;
        c->chunks = n;
        c->chunks_cap = need;
    }
    chunk **n = c->chunks;
    for (int i = c->nchunks; i < need; i++) {
        chunk *k = inl_mem_alloc(A(e), sizeof *k);
        if (!k) return INLAY_ERR_NOMEM;
        memset(k, 0, sizeof *k);
        k->st.order = c->leaf->order;
        n[i] = k;
        c->nchunks = i + 1;
    }
    return 0;
}

static chunk *open_chunk(column *c) { return c->chunks[c->nsealed]; }

/* Whether a chunk's first data page decides if its codec pays (v1 pages
 * of a codec with a gain to check); otherwise the codec is the column's. */
static bool codec_checked(const column *c, const column_env *e)
{
    return !(c->codec == INLAY_UNCOMPRESSED || e->min_gain <= 0 || e->page_version == 2);
}

/* A new chunk starts with the column's codec, undecided (v1) until its
 * first data page shows whether the codec pays, and with no pages. */
static int start_chunk(column *c, const column_env *e, chunk *k)
{
    k->codec = c->codec;
    k->codec_decided = !codec_checked(c, e);
    k->dict.len = k->pages.len = 0;
    k->num_values = k->num_rows = k->raw_size = k->stored_size = 0;
    k->dict_entries = 0;
    memset(k->page_counts, 0, sizeof k->page_counts);
    inl_stats_reset(&k->st);
    k->unencoded_bytes = 0;
    k->pg.len = k->pg_bounds.len = k->pg_hist.len = 0;
    k->ci_ok = k->ascending = k->descending = true;
    k->last_bounded = -1;
    k->hashes.len = k->bloom.len = 0;
    k->hist.len = 0;
    k->cut_bytes = 0;
    k->seq = c->chunk_seq++;
    c->chunk_pages = 0;
    if (inl_buf_reserve(&k->hist, A(e), c->nhist * sizeof(int64_t))) return INLAY_ERR_NOMEM;
    if (e->page_index) {
        /* room for the index entries of the pages a full chunk will have at
         * its row limit, so that a steady writer does not grow them page by
         * page (grown, not reserved: a small chunk does not map it all) */
        size_t pages = e->row_group_rows / e->page_rows + 1;
        if (pages > 4096) pages = 4096;
        const size_t bound = c->width && c->width <= 16 ? c->width : 16;
        if (inl_buf_grow(&k->pg, A(e), pages * sizeof(page_entry)) ||
            inl_buf_grow(&k->pg_bounds, A(e), pages * 2 * bound) ||
            inl_buf_grow(&k->pg_hist, A(e), pages * c->nhist * sizeof(int64_t)))
            return INLAY_ERR_NOMEM;
    }
    if (c->nhist) memset(k->hist.data, 0, c->nhist * sizeof(int64_t));
    k->hist.len = c->nhist * sizeof(int64_t);
    return 0;
}

/* A chunk's first page goes whole into the dictionary before the check
 * says whether it pays: at most a page of values. */
static void expect_first_page(column *c, const column_env *e)
{
    if (c->is_bytes || !c->use_dict || !c->cost_check) return;
    const size_t by_bytes = e->page_bytes / c->width + 1;
    inl_memo_fixed_expect(&c->memo_fixed, e->page_rows < by_bytes ? e->page_rows : by_bytes);
}

int inl_column_init(column *c, column_env *e, const inlay_schema *s, int leaf, int comp_id,
                    inlay_compression codec)
{
    memset(c, 0, sizeof *c);
    c->index = leaf;
    c->comp_id = comp_id;
    c->codec = codec;
    c->leaf = &s->leaves[leaf];
    const schema_node *node = &s->nodes[c->leaf->node];
    c->type = &node->type;
    c->path = c->leaf->path;
    c->width = inl_type_plain_width(c->type);
    c->is_bytes = inl_type_is_bytes(c->type);
    c->value_size = inl_type_value_size(c->type);
    c->statistics = node->opts.statistics;
    c->bloom_on = node->opts.bloom_filter;
    c->bloom_ndv = node->opts.bloom_ndv;
    c->bloom_fpp = node->opts.bloom_fpp > 0 ? node->opts.bloom_fpp : INLAY_DEFAULT_BLOOM_FPP;
    c->value_encoding = value_encoding_for(c->type, node->opts.encoding);
    c->dict_allowed = c->type->physical != INLAY_BOOLEAN &&
                      (node->opts.encoding == INLAY_ENCODING_AUTO ||
                       node->opts.encoding == INLAY_ENCODING_DICTIONARY);
    c->cost_check = node->opts.encoding == INLAY_ENCODING_AUTO;
    c->use_dict = c->dict_allowed;
    if (c->is_bytes)
        inl_memo_bytes_init(&c->memo_bytes, A(e),
                        c->type->physical == INLAY_FIXED_LEN_BYTE_ARRAY ? c->width : 0);
    else
        inl_memo_fixed_init(&c->memo_fixed, A(e), c->width);
    expect_first_page(c, e);
    c->nhist = (c->leaf->max_def > 0 ? (size_t)c->leaf->max_def + 1 : 0) +
               (c->leaf->max_rep > 0 ? (size_t)c->leaf->max_rep + 1 : 0);
    c->own_job.pst.order = c->leaf->order;
    INL_FORWARD(grow_chunks(c, e, 2));
    return start_chunk(c, e, open_chunk(c));
}

void inl_page_job_free(page_job *j, const inlay_allocator *a)
{
    inl_stats_free(&j->pst, a);
    inl_buf_free(&j->hist, a);
    inl_buf_free(&j->own_defs, a);
    inl_buf_free(&j->own_reps, a);
    inl_buf_free(&j->own_vals, a);
    inl_buf_free(&j->own_dict, a);
}

void inl_page_work_free(page_work *pw, const inlay_allocator *a, int ncomps)
{
    inl_page_scratch_free(&pw->scratch, a);
    inl_buf_free(&pw->levels, a);
    inl_buf_free(&pw->encoded, a);
    inl_buf_free(&pw->trial, a);
    inl_buf_free(&pw->views, a);
    inl_buf_free(&pw->out, a);
    inl_buf_free(&pw->trunc, a);
    inl_compress_free(&pw->none);
    if (pw->comps) {
        for (int i = 0; i < ncomps; i++) inl_compress_free(&pw->comps[i]);
        inl_mem_free(a, pw->comps, (size_t)ncomps * sizeof *pw->comps);
    }
    pw->comps = NULL;
}

enum { TRIM_SLACK = 64 << 10 };

static int dictionary_pays(column *c, column_env *e);
static size_t dict_count(const column *c);

int inl_column_trim(column *c, column_env *e)
{
    if (c->stage_pos < c->stage_n) return 0;
    /* A first page still deciding whether its dictionary pays decides on
     * what it holds: an idle writer would otherwise keep a memo table of
     * every value of that page. What it decides depends on where the
     * host trimmed, which depends only on the data and the options. */
    if (c->use_dict) INL_FORWARD(dictionary_pays(c, e));
    /* the page being filled keeps its values; the room a full page took goes */
    inl_buf_shrink(&c->defs, A(e), TRIM_SLACK);
    inl_buf_shrink(&c->reps, A(e), TRIM_SLACK);
    inl_buf_shrink(&c->vals, A(e), TRIM_SLACK);
    /* chunks written and waiting for reuse give their pages back; the open one its room past them */
    for (int i = c->nsealed + 1; i < c->nchunks; i++) {
        chunk *k = c->chunks[i];
        buf *spare[] = { &k->dict, &k->pages, &k->hashes, &k->bloom };
        for (size_t b = 0; b < sizeof spare / sizeof *spare; b++) inl_buf_free(spare[b], A(e));
    }
    if (c->nsealed < c->nchunks) inl_buf_shrink(&c->chunks[c->nsealed]->pages, A(e), TRIM_SLACK);
    if (c->dict_used || (c->use_dict && dict_count(c) > 0)) return 0;   /* the chunk's dictionary is live */
    inl_memo_fixed_free(&c->memo_fixed);
    inl_memo_bytes_free(&c->memo_bytes);
    inl_buf_free(&c->stamps, A(e));
    inl_buf_free(&c->counts, A(e));
    return 0;
}

void inl_column_free(column *c, column_env *e)
{
    inl_memo_fixed_free(&c->memo_fixed);
    inl_memo_bytes_free(&c->memo_bytes);
    inl_buf_free(&c->defs, A(e));
    inl_buf_free(&c->reps, A(e));
    inl_buf_free(&c->vals, A(e));
    inl_buf_free(&c->validity_defs, A(e));
    inl_buf_free(&c->validity_vals, A(e));
    inl_page_job_free(&c->own_job, A(e));
    inl_buf_free(&c->rg_trunc, A(e));
    inl_buf_free(&c->stamps, A(e));
    inl_buf_free(&c->counts, A(e));
    for (int i = 0; i < c->nchunks; i++) chunk_free(c->chunks[i], A(e));
    inl_bloom_free(&c->filter, A(e));
    if (c->chunks) inl_mem_free(A(e), c->chunks, (size_t)c->chunks_cap * sizeof *c->chunks);
    c->chunks = NULL;
    c->nchunks = c->chunks_cap = 0;
}

/* The compressor of a chunk's pages. */
static compressor *chunk_comp(const column *c, page_work *pw, const chunk *k)
{
    return k->codec == INLAY_UNCOMPRESSED ? &pw->none : &pw->comps[c->comp_id];
}

static size_t dict_bytes(const column *c)
{
    return c->is_bytes ? inl_memo_bytes_bytes(&c->memo_bytes) : inl_memo_fixed_bytes(&c->memo_fixed);
}

static const uint8_t *dict_data(const column *c)
{
    return c->is_bytes ? c->memo_bytes.arena.data : c->memo_fixed.values.data;
}

static size_t dict_count(const column *c)
{
    return c->is_bytes ? c->memo_bytes.count : c->memo_fixed.count;
}

/* The bytes of the dictionary's first n entries (its page's data). */
static size_t dict_bytes_of(const column *c, size_t n)
{
    return c->is_bytes ? inl_memo_bytes_bytes_of(&c->memo_bytes, n) : n * c->width;
}

/* The dictionary as the appended values use it: its bytes. */
static size_t dict_refs_bytes(const column *c) { return dict_bytes_of(c, c->dict_refs); }

static int index_bit_width(const column *c)
{
    size_t n = c->dict_refs;
    int w = inl_rle_bit_width(n ? n - 1 : 0);
    return w ? w : 1;
}

/* The first-page dictionary check has yet to see values: the page may still
 * go out in the fallback encoding, so its PLAIN size bounds it too. */
static bool decision_pending(const column *c)
{
    return c->use_dict && c->cost_check && !c->dict_decided;
}

/* Bytes the current page would take, roughly, before compression. */
static size_t page_size_estimate(const column *c)
{
    size_t levels = c->page_entries * (size_t)(inl_rle_bit_width((uint64_t)c->leaf->max_def) +
                                                inl_rle_bit_width((uint64_t)c->leaf->max_rep)) / 8;
    if (c->use_dict) {
        size_t indices = c->page_values * (size_t)index_bit_width(c) / 8;
        if (decision_pending(c) && c->page_plain_bytes > indices) indices = c->page_plain_bytes;
        return levels + indices;
    }
    if (c->type->physical == INLAY_BOOLEAN) return levels + c->page_values / 8;
    return levels + c->vals.len;
}

/* A page that is not dictionary-encoded, or may still become so, is full:
 * its PLAIN bytes, which slice_end ends the slices at (levels aside), have
 * reached the limit. (Dictionary pages are looked at in their checks.) */
static bool page_full(const column *c, const column_env *e)
{
    if (c->use_dict) return decision_pending(c) && c->page_plain_bytes >= e->page_bytes;
    return (c->type->physical == INLAY_BOOLEAN ? c->page_values / 8 : c->vals.len) >= e->page_bytes;
}

/* Counted from the pages as cut, not as written, so that where a row group
 * ends by its bytes does not depend on how far the workers have got. */
size_t inl_column_buffered_bytes(const column *c)
{
    const chunk *k = c->chunks[c->nsealed];
    return k->cut_bytes + page_size_estimate(c) + (c->use_dict || c->dict_used ? dict_refs_bytes(c) : 0);
}

/* ---- pages ------------------------------------------------------------ */

/* Byte off of c->vals: NULL for a buffer never grown (no offset from a
 * null pointer, which C does not define). */
static inline const uint8_t *vals_at(const column *c, size_t off)
{
    return c->vals.data ? c->vals.data + off : NULL;
}

/* The dictionary indices of the page being filled. */
static inline const uint32_t *page_indices(const column *c)
{
    return (const uint32_t *)vals_at(c, c->page_off);
}

/* A job's values (or indices). */
static inline const uint8_t *job_vals(const page_job *j)
{
    return j->vals->data ? j->vals->data + j->vals_off : NULL;
}

/* The page's values PLAIN-encoded from their dictionary indices, into out. */
static int materialize_plain(column *c, column_env *e, buf *out)
{
    const uint32_t *idx = page_indices(c);
    const size_t n = c->page_values;
    out->len = 0;
    if (!c->is_bytes) {
        if (inl_buf_reserve(out, A(e), n * c->width)) return INLAY_ERR_NOMEM;
        const uint8_t *dict = c->memo_fixed.values.data;
        for (size_t i = 0; i < n; i++) memcpy(out->data + i * c->width, dict + idx[i] * c->width, c->width);
        out->len = n * c->width;
        return 0;
    }
    const size_t prefix = c->memo_bytes.fixed_width ? 0 : 4;
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const uint8_t *v = inl_memo_bytes_value(&c->memo_bytes, idx[i], &len);
        if (inl_buf_append(out, A(e), v - prefix, prefix + len)) return INLAY_ERR_NOMEM;
    }
    return 0;
}

/* Levels of the page, RLE-encoded; v1 pages prefix them with their length. */
static int put_levels(buf *out, const inlay_allocator *a, const buf *levels, size_t n, int16_t max,
                      bool prefixed, int32_t *len)
{
    size_t at = out->len;
    if (prefixed) {
        if (inl_buf_reserve(out, a, 4)) return INLAY_ERR_NOMEM;
        out->len += 4;
    }
    if (inl_rle_encode_u16(out, a, (const uint16_t *)levels->data, n, inl_rle_bit_width((uint64_t)max)))
        return INLAY_ERR_NOMEM;
    size_t body = out->len - at - (prefixed ? 4 : 0);
    if (prefixed) inl_put_u32le(out->data + at, (uint32_t)body);
    *len = (int32_t)body;
    return 0;
}

/* inlay_bytes views of n PLAIN-encoded byte arrays (or fixed-width values)
 * in pw->views. */
static const inlay_bytes *byte_views(const column *c, page_work *pw, const inlay_allocator *a,
                                     const uint8_t *plain, size_t n)
{
    pw->views.len = 0;
    /* at least one slot, so an all-null page gets a non-NULL (empty) array */
    if (inl_buf_reserve(&pw->views, a, (n ? n : 1) * sizeof(inlay_bytes))) return NULL;
    inlay_bytes *v = (inlay_bytes *)pw->views.data;
    const uint8_t *p = plain;
    for (size_t i = 0; i < n; i++) {
        size_t len = c->width;
        if (!len) {
            len = (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
            p += 4;
        }
        v[i].data = p;
        v[i].len = len;
        p += len;
    }
    return v;
}

/* Encode n values buffered PLAIN in `plain` (plain_len bytes) with the
 * column's value encoding into out; res and res_len get the encoded bytes
 * (for PLAIN, the input itself). */
static int encode_values(const column *c, page_work *pw, const inlay_allocator *a, const uint8_t *plain,
                         size_t plain_len, size_t n, buf *out, const uint8_t **res, size_t *res_len,
                         int64_t *bounds)
{
    int r = 0;
    out->len = 0;
    switch (c->value_encoding) {
    case ENC_PLAIN:
        if (c->type->physical != INLAY_BOOLEAN) {
            *res = plain;
            *res_len = plain_len;
            return 0;
        }
        if (inl_buf_reserve(out, a, (n + 7) / 8)) return INLAY_ERR_NOMEM;
        inl_rle_pack_bools(out->data, plain, n);
        out->len = (n + 7) / 8;
        break;
    case ENC_RLE:
        r = inl_bool_rle_encode(out, a, plain, n);
        break;
    case ENC_BYTE_STREAM_SPLIT:
        r = inl_bss_encode(out, a, plain, n, c->width);
        break;
    case ENC_DELTA_BINARY_PACKED:
        if (c->width == 4) {
            int32_t lo, hi;
            r = inl_delta_encode_i32_bounds(out, a, (const int32_t *)plain, n, &lo, &hi);
            if (bounds) bounds[0] = lo, bounds[1] = hi;
        } else {
            int64_t lo, hi;
            r = inl_delta_encode_i64_bounds(out, a, (const int64_t *)plain, n, &lo, &hi);
            if (bounds) bounds[0] = lo, bounds[1] = hi;
        }
        break;
    default: {
        const inlay_bytes *v = byte_views(c, pw, a, plain, n);
        if (!v) return INLAY_ERR_NOMEM;
        r = c->value_encoding == ENC_DELTA_LENGTH_BYTE_ARRAY ? inl_delta_encode_length_bytes(out, a, v, n)
                                                             : inl_delta_encode_bytes(out, a, v, n);
        break;
    }
    }
    if (r) return INLAY_ERR_NOMEM;
    *res = out->data;
    *res_len = out->len;
    return 0;
}

/* Compressed size of n bytes, or n when there is no codec. */
static size_t compressed_size(compressor *comp, page_work *pw, const inlay_allocator *a, const void *p,
                              size_t n, int *st)
{
    *st = 0;
    if (comp->codec == INLAY_UNCOMPRESSED || n == 0) return n;
    size_t bound = inl_compress_bound(comp, n);
    pw->scratch.packed.len = 0;
    if (inl_buf_reserve(&pw->scratch.packed, a, bound)) { *st = INLAY_ERR_NOMEM; return 0; }
    size_t r = inl_compress_run(comp, pw->scratch.packed.data, bound, p, n, st);
    if (r == SIZE_MAX) return 0;
    *st = 0;
    return r;
}

/* Before the first dictionary page of a chunk is committed: keep the
 * dictionary only if dictionary + indices are smaller than the fallback
 * encoding of the same values (the parquet-mr rule). When the two are
 * within a factor of two either way, they are compared after compression
 * with the column's codec, which can reverse the answer. Otherwise the
 * page and the rest of the chunk use the fallback encoding. A page without
 * values (all nulls) does not decide: it goes out dictionary-encoded (an
 * empty dictionary page backs it if the dictionary is dropped later) and
 * the next page decides. Runs on the appending thread, which owns the
 * dictionary. */
static int dictionary_pays(column *c, column_env *e)
{
    if (c->dict_decided || !c->cost_check || c->page_values == 0) return 0;
    c->dict_decided = true;
    if (!c->is_bytes) inl_memo_fixed_expect(&c->memo_fixed, 0);   /* the rest of the chunk: no idea */
    page_work *pw = &e->work;
    INL_FORWARD(materialize_plain(c, e, &pw->trial));
    /* Every value distinct (random doubles, say) and PLAIN the fallback:
     * the dictionary is then the page's PLAIN bytes as they are, so it
     * costs the indices more, whatever the codec makes of those bytes. */
    const bool dict_is_page = !c->is_bytes && c->value_encoding == ENC_PLAIN && c->dict_refs == c->page_values;
    const uint8_t *fb = NULL;
    size_t fb_len = 0;
    if (!dict_is_page)
        INL_FORWARD(encode_values(c, pw, A(e), pw->trial.data, pw->trial.len, c->page_values, &pw->encoded, &fb,
                                  &fb_len, NULL));
    const void *dict = dict_data(c);
    size_t dict_len = dict_refs_bytes(c);
    size_t indices = c->page_values * (size_t)index_bit_width(c) / 8 + 2;
    size_t with_dict = dict_len + indices, without = fb_len;
    if (dict_is_page) {
        with_dict = 1;
        without = 0;
    } else if (with_dict < 2 * without && without < 2 * with_dict) {   /* close: compression decides */
        int st;
        compressor *comp = c->codec == INLAY_UNCOMPRESSED ? &pw->none : &pw->comps[c->comp_id];
        with_dict = compressed_size(comp, pw, A(e), dict, dict_len, &st) + indices;
        if (st) return st;
        without = compressed_size(comp, pw, A(e), fb, fb_len, &st);
        if (st) return st;
    }
    if (with_dict < without) return 0;
    buf t = c->vals;       /* the PLAIN values become the page's buffer */
    c->vals = pw->trial;
    pw->trial = t;
    c->page_off = 0;
    c->use_dict = false;
    if (c->is_bytes) inl_memo_bytes_reset(&c->memo_bytes);
    else inl_memo_fixed_reset(&c->memo_fixed);
    c->dict_refs = c->dict_gap = c->dict_gap_refs = 0;
    c->stamps.len = c->counts.len = 0;
    return 0;
}

/* ---- page statistics ---------------------------------------------------- */

/* Min and max of n fixed-width values into ps. */
static void fixed_stats(stats *ps, inlay_physical phys, const uint8_t *v, size_t n)
{
    switch (phys) {
    case INLAY_INT32: inl_stats_update_i32(ps, (const int32_t *)v, n); break;
    case INLAY_INT64: inl_stats_update_i64(ps, (const int64_t *)v, n); break;
    case INLAY_FLOAT: inl_stats_update_float(ps, (const float *)v, n); break;
    case INLAY_DOUBLE: inl_stats_update_double(ps, (const double *)v, n); break;
    default: break;
    }
}

/* A zero count per dictionary entry (zero again after every page). */
static uint32_t *entry_counts(column *c, const column_env *e)
{
    const size_t count = dict_count(c), have = c->counts.len / 4;
    if (have < count) {
        if (inl_buf_reserve(&c->counts, A(e), count * 4 - c->counts.len)) return NULL;
        memset(c->counts.data + have * 4, 0, (count - have) * 4);
        c->counts.len = count * 4;
    }
    return (uint32_t *)c->counts.data;
}

/* Min and max of a dictionary-encoded page of n indices (and, for
 * BYTE_ARRAY, its values' bytes into *ba_bytes) into ps: each distinct
 * entry it uses is compared once. counted: c->counts already holds the
 * page's uses of each entry. Reads the column's dictionary: on the
 * appending thread only. trial: scratch. */
static int dict_page_stats(column *c, const column_env *e, buf *trial, stats *ps, const uint32_t *idx,
                           size_t n, bool counted, size_t *ba_bytes)
{
    const size_t count = dict_count(c);
    const bool ba = c->type->physical == INLAY_BYTE_ARRAY;
    if (count <= n) {
        /* a dictionary no larger than the page: each entry's uses counted
         * without branching (by the index encoder, or here), then the
         * dictionary walked for the entries used */
        uint32_t *uses;
        if (!counted) {
            if (!(uses = entry_counts(c, e))) return INLAY_ERR_NOMEM;
            for (size_t i = 0; i < n; i++) uses[idx[i]]++;
        }
        uses = (uint32_t *)c->counts.data;
        if (c->is_bytes) {
            size_t sum = 0;
            for (size_t x = 0; x < count; x++) {
                const size_t used = uses[x];
                if (!used) continue;
                uses[x] = 0;
                size_t len;
                const uint8_t *v = inl_memo_bytes_value(&c->memo_bytes, x, &len);
                sum += used * len;
                if (inl_stats_update_bytes(ps, A(e), v, len)) return INLAY_ERR_NOMEM;
            }
            if (ba) *ba_bytes = sum;
            return 0;
        }
        trial->len = 0;
        if (inl_buf_reserve(trial, A(e), count * c->width)) return INLAY_ERR_NOMEM;
        size_t k = 0;
        for (size_t x = 0; x < count; x++) {
            if (!uses[x]) continue;
            uses[x] = 0;
            memcpy(trial->data + k++ * c->width, c->memo_fixed.values.data + x * c->width, c->width);
        }
        fixed_stats(ps, c->type->physical, trial->data, k);
        return 0;
    }
    /* a larger dictionary: entries stamped with the page's number as seen */
    const size_t have = c->stamps.len / 4;
    if (have < count) {
        if (inl_buf_reserve(&c->stamps, A(e), count * 4 - c->stamps.len)) return INLAY_ERR_NOMEM;
        memset(c->stamps.data + have * 4, 0, (count - have) * 4);
        c->stamps.len = count * 4;
    }
    if (++c->stamp == 0) {   /* wrapped: no entry may look seen */
        memset(c->stamps.data, 0, c->stamps.len);
        c->stamp = 1;
    }
    uint32_t *seen = (uint32_t *)c->stamps.data;
    const uint32_t now = c->stamp;
    if (c->is_bytes) {
        size_t sum = 0;
        for (size_t i = 0; i < n; i++) {
            uint32_t x = idx[i];
            size_t len;
            const uint8_t *v = inl_memo_bytes_value(&c->memo_bytes, x, &len);
            sum += len;
            if (seen[x] == now) continue;
            seen[x] = now;
            if (inl_stats_update_bytes(ps, A(e), v, len)) return INLAY_ERR_NOMEM;
        }
        if (ba) *ba_bytes = sum;
        return 0;
    }
    /* the distinct values gathered, then one typed pass */
    const size_t w = c->width;
    trial->len = 0;
    if (inl_buf_reserve(trial, A(e), (n < count ? n : count) * w)) return INLAY_ERR_NOMEM;
    const uint8_t *dict = c->memo_fixed.values.data;
    uint8_t *out = trial->data;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t x = idx[i];
        if (seen[x] == now) continue;
        seen[x] = now;
        memcpy(out + k++ * w, dict + (size_t)x * w, w);
    }
    fixed_stats(ps, c->type->physical, out, k);
    return 0;
}

/* A job's page's min and max into its pst (its null count too). counted:
 * as for dict_page_stats. bounds (may be NULL): the values' signed minimum
 * and maximum, found already by their encoder. */
static int page_stats(page_job *j, const column_env *e, page_work *pw, bool counted, const int64_t *bounds)
{
    column *c = j->c;
    stats *ps = &j->pst;
    if (j->stats_done) return 0;
    inl_stats_reset(ps);
    ps->null_count = j->entries - j->values;
    const size_t n = j->values;
    if (!n || c->leaf->order == ORDER_NONE) return 0;   /* every BYTE_ARRAY type has an order */
    if (j->use_dict)   /* j->live: stats_done otherwise */
        return dict_page_stats(c, e, &pw->trial, ps, (const uint32_t *)job_vals(j), n, counted, &j->ba_bytes);
    if (bounds && c->leaf->order == ORDER_SIGNED) {
        if (c->type->physical == INLAY_INT32) {
            const int32_t b32[2] = { (int32_t)bounds[0], (int32_t)bounds[1] };
            inl_stats_update_i32(ps, b32, 2);
        } else {
            inl_stats_update_i64(ps, bounds, 2);
        }
        return 0;
    }
    const uint8_t *v = job_vals(j);
    switch (c->type->physical) {
    case INLAY_BOOLEAN: inl_stats_update_bool(ps, v, n); return 0;
    case INLAY_FIXED_LEN_BYTE_ARRAY:
        for (size_t i = 0; i < n; i++)
            if (inl_stats_update_bytes(ps, A(e), v + i * c->width, c->width)) return INLAY_ERR_NOMEM;
        return 0;
    case INLAY_BYTE_ARRAY:
        for (size_t i = 0; i < n; i++) {
            size_t len = (size_t)v[0] | (size_t)v[1] << 8 | (size_t)v[2] << 16 | (size_t)v[3] << 24;
            if (inl_stats_update_bytes(ps, A(e), v + 4, len)) return INLAY_ERR_NOMEM;
            v += 4 + len;
        }
        return 0;
    default:
        fixed_stats(ps, c->type->physical, v, n);
        return 0;
    }
}

/* Counts of each level value of the page, added to h. */
static void count_levels(const buf *levels, size_t n, int64_t *h)
{
    const uint16_t *l = (const uint16_t *)levels->data;
    for (size_t i = 0; i < n; i++) h[l[i]]++;
}

/* The page's level histograms (definition, then repetition) into h
 * (c->nhist entries, zeroed). */
static void page_histograms(const page_job *j, int64_t *h)
{
    const int16_t max_def = j->c->leaf->max_def, max_rep = j->c->leaf->max_rep;
    if (max_def > 0) {
        if (max_def == 1 && max_rep == 0) {   /* levels say null or not: counted already */
            h[0] = (int64_t)(j->entries - j->values);
            h[1] = (int64_t)j->values;
        } else {
            count_levels(j->defs, j->entries, h);
        }
        h += max_def + 1;
    }
    if (max_rep > 0) count_levels(j->reps, j->entries, h);
}

/* The page's entry in the chunk's page index (bounds as written in its
 * header), and the boundary order so far. */
static int index_page(const page_job *j, const column_env *e, size_t offset, size_t size,
                      const stats_wire *w, const int64_t *hist)
{
    const column *c = j->c;
    chunk *k = j->k;
    page_entry p;
    memset(&p, 0, sizeof p);
    p.offset = offset;
    p.size = (int32_t)size;
    p.first_row = (int64_t)j->first_row;
    p.null_count = (int64_t)(j->entries - j->values);
    p.unencoded_bytes = (int64_t)j->ba_bytes;
    p.null_page = j->values == 0;
    if (w && w->has_bounds) {
        p.min_at = (uint32_t)k->pg_bounds.len;
        p.min_len = (uint32_t)w->min_len;
        p.max_at = (uint32_t)(k->pg_bounds.len + w->min_len);
        p.max_len = (uint32_t)w->max_len;
        if (inl_buf_append(&k->pg_bounds, A(e), w->min, w->min_len) ||
            inl_buf_append(&k->pg_bounds, A(e), w->max, w->max_len))
            return INLAY_ERR_NOMEM;
    } else if (!p.null_page) {
        k->ci_ok = false;   /* values but no bounds (all NaN): no ColumnIndex can describe the page */
    }
    if (hist && inl_buf_append(&k->pg_hist, A(e), hist, c->nhist * sizeof *hist)) return INLAY_ERR_NOMEM;
    if (inl_buf_append(&k->pg, A(e), &p, sizeof p)) return INLAY_ERR_NOMEM;
    if (w && w->has_bounds) {
        const page_entry *all = (const page_entry *)k->pg.data;
        const int n = (int)(k->pg.len / sizeof p) - 1;
        if (k->last_bounded >= 0) {
            const page_entry *q = &all[k->last_bounded];
            const uint8_t *b = k->pg_bounds.data;
            const int phys = c->type->physical;
            int dmin = inl_stats_compare_plain(c->leaf->order, phys, b + p.min_at, p.min_len, b + q->min_at, q->min_len);
            int dmax = inl_stats_compare_plain(c->leaf->order, phys, b + p.max_at, p.max_len, b + q->max_at, q->max_len);
            if (dmin < 0 || dmax < 0) k->ascending = false;
            if (dmin > 0 || dmax > 0) k->descending = false;
        }
        k->last_bounded = n;
    }
    return 0;
}

/* ---- finishing (any thread) ----------------------------------------------- */

/* With workers, the first data page of a new chunk (one whose buffer has
 * never held pages): room for as many bytes as the column's largest chunk
 * so far had, at once. The second chunk of each column starts before the
 * first is written, so it cannot take the first one's buffer
 * (inl_column_pop does that only without workers, where it always
 * applies: room taken here too would keep a second chunk's worth); it
 * would otherwise double its way up as the first did, each step a copy
 * (and page faults) of what it holds. A chunk reused keeps the room it
 * grew to: grown to another's at its first page, it would allocate after a
 * host's warm-up whenever a column's largest chunk grew, even for a small
 * chunk of its own. */
static int first_room(column *c, chunk *k, const column_env *e)
{
    if (!e->submit || k->pages.cap || k->pages.len || !c->pages_seen) return 0;
    return inl_buf_grow_empty(&k->pages, A(e), c->pages_seen + c->pages_seen / 16) ? INLAY_ERR_NOMEM : 0;
}

/* A page: statistics, encoding, compression, written into its chunk. */
static int finish_page(page_job *j, const column_env *e, page_work *pw)
{
    column *c = j->c;
    chunk *k = j->k;
    const inlay_allocator *a = A(e);

    /* Dictionary indices first: their encoder counts each entry's uses as
     * it goes, which the page's statistics then read (on the appending
     * thread; a worker's page has its statistics already). */
    bool counted = false;
    if (j->use_dict) {
        uint32_t *uses = NULL;
        if (j->live && c->statistics && c->leaf->order != ORDER_NONE && j->values &&
            dict_count(c) <= j->values) {
            if (!(uses = entry_counts(c, e))) return INLAY_ERR_NOMEM;
            counted = true;
        }
        uint8_t wb = (uint8_t)j->index_width;
        pw->encoded.len = 0;
        if (inl_buf_append(&pw->encoded, a, &wb, 1) ||
            inl_rle_encode_u32_counting(&pw->encoded, a, (const uint32_t *)job_vals(j), j->values, wb, uses))
            return INLAY_ERR_NOMEM;
    }
    /* Other values too: a DELTA encoder finds their bounds in its pass. */
    const uint8_t *values = NULL;
    size_t values_len = 0;
    int64_t bounds[2];
    bool bounded = false;
    if (!j->use_dict) {
        bounded = c->value_encoding == ENC_DELTA_BINARY_PACKED && j->values > 0;
        INL_FORWARD(encode_values(c, pw, a, job_vals(j), j->vals->len - j->vals_off, j->values, &pw->encoded,
                                  &values, &values_len, bounded ? bounds : NULL));
    }

    /* statistics: in the header, then (in turn, below) folded into the
     * chunk's and in the index */
    stats_wire wire, *ws = NULL;
    stats_bounds b;   /* numeric bounds live in it until the page is written */
    int64_t *hist = NULL;
    if (c->statistics) {
        INL_FORWARD(page_stats(j, e, pw, counted, bounded ? bounds : NULL));
        memset(&wire, 0, sizeof wire);
        wire.null_count = (int64_t)j->pst.null_count;
        if (inl_stats_bounds_of(&j->pst, c->type->physical, &b)) {
            if (c->type->physical == INLAY_BYTE_ARRAY && c->leaf->order == ORDER_BYTES &&
                inl_stats_truncate(&b, e->truncate_length, inl_type_is_utf8(c->type), &pw->trunc, a))
                return INLAY_ERR_NOMEM;
            wire.has_bounds = true;
            wire.min = b.min;
            wire.max = b.max;
            wire.min_len = b.min_len;
            wire.max_len = b.max_len;
            wire.min_exact = b.min_exact;
            wire.max_exact = b.max_exact;
        }
        ws = &wire;
        if (c->nhist) {
            j->hist.len = 0;
            if (inl_buf_reserve(&j->hist, a, c->nhist * sizeof *hist)) return INLAY_ERR_NOMEM;
            hist = (int64_t *)j->hist.data;
            memset(hist, 0, c->nhist * sizeof *hist);
            page_histograms(j, hist);
        }
    }
    const bool v2 = e->page_version == 2;
    page_desc d;
    memset(&d, 0, sizeof d);
    d.type = v2 ? PAGE_DATA_V2 : PAGE_DATA;
    d.num_values = (int32_t)j->entries;
    d.num_nulls = (int32_t)(j->entries - j->values);
    d.num_rows = (int32_t)j->rows;

    pw->levels.len = 0;
    if (c->leaf->max_rep > 0 &&
        put_levels(&pw->levels, a, j->reps, j->entries, c->leaf->max_rep, !v2, &d.rep_bytes))
        return INLAY_ERR_NOMEM;
    if (c->leaf->max_def > 0 &&
        put_levels(&pw->levels, a, j->defs, j->entries, c->leaf->max_def, !v2, &d.def_bytes))
        return INLAY_ERR_NOMEM;
    if (pw->levels.len) {
        d.parts[d.nparts] = pw->levels.data;
        d.lens[d.nparts++] = pw->levels.len;
    }
    d.nprefix = d.nparts;

    if (j->use_dict) {
        d.encoding = ENC_RLE_DICTIONARY;
        values = pw->encoded.data;
        values_len = pw->encoded.len;
    } else {
        d.encoding = c->value_encoding;
    }
    d.parts[d.nparts] = values;
    d.lens[d.nparts++] = values_len;
    d.stats = ws;
    d.checksum = e->checksum;

    /* Straight into the chunk, or, while an earlier page of the column is
     * still being finished, aside until that one is in. The codec is
     * settled either way: a page that decides it never starts beside a
     * later page of its chunk. */
    buf *dst = j->in_place ? &k->pages : &pw->out;
    if (!j->in_place) pw->out.len = 0;
    else INL_FORWARD(first_room(c, k, e));
    size_t raw, stored;
    const size_t page_start = dst->len;
    INL_FORWARD(inl_page_write(dst, a, chunk_comp(c, pw, k), &pw->scratch, &d, e->min_gain, &raw, &stored));
    if (!k->codec_decided) {
        k->codec_decided = true;
        /* A dictionary-encoded page is mostly bit-packed indices, which no
         * codec shrinks much; the dictionary page that will back it (its
         * values so far) counts too, or a large dictionary of text would go
         * out uncompressed for the sake of its indices. */
        double raw_all = (double)raw, stored_all = (double)stored;
        if (j->use_dict) {
            int st;
            size_t packed = compressed_size(&pw->comps[c->comp_id], pw, a, j->dict, j->dict_len, &st);
            if (st) return st;
            raw_all += (double)j->dict_len;
            stored_all += (double)packed;
        }
        if (stored_all > raw_all * (1.0 - e->min_gain)) {   /* the codec does not pay: not here, not later */
            k->codec = INLAY_UNCOMPRESSED;
            dst->len = page_start;
            INL_FORWARD(inl_page_write(dst, a, &pw->none, &pw->scratch, &d, 0, &raw, &stored));
        }
    }

    /* in turn: the chunk's own */
    size_t offset = page_start;
    if (!j->in_place) {
        INL_FORWARD(e->await_turn(e->submit_ctx, j));
        INL_FORWARD(first_room(c, k, e));
        offset = k->pages.len;
        if (inl_buf_append(&k->pages, a, pw->out.data, pw->out.len)) return INLAY_ERR_NOMEM;
    }
    /* in turn: a later chunk's first page reads it only after this one is in */
    if (k->pages.len > c->pages_seen) c->pages_seen = k->pages.len;
    if (ws) {
        if (inl_stats_merge(&k->st, &j->pst, c->is_bytes, a)) return INLAY_ERR_NOMEM;
        k->unencoded_bytes += (int64_t)j->ba_bytes;
        if (hist) {
            int64_t *total = (int64_t *)k->hist.data;
            for (size_t i = 0; i < c->nhist; i++) total[i] += hist[i];
        }
    }
    if (e->page_index)
        INL_FORWARD(index_page(j, e, offset, stored, ws, ws && c->nhist ? hist : NULL));
    k->raw_size += raw;
    k->stored_size += stored;
    k->num_values += j->entries;
    k->page_counts[d.encoding]++;
    return 0;
}

static int write_dictionary(const page_job *j, const column_env *e, page_work *pw)
{
    chunk *k = j->k;
    page_desc d;
    memset(&d, 0, sizeof d);
    d.type = PAGE_DICTIONARY;
    d.encoding = ENC_PLAIN;
    d.num_values = (int32_t)j->dict_entries;
    d.checksum = e->checksum;
    d.nparts = 1;
    d.parts[0] = j->dict;
    d.lens[0] = j->dict_len;
    size_t raw, stored;
    k->dict.len = 0;
    INL_FORWARD(inl_page_write(&k->dict, A(e), chunk_comp(j->c, pw, k), &pw->scratch, &d, 0, &raw, &stored));
    k->raw_size += raw;
    k->stored_size += stored;
    k->dict_entries = j->dict_entries;
    return 0;
}

/* The chunk's bloom filter from its values' hashes, sized for the
 * distinct values asked for or, by default, for as many as it has hashes. */
static int make_bloom(column *c, const column_env *e, chunk *k)
{
    const size_t n = k->hashes.len / 8;
    const size_t nbytes = inl_bloom_bytes_for(c->bloom_ndv ? c->bloom_ndv : n, c->bloom_fpp, INLAY_BLOOM_MAX_BYTES);
    if (inl_bloom_reset(&c->filter, A(e), nbytes)) return INLAY_ERR_NOMEM;
    inl_bloom_insert_many(&c->filter, (const uint64_t *)k->hashes.data, n);
    k->bloom.len = 0;
    if (inl_meta_bloom_header(&k->bloom, A(e), (uint32_t)nbytes) ||
        inl_buf_append(&k->bloom, A(e), c->filter.bits, nbytes))
        return INLAY_ERR_NOMEM;
    return 0;
}

static int finish(page_job *j, const column_env *e, page_work *pw)
{
    if (!j->seal) return finish_page(j, e, pw);
    if (j->has_dict) INL_FORWARD(write_dictionary(j, e, pw));
    if (j->c->bloom_on) INL_FORWARD(make_bloom(j->c, e, j->k));
    return 0;
}

int inl_column_finish(page_job *j, const column_env *e, page_work *pw)
{
    const int st = finish(j, e, pw);
    if (j->own_dict.cap > DICT_COPY_KEEP) inl_buf_free(&j->own_dict, A(e));
    return st;
}

/* ---- cutting (the appending thread) --------------------------------------- */

/* A job for work that leaves the appending thread, or the column's own. */
static page_job *new_job(column *c, column_env *e, bool seal)
{
    page_job *j = e->submit ? e->take_job(e->submit_ctx, c->index) : &c->own_job;
    if (!j) return NULL;
    j->c = c;
    j->k = open_chunk(c);
    j->seal = seal;
    j->decides = false;
    j->in_place = true;   /* the workers' schedule says otherwise */
    j->live = !e->submit;
    j->stats_done = false;
    j->has_dict = false;
    j->dict = NULL;
    j->dict_len = 0;
    j->dict_entries = 0;
    j->pst.order = c->leaf->order;
    j->own_dict.len = 0;
    if (!j->live && j->own_dict.cap < c->dict_copy_room && inl_buf_reserve(&j->own_dict, A(e), c->dict_copy_room))
        return NULL;
    return j;
}

/* The dictionary so far into a job: the column's memo itself when the job
 * is finished here, else a copy (the memo goes on growing). */
static int job_dictionary(page_job *j, column *c, const column_env *e)
{
    j->has_dict = true;
    j->dict_entries = (uint32_t)c->dict_refs;
    j->dict_len = dict_refs_bytes(c);
    if (j->live) {
        j->dict = dict_data(c);
        return 0;
    }
    /* small dictionaries: room for twice the size, in this job and (as they
     * come round, new_job) the column's others, since which job carries a
     * dictionary shifts from row group to row group */
    if (2 * j->dict_len > c->dict_copy_room && 2 * j->dict_len <= DICT_COPY_KEEP) c->dict_copy_room = 2 * j->dict_len;
    const size_t room = j->dict_len > c->dict_copy_room ? j->dict_len : c->dict_copy_room;
    j->own_dict.len = 0;
    if (j->own_dict.cap < j->dict_len && inl_buf_reserve(&j->own_dict, A(e), room)) return INLAY_ERR_NOMEM;
    if (inl_buf_append(&j->own_dict, A(e), dict_data(c), j->dict_len)) return INLAY_ERR_NOMEM;
    j->dict = j->own_dict.data;
    return 0;
}

/* End the page being filled: the cheap, order-dependent part here (the
 * dictionary decision, the page's cut), the rest in inl_column_finish,
 * here or on a worker. */
static int flush_page(column *c, column_env *e)
{
    if (c->page_entries == 0) return 0;
    int st;
    if (c->use_dict && (st = dictionary_pays(c, e))) return st;
    chunk *k = open_chunk(c);
    page_job *j = new_job(c, e, false);
    if (!j) return INLAY_ERR_NOMEM;
    j->entries = c->page_entries;
    j->rows = c->page_rows;
    j->values = c->page_values;
    j->first_row = k->num_rows - c->page_rows;
    j->use_dict = c->use_dict;
    j->index_width = c->use_dict ? index_bit_width(c) : 0;
    j->decides = c->chunk_pages == 0 && codec_checked(c, e);
    j->ba_bytes = c->type->physical == INLAY_BYTE_ARRAY && !c->use_dict ? c->vals.len - 4 * c->page_values : 0;
    const bool first = c->chunk_pages == 0;
    const bool staged_left = c->stage_pos < c->stage_n;
    k->cut_bytes += page_size_estimate(c);
    if (c->use_dict) c->dict_used = true;
    c->chunk_pages++;
    if (j->live) {
        j->defs = &c->defs;
        j->reps = &c->reps;
        j->vals = &c->vals;
        j->vals_off = c->page_off;
        if (c->use_dict && first && !k->codec_decided) INL_FORWARD(job_dictionary(j, c, e));
        INL_FORWARD(inl_column_finish(j, e, &e->work));
        c->defs.len = c->reps.len = 0;
    } else {
        /* the page leaves with its buffers; the job's spares replace them */
        if (c->use_dict && c->statistics) {
            inl_stats_reset(&j->pst);
            j->pst.null_count = c->page_entries - c->page_values;
            if (c->page_values && c->leaf->order != ORDER_NONE &&
                (st = dict_page_stats(c, e, &e->work.trial, &j->pst, page_indices(c), c->page_values, false,
                                      &j->ba_bytes)))
                return st;
            j->stats_done = true;
        }
        if (c->use_dict && first && codec_checked(c, e))
            INL_FORWARD(job_dictionary(j, c, e));
        j->defs = &j->own_defs;
        j->reps = &j->own_reps;
        j->vals = &j->own_vals;
        /* the spares grown to the room the page had, so that the column's
         * buffers, taking turns, stop growing as soon as one has */
        buf t = c->defs;
        c->defs = j->own_defs;
        j->own_defs = t;
        t = c->reps;
        c->reps = j->own_reps;
        j->own_reps = t;
        c->defs.len = c->reps.len = 0;
        if (inl_buf_grow_empty(&c->defs, A(e), j->own_defs.cap) || inl_buf_grow_empty(&c->reps, A(e), j->own_reps.cap))
            return INLAY_ERR_NOMEM;
        if (staged_left) {   /* indices staged past the page stay: the page's are copied out */
            j->own_vals.len = 0;
            j->vals_off = 0;
            if (inl_buf_append(&j->own_vals, A(e), vals_at(c, c->page_off), c->vals.len - c->page_off))
                return INLAY_ERR_NOMEM;
        } else {
            t = c->vals;
            c->vals = j->own_vals;
            j->own_vals = t;
            j->vals_off = c->page_off;
            c->vals.len = c->page_off = 0;
            if (inl_buf_grow_empty(&c->vals, A(e), j->own_vals.cap)) return INLAY_ERR_NOMEM;
        }
        e->submit(e->submit_ctx, j);
    }
    /* staged indices not yet taken lie past the page's: the next page
     * starts where this one ends, rather than their being moved */
    if (staged_left) c->page_off = c->vals.len;
    else c->vals.len = c->page_off = 0;
    c->page_entries = c->page_rows = c->page_values = c->page_plain_bytes = 0;
    c->dict_check = 0;
    return 0;
}

int inl_column_seal(column *c, column_env *e)
{
    INL_FORWARD(flush_page(c, e));
    page_job *j = NULL;
    if (c->dict_used || c->bloom_on) {
        if (!(j = new_job(c, e, true))) return INLAY_ERR_NOMEM;
        if (c->dict_used) INL_FORWARD(job_dictionary(j, c, e));
    }
    INL_FORWARD(grow_chunks(c, e, c->nsealed + 2));
    if (j) {
        if (j->live) INL_FORWARD(inl_column_finish(j, e, &e->work));
        else e->submit(e->submit_ctx, j);
    }
    c->nsealed++;
    INL_FORWARD(start_chunk(c, e, open_chunk(c)));
    if (c->is_bytes) inl_memo_bytes_reset(&c->memo_bytes);
    else inl_memo_fixed_reset(&c->memo_fixed);
    c->stamps.len = c->counts.len = 0;
    c->dict_refs = c->dict_check = c->dict_gap = c->dict_gap_refs = 0;
    c->stage_n = c->stage_pos = 0;
    c->vals.len = c->page_off = 0;
    c->use_dict = c->dict_allowed;
    c->dict_used = false;
    c->dict_decided = false;
    expect_first_page(c, e);
    return 0;
}

/* The room of a written chunk's buffer, grown to a whole chunk's size and
 * touched, to the open chunk in place of a smaller one (its bytes so far
 * copied): without it a writer keeps one more chunk's worth of memory in
 * use than it needs, the first touch of which costs more here than the
 * copy. */
static void take_room(buf *open, buf *done)
{
    if (done->cap <= open->cap || open->len > done->cap) return;
    if (open->len) memcpy(done->data, open->data, open->len);
    done->len = open->len;
    const buf t = *open;
    *open = *done;
    *done = t;
    done->len = 0;
}

void inl_column_pop(column *c, bool open_idle)
{
    chunk *done = c->chunks[0];
    memmove(&c->chunks[0], &c->chunks[1], (size_t)(c->nchunks - 1) * sizeof *c->chunks);
    c->chunks[c->nchunks - 1] = done;   /* a spare, buffers kept */
    c->nsealed--;
    if (open_idle) {
        chunk *k = open_chunk(c);
        take_room(&k->pages, &done->pages);
        take_room(&k->hashes, &done->hashes);
    }
}

static int hash_values(column *c, column_env *e, const void *values, size_t from, size_t n)
{
    chunk *k = open_chunk(c);
    if (inl_buf_reserve(&k->hashes, A(e), n * 8)) return INLAY_ERR_NOMEM;
    uint64_t *out = (uint64_t *)(k->hashes.data + k->hashes.len);
    if (values) {
        if (c->is_bytes) inl_bloom_hash_bytes(values, n, out);
        else inl_bloom_hash_fixed(values, n, c->width, out);
    } else if (!c->is_bytes) {
        inl_bloom_hash_fixed(c->memo_fixed.values.data + from * c->width, n, c->width, out);
    } else {
        for (size_t i = 0; i < n; i++) {
            size_t len;
            const uint8_t *v = inl_memo_bytes_value(&c->memo_bytes, from + i, &len);
            out[i] = inl_bloom_hash(v, len);
        }
    }
    k->hashes.len += n * 8;
    return 0;
}

static int put_values(column *c, column_env *e, const void *values, size_t n)
{
    if (!n) return 0;
    if (c->use_dict) {
        size_t taken = 0, refs = c->dict_refs;
        if (c->stage_pos < c->stage_n) {   /* staged right where they go: past the page's indices */
            taken = c->stage_n - c->stage_pos < n ? c->stage_n - c->stage_pos : n;
            /* the entries they use: staged ones past them may belong to later pages */
            const uint32_t *s = (const uint32_t *)(c->vals.data + c->vals.len);
            uint32_t top = 0;
            for (size_t i = 0; i < taken; i++) top = s[i] > top ? s[i] : top;
            if ((size_t)top + 1 > refs) refs = (size_t)top + 1;
            c->stage_pos += taken;
        }
        if (inl_buf_reserve(&c->vals, A(e), n * 4)) return INLAY_ERR_NOMEM;
        uint32_t *idx = (uint32_t *)(c->vals.data + c->vals.len);
        if (taken < n) {   /* the stage is used up: every entry in the memo is used */
            const uint8_t *rest = (const uint8_t *)values + taken * c->value_size;
            int r = c->is_bytes ? inl_memo_bytes_insert_many(&c->memo_bytes, (const inlay_bytes *)rest, n - taken, idx + taken)
                                : inl_memo_fixed_insert_many(&c->memo_fixed, rest, n - taken, idx + taken);
            if (r) return INLAY_ERR_NOMEM;
            refs = dict_count(c);
        }
        /* each entry hashed once, when first used */
        if (c->bloom_on && refs > c->dict_refs)
            INL_FORWARD(hash_values(c, e, NULL, c->dict_refs, refs - c->dict_refs));
        c->dict_refs = refs;
        c->vals.len += n * 4;
        if (decision_pending(c))
            c->page_plain_bytes += c->type->physical == INLAY_BYTE_ARRAY ? inl_plain_bytes_size(values, n)
                                                                         : n * c->width;
        return 0;
    }
    c->stage_pos = c->stage_n;   /* a dictionary given up: staged indices are not wanted */
    int r = 0;
    /* Made in place (inl_column_value_room): the values lie inside this
     * buffer's own room, where no caller's memory can be. Equality alone
     * would not do: a caller's block may begin where a full buffer ends. */
    if (values && values == vals_at(c, c->vals.len) && n * c->width <= c->vals.cap - c->vals.len &&
        c->width == c->value_size && !c->is_bytes)
        c->vals.len += n * c->width;
    else if (c->type->physical == INLAY_BYTE_ARRAY) r = inl_plain_put_bytes(&c->vals, A(e), values, n);
    else if (c->type->physical == INLAY_FIXED_LEN_BYTE_ARRAY) r = inl_plain_put_flba(&c->vals, A(e), values, n, c->width);
    else r = inl_plain_put_fixed(&c->vals, A(e), values, n, c->width);
    if (r) return INLAY_ERR_NOMEM;
    return c->bloom_on ? hash_values(c, e, values, 0, n) : 0;
}

static int put_levels_raw(buf *b, const inlay_allocator *a, const int16_t *src, size_t n, int16_t fill)
{
    if (inl_buf_reserve(b, a, n * 2)) return INLAY_ERR_NOMEM;
    uint16_t *dst = (uint16_t *)(b->data + b->len);
    if (src) memcpy(dst, src, n * 2);
    else for (size_t i = 0; i < n; i++) dst[i] = (uint16_t)fill;
    b->len += n * 2;
    return 0;
}

/* How many entries from e0 the next slice takes: it ends where a row ends,
 * and within the page, chunk and byte budgets. *rows gets its row count. */
static size_t slice_end(const column *c, const column_env *e, const void *values, size_t v0,
                        size_t count, size_t e0, const int16_t *def, const int16_t *rep,
                        size_t *rows)
{
    const chunk *k = c->chunks[c->nsealed];
    size_t room = e->page_rows - c->page_rows;
    size_t chunk_room = e->row_group_rows - (size_t)k->num_rows;
    if (chunk_room < room) room = chunk_room;
    if (room == 0) room = 1;
    if (c->use_dict) {
        /* up to the page's next check (see dict_next_check); staged values
         * need no lookup: a slice takes none past them */
        size_t cap = c->dict_check > c->page_rows ? c->dict_check - c->page_rows : 1;
        if (c->stage_pos < c->stage_n && c->stage_n - c->stage_pos < cap) cap = c->stage_n - c->stage_pos;
        if (room > cap) room = cap;
    }
    /* PLAIN pages, and pages that may still become so, are cut by their bytes */
    const bool by_bytes = !c->use_dict || decision_pending(c);
    const size_t have_bytes = c->use_dict ? c->page_plain_bytes : c->vals.len;
    if (by_bytes && c->width && c->type->physical != INLAY_BOOLEAN) {
        size_t fit = have_bytes < e->page_bytes ? (e->page_bytes - have_bytes) / c->width : 0;
        if (fit < room) room = fit ? fit : 1;
    } else if (by_bytes && c->type->physical == INLAY_BOOLEAN) {   /* bit-packed: 8 a byte */
        const size_t most = e->page_bytes * 8;
        const size_t fit = c->page_values < most ? most - c->page_values : 0;
        if (fit < room) room = fit ? fit : 1;
    }
    size_t end;
    if (!rep) {
        end = count - e0 < room ? count : e0 + room;
        *rows = end - e0;
    } else {
        size_t r = 0;
        end = e0;
        while (end < count) {
            if (rep[end] == 0) {
                if (r == room) break;
                r++;
            }
            end++;
        }
        *rows = r;
    }
    /* Plain byte arrays: stop when the page's bytes are full (flat columns). */
    if (by_bytes && c->type->physical == INLAY_BYTE_ARRAY && !rep) {
        const inlay_bytes *v = values;
        size_t have = have_bytes, vi = v0;
        for (size_t i = e0; i < end; i++) {
            if (def && def[i] != c->leaf->max_def) continue;
            have += 4 + v[vi++].len;
            if (have >= e->page_bytes) {
                end = i + 1;
                *rows = end - e0;
                break;
            }
        }
    }
    return end;
}

/* ---- values made in place ---------------------------------------------- */

void *inl_column_value_room(column *c, column_env *e, size_t count, size_t nvalues, const int16_t *rep)
{
    if (c->use_dict || c->is_bytes || c->type->physical == INLAY_BOOLEAN || c->width != c->value_size ||
        rep || !nvalues)
        return NULL;
    /* one slice (slice_end): the page and chunk take the whole batch */
    const chunk *k = c->chunks[c->nsealed];
    size_t room = e->page_rows > c->page_rows ? e->page_rows - c->page_rows : 0;
    const size_t chunk_room = e->row_group_rows > k->num_rows ? (size_t)(e->row_group_rows - k->num_rows) : 0;
    if (chunk_room < room) room = chunk_room;
    const size_t fit = c->vals.len < e->page_bytes ? (e->page_bytes - c->vals.len) / c->width : 0;
    if (fit < room) room = fit;
    if (count > room) return NULL;
    if (inl_buf_reserve(&c->vals, A(e), nvalues * c->width)) return NULL;
    return c->vals.data + c->vals.len;
}

/* ---- staging ----------------------------------------------------------- */

size_t inl_column_stageable(const column *c, const column_env *e, size_t count, size_t nvalues,
                            const int16_t *def, const int16_t *rep)
{
    if (!c->use_dict || c->type->physical != INLAY_BYTE_ARRAY || decision_pending(c) || rep || !nvalues)
        return 0;
    const uint64_t rows = c->chunks[c->nsealed]->num_rows;
    const size_t room = rows < e->row_group_rows ? (size_t)(e->row_group_rows - rows) : 0;
    if (count <= room) return nvalues;
    if (!def) return room;
    size_t v = 0;
    for (size_t i = 0; i < room; i++) v += def[i] == c->leaf->max_def;
    return v;
}

void inl_column_stage_begin(column *c)
{
    c->stage_n = c->stage_pos = 0;
    c->stage_count0 = c->memo_bytes.count;
    if (c->page_off) {   /* the page's indices to the front, the stage to follow them */
        memmove(c->vals.data, c->vals.data + c->page_off, c->vals.len - c->page_off);
        c->vals.len -= c->page_off;
        c->page_off = 0;
    }
}

const uint32_t *inl_column_staged(const column *c)
{
    return (const uint32_t *)vals_at(c, c->vals.len);
}

bool inl_column_stage_full(const column *c, const column_env *e)
{
    return dict_bytes(c) > e->dictionary_bytes || dict_count(c) > INT32_MAX / 2;
}

/* The dictionary the appended values use has passed its limit. */
static bool dict_over_limit(const column *c, const column_env *e)
{
    return dict_refs_bytes(c) > e->dictionary_bytes || c->dict_refs > INT32_MAX / 2;
}

/* Dictionary mode: the page row count of the next check of the dictionary
 * limit and of the page's bytes, from the page and dictionary as they are
 * (at a check, or at the page's start): the next multiple of DICT_SLICE,
 * or sooner, about where the dictionary may pass its limit (each row a new
 * entry of the entries' mean size, but DICT_MIN_CHECK rows at least, more
 * while no entries come) or the page reach its byte limit at the present
 * index width (a page still deciding whether its dictionary pays is cut by
 * its PLAIN bytes instead: slice_end, page_full). */
static size_t dict_next_check(column *c, const column_env *e)
{
    size_t next = (c->page_rows / DICT_SLICE + 1) * DICT_SLICE;
    const size_t have = dict_refs_bytes(c);
    size_t mean = c->is_bytes ? (c->dict_refs ? (have + c->dict_refs - 1) / c->dict_refs : 1) : c->width;
    if (mean == 0) mean = 1;
    size_t rows = have < e->dictionary_bytes ? (e->dictionary_bytes - have) / mean + 1 : 1;
    c->dict_gap = c->dict_gap && c->dict_refs == c->dict_gap_refs ? 2 * c->dict_gap : DICT_MIN_CHECK;
    if (c->dict_gap > DICT_SLICE) c->dict_gap = DICT_SLICE;
    c->dict_gap_refs = c->dict_refs;
    if (rows < c->dict_gap) rows = c->dict_gap;
    if (rows < next - c->page_rows) next = c->page_rows + rows;
    if (decision_pending(c)) return next;
    const size_t est = page_size_estimate(c);
    const size_t bits = (size_t)index_bit_width(c) + (size_t)inl_rle_bit_width((uint64_t)c->leaf->max_def) +
                        (size_t)inl_rle_bit_width((uint64_t)c->leaf->max_rep);
    size_t fill = est < e->page_bytes ? ((e->page_bytes - est) * 8 + bits - 1) / bits : 1;
    if (fill == 0) fill = 1;
    if (fill < next - c->page_rows) next = c->page_rows + fill;
    return next;
}

int inl_column_stage(column *c, column_env *e, const inlay_bytes *v, size_t n)
{
    if (inl_buf_reserve(&c->vals, A(e), (c->stage_n + n) * 4)) return INLAY_ERR_NOMEM;
    uint32_t *idx = (uint32_t *)(c->vals.data + c->vals.len) + c->stage_n;
    const size_t before = c->memo_bytes.count;
    int r = inl_memo_bytes_insert_many(&c->memo_bytes, v, n, idx);
    if (r) {
        inl_memo_bytes_truncate(&c->memo_bytes, before);
        return r == -2 ? INLAY_ERR_VALUE : INLAY_ERR_NOMEM;
    }
    c->stage_n += n;
    return 0;
}

void inl_column_unstage(column *c)
{
    inl_memo_bytes_truncate(&c->memo_bytes, c->stage_count0);
    c->stage_n = c->stage_pos = 0;
}

int inl_column_append(column *c, column_env *e, const void *values, size_t count,
                  const int16_t *def, const int16_t *rep)
{
    const int16_t max_def = c->leaf->max_def;
    const size_t vsize = c->value_size;
    const uint8_t *vbase = values;
    size_t e0 = 0, v0 = 0;
    int st;
    while (e0 < count) {
        size_t rows;
        if (c->use_dict && c->page_rows >= c->dict_check) c->dict_check = dict_next_check(c, e);
        size_t e1 = slice_end(c, e, values, v0, count, e0, def, rep, &rows);
        size_t n = e1 - e0, nv = n;
        if (def) {
            nv = 0;
            for (size_t i = e0; i < e1; i++) nv += def[i] == max_def;
        }
        chunk *k = open_chunk(c);
        if (max_def > 0 && (st = put_levels_raw(&c->defs, A(e), def ? def + e0 : NULL, n, max_def)))
            return st;
        if (c->leaf->max_rep > 0 && (st = put_levels_raw(&c->reps, A(e), rep ? rep + e0 : NULL, n, 0)))
            return st;
        INL_FORWARD(put_values(c, e, nv ? vbase + v0 * vsize : vbase, nv));   /* no values may come as NULL */
        c->page_entries += n;
        c->page_values += nv;
        c->page_rows += rows;
        k->num_rows += rows;
        c->rows += rows;
        e0 = e1;
        v0 += nv;

        /* Where a page ends and the dictionary is given up depends on the
         * page's values alone: in dictionary mode its bytes and the limit
         * are looked at in its checks only (a page still deciding whether
         * its dictionary pays is sliced at its PLAIN byte limit). */
        const bool check = c->use_dict && c->page_rows >= c->dict_check;
        bool cut = false;
        const bool full = check && !decision_pending(c) ? page_size_estimate(c) >= e->page_bytes : page_full(c, e);
        if (c->page_rows >= e->page_rows || full) {
            INL_FORWARD(flush_page(c, e));
            cut = true;
        }
        /* indices are 32-bit; keep well inside them */
        if (c->use_dict && (check || cut) && dict_over_limit(c, e)) {
            INL_FORWARD(flush_page(c, e));
            c->use_dict = false;
            if (c->stage_pos < c->stage_n) {
                /* the staged indices are not wanted: the values still to
                 * come go PLAIN, from the caller's array, and their entries
                 * past dict_refs leave the dictionary (truncated below) */
                c->stage_pos = c->stage_n;
                c->vals.len = c->page_off = 0;
            }
            if (c->is_bytes) inl_memo_bytes_truncate(&c->memo_bytes, c->dict_refs);
        }
        if (k->num_rows >= e->row_group_rows && (st = inl_column_seal(c, e))) return st;
    }
    return 0;
}
