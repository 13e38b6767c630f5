/*
 * bench_write_table — how fast the C API writes a flat table.
 *
 * Writes N rows of
 *
 *     id        INT64                    sequential from 0
 *     ts        TIMESTAMP(MICROS, UTC)   increasing by a random step of 0..1023 us
 *     category  STRING                   one of 100 values of 8..32 bytes, at random
 *     value     DOUBLE                   uniform in [0, 1000)
 *     flag      BOOLEAN                  random
 *
 * to a Parquet file with the library's default options (ZSTD level 3,
 * min_compression_gain 3%; --codec NAME[:LEVEL] and --min-gain F change
 * them), generating the data in fixed-size batches whose buffers are reused, so the
 * benchmark's own memory does not grow with N. The library allocates through
 * a counting allocator (inlay_options.alloc). The timed section runs from
 * inlay_writer_open_file() to inlay_writer_free(), data generation included;
 * a separate pass generates the same data without writing it, so its cost
 * can be subtracted. --in-memory generates all N rows before the timed
 * section instead (N x 41 bytes), which then only appends them, B rows a
 * call: what DuckDB's COPY of a table and polars' writeParquet of a
 * DataFrame time.
 *
 * When bench/common/malloc_count.c is preloaded (LD_PRELOAD), the malloc
 * family calls made during the timed section are counted too, and compared
 * with the calls the counting allocator made: any difference is memory that
 * bypassed the library allocator.
 *
 * --skipping writes the same rows three ways in one run, each --repeat
 * times (interleaved, so drift hits all three alike): "default" (the
 * library's defaults: statistics and the page index on), "off"
 * (statistics = false, page_index = false) and "bloom" (the defaults and a
 * bloom filter on category and on id). It prints each one's median time and
 * file size, the bytes its page index and bloom filters took, and each
 * one's ratios to "off": what readers' skipping costs the writer.
 *
 * The last line of output is a machine-readable "RESULT key=value ..." line
 * (read by bench/write_table/run.sh).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "inlay.h"

#define BENCH_NAME "bench_write_table"
#include "bench_util.h"

/*----------------------------------------------------------------------
 *  PRNG (bench_util.h)
 *--------------------------------------------------------------------*/

#include "categories.h"

/*----------------------------------------------------------------------
 *  The data
 *--------------------------------------------------------------------*/

#define TS_START 1704067200000000LL /* 2024-01-01T00:00:00Z in microseconds */

typedef struct batch {
    size_t cap;
    size_t step;        /* --in-memory: all rows are here, appended this many at a time; else 0 */
    uint64_t in_bytes;  /* --in-memory: the input bytes of all rows */
    int64_t *id;
    int64_t *ts;
    inlay_bytes *category;
    double *value;
    bool *flag;
} batch;

/* The generator's state: the same seed gives the same rows. */
typedef struct gen {
    rng r;
    int64_t next_id;
    int64_t ts;
    uint64_t input_bytes; /* 8 + 8 + len + 8 + 1 per row */
} gen;

static void gen_init(gen *g, uint64_t seed)
{
    rng_seed(&g->r, seed);
    g->next_id = 0;
    g->ts = TS_START;
    g->input_bytes = 0;
}

static void gen_fill(gen *g, batch *b, size_t n)
{
    uint64_t strbytes = 0;
    int64_t id = g->next_id, ts = g->ts;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = rng_next(&g->r);
        uint64_t y = rng_next(&g->r);
        ts += (int64_t)(x & 1023);
        const inlay_bytes *c = &categories[below((uint32_t)(x >> 32), NUM_CATEGORIES)];
        b->id[i] = id++;
        b->ts[i] = ts;
        b->category[i] = *c;
        b->value[i] = (double)(y >> 11) * 0x1.0p-53 * 1000.0;
        b->flag[i] = (x >> 10) & 1;
        strbytes += c->len;
    }
    g->next_id = id;
    g->ts = ts;
    g->input_bytes += (uint64_t)n * (8 + 8 + 8 + 1) + strbytes;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bench_write_table [--rows N] [--repeat K] [--batch B] [--out PATH]\n"
            "                         [--codec NAME[:LEVEL]] [--level L] [--min-gain F] [--seed S]\n"
            "                         [--threads N] [--no-sync] [--in-memory]\n"
            "                         [--skipping | --no-skipping]\n"
            "  --rows N      rows to write (default 10000000)\n"
            "  --repeat K    write the file K times and report the median (default 1)\n"
            "  --batch B     rows per append batch (default 65536)\n"
            "  --out PATH    the file to write (default bench_write_table.parquet)\n"
            "  --codec C     the codec: uncompressed (or none), snappy, gzip, brotli, zstd\n"
            "                (the default) or lz4_raw (or lz4); NAME:LEVEL sets its level\n"
            "                (default: the codec's own; zstd %d, gzip %d, brotli %d, lz4_raw %d)\n"
            "  --level L     the codec's level (the same as NAME:L)\n"
            "  --min-gain F  inlay_options.min_compression_gain, in [0, 1) (default %g: a\n"
            "                v1 chunk whose first page the codec shrinks by less is stored\n"
            "                uncompressed; 0 compresses everything)\n"
            "  --seed S      PRNG seed (default 42)\n"
            "  --no-sync     inlay_options.sync = false: close does not fsync the file (the peers\n"
            "                do not)\n"
            "  --in-memory   generate all N rows before the timed section and append them from\n"
            "                there, B at a time (as the peers write a table already in memory)\n"
            "  --threads N   inlay_options.threads: 1 writes on the calling thread alone, N > 1 adds\n"
            "                N - 1 workers; 0 (default) the library's default (online CPUs, up to 8)\n"
            "  --skipping    write the rows three ways, --repeat times each: the defaults\n"
            "                (statistics + page index), both off, and the defaults with\n"
            "                bloom filters on category and id; times, sizes, ratios to off\n"
            "  --no-skipping write with statistics and the page index off (--skipping's \"off\"\n"
            "                alone, e.g. to count its instructions against the defaults)\n",
            INLAY_DEFAULT_ZSTD_LEVEL, INLAY_DEFAULT_GZIP_LEVEL, INLAY_DEFAULT_BROTLI_LEVEL,
            INLAY_DEFAULT_LZ4_LEVEL, INLAY_DEFAULT_MIN_GAIN);
}

/* A level: an int, negative ones included. */
static int parse_level(const char *opt, const char *v)
{
    char *end;
    errno = 0;
    long l = strtol(v, &end, 10);
    if (errno || end == v || *end || l < INT_MIN + 1 || l > INT_MAX) {
        fprintf(stderr, "bench_write_table: %s wants an integer level, got '%s'\n", opt, v);
        exit(2);
    }
    return (int)l;
}

/* NAME or NAME:LEVEL. */
static void parse_codec(const char *v, inlay_compression *codec, int *level, bool *level_set)
{
    char name[32];
    const char *colon = strchr(v, ':');
    size_t n = colon ? (size_t)(colon - v) : strlen(v);
    if (n >= sizeof name) n = sizeof name - 1;
    memcpy(name, v, n);
    name[n] = 0;
    if (!inlay_compression_parse(name, codec)) {
        fprintf(stderr, "bench_write_table: unknown codec '%s' (uncompressed, none, snappy, gzip, brotli, "
                        "zstd, lz4_raw, lz4)\n", name);
        exit(2);
    }
    if (colon) {
        *level = parse_level("--codec", colon + 1);
        *level_set = true;
    }
}

#define CHECK(call)                                                                  \
    do {                                                                             \
        int st_ = (call);                                                            \
        if (st_ != INLAY_OK) {                                                       \
            fprintf(stderr, "bench_write_table: %s failed: %s: %s\n", #call,         \
                    inlay_strerror(st_), w ? inlay_writer_errmsg(w) : "");           \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

/*----------------------------------------------------------------------
 *  One timed write
 *--------------------------------------------------------------------*/

typedef struct run_result {
    double seconds;
    double cpu_seconds; /* the process's user + system time over the same section */
    uint64_t out_bytes;
    uint64_t in_bytes;
    uint64_t row_groups;
    counting alloc;
    uint64_t mc[5];     /* interposer counts during the timed section */
    int64_t live_after; /* library bytes still held after free (a leak if > 0) */
    inlay_column_stats cols[5];   /* inlay_writer_column_stats after close (inside the timed section) */
} run_result;

/* What one run writes with. */
typedef struct codec_opts {
    inlay_compression codec;
    int level;          /* INLAY_LEVEL_DEFAULT: the codec's own */
    double min_gain;    /* < 0: the library's default */
    bool no_skipping;   /* statistics and page_index off */
    bool no_sync;       /* the file is not fsynced at close */
    int threads;        /* inlay_options.threads; 0: the library's default */
} codec_opts;

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void write_once(const char *path, const inlay_schema *schema, uint64_t rows,
                       batch *b, uint64_t seed, const codec_opts *co, run_result *res)
{
    counting cnt;
    memset(&cnt, 0, sizeof cnt);
    inlay_options opt;
    inlay_options_init(&opt);
    opt.alloc.fn = counting_alloc;
    opt.alloc.ud = &cnt;
    opt.compression = co->codec;
    opt.compression_level = co->level;
    if (co->min_gain >= 0)
        opt.min_compression_gain = co->min_gain;
    if (co->no_skipping) {
        opt.statistics = false;
        opt.page_index = false;
    }
    if (co->no_sync) opt.sync = false;
    opt.threads = co->threads;
    /* the counting allocator is plain: the workers' calls go through the library's lock */
    opt.serialize_alloc = true;

    gen g;
    gen_init(&g, seed);
    inlay_writer *w = NULL;
    uint64_t mc0[5] = {0}, mc1[5] = {0};

    /* Each timed write makes a new file: freeing the last run's (tens of
     * MB on tmpfs) would otherwise land in close's rename. */
    if (unlink(path) != 0 && errno != ENOENT) {
        fprintf(stderr, "bench_write_table: cannot remove %s: %s\n", path, strerror(errno));
        exit(1);
    }
    if (mc_arm) {
        mc_get(mc0);
        mc_arm(1);
    }
    double t0 = now(), c0 = cpu_now();

    int st = inlay_writer_open_file(&w, path, schema, &opt);
    if (st != INLAY_OK) {
        if (mc_arm)
            mc_arm(0);
        fprintf(stderr, "bench_write_table: cannot open %s: %s: %s\n", path,
                inlay_strerror(st), w ? inlay_writer_errmsg(w) : "");
        inlay_writer_free(w);
        exit(1);
    }
    for (uint64_t done = 0; done < rows;) {
        const size_t step = b->step ? b->step : b->cap;
        size_t n = rows - done < step ? (size_t)(rows - done) : step;
        const size_t at = b->step ? (size_t)done : 0;
        if (!b->step) gen_fill(&g, b, n);
        CHECK(inlay_writer_append_i64(w, 0, b->id + at, n, NULL));
        CHECK(inlay_writer_append_i64(w, 1, b->ts + at, n, NULL));
        CHECK(inlay_writer_append_bytes(w, 2, b->category + at, n, NULL));
        CHECK(inlay_writer_append_double(w, 3, b->value + at, n, NULL));
        CHECK(inlay_writer_append_bool(w, 4, b->flag + at, n, NULL));
        done += n;
    }
    CHECK(inlay_writer_close(w));
    for (int c = 0; c < 5; c++)
        CHECK(inlay_writer_column_stats(w, c, &res->cols[c]));
    res->out_bytes = inlay_writer_bytes(w);
    res->row_groups = inlay_writer_row_groups(w);
    uint64_t got = inlay_writer_rows(w);
    inlay_writer_free(w);

    double t1 = now(), c1 = cpu_now();
    if (mc_arm) {
        mc_arm(0);
        mc_get(mc1);
    }
    res->cpu_seconds = c1 - c0;

    if (got != rows) {
        fprintf(stderr, "bench_write_table: the writer counted %" PRIu64 " rows, not %" PRIu64 "\n",
                got, rows);
        exit(1);
    }
    res->seconds = t1 - t0;
    res->in_bytes = b->step ? b->in_bytes : g.input_bytes;
    res->alloc = cnt;
    res->live_after = cnt.live;
    for (int i = 0; i < 5; i++)
        res->mc[i] = mc1[i] - mc0[i];
}

/* The same data, generated and thrown away: what the timed section spends
 * on generation. */
static double generate_once(uint64_t rows, batch *b, uint64_t seed, uint64_t *in_bytes)
{
    gen g;
    gen_init(&g, seed);
    double t0 = now();
    for (uint64_t done = 0; done < rows;) {
        size_t n = rows - done < b->cap ? (size_t)(rows - done) : b->cap;
        gen_fill(&g, b, n);
        /* the arrays are "used": the compiler must store them */
        __asm__ __volatile__("" : : "r"(b->id), "r"(b->ts), "r"(b->category), "r"(b->value),
                             "r"(b->flag) : "memory");
        done += n;
    }
    double t1 = now();
    *in_bytes = g.input_bytes;
    return t1 - t0;
}

/*----------------------------------------------------------------------
 *  --skipping: default, off, bloom
 *--------------------------------------------------------------------*/

enum { SKIP_DEFAULT, SKIP_OFF, SKIP_BLOOM, SKIP_WAYS };
static const char *const skip_names[SKIP_WAYS] = {"default", "off", "bloom"};
static const char *const skip_what[SKIP_WAYS] = {
    "statistics + page index (the library's defaults)",
    "statistics = false, page_index = false",
    "the defaults + bloom filters on category and id",
};

typedef struct skip_result {
    double seconds;               /* median */
    double cpu_seconds;           /* median */
    uint64_t out_bytes;
    uint64_t index_bytes;         /* column + offset index, every column */
    uint64_t bloom_bytes;
    uint64_t col_bloom[5];
} skip_result;

static int skipping(const char *path, const inlay_schema *plain, const inlay_schema *bloom, uint64_t rows,
                    batch *b, uint64_t seed, const codec_opts *co, int repeat)
{
    double *times = xmalloc((size_t)repeat * SKIP_WAYS * sizeof *times);
    double *cpu = xmalloc((size_t)repeat * SKIP_WAYS * sizeof *cpu);
    skip_result sr[SKIP_WAYS];
    memset(sr, 0, sizeof sr);
    run_result res;
    int leaked = 0;
    for (int k = 0; k < repeat; k++) {
        for (int m = 0; m < SKIP_WAYS; m++) {
            codec_opts o = *co;
            o.no_skipping = m == SKIP_OFF;
            o.no_sync = true;   /* the disk's flush of ~100 MB would drown a few percent of CPU */
            memset(&res, 0, sizeof res);
            write_once(path, m == SKIP_BLOOM ? bloom : plain, rows, b, seed, &o, &res);
            times[m * repeat + k] = res.seconds;
            cpu[m * repeat + k] = res.cpu_seconds;
            if (res.live_after != 0)
                leaked = 1;
            sr[m].out_bytes = res.out_bytes;
            sr[m].index_bytes = sr[m].bloom_bytes = 0;
            for (int c = 0; c < 5; c++) {
                sr[m].index_bytes += res.cols[c].column_index_bytes + res.cols[c].offset_index_bytes;
                sr[m].bloom_bytes += res.cols[c].bloom_filter_bytes;
                sr[m].col_bloom[c] = res.cols[c].bloom_filter_bytes;
            }
            printf("  run %d/%d %-7s %.3f s (cpu %.3f s), %" PRIu64 " bytes\n", k + 1, repeat, skip_names[m],
                   res.seconds, res.cpu_seconds, res.out_bytes);
            fflush(stdout);
        }
    }
    for (int m = 0; m < SKIP_WAYS; m++) {
        sr[m].seconds = median(times + m * repeat, repeat);
        sr[m].cpu_seconds = median(cpu + m * repeat, repeat);
    }
    const skip_result *off = &sr[SKIP_OFF];
    const double r = (double)rows;
    printf("\n%-8s %9s %8s %14s %12s %12s %9s %9s  %s\n", "way", "seconds", "ns/row", "file bytes", "page index",
           "bloom", "time/off", "size/off", "what");
    for (int m = 0; m < SKIP_WAYS; m++) {
        const skip_result *x = &sr[m];
        printf("%-8s %9.3f %8.1f %14" PRIu64 " %12" PRIu64 " %12" PRIu64 " %9.3f %9.4f  %s\n", skip_names[m],
               x->seconds, x->seconds * 1e9 / r, x->out_bytes, x->index_bytes, x->bloom_bytes,
               x->seconds / off->seconds, (double)x->out_bytes / (double)off->out_bytes, skip_what[m]);
    }
    printf("bloom filters: id %" PRIu64 " bytes, category %" PRIu64 " bytes (default ndv: each chunk's distinct "
           "values; fpp %g)\n",
           sr[SKIP_BLOOM].col_bloom[0], sr[SKIP_BLOOM].col_bloom[2], INLAY_DEFAULT_BLOOM_FPP);
    printf("overhead vs off: default %+.1f%% time, %+.2f%% bytes; bloom %+.1f%% time, %+.2f%% bytes\n",
           (sr[SKIP_DEFAULT].seconds / off->seconds - 1) * 100,
           ((double)sr[SKIP_DEFAULT].out_bytes / (double)off->out_bytes - 1) * 100,
           (sr[SKIP_BLOOM].seconds / off->seconds - 1) * 100,
           ((double)sr[SKIP_BLOOM].out_bytes / (double)off->out_bytes - 1) * 100);
    printf("cpu (user + system, medians): default %.3f s, off %.3f s, bloom %.3f s; default %+.1f%%, bloom %+.1f%% "
           "vs off\n",
           sr[SKIP_DEFAULT].cpu_seconds, off->cpu_seconds, sr[SKIP_BLOOM].cpu_seconds,
           (sr[SKIP_DEFAULT].cpu_seconds / off->cpu_seconds - 1) * 100,
           (sr[SKIP_BLOOM].cpu_seconds / off->cpu_seconds - 1) * 100);
    printf("RESULT mode=skipping rows=%" PRIu64 " repeat=%d", rows, repeat);
    for (int m = 0; m < SKIP_WAYS; m++)
        printf(" seconds_%s=%.6f bytes_%s=%" PRIu64 " index_%s=%" PRIu64 " bloom_%s=%" PRIu64, skip_names[m],
               sr[m].seconds, skip_names[m], sr[m].out_bytes, skip_names[m], sr[m].index_bytes, skip_names[m],
               sr[m].bloom_bytes);
    for (int m = 0; m < SKIP_WAYS; m++) printf(" cpu_%s=%.6f", skip_names[m], sr[m].cpu_seconds);
    printf("\n");
    free(times);
    free(cpu);
    return leaked;
}

/*----------------------------------------------------------------------
 *  main
 *--------------------------------------------------------------------*/

int main(int argc, char **argv)
{
    uint64_t rows = 10000000, seed = 42;
    int repeat = 1;
    codec_opts co = {INLAY_DEFAULT_COMPRESSION, INLAY_LEVEL_DEFAULT, -1, false, false, 0};
    bool level_set = false, skip_mode = false, in_memory = false;
    size_t batch_rows = 65536;
    const char *path = "bench_write_table.parquet";

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--skipping")) {
            skip_mode = true;
            continue;
        }
        if (!strcmp(a, "--in-memory")) {   /* as the peers write: the rows already in memory */
            in_memory = true;
            continue;
        }
        if (!strcmp(a, "--no-sync")) {   /* what the peers do: the file left to the page cache */
            co.no_sync = true;
            continue;
        }
        if (!strcmp(a, "--no-skipping")) {   /* one way of --skipping alone, for an instruction count */
            co.no_skipping = true;
            continue;
        }
        if (i + 1 >= argc) {
            usage(stderr);
            return 2;
        }
        const char *v = argv[++i];
        if (!strcmp(a, "--rows"))
            rows = parse_u64(a, v);
        else if (!strcmp(a, "--repeat"))
            repeat = (int)parse_u64(a, v);
        else if (!strcmp(a, "--batch"))
            batch_rows = (size_t)parse_u64(a, v);
        else if (!strcmp(a, "--out"))
            path = v;
        else if (!strcmp(a, "--level")) {
            co.level = parse_level(a, v);
            level_set = true;
        } else if (!strcmp(a, "--seed"))
            seed = parse_u64(a, v);
        else if (!strcmp(a, "--codec"))
            parse_codec(v, &co.codec, &co.level, &level_set);
        else if (!strcmp(a, "--threads")) {
            co.threads = (int)parse_u64(a, v);
            if (co.threads > 64) {
                fprintf(stderr, "bench_write_table: --threads wants 0..64\n");
                return 2;
            }
        }
        else if (!strcmp(a, "--min-gain")) {
            char *end;
            co.min_gain = strtod(v, &end);
            if (end == v || *end || !(co.min_gain >= 0 && co.min_gain < 1)) {
                fprintf(stderr, "bench_write_table: --min-gain wants a fraction in [0, 1), got '%s'\n", v);
                return 2;
            }
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (rows < 1 || repeat < 1 || repeat > 1000 || batch_rows < 1) {
        fprintf(stderr, "bench_write_table: --rows and --batch must be at least 1, --repeat 1..1000\n");
        return 2;
    }

    make_categories();
    mc_find();

    /* The schema (allocated with malloc: it is not part of the timed section). */
    inlay_schema *s = inlay_schema_create(NULL);
    if (!s) {
        fprintf(stderr, "bench_write_table: out of memory\n");
        return 1;
    }
    struct {
        const char *name;
        inlay_type type;
    } cols[] = {
        {"id", inlay_type_int(64, true)},
        {"ts", inlay_type_timestamp(INLAY_MICROS, true)},
        {"category", inlay_type_string()},
        {"value", inlay_type_double()},
        {"flag", inlay_type_boolean()},
    };
    /* --skipping's third way: the same schema with bloom filters on id and category */
    inlay_schema *sb = inlay_schema_create(NULL);
    if (!sb) {
        fprintf(stderr, "bench_write_table: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        inlay_column_options bo;
        inlay_column_options_init(&bo);
        bo.bloom_filter = i == 0 || i == 2;
        if (inlay_schema_add(s, 0, cols[i].name, INLAY_REQUIRED, cols[i].type, NULL) < 0 ||
            inlay_schema_add(sb, 0, cols[i].name, INLAY_REQUIRED, cols[i].type, &bo) < 0) {
            fprintf(stderr, "bench_write_table: schema: %s %s\n", inlay_schema_errmsg(s), inlay_schema_errmsg(sb));
            return 1;
        }
    }

    batch b;
    b.cap = in_memory ? (size_t)rows : batch_rows;
    b.step = in_memory ? batch_rows : 0;
    b.id = xmalloc(b.cap * sizeof *b.id);
    b.ts = xmalloc(b.cap * sizeof *b.ts);
    b.category = xmalloc(b.cap * sizeof *b.category);
    b.value = xmalloc(b.cap * sizeof *b.value);
    b.flag = xmalloc(b.cap * sizeof *b.flag);
    if (in_memory) {   /* generated (and paged in) before any timing */
        gen g;
        gen_init(&g, seed);
        gen_fill(&g, &b, b.cap);
        b.in_bytes = g.input_bytes;
    }

    inlay_options defaults;
    inlay_options_init(&defaults);
    const char *codec_name = inlay_compression_name(co.codec);
    if (!inlay_compression_supported(co.codec)) {
        fprintf(stderr, "bench_write_table: this libinlay is built without %s\n", codec_name);
        return 2;
    }
    int lo, hi, dflt;
    bool has_levels = inlay_compression_levels(co.codec, &lo, &hi, &dflt);
    if (!has_levels && level_set) {
        fprintf(stderr, "bench_write_table: %s has no levels\n", codec_name);
        return 2;
    }
    int level = !has_levels ? 0 : level_set ? co.level : dflt;
    if (!level_set)
        co.level = INLAY_LEVEL_DEFAULT;
    double gain = co.min_gain >= 0 ? co.min_gain : defaults.min_compression_gain;
    char codec[80];
    if (has_levels)
        snprintf(codec, sizeof codec, "%s level %d%s", codec_name, level, level_set ? "" : " (default)");
    else
        snprintf(codec, sizeof codec, "%s", codec_name);
    printf("inlay %s write_table: %" PRIu64 " rows in batches of %zu, %s, min_compression_gain %g, "
           "row groups of %zu rows / %zu MiB, pages of %zu rows / %zu KiB\n",
           inlay_version(), rows, batch_rows, codec, gain, defaults.row_group_rows,
           defaults.row_group_bytes >> 20, defaults.page_rows, defaults.page_bytes >> 10);
    printf("columns: id INT64, ts TIMESTAMP(us,utc), category STRING (%d values, %d..%d B), "
           "value DOUBLE, flag BOOLEAN; all required\n",
           NUM_CATEGORIES, CATEGORY_MIN, CATEGORY_MAX);
    printf("output: %s; threads %d%s\n", path, co.threads, co.threads ? "" : " (the library's default)");
    fflush(stdout);
    if (skip_mode) {
        printf("skipping: %d runs of each way, interleaved; medians\n", repeat);
        int leaked = skipping(path, s, sb, rows, &b, seed, &co, repeat);
        if (leaked)
            fprintf(stderr, "bench_write_table: the library still held bytes after inlay_writer_free\n");
        free(b.id);
        free(b.ts);
        free(b.category);
        free(b.value);
        free(b.flag);
        inlay_schema_free(s);
        inlay_schema_free(sb);
        return leaked;
    }

    double *times = xmalloc((size_t)repeat * sizeof *times);
    double *gtimes = xmalloc((size_t)repeat * sizeof *gtimes);
    run_result res;
    memset(&res, 0, sizeof res);
    uint64_t gen_in = 0;
    long maxrss_first = 0; /* after the first run: comparable between runs of any --repeat */
    struct rusage ru;
    for (int k = 0; k < repeat; k++) {
        write_once(path, s, rows, &b, seed, &co, &res);
        times[k] = res.seconds;
        if (k == 0) {
            getrusage(RUSAGE_SELF, &ru);
            maxrss_first = ru.ru_maxrss;
        }
        printf("  run %d/%d: %.3f s\n", k + 1, repeat, res.seconds);
        fflush(stdout);
    }
    for (int k = 0; k < repeat; k++)
        gtimes[k] = in_memory ? 0 : generate_once(rows, &b, seed, &gen_in);
    if (in_memory) gen_in = b.in_bytes;
    if (gen_in != res.in_bytes) {
        fprintf(stderr, "bench_write_table: generation is not deterministic\n");
        return 1;
    }

    double t = median(times, repeat);
    double gt = median(gtimes, repeat);
    getrusage(RUSAGE_SELF, &ru);
    double r = (double)rows;

    printf("rows              %" PRIu64 "\n", rows);
    printf("seconds           %.3f  (median of %d; open to free, %s)\n", t, repeat,
           in_memory ? "the rows in memory beforehand" : "generation included");
    printf("rows/s            %.0f  (%.2f M)\n", r / t, r / t / 1e6);
    printf("ns/row            %.1f\n", t * 1e9 / r);
    printf("output            %" PRIu64 " bytes (%.1f MiB), %" PRIu64 " row groups, %.2f B/row\n",
           res.out_bytes, res.out_bytes / 1048576.0, res.row_groups, res.out_bytes / r);
    printf("output MB/s       %.1f\n", res.out_bytes / t / 1e6);
    printf("input             %" PRIu64 " bytes (8+8+len+8+1 per row), ratio %.2f\n", res.in_bytes,
           (double)res.in_bytes / (double)(res.out_bytes ? res.out_bytes : 1));
    printf("input MB/s        %.1f\n", res.in_bytes / t / 1e6);
    if (!in_memory) {
        printf("generation alone  %.3f s  (%.1f ns/row, median of %d; subtract from seconds)\n", gt,
               gt * 1e9 / r, repeat);
        printf("without gen       %.3f s  (%.1f ns/row, %.0f rows/s, input %.1f MB/s)\n", t - gt,
               (t - gt) * 1e9 / r, r / (t - gt), res.in_bytes / (t - gt) / 1e6);
    }
    for (int c = 0; c < 5; c++) {
        const inlay_column_stats *cs = &res.cols[c];
        printf("column %-9s %s level %d: %" PRIu64 " -> %" PRIu64 " bytes (%.3f) in %" PRIu64 " chunks, %" PRIu64
               " of them stored UNCOMPRESSED (min_compression_gain %g)\n",
               cols[c].name, inlay_compression_name(cs->compression) ? inlay_compression_name(cs->compression) : "?",
               cs->compression_level, cs->uncompressed_bytes, cs->compressed_bytes,
               cs->uncompressed_bytes ? (double)cs->compressed_bytes / (double)cs->uncompressed_bytes : 0.0,
               cs->chunks, cs->chunks_uncompressed, gain);
    }
    printf("peak RSS          %.1f MiB after the first run, %.1f MiB after all (ru_maxrss, whole process)\n",
           maxrss_first / 1024.0, ru.ru_maxrss / 1024.0);
    printf("lib allocator     %" PRIu64 " allocations + %" PRIu64 " reallocations, %" PRIu64
           " bytes asked, peak live %.1f MiB, %" PRId64 " bytes live after free (per run)\n",
           res.alloc.allocs, res.alloc.reallocs, res.alloc.bytes, res.alloc.peak / 1048576.0,
           res.live_after);
    uint64_t mc_calls = 0, lib_calls = res.alloc.allocs + res.alloc.reallocs;
    if (mc_get) {
        mc_calls = res.mc[0] + res.mc[1] + res.mc[2] + res.mc[3];
        printf("malloc interposer %" PRIu64 " malloc + %" PRIu64 " calloc + %" PRIu64
               " realloc + %" PRIu64 " memalign in the timed section; %" PRIu64
               " through the library allocator, %" PRId64 " bypassing it\n",
               res.mc[0], res.mc[1], res.mc[2], res.mc[3], lib_calls,
               (int64_t)mc_calls - (int64_t)lib_calls);
    } else {
        printf("malloc interposer not loaded (LD_PRELOAD=.../libbench_malloc_count.so to check "
               "for allocations that bypass the library allocator)\n");
    }
    char bypass[32] = "na";
    if (mc_get)
        snprintf(bypass, sizeof bypass, "%" PRId64, (int64_t)mc_calls - (int64_t)lib_calls);
    if (res.live_after != 0)
        fprintf(stderr, "bench_write_table: the library still held %" PRId64
                " bytes after inlay_writer_free\n", res.live_after);
    printf("RESULT rows=%" PRIu64 " repeat=%d seconds=%.6f gen_seconds=%.6f out_bytes=%" PRIu64
           " in_bytes=%" PRIu64 " row_groups=%" PRIu64 " maxrss_kb=%ld maxrss_first_kb=%ld allocs=%" PRIu64
           " reallocs=%" PRIu64 " alloc_bytes=%" PRIu64 " peak_live=%" PRId64
           " live_after=%" PRId64 " bypass=%s codec=%s level=%d min_gain=%g threads=%d\n",
           rows, repeat, t, gt, res.out_bytes, res.in_bytes, res.row_groups, ru.ru_maxrss,
           maxrss_first, res.alloc.allocs, res.alloc.reallocs, res.alloc.bytes, res.alloc.peak,
           res.live_after, bypass, codec_name, level, gain, co.threads);

    free(times);
    free(gtimes);
    free(b.id);
    free(b.ts);
    free(b.category);
    free(b.value);
    free(b.flag);
    inlay_schema_free(s);
    inlay_schema_free(sb);
    return res.live_after == 0 ? 0 : 1;
}
