/*
 * check.h — checking a batch against its column before anything is written.
 *
 * Every append is checked whole first (levels, nulls, value ranges, widths,
 * UTF-8), so a rejected call leaves the column exactly as it was.
 */
#ifndef INLAY_CHECK_H
#define INLAY_CHECK_H

#include "column.h"

typedef struct check_error {
    int status;
    size_t entry;          /* index in the batch of the offending entry */
    char what[160];
} check_error;

/* Levels: def/rep in range, a batch starting at a row boundary, no null in a
 * required column. Returns 0 or the status, with *err filled. */
int check_levels(const column *c, const int16_t *def, const int16_t *rep, size_t count,
                 check_error *err);

/* The values (dense, n of them). err->entry is the index of the offending
 * value among them; the caller maps it back to a batch entry. */
int check_values(const column *c, const void *values, size_t n, check_error *err);

/* True if p[0..n) is valid UTF-8. */
bool check_utf8(const uint8_t *p, size_t n);

#endif
