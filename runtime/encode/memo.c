/*
 * memo.c — typed memo tables (see memo.h).
 */
#include "memo.h"

/* Inlined XXH3 trips a false -Warray-bounds on 4/8-byte keys. */
#pragma GCC diagnostic ignored "-Warray-bounds"
#define XXH_INLINE_ALL
#include <xxhash.h>

#define MEMO_INITIAL_SLOTS 256
/* Small tables are kept sparse: up to this many slots the load stays at or
 * below 1/8, so a lookup almost always ends at its home slot and the probe
 * loop's branches are predictable; the table still fits in L1. Larger ones
 * run at load <= 1/2. */
#define MEMO_SPARSE_SLOTS 2048
/* A new table this large has its pages mapped in one call before it is
 * zeroed (see alloc.h): a first page of distinct values makes a 1 MiB one. */
#define MEMO_PREFAULT_BYTES (64 * 1024)

/* Entries a table of cap slots takes before it grows. */
static inline size_t memo_limit(size_t cap)
{
    return cap <= MEMO_SPARSE_SLOTS ? cap / 8 : cap / 2;
}

/* ---- fixed-width keys ------------------------------------------------ */

void inl_memo_fixed_init(memo_fixed *m, const inlay_allocator *a, size_t width)
{
    memset(m, 0, sizeof *m);
    m->alloc = a;
    m->width = width;
    m->run = true;
}

void inl_memo_fixed_free(memo_fixed *m)
{
    if (m->slots) inl_mem_free(m->alloc, m->slots, (m->mask + 1) * sizeof *m->slots);
    inl_buf_free(&m->values, m->alloc);
    m->slots = NULL;
    m->mask = m->count = m->limit = 0;
    m->run = true;
    m->run_dir = 0;
}

void inl_memo_fixed_reset(memo_fixed *m)
{
    /* a run placed nothing: its slots are still empty */
    if (m->slots && !m->run) memset(m->slots, 0, (m->mask + 1) * sizeof *m->slots);
    m->count = 0;
    m->values.len = 0;
    m->run = true;
    m->run_dir = 0;
}

void inl_memo_fixed_expect(memo_fixed *m, size_t n) { m->expect = n; }

static inline uint64_t fixed_key(const uint8_t *k, size_t width)
{
    if (width == 4) {
        uint32_t v;
        memcpy(&v, k, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, k, 8);
    return v;
}

/* The hash of a key's own bytes (as the bulk loop's prefetch takes them). */
static inline uint32_t fixed_hash(const memo_fixed *m, uint64_t key)
{
    if (m->width == 4) {
        const uint32_t k = (uint32_t)key;
        return (uint32_t)XXH3_64bits(&k, 4);
    }
    return (uint32_t)XXH3_64bits(&key, 8);
}

static void fixed_place(memo_fixed_slot *s, size_t mask, memo_fixed_slot e)
{
    size_t p = e.hash & mask;
    while (s[p].index1) p = (p + 1) & mask;
    s[p] = e;
}

/* The run's entries into empty slots, each at the index it was given. */
static void place_run(const memo_fixed *m, memo_fixed_slot *s, size_t mask)
{
    for (size_t i = 0; i < m->count; i++) {
        memo_fixed_slot e;
        e.key = fixed_key(m->values.data + i * m->width, m->width);
        e.hash = fixed_hash(m, e.key);
        e.index1 = (uint32_t)i + 1;
        fixed_place(s, mask, e);
    }
}

/* Room for one more entry than the table holds: the table doubled (or,
 * once an eighth of what is expected is in, grown to hold all of it), its
 * entries moved in. A run is placed from `values` into the smallest table
 * that holds it (from MEMO_INITIAL_SLOTS up, the same expect rule), or
 * into the slots kept across the reset when they are at least that. */
static int fixed_rehash(memo_fixed *m)
{
    size_t old_cap = m->slots ? m->mask + 1 : 0;
    size_t cap = old_cap && !m->run ? old_cap * 2 : MEMO_INITIAL_SLOTS;
    while (memo_limit(cap) <= m->count && cap <= SIZE_MAX / (4 * sizeof(memo_fixed_slot))) cap *= 2;
    if (m->expect && m->count >= m->expect / 8)
        while (memo_limit(cap) < m->expect && cap <= SIZE_MAX / (4 * sizeof(memo_fixed_slot))) cap *= 2;
    if (m->run && cap <= old_cap) {   /* the slots kept from before the run are empty */
        place_run(m, m->slots, m->mask);
        m->run = false;
        return 0;
    }
    memo_fixed_slot *s = inl_mem_alloc(m->alloc, cap * sizeof *s);
    if (!s) return -1;
    if (cap * sizeof *s >= MEMO_PREFAULT_BYTES) inl_mem_prefault(s, cap * sizeof *s);
    memset(s, 0, cap * sizeof *s);
    if (m->run) {
        place_run(m, s, cap - 1);
    } else {
        for (size_t i = 0; i < old_cap; i++)
            if (m->slots[i].index1) fixed_place(s, cap - 1, m->slots[i]);
    }
    if (m->slots) inl_mem_free(m->alloc, m->slots, old_cap * sizeof *m->slots);
    m->slots = s;
    m->mask = cap - 1;
    m->limit = memo_limit(cap);
    m->run = false;
    return 0;
}

static inline int append_key(memo_fixed *m, uint64_t key)
{
    if (m->width == 4) {
        const uint32_t k = (uint32_t)key;
        return inl_buf_append(&m->values, m->alloc, &k, 4);
    }
    return inl_buf_append(&m->values, m->alloc, &key, 8);
}

/* A key against a run: 1 (the last key: found), 0 (one further the same
 * way: inserted), 2 (it turns back: the run must be placed first) or -1. */
static inline int run_insert(memo_fixed *m, uint64_t key, uint32_t *index)
{
    int8_t dir = 0;
    if (m->count) {
        if (key == m->run_last) {
            *index = (uint32_t)(m->count - 1);
            return 1;
        }
        dir = key > m->run_last ? 1 : -1;
        if (m->run_dir && m->run_dir != dir) return 2;
    }
    if (append_key(m, key)) return -1;
    m->run_dir = dir;
    m->run_last = key;
    *index = (uint32_t)m->count++;
    return 0;
}

int inl_memo_fixed_insert(memo_fixed *m, uint64_t key, uint32_t *index)
{
    if (m->width == 4) key = (uint32_t)key;   /* a run compares whole keys; `values` keeps 4 bytes */
    if (m->run) {
        const int r = run_insert(m, key, index);
        if (r != 2) return r;
        if (fixed_rehash(m)) return -1;   /* the run stays as it was */
    }
    if (INLAY_UNLIKELY(m->count >= m->limit)) {
        if (fixed_rehash(m)) return -1;
    }
    uint32_t h = fixed_hash(m, key);
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
    if (append_key(m, key)) return -1;
    m->slots[p].key = key;
    m->slots[p].hash = h;
    m->slots[p].index1 = (uint32_t)++m->count;
    *index = (uint32_t)(m->count - 1);
    return 0;
}

/* Past this many slots (512 KiB of them) a lookup waits on memory: the bulk
 * loop then hashes FIXED_AHEAD keys ahead and prefetches their slots, so
 * that several misses are in flight at once (a column of distinct values
 * trying its dictionary on a first page fills such a table). */
#define FIXED_FAR_SLOTS ((size_t)1 << 15)
#define FIXED_AHEAD 8

int inl_memo_fixed_insert_many(memo_fixed *m, const void *keys, size_t n, uint32_t *out)
{
    const uint8_t *k = keys;
    const size_t width = m->width;
    for (size_t i = 0; i < n; i++) {
        /* the key's own bytes, as inl_memo_fixed_insert hashes them */
        if (!m->run && m->slots && m->mask + 1 >= FIXED_FAR_SLOTS && i + FIXED_AHEAD < n)
            __builtin_prefetch(&m->slots[(uint32_t)XXH3_64bits(k + width * (i + FIXED_AHEAD), width) & m->mask]);
        if (inl_memo_fixed_insert(m, fixed_key(k + width * i, width), &out[i]) < 0) return -1;
    }
    return 0;
}

/* ---- byte strings ------------------------------------------------------ */

void inl_memo_bytes_init(memo_bytes *m, const inlay_allocator *a, size_t fixed_width)
{
    memset(m, 0, sizeof *m);
    m->alloc = a;
    m->fixed_width = fixed_width;
}

void inl_memo_bytes_free(memo_bytes *m)
{
    if (m->slots) inl_mem_free(m->alloc, m->slots, (m->mask + 1) * sizeof *m->slots);
    inl_mem_free(m->alloc, m->offsets, m->offsets_cap * sizeof *m->offsets);
    inl_buf_free(&m->arena, m->alloc);
    m->slots = NULL;
    m->offsets = NULL;
    m->mask = m->count = m->limit = m->offsets_cap = 0;
}

void inl_memo_bytes_reset(memo_bytes *m)
{
    if (m->slots) memset(m->slots, 0, (m->mask + 1) * sizeof *m->slots);
    m->count = 0;
    m->arena.len = 0;
}

void inl_memo_bytes_truncate(memo_bytes *m, size_t count)
{
    if (count >= m->count) return;
    const size_t prefix = m->fixed_width ? 0 : 4;
    m->arena.len = m->offsets[count] - prefix;
    m->count = count;
    const size_t cap = m->mask + 1;
    size_t start = cap;
    /* an empty slot is all zero: a probe tests a slot's tag before its index */
    const memo_bytes_slot empty = { 0 };
    for (size_t i = 0; i < cap; i++) {
        if (m->slots[i].index1 > count) m->slots[i] = empty;
        if (!m->slots[i].index1 && start == cap) start = i;
    }
    /* The entries left may sit past a gap that a removed one filled: put
     * each back from its home, in probe order from an empty slot, so every
     * chain is whole again. */
    for (size_t k = 1; k <= cap; k++) {
        const size_t i = (start + k) & m->mask;
        memo_bytes_slot e = m->slots[i];
        if (!e.index1) continue;
        m->slots[i] = empty;
        size_t p = e.hash & m->mask;
        while (m->slots[p].index1) p = (p + 1) & m->mask;
        m->slots[p] = e;
    }
}

static int bytes_rehash(memo_bytes *m)
{
    size_t old_cap = m->slots ? m->mask + 1 : 0;
    size_t cap = old_cap ? old_cap * 2 : MEMO_INITIAL_SLOTS;
    memo_bytes_slot *s = inl_mem_alloc(m->alloc, cap * sizeof *s);
    if (!s) return -1;
    size_t ocap = cap / 2;   /* offsets for up to cap/2 entries (load <= 1/2) */
    if (ocap > m->offsets_cap) {
        uint32_t *o = inl_mem_realloc(m->alloc, m->offsets, m->offsets_cap * sizeof *o, ocap * sizeof *o);
        if (!o) { inl_mem_free(m->alloc, s, cap * sizeof *s); return -1; }
        m->offsets = o;
        m->offsets_cap = ocap;
    }
    if (cap * sizeof *s >= MEMO_PREFAULT_BYTES) inl_mem_prefault(s, cap * sizeof *s);
    memset(s, 0, cap * sizeof *s);
    for (size_t i = 0; i < old_cap; i++) {
        memo_bytes_slot e = m->slots[i];
        if (!e.index1) continue;
        size_t p = e.hash & (cap - 1);
        while (s[p].index1) p = (p + 1) & (cap - 1);
        s[p] = e;
    }
    if (m->slots) inl_mem_free(m->alloc, m->slots, old_cap * sizeof *m->slots);
    m->slots = s;
    m->mask = cap - 1;
    m->limit = memo_limit(cap);
    return 0;
}

/* Equality of two byte strings of the same length, inlined: short keys are
 * compared a word at a time (overlapping loads stay inside both strings). */
static inline bool same_bytes(const uint8_t *a, const uint8_t *b, size_t len)
{
    if (len > 32) return memcmp(a, b, len) == 0;
    if (len >= 4) {
        uint32_t x4, y4, u4, v4;
        memcpy(&x4, a, 4); memcpy(&y4, b, 4);
        memcpy(&u4, a + len - 4, 4); memcpy(&v4, b + len - 4, 4);
        return ((x4 ^ y4) | (u4 ^ v4)) == 0;   /* len 4..7: the 8..32 path takes the rest */
    }
    for (size_t i = 0; i < len; i++)
        if (a[i] != b[i]) return false;
    return true;
}

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* A key of 8..32 bytes as four overlapping little-endian words at offsets
 * 0, x/3, 2x/3 and x (x = len - 8), which together cover every byte (no gap
 * between neighbours exceeds 8 for any x in 0..24; thirds by multiply and
 * shift, exact enough over that range). The offsets are computed, not
 * branched on, because dictionary strings of random length made XXH3's own
 * length switch mispredict about one value in two. */
typedef struct short_key {
    uint64_t w0, w1, w2, w3;
    size_t mid1, mid2;
} short_key;

static inline short_key short_key_load(const uint8_t *p, size_t len)
{
    short_key k;
    const size_t x = len - 8;
    k.mid1 = (x * 171) >> 9;
    k.mid2 = (x * 342) >> 9;
    k.w0 = load64(p);
    k.w1 = load64(p + k.mid1);
    k.w2 = load64(p + k.mid2);
    k.w3 = load64(p + x);
    return k;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* XXH3_mul128_fold64 as one mulq: in a loop with many live values GCC 12
 * splits the 128-bit product through a stack slot. */
static inline uint64_t mul_fold64(uint64_t a, uint64_t b)
{
    uint64_t lo, hi;
    __asm__("mulq %3" : "=a"(lo), "=d"(hi) : "%a"(a), "rm"(b) : "cc");
    return lo ^ hi;
}
#else
#define mul_fold64 XXH3_mul128_fold64
#endif

static inline uint64_t rotl64(uint64_t x, int r)
{
    return x << r | x >> (64 - r);
}

/* One multiply-fold of the four words, keyed with XXH3's first secret
 * words: half the arithmetic of XXH3's 17..32-byte round, which this path
 * spends most of its time on, and enough mixing for a table whose probes
 * compare the whole key anyway. The rotations keep the repeated words of a
 * key under 16 bytes (w2 may equal w0, w3 may equal w1) from cancelling. */
static inline uint32_t short_key_hash(const short_key *k, size_t len)
{
    const uint64_t a = (k->w0 ^ XXH_readLE64(XXH3_kSecret)) + rotl64(k->w2, 29);
    const uint64_t b = (k->w1 ^ XXH_readLE64(XXH3_kSecret + 8)) + (rotl64(k->w3, 41) ^ len);
    return (uint32_t)mul_fold64(a, b);
}

static inline bool short_key_equal(const short_key *k, const uint8_t *a, size_t len)
{
    return ((load64(a) ^ k->w0) | (load64(a + k->mid1) ^ k->w1) |
            (load64(a + k->mid2) ^ k->w2) | (load64(a + len - 8) ^ k->w3)) == 0;
}

static inline uint64_t slot_tag_of(const memo_bytes_slot *s)
{
    uint64_t t;
    memcpy(&t, s, 8);   /* hash and len; compared only with another slot's tag */
    return t;
}

/* Appends a value not yet in the table into slot p. */
static int bytes_add(memo_bytes *m, size_t p, uint32_t h, const void *data, size_t len, uint32_t *index)
{
    const size_t prefix = m->fixed_width ? 0 : 4;
    if (INLAY_UNLIKELY(len > UINT32_MAX - prefix - m->arena.len)) return -1;   /* offsets are 32-bit */
    if (inl_buf_reserve(&m->arena, m->alloc, prefix + len)) return -1;
    uint8_t *dst = m->arena.data + m->arena.len;
    if (prefix) inl_put_u32le(dst, (uint32_t)len);
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

/* Grown before a lookup, not on the insert path, so the slot a miss ends on
 * is where the new entry goes. */
static inline int bytes_make_room(memo_bytes *m)
{
    if (INLAY_UNLIKELY(m->count >= m->limit)) return bytes_rehash(m);
    return 0;
}

/* Keys outside 8..32 bytes: XXH3 and a general compare, out of line. */
__attribute__((noinline)) static int bytes_insert_other(memo_bytes *m, const uint8_t *key, size_t len,
                                                         uint32_t *index)
{
    if (INLAY_UNLIKELY(!key || len > INT32_MAX)) return -2;
    if (bytes_make_room(m)) return -1;
    const uint8_t *arena = m->arena.data;
    const uint32_t h = (uint32_t)XXH3_64bits(key, len);
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
    return bytes_add(m, p, h, key, len, index);
}

/* An 8..32-byte key whose hash is known. Its words are loaded again rather
 * than passed in: taking their address would keep them out of registers
 * in the bulk loop. */
__attribute__((noinline)) static int short_insert(memo_bytes *m, const uint8_t *key, size_t len, uint32_t h,
                                                   uint32_t *index)
{
    if (bytes_make_room(m)) return -1;
    const short_key words = short_key_load(key, len);
    const short_key *k = &words;
    const uint8_t *arena = m->arena.data;
    memo_bytes_slot probe = { .hash = h, .len = (uint32_t)len };
    const uint64_t tag = slot_tag_of(&probe);
    size_t p = h & m->mask;
    for (;;) {   /* an empty slot's tag is 0, never a tag of 8..32 bytes: test the hit first */
        const memo_bytes_slot *s = &m->slots[p];
        if (slot_tag_of(s) == tag && short_key_equal(k, arena + s->off, len)) {
            *index = s->index1 - 1;
            return 1;
        }
        if (!s->index1) break;
        p = (p + 1) & m->mask;
    }
    return bytes_add(m, p, h, key, len, index);
}

int inl_memo_bytes_insert(memo_bytes *m, const void *data, size_t len, uint32_t *index)
{
    const uint8_t *key = len ? data : (const uint8_t *)"";
    if (len - 8 > 24 || !key) return bytes_insert_other(m, key, len, index);
    const short_key k = short_key_load(key, len);
    return short_insert(m, key, len, short_key_hash(&k, len), index);
}

/* The bulk loop. An 8..32-byte value found at its home slot -- nearly every
 * value once a small dictionary is built, the table being sparse -- costs
 * the hash, one slot and one compare, with the table's fields in registers
 * (a store to out[] would otherwise make the compiler reload them for every
 * value). Anything else (a miss, a collision, another length) goes out of
 * line, and the fields are read again after it. */
/* Past this many slots (1 MiB) a lookup waits on memory rather than on
 * arithmetic: the bulk loop then hashes MEMO_AHEAD values ahead and
 * prefetches their slots, so that several misses are in flight at once. */
#define MEMO_FAR_SLOTS ((size_t)1 << 16)
#define MEMO_AHEAD 8

static inline uint32_t hash_ahead(const inlay_bytes *v)
{
    const size_t len = v->len;
    if (len - 8 > 24 || !v->data) return 0;   /* hashed (or refused) by bytes_insert_other */
    const short_key k = short_key_load(v->data, len);
    return short_key_hash(&k, len);
}

static int bytes_insert_far(memo_bytes *m, const inlay_bytes *v, size_t n, uint32_t *out)
{
    uint32_t ring[MEMO_AHEAD];
    for (size_t j = 0; j < MEMO_AHEAD && j < n; j++) {
        ring[j] = hash_ahead(&v[j]);
        __builtin_prefetch(&m->slots[ring[j] & m->mask]);
    }
    for (size_t i = 0; i < n; i++) {
        const uint32_t h = ring[i % MEMO_AHEAD];
        if (i + MEMO_AHEAD < n) {
            const uint32_t next = hash_ahead(&v[i + MEMO_AHEAD]);
            ring[i % MEMO_AHEAD] = next;
            __builtin_prefetch(&m->slots[next & m->mask]);
        }
        const size_t len = v[i].len;
        const uint8_t *key = v[i].data;
        int r;
        if (INLAY_UNLIKELY(len - 8 > 24 || !key)) {
            r = bytes_insert_other(m, len ? key : (const uint8_t *)"", len, &out[i]);
        } else {
            const memo_bytes_slot *s = &m->slots[h & m->mask];
            memo_bytes_slot probe = { .hash = h, .len = (uint32_t)len };
            if (slot_tag_of(s) == slot_tag_of(&probe)) {
                const short_key k = short_key_load(key, len);
                if (short_key_equal(&k, m->arena.data + s->off, len)) {
                    out[i] = s->index1 - 1;
                    continue;
                }
            }
            r = short_insert(m, key, len, h, &out[i]);
        }
        if (r < 0) return r;
    }
    return 0;
}

static int bytes_insert_run(memo_bytes *m, const inlay_bytes *v, size_t n, uint32_t *out)
{
    if (n && !m->slots && bytes_rehash(m)) return -1;
    if (m->mask + 1 >= MEMO_FAR_SLOTS) return bytes_insert_far(m, v, n, out);
    const memo_bytes_slot *slots = m->slots;
    size_t mask = m->mask;
    const uint8_t *arena = m->arena.data;
    for (size_t i = 0; i < n; i++) {
        const size_t len = v[i].len;
        const uint8_t *key = v[i].data;
        int r;
        if (INLAY_UNLIKELY(len - 8 > 24 || !key)) {
            r = bytes_insert_other(m, len ? key : (const uint8_t *)"", len, &out[i]);
        } else {
            const short_key k = short_key_load(key, len);
            const uint32_t h = short_key_hash(&k, len);
            memo_bytes_slot probe = { .hash = h, .len = (uint32_t)len };
            const memo_bytes_slot *s = &slots[h & mask];
            if (INLAY_LIKELY(slot_tag_of(s) == slot_tag_of(&probe)) && short_key_equal(&k, arena + s->off, len)) {
                out[i] = s->index1 - 1;
                continue;
            }
            r = short_insert(m, key, len, h, &out[i]);
        }
        if (r < 0) return r;
        slots = m->slots;
        mask = m->mask;
        arena = m->arena.data;
        if (INLAY_UNLIKELY(mask + 1 >= MEMO_FAR_SLOTS)) return bytes_insert_far(m, v + i + 1, n - i - 1, out + i + 1);
    }
    return 0;
}

/* Within one bulk call the caller's memory cannot change, so a value at the
 * same address and length as an earlier one in the call is the same value.
 * Batches that repeat values by reference (Lua's interned strings, string
 * pools, dictionary-decoded arrays) then skip the hash and the probe. The
 * cache is direct-mapped on the address and lives only for the call. */
#define MEMO_REF_CACHE 256
#define MEMO_REF_MIN_BATCH 64   /* below this, clearing the cache costs more */
#define MEMO_REF_PROBATION 256  /* values after which a cache that rarely hits is dropped */
#define MEMO_REF_BACKOFF_MAX 64 /* calls skipped, at most, after a failed probation */

typedef struct ref_entry {
    const void *data;
    size_t len;
    uint32_t index;
} ref_entry;

/* One value of the probation loop: found at its home slot inline, as the
 * bulk loop does, so a batch that turns out not to repeat addresses pays
 * little for having tried. */
static inline int bytes_insert_one(memo_bytes *m, const void *data, size_t len, uint32_t *index)
{
    if (INLAY_LIKELY(len - 8 <= 24 && data && m->slots)) {
        const short_key k = short_key_load(data, len);
        const uint32_t h = short_key_hash(&k, len);
        memo_bytes_slot probe = { .hash = h, .len = (uint32_t)len };
        const memo_bytes_slot *s = &m->slots[h & m->mask];
        if (slot_tag_of(s) == slot_tag_of(&probe) && short_key_equal(&k, m->arena.data + s->off, len)) {
            *index = s->index1 - 1;
            return 1;
        }
        return short_insert(m, data, len, h, index);
    }
    return inl_memo_bytes_insert(m, data, len, index);
}

int inl_memo_bytes_insert_many(memo_bytes *m, const inlay_bytes *v, size_t n, uint32_t *out)
{
    if (n < MEMO_REF_MIN_BATCH) return bytes_insert_run(m, v, n, out);
    /* A stream whose batches keep failing probation skips it for a growing
     * number of calls (1, 2, 4 .. MEMO_REF_BACKOFF_MAX) before trying again. */
    if (m->ref_skip) {
        m->ref_skip--;
        return bytes_insert_run(m, v, n, out);
    }
    ref_entry cache[MEMO_REF_CACHE];
    for (size_t k = 0; k < MEMO_REF_CACHE; k++) cache[k].len = SIZE_MAX;   /* no value is that long */
    size_t i = 0, hits = 0;
    for (; i < n; i++) {
        /* A batch whose values rarely share addresses stops paying for it. */
        if (i == MEMO_REF_PROBATION && hits < MEMO_REF_PROBATION / 4) {
            m->ref_skip = m->ref_backoff ? m->ref_backoff : 1;
            m->ref_backoff = m->ref_skip < MEMO_REF_BACKOFF_MAX ? m->ref_skip * 2 : MEMO_REF_BACKOFF_MAX;
            break;
        }
        const void *d = v[i].data;
        const size_t len = v[i].len;
        ref_entry *c = &cache[((uintptr_t)d * 0x9E3779B97F4A7C15ull) >> 56];
        if (c->data == d && c->len == len) {
            out[i] = c->index;
            hits++;
            continue;
        }
        int r = bytes_insert_one(m, d, len, &out[i]);
        if (r < 0) return r;
        c->data = d;
        c->len = len;
        c->index = out[i];
    }
    if (i == n) m->ref_backoff = 0;
    return bytes_insert_run(m, v + i, n - i, out + i);
}
