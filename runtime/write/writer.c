/*
 * writer.c — the writer: options, the append entry points, row groups and
 * the file's frame (magic, row groups, footer).
 *
 * State machine: OPEN -> CLOSED (close succeeded) or ABORTED (abort/free),
 * and OPEN -> FAILED when the environment fails (allocator, sink,
 * compressor); FAILED accepts only abort and free. Bad input never changes
 * state: each append is checked whole before any of it is buffered.
 *
 * Row groups: each column cuts its own chunks at the row-group row limit;
 * the byte limit is checked whenever all columns hold the same number of
 * rows, and then seals every column at once. A row group is written as soon
 * as every column has an ended chunk, so chunks line up by construction.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "writer.h"
#include "validate.h"
#include "arrow.h"
#include "column.h"
#include "metadata.h"
#include "sink.h"
#include "timeconv.h"
#include "shred.h"
#include "sortcheck.h"
#include "workers.h"

enum { W_OPEN, W_CLOSED, W_FAILED, W_ABORTED };

/* Whose sink: the host's, or one of sink.c's, which keep their own
 * reason for a failure. */
enum { SINK_HOST, SINK_FILE, SINK_FD };

enum { ROW_GROUPS_AHEAD = 64 };

/* Where a chunk's page index went (offsets from the start of col_index /
 * off_index) and where its footer entry takes the references. */
typedef struct index_ref {
    size_t pos;
    uint64_t ci_at, oi_at;
    uint32_t ci_len, oi_len;
} index_ref;

/* A batch checked and ready to go into its column. */
typedef struct prepared {
    column *c;
    const void *values;
    size_t count;
    const int16_t *def, *rep;
    bool staged;   /* some values are in the dictionary already (inl_column_stage) */
} prepared;


struct inlay_writer {
    inlay_allocator alloc;      /* what everything is allocated with (under `locked` with serialize_alloc) */
    inlay_allocator host_alloc; /* the host's, which the writer itself came from */
    locked_alloc locked;
    bool locked_on;
    workers *workers;           /* NULL: one thread */
    int in_flight;              /* options.row_groups_in_flight */
    column_env env;
    inlay_schema *schema;
    column *cols;
    int ncols;
    inlay_sink sink;
    int sink_kind;
    file_sink file;             /* SINK_FILE */
    fd_sink fds;                /* SINK_FD */
    int state;
    int failure;                /* the sticky status in W_FAILED */
    char failure_msg[sizeof ((inl_err *)0)->msg];   /* and its message, repeated by every later call */
    size_t row_group_bytes;
    uint64_t bytes, rows, row_groups;
    buf footer_groups;          /* serialized RowGroup structs */
    buf footer;
    inlay_kv *kv;
    size_t nkv;
    prepared *prepared;        /* one per column, for append_columns */
    buf converted;             /* append_time's values in the column's unit */
    shred shred;               /* append_array's levels and values, per leaf */
    buf nested_batches;        /* append_array's inlay_column_batch list */
    arrow_state *arrow;        /* append_arrow's scratch, made by its first call */
    chunk_meta *tmp_meta;      /* a row group's footer entries, one per column */
    stats_bounds *tmp_bounds;  /* the min/max they point to */
    size_t *tmp_pos;           /* where their page index references go */
    chunk **emit_chunks;       /* the row group going to the sink, one chunk per column */
    bool emit_async;           /* its bytes go from a worker (workers, and the library's own sink) */
    bool emitting;             /* a worker has it: its chunks are still the columns' oldest */
    uint64_t emit_pending;     /* its bytes: counted in `bytes`, not yet given to the sink */
    int ncomps;                /* env.work.comps: one per (codec, level) the columns use */
    inlay_column_stats *col_stats;   /* one per column: what its chunks came to */
    buf col_index, off_index;   /* the page index, written at close: ColumnIndex structs, OffsetIndex structs */
    buf index_refs;             /* index_ref per chunk written, to splice into the footer at close */
    sorting_column *sorting;    /* options.sorting_columns, as leaves */
    int nsorting;
    size_t sorting_cap;
    sort_check order;           /* checks the rows against them */
    bool checking;              /* inl_writer_check_columns: nothing is staged or buffered */
    uint64_t checked_rows;      /* rows it passed, which the sort check counts in */
    inl_err err;                /* the last failure */
};

void inlay_options_init(inlay_options *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->compression = INLAY_DEFAULT_COMPRESSION;
    o->compression_level = INLAY_LEVEL_DEFAULT;
    o->min_compression_gain = INLAY_DEFAULT_MIN_GAIN;
    o->page_bytes = INLAY_DEFAULT_PAGE_BYTES;
    o->page_rows = INLAY_DEFAULT_PAGE_ROWS;
    o->row_group_rows = INLAY_DEFAULT_ROW_GROUP_ROWS;
    o->row_group_bytes = INLAY_DEFAULT_ROW_GROUP_BYTES;
    o->dictionary_bytes = INLAY_DEFAULT_DICTIONARY_BYTES;
    o->page_version = INLAY_DEFAULT_PAGE_VERSION;
    o->sync = INLAY_DEFAULT_SYNC;
    o->statistics = true;
    o->page_index = true;
    o->statistics_truncate_length = INLAY_DEFAULT_TRUNCATE_LENGTH;
    o->threads = 0;
    o->row_groups_in_flight = 0;
}

#define set_error(w, ...) inl_err_set(&(w)->err, __VA_ARGS__)

/* A value or level at fault: "column 'x' row N: reason", with the parts
 * kept apart for inlay_writer_error_info. */
#define set_value_error(w, status, c, row, ...) \
    inl_err_at(&(w)->err, status, "column", (c)->path, (int)((c) - (w)->cols), row, __VA_ARGS__)

/* The message of the failure that made the writer W_FAILED. */
static void keep_failure(inlay_writer *w)
{
    memcpy(w->failure_msg, w->err.msg, sizeof w->failure_msg);
}

static int workers_failed(inlay_writer *w);

/* An environment failure: the writer can only be aborted now. A worker's
 * failure, when there is one, is the cause (the appending thread found no
 * job to hand its page to). */
static int set_failed(inlay_writer *w, int status, const char *where)
{
    if (workers_failed(w)) return w->failure;
    w->state = W_FAILED;
    w->failure = status;
    set_error(w, status, "%s: %s", where, inlay_strerror(status));
    keep_failure(w);
    return status;
}

/* Any call but abort and free on a failed writer: the failure's own
 * message again, so that a host that checks only a later call (close, say)
 * still learns why ("No space left on device"). */
static int failed_earlier(inlay_writer *w)
{
    return set_error(w, w->failure, "writer failed earlier (%s); it can only be aborted", w->failure_msg);
}

/* A worker's failure, taken over as the writer's own. */
static int workers_failed(inlay_writer *w)
{
    if (!w->workers) return 0;
    char msg[sizeof w->err.msg];
    const int st = inl_workers_failure(w->workers, msg, sizeof msg);
    if (!st) return 0;
    w->state = W_FAILED;
    w->failure = st;
    set_error(w, st, "%s", msg);
    keep_failure(w);
    return st;
}

/* An open writer, not failed: what every call but abort and free needs. */
static int usable(inlay_writer *w)
{
    if (w->state == W_FAILED) return failed_earlier(w);
    if (w->state != W_OPEN) return set_error(w, INLAY_ERR_STATE, "writer is closed");
    return workers_failed(w);
}

const char *inlay_writer_errmsg(const inlay_writer *w) { return w ? w->err.msg : "no writer"; }
int inlay_writer_status(const inlay_writer *w) { return w ? w->err.status : INLAY_ERR_ARGUMENT; }

void inlay_writer_error_info(const inlay_writer *w, inlay_error_info *info)
{
    info->column = w ? w->err.column : -1;
    info->row = w ? w->err.row : -1;
    info->reason = w ? inl_err_reason(&w->err) : "no writer";
}
uint64_t inlay_writer_rows(const inlay_writer *w)
{
    if (!w) return 0;
    if (w->state != W_OPEN || w->ncols == 0) return w->rows;
    uint64_t rows = w->cols[0].rows;   /* rows complete in every column */
    for (int i = 1; i < w->ncols; i++)
        if (w->cols[i].rows < rows) rows = w->cols[i].rows;
    return rows;
}
uint64_t inlay_writer_row_groups(const inlay_writer *w) { return w ? w->row_groups : 0; }
uint64_t inlay_writer_bytes(const inlay_writer *w) { return w ? w->bytes - w->emit_pending : 0; }

int inlay_writer_column_stats(const inlay_writer *w, int leaf, inlay_column_stats *st)
{
    if (!w || !st) return INLAY_ERR_ARGUMENT;
    if (leaf < 0 || leaf >= w->ncols || !w->col_stats) return INLAY_ERR_COLUMN;
    *st = w->col_stats[leaf];
    return INLAY_OK;
}

/* ---- opening ------------------------------------------------------------- */

static int check_options(inlay_writer *w, const inlay_options *o)
{
    if (o->struct_size != sizeof *o)
        return set_error(w, INLAY_ERR_ARGUMENT, "options not initialised with inlay_options_init");
    if (!o->page_bytes || !o->page_rows || !o->row_group_rows || !o->row_group_bytes)
        return set_error(w, INLAY_ERR_ARGUMENT, "page and row group limits must be positive");
    if (o->page_bytes > INT32_MAX / 2 || o->page_rows > INT32_MAX / 2)
        return set_error(w, INLAY_ERR_ARGUMENT, "page_bytes %zu or page_rows %zu is too large",
                         o->page_bytes, o->page_rows);
    if (o->page_version != 1 && o->page_version != 2)
        return set_error(w, INLAY_ERR_ARGUMENT, "page_version must be 1 or 2, not %d", o->page_version);
    if (o->threads < 0 || o->threads > 64)
        return set_error(w, INLAY_ERR_ARGUMENT, "threads must be in 0..64, not %d", o->threads);
    if (o->row_groups_in_flight < 0 || o->row_groups_in_flight > 64)
        return set_error(w, INLAY_ERR_ARGUMENT, "row_groups_in_flight must be in 0..64, not %d",
                         o->row_groups_in_flight);
    if (!(o->min_compression_gain >= 0 && o->min_compression_gain < 1))
        return set_error(w, INLAY_ERR_ARGUMENT, "min_compression_gain must be in [0, 1), not %g", o->min_compression_gain);
    char why[128];
    int level;
    if (inl_codec_check(o->compression, o->compression_level, &level, why, sizeof why))
        return set_error(w, INLAY_ERR_ARGUMENT, "%s", why);
    if (o->metadata_count && !o->metadata)
        return set_error(w, INLAY_ERR_ARGUMENT, "metadata_count without metadata");
    for (size_t i = 0; i < o->metadata_count; i++)
        if (!o->metadata[i].key)
            return set_error(w, INLAY_ERR_ARGUMENT, "metadata entry %zu has no key", i);
    return 0;
}

static int copy_metadata(inlay_writer *w, const inlay_options *o)
{
    if (!o->metadata_count) return 0;
    w->kv = inl_mem_alloc(&w->alloc, o->metadata_count * sizeof *w->kv);
    if (!w->kv) return INLAY_ERR_NOMEM;
    memset(w->kv, 0, o->metadata_count * sizeof *w->kv);
    w->nkv = o->metadata_count;
    for (size_t i = 0; i < w->nkv; i++) {
        w->kv[i].key = inl_mem_strdup(&w->alloc, o->metadata[i].key);
        if (o->metadata[i].value) w->kv[i].value = inl_mem_strdup(&w->alloc, o->metadata[i].value);
        if (!w->kv[i].key || (o->metadata[i].value && !w->kv[i].value)) return INLAY_ERR_NOMEM;
    }
    return 0;
}

/* Why the sink failed at `what` ("writing", "finishing"), into the
 * writer's message: the file and descriptor sinks say what they were doing
 * and the system's reason; a host's sink may have left errno (see
 * inlay_sink), saved by the caller right after the failing call. */
static void sink_reason(const inlay_writer *w, const char *what, int saved_errno, char *msg, size_t cap)
{
    char why[128];
    if (w->sink_kind == SINK_FILE) inl_file_sink_message(&w->file, msg, cap);
    else if (w->sink_kind == SINK_FD) inl_fd_sink_message(&w->fds, msg, cap);
    else if (saved_errno) snprintf(msg, cap, "%s the sink failed: %s", what, inl_sys_reason(saved_errno, why, sizeof why));
    else snprintf(msg, cap, "%s the sink failed", what);
}

static int sink_failed(inlay_writer *w, const char *what, int saved_errno)
{
    char msg[sizeof w->err.msg];
    sink_reason(w, what, saved_errno, msg, sizeof msg);
    return set_error(w, INLAY_ERR_IO, "%s", msg);
}

/* The sink failed writing (msg: why): the writer can only be aborted now. */
static int sink_write_failed(inlay_writer *w, const char *msg)
{
    w->state = W_FAILED;
    w->failure = INLAY_ERR_IO;
    set_error(w, INLAY_ERR_IO, "%s", msg);
    keep_failure(w);
    return INLAY_ERR_IO;
}

static int write_bytes(inlay_writer *w, const void *p, size_t n)
{
    if (!n) return 0;
    errno = 0;
    if (w->sink.write(w->sink.ctx, p, n)) {
        char msg[sizeof w->err.msg];
        sink_reason(w, "writing to", errno, msg, sizeof msg);
        return sink_write_failed(w, msg);
    }
    w->bytes += n;
    return 0;
}

/* The compressor of leaf i: its own codec and level, or the writer's;
 * columns with the same pair share one (its context is made once, per
 * thread). */
static int column_codec(inlay_writer *w, const inlay_options *o, int i, int *out)
{
    const inlay_column_options *co = &w->schema->nodes[w->schema->leaves[i].node].opts;
    int codec = co->compression == -1 ? (int)o->compression : co->compression;
    int level = co->compression == -1 ? o->compression_level : co->compression_level;
    char why[128];
    if (inl_codec_check(codec, level, &level, why, sizeof why))
        return set_error(w, INLAY_ERR_SCHEMA, "column '%s': %s", w->schema->leaves[i].path, why);
    compressor *comps = w->env.work.comps;
    for (int k = 0; k < w->ncomps; k++)
        if ((int)comps[k].codec == codec && comps[k].level == level) {
            *out = k;
            w->col_stats[i].compression = (inlay_compression)codec;
            w->col_stats[i].compression_level = level;
            return 0;
        }
    const size_t largest_page = o->page_bytes > o->dictionary_bytes ? o->page_bytes : o->dictionary_bytes;
    compressor *c = &comps[w->ncomps];
    int st = inl_compress_init(c, &w->env.alloc, (inlay_compression)codec, level, 2 * largest_page);
    if (st) return set_error(w, st, st == INLAY_ERR_NOMEM ? "out of memory" : "column '%s': compression %d level %d refused",
                             w->schema->leaves[i].path, codec, level);
    *out = w->ncomps++;
    w->col_stats[i].compression = (inlay_compression)codec;
    w->col_stats[i].compression_level = level;
    return 0;
}

/* options.sorting_columns as leaves: each a column outside any list or
 * map, named once. */
static int setup_sorting(inlay_writer *w, const inlay_options *o)
{
    if (!o->sorting_columns_count) return 0;
    w->sorting = inl_mem_alloc(&w->alloc, o->sorting_columns_count * sizeof *w->sorting);
    if (!w->sorting) return set_error(w, INLAY_ERR_NOMEM, "out of memory");
    w->sorting_cap = o->sorting_columns_count;
    for (size_t i = 0; i < o->sorting_columns_count; i++) {
        const inlay_sorting_column *sc = &o->sorting_columns[i];
        int leaf = sc->column ? inlay_writer_column(w, sc->column) : INLAY_ERR_COLUMN;
        if (leaf < 0)
            return set_error(w, INLAY_ERR_ARGUMENT, "sorting column %zu: no column '%s'", i,
                             sc->column ? sc->column : "(null)");
        const column *c = &w->cols[leaf];
        if (c->leaf->max_rep > 0)
            return set_error(w, INLAY_ERR_ARGUMENT, "sorting column '%s' is inside a list or map", c->path);
        if (c->leaf->order == ORDER_NONE)
            return set_error(w, INLAY_ERR_ARGUMENT, "sorting column '%s' has no sort order", c->path);
        for (int j = 0; j < w->nsorting; j++)
            if (w->sorting[j].leaf == leaf)
                return set_error(w, INLAY_ERR_ARGUMENT, "sorting column '%s' is named twice", c->path);
        w->sorting[w->nsorting++] = (sorting_column){ leaf, sc->descending, sc->nulls_first };
    }
    sort_key keys[64];
    if (w->nsorting > 64) return set_error(w, INLAY_ERR_ARGUMENT, "more than 64 sorting columns");
    for (int i = 0; i < w->nsorting; i++) {
        const column *c = &w->cols[w->sorting[i].leaf];
        keys[i] = (sort_key){ .leaf = w->sorting[i].leaf, .order = c->leaf->order, .physical = c->type->physical,
                              .max_def = c->leaf->max_def, .descending = w->sorting[i].descending,
                              .nulls_first = w->sorting[i].nulls_first };
    }
    if (inl_sortcheck_init(&w->order, &w->alloc, keys, w->nsorting)) return set_error(w, INLAY_ERR_NOMEM, "out of memory");
    return 0;
}

static int thread_count(const inlay_options *o)
{
    if (o->threads > 0) return o->threads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    return n > INLAY_MAX_DEFAULT_THREADS ? INLAY_MAX_DEFAULT_THREADS : (int)n;
}

/* threads - 1 workers finish the pages the appending thread cuts. */
static int start_workers(inlay_writer *w, const inlay_options *o)
{
    w->in_flight = o->row_groups_in_flight ? o->row_groups_in_flight : INLAY_DEFAULT_ROW_GROUPS_IN_FLIGHT;
    const int n = thread_count(o);
    if (n < 2 || w->ncols == 0) return 0;
    const size_t largest_page = o->page_bytes > o->dictionary_bytes ? o->page_bytes : o->dictionary_bytes;
    int st = inl_workers_start(&w->workers, &w->env, n - 1, w->ncols, w->env.work.comps, w->ncomps, largest_page);
    if (st) return set_error(w, st, st == INLAY_ERR_NOMEM ? "out of memory" : "no worker thread could be started");
    w->env.submit = inl_workers_submit;
    w->env.take_job = inl_workers_take_job;
    w->env.await_turn = inl_workers_await_turn;
    w->env.submit_ctx = w->workers;
    /* a host's sink is called from the host's thread only (inlay.h) */
    w->emit_async = w->sink_kind != SINK_HOST;
    return 0;
}

static int setup(inlay_writer *w, const inlay_schema *schema, const inlay_options *o)
{
    int st;
    const uint16_t probe = 1;
    if (*(const uint8_t *)&probe != 1)
        return set_error(w, INLAY_ERR_ARGUMENT, "inlay needs a little-endian host");
    inl_shred_init(&w->shred, &w->alloc);
    if (!schema) return set_error(w, INLAY_ERR_ARGUMENT, "no schema");
    w->schema = inl_schema_clone(schema, &w->alloc);
    if (!w->schema) return set_error(w, INLAY_ERR_NOMEM, "out of memory");
    if ((st = inl_schema_finalize(w->schema))) return set_error(w, st, "%s", w->schema->err.msg);
    w->env.page_bytes = o->page_bytes;
    w->env.page_rows = o->page_rows;
    w->env.row_group_rows = o->row_group_rows;
    w->env.dictionary_bytes = o->dictionary_bytes;
    w->row_group_bytes = o->row_group_bytes;
    w->env.page_version = o->page_version;
    w->env.min_gain = o->min_compression_gain;
    w->env.page_index = o->page_index;
    w->env.checksum = o->page_checksum;
    w->env.truncate_length = o->statistics_truncate_length;
    if ((st = inl_compress_init(&w->env.work.none, &w->env.alloc, INLAY_UNCOMPRESSED, INLAY_LEVEL_DEFAULT, 0)))
        return set_error(w, st, "out of memory");
    if (copy_metadata(w, o)) return set_error(w, INLAY_ERR_NOMEM, "out of memory");
    int n = w->schema->num_leaves;
    w->env.work.comps = inl_mem_alloc(&w->alloc, (size_t)n * sizeof *w->env.work.comps);
    w->col_stats = inl_mem_alloc(&w->alloc, (size_t)n * sizeof *w->col_stats);
    if (!w->env.work.comps || !w->col_stats) return set_error(w, INLAY_ERR_NOMEM, "out of memory");
    memset(w->col_stats, 0, (size_t)n * sizeof *w->col_stats);
    w->cols = inl_mem_alloc(&w->alloc, (size_t)n * sizeof *w->cols);
    w->tmp_meta = inl_mem_alloc(&w->alloc, (size_t)n * sizeof *w->tmp_meta);
    w->tmp_bounds = inl_mem_alloc(&w->alloc, (size_t)n * sizeof *w->tmp_bounds);
    w->prepared = inl_mem_alloc(&w->alloc, (size_t)n * sizeof *w->prepared);
    w->tmp_pos = inl_mem_alloc(&w->alloc, (size_t)n * sizeof *w->tmp_pos);
    w->emit_chunks = inl_mem_alloc(&w->alloc, (size_t)n * sizeof *w->emit_chunks);
    if (!w->cols || !w->tmp_meta || !w->tmp_bounds || !w->prepared || !w->tmp_pos || !w->emit_chunks)
        return set_error(w, INLAY_ERR_NOMEM, "out of memory");
    for (int i = 0; i < n; i++) {
        int comp = 0;
        if ((st = column_codec(w, o, i, &comp))) return st;
        if (inl_column_init(&w->cols[i], &w->env, w->schema, i, comp, w->env.work.comps[comp].codec)) {
            w->ncols = i + 1;
            return set_error(w, INLAY_ERR_NOMEM, "out of memory");
        }
        w->ncols = i + 1;
        if (!o->statistics) w->cols[i].statistics = false;
    }
    if ((st = setup_sorting(w, o))) return st;
    if ((st = start_workers(w, o))) return st;
    return write_bytes(w, "PAR1", 4);
}

/* Where open_writer sends the bytes: a host's sink, a file or a descriptor. */
typedef struct target {
    int kind;
    inlay_sink sink;    /* SINK_HOST */
    const char *path;   /* SINK_FILE */
    int fd;             /* SINK_FD */
} target;

static int open_sink(inlay_writer *w, const target *t, const inlay_options *o)
{
    int st = 0;
    if (t->kind == SINK_FILE) {
        st = inl_file_sink_open(&w->file, &w->alloc, t->path, o->sync, w->err.msg, sizeof w->err.msg);
        if (!st) w->sink = inl_file_sink_interface(&w->file);
    } else if (t->kind == SINK_FD) {
        st = inl_fd_sink_open(&w->fds, t->fd, o->sync, w->err.msg, sizeof w->err.msg);
        if (!st) w->sink = inl_fd_sink_interface(&w->fds);
    } else {
        w->sink = t->sink;
    }
    if (st) return w->err.status = st;
    w->sink_kind = t->kind;
    return 0;
}

static int open_writer(inlay_writer **out, const target *t, const inlay_schema *schema,
                       const inlay_options *opts)
{
    if (!out) return INLAY_ERR_ARGUMENT;
    *out = NULL;
    inlay_options defaults;
    if (!opts) {
        inlay_options_init(&defaults);
        opts = &defaults;
    }
    /* a layout this library does not know: check_options refuses it before
     * reading any of it */
    const bool known = opts->struct_size == sizeof *opts;
    inlay_allocator a = inl_mem_or_default(known ? &opts->alloc : NULL);
    inlay_writer *w = inl_mem_alloc(&a, sizeof *w);
    if (!w) return INLAY_ERR_NOMEM;
    memset(w, 0, sizeof *w);
    inl_err_clear(&w->err);
    w->host_alloc = a;
    if (known && opts->serialize_alloc && thread_count(opts) > 1) {
        inl_mem_locked_init(&w->locked, a);
        w->locked_on = true;
        a = inl_mem_locked(&w->locked);
    }
    w->alloc = a;
    w->env.alloc = a;
    w->state = W_ABORTED;   /* nothing to undo until the sink exists */
    *out = w;
    INL_FORWARD(check_options(w, opts));   /* before the sink: bad options touch no file */
    INL_FORWARD(open_sink(w, t, opts));
    w->state = W_OPEN;
    int st = setup(w, schema, opts);
    if (st) {
        inlay_writer_abort(w);
        return st;
    }
    /* Only once this open has succeeded, so that a failed one changes
     * nothing on disk; our own temporary is locked, hence kept. */
    if (w->sink_kind == SINK_FILE) inl_file_sink_remove_stale(&w->file);
    return 0;
}

int inlay_writer_open(inlay_writer **out, inlay_sink sink, const inlay_schema *schema,
                      const inlay_options *opts)
{
    if (!sink.write) return INLAY_ERR_ARGUMENT;
    const target t = { .kind = SINK_HOST, .sink = sink };
    return open_writer(out, &t, schema, opts);
}

int inlay_writer_open_file(inlay_writer **out, const char *path, const inlay_schema *schema,
                           const inlay_options *opts)
{
    if (!path || !*path) {
        if (out) *out = NULL;
        return INLAY_ERR_ARGUMENT;
    }
    const target t = { .kind = SINK_FILE, .path = path };
    return open_writer(out, &t, schema, opts);
}

int inlay_writer_open_fd(inlay_writer **out, int fd, const inlay_schema *schema, const inlay_options *opts)
{
    const target t = { .kind = SINK_FD, .fd = fd };
    return open_writer(out, &t, schema, opts);
}

const char *inlay_writer_temp_path(const inlay_writer *w)
{
    if (!w || w->sink_kind != SINK_FILE || (w->state != W_OPEN && w->state != W_FAILED)) return NULL;
    return w->file.tmp;
}

const inlay_schema *inlay_writer_schema(const inlay_writer *w) { return w ? w->schema : NULL; }

int inlay_writer_column(const inlay_writer *w, const char *name)
{
    if (!w || !name) return INLAY_ERR_ARGUMENT;
    for (int i = 0; i < w->ncols; i++)
        if (strcmp(w->cols[i].path, name) == 0) return i;
    return INLAY_ERR_COLUMN;
}

/* ---- row groups ---------------------------------------------------------- */

/* The ColumnIndex and OffsetIndex of each chunk of the row group being
 * written (chunks[0] of every column), kept for close; pos: where each
 * chunk's footer entry takes its references. */
static int index_row_group(inlay_writer *w, const size_t *pos)
{
    if (inl_buf_reserve(&w->index_refs, &w->alloc, (size_t)w->ncols * sizeof(index_ref))) return INLAY_ERR_NOMEM;
    for (int i = 0; i < w->ncols; i++) {
        const column *c = &w->cols[i];
        const chunk *k = c->chunks[0];
        const size_t npages = k->pg.len / sizeof(page_entry);
        const page_entry *pages = (const page_entry *)k->pg.data;
        index_ref r = { .pos = pos[i], .ci_at = w->col_index.len, .oi_at = w->off_index.len };
        if (c->statistics && k->ci_ok && npages) {
            int order = k->ascending ? BOUNDARY_ASCENDING : k->descending ? BOUNDARY_DESCENDING : BOUNDARY_UNORDERED;
            INL_FORWARD(inl_meta_column_index(&w->col_index, &w->alloc, pages, npages, k->pg_bounds.data, order,
                                          c->nhist ? (const int64_t *)k->pg_hist.data : NULL,
                                          c->leaf->max_def, c->leaf->max_rep));
            r.ci_len = (uint32_t)(w->col_index.len - r.ci_at);
        }
        if (npages) {
            INL_FORWARD(inl_meta_offset_index(&w->off_index, &w->alloc, pages, npages,
                                          w->tmp_meta[i].start + k->dict.len, c->statistics && c->type->physical == INLAY_BYTE_ARRAY));
            r.oi_len = (uint32_t)(w->off_index.len - r.oi_at);
        }
        memcpy(w->index_refs.data + w->index_refs.len, &r, sizeof r);
        w->index_refs.len += sizeof r;
        w->col_stats[i].column_index_bytes += r.ci_len;
        w->col_stats[i].offset_index_bytes += r.oi_len;
    }
    return 0;
}

/* At close: the page index after the row groups, and the footer's row
 * groups rebuilt with each chunk's references spliced in. */
static int write_page_index(inlay_writer *w)
{
    const size_t nrefs = w->index_refs.len / sizeof(index_ref);
    if (!nrefs) return 0;
    const uint64_t ci_base = w->bytes, oi_base = ci_base + w->col_index.len;
    buf *out = &w->footer;   /* free until the FileMetaData is made */
    out->len = 0;
    if (inl_buf_reserve(out, &w->alloc, w->footer_groups.len + nrefs * 24))
        return set_failed(w, INLAY_ERR_NOMEM, "page index");
    const index_ref *refs = (const index_ref *)w->index_refs.data;
    size_t from = 0;
    for (size_t i = 0; i < nrefs; i++) {
        if (inl_buf_append(out, &w->alloc, w->footer_groups.data + from, refs[i].pos - from) ||
            inl_meta_index_refs(out, &w->alloc, (int64_t)(ci_base + refs[i].ci_at), (int32_t)refs[i].ci_len,
                            (int64_t)(oi_base + refs[i].oi_at), (int32_t)refs[i].oi_len))
            return set_failed(w, INLAY_ERR_NOMEM, "page index");
        from = refs[i].pos;
    }
    if (inl_buf_append(out, &w->alloc, w->footer_groups.data + from, w->footer_groups.len - from))
        return set_failed(w, INLAY_ERR_NOMEM, "page index");
    buf t = w->footer_groups;
    w->footer_groups = *out;
    *out = t;
    int st = write_bytes(w, w->col_index.data, w->col_index.len);
    if (!st) st = write_bytes(w, w->off_index.data, w->off_index.len);
    return st;
}

static int emit_part(const inlay_writer *w, const buf *b, char *msg, size_t cap)
{
    if (!b->len) return 0;
    errno = 0;
    if (!w->sink.write(w->sink.ctx, b->data, b->len)) return 0;
    sink_reason(w, "writing to", errno, msg, cap);
    return INLAY_ERR_IO;
}

/* The bytes of the row group laid out in emit_chunks, to the sink in file
 * order: every chunk's dictionary page and data pages, then the bloom
 * filters. On a worker (emit_async) or the appending thread; 0, or
 * INLAY_ERR_IO with the sink's reason in msg. */
static int emit_row_group(void *ctx, char *msg, size_t cap)
{
    const inlay_writer *w = ctx;
    int st = 0;
    for (int i = 0; i < w->ncols && !st; i++)
        if (!(st = emit_part(w, &w->emit_chunks[i]->dict, msg, cap))) st = emit_part(w, &w->emit_chunks[i]->pages, msg, cap);
    for (int i = 0; i < w->ncols && !st; i++) st = emit_part(w, &w->emit_chunks[i]->bloom, msg, cap);
    return st;
}

/* The row group's chunks go back to their columns, spare. */
static void release_row_group(inlay_writer *w)
{
    /* Without workers the open chunk is idle here, every time. With them it
     * may or may not be, so a chunk handed the smaller buffer could have
     * to grow it long after a host's warm-up: no swap then. */
    for (int i = 0; i < w->ncols; i++) inl_column_pop(&w->cols[i], !w->workers);
    w->emitting = false;
    w->emit_pending = 0;
}

/* The oldest ended row group, every chunk finished: its place in the file
 * and its footer entry here; its bytes to the sink here, or with workers
 * and the library's own sink, on a worker while the appending thread goes
 * on (the chunks stay in their columns until release_row_group). */
static int write_row_group(inlay_writer *w)
{
    uint64_t rows = w->cols[0].chunks[0]->num_rows;
    uint64_t at = w->bytes;
    for (int i = 0; i < w->ncols; i++) {
        column *c = &w->cols[i];
        const chunk *k = c->chunks[0];
        chunk_meta *m = &w->tmp_meta[i];
        stats_bounds *b = &w->tmp_bounds[i];
        const bool has_bounds = inl_stats_bounds_of(&k->st, c->type->physical, b);
        if (has_bounds && c->type->physical == INLAY_BYTE_ARRAY && c->leaf->order == ORDER_BYTES &&
            inl_stats_truncate(b, w->env.truncate_length, inl_type_is_utf8(c->type), &c->rg_trunc, &w->alloc))
            return set_failed(w, INLAY_ERR_NOMEM, "column statistics");
        const size_t ndef = c->leaf->max_def > 0 ? (size_t)c->leaf->max_def + 1 : 0;
        const int64_t *hist = (const int64_t *)k->hist.data;
        *m = (chunk_meta){
            .leaf = c->leaf, .physical = c->type->physical, .codec = k->codec, .start = at, .dict_bytes = k->dict.len,
            .num_values = k->num_values, .raw_size = k->raw_size, .stored_size = k->stored_size,
            .page_counts = k->page_counts, .statistics = c->statistics,
            .st = { .null_count = (int64_t)k->st.null_count, .has_bounds = has_bounds, .min = b->min, .max = b->max,
                    .min_len = b->min_len, .max_len = b->max_len, .min_exact = b->min_exact, .max_exact = b->max_exact },
            .bloom_offset = -1,
            .unencoded_bytes = c->type->physical == INLAY_BYTE_ARRAY ? k->unencoded_bytes : -1,
            .def_hist = ndef ? hist : NULL, .rep_hist = c->leaf->max_rep > 0 ? hist + ndef : NULL,
        };
        at += k->dict.len + k->pages.len;
        w->emit_chunks[i] = c->chunks[0];
    }
    /* the row group's bloom filters follow its chunks */
    for (int i = 0; i < w->ncols; i++) {
        const chunk *k = w->cols[i].chunks[0];
        if (!k->bloom.len) continue;
        w->tmp_meta[i].bloom_offset = (int64_t)at;
        w->tmp_meta[i].bloom_length = (int32_t)k->bloom.len;
        at += k->bloom.len;
    }
    size_t *pos = w->env.page_index ? w->tmp_pos : NULL;
    int st = inl_meta_row_group(&w->footer_groups, &w->alloc, w->tmp_meta, w->ncols, rows, (int)w->row_groups,
                            w->env.page_version == 2 ? PAGE_DATA_V2 : PAGE_DATA, w->sorting, w->nsorting, pos);
    if (st) return set_failed(w, st, "row group metadata");
    if (pos && (st = index_row_group(w, pos))) return set_failed(w, st, "page index");
    /* The footer's list of row groups and the page index grow with every
     * one written; room for the next ROW_GROUPS_AHEAD taken with the first keeps a steady writer
     * (a host ending a row group every few seconds) from allocating for it
     * again until then. Grown, not reserved: that room is address space
     * until it is written (a reserve maps its pages ahead: alloc.h). */
    if (w->row_groups == 0 &&
        (inl_buf_grow(&w->footer_groups, &w->alloc, (ROW_GROUPS_AHEAD + 1) * w->footer_groups.len) ||
         inl_buf_grow(&w->col_index, &w->alloc, (ROW_GROUPS_AHEAD + 1) * w->col_index.len) ||
         inl_buf_grow(&w->off_index, &w->alloc, (ROW_GROUPS_AHEAD + 1) * w->off_index.len) ||
         inl_buf_grow(&w->index_refs, &w->alloc, (ROW_GROUPS_AHEAD + 1) * w->index_refs.len)))
        return set_failed(w, INLAY_ERR_NOMEM, "row group metadata");
    for (int i = 0; i < w->ncols; i++) {
        const chunk *k = w->cols[i].chunks[0];
        inlay_column_stats *cs = &w->col_stats[i];
        cs->uncompressed_bytes += k->raw_size;
        cs->compressed_bytes += k->stored_size;
        cs->chunks++;
        cs->chunks_uncompressed += k->codec != cs->compression;
        cs->bloom_filter_bytes += k->bloom.len;
    }
    w->rows += rows;
    w->row_groups++;
    w->emit_pending = at - w->bytes;
    w->bytes = at;
    if (w->emit_async) {
        w->emitting = true;
        inl_workers_emit(w->workers, emit_row_group, w);
        return 0;
    }
    char msg[sizeof w->err.msg];
    if (emit_row_group(w, msg, sizeof msg)) return sink_write_failed(w, msg);
    release_row_group(w);
    return 0;
}

static bool aligned(const inlay_writer *w)
{
    for (int i = 1; i < w->ncols; i++)
        if (w->cols[i].rows != w->cols[0].rows) return false;
    return true;
}

static int seal_all(inlay_writer *w)
{
    for (int i = 0; i < w->ncols; i++) {
        int st = inl_column_seal(&w->cols[i], &w->env);
        if (st) return set_failed(w, st, "ending a column chunk");
    }
    return 0;
}

/* With workers: whether the oldest ended row group is finished; with
 * wait, once it is (or a worker has failed). */
static int row_group_finished(inlay_writer *w, bool wait, bool *done)
{
    *done = true;
    for (int i = 0; i < w->ncols && *done; i++)
        *done = inl_workers_done(w->workers, w->cols[i].chunks[0], wait);
    return workers_failed(w);
}

/* Write the row groups every column has ended (and, with workers, whose
 * pages are finished). drain: wait for the workers to finish them all, the
 * sink's part included; otherwise wait only while more than
 * row_groups_in_flight are ended. */
static int write_ready(inlay_writer *w, bool drain)
{
    for (;;) {
        int ended = w->cols[0].nsealed;
        for (int i = 1; i < w->ncols; i++)
            if (w->cols[i].nsealed < ended) ended = w->cols[i].nsealed;
        if (w->emitting) {   /* the oldest is on its way to the sink */
            const bool done = inl_workers_emitted(w->workers, drain || ended > w->in_flight);
            INL_FORWARD(workers_failed(w));
            if (!done) return 0;
            release_row_group(w);
            continue;
        }
        if (ended == 0) return 0;
        if (w->workers) {
            bool done;
            INL_FORWARD(row_group_finished(w, drain || ended > w->in_flight, &done));
            if (!done) return 0;
        }
        INL_FORWARD(write_row_group(w));
    }
}

static int flush_ready(inlay_writer *w)
{
    if (aligned(w) && w->cols[0].chunks[w->cols[0].nsealed]->num_rows > 0) {
        size_t total = 0;
        for (int i = 0; i < w->ncols; i++) total += inl_column_buffered_bytes(&w->cols[i]);
        int st;
        if (total >= w->row_group_bytes && (st = seal_all(w))) return st;
    }
    return write_ready(w, false);
}

/* ---- appending ------------------------------------------------------------ */

/* Row number (0-based, in the column) of batch entry i, for messages. */
static uint64_t row_of(const column *c, const int16_t *rep, size_t entry)
{
    uint64_t r = c->rows;
    if (!rep) return r + entry;
    for (size_t i = 1; i <= entry; i++) r += rep[i] == 0;
    return r;
}

static int ready(inlay_writer *w, int col, inlay_physical phys, const char *fn)
{
    INL_FORWARD(usable(w));
    if (col < 0 || col >= w->ncols)
        return set_error(w, INLAY_ERR_COLUMN, "column %d does not exist (the schema has %d)",
                         col, w->ncols);
    const column *c = &w->cols[col];
    if (c->type->physical != phys) {
        char name[64];
        inl_type_name(c->type, name, sizeof name);
        return set_error(w, INLAY_ERR_TYPE, "column '%s' is %s: %s does not match", c->path, name, fn);
    }
    return 0;
}

/* Turn a validity bitmap into definition levels and dense values in the
 * writer's scratch buffers. */
static int from_validity(inlay_writer *w, column *c, const uint8_t *validity, const void *values,
                         size_t vsize, size_t count, const int16_t **def, const void **dense)
{
    if (c->leaf->max_rep > 0 || c->leaf->max_def > 1)
        return set_error(w, INLAY_ERR_ARGUMENT,
                         "column '%s': validity bitmaps are for flat columns; give levels", c->path);
    if (c->leaf->max_def == 0) {
        for (size_t i = 0; i < count; i++)
            if (!(validity[i >> 3] >> (i & 7) & 1))
                return set_value_error(w, INLAY_ERR_NULL, c, c->rows + i, "null in a required column");
        *def = NULL;
        *dense = values;
        return 0;
    }
    c->validity_defs.len = c->validity_vals.len = 0;
    if (inl_buf_reserve(&c->validity_defs, &w->alloc, count * 2) ||
        inl_buf_reserve(&c->validity_vals, &w->alloc, count * vsize))
        return set_failed(w, INLAY_ERR_NOMEM, "converting a validity bitmap");
    int16_t *d = (int16_t *)c->validity_defs.data;
    uint8_t *v = c->validity_vals.data;
    const uint8_t *src = values;
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        int present = validity[i >> 3] >> (i & 7) & 1;
        d[i] = (int16_t)present;
        if (present) memcpy(v + vsize * n++, src + vsize * i, vsize);
    }
    *def = d;
    *dense = v;
    return 0;
}

/* Check a batch whole; nothing is buffered yet. */
static int prepare(inlay_writer *w, int col, const void *values, size_t count,
                   const inlay_levels *lv, bool prechecked, prepared *p)
{
    column *c = &w->cols[col];
    const int16_t *def = lv ? lv->def : NULL, *rep = lv ? lv->rep : NULL;
    int st;
    p->c = c;
    p->count = count;
    p->staged = false;
    if (!count) {
        p->values = NULL;
        p->def = p->rep = NULL;
        return 0;
    }
    if (lv && lv->validity) {
        if (def)
            return set_error(w, INLAY_ERR_ARGUMENT,
                             "column '%s': give def levels or a validity bitmap, not both", c->path);
        if ((st = from_validity(w, c, lv->validity, values, c->value_size, count, &def, &values)))
            return st;
    }
    inl_err ce;
    if ((st = inl_validate_levels(c, def, rep, count, &ce)))
        return set_value_error(w, st, c, row_of(c, rep, (size_t)ce.row), "%s", ce.msg);
    size_t nvalues = count;
    if (def) {
        nvalues = 0;
        for (size_t i = 0; i < count; i++) nvalues += def[i] == c->leaf->max_def;
    }
    if (nvalues && !values)
        return set_error(w, INLAY_ERR_ARGUMENT, "column '%s': %zu values expected, got NULL",
                         c->path, nvalues);
    /* byte arrays bound for the dictionary are looked up as they are checked */
    size_t staged = 0;
    const size_t stageable = w->checking ? 0 : inl_column_stageable(c, &w->env, count, nvalues, def, rep);
    if (stageable) {
        st = inl_validate_stage_bytes(c, &w->env, values, stageable, prechecked, &ce, &staged);
        if (st == INLAY_ERR_NOMEM) return set_failed(w, st, c->path);
        p->staged = staged > 0;
    }
    if (!st) {
        const void *rest = staged ? (const uint8_t *)values + staged * c->value_size : values;
        st = prechecked ? inl_validate_values_prechecked(c, rest, nvalues - staged, &ce)
                        : inl_validate_values(c, rest, nvalues - staged, &ce);
        if (st) {
            ce.row += (int64_t)staged;
            if (p->staged) inl_column_unstage(c);
            p->staged = false;
        }
    }
    if (st) {
        size_t entry = (size_t)ce.row;
        if (def) {   /* value index -> batch entry */
            size_t seen = 0;
            for (entry = 0; entry < count; entry++)
                if (def[entry] == c->leaf->max_def && seen++ == (size_t)ce.row) break;
        }
        return set_value_error(w, st, c, row_of(c, rep, entry), "%s", ce.msg);
    }
    p->values = values;
    p->def = def;
    p->rep = rep;
    return 0;
}

/* The declared sort order over the n checked batches, before any of them
 * is buffered: a row out of order refuses them all. */
static int check_order(inlay_writer *w, const prepared *p, int n)
{
    if (!w->nsorting) return 0;
    bool staged = false;
    size_t rows = 0;
    for (int i = 0; i < n; i++) {
        int key = inl_sortcheck_key_of(&w->order, (int)(p[i].c - w->cols));
        if (key < 0 || !p[i].count) continue;
        if (inl_sortcheck_stage(&w->order, key, p[i].values, p[i].def, p[i].count)) {
            inl_sortcheck_rollback(&w->order);
            return set_failed(w, INLAY_ERR_NOMEM, "the sort order's check");
        }
        staged = true;
        rows = p[i].count;   /* keys are flat: one entry per row */
    }
    if (!staged) return 0;
    uint64_t row;
    int key;
    if (inl_sortcheck_verify(&w->order, &row, &key)) {
        inl_sortcheck_commit(&w->order);
        if (w->checking) w->checked_rows += rows;
        return 0;
    }
    inl_sortcheck_rollback(&w->order);
    if (w->checking) row -= w->checked_rows;   /* counted as the checker's other messages are */
    const sorting_column *k = &w->sorting[key];
    return set_value_error(w, INLAY_ERR_VALUE, &w->cols[k->leaf], row,
                           "out of the declared sort order (%s, nulls %s)",
                           k->descending ? "descending" : "ascending", k->nulls_first ? "first" : "last");
}

static int commit(inlay_writer *w, const prepared *p)
{
    if (!p->count) return 0;
    int st = inl_column_append(p->c, &w->env, p->values, p->count, p->def, p->rep);
    return st ? set_failed(w, st, p->c->path) : 0;
}

/* Batches checked but refused after all: their staged values leave the
 * dictionaries. */
static void unstage(const prepared *p, int n)
{
    for (int i = 0; i < n; i++)
        if (p[i].staged) inl_column_unstage(p[i].c);
}

static int append(inlay_writer *w, int col, inlay_physical phys, const char *fn,
                  const void *values, size_t count, const inlay_levels *lv)
{
    if (!w) return INLAY_ERR_ARGUMENT;
    INL_FORWARD(ready(w, col, phys, fn));
    prepared p;
    INL_FORWARD(prepare(w, col, values, count, lv, false, &p));
    int st = check_order(w, &p, 1);
    if (st) {
        unstage(&p, 1);
        return st;
    }
    INL_FORWARD(commit(w, &p));
    return flush_ready(w);
}

int inlay_writer_append_time(inlay_writer *w, int col, const int64_t *values, size_t count,
                             inlay_unit unit, const inlay_levels *lv)
{
    if (!w) return INLAY_ERR_ARGUMENT;
    if ((unsigned)unit > INLAY_UNIT_NANOS)
        return set_error(w, INLAY_ERR_ARGUMENT, "unknown time unit %d", (int)unit);
    inlay_physical phys = col >= 0 && col < w->ncols ? w->cols[col].type->physical : INLAY_INT64;
    INL_FORWARD(ready(w, col, phys, "append_time"));
    column *c = &w->cols[col];
    const inlay_type *t = c->type;
    inlay_unit to;
    if (t->logical == INLAY_LOGICAL_DATE) to = INLAY_UNIT_DAYS;
    else if (t->logical == INLAY_LOGICAL_TIME || t->logical == INLAY_LOGICAL_TIMESTAMP)
        to = (inlay_unit)(INLAY_UNIT_MILLIS + (int)t->unit);
    else
        return set_error(w, INLAY_ERR_TYPE, "column '%s' is not a DATE, TIME or TIMESTAMP column",
                         c->path);
    /* values are dense with def levels, spaced with a validity bitmap */
    const int16_t *def = lv ? lv->def : NULL;
    const uint8_t *validity = lv ? lv->validity : NULL;
    size_t n = count;
    if (def && !validity) {
        n = 0;
        for (size_t i = 0; i < count; i++) n += def[i] == c->leaf->max_def;
    }
    if (n && !values)
        return set_error(w, INLAY_ERR_ARGUMENT, "column '%s': %zu values expected, got NULL", c->path, n);
    const bool narrow = phys == INLAY_INT32;
    /* converted straight into the page when it takes the batch whole;
     * nothing there counts until the append takes it */
    void *dst = validity ? NULL : inl_column_value_room(c, &w->env, count, n, lv ? lv->rep : NULL);
    if (!dst) {
        w->converted.len = 0;
        if (inl_buf_reserve(&w->converted, &w->alloc, n * 8))
            return set_failed(w, INLAY_ERR_NOMEM, "converting time values");
        dst = w->converted.data;
    }
    size_t bad = inl_timeconv_run(dst, narrow, values, n, unit, to, validity);
    if (bad < n) {
        size_t entry = bad;
        if (def && !validity) {
            size_t seen = 0;
            for (entry = 0; entry < count; entry++)
                if (def[entry] == c->leaf->max_def && seen++ == bad) break;
        }
        return set_value_error(w, INLAY_ERR_VALUE, c, row_of(c, lv ? lv->rep : NULL, entry),
                               "%lld does not fit the column after conversion", (long long)values[bad]);
    }
    return append(w, col, phys, "append_time", dst, count, lv);
}

/* Every batch checked, then every batch buffered (unless w->checking).
 * prechecked (NULL: none) says which batches' values need fewer checks
 * (validate.h); all_prechecked, all of them. */
static int append_batches(inlay_writer *w, const inlay_column_batch *batches, int n, const bool *prechecked,
                          bool all_prechecked)
{
    int st;
    for (int i = 0; i < n; i++) {
        int col = batches[i].column;
        inlay_physical phys = col >= 0 && col < w->ncols ? w->cols[col].type->physical : INLAY_BOOLEAN;
        INL_FORWARD(ready(w, col, phys, "append_columns"));
        for (int j = 0; j < i; j++)
            if (batches[j].column == col)
                return set_error(w, INLAY_ERR_ARGUMENT, "column '%s' appears twice in one call",
                                 w->cols[col].path);
    }
    if (n > w->ncols) return set_error(w, INLAY_ERR_ARGUMENT, "more batches than columns");
    prepared *p = w->prepared;
    for (int i = 0; i < n; i++)
        if ((st = prepare(w, batches[i].column, batches[i].values, batches[i].count,
                          &batches[i].levels, all_prechecked || (prechecked && prechecked[i]), &p[i]))) {
            unstage(p, i);
            return st;
        }
    if ((st = check_order(w, p, n))) {
        unstage(p, n);
        return st;
    }
    if (w->checking) return 0;
    for (int i = 0; i < n; i++)
        INL_FORWARD(commit(w, &p[i]));
    return flush_ready(w);
}

int inl_writer_check_columns(inlay_writer *w, const inlay_column_batch *batches, int n)
{
    w->checking = true;
    int st = append_batches(w, batches, n, NULL, false);
    w->checking = false;
    return st;
}

int inl_writer_trim(inlay_writer *w)
{
    INL_FORWARD(usable(w));
    if (w->workers) return 0;
    for (int i = 0; i < w->ncols; i++) {
        const int st = inl_column_trim(&w->cols[i], &w->env);
        if (st) return set_failed(w, st, w->cols[i].path);
    }
    page_work *pw = &w->env.work;
    for (int i = 0; i < w->ncomps; i++) inl_compress_release(&pw->comps[i]);
    buf *scratch[] = { &pw->scratch.raw, &pw->scratch.packed, &pw->levels, &pw->encoded, &pw->trial, &pw->views };
    for (size_t i = 0; i < sizeof scratch / sizeof *scratch; i++) inl_buf_free(scratch[i], &w->alloc);
    return 0;
}

int inl_writer_append_checked(inlay_writer *w, const inlay_column_batch *batches, int n)
{
    return append_batches(w, batches, n, NULL, true);
}

int inlay_writer_append_columns(inlay_writer *w, const inlay_column_batch *batches, int n)
{
    if (!w || (n && !batches) || n < 0) return INLAY_ERR_ARGUMENT;
    return append_batches(w, batches, n, NULL, false);
}

/* A record batch: arrow.c reads and checks it into one batch per column
 * (nothing buffered), then they go in together as append_columns'. */
int inlay_writer_append_arrow(inlay_writer *w, const struct ArrowArray *array, const struct ArrowSchema *schema)
{
    if (!w) return INLAY_ERR_ARGUMENT;
    INL_FORWARD(usable(w));
    if (!array || !schema) return set_error(w, INLAY_ERR_ARGUMENT, "no Arrow array or schema");
    arrow_batches b;
    int st = inl_arrow_stage(&w->arrow, &w->alloc, w->schema, w->cols, 0, array, schema, &w->err, &b);
    if (st == INLAY_ERR_NOMEM) return set_failed(w, st, "reading an Arrow record batch");
    if (st) return st;
    return append_batches(w, b.batches, b.n, b.checked, false);
}

int inlay_writer_append_array(inlay_writer *w, int field, const inlay_array *a, size_t rows)
{
    if (!w || !a) return INLAY_ERR_ARGUMENT;
    INL_FORWARD(usable(w));
    const inlay_schema *s = w->schema;
    int node = field >= 0 ? s->nodes[0].first_child : -1;
    for (int k = 0; node >= 0 && k < field; k++) node = s->nodes[node].next_sibling;
    if (node < 0) return set_error(w, INLAY_ERR_COLUMN, "field %d does not exist", field);
    int first, n;
    int st = inl_shred_field(&w->shred, s, node, a, rows, &first, &n);
    if (st && st != INLAY_ERR_NOMEM && w->shred.err_leaf >= 0) {   /* the row counted as the other appends do */
        const column *c = &w->cols[w->shred.err_leaf];
        return inl_err_at(&w->err, st, "field", c->path, w->shred.err_leaf, c->rows + w->shred.err_row, "%s",
                          w->shred.err.msg + w->shred.err.reason_at);
    }
    /* out of memory fails the writer, as everywhere: sticky, nothing published */
    if (st == INLAY_ERR_NOMEM)
        return set_failed(w, st, w->shred.err_leaf >= 0 ? w->cols[w->shred.err_leaf].path : "append_array");
    if (st) return set_error(w, st, "%s", w->shred.err.msg);
    w->nested_batches.len = 0;
    if (inl_buf_reserve(&w->nested_batches, &w->alloc, (size_t)n * sizeof(inlay_column_batch)))
        return set_failed(w, INLAY_ERR_NOMEM, "append_array");
    inlay_column_batch *b = (inlay_column_batch *)w->nested_batches.data;
    inl_shred_batches(&w->shred, s, first, n, b);
    return inlay_writer_append_columns(w, b, n);
}

int inlay_writer_append_bool(inlay_writer *w, int col, const bool *values, size_t count,
                             const inlay_levels *levels)
{
    return append(w, col, INLAY_BOOLEAN, "append_bool", values, count, levels);
}

int inlay_writer_append_i32(inlay_writer *w, int col, const int32_t *values, size_t count,
                            const inlay_levels *levels)
{
    return append(w, col, INLAY_INT32, "append_i32", values, count, levels);
}

int inlay_writer_append_i64(inlay_writer *w, int col, const int64_t *values, size_t count,
                            const inlay_levels *levels)
{
    return append(w, col, INLAY_INT64, "append_i64", values, count, levels);
}

int inlay_writer_append_float(inlay_writer *w, int col, const float *values, size_t count,
                              const inlay_levels *levels)
{
    return append(w, col, INLAY_FLOAT, "append_float", values, count, levels);
}

int inlay_writer_append_double(inlay_writer *w, int col, const double *values, size_t count,
                               const inlay_levels *levels)
{
    return append(w, col, INLAY_DOUBLE, "append_double", values, count, levels);
}

int inlay_writer_append_bytes(inlay_writer *w, int col, const inlay_bytes *values, size_t count,
                              const inlay_levels *levels)
{
    if (!w) return INLAY_ERR_ARGUMENT;
    /* both byte-array kinds take inlay_bytes */
    inlay_physical p = INLAY_BYTE_ARRAY;
    if (col >= 0 && col < w->ncols && w->cols[col].type->physical == INLAY_FIXED_LEN_BYTE_ARRAY)
        p = INLAY_FIXED_LEN_BYTE_ARRAY;
    return append(w, col, p, "append_bytes", values, count, levels);
}

/* ---- closing --------------------------------------------------------------- */

static void stop_workers(inlay_writer *w);

/* An open writer whose columns all end at the same row: where a row group
 * (or the file) can end. */
static int at_row_boundary(inlay_writer *w)
{
    INL_FORWARD(usable(w));
    for (int i = 1; i < w->ncols; i++)
        if (w->cols[i].rows != w->cols[0].rows)
            return set_error(w, INLAY_ERR_STATE, "column '%s' has %llu rows but column '%s' has %llu",
                             w->cols[0].path, (unsigned long long)w->cols[0].rows, w->cols[i].path,
                             (unsigned long long)w->cols[i].rows);
    return 0;
}

/* End the open chunks, if they hold rows, and write every row group that
 * is complete. */
static int end_row_group(inlay_writer *w)
{
    if (w->cols[0].chunks[w->cols[0].nsealed]->num_rows > 0) INL_FORWARD(seal_all(w));
    return write_ready(w, true);   /* written, as the host asked, when this returns */
}

int inlay_writer_flush_row_group(inlay_writer *w)
{
    if (!w) return INLAY_ERR_ARGUMENT;
    INL_FORWARD(at_row_boundary(w));
    return end_row_group(w);
}

void inlay_writer_get_stats(const inlay_writer *w, inlay_writer_stats *st)
{
    memset(st, 0, sizeof *st);
    if (!w) return;
    st->rows = inlay_writer_rows(w);
    st->row_groups = w->row_groups;
    st->bytes_written = w->bytes - w->emit_pending;
    if (w->state != W_OPEN) return;
    st->rows_buffered = st->rows - w->rows;   /* w->rows: the rows of the row groups written */
    for (int i = 0; i < w->ncols; i++) {
        const column *c = &w->cols[i];
        st->bytes_buffered += inl_column_buffered_bytes(c);
        for (int k = 0; k < c->nsealed; k++) st->bytes_buffered += c->chunks[k]->cut_bytes;
    }
}

int inlay_writer_close(inlay_writer *w)
{
    if (!w) return INLAY_ERR_ARGUMENT;
    INL_FORWARD(at_row_boundary(w));
    INL_FORWARD(end_row_group(w));
    int st;
    if ((st = write_page_index(w))) return st;
    w->footer.len = 0;
    if ((st = inl_meta_file(&w->footer, &w->alloc, w->schema, w->rows, &w->footer_groups,
                        (uint32_t)w->row_groups, w->kv, w->nkv)))
        return set_failed(w, st, "file metadata");
    uint8_t tail[8];
    inl_put_u32le(tail, (uint32_t)w->footer.len);
    memcpy(tail + 4, "PAR1", 4);
    if ((st = write_bytes(w, w->footer.data, w->footer.len)) || (st = write_bytes(w, tail, 8)))
        return st;
    errno = 0;
    if (w->sink.finish && w->sink.finish(w->sink.ctx)) {
        const int e = errno;
        w->state = W_ABORTED;   /* the sink has given up the file itself */
        sink_failed(w, "finishing", e);
        if (w->sink_kind == SINK_FILE) inl_file_sink_release(&w->file);
        return INLAY_ERR_IO;
    }
    if (w->sink_kind == SINK_FILE) inl_file_sink_release(&w->file);
    w->state = W_CLOSED;
    stop_workers(w);
    return 0;
}

/* Queued pages are dropped, running ones waited for. */
static void stop_workers(inlay_writer *w)
{
    inl_workers_stop(w->workers);
    w->workers = NULL;
    w->env.submit = NULL;
}

void inlay_writer_abort(inlay_writer *w)
{
    if (!w || w->state == W_CLOSED || w->state == W_ABORTED) {
        if (w && w->state == W_ABORTED && w->sink_kind == SINK_FILE) inl_file_sink_release(&w->file);
        return;
    }
    stop_workers(w);
    if (w->sink.abort) w->sink.abort(w->sink.ctx);
    if (w->sink_kind == SINK_FILE) inl_file_sink_release(&w->file);
    w->state = W_ABORTED;
}

void inlay_writer_free(inlay_writer *w)
{
    if (!w) return;
    inlay_writer_abort(w);
    stop_workers(w);
    inlay_allocator a = w->alloc;
    for (int i = 0; i < w->ncols; i++) inl_column_free(&w->cols[i], &w->env);
    if (w->cols) inl_mem_free(&a, w->cols, (size_t)w->schema->num_leaves * sizeof *w->cols);
    if (w->tmp_meta) inl_mem_free(&a, w->tmp_meta, (size_t)w->schema->num_leaves * sizeof *w->tmp_meta);
    if (w->prepared) inl_mem_free(&a, w->prepared, (size_t)w->schema->num_leaves * sizeof *w->prepared);
    if (w->tmp_bounds) inl_mem_free(&a, w->tmp_bounds, (size_t)w->schema->num_leaves * sizeof *w->tmp_bounds);
    if (w->env.work.comps) {   /* all num_leaves of them, ncomps made */
        for (int i = 0; i < w->ncomps; i++) inl_compress_free(&w->env.work.comps[i]);
        inl_mem_free(&a, w->env.work.comps, (size_t)w->schema->num_leaves * sizeof *w->env.work.comps);
        w->env.work.comps = NULL;
    }
    inl_page_work_free(&w->env.work, &a, 0);
    if (w->col_stats) inl_mem_free(&a, w->col_stats, (size_t)w->schema->num_leaves * sizeof *w->col_stats);
    inl_buf_free(&w->footer_groups, &a);
    inl_buf_free(&w->col_index, &a);
    inl_buf_free(&w->off_index, &a);
    inl_buf_free(&w->index_refs, &a);
    if (w->sorting) inl_mem_free(&a, w->sorting, w->sorting_cap * sizeof *w->sorting);
    inl_sortcheck_free(&w->order);
    if (w->tmp_pos) inl_mem_free(&a, w->tmp_pos, (size_t)w->schema->num_leaves * sizeof *w->tmp_pos);
    if (w->emit_chunks) inl_mem_free(&a, w->emit_chunks, (size_t)w->schema->num_leaves * sizeof *w->emit_chunks);
    inl_buf_free(&w->footer, &a);
    inl_buf_free(&w->converted, &a);
    if (w->shred.alloc) inl_shred_free(&w->shred);
    inl_buf_free(&w->nested_batches, &a);
    inl_arrow_free(w->arrow);
    for (size_t i = 0; i < w->nkv; i++) {
        inl_mem_strfree(&a, (char *)w->kv[i].key);
        inl_mem_strfree(&a, (char *)w->kv[i].value);
    }
    if (w->kv) inl_mem_free(&a, w->kv, w->nkv * sizeof *w->kv);
    inlay_schema_free(w->schema);
    if (w->locked_on) inl_mem_locked_destroy(&w->locked);
    inlay_allocator host = w->host_alloc;
    inl_mem_free(&host, w, sizeof *w);
}
