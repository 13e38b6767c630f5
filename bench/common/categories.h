/*
 * categories.h — the benchmark table's string column: 100 distinct ASCII
 * strings of 8..32 bytes, the same for every seed, shared by the
 * benchmarks that write that table (write_table, dataset) so that their
 * rows are the same. Include after inlay.h and bench_util.h.
 */
#ifndef BENCH_CATEGORIES_H
#define BENCH_CATEGORIES_H

#define NUM_CATEGORIES 100
#define CATEGORY_MIN 8
#define CATEGORY_MAX 32

/* Uniform in [0, n) for n < 2^32 (Lemire's multiply-shift, no division). */
static inline uint32_t below(uint32_t x32, uint32_t n)
{
    return (uint32_t)(((uint64_t)x32 * n) >> 32);
}

static char category_text[NUM_CATEGORIES][CATEGORY_MAX];
static inlay_bytes categories[NUM_CATEGORIES];

static void make_categories(void)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789_-";
    rng r;
    rng_seed(&r, 0xca7e60e1u);
    for (int i = 0; i < NUM_CATEGORIES; i++) {
        size_t len = CATEGORY_MIN + below((uint32_t)rng_next(&r), CATEGORY_MAX - CATEGORY_MIN + 1);
        /* a distinct prefix keeps the 100 values distinct */
        int p = snprintf(category_text[i], CATEGORY_MAX, "c%02d_", i);
        for (size_t j = (size_t)p; j < len; j++)
            category_text[i][j] = alphabet[below((uint32_t)rng_next(&r), sizeof alphabet - 1)];
        categories[i].data = category_text[i];
        categories[i].len = len;
    }
}

#endif
