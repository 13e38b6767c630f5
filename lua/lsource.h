/*
 * lsource.h — text sources and pipelines for Lua: the "inlay.source"
 * userdata over an inlay_source, the batch view a pipeline works on, and
 * the row loops of map and filter (see lsource.c). inlay.lua builds
 * inlay.csv, inlay.ndjson, inlay.infer and the pipeline methods on top.
 */
#ifndef LSOURCE_H
#define LSOURCE_H

#include "lschema.h"

/* Registers the source metatable and sets _source_open, _infer, _now and
 * _isatty in the module table on top of the stack. */
void inl_lua_open_source(lua_State *L);

/* Pushes a source without an input of its own, for the flat schema at
 * schema_idx: a view over batches a host program hands over
 * (inl_lua_source_set_batch), for the pipeline stages and src:_write. */
void inl_lua_source_borrow(lua_State *L, int schema_idx);
/* The view at idx starts over on `batch` (rows rows, one entry per schema
 * column, borrowed: the caller keeps it alive until the next call, and
 * sets NULL, 0 before it goes away). */
void inl_lua_source_set_batch(lua_State *L, int idx, const inlay_column_batch *batch, size_t rows);

#endif
