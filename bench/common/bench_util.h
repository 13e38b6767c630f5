/*
 * bench_util.h — the helpers the benchmarks share.
 *
 * This file owns:
 *
 *     rng, splitmix64, rng_seed, rotl, rng_next
 *                   the xoshiro256** PRNG seeded by splitmix64
 *     counting, counting_alloc
 *                   the counting inlay_allocator given to the library
 *     mc_arm, mc_get, mc_find
 *                   the optional malloc interposer (malloc_count.c), found
 *                   with dlsym
 *     now, cmp_double, median, die, xmalloc, parse_u64
 *                   timing, medians and error exits
 *
 * It is meant to be included once, by one benchmark's .c file: everything
 * is static. Define BENCH_NAME (the program name that starts error
 * messages) and _GNU_SOURCE (for RTLD_DEFAULT) before including it.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#ifndef BENCH_NAME
#error "define BENCH_NAME before including bench_util.h"
#endif

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/*----------------------------------------------------------------------
 *  PRNG: xoshiro256** seeded by splitmix64. Fast and deterministic.
 *--------------------------------------------------------------------*/

typedef struct rng {
    uint64_t s[4];
} rng;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void rng_seed(rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/*----------------------------------------------------------------------
 *  The counting allocator given to the library
 *--------------------------------------------------------------------*/

typedef struct counting {
    uint64_t allocs;   /* new blocks */
    uint64_t reallocs; /* resized blocks */
    uint64_t frees;
    uint64_t bytes;    /* sum of the sizes asked for by allocs and reallocs */
    int64_t live;      /* bytes held now */
    int64_t peak;      /* most bytes held at once */
} counting;

static void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    counting *c = ud;
    if (nsize == 0) {
        if (ptr) {
            c->frees++;
            c->live -= (int64_t)osize;
            free(ptr);
        }
        return NULL;
    }
    void *p;
    if (ptr == NULL) {
        p = malloc(nsize);
        if (!p)
            return NULL;
        c->allocs++;
        c->live += (int64_t)nsize;
    } else {
        p = realloc(ptr, nsize);
        if (!p)
            return NULL;
        c->reallocs++;
        c->live += (int64_t)nsize - (int64_t)osize;
    }
    c->bytes += nsize;
    if (c->live > c->peak)
        c->peak = c->live;
    return p;
}

/*----------------------------------------------------------------------
 *  The optional malloc interposer (malloc_count.c), found with dlsym
 *--------------------------------------------------------------------*/

typedef void (*mc_arm_fn)(int on);
typedef void (*mc_get_fn)(uint64_t out[5]); /* malloc, calloc, realloc, memalign family, free */

static mc_arm_fn mc_arm;
static mc_get_fn mc_get;

static void mc_find(void)
{
    mc_arm = (mc_arm_fn)dlsym(RTLD_DEFAULT, "bench_malloc_count_arm");
    mc_get = (mc_get_fn)dlsym(RTLD_DEFAULT, "bench_malloc_count_get");
    if (!mc_arm || !mc_get)
        mc_arm = NULL, mc_get = NULL;
}

/*----------------------------------------------------------------------
 *  Helpers
 *--------------------------------------------------------------------*/

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void die(const char *what)
{
    fprintf(stderr, BENCH_NAME ": %s\n", what);
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

static uint64_t parse_u64(const char *opt, const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-') {
        fprintf(stderr, BENCH_NAME ": %s wants a non-negative integer, got '%s'\n", opt, s);
        exit(2);
    }
    return v;
}

#endif /* BENCH_UTIL_H */
