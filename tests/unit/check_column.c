/*
 * check_column.c — column chunks (runtime/column.c) seen from the file:
 * the dictionary decision (kept when it pays, dropped after the first page
 * when it does not, given up for PLAIN past dictionary_bytes), pages cut at
 * their limits, and chunks that decode back to what was appended.
 *
 * Files are written through the public API into a memory sink. The footer
 * is read with thrift_reader.h; the pages are then walked and decoded with
 * a small reader here (PLAIN, RLE_DICTIONARY, RLE levels; zstd bodies
 * through libzstd), independent of the encoders under test.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <zstd.h>

#include "rle_reader.h"
#include "thrift_reader.h"
#include "unit.h"

enum { PT_DATA = 0, PT_DICTIONARY = 2 };
enum { E_PLAIN = 0, E_RLE = 3, E_RLE_DICTIONARY = 8 };

/* ---- a chunk reader ------------------------------------------------------------------ */

typedef struct decoded {
    int16_t *def, *rep;
    size_t nlevels;
    const uint8_t **val;
    size_t *len;
    size_t nvalues, cap;
    int dictionary_pages, dict_data_pages, plain_data_pages;
    size_t dict_entries;
    int64_t uncompressed_total;
    void **keep;                /* decompressed bodies the values point into */
    size_t nkeep;
} decoded;

static const uint8_t bool_bytes[2] = { 0, 1 };

static void decoded_free(decoded *d)
{
    for (size_t i = 0; i < d->nkeep; i++) free(d->keep[i]);
    free(d->keep);
    free(d->def);
    free(d->rep);
    free(d->val);
    free(d->len);
    memset(d, 0, sizeof *d);
}

static void push_value(decoded *d, const uint8_t *p, size_t n)
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

/* PLAIN values of one physical type from [*q, end); false if they do not fit. */
static bool plain_values(const uint8_t **q, const uint8_t *end, int physical, int width, size_t n,
                         const uint8_t **ptr, size_t *len)
{
    const uint8_t *p = *q;
    for (size_t i = 0; i < n; i++) {
        size_t w;
        switch (physical) {
        case INLAY_BOOLEAN:
            if ((size_t)(end - p) < (n + 7) / 8) return false;
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

static int bits_for(int max)
{
    int w = 0;
    while (max >> w) w++;
    return w;
}

static bool read_levels(const uint8_t **q, const uint8_t *end, int max, size_t n, int16_t *out)
{
    if (end - *q < 4) return false;
    uint32_t len = le32(*q);
    *q += 4;
    if ((size_t)(end - *q) < len) return false;
    uint32_t *tmp = malloc((n + 1) * sizeof *tmp);
    const char *why;
    long used = hybrid_decode(*q, len, bits_for(max), tmp, n, &why);
    bool ok = used == (long)len;
    for (size_t i = 0; ok && i < n; i++) {
        ok = tmp[i] <= (uint32_t)max;
        out[i] = (int16_t)tmp[i];
    }
    free(tmp);
    *q += len;
    return ok;
}

/* Decode every page of chunk c of file[0..flen). Returns NULL, or what
 * was wrong. */
static const char *decode_chunk(const uint8_t *file, size_t flen, const fm_chunk *c, int width,
                                int max_def, int max_rep, decoded *d)
{
    const int physical = c->type;
    int64_t start = c->dictionary_page_offset >= 0 ? c->dictionary_page_offset : c->data_page_offset;
    if (start < 4 || c->total_compressed < 0 || (uint64_t)(start + c->total_compressed) > flen)
        return "chunk outside the file";
    if (c->dictionary_page_offset >= 0 && c->dictionary_page_offset >= c->data_page_offset)
        return "dictionary page after the data pages";
    const uint8_t *p = file + start, *end = p + c->total_compressed;
    const uint8_t **dict = NULL;
    size_t *dict_len = NULL;
    while (p < end) {
        ph h;
        if (!ph_read(p, (size_t)(end - p), &h)) return "page header does not parse";
        if (p == file + c->data_page_offset && h.type != PT_DATA) return "data_page_offset is not a data page";
        const uint8_t *body = p + h.header_len;
        if (h.compressed < 0 || h.uncompressed < 0 || end - body < h.compressed) return "page body outside the chunk";
        d->uncompressed_total += (int64_t)h.header_len + h.uncompressed;
        const uint8_t *raw = body;
        if (c->codec == INLAY_ZSTD) {
            void *b = malloc((size_t)h.uncompressed + 1);
            size_t r = ZSTD_decompress(b, (size_t)h.uncompressed, body, (size_t)h.compressed);
            d->keep = realloc(d->keep, (d->nkeep + 1) * sizeof *d->keep);
            d->keep[d->nkeep++] = b;
            if (ZSTD_isError(r) || r != (size_t)h.uncompressed) return "zstd body does not decompress to its size";
            raw = b;
        } else if (h.compressed != h.uncompressed) {
            return "uncompressed page with two sizes";
        }
        const uint8_t *q = raw, *qend = raw + h.uncompressed;
        if (h.type == PT_DICTIONARY) {
            if (d->dictionary_pages++ || d->nlevels) return "a second dictionary page, or one after data";
            if (h.encoding != E_PLAIN) return "dictionary page not PLAIN";
            d->dict_entries = (size_t)h.num_values;
            dict = calloc(d->dict_entries + 1, sizeof *dict);
            dict_len = calloc(d->dict_entries + 1, sizeof *dict_len);
            if (!plain_values(&q, qend, physical, width, d->dict_entries, dict, dict_len) || q != qend)
                return "dictionary page size does not match its entries";
        } else if (h.type == PT_DATA) {
            size_t n = (size_t)h.num_values;
            if (h.def_encoding != E_RLE || h.rep_encoding != E_RLE) return "levels not RLE";
            d->def = realloc(d->def, (d->nlevels + n + 1) * sizeof *d->def);
            d->rep = realloc(d->rep, (d->nlevels + n + 1) * sizeof *d->rep);
            int16_t *def = d->def + d->nlevels, *rep = d->rep + d->nlevels;
            for (size_t i = 0; i < n; i++) def[i] = (int16_t)max_def, rep[i] = 0;
            if (max_rep > 0 && !read_levels(&q, qend, max_rep, n, rep)) return "repetition levels";
            if (max_def > 0 && !read_levels(&q, qend, max_def, n, def)) return "definition levels";
            if (n && rep[0] != 0) return "page does not start a row";
            d->nlevels += n;
            size_t nv = 0;
            for (size_t i = 0; i < n; i++) nv += def[i] == max_def;
            if (h.encoding == E_PLAIN) {
                d->plain_data_pages++;
                const uint8_t **ptr = calloc(nv + 1, sizeof *ptr);
                size_t *len = calloc(nv + 1, sizeof *len);
                bool ok = plain_values(&q, qend, physical, width, nv, ptr, len) && q == qend;
                for (size_t i = 0; ok && i < nv; i++) push_value(d, ptr[i], len[i]);
                free(ptr);
                free(len);
                if (!ok) return "PLAIN values do not fill the page";
            } else if (h.encoding == E_RLE_DICTIONARY) {
                d->dict_data_pages++;
                if (!dict) return "dictionary-encoded page without a dictionary";
                if (q >= qend && nv) return "no index width";
                int w = nv ? *q++ : 0;
                if (w > 32) return "index width above 32";
                uint32_t *idx = malloc((nv + 1) * sizeof *idx);
                const char *why = "";
                long used = nv ? hybrid_decode(q, (size_t)(qend - q), w, idx, nv, &why) : (long)(qend - q);
                bool ok = used == (long)(qend - q);
                for (size_t i = 0; ok && i < nv; i++) {
                    ok = idx[i] < d->dict_entries;
                    if (ok) push_value(d, dict[idx[i]], dict_len[idx[i]]);
                }
                free(idx);
                if (!ok) return *why ? why : "dictionary indices";
            } else {
                return "unexpected data page encoding";
            }
        } else {
            return "unexpected page type";
        }
        p = body + h.compressed;
    }
    free(dict);
    free(dict_len);
    if ((int64_t)d->nlevels != c->num_values) return "num_values is not the number of level entries";
    if (d->uncompressed_total != c->total_uncompressed) return "total_uncompressed_size is not the pages' sum";
    if (fm_pages(c, PT_DICTIONARY, E_PLAIN) != d->dictionary_pages ||
        fm_pages(c, PT_DATA, E_RLE_DICTIONARY) != d->dict_data_pages ||
        fm_pages(c, PT_DATA, E_PLAIN) != d->plain_data_pages)
        return "encoding_stats do not count the pages";
    if ((c->dictionary_page_offset >= 0) != (d->dictionary_pages > 0)) return "dictionary_page_offset without a dictionary page";
    if (fm_has_encoding(c, E_RLE_DICTIONARY) != (d->dict_data_pages > 0)) return "encodings list vs RLE_DICTIONARY pages";
    if (fm_has_encoding(c, E_PLAIN) != (d->plain_data_pages > 0 || d->dictionary_pages > 0))
        return "encodings list vs PLAIN pages";
    return NULL;
}

/* ---- writing ---------------------------------------------------------------------------- */

typedef struct file {
    inlay_buffer out;
    fm_file *meta;
} file;

static inlay_options options(void)
{
    inlay_options o;
    inlay_options_init(&o);
    o.compression = INLAY_UNCOMPRESSED;
    o.page_rows = 1000;
    return o;
}

static inlay_writer *open_one(file *f, const char *name, inlay_repetition rep, inlay_type t,
                              inlay_encoding_choice enc, const inlay_options *o)
{
    inlay_schema *s = inlay_schema_create(NULL);
    inlay_column_options co;
    inlay_column_options_init(&co);
    co.encoding = enc;
    ck_assert_int_gt(inlay_schema_add(s, 0, name, rep, t, &co), 0);
    f->meta = NULL;
    inlay_buffer_init(&f->out, NULL);
    inlay_writer *w;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&f->out), s, o), INLAY_OK);
    inlay_schema_free(s);
    return w;
}

static void finish(inlay_writer *w, file *f)
{
    ck_assert_msg(inlay_writer_close(w) == INLAY_OK, "%s", inlay_writer_errmsg(w));
    inlay_writer_free(w);
    const char *why;
    f->meta = fm_read(f->out.data, f->out.len, &why);
    ck_assert_msg(f->meta != NULL, "%s", why);
}

static void file_free(file *f)
{
    free(f->meta);
    inlay_buffer_free(&f->out);
}

/* Decode all chunks of `path` in order, into d. */
static void decode_column(const file *f, const char *path, int width, int max_def, int max_rep, decoded *d)
{
    for (int g = 0; g < f->meta->num_row_groups; g++) {
        const fm_chunk *c = fm_find(f->meta, g, path);
        ck_assert_ptr_nonnull(c);
        decoded part = { 0 };
        const char *why = decode_chunk(f->out.data, f->out.len, c, width, max_def, max_rep, &part);
        ck_assert_msg(why == NULL, "row group %d, column %s: %s", g, path, why);
        /* append part to d */
        d->def = realloc(d->def, (d->nlevels + part.nlevels + 1) * sizeof *d->def);
        d->rep = realloc(d->rep, (d->nlevels + part.nlevels + 1) * sizeof *d->rep);
        if (part.nlevels) {
            memcpy(d->def + d->nlevels, part.def, part.nlevels * sizeof *d->def);
            memcpy(d->rep + d->nlevels, part.rep, part.nlevels * sizeof *d->rep);
        }
        d->nlevels += part.nlevels;
        for (size_t i = 0; i < part.nvalues; i++) push_value(d, part.val[i], part.len[i]);
        d->keep = realloc(d->keep, (d->nkeep + part.nkeep + 1) * sizeof *d->keep);
        for (size_t i = 0; i < part.nkeep; i++) d->keep[d->nkeep++] = part.keep[i];
        part.nkeep = 0;
        d->dictionary_pages += part.dictionary_pages;
        d->dict_data_pages += part.dict_data_pages;
        d->plain_data_pages += part.plain_data_pages;
        decoded_free(&part);
    }
}

/* The decoded values are the n fixed-width values v. */
static void expect_fixed(const decoded *d, const void *v, size_t n, size_t width)
{
    ck_assert_uint_eq(d->nvalues, n);
    size_t bad = 0;
    while (bad < n && d->len[bad] == width && memcmp(d->val[bad], (const uint8_t *)v + bad * width, width) == 0) bad++;
    ck_assert_msg(bad == n, "value %zu differs", bad);
}

static void expect_bytes(const decoded *d, const inlay_bytes *v, size_t n)
{
    ck_assert_uint_eq(d->nvalues, n);
    size_t bad = 0;
    while (bad < n && d->len[bad] == v[bad].len && (v[bad].len == 0 || memcmp(d->val[bad], v[bad].data, v[bad].len) == 0))
        bad++;
    ck_assert_msg(bad == n, "value %zu differs", bad);
}

/* ---- dictionary fallback ------------------------------------------------------------------ */

enum { LOW = 5000, ROWS = 25000 };

static int32_t fallback_value(size_t i)
{
    return i < LOW ? (int32_t)(i % 16) : (int32_t)(1000000 + i);
}

START_TEST(test_fallback_int32)
{
    inlay_options o = options();
    o.dictionary_bytes = 4096;
    file f;
    inlay_writer *w = open_one(&f, "v", INLAY_REQUIRED, inlay_type_physical(INLAY_INT32),
                               INLAY_ENCODING_AUTO, &o);
    static int32_t v[ROWS];
    for (size_t i = 0; i < ROWS; i++) v[i] = fallback_value(i);
    for (size_t i = 0; i < ROWS; i += 3000)
        ck_assert_int_eq(inlay_writer_append_i32(w, 0, v + i, ROWS - i < 3000 ? ROWS - i : 3000, NULL), 0);
    finish(w, &f);
    ck_assert_int_eq(f.meta->num_row_groups, 1);
    const fm_chunk *c = fm_find(f.meta, 0, "v");
    ck_assert_int_eq(fm_pages(c, PT_DICTIONARY, E_PLAIN), 1);
    ck_assert_int_ge(fm_pages(c, PT_DATA, E_RLE_DICTIONARY), LOW / 1000);
    ck_assert_int_gt(fm_pages(c, PT_DATA, E_PLAIN), 0);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_RLE_DICTIONARY) + fm_pages(c, PT_DATA, E_PLAIN), ROWS / 1000);
    ck_assert_int_ge(c->dictionary_page_offset, 4);
    ck_assert_int_lt(c->dictionary_page_offset, c->data_page_offset);
    ck_assert(fm_has_encoding(c, E_PLAIN) && fm_has_encoding(c, E_RLE_DICTIONARY));
    decoded d = { 0 };
    decode_column(&f, "v", 4, 0, 0, &d);
    expect_fixed(&d, v, ROWS, 4);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_fallback_strings)
{
    inlay_options o = options();
    o.dictionary_bytes = 8192;
    o.compression = INLAY_ZSTD;
    file f;
    inlay_writer *w = open_one(&f, "s", INLAY_REQUIRED, inlay_type_string(), INLAY_ENCODING_AUTO, &o);
    enum { N = 20000 };
    static char text[N][24];
    static inlay_bytes v[N];
    for (size_t i = 0; i < N; i++) {
        int n = i < 3000 ? snprintf(text[i], sizeof text[i], "k%zu", i % 10)
                         : snprintf(text[i], sizeof text[i], "distinct-%06zu", i);
        v[i].data = text[i];
        v[i].len = (size_t)n;
    }
    ck_assert_int_eq(inlay_writer_append_bytes(w, 0, v, N, NULL), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "s");
    ck_assert_int_eq(fm_pages(c, PT_DICTIONARY, E_PLAIN), 1);
    ck_assert_int_gt(fm_pages(c, PT_DATA, E_RLE_DICTIONARY), 0);
    ck_assert_int_gt(fm_pages(c, PT_DATA, E_PLAIN), 0);
    decoded d = { 0 };
    decode_column(&f, "s", 0, 0, 0, &d);
    expect_bytes(&d, v, N);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_fallback_per_row_group)
{
    /* every chunk decides afresh: rows 0..3999 low-cardinality, then distinct */
    inlay_options o = options();
    o.dictionary_bytes = 4096;
    o.row_group_rows = 4000;
    file f;
    inlay_writer *w = open_one(&f, "v", INLAY_REQUIRED, inlay_type_physical(INLAY_INT32),
                               INLAY_ENCODING_AUTO, &o);
    static int32_t v[ROWS];
    for (size_t i = 0; i < ROWS; i++) v[i] = fallback_value(i);
    ck_assert_int_eq(inlay_writer_append_i32(w, 0, v, ROWS, NULL), 0);
    finish(w, &f);
    ck_assert_int_eq(f.meta->num_row_groups, (ROWS + 3999) / 4000);
    const fm_chunk *first = fm_find(f.meta, 0, "v"), *last = fm_find(f.meta, 3, "v");
    ck_assert_int_eq(fm_pages(first, PT_DATA, E_PLAIN), 0);          /* all 16 values */
    ck_assert_int_eq(fm_pages(first, PT_DATA, E_RLE_DICTIONARY), 4);
    ck_assert_int_eq(fm_pages(last, PT_DATA, E_RLE_DICTIONARY), 0);  /* distinct from its first page */
    ck_assert_int_eq(last->dictionary_page_offset, -1);
    decoded d = { 0 };
    decode_column(&f, "v", 4, 0, 0, &d);
    expect_fixed(&d, v, ROWS, 4);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_forced_dictionary_fallback)
{
    /* DICTIONARY keeps a dictionary that does not pay, up to dictionary_bytes */
    inlay_options o = options();
    o.dictionary_bytes = 16000;
    file f;
    inlay_writer *w = open_one(&f, "v", INLAY_REQUIRED, inlay_type_physical(INLAY_INT64),
                               INLAY_ENCODING_DICTIONARY, &o);
    enum { N = 6000 };
    static int64_t v[N];
    for (size_t i = 0; i < N; i++) v[i] = (int64_t)(i * 7919);
    ck_assert_int_eq(inlay_writer_append_i64(w, 0, v, N, NULL), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "v");
    ck_assert_int_eq(fm_pages(c, PT_DICTIONARY, E_PLAIN), 1);
    ck_assert_int_ge(fm_pages(c, PT_DATA, E_RLE_DICTIONARY), 2);
    ck_assert_int_gt(fm_pages(c, PT_DATA, E_PLAIN), 0);
    decoded d = { 0 };
    decode_column(&f, "v", 8, 0, 0, &d);
    expect_fixed(&d, v, N, 8);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

/* ---- the dictionary decision ------------------------------------------------------------- */

START_TEST(test_low_cardinality)
{
    inlay_options o = options();
    file f;
    inlay_writer *w = open_one(&f, "v", INLAY_REQUIRED, inlay_type_physical(INLAY_INT64),
                               INLAY_ENCODING_AUTO, &o);
    enum { N = 10000 };
    static int64_t v[N];
    for (size_t i = 0; i < N; i++) v[i] = (int64_t)(i % 100) - 50;
    ck_assert_int_eq(inlay_writer_append_i64(w, 0, v, N, NULL), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "v");
    ck_assert_int_eq(fm_pages(c, PT_DICTIONARY, E_PLAIN), 1);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_RLE_DICTIONARY), N / 1000);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_PLAIN), 0);
    ck_assert_int_eq(c->dictionary_page_offset, 4);          /* the first chunk of the file */
    ck_assert_int_gt(c->data_page_offset, c->dictionary_page_offset);
    decoded d = { 0 };
    decode_column(&f, "v", 8, 0, 0, &d);
    expect_fixed(&d, v, N, 8);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_high_cardinality_plain)
{
    inlay_options o = options();
    file f;
    inlay_writer *w = open_one(&f, "v", INLAY_REQUIRED, inlay_type_physical(INLAY_INT64),
                               INLAY_ENCODING_AUTO, &o);
    enum { N = 10000 };
    static int64_t v[N];
    for (size_t i = 0; i < N; i++) v[i] = (int64_t)i * 1000003;
    ck_assert_int_eq(inlay_writer_append_i64(w, 0, v, N, NULL), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "v");
    ck_assert_int_eq(c->dictionary_page_offset, -1);
    ck_assert_int_eq(fm_pages(c, PT_DICTIONARY, E_PLAIN), 0);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_RLE_DICTIONARY), 0);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_PLAIN), N / 1000);
    decoded d = { 0 };
    decode_column(&f, "v", 8, 0, 0, &d);
    expect_fixed(&d, v, N, 8);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_plain_option)
{
    inlay_options o = options();
    file f;
    inlay_writer *w = open_one(&f, "v", INLAY_REQUIRED, inlay_type_string(), INLAY_ENCODING_PLAIN, &o);
    enum { N = 3000 };
    static inlay_bytes v[N];
    for (size_t i = 0; i < N; i++) v[i] = bytes_of(i % 2 ? "odd" : "even");
    ck_assert_int_eq(inlay_writer_append_bytes(w, 0, v, N, NULL), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "v");
    ck_assert_int_eq(c->dictionary_page_offset, -1);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_RLE_DICTIONARY), 0);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_PLAIN), 3);
    decoded d = { 0 };
    decode_column(&f, "v", 0, 0, 0, &d);
    expect_bytes(&d, v, N);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_forced_dictionary_high_cardinality)
{
    inlay_options o = options();
    file f;
    inlay_writer *w = open_one(&f, "v", INLAY_REQUIRED, inlay_type_physical(INLAY_INT32),
                               INLAY_ENCODING_DICTIONARY, &o);
    enum { N = 3000 };
    static int32_t v[N];
    for (size_t i = 0; i < N; i++) v[i] = (int32_t)(i * 2654435761u);
    ck_assert_int_eq(inlay_writer_append_i32(w, 0, v, N, NULL), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "v");
    ck_assert_int_eq(fm_pages(c, PT_DICTIONARY, E_PLAIN), 1);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_RLE_DICTIONARY), 3);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_PLAIN), 0);
    decoded d = { 0 };
    decode_column(&f, "v", 4, 0, 0, &d);
    expect_fixed(&d, v, N, 4);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_float_bits_kept)
{
    /* the dictionary keys floats by bit pattern: -0.0, +0.0 and two NaNs
     * come back with their exact bits */
    inlay_options o = options();
    file f;
    inlay_writer *w = open_one(&f, "v", INLAY_REQUIRED, inlay_type_double(), INLAY_ENCODING_DICTIONARY, &o);
    enum { N = 400 };
    static double v[N];
    const uint64_t nan1 = 0x7FF8000000000001ULL, nan2 = 0xFFF8000000000002ULL;
    for (size_t i = 0; i < N; i++) {
        switch (i % 5) {
        case 0: v[i] = 0.0; break;
        case 1: v[i] = -0.0; break;
        case 2: memcpy(&v[i], &nan1, 8); break;
        case 3: memcpy(&v[i], &nan2, 8); break;
        default: v[i] = 1.5; break;
        }
    }
    ck_assert_int_eq(inlay_writer_append_double(w, 0, v, N, NULL), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "v");
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_RLE_DICTIONARY), 1);
    decoded d = { 0 };
    decode_column(&f, "v", 8, 0, 0, &d);
    expect_fixed(&d, v, N, 8);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

/* ---- levels and other types ---------------------------------------------------------------- */

START_TEST(test_optional_strings)
{
    inlay_options o = options();
    o.compression = INLAY_ZSTD;
    o.page_rows = 300;
    file f;
    inlay_writer *w = open_one(&f, "s", INLAY_OPTIONAL, inlay_type_string(), (inlay_encoding_choice)_i, &o);
    enum { N = 2000 };
    static char text[N][16];
    static inlay_bytes v[N];
    static int16_t def[N];
    size_t nv = 0;
    for (size_t i = 0; i < N; i++) {
        def[i] = i % 3 != 0;
        if (def[i]) {
            int n = snprintf(text[nv], sizeof text[nv], "%zu", i % 50);
            v[nv].data = text[nv];
            v[nv].len = (size_t)n;
            nv++;
        }
    }
    inlay_levels lv = { def, NULL, NULL };
    ck_assert_int_eq(inlay_writer_append_bytes(w, 0, v, N, &lv), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "s");
    ck_assert_int_eq(c->num_values, N);
    ck_assert_int_eq(c->null_count, N - (int64_t)nv);
    ck_assert(fm_has_encoding(c, E_RLE));
    decoded d = { 0 };
    decode_column(&f, "s", 0, 1, 0, &d);
    ck_assert_uint_eq(d.nlevels, N);
    ck_assert_int_eq(memcmp(d.def, def, sizeof def), 0);
    expect_bytes(&d, v, nv);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_nested_list)
{
    /* optional group tags { repeated group list { optional int32 element } },
     * rows cycling through [r, null], null, [], [r, r+1, r+2] */
    inlay_schema *s = inlay_schema_create(NULL);
    int tags = inlay_schema_add_group(s, 0, "tags", INLAY_OPTIONAL);
    int list = inlay_schema_add_group(s, tags, "list", INLAY_REPEATED);
    ck_assert_int_gt(inlay_schema_add(s, list, "element", INLAY_OPTIONAL, inlay_type_int(32, true), NULL), 0);
    inlay_options o = options();
    o.page_rows = 70;
    o.row_group_rows = 250;
    o.compression = INLAY_ZSTD;
    file f = { .meta = NULL };
    inlay_buffer_init(&f.out, NULL);
    inlay_writer *w;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&f.out), s, &o), INLAY_OK);
    inlay_schema_free(s);
    enum { R = 1000 };
    static int16_t def[3 * R], rep[3 * R];
    static int32_t v[3 * R];
    size_t n = 0, nv = 0;
    for (int r = 0; r < R; r++) {
        switch (r % 4) {
        case 0:
            def[n] = 3; rep[n++] = 0; v[nv++] = r;
            def[n] = 2; rep[n++] = 1;
            break;
        case 1: def[n] = 0; rep[n++] = 0; break;
        case 2: def[n] = 1; rep[n++] = 0; break;
        default:
            for (int k = 0; k < 3; k++) { def[n] = 3; rep[n++] = k ? 1 : 0; v[nv++] = r + k; }
            break;
        }
    }
    /* in uneven batches that start at row boundaries */
    size_t at = 0, vat = 0;
    while (at < n) {
        size_t end = at + 37 < n ? at + 37 : n;
        while (end < n && rep[end] != 0) end++;
        size_t vals = 0;
        for (size_t i = at; i < end; i++) vals += def[i] == 3;
        inlay_levels lv = { def + at, rep + at, NULL };
        ck_assert_int_eq(inlay_writer_append_i32(w, 0, v + vat, end - at, &lv), 0);
        at = end;
        vat += vals;
    }
    ck_assert_uint_eq(inlay_writer_rows(w), R);
    finish(w, &f);
    ck_assert_int_eq(f.meta->num_rows, R);
    ck_assert_int_eq(f.meta->num_row_groups, R / 250);
    for (int g = 0; g < f.meta->num_row_groups; g++) ck_assert_int_eq(f.meta->row_group_rows[g], 250);
    decoded d = { 0 };
    decode_column(&f, "tags.list.element", 4, 3, 1, &d);
    ck_assert_uint_eq(d.nlevels, n);
    ck_assert_int_eq(memcmp(d.def, def, n * sizeof *def), 0);
    ck_assert_int_eq(memcmp(d.rep, rep, n * sizeof *rep), 0);
    expect_fixed(&d, v, nv, 4);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_booleans)
{
    inlay_options o = options();
    o.page_rows = 333;
    file f;
    inlay_writer *w = open_one(&f, "b", INLAY_OPTIONAL, inlay_type_boolean(), INLAY_ENCODING_AUTO, &o);
    enum { N = 1000 };
    static bool v[N];
    static uint8_t valid[(N + 7) / 8], want[N];
    static int16_t def[N];
    size_t nv = 0;
    for (size_t i = 0; i < N; i++) {
        v[i] = (i * 7) % 3 == 0;
        def[i] = i % 11 != 0;
        if (def[i]) {
            valid[i / 8] |= (uint8_t)(1u << (i % 8));
            want[nv++] = v[i];
        }
    }
    inlay_levels lv = { NULL, NULL, valid };       /* spaced values with a bitmap */
    ck_assert_int_eq(inlay_writer_append_bool(w, 0, v, N, &lv), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "b");
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_PLAIN), 4);
    ck_assert_int_eq(c->dictionary_page_offset, -1);
    decoded d = { 0 };
    decode_column(&f, "b", 1, 1, 0, &d);
    ck_assert_int_eq(memcmp(d.def, def, sizeof def), 0);
    expect_fixed(&d, want, nv, 1);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_fixed_len)
{
    inlay_options o = options();
    file f;
    inlay_writer *w = open_one(&f, "u", INLAY_REQUIRED, inlay_type_uuid(), (inlay_encoding_choice)_i, &o);
    enum { N = 1500 };
    static uint8_t raw[N][16];
    static inlay_bytes v[N];
    for (size_t i = 0; i < N; i++) {
        for (int k = 0; k < 16; k++) raw[i][k] = (uint8_t)((i < 700 ? i % 5 : i) * 31 + (size_t)k);
        v[i].data = raw[i];
        v[i].len = 16;
    }
    ck_assert_int_eq(inlay_writer_append_bytes(w, 0, v, N, NULL), 0);
    finish(w, &f);
    decoded d = { 0 };
    decode_column(&f, "u", 16, 0, 0, &d);
    expect_bytes(&d, v, N);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

/* ---- page limits ---------------------------------------------------------------------------- */

START_TEST(test_page_bytes)
{
    /* PLAIN byte arrays end their page once page_bytes are reached */
    inlay_options o = options();
    o.page_bytes = 4096;
    o.page_rows = 100000;
    file f;
    inlay_writer *w = open_one(&f, "s", INLAY_REQUIRED, inlay_type_binary(), INLAY_ENCODING_PLAIN, &o);
    enum { N = 1000 };
    static uint8_t raw[N][100];
    static inlay_bytes v[N];
    for (size_t i = 0; i < N; i++) {
        memset(raw[i], (int)(i & 0xff), 100);
        v[i].data = raw[i];
        v[i].len = 100;
    }
    ck_assert_int_eq(inlay_writer_append_bytes(w, 0, v, N, NULL), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "s");
    int pages = fm_pages(c, PT_DATA, E_PLAIN);
    /* 104 bytes a value: about 40 values a page */
    ck_assert_int_ge(pages, N * 104 / (4096 + 104));
    ck_assert_int_le(pages, N * 104 / (4096 - 104) + 1);
    decoded d = { 0 };
    decode_column(&f, "s", 0, 0, 0, &d);
    expect_bytes(&d, v, N);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_page_rows)
{
    inlay_options o = options();
    o.page_rows = 128;
    file f;
    inlay_writer *w = open_one(&f, "v", INLAY_OPTIONAL, inlay_type_float(), INLAY_ENCODING_AUTO, &o);
    enum { N = 1000 };
    static float v[N];
    for (size_t i = 0; i < N; i++) v[i] = (float)(i % 10) / 4.0f;
    for (size_t i = 0; i < N; i += 100) ck_assert_int_eq(inlay_writer_append_float(w, 0, v + i, 100, NULL), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "v");
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_RLE_DICTIONARY) + fm_pages(c, PT_DATA, E_PLAIN), (N + 127) / 128);
    decoded d = { 0 };
    decode_column(&f, "v", 4, 1, 0, &d);
    expect_fixed(&d, v, N, 4);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

static Suite *column_suite(void)
{
    Suite *s = suite_create("column");
    TCase *c;

    c = tcase_create("dictionary fallback");
    tcase_set_timeout(c, 60);
    tcase_add_test(c, test_fallback_int32);
    tcase_add_test(c, test_fallback_strings);
    tcase_add_test(c, test_fallback_per_row_group);
    tcase_add_test(c, test_forced_dictionary_fallback);
    suite_add_tcase(s, c);

    c = tcase_create("dictionary decision");
    tcase_add_test(c, test_low_cardinality);
    tcase_add_test(c, test_high_cardinality_plain);
    tcase_add_test(c, test_plain_option);
    tcase_add_test(c, test_forced_dictionary_high_cardinality);
    tcase_add_test(c, test_float_bits_kept);
    suite_add_tcase(s, c);

    /* loop index: AUTO, PLAIN, DICTIONARY */
    c = tcase_create("levels and types");
    tcase_add_loop_test(c, test_optional_strings, 0, 3);
    tcase_add_test(c, test_nested_list);
    tcase_add_test(c, test_booleans);
    tcase_add_loop_test(c, test_fixed_len, 0, 3);
    suite_add_tcase(s, c);

    c = tcase_create("page limits");
    tcase_add_test(c, test_page_bytes);
    tcase_add_test(c, test_page_rows);
    suite_add_tcase(s, c);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(column_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
