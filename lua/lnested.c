/*
 * lnested.c — Lua values of nested fields (lists, structs, maps) into the
 * Arrow-shaped arrays that inlay_writer_append_array takes.
 *
 * A writer keeps one nbuf per lnode of its schema (indexed by the node's
 * id): the node's entries so far, in Arrow's layout —
 *
 *   leaf    vals: one slot per entry, nulls included (zeroed), typed as the
 *           leaf's append function takes them; bytes: the derived bytes of
 *           uuid text, float16 and wide decimals, `width` per entry
 *   list    off: len + 1 offsets into the element's entries
 *   map     off: the same, into the key's and the value's entries
 *   struct  nothing but its children's entries, one per struct entry
 *
 * plus validity bits (LSB first) for nodes that may be null. A null or
 * absent struct still adds an entry to each of its children (a placeholder
 * the core never reads), as Arrow's struct arrays do; a null list adds an
 * empty range.
 *
 * In Lua, a list is a sequence (every key is checked: 1..#t and nothing
 * else), a struct is a table keyed by field name, a map is a table keyed
 * by map key; nil or inlay.null is a null where one may be. A list's
 * elements are converted in lua_next order while that is 1, 2, 3... (the
 * array part), so one traversal both checks the keys and reads the values;
 * the rest, if the table keeps some in its hash part, by lua_rawgeti.
 *
 * Leaves go through the same conversion as flat columns (inl_lua_put_value),
 * with their dotted path ("hits.element.pos.x") as the column name in
 * messages. Text is checked for UTF-8 here, because the whole call must be
 * checked before the first append (the flat columns go first; the nested
 * ones cannot then fail on input). Bytes values either point into the Lua
 * strings (write_columns: the caller's arrays keep them alive), or hold an
 * offset into the writer's row arena (write and row) or into the leaf's
 * bytes, fixed up by inl_lua_nest_array just before the append.
 *
 * The buffers grow to the largest call and are reused: steady writing
 * allocates nothing. Rows staged by write/row are committed or rolled back
 * as a whole (len vs mark), so a rejected row leaves nothing behind.
 */
#include <stdbool.h>
#include <string.h>

#include "lnested.h"

typedef struct nbuf {
    uint8_t *valid;          /* validity bits, LSB first (nodes that may be null) */
    int32_t *off;            /* lists, maps: len + 1 offsets; off[0] = 0 */
    void *vals;              /* leaves: one slot per entry */
    uint8_t *bytes;          /* leaves with derived bytes: width per entry */
    uint32_t *seen;          /* structs: per field, the stamp of the last entry that gave it; then, per
                                position in a traversal, the field found there last time */
    size_t valid_cap, off_cap, vcap, bcap;   /* bytes, entries, entries, bytes */
    size_t len, mark;        /* entries; entries committed */
    size_t esize, width;     /* leaves: bytes per slot; derived bytes per entry (0: none) */
    uint32_t stamp;          /* structs: the current entry's */
    int nseen;
} nbuf;

struct lnest {
    inlay_allocator alloc;
    const void *null_ud;
    int nnodes, depth;
    bool staged;             /* entries from write/row: bytes values hold arena offsets */
    nbuf *b;                 /* nnodes */
    inlay_array *arr;        /* nnodes: what inl_lua_nest_array hands the core */
};

/* One conversion call. */
typedef struct cx {
    lua_State *L;
    lnest *ns;
    lconv *cv;
    size_t *apos;            /* write/row: the row's end in the arena; NULL for write_columns */
    uint64_t row;            /* for messages */
} cx;

/* ---- memory ------------------------------------------------------------------ */

static void *mem(lnest *ns, void *p, size_t o, size_t n)
{
    return ns->alloc.fn(ns->alloc.ud, p, o, n);
}

/* At least `want` elements of `elem` bytes in *p (capacity *cap). */
static void grow(lua_State *L, lnest *ns, void **p, size_t *cap, size_t want, size_t elem)
{
    size_t ncap = *cap ? *cap * 2 : 16;
    if (ncap < want) ncap = want;
    void *q = mem(ns, *p, *cap * elem, ncap * elem);
    if (!q) inl_lua_error(L, "out of memory");
    *p = q;
    *cap = ncap;
}

static inline void room_valid(lua_State *L, lnest *ns, nbuf *b, size_t k)
{
    if (LI_UNLIKELY((k >> 3) >= b->valid_cap)) grow(L, ns, (void **)&b->valid, &b->valid_cap, (k >> 3) + 1, 1);
}

static inline void room_off(lua_State *L, lnest *ns, nbuf *b, size_t k)
{
    if (LI_UNLIKELY(k + 2 > b->off_cap)) {
        const bool fresh = b->off_cap == 0;
        grow(L, ns, (void **)&b->off, &b->off_cap, k + 2, sizeof(int32_t));
        if (fresh) b->off[0] = 0;
    }
}

static inline void set_valid(nbuf *b, size_t k, bool present)
{
    const uint8_t m = (uint8_t)(1u << (k & 7));
    if (present) b->valid[k >> 3] |= m;
    else b->valid[k >> 3] &= (uint8_t)~m;
}

static void setup_node(lnest *ns, const lnode *n, bool *ok)
{
    nbuf *b = &ns->b[n->id];
    if (n->kind == N_LEAF) {
        b->esize = inl_lua_elem_size(&n->f);
        b->width = inl_lua_derived_bytes(n->f.kind) ? (size_t)n->f.width : 0;
    } else if (n->kind == N_STRUCT) {
        b->seen = mem(ns, NULL, 0, 2 * (size_t)n->nchildren * sizeof *b->seen);
        if (!b->seen) *ok = false;
        else {
            memset(b->seen, 0, 2 * (size_t)n->nchildren * sizeof *b->seen);
            b->nseen = 2 * n->nchildren;
        }
    }
    for (int i = 0; i < n->nchildren; i++) setup_node(ns, n->children[i], ok);
}

lnest *inl_lua_nest_new(const lschema *s, inlay_allocator a, const void *null_ud)
{
    const size_t n = (size_t)s->nnodes;
    const size_t size = sizeof(lnest) + n * (sizeof(nbuf) + sizeof(inlay_array));
    lnest *ns = a.fn(a.ud, NULL, 0, size);
    if (!ns) return NULL;
    memset(ns, 0, size);
    ns->alloc = a;
    ns->null_ud = null_ud;
    ns->nnodes = s->nnodes;
    ns->depth = s->depth;
    ns->arr = (inlay_array *)(ns + 1);
    ns->b = (nbuf *)(ns->arr + n);
    bool ok = true;
    for (int i = 0; i < s->nfields; i++)
        if (s->fields[i].node) setup_node(ns, s->fields[i].node, &ok);
    if (!ok) {
        inl_lua_nest_free(ns);
        return NULL;
    }
    return ns;
}

/* Uses nothing of the schema, which may be gone already. */
void inl_lua_nest_free(lnest *ns)
{
    if (!ns) return;
    for (int i = 0; i < ns->nnodes; i++) {
        nbuf *b = &ns->b[i];
        mem(ns, b->valid, b->valid_cap, 0);
        mem(ns, b->off, b->off_cap * sizeof(int32_t), 0);
        mem(ns, b->vals, b->vcap * b->esize, 0);
        mem(ns, b->bytes, b->bcap, 0);
        mem(ns, b->seen, (size_t)b->nseen * sizeof *b->seen, 0);
    }
    mem(ns, ns, sizeof(lnest) + (size_t)ns->nnodes * (sizeof(nbuf) + sizeof(inlay_array)), 0);
}

void inl_lua_nest_reset(lnest *ns)
{
    for (int i = 0; i < ns->nnodes; i++) ns->b[i].len = ns->b[i].mark = 0;
}

void inl_lua_nest_rollback(lnest *ns)
{
    for (int i = 0; i < ns->nnodes; i++) ns->b[i].len = ns->b[i].mark;
}

void inl_lua_nest_commit(lnest *ns)
{
    for (int i = 0; i < ns->nnodes; i++) ns->b[i].mark = ns->b[i].len;
}

/* ---- errors ---------------------------------------------------------------------- */

static bool is_null(const cx *c, int idx, int t)
{
    return t == LUA_TNIL || t == LUA_TNONE ||
           (t == LUA_TUSERDATA && lua_touserdata(c->L, idx) == c->ns->null_ud);
}

static const char *describe(const cx *c, int idx, int t)
{
    if (t == LUA_TNONE || t == LUA_TNIL) return "nil";
    if (t == LUA_TUSERDATA && lua_touserdata(c->L, idx) == c->ns->null_ud) return "inlay.null";
    return luaL_typename(c->L, idx);
}

static LI_NORETURN LI_NOINLINE void bad_value(const cx *c, const lnode *n, int idx, int t)
{
    inl_lua_error(c->L, "column '%s' row %I: expected %s, got %s", n->f.name, (LUAI_UACINT)c->row, n->f.type_name,
             describe(c, idx, t));
}

/* "got a table with key ..." for the key at kidx of a table that is not
 * what node n wants. */
static LI_NORETURN LI_NOINLINE void bad_key(const cx *c, const lnode *n, int kidx, const char *why)
{
    lua_State *L = c->L;
    kidx = lua_absindex(L, kidx);
    if (lua_type(L, kidx) == LUA_TSTRING) lua_pushfstring(L, "\"%s\"", lua_tostring(L, kidx));
    else luaL_tolstring(L, kidx, NULL);
    inl_lua_error(L, "column '%s' row %I: expected %s, got a table with key %s (%s)", n->f.name, (LUAI_UACINT)c->row,
             n->f.type_name, lua_tostring(L, -1), why);
}

static LI_NORETURN LI_NOINLINE void too_many(const cx *c, const lnode *n)
{
    inl_lua_error(c->L, "column '%s' row %I: more than %d entries under it in one call", n->f.name,
             (LUAI_UACINT)c->row, INT32_MAX);
}

/* ---- entries ------------------------------------------------------------------------ */

static void put_node(cx *c, const lnode *n, int idx, int t);

/* An entry that holds nothing: a null (validity cleared) or the
 * placeholder under a null struct. */
static void put_absent(lua_State *L, lnest *ns, const lnode *n)
{
    nbuf *b = &ns->b[n->id];
    const size_t k = b->len;
    switch (n->kind) {
    case N_LEAF:
        if (LI_UNLIKELY(k >= b->vcap)) grow(L, ns, &b->vals, &b->vcap, k + 1, b->esize);
        memset((char *)b->vals + k * b->esize, 0, b->esize);
        break;
    case N_LIST: case N_MAP:
        room_off(L, ns, b, k);
        b->off[k + 1] = b->off[k];
        break;
    case N_STRUCT:
        for (int i = 0; i < n->nchildren; i++) put_absent(L, ns, n->children[i]);
        break;
    }
    if (n->f.optional) {
        room_valid(L, ns, b, k);
        set_valid(b, k, false);
    }
    b->len = k + 1;
}

/* The common leaves given the expected type, stored directly; anything
 * else (nulls, other kinds, values to reject) goes through inl_lua_put_value.
 * Returns whether it stored the value. */
static inline bool put_fast(lua_State *L, const lfield *f, void *vals, size_t k, int idx, int t)
{
    int ok;
    lua_Integer v;
    switch (f->kind) {
    case K_FLOAT:
        if (t != LUA_TNUMBER) return false;
        ((float *)vals)[k] = inl_lua_to_float(lua_tonumberx(L, idx, NULL));
        return true;
    case K_DOUBLE:
        if (t != LUA_TNUMBER) return false;
        ((double *)vals)[k] = lua_tonumberx(L, idx, NULL);
        return true;
    case K_INT64: case K_INT32:
        if (t != LUA_TNUMBER) return false;
        v = lua_tointegerx(L, idx, &ok);
        if (!ok || v < f->lo || v > f->hi) return false;
        if (f->kind == K_INT64) ((int64_t *)vals)[k] = v;
        else ((int32_t *)vals)[k] = (int32_t)(uint32_t)v;
        return true;
    case K_BOOL:
        if (t != LUA_TBOOLEAN) return false;
        ((bool *)vals)[k] = lua_toboolean(L, idx);
        return true;
    case K_BYTES: {
        if (t != LUA_TSTRING) return false;
        inlay_bytes *o = &((inlay_bytes *)vals)[k];
        o->data = lua_tolstring(L, idx, &o->len);
        return true;
    }
    default:
        return false;
    }
}

static void put_leaf(cx *c, const lnode *n, int idx, int t)
{
    lua_State *L = c->L;
    lnest *ns = c->ns;
    nbuf *b = &ns->b[n->id];
    const size_t k = b->len;
    if (LI_UNLIKELY(k >= b->vcap)) grow(L, ns, &b->vals, &b->vcap, k + 1, b->esize);
    if (b->width && LI_UNLIKELY((k + 1) * b->width > b->bcap))
        grow(L, ns, (void **)&b->bytes, &b->bcap, (k + 1) * b->width, 1);
    int present = 1;
    if (LI_UNLIKELY(!put_fast(L, &n->f, b->vals, k, idx, t))) {
        lcol col = { .vals = b->vals, .bytes = b->bytes };
        present = inl_lua_put_value(L, c->cv, &n->f, &col, k, c->row, idx, t);
    }
    if (present && inl_lua_is_bytes(n->f.kind)) {
        inlay_bytes *v = &((inlay_bytes *)b->vals)[k];
        inl_lua_check_bytes(L, &n->f, c->row, v);
        if (c->apos) {
            v->data = (const void *)(uintptr_t)inl_lua_arena_put(L, c->cv, c->apos, v->data, v->len);
        } else if (b->width) {   /* a uuid's raw bytes may still point into its Lua string */
            uint8_t *dst = b->bytes + k * b->width;
            if (v->data != dst) memcpy(dst, v->data, b->width);
            v->data = (const void *)(uintptr_t)(k * b->width);
        }
    } else if (!present) {
        memset((char *)b->vals + k * b->esize, 0, b->esize);
    }
    if (n->f.optional) {
        room_valid(L, ns, b, k);
        set_valid(b, k, present);
    }
    b->len = k + 1;
}

/* The list entry that ends with the element entries converted so far. */
static void end_range(cx *c, const lnode *n, bool present)
{
    nbuf *b = &c->ns->b[n->id];
    const size_t k = b->len, end = c->ns->b[n->children[0]->id].len;
    if (LI_UNLIKELY(end > INT32_MAX)) too_many(c, n);
    room_off(c->L, c->ns, b, k);
    b->off[k + 1] = (int32_t)end;
    if (n->f.optional) {
        room_valid(c->L, c->ns, b, k);
        set_valid(b, k, present);
    }
    b->len = k + 1;
}

static LI_NORETURN LI_NOINLINE void list_hole(const cx *c, const lnode *n, int idx, lua_Integer len)
{
    lua_Integer i = 1;
    while (i <= len && lua_rawgeti(c->L, idx, i) != LUA_TNIL) {
        lua_pop(c->L, 1);
        i++;
    }
    inl_lua_error(c->L, "column '%s' row %I: expected list, got a table with a hole at [%I] "
             "(a list is a sequence; inlay.null marks a null element)", n->f.name, (LUAI_UACINT)c->row,
             (LUAI_UACINT)i);
}

static void put_list(cx *c, const lnode *n, int idx)
{
    lua_State *L = c->L;
    const lnode *e = n->children[0];
    const lua_Integer len = (lua_Integer)lua_rawlen(L, idx);
    lua_Integer next = 1, count = 0;
    const int key = lua_gettop(L) + 1, value = key + 1;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (LI_UNLIKELY(!lua_isinteger(L, key)))
            bad_key(c, n, key, "a list is a sequence 1..n; inlay.null marks a null element");
        const lua_Integer k = lua_tointeger(L, key);
        if (LI_UNLIKELY(k < 1 || k > len)) bad_key(c, n, key, "a list is a sequence 1..n");
        count++;
        if (k == next) {
            put_node(c, e, value, lua_type(L, value));
            next++;
        }
        lua_settop(L, key);
    }
    if (LI_UNLIKELY(count != len)) list_hole(c, n, idx, len);
    for (; next <= len; next++) {   /* elements the traversal gave out of order */
        const int t = lua_rawgeti(L, idx, next);
        put_node(c, e, key, t);
        lua_settop(L, key - 1);
    }
    end_range(c, n, true);
}

static void put_struct(cx *c, const lnode *n, int idx)
{
    lua_State *L = c->L;
    nbuf *b = &c->ns->b[n->id];
    uint32_t stamp = ++b->stamp;
    if (LI_UNLIKELY(stamp == 0)) {
        memset(b->seen, 0, (size_t)n->nchildren * sizeof *b->seen);
        stamp = b->stamp = 1;
    }
    /* Tables built alike traverse alike: the field at position j of the
     * last traversal is tried first. */
    uint32_t *order = b->seen + n->nchildren;
    int j = 0;
    const int key = lua_gettop(L) + 1, value = key + 1;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (LI_UNLIKELY(lua_type(L, key) != LUA_TSTRING)) {
            if (lua_isinteger(L, key))
                inl_lua_error(L, "column '%s' row %I: expected struct (a table keyed by field name), got a list",
                         n->f.name, (LUAI_UACINT)c->row);
            bad_key(c, n, key, "a struct is keyed by field name");
        }
        size_t len;
        const char *name = lua_tolstring(L, key, &len);
        int i;
        if (LI_LIKELY(j < n->nchildren) && n->children[order[j]]->name == name) {
            i = (int)order[j];
        } else {
            i = inl_lua_struct_lookup(n, name, len);
            if (LI_UNLIKELY(i < 0))
                inl_lua_error(L, "column '%s.%s' row %I: not in the schema", n->f.name, name, (LUAI_UACINT)c->row);
            if (j < n->nchildren) order[j] = (uint32_t)i;
        }
        j++;
        b->seen[i] = stamp;
        put_node(c, n->children[i], value, lua_type(L, value));
        lua_settop(L, key);
    }
    for (int i = 0; i < n->nchildren; i++) {
        if (b->seen[i] == stamp) continue;
        const lnode *f = n->children[i];
        if (LI_UNLIKELY(!f->f.optional))
            inl_lua_error(L, "column '%s' row %I: expected %s, got nil (a required field is missing)", f->f.name,
                     (LUAI_UACINT)c->row, f->f.type_name);
        put_absent(L, c->ns, f);
    }
    const size_t k = b->len;
    if (n->f.optional) {
        room_valid(L, c->ns, b, k);
        set_valid(b, k, true);
    }
    b->len = k + 1;
}

static void put_map(cx *c, const lnode *n, int idx)
{
    lua_State *L = c->L;
    const lnode *key = n->children[0], *value = n->children[1];
    const int k = lua_gettop(L) + 1, v = k + 1;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        const int kt = lua_type(L, k);
        if (LI_UNLIKELY(kt == LUA_TUSERDATA && lua_touserdata(L, k) == c->ns->null_ud))
            inl_lua_error(L, "column '%s' row %I: a map key cannot be null (inlay.null as a key)", key->f.name,
                     (LUAI_UACINT)c->row);
        /* the key stays as it is: the conversion reads strings only from strings */
        put_leaf(c, key, k, kt);
        put_node(c, value, v, lua_type(L, v));
        lua_settop(L, k);
    }
    end_range(c, n, true);
}

/* One entry of node n from the value at idx (absolute) of type t. */
static void put_node(cx *c, const lnode *n, int idx, int t)
{
    if (n->kind == N_LEAF) {
        put_leaf(c, n, idx, t);
        return;
    }
    if (t != LUA_TTABLE) {
        if (!is_null(c, idx, t) || !n->f.optional) bad_value(c, n, idx, t);
        put_absent(c->L, c->ns, n);
        return;
    }
    switch (n->kind) {
    case N_LIST: put_list(c, n, idx); break;
    case N_STRUCT: put_struct(c, n, idx); break;
    default: put_map(c, n, idx); break;
    }
}

static void check_stack(lua_State *L, const lnest *ns)
{
    luaL_checkstack(L, 3 * ns->depth + 24, "nested values");
}

/* ---- calls ---------------------------------------------------------------------------- */

void inl_lua_nest_stage(lua_State *L, lnest *ns, lconv *cv, const lfield *f, int idx, uint64_t row, size_t *apos)
{
    cx c = { L, ns, cv, apos, row };
    ns->staged = true;
    check_stack(L, ns);
    idx = lua_absindex(L, idx);
    put_node(&c, f->node, idx, lua_type(L, idx));
}

void inl_lua_nest_nulls(lua_State *L, lnest *ns, const lfield *f, size_t n)
{
    for (size_t j = 0; j < n; j++) put_absent(L, ns, f->node);
}

/* The flat form of a list of primitives: { offsets = {...}, values = {...}
 * [, validity = {...}] }, offsets 0-based as Arrow's, n + 1 of them. */
static void flat_list(cx *c, const lfield *f, int tab, size_t n, uint64_t first_row)
{
    lua_State *L = c->L;
    const lnode *ln = f->node, *e = ln->children[0];
    if (ln->kind != N_LIST || e->kind != N_LEAF)
        inl_lua_error(L, "column '%s': the { offsets =, values = } form is for lists of primitive values, not %s",
                 f->name, ln->kind == N_LIST ? "lists of lists, structs or maps" : f->type_name);
    lua_pushnil(L);
    while (lua_next(L, tab)) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        if (!k || (strcmp(k, "offsets") && strcmp(k, "values") && strcmp(k, "validity")))
            inl_lua_error(L, "column '%s': unexpected key %s in the { offsets =, values =, validity = } form", f->name,
                     luaL_tolstring(L, -2, NULL));
        lua_pop(L, 1);
    }
    lua_getfield(L, tab, "offsets");
    lua_getfield(L, tab, "values");
    lua_getfield(L, tab, "validity");
    const int offs = lua_gettop(L) - 2, vals = offs + 1, valid = lua_istable(L, offs + 2) ? offs + 2 : 0;
    if (!lua_istable(L, offs)) inl_lua_error(L, "column '%s': offsets must be an array, got %s", f->name, luaL_typename(L, offs));
    if (!lua_istable(L, vals)) inl_lua_error(L, "column '%s': values must be an array, got %s", f->name, luaL_typename(L, vals));
    if (!valid && !lua_isnil(L, offs + 2))
        inl_lua_error(L, "column '%s': validity must be an array of booleans, got %s", f->name, luaL_typename(L, offs + 2));
    const int base = lua_gettop(L);
    int ok;
    lua_rawgeti(L, offs, 1);
    lua_Integer prev = lua_tointegerx(L, -1, &ok);
    if (!ok || prev < 0)
        inl_lua_error(L, "column '%s': offsets[1] must be an integer >= 0, got %s", f->name, luaL_tolstring(L, -1, NULL));
    lua_settop(L, base);
    for (size_t j = 0; j < n; j++) {
        c->row = first_row + j + 1;
        lua_rawgeti(L, offs, (lua_Integer)j + 2);
        const lua_Integer end = lua_tointegerx(L, -1, &ok);
        if (!ok || end < prev || end - prev > INT32_MAX)
            inl_lua_error(L, "column '%s' row %I: offsets[%I] must be an integer >= offsets[%I] (%I), got %s", f->name,
                     (LUAI_UACINT)c->row, (LUAI_UACINT)j + 2, (LUAI_UACINT)j + 1, (LUAI_UACINT)prev,
                     luaL_tolstring(L, -1, NULL));
        bool present = true;
        if (valid) {
            if (lua_rawgeti(L, valid, (lua_Integer)j + 1) != LUA_TBOOLEAN)
                inl_lua_error(L, "column '%s' row %I: validity entries must be true or false, got %s", f->name,
                         (LUAI_UACINT)c->row, luaL_typename(L, -1));
            present = lua_toboolean(L, -1);
            if (!present && !ln->f.optional)
                inl_lua_error(L, "column '%s' row %I: expected list, got a null (validity false) in a required column",
                         f->name, (LUAI_UACINT)c->row);
        }
        lua_settop(L, base);
        for (lua_Integer p = prev; p < end; p++) {
            const int t = lua_rawgeti(L, vals, p + 1);
            put_leaf(c, e, base + 1, t);
            lua_settop(L, base);
        }
        end_range(c, ln, present);
        prev = end;
    }
    lua_settop(L, offs - 1);
}

void inl_lua_nest_column(lua_State *L, lnest *ns, lconv *cv, const lfield *f, int tab, size_t n, uint64_t first_row)
{
    cx c = { L, ns, cv, NULL, 0 };
    ns->staged = false;
    check_stack(L, ns);
    tab = lua_absindex(L, tab);
    if (lua_getfield(L, tab, "offsets") != LUA_TNIL) {
        lua_pop(L, 1);
        flat_list(&c, f, tab, n, first_row);
        return;
    }
    lua_pop(L, 1);
    const int base = lua_gettop(L);
    for (size_t j = 0; j < n; j++) {
        const int t = lua_rawgeti(L, tab, (lua_Integer)j + 1);
        c.row = first_row + j + 1;
        put_node(&c, f->node, base + 1, t);
        lua_settop(L, base);
    }
}

lua_Integer inl_lua_nest_column_rows(lua_State *L, int tab)
{
    tab = lua_absindex(L, tab);
    lua_Integer n;
    if (lua_getfield(L, tab, "offsets") == LUA_TTABLE) {
        n = (lua_Integer)lua_rawlen(L, -1) - 1;
        if (n < 0) n = 0;
    } else {
        n = (lua_Integer)lua_rawlen(L, tab);
    }
    lua_pop(L, 1);
    return n;
}

/* ---- to the core ------------------------------------------------------------------------ */

static void fill(lnest *ns, const lnode *n, const uint8_t *arena)
{
    nbuf *b = &ns->b[n->id];
    inlay_array *a = &ns->arr[n->id];
    a->length = b->len;
    a->validity = n->f.optional ? b->valid : NULL;
    a->offsets = n->kind == N_LIST || n->kind == N_MAP ? b->off : NULL;
    a->values = n->kind == N_LEAF ? b->vals : NULL;
    a->children = n->nchildren ? &ns->arr[n->first] : NULL;
    if (n->kind == N_LEAF && inl_lua_is_bytes(n->f.kind) && (ns->staged || b->width)) {
        const uint8_t *base = ns->staged ? arena : b->bytes;
        inlay_bytes *v = b->vals;
        for (size_t k = 0; k < b->len; k++)
            v[k].data = base ? base + (uintptr_t)v[k].data : (const void *)"";
    }
    for (int i = 0; i < n->nchildren; i++) fill(ns, n->children[i], arena);
}

const inlay_array *inl_lua_nest_array(lnest *ns, const lfield *f, const uint8_t *arena)
{
    fill(ns, f->node, arena);
    return &ns->arr[f->node->id];
}
