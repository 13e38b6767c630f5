/*
 * lsource.c — text sources and pipelines for Lua: the source userdata, the
 * batch view a pipeline works on, and the row loops of map and filter.
 * inlay.lua builds inlay.csv / inlay.ndjson / inlay.infer and the pipeline
 * methods (map, filter, map_batch, rename, drop, select, write) on top.
 *
 * A source ("inlay.source") wraps an inlay_source and a view of its
 * current batch: the rows the pipeline has produced so far, n of them, row
 * i taken from source row sel[i] (or row i while `identity`), and a Lua
 * table `cols` (user value 2) mapping each column name to either
 *   - an integer: the source column whose values are still in C, or
 *   - a Lua array of n entries (nil = null): a column a transform wrote.
 * Nothing is converted that no transform touches: a source column becomes
 * Lua values only when a row function reads it or map_batch asks for it,
 * and the writer takes the untouched columns straight from the source's
 * arrays (gathered through sel when rows were dropped or repeated).
 *
 * A view over a reader's batches (lreader.c) holds each field as an
 * inlay_array in the schema's layout instead: flat fields spaced with
 * validity bits, nested fields as their Arrow-shaped trees. Its cells are
 * pushed by the reader's function, and an untouched field goes to the
 * writer as the array it is, or, when rows were dropped or repeated,
 * gathered through sel in C (a nested one node by node into scratch of
 * its own, `take`).
 *
 * The row loop reuses one row table: per row it sets the columns the
 * function reads (and clears those it writes), calls it, and reads the
 * written columns back into the output arrays. The columns a function
 * reads and writes are declared, or found on its first call through a
 * proxy row whose metamethods note every key.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lsource.h"
#include "lwriter.h"

#define LI_SOURCE "inlay.source"

typedef struct lsource {
    inlay_source *src;          /* NULL once closed */
    const lschema *schema;      /* user value 1 keeps it alive */
    inlay_allocator alloc;
    int ncols;
    const inlay_column_batch *batch;   /* the source's current batch */
    size_t n_src;               /* rows in it */
    uint64_t rows_out;          /* rows handed to writers so far */
    uint64_t first_row;         /* input rows before the current batch */
    const uint64_t *lines;      /* per source row of the batch: its input line (NULL for a host's) */
    size_t at;                  /* the view row map and filter are at, for messages */
    bool borrowed;              /* a view over a host's batches (inl_lua_source_borrow), no input of its own */
    size_t n;                   /* rows in the view */
    bool identity;              /* row i is source row i */
    uint32_t *sel, *tmp;        /* view -> source row; scratch for the next sel */
    size_t sel_cap, tmp_cap;
    void *block;                /* holds the four per-column arrays below */
    const inlay_array *const *arrays;   /* a reader's batch (inl_lua_source_set_arrays) */
    inl_lua_cell_fn cell;       /* pushes a cell of `arrays`; set: a view over a reader */
    void *cell_ctx;
    struct ltake *take;         /* per node of the schema's nested fields: scratch of gathered arrays */
    inlay_array *take_arr;      /* per node: the gathered arrays (children side by side, by node id) */
    uint32_t **vidx;            /* per column: source row -> dense value index (optional columns) */
    bool *vidx_ok;
    size_t vidx_cap;
    void **gather_vals;         /* per column: values gathered through sel for a writer */
    int16_t **gather_def;
    size_t gather_cap;
} lsource;

/* One node's scratch for gathering a reader's nested field through sel. */
typedef struct ltake {
    uint8_t *valid;             /* validity bits */
    int32_t *off;               /* lists, maps: offsets */
    void *vals;                 /* leaves: values */
    uint32_t *idx;              /* lists, maps: the child entries to take */
    size_t valid_cap, off_cap, vals_cap, idx_cap;   /* bytes */
} ltake;

/* ---- memory --------------------------------------------------------------------- */

static void *resize(lsource *s, void *p, size_t o, size_t n)
{
    return s->alloc.fn(s->alloc.ud, p, o, n);
}

static void grow_u32(lua_State *L, lsource *s, uint32_t **p, size_t *cap, size_t want)
{
    if (*cap >= want) return;
    size_t ncap = *cap * 2 > want ? *cap * 2 : want;
    uint32_t *q = resize(s, *p, *cap * sizeof **p, ncap * sizeof **p);
    if (!q) inl_lua_error(L, "out of memory");
    *p = q;
    *cap = ncap;
}

static size_t block_size(int ncols)
{
    return (size_t)ncols * (sizeof(uint32_t *) + sizeof(void *) + sizeof(int16_t *) + sizeof(bool));
}

static void free_take(lsource *s)
{
    if (!s->take) return;
    const size_t n = (size_t)s->schema->nnodes;
    for (size_t i = 0; i < n; i++) {
        ltake *t = &s->take[i];
        resize(s, t->valid, t->valid_cap, 0);
        resize(s, t->off, t->off_cap, 0);
        resize(s, t->vals, t->vals_cap, 0);
        resize(s, t->idx, t->idx_cap, 0);
    }
    resize(s, s->take, n * (sizeof(ltake) + sizeof(inlay_array)), 0);
    s->take = NULL;
    s->take_arr = NULL;
}

static void free_view(lsource *s)
{
    free_take(s);
    resize(s, s->sel, s->sel_cap * sizeof *s->sel, 0);
    resize(s, s->tmp, s->tmp_cap * sizeof *s->tmp, 0);
    s->sel = s->tmp = NULL;
    s->sel_cap = s->tmp_cap = 0;
    if (s->block) {
        for (int i = 0; i < s->ncols; i++) {
            resize(s, s->vidx[i], s->vidx_cap * sizeof(uint32_t), 0);
            const size_t es = inl_lua_elem_size(&s->schema->fields[i]);
            resize(s, s->gather_vals[i], s->gather_cap * es, 0);
            resize(s, s->gather_def[i], s->gather_cap * sizeof(int16_t), 0);
        }
        resize(s, s->block, block_size(s->ncols) + 1, 0);
        s->block = NULL;
    }
}

static void close_source(lsource *s)
{
    if (s->src) {
        inlay_source_free(s->src);
        s->src = NULL;
    }
    free_view(s);
    s->borrowed = false;
    s->batch = NULL;
    s->arrays = NULL;
    s->n = s->n_src = 0;
    s->lines = NULL;
}

/* ---- the userdata ------------------------------------------------------------------ */

static lsource *check_source(lua_State *L, int idx)
{
    return luaL_checkudata(L, idx, LI_SOURCE);
}

static lsource *check_live(lua_State *L, int idx)
{
    lsource *s = check_source(L, idx);
    if (!s->src && !s->borrowed) inl_lua_error(L, "the source is closed");
    return s;
}

static int s_gc(lua_State *L)
{
    close_source(check_source(L, 1));
    return 0;
}

static const char *opt_string(lua_State *L, int t, const char *key, const char *dflt)
{
    const char *v = dflt;
    if (lua_getfield(L, t, key) != LUA_TNIL) {
        if (!lua_isstring(L, -1)) inl_lua_error(L, "option '%s': expected a string", key);
        v = lua_tostring(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

static char opt_char(lua_State *L, int t, const char *key, char dflt)
{
    char v = dflt;
    if (lua_getfield(L, t, key) != LUA_TNIL) {
        size_t len;
        const char *p = lua_isstring(L, -1) ? lua_tolstring(L, -1, &len) : NULL;
        if (!p || len > 1) inl_lua_error(L, "option '%s': expected one character (or \"\" for none)", key);
        v = len ? p[0] : 0;
    }
    lua_pop(L, 1);
    return v;
}

/* Fills o from the options table at t (already checked for unknown keys by
 * inlay.lua). The strings o points to belong to that table; the array of
 * null markers is a userdata left on the stack. */
static void read_options(lua_State *L, int t, inlay_source_options *o)
{
    inlay_source_options_init(o);
    o->alloc.fn = lua_getallocf(L, &o->alloc.ud);
    const char *fmt = opt_string(L, t, "format", "auto");
    if (!strcmp(fmt, "csv")) o->format = INLAY_FORMAT_CSV;
    else if (!strcmp(fmt, "ndjson")) o->format = INLAY_FORMAT_NDJSON;
    else if (strcmp(fmt, "auto")) inl_lua_error(L, "option 'format': expected \"csv\", \"ndjson\" or \"auto\"");
    o->delimiter = opt_char(L, t, "delimiter", 0);
    if (lua_getfield(L, t, "quote") != LUA_TNIL) o->quote = opt_char(L, t, "quote", 0);   /* "": none */
    lua_pop(L, 1);
    if (lua_getfield(L, t, "escape") != LUA_TNIL) o->escape = opt_char(L, t, "escape", 0);   /* "": doubled quotes */
    lua_pop(L, 1);
    if (lua_getfield(L, t, "header") != LUA_TNIL) o->header = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (lua_getfield(L, t, "narrow_ints") != LUA_TNIL) o->narrow_ints = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (lua_getfield(L, t, "inferred_schema") != LUA_TNIL) o->inferred_schema = lua_toboolean(L, -1);   /* set by inlay.lua */
    lua_pop(L, 1);
    if (lua_getfield(L, t, "types") != LUA_TNIL) {   /* { col = "type" }: an array of pairs, in a userdata left on the stack */
        if (!lua_istable(L, -1)) inl_lua_error(L, "option 'types': expected a table of column = \"type\"");
        size_t n = 0;
        for (lua_pushnil(L); lua_next(L, -2); lua_pop(L, 1)) n++;
        inlay_column_type *v = lua_newuserdatauv(L, (n ? n : 1) * sizeof *v, 0);
        size_t i = 0;
        for (lua_pushnil(L); lua_next(L, -3); lua_pop(L, 1)) {
            if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING)
                inl_lua_error(L, "option 'types': expected a table of column = \"type\" (strings)");
            v[i].column = lua_tostring(L, -2);   /* the table keeps both strings */
            v[i].type = lua_tostring(L, -1);
            i++;
        }
        o->types = v;
        o->type_count = n;
        lua_insert(L, -2);   /* keep the userdata below the table */
    }
    lua_pop(L, 1);
    if (lua_getfield(L, t, "strict") != LUA_TNIL) o->strict = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (lua_getfield(L, t, "skip") != LUA_TNIL) {
        lua_Integer k = lua_tointeger(L, -1);
        if (k < 0) inl_lua_error(L, "option 'skip': expected a row count");
        o->skip_rows = (size_t)k;
    }
    lua_pop(L, 1);
    if (lua_getfield(L, t, "threads") != LUA_TNIL) {
        lua_Integer k = lua_tointeger(L, -1);
        if (k < 1 || k > 2) inl_lua_error(L, "option 'threads': expected 1 or 2");
        o->threads = (int)k;
    }
    lua_pop(L, 1);
    if (lua_getfield(L, t, "batch_rows") != LUA_TNIL) {
        lua_Integer k = lua_tointeger(L, -1);
        if (k < 1 || k > (1 << 24)) inl_lua_error(L, "option 'batch_rows': expected 1..16777216");
        o->batch_rows = (size_t)k;
    }
    lua_pop(L, 1);
    const char *onerr = opt_string(L, t, "on_error", "fail");
    if (!strcmp(onerr, "skip")) o->on_error = INLAY_ON_ERROR_SKIP;
    else if (strcmp(onerr, "fail")) inl_lua_error(L, "option 'on_error': expected \"fail\" or \"skip\"");
    o->reject_path = opt_string(L, t, "reject", NULL);   /* the string stays in the options table */
    if (lua_getfield(L, t, "prefix") == LUA_TSTRING) {     /* set by inlay.lua: stdin's sample */
        o->prefix = lua_tolstring(L, -1, &o->prefix_len);
    }
    lua_pop(L, 1);
    if (lua_getfield(L, t, "nulls") != LUA_TNIL) {
        if (!lua_istable(L, -1)) inl_lua_error(L, "option 'nulls': expected an array of strings");
        size_t n = lua_rawlen(L, -1);
        const char **v = lua_newuserdatauv(L, (n ? n : 1) * sizeof *v, 0);
        for (size_t i = 0; i < n; i++) {
            lua_rawgeti(L, -2, (lua_Integer)i + 1);
            if (!lua_isstring(L, -1)) inl_lua_error(L, "option 'nulls': expected an array of strings");
            v[i] = lua_tostring(L, -1);
            lua_pop(L, 1);   /* the array keeps the string */
        }
        o->null_values = v;
        o->null_count = n;
        lua_insert(L, -2);   /* keep the userdata below the array */
    }
    lua_pop(L, 1);
}

/* The per-column arrays of the view. */
static void view_alloc(lua_State *L, lsource *s)
{
    const size_t n = (size_t)s->ncols;
    char *b = resize(s, NULL, 0, block_size(s->ncols) + 1);
    if (!b) {
        close_source(s);
        inl_lua_error(L, "out of memory");
    }
    memset(b, 0, block_size(s->ncols) + 1);
    s->block = b;
    s->vidx = (uint32_t **)b;
    s->gather_vals = (void **)(b + n * sizeof(uint32_t *));
    s->gather_def = (int16_t **)(b + n * (sizeof(uint32_t *) + sizeof(void *)));
    s->vidx_ok = (bool *)(b + n * (sizeof(uint32_t *) + sizeof(void *) + sizeof(int16_t *)));
}

static void refuse_nested(lua_State *L, const lschema *sch)
{
    for (int i = 0; i < sch->nfields; i++)
        if (sch->fields[i].node)
            inl_lua_error(L, "field '%s': sources do not fill nested columns (%s) yet", sch->fields[i].name,
                     sch->fields[i].type_name);
}

/* inlay._source_open(path, schema, opts) -> source */
static int source_open(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    const lschema *sch = inl_lua_check_schema(L, 2);
    refuse_nested(L, sch);
    luaL_checktype(L, 3, LUA_TTABLE);
    lua_settop(L, 3);
    inlay_source_options o;
    read_options(L, 3, &o);
    lsource *s = lua_newuserdatauv(L, sizeof *s, 2);
    memset(s, 0, sizeof *s);
    luaL_setmetatable(L, LI_SOURCE);
    lua_pushvalue(L, 2);
    lua_setiuservalue(L, -2, 1);
    s->schema = sch;
    s->ncols = sch->nfields;
    s->alloc = o.alloc;
    inlay_source *src;
    int st = inlay_source_open(&src, path, sch->s, &o);
    /* Owned by the userdata from here, even a failed one: pushing its
     * message may raise (out of memory), and __gc then frees it, and closes
     * its file. */
    s->src = src;
    if (st != INLAY_OK) {
        lua_pushstring(L, inlay_source_errmsg(src));
        close_source(s);
        inl_lua_fail(L, st, "%s", lua_tostring(L, -1));
    }
    view_alloc(L, s);
    return 1;
}

/* The view (the source at idx) starts over on a new batch: every row, every
 * column still in C. */
static void reset_view(lua_State *L, int idx, lsource *s, const inlay_column_batch *batch, size_t rows)
{
    idx = lua_absindex(L, idx);
    s->batch = batch;
    s->n_src = s->n = rows;
    s->identity = true;
    for (int i = 0; i < s->ncols; i++) s->vidx_ok[i] = false;
    lua_createtable(L, 0, s->ncols);
    for (int i = 0; i < s->ncols; i++) {
        lua_pushinteger(L, i);
        lua_setfield(L, -2, s->schema->fields[i].name);
    }
    lua_setiuservalue(L, idx, 2);
}

/* src:_next() -> rows in the new batch (0 at the end). */
static int s_next(lua_State *L)
{
    lsource *s = check_live(L, 1);
    if (s->borrowed) inl_lua_error(L, "this source's batches come from the host program");
    size_t rows;
    int st = inlay_source_next(s->src, &rows);
    if (st != INLAY_OK) inl_lua_fail(L, st, "%s", inlay_source_errmsg(s->src));
    int nc;
    s->first_row += s->n_src;
    reset_view(L, 1, s, inlay_source_batch(s->src, &nc), rows);
    s->lines = inlay_source_batch_lines(s->src);
    lua_pushinteger(L, (lua_Integer)rows);
    return 1;
}

/* src:_where([i]) -> row, line: where row i of the view (1-based; by
 * default the row map or filter was at) is in the input: its row number
 * (1-based, among the rows the source read) and the line its record
 * starts on (nil for a host's batches). Nothing for a row not in the view. */
static int s_where(lua_State *L)
{
    lsource *s = check_source(L, 1);
    const lua_Integer i = luaL_optinteger(L, 2, (lua_Integer)s->at + 1);
    if (i < 1 || (size_t)i > s->n) return 0;
    const size_t r = s->identity ? (size_t)i - 1 : s->sel[i - 1];
    lua_pushinteger(L, (lua_Integer)(s->first_row + r + 1));
    if (s->lines) lua_pushinteger(L, (lua_Integer)s->lines[r]);
    else lua_pushnil(L);
    return 2;
}

static lsource *borrow(lua_State *L, int schema_idx, bool nested_ok)
{
    schema_idx = lua_absindex(L, schema_idx);
    const lschema *sch = inl_lua_check_schema(L, schema_idx);
    if (!nested_ok) refuse_nested(L, sch);
    lsource *s = lua_newuserdatauv(L, sizeof *s, 2);
    memset(s, 0, sizeof *s);
    luaL_setmetatable(L, LI_SOURCE);
    lua_pushvalue(L, schema_idx);
    lua_setiuservalue(L, -2, 1);
    s->schema = sch;
    s->ncols = sch->nfields;
    s->alloc.fn = lua_getallocf(L, &s->alloc.ud);
    s->borrowed = true;
    view_alloc(L, s);
    reset_view(L, -1, s, NULL, 0);
    return s;
}

void inl_lua_source_borrow(lua_State *L, int schema_idx)
{
    borrow(L, schema_idx, false);
}

void inl_lua_source_set_batch(lua_State *L, int idx, const inlay_column_batch *batch, size_t rows)
{
    reset_view(L, idx, check_source(L, idx), batch, rows);
}

void inl_lua_source_borrow_arrays(lua_State *L, int schema_idx, inl_lua_cell_fn cell, void *ctx)
{
    lsource *s = borrow(L, schema_idx, true);
    s->cell = cell;
    s->cell_ctx = ctx;
}

void inl_lua_source_set_arrays(lua_State *L, int idx, const inlay_array *const *arrays, size_t rows, uint64_t first_row)
{
    lsource *s = check_source(L, idx);
    reset_view(L, idx, s, NULL, rows);
    s->arrays = arrays;
    s->first_row = first_row;
}

/* src:_cols() -> the view's name -> column table (inlay.lua renames and drops in it) */
static int s_cols(lua_State *L)
{
    check_source(L, 1);
    lua_getiuservalue(L, 1, 2);
    return 1;
}

static int s_n(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_source(L, 1)->n);
    return 1;
}

static int s_stats(lua_State *L)
{
    lsource *s = check_source(L, 1);
    inlay_source_stats st;
    memset(&st, 0, sizeof st);
    if (s->src) inlay_source_get_stats(s->src, &st);
    lua_createtable(L, 0, 6);
    lua_pushinteger(L, (lua_Integer)st.records); lua_setfield(L, -2, "records");
    lua_pushinteger(L, (lua_Integer)st.rows); lua_setfield(L, -2, "rows");
    lua_pushinteger(L, (lua_Integer)st.skipped); lua_setfield(L, -2, "skipped");
    lua_pushinteger(L, (lua_Integer)st.bytes_read); lua_setfield(L, -2, "bytes_read");
    lua_pushinteger(L, (lua_Integer)st.bytes_consumed); lua_setfield(L, -2, "bytes_consumed");
    lua_pushinteger(L, (lua_Integer)st.bytes_total); lua_setfield(L, -2, "bytes_total");
    return 1;
}

/* src:_dialect() -> { format =, compression =, delimiter =, quote =, escape =, header =,
 * sniffed = { option names } }: how the source reads its input (nil for a host's batches) */
static int s_dialect(lua_State *L)
{
    lsource *s = check_live(L, 1);
    inlay_source_dialect d;
    inlay_source_get_dialect(s->src, &d);
    if (d.format == INLAY_FORMAT_AUTO) {
        lua_pushnil(L);
        return 1;
    }
    const bool csv = d.format == INLAY_FORMAT_CSV;
    lua_createtable(L, 0, 7);
    lua_pushstring(L, csv ? "csv" : "ndjson");
    lua_setfield(L, -2, "format");
    lua_pushstring(L, d.compression == INLAY_INPUT_GZIP ? "gzip" : d.compression == INLAY_INPUT_ZSTD ? "zstd" : "none");
    lua_setfield(L, -2, "compression");
    if (csv) {
        lua_pushlstring(L, &d.delimiter, 1);
        lua_setfield(L, -2, "delimiter");
        lua_pushlstring(L, &d.quote, d.quote != 0);
        lua_setfield(L, -2, "quote");
        lua_pushlstring(L, &d.escape, d.escape != 0);
        lua_setfield(L, -2, "escape");
        lua_pushboolean(L, d.header);
        lua_setfield(L, -2, "header");
    }
    static const struct { unsigned bit; const char *name; } names[] = {
        { INLAY_SNIFFED_FORMAT, "format" }, { INLAY_SNIFFED_DELIMITER, "delimiter" }, { INLAY_SNIFFED_QUOTE, "quote" },
        { INLAY_SNIFFED_ESCAPE, "escape" }, { INLAY_SNIFFED_HEADER, "header" },
    };
    lua_createtable(L, 5, 0);
    int k = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!(d.sniffed & names[i].bit)) continue;
        lua_pushstring(L, names[i].name);
        lua_rawseti(L, -2, ++k);
    }
    lua_setfield(L, -2, "sniffed");
    return 1;
}

static int s_close(lua_State *L)
{
    close_source(check_source(L, 1));
    return 0;
}

static int s_schema(lua_State *L)
{
    check_source(L, 1);
    lua_getiuservalue(L, 1, 1);
    return 1;
}

/* ---- cells ------------------------------------------------------------------------- */

static size_t source_row(const lsource *s, size_t i)
{
    return s->identity ? i : s->sel[i];
}

/* Dense value index of source row r of column c, or SIZE_MAX for a null. */
static size_t value_index(lua_State *L, lsource *s, int c, size_t r)
{
    const int16_t *def = s->batch[c].levels.def;
    if (!def) return r;
    if (!def[r]) return SIZE_MAX;
    if (!s->vidx_ok[c]) {
        if (s->vidx_cap < s->n_src) {
            size_t ncap = s->n_src;
            for (int k = 0; k < s->ncols; k++) {
                uint32_t *q = resize(s, s->vidx[k], s->vidx_cap * sizeof *q, ncap * sizeof *q);
                if (!q) inl_lua_error(L, "out of memory");
                s->vidx[k] = q;
            }
            for (int k = 0; k < s->ncols; k++) s->vidx_ok[k] = false;
            s->vidx_cap = ncap;
        }
        uint32_t k = 0;
        for (size_t j = 0; j < s->n_src; j++) {
            s->vidx[c][j] = k;
            k += def[j] != 0;
        }
        s->vidx_ok[c] = true;
    }
    return s->vidx[c][r];
}

static double half_to_double(uint16_t h)
{
    const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m | 0x400, e - 25);
    return h & 0x8000 ? -v : v;
}

/* Decimal digits (least significant first, nd of them, room for 80) as
 * exact text with `scale` digits after the point. */
static void push_digits(lua_State *L, char *digits, int nd, bool neg, int scale)
{
    char out[96];
    while (nd <= scale) digits[nd++] = '0';
    int o = 0;
    if (neg) out[o++] = '-';
    for (int i = nd - 1; i >= 0; i--) {
        out[o++] = digits[i];
        if (i == scale && scale > 0) out[o++] = '.';
    }
    lua_pushlstring(L, out, (size_t)o);
}

/* An unscaled decimal as exact text with `scale` digits after the point. */
static void push_decimal(lua_State *L, unsigned __int128 mag, bool neg, int scale)
{
    char digits[80];
    int nd = 0;
    do {
        digits[nd++] = (char)('0' + (int)(mag % 10));
        mag /= 10;
    } while (mag);
    push_digits(L, digits, nd, neg, scale);
}

static void push_signed_decimal(lua_State *L, __int128 v, int scale)
{
    const bool neg = v < 0;
    push_decimal(L, neg ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v, neg, scale);
}

/* The same for big-endian two's complement of any width up to 32 bytes
 * (precision 76): past 16 bytes no integer type holds it, so the
 * magnitude is divided by 10 in base 256, a digit at a time. */
static void push_wide_decimal(lua_State *L, const uint8_t *p, size_t len, int scale)
{
    uint8_t mag[32];
    if (len > sizeof mag) len = sizeof mag;
    const bool neg = len && (p[0] & 0x80);
    unsigned carry = 1;
    for (size_t i = len; i-- > 0;) {   /* negate: invert, add one */
        unsigned x = neg ? (unsigned)(uint8_t)~p[i] + carry : p[i];
        mag[i] = (uint8_t)x;
        carry = x >> 8;
    }
    char digits[80];
    int nd = 0;
    size_t lead = 0;
    do {
        unsigned rem = 0;
        for (size_t i = lead; i < len; i++) {
            const unsigned cur = rem << 8 | mag[i];
            mag[i] = (uint8_t)(cur / 10);
            rem = cur % 10;
        }
        digits[nd++] = (char)('0' + rem);
        while (lead < len && mag[lead] == 0) lead++;
    } while (lead < len && nd < 78);
    push_digits(L, digits, nd, neg, scale);
}

void inl_lua_push_value(lua_State *L, const lfield *f, const void *v, size_t k)
{
    switch (f->kind) {
    case K_BOOL: lua_pushboolean(L, ((const bool *)v)[k]); return;
    case K_INT32: {   /* a uint32 is kept as the same bits */
        const int32_t x = ((const int32_t *)v)[k];
        lua_pushinteger(L, f->hi > INT32_MAX ? (lua_Integer)(uint32_t)x : (lua_Integer)x);
        return;
    }
    case K_INT64: lua_pushinteger(L, ((const int64_t *)v)[k]); return;
    case K_UINT64: {
        const int64_t x = ((const int64_t *)v)[k];
        if (x >= 0) lua_pushinteger(L, x);
        else push_decimal(L, (uint64_t)x, false, 0);   /* past 2^63: exact text, as uint64 columns take it */
        return;
    }
    case K_FLOAT: lua_pushnumber(L, ((const float *)v)[k]); return;
    case K_DOUBLE: lua_pushnumber(L, ((const double *)v)[k]); return;
    case K_DEC32: push_signed_decimal(L, ((const int32_t *)v)[k], f->scale); return;
    case K_DEC64: push_signed_decimal(L, ((const int64_t *)v)[k], f->scale); return;
    default: break;
    }
    const inlay_bytes *b = &((const inlay_bytes *)v)[k];
    const uint8_t *p = b->data;
    switch (f->kind) {
    case K_FLOAT16: lua_pushnumber(L, half_to_double((uint16_t)(p[0] | p[1] << 8))); return;
    case K_UUID: {
        char t[37];
        static const char hex[] = "0123456789abcdef";
        int o = 0;
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10) t[o++] = '-';
            t[o++] = hex[p[i] >> 4];
            t[o++] = hex[p[i] & 15];
        }
        lua_pushlstring(L, t, 36);
        return;
    }
    case K_DECBIG: {
        if (b->len > 16) {
            push_wide_decimal(L, p, b->len, f->scale);
            return;
        }
        __int128 x = (p[0] & 0x80) ? -1 : 0;   /* sign-extend the big-endian bytes */
        for (size_t i = 0; i < b->len; i++) x = (__int128)((unsigned __int128)x << 8 | p[i]);
        push_signed_decimal(L, x, f->scale);
        return;
    }
    default:
        lua_pushlstring(L, b->data, b->len);
        return;
    }
}

/* Pushes the view's row i of source column c (nil for a null). */
static void push_cell(lua_State *L, lsource *s, int c, size_t i)
{
    if (s->cell) {
        s->cell(L, s->cell_ctx, c, source_row(s, i));
        return;
    }
    const size_t k = value_index(L, s, c, source_row(s, i));
    if (k == SIZE_MAX) lua_pushnil(L);
    else inl_lua_push_value(L, &s->schema->fields[c], s->batch[c].values, k);
}

/* The column named at index `name` in the view: its source column index,
 * or -1 with its Lua array pushed, or -2 (nothing pushed) when unknown. */
static int lookup(lua_State *L, int cols, int name)
{
    lua_pushvalue(L, name);
    int t = lua_rawget(L, cols);
    if (t == LUA_TNUMBER) {
        int c = (int)lua_tointeger(L, -1);
        lua_pop(L, 1);
        return c;
    }
    if (t == LUA_TTABLE) return -1;
    lua_pop(L, 1);
    return -2;
}

/* src:_array(name) -> the column as a Lua array of the view's n rows */
static int s_array(lua_State *L)
{
    lsource *s = check_live(L, 1);
    luaL_checkstring(L, 2);
    lua_getiuservalue(L, 1, 2);
    int c = lookup(L, 3, 2);
    if (c == -1) return 1;
    if (c == -2) inl_lua_error(L, "no column '%s' in the batch", lua_tostring(L, 2));
    lua_createtable(L, (int)s->n, 0);
    for (size_t i = 0; i < s->n; i++) {
        push_cell(L, s, c, i);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* ---- changing the view's rows ------------------------------------------------------- */

/* The view now has n2 rows, row k being former row origin[k]: compose sel
 * and carry every Lua array along. */
static void reshape(lua_State *L, lsource *s, int cols, const uint32_t *origin, size_t n2)
{
    grow_u32(L, s, &s->sel, &s->sel_cap, n2 ? n2 : 1);
    if (s->identity) {
        memcpy(s->sel, origin, n2 * sizeof *origin);
    } else {
        /* origin[k] <= k never holds in general (rows may repeat): compose through tmp */
        uint32_t *next = resize(s, NULL, 0, (n2 ? n2 : 1) * sizeof *next);
        if (!next) inl_lua_error(L, "out of memory");
        for (size_t k = 0; k < n2; k++) next[k] = s->sel[origin[k]];
        memcpy(s->sel, next, n2 * sizeof *next);
        resize(s, next, (n2 ? n2 : 1) * sizeof *next, 0);
    }
    s->identity = false;
    lua_pushnil(L);
    while (lua_next(L, cols)) {
        if (lua_istable(L, -1)) {
            const int a = lua_gettop(L);
            lua_createtable(L, (int)n2, 0);
            for (size_t k = 0; k < n2; k++) {
                lua_rawgeti(L, a, (lua_Integer)origin[k] + 1);
                lua_rawseti(L, -2, (lua_Integer)k + 1);
            }
            lua_pushvalue(L, -3);   /* key */
            lua_insert(L, -2);
            lua_rawset(L, cols);    /* replacing the value of an existing key is allowed during lua_next */
        }
        lua_pop(L, 1);
    }
    s->n = n2;
}

/* src:_keep(mask) — keeps the rows whose mask entry is truthy */
static int s_keep(lua_State *L)
{
    lsource *s = check_live(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_getiuservalue(L, 1, 2);
    grow_u32(L, s, &s->tmp, &s->tmp_cap, s->n ? s->n : 1);
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        lua_rawgeti(L, 2, (lua_Integer)i + 1);
        if (lua_toboolean(L, -1)) s->tmp[k++] = (uint32_t)i;
        lua_pop(L, 1);
    }
    if (k != s->n) reshape(L, s, 3, s->tmp, k);
    lua_pushinteger(L, (lua_Integer)s->n);
    return 1;
}

/* ---- the row loop ---------------------------------------------------------------------- */

/* Metamethods of the proxy row used to discover a function's columns:
 * upvalues 1 = the reads list, 2 = the writes list, 3 = the source,
 * 4 = the known-names set; the proxy's values live in its own raw table. */
static void add_name(lua_State *L, int list, int known, int key)
{
    lua_pushvalue(L, key);
    lua_pushvalue(L, list);
    lua_rawget(L, known);   /* known[list] is the set of the list's names */
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, list);
        lua_pushvalue(L, -2);
        lua_rawset(L, known);
    }
    lua_insert(L, -2);
    if (lua_rawget(L, -2) == LUA_TNIL) {
        lua_pushvalue(L, key);
        lua_pushboolean(L, 1);
        lua_rawset(L, -4);
        lua_pushvalue(L, key);
        lua_rawseti(L, list, (lua_Integer)lua_rawlen(L, list) + 1);
    }
    lua_pop(L, 2);
}

static void note(lua_State *L, int list, int key)
{
    add_name(L, list, lua_upvalueindex(4), key);
}

static int proxy_index(lua_State *L)   /* (t, k) */
{
    if (lua_type(L, 2) != LUA_TSTRING) return 0;
    lsource *s = lua_touserdata(L, lua_upvalueindex(3));
    lua_getiuservalue(L, lua_upvalueindex(3), 2);
    const int cols = lua_gettop(L);
    int c = lookup(L, cols, 2);
    if (c == -2) return 0;   /* not a column: nil, and not a read */
    note(L, lua_upvalueindex(1), 2);
    /* not stored in the proxy: a later write of the key must reach __newindex */
    if (c == -1) lua_rawgeti(L, -1, 1);
    else push_cell(L, s, c, 0);
    return 1;
}

static int proxy_newindex(lua_State *L)   /* (t, k, v) */
{
    if (lua_type(L, 2) == LUA_TSTRING) note(L, lua_upvalueindex(2), 2);
    lua_rawset(L, 1);
    return 0;
}

typedef struct loop {
    int fn, row, cols;
    int nreads, nwrites;
    int reads, writes;          /* lists of names */
    int rbase, wbase;           /* stack slots: per read: name, source (int) or array; per write: name, out array */
    int *rcol;                  /* per read: source column or -1 (array at rbase + 2i + 1) */
    bool *wread;                /* per write: also a read (its input is set each row) */
    bool filter;
    size_t emitted;
} loop;

/* Appends the written columns of result table `r` as output row `emitted`. */
static void emit(lua_State *L, lsource *s, loop *lp, int r, uint32_t origin)
{
    for (int w = 0; w < lp->nwrites; w++) {
        lua_pushvalue(L, lp->wbase + 2 * w);
        lua_rawget(L, r);
        lua_rawseti(L, lp->wbase + 2 * w + 1, (lua_Integer)lp->emitted + 1);
    }
    grow_u32(L, s, &s->tmp, &s->tmp_cap, lp->emitted + 1);
    s->tmp[lp->emitted++] = origin;
}

/* What the function returned for row i (at the top of the stack). */
static void take_result(lua_State *L, lsource *s, loop *lp, size_t i)
{
    const int r = lua_gettop(L);
    if (lp->filter) {
        if (lua_toboolean(L, r)) {
            grow_u32(L, s, &s->tmp, &s->tmp_cap, lp->emitted + 1);
            s->tmp[lp->emitted++] = (uint32_t)i;
        }
    } else if (lua_istable(L, r)) {
        if (!lua_rawequal(L, r, lp->row) && lua_rawgeti(L, r, 1) == LUA_TTABLE) {   /* several rows */
            lua_pop(L, 1);
            const lua_Integer m = (lua_Integer)lua_rawlen(L, r);
            for (lua_Integer j = 1; j <= m; j++) {
                if (lua_rawgeti(L, r, j) != LUA_TTABLE)
                    inl_lua_error(L, "map: the function returned a list whose item %I is not a row table", (LUAI_UACINT)j);
                emit(L, s, lp, lua_gettop(L), (uint32_t)i);
                lua_pop(L, 1);
            }
        } else {
            if (!lua_rawequal(L, r, lp->row)) lua_pop(L, 1);
            emit(L, s, lp, r, (uint32_t)i);
        }
    } else if (!lua_isnil(L, r) && !(lua_isboolean(L, r) && !lua_toboolean(L, r))) {
        inl_lua_error(L, "map: the function must return a row, a list of rows, or nil; got %s", luaL_typename(L, r));
    }
    lua_settop(L, r - 1);
}

/* Resolves the reads and writes lists into stack slots. */
static void resolve(lua_State *L, lsource *s, loop *lp)
{
    lp->nreads = (int)lua_rawlen(L, lp->reads);
    lp->nwrites = lp->filter ? 0 : (int)lua_rawlen(L, lp->writes);
    luaL_checkstack(L, 2 * (lp->nreads + lp->nwrites) + 20, "map");
    lp->rcol = lua_newuserdatauv(L, (size_t)(lp->nreads + 1) * sizeof(int) + (size_t)lp->nwrites + 1, 0);
    lp->wread = (bool *)(lp->rcol + lp->nreads + 1);
    lp->rbase = lua_gettop(L) + 1;
    for (int k = 0; k < lp->nreads; k++) {
        lua_rawgeti(L, lp->reads, k + 1);
        const int name = lua_gettop(L);
        int c = lookup(L, lp->cols, name);
        if (c == -2) inl_lua_error(L, "%s: no column '%s' to read", lp->filter ? "filter" : "map", lua_tostring(L, name));
        if (c >= 0) lua_pushnil(L);
        lp->rcol[k] = c;
    }
    lp->wbase = lua_gettop(L) + 1;
    for (int k = 0; k < lp->nwrites; k++) {
        lua_rawgeti(L, lp->writes, k + 1);
        if (lua_type(L, -1) != LUA_TSTRING) inl_lua_error(L, "map: column names must be strings");
        lp->wread[k] = false;
        for (int r = 0; r < lp->nreads; r++)
            if (lua_rawequal(L, lp->rbase + 2 * r, -1)) lp->wread[k] = true;
        lua_createtable(L, (int)s->n, 0);
    }
}

/* src:_map(fn, reads, writes, row, filter, discover) — runs fn over the
 * view's rows. reads/writes are name lists (filled in on the first call
 * when discover is true); row is the reused row table. */
static int s_map(lua_State *L)
{
    lsource *s = check_live(L, 1);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    luaL_checktype(L, 3, LUA_TTABLE);
    luaL_checktype(L, 4, LUA_TTABLE);
    luaL_checktype(L, 5, LUA_TTABLE);
    loop lp = { .fn = 2, .reads = 3, .writes = 4, .row = 5, .filter = lua_toboolean(L, 6) };
    const bool discover = lua_toboolean(L, 7);
    lua_settop(L, 7);
    lua_getiuservalue(L, 1, 2);
    lp.cols = lua_gettop(L);
    size_t start = 0;
    if (discover && s->n > 0) {
        /* row 0 through a proxy that notes what the function touches */
        lua_newtable(L);   /* known names */
        const int known = lua_gettop(L);
        lua_newtable(L);   /* proxy */
        const int proxy = lua_gettop(L);
        lua_createtable(L, 0, 2);
        for (int k = 0; k < 2; k++) {
            lua_pushvalue(L, lp.reads);
            lua_pushvalue(L, lp.writes);
            lua_pushvalue(L, 1);
            lua_pushvalue(L, known);
            lua_pushcclosure(L, k ? proxy_newindex : proxy_index, 4);
            lua_setfield(L, -2, k ? "__newindex" : "__index");
        }
        lua_setmetatable(L, proxy);
        lua_pushvalue(L, lp.fn);
        lua_pushvalue(L, proxy);
        s->at = 0;
        lua_call(L, 1, 1);
        lua_pushnil(L);
        lua_setmetatable(L, proxy);
        const int result = lua_gettop(L);
        /* as in later rows, the proxy holds what was read unless it was written */
        lua_pushvalue(L, lp.writes);
        if (lua_rawget(L, known) != LUA_TTABLE) {
            lua_pop(L, 1);
            lua_newtable(L);
        }
        const int written = lua_gettop(L);
        const lua_Integer nr = (lua_Integer)lua_rawlen(L, lp.reads);
        for (lua_Integer k = 1; k <= nr; k++) {
            lua_rawgeti(L, lp.reads, k);
            const int name = lua_gettop(L);
            lua_pushvalue(L, name);
            if (lua_rawget(L, written) == LUA_TNIL) {
                const int c = lookup(L, lp.cols, name);
                if (c == -1) lua_rawgeti(L, -1, 1);
                else push_cell(L, s, c, 0);
                lua_pushvalue(L, name);
                lua_insert(L, -2);
                lua_rawset(L, proxy);
            }
            lua_settop(L, written);
        }
        lua_settop(L, result);
        /* a fresh row (or list of rows) returned: its keys are written columns too */
        if (!lp.filter && lua_istable(L, result) && !lua_rawequal(L, result, proxy)) {
            const bool list = lua_rawgeti(L, result, 1) == LUA_TTABLE;
            lua_pop(L, 1);
            const lua_Integer m = list ? (lua_Integer)lua_rawlen(L, result) : 1;
            for (lua_Integer j = 1; j <= m; j++) {
                if (list && lua_rawgeti(L, result, j) != LUA_TTABLE) break;
                const int t = list ? lua_gettop(L) : result;
                lua_pushnil(L);
                while (lua_next(L, t)) {
                    lua_pop(L, 1);
                    if (lua_type(L, -1) == LUA_TSTRING) add_name(L, lp.writes, known, lua_gettop(L));
                }
                lua_settop(L, result);
            }
        }
        /* the columns are known now: row 0's result goes out as any other */
        lp.row = proxy;
        resolve(L, s, &lp);
        lua_pushvalue(L, result);
        take_result(L, s, &lp, 0);
        lp.row = 5;
        start = 1;
    } else {
        resolve(L, s, &lp);
    }
    const int row = lp.row;
    for (size_t i = start; i < s->n; i++) {
        for (int k = 0; k < lp.nreads; k++) {
            lua_pushvalue(L, lp.rbase + 2 * k);
            if (lp.rcol[k] >= 0) push_cell(L, s, lp.rcol[k], i);
            else lua_rawgeti(L, lp.rbase + 2 * k + 1, (lua_Integer)i + 1);
            lua_rawset(L, row);
        }
        for (int w = 0; w < lp.nwrites; w++) {   /* a written column starts each row as its input, or nil */
            if (lp.wread[w]) continue;
            lua_pushvalue(L, lp.wbase + 2 * w);
            lua_pushnil(L);
            lua_rawset(L, row);
        }
        lua_pushvalue(L, lp.fn);
        lua_pushvalue(L, row);
        s->at = i;
        lua_call(L, 1, 1);
        take_result(L, s, &lp, i);
    }
    /* the new view */
    const size_t n2 = lp.emitted;
    bool same = n2 == s->n;
    for (size_t k = 0; same && k < n2; k++) same = s->tmp[k] == k;
    if (!same) reshape(L, s, lp.cols, s->tmp, n2);
    for (int w = 0; w < lp.nwrites; w++) {
        lua_pushvalue(L, lp.wbase + 2 * w);
        lua_pushvalue(L, lp.wbase + 2 * w + 1);
        lua_rawset(L, lp.cols);
    }
    lua_pushinteger(L, (lua_Integer)s->n);
    return 1;
}

/* ---- to a writer ------------------------------------------------------------------------------ */

/* Whether source column c can go to writer column f as it is. */
static bool same_type(const lfield *a, const lfield *b)
{
    return a->kind == b->kind && a->width == b->width && a->precision == b->precision && a->scale == b->scale &&
           a->time_unit1 == b->time_unit1 && a->lo == b->lo && a->hi == b->hi && a->utf8 == b->utf8 &&
           strcmp(a->type_name, b->type_name) == 0;
}

/* The same for nested fields: the same shape, names, nullability and
 * leaf types, so that the source's array is what the writer's field takes. */
static bool same_tree(const lnode *a, const lnode *b)
{
    if (a->kind != b->kind || a->nchildren != b->nchildren || a->f.optional != b->f.optional) return false;
    if (a->kind == N_LEAF) return same_type(&a->f, &b->f);
    for (int i = 0; i < a->nchildren; i++) {
        const lnode *x = a->children[i], *y = b->children[i];
        if (a->kind == N_STRUCT && (x->name_len != y->name_len || memcmp(x->name, y->name, x->name_len))) return false;
        if (!same_tree(x, y)) return false;
    }
    return true;
}

/* Room to gather s->n rows of every column. */
static void gather_reserve(lua_State *L, lsource *s)
{
    if (s->gather_cap >= s->n) return;
    size_t ncap = s->n;
    for (int k = 0; k < s->ncols; k++) {
        const size_t ek = inl_lua_elem_size(&s->schema->fields[k]);
        void *v = resize(s, s->gather_vals[k], s->gather_cap * ek, ncap * ek);
        if (!v) inl_lua_error(L, "out of memory");
        s->gather_vals[k] = v;
        int16_t *d = resize(s, s->gather_def[k], s->gather_cap * sizeof *d, ncap * sizeof *d);
        if (!d) inl_lua_error(L, "out of memory");
        s->gather_def[k] = d;
    }
    s->gather_cap = ncap;
}

/* Source column c's values for the view, dense with levels. */
static inlay_column_batch gather(lua_State *L, lsource *s, int c)
{
    const inlay_column_batch *b = &s->batch[c];
    inlay_column_batch out = *b;
    out.count = s->n;
    if (s->identity) return out;
    const size_t es = inl_lua_elem_size(&s->schema->fields[c]);
    gather_reserve(L, s);
    uint8_t *dst = s->gather_vals[c];
    const uint8_t *src = b->values;
    int16_t *def = s->gather_def[c];
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        const size_t vi = value_index(L, s, c, s->sel[i]);
        if (b->levels.def) def[i] = vi != SIZE_MAX;
        if (vi == SIZE_MAX) continue;
        memcpy(dst + k * es, src + vi * es, es);
        k++;
    }
    out.values = dst;
    out.levels.def = b->levels.def ? def : NULL;
    return out;
}

/* The same from a reader's flat array (values spaced, validity bits): as
 * it is while the view has every row in order, else gathered through sel. */
static inlay_column_batch gather_array(lua_State *L, lsource *s, int c)
{
    static const uint8_t none[16];
    const inlay_array *a = s->arrays[c];
    inlay_column_batch out = { .values = a->values ? a->values : none, .count = s->n };
    if (s->identity) {
        out.levels.validity = a->validity;
        return out;
    }
    const size_t es = inl_lua_elem_size(&s->schema->fields[c]);
    gather_reserve(L, s);
    uint8_t *dst = s->gather_vals[c];
    const uint8_t *src = a->values;
    int16_t *def = s->gather_def[c];
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        const size_t r = s->sel[i];
        const bool present = !a->validity || (a->validity[r >> 3] >> (r & 7) & 1);
        def[i] = present;
        if (!present) continue;
        memcpy(dst + k * es, src + r * es, es);
        k++;
    }
    out.values = dst;
    out.levels.def = a->validity ? def : NULL;
    return out;
}

/* At least `want` bytes at *p (capacity *cap). */
static void *take_room(lua_State *L, lsource *s, void **p, size_t *cap, size_t want)
{
    if (*cap < want) {
        const size_t ncap = *cap * 2 > want ? *cap * 2 : want;
        void *q = resize(s, *p, *cap, ncap);
        if (!q) inl_lua_error(L, "out of memory");
        *p = q;
        *cap = ncap;
    }
    return *p;
}

/* *out = entries idx[0..m) of node n's array a, into n's scratch. */
static void take_node(lua_State *L, lsource *s, const lnode *n, const inlay_array *a, const uint32_t *idx, size_t m,
                      inlay_array *out)
{
    ltake *t = &s->take[n->id];
    *out = (inlay_array){ .length = m };
    if (a->validity) {
        uint8_t *v = take_room(L, s, (void **)&t->valid, &t->valid_cap, m / 8 + 1);
        memset(v, 0, m / 8 + 1);
        for (size_t k = 0; k < m; k++)
            if (a->validity[idx[k] >> 3] >> (idx[k] & 7) & 1) v[k >> 3] |= (uint8_t)(1u << (k & 7));
        out->validity = v;
    }
    if (n->kind == N_LEAF) {
        const size_t es = inl_lua_elem_size(&n->f);
        uint8_t *v = take_room(L, s, &t->vals, &t->vals_cap, m * es + 1);
        for (size_t k = 0; k < m; k++) memcpy(v + k * es, (const uint8_t *)a->values + (size_t)idx[k] * es, es);
        out->values = v;
        return;
    }
    inlay_array *kids = &s->take_arr[n->first];
    out->children = kids;
    if (n->kind == N_STRUCT) {
        for (int j = 0; j < n->nchildren; j++) take_node(L, s, n->children[j], &a->children[j], idx, m, &kids[j]);
        return;
    }
    int32_t *off = take_room(L, s, (void **)&t->off, &t->off_cap, (m + 1) * sizeof *off);
    size_t total = 0;
    off[0] = 0;
    for (size_t k = 0; k < m; k++) {
        total += (size_t)(a->offsets[idx[k] + 1] - a->offsets[idx[k]]);
        if (total > INT32_MAX) inl_lua_error(L, "column '%s': more than %d entries in one batch", n->f.name, INT32_MAX);
        off[k + 1] = (int32_t)total;
    }
    uint32_t *cidx = take_room(L, s, (void **)&t->idx, &t->idx_cap, total * sizeof *cidx + 1);
    for (size_t k = 0, at = 0; k < m; k++)
        for (int32_t e = a->offsets[idx[k]]; e < a->offsets[idx[k] + 1]; e++) cidx[at++] = (uint32_t)e;
    out->offsets = off;
    for (int j = 0; j < n->nchildren; j++) take_node(L, s, n->children[j], &a->children[j], cidx, total, &kids[j]);
}

/* A reader's nested field c for the view: as it is while the view has
 * every row in order, else gathered through sel. */
static const inlay_array *gather_nested(lua_State *L, lsource *s, int c)
{
    if (s->identity) return s->arrays[c];
    if (!s->take) {
        const size_t n = (size_t)s->schema->nnodes;
        void *b = resize(s, NULL, 0, n * (sizeof(ltake) + sizeof(inlay_array)));
        if (!b) inl_lua_error(L, "out of memory");
        memset(b, 0, n * (sizeof(ltake) + sizeof(inlay_array)));
        s->take = b;
        s->take_arr = (inlay_array *)(s->take + n);
    }
    const lnode *n = s->schema->fields[c].node;
    inlay_array *out = &s->take_arr[n->id];
    take_node(L, s, n, s->arrays[c], s->sel, s->n, out);
    return out;
}

/* src:_write(w) — appends the view to the writer, matching columns by name */
static int s_write(lua_State *L)
{
    lsource *s = check_live(L, 1);
    const lschema *ws = inl_lua_writer_schema(L, 2);
    lua_settop(L, 2);
    lua_getiuservalue(L, 1, 2);
    const int cols = 3;
    lua_newtable(L);   /* arrays for the writer */
    const int arrays = 4;
    const size_t nf = (size_t)ws->nfields + 1;
    const size_t block = nf * (sizeof(inlay_column_batch) + sizeof(inlay_array *) + sizeof(int));
    inlay_column_batch *ext = lua_newuserdatauv(L, block, 0);
    memset(ext, 0, block);
    const inlay_array **ext_nested = (const inlay_array **)(ext + nf);   /* a reader's nested fields, as they are */
    int *units = (int *)(ext_nested + nf);   /* a time column in another unit than the writer's */
    for (int i = 0; i < ws->nfields; i++) {
        const lfield *f = &ws->fields[i];
        lua_pushlstring(L, f->name, f->name_len);
        const int name = lua_gettop(L);
        int c = lookup(L, cols, name);
        if (c == -1) {
            lua_pushvalue(L, name);
            lua_insert(L, -2);
            lua_rawset(L, arrays);
        } else if (c >= 0) {
            const lfield *sf = &s->schema->fields[c];
            const bool as_is = sf->node ? f->node && s->cell && same_tree(sf->node, f->node)
                                        : !f->node && same_type(sf, f);
            if (as_is && sf->node) {
                ext_nested[i] = gather_nested(L, s, c);
            } else if (as_is) {
                ext[i] = s->cell ? gather_array(L, s, c) : gather(L, s, c);
            } else {   /* another type: through Lua values, converted as write_columns would */
                units[i] = sf->time_unit1;
                lua_pushvalue(L, name);
                lua_createtable(L, (int)s->n, 0);
                for (size_t r = 0; r < s->n; r++) {
                    push_cell(L, s, c, r);
                    lua_rawseti(L, -2, (lua_Integer)r + 1);
                }
                lua_rawset(L, arrays);
            }
        }
        lua_settop(L, 5);
    }
    inl_lua_writer_append_batch(L, 2, arrays, s->n, ext, ext_nested, units, s->rows_out);
    s->rows_out += s->n;
    return 0;
}

/* ---- inference ------------------------------------------------------------------------------ */

static int push_inferred(lua_State *L);

#define HELD_FD "inlay.held_fd"

/* A descriptor held open between inference and the source's own open of a
 * pipe or FIFO given by path: while it is held the writer of a FIFO keeps a
 * reader, and the source's open finds the stream where the sample ended. */
static int held_close(lua_State *L)
{
    int *fd = luaL_checkudata(L, 1, HELD_FD);
    if (*fd >= 0) close(*fd);
    *fd = -1;
    return 0;
}

/* The descriptor of path opened for a stream's sample, held by a userdata
 * pushed on the stack (closed by its close method or when collected). */
static int hold_stream(lua_State *L, const char *path)
{
    int *held = lua_newuserdatauv(L, sizeof *held, 0);
    *held = -1;
    if (luaL_newmetatable(L, HELD_FD)) {
        lua_pushcfunction(L, held_close);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, held_close);
        lua_setfield(L, -2, "__close");
        lua_createtable(L, 0, 1);
        lua_pushcfunction(L, held_close);
        lua_setfield(L, -2, "close");
        lua_setfield(L, -2, "__index");
    }
    lua_setmetatable(L, -2);
    int fd;
    do fd = open(path, O_RDONLY | O_CLOEXEC); while (fd < 0 && errno == EINTR);
    if (fd < 0) inl_lua_fail(L, INLAY_ERR_IO, "%s: %s", path, strerror(errno));
    *held = fd;
    return fd;
}

/* inlay._infer(path, opts, rows) -> { { name, type, optional = bool }, ... } where type is
 * the type's name ("int8", "double", "timestamp(us, utc)", ...); for stdin, a
 * pipe or a FIFO also the sample read (which the source then reads first),
 * and for a pipe or FIFO by path the descriptor held open (see hold_stream) */
static int source_infer(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer rows = luaL_optinteger(L, 3, 10000);
    lua_settop(L, 3);
    inlay_source_options o;
    read_options(L, 2, &o);
    inlay_schema *sc;
    char err[512];
    int st;
    int nres = 1;
    struct stat sb;
    const bool is_stdin = strcmp(path, "-") == 0;
    if (is_stdin || (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode))) {
        /* A pipe cannot be read twice: infer from a sample of it, which the
         * source then reads first (returned as a second result). */
        const int fd = is_stdin ? 0 : hold_stream(L, path);
        const int held = is_stdin ? 0 : lua_gettop(L);
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        lua_Integer want = 8 << 20;
        char *dst = luaL_prepbuffsize(&b, (size_t)want);
        size_t have = 0;
        ptrdiff_t n;
        while (have < (size_t)want) {
            n = read(fd, dst + have, (size_t)want - have);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) inl_lua_fail(L, INLAY_ERR_IO, "%s: read error: %s", is_stdin ? "<stdin>" : path, strerror(errno));
            if (n == 0) break;
            have += (size_t)n;
        }
        luaL_addsize(&b, have);
        luaL_pushresult(&b);
        const int sample = lua_gettop(L);
        size_t len;
        const char *data = lua_tolstring(L, sample, &len);
        const char *name = !is_stdin ? path : o.format == INLAY_FORMAT_NDJSON ? "<stdin>.ndjson" : "<stdin>";
        st = inlay_source_infer_buffer(&sc, data, len, have < (size_t)want, name, &o, rows > 0 ? (size_t)rows : 0,
                                       err, sizeof err);
        nres = 2;
        if (held) {   /* sample, held: above the results to come */
            lua_pushvalue(L, held);
            lua_remove(L, held);
            nres = 3;
        }
    } else {
        st = inlay_source_infer(&sc, path, &o, rows > 0 ? (size_t)rows : 0, err, sizeof err);
    }
    if (st != INLAY_OK) inl_lua_fail(L, st, "%s", err);
    /* The schema is ours until freed: the table is made under a protected
     * call, so that running out of memory there does not leak it. */
    lua_pushcfunction(L, push_inferred);
    lua_pushlightuserdata(L, sc);
    st = lua_pcall(L, 1, 1, 0);
    inlay_schema_free(sc);
    if (st != LUA_OK) lua_error(L);
    if (nres > 1) lua_rotate(L, -nres, 1);   /* fields, sample [, held] */
    return nres;
}

/* The field list of the inferred schema (a light userdata). */
static int push_inferred(lua_State *L)
{
    const inlay_schema *sc = lua_touserdata(L, 1);
    const int n = inlay_schema_num_columns(sc);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        const char *name;
        inlay_type t;
        inlay_repetition rep;
        inlay_schema_column(sc, i, &name, &t, &rep);
        lua_createtable(L, 2, 3);
        lua_pushstring(L, name);
        lua_rawseti(L, -2, 1);
        char tn[40];
        inlay_type_name(&t, tn, sizeof tn);
        lua_pushstring(L, tn);
        lua_rawseti(L, -2, 2);
        lua_pushboolean(L, rep == INLAY_OPTIONAL);
        lua_setfield(L, -2, "optional");
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* inlay._now() -> monotonic nanoseconds, for progress lines */
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

/* inlay._is_regular(path) -> whether path names a regular file. Only such a
 * file is looked at for Parquet's magic: reading the head of a pipe or a
 * FIFO would take bytes the text source then never sees. */
static int m_is_regular(lua_State *L)
{
    struct stat st;
    lua_pushboolean(L, stat(luaL_checkstring(L, 1), &st) == 0 && S_ISREG(st.st_mode));
    return 1;
}

void inl_lua_open_source(lua_State *L)
{
    static const luaL_Reg methods[] = {
        { "_next", s_next },   { "_cols", s_cols },   { "_n", s_n },         { "_stats", s_stats },
        { "_close", s_close }, { "_schema", s_schema }, { "_array", s_array }, { "_keep", s_keep },
        { "_map", s_map },     { "_write", s_write },  { "_dialect", s_dialect }, { "_where", s_where },
        { NULL, NULL },
    };
    static const luaL_Reg funcs[] = {
        { "_source_open", source_open },
        { "_infer", source_infer },
        { "_now", m_now },
        { "_isatty", m_isatty },
        { "_is_regular", m_is_regular },
        { NULL, NULL },
    };
    luaL_newmetatable(L, LI_SOURCE);
    luaL_newlib(L, methods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, s_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, s_gc);
    lua_setfield(L, -2, "__close");
    lua_pop(L, 1);
    luaL_setfuncs(L, funcs, 0);
}
