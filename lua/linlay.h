/*
 * linlay.h — what the files of the Lua binding share (not installed).
 *
 * The binding has three userdata types, each with a metatable registered
 * under its name:
 *
 *   "inlay.type"    a column type made by inlay.timestamp/time/decimal/fixed
 *                   or inlay.list/struct/map; it only records its arguments,
 *                   which inlay.schema checks (so a bad one is reported with
 *                   the field's path)
 *   "inlay.schema"  an inlay_schema plus one lfield per top-level field,
 *                   which says how a Lua value becomes a value of that field
 *   "inlay.writer"  an inlay_writer plus reusable scratch arrays (one lcol
 *                   per field) that Lua values are converted into before a
 *                   single inlay_writer_append_columns() call
 *
 * The binding sees the core only through inlay.h.
 *
 * Fields and columns: a flat field is one leaf column; a nested field (a
 * list, struct or map at the top level) is a tree of lnode whose leaves are
 * several consecutive columns, fields[i].column .. + nleaves - 1. In a
 * schema without nested fields, field i is leaf column i and batch slot i,
 * as before nested types existed; the flat paths rely on `slot` and
 * `column` only, and never look at the tree.
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
    K_NESTED,    /* a list, struct or map field: see lnode */
} li_kind;

struct lnode;

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
    int column;              /* top-level fields: the first leaf column */
    int slot;                /* flat top-level fields: index among the flat ones; nested: -1 */
    const struct lnode *node;   /* K_NESTED: the type tree; else NULL */
} lfield;

/* One node of a nested field's type tree. Every node has an id, unique in
 * its schema, that indexes a writer's per-node scratch; the children of a
 * node have consecutive ids (first .. first + nchildren - 1), so their
 * inlay_array descriptions lie side by side as the core wants them. */
typedef enum li_nkind { N_LEAF, N_STRUCT, N_LIST, N_MAP } li_nkind;

typedef struct lnode {
    li_nkind kind;
    int id, first, nchildren;
    const struct lnode *const *children;   /* list: element; map: key, value; struct: fields */
    const char *name;        /* its name in its struct (an interned Lua string); else "element", "key", "value" */
    size_t name_len;
    const char *ppath;       /* leaves: the column's path in the Parquet schema ("tags.list.element") */
    unsigned hash_mask;      /* struct: field name pointer -> child index, open addressing */
    const int *hash;
    lfield f;                /* f.name: the dotted path in messages ("hits.element.pos.x"); f.optional:
                                entries may be null; f.type_name: the leaf's type, or "list", "struct", "map";
                                leaves: the conversion, as for a flat column */
} lnode;

/* The userdata behind a schema. `s` is NULL until it is complete. */
typedef struct lschema {
    inlay_schema *s;
    int nfields;             /* top-level fields */
    int ncolumns;            /* leaf columns */
    int nflat;               /* flat fields (batch slots) */
    int nnodes;              /* nodes of all nested fields (0: a flat schema) */
    int depth;               /* deepest nesting, in nodes */
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

struct lwriter;
typedef struct lnest lnest;  /* a writer's scratch for nested fields (lnested.c) */

/* lmodule.c */
void li_push_null(lua_State *L);                 /* pushes inlay.null */
const void *li_null_pointer(lua_State *L);       /* its identity, for comparisons */
LI_NORETURN void li_error(lua_State *L, const char *fmt, ...); /* raises "inlay: " .. message */

/* lschema.c */
int li_open_types(lua_State *L);                 /* registers type/schema metatables */
lschema *li_check_schema(lua_State *L, int idx);
int li_schema_new(lua_State *L);                 /* inlay.schema{...} */
enum { T_TIMESTAMP, T_TIME, T_DECIMAL, T_FIXED, T_LIST, T_STRUCT, T_MAP };
int li_type_ctor(lua_State *L, int which);      /* inlay.timestamp, time, decimal, fixed, list, struct, map */
int li_field_lookup(const lschema *s, const char *name, size_t len);
int li_struct_lookup(const lnode *n, const char *name, size_t len);   /* child index, or -1 */
size_t li_elem_size(li_kind k);

/* lwriter.c */
int li_open_writer(lua_State *L);                /* registers the writer metatable */
int li_writer_open(lua_State *L);                /* inlay.open(path, schema, opts) */
int li_bench_read_columns(lua_State *L);
int li_bench_convert_columns(lua_State *L);
void li_writer_append_batch(lua_State *L, int widx, int arrays, size_t n, const inlay_column_batch *ext,
                            uint64_t first_row);
const lschema *li_writer_schema(lua_State *L, int widx);
/* For lnested.c: one value into slot k of a column's scratch, as the flat
 * paths convert it (returns 1 for a value, 0 for a null; raises when it
 * does not fit), and a row's bytes copied into the writer's arena at *apos
 * (returns their offset there). */
int li_put_value(lua_State *L, const struct lwriter *lw, const lfield *f, lcol *c, size_t k, uint64_t row,
                 int idx, int t);
size_t li_arena_put(lua_State *L, struct lwriter *lw, size_t *apos, const void *p, size_t len);

/* lnested.c: Lua values of nested fields into Arrow-shaped scratch arrays.
 * Rows staged by write/row are kept (commit) or dropped (rollback) as a
 * whole; write_columns converts a whole column into fresh scratch (reset).
 * li_nest_array fixes up the bytes values and returns the field's
 * inlay_array for inlay_writer_append_array; `arena` is the writer's row
 * arena when the rows were staged, else NULL. */
lnest *li_nest_new(const lschema *s, inlay_allocator a, const void *null_ud);
void li_nest_free(lnest *ns);
void li_nest_reset(lnest *ns);
void li_nest_rollback(lnest *ns);
void li_nest_commit(lnest *ns);
void li_nest_stage(lua_State *L, lnest *ns, struct lwriter *lw, const lfield *f, int idx, uint64_t row,
                   size_t *apos);
void li_nest_nulls(lua_State *L, lnest *ns, const lfield *f, size_t n);   /* n null entries */
void li_nest_column(lua_State *L, lnest *ns, struct lwriter *lw, const lfield *f, int tab, size_t n,
                    uint64_t first_row);
lua_Integer li_nest_column_rows(lua_State *L, int tab);   /* rows of a column: #t, or #offsets - 1 */
const inlay_array *li_nest_array(lnest *ns, const lfield *f, const uint8_t *arena);

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
