/*
 * bench_encodings — the encoders and memo tables one at a time, and the
 * public writer on single-column shapes, against the machine's limits.
 *
 *     bench_encodings [--repeat K] [--sample-ms M] [--seed S] [--no-limits]
 *                     [--case ID] [section ...]
 *
 * Sections (default: all, in this order):
 *
 *     limits           memcpy bandwidth and XXH3_64bits alone: the physical
 *                      floor the other figures are read against
 *     dict_byte_array  memo_bytes insert-or-get of byte strings, and the
 *                      writer's DICTIONARY path for a BYTE_ARRAY column
 *     dict_fixed_len   the same for FIXED_LEN_BYTE_ARRAY(16)
 *     dict_int64       memo_fixed insert-or-get of int64 values
 *     dict_double      the same for doubles
 *     time_column      TIMESTAMP(us) rows through a long-lived writer with
 *                      DELTA encoding: append_i64 and append_time
 *     delta            DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and
 *                      DELTA_BYTE_ARRAY encoders
 *     byte_stream_split  BYTE_STREAM_SPLIT of doubles and floats
 *     rle              RLE of booleans and of dictionary indices
 *
 * The limits line is printed first whatever sections are named (unless
 * --no-limits).
 *
 * Every case is a "run" function called over and over. The first calls are
 * a warm-up (the tables and buffers grow to their steady size; a writer
 * goes through four row groups, so every chunk buffer it rotates has
 * grown); then each of K samples calls it
 * `inner` times back to back (inner is chosen so that a sample lasts about
 * --sample-ms, never less than the case's minimum) and the median sample
 * gives the time per run. Allocations are counted through a counting
 * inlay_allocator over all the timed runs, after the warm-up, so they are
 * the steady state. When bench/common/malloc_count.c is preloaded
 * (LD_PRELOAD), the malloc family calls of the timed runs are counted too.
 *
 * Writers write to a sink that discards the bytes (it only counts them), so
 * no sink buffer grows.
 *
 * After the tables, one "RESULT key=value ..." line per case, for scripts.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlay.h"

#include "alloc.h"
#include "bool_rle.h"
#include "bss.h"
#include "delta.h"
#include "memo.h"
#include "rle.h"

/* Inlined XXH3 trips a false -Warray-bounds on short keys (as in memo.c). */
#pragma GCC diagnostic ignored "-Warray-bounds"
#define XXH_INLINE_ALL
#include <xxhash.h>

#define BENCH_NAME "bench_encodings"
#include "bench_util.h"

/*----------------------------------------------------------------------
 *  PRNG: xoshiro256** seeded by splitmix64 (bench_util.h)
 *--------------------------------------------------------------------*/

/* A bijection of 64-bit values: distinct inputs give distinct outputs. */
static uint64_t mix64(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A generator of its own for each case, so that a case's data does not
 * depend on which other cases ran (--case). */
static void rng_for(rng *r, uint64_t seed, const char *section, const char *id)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (const char *p = section; *p; p++)
        h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
    for (const char *p = id; *p; p++)
        h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
    rng_seed(r, seed ^ h);
}

/* Uniform in [0, n) for n < 2^32 (Lemire's multiply-shift). */
static inline uint32_t below(rng *r, uint32_t n)
{
    return (uint32_t)(((rng_next(r) >> 32) * n) >> 32);
}

/* Uniform in [0, 1). */
static inline double unit_double(rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/*----------------------------------------------------------------------
 *  The counting allocator given to the library
 *--------------------------------------------------------------------*/

static counting g_cnt;

/* Memo tables keep a pointer to their allocator: it must outlive them. */
static const inlay_allocator g_alloc = {counting_alloc, &g_cnt};

/* Keep a value "used" so the compiler cannot drop the work behind it. */
static volatile uint64_t g_sink_value;

/*----------------------------------------------------------------------
 *  Measuring one case
 *--------------------------------------------------------------------*/

static int g_repeat = 5;
static double g_sample_s = 0.05;
static const char *g_only; /* --case: run only cases with this id */

static bool wanted(const char *id)
{
    return !g_only || !strcmp(g_only, id);
}

typedef struct bench_case {
    const char *id;      /* short, for RESULT */
    const char *label;   /* for the table */
    void (*run)(void *ctx);
    void *ctx;
    double values;       /* values per run */
    double in_bytes;     /* input bytes per run, for MB/s; 0: not shown */
    int warm;            /* warm-up runs */
    int min_inner;       /* runs per sample, at least */
    const struct bench_case *partner;   /* NULL, or a case sampled in turn with this one */
} bench_case;

typedef struct result {
    const char *section, *id;
    double ns_value;     /* median */
    double ns_min, ns_max;
    double us_run;
    double mbs;          /* 0: not meaningful */
    double ratio;        /* ns_value / the limit's ns per value; 0: none */
    double allocs, bytes;               /* per run, after the warm-up */
    uint64_t allocs_total, runs;
    double mallocs;      /* per run; < 0 when the interposer is not loaded */
    int64_t bypass;      /* malloc-family calls that did not come through the counting allocator */
    int inner;
    double partner_ns;   /* the partner's median ns per value; 0: no partner */
    double memo_ratio;   /* median over the sample pairs of ns_value / the partner's (the memo table
                            alone on the same values, for the writer cases); 0: none */
} result;

#define MAX_RESULTS 96
static result g_results[MAX_RESULTS];
static int g_nresults;

static result measure(const bench_case *bc)
{
    static double samples[1000];
    result r;
    memset(&r, 0, sizeof r);
    r.id = bc->id;

    static double psamples[1000], ratios[1000];
    const bench_case *pb = bc->partner;
    int pinner = 0;
    if (pb) {   /* the partner warmed and sized the same way */
        double p0 = now();
        for (int i = 0; i < pb->warm; i++)
            pb->run(pb->ctx);
        double pw = (now() - p0) / (pb->warm > 0 ? pb->warm : 1);
        double pwant = pw > 0 ? ceil(g_sample_s / pw) : 1;
        pinner = pb->min_inner > 0 ? pb->min_inner : 1;
        if (pwant > 1e6)
            pwant = 1e6;
        if (pwant > pinner)
            pinner = (int)pwant;
    }

    double t0 = now();
    for (int i = 0; i < bc->warm; i++)
        bc->run(bc->ctx);
    double tw = (now() - t0) / (bc->warm > 0 ? bc->warm : 1);
    double want = tw > 0 ? ceil(g_sample_s / tw) : 1;
    if (want > 1e6)
        want = 1e6;
    int inner = bc->min_inner > 0 ? bc->min_inner : 1;
    if (want > inner)
        inner = (int)want;

    counting c0 = g_cnt;
    uint64_t mc0[5] = {0}, mc1[5] = {0};
    if (mc_arm) {
        mc_get(mc0);
        mc_arm(1);
    }
    for (int k = 0; k < g_repeat; k++) {
        if (pb) {   /* the partner's sample just before, so both meet the same machine */
            double p0 = now();
            for (int j = 0; j < pinner; j++)
                pb->run(pb->ctx);
            psamples[k] = (now() - p0) / pinner / pb->values;
        }
        double s0 = now();
        for (int j = 0; j < inner; j++)
            bc->run(bc->ctx);
        samples[k] = (now() - s0) / inner;
        if (pb)
            ratios[k] = samples[k] / bc->values / psamples[k];
    }
    if (mc_arm) {
        mc_arm(0);
        mc_get(mc1);
    }
    counting c1 = g_cnt;

    if (pb) {
        r.memo_ratio = median(ratios, g_repeat);
        r.partner_ns = median(psamples, g_repeat) * 1e9;
    }
    double t = median(samples, g_repeat); /* sorts samples */
    double runs = (double)g_repeat * inner;
    r.runs = (uint64_t)runs;
    r.inner = inner;
    r.us_run = t * 1e6;
    r.ns_value = t * 1e9 / bc->values;
    r.ns_min = samples[0] * 1e9 / bc->values;
    r.ns_max = samples[g_repeat - 1] * 1e9 / bc->values;
    r.mbs = bc->in_bytes > 0 ? bc->in_bytes / t / 1e6 : 0;
    r.allocs_total = (c1.allocs - c0.allocs) + (c1.reallocs - c0.reallocs);
    r.allocs = (double)r.allocs_total / runs;
    r.bytes = (double)(c1.bytes - c0.bytes) / runs;
    r.mallocs = -1;
    if (mc_get) {
        uint64_t calls = 0;
        for (int i = 0; i < 4; i++)
            calls += mc1[i] - mc0[i];
        r.mallocs = (double)calls / runs;
        r.bypass = (int64_t)calls - (int64_t)r.allocs_total;
    }
    return r;
}

/* A count per run: integers as such, fractions with a few digits. */
static const char *fmt_count(char *b, size_t cap, double v)
{
    if (v < 0)
        snprintf(b, cap, "-");
    else if (v == floor(v))
        snprintf(b, cap, "%.0f", v);
    else if (v < 0.01)
        snprintf(b, cap, "%.2g", v);
    else
        snprintf(b, cap, "%.3g", v);
    return b;
}

static void print_header(const char *section, const char *what, const char *limit_name)
{
    printf("\n== %s: %s\n", section, what);
    printf("  %-40s %9s %10s %9s %8s %10s %10s %10s\n", "case", "ns/value", "us/run", "MB/s",
           limit_name, "allocs/run", "bytes/run", "malloc/run");
}

/* Print and record a measured case. limit_ns: the limit's ns per value
 * (0: none). extra: appended to the line (may be NULL). */
static void report(const char *section, const char *label, result *r, double limit_ns,
                   const char *extra)
{
    r->section = section;
    r->ratio = limit_ns > 0 ? r->ns_value / limit_ns : 0;
    char mbs[32], ratio[32], a[32], b[32], m[40];
    if (r->mbs > 0)
        snprintf(mbs, sizeof mbs, "%.0f", r->mbs);
    else
        snprintf(mbs, sizeof mbs, "-");
    if (r->ratio > 0)
        snprintf(ratio, sizeof ratio, "%.2fx", r->ratio);
    else
        snprintf(ratio, sizeof ratio, "-");
    fmt_count(m, sizeof m, r->mallocs);
    if (r->mallocs >= 0 && r->bypass != 0) {
        size_t l = strlen(m);
        snprintf(m + l, sizeof m - l, " (%+" PRId64 ")", r->bypass);
    }
    printf("  %-40s %9.2f %10.1f %9s %8s %10s %10s %10s%s%s\n", label, r->ns_value, r->us_run,
           mbs, ratio, fmt_count(a, sizeof a, r->allocs), fmt_count(b, sizeof b, r->bytes), m,
           extra ? "  " : "", extra ? extra : "");
    fflush(stdout);
    if (g_nresults < MAX_RESULTS)
        g_results[g_nresults++] = *r;
}

static void bench(const char *section, const bench_case *bc, double limit_ns, const char *extra)
{
    result r = measure(bc);
    report(section, bc->label, &r, limit_ns, extra);
}

/*----------------------------------------------------------------------
 *  Data
 *--------------------------------------------------------------------*/

#define TS_START 1704067200000000LL /* 2024-01-01T00:00:00Z in microseconds */
#define SEED_VALUES 65535           /* arrow-go's BenchmarkEncodeDictByteArray */
#define SEED_DISTINCT 100
#define STR_MIN 8
#define STR_MAX 32
#define BIG 1000000
#define PAGE INLAY_DEFAULT_PAGE_ROWS /* encoder inputs are one page of values */

static uint64_t g_seed = 42;

/* n distinct values stored back to back in one pool, and their views. */
typedef struct strset {
    uint8_t *pool;
    inlay_bytes *v;
    size_t n;
    uint64_t bytes; /* sum of the lengths */
} strset;

static void strset_free(strset *s)
{
    free(s->pool);
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* n distinct ASCII strings of minlen..maxlen bytes (minlen >= 4): the first
 * four characters are entry j's number in base 36, least significant digit
 * first (distinct for n up to 36^4), the rest random. */
static void make_strings(strset *s, size_t n, size_t minlen, size_t maxlen, rng *r)
{
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789_-";
    if (n > 36u * 36 * 36 * 36)
        die("too many distinct strings");
    s->pool = xmalloc(n * maxlen);
    s->v = xmalloc(n * sizeof *s->v);
    s->n = n;
    s->bytes = 0;
    uint8_t *p = s->pool;
    for (size_t j = 0; j < n; j++) {
        size_t len = minlen + below(r, (uint32_t)(maxlen - minlen + 1));
        size_t x = j;
        for (int d = 0; d < 4; d++, x /= 36)
            p[d] = (uint8_t)digits[x % 36];
        for (size_t k = 4; k < len; k++)
            p[k] = (uint8_t)alphabet[below(r, sizeof alphabet - 1)];
        s->v[j].data = p;
        s->v[j].len = len;
        s->bytes += len;
        p += len;
    }
}

/* n distinct fixed-width values: 8 bytes of mix64(j) (a bijection, so
 * distinct), the rest random. */
static void make_fixed(strset *s, size_t n, size_t width, rng *r)
{
    s->pool = xmalloc(n * width);
    s->v = xmalloc(n * sizeof *s->v);
    s->n = n;
    s->bytes = (uint64_t)n * width;
    for (size_t j = 0; j < n; j++) {
        uint8_t *p = s->pool + j * width;
        uint64_t x = mix64(j + 1);
        memcpy(p, &x, width < 8 ? width : 8);
        for (size_t k = 8; k < width; k++)
            p[k] = (uint8_t)rng_next(r);
        s->v[j].data = p;
        s->v[j].len = width;
    }
}

/* Shuffle n items of `size` bytes (Fisher-Yates). */
static void shuffle(void *base, size_t n, size_t size, rng *r)
{
    uint8_t *b = base, tmp[64];
    if (size > sizeof tmp)
        die("shuffle: item too large");
    for (size_t i = n; i > 1; i--) {
        size_t j = below(r, (uint32_t)i);
        memcpy(tmp, b + (i - 1) * size, size);
        memcpy(b + (i - 1) * size, b + j * size, size);
        memcpy(b + j * size, tmp, size);
    }
}

/* n values drawn from a set so that every one of its values appears: the
 * set once, the rest at random, shuffled; or the set itself, in order,
 * when n equals its size. *bytes gets the sum of their lengths. */
static inlay_bytes *draw(const strset *d, size_t n, rng *r, uint64_t *bytes)
{
    if (n < d->n)
        die("draw: fewer values than distinct ones");
    inlay_bytes *v = xmalloc(n * sizeof *v);
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        v[i] = i < d->n ? d->v[i] : d->v[below(r, (uint32_t)d->n)];
        sum += v[i].len;
    }
    if (n > d->n)
        shuffle(v, n, sizeof *v, r);
    *bytes = sum;
    return v;
}

/* The same for 8-byte values. */
static void draw8(void *out, const void *dict, size_t distinct, size_t n, rng *r)
{
    uint8_t *o = out;
    const uint8_t *d = dict;
    for (size_t i = 0; i < n; i++)
        memcpy(o + 8 * i, d + 8 * (i < distinct ? i : below(r, (uint32_t)distinct)), 8);
    shuffle(out, n, 8, r);
}

/* The values a byte-string case hands to the library: n values over
 * `distinct` strings (or fixed-width values). Shared: each value points at
 * its distinct string, so equal values have equal addresses. Otherwise each
 * value has its own copy of its bytes (as arrow-go's benchmark builds them,
 * converting every value to a fresh []byte), so only their bytes are equal. */
typedef struct valueset {
    strset dict;
    inlay_bytes *v;
    uint8_t *copies; /* the copies' bytes, or NULL when shared */
    uint64_t bytes;  /* sum of the lengths */
} valueset;

static void valueset_make(valueset *vs, const char *section, const char *id, size_t n,
                          size_t distinct, size_t fixed_width, bool shared)
{
    rng r;
    rng_for(&r, g_seed, section, id);
    if (fixed_width)
        make_fixed(&vs->dict, distinct, fixed_width, &r);
    else
        make_strings(&vs->dict, distinct, STR_MIN, STR_MAX, &r);
    vs->v = draw(&vs->dict, n, &r, &vs->bytes);
    vs->copies = NULL;
    if (!shared && n > distinct) {
        uint8_t *p = vs->copies = xmalloc(vs->bytes);
        for (size_t i = 0; i < n; i++) {
            memcpy(p, vs->v[i].data, vs->v[i].len);
            vs->v[i].data = p;
            p += vs->v[i].len;
        }
    }
}

static void valueset_free(valueset *vs)
{
    free(vs->copies);
    free(vs->v);
    strset_free(&vs->dict);
}

/* Warm-up runs for a writer case: four row groups, so that every chunk
 * buffer the writer rotates through has grown to its steady size. */
static int writer_warm_runs(size_t rows_per_run)
{
    return (int)((4 * (size_t)INLAY_DEFAULT_ROW_GROUP_ROWS + rows_per_run - 1) / rows_per_run) + 1;
}

/*----------------------------------------------------------------------
 *  A sink that discards the bytes
 *--------------------------------------------------------------------*/

typedef struct null_sink {
    uint64_t bytes, writes;
} null_sink;

static int null_write(void *ctx, const void *data, size_t len)
{
    null_sink *s = ctx;
    (void)data;
    s->bytes += len;
    s->writes++;
    return 0;
}

static int null_finish(void *ctx)
{
    (void)ctx;
    return 0;
}

static void null_abort(void *ctx)
{
    (void)ctx;
}

/* A writer of one required column on a discarding sink, uncompressed,
 * everything else the library's defaults. */
static inlay_writer *open_one_column(null_sink *ns, inlay_type type, inlay_encoding_choice enc)
{
    inlay_schema *s = inlay_schema_create(NULL);
    if (!s)
        die("out of memory");
    inlay_column_options co;
    inlay_column_options_init(&co);
    co.encoding = enc;
    if (inlay_schema_add(s, 0, "c", INLAY_REQUIRED, type, &co) < 0) {
        fprintf(stderr, "bench_encodings: schema: %s\n", inlay_schema_errmsg(s));
        exit(1);
    }
    inlay_options opt;
    inlay_options_init(&opt);
    opt.alloc = g_alloc;
    opt.compression = INLAY_UNCOMPRESSED;
    memset(ns, 0, sizeof *ns);
    inlay_sink sink = {null_write, null_finish, null_abort, ns};
    inlay_writer *w = NULL;
    int st = inlay_writer_open(&w, sink, s, &opt);
    if (st != INLAY_OK) {
        fprintf(stderr, "bench_encodings: open: %s: %s\n", inlay_strerror(st),
                w ? inlay_writer_errmsg(w) : "");
        exit(1);
    }
    inlay_schema_free(s);
    return w;
}

static void close_writer(inlay_writer *w)
{
    int st = inlay_writer_close(w);
    if (st != INLAY_OK) {
        fprintf(stderr, "bench_encodings: close: %s: %s\n", inlay_strerror(st),
                inlay_writer_errmsg(w));
        exit(1);
    }
    inlay_writer_free(w);
}

static void check_append(inlay_writer *w, int st)
{
    if (st != INLAY_OK) {
        fprintf(stderr, "bench_encodings: append: %s: %s\n", inlay_strerror(st),
                inlay_writer_errmsg(w));
        exit(1);
    }
}

/*----------------------------------------------------------------------
 *  Run functions
 *--------------------------------------------------------------------*/

typedef struct memo_bytes_ctx {
    memo_bytes m;
    const inlay_bytes *v;
    size_t n;
    uint32_t *out;
} memo_bytes_ctx;

static void run_memo_bytes(void *p)
{
    memo_bytes_ctx *c = p;
    inl_memo_bytes_reset(&c->m);
    if (inl_memo_bytes_insert_many(&c->m, c->v, c->n, c->out))
        die("inl_memo_bytes_insert_many: out of memory");
}

typedef struct memo_fixed_ctx {
    memo_fixed m;
    const void *v;
    size_t n;
    uint32_t *out;
} memo_fixed_ctx;

static void run_memo_fixed(void *p)
{
    memo_fixed_ctx *c = p;
    inl_memo_fixed_reset(&c->m);
    if (inl_memo_fixed_insert_many(&c->m, c->v, c->n, c->out))
        die("inl_memo_fixed_insert_many: out of memory");
}

enum { APPEND_I64, APPEND_BYTES, APPEND_TIME };

typedef struct writer_ctx {
    inlay_writer *w;
    null_sink sink;
    int how;
    inlay_unit unit;
    const void *v;
    size_t n;
} writer_ctx;

static void run_writer(void *p)
{
    writer_ctx *c = p;
    int st;
    switch (c->how) {
    case APPEND_I64:
        st = inlay_writer_append_i64(c->w, 0, c->v, c->n, NULL);
        break;
    case APPEND_BYTES:
        st = inlay_writer_append_bytes(c->w, 0, c->v, c->n, NULL);
        break;
    default:
        st = inlay_writer_append_time(c->w, 0, c->v, c->n, c->unit, NULL);
        break;
    }
    check_append(c->w, st);
}

enum {
    ENC_I64, ENC_I32, ENC_LENGTH_BYTES, ENC_BYTES, ENC_BSS, ENC_BOOL_RLE, ENC_RLE_U32, ENC_RLE_U32_COUNTING
};

typedef struct encode_ctx {
    int which;
    buf out;
    const void *v;
    size_t n;
    size_t width; /* BSS: bytes per value; RLE: bits */
} encode_ctx;

static void run_encode(void *p)
{
    encode_ctx *c = p;
    c->out.len = 0;
    int r;
    switch (c->which) {
    case ENC_I64: r = inl_delta_encode_i64(&c->out, &g_alloc, c->v, c->n); break;
    case ENC_I32: r = inl_delta_encode_i32(&c->out, &g_alloc, c->v, c->n); break;
    case ENC_LENGTH_BYTES: r = inl_delta_encode_length_bytes(&c->out, &g_alloc, c->v, c->n); break;
    case ENC_BYTES: r = inl_delta_encode_bytes(&c->out, &g_alloc, c->v, c->n); break;
    case ENC_BSS: r = inl_bss_encode(&c->out, &g_alloc, c->v, c->n, c->width); break;
    case ENC_BOOL_RLE: r = inl_bool_rle_encode(&c->out, &g_alloc, c->v, c->n); break;
    case ENC_RLE_U32_COUNTING: {
        /* the writer's index pages: every entry's uses counted (100 entries
         * here), read and zeroed again as the page's statistics do */
        static uint32_t uses[1u << 7];
        r = inl_rle_encode_u32_counting(&c->out, &g_alloc, c->v, c->n, (int)c->width, uses);
        uint32_t sum = 0;
        for (size_t x = 0; x < sizeof uses / sizeof uses[0]; x++) {
            sum += uses[x];
            uses[x] = 0;
        }
        if (sum != c->n)
            die("inl_rle_encode_u32_counting: counts do not add up");
        break;
    }
    default: r = inl_rle_encode_u32(&c->out, &g_alloc, c->v, c->n, (int)c->width); break;
    }
    if (r)
        die("encoder: out of memory");
}

typedef struct hash_ctx {
    const inlay_bytes *v; /* strings, or NULL for fixed values */
    const uint8_t *fixed;
    size_t width;
    size_t n;
} hash_ctx;

static void run_hash(void *p)
{
    const hash_ctx *c = p;
    uint64_t acc = 0;
    if (c->v) {
        for (size_t i = 0; i < c->n; i++)
            acc += XXH3_64bits(c->v[i].data, c->v[i].len);
    } else {
        const size_t w = c->width; /* not a constant: as memo.c calls it */
        for (size_t i = 0; i < c->n; i++)
            acc += XXH3_64bits(c->fixed + i * w, w);
    }
    g_sink_value = acc;
}

typedef struct copy_ctx {
    uint8_t *dst;
    const uint8_t *src;
    size_t n;
} copy_ctx;

static void run_copy(void *p)
{
    copy_ctx *c = p;
    memcpy(c->dst, c->src, c->n);
    __asm__ __volatile__("" : : "r"(c->dst) : "memory");
}

/*----------------------------------------------------------------------
 *  limits
 *--------------------------------------------------------------------*/

/* ns per value of the limits, 0 until measured. */
static double g_copy_ns_per_byte, g_hash_str_ns, g_hash16_ns, g_hash8_ns;

/* memcpy of `bytes` between two buffers, median ns per byte copied. */
static result copy_bandwidth(const char *id, size_t bytes, double sample_s)
{
    copy_ctx cc = {xmalloc(bytes), NULL, bytes};
    uint8_t *src = xmalloc(bytes);
    for (size_t i = 0; i < bytes; i++)
        src[i] = (uint8_t)(i * 131 + 7);
    memset(cc.dst, 1, bytes);
    cc.src = src;
    bench_case bc = {id, id, run_copy, &cc, (double)bytes, (double)bytes, 1, 1, NULL};
    double saved = g_sample_s;
    g_sample_s = sample_s;
    result r = measure(&bc);
    g_sample_s = saved;
    free(cc.dst);
    free(src);
    return r;
}

static void section_limits(void)
{
    /* far past the caches (this machine may report a large L3), and one
     * page of int64 values (what the encoders get), in cache */
    result rc = copy_bandwidth("memcpy_large", (size_t)256 << 20, 0);
    result rp = copy_bandwidth("memcpy_page", (size_t)PAGE * 8, g_sample_s);
    g_copy_ns_per_byte = rp.ns_value;

    /* the very values of the seed cases of dict_byte_array and dict_fixed_len */
    valueset vs, vf;
    valueset_make(&vs, "dict_byte_array", "seed", SEED_VALUES, SEED_DISTINCT, 0, false);
    valueset_make(&vf, "dict_fixed_len", "seed", SEED_VALUES, SEED_DISTINCT, 16, false);
    hash_ctx hs = {vs.v, NULL, 0, SEED_VALUES};
    bench_case bh = {"xxh3_str", "xxh3 strings", run_hash, &hs, SEED_VALUES, (double)vs.bytes, 1, 1, NULL};
    result rs = measure(&bh);
    g_hash_str_ns = rs.ns_value;
    hash_ctx h16 = {vf.v, NULL, 0, SEED_VALUES};
    bench_case b16 = {"xxh3_16", "xxh3 16 B", run_hash, &h16, SEED_VALUES, SEED_VALUES * 16.0, 1, 1, NULL};
    result r16 = measure(&b16);
    g_hash16_ns = r16.ns_value;

    rng r;
    rng_seed(&r, g_seed);
    int64_t *i8 = xmalloc((size_t)SEED_VALUES * 8);
    for (size_t i = 0; i < SEED_VALUES; i++)
        i8[i] = (int64_t)rng_next(&r);
    hash_ctx h8 = {NULL, (const uint8_t *)i8, 8, SEED_VALUES};
    bench_case b8 = {"xxh3_8", "xxh3 8 B", run_hash, &h8, SEED_VALUES, SEED_VALUES * 8.0, 1, 1, NULL};
    result r8 = measure(&b8);
    g_hash8_ns = r8.ns_value;

    printf("limits: memcpy %.2f GB/s (256 MiB buffers), %.2f GB/s (%u B, in cache) | "
           "XXH3_64bits alone: %d..%d B strings %.2f ns/string (%.0f MB/s), 16 B %.2f ns/value, "
           "8 B %.2f ns/value (%d values)\n",
           1.0 / rc.ns_value, 1.0 / rp.ns_value, (unsigned)PAGE * 8, STR_MIN, STR_MAX, rs.ns_value,
           rs.mbs, r16.ns_value, r8.ns_value, SEED_VALUES);
    fflush(stdout);
    rc.section = rp.section = rs.section = r16.section = r8.section = "limits";
    result *all[] = {&rc, &rp, &rs, &r16, &r8};
    for (int i = 0; i < 5 && g_nresults < MAX_RESULTS; i++)
        g_results[g_nresults++] = *all[i];

    free(i8);
    valueset_free(&vf);
    valueset_free(&vs);
}

/*----------------------------------------------------------------------
 *  dict_byte_array, dict_fixed_len
 *--------------------------------------------------------------------*/

/* A table for the n values of vs, and room for their indices. */
static void memo_bytes_ctx_init(memo_bytes_ctx *c, const valueset *vs, size_t n, size_t fixed_width)
{
    inl_memo_bytes_init(&c->m, &g_alloc, fixed_width);
    c->v = vs->v;
    c->n = n;
    c->out = xmalloc(n * sizeof *c->out);
}

/* One memo_bytes case: n values over `distinct` strings. */
static void memo_bytes_case(const char *section, const char *id, size_t n, size_t distinct,
                            size_t fixed_width, bool shared, double limit_ns)
{
    if (!wanted(id))
        return;
    valueset vs;
    valueset_make(&vs, section, id, n, distinct, fixed_width, shared);
    memo_bytes_ctx c;
    memo_bytes_ctx_init(&c, &vs, n, fixed_width);
    char label[96];
    snprintf(label, sizeof label, "%zu values, %zu distinct%s", n, distinct,
             n == distinct ? "" : shared ? ", shared" : ", copies");
    bench_case bc = {id, label, run_memo_bytes, &c, (double)n, (double)vs.bytes, 1, 1, NULL};
    bench(section, &bc, limit_ns, NULL);
    if (c.m.count != distinct)
        fprintf(stderr, "bench_encodings: %s %s: the table holds %zu values, not %zu\n", section,
                id, c.m.count, distinct);
    inl_memo_bytes_free(&c.m);
    free(c.out);
    valueset_free(&vs);
}

/* The public writer's DICTIONARY path on the seed shape: the very values of
 * the memo case `memo_id`, and the memo table alone on them sampled in turn
 * with the writer (one sample each, alternately), for the ratio the
 * writer's line prints: the median of the pairs' ratios. */
static void writer_bytes_case(const char *section, const char *id, const char *memo_id,
                              const char *label, inlay_type type, size_t fixed_width, bool shared,
                              double limit_ns)
{
    if (!wanted(id))
        return;
    valueset vs;
    valueset_make(&vs, section, memo_id, SEED_VALUES, SEED_DISTINCT, fixed_width, shared);

    memo_bytes_ctx mc;
    memo_bytes_ctx_init(&mc, &vs, SEED_VALUES, fixed_width);
    bench_case bm = {memo_id, "memo alone", run_memo_bytes, &mc, SEED_VALUES, (double)vs.bytes, 1, 1, NULL};

    writer_ctx c;
    memset(&c, 0, sizeof c);
    c.w = open_one_column(&c.sink, type, INLAY_ENCODING_DICTIONARY);
    c.how = APPEND_BYTES;
    c.v = vs.v;
    c.n = SEED_VALUES;
    /* samples span at least two row groups (1 Mi rows is 16 runs) */
    int per_group = (int)(INLAY_DEFAULT_ROW_GROUP_ROWS / SEED_VALUES) + 1;
    bench_case bc = {id, label, run_writer, &c, SEED_VALUES, (double)vs.bytes,
                     writer_warm_runs(SEED_VALUES), 2 * per_group, &bm};
    result res = measure(&bc);
    inl_memo_bytes_free(&mc.m);
    free(mc.out);
    double all_runs = (double)bc.warm + (double)g_repeat * res.inner;
    char extra[200];
    /* allocations in the timed runs come only from the footer's lists,
     * which double past 64 row groups: say how many groups they span */
    snprintf(extra, sizeof extra,
             "%.2fx the memo alone (%.2f ns, same values, samples taken in turn), %" PRIu64
             " allocs over %.0f row groups, sink %.2f B/value",
             res.memo_ratio, res.partner_ns, res.allocs_total,
             (double)g_repeat * res.inner * SEED_VALUES / INLAY_DEFAULT_ROW_GROUP_ROWS,
             (double)c.sink.bytes / (all_runs * SEED_VALUES));
    report(section, label, &res, limit_ns, extra);
    close_writer(c.w);
    valueset_free(&vs);
}

static void section_dict_byte_array(void)
{
    const char *s = "dict_byte_array";
    const double h = g_hash_str_ns;
    print_header(s, "inl_memo_bytes_reset + inl_memo_bytes_insert_many (insert-or-get -> indices), "
                    "8..32 B strings", "x hash");
    memo_bytes_case(s, "seed", SEED_VALUES, SEED_DISTINCT, 0, false, h);
    memo_bytes_case(s, "seed_shared", SEED_VALUES, SEED_DISTINCT, 0, true, h);
    memo_bytes_case(s, "1Mx1M", BIG, BIG, 0, false, h);
    memo_bytes_case(s, "1Mx10", BIG, 10, 0, false, h);
    memo_bytes_case(s, "1Mx10_shared", BIG, 10, 0, true, h);
    writer_bytes_case(s, "writer_binary", "seed", "writer BYTE_ARRAY, 65535 x 100, copies",
                      inlay_type_binary(), 0, false, h);
    writer_bytes_case(s, "writer_binary_shared", "seed_shared", "writer BYTE_ARRAY, 65535 x 100, shared",
                      inlay_type_binary(), 0, true, h);
    writer_bytes_case(s, "writer_string", "seed", "writer STRING, 65535 x 100, copies",
                      inlay_type_string(), 0, false, h);
}

static void section_dict_fixed_len(void)
{
    const char *s = "dict_fixed_len";
    const double h = g_hash16_ns;
    print_header(s, "memo_bytes (fixed_width 16) reset + insert_many, FIXED_LEN_BYTE_ARRAY(16)",
                 "x hash");
    memo_bytes_case(s, "seed", SEED_VALUES, SEED_DISTINCT, 16, false, h);
    memo_bytes_case(s, "seed_shared", SEED_VALUES, SEED_DISTINCT, 16, true, h);
    memo_bytes_case(s, "1Mx1M", BIG, BIG, 16, false, h);
    memo_bytes_case(s, "1Mx10", BIG, 10, 16, false, h);
    memo_bytes_case(s, "1Mx10_shared", BIG, 10, 16, true, h);
    writer_bytes_case(s, "writer_flba16", "seed", "writer FLBA(16), 65535 x 100, copies",
                      inlay_type_fixed(16), 16, false, h);
    writer_bytes_case(s, "writer_flba16_shared", "seed_shared", "writer FLBA(16), 65535 x 100, shared",
                      inlay_type_fixed(16), 16, true, h);
}

/*----------------------------------------------------------------------
 *  dict_int64, dict_double
 *--------------------------------------------------------------------*/

static void memo_fixed_case(const char *section, const char *id, const void *v, size_t n,
                            size_t distinct)
{
    if (!wanted(id))
        return;
    memo_fixed_ctx c;
    inl_memo_fixed_init(&c.m, &g_alloc, 8);
    c.v = v;
    c.n = n;
    c.out = xmalloc(n * sizeof *c.out);
    char label[96];
    snprintf(label, sizeof label, "%zu values, %zu distinct", n, distinct);
    bench_case bc = {id, label, run_memo_fixed, &c, (double)n, 8.0 * (double)n, 1, 1, NULL};
    bench(section, &bc, g_hash8_ns, NULL);
    if (c.m.count != distinct)
        fprintf(stderr, "bench_encodings: %s %s: the table holds %zu values, not %zu\n", section,
                id, c.m.count, distinct);
    inl_memo_fixed_free(&c.m);
    free(c.out);
}

static void section_dict_int64(void)
{
    rng r;
    rng_seed(&r, g_seed + 2);
    const char *s = "dict_int64";
    print_header(s, "inl_memo_fixed_reset + inl_memo_fixed_insert_many, int64", "x hash");
    static const size_t distinct[] = {100, 100000};
    int64_t *dict = xmalloc(100000 * sizeof *dict);
    int64_t *v = xmalloc(BIG * sizeof *v);
    for (int k = 0; k < 2; k++) {
        for (size_t j = 0; j < distinct[k]; j++)
            dict[j] = (int64_t)mix64(j + 1000003u * (uint64_t)(k + 1)); /* distinct */
        draw8(v, dict, distinct[k], BIG, &r);
        memo_fixed_case(s, k ? "1Mx100k" : "1Mx100", v, BIG, distinct[k]);
    }
    free(v);
    free(dict);
}

static void section_dict_double(void)
{
    rng r;
    rng_seed(&r, g_seed + 3);
    const char *s = "dict_double";
    print_header(s, "inl_memo_fixed_reset + inl_memo_fixed_insert_many, double", "x hash");
    static const size_t distinct[] = {100, 100000};
    double *dict = xmalloc(100000 * sizeof *dict);
    double *v = xmalloc(BIG * sizeof *v);
    for (int k = 0; k < 2; k++) {
        /* prices with two decimals, distinct by construction */
        for (size_t j = 0; j < distinct[k]; j++)
            dict[j] = (double)j * 0.01 + 0.5 * unit_double(&r) * 0.01;
        draw8(v, dict, distinct[k], BIG, &r);
        memo_fixed_case(s, k ? "1Mx100k" : "1Mx100", v, BIG, distinct[k]);
    }
    free(v);
    free(dict);
}

/*----------------------------------------------------------------------
 *  time_column
 *--------------------------------------------------------------------*/

#define TIME_TARGET_US 2.0 /* per 1,000 rows */

static void time_case(const char *id, const char *label, int how, inlay_unit unit,
                      const int64_t *v, size_t rows)
{
    if (!wanted(id))
        return;
    writer_ctx c;
    memset(&c, 0, sizeof c);
    c.w = open_one_column(&c.sink, inlay_type_timestamp(INLAY_MICROS, true), INLAY_ENCODING_DELTA);
    c.how = how;
    c.unit = unit;
    c.v = v;
    c.n = rows;
    /* samples of at least 10 M rows (~10 row groups) */
    int warm = writer_warm_runs(rows);
    int inner = (int)(10000000 / rows);
    bench_case bc = {id, label, run_writer, &c, (double)rows, 8.0 * (double)rows, warm, inner, NULL};
    result res = measure(&bc);
    double us_k = res.ns_value; /* ns per row is us per 1,000 rows */
    double all_runs = (double)bc.warm + (double)g_repeat * res.inner;
    char extra[200];
    snprintf(extra, sizeof extra,
             "%.3f us/1000 rows (%s), %" PRIu64 " allocs in %" PRIu64 " runs (%.0f row groups), sink %.2f B/row",
             us_k, us_k <= TIME_TARGET_US ? "within target" : "OVER target", res.allocs_total,
             res.runs, (double)res.runs * (double)rows / INLAY_DEFAULT_ROW_GROUP_ROWS,
             (double)c.sink.bytes / (all_runs * (double)rows));
    report("time_column", label, &res, g_copy_ns_per_byte > 0 ? 8 * g_copy_ns_per_byte : 0,
           extra);
    close_writer(c.w);
}

static void section_time_column(void)
{
    rng r;
    rng_seed(&r, g_seed + 4);
    printf("\n== time_column: TIMESTAMP(us, utc) REQUIRED, encoding DELTA, uncompressed, one "
           "long-lived writer per case on a discarding sink\n"
           "   (target: 0 allocs/run, <= %.0f us per 1,000 rows; pages every %u rows, "
           "row groups every %u rows are in the average)\n",
           TIME_TARGET_US, INLAY_DEFAULT_PAGE_ROWS, INLAY_DEFAULT_ROW_GROUP_ROWS);
    printf("  %-40s %9s %10s %9s %8s %10s %10s %10s\n", "case", "ns/row", "us/run", "MB/s",
           "x memcpy", "allocs/run", "bytes/run", "malloc/run");
    int64_t *us = xmalloc(BIG * sizeof *us), *sec = xmalloc(BIG * sizeof *sec),
            *ns = xmalloc(BIG * sizeof *ns), *ms = xmalloc(BIG * sizeof *ms);
    int64_t t = TS_START;
    for (size_t i = 0; i < BIG; i++) {
        t += (int64_t)(rng_next(&r) & 1023);
        us[i] = t;
        ns[i] = t * 1000 + (int64_t)below(&r, 1000);
        ms[i] = t / 1000;
    }
    int64_t ts = TS_START / 1000000;
    for (size_t i = 0; i < BIG; i++) {
        ts += (int64_t)below(&r, 4);
        sec[i] = ts;
    }
    static const struct {
        const char *id, *label;
        int how;
        inlay_unit unit;
        int data; /* 0 us, 1 s, 2 ns, 3 ms */
        size_t rows;
    } cases[] = {
        {"i64_1k", "append_i64 (us), 1000 rows/run", APPEND_I64, INLAY_UNIT_MICROS, 0, 1000},
        {"time_s_1k", "append_time from s, 1000 rows/run", APPEND_TIME, INLAY_UNIT_SECONDS, 1, 1000},
        {"time_ms_1k", "append_time from ms, 1000 rows/run", APPEND_TIME, INLAY_UNIT_MILLIS, 3, 1000},
        {"time_ns_1k", "append_time from ns, 1000 rows/run", APPEND_TIME, INLAY_UNIT_NANOS, 2, 1000},
        {"i64_1M", "append_i64 (us), 1000000 rows/run", APPEND_I64, INLAY_UNIT_MICROS, 0, BIG},
        {"time_s_1M", "append_time from s, 1000000 rows/run", APPEND_TIME, INLAY_UNIT_SECONDS, 1, BIG},
        {"time_ms_1M", "append_time from ms, 1000000 rows/run", APPEND_TIME, INLAY_UNIT_MILLIS, 3, BIG},
        {"time_ns_1M", "append_time from ns, 1000000 rows/run", APPEND_TIME, INLAY_UNIT_NANOS, 2, BIG},
    };
    const int64_t *data[4] = {us, sec, ns, ms};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        time_case(cases[k].id, cases[k].label, cases[k].how, cases[k].unit, data[cases[k].data],
                  cases[k].rows);
    free(us);
    free(ms);
    free(sec);
    free(ns);
}

/*----------------------------------------------------------------------
 *  delta, byte_stream_split, rle
 *--------------------------------------------------------------------*/

static void encode_case(const char *section, const char *id, const char *label, int which,
                        const void *v, size_t n, size_t width, double in_bytes)
{
    if (!wanted(id))
        return;
    encode_ctx c;
    memset(&c, 0, sizeof c);
    c.which = which;
    c.v = v;
    c.n = n;
    c.width = width;
    bench_case bc = {id, label, run_encode, &c, (double)n, in_bytes, 1, 1, NULL};
    double limit = g_copy_ns_per_byte > 0 ? g_copy_ns_per_byte * in_bytes / (double)n : 0;
    char extra[48];
    run_encode(&c); /* for the output size */
    snprintf(extra, sizeof extra, "out %.2f B/value", (double)c.out.len / (double)n);
    bench(section, &bc, limit, extra);
    inl_buf_free(&c.out, &g_alloc);
}

static void section_delta(void)
{
    rng r;
    rng_seed(&r, g_seed + 5);
    const char *s = "delta";
    print_header(s, "DELTA_BINARY_PACKED / DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY of one "
                    "page (20000 values), output buffer reused", "x memcpy");
    const size_t n = PAGE;
    int64_t *a = xmalloc(n * 8), *b = xmalloc(n * 8), *c = xmalloc(n * 8);
    int32_t *d = xmalloc(n * 4), *e = xmalloc(n * 4);
    int64_t t = TS_START, u = TS_START;
    int32_t x = 1000000;
    for (size_t i = 0; i < n; i++) {
        a[i] = t;
        t += 1000; /* one per millisecond */
        u += (int64_t)(rng_next(&r) & 1023);
        b[i] = u;
        c[i] = (int64_t)rng_next(&r);
        x += (int32_t)below(&r, 1024) - 512;
        d[i] = x;
        e[i] = (int32_t)(uint32_t)rng_next(&r);
    }
    encode_case(s, "i64_seq", "i64 timestamps, +1 ms each", ENC_I64, a, n, 0, 8.0 * n);
    encode_case(s, "i64_walk", "i64 timestamps, +0..1023 us", ENC_I64, b, n, 0, 8.0 * n);
    encode_case(s, "i64_random", "i64 random", ENC_I64, c, n, 0, 8.0 * n);
    encode_case(s, "i32_walk", "i32 random walk, steps -512..511", ENC_I32, d, n, 0, 4.0 * n);
    encode_case(s, "i32_random", "i32 random", ENC_I32, e, n, 0, 4.0 * n);

    /* strings: the seed shape's (8..32 B, 100 distinct, random order), and
     * sorted keys that share long prefixes */
    strset ds;
    make_strings(&ds, SEED_DISTINCT, STR_MIN, STR_MAX, &r);
    uint64_t sb;
    inlay_bytes *sv = draw(&ds, n, &r, &sb);
    char *keys = xmalloc(n * 32);
    inlay_bytes *kv = xmalloc(n * sizeof *kv);
    uint64_t kb = 0, key = 100000000;
    for (size_t i = 0; i < n; i++) {
        key += 1 + below(&r, 16);
        int len = snprintf(keys + 32 * i, 32, "events/2024/01/%010" PRIu64, key);
        kv[i].data = keys + 32 * i;
        kv[i].len = (size_t)len;
        kb += (uint64_t)len;
    }
    encode_case(s, "length_bytes_str", "length_bytes, 8..32 B strings", ENC_LENGTH_BYTES, sv, n,
                0, (double)sb);
    encode_case(s, "bytes_str", "bytes (front coding), 8..32 B strings", ENC_BYTES, sv, n, 0,
                (double)sb);
    encode_case(s, "bytes_keys", "bytes (front coding), sorted 25 B keys", ENC_BYTES, kv, n, 0,
                (double)kb);
    free(keys);
    free(kv);
    free(sv);
    strset_free(&ds);
    free(a);
    free(b);
    free(c);
    free(d);
    free(e);
}

static void section_byte_stream_split(void)
{
    rng r;
    rng_seed(&r, g_seed + 6);
    const char *s = "byte_stream_split";
    print_header(s, "inl_bss_encode of one page (20000 values), output buffer reused", "x memcpy");
    const size_t n = PAGE;
    double *dv = xmalloc(n * sizeof *dv);
    float *fv = xmalloc(n * sizeof *fv);
    for (size_t i = 0; i < n; i++) {
        dv[i] = unit_double(&r) * 1000.0;
        fv[i] = (float)(unit_double(&r) * 1000.0);
    }
    encode_case(s, "double", "doubles in [0, 1000)", ENC_BSS, dv, n, 8, 8.0 * n);
    encode_case(s, "float", "floats in [0, 1000)", ENC_BSS, fv, n, 4, 4.0 * n);
    free(dv);
    free(fv);
}

static void section_rle(void)
{
    rng r;
    rng_seed(&r, g_seed + 7);
    const char *s = "rle";
    print_header(s, "inl_bool_rle_encode and inl_rle_encode_u32 of one page (20000 values), output "
                    "buffer reused", "x memcpy");
    const size_t n = PAGE;
    uint8_t *rb = xmalloc(n), *runb = xmalloc(n);
    uint32_t *ri = xmalloc(n * 4), *runi = xmalloc(n * 4);
    for (size_t i = 0; i < n; i++) {
        rb[i] = (uint8_t)(rng_next(&r) >> 63);
        ri[i] = below(&r, 100);
    }
    /* runs of 1..128 equal values */
    for (size_t i = 0; i < n;) {
        size_t len = 1 + below(&r, 128);
        uint8_t bv = (uint8_t)(rng_next(&r) >> 63);
        uint32_t iv = below(&r, 100);
        for (size_t k = 0; k < len && i < n; k++, i++) {
            runb[i] = bv;
            runi[i] = iv;
        }
    }
    encode_case(s, "bool_random", "bool_rle, random booleans", ENC_BOOL_RLE, rb, n, 0, (double)n);
    encode_case(s, "bool_runs", "bool_rle, runs of 1..128", ENC_BOOL_RLE, runb, n, 0, (double)n);
    encode_case(s, "u32_w7_random", "inl_rle_encode_u32 width 7, random 0..99", ENC_RLE_U32, ri, n, 7,
                4.0 * n);
    encode_case(s, "u32_w7_runs", "inl_rle_encode_u32 width 7, runs of 1..128", ENC_RLE_U32, runi, n,
                7, 4.0 * n);
    encode_case(s, "u32_w7_random_counting", "..._counting width 7, random 0..99", ENC_RLE_U32_COUNTING,
                ri, n, 7, 4.0 * n);
    encode_case(s, "u32_w7_runs_counting", "..._counting width 7, runs of 1..128", ENC_RLE_U32_COUNTING,
                runi, n, 7, 4.0 * n);
    free(rb);
    free(runb);
    free(ri);
    free(runi);
}

/*----------------------------------------------------------------------
 *  main
 *--------------------------------------------------------------------*/

static const struct {
    const char *name;
    void (*fn)(void);
} sections[] = {
    {"limits", section_limits},
    {"dict_byte_array", section_dict_byte_array},
    {"dict_fixed_len", section_dict_fixed_len},
    {"dict_int64", section_dict_int64},
    {"dict_double", section_dict_double},
    {"time_column", section_time_column},
    {"delta", section_delta},
    {"byte_stream_split", section_byte_stream_split},
    {"rle", section_rle},
};
#define NSECTIONS (sizeof sections / sizeof sections[0])

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bench_encodings [--repeat K] [--sample-ms M] [--seed S] [--no-limits] "
            "[--case ID] [section ...]\n"
            "  --repeat K     samples per case; the median is reported (default 5)\n"
            "  --sample-ms M  each sample repeats the case for about M ms (default 50)\n"
            "  --seed S       PRNG seed of the data (default 42)\n"
            "  --no-limits    skip the limits line (then no ratio column)\n"
            "  --case ID      run only the cases with this id (as in the RESULT lines), e.g.\n"
            "                 'dict_byte_array --case seed' for a profiler\n"
            "sections (default all):");
    for (size_t i = 0; i < NSECTIONS; i++)
        fprintf(f, " %s", sections[i].name);
    fprintf(f, "\n");
}

int main(int argc, char **argv)
{
    bool want[NSECTIONS] = {false};
    bool any = false, limits = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--no-limits")) {
            limits = false;
            continue;
        }
        if (!strncmp(a, "--", 2)) {
            if (i + 1 >= argc) {
                usage(stderr);
                return 2;
            }
            const char *v = argv[++i];
            if (!strcmp(a, "--repeat"))
                g_repeat = (int)parse_u64(a, v);
            else if (!strcmp(a, "--sample-ms"))
                g_sample_s = (double)parse_u64(a, v) / 1000.0;
            else if (!strcmp(a, "--seed"))
                g_seed = parse_u64(a, v);
            else if (!strcmp(a, "--case"))
                g_only = v;
            else {
                usage(stderr);
                return 2;
            }
            continue;
        }
        size_t k = 0;
        while (k < NSECTIONS && strcmp(a, sections[k].name))
            k++;
        if (k == NSECTIONS) {
            fprintf(stderr, "bench_encodings: no section '%s'\n", a);
            usage(stderr);
            return 2;
        }
        want[k] = true;
        any = true;
    }
    if (g_repeat < 1 || g_repeat > 1000) {
        fprintf(stderr, "bench_encodings: --repeat must be 1..1000\n");
        return 2;
    }
    if (!any)
        for (size_t k = 0; k < NSECTIONS; k++)
            want[k] = true;
    want[0] = limits;

    mc_find();
    printf("inlay %s bench_encodings: median of %d samples of ~%.0f ms; allocations counted "
           "after a warm-up; malloc interposer %s\n",
           inlay_version(), g_repeat, g_sample_s * 1e3,
           mc_get ? "loaded" : "not loaded (LD_PRELOAD=.../libbench_malloc_count.so)");
    fflush(stdout);
    for (size_t k = 0; k < NSECTIONS; k++)
        if (want[k])
            sections[k].fn();

    printf("\n");
    for (int i = 0; i < g_nresults; i++) {
        const result *r = &g_results[i];
        char mc[32] = "na", bp[32] = "na";
        if (r->mallocs >= 0) {
            snprintf(mc, sizeof mc, "%.6g", r->mallocs);
            snprintf(bp, sizeof bp, "%" PRId64, r->bypass);
        }
        printf("RESULT section=%s case=%s ns_per_value=%.4f ns_min=%.4f ns_max=%.4f us_per_run=%.3f "
               "mb_s=%.1f ratio=%.3f allocs_per_run=%.6g bytes_per_run=%.6g allocs_total=%" PRIu64
               " runs=%" PRIu64 " malloc_per_run=%s bypass=%s memo_ratio=%.3f\n",
               r->section, r->id, r->ns_value, r->ns_min, r->ns_max, r->us_run, r->mbs, r->ratio,
               r->allocs, r->bytes, r->allocs_total, r->runs, mc, bp, r->memo_ratio);
    }
    if (g_cnt.live != 0) {
        fprintf(stderr, "bench_encodings: the library still holds %" PRId64 " bytes at exit\n",
                g_cnt.live);
        return 1;
    }
    return 0;
}
