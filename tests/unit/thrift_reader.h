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
 * (v1 and v2 data pages, dictionary pages, with their statistics and
 * crc).
 *
 * For the page index and bloom filters: ci_read() reads a ColumnIndex,
 * oi_read() an OffsetIndex, bf_read_header() a BloomFilterHeader; the
 * footer summary also carries each chunk's size statistics and bloom
 * filter reference, and each row group's sorting_columns.
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

/* ---- Statistics ------------------------------------------------------------ */

/* A Statistics struct as a page header or a chunk's metadata holds it. The
 * bounds point into the bytes read (valid while they are). */
typedef struct tr_statistics {
    bool present;
    int64_t null_count;               /* -1 when absent */
    int64_t distinct_count;           /* -1 when absent */
    const uint8_t *min, *max;         /* min_value (6), max_value (5) */
    int min_len, max_len;             /* -1 when absent */
    int min_exact, max_exact;         /* is_min/max_value_exact: -1 absent, 0 false, 1 true */
    bool has_legacy;                  /* the deprecated min (2) or max (1) */
} tr_statistics;

static inline void tr_statistics_init(tr_statistics *s)
{
    memset(s, 0, sizeof *s);
    s->null_count = s->distinct_count = -1;
    s->min_len = s->max_len = -1;
    s->min_exact = s->max_exact = -1;
}

static inline void tr_read_statistics(tr *r, tr_statistics *s)
{
    int16_t last = 0, id;
    int type;
    tr_statistics_init(s);
    s->present = true;
    while (tr_field(r, &last, &id, &type)) {
        if (id == 3 && type == TR_I64) {
            s->null_count = tr_zigzag(r);
        } else if (id == 4 && type == TR_I64) {
            s->distinct_count = tr_zigzag(r);
        } else if ((id == 5 || id == 6) && type == TR_BINARY) {
            size_t n;
            const uint8_t *p = tr_binary(r, &n);
            if (id == 5) { s->max = p; s->max_len = (int)n; }
            else { s->min = p; s->min_len = (int)n; }
        } else if ((id == 7 || id == 8) && (type == TR_TRUE || type == TR_FALSE)) {
            if (id == 7) s->max_exact = type == TR_TRUE;
            else s->min_exact = type == TR_TRUE;
        } else {
            if (id == 1 || id == 2) s->has_legacy = true;
            tr_skip(r, type);
        }
    }
}

/* ---- Parquet footer ------------------------------------------------------ */

#define FM_MAX_CHUNKS 256
#define FM_MAX_STAT 64
#define FM_MAX_HIST 8
#define FM_MAX_SORTING 8

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
    /* the whole Statistics (bounds into the file's bytes: valid while they are) */
    tr_statistics stats;
    int64_t bloom_offset;         /* -1 when absent */
    int32_t bloom_length;         /* -1 when absent */
    /* SizeStatistics (field 16) */
    bool has_size_stats;
    int64_t unencoded_bytes;      /* -1 when absent */
    int64_t rep_hist[FM_MAX_HIST], def_hist[FM_MAX_HIST];
    int nrep_hist, ndef_hist;     /* -1 when absent */
} fm_chunk;

typedef struct fm_sorting {
    int32_t column_idx;
    int descending, nulls_first;  /* -1 when absent */
} fm_sorting;

typedef struct fm_file {
    int32_t version;
    int64_t num_rows;
    int num_row_groups;
    int64_t row_group_rows[FM_MAX_CHUNKS];
    fm_sorting sorting[FM_MAX_CHUNKS][FM_MAX_SORTING];
    int nsorting[FM_MAX_CHUNKS];  /* -1: no sorting_columns field */
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
    tr_statistics *s = &c->stats;
    c->has_statistics = true;
    tr_read_statistics(r, s);
    if (r->err) return;
    if (s->null_count >= 0) c->null_count = s->null_count;
    if (s->max_len >= 0) {   /* longer than FM_MAX_STAT: a prefix, the true length */
        size_t keep = (size_t)s->max_len < FM_MAX_STAT ? (size_t)s->max_len : FM_MAX_STAT;
        if (keep) memcpy(c->max, s->max, keep);
        c->max_len = s->max_len;
    }
    if (s->min_len >= 0) {
        size_t keep = (size_t)s->min_len < FM_MAX_STAT ? (size_t)s->min_len : FM_MAX_STAT;
        if (keep) memcpy(c->min, s->min, keep);
        c->min_len = s->min_len;
    }
}

/* A list<i64> into out (up to cap kept); *n gets the list's length. */
static inline void fm_i64_list(tr *r, int64_t *out, int cap, int *n)
{
    int elem;
    uint32_t count;
    tr_list(r, &elem, &count);
    if (elem != TR_I64 && count) r->err = 1;
    for (uint32_t i = 0; i < count && !r->err; i++) {
        int64_t v = tr_zigzag(r);
        if ((int)i < cap) out[i] = v;
    }
    *n = (int)count;
}

static inline void fm_size_statistics(tr *r, fm_chunk *c)
{
    int16_t last = 0, id;
    int type;
    c->has_size_stats = true;
    while (tr_field(r, &last, &id, &type)) {
        if (id == 1 && type == TR_I64) c->unencoded_bytes = tr_zigzag(r);
        else if (id == 2 && type == TR_LIST) fm_i64_list(r, c->rep_hist, FM_MAX_HIST, &c->nrep_hist);
        else if (id == 3 && type == TR_LIST) fm_i64_list(r, c->def_hist, FM_MAX_HIST, &c->ndef_hist);
        else tr_skip(r, type);
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
        case 14: c->bloom_offset = tr_zigzag(r); break;
        case 15: c->bloom_length = (int32_t)tr_zigzag(r); break;
        case 16: fm_size_statistics(r, c); break;
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
                tr_statistics_init(&c->stats);
                c->bloom_offset = -1;
                c->bloom_length = -1;
                c->unencoded_bytes = -1;
                c->nrep_hist = c->ndef_hist = -1;
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
        } else if (id == 4 && type == TR_LIST && rg < FM_MAX_CHUNKS) {
            tr_list(r, &elem, &n);
            f->nsorting[rg] = (int)n;
            for (uint32_t i = 0; i < n && !r->err; i++) {
                fm_sorting sc = { -1, -1, -1 };
                int16_t l2 = 0, id2;
                int t2;
                while (tr_field(r, &l2, &id2, &t2)) {
                    if (id2 == 1) sc.column_idx = (int32_t)tr_zigzag(r);
                    else if (id2 == 2 && (t2 == TR_TRUE || t2 == TR_FALSE)) sc.descending = t2 == TR_TRUE;
                    else if (id2 == 3 && (t2 == TR_TRUE || t2 == TR_FALSE)) sc.nulls_first = t2 == TR_TRUE;
                    else tr_skip(r, t2);
                }
                if (i < FM_MAX_SORTING) f->sorting[rg][i] = sc;
            }
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
    for (int i = 0; i < FM_MAX_CHUNKS; i++) f->nsorting[i] = -1;
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
    bool has_crc;                 /* field 4 */
    uint32_t crc;
    tr_statistics stats;          /* DataPageHeader field 5 / DataPageHeaderV2 field 8 */
} ph;

/* Read the PageHeader at p (at most n bytes). Returns false when it does
 * not parse. */
static inline bool ph_read(const uint8_t *p, size_t n, ph *h)
{
    memset(h, 0, sizeof *h);
    h->type = h->encoding = h->def_encoding = h->rep_encoding = -1;
    h->num_nulls = h->num_rows = h->def_bytes = h->rep_bytes = -1;
    h->is_compressed = true;
    tr_statistics_init(&h->stats);
    tr r = tr_make(p, n);
    int16_t last = 0, id;
    int type;
    while (tr_field(&r, &last, &id, &type)) {
        if (id == 1) h->type = (int)tr_zigzag(&r);
        else if (id == 2) h->uncompressed = (int32_t)tr_zigzag(&r);
        else if (id == 3) h->compressed = (int32_t)tr_zigzag(&r);
        else if (id == 4 && type == TR_I32) {
            h->has_crc = true;
            h->crc = (uint32_t)(int32_t)tr_zigzag(&r);
        } else if ((id == 5 || id == 7) && type == TR_STRUCT) {
            if (id == 5) h->has_data = true;
            else h->has_dictionary = true;
            int16_t l2 = 0, id2;
            int t2;
            while (tr_field(&r, &l2, &id2, &t2)) {
                if (id2 == 1) h->num_values = (int32_t)tr_zigzag(&r);
                else if (id2 == 2) h->encoding = (int)tr_zigzag(&r);
                else if (id == 5 && id2 == 3) h->def_encoding = (int)tr_zigzag(&r);
                else if (id == 5 && id2 == 4) h->rep_encoding = (int)tr_zigzag(&r);
                else if (id == 5 && id2 == 5 && t2 == TR_STRUCT) tr_read_statistics(&r, &h->stats);
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
                case 8:
                    if (t2 == TR_STRUCT) tr_read_statistics(&r, &h->stats);
                    else tr_skip(&r, t2);
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

/* ---- ColumnIndex, OffsetIndex (PageIndex.md) ----------------------------------- */

/* A ColumnIndex; the arrays are malloc'd (ci_free), the bounds point into
 * the bytes read. Counts of -1: that list is absent. */
typedef struct ci_index {
    int npages;                   /* null_pages' length */
    bool *null_pages;
    int nmin, nmax;
    const uint8_t **min, **max;
    size_t *min_len, *max_len;
    int boundary_order;           /* -1 when absent */
    int nnull_counts;
    int64_t *null_counts;
    int nrep_hist, ndef_hist;
    int64_t *rep_hist, *def_hist; /* per page, max level + 1 counts each */
} ci_index;

static inline void ci_free(ci_index *c)
{
    free(c->null_pages);
    free(c->min); free(c->max);
    free(c->min_len); free(c->max_len);
    free(c->null_counts);
    free(c->rep_hist); free(c->def_hist);
    memset(c, 0, sizeof *c);
}

/* A list<i64> of any length, malloc'd into *out. */
static inline void tr_i64_array(tr *r, int64_t **out, int *n)
{
    int elem;
    uint32_t count;
    tr_list(r, &elem, &count);
    if (r->err || (count && elem != TR_I64) || count > (uint32_t)(r->end - r->p)) { r->err = 1; return; }
    free(*out);
    *out = calloc(count ? count : 1, sizeof **out);
    if (!*out) { r->err = 1; return; }
    for (uint32_t i = 0; i < count && !r->err; i++) (*out)[i] = tr_zigzag(r);
    *n = (int)count;
}

/* A list<binary> into ptrs/lens (malloc'd). */
static inline void tr_binary_array(tr *r, const uint8_t ***ptrs, size_t **lens, int *n)
{
    int elem;
    uint32_t count;
    tr_list(r, &elem, &count);
    if (r->err || (count && elem != TR_BINARY) || count > (uint32_t)(r->end - r->p)) { r->err = 1; return; }
    free(*ptrs);
    free(*lens);
    *ptrs = calloc(count ? count : 1, sizeof **ptrs);
    *lens = calloc(count ? count : 1, sizeof **lens);
    if (!*ptrs || !*lens) { r->err = 1; return; }
    for (uint32_t i = 0; i < count && !r->err; i++) (*ptrs)[i] = tr_binary(r, &(*lens)[i]);
    *n = (int)count;
}

/* Read the ColumnIndex at p[0..n): false when it does not parse or does
 * not take exactly n bytes. */
static inline bool ci_read(const uint8_t *p, size_t n, ci_index *c)
{
    memset(c, 0, sizeof *c);
    c->npages = c->nmin = c->nmax = c->nnull_counts = c->nrep_hist = c->ndef_hist = -1;
    c->boundary_order = -1;
    tr r = tr_make(p, n);
    int16_t last = 0, id;
    int type;
    while (tr_field(&r, &last, &id, &type)) {
        if (id == 1 && type == TR_LIST) {
            int elem;
            uint32_t count;
            tr_list(&r, &elem, &count);
            if (r.err || count > n) { r.err = 1; break; }
            free(c->null_pages);
            c->null_pages = calloc(count ? count : 1, sizeof *c->null_pages);
            if (!c->null_pages) { r.err = 1; break; }
            for (uint32_t i = 0; i < count && !r.err; i++) {
                /* a bool list element is a byte of its own: 1 true, 2 false (0 read too) */
                uint8_t b = tr_byte(&r);
                if (b != TR_TRUE && b != TR_FALSE && b != 0) r.err = 1;
                c->null_pages[i] = b == TR_TRUE;
            }
            c->npages = (int)count;
        } else if (id == 2 && type == TR_LIST) {
            tr_binary_array(&r, &c->min, &c->min_len, &c->nmin);
        } else if (id == 3 && type == TR_LIST) {
            tr_binary_array(&r, &c->max, &c->max_len, &c->nmax);
        } else if (id == 4 && type == TR_I32) {
            c->boundary_order = (int)tr_zigzag(&r);
        } else if (id == 5 && type == TR_LIST) {
            tr_i64_array(&r, &c->null_counts, &c->nnull_counts);
        } else if (id == 6 && type == TR_LIST) {
            tr_i64_array(&r, &c->rep_hist, &c->nrep_hist);
        } else if (id == 7 && type == TR_LIST) {
            tr_i64_array(&r, &c->def_hist, &c->ndef_hist);
        } else {
            tr_skip(&r, type);
        }
    }
    if (r.err || r.p != r.end) {
        ci_free(c);
        return false;
    }
    return true;
}

typedef struct oi_page {
    int64_t offset;
    int32_t compressed_page_size;
    int64_t first_row_index;
} oi_page;

/* An OffsetIndex; arrays malloc'd (oi_free). */
typedef struct oi_index {
    int npages;                   /* page_locations' length */
    oi_page *pages;
    int nunencoded;               /* -1 when absent */
    int64_t *unencoded;
} oi_index;

static inline void oi_free(oi_index *o)
{
    free(o->pages);
    free(o->unencoded);
    memset(o, 0, sizeof *o);
}

/* Read the OffsetIndex at p[0..n): false when it does not parse, a page
 * location lacks a required field, or it does not take exactly n bytes. */
static inline bool oi_read(const uint8_t *p, size_t n, oi_index *o)
{
    memset(o, 0, sizeof *o);
    o->npages = o->nunencoded = -1;
    tr r = tr_make(p, n);
    int16_t last = 0, id;
    int type;
    while (tr_field(&r, &last, &id, &type)) {
        if (id == 1 && type == TR_LIST) {
            int elem;
            uint32_t count;
            tr_list(&r, &elem, &count);
            if (r.err || (count && elem != TR_STRUCT) || count > n) { r.err = 1; break; }
            free(o->pages);
            o->pages = calloc(count ? count : 1, sizeof *o->pages);
            if (!o->pages) { r.err = 1; break; }
            for (uint32_t i = 0; i < count && !r.err; i++) {
                int16_t l2 = 0, id2;
                int t2, seen = 0;
                oi_page *pg = &o->pages[i];
                while (tr_field(&r, &l2, &id2, &t2)) {
                    if (id2 == 1 && t2 == TR_I64) { pg->offset = tr_zigzag(&r); seen |= 1; }
                    else if (id2 == 2 && t2 == TR_I32) { pg->compressed_page_size = (int32_t)tr_zigzag(&r); seen |= 2; }
                    else if (id2 == 3 && t2 == TR_I64) { pg->first_row_index = tr_zigzag(&r); seen |= 4; }
                    else tr_skip(&r, t2);
                }
                if (seen != 7) r.err = 1;
            }
            o->npages = (int)count;
        } else if (id == 2 && type == TR_LIST) {
            tr_i64_array(&r, &o->unencoded, &o->nunencoded);
        } else {
            tr_skip(&r, type);
        }
    }
    if (r.err || r.p != r.end) {
        oi_free(o);
        return false;
    }
    return true;
}

/* ---- BloomFilterHeader (BloomFilter.md) ---------------------------------------- */

typedef struct bf_header {
    int32_t num_bytes;            /* -1 when absent */
    int algorithm, hash, compression;   /* the union member set (1 = BLOCK / XXHASH /
                                           UNCOMPRESSED), -1 when absent, 0 when empty */
    size_t header_len;
} bf_header;

/* The field id of the one member a thrift union holds (0: none, -1: more
 * than one); members are empty structs here. */
static inline int tr_union_member(tr *r)
{
    int16_t last = 0, id;
    int type, member = 0;
    while (tr_field(r, &last, &id, &type)) {
        if (type != TR_STRUCT) r->err = 1;
        member = member ? -1 : id;
        int16_t l2 = 0, id2;
        int t2;
        while (tr_field(r, &l2, &id2, &t2)) { member = -1; tr_skip(r, t2); }   /* a member with fields */
    }
    return member;
}

static inline bool bf_read_header(const uint8_t *p, size_t n, bf_header *h)
{
    h->num_bytes = -1;
    h->algorithm = h->hash = h->compression = -1;
    tr r = tr_make(p, n);
    int16_t last = 0, id;
    int type;
    while (tr_field(&r, &last, &id, &type)) {
        if (id == 1 && type == TR_I32) h->num_bytes = (int32_t)tr_zigzag(&r);
        else if (id == 2 && type == TR_STRUCT) h->algorithm = tr_union_member(&r);
        else if (id == 3 && type == TR_STRUCT) h->hash = tr_union_member(&r);
        else if (id == 4 && type == TR_STRUCT) h->compression = tr_union_member(&r);
        else tr_skip(&r, type);
    }
    h->header_len = (size_t)(r.p - p);
    return !r.err;
}

#endif
