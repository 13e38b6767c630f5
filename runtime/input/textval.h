/*
 * textval.h — the text forms of typed values: one CSV or NDJSON field in,
 * one Parquet value out.
 *
 * The sources call these on every field, so each is a pure function of
 * (s, len): the text is not NUL-terminated, may sit in the middle of a
 * larger buffer, and is never read past s[len - 1]. Nothing allocates,
 * nothing depends on the process locale, nothing trims: whitespace around
 * the value is a syntax error (the caller trims when asked to).
 *
 * Every parser returns TEXTVAL_OK, TEXTVAL_SYNTAX (the text is not of the
 * form) or TEXTVAL_RANGE (well formed, but the value does not fit the
 * column); a syntax error anywhere in the text wins over a range error.
 * Outputs are written only on TEXTVAL_OK. The caller formats the message.
 *
 * All functions are safe to call from several threads at once. The only
 * shared state belongs to the floating point parsers: a table of powers of
 * ten they build on first use (a thread that finds it being built takes
 * the slow path meanwhile) and the "C" locale their rare slow path creates
 * once; both are published atomically and kept for the life of the process.
 */
#ifndef INLAY_TEXTVAL_H
#define INLAY_TEXTVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inlay.h"

enum {
    TEXTVAL_OK = 0,
    TEXTVAL_SYNTAX = -1,   /* cannot be parsed as the type */
    TEXTVAL_RANGE = -2,    /* well formed, out of the column's range */
    TEXTVAL_SCALE = -3,    /* a decimal with non-zero digits past the scale (when not rounding) */
};

/* [+-]digits. '+' is always allowed; '-' on an unsigned column only in
 * front of a zero ("-0", "-00"): "-5" there is TEXTVAL_RANGE. Leading zeros
 * are fine. bit_width is 1..64 (the columns use 8/16/32/64); the value is
 * range-checked for it. An unsigned 64-bit value above INT64_MAX comes back
 * as the same bit pattern in *out. */
int inl_textval_int(const char *s, size_t len, int bit_width, bool is_signed, int64_t *out);

/* [+-](digits[.digits] | .digits | digits.)[(e|E)[+-]digits], or
 * [+-]nan / inf / infinity in any case. Correctly rounded: bit for bit what
 * strtod/strtof give in the "C" locale. A finite literal beyond the largest
 * finite value (1e400) is TEXTVAL_RANGE; one that underflows gives a
 * subnormal or a signed zero and is fine. No hexadecimal forms, no
 * "nan(...)". */
int inl_textval_double(const char *s, size_t len, double *out);
int inl_textval_float(const char *s, size_t len, float *out);

/* true/false, t/f, yes/no, y/n in any case, and 1/0. */
int inl_textval_bool(const char *s, size_t len, bool *out);

/* The number syntax of inl_textval_double without nan/inf, kept exact: the
 * value times 10^scale must be an integer (extra fraction digits must be
 * zeros: "1.500" at scale 2 is 150, "1.234" is TEXTVAL_RANGE) of at most
 * `precision` digits (|unscaled| < 10^precision; precision is capped at 38,
 * and below 1 only zero fits). An exponent is applied exactly ("1.5e2").
 * The unscaled value comes back as a 128-bit two's complement integer,
 * *hi:*lo (hi is the sign extension of lo when it fits 64 bits). */
int inl_textval_decimal(const char *s, size_t len, int32_t precision, int32_t scale,
                    int64_t *unscaled_lo, int64_t *unscaled_hi);

/* The same syntax, for a DECIMAL of any width: the unscaled value as
 * big-endian two's complement in out[0..width) (width 1..32, precision up
 * to what width holds, 76 digits at 32 bytes), as FIXED_LEN_BYTE_ARRAY
 * decimals store it. Digits past the scale are refused (TEXTVAL_SCALE) or,
 * with `round`, rounded half away from zero ("2.675" at scale 2 is 268).
 * More than `precision` digits before the scale is TEXTVAL_RANGE. out is
 * written only on TEXTVAL_OK. */
int inl_textval_decimal_bytes(const char *s, size_t len, int32_t precision, int32_t scale, bool round,
                              uint8_t *out, size_t width);

/* YYYY-MM-DD, or [+-]YYYY[YY]-MM-DD (4 to 6 year digits after a sign) for
 * far years; proleptic Gregorian, year 0 = 1 BC. Month and day are checked
 * against the month's length. *days counts from 1970-01-01. */
int inl_textval_date(const char *s, size_t len, int32_t *days);

/* A date (as inl_textval_date), alone (midnight) or followed by 'T', 't' or ' '
 * and HH:MM[:SS[.f]] with 1 to 9 fraction digits, then optionally a zone:
 * Z, z, +HH:MM, -HH:MM, +HHMM, -HHMM, +HH or -HH. With a zone the value is
 * the UTC instant (local time minus the offset) and *had_offset is true;
 * without one it is the wall-clock time as written and *had_offset is
 * false (had_offset may be NULL). Fraction digits finer than `unit` are
 * dropped toward negative infinity (the floor of the exact instant, also
 * before 1970). Hours 0..23, minutes and seconds 0..59 (a leap second
 * "23:59:60" is TEXTVAL_SYNTAX), offsets up to 23:59. A value past what
 * int64 holds in `unit` (nanoseconds past 2262) is TEXTVAL_RANGE. *out
 * counts `unit`s from 1970-01-01T00:00:00. A `unit` outside the enum
 * gives TEXTVAL_SYNTAX. */
int inl_textval_timestamp(const char *s, size_t len, inlay_time_unit unit, int64_t *out,
                      bool *had_offset);

/* HH:MM[:SS[.f]] as in inl_textval_timestamp (no zone; "24:00:00" is
 * TEXTVAL_SYNTAX), as `unit`s since midnight. */
int inl_textval_time(const char *s, size_t len, inlay_time_unit unit, int64_t *out);

/* ---- inference -------------------------------------------------------- */

typedef enum textval_kind {
    TEXTVAL_KIND_STRING = 0,
    TEXTVAL_KIND_INT,
    TEXTVAL_KIND_DOUBLE,
    TEXTVAL_KIND_BOOL,
    TEXTVAL_KIND_DATE,
    TEXTVAL_KIND_TIMESTAMP,
    TEXTVAL_KIND_TIME,
} textval_kind;

/* What inl_textval_classify learnt besides the kind; fields not named for the
 * kind are zero. */
typedef struct textval_class {
    int64_t value;          /* INT: the value (the uint64 bit pattern when `big`) */
    bool big;               /* INT: above INT64_MAX, fits only uint64 */
    bool leading_zero;      /* INT: written with a leading zero ("007"): perhaps a code */
    bool truth;             /* BOOL: the value */
    bool exponent;          /* DOUBLE: written with an exponent (or nan/inf) */
    bool had_offset;        /* TIMESTAMP: a zone was given */
    uint32_t frac_digits;   /* DOUBLE: digits after '.'; TIMESTAMP, TIME: of the seconds */
    uint32_t sig_digits;    /* DOUBLE: significant digits (leading zeros not counted) */
} textval_class;

/* The narrowest kind the text parses as, in one pass:
 *  - INT: inl_textval_int accepts it as a signed 64-bit value, or it is a
 *    non-negative value up to UINT64_MAX (`big`). An integer beyond both
 *    is STRING: it has no exact numeric column, and a 30-digit value is far
 *    more often an identifier than a quantity.
 *  - DOUBLE: inl_textval_double accepts it and it is not an INT (a '.', an
 *    exponent, nan or inf). A literal that overflows is STRING.
 *  - BOOL: true/false/yes/no/t/f in any case (not y/n, and 0/1 are INT).
 *  - DATE: inl_textval_date accepts it.
 *  - TIMESTAMP: a date with a time part, valid as inl_textval_timestamp
 *    checks it (whether it fits a given unit is left to the caller:
 *    `frac_digits` says which units keep it whole).
 *  - TIME: inl_textval_time accepts it.
 *  - STRING: anything else, the empty text included.
 * info may be NULL. */
textval_kind inl_textval_classify(const char *s, size_t len, textval_class *info);

#endif
