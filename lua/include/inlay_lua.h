/*
 * inlay_lua.h — running users' Lua scripts inside a host program: a Lua 5.4
 * runtime with the inlay module, on the host's allocator, under a memory
 * limit and an instruction budget, calling a script's function on each
 * batch of columns the host holds and writing what it returns.
 *
 *     inlay_lua_options o;
 *     inlay_lua_options_init(&o);
 *     o.max_memory = 64 << 20;              // the state, and the scratch of its conversions
 *     o.max_instructions = 50000000;        // per call into Lua
 *     inlay_lua *rt;
 *     if (inlay_lua_create(&rt, &o) != INLAY_OK) ...
 *     if (inlay_lua_load_file(rt, "schemas/telemetry_transform.lua") != INLAY_OK)
 *         puts(inlay_lua_errmsg(rt));
 *
 *     inlay_lua_transform *t;               // fn(batch) for batches of `schema`, into writer w
 *     inlay_lua_transform_open(&t, rt, "enrich", schema, w);
 *     for each frame:
 *         inlay_lua_transform_run(t, batches, ncolumns, rows);   // on error: the message, and go on
 *     inlay_lua_transform_free(t);
 *     inlay_lua_free(rt);
 *
 * The function a transform calls gets the batch as map_batch does (see
 * lua/README.md): batch.n rows; batch.name, the column as a Lua array,
 * made only when the script reads it; assigning batch.name sets or adds a
 * column; batch:filter(mask) keeps rows; returning false drops the batch.
 * Columns the script leaves alone go from the host's arrays to the writer
 * as they are, never boxed as Lua values.
 *
 * A script that runs past its budget or its memory ends with an error
 * ("inlay: instruction budget of N exceeded", "not enough memory"): the
 * call returns INLAY_ERR_STATE, nothing of that batch reaches the writer,
 * and the runtime takes the next call. One runtime is used by one thread at
 * a time; runtimes are independent.
 *
 * Link: libinlay_lua with libinlay and Lua 5.4.
 */
#ifndef INLAY_LUA_H
#define INLAY_LUA_H

#include <inlay.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lua_State lua_State;

typedef struct inlay_lua inlay_lua;

typedef struct inlay_lua_options {
    unsigned struct_size;          /* set by inlay_lua_options_init */
    inlay_allocator alloc;         /* fn NULL = malloc/realloc/free. Called under a lock of the
                                      runtime's: scripts' writers allocate from their worker threads
                                      too, so calls may come from several threads, one at a time */
    size_t max_memory;             /* bytes the state may hold at once; 0 = no limit */
    uint64_t max_instructions;     /* Lua VM instructions per call (load, transform run); 0 = no limit */
} inlay_lua_options;

INLAY_API void inlay_lua_options_init(inlay_lua_options *o);

/* A new runtime: a Lua state with the standard libraries and inlay
 * (require "inlay", and the global `inlay`). Returns INLAY_OK,
 * INLAY_ERR_ARGUMENT (options not initialised) or INLAY_ERR_NOMEM (*out is
 * then NULL). */
INLAY_API int inlay_lua_create(inlay_lua **out, const inlay_lua_options *o);

/* Runs a chunk: a file, or len bytes of code named `name` in messages. Its
 * globals (the functions it defines) stay for later calls. INLAY_OK, or
 * INLAY_ERR_VALUE for a syntax error, INLAY_ERR_STATE for an error while it
 * ran (the budget and memory limit apply): inlay_lua_errmsg says which. */
INLAY_API int inlay_lua_load_file(inlay_lua *rt, const char *path);
INLAY_API int inlay_lua_load_string(inlay_lua *rt, const char *code, size_t len, const char *name);

/* The message of the last failed call (with the script's file and line
 * where it has one), or "". Owned by the runtime, valid until its next
 * call. */
INLAY_API const char *inlay_lua_errmsg(const inlay_lua *rt);

/* The Lua state, for hosts that register functions of their own. The
 * runtime owns it. */
INLAY_API lua_State *inlay_lua_state(inlay_lua *rt);

/* Frees the runtime and everything of it; NULL accepted. Transforms of the
 * runtime must be freed first. */
INLAY_API void inlay_lua_free(inlay_lua *rt);

typedef struct inlay_lua_transform inlay_lua_transform;

/* The global function `function` of the runtime, called on batches of the
 * flat schema `input`, whose result goes to the host's open writer w: the
 * batch's columns are matched to w's by name (a column the script adds
 * must be in w's schema; one of w's columns that the batch lacks is null,
 * or an error when it is required). The schema is copied; w stays the
 * host's, who must keep it open while the transform is used and free the
 * transform before closing it. INLAY_ERR_ARGUMENT (no such function,
 * nested fields in a schema), INLAY_ERR_NOMEM, with the message. */
INLAY_API int inlay_lua_transform_open(inlay_lua_transform **out, inlay_lua *rt, const char *function,
                                       const inlay_schema *input, inlay_writer *w);

/* One batch: batches[i] for column i of the input schema (batches[i].column
 * == i), rows rows each, in the types the append calls take, read during
 * the call only. INLAY_OK; INLAY_ERR_STATE when the script failed or ran
 * past its budget or memory (the writer has none of this batch's rows, and
 * the next run can go on); the writer's own status when appending failed
 * (an environment failure of the writer is sticky). The message is
 * inlay_lua_errmsg's. */
INLAY_API int inlay_lua_transform_run(inlay_lua_transform *t, const inlay_column_batch *batches, int ncolumns,
                                      size_t rows);

/* NULL accepted. */
INLAY_API void inlay_lua_transform_free(inlay_lua_transform *t);

#ifdef __cplusplus
}
#endif
#endif /* INLAY_LUA_H */
