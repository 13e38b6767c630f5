/*
 * error.c — status codes and their texts, and recording failures (see
 * error.h).
 */
#include <stdio.h>
#include <string.h>

#include "error.h"

const char *inlay_strerror(int status)
{
    switch (status) {
    case INLAY_OK: return "ok";
    case INLAY_ERR_ARGUMENT: return "bad argument";
    case INLAY_ERR_SCHEMA: return "invalid schema";
    case INLAY_ERR_COLUMN: return "no such column";
    case INLAY_ERR_TYPE: return "wrong type for the column";
    case INLAY_ERR_VALUE: return "value does not fit the column";
    case INLAY_ERR_NULL: return "null in a required column";
    case INLAY_ERR_LEVEL: return "level out of range";
    case INLAY_ERR_STATE: return "writer is not open";
    case INLAY_ERR_NOMEM: return "out of memory";
    case INLAY_ERR_IO: return "write failed";
    case INLAY_ERR_COMPRESS: return "compression failed";
    case INLAY_ERR_FORMAT: return "not a valid Parquet file";
    default: return "unknown status";
    }
}

void inl_err_clear(inl_err *e)
{
    e->status = INLAY_OK;
    e->column = -1;
    e->row = -1;
    e->reason_at = 0;
    e->msg[0] = '\0';
}

int inl_err_vset(inl_err *e, int status, const char *fmt, va_list ap)
{
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    e->status = status;
    e->column = -1;
    e->row = -1;
    e->reason_at = 0;
    return status;
}

int inl_err_set(inl_err *e, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    inl_err_vset(e, status, fmt, ap);
    va_end(ap);
    return status;
}

int inl_err_at(inl_err *e, int status, const char *kind, const char *name, int column, uint64_t row,
               const char *fmt, ...)
{
    int n = snprintf(e->msg, sizeof e->msg, "%s '%s' row %llu: ", kind, name, (unsigned long long)row);
    size_t at = n > 0 && (size_t)n < sizeof e->msg ? (size_t)n : 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg + at, sizeof e->msg - at, fmt, ap);
    va_end(ap);
    e->status = status;
    e->column = column;
    e->row = (int64_t)row;
    e->reason_at = at;
    return status;
}

void inl_err_append(inl_err *e, const char *fmt, ...)
{
    size_t len = strlen(e->msg);
    if (len + 1 >= sizeof e->msg) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg + len, sizeof e->msg - len, fmt, ap);
    va_end(ap);
}

int inl_err_format(char *err, size_t errcap, int status, const char *fmt, ...)
{
    if (err && errcap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errcap, fmt, ap);
        va_end(ap);
    }
    return status;
}
