/*
 * lmodule.c — luaopen_inlay: the module table, filled by each part of the
 * binding in stack order (inlay.null, types and schemas, writers, datasets,
 * sources, readers), then the helpers written in Lua (inlay.lua, compiled into the
 * binary).
 *
 * The same objects are linked into the `inlay` command and built as
 * inlay.so for a stock lua5.4 (`require "inlay"`), which exports nothing
 * but luaopen_inlay.
 */
#include "ldataset.h"
#include "lprint.h"
#include "lreader.h"
#include "lschema.h"
#include "lsource.h"
#include "lwriter.h"
#include "inlay_lua_chunk.h"   /* generated from inlay.lua: inlay_lua_source */

#if defined(__GNUC__)
#define LI_EXPORT __attribute__((visibility("default")))
#else
#define LI_EXPORT
#endif

LUAMOD_API LI_EXPORT int luaopen_inlay(lua_State *L);

LUAMOD_API LI_EXPORT int luaopen_inlay(lua_State *L)
{
    luaL_checkversion(L);
    lua_newtable(L);
    inl_lua_open_null(L);
    inl_lua_open_schema(L);
    inl_lua_open_writer(L);
    inl_lua_open_dataset(L);
    inl_lua_open_source(L);
    inl_lua_open_reader(L);
    inl_lua_open_print(L);
    lua_pushliteral(L, INLAY_VERSION_STRING);
    lua_setfield(L, -2, "version");
    /* the helpers written in Lua get the module table as their argument */
    if (luaL_loadbuffer(L, inlay_lua_source, sizeof inlay_lua_source - 1, "=inlay.lua") != LUA_OK)
        return lua_error(L);
    lua_pushvalue(L, -2);
    lua_call(L, 1, 0);
    return 1;
}
