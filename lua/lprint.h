/*
 * lprint.h — a Parquet file shown as text, through the public reader API
 * only: `inspect` (the footer: schema, key-value metadata, row groups and
 * column chunks with their statistics), `head` (the first rows as an
 * aligned table) and `cat` (every row as CSV or NDJSON, batch by batch).
 * The `inlay` command's inspect/head/cat subcommands and inlay.inspect /
 * inlay.head in Lua both print through these functions, so they print the
 * same thing.
 *
 * Each function takes a reader the caller opened (and frees), writes to
 * `out`, and returns INLAY_OK or a status with a message in err (errcap
 * bytes, always NUL-terminated): the reader's status and message when
 * reading failed (INLAY_ERR_FORMAT, INLAY_ERR_IO, INLAY_ERR_NOMEM),
 * INLAY_ERR_IO when writing to `out` failed, INLAY_ERR_COLUMN for a
 * column list naming no field.
 *
 * How values are written (lfmt.c; every output, and statistics):
 *  - integers in decimal, unsigned ones as unsigned; decimals exactly, with
 *    `scale` fractional digits ("1.00", "-0.0001");
 *  - float, double and float16 in the shortest text that reads back as the
 *    same value ("0.1", "1e+300"); NaN and infinities are "nan", "inf",
 *    "-inf" in CSV and tables, and null in JSON, which has no such numbers;
 *  - dates "YYYY-MM-DD"; times "HH:MM:SS" and timestamps
 *    "YYYY-MM-DDTHH:MM:SS" with the fraction of their unit (3, 6 or 9
 *    digits), followed by "Z" when adjusted to UTC; years outside
 *    0000..9999 carry a sign ("+10000-01-01", "-0001-01-01");
 *  - uuid as 8-4-4-4-12 lowercase hex;
 *  - binary (BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY without a text type) as
 *    DuckDB writes a BLOB: printable ASCII as it is, other bytes and
 *    \ ' " as \xHH; text whose bytes are not valid UTF-8 the same way for
 *    the invalid bytes only;
 *  - JSON columns as strings holding their text (not embedded, so a value
 *    that is not valid JSON cannot break the output);
 *  - nested values as JSON: a struct as an object, a list as an array, a
 *    map as an object when its keys are text (STRING, ENUM, JSON), else as
 *    an array of {"key": k, "value": v}; a map without values as an array
 *    of its keys.
 * CSV (RFC 4180): a header row of field names, "\n" line ends, a field
 * quoted when it holds , " CR or LF, and an empty text value written as ""
 * so that it differs from a null, which is an empty field.
 */
#ifndef LPRINT_H
#define LPRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "lerror.h"

typedef enum inl_lua_print_format {
    INL_LUA_PRINT_CSV = 0,
    INL_LUA_PRINT_NDJSON = 1,
} inl_lua_print_format;

/* head's defaults: rows shown, and the widest a cell may be (in characters;
 * longer values end in "…"). */
#define INL_LUA_PRINT_HEAD_ROWS 10
#define INL_LUA_PRINT_CELL_WIDTH 40

/* The footer as text, or with `json` as one JSON object on one line.
 * `name` is the file's name as the user gave it (shown, not opened). */
int inl_lua_print_inspect(inlay_reader *r, const char *name, bool json, FILE *out, char *err, size_t errcap);

/* head and cat show the top-level fields named in `columns`, a
 * comma-separated list ("a,b") in the order wanted, or every field for
 * NULL; INLAY_ERR_COLUMN for a name that is not a field (the message lists
 * the fields), given twice, or empty. Either selects them on the reader. */

/* The first `rows` rows as an aligned table (names, types, a line per row;
 * cells cut at INL_LUA_PRINT_CELL_WIDTH characters, nulls as NULL), then
 * "(N of M rows)" when the file has more. Reads only the rows it shows. */
int inl_lua_print_head(inlay_reader *r, const char *columns, size_t rows, FILE *out, char *err, size_t errcap);

/* Every row, batch by batch in constant memory: CSV with a header, or one
 * JSON object per line. */
int inl_lua_print_cat(inlay_reader *r, const char *columns, inl_lua_print_format format, FILE *out, char *err,
                      size_t errcap);

/* Sets inspect and head in the module table on top of the stack:
 *   inlay.inspect(path [, { json = true }])
 *   inlay.head(path [, n | { n = 10, columns = "a,b" or { "a", "b" } }])
 * each printing to stdout what `inlay inspect` / `inlay head` print. */
void inl_lua_open_print(lua_State *L);

#endif
