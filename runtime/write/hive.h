/*
 * hive.h — a partition value as a Hive-style folder name ("day=2024-06-01").
 *
 * Values are rendered as Hive and DuckDB render them (integers in decimal,
 * dates YYYY-MM-DD, booleans true/false, text as its bytes) and escaped as
 * Hive's escapePathName does: control characters, DEL and
 * " # % ' * / : = ? \ { [ ] ^ become %XX (upper-case hex), and so does
 * every byte of a value that is not valid UTF-8. Readers (Spark, Trino,
 * DuckDB) decode %XX back. On top of Hive's rule, so that a name is never
 * interpreted:
 *  - null is __HIVE_DEFAULT_PARTITION__; the text values "__HIVE_DEFAULT_
 *    PARTITION__" and "null" in any case (which DuckDB would read as null)
 *    have their first character escaped;
 *  - "." and ".." are escaped whole ("%2E%2E"); the empty string is
 *    "column=", which readers take for the empty string;
 *  - a name longer than HIVE_NAME_MAX bytes keeps the longest prefix that
 *    fits with "~" and 16 hex digits of the value's hash (XXH3-64), cut at
 *    a character and escape boundary, so distinct values stay apart; such a
 *    value does not read back from its folder name (hive_shortened).
 */
#ifndef INLAY_HIVE_H
#define INLAY_HIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"

#define HIVE_NAME_MAX 255            /* bytes of one path component (NAME_MAX) */
#define HIVE_NULL "__HIVE_DEFAULT_PARTITION__"

/* The kinds of value a partition column can hold. */
typedef enum hive_kind { HIVE_BOOL, HIVE_INT, HIVE_UINT, HIVE_DATE, HIVE_BYTES } hive_kind;

/* One value: i for the integer kinds (days for DATE, 0/1 for BOOL), data and
 * len for BYTES; null when is_null. */
typedef struct hive_value {
    bool is_null;
    int64_t i;
    const uint8_t *data;
    size_t len;
} hive_value;

/* Append the value as text, unescaped (for the manifest: NULL is not
 * rendered, the caller writes null). Returns 0 or -1 (out of memory). */
int inl_hive_text(buf *out, const inlay_allocator *a, hive_kind kind, const hive_value *v);

/* Append "key=value" (key escaped as a value is) to out. *shortened is set
 * when the value had to be cut to fit HIVE_NAME_MAX. Returns 0, -1 (out of
 * memory) or -2 (the key alone leaves no room for a value). */
int inl_hive_component(buf *out, const inlay_allocator *a, const char *key, hive_kind kind,
                       const hive_value *v, bool *shortened);

#endif
