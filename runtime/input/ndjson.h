/*
 * ndjson.h — the NDJSON tokenizer: one JSON object per line, and for each
 * line the value of each wanted top-level key, with no tree built.
 *
 * Bytes come through a read callback into one line buffer; a line is found
 * with memchr and parsed in place, so a string without escapes is returned
 * as a pointer into that buffer. Strings with escapes are unescaped into a
 * scratch buffer that is reserved once per line for the whole line (the
 * unescaped form is never longer), so pointers handed out for a line stay
 * valid until the next call. Both buffers are kept across lines: the steady
 * state allocates nothing. Wanted keys live in a small open-addressing
 * table built at open, so a member costs one hash and one compare.
 *
 * Every non-blank line is validated in full as RFC 8259 JSON (nested values
 * and values of unwanted keys too): strings must be valid UTF-8 with valid
 * escapes and no lone surrogates, numbers follow the JSON grammar, nesting
 * stops at NDJSON_MAX_DEPTH.
 */
#ifndef INLAY_NDJSON_H
#define INLAY_NDJSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"

/* Reads up to cap bytes into dst: the count, 0 at end of input, -1 on error
 * (inl_input_read from input.c has this shape). */
typedef ptrdiff_t (*ndjson_read_fn)(void *ctx, void *dst, size_t cap);

typedef enum ndjson_kind {
    NDJSON_ABSENT = 0,   /* key not in this line */
    NDJSON_NULL, NDJSON_TRUE, NDJSON_FALSE,
    NDJSON_NUMBER,       /* raw number text, validated against the JSON grammar */
    NDJSON_STRING,       /* unescaped UTF-8 bytes (may contain NUL from \u0000) */
    NDJSON_OBJECT, NDJSON_ARRAY   /* raw JSON text of the whole value, validated */
} ndjson_kind;

/* data/len: the bytes described above; for null/true/false the literal's
 * text; NULL/0 when absent. */
typedef struct ndjson_value {
    ndjson_kind kind;
    const char *data;
    size_t len;
} ndjson_value;

/* Called for each member whose key is not among the wanted ones: the key
 * unescaped, and its value as inl_ndjson_next reports values (strings
 * unescaped). Both stay valid until the next inl_ndjson_next call. */
typedef void (*ndjson_other_fn)(void *ctx, const char *key, size_t key_len, const ndjson_value *value);

typedef struct ndjson_options {
    bool strict;            /* a key not among the wanted ones makes the line bad */
    ndjson_other_fn other;  /* when not strict: sees the members of keys not wanted (NULL: skipped) */
    void *other_ctx;
} ndjson_options;

enum {
    NDJSON_MAX_DEPTH = 256,                 /* the line's object is depth 1 */
    NDJSON_INITIAL_BUFFER = 1 << 20,        /* grows for longer lines, kept after */
};

typedef struct ndjson_reader ndjson_reader;

/* A reader is used by one thread at a time; readers are independent. */

/* Open a reader over fn(ctx, ...). keys: the wanted top-level keys (copied;
 * NULL accepted when nkeys is 0), values[i] of inl_ndjson_next is key i. o and a
 * may be NULL (defaults; malloc). Returns 0, INLAY_ERR_ARGUMENT (no
 * callback, a NULL or repeated key) or INLAY_ERR_NOMEM, with a message in
 * err (errcap bytes, NUL-terminated; err may be NULL). */
int inl_ndjson_open(ndjson_reader **out, ndjson_read_fn fn, void *ctx, const char *const *keys, size_t nkeys,
                const ndjson_options *o, const inlay_allocator *a, char *err, size_t errcap);

/* The next object: fills values[0..nkeys) (ABSENT when missing; when a key
 * repeats, the last one wins). Data stays valid until the next call.
 * Returns 1; 0 at end of input; -1 for a bad line (inl_ndjson_errmsg names the
 * problem and byte column, inl_ndjson_error_line the line), after which the
 * next call goes on with the next line. A failing read callback returns
 * INLAY_ERR_IO and running out of memory INLAY_ERR_NOMEM; both are sticky. */
int inl_ndjson_next(ndjson_reader *r, ndjson_value *values);

/* 1-based line number of the last object returned (0 before the first). */
uint64_t inl_ndjson_line(const ndjson_reader *r);
/* 1-based line number of the last bad line (0 if none). */
uint64_t inl_ndjson_error_line(const ndjson_reader *r);
/* The last error, e.g. "expected ',' or '}' at byte 17" (bytes counted from
 * 1 at the start of the line, after a BOM); "" if none. Owned by the
 * reader, valid until the next call. */
const char *inl_ndjson_errmsg(const ndjson_reader *r);
/* The bytes of the last returned or bad line, without its terminator (LF
 * or CRLF) or the BOM; valid until the next call. NULL/0 before the first
 * line, at the end of input and after a fatal error. */
const char *inl_ndjson_raw_line(const ndjson_reader *r, size_t *len);
/* Bytes taken from the callback so far. */
uint64_t inl_ndjson_bytes_read(const ndjson_reader *r);
/* Bytes through the end of the last line returned or skipped (its line
 * end included): where the next line starts. */
uint64_t inl_ndjson_bytes_consumed(const ndjson_reader *r);
/* Free the reader; NULL accepted. */
void inl_ndjson_close(ndjson_reader *r);

#endif
