/*
 * lembed.h — limits on what a script may spend: a memory limit enforced by
 * the state's allocator and an instruction budget enforced by a count
 * hook. The embedding API (lembed.c, inlay_lua.h) and the inlay command's
 * --max-memory and --max-instructions use them.
 */
#ifndef LEMBED_H
#define LEMBED_H

#include <stdbool.h>
#include <stdint.h>

#include "lerror.h"

typedef struct inl_lua_budget {
    inlay_allocator base;        /* where the memory comes from */
    size_t max_memory;           /* 0: no limit */
    size_t used;                 /* bytes the state holds */
    uint64_t max_instructions;   /* 0: no limit */
    uint64_t spent;              /* instructions since inl_lua_budget_start, in hook steps */
    bool over;                   /* the budget ran out: every instruction raises until inl_lua_budget_start */
} inl_lua_budget;

/* A lua_Alloc whose ud is the inl_lua_budget: refuses a block that would take
 * the state past max_memory (Lua then raises "not enough memory"). Its calls
 * are serialised (one lock for every budget), so that the writer's worker
 * threads and a source's parsing thread may allocate through it while the
 * script runs, and base need not be thread-safe. */
void *inl_lua_budget_alloc(void *ud, void *ptr, size_t osize, size_t nsize);


/* The count of a new run starts at 0; the hook is set when there is an
 * instruction budget. L must have been created with inl_lua_budget_alloc. */
void inl_lua_budget_start(lua_State *L, inl_lua_budget *b);
/* The hook off again. */
void inl_lua_budget_stop(lua_State *L, inl_lua_budget *b);

#endif
