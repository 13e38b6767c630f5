/*
 * check_memo.c — the memo tables behind dictionary encoding
 * (runtime/encode/memo.c): indices in first-seen order, the found flag, keys by
 * bit pattern, copies that never alias the caller's memory, reset and
 * reuse, growth, runs of keys that go one way (kept unhashed until one turns
 * back), and arenas that are byte for byte the PLAIN dictionary page.
 */
#define _POSIX_C_SOURCE 200809L
#include "memo.h"

#include <inttypes.h>

#include "plain.h"
#include "unit.h"

static inlay_allocator alloc;

static void setup(void)
{
    alloc = inl_mem_default();
}

static uint64_t bits_of_double(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

static uint64_t bits_of_float(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* ---- first-seen order, found flag -------------------------------------------------- */

START_TEST(test_fixed_order)
{
    memo_fixed m;
    inl_memo_fixed_init(&m, &alloc, 8);
    static const uint64_t keys[] = { 10, 20, 10, 30, 20, 0, 10 };
    static const uint32_t want_index[] = { 0, 1, 0, 2, 1, 3, 0 };
    static const int want_found[] = { 0, 0, 1, 0, 1, 0, 1 };
    for (size_t i = 0; i < 7; i++) {
        uint32_t index = 99;
        ck_assert_int_eq(inl_memo_fixed_insert(&m, keys[i], &index), want_found[i]);
        ck_assert_uint_eq(index, want_index[i]);
    }
    ck_assert_uint_eq(m.count, 4);
    ck_assert_uint_eq(inl_memo_fixed_bytes(&m), 4 * 8);
    inl_memo_fixed_free(&m);
}
END_TEST

START_TEST(test_bytes_order)
{
    memo_bytes m;
    inl_memo_bytes_init(&m, &alloc, 0);
    static const char *keys[] = { "b", "a", "b", "", "c", "", "ab" };
    static const uint32_t want_index[] = { 0, 1, 0, 2, 3, 2, 4 };
    static const int want_found[] = { 0, 0, 1, 0, 0, 1, 0 };
    for (size_t i = 0; i < 7; i++) {
        uint32_t index = 99;
        ck_assert_int_eq(inl_memo_bytes_insert(&m, keys[i], strlen(keys[i]), &index), want_found[i]);
        ck_assert_uint_eq(index, want_index[i]);
    }
    static const char *distinct[] = { "b", "a", "", "c", "ab" };
    for (size_t i = 0; i < 5; i++) {
        size_t len;
        const uint8_t *p = inl_memo_bytes_value(&m, i, &len);
        ck_assert_bytes(p, len, distinct[i], strlen(distinct[i]));
    }
    inl_memo_bytes_free(&m);
}
END_TEST

START_TEST(test_prefixes_distinct)
{
    /* values that are prefixes of each other are different keys */
    memo_bytes m;
    inl_memo_bytes_init(&m, &alloc, 0);
    uint32_t i0, i1, i2;
    ck_assert_int_eq(inl_memo_bytes_insert(&m, "abc", 3, &i0), 0);
    ck_assert_int_eq(inl_memo_bytes_insert(&m, "abc", 2, &i1), 0);
    ck_assert_int_eq(inl_memo_bytes_insert(&m, "abc\0", 4, &i2), 0);
    ck_assert_uint_eq(i0, 0);
    ck_assert_uint_eq(i1, 1);
    ck_assert_uint_eq(i2, 2);
    inl_memo_bytes_free(&m);
}
END_TEST

/* ---- runs: keys that go one way are not hashed until one turns back ------------------ */

enum { RUN_DOMAIN = 1 << 16 };

static uint64_t run_rand(uint64_t *r)
{
    *r = *r * 6364136223846793005ULL + 1442695040888963407ULL;
    return *r >> 33;
}

/* Rounds of keys that open with a run (up or down, repeating the last key
 * now and then, of any length down to none) and go on with keys old and
 * new in any order, checked against a table indexed by key: indices in
 * first-seen order, the found flag, the dictionary bytes. The table is
 * reset between rounds (so a round's run meets the slots a placed round
 * left) and made anew now and then; half the rounds go in by the bulk
 * call. Both widths. */
START_TEST(test_run_agrees)
{
    const size_t width = _i ? 8 : 4;
    int32_t *index_of = malloc(RUN_DOMAIN * sizeof *index_of);
    uint64_t *order = malloc(RUN_DOMAIN * sizeof *order);
    uint64_t *keys = malloc(RUN_DOMAIN * sizeof *keys);
    uint8_t *raw = malloc(RUN_DOMAIN * 8);
    uint32_t *got = malloc(RUN_DOMAIN * sizeof *got);
    ck_assert(index_of && order && keys && raw && got);
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    memo_fixed m;
    inl_memo_fixed_init(&m, &a, width);
    uint64_t r = 99 + (uint64_t)_i;
    for (int round = 0; round < 160; round++) {
        if (round % 40 == 39) {
            inl_memo_fixed_free(&m);
            inl_memo_fixed_init(&m, &a, width);
        } else {
            inl_memo_fixed_reset(&m);
        }
        /* the keys: a run of 0..15,999, then 0..2,999 of any kind */
        const size_t run = (size_t)(run_rand(&r) % 16000), tail = (size_t)(run_rand(&r) % 3000);
        const bool up = run_rand(&r) & 1;
        uint64_t at = run_rand(&r) % 1000;
        size_t n = 0;
        for (size_t k = 0; k < run; k++) {
            keys[n++] = up ? at : RUN_DOMAIN - 1 - at;
            const uint64_t step = run_rand(&r) % 4;   /* 0: the last key again */
            at += step;
        }
        for (size_t k = 0; k < tail; k++) {
            const uint64_t key = n && (run_rand(&r) & 1) ? keys[run_rand(&r) % n] : run_rand(&r) % RUN_DOMAIN;
            keys[n++] = key;
        }
        /* the expected answers */
        memset(index_of, 0xff, RUN_DOMAIN * sizeof *index_of);
        size_t distinct = 0;
        bool ok = true;
        const bool bulk = round & 1;
        if (bulk) {
            for (size_t i = 0; i < n; i++) {
                if (width == 4) {
                    const uint32_t k32 = (uint32_t)keys[i];
                    memcpy(raw + 4 * i, &k32, 4);
                } else {
                    memcpy(raw + 8 * i, &keys[i], 8);
                }
            }
            ck_assert_int_eq(inl_memo_fixed_insert_many(&m, raw, n, got), 0);
        }
        for (size_t i = 0; i < n && ok; i++) {
            const uint64_t k = keys[i];
            const bool seen = index_of[k] >= 0;
            if (!seen) {
                index_of[k] = (int32_t)distinct;
                order[distinct++] = k;
            }
            if (bulk) {
                ok &= got[i] == (uint32_t)index_of[k];
            } else {
                uint32_t index = UINT32_MAX;
                ok &= inl_memo_fixed_insert(&m, k, &index) == (seen ? 1 : 0) && index == (uint32_t)index_of[k];
            }
            if (!ok) ck_abort_msg("round %d (run %zu %s, %zu after it, %s), key %zu", round, run, up ? "up" : "down",
                                  tail, bulk ? "bulk" : "one by one", i);
        }
        ck_assert_uint_eq(m.count, distinct);
        ck_assert_uint_eq(inl_memo_fixed_bytes(&m), distinct * width);
        for (size_t d = 0; d < distinct; d++) {
            uint64_t v = 0;
            memcpy(&v, m.values.data + d * width, width);
            if (v != order[d]) ck_abort_msg("round %d: entry %zu is %" PRIu64 ", not %" PRIu64, round, d, v, order[d]);
        }
        /* every key is found again, a run's included */
        for (size_t d = 0; d < distinct; d++) {
            uint32_t index;
            if (inl_memo_fixed_insert(&m, order[d], &index) != 1 || index != d)
                ck_abort_msg("round %d: entry %zu not found again", round, d);
        }
    }
    inl_memo_fixed_free(&m);
    ck_assert_no_leak(&ta);
    free(index_of);
    free(order);
    free(keys);
    free(raw);
    free(got);
}
END_TEST

/* A run allocates no slots, so a table of sequence numbers costs its
 * dictionary bytes alone. */
START_TEST(test_run_allocates_no_slots)
{
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    memo_fixed m;
    inl_memo_fixed_init(&m, &a, 8);
    inl_memo_fixed_expect(&m, 100000);
    uint64_t *ts = malloc(100000 * sizeof *ts);
    uint32_t *idx = malloc(100000 * sizeof *idx);
    ck_assert(ts && idx);
    for (size_t k = 0; k < 100000; k++) ts[k] = 1700000000000000ULL + 250 * k + (k % 7 == 0 ? 0 : 1);
    ck_assert_int_eq(inl_memo_fixed_insert_many(&m, ts, 100000, idx), 0);
    ck_assert_uint_eq(m.count, 100000);
    ck_assert_ptr_null(m.slots);
    ck_assert_uint_le(ta.peak_bytes, 2 * 100000 * 8);
    ck_assert_uint_eq(idx[99999], 99999);
    inl_memo_fixed_free(&m);
    ck_assert_no_leak(&ta);
    free(ts);
    free(idx);
}
END_TEST

/* Keys at the ends of the range: a run across the top bit, up to the
 * largest key and then 0 (turning back), down to 0 and then the largest;
 * each sequence checked against a list searched from the start. A 4-byte
 * table takes a key's low 32 bits, a sign-extended -1 included. */
static void check_sequence(size_t width, const uint64_t *keys, size_t n)
{
    memo_fixed m;
    inl_memo_fixed_init(&m, &alloc, width);
    uint64_t seen[16];
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++) {
        const uint64_t k = width == 4 ? (uint32_t)keys[i] : keys[i];
        size_t want = 0;
        while (want < distinct && seen[want] != k) want++;
        const int found = want < distinct;
        if (!found) seen[distinct++] = k;
        uint32_t index = UINT32_MAX;
        const int r = inl_memo_fixed_insert(&m, keys[i], &index);
        ck_assert_msg(r == found && index == want, "width %zu, key %zu (%" PRIx64 "): %d/%u, want %d/%zu", width, i,
                      keys[i], r, index, found, want);
    }
    ck_assert_uint_eq(m.count, distinct);
    for (size_t d = 0; d < distinct; d++) {
        uint64_t v = 0;
        memcpy(&v, m.values.data + d * width, width);
        ck_assert_uint_eq(v, seen[d]);
    }
    inl_memo_fixed_free(&m);
}

START_TEST(test_run_extremes)
{
    const uint64_t top = UINT64_C(0x8000000000000000), max = UINT64_MAX;
    const uint64_t across_top[] = { top - 2, top - 1, top, top + 1, top + 1, top - 1, top };
    const uint64_t up_to_max[] = { max - 2, max - 1, max, max, 0, max - 1, 0 };
    const uint64_t down_to_0[] = { 2, 1, 0, 0, max, 1, max };
    check_sequence(8, across_top, 7);
    check_sequence(8, up_to_max, 7);
    check_sequence(8, down_to_0, 7);
    const uint64_t max32 = UINT32_MAX, minus1 = (uint64_t)(int64_t)-1;
    const uint64_t up_to_max32[] = { max32 - 1, max32, 0, max32 - 1, minus1, 0 };
    const uint64_t sign_extended[] = { minus1, 0, 5, minus1, max32, 5 };
    check_sequence(4, up_to_max32, 6);
    check_sequence(4, sign_extended, 6);
}
END_TEST

/* ---- the empty value -------------------------------------------------------------- */

START_TEST(test_empty_value)
{
    memo_bytes m;
    inl_memo_bytes_init(&m, &alloc, 0);
    uint32_t a = 99, b = 99;
    ck_assert_int_eq(inl_memo_bytes_insert(&m, NULL, 0, &a), 0);
    ck_assert_int_eq(inl_memo_bytes_insert(&m, "", 0, &b), 1);
    ck_assert_uint_eq(a, 0);
    ck_assert_uint_eq(b, 0);
    static const char text[] = "xyz";
    ck_assert_int_eq(inl_memo_bytes_insert(&m, text + 3, 0, &b), 1);   /* any pointer, length 0 */
    ck_assert_uint_eq(b, 0);
    size_t len = 99;
    inl_memo_bytes_value(&m, 0, &len);
    ck_assert_uint_eq(len, 0);
    static const uint8_t page[] = { 0, 0, 0, 0 };
    ck_assert_bytes(m.arena.data, m.arena.len, page, sizeof page);
    inl_memo_bytes_free(&m);
}
END_TEST

/* ---- no aliasing -------------------------------------------------------------------- */

START_TEST(test_no_aliasing)
{
    memo_bytes m;
    inl_memo_bytes_init(&m, &alloc, 0);
    char text[6] = "hello";
    uint32_t index;
    ck_assert_int_eq(inl_memo_bytes_insert(&m, text, 5, &index), 0);
    memcpy(text, "jello", 5);
    size_t len;
    const uint8_t *p = inl_memo_bytes_value(&m, 0, &len);
    ck_assert_bytes(p, len, "hello", 5);
    ck_assert((const char *)p < text || (const char *)p >= text + sizeof text);
    ck_assert_int_eq(inl_memo_bytes_insert(&m, "hello", 5, &index), 1);
    ck_assert_uint_eq(index, 0);
    ck_assert_int_eq(inl_memo_bytes_insert(&m, text, 5, &index), 0);   /* "jello" is new */
    ck_assert_uint_eq(index, 1);
    inl_memo_bytes_free(&m);
}
END_TEST

START_TEST(test_no_aliasing_bulk)
{
    memo_bytes m;
    inl_memo_bytes_init(&m, &alloc, 4);
    char a[4] = "abcd", b[4] = "efgh";
    inlay_bytes v[] = { { a, 4 }, { b, 4 }, { a, 4 } };
    uint32_t idx[3];
    ck_assert_int_eq(inl_memo_bytes_insert_many(&m, v, 3, idx), 0);
    memset(a, 'z', 4);
    memset(b, 'z', 4);
    ck_assert_bytes(m.arena.data, m.arena.len, "abcdefgh", 8);
    inl_memo_bytes_free(&m);
}
END_TEST

/* ---- reset and reuse ------------------------------------------------------------------ */

START_TEST(test_reset_fixed)
{
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    memo_fixed m;
    inl_memo_fixed_init(&m, &a, 4);
    uint32_t index;
    /* keys that do not go one way: hashed into slots, which the reset clears and keeps */
    for (uint32_t k = 0; k < 1000; k++) ck_assert_int_eq(inl_memo_fixed_insert(&m, k * 2654435761u, &index), 0);
    inl_memo_fixed_reset(&m);
    ck_assert_uint_eq(m.count, 0);
    ck_assert_uint_eq(inl_memo_fixed_bytes(&m), 0);
    unsigned long before = ta.requests;
    /* the old keys are gone: each is new again, numbered afresh */
    bool ok = true;
    for (uint32_t k = 0; k < 1000; k++) {
        uint32_t key = (999 - k) * 2654435761u;
        ok &= inl_memo_fixed_insert(&m, key, &index) == 0 && index == k;
    }
    ck_assert_msg(ok, "after reset, keys must be new and numbered from 0");
    ck_assert_msg(ta.requests == before, "refilling to the same size allocated %lu times",
                  ta.requests - before);
    uint32_t first;
    memcpy(&first, m.values.data, 4);
    ck_assert_uint_eq(first, 999 * 2654435761u);
    inl_memo_fixed_free(&m);
    ck_assert_no_leak(&ta);
}
END_TEST

START_TEST(test_reset_bytes)
{
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    memo_bytes m;
    inl_memo_bytes_init(&m, &a, 0);
    char key[16];
    uint32_t index;
    for (int k = 0; k < 1000; k++) {
        int n = snprintf(key, sizeof key, "k%d", k);
        ck_assert_int_eq(inl_memo_bytes_insert(&m, key, (size_t)n, &index), 0);
    }
    inl_memo_bytes_reset(&m);
    ck_assert_uint_eq(m.count, 0);
    ck_assert_uint_eq(inl_memo_bytes_bytes(&m), 0);
    unsigned long before = ta.requests;
    bool ok = true;
    for (int k = 0; k < 1000; k++) {
        int n = snprintf(key, sizeof key, "k%d", 999 - k);
        ok &= inl_memo_bytes_insert(&m, key, (size_t)n, &index) == 0 && index == (uint32_t)k;
    }
    ck_assert_msg(ok, "after reset, keys must be new and numbered from 0");
    ck_assert_msg(ta.requests == before, "refilling to the same size allocated %lu times",
                  ta.requests - before);
    size_t len;
    const uint8_t *p = inl_memo_bytes_value(&m, 0, &len);
    ck_assert_bytes(p, len, "k999", 4);
    inl_memo_bytes_free(&m);
    ck_assert_no_leak(&ta);
}
END_TEST

START_TEST(test_free_unused)
{
    /* reset and free of tables that never allocated */
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    memo_fixed f;
    inl_memo_fixed_init(&f, &a, 8);
    inl_memo_fixed_reset(&f);
    inl_memo_fixed_free(&f);
    memo_bytes b;
    inl_memo_bytes_init(&b, &a, 0);
    inl_memo_bytes_reset(&b);
    inl_memo_bytes_free(&b);
    ck_assert_uint_eq(ta.requests, 0);
    ck_assert_no_leak(&ta);
}
END_TEST

/* ---- growth ----------------------------------------------------------------------------- */

enum { MANY = 100000 };

START_TEST(test_growth_fixed)
{
    const size_t width = _i ? 8 : 4;
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    memo_fixed m;
    inl_memo_fixed_init(&m, &a, width);
    uint32_t index;
    size_t bad = SIZE_MAX;
    for (uint64_t k = 0; k < MANY; k++) {
        uint64_t key = width == 4 ? (k * 2654435761u) & 0xFFFFFFFFu : k * 0x9E3779B97F4A7C15ULL;
        if (inl_memo_fixed_insert(&m, key, &index) != 0 || index != k) { bad = k; break; }
    }
    ck_assert_msg(bad == SIZE_MAX, "insert %zu", bad);
    ck_assert_uint_eq(m.count, MANY);
    ck_assert_uint_eq(inl_memo_fixed_bytes(&m), MANY * width);
    for (uint64_t k = 0; k < MANY; k++) {
        uint64_t key = width == 4 ? (k * 2654435761u) & 0xFFFFFFFFu : k * 0x9E3779B97F4A7C15ULL;
        if (inl_memo_fixed_insert(&m, key, &index) != 1 || index != k) { bad = k; break; }
    }
    ck_assert_msg(bad == SIZE_MAX, "lookup %zu", bad);
    ck_assert_uint_le((m.count + 1) * 2, m.mask + 1);   /* load stays <= 1/2 */
    inl_memo_fixed_free(&m);
    ck_assert_no_leak(&ta);
}
END_TEST

/* Fills a table with n distinct 8-byte keys, expecting `expect` of them;
 * checks every index and lookup, then frees it. */
static void fill_expecting(size_t n, size_t expect, test_alloc *ta, size_t *slots)
{
    inlay_allocator a = test_allocator(ta);
    memo_fixed m;
    inl_memo_fixed_init(&m, &a, 8);
    inl_memo_fixed_expect(&m, expect);
    uint32_t index;
    for (uint64_t k = 0; k < n; k++) {
        ck_assert_int_eq(inl_memo_fixed_insert(&m, k * 0x9E3779B97F4A7C15ULL, &index), 0);
        ck_assert_uint_eq(index, k);
    }
    for (uint64_t k = 0; k < n; k++) {
        ck_assert_int_eq(inl_memo_fixed_insert(&m, k * 0x9E3779B97F4A7C15ULL, &index), 1);
        ck_assert_uint_eq(index, k);
    }
    *slots = m.mask + 1;
    inl_memo_fixed_free(&m);
    ck_assert_no_leak(ta);
}

/* Expecting a page of distinct values, the table skips the sizes between
 * an eighth of them and all of them: fewer allocations, a lower peak, the
 * same final size. A few values against a large expectation stay small. */
START_TEST(test_expect_fixed)
{
    test_alloc plain = { 0 }, told = { 0 }, few = { 0 };
    size_t plain_slots, told_slots, few_slots;
    fill_expecting(20000, 0, &plain, &plain_slots);
    fill_expecting(20000, 20000, &told, &told_slots);
    ck_assert_uint_eq(told_slots, plain_slots);
    ck_assert_uint_lt(told.requests, plain.requests);
    ck_assert_uint_lt(told.peak_bytes, plain.peak_bytes);
    fill_expecting(100, 20000, &few, &few_slots);
    ck_assert_uint_le(few_slots, 2048);
}
END_TEST

/* The bulk entry point past the size where it prefetches (65,536 slots),
 * with lengths on both sides of the 8..32-byte path and repeats, agrees
 * with one insert at a time. */
START_TEST(test_bulk_large_agrees)
{
    enum { N = 300000 };
    char *text = malloc((size_t)N * 48);
    inlay_bytes *v = malloc(N * sizeof *v);
    uint32_t *bulk = malloc(N * sizeof *bulk);
    ck_assert(text && v && bulk);
    uint64_t r = 7;
    for (int i = 0; i < N; i++) {
        r = r * 6364136223846793005ULL + 1442695040888963407ULL;
        const int id = (int)((r >> 33) % 150000);           /* about half repeat */
        const int pad = (int)((r >> 20) % 30);
        char *p = text + (size_t)i * 48;
        int n = snprintf(p, 48, "%d", id);                  /* 1..6 digits */
        for (int k = 0; k < pad; k++) p[n++] = (char)('a' + (id + k) % 26);
        v[i].data = p;
        v[i].len = (size_t)n;                               /* 1..36 bytes */
    }
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    memo_bytes mb, ms;
    inl_memo_bytes_init(&mb, &a, 0);
    inl_memo_bytes_init(&ms, &a, 0);
    ck_assert_int_eq(inl_memo_bytes_insert_many(&mb, v, N, bulk), 0);
    ck_assert_uint_ge(mb.mask + 1, 1u << 16);
    size_t bad = SIZE_MAX;
    for (int i = 0; i < N && bad == SIZE_MAX; i++) {
        uint32_t index;
        if (inl_memo_bytes_insert(&ms, v[i].data, v[i].len, &index) < 0 || index != bulk[i]) bad = (size_t)i;
    }
    ck_assert_msg(bad == SIZE_MAX, "value %zu", bad);
    ck_assert_uint_eq(mb.count, ms.count);
    ck_assert_uint_eq(inl_memo_bytes_bytes(&mb), inl_memo_bytes_bytes(&ms));
    ck_assert(memcmp(mb.arena.data, ms.arena.data, mb.arena.len) == 0);
    inl_memo_bytes_free(&mb);
    inl_memo_bytes_free(&ms);
    ck_assert_no_leak(&ta);
    free(text);
    free(v);
    free(bulk);
}
END_TEST

START_TEST(test_growth_bytes)
{
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    memo_bytes m;
    inl_memo_bytes_init(&m, &a, 0);
    char key[24];
    uint32_t index;
    size_t bad = SIZE_MAX;
    for (int k = 0; k < MANY; k++) {
        int n = snprintf(key, sizeof key, "key-%d", k);
        if (inl_memo_bytes_insert(&m, key, (size_t)n, &index) != 0 || index != (uint32_t)k) { bad = (size_t)k; break; }
    }
    ck_assert_msg(bad == SIZE_MAX, "insert %zu", bad);
    for (int k = MANY - 1; k >= 0; k--) {
        int n = snprintf(key, sizeof key, "key-%d", k);
        size_t len;
        const uint8_t *p = inl_memo_bytes_value(&m, (size_t)k, &len);
        if (inl_memo_bytes_insert(&m, key, (size_t)n, &index) != 1 || index != (uint32_t)k ||
            len != (size_t)n || memcmp(p, key, len) != 0) { bad = (size_t)k; break; }
    }
    ck_assert_msg(bad == SIZE_MAX, "lookup %zu", bad);
    ck_assert_uint_eq(m.count, MANY);
    inl_memo_bytes_free(&m);
    ck_assert_no_leak(&ta);
}
END_TEST

/* ---- keys by bit pattern --------------------------------------------------------------- */

START_TEST(test_double_zeros_and_nans)
{
    memo_fixed m;
    inl_memo_fixed_init(&m, &alloc, 8);
    const uint64_t pos0 = bits_of_double(0.0), neg0 = bits_of_double(-0.0);
    const uint64_t nan1 = 0x7FF8000000000001ULL, nan2 = 0x7FF8000000000002ULL, nan3 = 0xFFF8000000000000ULL;
    uint32_t i;
    ck_assert_int_eq(inl_memo_fixed_insert(&m, pos0, &i), 0); ck_assert_uint_eq(i, 0);
    ck_assert_int_eq(inl_memo_fixed_insert(&m, neg0, &i), 0); ck_assert_uint_eq(i, 1);
    ck_assert_int_eq(inl_memo_fixed_insert(&m, nan1, &i), 0); ck_assert_uint_eq(i, 2);
    ck_assert_int_eq(inl_memo_fixed_insert(&m, nan2, &i), 0); ck_assert_uint_eq(i, 3);
    ck_assert_int_eq(inl_memo_fixed_insert(&m, nan3, &i), 0); ck_assert_uint_eq(i, 4);
    ck_assert_int_eq(inl_memo_fixed_insert(&m, nan1, &i), 1); ck_assert_uint_eq(i, 2);
    ck_assert_int_eq(inl_memo_fixed_insert(&m, neg0, &i), 1); ck_assert_uint_eq(i, 1);
    /* the dictionary page keeps the exact bits */
    ck_assert_int_eq(memcmp(m.values.data + 8, &neg0, 8), 0);
    ck_assert_int_eq(memcmp(m.values.data + 24, &nan2, 8), 0);
    inl_memo_fixed_free(&m);
}
END_TEST

START_TEST(test_float_zeros_and_nans)
{
    memo_fixed m;
    inl_memo_fixed_init(&m, &alloc, 4);
    const float v[] = { 0.0f, -0.0f, 1.0f, -0.0f, 0.0f };
    uint32_t nan_a = 0x7FC00001u, nan_b = 0x7FC00002u;
    float fa, fb;
    memcpy(&fa, &nan_a, 4);
    memcpy(&fb, &nan_b, 4);
    const float w[] = { fa, fb, fa };
    uint32_t idx[5];
    ck_assert_int_eq(inl_memo_fixed_insert_many(&m, v, 5, idx), 0);
    const uint32_t want[] = { 0, 1, 2, 1, 0 };
    ck_assert_mem_eq(idx, want, sizeof want);
    ck_assert_int_eq(inl_memo_fixed_insert_many(&m, w, 3, idx), 0);
    const uint32_t want2[] = { 3, 4, 3 };
    ck_assert_mem_eq(idx, want2, sizeof want2);
    uint32_t i;
    ck_assert_int_eq(inl_memo_fixed_insert(&m, bits_of_float(-0.0f), &i), 1);
    ck_assert_uint_eq(i, 1);
    inl_memo_fixed_free(&m);
}
END_TEST

/* ---- bulk and single agree -------------------------------------------------------------- */

START_TEST(test_bulk_fixed)
{
    enum { N = 20000 };
    static int64_t keys[N];
    static uint32_t bulk[N];
    uint64_t rng = 7;
    for (size_t i = 0; i < N; i++) keys[i] = (int64_t)(rng_next(&rng) % 3000) - 1500;
    memo_fixed a, b;
    inl_memo_fixed_init(&a, &alloc, 8);
    inl_memo_fixed_init(&b, &alloc, 8);
    ck_assert_int_eq(inl_memo_fixed_insert_many(&a, keys, N, bulk), 0);
    size_t bad = SIZE_MAX;
    for (size_t i = 0; i < N; i++) {
        uint32_t index;
        if (inl_memo_fixed_insert(&b, (uint64_t)keys[i], &index) < 0 || index != bulk[i]) { bad = i; break; }
    }
    ck_assert_msg(bad == SIZE_MAX, "entry %zu", bad);
    ck_assert_uint_eq(a.count, b.count);
    ck_assert_bytes(a.values.data, a.values.len, b.values.data, b.values.len);
    inl_memo_fixed_free(&a);
    inl_memo_fixed_free(&b);
}
END_TEST

START_TEST(test_bulk_bytes)
{
    enum { N = 20000 };
    static char text[N][12];
    static inlay_bytes v[N];
    static uint32_t bulk[N];
    uint64_t rng = 11;
    for (size_t i = 0; i < N; i++) {
        int n = snprintf(text[i], sizeof text[i], "%u", (unsigned)(rng_next(&rng) % 5000));
        v[i].data = text[i];
        v[i].len = (size_t)n;
    }
    memo_bytes a, b;
    inl_memo_bytes_init(&a, &alloc, 0);
    inl_memo_bytes_init(&b, &alloc, 0);
    ck_assert_int_eq(inl_memo_bytes_insert_many(&a, v, N, bulk), 0);
    size_t bad = SIZE_MAX;
    for (size_t i = 0; i < N; i++) {
        uint32_t index;
        if (inl_memo_bytes_insert(&b, v[i].data, v[i].len, &index) < 0 || index != bulk[i]) { bad = i; break; }
    }
    ck_assert_msg(bad == SIZE_MAX, "entry %zu", bad);
    ck_assert_uint_eq(a.count, b.count);
    ck_assert_bytes(a.arena.data, a.arena.len, b.arena.data, b.arena.len);
    inl_memo_bytes_free(&a);
    inl_memo_bytes_free(&b);
}
END_TEST

/* ---- the arena is the dictionary page ------------------------------------------------------ */

START_TEST(test_page_int32)
{
    memo_fixed m;
    inl_memo_fixed_init(&m, &alloc, 4);
    static const int32_t v[] = { 5, -1, 5, 0x01020304, -1, 7 };
    static const int32_t distinct[] = { 5, -1, 0x01020304, 7 };
    uint32_t idx[6];
    ck_assert_int_eq(inl_memo_fixed_insert_many(&m, v, 6, idx), 0);
    buf page = { 0 };
    ck_assert_int_eq(inl_plain_put_fixed(&page, &alloc, distinct, 4, 4), 0);
    ck_assert_bytes(m.values.data, inl_memo_fixed_bytes(&m), page.data, page.len);
    inl_buf_free(&page, &alloc);
    inl_memo_fixed_free(&m);
}
END_TEST

START_TEST(test_page_byte_array)
{
    memo_bytes m;
    inl_memo_bytes_init(&m, &alloc, 0);
    const inlay_bytes v[] = { bytes_of("hello"), bytes_of(""), bytes_of("hello"), bytes_of("x"),
                              bytes_of(""), bytes_of("\xFF\xFE") };
    const inlay_bytes distinct[] = { bytes_of("hello"), bytes_of(""), bytes_of("x"), bytes_of("\xFF\xFE") };
    uint32_t idx[6];
    ck_assert_int_eq(inl_memo_bytes_insert_many(&m, v, 6, idx), 0);
    buf page = { 0 };
    ck_assert_int_eq(inl_plain_put_bytes(&page, &alloc, distinct, 4), 0);
    ck_assert_bytes(m.arena.data, inl_memo_bytes_bytes(&m), page.data, page.len);
    static const uint8_t spec[] = { 5, 0, 0, 0, 'h', 'e', 'l', 'l', 'o', 0, 0, 0, 0, 1, 0, 0, 0, 'x',
                                    2, 0, 0, 0, 0xFF, 0xFE };
    ck_assert_bytes(m.arena.data, m.arena.len, spec, sizeof spec);
    inl_buf_free(&page, &alloc);
    inl_memo_bytes_free(&m);
}
END_TEST

START_TEST(test_page_flba)
{
    memo_bytes m;
    inl_memo_bytes_init(&m, &alloc, 3);
    const inlay_bytes v[] = { { "abc", 3 }, { "xyz", 3 }, { "abc", 3 }, { "\0\0\0", 3 } };
    uint32_t idx[4];
    ck_assert_int_eq(inl_memo_bytes_insert_many(&m, v, 4, idx), 0);
    static const uint8_t spec[] = { 'a', 'b', 'c', 'x', 'y', 'z', 0, 0, 0 };   /* bare bytes */
    ck_assert_bytes(m.arena.data, inl_memo_bytes_bytes(&m), spec, sizeof spec);
    size_t len;
    const uint8_t *p = inl_memo_bytes_value(&m, 1, &len);
    ck_assert_bytes(p, len, "xyz", 3);
    inl_memo_bytes_free(&m);
}
END_TEST

/* ---- out of memory ----------------------------------------------------------------------- */

/* Fail the Nth allocation while inserting keys; the failing insert must
 * leave the table as it was, and the table must go on working. */
START_TEST(test_nomem_fixed)
{
    for (unsigned long n = 1; n <= 12; n++) {
        test_alloc ta = { .fail_at = n };
        inlay_allocator a = test_allocator(&ta);
        memo_fixed m;
        inl_memo_fixed_init(&m, &a, 8);
        uint32_t next = 0, index;
        bool failed_once = false, ok = true;
        /* keys that do not go one way: hashed from the third on */
        for (uint64_t k = 0; k < 3000; k++) {
            int r = inl_memo_fixed_insert(&m, k * 0x9E3779B97F4A7C15ULL, &index);
            if (r < 0) {
                ok &= !failed_once && m.count == next && inl_memo_fixed_bytes(&m) == next * 8;
                failed_once = true;
                r = inl_memo_fixed_insert(&m, k * 0x9E3779B97F4A7C15ULL, &index);   /* the allocator works again */
            }
            ok &= r == 0 && index == next++;
        }
        for (uint64_t k = 0; k < 3000; k++)
            ok &= inl_memo_fixed_insert(&m, k * 0x9E3779B97F4A7C15ULL, &index) == 1 && index == k;
        ck_assert_msg(ok, "failing allocation %lu", n);
        ck_assert_msg(failed_once || ta.refused == 0, "allocation %lu", n);
        inl_memo_fixed_free(&m);
        ck_assert_no_leak(&ta);
    }
}
END_TEST

/* A run of 3000 keys, then one that turns back and has them all placed:
 * whichever allocation is refused, the insert that needed it fails with
 * the table as it was, and the same insert succeeds next time. */
START_TEST(test_nomem_run)
{
    bool turn_refused = false;
    for (unsigned long n = 1; n <= 12; n++) {
        test_alloc ta = { .fail_at = n };
        inlay_allocator a = test_allocator(&ta);
        memo_fixed m;
        inl_memo_fixed_init(&m, &a, 8);
        uint32_t index;
        bool ok = true;
        for (uint64_t k = 0; k <= 3000; k++) {
            const uint64_t key = k < 3000 ? 1000 + 3 * k : 1000 + 3 * 1234;   /* the last turns back */
            const size_t count = m.count, bytes = inl_memo_fixed_bytes(&m);
            int r = inl_memo_fixed_insert(&m, key, &index);
            if (r < 0) {
                ok &= m.count == count && inl_memo_fixed_bytes(&m) == bytes;
                if (k == 3000) turn_refused = true;
                r = inl_memo_fixed_insert(&m, key, &index);
            }
            ok &= k < 3000 ? r == 0 && index == k : r == 1 && index == 1234;
        }
        for (uint64_t k = 0; k < 3000; k++) ok &= inl_memo_fixed_insert(&m, 1000 + 3 * k, &index) == 1 && index == k;
        ok &= inl_memo_fixed_insert(&m, 1001, &index) == 0 && index == 3000;
        ck_assert_msg(ok, "failing allocation %lu", n);
        inl_memo_fixed_free(&m);
        ck_assert_no_leak(&ta);
    }
    ck_assert_msg(turn_refused, "no failing allocation reached the placing of the run");
}
END_TEST

START_TEST(test_nomem_bytes)
{
    for (unsigned long n = 1; n <= 20; n++) {
        test_alloc ta = { .fail_at = n };
        inlay_allocator a = test_allocator(&ta);
        memo_bytes m;
        inl_memo_bytes_init(&m, &a, 0);
        uint32_t next = 0, index;
        bool ok = true;
        char key[16];
        for (int k = 0; k < 3000; k++) {
            int len = snprintf(key, sizeof key, "%d", k * 13);
            size_t arena = inl_memo_bytes_bytes(&m);
            int r = inl_memo_bytes_insert(&m, key, (size_t)len, &index);
            if (r < 0) {
                ok &= m.count == next && inl_memo_bytes_bytes(&m) == arena;
                r = inl_memo_bytes_insert(&m, key, (size_t)len, &index);
            }
            ok &= r == 0 && index == next++;
        }
        for (int k = 0; k < 3000; k++) {
            int len = snprintf(key, sizeof key, "%d", k * 13);
            ok &= inl_memo_bytes_insert(&m, key, (size_t)len, &index) == 1 && index == (uint32_t)k;
        }
        ck_assert_msg(ok, "failing allocation %lu", n);
        inl_memo_bytes_free(&m);
        ck_assert_no_leak(&ta);
    }
}
END_TEST

/* ---- truncate and refused values ----------------------------------------- */

/* Keys of 1..40 bytes (both hash paths), many sharing a slot's
 * neighbourhood in a small table. */
static size_t trunc_key(char *key, int k)
{
    int len = 1 + (k * 7) % 40;
    for (int i = 0; i < len; i++) key[i] = (char)('a' + (k * 31 + i * 17) % 26);
    int n = snprintf(key, 12, "%d", k);
    key[n] = '-';   /* keep the key length, make it unique */
    return (size_t)(len > n + 1 ? len : n + 1);
}

/* Truncating to any count leaves exactly the table that inserting only the
 * first `count` keys makes: same indices, same arena bytes, and the
 * removed keys come back as new entries. */
START_TEST(test_truncate_bytes)
{
    static const size_t cuts[] = { 0, 1, 7, 100, 555, 999, 1000 };
    char key[64];
    for (size_t c = 0; c < sizeof cuts / sizeof *cuts; c++) {
        const size_t keep = cuts[c];
        memo_bytes m, ref;
        inl_memo_bytes_init(&m, &alloc, 0);
        inl_memo_bytes_init(&ref, &alloc, 0);
        uint32_t index;
        for (int k = 0; k < 1000; k++) {
            size_t len = trunc_key(key, k);
            ck_assert_int_eq(inl_memo_bytes_insert(&m, key, len, &index), 0);
            if ((size_t)k < keep) ck_assert_int_eq(inl_memo_bytes_insert(&ref, key, len, &index), 0);
        }
        inl_memo_bytes_truncate(&m, keep);
        ck_assert_uint_eq(m.count, keep);
        ck_assert_uint_eq(inl_memo_bytes_bytes(&m), inl_memo_bytes_bytes(&ref));
        if (keep) ck_assert_mem_eq(m.arena.data, ref.arena.data, inl_memo_bytes_bytes(&ref));
        for (int k = 0; k < 1000; k++) {   /* kept keys found; the others new, in order */
            size_t len = trunc_key(key, k);
            int r = inl_memo_bytes_insert(&m, key, len, &index);
            ck_assert_int_eq(r, ((size_t)k < keep ? 1 : 0));
            ck_assert_uint_eq(index, (uint32_t)k);
        }
        inl_memo_bytes_free(&m);
        inl_memo_bytes_free(&ref);
    }
}
END_TEST

/* NULL data with a length and lengths past INT32_MAX are refused, single
 * and bulk, at every length path; what came before stays. */
START_TEST(test_refused_values)
{
    memo_bytes m;
    inl_memo_bytes_init(&m, &alloc, 0);
    uint32_t index;
    static const size_t lens[] = { 1, 7, 8, 20, 32, 33, 100 };
    for (size_t i = 0; i < sizeof lens / sizeof *lens; i++)
        ck_assert_int_eq(inl_memo_bytes_insert(&m, NULL, lens[i], &index), -2);
    ck_assert_int_eq(inl_memo_bytes_insert(&m, "x", (size_t)INT32_MAX + 1, &index), -2);
    ck_assert_uint_eq(m.count, 0);
    ck_assert_int_eq(inl_memo_bytes_insert(&m, NULL, 0, &index), 0);   /* the empty value */

    /* bulk: 300 values (past the address cache's batch size), the bad one late */
    static char text[300][24];
    inlay_bytes v[300];
    uint32_t out[300];
    for (size_t bad = 0; bad < sizeof lens / sizeof *lens; bad++) {
        inl_memo_bytes_reset(&m);
        for (int k = 0; k < 300; k++) {
            int n = snprintf(text[k], sizeof text[k], "value-%d-%d", k % 50, k % 7);
            v[k].data = text[k];
            v[k].len = (size_t)n;
        }
        v[250].data = NULL;
        v[250].len = lens[bad];
        ck_assert_int_eq(inl_memo_bytes_insert_many(&m, v, 300, out), -2);
        ck_assert_uint_le(m.count, 250);
        for (int k = 0; k < 250; k++) {   /* the values before it were looked up */
            size_t len;
            const uint8_t *e = inl_memo_bytes_value(&m, out[k], &len);
            ck_assert_uint_eq(len, v[k].len);
            ck_assert_mem_eq(e, v[k].data, len);
        }
    }
    inl_memo_bytes_free(&m);
}
END_TEST

static Suite *memo_suite(void)
{
    Suite *s = suite_create("memo");
    TCase *c;

    c = tcase_create("first-seen order");
    tcase_add_checked_fixture(c, setup, NULL);
    tcase_add_test(c, test_fixed_order);
    tcase_add_test(c, test_bytes_order);
    tcase_add_test(c, test_prefixes_distinct);
    suite_add_tcase(s, c);

    c = tcase_create("empty value");
    tcase_add_checked_fixture(c, setup, NULL);
    tcase_add_test(c, test_empty_value);
    suite_add_tcase(s, c);

    c = tcase_create("no aliasing");
    tcase_add_checked_fixture(c, setup, NULL);
    tcase_add_test(c, test_no_aliasing);
    tcase_add_test(c, test_no_aliasing_bulk);
    suite_add_tcase(s, c);

    c = tcase_create("runs");
    tcase_add_checked_fixture(c, setup, NULL);
    tcase_set_timeout(c, 60);
    tcase_add_loop_test(c, test_run_agrees, 0, 2);
    tcase_add_test(c, test_run_allocates_no_slots);
    tcase_add_test(c, test_run_extremes);
    suite_add_tcase(s, c);

    c = tcase_create("reset and reuse");
    tcase_add_checked_fixture(c, setup, NULL);
    tcase_add_test(c, test_reset_fixed);
    tcase_add_test(c, test_reset_bytes);
    tcase_add_test(c, test_free_unused);
    suite_add_tcase(s, c);

    c = tcase_create("growth");
    tcase_set_timeout(c, 60);
    tcase_add_loop_test(c, test_growth_fixed, 0, 2);
    tcase_add_test(c, test_growth_bytes);
    tcase_add_test(c, test_bulk_large_agrees);
    tcase_add_test(c, test_expect_fixed);
    suite_add_tcase(s, c);

    c = tcase_create("keys by bit pattern");
    tcase_add_checked_fixture(c, setup, NULL);
    tcase_add_test(c, test_double_zeros_and_nans);
    tcase_add_test(c, test_float_zeros_and_nans);
    suite_add_tcase(s, c);

    c = tcase_create("bulk and single insert");
    tcase_add_checked_fixture(c, setup, NULL);
    tcase_add_test(c, test_bulk_fixed);
    tcase_add_test(c, test_bulk_bytes);
    suite_add_tcase(s, c);

    c = tcase_create("dictionary page layout");
    tcase_add_checked_fixture(c, setup, NULL);
    tcase_add_test(c, test_page_int32);
    tcase_add_test(c, test_page_byte_array);
    tcase_add_test(c, test_page_flba);
    suite_add_tcase(s, c);

    c = tcase_create("truncate and refused values");
    tcase_add_checked_fixture(c, setup, NULL);
    tcase_add_test(c, test_truncate_bytes);
    tcase_add_test(c, test_refused_values);
    suite_add_tcase(s, c);

    c = tcase_create("out of memory");
    tcase_add_test(c, test_nomem_fixed);
    tcase_add_test(c, test_nomem_run);
    tcase_add_test(c, test_nomem_bytes);
    suite_add_tcase(s, c);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(memo_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
