/*
 * arrow_host — an ops agent that keeps its metrics in Arrow's columnar
 * layout (as DuckDB, Polars, nanoarrow or Arrow C++ hand them out) and
 * writes them to Parquet through the Arrow C data interface, without
 * copying them into inlay's own arrays first.
 *
 * Every scrape (one per 10 s of simulated time) fills the agent's own
 * buffers: one row per host and metric. The batch is described as the
 * interface lays it out: a struct array whose children are
 *
 *   ts       tsu:UTC    timestamp(us), adjusted to UTC
 *   host     c / u      dictionary-encoded: int8 indices into the host names
 *   metric   u          utf8: int32 offsets and the bytes
 *   value    g          double, nullable: a validity bitmap (LSB first);
 *                       a host that did not answer leaves a null
 *   samples  I          uint32
 *
 * and handed over with inlay_writer_append_arrow; the agent then releases
 * the batch itself, as the producer of Arrow data does (inlay never calls
 * a release callback and keeps nothing of the structs). The schema is
 * made from the ArrowSchema with inlay_schema_from_arrow; a row group is
 * ended every minute of simulated time.
 *
 *     arrow_host [--minutes M] [--hosts H] [--out PATH] [--expect PATH]
 *
 * --expect writes every value written, as a Lua table, for a test to
 * compare with what a reader reads back.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <inlay.h>

enum { MAX_HOSTS = 64, METRICS = 4, SCRAPE_SECONDS = 10, COLUMNS = 5 };

static const char *const metric_names[METRICS] = { "cpu.busy", "mem.used_mb", "disk.read_kbps", "net.rx_kbps" };
static const int64_t START_US = 1735689600000000;   /* 2025-01-01T00:00:00Z */

/* ---- the agent's Arrow data: its own buffers, reused every scrape --------- */

typedef struct scrape {
    int64_t rows;
    /* ts */
    int64_t ts[MAX_HOSTS * METRICS];
    /* host: indices, and the dictionary of names (built once) */
    int8_t host[MAX_HOSTS * METRICS];
    int32_t host_offsets[MAX_HOSTS + 1];
    char host_bytes[MAX_HOSTS * 16];
    /* metric */
    int32_t metric_offsets[MAX_HOSTS * METRICS + 1];
    char metric_bytes[MAX_HOSTS * METRICS * 16];
    /* value, nullable */
    double value[MAX_HOSTS * METRICS];
    uint8_t value_valid[(MAX_HOSTS * METRICS + 7) / 8];
    int64_t value_nulls;
    /* samples */
    uint32_t samples[MAX_HOSTS * METRICS];
} scrape;

/* splitmix64: the same values on every run and machine */
static uint64_t next_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void scrape_names(scrape *s, int hosts)
{
    int32_t at = 0;
    s->host_offsets[0] = 0;
    for (int h = 0; h < hosts; h++) {
        at += sprintf(s->host_bytes + at, "node-%02d", h);
        s->host_offsets[h + 1] = at;
    }
}

static void scrape_fill(scrape *s, int hosts, int64_t round, uint64_t *rng)
{
    int64_t r = 0;
    int32_t at = 0;
    s->metric_offsets[0] = 0;
    s->value_nulls = 0;
    memset(s->value_valid, 0, sizeof s->value_valid);
    const int down = (int)(next_rand(rng) % (uint64_t)(hosts * 8));   /* now and then a host misses a scrape */
    for (int h = 0; h < hosts; h++)
        for (int m = 0; m < METRICS; m++, r++) {
            s->ts[r] = START_US + round * SCRAPE_SECONDS * 1000000 + (int64_t)(next_rand(rng) % 250000);
            s->host[r] = (int8_t)h;
            const size_t len = strlen(metric_names[m]);
            memcpy(s->metric_bytes + at, metric_names[m], len);
            at += (int32_t)len;
            s->metric_offsets[r + 1] = at;
            if (h == down) {
                s->value[r] = 0;   /* a null's slot holds anything */
                s->value_nulls++;
            } else {
                s->value[r] = (double)(next_rand(rng) % 1000000) / 100.0;
                s->value_valid[r / 8] |= (uint8_t)(1u << (r % 8));
            }
            s->samples[r] = (uint32_t)(next_rand(rng) % 100) + (m == 0 ? 4000000000u : 1u);
        }
    s->rows = r;
}

/* ---- the batch as the C data interface describes it -------------------------- */

/* What a producer's release callback does: mark the struct released. The
 * agent's buffers are its own and outlive the batch. */
static void release_schema(struct ArrowSchema *s) { s->release = NULL; }
static void release_array(struct ArrowArray *a) { a->release = NULL; }

typedef struct batch {
    struct ArrowSchema schema, fields[COLUMNS], host_dict;
    struct ArrowSchema *field_ptrs[COLUMNS];
    struct ArrowArray array, columns[COLUMNS], host_names;
    struct ArrowArray *column_ptrs[COLUMNS];
    const void *buffers[COLUMNS][3], *host_name_buffers[3], *struct_buffers[1];
} batch;

static void describe_field(struct ArrowSchema *f, const char *format, const char *name, int64_t flags)
{
    *f = (struct ArrowSchema){ .format = format, .name = name, .flags = flags, .release = release_schema };
}

static void describe_schema(batch *b)
{
    static const char *const formats[COLUMNS] = { "tsu:UTC", "c", "u", "g", "I" };
    static const char *const names[COLUMNS] = { "ts", "host", "metric", "value", "samples" };
    for (int c = 0; c < COLUMNS; c++) {
        describe_field(&b->fields[c], formats[c], names[c], c == 3 ? ARROW_FLAG_NULLABLE : 0);
        b->field_ptrs[c] = &b->fields[c];
    }
    describe_field(&b->host_dict, "u", NULL, 0);
    b->fields[1].dictionary = &b->host_dict;
    describe_field(&b->schema, "+s", "", 0);
    b->schema.n_children = COLUMNS;
    b->schema.children = b->field_ptrs;
}

static void describe_column(struct ArrowArray *a, const void **buffers, int64_t n_buffers, int64_t length,
                            int64_t null_count)
{
    *a = (struct ArrowArray){ .length = length, .null_count = null_count, .n_buffers = n_buffers,
                              .buffers = buffers, .release = release_array };
}

static void describe_array(batch *b, const scrape *s, int hosts)
{
    const int64_t n = s->rows;
    b->buffers[0][0] = NULL, b->buffers[0][1] = s->ts;
    describe_column(&b->columns[0], b->buffers[0], 2, n, 0);
    b->buffers[1][0] = NULL, b->buffers[1][1] = s->host;
    describe_column(&b->columns[1], b->buffers[1], 2, n, 0);
    b->host_name_buffers[0] = NULL, b->host_name_buffers[1] = s->host_offsets, b->host_name_buffers[2] = s->host_bytes;
    describe_column(&b->host_names, b->host_name_buffers, 3, hosts, 0);
    b->columns[1].dictionary = &b->host_names;
    b->buffers[2][0] = NULL, b->buffers[2][1] = s->metric_offsets, b->buffers[2][2] = s->metric_bytes;
    describe_column(&b->columns[2], b->buffers[2], 3, n, 0);
    b->buffers[3][0] = s->value_valid, b->buffers[3][1] = s->value;
    describe_column(&b->columns[3], b->buffers[3], 2, n, s->value_nulls);
    b->buffers[4][0] = NULL, b->buffers[4][1] = s->samples;
    describe_column(&b->columns[4], b->buffers[4], 2, n, 0);
    for (int c = 0; c < COLUMNS; c++) b->column_ptrs[c] = &b->columns[c];
    b->struct_buffers[0] = NULL;
    describe_column(&b->array, b->struct_buffers, 1, n, 0);
    b->array.n_children = COLUMNS;
    b->array.children = b->column_ptrs;
}

static void release_batch(batch *b)
{
    for (int c = 0; c < COLUMNS; c++) b->columns[c].release(&b->columns[c]);
    b->host_names.release(&b->host_names);
    b->array.release(&b->array);
}

/* ---- --expect: every value, as the test's DuckDB reader shows them --------- */

static void dump_scrape(FILE *const *out, const scrape *s)
{
    for (int64_t r = 0; r < s->rows; r++) {
        const int h = s->host[r];
        fprintf(out[0], "\"%" PRId64 "us\",", s->ts[r]);
        fprintf(out[1], "\"%.*s\",", (int)(s->host_offsets[h + 1] - s->host_offsets[h]),
                s->host_bytes + s->host_offsets[h]);
        fprintf(out[2], "\"%.*s\",", (int)(s->metric_offsets[r + 1] - s->metric_offsets[r]),
                s->metric_bytes + s->metric_offsets[r]);
        if (s->value_valid[r / 8] >> (r % 8) & 1) fprintf(out[3], "%.17g,", s->value[r]);
        else fputs("nil,", out[3]);
        fprintf(out[4], "\"%" PRIu32 "\",", s->samples[r]);
    }
}

static int write_expect(const char *path, FILE *const *cols, uint64_t rows, uint64_t row_groups)
{
    static const char *const names[COLUMNS] = { "ts", "host", "metric", "value", "samples" };
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "return { rows = %" PRIu64 ", row_groups = %" PRIu64 ", values = {\n", rows, row_groups);
    for (int c = 0; c < COLUMNS; c++) {
        fprintf(f, "  %s = { n = %" PRIu64 ", ", names[c], rows);
        rewind(cols[c]);
        char buf[1 << 16];
        size_t k;
        while ((k = fread(buf, 1, sizeof buf, cols[c])) > 0) fwrite(buf, 1, k, f);
        fputs("},\n", f);
    }
    fputs("} }\n", f);
    return fclose(f);
}

/* ---- the agent ----------------------------------------------------------------- */

static int usage(void)
{
    fprintf(stderr, "usage: arrow_host [--minutes M] [--hosts H] [--out PATH] [--expect PATH]\n");
    return 2;
}

int main(int argc, char **argv)
{
    long minutes = 60, hosts = 32;
    const char *out = "metrics.parquet", *expect = NULL;
    for (int i = 1; i < argc; i++) {
        if (!argv[i + 1]) return usage();
        if (!strcmp(argv[i], "--minutes")) minutes = atol(argv[++i]);
        else if (!strcmp(argv[i], "--hosts")) hosts = atol(argv[++i]);
        else if (!strcmp(argv[i], "--out")) out = argv[++i];
        else if (!strcmp(argv[i], "--expect")) expect = argv[++i];
        else return usage();
    }
    if (minutes < 1 || hosts < 1 || hosts > MAX_HOSTS) return usage();

    static scrape s;
    static batch b;
    scrape_names(&s, (int)hosts);
    describe_schema(&b);

    char err[256];
    inlay_schema *schema;
    if (inlay_schema_from_arrow(&schema, &b.schema, NULL, err, sizeof err) != INLAY_OK) {
        fprintf(stderr, "arrow_host: %s\n", err);
        return 1;
    }
    inlay_writer *w;
    if (inlay_writer_open_file(&w, out, schema, NULL) != INLAY_OK) {
        fprintf(stderr, "arrow_host: %s\n", w ? inlay_writer_errmsg(w) : "out of memory");
        inlay_writer_free(w);
        inlay_schema_free(schema);
        return 1;
    }
    inlay_schema_free(schema);

    FILE *cols[COLUMNS] = { 0 };
    if (expect)
        for (int c = 0; c < COLUMNS; c++)
            if (!(cols[c] = tmpfile())) return 1;

    uint64_t rng = 42, rows = 0;
    const int64_t rounds = (int64_t)minutes * 60 / SCRAPE_SECONDS, per_minute = 60 / SCRAPE_SECONDS;
    for (int64_t round = 0; round < rounds; round++) {
        scrape_fill(&s, (int)hosts, round, &rng);
        if (expect) dump_scrape(cols, &s);
        describe_array(&b, &s, (int)hosts);
        int st = inlay_writer_append_arrow(w, &b.array, &b.schema);
        release_batch(&b);   /* the producer's to release, once inlay has returned */
        if (st == INLAY_OK && (round + 1) % per_minute == 0) st = inlay_writer_flush_row_group(w);
        if (st != INLAY_OK) {
            fprintf(stderr, "arrow_host: scrape %" PRId64 ": %s\n", round, inlay_writer_errmsg(w));
            inlay_writer_free(w);
            return 1;
        }
        rows += (uint64_t)s.rows;
    }
    if (inlay_writer_close(w) != INLAY_OK) {
        fprintf(stderr, "arrow_host: %s\n", inlay_writer_errmsg(w));
        inlay_writer_free(w);
        return 1;
    }
    inlay_writer_stats st;
    inlay_writer_get_stats(w, &st);
    inlay_writer_free(w);
    if (expect && write_expect(expect, cols, rows, st.row_groups)) {
        fprintf(stderr, "arrow_host: cannot write %s\n", expect);
        return 1;
    }
    printf("arrow_host: %" PRId64 " Arrow record batches (%ld hosts x %d metrics every %d s for %ld min), "
           "%" PRIu64 " rows, %" PRIu64 " row groups, %" PRIu64 " bytes to %s\n",
           rounds, hosts, METRICS, SCRAPE_SECONDS, minutes, rows, st.row_groups, st.bytes_written, out);
    return 0;
}
