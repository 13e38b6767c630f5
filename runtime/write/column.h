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

struct page_job;

/* What finishing a page needs besides the page: scratch buffers and a
 * compressor per codec. The appending thread has one (column_env.work);
 * each worker thread of the writer has its own. */
typedef struct page_work {
    page_scratch scratch;
    buf levels;          /* encoded levels of the page being written */
    buf encoded;         /* encoded values of the page being written */
    buf trial;           /* the other candidate of the dictionary cost check; distinct entries */
    buf views;           /* inlay_bytes views of a page's PLAIN byte arrays */
    buf out;             /* a page finished beside an earlier one of its column, until its turn */
    buf trunc;           /* a page's truncated max bound */
    compressor none;     /* for chunks stored UNCOMPRESSED because their codec did not pay */
    compressor *comps;   /* by column.comp_id: one per (codec, level) the columns use */
} page_work;

/* What the columns share with their writer. */
typedef struct column_env {
    inlay_allocator alloc;
    double min_gain;     /* inlay_options.min_compression_gain */
    page_work work;      /* the appending thread's */
    int page_version;    /* 1 or 2 */
    size_t page_bytes, page_rows, row_group_rows, dictionary_bytes;
    bool page_index;     /* keep each page's entry for the chunk's ColumnIndex and OffsetIndex */
    bool checksum;       /* CRC32 in every page header */
    size_t truncate_length;   /* of byte-array bounds; 0 = whole */
    /* Threads: cut pages and ended chunks go to submit() (workers.c), which
     * finishes them on a worker thread, in order per column; NULL: they
     * are finished right away on the appending thread. */
    void (*submit)(void *ctx, struct page_job *j);
    void *submit_ctx;
    struct page_job *(*take_job)(void *ctx, int col);   /* a spare job of column col, or NULL: out of memory */
    /* Wait until every earlier job of j's column is finished: 0, or the
     * failure that ends the wait (another job's). */
    int (*await_turn)(void *ctx, const struct page_job *j);
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
    /* The appending thread's own: the pages cut so far (their size
     * before encoding, which the row-group byte limit reads: the same at
     * any thread count), and the jobs not yet finished (under the
     * workers' lock). Every other field is the finishing side's. */
    size_t cut_bytes;
    int pending;
    uint64_t seq;                     /* the chunk's row group, for messages */
} chunk;

/* A page cut from its column, or a chunk's end (seal), to be finished:
 * the page's statistics, encoding, compression and index entry, or the
 * chunk's dictionary page and bloom filter. It carries what it needs, so
 * that the column can go on taking values meanwhile. */
typedef struct page_job {
    struct page_job *next;
    struct column *c;
    chunk *k;
    int col;                  /* the column's index (its jobs are its own) */
    uint64_t order;           /* its place among the column's jobs (schedule.c) */
    bool seal;
    bool decides;             /* a chunk's first data page, which says whether its codec pays */
    bool in_place;            /* no earlier job of the column is running: the page goes straight
                                 into its chunk (else into the page_work's out, then in turn) */
    /* the page: levels, and PLAIN values or dictionary indices from vals_off */
    const buf *defs, *reps, *vals;
    size_t vals_off;
    size_t entries, rows, values;
    size_t ba_bytes;          /* BYTE_ARRAY values' bytes */
    uint64_t first_row;       /* in the chunk */
    bool use_dict;
    int index_width;
    bool stats_done;          /* dictionary pages on a worker: statistics made at the cut, in pst */
    bool live;                /* finished on the appending thread: the column's memo may be read */
    stats pst;
    buf hist;                 /* the page's level counts */
    /* the dictionary: so far (a chunk's first dictionary page, whose codec
     * check counts it) or whole (seal) */
    bool has_dict;
    const uint8_t *dict;
    size_t dict_len;
    uint32_t dict_entries;
    /* the job's own buffers, when it leaves the appending thread */
    buf own_defs, own_reps, own_vals, own_dict;
} page_job;

typedef struct column {
    int index;                /* the leaf's */
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
    int comp_id;              /* the column's codec: page_work.comps[comp_id] */
    inlay_compression codec;
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
    page_job own_job;         /* the page being finished on the appending thread */
    buf rg_trunc;             /* the chunk's, for the footer (the writer's side) */
    size_t pages_seen;        /* the finishing side's, in the column's turn: the most data-page bytes
                                 a chunk of the column has held, the room a new chunk's take at once */
    size_t chunk_pages;       /* pages cut in the open chunk */
    size_t dict_copy_room;    /* the room each of its jobs keeps for a copy of a small dictionary */
    buf stamps;               /* uint32 per dictionary entry: the last page it was seen in */
    uint32_t stamp;
    buf counts;               /* uint32 per dictionary entry: its uses in the page; zero between pages */
    /* A batch's first values put into the dictionary while they were
     * checked (inl_column_stage), their indices kept in vals past the
     * page's, for the append that follows to take in place of a second
     * lookup. */
    size_t stage_n, stage_pos;   /* values staged; taken so far */
    size_t stage_count0;      /* dictionary entries before the batch */
    /* The dictionary entries the chunk's appended values use (indices go
     * by first use: their largest + 1). The memo may hold more: staged
     * entries of values still to come. What a page is and costs, and when
     * the dictionary is given up, go by these alone, so that they do not
     * depend on how the rows were split into batches. */
    size_t dict_refs;
    /* Dictionary mode: the page's row count at which the dictionary limit
     * and the page's bytes are checked next (0: to be set), a function of
     * the page's values alone. */
    size_t dict_check;
    size_t dict_gap, dict_gap_refs;   /* at the last check: the least rows to the next, dict_refs */
    size_t nhist;             /* level counts per page (0 when the column has no levels) */
    bool bloom_on;            /* a bloom filter per chunk */
    uint64_t bloom_ndv;       /* 0: sized from the chunk's hashes */
    double bloom_fpp;
    bloom filter;             /* built at seal, reused */
    /* chunks[0..nsealed) are ended; chunks[nsealed] is open; beyond are spare */
    chunk **chunks;           /* each its own block: a worker may hold one while the list grows */
    int nsealed, nchunks, chunks_cap;
    uint64_t chunk_seq;       /* chunks started */
    uint64_t rows;            /* rows appended in total */
    buf validity_defs, validity_vals;   /* a validity-bitmap batch as levels + dense values */
} column;

/* comp_id, codec: the column's compressor in every page_work, and its codec. */
int inl_column_init(column *c, column_env *e, const inlay_schema *s, int leaf, int comp_id,
                    inlay_compression codec);
void inl_column_free(column *c, column_env *e);
/* Give back what an idle column holds beyond its page's values: the room
 * past them, and a memo table its open chunk does not use, made again by
 * the next chunk. A first page still deciding whether its dictionary pays
 * decides now, on the values it has. Returns 0 or INLAY_ERR_NOMEM /
 * INLAY_ERR_COMPRESS (of the decision's trial encoding). */
int inl_column_trim(column *c, column_env *e);

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
/* Recycle chunks[0] once the writer has written it. open_idle: no job of
 * the open chunk is queued or running, so its data pages and hashes may
 * move into chunks[0]'s larger buffers. */
void inl_column_pop(column *c, bool open_idle);

/* Finish a job (on whichever thread) with that thread's page_work.
 * Returns 0 or NOMEM/COMPRESS; the chunk is then not to be written. */
int inl_column_finish(page_job *j, const column_env *e, page_work *pw);
/* A job's own buffers. */
void inl_page_job_free(page_job *j, const inlay_allocator *a);
void inl_page_work_free(page_work *pw, const inlay_allocator *a, int ncomps);

#endif
