/*
 * infer.c — a schema for a CSV or NDJSON input, from a sample of its
 * records (inlay_source_infer in inlay.h).
 *
 * Each column keeps the widest kind its sampled values need, on the lattice
 *   INT -> DOUBLE,   DATE -> TIMESTAMP,   anything else mixed -> STRING
 * (JSON for NDJSON objects and arrays, and STRING if they mix with other
 * values), with the range of its integers, whether every timestamp carried
 * a zone (utc) and the most fraction digits seen (microseconds, or
 * nanoseconds past six digits). A column is optional when a null or a
 * missing value was seen. Integers written with a leading zero ("007") are
 * kept as text: they are codes, not numbers. Integers are int64 (uint64
 * above its range) unless narrow_ints asks for the narrowest type: a
 * sample never shows how far an id or a counter goes on growing, and one
 * feed must get one schema whether today's file is short or long.
 *
 * The sample is the head of the input (the first sample_rows records),
 * and, in a plain file that goes on past it, chunks spread over the rest:
 * the middle, the end and a few offsets from a fixed seed, so a column
 * that turns to text at row 20,000 is seen to. A chunk starts at an
 * arbitrary byte; sniff.c finds the first record boundary that is certain
 * there (quoted newlines make some uncertain: such a chunk is skipped, not
 * misread). Compressed files cannot be entered in the middle: their head
 * is the sample, as for pipes.
 *
 * Both formats go through their tokenizers: the NDJSON one, asked for no
 * keys, hands every member of a line to see_member.
 *
 * What is inferred must read back: a text that is not UTF-8 makes its
 * column binary; a key holding objects or arrays is JSON, unless it also
 * holds strings (a JSON column keeps JSON text, and a string would need
 * re-quoting): then binary, which keeps both as they are; a timestamp
 * past the range of int64 microseconds (year 294,247) makes its column
 * text, and one with nanoseconds past 2262 makes it microseconds.
 */
#include "source.h"
#include "sniff.h"
#include "schema.h"
#include "textval.h"
#include "input.h"
#include "csv.h"
#include "ndjson.h"
#include "utf8.h"

#include <stdio.h>

enum { IK_NONE = -1, IK_JSON = 100 };

/* Chunks taken past the head: the middle, the end, and this many more. */
#define INFER_CHUNK_BYTES ((size_t)1 << 18)
#define INFER_RANDOM_CHUNKS 6
/* A pipe's sample, decompressed, is read into memory up to this. */
#define INFER_TEXT_CAP ((size_t)64 << 20)

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
    bool json;             /* NDJSON: an object or an array was seen */
    bool quoted;           /* NDJSON: a string was seen (a JSON column cannot take one) */
    bool not_utf8;         /* a text that is not UTF-8: a binary column, not a string one */
    bool us_overflow;      /* a date or timestamp past what int64 microseconds hold */
    bool ns_overflow;      /* one with more than 6 fraction digits, past int64 nanoseconds */
    bool given;            /* options.types names it: `type` replaces the inferred one */
    inlay_type type;
} icol;

typedef struct infer {
    inlay_allocator alloc;
    icol *cols;
    size_t n, cap;
    uint64_t records;
    uint64_t limit;        /* records in the head; the one read past it only says the input goes on */
    const char *label;     /* the input's name in messages */
    const inlay_source_dialect *d;
    bool whole;            /* the head reached the end of the input */
    uint64_t head_end;     /* bytes of the input the head took */
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

/* A CSV column named `name`, or, when a column has that name already,
 * "<name>_1", "<name>_2"... (DuckDB's names for repeats). */
static int add_unique(infer *f, const char *name, size_t len)
{
    if (find_col(f, name, len) < 0) return add_col(f, name, len);
    char tmp[300];
    if (len > sizeof tmp - 24) len = sizeof tmp - 24;
    for (unsigned k = 1;; k++) {
        const size_t n = (size_t)snprintf(tmp, sizeof tmp, "%.*s_%u", (int)len, name, k);
        if (find_col(f, tmp, n) < 0) return add_col(f, tmp, n);
    }
}

/* The field at `position` (0-based) without a name of its own: "column<position>". */
static int add_made_up(infer *f, size_t position)
{
    char tmp[32];
    const size_t len = (size_t)snprintf(tmp, sizeof tmp, "column%zu", position);
    return add_unique(f, tmp, len);
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

/* What the kind alone does not say: whether the value fits the column the
 * kind would make. */
static void see_value(icol *c, int kind, const char *p, size_t len, const textval_class *info)
{
    if (kind == TEXTVAL_KIND_STRING && !c->not_utf8 && !inl_utf8_valid((const uint8_t *)p, len)) c->not_utf8 = true;
    if (kind == TEXTVAL_KIND_TIMESTAMP || kind == TEXTVAL_KIND_DATE) {
        int64_t v;
        if (inl_textval_timestamp(p, len, INLAY_MICROS, &v, NULL) != 0) c->us_overflow = true;
        if (info->frac_digits > 6 && inl_textval_timestamp(p, len, INLAY_NANOS, &v, NULL) != 0) c->ns_overflow = true;
    }
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
            see_value(c, (int)k, p + a, e - a, &trimmed);
            see(c, (int)k, &trimmed);
            return;
        }
    }
    textval_class info;
    memset(&info, 0, sizeof info);
    const int k = (int)inl_textval_classify(p, len, &info);
    see_value(c, k, p, len, &info);
    see(c, k, &info);
}

/* ---- CSV ---------------------------------------------------------------------- */

static void csv_options_of(const infer *f, csv_options *co)
{
    inl_csv_options_init(co);
    co->delimiter = f->d->delimiter;
    co->quote = f->d->quote;
    co->escape = f->d->escape;
}

/* The header's names (sniff.c names them as DuckDB does). */
static int header_names(infer *f, const csv_field *fl, size_t nf)
{
    buf nb = { NULL, 0, 0, 0 };
    int st = inl_sniff_header_names(fl, nf, &nb, &f->alloc);
    for (size_t at = 0; !st && at < nb.len;) {
        const char *name = (const char *)nb.data + at;
        const size_t len = strlen(name);
        if (add_col(f, name, len)) st = INLAY_ERR_NOMEM;
        at += len + 1;
    }
    inl_buf_free(&nb, &f->alloc);
    return st;
}

static void see_record(infer *f, const csv_field *fl, size_t nf, const null_set *nulls)
{
    for (size_t i = 0; i < f->n; i++) {
        icol *c = &f->cols[i];
        if (i >= nf || inl_null_set_match(nulls, &fl[i])) c->nulls = true;
        else see_text(c, fl[i].data, fl[i].len);
    }
    f->records++;
}

static int infer_csv(infer *f, input_reader *in, const inlay_source_options *o, const null_set *nulls, size_t rows)
{
    csv_options co;
    csv_options_of(f, &co);
    co.skip_rows = o->skip_rows;
    csv_reader *r = NULL;
    int st = inl_csv_open(&r, in, &co, &f->alloc);
    if (st == INLAY_ERR_ARGUMENT) snprintf(f->err, f->errcap, "unusable delimiter, quote or escape character");
    if (st) return st;
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
        if (first && f->d->header) {
            first = false;
            if ((st = header_names(f, fl, nf))) goto done;
            f->head_end = inl_csv_bytes_read(r);
            continue;
        }
        first = false;
        while (f->n < nf) {   /* without a header, or records wider than it */
            if (add_made_up(f, f->n)) { st = INLAY_ERR_NOMEM; goto done; }
            if (f->records) f->cols[f->n - 1].nulls = true;   /* absent from earlier records */
        }
        see_record(f, fl, nf, nulls);
        f->head_end = inl_csv_bytes_read(r);
    }
done:
    inl_csv_close(r);
    return st;
}

/* The records of one chunk, p[0..len): only those as wide as the columns. */
static int csv_chunk(infer *f, const uint8_t *p, size_t len, const null_set *nulls)
{
    input_membuf m = { p, len, 0 };
    input_reader *in = NULL;
    csv_reader *r = NULL;
    csv_options co;
    csv_options_of(f, &co);
    int st = inl_input_open_fn(&in, inl_input_membuf_read, &m, INPUT_PLAIN, &f->alloc, NULL, 0);
    if (!st) st = inl_csv_open(&r, in, &co, &f->alloc);
    const csv_field *fl;
    size_t nf;
    int k;
    while (!st && (k = inl_csv_next(r, &fl, &nf)) != 0) {
        if (k < 0) {
            if (inl_csv_error_status(r) != INLAY_ERR_VALUE) st = inl_csv_error_status(r);
            continue;
        }
        if (nf == f->n) see_record(f, fl, nf, nulls);
    }
    inl_csv_close(r);
    inl_input_close(in);
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
    case NDJSON_OBJECT: case NDJSON_ARRAY:
        c->json = true;
        see(c, IK_JSON, &info);
        break;
    case NDJSON_STRING: {
        int k = (int)inl_textval_classify(v->data, v->len, &info);
        /* quoted numbers and flags stay text; quoted dates and times are dates and times */
        if (k == TEXTVAL_KIND_INT || k == TEXTVAL_KIND_DOUBLE || k == TEXTVAL_KIND_BOOL) k = TEXTVAL_KIND_STRING;
        c->quoted = true;
        see_value(c, k, v->data, v->len, &info);
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

/* One line was read: the keys it lacked were missing from it. */
static void end_line(infer *f)
{
    f->records++;
    for (size_t i = 0; i < f->n; i++)
        if (f->cols[i].seen != f->records) f->cols[i].nulls = true;
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
        end_line(f);
        f->head_end = inl_ndjson_bytes_consumed(r);
    }
    inl_ndjson_close(r);
    return st;
}

/* The lines of one chunk, from its first line end on (a JSON line holds no
 * raw line end, so that is always a boundary), or from its start when it
 * starts where the head ended; bad lines are left out. */
static int json_chunk(infer *f, const uint8_t *p, size_t len, bool at_start, bool at_end)
{
    size_t start = 0;
    if (!at_start) {
        const uint8_t *nl = memchr(p, '\n', len);
        if (!nl) return 0;
        start = (size_t)(nl - p) + 1;
    }
    size_t end = len;
    if (!at_end) {
        while (end > start && p[end - 1] != '\n') end--;
    }
    input_membuf m = { p + start, end - start, 0 };
    input_reader *in = NULL;
    ndjson_reader *r = NULL;
    ndjson_options jo = { .strict = false, .other = see_member, .other_ctx = f };
    int st = inl_input_open_fn(&in, inl_input_membuf_read, &m, INPUT_PLAIN, &f->alloc, NULL, 0);
    if (!st) st = inl_ndjson_open(&r, read_input, in, NULL, 0, &jo, &f->alloc, NULL, 0);
    int k;
    while (!st && (k = inl_ndjson_next(r, NULL)) != 0) {
        if (f->failed) st = INLAY_ERR_NOMEM;
        else if (k == -1) continue;
        else if (k < 0) st = k;
        else end_line(f);
    }
    inl_ndjson_close(r);
    inl_input_close(in);
    return st;
}

/* ---- chunks across the file ---------------------------------------------------------- */

static uint64_t next_random(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* Samples the file past the head: where the head stopped, the middle, the
 * end and a few offsets drawn with a fixed seed (the same file always
 * gives the same schema). A rest shorter than a chunk is read whole. */
static int infer_chunks(infer *f, input_reader *in, const null_set *nulls)
{
    const uint64_t size = inl_input_size(in), from = f->head_end;
    if (f->whole || size <= from || !f->n) return 0;
    const size_t chunk = INFER_CHUNK_BYTES;
    uint64_t offs[3 + INFER_RANDOM_CHUNKS];
    size_t k = 0;
    offs[k++] = from;
    if (size - from > chunk) {
        const uint64_t last = size - chunk, span = last - from;
        offs[k++] = from + span / 2;
        offs[k++] = last;
        uint64_t seed = 0x9E3779B97F4A7C15ULL;
        for (int i = 0; i < INFER_RANDOM_CHUNKS; i++) offs[k++] = from + 1 + next_random(&seed) % span;
    }
    uint8_t *bytes = inl_mem_alloc(&f->alloc, chunk);
    if (!bytes) return INLAY_ERR_NOMEM;
    int st = 0;
    for (size_t i = 0; i < k && !st; i++) {
        const ptrdiff_t n = inl_input_pread(in, offs[i], bytes, chunk);
        if (n <= 0) continue;
        const bool at_start = offs[i] == from, at_end = offs[i] + (uint64_t)n >= size;
        if (f->d->format == INLAY_FORMAT_NDJSON) {
            st = json_chunk(f, bytes, (size_t)n, at_start, at_end);
            continue;
        }
        size_t a, b;
        if (inl_sniff_resync(bytes, (size_t)n, at_start, at_end, f->d, f->n, &a, &b))
            st = csv_chunk(f, bytes + a, b - a, nulls);
    }
    inl_mem_free(&f->alloc, bytes, chunk);
    return st;
}

/* ---- the schema ---------------------------------------------------------------------- */

static inlay_type type_of(const icol *c, bool narrow)
{
    if (c->json) return c->quoted ? inlay_type_binary() : inlay_type_json();
    switch (c->kind) {
    case TEXTVAL_KIND_INT:
        if (c->big) return c->negative ? inlay_type_string() : inlay_type_int(64, false);
        if (!narrow) return inlay_type_int(64, true);
        if (c->min >= INT8_MIN && c->max <= INT8_MAX) return inlay_type_int(8, true);
        if (c->min >= INT16_MIN && c->max <= INT16_MAX) return inlay_type_int(16, true);
        if (c->min >= INT32_MIN && c->max <= INT32_MAX) return inlay_type_int(32, true);
        return inlay_type_int(64, true);
    case TEXTVAL_KIND_DOUBLE: return inlay_type_double();
    case TEXTVAL_KIND_BOOL: return inlay_type_boolean();
    case TEXTVAL_KIND_DATE: return inlay_type_date();
    case TEXTVAL_KIND_TIMESTAMP:
        if (c->us_overflow) return inlay_type_string();
        return inlay_type_timestamp(c->frac > 6 && !c->ns_overflow ? INLAY_NANOS : INLAY_MICROS, c->all_offsets);
    case TEXTVAL_KIND_TIME: return inlay_type_time(c->frac > 6 ? INLAY_NANOS : INLAY_MICROS, false);
    case IK_JSON: return inlay_type_json();
    default:   /* strings, and columns with nothing but nulls */
        return c->not_utf8 ? inlay_type_binary() : inlay_type_string();
    }
}

/* options.types: each names a column of the input and a type. */
static int apply_types(infer *f, const inlay_source_options *o)
{
    if (o->type_count && !o->types) {
        snprintf(f->err, f->errcap, "types: no array given");
        return INLAY_ERR_ARGUMENT;
    }
    for (size_t i = 0; i < o->type_count; i++) {
        const inlay_column_type *t = &o->types[i];
        if (!t->column || !t->type) {
            snprintf(f->err, f->errcap, "types: entry %zu has no column or no type", i + 1);
            return INLAY_ERR_ARGUMENT;
        }
        const int ci = find_col(f, t->column, strlen(t->column));
        if (ci < 0) {
            snprintf(f->err, f->errcap, "types: %s has no column '%s'", f->label, t->column);
            return INLAY_ERR_ARGUMENT;
        }
        if (!inlay_type_parse(t->type, strlen(t->type), &f->cols[ci].type)) {
            snprintf(f->err, f->errcap, "types: column '%s': unknown type '%s'", t->column, t->type);
            return INLAY_ERR_ARGUMENT;
        }
        f->cols[ci].given = true;
    }
    return 0;
}

static int build_schema(infer *f, const inlay_source_options *o, inlay_schema **out)
{
    char *err = f->err;
    const size_t errcap = f->errcap;
    if (f->n == 0) {
        snprintf(err, errcap, "%s: no columns found", f->label);
        return INLAY_ERR_SCHEMA;
    }
    INL_FORWARD(apply_types(f, o));
    inlay_schema *s = inlay_schema_create(&f->alloc);
    if (!s) return inl_err_format(err, errcap, INLAY_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < f->n; i++) {
        const icol *c = &f->cols[i];
        /* a type given by hand is a guess about values not sampled: nulls among them too */
        const bool opt = c->given || c->nulls || c->kind == IK_NONE;
        const int r = inlay_schema_add(s, 0, c->name, opt ? INLAY_OPTIONAL : INLAY_REQUIRED,
                                       c->given ? c->type : type_of(c, o->narrow_ints), NULL);
        if (r < 0) {
            snprintf(err, errcap, "%s", inlay_schema_errmsg(s));
            inlay_schema_free(s);
            return r;
        }
    }
    *out = s;
    return 0;
}

/* The inference over an open input; `name` gives the extension and names
 * the input in messages. */
static int infer_input(inlay_schema **out, input_reader *in, const char *name, const inlay_source_options *o,
                       size_t sample_rows, char *err, size_t errcap)
{
    infer f;
    memset(&f, 0, sizeof f);
    f.alloc = inl_mem_or_default(&o->alloc);
    f.err = err;
    f.errcap = errcap;
    f.label = name;
    inlay_source_dialect d;
    memset(&d, 0, sizeof d);
    f.d = &d;
    const size_t rows = sample_rows ? sample_rows : 10000;
    f.limit = rows;
    null_set nulls;
    memset(&nulls, 0, sizeof nulls);
    int st = inl_sniff_input(in, name, o, NULL, 0, &d, &f.alloc, err, errcap);
    if (!st && d.format == INLAY_FORMAT_CSV) {
        st = inl_null_set_init(&nulls, o, d.quote, &f.alloc);
        if (st == INLAY_ERR_ARGUMENT) snprintf(err, errcap, "a null marker is NULL");
    }
    if (!st) st = d.format == INLAY_FORMAT_NDJSON ? infer_json(&f, in, rows) : infer_csv(&f, in, o, &nulls, rows);
    if (!st) {
        f.limit = UINT64_MAX;   /* every line of a chunk counts */
        st = infer_chunks(&f, in, &nulls);
    }
    if (st == INLAY_ERR_NOMEM && !err[0]) snprintf(err, errcap, "out of memory");
    inlay_schema *s = NULL;
    if (!st) st = build_schema(&f, o, &s);
    inl_null_set_free(&nulls, &f.alloc);
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
    INL_FORWARD(inl_input_open_after(&in, path, o->prefix, o->prefix_len, &alloc, err, errcap));
    const int st = infer_input(out, in, inl_input_name(in), o, sample_rows, err, errcap);
    inl_input_close(in);
    return st;
}

/* The text of a buffer that may be compressed and cut short: decompressed
 * into *text (the allocator's, *cap bytes) unless it is plain, up to
 * INFER_TEXT_CAP; *whole turns false when that cap cut it. */
static int buffer_text(const uint8_t *p, size_t len, bool *whole, const inlay_allocator *a, const uint8_t **text,
                       size_t *tlen, uint8_t **own, size_t *cap, char *err, size_t errcap)
{
    input_membuf m = { p, len, 0 };
    input_reader *in;
    INL_FORWARD(inl_input_open_fn(&in, inl_input_membuf_read, &m, INPUT_AUTO, a, err, errcap));
    if (!*whole) inl_input_allow_cut(in);
    *text = p;
    *tlen = len;
    if (inl_input_compression(in) == INPUT_PLAIN) {
        inl_input_close(in);
        return 0;
    }
    buf b = { NULL, 0, 0, 0 };
    int st = 0;
    for (;;) {
        if (b.len == INFER_TEXT_CAP) {
            *whole = false;
            break;
        }
        if (inl_buf_grow(&b, a, b.len + (1 << 20))) {   /* grown: a short input maps no more than it reads */
            st = inl_err_format(err, errcap, INLAY_ERR_NOMEM, "out of memory");
            break;
        }
        size_t room = b.cap - b.len;
        if (room > INFER_TEXT_CAP - b.len) room = INFER_TEXT_CAP - b.len;
        const ptrdiff_t n = inl_input_read(in, b.data + b.len, room);
        if (n < 0) {
            st = inl_err_format(err, errcap, INLAY_ERR_IO, "%s", inl_input_errmsg(in));
            break;
        }
        if (n == 0) break;
        b.len += (size_t)n;
    }
    inl_input_close(in);
    if (st) {
        inl_buf_free(&b, a);
        return st;
    }
    *own = b.data;
    *cap = b.cap;
    *text = b.data;
    *tlen = b.len;
    return 0;
}

int inlay_source_infer_buffer(inlay_schema **out, const void *data, size_t len, bool whole, const char *name,
                              const inlay_source_options *o, size_t sample_rows, char *err, size_t errcap)
{
    char dummy[1];
    inlay_source_options dflt;
    INL_FORWARD(check_args(out, &o, &dflt, &err, &errcap, dummy));
    if (!data && len) return INLAY_ERR_ARGUMENT;
    const inlay_allocator alloc = inl_mem_or_default(&o->alloc);
    const uint8_t *p;
    size_t keep, cap = 0;
    uint8_t *own = NULL;
    INL_FORWARD(buffer_text(data ? data : (const void *)"", len, &whole, &alloc, &p, &keep, &own, &cap, err, errcap));
    /* up to the last line end: a record cut by the end of the sample is not one */
    if (!whole) {
        size_t k = keep;
        while (k && p[k - 1] != '\n') k--;
        if (k) keep = k;
    }
    input_membuf m = { p, keep, 0 };
    input_reader *in;
    int st = inl_input_open_fn(&in, inl_input_membuf_read, &m, INPUT_PLAIN, &alloc, err, errcap);
    if (!st) {
        st = infer_input(out, in, name ? name : "<input>", o, sample_rows, err, errcap);
        inl_input_close(in);
    }
    inl_mem_free(&alloc, own, cap);
    return st;
}
