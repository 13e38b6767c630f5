/*
 * lwriter.h — the "inlay.writer" userdata: an inlay_writer plus the
 * scratch Lua values are converted into before one
 * inlay_writer_append_columns() call (see lwriter.c).
 */
#ifndef LWRITER_H
#define LWRITER_H

#include "lschema.h"

#define LI_WRITER "inlay.writer"
/* The same userdata over a dataset (ldataset.c): write, row,
 * write_columns, close, abort, info and schema, as a writer has them. */
#define LI_DATASET "inlay.dataset"

/* Registers the writer metatable and sets `open`, `compressions` and
 * `compression_levels` in the module table on top of the stack. */
void inl_lua_open_writer(lua_State *L);

/* For pipelines (lsource.c): one append of n rows to the writer at index
 * widx whose columns come from C arrays (ext[i].values set: passed through
 * as they are; ext_nested[i] set, for a nested field: a reader's array,
 * appended as it is; ext_nested may be NULL) or from Lua arrays in the
 * table at index `arrays`, keyed by column name; a column in none is all
 * null. from_unit1[i] (NULL: none) is the inlay_unit + 1 in which a date,
 * time or timestamp column's Lua integers are given, when it is not the
 * column's own. The row in messages is first_row + the index in the
 * batch. */
void inl_lua_writer_append_batch(lua_State *L, int widx, int arrays, size_t n, const inlay_column_batch *ext,
                                 const inlay_array *const *ext_nested, const int *from_unit1, uint64_t first_row);
/* The schema of the writer at widx. */
const lschema *inl_lua_writer_schema(lua_State *L, int widx);

/* Pushes a writer userdata over a host program's open writer w, whose
 * schema the (flat) schema userdata at schema_idx describes: Lua values
 * are converted and appended to w as to any writer, but close, abort and
 * __gc never close or free it. inl_lua_writer_unborrow lets go of it (before
 * the host frees it); the userdata is then closed. */
void inl_lua_writer_borrow(lua_State *L, inlay_writer *w, int schema_idx);
void inl_lua_writer_unborrow(lua_State *L, int idx);

/* When set, called with live = 1 once a writer that inlay.open opened on a
 * path has its temporary file (tmp_path, as inlay_writer_temp_path says it),
 * and with live = 0 and the same path just before that temporary goes
 * (close, abort, garbage collection, the state closing). tmp_path is valid
 * during the call only: copy it. Process-wide and NULL by default, as it
 * stays in a module loaded into a stock lua5.4; the inlay command sets it,
 * so that its signal handler can remove the temporaries of the writers
 * still open. Writers on streams have no temporary and are not reported. */
/* A target other than a file's writer, for the writer userdata (ldataset.c
 * gives a dataset's). The userdata calls destroy when it is aborted or
 * collected, also after a successful close (which keeps t for info). */
typedef struct inl_lua_target {
    const char *kind;        /* "dataset": in messages and tostring */
    const char *name_key;    /* the info() field of the name given at open: "root" */
    int (*append)(void *t, const inlay_column_batch *b, int n);
    int (*close)(void *t);
    void (*destroy)(void *t);
    int (*status)(const void *t);
    const char *(*errmsg)(const void *t);
    void (*error_info)(const void *t, inlay_error_info *e);
    void (*push_info)(lua_State *L, const void *t, int ud);   /* pushes info()'s table; ud: the userdata */
} inl_lua_target;

/* inlay.open's schema and options for another target: the schema at sidx
 * (a table there is made a schema, which replaces it; bloom_filter too gives
 * a new one) and the file options in the table at oidx (none: the defaults
 * already in o). Keys in `skip` (NULL-terminated) are left to the caller,
 * and listed in the message for an unknown key. May leave values on the
 * stack that must stay there until the target is open. */
lschema *inl_lua_writer_options(lua_State *L, int sidx, int oidx, inlay_options *o, const char *const *skip);

/* Pushes a closed writer userdata with metatable mt for the schema at sidx,
 * named by the string at name_idx, and sets o's allocator (the state's,
 * with inlay.open's rule for threads). Raises when out of memory. */
lschema *inl_lua_writer_new_target(lua_State *L, int sidx, int name_idx, const char *mt, inlay_options *o);
/* The userdata at idx, made by inl_lua_writer_new_target, is open on t. */
void inl_lua_writer_attach(lua_State *L, int idx, void *t, const inl_lua_target *ops);

/* For a host whose signal handler removes the temporaries of file writers
 * (the inlay command). temp_hook(path, 1) gives it a temporary's path once
 * the file exists, temp_hook(path, 0) once the file is gone (renamed into
 * place or removed); in between, the handler may unlink the path. The
 * writer calls temp_hold(1) before it creates the file and temp_hold(0)
 * once the hook has the path: a signal in that stretch would find the file
 * unlisted, so the host blocks its signals there (the library's own
 * threads never take them). Either may be NULL. */
extern void (*inl_lua_temp_hook)(const char *tmp_path, int live);
extern void (*inl_lua_temp_hold)(int hold);

#endif
