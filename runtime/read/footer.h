/*
 * footer.h — a Parquet file's FileMetaData and PageHeaders, decoded from
 * thrift compact with every field checked against the file.
 *
 * inl_rd_meta_parse turns the footer's bytes into:
 *  - the public inlay_file_info view (row groups, column chunks,
 *    statistics, key-value metadata, created_by), whose strings and arrays
 *    live in the rd_meta's own blocks;
 *  - an inlay_schema built from the schema elements (standard and legacy
 *    lists and maps, converted and logical types mapped to inlay's types;
 *    a type inlay does not have becomes its physical type);
 *  - one rd_leaf per leaf column: what the file stores (physical type,
 *    width) where it differs from the schema's type (INT96).
 *
 * Nothing is trusted: a list count is bounded by the bytes left, nesting
 * by a fixed depth, chunk offsets and sizes by the file's size, and
 * every row group must have one chunk per leaf in schema order. Failures
 * are INLAY_ERR_FORMAT (or NOMEM) with a message in *err naming where.
 */
#ifndef INLAY_FOOTER_H
#define INLAY_FOOTER_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc.h"
#include "error.h"
#include "schema.h"

/* Parquet Type numbers as in the file. */
enum { PT_BOOLEAN = 0, PT_INT32 = 1, PT_INT64 = 2, PT_INT96 = 3, PT_FLOAT = 4, PT_DOUBLE = 5,
       PT_BYTE_ARRAY = 6, PT_FIXED_LEN_BYTE_ARRAY = 7 };

typedef struct rd_leaf {
    int physical;          /* PT_*, as stored in the file */
    int32_t type_length;   /* FIXED_LEN_BYTE_ARRAY width (12 for INT96) */
    int16_t max_def, max_rep;
    bool int96_to_nanos;   /* stored INT96, read as timestamp(ns) INT64 */
} rd_leaf;

typedef struct rd_meta {
    inlay_file_info info;           /* the public view; points into the blocks below */
    inlay_schema *schema;           /* finalized; leaves in the file's column order */
    rd_leaf *leaves;                /* info.num_columns of them */
    /* owned blocks (implementation's choice beyond these) */
    inlay_row_group_info *row_groups;
    inlay_chunk_info *chunks;       /* num_row_groups * num_columns, row group major */
    inlay_kv *kv;
    void *arena;                    /* strings and statistics bytes */
    size_t arena_size;
} rd_meta;

/* Decode the FileMetaData in footer[0..len) of a file of file_size bytes
 * (the footer ends 8 bytes before the file does). On success *m owns what
 * it points to (free with inl_rd_meta_free). On failure *m is left empty
 * (safe to free), err holds the message and a negative status is
 * returned: INLAY_ERR_FORMAT or INLAY_ERR_NOMEM. */
int inl_rd_meta_parse(rd_meta *m, const uint8_t *footer, size_t len, uint64_t file_size,
                      const inlay_allocator *a, inl_err *err);
void inl_rd_meta_free(rd_meta *m, const inlay_allocator *a);

/* Page types and encodings come from page.h's enums (PAGE_*, ENC_*). */
typedef struct rd_page_header {
    int type;                      /* PAGE_DATA, PAGE_DICTIONARY, PAGE_DATA_V2, or another (skipped) */
    int32_t uncompressed_size;     /* >= 0 */
    int32_t compressed_size;       /* >= 0 */
    bool has_crc;
    uint32_t crc;
    int32_t num_values;            /* data: level entries; dictionary: entries; >= 0 */
    int encoding;                  /* of the values (ENC_*) */
    int def_encoding, rep_encoding;/* v1 */
    /* v2 */
    int32_t num_nulls, num_rows;
    int32_t def_bytes, rep_bytes;  /* >= 0, and their sum <= compressed_size */
    bool is_compressed;            /* v2; true when absent */
    bool dict_sorted;
} rd_page_header;

/* Decode a PageHeader from p[0..n). Returns its length in bytes (> 0),
 * or 0 when it is cut short, malformed, or has a required field missing
 * or negative; *why then says which in a short static phrase. */
size_t inl_rd_page_header(const uint8_t *p, size_t n, rd_page_header *h, const char **why);

#endif
