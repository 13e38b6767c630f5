/*
 * chunk_reader.h — reading back what the writer wrote, for the suites
 * that check whole files (check_column.c, check_encodings.c,
 * check_timeconv.c): write one column into a memory buffer, read the
 * footer (thrift_reader.h), then walk every page of a column's chunks and
 * decode levels and values with readers that share nothing with runtime/:
 * rle_reader.h for levels and dictionary indices, decoders.h for the value
 * encodings, libzstd for compressed bodies.
 *
 * Pages: DATA_PAGE (v1: one body, compressed whole, levels with a 4-byte
 * length each), DATA_PAGE_V2 (repetition then definition levels first,
 * uncompressed and unprefixed, their byte lengths in the header; then the
 * values, compressed only when is_compressed) and one PLAIN dictionary
 * page before them. Values: PLAIN, RLE_DICTIONARY, RLE (BOOLEAN),
 * DELTA_BINARY_PACKED (INT32, INT64), DELTA_LENGTH_BYTE_ARRAY (BYTE_ARRAY),
 * DELTA_BYTE_ARRAY (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY) and BYTE_STREAM_SPLIT
 * (FLOAT, DOUBLE, INT32, INT64, FIXED_LEN_BYTE_ARRAY); an encoding on a
 * type it is not defined for is an error.
 *
 * Beyond the values, a chunk must agree with its metadata: num_values,
 * total_uncompressed_size, data_page_offset and dictionary_page_offset,
 * the encodings list (exactly the encodings used, once each) and
 * encoding_stats (exactly one entry per page type and encoding used, with
 * its page count).
 */
#ifndef INLAY_CHUNK_READER_H
#define INLAY_CHUNK_READER_H

#include <zstd.h>

#include "decoders.h"
#include "rle_reader.h"
#include "thrift_reader.h"
#include "unit.h"

enum { PT_DATA = 0, PT_DICTIONARY = 2, PT_DATA_V2 = 3 };
enum { E_PLAIN = 0, E_RLE = 3, E_DBP = 5, E_DLBA = 6, E_DBA = 7, E_RLE_DICTIONARY = 8, E_BSS = 9,
       E_COUNT = 10 };

/* ---- what a column decodes to ---------------------------------------------------------- */

typedef struct decoded {
    int16_t *def, *rep;           /* one per level entry (max_def / 0 for columns without) */
    size_t nlevels;
    const uint8_t **val;          /* the non-null values, PLAIN-shaped: fixed-width */
    size_t *len;                  /*   little-endian bytes, byte arrays' bytes, BOOLEAN 0/1 */
    size_t nvalues, cap;
    int dictionary_pages;
    int data_pages[E_COUNT];      /* data pages (v1 and v2) by value encoding */
    int v1_pages, v2_pages;
    size_t dict_entries;
    int64_t uncompressed_total;
    ph *pages;                    /* every data page's header, in file order */
    size_t npages;
    void **keep;                  /* buffers the values point into */
    size_t nkeep;
} decoded;

static const uint8_t bool_bytes[2] = { 0, 1 };

static inline void decoded_free(decoded *d)
{
    for (size_t i = 0; i < d->nkeep; i++) free(d->keep[i]);
    free(d->keep);
    free(d->def);
    free(d->rep);
    free(d->val);
    free(d->len);
    free(d->pages);
    memset(d, 0, sizeof *d);
}

static inline void push_value(decoded *d, const uint8_t *p, size_t n)
{
    if (d->nvalues == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 1024;
        d->val = realloc(d->val, d->cap * sizeof *d->val);
        d->len = realloc(d->len, d->cap * sizeof *d->len);
        ck_assert(d->val && d->len);
    }
    d->val[d->nvalues] = p;
    d->len[d->nvalues++] = n;
}

/* A buffer of n bytes the values may point into until decoded_free. */
static inline uint8_t *keep_buffer(decoded *d, size_t n)
{
    void *b = malloc(n + 1);
    d->keep = realloc(d->keep, (d->nkeep + 1) * sizeof *d->keep);
    ck_assert(b && d->keep);
    d->keep[d->nkeep++] = b;
    return b;
}

static inline const char *encoding_name(int e)
{
    static const char *names[E_COUNT] = { "PLAIN", "?1", "PLAIN_DICTIONARY", "RLE", "BIT_PACKED",
                                          "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY",
                                          "DELTA_BYTE_ARRAY", "RLE_DICTIONARY", "BYTE_STREAM_SPLIT" };
    return e >= 0 && e < E_COUNT ? names[e] : "?";
}

/* ---- pages --------------------------------------------------------------------------------- */

/* PLAIN values of one physical type from [*q, end); false if they do not fit. */
static inline bool plain_values(const uint8_t **q, const uint8_t *end, int physical, int width,
                                size_t n, const uint8_t **ptr, size_t *len)
{
    const uint8_t *p = *q;
    if (physical == INLAY_BOOLEAN && (size_t)(end - p) < (n + 7) / 8) return false;
    for (size_t i = 0; i < n; i++) {
        size_t w;
        switch (physical) {
        case INLAY_BOOLEAN:
            ptr[i] = &bool_bytes[p[i / 8] >> (i % 8) & 1];
            len[i] = 1;
            continue;
        case INLAY_BYTE_ARRAY:
            if (end - p < 4) return false;
            w = le32(p);
            p += 4;
            break;
        default:
            w = (size_t)width;
            break;
        }
        if ((size_t)(end - p) < w) return false;
        ptr[i] = p;
        len[i] = w;
        p += w;
    }
    if (physical == INLAY_BOOLEAN) p += (n + 7) / 8;
    *q = p;
    return true;
}

static inline int bits_for(int max)
{
    int w = 0;
    while (max >> w) w++;
    return w;
}

/* n levels from exactly len bytes of RLE / bit-packed runs. */
static inline bool levels_from(const uint8_t *q, size_t len, int max, size_t n, int16_t *out)
{
    uint32_t *tmp = malloc((n + 1) * sizeof *tmp);
    const char *why;
    long used = hybrid_decode(q, len, bits_for(max), tmp, n, &why);
    bool ok = used == (long)len;
    for (size_t i = 0; ok && i < n; i++) {
        ok = tmp[i] <= (uint32_t)max;
        out[i] = (int16_t)tmp[i];
    }
    free(tmp);
    return ok;
}

/* v1 levels: a 4-byte length, then the runs. */
static inline bool read_levels(const uint8_t **q, const uint8_t *end, int max, size_t n, int16_t *out)
{
    if (end - *q < 4) return false;
    uint32_t len = le32(*q);
    *q += 4;
    if ((size_t)(end - *q) < len) return false;
    bool ok = levels_from(*q, len, max, n, out);
    *q += len;
    return ok;
}

static inline size_t physical_width(int physical, int width)
{
    switch (physical) {
    case INLAY_INT32: case INLAY_FLOAT: return 4;
    case INLAY_INT64: case INLAY_DOUBLE: return 8;
    case INLAY_FIXED_LEN_BYTE_ARRAY: return (size_t)width;
    default: return 0;
    }
}

/* The nv values of one data page in [q, qend), which they must fill, in
 * encoding enc. */
static inline const char *page_values(decoded *d, int enc, int physical, int width, const uint8_t *q,
                                      const uint8_t *qend, size_t nv, const uint8_t *const *dict,
                                      const size_t *dict_len)
{
    const size_t avail = (size_t)(qend - q);
    const char *why = "";
    const bool integer = physical == INLAY_INT32 || physical == INLAY_INT64;
    const bool bytes = physical == INLAY_BYTE_ARRAY || physical == INLAY_FIXED_LEN_BYTE_ARRAY;
    switch (enc) {
    case E_PLAIN: {
        const uint8_t **ptr = calloc(nv + 1, sizeof *ptr);
        size_t *len = calloc(nv + 1, sizeof *len);
        bool ok = plain_values(&q, qend, physical, width, nv, ptr, len) && q == qend;
        for (size_t i = 0; ok && i < nv; i++) push_value(d, ptr[i], len[i]);
        free(ptr);
        free(len);
        return ok ? NULL : "PLAIN values do not fill the page";
    }
    case E_RLE_DICTIONARY: {
        if (!dict) return "dictionary-encoded page without a dictionary";
        if (q >= qend && nv) return "no index width";
        int w = nv || q < qend ? *q++ : 0;
        if (w > 32) return "index width above 32";
        uint32_t *idx = malloc((nv + 1) * sizeof *idx);
        long used = nv ? hybrid_decode(q, (size_t)(qend - q), w, idx, nv, &why) : 0;
        bool ok = used == (long)(qend - q);
        for (size_t i = 0; ok && i < nv; i++) {
            ok = idx[i] < d->dict_entries;
            if (ok) push_value(d, dict[idx[i]], dict_len[idx[i]]);
        }
        free(idx);
        return ok ? NULL : *why ? why : "dictionary indices";
    }
    case E_RLE: {
        if (physical != INLAY_BOOLEAN) return "RLE values on a type other than BOOLEAN";
        uint8_t *v = keep_buffer(d, nv);
        long used = bool_rle_decode(q, avail, nv, v, &why);
        if (used < 0) return why;
        if ((size_t)used != avail) return "RLE booleans do not fill the page";
        for (size_t i = 0; i < nv; i++) push_value(d, &bool_bytes[v[i]], 1);
        return NULL;
    }
    case E_DBP: {
        if (!integer) return "DELTA_BINARY_PACKED on a type other than INT32/INT64";
        const size_t w = physical == INLAY_INT32 ? 4 : 8;
        uint64_t *tmp = malloc((nv + 1) * sizeof *tmp);
        size_t n;
        long used = dbp_decode(q, avail, (int)w * 8, tmp, nv, &n, NULL, &why);
        if (used >= 0 && n != nv) why = "DELTA_BINARY_PACKED count is not the page's values";
        else if (used >= 0 && (size_t)used != avail) why = "DELTA_BINARY_PACKED does not fill the page";
        else if (used >= 0) why = NULL;
        if (!why) {
            uint8_t *v = keep_buffer(d, nv * w);
            for (size_t i = 0; i < nv; i++) {
                for (size_t b = 0; b < w; b++) v[i * w + b] = (uint8_t)(tmp[i] >> (8 * b));
                push_value(d, v + i * w, w);
            }
        }
        free(tmp);
        return why;
    }
    case E_DLBA: case E_DBA: {
        if (enc == E_DLBA && physical != INLAY_BYTE_ARRAY) return "DELTA_LENGTH_BYTE_ARRAY on a type other than BYTE_ARRAY";
        if (!bytes) return "DELTA_BYTE_ARRAY on a type other than a byte array";
        const uint8_t **ptr = calloc(nv + 1, sizeof *ptr);
        size_t *len = calloc(nv + 1, sizeof *len);
        long used;
        if (enc == E_DLBA) {
            used = dlba_decode(q, avail, nv, ptr, len, &why);
        } else {
            uint8_t *arena;
            used = dba_decode(q, avail, nv, &arena, ptr, len, NULL, &why);
            if (used >= 0) {
                d->keep = realloc(d->keep, (d->nkeep + 1) * sizeof *d->keep);
                d->keep[d->nkeep++] = arena;
            }
        }
        if (used >= 0 && (size_t)used != avail) { used = -1; why = "delta byte arrays do not fill the page"; }
        for (size_t i = 0; used >= 0 && i < nv; i++) {
            if (physical == INLAY_FIXED_LEN_BYTE_ARRAY && len[i] != (size_t)width) {
                used = -1;
                why = "a fixed-length value of another length";
                break;
            }
        }
        for (size_t i = 0; used >= 0 && i < nv; i++) push_value(d, ptr[i], len[i]);
        free(ptr);
        free(len);
        return used < 0 ? why : NULL;
    }
    case E_BSS: {
        const size_t w = physical_width(physical, width);
        if (!w || physical == INLAY_BOOLEAN) return "BYTE_STREAM_SPLIT on BOOLEAN or BYTE_ARRAY";
        uint8_t *v = keep_buffer(d, nv * w);
        if (bss_decode(q, avail, nv, w, v, &why)) return why;
        for (size_t i = 0; i < nv; i++) push_value(d, v + i * w, w);
        return NULL;
    }
    default:
        return "unexpected data page encoding";
    }
}

/* The body of a page with `stored` bytes at `body` and `raw` bytes once
 * decompressed (or as stored, when not compressed). */
static inline const char *page_body(decoded *d, int codec, bool compressed, const uint8_t *body,
                                    size_t stored, size_t raw, const uint8_t **out)
{
    if (codec == INLAY_ZSTD && compressed) {
        uint8_t *b = keep_buffer(d, raw);
        size_t r = ZSTD_decompress(b, raw, body, stored);
        if (ZSTD_isError(r) || r != raw) return "zstd body does not decompress to its size";
        *out = b;
        return NULL;
    }
    if (codec != INLAY_ZSTD && codec != INLAY_UNCOMPRESSED) return "unknown codec";
    if (stored != raw) return "uncompressed body with two sizes";
    *out = body;
    return NULL;
}

/* Decode every page of chunk c of file[0..flen) into d (which it extends).
 * width: the FIXED_LEN_BYTE_ARRAY width (other types have their own).
 * Returns NULL, or what was wrong. */
static inline const char *decode_chunk(const uint8_t *file, size_t flen, const fm_chunk *c, int width,
                                       int max_def, int max_rep, decoded *d)
{
    const int physical = c->type;
    if (physical != INLAY_FIXED_LEN_BYTE_ARRAY) width = (int)physical_width(physical, width);
    int64_t start = c->dictionary_page_offset >= 0 ? c->dictionary_page_offset : c->data_page_offset;
    if (start < 4 || c->total_compressed < 0 || (uint64_t)(start + c->total_compressed) > flen)
        return "chunk outside the file";
    if (c->dictionary_page_offset >= 0 && c->dictionary_page_offset >= c->data_page_offset)
        return "dictionary page after the data pages";
    const uint8_t *p = file + start, *end = p + c->total_compressed;
    const uint8_t **dict = NULL;
    size_t *dict_len = NULL;
    const char *err = NULL;
    int dict_pages = 0, v1[E_COUNT] = { 0 }, v2[E_COUNT] = { 0 };
    size_t nlevels = 0;
    int64_t uncompressed = 0;
    const uint8_t *first_data = NULL;
#define FAIL(msg) do { err = (msg); goto out; } while (0)
    while (p < end) {
        ph h;
        if (!ph_read(p, (size_t)(end - p), &h)) FAIL("page header does not parse");
        const uint8_t *body = p + h.header_len;
        if (h.compressed < 0 || h.uncompressed < 0 || end - body < h.compressed) FAIL("page body outside the chunk");
        uncompressed += (int64_t)h.header_len + h.uncompressed;
        if (h.type == PT_DICTIONARY) {
            if (!h.has_dictionary || h.has_data || h.has_data_v2) FAIL("dictionary page without its header");
            if (dict_pages++ || nlevels) FAIL("a second dictionary page, or one after data");
            if (h.encoding != E_PLAIN) FAIL("dictionary page not PLAIN");
            const uint8_t *q;
            if ((err = page_body(d, c->codec, true, body, (size_t)h.compressed, (size_t)h.uncompressed, &q)))
                goto out;
            d->dict_entries = (size_t)h.num_values;
            dict = calloc(d->dict_entries + 1, sizeof *dict);
            dict_len = calloc(d->dict_entries + 1, sizeof *dict_len);
            const uint8_t *qend = q + h.uncompressed;
            if (!plain_values(&q, qend, physical, width, d->dict_entries, dict, dict_len) || q != qend)
                FAIL("dictionary page size does not match its entries");
        } else if (h.type == PT_DATA || h.type == PT_DATA_V2) {
            const bool is_v2 = h.type == PT_DATA_V2;
            if (is_v2 ? !h.has_data_v2 || h.has_data : !h.has_data || h.has_data_v2)
                FAIL("data page without its own header");
            if (!first_data) first_data = p;
            size_t n = (size_t)h.num_values;
            if (h.num_values <= 0) FAIL("empty data page");
            d->def = realloc(d->def, (d->nlevels + n + 1) * sizeof *d->def);
            d->rep = realloc(d->rep, (d->nlevels + n + 1) * sizeof *d->rep);
            int16_t *def = d->def + d->nlevels, *rep = d->rep + d->nlevels;
            for (size_t i = 0; i < n; i++) def[i] = (int16_t)max_def, rep[i] = 0;
            const uint8_t *q, *qend;
            if (!is_v2) {
                if (h.def_encoding != E_RLE || h.rep_encoding != E_RLE) FAIL("levels not RLE");
                if ((err = page_body(d, c->codec, true, body, (size_t)h.compressed, (size_t)h.uncompressed, &q)))
                    goto out;
                qend = q + h.uncompressed;
                if (max_rep > 0 && !read_levels(&q, qend, max_rep, n, rep)) FAIL("repetition levels");
                if (max_def > 0 && !read_levels(&q, qend, max_def, n, def)) FAIL("definition levels");
            } else {
                if (h.rep_bytes < 0 || h.def_bytes < 0) FAIL("v2 level lengths missing");
                if (max_rep == 0 && h.rep_bytes != 0) FAIL("repetition levels in a column without them");
                if (max_def == 0 && h.def_bytes != 0) FAIL("definition levels in a required column");
                const size_t lv = (size_t)h.rep_bytes + (size_t)h.def_bytes;
                if (lv > (size_t)h.compressed || lv > (size_t)h.uncompressed) FAIL("v2 levels longer than the page");
                /* the levels, straight from the stored bytes */
                if (max_rep > 0 && !levels_from(body, (size_t)h.rep_bytes, max_rep, n, rep))
                    FAIL("v2 repetition levels");
                if (max_def > 0 && !levels_from(body + h.rep_bytes, (size_t)h.def_bytes, max_def, n, def))
                    FAIL("v2 definition levels");
                if ((err = page_body(d, c->codec, h.is_compressed, body + lv, (size_t)h.compressed - lv,
                                     (size_t)h.uncompressed - lv, &q)))
                    goto out;
                qend = q + ((size_t)h.uncompressed - lv);
            }
            if (rep[0] != 0) FAIL("page does not start a row");
            size_t nv = 0, rows = 0;
            for (size_t i = 0; i < n; i++) {
                nv += def[i] == max_def;
                rows += rep[i] == 0;
            }
            if (is_v2 && (h.num_nulls != (int32_t)(n - nv) || h.num_rows != (int32_t)rows))
                FAIL("v2 num_nulls or num_rows do not match the levels");
            d->nlevels += n;
            nlevels += n;
            if (h.encoding < 0 || h.encoding >= E_COUNT) FAIL("unknown encoding");
            if ((err = page_values(d, h.encoding, physical, width, q, qend, nv, dict, dict_len))) goto out;
            (is_v2 ? v2 : v1)[h.encoding]++;
            d->data_pages[h.encoding]++;
            if (is_v2) d->v2_pages++;
            else d->v1_pages++;
            d->pages = realloc(d->pages, (d->npages + 1) * sizeof *d->pages);
            d->pages[d->npages++] = h;
        } else {
            FAIL("unexpected page type");
        }
        p = body + h.compressed;
    }
    d->dictionary_pages += dict_pages;
    d->uncompressed_total += uncompressed;
    if ((int64_t)nlevels != c->num_values) FAIL("num_values is not the number of level entries");
    if (uncompressed != c->total_uncompressed) FAIL("total_uncompressed_size is not the pages' sum");
    if (!first_data || first_data != file + c->data_page_offset) FAIL("data_page_offset is not the first data page");
    if ((c->dictionary_page_offset >= 0) != (dict_pages > 0)) FAIL("dictionary_page_offset without a dictionary page");
    /* encoding_stats: one entry per (page type, encoding) used, with its count */
    int want_stats = dict_pages > 0;
    if (fm_pages(c, PT_DICTIONARY, E_PLAIN) != dict_pages) FAIL("encoding_stats do not count the dictionary page");
    for (int e = 0; e < E_COUNT; e++) {
        want_stats += (v1[e] > 0) + (v2[e] > 0);
        if (fm_pages(c, PT_DATA, e) != v1[e] || fm_pages(c, PT_DATA_V2, e) != v2[e])
            FAIL("encoding_stats do not count the data pages");
    }
    if (c->nenc_stats != want_stats) FAIL("encoding_stats has entries for pages that do not exist");
    /* encodings: exactly those used, once each */
    bool used[E_COUNT] = { false };
    used[E_PLAIN] = dict_pages > 0;
    used[E_RLE] = max_def > 0 || max_rep > 0;
    int want_encodings = 0;
    for (int e = 0; e < E_COUNT; e++) used[e] = used[e] || v1[e] || v2[e];
    for (int e = 0; e < E_COUNT; e++) {
        want_encodings += used[e];
        if (fm_has_encoding(c, e) != used[e]) FAIL("the encodings list is not the encodings used");
    }
    if (c->nencodings != want_encodings) FAIL("the encodings list repeats an encoding");
out:
#undef FAIL
    free(dict);
    free(dict_len);
    return err;
}

/* ---- writing one column -------------------------------------------------------------------- */

typedef struct file {
    inlay_buffer out;
    fm_file *meta;
} file;

/* A writer of one column `name` into f's buffer. */
static inline inlay_writer *open_one(file *f, const char *name, inlay_repetition rep, inlay_type t,
                                     inlay_encoding_choice enc, const inlay_options *o)
{
    inlay_schema *s = inlay_schema_create(NULL);
    inlay_column_options co;
    inlay_column_options_init(&co);
    co.encoding = enc;
    int id = inlay_schema_add(s, 0, name, rep, t, &co);
    ck_assert_msg(id > 0, "%s", inlay_schema_errmsg(s));
    f->meta = NULL;
    inlay_buffer_init(&f->out, NULL);
    inlay_writer *w;
    int st = inlay_writer_open(&w, inlay_buffer_sink(&f->out), s, o);
    ck_assert_msg(st == INLAY_OK, "%s", w ? inlay_writer_errmsg(w) : "no writer");
    inlay_schema_free(s);
    return w;
}

/* Close and free w and read the footer of what it wrote. */
static inline void finish(inlay_writer *w, file *f)
{
    ck_assert_msg(inlay_writer_close(w) == INLAY_OK, "%s", inlay_writer_errmsg(w));
    inlay_writer_free(w);
    const char *why;
    f->meta = fm_read(f->out.data, f->out.len, &why);
    ck_assert_msg(f->meta != NULL, "%s", why);
}

static inline void file_free(file *f)
{
    free(f->meta);
    inlay_buffer_free(&f->out);
}

/* Decode all chunks of `path` in row-group order into d. */
static inline void decode_column(const file *f, const char *path, int width, int max_def, int max_rep,
                                 decoded *d)
{
    for (int g = 0; g < f->meta->num_row_groups; g++) {
        const fm_chunk *c = fm_find(f->meta, g, path);
        ck_assert_msg(c != NULL, "row group %d has no column %s", g, path);
        const char *why = decode_chunk(f->out.data, f->out.len, c, width, max_def, max_rep, d);
        ck_assert_msg(why == NULL, "row group %d, column %s: %s", g, path, why);
    }
}

/* The decoded values are the n fixed-width values v. */
static inline void expect_fixed(const decoded *d, const void *v, size_t n, size_t width)
{
    ck_assert_uint_eq(d->nvalues, n);
    size_t bad = 0;
    while (bad < n && d->len[bad] == width && memcmp(d->val[bad], (const uint8_t *)v + bad * width, width) == 0) bad++;
    ck_assert_msg(bad == n, "value %zu differs", bad);
}

static inline void expect_bytes(const decoded *d, const inlay_bytes *v, size_t n)
{
    ck_assert_uint_eq(d->nvalues, n);
    size_t bad = 0;
    while (bad < n && d->len[bad] == v[bad].len && (v[bad].len == 0 || memcmp(d->val[bad], v[bad].data, v[bad].len) == 0))
        bad++;
    ck_assert_msg(bad == n, "value %zu differs", bad);
}

/* Every data page of d has encoding enc (and there is at least one). */
static inline void expect_all_pages(const decoded *d, int enc)
{
    int total = 0;
    for (int e = 0; e < E_COUNT; e++) total += d->data_pages[e];
    ck_assert_msg(total > 0 && d->data_pages[enc] == total, "%d of %d data pages are %s",
                  d->data_pages[enc], total, encoding_name(enc));
}

#endif
