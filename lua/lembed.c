/*
 * lembed.c — Lua scripts inside a host program (inlay_lua.h): a runtime on
 * the host's allocator, under a memory limit and an instruction budget,
 * whose transforms run a script's function on the host's batches and write
 * the result to the host's writer.
 *
 * A transform is the pipeline machinery of sources with the host as the
 * source: a source view without an input (inl_lua_source_borrow) that each run
 * points at the host's arrays, the function run as a map_batch stage
 * (inlay._run_batch in inlay.lua), and src:_write into a writer userdata
 * over the host's writer (inl_lua_writer_borrow). Columns the script does not
 * touch stay C arrays from end to end.
 *
 * The budget: the allocator refuses blocks past the memory limit, and a
 * count hook adds HOOK_STEP instructions at a time; once the budget is
 * spent it raises, and keeps raising at every instruction until the run
 * ends, so a script that catches the error with pcall cannot go on.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lualib.h>

#include "inlay_lua.h"
#include "lconv.h"
#include "lembed.h"
#include "linit.h"
#include "lsource.h"
#include "lwriter.h"

enum { HOOK_STEP = 1000 };

/* ---- the budget ------------------------------------------------------------------- */

static pthread_mutex_t budget_lock = PTHREAD_MUTEX_INITIALIZER;

static void *budget_alloc_locked(inl_lua_budget *b, void *ptr, size_t osize, size_t nsize)
{
    if (!ptr) osize = 0;   /* Lua passes the kind of object there */
    if (nsize > osize && b->max_memory && nsize - osize > b->max_memory - (b->used < b->max_memory ? b->used : b->max_memory))
        return NULL;
    void *p = b->base.fn(b->base.ud, ptr, osize, nsize);
    if (nsize == 0) {
        b->used -= osize;
        return NULL;
    }
    if (p) b->used = b->used - osize + nsize;
    return p;
}

void *inl_lua_budget_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    pthread_mutex_lock(&budget_lock);
    void *p = budget_alloc_locked(ud, ptr, osize, nsize);
    pthread_mutex_unlock(&budget_lock);
    return p;
}



static void budget_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    void *ud;
    lua_getallocf(L, &ud);
    inl_lua_budget *b = ud;
    if (!b->over) {
        b->spent += HOOK_STEP;
        if (b->spent <= b->max_instructions) return;
        b->over = true;
        lua_sethook(L, budget_hook, LUA_MASKCOUNT, 1);   /* from now on, at every instruction */
    }
    luaL_error(L, "inlay: instruction budget of %I exceeded", (LUAI_UACINT)b->max_instructions);
}

void inl_lua_budget_start(lua_State *L, inl_lua_budget *b)
{
    b->spent = 0;
    b->over = false;
    if (b->max_instructions) lua_sethook(L, budget_hook, LUA_MASKCOUNT, HOOK_STEP);
}

void inl_lua_budget_stop(lua_State *L, inl_lua_budget *b)
{
    lua_sethook(L, NULL, 0, 0);
    b->over = false;
}

/* ---- the runtime ------------------------------------------------------------------- */

struct inlay_lua {
    lua_State *L;
    inl_lua_budget budget;
    inlay_allocator alloc;
    char err[512];
};

struct inlay_lua_transform {
    inlay_lua *rt;
    int fn, schema, src, writer;   /* registry references */
    int ncols;
};

void inlay_lua_options_init(inlay_lua_options *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
}

static int set_err(inlay_lua *rt, int status, const char *msg)
{
    snprintf(rt->err, sizeof rt->err, "%s", msg ? msg : "(error object is not a string)");
    return status;
}

/* Opens the libraries under a protected call, since they allocate. */
static int open_libs(lua_State *L)
{
    inl_lua_open_libs(L);
    return 0;
}

int inlay_lua_create(inlay_lua **out, const inlay_lua_options *o)
{
    if (!out) return INLAY_ERR_ARGUMENT;
    *out = NULL;
    inlay_lua_options dflt;
    if (!o) {
        inlay_lua_options_init(&dflt);
        o = &dflt;
    }
    if (o->struct_size != sizeof *o) return INLAY_ERR_ARGUMENT;
    inlay_allocator a = o->alloc;
    if (!a.fn) a.fn = inl_lua_libc_alloc;
    inlay_lua *rt = a.fn(a.ud, NULL, 0, sizeof *rt);
    if (!rt) return INLAY_ERR_NOMEM;
    memset(rt, 0, sizeof *rt);
    rt->alloc = a;
    rt->budget.base = a;
    rt->budget.max_memory = o->max_memory;
    rt->budget.max_instructions = o->max_instructions;
    inl_lua_alloc_mark_safe((void *)inl_lua_budget_alloc);
    rt->L = lua_newstate(inl_lua_budget_alloc, &rt->budget);
    if (!rt->L) {
        a.fn(a.ud, rt, sizeof *rt, 0);
        return INLAY_ERR_NOMEM;
    }
    lua_pushcfunction(rt->L, open_libs);
    if (lua_pcall(rt->L, 0, 0, 0) != LUA_OK) {
        inlay_lua_free(rt);
        return INLAY_ERR_NOMEM;
    }
    *out = rt;
    return INLAY_OK;
}

/* Runs the function below its nargs arguments on the stack under the
 * budget; 0, or the status with the message kept. Leaves nothing. */
static int run(inlay_lua *rt, int nargs)
{
    lua_State *L = rt->L;
    rt->err[0] = '\0';
    inl_lua_budget_start(L, &rt->budget);
    const int st = lua_pcall(L, nargs, 0, 0);
    inl_lua_budget_stop(L, &rt->budget);
    if (st == LUA_OK) return INLAY_OK;
    set_err(rt, INLAY_ERR_STATE, lua_tostring(L, -1));
    lua_pop(L, 1);
    lua_gc(L, LUA_GCCOLLECT);   /* what the failed run left is garbage now */
    return INLAY_ERR_STATE;
}

static int load(inlay_lua *rt, int st)
{
    if (st != LUA_OK) {
        const int status = st == LUA_ERRMEM ? INLAY_ERR_NOMEM : INLAY_ERR_VALUE;
        set_err(rt, status, lua_tostring(rt->L, -1));
        lua_pop(rt->L, 1);
        return status;
    }
    return run(rt, 0);
}

int inlay_lua_load_file(inlay_lua *rt, const char *path)
{
    if (!rt || !path) return INLAY_ERR_ARGUMENT;
    return load(rt, luaL_loadfile(rt->L, path));
}

int inlay_lua_load_string(inlay_lua *rt, const char *code, size_t len, const char *name)
{
    if (!rt || (!code && len)) return INLAY_ERR_ARGUMENT;
    return load(rt, luaL_loadbufferx(rt->L, code ? code : "", len, name ? name : "=(string)", "t"));
}

const char *inlay_lua_errmsg(const inlay_lua *rt) { return rt ? rt->err : "no runtime"; }

lua_State *inlay_lua_state(inlay_lua *rt) { return rt ? rt->L : NULL; }

void inlay_lua_free(inlay_lua *rt)
{
    if (!rt) return;
    if (rt->L) lua_close(rt->L);
    inlay_allocator a = rt->alloc;
    a.fn(a.ud, rt, sizeof *rt, 0);
}

/* ---- transforms ------------------------------------------------------------------------- */

/* The schema userdata of a flat core schema: its fields by the names of
 * their types, which read back as the same types. */
static int push_schema(lua_State *L)
{
    const inlay_schema *s = lua_touserdata(L, 1);
    const int n = inlay_schema_num_columns(s);
    lua_pushcfunction(L, inl_lua_schema_new);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        const char *name;
        inlay_type t;
        inlay_repetition rep;
        if (inlay_schema_column(s, i, &name, &t, &rep) != INLAY_OK)
            inl_lua_error(L, "the input schema must be flat (no lists, structs or maps)");
        char tn[48];
        inlay_type_name(&t, tn, sizeof tn);
        lua_createtable(L, 2, 1);
        lua_pushstring(L, name);
        lua_rawseti(L, -2, 1);
        lua_pushstring(L, tn);
        lua_rawseti(L, -2, 2);
        lua_pushboolean(L, rep == INLAY_OPTIONAL);
        lua_setfield(L, -2, "optional");
        lua_rawseti(L, -2, i + 1);
    }
    lua_call(L, 1, 1);
    return 1;
}

/* (input schema, writer, function name) -> function, schema, source, writer userdata */
static int open_transform(lua_State *L)
{
    inlay_writer *w = lua_touserdata(L, 2);
    const char *fname = lua_tostring(L, 3);
    if (lua_getglobal(L, fname) != LUA_TFUNCTION) inl_lua_error(L, "no function '%s' in the script", fname);
    lua_pushcfunction(L, push_schema);
    lua_pushvalue(L, 1);
    lua_call(L, 1, 1);
    const int in = lua_gettop(L);
    inl_lua_source_borrow(L, in);
    /* the writer's schema, as the Lua side needs it to convert */
    lua_pushcfunction(L, push_schema);
    lua_pushlightuserdata(L, (void *)inlay_writer_schema(w));
    lua_call(L, 1, 1);
    inl_lua_writer_borrow(L, w, -1);
    lua_remove(L, -2);
    return 4;
}

int inlay_lua_transform_open(inlay_lua_transform **out, inlay_lua *rt, const char *function,
                             const inlay_schema *input, inlay_writer *w)
{
    if (!out) return INLAY_ERR_ARGUMENT;
    *out = NULL;
    if (!rt || !function || !input || !w) return INLAY_ERR_ARGUMENT;
    if (inlay_schema_num_columns(input) <= 0) return set_err(rt, INLAY_ERR_ARGUMENT, "an input schema without columns");
    lua_State *L = rt->L;
    inlay_lua_transform *t = rt->alloc.fn(rt->alloc.ud, NULL, 0, sizeof *t);
    if (!t) return set_err(rt, INLAY_ERR_NOMEM, "out of memory");
    lua_pushcfunction(L, open_transform);
    lua_pushlightuserdata(L, (void *)input);
    lua_pushlightuserdata(L, w);
    lua_pushstring(L, function);
    if (lua_pcall(L, 3, 4, 0) != LUA_OK) {
        const int st = set_err(rt, INLAY_ERR_ARGUMENT, lua_tostring(L, -1));
        lua_pop(L, 1);
        rt->alloc.fn(rt->alloc.ud, t, sizeof *t, 0);
        return st;
    }
    t->rt = rt;
    t->ncols = inlay_schema_num_columns(input);
    t->writer = luaL_ref(L, LUA_REGISTRYINDEX);
    t->src = luaL_ref(L, LUA_REGISTRYINDEX);
    t->schema = luaL_ref(L, LUA_REGISTRYINDEX);
    t->fn = luaL_ref(L, LUA_REGISTRYINDEX);
    *out = t;
    return INLAY_OK;
}

/* (transform, batches, rows): fn on the view of the batch, then the view
 * into the writer. */
static int run_transform(lua_State *L)
{
    const inlay_lua_transform *t = lua_touserdata(L, 1);
    const inlay_column_batch *b = lua_touserdata(L, 2);
    const size_t rows = (size_t)lua_tointeger(L, 3);
    lua_settop(L, 0);
    lua_rawgeti(L, LUA_REGISTRYINDEX, t->src);
    inl_lua_source_set_batch(L, 1, b, rows);
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);   /* the module, whatever the script did to globals */
    lua_getfield(L, -1, "inlay");
    lua_getfield(L, -1, "_run_batch");
    lua_pushvalue(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, t->fn);
    lua_call(L, 2, 0);
    lua_getfield(L, 1, "_write");
    lua_pushvalue(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, t->writer);
    lua_call(L, 2, 0);
    inl_lua_source_set_batch(L, 1, NULL, 0);
    return 0;
}

/* After a failed run the view must not keep the host's arrays. */
static int forget_batch(lua_State *L)
{
    const inlay_lua_transform *t = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, t->src);
    inl_lua_source_set_batch(L, -1, NULL, 0);
    return 0;
}

int inlay_lua_transform_run(inlay_lua_transform *t, const inlay_column_batch *batches, int ncolumns, size_t rows)
{
    if (!t) return INLAY_ERR_ARGUMENT;
    inlay_lua *rt = t->rt;
    if (ncolumns != t->ncols || (!batches && ncolumns))
        return set_err(rt, INLAY_ERR_ARGUMENT, "the batch does not have the input schema's columns");
    for (int i = 0; i < ncolumns; i++)
        if (batches[i].column != i || batches[i].count != rows)
            return set_err(rt, INLAY_ERR_ARGUMENT, "batch entries must be column 0, 1, ... with `rows` entries each");
    if (rows > INT32_MAX) return set_err(rt, INLAY_ERR_ARGUMENT, "a batch of more than 2147483647 rows");
    lua_State *L = rt->L;
    lua_pushcfunction(L, run_transform);
    lua_pushlightuserdata(L, t);
    lua_pushlightuserdata(L, (void *)batches);
    lua_pushinteger(L, (lua_Integer)rows);
    const int st = run(rt, 3);
    if (st != INLAY_OK) {
        lua_pushcfunction(L, forget_batch);
        lua_pushlightuserdata(L, t);
        lua_pcall(L, 1, 0, 0) == LUA_OK ? (void)0 : lua_pop(L, 1);
    }
    return st;
}

void inlay_lua_transform_free(inlay_lua_transform *t)
{
    if (!t) return;
    lua_State *L = t->rt->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, t->writer);
    inl_lua_writer_unborrow(L, -1);
    lua_pop(L, 1);
    luaL_unref(L, LUA_REGISTRYINDEX, t->writer);
    luaL_unref(L, LUA_REGISTRYINDEX, t->src);
    luaL_unref(L, LUA_REGISTRYINDEX, t->schema);
    luaL_unref(L, LUA_REGISTRYINDEX, t->fn);
    inlay_allocator a = t->rt->alloc;
    a.fn(a.ud, t, sizeof *t, 0);
}
