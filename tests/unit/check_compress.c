/*
 * check_compress.c — page compression (runtime/format/compress.c): the
 * codecs and levels inl_compress_init accepts and refuses, zstd output read
 * back by libzstd's own ZSTD_decompress, UNCOMPRESSED as a plain copy, the
 * bound as the most a run ever writes (and a smaller capacity as
 * INLAY_ERR_COMPRESS), and allocation failures inside zstd, which allocates
 * through the writer's allocator, as INLAY_ERR_NOMEM with nothing leaked.
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>

#include <zstd.h>

#include "compress.h"

#include "unit.h"

static compressor c;
static inlay_allocator alloc;

static void setup(void)
{
    memset(&c, 0, sizeof c);
    alloc = inl_mem_default();
}

static void teardown(void)
{
    inl_compress_free(&c);
}

/* n bytes that compress well: words from a small vocabulary. */
static uint8_t *text_bytes(size_t n, uint64_t seed)
{
    static const char *const words[] = { "parquet ", "column ", "page ", "row ", "group ", "value ",
                                         "level ", "dictionary ", "zstd ", "footer " };
    uint8_t *p = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(p);
    size_t k = 0;
    while (k < n) {
        const char *w = words[rng_next(&seed) % 10];
        for (size_t i = 0; w[i] && k < n; i++) p[k++] = (uint8_t)w[i];
    }
    return p;
}

/* n bytes that do not compress. */
static uint8_t *random_bytes(size_t n, uint64_t seed)
{
    uint8_t *p = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(p);
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(rng_next(&seed) >> 56);
    return p;
}

/* Compress src[0..n) with c into a buffer of exactly the bound, check the
 * size against the bound and that ZSTD_decompress gives src back. Returns
 * the compressed size. */
static size_t round_trip(compressor *z, const uint8_t *src, size_t n)
{
    size_t bound = inl_compress_bound(z, n);
    uint8_t *dst = malloc(bound ? bound : 1);
    ck_assert_ptr_nonnull(dst);
    int status = 12345;
    size_t got = inl_compress_run(z, dst, bound, src, n, &status);
    ck_assert_msg(got != SIZE_MAX, "run failed with status %d", status);
    ck_assert_uint_le(got, bound);
    uint8_t *back = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(back);
    if (z->codec == INLAY_ZSTD) {
        ck_assert_uint_eq(ZSTD_getFrameContentSize(dst, got), n);
        size_t r = ZSTD_decompress(back, n, dst, got);
        ck_assert_msg(!ZSTD_isError(r), "ZSTD_decompress: %s", ZSTD_getErrorName(r));
        ck_assert_uint_eq(r, n);
    } else {
        ck_assert_uint_eq(got, n);
        if (n) memcpy(back, dst, n);
    }
    ck_assert_bytes(back, n, src, n);
    free(back);
    free(dst);
    return got;
}

/* ---- codecs and levels ------------------------------------------------------------ */

START_TEST(test_uncompressed_init)
{
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    ck_assert_int_eq(inl_compress_init(&c, &a, INLAY_UNCOMPRESSED, 99, 0), 0);   /* the level is not looked at */
    ck_assert_int_eq(c.codec, INLAY_UNCOMPRESSED);
    ck_assert_ptr_null(c.zctx);
    ck_assert_uint_eq(ta.requests, 0);
    inl_compress_free(&c);
    ck_assert_no_leak(&ta);
}
END_TEST

START_TEST(test_zstd_init)
{
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    ck_assert_int_eq(inl_compress_init(&c, &a, INLAY_ZSTD, 3, 0), 0);
    ck_assert_int_eq(c.codec, INLAY_ZSTD);
    ck_assert_int_eq(c.level, 3);
    ck_assert_ptr_nonnull(c.zctx);
    ck_assert_uint_gt(ta.live_blocks, 0);   /* the context came from our allocator */
    inl_compress_free(&c);
    ck_assert_ptr_null(c.zctx);
    ck_assert_no_leak(&ta);
    inl_compress_free(&c);                  /* twice is harmless */
    ck_assert_no_leak(&ta);
}
END_TEST

START_TEST(test_bad_codec)
{
    /* codecs Parquet has but inlay does not write (SNAPPY 1, GZIP 2, LZ4_RAW 7), and nonsense */
    static const int codecs[] = { 1, 2, 3, 4, 5, 7, -1, 1000 };
    for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++) {
        test_alloc ta = { 0 };
        inlay_allocator a = test_allocator(&ta);
        ck_assert_int_eq(inl_compress_init(&c, &a, (inlay_compression)codecs[i], 3, 0), INLAY_ERR_ARGUMENT);
        ck_assert_ptr_null(c.zctx);
        inl_compress_free(&c);
        ck_assert_uint_eq(ta.requests, 0);
        ck_assert_no_leak(&ta);
    }
}
END_TEST

START_TEST(test_level_edges)
{
    const int accepted[] = { ZSTD_minCLevel(), -1, 0, 1, ZSTD_maxCLevel() };
    uint8_t *src = text_bytes(5000, 7);
    for (size_t i = 0; i < sizeof accepted / sizeof accepted[0]; i++) {
        test_alloc ta = { 0 };
        inlay_allocator a = test_allocator(&ta);
        ck_assert_msg(inl_compress_init(&c, &a, INLAY_ZSTD, accepted[i], 0) == 0, "level %d refused", accepted[i]);
        round_trip(&c, src, 5000);
        inl_compress_free(&c);
        ck_assert_no_leak(&ta);
    }
    const int refused[] = { ZSTD_minCLevel() - 1, ZSTD_maxCLevel() + 1, INT_MIN, INT_MAX };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        test_alloc ta = { 0 };
        inlay_allocator a = test_allocator(&ta);
        ck_assert_msg(inl_compress_init(&c, &a, INLAY_ZSTD, refused[i], 0) == INLAY_ERR_ARGUMENT,
                      "level %d accepted", refused[i]);
        ck_assert_ptr_null(c.zctx);
        inl_compress_free(&c);
        ck_assert_no_leak(&ta);
    }
    free(src);
}
END_TEST

/* The level reaches zstd: the slowest level packs text tighter than the
 * fastest. */
START_TEST(test_level_applied)
{
    uint8_t *src = text_bytes(64 * 1024, 11);
    ck_assert_int_eq(inl_compress_init(&c, &alloc, INLAY_ZSTD, ZSTD_minCLevel(), 0), 0);
    size_t fast = round_trip(&c, src, 64 * 1024);
    inl_compress_free(&c);
    ck_assert_int_eq(inl_compress_init(&c, &alloc, INLAY_ZSTD, 19, 0), 0);
    size_t tight = round_trip(&c, src, 64 * 1024);
    ck_assert_msg(tight < fast, "level 19 gave %zu bytes, level %d %zu", tight, ZSTD_minCLevel(), fast);
    free(src);
}
END_TEST

/* ---- round trips ------------------------------------------------------------------ */

START_TEST(test_zstd_text)
{
    ck_assert_int_eq(inl_compress_init(&c, &alloc, INLAY_ZSTD, 3, 0), 0);
    uint8_t *src = text_bytes(100000, 1);
    size_t n = round_trip(&c, src, 100000);
    ck_assert_uint_lt(n, 100000 / 3);
    free(src);
}
END_TEST

START_TEST(test_zstd_random)
{
    ck_assert_int_eq(inl_compress_init(&c, &alloc, INLAY_ZSTD, 3, 0), 0);
    uint8_t *src = random_bytes(100000, 2);
    round_trip(&c, src, 100000);
    free(src);
}
END_TEST

START_TEST(test_zstd_tiny)
{
    ck_assert_int_eq(inl_compress_init(&c, &alloc, INLAY_ZSTD, 3, 0), 0);
    const uint8_t one = 0x5a;
    round_trip(&c, &one, 1);
    round_trip(&c, &one, 0);     /* an empty body is still a frame */
}
END_TEST

/* One context for many pages: each run is a frame of its own. */
START_TEST(test_zstd_reused)
{
    ck_assert_int_eq(inl_compress_init(&c, &alloc, INLAY_ZSTD, 3, 0), 0);
    for (uint64_t i = 0; i < 6; i++) {
        size_t n = 1000 + 7919 * (size_t)i;
        uint8_t *src = i % 2 ? random_bytes(n, i + 1) : text_bytes(n, i + 1);
        round_trip(&c, src, n);
        free(src);
    }
}
END_TEST

START_TEST(test_uncompressed_copy)
{
    ck_assert_int_eq(inl_compress_init(&c, &alloc, INLAY_UNCOMPRESSED, 0, 0), 0);
    uint8_t *src = random_bytes(4096, 3);
    round_trip(&c, src, 4096);
    round_trip(&c, src, 0);
    free(src);
}
END_TEST

/* ---- the bound ---------------------------------------------------------------------- */

START_TEST(test_bound_zstd)
{
    ck_assert_int_eq(inl_compress_init(&c, &alloc, INLAY_ZSTD, 3, 0), 0);
    static const size_t sizes[] = { 0, 1, 2, 100, 4096, 128 * 1024 + 3, 1 << 20 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        ck_assert_uint_ge(inl_compress_bound(&c, n), n);
        ck_assert_uint_eq(inl_compress_bound(&c, n), ZSTD_compressBound(n));
        uint8_t *src = random_bytes(n, 100 + i);   /* the worst case: nothing to gain */
        round_trip(&c, src, n);                    /* fits a buffer of exactly the bound */
        free(src);
    }
}
END_TEST

START_TEST(test_bound_uncompressed)
{
    ck_assert_int_eq(inl_compress_init(&c, &alloc, INLAY_UNCOMPRESSED, 0, 0), 0);
    ck_assert_uint_eq(inl_compress_bound(&c, 0), 0);
    ck_assert_uint_eq(inl_compress_bound(&c, 12345), 12345);
}
END_TEST

START_TEST(test_small_capacity)
{
    uint8_t *src = random_bytes(1000, 4);
    uint8_t dst[1000];
    int status = 0;
    ck_assert_int_eq(inl_compress_init(&c, &alloc, INLAY_ZSTD, 3, 0), 0);
    ck_assert_uint_eq(inl_compress_run(&c, dst, 10, src, 1000, &status), SIZE_MAX);
    ck_assert_int_eq(status, INLAY_ERR_COMPRESS);
    round_trip(&c, src, 1000);       /* the context is still good */
    inl_compress_free(&c);

    ck_assert_int_eq(inl_compress_init(&c, &alloc, INLAY_UNCOMPRESSED, 0, 0), 0);
    status = 0;
    ck_assert_uint_eq(inl_compress_run(&c, dst, 999, src, 1000, &status), SIZE_MAX);
    ck_assert_int_eq(status, INLAY_ERR_COMPRESS);
    free(src);
}
END_TEST

/* ---- allocation failures ---------------------------------------------------------------- */

/* Fail allocation n (or every one from n on), for every n until init and a
 * run both succeed: each failure is INLAY_ERR_NOMEM, from init (the static
 * space) or from the run (an input past sized_for takes a context that
 * allocates), and nothing leaks. */
static void nomem_loop(bool after)
{
    uint8_t *src = text_bytes(200000, 5);
    unsigned long init_failures = 0, run_failures = 0;
    bool done = false;
    for (unsigned long n = 1; !done && n < 1000; n++) {
        test_alloc ta = { .fail_at = n, .fail_after = after };
        inlay_allocator a = test_allocator(&ta);
        int st = inl_compress_init(&c, &a, INLAY_ZSTD, 3, 4096);
        if (st) {
            ck_assert_msg(st == INLAY_ERR_NOMEM, "init with allocation %lu refused: %d", n, st);
            ck_assert_uint_ge(ta.refused, 1);
            ck_assert_ptr_null(c.zctx);
            init_failures++;
        } else {
            size_t bound = inl_compress_bound(&c, 200000);
            uint8_t *dst = malloc(bound);
            ck_assert_ptr_nonnull(dst);
            int status = 0;
            size_t got = inl_compress_run(&c, dst, bound, src, 200000, &status);
            if (got == SIZE_MAX) {
                ck_assert_msg(status == INLAY_ERR_NOMEM, "run with allocation %lu refused: %d", n, status);
                ck_assert_uint_ge(ta.refused, 1);
                run_failures++;
            } else {
                ck_assert_uint_eq(ta.refused, 0);
                uint8_t *back = malloc(200000);
                ck_assert_ptr_nonnull(back);
                ck_assert_uint_eq(ZSTD_decompress(back, 200000, dst, got), 200000);
                ck_assert(memcmp(back, src, 200000) == 0);
                free(back);
                done = true;
            }
            free(dst);
        }
        inl_compress_free(&c);
        ck_assert_msg(ta.live_bytes == 0 && ta.live_blocks == 0 && ta.bad_sizes == 0 && ta.bad_new == 0,
                      "allocation %lu refused: %zu bytes in %zu blocks left, %lu frees with a wrong size", n,
                      ta.live_bytes, ta.live_blocks, ta.bad_sizes);
    }
    ck_assert_msg(done, "never succeeded");
    ck_assert_uint_ge(init_failures, 1);
    ck_assert_uint_ge(run_failures, 1);
    free(src);
}

START_TEST(test_nomem_once)
{
    nomem_loop(false);
}
END_TEST

START_TEST(test_nomem_from_n)
{
    nomem_loop(true);
}
END_TEST

/* A run that failed for memory leaves the context usable once memory is
 * back. */
START_TEST(test_nomem_then_run)
{
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    ck_assert_int_eq(inl_compress_init(&c, &a, INLAY_ZSTD, 3, 4096), 0);   /* 50000 bytes go past the static space */
    uint8_t *src = text_bytes(50000, 6);
    size_t bound = inl_compress_bound(&c, 50000);
    uint8_t *dst = malloc(bound);
    ck_assert_ptr_nonnull(dst);
    ta.fail_at = ta.requests + 1;
    ta.fail_after = true;
    int status = 0;
    ck_assert_uint_eq(inl_compress_run(&c, dst, bound, src, 50000, &status), SIZE_MAX);
    ck_assert_int_eq(status, INLAY_ERR_NOMEM);
    ta.fail_at = 0;
    ta.fail_after = false;
    round_trip(&c, src, 50000);
    inl_compress_free(&c);
    ck_assert_no_leak(&ta);
    free(dst);
    free(src);
}
END_TEST

/* Inputs of every size up to sized_for, in any order, compress without a
 * single allocation after init, and as a context that allocates would. */
START_TEST(test_steady_no_allocation)
{
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    ck_assert_int_eq(inl_compress_init(&c, &a, INLAY_ZSTD, 3, 1 << 20), 0);
    const unsigned long after_init = ta.requests;
    ZSTD_CCtx *plain = ZSTD_createCCtx();
    ck_assert_ptr_nonnull(plain);
    ZSTD_CCtx_setParameter(plain, ZSTD_c_compressionLevel, 3);
    static const size_t sizes[] = { 100, 1 << 20, 5000, 300000, 16 << 10, 1 << 20, 1, 200000, 70000 };
    uint8_t *src = text_bytes(1 << 20, 7);
    size_t bound = inl_compress_bound(&c, 1 << 20);
    uint8_t *dst = malloc(bound), *ref = malloc(bound);
    ck_assert(dst && ref);
    for (int round = 0; round < 40; round++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            int status = 0;
            size_t got = inl_compress_run(&c, dst, bound, src, sizes[i], &status);
            ck_assert_uint_ne(got, SIZE_MAX);
            if (round == 0) {
                size_t want = ZSTD_compress2(plain, ref, bound, src, sizes[i]);
                ck_assert_uint_eq(got, want);
                ck_assert(memcmp(dst, ref, got) == 0);
            }
        }
    ck_assert_uint_eq(ta.requests, after_init);
    ZSTD_freeCCtx(plain);
    free(dst);
    free(ref);
    free(src);
    inl_compress_free(&c);
    ck_assert_no_leak(&ta);
}
END_TEST

static Suite *compress_suite(void)
{
    Suite *s = suite_create("compress");
    TCase *t = tcase_create("codecs and levels");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, test_uncompressed_init);
    tcase_add_test(t, test_zstd_init);
    tcase_add_test(t, test_bad_codec);
    tcase_add_test(t, test_level_edges);
    tcase_add_test(t, test_level_applied);
    suite_add_tcase(s, t);

    t = tcase_create("round trips");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, test_zstd_text);
    tcase_add_test(t, test_zstd_random);
    tcase_add_test(t, test_zstd_tiny);
    tcase_add_test(t, test_zstd_reused);
    tcase_add_test(t, test_uncompressed_copy);
    suite_add_tcase(s, t);

    t = tcase_create("bound");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, test_bound_zstd);
    tcase_add_test(t, test_bound_uncompressed);
    tcase_add_test(t, test_small_capacity);
    suite_add_tcase(s, t);

    t = tcase_create("allocation");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, test_nomem_once);
    tcase_add_test(t, test_nomem_from_n);
    tcase_add_test(t, test_nomem_then_run);
    tcase_add_test(t, test_steady_no_allocation);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(compress_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
