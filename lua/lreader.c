/*
 * lreader.c — Parquet files read into Lua: inlay.read(path [, opts]) and
 * the reader userdata ("inlay.reader"): r:schema(), r:info(),
 * r:batches{...}, r:rows{...}, r:close(); and the C half of
 * inlay.parquet's pipelines (r:_pipe, r:_pipe_next, r:_pipe_stats), whose
 * Lua half is in inlay.lua.
 *
 * The file's schema becomes the schema inlay.schema{...} builds for the
 * same fields (the field table is built here and handed to it), so that
 * inlay.open(out, r:schema()) writes the same shape and Lua values go back
 * and forth in one form: what r:batches gives, w:write_columns takes.
 *
 * Layouts. The reader hands each top-level field over as an inlay_array
 * in the file's physical types; the Lua schema may lay a leaf out
 * otherwise, because a type name does not say its physical type: a
 * decimal(10,2) is INT64 in inlay.schema, and FIXED_LEN_BYTE_ARRAY(5) in
 * a file from Arrow. Such leaves (decimals, and integers stored wider
 * than their annotation) are converted into scratch of the reader's own
 * once per batch, and the field's array is then a shadow tree whose
 * other nodes point at the reader's arrays (`adapt`). Every array past
 * that point is in the Lua schema's layout: values become Lua values by
 * the schema's conversion (inl_lua_push_value, shared with text
 * sources), and a pipeline hands an untouched field to the writer as the
 * array it is. Nothing is allocated per value; scratch grows to the
 * largest batch and is reused.
 *
 * Nulls: a null field is inlay.null in the column arrays of r:batches (so
 * that #array is the row count) and absent in the row tables of r:rows and
 * a pipeline's rows; inside nested values, a null list element or map
 * value is inlay.null and a null struct field is absent — the forms the
 * writer takes back.
 *
 * A reader reads one selection at a time (inlay_reader_select): each
 * r:batches or r:rows call selects afresh, and an iterator of an earlier
 * call then stops with an error rather than read another's batches.
 */
#include <stdbool.h>
#include <string.h>

#include "lreader.h"
#include "lwriter.h"

#define LI_READER "inlay.reader"

/* User values of the reader userdata. */
enum { UV_SCHEMA = 1, UV_PATH, UV_SPECS, UV_VIEW, UV_COUNT = UV_VIEW };

/* Converted values of one leaf column (see adapt). */
typedef struct leafbuf {
    void *vals;                 /* the Lua layout's values, one slot per entry */
    size_t vcap;                /* bytes */
    uint8_t *bytes;             /* FIXED_LEN_BYTE_ARRAY targets: width per entry */
    size_t bcap;
} leafbuf;

typedef struct lreader {
    inlay_reader *r;            /* NULL once closed */
    const lschema *schema;      /* the file's schema as inlay.schema builds it (UV_SCHEMA) */
    inlay_allocator alloc;
    size_t batch_rows;          /* rows per batch when a call does not say */
    int nfields, ncolumns, nnodes;
    void *block;                /* holds the arrays below */
    size_t block_size;
    lfield *file_leaf;          /* per leaf column: its type as the file has it */
    bool *node_adapt;           /* per lnode id: a leaf below needs converting */
    bool *field_adapt;          /* per top-level field: the same */
    inlay_array *shadow_node;   /* per lnode id: the adapted tree's arrays */
    inlay_array *shadow_flat;   /* per top-level field: an adapted flat field's array */
    leafbuf *leaf;              /* per leaf column */
    int *sel;                   /* selected top-level fields, in order */
    const inlay_array **batch;  /* per selected field: the last batch's array, in the Lua layout */
    int nsel;
    uint64_t gen;               /* bumped by every selection */
    /* a pipeline's progress (r:_pipe_stats) */
    size_t pipe_rows;
    uint64_t rows_read;
    int cur_group;
    uint64_t cur_group_rows;
    uint64_t done_bytes, done_bytes_c;   /* uncompressed and compressed size of the row groups read */
} lreader;

/* ---- memory and lifetime --------------------------------------------------------- */

static void *mem(lreader *lr, void *p, size_t o, size_t n)
{
    return lr->alloc.fn(lr->alloc.ud, p, o, n);
}

static void free_scratch(lreader *lr)
{
    if (!lr->block) return;
    for (int c = 0; c < lr->ncolumns; c++) {
        mem(lr, lr->leaf[c].vals, lr->leaf[c].vcap, 0);
        mem(lr, lr->leaf[c].bytes, lr->leaf[c].bcap, 0);
    }
    mem(lr, lr->block, lr->block_size, 0);
    lr->block = NULL;
}

/* Releases the file and everything read from it. Idempotent. */
static void close_reader(lreader *lr)
{
    if (lr->r) {
        inlay_reader_free(lr->r);
        lr->r = NULL;
    }
    free_scratch(lr);
    lr->nsel = 0;
}

static lreader *check_reader(lua_State *L, int idx)
{
    return luaL_checkudata(L, idx, LI_READER);
}

static lreader *check_open(lua_State *L, int idx)
{
    lreader *lr = check_reader(L, idx);
    if (!lr->r) {
        lua_getiuservalue(L, idx, UV_PATH);
        inl_lua_error(L, "the reader of '%s' is closed", lua_tostring(L, -1));
    }
    return lr;
}

static LI_NORETURN void reader_failed(lua_State *L, lreader *lr)
{
    inl_lua_fail(L, inlay_reader_status(lr->r), "%s", inlay_reader_errmsg(lr->r));
}

static int r_gc(lua_State *L)
{
    close_reader(check_reader(L, 1));
    return 0;
}

/* r:close() and __close: the pipeline view (if any) lets go of the
 * batch first, so that nothing can reach the freed arrays through it.
 * (Not in __gc: the view may have been finalized in the same cycle.) */
static int r_close(lua_State *L)
{
    lreader *lr = check_reader(L, 1);
    if (lua_getiuservalue(L, 1, UV_VIEW) == LUA_TUSERDATA) inl_lua_source_set_arrays(L, -1, NULL, 0, 0);
    close_reader(lr);
    return 0;
}

static int r_tostring(lua_State *L)
{
    lreader *lr = check_reader(L, 1);
    lua_getiuservalue(L, 1, UV_PATH);
    if (!lr->r) lua_pushfstring(L, "inlay.reader(\"%s\", closed)", lua_tostring(L, -1));
    else
        lua_pushfstring(L, "inlay.reader(\"%s\", %I rows)", lua_tostring(L, -1),
                        (LUAI_UACINT)inlay_reader_info(lr->r)->num_rows);
    return 1;
}

/* ---- the schema ------------------------------------------------------------------- */

/* Upvalues of inlay.read: the module's list, struct and map. */
enum { UP_LIST = 1, UP_STRUCT, UP_MAP };

static LI_NORETURN void unsupported(lua_State *L, const char *path, const char *what)
{
    inl_lua_error(L, "field '%s' is %s, which the Lua binding does not read yet", path, what);
}

static void push_spec(lua_State *L, const inlay_schema *s, int node, const char *parent);
static void push_type(lua_State *L, const inlay_schema *s, int node, const char *path);

/* The type of a list's element or a map's key or value, `name` below path. */
static void push_child_type(lua_State *L, const inlay_schema *s, int node, const char *path, const char *name)
{
    push_type(L, s, node, lua_pushfstring(L, "%s.%s", path, name));
    lua_remove(L, -2);
}

/* Pushes the type of node `node` as inlay.schema takes it: a type name, or
 * a call of inlay.list, inlay.struct or inlay.map. */
static void push_type(lua_State *L, const inlay_schema *s, int node, const char *path)
{
    luaL_checkstack(L, 8, "reading a schema");
    inlay_node_info in;
    inlay_schema_node(s, node, &in);
    if (!in.is_group) {
        char name[64];
        const size_t len = inlay_type_name(&in.type, name, sizeof name);
        inlay_type back;
        if (len >= sizeof name || !inlay_type_parse(name, len, &back))
            unsupported(L, path, "of a type inlay has no name for");
        lua_pushlstring(L, name, len);
        return;
    }
    if (in.group == INLAY_GROUP_STRUCT) {
        lua_pushvalue(L, lua_upvalueindex(UP_STRUCT));
        lua_createtable(L, in.num_children, 0);
        int i = 0;
        for (int c = in.first_child; c >= 0; i++) {
            push_spec(L, s, c, path);
            lua_rawseti(L, -2, i + 1);
            inlay_node_info ci;
            inlay_schema_node(s, c, &ci);
            c = ci.next_sibling;
        }
        lua_call(L, 1, 1);
        return;
    }
    /* LIST and MAP: the repeated middle group holds the element, or the key and the value */
    inlay_node_info mid, first, second;
    inlay_schema_node(s, in.first_child, &mid);
    if (in.num_children != 1 || !mid.is_group || mid.repetition != INLAY_REPEATED || mid.num_children < 1)
        unsupported(L, path, "a list or map of a shape other than the standard three levels");
    inlay_schema_node(s, mid.first_child, &first);
    const bool map = in.group == INLAY_GROUP_MAP;
    if (!map && mid.num_children != 1) unsupported(L, path, "a list whose repeated group has several fields");
    if (map && mid.num_children != 2) unsupported(L, path, "a map without values");
    const inlay_node_info *value = &first;
    if (map) {
        inlay_schema_node(s, first.next_sibling, &second);
        value = &second;
    }
    if (value->repetition == INLAY_REPEATED || (map && first.repetition == INLAY_REPEATED))
        unsupported(L, path, "a list or map with a repeated element");
    lua_pushvalue(L, lua_upvalueindex(map ? UP_MAP : UP_LIST));
    const int fn = lua_gettop(L);
    if (map) push_child_type(L, s, mid.first_child, path, "key");
    push_child_type(L, s, map ? first.next_sibling : mid.first_child, path, map ? "value" : "element");
    if (value->repetition == INLAY_REQUIRED) {
        lua_createtable(L, 0, 1);
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, "nullable");
    }
    lua_call(L, lua_gettop(L) - fn, 1);
}

/* Pushes { name, type [, optional = true] } for node `node`. */
static void push_spec(lua_State *L, const inlay_schema *s, int node, const char *parent)
{
    luaL_checkstack(L, 8, "reading a schema");
    inlay_node_info in;
    inlay_schema_node(s, node, &in);
    const char *path = parent ? lua_pushfstring(L, "%s.%s", parent, in.name) : lua_pushstring(L, in.name);
    if (in.repetition == INLAY_REPEATED) unsupported(L, path, "a repeated field without a LIST annotation");
    lua_createtable(L, 2, 1);
    lua_pushstring(L, in.name);
    lua_rawseti(L, -2, 1);
    push_type(L, s, node, path);
    lua_rawseti(L, -2, 2);
    if (in.repetition == INLAY_OPTIONAL) {
        lua_pushboolean(L, 1);
        lua_setfield(L, -2, "optional");
    }
    lua_remove(L, -2);
}

/* inlay.schema(specs), its messages prefixed with the file. */
static int call_schema_new(lua_State *L)
{
    lua_pushcfunction(L, inl_lua_schema_new);
    lua_insert(L, 1);
    lua_call(L, 1, 1);
    return 1;
}

/* Builds the field table and the schema into the reader at idx. */
static void build_schema(lua_State *L, int idx, lreader *lr)
{
    const inlay_schema *s = inlay_reader_schema(lr->r);
    inlay_node_info root;
    inlay_schema_node(s, 0, &root);
    lua_createtable(L, root.num_children, 0);
    const int specs = lua_gettop(L);
    int i = 0;
    for (int c = root.first_child; c >= 0; i++) {
        push_spec(L, s, c, NULL);
        lua_rawseti(L, specs, i + 1);
        inlay_node_info ci;
        inlay_schema_node(s, c, &ci);
        c = ci.next_sibling;
    }
    lua_pushcfunction(L, call_schema_new);
    lua_pushvalue(L, specs);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        const char *m = lua_tostring(L, -1);
        if (!m) lua_error(L);
        lua_getiuservalue(L, idx, UV_PATH);
        inl_lua_error(L, "'%s': %s", lua_tostring(L, -1), strncmp(m, "inlay: ", 7) ? m : m + 7);
    }
    lr->schema = inl_lua_check_schema(L, -1);
    lua_setiuservalue(L, idx, UV_SCHEMA);
    lua_setiuservalue(L, idx, UV_SPECS);
}

/* ---- layouts ------------------------------------------------------------------------ */

/* Whether a file leaf of type `from` needs converting to the Lua leaf `to`;
 * raises for a difference that no conversion bridges. */
static bool differs(lua_State *L, const lfield *from, const lfield *to)
{
    const inlay_type *a = &from->type, *b = &to->type;
    if (a->physical == b->physical && (a->physical != INLAY_FIXED_LEN_BYTE_ARRAY || a->type_length == b->type_length))
        return false;
    const bool ints = (a->physical == INLAY_INT32 || a->physical == INLAY_INT64) &&
                      (b->physical == INLAY_INT32 || b->physical == INLAY_INT64) && a->logical == b->logical;
    const bool decimals = a->logical == INLAY_LOGICAL_DECIMAL && b->logical == INLAY_LOGICAL_DECIMAL &&
                          a->physical != INLAY_BYTE_ARRAY;
    if (!ints && !decimals) inl_lua_error(L, "column '%s': %s cannot be read as it is stored", to->name, to->type_name);
    return true;
}

static bool mark_node(lua_State *L, lreader *lr, const lnode *n)
{
    bool any = false;
    if (n->kind == N_LEAF) any = differs(L, &lr->file_leaf[n->f.column], &n->f);
    for (int i = 0; i < n->nchildren; i++) any |= mark_node(L, lr, n->children[i]);
    lr->node_adapt[n->id] = any;
    return any;
}

static size_t align_up(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

/* The scratch block, the file's leaf types and which fields need adapting. */
static void setup(lua_State *L, lreader *lr)
{
    const lschema *ls = lr->schema;
    const inlay_schema *s = inlay_reader_schema(lr->r);
    lr->nfields = ls->nfields;
    lr->ncolumns = ls->ncolumns;
    lr->nnodes = ls->nnodes;
    if (inlay_schema_num_columns(s) != ls->ncolumns) inl_lua_error(L, "the file's schema did not convert");
    const size_t nf = (size_t)lr->nfields, nc = (size_t)lr->ncolumns, nn = (size_t)lr->nnodes;
    const size_t sizes[] = {
        nc * sizeof(lfield), nn * sizeof(bool), nf * sizeof(bool), nn * sizeof(inlay_array),
        nf * sizeof(inlay_array), nc * sizeof(leafbuf), nf * sizeof(int), nf * sizeof(inlay_array *),
    };
    size_t total = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) total += align_up(sizes[i]);
    char *b = mem(lr, NULL, 0, total + 16);
    if (!b) inl_lua_error(L, "out of memory");
    memset(b, 0, total + 16);
    lr->block = b;
    lr->block_size = total + 16;
    void **dst[] = {
        (void **)&lr->file_leaf, (void **)&lr->node_adapt, (void **)&lr->field_adapt, (void **)&lr->shadow_node,
        (void **)&lr->shadow_flat, (void **)&lr->leaf, (void **)&lr->sel, (void **)&lr->batch,
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        *dst[i] = b;
        b += align_up(sizes[i]);
    }
    const int nodes = inlay_schema_num_nodes(s);
    for (int i = 0; i < nodes; i++) {
        inlay_node_info in;
        inlay_schema_node(s, i, &in);
        if (in.is_group || in.column < 0 || in.column >= lr->ncolumns) continue;
        inl_lua_field_set_type(&lr->file_leaf[in.column], &in.type);
    }
    for (int k = 0; k < lr->nfields; k++) {
        const lfield *f = &ls->fields[k];
        lr->field_adapt[k] = f->node ? mark_node(L, lr, f->node) : differs(L, &lr->file_leaf[f->column], f);
    }
}

/* Big-endian two's complement of entry i of a file leaf, in w bytes. */
static void be_bytes(const lfield *from, const void *vals, size_t i, uint8_t *out, size_t w)
{
    uint8_t tmp[8];
    const uint8_t *p = tmp;
    size_t n = 8;
    if (from->type.physical == INLAY_FIXED_LEN_BYTE_ARRAY) {
        const inlay_bytes *b = &((const inlay_bytes *)vals)[i];
        p = b->data;
        n = b->len;
    } else {
        int64_t v;
        if (from->type.physical == INLAY_INT64) v = ((const int64_t *)vals)[i];
        else if (from->kind == K_INT32 && from->lo >= 0) v = (uint32_t)((const int32_t *)vals)[i];
        else v = ((const int32_t *)vals)[i];
        for (int k = 7; k >= 0; k--, v = (int64_t)((uint64_t)v >> 8)) tmp[k] = (uint8_t)v;
    }
    const uint8_t fill = n && (p[0] & 0x80) ? 0xff : 0;
    if (n >= w) {
        memcpy(out, p + n - w, w);
    } else {
        memset(out, fill, w - n);
        if (n) memcpy(out + w - n, p, n);
    }
}

static bool grow(lreader *lr, void **p, size_t *cap, size_t want)
{
    if (*cap >= want) return true;
    size_t ncap = *cap * 2 > want ? *cap * 2 : want;
    void *q = mem(lr, *p, *cap, ncap);
    if (!q) return false;
    *p = q;
    *cap = ncap;
    return true;
}

static bool valid_at(const inlay_array *a, size_t i)
{
    return !a->validity || (a->validity[i >> 3] >> (i & 7) & 1);
}

/* Leaf column c's entries (a) in the layout of the Lua leaf `to`, into out. */
static void convert_leaf(lua_State *L, lreader *lr, int c, const lfield *to, const inlay_array *a, inlay_array *out)
{
    const lfield *from = &lr->file_leaf[c];
    leafbuf *lb = &lr->leaf[c];
    const size_t n = a->length, es = inl_lua_elem_size(to);
    const bool fixed = to->type.physical == INLAY_FIXED_LEN_BYTE_ARRAY;
    const size_t w = fixed ? (size_t)to->type.type_length : es;
    if (!grow(lr, &lb->vals, &lb->vcap, n * es + 1) || (fixed && !grow(lr, (void **)&lb->bytes, &lb->bcap, n * w + 1)))
        inl_lua_error(L, "out of memory");
    uint8_t be[32];
    for (size_t i = 0; i < n; i++) {
        if (fixed) {
            uint8_t *d = lb->bytes + i * w;
            if (valid_at(a, i)) be_bytes(from, a->values, i, d, w);
            ((inlay_bytes *)lb->vals)[i] = (inlay_bytes){ d, w };
            continue;
        }
        uint64_t v = 0;
        if (valid_at(a, i)) {
            be_bytes(from, a->values, i, be, w);
            for (size_t k = 0; k < w; k++) v = v << 8 | be[k];
        }
        if (w == 4) ((int32_t *)lb->vals)[i] = (int32_t)(uint32_t)v;
        else ((int64_t *)lb->vals)[i] = (int64_t)v;
    }
    out->values = lb->vals;
}

/* *out = a in the Lua layout of node n: a copy of the reader's array,
 * whose converted leaves and the nodes above them live in shadow arrays. */
static void adapt_node(lua_State *L, lreader *lr, const lnode *n, const inlay_array *a, inlay_array *out)
{
    *out = *a;
    if (!lr->node_adapt[n->id]) return;
    if (n->kind == N_LEAF) {
        convert_leaf(L, lr, n->f.column, &n->f, a, out);
        return;
    }
    inlay_array *kids = &lr->shadow_node[n->first];
    for (int i = 0; i < n->nchildren; i++) adapt_node(L, lr, n->children[i], &a->children[i], &kids[i]);
    out->children = kids;
}

/* Field k's array of the last batch, in the Lua layout. */
static const inlay_array *adapt(lua_State *L, lreader *lr, int k, const inlay_array *a)
{
    if (!lr->field_adapt[k]) return a;
    const lfield *f = &lr->schema->fields[k];
    if (!f->node) {
        lr->shadow_flat[k] = *a;
        convert_leaf(L, lr, f->column, f, a, &lr->shadow_flat[k]);
        return &lr->shadow_flat[k];
    }
    inlay_array *top = &lr->shadow_node[f->node->id];
    adapt_node(L, lr, f->node, a, top);
    return top;
}

/* ---- selections and batches ------------------------------------------------------- */

/* The list at idx (nil, or idx 0: every field) of top-level field names
 * into lr->sel. */
static int parse_columns(lua_State *L, lreader *lr, int rd, int idx)
{
    if (idx == 0 || lua_isnoneornil(L, idx)) {
        for (int k = 0; k < lr->nfields; k++) lr->sel[k] = k;
        return lr->nfields;
    }
    if (!lua_istable(L, idx))
        inl_lua_error(L, "option 'columns': expected a list of column names, got %s", luaL_typename(L, idx));
    const lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
    if (n < 1) inl_lua_error(L, "option 'columns': expected a list of column names, got an empty one");
    if (n > lr->nfields) inl_lua_error(L, "option 'columns': %I names for %d columns", (LUAI_UACINT)n, lr->nfields);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, i);
        if (lua_type(L, -1) != LUA_TSTRING)
            inl_lua_error(L, "option 'columns': expected column names, got %s", luaL_typename(L, -1));
        size_t len;
        const char *name = lua_tolstring(L, -1, &len);
        const int k = inl_lua_field_lookup(lr->schema, name, len);
        if (k < 0) {
            lua_getiuservalue(L, rd, UV_PATH);
            inl_lua_error(L, "option 'columns': no column '%s' in '%s'", name, lua_tostring(L, -1));
        }
        for (lua_Integer j = 1; j < i; j++)
            if (lr->sel[j - 1] == k) inl_lua_error(L, "option 'columns': '%s' is named twice", name);
        lr->sel[i - 1] = k;
        lua_pop(L, 1);
    }
    return (int)n;
}

/* Selects lr->sel[0..nsel) and the row groups listed at idx (1-based, as
 * r:info().row_groups numbers them; nil or idx 0: all). */
static void select_rows(lua_State *L, lreader *lr, int nsel, int idx)
{
    const int ngroups = inlay_reader_info(lr->r)->num_row_groups, top = lua_gettop(L);
    int *groups = NULL;
    int ng = 0;
    if (idx != 0 && !lua_isnoneornil(L, idx)) {
        if (!lua_istable(L, idx))
            inl_lua_error(L, "option 'row_groups': expected a list of row group numbers, got %s",
                          luaL_typename(L, idx));
        const lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
        if (n < 1) inl_lua_error(L, "option 'row_groups': expected a list of row group numbers, got an empty one");
        if (n > 1 << 24) inl_lua_error(L, "option 'row_groups': too many entries");
        groups = lua_newuserdatauv(L, (size_t)n * sizeof *groups, 0);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, idx, i);
            int ok;
            const lua_Integer g = lua_tointegerx(L, -1, &ok);
            if (!ok || g < 1 || g > ngroups)
                inl_lua_error(L, "option 'row_groups': no row group %s (the file has %d, numbered from 1)",
                              luaL_tolstring(L, -1, NULL), ngroups);
            groups[i - 1] = (int)g - 1;
            lua_pop(L, 1);
        }
        ng = (int)n;
    }
    if (inlay_reader_select(lr->r, lr->sel, nsel, groups, ng) != INLAY_OK) reader_failed(L, lr);
    lua_settop(L, top);   /* the group list's userdata */
    lr->nsel = nsel;
    lr->gen++;
    lr->rows_read = lr->cur_group_rows = 0;
    lr->done_bytes = lr->done_bytes_c = 0;
    lr->cur_group = -1;
}

static int64_t group_compressed(const inlay_row_group_info *g, int ncols)
{
    if (g->total_compressed_size >= 0) return g->total_compressed_size;
    int64_t t = 0;
    for (int c = 0; c < ncols; c++) t += g->chunks[c].compressed_size;
    return t;
}

/* Reads the next batch of at most max_rows rows; its arrays (in the Lua
 * layout) into lr->batch. Returns the rows, 0 at the end. */
static size_t read_batch(lua_State *L, lreader *lr, size_t max_rows)
{
    size_t rows;
    if (inlay_reader_next(lr->r, max_rows, &rows) != INLAY_OK) reader_failed(L, lr);
    if (rows == 0) return 0;
    for (int j = 0; j < lr->nsel; j++) lr->batch[j] = adapt(L, lr, lr->sel[j], inlay_reader_array(lr->r, j));
    const inlay_file_info *fi = inlay_reader_info(lr->r);
    const int g = inlay_reader_batch_row_group(lr->r);
    if (g != lr->cur_group) {
        if (lr->cur_group >= 0) {
            const inlay_row_group_info *rg = &fi->row_groups[lr->cur_group];
            lr->done_bytes += (uint64_t)rg->total_byte_size;
            lr->done_bytes_c += (uint64_t)group_compressed(rg, fi->num_columns);
        }
        lr->cur_group = g;
        lr->cur_group_rows = 0;
    }
    lr->cur_group_rows += rows;
    lr->rows_read += rows;
    return rows;
}

/* ---- values into Lua ------------------------------------------------------------------ */

/* Pushes entry i of node n's array a, which the caller found valid; the
 * null marker for list elements and map values is at null_idx. */
static void push_node(lua_State *L, const lnode *n, const inlay_array *a, size_t i, int null_idx)
{
    luaL_checkstack(L, 6, "nested values");
    switch (n->kind) {
    case N_LEAF:
        inl_lua_push_value(L, &n->f, a->values, i);
        return;
    case N_STRUCT:
        lua_createtable(L, 0, n->nchildren);
        for (int k = 0; k < n->nchildren; k++) {
            const inlay_array *ca = &a->children[k];
            if (!valid_at(ca, i)) continue;
            lua_pushlstring(L, n->children[k]->name, n->children[k]->name_len);
            push_node(L, n->children[k], ca, i, null_idx);
            lua_rawset(L, -3);
        }
        return;
    case N_LIST: {
        const size_t b = (size_t)a->offsets[i], e = (size_t)a->offsets[i + 1];
        const inlay_array *ea = &a->children[0];
        lua_createtable(L, (int)(e - b), 0);
        for (size_t k = b; k < e; k++) {
            if (valid_at(ea, k)) push_node(L, n->children[0], ea, k, null_idx);
            else lua_pushvalue(L, null_idx);
            lua_rawseti(L, -2, (lua_Integer)(k - b) + 1);
        }
        return;
    }
    case N_MAP: {
        const size_t b = (size_t)a->offsets[i], e = (size_t)a->offsets[i + 1];
        const inlay_array *ka = &a->children[0], *va = &a->children[1];
        lua_createtable(L, 0, (int)(e - b));
        for (size_t k = b; k < e; k++) {
            if (!valid_at(ka, k)) inl_lua_error(L, "column '%s': a null map key", n->children[0]->f.name);
            push_node(L, n->children[0], ka, k, null_idx);
            if (valid_at(va, k)) push_node(L, n->children[1], va, k, null_idx);
            else lua_pushvalue(L, null_idx);
            lua_rawset(L, -3);
        }
        return;
    }
    }
}

/* Pushes row i of field k's array a, a null as nil; the null marker of
 * nested values is at null_idx. */
static void push_cell(lua_State *L, const lreader *lr, int k, const inlay_array *a, size_t i, int null_idx)
{
    const lfield *f = &lr->schema->fields[k];
    if (!valid_at(a, i)) lua_pushnil(L);
    else if (f->node) push_node(L, f->node, a, i, null_idx);
    else inl_lua_push_value(L, f, a->values, i);
}

/* Pushes field k's n rows as a Lua array, nulls as the value at null_idx.
 * The common kinds have loops of their own. */
static void push_column(lua_State *L, const lreader *lr, int k, const inlay_array *a, size_t n, int null_idx)
{
    const lfield *f = &lr->schema->fields[k];
    lua_createtable(L, n > INT32_MAX ? INT32_MAX : (int)n, 0);
    const int t = lua_gettop(L);
#define EACH(push)                                                   \
    for (size_t i = 0; i < n; i++) {                                 \
        if (LI_UNLIKELY(!valid_at(a, i))) lua_pushvalue(L, null_idx); \
        else push;                                                   \
        lua_rawseti(L, t, (lua_Integer)i + 1);                       \
    }
    switch (f->kind) {
    case K_INT64: {
        const int64_t *v = a->values;
        EACH(lua_pushinteger(L, v[i]));
        break;
    }
    case K_DOUBLE: {
        const double *v = a->values;
        EACH(lua_pushnumber(L, v[i]));
        break;
    }
    case K_BYTES: {
        const inlay_bytes *v = a->values;
        EACH(lua_pushlstring(L, v[i].data, v[i].len));
        break;
    }
    case K_BOOL: {
        const bool *v = a->values;
        EACH(lua_pushboolean(L, v[i]));
        break;
    }
    case K_NESTED:
        EACH(push_node(L, f->node, a, i, null_idx));
        break;
    default:
        EACH(inl_lua_push_value(L, f, a->values, i));
        break;
    }
#undef EACH
}

/* The pipeline view's cells (inl_lua_cell_fn): column c of the view is
 * selected field c. */
static void view_cell(lua_State *L, void *ctx, int c, size_t row)
{
    lreader *lr = ctx;
    if (!lr->r || c >= lr->nsel) inl_lua_error(L, "the reader is closed");
    inl_lua_push_null(L);
    const int null_idx = lua_gettop(L);
    push_cell(L, lr, lr->sel[c], lr->batch[c], row, null_idx);
    lua_remove(L, null_idx);
}

/* ---- r:batches, r:rows -------------------------------------------------------------------- */

static size_t opt_rows(lua_State *L, int t, const char *key, size_t dflt)
{
    size_t v = dflt;
    if (lua_getfield(L, t, key) != LUA_TNIL) {
        int ok;
        const lua_Integer k = lua_tointegerx(L, -1, &ok);
        if (!ok || k < 1 || k > (1 << 24)) inl_lua_error(L, "option '%s': expected 1..16777216", key);
        v = (size_t)k;
    }
    lua_pop(L, 1);
    return v;
}

static void check_keys(lua_State *L, int t, const char *what, const char *const *keys)
{
    lua_pushnil(L);
    while (lua_next(L, t)) {
        bool known = false;
        if (lua_type(L, -2) == LUA_TSTRING)
            for (int i = 0; keys[i]; i++) known |= strcmp(lua_tostring(L, -2), keys[i]) == 0;
        if (!known) inl_lua_error(L, "%s: unknown option %s", what, luaL_tolstring(L, -2, NULL));
        lua_pop(L, 1);
    }
}

/* The options of batches and rows at idx: selects, returns rows per batch. */
static size_t iteration_options(lua_State *L, lreader *lr, int idx, const char *what)
{
    static const char *const keys[] = { "columns", "rows", "row_groups", NULL };
    size_t rows = lr->batch_rows;
    int nsel;
    if (lua_isnoneornil(L, idx)) {
        nsel = parse_columns(L, lr, 1, 0);
        select_rows(L, lr, nsel, 0);
        return rows;
    }
    luaL_checktype(L, idx, LUA_TTABLE);
    check_keys(L, idx, what, keys);
    rows = opt_rows(L, idx, "rows", rows);
    lua_getfield(L, idx, "columns");
    nsel = parse_columns(L, lr, 1, lua_gettop(L));
    lua_getfield(L, idx, "row_groups");
    select_rows(L, lr, nsel, lua_gettop(L));
    lua_pop(L, 2);
    return rows;
}

/* The iterator's reader (upvalue 1), still on the selection it made
 * (upvalue 2). */
static lreader *iter_reader(lua_State *L)
{
    lreader *lr = lua_touserdata(L, lua_upvalueindex(1));
    if (!lr->r) inl_lua_error(L, "the reader is closed");
    if ((lua_Integer)lr->gen != lua_tointeger(L, lua_upvalueindex(2)))
        inl_lua_error(L, "this iteration was ended by a later batches() or rows() on the same reader");
    return lr;
}

/* for cols, n in r:batches{...}: upvalues reader, generation, rows */
static int batches_step(lua_State *L)
{
    lreader *lr = iter_reader(L);
    const size_t n = read_batch(L, lr, (size_t)lua_tointeger(L, lua_upvalueindex(3)));
    if (n == 0) return 0;
    lua_settop(L, 0);
    luaL_checkstack(L, lr->nsel + 16, "batches");
    inl_lua_push_null(L);
    lua_createtable(L, 0, lr->nsel);
    for (int j = 0; j < lr->nsel; j++) {
        const lfield *f = &lr->schema->fields[lr->sel[j]];
        lua_pushlstring(L, f->name, f->name_len);
        push_column(L, lr, lr->sel[j], lr->batch[j], n, 1);
        lua_rawset(L, 2);
    }
    lua_pushinteger(L, (lua_Integer)n);
    return 2;
}

static int r_batches(lua_State *L)
{
    lreader *lr = check_open(L, 1);
    const size_t rows = iteration_options(L, lr, 2, "batches");
    lua_pushvalue(L, 1);
    lua_pushinteger(L, (lua_Integer)lr->gen);
    lua_pushinteger(L, (lua_Integer)rows);
    lua_pushcclosure(L, batches_step, 3);
    return 1;
}

/* for row in r:rows{...}: upvalues reader, generation, rows per batch,
 * next row of the batch, rows in it */
static int rows_step(lua_State *L)
{
    lreader *lr = iter_reader(L);
    size_t at = (size_t)lua_tointeger(L, lua_upvalueindex(4)), n = (size_t)lua_tointeger(L, lua_upvalueindex(5));
    if (at >= n) {
        n = read_batch(L, lr, (size_t)lua_tointeger(L, lua_upvalueindex(3)));
        at = 0;
        lua_pushinteger(L, (lua_Integer)n);
        lua_replace(L, lua_upvalueindex(5));
        if (n == 0) return 0;
    }
    lua_pushinteger(L, (lua_Integer)at + 1);
    lua_replace(L, lua_upvalueindex(4));
    lua_settop(L, 0);
    luaL_checkstack(L, 16, "rows");
    inl_lua_push_null(L);
    lua_createtable(L, 0, lr->nsel);
    for (int j = 0; j < lr->nsel; j++) {
        const int k = lr->sel[j];
        const lfield *f = &lr->schema->fields[k];
        lua_pushlstring(L, f->name, f->name_len);
        if (valid_at(lr->batch[j], at)) {
            push_cell(L, lr, k, lr->batch[j], at, 1);
            lua_rawset(L, 2);
        } else {
            lua_pop(L, 1);
        }
    }
    return 1;
}

static int r_rows(lua_State *L)
{
    lreader *lr = check_open(L, 1);
    const size_t rows = iteration_options(L, lr, 2, "rows");
    lua_pushvalue(L, 1);
    lua_pushinteger(L, (lua_Integer)lr->gen);
    lua_pushinteger(L, (lua_Integer)rows);
    lua_pushinteger(L, 0);
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, rows_step, 5);
    return 1;
}

static int r_schema(lua_State *L)
{
    check_reader(L, 1);
    lua_getiuservalue(L, 1, UV_SCHEMA);
    return 1;
}

/* r:_fields() -> the field table the schema was built from */
static int r_fields(lua_State *L)
{
    check_reader(L, 1);
    lua_getiuservalue(L, 1, UV_SPECS);
    return 1;
}

/* ---- r:info() ------------------------------------------------------------------------------ */

static const char *codec_name(int codec)
{
    static const char *const names[] = { "uncompressed", "snappy", "gzip", "lzo", "brotli", "lz4", "zstd", "lz4_raw" };
    return codec >= 0 && codec < (int)(sizeof names / sizeof names[0]) ? names[codec] : NULL;
}

static const char *encoding_name(int e)
{
    static const char *const names[] = {
        "PLAIN", "GROUP_VAR_INT", "PLAIN_DICTIONARY", "RLE", "BIT_PACKED", "DELTA_BINARY_PACKED",
        "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY", "RLE_DICTIONARY", "BYTE_STREAM_SPLIT",
    };
    return e >= 0 && e < (int)(sizeof names / sizeof names[0]) ? names[e] : NULL;
}

/* Pushes a statistics bound (the plain encoding of a value of leaf f,
 * stored as Parquet type `physical`) as the Lua value r:batches gives for
 * it; nil when absent or not of the size the type has. */
static void push_bound(lua_State *L, const lfield *f, int physical, const uint8_t *p, size_t len)
{
    union { bool b; int32_t i32; int64_t i64; float f32; double f64; inlay_bytes bytes; } v;
    size_t want = 0;
    switch (physical) {
    case INLAY_BOOLEAN: want = 1; break;
    case INLAY_INT32: case INLAY_FLOAT: want = 4; break;
    case INLAY_INT64: case INLAY_DOUBLE: want = 8; break;
    case INLAY_BYTE_ARRAY: want = len; break;
    case INLAY_FIXED_LEN_BYTE_ARRAY: want = (size_t)f->type.type_length; break;
    default: want = SIZE_MAX; break;   /* INT96: no order, no bounds */
    }
    if (!p || len != want || (physical != (int)f->type.physical)) {
        lua_pushnil(L);
        return;
    }
    switch (physical) {
    case INLAY_BOOLEAN: v.b = p[0] != 0; break;
    case INLAY_INT32: case INLAY_FLOAT: memcpy(&v.i32, p, 4); break;   /* little-endian hosts, as the core */
    case INLAY_INT64: case INLAY_DOUBLE: memcpy(&v.i64, p, 8); break;
    default: v.bytes = (inlay_bytes){ p, len }; break;
    }
    inl_lua_push_value(L, f, &v, 0);
}

static void set_int(lua_State *L, const char *k, int64_t v)
{
    lua_pushinteger(L, (lua_Integer)v);
    lua_setfield(L, -2, k);
}

static void push_chunk(lua_State *L, const lreader *lr, const inlay_chunk_info *ch)
{
    const lfield *f = ch->column >= 0 && ch->column < lr->ncolumns ? &lr->file_leaf[ch->column] : NULL;
    lua_createtable(L, 0, 15);
    lua_pushstring(L, ch->path);
    lua_setfield(L, -2, "path");
    if (f) {
        lua_pushstring(L, f->type_name);
        lua_setfield(L, -2, "type");
    }
    const char *codec = codec_name(ch->codec);
    if (codec) lua_pushstring(L, codec);
    else lua_pushfstring(L, "codec %d", ch->codec);
    lua_setfield(L, -2, "codec");
    lua_createtable(L, 4, 0);
    int k = 0;
    for (int e = 0; e < 32; e++) {
        if (!(ch->encodings >> e & 1)) continue;
        const char *name = encoding_name(e);
        if (name) lua_pushstring(L, name);
        else lua_pushfstring(L, "encoding %d", e);
        lua_rawseti(L, -2, ++k);
    }
    lua_setfield(L, -2, "encodings");
    set_int(L, "compressed_size", ch->compressed_size);
    set_int(L, "uncompressed_size", ch->uncompressed_size);
    set_int(L, "num_values", ch->num_values);
    /* what readers skip by, where the file has it */
    if (ch->column_index_offset >= 0) {
        set_int(L, "column_index_offset", ch->column_index_offset);
        set_int(L, "column_index_length", ch->column_index_length);
    }
    if (ch->offset_index_offset >= 0) {
        set_int(L, "offset_index_offset", ch->offset_index_offset);
        set_int(L, "offset_index_length", ch->offset_index_length);
    }
    if (ch->bloom_filter_offset >= 0) {
        set_int(L, "bloom_filter_offset", ch->bloom_filter_offset);
        if (ch->bloom_filter_length > 0) set_int(L, "bloom_filter_length", ch->bloom_filter_length);
    }
    if (ch->has_statistics) {
        const inlay_statistics *st = &ch->statistics;
        lua_createtable(L, 0, 6);
        if (f) {
            push_bound(L, f, ch->physical, st->min, st->min_len);
            lua_setfield(L, -2, "min");
            push_bound(L, f, ch->physical, st->max, st->max_len);
            lua_setfield(L, -2, "max");
        }
        if (st->min) {
            lua_pushboolean(L, st->min_exact);
            lua_setfield(L, -2, "min_exact");
        }
        if (st->max) {
            lua_pushboolean(L, st->max_exact);
            lua_setfield(L, -2, "max_exact");
        }
        if (st->has_null_count) set_int(L, "null_count", st->null_count);
        if (st->has_distinct_count) set_int(L, "distinct_count", st->distinct_count);
        lua_setfield(L, -2, "statistics");
    }
}

/* r:info() -> { num_rows =, num_row_groups =, num_columns =, created_by =, version =,
 * file_size =, metadata = { key = value }, row_groups = { { num_rows =, total_byte_size =,
 * compressed_size =, columns = { chunk... } } } } */
static int r_info(lua_State *L)
{
    lreader *lr = check_open(L, 1);
    const inlay_file_info *fi = inlay_reader_info(lr->r);
    luaL_checkstack(L, 16, "info");
    lua_createtable(L, 0, 8);
    set_int(L, "num_rows", fi->num_rows);
    set_int(L, "num_row_groups", fi->num_row_groups);
    set_int(L, "num_columns", fi->num_columns);
    set_int(L, "version", fi->version);
    set_int(L, "file_size", (int64_t)fi->file_size);
    lua_pushstring(L, fi->created_by ? fi->created_by : "");
    lua_setfield(L, -2, "created_by");
    lua_createtable(L, 0, (int)fi->metadata_count);
    for (size_t i = 0; i < fi->metadata_count; i++) {
        if (!fi->metadata[i].key) continue;
        if (fi->metadata[i].value) lua_pushstring(L, fi->metadata[i].value);
        else lua_pushboolean(L, 0);   /* a key without a value */
        lua_setfield(L, -2, fi->metadata[i].key);
    }
    lua_setfield(L, -2, "metadata");
    lua_createtable(L, fi->num_row_groups, 0);
    for (int g = 0; g < fi->num_row_groups; g++) {
        const inlay_row_group_info *rg = &fi->row_groups[g];
        lua_createtable(L, 0, 4);
        set_int(L, "num_rows", rg->num_rows);
        set_int(L, "total_byte_size", rg->total_byte_size);
        set_int(L, "compressed_size", group_compressed(rg, fi->num_columns));
        lua_createtable(L, fi->num_columns, 0);
        for (int c = 0; c < fi->num_columns; c++) {
            push_chunk(L, lr, &rg->chunks[c]);
            lua_rawseti(L, -2, c + 1);
        }
        lua_setfield(L, -2, "columns");
        lua_rawseti(L, -2, g + 1);
    }
    lua_setfield(L, -2, "row_groups");
    return 1;
}

/* ---- pipelines (inlay.parquet, in inlay.lua) -------------------------------------------- */

/* r:_pipe(columns, row_groups, batch_rows) -> view, schema: selects, and
 * makes the view the pipeline runs on, over the schema of the selected
 * fields. */
static int r_pipe(lua_State *L)
{
    lreader *lr = check_open(L, 1);
    lua_settop(L, 4);
    const int nsel = parse_columns(L, lr, 1, 2);
    select_rows(L, lr, nsel, 3);
    lr->pipe_rows = lua_isnil(L, 4) ? lr->batch_rows : (size_t)luaL_checkinteger(L, 4);
    if (lr->pipe_rows < 1 || lr->pipe_rows > (1 << 24)) inl_lua_error(L, "option 'batch_rows': expected 1..16777216");
    bool all = nsel == lr->nfields;
    for (int j = 0; all && j < nsel; j++) all = lr->sel[j] == j;
    if (all) {
        lua_getiuservalue(L, 1, UV_SCHEMA);   /* 5 */
    } else {
        lua_getiuservalue(L, 1, UV_SPECS);
        lua_createtable(L, nsel, 0);
        for (int j = 0; j < nsel; j++) {
            lua_rawgeti(L, 5, lr->sel[j] + 1);
            lua_rawseti(L, 6, j + 1);
        }
        lua_pushcfunction(L, inl_lua_schema_new);
        lua_insert(L, 6);
        lua_call(L, 1, 1);
        lua_replace(L, 5);
    }
    inl_lua_source_borrow_arrays(L, 5, view_cell, lr);   /* 6 */
    lua_pushvalue(L, 6);
    lua_setiuservalue(L, 1, UV_VIEW);
    lua_pushvalue(L, 5);
    return 2;
}

/* r:_pipe_next() -> rows of the next batch, set into the view (0 at the end) */
static int r_pipe_next(lua_State *L)
{
    lreader *lr = check_open(L, 1);
    if (lua_getiuservalue(L, 1, UV_VIEW) != LUA_TUSERDATA) inl_lua_error(L, "no pipeline on this reader");
    const int view = lua_gettop(L);
    inl_lua_source_set_arrays(L, view, NULL, 0, 0);   /* the view never sees a batch half replaced */
    const size_t n = read_batch(L, lr, lr->pipe_rows);
    inl_lua_source_set_arrays(L, view, lr->batch, n, n ? inlay_reader_batch_first_row(lr->r) : 0);
    lua_pushinteger(L, (lua_Integer)n);
    return 1;
}

/* r:_pipe_stats() -> as a text source's _stats: bytes are the row groups'
 * sizes, the current one counted by the share of its rows read */
static int r_pipe_stats(lua_State *L)
{
    lreader *lr = check_reader(L, 1);
    uint64_t u = lr->done_bytes, c = lr->done_bytes_c, total = 0;
    if (lr->r) {
        const inlay_file_info *fi = inlay_reader_info(lr->r);
        total = fi->file_size;
        if (lr->cur_group >= 0) {
            const inlay_row_group_info *rg = &fi->row_groups[lr->cur_group];
            const double share = rg->num_rows > 0 ? (double)lr->cur_group_rows / (double)rg->num_rows : 1;
            u += (uint64_t)(share * (double)rg->total_byte_size);
            c += (uint64_t)(share * (double)group_compressed(rg, fi->num_columns));
        }
    }
    lua_createtable(L, 0, 6);
    set_int(L, "records", (int64_t)lr->rows_read);
    set_int(L, "rows", (int64_t)lr->rows_read);
    set_int(L, "skipped", 0);
    set_int(L, "bytes_read", (int64_t)u);
    set_int(L, "bytes_consumed", (int64_t)(c < total ? c : total));
    set_int(L, "bytes_total", (int64_t)total);
    return 1;
}

/* ---- opening ------------------------------------------------------------------------------- */

/* The reader at 1 gets its schema and scratch; run protected, with
 * inlay.read's upvalues, so that a file whose schema the binding cannot
 * state is closed at once rather than at the next collection. */
static int finish_open(lua_State *L)
{
    lreader *lr = check_reader(L, 1);
    build_schema(L, 1, lr);
    setup(L, lr);
    return 0;
}

/* inlay.read(path [, { batch_rows = n }]) -> reader */
static int reader_open(lua_State *L)
{
    static const char *const keys[] = { "batch_rows", NULL };
    const char *path = luaL_checkstring(L, 1);
    size_t batch_rows = INLAY_DEFAULT_BATCH_ROWS;
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        check_keys(L, 2, "read", keys);
        batch_rows = opt_rows(L, 2, "batch_rows", batch_rows);
    }
    lua_settop(L, 2);
    lreader *lr = lua_newuserdatauv(L, sizeof *lr, UV_COUNT);   /* 3 */
    memset(lr, 0, sizeof *lr);
    luaL_setmetatable(L, LI_READER);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, 3, UV_PATH);
    lr->alloc.fn = lua_getallocf(L, &lr->alloc.ud);
    lr->batch_rows = batch_rows;
    lr->cur_group = -1;
    inlay_read_options o;
    inlay_read_options_init(&o);
    o.alloc = lr->alloc;
    o.batch_rows = batch_rows;
    inlay_reader *r = NULL;
    const int st = inlay_reader_open_file(&r, path, &o);
    /* Owned by the userdata from here: pushing the message may raise, and
     * __gc then frees it. */
    lr->r = r;
    if (st != INLAY_OK) {
        lua_pushstring(L, r ? inlay_reader_errmsg(r) : inlay_strerror(st));
        close_reader(lr);
        inl_lua_fail(L, st, "%s", lua_tostring(L, -1));
    }
    for (int i = 1; i <= 3; i++) lua_pushvalue(L, lua_upvalueindex(i));
    lua_pushcclosure(L, finish_open, 3);
    lua_pushvalue(L, 3);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        close_reader(lr);
        lua_error(L);
    }
    return 1;
}

void inl_lua_open_reader(lua_State *L)
{
    static const luaL_Reg methods[] = {
        { "schema", r_schema },   { "info", r_info },       { "batches", r_batches },
        { "rows", r_rows },       { "close", r_close },     { "_fields", r_fields },
        { "_pipe", r_pipe },      { "_pipe_next", r_pipe_next }, { "_pipe_stats", r_pipe_stats },
        { NULL, NULL },
    };
    luaL_newmetatable(L, LI_READER);
    luaL_newlib(L, methods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, r_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, r_close);
    lua_setfield(L, -2, "__close");
    lua_pushcfunction(L, r_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);
    lua_getfield(L, -1, "list");
    lua_getfield(L, -2, "struct");
    lua_getfield(L, -3, "map");
    lua_pushcclosure(L, reader_open, 3);
    lua_setfield(L, -2, "read");
}
