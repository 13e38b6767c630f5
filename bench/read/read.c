/*
 * bench_read — how fast the reader reads a Parquet file back.
 *
 *     bench_read FILE [--columns a,b] [--repeat K] [--batch N]
 *
 * Opens FILE with inlay_reader_open_file, selects the top-level fields
 * named by --columns (default: all), reads every batch with
 * inlay_reader_next and touches every value of every selected field, as
 * the DuckDB peer's aggregate (sum(hash(col)) for each column) does: the
 * sum of the numbers and a xor of their bits, the count of true
 * booleans, the lengths and first bytes of the strings, a popcount of the
 * validity bitmaps (the nulls), and the offsets of lists. Nested fields (structs,
 * lists, maps) are walked down to their leaves. The timed section runs from
 * inlay_reader_open_file() to inlay_reader_free(), touching included; the
 * touching is also timed on its own (a clock read around it per batch) so
 * that it can be subtracted.
 *
 * The library allocates through a counting allocator
 * (inlay_read_options.alloc); bytes still held after inlay_reader_free are
 * a leak and make the exit status 1. When bench/common/malloc_count.c is
 * preloaded (LD_PRELOAD), the malloc family calls of the timed section are
 * counted too, and those that did not come through the counting allocator
 * are reported.
 *
 * The last two lines are machine-readable: "CHECK rows=N name:key=value
 * ..." (per field: its null rows; per flat column also the sum of its
 * integers, the sum of its floats, its true booleans or its string bytes:
 * what bench/read/duckdb_peer.mjs computes with SQL for the check in
 * run.sh), and "RESULT key=value ...".
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "inlay.h"

#define BENCH_NAME "bench_read"
#include "bench_util.h"

/*----------------------------------------------------------------------
 *  The shape of a selected field, from the reader's schema
 *--------------------------------------------------------------------*/

typedef enum shape_kind { SHAPE_PRIMITIVE, SHAPE_STRUCT, SHAPE_LIST } shape_kind;

/* One node of the inlay_array tree inlay_reader_array hands out, as the
 * reader builds it (runtime/read/assemble.c): a primitive; a struct with a
 * child per field; a LIST or MAP whose children are the fields of its
 * repeated middle group; a bare repeated group (children: its fields) or
 * primitive (one child: its values). */
typedef struct shape {
    shape_kind kind;
    inlay_physical physical; /* primitives */
    int width;               /* FIXED_LEN_BYTE_ARRAY */
    int nkids;
    struct shape *kids;
} shape;

/* What the touching accumulates over one field's leaves. The sums are the
 * check (compared with DuckDB's); the xors only keep the compiler from
 * dropping the loads. */
typedef struct acc {
    uint64_t slots;   /* leaf slots seen (null slots included): the values */
    uint64_t nulls;   /* clear validity bits, at any level */
    uint64_t top_nulls; /* nested fields: the null rows (the top level's bits) */
    uint64_t isum;    /* integers: sum, wrapping */
    double fsum;      /* FLOAT, DOUBLE: sum */
    uint64_t trues;   /* BOOLEAN */
    uint64_t bytes;   /* BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY: lengths summed */
    uint64_t mix;     /* the values' bits, the strings' first bytes, the offsets, mixed */
} acc;

typedef struct field {
    const char *name;
    int number;       /* top-level field number for inlay_reader_select */
    shape sh;
    acc a;            /* over the last run */
} field;

static void shape_build(shape *sh, const inlay_schema *s, int node);

static void shape_kids(shape *sh, const inlay_schema *s, int group)
{
    inlay_node_info g;
    if (inlay_schema_node(s, group, &g) != INLAY_OK || g.num_children < 1)
        die("a group without fields in the schema");
    sh->nkids = g.num_children;
    sh->kids = xmalloc((size_t)g.num_children * sizeof *sh->kids);
    int i = 0;
    for (int k = g.first_child; k >= 0 && i < g.num_children; i++) {
        inlay_node_info c;
        if (inlay_schema_node(s, k, &c) != INLAY_OK)
            die("a schema node that does not exist");
        shape_build(&sh->kids[i], s, k);
        k = c.next_sibling;
    }
    if (i != g.num_children)
        die("a group's children do not add up");
}

static void shape_build(shape *sh, const inlay_schema *s, int node)
{
    inlay_node_info n;
    memset(sh, 0, sizeof *sh);
    if (inlay_schema_node(s, node, &n) != INLAY_OK)
        die("a schema node that does not exist");
    if (!n.is_group) {
        if (n.repetition != INLAY_REPEATED) {
            sh->kind = SHAPE_PRIMITIVE;
            sh->physical = n.type.physical;
            sh->width = n.type.type_length;
            return;
        }
        sh->kind = SHAPE_LIST;
        sh->nkids = 1;
        sh->kids = xmalloc(sizeof *sh->kids);
        memset(sh->kids, 0, sizeof *sh->kids);
        sh->kids[0].kind = SHAPE_PRIMITIVE;
        sh->kids[0].physical = n.type.physical;
        sh->kids[0].width = n.type.type_length;
        return;
    }
    if (n.group == INLAY_GROUP_LIST || n.group == INLAY_GROUP_MAP) {
        if (n.num_children != 1)
            die("a LIST or MAP without one repeated group");
        sh->kind = SHAPE_LIST;
        shape_kids(sh, s, n.first_child);
        return;
    }
    sh->kind = n.repetition == INLAY_REPEATED ? SHAPE_LIST : SHAPE_STRUCT;
    shape_kids(sh, s, node);
}

static void shape_free(shape *sh)
{
    for (int i = 0; i < sh->nkids; i++)
        shape_free(&sh->kids[i]);
    free(sh->kids);
}

static bool shape_flat(const shape *sh)
{
    return sh->kind == SHAPE_PRIMITIVE;
}

/*----------------------------------------------------------------------
 *  Touching the values
 *--------------------------------------------------------------------*/

static inline bool bit(const uint8_t *v, size_t i)
{
    return (v[i >> 3] >> (i & 7)) & 1;
}

static uint64_t count_nulls(const uint8_t *v, size_t n)
{
    uint64_t set = 0;
    size_t whole = n / 64, i;
    for (i = 0; i < whole; i++) {
        uint64_t w;
        memcpy(&w, v + i * 8, 8);
        set += (uint64_t)__builtin_popcountll(w);
    }
    for (i = whole * 64; i < n; i++)
        set += bit(v, i);
    return (uint64_t)n - set;
}

/* The primitives: a loop per type, without and with a validity bitmap
 * (null slots are skipped: their contents are unspecified). Dense, the
 * loops are a sum and a xor the compiler vectorizes, and doubles are
 * summed in four lanes: the touching should cost far less than the
 * reading it forces. */
#define TOUCH_LOOP(T, BODY)                                        \
    do {                                                           \
        const T *x = (const T *)arr->values;                       \
        if (!val) {                                                \
            for (size_t i = 0; i < n; i++) {                       \
                T v = x[i];                                        \
                BODY;                                              \
            }                                                      \
        } else {                                                   \
            for (size_t i = 0; i < n; i++) {                       \
                if (!bit(val, i))                                  \
                    continue;                                      \
                T v = x[i];                                        \
                BODY;                                              \
            }                                                      \
        }                                                          \
    } while (0)

static inline uint64_t bits64(double d)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}

static inline uint32_t bits32(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

/* four lanes of sums, in a fixed order: the same total in every run */
#define FSUM4(T, BITS)                                             \
    do {                                                           \
        const T *x = (const T *)arr->values;                       \
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;                     \
        size_t i = 0;                                              \
        for (; i + 4 <= n; i += 4) {                               \
            s0 += x[i];                                            \
            s1 += x[i + 1];                                        \
            s2 += x[i + 2];                                        \
            s3 += x[i + 3];                                        \
        }                                                          \
        for (; i < n; i++)                                         \
            s0 += x[i];                                            \
        fsum = (s0 + s1) + (s2 + s3);                              \
        for (i = 0; i < n; i++)                                    \
            mix ^= BITS(x[i]);                                     \
    } while (0)

static void touch_primitive(const shape *sh, const inlay_array *arr, acc *a)
{
    size_t n = arr->length;
    const uint8_t *val = arr->validity;
    a->slots += n;
    if (val)
        a->nulls += count_nulls(val, n);
    if (n == 0)
        return;
    uint64_t isum = 0, mix = 0, trues = 0, bytes = 0;
    double fsum = 0;
    switch (sh->physical) {
    case INLAY_BOOLEAN:
        /* bool is one byte, 0 or 1 */
        TOUCH_LOOP(uint8_t, trues += v);
        break;
    case INLAY_INT32:
        TOUCH_LOOP(int32_t, { isum += (uint64_t)(int64_t)v; mix ^= (uint32_t)v; });
        break;
    case INLAY_INT64:
        TOUCH_LOOP(int64_t, { isum += (uint64_t)v; mix ^= (uint64_t)v; });
        break;
    case INLAY_FLOAT:
        if (!val)
            FSUM4(float, bits32);
        else
            TOUCH_LOOP(float, { fsum += v; mix ^= bits32(v); });
        break;
    case INLAY_DOUBLE:
        if (!val)
            FSUM4(double, bits64);
        else
            TOUCH_LOOP(double, { fsum += v; mix ^= bits64(v); });
        break;
    case INLAY_BYTE_ARRAY:
    case INLAY_FIXED_LEN_BYTE_ARRAY:
        TOUCH_LOOP(inlay_bytes, {
            bytes += v.len;
            mix += v.len ? ((const uint8_t *)v.data)[0] : 0x100u;
        });
        break;
    default:
        die("a primitive of an unknown physical type");
    }
    a->isum += isum;
    a->fsum += fsum;
    a->trues += trues;
    a->bytes += bytes;
    /* fold the batch's mix in so that a xor over 0, 1, 2, ... does not
     * cancel out in the digest */
    a->mix = (a->mix ^ mix) * 0x9e3779b97f4a7c15ull + 1;
}

static void touch(const shape *sh, const inlay_array *arr, acc *a)
{
    if (!arr)
        die("a selected field without an array");
    if (sh->kind == SHAPE_PRIMITIVE) {
        touch_primitive(sh, arr, a);
        return;
    }
    size_t n = arr->length;
    if (arr->validity)
        a->nulls += count_nulls(arr->validity, n);
    if (sh->kind == SHAPE_LIST) {
        if (!arr->offsets)
            die("a list without offsets");
        uint64_t m = 0;
        for (size_t i = 0; i <= n; i++)
            m += (uint32_t)arr->offsets[i];
        a->mix = (a->mix ^ m) * 0x9e3779b97f4a7c15ull + 1;
    }
    for (int k = 0; k < sh->nkids; k++)
        touch(&sh->kids[k], &arr->children[k], a);
}

/*----------------------------------------------------------------------
 *  One timed read
 *--------------------------------------------------------------------*/

typedef struct run_result {
    double seconds;       /* open to free */
    double open_seconds;  /* inlay_reader_open_file + select */
    double touch_seconds; /* the touching alone, summed over the batches */
    uint64_t rows;
    uint64_t batches;
    counting alloc;
    uint64_t mc[5];       /* interposer counts during the timed section */
    int64_t live_after;   /* library bytes still held after free (a leak if > 0) */
} run_result;

#define CHECK(call)                                                                  \
    do {                                                                             \
        int st_ = (call);                                                            \
        if (st_ != INLAY_OK) {                                                       \
            fprintf(stderr, "bench_read: %s failed: %s: %s\n", #call,                \
                    inlay_strerror(st_), r ? inlay_reader_errmsg(r) : "");           \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static void read_once(const char *path, field *fields, int nfields, const int *numbers, bool all,
                      size_t batch_rows, run_result *res)
{
    counting cnt;
    memset(&cnt, 0, sizeof cnt);
    inlay_read_options opt;
    inlay_read_options_init(&opt);
    opt.alloc.fn = counting_alloc;
    opt.alloc.ud = &cnt;
    if (batch_rows)
        opt.batch_rows = batch_rows;
    for (int k = 0; k < nfields; k++)
        memset(&fields[k].a, 0, sizeof fields[k].a);

    inlay_reader *r = NULL;
    uint64_t mc0[5] = {0}, mc1[5] = {0};
    double touch_t = 0;
    uint64_t rows = 0, batches = 0;

    if (mc_arm) {
        mc_get(mc0);
        mc_arm(1);
    }
    double t0 = now();

    int st = inlay_reader_open_file(&r, path, &opt);
    if (st != INLAY_OK) {
        if (mc_arm)
            mc_arm(0);
        fprintf(stderr, "bench_read: cannot open %s: %s: %s\n", path, inlay_strerror(st),
                r ? inlay_reader_errmsg(r) : "");
        inlay_reader_free(r);
        exit(1);
    }
    if (!all)
        CHECK(inlay_reader_select(r, numbers, nfields, NULL, 0));
    double t_open = now();

    for (;;) {
        size_t n = 0;
        CHECK(inlay_reader_next(r, 0, &n));
        if (n == 0)
            break;
        double a0 = now();
        for (int k = 0; k < nfields; k++) {
            const inlay_array *arr = inlay_reader_array(r, k);
            touch(&fields[k].sh, arr, &fields[k].a);
            if (!shape_flat(&fields[k].sh) && arr->validity)
                fields[k].a.top_nulls += count_nulls(arr->validity, arr->length);
        }
        touch_t += now() - a0;
        rows += n;
        batches++;
    }
    inlay_reader_free(r);

    double t1 = now();
    if (mc_arm) {
        mc_arm(0);
        mc_get(mc1);
    }
    res->seconds = t1 - t0;
    res->open_seconds = t_open - t0;
    res->touch_seconds = touch_t;
    res->rows = rows;
    res->batches = batches;
    res->alloc = cnt;
    res->live_after = cnt.live;
    for (int i = 0; i < 5; i++)
        res->mc[i] = mc1[i] - mc0[i];
}

/*----------------------------------------------------------------------
 *  main
 *--------------------------------------------------------------------*/

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bench_read FILE [--columns a,b] [--repeat K] [--batch N]\n"
            "  --columns a,b  the top-level fields to read, in that order (default: all)\n"
            "  --repeat K     read the file K times and report the median (default 1)\n"
            "  --batch N      rows per batch (default: the library's, %d)\n",
            INLAY_DEFAULT_BATCH_ROWS);
}

static const char *physical_name(inlay_physical p)
{
    switch (p) {
    case INLAY_BOOLEAN: return "BOOLEAN";
    case INLAY_INT32: return "INT32";
    case INLAY_INT64: return "INT64";
    case INLAY_FLOAT: return "FLOAT";
    case INLAY_DOUBLE: return "DOUBLE";
    case INLAY_BYTE_ARRAY: return "BYTE_ARRAY";
    case INLAY_FIXED_LEN_BYTE_ARRAY: return "FIXED_LEN_BYTE_ARRAY";
    }
    return "?";
}

static const char *codec_name(int c)
{
    switch (c) {
    case 0: return "uncompressed";
    case 1: return "snappy";
    case 2: return "gzip";
    case 3: return "lzo";
    case 4: return "brotli";
    case 5: return "lz4";
    case 6: return "zstd";
    case 7: return "lz4_raw";
    }
    return "?";
}

int main(int argc, char **argv)
{
    const char *path = NULL, *columns = NULL;
    int repeat = 1;
    size_t batch_rows = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (a[0] != '-' || !a[1]) {
            if (path) {
                usage(stderr);
                return 2;
            }
            path = a;
            continue;
        }
        if (i + 1 >= argc) {
            usage(stderr);
            return 2;
        }
        const char *v = argv[++i];
        if (!strcmp(a, "--columns"))
            columns = v;
        else if (!strcmp(a, "--repeat"))
            repeat = (int)parse_u64(a, v);
        else if (!strcmp(a, "--batch"))
            batch_rows = (size_t)parse_u64(a, v);
        else {
            usage(stderr);
            return 2;
        }
    }
    if (!path) {
        usage(stderr);
        return 2;
    }
    if (repeat < 1 || repeat > 1000) {
        fprintf(stderr, "bench_read: --repeat 1..1000\n");
        return 2;
    }
    mc_find();
    (void)rng_seed; /* bench_util.h's PRNG: not needed here */

    struct stat stt;
    if (stat(path, &stt) != 0) {
        perror(path);
        return 1;
    }
    uint64_t file_bytes = (uint64_t)stt.st_size;

    /* Look at the file first, untimed, with malloc: the schema, the fields
     * chosen, what the footer says. */
    inlay_reader *r = NULL;
    int st = inlay_reader_open_file(&r, path, NULL);
    if (st != INLAY_OK) {
        fprintf(stderr, "bench_read: cannot open %s: %s: %s\n", path, inlay_strerror(st),
                r ? inlay_reader_errmsg(r) : "");
        inlay_reader_free(r);
        return 1;
    }
    const inlay_schema *s = inlay_reader_schema(r);
    const inlay_file_info *info = inlay_reader_info(r);
    inlay_node_info root;
    if (inlay_schema_node(s, 0, &root) != INLAY_OK)
        die("the schema has no root");
    int ntop = root.num_children;
    int *top_nodes = xmalloc((size_t)(ntop > 0 ? ntop : 1) * sizeof *top_nodes);
    {
        int i = 0;
        for (int k = root.first_child; k >= 0 && i < ntop; i++) {
            inlay_node_info c;
            if (inlay_schema_node(s, k, &c) != INLAY_OK)
                die("a schema node that does not exist");
            top_nodes[i] = k;
            k = c.next_sibling;
        }
    }

    field *fields;
    int nfields = 0;
    bool all = columns == NULL;
    if (all) {
        fields = xmalloc((size_t)(ntop > 0 ? ntop : 1) * sizeof *fields);
        for (int i = 0; i < ntop; i++) {
            inlay_node_info c;
            inlay_schema_node(s, top_nodes[i], &c);
            fields[nfields].name = strdup(c.name);
            fields[nfields].number = i;
            nfields++;
        }
    } else {
        size_t cap = 1;
        for (const char *p = columns; *p; p++)
            cap += *p == ',';
        fields = xmalloc(cap * sizeof *fields);
        char *list = strdup(columns), *save = NULL;
        for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            int num = inlay_reader_field(r, tok);
            if (num < 0) {
                fprintf(stderr, "bench_read: %s has no top-level field '%s'\n", path, tok);
                return 2;
            }
            for (int k = 0; k < nfields; k++)
                if (fields[k].number == num) {
                    fprintf(stderr, "bench_read: field '%s' given twice\n", tok);
                    return 2;
                }
            fields[nfields].name = strdup(tok);
            fields[nfields].number = num;
            nfields++;
        }
        free(list);
        if (nfields == 0) {
            fprintf(stderr, "bench_read: --columns names no field\n");
            return 2;
        }
    }
    int *numbers = xmalloc((size_t)nfields * sizeof *numbers);
    for (int k = 0; k < nfields; k++) {
        numbers[k] = fields[k].number;
        shape_build(&fields[k].sh, s, top_nodes[fields[k].number]);
    }

    /* the codecs and the leaf columns of the chosen fields */
    uint32_t codecs = 0;
    for (int g = 0; g < info->num_row_groups; g++)
        for (int c = 0; c < info->num_columns; c++) {
            int codec = info->row_groups[g].chunks[c].codec;
            if (codec >= 0 && codec < 32)
                codecs |= 1u << codec;
        }
    char codec_list[96] = "";
    for (int c = 0; c < 32; c++)
        if (codecs & (1u << c)) {
            size_t l = strlen(codec_list);
            snprintf(codec_list + l, sizeof codec_list - l, "%s%s", l ? "," : "", codec_name(c));
        }

    inlay_read_options defaults;
    inlay_read_options_init(&defaults);
    printf("inlay %s read: %s\n", inlay_version(), path);
    printf("file: %" PRIu64 " bytes, %" PRId64 " rows, %d row groups, %d leaf columns, %s, "
           "created by %s\n",
           file_bytes, info->num_rows, info->num_row_groups, info->num_columns, codec_list,
           info->created_by[0] ? info->created_by : "?");
    printf("reading %d of %d fields in batches of %zu rows:", nfields, ntop,
           batch_rows ? batch_rows : defaults.batch_rows);
    for (int k = 0; k < nfields; k++) {
        inlay_node_info c;
        inlay_schema_node(s, top_nodes[fields[k].number], &c);
        if (shape_flat(&fields[k].sh))
            printf(" %s %s%s", fields[k].name, physical_name(c.type.physical),
                   c.repetition == INLAY_OPTIONAL ? " (optional)" : "");
        else
            printf(" %s (nested)", fields[k].name);
        printf("%s", k + 1 < nfields ? "," : "\n");
    }
    uint64_t expect_rows = (uint64_t)info->num_rows;
    int row_groups = info->num_row_groups;
    inlay_reader_free(r);
    fflush(stdout);

    double *times = xmalloc((size_t)repeat * sizeof *times);
    double *otimes = xmalloc((size_t)repeat * sizeof *otimes);
    double *ttimes = xmalloc((size_t)repeat * sizeof *ttimes);
    acc *first = xmalloc((size_t)nfields * sizeof *first);
    run_result res;
    memset(&res, 0, sizeof res);
    long maxrss_first = 0;
    struct rusage ru;
    int status = 0;
    for (int k = 0; k < repeat; k++) {
        read_once(path, fields, nfields, numbers, all, batch_rows, &res);
        times[k] = res.seconds;
        otimes[k] = res.open_seconds;
        ttimes[k] = res.touch_seconds;
        if (res.rows != expect_rows) {
            fprintf(stderr, "bench_read: read %" PRIu64 " rows, the footer says %" PRIu64 "\n", res.rows,
                    expect_rows);
            return 1;
        }
        if (res.live_after != 0) {
            fprintf(stderr, "bench_read: the library still held %" PRId64 " bytes after inlay_reader_free\n",
                    res.live_after);
            status = 1;
        }
        if (k == 0) {
            getrusage(RUSAGE_SELF, &ru);
            maxrss_first = ru.ru_maxrss;
            for (int f = 0; f < nfields; f++)
                first[f] = fields[f].a;
        } else {
            for (int f = 0; f < nfields; f++)
                if (memcmp(&first[f], &fields[f].a, sizeof first[f]) != 0) {
                    fprintf(stderr, "bench_read: run %d read other values of '%s' than run 1\n", k + 1,
                            fields[f].name);
                    return 1;
                }
        }
        printf("  run %d/%d: %.3f s  (open %.4f s, touching %.3f s)\n", k + 1, repeat, res.seconds,
               res.open_seconds, res.touch_seconds);
        fflush(stdout);
    }

    double tmin = times[0];
    for (int k = 1; k < repeat; k++)
        if (times[k] < tmin)
            tmin = times[k];
    double t = median(times, repeat);
    double ot = median(otimes, repeat);
    double tt = median(ttimes, repeat);
    getrusage(RUSAGE_SELF, &ru);
    uint64_t values = 0, nulls = 0, mix = 0;
    for (int f = 0; f < nfields; f++) {
        values += fields[f].a.slots;
        nulls += fields[f].a.nulls;
        mix ^= fields[f].a.mix * (2 * (uint64_t)f + 1);
    }
    double rws = (double)res.rows, vals = (double)values;

    printf("rows              %" PRIu64 " in %" PRIu64 " batches\n", res.rows, res.batches);
    printf("seconds           %.3f  (median of %d; open to free, touching every value included)\n", t,
           repeat);
    printf("rows/s            %.0f  (%.2f M)\n", rws / t, rws / t / 1e6);
    printf("ns/row            %.1f\n", t * 1e9 / rws);
    printf("values            %" PRIu64 " (leaf slots, nulls included; %" PRIu64 " nulls)\n", values, nulls);
    printf("ns/value          %.2f\n", t * 1e9 / vals);
    printf("file MB/s         %.1f  (%" PRIu64 " bytes, all of the file, whatever the columns)\n",
           file_bytes / t / 1e6, file_bytes);
    printf("open              %.4f s  (inlay_reader_open_file: the footer and schema; median)\n", ot);
    printf("touching alone    %.3f s  (%.2f ns/value, median; subtract from seconds)\n", tt, tt * 1e9 / vals);
    printf("without touching  %.3f s  (%.1f ns/row, %.2f ns/value, %.0f rows/s)\n", t - tt,
           (t - tt) * 1e9 / rws, (t - tt) * 1e9 / vals, rws / (t - tt));
    printf("peak RSS          %.1f MiB after the first run, %.1f MiB after all (ru_maxrss, whole process)\n",
           maxrss_first / 1024.0, ru.ru_maxrss / 1024.0);
    printf("lib allocator     %" PRIu64 " allocations + %" PRIu64 " reallocations, %" PRIu64
           " bytes asked, peak live %.1f MiB, %" PRId64 " bytes live after free (per run)\n",
           res.alloc.allocs, res.alloc.reallocs, res.alloc.bytes, res.alloc.peak / 1048576.0, res.live_after);
    uint64_t mc_calls = 0, lib_calls = res.alloc.allocs + res.alloc.reallocs;
    char bypass[32] = "na";
    if (mc_get) {
        mc_calls = res.mc[0] + res.mc[1] + res.mc[2] + res.mc[3];
        printf("malloc interposer %" PRIu64 " malloc + %" PRIu64 " calloc + %" PRIu64 " realloc + %" PRIu64
               " memalign in the timed section; %" PRIu64 " through the library allocator, %" PRId64
               " bypassing it\n",
               res.mc[0], res.mc[1], res.mc[2], res.mc[3], lib_calls, (int64_t)mc_calls - (int64_t)lib_calls);
        snprintf(bypass, sizeof bypass, "%" PRId64, (int64_t)mc_calls - (int64_t)lib_calls);
    } else {
        printf("malloc interposer not loaded (LD_PRELOAD=.../libbench_malloc_count.so to check "
               "for allocations that bypass the library allocator)\n");
    }
    printf("digest            %016" PRIx64 "\n", mix);

    /* CHECK: per flat field, what duckdb_peer.mjs computes in SQL */
    printf("CHECK rows=%" PRIu64, res.rows);
    for (int f = 0; f < nfields; f++) {
        const field *fl = &fields[f];
        if (!shape_flat(&fl->sh)) {
            printf(" %s:nulls=%" PRIu64, fl->name, fl->a.top_nulls);
            continue;
        }
        printf(" %s:nulls=%" PRIu64, fl->name, fl->a.nulls);
        switch (fl->sh.physical) {
        case INLAY_BOOLEAN:
            printf(" %s:true=%" PRIu64, fl->name, fl->a.trues);
            break;
        case INLAY_INT32:
        case INLAY_INT64:
            printf(" %s:sum=%" PRIu64, fl->name, fl->a.isum);
            break;
        case INLAY_FLOAT:
        case INLAY_DOUBLE:
            printf(" %s:fsum=%.17g", fl->name, fl->a.fsum);
            break;
        default:
            printf(" %s:bytes=%" PRIu64, fl->name, fl->a.bytes);
            break;
        }
    }
    printf("\n");
    printf("RESULT rows=%" PRIu64 " repeat=%d seconds=%.6f min_seconds=%.6f open_seconds=%.6f touch_seconds=%.6f file_bytes=%" PRIu64
           " row_groups=%d fields=%d values=%" PRIu64 " nulls=%" PRIu64 " batches=%" PRIu64
           " maxrss_kb=%ld maxrss_first_kb=%ld allocs=%" PRIu64 " reallocs=%" PRIu64 " alloc_bytes=%" PRIu64
           " peak_live=%" PRId64 " live_after=%" PRId64 " bypass=%s digest=%016" PRIx64 "\n",
           res.rows, repeat, t, tmin, ot, tt, file_bytes, row_groups, nfields, values, nulls, res.batches, ru.ru_maxrss,
           maxrss_first, res.alloc.allocs, res.alloc.reallocs, res.alloc.bytes, res.alloc.peak, res.live_after,
           bypass, mix);

    for (int f = 0; f < nfields; f++) {
        shape_free(&fields[f].sh);
        free((char *)fields[f].name);
    }
    free(fields);
    free(numbers);
    free(top_nodes);
    free(times);
    free(otimes);
    free(ttimes);
    free(first);
    return status;
}
