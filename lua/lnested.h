/*
 * lnested.h — Lua values of nested fields (lists, structs, maps) into the
 * Arrow-shaped arrays inlay_writer_append_array takes (see lnested.c).
 *
 * Rows staged by write/row are kept (commit) or dropped (rollback) as a
 * whole; write_columns converts a whole column into fresh scratch (reset).
 * inl_lua_nest_array fixes up the bytes values and returns the field's
 * inlay_array; `arena` is the conversion's arena when the rows were staged,
 * else NULL.
 */
#ifndef LNESTED_H
#define LNESTED_H

#include "lconv.h"
#include "lschema.h"

typedef struct lnest lnest;

lnest *inl_lua_nest_new(const lschema *s, inlay_allocator a, const void *null_ud);
void inl_lua_nest_free(lnest *ns);          /* uses nothing of the schema, which may be gone already */
void inl_lua_nest_reset(lnest *ns);
void inl_lua_nest_rollback(lnest *ns);
void inl_lua_nest_commit(lnest *ns);

/* One row's value of field f (at idx), staged: its bytes go to cv's arena
 * at *apos. */
void inl_lua_nest_stage(lua_State *L, lnest *ns, lconv *cv, const lfield *f, int idx, uint64_t row, size_t *apos);
/* n null entries of field f. */
void inl_lua_nest_nulls(lua_State *L, lnest *ns, const lfield *f, size_t n);
/* n rows of field f from the array (or { offsets =, values = } table) at
 * tab; rows in messages are first_row + 1 ... */
void inl_lua_nest_column(lua_State *L, lnest *ns, lconv *cv, const lfield *f, int tab, size_t n, uint64_t first_row);
/* Rows of a nested column given to write_columns: #t, or #offsets - 1. */
lua_Integer inl_lua_nest_column_rows(lua_State *L, int tab);
const inlay_array *inl_lua_nest_array(lnest *ns, const lfield *f, const uint8_t *arena);

#endif
