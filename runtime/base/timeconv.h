/*
 * timeconv.h — converting whole arrays of dates, times and timestamps
 * between units, with the unit decision made once per array (a multiply or
 * a floor division by one constant) and a tight loop per case.
 */
#ifndef INLAY_TIMECONV_H
#define INLAY_TIMECONV_H

#include <stddef.h>
#include <stdint.h>

#include "inlay.h"

/* Nanoseconds in one unit. */
int64_t inl_timeconv_unit_ns(inlay_unit u);

/* dst[i] = src[i] converted from `from` to `to` (coarser to finer
 * multiplies, finer to coarser floors). Returns n, or the index of the
 * first value that overflows the destination (int64, or int32 when
 * narrow); dst is then partly written. Entries whose validity bit is clear
 * (validity may be NULL) are converted but never reported. */
size_t inl_timeconv_run(void *dst, bool narrow, const int64_t *src, size_t n, inlay_unit from,
                    inlay_unit to, const uint8_t *validity);

#endif
