/*
 * fuzz_ndjson.c — the NDJSON tokenizer (runtime/input/ndjson.h) on any bytes.
 *
 * Input: four option bytes, then the text.
 *   [0] which keys are wanted, one bit each (bit i = KEYS[i])
 *   [1] bit 0: strict; bit 1: an `other` callback that sees unwanted members
 *   [2] read size: (byte & 0x3F) + 1 bytes per read, or the whole text at
 *       once when the high bit is set
 *   [3] '1'..'9': the Nth allocation fails in a third run; else none
 * So `?0A0` wants the first six keys, is lenient, and reads two bytes at a
 * time; `~` wants all but the first and the last.
 *
 * What must hold, besides no crash, leak or undefined behaviour:
 *   - reading the whole text at once and in small reads gives the same
 *     values, errors, messages and line numbers;
 *   - strings (values, and keys given to `other`) are valid UTF-8, numbers
 *     are accepted by the text-to-value parser (as a value or as out of
 *     range), literals are their text, objects and arrays are the raw bytes
 *     of the line between matching brackets;
 *   - line numbers grow; a bad line is reported with a message and reading
 *     goes on; after running out of memory every call fails the same way,
 *     and everything before was what the unfailed run returned.
 */
#include "ndjson.h"
#include "textval.h"

#include "fuzz.h"

enum { OPTION_BYTES = 4, MAX_CALLS = 1 << 16 };

/* Short and long keys (the table matches up to 16 bytes by two words), an
 * empty one, one with non-ASCII bytes, one with bytes that need escapes. */
static const char *const KEYS[8] = {
    "a", "id", "name", "value", "a key longer than sixteen bytes", "\xC3\xA9t\xC3\xA9", "q\"\\/", "ts",
};

typedef struct run {
    fuzz_log log;
    bool open_failed;
    int fatal_status;
    size_t fatal_at;       /* log length before the call that failed */
} run;

/* line: the raw line the value must lie in (objects, arrays, numbers), or
 * NULL when it is not known yet. */
static void check_value(const ndjson_value *v, const char *line, size_t line_len, const char *what)
{
    switch (v->kind) {
    case NDJSON_ABSENT:
        FUZZ_CHECK(v->data == NULL && v->len == 0, "%s: absent with data", what);
        return;
    case NDJSON_NULL: case NDJSON_TRUE: case NDJSON_FALSE: {
        const char *lit = v->kind == NDJSON_NULL ? "null" : v->kind == NDJSON_TRUE ? "true" : "false";
        FUZZ_CHECK(v->len == strlen(lit) && memcmp(v->data, lit, v->len) == 0, "%s: literal is \"%.*s\"", what,
                   (int)v->len, v->data);
        return;
    }
    case NDJSON_NUMBER: {
        double d;
        const int r = inl_textval_double(v->data, v->len, &d);
        FUZZ_CHECK(v->len > 0 && (r == TEXTVAL_OK || r == TEXTVAL_RANGE), "%s: number \"%.*s\" does not parse (%d)",
                   what, (int)v->len, v->data, r);
        FUZZ_CHECK(!line || (v->data >= line && v->data + v->len <= line + line_len), "%s: number outside the line",
                   what);
        return;
    }
    case NDJSON_STRING:
        fuzz_touch(v->data, v->len);
        FUZZ_CHECK(inlay_utf8_valid(v->data, v->len), "%s: string is not valid UTF-8", what);
        return;
    case NDJSON_OBJECT: case NDJSON_ARRAY: {
        const char open = v->kind == NDJSON_OBJECT ? '{' : '[', close = (char)(open + 2);
        FUZZ_CHECK(v->len >= 2 && v->data[0] == open && v->data[v->len - 1] == close, "%s: not a bracketed value",
                   what);
        FUZZ_CHECK(!line || (v->data >= line && v->data + v->len <= line + line_len), "%s: value outside the line",
                   what);
        return;
    }
    }
    FUZZ_CHECK(0, "%s: kind %d", what, (int)v->kind);
}

static void log_value(fuzz_log *l, const ndjson_value *v)
{
    fuzz_log_u64(l, (uint64_t)v->kind);
    fuzz_log_bytes(l, v->data, v->len);
}

static void on_other(void *ctx, const char *key, size_t key_len, const ndjson_value *value)
{
    run *r = ctx;
    fuzz_touch(key, key_len);
    FUZZ_CHECK(inlay_utf8_valid(key, key_len), "an unwanted key is not valid UTF-8");
    check_value(value, NULL, 0, "unwanted member");
    fuzz_log_u64(&r->log, 'o');
    fuzz_log_bytes(&r->log, key, key_len);
    log_value(&r->log, value);
}

/* One pass over the text; every result goes to r->log. */
static void read_all(run *r, const uint8_t *text, size_t len, size_t chunk, const char *const *keys, size_t nkeys,
                     bool strict, bool other, fuzz_alloc *fa)
{
    fuzz_reader src = { text, len, 0, chunk };
    inlay_allocator a = fuzz_allocator(fa);
    ndjson_options o = { .strict = strict, .other = other ? on_other : NULL, .other_ctx = r };
    char err[256];
    ndjson_reader *nd = NULL;
    int st = inl_ndjson_open(&nd, fuzz_read, &src, keys, nkeys, &o, &a, err, sizeof err);
    if (st) {
        FUZZ_CHECK(st == INLAY_ERR_NOMEM && atomic_load(&fa->refused) > 0, "open: %d %s", st, err);
        FUZZ_CHECK(nd == NULL, "a reader handed out by a failed open");
        r->open_failed = true;
        return;
    }
    ndjson_value values[8];
    uint64_t last_line = 0;
    for (int calls = 0;; calls++) {
        FUZZ_CHECK(calls < MAX_CALLS, "no end after %d calls", calls);
        const size_t mark = r->log.len;
        const int rc = inl_ndjson_next(nd, values);
        fuzz_log_u64(&r->log, (uint64_t)(int64_t)rc);
        size_t raw_len = 0;
        const char *raw = inl_ndjson_raw_line(nd, &raw_len);
        if (rc == 0) {
            FUZZ_CHECK(raw == NULL && raw_len == 0, "a raw line at the end");
            FUZZ_CHECK(inl_ndjson_next(nd, values) == 0, "the end is not sticky");
            break;
        }
        if (rc == 1) {
            const uint64_t line = inl_ndjson_line(nd);
            FUZZ_CHECK(line > last_line, "line %llu after %llu", (unsigned long long)line,
                       (unsigned long long)last_line);
            FUZZ_CHECK(raw != NULL && raw_len > 0, "an object without a raw line");
            fuzz_touch(raw, raw_len);
            fuzz_log_u64(&r->log, line);
            fuzz_log_bytes(&r->log, raw, raw_len);
            for (size_t i = 0; i < nkeys; i++) {
                check_value(&values[i], raw, raw_len, keys[i]);
                log_value(&r->log, &values[i]);
            }
            last_line = line;
            continue;
        }
        const char *msg = inl_ndjson_errmsg(nd);
        FUZZ_CHECK(msg[0] != 0, "an error (%d) without a message", rc);
        fuzz_log_str(&r->log, msg);
        if (rc == -1) {
            const uint64_t line = inl_ndjson_error_line(nd);
            FUZZ_CHECK(line > last_line, "error line %llu after %llu", (unsigned long long)line,
                       (unsigned long long)last_line);
            FUZZ_CHECK(raw != NULL && raw_len > 0, "a bad line without its bytes");
            fuzz_touch(raw, raw_len);
            fuzz_log_u64(&r->log, line);
            fuzz_log_bytes(&r->log, raw, raw_len);
            last_line = line;
            continue;
        }
        FUZZ_CHECK(rc == INLAY_ERR_NOMEM && atomic_load(&fa->refused) > 0, "fatal status %d: %s", rc, msg);
        FUZZ_CHECK(inl_ndjson_next(nd, values) == rc, "a failure not sticky");
        r->fatal_status = rc;
        r->fatal_at = mark;
        break;
    }
    FUZZ_CHECK(inl_ndjson_bytes_read(nd) <= len, "more bytes read than the input holds");
    inl_ndjson_close(nd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < OPTION_BYTES) return 0;
    const char *keys[8];
    size_t nkeys = 0;
    for (int i = 0; i < 8; i++)
        if (data[0] >> i & 1) keys[nkeys++] = KEYS[i];
    const bool strict = data[1] & 1, other = data[1] & 2;
    const size_t chunk = data[2] & 0x80 ? 0 : (size_t)(data[2] & 0x3F) + 1;
    const unsigned long fail_at = data[3] >= '1' && data[3] <= '9' ? (unsigned long)(data[3] - '0') : 0;
    const uint8_t *text = data + OPTION_BYTES;
    const size_t len = size - OPTION_BYTES;

    run whole = { 0 }, pieces = { 0 };
    fuzz_alloc fa;
    fuzz_alloc_init(&fa, 0, false);
    read_all(&whole, text, len, 0, keys, nkeys, strict, other, &fa);
    fuzz_alloc_check_empty(&fa);
    fuzz_alloc_init(&fa, 0, false);
    read_all(&pieces, text, len, chunk, keys, nkeys, strict, other, &fa);
    fuzz_alloc_check_empty(&fa);
    FUZZ_CHECK(!whole.open_failed && !pieces.open_failed, "open failed without a refused allocation");
    const size_t at = fuzz_log_diff(&whole.log, &pieces.log);
    FUZZ_CHECK(at == SIZE_MAX, "reads of %zu bytes give other results than one read (log byte %zu)", chunk, at);

    if (fail_at) {
        run failing = { 0 };
        fuzz_alloc_init(&fa, fail_at, false);
        read_all(&failing, text, len, chunk, keys, nkeys, strict, other, &fa);
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
