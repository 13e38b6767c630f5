/*
 * alloc.h — the one allocator hook and the growable byte buffer.
 *
 * Nothing in runtime/ calls malloc directly: every block comes from an
 * inlay_allocator (lua_Alloc-shaped: ud, ptr, old size, new size). A `buf`
 * is {data, len, cap, ready}; it grows by doubling and is reused across
 * pages and row groups by resetting len, so steady-state writing allocates
 * nothing.
 *
 * Memory a buffer has not written yet costs a page fault per page on its
 * first write, and on a virtual machine a fault costs several times what
 * mapping the same pages in one call does (measured here: 3.5-5 ms per
 * MiB written into fresh pages, 2 ms when they were mapped first). So a
 * large buffer asks the kernel to map its pages before they are written
 * (inl_mem_prefault): `ready` is how far that has been done, always within
 * cap. Nothing is read or changed by it; where the system cannot, the
 * pages simply fault as before.
 */
#ifndef INLAY_ALLOC_H
#define INLAY_ALLOC_H

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "inlay.h"

#define INLAY_LIKELY(x) __builtin_expect(!!(x), 1)
#define INLAY_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Hot loops over 64-bit integers (deltas, min/max) vectorise only with
 * AVX2's 64-bit compares; build them twice and let the loader pick the one
 * the processor runs. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#define INLAY_MULTIVERSION __attribute__((target_clones("avx2", "default")))
#else
#define INLAY_MULTIVERSION
#endif

/* An allocator called under a lock: for a host's allocator that is not
 * thread-safe, when worker threads call it too. */
typedef struct locked_alloc {
    inlay_allocator inner;
    pthread_mutex_t lock;
} locked_alloc;
void inl_mem_locked_init(locked_alloc *l, inlay_allocator inner);
inlay_allocator inl_mem_locked(locked_alloc *l);
void inl_mem_locked_destroy(locked_alloc *l);

/* The default allocator: malloc/realloc/free. */
inlay_allocator inl_mem_default(void);
/* a if it has a function, else the default. */
inlay_allocator inl_mem_or_default(const inlay_allocator *a);

void *inl_mem_alloc(const inlay_allocator *a, size_t n);
void *inl_mem_realloc(const inlay_allocator *a, void *p, size_t old, size_t n);
void inl_mem_free(const inlay_allocator *a, void *p, size_t n);
/* A NUL-terminated copy of s, or NULL when out of memory. */
char *inl_mem_strdup(const inlay_allocator *a, const char *s);
void inl_mem_strfree(const inlay_allocator *a, char *s);

/* For libraries whose free hook has no size (zstd's ZSTD_customMem, zlib's
 * zfree): blocks that remember their size. `allocator` is an
 * inlay_allocator *, untyped to fit those hooks. */
void *inl_mem_sized_alloc(void *allocator, size_t size);
void inl_mem_sized_free(void *allocator, void *p);

typedef struct buf {
    uint8_t *data;
    size_t len;
    size_t cap;
    size_t ready;   /* bytes from data the kernel has been asked to map (inl_buf_ready) */
} buf;

/* Ask the kernel to map the pages of [p, p + n) for writing now, in one
 * call, rather than one fault per page as they are first written; their
 * contents are not touched. Does nothing where the system cannot (not
 * Linux, or a kernel older than 5.14). */
void inl_mem_prefault(void *p, size_t n);

/* Make room for `extra` more bytes. Returns 0, or -1 when out of memory
 * (the buffer is unchanged). */
int inl_buf_grow(buf *b, const inlay_allocator *a, size_t need);
/* The same for a buffer whose bytes are not needed (len is 0, and nothing
 * past it is read): a new block, rather than realloc copying the old one. */
int inl_buf_grow_empty(buf *b, const inlay_allocator *a, size_t need);
/* The slow side of inl_buf_reserve: room made if need be, and the pages
 * of the next `extra` bytes (and then some, for the small writes that
 * follow) mapped when the buffer is large. */
int inl_buf_room(buf *b, const inlay_allocator *a, size_t extra);
static inline int inl_buf_reserve(buf *b, const inlay_allocator *a, size_t extra)
{
    if (INLAY_LIKELY(b->ready > b->len && b->ready - b->len >= extra)) return 0;
    return inl_buf_room(b, a, extra);
}
/* The pages of data[0, end) mapped (end within cap), for a caller that
 * writes past len without reserving: the codec writing a page in place. */
void inl_buf_ready(buf *b, size_t end);
/* The buffer holding exactly `bytes` (contents undefined), its room
 * reused. Returns 0, or -1 when out of memory. */
static inline int inl_buf_sized(buf *b, const inlay_allocator *a, size_t bytes)
{
    b->len = 0;
    if (inl_buf_reserve(b, a, bytes)) return -1;
    b->len = bytes;
    return 0;
}
static inline int inl_buf_append(buf *b, const inlay_allocator *a, const void *p, size_t n)
{
    if (inl_buf_reserve(b, a, n)) return -1;
    if (n) memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}
void inl_buf_free(buf *b, const inlay_allocator *a);
/* Give back the room past len when there is more than `slack` bytes of it
 * (all of it for an empty buffer); never fails. */
void inl_buf_shrink(buf *b, const inlay_allocator *a, size_t slack);

static inline void inl_put_u32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}

#endif
