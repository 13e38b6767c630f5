/*
 * ldataset.c — inlay.dataset(root, schema, opts): one table written as many
 * Parquet files in Hive-style folders under root (inlay_dataset_*).
 *
 * The userdata is lwriter.c's, under the metatable LI_DATASET, over a
 * target whose calls are the dataset's: d:write, d:row and d:write_columns
 * convert and stage values exactly as a writer's do, and the core's
 * messages ("column 'x' row N: ...", N counting the dataset's rows) come
 * out the same way; nested fields are shredded into level batches and go
 * in the same append as the flat ones (lwriter.c). What is here is only
 * what differs: the options of the dataset itself, and info().
 *
 * Options: the dataset's own (dataset_keys) and, in the same table, every
 * option inlay.open takes, for each file. Lua strings given as options
 * (partition columns, the shard) stay in the option table, on the stack
 * until open has copied them.
 */
#include <string.h>

#include "ldataset.h"

static const char *const dataset_keys[] = {
    "partition_by", "keep_partition_columns", "max_file_rows", "max_file_bytes", "max_open_files",
    "max_buffered_bytes", "shard", "existing", NULL,
};

/* ---- the target ------------------------------------------------------------------ */

static int t_append(void *t, const inlay_column_batch *b, int n) { return inlay_dataset_append_columns(t, b, n); }
static int t_close(void *t) { return inlay_dataset_close(t); }
static void t_destroy(void *t) { inlay_dataset_free(t); }
static int t_status(const void *t) { return inlay_dataset_status(t); }
static const char *t_errmsg(const void *t) { return inlay_dataset_errmsg(t); }
static void t_error_info(const void *t, inlay_error_info *e) { inlay_dataset_error_info(t, e); }

/* { rows =, files =, bytes =, partitions =, open_files =, shard = } */
static void t_push_info(lua_State *L, const void *t, int ud)
{
    (void)ud;
    inlay_dataset_stats st;
    inlay_dataset_get_stats(t, &st);
    lua_createtable(L, 0, 7);
    lua_pushinteger(L, (lua_Integer)st.rows);
    lua_setfield(L, -2, "rows");
    lua_pushinteger(L, (lua_Integer)st.files);
    lua_setfield(L, -2, "files");
    lua_pushinteger(L, (lua_Integer)st.bytes);
    lua_setfield(L, -2, "bytes");
    lua_pushinteger(L, (lua_Integer)st.partitions);
    lua_setfield(L, -2, "partitions");
    lua_pushinteger(L, (lua_Integer)st.open_files);
    lua_setfield(L, -2, "open_files");
    lua_pushstring(L, inlay_dataset_shard(t));
    lua_setfield(L, -2, "shard");
}

static const inl_lua_target dataset_target = {
    "dataset", "root", t_append, t_close, t_destroy, t_status, t_errmsg, t_error_info, t_push_info,
};

/* ---- options ------------------------------------------------------------------------ */

/* The value on top as an integer in lo..hi, else raises naming the option. */
static lua_Integer opt_int(lua_State *L, const char *key, lua_Integer lo, lua_Integer hi, const char *what)
{
    int ok;
    lua_Integer v = lua_tointegerx(L, -1, &ok);
    if (lua_type(L, -1) != LUA_TNUMBER || !ok || v < lo || v > hi)
        inl_lua_error(L, "option '%s' must be %s, got %s", key, what, luaL_tolstring(L, -1, NULL));
    return v;
}

/* partition_by = { "day", "platform" } (or one name): pushes the array of
 * names (a userdata; the strings stay the option table's). */
static void opt_partition_by(lua_State *L, inlay_dataset_options *d)
{
    const int t = lua_gettop(L);
    if (lua_type(L, t) == LUA_TSTRING) {
        const char **names = lua_newuserdatauv(L, sizeof *names, 0);
        names[0] = lua_tostring(L, t);
        d->partition_by = names;
        d->partition_by_count = 1;
        return;
    }
    if (!lua_istable(L, t))
        inl_lua_error(L, "option 'partition_by' must be a list of column names, got %s", luaL_typename(L, t));
    const lua_Integer n = (lua_Integer)lua_rawlen(L, t);
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > n)
            inl_lua_error(L, "option 'partition_by': unexpected key %s (list the columns: { \"day\", \"platform\" })",
                          luaL_tolstring(L, -1, NULL));
    }
    const char **names = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *names, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        if (lua_rawgeti(L, t, i) != LUA_TSTRING)
            inl_lua_error(L, "option 'partition_by': entry %I: expected a column name, got %s", (LUAI_UACINT)i,
                          luaL_typename(L, -1));
        names[i - 1] = lua_tostring(L, -1);   /* kept alive by the option table */
        lua_pop(L, 1);
    }
    d->partition_by = n ? names : NULL;
    d->partition_by_count = (size_t)n;
}

/* The dataset's own options from the table at idx, leaving the partition
 * names' array on the stack. */
static void dataset_options(lua_State *L, int idx, inlay_dataset_options *d)
{
    if (!lua_istable(L, idx)) return;
    for (int k = 0; dataset_keys[k]; k++) {
        const char *key = dataset_keys[k];
        if (lua_getfield(L, idx, key) == LUA_TNIL) {
            lua_pop(L, 1);
            continue;
        }
        if (!strcmp(key, "partition_by")) {
            opt_partition_by(L, d);
            lua_remove(L, -2);   /* the names' array stays until open returns */
            continue;
        }
        if (!strcmp(key, "keep_partition_columns")) {
            if (!lua_isboolean(L, -1))
                inl_lua_error(L, "option '%s' must be a boolean, got %s", key, luaL_typename(L, -1));
            d->keep_partition_columns = lua_toboolean(L, -1);
        } else if (!strcmp(key, "max_file_rows")) {
            d->max_file_rows = (uint64_t)opt_int(L, key, 0, LUA_MAXINTEGER, "an integer >= 0 (0: no limit)");
        } else if (!strcmp(key, "max_file_bytes")) {
            d->max_file_bytes = (uint64_t)opt_int(L, key, 0, LUA_MAXINTEGER, "an integer >= 0 (0: no limit)");
        } else if (!strcmp(key, "max_open_files")) {
            d->max_open_files = (int)opt_int(L, key, 0, INT32_MAX, "an integer >= 1 (0: the default)");
        } else if (!strcmp(key, "max_buffered_bytes")) {
            d->max_buffered_bytes =
                (size_t)opt_int(L, key, 0, (lua_Integer)(SIZE_MAX >> 1), "an integer >= 0 (0: the default)");
        } else if (!strcmp(key, "shard")) {
            if (lua_type(L, -1) != LUA_TSTRING)
                inl_lua_error(L, "option 'shard' must be a string, got %s", luaL_typename(L, -1));
            d->shard = lua_tostring(L, -1);   /* kept alive by the option table */
        } else {   /* existing */
            static const char *const modes[] = { "error", "replace_shard", "append", NULL };
            static const inlay_existing values[] = { INLAY_EXISTING_ERROR, INLAY_EXISTING_REPLACE_SHARD,
                                                     INLAY_EXISTING_APPEND };
            const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
            int m = 0;
            while (modes[m] && strcmp(modes[m], v)) m++;
            if (!modes[m])
                inl_lua_error(L, "option 'existing' must be \"error\", \"replace_shard\" or \"append\", got %s",
                              luaL_tolstring(L, -1, NULL));
            d->existing = values[m];
        }
        lua_pop(L, 1);
    }
}

/* inlay.dataset(root, schema, opts) -> dataset */
static int dataset_open(lua_State *L)
{
    const char *root = luaL_checkstring(L, 1);
    lua_settop(L, 3);
    if (!lua_isnil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
    inlay_dataset_options d;
    inlay_dataset_options_init(&d);
    lschema *s = inl_lua_writer_options(L, 2, 3, &d.file, dataset_keys);
    dataset_options(L, 3, &d);
    inl_lua_writer_new_target(L, 2, 1, LI_DATASET, &d.file);
    const int di = lua_gettop(L);
    inlay_dataset *ds = NULL;
    const int st = inlay_dataset_open(&ds, root, s->s, &d);
    if (st != INLAY_OK) {
        lua_pushstring(L, ds ? inlay_dataset_errmsg(ds) : inlay_strerror(st));
        inlay_dataset_free(ds);
        inl_lua_fail(L, st, "cannot open dataset '%s': %s", root, lua_tostring(L, -1));
    }
    inl_lua_writer_attach(L, di, ds, &dataset_target);
    lua_settop(L, di);
    return 1;
}

void inl_lua_open_dataset(lua_State *L)
{
    lua_pushcfunction(L, dataset_open);
    lua_setfield(L, -2, "dataset");
}
