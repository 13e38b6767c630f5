/*
 * linit.c — the libraries of the `inlay` command (see linit.h).
 */
#include <lauxlib.h>
#include <lualib.h>

#include "linit.h"

void inl_lua_open_libs(lua_State *L)
{
    luaL_openlibs(L);
    luaL_requiref(L, "inlay", luaopen_inlay, 1);
}
