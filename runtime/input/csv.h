/*
 * csv.h — a streaming RFC 4180 tokenizer: records of fields over an
 * input_reader, in constant memory whatever the size of the input.
 *
 * It only finds fields; turning their text into values is the caller's
 * business. Inside quotes a quote is written doubled (RFC 4180) or, with
 * an escape character such as backslash, preceded by it (the escape
 * character itself too). Accepted beyond RFC 4180: LF or CRLF line ends (mixed too), a
 * UTF-8 BOM at the very start, a last line without a terminator, empty lines
 * (skipped), a quote inside an unquoted field (data), a CR not followed by
 * LF outside quotes (data). Errors are per record: after one the reader
 * resumes at the next line, so a caller can reject bad records and go on.
 *
 * Line numbers are physical lines as `wc -l` and editors count them: one
 * more than the number of LF bytes before the point, whatever quoting says.
 */
#ifndef INLAY_CSV_H
#define INLAY_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "input.h"

typedef struct csv_options {
    char delimiter;      /* default ','; '\t' etc. Neither CR nor LF nor the quote */
    char quote;          /* default '"'; 0 = no quoting. Neither CR nor LF */
    char escape;         /* default 0: quotes are doubled (as is escape == quote); else the byte that
                            escapes a quote or itself inside quotes, e.g. '\\'. Neither CR nor LF */
    size_t skip_rows;    /* physical lines skipped before anything (before the header) */
} csv_options;

/* The defaults: ',', '"', doubled quotes, no rows skipped. */
void inl_csv_options_init(csv_options *o);

/* One field: data[0..len) unescaped (a quoted field without its quotes and
 * with "" or \" made "), not NUL-terminated. quoted tells `""` from an empty field. */
typedef struct csv_field {
    const char *data;
    size_t len;
    bool quoted;
} csv_field;

typedef struct csv_reader csv_reader;

/* A reader over in, which stays the caller's (borrowed; close it after
 * inl_csv_close). o NULL means the defaults; a NULL means malloc. Returns 0,
 * INLAY_ERR_ARGUMENT (a delimiter, quote or escape that cannot work) or
 * INLAY_ERR_NOMEM. */
int inl_csv_open(csv_reader **out, input_reader *in, const csv_options *o, const inlay_allocator *a);

/* The next record. Returns 1 with *fields / *nfields valid until the next
 * call (the bytes are in the reader's buffers), 0 at the end of the input,
 * -1 on error (inl_csv_errmsg, inl_csv_error_line, inl_csv_error_status). After a bad
 * record the reader has skipped past it (to the end of the line at fault)
 * and the next call continues with the following record; after an input or
 * memory failure every call returns -1. */
int inl_csv_next(csv_reader *r, const csv_field **fields, size_t *nfields);

/* 1-based physical line where the last returned record starts (0 before any). */
uint64_t inl_csv_record_line(const csv_reader *r);
/* Line of the last error: the offending character, or where an unterminated
 * quoted field opens. */
uint64_t inl_csv_error_line(const csv_reader *r);
/* 1-based byte column of that character on its line. */
uint64_t inl_csv_error_column(const csv_reader *r);
/* "unterminated quoted field", "unexpected character after closing quote",
 * "out of memory", or the input's message; "" if none. Owned by the reader. */
const char *inl_csv_errmsg(const csv_reader *r);
/* What the last inl_csv_next -1 was: INLAY_ERR_VALUE for a bad record (reading
 * goes on), INLAY_ERR_NOMEM or INLAY_ERR_IO (input or decompression failure)
 * for a failure that stops the reader; 0 when the last call succeeded. */
int inl_csv_error_status(const csv_reader *r);
/* Decompressed bytes consumed: through the end of the last record returned. */
uint64_t inl_csv_bytes_read(const csv_reader *r);
/* The last returned record (or bad record, after -1) as it was in the input,
 * without its line terminator; valid until the next call. */
const char *inl_csv_raw_record(const csv_reader *r, size_t *len);
/* Frees the reader, not its input; NULL is accepted. */
void inl_csv_close(csv_reader *r);

#endif
