/*
 * validate.h — checking a batch against its column before anything is
 * written.
 *
 * Every append is checked whole first (levels, nulls, value ranges, widths,
 * UTF-8), so a rejected call leaves the column exactly as it was.
 */
#ifndef INLAY_VALIDATE_H
#define INLAY_VALIDATE_H

#include "column.h"
#include "error.h"

/* Levels: def/rep in range, a batch starting at a row boundary, no null in a
 * required column. Returns 0, or the status with err set: its message is
 * the reason and err->row the index of the offending entry in the batch. */
int inl_validate_levels(const column *c, const int16_t *def, const int16_t *rep, size_t count, inl_err *err);

/* The values (dense, n of them). err->row is the index of the offending
 * value among them; the caller maps it back to a batch entry. */
int inl_validate_values(const column *c, const void *values, size_t n, inl_err *err);

/* The same, for values the caller has made in a form that needs fewer
 * checks: byte strings that are known to have their data, a length within
 * INT32_MAX (the column's width, for FIXED_LEN_BYTE_ARRAY) and, for text
 * columns, valid UTF-8 (arrow.c makes them from Arrow buffers, checking a
 * string array's bytes in one pass) are not looked at again; values of
 * other types are checked as inl_validate_values does. */
int inl_validate_values_prechecked(const column *c, const void *values, size_t n, inl_err *err);

/* Check n byte-array values while staging them into the column's
 * dictionary (inl_column_stage): the table refuses a value Parquet cannot
 * hold as it looks it up, and for text each new dictionary entry's UTF-8 is
 * checked once, rather than every value. Stops early when
 * the dictionary reaches its limit: *staged gets how many were staged, the
 * rest being for inl_validate_values. Returns 0, or the status with err
 * set (err->row: the value at fault; INLAY_ERR_NOMEM) and nothing staged. */
int inl_validate_stage_bytes(column *c, column_env *e, const inlay_bytes *v, size_t n, bool prechecked,
                             inl_err *err, size_t *staged);

#endif
