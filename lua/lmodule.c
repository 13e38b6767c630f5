/*
 * lmodule.c — luaopen_inlay: the module table, inlay.null, the helpers
 * written in Lua (inlay.lua, compiled into the binary), and a few
 * underscore-prefixed functions for benchmarks.
 *
 * The same objects are linked into the `inlay` program and built as
 * inlay.so for a stock lua5.4 (`require "inlay"`).
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "linlay.h"
#include "inlay_lua.h"   /* generated from inlay.lua: inlay_lua_source */

#define NULL_KEY "inlay.null"

void li_error(lua_State *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lua_pushliteral(L, "inlay: ");
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    lua_concat(L, 2);
    lua_error(L);
    for (;;) {}   /* lua_error does not return */
}

/* ---- inlay.null ------------------------------------------------------------- */

static int null_tostring(lua_State *L)
{
    lua_pushliteral(L, "inlay.null");
    return 1;
}

void li_push_null(lua_State *L)
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

const void *li_null_pointer(lua_State *L)
{
    li_push_null(L);
    const void *p = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return p;
}

/* ---- constructors ---------------------------------------------------------------- */

static int m_timestamp(lua_State *L) { return li_type_ctor(L, T_TIMESTAMP); }
static int m_time(lua_State *L) { return li_type_ctor(L, T_TIME); }
static int m_decimal(lua_State *L) { return li_type_ctor(L, T_DECIMAL); }
static int m_fixed(lua_State *L) { return li_type_ctor(L, T_FIXED); }

static int m_list(lua_State *L) { return li_type_ctor(L, T_LIST); }
static int m_struct(lua_State *L) { return li_type_ctor(L, T_STRUCT); }
static int m_map(lua_State *L) { return li_type_ctor(L, T_MAP); }

/* ---- benchmark helpers ------------------------------------------------------------ */

/* inlay._now() -> monotonic nanoseconds */
static int m_now(lua_State *L)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    lua_pushinteger(L, (lua_Integer)ts.tv_sec * 1000000000 + ts.tv_nsec);
    return 1;
}

/* inlay._isatty(fd) -> whether the descriptor is a terminal (progress lines) */
static int m_isatty(lua_State *L)
{
    lua_pushboolean(L, isatty((int)luaL_checkinteger(L, 1)));
    return 1;
}

/* A counting wrapper around the state's allocator, installed by the first
 * call to inlay._alloc_stats(). Writers opened afterwards allocate through
 * it too (they use lua_getallocf), so it sees the library's allocations and
 * Lua's own. One state per process: it is a debugging aid. */
static struct {
    lua_State *main;
    lua_Alloc fn;
    void *ud;
    lua_Integer allocs, reallocs, frees;
} counter;

static void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    if (nsize == 0) counter.frees += ptr != NULL;
    else if (ptr == NULL) counter.allocs++;
    else if (nsize > osize) counter.reallocs++;
    return counter.fn(counter.ud, ptr, osize, nsize);
}

/* inlay._alloc_stats() -> allocations, growing reallocations, frees since
 * the first call (which installs the counter). */
/* inlay._malloc_stats([arm]) -> malloc, calloc, realloc, memalign calls
 * counted by the benchmarks' malloc interposer (bench/malloc_count.c, loaded
 * with LD_PRELOAD) while armed; arm = true/false switches counting. Returns
 * nothing when the interposer is not loaded. For bench/lua_write.lua. */
static int m_malloc_stats(lua_State *L)
{
    void (*arm)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "bench_malloc_count_arm");
    void (*get)(uint64_t *) = (void (*)(uint64_t *))dlsym(RTLD_DEFAULT, "bench_malloc_count_get");
    if (!arm || !get) return 0;
    if (!lua_isnoneornil(L, 1)) arm(lua_toboolean(L, 1));
    uint64_t c[5];
    get(c);
    for (int i = 0; i < 4; i++) lua_pushinteger(L, (lua_Integer)c[i]);
    return 4;
}

static int m_alloc_stats(lua_State *L)
{
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
    lua_State *main = lua_tothread(L, -1);
    lua_pop(L, 1);
    if (!counter.main) {
        counter.main = main;
        counter.fn = lua_getallocf(L, &counter.ud);
        lua_setallocf(L, counting_alloc, NULL);
    } else if (counter.main != main) {
        li_error(L, "_alloc_stats: already counting another Lua state");
    }
    lua_pushinteger(L, counter.allocs);
    lua_pushinteger(L, counter.reallocs);
    lua_pushinteger(L, counter.frees);
    return 3;
}

/* ---- the module ---------------------------------------------------------------------- */

/* The one symbol inlay.so exports; the binding is built with hidden
 * visibility otherwise. */
#if defined(__GNUC__)
#define LI_EXPORT __attribute__((visibility("default")))
#else
#define LI_EXPORT
#endif

LUAMOD_API LI_EXPORT int luaopen_inlay(lua_State *L);

LUAMOD_API LI_EXPORT int luaopen_inlay(lua_State *L)
{
    static const luaL_Reg funcs[] = {
        { "schema", li_schema_new },
        { "open", li_writer_open },
        { "timestamp", m_timestamp },
        { "time", m_time },
        { "decimal", m_decimal },
        { "fixed", m_fixed },
        { "list", m_list },
        { "struct", m_struct },
        { "map", m_map },
        { "_now", m_now },
        { "_alloc_stats", m_alloc_stats },
        { "_malloc_stats", m_malloc_stats },
        { "_bench_read_columns", li_bench_read_columns },
        { "_bench_convert_columns", li_bench_convert_columns },
        { "_source_open", li_source_open },
        { "_infer", li_source_infer },
        { "_isatty", m_isatty },
        { NULL, NULL },
    };
    luaL_checkversion(L);
    li_open_types(L);
    li_open_writer(L);
    li_open_source(L);
    luaL_newlib(L, funcs);
    li_push_null(L);
    lua_setfield(L, -2, "null");
    lua_pushliteral(L, INLAY_VERSION_STRING);
    lua_setfield(L, -2, "version");
    /* the helpers written in Lua get the module table as their argument */
    if (luaL_loadbuffer(L, inlay_lua_source, sizeof inlay_lua_source - 1, "=inlay.lua") != LUA_OK)
        return lua_error(L);
    lua_pushvalue(L, -2);
    lua_call(L, 1, 0);
    return 1;
}
