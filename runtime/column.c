/*
 * column.c — column buffers, pages and chunks (see column.h).
 */
#include "column.h"

#include "plain.h"
#include "rle.h"

/* In dictionary mode a batch is taken in slices of this many entries, so
 * the dictionary limit is checked often enough. */
#define DICT_SLICE 4096

static const inlay_allocator *A(column_env *e) { return &e->alloc; }

static size_t physical_width(const inlay_type *t)
{
    switch (t->physical) {
    case INLAY_BOOLEAN: return 1;
    case INLAY_INT32: case INLAY_FLOAT: return 4;
    case INLAY_INT64: case INLAY_DOUBLE: return 8;
    case INLAY_FIXED_LEN_BYTE_ARRAY: return (size_t)t->type_length;
    default: return 0;
    }
}

static bool is_bytes(const column *c)
{
    return c->type->physical == INLAY_BYTE_ARRAY || c->type->physical == INLAY_FIXED_LEN_BYTE_ARRAY;
}

static int grow_chunks(column *c, column_env *e, int need)
{
    if (need <= c->nchunks) return 0;
    chunk *n = mem_realloc(A(e), c->chunks, (size_t)c->nchunks * sizeof *n, (size_t)need * sizeof *n);
    if (!n) return INLAY_ERR_NOMEM;
    for (int i = c->nchunks; i < need; i++) {
        memset(&n[i], 0, sizeof n[i]);
        n[i].st.order = c->leaf->order;
    }
    c->chunks = n;
    c->nchunks = need;
    return 0;
}

int column_init(column *c, column_env *e, const inlay_schema *s, int leaf)
{
    memset(c, 0, sizeof *c);
    c->leaf = &s->leaves[leaf];
    const schema_node *node = &s->nodes[c->leaf->node];
    c->type = &node->type;
    c->path = c->leaf->path;
    c->width = physical_width(c->type);
    c->statistics = node->opts.statistics;
    c->dict_allowed = c->type->physical != INLAY_BOOLEAN && node->opts.encoding != INLAY_ENCODING_PLAIN;
    c->cost_check = node->opts.encoding == INLAY_ENCODING_AUTO;
    c->use_dict = c->dict_allowed;
    if (is_bytes(c))
        memo_bytes_init(&c->memo_bytes, A(e),
                        c->type->physical == INLAY_FIXED_LEN_BYTE_ARRAY ? c->width : 0);
    else
        memo_fixed_init(&c->memo_fixed, A(e), c->width);
    return grow_chunks(c, e, 2);
}

void column_free(column *c, column_env *e)
{
    memo_fixed_free(&c->memo_fixed);
    memo_bytes_free(&c->memo_bytes);
    buf_free(&c->defs, A(e));
    buf_free(&c->reps, A(e));
    buf_free(&c->vals, A(e));
    buf_free(&c->validity_defs, A(e));
    buf_free(&c->validity_vals, A(e));
    for (int i = 0; i < c->nchunks; i++) {
        buf_free(&c->chunks[i].dict, A(e));
        buf_free(&c->chunks[i].pages, A(e));
        stats_free(&c->chunks[i].st, A(e));
    }
    mem_free(A(e), c->chunks, (size_t)c->nchunks * sizeof *c->chunks);
    c->chunks = NULL;
    c->nchunks = 0;
}

static chunk *open_chunk(column *c) { return &c->chunks[c->nsealed]; }

static size_t dict_bytes(const column *c)
{
    return is_bytes(c) ? memo_bytes_bytes(&c->memo_bytes) : memo_fixed_bytes(&c->memo_fixed);
}

static size_t dict_count(const column *c)
{
    return is_bytes(c) ? c->memo_bytes.count : c->memo_fixed.count;
}

static int index_bit_width(const column *c)
{
    size_t n = dict_count(c);
    int w = rle_bit_width(n ? n - 1 : 0);
    return w ? w : 1;
}

/* Bytes the current page would take, roughly, before compression. */
static size_t page_size_estimate(const column *c)
{
    size_t levels = c->page_entries * (size_t)(rle_bit_width((uint64_t)c->leaf->max_def) +
                                                rle_bit_width((uint64_t)c->leaf->max_rep)) / 8;
    if (c->use_dict) return levels + c->page_values * (size_t)index_bit_width(c) / 8;
    if (c->type->physical == INLAY_BOOLEAN) return levels + c->page_values / 8;
    return levels + c->vals.len;
}

size_t column_buffered_bytes(const column *c)
{
    const chunk *k = &c->chunks[c->nsealed];
    return k->pages.len + page_size_estimate(c) + (c->use_dict || c->dict_used ? dict_bytes(c) : 0);
}

/* ---- pages ------------------------------------------------------------ */

static int put_levels(buf *out, const inlay_allocator *a, const buf *levels, size_t n, int16_t max)
{
    size_t at = out->len;
    if (buf_reserve(out, a, 4)) return INLAY_ERR_NOMEM;
    out->len += 4;
    if (rle_encode_u16(out, a, (const uint16_t *)levels->data, n, rle_bit_width((uint64_t)max)))
        return INLAY_ERR_NOMEM;
    put_u32le(out->data + at, (uint32_t)(out->len - at - 4));
    return 0;
}

/* The page's values PLAIN-encoded from their dictionary indices, into out. */
static int materialize_plain(column *c, column_env *e, buf *out)
{
    const uint32_t *idx = (const uint32_t *)c->vals.data;
    const size_t n = c->page_values;
    out->len = 0;
    if (!is_bytes(c)) {
        if (buf_reserve(out, A(e), n * c->width)) return INLAY_ERR_NOMEM;
        const uint8_t *dict = c->memo_fixed.values.data;
        for (size_t i = 0; i < n; i++) memcpy(out->data + i * c->width, dict + idx[i] * c->width, c->width);
        out->len = n * c->width;
        return 0;
    }
    const size_t prefix = c->memo_bytes.fixed_width ? 0 : 4;
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const uint8_t *v = memo_bytes_value(&c->memo_bytes, idx[i], &len);
        if (buf_append(out, A(e), v - prefix, prefix + len)) return INLAY_ERR_NOMEM;
    }
    return 0;
}

/* Before the first dictionary page of a chunk is committed: keep the
 * dictionary only if dictionary + indices would be smaller than PLAIN
 * (the parquet-mr rule). Otherwise the page goes out PLAIN and so does the
 * rest of the chunk. */
static int dictionary_pays(column *c, column_env *e, bool *pays)
{
    *pays = true;
    if (c->dict_used || !c->cost_check || c->page_values == 0) return 0;
    size_t dict = dict_bytes(c);
    size_t indices = c->page_values * (size_t)index_bit_width(c) / 8 + 1;
    size_t plain;
    if (!is_bytes(c) || c->memo_bytes.fixed_width) {
        plain = c->page_values * c->width;
    } else {
        /* each dictionary entry's size, weighted by its uses in the page */
        plain = 0;
        const uint32_t *idx = (const uint32_t *)c->vals.data;
        const size_t *off = c->memo_bytes.offsets;
        const uint8_t *arena = c->memo_bytes.arena.data;
        for (size_t i = 0; i < c->page_values; i++) {
            const uint8_t *p = arena + off[idx[i]] - 4;
            plain += 4 + ((size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24);
        }
    }
    if (dict + indices < plain) return 0;
    *pays = false;
    int st = materialize_plain(c, e, &e->encoded);
    if (st) return st;
    buf t = c->vals;
    c->vals = e->encoded;
    e->encoded = t;
    c->use_dict = false;
    if (is_bytes(c)) memo_bytes_reset(&c->memo_bytes);
    else memo_fixed_reset(&c->memo_fixed);
    return 0;
}

static int flush_page(column *c, column_env *e)
{
    if (c->page_entries == 0) return 0;
    if (c->use_dict) {
        bool pays;
        int st = dictionary_pays(c, e, &pays);
        if (st) return st;
    }
    chunk *k = open_chunk(c);
    page_desc d;
    memset(&d, 0, sizeof d);
    d.type = PAGE_DATA;
    d.num_values = (int32_t)c->page_entries;

    e->levels.len = 0;
    if (c->leaf->max_rep > 0 && put_levels(&e->levels, A(e), &c->reps, c->page_entries, c->leaf->max_rep))
        return INLAY_ERR_NOMEM;
    if (c->leaf->max_def > 0 && put_levels(&e->levels, A(e), &c->defs, c->page_entries, c->leaf->max_def))
        return INLAY_ERR_NOMEM;
    if (e->levels.len) {
        d.parts[d.nparts] = e->levels.data;
        d.lens[d.nparts++] = e->levels.len;
    }

    e->encoded.len = 0;
    if (c->use_dict) {
        int w = index_bit_width(c);
        uint8_t wb = (uint8_t)w;
        if (buf_append(&e->encoded, A(e), &wb, 1) ||
            rle_encode_u32(&e->encoded, A(e), (const uint32_t *)c->vals.data, c->page_values, w))
            return INLAY_ERR_NOMEM;
        d.encoding = ENC_RLE_DICTIONARY;
        d.parts[d.nparts] = e->encoded.data;
        d.lens[d.nparts++] = e->encoded.len;
    } else if (c->type->physical == INLAY_BOOLEAN) {
        size_t n = (c->page_values + 7) / 8;
        if (buf_reserve(&e->encoded, A(e), n)) return INLAY_ERR_NOMEM;
        rle_pack_bools(e->encoded.data, c->vals.data, c->page_values);
        d.encoding = ENC_PLAIN;
        d.parts[d.nparts] = e->encoded.data;
        d.lens[d.nparts++] = n;
    } else {
        d.encoding = ENC_PLAIN;
        d.parts[d.nparts] = c->vals.data;
        d.lens[d.nparts++] = c->vals.len;
    }

    size_t raw, stored;
    int st = page_write(&k->pages, A(e), &e->comp, &e->scratch, &d, &raw, &stored);
    if (st) return st;
    k->raw_size += raw;
    k->stored_size += stored;
    k->num_values += c->page_entries;
    if (c->use_dict) { k->pages_dict++; c->dict_used = true; }
    else k->pages_plain++;
    c->defs.len = c->reps.len = c->vals.len = 0;
    c->page_entries = c->page_rows = c->page_values = 0;
    return 0;
}

static int write_dictionary(column *c, column_env *e, chunk *k)
{
    page_desc d;
    memset(&d, 0, sizeof d);
    d.type = PAGE_DICTIONARY;
    d.encoding = ENC_PLAIN;
    d.num_values = (int32_t)dict_count(c);
    d.nparts = 1;
    if (is_bytes(c)) {
        d.parts[0] = c->memo_bytes.arena.data;
        d.lens[0] = c->memo_bytes.arena.len;
    } else {
        d.parts[0] = c->memo_fixed.values.data;
        d.lens[0] = c->memo_fixed.values.len;
    }
    size_t raw, stored;
    k->dict.len = 0;
    int st = page_write(&k->dict, A(e), &e->comp, &e->scratch, &d, &raw, &stored);
    if (st) return st;
    k->raw_size += raw;
    k->stored_size += stored;
    k->dict_entries = (uint32_t)dict_count(c);
    return 0;
}

int column_seal(column *c, column_env *e)
{
    int st = flush_page(c, e);
    if (st) return st;
    chunk *k = open_chunk(c);
    if (c->dict_used && (st = write_dictionary(c, e, k))) return st;
    if ((st = grow_chunks(c, e, c->nsealed + 2))) return st;
    c->nsealed++;
    chunk *next = open_chunk(c);
    next->dict.len = next->pages.len = 0;
    next->num_values = next->num_rows = next->raw_size = next->stored_size = 0;
    next->dict_entries = 0;
    next->pages_dict = next->pages_plain = 0;
    stats_reset(&next->st);
    if (is_bytes(c)) memo_bytes_reset(&c->memo_bytes);
    else memo_fixed_reset(&c->memo_fixed);
    c->use_dict = c->dict_allowed;
    c->dict_used = false;
    return 0;
}

void column_pop(column *c)
{
    chunk done = c->chunks[0];
    memmove(&c->chunks[0], &c->chunks[1], (size_t)(c->nchunks - 1) * sizeof *c->chunks);
    c->chunks[c->nchunks - 1] = done;   /* a spare, buffers kept */
    c->nsealed--;
}

/* ---- values ------------------------------------------------------------- */

static int update_stats(column *c, chunk *k, const void *values, size_t n, column_env *e)
{
    if (!c->statistics || !n) return 0;
    switch (c->type->physical) {
    case INLAY_BOOLEAN: stats_update_bool(&k->st, values, n); return 0;
    case INLAY_INT32: stats_update_i32(&k->st, values, n); return 0;
    case INLAY_INT64: stats_update_i64(&k->st, values, n); return 0;
    case INLAY_FLOAT: stats_update_float(&k->st, values, n); return 0;
    case INLAY_DOUBLE: stats_update_double(&k->st, values, n); return 0;
    default: {
        const inlay_bytes *v = values;
        for (size_t i = 0; i < n; i++)
            if (stats_update_bytes(&k->st, A(e), v[i].data, v[i].len)) return INLAY_ERR_NOMEM;
        return 0;
    }
    }
}

/* Statistics over dictionary entries [from, count): each distinct value once. */
static int update_stats_dict(column *c, chunk *k, size_t from, column_env *e)
{
    if (!c->statistics) return 0;
    if (!is_bytes(c))
        return update_stats(c, k, c->memo_fixed.values.data + from * c->width,
                            c->memo_fixed.count - from, e);
    for (size_t i = from; i < c->memo_bytes.count; i++) {
        size_t len;
        const uint8_t *p = memo_bytes_value(&c->memo_bytes, i, &len);
        if (stats_update_bytes(&k->st, A(e), p, len)) return INLAY_ERR_NOMEM;
    }
    return 0;
}

static int put_values(column *c, column_env *e, const void *values, size_t n)
{
    chunk *k = open_chunk(c);
    if (!n) return 0;
    if (c->use_dict) {
        if (buf_reserve(&c->vals, A(e), n * 4)) return INLAY_ERR_NOMEM;
        uint32_t *idx = (uint32_t *)(c->vals.data + c->vals.len);
        size_t before = dict_count(c);
        int r = is_bytes(c) ? memo_bytes_insert_many(&c->memo_bytes, values, n, idx)
                            : memo_fixed_insert_many(&c->memo_fixed, values, n, idx);
        if (r) return INLAY_ERR_NOMEM;
        c->vals.len += n * 4;
        return update_stats_dict(c, k, before, e);
    }
    int r;
    if (c->type->physical == INLAY_BYTE_ARRAY) r = plain_put_bytes(&c->vals, A(e), values, n);
    else if (c->type->physical == INLAY_FIXED_LEN_BYTE_ARRAY) r = plain_put_flba(&c->vals, A(e), values, n, c->width);
    else r = plain_put_fixed(&c->vals, A(e), values, n, c->width);
    if (r) return INLAY_ERR_NOMEM;
    return update_stats(c, k, values, n, e);
}

static int put_levels_raw(buf *b, const inlay_allocator *a, const int16_t *src, size_t n, int16_t fill)
{
    if (buf_reserve(b, a, n * 2)) return INLAY_ERR_NOMEM;
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
    const chunk *k = &c->chunks[c->nsealed];
    size_t room = e->page_rows - c->page_rows;
    size_t chunk_room = e->row_group_rows - (size_t)k->num_rows;
    if (chunk_room < room) room = chunk_room;
    if (room == 0) room = 1;
    if (c->use_dict && room > DICT_SLICE) room = DICT_SLICE;
    if (!c->use_dict && c->width && c->type->physical != INLAY_BOOLEAN) {
        size_t have = c->vals.len, fit = have < e->page_bytes ? (e->page_bytes - have) / c->width : 0;
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
    if (!c->use_dict && c->type->physical == INLAY_BYTE_ARRAY && !rep) {
        const inlay_bytes *v = values;
        size_t have = c->vals.len, vi = v0;
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

int column_append(column *c, column_env *e, const void *values, size_t count,
                  const int16_t *def, const int16_t *rep)
{
    const int16_t max_def = c->leaf->max_def;
    const size_t vsize = is_bytes(c) ? sizeof(inlay_bytes) : c->width;
    const uint8_t *vbase = values;
    size_t e0 = 0, v0 = 0;
    int st;
    while (e0 < count) {
        size_t rows;
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
        if ((st = put_values(c, e, vbase + v0 * vsize, nv))) return st;
        k->st.null_count += n - nv;
        c->page_entries += n;
        c->page_values += nv;
        c->page_rows += rows;
        k->num_rows += rows;
        c->rows += rows;
        e0 = e1;
        v0 += nv;

        if (c->page_rows >= e->page_rows || page_size_estimate(c) >= e->page_bytes) {
            if ((st = flush_page(c, e))) return st;
        }
        /* indices are 32-bit; keep well inside them */
        if (c->use_dict && (dict_bytes(c) > e->dictionary_bytes || dict_count(c) > INT32_MAX / 2)) {
            if ((st = flush_page(c, e))) return st;
            c->use_dict = false;
        }
        if (k->num_rows >= e->row_group_rows && (st = column_seal(c, e))) return st;
    }
    return 0;
}
