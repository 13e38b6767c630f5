/*
 * input.h — a byte source for the readers: a file, stdin or a caller's read
 * callback, optionally gzip- or zstd-compressed, handed out as plain bytes.
 *
 * The compression is found from the first bytes (gzip and zstd magic) on
 * files, on stdin and on callbacks alike; a pipe cannot be read twice, so
 * those bytes are kept and handed out first. Plain input is read straight
 * into the caller's buffer (no copy here); compressed input goes through
 * one 1 MiB buffer of compressed bytes that the decompressor drains into
 * the caller's buffer. Every block, also zlib's and zstd's, comes from the
 * allocator given at open. Errors are sticky: after a failed inl_input_read
 * every later call fails the same way.
 */
#ifndef INLAY_INPUT_H
#define INLAY_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"

typedef struct input_reader input_reader;

/* INPUT_AUTO: by the first bytes (gzip 1f 8b, zstd 28 b5 2f fd or a
 * skippable frame), else plain. */
typedef enum input_compression { INPUT_PLAIN, INPUT_GZIP, INPUT_ZSTD, INPUT_AUTO } input_compression;

/* The read callback of inl_input_open_fn: up to cap bytes into dst; returns the
 * count, 0 at end of input, -1 on error. */
typedef ptrdiff_t (*input_read_fn)(void *ctx, void *dst, size_t cap);

/* Opens path for reading; "-" is stdin (which may be a pipe). The first
 * bytes are read at once to tell the compression: gzip (concatenated
 * members too) or zstd (concatenated frames) by their magic, whatever the
 * name; without a magic, ".gz" or ".zst"/".zstd" (any case) still says
 * gzip or zstd, so a damaged file is an error rather than text; anything
 * else is plain. a may be NULL (malloc). Returns 0, or INLAY_ERR_IO
 * ("cannot open 'x.csv': No such file or directory", or a read error) or
 * INLAY_ERR_NOMEM with the message in err (errcap bytes, truncated; err
 * may be NULL). */
int inl_input_open(input_reader **out, const char *path, const inlay_allocator *a, char *err, size_t errcap);

/* Like inl_input_open, where prefix[0..prefix_len) are the first bytes of
 * the stream, already taken from it (a sample read from a pipe): they are
 * handed out (decompressed with the rest) before the file's own bytes.
 * Borrowed: they must outlive the reader. */
int inl_input_open_after(input_reader **out, const char *path, const void *prefix, size_t prefix_len,
                         const inlay_allocator *a, char *err, size_t errcap);

/* Like inl_input_open over fn(ctx, ...), named "<input>"; c says how the bytes
 * are compressed (INPUT_AUTO: look; the callback is called during the open).
 * Returns 0, INLAY_ERR_ARGUMENT (fn NULL or c unknown), INLAY_ERR_IO (the
 * callback failed while looking) or INLAY_ERR_NOMEM. */
int inl_input_open_fn(input_reader **out, input_read_fn fn, void *ctx, input_compression c,
                  const inlay_allocator *a, char *err, size_t errcap);

/* Bytes already in memory, read through inl_input_open_fn: { p, len, 0 }
 * as ctx, inl_input_membuf_read as fn. */
typedef struct input_membuf {
    const uint8_t *p;
    size_t len, pos;
} input_membuf;
ptrdiff_t inl_input_membuf_read(void *ctx, void *dst, size_t cap);

/* Up to cap decompressed bytes into dst. Returns the count (> 0), 0 at the
 * end of the input (and for cap 0), -1 on error (inl_input_errmsg). Truncated or
 * corrupt compressed data is an error, never an early end. */
ptrdiff_t inl_input_read(input_reader *r, void *dst, size_t cap);

/* Puts decompressed bytes back in front of what is still to be read (a
 * sample read to look at the input): the next reads return them first, and
 * the input is not at its end while they last. Copied. At most one such
 * block at a time: INLAY_ERR_ARGUMENT while one is unread, else 0 or
 * INLAY_ERR_NOMEM. */
int inl_input_unread(input_reader *r, const void *p, size_t len);

/* From now on compressed data that stops short ends the input quietly
 * instead of failing: for a sample cut from the head of a stream. */
void inl_input_allow_cut(input_reader *r);

/* The compression found at open (never INPUT_AUTO). */
input_compression inl_input_compression(const input_reader *r);

/* For sampling a file in several places: up to cap bytes at byte `offset`
 * of the input, without moving the stream. Only a plain regular file
 * opened by path has this; -1 for anything else, and on a read error
 * (nothing is recorded: the stream is unaffected). */
ptrdiff_t inl_input_pread(input_reader *r, uint64_t offset, void *dst, size_t cap);

/* The device and inode the input was read from (a file, or stdin
 * redirected from one); false for callbacks or when unknown. */
bool inl_input_identity(const input_reader *r, uint64_t *dev, uint64_t *ino);

/* The last error, "name: what" ("x.csv.gz: truncated gzip data"); "" if none.
 * Owned by the reader. */
const char *inl_input_errmsg(const input_reader *r);
/* Size of the file on disk when it is a regular file, else 0. */
uint64_t inl_input_size(const input_reader *r);
/* Read-ahead, for a gzip or zstd regular file (also one given as stdin):
 * from now on a thread of the reader's own reads and decodes the input in
 * blocks of 1 MiB, a few ahead of the caller, so the caller's reads only
 * take them. Nothing changes for plain input (the copy from the page cache
 * costs the same on either thread) nor for a pipe, a terminal or a
 * callback, whose reads could block the thread. Returns 0 (started, or not wanted)
 * or INLAY_ERR_NOMEM (nothing changed: reads go on as before). The reads
 * are the caller's to make from one thread, as before; inl_input_close
 * stops the thread. The allocator is then called from that thread too
 * (zlib and zstd grow their windows while decoding): it must be
 * thread-safe, as a source with threads = 2 requires. */
int inl_input_readahead(input_reader *r);
/* Whether a read-ahead thread was started. */
bool inl_input_reading_ahead(const input_reader *r);

/* With read-ahead: the next bytes in place, no copy. *data points at them;
 * the INPUT_BLOCK_HEAD bytes before *data and the INPUT_BLOCK_PAD bytes
 * after the last one are the caller's to write (a tokenizer's unread tail
 * goes in front, its sentinel after). They stay valid, and the caller's,
 * until two more calls of inl_input_block or inl_input_read have returned
 * bytes. Returns the count, 0 at the end of the input, -1 on error, or
 * INPUT_NO_BLOCK when there is no read-ahead (or bytes put back wait):
 * read with inl_input_read instead. */
enum { INPUT_BLOCK_HEAD = 64 * 1024, INPUT_BLOCK_PAD = 64 };
#define INPUT_NO_BLOCK (-2)
ptrdiff_t inl_input_block(input_reader *r, uint8_t **data);

/* Bytes of the file (compressed bytes, for compressed input) consumed so
 * far; against inl_input_size this is the progress. */
uint64_t inl_input_consumed(const input_reader *r);
/* The path as given; stdin is "<stdin>", a callback "<input>". */
const char *inl_input_name(const input_reader *r);
/* Closes the file (never stdin) and frees everything; NULL is accepted. */
void inl_input_close(input_reader *r);

#endif
