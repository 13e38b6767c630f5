/*
 * infer.c — a schema for a CSV or NDJSON input, from a sample of its
 * records (inlay_source_infer in inlay.h).
 *
 * Each column keeps the widest kind its sampled values need, on the lattice
 *   INT -> DOUBLE,   DATE -> TIMESTAMP,   anything else mixed -> STRING
 * (JSON for NDJSON objects and arrays, and STRING if they mix with other
 * values), with the range of its integers (for the narrowest integer type),
 * whether every timestamp carried a zone (utc) and the most fraction digits
 * seen (microseconds, or nanoseconds past six digits). A column is optional
 * when a null or a missing value was seen. Integers written with a leading
 * zero ("007") are kept as text: they are codes, not numbers. The narrowest
 * integer type is only chosen when the sample is the whole input: past the
 * sample an id or a counter goes on growing, so a partial sample gives
 * int64 (uint64 above its range).
 *
 * Both go through their tokenizers: the NDJSON one, asked for no keys,
 * hands every member of a line to see_member.
 */
#include "source.h"
#include "schema.h"
#include "textval.h"
#include "input.h"
#include "csv.h"
#include "ndjson.h"

#include <stdio.h>

enum { IK_NONE = -1, IK_JSON = 100 };

typedef struct icol {
    char *name;
    size_t name_len;
    int kind;              /* a textval_kind, IK_JSON, or IK_NONE before any value */
    bool nulls;
    bool big;              /* an integer above INT64_MAX */
    bool negative;
    bool all_offsets;
    uint32_t frac;
    int64_t min, max;
    uint64_t seen;         /* NDJSON: the number of the last line that had the key */
} icol;

typedef struct infer {
    inlay_allocator alloc;
    icol *cols;
    size_t n, cap;
    uint64_t records;
    uint64_t limit;        /* records in the sample; the one read past it only says the input goes on */
    const char *label;     /* the input's name in messages */
    bool whole;            /* the sample reached the end of the input */
    bool failed;           /* out of memory while noting a column */
    char *err;
    size_t errcap;
} infer;

static int add_col(infer *f, const char *name, size_t len)
{
    if (f->n == f->cap) {
        size_t ncap = f->cap ? f->cap * 2 : 16;
        icol *c = inl_mem_realloc(&f->alloc, f->cols, f->cap * sizeof *c, ncap * sizeof *c);
        if (!c) return -1;
        f->cols = c;
        f->cap = ncap;
    }
    icol *c = &f->cols[f->n];
    memset(c, 0, sizeof *c);
    c->name = inl_mem_alloc(&f->alloc, len + 1);
    if (!c->name) return -1;
    memcpy(c->name, name, len);
    c->name[len] = 0;
    c->name_len = len;
    c->kind = IK_NONE;
    c->all_offsets = true;
    f->n++;
    return 0;
}

static int find_col(const infer *f, const char *name, size_t len)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->cols[i].name_len == len && memcmp(f->cols[i].name, name, len) == 0) return (int)i;
    return -1;
}

/* A column for the field at `position` (0-based) that has no name of its
 * own: "column<position + 1>", or, when a column has that name already,
 * "column<position + 1>_2", _3 ... */
static int add_made_up(infer *f, size_t position)
{
    char tmp[48];
    size_t len = (size_t)snprintf(tmp, sizeof tmp, "column%zu", position + 1);
    for (unsigned k = 2; find_col(f, tmp, len) >= 0; k++)
        len = (size_t)snprintf(tmp, sizeof tmp, "column%zu_%u", position + 1, k);
    return add_col(f, tmp, len);
}

static int merge_kind(int a, int b)
{
    if (a == IK_NONE || a == b) return b;
    if ((a == TEXTVAL_KIND_INT && b == TEXTVAL_KIND_DOUBLE) || (a == TEXTVAL_KIND_DOUBLE && b == TEXTVAL_KIND_INT))
        return TEXTVAL_KIND_DOUBLE;
    if ((a == TEXTVAL_KIND_DATE && b == TEXTVAL_KIND_TIMESTAMP) ||
        (a == TEXTVAL_KIND_TIMESTAMP && b == TEXTVAL_KIND_DATE))
        return TEXTVAL_KIND_TIMESTAMP;
    return TEXTVAL_KIND_STRING;
}

/* One value of column c, of kind `kind` (IK_JSON or a textval kind) with
 * its classification. */
static void see(icol *c, int kind, const textval_class *info)
{
    if (kind == TEXTVAL_KIND_INT) {
        if (info->leading_zero) {
            kind = TEXTVAL_KIND_STRING;
        } else if (info->big) {
            c->big = true;
        } else {
            const bool first = c->kind != TEXTVAL_KIND_INT && c->kind != TEXTVAL_KIND_DOUBLE;
            if (first || info->value < c->min) c->min = info->value;
            if (first || info->value > c->max) c->max = info->value;
            if (info->value < 0) c->negative = true;
        }
    }
    if (kind == TEXTVAL_KIND_TIMESTAMP || kind == TEXTVAL_KIND_TIME || kind == TEXTVAL_KIND_DATE) {
        if (kind == TEXTVAL_KIND_TIMESTAMP && !info->had_offset) c->all_offsets = false;
        if (kind == TEXTVAL_KIND_DATE) c->all_offsets = false;
        if (info->frac_digits > c->frac) c->frac = info->frac_digits;
    }
    if (kind == IK_JSON && c->kind != IK_NONE && c->kind != IK_JSON) kind = TEXTVAL_KIND_STRING;
    else if (c->kind == IK_JSON && kind != IK_JSON) kind = TEXTVAL_KIND_STRING;
    c->kind = merge_kind(c->kind, kind);
}

static void see_text(icol *c, const char *p, size_t len)
{
    /* as the source reads numbers, dates and flags: spaces around them do not count */
    size_t a = 0, e = len;
    while (a < e && (p[a] == ' ' || p[a] == '\t')) a++;
    while (e > a && (p[e - 1] == ' ' || p[e - 1] == '\t')) e--;
    if (a < e && (a > 0 || e < len)) {
        textval_class trimmed;
        memset(&trimmed, 0, sizeof trimmed);
        const textval_kind k = inl_textval_classify(p + a, e - a, &trimmed);
        if (k != TEXTVAL_KIND_STRING) {
            see(c, (int)k, &trimmed);
            return;
        }
    }
    textval_class info;
    memset(&info, 0, sizeof info);
    see(c, (int)inl_textval_classify(p, len, &info), &info);
}

/* ---- CSV ---------------------------------------------------------------------- */

static int infer_csv(infer *f, input_reader *in, const inlay_source_options *o, bool tsv, size_t rows)
{
    csv_options co;
    inl_csv_options_init(&co);
    co.delimiter = o->delimiter ? o->delimiter : tsv ? '\t' : ',';
    co.quote = o->quote;
    co.skip_rows = o->skip_rows;
    null_set nulls;
    int st = inl_null_set_init(&nulls, o, &f->alloc);
    if (st == INLAY_ERR_ARGUMENT) snprintf(f->err, f->errcap, "a null marker is NULL");
    csv_reader *r = NULL;
    if (!st && (st = inl_csv_open(&r, in, &co, &f->alloc)) == INLAY_ERR_ARGUMENT)
        snprintf(f->err, f->errcap, "unusable delimiter or quote character");
    if (st) {
        inl_null_set_free(&nulls, &f->alloc);
        return st;
    }
    const csv_field *fl;
    size_t nf;
    bool first = true;
    for (;;) {
        int k = inl_csv_next(r, &fl, &nf);
        if (k == 0) {
            f->whole = true;
            break;
        }
        if (f->records >= rows) break;   /* one more record was read: the input goes on */
        if (k < 0) {
            st = inl_csv_error_status(r);
            snprintf(f->err, f->errcap, "%s:%llu: %s", f->label, (unsigned long long)inl_csv_error_line(r),
                     inl_csv_errmsg(r));
            st = st == INLAY_ERR_VALUE || !st ? INLAY_ERR_VALUE : st;
            goto done;
        }
        if (first && o->header) {
            first = false;
            for (size_t i = 0; i < nf; i++) {
                const bool own = fl[i].len && find_col(f, fl[i].data, fl[i].len) < 0;   /* else unnamed or repeated */
                if (own ? add_col(f, fl[i].data, fl[i].len) : add_made_up(f, i)) {
                    st = INLAY_ERR_NOMEM;
                    goto done;
                }
            }
            continue;
        }
        first = false;
        while (f->n < nf) {   /* without a header, or records wider than it */
            if (add_made_up(f, f->n)) { st = INLAY_ERR_NOMEM; goto done; }
            if (f->records) f->cols[f->n - 1].nulls = true;   /* absent from earlier records */
        }
        for (size_t i = 0; i < f->n; i++) {
            icol *c = &f->cols[i];
            if (i >= nf || inl_null_set_match(&nulls, &fl[i])) c->nulls = true;
            else see_text(c, fl[i].data, fl[i].len);
        }
        f->records++;
    }
done:
    inl_csv_close(r);
    inl_null_set_free(&nulls, &f->alloc);
    return st;
}

/* ---- NDJSON --------------------------------------------------------------------- */

/* One member of the line being read: the tokenizer hands every member to
 * this (no key is wanted), key unescaped and value classified as it reads
 * them. */
static void see_member(void *ctx, const char *key, size_t klen, const ndjson_value *v)
{
    infer *f = ctx;
    if (f->failed || f->records >= f->limit) return;   /* the line past the sample is not looked at */
    int ci = find_col(f, key, klen);
    if (ci < 0) {
        if (add_col(f, key, klen)) {
            f->failed = true;
            return;
        }
        ci = (int)f->n - 1;
        if (f->records) f->cols[ci].nulls = true;   /* absent from the lines before */
    }
    icol *c = &f->cols[ci];
    c->seen = f->records + 1;
    textval_class info;
    memset(&info, 0, sizeof info);
    switch (v->kind) {
    case NDJSON_NULL: c->nulls = true; break;
    case NDJSON_TRUE: case NDJSON_FALSE:
        info.truth = v->kind == NDJSON_TRUE;
        see(c, TEXTVAL_KIND_BOOL, &info);
        break;
    case NDJSON_OBJECT: case NDJSON_ARRAY: see(c, IK_JSON, &info); break;
    case NDJSON_STRING: {
        int k = (int)inl_textval_classify(v->data, v->len, &info);
        /* quoted numbers and flags stay text; quoted dates and times are dates and times */
        if (k == TEXTVAL_KIND_INT || k == TEXTVAL_KIND_DOUBLE || k == TEXTVAL_KIND_BOOL) k = TEXTVAL_KIND_STRING;
        see(c, k, &info);
        break;
    }
    default: see_text(c, v->data, v->len); break;
    }
}

static ptrdiff_t read_input(void *ctx, void *dst, size_t cap)
{
    return inl_input_read(ctx, dst, cap);
}

static int infer_json(infer *f, input_reader *in, size_t rows)
{
    char err[256];
    ndjson_reader *r;
    ndjson_options jo = { .strict = false, .other = see_member, .other_ctx = f };
    int st = inl_ndjson_open(&r, read_input, in, NULL, 0, &jo, &f->alloc, err, sizeof err);
    if (st) {
        snprintf(f->err, f->errcap, "%s", err);
        return st;
    }
    for (;;) {
        int k = inl_ndjson_next(r, NULL);
        if (f->failed) {
            st = INLAY_ERR_NOMEM;
            break;
        }
        if (k == 0) {
            f->whole = true;
            break;
        }
        if (f->records >= rows) break;   /* one more line was read: the input goes on */
        if (k < 0) {
            snprintf(f->err, f->errcap, "%s:%llu: %s", f->label, (unsigned long long)inl_ndjson_error_line(r),
                     inl_ndjson_errmsg(r));
            st = k == -1 ? INLAY_ERR_VALUE : k;
            break;
        }
        f->records++;
        for (size_t i = 0; i < f->n; i++)   /* a key missing from this line */
            if (f->cols[i].seen != f->records) f->cols[i].nulls = true;
    }
    inl_ndjson_close(r);
    return st;
}

/* ---- the schema ---------------------------------------------------------------------- */

static inlay_type type_of(const icol *c, bool whole)
{
    switch (c->kind) {
    case TEXTVAL_KIND_INT:
        if (c->big) return c->negative ? inlay_type_string() : inlay_type_int(64, false);
        if (!whole) return inlay_type_int(64, true);
        if (c->min >= INT8_MIN && c->max <= INT8_MAX) return inlay_type_int(8, true);
        if (c->min >= INT16_MIN && c->max <= INT16_MAX) return inlay_type_int(16, true);
        if (c->min >= INT32_MIN && c->max <= INT32_MAX) return inlay_type_int(32, true);
        return inlay_type_int(64, true);
    case TEXTVAL_KIND_DOUBLE: return inlay_type_double();
    case TEXTVAL_KIND_BOOL: return inlay_type_boolean();
    case TEXTVAL_KIND_DATE: return inlay_type_date();
    case TEXTVAL_KIND_TIMESTAMP:
        return inlay_type_timestamp(c->frac > 6 ? INLAY_NANOS : INLAY_MICROS, c->all_offsets);
    case TEXTVAL_KIND_TIME: return inlay_type_time(c->frac > 6 ? INLAY_NANOS : INLAY_MICROS, false);
    case IK_JSON: return inlay_type_json();
    default: return inlay_type_string();   /* strings, and columns with nothing but nulls */
    }
}

typedef struct membuf {
    const uint8_t *p;
    size_t len, pos;
} membuf;

static ptrdiff_t read_mem(void *ctx, void *dst, size_t cap)
{
    membuf *m = ctx;
    size_t n = m->len - m->pos < cap ? m->len - m->pos : cap;
    if (n) memcpy(dst, m->p + m->pos, n);
    m->pos += n;
    return (ptrdiff_t)n;
}

/* The inference over an open input; `name` decides the format by extension
 * and names the input in messages. */
static int infer_input(inlay_schema **out, input_reader *in, const char *name, const inlay_source_options *o,
                       size_t sample_rows, bool partial, char *err, size_t errcap)
{
    infer f;
    memset(&f, 0, sizeof f);
    f.alloc = inl_mem_or_default(&o->alloc);
    f.err = err;
    f.errcap = errcap;
    f.label = name;
    inlay_source_options fo = *o;
    bool tsv = false;
    const inlay_source_format by_name = inl_source_format_of(name, &tsv);
    if (fo.format == INLAY_FORMAT_AUTO) fo.format = by_name;
    const size_t rows = sample_rows ? sample_rows : 10000;
    f.limit = rows;
    int st = fo.format == INLAY_FORMAT_NDJSON ? infer_json(&f, in, rows) : infer_csv(&f, in, &fo, tsv, rows);
    if (partial) f.whole = false;
    if (st == INLAY_ERR_NOMEM && !err[0]) snprintf(err, errcap, "out of memory");
    inlay_schema *s = NULL;
    if (!st && f.n == 0) {
        snprintf(err, errcap, "%s: no columns found", f.label);
        st = INLAY_ERR_SCHEMA;
    }
    if (!st) {
        s = inlay_schema_create(&f.alloc);
        if (!s) st = inl_err_format(err, errcap, INLAY_ERR_NOMEM, "out of memory");
        for (size_t i = 0; !st && i < f.n; i++) {
            const icol *c = &f.cols[i];
            int r = inlay_schema_add(s, 0, c->name, c->nulls || c->kind == IK_NONE ? INLAY_OPTIONAL : INLAY_REQUIRED,
                                     type_of(c, f.whole), NULL);
            if (r < 0) {
                snprintf(err, errcap, "%s", inlay_schema_errmsg(s));
                st = r;
            }
        }
        if (st) {
            inlay_schema_free(s);
            s = NULL;
        }
    }
    for (size_t i = 0; i < f.n; i++) inl_mem_free(&f.alloc, f.cols[i].name, f.cols[i].name_len + 1);
    inl_mem_free(&f.alloc, f.cols, f.cap * sizeof *f.cols);
    *out = s;
    return st;
}

static int check_args(inlay_schema **out, const inlay_source_options **o, inlay_source_options *dflt,
                      char **err, size_t *errcap, char *dummy)
{
    if (!*err || !*errcap) { *err = dummy; *errcap = 1; }
    (*err)[0] = 0;
    if (!out) return INLAY_ERR_ARGUMENT;
    *out = NULL;
    if (!*o) {
        inlay_source_options_init(dflt);
        *o = dflt;
    }
    if ((*o)->struct_size != sizeof **o) {
        snprintf(*err, *errcap, "inlay_source_options not initialized");
        return INLAY_ERR_ARGUMENT;
    }
    return 0;
}

int inlay_source_infer(inlay_schema **out, const char *path, const inlay_source_options *o,
                       size_t sample_rows, char *err, size_t errcap)
{
    char dummy[1];
    inlay_source_options dflt;
    INL_FORWARD(check_args(out, &o, &dflt, &err, &errcap, dummy));
    if (!path) return INLAY_ERR_ARGUMENT;
    const inlay_allocator alloc = inl_mem_or_default(&o->alloc);
    input_reader *in;
    INL_FORWARD(inl_input_open(&in, path, &alloc, err, errcap));
    const int st = infer_input(out, in, inl_input_name(in), o, sample_rows, false, err, errcap);
    inl_input_close(in);
    return st;
}

int inlay_source_infer_buffer(inlay_schema **out, const void *data, size_t len, bool whole, const char *name,
                              const inlay_source_options *o, size_t sample_rows, char *err, size_t errcap)
{
    char dummy[1];
    inlay_source_options dflt;
    INL_FORWARD(check_args(out, &o, &dflt, &err, &errcap, dummy));
    if (!data && len) return INLAY_ERR_ARGUMENT;
    /* up to the last line end: a record cut by the end of the sample is not one */
    const uint8_t *p = data;
    size_t keep = len;
    if (!whole) {
        while (keep && p[keep - 1] != '\n') keep--;
        if (!keep) keep = len;
    }
    membuf m = { p, keep, 0 };
    const inlay_allocator alloc = inl_mem_or_default(&o->alloc);
    input_reader *in;
    INL_FORWARD(inl_input_open_fn(&in, read_mem, &m, INPUT_PLAIN, &alloc, err, errcap));
    const int st = infer_input(out, in, name ? name : "<input>", o, sample_rows, !whole, err, errcap);
    inl_input_close(in);
    return st;
}
