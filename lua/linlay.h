/*
 * linlay.h — what the files of the Lua binding share (not installed).
 *
 * The binding has three userdata types, each with a metatable registered
 * under its name:
 *
 *   "inlay.type"    a column type made by inlay.timestamp/time/decimal/fixed;
 *                   it only records its arguments, which inlay.schema checks
 *                   (so a bad one is reported with the field's path)
 *   "inlay.schema"  an inlay_schema plus one lfield per column, which says
 *                   how a Lua value becomes a value of that column
 *   "inlay.writer"  an inlay_writer plus reusable scratch arrays (one lcol
 *                   per column) that Lua values are converted into before a
 *                   single inlay_writer_append_columns() call
 *
 * The binding sees the core only through inlay.h. The schema is flat (no
 * groups yet), so field i is leaf column i.
 */
#ifndef LINLAY_H
#define LINLAY_H

#include <stddef.h>
#include <stdint.h>

#include <inlay.h>
#include <lauxlib.h>
#include <lua.h>

#define LI_TYPE "inlay.type"
#define LI_SCHEMA "inlay.schema"
#define LI_WRITER "inlay.writer"

#if defined(__GNUC__)
#define LI_LIKELY(x) __builtin_expect(!!(x), 1)
#define LI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define LI_NOINLINE __attribute__((noinline))
#define LI_NORETURN __attribute__((noreturn))
#else
#define LI_LIKELY(x) (x)
#define LI_UNLIKELY(x) (x)
#define LI_NOINLINE
#define LI_NORETURN
#endif

/* How a Lua value becomes a column value; one per column. */
typedef enum li_kind {
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
} li_kind;

typedef struct lfield {
    const char *name;        /* points into a Lua string the schema keeps alive */
    size_t name_len;
    li_kind kind;
    int optional;
    int utf8;                /* string, json, enum: the core requires valid UTF-8 */
    int64_t lo, hi;          /* K_INT32, K_INT64 */
    int32_t width;           /* bytes per value for K_FIXED, K_UUID, K_FLOAT16, K_DECBIG */
    int32_t precision, scale;
    char type_name[40];      /* "int8", "timestamp(us, utc)", "decimal(10,2)" ... */
    int time_unit1;          /* date, time, timestamp: the column's inlay_unit + 1; else 0 */
} lfield;

/* The userdata behind a schema. `s` is NULL until it is complete. */
typedef struct lschema {
    inlay_schema *s;
    int nfields;
    unsigned hash_mask;      /* name pointer -> field index, open addressing */
    int *hash;               /* points after fields[] in this block */
    lfield fields[];
} lschema;

/* Per-column scratch of a writer, reused by every call. */
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

/* lmodule.c */
void li_push_null(lua_State *L);                 /* pushes inlay.null */
const void *li_null_pointer(lua_State *L);       /* its identity, for comparisons */
LI_NORETURN void li_error(lua_State *L, const char *fmt, ...); /* raises "inlay: " .. message */

/* lschema.c */
int li_open_types(lua_State *L);                 /* registers type/schema metatables */
lschema *li_check_schema(lua_State *L, int idx);
int li_schema_new(lua_State *L);                 /* inlay.schema{...} */
enum { T_TIMESTAMP, T_TIME, T_DECIMAL, T_FIXED };
int li_type_ctor(lua_State *L, int which);      /* inlay.timestamp, time, decimal, fixed */
int li_field_lookup(const lschema *s, const char *name, size_t len);
size_t li_elem_size(li_kind k);

/* lwriter.c */
int li_open_writer(lua_State *L);                /* registers the writer metatable */
int li_writer_open(lua_State *L);                /* inlay.open(path, schema, opts) */
int li_bench_read_columns(lua_State *L);
int li_bench_convert_columns(lua_State *L);
void li_writer_append_batch(lua_State *L, int widx, int arrays, size_t n, const inlay_column_batch *ext,
                            uint64_t first_row);
const lschema *li_writer_schema(lua_State *L, int widx);

/* lsource.c */
int li_open_source(lua_State *L);                /* registers the source and batch metatables */
int li_source_open(lua_State *L);                /* inlay._source_open(path, schema, opts) */
int li_source_infer(lua_State *L);               /* inlay._infer(path, opts) */

/* lconv.c: conversions that are not a plain load and store */
float li_to_float(double d);
/* A decimal from text (exact) or from a number (rounded to `scale`):
 * writes the unscaled value as big-endian two's complement in out[0..width)
 * (width <= 32). Returns NULL or a static reason. */
const char *li_decimal_from_text(const char *s, size_t len, int precision, int scale,
                                 int round, uint8_t *out, int width);
const char *li_decimal_from_number(double d, int precision, int scale, uint8_t *out, int width);
const char *li_decimal_from_integer(lua_Integer v, int precision, int scale, uint8_t *out, int width);
int64_t li_be_to_i64(const uint8_t *p, int width);
/* uint64 from decimal text "0".."18446744073709551615"; 0 when not valid. */
int li_parse_u64(const char *s, size_t len, uint64_t *out);

#endif /* LINLAY_H */
