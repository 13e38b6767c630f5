/*
 * lschema.c — column types and schemas for Lua: inlay.timestamp, time,
 * decimal, fixed, the nested inlay.list, struct and map,
 * inlay.schema{...}, and inlay.load_schema(path), which runs a schema file
 * as data (see "schema files" below).
 *
 * A type constructor only records its arguments and, when they are wrong,
 * why; inlay.schema reports that with the field's path, so every mistake in
 * a schema is named the same way ("inlay: field 'ts': ...",
 * "inlay: field 'hits.element.pos.x': ..."). A nested type keeps its
 * arguments (element type, fields, key and value types) in its user value.
 *
 * A nested field becomes a tree of lnode (lschema.h), built depth-first
 * along with the core's groups (inlay_schema_add_group, _add_list,
 * _add_map), so its leaves come out in the core's column order. The nodes,
 * their paths and their field names live in Lua (userdata and strings in
 * the schema's second user value), so they go with the schema.
 *
 * A schema userdata is one block: the lschema header, one lfield per
 * top-level field (how a Lua value becomes a column value; for a nested
 * field, its tree), and an open-addressing table from a field name's
 * address to its index. Field names are Lua strings kept alive by the
 * schema's user values; Lua interns short strings, so the key of a row
 * table usually has the very address of the field's name and w:write finds
 * its column without comparing bytes (struct nodes keep the same kind of
 * table for their fields). Long names, or any miss, fall back to comparing
 * bytes.
 *
 * A schema also keeps a copy of the field list it was made from (its third
 * user value: the list and each field's table copied, nested types shared),
 * so that inlay.open can make it again with other field options
 * (bloom_filter = { ... }: inl_lua_schema_with_option).
 *
 * Codec names ("zstd", "lz4", "zstd:19") are read here, for the field
 * options compression and compression_level and for inlay.open's options
 * (lwriter.c); whether a codec takes a level is the core's to say.
 */
#include <stdbool.h>
#include <string.h>

#include "lschema.h"

/* ---- type objects --------------------------------------------------------- */

enum { T_TIMESTAMP, T_TIME, T_DECIMAL, T_FIXED, T_LIST, T_STRUCT, T_MAP };

typedef struct ltype {
    int which;
    int unit;              /* inlay_time_unit */
    bool utc;
    bool nullable;         /* list elements, map values: may be null (the default) */
    lua_Integer a, b;      /* decimal precision and scale; fixed width */
    char err[120];         /* why the arguments are wrong, or "" */
} ltype;

#define MAX_DECIMAL_PRECISION 76

static const char *const unit_names[] = { "ms", "us", "ns", NULL };

static void type_fail(ltype *t, const char *msg)
{
    if (!t->err[0]) snprintf(t->err, sizeof t->err, "%s", msg);
}

/* inlay.timestamp(unit, { utc = bool }) and inlay.time(unit, { utc = bool }) */
static void time_args(lua_State *L, ltype *t, const char *what)
{
    const char *u = luaL_checkstring(L, 1);
    t->unit = -1;
    for (int i = 0; unit_names[i]; i++)
        if (strcmp(u, unit_names[i]) == 0) t->unit = i;
    if (t->unit < 0) {
        char msg[96];
        snprintf(msg, sizeof msg, "%s unit '%.20s' is not one of 'ms', 'us', 'ns'", what, u);
        type_fail(t, msg);
        t->unit = 0;
    }
    if (lua_isnoneornil(L, 2)) return;
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, 2)) {
        char msg[96];
        if (lua_type(L, -2) == LUA_TSTRING && strcmp(lua_tostring(L, -2), "utc") == 0) {
            if (lua_type(L, -1) == LUA_TBOOLEAN) t->utc = lua_toboolean(L, -1);
            else {
                snprintf(msg, sizeof msg, "%s option 'utc' must be a boolean", what);
                type_fail(t, msg);
            }
        } else {
            snprintf(msg, sizeof msg, "unknown %s option '%.30s' (the only one is 'utc')", what,
                     lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : luaL_typename(L, -2));
            type_fail(t, msg);
        }
        lua_pop(L, 1);
    }
}

/* The options of inlay.list and inlay.map: { nullable = bool }. */
static void nested_options(lua_State *L, ltype *t, int idx, const char *what)
{
    t->nullable = true;
    if (lua_isnoneornil(L, idx)) return;
    char msg[120];
    if (!lua_istable(L, idx)) {
        snprintf(msg, sizeof msg, "inlay.%s options must be a table, got %s", what, luaL_typename(L, idx));
        type_fail(t, msg);
        return;
    }
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (lua_type(L, -2) == LUA_TSTRING && strcmp(lua_tostring(L, -2), "nullable") == 0) {
            if (lua_type(L, -1) == LUA_TBOOLEAN) t->nullable = lua_toboolean(L, -1);
            else {
                snprintf(msg, sizeof msg, "inlay.%s option 'nullable' must be a boolean", what);
                type_fail(t, msg);
            }
        } else {
            snprintf(msg, sizeof msg, "unknown inlay.%s option '%.30s' (the only one is 'nullable')", what,
                     lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : luaL_typename(L, -2));
            type_fail(t, msg);
        }
        lua_pop(L, 1);
    }
}

/* inlay.list(T, opts), inlay.map(K, V, opts), inlay.struct{ fields }: the
 * arguments go into the user value, checked by inlay.schema. */
static int nested_ctor(lua_State *L, int which)
{
    ltype tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.which = which;
    int nargs = which == T_MAP ? 2 : 1;
    lua_settop(L, nargs + 1);   /* missing arguments are nil, not what comes next */
    if (which == T_LIST) nested_options(L, &tmp, 2, "list");
    else if (which == T_MAP) nested_options(L, &tmp, 3, "map");
    else if (!lua_istable(L, 1))
        type_fail(&tmp, "inlay.struct takes a table of fields: inlay.struct { { \"x\", \"float\" }, ... }");
    lua_createtable(L, nargs, 0);
    for (int i = 1; i <= nargs; i++) {
        lua_pushvalue(L, i);
        lua_rawseti(L, -2, i);
    }
    ltype *t = lua_newuserdatauv(L, sizeof *t, 1);
    *t = tmp;
    lua_insert(L, -2);
    lua_setiuservalue(L, -2, 1);
    luaL_setmetatable(L, LI_TYPE);
    return 1;
}

static int type_ctor(lua_State *L, int which)
{
    if (which >= T_LIST) return nested_ctor(L, which);
    ltype tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.which = which;
    switch (which) {
    case T_TIMESTAMP: time_args(L, &tmp, "timestamp"); break;
    case T_TIME: time_args(L, &tmp, "time"); break;
    case T_DECIMAL: {
        tmp.a = luaL_checkinteger(L, 1);
        tmp.b = luaL_optinteger(L, 2, 0);
        char msg[96];
        if (tmp.a < 1 || tmp.a > MAX_DECIMAL_PRECISION) {
            snprintf(msg, sizeof msg, "decimal precision %lld out of range 1..%d", (long long)tmp.a,
                     MAX_DECIMAL_PRECISION);
            type_fail(&tmp, msg);
        } else if (tmp.b < 0 || tmp.b > tmp.a) {
            snprintf(msg, sizeof msg, "decimal scale %lld out of range 0..%lld", (long long)tmp.b,
                     (long long)tmp.a);
            type_fail(&tmp, msg);
        }
        break;
    }
    default: {
        tmp.a = luaL_checkinteger(L, 1);
        if (tmp.a < 1 || tmp.a > INT32_MAX) {
            char msg[96];
            snprintf(msg, sizeof msg, "fixed width %lld out of range 1..%d", (long long)tmp.a, INT32_MAX);
            type_fail(&tmp, msg);
        }
        break;
    }
    }
    ltype *t = lua_newuserdatauv(L, sizeof *t, 0);
    *t = tmp;
    luaL_setmetatable(L, LI_TYPE);
    return 1;
}

/* Appends the text of the value at idx to the string at acc: a type name
 * quoted, a type object as its own text. */
static void append_piece(lua_State *L, int acc, const char *text, int idx)
{
    lua_pushvalue(L, acc);
    if (text) lua_pushstring(L, text);
    else if (lua_type(L, idx) == LUA_TSTRING) lua_pushfstring(L, "\"%s\"", lua_tostring(L, idx));
    else luaL_tolstring(L, idx, NULL);
    lua_concat(L, 2);
    lua_replace(L, acc);
}

/* inlay.list("string"), inlay.map("string", "int64", { nullable = false }),
 * inlay.struct { { "x", "float" }, { "n", "int32", optional = true } } */
static void nested_tostring(lua_State *L, const ltype *t)
{
    luaL_checkstack(L, 8, "tostring");
    lua_getiuservalue(L, 1, 1);
    const int args = lua_gettop(L);
    lua_pushstring(L, t->which == T_LIST ? "inlay.list(" : t->which == T_MAP ? "inlay.map(" : "inlay.struct {");
    const int acc = lua_gettop(L);
    if (t->which != T_STRUCT) {
        for (int i = 1; i <= (t->which == T_MAP ? 2 : 1); i++) {
            if (i > 1) append_piece(L, acc, ", ", 0);
            lua_rawgeti(L, args, i);
            append_piece(L, acc, NULL, lua_gettop(L));
            lua_pop(L, 1);
        }
        append_piece(L, acc, t->nullable ? ")" : ", { nullable = false })", 0);
        return;
    }
    lua_rawgeti(L, args, 1);
    const int fields = lua_gettop(L);
    lua_Integer n = lua_istable(L, fields) ? (lua_Integer)lua_rawlen(L, fields) : 0;
    for (lua_Integer i = 1; i <= n; i++) {
        append_piece(L, acc, i > 1 ? ", { " : " { ", 0);
        if (lua_rawgeti(L, fields, i) == LUA_TTABLE) {
            const int spec = lua_gettop(L);
            lua_rawgeti(L, spec, 1);
            append_piece(L, acc, NULL, lua_gettop(L));
            append_piece(L, acc, ", ", 0);
            lua_rawgeti(L, spec, 2);
            append_piece(L, acc, NULL, lua_gettop(L));
            lua_pop(L, 2);
            if (lua_getfield(L, spec, "optional") == LUA_TBOOLEAN && lua_toboolean(L, -1))
                append_piece(L, acc, ", optional = true", 0);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        append_piece(L, acc, " }", 0);
    }
    append_piece(L, acc, " }", 0);
    lua_settop(L, acc);
}

static int type_tostring(lua_State *L)
{
    ltype *t = luaL_checkudata(L, 1, LI_TYPE);
    switch (t->which) {
    case T_LIST: case T_STRUCT: case T_MAP:
        nested_tostring(L, t);
        break;
    case T_TIMESTAMP: case T_TIME:
        lua_pushfstring(L, "inlay.%s(\"%s\"%s)", t->which == T_TIME ? "time" : "timestamp",
                        unit_names[t->unit], t->utc ? ", { utc = true }" : "");
        break;
    case T_DECIMAL:
        lua_pushfstring(L, "inlay.decimal(%I, %I)", (LUAI_UACINT)t->a, (LUAI_UACINT)t->b);
        break;
    default:
        lua_pushfstring(L, "inlay.fixed(%I)", (LUAI_UACINT)t->a);
        break;
    }
    return 1;
}

/* ---- resolving a field's type ----------------------------------------------- */

static LI_NORETURN void field_error(lua_State *L, const char *path, const char *fmt, const char *a)
{
    lua_pushfstring(L, fmt, a);
    inl_lua_error(L, "field '%s': %s", path, lua_tostring(L, -1));
}

/* The core type of the type at idx (a name or a type object), with f's
 * conversion set from it. */
static void resolve_type(lua_State *L, int idx, const char *path, lfield *f, inlay_type *t)
{
    if (lua_type(L, idx) == LUA_TSTRING) {
        size_t len;
        const char *s = lua_tolstring(L, idx, &len);
        if (!inlay_type_parse(s, len, t)) {
            if (!strcmp(s, "list"))
                field_error(L, path, "type '%s' needs an element type: use inlay.list(T)", s);
            if (!strcmp(s, "map"))
                field_error(L, path, "type '%s' needs a key and a value type: use inlay.map(K, V)", s);
            if (!strcmp(s, "struct"))
                field_error(L, path, "type '%s' needs its fields: use inlay.struct { { name, type }, ... }", s);
            if (!strcmp(s, "timestamp") || !strcmp(s, "time")) {
                lua_pushfstring(L, "type '%s' needs a unit: use inlay.%s(\"us\") (or \"ms\", \"ns\")", s, s);
                field_error(L, path, "%s", lua_tostring(L, -1));
            }
            if (!strcmp(s, "decimal"))
                field_error(L, path, "type '%s' needs a precision: use inlay.decimal(precision, scale)", s);
            if (!strcmp(s, "fixed")) field_error(L, path, "type '%s' needs a width: use inlay.fixed(bytes)", s);
            field_error(L, path, "unknown type '%s'", s);
        }
        inl_lua_field_set_type(f, t);
        return;
    }
    ltype *ty = luaL_testudata(L, idx, LI_TYPE);
    if (!ty) {
        if (lua_isnoneornil(L, idx)) field_error(L, path, "no type%s", "");
        field_error(L, path, "expected a type name or an inlay type, got %s", luaL_typename(L, idx));
    }
    if (ty->err[0]) field_error(L, path, "%s", ty->err);
    if (ty->which >= T_LIST)   /* the callers build nested types themselves */
        field_error(L, path, "a %s is not a primitive type here", ty->which == T_LIST ? "list"
                                                                : ty->which == T_MAP ? "map" : "struct");
    switch (ty->which) {
    case T_TIMESTAMP: *t = inlay_type_timestamp((inlay_time_unit)ty->unit, ty->utc); break;
    case T_TIME: *t = inlay_type_time((inlay_time_unit)ty->unit, ty->utc); break;
    case T_DECIMAL: {
        const int32_t p = (int32_t)ty->a, sc = (int32_t)ty->b;
        *t = inlay_type_decimal(p, sc, p <= 9 ? INLAY_INT32 : p <= 18 ? INLAY_INT64 : INLAY_FIXED_LEN_BYTE_ARRAY, 0);
        break;
    }
    default: *t = inlay_type_fixed((int32_t)ty->a); break;
    }
    inl_lua_field_set_type(f, t);
}

/* ---- codecs ------------------------------------------------------------------ */

/* Every codec the writer knows, in the format's order; the names are the
 * core's, in lower case, as scripts and the command line spell them. */
static const inlay_compression all_codecs[] = {
    INLAY_UNCOMPRESSED, INLAY_SNAPPY, INLAY_GZIP, INLAY_BROTLI, INLAY_ZSTD, INLAY_LZ4_RAW,
};

const char *inl_lua_push_codec_name(lua_State *L, inlay_compression c)
{
    const char *name = inlay_compression_name(c);
    char buf[32];
    size_t n = 0;
    for (; name && name[n] && n < sizeof buf - 1; n++)
        buf[n] = (char)(name[n] >= 'A' && name[n] <= 'Z' ? name[n] - 'A' + 'a' : name[n]);
    return lua_pushlstring(L, buf, n);
}

int inl_lua_codecs(const inlay_compression **list)
{
    *list = all_codecs;
    return (int)(sizeof all_codecs / sizeof all_codecs[0]);
}

void inl_lua_push_codec_list(lua_State *L)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    bool first = true;
    for (size_t i = 0; i < sizeof all_codecs / sizeof all_codecs[0]; i++) {
        if (!inlay_compression_supported(all_codecs[i])) continue;
        luaL_addstring(&b, first ? "'" : ", '");
        inl_lua_push_codec_name(L, all_codecs[i]);
        luaL_addvalue(&b);
        luaL_addchar(&b, '\'');
        first = false;
    }
    luaL_pushresult(&b);
}

const char *inl_lua_codec_parse(lua_State *L, const char *spec, inlay_compression *codec, int *level)
{
    const char *colon = strchr(spec, ':');
    char name[32];
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    *level = INLAY_LEVEL_DEFAULT;
    if (len >= sizeof name || (memcpy(name, spec, len), name[len] = '\0', !inlay_compression_parse(name, codec))) {
        inl_lua_push_codec_list(L);
        lua_pushfstring(L, "unknown compression '%s' (this inlay has %s)", spec, lua_tostring(L, -1));
        lua_remove(L, -2);
        return lua_tostring(L, -1);
    }
    if (!inlay_compression_supported(*codec)) {
        inl_lua_push_codec_list(L);
        lua_pushfstring(L, "compression '%s' is not built into this inlay (it has %s)", name, lua_tostring(L, -1));
        lua_remove(L, -2);
        return lua_tostring(L, -1);
    }
    if (colon) {
        int isnum;
        lua_pushstring(L, colon + 1);
        lua_Integer v = lua_tointegerx(L, -1, &isnum);
        lua_pop(L, 1);
        if (!isnum || colon[1] == '\0' || v <= INT32_MIN || v > INT32_MAX)
            return lua_pushfstring(L, "the level in '%s' is not an integer", spec);
        *level = (int)v;
    }
    return NULL;
}

/* A field's codec: the one `compression` names, at the level it or
 * `compression_level` gives (they must agree), or the default level of a
 * codec named without one. A level alone changes the level of the codec
 * the field inherits (a nested field's, for the fields inside it); without
 * one, the level of the writer's codec is the writer's to set. */
typedef struct codec_opts {
    bool codec_set, level_set;
    inlay_compression codec;
    int spec_level;          /* the level in "zstd:19", or INLAY_LEVEL_DEFAULT */
    int level;               /* compression_level */
} codec_opts;

static void apply_codec(lua_State *L, const char *path, const codec_opts *c, inlay_column_options *o)
{
    if (c->codec_set) {
        if (c->level_set && c->spec_level != INLAY_LEVEL_DEFAULT && c->spec_level != c->level) {
            lua_pushfstring(L, "option 'compression' says level %d, 'compression_level' %d", c->spec_level, c->level);
            field_error(L, path, "%s", lua_tostring(L, -1));
        }
        o->compression = (int)c->codec;
        o->compression_level = c->level_set ? c->level : c->spec_level;
    } else if (c->level_set) {
        if (o->compression == -1)
            field_error(L, path, "option 'compression_level' needs 'compression' too (the level of the writer's "
                                 "codec is inlay.open's compression_level)%s", "");
        o->compression_level = c->level;
    }
}

/* The field option bloom_filter, the value on top of the stack: true (sized
 * by the core from each chunk's distinct values, at the default fpp), false,
 * or { ndv = n, fpp = p } (either may be left out). */
static void bloom_option(lua_State *L, const char *path, inlay_column_options *o)
{
    const int t = lua_gettop(L);
    if (lua_type(L, t) == LUA_TBOOLEAN) {
        o->bloom_filter = lua_toboolean(L, t);
        o->bloom_ndv = 0;
        o->bloom_fpp = 0;
        return;
    }
    if (lua_type(L, t) != LUA_TTABLE)
        field_error(L, path, "option 'bloom_filter' must be true, false or { ndv = n, fpp = p }, got %s",
                    luaL_typename(L, t));
    uint64_t ndv = 0;
    double fpp = 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        if (k && !strcmp(k, "ndv")) {
            int isint;
            lua_Integer v = lua_tointegerx(L, -1, &isint);
            if (lua_type(L, -1) != LUA_TNUMBER || !isint || v < 1)
                field_error(L, path, "bloom_filter: ndv must be a positive integer, got %s", luaL_tolstring(L, -1, NULL));
            ndv = (uint64_t)v;
        } else if (k && !strcmp(k, "fpp")) {
            const lua_Number v = lua_tonumber(L, -1);
            if (lua_type(L, -1) != LUA_TNUMBER || !(v > 0 && v < 1))
                field_error(L, path, "bloom_filter: fpp must be a number between 0 and 1 (exclusive), got %s",
                            luaL_tolstring(L, -1, NULL));
            fpp = (double)v;
        } else {
            field_error(L, path, "bloom_filter: unknown key %s (the keys are ndv and fpp)",
                        luaL_tolstring(L, -2, NULL));
        }
        lua_pop(L, 1);
    }
    o->bloom_filter = true;
    o->bloom_ndv = ndv;
    o->bloom_fpp = fpp;
}

/* Per-field options: optional, encoding, statistics, compression,
 * compression_level, bloom_filter, over the ones *o holds already (a
 * nested field's apply to its leaves). Returns whether the spec itself
 * says bloom_filter (see build_type: a boolean leaf refuses one given to
 * it, and goes without one it would inherit from a struct or map). */
static bool field_options(lua_State *L, int spec, const char *path, lfield *f,
                          inlay_column_options *o)
{
    bool bloom = false;
    codec_opts codec = { false, false, INLAY_UNCOMPRESSED, INLAY_LEVEL_DEFAULT, INLAY_LEVEL_DEFAULT };
    lua_pushnil(L);
    while (lua_next(L, spec)) {
        if (lua_isinteger(L, -2)) {
            lua_Integer k = lua_tointeger(L, -2);
            if (k != 1 && k != 2)
                field_error(L, path, "unexpected value at position %s (options are named: optional = true, ...)",
                            lua_tostring(L, -2));
            lua_pop(L, 1);
            continue;
        }
        if (lua_type(L, -2) != LUA_TSTRING)
            field_error(L, path, "unexpected %s key (options are named: optional = true, ...)",
                        luaL_typename(L, -2));
        const char *k = lua_tostring(L, -2);
        int vt = lua_type(L, -1);
        if (!strcmp(k, "optional")) {
            if (vt != LUA_TBOOLEAN) field_error(L, path, "option 'optional' must be a boolean, got %s", luaL_typename(L, -1));
            f->optional = lua_toboolean(L, -1);
        } else if (!strcmp(k, "statistics")) {
            if (vt != LUA_TBOOLEAN) field_error(L, path, "option 'statistics' must be a boolean, got %s", luaL_typename(L, -1));
            o->statistics = lua_toboolean(L, -1);
        } else if (!strcmp(k, "encoding")) {
            if (vt != LUA_TSTRING) field_error(L, path, "option 'encoding' must be a string, got %s", luaL_typename(L, -1));
            const char *e = lua_tostring(L, -1);
            if (!strcmp(e, "dictionary")) o->encoding = INLAY_ENCODING_DICTIONARY;
            else if (!strcmp(e, "plain")) o->encoding = INLAY_ENCODING_PLAIN;
            else if (!strcmp(e, "auto")) o->encoding = INLAY_ENCODING_AUTO;
            else if (!strcmp(e, "delta") || !strcmp(e, "delta_binary_packed") ||
                     !strcmp(e, "delta_length_byte_array"))
                o->encoding = INLAY_ENCODING_DELTA;   /* the column's type picks which */
            else if (!strcmp(e, "delta_byte_array")) o->encoding = INLAY_ENCODING_DELTA_BYTE_ARRAY;
            else if (!strcmp(e, "byte_stream_split")) o->encoding = INLAY_ENCODING_BYTE_STREAM_SPLIT;
            else if (!strcmp(e, "rle")) o->encoding = INLAY_ENCODING_RLE;
            else
                field_error(L, path, "unknown encoding '%s' (use 'auto', 'dictionary', 'plain', 'delta', "
                                     "'delta_byte_array', 'byte_stream_split' or 'rle')", e);
        } else if (!strcmp(k, "compression")) {
            if (vt != LUA_TSTRING)
                field_error(L, path, "option 'compression' must be a string, got %s", luaL_typename(L, -1));
            const char *why = inl_lua_codec_parse(L, lua_tostring(L, -1), &codec.codec, &codec.spec_level);
            if (why) field_error(L, path, "%s", why);
            codec.codec_set = true;
        } else if (!strcmp(k, "compression_level")) {
            int isint;
            lua_Integer v = lua_tointegerx(L, -1, &isint);
            if (vt != LUA_TNUMBER || !isint || v <= INT32_MIN || v > INT32_MAX)
                field_error(L, path, "option 'compression_level' must be an integer, got %s",
                            luaL_tolstring(L, -1, NULL));
            codec.level = (int)v;
            codec.level_set = true;
        } else if (!strcmp(k, "bloom_filter")) {
            bloom_option(L, path, o);
            bloom = true;
        } else {
            field_error(L, path,
                        "unknown option '%s' (the options are optional, encoding, statistics, compression, "
                        "compression_level, bloom_filter)", k);
        }
        lua_pop(L, 1);
    }
    apply_codec(L, path, &codec, o);
    return bloom;
}

/* ---- nested fields ------------------------------------------------------------ */

/* Deepest nesting of lists, structs and maps, in nodes: each adds at most
 * two groups to a leaf's path, which stays within what the core walks. */
#define MAX_NESTING 30

/* The state of one inlay.schema call. */
typedef struct build {
    lschema *s;
    int anchors;             /* stack index of the table that keeps nodes and strings alive */
    lua_Integer nanchors;
    int next_id;             /* node ids handed out so far */
    int leaves;              /* leaf columns so far */
} build;

/* Moves the value on top of the stack into the anchor table. */
static void anchor(lua_State *L, build *b)
{
    lua_rawseti(L, b->anchors, ++b->nanchors);
}

/* A string kept alive by the schema; pops nothing, pushes nothing. */
static const char *keep_string(lua_State *L, build *b, const char *s, size_t *len)
{
    lua_pushstring(L, s);
    const char *p = lua_tolstring(L, -1, len);
    anchor(L, b);
    return p;
}

static unsigned ptr_hash(const void *p);

static lnode *new_node(lua_State *L, build *b, inl_lua_nkind kind, int nchildren, int id)
{
    unsigned hsize = 0;
    if (kind == N_STRUCT) {
        hsize = 4;
        while (hsize < 2 * (unsigned)nchildren) hsize *= 2;
    }
    size_t size = sizeof(lnode) + (size_t)nchildren * sizeof(lnode *) + hsize * sizeof(int);
    lnode *n = lua_newuserdatauv(L, size, 0);
    memset(n, 0, size);
    anchor(L, b);
    n->kind = kind;
    n->id = id;
    n->nchildren = nchildren;
    n->children = (const lnode *const *)(n + 1);
    if (hsize) {
        int *h = (int *)((char *)(n + 1) + (size_t)nchildren * sizeof(lnode *));
        for (unsigned i = 0; i < hsize; i++) h[i] = -1;
        n->hash = h;
        n->hash_mask = hsize - 1;
    }
    if (nchildren) {
        n->first = b->next_id;
        b->next_id += nchildren;
    }
    return n;
}

/* A field name that is not UTF-8 (which the core refuses too) is refused
 * before any message prints it: with the core's words, the name escaped
 * the same way (bytes outside valid UTF-8, control characters and the
 * backslash as \xff, \x0a, \\), under the path `parent` (or NULL). */
static void check_name_utf8(lua_State *L, const char *parent, const char *name, size_t len)
{
    if (inlay_utf8_valid(name, len)) return;
    const unsigned char *p = (const unsigned char *)name;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (size_t i = 0; i < len;) {
        const unsigned char c = p[i];
        const size_t seq = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        if (c >= 0x80 && seq && i + seq <= len && inlay_utf8_valid(p + i, seq)) {
            luaL_addlstring(&b, name + i, seq);
            i += seq;
            continue;
        }
        if (c == '\\') luaL_addstring(&b, "\\\\");
        else if (c < 0x20 || c == 0x7F || c >= 0x80) {
            char hex[5];
            snprintf(hex, sizeof hex, "\\x%02x", c);
            luaL_addstring(&b, hex);
        } else luaL_addchar(&b, (char)c);
        i++;
    }
    luaL_pushresult(&b);
    inl_lua_error(L, "field '%s%s%s': the name is not valid UTF-8", parent ? parent : "", parent ? "." : "",
                  lua_tostring(L, -1));
}

/* The core's message for a node it refused, restated with our path: its
 * own names the Parquet path ("tags.list.element"), which the script never
 * wrote. */
static LI_NORETURN void core_error(lua_State *L, build *b, const char *path)
{
    const char *m = inlay_schema_errmsg(b->s->s);
    const char *why = strncmp(m, "field '", 7) == 0 ? strstr(m, "': ") : NULL;
    inl_lua_error(L, "field '%s': %s", path, why ? why + 3 : m);
}

static lnode *build_type(lua_State *L, build *b, int tidx, int parent, const char *cname, bool nullable,
                         const char *path, const char *ppath, const inlay_column_options *o, bool own_bloom,
                         int id, int depth);

/* The fields of inlay.struct { ... } (the table at idx) under group gid. */
static void build_struct_fields(lua_State *L, build *b, lnode *n, int fields, int gid, const char *path,
                                const char *ppath, const inlay_column_options *inherit, int depth)
{
    lnode **kids = (lnode **)(n + 1);
    int *hash = (int *)n->hash;
    lua_newtable(L);   /* names seen */
    const int seen = lua_gettop(L);
    for (int i = 1; i <= n->nchildren; i++) {
        if (lua_rawgeti(L, fields, i) != LUA_TTABLE)
            inl_lua_error(L, "field '%s': struct field #%d: expected a table { name, type, ... }, got %s", path, i,
                     luaL_typename(L, -1));
        const int spec = lua_gettop(L);
        if (lua_rawgeti(L, spec, 1) != LUA_TSTRING)
            inl_lua_error(L, "field '%s': struct field #%d: expected its name first, got %s", path, i,
                     luaL_typename(L, -1));
        size_t len;
        const char *name = lua_tolstring(L, -1, &len);
        if (len == 0) inl_lua_error(L, "field '%s': struct field #%d: empty name", path, i);
        if (strlen(name) != len) inl_lua_error(L, "field '%s': struct field #%d: the name contains a NUL byte", path, i);
        check_name_utf8(L, path, name, len);
        lua_pushvalue(L, -1);
        if (lua_rawget(L, seen) != LUA_TNIL) inl_lua_error(L, "field '%s.%s': duplicate name", path, name);
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_pushboolean(L, 1);
        lua_rawset(L, seen);
        lua_pushvalue(L, -1);
        anchor(L, b);   /* the name's address is the key w:write looks up */
        const char *fpath = lua_pushfstring(L, "%s.%s", path, name);
        anchor(L, b);
        const char *fppath = lua_pushfstring(L, "%s.%s", ppath, name);
        anchor(L, b);
        lfield opt;
        memset(&opt, 0, sizeof opt);
        inlay_column_options o = *inherit;
        const bool own_bloom = field_options(L, spec, fpath, &opt, &o);
        lua_rawgeti(L, spec, 2);
        lnode *k = build_type(L, b, lua_gettop(L), gid, name, opt.optional, fpath, fppath, &o, own_bloom,
                              n->first + i - 1, depth + 1);
        k->name = name;
        k->name_len = len;
        kids[i - 1] = k;
        unsigned h = ptr_hash(name) & n->hash_mask;
        while (hash[h] >= 0) h = (h + 1) & n->hash_mask;
        hash[h] = i - 1;
        lua_settop(L, spec - 1);
    }
    lua_pop(L, 1);
}

/* The number of fields of inlay.struct's table at idx, checked to be a
 * non-empty sequence. */
static int struct_size(lua_State *L, int idx, const char *path)
{
    lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > n)
            inl_lua_error(L, "field '%s': unexpected key %s in inlay.struct (list the fields in order: "
                        "{ { \"x\", \"float\" }, ... })", path, luaL_tolstring(L, -1, NULL));
    }
    if (n == 0) inl_lua_error(L, "field '%s': a struct needs at least one field", path);
    if (n > 32767) inl_lua_error(L, "field '%s': too many struct fields (%I)", path, (LUAI_UACINT)n);
    return (int)n;
}

/* The options of a leaf of type t. BOOLEAN columns have no bloom filter:
 * one asked of the leaf itself (own_bloom) is an error, one inherited from
 * a struct or map around it is left out for this leaf. */
static const inlay_column_options *leaf_options(lua_State *L, const char *path, const inlay_type *t,
                                                const inlay_column_options *o, bool own_bloom,
                                                inlay_column_options *tmp)
{
    if (t->physical != INLAY_BOOLEAN || !o->bloom_filter) return o;
    if (own_bloom) field_error(L, path, "bloom filters are not for boolean columns%s", "");
    *tmp = *o;
    tmp->bloom_filter = false;
    return tmp;
}

/* One node of a nested field: the type at tidx, added to the core schema
 * under `parent` as `cname`. `path` names it in messages, `ppath` is its
 * path in the Parquet schema; both are kept alive by the caller. own_bloom:
 * o's bloom_filter was given to this node (or to the list it is the
 * element of), not inherited from a struct or map. */
static lnode *build_type(lua_State *L, build *b, int tidx, int parent, const char *cname, bool nullable,
                         const char *path, const char *ppath, const inlay_column_options *o, bool own_bloom,
                         int id, int depth)
{
    luaL_checkstack(L, 16, "inlay.schema");
    if (depth > MAX_NESTING) inl_lua_error(L, "field '%s': nested deeper than %d levels", path, MAX_NESTING);
    if (depth > b->s->depth) b->s->depth = depth;
    const inlay_repetition rep = nullable ? INLAY_OPTIONAL : INLAY_REQUIRED;
    ltype *ty = luaL_testudata(L, tidx, LI_TYPE);
    if (!ty || ty->which < T_LIST) {
        lnode *n = new_node(L, b, N_LEAF, 0, id);
        inlay_type t;
        resolve_type(L, tidx, path, &n->f, &t);
        n->f.name = path;
        n->f.name_len = strlen(path);
        n->f.optional = nullable;
        n->f.slot = -1;
        n->f.column = b->leaves++;
        n->ppath = ppath;
        inlay_column_options tmp;
        if (inlay_schema_add(b->s->s, parent, cname, rep, t, leaf_options(L, path, &t, o, own_bloom, &tmp)) < 0)
            core_error(L, b, path);
        return n;
    }
    if (ty->err[0]) field_error(L, path, "%s", ty->err);
    lua_getiuservalue(L, tidx, 1);
    const int args = lua_gettop(L);
    lnode *n;
    int gid;
    if (ty->which == T_STRUCT) {
        lua_rawgeti(L, args, 1);
        const int fields = lua_gettop(L);
        n = new_node(L, b, N_STRUCT, struct_size(L, fields, path), id);
        if ((gid = inlay_schema_add_group(b->s->s, parent, cname, rep)) < 0) core_error(L, b, path);
        build_struct_fields(L, b, n, fields, gid, path, ppath, o, depth);
    } else {
        const bool map = ty->which == T_MAP;
        n = new_node(L, b, map ? N_MAP : N_LIST, map ? 2 : 1, id);
        gid = map ? inlay_schema_add_map(b->s->s, parent, cname, rep)
                  : inlay_schema_add_list(b->s->s, parent, cname, rep);
        if (gid < 0) core_error(L, b, path);
        lnode **kids = (lnode **)(n + 1);
        static const char *const names[] = { "element", "key", "value" };
        for (int i = 0; i < n->nchildren; i++) {
            const char *cn = names[map ? 1 + i : 0];
            const char *cpath = lua_pushfstring(L, "%s.%s", path, cn);
            anchor(L, b);
            const char *cppath = lua_pushfstring(L, "%s.%s.%s", ppath, map ? "key_value" : "list", cn);
            anchor(L, b);
            lua_rawgeti(L, args, i + 1);
            const int ct = lua_gettop(L);
            ltype *kt = luaL_testudata(L, ct, LI_TYPE);
            if (map && i == 0 && kt && kt->which >= T_LIST)
                inl_lua_error(L, "field '%s': a map key must be a primitive type, not a %s", cpath,
                         kt->which == T_LIST ? "list" : kt->which == T_MAP ? "map" : "struct");
            const bool child_nullable = map && i == 0 ? false : ty->nullable;
            kids[i] = build_type(L, b, ct, gid, cn, child_nullable, cpath, cppath, o, !map && own_bloom, n->first + i,
                                 depth + 1);
            kids[i]->name = keep_string(L, b, cn, &kids[i]->name_len);
            lua_pop(L, 1);
        }
    }
    static const char *const kinds[] = { "", "struct", "list", "map" };
    n->f.kind = K_NESTED;
    n->f.name = path;
    n->f.name_len = strlen(path);
    n->f.optional = nullable;
    n->f.slot = -1;
    snprintf(n->f.type_name, sizeof n->f.type_name, "%s", kinds[n->kind]);
    lua_settop(L, args - 1);
    return n;
}

/* ---- schemas ------------------------------------------------------------------ */

lschema *inl_lua_check_schema(lua_State *L, int idx)
{
    lschema *s = luaL_checkudata(L, idx, LI_SCHEMA);
    if (!s->s) luaL_argerror(L, idx, "incomplete schema");
    return s;
}

static unsigned ptr_hash(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;
    return (unsigned)(x >> 32);
}

int inl_lua_field_lookup(const lschema *s, const char *name, size_t len)
{
    for (unsigned h = ptr_hash(name) & s->hash_mask;; h = (h + 1) & s->hash_mask) {
        int i = s->hash[h];
        if (i < 0) break;
        if (s->fields[i].name == name) return i;
    }
    for (int i = 0; i < s->nfields; i++)
        if (s->fields[i].name_len == len && memcmp(s->fields[i].name, name, len) == 0) return i;
    return -1;
}

int inl_lua_struct_lookup(const lnode *n, const char *name, size_t len)
{
    for (unsigned h = ptr_hash(name) & n->hash_mask;; h = (h + 1) & n->hash_mask) {
        int i = n->hash[h];
        if (i < 0) break;
        if (n->children[i]->name == name) return i;
    }
    for (int i = 0; i < n->nchildren; i++)
        if (n->children[i]->name_len == len && memcmp(n->children[i]->name, name, len) == 0) return i;
    return -1;
}

static void hash_insert(lschema *s, int i)
{
    unsigned h = ptr_hash(s->fields[i].name) & s->hash_mask;
    while (s->hash[h] >= 0) h = (h + 1) & s->hash_mask;
    s->hash[h] = i;
}

/* One field: spec is the table { name, type, options... } at index `spec`;
 * names is the schema's name table. */
static void add_field(lua_State *L, build *b, int spec, int names, int pos)
{
    lschema *s = b->s;
    lfield *f = &s->fields[pos - 1];
    memset(f, 0, sizeof *f);
    if (lua_rawgeti(L, spec, 1) != LUA_TSTRING)
        inl_lua_error(L, "schema field #%d: expected its name first, got %s", pos, luaL_typename(L, -1));
    size_t len;
    const char *name = lua_tolstring(L, -1, &len);
    if (len == 0) inl_lua_error(L, "schema field #%d: empty name", pos);
    if (strlen(name) != len) inl_lua_error(L, "schema field #%d: the name contains a NUL byte", pos);
    check_name_utf8(L, NULL, name, len);
    /* the name table keeps the string, so `name` stays valid */
    lua_pushvalue(L, -1);
    if (lua_rawget(L, names) != LUA_TNIL) inl_lua_error(L, "field '%s': duplicate name", name);
    lua_pop(L, 1);
    lua_pushvalue(L, -1);
    lua_pushinteger(L, pos);
    lua_rawset(L, names);
    lua_pushvalue(L, -1);
    lua_rawseti(L, names, pos);
    f->name = name;
    f->name_len = len;
    lua_pop(L, 1);

    inlay_column_options o;
    memset(&o, 0, sizeof o);   /* what the init leaves alone is off */
    inlay_column_options_init(&o);
    const bool own_bloom = field_options(L, spec, name, f, &o);
    lua_rawgeti(L, spec, 2);
    ltype *ty = luaL_testudata(L, -1, LI_TYPE);
    f->column = b->leaves;
    if (ty && ty->which >= T_LIST) {
        const lnode *n = build_type(L, b, lua_gettop(L), 0, name, f->optional, name, name, &o, own_bloom,
                                    b->next_id++, 1);
        s->nnodes = b->next_id;
        f->kind = K_NESTED;
        f->node = n;
        f->slot = -1;
        snprintf(f->type_name, sizeof f->type_name, "%s", n->f.type_name);
    } else {
        inlay_type t;
        resolve_type(L, lua_gettop(L), name, f, &t);
        inlay_column_options tmp;
        int id = inlay_schema_add(s->s, 0, name, f->optional ? INLAY_OPTIONAL : INLAY_REQUIRED, t,
                                  leaf_options(L, name, &t, &o, own_bloom, &tmp));
        if (id < 0) inl_lua_error(L, "%s", inlay_schema_errmsg(s->s));
        f->slot = s->nflat++;
        b->leaves++;
    }
    lua_pop(L, 1);
    s->ncolumns = b->leaves;
    s->nfields = pos;
    hash_insert(s, pos - 1);
}

/* Pushes a copy of the field list at idx (n entries) and of each field's
 * table, kept by the schema so that inl_lua_schema_with_option can make it
 * again with other options, whatever the caller does with its tables
 * later. */
static void keep_spec(lua_State *L, int idx, lua_Integer n)
{
    lua_createtable(L, (int)n, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, i);
        lua_newtable(L);
        lua_pushnil(L);
        while (lua_next(L, -3)) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, -4);
        }
        lua_replace(L, -2);
        lua_rawseti(L, -2, i);
    }
}

int inl_lua_schema_new(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    lua_Integer n = (lua_Integer)lua_rawlen(L, 1);
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        lua_pop(L, 1);
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > n)
            inl_lua_error(L, "schema: unexpected key %s (list the fields in order: { { \"id\", \"int64\" }, ... })",
                     luaL_tolstring(L, -1, NULL));
    }
    if (n == 0) inl_lua_error(L, "schema: no fields");
    if (n > 32767) inl_lua_error(L, "schema: too many fields (%I)", (LUAI_UACINT)n);
    unsigned hsize = 4;
    while (hsize < 2 * (unsigned)n) hsize *= 2;
    size_t size = sizeof(lschema) + (size_t)n * sizeof(lfield) + hsize * sizeof(int);
    lschema *s = lua_newuserdatauv(L, size, 3);          /* 2 */
    memset(s, 0, size);
    s->hash = (int *)((char *)s + sizeof(lschema) + (size_t)n * sizeof(lfield));
    s->hash_mask = hsize - 1;
    for (unsigned i = 0; i < hsize; i++) s->hash[i] = -1;
    luaL_setmetatable(L, LI_SCHEMA);
    lua_createtable(L, (int)n, (int)n);                     /* 3: names */
    lua_pushvalue(L, 3);
    lua_setiuservalue(L, 2, 1);
    lua_newtable(L);                                        /* 4: nested nodes, their paths and names */
    lua_pushvalue(L, 4);
    lua_setiuservalue(L, 2, 2);
    void *ud;
    lua_Alloc fn = lua_getallocf(L, &ud);
    inlay_allocator a = { fn, ud };
    inlay_schema *core = inlay_schema_create(&a);
    if (!core) inl_lua_error(L, "out of memory");
    /* Owned by the userdata from here; __gc frees it even when a field fails. */
    s->s = core;
    build b = { s, 4, 0, 0, 0 };
    for (int i = 1; i <= n; i++) {
        if (lua_rawgeti(L, 1, i) != LUA_TTABLE)
            inl_lua_error(L, "schema field #%d: expected a table { name, type, ... }, got %s", i,
                     luaL_typename(L, -1));
        add_field(L, &b, lua_gettop(L), 3, i);
        lua_pop(L, 1);
    }
    keep_spec(L, 1, n);
    lua_setiuservalue(L, 2, 3);
    lua_settop(L, 2);
    return 1;
}

/* Pushes a new schema: the one the schema at idx was made from, with
 * `option` = the value values[name] for each top-level field named in the
 * table at `values` (what inlay.open's bloom_filter does). A name that is
 * not a top-level field raises, naming `what`. */
void inl_lua_schema_with_option(lua_State *L, int idx, const char *option, int values, const char *what)
{
    idx = lua_absindex(L, idx);
    values = lua_absindex(L, values);
    lschema *s = inl_lua_check_schema(L, idx);
    luaL_checkstack(L, 8, "schema");
    lua_pushnil(L);
    while (lua_next(L, values)) {
        size_t len;
        const char *name = lua_type(L, -2) == LUA_TSTRING ? lua_tolstring(L, -2, &len) : NULL;
        if (!name) inl_lua_error(L, "%s: expected field names as keys, got %s", what, luaL_typename(L, -2));
        if (inl_lua_field_lookup(s, name, len) < 0)
            inl_lua_error(L, "%s: no top-level field '%s'%s", what, name,
                          strchr(name, '.') ? " (a field inside a struct takes the field option)" : "");
        lua_pop(L, 1);
    }
    lua_pushcfunction(L, inl_lua_schema_new);
    lua_getiuservalue(L, idx, 3);
    const int spec = lua_gettop(L);
    lua_createtable(L, s->nfields, 0);
    const int out = lua_gettop(L);
    for (int i = 1; i <= s->nfields; i++) {
        lua_rawgeti(L, spec, i);
        lua_rawgeti(L, -1, 1);   /* the name */
        lua_rawget(L, values);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
        } else {   /* a copy of the field's table with the option set */
            lua_newtable(L);
            lua_pushnil(L);
            while (lua_next(L, -4)) {
                lua_pushvalue(L, -2);
                lua_insert(L, -2);
                lua_rawset(L, -4);
            }
            lua_insert(L, -2);
            lua_setfield(L, -2, option);
            lua_replace(L, -2);
        }
        lua_rawseti(L, out, i);
    }
    lua_replace(L, spec);
    lua_call(L, 1, 1);
}

static int schema_gc(lua_State *L)
{
    lschema *s = luaL_checkudata(L, 1, LI_SCHEMA);
    inlay_schema_free(s->s);
    s->s = NULL;
    s->nfields = 0;
    return 0;
}

static int schema_tostring(lua_State *L)
{
    lschema *s = luaL_checkudata(L, 1, LI_SCHEMA);
    if (!s->s) {
        lua_pushliteral(L, "inlay.schema (incomplete)");
        return 1;
    }
    size_t n = inlay_schema_format(s->s, NULL, 0);
    luaL_Buffer b;
    char *p = luaL_buffinitsize(L, &b, n + 1);
    inlay_schema_format(s->s, p, n + 1);
    luaL_pushresultsize(&b, n);
    return 1;
}

static int schema_len(lua_State *L)
{
    lua_pushinteger(L, inl_lua_check_schema(L, 1)->nfields);
    return 1;
}

/* Pushes a nested node's type as text: "list<optional string>",
 * "struct<x: float, note: optional string>", "map<string, optional int64>"
 * (what may be null says so, as in the Parquet schema). */
static void push_type_text(lua_State *L, const lnode *n)
{
    luaL_checkstack(L, 6, "columns");
    if (n->kind == N_LEAF) {
        lua_pushstring(L, n->f.type_name);
        return;
    }
    lua_pushstring(L, n->kind == N_LIST ? "list<" : n->kind == N_MAP ? "map<" : "struct<");
    for (int i = 0; i < n->nchildren; i++) {
        const lnode *c = n->children[i];
        if (i) lua_pushliteral(L, ", ");
        if (n->kind == N_STRUCT) lua_pushfstring(L, "%s: ", c->name);
        if (c->f.optional) lua_pushliteral(L, "optional ");
        push_type_text(L, c);
        lua_concat(L, 1 + (i > 0) + (n->kind == N_STRUCT) + c->f.optional + 1);
    }
    lua_pushliteral(L, ">");
    lua_concat(L, 2);
}

/* Appends the Parquet paths of n's leaf columns to the array at t. */
static void push_leaf_paths(lua_State *L, const lnode *n, int t)
{
    if (n->kind == N_LEAF) {
        lua_pushstring(L, n->ppath);
        lua_rawseti(L, t, (lua_Integer)lua_rawlen(L, t) + 1);
        return;
    }
    for (int i = 0; i < n->nchildren; i++) push_leaf_paths(L, n->children[i], t);
}

/* s:columns() -> { { name =, type =, optional = }, ... }; a nested field
 * also has `columns`, the Parquet paths of its leaf columns. */
static int schema_columns(lua_State *L)
{
    lschema *s = inl_lua_check_schema(L, 1);
    lua_createtable(L, s->nfields, 0);
    for (int i = 0; i < s->nfields; i++) {
        const lfield *f = &s->fields[i];
        lua_createtable(L, 0, 3);
        lua_pushlstring(L, f->name, f->name_len);
        lua_setfield(L, -2, "name");
        if (f->node) push_type_text(L, f->node);
        else lua_pushstring(L, f->type_name);
        lua_setfield(L, -2, "type");
        lua_pushboolean(L, f->optional);
        lua_setfield(L, -2, "optional");
        if (f->node) {
            lua_newtable(L);
            push_leaf_paths(L, f->node, lua_gettop(L));
            lua_setfield(L, -2, "columns");
        }
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* ---- schema files ------------------------------------------------------------- */

/* inlay.load_schema(path) runs a schema file as data: a text chunk (no
 * bytecode) whose environment holds the pure libraries and an `inlay` that
 * can only define a schema; nothing that reads or writes files, runs other
 * code or reaches the job's own state. What it may use is taken as the
 * module opens, and only as C functions, so a job that later replaces a
 * global or a library function changes nothing here; each file gets fresh
 * copies, so it cannot change what the next file, or the job, sees. */

static const char *const safe_base[] = {
    "assert", "error", "ipairs", "next", "pairs", "pcall", "rawequal", "rawget", "rawlen", "rawset",
    "select", "setmetatable", "tonumber", "tostring", "type", "xpcall", NULL,
};
static const char *const safe_libs[] = { "string", "table", "math", "utf8", NULL };
/* string.dump turns a function into bytecode, the other half of load;
 * math.randomseed would reseed the job's generator. */
static const char *const left_out[] = { "dump", "randomseed", NULL };

static bool is_left_out(const char *name)
{
    for (int i = 0; left_out[i]; i++)
        if (!strcmp(name, left_out[i])) return true;
    return false;
}

/* Pushes a new table with the C functions of the table at `from`, but the
 * ones left out. */
static void copy_lib(lua_State *L, int from)
{
    lua_newtable(L);
    lua_pushnil(L);
    while (lua_next(L, from)) {
        if (lua_type(L, -2) == LUA_TSTRING && lua_iscfunction(L, -1) && !is_left_out(lua_tostring(L, -2))) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, -4);
        } else {
            lua_pop(L, 1);
        }
    }
}

/* getmetatable for tables only: the metatables of strings and of inlay's
 * types and schemas are shared with the job. */
static int safe_getmetatable(lua_State *L)
{
    luaL_checkany(L, 1);
    if (lua_type(L, 1) != LUA_TTABLE || !lua_getmetatable(L, 1)) {
        lua_pushnil(L);
        return 1;
    }
    luaL_getmetafield(L, 1, "__metatable");   /* answers in the metatable's place, as usual */
    return 1;
}

/* require "inlay" gives the file's own inlay; nothing else can be loaded. */
static int safe_require(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    if (strcmp(name, "inlay") != 0) inl_lua_error(L, "a schema file can only require \"inlay\", not \"%s\"", name);
    lua_pushvalue(L, lua_upvalueindex(1));
    return 1;
}

/* The environment's template, from the globals as the module opens. */
static void push_template(lua_State *L)
{
    lua_newtable(L);
    const int t = lua_gettop(L);
    lua_pushglobaltable(L);
    const int g = t + 1;
    for (int i = 0; safe_base[i]; i++) {
        if (lua_getfield(L, g, safe_base[i]) == LUA_TFUNCTION && lua_iscfunction(L, -1))
            lua_setfield(L, t, safe_base[i]);
        else
            lua_pop(L, 1);
    }
    for (int i = 0; safe_libs[i]; i++) {
        if (lua_getfield(L, g, safe_libs[i]) == LUA_TTABLE) {
            copy_lib(L, lua_gettop(L));
            lua_setfield(L, t, safe_libs[i]);
        }
        lua_pop(L, 1);
    }
    if (lua_getfield(L, g, "_VERSION") == LUA_TSTRING) lua_setfield(L, t, "_VERSION");
    else lua_pop(L, 1);
    lua_pop(L, 1);
}

static int m_timestamp(lua_State *L);
static int m_time(lua_State *L);
static int m_decimal(lua_State *L);
static int m_fixed(lua_State *L);
static int m_list(lua_State *L);
static int m_struct(lua_State *L);
static int m_map(lua_State *L);

/* A fresh environment from the template (upvalue 1), with the file's
 * inlay: the schema and type constructors, inlay.null and inlay.version. */
static void push_env(lua_State *L)
{
    static const luaL_Reg schema_funcs[] = {
        { "schema", inl_lua_schema_new }, { "timestamp", m_timestamp }, { "time", m_time },
        { "decimal", m_decimal },         { "fixed", m_fixed },         { "list", m_list },
        { "struct", m_struct },           { "map", m_map },             { NULL, NULL },
    };
    lua_newtable(L);
    const int env = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, lua_upvalueindex(1))) {
        if (lua_istable(L, -1)) {   /* a library: a copy of its own */
            copy_lib(L, lua_gettop(L));
            lua_remove(L, -2);
        }
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, env);
    }
    lua_pushcfunction(L, safe_getmetatable);
    lua_setfield(L, env, "getmetatable");
    luaL_newlib(L, schema_funcs);
    inl_lua_push_null(L);
    lua_setfield(L, -2, "null");
    lua_pushliteral(L, INLAY_VERSION_STRING);
    lua_setfield(L, -2, "version");
    lua_pushvalue(L, -1);
    lua_setfield(L, env, "inlay");
    lua_pushcclosure(L, safe_require, 1);
    lua_setfield(L, env, "require");
    lua_pushvalue(L, env);
    lua_setfield(L, env, "_G");
}

/* Message handler: inlay's own errors get the file's line, as Lua's have. */
static int schema_file_msgh(lua_State *L)
{
    const char *m = lua_tostring(L, 1);
    if (lua_type(L, 1) != LUA_TSTRING || strncmp(m, "inlay: ", 7) != 0) return 1;
    lua_Debug ar;
    for (int level = 1; lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0) continue;
        lua_pushfstring(L, "inlay: %s:%d: %s", ar.source[0] == '@' ? ar.source + 1 : ar.short_src, ar.currentline,
                        m + 7);
        return 1;
    }
    return 1;
}

/* Whether m starts with `name:` */
static bool starts_with_name(const char *m, const char *name)
{
    const size_t n = strlen(name);
    return strncmp(m, name, n) == 0 && m[n] == ':';
}

/* Raises the error on top again, naming the file in full: Lua's own
 * messages give a long path's end only ("...schemas/x.lua:3:", as its
 * luaO_chunkid cuts it to LUA_IDSIZE). */
static LI_NORETURN void file_error(lua_State *L, const char *path, int status)
{
    if (status == LUA_ERRMEM || lua_type(L, -1) != LUA_TSTRING) lua_error(L);
    const char *m = lua_tostring(L, -1);
    if (strncmp(m, "inlay: ", 7) == 0) m += 7;
    const size_t n = strlen(path);
    char cut[LUA_IDSIZE];
    snprintf(cut, sizeof cut, "...%s", n + 1 > LUA_IDSIZE ? path + n - (LUA_IDSIZE - 4) : "");
    if (status == LUA_ERRFILE || starts_with_name(m, path)) inl_lua_error(L, "%s", m);
    if (n + 1 > LUA_IDSIZE && starts_with_name(m, cut)) inl_lua_error(L, "%s%s", path, m + strlen(cut));
    inl_lua_error(L, "%s: %s", path, m);
}

/* inlay.load_schema(path) -> schema */
static int load_schema(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    lua_settop(L, 1);
    luaL_checkstack(L, 24, "load_schema");
    lua_pushcfunction(L, schema_file_msgh);      /* 2 */
    push_env(L);                                 /* 3 */
    int st = luaL_loadfilex(L, path, "t");       /* 4: the chunk */
    if (st != LUA_OK) file_error(L, path, st);
    lua_pushvalue(L, 3);
    lua_setupvalue(L, 4, 1);                     /* its _ENV */
    /* Strings index the string library through their shared metatable,
     * which would hand the file the job's library, dump included: while
     * the file runs they index the file's copy. Putting the library back
     * allocates nothing (the key is there), so it happens whatever the
     * file did. */
    lua_pushliteral(L, "");
    const bool swap = lua_getmetatable(L, 5);
    lua_remove(L, 5);                            /* 5: the metatable, if any */
    if (swap) {
        lua_pushliteral(L, "__index");
        lua_rawget(L, 5);                        /* 6: the library strings index */
        lua_pushliteral(L, "__index");
        lua_getfield(L, 3, "string");
        lua_rawset(L, 5);
    }
    lua_pushvalue(L, 4);
    st = lua_pcall(L, 0, 1, 2);
    if (swap) {
        lua_pushliteral(L, "__index");
        lua_pushvalue(L, 6);
        lua_rawset(L, 5);
    }
    if (st != LUA_OK) file_error(L, path, st);
    if (!luaL_testudata(L, -1, LI_SCHEMA)) inl_lua_error(L, "%s must return a schema (inlay.schema{...})", path);
    return 1;
}

static int m_timestamp(lua_State *L) { return type_ctor(L, T_TIMESTAMP); }
static int m_time(lua_State *L) { return type_ctor(L, T_TIME); }
static int m_decimal(lua_State *L) { return type_ctor(L, T_DECIMAL); }
static int m_fixed(lua_State *L) { return type_ctor(L, T_FIXED); }
static int m_list(lua_State *L) { return type_ctor(L, T_LIST); }
static int m_struct(lua_State *L) { return type_ctor(L, T_STRUCT); }
static int m_map(lua_State *L) { return type_ctor(L, T_MAP); }

void inl_lua_open_schema(lua_State *L)
{
    static const luaL_Reg type_meta[] = {
        { "__tostring", type_tostring },
        { NULL, NULL },
    };
    static const luaL_Reg schema_meta[] = {
        { "__gc", schema_gc },
        { "__tostring", schema_tostring },
        { "__len", schema_len },
        { NULL, NULL },
    };
    static const luaL_Reg schema_methods[] = {
        { "columns", schema_columns },
        { NULL, NULL },
    };
    static const luaL_Reg funcs[] = {
        { "schema", inl_lua_schema_new },
        { "timestamp", m_timestamp },
        { "time", m_time },
        { "decimal", m_decimal },
        { "fixed", m_fixed },
        { "list", m_list },
        { "struct", m_struct },
        { "map", m_map },
        { NULL, NULL },
    };
    luaL_newmetatable(L, LI_TYPE);
    luaL_setfuncs(L, type_meta, 0);
    lua_pop(L, 1);
    luaL_newmetatable(L, LI_SCHEMA);
    luaL_setfuncs(L, schema_meta, 0);
    luaL_newlib(L, schema_methods);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    luaL_setfuncs(L, funcs, 0);
    push_template(L);
    lua_pushcclosure(L, load_schema, 1);
    lua_setfield(L, -2, "load_schema");
}
