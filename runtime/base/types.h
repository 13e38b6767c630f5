/*
 * types.h — the traits of a column type, worked out in one place.
 *
 * Every layer asks the same questions of an inlay_type: how wide is one
 * value in the arrays the append calls take, and in PLAIN; are values
 * byte strings; must they be UTF-8; which integers does the type hold;
 * how are its values ordered for statistics; what is it called. Each
 * answer comes from one table here, one row per physical type and one per
 * logical annotation, so a new logical type is one row, not a change in
 * every module that touches values.
 *
 * Names are the ones scripts write ("int8", "string", "timestamp(us, utc)",
 * "decimal(10,2)", "fixed(16)"): type_name prints them and type_parse reads
 * them back.
 */
#ifndef INLAY_TYPES_H
#define INLAY_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inlay.h"

/* How values compare for min/max statistics (parquet.thrift ColumnOrder). */
typedef enum sort_order {
    ORDER_SIGNED,
    ORDER_UNSIGNED,
    ORDER_FLOAT,
    ORDER_FLOAT16,
    ORDER_BYTES,          /* unsigned lexicographic */
    ORDER_DECIMAL_BYTES,  /* big-endian two's complement, equal widths */
    ORDER_NONE,
} sort_order;

/* Bytes per entry of the arrays the append calls take: bool, int32_t,
 * int64_t, float, double or inlay_bytes. */
size_t inl_type_value_size(const inlay_type *t);

/* Bytes per value in PLAIN: 1 for BOOLEAN (before bit-packing), 4, 8, the
 * width of a FIXED_LEN_BYTE_ARRAY; 0 for BYTE_ARRAY. */
size_t inl_type_plain_width(const inlay_type *t);

/* Values are byte strings (inlay_bytes): BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY. */
bool inl_type_is_bytes(const inlay_type *t);

/* STRING, JSON and ENUM values must be valid UTF-8. */
bool inl_type_is_utf8(const inlay_type *t);

sort_order inl_type_sort_order(const inlay_type *t);

/* The integers an INT32 or INT64 type holds, as values (not as the bits
 * stored): int8 -128..127, uint32 0..4294967295, a TIME(ms) 0..86399999,
 * DECIMAL(5,2) -99999..99999, int64 its whole range. False for uint64
 * (beyond int64) and for every other physical type. */
bool inl_type_int_range(const inlay_type *t, int64_t *lo, int64_t *hi);

/* 0 when the type is valid (the annotation fits its physical type; widths,
 * units, bit widths, precision and scale are in range), else -1 with the
 * reason in why (cap bytes). */
int inl_type_check(const inlay_type *t, char *why, size_t cap);

/* The type's name into buf (cap bytes, always NUL-terminated when cap > 0);
 * returns the length the whole name needs, as snprintf. */
size_t inl_type_name(const inlay_type *t, char *buf, size_t cap);

/* The type a name names (what inl_type_name prints); false when it names
 * none. "int32" and "int64" are the INT-annotated types (an INT32 or INT64
 * without annotation prints the same name and holds the same values). */
bool inl_type_parse(const char *name, size_t len, inlay_type *out);

/* Largest decimal precision a FIXED_LEN_BYTE_ARRAY of n bytes holds, and
 * the smallest width that holds `precision` digits. */
int32_t inl_decimal_max_precision(int32_t width);
int32_t inl_decimal_width(int32_t precision);
/* Largest precision a DECIMAL on t's physical type holds (0: none). */
int32_t inl_decimal_precision_limit(const inlay_type *t);

#endif
