/*
 * lreader.h — Parquet files read into Lua: inlay.read and the
 * "inlay.reader" userdata over an inlay_reader (see lreader.c), and the
 * view inlay.parquet's pipelines run on.
 */
#ifndef LREADER_H
#define LREADER_H

#include "lsource.h"

/* Registers the reader metatable and sets `read` in the module table on
 * top of the stack (after inl_lua_open_schema, whose list, struct and map
 * it keeps). */
void inl_lua_open_reader(lua_State *L);

#endif
