/*
 * chunk.c — a leaf column's pages, decompressed and decoded, handed out a
 * batch of rows at a time (see chunk.h).
 */
#include "chunk.h"

#include <stdio.h>

#include "decode.h"
#include "page.h"
#include "types.h"

/* A page that claims more entries than this is refused rather than given
 * level arrays of its size (levels can describe billions of nulls in a
 * few bytes); writers keep pages to thousands of rows. */
#define MAX_PAGE_ENTRIES (1u << 26)
/* How far a compressed body may expand: zstd's densest frames (runs of one
 * byte) come near 1:32768; past this a header's size is not believed. */
#define MAX_EXPANSION 32768u
#define MAX_BODY_BYTES ((size_t)1 << 30)

static int bits_for(int16_t max)
{
    int b = 0;
    while (max >> b) b++;
    return b;
}

void inl_chunk_init(chunk_reader *c, const rd_meta *meta, int column)
{
    memset(c, 0, sizeof *c);
    const inlay_schema *s = meta->schema;
    const schema_leaf *l = &s->leaves[column];
    c->column = column;
    c->path = l->path;
    c->leaf = &meta->leaves[column];
    c->type = s->nodes[l->node].type;
    c->slot = inl_type_value_size(&c->type);
    c->max_def = l->max_def;
    c->max_rep = l->max_rep;
    c->level_bits_def = bits_for(l->max_def);
    c->level_bits_rep = bits_for(l->max_rep);
    c->cur_body = -1;
}

static void body_free(page_body *b, const inlay_allocator *a)
{
    inl_buf_free(&b->bytes, a);
    inl_buf_free(&b->arena, a);
}

void inl_chunk_free(chunk_reader *c, const inlay_allocator *a)
{
    inl_buf_free(&c->fetched, a);
    body_free(&c->dict_body, a);
    inl_buf_free(&c->dict_vals, a);
    for (int i = 0; i < c->nbodies; i++) body_free(&c->bodies[i], a);
    inl_mem_free(a, c->bodies, (size_t)c->nbodies * sizeof *c->bodies);
    buf *bufs[] = { &c->def, &c->rep, &c->vals, &c->idx, &c->out_def, &c->out_rep, &c->out_vals };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) inl_buf_free(bufs[i], a);
    memset(c, 0, sizeof *c);
}

void inl_chunk_start(chunk_reader *c, int rg, int codec, const uint8_t *data, size_t len, int64_t num_values)
{
    c->row_group = rg;
    c->codec = codec;
    c->data = data;
    c->len = len;
    c->at = 0;
    c->values_left = num_values;
    c->page_no = -1;
    c->started = false;
    c->has_dict = false;
    c->dict_count = 0;
    c->entries = c->pos = c->vpos = 0;
    for (int i = 0; i < c->nbodies; i++) c->bodies[i].in_use = false;
    c->cur_body = -1;
}

INL_COLD INL_PRINTF(3, 4) static int bad_page(const chunk_reader *c, inl_err *err, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return inl_err_set(err, INLAY_ERR_FORMAT, "row group %d, column '%s', page %d: %s", c->row_group, c->path,
                       c->page_no, why);
}

static const char *encoding_name(int e)
{
    static const char *const names[] = { "PLAIN", "GROUP_VAR_INT", "PLAIN_DICTIONARY", "RLE", "BIT_PACKED",
                                         "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY",
                                         "RLE_DICTIONARY", "BYTE_STREAM_SPLIT" };
    return e >= 0 && e < (int)(sizeof names / sizeof names[0]) ? names[e] : "an unknown encoding";
}

/* A body to decode the next page into: one the current batch does not use. */
static page_body *free_body(chunk_reader *c, const inlay_allocator *a, int *index)
{
    for (int i = 0; i < c->nbodies; i++)
        if (!c->bodies[i].in_use) {
            *index = i;
            return &c->bodies[i];
        }
    page_body *grown = inl_mem_realloc(a, c->bodies, (size_t)c->nbodies * sizeof *grown,
                                       (size_t)(c->nbodies + 1) * sizeof *grown);
    if (!grown) return NULL;
    c->bodies = grown;
    memset(&grown[c->nbodies], 0, sizeof *grown);
    *index = c->nbodies++;
    return &grown[*index];
}

/* The page's stored bytes as plain bytes: the stored ones when the chunk
 * is not compressed, else decompressed into `into`. */
static const uint8_t *expand(chunk_reader *c, decompressor *dz, const inlay_allocator *a, const uint8_t *stored,
                             size_t stored_len, size_t raw_len, bool compressed, buf *into, inl_err *err,
                             int *status)
{
    if (!compressed || c->codec == CODEC_UNCOMPRESSED) {
        if (stored_len != raw_len) {
            *status = bad_page(c, err, "stored size %zu differs from its uncompressed size %zu", stored_len, raw_len);
            return NULL;
        }
        return stored;
    }
    if (raw_len > MAX_BODY_BYTES || raw_len / MAX_EXPANSION > stored_len + 1024) {
        *status = bad_page(c, err, "uncompressed size %zu is not believable for %zu stored bytes", raw_len, stored_len);
        return NULL;
    }
    into->len = 0;
    if (inl_buf_reserve(into, a, raw_len + 1)) {
        *status = inl_err_set(err, INLAY_ERR_NOMEM, "out of memory reading column '%s'", c->path);
        return NULL;
    }
    int rc = inl_decompress(dz, c->codec, stored, stored_len, into->data, raw_len);
    if (rc == INLAY_ERR_NOMEM) {
        *status = inl_err_set(err, INLAY_ERR_NOMEM, "out of memory decompressing column '%s'", c->path);
        return NULL;
    }
    if (rc) {
        char tmp[32];
        *status = bad_page(c, err, "%s data is corrupt or not %zu bytes", inl_codec_name(c->codec, tmp, sizeof tmp), raw_len);
        return NULL;
    }
    into->len = raw_len;
    return into->data;
}

/* Decode `count` values of encoding enc from p[0..n) into out (slot bytes
 * each); byte strings may be rebuilt into arena. */
static int decode_values(chunk_reader *c, const inlay_allocator *a, int enc, const uint8_t *p, size_t n,
                         size_t count, uint8_t *out, buf *arena, inl_err *err)
{
    const int phys = c->leaf->physical;
    long used = -1;
    switch (enc) {
    case ENC_PLAIN:
        switch (phys) {
        case PT_BOOLEAN: used = inl_dec_plain_bool(p, n, count, (bool *)out); break;
        case PT_INT32: case PT_FLOAT: used = inl_dec_plain_fixed(p, n, count, 4, out); break;
        case PT_INT64: case PT_DOUBLE: used = inl_dec_plain_fixed(p, n, count, 8, out); break;
        case PT_INT96: used = inl_dec_plain_int96_nanos(p, n, count, (int64_t *)out); break;
        case PT_BYTE_ARRAY: used = inl_dec_plain_bytes(p, n, count, (inlay_bytes *)out); break;
        case PT_FIXED_LEN_BYTE_ARRAY:
            used = inl_dec_plain_flba(p, n, count, (size_t)c->leaf->type_length, (inlay_bytes *)out);
            break;
        }
        break;
    case ENC_PLAIN_DICTIONARY:
    case ENC_RLE_DICTIONARY: {
        if (!c->has_dict) return bad_page(c, err, "dictionary-encoded page without a dictionary page");
        c->idx.len = 0;
        if (inl_buf_reserve(&c->idx, a, count * sizeof(uint32_t) + 1))
            return inl_err_set(err, INLAY_ERR_NOMEM, "out of memory reading column '%s'", c->path);
        uint32_t *idx = (uint32_t *)c->idx.data;
        used = inl_dec_dict_indices(p, n, count, c->dict_count, idx);
        if (used >= 0) inl_dec_gather(out, c->dict_vals.data, idx, count, c->slot);
        break;
    }
    case ENC_RLE:
        if (phys == PT_BOOLEAN) used = inl_dec_rle_bool(p, n, count, (bool *)out);
        break;
    case ENC_DELTA_BINARY_PACKED:
        if (phys == PT_INT32) used = inl_dec_delta_i32(p, n, count, (int32_t *)out);
        if (phys == PT_INT64) used = inl_dec_delta_i64(p, n, count, (int64_t *)out);
        break;
    case ENC_DELTA_LENGTH_BYTE_ARRAY:
        if (phys == PT_BYTE_ARRAY) used = inl_dec_delta_length_bytes(p, n, count, (inlay_bytes *)out);
        break;
    case ENC_DELTA_BYTE_ARRAY:
        if (phys == PT_BYTE_ARRAY || phys == PT_FIXED_LEN_BYTE_ARRAY) {
            size_t width = phys == PT_FIXED_LEN_BYTE_ARRAY ? (size_t)c->leaf->type_length : 0;
            arena->len = 0;
            used = inl_dec_delta_bytes(p, n, count, width, arena, a, (inlay_bytes *)out);
            if (used == -2) return inl_err_set(err, INLAY_ERR_NOMEM, "out of memory reading column '%s'", c->path);
        }
        break;
    case ENC_BYTE_STREAM_SPLIT:
        if (phys == PT_INT32 || phys == PT_FLOAT) used = inl_dec_bss(p, n, count, 4, out);
        if (phys == PT_INT64 || phys == PT_DOUBLE) used = inl_dec_bss(p, n, count, 8, out);
        if (phys == PT_FIXED_LEN_BYTE_ARRAY) {
            size_t w = (size_t)c->leaf->type_length;
            if (w && count > (SIZE_MAX / 2) / w) break;
            arena->len = 0;
            if (inl_buf_reserve(arena, a, count * w + 1))
                return inl_err_set(err, INLAY_ERR_NOMEM, "out of memory reading column '%s'", c->path);
            used = inl_dec_bss(p, n, count, w, arena->data);
            if (used >= 0) {
                inlay_bytes *v = (inlay_bytes *)out;
                for (size_t i = 0; i < count; i++) v[i] = (inlay_bytes){ arena->data + i * w, w };
            }
        }
        break;
    default:
        return bad_page(c, err, "%s is not an encoding of values this reader knows", encoding_name(enc));
    }
    if (used < 0)
        return bad_page(c, err, "%zu values in %s do not decode from %zu bytes", count, encoding_name(enc), n);
    return INLAY_OK;
}

static int read_dictionary(chunk_reader *c, decompressor *dz, const inlay_allocator *a, const rd_page_header *h,
                           const uint8_t *stored, inl_err *err)
{
    if (c->has_dict || c->started) return bad_page(c, err, "a second dictionary page, or one after the data");
    if (c->leaf->physical == PT_BOOLEAN) return bad_page(c, err, "a dictionary for a boolean column");
    int status = 0;
    const uint8_t *body = expand(c, dz, a, stored, (size_t)h->compressed_size, (size_t)h->uncompressed_size, true,
                                 &c->dict_body.bytes, err, &status);
    if (!body) return status;
    size_t n = (size_t)h->uncompressed_size, count = (size_t)h->num_values;
    /* every PLAIN value takes at least one byte, except none */
    if (count > n) return bad_page(c, err, "%zu dictionary entries in %zu bytes", count, n);
    if (h->encoding != ENC_PLAIN && h->encoding != ENC_PLAIN_DICTIONARY)
        return bad_page(c, err, "dictionary page in %s", encoding_name(h->encoding));
    c->dict_vals.len = 0;
    if (inl_buf_reserve(&c->dict_vals, a, count * c->slot + 1))
        return inl_err_set(err, INLAY_ERR_NOMEM, "out of memory reading column '%s'", c->path);
    INL_FORWARD(decode_values(c, a, ENC_PLAIN, body, n, count, c->dict_vals.data, &c->dict_body.arena, err));
    c->dict_count = (uint32_t)count;
    c->has_dict = true;
    return INLAY_OK;
}

static int decode_levels(chunk_reader *c, const inlay_allocator *a, const uint8_t *p, size_t n, int bits, int16_t max,
                         size_t count, buf *out, const char *what, inl_err *err)
{
    out->len = 0;
    if (inl_buf_reserve(out, a, count * sizeof(int16_t) + 2))
        return inl_err_set(err, INLAY_ERR_NOMEM, "out of memory reading column '%s'", c->path);
    if (inl_dec_levels(p, n, bits, count, max, (int16_t *)out->data) < 0)
        return bad_page(c, err, "%s levels do not decode (%zu entries from %zu bytes, max %d)", what, count, n, max);
    return INLAY_OK;
}

/* The deprecated BIT_PACKED levels of old writers: no length, count * bits
 * bits packed from each byte's most significant bit down. */
static int levels_bit_packed(chunk_reader *c, const inlay_allocator *a, const uint8_t **q, const uint8_t *end, int bits,
                             int16_t max, size_t count, buf *out, const char *what, inl_err *err)
{
    size_t need = (count * (size_t)bits + 7) / 8;
    if (need > (size_t)(end - *q)) return bad_page(c, err, "%s levels cut short", what);
    out->len = 0;
    if (inl_buf_reserve(out, a, count * sizeof(int16_t) + 2))
        return inl_err_set(err, INLAY_ERR_NOMEM, "out of memory reading column '%s'", c->path);
    int16_t *lv = (int16_t *)out->data;
    const uint8_t *p = *q;
    size_t bit = 0;
    for (size_t i = 0; i < count; i++) {
        unsigned v = 0;
        for (int k = 0; k < bits; k++, bit++) v = v << 1 | ((p[bit >> 3] >> (7 - (bit & 7))) & 1u);
        if (v > (unsigned)max) return bad_page(c, err, "%s level %u is above the maximum %d", what, v, max);
        lv[i] = (int16_t)v;
    }
    *q += need;
    return INLAY_OK;
}

/* v1 levels: a 4-byte length, then the RLE run. */
static int levels_v1(chunk_reader *c, const inlay_allocator *a, const uint8_t **q, const uint8_t *end, int enc,
                     int bits, int16_t max, size_t count, buf *out, const char *what, inl_err *err)
{
    if (enc == ENC_BIT_PACKED) return levels_bit_packed(c, a, q, end, bits, max, count, out, what, err);
    if (enc != ENC_RLE) return bad_page(c, err, "%s levels in %s (RLE and BIT_PACKED are read)", what, encoding_name(enc));
    if (end - *q < 4) return bad_page(c, err, "%s levels cut short", what);
    uint32_t len = (uint32_t)(*q)[0] | (uint32_t)(*q)[1] << 8 | (uint32_t)(*q)[2] << 16 | (uint32_t)(*q)[3] << 24;
    *q += 4;
    if (len > (size_t)(end - *q)) return bad_page(c, err, "%s levels claim %u bytes, %td are left", what, len, end - *q);
    INL_FORWARD(decode_levels(c, a, *q, len, bits, max, count, out, what, err));
    *q += len;
    return INLAY_OK;
}

static size_t count_present(const int16_t *def, size_t n, int16_t max)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += def[i] == max;
    return k;
}

static int read_data_page(chunk_reader *c, decompressor *dz, const inlay_allocator *a, const rd_page_header *h,
                          const uint8_t *stored, inl_err *err)
{
    const bool v2 = h->type == PAGE_DATA_V2;
    size_t entries = (size_t)h->num_values;
    if (entries > MAX_PAGE_ENTRIES) return bad_page(c, err, "%zu entries in one page are more than this reader takes", entries);
    if ((int64_t)entries > c->values_left)
        return bad_page(c, err, "%zu entries, more than the %lld the chunk has left", entries, (long long)c->values_left);
    /* release the previous page unless the batch being built uses it */
    int bi;
    page_body *body = free_body(c, a, &bi);
    if (!body) return inl_err_set(err, INLAY_ERR_NOMEM, "out of memory reading column '%s'", c->path);
    const uint8_t *q, *end;
    int status = 0;
    if (!v2) {
        q = expand(c, dz, a, stored, (size_t)h->compressed_size, (size_t)h->uncompressed_size, true, &body->bytes, err,
                   &status);
        if (!q) return status;
        end = q + h->uncompressed_size;
        if (c->max_rep > 0)
            INL_FORWARD(levels_v1(c, a, &q, end, h->rep_encoding, c->level_bits_rep, c->max_rep, entries, &c->rep,
                                  "repetition", err));
        if (c->max_def > 0)
            INL_FORWARD(levels_v1(c, a, &q, end, h->def_encoding, c->level_bits_def, c->max_def, entries, &c->def,
                                  "definition", err));
    } else {
        size_t rl = (size_t)h->rep_bytes, dl = (size_t)h->def_bytes;
        if (rl + dl > (size_t)h->compressed_size || rl + dl > (size_t)h->uncompressed_size)
            return bad_page(c, err, "level lengths %zu + %zu are past the page", rl, dl);
        if (c->max_rep > 0)
            INL_FORWARD(decode_levels(c, a, stored, rl, c->level_bits_rep, c->max_rep, entries, &c->rep, "repetition", err));
        else if (rl)
            return bad_page(c, err, "repetition levels in a column without them");
        if (c->max_def > 0)
            INL_FORWARD(decode_levels(c, a, stored + rl, dl, c->level_bits_def, c->max_def, entries, &c->def,
                                      "definition", err));
        else if (dl)
            return bad_page(c, err, "definition levels in a column without them");
        q = expand(c, dz, a, stored + rl + dl, (size_t)h->compressed_size - rl - dl,
                   (size_t)h->uncompressed_size - rl - dl, h->is_compressed, &body->bytes, err, &status);
        if (!q) return status;
        end = q + ((size_t)h->uncompressed_size - rl - dl);
    }
    if (c->max_rep > 0 && entries && !c->started && ((int16_t *)c->rep.data)[0] != 0)
        return bad_page(c, err, "the column starts in the middle of a row (repetition level %d)",
                        ((int16_t *)c->rep.data)[0]);
    size_t present = c->max_def > 0 ? count_present((const int16_t *)c->def.data, entries, c->max_def) : entries;
    c->vals.len = 0;
    if (inl_buf_reserve(&c->vals, a, present * c->slot + 1))
        return inl_err_set(err, INLAY_ERR_NOMEM, "out of memory reading column '%s'", c->path);
    INL_FORWARD(decode_values(c, a, h->encoding, q, (size_t)(end - q), present, c->vals.data, &body->arena, err));
    body->in_use = true;
    c->cur_body = bi;
    c->entries = entries;
    c->pos = c->vpos = 0;
    c->values_left -= (int64_t)entries;
    c->started = true;
    return INLAY_OK;
}

/* Move to the next data page. Returns INLAY_OK with c->entries set (which
 * may be 0 for an empty page), or 1 at the end of the chunk. */
static int next_page(chunk_reader *c, decompressor *dz, const inlay_allocator *a, inl_err *err)
{
    for (;;) {
        if (c->at >= c->len) return 1;
        c->page_no++;
        rd_page_header h;
        const char *why = "";
        size_t hl = inl_rd_page_header(c->data + c->at, c->len - c->at, &h, &why);
        if (!hl) return bad_page(c, err, "page header: %s", why);
        size_t body_at = c->at + hl;
        if ((size_t)h.compressed_size > c->len - body_at)
            return bad_page(c, err, "%d stored bytes run past the column chunk", h.compressed_size);
        const uint8_t *stored = c->data + body_at;
        c->at = body_at + (size_t)h.compressed_size;
        if (h.type == PAGE_DICTIONARY) {
            INL_FORWARD(read_dictionary(c, dz, a, &h, stored, err));
            continue;
        }
        if (h.type != PAGE_DATA && h.type != PAGE_DATA_V2) continue;   /* index pages and the like */
        return read_data_page(c, dz, a, &h, stored, err);
    }
}

static int append(buf *b, const inlay_allocator *a, const void *p, size_t n, const chunk_reader *c, inl_err *err)
{
    if (inl_buf_append(b, a, p, n)) return inl_err_set(err, INLAY_ERR_NOMEM, "out of memory reading column '%s'", c->path);
    return INLAY_OK;
}

/* Move entries [pos, pos + k) of the page to the batch. */
static int take_entries(chunk_reader *c, const inlay_allocator *a, size_t k, inl_err *err)
{
    size_t nv = k;
    if (c->max_def > 0) {
        const int16_t *def = (const int16_t *)c->def.data + c->pos;
        nv = count_present(def, k, c->max_def);
        INL_FORWARD(append(&c->out_def, a, def, k * sizeof(int16_t), c, err));
    }
    if (c->max_rep > 0)
        INL_FORWARD(append(&c->out_rep, a, (const int16_t *)c->rep.data + c->pos, k * sizeof(int16_t), c, err));
    INL_FORWARD(append(&c->out_vals, a, c->vals.data + c->vpos * c->slot, nv * c->slot, c, err));
    c->pos += k;
    c->vpos += nv;
    c->out_entries += k;
    c->out_values += nv;
    return INLAY_OK;
}

int inl_chunk_take(chunk_reader *c, size_t rows, size_t *got, decompressor *dz, const inlay_allocator *a, inl_err *err)
{
    c->out_def.len = c->out_rep.len = c->out_vals.len = 0;
    c->out_entries = c->out_values = 0;
    for (int i = 0; i < c->nbodies; i++) c->bodies[i].in_use = i == c->cur_body;
    size_t done = 0;
    for (;;) {
        if (c->pos == c->entries) {
            if (done == rows && c->max_rep == 0) break;
            int rc = next_page(c, dz, a, err);
            if (rc == 1) break;
            if (rc) return rc;
            continue;
        }
        if (c->max_rep == 0) {
            size_t k = rows - done < c->entries - c->pos ? rows - done : c->entries - c->pos;
            if (k == 0) break;
            INL_FORWARD(take_entries(c, a, k, err));
            done += k;
            continue;
        }
        const int16_t *rep = (const int16_t *)c->rep.data;
        size_t e = c->pos;
        while (e < c->entries) {
            if (rep[e] == 0) {
                if (done == rows) break;
                done++;
            }
            e++;
        }
        INL_FORWARD(take_entries(c, a, e - c->pos, err));
        if (e < c->entries) break;
    }
    *got = done;
    return INLAY_OK;
}
