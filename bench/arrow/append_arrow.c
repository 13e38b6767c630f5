/*
 * bench_arrow — what appending Arrow record batches costs next to the
 * native arrays.
 *
 * The table of bench_write_table (bench/write_table/write_table.c), N rows:
 *
 *     id        INT64                    sequential from 0
 *     ts        TIMESTAMP(MICROS, UTC)   increasing by a random step of 0..1023 us
 *     category  STRING                   one of 100 values of 8..32 bytes, at random
 *     value     DOUBLE                   uniform in [0, 1000)
 *     flag      BOOLEAN                  random
 *
 * all required, the same rows written five ways per repeat, with the
 * library's default options (zstd level 3), into a sink that only hashes
 * the bytes:
 *
 *   native        inlay_writer_append_columns per batch: int64, int64,
 *                 inlay_bytes, double and bool arrays; the category's
 *                 inlay_bytes point at the bytes the Arrow batch holds (the
 *                 strings laid end to end), as a host holding that column
 *                 would point them;
 *   arrow         inlay_writer_append_arrow per batch: a record batch ("+s")
 *                 of "l", "tsu:UTC", "u" (int32 offsets and those bytes),
 *                 "g" and "b" (bit-packed), as an Arrow producer hands it;
 *   native/dict   the native arrays with the category's inlay_bytes pointing
 *                 into a dictionary of the 100 strings (end to end), one
 *                 address per value;
 *   arrow/dict    the record batch with the category dictionary-encoded:
 *                 "c" indices into that dictionary, as a "u" array;
 *   native/table  the native arrays with the category's inlay_bytes pointing
 *                 at the 100 strings of bench_write_table's table (one per
 *                 32 bytes), as bench_write_table has them.
 *
 * Both sides of a comparison start from the same generated columns and the
 * same memory: each batch (65,536 rows by default) is generated once per
 * run, then its native arrays and its Arrow buffers are built from it (the
 * int64 and double columns are the same memory in both; the Arrow structs
 * are built once per batch shape and point at the buffers). Only the append
 * calls and the close are timed, per batch, so neither generation nor
 * building counts; the runs alternate and the median of --repeat runs of
 * each path is reported, with the ratios arrow / native and arrow/dict /
 * native/dict (what reading the Arrow buffers costs), and, for reference,
 * both against native/table. All the files must be byte for byte the same
 * (the sinks' hashes and sizes are compared).
 *
 * The library allocates through a counting allocator (inlay_options.alloc)
 * per run: calls, bytes, peak, bytes live after inlay_writer_free, and the
 * calls made from the 4th batch on (the steady state). With
 * bench/common/malloc_count.c preloaded, the malloc family calls of each
 * run that did not come through that allocator are counted too.
 *
 * The last line of output is a machine-readable "RESULT key=value ..." line.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlay.h"

#define BENCH_NAME "bench_arrow"
#include "bench_util.h"

/*----------------------------------------------------------------------
 *  The data (as bench_write_table generates it)
 *--------------------------------------------------------------------*/

#define NUM_CATEGORIES 100
#define CATEGORY_MIN 8
#define CATEGORY_MAX 32
#define TS_START 1704067200000000LL /* 2024-01-01T00:00:00Z in microseconds */

static inline uint32_t below(uint32_t x32, uint32_t n)
{
    return (uint32_t)(((uint64_t)x32 * n) >> 32);
}

static char category_text[NUM_CATEGORIES][CATEGORY_MAX];
static inlay_bytes categories[NUM_CATEGORIES];

/* The dictionary of the 100 strings, the same for every batch. */
static int32_t dict_offsets[NUM_CATEGORIES + 1];
static char dict_text[NUM_CATEGORIES * CATEGORY_MAX];
static const void *dict_values_buffers[3] = { NULL, dict_offsets, dict_text };
static struct ArrowArray dict_values = { .length = NUM_CATEGORIES, .n_buffers = 3, .buffers = dict_values_buffers };

static void make_categories(void)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789_-";
    rng r;
    rng_seed(&r, 0xca7e60e1u);
    for (int i = 0; i < NUM_CATEGORIES; i++) {
        size_t len = CATEGORY_MIN + below((uint32_t)rng_next(&r), CATEGORY_MAX - CATEGORY_MIN + 1);
        int p = snprintf(category_text[i], CATEGORY_MAX, "c%02d_", i);
        for (size_t j = (size_t)p; j < len; j++)
            category_text[i][j] = alphabet[below((uint32_t)rng_next(&r), sizeof alphabet - 1)];
        categories[i].data = category_text[i];
        categories[i].len = len;
    }
    int32_t at = 0;
    for (int i = 0; i < NUM_CATEGORIES; i++) {
        dict_offsets[i] = at;
        memcpy(dict_text + at, categories[i].data, categories[i].len);
        at += (int32_t)categories[i].len;
    }
    dict_offsets[NUM_CATEGORIES] = at;
}

/* One batch: the generated columns, the native arrays and the Arrow
 * buffers and structs built from them. */
typedef struct batch {
    size_t cap, n;
    /* generated, and the native arrays (id, ts, value shared with Arrow) */
    int64_t *id, *ts;
    uint8_t *cat;       /* category index per row */
    double *value;
    bool *flag;
    inlay_bytes *category, *in_dict, *in_table;
    inlay_column_batch native[5], native_dict[5], native_table[5];
    /* Arrow: the category strings' offsets and bytes, the flags' bits */
    int32_t *offsets;
    char *text;
    uint8_t *bits;
    const void *buffers[5][3];
    struct ArrowArray columns[5];
    struct ArrowArray *column_ptrs[5];
    const void *batch_buffers[1];
    struct ArrowArray array;
    /* the same with the category dictionary-encoded */
    const void *dict_buffers[2];
    struct ArrowArray dict_column;
    struct ArrowArray *dict_ptrs[5];
    struct ArrowArray dict_array;
} batch;


typedef struct gen {
    rng r;
    int64_t next_id, ts;
} gen;

static void gen_init(gen *g, uint64_t seed)
{
    rng_seed(&g->r, seed);
    g->next_id = 0;
    g->ts = TS_START;
}

/* The next n rows: generated, then laid out both ways. */
static void gen_fill(gen *g, batch *b, size_t n)
{
    int64_t id = g->next_id, ts = g->ts;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = rng_next(&g->r);
        uint64_t y = rng_next(&g->r);
        ts += (int64_t)(x & 1023);
        b->id[i] = id++;
        b->ts[i] = ts;
        b->cat[i] = (uint8_t)below((uint32_t)(x >> 32), NUM_CATEGORIES);
        b->value[i] = (double)(y >> 11) * 0x1.0p-53 * 1000.0;
        b->flag[i] = (x >> 10) & 1;
    }
    g->next_id = id;
    g->ts = ts;
    b->n = n;
    /* Arrow: the strings end to end */
    int32_t at = 0;
    for (size_t i = 0; i < n; i++) {
        const inlay_bytes *c = &categories[b->cat[i]];
        b->offsets[i] = at;
        memcpy(b->text + at, c->data, c->len);
        at += (int32_t)c->len;
    }
    b->offsets[n] = at;
    memset(b->bits, 0, (n + 7) / 8);
    for (size_t i = 0; i < n; i++) b->bits[i / 8] |= (uint8_t)(b->flag[i] << (i % 8));
    b->array.length = b->dict_array.length = b->dict_column.length = (int64_t)n;
    for (int c = 0; c < 5; c++) b->columns[c].length = (int64_t)n;
    /* native: the category's bytes where the Arrow batch has them, in the
     * dictionary, or in the table */
    for (size_t i = 0; i < n; i++) {
        const int k = b->cat[i];
        b->category[i].data = b->text + b->offsets[i];
        b->category[i].len = (size_t)(b->offsets[i + 1] - b->offsets[i]);
        b->in_dict[i].data = dict_text + dict_offsets[k];
        b->in_dict[i].len = (size_t)(dict_offsets[k + 1] - dict_offsets[k]);
        b->in_table[i] = categories[k];
    }
    const void *vals[5] = { b->id, b->ts, b->category, b->value, b->flag };
    for (int c = 0; c < 5; c++) {
        b->native[c].column = c;
        b->native[c].values = vals[c];
        b->native[c].count = n;
        memset(&b->native[c].levels, 0, sizeof b->native[c].levels);
        b->native_dict[c] = b->native_table[c] = b->native[c];
    }
    b->native_dict[2].values = b->in_dict;
    b->native_table[2].values = b->in_table;
}

static void batch_init(batch *b, size_t cap)
{
    memset(b, 0, sizeof *b);
    b->cap = cap;
    b->id = xmalloc(cap * sizeof *b->id);
    b->ts = xmalloc(cap * sizeof *b->ts);
    b->cat = xmalloc(cap);
    b->value = xmalloc(cap * sizeof *b->value);
    b->flag = xmalloc(cap * sizeof *b->flag);
    b->category = xmalloc(cap * sizeof *b->category);
    b->in_dict = xmalloc(cap * sizeof *b->in_dict);
    b->in_table = xmalloc(cap * sizeof *b->in_table);
    b->offsets = xmalloc((cap + 1) * sizeof *b->offsets);
    b->text = xmalloc(cap * CATEGORY_MAX);
    b->bits = xmalloc(cap / 8 + 1);
    /* the structs of the batch's shape, once: they point at the buffers */
    const void *data[5] = { b->id, b->ts, b->offsets, b->value, b->bits };
    for (int c = 0; c < 5; c++) {
        struct ArrowArray *a = &b->columns[c];
        b->buffers[c][0] = NULL;   /* no nulls: no validity bitmap */
        b->buffers[c][1] = data[c];
        b->buffers[c][2] = b->text;
        a->n_buffers = c == 2 ? 3 : 2;
        a->buffers = b->buffers[c];
        b->column_ptrs[c] = a;
    }
    b->batch_buffers[0] = NULL;
    b->array.n_buffers = 1;
    b->array.buffers = b->batch_buffers;
    b->array.n_children = 5;
    b->array.children = b->column_ptrs;
    /* dictionary-encoded: int8 indices (the generated category numbers) */
    b->dict_buffers[0] = NULL;
    b->dict_buffers[1] = b->cat;
    b->dict_column.n_buffers = 2;
    b->dict_column.buffers = b->dict_buffers;
    b->dict_column.dictionary = &dict_values;
    memcpy(b->dict_ptrs, b->column_ptrs, sizeof b->dict_ptrs);
    b->dict_ptrs[2] = &b->dict_column;
    b->dict_array = b->array;
    b->dict_array.children = b->dict_ptrs;
}

static void batch_free(batch *b)
{
    free(b->id);
    free(b->ts);
    free(b->cat);
    free(b->value);
    free(b->flag);
    free(b->category);
    free(b->in_dict);
    free(b->in_table);
    free(b->offsets);
    free(b->text);
    free(b->bits);
}

/* The record batch's schema. */
static struct ArrowSchema field_schemas[5] = {
    { .format = "l", .name = "id" },
    { .format = "tsu:UTC", .name = "ts" },
    { .format = "u", .name = "category" },
    { .format = "g", .name = "value" },
    { .format = "b", .name = "flag" },
};
static struct ArrowSchema *field_ptrs[5] = { &field_schemas[0], &field_schemas[1], &field_schemas[2],
                                             &field_schemas[3], &field_schemas[4] };
static struct ArrowSchema batch_schema = { .format = "+s", .name = "", .n_children = 5, .children = field_ptrs };

/* The same with the category dictionary-encoded. */
static struct ArrowSchema dict_value_schema = { .format = "u" };
static struct ArrowSchema dict_field = { .format = "c", .name = "category", .dictionary = &dict_value_schema };
static struct ArrowSchema *dict_field_ptrs[5] = { &field_schemas[0], &field_schemas[1], &dict_field, &field_schemas[3],
                                                  &field_schemas[4] };
static struct ArrowSchema dict_schema = { .format = "+s", .name = "", .n_children = 5, .children = dict_field_ptrs };

enum path { NATIVE, ARROW, NATIVE_DICT, ARROW_DICT, NATIVE_TABLE, PATHS };
static const char *const path_names[PATHS] = { "native", "arrow", "native/dict", "arrow/dict", "native/table" };

/*----------------------------------------------------------------------
 *  A sink that hashes what it is given
 *--------------------------------------------------------------------*/

typedef struct hash_sink {
    uint64_t h, bytes;
} hash_sink;

static int hash_write(void *ctx, const void *data, size_t len)
{
    hash_sink *s = ctx;
    const uint8_t *p = data;
    uint64_t h = s->h;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
    }
    for (; i < len; i++) h = (h ^ p[i]) * 0x100000001B3ull;
    s->h = h;
    s->bytes += len;
    return 0;
}

static int hash_finish(void *ctx)
{
    (void)ctx;
    return 0;
}

/*----------------------------------------------------------------------
 *  One run
 *--------------------------------------------------------------------*/

typedef struct run_result {
    double seconds;          /* the append calls and the close */
    uint64_t out_bytes, hash, row_groups;
    counting alloc;
    uint64_t steady_calls;   /* allocator calls from the 4th batch on, close excluded */
    uint64_t steady_batches;
    int64_t live_after;
    int64_t bypass;          /* malloc family calls not made by the allocator (interposer loaded), else -1 */
} run_result;

#define CHECK(call)                                                                                      \
    do {                                                                                                 \
        int st_ = (call);                                                                                \
        if (st_ != INLAY_OK) {                                                                           \
            fprintf(stderr, BENCH_NAME ": %s failed: %s: %s\n", #call, inlay_strerror(st_),              \
                    w ? inlay_writer_errmsg(w) : "");                                                    \
            exit(1);                                                                                     \
        }                                                                                                \
    } while (0)

static void run_once(enum path path, const inlay_schema *schema, uint64_t rows, batch *b, uint64_t seed,
                     run_result *res)
{
    counting cnt;
    memset(&cnt, 0, sizeof cnt);
    inlay_options opt;
    inlay_options_init(&opt);
    opt.alloc.fn = counting_alloc;
    opt.alloc.ud = &cnt;
    hash_sink hs = { 0xcbf29ce484222325ull, 0 };
    inlay_sink sink = { hash_write, hash_finish, NULL, &hs };
    inlay_writer *w = NULL;
    uint64_t mc0[5] = { 0 }, mc1[5] = { 0 };
    if (mc_arm) {
        mc_get(mc0);
        mc_arm(1);
    }
    CHECK(inlay_writer_open(&w, sink, schema, &opt));
    gen g;
    gen_init(&g, seed);
    double t = 0;
    uint64_t nbatch = 0, calls_at_4 = 0;
    for (uint64_t done = 0; done < rows; nbatch++) {
        const size_t n = rows - done < b->cap ? (size_t)(rows - done) : b->cap;
        gen_fill(&g, b, n);
        if (nbatch == 3) calls_at_4 = cnt.allocs + cnt.reallocs;
        const double t0 = now();
        switch (path) {
        case NATIVE: CHECK(inlay_writer_append_columns(w, b->native, 5)); break;
        case ARROW: CHECK(inlay_writer_append_arrow(w, &b->array, &batch_schema)); break;
        case NATIVE_DICT: CHECK(inlay_writer_append_columns(w, b->native_dict, 5)); break;
        case ARROW_DICT: CHECK(inlay_writer_append_arrow(w, &b->dict_array, &dict_schema)); break;
        default: CHECK(inlay_writer_append_columns(w, b->native_table, 5)); break;
        }
        t += now() - t0;
        done += n;
    }
    const uint64_t calls_end = cnt.allocs + cnt.reallocs;
    const double t0 = now();
    CHECK(inlay_writer_close(w));
    t += now() - t0;
    if (inlay_writer_rows(w) != rows) {
        fprintf(stderr, BENCH_NAME ": the writer counted %" PRIu64 " rows, not %" PRIu64 "\n", inlay_writer_rows(w),
                rows);
        exit(1);
    }
    res->row_groups = inlay_writer_row_groups(w);
    inlay_writer_free(w);
    res->bypass = -1;
    if (mc_arm) {
        mc_arm(0);
        mc_get(mc1);
        uint64_t calls = 0;
        for (int i = 0; i < 4; i++) calls += mc1[i] - mc0[i];
        res->bypass = (int64_t)calls - (int64_t)(cnt.allocs + cnt.reallocs);
    }
    res->seconds = t;
    res->out_bytes = hs.bytes;
    res->hash = hs.h;
    res->alloc = cnt;
    res->live_after = cnt.live;
    res->steady_batches = nbatch > 3 ? nbatch - 3 : 0;
    res->steady_calls = nbatch > 3 ? calls_end - calls_at_4 : 0;
}

/*----------------------------------------------------------------------
 *  main
 *--------------------------------------------------------------------*/

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bench_arrow [--rows N] [--repeat K] [--batch B] [--seed S] [--only PATH]\n"
            "  --rows N    rows per file (default 10000000)\n"
            "  --repeat K  runs of each path; the medians are reported (default 3)\n"
            "  --batch B   rows per append (default 65536)\n"
            "  --seed S    PRNG seed (default 42)\n"
            "  --only P    run one path only (native, arrow, native/dict, arrow/dict, native/table), for a\n"
            "              profiler\n");
}

static void print_run(const char *name, double t, uint64_t rows, const run_result *r)
{
    printf("%-14s %7.3f s  %6.1f ns/row  %6.2f M rows/s  %" PRIu64 " bytes, %" PRIu64 " row groups\n", name, t,
           t * 1e9 / (double)rows, (double)rows / t / 1e6, r->out_bytes, r->row_groups);
    printf("               lib allocator: %" PRIu64 " allocations + %" PRIu64 " reallocations, %" PRIu64
           " bytes asked, peak live %.1f MiB, %" PRId64 " bytes live after free; %" PRIu64
           " calls in the %" PRIu64 " batches from the 4th on\n",
           r->alloc.allocs, r->alloc.reallocs, r->alloc.bytes, r->alloc.peak / 1048576.0, r->live_after,
           r->steady_calls, r->steady_batches);
    if (r->bypass >= 0)
        printf("               malloc interposer: %" PRId64 " malloc family calls of the run bypassed the allocator\n",
               r->bypass);
}

int main(int argc, char **argv)
{
    uint64_t rows = 10000000, seed = 42;
    int repeat = 3, only = -1;
    size_t batch_rows = 65536;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (i + 1 >= argc) {
            usage(stderr);
            return 2;
        }
        const char *v = argv[++i];
        if (!strcmp(a, "--rows")) rows = parse_u64(a, v);
        else if (!strcmp(a, "--repeat")) repeat = (int)parse_u64(a, v);
        else if (!strcmp(a, "--batch")) batch_rows = (size_t)parse_u64(a, v);
        else if (!strcmp(a, "--seed")) seed = parse_u64(a, v);
        else if (!strcmp(a, "--only")) {
            for (int p = 0; p < PATHS; p++)
                if (!strcmp(v, path_names[p])) only = p;
            if (only < 0) {
                usage(stderr);
                return 2;
            }
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (rows < 1 || repeat < 1 || repeat > 1000 || batch_rows < 1 || batch_rows > INT32_MAX / CATEGORY_MAX) {
        fprintf(stderr, BENCH_NAME ": --rows and --batch must be at least 1 (--batch < 67 M), --repeat 1..1000\n");
        return 2;
    }
    make_categories();
    mc_find();

    /* One schema for every writer, from the Arrow schema. */
    inlay_schema *schema = NULL;
    char err[256];
    if (inlay_schema_from_arrow(&schema, &batch_schema, NULL, err, sizeof err) != INLAY_OK) {
        fprintf(stderr, BENCH_NAME ": schema: %s\n", err);
        return 1;
    }
    batch b;
    batch_init(&b, batch_rows);
    inlay_options defaults;
    inlay_options_init(&defaults);
    printf("inlay %s arrow: %" PRIu64 " rows in batches of %zu, zstd level %d, row groups of %zu rows / %zu MiB, "
           "pages of %zu rows / %zu KiB\n",
           inlay_version(), rows, batch_rows, defaults.compression_level, defaults.row_group_rows,
           defaults.row_group_bytes >> 20, defaults.page_rows, defaults.page_bytes >> 10);
    printf("columns: id \"l\", ts \"tsu:UTC\", category \"u\" (%d values, %d..%d B; or dictionary-encoded), "
           "value \"g\", flag \"b\"; all required, no nulls\n",
           NUM_CATEGORIES, CATEGORY_MIN, CATEGORY_MAX);
    printf("timed: the append calls and the close (generation and building excluded); runs alternate\n");
    fflush(stdout);

    double *times[PATHS];
    run_result res[PATHS];
    memset(res, 0, sizeof res);
    for (int p = 0; p < PATHS; p++) times[p] = xmalloc((size_t)repeat * sizeof *times[p]);
    for (int k = 0; k < repeat; k++) {
        printf("  run %d/%d:", k + 1, repeat);
        for (int p = 0; p < PATHS; p++) {
            if (only >= 0 && p != only) continue;
            run_once((enum path)p, schema, rows, &b, seed, &res[p]);
            times[p][k] = res[p].seconds;
            printf(" %s %.3f s", path_names[p], res[p].seconds);
            if (only < 0 && (res[p].hash != res[0].hash || res[p].out_bytes != res[0].out_bytes)) {
                fprintf(stderr, "\n" BENCH_NAME ": %s wrote another file than native (%" PRIu64 " and %" PRIu64
                        " bytes)\n", path_names[p], res[p].out_bytes, res[0].out_bytes);
                return 1;
            }
        }
        printf("\n");
        fflush(stdout);
    }
    double t[PATHS] = { 0 };
    bool leak = false;
    printf("median of %d:\n", repeat);
    for (int p = 0; p < PATHS; p++) {
        if (only >= 0 && p != only) continue;
        t[p] = median(times[p], repeat);
        print_run(path_names[p], t[p], rows, &res[p]);
        leak |= res[p].live_after != 0;
        free(times[p]);
    }
    if (only < 0) {
        const double ratio = t[ARROW] / t[NATIVE], ratio_dict = t[ARROW_DICT] / t[NATIVE_DICT];
        printf("ratio          %.3f  arrow / native: the strings end to end, read from the Arrow buffers or given as "
               "inlay_bytes (the target is at most 1.10)\n", ratio);
        printf("ratio/dict     %.3f  arrow/dict / native/dict: through the dictionary, as Arrow indices or as "
               "inlay_bytes into it (the target is at most 1.10)\n", ratio_dict);
        printf("for reference  arrow / native/table %.3f, arrow/dict / native/table %.3f: against bench_write_table's "
               "layout of the strings\n", t[ARROW] / t[NATIVE_TABLE], t[ARROW_DICT] / t[NATIVE_TABLE]);
        printf("files          identical (%" PRIu64 " bytes, hash %016" PRIx64 ")\n", res[0].out_bytes, res[0].hash);
        printf("RESULT rows=%" PRIu64 " repeat=%d batch=%zu native_seconds=%.6f arrow_seconds=%.6f "
               "native_dict_seconds=%.6f arrow_dict_seconds=%.6f native_table_seconds=%.6f ratio=%.4f "
               "ratio_dict=%.4f arrow_vs_table=%.4f arrow_dict_vs_table=%.4f out_bytes=%" PRIu64
               " native_allocs=%" PRIu64 " arrow_allocs=%" PRIu64 " native_steady_calls=%" PRIu64
               " arrow_steady_calls=%" PRIu64 " arrow_dict_steady_calls=%" PRIu64 " live_after=%d identical=1\n",
               rows, repeat, batch_rows, t[NATIVE], t[ARROW], t[NATIVE_DICT], t[ARROW_DICT], t[NATIVE_TABLE], ratio,
               ratio_dict, t[ARROW] / t[NATIVE_TABLE], t[ARROW_DICT] / t[NATIVE_TABLE], res[0].out_bytes,
               res[NATIVE].alloc.allocs + res[NATIVE].alloc.reallocs, res[ARROW].alloc.allocs + res[ARROW].alloc.reallocs,
               res[NATIVE].steady_calls, res[ARROW].steady_calls, res[ARROW_DICT].steady_calls, leak ? 1 : 0);
    }
    batch_free(&b);
    inlay_schema_free(schema);
    return leak ? 1 : 0;
}
