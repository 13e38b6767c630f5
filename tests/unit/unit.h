/*
 * unit.h — what the unit suites share: a counting allocator that can fail
 * on request, a sink that records (and can fail) its calls, and a few
 * helpers for building and comparing bytes.
 *
 * The counting allocator follows Lua's ltests.c debug_realloc: every block
 * carries a header with its real size, so a free or realloc that reports a
 * different osize is caught (`bad_sizes`), and live bytes are tracked from
 * the osize the library reports, which must come back to 0 once everything
 * is freed. `fail_at` = N refuses the Nth request for memory (nsize > 0);
 * with `fail_after` set, every request from the Nth on is refused.
 */
#ifndef INLAY_UNIT_H
#define INLAY_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "inlay.h"

/* Check records every assertion that holds (_mark_point writes and flushes
 * a message, so that a crash can name the last one reached). The suites
 * that compare millions of values spent most of their time there: minutes
 * under the sanitizers. Here an assertion that holds costs its test only;
 * one that fails reports its file and line as before, and a crash is
 * placed by the sanitizers' stacks or a debugger. */
#undef ck_assert_msg
#define ck_assert_msg(expr, ...) \
    ((expr) ? (void)0 : _ck_assert_failed(__FILE__, __LINE__, "Assertion '" #expr "' failed", ## __VA_ARGS__))

/* ---- counting allocator --------------------------------------------- */

typedef struct test_alloc {
    size_t live_bytes;          /* sum of the sizes the library says it holds */
    size_t live_blocks;
    size_t peak_bytes;
    unsigned long requests;     /* calls with nsize > 0 (allocations and resizes) */
    unsigned long fail_at;      /* refuse request number fail_at (1-based); 0 = never */
    bool fail_after;            /* refuse every request from fail_at on */
    unsigned long refused;
    unsigned long bad_sizes;    /* osize not the size the block has */
    unsigned long bad_new;      /* a new block (ptr NULL) asked for with osize != 0 */
} test_alloc;

typedef union test_block {
    size_t size;
    max_align_t align;
} test_block;

/* The writer's worker threads call it too: one lock for every counter. */
static pthread_mutex_t test_alloc_lock = PTHREAD_MUTEX_INITIALIZER;

static inline void *test_alloc_locked(void *ud, void *ptr, size_t osize, size_t nsize);

static inline void *test_alloc_fn(void *ud, void *ptr, size_t osize, size_t nsize)
{
    pthread_mutex_lock(&test_alloc_lock);
    void *r = test_alloc_locked(ud, ptr, osize, nsize);
    pthread_mutex_unlock(&test_alloc_lock);
    return r;
}

static inline void *test_alloc_locked(void *ud, void *ptr, size_t osize, size_t nsize)
{
    test_alloc *t = ud;
    test_block *h = ptr ? (test_block *)ptr - 1 : NULL;
    if (h && h->size != osize) t->bad_sizes++;
    if (!h && osize != 0 && nsize != 0) t->bad_new++;
    if (nsize == 0) {
        if (h) {
            t->live_bytes -= osize;
            t->live_blocks--;
            free(h);
        }
        return NULL;
    }
    t->requests++;
    if (t->fail_at && (t->requests == t->fail_at || (t->fail_after && t->requests > t->fail_at))) {
        t->refused++;
        return NULL;
    }
    test_block *n = realloc(h, sizeof *n + nsize);
    if (!n) return NULL;
    n->size = nsize;
    if (h) {
        t->live_bytes -= osize;
    } else {
        t->live_blocks++;
    }
    t->live_bytes += nsize;
    if (t->live_bytes > t->peak_bytes) t->peak_bytes = t->live_bytes;
    return n + 1;
}

static inline inlay_allocator test_allocator(test_alloc *t)
{
    inlay_allocator a = { test_alloc_fn, t };
    return a;
}

/* Everything given back, and with the sizes it was taken with. */
#define ck_assert_no_leak(t)                                                          \
    ck_assert_msg((t)->live_bytes == 0 && (t)->live_blocks == 0 && (t)->bad_sizes == 0 && \
                  (t)->bad_new == 0,                                                 \
                  "leak or size mismatch: %zu bytes in %zu blocks live, %lu frees/reallocs " \
                  "with a wrong osize, %lu new blocks with osize != 0", (t)->live_bytes,    \
                  (t)->live_blocks, (t)->bad_sizes, (t)->bad_new)

/* ---- recording sink --------------------------------------------------- */

/* Keeps the bytes (with malloc, outside any allocator under test) and
 * counts every call; `fail_write` = N makes the Nth write fail,
 * `fail_finish` makes finish fail. Calls after finish or abort are counted
 * as `late_calls`. */
typedef struct test_sink {
    uint8_t *data;
    size_t len, cap;
    unsigned long writes, finishes, aborts, late_calls, writes_after_failure;
    unsigned long fail_write;
    bool fail_finish;
    bool failed, done;
} test_sink;

static inline int test_sink_write(void *ctx, const void *p, size_t n)
{
    test_sink *s = ctx;
    if (s->done) s->late_calls++;
    if (s->failed) s->writes_after_failure++;
    s->writes++;
    if (s->fail_write && s->writes == s->fail_write) {
        s->failed = true;
        return -1;
    }
    if (s->len + n > s->cap) {
        size_t cap = s->cap ? s->cap : 1024;
        while (cap < s->len + n) cap *= 2;
        uint8_t *d = realloc(s->data, cap);
        if (!d) return -1;
        s->data = d;
        s->cap = cap;
    }
    if (n) memcpy(s->data + s->len, p, n);
    s->len += n;
    return 0;
}

static inline int test_sink_finish(void *ctx)
{
    test_sink *s = ctx;
    if (s->done) s->late_calls++;
    s->finishes++;
    s->done = true;
    return s->fail_finish ? -1 : 0;
}

static inline void test_sink_abort(void *ctx)
{
    test_sink *s = ctx;
    if (s->done) s->late_calls++;
    s->aborts++;
    s->done = true;
}

static inline inlay_sink test_sink_interface(test_sink *s)
{
    inlay_sink k = { test_sink_write, test_sink_finish, test_sink_abort, s };
    return k;
}

static inline void test_sink_free(test_sink *s)
{
    free(s->data);
    memset(s, 0, sizeof *s);
}

/* ---- bytes ------------------------------------------------------------- */

/* "0a 0b ..." of up to 48 bytes, for failure messages. */
static inline const char *hex(const void *p, size_t n)
{
    static char text[3 * 48 + 8];
    const uint8_t *b = p;
    size_t k = 0;
    for (size_t i = 0; i < n && i < 48; i++) k += (size_t)snprintf(text + k, sizeof text - k, "%02x ", b[i]);
    if (n > 48) snprintf(text + k, sizeof text - k, "...");
    else if (k) text[k - 1] = 0;
    else text[0] = 0;
    return text;
}

#define ck_assert_bytes(got, got_len, want, want_len)                                  \
    do {                                                                             \
        const void *ck_g_ = (got), *ck_w_ = (want);                                   \
        size_t ck_gl_ = (got_len), ck_wl_ = (want_len);                               \
        char ck_gs_[3 * 48 + 8];                                                      \
        snprintf(ck_gs_, sizeof ck_gs_, "%s", hex(ck_g_, ck_gl_));                    \
        ck_assert_msg(ck_gl_ == ck_wl_ && (ck_wl_ == 0 || memcmp(ck_g_, ck_w_, ck_wl_) == 0), \
                      "bytes differ:\n  got  [%zu] %s\n  want [%zu] %s", ck_gl_, ck_gs_,  \
                      ck_wl_, hex(ck_w_, ck_wl_));                                   \
    } while (0)

/* A deterministic generator (xorshift64*), so every run sees the same data. */
static inline uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static inline inlay_bytes bytes_of(const char *s)
{
    inlay_bytes b = { s, strlen(s) };
    return b;
}

static inline uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#endif
