/*
 * interop_skip_fixtures OUTDIR
 *
 * Writes the files that show what readers skip by — chunk and page
 * statistics, the page index (ColumnIndex + OffsetIndex), bloom filters,
 * sorting_columns, page CRCs — and beside each NAME.parquet a NAME.json
 * with what those structures must say. skip.mjs reads the files with
 * DuckDB, hyparquet and arrow-rs and compares.
 *
 * Every expectation is computed here, in plain C, from the values this
 * program generated; nothing is read back through libinlay. The JSON:
 *
 *   {
 *     "name", "kind": "stats" | "bloom" | "sorted", "rows",
 *     "options": { page_version, compression, page_rows, row_group_rows,
 *                  statistics, page_index, page_checksum, truncate_length },
 *     "sorting_columns": [ { column, index, descending, nulls_first } ],
 *     "writer": { rows, row_groups, bytes },
 *     "columns": [ {
 *        "name", "type" (int32 int64 uint32 uint64 double string),
 *        "nullable", "statistics" (the column's own option),
 *        "bloom": null | { ndv, fpp } (the options as given; 0 = default),
 *        "written": { bloom_filter_bytes, column_index_bytes,
 *                     offset_index_bytes } (inlay_writer_column_stats),
 *        "absent": [ values no row holds ] (bloom files),
 *        "values": [ one canonical value per row ] } ],
 *     "row_groups": [ { "first_row", "rows",
 *        "chunks": [ one per column: STATS + "distinct" (non-null distinct
 *                    values) + "pages": [ STATS + "first_row", "rows" ] ] } ]
 *   }
 *
 * STATS, for a chunk or a page (pages cut every page_rows rows of the row
 * group): "null_count", "unencoded_bytes" (byte arrays: the bytes of the
 * non-null values), "def_hist" ([nulls, values] for an optional column,
 * null for a required one), and "min"/"max" (null when there is no
 * non-null, non-NaN value) as { "value" (canonical), "hex" (the PLAIN bytes
 * the statistics hold), "exact" }. Order: signed for int32/int64, unsigned
 * for uint32/uint64, IEEE for doubles with NaN left out and a zero minimum
 * written -0.0, a zero maximum +0.0; byte-wise unsigned for strings, a value
 * longer than truncate_length cut at the last UTF-8 character boundary
 * within it (the maximum then rounded up: its last character incremented),
 * and flagged inexact.
 *
 * Canonical values: integers as decimal strings, doubles as JSON numbers or
 * "NaN", "Infinity", "-Infinity", "-0"; strings as JSON strings.
 *
 * Deterministic: a PRNG seeded by the file name. Exit status: 0; 1 when
 * libinlay failed on some files (named on stderr; the others are written);
 * 2 on a usage or internal error.
 */
#include <inlay.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sbuf.h"

/* INLAY_FIXTURE_THREADS: the writers' thread count (0: the default), for
 * the test that compares the files written at several counts. */
static int fixture_threads(void)
{
    const char *t = getenv("INLAY_FIXTURE_THREADS");
    return t ? atoi(t) : 0;
}

/*----------------------------------------------------------------------
 *  Utilities
 *--------------------------------------------------------------------*/

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("interop_skip_fixtures: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p)
        die("out of memory");
    return p;
}

/* splitmix64, seeded from the file name (FNV-1a). */
typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rnd(rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static rng rng_for(const char *name)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3u;
    return (rng){h};
}

static double uniform(rng *r, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(rnd(r) >> 11) / 9007199254740992.0);
}

/*----------------------------------------------------------------------
 *  Columns and files
 *--------------------------------------------------------------------*/

typedef enum ctype { T_I32, T_I64, T_U32, T_U64, T_DBL, T_STR } ctype;

static const char *const TYPE_TAG[] = {"int32", "int64", "uint32", "uint64", "double", "string"};

typedef struct column {
    const char *name;
    ctype t;
    bool nullable;
    inlay_encoding_choice enc;
    bool stats;                 /* inlay_column_options.statistics */
    bool bloom;
    uint64_t bloom_ndv;
    double bloom_fpp;
    /* one slot per row */
    bool *present;
    int64_t *iv;                /* I32, I64; U32, U64 as their bits */
    double *dv;
    inlay_bytes *sv;
    /* values no row holds (bloom files): canonical text, count */
    char **absent;
    size_t nabsent;
    inlay_column_stats written;
} column;

#define MAX_COLS 12

typedef struct fspec {
    const char *name;
    const char *kind;
    int page_version;
    inlay_compression codec;
    size_t rows, page_rows, rg_rows, truncate;
    bool statistics, page_index, page_checksum;
    inlay_sorting_column sorting[2];
    size_t nsorting;
    column cols[MAX_COLS];
    int ncols;
    uint64_t w_rows, w_row_groups, w_bytes;
} fspec;

static const char *g_outdir;
static int g_failed;

static column *add_col(fspec *f, const char *name, ctype t, bool nullable)
{
    if (f->ncols == MAX_COLS)
        die("too many columns");
    column *c = &f->cols[f->ncols++];
    memset(c, 0, sizeof *c);
    c->name = name;
    c->t = t;
    c->nullable = nullable;
    c->enc = INLAY_ENCODING_AUTO;
    c->stats = true;
    c->present = xcalloc(f->rows, sizeof *c->present);
    if (t == T_DBL)
        c->dv = xcalloc(f->rows, sizeof *c->dv);
    else if (t == T_STR)
        c->sv = xcalloc(f->rows, sizeof *c->sv);
    else
        c->iv = xcalloc(f->rows, sizeof *c->iv);
    return c;
}

static void set_str(column *c, size_t i, const char *p, size_t n)
{
    char *copy = xcalloc(n + 1, 1);
    memcpy(copy, p, n);
    c->sv[i] = (inlay_bytes){copy, n};
    c->present[i] = true;
}

static void free_file(fspec *f)
{
    for (int k = 0; k < f->ncols; k++) {
        column *c = &f->cols[k];
        if (c->sv)
            for (size_t i = 0; i < f->rows; i++)
                free((void *)c->sv[i].data);
        for (size_t i = 0; i < c->nabsent; i++)
            free(c->absent[i]);
        free(c->absent);
        free(c->present);
        free(c->iv);
        free(c->dv);
        free(c->sv);
    }
}

/*----------------------------------------------------------------------
 *  Sort orders and statistics, computed from the values
 *--------------------------------------------------------------------*/

/* <0, 0, >0 as row a's value sorts before, with or after row b's (both
 * present, neither NaN) in the column's sort order. */
static int cmp_rows(const column *c, size_t a, size_t b)
{
    switch (c->t) {
    case T_I32:
    case T_I64:
        return (c->iv[a] > c->iv[b]) - (c->iv[a] < c->iv[b]);
    case T_U32:
    case T_U64: {
        uint64_t x = (uint64_t)c->iv[a], y = (uint64_t)c->iv[b];
        return (x > y) - (x < y);
    }
    case T_DBL:
        return (c->dv[a] > c->dv[b]) - (c->dv[a] < c->dv[b]);
    case T_STR: {
        size_t n = c->sv[a].len < c->sv[b].len ? c->sv[a].len : c->sv[b].len;
        int d = n ? memcmp(c->sv[a].data, c->sv[b].data, n) : 0;
        if (d)
            return d;
        return (c->sv[a].len > c->sv[b].len) - (c->sv[a].len < c->sv[b].len);
    }
    }
    return 0;
}

/* A statistics value: the PLAIN bytes and whether they are exact. */
typedef struct statv {
    bool has;
    bool exact;
    unsigned char *bytes;       /* malloc'd */
    size_t len;
} statv;

/* The length of the longest prefix of p[0..n) that ends at a UTF-8
 * character boundary and is at most limit bytes. */
static size_t utf8_cut(const unsigned char *p, size_t n, size_t limit)
{
    size_t cut = limit < n ? limit : n;
    while (cut > 0 && cut < n && (p[cut] & 0xC0) == 0x80)
        cut--;
    return cut;
}

static void plain_bytes(const column *c, size_t row, unsigned char *out, size_t *len)
{
    uint64_t bits;
    switch (c->t) {
    case T_I32:
    case T_U32:
        bits = (uint64_t)c->iv[row];
        for (int i = 0; i < 4; i++)
            out[i] = (unsigned char)(bits >> (8 * i));
        *len = 4;
        return;
    case T_I64:
    case T_U64:
        bits = (uint64_t)c->iv[row];
        for (int i = 0; i < 8; i++)
            out[i] = (unsigned char)(bits >> (8 * i));
        *len = 8;
        return;
    case T_DBL:
        memcpy(&bits, &c->dv[row], 8);
        for (int i = 0; i < 8; i++)
            out[i] = (unsigned char)(bits >> (8 * i));
        *len = 8;
        return;
    case T_STR:
        break;
    }
    die("plain_bytes on a string");
}

static statv make_stat(const column *c, size_t row, bool is_max, size_t truncate)
{
    statv v = {.has = true, .exact = true};
    if (c->t == T_STR) {
        const unsigned char *p = c->sv[row].data;
        size_t n = c->sv[row].len;
        if (truncate && n > truncate) {
            n = utf8_cut(p, n, truncate);
            v.exact = false;
        }
        v.bytes = xcalloc(n + 1, 1);
        memcpy(v.bytes, p, n);
        v.len = n;
        if (!v.exact && is_max) {
            /* round up: the last character incremented. The data here keeps
             * it a letter below 'z', where every way of rounding up agrees */
            if (n == 0 || v.bytes[n - 1] < 'a' || v.bytes[n - 1] >= 'z')
                die("%s: a cut maximum must end in a letter below 'z'", c->name);
            v.bytes[n - 1]++;
        }
        return v;
    }
    v.bytes = xcalloc(8, 1);
    plain_bytes(c, row, v.bytes, &v.len);
    if (c->t == T_DBL && c->dv[row] == 0.0) {
        /* a zero minimum is -0.0, a zero maximum +0.0 (parquet.thrift) */
        double z = is_max ? 0.0 : -0.0;
        uint64_t bits;
        memcpy(&bits, &z, 8);
        for (int i = 0; i < 8; i++)
            v.bytes[i] = (unsigned char)(bits >> (8 * i));
    }
    return v;
}

typedef struct rstats {
    size_t nulls, values;
    uint64_t unencoded;
    size_t distinct;
    statv min, max;
} rstats;

static const column *g_sort_col;
static int cmp_ix(const void *a, const void *b)
{
    return cmp_rows(g_sort_col, *(const size_t *)a, *(const size_t *)b);
}

/* Statistics of rows [a, b) of column c. */
static rstats range_stats(const column *c, size_t a, size_t b, size_t truncate, bool distinct)
{
    rstats r = {0};
    size_t lo = SIZE_MAX, hi = SIZE_MAX;
    size_t *rows = distinct ? xcalloc(b - a, sizeof *rows) : NULL;
    size_t nrows = 0;
    for (size_t i = a; i < b; i++) {
        if (!c->present[i]) {
            r.nulls++;
            continue;
        }
        r.values++;
        if (c->t == T_STR)
            r.unencoded += c->sv[i].len;
        if (c->t == T_DBL && isnan(c->dv[i])) {
            if (rows)
                rows[nrows++] = i; /* every NaN bit pattern here is the same one */
            continue;
        }
        if (rows)
            rows[nrows++] = i;
        if (lo == SIZE_MAX || cmp_rows(c, i, lo) < 0)
            lo = i;
        if (hi == SIZE_MAX || cmp_rows(c, i, hi) > 0)
            hi = i;
    }
    if (lo != SIZE_MAX) {
        r.min = make_stat(c, lo, false, truncate);
        r.max = make_stat(c, hi, true, truncate);
    }
    if (rows) {
        /* distinct non-null values: NaNs compare equal to nothing, so count
         * them apart (one PLAIN value, the generator's NaN) */
        size_t nan = 0, k = 0;
        for (size_t i = 0; i < nrows; i++)
            if (c->t == T_DBL && isnan(c->dv[rows[i]]))
                nan = 1;
            else
                rows[k++] = rows[i];
        g_sort_col = c;
        qsort(rows, k, sizeof *rows, cmp_ix);
        for (size_t i = 0; i < k; i++) {
            if (i == 0 || cmp_rows(c, rows[i - 1], rows[i]) != 0)
                r.distinct++;
            else if (c->t == T_DBL && signbit(c->dv[rows[i - 1]]) != signbit(c->dv[rows[i]]))
                r.distinct++; /* -0.0 and +0.0 have different PLAIN bytes */
        }
        r.distinct += nan;
        free(rows);
    }
    return r;
}

static void free_rstats(rstats *r)
{
    free(r->min.bytes);
    free(r->max.bytes);
}

/*----------------------------------------------------------------------
 *  JSON
 *--------------------------------------------------------------------*/

static void emit_double(sbuf *s, double d)
{
    if (isnan(d))
        sb_puts(s, "\"NaN\"");
    else if (isinf(d))
        sb_puts(s, d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    else if (d == 0 && signbit(d))
        sb_puts(s, "\"-0\"");
    else
        sb_printf(s, "%.17g", d);
}

static void emit_value(sbuf *s, const column *c, size_t i)
{
    if (!c->present[i]) {
        sb_puts(s, "null");
        return;
    }
    switch (c->t) {
    case T_I32:
    case T_I64:
        sb_printf(s, "\"%lld\"", (long long)c->iv[i]);
        return;
    case T_U32:
    case T_U64:
        sb_printf(s, "\"%llu\"", (unsigned long long)(uint64_t)c->iv[i]);
        return;
    case T_DBL:
        emit_double(s, c->dv[i]);
        return;
    case T_STR:
        sb_json_str(s, c->sv[i].data, c->sv[i].len);
        return;
    }
}

/* A statistics value in canonical form, from its PLAIN bytes. */
static void emit_stat(sbuf *s, const column *c, const statv *v)
{
    if (!v->has) {
        sb_puts(s, "null");
        return;
    }
    sb_puts(s, "{\"value\":");
    uint64_t bits = 0;
    if (c->t != T_STR)
        for (size_t i = 0; i < v->len; i++)
            bits |= (uint64_t)v->bytes[i] << (8 * i);
    switch (c->t) {
    case T_I32:
        sb_printf(s, "\"%d\"", (int32_t)(uint32_t)bits);
        break;
    case T_I64:
        sb_printf(s, "\"%lld\"", (long long)(int64_t)bits);
        break;
    case T_U32:
    case T_U64:
        sb_printf(s, "\"%llu\"", (unsigned long long)bits);
        break;
    case T_DBL: {
        double d;
        memcpy(&d, &bits, 8);
        emit_double(s, d);
        break;
    }
    case T_STR:
        sb_json_str(s, v->bytes, v->len);
        break;
    }
    sb_puts(s, ",\"hex\":");
    sb_hex(s, v->bytes, v->len);
    sb_printf(s, ",\"exact\":%s}", v->exact ? "true" : "false");
}

static void emit_rstats(sbuf *s, const column *c, const rstats *r)
{
    sb_printf(s, "\"null_count\":%zu,\"unencoded_bytes\":", r->nulls);
    if (c->t == T_STR)
        sb_printf(s, "%llu", (unsigned long long)r->unencoded);
    else
        sb_puts(s, "null");
    if (c->nullable)
        sb_printf(s, ",\"def_hist\":[%zu,%zu]", r->nulls, r->values);
    else
        sb_puts(s, ",\"def_hist\":null");
    sb_puts(s, ",\"min\":");
    emit_stat(s, c, &r->min);
    sb_puts(s, ",\"max\":");
    emit_stat(s, c, &r->max);
}

static const char *codec_name(inlay_compression c)
{
    const char *n = inlay_compression_name(c);
    return n ? n : "?";
}

static void write_json(const fspec *f)
{
    sbuf s = {0};
    sb_puts(&s, "{\"name\":");
    sb_json_str(&s, (const unsigned char *)f->name, strlen(f->name));
    sb_printf(&s, ",\"kind\":\"%s\",\"rows\":%zu,\n", f->kind, f->rows);
    sb_printf(&s, "\"options\":{\"page_version\":%d,\"compression\":\"%s\",\"page_rows\":%zu,"
                  "\"row_group_rows\":%zu,\"statistics\":%s,\"page_index\":%s,\"page_checksum\":%s,"
                  "\"truncate_length\":%zu},\n",
              f->page_version, codec_name(f->codec), f->page_rows, f->rg_rows, f->statistics ? "true" : "false",
              f->page_index ? "true" : "false", f->page_checksum ? "true" : "false", f->truncate);
    sb_puts(&s, "\"sorting_columns\":[");
    for (size_t k = 0; k < f->nsorting; k++) {
        int ix = -1;
        for (int c = 0; c < f->ncols; c++)
            if (!strcmp(f->cols[c].name, f->sorting[k].column))
                ix = c;
        sb_printf(&s, "%s{\"column\":\"%s\",\"index\":%d,\"descending\":%s,\"nulls_first\":%s}", k ? "," : "",
                  f->sorting[k].column, ix, f->sorting[k].descending ? "true" : "false",
                  f->sorting[k].nulls_first ? "true" : "false");
    }
    sb_printf(&s, "],\n\"writer\":{\"rows\":%llu,\"row_groups\":%llu,\"bytes\":%llu},\n\"columns\":[\n",
              (unsigned long long)f->w_rows, (unsigned long long)f->w_row_groups, (unsigned long long)f->w_bytes);
    for (int k = 0; k < f->ncols; k++) {
        const column *c = &f->cols[k];
        sb_printf(&s, "%s{\"name\":\"%s\",\"type\":\"%s\",\"nullable\":%s,\"statistics\":%s,\"bloom\":", k ? ",\n" : "",
                  c->name, TYPE_TAG[c->t], c->nullable ? "true" : "false", c->stats ? "true" : "false");
        if (c->bloom)
            sb_printf(&s, "{\"ndv\":%llu,\"fpp\":%.17g}", (unsigned long long)c->bloom_ndv, c->bloom_fpp);
        else
            sb_puts(&s, "null");
        sb_printf(&s, ",\"written\":{\"bloom_filter_bytes\":%llu,\"column_index_bytes\":%llu,"
                      "\"offset_index_bytes\":%llu}",
                  (unsigned long long)c->written.bloom_filter_bytes,
                  (unsigned long long)c->written.column_index_bytes,
                  (unsigned long long)c->written.offset_index_bytes);
        if (c->nabsent) {
            sb_puts(&s, ",\"absent\":[");
            for (size_t i = 0; i < c->nabsent; i++) {
                if (i)
                    sb_puts(&s, ",");
                sb_json_str(&s, (const unsigned char *)c->absent[i], strlen(c->absent[i]));
            }
            sb_puts(&s, "]");
        }
        sb_puts(&s, ",\"values\":[");
        for (size_t i = 0; i < f->rows; i++) {
            if (i)
                sb_puts(&s, i % 32 ? "," : ",\n");
            emit_value(&s, c, i);
        }
        sb_puts(&s, "]}");
    }
    sb_puts(&s, "\n],\n\"row_groups\":[\n");
    for (size_t g = 0, first = 0; first < f->rows; g++, first += f->rg_rows) {
        size_t end = first + f->rg_rows < f->rows ? first + f->rg_rows : f->rows;
        sb_printf(&s, "%s{\"first_row\":%zu,\"rows\":%zu,\"chunks\":[\n", g ? ",\n" : "", first, end - first);
        for (int k = 0; k < f->ncols; k++) {
            const column *c = &f->cols[k];
            rstats r = range_stats(c, first, end, f->truncate, true);
            sb_puts(&s, k ? ",\n{" : "{");
            emit_rstats(&s, c, &r);
            sb_printf(&s, ",\"distinct\":%zu,\"pages\":[", r.distinct);
            free_rstats(&r);
            for (size_t p = first, n = 0; p < end; p += f->page_rows, n++) {
                size_t pe = p + f->page_rows < end ? p + f->page_rows : end;
                rstats pr = range_stats(c, p, pe, f->truncate, false);
                sb_printf(&s, "%s{\"first_row\":%zu,\"rows\":%zu,", n ? "," : "", p - first, pe - p);
                emit_rstats(&s, c, &pr);
                sb_puts(&s, "}");
                free_rstats(&pr);
            }
            sb_puts(&s, "]}");
        }
        sb_puts(&s, "]}");
    }
    sb_puts(&s, "\n]\n}\n");

    char path[1024];
    snprintf(path, sizeof path, "%s/%s.json", g_outdir, f->name);
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(s.p, 1, s.len, fp) != s.len || fclose(fp) != 0)
        die("writing %s: %s", path, strerror(errno));
    free(s.p);
}

/*----------------------------------------------------------------------
 *  Writing the Parquet file through the public API
 *--------------------------------------------------------------------*/

static inlay_type type_of(ctype t)
{
    switch (t) {
    case T_I32: return inlay_type_int(32, true);
    case T_I64: return inlay_type_int(64, true);
    case T_U32: return inlay_type_int(32, false);
    case T_U64: return inlay_type_int(64, false);
    case T_DBL: return inlay_type_double();
    case T_STR: return inlay_type_string();
    }
    return inlay_type_int(32, true);
}

/* Rows [a, a+n) of column k: dense values and definition levels. */
static int append_rows(inlay_writer *w, const column *c, int k, size_t a, size_t n)
{
    int16_t *def = c->nullable ? xcalloc(n, sizeof *def) : NULL;
    size_t m = 0;
    int st;
    for (size_t i = 0; i < n; i++)
        if (c->present[a + i]) {
            if (def)
                def[i] = 1;
            m++;
        }
    inlay_levels lv = {.def = def};
    const inlay_levels *levels = def ? &lv : NULL;
    const size_t cnt = def ? n : m;
    if (c->t == T_STR) {
        inlay_bytes *v = xcalloc(m, sizeof *v);
        for (size_t i = 0, j = 0; i < n; i++)
            if (c->present[a + i])
                v[j++] = c->sv[a + i];
        st = inlay_writer_append_bytes(w, k, v, cnt, levels);
        free(v);
    } else if (c->t == T_DBL) {
        double *v = xcalloc(m, sizeof *v);
        for (size_t i = 0, j = 0; i < n; i++)
            if (c->present[a + i])
                v[j++] = c->dv[a + i];
        st = inlay_writer_append_double(w, k, v, cnt, levels);
        free(v);
    } else if (c->t == T_I32 || c->t == T_U32) {
        int32_t *v = xcalloc(m, sizeof *v);
        for (size_t i = 0, j = 0; i < n; i++)
            if (c->present[a + i])
                v[j++] = (int32_t)(uint32_t)(uint64_t)c->iv[a + i];
        st = inlay_writer_append_i32(w, k, v, cnt, levels);
        free(v);
    } else {
        int64_t *v = xcalloc(m, sizeof *v);
        for (size_t i = 0, j = 0; i < n; i++)
            if (c->present[a + i])
                v[j++] = c->iv[a + i];
        st = inlay_writer_append_i64(w, k, v, cnt, levels);
        free(v);
    }
    free(def);
    return st;
}

static bool fail(fspec *f, inlay_writer *w, const char *what, int st)
{
    fprintf(stderr, "FAIL %s: %s: %s (%s)\n", f->name, what, w ? inlay_writer_errmsg(w) : "",
            inlay_strerror(st));
    g_failed++;
    return false;
}

static bool write_parquet(fspec *f, rng *r)
{
    inlay_schema *s = inlay_schema_create(NULL);
    if (!s)
        die("inlay_schema_create failed");
    for (int k = 0; k < f->ncols; k++) {
        const column *c = &f->cols[k];
        inlay_column_options co;
        inlay_column_options_init(&co);
        co.encoding = c->enc;
        co.statistics = c->stats;
        co.bloom_filter = c->bloom;
        co.bloom_ndv = c->bloom_ndv;
        co.bloom_fpp = c->bloom_fpp;
        if (inlay_schema_add(s, 0, c->name, c->nullable ? INLAY_OPTIONAL : INLAY_REQUIRED, type_of(c->t), &co) <= 0)
            die("%s: inlay_schema_add(%s): %s", f->name, c->name, inlay_schema_errmsg(s));
    }
    inlay_options o;
    inlay_options_init(&o);
    o.threads = fixture_threads();
    o.compression = f->codec;
    o.page_version = f->page_version;
    o.page_rows = f->page_rows;
    o.row_group_rows = f->rg_rows;
    o.statistics = f->statistics;
    o.page_index = f->page_index;
    o.page_checksum = f->page_checksum;
    o.statistics_truncate_length = f->truncate;
    o.sorting_columns = f->sorting;
    o.sorting_columns_count = f->nsorting;
    o.sync = false;

    char path[1024];
    snprintf(path, sizeof path, "%s/%s.parquet", g_outdir, f->name);
    inlay_writer *w = NULL;
    int st = inlay_writer_open_file(&w, path, s, &o);
    inlay_schema_free(s);
    if (st != INLAY_OK) {
        fail(f, w, "inlay_writer_open_file", st);
        inlay_writer_free(w);
        return false;
    }
    /* uneven batches, round robin over the columns, so pages and row
     * groups end inside batches */
    size_t *next = xcalloc((size_t)f->ncols, sizeof *next);
    bool ok = true;
    for (bool more = true; more && ok;) {
        more = false;
        for (int k = 0; k < f->ncols && ok; k++) {
            size_t a = next[k];
            if (a >= f->rows)
                continue;
            size_t n = 1 + rnd(r) % 1500;
            if (n > f->rows - a)
                n = f->rows - a;
            st = append_rows(w, &f->cols[k], k, a, n);
            if (st != INLAY_OK) {
                char what[128];
                snprintf(what, sizeof what, "append to %s, rows %zu..%zu", f->cols[k].name, a, a + n);
                ok = fail(f, w, what, st);
            }
            next[k] = a + n;
            more = true;
        }
    }
    free(next);
    if (ok && (st = inlay_writer_close(w)) != INLAY_OK)
        ok = fail(f, w, "inlay_writer_close", st);
    if (ok) {
        f->w_rows = inlay_writer_rows(w);
        f->w_row_groups = inlay_writer_row_groups(w);
        f->w_bytes = inlay_writer_bytes(w);
        for (int k = 0; k < f->ncols; k++)
            if ((st = inlay_writer_column_stats(w, k, &f->cols[k].written)) != INLAY_OK)
                ok = fail(f, w, "inlay_writer_column_stats", st);
    }
    inlay_writer_free(w);
    return ok;
}

/*----------------------------------------------------------------------
 *  The data
 *--------------------------------------------------------------------*/

static void random_letters(rng *r, char *out, size_t n, char lo, char hi)
{
    for (size_t i = 0; i < n; i++)
        out[i] = (char)(lo + (int)(rnd(r) % (uint64_t)(hi - lo + 1)));
}

/* A 5,001-byte string: `head`, then letters (a..y), with `mid` (if any)
 * placed at byte 63, straddling the 64-byte cut. */
static void long_value(column *c, size_t row, rng *r, const char *head, const char *mid)
{
    enum { N = 5001 };
    char *buf = xcalloc(N + 1, 1);
    random_letters(r, buf, N, 'a', 'y');
    memcpy(buf, head, strlen(head));
    if (mid)
        memcpy(buf + 63, mid, strlen(mid));
    set_str(c, row, buf, N);
    free(buf);
}

/*
 * The statistics file: 10,500 rows in row groups of 3,000 (the last 1,500),
 * pages of 1,000 rows.
 *   id      int64, ascending (2i+1): the declared sort order
 *   i32     int32, random, INT32_MIN and INT32_MAX in the first row group
 *   u32     uint32, random over the whole range: signed order would differ
 *   u64     uint64, the same
 *   i64opt  int64 optional: a quarter null, rows 4,000..4,999 (a whole page) null
 *   dbl     double: NaNs; row group 1 at most zero (+0.0 in page 0, -0.0 in
 *           page 1: the maximum is +0.0 both times), row group 2 at least
 *           zero (-0.0 in page 0, +0.0 in page 1: the minimum is -0.0), an
 *           infinity in row group 0
 *   str     string optional, dictionary: UTF-8 above 0x7F, an empty string
 *   long    string, plain: short words and three 5,001-byte values (the
 *           maximum of row group 0, the minimum of row group 1, the maximum
 *           of row group 2 with a 3-byte character across byte 64)
 *   allnull string optional, every row null
 *   nostat  int32 with inlay_column_options.statistics = false
 *   down    int32, descending
 */
static void gen_stats(fspec *f, rng *r)
{
    f->rows = 10500;
    f->rg_rows = 3000;
    f->page_rows = 1000;
    column *id = add_col(f, "id", T_I64, false);
    column *i32 = add_col(f, "i32", T_I32, false);
    column *u32 = add_col(f, "u32", T_U32, false);
    column *u64 = add_col(f, "u64", T_U64, false);
    column *opt = add_col(f, "i64opt", T_I64, true);
    column *dbl = add_col(f, "dbl", T_DBL, false);
    column *str = add_col(f, "str", T_STR, true);
    column *lng = add_col(f, "long", T_STR, false);
    add_col(f, "allnull", T_STR, true); /* every row null */
    column *nst = add_col(f, "nostat", T_I32, false);
    column *down = add_col(f, "down", T_I32, false);
    str->enc = INLAY_ENCODING_DICTIONARY;
    lng->enc = INLAY_ENCODING_PLAIN;
    nst->stats = false;
    static const char *const words[] = {"", "apple", "Z\xc3\xbcrich", "\xc3\xa9", "\xc3\xbf", "\xe6\x97\xa5\xe6\x9c\xac",
                                        "zebra", "\xce\xa9mega", "\xc3\xa4", "z\xc3\xbf", "\xf0\x9f\x98\x80 smile"};
    const size_t nwords = sizeof words / sizeof *words;
    for (size_t i = 0; i < f->rows; i++) {
        size_t g = i / 3000, pg = (i % 3000) / 1000, pr = i % 1000;
        id->iv[i] = (int64_t)(2 * i + 1);
        id->present[i] = true;
        i32->iv[i] = (int32_t)(uint32_t)rnd(r);
        if (i == 5)
            i32->iv[i] = INT32_MIN;
        if (i == 1500)
            i32->iv[i] = INT32_MAX;
        i32->present[i] = true;
        u32->iv[i] = (int64_t)(uint32_t)rnd(r);
        u32->present[i] = true;
        u64->iv[i] = (int64_t)rnd(r);
        u64->present[i] = true;
        opt->present[i] = rnd(r) % 4 != 0 && !(i >= 4000 && i < 5000);
        opt->iv[i] = opt->present[i] ? (int64_t)rnd(r) : 0;
        double d;
        if (g == 1)
            d = pr == 500 && pg == 0 ? 0.0 : pr == 500 && pg == 1 ? -0.0 : -uniform(r, 0.5, 100);
        else if (g == 2)
            d = pr == 300 && pg == 0 ? -0.0 : pr == 300 && pg == 1 ? 0.0 : uniform(r, 0.5, 100);
        else
            d = i == 2500 ? INFINITY : uniform(r, -1e6, 1e6);
        if (i % 37 == 0)
            d = NAN;
        dbl->dv[i] = d;
        dbl->present[i] = true;
        if (rnd(r) % 5 != 0) {
            size_t w = (size_t)(rnd(r) % nwords);
            if (g == 1 && w == 0)
                w = 1; /* no empty string in row group 1: its minimum is "Zürich" */
            set_str(str, i, words[w], strlen(words[w]));
        }
        char word[24];
        size_t wl = 1 + (size_t)(rnd(r) % 20);
        random_letters(r, word, wl, 'b', 'y');
        set_str(lng, i, word, wl);
        nst->iv[i] = (int32_t)(rnd(r) % 100000);
        nst->present[i] = true;
        down->iv[i] = 2000000 - 3 * (int64_t)i;
        down->present[i] = true;
    }
    free((void *)lng->sv[1234].data);
    long_value(lng, 1234, r, "zz", NULL);
    free((void *)lng->sv[3000 + 2222].data);
    long_value(lng, 3000 + 2222, r, "a", NULL);
    free((void *)lng->sv[6000 + 10].data);
    long_value(lng, 6000 + 10, r, "zz", "\xe6\x97\xa5");
    f->sorting[0] = (inlay_sorting_column){"id", false, false};
    f->nsorting = 1;
}

/*
 * The bloom file: 40,000 rows in two row groups, pages of 5,000.
 *   k   int64, distinct odd numbers, a bloom filter sized by default
 *   s   string optional, dictionary, a tenth null; row group 0 holds keys
 *       0..1999, row group 1 keys 1000..2999: a bloom filter sized by the
 *       chunk's distinct values
 *   nb  int64 (k's values), no bloom filter
 *   k2  int64, 1,000 distinct values, bloom_ndv 1000, bloom_fpp 0.05
 */
static void gen_bloom(fspec *f, rng *r)
{
    f->rows = 40000;
    f->rg_rows = 20000;
    f->page_rows = 5000;
    column *k = add_col(f, "k", T_I64, false);
    column *s = add_col(f, "s", T_STR, true);
    column *nb = add_col(f, "nb", T_I64, false);
    column *k2 = add_col(f, "k2", T_I64, false);
    k->bloom = s->bloom = k2->bloom = true;
    s->enc = INLAY_ENCODING_DICTIONARY;
    k2->bloom_ndv = 1000;
    k2->bloom_fpp = 0.05;
    for (size_t i = 0; i < f->rows; i++) {
        k->iv[i] = (int64_t)(rnd(r) | 1);
        k->present[i] = true;
        nb->iv[i] = k->iv[i];
        nb->present[i] = true;
        k2->iv[i] = 1000 + 7 * (int64_t)(rnd(r) % 1000);
        k2->present[i] = true;
        if (rnd(r) % 10 != 0) {
            char key[32];
            unsigned n = (unsigned)(rnd(r) % 2000) + (i < 20000 ? 0 : 1000);
            int len = snprintf(key, sizeof key, "key-%05u-\xc3\xa9", n);
            set_str(s, i, key, (size_t)len);
        }
    }
    /* values no row holds: even numbers; keys past 2999 and other words;
     * multiples of 7 plus 1 */
    enum { NABS = 3000 };
    column *with[] = {k, s, nb, k2};
    for (int c = 0; c < 4; c++) {
        with[c]->absent = xcalloc(NABS, sizeof(char *));
        with[c]->nabsent = NABS;
        for (size_t i = 0; i < NABS; i++) {
            char buf[48];
            if (with[c] == s)
                snprintf(buf, sizeof buf, i % 2 ? "key-%05zu-\xc3\xa9" : "absent %zu", 3000 + i);
            else if (with[c] == k2)
                snprintf(buf, sizeof buf, "%lld", (long long)(1001 + 7 * (int64_t)i));
            else
                snprintf(buf, sizeof buf, "%lld", (long long)(rnd(r) & ~(uint64_t)1));
            with[c]->absent[i] = xcalloc(strlen(buf) + 1, 1);
            memcpy(with[c]->absent[i], buf, strlen(buf));
        }
    }
}

/*
 * The row-group skipping file: 100,000 rows in 10 row groups, sorted by id
 * (declared in sorting_columns).
 *   id  int64, 10i + 3
 *   p   int32, a permutation-like payload
 *   s   string, "row-NNNNNN"
 */
static void gen_sorted(fspec *f, rng *r)
{
    (void)r;
    f->rows = 100000;
    f->rg_rows = 10000;
    f->page_rows = 2500;
    column *id = add_col(f, "id", T_I64, false);
    column *p = add_col(f, "p", T_I32, false);
    column *s = add_col(f, "s", T_STR, false);
    for (size_t i = 0; i < f->rows; i++) {
        id->iv[i] = 10 * (int64_t)i + 3;
        id->present[i] = true;
        p->iv[i] = (int64_t)((i * 7919) % 100003);
        p->present[i] = true;
        char buf[24];
        int n = snprintf(buf, sizeof buf, "row-%06zu", i);
        set_str(s, i, buf, (size_t)n);
    }
    f->sorting[0] = (inlay_sorting_column){"id", false, false};
    f->nsorting = 1;
}

/*----------------------------------------------------------------------
 *  The files
 *--------------------------------------------------------------------*/

typedef void (*generator)(fspec *, rng *);

static void one_file(const char *name, const char *kind, generator gen, int page_version, inlay_compression codec,
                     bool statistics, bool page_index, bool page_checksum)
{
    if (!inlay_compression_supported(codec)) {
        fprintf(stderr, "interop_skip_fixtures: %s skipped: this build lacks %s\n", name, codec_name(codec));
        return;
    }
    fspec f = {
        .name = name, .kind = kind, .page_version = page_version, .codec = codec,
        .truncate = INLAY_DEFAULT_TRUNCATE_LENGTH, .statistics = statistics, .page_index = page_index,
        .page_checksum = page_checksum,
    };
    rng r = rng_for(name);
    gen(&f, &r);
    if (write_parquet(&f, &r))
        write_json(&f);
    free_file(&f);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: interop_skip_fixtures OUTDIR\n");
        return 2;
    }
    g_outdir = argv[1];
    if (mkdir(g_outdir, 0777) != 0 && errno != EEXIST)
        die("mkdir %s: %s", g_outdir, strerror(errno));

    /* statistics and the page index: data page v1 and v2, with and without
     * compression */
    one_file("stats__v1__none", "stats", gen_stats, 1, INLAY_UNCOMPRESSED, true, true, false);
    one_file("stats__v1__zstd", "stats", gen_stats, 1, INLAY_ZSTD, true, true, false);
    one_file("stats__v2__none", "stats", gen_stats, 2, INLAY_UNCOMPRESSED, true, true, false);
    one_file("stats__v2__zstd", "stats", gen_stats, 2, INLAY_ZSTD, true, true, false);
    one_file("stats__v1__snappy", "stats", gen_stats, 1, INLAY_SNAPPY, true, true, false);
    /* the switches: no statistics at all; no page index */
    one_file("nostats__v1__zstd", "stats", gen_stats, 1, INLAY_ZSTD, false, true, false);
    one_file("noindex__v2__zstd", "stats", gen_stats, 2, INLAY_ZSTD, true, false, false);
    /* page CRCs */
    one_file("crc__v1__none", "stats", gen_stats, 1, INLAY_UNCOMPRESSED, true, true, true);
    one_file("crc__v1__zstd", "stats", gen_stats, 1, INLAY_ZSTD, true, true, true);
    one_file("crc__v2__zstd", "stats", gen_stats, 2, INLAY_ZSTD, true, true, true);
    one_file("crc__v2__gzip", "stats", gen_stats, 2, INLAY_GZIP, true, true, true);
    /* bloom filters */
    one_file("bloom__v1__zstd", "bloom", gen_bloom, 1, INLAY_ZSTD, true, true, false);
    one_file("bloom__v2__none", "bloom", gen_bloom, 2, INLAY_UNCOMPRESSED, true, true, true);
    /* row-group skipping: the same rows with and without statistics */
    one_file("sorted", "sorted", gen_sorted, 1, INLAY_ZSTD, true, true, false);
    one_file("sorted__nostats", "sorted", gen_sorted, 1, INLAY_ZSTD, false, false, false);
    return g_failed ? 1 : 0;
}
