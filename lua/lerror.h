/*
 * lerror.h — the leaf of the Lua binding: how it raises errors, and
 * inlay.null, the value that stands for a null where nil cannot (inside a
 * list, or to say "null" explicitly). Every other file of the binding
 * includes this one; it includes nothing of theirs.
 *
 * The binding sees the core only through inlay.h.
 */
#ifndef LERROR_H
#define LERROR_H

#include <inlay.h>
#include <lauxlib.h>
#include <lua.h>

#if defined(__GNUC__)
#define LI_LIKELY(x) __builtin_expect(!!(x), 1)
#define LI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define LI_NOINLINE __attribute__((noinline))
#define LI_NORETURN __attribute__((noreturn))
#else
#define LI_LIKELY(x) (x)
#define LI_UNLIKELY(x) (x)
#define LI_NOINLINE
#define LI_NORETURN
#endif

/* Raises "inlay: " .. the formatted message (lua_pushfstring's formats). */
LI_NORETURN void inl_lua_error(lua_State *L, const char *fmt, ...);

/* The same for a failure the library reported with `status` (INLAY_ERR_*):
 * the status is kept in the state's registry, where the inlay command reads
 * it to choose its exit status (an I/O failure is not bad data). Errors stay
 * strings, so scripts see no difference. */
LI_NORETURN void inl_lua_fail(lua_State *L, int status, const char *fmt, ...);
/* The status of the last inl_lua_fail in this state (INLAY_OK after
 * inl_lua_clear_status or when there was none). */
int inl_lua_last_status(lua_State *L);
void inl_lua_clear_status(lua_State *L);

/* Pushes inlay.null, creating it on first use. */
void inl_lua_push_null(lua_State *L);
/* Its identity, for comparing a userdata against it. */
const void *inl_lua_null_pointer(lua_State *L);

/* Sets `null` in the module table on top of the stack. */
void inl_lua_open_null(lua_State *L);

#endif
