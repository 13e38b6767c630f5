/*
 * thrift_in.c — compact protocol decoding (see thrift_in.h).
 */
#include "thrift_in.h"

void inl_ti_init(ti *t, const uint8_t *p, size_t n)
{
    t->start = t->p = p;
    t->end = p + n;
    t->err = TI_OK;
    t->err_at = 0;
}

void inl_ti_fail(ti *t, int kind)
{
    if (t->err) return;
    t->err = kind;
    t->err_at = inl_ti_pos(t);
}

void inl_ti_seek(ti *t, size_t pos)
{
    if (t->err) return;
    if (pos > (size_t)(t->end - t->start)) { inl_ti_fail(t, TI_BAD); return; }
    t->p = t->start + pos;
}

uint8_t inl_ti_byte(ti *t)
{
    if (t->err) return 0;
    if (t->p >= t->end) { inl_ti_fail(t, TI_SHORT); return 0; }
    return *t->p++;
}

uint64_t inl_ti_varint(ti *t)
{
    if (t->err) return 0;
    const uint8_t *q = t->p;
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (q >= t->end) { inl_ti_fail(t, TI_SHORT); return 0; }
        const uint8_t b = *q++;
        if (shift == 63 && b > 1) break;     /* past 64 bits */
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            t->p = q;
            return v;
        }
    }
    inl_ti_fail(t, TI_BAD);
    return 0;
}

int64_t inl_ti_i64(ti *t)
{
    const uint64_t u = inl_ti_varint(t);
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

int32_t inl_ti_i32(ti *t)
{
    const size_t at = inl_ti_pos(t);
    const int64_t v = inl_ti_i64(t);
    if (v < INT32_MIN || v > INT32_MAX) {
        if (!t->err) { t->err = TI_BAD; t->err_at = at; }
        return 0;
    }
    return (int32_t)v;
}

int16_t inl_ti_i16(ti *t)
{
    const size_t at = inl_ti_pos(t);
    const int64_t v = inl_ti_i64(t);
    if (v < INT16_MIN || v > INT16_MAX) {
        if (!t->err) { t->err = TI_BAD; t->err_at = at; }
        return 0;
    }
    return (int16_t)v;
}

const uint8_t *inl_ti_binary(ti *t, size_t *len)
{
    *len = 0;
    const uint64_t n = inl_ti_varint(t);
    if (t->err) return NULL;
    if (n > inl_ti_left(t)) { inl_ti_fail(t, TI_SHORT); return NULL; }
    const uint8_t *p = t->p;
    t->p += n;
    *len = (size_t)n;
    return p;
}

static bool known_type(int type) { return type >= TI_TRUE && type <= TI_STRUCT; }

bool inl_ti_field(ti *t, int16_t *last, int16_t *id, int *type)
{
    const uint8_t b = inl_ti_byte(t);
    if (t->err || b == 0) return false;
    *type = b & 0x0f;
    const int delta = b >> 4;
    if (!known_type(*type)) { t->p--; inl_ti_fail(t, TI_BAD); return false; }
    if (delta) {
        *id = (int16_t)(uint16_t)((uint16_t)*last + (uint16_t)delta);   /* i16 arithmetic, as thrift's own readers */
    } else {
        *id = inl_ti_i16(t);
        if (t->err) return false;
    }
    *last = *id;
    return true;
}

uint32_t inl_ti_list(ti *t, int *elem)
{
    const size_t at = inl_ti_pos(t);
    const uint8_t b = inl_ti_byte(t);
    *elem = b & 0x0f;
    uint64_t n = b >> 4;
    if (n == 15) n = inl_ti_varint(t);
    if (t->err) return 0;
    if (!known_type(*elem) || n > inl_ti_left(t)) {
        t->err = n > inl_ti_left(t) && known_type(*elem) ? TI_SHORT : TI_BAD;
        t->err_at = at;
        return 0;
    }
    return (uint32_t)n;
}

void inl_ti_skip_struct(ti *t, int depth)
{
    int16_t last = 0, id;
    int type;
    while (inl_ti_field(t, &last, &id, &type)) inl_ti_skip(t, type, false, depth + 1);
}

void inl_ti_skip(ti *t, int type, bool element, int depth)
{
    if (t->err) return;
    if (depth > TI_MAX_DEPTH) { inl_ti_fail(t, TI_BAD); return; }
    switch (type) {
    case TI_TRUE: case TI_FALSE:
        if (element) inl_ti_byte(t);
        return;
    case TI_BYTE: inl_ti_byte(t); return;
    case TI_I16: case TI_I32: case TI_I64: inl_ti_varint(t); return;
    case TI_DOUBLE:
        if (inl_ti_left(t) < 8) inl_ti_fail(t, TI_SHORT);
        else t->p += 8;
        return;
    case TI_BINARY: { size_t n; inl_ti_binary(t, &n); return; }
    case TI_LIST: case TI_SET: {
        int elem;
        const uint32_t n = inl_ti_list(t, &elem);
        for (uint32_t i = 0; i < n && !t->err; i++) inl_ti_skip(t, elem, true, depth + 1);
        return;
    }
    case TI_MAP: {
        const size_t at = inl_ti_pos(t);
        const uint64_t n = inl_ti_varint(t);
        if (t->err || n == 0) return;
        if (n > inl_ti_left(t)) { t->err = TI_SHORT; t->err_at = at; return; }
        const uint8_t kv = inl_ti_byte(t);
        if (!known_type(kv >> 4) || !known_type(kv & 0x0f)) { inl_ti_fail(t, TI_BAD); return; }
        for (uint64_t i = 0; i < n && !t->err; i++) {
            inl_ti_skip(t, kv >> 4, true, depth + 1);
            inl_ti_skip(t, kv & 0x0f, true, depth + 1);
        }
        return;
    }
    case TI_STRUCT: inl_ti_skip_struct(t, depth); return;
    default: inl_ti_fail(t, TI_BAD); return;
    }
}
