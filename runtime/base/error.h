/*
 * error.h — how the library records a failure.
 *
 * Every object that can fail owns one inl_err: the status of the last
 * failure, its message, and, when a value was at fault, the leaf column
 * and row it was in. Messages about a value all have the same shape,
 * "<kind> '<name>' row <n>: <reason>", and the reason can be read without
 * the prefix (inlay_writer_error_info hands it to hosts that say the
 * column and row their own way).
 *
 * Error paths stay one line: `return inl_err_set(&x->err, INLAY_ERR_VALUE,
 * "...", ...)` sets and returns the status, and INL_FORWARD(call) returns a
 * failed call's status unchanged.
 */
#ifndef INLAY_ERROR_H
#define INLAY_ERROR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "inlay.h"

#if defined(__GNUC__)
#define INL_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define INL_COLD __attribute__((cold))
#else
#define INL_PRINTF(fmt, args)
#define INL_COLD
#endif

typedef struct inl_err {
    int status;         /* of the last failure; INLAY_OK when none */
    int column;         /* the leaf column of a value at fault, else -1 */
    int64_t row;        /* its row, as the message counts it, else -1 */
    size_t reason_at;   /* where the reason starts in msg, past any prefix */
    char msg[512];
} inl_err;

/* Returns a failed call's status from the calling function. */
#define INL_FORWARD(call)                        \
    do {                                         \
        const int inl_forward_ = (call);         \
        if (inl_forward_) return inl_forward_;   \
    } while (0)

/* No failure: status INLAY_OK, message "". */
void inl_err_clear(inl_err *e);

/* Record a failure that is not about one value; returns status. */
INL_COLD INL_PRINTF(3, 4) int inl_err_set(inl_err *e, int status, const char *fmt, ...);
INL_COLD int inl_err_vset(inl_err *e, int status, const char *fmt, va_list ap);

/* Record a value at fault: "<kind> '<name>' row <row>: <reason>"
 * ("column 'price' row 12: ..."). column is the leaf column (-1 when the
 * failure is not a column's). Returns status. */
INL_COLD INL_PRINTF(7, 8) int inl_err_at(inl_err *e, int status, const char *kind, const char *name, int column,
                                         uint64_t row, const char *fmt, ...);

/* Add to the message of the last failure. */
INL_PRINTF(2, 3) void inl_err_append(inl_err *e, const char *fmt, ...);

/* For functions that report into a caller's buffer (err, errcap; err may
 * be NULL): the message there, status returned. */
INL_COLD INL_PRINTF(4, 5) int inl_err_format(char *err, size_t errcap, int status, const char *fmt, ...);

static inline const char *inl_err_reason(const inl_err *e) { return e->msg + e->reason_at; }

#endif
