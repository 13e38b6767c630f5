/*
 * check_bloom.c — the split-block bloom filter (runtime/encode/bloom.c):
 * the bit layout and block choice of parquet-format's BloomFilter.md,
 * against values worked out independently of the module (the formula with
 * its constants written out here, and XXH64 results computed by a separate
 * implementation); the sizing formula and its clamps; no false negatives
 * and the false-positive rate over a million values; the hashes of each
 * physical type; reset, reuse and out of memory.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>

#include "bloom.h"

#include "unit.h"

/* XXH64 itself, header-only, to check the module's hashes against. */
#define XXH_INLINE_ALL
#include <xxhash.h>

static inlay_allocator alloc;

static void setup(void)
{
    alloc = inl_mem_default();
}

/* BloomFilter.md's salts and Mask(), written out here rather than taken
 * from the module. */
static const uint32_t spec_salt[8] = { 0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                       0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U };

static void spec_mask(uint64_t hash, uint32_t mask[8])
{
    uint32_t key = (uint32_t)hash;
    for (int i = 0; i < 8; i++) mask[i] = UINT32_C(1) << ((uint32_t)(key * spec_salt[i]) >> 27);
}

static size_t spec_block(uint64_t hash, size_t nbytes)
{
    return (size_t)(((hash >> 32) * (uint64_t)(nbytes / 32)) >> 32);
}

/* The filter is all zero except block `block`, whose words (read
 * little-endian from the bytes) are `want`. */
static void expect_only_block(const bloom *b, size_t block, const uint32_t want[8])
{
    for (size_t k = 0; k < b->nbytes / 32; k++) {
        for (int i = 0; i < 8; i++) {
            uint32_t got = le32(b->bits + k * 32 + (size_t)i * 4);
            uint32_t w = k == block ? want[i] : 0;
            ck_assert_msg(got == w, "block %zu word %d: got %#x, want %#x", k, i, got, w);
        }
    }
}

/* ---- bit layout ------------------------------------------------------------------ */

START_TEST(test_xxh64_known)
{
    /* xxHash's own test vectors. */
    ck_assert_uint_eq(inl_bloom_hash("", 0), UINT64_C(0xEF46DB3751D8E999));
    ck_assert_uint_eq(inl_bloom_hash(NULL, 0), UINT64_C(0xEF46DB3751D8E999));
    ck_assert_uint_eq(inl_bloom_hash("a", 1), UINT64_C(0xD24EC4F1A98C6E5B));
    ck_assert_uint_eq(inl_bloom_hash("abc", 3), UINT64_C(0x44BC2CF5AD770999));
    /* Computed by a separate XXH64: PLAIN INT64 42, INT32 42, and 40 bytes
     * 00 01 .. 27 (the >= 32-byte path). */
    const int64_t i64 = 42;
    const int32_t i32 = 42;
    uint64_t h;
    inl_bloom_hash_fixed(&i64, 1, 8, &h);
    ck_assert_uint_eq(h, UINT64_C(0xB556806FB6D14353));
    inl_bloom_hash_fixed(&i32, 1, 4, &h);
    ck_assert_uint_eq(h, UINT64_C(0xD756D7B62FC50BF1));
    uint8_t seq[40];
    for (int i = 0; i < 40; i++) seq[i] = (uint8_t)i;
    ck_assert_uint_eq(inl_bloom_hash(seq, 40), UINT64_C(0xF5DA40F1B11741E9));
}
END_TEST

/* One block: the words are the spec's Mask() of the hash's low 32 bits. */
START_TEST(test_one_block)
{
    bloom b = { 0 };
    ck_assert_int_eq(inl_bloom_reset(&b, &alloc, 32), 0);
    uint64_t h = inl_bloom_hash("", 0);
    inl_bloom_insert(&b, h);

    /* Worked by hand: key 0x51D8E999 times each salt, top five bits. */
    const uint32_t worked[8] = { 0x20000000, 0x1, 0x2000000, 0x10000000,
                                 0x4000, 0x400000, 0x20000000, 0x40000000 };
    uint32_t mask[8];
    spec_mask(h, mask);
    for (int i = 0; i < 8; i++) ck_assert_uint_eq(mask[i], worked[i]);
    expect_only_block(&b, 0, worked);
    ck_assert(inl_bloom_check(&b, h));

    /* A second value ORs its bits in. */
    uint64_t h2 = inl_bloom_hash("abc", 3);
    const uint32_t worked2[8] = { 0x2000, 0x800, 0x800000, 0x200000,
                                  0x40, 0x4000, 0x20000000, 0x20000000 };
    inl_bloom_insert(&b, h2);
    uint32_t both[8];
    for (int i = 0; i < 8; i++) both[i] = worked[i] | worked2[i];
    expect_only_block(&b, 0, both);
    ck_assert(inl_bloom_check(&b, h) && inl_bloom_check(&b, h2));
    inl_bloom_free(&b, &alloc);
}
END_TEST

/* Many blocks: the hash's high 32 bits, scaled, pick the block. */
START_TEST(test_block_choice)
{
    bloom b = { 0 };
    struct { const char *s; size_t nbytes, block; } cases[] = {
        { "", 1024, 29 },        /* 0xEF46DB37 * 32 >> 32 */
        { "a", 1024, 26 },       /* 0xD24EC4F1 * 32 >> 32 */
        { "abc", 131072, 1099 }, /* 0x44BC2CF5 * 4096 >> 32 */
        { "", 131072, 3828 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        ck_assert_int_eq(inl_bloom_reset(&b, &alloc, cases[c].nbytes), 0);
        uint64_t h = inl_bloom_hash(cases[c].s, strlen(cases[c].s));
        ck_assert_uint_eq(spec_block(h, cases[c].nbytes), cases[c].block);
        inl_bloom_insert(&b, h);
        uint32_t mask[8];
        spec_mask(h, mask);
        expect_only_block(&b, cases[c].block, mask);
    }
    inl_bloom_free(&b, &alloc);
}
END_TEST

/* Any hash: the module sets exactly the spec's eight bits in the spec's
 * block, and check tests exactly those. */
START_TEST(test_random_hashes)
{
    bloom b = { 0 };
    uint64_t seed = 0x9E3779B97F4A7C15u;
    ck_assert_int_eq(inl_bloom_reset(&b, &alloc, 4096), 0);
    for (int k = 0; k < 2000; k++) {
        uint64_t h = rng_next(&seed);
        memset(b.bits, 0, b.nbytes);
        inl_bloom_insert(&b, h);
        uint32_t mask[8];
        spec_mask(h, mask);
        size_t block = spec_block(h, b.nbytes);
        for (int i = 0; i < 8; i++) ck_assert_uint_eq(le32(b.bits + block * 32 + (size_t)i * 4), mask[i]);
        ck_assert(inl_bloom_check(&b, h));
        /* Clear any one of the eight bits and the value is gone. */
        int i = k % 8;
        uint8_t *w = b.bits + block * 32 + (size_t)i * 4;
        uint32_t v = le32(w) & ~mask[i];
        w[0] = (uint8_t)v; w[1] = (uint8_t)(v >> 8); w[2] = (uint8_t)(v >> 16); w[3] = (uint8_t)(v >> 24);
        ck_assert(!inl_bloom_check(&b, h));
    }
    inl_bloom_free(&b, &alloc);
}
END_TEST

/* ---- sizing ---------------------------------------------------------------------- */

/* The spec's bits for ndv values at fpp, worked here. */
static double spec_bits(double ndv, double fpp)
{
    return -8 * ndv / log(1 - pow(fpp, 1.0 / 8));
}

START_TEST(test_size_million)
{
    const size_t max = (size_t)128 << 20;
    double bits = spec_bits(1e6, 0.01);   /* about 9.68 bits per value: 1.21 MB */
    size_t want = 32;
    while ((double)want * 8 < bits) want *= 2;
    ck_assert_uint_eq(want, (size_t)2 << 20);
    ck_assert_uint_eq(inl_bloom_bytes_for(1000000, 0.01, max), want);
}
END_TEST

START_TEST(test_size_formula)
{
    const size_t max = (size_t)128 << 20;
    const double fpps[] = { 0.0001, 0.001, 0.005, 0.01, 0.05, 0.1, 0.3, 0.5, 0.9 };
    for (uint64_t ndv = 1; ndv <= UINT64_C(100000000); ndv = ndv * 3 + 1) {
        for (size_t f = 0; f < sizeof fpps / sizeof *fpps; f++) {
            size_t n = inl_bloom_bytes_for(ndv, fpps[f], max);
            double bits = spec_bits((double)ndv, fpps[f]);
            ck_assert_msg(n >= 32 && n <= max && (n & (n - 1)) == 0, "ndv %llu fpp %g: %zu",
                          (unsigned long long)ndv, fpps[f], n);
            /* the smallest power of two that holds the bits, unless clamped */
            ck_assert_msg(n == max || (double)n * 8 >= bits, "ndv %llu fpp %g: %zu bytes < %g bits",
                          (unsigned long long)ndv, fpps[f], n, bits);
            ck_assert_msg(n == 32 || (double)n * 4 < bits, "ndv %llu fpp %g: %zu bytes, %g bits",
                          (unsigned long long)ndv, fpps[f], n, bits);
        }
    }
}
END_TEST

START_TEST(test_size_clamps)
{
    const size_t max = (size_t)128 << 20;
    /* ndv 0, and values so few that one block holds them */
    ck_assert_uint_eq(inl_bloom_bytes_for(0, 0.01, max), 32);
    ck_assert_uint_eq(inl_bloom_bytes_for(0, 0.0000001, max), 32);
    ck_assert_uint_eq(inl_bloom_bytes_for(1, 0.01, max), 32);
    ck_assert_uint_eq(inl_bloom_bytes_for(20, 0.01, max), 32);   /* 194 bits */
    ck_assert_uint_eq(inl_bloom_bytes_for(30, 0.01, max), 64);   /* 290 bits */
    /* the top: 10^9 values at 1% want 1.2 GB */
    ck_assert_uint_eq(inl_bloom_bytes_for(UINT64_C(1000000000), 0.01, max), max);
    ck_assert_uint_eq(inl_bloom_bytes_for(UINT64_MAX, 0.01, max), max);
    /* a maximum that is not a power of two is rounded down to one */
    ck_assert_uint_eq(inl_bloom_bytes_for(UINT64_C(1000000000), 0.01, (size_t)100 << 20), (size_t)64 << 20);
    ck_assert_uint_eq(inl_bloom_bytes_for(1000000, 0.01, 1000000), 524288);
    /* and never below one block */
    ck_assert_uint_eq(inl_bloom_bytes_for(1000000, 0.01, 0), 32);
    ck_assert_uint_eq(inl_bloom_bytes_for(1000000, 0.01, 63), 32);
    /* rates outside (0, 1) */
    ck_assert_uint_eq(inl_bloom_bytes_for(1000, 1e-300, max), max);   /* 1 - fpp^(1/8) rounds to 1 */
    ck_assert_uint_eq(inl_bloom_bytes_for(1000, 0, max), max);
    ck_assert_uint_eq(inl_bloom_bytes_for(1000, -1, max), max);
    ck_assert_uint_eq(inl_bloom_bytes_for(1000, NAN, max), max);
    ck_assert_uint_eq(inl_bloom_bytes_for(1000, 1, max), 32);
    ck_assert_uint_eq(inl_bloom_bytes_for(1000, 2, max), 32);
}
END_TEST

/* ---- false negatives and positives ------------------------------------------------ */

#define MILLION 1000000

/* Insert INT64 0..10^6-1, find every one, and count how many of the 10^6
 * absent values from 10^9 the filter lets through. */
static void check_rate(double fpp)
{
    size_t nbytes = inl_bloom_bytes_for(MILLION, fpp, (size_t)128 << 20);
    int64_t *v = malloc(MILLION * sizeof *v);
    uint64_t *h = malloc(MILLION * sizeof *h);
    ck_assert(v && h);
    bloom b = { 0 };
    ck_assert_int_eq(inl_bloom_reset(&b, &alloc, nbytes), 0);

    for (int64_t i = 0; i < MILLION; i++) v[i] = i;
    inl_bloom_hash_fixed(v, MILLION, 8, h);
    inl_bloom_insert_many(&b, h, MILLION);
    size_t missing = 0;
    for (size_t i = 0; i < MILLION; i++) missing += !inl_bloom_check(&b, h[i]);
    ck_assert_msg(missing == 0, "%zu false negatives", missing);

    for (int64_t i = 0; i < MILLION; i++) v[i] = 1000000000 + i;
    inl_bloom_hash_fixed(v, MILLION, 8, h);
    size_t positives = 0;
    for (size_t i = 0; i < MILLION; i++) positives += inl_bloom_check(&b, h[i]);
    double rate = (double)positives / MILLION;

    /* The size is rounded up to a power of two, so the filter beats the
     * requested rate; it must be no worse than twice it. And it must be
     * what a split-block filter of its size gives with uniform hashes: a
     * block holds j values with Poisson probability (mean values per
     * block), and then each of its eight words has a given bit set with
     * probability 1 - (31/32)^j. */
    double mean = (double)MILLION / (double)(nbytes / 32), pj = exp(-mean), expected = 0;
    for (int j = 0; j < 1000; j++) {
        expected += pj * pow(1 - pow(31.0 / 32, j), 8);
        pj *= mean / (j + 1);
    }
    ck_assert_msg(rate <= 2 * fpp, "fpp %g: measured %g in %zu bytes", fpp, rate, nbytes);
    ck_assert_msg(rate <= 1.25 * expected && rate >= 0.8 * expected,
                  "fpp %g: measured %g in %zu bytes, model %g", fpp, rate, nbytes, expected);
    inl_bloom_free(&b, &alloc);
    free(v);
    free(h);
}

START_TEST(test_rate_1pct)
{
    check_rate(0.01);
}
END_TEST

START_TEST(test_rate_5pct)
{
    check_rate(0.05);
}
END_TEST

/* ---- hashing each type, batch and single ---------------------------------------- */

START_TEST(test_hash_bytes)
{
    const char *s[] = { "", "x", "hello", "parquet", "bloom", "filter", "0123456789abcdef",
                        "a string that is longer than thirty-two bytes, so XXH64 takes its stripes" };
    size_t n = sizeof s / sizeof *s;
    inlay_bytes v[8];
    uint64_t h[8];
    for (size_t i = 0; i < n; i++) v[i] = bytes_of(s[i]);
    v[0].data = NULL;   /* the empty value may come without a pointer */
    inl_bloom_hash_bytes(v, n, h);
    for (size_t i = 0; i < n; i++) {
        uint64_t want = XXH64(s[i], strlen(s[i]), 0);
        ck_assert_uint_eq(h[i], want);
        ck_assert_uint_eq(inl_bloom_hash(s[i], strlen(s[i])), want);
    }
    /* Computed by a separate XXH64. */
    ck_assert_uint_eq(XXH64("hello world, bloom filter test", 30, 0), UINT64_C(0xE0578BDA9B3AF8FD));
}
END_TEST

/* Every width, fixed-length byte arrays included, hashes value by value
 * as XXH64 of its PLAIN bytes. */
START_TEST(test_hash_fixed)
{
    enum { N = 1000 };
    static uint8_t raw[N * 16];
    uint64_t seed = 7, h[N];
    for (size_t i = 0; i < sizeof raw; i++) raw[i] = (uint8_t)rng_next(&seed);
    const size_t widths[] = { 1, 2, 4, 8, 12, 16 };
    for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
        size_t width = widths[w];
        inl_bloom_hash_fixed(raw, N, width, h);
        for (size_t i = 0; i < N; i++) {
            uint8_t plain[16];
            memcpy(plain, raw + i * width, width);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            if (width == 4 || width == 8)
                for (size_t k = 0; k < width / 2; k++) {
                    uint8_t t = plain[k];
                    plain[k] = plain[width - 1 - k];
                    plain[width - 1 - k] = t;
                }
#endif
            ck_assert_uint_eq(h[i], XXH64(plain, width, 0));
            ck_assert_uint_eq(h[i], inl_bloom_hash(plain, width));
        }
    }
    /* FLOAT and DOUBLE by bit pattern: the two zeros differ */
    const double dz[2] = { 0.0, -0.0 };
    const float fz[2] = { 0.0f, -0.0f };
    uint64_t hd[2], hf[2];
    inl_bloom_hash_fixed(dz, 2, 8, hd);
    inl_bloom_hash_fixed(fz, 2, 4, hf);
    ck_assert_uint_ne(hd[0], hd[1]);
    ck_assert_uint_ne(hf[0], hf[1]);
    ck_assert_uint_eq(hd[0], XXH64("\0\0\0\0\0\0\0\0", 8, 0));
    ck_assert_uint_eq(hf[1], XXH64("\0\0\0\x80", 4, 0));
    inl_bloom_hash_fixed(raw, 0, 8, h);   /* nothing to do */
}
END_TEST

/* insert_many sets the same bits as one insert at a time. */
START_TEST(test_insert_many)
{
    enum { N = 50000 };
    static uint64_t h[N];
    uint64_t seed = 12345;
    for (size_t i = 0; i < N; i++) h[i] = rng_next(&seed);
    const size_t sizes[] = { 32, 1024, 65536 };
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        bloom one = { 0 }, many = { 0 };
        ck_assert_int_eq(inl_bloom_reset(&one, &alloc, sizes[s]), 0);
        ck_assert_int_eq(inl_bloom_reset(&many, &alloc, sizes[s]), 0);
        for (size_t i = 0; i < N; i++) inl_bloom_insert(&one, h[i]);
        inl_bloom_insert_many(&many, h, 7);
        inl_bloom_insert_many(&many, h + 7, N - 7);
        inl_bloom_insert_many(&many, h, 0);
        ck_assert_bytes(many.bits, many.nbytes, one.bits, one.nbytes);
        inl_bloom_free(&one, &alloc);
        inl_bloom_free(&many, &alloc);
    }
}
END_TEST

/* ---- reset, reuse, memory ----------------------------------------------------------- */

START_TEST(test_reset_reuses)
{
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    bloom b = { 0 };
    ck_assert_int_eq(inl_bloom_reset(&b, &a, 1024), 0);
    uint8_t *first = b.bits;
    ck_assert_uint_eq(b.nbytes, 1024);
    ck_assert_uint_eq(b.cap, 1024);
    for (size_t i = 0; i < b.nbytes; i++) ck_assert_uint_eq(b.bits[i], 0);

    uint64_t seed = 1;
    for (int i = 0; i < 500; i++) inl_bloom_insert(&b, rng_next(&seed));
    /* smaller, then the same size again: the same buffer, zeroed */
    ck_assert_int_eq(inl_bloom_reset(&b, &a, 256), 0);
    ck_assert_ptr_eq(b.bits, first);
    ck_assert_uint_eq(b.nbytes, 256);
    ck_assert_uint_eq(b.cap, 1024);
    for (size_t i = 0; i < b.nbytes; i++) ck_assert_uint_eq(b.bits[i], 0);
    for (int i = 0; i < 500; i++) inl_bloom_insert(&b, rng_next(&seed));
    ck_assert_int_eq(inl_bloom_reset(&b, &a, 1024), 0);
    ck_assert_ptr_eq(b.bits, first);
    ck_assert_uint_eq(b.nbytes, 1024);
    for (size_t i = 0; i < b.nbytes; i++) ck_assert_uint_eq(b.bits[i], 0);
    ck_assert_uint_eq(ta.requests, 1);

    /* larger: a new buffer, the old one given back */
    ck_assert_int_eq(inl_bloom_reset(&b, &a, 4096), 0);
    ck_assert_uint_eq(b.nbytes, 4096);
    ck_assert_uint_eq(b.cap, 4096);
    for (size_t i = 0; i < b.nbytes; i++) ck_assert_uint_eq(b.bits[i], 0);
    ck_assert_uint_eq(ta.requests, 2);
    ck_assert_uint_eq(ta.live_blocks, 1);
    ck_assert_uint_eq(ta.live_bytes, 4096);

    inl_bloom_free(&b, &a);
    ck_assert(b.bits == NULL && b.nbytes == 0 && b.cap == 0);
    inl_bloom_free(&b, &a);   /* twice is fine */
    ck_assert_no_leak(&ta);
}
END_TEST

/* Out of memory leaves the filter as it was, contents included. */
START_TEST(test_nomem)
{
    test_alloc ta = { .fail_at = 1 };
    inlay_allocator a = test_allocator(&ta);
    bloom b = { 0 };
    ck_assert_int_eq(inl_bloom_reset(&b, &a, 64), INLAY_ERR_NOMEM);
    ck_assert(b.bits == NULL && b.nbytes == 0 && b.cap == 0);
    ck_assert_no_leak(&ta);

    ta = (test_alloc){ .fail_at = 2 };
    ck_assert_int_eq(inl_bloom_reset(&b, &a, 64), 0);
    uint64_t h = inl_bloom_hash("abc", 3);
    inl_bloom_insert(&b, h);
    uint8_t before[64];
    memcpy(before, b.bits, 64);
    uint8_t *bits = b.bits;
    ck_assert_int_eq(inl_bloom_reset(&b, &a, 128), INLAY_ERR_NOMEM);
    ck_assert_ptr_eq(b.bits, bits);
    ck_assert_uint_eq(b.nbytes, 64);
    ck_assert_uint_eq(b.cap, 64);
    ck_assert_bytes(b.bits, 64, before, 64);
    ck_assert(inl_bloom_check(&b, h));
    ck_assert_uint_eq(ta.refused, 1);

    /* and works once memory is back */
    ck_assert_int_eq(inl_bloom_reset(&b, &a, 128), 0);
    ck_assert_uint_eq(b.nbytes, 128);
    inl_bloom_free(&b, &a);
    ck_assert_no_leak(&ta);
}
END_TEST

/* A filter never reset has no bits: insert does nothing and check cannot
 * rule anything out. */
START_TEST(test_never_reset)
{
    bloom b = { 0 };
    uint64_t h[3] = { 1, 2, 3 };
    inl_bloom_insert(&b, 42);
    inl_bloom_insert_many(&b, h, 3);
    ck_assert(inl_bloom_check(&b, 42));
    ck_assert(b.bits == NULL && b.nbytes == 0);
    inl_bloom_free(&b, &alloc);
}
END_TEST

static Suite *bloom_suite(void)
{
    Suite *s = suite_create("bloom");
    TCase *c;

    c = tcase_create("bit layout");
    tcase_add_checked_fixture(c, setup, NULL);
    tcase_add_test(c, test_xxh64_known);
    tcase_add_test(c, test_one_block);
    tcase_add_test(c, test_block_choice);
    tcase_add_test(c, test_random_hashes);
    suite_add_tcase(s, c);

    c = tcase_create("sizing");
    tcase_add_test(c, test_size_million);
    tcase_add_test(c, test_size_formula);
    tcase_add_test(c, test_size_clamps);
    suite_add_tcase(s, c);

    c = tcase_create("false negatives and positives");
    tcase_add_checked_fixture(c, setup, NULL);
    tcase_set_timeout(c, 60);
    tcase_add_test(c, test_rate_1pct);
    tcase_add_test(c, test_rate_5pct);
    suite_add_tcase(s, c);

    c = tcase_create("hashing and batches");
    tcase_add_checked_fixture(c, setup, NULL);
    tcase_add_test(c, test_hash_bytes);
    tcase_add_test(c, test_hash_fixed);
    tcase_add_test(c, test_insert_many);
    suite_add_tcase(s, c);

    c = tcase_create("reset and memory");
    tcase_add_checked_fixture(c, setup, NULL);
    tcase_add_test(c, test_reset_reuses);
    tcase_add_test(c, test_nomem);
    tcase_add_test(c, test_never_reset);
    suite_add_tcase(s, c);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(bloom_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
