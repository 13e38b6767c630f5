/*
 * thrift_reader.h — a small thrift compact-protocol decoder for the tests,
 * written from the protocol description, not from runtime/format/thrift.c, so the
 * encoder is checked against an independent reading.
 *
 * A reader is a byte range; every primitive sets `err` instead of reading
 * past the end, and returns 0 after that. tr_field() walks the fields of
 * one struct (the caller keeps the struct's last field id, as the encoder
 * does), tr_skip() skips a value of any type.
 *
 * On top of it, fm_read() pulls out of a whole Parquet file the
 * FileMetaData fields the suites assert on (per column chunk: offsets,
 * encodings, encoding_stats, statistics), and ph_read() reads a PageHeader
 * (v1 and v2 data pages, dictionary pages).
 */
#ifndef INLAY_THRIFT_READER_H
#define INLAY_THRIFT_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    TR_TRUE = 1, TR_FALSE = 2, TR_BYTE = 3, TR_I16 = 4, TR_I32 = 5, TR_I64 = 6,
    TR_DOUBLE = 7, TR_BINARY = 8, TR_LIST = 9, TR_SET = 10, TR_MAP = 11, TR_STRUCT = 12,
};

typedef struct tr {
    const uint8_t *p, *end;
    int err;
} tr;

static inline tr tr_make(const void *p, size_t n)
{
    tr r = { p, (const uint8_t *)p + n, 0 };
    return r;
}

static inline uint8_t tr_byte(tr *r)
{
    if (r->err || r->p >= r->end) { r->err = 1; return 0; }
    return *r->p++;
}

static inline uint64_t tr_varint(tr *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        uint8_t b = tr_byte(r);
        if (r->err) return 0;
        if (shift == 63 && b > 1) break;          /* more than 64 bits */
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
    }
    r->err = 1;
    return 0;
}

static inline int64_t tr_zigzag(tr *r)
{
    uint64_t u = tr_varint(r);
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

static inline const uint8_t *tr_binary(tr *r, size_t *len)
{
    uint64_t n = tr_varint(r);
    *len = 0;
    if (r->err || n > (uint64_t)(r->end - r->p)) { r->err = 1; return NULL; }
    const uint8_t *p = r->p;
    r->p += n;
    *len = (size_t)n;
    return p;
}

/* The next field of the struct being read. Returns false at the struct's
 * stop byte or on error. A bool field's value is its type (TR_TRUE or
 * TR_FALSE); it has no further bytes. */
static inline bool tr_field(tr *r, int16_t *last, int16_t *id, int *type)
{
    uint8_t b = tr_byte(r);
    if (r->err || b == 0) return false;
    *type = b & 0x0f;
    int delta = b >> 4;
    if (delta) {
        /* i16 arithmetic, as the reference readers do */
        *id = (int16_t)(uint16_t)((uint16_t)*last + (uint16_t)delta);
    } else {
        int64_t fid = tr_zigzag(r);
        if (fid < INT16_MIN || fid > INT16_MAX) r->err = 1;
        *id = (int16_t)fid;
    }
    *last = *id;
    return !r->err;
}

/* A list (or set) header: element type and count. */
static inline void tr_list(tr *r, int *elem, uint32_t *count)
{
    uint8_t b = tr_byte(r);
    *elem = b & 0x0f;
    *count = b >> 4;
    if (*count == 15) {
        uint64_t n = tr_varint(r);
        if (n > UINT32_MAX) r->err = 1;
        *count = (uint32_t)n;
    }
}

static inline void tr_skip_depth(tr *r, int type, bool element, int depth);

static inline void tr_skip_struct(tr *r, int depth)
{
    int16_t last = 0, id;
    int type;
    while (tr_field(r, &last, &id, &type)) tr_skip_depth(r, type, false, depth + 1);
}

/* Skip one value. `element`: inside a list/set/map, where a bool takes a
 * byte of its own. */
static inline void tr_skip_depth(tr *r, int type, bool element, int depth)
{
    if (depth > 64) { r->err = 1; return; }
    switch (type) {
    case TR_TRUE: case TR_FALSE:
        if (element) tr_byte(r);
        return;
    case TR_BYTE: tr_byte(r); return;
    case TR_I16: case TR_I32: case TR_I64: tr_varint(r); return;
    case TR_DOUBLE:
        if (r->end - r->p < 8) r->err = 1; else r->p += 8;
        return;
    case TR_BINARY: { size_t n; tr_binary(r, &n); return; }
    case TR_LIST: case TR_SET: {
        int elem;
        uint32_t n;
        tr_list(r, &elem, &n);
        for (uint32_t i = 0; i < n && !r->err; i++) tr_skip_depth(r, elem, true, depth + 1);
        return;
    }
    case TR_MAP: {
        uint64_t n = tr_varint(r);
        if (!n) return;
        uint8_t kv = tr_byte(r);
        for (uint64_t i = 0; i < n && !r->err; i++) {
            tr_skip_depth(r, kv >> 4, true, depth + 1);
            tr_skip_depth(r, kv & 0x0f, true, depth + 1);
        }
        return;
    }
    case TR_STRUCT: tr_skip_struct(r, depth); return;
    default: r->err = 1; return;
    }
}

static inline void tr_skip(tr *r, int type) { tr_skip_depth(r, type, false, 0); }

/* ---- Parquet footer ------------------------------------------------------ */

#define FM_MAX_CHUNKS 256
#define FM_MAX_STAT 64

typedef struct fm_enc_stat {
    int page_type, encoding, count;
} fm_enc_stat;

typedef struct fm_chunk {
    int row_group;
    char path[128];               /* path_in_schema joined with '.' */
    int type, codec;
    int64_t file_offset, num_values, total_uncompressed, total_compressed;
    int64_t data_page_offset;
    int64_t dictionary_page_offset;   /* -1 when absent */
    int encodings[8];
    int nencodings;
    fm_enc_stat enc_stats[8];
    int nenc_stats;
    bool has_statistics;
    int64_t null_count;           /* -1 when absent */
    uint8_t min[FM_MAX_STAT], max[FM_MAX_STAT];   /* the first FM_MAX_STAT bytes */
    int min_len, max_len;         /* -1 when absent */
    int64_t index_offset[2];      /* offset index, column index; -1 when absent */
    int32_t index_length[2];
} fm_chunk;

typedef struct fm_file {
    int32_t version;
    int64_t num_rows;
    int num_row_groups;
    int64_t row_group_rows[FM_MAX_CHUNKS];
    int num_schema_elements;
    int num_kv;
    int num_column_orders;
    char created_by[64];
    fm_chunk chunks[FM_MAX_CHUNKS];
    int nchunks;
    char why[96];                 /* set when fm_read fails */
} fm_file;

static inline void fm_statistics(tr *r, fm_chunk *c)
{
    int16_t last = 0, id;
    int type;
    c->has_statistics = true;
    while (tr_field(r, &last, &id, &type)) {
        if (id == 3 && type == TR_I64) {
            c->null_count = tr_zigzag(r);
        } else if ((id == 5 || id == 6) && type == TR_BINARY) {
            size_t n;
            const uint8_t *p = tr_binary(r, &n);
            size_t keep = n < FM_MAX_STAT ? n : FM_MAX_STAT;   /* longer: a prefix, the true length */
            if (id == 5) { if (keep) memcpy(c->max, p, keep); c->max_len = (int)n; }
            else { if (keep) memcpy(c->min, p, keep); c->min_len = (int)n; }
        } else {
            tr_skip(r, type);
        }
    }
}

static inline void fm_column_meta(tr *r, fm_chunk *c)
{
    int16_t last = 0, id;
    int type, elem;
    uint32_t n;
    while (tr_field(r, &last, &id, &type)) {
        switch (id) {
        case 1: c->type = (int)tr_zigzag(r); break;
        case 2:
            tr_list(r, &elem, &n);
            for (uint32_t i = 0; i < n && !r->err; i++) {
                int e = (int)tr_zigzag(r);
                if (c->nencodings < 8) c->encodings[c->nencodings++] = e;
            }
            break;
        case 3:
            tr_list(r, &elem, &n);
            for (uint32_t i = 0; i < n && !r->err; i++) {
                size_t len, have = strlen(c->path);
                const uint8_t *p = tr_binary(r, &len);
                if (have + len + 2 > sizeof c->path) { r->err = 1; break; }
                if (i) c->path[have++] = '.';
                memcpy(c->path + have, p, len);
                c->path[have + len] = 0;
            }
            break;
        case 4: c->codec = (int)tr_zigzag(r); break;
        case 5: c->num_values = tr_zigzag(r); break;
        case 6: c->total_uncompressed = tr_zigzag(r); break;
        case 7: c->total_compressed = tr_zigzag(r); break;
        case 9: c->data_page_offset = tr_zigzag(r); break;
        case 11: c->dictionary_page_offset = tr_zigzag(r); break;
        case 12: fm_statistics(r, c); break;
        case 13:
            tr_list(r, &elem, &n);
            for (uint32_t i = 0; i < n && !r->err; i++) {
                fm_enc_stat es = { -1, -1, -1 };
                int16_t l2 = 0, id2;
                int t2;
                while (tr_field(r, &l2, &id2, &t2)) {
                    if (id2 == 1) es.page_type = (int)tr_zigzag(r);
                    else if (id2 == 2) es.encoding = (int)tr_zigzag(r);
                    else if (id2 == 3) es.count = (int)tr_zigzag(r);
                    else tr_skip(r, t2);
                }
                if (c->nenc_stats < 8) c->enc_stats[c->nenc_stats++] = es;
            }
            break;
        default: tr_skip(r, type); break;
        }
    }
}

static inline void fm_row_group(tr *r, fm_file *f)
{
    int16_t last = 0, id;
    int type, elem;
    uint32_t n;
    int rg = f->num_row_groups;
    while (tr_field(r, &last, &id, &type)) {
        if (id == 1 && type == TR_LIST) {
            tr_list(r, &elem, &n);
            for (uint32_t i = 0; i < n && !r->err; i++) {
                if (f->nchunks == FM_MAX_CHUNKS) { r->err = 1; return; }
                fm_chunk *c = &f->chunks[f->nchunks++];
                memset(c, 0, sizeof *c);
                c->row_group = rg;
                c->dictionary_page_offset = c->null_count = -1;
                c->min_len = c->max_len = -1;
                c->index_offset[0] = c->index_offset[1] = -1;
                int16_t l2 = 0, id2;
                int t2;
                while (tr_field(r, &l2, &id2, &t2)) {
                    if (id2 == 2) c->file_offset = tr_zigzag(r);
                    else if (id2 == 3) fm_column_meta(r, c);
                    else if (id2 == 4 || id2 == 6) c->index_offset[id2 == 6] = tr_zigzag(r);
                    else if (id2 == 5 || id2 == 7) c->index_length[id2 == 7] = (int32_t)tr_zigzag(r);
                    else tr_skip(r, t2);
                }
            }
        } else if (id == 3 && type == TR_I64) {
            if (rg < FM_MAX_CHUNKS) f->row_group_rows[rg] = tr_zigzag(r);
            else tr_skip(r, type);
        } else {
            tr_skip(r, type);
        }
    }
    f->num_row_groups++;
}

/* Read the footer of the Parquet file file[0..len). Returns a malloc'd
 * summary, or NULL with nothing allocated when the file is malformed
 * (why_out, if given, says what was wrong). */
static inline fm_file *fm_read(const uint8_t *file, size_t len, const char **why_out)
{
    static char why[96];
    if (why_out) *why_out = why;
    if (len < 12 || memcmp(file, "PAR1", 4) || memcmp(file + len - 4, "PAR1", 4)) {
        snprintf(why, sizeof why, "no PAR1 frame");
        return NULL;
    }
    uint32_t mlen = (uint32_t)file[len - 8] | (uint32_t)file[len - 7] << 8 |
                    (uint32_t)file[len - 6] << 16 | (uint32_t)file[len - 5] << 24;
    if (mlen > len - 12) {
        snprintf(why, sizeof why, "footer length %u does not fit", mlen);
        return NULL;
    }
    fm_file *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    tr r = tr_make(file + len - 8 - mlen, mlen);
    int16_t last = 0, id;
    int type, elem;
    uint32_t n;
    while (tr_field(&r, &last, &id, &type)) {
        switch (id) {
        case 1: f->version = (int32_t)tr_zigzag(&r); break;
        case 2: tr_list(&r, &elem, &n); f->num_schema_elements = (int)n;
                for (uint32_t i = 0; i < n && !r.err; i++) tr_skip_depth(&r, elem, true, 1);
                break;
        case 3: f->num_rows = tr_zigzag(&r); break;
        case 4: tr_list(&r, &elem, &n);
                for (uint32_t i = 0; i < n && !r.err; i++) fm_row_group(&r, f);
                break;
        case 5: tr_list(&r, &elem, &n); f->num_kv = (int)n;
                for (uint32_t i = 0; i < n && !r.err; i++) tr_skip_depth(&r, elem, true, 1);
                break;
        case 6: {
            size_t l;
            const uint8_t *p = tr_binary(&r, &l);
            if (l >= sizeof f->created_by) l = sizeof f->created_by - 1;
            if (l) memcpy(f->created_by, p, l);
            f->created_by[l] = 0;
            break;
        }
        case 7: tr_list(&r, &elem, &n); f->num_column_orders = (int)n;
                for (uint32_t i = 0; i < n && !r.err; i++) tr_skip_depth(&r, elem, true, 1);
                break;
        default: tr_skip(&r, type); break;
        }
    }
    if (r.err || r.p != r.end) {
        snprintf(why, sizeof why, "footer does not parse (error %d, %td bytes left)", r.err,
                 r.end - r.p);
        free(f);
        return NULL;
    }
    return f;
}

/* The chunk of `path` in row group rg, or NULL. */
static inline const fm_chunk *fm_find(const fm_file *f, int rg, const char *path)
{
    for (int i = 0; i < f->nchunks; i++)
        if (f->chunks[i].row_group == rg && strcmp(f->chunks[i].path, path) == 0) return &f->chunks[i];
    return NULL;
}

/* Pages of (page_type, encoding) in a chunk's encoding_stats; 0 if absent. */
static inline int fm_pages(const fm_chunk *c, int page_type, int encoding)
{
    for (int i = 0; i < c->nenc_stats; i++)
        if (c->enc_stats[i].page_type == page_type && c->enc_stats[i].encoding == encoding)
            return c->enc_stats[i].count;
    return 0;
}

static inline bool fm_has_encoding(const fm_chunk *c, int encoding)
{
    for (int i = 0; i < c->nencodings; i++)
        if (c->encodings[i] == encoding) return true;
    return false;
}

/* ---- PageHeader ------------------------------------------------------------ */

typedef struct ph {
    int type;
    int32_t uncompressed, compressed;
    int32_t num_values;           /* data, data v2 or dictionary page */
    int encoding, def_encoding, rep_encoding;
    /* DataPageHeaderV2 only */
    int32_t num_nulls, num_rows;
    int32_t def_bytes, rep_bytes; /* -1 when absent */
    bool is_compressed;           /* true when absent, as parquet.thrift says */
    /* which of the three headers were present (fields 5, 7, 8) */
    bool has_data, has_dictionary, has_data_v2;
    size_t header_len;
} ph;

/* Read the PageHeader at p (at most n bytes). Returns false when it does
 * not parse. */
static inline bool ph_read(const uint8_t *p, size_t n, ph *h)
{
    memset(h, 0, sizeof *h);
    h->type = h->encoding = h->def_encoding = h->rep_encoding = -1;
    h->num_nulls = h->num_rows = h->def_bytes = h->rep_bytes = -1;
    h->is_compressed = true;
    tr r = tr_make(p, n);
    int16_t last = 0, id;
    int type;
    while (tr_field(&r, &last, &id, &type)) {
        if (id == 1) h->type = (int)tr_zigzag(&r);
        else if (id == 2) h->uncompressed = (int32_t)tr_zigzag(&r);
        else if (id == 3) h->compressed = (int32_t)tr_zigzag(&r);
        else if ((id == 5 || id == 7) && type == TR_STRUCT) {
            if (id == 5) h->has_data = true;
            else h->has_dictionary = true;
            int16_t l2 = 0, id2;
            int t2;
            while (tr_field(&r, &l2, &id2, &t2)) {
                if (id2 == 1) h->num_values = (int32_t)tr_zigzag(&r);
                else if (id2 == 2) h->encoding = (int)tr_zigzag(&r);
                else if (id == 5 && id2 == 3) h->def_encoding = (int)tr_zigzag(&r);
                else if (id == 5 && id2 == 4) h->rep_encoding = (int)tr_zigzag(&r);
                else tr_skip(&r, t2);
            }
        } else if (id == 8 && type == TR_STRUCT) {
            h->has_data_v2 = true;
            int16_t l2 = 0, id2;
            int t2;
            while (tr_field(&r, &l2, &id2, &t2)) {
                switch (id2) {
                case 1: h->num_values = (int32_t)tr_zigzag(&r); break;
                case 2: h->num_nulls = (int32_t)tr_zigzag(&r); break;
                case 3: h->num_rows = (int32_t)tr_zigzag(&r); break;
                case 4: h->encoding = (int)tr_zigzag(&r); break;
                case 5: h->def_bytes = (int32_t)tr_zigzag(&r); break;
                case 6: h->rep_bytes = (int32_t)tr_zigzag(&r); break;
                case 7:
                    if (t2 != TR_TRUE && t2 != TR_FALSE) r.err = 1;
                    h->is_compressed = t2 == TR_TRUE;
                    break;
                default: tr_skip(&r, t2); break;
                }
            }
        } else {
            tr_skip(&r, type);
        }
    }
    h->header_len = (size_t)(r.p - p);
    return !r.err;
}

#endif
