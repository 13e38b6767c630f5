/*
 * check_alloc.c — the allocator hook (runtime/base/alloc.c) and what the writer
 * does when it fails.
 *
 * Fault injection in the manner of Lua's ltests.c: a small but complete
 * write (nested and flat columns, nulls by levels and by bitmap,
 * dictionary, PLAIN and fallback pages, several pages and row groups,
 * key-value metadata, per-column appends and append_columns) is run once to count its allocations, then again for
 * every N failing the Nth allocation (once, and from N on). Every run must
 * end with INLAY_ERR_NOMEM from the call that hit it and from every call
 * after (the error is sticky), and inlay_writer_free must give back every
 * byte, with the sizes it was given.
 */
#define _DEFAULT_SOURCE   /* mmap, mincore, madvise */
#include "alloc.h"

#include "unit.h"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#endif

/* ---- buffers -------------------------------------------------------------------------- */

START_TEST(test_buf_growth)
{
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    buf b = { 0 };
    ck_assert_int_eq(inl_buf_reserve(&b, &a, 10), 0);
    ck_assert_uint_eq(b.cap, 256);                      /* the first block */
    ck_assert_uint_eq(b.len, 0);
    ck_assert_int_eq(inl_buf_reserve(&b, &a, 256), 0);
    ck_assert_uint_eq(ta.requests, 1);                  /* it fits: no call */
    ck_assert_int_eq(inl_buf_append(&b, &a, "abc", 3), 0);
    ck_assert_int_eq(inl_buf_reserve(&b, &a, 1100), 0);
    ck_assert_uint_eq(b.cap, 2048);                     /* doubled until 1103 fits */
    ck_assert_mem_eq(b.data, "abc", 3);
    ck_assert_uint_eq(ta.live_bytes, 2048);
    ck_assert_int_eq(inl_buf_grow(&b, &a, 100), 0);         /* never shrinks */
    ck_assert_uint_eq(b.cap, 2048);
    inl_buf_free(&b, &a);
    ck_assert_ptr_null(b.data);
    ck_assert_uint_eq(b.cap, 0);
    inl_buf_free(&b, &a);                                   /* twice is fine */
    ck_assert_no_leak(&ta);
}
END_TEST

START_TEST(test_buf_nomem)
{
    test_alloc ta = { .fail_at = 2 };
    inlay_allocator a = test_allocator(&ta);
    buf b = { 0 };
    ck_assert_int_eq(inl_buf_append(&b, &a, "abc", 3), 0);
    uint8_t big[600] = { 0 };
    ck_assert_int_eq(inl_buf_append(&b, &a, big, sizeof big), -1);
    ck_assert_uint_eq(b.len, 3);                        /* unchanged */
    ck_assert_uint_eq(b.cap, 256);
    ck_assert_mem_eq(b.data, "abc", 3);
    ck_assert_int_eq(inl_buf_append(&b, &a, big, sizeof big), 0);   /* works again */
    ck_assert_uint_eq(b.len, 603);
    inl_buf_free(&b, &a);
    ck_assert_no_leak(&ta);
}
END_TEST

#if defined(__linux__)
/* Every block a fresh mapping of its own, so that its pages are in memory
 * only once something wrote them or asked for them. */
static void *mapping_alloc(void *ud, void *p, size_t old, size_t n)
{
    (void)ud;
    if (n == 0) {
        if (p) munmap(p, old);
        return NULL;
    }
    void *q = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (q == MAP_FAILED) return NULL;
    if (p) {
        memcpy(q, p, old < n ? old : n);
        munmap(p, old);
    }
    return q;
}

/* Pages of [p + from, p + to) in memory (mincore), whole pages inside it. */
static size_t resident_pages(const buf *b, size_t from, size_t to)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char v[1024];
    size_t n = b->cap / page, in = 0;
    ck_assert_uint_le(n, sizeof v);
    ck_assert_int_eq(mincore(b->data, n * page, v), 0);
    for (size_t i = (from + page - 1) / page; i < to / page && i < n; i++) in += v[i] & 1;
    return in;
}

/* A large buffer has the pages it is about to write mapped in one call
 * (alloc.h): the next bytes a reserve asks for and a short runway past
 * them, never more, and never past cap; what was written stays. */
START_TEST(test_buf_prefault)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), mib = 1024 * 1024;
    /* whether this kernel can (Linux 5.14): if not, the pages fault as they are written */
    void *probe = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(probe, MAP_FAILED);
    const bool can = madvise(probe, page, MADV_POPULATE_WRITE) == 0;
    munmap(probe, page);

    inlay_allocator a = { mapping_alloc, NULL };
    buf b = { 0 };
    ck_assert_int_eq(inl_buf_grow(&b, &a, mib), 0);
    ck_assert_uint_eq(b.cap, mib);
    ck_assert_uint_eq(b.ready, 0);
    ck_assert_uint_eq(resident_pages(&b, 0, mib), 0);

    /* a small write: its page and a 64 KiB runway, not the rest */
    ck_assert_int_eq(inl_buf_append(&b, &a, "abc", 3), 0);
    ck_assert_uint_eq(b.ready, 64 * 1024);   /* reserved at len 0 */
    if (can) ck_assert_uint_eq(resident_pages(&b, 0, 64 * 1024), 64 * 1024 / page);
    ck_assert_uint_eq(resident_pages(&b, 128 * 1024, mib), 0);

    /* a large reserve: exactly its bytes (rounded to pages) */
    ck_assert_int_eq(inl_buf_reserve(&b, &a, 300 * 1024), 0);
    ck_assert_uint_eq(b.ready, 3 + 300 * 1024);
    if (can) ck_assert_uint_eq(resident_pages(&b, 0, 300 * 1024), 300 * 1024 / page);
    ck_assert_uint_eq(resident_pages(&b, 304 * 1024 + page, mib), 0);
    ck_assert_mem_eq(b.data, "abc", 3);

    /* within what is ready: no call, nothing more */
    ck_assert_int_eq(inl_buf_reserve(&b, &a, 1000), 0);
    ck_assert_uint_eq(b.ready, 3 + 300 * 1024);

    /* never past cap */
    inl_buf_ready(&b, 3 * mib);
    ck_assert_uint_eq(b.ready, mib);
    if (can) ck_assert_uint_eq(resident_pages(&b, 0, mib), mib / page);
    ck_assert_mem_eq(b.data, "abc", 3);

    /* a new block: only what was written counts as in */
    b.len = 5000;
    ck_assert_int_eq(inl_buf_grow(&b, &a, 2 * mib), 0);
    ck_assert_uint_eq(b.ready, 5000);
    ck_assert_mem_eq(b.data, "abc", 3);

    /* shrinking keeps ready within cap; freeing clears it */
    b.ready = 2 * mib;
    inl_buf_shrink(&b, &a, 0);
    ck_assert_uint_eq(b.cap, 5000);
    ck_assert_uint_eq(b.ready, 5000);
    inl_buf_free(&b, &a);
    ck_assert_uint_eq(b.ready, 0);

    /* a small buffer is left to fault: ready is its whole room, at once */
    ck_assert_int_eq(inl_buf_append(&b, &a, "abc", 3), 0);
    ck_assert_uint_eq(b.cap, 256);
    ck_assert_uint_eq(b.ready, 256);
    inl_buf_free(&b, &a);
}
END_TEST
#endif

START_TEST(test_mem_helpers)
{
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    ck_assert_ptr_null(inl_mem_alloc(&a, 0));
    ck_assert_uint_eq(ta.requests, 0);
    char *s = inl_mem_strdup(&a, "hello");
    ck_assert_str_eq(s, "hello");
    ck_assert_uint_eq(ta.live_bytes, 6);
    inl_mem_strfree(&a, s);
    inl_mem_strfree(&a, NULL);
    inl_mem_free(&a, NULL, 10);
    void *p = inl_mem_realloc(&a, NULL, 0, 16);             /* NULL: a new block */
    ck_assert_ptr_nonnull(p);
    p = inl_mem_realloc(&a, p, 16, 64);
    ck_assert_ptr_nonnull(p);
    inl_mem_free(&a, p, 64);
    ck_assert_no_leak(&ta);
    inlay_allocator none = { NULL, NULL };
    inlay_allocator d = inl_mem_or_default(&none);
    ck_assert_ptr_nonnull(d.fn);
    d = inl_mem_or_default(NULL);
    ck_assert_ptr_nonnull(d.fn);
    d = inl_mem_or_default(&a);
    ck_assert(d.fn == test_alloc_fn && d.ud == &ta);
    ta = (test_alloc){ .fail_at = 1 };
    ck_assert_ptr_null(inl_mem_strdup(&a, "x"));
    ck_assert_no_leak(&ta);
}
END_TEST

/* ---- a small complete write ------------------------------------------------------------- */

static int build_schema(inlay_schema *s)
{
    int st, tags, list;
    if ((st = inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL)) < 0) return st;
    if ((st = inlay_schema_add(s, 0, "name", INLAY_OPTIONAL, inlay_type_string(), NULL)) < 0) return st;
    if ((st = inlay_schema_add(s, 0, "cat", INLAY_REQUIRED, inlay_type_string(), NULL)) < 0) return st;
    if ((tags = inlay_schema_add_group(s, 0, "tags", INLAY_OPTIONAL)) < 0) return tags;
    if ((list = inlay_schema_add_group(s, tags, "list", INLAY_REPEATED)) < 0) return list;
    if ((st = inlay_schema_add(s, list, "element", INLAY_OPTIONAL, inlay_type_int(32, true), NULL)) < 0) return st;
    if ((st = inlay_schema_add(s, 0, "score", INLAY_OPTIONAL, inlay_type_double(), NULL)) < 0) return st;
    if ((st = inlay_schema_add(s, 0, "flag", INLAY_REQUIRED, inlay_type_boolean(), NULL)) < 0) return st;
    if ((st = inlay_schema_add(s, 0, "key", INLAY_REQUIRED, inlay_type_fixed(8), NULL)) < 0) return st;
    return 0;
}

enum { RB = 150, BATCHES = 4 };

/* Append batch k to every column; returns the first failing status. */
static int append_batch(inlay_writer *w, int k, int *first)
{
    int64_t id[RB];
    static char names[RB][16], keys[RB][8];
    inlay_bytes name[RB], cat[RB], key[RB];
    uint8_t valid[(RB + 7) / 8] = { 0 };
    int32_t el[2 * RB];
    int16_t tdef[2 * RB], trep[2 * RB], sdef[RB];
    double score[RB];
    bool flag[RB];
    static const char *cats[] = { "red", "green", "blue" };
    size_t nt = 0, nel = 0, ns = 0;
    for (int i = 0; i < RB; i++) {
        int r = k * RB + i;
        id[i] = r;
        int n = snprintf(names[i], sizeof names[i], "name-%d", r);
        name[i].data = names[i];
        name[i].len = (size_t)n;
        if (r % 5) valid[i / 8] |= (uint8_t)(1u << (i % 8));
        cat[i] = bytes_of(cats[r % 3]);
        if (r % 3 == 0) {
            tdef[nt] = 0; trep[nt++] = 0;
        } else {
            for (int j = 0; j < r % 3; j++) { tdef[nt] = 3; trep[nt++] = (int16_t)(j ? 1 : 0); el[nel++] = r + j; }
        }
        sdef[i] = r % 7 != 0;
        if (sdef[i]) score[ns++] = r * 0.5;
        flag[i] = r & 1;
        memset(keys[i], 'a' + r % 26, 8);
        key[i].data = keys[i];
        key[i].len = 8;
    }
    inlay_levels nl = { NULL, NULL, valid }, tl = { tdef, trep, NULL }, sl = { sdef, NULL, NULL },
                 none = { NULL, NULL, NULL };
    int st[7];
    if (k % 2) {                /* odd batches: all columns in one call */
        const inlay_column_batch b[7] = {
            { 0, id, RB, none }, { 1, name, RB, nl }, { 2, cat, RB, none }, { 3, el, nt, tl },
            { 4, score, RB, sl }, { 5, flag, RB, none }, { 6, key, RB, none },
        };
        st[0] = inlay_writer_append_columns(w, b, 7);
        for (int i = 1; i < 7; i++) st[i] = st[0];
    } else {
        st[0] = inlay_writer_append_i64(w, 0, id, RB, NULL);
        st[1] = inlay_writer_append_bytes(w, 1, name, RB, &nl);
        st[2] = inlay_writer_append_bytes(w, 2, cat, RB, NULL);
        st[3] = inlay_writer_append_i32(w, 3, el, nt, &tl);
        st[4] = inlay_writer_append_double(w, 4, score, RB, &sl);
        st[5] = inlay_writer_append_bool(w, 5, flag, RB, NULL);
        st[6] = inlay_writer_append_bytes(w, 6, key, RB, NULL);
    }
    for (int i = 0; i < 7; i++) {
        if (*first) ck_assert_msg(st[i] == *first, "after %d, an append returned %d: not sticky", *first, st[i]);
        else *first = st[i];
    }
    return *first;
}

/* The whole write; every object is freed before it returns. Returns the
 * first failing status, or INLAY_OK. */
static int small_write(const inlay_allocator *a, inlay_compression codec, inlay_sink sink)
{
    inlay_schema *s = inlay_schema_create(a);
    if (!s) return INLAY_ERR_NOMEM;
    int st = build_schema(s);
    if (st) {
        inlay_schema_free(s);
        return st;
    }
    inlay_options o;
    inlay_options_init(&o);
    o.alloc = *a;
    o.threads = 1;   /* one allocation sequence, the same every run (threads: check_threads) */
    o.compression = codec;
    o.page_rows = 64;
    o.row_group_rows = 250;
    o.dictionary_bytes = 256;
    const inlay_kv kv[] = { { "k1", "v1" }, { "k2", NULL } };
    o.metadata = kv;
    o.metadata_count = 2;
    inlay_writer *w = NULL;
    st = inlay_writer_open(&w, sink, s, &o);
    inlay_schema_free(s);
    if (st) {
        inlay_writer_free(w);
        return st;
    }
    int first = 0;
    for (int k = 0; k < BATCHES; k++) append_batch(w, k, &first);
    int c = inlay_writer_close(w);
    if (first) ck_assert_msg(c == first, "close after %d returned %d: not sticky", first, c);
    else first = c;
    if (first) ck_assert_ptr_nonnull(strstr(inlay_writer_errmsg(w), inlay_strerror(first)));
    inlay_writer_free(w);
    return first;
}

START_TEST(test_hook_sees_everything)
{
    /* the same bytes as with the default allocator, all memory through the hook */
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    inlay_allocator d = inl_mem_default();
    for (int codec = 0; codec < 2; codec++) {
        inlay_compression c = codec ? INLAY_ZSTD : INLAY_UNCOMPRESSED;
        inlay_buffer x, y;
        inlay_buffer_init(&x, NULL);
        inlay_buffer_init(&y, NULL);
        ck_assert_int_eq(small_write(&d, c, inlay_buffer_sink(&x)), INLAY_OK);
        ck_assert_int_eq(small_write(&a, c, inlay_buffer_sink(&y)), INLAY_OK);
        ck_assert(x.len == y.len && memcmp(x.data, y.data, x.len) == 0);
        ck_assert_uint_gt(ta.requests, 20);
        ck_assert_no_leak(&ta);
        inlay_buffer_free(&x);
        inlay_buffer_free(&y);
    }
}
END_TEST

START_TEST(test_buffer_sink_allocator)
{
    /* inlay_buffer takes its bytes from its own allocator */
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    inlay_allocator d = inl_mem_default();
    inlay_buffer b;
    inlay_buffer_init(&b, &a);
    ck_assert_int_eq(small_write(&d, INLAY_UNCOMPRESSED, inlay_buffer_sink(&b)), INLAY_OK);
    ck_assert_uint_ge(ta.live_bytes, b.len);
    inlay_buffer_free(&b);
    ck_assert_ptr_null(b.data);
    ck_assert_no_leak(&ta);
}
END_TEST

/* Fail allocation N (and, if `after`, all later ones) for every N. */
static void fault_loop(inlay_compression codec, bool after)
{
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    inlay_buffer ref;
    inlay_buffer_init(&ref, NULL);
    ck_assert_int_eq(small_write(&a, codec, inlay_buffer_sink(&ref)), INLAY_OK);
    ck_assert_no_leak(&ta);
    const unsigned long total = ta.requests;
    unsigned long wrong_status = 0, leaks = 0, first_wrong = 0, first_leak = 0;
    int wrong = 0;
    char leak_what[160] = "";
    for (unsigned long n = 1; n <= total + 1; n++) {
        ta = (test_alloc){ .fail_at = n, .fail_after = after };
        inlay_buffer out;
        inlay_buffer_init(&out, NULL);
        int st = small_write(&a, codec, inlay_buffer_sink(&out));
        int want = n <= total ? INLAY_ERR_NOMEM : INLAY_OK;
        if (st != want && !wrong_status++) { first_wrong = n; wrong = st; }
        if (n <= total) ck_assert_msg(ta.refused >= 1, "allocation %lu was never made", n);
        else ck_assert(out.len == ref.len && memcmp(out.data, ref.data, ref.len) == 0);
        if ((ta.live_bytes || ta.live_blocks || ta.bad_sizes || ta.bad_new) && !leaks++) {
            first_leak = n;
            snprintf(leak_what, sizeof leak_what, "%zu bytes in %zu blocks live, %lu frees with a wrong size",
                     ta.live_bytes, ta.live_blocks, ta.bad_sizes);
        }
        inlay_buffer_free(&out);
    }
    inlay_buffer_free(&ref);
    ck_assert_msg(wrong_status == 0 && leaks == 0,
                  "of %lu allocations, failing %lu did not give INLAY_ERR_NOMEM (the first, "
                  "allocation %lu, gave %d: %s), and failing %lu leaked or freed with a wrong size "
                  "(the first, allocation %lu: %s)", total, wrong_status, first_wrong, wrong,
                  inlay_strerror(wrong), leaks, first_leak, leak_what);
}

START_TEST(test_fail_once_uncompressed)
{
    fault_loop(INLAY_UNCOMPRESSED, false);
}
END_TEST

START_TEST(test_fail_from_n_uncompressed)
{
    fault_loop(INLAY_UNCOMPRESSED, true);
}
END_TEST

START_TEST(test_fail_once_zstd)
{
    fault_loop(INLAY_ZSTD, false);
}
END_TEST

START_TEST(test_fail_from_n_zstd)
{
    fault_loop(INLAY_ZSTD, true);
}
END_TEST

static Suite *alloc_suite(void)
{
    Suite *s = suite_create("alloc");
    TCase *c;

    c = tcase_create("buffers");
    tcase_add_test(c, test_buf_growth);
    tcase_add_test(c, test_buf_nomem);
    tcase_add_test(c, test_mem_helpers);
#if defined(__linux__)
    tcase_add_test(c, test_buf_prefault);
#endif
    suite_add_tcase(s, c);

    c = tcase_create("the hook");
    tcase_add_test(c, test_hook_sees_everything);
    tcase_add_test(c, test_buffer_sink_allocator);
    suite_add_tcase(s, c);

    c = tcase_create("fault injection");
    tcase_set_timeout(c, 120);
    tcase_add_test(c, test_fail_once_uncompressed);
    tcase_add_test(c, test_fail_from_n_uncompressed);
    tcase_add_test(c, test_fail_once_zstd);
    tcase_add_test(c, test_fail_from_n_zstd);
    suite_add_tcase(s, c);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(alloc_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
