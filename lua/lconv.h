/*
 * lconv.h — Lua values into column values: the conversion layer of the
 * binding, below schemas, nested values and writers, knowing nothing of
 * any of them.
 *
 * An lfield says how a Lua value becomes a value of one column (or, for a
 * nested field, names the tree that does); it is derived from the core's
 * inlay_type by inl_lua_field_set_type, so the core's type table decides widths,
 * ranges, names and UTF-8. An lcol is a column's reusable scratch: typed
 * values (dense: nulls take no slot), definition levels, and derived bytes
 * (uuid text, float16, wide decimals). An lconv is what a conversion needs
 * besides: inlay.null's identity, the allocator scratch grows with, a
 * buffer for time columns given in another unit, and the arena that keeps
 * the bytes of staged rows.
 *
 * Conversions raise on a value that does not fit, naming the field and the
 * row ("column 'price' row 3: expected decimal(9,2), got ..."); nothing is
 * allocated per value, and scratch is reused from call to call.
 */
#ifndef LCONV_H
#define LCONV_H

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lerror.h"

/* How many pushed values a column loop leaves on the stack before cutting
 * it back; a caller makes room for this many and a few more. */
#define LI_STACK_RUN 32

/* How a Lua value becomes a column value. */
typedef enum inl_lua_kind {
    K_BOOL,      /* bool */
    K_INT32,     /* int32_t: int8..int32, uint8..uint32, date, time(ms); range lo..hi */
    K_INT64,     /* int64_t: int64, timestamp, time(us/ns); range lo..hi */
    K_UINT64,    /* int64_t bits of 0..2^64-1 */
    K_FLOAT,     /* float */
    K_DOUBLE,    /* double */
    K_BYTES,     /* inlay_bytes into the Lua string: string, binary, json, enum */
    K_FIXED,     /* inlay_bytes into the Lua string, length checked */
    K_UUID,      /* 16 raw bytes, or 36-character text parsed into scratch bytes */
    K_FLOAT16,   /* a number rounded to IEEE half, 2 scratch bytes */
    K_DEC32,     /* decimal on INT32: int32_t unscaled */
    K_DEC64,     /* decimal on INT64: int64_t unscaled */
    K_DECBIG,    /* decimal on FIXED_LEN_BYTE_ARRAY: big-endian scratch bytes */
    K_NESTED,    /* a list, struct or map field: see lnode (lschema.h) */
} inl_lua_kind;

struct lnode;

typedef struct lfield {
    const char *name;        /* for messages; points into a Lua string its owner keeps alive */
    size_t name_len;
    inl_lua_kind kind;
    inlay_type type;         /* leaves: the core's type */
    int optional;
    int utf8;                /* string, json, enum: the core requires valid UTF-8 */
    int64_t lo, hi;          /* K_INT32, K_INT64 */
    int32_t width;           /* bytes per value for K_FIXED, K_UUID, K_FLOAT16, K_DECBIG */
    int32_t precision, scale;
    char type_name[40];      /* "int8", "timestamp(us, utc)", "decimal(10,2)" ... */
    int time_unit1;          /* date, time, timestamp: the column's inlay_unit + 1; else 0 */
    int column;              /* top-level fields: the first leaf column */
    int slot;                /* flat top-level fields: index among the flat ones; nested: -1 */
    const struct lnode *node;   /* K_NESTED: the type tree; else NULL */
} lfield;

/* A column's scratch, reused by every call. */
typedef struct lcol {
    void *vals;              /* typed values (dense: nulls take no slot) */
    int16_t *def;            /* definition levels: 1 present, 0 null */
    uint8_t *bytes;          /* bytes derived from Lua values (uuid text, float16, decimals) */
    size_t vcap, dcap, bcap; /* entries of vals and def, bytes of bytes */
    size_t esize;            /* bytes per entry of vals */
    size_t bwidth;           /* bytes per entry of bytes (0: none) */
    size_t nvals, nulls;     /* rows staged by write/row: values and nulls so far */
    int from_unit1;          /* write_columns: inlay_unit + 1 the batch gives this column in; 0 = its own */
} lcol;

typedef struct lconv {
    const void *null_ud;     /* inlay.null */
    inlay_allocator alloc;
    int64_t *times;          /* a time column given in another unit, before conversion */
    size_t times_cap;
    uint8_t *arena;          /* bytes of staged rows; their inlay_bytes hold offsets into it */
    size_t arena_len, arena_cap;
} lconv;

/* Fill f's conversion (kind, range, widths, name, unit) from the core type
 * t, which the caller has made valid. */
void inl_lua_field_set_type(lfield *f, const inlay_type *t);
/* Bytes per entry of a field's values. */
size_t inl_lua_elem_size(const lfield *f);
/* Values of this kind are inlay_bytes. */
bool inl_lua_is_bytes(inl_lua_kind k);
/* ... of which the bytes are derived into scratch (uuid text, float16, wide decimals). */
bool inl_lua_derived_bytes(inl_lua_kind k);

void inl_lua_conv_init(lconv *cv, lua_State *L);

/* malloc/realloc/free as a lua_Alloc (ud unused): the inlay command's
 * states use it when no limit is set. */
void *inl_lua_libc_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
/* Allocators that may be called from other threads while the script runs
 * (the writer's workers, a source's parsing thread): inl_lua_libc_alloc,
 * those marked (lembed.c's budget, which locks), and those the hook
 * accepts (the probe's counter over one of them). */
void inl_lua_alloc_mark_safe(void *fn);
bool inl_lua_alloc_thread_safe(void *fn);
extern bool (*inl_lua_alloc_safe_hook)(void *fn);
void inl_lua_conv_free(lconv *cv);
void *inl_lua_resize(lconv *cv, void *p, size_t osize, size_t nsize);

/* Scratch for n rows of field f (nested fields have their own). Raises
 * when out of memory. */
void inl_lua_col_reserve(lua_State *L, lconv *cv, const lfield *f, lcol *c, size_t n);
void inl_lua_col_free(lconv *cv, lcol *c);

bool inl_lua_is_null(lua_State *L, const lconv *cv, int idx, int t);

/* The value at idx (of type t) into slot k of c. Returns 1 when a value was
 * stored, 0 for a null; raises when it does not fit. `row` names it. */
int inl_lua_put_value(lua_State *L, const lconv *cv, const lfield *f, lcol *c, size_t k, uint64_t row, int idx, int t);

/* n entries of the array at `tab` into c: one tight loop per kind. Row
 * numbers in messages are 1-based indexes into the array. Returns whether
 * any entry was null. */
bool inl_lua_convert_column(lua_State *L, const lconv *cv, const lfield *f, lcol *c, int tab, size_t n);
/* The same for a date, time or timestamp column whose array holds integers
 * in another unit (c->from_unit1), converted in one pass. */
bool inl_lua_convert_time_column(lua_State *L, lconv *cv, const lfield *f, lcol *c, int tab, size_t n);

/* A byte value about to be kept: valid UTF-8 for text columns, at most
 * INT32_MAX bytes. */
void inl_lua_check_bytes(lua_State *L, const lfield *f, uint64_t row, const inlay_bytes *b);
/* Copy a staged row's bytes to the arena at *apos; returns their offset. */
size_t inl_lua_arena_put(lua_State *L, lconv *cv, size_t *apos, const void *p, size_t len);

/* Doubles to floats without undefined behaviour: past FLT_MAX, round to
 * nearest (ties go to even, which is infinity). */
static inline float inl_lua_to_float(double d)
{
    if (LI_LIKELY(fabs(d) <= FLT_MAX) || !isfinite(d)) return (float)d;
    const double edge = (double)FLT_MAX + 0x1p103;
    float f = fabs(d) < edge ? FLT_MAX : INFINITY;
    return d < 0 ? -f : f;
}

/* The names of inlay_unit for write_columns' units option, NULL-terminated. */
extern const char *const inl_lua_unit_names[];

#endif
