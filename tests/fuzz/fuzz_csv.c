/*
 * fuzz_csv.c — the CSV tokenizer (runtime/input/csv.h) on any bytes.
 *
 * Input: five option bytes, then the CSV text.
 *   [0] delimiter (any byte; CR and LF are refused at open)
 *   [1] quote ('0' = no quoting, else the byte itself)
 *   [2] skip_rows = byte % 4; (byte >> 2) % 4 picks the escape: 0 doubled
 *       quotes, 1 backslash, 2 the quote itself (doubled quotes too), 3 '~'
 *       ('0' is no skip and doubled quotes, '4' no skip and backslash)
 *   [3] read size: (byte & 0x3F) + 1 bytes per read, or the whole text at
 *       once when the high bit is set
 *   [4] '1'..'9': the Nth allocation fails in a third run; else none
 * So `,"0A0` is RFC 4180 with two bytes per read.
 *
 * What must hold, besides no crash, leak or undefined behaviour:
 *   - reading the whole text at once and in small reads gives the same
 *     records, errors, line numbers, columns and byte counts;
 *   - each record's raw bytes, split at the delimiters and unquoted, are
 *     its fields, and the raw record (or bad line) is the input just before
 *     the byte count, followed by LF, CRLF or the end of the input;
 *   - an unquoted field holds no delimiter, no LF, no CRLF and does not
 *     start with the quote; record lines and byte counts never go back;
 *   - a bad record is INLAY_ERR_VALUE and reading goes on; after running
 *     out of memory every call fails, with INLAY_ERR_NOMEM, and everything
 *     returned before was what the unfailed run returned.
 */
#include "csv.h"

#include "fuzz.h"

enum { OPTION_BYTES = 5, MAX_CALLS = 1 << 16 };

typedef struct run {
    fuzz_log log;
    bool open_failed;
    int fatal_status;      /* INLAY_ERR_NOMEM that stopped the reader, or 0 */
    size_t fatal_at;       /* log length before the call that failed */
} run;

/* The escape byte the reader works with: 0 for doubled quotes. */
static int escape_in_use(const csv_options *o)
{
    const uint8_t q = (uint8_t)o->quote, x = (uint8_t)o->escape;
    return q && x && x != q ? x : 0;
}

/* The input right before `end` must be raw followed by the terminator the
 * input has there: LF, CRLF, or nothing at the very end. */
static void check_raw_position(const uint8_t *text, size_t len, uint64_t end, const char *raw, size_t raw_len)
{
    FUZZ_CHECK(end <= len, "bytes read %llu past the input's %zu", (unsigned long long)end, len);
    size_t term = 0;
    if (end > 0 && text[end - 1] == '\n') term = end > 1 && text[end - 2] == '\r' && raw_len < end - 1 ? 2 : 1;
    else FUZZ_CHECK(end == len, "a record ends at %llu, not at a line end", (unsigned long long)end);
    FUZZ_CHECK(raw_len + term <= end, "raw record of %zu bytes before offset %llu", raw_len, (unsigned long long)end);
    const size_t at = (size_t)end - term - raw_len;
    FUZZ_CHECK(raw_len == 0 || memcmp(text + at, raw, raw_len) == 0,
               "the raw record is not the input at offset %zu", at);
}

/* The raw record, split and unquoted by the rules of csv.h, must give the
 * fields: an unquoted field is the bytes up to the next delimiter; a quoted
 * one runs to its closing quote, with a doubled quote (or, with an escape
 * byte, the escape before a quote or itself) standing for one byte. */
static void check_fields(const csv_field *f, size_t n, const char *raw, size_t raw_len, uint8_t delim, int quote,
                         int escape)
{
    FUZZ_CHECK(n >= 1, "a record without fields");
    const char q = (char)quote, x = (char)escape;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (i) {
            FUZZ_CHECK(k < raw_len && (uint8_t)raw[k] == delim, "field %zu: no delimiter before it in the raw record", i);
            k++;
        }
        fuzz_touch(f[i].data, f[i].len);
        if (!f[i].quoted) {
            for (size_t j = 0; j < f[i].len; j++) {
                const uint8_t c = (uint8_t)f[i].data[j];
                FUZZ_CHECK(c != delim && c != '\n', "field %zu: unquoted field holds byte 0x%02x", i, c);
                FUZZ_CHECK(!(c == '\r' && j + 1 < f[i].len && f[i].data[j + 1] == '\n'), "field %zu: CRLF inside", i);
            }
            FUZZ_CHECK(quote == 0 || f[i].len == 0 || f[i].data[0] != q, "field %zu: unquoted field starts with the quote", i);
            FUZZ_CHECK(f[i].len <= raw_len - k && memcmp(raw + k, f[i].data, f[i].len) == 0,
                       "field %zu is not the raw record's bytes at %zu", i, k);
            k += f[i].len;
            continue;
        }
        FUZZ_CHECK(quote != 0, "field %zu quoted without a quote character", i);
        FUZZ_CHECK(k < raw_len && raw[k] == q, "field %zu: no opening quote in the raw record", i);
        k++;
        size_t j = 0;   /* bytes of the field matched */
        for (;;) {
            FUZZ_CHECK(k < raw_len, "field %zu: no closing quote in the raw record", i);
            char c = raw[k++];
            if (escape && c == x && k < raw_len && (raw[k] == q || raw[k] == x)) {
                c = raw[k++];
            } else if (!escape && c == q && k < raw_len && raw[k] == q) {
                k++;
            } else if (c == q && !(escape && c == x)) {
                break;
            }
            FUZZ_CHECK(j < f[i].len && f[i].data[j] == c, "field %zu byte %zu differs from the raw record", i, j);
            j++;
        }
        FUZZ_CHECK(j == f[i].len, "field %zu has %zu bytes, the raw record %zu", i, f[i].len, j);
    }
    FUZZ_CHECK(k == raw_len, "the fields make %zu bytes of the raw record's %zu", k, raw_len);
}

/* One pass over the text; every result goes to r->log. */
static void read_all(run *r, const uint8_t *text, size_t len, size_t chunk, const csv_options *o, fuzz_alloc *fa)
{
    fuzz_reader src = { text, len, 0, chunk };
    inlay_allocator a = fuzz_allocator(fa);
    char err[256];
    input_reader *in = NULL;
    int st = inl_input_open_fn(&in, fuzz_read, &src, INPUT_PLAIN, &a, err, sizeof err);
    if (st) {
        FUZZ_CHECK(st == INLAY_ERR_NOMEM && atomic_load(&fa->refused) > 0, "input open: %d %s", st, err);
        r->open_failed = true;
        return;
    }
    csv_reader *csv = NULL;
    st = inl_csv_open(&csv, in, o, &a);
    if (st) {
        bool bad_option = o->delimiter == '\n' || o->delimiter == '\r' || o->quote == '\n' || o->quote == '\r' ||
                          (o->quote && o->quote == o->delimiter);
        const int x = escape_in_use(o);
        bad_option |= x == '\n' || x == '\r' || x == (uint8_t)o->delimiter;
        FUZZ_CHECK((st == INLAY_ERR_ARGUMENT && bad_option) || (st == INLAY_ERR_NOMEM && atomic_load(&fa->refused) > 0),
                   "csv open: %d", st);
        FUZZ_CHECK(csv == NULL, "a reader handed out by a failed open");
        inl_input_close(in);
        r->open_failed = true;
        return;
    }
    FUZZ_CHECK(!(o->delimiter == '\n' || o->delimiter == '\r'), "opened with a line end as the delimiter");
    const uint8_t delim = (uint8_t)o->delimiter;
    uint64_t last_line = 0, last_bytes = 0;
    for (int calls = 0;; calls++) {
        FUZZ_CHECK(calls < MAX_CALLS, "no end after %d calls", calls);
        const csv_field *f = NULL;
        size_t n = 0, raw_len = 0;
        const size_t mark = r->log.len;
        const int rc = inl_csv_next(csv, &f, &n);
        const uint64_t bytes = inl_csv_bytes_read(csv);
        fuzz_log_u64(&r->log, (uint64_t)(int64_t)rc);
        if (rc == 0) {
            FUZZ_CHECK(inl_csv_next(csv, &f, &n) == 0, "the end is not sticky");
            break;
        }
        if (rc == 1) {
            const char *raw = inl_csv_raw_record(csv, &raw_len);
            const uint64_t line = inl_csv_record_line(csv);
            FUZZ_CHECK(inl_csv_error_status(csv) == 0, "status %d after a record", inl_csv_error_status(csv));
            FUZZ_CHECK(line >= 1 && line >= last_line, "record line %llu after %llu", (unsigned long long)line,
                       (unsigned long long)last_line);
            FUZZ_CHECK(bytes >= last_bytes, "byte count went back");
            check_fields(f, n, raw, raw_len, delim, (uint8_t)o->quote, escape_in_use(o));
            check_raw_position(text, len, bytes, raw, raw_len);
            fuzz_log_u64(&r->log, line);
            fuzz_log_u64(&r->log, bytes);
            fuzz_log_u64(&r->log, n);
            for (size_t i = 0; i < n; i++) {
                fuzz_log_u64(&r->log, f[i].quoted);
                fuzz_log_bytes(&r->log, f[i].data, f[i].len);
            }
            last_line = line;
            last_bytes = bytes;
            continue;
        }
        FUZZ_CHECK(rc == -1, "inl_csv_next returned %d", rc);
        const int status = inl_csv_error_status(csv);
        const char *msg = inl_csv_errmsg(csv);
        FUZZ_CHECK(msg[0] != 0, "an error without a message");
        if (status == INLAY_ERR_VALUE) {
            const char *raw = inl_csv_raw_record(csv, &raw_len);
            const uint64_t line = inl_csv_error_line(csv);
            FUZZ_CHECK(line >= 1 && line >= last_line, "error line %llu after %llu", (unsigned long long)line,
                       (unsigned long long)last_line);
            FUZZ_CHECK(inl_csv_error_column(csv) >= 1, "error column 0");
            FUZZ_CHECK(bytes >= last_bytes, "byte count went back");
            FUZZ_CHECK(raw_len > 0, "a bad record with no bytes");
            check_raw_position(text, len, bytes, raw, raw_len);
            fuzz_log_u64(&r->log, line);
            fuzz_log_u64(&r->log, inl_csv_error_column(csv));
            fuzz_log_u64(&r->log, bytes);
            fuzz_log_str(&r->log, msg);
            fuzz_log_bytes(&r->log, raw, raw_len);
            last_line = line;
            last_bytes = bytes;
            continue;
        }
        FUZZ_CHECK(status == INLAY_ERR_NOMEM && atomic_load(&fa->refused) > 0, "fatal status %d: %s", status, msg);
        FUZZ_CHECK(inl_csv_next(csv, &f, &n) == -1 && inl_csv_error_status(csv) == status, "a failure not sticky");
        r->fatal_status = status;
        r->fatal_at = mark;
        break;
    }
    inl_csv_close(csv);
    inl_input_close(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < OPTION_BYTES) return 0;
    csv_options o;
    inl_csv_options_init(&o);
    o.delimiter = (char)data[0];
    o.quote = data[1] == '0' ? 0 : (char)data[1];
    o.skip_rows = data[2] % 4;
    static const char escapes[4] = { 0, '\\', 0, '~' };
    o.escape = (data[2] >> 2 & 3) == 2 ? o.quote : escapes[data[2] >> 2 & 3];
    const size_t chunk = data[3] & 0x80 ? 0 : (size_t)(data[3] & 0x3F) + 1;
    const unsigned long fail_at = data[4] >= '1' && data[4] <= '9' ? (unsigned long)(data[4] - '0') : 0;
    const uint8_t *text = data + OPTION_BYTES;
    const size_t len = size - OPTION_BYTES;

    run whole = { 0 }, pieces = { 0 };
    fuzz_alloc fa;
    fuzz_alloc_init(&fa, 0, false);
    read_all(&whole, text, len, 0, &o, &fa);
    fuzz_alloc_check_empty(&fa);
    fuzz_alloc_init(&fa, 0, false);
    read_all(&pieces, text, len, chunk, &o, &fa);
    fuzz_alloc_check_empty(&fa);
    FUZZ_CHECK(whole.open_failed == pieces.open_failed, "open failed in one run only");
    const size_t at = fuzz_log_diff(&whole.log, &pieces.log);
    FUZZ_CHECK(at == SIZE_MAX, "reads of %zu bytes give other results than one read (log byte %zu)", chunk, at);

    if (fail_at) {
        run failing = { 0 };
        fuzz_alloc_init(&fa, fail_at, false);
        read_all(&failing, text, len, chunk, &o, &fa);
        fuzz_alloc_check_empty(&fa);
        /* up to the call that failed, what the unfailed run gave */
        const size_t keep = failing.fatal_status ? failing.fatal_at : failing.log.len;
        if (!failing.open_failed)
            FUZZ_CHECK(keep <= pieces.log.len && memcmp(failing.log.data, pieces.log.data, keep) == 0,
                       "results before running out of memory differ");
        if (!failing.open_failed && !failing.fatal_status)
            FUZZ_CHECK(failing.log.len == pieces.log.len, "a refused allocation changed the results");
        fuzz_log_free(&failing.log);
    }
    fuzz_log_free(&whole.log);
    fuzz_log_free(&pieces.log);
    return 0;
}
