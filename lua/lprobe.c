/*
 * lprobe.c — inlay.probe, instruments for the tests and benchmarks of the
 * binding: never part of the inlay command or of inlay.so. It is linked,
 * in place of linit.c, into `inlay-probe`, a build of the command that
 * also preloads it:
 *
 *     local probe = require "inlay.probe"
 *     probe.now()                          monotonic nanoseconds
 *     probe.alloc_stats()                  allocations, growing reallocations and frees through
 *                                          the state's allocator since the first call (which
 *                                          installs the counter; writers allocate through it)
 *     probe.malloc_stats([arm])            malloc, calloc, realloc, memalign calls counted by the
 *                                          benchmarks' LD_PRELOAD interposer while armed; nothing
 *                                          when it is not loaded
 *     probe.read_columns(cols, n [, read]) the floor under write_columns: every array walked with
 *                                          lua_rawgeti (and, with read, each value read out)
 *     probe.convert_columns(w, cols [, n]) write_columns' conversion alone, through the same
 *                                          loops (lconv.c, lnested.c), into scratch of its own
 *                                          kept per schema; w is a writer or a schema
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <lualib.h>
#include <string.h>
#include <time.h>

#include "lconv.h"
#include "linit.h"
#include "lnested.h"
#include "lwriter.h"

#define SCRATCH "inlay.probe.scratch"        /* the scratch userdata's metatable */
#define SCRATCHES "inlay.probe.scratches"    /* schema -> its scratch, weak keys */

static int p_now(lua_State *L)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    lua_pushinteger(L, (lua_Integer)ts.tv_sec * 1000000000 + ts.tv_nsec);
    return 1;
}

/* ---- allocation counts --------------------------------------------------------- */

/* A counting wrapper around the state's allocator. One state per process:
 * it is a measuring aid. The writer's workers call it too: atomic counts. */
static struct {
    lua_State *main;
    lua_Alloc fn;
    void *ud;
    _Atomic lua_Integer allocs, reallocs, frees;
} counter;

static void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    if (nsize == 0) counter.frees += ptr != NULL;
    else if (ptr == NULL) counter.allocs++;
    else if (nsize > osize) counter.reallocs++;
    return counter.fn(counter.ud, ptr, osize, nsize);
}

/* Thread-safe when what it counts is. */
static bool counting_is_safe(void *fn)
{
    return fn == (void *)counting_alloc && counter.fn && inl_lua_alloc_thread_safe((void *)counter.fn);
}

static int p_alloc_stats(lua_State *L)
{
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
    lua_State *main = lua_tothread(L, -1);
    lua_pop(L, 1);
    if (!counter.main) {
        counter.main = main;
        counter.fn = lua_getallocf(L, &counter.ud);
        inl_lua_alloc_safe_hook = counting_is_safe;
        lua_setallocf(L, counting_alloc, NULL);
    } else if (counter.main != main) {
        inl_lua_error(L, "probe.alloc_stats: already counting another Lua state");
    }
    lua_pushinteger(L, (lua_Integer)counter.allocs);
    lua_pushinteger(L, (lua_Integer)counter.reallocs);
    lua_pushinteger(L, (lua_Integer)counter.frees);
    return 3;
}

/* The interposer (bench/common/malloc_count.c) is looked up by name, so
 * nothing links against it. */
static int p_malloc_stats(lua_State *L)
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

/* ---- the floor under write_columns --------------------------------------------- */

static int p_read_columns(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer n = luaL_checkinteger(L, 2);
    int read = lua_toboolean(L, 3);
    lua_settop(L, 3);
    luaL_checkstack(L, LI_STACK_RUN + 8, "read_columns");
    lua_Integer acc = 0;
    double dacc = 0;
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        int tab = lua_gettop(L);
        /* the column's kind, from its first value */
        int kind = lua_rawgeti(L, tab, 1);
        if (kind == LUA_TNUMBER && lua_isinteger(L, -1)) kind = -1;
        lua_settop(L, tab);
        for (lua_Integer j = 0; j < n; j++) {
            int t = lua_rawgeti(L, tab, j + 1);
            if (read) {
                size_t len;
                switch (kind) {
                case -1: acc += lua_tointegerx(L, -1, NULL); break;
                case LUA_TNUMBER: dacc += lua_tonumberx(L, -1, NULL); break;
                case LUA_TSTRING: acc += (lua_Integer)(uintptr_t)lua_tolstring(L, -1, &len) + (lua_Integer)len; break;
                default: acc += lua_toboolean(L, -1); break;
                }
            } else {
                acc += t;
            }
            if ((j % LI_STACK_RUN) == LI_STACK_RUN - 1) lua_settop(L, tab);
        }
        lua_settop(L, tab - 1);
    }
    lua_pushinteger(L, acc + (lua_Integer)dacc);
    return 1;
}

/* ---- conversion alone ------------------------------------------------------------ */

/* Scratch of one schema, as a writer keeps it. */
typedef struct scratch {
    lconv cv;
    lnest *nest;
    int ncols;
    lcol cols[];
} scratch;

static int scratch_gc(lua_State *L)
{
    scratch *sc = luaL_checkudata(L, 1, SCRATCH);
    for (int i = 0; i < sc->ncols; i++) inl_lua_col_free(&sc->cv, &sc->cols[i]);
    inl_lua_nest_free(sc->nest);
    inl_lua_conv_free(&sc->cv);
    sc->ncols = 0;
    sc->nest = NULL;
    return 0;
}

/* The scratch kept for the schema userdata at idx (weak keys: it goes with
 * the schema). */
static scratch *scratch_for(lua_State *L, int idx, const lschema *s)
{
    idx = lua_absindex(L, idx);
    if (lua_getfield(L, LUA_REGISTRYINDEX, SCRATCHES) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "k");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, SCRATCHES);
    }
    lua_pushvalue(L, idx);
    if (lua_rawget(L, -2) == LUA_TUSERDATA) {
        scratch *sc = lua_touserdata(L, -1);
        lua_pop(L, 2);
        return sc;
    }
    lua_pop(L, 1);
    const size_t size = sizeof(scratch) + (size_t)s->nfields * sizeof(lcol);
    scratch *sc = lua_newuserdatauv(L, size, 0);
    memset(sc, 0, size);
    inl_lua_conv_init(&sc->cv, L);
    if (luaL_newmetatable(L, SCRATCH)) {
        lua_pushcfunction(L, scratch_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    sc->ncols = s->nfields;
    if (s->nnodes && !(sc->nest = inl_lua_nest_new(s, sc->cv.alloc, sc->cv.null_ud))) inl_lua_error(L, "out of memory");
    lua_pushvalue(L, idx);
    lua_pushvalue(L, -2);
    lua_rawset(L, -4);
    lua_pop(L, 2);
    return sc;
}

static int p_convert_columns(lua_State *L)
{
    lua_settop(L, 3);
    int sidx = 1;
    if (luaL_testudata(L, 1, LI_WRITER)) {   /* the writer's schema userdata */
        lua_getiuservalue(L, 1, 1);
        sidx = lua_gettop(L);
    }
    const lschema *s = inl_lua_check_schema(L, sidx);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer n = luaL_optinteger(L, 3, -1);
    for (int i = 0; n < 0 && i < s->nfields; i++) {   /* as write_columns counts rows */
        lua_pushlstring(L, s->fields[i].name, s->fields[i].name_len);
        if (lua_rawget(L, 2) == LUA_TTABLE)
            n = s->fields[i].node ? inl_lua_nest_column_rows(L, -1) : (lua_Integer)lua_rawlen(L, -1);
        lua_pop(L, 1);
    }
    if (n <= 0) return 0;
    scratch *sc = scratch_for(L, sidx, s);
    if (sc->nest) inl_lua_nest_reset(sc->nest);
    luaL_checkstack(L, LI_STACK_RUN + 8, "convert_columns");
    for (int i = 0; i < s->nfields; i++) {
        const lfield *f = &s->fields[i];
        lua_pushlstring(L, f->name, f->name_len);
        if (lua_rawget(L, 2) != LUA_TTABLE) {
            lua_pop(L, 1);
            continue;
        }
        if (f->node) inl_lua_nest_column(L, sc->nest, &sc->cv, f, lua_gettop(L), (size_t)n, 0);
        else {
            inl_lua_col_reserve(L, &sc->cv, f, &sc->cols[i], (size_t)n);
            inl_lua_convert_column(L, &sc->cv, f, &sc->cols[i], lua_gettop(L), (size_t)n);
        }
        lua_pop(L, 1);
    }
    return 0;
}

/* ---- the module, and the command's libraries with it --------------------------- */

static int luaopen_inlay_probe(lua_State *L)
{
    static const luaL_Reg funcs[] = {
        { "now", p_now },
        { "alloc_stats", p_alloc_stats },
        { "malloc_stats", p_malloc_stats },
        { "read_columns", p_read_columns },
        { "convert_columns", p_convert_columns },
        { NULL, NULL },
    };
    luaL_newlib(L, funcs);
    return 1;
}

void inl_lua_open_libs(lua_State *L)
{
    luaL_openlibs(L);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, luaopen_inlay_probe);
    lua_setfield(L, -2, "inlay.probe");
    lua_pop(L, 1);
    luaL_requiref(L, "inlay", luaopen_inlay, 1);
}
