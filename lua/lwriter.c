/*
 * lwriter.c — the writer userdata: inlay.open, w:write, w:row,
 * w:write_columns, w:close.
 *
 * Values are converted into the writer's scratch arrays (one lcol per
 * column: typed values, definition levels, derived bytes) and handed to the
 * core with inlay_writer_append_columns(), which checks a whole call before
 * buffering any of it. The scratch arrays grow to the largest batch seen
 * and are reused, so a steady stream of calls allocates nothing.
 *
 * write_columns converts its whole batch (lconv.c's column loops) and
 * makes ONE append call. Its strings are not copied: their inlay_bytes
 * point into the Lua strings, which the caller's arrays keep alive until
 * the core has copied what it keeps (the memo table copies only values it
 * has not seen).
 *
 * write and row stage their row at the end of the scratch arrays and
 * append every ROW_BATCH rows (and before write_columns and close), since
 * an append call has a fixed cost well above that of one row. The row's
 * strings are copied into the conversion's arena, because the Lua values need
 * not live until the flush. A row is staged only when all its values
 * convert, and it is checked here for everything the core would reject
 * (UTF-8 in text columns included), so a bad value is still reported by the
 * call that gave it, that call leaves nothing behind, and the flush cannot
 * fail on input. A writer dropped without close drops its staged rows too.
 * The one check made only by the core is the order of a writer opened with
 * sorting_columns (against the rows before): such a writer hands each row
 * of write and row on at once, so that the call that breaks the order is
 * the one refused.
 *
 * Lifetime, as liolib.c does for files: the userdata is created closed
 * (w == NULL) before anything is opened, so an error at any point leaves it
 * consistent; one close path serves close(), __close and __gc. Only close()
 * and __close on a normal scope exit publish the file; __close during an
 * error, __gc and abort() throw it away. User values: 1 the schema, 2 the
 * path (or the stream's name). The per-column totals of info().columns are
 * copied from the core's writer before it is freed into room at the
 * userdata's end, made with it, so that closing allocates nothing once the
 * file is complete.
 *
 * Row numbers in messages: for write_columns, the 1-based index into the
 * column arrays; for write and row, the 1-based row number in the file.
 *
 * Where the bytes go: a path (inlay_writer_open_file: a temporary file,
 * renamed by close), or a Lua file handle (inlay_writer_open_fd on a
 * duplicate of its descriptor: the stream, front to back). The temporary of
 * a file writer is reported to inl_lua_temp_hook when it appears (inside
 * inl_lua_temp_hold) and once it is gone, for a host's signal handler.
 *
 * Nested fields (lists, structs, maps) are converted by lnested.c into
 * their own scratch (lw->nest, NULL for a flat schema) and appended with
 * one inlay_writer_append_array each, after the one append of the flat
 * columns. Everything of a call is converted and checked first, UTF-8
 * included, so once the flat append has passed the core's checks the
 * nested ones cannot fail on input: the call stays all-or-nothing.
 *
 * The same userdata, under the metatable LI_DATASET, appends to a dataset
 * instead (ldataset.c): the target is then t with its calls in ops, w is
 * NULL, and everything between the Lua values and the append call (the
 * conversion, the staging of rows, the messages) is shared. A dataset
 * takes a nested field only as level batches, every field of the rows in
 * one call: its nested fields' arrays are shredded (inlay_shredder) into
 * batches after the flat ones. t stays after a successful close, for
 * info(), until the userdata is collected.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lnested.h"
#include "lwriter.h"

void (*inl_lua_temp_hook)(const char *tmp_path, int live) = NULL;
void (*inl_lua_temp_hold)(int hold) = NULL;

enum { WS_CLOSED_NEW, WS_OPEN, WS_CLOSED, WS_ABORTED };

/* Rows write/row stage before one append call. */
#define ROW_BATCH 1024

typedef struct lwriter {
    inlay_writer *w;            /* NULL unless open */
    void *t;                    /* another target (a dataset), with ops; NULL unless open or closed */
    const inl_lua_target *ops;  /* NULL: the target is w */
    int state;
    bool borrowed;              /* w is the host program's (inl_lua_writer_borrow): never closed or freed here */
    bool stream;                /* writes to a Lua file handle: no path, no temporary */
    bool owns_fd;               /* fd is our duplicate of the handle's, closed with the writer */
    char *hooked;               /* the temporary's path as inl_lua_temp_hook was told it; else NULL */
    bool have_final;            /* final[] holds the totals of a successful close */
    bool sorted;                /* sorting_columns given: write and row hand each row on at once */
    int sort_field;             /* the nested field holding every sort key, appended first; else -1 */
    int fd;
    const lschema *schema;      /* kept alive by user value 1 */
    int ncols;                  /* top-level fields */
    int nflat;                  /* of them flat: the batches of one append_columns call */
    lcol *cols;                 /* ncols entries; with batches and seen, one block */
    inlay_column_batch *batches;   /* indexed by lfield.slot */
    unsigned char *seen;
    lconv cv;                   /* inlay.null, the allocator, the arena of staged rows' bytes */
    lnest *nest;                /* scratch of the nested fields; NULL without any */
    inlay_shredder *shredder;   /* a dataset with nested fields: their arrays into level batches */
    inlay_column_batch *all;    /* with it: the flat batches, then the nested fields' leaves */
    int all_cap;
    int shred_status;           /* the shredder refused the call's arrays: its message is the reason */
    uint64_t nrows;             /* rows accepted so far, staged ones included */
    size_t nbuf;                /* rows staged by write/row */
    uint64_t rows, row_groups, bytes;   /* totals kept after close */
    inlay_column_stats *final;  /* per leaf column, kept after close: the userdata's tail */
} lwriter;

static void flush_rows(lua_State *L, lwriter *lw);

/* ---- memory ----------------------------------------------------------------- */

static size_t block_size(int ncols)
{
    return (size_t)ncols * (sizeof(lcol) + sizeof(inlay_column_batch) + 1);
}

static void free_scratch(lwriter *lw)
{
    if (!lw->cols) return;
    for (int i = 0; i < lw->ncols; i++) inl_lua_col_free(&lw->cv, &lw->cols[i]);   /* the schema may be gone */
    inl_lua_resize(&lw->cv, lw->cols, block_size(lw->ncols), 0);
    inl_lua_nest_free(lw->nest);
    inlay_shredder_free(lw->shredder);
    if (lw->all) inl_lua_resize(&lw->cv, lw->all, (size_t)lw->all_cap * sizeof *lw->all, 0);
    inl_lua_conv_free(&lw->cv);
    lw->nest = NULL;
    lw->shredder = NULL;
    lw->all = NULL;
    lw->all_cap = 0;
    lw->nbuf = 0;
    lw->cols = NULL;
    lw->batches = NULL;
    lw->seen = NULL;
}

static int alloc_scratch(lwriter *lw)
{
    size_t size = block_size(lw->ncols);
    char *p = inl_lua_resize(&lw->cv, NULL, 0, size);
    if (!p) return 0;
    memset(p, 0, size);
    lw->cols = (lcol *)p;
    lw->batches = (inlay_column_batch *)(p + (size_t)lw->ncols * sizeof(lcol));
    lw->seen = (unsigned char *)(lw->batches + lw->ncols);
    if (lw->schema->nnodes) {
        lw->nest = inl_lua_nest_new(lw->schema, lw->cv.alloc, lw->cv.null_ud);
        if (!lw->nest) return 0;
    }
    return 1;
}

/* Room for n rows in every flat column (lnested.c keeps the nested ones'). */
static void reserve(lua_State *L, lwriter *lw, size_t n)
{
    for (int i = 0; i < lw->ncols; i++)
        if (!lw->schema->fields[i].node) inl_lua_col_reserve(L, &lw->cv, &lw->schema->fields[i], &lw->cols[i], n);
}

/* ---- the userdata --------------------------------------------------------------- */

/* The writer at index 1. Methods and metamethods carry the metatable as
 * their upvalue, which spares the registry lookup of luaL_checkudata on
 * every call of a per-row method; other callers use luaL_checkudata. */
static lwriter *to_writer(lua_State *L)
{
    void *p = lua_touserdata(L, 1);
    if (LI_LIKELY(p != NULL) && lua_getmetatable(L, 1)) {
        int same = lua_rawequal(L, -1, lua_upvalueindex(1));
        lua_pop(L, 1);
        if (LI_LIKELY(same)) return p;
    }
    return luaL_checkudata(L, 1, LI_WRITER);
}

static lwriter *check_open(lua_State *L)
{
    lwriter *lw = to_writer(L);
    if (LI_UNLIKELY(lw->state != WS_OPEN)) {
        lua_getiuservalue(L, 1, 2);
        inl_lua_error(L, lw->ops ? "%s '%s' is %s" : "%swriter for '%s' is %s", lw->ops ? lw->ops->kind : "",
                      lua_tostring(L, -1), lw->state == WS_CLOSED ? "closed" : "aborted");
    }
    return lw;
}

/* The temporary file is gone (renamed into place or removed): the hook is
 * told only now, from our copy of its path, so that a signal on the way
 * finds it still listed. Unlinking the name then finds nothing. */
static void temp_gone(lwriter *lw)
{
    if (!lw->hooked) return;
    if (inl_lua_temp_hook) inl_lua_temp_hook(lw->hooked, 0);
    inl_lua_resize(&lw->cv, lw->hooked, strlen(lw->hooked) + 1, 0);
    lw->hooked = NULL;
}

static void temp_hold(bool hold)
{
    if (inl_lua_temp_hold) inl_lua_temp_hold(hold);
}

/* After the writer is gone: it may write to the descriptor until then. */
static void release_fd(lwriter *lw)
{
    if (lw->owns_fd) close(lw->fd);
    lw->owns_fd = false;
}

/* Give up the file and release everything. Idempotent. */
static void writer_abort(lwriter *lw)
{
    if (lw->w) {
        if (!lw->borrowed) inlay_writer_free(lw->w);   /* aborts: the temporary file is removed */
        lw->w = NULL;
        lw->state = WS_ABORTED;
        temp_gone(lw);
    }
    if (lw->t) {   /* after a successful close, only freed */
        lw->ops->destroy(lw->t);
        lw->t = NULL;
        if (lw->state == WS_OPEN) lw->state = WS_ABORTED;
    }
    release_fd(lw);
    free_scratch(lw);
}

/* ---- the target's calls --------------------------------------------------------- */

/* The flat batches; a dataset's nested fields too, n rows each, shredded
 * into level batches after them (a dataset takes the rows whole, every
 * field in one call): what lnested.c converted (byte values at arena
 * offsets for staged rows) or a pipeline's reader array (ext[i]). */
static int target_append(lwriter *lw, size_t n, const uint8_t *arena, const inlay_array *const *ext)
{
    if (!lw->ops) return inlay_writer_append_columns(lw->w, lw->batches, lw->nflat);
    if (!lw->shredder) return lw->ops->append(lw->t, lw->batches, lw->nflat);
    memcpy(lw->all, lw->batches, (size_t)lw->nflat * sizeof *lw->all);
    int k = lw->nflat;
    for (int i = 0; i < lw->ncols; i++) {
        if (!lw->schema->fields[i].node) continue;
        const inlay_array *a = ext && ext[i] ? ext[i] : inl_lua_nest_array(lw->nest, &lw->schema->fields[i], arena);
        int got = 0;
        const int st = inlay_shredder_shred(lw->shredder, i, a, n, lw->all + k, lw->all_cap - k, &got);
        if (st) return lw->shred_status = st;
        k += got;
    }
    return lw->ops->append(lw->t, lw->all, k);
}

static int target_status(const lwriter *lw)
{
    return lw->ops ? lw->ops->status(lw->t) : inlay_writer_status(lw->w);
}

static const char *target_errmsg(const lwriter *lw)
{
    return lw->ops ? lw->ops->errmsg(lw->t) : inlay_writer_errmsg(lw->w);
}

/* Close a target other than a writer (the file's is writer_finish's own):
 * on failure, abort and raise. t stays, for info(). */
static void target_finish(lua_State *L, lwriter *lw)
{
    flush_rows(L, lw);
    if (lw->ops->close(lw->t) != INLAY_OK) {
        lua_getiuservalue(L, 1, 2);
        lua_pushstring(L, lw->ops->errmsg(lw->t));
        const int status = lw->ops->status(lw->t);
        writer_abort(lw);
        inl_lua_fail(L, status, "closing %s '%s' failed: %s", lw->ops->kind, lua_tostring(L, -2),
                     lua_tostring(L, -1));
    }
    lw->state = WS_CLOSED;
    lw->rows = lw->nrows;
    free_scratch(lw);
}

/* ---- what each column came to ------------------------------------------------------ */

/* The totals of leaf `column`: the open writer's so far, or as close left
 * them. */
static bool column_stats(const lwriter *lw, int column, inlay_column_stats *st)
{
    if (lw->w) return inlay_writer_column_stats(lw->w, column, st) == INLAY_OK;
    if (!lw->have_final || column < 0 || column >= lw->schema->ncolumns) return false;
    *st = lw->final[column];
    return true;
}

/* Sets t[path] = { compression =, compression_level =, compressed_bytes =,
 * uncompressed_bytes =, chunks =, chunks_uncompressed =, bloom_filter_bytes =,
 * column_index_bytes =, offset_index_bytes = } for leaf `column`. */
static void push_column_stats(lua_State *L, const lwriter *lw, int t, int column, const char *path)
{
    inlay_column_stats st;
    if (!column_stats(lw, column, &st)) return;
    lua_createtable(L, 0, 9);
    const char *codec = inlay_compression_name(st.compression);
    lua_pushstring(L, codec ? codec : "?");
    lua_setfield(L, -2, "compression");
    int lo, hi, dflt;
    if (inlay_compression_levels(st.compression, &lo, &hi, &dflt)) {   /* none for codecs without levels */
        lua_pushinteger(L, st.compression_level);
        lua_setfield(L, -2, "compression_level");
    }
    lua_pushinteger(L, (lua_Integer)st.compressed_bytes);
    lua_setfield(L, -2, "compressed_bytes");
    lua_pushinteger(L, (lua_Integer)st.uncompressed_bytes);
    lua_setfield(L, -2, "uncompressed_bytes");
    lua_pushinteger(L, (lua_Integer)st.chunks);
    lua_setfield(L, -2, "chunks");
    lua_pushinteger(L, (lua_Integer)st.chunks_uncompressed);
    lua_setfield(L, -2, "chunks_uncompressed");
    lua_pushinteger(L, (lua_Integer)st.bloom_filter_bytes);
    lua_setfield(L, -2, "bloom_filter_bytes");
    lua_pushinteger(L, (lua_Integer)st.column_index_bytes);
    lua_setfield(L, -2, "column_index_bytes");
    lua_pushinteger(L, (lua_Integer)st.offset_index_bytes);
    lua_setfield(L, -2, "offset_index_bytes");
    lua_setfield(L, t, path);
}

static void push_node_stats(lua_State *L, const lwriter *lw, int t, const lnode *n)
{
    if (n->kind == N_LEAF) {
        push_column_stats(L, lw, t, n->f.column, n->ppath);
        return;
    }
    luaL_checkstack(L, 4, "columns");
    for (int i = 0; i < n->nchildren; i++) push_node_stats(L, lw, t, n->children[i]);
}

/* Pushes the columns table of w:info(): each leaf column by its dotted
 * path in the file ("id", "tags.list.element"), as r:info() names them. */
static void push_columns(lua_State *L, const lwriter *lw)
{
    lua_createtable(L, 0, lw->schema->ncolumns);
    const int t = lua_gettop(L);
    for (int i = 0; i < lw->ncols; i++) {
        const lfield *f = &lw->schema->fields[i];
        if (f->node) push_node_stats(L, lw, t, f->node);
        else push_column_stats(L, lw, t, f->column, f->name);
    }
}

/* Finish the file; on failure, abort and raise. */
static void writer_finish(lua_State *L, lwriter *lw)
{
    if (lw->ops) {
        if (lw->state == WS_OPEN) target_finish(L, lw);
        return;
    }
    if (!lw->w) return;
    if (lw->borrowed) {   /* the host finishes its own writer */
        flush_rows(L, lw);
        writer_abort(lw);
        return;
    }
    flush_rows(L, lw);
    if (inlay_writer_close(lw->w) != INLAY_OK) {
        lua_getiuservalue(L, 1, 2);
        lua_pushstring(L, inlay_writer_errmsg(lw->w));
        const int status = inlay_writer_status(lw->w);
        writer_abort(lw);
        inl_lua_fail(L, status, "closing '%s' failed: %s", lua_tostring(L, -2), lua_tostring(L, -1));
    }
    lw->rows = inlay_writer_rows(lw->w);
    lw->row_groups = inlay_writer_row_groups(lw->w);
    lw->bytes = inlay_writer_bytes(lw->w);
    for (int c = 0; c < lw->schema->ncolumns; c++)   /* kept for info() once the writer is gone */
        if (inlay_writer_column_stats(lw->w, c, &lw->final[c]) != INLAY_OK)
            memset(&lw->final[c], 0, sizeof lw->final[c]);
    lw->have_final = true;
    temp_gone(lw);   /* renamed into place */
    inlay_writer_free(lw->w);
    lw->w = NULL;
    lw->state = WS_CLOSED;
    release_fd(lw);
    free_scratch(lw);
}

static void push_info(lua_State *L, lwriter *lw)
{
    if (lw->ops) {   /* after abort, only the name */
        if (lw->t) lw->ops->push_info(L, lw->t, 1);
        else lua_createtable(L, 0, 2);
        lua_getiuservalue(L, 1, 2);
        lua_setfield(L, -2, lw->ops->name_key);
        return;
    }
    lua_createtable(L, 0, 10);
    if (!lw->stream) {   /* a stream's name ("<stdout>") is no path */
        lua_getiuservalue(L, 1, 2);
        lua_setfield(L, -2, "path");
    }
    bool open = lw->state == WS_OPEN;
    inlay_writer_stats st;
    inlay_writer_get_stats(open ? lw->w : NULL, &st);
    lua_pushinteger(L, (lua_Integer)(open ? lw->nrows : lw->rows));
    lua_setfield(L, -2, "rows");
    lua_pushinteger(L, (lua_Integer)(open ? st.row_groups : lw->row_groups));
    lua_setfield(L, -2, "row_groups");
    lua_pushinteger(L, (lua_Integer)(open ? st.bytes_written : lw->bytes));
    lua_setfield(L, -2, "bytes");
    lua_pushinteger(L, (lua_Integer)st.rows_buffered);   /* 0 once closed */
    lua_setfield(L, -2, "rows_buffered");
    lua_pushinteger(L, (lua_Integer)st.bytes_buffered);
    lua_setfield(L, -2, "bytes_buffered");
    if (lw->state == WS_OPEN || lw->have_final) {   /* so far, or as close left them */
        push_columns(L, lw);
        lua_setfield(L, -2, "columns");
        uint64_t bloom = 0, index = 0;
        inlay_column_stats cs;
        for (int c = 0; c < lw->schema->ncolumns; c++) {
            if (!column_stats(lw, c, &cs)) continue;
            bloom += cs.bloom_filter_bytes;
            index += cs.column_index_bytes + cs.offset_index_bytes;
        }
        lua_pushinteger(L, (lua_Integer)bloom);
        lua_setfield(L, -2, "bloom_filter_bytes");
        lua_pushinteger(L, (lua_Integer)index);
        lua_setfield(L, -2, "page_index_bytes");
    }
}

static int w_close(lua_State *L)
{
    lwriter *lw = to_writer(L);
    if (lw->borrowed) inl_lua_error(L, "this writer belongs to the host program, which closes it");
    if (lw->state == WS_ABORTED) check_open(L);
    writer_finish(L, lw);
    push_info(L, lw);
    return 1;
}

/* w:flush(): the rows so far become a row group now (see
 * inlay_writer_flush_row_group); staged rows first. */
static int w_flush(lua_State *L)
{
    lwriter *lw = check_open(L);
    flush_rows(L, lw);
    if (inlay_writer_flush_row_group(lw->w) != INLAY_OK)
        inl_lua_fail(L, inlay_writer_status(lw->w), "%s", inlay_writer_errmsg(lw->w));
    return 0;
}

static int w_abort(lua_State *L)
{
    lwriter *lw = to_writer(L);
    if (lw->state != WS_CLOSED) writer_abort(lw);
    return 0;
}

static int w_gc(lua_State *L)
{
    writer_abort(to_writer(L));
    return 0;
}

/* __close(w, err): a normal scope exit finishes the file, an error aborts it. */
static int w_tbc_close(lua_State *L)
{
    lwriter *lw = to_writer(L);
    if (lua_isnil(L, 2)) writer_finish(L, lw);
    else writer_abort(lw);
    return 0;
}

static const char *state_name(const lwriter *lw)
{
    return lw->state == WS_OPEN ? "open" : lw->state == WS_CLOSED ? "closed" : "aborted";
}

/* w:info() -> { path=, rows=, row_groups=, bytes=, state= } */
static int w_info(lua_State *L)
{
    lwriter *lw = to_writer(L);
    if (lw->state == WS_OPEN) flush_rows(L, lw);   /* so row_groups and bytes count every row */
    push_info(L, lw);
    lua_pushstring(L, state_name(lw));
    lua_setfield(L, -2, "state");
    return 1;
}

static int w_tostring(lua_State *L)
{
    lwriter *lw = to_writer(L);
    lua_getiuservalue(L, 1, 2);
    lua_pushfstring(L, "inlay.%s(\"%s\", %s, %I rows)", lw->ops ? lw->ops->kind : "writer", lua_tostring(L, -1),
                    state_name(lw),
                    (LUAI_UACINT)(lw->state == WS_OPEN ? lw->nrows : lw->rows));
    return 1;
}

static int w_schema(lua_State *L)
{
    to_writer(L);
    lua_getiuservalue(L, 1, 1);
    return 1;
}

/* ---- appending -------------------------------------------------------------------- */

/* The flat field whose leaf column is `col`, or -1 (a nested field's). */
static int flat_field(const lwriter *lw, int col)
{
    if (lw->nflat == lw->ncols) return col < lw->ncols ? col : -1;
    for (int i = 0; i < lw->ncols; i++)
        if (lw->schema->fields[i].column == col && !lw->schema->fields[i].node) return i;
    return -1;
}

/* The Parquet path of leaf column `col` under n, when no list or map lies
 * on the way (so that its entries are rows), else NULL. */
static const char *row_leaf(const lnode *n, int col)
{
    if (n->kind == N_LEAF) return n->f.column == col ? n->ppath : NULL;
    if (n->kind != N_STRUCT) return NULL;
    for (int i = 0; i < n->nchildren; i++) {
        const char *p = row_leaf(n->children[i], col);
        if (p) return p;
    }
    return NULL;
}

/* Raise the core's message for a rejected append. Its row numbers count
 * from 0 in the file; say them the way this call counts (see the top):
 * row = the core's - base + 1. */
static LI_NORETURN void append_failed(lua_State *L, lwriter *lw, uint64_t base)
{
    if (lw->shred_status) {
        const int st = lw->shred_status;
        lw->shred_status = 0;
        inl_lua_fail(L, st, "%s", inlay_shredder_errmsg(lw->shredder));
    }
    inlay_error_info e;
    if (lw->ops) lw->ops->error_info(lw->t, &e);
    else inlay_writer_error_info(lw->w, &e);
    const char *name = NULL;
    if (e.column >= 0 && e.row >= 0) {
        const int i = flat_field(lw, e.column);
        if (i >= 0) name = lw->schema->fields[i].name;
        for (int k = 0; !name && k < lw->ncols; k++)   /* a struct's leaf: the sort order's */
            if (lw->schema->fields[k].node) name = row_leaf(lw->schema->fields[k].node, e.column);
    }
    if (name)
        inl_lua_error(L, "column '%s' row %I: %s", name, (LUAI_UACINT)((uint64_t)e.row - base + 1), e.reason);
    inl_lua_fail(L, target_status(lw), "%s", target_errmsg(lw));
}

/* Nested field i's n rows: a pipeline's reader array (ext[i]), or what
 * lnested.c converted (byte values at arena offsets for staged rows). */
static int append_field(lwriter *lw, int i, size_t n, const uint8_t *arena, const inlay_array *const *ext)
{
    const inlay_array *a = ext && ext[i] ? ext[i] : inl_lua_nest_array(lw->nest, &lw->schema->fields[i], arena);
    return inlay_writer_append_array(lw->w, i, a, n);
}

/* A writer sorted by the leaves of one nested field appends that field
 * first: the core judges the order of a row when its last key column gets
 * it, so the append that can refuse a row must come before anything else of
 * the call goes in. Returns the status; on failure the nested scratch is
 * reset and the caller raises (append_failed). */
static int append_sort_field(lwriter *lw, size_t n, const uint8_t *arena, const inlay_array *const *ext)
{
    if (LI_LIKELY(lw->sort_field < 0) || lw->ops) return INLAY_OK;   /* a dataset takes every field at once */
    int st = append_field(lw, lw->sort_field, n, arena, ext);
    if (st != INLAY_OK) inl_lua_nest_reset(lw->nest);
    return st;
}

/* One inlay_writer_append_array() per nested field, n rows each, after
 * the flat columns went in. Their values were checked as they were
 * converted, so only the environment (memory, the sink) can fail here.
 * A pipeline's field given as a reader's array (ext[i], NULL: none) goes
 * as it is; the core checks it then, and a value it refuses (text that is
 * not UTF-8 in a file from elsewhere) fails the call with the flat columns
 * already in: the job fails, and close would refuse the unequal columns. */
static void append_nested(lua_State *L, lwriter *lw, size_t n, const uint8_t *arena, const inlay_array *const *ext)
{
    for (int i = 0; i < lw->ncols && !lw->ops; i++) {   /* a dataset's went with the flat ones */
        if (!lw->schema->fields[i].node || i == lw->sort_field) continue;
        if (LI_UNLIKELY(append_field(lw, i, n, arena, ext) != INLAY_OK))
            inl_lua_fail(L, inlay_writer_status(lw->w), "%s", inlay_writer_errmsg(lw->w));
    }
    inl_lua_nest_reset(lw->nest);
}

/* The text of the flat columns converted for a call, checked before a
 * nested sort field goes in first: the flat append must not be refused
 * after it (write_columns otherwise leaves UTF-8 to the core's check, made
 * as the values are looked up). first_row: the row of the call's first in
 * messages, less one. ext: a pipeline's reader batches, checked by the core. */
static void check_flat_text(lua_State *L, const lwriter *lw, size_t n, uint64_t first_row,
                            const inlay_column_batch *ext)
{
    if (LI_LIKELY(lw->sort_field < 0) || lw->ops) return;
    for (int i = 0; i < lw->ncols; i++) {
        const lfield *f = &lw->schema->fields[i];
        if (f->node || f->kind != K_BYTES || (ext && ext[i].values)) continue;
        const inlay_column_batch *b = &lw->batches[f->slot];
        const inlay_bytes *v = b->values;
        size_t k = 0;
        for (size_t j = 0; j < n; j++)
            if (!b->levels.def || b->levels.def[j]) inl_lua_check_bytes(L, f, first_row + j + 1, &v[k++]);
    }
}

/* One inlay_writer_append_columns() call for the batches set up by stage(),
 * then the nested fields (the one holding the sort keys first). */
static void append_staged(lua_State *L, lwriter *lw, uint64_t base, size_t n)
{
    check_flat_text(L, lw, n, 0, NULL);
    if (LI_UNLIKELY(append_sort_field(lw, n, NULL, NULL) != INLAY_OK)) append_failed(L, lw, base);
    int st = target_append(lw, n, NULL, NULL);
    if (LI_UNLIKELY(st != INLAY_OK)) append_failed(L, lw, base);
    if (LI_UNLIKELY(lw->nest)) append_nested(L, lw, n, NULL, NULL);
}

static void stage(lwriter *lw, int i, size_t n, bool nulls)
{
    const lfield *f = &lw->schema->fields[i];
    inlay_column_batch *b = &lw->batches[f->slot];
    b->column = f->column;
    b->values = lw->cols[i].vals;
    b->count = n;
    b->levels.def = nulls ? lw->cols[i].def : NULL;
    b->levels.rep = NULL;
    b->levels.validity = NULL;
}

/* ---- rows staged by write and row --------------------------------------------------- */

/* Append the staged rows. Their bytes values hold arena offsets until now. */
static void flush_rows(lua_State *L, lwriter *lw)
{
    size_t n = lw->nbuf;
    if (n == 0) return;
    if (LI_UNLIKELY(lw->nest)) inl_lua_nest_rollback(lw->nest);   /* keep the committed rows only */
    for (int i = 0; i < lw->ncols; i++) {
        lcol *c = &lw->cols[i];
        if (LI_UNLIKELY(lw->schema->fields[i].node)) continue;
        if (inl_lua_is_bytes(lw->schema->fields[i].kind)) {
            inlay_bytes *v = c->vals;
            for (size_t k = 0; k < c->nvals; k++) v[k].data = lw->cv.arena + (uintptr_t)v[k].data;
        }
        stage(lw, i, n, c->nulls > 0);
        c->nvals = c->nulls = 0;
    }
    lw->nbuf = 0;
    lw->cv.arena_len = 0;
    /* Only the environment can fail here, or, for a sorted writer (which
     * stages one row at a time), the row's order. */
    int st = append_sort_field(lw, n, lw->cv.arena, NULL);
    if (LI_LIKELY(st == INLAY_OK)) st = target_append(lw, n, lw->cv.arena, NULL);
    if (LI_UNLIKELY(st != INLAY_OK)) {
        lw->nrows -= n;
        if (lw->nest) inl_lua_nest_reset(lw->nest);
        append_failed(L, lw, 0);
    }
    if (LI_UNLIKELY(lw->nest)) append_nested(L, lw, n, lw->cv.arena, NULL);
}

/* Stage the value at idx as column i of the row being built: its value in
 * the column's next free slot, its level at row nbuf, its bytes (for bytes
 * columns) at *apos in the arena. Nothing is committed: a later error in the
 * same row leaves the writer as it was. */
static void stage_value(lua_State *L, lwriter *lw, int i, int idx, int t, uint64_t row, size_t *apos)
{
    const lfield *f = &lw->schema->fields[i];
    if (LI_UNLIKELY(f->node)) {
        inl_lua_nest_stage(L, lw->nest, &lw->cv, f, idx, row, apos);
        return;
    }
    lcol *c = &lw->cols[i];
    size_t k = c->nvals;
    int present = inl_lua_put_value(L, &lw->cv, f, c, k, row, idx, t);
    c->def[lw->nbuf] = (int16_t)present;
    if (present && inl_lua_is_bytes(f->kind)) {
        inlay_bytes *b = &((inlay_bytes *)c->vals)[k];
        inl_lua_check_bytes(L, f, row, b);
        b->data = (const void *)(uintptr_t)inl_lua_arena_put(L, &lw->cv, apos, b->data, b->len);
    }
}

/* The row staged at nbuf is complete: keep it, and flush a full batch. */
static void commit_row(lua_State *L, lwriter *lw, size_t apos)
{
    if (LI_UNLIKELY(lw->nest)) inl_lua_nest_commit(lw->nest);
    for (int i = 0; i < lw->ncols; i++) {
        lcol *c = &lw->cols[i];
        if (LI_UNLIKELY(!c->def)) continue;   /* a nested field's: lnested.c keeps it */
        int present = c->def[lw->nbuf];
        c->nvals += (size_t)present;
        c->nulls += (size_t)!present;
    }
    lw->cv.arena_len = apos;
    lw->nbuf++;
    lw->nrows++;
    if (lw->nbuf == ROW_BATCH || lw->sorted) flush_rows(L, lw);
}

/* Before staging a row: room for a whole batch of them, and nothing left
 * of a row that failed. */
static void ready_rows(lua_State *L, lwriter *lw)
{
    if (lw->nbuf == 0) reserve(L, lw, ROW_BATCH);
    if (LI_UNLIKELY(lw->nest)) inl_lua_nest_rollback(lw->nest);
}

/* w:row(v1, v2, ...): values in schema order, nil = null. */
static int w_row(lua_State *L)
{
    lwriter *lw = check_open(L);
    int nargs = lua_gettop(L) - 1;
    if (nargs > lw->ncols)
        inl_lua_error(L, "row %I: %d values for %d columns", (LUAI_UACINT)(lw->nrows + 1), nargs, lw->ncols);
    ready_rows(L, lw);
    uint64_t row = lw->nrows + 1;
    size_t apos = lw->cv.arena_len;
    for (int i = 0; i < lw->ncols; i++) stage_value(L, lw, i, i + 2, lua_type(L, i + 2), row, &apos);
    commit_row(L, lw, apos);
    return 0;
}

/* w:write{ name = value, ... }: absent or nil = null. */
static int w_write(lua_State *L)
{
    lwriter *lw = check_open(L);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    ready_rows(L, lw);
    uint64_t row = lw->nrows + 1;
    size_t apos = lw->cv.arena_len;
    const lschema *s = lw->schema;
    memset(lw->seen, 0, (size_t)lw->ncols);
    lua_pushnil(L);
    while (lua_next(L, 2)) {
        if (LI_UNLIKELY(lua_type(L, -2) != LUA_TSTRING))
            inl_lua_error(L, "row %I: key %s is not a column name", (LUAI_UACINT)row, luaL_tolstring(L, -2, NULL));
        size_t len;
        const char *name = lua_tolstring(L, -2, &len);
        int i = inl_lua_field_lookup(s, name, len);
        if (LI_UNLIKELY(i < 0))
            inl_lua_error(L, "column '%s' row %I: not in the schema", name, (LUAI_UACINT)row);
        stage_value(L, lw, i, -1, lua_type(L, -1), row, &apos);
        lw->seen[i] = 1;
        lua_pop(L, 1);
    }
    for (int i = 0; i < lw->ncols; i++) {
        if (lw->seen[i]) continue;
        const lfield *f = &s->fields[i];
        if (!f->optional)
            inl_lua_error(L, "column '%s' row %I: expected %s, got nil (a required field is missing)",
                     f->name, (LUAI_UACINT)row, f->type_name);
        if (LI_UNLIKELY(f->node)) inl_lua_nest_nulls(L, lw->nest, f, 1);
        else lw->cols[i].def[lw->nbuf] = 0;
    }
    commit_row(L, lw, apos);
    return 0;
}

/* write_columns' options: { units = { column = "days" | "s" | "ms" | "us" | "ns" } }
 * sets each column's from_unit1 (0 for the columns not named). */
static void columns_options(lua_State *L, lwriter *lw, int idx)
{
    for (int i = 0; i < lw->ncols; i++) lw->cols[i].from_unit1 = 0;
    if (lua_isnoneornil(L, idx)) return;
    luaL_checktype(L, idx, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        if (!key || strcmp(key, "units"))
            inl_lua_error(L, "write_columns: unknown option %s", luaL_tolstring(L, -2, NULL));
        if (!lua_istable(L, -1)) inl_lua_error(L, "write_columns: units must be a table of column = unit");
        const int units = lua_gettop(L);
        lua_pushnil(L);
        while (lua_next(L, units)) {
            size_t len;
            const char *name = lua_type(L, -2) == LUA_TSTRING ? lua_tolstring(L, -2, &len) : NULL;
            int i = name ? inl_lua_field_lookup(lw->schema, name, len) : -1;
            if (i < 0) inl_lua_error(L, "write_columns: units: %s is not a column", luaL_tolstring(L, -2, NULL));
            const lfield *f = &lw->schema->fields[i];
            if (!f->time_unit1)
                inl_lua_error(L, "column '%s': units apply to date, time and timestamp columns, not %s", f->name,
                         f->type_name);
            const char *u = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
            int which = -1;
            for (int k = 0; inl_lua_unit_names[k]; k++)
                if (!strcmp(u, inl_lua_unit_names[k])) which = k;
            if (which < 0)
                inl_lua_error(L, "column '%s': unknown unit %s (days, s, ms, us or ns)", f->name,
                         luaL_tolstring(L, -1, NULL));
            lw->cols[i].from_unit1 = which + 1 == f->time_unit1 ? 0 : which + 1;
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
}

/* w:write_columns(cols [, n [, opts]]) */
static int w_write_columns(lua_State *L)
{
    lwriter *lw = check_open(L);
    luaL_checktype(L, 2, LUA_TTABLE);
    const lschema *s = lw->schema;
    lua_settop(L, 4);
    /* every key must name a column, every value be a table */
    int first = -1;
    lua_pushnil(L);
    while (lua_next(L, 2)) {
        size_t len;
        const char *name = lua_type(L, -2) == LUA_TSTRING ? lua_tolstring(L, -2, &len) : NULL;
        int i = name ? inl_lua_field_lookup(s, name, len) : -1;
        if (i < 0) {
            if (!name) inl_lua_error(L, "write_columns: key %s is not a column name", luaL_tolstring(L, -2, NULL));
            inl_lua_error(L, "column '%s': not in the schema", name);
        }
        if (!lua_istable(L, -1))
            inl_lua_error(L, "column '%s': expected an array, got %s", name, luaL_typename(L, -1));
        if (first < 0 || i < first) first = i;
        lua_pop(L, 1);
    }
    lua_Integer n;
    if (lua_isnoneornil(L, 3)) {
        n = 0;
        if (first >= 0) {
            lua_pushlstring(L, s->fields[first].name, s->fields[first].name_len);
            lua_rawget(L, 2);
            if (LI_UNLIKELY(s->fields[first].node)) n = inl_lua_nest_column_rows(L, -1);
            else n = (lua_Integer)lua_rawlen(L, -1);
            lua_pop(L, 1);
        }
    } else {
        int ok;
        n = lua_tointegerx(L, 3, &ok);
        if (!ok || n < 0 || n > INT32_MAX) luaL_argerror(L, 3, "expected a row count in 0..2147483647");
    }
    columns_options(L, lw, 4);
    if (n == 0) return 0;
    flush_rows(L, lw);   /* the staged rows come first, and the scratch is needed */
    reserve(L, lw, (size_t)n);
    if (LI_UNLIKELY(lw->nest)) inl_lua_nest_reset(lw->nest);
    luaL_checkstack(L, LI_STACK_RUN + 8, "write_columns");
    for (int i = 0; i < lw->ncols; i++) {
        const lfield *f = &s->fields[i];
        bool nulls;
        lua_pushlstring(L, f->name, f->name_len);
        if (lua_rawget(L, 2) == LUA_TNIL) {
            if (!f->optional) inl_lua_error(L, "column '%s': missing from the batch (it is required)", f->name);
            if (LI_UNLIKELY(f->node)) {
                inl_lua_nest_nulls(L, lw->nest, f, (size_t)n);
                lua_pop(L, 1);
                continue;
            }
            memset(lw->cols[i].def, 0, (size_t)n * sizeof(int16_t));
            nulls = true;
        } else if (LI_UNLIKELY(f->node)) {
            inl_lua_nest_column(L, lw->nest, &lw->cv, f, lua_gettop(L), (size_t)n, 0);
            lua_pop(L, 1);
            continue;
        } else if (lw->cols[i].from_unit1) {
            nulls = inl_lua_convert_time_column(L, &lw->cv, f, &lw->cols[i], lua_gettop(L), (size_t)n);
        } else {
            nulls = inl_lua_convert_column(L, &lw->cv, f, &lw->cols[i], lua_gettop(L), (size_t)n);
        }
        lua_pop(L, 1);
        stage(lw, i, (size_t)n, nulls);
    }
    append_staged(L, lw, lw->nrows, (size_t)n);
    lw->nrows += (uint64_t)n;
    return 0;
}

/* A writer or a dataset, for pipelines. */
static lwriter *any_writer(lua_State *L, int idx)
{
    lwriter *lw = luaL_testudata(L, idx, LI_DATASET);
    return lw ? lw : luaL_checkudata(L, idx, LI_WRITER);
}

/* For pipelines (lsource.c): see lwriter.h. */
void inl_lua_writer_append_batch(lua_State *L, int widx, int arrays, size_t n, const inlay_column_batch *ext,
                                 const inlay_array *const *ext_nested, const int *from_unit1, uint64_t first_row)
{
    arrays = lua_absindex(L, arrays);
    lwriter *lw = any_writer(L, widx);
    if (LI_UNLIKELY(lw->state != WS_OPEN))
        inl_lua_error(L, "the %s is %s", lw->ops ? lw->ops->kind : "writer", lw->state == WS_CLOSED ? "closed" : "aborted");
    if (n == 0) return;
    if (n > INT32_MAX) inl_lua_error(L, "a batch of more than %d rows", INT32_MAX);
    flush_rows(L, lw);
    reserve(L, lw, n);
    if (LI_UNLIKELY(lw->nest)) inl_lua_nest_reset(lw->nest);
    luaL_checkstack(L, LI_STACK_RUN + 8, "write_source");
    for (int i = 0; i < lw->ncols; i++) {
        const lfield *f = &lw->schema->fields[i];
        lw->cols[i].from_unit1 = from_unit1 && f->time_unit1 && from_unit1[i] != f->time_unit1 ? from_unit1[i] : 0;
        if (LI_UNLIKELY(f->node)) {   /* nested: from Lua values, or a reader's array */
            if (ext_nested && ext_nested[i]) continue;
            lua_pushlstring(L, f->name, f->name_len);
            if (lua_rawget(L, arrays) == LUA_TTABLE) {
                inl_lua_nest_column(L, lw->nest, &lw->cv, f, lua_gettop(L), n, first_row);
            } else {
                if (!f->optional) inl_lua_error(L, "column '%s': no values for it (it is required)", f->name);
                inl_lua_nest_nulls(L, lw->nest, f, n);
            }
            lua_pop(L, 1);
            continue;
        }
        if (ext && ext[i].values) {
            lw->batches[f->slot] = ext[i];
            lw->batches[f->slot].column = f->column;
            lw->batches[f->slot].count = n;
            continue;
        }
        bool nulls;
        lua_pushlstring(L, f->name, f->name_len);
        if (lua_rawget(L, arrays) == LUA_TTABLE) {
            nulls = lw->cols[i].from_unit1 ? inl_lua_convert_time_column(L, &lw->cv, f, &lw->cols[i], lua_gettop(L), n)
                                           : inl_lua_convert_column(L, &lw->cv, f, &lw->cols[i], lua_gettop(L), n);
        } else {
            if (!f->optional) inl_lua_error(L, "column '%s': no values for it (it is required)", f->name);
            memset(lw->cols[i].def, 0, n * sizeof(int16_t));
            nulls = true;
        }
        lua_pop(L, 1);
        stage(lw, i, n, nulls);
    }
    /* rows in messages are the pipeline's: first_row + 1 for the batch's first */
    check_flat_text(L, lw, n, first_row, ext);
    if (LI_UNLIKELY(append_sort_field(lw, n, NULL, ext_nested) != INLAY_OK)) append_failed(L, lw, lw->nrows - first_row);
    int st = target_append(lw, n, NULL, ext_nested);
    if (LI_UNLIKELY(st != INLAY_OK)) append_failed(L, lw, lw->nrows - first_row);
    if (LI_UNLIKELY(lw->nest)) append_nested(L, lw, n, NULL, ext_nested);
    lw->nrows += (uint64_t)n;
}

/* The writer's schema userdata (for matching a pipeline's columns). */
const lschema *inl_lua_writer_schema(lua_State *L, int widx)
{
    lwriter *lw = any_writer(L, widx);
    return lw->schema;
}

/* ---- opening ----------------------------------------------------------------------- */

static size_t opt_size(lua_State *L, const char *key, bool zero_ok)
{
    int ok;
    lua_Integer v = lua_tointegerx(L, -1, &ok);
    if (!ok || v < (zero_ok ? 0 : 1))
        inl_lua_error(L, "option '%s' must be an integer >= %d, got %s", key, zero_ok ? 0 : 1,
                 luaL_tolstring(L, -1, NULL));
    return (size_t)v;
}

/* The metadata table: string keys, string (or number) values. Leaves the
 * kv array (a userdata) and a table keeping converted values on the stack. */
static void opt_metadata(lua_State *L, inlay_options *o)
{
    int meta = lua_gettop(L);
    if (!lua_istable(L, meta)) inl_lua_error(L, "option 'metadata' must be a table, got %s", luaL_typename(L, meta));
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, meta)) {
        n++;
        lua_pop(L, 1);
    }
    inlay_kv *kv = lua_newuserdatauv(L, (n ? n : 1) * sizeof *kv, 1);
    lua_createtable(L, 0, 0);
    lua_setiuservalue(L, -2, 1);
    size_t i = 0;
    lua_pushnil(L);
    while (lua_next(L, meta)) {
        if (lua_type(L, -2) != LUA_TSTRING)
            inl_lua_error(L, "metadata keys must be strings, got %s", luaL_typename(L, -2));
        int vt = lua_type(L, -1);
        if (vt != LUA_TSTRING && vt != LUA_TNUMBER)
            inl_lua_error(L, "metadata value for '%s' must be a string, got %s", lua_tostring(L, -2),
                     luaL_typename(L, -1));
        kv[i].key = lua_tostring(L, -2);
        if (vt == LUA_TNUMBER) {   /* keep the converted text alive in the user value */
            lua_getiuservalue(L, meta + 1, 1);
            lua_pushvalue(L, -2);
            kv[i].value = lua_tostring(L, -1);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
            lua_pop(L, 1);
        } else {
            kv[i].value = lua_tostring(L, -1);
        }
        i++;
        lua_pop(L, 1);
    }
    o->metadata = kv;
    o->metadata_count = n;
}

static bool opt_bool(lua_State *L, const char *key)
{
    if (!lua_isboolean(L, -1)) inl_lua_error(L, "option '%s' must be a boolean, got %s", key, luaL_typename(L, -1));
    return lua_toboolean(L, -1);
}

/* Whether the leaf with Parquet path `name` is under n (a nested field's
 * tree); *in_repeated says whether a list or map lies on the way to it. */
static bool find_leaf(const lnode *n, const char *name, bool repeated, bool *in_repeated)
{
    if (n->kind == N_LEAF) {
        if (strcmp(n->ppath, name)) return false;
        *in_repeated = repeated;
        return true;
    }
    repeated = repeated || n->kind == N_LIST || n->kind == N_MAP;
    for (int i = 0; i < n->nchildren; i++)
        if (find_leaf(n->children[i], name, repeated, in_repeated)) return true;
    return false;
}

/* Pushes the Parquet path of n's first leaf. */
static void push_first_leaf(lua_State *L, const lnode *n)
{
    while (n->kind != N_LEAF) n = n->children[0];
    lua_pushstring(L, n->ppath);
}

/* A sorting column's name: a flat top-level field (returns -1), or the
 * dotted path of a leaf of a struct ("pos.x"), not inside a list or map
 * (returns its top-level field); else raises. */
static int check_sort_name(lua_State *L, const lschema *s, const char *name, size_t len)
{
    const int i = inl_lua_field_lookup(s, name, len);
    if (i >= 0 && !s->fields[i].node) return -1;
    if (i >= 0) {
        const lnode *n = s->fields[i].node;
        if (n->kind == N_STRUCT) {
            push_first_leaf(L, n);
            inl_lua_error(L, "option 'sorting_columns': '%s' is a struct: name one of its columns ('%s', ...)", name,
                          lua_tostring(L, -1));
        }
        inl_lua_error(L, "option 'sorting_columns': '%s' is a %s: rows cannot be sorted by it", name,
                      n->kind == N_LIST ? "list" : "map");
    }
    for (int k = 0; k < s->nfields; k++) {
        bool repeated = false;
        if (!s->fields[k].node || !find_leaf(s->fields[k].node, name, false, &repeated)) continue;
        if (repeated)
            inl_lua_error(L, "option 'sorting_columns': '%s' is inside a list or map: rows cannot be sorted by it",
                          name);
        return k;
    }
    inl_lua_error(L, "option 'sorting_columns': no column '%s'", name);
}

/* sorting_columns = { "id", { "ts", descending = true, nulls_first = true }, ... }
 * from the table on top of the stack: pushes the inlay_sorting_column array
 * (a userdata; the names stay the option table's strings). The keys must all
 * be flat columns or all leaves of one struct field (*field, else -1): a
 * call goes to the core as one append of the flat columns and one per
 * nested field, and only the append that completes a row's keys can refuse
 * it, so they must all be in the same one for the call to be refused whole. */
static void opt_sorting(lua_State *L, const lschema *s, inlay_options *o, int *field)
{
    const int t = lua_gettop(L);
    if (!lua_istable(L, t))
        inl_lua_error(L, "option 'sorting_columns' must be a list of column names, got %s", luaL_typename(L, t));
    const lua_Integer n = (lua_Integer)lua_rawlen(L, t);
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > n)
            inl_lua_error(L, "option 'sorting_columns': unexpected key %s (list the columns in order: "
                             "{ \"id\", { \"ts\", descending = true } })", luaL_tolstring(L, -1, NULL));
    }
    if (n > 32767) inl_lua_error(L, "option 'sorting_columns': too many columns (%I)", (LUAI_UACINT)n);
    inlay_sorting_column *sc = lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *sc, 0);
    lua_newtable(L);   /* names seen */
    for (lua_Integer i = 1; i <= n; i++) {
        inlay_sorting_column *c = &sc[i - 1];
        memset(c, 0, sizeof *c);
        const int e = lua_rawgeti(L, t, i) == LUA_TTABLE ? lua_gettop(L) : 0;
        if (e) {
            lua_pushnil(L);
            while (lua_next(L, e)) {
                const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
                const bool desc = k && !strcmp(k, "descending"), nf = k && !strcmp(k, "nulls_first");
                if (desc || nf) {
                    if (!lua_isboolean(L, -1))
                        inl_lua_error(L, "option 'sorting_columns': entry %I: %s must be a boolean, got %s",
                                      (LUAI_UACINT)i, k, luaL_typename(L, -1));
                    *(desc ? &c->descending : &c->nulls_first) = lua_toboolean(L, -1);
                } else if (!(lua_isinteger(L, -2) && lua_tointeger(L, -2) == 1)) {
                    inl_lua_error(L, "option 'sorting_columns': entry %I: unknown key %s (an entry is a name, or "
                                     "{ name, descending = bool, nulls_first = bool })",
                                  (LUAI_UACINT)i, luaL_tolstring(L, -2, NULL));
                }
                lua_pop(L, 1);
            }
            lua_rawgeti(L, e, 1);
        }
        if (lua_type(L, -1) != LUA_TSTRING)
            inl_lua_error(L, "option 'sorting_columns': entry %I: expected a column name, got %s", (LUAI_UACINT)i,
                          luaL_typename(L, -1));
        size_t len;
        c->column = lua_tolstring(L, -1, &len);   /* kept alive by the option table */
        const int k = check_sort_name(L, s, c->column, len);
        if (i == 1) *field = k;
        else if (k != *field)
            inl_lua_error(L, "option 'sorting_columns': '%s' and '%s' are %s: the columns of a sort order are all "
                             "top-level columns, or all in one struct", sc[0].column, c->column,
                          k < 0 || *field < 0 ? "a top-level column and a struct's" : "in different structs");
        const int seen = e ? e - 1 : lua_gettop(L) - 1;
        lua_pushvalue(L, -1);
        if (lua_rawget(L, seen) != LUA_TNIL)
            inl_lua_error(L, "option 'sorting_columns': column '%s' is given twice", c->column);
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
        lua_rawset(L, seen);
        if (e) lua_pop(L, 1);
    }
    lua_pop(L, 1);
    o->sorting_columns = n ? sc : NULL;
    o->sorting_columns_count = (size_t)n;
}

/* Whether k is one of the names in list (NULL-terminated; NULL: none). */
static bool in_list(const char *const *list, const char *k)
{
    for (; list && *list; list++)
        if (!strcmp(*list, k)) return true;
    return false;
}

/* ", a, b" for the names in list, pushed (for the unknown option message). */
static const char *push_names(lua_State *L, const char *const *list)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (; list && *list; list++) {
        luaL_addstring(&b, ", ");
        luaL_addstring(&b, *list);
    }
    luaL_pushresult(&b);
    return lua_tostring(L, -1);
}

/* Options from the table at idx; may leave values on the stack that must
 * stay there until the writer is open. bloom_filter is inlay.open's (see
 * with_blooms). Keys in `skip` are the caller's (a dataset's own). */
static void parse_options(lua_State *L, int idx, const lschema *s, inlay_options *o, int *sort_field,
                          const char *const *skip)
{
    if (lua_isnoneornil(L, idx)) return;
    luaL_checktype(L, idx, LUA_TTABLE);
    int spec_level = INLAY_LEVEL_DEFAULT;   /* the level in "zstd:19" */
    int level = INLAY_LEVEL_DEFAULT;        /* compression_level */
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (lua_type(L, -2) != LUA_TSTRING)
            inl_lua_error(L, "option keys must be strings, got %s", luaL_typename(L, -2));
        const char *k = lua_tostring(L, -2);
        if (!strcmp(k, "compression")) {
            if (lua_type(L, -1) != LUA_TSTRING)
                inl_lua_error(L, "option 'compression' must be a string, got %s", luaL_typename(L, -1));
            const char *why = inl_lua_codec_parse(L, lua_tostring(L, -1), &o->compression, &spec_level);
            if (why) inl_lua_error(L, "option 'compression': %s", why);
        } else if (!strcmp(k, "compression_level")) {
            int ok;
            lua_Integer v = lua_tointegerx(L, -1, &ok);
            if (lua_type(L, -1) != LUA_TNUMBER || !ok || v <= INT32_MIN || v > INT32_MAX)
                inl_lua_error(L, "option 'compression_level' must be an integer, got %s", luaL_tolstring(L, -1, NULL));
            level = (int)v;
        } else if (!strcmp(k, "min_compression_gain")) {
            const lua_Number g = lua_tonumber(L, -1);
            if (lua_type(L, -1) != LUA_TNUMBER || !(g >= 0 && g < 1))
                inl_lua_error(L, "option 'min_compression_gain' must be a number in [0, 1), got %s",
                              luaL_tolstring(L, -1, NULL));
            o->min_compression_gain = (double)g;
        } else if (!strcmp(k, "row_group_rows")) o->row_group_rows = opt_size(L, k, false);
        else if (!strcmp(k, "row_group_bytes")) o->row_group_bytes = opt_size(L, k, false);
        else if (!strcmp(k, "page_bytes")) o->page_bytes = opt_size(L, k, false);
        else if (!strcmp(k, "page_rows")) o->page_rows = opt_size(L, k, false);
        else if (!strcmp(k, "dictionary_bytes")) o->dictionary_bytes = opt_size(L, k, true);
        else if (!strcmp(k, "page_version")) {
            int ok;
            lua_Integer v = lua_tointegerx(L, -1, &ok);
            if (!ok || (v != 1 && v != 2))
                inl_lua_error(L, "option 'page_version' must be 1 or 2, got %s", luaL_tolstring(L, -1, NULL));
            o->page_version = (int)v;
        }
        else if (!strcmp(k, "threads") || !strcmp(k, "row_groups_in_flight")) {
            int ok;
            lua_Integer v = lua_tointegerx(L, -1, &ok);
            if (!ok || v < 0 || v > 64)
                inl_lua_error(L, "option '%s' must be an integer in 0..64 (0: the default), got %s", k,
                              luaL_tolstring(L, -1, NULL));
            if (k[0] == 't') o->threads = (int)v;
            else o->row_groups_in_flight = (int)v;
        }
        else if (!strcmp(k, "sync")) o->sync = opt_bool(L, k);
        else if (!strcmp(k, "statistics")) o->statistics = opt_bool(L, k);
        else if (!strcmp(k, "page_index")) o->page_index = opt_bool(L, k);
        else if (!strcmp(k, "page_checksum")) o->page_checksum = opt_bool(L, k);
        else if (!strcmp(k, "statistics_truncate_length")) o->statistics_truncate_length = opt_size(L, k, true);
        else if (!strcmp(k, "bloom_filter")) { /* done by with_blooms */ }
        else if (!strcmp(k, "sorting_columns")) {
            opt_sorting(L, s, o, sort_field);   /* pushes the array above key and value */
            lua_insert(L, -3);           /* array, key, value: it stays until open returns */
        }
        else if (!strcmp(k, "metadata")) {
            lua_pushvalue(L, -1);
            opt_metadata(L, o);          /* pushes the kv array above the copy */
            lua_replace(L, -2);          /* key, value, kv */
            lua_insert(L, -3);           /* kv, key, value: kv stays until open returns */
        } else if (!in_list(skip, k)) {
            inl_lua_error(L, "unknown option '%s' (the options are compression, compression_level, "
                        "min_compression_gain, row_group_rows, row_group_bytes, page_bytes, page_rows, "
                        "dictionary_bytes, page_version, sync, metadata, statistics, page_index, "
                        "statistics_truncate_length, page_checksum, sorting_columns, bloom_filter, threads, "
                        "row_groups_in_flight%s)", k, push_names(L, skip));
        }
        lua_pop(L, 1);
    }
    /* Whether the codec takes the level is the core's to say, at open. */
    if (spec_level != INLAY_LEVEL_DEFAULT && level != INLAY_LEVEL_DEFAULT && spec_level != level)
        inl_lua_error(L, "option 'compression' says level %d, option 'compression_level' %d", spec_level, level);
    o->compression_level = level != INLAY_LEVEL_DEFAULT ? level : spec_level;
}

/* inlay.open's bloom_filter = { "id", category = { ndv = 100 }, ... }: a
 * name in the list is bloom_filter = true, a key its field option's value.
 * Replaces the schema at sidx with one whose named top-level fields have
 * that option (so w:schema() says what was written). */
static void with_blooms(lua_State *L, int sidx, int oidx)
{
    if (!lua_istable(L, oidx)) return;
    if (lua_getfield(L, oidx, "bloom_filter") == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    const int b = lua_gettop(L);
    if (!lua_istable(L, b))
        inl_lua_error(L, "option 'bloom_filter' must be a table of field names, got %s", luaL_typename(L, b));
    lua_newtable(L);   /* name -> the field option's value */
    const int v = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, b)) {
        if (lua_isinteger(L, -2)) {
            if (lua_type(L, -1) != LUA_TSTRING)
                inl_lua_error(L, "option 'bloom_filter': expected a field name, got %s", luaL_typename(L, -1));
            lua_pushvalue(L, -1);
            lua_pushboolean(L, 1);
            lua_rawset(L, v);
        } else if (lua_type(L, -2) == LUA_TSTRING) {
            lua_pushvalue(L, -2);
            lua_pushvalue(L, -2);
            lua_rawset(L, v);
        } else {
            inl_lua_error(L, "option 'bloom_filter': unexpected %s key", luaL_typename(L, -2));
        }
        lua_pop(L, 1);
    }
    inl_lua_schema_with_option(L, sidx, "bloom_filter", v, "option 'bloom_filter'");
    lua_replace(L, sidx);
    lua_settop(L, b - 1);
}

/* The name a stream writer goes by in messages and tostring. */
static void push_stream_name(lua_State *L, const luaL_Stream *p)
{
    if (p->f == stdout) lua_pushliteral(L, "<stdout>");
    else if (p->f == stderr) lua_pushliteral(L, "<stderr>");
    else lua_pushfstring(L, "<fd %d>", fileno(p->f));
}

/* A writer on the Lua file handle at index 1: on our own duplicate of its
 * descriptor, so that the handle closed (or collected) meanwhile cannot
 * leave the writer a number the next file opened may get. What the script
 * wrote through the handle goes out first; while the writer is open the
 * script must not write to the handle, whose buffer would land in the
 * middle of the stream. */
static int open_stream(lua_State *L, int wi, lwriter *lw, luaL_Stream *p, const lschema *s,
                       const inlay_options *o)
{
    int fd = fflush(p->f) == 0 ? fileno(p->f) : -1;
    int flags = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
    if (flags >= 0 && (flags & O_ACCMODE) == O_RDONLY) {
        lua_getiuservalue(L, wi, 2);
        inl_lua_error(L, "cannot open %s: the file is not open for writing", lua_tostring(L, -1));
    }
    if (flags >= 0) fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (flags < 0 || fd < 0) {
        const int e = errno;
        lua_getiuservalue(L, wi, 2);
        inl_lua_error(L, "cannot open %s: %s", lua_tostring(L, -1), strerror(e));
    }
    lw->fd = fd;
    lw->owns_fd = true;
    lw->stream = true;
    return inlay_writer_open_fd(&lw->w, fd, s->s, o);
}

/* Pushes a closed writer userdata for schema s, with room for the totals
 * of its leaf columns after its end. */
static lwriter *new_writer(lua_State *L, const lschema *s)
{
    const size_t n = (size_t)s->ncolumns;
    lwriter *lw = lua_newuserdatauv(L, sizeof *lw + n * sizeof(inlay_column_stats), 2);
    memset(lw, 0, sizeof *lw + n * sizeof(inlay_column_stats));
    lw->state = WS_CLOSED_NEW;
    lw->sort_field = -1;
    lw->final = (inlay_column_stats *)(lw + 1);
    luaL_setmetatable(L, LI_WRITER);
    return lw;
}

/* The state's allocator for the core. The writer's workers allocate while
 * the script runs: by default only through an allocator known to take that
 * (the inlay command's and the embedding API's are); a state with an
 * allocator of its own (stock lua5.4, a host's) writes on the script's
 * thread unless the script asks for threads, our calls then serialised. */
static void use_allocator(const lwriter *lw, inlay_options *o)
{
    o->alloc = lw->cv.alloc;
    if (!inl_lua_alloc_thread_safe((void *)lw->cv.alloc.fn)) {
        if (o->threads == 0) o->threads = 1;
        o->serialize_alloc = true;
    }
}

/* inlay.open(path or file, schema, opts) -> writer */
static int writer_open(lua_State *L)
{
    luaL_Stream *stream = luaL_testudata(L, 1, LUA_FILEHANDLE);
    const char *path = NULL;
    if (!stream) {
        if (!lua_isstring(L, 1)) luaL_typeerror(L, 1, "path or file");
        path = lua_tostring(L, 1);
    } else if (!stream->closef) {
        luaL_argerror(L, 1, "attempt to use a closed file");
    }
    if (lua_istable(L, 2)) {   /* a schema given as its table */
        lua_pushcfunction(L, inl_lua_schema_new);
        lua_pushvalue(L, 2);
        lua_call(L, 1, 1);
        lua_replace(L, 2);
    }
    inl_lua_check_schema(L, 2);
    lua_settop(L, 3);
    with_blooms(L, 2, 3);
    lschema *s = inl_lua_check_schema(L, 2);
    inlay_options o;
    inlay_options_init(&o);
    int sort_field = -1;
    parse_options(L, 3, s, &o, &sort_field, NULL);

    lwriter *lw = new_writer(L, s);
    int wi = lua_gettop(L);
    lua_pushvalue(L, 2);
    lua_setiuservalue(L, wi, 1);
    if (stream) push_stream_name(L, stream);
    else lua_pushvalue(L, 1);
    lua_setiuservalue(L, wi, 2);
    lw->schema = s;
    lw->ncols = s->nfields;
    lw->nflat = s->nflat;
    lw->sorted = o.sorting_columns_count > 0;
    lw->sort_field = sort_field;
    inl_lua_conv_init(&lw->cv, L);
    if (!alloc_scratch(lw)) inl_lua_error(L, "out of memory");
    use_allocator(lw, &o);
    /* From the file's creation until the hook has its path, a signal would
     * find it unlisted: the host holds its signals over that stretch. */
    if (!stream) temp_hold(true);
    int st = stream ? open_stream(L, wi, lw, stream, s, &o) : inlay_writer_open_file(&lw->w, path, s->s, &o);
    if (st != INLAY_OK) {
        if (!stream) temp_hold(false);
        lua_pushstring(L, lw->w ? inlay_writer_errmsg(lw->w) : inlay_strerror(st));
        writer_abort(lw);
        lw->state = WS_ABORTED;
        lua_getiuservalue(L, wi, 2);
        inl_lua_fail(L, st, stream ? "cannot open %s: %s" : "cannot open '%s': %s", lua_tostring(L, -1),
                     lua_tostring(L, -2));
    }
    lw->state = WS_OPEN;
    const char *tmp = inlay_writer_temp_path(lw->w);
    if (tmp && inl_lua_temp_hook) {
        const size_t n = strlen(tmp) + 1;
        lw->hooked = inl_lua_resize(&lw->cv, NULL, 0, n);
        if (!lw->hooked) {
            writer_abort(lw);
            temp_hold(false);
            inl_lua_error(L, "out of memory");
        }
        memcpy(lw->hooked, tmp, n);
        inl_lua_temp_hook(tmp, 1);
    }
    if (!stream) temp_hold(false);
    lua_settop(L, wi);
    return 1;
}

/* ---- other targets (ldataset.c) ----------------------------------------------------- */

lschema *inl_lua_writer_options(lua_State *L, int sidx, int oidx, inlay_options *o, const char *const *skip)
{
    if (lua_istable(L, sidx)) {   /* a schema given as its table */
        lua_pushcfunction(L, inl_lua_schema_new);
        lua_pushvalue(L, sidx);
        lua_call(L, 1, 1);
        lua_replace(L, sidx);
    }
    inl_lua_check_schema(L, sidx);
    with_blooms(L, sidx, oidx);
    lschema *s = inl_lua_check_schema(L, sidx);
    int sort_field = -1;
    parse_options(L, oidx, s, o, &sort_field, skip);
    return s;
}

lschema *inl_lua_writer_new_target(lua_State *L, int sidx, int name_idx, const char *mt, inlay_options *o)
{
    sidx = lua_absindex(L, sidx);
    name_idx = lua_absindex(L, name_idx);
    lschema *s = inl_lua_check_schema(L, sidx);
    lwriter *lw = new_writer(L, s);
    luaL_setmetatable(L, mt);
    const int wi = lua_gettop(L);
    lua_pushvalue(L, sidx);
    lua_setiuservalue(L, wi, 1);
    lua_pushvalue(L, name_idx);
    lua_setiuservalue(L, wi, 2);
    lw->schema = s;
    lw->ncols = s->nfields;
    lw->nflat = s->nflat;
    lw->sorted = o->sorting_columns_count > 0;
    inl_lua_conv_init(&lw->cv, L);
    if (!alloc_scratch(lw)) inl_lua_error(L, "out of memory");
    use_allocator(lw, o);
    return s;
}

void inl_lua_writer_attach(lua_State *L, int idx, void *t, const inl_lua_target *ops)
{
    lwriter *lw = luaL_checkudata(L, idx, LI_DATASET);
    lw->t = t;
    lw->ops = ops;
    lw->state = WS_OPEN;
    if (!lw->nest) return;
    const int cap = lw->schema->ncolumns;
    const int st = inlay_shredder_create(&lw->shredder, lw->schema->s, &lw->cv.alloc);
    if (st != INLAY_OK) inl_lua_fail(L, st, "%s", inlay_shredder_errmsg(lw->shredder));   /* at GC: the dataset aborted */
    if (!(lw->all = inl_lua_resize(&lw->cv, NULL, 0, (size_t)cap * sizeof *lw->all))) inl_lua_error(L, "out of memory");
    lw->all_cap = cap;
}

void inl_lua_writer_borrow(lua_State *L, inlay_writer *w, int schema_idx)
{
    schema_idx = lua_absindex(L, schema_idx);
    lschema *s = inl_lua_check_schema(L, schema_idx);
    lwriter *lw = new_writer(L, s);
    const int wi = lua_gettop(L);
    lua_pushvalue(L, schema_idx);
    lua_setiuservalue(L, wi, 1);
    lua_pushliteral(L, "<the host's writer>");
    lua_setiuservalue(L, wi, 2);
    lw->schema = s;
    lw->ncols = s->nfields;
    lw->nflat = s->nflat;
    inl_lua_conv_init(&lw->cv, L);
    if (!alloc_scratch(lw)) {
        free_scratch(lw);
        inl_lua_error(L, "out of memory");
    }
    lw->w = w;
    lw->borrowed = true;
    lw->state = WS_OPEN;
}

void inl_lua_writer_unborrow(lua_State *L, int idx)
{
    lwriter *lw = luaL_checkudata(L, idx, LI_WRITER);
    if (!lw->borrowed) return;
    writer_abort(lw);   /* lets go of the host's writer without touching it */
    lw->state = WS_CLOSED;
}

/* inlay.compressions() -> { "uncompressed", "snappy", ... }: the codecs
 * this build writes, by the names inlay.open takes. */
static int m_compressions(lua_State *L)
{
    const inlay_compression *all;
    const int n = inl_lua_codecs(&all);
    lua_createtable(L, n, 0);
    lua_Integer k = 0;
    for (int i = 0; i < n; i++) {
        if (!inlay_compression_supported(all[i])) continue;
        inl_lua_push_codec_name(L, all[i]);
        lua_rawseti(L, -2, ++k);
    }
    return 1;
}

/* inlay.compression_levels(name) -> lo, hi, default; nothing for a codec
 * without levels. An unknown name, or a codec not built in, raises. */
static int m_compression_levels(lua_State *L)
{
    inlay_compression c;
    int level, lo, hi, dflt;
    const char *why = inl_lua_codec_parse(L, luaL_checkstring(L, 1), &c, &level);
    if (why) inl_lua_error(L, "%s", why);
    if (!inlay_compression_levels(c, &lo, &hi, &dflt)) return 0;
    lua_pushinteger(L, lo);
    lua_pushinteger(L, hi);
    lua_pushinteger(L, dflt);
    return 3;
}

static void new_metatable(lua_State *L, const char *name, const luaL_Reg *meta, const luaL_Reg *methods)
{
    luaL_newmetatable(L, name);
    lua_pushvalue(L, -1);
    luaL_setfuncs(L, meta, 1);          /* the metatable is their upvalue (see to_writer) */
    lua_newtable(L);
    lua_pushvalue(L, -2);
    luaL_setfuncs(L, methods, 1);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}

void inl_lua_open_writer(lua_State *L)
{
    static const luaL_Reg meta[] = {
        { "__gc", w_gc },
        { "__close", w_tbc_close },
        { "__tostring", w_tostring },
        { NULL, NULL },
    };
    static const luaL_Reg methods[] = {
        { "write", w_write },
        { "row", w_row },
        { "write_columns", w_write_columns },
        { "close", w_close },
        { "flush", w_flush },
        { "abort", w_abort },
        { "info", w_info },
        { "schema", w_schema },
        { NULL, NULL },
    };
    static const luaL_Reg dataset_methods[] = {   /* a dataset's row groups are its files' affair */
        { "write", w_write },
        { "row", w_row },
        { "write_columns", w_write_columns },
        { "close", w_close },
        { "abort", w_abort },
        { "info", w_info },
        { "schema", w_schema },
        { NULL, NULL },
    };
    new_metatable(L, LI_WRITER, meta, methods);
    new_metatable(L, LI_DATASET, meta, dataset_methods);
    lua_pushcfunction(L, writer_open);
    lua_setfield(L, -2, "open");
    lua_pushcfunction(L, m_compressions);
    lua_setfield(L, -2, "compressions");
    lua_pushcfunction(L, m_compression_levels);
    lua_setfield(L, -2, "compression_levels");
}
