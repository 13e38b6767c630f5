/*
 * alloc.c — the default allocator and the growable buffer.
 */
#define _DEFAULT_SOURCE   /* madvise */
#include "alloc.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#if defined(__linux__)
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23   /* Linux 5.14; older headers lack it */
#endif
#endif

/* Buffers below this size are left to fault: their few pages are not worth a call. */
enum { PREFAULT_MIN_CAP = 64 * 1024 };
/* How far past a small write a large buffer's pages are mapped, so that the
 * small writes that follow it do not each come back for more. */
enum { PREFAULT_RUNWAY = 64 * 1024 };

static void *default_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud; (void)osize;
    if (nsize == 0) { free(ptr); return NULL; }
    return realloc(ptr, nsize);
}

inlay_allocator inl_mem_default(void)
{
    inlay_allocator a = { default_alloc, NULL };
    return a;
}

static void *locked_fn(void *ud, void *p, size_t old, size_t n)
{
    locked_alloc *l = ud;
    pthread_mutex_lock(&l->lock);
    void *r = l->inner.fn(l->inner.ud, p, old, n);
    pthread_mutex_unlock(&l->lock);
    return r;
}

void inl_mem_locked_init(locked_alloc *l, inlay_allocator inner)
{
    l->inner = inner;
    pthread_mutex_init(&l->lock, NULL);
}

inlay_allocator inl_mem_locked(locked_alloc *l)
{
    inlay_allocator a = { locked_fn, l };
    return a;
}

void inl_mem_locked_destroy(locked_alloc *l) { pthread_mutex_destroy(&l->lock); }

inlay_allocator inl_mem_or_default(const inlay_allocator *a)
{
    return (a && a->fn) ? *a : inl_mem_default();
}

void *inl_mem_alloc(const inlay_allocator *a, size_t n)
{
    return n ? a->fn(a->ud, NULL, 0, n) : NULL;
}

void *inl_mem_realloc(const inlay_allocator *a, void *p, size_t old, size_t n)
{
    if (!p) return inl_mem_alloc(a, n);
    return a->fn(a->ud, p, old, n);
}

void inl_mem_free(const inlay_allocator *a, void *p, size_t n)
{
    if (p) a->fn(a->ud, p, n, 0);
}

char *inl_mem_strdup(const inlay_allocator *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = inl_mem_alloc(a, n);
    if (c) memcpy(c, s, n);
    return c;
}

void inl_mem_strfree(const inlay_allocator *a, char *s)
{
    if (s) inl_mem_free(a, s, strlen(s) + 1);
}

/* zstd's and zlib's free hooks are not told the size; keep it in a header
 * before each block. */
typedef union { size_t size; max_align_t align; } block_header;

void *inl_mem_sized_alloc(void *allocator, size_t size)
{
    if (size > SIZE_MAX - sizeof(block_header)) return NULL;
    block_header *h = inl_mem_alloc(allocator, sizeof *h + size);
    if (!h) return NULL;
    h->size = sizeof *h + size;
    return h + 1;
}

void inl_mem_sized_free(void *allocator, void *p)
{
    if (!p) return;
    block_header *h = (block_header *)p - 1;
    inl_mem_free(allocator, h, h->size);
}

#if defined(__linux__)
static atomic_bool prefault_unsupported;
#endif

void inl_mem_prefault(void *p, size_t n)
{
#if defined(__linux__)
    if (!n || atomic_load_explicit(&prefault_unsupported, memory_order_relaxed)) return;
    static atomic_size_t page_size;
    size_t page = atomic_load_explicit(&page_size, memory_order_relaxed);
    if (!page) {
        const long ps = sysconf(_SC_PAGESIZE);
        page = ps > 0 ? (size_t)ps : 4096;
        atomic_store_explicit(&page_size, page, memory_order_relaxed);
    }
    /* whole pages: the first and last are the block's own, at least in part */
    const uintptr_t lo = (uintptr_t)p & ~(uintptr_t)(page - 1);
    const uintptr_t hi = ((uintptr_t)p + n + page - 1) & ~(uintptr_t)(page - 1);
    const int saved = errno;
    /* EINVAL: a kernel before 5.14; EPERM, ENOSYS: a sandbox that refuses
     * it. Not asked again. The others (no memory now, a signal) are
     * passing: the pages fault as they are written. */
    if (madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) != 0 && errno != ENOMEM && errno != EINTR &&
        errno != EAGAIN && errno != EFAULT)
        atomic_store_explicit(&prefault_unsupported, true, memory_order_relaxed);
    errno = saved;
#else
    (void)p; (void)n;
#endif
}

void inl_buf_ready(buf *b, size_t end)
{
    if (end > b->cap) end = b->cap;
    if (end <= b->ready) return;
    if (b->cap < PREFAULT_MIN_CAP) {
        b->ready = b->cap;
        return;
    }
    /* bytes up to len have been written: their pages are in */
    const size_t from = b->ready > b->len ? b->ready : b->len;
    if (end > from) inl_mem_prefault(b->data + from, end - from);
    b->ready = end;
}

int inl_buf_grow(buf *b, const inlay_allocator *a, size_t need)
{
    if (need <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) { cap = need; break; }
        cap *= 2;
    }
    uint8_t *d = inl_mem_realloc(a, b->data, b->cap, cap);
    if (!d) return -1;
    b->data = d;
    b->cap = cap;
    /* a new block may have been given: only what was written is known to be in */
    if (b->ready > b->len) b->ready = b->len;
    return 0;
}

int inl_buf_room(buf *b, const inlay_allocator *a, size_t extra)
{
    if (b->cap - b->len < extra && inl_buf_grow(b, a, b->len + extra)) return -1;
    inl_buf_ready(b, b->len + (extra > PREFAULT_RUNWAY ? extra : PREFAULT_RUNWAY));
    return 0;
}

int inl_buf_grow_empty(buf *b, const inlay_allocator *a, size_t need)
{
    if (need <= b->cap) return 0;
    buf fresh = { 0 };
    if (inl_buf_grow(&fresh, a, need)) return -1;
    inl_buf_free(b, a);
    *b = fresh;
    return 0;
}

void inl_buf_shrink(buf *b, const inlay_allocator *a, size_t slack)
{
    if (b->cap <= b->len + slack) return;
    if (!b->len) {
        inl_buf_free(b, a);
        return;
    }
    uint8_t *d = inl_mem_realloc(a, b->data, b->cap, b->len);
    if (!d) return;   /* keeping the larger block is as good */
    b->data = d;
    b->cap = b->len;
    if (b->ready > b->cap) b->ready = b->cap;
}

void inl_buf_free(buf *b, const inlay_allocator *a)
{
    inl_mem_free(a, b->data, b->cap);
    b->data = NULL;
    b->len = b->cap = b->ready = 0;
}
