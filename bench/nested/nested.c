/*
 * bench_nested — how fast inlay_writer_append_array writes nested columns.
 *
 * Writes N rows of
 *
 *     id     required int64                           increasing by 1..16
 *     tags   optional list<optional string>           0..8 of 1,000 strings
 *     pos    optional struct<x, y, z required float>  multiples of 1/1024
 *     attrs  optional map<string, optional int64>     0..4 of 50 keys
 *
 * to a ZSTD-compressed Parquet file with the library's default options. The
 * data is generated once, before anything is timed, into buffers laid out as
 * Arrow lays them out (validity bitmaps, int32 offsets, child arrays), and
 * the timed section hands them to the writer in batches: one
 * inlay_writer_append_array call per field per batch, the top-level arrays
 * sliced at the batch (pointers moved; batches start on a multiple of 8 rows
 * so the validity bitmaps are sliced at a byte), the list and map children
 * whole, since the offsets index them absolutely.
 *
 * The library allocates through a counting allocator (inlay_options.alloc),
 * read after every batch: from the 4th batch on the writer is in its steady
 * state, and should allocate nothing per row or per value, only now and
 * then per row group as a buffer grows. When bench/common/malloc_count.c
 * is preloaded, the malloc family calls of the same spans are counted too.
 *
 * While generating, the program also sums what a reader should find (the
 * RESULT line's exp_* keys) and can write a few hundred rows as JSON lines
 * (--sample), so that nested_peer.mjs can check the file with DuckDB.
 *
 * The last line of output is a machine-readable "RESULT key=value ..." line
 * (read by bench/nested/run.sh).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "inlay.h"

#define BENCH_NAME "bench_nested"
#include "bench_util.h"

/* Uniform in [0, n) for n < 2^32 (Lemire's multiply-shift, no division). */
static inline uint32_t below(rng *r, uint32_t n)
{
    return (uint32_t)(((rng_next(r) >> 32) * n) >> 32);
}

/* True with probability per_mille / 1000. */
static inline bool chance(rng *r, uint32_t per_mille)
{
    return below(r, 1000) < per_mille;
}

static inline void bit_set(uint8_t *bm, size_t i)
{
    bm[i >> 3] |= (uint8_t)(1u << (i & 7));
}

/*----------------------------------------------------------------------
 *  The data
 *--------------------------------------------------------------------*/

#define NUM_TAGS 1000
#define TAG_MIN 6
#define TAG_MAX 16
#define TAGS_PER_ROW_MAX 8
#define NUM_KEYS 50
#define KEY_MIN 4
#define KEY_MAX 14
#define ATTRS_PER_ROW_MAX 4

/* Null rates, per mille. */
#define NULL_TAGS 30      /* the tags list */
#define NULL_TAG 10       /* one element of a list */
#define NULL_POS 20       /* the pos struct */
#define NULL_ATTRS 50     /* the attrs map */
#define NULL_VALUE 20     /* one value of a map (keys are never null) */

#define POS_SCALE 1024    /* x, y, z are integers / 1024 in [-1024, 1024) */
#define POS_RANGE (1u << 21)
#define VALUE_RANGE 2000001u /* map values in [-1,000,000, 1,000,000] */

static char tag_text[NUM_TAGS][TAG_MAX];
static inlay_bytes tag_pool[NUM_TAGS];
static char key_text[NUM_KEYS][KEY_MAX];
static inlay_bytes key_pool[NUM_KEYS];

/* n distinct strings of min..max bytes of [a-z0-9_], a numbered prefix
 * keeping them distinct; the same for every seed. */
static void make_pool(char *text, size_t stride, inlay_bytes *pool, int n, size_t min, size_t max,
                      char lead, uint64_t seed)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789_";
    rng r;
    rng_seed(&r, seed);
    for (int i = 0; i < n; i++) {
        char *t = text + (size_t)i * stride;
        size_t len = min + below(&r, (uint32_t)(max - min + 1));
        char prefix[8];
        int p = snprintf(prefix, sizeof prefix, n > 100 ? "%c%03d" : "%c%02d", lead, i);
        memcpy(t, prefix, (size_t)p);
        for (size_t j = (size_t)p; j < len; j++)
            t[j] = alphabet[below(&r, sizeof alphabet - 1)];
        pool[i].data = t;
        pool[i].len = len;
    }
}

/* What a reader of the file should find, summed while generating. */
typedef struct expect {
    uint64_t rows;
    int64_t sum_id;
    uint64_t sum_tags_len;     /* elements of the non-null lists, null elements included */
    uint64_t null_tags;
    uint64_t null_tag_elems;
    int64_t sum_pos[3];        /* in units of 1/POS_SCALE: exact */
    uint64_t null_pos;
    uint64_t sum_attrs_card;   /* entries of the non-null maps */
    uint64_t null_attrs;
    int64_t sum_attr_values;
    uint64_t null_attr_values;
    uint64_t distinct_tags, distinct_keys;
    uint64_t leaf_values;      /* non-null values over all 7 leaf columns */
    uint64_t level_entries;    /* definition/repetition level entries over all leaves */
} expect;

/* The whole table in Arrow's layout. Element arrays are sized for the most
 * entries N rows can have; pages never written are never touched. */
typedef struct data {
    size_t rows;
    int64_t *id;
    uint8_t *tags_valid;
    int32_t *tags_off;         /* rows + 1 */
    inlay_bytes *tag;
    uint8_t *tag_valid;
    size_t ntags;
    uint8_t *pos_valid;
    float *pos[3];
    uint8_t *attrs_valid;
    int32_t *attrs_off;        /* rows + 1 */
    inlay_bytes *key;
    int64_t *value;
    uint8_t *value_valid;
    size_t nattrs;
    uint64_t bytes;            /* of the buffers above, as filled */
    expect e;
} data;

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        die("out of memory");
    return p;
}

static void data_alloc(data *d, size_t rows)
{
    memset(d, 0, sizeof *d);
    d->rows = rows;
    size_t bm = (rows + 7) / 8;
    d->id = xmalloc(rows * sizeof *d->id);
    d->tags_valid = xcalloc(bm, 1);
    d->tags_off = xmalloc((rows + 1) * sizeof *d->tags_off);
    d->tag = xmalloc(rows * TAGS_PER_ROW_MAX * sizeof *d->tag);
    d->tag_valid = xcalloc((rows * TAGS_PER_ROW_MAX + 7) / 8, 1);
    d->pos_valid = xcalloc(bm, 1);
    for (int k = 0; k < 3; k++)
        d->pos[k] = xmalloc(rows * sizeof *d->pos[k]);
    d->attrs_valid = xcalloc(bm, 1);
    d->attrs_off = xmalloc((rows + 1) * sizeof *d->attrs_off);
    d->key = xmalloc(rows * ATTRS_PER_ROW_MAX * sizeof *d->key);
    d->value = xmalloc(rows * ATTRS_PER_ROW_MAX * sizeof *d->value);
    d->value_valid = xcalloc((rows * ATTRS_PER_ROW_MAX + 7) / 8, 1);
}

static void data_free(data *d)
{
    free(d->id);
    free(d->tags_valid);
    free(d->tags_off);
    free(d->tag);
    free(d->tag_valid);
    free(d->pos_valid);
    for (int k = 0; k < 3; k++)
        free(d->pos[k]);
    free(d->attrs_valid);
    free(d->attrs_off);
    free(d->key);
    free(d->value);
    free(d->value_valid);
}

static void gen_tags(data *d, rng *r, size_t i, bool *tag_seen)
{
    expect *e = &d->e;
    d->tags_off[i] = (int32_t)d->ntags;
    if (chance(r, NULL_TAGS)) {
        e->null_tags++;
        e->level_entries++;
        return;
    }
    bit_set(d->tags_valid, i);
    uint32_t n = below(r, TAGS_PER_ROW_MAX + 1);
    for (uint32_t j = 0; j < n; j++) {
        size_t t = d->ntags++;
        if (chance(r, NULL_TAG)) {
            d->tag[t] = (inlay_bytes){NULL, 0};
            e->null_tag_elems++;
            continue;
        }
        uint32_t k = below(r, NUM_TAGS);
        d->tag[t] = tag_pool[k];
        bit_set(d->tag_valid, t);
        tag_seen[k] = true;
        e->leaf_values++;
    }
    e->sum_tags_len += n;
    e->level_entries += n ? n : 1;
}

static void gen_pos(data *d, rng *r, size_t i)
{
    expect *e = &d->e;
    e->level_entries += 3;
    if (chance(r, NULL_POS)) {
        for (int k = 0; k < 3; k++)
            d->pos[k][i] = 0;
        e->null_pos++;
        return;
    }
    bit_set(d->pos_valid, i);
    for (int k = 0; k < 3; k++) {
        int32_t m = (int32_t)below(r, POS_RANGE) - (int32_t)(POS_RANGE / 2);
        d->pos[k][i] = (float)m / POS_SCALE;
        e->sum_pos[k] += m;
    }
    e->leaf_values += 3;
}

static void gen_attrs(data *d, rng *r, size_t i, bool *key_seen)
{
    expect *e = &d->e;
    d->attrs_off[i] = (int32_t)d->nattrs;
    if (chance(r, NULL_ATTRS)) {
        e->null_attrs++;
        e->level_entries += 2;
        return;
    }
    bit_set(d->attrs_valid, i);
    uint32_t n = below(r, ATTRS_PER_ROW_MAX + 1);
    uint64_t used = 0; /* keys are distinct within a map */
    for (uint32_t j = 0; j < n; j++) {
        uint32_t k;
        do
            k = below(r, NUM_KEYS);
        while (used >> k & 1);
        used |= 1ull << k;
        key_seen[k] = true;
        size_t a = d->nattrs++;
        d->key[a] = key_pool[k];
        e->leaf_values++;
        if (chance(r, NULL_VALUE)) {
            d->value[a] = 0;
            e->null_attr_values++;
            continue;
        }
        int64_t v = (int64_t)below(r, VALUE_RANGE) - (int64_t)(VALUE_RANGE / 2);
        d->value[a] = v;
        bit_set(d->value_valid, a);
        e->sum_attr_values += v;
        e->leaf_values++;
    }
    e->sum_attrs_card += n;
    e->level_entries += 2 * (n ? n : 1);
}

static void generate(data *d, uint64_t seed)
{
    rng r;
    rng_seed(&r, seed);
    bool tag_seen[NUM_TAGS] = {0}, key_seen[NUM_KEYS] = {0};
    expect *e = &d->e;
    int64_t id = 0;
    for (size_t i = 0; i < d->rows; i++) {
        id += 1 + (int64_t)below(&r, 16);
        d->id[i] = id;
        e->sum_id += id;
        e->leaf_values++;
        e->level_entries++;
        gen_tags(d, &r, i, tag_seen);
        gen_pos(d, &r, i);
        gen_attrs(d, &r, i, key_seen);
    }
    d->tags_off[d->rows] = (int32_t)d->ntags;
    d->attrs_off[d->rows] = (int32_t)d->nattrs;
    e->rows = d->rows;
    for (int k = 0; k < NUM_TAGS; k++)
        e->distinct_tags += tag_seen[k];
    for (int k = 0; k < NUM_KEYS; k++)
        e->distinct_keys += key_seen[k];
    size_t bm = (d->rows + 7) / 8;
    d->bytes = d->rows * (8 + 4 + 4 + 3 * 4) + 3 * bm + 8 + d->ntags * sizeof(inlay_bytes) +
               (d->ntags + 7) / 8 + d->nattrs * (sizeof(inlay_bytes) + 8) + (d->nattrs + 7) / 8;
}

/*----------------------------------------------------------------------
 *  The sample rows, as JSON lines
 *--------------------------------------------------------------------*/

static inline bool bit(const uint8_t *bm, size_t i)
{
    return bm[i >> 3] >> (i & 7) & 1;
}

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Row i as JSON.stringify writes it (strings are [a-z0-9_]: no escapes):
 * {"id":1,"tags":["a",null]|null,"pos":[x,y,z]|null,"attrs":[["k",1],["k",null]]|null}
 * with pos in units of 1/1024. */
static size_t row_json(const data *d, size_t i, char *out, size_t cap)
{
    size_t n = 0;
#define PUT(...) (n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, __VA_ARGS__))
    PUT("{\"id\":%" PRId64 ",\"tags\":", d->id[i]);
    if (!bit(d->tags_valid, i)) {
        PUT("null");
    } else {
        PUT("[");
        for (int32_t j = d->tags_off[i]; j < d->tags_off[i + 1]; j++) {
            if (j > d->tags_off[i])
                PUT(",");
            if (bit(d->tag_valid, (size_t)j))
                PUT("\"%.*s\"", (int)d->tag[j].len, (const char *)d->tag[j].data);
            else
                PUT("null");
        }
        PUT("]");
    }
    PUT(",\"pos\":");
    if (!bit(d->pos_valid, i))
        PUT("null");
    else
        PUT("[%d,%d,%d]", (int)(d->pos[0][i] * POS_SCALE), (int)(d->pos[1][i] * POS_SCALE),
            (int)(d->pos[2][i] * POS_SCALE));
    PUT(",\"attrs\":");
    if (!bit(d->attrs_valid, i)) {
        PUT("null");
    } else {
        PUT("[");
        for (int32_t j = d->attrs_off[i]; j < d->attrs_off[i + 1]; j++) {
            PUT("%s[\"%.*s\",", j > d->attrs_off[i] ? "," : "", (int)d->key[j].len,
                (const char *)d->key[j].data);
            if (bit(d->value_valid, (size_t)j))
                PUT("%" PRId64 "]", d->value[j]);
            else
                PUT("null]");
        }
        PUT("]");
    }
    PUT("}\n");
#undef PUT
    if (n >= cap)
        die("a sample row does not fit its buffer");
    return n;
}

/* The sampled rows: 0, stride, 2 stride, ... and the last one. */
static size_t next_sample(size_t i, size_t stride, size_t rows)
{
    if (i == rows - 1)
        return rows;
    return i + stride < rows ? i + stride : rows - 1;
}

/* Every stride-th row (about 400) and the last one: their FNV-1a 64 over
 * the lines, written to path when it is not NULL. */
static uint64_t write_sample(const data *d, const char *path, uint64_t *count)
{
    FILE *f = NULL;
    if (path && !(f = fopen(path, "w")))
        die("cannot write the --sample file");
    size_t stride = d->rows / 400 ? d->rows / 400 : 1;
    uint64_t h = 0xcbf29ce484222325ull;
    char line[1024];
    *count = 0;
    for (size_t i = 0; i < d->rows; i = next_sample(i, stride, d->rows)) {
        size_t n = row_json(d, i, line, sizeof line);
        h = fnv1a(h, line, n);
        if (f && fwrite(line, 1, n, f) != n)
            die("cannot write the --sample file");
        ++*count;
    }
    if (f && fclose(f))
        die("cannot write the --sample file");
    return h;
}

/*----------------------------------------------------------------------
 *  The schema
 *--------------------------------------------------------------------*/

static void schema_check(inlay_schema *s, int id)
{
    if (id < 0) {
        fprintf(stderr, "bench_nested: schema: %s\n", inlay_schema_errmsg(s));
        exit(1);
    }
}

static inlay_schema *make_schema(void)
{
    inlay_schema *s = inlay_schema_create(NULL);
    if (!s)
        die("out of memory");
    schema_check(s, inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL));
    int tags = inlay_schema_add_list(s, 0, "tags", INLAY_OPTIONAL);
    schema_check(s, tags);
    schema_check(s, inlay_schema_add(s, tags, "element", INLAY_OPTIONAL, inlay_type_string(), NULL));
    int pos = inlay_schema_add_group(s, 0, "pos", INLAY_OPTIONAL);
    schema_check(s, pos);
    static const char *const xyz[] = {"x", "y", "z"};
    for (int k = 0; k < 3; k++)
        schema_check(s, inlay_schema_add(s, pos, xyz[k], INLAY_REQUIRED, inlay_type_float(), NULL));
    int attrs = inlay_schema_add_map(s, 0, "attrs", INLAY_OPTIONAL);
    schema_check(s, attrs);
    schema_check(s, inlay_schema_add(s, attrs, "key", INLAY_REQUIRED, inlay_type_string(), NULL));
    schema_check(s, inlay_schema_add(s, attrs, "value", INLAY_OPTIONAL, inlay_type_int(64, true), NULL));
    return s;
}

/*----------------------------------------------------------------------
 *  One timed write
 *--------------------------------------------------------------------*/

#define STEADY_FROM 3 /* 0-based: the 4th batch */

/* The counters after one point of the run. */
typedef struct mark {
    uint64_t lib;     /* allocations + reallocations through the counting allocator */
    uint64_t reallocs; /* the reallocations among them */
    uint64_t mc;      /* malloc family calls (the interposer), 0 without it */
    uint64_t row_groups;
} mark;

typedef struct run_result {
    double seconds;
    uint64_t out_bytes;
    uint64_t row_groups;
    counting alloc;
    int64_t live_after;
    size_t nbatches;
    mark open, close; /* after open; after close and free */
    mark *batch;      /* after each batch, nbatches of them */
} run_result;

/* The interposer's calls so far (its counts never reset), 0 without it. */
static uint64_t mc_total(void)
{
    uint64_t v[5] = {0};
    if (mc_get)
        mc_get(v);
    return v[0] + v[1] + v[2] + v[3];
}

static void take_mark(mark *m, const counting *c, uint64_t mc0, const inlay_writer *w)
{
    m->lib = c->allocs + c->reallocs;
    m->reallocs = c->reallocs;
    m->mc = mc_total() - mc0;
    m->row_groups = w ? inlay_writer_row_groups(w) : 0;
}

#define CHECK(call)                                                                  \
    do {                                                                             \
        int st_ = (call);                                                            \
        if (st_ != INLAY_OK) {                                                       \
            fprintf(stderr, "bench_nested: %s failed: %s: %s\n", #call,              \
                    inlay_strerror(st_), w ? inlay_writer_errmsg(w) : "");           \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

/* Rows start .. start+n-1 of every field: one append_array call each. */
static void append_batch(inlay_writer *w, const data *d, size_t start, size_t n)
{
    const inlay_array id = {.length = n, .values = d->id + start};

    const inlay_array tag = {.length = d->ntags, .validity = d->tag_valid, .values = d->tag};
    const inlay_array tags = {.length = n, .validity = d->tags_valid + start / 8,
                              .offsets = d->tags_off + start, .children = &tag};

    const inlay_array xyz[3] = {{.length = n, .values = d->pos[0] + start},
                                {.length = n, .values = d->pos[1] + start},
                                {.length = n, .values = d->pos[2] + start}};
    const inlay_array pos = {.length = n, .validity = d->pos_valid + start / 8, .children = xyz};

    const inlay_array kv[2] = {{.length = d->nattrs, .values = d->key},
                               {.length = d->nattrs, .validity = d->value_valid, .values = d->value}};
    const inlay_array attrs = {.length = n, .validity = d->attrs_valid + start / 8,
                               .offsets = d->attrs_off + start, .children = kv};

    CHECK(inlay_writer_append_array(w, 0, &id, n));
    CHECK(inlay_writer_append_array(w, 1, &tags, n));
    CHECK(inlay_writer_append_array(w, 2, &pos, n));
    CHECK(inlay_writer_append_array(w, 3, &attrs, n));
}

static void write_once(const char *path, const inlay_schema *schema, const data *d, size_t batch,
                       run_result *res)
{
    counting cnt;
    memset(&cnt, 0, sizeof cnt);
    inlay_options opt;
    inlay_options_init(&opt);
    opt.alloc.fn = counting_alloc;
    opt.alloc.ud = &cnt;

    inlay_writer *w = NULL;
    uint64_t mc0 = mc_total();
    if (mc_arm)
        mc_arm(1);
    double t0 = now();

    int st = inlay_writer_open_file(&w, path, schema, &opt);
    if (st != INLAY_OK) {
        if (mc_arm)
            mc_arm(0);
        fprintf(stderr, "bench_nested: cannot open %s: %s: %s\n", path, inlay_strerror(st),
                w ? inlay_writer_errmsg(w) : "");
        inlay_writer_free(w);
        exit(1);
    }
    take_mark(&res->open, &cnt, mc0, w);
    size_t b = 0;
    for (size_t start = 0; start < d->rows; start += batch, b++) {
        size_t n = d->rows - start < batch ? d->rows - start : batch;
        append_batch(w, d, start, n);
        take_mark(&res->batch[b], &cnt, mc0, w);
    }
    CHECK(inlay_writer_close(w));
    res->out_bytes = inlay_writer_bytes(w);
    res->row_groups = inlay_writer_row_groups(w);
    uint64_t got = inlay_writer_rows(w);
    inlay_writer_free(w);

    double t1 = now();
    take_mark(&res->close, &cnt, mc0, NULL);
    res->close.row_groups = res->row_groups;
    if (mc_arm)
        mc_arm(0);

    if (got != d->rows) {
        fprintf(stderr, "bench_nested: the writer counted %" PRIu64 " rows, not %zu\n", got, d->rows);
        exit(1);
    }
    res->seconds = t1 - t0;
    res->nbatches = b;
    res->alloc = cnt;
    res->live_after = cnt.live;
}

/*----------------------------------------------------------------------
 *  Report
 *--------------------------------------------------------------------*/

/* The steady state: from the end of batch STEADY_FROM (the 4th's start) to
 * the end of the last batch, close excluded. */
typedef struct steady {
    bool valid;
    uint64_t rows, lib, reallocs, mc;
    size_t first, last; /* 1-based batch numbers */
} steady;

static steady steady_of(const run_result *r, size_t batch, size_t rows)
{
    steady s;
    memset(&s, 0, sizeof s);
    if (r->nbatches <= STEADY_FROM)
        return s;
    const mark *a = &r->batch[STEADY_FROM - 1], *z = &r->batch[r->nbatches - 1];
    s.valid = true;
    s.rows = rows - (uint64_t)STEADY_FROM * batch;
    s.lib = z->lib - a->lib;
    s.reallocs = z->reallocs - a->reallocs;
    s.mc = z->mc - a->mc;
    s.first = STEADY_FROM + 1;
    s.last = r->nbatches;
    return s;
}

/* Allocations per row group: the batches are grouped by the row group they
 * started in; the close (last row group flushed, footer) is its own line. */
static void print_row_groups(const run_result *r, size_t batch, size_t rows)
{
    size_t b = 0;
    while (b < r->nbatches) {
        uint64_t rg = b ? r->batch[b - 1].row_groups : r->open.row_groups;
        size_t e = b;
        uint64_t lib = 0, re = 0, steady_lib = 0, mc = 0;
        while (e < r->nbatches && (e ? r->batch[e - 1].row_groups : r->open.row_groups) == rg) {
            const mark *prev = e ? &r->batch[e - 1] : &r->open;
            lib += r->batch[e].lib - prev->lib;
            re += r->batch[e].reallocs - prev->reallocs;
            mc += r->batch[e].mc - prev->mc;
            if (e >= STEADY_FROM)
                steady_lib += r->batch[e].lib - prev->lib;
            e++;
        }
        size_t last_row = e * batch < rows ? e * batch : rows;
        printf("  row group %-4" PRIu64 " batches %zu..%zu (rows %zu..%zu): %" PRIu64
               " allocator calls (%" PRIu64 " reallocations), %" PRIu64 " from the 4th batch on",
               rg + 1, b + 1, e, b * batch, last_row - 1, lib, re, steady_lib);
        if (mc_get)
            printf("; %" PRIu64 " malloc calls", mc);
        printf("\n");
        b = e;
    }
    const mark *lastb = r->nbatches ? &r->batch[r->nbatches - 1] : &r->open;
    printf("  open %" PRIu64 " allocator calls, close and free %" PRIu64 "\n", r->open.lib,
           r->close.lib - lastb->lib);
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bench_nested [--rows N] [--repeat K] [--batch B] [--out PATH] [--sample PATH]\n"
            "                    [--seed S]\n"
            "  --rows N       rows to write (default 1000000)\n"
            "  --repeat K     write the file K times and report the median (default 1)\n"
            "  --batch B      rows per append_array call, a multiple of 8 (default 65536)\n"
            "  --out PATH     the file to write (default: in a new temporary directory,\n"
            "                 removed at exit)\n"
            "  --sample PATH  write about 400 of the rows as JSON lines, for nested_peer.mjs\n"
            "  --seed S       PRNG seed (default 42)\n");
}

static char tmp_dir[256];
static char tmp_path[300];

static void remove_tmp(void)
{
    if (tmp_path[0])
        unlink(tmp_path);
    if (tmp_dir[0])
        rmdir(tmp_dir);
}

static const char *default_out(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(tmp_dir, sizeof tmp_dir, "%s/inlay-nested.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmp_dir))
        die("cannot create a temporary directory");
    snprintf(tmp_path, sizeof tmp_path, "%s/bench_nested.parquet", tmp_dir);
    atexit(remove_tmp);
    return tmp_path;
}

int main(int argc, char **argv)
{
    uint64_t rows = 1000000, seed = 42;
    int repeat = 1;
    size_t batch = 65536;
    const char *path = NULL, *sample_path = NULL;

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
        if (!strcmp(a, "--rows"))
            rows = parse_u64(a, v);
        else if (!strcmp(a, "--repeat"))
            repeat = (int)parse_u64(a, v);
        else if (!strcmp(a, "--batch"))
            batch = (size_t)parse_u64(a, v);
        else if (!strcmp(a, "--out"))
            path = v;
        else if (!strcmp(a, "--sample"))
            sample_path = v;
        else if (!strcmp(a, "--seed"))
            seed = parse_u64(a, v);
        else {
            usage(stderr);
            return 2;
        }
    }
    if (rows < 1 || rows > INT32_MAX / TAGS_PER_ROW_MAX || repeat < 1 || repeat > 1000 ||
        batch < 8 || batch % 8) {
        fprintf(stderr, "bench_nested: --rows must be 1..%d, --batch a multiple of 8, --repeat 1..1000\n",
                INT32_MAX / TAGS_PER_ROW_MAX);
        return 2;
    }
    if (!path)
        path = default_out();

    make_pool(&tag_text[0][0], TAG_MAX, tag_pool, NUM_TAGS, TAG_MIN, TAG_MAX, 't', 0x7a65u);
    make_pool(&key_text[0][0], KEY_MAX, key_pool, NUM_KEYS, KEY_MIN, KEY_MAX, 'k', 0x6b65u);
    mc_find();

    data d;
    data_alloc(&d, (size_t)rows);
    double g0 = now();
    generate(&d, seed);
    double gen_seconds = now() - g0;
    uint64_t sample_rows;
    uint64_t sample_fnv = write_sample(&d, sample_path, &sample_rows);
    inlay_schema *s = make_schema();
    const expect *e = &d.e;

    inlay_options defaults;
    inlay_options_init(&defaults);
    printf("inlay %s nested: %" PRIu64 " rows in batches of %zu, zstd level %d (default), "
           "row groups of %zu rows / %zu MiB, pages of %zu rows / %zu KiB\n",
           inlay_version(), rows, batch, defaults.compression_level, defaults.row_group_rows,
           defaults.row_group_bytes >> 20, defaults.page_rows, defaults.page_bytes >> 10);
    printf("fields: id int64; tags list<string> (0..%d of %d strings of %d..%d B); "
           "pos struct<x, y, z float>; attrs map<string, int64> (0..%d of %d keys)\n",
           TAGS_PER_ROW_MAX, NUM_TAGS, TAG_MIN, TAG_MAX, ATTRS_PER_ROW_MAX, NUM_KEYS);
    printf("nulls: tags %.1f%%, tag %.1f%%, pos %.1f%%, attrs %.1f%%, map value %.1f%% "
           "(id, x/y/z and map keys required)\n",
           NULL_TAGS / 10.0, NULL_TAG / 10.0, NULL_POS / 10.0, NULL_ATTRS / 10.0, NULL_VALUE / 10.0);
    printf("generated in %.3f s (untimed): %zu tags, %zu map entries, %.1f MiB of Arrow-shaped buffers\n",
           gen_seconds, d.ntags, d.nattrs, d.bytes / 1048576.0);
    printf("output: %s\n", path);
    fflush(stdout);

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long maxrss_before = ru.ru_maxrss, maxrss_first = 0;

    size_t nb = (size_t)((rows + batch - 1) / batch);
    double *times = xmalloc((size_t)repeat * sizeof *times);
    run_result res;
    memset(&res, 0, sizeof res);
    res.batch = xcalloc(nb, sizeof *res.batch);
    uint64_t steady_max = 0;
    steady st;
    memset(&st, 0, sizeof st);
    for (int k = 0; k < repeat; k++) {
        write_once(path, s, &d, batch, &res);
        times[k] = res.seconds;
        st = steady_of(&res, batch, (size_t)rows);
        if (st.lib > steady_max)
            steady_max = st.lib;
        if (k == 0) {
            getrusage(RUSAGE_SELF, &ru);
            maxrss_first = ru.ru_maxrss;
        }
        printf("  run %d/%d: %.3f s\n", k + 1, repeat, res.seconds);
        fflush(stdout);
    }

    double t = median(times, repeat);
    getrusage(RUSAGE_SELF, &ru);
    double r = (double)rows;
    uint64_t lib_calls = res.alloc.allocs + res.alloc.reallocs;

    printf("rows              %" PRIu64 "\n", rows);
    printf("seconds           %.3f  (median of %d; open to free, the data already in memory)\n", t, repeat);
    printf("rows/s            %.0f  (%.2f M)\n", r / t, r / t / 1e6);
    printf("ns/row            %.1f\n", t * 1e9 / r);
    printf("leaf values/s     %.0f  (%.2f M; %" PRIu64 " non-null values over the 7 leaf columns, "
           "%.2f per row)\n",
           e->leaf_values / t, e->leaf_values / t / 1e6, e->leaf_values, e->leaf_values / r);
    printf("ns/leaf value     %.2f\n", t * 1e9 / (double)e->leaf_values);
    printf("level entries/s   %.0f  (%" PRIu64 " definition/repetition entries, nulls and empty lists included)\n",
           e->level_entries / t, e->level_entries);
    printf("output            %" PRIu64 " bytes (%.1f MiB), %" PRIu64 " row groups, %.2f B/row\n",
           res.out_bytes, res.out_bytes / 1048576.0, res.row_groups, res.out_bytes / r);
    printf("output MB/s       %.1f\n", res.out_bytes / t / 1e6);
    printf("peak RSS          %.1f MiB before the first run (the generated data), %.1f MiB after it, "
           "%.1f MiB after all (ru_maxrss)\n",
           maxrss_before / 1024.0, maxrss_first / 1024.0, ru.ru_maxrss / 1024.0);
    printf("lib allocator     %" PRIu64 " allocations + %" PRIu64 " reallocations, %" PRIu64
           " bytes asked, peak live %.1f MiB, %" PRId64 " bytes live after free (last run)\n",
           res.alloc.allocs, res.alloc.reallocs, res.alloc.bytes, res.alloc.peak / 1048576.0,
           res.live_after);
    if (st.valid) {
        printf("steady state      batches %zu..%zu (%" PRIu64 " rows): %" PRIu64
               " allocator calls (%" PRIu64 " of them reallocations), %.6f per row, %.2f per batch "
               "(most over the runs: %" PRIu64 ")\n",
               st.first, st.last, st.rows, st.lib, st.reallocs, st.lib / (double)st.rows,
               st.lib / (double)(st.last - st.first + 1), steady_max);
        if (mc_get)
            printf("                  %" PRIu64 " malloc family calls (interposer), %.6f per row; %" PRId64
                   " not through the library allocator\n",
                   st.mc, st.mc / (double)st.rows, (int64_t)st.mc - (int64_t)st.lib);
    } else {
        printf("steady state      none: fewer than %d batches\n", STEADY_FROM + 1);
    }
    printf("per row group (last run; the allocator calls of the batches that started in it):\n");
    print_row_groups(&res, batch, (size_t)rows);
    uint64_t mc_calls = res.close.mc;
    if (mc_get)
        printf("malloc interposer %" PRIu64 " malloc family calls in the timed section; %" PRIu64
               " through the library allocator, %" PRId64 " bypassing it\n",
               mc_calls, lib_calls, (int64_t)mc_calls - (int64_t)lib_calls);
    else
        printf("malloc interposer not loaded (LD_PRELOAD=.../libbench_malloc_count.so to count "
               "malloc calls)\n");
    printf("expected          sum(id) %" PRId64 ", sum(len(tags)) %" PRIu64 ", null tags %" PRIu64
           ", sum(pos.x) %.10f, sum(cardinality(attrs)) %" PRIu64 ", %" PRIu64 " sample rows (fnv %016" PRIx64
           ")\n",
           e->sum_id, e->sum_tags_len, e->null_tags, (double)e->sum_pos[0] / POS_SCALE, e->sum_attrs_card,
           sample_rows, sample_fnv);

    char bypass[32] = "na", steady_mc[32] = "na";
    if (mc_get) {
        snprintf(bypass, sizeof bypass, "%" PRId64, (int64_t)mc_calls - (int64_t)lib_calls);
        snprintf(steady_mc, sizeof steady_mc, "%" PRIu64, st.mc);
    }
    if (res.live_after != 0)
        fprintf(stderr, "bench_nested: the library still held %" PRId64 " bytes after inlay_writer_free\n",
                res.live_after);
    printf("RESULT rows=%" PRIu64 " repeat=%d batch=%zu seconds=%.6f out_bytes=%" PRIu64
           " row_groups=%" PRIu64 " leaf_values=%" PRIu64 " level_entries=%" PRIu64
           " maxrss_kb=%ld maxrss_before_kb=%ld maxrss_first_kb=%ld data_bytes=%" PRIu64
           " allocs=%" PRIu64 " reallocs=%" PRIu64 " peak_live=%" PRId64 " live_after=%" PRId64
           " steady_rows=%" PRIu64 " steady_lib=%" PRIu64 " steady_reallocs=%" PRIu64 " steady_lib_max=%" PRIu64 " steady_malloc=%s bypass=%s"
           " exp_rows=%" PRIu64 " exp_sum_id=%" PRId64 " exp_sum_tags_len=%" PRIu64 " exp_null_tags=%" PRIu64
           " exp_null_tag_elems=%" PRIu64 " exp_sum_pos_x_1024=%" PRId64 " exp_sum_pos_y_1024=%" PRId64
           " exp_sum_pos_z_1024=%" PRId64 " exp_null_pos=%" PRIu64 " exp_sum_attrs_card=%" PRIu64
           " exp_null_attrs=%" PRIu64 " exp_sum_attr_values=%" PRId64 " exp_null_attr_values=%" PRIu64
           " exp_distinct_tags=%" PRIu64 " exp_distinct_keys=%" PRIu64 " sample_rows=%" PRIu64
           " sample_fnv=%016" PRIx64 "\n",
           rows, repeat, batch, t, res.out_bytes, res.row_groups, e->leaf_values, e->level_entries,
           ru.ru_maxrss, maxrss_before, maxrss_first, d.bytes, res.alloc.allocs, res.alloc.reallocs,
           res.alloc.peak, res.live_after, st.rows, st.lib, st.reallocs, steady_max, steady_mc, bypass, e->rows,
           e->sum_id, e->sum_tags_len, e->null_tags, e->null_tag_elems, e->sum_pos[0], e->sum_pos[1],
           e->sum_pos[2], e->null_pos, e->sum_attrs_card, e->null_attrs, e->sum_attr_values,
           e->null_attr_values, e->distinct_tags, e->distinct_keys, sample_rows, sample_fnv);

    free(times);
    free(res.batch);
    data_free(&d);
    inlay_schema_free(s);
    return res.live_after == 0 ? 0 : 1;
}
