/*
 * fuzz_source.c — the text sources end to end, through the public API of
 * inlay.h only: a CSV or NDJSON source over the input, with a fixed or an
 * inferred schema, every batch appended to a writer on a memory sink, the
 * file closed, everything freed; all of it on an allocator that can refuse
 * the Nth request and a sink that can fail the Nth write.
 *
 * Input: a line of options, then the text (after the first LF; no LF: no
 * text). The option line is flags, then optionally '|' and the columns:
 *
 *   j  NDJSON (default CSV)          a  format AUTO (by content)
 *   i  infer the schema from the text
 *   s  on_error = skip               r  skipped records go to /dev/zero
 *   n  CSV without a header          h  CSV with a header
 *   S  NDJSON strict                 T  threads = 2
 *   z  zstd (default uncompressed)   2  data pages v2
 *   D  a 64-byte dictionary limit    I  narrow_ints (inference)
 *   g  inferred_schema (messages say how to fix the schema)
 *   o  types = { a=int64 } (inference; `a` must be a column of the input)
 *   L  add a list column to a fixed schema (refused: text sources are flat)
 *   d<byte>  delimiter   q<byte>  quote   Q  no quote   e<byte>  escape
 *   b<digit>  batch rows (1 2 3 4 7 16 100 1000 65536; 0 = default)
 *   k<digit>  skip_rows              x<digit> rows sampled for inference
 *   N<digit>  null markers: 0 default, 1 {"", "NA"}, 2 {"\"\""},
 *             3 {"NULL", "\\N", ""}, 4 none at all, 5 a NULL marker
 *   p<digit>  pages of digit+1 rows, row groups of 2 * (digit+1) rows
 *   f<number> refuse allocation number <number>; F<number> and all after it
 *   w<number> fail sink write number <number>
 * What the line leaves open (delimiter, quote, escape, header) is detected
 * from the text, as for any host.
 *
 * Columns: `;`-separated `name=type` (a type name as inlay_type_parse
 * reads it: int8, uint64, string, decimal(10,2), timestamp(us, utc)...),
 * `?` before the name for an optional column. Without any, the schema is
 * `?a=string;?b=int64;?c=double`. Example: "s|id=int32;?ts=timestamp(ms)"
 * then "id,ts\n1,2024-01-01T00:00:00Z\n".
 *
 * The text is the source's input: the `prefix` of a source opened on
 * /dev/null, which is how a host hands a source bytes it holds in memory.
 *
 * What must hold, besides no crash, leak or undefined behaviour:
 *   - every block is given back, with the size it was taken with;
 *   - INLAY_ERR_NOMEM only after a refused allocation, INLAY_ERR_IO only
 *     after a failed write (or a refused allocation in the memory sink);
 *   - with on_error = skip a batch never fails on a bad record;
 *   - options that conflict are the only INLAY_ERR_ARGUMENT; the dialect
 *     a source reports keeps every option given, and the lines of a
 *     batch's rows grow and lie within the text;
 *   - the writer takes every batch the source hands out (the source checks
 *     what the writer checks), and a closed file starts and ends with PAR1
 *     and holds the rows the source delivered, which are its records less
 *     the skipped ones.
 *   - a schema inferred from the whole text reads that text without a bad
 *     value (FUZZ_SOURCE_INFER_CHECK=0 in the environment turns this off).
 */
#include "fuzz.h"

enum { MAX_COLUMNS = 24, MAX_BATCHES = 1 << 16 };

typedef struct options {
    inlay_source_options so;
    bool infer, list, small_dict, zstd, v2, check_infer;
    size_t sample_rows, page_rows;
    unsigned long fail_at, write_fail;
    bool fail_after;
    const char *cols;      /* the column part of the line, or NULL */
    size_t cols_len;
} options;

static const char *const NULLS1[] = { "", "NA" };
static const char *const NULLS2[] = { "\"\"" };
static const char *const NULLS3[] = { "NULL", "\\N", "" };
static const char *const NULLS5[] = { "NA", NULL };
static const inlay_column_type TYPES[] = { { "a", "int64" } };

static unsigned long number_at(const uint8_t *p, size_t n, size_t *i)
{
    unsigned long v = 0;
    while (*i + 1 < n && p[*i + 1] >= '0' && p[*i + 1] <= '9' && v < 100000000) v = v * 10 + (p[++*i] - '0');
    return v;
}

static void parse_options(options *o, const uint8_t *p, size_t n)
{
    static const size_t batch[10] = { 0, 1, 2, 3, 4, 7, 16, 100, 1000, 65536 };
    inlay_source_options_init(&o->so);
    o->so.format = INLAY_FORMAT_CSV;
    const char *check = getenv("FUZZ_SOURCE_INFER_CHECK");
    o->check_infer = !check || strcmp(check, "0") != 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t c = p[i];
        const bool more = i + 1 < n;
        const uint8_t next = more ? p[i + 1] : 0;
        const int digit = more && next >= '0' && next <= '9' ? next - '0' : -1;
        switch (c) {
        case '|': o->cols = (const char *)p + i + 1; o->cols_len = n - i - 1; return;
        case 'j': o->so.format = INLAY_FORMAT_NDJSON; break;
        case 'i': o->infer = true; break;
        case 's': o->so.on_error = INLAY_ON_ERROR_SKIP; break;
        case 'r': o->so.reject_path = "/dev/zero"; break;   /* discards writes; not the input */
        case 'n': o->so.header = false; break;
        case 'h': o->so.header = true; break;
        case 'a': o->so.format = INLAY_FORMAT_AUTO; break;
        case 'S': o->so.strict = true; break;
        case 'T': o->so.threads = 2; break;
        case 'z': o->zstd = true; break;
        case '2': o->v2 = true; break;
        case 'D': o->small_dict = true; break;
        case 'L': o->list = true; break;
        case 'Q': o->so.quote = 0; break;
        case 'd': if (more) o->so.delimiter = (char)p[++i]; break;
        case 'q': if (more) o->so.quote = p[++i]; break;
        case 'e': if (more) o->so.escape = p[++i]; break;
        case 'I': o->so.narrow_ints = true; break;
        case 'o': o->so.types = TYPES; o->so.type_count = 1; break;
        case 'g': o->so.inferred_schema = true; break;
        case 'b': if (digit >= 0) { o->so.batch_rows = batch[digit]; i++; } break;
        case 'k': if (digit >= 0) { o->so.skip_rows = (size_t)digit; i++; } break;
        case 'x': if (digit >= 0) { o->sample_rows = (size_t)digit; i++; } break;
        case 'p': if (digit >= 0) { o->page_rows = (size_t)digit + 1; i++; } break;
        case 'N':
            if (digit < 0) break;
            i++;
            switch (digit) {
            case 1: o->so.null_values = NULLS1; o->so.null_count = 2; break;
            case 2: o->so.null_values = NULLS2; o->so.null_count = 1; break;
            case 3: o->so.null_values = NULLS3; o->so.null_count = 3; break;
            case 4: o->so.null_values = NULLS1; o->so.null_count = 0; break;
            case 5: o->so.null_values = NULLS5; o->so.null_count = 2; break;
            default: break;
            }
            break;
        case 'f': o->fail_at = number_at(p, n, &i); o->fail_after = false; break;
        case 'F': o->fail_at = number_at(p, n, &i); o->fail_after = true; break;
        case 'w': o->write_fail = number_at(p, n, &i); break;
        default: break;
        }
    }
}

/* The columns of the option line into s; a column that does not parse or
 * that the schema refuses is left out. Returns whether a list was added. */
static bool add_columns(inlay_schema *s, const options *o)
{
    const char *p = o->cols, *end = p ? p + o->cols_len : NULL;
    int added = 0;
    while (p && p < end && added < MAX_COLUMNS) {
        const char *semi = memchr(p, ';', (size_t)(end - p));
        const char *stop = semi ? semi : end;
        const bool optional = *p == '?';
        const char *name = p + optional;
        const char *eq = memchr(name, '=', (size_t)(stop - name));
        if (eq && eq > name) {
            char nm[64];
            inlay_type t;
            const size_t nlen = (size_t)(eq - name);
            if (nlen < sizeof nm && inlay_type_parse(eq + 1, (size_t)(stop - eq - 1), &t)) {
                memcpy(nm, name, nlen);
                nm[nlen] = 0;
                if (inlay_schema_add(s, 0, nm, optional ? INLAY_OPTIONAL : INLAY_REQUIRED, t, NULL) > 0) added++;
            }
        }
        p = stop + 1;
    }
    if (added == 0) {
        inlay_schema_add(s, 0, "a", INLAY_OPTIONAL, inlay_type_string(), NULL);
        inlay_schema_add(s, 0, "b", INLAY_OPTIONAL, inlay_type_int(64, true), NULL);
        inlay_schema_add(s, 0, "c", INLAY_OPTIONAL, inlay_type_double(), NULL);
    }
    if (!o->list) return false;
    const int l = inlay_schema_add_list(s, 0, "l", INLAY_OPTIONAL);
    return l > 0 && inlay_schema_add(s, l, "element", INLAY_OPTIONAL, inlay_type_int(64, true), NULL) > 0;
}

/* Text that starts like gzip or zstd data (where the input detects
 * compression from the bytes, it is decompressed, and may be corrupt). */
static bool is_packed(const uint8_t *text, size_t len)
{
    return len >= 2 && ((text[0] == 0x1F && text[1] == 0x8B) || text[1] == 0xB5 || text[1] == 0x2A);
}

/* The buffer sink, with one write that fails on request. */
typedef struct failing_sink {
    inlay_buffer buf;
    inlay_sink inner;
    unsigned long writes, fail_at;
    bool failed, finished, aborted;
} failing_sink;

static int fs_write(void *ctx, const void *data, size_t len)
{
    failing_sink *f = ctx;
    FUZZ_CHECK(!f->finished && !f->aborted, "a write after finish or abort");
    if (++f->writes == f->fail_at) {
        f->failed = true;
        return -1;
    }
    const int r = f->inner.write(f->inner.ctx, data, len);
    if (r) f->failed = true;
    return r;
}

static int fs_finish(void *ctx)
{
    failing_sink *f = ctx;
    FUZZ_CHECK(!f->finished && !f->aborted, "finish twice, or after abort");
    f->finished = true;
    return f->inner.finish(f->inner.ctx);
}

static void fs_abort(void *ctx)
{
    failing_sink *f = ctx;
    FUZZ_CHECK(!f->finished, "abort after finish");
    f->aborted = true;
    f->inner.abort(f->inner.ctx);
}

/* A status after a refused allocation or a failed write may be one of
 * those; without them, it may not. An I/O error may also come from
 * compressed text that does not decompress. */
static void check_status(int st, const fuzz_alloc *fa, const failing_sink *sink, bool packed, const char *what,
                         const char *msg)
{
    const bool refused = atomic_load(&((fuzz_alloc *)fa)->refused) > 0;
    FUZZ_CHECK(st != INLAY_ERR_NOMEM || refused, "%s: out of memory with nothing refused: %s", what, msg);
    FUZZ_CHECK(st != INLAY_ERR_IO || (sink && sink->failed) || packed, "%s: I/O error with no failed write: %s", what,
               msg);
    FUZZ_CHECK(st != INLAY_ERR_COMPRESS || refused, "%s: compression failed: %s", what, msg);
}

/* A value the column's type does not take, as opposed to a record of the
 * wrong shape: the message names a column of the schema and gives one of
 * the conversion reasons after it. */
static bool is_bad_value(const char *msg, const inlay_schema *schema)
{
    static const char *const reasons[] = {
        "cannot parse ", "\"", "invalid UTF-8", "expected ", "null in a required", "a JSON column takes",
    };
    for (int i = 0; i < inlay_schema_num_columns(schema); i++) {
        const char *name;
        inlay_type t;
        inlay_repetition rep;
        char prefix[128];
        if (inlay_schema_column(schema, i, &name, &t, &rep) != INLAY_OK) continue;
        snprintf(prefix, sizeof prefix, "column '%s': ", name);
        const char *at = strstr(msg, prefix);
        if (!at) continue;
        at += strlen(prefix);
        for (size_t k = 0; k < sizeof reasons / sizeof reasons[0]; k++)
            if (strncmp(at, reasons[k], strlen(reasons[k])) == 0) return true;
    }
    return false;
}

/* Options that cannot work together, where INLAY_ERR_ARGUMENT is the
 * answer: a NULL null marker, a line end as a delimiter, quote or escape,
 * or one byte in two roles. */
static bool conflicting(const inlay_source_options *so)
{
    const int d = (unsigned char)so->delimiter, q = so->quote == 0 ? 0 : (unsigned char)so->quote;
    if (so->null_values == NULLS5 || d == '\n' || d == '\r' || q == '\n' || q == '\r') return true;
    const int x = so->escape == INLAY_SNIFF || so->escape == 0 ? 0 : (unsigned char)so->escape;
    if (so->type_count) return true;   /* a column the input may not have */
    if (so->quote == INLAY_SNIFF) return d == 0 || x == '\n' || x == '\r' || x == d;   /* d given: not sniffed */
    return (q && (q == d || (d == 0 && q == ','))) || x == '\n' || x == '\r' || (x && x != q && x == d) ||
           (x && d == 0);
}

/* The dialect a source reads with keeps every option it was given. */
static void check_dialect(const inlay_source *src, const inlay_source_options *so)
{
    inlay_source_dialect d;
    inlay_source_get_dialect(src, &d);
    FUZZ_CHECK(d.format == INLAY_FORMAT_CSV || d.format == INLAY_FORMAT_NDJSON, "dialect: format %d", (int)d.format);
    FUZZ_CHECK(so->format == INLAY_FORMAT_AUTO || d.format == so->format, "dialect: format %d given, %d used",
               (int)so->format, (int)d.format);
    if (d.format != INLAY_FORMAT_CSV) return;
    FUZZ_CHECK(d.delimiter != '\n' && d.delimiter != '\r' && (d.quote == 0 || d.quote != d.delimiter),
               "dialect: delimiter 0x%02x, quote 0x%02x", (uint8_t)d.delimiter, (uint8_t)d.quote);
    if (so->delimiter)
        FUZZ_CHECK(d.delimiter == so->delimiter && !(d.sniffed & INLAY_SNIFFED_DELIMITER), "dialect: delimiter changed");
    if (so->quote != INLAY_SNIFF)
        FUZZ_CHECK((uint8_t)d.quote == (uint8_t)so->quote && !(d.sniffed & INLAY_SNIFFED_QUOTE), "dialect: quote changed");
    if (so->header != INLAY_SNIFF)
        FUZZ_CHECK(d.header == (so->header != 0) && !(d.sniffed & INLAY_SNIFFED_HEADER), "dialect: header changed");
}

/* The lines of a batch's rows grow and lie within the text. */
static void check_lines(const inlay_source *src, size_t rows, const uint8_t *text, size_t len, uint64_t *last)
{
    const uint64_t *lines = inlay_source_batch_lines(src);
    FUZZ_CHECK(lines != NULL, "a batch without lines");
    const bool packed = is_packed(text, len);   /* lines of compressed text are not counted here */
    uint64_t nl = packed ? UINT64_MAX : 1;
    for (size_t i = 0; !packed && i < len; i++) nl += text[i] == '\n';
    for (size_t i = 0; i < rows; i++) {
        FUZZ_CHECK(lines[i] > *last && lines[i] <= nl, "row %zu on line %llu, after line %llu of %llu", i,
                   (unsigned long long)lines[i], (unsigned long long)*last, (unsigned long long)nl);
        *last = lines[i];
    }
}

static void run(const options *o, const uint8_t *text, size_t len, fuzz_alloc *fa)
{
    inlay_source_options so = o->so;
    so.alloc = fuzz_allocator(fa);
    so.prefix = text;
    so.prefix_len = len;
    inlay_schema *schema = NULL;
    const bool packed = is_packed(text, len);
    bool nested = false;
    char err[512] = "";
    if (o->infer) {
        const int st = inlay_source_infer_buffer(&schema, text, len, true, "<fuzz>", &so, o->sample_rows, err, sizeof err);
        FUZZ_CHECK((st == INLAY_OK) == (schema != NULL), "infer: status %d with schema %p", st, (void *)schema);
        if (st) {
            FUZZ_CHECK(st != INLAY_ERR_ARGUMENT || conflicting(&so), "infer: argument error: %s", err);
            check_status(st, fa, NULL, packed, "infer", err);
            return;
        }
    } else {
        schema = inlay_schema_create(&so.alloc);
        if (!schema) {
            FUZZ_CHECK(atomic_load(&fa->refused) > 0, "schema create failed");
            return;
        }
        nested = add_columns(schema, o);
    }

    inlay_source *src = NULL;
    int st = inlay_source_open(&src, "/dev/null", schema, &so);
    if (st) {
        check_status(st, fa, NULL, packed, "source open", inlay_source_errmsg(src));
        FUZZ_CHECK(st != INLAY_ERR_ARGUMENT || conflicting(&so), "source open: argument error: %s",
                   inlay_source_errmsg(src));
        FUZZ_CHECK(inlay_source_errmsg(src)[0] != 0, "source open failed (%d) without a message", st);
        inlay_source_free(src);
        inlay_schema_free(schema);
        return;
    }
    FUZZ_CHECK(!nested, "a nested column accepted by a text source");
    check_dialect(src, &so);

    failing_sink sink = { .fail_at = o->write_fail };
    inlay_buffer_init(&sink.buf, &so.alloc);
    sink.inner = inlay_buffer_sink(&sink.buf);
    const inlay_sink outer = { fs_write, fs_finish, fs_abort, &sink };
    inlay_options wo;
    inlay_options_init(&wo);
    wo.alloc = so.alloc;
    wo.compression = o->zstd ? INLAY_ZSTD : INLAY_UNCOMPRESSED;
    wo.page_version = o->v2 ? 2 : 1;
    if (o->small_dict) wo.dictionary_bytes = 64;
    if (o->page_rows) {
        wo.page_rows = o->page_rows;
        wo.row_group_rows = 2 * o->page_rows;
    }
    inlay_writer *w = NULL;
    st = inlay_writer_open(&w, outer, schema, &wo);
    if (st) check_status(st, fa, &sink, false, "writer open", inlay_writer_errmsg(w));

    uint64_t appended = 0, last_line = 0;
    int batches = 0;
    bool source_done = false;
    while (!st) {
        FUZZ_CHECK(++batches < MAX_BATCHES, "no end after %d batches", batches);
        size_t rows = 0;
        const int r = inlay_source_next(src, &rows);
        if (r) {
            const char *msg = inlay_source_errmsg(src);
            check_status(r, fa, NULL, packed, "source next", msg);
            FUZZ_CHECK(msg[0] != 0, "a failed batch (%d) without a message", r);
            FUZZ_CHECK(r != INLAY_ERR_VALUE || so.on_error == INLAY_ON_ERROR_FAIL, "a bad record with on_error = skip: %s",
                       msg);
            FUZZ_CHECK(r == INLAY_ERR_VALUE || r == INLAY_ERR_NOMEM || r == INLAY_ERR_IO, "source next: %d %s", r, msg);
            /* a type given (o: a=int64) is the caller's word, not inference's */
            if (o->check_infer && o->infer && o->sample_rows == 0 && !o->so.type_count && r == INLAY_ERR_VALUE)
                FUZZ_CHECK(!is_bad_value(msg, schema), "the inferred schema does not hold a value: %s", msg);
            size_t again = 1;
            FUZZ_CHECK(inlay_source_next(src, &again) == r && again == 0, "a failure that is not sticky");
            break;
        }
        if (rows == 0) {
            source_done = true;
            break;
        }
        int n = 0;
        const inlay_column_batch *b = inlay_source_batch(src, &n);
        FUZZ_CHECK(b != NULL && n == inlay_schema_num_columns(schema), "a batch of %d columns", n);
        for (int i = 0; i < n; i++) FUZZ_CHECK(b[i].column == i && b[i].count == rows, "column %d of the batch", i);
        check_lines(src, rows, text, len, &last_line);
        const int a = inlay_writer_append_columns(w, b, n);
        if (a) {
            const char *msg = inlay_writer_errmsg(w);
            check_status(a, fa, &sink, false, "append", msg);
            FUZZ_CHECK(a == INLAY_ERR_NOMEM || a == INLAY_ERR_IO || a == INLAY_ERR_COMPRESS,
                       "the writer refuses a batch of the source (%d): %s", a, msg);
            st = a;
            break;
        }
        appended += rows;
    }
    inlay_source_stats ss;
    inlay_source_get_stats(src, &ss);
    if (source_done) {
        FUZZ_CHECK(ss.rows == appended && ss.records == ss.rows + ss.skipped,
                   "stats: %llu rows, %llu records, %llu skipped, %llu appended", (unsigned long long)ss.rows,
                   (unsigned long long)ss.records, (unsigned long long)ss.skipped, (unsigned long long)appended);
        FUZZ_CHECK(packed || ss.bytes_read <= len, "stats: %llu bytes read of %zu", (unsigned long long)ss.bytes_read,
                   len);
        FUZZ_CHECK(so.on_error == INLAY_ON_ERROR_SKIP || ss.skipped == 0, "records skipped with on_error = fail");
        const int c = inlay_writer_close(w);
        if (c) {
            check_status(c, fa, &sink, false, "close", inlay_writer_errmsg(w));
            FUZZ_CHECK(c == INLAY_ERR_NOMEM || c == INLAY_ERR_IO || c == INLAY_ERR_COMPRESS, "close: %d %s", c,
                       inlay_writer_errmsg(w));
        } else {
            FUZZ_CHECK(sink.finished && !sink.aborted, "closed without finishing the sink");
            FUZZ_CHECK(inlay_writer_rows(w) == appended, "the file holds %llu rows of %llu",
                       (unsigned long long)inlay_writer_rows(w), (unsigned long long)appended);
            FUZZ_CHECK(sink.buf.len >= 12 && memcmp(sink.buf.data, "PAR1", 4) == 0 &&
                       memcmp(sink.buf.data + sink.buf.len - 4, "PAR1", 4) == 0, "not a Parquet file");
            FUZZ_CHECK(inlay_writer_bytes(w) == sink.buf.len, "the writer counts %llu bytes, the sink has %zu",
                       (unsigned long long)inlay_writer_bytes(w), sink.buf.len);
        }
    }
    inlay_writer_free(w);
    FUZZ_CHECK(w == NULL || sink.finished || sink.aborted, "a writer freed without finishing or aborting its sink");
    inlay_buffer_free(&sink.buf);
    inlay_source_free(src);
    inlay_schema_free(schema);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    const size_t head = nl ? (size_t)(nl - data) : size;
    options o;
    memset(&o, 0, sizeof o);
    parse_options(&o, data, head);
    const uint8_t *text = nl ? nl + 1 : data + size;
    const size_t len = size - (size_t)(text - data);
    /* with a parsing thread the order of requests varies: no refusals there */
    const bool threads = o.so.threads == 2;
    fuzz_alloc fa;
    fuzz_alloc_init(&fa, threads ? 0 : o.fail_at, o.fail_after);
    run(&o, text, len, &fa);
    fuzz_alloc_check_empty(&fa);
    return 0;
}
