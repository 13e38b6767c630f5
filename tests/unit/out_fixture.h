/*
 * out_fixture.h — the fixture of the encoder suites: one output buffer,
 * emptied before each test and freed after it, and the default allocator.
 * Register setup/teardown with tcase_add_checked_fixture.
 */
#ifndef OUT_FIXTURE_H
#define OUT_FIXTURE_H

#include <string.h>

#include "alloc.h"

static buf out;
static inlay_allocator alloc;

static void setup(void)
{
    memset(&out, 0, sizeof out);
    alloc = inl_mem_default();
}

static void teardown(void)
{
    inl_buf_free(&out, &alloc);
}

#endif
