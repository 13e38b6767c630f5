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

#include "column.h"

/* Append the RowGroup for one chunk per column: chunks[i] of cols[i] was
 * written at file offset starts[i]; data pages are of page_type (PAGE_DATA
 * or PAGE_DATA_V2). */
int meta_row_group(buf *out, const inlay_allocator *a, const column *cols, const chunk *const *chunks,
                   const uint64_t *starts, int ncols, uint64_t num_rows, int ordinal,
                   inlay_compression codec, int page_type);

/* Append the FileMetaData. */
int meta_file(buf *out, const inlay_allocator *a, const inlay_schema *s, uint64_t num_rows,
              const buf *row_groups, uint32_t num_row_groups, const inlay_kv *kv, size_t nkv);

#endif
