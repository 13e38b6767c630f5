/*
 * linit.h — the libraries a state of the `inlay` command opens: Lua's
 * standard ones and inlay (the global `inlay`, and require "inlay"). The
 * command is linked with linit.c; the build used by the tests and
 * benchmarks links lprobe.c instead, which opens inlay.probe as well.
 */
#ifndef LINIT_H
#define LINIT_H

#include <lua.h>

LUAMOD_API int luaopen_inlay(lua_State *L);

/* Leaves the inlay module on the stack. */
void inl_lua_open_libs(lua_State *L);

#endif
