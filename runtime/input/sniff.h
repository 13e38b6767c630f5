/*
 * sniff.h — what a source's options leave open, decided from the input
 * itself: the format (by extension, else by the first non-blank byte) and
 * the CSV dialect (delimiter, quote, escape, header) from a sample of the
 * first records; and, for inference across a whole file, where records
 * surely start in a chunk cut from the middle of it.
 *
 * Given options are never second-guessed: only what they leave open is
 * looked at, and inlay_source_dialect.sniffed says which that was.
 */
#ifndef INLAY_SNIFF_H
#define INLAY_SNIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"
#include "input.h"
#include "inlay.h"

/* The head of the input the decisions are made on (decompressed bytes);
 * longer, up to the maximum, while a quoted field runs past its end. */
#define SNIFF_SAMPLE_BYTES ((size_t)1 << 18)
#define SNIFF_MAX_SAMPLE_BYTES ((size_t)8 << 20)
/* Records of that sample looked at, as many as DuckDB's sniffer takes. */
#define SNIFF_MAX_RECORDS 20480

/* The format a path's extension says, after a .gz/.zst/.zstd suffix and
 * ignoring case: CSV for .csv .tsv .tab, NDJSON for .json .jsonl .ndjson,
 * AUTO when it says nothing. *tsv is set for .tsv and .tab. */
inlay_source_format inl_sniff_format_of(const char *path, bool *tsv);

/* Fills *d from the options, deciding what they leave open from
 * text[0..len), the head of the (decompressed) input; `whole` says it is
 * all of it (else its last record may be cut). path gives the extension.
 * names[0..nnames) are the columns of a given schema (NULL, 0 when the
 * schema is to be inferred): a first record holding one of them is a
 * header. d->compression is left as it is. Returns 0 or INLAY_ERR_NOMEM. */
int inl_sniff_text(const uint8_t *text, size_t len, bool whole, const char *path, const inlay_source_options *o,
                   const char *const *names, size_t nnames, inlay_source_dialect *d, const inlay_allocator *a);

/* The same over an open input: reads SNIFF_SAMPLE_BYTES of it (more while
 * the sample ends inside a quoted field) and puts them back (inl_input_unread), so the next read starts at the
 * beginning again; d->compression is the input's. Returns 0, or
 * INLAY_ERR_IO / INLAY_ERR_NOMEM with the message in err. */
int inl_sniff_input(input_reader *in, const char *path, const inlay_source_options *o, const char *const *names,
                    size_t nnames, inlay_source_dialect *d, const inlay_allocator *a, char *err, size_t errcap);

/* The column names of a header record, as DuckDB names them: each field
 * without the spaces and tabs around it; "column<i>" (i from 0) for an
 * empty one; "<name>_1", "<name>_2"... for a name already taken. Fills
 * nb with the names, each NUL-terminated, one after the other (nb's
 * allocator is a). Returns 0 or INLAY_ERR_NOMEM. */
struct csv_field;
int inl_sniff_header_names(const struct csv_field *f, size_t nf, buf *nb, const inlay_allocator *a);

/* A chunk p[0..len) cut from a CSV input at an arbitrary byte, whose
 * records have nfields fields: finds [*start, *end), whole records only,
 * from the first record boundary that is certain. The chunk is parsed from
 * just after its first line end twice, as if that point were outside
 * quotes and as if it were inside a quoted field; a reading that ends in a
 * quoting error or in records of another width is wrong. When exactly one
 * reading is right its records are taken; when both are (or neither), the
 * boundary is uncertain and the answer is false: skip the chunk rather
 * than misparse it. at_start says the chunk starts on a record boundary
 * known already (where the records read so far end): it is taken from
 * there. at_end says the chunk ends with the input, so its last record
 * needs no terminator. */
bool inl_sniff_resync(const uint8_t *p, size_t len, bool at_start, bool at_end, const inlay_source_dialect *d,
                      size_t nfields, size_t *start, size_t *end);

#endif
