/*
 * thrift.c — compact protocol encoding (see thrift.h).
 */
#include "thrift.h"

static void put(tc *t, const void *p, size_t n)
{
    if (t->err) return;
    if (inl_buf_append(t->out, t->alloc, p, n)) t->err = 1;
}

static void put_byte(tc *t, uint8_t b)
{
    put(t, &b, 1);
}

void inl_tc_init(tc *t, buf *out, const inlay_allocator *a)
{
    t->out = out;
    t->alloc = a;
    t->depth = 0;
    t->last[0] = 0;
    t->err = 0;
}

void inl_tc_varint(tc *t, uint64_t v)
{
    uint8_t b[10];
    int n = 0;
    while (v >= 0x80) {
        b[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b[n++] = (uint8_t)v;
    put(t, b, (size_t)n);
}

static void field_header(tc *t, int16_t id, int type)
{
    int16_t delta = (int16_t)(id - t->last[t->depth]);
    if (delta > 0 && delta <= 15) {
        put_byte(t, (uint8_t)((delta << 4) | type));
    } else {
        put_byte(t, (uint8_t)type);
        inl_tc_varint(t, inl_tc_zigzag64(id));
    }
    t->last[t->depth] = id;
}

static void push(tc *t)
{
    if (t->depth + 1 >= TC_MAX_DEPTH) { t->err = 1; return; }
    t->last[++t->depth] = 0;
}

void inl_tc_field_i16(tc *t, int16_t id, int16_t v)
{
    field_header(t, id, TC_I16);
    inl_tc_varint(t, inl_tc_zigzag64(v));
}

void inl_tc_field_i32(tc *t, int16_t id, int32_t v)
{
    field_header(t, id, TC_I32);
    inl_tc_varint(t, inl_tc_zigzag64(v));
}

void inl_tc_field_i64(tc *t, int16_t id, int64_t v)
{
    field_header(t, id, TC_I64);
    inl_tc_varint(t, inl_tc_zigzag64(v));
}

void inl_tc_field_byte(tc *t, int16_t id, int8_t v)
{
    field_header(t, id, TC_BYTE);
    put_byte(t, (uint8_t)v);
}

void inl_tc_field_bool(tc *t, int16_t id, bool v)
{
    field_header(t, id, v ? TC_BOOL_TRUE : TC_BOOL_FALSE);
}

void inl_tc_field_binary(tc *t, int16_t id, const void *p, size_t n)
{
    field_header(t, id, TC_BINARY);
    inl_tc_list_binary(t, p, n);
}

void inl_tc_field_string(tc *t, int16_t id, const char *s)
{
    inl_tc_field_binary(t, id, s, strlen(s));
}

void inl_tc_field_struct(tc *t, int16_t id)
{
    field_header(t, id, TC_STRUCT);
    push(t);
}

void inl_tc_field_list(tc *t, int16_t id, int elem, uint32_t count)
{
    field_header(t, id, TC_LIST);
    if (count < 15) {
        put_byte(t, (uint8_t)((count << 4) | (uint32_t)elem));
    } else {
        put_byte(t, (uint8_t)(0xF0 | elem));
        inl_tc_varint(t, count);
    }
}

void inl_tc_list_struct(tc *t)
{
    push(t);
}

void inl_tc_list_i32(tc *t, int32_t v)
{
    inl_tc_varint(t, inl_tc_zigzag64(v));
}

void inl_tc_list_i64(tc *t, int64_t v)
{
    inl_tc_varint(t, inl_tc_zigzag64(v));
}

/* One byte per element, as the reference implementations write it. */
void inl_tc_list_bool(tc *t, bool v)
{
    put_byte(t, v ? TC_BOOL_TRUE : TC_BOOL_FALSE);
}

void inl_tc_list_binary(tc *t, const void *p, size_t n)
{
    inl_tc_varint(t, n);
    put(t, p, n);
}

void inl_tc_struct_end(tc *t)
{
    put_byte(t, 0);
    if (t->depth > 0) t->depth--;
}
