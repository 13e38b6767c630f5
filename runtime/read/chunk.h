/*
 * chunk.h — one leaf column of one row group, read page by page into
 * batches of levels and values.
 *
 * A chunk reader walks the column chunk's pages in order: the dictionary
 * page (kept for the chunk), then data pages v1 or v2, each decompressed
 * and decoded whole into page-level arrays (levels, and the present
 * values densely). inl_chunk_take() hands out the next n rows as a batch:
 * the levels and values of those rows, across as many pages as they span
 * (a v1 page may even split a row). Byte-string values point into the
 * page bodies, so the bodies a batch used stay alive until the next take.
 *
 * Every count, length and level comes from the file and is checked before
 * use; failures are INLAY_ERR_FORMAT with a message naming the row group,
 * column and page.
 */
#ifndef INLAY_CHUNK_H
#define INLAY_CHUNK_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc.h"
#include "decompress.h"
#include "error.h"
#include "footer.h"

/* A decompressed page body and what it owns (the bytes rebuilt by
 * DELTA_BYTE_ARRAY, the split-apart FIXED_LEN_BYTE_ARRAY values). */
typedef struct page_body {
    buf bytes;
    buf arena;
    bool in_use;           /* the current page, or used by the current batch */
} page_body;

typedef struct chunk_reader {
    /* the leaf */
    int column;
    const char *path;
    const rd_leaf *leaf;
    inlay_type type;
    size_t slot;                      /* bytes per output value */
    int16_t max_def, max_rep;
    int level_bits_def, level_bits_rep;

    /* the chunk */
    int row_group;
    int codec;
    const uint8_t *data;              /* the chunk's bytes */
    size_t len, at;
    buf fetched;                      /* the chunk read from a file or stream */
    int64_t values_left;              /* level entries the footer promises */
    int page_no;                      /* of the current page, counting every page */
    bool started;

    /* the dictionary */
    page_body dict_body;
    buf dict_vals;
    uint32_t dict_count;
    bool has_dict;

    /* the current data page, decoded */
    page_body *bodies;
    int nbodies;
    int cur_body;                     /* -1: none */
    buf def, rep, vals, idx;
    size_t entries, pos;              /* level entries in the page, consumed */
    size_t vpos;                      /* values consumed */

    /* the batch handed out by inl_chunk_take */
    buf out_def, out_rep, out_vals;
    size_t out_entries, out_values;
} chunk_reader;

/* Set up for leaf `column` of `meta`. Keeps pointers into meta and schema. */
void inl_chunk_init(chunk_reader *c, const rd_meta *meta, int column);
void inl_chunk_free(chunk_reader *c, const inlay_allocator *a);

/* Start row group rg over the chunk's bytes (data, len: at least the
 * chunk; data must stay valid while the chunk is read). */
void inl_chunk_start(chunk_reader *c, int rg, int codec, const uint8_t *data, size_t len, int64_t num_values);

/* Read the next `rows` rows (fewer at the end of the chunk) into
 * out_def/out_rep (when the leaf has those levels) and out_vals (dense,
 * present values only); *got = rows read. */
int inl_chunk_take(chunk_reader *c, size_t rows, size_t *got, decompressor *dz, const inlay_allocator *a,
                   inl_err *err);

#endif
