/*
 * bench_dataset — how fast the C API writes a partitioned dataset.
 *
 * Writes N rows of the write_table benchmark's table with two more columns,
 *
 *     id        INT64                    sequential from 0
 *     ts        TIMESTAMP(MICROS, UTC)   increasing by a random step of 0..1023 us
 *     category  STRING                   one of 100 values of 8..32 bytes, at random
 *     value     DOUBLE                   uniform in [0, 1000)
 *     flag      BOOLEAN                  random
 *     day       DATE                     one of 30 days from 2024-01-01
 *     platform  STRING                   one of 6 values
 *
 * (day, platform) is one of 180 partitions drawn at random for each row, so
 * the rows come in random partition order. The first five columns are
 * bench_write_table's rows for the same seed. The rows are written with
 * inlay_dataset_* under a root folder, partitioned by day, platform (the
 * partition columns only in the folder names), with the library's default
 * file options (ZSTD level 3) but sync off, as the peers do not fsync;
 * max_open_files 256, so that each of the 180 partitions keeps one file
 * open. The data is generated in fixed-size batches whose buffers are
 * reused, and the library allocates through a counting allocator.
 *
 * The timed section runs from inlay_dataset_open() to inlay_dataset_free(),
 * data generation included; a separate pass generates the same data without
 * writing it, so its cost can be subtracted. The root is emptied before each
 * run, outside the timing.
 *
 * --flat PATH writes the same rows (all seven columns) to one Parquet file
 * with inlay_writer_* instead, untimed, and exits: the input of the DuckDB
 * peer (duckdb_peer.mjs).
 *
 * The last line of output is a machine-readable "RESULT key=value ..." line
 * (read by bench/dataset/run.sh).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inlay.h"

#define BENCH_NAME "bench_dataset"
#include "bench_util.h"

#include "categories.h"

/*----------------------------------------------------------------------
 *  The data
 *--------------------------------------------------------------------*/

#define TS_START 1704067200000000LL /* 2024-01-01T00:00:00Z in microseconds */
#define DAY_START 19723             /* 2024-01-01 in days since 1970-01-01 */
#define NUM_DAYS 30
#define NUM_PLATFORMS 6
#define NUM_PARTITIONS (NUM_DAYS * NUM_PLATFORMS)
#define NUM_COLUMNS 7

static const char *const platform_names[NUM_PLATFORMS] = {"android", "ios", "web", "windows", "macos", "linux"};
static inlay_bytes platforms[NUM_PLATFORMS];

/* bench_write_table's 100 categories (the same strings), and the platforms. */
static void make_values(void)
{
    make_categories();
    for (int i = 0; i < NUM_PLATFORMS; i++) {
        platforms[i].data = platform_names[i];
        platforms[i].len = strlen(platform_names[i]);
    }
}

static const char *const column_names[NUM_COLUMNS] = {"id", "ts", "category", "value", "flag", "day", "platform"};

typedef struct batch {
    size_t cap;
    int64_t *id;
    int64_t *ts;
    inlay_bytes *category;
    double *value;
    bool *flag;
    int32_t *day;
    inlay_bytes *platform;
} batch;

typedef struct gen {
    rng r;
    int64_t next_id;
    int64_t ts;
    uint64_t input_bytes; /* 8 + 8 + len + 8 + 1 + 4 + len per row */
    uint64_t part_rows[NUM_PARTITIONS];
} gen;

static void gen_init(gen *g, uint64_t seed)
{
    memset(g, 0, sizeof *g);
    rng_seed(&g->r, seed);
    g->ts = TS_START;
}

/* write_table's generator, with the partition drawn from bits 11..31 of the
 * same random word (bits 0..9 are the ts step, 10 the flag, 32..63 the
 * category), so the first five columns stay bench_write_table's. */
static void gen_fill(gen *g, batch *b, size_t n)
{
    uint64_t strbytes = 0;
    int64_t id = g->next_id, ts = g->ts;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = rng_next(&g->r);
        uint64_t y = rng_next(&g->r);
        ts += (int64_t)(x & 1023);
        const inlay_bytes *c = &categories[below((uint32_t)(x >> 32), NUM_CATEGORIES)];
        uint32_t p = (uint32_t)((((x >> 11) & 0x1fffff) * NUM_PARTITIONS) >> 21);
        const inlay_bytes *pl = &platforms[p % NUM_PLATFORMS];
        b->id[i] = id++;
        b->ts[i] = ts;
        b->category[i] = *c;
        b->value[i] = (double)(y >> 11) * 0x1.0p-53 * 1000.0;
        b->flag[i] = (x >> 10) & 1;
        b->day[i] = DAY_START + (int32_t)(p / NUM_PLATFORMS);
        b->platform[i] = *pl;
        g->part_rows[p]++;
        strbytes += c->len + pl->len;
    }
    g->next_id = id;
    g->ts = ts;
    g->input_bytes += (uint64_t)n * (8 + 8 + 8 + 1 + 4) + strbytes;
}

/* The batch as column batches, in the order of the dataset's leaf columns. */
static void fill_batches(inlay_column_batch *cb, const int *col, const batch *b, size_t n)
{
    const void *vals[NUM_COLUMNS] = {b->id, b->ts, b->category, b->value, b->flag, b->day, b->platform};
    memset(cb, 0, NUM_COLUMNS * sizeof *cb);
    for (int c = 0; c < NUM_COLUMNS; c++) {
        cb[c].column = col[c];
        cb[c].values = vals[c];
        cb[c].count = n;
    }
}

/*----------------------------------------------------------------------
 *  The output folder: emptied before a run, walked after it
 *--------------------------------------------------------------------*/

static uint64_t walk_files, walk_bytes, walk_other;

static int walk_count(const char *path, const struct stat *st, int type, struct FTW *f)
{
    (void)f;
    if (type == FTW_F) {
        size_t n = strlen(path);
        if (n > 8 && !strcmp(path + n - 8, ".parquet")) {
            walk_files++;
            walk_bytes += (uint64_t)st->st_size;
        } else {
            walk_other++;
        }
    }
    return 0;
}

static int walk_remove(const char *path, const struct stat *st, int type, struct FTW *f)
{
    (void)st;
    (void)type;
    if (f->level == 0)
        return 0; /* the root itself stays */
    return remove(path) ? -1 : 0;
}

/* Only a folder this benchmark wrote is emptied: nothing at its top but
 * day=... folders, _SUCCESS and _inlay_manifest.*. */
static void empty_root(const char *root)
{
    struct stat st;
    if (stat(root, &st) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "bench_dataset: %s is not a folder\n", root);
        exit(2);
    }
    DIR *dir = opendir(root);
    if (!dir) {
        fprintf(stderr, "bench_dataset: cannot read %s: %s\n", root, strerror(errno));
        exit(2);
    }
    struct dirent *e;
    while ((e = readdir(dir))) {
        const char *n = e->d_name;
        if (!strcmp(n, ".") || !strcmp(n, "..") || !strncmp(n, "day=", 4) || !strcmp(n, "_SUCCESS") ||
            !strncmp(n, "_inlay_manifest.", 16))
            continue;
        fprintf(stderr, "bench_dataset: %s holds %s: not a dataset of this benchmark, left alone "
                        "(give --out a new or empty folder)\n", root, n);
        closedir(dir);
        exit(2);
    }
    closedir(dir);
    if (nftw(root, walk_remove, 16, FTW_DEPTH | FTW_PHYS) != 0) {
        fprintf(stderr, "bench_dataset: cannot empty %s: %s\n", root, strerror(errno));
        exit(1);
    }
}

/*----------------------------------------------------------------------
 *  One timed write
 *--------------------------------------------------------------------*/

typedef struct settings {
    inlay_compression codec;
    int max_open_files;
    size_t max_buffered_bytes; /* 0: the default */
    bool sync;
    size_t batch_rows;
    uint64_t seed;
    const char *no_dict;       /* --no-dict: columns written without a dictionary attempt */
} settings;

typedef struct run_result {
    double seconds;
    double cpu_seconds;
    double append_seconds; /* of which in the appends (generation excluded) */
    double close_seconds;  /* inlay_dataset_close + free */
    inlay_dataset_stats stats;
    counting alloc;
    int64_t live_after;
    uint64_t mc[5];     /* interposer counts during the timed section */
    uint64_t in_bytes;
    uint64_t part_rows[NUM_PARTITIONS];
} run_result;

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static const char *const partition_by[] = {"day", "platform"};

static void options_for(inlay_dataset_options *o, const settings *s, counting *cnt)
{
    inlay_dataset_options_init(o);
    o->file.alloc.fn = counting_alloc;
    o->file.alloc.ud = cnt;
    o->file.serialize_alloc = true;
    o->file.compression = s->codec;
    o->file.sync = s->sync;
    o->partition_by = partition_by;
    o->partition_by_count = 2;
    o->max_open_files = s->max_open_files;
    if (s->max_buffered_bytes)
        o->max_buffered_bytes = s->max_buffered_bytes;
    o->shard = "bench";
}

#define DCHECK(call)                                                                         \
    do {                                                                                     \
        int st_ = (call);                                                                    \
        if (st_ != INLAY_OK) {                                                               \
            fprintf(stderr, "bench_dataset: %s failed: %s: %s\n", #call, inlay_strerror(st_), \
                    d ? inlay_dataset_errmsg(d) : "");                                       \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

static void write_once(const char *root, const inlay_schema *schema, uint64_t rows, batch *b, const settings *s,
                       run_result *res)
{
    counting cnt;
    memset(&cnt, 0, sizeof cnt);
    inlay_dataset_options o;
    options_for(&o, s, &cnt);
    empty_root(root);

    gen g;
    gen_init(&g, s->seed);
    inlay_dataset *d = NULL;
    inlay_column_batch cb[NUM_COLUMNS];
    int col[NUM_COLUMNS];
    double tappend = 0;

    uint64_t mc0[5] = {0}, mc1[5] = {0};
    if (mc_arm) {
        mc_get(mc0);
        mc_arm(1);
    }
    double t0 = now(), c0 = cpu_now();
    int st = inlay_dataset_open(&d, root, schema, &o);
    if (st != INLAY_OK) {
        fprintf(stderr, "bench_dataset: cannot open %s: %s: %s\n", root, inlay_strerror(st),
                d ? inlay_dataset_errmsg(d) : "");
        inlay_dataset_free(d);
        exit(1);
    }
    for (int c = 0; c < NUM_COLUMNS; c++) {
        col[c] = inlay_dataset_column(d, column_names[c]);
        if (col[c] < 0) {
            fprintf(stderr, "bench_dataset: no column %s in the dataset\n", column_names[c]);
            exit(1);
        }
    }
    for (uint64_t done = 0; done < rows;) {
        size_t n = rows - done < b->cap ? (size_t)(rows - done) : b->cap;
        gen_fill(&g, b, n);
        fill_batches(cb, col, b, n);
        double a0 = now();
        DCHECK(inlay_dataset_append_columns(d, cb, NUM_COLUMNS));
        tappend += now() - a0;
        done += n;
    }
    double tc = now();
    DCHECK(inlay_dataset_close(d));
    inlay_dataset_get_stats(d, &res->stats);
    inlay_dataset_free(d);
    double t1 = now(), c1 = cpu_now();
    if (mc_arm) {
        mc_arm(0);
        mc_get(mc1);
    }
    for (int i = 0; i < 5; i++)
        res->mc[i] = mc1[i] - mc0[i];

    res->seconds = t1 - t0;
    res->cpu_seconds = c1 - c0;
    res->append_seconds = tappend;
    res->close_seconds = t1 - tc;
    res->alloc = cnt;
    res->live_after = cnt.live;
    res->in_bytes = g.input_bytes;
    memcpy(res->part_rows, g.part_rows, sizeof g.part_rows);
    if (res->stats.rows != rows) {
        fprintf(stderr, "bench_dataset: the dataset counted %" PRIu64 " rows, not %" PRIu64 "\n", res->stats.rows,
                rows);
        exit(1);
    }
}

static double generate_once(uint64_t rows, batch *b, uint64_t seed, uint64_t *in_bytes)
{
    gen g;
    gen_init(&g, seed);
    double t0 = now();
    for (uint64_t done = 0; done < rows;) {
        size_t n = rows - done < b->cap ? (size_t)(rows - done) : b->cap;
        gen_fill(&g, b, n);
        __asm__ __volatile__("" : : "r"(b->id), "r"(b->ts), "r"(b->category), "r"(b->value), "r"(b->flag),
                             "r"(b->day), "r"(b->platform) : "memory");
        done += n;
    }
    double t1 = now();
    *in_bytes = g.input_bytes;
    return t1 - t0;
}

/* --flat: the same rows in one file (untimed), for the DuckDB peer. */
static int write_flat(const char *path, const inlay_schema *schema, uint64_t rows, batch *b, const settings *s)
{
    inlay_options o;
    inlay_options_init(&o);
    o.compression = s->codec;
    o.sync = false;
    inlay_writer *w = NULL;
    int st = inlay_writer_open_file(&w, path, schema, &o);
    if (st != INLAY_OK) {
        fprintf(stderr, "bench_dataset: cannot open %s: %s: %s\n", path, inlay_strerror(st),
                w ? inlay_writer_errmsg(w) : "");
        inlay_writer_free(w);
        return 1;
    }
    int col[NUM_COLUMNS] = {0, 1, 2, 3, 4, 5, 6};
    inlay_column_batch cb[NUM_COLUMNS];
    gen g;
    gen_init(&g, s->seed);
    double t0 = now();
    for (uint64_t done = 0; done < rows && st == INLAY_OK;) {
        size_t n = rows - done < b->cap ? (size_t)(rows - done) : b->cap;
        gen_fill(&g, b, n);
        fill_batches(cb, col, b, n);
        st = inlay_writer_append_columns(w, cb, NUM_COLUMNS);
        done += n;
    }
    if (st == INLAY_OK)
        st = inlay_writer_close(w);
    if (st != INLAY_OK) {
        fprintf(stderr, "bench_dataset: writing %s: %s: %s\n", path, inlay_strerror(st), inlay_writer_errmsg(w));
        inlay_writer_free(w);
        return 1;
    }
    printf("flat: %" PRIu64 " rows, %" PRIu64 " bytes, %" PRIu64 " row groups in %s (%.3f s, untimed input of "
           "the peer)\n",
           inlay_writer_rows(w), inlay_writer_bytes(w), inlay_writer_row_groups(w), path, now() - t0);
    inlay_writer_free(w);
    return 0;
}

/*----------------------------------------------------------------------
 *  main
 *--------------------------------------------------------------------*/

/* name is one of the comma-separated list's items */
static bool in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !memcmp(p, name, n))
            return true;
        if (!e)
            break;
        p = e + 1;
    }
    return false;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bench_dataset [--rows N] [--repeat K] [--out DIR] [--batch B] [--seed S]\n"
            "                     [--codec NAME] [--max-open-files N] [--max-buffered-mib M] [--sync]\n"
            "                     [--no-dict COLS]\n"
            "       bench_dataset --flat PATH [--rows N] [--batch B] [--seed S] [--codec NAME]\n"
            "  --rows N              rows to write (default 10000000)\n"
            "  --repeat K            write the dataset K times and report the median (default 1)\n"
            "  --out DIR             the dataset's root, emptied before each run (default\n"
            "                        /dev/shm/inlay_bench_dataset: files on tmpfs); only a folder\n"
            "                        holding nothing but this benchmark's output is emptied\n"
            "  --batch B             rows per append (default 65536)\n"
            "  --seed S              PRNG seed (default 42)\n"
            "  --codec NAME          the files' codec (default zstd, at its default level)\n"
            "  --max-open-files N    inlay_dataset_options.max_open_files (default 256)\n"
            "  --max-buffered-mib M  inlay_dataset_options.max_buffered_bytes in MiB (default: the\n"
            "                        library's, %zu MiB)\n"
            "  --sync                fsync each file at close (default off: the peers do not)\n"
            "  --no-dict COLS        a comma list of columns written without a dictionary: the\n"
            "                        encoding AUTO falls back to (DELTA for id, ts, day; PLAIN for\n"
            "                        value; RLE for flag; DELTA_LENGTH_BYTE_ARRAY for strings)\n"
            "  --flat PATH           write the same rows to one Parquet file (untimed) and exit\n",
            INLAY_DEFAULT_MAX_BUFFERED_BYTES >> 20);
}

int main(int argc, char **argv)
{
    uint64_t rows = 10000000;
    int repeat = 1;
    const char *root = "/dev/shm/inlay_bench_dataset", *flat = NULL;
    settings s = {INLAY_DEFAULT_COMPRESSION, 256, 0, false, 65536, 42, NULL};

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--sync")) {
            s.sync = true;
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
        else if (!strcmp(a, "--out"))
            root = v;
        else if (!strcmp(a, "--flat"))
            flat = v;
        else if (!strcmp(a, "--batch"))
            s.batch_rows = (size_t)parse_u64(a, v);
        else if (!strcmp(a, "--seed"))
            s.seed = parse_u64(a, v);
        else if (!strcmp(a, "--max-open-files"))
            s.max_open_files = (int)parse_u64(a, v);
        else if (!strcmp(a, "--no-dict"))
            s.no_dict = v;
        else if (!strcmp(a, "--max-buffered-mib"))
            s.max_buffered_bytes = (size_t)parse_u64(a, v) << 20;
        else if (!strcmp(a, "--codec")) {
            if (!inlay_compression_parse(v, &s.codec)) {
                fprintf(stderr, "bench_dataset: unknown codec '%s'\n", v);
                return 2;
            }
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (rows < 1 || repeat < 1 || repeat > 1000 || s.batch_rows < 1 || s.max_open_files < 1) {
        fprintf(stderr, "bench_dataset: --rows, --batch and --max-open-files must be at least 1, --repeat 1..1000\n");
        return 2;
    }
    if (!inlay_compression_supported(s.codec)) {
        fprintf(stderr, "bench_dataset: this libinlay is built without %s\n", inlay_compression_name(s.codec));
        return 2;
    }

    make_values();
    mc_find();
    inlay_schema *schema = inlay_schema_create(NULL);
    if (!schema)
        die("out of memory");
    inlay_type types[NUM_COLUMNS] = {
        inlay_type_int(64, true), inlay_type_timestamp(INLAY_MICROS, true), inlay_type_string(),
        inlay_type_double(),      inlay_type_boolean(),                    inlay_type_date(),
        inlay_type_string(),
    };
    char no_dict_used[128] = "";
    for (int c = 0; c < NUM_COLUMNS; c++) {
        /* --no-dict: the encoding AUTO falls back to, without the dictionary's first page */
        inlay_column_options co;
        inlay_column_options_init(&co);
        if (s.no_dict && in_list(s.no_dict, column_names[c])) {
            co.encoding = c == 3 ? INLAY_ENCODING_PLAIN : c == 4 ? INLAY_ENCODING_RLE : INLAY_ENCODING_DELTA;
            snprintf(no_dict_used + strlen(no_dict_used), sizeof no_dict_used - strlen(no_dict_used), "%s%s %s",
                     no_dict_used[0] ? ", " : "", column_names[c],
                     co.encoding == INLAY_ENCODING_PLAIN ? "PLAIN" : co.encoding == INLAY_ENCODING_RLE ? "RLE" : "DELTA");
        }
        if (inlay_schema_add(schema, 0, column_names[c], INLAY_REQUIRED, types[c], &co) < 0) {
            fprintf(stderr, "bench_dataset: schema: %s\n", inlay_schema_errmsg(schema));
            return 1;
        }
    }

    batch b;
    b.cap = s.batch_rows;
    b.id = xmalloc(s.batch_rows * sizeof *b.id);
    b.ts = xmalloc(s.batch_rows * sizeof *b.ts);
    b.category = xmalloc(s.batch_rows * sizeof *b.category);
    b.value = xmalloc(s.batch_rows * sizeof *b.value);
    b.flag = xmalloc(s.batch_rows * sizeof *b.flag);
    b.day = xmalloc(s.batch_rows * sizeof *b.day);
    b.platform = xmalloc(s.batch_rows * sizeof *b.platform);

    if (flat) {
        int rc = write_flat(flat, schema, rows, &b, &s);
        inlay_schema_free(schema);
        return rc;
    }

    /* the options, as the runs use them */
    counting dummy;
    memset(&dummy, 0, sizeof dummy);
    inlay_dataset_options o;
    options_for(&o, &s, &dummy);
    int lo, hi, level = 0;
    bool has_levels = inlay_compression_levels(s.codec, &lo, &hi, &level);
    printf("inlay %s dataset: %" PRIu64 " rows in batches of %zu, seed %" PRIu64 ", %d partitions "
           "(day: %d days from 2024-01-01 x platform: %d values), rows in random partition order\n",
           inlay_version(), rows, s.batch_rows, s.seed, NUM_PARTITIONS, NUM_DAYS, NUM_PLATFORMS);
    printf("columns: id INT64, ts TIMESTAMP(us,utc), category STRING (%d values), value DOUBLE, flag BOOLEAN, "
           "day DATE, platform STRING; all required\n",
           NUM_CATEGORIES);
    printf("options: partition_by day, platform; keep_partition_columns %s; max_open_files %d; "
           "max_buffered_bytes %zu MiB; max_file_rows %" PRIu64 "; max_file_bytes %" PRIu64 "; shard %s\n",
           o.keep_partition_columns ? "true" : "false", o.max_open_files, o.max_buffered_bytes >> 20,
           o.max_file_rows, o.max_file_bytes, o.shard);
    printf("file options: %s%s%d, min_compression_gain %g, row groups of %zu rows / %zu MiB, pages of %zu rows / "
           "%zu KiB, sync %s, threads %d (0: 1 in a dataset)\n",
           inlay_compression_name(s.codec), has_levels ? " level " : "", has_levels ? level : 0,
           o.file.min_compression_gain, o.file.row_group_rows, o.file.row_group_bytes >> 20, o.file.page_rows,
           o.file.page_bytes >> 10, o.file.sync ? "on" : "off", o.file.threads);
    printf("encodings: %s\n", no_dict_used[0] ? no_dict_used : "AUTO for every column (the default)");
    printf("output: %s (emptied before each run, untimed)\n", root);
    fflush(stdout);

    double *times = xmalloc((size_t)repeat * sizeof *times);
    double *gtimes = xmalloc((size_t)repeat * sizeof *gtimes);
    double *ctimes = xmalloc((size_t)repeat * sizeof *ctimes);
    run_result res;
    memset(&res, 0, sizeof res);
    long maxrss_first = 0;
    struct rusage ru;
    bool bad = false;
    for (int k = 0; k < repeat; k++) {
        write_once(root, schema, rows, &b, &s, &res);
        times[k] = res.seconds;
        ctimes[k] = res.cpu_seconds;
        if (k == 0) {
            getrusage(RUSAGE_SELF, &ru);
            maxrss_first = ru.ru_maxrss;
        }
        walk_files = walk_bytes = walk_other = 0;
        nftw(root, walk_count, 16, FTW_PHYS);
        printf("  run %d/%d: %.3f s (appends %.3f s, close %.3f s; cpu %.3f s), %" PRIu64 " files, %" PRIu64
               " bytes (and %" PRIu64 " other files: manifest, _SUCCESS)\n",
               k + 1, repeat, res.seconds, res.append_seconds, res.close_seconds, res.cpu_seconds, walk_files,
               walk_bytes, walk_other);
        fflush(stdout);
        if (walk_files != res.stats.files || walk_bytes != res.stats.bytes) {
            fprintf(stderr, "bench_dataset: the root holds %" PRIu64 " files of %" PRIu64 " bytes, the stats say %" PRIu64
                    " of %" PRIu64 "\n", walk_files, walk_bytes, res.stats.files, res.stats.bytes);
            bad = true;
        }
    }
    uint64_t gen_in = 0;
    for (int k = 0; k < repeat; k++)
        gtimes[k] = generate_once(rows, &b, s.seed, &gen_in);
    if (gen_in != res.in_bytes)
        die("generation is not deterministic");

    double t = median(times, repeat), gt = median(gtimes, repeat), ct = median(ctimes, repeat);
    getrusage(RUSAGE_SELF, &ru);
    double r = (double)rows;
    uint64_t pmin = UINT64_MAX, pmax = 0, nonempty = 0;
    for (int p = 0; p < NUM_PARTITIONS; p++) {
        if (res.part_rows[p]) nonempty++;
        if (res.part_rows[p] < pmin) pmin = res.part_rows[p];
        if (res.part_rows[p] > pmax) pmax = res.part_rows[p];
    }
    const inlay_dataset_stats *ds = &res.stats;

    printf("rows              %" PRIu64 "\n", rows);
    printf("seconds           %.3f  (median of %d; open to free, generation included)\n", t, repeat);
    printf("cpu seconds       %.3f  (median; user + system of the process over the same section)\n", ct);
    printf("rows/s            %.0f  (%.2f M)\n", r / t, r / t / 1e6);
    printf("ns/row            %.1f\n", t * 1e9 / r);
    printf("output            %" PRIu64 " files, %" PRIu64 " bytes (%.1f MiB), %.2f B/row, %" PRIu64
           " partitions (generated: %" PRIu64 " non-empty, %" PRIu64 "..%" PRIu64 " rows each)\n",
           ds->files, ds->bytes, ds->bytes / 1048576.0, ds->bytes / r, ds->partitions, nonempty, pmin, pmax);
    printf("output MB/s       %.1f\n", ds->bytes / t / 1e6);
    printf("input             %" PRIu64 " bytes (8+8+len+8+1+4+len per row), input MB/s %.1f\n", res.in_bytes,
           res.in_bytes / t / 1e6);
    printf("generation alone  %.3f s  (%.1f ns/row, median of %d; subtract from seconds)\n", gt, gt * 1e9 / r,
           repeat);
    printf("without gen       %.3f s  (%.1f ns/row, %.0f rows/s)\n", t - gt, (t - gt) * 1e9 / r, r / (t - gt));
    printf("peak RSS          %.1f MiB after the first run, %.1f MiB after all (ru_maxrss, whole process)\n",
           maxrss_first / 1024.0, ru.ru_maxrss / 1024.0);
    printf("lib allocator     %" PRIu64 " allocations + %" PRIu64 " reallocations, %" PRIu64
           " bytes asked, peak live %.1f MiB, %" PRId64 " bytes live after free (last run)\n",
           res.alloc.allocs, res.alloc.reallocs, res.alloc.bytes, res.alloc.peak / 1048576.0, res.live_after);
    char bypass[32] = "na";
    if (mc_get) {
        uint64_t mc_calls = res.mc[0] + res.mc[1] + res.mc[2] + res.mc[3], lib_calls = res.alloc.allocs + res.alloc.reallocs;
        snprintf(bypass, sizeof bypass, "%" PRId64, (int64_t)mc_calls - (int64_t)lib_calls);
        printf("malloc interposer %" PRIu64 " malloc + %" PRIu64 " calloc + %" PRIu64 " realloc + %" PRIu64
               " memalign in the timed section (generation and the benchmark's own calls included); %" PRIu64
               " through the library allocator, %s not\n",
               res.mc[0], res.mc[1], res.mc[2], res.mc[3], lib_calls, bypass);
    }
    if (res.live_after != 0) {
        fprintf(stderr, "bench_dataset: the library still held %" PRId64 " bytes after inlay_dataset_free\n",
                res.live_after);
        bad = true;
    }
    printf("RESULT rows=%" PRIu64 " repeat=%d seconds=%.6f cpu_seconds=%.6f gen_seconds=%.6f files=%" PRIu64 " bytes=%" PRIu64
           " partitions=%" PRIu64 " in_bytes=%" PRIu64 " maxrss_kb=%ld maxrss_first_kb=%ld allocs=%" PRIu64
           " reallocs=%" PRIu64 " alloc_bytes=%" PRIu64 " peak_live=%" PRId64 " live_after=%" PRId64
           " bypass=%s max_open_files=%d codec=%s\n",
           rows, repeat, t, ct, gt, ds->files, ds->bytes, ds->partitions, res.in_bytes, ru.ru_maxrss, maxrss_first,
           res.alloc.allocs, res.alloc.reallocs, res.alloc.bytes, res.alloc.peak, res.live_after, bypass, o.max_open_files,
           inlay_compression_name(s.codec));

    free(times);
    free(gtimes);
    free(ctimes);
    free(b.id);
    free(b.ts);
    free(b.category);
    free(b.value);
    free(b.flag);
    free(b.day);
    free(b.platform);
    inlay_schema_free(schema);
    return bad ? 1 : 0;
}
