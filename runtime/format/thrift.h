/*
 * thrift.h — a minimal thrift compact-protocol encoder for the Parquet footer
 * and page headers.
 *
 * Only writing is needed. Field headers carry the delta from the previous
 * field id of the same struct (one nibble when 1..15), so the encoder keeps a
 * stack of "last field id" per open struct. Allocation failures are sticky in
 * `err`; callers check it once after building a whole structure.
 */
#ifndef INLAY_THRIFT_H
#define INLAY_THRIFT_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc.h"

enum {
    TC_BOOL_TRUE = 1, TC_BOOL_FALSE = 2, TC_BYTE = 3, TC_I16 = 4, TC_I32 = 5,
    TC_I64 = 6, TC_DOUBLE = 7, TC_BINARY = 8, TC_LIST = 9, TC_SET = 10,
    TC_MAP = 11, TC_STRUCT = 12,
};

#define TC_MAX_DEPTH 32

typedef struct tc {
    buf *out;
    const inlay_allocator *alloc;
    int16_t last[TC_MAX_DEPTH];
    int depth;
    int err;
} tc;

/* Start encoding into out (appending). The outermost struct is open. */
void inl_tc_init(tc *t, buf *out, const inlay_allocator *a);

void inl_tc_field_i16(tc *t, int16_t id, int16_t v);
void inl_tc_field_i32(tc *t, int16_t id, int32_t v);
void inl_tc_field_i64(tc *t, int16_t id, int64_t v);
void inl_tc_field_byte(tc *t, int16_t id, int8_t v);
void inl_tc_field_bool(tc *t, int16_t id, bool v);
void inl_tc_field_binary(tc *t, int16_t id, const void *p, size_t n);
void inl_tc_field_string(tc *t, int16_t id, const char *s);
/* Open a struct-valued field; close it with inl_tc_struct_end. */
void inl_tc_field_struct(tc *t, int16_t id);
/* Open a list-valued field of `count` elements of type elem. */
void inl_tc_field_list(tc *t, int16_t id, int elem, uint32_t count);
/* A struct element of a list; close with inl_tc_struct_end. */
void inl_tc_list_struct(tc *t);
void inl_tc_list_i32(tc *t, int32_t v);
void inl_tc_list_i64(tc *t, int64_t v);
void inl_tc_list_bool(tc *t, bool v);
void inl_tc_list_binary(tc *t, const void *p, size_t n);
/* Write the stop byte of the innermost open struct (also the outermost). */
void inl_tc_struct_end(tc *t);

/* Raw pieces, exposed for the unit tests. */
void inl_tc_varint(tc *t, uint64_t v);
static inline uint64_t inl_tc_zigzag64(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

#endif
