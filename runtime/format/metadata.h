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
    uint64_t null_count;
    bool has_bounds;            /* min and max below are set */
    const uint8_t *min, *max;   /* PLAIN bytes of the bounds (NULL when empty) */
    size_t min_len, max_len;
} chunk_meta;

/* Append the RowGroup of ncols chunks; data pages are of page_type
 * (PAGE_DATA or PAGE_DATA_V2). */
int inl_meta_row_group(buf *out, const inlay_allocator *a, const chunk_meta *chunks, int ncols,
                   uint64_t num_rows, int ordinal, int page_type);

/* Append the FileMetaData. */
int inl_meta_file(buf *out, const inlay_allocator *a, const inlay_schema *s, uint64_t num_rows,
              const buf *row_groups, uint32_t num_row_groups, const inlay_kv *kv, size_t nkv);

#endif
