/*
 * metadata.h — the footer: RowGroup structs as row groups are written, and
 * the FileMetaData that closes the file.
 *
 * Row groups are serialized as soon as they are written (RowGroup structs
 * appended to one buffer), so the writer keeps no per-chunk metadata
 * objects; the footer splices that buffer in as the row_groups list.
 */
#ifndef INLAY_METADATA_H
#define INLAY_METADATA_H

#include "page.h"
#include "schema.h"

/* What the footer says of one column chunk. The writer fills it from its
 * column buffers; nothing here knows how the pages were made. */
typedef struct chunk_meta {
    const schema_leaf *leaf;    /* path, levels */
    inlay_physical physical;
    inlay_compression codec;    /* of this chunk's pages */
    uint64_t start;             /* file offset of the chunk's first page */
    uint64_t dict_bytes;        /* of the dictionary page, header included; 0 = none */
    uint64_t num_values;        /* level entries */
    uint64_t raw_size, stored_size;   /* all pages, headers included */
    const int *page_counts;     /* ENC_COUNT entries: data pages by value encoding */
    bool statistics;            /* write a Statistics struct */
    stats_wire st;
    int64_t bloom_offset;       /* of the bloom filter (header included); -1 = none */
    int32_t bloom_length;
    /* SizeStatistics, when statistics is set */
    int64_t unencoded_bytes;    /* BYTE_ARRAY values' bytes without length prefixes; -1 for other types */
    const int64_t *def_hist;    /* max_def + 1 counts, or NULL when max_def is 0 */
    const int64_t *rep_hist;    /* max_rep + 1 counts, or NULL when max_rep is 0 */
} chunk_meta;

typedef struct sorting_column {
    int32_t leaf;
    bool descending, nulls_first;
} sorting_column;

/* Append the RowGroup of ncols chunks; data pages are of page_type
 * (PAGE_DATA or PAGE_DATA_V2). pos (ncols entries, may be NULL) gets where
 * in out each ColumnChunk's page index references go (see
 * inl_meta_index_refs). */
int inl_meta_row_group(buf *out, const inlay_allocator *a, const chunk_meta *chunks, int ncols,
                   uint64_t num_rows, int ordinal, int page_type,
                   const sorting_column *sorting, int nsorting, size_t *pos);

/* ---- page index (PageIndex.md) ---- */

/* One data page of a chunk as the indexes describe it. */
typedef struct page_entry {
    uint64_t offset;            /* from the chunk's first data page */
    int32_t size;               /* stored, header included */
    int64_t first_row;          /* within the chunk */
    int64_t null_count;
    int64_t unencoded_bytes;    /* BYTE_ARRAY: values' bytes */
    uint32_t min_at, max_at;    /* bounds: offsets into the chunk's bound bytes */
    uint32_t min_len, max_len;
    bool null_page;             /* no non-null value: no bounds */
} page_entry;

enum { BOUNDARY_UNORDERED = 0, BOUNDARY_ASCENDING = 1, BOUNDARY_DESCENDING = 2 };

/* The ColumnIndex of a chunk's n pages. hists: per page, max_def + 1
 * definition level counts then max_rep + 1 repetition level counts (each
 * omitted when that level is 0); NULL for none. */
int inl_meta_column_index(buf *out, const inlay_allocator *a, const page_entry *pages, size_t n,
                      const uint8_t *bounds, int boundary_order, const int64_t *hists,
                      int max_def, int max_rep);

/* The OffsetIndex: page offsets made absolute from first_page (the file
 * offset of the chunk's first data page); unencoded byte counts for
 * BYTE_ARRAY chunks (byte_array). */
int inl_meta_offset_index(buf *out, const inlay_allocator *a, const page_entry *pages, size_t n,
                      uint64_t first_page, bool byte_array);

/* A ColumnChunk's column_index_offset/length and offset_index_offset/length
 * fields, spliced in at the position inl_meta_row_group gave (right after
 * its ColumnMetaData). Lengths 0 = that index is absent. */
int inl_meta_index_refs(buf *out, const inlay_allocator *a, int64_t ci_offset, int32_t ci_length,
                    int64_t oi_offset, int32_t oi_length);

/* The BloomFilterHeader of a split-block filter of nbytes (XXH64,
 * uncompressed); its bitset follows it in the file. */
int inl_meta_bloom_header(buf *out, const inlay_allocator *a, uint32_t nbytes);

/* Append the FileMetaData. */
int inl_meta_file(buf *out, const inlay_allocator *a, const inlay_schema *s, uint64_t num_rows,
              const buf *row_groups, uint32_t num_row_groups, const inlay_kv *kv, size_t nkv);

#endif
