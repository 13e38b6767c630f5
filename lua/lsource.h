/*
 * lsource.h — text sources and pipelines for Lua: the "inlay.source"
 * userdata over an inlay_source, the batch view a pipeline works on, and
 * the row loops of map and filter (see lsource.c). inlay.lua builds
 * inlay.csv, inlay.ndjson, inlay.infer and the pipeline methods on top;
 * lreader.c builds the view of inlay.parquet.
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

/* Pushes a cell of a view over a reader's batch: column `column` (the
 * view schema's field number), row `row` of the batch; nil for a null. */
typedef void (*inl_lua_cell_fn)(lua_State *L, void *ctx, int column, size_t row);

/* Pushes a source without an input of its own over a reader's batches
 * (lreader.c), for the schema at schema_idx, which may have nested fields:
 * each batch (inl_lua_source_set_arrays) is one inlay_array per schema
 * field in the schema's layout, and `cell` pushes its values for map,
 * filter and map_batch. */
void inl_lua_source_borrow_arrays(lua_State *L, int schema_idx, inl_lua_cell_fn cell, void *ctx);
/* The view at idx starts over on `arrays` (borrowed as for
 * inl_lua_source_set_batch), whose first row is row first_row of the
 * input (0-based, for messages). */
void inl_lua_source_set_arrays(lua_State *L, int idx, const inlay_array *const *arrays, size_t rows,
                               uint64_t first_row);

/* Pushes value k of a values array laid out for field f (as the append
 * calls take them) as the Lua value write_columns takes back: integers,
 * numbers, booleans, strings; decimals as exact text, a uuid as its
 * 36-character text, a uint64 past 2^63 as decimal text. */
void inl_lua_push_value(lua_State *L, const lfield *f, const void *values, size_t k);

#endif
