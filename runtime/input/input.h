/*
 * input.h — a byte source for the readers: a file, stdin or a caller's read
 * callback, optionally gzip- or zstd-compressed, handed out as plain bytes.
 *
 * Plain input is read straight into the caller's buffer (no copy here);
 * compressed input goes through one 1 MiB buffer of compressed bytes that
 * the decompressor drains into the caller's buffer. Every block, also
 * zlib's and zstd's, comes from the allocator given at open. Errors are
 * sticky: after a failed inl_input_read every later call fails the same way.
 */
#ifndef INLAY_INPUT_H
#define INLAY_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "alloc.h"

typedef struct input_reader input_reader;

typedef enum input_compression { INPUT_PLAIN, INPUT_GZIP, INPUT_ZSTD } input_compression;

/* The read callback of inl_input_open_fn: up to cap bytes into dst; returns the
 * count, 0 at end of input, -1 on error. */
typedef ptrdiff_t (*input_read_fn)(void *ctx, void *dst, size_t cap);

/* Opens path for reading; "-" is stdin (which may be a pipe). The
 * compression follows the extension, case-insensitively: ".gz" is gzip
 * (concatenated members too), ".zst"/".zstd" is zstd (concatenated frames),
 * anything else is plain. a may be NULL (malloc). Returns 0, or
 * INLAY_ERR_IO ("cannot open 'x.csv': No such file or directory") or
 * INLAY_ERR_NOMEM with the message in err (errcap bytes, truncated;
 * err may be NULL). */
int inl_input_open(input_reader **out, const char *path, const inlay_allocator *a, char *err, size_t errcap);

/* Like inl_input_open over fn(ctx, ...), named "<input>"; c says how the bytes
 * are compressed. Returns 0, INLAY_ERR_ARGUMENT (fn NULL or c unknown) or
 * INLAY_ERR_NOMEM. */
int inl_input_open_fn(input_reader **out, input_read_fn fn, void *ctx, input_compression c,
                  const inlay_allocator *a, char *err, size_t errcap);

/* Up to cap decompressed bytes into dst. Returns the count (> 0), 0 at the
 * end of the input (and for cap 0), -1 on error (inl_input_errmsg). Truncated or
 * corrupt compressed data is an error, never an early end. */
ptrdiff_t inl_input_read(input_reader *r, void *dst, size_t cap);

/* The last error, "name: what" ("x.csv.gz: truncated gzip data"); "" if none.
 * Owned by the reader. */
const char *inl_input_errmsg(const input_reader *r);
/* Size of the file on disk when it is a regular file, else 0. */
uint64_t inl_input_size(const input_reader *r);
/* Bytes of the file (compressed bytes, for compressed input) consumed so
 * far; against inl_input_size this is the progress. */
uint64_t inl_input_consumed(const input_reader *r);
/* The path as given; stdin is "<stdin>", a callback "<input>". */
const char *inl_input_name(const input_reader *r);
/* Closes the file (never stdin) and frees everything; NULL is accepted. */
void inl_input_close(input_reader *r);

#endif
