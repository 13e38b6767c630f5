/*
 * ldataset.h — inlay.dataset: the writer userdata of lwriter.c over an
 * inlay_dataset (see ldataset.c).
 */
#ifndef LDATASET_H
#define LDATASET_H

#include "lwriter.h"

/* Sets `dataset` in the module table on top of the stack. */
void inl_lua_open_dataset(lua_State *L);

#endif
