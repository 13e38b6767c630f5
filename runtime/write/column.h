/*
 * column.h — the column buffer of one leaf, and the column chunks it cuts.
 *
 * Values arrive in batches (already checked by validate.c, and for byte
 * arrays in dictionary mode already looked up: see staging below). The buffer holds
 * the current page: levels as uint16 arrays and values either PLAIN-encoded
 * or, in dictionary mode, as uint32 indices into the chunk's memo table.
 * A page ends at its row or byte limit; a chunk ends at the row-group row
 * limit or when the writer seals it. Pages and chunks end only where a row
 * ends (repetition level 0).
 *
 * Ended chunks queue up as `chunk`s (dictionary page + data pages, encoded
 * and compressed, with their metadata) until the writer has one for every
 * column and writes the row group. Their buffers are recycled.
 *
 * The dictionary path: every value is looked up in the memo table; when the
 * dictionary passes dictionary_bytes, the current page is finished
 * dictionary-encoded and the rest of the chunk falls back to the column's
 * value encoding (by default DELTA_BINARY_PACKED for integers,
 * DELTA_LENGTH_BYTE_ARRAY for byte arrays, PLAIN for the rest). With the
 * AUTO encoding, the first page of a chunk also decides whether the
 * dictionary pays at all: if dictionary + indices are not smaller than the
 * fallback encoding of the same values (compressed, when that could change
 * the answer), that page and the rest of the chunk use the fallback.
 *
 * Values are buffered PLAIN (fixed-width values are then simply the typed
 * array); the value encoding runs once per page.
 *
 * Each column has its own codec. With v1 pages, the first data page of a
 * chunk also decides whether the codec pays: when it shrinks that page by
 * less than min_gain, the page is written again uncompressed and so is the
 * rest of the chunk, whose footer entry then says UNCOMPRESSED (random
 * doubles cost a general-purpose codec most of its time and save nothing).
 * v2 pages decide one by one (is_compressed).
 */
#ifndef INLAY_COLUMN_H
#define INLAY_COLUMN_H

#include "alloc.h"
#include "bloom.h"
#include "compress.h"
#include "memo.h"
#include "metadata.h"
#include "page.h"
#include "schema.h"
#include "stats.h"

/* What the columns share with their writer. */
typedef struct column_env {
    inlay_allocator alloc;
    compressor none;     /* for chunks stored UNCOMPRESSED because their codec did not pay */
    double min_gain;     /* inlay_options.min_compression_gain */
    page_scratch scratch;
    buf levels;          /* encoded levels of the page being written */
    buf encoded;         /* encoded values of the page being written */
    buf trial;           /* the other candidate of the dictionary cost check */
    buf views;           /* inlay_bytes views of a page's PLAIN byte arrays */
    int page_version;    /* 1 or 2 */
    size_t page_bytes, page_rows, row_group_rows, dictionary_bytes;
    bool page_index;     /* keep each page's entry for the chunk's ColumnIndex and OffsetIndex */
    bool checksum;       /* CRC32 in every page header */
    size_t truncate_length;   /* of byte-array bounds; 0 = whole */
} column_env;

typedef struct chunk {
    buf dict;                 /* the dictionary page, header included; may be empty */
    buf pages;                /* the data pages */
    uint64_t num_values;      /* level entries */
    uint64_t num_rows;
    uint64_t raw_size, stored_size;   /* all pages, headers included */
    uint32_t dict_entries;
    int page_counts[ENC_COUNT];       /* data pages by value encoding */
    inlay_compression codec;          /* the column's, or UNCOMPRESSED when it did not pay */
    bool codec_decided;               /* v1: the first data page has said whether the codec pays */
    stats st;
    /* size statistics */
    int64_t unencoded_bytes;          /* BYTE_ARRAY values' bytes */
    buf hist;                         /* int64: max_def + 1 definition level counts, then max_rep + 1
                                         repetition level counts (each only when that level is > 0) */
    /* the page index: one page_entry per data page, their bounds and level counts */
    buf pg, pg_bounds, pg_hist;
    bool ci_ok;                       /* every page has bounds or is all null: a ColumnIndex can be written */
    bool ascending, descending;       /* the pages' bounds so far, for the boundary order */
    int last_bounded;                 /* the last page with bounds, or -1 */
    buf hashes;                       /* uint64 XXH64 of the values (each distinct value once while
                                         dictionary-encoded), for the bloom filter */
    buf bloom;                        /* the chunk's bloom filter, header included, made at seal */
} chunk;

typedef struct column {
    const schema_leaf *leaf;
    const inlay_type *type;
    const char *path;
    size_t width;             /* bytes per PLAIN value; 0 for BYTE_ARRAY */
    size_t value_size;        /* bytes per entry of the append arrays */
    bool is_bytes;            /* values are inlay_bytes */
    bool dict_allowed, use_dict, dict_used, statistics;
    bool cost_check;          /* AUTO: drop a dictionary that does not pay */
    bool dict_decided;        /* the cost check has seen values in this chunk */
    int value_encoding;       /* ENC_* of pages that are not dictionary-encoded */
    compressor *comp;         /* the column's codec, shared by the writer's columns of the same one */
    memo_fixed memo_fixed;
    memo_bytes memo_bytes;
    /* the page being filled */
    buf defs, reps;           /* uint16 levels */
    buf vals;                 /* PLAIN bytes, or uint32 dictionary indices (the page's from
                                 page_off to len; staged ones may follow) */
    size_t page_off;          /* where the page's indices start in vals: past the last page's
                                 while staged indices are being taken */
    size_t page_entries, page_rows, page_values;
    size_t page_plain_bytes;  /* PLAIN size of the page's values while the check is pending */
    size_t page_ba_bytes;     /* BYTE_ARRAY: the page's values' bytes, found as it is written */
    stats pst;                /* the page's statistics, made as it is written */
    buf trunc;                /* a truncated max bound */
    buf stamps;               /* uint32 per dictionary entry: the last page it was seen in */
    uint32_t stamp;
    buf counts;               /* uint32 per dictionary entry: its uses in the page; zero between pages */
    /* A batch's first values put into the dictionary while they were
     * checked (inl_column_stage), their indices kept in vals past the
     * page's, for the append that follows to take in place of a second
     * lookup. */
    size_t stage_n, stage_pos;   /* values staged; taken so far */
    size_t stage_count0;      /* dictionary entries before the batch */
    size_t nhist;             /* level counts per page (0 when the column has no levels) */
    int64_t *page_hist;       /* the current page's, nhist entries */
    bool bloom_on;            /* a bloom filter per chunk */
    uint64_t bloom_ndv;       /* 0: sized from the chunk's hashes */
    double bloom_fpp;
    bloom filter;             /* built at seal, reused */
    /* chunks[0..nsealed) are ended; chunks[nsealed] is open; beyond are spare */
    chunk *chunks;
    int nsealed, nchunks;
    uint64_t rows;            /* rows appended in total */
    buf validity_defs, validity_vals;   /* a validity-bitmap batch as levels + dense values */
} column;

/* comp: the column's codec (kept, not owned). */
int inl_column_init(column *c, column_env *e, const inlay_schema *s, int leaf, compressor *comp);
void inl_column_free(column *c, column_env *e);

/* Append count level entries with their dense values (typed as the
 * column's physical type: uint8 0/1 for BOOLEAN, inlay_bytes for byte
 * arrays). def/rep may be NULL. The batch has been checked. Returns 0 or a
 * sticky error (NOMEM, COMPRESS). */
int inl_column_append(column *c, column_env *e, const void *values, size_t count,
                  const int16_t *def, const int16_t *rep);

/* Room for nvalues fixed-width values (of count entries) right where the
 * page will hold them, for a caller that makes them (converted time units)
 * to write them there rather than into a buffer of its own: appended with
 * that pointer as their values, they are not copied. NULL when the column
 * would not take them in one piece (a dictionary, byte arrays, a batch
 * the page or chunk does not hold whole) or there is no memory; the
 * caller then uses its own buffer. */
void *inl_column_value_room(column *c, column_env *e, size_t count, size_t nvalues, const int16_t *rep);

/* Staging, for BYTE_ARRAY values in dictionary mode: the checks of a batch
 * and its dictionary lookups in one pass (validate.c drives it), so the
 * values are read once.
 *
 * inl_column_stageable: how many of the batch's first values may be
 * staged -- those that fall in the open chunk, when the column is flat,
 * dictionary-encoding BYTE_ARRAY values and past its first-page decision;
 * 0 otherwise. count entries, nvalues of them values. */
size_t inl_column_stageable(const column *c, const column_env *e, size_t count, size_t nvalues,
                            const int16_t *def, const int16_t *rep);
/* A new stage, empty. */
void inl_column_stage_begin(column *c);
/* The dictionary has reached its limit: stage no further. */
bool inl_column_stage_full(const column *c, const column_env *e);
/* n more values into the dictionary; their indices staged. Returns 0,
 * INLAY_ERR_VALUE (a value Parquet cannot hold: NULL data with a length, a
 * length past INT32_MAX) or INLAY_ERR_NOMEM; the stage then stays as it was. */
int inl_column_stage(column *c, column_env *e, const inlay_bytes *v, size_t n);
/* The staged indices (stage_n of them). */
const uint32_t *inl_column_staged(const column *c);
/* Undo the stage: the dictionary as it was before inl_column_stage_begin. */
void inl_column_unstage(column *c);

/* End the open chunk (even if empty). */
int inl_column_seal(column *c, column_env *e);
/* The bytes the open chunk holds so far, roughly. */
size_t inl_column_buffered_bytes(const column *c);
/* Recycle chunks[0] once the writer has written it. */
void inl_column_pop(column *c);

#endif
