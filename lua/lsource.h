/*
 * lsource.h — text sources and pipelines for Lua: the "inlay.source"
 * userdata over an inlay_source, the batch view a pipeline works on, and
 * the row loops of map and filter (see lsource.c). inlay.lua builds
 * inlay.csv, inlay.ndjson, inlay.infer and the pipeline methods on top.
 */
#ifndef LSOURCE_H
#define LSOURCE_H

#include "lerror.h"

/* Registers the source metatable and sets _source_open, _infer, _now and
 * _isatty in the module table on top of the stack. */
void li_open_source(lua_State *L);

#endif
