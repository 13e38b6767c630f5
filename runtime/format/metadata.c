/*
 * metadata.c — RowGroup / ColumnChunk / FileMetaData in thrift compact
 * form (field ids from parquet.thrift).
 */
#include "metadata.h"

#include "thrift.h"

/* ConvertedType values, for readers that predate LogicalType. */
enum { CT_UTF8 = 0, CT_MAP = 1, CT_LIST = 3, CT_ENUM = 4, CT_DECIMAL = 5, CT_DATE = 6,
       CT_TIME_MILLIS = 7, CT_TIME_MICROS = 8, CT_TIMESTAMP_MILLIS = 9, CT_TIMESTAMP_MICROS = 10,
       CT_UINT_8 = 11, CT_INT_8 = 15, CT_JSON = 19 };

static void put_encoding_stats(tc *t, int page_type, int encoding, int count)
{
    inl_tc_list_struct(t);
    inl_tc_field_i32(t, 1, page_type);
    inl_tc_field_i32(t, 2, encoding);
    inl_tc_field_i32(t, 3, count);
    inl_tc_struct_end(t);
}

static void put_i64_list(tc *t, int16_t id, const int64_t *v, size_t n)
{
    inl_tc_field_list(t, id, TC_I64, (uint32_t)n);
    for (size_t i = 0; i < n; i++) inl_tc_list_i64(t, v[i]);
}

static void put_column_chunk(tc *t, const chunk_meta *k, int page_type, size_t *pos)
{
    const uint64_t start = k->start;
    const bool has_dict = k->dict_bytes > 0;
    const bool has_levels = k->leaf->max_def > 0 || k->leaf->max_rep > 0;
    inl_tc_list_struct(t);
    inl_tc_field_i64(t, 2, (int64_t)start);
    inl_tc_field_struct(t, 3);                                   /* ColumnMetaData */
    inl_tc_field_i32(t, 1, k->physical);
    int enc[ENC_COUNT + 2], n = 0;
    bool plain = has_dict || k->page_counts[ENC_PLAIN], rle = has_levels || k->page_counts[ENC_RLE];
    if (plain) enc[n++] = ENC_PLAIN;
    if (rle) enc[n++] = ENC_RLE;
    for (int e = 0; e < ENC_COUNT; e++)
        if (k->page_counts[e] && e != ENC_PLAIN && e != ENC_RLE) enc[n++] = e;
    inl_tc_field_list(t, 2, TC_I32, (uint32_t)n);
    for (int i = 0; i < n; i++) inl_tc_list_i32(t, enc[i]);
    inl_tc_field_list(t, 3, TC_BINARY, (uint32_t)k->leaf->depth);
    for (int i = 0; i < k->leaf->depth; i++)
        inl_tc_list_binary(t, k->leaf->parts[i], strlen(k->leaf->parts[i]));
    inl_tc_field_i32(t, 4, k->codec);
    inl_tc_field_i64(t, 5, (int64_t)k->num_values);
    inl_tc_field_i64(t, 6, (int64_t)k->raw_size);
    inl_tc_field_i64(t, 7, (int64_t)k->stored_size);
    inl_tc_field_i64(t, 9, (int64_t)(start + k->dict_bytes));
    if (has_dict) inl_tc_field_i64(t, 11, (int64_t)start);
    if (k->statistics) inl_put_statistics(t, 12, &k->st);
    int nstats = has_dict;
    for (int e = 0; e < ENC_COUNT; e++) nstats += k->page_counts[e] > 0;
    inl_tc_field_list(t, 13, TC_STRUCT, (uint32_t)nstats);
    if (has_dict) put_encoding_stats(t, PAGE_DICTIONARY, ENC_PLAIN, 1);
    for (int e = 0; e < ENC_COUNT; e++)
        if (k->page_counts[e]) put_encoding_stats(t, page_type, e, k->page_counts[e]);
    if (k->bloom_offset >= 0) {
        inl_tc_field_i64(t, 14, k->bloom_offset);
        inl_tc_field_i32(t, 15, k->bloom_length);
    }
    if (k->statistics) {
        inl_tc_field_struct(t, 16);                              /* SizeStatistics */
        if (k->unencoded_bytes >= 0) inl_tc_field_i64(t, 1, k->unencoded_bytes);
        if (k->rep_hist) put_i64_list(t, 2, k->rep_hist, (size_t)k->leaf->max_rep + 1);
        if (k->def_hist) put_i64_list(t, 3, k->def_hist, (size_t)k->leaf->max_def + 1);
        inl_tc_struct_end(t);
    }
    inl_tc_struct_end(t);                                        /* ColumnMetaData */
    if (pos) *pos = t->out->len;                                 /* fields 4-7 go here */
    inl_tc_struct_end(t);                                        /* ColumnChunk */
}

int inl_meta_row_group(buf *out, const inlay_allocator *a, const chunk_meta *chunks, int ncols,
                   uint64_t num_rows, int ordinal, int page_type,
                   const sorting_column *sorting, int nsorting, size_t *pos)
{
    tc t;
    inl_tc_init(&t, out, a);
    inl_tc_list_struct(&t);
    inl_tc_field_list(&t, 1, TC_STRUCT, (uint32_t)ncols);
    uint64_t raw = 0, stored = 0;
    for (int i = 0; i < ncols; i++) {
        put_column_chunk(&t, &chunks[i], page_type, pos ? &pos[i] : NULL);
        raw += chunks[i].raw_size;
        stored += chunks[i].stored_size;
    }
    inl_tc_field_i64(&t, 2, (int64_t)raw);
    inl_tc_field_i64(&t, 3, (int64_t)num_rows);
    if (nsorting > 0) {
        inl_tc_field_list(&t, 4, TC_STRUCT, (uint32_t)nsorting);
        for (int i = 0; i < nsorting; i++) {
            inl_tc_list_struct(&t);
            inl_tc_field_i32(&t, 1, sorting[i].leaf);
            inl_tc_field_bool(&t, 2, sorting[i].descending);
            inl_tc_field_bool(&t, 3, sorting[i].nulls_first);
            inl_tc_struct_end(&t);
        }
    }
    inl_tc_field_i64(&t, 5, (int64_t)chunks[0].start);
    inl_tc_field_i64(&t, 6, (int64_t)stored);
    inl_tc_field_i16(&t, 7, (int16_t)ordinal);
    inl_tc_struct_end(&t);
    return t.err ? INLAY_ERR_NOMEM : 0;
}

static void put_time_unit(tc *t, inlay_time_unit u)
{
    inl_tc_field_struct(t, 2);                 /* TimeUnit union */
    inl_tc_field_struct(t, (int16_t)(u + 1));  /* MILLIS=1, MICROS=2, NANOS=3 */
    inl_tc_struct_end(t);
    inl_tc_struct_end(t);
}

static void put_logical(tc *t, const inlay_type *ty)
{
    if (ty->logical == INLAY_LOGICAL_NONE) return;
    static const int16_t ids[] = {
        [INLAY_LOGICAL_STRING] = 1, [INLAY_LOGICAL_ENUM] = 4, [INLAY_LOGICAL_DECIMAL] = 5,
        [INLAY_LOGICAL_DATE] = 6, [INLAY_LOGICAL_TIME] = 7, [INLAY_LOGICAL_TIMESTAMP] = 8,
        [INLAY_LOGICAL_INT] = 10, [INLAY_LOGICAL_JSON] = 12, [INLAY_LOGICAL_UUID] = 14,
        [INLAY_LOGICAL_FLOAT16] = 15,
    };
    inl_tc_field_struct(t, 10);                /* LogicalType union */
    inl_tc_field_struct(t, ids[ty->logical]);
    switch (ty->logical) {
    case INLAY_LOGICAL_DECIMAL:
        inl_tc_field_i32(t, 1, ty->scale);
        inl_tc_field_i32(t, 2, ty->precision);
        break;
    case INLAY_LOGICAL_TIME: case INLAY_LOGICAL_TIMESTAMP:
        inl_tc_field_bool(t, 1, ty->utc);
        put_time_unit(t, ty->unit);
        break;
    case INLAY_LOGICAL_INT:
        inl_tc_field_byte(t, 1, (int8_t)ty->bit_width);
        inl_tc_field_bool(t, 2, ty->is_signed);
        break;
    default:
        break;
    }
    inl_tc_struct_end(t);
    inl_tc_struct_end(t);
}

/* The ConvertedType older readers understand, or -1. Time types map only
 * when UTC-adjusted: the converted types imply UTC. */
static int converted_type(const inlay_type *ty)
{
    switch (ty->logical) {
    case INLAY_LOGICAL_STRING: return CT_UTF8;
    case INLAY_LOGICAL_ENUM: return CT_ENUM;
    case INLAY_LOGICAL_JSON: return CT_JSON;
    case INLAY_LOGICAL_DECIMAL: return CT_DECIMAL;
    case INLAY_LOGICAL_DATE: return CT_DATE;
    case INLAY_LOGICAL_TIME:
        if (!ty->utc || ty->unit == INLAY_NANOS) return -1;
        return ty->unit == INLAY_MILLIS ? CT_TIME_MILLIS : CT_TIME_MICROS;
    case INLAY_LOGICAL_TIMESTAMP:
        if (!ty->utc || ty->unit == INLAY_NANOS) return -1;
        return ty->unit == INLAY_MILLIS ? CT_TIMESTAMP_MILLIS : CT_TIMESTAMP_MICROS;
    case INLAY_LOGICAL_INT: {
        int k = ty->bit_width == 8 ? 0 : ty->bit_width == 16 ? 1 : ty->bit_width == 32 ? 2 : 3;
        return (ty->is_signed ? CT_INT_8 : CT_UINT_8) + k;
    }
    default:
        return -1;
    }
}

/* LIST and MAP groups carry both annotations (LogicalTypes.md: writers
 * write the ConvertedType too). The repeated key_value group of a MAP gets
 * none: MAP_KEY_VALUE is only read, for files that used it in place of MAP. */
static void put_group_annotation(tc *t, schema_group a)
{
    inl_tc_field_i32(t, 6, a == GROUP_LIST ? CT_LIST : CT_MAP);
    inl_tc_field_struct(t, 10);                     /* LogicalType union */
    inl_tc_field_struct(t, a == GROUP_LIST ? 3 : 2);  /* LIST = 3, MAP = 2: empty structs */
    inl_tc_struct_end(t);
    inl_tc_struct_end(t);
}

static void put_schema_element(tc *t, const inlay_schema *s, int id)
{
    const schema_node *n = &s->nodes[id];
    inl_tc_list_struct(t);
    if (!n->is_group) {
        inl_tc_field_i32(t, 1, n->type.physical);
        if (n->type.physical == INLAY_FIXED_LEN_BYTE_ARRAY) inl_tc_field_i32(t, 2, n->type.type_length);
    }
    if (id != 0) inl_tc_field_i32(t, 3, n->rep);
    inl_tc_field_string(t, 4, n->name);
    if (n->is_group) {
        inl_tc_field_i32(t, 5, n->num_children);
        if (n->annotation != GROUP_PLAIN) put_group_annotation(t, n->annotation);
    } else {
        int ct = converted_type(&n->type);
        if (ct >= 0) inl_tc_field_i32(t, 6, ct);
        if (n->type.logical == INLAY_LOGICAL_DECIMAL) {
            inl_tc_field_i32(t, 7, n->type.scale);
            inl_tc_field_i32(t, 8, n->type.precision);
        }
        put_logical(t, &n->type);
    }
    inl_tc_struct_end(t);
}

int inl_meta_file(buf *out, const inlay_allocator *a, const inlay_schema *s, uint64_t num_rows,
              const buf *row_groups, uint32_t num_row_groups, const inlay_kv *kv, size_t nkv)
{
    tc t;
    inl_tc_init(&t, out, a);
    inl_tc_field_i32(&t, 1, 1);
    inl_tc_field_list(&t, 2, TC_STRUCT, (uint32_t)s->count);
    for (int i = 0; i < s->count; i++) put_schema_element(&t, s, s->preorder[i]);
    inl_tc_field_i64(&t, 3, (int64_t)num_rows);
    inl_tc_field_list(&t, 4, TC_STRUCT, num_row_groups);
    if (!t.err && inl_buf_append(out, a, row_groups->data, row_groups->len)) t.err = 1;
    if (nkv) {
        inl_tc_field_list(&t, 5, TC_STRUCT, (uint32_t)nkv);
        for (size_t i = 0; i < nkv; i++) {
            inl_tc_list_struct(&t);
            inl_tc_field_string(&t, 1, kv[i].key);
            if (kv[i].value) inl_tc_field_string(&t, 2, kv[i].value);
            inl_tc_struct_end(&t);
        }
    }
    inl_tc_field_string(&t, 6, "inlay version " INLAY_VERSION_STRING);
    inl_tc_field_list(&t, 7, TC_STRUCT, (uint32_t)s->num_leaves);
    for (int i = 0; i < s->num_leaves; i++) {
        inl_tc_list_struct(&t);
        inl_tc_field_struct(&t, 1);   /* TYPE_ORDER */
        inl_tc_struct_end(&t);
        inl_tc_struct_end(&t);
    }
    inl_tc_struct_end(&t);
    return t.err ? INLAY_ERR_NOMEM : 0;
}

/* ---- page index --------------------------------------------------------- */

int inl_meta_column_index(buf *out, const inlay_allocator *a, const page_entry *pages, size_t n,
                      const uint8_t *bounds, int boundary_order, const int64_t *hists,
                      int max_def, int max_rep)
{
    tc t;
    inl_tc_init(&t, out, a);
    inl_tc_field_list(&t, 1, TC_BOOL_TRUE, (uint32_t)n);
    for (size_t i = 0; i < n; i++) inl_tc_list_bool(&t, pages[i].null_page);
    /* an all-null page has no bounds: an empty value stands in (PageIndex.md) */
    inl_tc_field_list(&t, 2, TC_BINARY, (uint32_t)n);
    for (size_t i = 0; i < n; i++) inl_tc_list_binary(&t, bounds + pages[i].min_at, pages[i].min_len);
    inl_tc_field_list(&t, 3, TC_BINARY, (uint32_t)n);
    for (size_t i = 0; i < n; i++) inl_tc_list_binary(&t, bounds + pages[i].max_at, pages[i].max_len);
    inl_tc_field_i32(&t, 4, boundary_order);
    inl_tc_field_list(&t, 5, TC_I64, (uint32_t)n);
    for (size_t i = 0; i < n; i++) inl_tc_list_i64(&t, pages[i].null_count);
    const size_t ndef = max_def > 0 ? (size_t)max_def + 1 : 0, nrep = max_rep > 0 ? (size_t)max_rep + 1 : 0;
    if (hists && nrep) {
        inl_tc_field_list(&t, 6, TC_I64, (uint32_t)(n * nrep));
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < nrep; j++) inl_tc_list_i64(&t, hists[i * (ndef + nrep) + ndef + j]);
    }
    if (hists && ndef) {
        inl_tc_field_list(&t, 7, TC_I64, (uint32_t)(n * ndef));
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < ndef; j++) inl_tc_list_i64(&t, hists[i * (ndef + nrep) + j]);
    }
    inl_tc_struct_end(&t);
    return t.err ? INLAY_ERR_NOMEM : 0;
}

int inl_meta_offset_index(buf *out, const inlay_allocator *a, const page_entry *pages, size_t n,
                      uint64_t first_page, bool byte_array)
{
    tc t;
    inl_tc_init(&t, out, a);
    inl_tc_field_list(&t, 1, TC_STRUCT, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        inl_tc_list_struct(&t);
        inl_tc_field_i64(&t, 1, (int64_t)(first_page + pages[i].offset));
        inl_tc_field_i32(&t, 2, pages[i].size);
        inl_tc_field_i64(&t, 3, pages[i].first_row);
        inl_tc_struct_end(&t);
    }
    if (byte_array) {
        inl_tc_field_list(&t, 2, TC_I64, (uint32_t)n);
        for (size_t i = 0; i < n; i++) inl_tc_list_i64(&t, pages[i].unencoded_bytes);
    }
    inl_tc_struct_end(&t);
    return t.err ? INLAY_ERR_NOMEM : 0;
}

int inl_meta_index_refs(buf *out, const inlay_allocator *a, int64_t ci_offset, int32_t ci_length,
                    int64_t oi_offset, int32_t oi_length)
{
    tc t;
    inl_tc_init(&t, out, a);
    t.last[t.depth] = 3;   /* inside a ColumnChunk, after its field 3 (meta_data) */
    if (oi_length) {
        inl_tc_field_i64(&t, 4, oi_offset);
        inl_tc_field_i32(&t, 5, oi_length);
    }
    if (ci_length) {
        inl_tc_field_i64(&t, 6, ci_offset);
        inl_tc_field_i32(&t, 7, ci_length);
    }
    return t.err ? INLAY_ERR_NOMEM : 0;
}

int inl_meta_bloom_header(buf *out, const inlay_allocator *a, uint32_t nbytes)
{
    tc t;
    inl_tc_init(&t, out, a);
    inl_tc_field_i32(&t, 1, (int32_t)nbytes);
    for (int16_t id = 2; id <= 4; id++) {   /* algorithm BLOCK, hash XXHASH, compression UNCOMPRESSED */
        inl_tc_field_struct(&t, id);
        inl_tc_field_struct(&t, 1);
        inl_tc_struct_end(&t);
        inl_tc_struct_end(&t);
    }
    inl_tc_struct_end(&t);
    return t.err ? INLAY_ERR_NOMEM : 0;
}
