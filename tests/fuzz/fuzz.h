/*
 * fuzz.h — what the fuzz harnesses share: a check that aborts (so both
 * libFuzzer and the replay driver report it as a crash), an allocator that
 * counts what the library holds and can refuse the Nth request, a memory
 * reader handing out the input in chunks of a chosen size, and a growable
 * log for comparing two runs over the same input.
 *
 * Each harness defines LLVMFuzzerTestOneInput and nothing else global; it
 * is linked either with libFuzzer (-fsanitize=fuzzer) or with replay.c,
 * which runs it over the files of a corpus directory.
 *
 * The allocator follows tests/unit/unit.h: every block carries a header
 * with its size, so a free or realloc reporting another size is caught,
 * and live bytes come back to 0 once everything is freed. Its counters are
 * atomic: a source with threads = 2 allocates from its own thread too.
 */
#ifndef INLAY_FUZZ_H
#define INLAY_FUZZ_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inlay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property that must hold: print where and why, then abort. */
#define FUZZ_CHECK(cond, ...)                                                              \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: check failed: %s\n  ", __FILE__, __LINE__, #cond);     \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fputc('\n', stderr);                                                           \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

/* ---- counting allocator ------------------------------------------------------------ */

typedef struct fuzz_alloc {
    atomic_size_t live_bytes;
    atomic_size_t live_blocks;
    atomic_ulong requests;        /* calls with nsize > 0 */
    atomic_ulong refused;
    atomic_ulong bad_sizes;       /* osize not the block's size, or a new block with osize != 0 */
    unsigned long fail_at;        /* refuse request number fail_at (1-based); 0 = never */
    bool fail_after;              /* and every request after it */
} fuzz_alloc;

typedef union fuzz_block {
    size_t size;
    max_align_t align;
} fuzz_block;

static inline void fuzz_alloc_init(fuzz_alloc *t, unsigned long fail_at, bool fail_after)
{
    atomic_init(&t->live_bytes, 0);
    atomic_init(&t->live_blocks, 0);
    atomic_init(&t->requests, 0);
    atomic_init(&t->refused, 0);
    atomic_init(&t->bad_sizes, 0);
    t->fail_at = fail_at;
    t->fail_after = fail_after;
}

static inline void *fuzz_alloc_fn(void *ud, void *ptr, size_t osize, size_t nsize)
{
    fuzz_alloc *t = ud;
    fuzz_block *h = ptr ? (fuzz_block *)ptr - 1 : NULL;
    if ((h && h->size != osize) || (!h && osize != 0 && nsize != 0)) atomic_fetch_add(&t->bad_sizes, 1);
    if (nsize == 0) {
        if (h) {
            atomic_fetch_sub(&t->live_bytes, h->size);
            atomic_fetch_sub(&t->live_blocks, 1);
            free(h);
        }
        return NULL;
    }
    const unsigned long n = atomic_fetch_add(&t->requests, 1) + 1;
    if (t->fail_at && (n == t->fail_at || (t->fail_after && n > t->fail_at))) {
        atomic_fetch_add(&t->refused, 1);
        return NULL;
    }
    /* a request past what a fuzz input can need is a bug, not a big input */
    FUZZ_CHECK(nsize < ((size_t)1 << 31), "allocation of %zu bytes (was %zu)", nsize, osize);
    const size_t old = h ? h->size : 0;
    fuzz_block *b = realloc(h, sizeof *b + nsize);
    if (!b) return NULL;
    b->size = nsize;
    if (!h) atomic_fetch_add(&t->live_blocks, 1);
    atomic_fetch_add(&t->live_bytes, nsize);
    atomic_fetch_sub(&t->live_bytes, old);
    return b + 1;
}

static inline inlay_allocator fuzz_allocator(fuzz_alloc *t)
{
    inlay_allocator a = { fuzz_alloc_fn, t };
    return a;
}

/* Everything given back, with the sizes it was taken with. */
static inline void fuzz_alloc_check_empty(fuzz_alloc *t)
{
    const size_t bytes = atomic_load(&t->live_bytes), blocks = atomic_load(&t->live_blocks);
    const unsigned long bad = atomic_load(&t->bad_sizes);
    FUZZ_CHECK(bytes == 0 && blocks == 0 && bad == 0,
               "leak or size mismatch: %zu bytes in %zu blocks live, %lu calls with a wrong osize", bytes,
               blocks, bad);
}

/* ---- memory reader ------------------------------------------------------------------- */

/* Hands out data[0..len) in reads of at most `chunk` bytes (0 = as much as
 * asked), the shape of input_read_fn and ndjson_read_fn. */
typedef struct fuzz_reader {
    const uint8_t *data;
    size_t len, pos, chunk;
} fuzz_reader;

static inline ptrdiff_t fuzz_read(void *ctx, void *dst, size_t cap)
{
    fuzz_reader *r = ctx;
    size_t n = r->len - r->pos;
    if (n > cap) n = cap;
    if (r->chunk && n > r->chunk) n = r->chunk;
    if (n) memcpy(dst, r->data + r->pos, n);
    r->pos += n;
    return (ptrdiff_t)n;
}

/* ---- log ------------------------------------------------------------------------------- */

/* What a run produced, as bytes, to compare with another run (plain malloc:
 * outside any allocator under test). */
typedef struct fuzz_log {
    uint8_t *data;
    size_t len, cap;
} fuzz_log;

static inline void fuzz_log_put(fuzz_log *l, const void *p, size_t n)
{
    if (l->cap - l->len < n) {
        size_t cap = l->cap ? l->cap : 4096;
        while (cap - l->len < n) cap *= 2;
        uint8_t *d = realloc(l->data, cap);
        FUZZ_CHECK(d != NULL, "out of memory for the log");
        l->data = d;
        l->cap = cap;
    }
    if (n) memcpy(l->data + l->len, p, n);
    l->len += n;
}

static inline void fuzz_log_u64(fuzz_log *l, uint64_t v)
{
    fuzz_log_put(l, &v, sizeof v);
}

/* A length, then the bytes. */
static inline void fuzz_log_bytes(fuzz_log *l, const void *p, size_t n)
{
    fuzz_log_u64(l, n);
    fuzz_log_put(l, p, n);
}

static inline void fuzz_log_str(fuzz_log *l, const char *s)
{
    fuzz_log_bytes(l, s, strlen(s));
}

static inline void fuzz_log_free(fuzz_log *l)
{
    free(l->data);
    l->data = NULL;
    l->len = l->cap = 0;
}

/* The first offset where two logs differ (for the message), or SIZE_MAX. */
static inline size_t fuzz_log_diff(const fuzz_log *a, const fuzz_log *b)
{
    const size_t n = a->len < b->len ? a->len : b->len;
    for (size_t i = 0; i < n; i++)
        if (a->data[i] != b->data[i]) return i;
    return a->len == b->len ? SIZE_MAX : n;
}

/* Reads every byte of p[0..n): under AddressSanitizer a pointer into freed
 * or foreign memory shows up here, where the harness got it. */
static inline unsigned fuzz_touch(const void *p, size_t n)
{
    const volatile uint8_t *b = p;
    unsigned sum = 0;
    for (size_t i = 0; i < n; i++) sum += b[i];
    return sum;
}

#endif
