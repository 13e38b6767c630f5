/*
 * memo.h — typed memo tables: the dictionary of one column chunk.
 *
 * A memo table maps each distinct value to its dictionary index, assigned in
 * order of first appearance. Two kinds:
 *  - memo_fixed: 4- or 8-byte values keyed by bit pattern (so -0.0 and +0.0,
 *    and NaNs with different payloads, are distinct keys as Parquet wants).
 *    The slot holds the key itself, so a probe touches one cache line.
 *  - memo_bytes: byte strings, BYTE_ARRAY (stored length-prefixed) or
 *    FIXED_LEN_BYTE_ARRAY (stored bare). Values are copied into an arena
 *    that is already the PLAIN dictionary page, so the page is written with
 *    no further copy; nothing aliases the caller's memory.
 * Both hash each value at most once (memo_fixed not at all while its keys
 * go one way, see `run`: sequence numbers and timestamps, whose first page
 * tries a dictionary that will not pay), use open addressing with linear
 * probing (load <= 1/8 while small, 1/2 beyond), and keep their memory across
 * memo_*_reset. The hash is XXH3, except for byte strings of 8..32 bytes,
 * the common dictionary case: they are read as four overlapping words at
 * offsets computed from the length and hashed with one 128-bit
 * multiply-fold (see memo.c), so hash and compare have no length-dependent
 * branch and about half XXH3's arithmetic.
 */
#ifndef INLAY_MEMO_H
#define INLAY_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"

typedef struct memo_fixed_slot {
    uint64_t key;
    uint32_t hash;
    uint32_t index1;   /* index + 1; 0 = empty */
} memo_fixed_slot;

typedef struct memo_fixed {
    const inlay_allocator *alloc;
    memo_fixed_slot *slots;
    size_t mask;       /* capacity - 1 */
    size_t count;
    size_t limit;      /* count at which the table grows (once placed: a run goes past it) */
    size_t width;      /* 4 or 8 */
    size_t expect;     /* entries the caller expects at most (0: no idea) */
    buf values;        /* count * width bytes: the PLAIN dictionary page */
    /* While every key since the table was empty has gone strictly one way
     * from the one before (as unsigned bits: a sequence number, a
     * timestamp), the entries are all distinct and in order: they are in
     * `values` alone, no slot holds one (the slots kept across a reset are
     * all empty), and a key is looked up against the last. The first key
     * that turns back places them all (memo.c). */
    bool run;
    int8_t run_dir;    /* +1 up, -1 down, 0 not yet known */
    uint64_t run_last;
} memo_fixed;

/* A probe compares hash and length in the slot and only then the bytes,
 * reached through the slot's own arena offset. */
typedef struct memo_bytes_slot {
    uint32_t hash;        /* hash and len adjacent: one 8-byte compare */
    uint32_t len;
    uint32_t index1;
    uint32_t off;         /* of the value's bytes in the arena */
} memo_bytes_slot;

typedef struct memo_bytes {
    const inlay_allocator *alloc;
    memo_bytes_slot *slots;
    size_t mask;
    size_t count;
    size_t limit;         /* count at which the table grows */
    size_t fixed_width;   /* 0 for BYTE_ARRAY */
    buf arena;            /* the PLAIN dictionary page */
    uint32_t *offsets;    /* entry i starts at arena.data + offsets[i] (its bytes) */
    size_t offsets_cap;
    uint32_t ref_skip;    /* bulk calls left that skip the address cache */
    uint32_t ref_backoff; /* calls to skip after the next failed probation */
} memo_bytes;

void inl_memo_fixed_init(memo_fixed *m, const inlay_allocator *a, size_t width);
void inl_memo_fixed_free(memo_fixed *m);
void inl_memo_fixed_reset(memo_fixed *m);
/* At most n entries are expected (0: no idea): once an eighth of them are
 * in, the table grows straight to hold them all rather than doubling
 * through the sizes between (a first page of distinct values, say). Kept
 * across reset. */
void inl_memo_fixed_expect(memo_fixed *m, size_t n);
/* Insert-or-get: returns 1 if found, 0 if inserted, -1 when out of memory
 * (the table is unchanged). *index receives the value's index. A key of a
 * 4-byte table is its low 32 bits. A table whose keys so far all go one way
 * (see `run`) hashes nothing. */
int inl_memo_fixed_insert(memo_fixed *m, uint64_t key, uint32_t *index);
/* Bulk form: n keys of the table's width (any 4- or 8-byte type), indices written to out. Returns 0
 * or -1 (out of memory: entries inserted before the failure stay). */
int inl_memo_fixed_insert_many(memo_fixed *m, const void *keys, size_t n, uint32_t *out);

void inl_memo_bytes_init(memo_bytes *m, const inlay_allocator *a, size_t fixed_width);
void inl_memo_bytes_free(memo_bytes *m);
void inl_memo_bytes_reset(memo_bytes *m);
/* As inl_memo_fixed_insert. data may be NULL when len is 0 (the empty
 * value); a value that is not one Parquet can hold -- NULL data with a
 * length, a length past INT32_MAX -- is refused with -2 and not inserted. */
int inl_memo_bytes_insert(memo_bytes *m, const void *data, size_t len, uint32_t *index);
/* Bulk form: 0, -1 (out of memory) or -2 (a value refused, as above);
 * entries inserted before the failure stay. */
int inl_memo_bytes_insert_many(memo_bytes *m, const inlay_bytes *v, size_t n, uint32_t *out);
/* Forget the entries from index `count` on (those inserted last), as if
 * they had never been inserted; allocates nothing. */
void inl_memo_bytes_truncate(memo_bytes *m, size_t count);

/* Entry i of a bytes table. */
static inline const uint8_t *inl_memo_bytes_value(const memo_bytes *m, size_t i, size_t *len)
{
    size_t off = m->offsets[i];
    if (m->fixed_width) {
        *len = m->fixed_width;
    } else {
        const uint8_t *p = m->arena.data + off - 4;
        *len = (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 | (size_t)p[3] << 24;
    }
    return m->arena.data + off;
}

/* Size of the dictionary page's data. */
static inline size_t inl_memo_fixed_bytes(const memo_fixed *m) { return m->values.len; }
static inline size_t inl_memo_bytes_bytes(const memo_bytes *m) { return m->arena.len; }
/* ... of its first n entries (entries are laid out in order, a BYTE_ARRAY
 * one behind its 4-byte length). */
static inline size_t inl_memo_bytes_bytes_of(const memo_bytes *m, size_t n)
{
    if (n >= m->count) return m->arena.len;
    return n ? m->offsets[n] - (m->fixed_width ? 0 : 4) : 0;
}

#endif
