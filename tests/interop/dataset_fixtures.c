/*
 * interop_dataset MODE DIR [ARGS]
 *
 * Writes partitioned datasets through the public inlay_dataset_* API for
 * dataset_check.mjs, which reads them back with DuckDB (hive_partitioning),
 * arrow-rs and hyparquet. Beside a dataset, most modes write the same rows
 * as one plain file, DIR/expected.parquet (inlay_writer_open_file), which
 * the checker compares with the dataset (EXCEPT ALL both ways), and
 * DIR/info.json with what the checker needs to know of the run.
 *
 *   basic DIR        DIR/ds by (day DATE, platform STRING), rows in random
 *                    partition order over appends of random sizes;
 *                    max_buffered_bytes 64 KiB; the 4th append is first
 *                    tried with a bad value, and must be refused whole
 *   types DIR        DIR/ds by (b BOOLEAN, n INT32, u UINT64) at their
 *                    extremes
 *   nested DIR       DIR/ds by p STRING with a list<string> (null and
 *                    empty lists, null elements) and a struct column,
 *                    max_file_rows = 700; DIR/ds_arrow the same rows
 *                    given as Arrow record batches
 *                    (inlay_dataset_append_arrow)
 *   weird DIR        DIR/drop (keep_partition_columns = false) and DIR/keep
 *                    (true) by k STRING holding values that are hard to put
 *                    in a folder name: / = % : spaces, UTF-8, "", null, "..",
 *                    ".", "null", "__HIVE_DEFAULT_PARTITION__", 300 bytes
 *   rows DIR N       DIR/ds with max_file_rows = N, and DIR/flat the same
 *                    without partition columns
 *   bytes DIR B      DIR/ds with max_file_bytes = B; info.json: step_bytes,
 *                    page_rows times the widest row's plain bytes (the most
 *                    a file passes B by)
 *   open DIR         DIR/ds by day over 50 days, max_open_files = 2
 *   shard DIR SHARD SEED ROWS EXISTING EXPECTED
 *                    a dataset at DIR itself with shard SHARD ("-": none
 *                    given, so $INLAY_SHARD), EXISTING error | replace |
 *                    append; the rows (ids from SEED * 1,000,000) also to
 *                    EXPECTED ("-": not written). A failed open prints
 *                    "open status N" and exits 3.
 *   slow DIR         a dataset at DIR written slowly (small appends, a
 *                    pause between them, max_file_rows = 200) for a long
 *                    time, to be killed while it writes
 *
 * Deterministic: a PRNG seeded by the mode (and SEED). Exit status: 0; 1
 * when a libinlay call failed (named on stderr); 2 on a usage error; 3 as
 * above.
 */
#define _POSIX_C_SOURCE 200809L
#include <inlay.h>

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/*----------------------------------------------------------------------
 *  Utilities
 *--------------------------------------------------------------------*/

static void die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("interop_dataset: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(code);
}

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p)
        die(2, "out of memory");
    return p;
}

/* splitmix64 */
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

static size_t below(rng *r, size_t n)
{
    return (size_t)(rnd(r) % n);
}

static void path_join(char *out, size_t cap, const char *dir, const char *name)
{
    if ((size_t)snprintf(out, cap, "%s/%s", dir, name) >= cap)
        die(2, "path too long: %s/%s", dir, name);
}

static void make_dir(const char *dir)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        die(2, "mkdir %s: %s", dir, strerror(errno));
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/*----------------------------------------------------------------------
 *  Tables: the rows of a run, column by column, with a null flag per row
 *--------------------------------------------------------------------*/

enum kind { K_I64, K_F64, K_STR, K_DATE, K_BOOL, K_I32, K_U64 };

typedef struct col {
    const char *name;
    enum kind kind;
    bool nullable;
    int64_t *i;      /* K_I64, K_DATE (days), K_BOOL (0/1), K_I32, K_U64 (the bits) */
    double *f;       /* K_F64 */
    inlay_bytes *s;  /* K_STR (points at static or heap text the table keeps) */
    bool *null;
} col;

typedef struct table {
    int ncols;
    col c[8];
    size_t rows;
} table;

static col *add_col(table *t, const char *name, enum kind kind, bool nullable, size_t rows)
{
    col *c = &t->c[t->ncols++];
    c->name = name;
    c->kind = kind;
    c->nullable = nullable;
    c->i = xcalloc(rows, sizeof *c->i);
    c->f = xcalloc(rows, sizeof *c->f);
    c->s = xcalloc(rows, sizeof *c->s);
    c->null = xcalloc(rows, sizeof *c->null);
    t->rows = rows;
    return c;
}

static void table_free(table *t)
{
    for (int k = 0; k < t->ncols; k++) {
        free(t->c[k].i);
        free(t->c[k].f);
        free(t->c[k].s);
        free(t->c[k].null);
    }
    t->ncols = 0;
}

static inlay_schema *table_schema(const table *t)
{
    inlay_schema *s = inlay_schema_create(NULL);
    if (!s)
        die(2, "inlay_schema_create failed");
    for (int k = 0; k < t->ncols; k++) {
        const col *c = &t->c[k];
        inlay_type ty = c->kind == K_I64    ? inlay_type_int(64, true)
                      : c->kind == K_F64  ? inlay_type_double()
                      : c->kind == K_STR  ? inlay_type_string()
                      : c->kind == K_DATE ? inlay_type_date()
                      : c->kind == K_BOOL ? inlay_type_boolean()
                      : c->kind == K_I32  ? inlay_type_int(32, true)
                                          : inlay_type_int(64, false);
        if (inlay_schema_add(s, 0, c->name, c->nullable ? INLAY_OPTIONAL : INLAY_REQUIRED, ty, NULL) < 0)
            die(1, "inlay_schema_add(%s): %s", c->name, inlay_schema_errmsg(s));
    }
    return s;
}

/* Column batches for rows [lo, hi), values dense with definition levels;
 * the scratch arrays are freed by batches_free. column[k] is the leaf index
 * of table column k in the dataset or writer. */
typedef struct batches {
    inlay_column_batch b[8];
    void *vals[8];
    int16_t *def[8];
} batches;

static void batches_make(batches *bs, const table *t, const int *column, size_t lo, size_t hi)
{
    size_t n = hi - lo;
    for (int k = 0; k < t->ncols; k++) {
        const col *c = &t->c[k];
        size_t vsize = c->kind == K_I64 || c->kind == K_U64 ? sizeof(int64_t)
                     : c->kind == K_F64                     ? sizeof(double)
                     : c->kind == K_STR                     ? sizeof(inlay_bytes)
                     : c->kind == K_BOOL                    ? sizeof(bool)
                                                            : sizeof(int32_t);
        unsigned char *v = xcalloc(n, vsize);
        int16_t *def = xcalloc(n, sizeof *def);
        size_t m = 0;
        for (size_t r = lo; r < hi; r++) {
            def[r - lo] = c->null[r] ? 0 : 1;
            if (c->null[r])
                continue;
            switch (c->kind) {
            case K_I64:
            case K_U64: ((int64_t *)v)[m] = c->i[r]; break;
            case K_BOOL: ((bool *)v)[m] = c->i[r] != 0; break;
            case K_F64: ((double *)v)[m] = c->f[r]; break;
            case K_STR: ((inlay_bytes *)v)[m] = c->s[r]; break;
            case K_DATE:
            case K_I32: ((int32_t *)v)[m] = (int32_t)c->i[r]; break;
            }
            m++;
        }
        bs->vals[k] = v;
        bs->def[k] = def;
        bs->b[k] = (inlay_column_batch){.column = column[k], .values = v, .count = n,
                                        .levels = {.def = c->nullable ? def : NULL}};
    }
}

static void batches_free(batches *bs, const table *t)
{
    for (int k = 0; k < t->ncols; k++) {
        free(bs->vals[k]);
        free(bs->def[k]);
    }
}

/* The whole table as one plain file: what the dataset must read back as. */
static void write_expected(const table *t, const char *path)
{
    inlay_schema *s = table_schema(t);
    inlay_options o;
    inlay_options_init(&o);
    o.sync = false;
    inlay_writer *w = NULL;
    int st = inlay_writer_open_file(&w, path, s, &o);
    if (st != INLAY_OK)
        die(1, "inlay_writer_open_file(%s): %s", path, w ? inlay_writer_errmsg(w) : inlay_strerror(st));
    int column[8];
    for (int k = 0; k < t->ncols; k++)
        column[k] = inlay_writer_column(w, t->c[k].name);
    batches bs;
    batches_make(&bs, t, column, 0, t->rows);
    st = inlay_writer_append_columns(w, bs.b, t->ncols);
    batches_free(&bs, t);
    if (st == INLAY_OK)
        st = inlay_writer_close(w);
    if (st != INLAY_OK)
        die(1, "writing %s: %s", path, inlay_writer_errmsg(w));
    inlay_writer_free(w);
    inlay_schema_free(s);
}

/* A value's PLAIN size (BOOLEAN counted as a byte). */
static size_t value_size(const col *c, size_t r)
{
    switch (c->kind) {
    case K_STR: return 4 + c->s[r].len;
    case K_DATE:
    case K_I32: return 4;
    case K_BOOL: return 1;
    default: return 8;
    }
}

/* The plain bytes of rows [lo, hi): each value's PLAIN size plus a
 * definition level byte per row of an optional column. */
static size_t plain_bytes(const table *t, size_t lo, size_t hi)
{
    size_t n = 0;
    for (int k = 0; k < t->ncols; k++) {
        const col *c = &t->c[k];
        for (size_t r = lo; r < hi; r++) {
            n += c->nullable ? 1 : 0;
            if (c->null[r])
                continue;
            n += value_size(c, r);
        }
    }
    return n;
}

/*----------------------------------------------------------------------
 *  Datasets
 *--------------------------------------------------------------------*/

typedef struct run {
    const char *root;
    const char *const *by;
    size_t by_count;
    inlay_dataset_options o;
    size_t min_append, max_append;  /* rows per append call, drawn in this range */
    long pause_ms;                  /* between appends (shard, slow) */
    int repeat;                     /* the table appended this many times (0: once) */
    int bad_append;                 /* > 0: append call number bad_append is first tried with
                                       invalid UTF-8 in column "name", and must be refused whole */
} run;

static void run_init(run *r, const char *root)
{
    memset(r, 0, sizeof *r);
    r->root = root;
    inlay_dataset_options_init(&r->o);
    r->o.file.sync = false;         /* many small files; durability is not what is tested */
    r->min_append = 1;
    r->max_append = 3000;
}

/* Appends rows [lo, hi) with the last row's "name" made invalid UTF-8:
 * the call must fail with INLAY_ERR_VALUE naming the column and the row
 * counted over the dataset (done + hi - lo - 1), and append nothing (the
 * checker finds every row exactly once after the same rows are appended
 * again). */
static void refused_append(inlay_dataset *d, const table *t, const int *column, size_t lo, size_t hi,
                           size_t done)
{
    int k = 0;
    while (k < t->ncols && strcmp(t->c[k].name, "name"))
        k++;
    const col *c = &t->c[k];   /* its arrays are the table's to patch */
    size_t at = hi - 1;
    inlay_bytes keep = c->s[at];
    bool was_null = c->null[at];
    c->s[at] = (inlay_bytes){"bad \xff", 5};
    c->null[at] = false;
    batches bs;
    batches_make(&bs, t, column, lo, hi);
    int st = inlay_dataset_append_columns(d, bs.b, t->ncols);
    batches_free(&bs, t);
    c->s[at] = keep;
    c->null[at] = was_null;
    inlay_error_info info;
    inlay_dataset_error_info(d, &info);
    uint64_t row = done + (hi - lo) - 1;
    char want[64];
    snprintf(want, sizeof want, "row %llu", (unsigned long long)row);
    if (st != INLAY_ERR_VALUE || info.column != column[k] || info.row != (int64_t)row ||
        !strstr(inlay_dataset_errmsg(d), want) || !strstr(inlay_dataset_errmsg(d), "'name'"))
        die(1, "append with invalid UTF-8 in 'name' at dataset row %llu: status %d, column %d row %lld, \"%s\"",
            (unsigned long long)row, st, info.column, (long long)info.row, inlay_dataset_errmsg(d));
}

/* Opens r->root, appends the table's rows in calls of random sizes, closes.
 * Returns the open status when open fails (for the existing = error run). */
static int write_dataset(run *r, const table *t, rng *g)
{
    inlay_schema *s = table_schema(t);
    r->o.partition_by = r->by;
    r->o.partition_by_count = r->by_count;
    inlay_dataset *d = NULL;
    int st = inlay_dataset_open(&d, r->root, s, &r->o);
    inlay_schema_free(s);
    if (st != INLAY_OK) {
        fprintf(stderr, "interop_dataset: inlay_dataset_open(%s): %s\n", r->root,
                d ? inlay_dataset_errmsg(d) : inlay_strerror(st));
        inlay_dataset_free(d);
        return st;
    }
    int column[8];
    for (int k = 0; k < t->ncols; k++)
        if ((column[k] = inlay_dataset_column(d, t->c[k].name)) < 0)
            die(1, "inlay_dataset_column(%s) = %d", t->c[k].name, column[k]);
    int passes = r->repeat ? r->repeat : 1;
    int calls = 0;
    for (size_t row = 0; row < t->rows * (size_t)passes;) {
        size_t lo = row % t->rows;   /* a pass ends where the table does */
        size_t n = r->min_append + below(g, r->max_append - r->min_append + 1);
        size_t hi = lo + n < t->rows ? lo + n : t->rows;
        if (++calls == r->bad_append)
            refused_append(d, t, column, lo, hi, row);
        batches bs;
        batches_make(&bs, t, column, lo, hi);
        st = inlay_dataset_append_columns(d, bs.b, t->ncols);
        batches_free(&bs, t);
        if (st != INLAY_OK)
            die(1, "inlay_dataset_append_columns(%s, rows %zu..%zu): %s", r->root, lo, hi,
                inlay_dataset_errmsg(d));
        row += hi - lo;
        if (r->pause_ms)
            sleep_ms(r->pause_ms);
    }
    inlay_dataset_stats ds;
    inlay_dataset_get_stats(d, &ds);
    if (ds.rows != t->rows * (size_t)passes)
        die(1, "%s: stats say %llu rows appended, %zu were", r->root, (unsigned long long)ds.rows, t->rows);
    if ((st = inlay_dataset_close(d)) != INLAY_OK)
        die(1, "inlay_dataset_close(%s): %s", r->root, inlay_dataset_errmsg(d));
    inlay_dataset_free(d);
    return INLAY_OK;
}

/* The table most modes use: id, value, name (with nulls), day, platform.
 * Rows are drawn independently, so consecutive rows fall in partitions in
 * random order. */
static const char *const PLATFORMS[] = {"pc", "ios", "android", "web"};
#define DAY0 19875 /* 2024-06-01 */

static table events(rng *g, size_t rows, int64_t id0, int ndays, bool null_parts)
{
    static const char *const NAMES[] = {"alpha", "beta", "gamma", "delta", "épsilon", "日本"};
    table t = {0};
    col *id = add_col(&t, "id", K_I64, false, rows);
    col *value = add_col(&t, "value", K_F64, true, rows);
    col *name = add_col(&t, "name", K_STR, true, rows);
    col *day = add_col(&t, "day", K_DATE, true, rows);
    col *platform = add_col(&t, "platform", K_STR, true, rows);
    for (size_t r = 0; r < rows; r++) {
        id->i[r] = id0 + (int64_t)r;
        value->f[r] = (double)(int64_t)(rnd(g) >> 20) / 4096.0 - 1e9;
        value->null[r] = below(g, 17) == 0;
        const char *nm = NAMES[below(g, 6)];
        name->s[r] = (inlay_bytes){nm, strlen(nm)};
        name->null[r] = below(g, 5) == 0;
        day->i[r] = DAY0 + (int64_t)below(g, (size_t)ndays);
        day->null[r] = null_parts && below(g, 23) == 0;
        const char *p = PLATFORMS[below(g, 4)];
        platform->s[r] = (inlay_bytes){p, strlen(p)};
        platform->null[r] = null_parts && below(g, 19) == 0;
    }
    return t;
}

static void write_info(const char *dir, const char *fmt, ...)
{
    char path[4096];
    path_join(path, sizeof path, dir, "info.json");
    FILE *f = fopen(path, "w");
    if (!f)
        die(2, "writing %s: %s", path, strerror(errno));
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fclose(f);
}

/*----------------------------------------------------------------------
 *  Modes
 *--------------------------------------------------------------------*/

static const char *const DAY_PLATFORM[] = {"day", "platform"};
static const char *const DAY_ONLY[] = {"day"};
static const char *const PLATFORM_ONLY[] = {"platform"};
static const char *const K_ONLY[] = {"k"};

static void mode_basic(const char *dir)
{
    rng g = {1};
    table t = events(&g, 20000, 0, 5, true);
    char root[4096], exp[4096];
    path_join(root, sizeof root, dir, "ds");
    path_join(exp, sizeof exp, dir, "expected.parquet");
    run r;
    run_init(&r, root);
    r.by = DAY_PLATFORM;
    r.by_count = 2;
    /* 30 open files buffer more than this: the largest end row groups early */
    r.o.max_buffered_bytes = 64 * 1024;
    r.bad_append = 4;
    write_dataset(&r, &t, &g);
    write_expected(&t, exp);
    write_info(dir, "{\"rows\": %zu}\n", t.rows);
    table_free(&t);
}

/* Values a folder name must carry without being read as a path, an escape,
 * or a null. Long ones, 300 bytes, too long for a folder name: the text
 * below behind 0..11 'x's, so that the name is cut at every position of
 * its 12-byte unit (inside a UTF-8 character, inside a %XX escape), and
 * one more that differs from the first only in its last byte (their
 * shortened names must still differ). */
#define NLONG 13

static void mode_weird(const char *dir)
{
    static char longs[NLONG][301];
    const char *unit = "seg/\xc3\xa9\xe6\x97\xa5=% ";   /* 12 bytes: seg/ é 日 = % space */
    for (int v = 0; v < NLONG; v++) {
        int shift = v < 12 ? v : 0;
        memset(longs[v], 'x', (size_t)shift);
        for (int at = shift; at < 300; at++)
            longs[v][at] = unit[(at - shift) % 12];
        /* a cut UTF-8 character at the very end would make the value invalid text */
        for (int at = 299; (unsigned char)longs[v][at] >= 0x80; at--)
            longs[v][at] = 'y';
    }
    longs[NLONG - 1][299] = '!';
    static const char *const fixed[] = {
        "/", "=", "%", "a b", " lead", "trail ", ":", "\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac", "",
        NULL, "..", ".", "null", "NULL", "Null", "__HIVE_DEFAULT_PARTITION__",
        "__hive_default_partition__", "%2F", "%41", "a+b", "../x", "a/../../escape", "#?*'\"\\{[]^",
        "\t\x01\x7f", "k=v", "~tilde", "plain",
    };
    const char *vals[sizeof fixed / sizeof fixed[0] + NLONG];
    size_t nv = 0;
    for (size_t v = 0; v < sizeof fixed / sizeof fixed[0]; v++)
        vals[nv++] = fixed[v];
    for (int v = 0; v < NLONG; v++)
        vals[nv++] = longs[v];
    size_t per = 3;
    rng g = {2};
    table t = {0};
    col *k = add_col(&t, "k", K_STR, true, nv * per);
    col *id = add_col(&t, "id", K_I64, false, nv * per);
    /* rows in random order: a shuffled list of value indexes */
    size_t *order = xcalloc(nv * per, sizeof *order);
    for (size_t i = 0; i < nv * per; i++)
        order[i] = i % nv;
    for (size_t i = nv * per - 1; i > 0; i--) {
        size_t j = below(&g, i + 1), x = order[i];
        order[i] = order[j];
        order[j] = x;
    }
    for (size_t r = 0; r < nv * per; r++) {
        const char *v = vals[order[r]];
        id->i[r] = (int64_t)r;
        k->null[r] = v == NULL;
        k->s[r] = (inlay_bytes){v, v ? strlen(v) : 0};
    }
    free(order);
    for (int keep = 0; keep <= 1; keep++) {
        char root[4096];
        path_join(root, sizeof root, dir, keep ? "keep" : "drop");
        run r;
        run_init(&r, root);
        r.by = K_ONLY;
        r.by_count = 1;
        r.o.keep_partition_columns = keep;
        r.max_append = 25;
        write_dataset(&r, &t, &g);
    }
    char exp[4096];
    path_join(exp, sizeof exp, dir, "expected.parquet");
    write_expected(&t, exp);
    write_info(dir, "{\"rows\": %zu}\n", t.rows);
    table_free(&t);
}

/* Partition columns of the other kinds with a folder form, at their
 * extremes: BOOLEAN, INT32 and UINT64 (above INT64's range too). */
static void mode_types(const char *dir)
{
    static const int64_t ns[] = {INT32_MIN, -1, 0, 7, INT32_MAX};
    static const uint64_t us[] = {0, 1, (uint64_t)INT64_MAX, (uint64_t)INT64_MAX + 1, UINT64_MAX};
    static const char *const by[] = {"b", "n", "u"};
    rng g = {7};
    size_t rows = 3000;
    table t = {0};
    col *b = add_col(&t, "b", K_BOOL, true, rows);
    col *n = add_col(&t, "n", K_I32, true, rows);
    col *u = add_col(&t, "u", K_U64, false, rows);
    col *id = add_col(&t, "id", K_I64, false, rows);
    for (size_t r = 0; r < rows; r++) {
        b->i[r] = (int64_t)below(&g, 2);
        b->null[r] = below(&g, 3) == 0;
        n->i[r] = ns[below(&g, 5)];
        n->null[r] = below(&g, 6) == 0;
        u->i[r] = (int64_t)us[below(&g, 5)];
        id->i[r] = (int64_t)r;
    }
    char root[4096], exp[4096];
    path_join(root, sizeof root, dir, "ds");
    path_join(exp, sizeof exp, dir, "expected.parquet");
    run r;
    run_init(&r, root);
    r.by = by;
    r.by_count = 3;
    r.max_append = 700;
    write_dataset(&r, &t, &g);
    write_expected(&t, exp);
    write_info(dir, "{\"rows\": %zu}\n", t.rows);
    table_free(&t);
}

/* Nested columns gathered by partition: a list of optional strings (null
 * lists, empty lists, null elements) and an optional struct with an
 * optional field, by p STRING. Levels as inlay.h gives them for `tags`:
 * definition 0 a null list, 1 empty, 2 a null element, 3 a value. */
typedef struct nested {
    size_t rows;
    int64_t *id;
    inlay_bytes *p;
    /* tags.list.element: levels of row r at [lstart[r], lstart[r + 1]),
     * its values at [vstart[r], vstart[r + 1]) */
    int16_t *tdef, *trep;
    inlay_bytes *tval;
    size_t *lstart, *vstart;
    /* attrs.a: definition 0 null struct, 1 null field, 2 a value (dense) */
    int16_t *adef;
    int64_t *aval;
    size_t *astart;
    char (*text)[48];   /* the text of tval */
} nested;

static nested nested_make(rng *g, size_t rows)
{
    static const char *const PS[] = {"x", "y", "z"};
    nested n = {.rows = rows};
    n.id = xcalloc(rows, sizeof *n.id);
    n.p = xcalloc(rows, sizeof *n.p);
    n.tdef = xcalloc(rows * 3, sizeof *n.tdef);
    n.trep = xcalloc(rows * 3, sizeof *n.trep);
    n.tval = xcalloc(rows * 3, sizeof *n.tval);
    n.text = xcalloc(rows * 3, sizeof *n.text);
    n.lstart = xcalloc(rows + 1, sizeof *n.lstart);
    n.vstart = xcalloc(rows + 1, sizeof *n.vstart);
    n.adef = xcalloc(rows, sizeof *n.adef);
    n.aval = xcalloc(rows, sizeof *n.aval);
    n.astart = xcalloc(rows + 1, sizeof *n.astart);
    size_t nl = 0, nv = 0, na = 0;
    for (size_t r = 0; r < rows; r++) {
        n.id[r] = (int64_t)r;
        n.p[r] = (inlay_bytes){PS[below(g, 3)], 1};
        n.lstart[r] = nl;
        n.vstart[r] = nv;
        size_t kind = below(g, 6);   /* 0 null list, 1 empty, else 1..3 elements */
        if (kind < 2) {
            n.tdef[nl] = (int16_t)kind;
            n.trep[nl++] = 0;
        } else {
            size_t len = 1 + below(g, 3);
            for (size_t j = 0; j < len; j++) {
                n.trep[nl] = j ? 1 : 0;
                if (below(g, 5) == 0) {
                    n.tdef[nl++] = 2;
                    continue;
                }
                n.tdef[nl++] = 3;
                snprintf(n.text[nv], sizeof n.text[nv], "t%zu_%zu", r, j);
                n.tval[nv] = (inlay_bytes){n.text[nv], strlen(n.text[nv])};
                nv++;
            }
        }
        n.astart[r] = na;
        n.adef[r] = (int16_t)below(g, 3);
        if (n.adef[r] == 2)
            n.aval[na++] = (int64_t)r * 3 - 5000;
    }
    n.lstart[rows] = nl;
    n.vstart[rows] = nv;
    n.astart[rows] = na;
    return n;
}

static void nested_free(nested *n)
{
    free(n->id);
    free(n->p);
    free(n->tdef);
    free(n->trep);
    free(n->tval);
    free(n->text);
    free(n->lstart);
    free(n->vstart);
    free(n->adef);
    free(n->aval);
    free(n->astart);
}

static inlay_schema *nested_schema(void)
{
    inlay_schema *s = inlay_schema_create(NULL);
    if (!s)
        die(2, "inlay_schema_create failed");
    int tags, attrs;
    if (inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL) < 0 ||
        inlay_schema_add(s, 0, "p", INLAY_REQUIRED, inlay_type_string(), NULL) < 0 ||
        (tags = inlay_schema_add_list(s, 0, "tags", INLAY_OPTIONAL)) < 0 ||
        inlay_schema_add(s, tags, "element", INLAY_OPTIONAL, inlay_type_string(), NULL) < 0 ||
        (attrs = inlay_schema_add_group(s, 0, "attrs", INLAY_OPTIONAL)) < 0 ||
        inlay_schema_add(s, attrs, "a", INLAY_OPTIONAL, inlay_type_int(64, true), NULL) < 0)
        die(1, "nested schema: %s", inlay_schema_errmsg(s));
    return s;
}

static const char *const NESTED_LEAVES[] = {"id", "p", "tags.list.element", "attrs.a"};

/* Batches for rows [lo, hi); column[k] is leaf k of NESTED_LEAVES. */
static void nested_batches(const nested *n, const int *column, size_t lo, size_t hi, inlay_column_batch *b)
{
    b[0] = (inlay_column_batch){.column = column[0], .values = n->id + lo, .count = hi - lo};
    b[1] = (inlay_column_batch){.column = column[1], .values = n->p + lo, .count = hi - lo};
    b[2] = (inlay_column_batch){.column = column[2], .values = n->tval + n->vstart[lo],
                                .count = n->lstart[hi] - n->lstart[lo],
                                .levels = {.def = n->tdef + n->lstart[lo], .rep = n->trep + n->lstart[lo]}};
    b[3] = (inlay_column_batch){.column = column[3], .values = n->aval + n->astart[lo], .count = hi - lo,
                                .levels = {.def = n->adef + lo}};
}

/* Rows [lo, hi) of n as an Arrow record batch (the C data interface),
 * built in *a from n's dense values: list offsets and validity from the
 * levels, one string slot per element (a null's empty), the struct's child
 * one slot per row. */
typedef struct nested_arrow {
    int32_t *p_off, *t_off, *e_off;
    uint8_t *t_valid, *e_valid, *a_valid, *x_valid;
    int64_t *x;
    char *p_bytes, *e_bytes;
    struct ArrowSchema s_id, s_p, s_tags, s_el, s_attrs, s_a, *s_kids[4], *s_tags_kids[1], *s_attrs_kids[1], s_row;
    struct ArrowArray a_id, a_p, a_tags, a_el, a_attrs, a_a, *a_kids[4], *a_tags_kids[1], *a_attrs_kids[1], a_row;
    const void *b_id[2], *b_p[3], *b_tags[2], *b_el[3], *b_attrs[1], *b_a[2], *b_row[1];
} nested_arrow;

static void set_bit(uint8_t *bits, size_t i) { bits[i >> 3] |= (uint8_t)(1u << (i & 7)); }

static void nested_arrow_batch(const nested *n, size_t lo, size_t hi, nested_arrow *a)
{
    const size_t rows = hi - lo, levels = n->lstart[hi] - n->lstart[lo];
    memset(a->t_valid, 0, rows / 8 + 1);
    memset(a->e_valid, 0, levels / 8 + 1);
    memset(a->a_valid, 0, rows / 8 + 1);
    memset(a->x_valid, 0, rows / 8 + 1);
    size_t pb = 0, eb = 0, ne = 0;
    a->p_off[0] = a->t_off[0] = a->e_off[0] = 0;
    for (size_t r = lo; r < hi; r++) {
        const size_t k = r - lo;
        memcpy(a->p_bytes + pb, n->p[r].data, n->p[r].len);
        pb += n->p[r].len;
        a->p_off[k + 1] = (int32_t)pb;
        size_t v = n->vstart[r];
        for (size_t l = n->lstart[r]; l < n->lstart[r + 1]; l++) {
            if (n->tdef[l] == 0)
                break;   /* a null list */
            set_bit(a->t_valid, k);
            if (n->tdef[l] == 1)
                break;   /* an empty one */
            if (n->tdef[l] == 3) {
                set_bit(a->e_valid, ne);
                memcpy(a->e_bytes + eb, n->tval[v].data, n->tval[v].len);
                eb += n->tval[v].len;
                v++;
            }
            a->e_off[++ne] = (int32_t)eb;
        }
        a->t_off[k + 1] = (int32_t)ne;
        if (n->adef[r] >= 1)
            set_bit(a->a_valid, k);
        a->x[k] = 0;
        if (n->adef[r] == 2) {
            set_bit(a->x_valid, k);
            a->x[k] = n->aval[n->astart[r]];
        }
    }
    a->s_id = (struct ArrowSchema){.format = "l", .name = "id"};
    a->s_p = (struct ArrowSchema){.format = "u", .name = "p"};
    a->s_el = (struct ArrowSchema){.format = "u", .name = "element", .flags = ARROW_FLAG_NULLABLE};
    a->s_tags_kids[0] = &a->s_el;
    a->s_tags = (struct ArrowSchema){.format = "+l", .name = "tags", .flags = ARROW_FLAG_NULLABLE, .n_children = 1,
                                     .children = a->s_tags_kids};
    a->s_a = (struct ArrowSchema){.format = "l", .name = "a", .flags = ARROW_FLAG_NULLABLE};
    a->s_attrs_kids[0] = &a->s_a;
    a->s_attrs = (struct ArrowSchema){.format = "+s", .name = "attrs", .flags = ARROW_FLAG_NULLABLE,
                                      .n_children = 1, .children = a->s_attrs_kids};
    a->s_kids[0] = &a->s_id;
    a->s_kids[1] = &a->s_p;
    a->s_kids[2] = &a->s_tags;
    a->s_kids[3] = &a->s_attrs;
    a->s_row = (struct ArrowSchema){.format = "+s", .name = "", .n_children = 4, .children = a->s_kids};

    a->b_id[0] = NULL;
    a->b_id[1] = n->id + lo;
    a->b_p[0] = NULL;
    a->b_p[1] = a->p_off;
    a->b_p[2] = a->p_bytes;
    a->b_tags[0] = a->t_valid;
    a->b_tags[1] = a->t_off;
    a->b_el[0] = a->e_valid;
    a->b_el[1] = a->e_off;
    a->b_el[2] = a->e_bytes;
    a->b_attrs[0] = a->a_valid;
    a->b_a[0] = a->x_valid;
    a->b_a[1] = a->x;
    a->b_row[0] = NULL;
    const int64_t len = (int64_t)rows;
    a->a_id = (struct ArrowArray){.length = len, .n_buffers = 2, .buffers = a->b_id};
    a->a_p = (struct ArrowArray){.length = len, .n_buffers = 3, .buffers = a->b_p};
    a->a_el = (struct ArrowArray){.length = (int64_t)ne, .null_count = -1, .n_buffers = 3, .buffers = a->b_el};
    a->a_tags_kids[0] = &a->a_el;
    a->a_tags = (struct ArrowArray){.length = len, .null_count = -1, .n_buffers = 2, .buffers = a->b_tags,
                                    .n_children = 1, .children = a->a_tags_kids};
    a->a_a = (struct ArrowArray){.length = len, .null_count = -1, .n_buffers = 2, .buffers = a->b_a};
    a->a_attrs_kids[0] = &a->a_a;
    a->a_attrs = (struct ArrowArray){.length = len, .null_count = -1, .n_buffers = 1, .buffers = a->b_attrs,
                                     .n_children = 1, .children = a->a_attrs_kids};
    a->a_kids[0] = &a->a_id;
    a->a_kids[1] = &a->a_p;
    a->a_kids[2] = &a->a_tags;
    a->a_kids[3] = &a->a_attrs;
    a->a_row = (struct ArrowArray){.length = len, .n_buffers = 1, .buffers = a->b_row, .n_children = 4,
                                   .children = a->a_kids};
}

static void mode_nested(const char *dir)
{
    rng g = {8};
    nested n = nested_make(&g, 5000);
    inlay_schema *s = nested_schema();
    char root[4096], exp[4096];
    path_join(root, sizeof root, dir, "ds");
    path_join(exp, sizeof exp, dir, "expected.parquet");
    inlay_column_batch b[4];
    int column[4];

    inlay_dataset_options o;
    inlay_dataset_options_init(&o);
    static const char *const by[] = {"p"};
    o.partition_by = by;
    o.partition_by_count = 1;
    o.max_file_rows = 700;   /* files cut inside an append, between rows of lists */
    o.file.sync = false;
    inlay_dataset *d = NULL;
    if (inlay_dataset_open(&d, root, s, &o) != INLAY_OK)
        die(1, "inlay_dataset_open(%s): %s", root, d ? inlay_dataset_errmsg(d) : "out of memory");
    for (int k = 0; k < 4; k++)
        column[k] = inlay_dataset_column(d, NESTED_LEAVES[k]);
    for (size_t lo = 0; lo < n.rows;) {
        size_t hi = lo + 1 + below(&g, 900);
        if (hi > n.rows)
            hi = n.rows;
        nested_batches(&n, column, lo, hi, b);
        if (inlay_dataset_append_columns(d, b, 4) != INLAY_OK)
            die(1, "inlay_dataset_append_columns(%s, rows %zu..%zu): %s", root, lo, hi, inlay_dataset_errmsg(d));
        lo = hi;
    }
    if (inlay_dataset_close(d) != INLAY_OK)
        die(1, "inlay_dataset_close(%s): %s", root, inlay_dataset_errmsg(d));
    inlay_dataset_free(d);

    /* the same rows as Arrow record batches, in other cuts */
    path_join(root, sizeof root, dir, "ds_arrow");
    if (inlay_dataset_open(&d, root, s, &o) != INLAY_OK)
        die(1, "inlay_dataset_open(%s): %s", root, d ? inlay_dataset_errmsg(d) : "out of memory");
    static nested_arrow na;
    na.p_off = xcalloc(n.rows + 1, sizeof *na.p_off);
    na.t_off = xcalloc(n.rows + 1, sizeof *na.t_off);
    na.e_off = xcalloc(n.rows * 3 + 1, sizeof *na.e_off);
    na.t_valid = xcalloc(n.rows / 8 + 1, 1);
    na.e_valid = xcalloc(n.rows * 3 / 8 + 1, 1);
    na.a_valid = xcalloc(n.rows / 8 + 1, 1);
    na.x_valid = xcalloc(n.rows / 8 + 1, 1);
    na.x = xcalloc(n.rows, sizeof *na.x);
    na.p_bytes = xcalloc(n.rows, 8);
    na.e_bytes = xcalloc(n.rows * 3, 48);
    for (size_t lo = 0; lo < n.rows;) {
        size_t hi = lo + 1 + below(&g, 1200);
        if (hi > n.rows)
            hi = n.rows;
        nested_arrow_batch(&n, lo, hi, &na);
        if (inlay_dataset_append_arrow(d, &na.a_row, &na.s_row) != INLAY_OK)
            die(1, "inlay_dataset_append_arrow(%s, rows %zu..%zu): %s", root, lo, hi, inlay_dataset_errmsg(d));
        lo = hi;
    }
    if (inlay_dataset_close(d) != INLAY_OK)
        die(1, "inlay_dataset_close(%s): %s", root, inlay_dataset_errmsg(d));
    inlay_dataset_free(d);
    free(na.p_off);
    free(na.t_off);
    free(na.e_off);
    free(na.t_valid);
    free(na.e_valid);
    free(na.a_valid);
    free(na.x_valid);
    free(na.x);
    free(na.p_bytes);
    free(na.e_bytes);

    inlay_options wo;
    inlay_options_init(&wo);
    wo.sync = false;
    inlay_writer *w = NULL;
    if (inlay_writer_open_file(&w, exp, s, &wo) != INLAY_OK)
        die(1, "inlay_writer_open_file(%s): %s", exp, w ? inlay_writer_errmsg(w) : "out of memory");
    for (int k = 0; k < 4; k++)
        column[k] = inlay_writer_column(w, NESTED_LEAVES[k]);
    nested_batches(&n, column, 0, n.rows, b);
    if (inlay_writer_append_columns(w, b, 4) != INLAY_OK || inlay_writer_close(w) != INLAY_OK)
        die(1, "writing %s: %s", exp, inlay_writer_errmsg(w));
    inlay_writer_free(w);
    inlay_schema_free(s);
    write_info(dir, "{\"rows\": %zu}\n", n.rows);
    nested_free(&n);
}

static void mode_rows(const char *dir, uint64_t n)
{
    rng g = {3};
    table t = events(&g, 23456, 0, 3, false);
    char root[4096], exp[4096];
    path_join(root, sizeof root, dir, "ds");
    path_join(exp, sizeof exp, dir, "expected.parquet");
    run r;
    run_init(&r, root);
    r.by = PLATFORM_ONLY;
    r.by_count = 1;
    r.o.max_file_rows = n;
    r.max_append = 2500;   /* often more than n rows of a partition in one call */
    write_dataset(&r, &t, &g);
    /* and without partitions: every file at the root */
    path_join(root, sizeof root, dir, "flat");
    run_init(&r, root);
    r.o.max_file_rows = n;
    r.max_append = 2500;
    write_dataset(&r, &t, &g);
    write_expected(&t, exp);
    write_info(dir, "{\"rows\": %zu, \"max_file_rows\": %llu}\n", t.rows, (unsigned long long)n);
    table_free(&t);
}

static void mode_bytes(const char *dir, uint64_t b)
{
    rng g = {4};
    table t = events(&g, 100000, 0, 3, false);
    char root[4096], exp[4096];
    path_join(root, sizeof root, dir, "ds");
    path_join(exp, sizeof exp, dir, "expected.parquet");
    run r;
    run_init(&r, root);
    r.by = PLATFORM_ONLY;
    r.by_count = 1;
    r.o.max_file_bytes = b;
    r.o.file.page_rows = 500;   /* the size is looked at every 500 rows of a partition */
    r.min_append = 300;
    r.max_append = 700;
    write_dataset(&r, &t, &g);
    write_expected(&t, exp);
    /* what a file may pass B by: one look's rows, at the widest a row gets */
    size_t widest = 0;
    for (size_t i = 0; i < t.rows; i++) {
        const size_t w = plain_bytes(&t, i, i + 1);
        if (w > widest) widest = w;
    }
    write_info(dir, "{\"rows\": %zu, \"max_file_bytes\": %llu, \"step_bytes\": %zu}\n", t.rows,
               (unsigned long long)b, (size_t)r.o.file.page_rows * widest);
    table_free(&t);
}

static void mode_open(const char *dir)
{
    rng g = {5};
    table t = events(&g, 6000, 0, 50, false);
    char root[4096], exp[4096];
    path_join(root, sizeof root, dir, "ds");
    path_join(exp, sizeof exp, dir, "expected.parquet");
    run r;
    run_init(&r, root);
    r.by = DAY_ONLY;
    r.by_count = 1;
    r.o.max_open_files = 2;
    /* small pages: each partition's rows reach its file a few at a time,
     * so files open and close all along whether or not rows wait for
     * their file in memory first */
    r.o.file.page_rows = 50;
    r.min_append = 400;
    r.max_append = 1200;
    write_dataset(&r, &t, &g);
    write_expected(&t, exp);
    write_info(dir, "{\"rows\": %zu, \"partitions\": 50}\n", t.rows);
    table_free(&t);
}

static void mode_shard(const char *root, const char *shard, const char *seed_s, const char *rows_s,
                       const char *existing, const char *expected)
{
    uint64_t seed = strtoull(seed_s, NULL, 10);
    size_t rows = (size_t)strtoull(rows_s, NULL, 10);
    rng g = {100 + seed};
    table t = events(&g, rows, (int64_t)seed * 1000000, 4, true);
    run r;
    run_init(&r, root);
    r.by = DAY_PLATFORM;
    r.by_count = 2;
    r.o.shard = strcmp(shard, "-") ? shard : NULL;
    r.o.max_file_rows = 300;
    r.max_append = 500;
    r.pause_ms = 15;   /* so that two runs started together overlap */
    r.o.existing = !strcmp(existing, "replace")  ? INLAY_EXISTING_REPLACE_SHARD
                 : !strcmp(existing, "append")   ? INLAY_EXISTING_APPEND
                 : !strcmp(existing, "error")    ? INLAY_EXISTING_ERROR
                                                 : (die(2, "existing: %s?", existing), INLAY_EXISTING_ERROR);
    int st = write_dataset(&r, &t, &g);
    if (st != INLAY_OK) {
        printf("open status %d\n", st);
        table_free(&t);
        exit(3);
    }
    if (strcmp(expected, "-"))
        write_expected(&t, expected);
    table_free(&t);
}

/* Does not end by itself in the time a test gives it: 100 passes over
 * 20,000 rows, 40 rows and a 5 ms pause an append, take over 4 minutes. */
static void mode_slow(const char *root)
{
    rng g = {6};
    table t = events(&g, 20000, 0, 4, true);
    run r;
    run_init(&r, root);
    r.by = DAY_PLATFORM;
    r.by_count = 2;
    r.o.max_file_rows = 200;
    r.o.file.sync = true;
    r.min_append = 20;
    r.max_append = 60;
    r.pause_ms = 5;
    r.repeat = 100;
    write_dataset(&r, &t, &g);
    table_free(&t);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        die(2, "usage: interop_dataset MODE DIR [ARGS]");
    const char *mode = argv[1], *dir = argv[2];
    if (!strcmp(mode, "shard") || !strcmp(mode, "slow")) {
        if (!strcmp(mode, "slow"))
            mode_slow(dir);
        else if (argc == 8)
            mode_shard(dir, argv[3], argv[4], argv[5], argv[6], argv[7]);
        else
            die(2, "usage: interop_dataset shard ROOT SHARD SEED ROWS EXISTING EXPECTED");
        return 0;
    }
    make_dir(dir);
    if (!strcmp(mode, "basic"))
        mode_basic(dir);
    else if (!strcmp(mode, "nested"))
        mode_nested(dir);
    else if (!strcmp(mode, "types"))
        mode_types(dir);
    else if (!strcmp(mode, "weird"))
        mode_weird(dir);
    else if (!strcmp(mode, "rows") && argc == 4)
        mode_rows(dir, strtoull(argv[3], NULL, 10));
    else if (!strcmp(mode, "bytes") && argc == 4)
        mode_bytes(dir, strtoull(argv[3], NULL, 10));
    else if (!strcmp(mode, "open"))
        mode_open(dir);
    else
        die(2, "unknown mode or arguments: %s", mode);
    return 0;
}
