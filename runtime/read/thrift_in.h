/*
 * thrift_in.h — a bounds-checked thrift compact-protocol decoder, for the
 * footer and the page headers of files we did not write.
 *
 * A `ti` is a byte range and a cursor. Every read checks the bytes left;
 * the first failure is sticky: `err` records its kind (cut short or
 * malformed) and `err_at` the offset it happened at, and every later read
 * returns 0/NULL/false without moving, so a decoder can read a whole
 * struct and check `err` once. Counts are bounded by what the bytes can
 * hold (every compact value takes at least one byte), so a caller that
 * sizes an allocation by a list count allocates at most in proportion to
 * the input. Skipping nests at most TI_MAX_DEPTH values deep.
 *
 * Fields: the caller keeps the last field id of the struct it is reading
 * (field headers carry deltas from it), as the encoder in format/thrift.c
 * does. A bool field's value is in its header: inl_ti_field returns the
 * type TI_TRUE or TI_FALSE and inl_ti_bool reads nothing more.
 */
#ifndef INLAY_THRIFT_IN_H
#define INLAY_THRIFT_IN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Compact protocol types (the same numbers format/thrift.h writes). */
enum {
    TI_STOP = 0, TI_TRUE = 1, TI_FALSE = 2, TI_BYTE = 3, TI_I16 = 4, TI_I32 = 5, TI_I64 = 6,
    TI_DOUBLE = 7, TI_BINARY = 8, TI_LIST = 9, TI_SET = 10, TI_MAP = 11, TI_STRUCT = 12,
};

/* Kinds of failure. */
enum { TI_OK = 0, TI_SHORT = 1, TI_BAD = 2 };

#define TI_MAX_DEPTH 64

typedef struct ti {
    const uint8_t *start, *p, *end;
    int err;          /* TI_OK, TI_SHORT (ran past the end) or TI_BAD (malformed) */
    size_t err_at;    /* offset from start of the first failure */
} ti;

void inl_ti_init(ti *t, const uint8_t *p, size_t n);

static inline size_t inl_ti_pos(const ti *t) { return (size_t)(t->p - t->start); }
static inline size_t inl_ti_left(const ti *t) { return (size_t)(t->end - t->p); }
/* Record a failure at the cursor (the first one wins). */
void inl_ti_fail(ti *t, int kind);
/* Continue at offset pos (<= the range's length), as after a skip. */
void inl_ti_seek(ti *t, size_t pos);

uint8_t inl_ti_byte(ti *t);
/* Unsigned LEB128, at most 64 bits. */
uint64_t inl_ti_varint(ti *t);
/* Zigzag varints, range-checked: a value past the type's range is TI_BAD. */
int64_t inl_ti_i64(ti *t);
int32_t inl_ti_i32(ti *t);
int16_t inl_ti_i16(ti *t);
/* A length-prefixed byte string, pointing into the input; NULL (and *len
 * 0) on failure, a non-NULL pointer for an empty string. */
const uint8_t *inl_ti_binary(ti *t, size_t *len);

/* The next field header of the struct being read: *id and *type. Returns
 * false at the struct's stop byte and on failure. */
bool inl_ti_field(ti *t, int16_t *last, int16_t *id, int *type);
/* A bool field's value, from the type inl_ti_field returned. */
static inline bool inl_ti_bool(int type) { return type == TI_TRUE; }

/* A list or set header: element type into *elem, count returned (at most
 * the bytes left; TI_BAD for a larger one or an unknown element type). */
uint32_t inl_ti_list(ti *t, int *elem);

/* Skip one value of `type` (a field's, or with `element`, a list element's:
 * there a bool takes a byte of its own). depth: how deep the caller
 * already is (0 at the top); past TI_MAX_DEPTH is TI_BAD. */
void inl_ti_skip(ti *t, int type, bool element, int depth);
/* Skip the fields of a struct up to and including its stop byte. */
void inl_ti_skip_struct(ti *t, int depth);

#endif
