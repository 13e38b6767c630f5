/*
 * memo.c — typed memo tables (see memo.h).
 */
#include "memo.h"

/* Inlined XXH3 trips a false -Warray-bounds on 4/8-byte keys. */
#pragma GCC diagnostic ignored "-Warray-bounds"
#define XXH_INLINE_ALL
#include <xxhash.h>

#define MEMO_INITIAL_SLOTS 256

/* ---- fixed-width keys ------------------------------------------------ */

void memo_fixed_init(memo_fixed *m, const inlay_allocator *a, size_t width)
{
    memset(m, 0, sizeof *m);
    m->alloc = a;
    m->width = width;
}

void memo_fixed_free(memo_fixed *m)
{
    if (m->slots) mem_free(m->alloc, m->slots, (m->mask + 1) * sizeof *m->slots);
    buf_free(&m->values, m->alloc);
    m->slots = NULL;
    m->mask = m->count = 0;
}

void memo_fixed_reset(memo_fixed *m)
{
    if (m->slots) memset(m->slots, 0, (m->mask + 1) * sizeof *m->slots);
    m->count = 0;
    m->values.len = 0;
}

static int fixed_rehash(memo_fixed *m)
{
    size_t old_cap = m->slots ? m->mask + 1 : 0;
    size_t cap = old_cap ? old_cap * 2 : MEMO_INITIAL_SLOTS;
    memo_fixed_slot *s = mem_alloc(m->alloc, cap * sizeof *s);
    if (!s) return -1;
    memset(s, 0, cap * sizeof *s);
    for (size_t i = 0; i < old_cap; i++) {
        memo_fixed_slot e = m->slots[i];
        if (!e.index1) continue;
        size_t p = e.hash & (cap - 1);
        while (s[p].index1) p = (p + 1) & (cap - 1);
        s[p] = e;
    }
    if (m->slots) mem_free(m->alloc, m->slots, old_cap * sizeof *m->slots);
    m->slots = s;
    m->mask = cap - 1;
    return 0;
}

int memo_fixed_insert(memo_fixed *m, uint64_t key, uint32_t *index)
{
    if (INLAY_UNLIKELY(!m->slots || (m->count + 1) * 2 > m->mask + 1)) {
        if (fixed_rehash(m)) return -1;
    }
    uint32_t h = (uint32_t)XXH3_64bits(&key, m->width);
    size_t p = h & m->mask;
    for (;;) {
        memo_fixed_slot *s = &m->slots[p];
        if (!s->index1) break;
        if (s->key == key && s->hash == h) {
            *index = s->index1 - 1;
            return 1;
        }
        p = (p + 1) & m->mask;
    }
    if (buf_append(&m->values, m->alloc, &key, m->width)) return -1;
    m->slots[p].key = key;
    m->slots[p].hash = h;
    m->slots[p].index1 = (uint32_t)++m->count;
    *index = (uint32_t)(m->count - 1);
    return 0;
}

int memo_fixed_insert_many(memo_fixed *m, const void *keys, size_t n, uint32_t *out)
{
    const uint8_t *k = keys;
    if (m->width == 4) {
        for (size_t i = 0; i < n; i++) {
            uint32_t v;
            memcpy(&v, k + 4 * i, 4);
            if (memo_fixed_insert(m, v, &out[i]) < 0) return -1;
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            uint64_t v;
            memcpy(&v, k + 8 * i, 8);
            if (memo_fixed_insert(m, v, &out[i]) < 0) return -1;
        }
    }
    return 0;
}

/* ---- byte strings ------------------------------------------------------ */

void memo_bytes_init(memo_bytes *m, const inlay_allocator *a, size_t fixed_width)
{
    memset(m, 0, sizeof *m);
    m->alloc = a;
    m->fixed_width = fixed_width;
}

void memo_bytes_free(memo_bytes *m)
{
    if (m->slots) mem_free(m->alloc, m->slots, (m->mask + 1) * sizeof *m->slots);
    mem_free(m->alloc, m->offsets, m->offsets_cap * sizeof *m->offsets);
    buf_free(&m->arena, m->alloc);
    m->slots = NULL;
    m->offsets = NULL;
    m->mask = m->count = m->offsets_cap = 0;
}

void memo_bytes_reset(memo_bytes *m)
{
    if (m->slots) memset(m->slots, 0, (m->mask + 1) * sizeof *m->slots);
    m->count = 0;
    m->arena.len = 0;
}

static int bytes_rehash(memo_bytes *m)
{
    size_t old_cap = m->slots ? m->mask + 1 : 0;
    size_t cap = old_cap ? old_cap * 2 : MEMO_INITIAL_SLOTS;
    memo_bytes_slot *s = mem_alloc(m->alloc, cap * sizeof *s);
    if (!s) return -1;
    size_t ocap = cap / 2;   /* offsets for up to cap/2 entries (load <= 1/2) */
    if (ocap > m->offsets_cap) {
        uint32_t *o = mem_realloc(m->alloc, m->offsets, m->offsets_cap * sizeof *o, ocap * sizeof *o);
        if (!o) { mem_free(m->alloc, s, cap * sizeof *s); return -1; }
        m->offsets = o;
        m->offsets_cap = ocap;
    }
    memset(s, 0, cap * sizeof *s);
    for (size_t i = 0; i < old_cap; i++) {
        memo_bytes_slot e = m->slots[i];
        if (!e.index1) continue;
        size_t p = e.hash & (cap - 1);
        while (s[p].index1) p = (p + 1) & (cap - 1);
        s[p] = e;
    }
    if (m->slots) mem_free(m->alloc, m->slots, old_cap * sizeof *m->slots);
    m->slots = s;
    m->mask = cap - 1;
    return 0;
}

/* Equality of two byte strings of the same length, inlined: short keys are
 * compared a word at a time (overlapping loads stay inside both strings). */
static inline bool same_bytes(const uint8_t *a, const uint8_t *b, size_t len)
{
    uint64_t x, y, u, v;
    if (len >= 8) {
        if (len <= 16) {
            memcpy(&x, a, 8); memcpy(&y, b, 8);
            memcpy(&u, a + len - 8, 8); memcpy(&v, b + len - 8, 8);
            return ((x ^ y) | (u ^ v)) == 0;
        }
        if (len <= 32) {   /* the first 16 and the last 16 bytes */
            uint64_t x2, y2, u2, v2;
            memcpy(&x, a, 8); memcpy(&y, b, 8);
            memcpy(&x2, a + 8, 8); memcpy(&y2, b + 8, 8);
            memcpy(&u, a + len - 16, 8); memcpy(&v, b + len - 16, 8);
            memcpy(&u2, a + len - 8, 8); memcpy(&v2, b + len - 8, 8);
            return ((x ^ y) | (x2 ^ y2) | (u ^ v) | (u2 ^ v2)) == 0;
        }
        return memcmp(a, b, len) == 0;
    }
    if (len >= 4) {
        uint32_t x4, y4, u4, v4;
        memcpy(&x4, a, 4); memcpy(&y4, b, 4);
        memcpy(&u4, a + len - 4, 4); memcpy(&v4, b + len - 4, 4);
        return ((x4 ^ y4) | (u4 ^ v4)) == 0;
    }
    for (size_t i = 0; i < len; i++)
        if (a[i] != b[i]) return false;
    return true;
}

static inline int bytes_insert(memo_bytes *m, const void *data, size_t len, uint32_t *index)
{
    if (INLAY_UNLIKELY(!m->slots || (m->count + 1) * 2 > m->mask + 1)) {
        if (bytes_rehash(m)) return -1;
    }
    const uint8_t *key = len ? data : (const uint8_t *)"";
    const uint32_t h = (uint32_t)XXH3_64bits(key, len);
    const uint8_t *arena = m->arena.data;
    size_t p = h & m->mask;
    for (;;) {
        const memo_bytes_slot *s = &m->slots[p];
        if (!s->index1) break;
        if (s->hash == h && s->len == len && same_bytes(arena + s->off, key, len)) {
            *index = s->index1 - 1;
            return 1;
        }
        p = (p + 1) & m->mask;
    }
    const size_t prefix = m->fixed_width ? 0 : 4;
    if (INLAY_UNLIKELY(len > UINT32_MAX - prefix - m->arena.len)) return -1;   /* offsets are 32-bit */
    if (buf_reserve(&m->arena, m->alloc, prefix + len)) return -1;
    uint8_t *dst = m->arena.data + m->arena.len;
    if (prefix) put_u32le(dst, (uint32_t)len);
    if (len) memcpy(dst + prefix, data, len);
    const uint32_t off = (uint32_t)(m->arena.len + prefix);
    m->offsets[m->count] = off;
    m->arena.len += prefix + len;
    memo_bytes_slot *s = &m->slots[p];
    s->hash = h;
    s->len = (uint32_t)len;
    s->off = off;
    s->index1 = (uint32_t)++m->count;
    *index = (uint32_t)(m->count - 1);
    return 0;
}

int memo_bytes_insert(memo_bytes *m, const void *data, size_t len, uint32_t *index)
{
    return bytes_insert(m, data, len, index);
}

/* Within one bulk call the caller's memory cannot change, so a value at the
 * same address and length as an earlier one in the call is the same value.
 * Batches that repeat values by reference (Lua's interned strings, string
 * pools, dictionary-decoded arrays) then skip the hash and the probe. The
 * cache is direct-mapped on the address and lives only for the call. */
#define MEMO_REF_CACHE 256
#define MEMO_REF_MIN_BATCH 64   /* below this, clearing the cache costs more */
#define MEMO_REF_PROBATION 1024 /* values after which a cache that rarely hits is dropped */

typedef struct ref_entry {
    const void *data;
    size_t len;
    uint32_t index;
} ref_entry;

int memo_bytes_insert_many(memo_bytes *m, const inlay_bytes *v, size_t n, uint32_t *out)
{
    if (n < MEMO_REF_MIN_BATCH) {
        for (size_t i = 0; i < n; i++)
            if (bytes_insert(m, v[i].data, v[i].len, &out[i]) < 0) return -1;
        return 0;
    }
    ref_entry cache[MEMO_REF_CACHE];
    for (size_t k = 0; k < MEMO_REF_CACHE; k++) cache[k].len = SIZE_MAX;   /* no value is that long */
    size_t i = 0, hits = 0;
    for (; i < n; i++) {
        /* A batch whose values rarely share addresses stops paying for it. */
        if (i == MEMO_REF_PROBATION && hits < MEMO_REF_PROBATION / 4) break;
        const void *d = v[i].data;
        const size_t len = v[i].len;
        ref_entry *c = &cache[((uintptr_t)d * 0x9E3779B97F4A7C15ull) >> 56];
        if (c->data == d && c->len == len) {
            out[i] = c->index;
            hits++;
            continue;
        }
        if (bytes_insert(m, d, len, &out[i]) < 0) return -1;
        c->data = d;
        c->len = len;
        c->index = out[i];
    }
    for (; i < n; i++)
        if (bytes_insert(m, v[i].data, v[i].len, &out[i]) < 0) return -1;
    return 0;
}
