/*
 * libbench_malloc_count.so — a malloc interposer for the benchmarks.
 *
 *     LD_PRELOAD=build/bench/libbench_malloc_count.so build/bench/bench_write_table ...
 *
 * It forwards malloc, calloc, realloc, free and the aligned allocation
 * functions to the C library, counting the calls made while it is armed.
 * A benchmark finds the two functions below with dlsym(RTLD_DEFAULT, ...),
 * arms the counter around its timed section, and compares the counts with
 * those of the allocator it gave to the library: any extra call is memory
 * that bypassed the library allocator (a third-party library allocating on
 * its own, the C library's stdio buffers, ...).
 *
 * Counting is process-wide (all threads).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define VISIBLE __attribute__((visibility("default")))

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);
static void *(*real_pvalloc)(size_t);

static int armed;
static uint64_t n_malloc, n_calloc, n_realloc, n_memalign, n_free;

/* dlsym may allocate before the real functions are known: serve those
 * requests from a static arena that is never freed. */
static _Alignas(16) unsigned char boot[8192];
static size_t boot_used;
static int resolving;

static void *boot_alloc(size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (n > sizeof boot - boot_used)
        return NULL;
    void *p = boot + boot_used;
    boot_used += n;
    return p; /* static storage: already zero */
}

static int in_boot(const void *p)
{
    return (const unsigned char *)p >= boot && (const unsigned char *)p < boot + sizeof boot;
}

static void resolve(void)
{
    if (real_malloc || resolving)
        return;
    resolving = 1;
    real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
    real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    real_posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
    real_aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
    real_memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
    real_valloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "valloc");
    real_pvalloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "pvalloc");
    real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc"); /* last: marks "resolved" */
    resolving = 0;
}

static inline void count(uint64_t *c)
{
    if (__atomic_load_n(&armed, __ATOMIC_RELAXED))
        __atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

VISIBLE void bench_malloc_count_arm(int on)
{
    __atomic_store_n(&armed, on, __ATOMIC_SEQ_CST);
}

/* out: malloc, calloc, realloc, memalign family, free — totals while armed. */
VISIBLE void bench_malloc_count_get(uint64_t out[5])
{
    out[0] = __atomic_load_n(&n_malloc, __ATOMIC_SEQ_CST);
    out[1] = __atomic_load_n(&n_calloc, __ATOMIC_SEQ_CST);
    out[2] = __atomic_load_n(&n_realloc, __ATOMIC_SEQ_CST);
    out[3] = __atomic_load_n(&n_memalign, __ATOMIC_SEQ_CST);
    out[4] = __atomic_load_n(&n_free, __ATOMIC_SEQ_CST);
}

VISIBLE void *malloc(size_t n)
{
    if (!real_malloc) {
        resolve();
        if (!real_malloc)
            return boot_alloc(n);
    }
    count(&n_malloc);
    return real_malloc(n);
}

VISIBLE void *calloc(size_t n, size_t size)
{
    if (!real_malloc) {
        resolve();
        if (!real_malloc) {
            if (size && n > SIZE_MAX / size)
                return NULL;
            return boot_alloc(n * size);
        }
    }
    count(&n_calloc);
    return real_calloc(n, size);
}

VISIBLE void *realloc(void *p, size_t n)
{
    if (in_boot(p)) {
        /* rare: move a bootstrap block to the real heap */
        void *q = malloc(n);
        if (q) {
            size_t avail = (size_t)(boot + sizeof boot - (unsigned char *)p);
            memcpy(q, p, n < avail ? n : avail);
        }
        return q;
    }
    if (!real_malloc)
        resolve();
    count(&n_realloc);
    return real_realloc(p, n);
}

VISIBLE void free(void *p)
{
    if (!p || in_boot(p))
        return;
    if (!real_malloc)
        resolve();
    count(&n_free);
    real_free(p);
}

VISIBLE int posix_memalign(void **out, size_t align, size_t n)
{
    if (!real_malloc)
        resolve();
    count(&n_memalign);
    return real_posix_memalign(out, align, n);
}

VISIBLE void *aligned_alloc(size_t align, size_t n)
{
    if (!real_malloc)
        resolve();
    count(&n_memalign);
    return real_aligned_alloc(align, n);
}

VISIBLE void *memalign(size_t align, size_t n)
{
    if (!real_malloc)
        resolve();
    count(&n_memalign);
    return real_memalign(align, n);
}

VISIBLE void *valloc(size_t n)
{
    if (!real_malloc)
        resolve();
    count(&n_memalign);
    return real_valloc(n);
}

VISIBLE void *pvalloc(size_t n)
{
    if (!real_malloc)
        resolve();
    count(&n_memalign);
    return real_pvalloc(n);
}
