/*
 * interop_handmade OUTDIR
 *
 * Parquet files no writer at hand produces, assembled here byte by byte
 * (thrift compact footer and page headers, PLAIN and RLE_DICTIONARY values,
 * RLE / bit-packed hybrid levels, v1 data pages, no compression), each
 * NAME.parquet with a NAME.json in the form fixtures.c documents (flat:
 * "columns"; nested: "nested": true with "fields"), holding the values the
 * file must read as. foreign.mjs reads each with interop_read_dump (inlay's
 * reader) and with DuckDB and compares both with the JSON.
 *
 *   hand__int96            INT96 timestamps (Impala / Hive / Spark), plain
 *                          with nulls and dictionary encoded, two row groups
 *                          of several pages: read as timestamp(ns), not
 *                          adjusted to UTC (as arrow-rs and DuckDB read
 *                          them), from the extremes of the int64 range of
 *                          nanoseconds to the last nanosecond of a day.
 *   hand__legacy_lists     the backward-compatibility rules of
 *                          LogicalTypes.md: two-level lists (a repeated
 *                          primitive under a LIST group; a repeated group
 *                          named "array" or "<name>_tuple" of one field,
 *                          which is the element; a repeated group of two
 *                          fields, which is the element), a three-level list
 *                          whose groups have other names ("bag", "item"),
 *                          a MAP whose repeated group is annotated
 *                          MAP_KEY_VALUE, and bare repeated fields (no
 *                          annotation: a primitive and a group).
 *   hand__converted_types  annotations by converted_type only (no
 *                          logicalType), as older writers leave them:
 *                          TIMESTAMP_MILLIS/MICROS, TIME_MILLIS/MICROS
 *                          (adjusted to UTC, as the spec maps them), DECIMAL
 *                          with precision and scale on the element, UINT_8,
 *                          INT_16, UINT_64, UTF8, ENUM, JSON, DATE, and
 *                          INTERVAL, which inlay has no type for (fixed 12).
 *   hand__unknown_types    more that inlay reads as the physical type:
 *                          logicalType BSON (without the converted type,
 *                          which DuckDB refuses), UNKNOWN (all null), and a
 *                          logicalType union member this program invents
 *                          (id 30, with fields) that a reader must skip.
 *   hand__bitpacked_levels definition and repetition levels in the
 *                          deprecated BIT_PACKED encoding (v1 pages of old
 *                          parquet-mr), for an optional column and a list.
 *
 * Exit status: 0, or 2 on a usage or internal error.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("interop_handmade: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

/*----------------------------------------------------------------------
 *  Growable buffers
 *--------------------------------------------------------------------*/

typedef struct gbuf {
    uint8_t *p;
    size_t len, cap;
} gbuf;

static void gb_put(gbuf *b, const void *d, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p)
            die("out of memory");
        b->p = p;
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, d, n);
    b->len += n;
    b->p[b->len] = 0;
}

static void gb_byte(gbuf *b, uint8_t v) { gb_put(b, &v, 1); }

static void gb_u32le(gbuf *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    gb_put(b, x, 4);
}

static void gb_printf(gbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        die("vsnprintf");
    char *tmp = malloc((size_t)n + 1);
    if (!tmp)
        die("out of memory");
    va_start(ap, fmt);
    vsnprintf(tmp, (size_t)n + 1, fmt, ap);
    va_end(ap);
    gb_put(b, tmp, (size_t)n);
    free(tmp);
}

static void gb_free(gbuf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* A JSON string literal (the texts here are ASCII or valid UTF-8). */
static void gb_json_str(gbuf *b, const char *s, size_t n)
{
    gb_byte(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            gb_byte(b, '\\');
            gb_byte(b, c);
        } else if (c < 0x20) {
            gb_printf(b, "\\u%04x", c);
        } else {
            gb_byte(b, c);
        }
    }
    gb_byte(b, '"');
}

static void gb_hex(gbuf *b, const uint8_t *p, size_t n)
{
    gb_byte(b, '"');
    for (size_t i = 0; i < n; i++)
        gb_printf(b, "%02x", p[i]);
    gb_byte(b, '"');
}

/*----------------------------------------------------------------------
 *  Thrift compact protocol, writing
 *--------------------------------------------------------------------*/

enum { CT_TRUE = 1, CT_FALSE = 2, CT_BYTE = 3, CT_I16 = 4, CT_I32 = 5, CT_I64 = 6, CT_BINARY = 8, CT_LIST = 9,
       CT_STRUCT = 12 };

typedef struct tw {
    gbuf *b;
    int16_t last[32];
    int depth;
} tw;

static void tw_varint(tw *t, uint64_t v)
{
    while (v >= 0x80) {
        gb_byte(t->b, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    gb_byte(t->b, (uint8_t)v);
}

static void tw_zz(tw *t, int64_t v) { tw_varint(t, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63)); }

static void tw_field(tw *t, int id, int type)
{
    int d = id - t->last[t->depth];
    if (d > 0 && d <= 15) {
        gb_byte(t->b, (uint8_t)(d << 4 | type));
    } else {
        gb_byte(t->b, (uint8_t)type);
        tw_zz(t, id);
    }
    t->last[t->depth] = (int16_t)id;
}

static void tw_i32(tw *t, int id, int32_t v)
{
    tw_field(t, id, CT_I32);
    tw_zz(t, v);
}

static void tw_i64(tw *t, int id, int64_t v)
{
    tw_field(t, id, CT_I64);
    tw_zz(t, v);
}

static void tw_bool(tw *t, int id, bool v) { tw_field(t, id, v ? CT_TRUE : CT_FALSE); }

static void tw_str(tw *t, int id, const char *s)
{
    tw_field(t, id, CT_BINARY);
    tw_varint(t, strlen(s));
    gb_put(t->b, s, strlen(s));
}

static void tw_push(tw *t)
{
    if (++t->depth >= 32)
        die("thrift nesting");
    t->last[t->depth] = 0;
}

static void tw_struct(tw *t, int id)
{
    tw_field(t, id, CT_STRUCT);
    tw_push(t);
}

static void tw_end(tw *t)
{
    gb_byte(t->b, 0);
    t->depth--;
}

static void tw_list(tw *t, int id, int elem, size_t n)
{
    tw_field(t, id, CT_LIST);
    if (n < 15) {
        gb_byte(t->b, (uint8_t)(n << 4 | (size_t)elem));
    } else {
        gb_byte(t->b, (uint8_t)(0xf0 | elem));
        tw_varint(t, n);
    }
}

/* an element struct of a list: no field header */
static void tw_elem_struct(tw *t) { tw_push(t); }

static void tw_elem_str(tw *t, const char *s)
{
    tw_varint(t, strlen(s));
    gb_put(t->b, s, strlen(s));
}

/*----------------------------------------------------------------------
 *  Parquet enums
 *--------------------------------------------------------------------*/

enum { T_BOOLEAN = 0, T_INT32 = 1, T_INT64 = 2, T_INT96 = 3, T_FLOAT = 4, T_DOUBLE = 5, T_BYTE_ARRAY = 6,
       T_FLBA = 7 };
enum { REQ = 0, OPT = 1, REP = 2 };
enum { CV_NONE = -1, CV_UTF8 = 0, CV_MAP = 1, CV_MAP_KEY_VALUE = 2, CV_LIST = 3, CV_ENUM = 4, CV_DECIMAL = 5,
       CV_DATE = 6, CV_TIME_MILLIS = 7, CV_TIME_MICROS = 8, CV_TIMESTAMP_MILLIS = 9, CV_TIMESTAMP_MICROS = 10,
       CV_UINT_8 = 11, CV_UINT_64 = 14, CV_INT_16 = 16, CV_JSON = 19, CV_BSON = 20, CV_INTERVAL = 21 };
enum { E_PLAIN = 0, E_RLE = 3, E_BIT_PACKED = 4, E_RLE_DICTIONARY = 8 };
enum { LT_NONE = 0, LT_UNKNOWN = 11, LT_BSON = 13, LT_INVENTED = 30 };

/*----------------------------------------------------------------------
 *  Schema, columns and files
 *--------------------------------------------------------------------*/

typedef struct selem {
    const char *name;
    int type;          /* -1 for a group */
    int type_length;
    int rep;
    int num_children;
    int converted;     /* CV_* */
    int scale, precision;
    int logical;       /* LT_* (written as an empty-struct member of that id) */
} selem;

typedef struct column {
    const char *path[8];       /* path in schema */
    int npath;
    int type, type_length;
    int max_def, max_rep;
    bool dictionary;           /* RLE_DICTIONARY data pages with a PLAIN dictionary page */
    bool bit_packed_levels;    /* levels in the deprecated BIT_PACKED encoding */
    /* all rows, appended by the generators */
    gbuf def, rep;             /* int16 levels */
    size_t nlevels;
    gbuf items;                /* PLAIN bytes of each present value, back to back */
    gbuf item_off;             /* size_t offsets of the items, count + 1 */
    size_t nitems;
    gbuf row_level;            /* size_t: first level of each row, rows + 1 */
    gbuf row_item;             /* size_t: first item of each row, rows + 1 */
    size_t rows;
} column;

#define MAX_SCHEMA 64
#define MAX_COLUMNS 32

typedef struct pfile {
    const char *name;
    selem schema[MAX_SCHEMA];
    int nschema;
    column cols[MAX_COLUMNS];
    int ncols;
    size_t rows;
    size_t rg_rows;            /* rows per row group */
    size_t page_rows;          /* rows per data page */
    gbuf json;                 /* the fields' or columns' JSON, comma separated */
} pfile;

static const char *g_outdir;

static void schema_add(pfile *f, selem e)
{
    if (f->nschema == MAX_SCHEMA)
        die("schema too large");
    f->schema[f->nschema++] = e;
}

static selem group(const char *name, int rep, int num_children, int converted)
{
    return (selem){name, -1, 0, rep, num_children, converted, 0, 0, LT_NONE};
}

static selem leaf(const char *name, int type, int rep, int converted)
{
    return (selem){name, type, 0, rep, 0, converted, 0, 0, LT_NONE};
}

static column *add_column(pfile *f, int type, int type_length, int max_def, int max_rep, int npath, ...)
{
    if (f->ncols == MAX_COLUMNS)
        die("too many columns");
    column *c = &f->cols[f->ncols++];
    memset(c, 0, sizeof *c);
    c->type = type;
    c->type_length = type_length;
    c->max_def = max_def;
    c->max_rep = max_rep;
    va_list ap;
    va_start(ap, npath);
    for (int i = 0; i < npath; i++)
        c->path[i] = va_arg(ap, const char *);
    va_end(ap);
    c->npath = npath;
    size_t zero = 0;
    gb_put(&c->item_off, &zero, sizeof zero);
    gb_put(&c->row_level, &zero, sizeof zero);
    gb_put(&c->row_item, &zero, sizeof zero);
    return c;
}

/* One level entry, with the PLAIN bytes of its value when def == max_def. */
static void put_level(column *c, int def, int rep, const void *plain, size_t n)
{
    int16_t d = (int16_t)def, r = (int16_t)rep;
    if (def < 0 || def > c->max_def || rep < 0 || rep > c->max_rep)
        die("level out of range");
    gb_put(&c->def, &d, sizeof d);
    gb_put(&c->rep, &r, sizeof r);
    c->nlevels++;
    if (def == c->max_def) {
        gb_put(&c->items, plain, n);
        size_t end = c->items.len;
        gb_put(&c->item_off, &end, sizeof end);
        c->nitems++;
    }
}

static void end_row(column *c)
{
    gb_put(&c->row_level, &c->nlevels, sizeof c->nlevels);
    gb_put(&c->row_item, &c->nitems, sizeof c->nitems);
    c->rows++;
}

static size_t at(const gbuf *b, size_t i) { return ((const size_t *)b->p)[i]; }
static int16_t lv(const gbuf *b, size_t i) { return ((const int16_t *)b->p)[i]; }

/* PLAIN bytes of values */
static size_t plain_i32(uint8_t *o, int32_t v)
{
    for (int i = 0; i < 4; i++)
        o[i] = (uint8_t)((uint32_t)v >> (8 * i));
    return 4;
}

static size_t plain_i64(uint8_t *o, int64_t v)
{
    for (int i = 0; i < 8; i++)
        o[i] = (uint8_t)((uint64_t)v >> (8 * i));
    return 8;
}

static size_t plain_double(uint8_t *o, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return plain_i64(o, (int64_t)u);
}

static size_t plain_bytes(uint8_t *o, const void *p, size_t n) /* BYTE_ARRAY: length, bytes */
{
    plain_i32(o, (int32_t)n);
    memcpy(o + 4, p, n);
    return 4 + n;
}

/*----------------------------------------------------------------------
 *  Encoding pages
 *--------------------------------------------------------------------*/

static int bit_width(unsigned v)
{
    int w = 0;
    while (v) {
        w++;
        v >>= 1;
    }
    return w;
}

/* The RLE / bit-packed hybrid of vals[0..n) at `width` bits: RLE runs for
 * runs of 8 or more equal values, bit-packed groups of 8 otherwise (the
 * last group padded with zeros). */
static void hybrid(gbuf *out, const uint32_t *vals, size_t n, int width)
{
    tw t = {out, {0}, 0};
    size_t i = 0;
    size_t bw = (size_t)(width + 7) / 8;
    while (i < n) {
        size_t r = 1;
        while (i + r < n && vals[i + r] == vals[i])
            r++;
        if (r >= 8) {
            tw_varint(&t, (uint64_t)r << 1);
            for (size_t k = 0; k < bw; k++)
                gb_byte(out, (uint8_t)(vals[i] >> (8 * k)));
            i += r;
            continue;
        }
        /* bit-packed groups up to the next long run */
        size_t groups = 0, j = i;
        while (j < n && groups < 63) {
            size_t rr = 1;
            while (j + rr < n && vals[j + rr] == vals[j])
                rr++;
            if (rr >= 8 && j > i)
                break;
            j += 8;
            groups++;
        }
        tw_varint(&t, (uint64_t)groups << 1 | 1);
        size_t count = groups * 8;
        uint8_t *packed = calloc(count * (size_t)width / 8 + 1, 1);
        if (!packed)
            die("out of memory");
        for (size_t k = 0; k < count; k++) {
            uint32_t v = i + k < n ? vals[i + k] : 0;
            for (int b = 0; b < width; b++)
                if ((v >> b) & 1) {
                    size_t bit = k * (size_t)width + (size_t)b;
                    packed[bit / 8] |= (uint8_t)(1u << (bit % 8));
                }
        }
        gb_put(out, packed, count * (size_t)width / 8);
        free(packed);
        i += count;
    }
}

/* The deprecated BIT_PACKED encoding: values packed from the most
 * significant bit of each byte, no header. */
static void bit_packed_msb(gbuf *out, const uint32_t *vals, size_t n, int width)
{
    size_t bytes = (n * (size_t)width + 7) / 8;
    uint8_t *p = calloc(bytes + 1, 1);
    if (!p)
        die("out of memory");
    for (size_t k = 0; k < n; k++)
        for (int b = width - 1; b >= 0; b--)
            if ((vals[k] >> b) & 1) {
                size_t bit = k * (size_t)width + (size_t)(width - 1 - b);
                p[bit / 8] |= (uint8_t)(0x80u >> (bit % 8));
            }
    gb_put(out, p, bytes);
    free(p);
}

static void levels_section(gbuf *body, const column *c, bool is_def, size_t a, size_t b)
{
    int max = is_def ? c->max_def : c->max_rep;
    if (max == 0)
        return;
    uint32_t *v = malloc((b - a + 1) * sizeof *v);
    if (!v)
        die("out of memory");
    for (size_t i = a; i < b; i++)
        v[i - a] = (uint32_t)lv(is_def ? &c->def : &c->rep, i);
    gbuf tmp = {0};
    if (c->bit_packed_levels) {
        bit_packed_msb(body, v, b - a, bit_width((unsigned)max));
    } else {
        hybrid(&tmp, v, b - a, bit_width((unsigned)max));
        gb_u32le(body, (uint32_t)tmp.len);
        gb_put(body, tmp.p, tmp.len);
    }
    gb_free(&tmp);
    free(v);
}

typedef struct dict {
    size_t *first;    /* item index of each distinct value */
    size_t n;
    uint32_t *index;  /* per item of the chunk */
} dict;

static bool same_item(const column *c, size_t x, size_t y)
{
    size_t xa = at(&c->item_off, x), xb = at(&c->item_off, x + 1);
    size_t ya = at(&c->item_off, y), yb = at(&c->item_off, y + 1);
    return xb - xa == yb - ya && !memcmp(c->items.p + xa, c->items.p + ya, xb - xa);
}

static void page_header(gbuf *out, int type, size_t uncompressed, size_t compressed, int32_t num_values,
                        int encoding, int def_enc, int rep_enc)
{
    tw t = {out, {0}, 0};
    tw_i32(&t, 1, type);
    tw_i32(&t, 2, (int32_t)uncompressed);
    tw_i32(&t, 3, (int32_t)compressed);
    if (type == 2) { /* DICTIONARY_PAGE */
        tw_struct(&t, 7);
        tw_i32(&t, 1, num_values);
        tw_i32(&t, 2, E_PLAIN);
        tw_bool(&t, 3, false);
        tw_end(&t);
    } else {
        tw_struct(&t, 5);
        tw_i32(&t, 1, num_values);
        tw_i32(&t, 2, encoding);
        tw_i32(&t, 3, def_enc);
        tw_i32(&t, 4, rep_enc);
        tw_end(&t);
    }
    gb_byte(out, 0);
}

typedef struct chunk_meta {
    int64_t num_values, size, dict_offset, data_offset;
} chunk_meta;

/* Write the chunk of rows [r0, r1) of column c at the end of `out`. */
static chunk_meta write_chunk(gbuf *out, column *c, size_t r0, size_t r1, size_t page_rows)
{
    chunk_meta m = {0, 0, -1, -1};
    size_t start = out->len;
    size_t i0 = at(&c->row_item, r0), i1 = at(&c->row_item, r1);
    dict d = {0};
    if (c->dictionary) {
        d.first = malloc((i1 - i0 + 1) * sizeof *d.first);
        d.index = malloc((i1 - i0 + 1) * sizeof *d.index);
        if (!d.first || !d.index)
            die("out of memory");
        for (size_t i = i0; i < i1; i++) {
            size_t k = 0;
            while (k < d.n && !same_item(c, d.first[k], i))
                k++;
            if (k == d.n)
                d.first[d.n++] = i;
            d.index[i - i0] = (uint32_t)k;
        }
        gbuf body = {0};
        for (size_t k = 0; k < d.n; k++) {
            size_t a = at(&c->item_off, d.first[k]), b = at(&c->item_off, d.first[k] + 1);
            gb_put(&body, c->items.p + a, b - a);
        }
        m.dict_offset = (int64_t)out->len;
        page_header(out, 2, body.len, body.len, (int32_t)d.n, E_PLAIN, 0, 0);
        gb_put(out, body.p, body.len);
        gb_free(&body);
    }
    for (size_t r = r0; r < r1; r += page_rows) {
        size_t re = r + page_rows < r1 ? r + page_rows : r1;
        size_t la = at(&c->row_level, r), lb = at(&c->row_level, re);
        size_t ia = at(&c->row_item, r), ib = at(&c->row_item, re);
        gbuf body = {0};
        levels_section(&body, c, false, la, lb);
        levels_section(&body, c, true, la, lb);
        if (c->dictionary) {
            int w = bit_width(d.n > 1 ? (unsigned)(d.n - 1) : 0);
            gb_byte(&body, (uint8_t)w);
            hybrid(&body, d.index + (ia - i0), ib - ia, w);
        } else {
            size_t a = at(&c->item_off, ia), b = at(&c->item_off, ib);
            gb_put(&body, c->items.p + a, b - a);
        }
        if (m.data_offset < 0)
            m.data_offset = (int64_t)out->len;
        int lenc = c->bit_packed_levels ? E_BIT_PACKED : E_RLE;
        page_header(out, 0, body.len, body.len, (int32_t)(lb - la), c->dictionary ? E_RLE_DICTIONARY : E_PLAIN, lenc,
                    lenc);
        gb_put(out, body.p, body.len);
        gb_free(&body);
    }
    m.num_values = (int64_t)(at(&c->row_level, r1) - at(&c->row_level, r0));
    m.size = (int64_t)(out->len - start);
    free(d.first);
    free(d.index);
    return m;
}

static void write_schema_element(tw *t, const selem *e)
{
    tw_elem_struct(t);
    if (e->type >= 0)
        tw_i32(t, 1, e->type);
    if (e->type_length)
        tw_i32(t, 2, e->type_length);
    tw_i32(t, 3, e->rep);
    tw_str(t, 4, e->name);
    if (e->type < 0)
        tw_i32(t, 5, e->num_children);
    if (e->converted >= 0)
        tw_i32(t, 6, e->converted);
    if (e->converted == CV_DECIMAL) {
        tw_i32(t, 7, e->scale);
        tw_i32(t, 8, e->precision);
    }
    if (e->logical != LT_NONE) {
        tw_struct(t, 10);
        tw_struct(t, e->logical); /* an empty struct member of the union */
        if (e->logical == LT_INVENTED) { /* with a field of its own, to skip */
            tw_i32(t, 1, 7);
            tw_str(t, 2, "skip me");
        }
        tw_end(t);
        tw_end(t);
    }
    tw_end(t);
}

static void write_file(pfile *f)
{
    gbuf out = {0};
    gb_put(&out, "PAR1", 4);
    size_t ngroups = (f->rows + f->rg_rows - 1) / f->rg_rows;
    chunk_meta *metas = calloc(ngroups * (size_t)f->ncols + 1, sizeof *metas);
    if (!metas)
        die("out of memory");
    for (int c = 0; c < f->ncols; c++)
        if (f->cols[c].rows != f->rows)
            die("%s: column %d has %zu rows, the file %zu", f->name, c, f->cols[c].rows, f->rows);
    for (size_t g = 0; g < ngroups; g++) {
        size_t r0 = g * f->rg_rows, r1 = r0 + f->rg_rows < f->rows ? r0 + f->rg_rows : f->rows;
        for (int c = 0; c < f->ncols; c++)
            metas[g * (size_t)f->ncols + (size_t)c] = write_chunk(&out, &f->cols[c], r0, r1, f->page_rows);
    }
    /* FileMetaData */
    gbuf foot = {0};
    tw t = {&foot, {0}, 0};
    tw_i32(&t, 1, 1);
    tw_list(&t, 2, CT_STRUCT, (size_t)f->nschema);
    for (int i = 0; i < f->nschema; i++)
        write_schema_element(&t, &f->schema[i]);
    tw_i64(&t, 3, (int64_t)f->rows);
    tw_list(&t, 4, CT_STRUCT, ngroups);
    for (size_t g = 0; g < ngroups; g++) {
        size_t r0 = g * f->rg_rows, r1 = r0 + f->rg_rows < f->rows ? r0 + f->rg_rows : f->rows;
        tw_elem_struct(&t);
        tw_list(&t, 1, CT_STRUCT, (size_t)f->ncols);
        int64_t total = 0;
        for (int c = 0; c < f->ncols; c++) {
            const column *col = &f->cols[c];
            const chunk_meta *m = &metas[g * (size_t)f->ncols + (size_t)c];
            total += m->size;
            tw_elem_struct(&t);
            tw_i64(&t, 2, m->dict_offset >= 0 ? m->dict_offset : m->data_offset);
            tw_struct(&t, 3);
            tw_i32(&t, 1, col->type);
            int encs[3], ne = 0;
            encs[ne++] = col->dictionary ? E_RLE_DICTIONARY : E_PLAIN;
            if (col->dictionary)
                encs[ne++] = E_PLAIN;
            encs[ne++] = col->bit_packed_levels ? E_BIT_PACKED : E_RLE;
            tw_list(&t, 2, CT_I32, (size_t)ne);
            for (int e = 0; e < ne; e++)
                tw_zz(&t, encs[e]);
            tw_list(&t, 3, CT_BINARY, (size_t)col->npath);
            for (int p = 0; p < col->npath; p++)
                tw_elem_str(&t, col->path[p]);
            tw_i32(&t, 4, 0); /* UNCOMPRESSED */
            tw_i64(&t, 5, m->num_values);
            tw_i64(&t, 6, m->size);
            tw_i64(&t, 7, m->size);
            tw_i64(&t, 9, m->data_offset);
            if (m->dict_offset >= 0)
                tw_i64(&t, 11, m->dict_offset);
            tw_end(&t);
            tw_end(&t);
        }
        tw_i64(&t, 2, total);
        tw_i64(&t, 3, (int64_t)(r1 - r0));
        tw_end(&t);
    }
    tw_str(&t, 6, "inlay interop_handmade");
    gb_byte(&foot, 0);
    gb_put(&out, foot.p, foot.len);
    gb_u32le(&out, (uint32_t)foot.len);
    gb_put(&out, "PAR1", 4);

    char path[1024];
    snprintf(path, sizeof path, "%s/%s.parquet", g_outdir, f->name);
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(out.p, 1, out.len, fp) != out.len || fclose(fp) != 0)
        die("writing %s failed", path);
    gb_free(&out);
    gb_free(&foot);
    free(metas);
}

static void write_json(pfile *f, bool nested)
{
    gbuf s = {0};
    gb_printf(&s, "{\n\"name\":\"%s\",\n%s\"rows\":%zu,\n\"row_groups\":%zu,\n\"%s\":[\n", f->name,
              nested ? "\"nested\":true,\n" : "", f->rows, (f->rows + f->rg_rows - 1) / f->rg_rows,
              nested ? "fields" : "columns");
    gb_put(&s, f->json.p, f->json.len);
    gb_printf(&s, "\n]\n}\n");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.json", g_outdir, f->name);
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(s.p, 1, s.len, fp) != s.len || fclose(fp) != 0)
        die("writing %s failed", path);
    gb_free(&s);
}

static void free_file(pfile *f)
{
    for (int c = 0; c < f->ncols; c++) {
        column *col = &f->cols[c];
        gb_free(&col->def);
        gb_free(&col->rep);
        gb_free(&col->items);
        gb_free(&col->item_off);
        gb_free(&col->row_level);
        gb_free(&col->row_item);
    }
    gb_free(&f->json);
}

/*----------------------------------------------------------------------
 *  A deterministic PRNG
 *--------------------------------------------------------------------*/

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    uint64_t z = (g_rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t below(uint64_t n) { return rnd() % n; }

/* A field's values in the JSON: one array per field, rows comma separated. */
typedef struct jfield {
    gbuf v;
    size_t n;
} jfield;

static void jsep(jfield *j)
{
    if (j->n++)
        gb_put(&j->v, j->n % 8 == 1 ? ",\n" : ",", j->n % 8 == 1 ? 2 : 1);
}

static void jfield_emit(pfile *f, jfield *j, const char *type_json)
{
    if (f->json.len)
        gb_put(&f->json, ",\n", 2);
    gb_printf(&f->json, "{%s,\"values\":[", type_json);
    gb_put(&f->json, j->v.p, j->v.len);
    gb_put(&f->json, "]}", 2);
    gb_free(&j->v);
    j->n = 0;
}

/*----------------------------------------------------------------------
 *  hand__int96
 *--------------------------------------------------------------------*/

#define JULIAN_EPOCH 2440588
#define NS_PER_DAY 86400000000000LL

static void int96_value(uint8_t *o, int64_t ns)
{
    /* days and nanoseconds of the day, floor division */
    int64_t days = ns / NS_PER_DAY, nod = ns % NS_PER_DAY;
    if (nod < 0) {
        nod += NS_PER_DAY;
        days--;
    }
    plain_i64(o, nod);
    plain_i32(o + 8, (int32_t)(days + JULIAN_EPOCH));
}

static int64_t int96_random(void)
{
    static const int64_t edges[] = {
        0, -1, 1, INT64_MAX, INT64_MIN, NS_PER_DAY - 1, -NS_PER_DAY, NS_PER_DAY,
        951827696123456789LL,        /* 2000-02-29 12:34:56.123456789 */
        -2208988800000000000LL,      /* 1900-01-01 */
        4102444799999999999LL,       /* 2099-12-31 23:59:59.999999999 */
    };
    if (below(4) == 0)
        return edges[below(sizeof edges / sizeof edges[0])];
    /* anywhere in the int64 range of nanoseconds, in whole days, micros or ns */
    int64_t v = (int64_t)rnd();
    switch (below(3)) {
    case 0: return v / NS_PER_DAY * NS_PER_DAY;
    case 1: return v / 1000 * 1000;
    default: return v;
    }
}

static void int96_file(void)
{
    static pfile f;
    memset(&f, 0, sizeof f);
    f.name = "hand__int96";
    f.rows = 1000;
    f.rg_rows = 600;
    f.page_rows = 128;
    schema_add(&f, group("schema", REQ, 3, CV_NONE));
    schema_add(&f, leaf("id", T_INT32, REQ, CV_NONE));
    schema_add(&f, leaf("ts", T_INT96, OPT, CV_NONE));
    selem req = leaf("ts_dict", T_INT96, REQ, CV_NONE);
    schema_add(&f, req);
    column *id = add_column(&f, T_INT32, 0, 0, 0, 1, "id");
    column *ts = add_column(&f, T_INT96, 12, 1, 0, 1, "ts");
    column *td = add_column(&f, T_INT96, 12, 0, 0, 1, "ts_dict");
    td->dictionary = true;
    jfield jid = {0}, jts = {0}, jtd = {0};
    int64_t pool[24];
    for (int k = 0; k < 24; k++)
        pool[k] = int96_random();
    for (size_t i = 0; i < f.rows; i++) {
        uint8_t b[16];
        put_level(id, 0, 0, b, plain_i32(b, (int32_t)i));
        end_row(id);
        jsep(&jid);
        gb_printf(&jid.v, "\"%zu\"", i);

        jsep(&jts);
        if (below(5) == 0 || (i >= 300 && i < 420)) { /* nulls, and a run of them over a page */
            put_level(ts, 0, 0, NULL, 0);
            gb_printf(&jts.v, "null");
        } else {
            int64_t v = int96_random();
            int96_value(b, v);
            put_level(ts, 1, 0, b, 12);
            gb_printf(&jts.v, "\"%" PRId64 "\"", v);
        }
        end_row(ts);

        int64_t v = pool[below(24)];
        int96_value(b, v);
        put_level(td, 0, 0, b, 12);
        end_row(td);
        jsep(&jtd);
        gb_printf(&jtd.v, "\"%" PRId64 "\"", v);
    }
    jfield_emit(&f, &jid, "\"name\":\"id\",\"type\":\"int32\",\"nullable\":false");
    jfield_emit(&f, &jts, "\"name\":\"ts\",\"type\":\"timestamp\",\"unit\":\"ns\",\"utc\":false,\"nullable\":true");
    jfield_emit(&f, &jtd, "\"name\":\"ts_dict\",\"type\":\"timestamp\",\"unit\":\"ns\",\"utc\":false,\"nullable\":false");
    write_file(&f);
    write_json(&f, false);
    free_file(&f);
}

/*----------------------------------------------------------------------
 *  hand__legacy_lists
 *--------------------------------------------------------------------*/

/* How many elements a row's list gets: -1 null (when allowed), 0 empty. */
static int list_shape(bool nullable)
{
    uint64_t k = below(10);
    if (k == 0)
        return nullable ? -1 : 0;
    if (k == 1)
        return 0;
    return (int)below(5) + 1;
}

static void legacy_lists_file(void)
{
    static pfile f;
    memset(&f, 0, sizeof f);
    f.name = "hand__legacy_lists";
    f.rows = 700;
    f.rg_rows = 400;
    f.page_rows = 50;
    schema_add(&f, group("schema", REQ, 10, CV_NONE));
    /* id */
    schema_add(&f, leaf("id", T_INT32, REQ, CV_NONE));
    /* a: optional group a (LIST) { repeated int32 array; } */
    schema_add(&f, group("a", OPT, 1, CV_LIST));
    schema_add(&f, leaf("array", T_INT32, REP, CV_NONE));
    /* b: required group b (LIST) { repeated group array { required binary str (UTF8); } } */
    schema_add(&f, group("b", REQ, 1, CV_LIST));
    schema_add(&f, group("array", REP, 1, CV_NONE));
    schema_add(&f, leaf("str", T_BYTE_ARRAY, REQ, CV_UTF8));
    /* c: optional group c (LIST) { repeated group c_tuple { required int64 x; } } */
    schema_add(&f, group("c", OPT, 1, CV_LIST));
    schema_add(&f, group("c_tuple", REP, 1, CV_NONE));
    schema_add(&f, leaf("x", T_INT64, REQ, CV_NONE));
    /* d: optional group d (LIST) { repeated group bag { optional int64 x; optional double y; } } */
    schema_add(&f, group("d", OPT, 1, CV_LIST));
    schema_add(&f, group("bag", REP, 2, CV_NONE));
    schema_add(&f, leaf("x", T_INT64, OPT, CV_NONE));
    schema_add(&f, leaf("y", T_DOUBLE, OPT, CV_NONE));
    /* e: repeated int32 e; (bare) */
    schema_add(&f, leaf("e", T_INT32, REP, CV_NONE));
    /* f: repeated group f { required int32 p; optional binary q (UTF8); } (bare) */
    schema_add(&f, group("f", REP, 2, CV_NONE));
    schema_add(&f, leaf("p", T_INT32, REQ, CV_NONE));
    schema_add(&f, leaf("q", T_BYTE_ARRAY, OPT, CV_UTF8));
    /* g: optional group g (LIST) { repeated group bag { optional int32 item; } } */
    schema_add(&f, group("g", OPT, 1, CV_LIST));
    schema_add(&f, group("bag", REP, 1, CV_NONE));
    schema_add(&f, leaf("item", T_INT32, OPT, CV_NONE));
    /* h: optional group h (MAP) { repeated group map (MAP_KEY_VALUE) {
     *        required binary key (UTF8); optional int32 value; } } */
    schema_add(&f, group("h", OPT, 1, CV_MAP));
    schema_add(&f, group("map", REP, 2, CV_MAP_KEY_VALUE));
    schema_add(&f, leaf("key", T_BYTE_ARRAY, REQ, CV_UTF8));
    schema_add(&f, leaf("value", T_INT32, OPT, CV_NONE));
    /* i: optional group i (LIST) { repeated group list { optional group element (LIST) {
     *        repeated binary array (UTF8); } } }  (two levels inside three) */
    schema_add(&f, group("i", OPT, 1, CV_LIST));
    schema_add(&f, group("list", REP, 1, CV_NONE));
    schema_add(&f, group("element", OPT, 1, CV_LIST));
    schema_add(&f, leaf("array", T_BYTE_ARRAY, REP, CV_UTF8));

    column *cid = add_column(&f, T_INT32, 0, 0, 0, 1, "id");
    column *ca = add_column(&f, T_INT32, 0, 2, 1, 2, "a", "array");
    column *cb = add_column(&f, T_BYTE_ARRAY, 0, 1, 1, 3, "b", "array", "str");
    column *cc = add_column(&f, T_INT64, 0, 2, 1, 3, "c", "c_tuple", "x");
    column *cdx = add_column(&f, T_INT64, 0, 3, 1, 3, "d", "bag", "x");
    column *cdy = add_column(&f, T_DOUBLE, 0, 3, 1, 3, "d", "bag", "y");
    column *ce = add_column(&f, T_INT32, 0, 1, 1, 1, "e");
    column *cfp = add_column(&f, T_INT32, 0, 1, 1, 2, "f", "p");
    column *cfq = add_column(&f, T_BYTE_ARRAY, 0, 2, 1, 2, "f", "q");
    column *cg = add_column(&f, T_INT32, 0, 3, 1, 3, "g", "bag", "item");
    column *chk = add_column(&f, T_BYTE_ARRAY, 0, 2, 1, 3, "h", "map", "key");
    column *chv = add_column(&f, T_INT32, 0, 3, 1, 3, "h", "map", "value");
    column *ci = add_column(&f, T_BYTE_ARRAY, 0, 4, 2, 4, "i", "list", "element", "array");
    cb->dictionary = true;
    cg->dictionary = true;
    jfield j[10];
    memset(j, 0, sizeof j);
    for (size_t row = 0; row < f.rows; row++) {
        uint8_t b[64];
        char txt[32];
        put_level(cid, 0, 0, b, plain_i32(b, (int32_t)row));
        jsep(&j[0]);
        gb_printf(&j[0].v, "\"%zu\"", row);

        /* a */
        int n = list_shape(true);
        jsep(&j[1]);
        if (n < 0) {
            put_level(ca, 0, 0, NULL, 0);
            gb_printf(&j[1].v, "null");
        } else if (n == 0) {
            put_level(ca, 1, 0, NULL, 0);
            gb_printf(&j[1].v, "[]");
        } else {
            gb_printf(&j[1].v, "[");
            for (int k = 0; k < n; k++) {
                int32_t v = (int32_t)rnd();
                put_level(ca, 2, k ? 1 : 0, b, plain_i32(b, v));
                gb_printf(&j[1].v, "%s\"%" PRId32 "\"", k ? "," : "", v);
            }
            gb_printf(&j[1].v, "]");
        }

        /* b: required, elements are structs {str} */
        n = list_shape(false);
        jsep(&j[2]);
        if (n == 0) {
            put_level(cb, 0, 0, NULL, 0);
            gb_printf(&j[2].v, "[]");
        } else {
            gb_printf(&j[2].v, "[");
            for (int k = 0; k < n; k++) {
                int len = snprintf(txt, sizeof txt, "s%d", (int)below(20));
                put_level(cb, 1, k ? 1 : 0, b, plain_bytes(b, txt, (size_t)len));
                gb_printf(&j[2].v, "%s{\"str\":\"%s\"}", k ? "," : "", txt);
            }
            gb_printf(&j[2].v, "]");
        }

        /* c: elements are structs {x} */
        n = list_shape(true);
        jsep(&j[3]);
        if (n < 0) {
            put_level(cc, 0, 0, NULL, 0);
            gb_printf(&j[3].v, "null");
        } else if (n == 0) {
            put_level(cc, 1, 0, NULL, 0);
            gb_printf(&j[3].v, "[]");
        } else {
            gb_printf(&j[3].v, "[");
            for (int k = 0; k < n; k++) {
                int64_t v = (int64_t)rnd();
                put_level(cc, 2, k ? 1 : 0, b, plain_i64(b, v));
                gb_printf(&j[3].v, "%s{\"x\":\"%" PRId64 "\"}", k ? "," : "", v);
            }
            gb_printf(&j[3].v, "]");
        }

        /* d: elements are structs {x, y}, both optional */
        n = list_shape(true);
        jsep(&j[4]);
        if (n <= 0) {
            put_level(cdx, n < 0 ? 0 : 1, 0, NULL, 0);
            put_level(cdy, n < 0 ? 0 : 1, 0, NULL, 0);
            gb_printf(&j[4].v, n < 0 ? "null" : "[]");
        } else {
            gb_printf(&j[4].v, "[");
            for (int k = 0; k < n; k++) {
                gb_printf(&j[4].v, "%s{\"x\":", k ? "," : "");
                if (below(4) == 0) {
                    put_level(cdx, 2, k ? 1 : 0, NULL, 0);
                    gb_printf(&j[4].v, "null");
                } else {
                    int64_t v = (int64_t)below(1000000) - 500000;
                    put_level(cdx, 3, k ? 1 : 0, b, plain_i64(b, v));
                    gb_printf(&j[4].v, "\"%" PRId64 "\"", v);
                }
                gb_printf(&j[4].v, ",\"y\":");
                if (below(4) == 0) {
                    put_level(cdy, 2, k ? 1 : 0, NULL, 0);
                    gb_printf(&j[4].v, "null");
                } else {
                    double v = (double)(int64_t)below(1 << 20) / 64.0 - 1000.0;
                    put_level(cdy, 3, k ? 1 : 0, b, plain_double(b, v));
                    gb_printf(&j[4].v, "%.17g", v);
                }
                gb_printf(&j[4].v, "}");
            }
            gb_printf(&j[4].v, "]");
        }

        /* e: bare repeated int32 */
        n = list_shape(false);
        jsep(&j[5]);
        if (n == 0) {
            put_level(ce, 0, 0, NULL, 0);
            gb_printf(&j[5].v, "[]");
        } else {
            gb_printf(&j[5].v, "[");
            for (int k = 0; k < n; k++) {
                int32_t v = (int32_t)below(100);
                put_level(ce, 1, k ? 1 : 0, b, plain_i32(b, v));
                gb_printf(&j[5].v, "%s\"%" PRId32 "\"", k ? "," : "", v);
            }
            gb_printf(&j[5].v, "]");
        }

        /* f: bare repeated group {p, q} */
        n = list_shape(false);
        jsep(&j[6]);
        if (n == 0) {
            put_level(cfp, 0, 0, NULL, 0);
            put_level(cfq, 0, 0, NULL, 0);
            gb_printf(&j[6].v, "[]");
        } else {
            gb_printf(&j[6].v, "[");
            for (int k = 0; k < n; k++) {
                int32_t p = (int32_t)below(1000);
                put_level(cfp, 1, k ? 1 : 0, b, plain_i32(b, p));
                gb_printf(&j[6].v, "%s{\"p\":\"%" PRId32 "\",\"q\":", k ? "," : "", p);
                if (below(3) == 0) {
                    put_level(cfq, 1, k ? 1 : 0, NULL, 0);
                    gb_printf(&j[6].v, "null}");
                } else {
                    int len = snprintf(txt, sizeof txt, "q%d", (int)below(1000));
                    put_level(cfq, 2, k ? 1 : 0, b, plain_bytes(b, txt, (size_t)len));
                    gb_printf(&j[6].v, "\"%s\"}", txt);
                }
            }
            gb_printf(&j[6].v, "]");
        }

        /* g: three levels, other names; optional items */
        n = list_shape(true);
        jsep(&j[7]);
        if (n <= 0) {
            put_level(cg, n < 0 ? 0 : 1, 0, NULL, 0);
            gb_printf(&j[7].v, n < 0 ? "null" : "[]");
        } else {
            gb_printf(&j[7].v, "[");
            for (int k = 0; k < n; k++) {
                if (below(4) == 0) {
                    put_level(cg, 2, k ? 1 : 0, NULL, 0);
                    gb_printf(&j[7].v, "%snull", k ? "," : "");
                } else {
                    int32_t v = (int32_t)below(8); /* few values: a dictionary */
                    put_level(cg, 3, k ? 1 : 0, b, plain_i32(b, v));
                    gb_printf(&j[7].v, "%s\"%" PRId32 "\"", k ? "," : "", v);
                }
            }
            gb_printf(&j[7].v, "]");
        }

        /* h: MAP / MAP_KEY_VALUE */
        n = list_shape(true);
        jsep(&j[8]);
        if (n <= 0) {
            put_level(chk, n < 0 ? 0 : 1, 0, NULL, 0);
            put_level(chv, n < 0 ? 0 : 1, 0, NULL, 0);
            gb_printf(&j[8].v, n < 0 ? "null" : "[]");
        } else {
            gb_printf(&j[8].v, "[");
            for (int k = 0; k < n; k++) {
                int len = snprintf(txt, sizeof txt, "k%d", k);
                put_level(chk, 2, k ? 1 : 0, b, plain_bytes(b, txt, (size_t)len));
                gb_printf(&j[8].v, "%s[\"%s\",", k ? "," : "", txt);
                if (below(3) == 0) {
                    put_level(chv, 2, k ? 1 : 0, NULL, 0);
                    gb_printf(&j[8].v, "null]");
                } else {
                    int32_t v = (int32_t)rnd();
                    put_level(chv, 3, k ? 1 : 0, b, plain_i32(b, v));
                    gb_printf(&j[8].v, "\"%" PRId32 "\"]", v);
                }
            }
            gb_printf(&j[8].v, "]");
        }

        /* i: list of (two-level) lists of strings */
        n = list_shape(true);
        jsep(&j[9]);
        if (n <= 0) {
            put_level(ci, n < 0 ? 0 : 1, 0, NULL, 0);
            gb_printf(&j[9].v, n < 0 ? "null" : "[]");
        } else {
            gb_printf(&j[9].v, "[");
            for (int k = 0; k < n; k++) {
                int m = list_shape(true);
                int rep = k ? 1 : 0;
                if (m < 0) {
                    put_level(ci, 2, rep, NULL, 0);
                    gb_printf(&j[9].v, "%snull", k ? "," : "");
                } else if (m == 0) {
                    put_level(ci, 3, rep, NULL, 0);
                    gb_printf(&j[9].v, "%s[]", k ? "," : "");
                } else {
                    gb_printf(&j[9].v, "%s[", k ? "," : "");
                    for (int q = 0; q < m; q++) {
                        int len = snprintf(txt, sizeof txt, "i%d.%d", k, (int)below(50));
                        put_level(ci, 4, q ? 2 : rep, b, plain_bytes(b, txt, (size_t)len));
                        gb_printf(&j[9].v, "%s\"%s\"", q ? "," : "", txt);
                    }
                    gb_printf(&j[9].v, "]");
                }
            }
            gb_printf(&j[9].v, "]");
        }
        for (int c = 0; c < f.ncols; c++)
            end_row(&f.cols[c]);
    }
    jfield_emit(&f, &j[0], "\"name\":\"id\",\"type\":\"int32\",\"nullable\":false");
    jfield_emit(&f, &j[1], "\"name\":\"a\",\"type\":\"list\",\"nullable\":true,"
                           "\"element\":{\"type\":\"int32\",\"nullable\":false}");
    jfield_emit(&f, &j[2], "\"name\":\"b\",\"type\":\"list\",\"nullable\":false,"
                           "\"element\":{\"type\":\"struct\",\"nullable\":false,"
                           "\"fields\":[{\"name\":\"str\",\"type\":\"string\",\"nullable\":false}]}");
    jfield_emit(&f, &j[3], "\"name\":\"c\",\"type\":\"list\",\"nullable\":true,"
                           "\"element\":{\"type\":\"struct\",\"nullable\":false,"
                           "\"fields\":[{\"name\":\"x\",\"type\":\"int64\",\"nullable\":false}]}");
    jfield_emit(&f, &j[4], "\"name\":\"d\",\"type\":\"list\",\"nullable\":true,"
                           "\"element\":{\"type\":\"struct\",\"nullable\":false,"
                           "\"fields\":[{\"name\":\"x\",\"type\":\"int64\",\"nullable\":true},"
                           "{\"name\":\"y\",\"type\":\"double\",\"nullable\":true}]}");
    jfield_emit(&f, &j[5], "\"name\":\"e\",\"type\":\"list\",\"repeated\":true,\"nullable\":false,"
                           "\"element\":{\"type\":\"int32\",\"nullable\":false}");
    jfield_emit(&f, &j[6], "\"name\":\"f\",\"type\":\"list\",\"repeated\":true,\"nullable\":false,"
                           "\"element\":{\"type\":\"struct\",\"nullable\":false,"
                           "\"fields\":[{\"name\":\"p\",\"type\":\"int32\",\"nullable\":false},"
                           "{\"name\":\"q\",\"type\":\"string\",\"nullable\":true}]}");
    jfield_emit(&f, &j[7], "\"name\":\"g\",\"type\":\"list\",\"nullable\":true,"
                           "\"element\":{\"type\":\"int32\",\"nullable\":true}");
    jfield_emit(&f, &j[8], "\"name\":\"h\",\"type\":\"map\",\"nullable\":true,"
                           "\"key\":{\"type\":\"string\",\"nullable\":false},"
                           "\"value\":{\"type\":\"int32\",\"nullable\":true}");
    jfield_emit(&f, &j[9], "\"name\":\"i\",\"type\":\"list\",\"nullable\":true,"
                           "\"element\":{\"type\":\"list\",\"nullable\":true,"
                           "\"element\":{\"type\":\"string\",\"nullable\":false}}");
    write_file(&f);
    write_json(&f, true);
    free_file(&f);
}

/*----------------------------------------------------------------------
 *  hand__converted_types
 *--------------------------------------------------------------------*/

static void decimal_text(gbuf *s, int64_t unscaled, int scale)
{
    bool neg = unscaled < 0;
    uint64_t u = neg ? -(uint64_t)unscaled : (uint64_t)unscaled;
    char digits[32];
    snprintf(digits, sizeof digits, "%" PRIu64, u);
    size_t nd = strlen(digits);
    gb_byte(s, '"');
    if (neg && u)
        gb_byte(s, '-');
    if (scale == 0) {
        gb_put(s, digits, nd);
    } else {
        char full[48];
        size_t pad = nd < (size_t)scale + 1 ? (size_t)scale + 1 - nd : 0;
        memset(full, '0', pad);
        memcpy(full + pad, digits, nd + 1);
        size_t nf = pad + nd;
        gb_put(s, full, nf - (size_t)scale);
        gb_byte(s, '.');
        gb_put(s, full + nf - (size_t)scale, (size_t)scale);
    }
    gb_byte(s, '"');
}

static void converted_types_file(bool unknown)
{
    static pfile f;
    memset(&f, 0, sizeof f);
    f.name = unknown ? "hand__unknown_types" : "hand__converted_types";
    f.rows = 300;
    f.rg_rows = 200;
    f.page_rows = 64;
    static const struct {
        const char *name;
        int type, type_length, converted, precision, scale, logical;
        const char *json; /* the type inlay reads it as */
    } cols[] = {
        {"ts_ms", T_INT64, 0, CV_TIMESTAMP_MILLIS, 0, 0, 0, "\"type\":\"timestamp\",\"unit\":\"ms\",\"utc\":true"},
        {"ts_us", T_INT64, 0, CV_TIMESTAMP_MICROS, 0, 0, 0, "\"type\":\"timestamp\",\"unit\":\"us\",\"utc\":true"},
        {"time_ms", T_INT32, 0, CV_TIME_MILLIS, 0, 0, 0, "\"type\":\"time\",\"unit\":\"ms\",\"utc\":true"},
        {"time_us", T_INT64, 0, CV_TIME_MICROS, 0, 0, 0, "\"type\":\"time\",\"unit\":\"us\",\"utc\":true"},
        {"dec32", T_INT32, 0, CV_DECIMAL, 7, 2, 0,
         "\"type\":\"decimal\",\"precision\":7,\"scale\":2,\"physical\":\"int32\""},
        {"dec64", T_INT64, 0, CV_DECIMAL, 15, 0, 0,
         "\"type\":\"decimal\",\"precision\":15,\"scale\":0,\"physical\":\"int64\""},
        {"dec_fixed", T_FLBA, 9, CV_DECIMAL, 20, 4, 0,
         "\"type\":\"decimal\",\"precision\":20,\"scale\":4,\"physical\":\"fixed\",\"width\":9"},
        {"u8", T_INT32, 0, CV_UINT_8, 0, 0, 0, "\"type\":\"uint8\""},
        {"i16", T_INT32, 0, CV_INT_16, 0, 0, 0, "\"type\":\"int16\""},
        {"u64", T_INT64, 0, CV_UINT_64, 0, 0, 0, "\"type\":\"uint64\""},
        {"str", T_BYTE_ARRAY, 0, CV_UTF8, 0, 0, 0, "\"type\":\"string\""},
        {"en", T_BYTE_ARRAY, 0, CV_ENUM, 0, 0, 0, "\"type\":\"enum\""},
        {"js", T_BYTE_ARRAY, 0, CV_JSON, 0, 0, 0, "\"type\":\"json\""},
        {"dt", T_INT32, 0, CV_DATE, 0, 0, 0, "\"type\":\"date\""},
        {"iv", T_FLBA, 12, CV_INTERVAL, 0, 0, 0, "\"type\":\"fixed\",\"width\":12"},
        {"bs", T_BYTE_ARRAY, 0, CV_NONE, 0, 0, LT_BSON, "\"type\":\"binary\""},
        {"nothing", T_INT32, 0, CV_NONE, 0, 0, LT_UNKNOWN, "\"type\":\"int32\""},
        {"invented", T_FLBA, 16, CV_NONE, 0, 0, LT_INVENTED, "\"type\":\"fixed\",\"width\":16"},
    };
    enum { NC = sizeof cols / sizeof cols[0], NKNOWN = NC - 3 };
    /* the last three: BSON, UNKNOWN and an invented logical type, in a file
     * of their own (DuckDB refuses BSON) */
    int k0 = unknown ? NKNOWN : 0, k1 = unknown ? NC : NKNOWN;
    schema_add(&f, group("schema", REQ, k1 - k0, CV_NONE));
    column *c[NC];
    jfield j[NC];
    memset(j, 0, sizeof j);
    for (int k = k0; k < k1; k++) {
        selem e = leaf(cols[k].name, cols[k].type, OPT, cols[k].converted);
        e.type_length = cols[k].type_length;
        e.precision = cols[k].precision;
        e.scale = cols[k].scale;
        e.logical = cols[k].logical;
        schema_add(&f, e);
        c[k] = add_column(&f, cols[k].type, cols[k].type_length, 1, 0, 1, cols[k].name);
        c[k]->dictionary = k % 3 == 1;
    }
    for (size_t row = 0; row < f.rows; row++) {
        for (int k = k0; k < k1; k++) {
            jsep(&j[k]);
            gbuf *s = &j[k].v;
            if (below(6) == 0 || !strcmp(cols[k].name, "nothing")) {
                put_level(c[k], 0, 0, NULL, 0);
                gb_printf(s, "null");
                end_row(c[k]);
                continue;
            }
            uint8_t b[64];
            size_t n = 0;
            const char *name = cols[k].name;
            if (!strcmp(name, "ts_ms") || !strcmp(name, "ts_us")) {
                /* within DuckDB's TIMESTAMP range (microseconds in an int64) */
                int64_t v = (int64_t)rnd() / (!strcmp(name, "ts_ms") ? 1000000 : 1000);
                n = plain_i64(b, v);
                gb_printf(s, "\"%" PRId64 "\"", v);
            } else if (!strcmp(name, "time_ms")) {
                int32_t v = (int32_t)below(86400000);
                n = plain_i32(b, v);
                gb_printf(s, "\"%" PRId32 "\"", v);
            } else if (!strcmp(name, "time_us")) {
                int64_t v = (int64_t)below(86400000000ull);
                n = plain_i64(b, v);
                gb_printf(s, "\"%" PRId64 "\"", v);
            } else if (!strcmp(name, "dec32")) {
                int32_t v = (int32_t)below(19999999) - 9999999;
                n = plain_i32(b, v);
                decimal_text(s, v, 2);
            } else if (!strcmp(name, "dec64")) {
                int64_t v = (int64_t)below(1999999999999999ull) - 999999999999999LL;
                n = plain_i64(b, v);
                decimal_text(s, v, 0);
            } else if (!strcmp(name, "dec_fixed")) {
                /* 9 bytes big-endian two's complement of an int64 (sign-extended) */
                int64_t v = (int64_t)rnd() / 4;
                b[0] = v < 0 ? 0xff : 0;
                for (int q = 0; q < 8; q++)
                    b[1 + q] = (uint8_t)((uint64_t)v >> (8 * (7 - q)));
                n = 9;
                decimal_text(s, v, 4);
            } else if (!strcmp(name, "u8")) {
                int32_t v = (int32_t)below(256);
                n = plain_i32(b, v);
                gb_printf(s, "\"%" PRId32 "\"", v);
            } else if (!strcmp(name, "i16")) {
                int32_t v = (int32_t)below(65536) - 32768;
                n = plain_i32(b, v);
                gb_printf(s, "\"%" PRId32 "\"", v);
            } else if (!strcmp(name, "u64")) {
                uint64_t v = rnd();
                n = plain_i64(b, (int64_t)v);
                gb_printf(s, "\"%" PRIu64 "\"", v);
            } else if (!strcmp(name, "str") || !strcmp(name, "en") || !strcmp(name, "js")) {
                char txt[48];
                int len = !strcmp(name, "js") ? snprintf(txt, sizeof txt, "{\"k\":%d}", (int)below(100))
                          : !strcmp(name, "en") ? snprintf(txt, sizeof txt, "%s", below(2) ? "ON" : "OFF")
                                                : snprintf(txt, sizeof txt, "text \xc3\xa9 %d", (int)below(1000));
                n = plain_bytes(b, txt, (size_t)len);
                gb_json_str(s, txt, (size_t)len);
            } else if (!strcmp(name, "dt")) {
                int32_t v = (int32_t)below(200000) - 100000;
                n = plain_i32(b, v);
                gb_printf(s, "\"%" PRId32 "\"", v);
            } else if (!strcmp(name, "bs")) {
                uint8_t raw[8];
                size_t len = below(8);
                for (size_t q = 0; q < len; q++)
                    raw[q] = (uint8_t)rnd();
                n = plain_bytes(b, raw, len);
                gb_hex(s, raw, len);
            } else if (!strcmp(name, "iv") || !strcmp(name, "invented")) {
                size_t w = (size_t)cols[k].type_length;
                for (size_t q = 0; q < w; q++)
                    b[q] = (uint8_t)(below(3) ? rnd() : 0);
                n = w;
                gb_hex(s, b, w);
            } else {
                die("no generator for %s", name);
            }
            put_level(c[k], 1, 0, b, n);
            end_row(c[k]);
        }
    }
    for (int k = k0; k < k1; k++) {
        char t[256];
        snprintf(t, sizeof t, "\"name\":\"%s\",%s,\"nullable\":true", cols[k].name, cols[k].json);
        jfield_emit(&f, &j[k], t);
    }
    write_file(&f);
    write_json(&f, false);
    free_file(&f);
}

/*----------------------------------------------------------------------
 *  hand__bitpacked_levels
 *--------------------------------------------------------------------*/

static void bitpacked_levels_file(void)
{
    static pfile f;
    memset(&f, 0, sizeof f);
    f.name = "hand__bitpacked_levels";
    f.rows = 500;
    f.rg_rows = 500;
    f.page_rows = 100;
    schema_add(&f, group("schema", REQ, 2, CV_NONE));
    schema_add(&f, leaf("v", T_INT64, OPT, CV_NONE));
    schema_add(&f, group("l", OPT, 1, CV_LIST));
    schema_add(&f, group("list", REP, 1, CV_NONE));
    schema_add(&f, leaf("element", T_INT32, OPT, CV_NONE));
    column *cv = add_column(&f, T_INT64, 0, 1, 0, 1, "v");
    column *cl = add_column(&f, T_INT32, 0, 3, 1, 3, "l", "list", "element");
    cv->bit_packed_levels = true;
    cl->bit_packed_levels = true;
    jfield jv = {0}, jl = {0};
    for (size_t row = 0; row < f.rows; row++) {
        uint8_t b[16];
        jsep(&jv);
        if (below(3) == 0) {
            put_level(cv, 0, 0, NULL, 0);
            gb_printf(&jv.v, "null");
        } else {
            int64_t v = (int64_t)rnd();
            put_level(cv, 1, 0, b, plain_i64(b, v));
            gb_printf(&jv.v, "\"%" PRId64 "\"", v);
        }
        end_row(cv);
        int n = list_shape(true);
        jsep(&jl);
        if (n <= 0) {
            put_level(cl, n < 0 ? 0 : 1, 0, NULL, 0);
            gb_printf(&jl.v, n < 0 ? "null" : "[]");
        } else {
            gb_printf(&jl.v, "[");
            for (int k = 0; k < n; k++) {
                if (below(4) == 0) {
                    put_level(cl, 2, k ? 1 : 0, NULL, 0);
                    gb_printf(&jl.v, "%snull", k ? "," : "");
                } else {
                    int32_t v = (int32_t)rnd();
                    put_level(cl, 3, k ? 1 : 0, b, plain_i32(b, v));
                    gb_printf(&jl.v, "%s\"%" PRId32 "\"", k ? "," : "", v);
                }
            }
            gb_printf(&jl.v, "]");
        }
        end_row(cl);
    }
    jfield_emit(&f, &jv, "\"name\":\"v\",\"type\":\"int64\",\"nullable\":true");
    jfield_emit(&f, &jl, "\"name\":\"l\",\"type\":\"list\",\"nullable\":true,"
                         "\"element\":{\"type\":\"int32\",\"nullable\":true}");
    write_file(&f);
    write_json(&f, true);
    free_file(&f);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        die("usage: interop_handmade OUTDIR");
    g_outdir = argv[1];
    mkdir(g_outdir, 0777);
    int96_file();
    legacy_lists_file();
    converted_types_file(false);
    converted_types_file(true);
    bitpacked_levels_file();
    return 0;
}
