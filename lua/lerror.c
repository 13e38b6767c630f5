/*
 * lerror.c — errors and inlay.null (see lerror.h).
 */
#include <stdarg.h>

#include "lerror.h"

#define NULL_KEY "inlay.null"

/* Raises "inlay: " .. the message formatted from fmt and ap. */
static LI_NORETURN void raise_message(lua_State *L, const char *fmt, va_list ap)
{
    lua_pushliteral(L, "inlay: ");
    lua_pushvfstring(L, fmt, ap);
    lua_concat(L, 2);
    lua_error(L);
    for (;;) {}   /* lua_error does not return */
}

void inl_lua_error(lua_State *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    raise_message(L, fmt, ap);
}

#define STATUS_KEY "inlay.status"

void inl_lua_fail(lua_State *L, int status, const char *fmt, ...)
{
    lua_pushinteger(L, status);
    lua_setfield(L, LUA_REGISTRYINDEX, STATUS_KEY);
    va_list ap;
    va_start(ap, fmt);
    raise_message(L, fmt, ap);
}

int inl_lua_last_status(lua_State *L)
{
    int status = lua_getfield(L, LUA_REGISTRYINDEX, STATUS_KEY) == LUA_TNUMBER ? (int)lua_tointeger(L, -1) : INLAY_OK;
    lua_pop(L, 1);
    return status;
}

void inl_lua_clear_status(lua_State *L)
{
    lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, STATUS_KEY);
}

static int null_tostring(lua_State *L)
{
    lua_pushliteral(L, "inlay.null");
    return 1;
}

void inl_lua_push_null(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, NULL_KEY) != LUA_TNIL) return;
    lua_pop(L, 1);
    lua_newuserdatauv(L, 1, 0);
    if (luaL_newmetatable(L, NULL_KEY)) {
        lua_pushcfunction(L, null_tostring);
        lua_setfield(L, -2, "__tostring");
        lua_pushliteral(L, "inlay.null cannot be changed");
        lua_setfield(L, -2, "__metatable");
    }
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, NULL_KEY);
}

const void *inl_lua_null_pointer(lua_State *L)
{
    inl_lua_push_null(L);
    const void *p = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return p;
}

void inl_lua_open_null(lua_State *L)
{
    inl_lua_push_null(L);
    lua_setfield(L, -2, "null");
}
