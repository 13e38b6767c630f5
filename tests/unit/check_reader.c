/*
 * check_reader.c — the reader (runtime/read/) against the writer: files
 * written here are read back value for value, and re-written from what
 * was read they come out byte for byte the same file (the writer is
 * deterministic, so any value, level, null or type the reader got wrong
 * shows as a difference). Then the reader's own concerns: projection and
 * row-group selection, batch sizes, memory and stream inputs, allocation
 * failure at every point, and damaged files (every truncation, bit flips)
 * that must fail with INLAY_ERR_FORMAT and never crash.
 */
#define _POSIX_C_SOURCE 200809L
#include "unit.h"

#include <math.h>
#include <unistd.h>

static test_alloc g_ta;

/* ---- files to read ---------------------------------------------------- */

typedef struct spec {
    inlay_compression codec;
    int page_version;
    inlay_encoding_choice enc;
    size_t rows;
    size_t row_group_rows;
    size_t page_rows;
} spec;

enum { F_I8, F_U16, F_I32, F_U32, F_I64, F_U64, F_F32, F_F64, F_BOOL, F_STR, F_BIN, F_FIX, F_UUID, F_F16, F_DATE,
       F_TIME_MS, F_TIME_US, F_TS_NS, F_DEC32, F_DEC64, F_DECFIX, F_REQ_I64, F_NFLAT };

static bool encodable(int f, inlay_encoding_choice e)
{
    switch (e) {
    case INLAY_ENCODING_RLE: return f == F_BOOL;
    case INLAY_ENCODING_DELTA:
        return f != F_BOOL && f != F_F32 && f != F_F64 && f != F_F16 && f != F_UUID && f != F_DECFIX && f != F_FIX;
    case INLAY_ENCODING_DELTA_BYTE_ARRAY: return f == F_STR || f == F_BIN || f == F_FIX || f == F_UUID || f == F_DECFIX;
    case INLAY_ENCODING_BYTE_STREAM_SPLIT:
        return f != F_BOOL && f != F_STR && f != F_BIN;
    default: return f != F_BOOL || e != INLAY_ENCODING_DICTIONARY;
    }
}

static inlay_type flat_type(int f)
{
    switch (f) {
    case F_I8: return inlay_type_int(8, true);
    case F_U16: return inlay_type_int(16, false);
    case F_I32: return inlay_type_int(32, true);
    case F_U32: return inlay_type_int(32, false);
    case F_I64: case F_REQ_I64: return inlay_type_int(64, true);
    case F_U64: return inlay_type_int(64, false);
    case F_F32: return inlay_type_float();
    case F_F64: return inlay_type_double();
    case F_BOOL: return inlay_type_boolean();
    case F_STR: return inlay_type_string();
    case F_BIN: return inlay_type_binary();
    case F_FIX: return inlay_type_fixed(5);
    case F_UUID: return inlay_type_uuid();
    case F_F16: return inlay_type_float16();
    case F_DATE: return inlay_type_date();
    case F_TIME_MS: return inlay_type_time(INLAY_MILLIS, false);
    case F_TIME_US: return inlay_type_time(INLAY_MICROS, true);
    case F_TS_NS: return inlay_type_timestamp(INLAY_NANOS, true);
    case F_DEC32: return inlay_type_decimal(9, 2, INLAY_INT32, 0);
    case F_DEC64: return inlay_type_decimal(18, 4, INLAY_INT64, 0);
    default: return inlay_type_decimal(30, 5, INLAY_FIXED_LEN_BYTE_ARRAY, 0);
    }
}

/* A schema of every flat type (optional but the last) and nested fields:
 *   tags: optional list<optional string>
 *   hits: required list<required struct { x: int32, label: optional string }>
 *   attrs: optional map<string, optional list<int64>>
 *   pos: optional struct { lat: double, lon: optional double } */
static inlay_schema *make_schema(inlay_encoding_choice enc)
{
    inlay_schema *s = inlay_schema_create(NULL);
    for (int f = 0; f < F_NFLAT; f++) {
        char name[16];
        snprintf(name, sizeof name, "c%02d", f);
        inlay_column_options o;
        inlay_column_options_init(&o);
        o.encoding = encodable(f, enc) ? enc : INLAY_ENCODING_AUTO;
        ck_assert_int_gt(inlay_schema_add(s, 0, name, f == F_REQ_I64 ? INLAY_REQUIRED : INLAY_OPTIONAL, flat_type(f), &o), 0);
    }
    int tags = inlay_schema_add_list(s, 0, "tags", INLAY_OPTIONAL);
    ck_assert_int_gt(inlay_schema_add(s, tags, "element", INLAY_OPTIONAL, inlay_type_string(), NULL), 0);
    int hits = inlay_schema_add_list(s, 0, "hits", INLAY_REQUIRED);
    int hit = inlay_schema_add_group(s, hits, "element", INLAY_REQUIRED);
    ck_assert_int_gt(inlay_schema_add(s, hit, "x", INLAY_REQUIRED, inlay_type_int(32, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, hit, "label", INLAY_OPTIONAL, inlay_type_string(), NULL), 0);
    int attrs = inlay_schema_add_map(s, 0, "attrs", INLAY_OPTIONAL);
    ck_assert_int_gt(inlay_schema_add(s, attrs, "key", INLAY_REQUIRED, inlay_type_string(), NULL), 0);
    int vals = inlay_schema_add_list(s, attrs, "value", INLAY_OPTIONAL);
    ck_assert_int_gt(inlay_schema_add(s, vals, "element", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    int pos = inlay_schema_add_group(s, 0, "pos", INLAY_OPTIONAL);
    ck_assert_int_gt(inlay_schema_add(s, pos, "lat", INLAY_REQUIRED, inlay_type_double(), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, pos, "lon", INLAY_OPTIONAL, inlay_type_double(), NULL), 0);
    return s;
}

#define NFIELDS (F_NFLAT + 4)

/* Storage for one batch of every field, Arrow-shaped. */
typedef struct batch {
    size_t n;
    uint8_t valid[NFIELDS][1 << 12];
    uint8_t vals[F_NFLAT][1 << 15][16];   /* wide enough for any slot */
    char text[1 << 20];
    size_t text_len;
    /* nested */
    int32_t tag_off[(1 << 15) + 1];
    inlay_bytes tag_vals[1 << 16];
    uint8_t tag_valid[1 << 13];
    int32_t hit_off[(1 << 15) + 1];
    int32_t hit_x[1 << 16];
    inlay_bytes hit_label[1 << 16];
    uint8_t hit_label_valid[1 << 13];
    int32_t attr_off[(1 << 15) + 1];
    inlay_bytes attr_key[1 << 16];
    int32_t attr_val_off[(1 << 16) + 1];
    uint8_t attr_val_valid[1 << 13];
    int64_t attr_elems[1 << 17];
    double lat[1 << 15], lon[1 << 15];
    uint8_t lon_valid[1 << 12];
    inlay_array arrays[NFIELDS];
    inlay_array kids[16];
} batch;

static const char *intern(batch *b, const char *fmt, uint64_t v)
{
    char *p = b->text + b->text_len;
    int k = snprintf(p, 64, fmt, (unsigned long long)v);
    b->text_len += (size_t)k + 1;
    return p;
}

static void set_bit(uint8_t *bits, size_t i, bool on)
{
    if (on) bits[i >> 3] |= (uint8_t)(1u << (i & 7));
    else bits[i >> 3] &= (uint8_t)~(1u << (i & 7));
}

/* Fill b with n rows from the generator: nulls about one in five. */
static void fill_batch(batch *b, size_t n, uint64_t *seed)
{
    memset(b->valid, 0, sizeof b->valid);
    b->n = n;
    b->text_len = 0;
    for (int f = 0; f < F_NFLAT; f++) {
        const inlay_type t = flat_type(f);
        for (size_t i = 0; i < n; i++) {
            uint64_t r = rng_next(seed);
            bool present = f == F_REQ_I64 || r % 5 != 0;
            set_bit(b->valid[f], i, present);
            uint8_t *slot = b->vals[f][i];
            memset(slot, 0, 16);
            if (!present) continue;
            uint64_t v = rng_next(seed);
            uint64_t small = v % 97;   /* repeats, so dictionaries pay */
            switch (f) {
            case F_I8: *(int32_t *)slot = (int8_t)v; break;
            case F_U16: *(int32_t *)slot = (int32_t)(uint16_t)v; break;
            case F_I32: case F_DATE: *(int32_t *)slot = (int32_t)(small * 1000 - 40000); break;
            case F_U32: *(int32_t *)slot = (int32_t)(uint32_t)v; break;
            case F_TIME_MS: *(int32_t *)slot = (int32_t)(v % 86400000u); break;
            case F_DEC32: *(int32_t *)slot = (int32_t)(v % 999999999u) - 499999999; break;
            case F_I64: case F_U64: case F_REQ_I64: *(int64_t *)slot = (int64_t)(f == F_REQ_I64 ? i * 3 : v); break;
            case F_TIME_US: *(int64_t *)slot = (int64_t)(v % 86400000000ull); break;
            case F_TS_NS: *(int64_t *)slot = (int64_t)(v >> 2); break;
            case F_DEC64: *(int64_t *)slot = (int64_t)(v % 999999999999999999ull) - 99999999999; break;
            case F_F32: *(float *)slot = (float)((double)(int64_t)v / 1e12); break;
            case F_F64: *(double *)slot = small == 3 ? NAN : (double)(int64_t)v / 1e6; break;
            case F_BOOL: *(bool *)slot = v & 1; break;
            case F_STR: case F_BIN: {
                const char *s = intern(b, small % 2 ? "value-%llu" : "\xc3\xa9t\xc3\xa9-%llu", small);
                *(inlay_bytes *)slot = (inlay_bytes){ s, strlen(s) };
                break;
            }
            case F_FIX: case F_UUID: case F_F16: case F_DECFIX: {
                size_t w = t.type_length;
                char *p = b->text + b->text_len;
                for (size_t k = 0; k < w; k++) p[k] = (char)(rng_next(seed) >> 56);
                if (f == F_F16) p[1] &= 0x7b;                      /* no NaN payloads */
                if (f == F_DECFIX) p[0] = (char)(small % 2 ? 0 : 0xff), p[1] = 0;  /* within 30 digits */
                b->text_len += w;
                *(inlay_bytes *)slot = (inlay_bytes){ p, w };
                break;
            }
            }
        }
        b->arrays[f] = (inlay_array){ .length = n, .validity = f == F_REQ_I64 ? NULL : b->valid[f], .values = b->vals[f] };
        /* values are 16-byte slots above; compact them to the column's width */
        size_t w = inlay_type_value_size(&t);
        uint8_t *dst = (uint8_t *)b->vals[f];
        for (size_t i = 0; i < n; i++) memmove(dst + i * w, b->vals[f][i], w);
    }
    /* tags: optional list<optional string> */
    size_t te = 0, he = 0, ae = 0, ve = 0;
    int fi = F_NFLAT;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng_next(seed);
        b->tag_off[i] = (int32_t)te;
        set_bit(b->valid[fi], i, r % 7 != 0);
        if (r % 7 != 0)
            for (uint64_t k = r % 4; k-- > 0; te++) {
                uint64_t v = rng_next(seed);
                set_bit(b->tag_valid, te, v % 6 != 0);
                const char *s = intern(b, "t%llu", v % 13);
                b->tag_vals[te] = v % 6 ? (inlay_bytes){ s, strlen(s) } : (inlay_bytes){ NULL, 0 };
            }
        b->hit_off[i] = (int32_t)he;
        for (uint64_t k = (r >> 8) % 3; k-- > 0; he++) {
            uint64_t v = rng_next(seed);
            b->hit_x[he] = (int32_t)v;
            set_bit(b->hit_label_valid, he, v % 3 != 0);
            const char *s = intern(b, "L%llu", v % 5);
            b->hit_label[he] = (inlay_bytes){ s, strlen(s) };
        }
        b->attr_off[i] = (int32_t)ae;
        set_bit(b->valid[fi + 2], i, (r >> 16) % 9 != 0);
        if ((r >> 16) % 9 != 0)
            for (uint64_t k = (r >> 20) % 3; k-- > 0; ae++) {
                uint64_t v = rng_next(seed);
                const char *s = intern(b, "k%llu", k);
                b->attr_key[ae] = (inlay_bytes){ s, strlen(s) };
                b->attr_val_off[ae] = (int32_t)ve;
                set_bit(b->attr_val_valid, ae, v % 4 != 0);
                if (v % 4 != 0)
                    for (uint64_t m = v % 3; m-- > 0; ve++) b->attr_elems[ve] = (int64_t)rng_next(seed);
            }
        set_bit(b->valid[fi + 3], i, (r >> 24) % 5 != 0);
        b->lat[i] = (double)(r >> 40) / 1e3;
        b->lon[i] = -(double)(r >> 44) / 1e3;
        set_bit(b->lon_valid, i, (r >> 28) % 4 != 0);
    }
    b->tag_off[n] = (int32_t)te;
    b->hit_off[n] = (int32_t)he;
    b->attr_off[n] = (int32_t)ae;
    b->attr_val_off[ae] = (int32_t)ve;
    inlay_array *k = b->kids;
    k[0] = (inlay_array){ .length = te, .validity = b->tag_valid, .values = b->tag_vals };
    b->arrays[fi] = (inlay_array){ .length = n, .validity = b->valid[fi], .offsets = b->tag_off, .children = &k[0] };
    k[1] = (inlay_array){ .length = he, .values = b->hit_x };
    k[2] = (inlay_array){ .length = he, .validity = b->hit_label_valid, .values = b->hit_label };
    k[3] = (inlay_array){ .length = he, .children = &k[1] };
    b->arrays[fi + 1] = (inlay_array){ .length = n, .offsets = b->hit_off, .children = &k[3] };
    k[4] = (inlay_array){ .length = ae, .values = b->attr_key };
    k[6] = (inlay_array){ .length = ve, .values = b->attr_elems };
    k[5] = (inlay_array){ .length = ae, .validity = b->attr_val_valid, .offsets = b->attr_val_off, .children = &k[6] };
    b->arrays[fi + 2] = (inlay_array){ .length = n, .validity = b->valid[fi + 2], .offsets = b->attr_off, .children = &k[4] };
    k[7] = (inlay_array){ .length = n, .values = b->lat };
    k[8] = (inlay_array){ .length = n, .validity = b->lon_valid, .values = b->lon };
    b->arrays[fi + 3] = (inlay_array){ .length = n, .validity = b->valid[fi + 3], .children = &k[7] };
}

static void write_options(inlay_options *o, const spec *sp)
{
    inlay_options_init(o);
    o->compression = sp->codec;
    o->page_version = sp->page_version;
    if (sp->row_group_rows) o->row_group_rows = sp->row_group_rows;
    if (sp->page_rows) o->page_rows = sp->page_rows;
    static const inlay_kv kv[] = { { "origin", "check_reader" }, { "empty", "" } };
    o->metadata = kv;
    o->metadata_count = 2;
}

/* Write sp->rows generated rows in batches of 1000. */
static void write_file(inlay_buffer *out, const spec *sp, uint64_t seed)
{
    static batch b;
    inlay_schema *s = make_schema(sp->enc);
    inlay_options o;
    write_options(&o, sp);
    inlay_buffer_init(out, NULL);
    inlay_writer *w;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(out), s, &o), INLAY_OK);
    for (size_t done = 0; done < sp->rows;) {
        size_t n = sp->rows - done < 1000 ? sp->rows - done : 1000;
        fill_batch(&b, n, &seed);
        for (int f = 0; f < NFIELDS; f++)
            ck_assert_msg(inlay_writer_append_array(w, f, &b.arrays[f], n) == INLAY_OK, "field %d: %s", f,
                          inlay_writer_errmsg(w));
        done += n;
    }
    ck_assert_msg(inlay_writer_close(w) == INLAY_OK, "%s", inlay_writer_errmsg(w));
    inlay_writer_free(w);
    inlay_schema_free(s);
}

/* Read `in` whole (batches of batch_rows) into a new writer with the
 * reader's schema and the same options. */
static void rewrite(const inlay_buffer *in, const spec *sp, size_t batch_rows, inlay_buffer *out)
{
    inlay_read_options ro;
    inlay_read_options_init(&ro);
    ro.alloc = test_allocator(&g_ta);
    ro.batch_rows = batch_rows;
    inlay_reader *r;
    ck_assert_msg(inlay_reader_open_memory(&r, in->data, in->len, &ro) == INLAY_OK, "%s", inlay_reader_errmsg(r));
    const inlay_file_info *fi = inlay_reader_info(r);
    ck_assert_int_eq(fi->num_rows, (int64_t)sp->rows);
    ck_assert_int_eq(fi->metadata_count, 2);
    ck_assert_str_eq(fi->metadata[0].key, "origin");
    ck_assert_str_eq(fi->metadata[0].value, "check_reader");
    ck_assert_str_eq(fi->metadata[1].value, "");
    /* the file's schema is the one written (column encodings are not in
     * a file: write with the original schema to get the same bytes) */
    inlay_schema *orig = make_schema(sp->enc);
    char want[8192], got[8192];
    inlay_schema_format(orig, want, sizeof want);
    inlay_schema_format(inlay_reader_schema(r), got, sizeof got);
    ck_assert_str_eq(got, want);
    inlay_options o;
    write_options(&o, sp);
    inlay_buffer_init(out, NULL);
    inlay_writer *w;
    ck_assert_msg(inlay_writer_open(&w, inlay_buffer_sink(out), sp->enc ? orig : inlay_reader_schema(r), &o) == INLAY_OK,
                  "%s", inlay_writer_errmsg(w));
    inlay_schema_free(orig);
    size_t rows, total = 0;
    int nf = inlay_schema_node(inlay_reader_schema(r), 0, &(inlay_node_info){ 0 }) == INLAY_OK ? NFIELDS : 0;
    for (;;) {
        ck_assert_msg(inlay_reader_next(r, 0, &rows) == INLAY_OK, "%s", inlay_reader_errmsg(r));
        if (!rows) break;
        ck_assert_uint_le(rows, batch_rows);
        ck_assert_uint_eq(inlay_reader_batch_first_row(r), total);
        for (int f = 0; f < nf; f++)
            ck_assert_msg(inlay_writer_append_array(w, f, inlay_reader_array(r, f), rows) == INLAY_OK, "field %d: %s", f,
                          inlay_writer_errmsg(w));
        total += rows;
    }
    ck_assert_uint_eq(total, sp->rows);
    ck_assert_msg(inlay_writer_close(w) == INLAY_OK, "%s", inlay_writer_errmsg(w));
    inlay_writer_free(w);
    inlay_reader_free(r);
    ck_assert_no_leak(&g_ta);
}

static void check_same_file(const spec *sp, size_t batch_rows, uint64_t seed)
{
    inlay_buffer a, b;
    write_file(&a, sp, seed);
    rewrite(&a, sp, batch_rows, &b);
    ck_assert_msg(a.len == b.len && memcmp(a.data, b.data, a.len) == 0,
                  "the rewritten file differs (%zu vs %zu bytes; codec %d, v%d, encoding %d)", a.len, b.len, sp->codec,
                  sp->page_version, sp->enc);
    inlay_buffer_free(&a);
    inlay_buffer_free(&b);
}

static const inlay_encoding_choice encodings[] = { INLAY_ENCODING_AUTO, INLAY_ENCODING_PLAIN, INLAY_ENCODING_DICTIONARY,
                                                   INLAY_ENCODING_DELTA, INLAY_ENCODING_DELTA_BYTE_ARRAY,
                                                   INLAY_ENCODING_BYTE_STREAM_SPLIT, INLAY_ENCODING_RLE };

/* _i: encoding index; each runs v1 and v2, zstd and uncompressed. */
START_TEST(test_rewrite_identical)
{
    for (int v = 1; v <= 2; v++)
        for (int z = 0; z < 2; z++) {
            spec sp = { z ? INLAY_ZSTD : INLAY_UNCOMPRESSED, v, encodings[_i], 2500, 1200, 700 };
            check_same_file(&sp, 1000, 42 + (uint64_t)_i);
        }
}
END_TEST

/* Batches that do not line up with pages, row groups or the writer's
 * batches: 1 row, 7 rows, 4096. */
START_TEST(test_batch_sizes)
{
    static const size_t sizes[] = { 1, 7, 4096 };
    spec sp = { INLAY_ZSTD, 1, INLAY_ENCODING_AUTO, 3000, 2000, 300 };
    check_same_file(&sp, sizes[_i], 7);
}
END_TEST

/* One field, one row group: what select picks is what comes out. */
START_TEST(test_select)
{
    spec sp = { INLAY_ZSTD, 2, INLAY_ENCODING_AUTO, 2500, 1000, 0 };
    inlay_buffer a;
    write_file(&a, &sp, 5);
    inlay_reader *r;
    ck_assert_int_eq(inlay_reader_open_memory(&r, a.data, a.len, NULL), INLAY_OK);
    const inlay_file_info *fi = inlay_reader_info(r);
    ck_assert_int_eq(fi->num_row_groups, 3);
    ck_assert_int_eq(fi->num_columns, F_NFLAT + 1 + 2 + 2 + 2);
    int field = inlay_reader_field(r, "c21");
    ck_assert_int_eq(field, F_REQ_I64);
    ck_assert_int_eq(inlay_reader_field(r, "nosuch"), -1);
    const int groups[] = { 2, 0 };
    ck_assert_int_eq(inlay_reader_select(r, &field, 1, groups, 2), INLAY_OK);
    size_t rows;
    ck_assert_int_eq(inlay_reader_next(r, 100000, &rows), INLAY_OK);
    ck_assert_uint_eq(rows, 500);
    ck_assert_int_eq(inlay_reader_batch_row_group(r), 2);
    ck_assert_uint_eq(inlay_reader_batch_first_row(r), 2000);
    const inlay_array *x = inlay_reader_array(r, 0);
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_null(inlay_reader_array(r, 1));
    for (size_t i = 0; i < rows; i++) ck_assert_int_eq(((const int64_t *)x->values)[i], (int64_t)i * 3);
    ck_assert_int_eq(inlay_reader_next(r, 100000, &rows), INLAY_OK);
    ck_assert_uint_eq(rows, 1000);
    ck_assert_int_eq(inlay_reader_batch_row_group(r), 0);
    ck_assert_int_eq(((const int64_t *)inlay_reader_array(r, 0)->values)[999], 999 * 3);
    ck_assert_int_eq(inlay_reader_next(r, 0, &rows), INLAY_OK);
    ck_assert_uint_eq(rows, 0);
    /* bad selections change nothing */
    const int bad_field = NFIELDS, twice[] = { 1, 1 }, bad_group = 3;
    ck_assert_int_eq(inlay_reader_select(r, &bad_field, 1, NULL, 0), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inlay_reader_select(r, twice, 2, NULL, 0), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inlay_reader_select(r, NULL, 0, &bad_group, 1), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inlay_reader_select(r, NULL, 0, NULL, 0), INLAY_OK);
    ck_assert_int_eq(inlay_reader_next(r, 10, &rows), INLAY_OK);
    ck_assert_uint_eq(rows, 10);
    inlay_reader_free(r);
    inlay_buffer_free(&a);
}
END_TEST

/* ---- inputs --------------------------------------------------------------- */

typedef struct mem_stream { const uint8_t *p; size_t len, pos; int closes; } mem_stream;

static int64_t ms_read(void *ctx, void *dst, size_t len)
{
    mem_stream *m = ctx;
    size_t n = m->len - m->pos < len ? m->len - m->pos : len;
    if (n > 100) n = 100;   /* short reads, as pipes and sockets give */
    memcpy(dst, m->p + m->pos, n);
    m->pos += n;
    return (int64_t)n;
}

static int64_t ms_seek(void *ctx, int64_t off, int whence)
{
    mem_stream *m = ctx;
    int64_t to = whence == SEEK_END ? (int64_t)m->len + off : off;
    if (to < 0 || to > (int64_t)m->len) return -1;
    m->pos = (size_t)to;
    return to;
}

static void ms_close(void *ctx) { ((mem_stream *)ctx)->closes++; }

START_TEST(test_stream_and_file)
{
    spec sp = { INLAY_ZSTD, 1, INLAY_ENCODING_AUTO, 1500, 0, 0 };
    inlay_buffer a;
    write_file(&a, &sp, 9);
    mem_stream m = { a.data, a.len, 0, 0 };
    inlay_reader *r;
    ck_assert_int_eq(inlay_reader_open_stream(&r, (inlay_read_stream){ ms_read, ms_seek, ms_close, &m }, NULL), INLAY_OK);
    size_t rows, total = 0;
    while (inlay_reader_next(r, 0, &rows) == INLAY_OK && rows) total += rows;
    ck_assert_uint_eq(total, 1500);
    inlay_reader_free(r);
    ck_assert_int_eq(m.closes, 1);

    char path[] = "/tmp/check_reader_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, a.data, a.len), (ssize_t)a.len);
    close(fd);
    ck_assert_int_eq(inlay_reader_open_file(&r, path, NULL), INLAY_OK);
    ck_assert_int_eq(inlay_reader_info(r)->num_rows, 1500);
    ck_assert_str_eq(inlay_reader_info(r)->created_by, "inlay version " INLAY_VERSION_STRING);
    inlay_reader_free(r);
    unlink(path);

    ck_assert_int_eq(inlay_reader_open_file(&r, "/nonexistent/x.parquet", NULL), INLAY_ERR_IO);
    ck_assert_ptr_nonnull(strstr(inlay_reader_errmsg(r), "No such file"));
    inlay_reader_free(r);
    ck_assert_int_eq(inlay_reader_open_file(&r, "/tmp", NULL), INLAY_ERR_IO);
    inlay_reader_free(r);
    ck_assert_int_eq(inlay_reader_open_memory(&r, "PAR1", 4, NULL), INLAY_ERR_FORMAT);
    inlay_reader_free(r);
    ck_assert_int_eq(inlay_reader_open_memory(&r, "a,b\n1,2\n3,4\nxxxxxxxx", 20, NULL), INLAY_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(inlay_reader_errmsg(r), "not a Parquet file"));
    inlay_reader_free(r);
    inlay_buffer_free(&a);
}
END_TEST

/* ---- failure ---------------------------------------------------------------- */

/* Read a whole file; returns the first failure's status. */
static int read_all(const uint8_t *p, size_t len, const inlay_allocator *alloc, char *msg, size_t cap)
{
    inlay_read_options ro;
    inlay_read_options_init(&ro);
    if (alloc) ro.alloc = *alloc;
    ro.batch_rows = 333;
    inlay_reader *r;
    int rc = inlay_reader_open_memory(&r, p, len, &ro);
    size_t rows;
    while (rc == INLAY_OK && (rc = inlay_reader_next(r, 0, &rows)) == INLAY_OK && rows) {
        /* touch every value the arrays say exist */
        for (int f = 0; f < NFIELDS && inlay_reader_array(r, f); f++) {
            const inlay_array *x = inlay_reader_array(r, f);
            ck_assert_uint_eq(x->length, rows);
        }
    }
    if (msg) snprintf(msg, cap, "%s", r ? inlay_reader_errmsg(r) : "");
    if (rc) ck_assert_str_ne(inlay_reader_errmsg(r), "");
    inlay_reader_free(r);
    return rc;
}

START_TEST(test_allocation_failure)
{
    spec sp = { INLAY_ZSTD, _i + 1, INLAY_ENCODING_AUTO, 1200, 500, 300 };
    inlay_buffer a;
    write_file(&a, &sp, 11);
    test_alloc ta = { 0 };
    inlay_allocator al = test_allocator(&ta);
    ck_assert_int_eq(read_all(a.data, a.len, &al, NULL, 0), INLAY_OK);
    ck_assert_no_leak(&ta);
    const unsigned long needed = ta.requests;
    for (unsigned long k = 1; k <= needed; k++) {
        ta = (test_alloc){ .fail_at = k };
        int rc = read_all(a.data, a.len, &al, NULL, 0);
        ck_assert_msg(rc == INLAY_ERR_NOMEM, "request %lu of %lu refused: status %d", k, needed, rc);
        ck_assert_no_leak(&ta);
    }
    inlay_buffer_free(&a);
}
END_TEST

/* Every truncation, and bit flips all over the file: an error with a
 * message, or (for a flip in a value) a file that reads; never a crash,
 * never a leak. */
START_TEST(test_damaged_files)
{
    spec sp = { _i ? INLAY_UNCOMPRESSED : INLAY_ZSTD, _i + 1, INLAY_ENCODING_AUTO, 300, 150, 60 };
    inlay_buffer a;
    write_file(&a, &sp, 13);
    test_alloc ta = { 0 };
    inlay_allocator al = test_allocator(&ta);
    char msg[600];
    for (size_t len = 0; len < a.len; len++) {
        int rc = read_all(a.data, len, &al, msg, sizeof msg);
        ck_assert_msg(rc == INLAY_ERR_FORMAT, "cut at %zu of %zu: status %d (%s)", len, a.len, rc, msg);
    }
    ck_assert_no_leak(&ta);
    uint8_t *copy = malloc(a.len);
    uint64_t seed = 99;
    int failures = 0;
    for (int k = 0; k < 3000; k++) {
        memcpy(copy, a.data, a.len);
        for (int flips = 1 + (int)(rng_next(&seed) % 3); flips-- > 0;) {
            uint64_t bit = rng_next(&seed) % (a.len * 8);
            copy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        int rc = read_all(copy, a.len, &al, msg, sizeof msg);
        ck_assert_msg(rc == INLAY_OK || rc == INLAY_ERR_FORMAT, "flip %d: status %d (%s)", k, rc, msg);
        failures += rc != INLAY_OK;
        ck_assert_no_leak(&ta);
    }
    ck_assert_int_gt(failures, 100);
    free(copy);
    inlay_buffer_free(&a);
}
END_TEST

static Suite *reader_suite(void)
{
    Suite *s = suite_create("reader");
    TCase *t = tcase_create("round trip");
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, test_rewrite_identical, 0, (int)(sizeof encodings / sizeof encodings[0]));
    tcase_add_loop_test(t, test_batch_sizes, 0, 3);
    tcase_add_test(t, test_select);
    tcase_add_test(t, test_stream_and_file);
    suite_add_tcase(s, t);
    TCase *f = tcase_create("failure");
    tcase_set_timeout(f, 600);
    tcase_add_loop_test(f, test_allocation_failure, 0, 2);
    tcase_add_loop_test(f, test_damaged_files, 0, 2);
    suite_add_tcase(s, f);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(reader_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
