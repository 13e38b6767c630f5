/*
 * check_metadata.c — the footer (runtime/format/metadata.c): RowGroup
 * structs from hand-built chunk_meta entries and the FileMetaData around
 * them, decoded with thrift_reader.h and checked field by field against
 * parquet.thrift — wire types included: the decoders below refuse a field
 * of another type. Covered: RowGroup and ColumnChunk sizes and offsets,
 * path_in_schema of nested leaves, the encodings list and encoding_stats,
 * dictionary_page_offset only with a dictionary, Statistics only when asked
 * for and min/max only with bounds (an empty min included), the
 * SchemaElements of a schema built through the public API (physical,
 * converted and logical types, LIST and MAP groups), key-value metadata,
 * created_by, column_orders, and allocation failures.
 */
#define _POSIX_C_SOURCE 200809L
#include "metadata.h"

#include "thrift_reader.h"
#include "unit.h"

/* ---- decoders --------------------------------------------------------------------- */

enum { MAX_COLS = 32, MAX_RG = 4, MAX_ELEMS = 48, MAX_KV = 8, MAX_BOUND = 64 };

/* The field has the type parquet.thrift gives it; else the read fails. */
static bool is(tr *r, int type, int want)
{
    if (type != want) r->err = 2;
    return !r->err;
}

static bool is_bool(tr *r, int type)
{
    if (type != TR_TRUE && type != TR_FALSE) r->err = 2;
    return !r->err;
}

static void list_of(tr *r, int type, int want_elem, uint32_t *n)
{
    int elem;
    *n = 0;
    if (!is(r, type, TR_LIST)) return;
    tr_list(r, &elem, n);
    if (*n && elem != want_elem) r->err = 2;
}

static void copy_binary(tr *r, char *dst, size_t cap)
{
    size_t n;
    const uint8_t *p = tr_binary(r, &n);
    if (r->err || n >= cap) { r->err = 3; return; }
    if (n) memcpy(dst, p, n);
    dst[n] = 0;
}

/* A struct that must have no fields (the empty members of unions). */
static void empty_struct(tr *r)
{
    int16_t last = 0, id;
    int type;
    if (tr_field(r, &last, &id, &type)) r->err = 4;
}

typedef struct enc_stat { int page_type, encoding, count; } enc_stat;

typedef struct col_meta {
    uint32_t fields;            /* bit i: ColumnMetaData field i was present */
    int type, codec;
    int encodings[16], nencodings;
    char path[128];             /* path_in_schema joined with '.' */
    int npath;
    int64_t num_values, raw, stored, data_page_offset, dictionary_page_offset;
    uint32_t stat_fields;       /* bit i: Statistics field i was present */
    int64_t null_count;
    uint8_t min[MAX_BOUND], max[MAX_BOUND];
    size_t min_len, max_len;
    bool min_exact, max_exact;
    enc_stat stats[16];
    int nstats;
} col_meta;

typedef struct chunk {
    uint32_t fields;            /* of ColumnChunk */
    int64_t file_offset;
    col_meta m;
} chunk;

typedef struct row_group {
    uint32_t fields;
    chunk cols[MAX_COLS];
    int ncols;
    int64_t total_byte_size, num_rows, file_offset, total_compressed;
    int ordinal;
} row_group;

static void read_statistics(tr *r, col_meta *m)
{
    int16_t last = 0, id;
    int type;
    while (tr_field(r, &last, &id, &type)) {
        if (id >= 0 && id < 32) m->stat_fields |= 1u << id;
        switch (id) {
        case 3: if (is(r, type, TR_I64)) m->null_count = tr_zigzag(r); break;
        case 5: case 6: {
            if (!is(r, type, TR_BINARY)) break;
            size_t n;
            const uint8_t *p = tr_binary(r, &n);
            if (r->err || n > MAX_BOUND) { r->err = 3; break; }
            if (n) memcpy(id == 5 ? m->max : m->min, p, n);
            if (id == 5) m->max_len = n;
            else m->min_len = n;
            break;
        }
        case 7: if (is_bool(r, type)) m->max_exact = type == TR_TRUE; break;
        case 8: if (is_bool(r, type)) m->min_exact = type == TR_TRUE; break;
        default: tr_skip(r, type); break;
        }
    }
}

static void read_enc_stats(tr *r, int type, col_meta *m)
{
    uint32_t n;
    list_of(r, type, TR_STRUCT, &n);
    for (uint32_t i = 0; i < n && !r->err; i++) {
        enc_stat s = { -1, -1, -1 };
        int16_t last = 0, id;
        int t;
        while (tr_field(r, &last, &id, &t)) {
            if (!is(r, t, TR_I32)) break;
            if (id == 1) s.page_type = (int)tr_zigzag(r);
            else if (id == 2) s.encoding = (int)tr_zigzag(r);
            else if (id == 3) s.count = (int)tr_zigzag(r);
            else r->err = 5;
        }
        if (m->nstats == 16) r->err = 3;
        else m->stats[m->nstats++] = s;
    }
}

static void read_column_meta(tr *r, col_meta *m)
{
    int16_t last = 0, id;
    int type;
    uint32_t n;
    m->dictionary_page_offset = m->null_count = -1;
    while (tr_field(r, &last, &id, &type)) {
        if (id >= 0 && id < 32) m->fields |= 1u << id;
        switch (id) {
        case 1: if (is(r, type, TR_I32)) m->type = (int)tr_zigzag(r); break;
        case 2:
            list_of(r, type, TR_I32, &n);
            for (uint32_t i = 0; i < n && !r->err; i++) {
                if (m->nencodings == 16) { r->err = 3; break; }
                m->encodings[m->nencodings++] = (int)tr_zigzag(r);
            }
            break;
        case 3:
            list_of(r, type, TR_BINARY, &n);
            m->npath = (int)n;
            for (uint32_t i = 0; i < n && !r->err; i++) {
                size_t have = strlen(m->path);
                if (i) m->path[have++] = '.';
                copy_binary(r, m->path + have, sizeof m->path - have);
            }
            break;
        case 4: if (is(r, type, TR_I32)) m->codec = (int)tr_zigzag(r); break;
        case 5: if (is(r, type, TR_I64)) m->num_values = tr_zigzag(r); break;
        case 6: if (is(r, type, TR_I64)) m->raw = tr_zigzag(r); break;
        case 7: if (is(r, type, TR_I64)) m->stored = tr_zigzag(r); break;
        case 9: if (is(r, type, TR_I64)) m->data_page_offset = tr_zigzag(r); break;
        case 11: if (is(r, type, TR_I64)) m->dictionary_page_offset = tr_zigzag(r); break;
        case 12: if (is(r, type, TR_STRUCT)) read_statistics(r, m); break;
        case 13: read_enc_stats(r, type, m); break;
        default: tr_skip(r, type); break;
        }
    }
}

static void read_row_group(tr *r, row_group *g)
{
    int16_t last = 0, id;
    int type;
    uint32_t n;
    while (tr_field(r, &last, &id, &type)) {
        if (id >= 0 && id < 32) g->fields |= 1u << id;
        switch (id) {
        case 1:
            list_of(r, type, TR_STRUCT, &n);
            for (uint32_t i = 0; i < n && !r->err; i++) {
                if (g->ncols == MAX_COLS) { r->err = 3; break; }
                chunk *c = &g->cols[g->ncols++];
                int16_t l2 = 0, id2;
                int t2;
                while (tr_field(r, &l2, &id2, &t2)) {
                    if (id2 >= 0 && id2 < 32) c->fields |= 1u << id2;
                    if (id2 == 2) { if (is(r, t2, TR_I64)) c->file_offset = tr_zigzag(r); }
                    else if (id2 == 3) { if (is(r, t2, TR_STRUCT)) read_column_meta(r, &c->m); }
                    else tr_skip(r, t2);
                }
            }
            break;
        case 2: if (is(r, type, TR_I64)) g->total_byte_size = tr_zigzag(r); break;
        case 3: if (is(r, type, TR_I64)) g->num_rows = tr_zigzag(r); break;
        case 5: if (is(r, type, TR_I64)) g->file_offset = tr_zigzag(r); break;
        case 6: if (is(r, type, TR_I64)) g->total_compressed = tr_zigzag(r); break;
        case 7: if (is(r, type, TR_I16)) g->ordinal = (int)tr_zigzag(r); break;
        default: tr_skip(r, type); break;
        }
    }
}

/* One SchemaElement; -1 for fields that were absent. */
typedef struct elem {
    int type, type_length, repetition, num_children, converted, scale, precision;
    char name[64];
    int logical;       /* the LogicalType member's field id */
    int la, lb;        /* DECIMAL: scale, precision; TIME/TIMESTAMP: isAdjustedToUTC, TimeUnit member;
                          INTEGER: bitWidth, isSigned */
} elem;

static void read_logical(tr *r, elem *e)
{
    int16_t last = 0, id;
    int type, members = 0;
    while (tr_field(r, &last, &id, &type)) {
        if (!is(r, type, TR_STRUCT)) break;
        members++;
        e->logical = id;
        int16_t l2 = 0, id2;
        int t2;
        switch (id) {
        case 5:   /* DecimalType: scale, precision */
        case 7: case 8:   /* TimeType, TimestampType: isAdjustedToUTC, unit */
        case 10:  /* IntType: bitWidth, isSigned */
            while (tr_field(r, &l2, &id2, &t2)) {
                if (id == 5 && (id2 == 1 || id2 == 2) && is(r, t2, TR_I32)) {
                    *(id2 == 1 ? &e->la : &e->lb) = (int)tr_zigzag(r);
                } else if ((id == 7 || id == 8) && id2 == 1 && is_bool(r, t2)) {
                    e->la = t2 == TR_TRUE;
                } else if ((id == 7 || id == 8) && id2 == 2 && is(r, t2, TR_STRUCT)) {
                    int16_t l3 = 0, id3;
                    int t3, units = 0;
                    while (tr_field(r, &l3, &id3, &t3)) {
                        if (!is(r, t3, TR_STRUCT)) break;
                        units++;
                        e->lb = id3;
                        empty_struct(r);
                    }
                    if (units != 1) r->err = 6;
                } else if (id == 10 && id2 == 1 && is(r, t2, TR_BYTE)) {
                    e->la = (int8_t)tr_byte(r);
                } else if (id == 10 && id2 == 2 && is_bool(r, t2)) {
                    e->lb = t2 == TR_TRUE;
                } else {
                    r->err = 5;
                }
            }
            break;
        default:
            empty_struct(r);
            break;
        }
    }
    if (members != 1) r->err = 6;
}

static void read_elem(tr *r, elem *e)
{
    int16_t last = 0, id;
    int type;
    e->type = e->type_length = e->repetition = e->num_children = e->converted = -1;
    e->scale = e->precision = e->logical = e->la = e->lb = -1;
    while (tr_field(r, &last, &id, &type)) {
        switch (id) {
        case 1: if (is(r, type, TR_I32)) e->type = (int)tr_zigzag(r); break;
        case 2: if (is(r, type, TR_I32)) e->type_length = (int)tr_zigzag(r); break;
        case 3: if (is(r, type, TR_I32)) e->repetition = (int)tr_zigzag(r); break;
        case 4: if (is(r, type, TR_BINARY)) copy_binary(r, e->name, sizeof e->name); break;
        case 5: if (is(r, type, TR_I32)) e->num_children = (int)tr_zigzag(r); break;
        case 6: if (is(r, type, TR_I32)) e->converted = (int)tr_zigzag(r); break;
        case 7: if (is(r, type, TR_I32)) e->scale = (int)tr_zigzag(r); break;
        case 8: if (is(r, type, TR_I32)) e->precision = (int)tr_zigzag(r); break;
        case 10: if (is(r, type, TR_STRUCT)) read_logical(r, e); break;
        default: r->err = 5; break;   /* nothing else is written */
        }
    }
}

typedef struct footer {
    uint32_t fields;
    int version;
    int64_t num_rows;
    elem elems[MAX_ELEMS];
    int nelems;
    row_group rgs[MAX_RG];
    int nrgs;
    char kv_key[MAX_KV][32], kv_value[MAX_KV][32];
    bool kv_has_value[MAX_KV];
    int nkv;
    char created_by[64];
    int norders;
} footer;

/* Decode a whole FileMetaData (or fail the test). Returns a calloc'd
 * footer. */
static footer *read_footer(const uint8_t *p, size_t n)
{
    footer *f = calloc(1, sizeof *f);
    ck_assert_ptr_nonnull(f);
    tr r = tr_make(p, n);
    int16_t last = 0, id;
    int type;
    uint32_t k;
    while (tr_field(&r, &last, &id, &type)) {
        if (id >= 0 && id < 32) f->fields |= 1u << id;
        switch (id) {
        case 1: if (is(&r, type, TR_I32)) f->version = (int)tr_zigzag(&r); break;
        case 2:
            list_of(&r, type, TR_STRUCT, &k);
            for (uint32_t i = 0; i < k && !r.err; i++) {
                if (f->nelems == MAX_ELEMS) { r.err = 3; break; }
                read_elem(&r, &f->elems[f->nelems++]);
            }
            break;
        case 3: if (is(&r, type, TR_I64)) f->num_rows = tr_zigzag(&r); break;
        case 4:
            list_of(&r, type, TR_STRUCT, &k);
            for (uint32_t i = 0; i < k && !r.err; i++) {
                if (f->nrgs == MAX_RG) { r.err = 3; break; }
                read_row_group(&r, &f->rgs[f->nrgs++]);
            }
            break;
        case 5:
            list_of(&r, type, TR_STRUCT, &k);
            for (uint32_t i = 0; i < k && !r.err; i++) {
                if (f->nkv == MAX_KV) { r.err = 3; break; }
                int j = f->nkv++;
                int16_t l2 = 0, id2;
                int t2;
                while (tr_field(&r, &l2, &id2, &t2)) {
                    if (!is(&r, t2, TR_BINARY)) break;
                    if (id2 == 1) copy_binary(&r, f->kv_key[j], sizeof f->kv_key[j]);
                    else if (id2 == 2) {
                        copy_binary(&r, f->kv_value[j], sizeof f->kv_value[j]);
                        f->kv_has_value[j] = true;
                    }
                    else r.err = 5;
                }
            }
            break;
        case 6: if (is(&r, type, TR_BINARY)) copy_binary(&r, f->created_by, sizeof f->created_by); break;
        case 7:
            /* ColumnOrder union: each must be TYPE_ORDER (field 1), an empty struct */
            list_of(&r, type, TR_STRUCT, &k);
            for (uint32_t i = 0; i < k && !r.err; i++) {
                int16_t l2 = 0, id2;
                int t2, members = 0;
                while (tr_field(&r, &l2, &id2, &t2)) {
                    if (id2 != 1 || !is(&r, t2, TR_STRUCT)) { r.err = 5; break; }
                    members++;
                    empty_struct(&r);
                }
                if (members != 1) r.err = 6;
                f->norders++;
            }
            break;
        default: tr_skip(&r, type); break;
        }
    }
    ck_assert_msg(!r.err && r.p == r.end, "FileMetaData does not parse: error %d, %td bytes left", r.err,
                  r.end - r.p);
    return f;
}

/* Decode one RowGroup struct at p[0..n) that must use all n bytes. */
static void read_one_row_group(const uint8_t *p, size_t n, row_group *g)
{
    memset(g, 0, sizeof *g);
    tr r = tr_make(p, n);
    read_row_group(&r, g);
    ck_assert_msg(!r.err && r.p == r.end, "RowGroup does not parse: error %d, %td bytes left", r.err, r.end - r.p);
}

/* ---- fixtures ---------------------------------------------------------------------- */

static buf out;
static inlay_allocator alloc;
static inlay_schema *schema;
static row_group *rg;

static void setup(void)
{
    memset(&out, 0, sizeof out);
    alloc = inl_mem_default();
    schema = NULL;
    rg = calloc(1, sizeof *rg);
    ck_assert_ptr_nonnull(rg);
}

static void teardown(void)
{
    inl_buf_free(&out, &alloc);
    inlay_schema_free(schema);
    free(rg);
}

static void add(int parent, const char *name, inlay_repetition rep, inlay_type type)
{
    int id = inlay_schema_add(schema, parent, name, rep, type, NULL);
    ck_assert_msg(id > 0, "adding '%s': %s", name, inlay_schema_errmsg(schema));
}

/* id int64 required, name string optional, flag boolean required,
 * tags list<string> (optional list, required elements), attrs
 * map<string, int32> */
static void small_schema(void)
{
    schema = inlay_schema_create(NULL);
    ck_assert_ptr_nonnull(schema);
    add(0, "id", INLAY_REQUIRED, inlay_type_int(64, true));
    add(0, "name", INLAY_OPTIONAL, inlay_type_string());
    add(0, "flag", INLAY_REQUIRED, inlay_type_boolean());
    int tags = inlay_schema_add_list(schema, 0, "tags", INLAY_OPTIONAL);
    ck_assert_int_gt(tags, 0);
    add(tags, "element", INLAY_REQUIRED, inlay_type_string());
    int attrs = inlay_schema_add_map(schema, 0, "attrs", INLAY_REQUIRED);
    ck_assert_int_gt(attrs, 0);
    add(attrs, "key", INLAY_REQUIRED, inlay_type_string());
    add(attrs, "value", INLAY_OPTIONAL, inlay_type_int(32, true));
    ck_assert_int_eq(inl_schema_finalize(schema), 0);
}

static const schema_leaf *leaf(const char *path)
{
    for (int i = 0; i < schema->num_leaves; i++)
        if (strcmp(schema->leaves[i].path, path) == 0) return &schema->leaves[i];
    ck_abort_msg("no leaf '%s'", path);
    return NULL;
}

static int no_pages[ENC_COUNT];

/* A chunk with no dictionary and no statistics. */
static chunk_meta plain_chunk(const char *path, uint64_t start, uint64_t raw, uint64_t stored, const int *pages)
{
    chunk_meta k;
    memset(&k, 0, sizeof k);
    k.leaf = leaf(path);
    k.physical = schema->nodes[k.leaf->node].type.physical;
    k.start = start;
    k.num_values = 100;
    k.raw_size = raw;
    k.stored_size = stored;
    k.page_counts = pages ? pages : no_pages;
    k.codec = INLAY_ZSTD;
    k.bloom_offset = -1;
    k.unencoded_bytes = -1;
    return k;
}

/* Write one RowGroup of the chunks and decode it into rg. */
static void row_group_of(const chunk_meta *k, int n, uint64_t rows, int ordinal, inlay_compression codec,
                         int page_type)
{
    size_t start = out.len;
    chunk_meta with_codec[16];
    ck_assert_int_le(n, 16);
    for (int i = 0; i < n; i++) {
        with_codec[i] = k[i];
        with_codec[i].codec = codec;
    }
    ck_assert_int_eq(inl_meta_row_group(&out, &alloc, with_codec, n, rows, ordinal, page_type, NULL, 0, NULL), 0);
    read_one_row_group(out.data + start, out.len - start, rg);
}

#define ck_assert_encodings(m, ...)                                                   \
    do {                                                                              \
        const int want_[] = { __VA_ARGS__ };                                          \
        const int n_ = (int)(sizeof want_ / sizeof want_[0]);                         \
        ck_assert_int_eq((m)->nencodings, n_);                                        \
        for (int i_ = 0; i_ < n_; i_++) ck_assert_int_eq((m)->encodings[i_], want_[i_]); \
    } while (0)

static void expect_stat(const col_meta *m, int i, int page_type, int encoding, int count)
{
    ck_assert_int_lt(i, m->nstats);
    ck_assert_int_eq(m->stats[i].page_type, page_type);
    ck_assert_int_eq(m->stats[i].encoding, encoding);
    ck_assert_int_eq(m->stats[i].count, count);
}

/* ---- row groups ------------------------------------------------------------------------ */

START_TEST(test_row_group_fields)
{
    small_schema();
    int p1[ENC_COUNT] = { 0 }, p2[ENC_COUNT] = { 0 };
    p1[ENC_DELTA_BINARY_PACKED] = 2;
    p2[ENC_PLAIN] = 1;
    chunk_meta k[2] = { plain_chunk("id", 4, 1000, 600, p1), plain_chunk("name", 604, 3000, 2500, p2) };
    k[0].num_values = 250;
    k[1].num_values = 260;
    row_group_of(k, 2, 250, 3, INLAY_ZSTD, PAGE_DATA);
    /* RowGroup: columns, total_byte_size, num_rows, file_offset, total_compressed_size, ordinal */
    ck_assert_uint_eq(rg->fields, 1u << 1 | 1u << 2 | 1u << 3 | 1u << 5 | 1u << 6 | 1u << 7);
    ck_assert_int_eq(rg->ncols, 2);
    ck_assert_int_eq(rg->total_byte_size, 4000);
    ck_assert_int_eq(rg->num_rows, 250);
    ck_assert_int_eq(rg->file_offset, 4);
    ck_assert_int_eq(rg->total_compressed, 3100);
    ck_assert_int_eq(rg->ordinal, 3);
    /* ColumnChunk: file_offset and meta_data, nothing else */
    for (int i = 0; i < 2; i++) ck_assert_uint_eq(rg->cols[i].fields, 1u << 2 | 1u << 3);
    ck_assert_int_eq(rg->cols[0].file_offset, 4);
    ck_assert_int_eq(rg->cols[1].file_offset, 604);
    const col_meta *a = &rg->cols[0].m, *b = &rg->cols[1].m;
    ck_assert_int_eq(a->type, INLAY_INT64);
    ck_assert_int_eq(b->type, INLAY_BYTE_ARRAY);
    ck_assert_str_eq(a->path, "id");
    ck_assert_int_eq(a->npath, 1);
    ck_assert_str_eq(b->path, "name");
    ck_assert_int_eq(a->codec, INLAY_ZSTD);
    ck_assert_int_eq(b->codec, INLAY_ZSTD);
    ck_assert_int_eq(a->num_values, 250);
    ck_assert_int_eq(b->num_values, 260);
    ck_assert_int_eq(a->raw, 1000);
    ck_assert_int_eq(a->stored, 600);
    ck_assert_int_eq(b->raw, 3000);
    ck_assert_int_eq(b->stored, 2500);
    ck_assert_int_eq(a->data_page_offset, 4);
    ck_assert_int_eq(b->data_page_offset, 604);
    /* type, encodings, path, codec, num_values, sizes, data_page_offset, encoding_stats */
    const uint32_t want = 1u << 1 | 1u << 2 | 1u << 3 | 1u << 4 | 1u << 5 | 1u << 6 | 1u << 7 | 1u << 9 | 1u << 13;
    ck_assert_uint_eq(a->fields, want);
    ck_assert_uint_eq(b->fields, want);
}
END_TEST

START_TEST(test_row_group_uncompressed)
{
    small_schema();
    int p[ENC_COUNT] = { 0 };
    p[ENC_PLAIN] = 1;
    chunk_meta k = plain_chunk("flag", 4, 10, 10, p);
    row_group_of(&k, 1, 100, 0, INLAY_UNCOMPRESSED, PAGE_DATA);
    ck_assert_int_eq(rg->cols[0].m.codec, INLAY_UNCOMPRESSED);
    ck_assert_int_eq(rg->cols[0].m.type, INLAY_BOOLEAN);
    ck_assert_int_eq(rg->ordinal, 0);
}
END_TEST

/* path_in_schema lists every group on the way, the repeated middle ones
 * included. */
START_TEST(test_nested_paths)
{
    small_schema();
    int p[ENC_COUNT] = { 0 };
    p[ENC_PLAIN] = 1;
    chunk_meta k[3] = { plain_chunk("tags.list.element", 100, 50, 40, p),
                        plain_chunk("attrs.key_value.key", 140, 60, 50, p),
                        plain_chunk("attrs.key_value.value", 190, 70, 60, p) };
    row_group_of(k, 3, 9, 1, INLAY_ZSTD, PAGE_DATA);
    ck_assert_str_eq(rg->cols[0].m.path, "tags.list.element");
    ck_assert_int_eq(rg->cols[0].m.npath, 3);
    ck_assert_str_eq(rg->cols[1].m.path, "attrs.key_value.key");
    ck_assert_int_eq(rg->cols[1].m.npath, 3);
    ck_assert_str_eq(rg->cols[2].m.path, "attrs.key_value.value");
    ck_assert_int_eq(rg->cols[2].m.type, INLAY_INT32);
    ck_assert_int_eq(rg->file_offset, 100);
    ck_assert_int_eq(rg->total_byte_size, 180);
    ck_assert_int_eq(rg->total_compressed, 150);
}
END_TEST

/* Row groups go one after another into one buffer, each a whole struct. */
START_TEST(test_row_groups_appended)
{
    small_schema();
    int p[ENC_COUNT] = { 0 };
    p[ENC_PLAIN] = 1;
    chunk_meta k = plain_chunk("id", 4, 80, 70, p);
    ck_assert_int_eq(inl_meta_row_group(&out, &alloc, &k, 1, 10, 0, PAGE_DATA, NULL, 0, NULL), 0);
    const size_t first = out.len;
    k.start = 74;
    ck_assert_int_eq(inl_meta_row_group(&out, &alloc, &k, 1, 11, 1, PAGE_DATA, NULL, 0, NULL), 0);
    read_one_row_group(out.data, first, rg);
    ck_assert_int_eq(rg->num_rows, 10);
    ck_assert_int_eq(rg->ordinal, 0);
    read_one_row_group(out.data + first, out.len - first, rg);
    ck_assert_int_eq(rg->num_rows, 11);
    ck_assert_int_eq(rg->ordinal, 1);
    ck_assert_int_eq(rg->file_offset, 74);
}
END_TEST

/* ---- encodings ------------------------------------------------------------------------- */

/* A required flat column has no levels: only the values' encoding. */
START_TEST(test_encodings_required)
{
    small_schema();
    int p[ENC_COUNT] = { 0 };
    p[ENC_DELTA_BINARY_PACKED] = 2;
    chunk_meta k = plain_chunk("id", 4, 100, 90, p);
    row_group_of(&k, 1, 100, 0, INLAY_ZSTD, PAGE_DATA);
    const col_meta *m = &rg->cols[0].m;
    ck_assert_encodings(m, ENC_DELTA_BINARY_PACKED);
    ck_assert_int_eq(m->nstats, 1);
    expect_stat(m, 0, PAGE_DATA, ENC_DELTA_BINARY_PACKED, 2);
    ck_assert_int_eq(m->dictionary_page_offset, -1);
    ck_assert_int_eq(m->data_page_offset, 4);
}
END_TEST

/* Dictionary, then a fallback to PLAIN, in an optional column: PLAIN (the
 * dictionary page and the fallback), RLE (levels), RLE_DICTIONARY. */
START_TEST(test_encodings_dictionary)
{
    small_schema();
    int p[ENC_COUNT] = { 0 };
    p[ENC_RLE_DICTIONARY] = 3;
    p[ENC_PLAIN] = 1;
    chunk_meta k = plain_chunk("name", 1000, 700, 500, p);
    k.dict_bytes = 123;
    row_group_of(&k, 1, 100, 0, INLAY_ZSTD, PAGE_DATA);
    const col_meta *m = &rg->cols[0].m;
    ck_assert_encodings(m, ENC_PLAIN, ENC_RLE, ENC_RLE_DICTIONARY);
    ck_assert_int_eq(m->nstats, 3);
    expect_stat(m, 0, PAGE_DICTIONARY, ENC_PLAIN, 1);
    expect_stat(m, 1, PAGE_DATA, ENC_PLAIN, 1);
    expect_stat(m, 2, PAGE_DATA, ENC_RLE_DICTIONARY, 3);
    ck_assert(m->fields & 1u << 11);
    ck_assert_int_eq(m->dictionary_page_offset, 1000);
    ck_assert_int_eq(m->data_page_offset, 1123);
    ck_assert_int_eq(rg->cols[0].file_offset, 1000);
}
END_TEST

/* Dictionary without fallback in a required column: PLAIN for the
 * dictionary page alone, no RLE. */
START_TEST(test_encodings_dictionary_only)
{
    small_schema();
    int p[ENC_COUNT] = { 0 };
    p[ENC_RLE_DICTIONARY] = 2;
    chunk_meta k = plain_chunk("id", 4, 100, 90, p);
    k.dict_bytes = 30;
    row_group_of(&k, 1, 100, 0, INLAY_ZSTD, PAGE_DATA);
    const col_meta *m = &rg->cols[0].m;
    ck_assert_encodings(m, ENC_PLAIN, ENC_RLE_DICTIONARY);
    ck_assert_int_eq(m->nstats, 2);
    expect_stat(m, 0, PAGE_DICTIONARY, ENC_PLAIN, 1);
    expect_stat(m, 1, PAGE_DATA, ENC_RLE_DICTIONARY, 2);
    ck_assert_int_eq(m->dictionary_page_offset, 4);
    ck_assert_int_eq(m->data_page_offset, 34);
}
END_TEST

/* RLE booleans in a required column: RLE once, as the values' encoding. */
START_TEST(test_encodings_rle_values)
{
    small_schema();
    int p[ENC_COUNT] = { 0 };
    p[ENC_RLE] = 4;
    chunk_meta k = plain_chunk("flag", 4, 100, 90, p);
    row_group_of(&k, 1, 100, 0, INLAY_ZSTD, PAGE_DATA);
    const col_meta *m = &rg->cols[0].m;
    ck_assert_encodings(m, ENC_RLE);
    ck_assert_int_eq(m->nstats, 1);
    expect_stat(m, 0, PAGE_DATA, ENC_RLE, 4);
}
END_TEST

/* A required element of a list still has levels (the list's). */
START_TEST(test_encodings_nested_levels)
{
    small_schema();
    int p[ENC_COUNT] = { 0 };
    p[ENC_DELTA_LENGTH_BYTE_ARRAY] = 1;
    p[ENC_BYTE_STREAM_SPLIT] = 2;     /* any mix the writer reports is listed */
    chunk_meta k = plain_chunk("tags.list.element", 4, 100, 90, p);
    row_group_of(&k, 1, 100, 0, INLAY_ZSTD, PAGE_DATA);
    const col_meta *m = &rg->cols[0].m;
    ck_assert_encodings(m, ENC_RLE, ENC_DELTA_LENGTH_BYTE_ARRAY, ENC_BYTE_STREAM_SPLIT);
    ck_assert_int_eq(m->nstats, 2);
    expect_stat(m, 0, PAGE_DATA, ENC_DELTA_LENGTH_BYTE_ARRAY, 1);
    expect_stat(m, 1, PAGE_DATA, ENC_BYTE_STREAM_SPLIT, 2);
}
END_TEST

/* v2 data pages are counted as DATA_PAGE_V2; the dictionary page stays a
 * DICTIONARY_PAGE. */
START_TEST(test_encoding_stats_v2)
{
    small_schema();
    int p[ENC_COUNT] = { 0 };
    p[ENC_RLE_DICTIONARY] = 5;
    chunk_meta k = plain_chunk("name", 4, 100, 90, p);
    k.dict_bytes = 10;
    row_group_of(&k, 1, 100, 0, INLAY_ZSTD, PAGE_DATA_V2);
    const col_meta *m = &rg->cols[0].m;
    ck_assert_int_eq(m->nstats, 2);
    expect_stat(m, 0, PAGE_DICTIONARY, ENC_PLAIN, 1);
    expect_stat(m, 1, PAGE_DATA_V2, ENC_RLE_DICTIONARY, 5);
}
END_TEST

/* ---- statistics --------------------------------------------------------------------------- */

static const uint8_t lo8[8] = { 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };   /* -2 */
static const uint8_t hi8[8] = { 0x39, 0x30, 0, 0, 0, 0, 0, 0 };                     /* 12345 */

START_TEST(test_statistics_off)
{
    small_schema();
    int p[ENC_COUNT] = { 0 };
    p[ENC_PLAIN] = 1;
    chunk_meta k = plain_chunk("id", 4, 100, 90, p);
    k.statistics = false;
    k.st.null_count = 5;
    k.st.has_bounds = true;
    k.st.min_exact = k.st.max_exact = true;          /* ignored without statistics */
    k.st.min = lo8;
    k.st.max = hi8;
    k.st.min_len = k.st.max_len = 8;
    row_group_of(&k, 1, 100, 0, INLAY_ZSTD, PAGE_DATA);
    ck_assert_uint_eq(rg->cols[0].m.fields & 1u << 12, 0);
    ck_assert_uint_eq(rg->cols[0].m.stat_fields, 0);
}
END_TEST

/* Statistics without bounds (every value null, or an order with none):
 * null_count alone. */
START_TEST(test_statistics_null_count_only)
{
    small_schema();
    int p[ENC_COUNT] = { 0 };
    p[ENC_PLAIN] = 1;
    chunk_meta k = plain_chunk("name", 4, 100, 90, p);
    k.statistics = true;
    k.st.null_count = 77;
    row_group_of(&k, 1, 100, 0, INLAY_ZSTD, PAGE_DATA);
    const col_meta *m = &rg->cols[0].m;
    ck_assert(m->fields & 1u << 12);
    ck_assert_uint_eq(m->stat_fields, 1u << 3);
    ck_assert_int_eq(m->null_count, 77);
}
END_TEST

/* Bounds go to min_value/max_value (5, 6, never the deprecated 1, 2), both
 * flagged exact. */
START_TEST(test_statistics_bounds)
{
    small_schema();
    int p[ENC_COUNT] = { 0 };
    p[ENC_PLAIN] = 1;
    chunk_meta k = plain_chunk("id", 4, 100, 90, p);
    k.statistics = true;
    k.st.null_count = 0;
    k.st.has_bounds = true;
    k.st.min_exact = k.st.max_exact = true;
    k.st.min = lo8;
    k.st.max = hi8;
    k.st.min_len = k.st.max_len = 8;
    row_group_of(&k, 1, 100, 0, INLAY_ZSTD, PAGE_DATA);
    const col_meta *m = &rg->cols[0].m;
    ck_assert_uint_eq(m->stat_fields, 1u << 3 | 1u << 5 | 1u << 6 | 1u << 7 | 1u << 8);
    ck_assert_int_eq(m->null_count, 0);
    ck_assert_bytes(m->min, m->min_len, lo8, 8);
    ck_assert_bytes(m->max, m->max_len, hi8, 8);
    ck_assert(m->min_exact);
    ck_assert(m->max_exact);
}
END_TEST

/* The empty string is a real minimum of a byte-array column: written as
 * a zero-length min_value, not left out. */
START_TEST(test_statistics_empty_min)
{
    small_schema();
    int p[ENC_COUNT] = { 0 };
    p[ENC_PLAIN] = 1;
    chunk_meta k = plain_chunk("name", 4, 100, 90, p);
    k.statistics = true;
    k.st.null_count = 3;
    k.st.has_bounds = true;
    k.st.min_exact = k.st.max_exact = true;
    k.st.min = NULL;
    k.st.min_len = 0;
    k.st.max = (const uint8_t *)"pear";
    k.st.max_len = 4;
    row_group_of(&k, 1, 100, 0, INLAY_ZSTD, PAGE_DATA);
    const col_meta *m = &rg->cols[0].m;
    ck_assert(m->stat_fields & 1u << 6);
    ck_assert_uint_eq(m->min_len, 0);
    ck_assert_bytes(m->max, m->max_len, "pear", 4);
    ck_assert_int_eq(m->null_count, 3);
}
END_TEST

/* Statistics of one chunk do not spill into the next. */
START_TEST(test_statistics_per_chunk)
{
    small_schema();
    int p[ENC_COUNT] = { 0 };
    p[ENC_PLAIN] = 1;
    chunk_meta k[2] = { plain_chunk("id", 4, 100, 90, p), plain_chunk("name", 94, 100, 90, p) };
    k[0].statistics = true;
    k[0].st.has_bounds = true;
    k[0].st.min_exact = k[0].st.max_exact = true;
    k[0].st.min = lo8;
    k[0].st.max = hi8;
    k[0].st.min_len = k[0].st.max_len = 8;
    row_group_of(k, 2, 100, 0, INLAY_ZSTD, PAGE_DATA);
    ck_assert(rg->cols[0].m.fields & 1u << 12);
    ck_assert_uint_eq(rg->cols[1].m.fields & 1u << 12, 0);
}
END_TEST

/* ---- the schema ---------------------------------------------------------------------------- */

/* What each SchemaElement must say, in depth-first order; -1 = absent. */
typedef struct want_elem {
    const char *name;
    int type, type_length, repetition, num_children, converted, scale, precision, logical, la, lb;
} want_elem;

enum { REQ = 0, OPT = 1, REP = 2, NA = -1 };
/* ConvertedType, LogicalType member ids and TimeUnit member ids, from parquet.thrift */
enum { CT_UTF8 = 0, CT_MAP = 1, CT_LIST = 3, CT_ENUM = 4, CT_DECIMAL = 5, CT_DATE = 6, CT_TIME_MILLIS = 7,
       CT_TIMESTAMP_MICROS = 10, CT_UINT_8 = 11, CT_UINT_64 = 14, CT_INT_16 = 16, CT_INT_32 = 17,
       CT_INT_64 = 18, CT_JSON = 19 };
enum { LT_STRING = 1, LT_MAP = 2, LT_LIST = 3, LT_ENUM = 4, LT_DECIMAL = 5, LT_DATE = 6, LT_TIME = 7,
       LT_TIMESTAMP = 8, LT_INTEGER = 10, LT_JSON = 12, LT_UUID = 14, LT_FLOAT16 = 15 };
enum { TU_MILLIS = 1, TU_MICROS = 2, TU_NANOS = 3 };

static const want_elem want_elems[] = {
    /* name        type  len  rep  kids conv                 scale prec logical       la  lb */
    { "schema",    NA,   NA,  NA,  24,  NA,                  NA,   NA,  NA,           NA, NA },
    { "id",        2,    NA,  REQ, NA,  CT_INT_64,           NA,   NA,  LT_INTEGER,   64, 1 },
    { "name",      6,    NA,  OPT, NA,  CT_UTF8,             NA,   NA,  LT_STRING,    NA, NA },
    { "price",     2,    NA,  REQ, NA,  CT_DECIMAL,          2,    10,  LT_DECIMAL,   2,  10 },
    { "amount",    7,    13,  OPT, NA,  CT_DECIMAL,          4,    30,  LT_DECIMAL,   4,  30 },
    { "ts_utc",    2,    NA,  REQ, NA,  CT_TIMESTAMP_MICROS, NA,   NA,  LT_TIMESTAMP, 1,  TU_MICROS },
    { "ts_local",  2,    NA,  REQ, NA,  NA,                  NA,   NA,  LT_TIMESTAMP, 0,  TU_MILLIS },
    { "ts_ns",     2,    NA,  REQ, NA,  NA,                  NA,   NA,  LT_TIMESTAMP, 1,  TU_NANOS },
    { "t_ms",      1,    NA,  REQ, NA,  CT_TIME_MILLIS,      NA,   NA,  LT_TIME,      1,  TU_MILLIS },
    { "t_local",   2,    NA,  REQ, NA,  NA,                  NA,   NA,  LT_TIME,      0,  TU_MICROS },
    { "small",     1,    NA,  REQ, NA,  CT_UINT_8,           NA,   NA,  LT_INTEGER,   8,  0 },
    { "i16",       1,    NA,  REQ, NA,  CT_INT_16,           NA,   NA,  LT_INTEGER,   16, 1 },
    { "u64",       2,    NA,  REQ, NA,  CT_UINT_64,          NA,   NA,  LT_INTEGER,   64, 0 },
    { "day",       1,    NA,  OPT, NA,  CT_DATE,             NA,   NA,  LT_DATE,      NA, NA },
    { "raw",       6,    NA,  OPT, NA,  NA,                  NA,   NA,  NA,           NA, NA },
    { "flag",      0,    NA,  REQ, NA,  NA,                  NA,   NA,  NA,           NA, NA },
    { "uid",       7,    16,  REQ, NA,  NA,                  NA,   NA,  LT_UUID,      NA, NA },
    { "doc",       6,    NA,  OPT, NA,  CT_JSON,             NA,   NA,  LT_JSON,      NA, NA },
    { "kind",      6,    NA,  REQ, NA,  CT_ENUM,             NA,   NA,  LT_ENUM,      NA, NA },
    { "half",      7,    2,   OPT, NA,  NA,                  NA,   NA,  LT_FLOAT16,   NA, NA },
    { "code",      7,    5,   REQ, NA,  NA,                  NA,   NA,  NA,           NA, NA },
    { "plain32",   1,    NA,  REQ, NA,  NA,                  NA,   NA,  NA,           NA, NA },
    { "tags",      NA,   NA,  OPT, 1,   CT_LIST,             NA,   NA,  LT_LIST,      NA, NA },
    { "list",      NA,   NA,  REP, 1,   NA,                  NA,   NA,  NA,           NA, NA },
    { "element",   6,    NA,  OPT, NA,  CT_UTF8,             NA,   NA,  LT_STRING,    NA, NA },
    { "attrs",     NA,   NA,  REQ, 1,   CT_MAP,              NA,   NA,  LT_MAP,       NA, NA },
    { "key_value", NA,   NA,  REP, 2,   NA,                  NA,   NA,  NA,           NA, NA },
    { "key",       6,    NA,  REQ, NA,  CT_UTF8,             NA,   NA,  LT_STRING,    NA, NA },
    { "value",     1,    NA,  OPT, NA,  CT_INT_32,           NA,   NA,  LT_INTEGER,   32, 1 },
    { "point",     NA,   NA,  OPT, 2,   NA,                  NA,   NA,  NA,           NA, NA },
    { "x",         5,    NA,  REQ, NA,  NA,                  NA,   NA,  NA,           NA, NA },
    { "y",         4,    NA,  OPT, NA,  NA,                  NA,   NA,  NA,           NA, NA },
};

static void wide_schema(void)
{
    schema = inlay_schema_create(NULL);
    ck_assert_ptr_nonnull(schema);
    add(0, "id", INLAY_REQUIRED, inlay_type_int(64, true));
    add(0, "name", INLAY_OPTIONAL, inlay_type_string());
    add(0, "price", INLAY_REQUIRED, inlay_type_decimal(10, 2, INLAY_INT64, 0));
    add(0, "amount", INLAY_OPTIONAL, inlay_type_decimal(30, 4, INLAY_FIXED_LEN_BYTE_ARRAY, 0));
    add(0, "ts_utc", INLAY_REQUIRED, inlay_type_timestamp(INLAY_MICROS, true));
    add(0, "ts_local", INLAY_REQUIRED, inlay_type_timestamp(INLAY_MILLIS, false));
    add(0, "ts_ns", INLAY_REQUIRED, inlay_type_timestamp(INLAY_NANOS, true));
    add(0, "t_ms", INLAY_REQUIRED, inlay_type_time(INLAY_MILLIS, true));
    add(0, "t_local", INLAY_REQUIRED, inlay_type_time(INLAY_MICROS, false));
    add(0, "small", INLAY_REQUIRED, inlay_type_int(8, false));
    add(0, "i16", INLAY_REQUIRED, inlay_type_int(16, true));
    add(0, "u64", INLAY_REQUIRED, inlay_type_int(64, false));
    add(0, "day", INLAY_OPTIONAL, inlay_type_date());
    add(0, "raw", INLAY_OPTIONAL, inlay_type_binary());
    add(0, "flag", INLAY_REQUIRED, inlay_type_boolean());
    add(0, "uid", INLAY_REQUIRED, inlay_type_uuid());
    add(0, "doc", INLAY_OPTIONAL, inlay_type_json());
    add(0, "kind", INLAY_REQUIRED, inlay_type_enum());
    add(0, "half", INLAY_OPTIONAL, inlay_type_float16());
    add(0, "code", INLAY_REQUIRED, inlay_type_fixed(5));
    add(0, "plain32", INLAY_REQUIRED, inlay_type_physical(INLAY_INT32));
    int tags = inlay_schema_add_list(schema, 0, "tags", INLAY_OPTIONAL);
    ck_assert_int_gt(tags, 0);
    add(tags, "element", INLAY_OPTIONAL, inlay_type_string());
    int attrs = inlay_schema_add_map(schema, 0, "attrs", INLAY_REQUIRED);
    ck_assert_int_gt(attrs, 0);
    add(attrs, "key", INLAY_REQUIRED, inlay_type_string());
    add(attrs, "value", INLAY_OPTIONAL, inlay_type_int(32, true));
    int point = inlay_schema_add_group(schema, 0, "point", INLAY_OPTIONAL);
    ck_assert_int_gt(point, 0);
    add(point, "x", INLAY_REQUIRED, inlay_type_double());
    add(point, "y", INLAY_OPTIONAL, inlay_type_float());
    ck_assert_int_eq(inl_schema_finalize(schema), 0);
}

/* A row group of one plain chunk per leaf into rgbuf; the leaves' chunks
 * follow each other from offset 4. */
static void leaf_row_group(buf *rgbuf, uint64_t rows, int ordinal, uint64_t *offset)
{
    static int pages[ENC_COUNT];
    pages[ENC_PLAIN] = 1;
    chunk_meta k[MAX_COLS];
    ck_assert_int_le(schema->num_leaves, MAX_COLS);
    for (int i = 0; i < schema->num_leaves; i++) {
        k[i] = plain_chunk(schema->leaves[i].path, *offset, 100, 80, pages);
        *offset += 80;
    }
    ck_assert_int_eq(inl_meta_row_group(rgbuf, &alloc, k, schema->num_leaves, rows, ordinal, PAGE_DATA, NULL, 0, NULL), 0);
}

/* Write the FileMetaData of the current schema with nrg row groups and
 * decode it. */
static footer *file_of(int nrg, const inlay_kv *kv, size_t nkv)
{
    buf groups = { 0 };
    uint64_t offset = 4;
    for (int i = 0; i < nrg; i++) leaf_row_group(&groups, 1000 + (uint64_t)i, i, &offset);
    const uint64_t rows = 1000u * (uint64_t)nrg + 7;
    ck_assert_int_eq(inl_meta_file(&out, &alloc, schema, rows, &groups, (uint32_t)nrg, kv, nkv), 0);
    inl_buf_free(&groups, &alloc);
    return read_footer(out.data, out.len);
}

START_TEST(test_schema_elements)
{
    wide_schema();
    footer *f = file_of(1, NULL, 0);
    const int n = (int)(sizeof want_elems / sizeof want_elems[0]);
    ck_assert_int_eq(f->nelems, n);
    for (int i = 0; i < n; i++) {
        const want_elem *w = &want_elems[i];
        const elem *e = &f->elems[i];
        ck_assert_str_eq(e->name, w->name);
#define FIELD(x) ck_assert_msg(e->x == w->x, "%s: " #x " is %d, want %d", w->name, e->x, w->x)
        FIELD(type);
        FIELD(type_length);
        FIELD(repetition);
        FIELD(num_children);
        FIELD(converted);
        FIELD(scale);
        FIELD(precision);
        FIELD(logical);
        FIELD(la);
        FIELD(lb);
#undef FIELD
    }
    free(f);
}
END_TEST

/* The chunks of a row group are in leaf order, whatever the nesting. */
START_TEST(test_schema_leaf_paths)
{
    wide_schema();
    footer *f = file_of(1, NULL, 0);
    ck_assert_int_eq(f->nrgs, 1);
    ck_assert_int_eq(f->rgs[0].ncols, 26);
    ck_assert_str_eq(f->rgs[0].cols[0].m.path, "id");
    ck_assert_str_eq(f->rgs[0].cols[21].m.path, "tags.list.element");
    ck_assert_str_eq(f->rgs[0].cols[22].m.path, "attrs.key_value.key");
    ck_assert_str_eq(f->rgs[0].cols[23].m.path, "attrs.key_value.value");
    ck_assert_str_eq(f->rgs[0].cols[25].m.path, "point.y");
    ck_assert_int_eq(f->rgs[0].cols[25].m.type, INLAY_FLOAT);
    ck_assert_int_eq(f->rgs[0].cols[3].m.type, INLAY_FIXED_LEN_BYTE_ARRAY);
    free(f);
}
END_TEST

/* ---- the file ------------------------------------------------------------------------------- */

START_TEST(test_file_fields)
{
    small_schema();
    footer *f = file_of(2, NULL, 0);
    /* version, schema, num_rows, row_groups, created_by, column_orders: no key_value_metadata */
    ck_assert_uint_eq(f->fields, 1u << 1 | 1u << 2 | 1u << 3 | 1u << 4 | 1u << 6 | 1u << 7);
    ck_assert_int_eq(f->version, 1);
    ck_assert_int_eq(f->num_rows, 2007);
    ck_assert_int_eq(f->nelems, 1 + 3 + 3 + 4);
    ck_assert_int_eq(f->nrgs, 2);
    ck_assert_int_eq(f->rgs[0].num_rows, 1000);
    ck_assert_int_eq(f->rgs[0].ordinal, 0);
    ck_assert_int_eq(f->rgs[1].num_rows, 1001);
    ck_assert_int_eq(f->rgs[1].ordinal, 1);
    ck_assert_int_eq(f->rgs[1].ncols, 6);
    ck_assert_int_eq(f->rgs[1].file_offset, 4 + 6 * 80);
    ck_assert_int_eq(f->norders, 6);     /* one TYPE_ORDER per leaf */
    free(f);
}
END_TEST

START_TEST(test_created_by)
{
    small_schema();
    footer *f = file_of(1, NULL, 0);
    char want[64];
    unsigned v = inlay_version_number();
    snprintf(want, sizeof want, "inlay version %u.%u.%u", v / 10000, v / 100 % 100, v % 100);
    ck_assert_str_eq(f->created_by, want);
    ck_assert_str_eq(f->created_by, "inlay version " INLAY_VERSION_STRING);
    free(f);
}
END_TEST

START_TEST(test_key_value)
{
    small_schema();
    const inlay_kv kv[] = { { "origin", "sensor-7" }, { "empty", "" }, { "flag", NULL } };
    footer *f = file_of(1, kv, 3);
    ck_assert(f->fields & 1u << 5);
    ck_assert_int_eq(f->nkv, 3);
    ck_assert_str_eq(f->kv_key[0], "origin");
    ck_assert(f->kv_has_value[0]);
    ck_assert_str_eq(f->kv_value[0], "sensor-7");
    ck_assert_str_eq(f->kv_key[1], "empty");
    ck_assert(f->kv_has_value[1]);      /* an empty value is a value */
    ck_assert_str_eq(f->kv_value[1], "");
    ck_assert_str_eq(f->kv_key[2], "flag");
    ck_assert(!f->kv_has_value[2]);     /* NULL: the optional field left out */
    free(f);
}
END_TEST

START_TEST(test_no_row_groups)
{
    small_schema();
    footer *f = file_of(0, NULL, 0);
    ck_assert(f->fields & 1u << 4);     /* required: an empty list */
    ck_assert_int_eq(f->nrgs, 0);
    ck_assert_int_eq(f->num_rows, 7);
    ck_assert_int_eq(f->norders, 6);
    free(f);
}
END_TEST

/* ---- allocation failures --------------------------------------------------------------------- */

/* Refuse allocation n (or every one from n on) while a RowGroup and then a
 * FileMetaData are written, for every n until both are: INLAY_ERR_NOMEM,
 * nothing leaked. */
static void nomem_loop(bool after)
{
    wide_schema();
    const inlay_kv kv[] = { { "k", "v" } };
    unsigned long failures = 0;
    bool done = false;
    for (unsigned long n = 1; !done && n < 100; n++) {
        test_alloc ta = { .fail_at = n, .fail_after = after };
        inlay_allocator a = test_allocator(&ta);
        buf groups = { 0 }, foot = { 0 };
        static int pages[ENC_COUNT];
        pages[ENC_RLE_DICTIONARY] = 1;
        chunk_meta k[MAX_COLS];
        for (int i = 0; i < schema->num_leaves; i++) {
            k[i] = plain_chunk(schema->leaves[i].path, 4 + 100 * (uint64_t)i, 100, 100, pages);
            k[i].dict_bytes = 10;
            k[i].statistics = true;
            k[i].st.has_bounds = true;
            k[i].st.min_exact = k[i].st.max_exact = true;
            k[i].st.min = lo8;
            k[i].st.max = hi8;
            k[i].st.min_len = k[i].st.max_len = 8;
        }
        int st = inl_meta_row_group(&groups, &a, k, schema->num_leaves, 5, 0, PAGE_DATA, NULL, 0, NULL);
        if (!st) st = inl_meta_file(&foot, &a, schema, 5, &groups, 1, kv, 1);
        if (st) {
            ck_assert_msg(st == INLAY_ERR_NOMEM, "allocation %lu refused: %d", n, st);
            ck_assert_uint_ge(ta.refused, 1);
            failures++;
        } else {
            ck_assert_uint_eq(ta.refused, 0);
            footer *f = read_footer(foot.data, foot.len);
            ck_assert_int_eq(f->rgs[0].ncols, schema->num_leaves);
            ck_assert_int_eq(f->nkv, 1);
            free(f);
            done = true;
        }
        inl_buf_free(&groups, &a);
        inl_buf_free(&foot, &a);
        ck_assert_msg(ta.live_bytes == 0 && ta.live_blocks == 0 && ta.bad_sizes == 0 && ta.bad_new == 0,
                      "allocation %lu refused: %zu bytes in %zu blocks left", n, ta.live_bytes, ta.live_blocks);
    }
    ck_assert_msg(done, "never succeeded");
    ck_assert_uint_ge(failures, 2);    /* at least one in each call */
}

START_TEST(test_nomem_once)
{
    nomem_loop(false);
}
END_TEST

START_TEST(test_nomem_from_n)
{
    nomem_loop(true);
}
END_TEST

static Suite *metadata_suite(void)
{
    Suite *s = suite_create("metadata");
    TCase *t = tcase_create("row groups");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, test_row_group_fields);
    tcase_add_test(t, test_row_group_uncompressed);
    tcase_add_test(t, test_nested_paths);
    tcase_add_test(t, test_row_groups_appended);
    suite_add_tcase(s, t);

    t = tcase_create("encodings");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, test_encodings_required);
    tcase_add_test(t, test_encodings_dictionary);
    tcase_add_test(t, test_encodings_dictionary_only);
    tcase_add_test(t, test_encodings_rle_values);
    tcase_add_test(t, test_encodings_nested_levels);
    tcase_add_test(t, test_encoding_stats_v2);
    suite_add_tcase(s, t);

    t = tcase_create("statistics");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, test_statistics_off);
    tcase_add_test(t, test_statistics_null_count_only);
    tcase_add_test(t, test_statistics_bounds);
    tcase_add_test(t, test_statistics_empty_min);
    tcase_add_test(t, test_statistics_per_chunk);
    suite_add_tcase(s, t);

    t = tcase_create("schema");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, test_schema_elements);
    tcase_add_test(t, test_schema_leaf_paths);
    suite_add_tcase(s, t);

    t = tcase_create("file");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, test_file_fields);
    tcase_add_test(t, test_created_by);
    tcase_add_test(t, test_key_value);
    tcase_add_test(t, test_no_row_groups);
    suite_add_tcase(s, t);

    t = tcase_create("allocation");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, test_nomem_once);
    tcase_add_test(t, test_nomem_from_n);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(metadata_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
