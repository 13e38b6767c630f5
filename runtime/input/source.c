/*
 * source.c — CSV and NDJSON sources: text records parsed straight into
 * typed column batches shaped for inlay_writer_append_columns (inlay.h).
 *
 * A source owns an input (input.c), one tokenizer (csv.c or ndjson.c) and
 * one scol per schema column: dense typed values (a null takes no slot),
 * definition levels when the column is optional, and an arena holding the
 * bytes of byte-array values. While a batch fills, a byte-array value keeps
 * its arena offset in place of a pointer (the arena may move as it grows);
 * the pointers are set once the batch is complete.
 *
 * A record is converted field by field (textval.c). Each column takes at
 * most one value per record, so a record that fails is undone by dropping
 * the last value of the columns it already reached; then it either ends the
 * source (on_error = fail) or is counted, written to the reject file and
 * skipped. Every buffer is reused from batch to batch: after the first
 * batch a source allocates nothing unless a longer value comes along.
 *
 * At open, what the options leave open (format, CSV dialect) is decided by
 * sniff.c from the head of the input, which it puts back for the
 * tokenizer. The reject file is opened last, and only once it is known not
 * to be the input: truncating it would destroy what is being read.
 *
 * The column buffers come in two sets. With threads = 1 the caller's
 * thread fills one and hands it out. With threads = 2 a thread of the
 * source's own fills the next set while the caller works on the one it was
 * given (set states FREE -> READY -> IN_USE -> FREE, under one mutex), so
 * parsing overlaps encoding; a gzip or zstd file is then also decoded on a
 * thread of the input's (inl_input_readahead). The parsing side owns everything it touches
 * (tokenizer, input, counters, err); the caller only reads the published
 * result of a set, with its counters, under the mutex.
 *
 * What a caller sees follows the sets it was handed, not the parsing: a
 * set keeps the reject lines of its skipped records and the counters as of
 * its end, and inlay_source_next writes those lines and publishes those
 * counters when it hands the set out. So a caller that stops early finds
 * the same reject file and counters with threads = 1 or 2. Its error is
 * `shown`, copied from err only when the source fails: err also holds the
 * reason of a record that was skipped, which is no failure of the source.
 */
#define _POSIX_C_SOURCE 200809L
#include "source.h"
#include "sniff.h"
#include "schema.h"
#include "textval.h"
#include "input.h"
#include "csv.h"
#include "ndjson.h"
#include "thread.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

typedef enum skind {
    SK_BOOL, SK_INT32, SK_INT64, SK_FLOAT, SK_DOUBLE, SK_FLOAT16,
    SK_BYTES, SK_FIXED, SK_UUID,
    SK_DATE, SK_TIME32, SK_TIME64, SK_TIMESTAMP,
    SK_DEC32, SK_DEC64, SK_DECFIXED,
} skind;

typedef struct scol {
    const char *name;
    skind kind;
    inlay_type type;
    bool optional;
    bool utf8;            /* STRING, ENUM, JSON */
    bool json;            /* JSON: NDJSON objects and arrays are kept as text */
    bool typed;           /* its type was given (options.types), not inferred: no advice */
    size_t esize;         /* bytes per entry of values */
    int field;            /* CSV: field index in a record; NDJSON: key index; -1: not in the input */
    char type_name[32];
    buf values;
    buf def;              /* int16 per row, optional columns */
    buf arena;            /* byte-array values */
    size_t count;         /* values in this batch */
} scol;

enum { SET_FREE, SET_READY, SET_IN_USE };

/* What filling a set gave. */
typedef struct fill_result {
    int status;
    size_t rows;
    bool end;                 /* the input is exhausted after these rows */
    inlay_source_stats stats; /* the counters as of the end of the set */
} fill_result;

struct inlay_source {
    inlay_allocator alloc;
    inlay_schema *schema;     /* own finalized copy */
    int ncols;
    scol *cols;               /* the set being filled */
    inlay_column_batch *batches;
    scol *sets[2];
    inlay_column_batch *bsets[2];
    const inlay_column_batch *out;   /* the batch handed out last */
    uint64_t *lines[2];       /* per set: the input line each row's record starts on */
    const uint64_t *out_lines;
    /* threads = 2 */
    bool threaded, worker_running;
    atomic_bool stop;         /* set under mu; also read without it, between records */
    pthread_t worker;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int state[2];
    fill_result result[2];
    int fill_set, take_set, in_use;
    inlay_source_stats pub;   /* the counters as of the last batch handed out (caller's side) */
    inlay_source_format format;
    size_t batch_rows;
    inlay_on_error on_error;
    input_reader *in;
    inlay_source_dialect dialect;
    csv_reader *csv;
    ndjson_reader *json;
    ndjson_value *jvals;      /* one per column */
    size_t csv_fields;        /* fields a record must have; 0 = not known yet */
    null_set nulls;           /* CSV null markers */
    int reject_fd;
    char *reject_path;
    buf rejects[2];           /* per set: the reject lines of its skipped records */
    buf *reject_out;          /* those of the set being filled */
    size_t rows;              /* in the current batch */
    bool inferred;            /* the schema came from a sample: say how to fix a value that does not fit */
    char suggest[40];         /* the type the last failing value would need, for that advice */
    inlay_source_stats stats;
    int status;               /* sticky failure */
    bool done;
    char name[256];           /* input name, for messages */
    inl_err err;              /* the parsing side's: also a skipped record's reason */
    inl_err shown;            /* the caller's: the failure of the source, if any */
};

/* ---- errors ------------------------------------------------------------------ */

/* Failures are recorded in s->err; the caller of the public function makes
 * the status sticky and copies the failure to s->shown (the parsing thread
 * must not touch s->status or s->shown). */

/* `"text"` for a message: at most 40 bytes, with the rest elided. */
static void quote_text(char *out, size_t cap, const char *p, size_t len)
{
    const size_t keep = len > 40 ? 40 : len;
    snprintf(out, cap, "\"%.*s%s\"", (int)keep, p, len > keep ? "..." : "");
}

/* ---- columns -------------------------------------------------------------- */

/* How a field's text becomes a value of the column: the parser to call. */
static int kind_of(const inlay_type *t, skind *k)
{
    switch (t->logical) {
    case INLAY_LOGICAL_DATE: *k = SK_DATE; return 0;
    case INLAY_LOGICAL_TIME: *k = t->physical == INLAY_INT32 ? SK_TIME32 : SK_TIME64; return 0;
    case INLAY_LOGICAL_TIMESTAMP: *k = SK_TIMESTAMP; return 0;
    case INLAY_LOGICAL_DECIMAL:
        if (t->physical == INLAY_INT32) { *k = SK_DEC32; return 0; }
        if (t->physical == INLAY_INT64) { *k = SK_DEC64; return 0; }
        if (t->physical == INLAY_BYTE_ARRAY || t->type_length > 32) return -1;
        *k = SK_DECFIXED;
        return 0;
    case INLAY_LOGICAL_UUID: *k = SK_UUID; return 0;
    case INLAY_LOGICAL_FLOAT16: *k = SK_FLOAT16; return 0;
    default: break;
    }
    switch (t->physical) {
    case INLAY_BOOLEAN: *k = SK_BOOL; return 0;
    case INLAY_INT32: *k = SK_INT32; return 0;
    case INLAY_INT64: *k = SK_INT64; return 0;
    case INLAY_FLOAT: *k = SK_FLOAT; return 0;
    case INLAY_DOUBLE: *k = SK_DOUBLE; return 0;
    case INLAY_BYTE_ARRAY: *k = SK_BYTES; return 0;
    case INLAY_FIXED_LEN_BYTE_ARRAY: *k = SK_FIXED; return 0;
    }
    return -1;
}

static bool is_bytes_kind(skind k)
{
    return k == SK_BYTES || k == SK_FIXED || k == SK_UUID || k == SK_DECFIXED || k == SK_FLOAT16;
}

/* Appends a byte-array value; its offset stands in for the pointer until
 * the batch is complete. */
static int put_bytes(inlay_source *s, scol *c, const void *p, size_t len)
{
    if (inl_buf_reserve(&c->arena, &s->alloc, len)) return INLAY_ERR_NOMEM;
    const size_t off = c->arena.len;
    if (len) memcpy(c->arena.data + off, p, len);
    c->arena.len += len;
    inlay_bytes *b = (inlay_bytes *)c->values.data + c->count;
    b->data = (const void *)(uintptr_t)off;
    b->len = len;
    return 0;
}

/* Drops the value the current record gave column c, if any. */
static void undo_value(scol *c, size_t row)
{
    const bool had = c->optional ? ((int16_t *)c->def.data)[row] != 0 : true;
    if (!had || c->count == 0) return;
    c->count--;
    if (is_bytes_kind(c->kind)) c->arena.len = (size_t)(uintptr_t)((inlay_bytes *)c->values.data)[c->count].data;
}

/* ---- one value ---------------------------------------------------------------- */

static bool is_blank(unsigned char ch) { return ch == ' ' || ch == '\t'; }

/* The type a value that column c could not take would need, for the advice
 * given when the schema was inferred: the next type up the inference's
 * lattice that holds it, else string. */
static void suggest_type(inlay_source *s, const scol *c, const char *p, size_t len)
{
    if (!s->inferred || c->typed) return;
    while (len && is_blank((unsigned char)p[0])) { p++; len--; }
    while (len && is_blank((unsigned char)p[len - 1])) len--;
    textval_class info;
    memset(&info, 0, sizeof info);
    const textval_kind k = inl_textval_classify(p, len, &info);
    const char *t = "string";
    if (c->kind == SK_INT32 || c->kind == SK_INT64) {
        if (k == TEXTVAL_KIND_INT) t = info.big ? "uint64" : "int64";
        else if (k == TEXTVAL_KIND_DOUBLE) t = "double";
    } else if (c->kind == SK_DATE && k == TEXTVAL_KIND_TIMESTAMP) {
        t = "timestamp(us)";
    } else if (c->kind == SK_BYTES && c->utf8) {
        t = "binary";
    }
    snprintf(s->suggest, sizeof s->suggest, "%s", t);
}

/* Converts text into slot c->count. Returns 0, INLAY_ERR_VALUE with the
 * reason in s->err (no location yet), or INLAY_ERR_NOMEM. */
static int put_text(inlay_source *s, scol *c, const char *p, size_t len)
{
    /* Numbers, dates and flags may carry spaces around them; text may not lose any. */
    if (!is_bytes_kind(c->kind) || c->kind == SK_UUID || c->kind == SK_DECFIXED || c->kind == SK_FLOAT16) {
        while (len && is_blank((unsigned char)p[0])) { p++; len--; }
        while (len && is_blank((unsigned char)p[len - 1])) len--;
    }
    uint8_t *slot = c->values.data + c->count * c->esize;
    int r = TEXTVAL_OK;
    switch (c->kind) {
    case SK_BOOL: {
        bool v = false;
        r = inl_textval_bool(p, len, &v);
        *(bool *)slot = v;
        break;
    }
    case SK_INT32: case SK_INT64: {
        int64_t v = 0;
        const bool has_int = c->type.logical == INLAY_LOGICAL_INT;
        const int bw = has_int ? c->type.bit_width : c->kind == SK_INT32 ? 32 : 64;
        r = inl_textval_int(p, len, bw, has_int ? c->type.is_signed : true, &v);
        if (c->kind == SK_INT32) *(int32_t *)slot = (int32_t)(uint32_t)(uint64_t)v;
        else *(int64_t *)slot = v;
        break;
    }
    case SK_FLOAT: r = inl_textval_float(p, len, (float *)slot); break;
    case SK_DOUBLE: r = inl_textval_double(p, len, (double *)slot); break;
    case SK_FLOAT16: {
        double d = 0;
        r = inl_textval_double(p, len, &d);
        if (r == TEXTVAL_OK) {
            const uint16_t h = inlay_float16_bits(d);
            const uint8_t le[2] = { (uint8_t)h, (uint8_t)(h >> 8) };
            return put_bytes(s, c, le, 2);
        }
        break;
    }
    case SK_BYTES:
        if (c->utf8 && !inlay_utf8_valid(p, len)) {
            suggest_type(s, c, p, len);
            inl_err_set(&s->err, INLAY_ERR_VALUE, "invalid UTF-8 in a %s column", c->type_name);
            return INLAY_ERR_VALUE;
        }
        return put_bytes(s, c, p, len);
    case SK_FIXED:
        if (len != (size_t)c->type.type_length) {
            inl_err_set(&s->err, INLAY_ERR_VALUE, "expected %d bytes, got %zu", (int)c->type.type_length, len);
            return INLAY_ERR_VALUE;
        }
        return put_bytes(s, c, p, len);
    case SK_UUID: {
        uint8_t u[16];
        if (!inlay_uuid_parse(p, len, u)) { r = TEXTVAL_SYNTAX; break; }
        return put_bytes(s, c, u, 16);
    }
    case SK_DATE: {
        int32_t d = 0;
        r = inl_textval_date(p, len, &d);
        if (r == TEXTVAL_SYNTAX) {   /* days since the epoch */
            int64_t v = 0;
            r = inl_textval_int(p, len, 32, true, &v);
            d = (int32_t)v;
        }
        *(int32_t *)slot = d;
        break;
    }
    case SK_TIME32: case SK_TIME64: {
        int64_t v = 0;
        r = inl_textval_time(p, len, c->type.unit, &v);
        if (c->kind == SK_TIME32) *(int32_t *)slot = (int32_t)v;
        else *(int64_t *)slot = v;
        break;
    }
    case SK_TIMESTAMP: {
        int64_t v = 0;
        bool offset = false;
        r = inl_textval_timestamp(p, len, c->type.unit, &v, &offset);
        if (r == TEXTVAL_SYNTAX) r = inl_textval_int(p, len, 64, true, &v);   /* epoch, in the column's unit */
        *(int64_t *)slot = v;
        break;
    }
    case SK_DEC32: case SK_DEC64: {
        int64_t lo = 0, hi = 0;
        r = inl_textval_decimal(p, len, c->type.precision, c->type.scale, &lo, &hi);
        if (r != TEXTVAL_OK) break;
        if (c->kind == SK_DEC32) *(int32_t *)slot = (int32_t)lo;
        else *(int64_t *)slot = lo;
        break;
    }
    case SK_DECFIXED: {
        uint8_t be[32];   /* big-endian two's complement, as the column stores it */
        const size_t w = (size_t)c->type.type_length;
        r = inl_textval_decimal_bytes(p, len, c->type.precision, c->type.scale, false, be, w);
        if (r == TEXTVAL_SCALE) r = TEXTVAL_RANGE;
        if (r != TEXTVAL_OK) break;
        return put_bytes(s, c, be, w);
    }
    }
    if (r == TEXTVAL_OK) return 0;
    suggest_type(s, c, p, len);
    char q[64];
    quote_text(q, sizeof q, p, len);
    if (r == TEXTVAL_RANGE)
        inl_err_set(&s->err, INLAY_ERR_VALUE, "%s is out of range for %s", q, c->type_name);
    else
        inl_err_set(&s->err, INLAY_ERR_VALUE, "cannot parse %s as %s", q, c->type_name);
    return INLAY_ERR_VALUE;
}

/* ---- records --------------------------------------------------------------------- */

static int put_null(inlay_source *s, scol *c)
{
    if (!c->optional) {
        /* a column given a type by --types is optional */
        if (s->inferred) snprintf(s->suggest, sizeof s->suggest, "%s", c->type_name);
        inl_err_set(&s->err, INLAY_ERR_VALUE, "null in a required column");
        return INLAY_ERR_VALUE;
    }
    ((int16_t *)c->def.data)[s->rows] = 0;
    return 0;
}

static int put_present(inlay_source *s, scol *c, const char *p, size_t len)
{
    INL_FORWARD(put_text(s, c, p, len));
    if (c->optional) ((int16_t *)c->def.data)[s->rows] = 1;
    c->count++;
    return 0;
}

/* Converts one CSV record into row s->rows; col_at receives the column at
 * fault. */
static int csv_record(inlay_source *s, const csv_field *f, size_t nf, int *col_at)
{
    if (nf != s->csv_fields) {
        *col_at = -1;
        inl_err_set(&s->err, INLAY_ERR_VALUE, "expected %zu fields, got %zu", s->csv_fields, nf);
        return INLAY_ERR_VALUE;
    }
    for (int i = 0; i < s->ncols; i++) {
        scol *c = &s->cols[i];
        *col_at = i;
        int st;
        if (c->field < 0 || inl_null_set_match(&s->nulls, &f[c->field])) st = put_null(s, c);
        else st = put_present(s, c, f[c->field].data, f[c->field].len);
        if (st) return st;
    }
    return 0;
}

static int json_record(inlay_source *s, int *col_at)
{
    for (int i = 0; i < s->ncols; i++) {
        scol *c = &s->cols[i];
        const ndjson_value *v = &s->jvals[i];
        *col_at = i;
        int st;
        switch (v->kind) {
        case NDJSON_ABSENT: case NDJSON_NULL:
            st = put_null(s, c);
            break;
        case NDJSON_TRUE: case NDJSON_FALSE:
            if (c->kind == SK_BOOL) {
                ((bool *)c->values.data)[c->count] = v->kind == NDJSON_TRUE;
                if (c->optional) ((int16_t *)c->def.data)[s->rows] = 1;
                c->count++;
                st = 0;
            } else if (c->json || c->kind == SK_BYTES) {
                st = put_present(s, c, v->data, v->len);
            } else {
                inl_err_set(&s->err, INLAY_ERR_VALUE, "expected %s, got %s", c->type_name, v->kind == NDJSON_TRUE ? "true" : "false");
                st = INLAY_ERR_VALUE;
            }
            break;
        case NDJSON_OBJECT: case NDJSON_ARRAY:
            if (c->json || (c->kind == SK_BYTES && !c->utf8)) {
                st = put_present(s, c, v->data, v->len);
            } else {
                inl_err_set(&s->err, INLAY_ERR_VALUE, "expected %s, got an %s", c->type_name,
                         v->kind == NDJSON_OBJECT ? "object" : "array");
                st = INLAY_ERR_VALUE;
            }
            break;
        case NDJSON_STRING:
            if (c->json) {   /* a JSON column keeps the value as JSON text: a string needs its quotes back */
                st = INLAY_ERR_VALUE;
                inl_err_set(&s->err, INLAY_ERR_VALUE, "a JSON column takes objects, arrays, numbers and literals; "
                                                "got a string");
                break;
            }
            /* numbers, dates and the like may come quoted */
            st = put_present(s, c, v->data, v->len);
            break;
        default:   /* NDJSON_NUMBER */
            st = put_present(s, c, v->data, v->len);
            break;
        }
        if (st) return st;
    }
    return 0;
}

/* ---- rejects ----------------------------------------------------------------------- */

/* Writes the reject lines a set kept, as the set is handed out; a failure
 * goes to `e` (s->shown on the caller's thread, s->err on the parsing side). */
static int reject_flush(inlay_source *s, buf *lines, inl_err *e)
{
    const uint8_t *b = lines->data;
    size_t len = lines->len;
    lines->len = 0;
    while (len) {
        ssize_t n = write(s->reject_fd, b, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            return inl_err_set(e, INLAY_ERR_IO, "cannot write the reject file '%s': %s", s->reject_path,
                               strerror(errno));
        }
        b += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Past this, a set's reject lines are written before the set is handed
 * out if it is sure to be: a run of bad records (a wrong schema) must not
 * pile up in memory. */
#define REJECT_HOLD ((size_t)1 << 20)

/* The set being filled will be handed out whatever happens: its caller is
 * this thread (threads = 1) or waits for it in inlay_source_next (it gave
 * back its last set, and this is the one it takes next). Its reject lines
 * can then be written now, by the parsing side (the caller only writes the
 * reject file once it has the set). */
static int reject_early(inlay_source *s)
{
    if (s->threaded) {
        pthread_mutex_lock(&s->mu);
        const bool awaited = s->in_use < 0 && s->take_set == s->fill_set;
        pthread_mutex_unlock(&s->mu);
        if (!awaited) return 0;
    }
    return reject_flush(s, s->reject_out, &s->err);
}

/* One line: "<where>: <reason>\t<raw record>", the raw record with \\, tab,
 * CR and LF escaped so that a record spanning lines stays on one. Kept
 * with the set being filled until the set is handed out: a set the caller
 * never takes leaves nothing in the reject file. */
static int reject_record(inlay_source *s, const char *where_reason, const char *raw, size_t raw_len)
{
    if (s->reject_fd < 0) return 0;
    buf *b = s->reject_out;
    const size_t head = strlen(where_reason);
    if (inl_buf_reserve(b, &s->alloc, head + 2 + 2 * raw_len)) return inl_err_set(&s->err, INLAY_ERR_NOMEM, "out of memory");
    memcpy(b->data + b->len, where_reason, head);
    b->len += head;
    b->data[b->len++] = '\t';
    for (size_t i = 0; i < raw_len; i++) {
        const char ch = raw[i];
        const char esc = ch == '\\' ? '\\' : ch == '\t' ? 't' : ch == '\n' ? 'n' : ch == '\r' ? 'r' : 0;
        if (esc) {
            b->data[b->len++] = '\\';
            b->data[b->len++] = (uint8_t)esc;
        } else {
            b->data[b->len++] = (uint8_t)ch;
        }
    }
    b->data[b->len++] = '\n';
    return b->len < REJECT_HOLD ? 0 : reject_early(s);
}

/* A record that did not convert (or did not tokenize): undo what it left,
 * then fail or skip it. `reason` is the text after the location (it may be
 * s->err: the message is built aside first). */
static int bad_record(inlay_source *s, uint64_t line, int col_at, const char *reason)
{
    size_t raw_len;
    const char *raw = s->csv ? inl_csv_raw_record(s->csv, &raw_len) : inl_ndjson_raw_line(s->json, &raw_len);
    for (int i = 0; i < col_at && i < s->ncols; i++) undo_value(&s->cols[i], s->rows);
    char msg[sizeof s->err.msg];
    if (col_at >= 0 && col_at < s->ncols && s->suggest[0])
        snprintf(msg, sizeof msg,
                 "%s:%llu: column '%s': %s; its type was inferred from a sample of the input "
                 "(use --infer-rows N, --schema FILE or --types %s=%s)",
                 s->name, (unsigned long long)line, s->cols[col_at].name, reason, s->cols[col_at].name, s->suggest);
    else if (col_at >= 0 && col_at < s->ncols)
        snprintf(msg, sizeof msg, "%s:%llu: column '%s': %s", s->name, (unsigned long long)line,
                 s->cols[col_at].name, reason);
    else
        snprintf(msg, sizeof msg, "%s:%llu: %s", s->name, (unsigned long long)line, reason);
    s->suggest[0] = 0;
    s->stats.records++;
    if (s->on_error == INLAY_ON_ERROR_FAIL) {
        inl_err_set(&s->err, INLAY_ERR_VALUE, "%s", msg);
        return INLAY_ERR_VALUE;
    }
    s->stats.skipped++;
    return reject_record(s, msg, raw, raw_len);
}

/* ---- batches -------------------------------------------------------------------------- */

static int reserve_rows(inlay_source *s)
{
    const size_t n = s->batch_rows;
    for (int i = 0; i < s->ncols; i++) {
        scol *c = &s->cols[i];
        if (c->values.cap < n * c->esize && inl_buf_grow(&c->values, &s->alloc, n * c->esize)) return INLAY_ERR_NOMEM;
        if (c->optional && c->def.cap < n * 2 && inl_buf_grow(&c->def, &s->alloc, n * 2)) return INLAY_ERR_NOMEM;
    }
    return 0;
}

static void finish_batch(inlay_source *s)
{
    for (int i = 0; i < s->ncols; i++) {
        scol *c = &s->cols[i];
        if (is_bytes_kind(c->kind)) {
            inlay_bytes *b = (inlay_bytes *)c->values.data;
            for (size_t k = 0; k < c->count; k++)   /* no arena: every value is empty */
                b[k].data = c->arena.data ? c->arena.data + (size_t)(uintptr_t)b[k].data : NULL;
        }
        inlay_column_batch *bt = &s->batches[i];
        bt->column = i;
        bt->values = c->values.data;
        bt->count = s->rows;
        bt->levels.def = c->optional ? (const int16_t *)c->def.data : NULL;
        bt->levels.rep = NULL;
        bt->levels.validity = NULL;
    }
}

/* Whether inlay_source_free is waiting for the parsing thread: it then
 * stops at the next record, as if the input ended (nobody takes the set).
 * Read once a record, so without the lock; the lock's ordering is not
 * needed to see the flag a moment later. */
static bool stopping(inlay_source *s)
{
    return atomic_load_explicit(&s->stop, memory_order_relaxed);
}

static int next_csv_record(inlay_source *s)
{
    const csv_field *f;
    size_t nf;
    for (;;) {
        if (stopping(s)) return 0;
        int r = inl_csv_next(s->csv, &f, &nf);
        if (r == 0) return 0;
        if (r < 0) {
            const int st = inl_csv_error_status(s->csv);
            if (st != INLAY_ERR_VALUE) return inl_err_set(&s->err, st ? st : INLAY_ERR_IO, "%s", inl_csv_errmsg(s->csv));
            int b = bad_record(s, inl_csv_error_line(s->csv), -1, inl_csv_errmsg(s->csv));
            if (b) return b;
            continue;
        }
        int col_at = -1;
        int st = csv_record(s, f, nf, &col_at);
        if (st == INLAY_ERR_NOMEM) return inl_err_set(&s->err, st, "out of memory");
        if (st) {
            int b = bad_record(s, inl_csv_record_line(s->csv), col_at, s->err.msg);
            if (b) return b;
            continue;
        }
        return 1;
    }
}

/* The tokenizer failed for good. A failed read is told by the input
 * itself when it can say more (the file and the cause: "x.json.gz:
 * truncated gzip data"), as for CSV. */
static int json_fatal(inlay_source *s, int status)
{
    const char *m = status == INLAY_ERR_IO ? inl_input_errmsg(s->in) : NULL;
    if (!m || !m[0]) m = inl_ndjson_errmsg(s->json);
    return inl_err_set(&s->err, status, "%s", m);
}

static int next_json_record(inlay_source *s)
{
    for (;;) {
        if (stopping(s)) return 0;
        int r = inl_ndjson_next(s->json, s->jvals);
        if (r == 0) return 0;
        if (r == -1) {
            int b = bad_record(s, inl_ndjson_error_line(s->json), -1, inl_ndjson_errmsg(s->json));
            if (b) return b;
            continue;
        }
        if (r < 0) return json_fatal(s, r);
        int col_at = -1;
        int st = json_record(s, &col_at);
        if (st == INLAY_ERR_NOMEM) return inl_err_set(&s->err, st, "out of memory");
        if (st) {
            int b = bad_record(s, inl_ndjson_line(s->json), col_at, s->err.msg);
            if (b) return b;
            continue;
        }
        return 1;
    }
}

/* The counters as a caller sees them, taken by the parsing side. */
static void snapshot(const inlay_source *s, inlay_source_stats *st)
{
    *st = s->stats;
    if (s->in) {
        st->bytes_consumed = inl_input_consumed(s->in);
        st->bytes_total = inl_input_size(s->in);
    }
    st->bytes_read = s->csv ? inl_csv_bytes_read(s->csv) : s->json ? inl_ndjson_bytes_read(s->json) : 0;
}

/* The rows of the next batch into set `set` (fill). */
static fill_result fill_rows(inlay_source *s, int set)
{
    fill_result res = { 0, 0, false, { 0 } };
    s->cols = s->sets[set];
    s->batches = s->bsets[set];
    if (!s->lines[set]) s->lines[set] = inl_mem_alloc(&s->alloc, s->batch_rows * sizeof(uint64_t));
    s->reject_out = &s->rejects[set];
    s->reject_out->len = 0;   /* written when the set was handed out */
    if (!s->lines[set] || reserve_rows(s)) {
        res.status = inl_err_set(&s->err, INLAY_ERR_NOMEM, "out of memory");
        return res;
    }
    s->rows = 0;
    for (int i = 0; i < s->ncols; i++) {
        s->cols[i].count = 0;
        s->cols[i].arena.len = 0;
    }
    while (s->rows < s->batch_rows) {
        int r = s->csv ? next_csv_record(s) : next_json_record(s);
        if (r < 0) {
            res.status = r;
            return res;
        }
        if (r == 0) {
            res.end = true;
            break;
        }
        s->lines[set][s->rows] = s->csv ? inl_csv_record_line(s->csv) : inl_ndjson_line(s->json);
        s->rows++;
        s->stats.records++;
        s->stats.rows++;
    }
    finish_batch(s);
    res.rows = s->rows;
    return res;
}

/* Parses the next batch into set `set`, with its reject lines and the
 * counters as of its end. */
static fill_result fill(inlay_source *s, int set)
{
    fill_result res = fill_rows(s, set);
    snapshot(s, &res.stats);
    return res;
}

static void *worker_main(void *arg)
{
    inlay_source *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!stopping(s) && s->state[s->fill_set] != SET_FREE) pthread_cond_wait(&s->cv, &s->mu);
        if (stopping(s)) break;
        const int set = s->fill_set;
        pthread_mutex_unlock(&s->mu);
        fill_result r = fill(s, set);
        pthread_mutex_lock(&s->mu);
        s->result[set] = r;
        s->state[set] = SET_READY;
        s->fill_set ^= 1;
        pthread_cond_broadcast(&s->cv);
        if (r.status || r.end) break;   /* nothing more to parse */
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

int inlay_source_next(inlay_source *s, size_t *rows)
{
    if (!s || !rows) return INLAY_ERR_ARGUMENT;
    *rows = 0;
    if (s->status) return s->status;
    if (s->done) return INLAY_OK;
    fill_result r;
    int set;
    if (!s->threaded) {
        set = s->take_set;
        s->take_set ^= 1;
        r = fill(s, set);
        s->pub = r.stats;
    } else {
        if (!s->worker_running) {
            /* compressed input is decoded on a thread of its own too */
            (void)inl_input_readahead(s->in);   /* out of memory: the parsing thread decodes */
            if (inl_thread_start(&s->worker, worker_main, s) != 0) {
                s->status = inl_err_set(&s->shown, INLAY_ERR_NOMEM, "cannot start the parsing thread");
                return s->status;
            }
            s->worker_running = true;
        }
        pthread_mutex_lock(&s->mu);
        if (s->in_use >= 0) {   /* the caller is done with the last batch */
            s->state[s->in_use] = SET_FREE;
            s->in_use = -1;
            pthread_cond_broadcast(&s->cv);
        }
        set = s->take_set;
        while (s->state[set] != SET_READY) pthread_cond_wait(&s->cv, &s->mu);
        r = s->result[set];
        s->pub = r.stats;
        s->state[set] = SET_IN_USE;
        s->in_use = set;
        s->take_set ^= 1;
        pthread_mutex_unlock(&s->mu);
    }
    /* the rejects first: they were met before whatever ended the set */
    int st = reject_flush(s, &s->rejects[set], &s->shown);
    if (!st && r.status) {
        /* the parsing side has stopped (a failed set is its last): err is
         * no longer written */
        s->shown = s->err;
        st = r.status;
    }
    if (st) {
        s->status = st;
        return st;
    }
    s->done = r.end;
    s->out = s->bsets[set];
    s->out_lines = s->lines[set];
    *rows = r.rows;
    return INLAY_OK;
}

const inlay_column_batch *inlay_source_batch(const inlay_source *s, int *ncolumns)
{
    if (ncolumns) *ncolumns = s ? s->ncols : 0;
    return s ? s->out : NULL;
}

const uint64_t *inlay_source_batch_lines(const inlay_source *s)
{
    return s ? s->out_lines : NULL;
}

void inlay_source_get_stats(const inlay_source *s, inlay_source_stats *st)
{
    memset(st, 0, sizeof *st);
    if (!s) return;
    if (s->threaded) pthread_mutex_lock((pthread_mutex_t *)&s->mu);
    *st = s->pub;
    if (s->threaded) pthread_mutex_unlock((pthread_mutex_t *)&s->mu);
}

const char *inlay_source_errmsg(const inlay_source *s)
{
    return s ? s->shown.msg : "out of memory";
}

int inlay_source_status(const inlay_source *s) { return s ? s->shown.status : INLAY_ERR_NOMEM; }

/* ---- open and free ---------------------------------------------------------------------- */

void inlay_source_options_init(inlay_source_options *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->format = INLAY_FORMAT_AUTO;
    o->batch_rows = INLAY_DEFAULT_BATCH_ROWS;
    o->quote = INLAY_SNIFF;
    o->escape = INLAY_SNIFF;
    o->header = INLAY_SNIFF;
}

void inlay_source_get_dialect(const inlay_source *s, inlay_source_dialect *d)
{
    if (!d) return;
    memset(d, 0, sizeof *d);
    if (s && s->dialect.format != INLAY_FORMAT_AUTO) *d = s->dialect;
}

void inlay_source_free(inlay_source *s)
{
    if (!s) return;
    const inlay_allocator *a = &s->alloc;
    if (s->worker_running) {
        pthread_mutex_lock(&s->mu);
        atomic_store_explicit(&s->stop, true, memory_order_relaxed);
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->worker, NULL);
    }
    if (s->threaded) {
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
    }
    inl_ndjson_close(s->json);
    inl_csv_close(s->csv);
    inl_input_close(s->in);
    if (s->reject_fd >= 0) close(s->reject_fd);
    inl_mem_strfree(a, s->reject_path);
    inl_buf_free(&s->rejects[0], a);
    inl_buf_free(&s->rejects[1], a);
    inl_null_set_free(&s->nulls, a);
    for (int k = 0; k < 2; k++) {
        if (s->sets[k]) {
            for (int i = 0; i < s->ncols; i++) {
                inl_buf_free(&s->sets[k][i].values, a);
                inl_buf_free(&s->sets[k][i].def, a);
                inl_buf_free(&s->sets[k][i].arena, a);
            }
            inl_mem_free(a, s->sets[k], (size_t)s->ncols * sizeof *s->sets[k]);
        }
        inl_mem_free(a, s->bsets[k], (size_t)s->ncols * sizeof *s->bsets[k]);
        inl_mem_free(a, s->lines[k], s->batch_rows * sizeof *s->lines[k]);
    }
    inl_mem_free(a, s->jvals, (size_t)s->ncols * sizeof *s->jvals);
    inlay_schema_free(s->schema);
    inlay_allocator alloc = s->alloc;
    inl_mem_free(&alloc, s, sizeof *s);
}

int inl_null_set_init(null_set *ns, const inlay_source_options *o, char quote, const inlay_allocator *a)
{
    static const char *const dflt[] = { "" };
    const char *const *v = o->null_values ? o->null_values : dflt;
    const size_t n = o->null_values ? o->null_count : 1;
    memset(ns, 0, sizeof *ns);
    if (!n) return 0;
    ns->text = inl_mem_alloc(a, n * sizeof *ns->text);
    ns->len = inl_mem_alloc(a, n * sizeof *ns->len);
    if (!ns->text || !ns->len) {
        inl_mem_free(a, ns->text, n * sizeof *ns->text);
        inl_mem_free(a, ns->len, n * sizeof *ns->len);
        memset(ns, 0, sizeof *ns);
        return INLAY_ERR_NOMEM;
    }
    memset(ns->text, 0, n * sizeof *ns->text);
    ns->count = n;
    const char q2[3] = { quote, quote, 0 };
    for (size_t i = 0; i < n; i++) {
        if (!v[i]) return INLAY_ERR_ARGUMENT;
        ns->text[i] = inl_mem_strdup(a, v[i]);
        if (!ns->text[i]) return INLAY_ERR_NOMEM;
        ns->len[i] = strlen(v[i]);
        if (quote && !strcmp(v[i], q2)) ns->quoted_empty = true;
    }
    return 0;
}

void inl_null_set_free(null_set *ns, const inlay_allocator *a)
{
    const size_t n = ns->count;
    for (size_t i = 0; i < n; i++) inl_mem_strfree(a, ns->text[i]);
    inl_mem_free(a, ns->text, n * sizeof *ns->text);
    inl_mem_free(a, ns->len, n * sizeof *ns->len);
    memset(ns, 0, sizeof *ns);
}

static int setup_columns(inlay_source *s)
{
    const inlay_schema *sc = s->schema;
    s->ncols = sc->num_leaves;
    const size_t n = (size_t)s->ncols;
    for (int k = 0; k < 2; k++) {
        s->sets[k] = inl_mem_alloc(&s->alloc, n * sizeof *s->sets[k]);
        s->bsets[k] = inl_mem_alloc(&s->alloc, n * sizeof *s->bsets[k]);
        if (!s->sets[k] || !s->bsets[k]) {
            inl_mem_free(&s->alloc, s->sets[k], n * sizeof *s->sets[k]);
            inl_mem_free(&s->alloc, s->bsets[k], n * sizeof *s->bsets[k]);
            s->sets[k] = NULL;
            s->bsets[k] = NULL;
            return inl_err_set(&s->err, INLAY_ERR_NOMEM, "out of memory");
        }
        memset(s->sets[k], 0, n * sizeof *s->sets[k]);
        memset(s->bsets[k], 0, n * sizeof *s->bsets[k]);
    }
    s->cols = s->sets[0];
    s->batches = s->bsets[0];
    for (int i = 0; i < s->ncols; i++) {
        const schema_leaf *lf = &sc->leaves[i];
        const schema_node *nd = &sc->nodes[lf->node];
        scol *c = &s->cols[i];
        if (lf->max_rep > 0 || lf->depth > 1)
            return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "column '%s': nested columns are not supported by text sources yet",
                        lf->path);
        c->name = lf->path;
        c->type = nd->type;
        c->optional = nd->rep == INLAY_OPTIONAL;
        c->utf8 = inl_type_is_utf8(&nd->type);
        c->json = nd->type.logical == INLAY_LOGICAL_JSON;
        c->field = -1;
        inl_type_name(&nd->type, c->type_name, sizeof c->type_name);
        c->esize = inl_type_value_size(&nd->type);
        if (kind_of(&nd->type, &c->kind))
            return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "column '%s': %s is not supported by text sources", c->name,
                        c->type_name);
    }
    return 0;
}

/* The header record names the fields; match the schema's columns to them. */
static int csv_header(inlay_source *s)
{
    const csv_field *f;
    size_t nf;
    int r = inl_csv_next(s->csv, &f, &nf);
    if (r < 0) {
        const int st = inl_csv_error_status(s->csv);
        return inl_err_set(&s->err, st == INLAY_ERR_VALUE || !st ? INLAY_ERR_VALUE : st, "%s:%llu: header: %s", s->name,
                    (unsigned long long)inl_csv_error_line(s->csv), inl_csv_errmsg(s->csv));
    }
    if (r == 0) {   /* an empty input: no rows */
        s->done = true;
        return 0;
    }
    s->csv_fields = nf;
    /* the names inference gives the fields (trimmed, made up when empty or repeated) */
    buf nb = { NULL, 0, 0, 0 };
    if (inl_sniff_header_names(f, nf, &nb, &s->alloc)) {
        inl_buf_free(&nb, &s->alloc);
        return inl_err_set(&s->err, INLAY_ERR_NOMEM, "out of memory");
    }
    int st = 0;
    for (int i = 0; i < s->ncols && !st; i++) {
        scol *c = &s->cols[i];
        size_t k = 0;
        for (size_t at = 0; at < nb.len; k++) {
            const char *name = (const char *)nb.data + at;
            if (strcmp(name, c->name) == 0) {
                c->field = (int)k;
                break;
            }
            at += strlen(name) + 1;
        }
        if (c->field < 0 && !c->optional)
            st = inl_err_set(&s->err, INLAY_ERR_SCHEMA, "%s: required column '%s' is not in the header", s->name, c->name);
    }
    inl_buf_free(&nb, &s->alloc);
    return st;
}

static ptrdiff_t read_input(void *ctx, void *dst, size_t cap)
{
    return inl_input_read(ctx, dst, cap);
}

static int open_body(inlay_source *s, const char *path, const inlay_schema *schema,
                     const inlay_source_options *o);

/* Both sets describe the same columns; the second gets the first's
 * description (its buffers are still empty) once the fields are matched. */
static void copy_columns(inlay_source *s)
{
    for (int i = 0; i < s->ncols; i++) s->sets[1][i] = s->sets[0][i];
}

int inlay_source_open(inlay_source **out, const char *path, const inlay_schema *schema,
                      const inlay_source_options *o)
{
    if (!out) return INLAY_ERR_ARGUMENT;
    *out = NULL;
    inlay_source_options dflt;
    if (!o) {
        inlay_source_options_init(&dflt);
        o = &dflt;
    }
    inlay_allocator alloc = inl_mem_or_default(&o->alloc);
    inlay_source *s = inl_mem_alloc(&alloc, sizeof *s);
    if (!s) return INLAY_ERR_NOMEM;
    memset(s, 0, sizeof *s);
    s->alloc = alloc;
    s->reject_fd = -1;
    s->in_use = -1;
    atomic_init(&s->stop, false);
    *out = s;
    int st = open_body(s, path, schema, o);
    if (st) {
        s->shown = s->err;   /* no parsing thread yet */
        s->status = st;
        return st;
    }
    if (s->sets[1]) copy_columns(s);
    s->cols = s->sets[0];
    s->batches = s->bsets[0];
    if (s->threaded) {
        if (pthread_mutex_init(&s->mu, NULL) != 0) {
            s->threaded = false;
        } else if (pthread_cond_init(&s->cv, NULL) != 0) {
            pthread_mutex_destroy(&s->mu);
            s->threaded = false;
        }
    }
    return INLAY_OK;
}

/* Whether st is the file the input is read from. */
static bool is_input(const inlay_source *s, const struct stat *st)
{
    uint64_t dev, ino;
    return inl_input_identity(s->in, &dev, &ino) && (uint64_t)st->st_dev == dev && (uint64_t)st->st_ino == ino;
}

static int reject_is_input(inlay_source *s, const char *path)
{
    return inl_err_set(&s->err, INLAY_ERR_ARGUMENT,
                       "the reject file '%s' is the input %s: bad records would overwrite what is being read", path,
                       s->name);
}

/* The reject file may not be the input (the same device and inode, by
 * whatever path): it is checked by name (open_body does so before reading
 * anything), then on the descriptor, opened without truncation, and only
 * then truncated. */
static int open_reject(inlay_source *s, const inlay_source_options *o)
{
    if (!o->reject_path) return 0;
    struct stat st;
    if (stat(o->reject_path, &st) == 0 && is_input(s, &st)) return reject_is_input(s, o->reject_path);
    if (o->on_error != INLAY_ON_ERROR_SKIP) return 0;
    s->reject_path = inl_mem_strdup(&s->alloc, o->reject_path);
    if (!s->reject_path) return inl_err_set(&s->err, INLAY_ERR_NOMEM, "out of memory");
    int fd;
    do fd = open(o->reject_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return inl_err_set(&s->err, INLAY_ERR_IO, "cannot open the reject file '%s': %s", o->reject_path, strerror(errno));
    if (fstat(fd, &st) != 0) {
        const int e = errno;
        close(fd);
        return inl_err_set(&s->err, INLAY_ERR_IO, "cannot open the reject file '%s': %s", o->reject_path, strerror(e));
    }
    if (is_input(s, &st)) {
        close(fd);
        return reject_is_input(s, o->reject_path);
    }
    if (S_ISREG(st.st_mode) && ftruncate(fd, 0) != 0) {
        const int e = errno;
        close(fd);
        return inl_err_set(&s->err, INLAY_ERR_IO, "cannot truncate the reject file '%s': %s", o->reject_path, strerror(e));
    }
    s->reject_fd = fd;
    return 0;
}

static int open_body(inlay_source *s, const char *path, const inlay_schema *schema,
                     const inlay_source_options *o)
{
    if (o->struct_size != sizeof *o) return inl_err_set(&s->err, INLAY_ERR_ARGUMENT, "inlay_source_options not initialized");
    if (!path || !schema) return inl_err_set(&s->err, INLAY_ERR_ARGUMENT, "no path or no schema");
    snprintf(s->name, sizeof s->name, "%s", strcmp(path, "-") ? path : "<stdin>");
    s->batch_rows = o->batch_rows ? o->batch_rows : INLAY_DEFAULT_BATCH_ROWS;
    if (o->threads < 0 || o->threads > 2) return inl_err_set(&s->err, INLAY_ERR_ARGUMENT, "threads must be 1 or 2");
    s->threaded = o->threads == 2;
    s->on_error = o->on_error;
    s->inferred = o->inferred_schema;
    s->schema = inl_schema_clone(schema, &s->alloc);
    if (!s->schema) return inl_err_set(&s->err, INLAY_ERR_NOMEM, "out of memory");
    int st = inl_schema_finalize(s->schema);
    if (st) return inl_err_set(&s->err, st, "%s", s->schema->err.msg);
    INL_FORWARD(setup_columns(s));
    for (size_t k = 0; o->types && k < o->type_count; k++)
        for (int i = 0; i < s->ncols; i++)
            if (o->types[k].column && strcmp(o->types[k].column, s->cols[i].name) == 0) s->cols[i].typed = true;
    char err[300];
    if ((st = inl_input_open_after(&s->in, path, o->prefix, o->prefix_len, &s->alloc, err, sizeof err)))
        return inl_err_set(&s->err, st, "%s", err);
    /* before anything is read: a reject file that is the input is refused whatever happens next */
    struct stat rs;
    if (o->reject_path && stat(o->reject_path, &rs) == 0 && is_input(s, &rs)) return reject_is_input(s, o->reject_path);
    const char **names = inl_mem_alloc(&s->alloc, (size_t)s->ncols * sizeof *names + 1);
    if (!names) return inl_err_set(&s->err, INLAY_ERR_NOMEM, "out of memory");
    for (int i = 0; i < s->ncols; i++) names[i] = s->cols[i].name;
    st = inl_sniff_input(s->in, path, o, names, (size_t)s->ncols, &s->dialect, &s->alloc, err, sizeof err);
    inl_mem_free(&s->alloc, names, (size_t)s->ncols * sizeof *names + 1);
    if (st) return inl_err_set(&s->err, st, "%s", err);
    s->format = s->dialect.format;
    if ((st = inl_null_set_init(&s->nulls, o, s->dialect.quote, &s->alloc)))
        return inl_err_set(&s->err, st, st == INLAY_ERR_NOMEM ? "out of memory" : "a null marker is NULL");
    if (s->format == INLAY_FORMAT_NDJSON) {
        const char **keys = inl_mem_alloc(&s->alloc, (size_t)s->ncols * sizeof *keys);
        s->jvals = inl_mem_alloc(&s->alloc, (size_t)s->ncols * sizeof *s->jvals);
        if (!keys || !s->jvals) {
            inl_mem_free(&s->alloc, keys, (size_t)s->ncols * sizeof *keys);
            return inl_err_set(&s->err, INLAY_ERR_NOMEM, "out of memory");
        }
        for (int i = 0; i < s->ncols; i++) {
            keys[i] = s->cols[i].name;
            s->cols[i].field = i;
        }
        ndjson_options jo = { .strict = o->strict };
        st = inl_ndjson_open(&s->json, read_input, s->in, keys, (size_t)s->ncols, &jo, &s->alloc, err, sizeof err);
        inl_mem_free(&s->alloc, keys, (size_t)s->ncols * sizeof *keys);
        if (st) return inl_err_set(&s->err, st, "%s", err);
        return open_reject(s, o);
    }
    csv_options co;
    inl_csv_options_init(&co);
    co.delimiter = s->dialect.delimiter;
    co.quote = s->dialect.quote;
    co.escape = s->dialect.escape;
    co.skip_rows = o->skip_rows;
    if ((st = inl_csv_open(&s->csv, s->in, &co, &s->alloc)))
        return inl_err_set(&s->err, st, st == INLAY_ERR_NOMEM ? "out of memory" : "unusable delimiter, quote or escape character");
    if (s->dialect.header) {
        INL_FORWARD(csv_header(s));
    } else {
        s->csv_fields = (size_t)s->ncols;
        for (int i = 0; i < s->ncols; i++) s->cols[i].field = i;
    }
    return open_reject(s, o);
}
