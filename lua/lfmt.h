/*
 * lfmt.h — values as text, for lprint.c: one formatter for every leaf
 * type, fed either from a reader's array slot or from a statistic's plain
 * bytes, and the walk over a nested field's inlay_array tree that writes
 * its values as JSON (lprint.h says what each type looks like).
 *
 * A field's shape (`pnode`) is built once from the schema: each node says
 * how its array is laid out (a leaf; a struct; a LIST or MAP, whose
 * children are those of the repeated middle group; a bare repeated field),
 * so the walk never looks at the schema per value.
 *
 * Text goes into an `sbuf`, a growable buffer that remembers an allocation
 * failure (`oom`) instead of failing every append, so callers check once.
 * Only inlay.h of the core; nothing of Lua.
 */
#ifndef LFMT_H
#define LFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <inlay.h>

typedef struct sbuf {
    char *p;
    size_t len, cap;
    bool oom;
} sbuf;

/* Room for `more` bytes past len; false (and oom set) when out of memory. */
bool inl_lua_sb_reserve(sbuf *b, size_t more);
void inl_lua_sb_printf(sbuf *b, const char *fmt, ...);
void inl_lua_sb_free(sbuf *b);

/* The appends of the hot loops: inline while there is room. */
static inline bool sb_room(sbuf *b, size_t more)
{
    return b->cap - b->len > more || inl_lua_sb_reserve(b, more);
}

static inline void sb_put(sbuf *b, const void *s, size_t n)
{
    if (n == 0 || !sb_room(b, n)) return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static inline void sb_puts(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

static inline void sb_putc(sbuf *b, char c)
{
    if (!sb_room(b, 1)) return;
    b->p[b->len++] = c;
}

/* How a value is written: as it is (a CSV field, a table cell) or as a
 * JSON value (strings quoted and escaped, NaN and infinities null). */
enum { M_PLAIN = 0, M_JSON = 1 };

void inl_lua_put_u64(sbuf *b, uint64_t v);
void inl_lua_put_i64(sbuf *b, int64_t v);
/* One byte as \xHH, as DuckDB writes a BLOB's bytes. */
void inl_lua_put_xbyte(sbuf *b, uint8_t c);
/* Text: valid UTF-8 as it is, other bytes as \xHH; quoted in M_JSON. */
void inl_lua_put_text(sbuf *b, const uint8_t *p, size_t n, int mode);
/* A NUL-terminated string as a JSON string; `"key":` after a comma unless
 * first. */
void inl_lua_json_str(sbuf *b, const char *s);
void inl_lua_json_key(sbuf *b, const char *s, bool first);

/* A statistic (a value's plain encoding, p NULL when absent: "-" or null)
 * of a leaf of type t; `stored` is the chunk's physical type as the file
 * has it (INT96, 3, reads as timestamp(ns)). Bytes that do not fit the
 * type are written as a blob. */
void inl_lua_put_stat(sbuf *b, const inlay_type *t, int stored, const uint8_t *p, size_t n, int mode);

/* Integers, floats and decimals: right-aligned in a table. */
bool inl_lua_type_is_numeric(const inlay_type *t);

typedef enum pn_kind { PN_LEAF, PN_STRUCT, PN_LIST, PN_MAP, PN_REPEATED } pn_kind;

typedef struct pnode {
    pn_kind kind;
    bool elem_struct;     /* LIST, REPEATED: an element is the object of the kids, not kids[0] alone */
    bool text_keys;       /* MAP: the keys are text, the map an object */
    const char *name;
    inlay_type type;      /* PN_LEAF */
    int nkids;
    struct pnode *kids;
} pnode;

/* The state of a walk over nested values. */
typedef struct render {
    sbuf *b;
    bool pretty;          /* ", " and ": " between items, for people */
    bool bad;             /* the arrays did not hold together */
} render;

/* The shape of schema node `node`, a top-level field. INLAY_OK,
 * INLAY_ERR_NOMEM, or INLAY_ERR_FORMAT for a node the schema does not have.
 * Free with inl_lua_shape_free, also after a failure. */
int inl_lua_shape_build(pnode *pn, const inlay_schema *s, int node);
void inl_lua_shape_free(pnode *pn);
/* Its type in short: int64, list<string>, struct<x: int32>, map<string, int64>. */
void inl_lua_shape_type(sbuf *b, const pnode *pn);

/* Entry i of a top-level field's array: a leaf in `mode`, a nested value
 * as JSON. False for a null (nothing written). Entries and offsets that do
 * not fit their arrays set rd->bad and are written as null. */
bool inl_lua_put_field(render *rd, const pnode *pn, const inlay_array *a, size_t i, int mode);

#endif
