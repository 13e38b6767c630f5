/*
 * check_embed.c — Lua scripts inside a host program (lua/include/
 * inlay_lua.h): loading, transforms over the host's batches into the
 * host's writer (values read back from the file), and scripts that run
 * away — an endless loop, one that catches the budget's error, one that
 * allocates without end — each ended with an error within its budget,
 * leaving the writer as it was and the runtime ready for the next batch.
 */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include <inlay_lua.h>

#include "chunk_reader.h"

enum { C_ID, C_NAME, C_V, NCOLS };
enum { N = 500 };

/* id int64, name string optional, v double optional */
static inlay_schema *input_schema(void)
{
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "name", INLAY_OPTIONAL, inlay_type_string(), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "v", INLAY_OPTIONAL, inlay_type_double(), NULL), 0);
    return s;
}

/* The input's columns and `extra`, a string the scripts add. */
static inlay_writer *open_output(file *f)
{
    inlay_schema *s = input_schema();
    ck_assert_int_gt(inlay_schema_add(s, 0, "extra", INLAY_OPTIONAL, inlay_type_string(), NULL), 0);
    inlay_buffer_init(&f->out, NULL);
    f->meta = NULL;
    inlay_writer *w;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&f->out), s, NULL), INLAY_OK);
    inlay_schema_free(s);
    return w;
}

/* Batch k of the input: ids k*N .. k*N + N - 1; every 3rd name null,
 * every 4th v null. */
typedef struct batch {
    int64_t id[N];
    inlay_bytes name[N];
    int16_t name_def[N];
    char text[N][16];
    double v[N];
    int16_t v_def[N];
    inlay_column_batch b[NCOLS];
} batch;

static void make_batch(batch *x, int k)
{
    size_t nn = 0, nv = 0;
    for (int i = 0; i < N; i++) {
        const int64_t id = (int64_t)k * N + i;
        x->id[i] = id;
        x->name_def[i] = id % 3 != 0;
        if (x->name_def[i]) {
            int len = snprintf(x->text[nn], sizeof x->text[nn], "n%lld", (long long)id);
            x->name[nn] = (inlay_bytes){ x->text[nn], (size_t)len };
            nn++;
        }
        x->v_def[i] = id % 4 != 0;
        if (x->v_def[i]) x->v[nv++] = (double)id / 8;
    }
    const void *values[NCOLS] = { x->id, x->name, x->v };
    for (int c = 0; c < NCOLS; c++) {
        memset(&x->b[c], 0, sizeof x->b[c]);
        x->b[c].column = c;
        x->b[c].values = values[c];
        x->b[c].count = N;
    }
    x->b[C_NAME].levels.def = x->name_def;
    x->b[C_V].levels.def = x->v_def;
}

static inlay_lua *runtime(size_t max_memory, uint64_t max_instructions, const char *code)
{
    inlay_lua_options o;
    inlay_lua_options_init(&o);
    o.max_memory = max_memory;
    o.max_instructions = max_instructions;
    inlay_lua *rt;
    ck_assert_int_eq(inlay_lua_create(&rt, &o), INLAY_OK);
    ck_assert_msg(inlay_lua_load_string(rt, code, strlen(code), "=test") == INLAY_OK, "%s", inlay_lua_errmsg(rt));
    return rt;
}

static const char *const SCRIPT =
    "function keep_even(b)\n"
    "  local id, extra, keep = b.id, {}, {}\n"
    "  for i = 1, b.n do extra[i] = 'e' .. id[i]; keep[i] = id[i] % 2 == 0 end\n"
    "  b.extra = extra\n"
    "  b:filter(keep)\n"
    "end\n"
    "function spin(b) while true do end end\n"
    "function sneaky(b) while true do pcall(function() while true do end end) end end\n"
    "function hog(b) local t = {} for i = 1, math.huge do t[i] = string.rep('x', 64) .. i end end\n"
    "function fails(b) local x = b.id; error('the analyst made a mistake') end\n"
    "function drop_all(b) return false end\n";

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* ---- transforms ----------------------------------------------------------------------- */

START_TEST(test_transform_values)
{
    inlay_lua *rt = runtime(0, 0, SCRIPT);
    inlay_schema *in = input_schema();
    file f;
    inlay_writer *w = open_output(&f);
    inlay_lua_transform *t;
    ck_assert_msg(inlay_lua_transform_open(&t, rt, "keep_even", in, w) == INLAY_OK, "%s", inlay_lua_errmsg(rt));
    static batch x;
    for (int k = 0; k < 3; k++) {
        make_batch(&x, k);
        ck_assert_msg(inlay_lua_transform_run(t, x.b, NCOLS, N) == INLAY_OK, "%s", inlay_lua_errmsg(rt));
    }
    inlay_lua_transform_free(t);
    finish(w, &f);
    decoded id, name, v, extra;
    memset(&id, 0, sizeof id);
    memset(&name, 0, sizeof name);
    memset(&v, 0, sizeof v);
    memset(&extra, 0, sizeof extra);
    decode_column(&f, "id", 8, 0, 0, &id);
    decode_column(&f, "name", 0, 1, 0, &name);
    decode_column(&f, "v", 8, 1, 0, &v);
    decode_column(&f, "extra", 0, 1, 0, &extra);
    ck_assert_uint_eq(id.nvalues, 3 * N / 2);
    size_t kn = 0, kv = 0;
    for (size_t r = 0; r < id.nvalues; r++) {
        int64_t got;
        memcpy(&got, id.val[r], 8);
        const int64_t want = 2 * (int64_t)r;   /* the even ids, in order */
        ck_assert_int_eq(got, want);
        char text[24];
        int len = snprintf(text, sizeof text, "e%lld", (long long)want);
        ck_assert_int_eq(extra.def[r], 1);
        ck_assert_uint_eq(extra.len[r], (size_t)len);
        ck_assert(memcmp(extra.val[r], text, (size_t)len) == 0);
        ck_assert_int_eq(name.def[r], want % 3 != 0);   /* a column the script did not touch, nulls kept */
        if (name.def[r]) {
            len = snprintf(text, sizeof text, "n%lld", (long long)want);
            ck_assert(name.len[kn] == (size_t)len && memcmp(name.val[kn], text, (size_t)len) == 0);
            kn++;
        }
        ck_assert_int_eq(v.def[r], want % 4 != 0);
        if (v.def[r]) {
            double d;
            memcpy(&d, v.val[kv++], 8);
            ck_assert(d == (double)want / 8);
        }
    }
    decoded_free(&id);
    decoded_free(&name);
    decoded_free(&v);
    decoded_free(&extra);
    file_free(&f);
    inlay_schema_free(in);
    inlay_lua_free(rt);
}
END_TEST

START_TEST(test_drop_and_errors)
{
    inlay_lua *rt = runtime(0, 0, SCRIPT);
    inlay_schema *in = input_schema();
    file f;
    inlay_writer *w = open_output(&f);
    static batch x;
    make_batch(&x, 0);
    inlay_lua_transform *t;
    /* a batch the script drops whole */
    ck_assert_int_eq(inlay_lua_transform_open(&t, rt, "drop_all", in, w), INLAY_OK);
    ck_assert_int_eq(inlay_lua_transform_run(t, x.b, NCOLS, N), INLAY_OK);
    ck_assert_uint_eq(inlay_writer_rows(w), 0);
    inlay_lua_transform_free(t);
    /* a script error: the message with the script's line, nothing written */
    ck_assert_int_eq(inlay_lua_transform_open(&t, rt, "fails", in, w), INLAY_OK);
    ck_assert_int_eq(inlay_lua_transform_run(t, x.b, NCOLS, N), INLAY_ERR_STATE);
    ck_assert_msg(strstr(inlay_lua_errmsg(rt), "test:10: the analyst made a mistake"), "%s", inlay_lua_errmsg(rt));
    ck_assert_uint_eq(inlay_writer_rows(w), 0);
    /* a batch that is not the input's shape */
    ck_assert_int_eq(inlay_lua_transform_run(t, x.b, NCOLS - 1, N), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inlay_lua_transform_run(t, x.b, NCOLS, N + 1), INLAY_ERR_ARGUMENT);
    inlay_lua_transform_free(t);
    /* no such function */
    ck_assert_int_eq(inlay_lua_transform_open(&t, rt, "nothing_here", in, w), INLAY_ERR_ARGUMENT);
    ck_assert_ptr_null(t);
    ck_assert_ptr_nonnull(strstr(inlay_lua_errmsg(rt), "no function 'nothing_here'"));
    /* the writer is still the host's, and fine */
    ck_assert_int_eq(inlay_lua_transform_open(&t, rt, "keep_even", in, w), INLAY_OK);
    ck_assert_int_eq(inlay_lua_transform_run(t, x.b, NCOLS, N), INLAY_OK);
    inlay_lua_transform_free(t);
    ck_assert_uint_eq(inlay_writer_rows(w), N / 2);
    finish(w, &f);
    ck_assert_int_eq(f.meta->num_rows, N / 2);
    file_free(&f);
    inlay_schema_free(in);
    inlay_lua_free(rt);
}
END_TEST

START_TEST(test_load_errors)
{
    inlay_lua *rt;
    ck_assert_int_eq(inlay_lua_create(&rt, NULL), INLAY_OK);
    const char *bad = "function (";
    ck_assert_int_eq(inlay_lua_load_string(rt, bad, strlen(bad), "=bad"), INLAY_ERR_VALUE);
    ck_assert_ptr_nonnull(strstr(inlay_lua_errmsg(rt), "bad:1:"));
    const char *raises = "error('at load')";
    ck_assert_int_eq(inlay_lua_load_string(rt, raises, strlen(raises), "=raises"), INLAY_ERR_STATE);
    ck_assert_ptr_nonnull(strstr(inlay_lua_errmsg(rt), "raises:1: at load"));
    ck_assert_int_eq(inlay_lua_load_file(rt, "/nonexistent/script.lua"), INLAY_ERR_VALUE);
    ck_assert_ptr_nonnull(strstr(inlay_lua_errmsg(rt), "/nonexistent/script.lua"));
    const char *fine = "x = require('inlay').version";
    ck_assert_int_eq(inlay_lua_load_string(rt, fine, strlen(fine), "=fine"), INLAY_OK);
    ck_assert_str_eq(inlay_lua_errmsg(rt), "");
    ck_assert_ptr_nonnull(inlay_lua_state(rt));
    inlay_lua_free(rt);
    inlay_lua_free(NULL);
    inlay_lua_options o;
    inlay_lua_options_init(&o);
    o.struct_size = 3;
    ck_assert_int_eq(inlay_lua_create(&rt, &o), INLAY_ERR_ARGUMENT);
    ck_assert_ptr_null(rt);
}
END_TEST

/* ---- runaway scripts ---------------------------------------------------------------------- */

/* Runs `fn` on a batch under the runtime's limits: it must fail within a
 * few seconds, naming why, with nothing written; then keep_even must run
 * on the same runtime. */
static void runaway(inlay_lua *rt, const char *fn, const char *why)
{
    inlay_schema *in = input_schema();
    file f;
    inlay_writer *w = open_output(&f);
    static batch x;
    make_batch(&x, 0);
    inlay_lua_transform *t;
    ck_assert_int_eq(inlay_lua_transform_open(&t, rt, fn, in, w), INLAY_OK);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq(inlay_lua_transform_run(t, x.b, NCOLS, N), INLAY_ERR_STATE);
    ck_assert_msg(seconds_since(&t0) < 10, "%s ran for %.1f s", fn, seconds_since(&t0));
    ck_assert_msg(strstr(inlay_lua_errmsg(rt), why), "%s: %s", fn, inlay_lua_errmsg(rt));
    ck_assert_uint_eq(inlay_writer_rows(w), 0);
    inlay_lua_transform_free(t);
    ck_assert_int_eq(inlay_lua_transform_open(&t, rt, "keep_even", in, w), INLAY_OK);
    ck_assert_msg(inlay_lua_transform_run(t, x.b, NCOLS, N) == INLAY_OK, "after %s: %s", fn, inlay_lua_errmsg(rt));
    inlay_lua_transform_free(t);
    finish(w, &f);
    ck_assert_int_eq(f.meta->num_rows, N / 2);
    file_free(&f);
    inlay_schema_free(in);
}

START_TEST(test_endless_loop)
{
    inlay_lua *rt = runtime(0, 5000000, SCRIPT);
    runaway(rt, "spin", "instruction budget of 5000000 exceeded");
    runaway(rt, "sneaky", "instruction budget of 5000000 exceeded");   /* pcall does not save it */
    inlay_lua_free(rt);
}
END_TEST

START_TEST(test_unbounded_memory)
{
    inlay_lua *rt = runtime(16u << 20, 0, SCRIPT);
    runaway(rt, "hog", "not enough memory");
    runaway(rt, "hog", "not enough memory");   /* and again: what the first left was collected */
    inlay_lua_free(rt);
}
END_TEST

START_TEST(test_budget_at_load)
{
    inlay_lua *rt;
    inlay_lua_options o;
    inlay_lua_options_init(&o);
    o.max_instructions = 1000000;
    ck_assert_int_eq(inlay_lua_create(&rt, &o), INLAY_OK);
    const char *loop = "while true do end";
    ck_assert_int_eq(inlay_lua_load_string(rt, loop, strlen(loop), "=loop"), INLAY_ERR_STATE);
    ck_assert_ptr_nonnull(strstr(inlay_lua_errmsg(rt), "instruction budget"));
    const char *fine = "y = 1 + 1";
    ck_assert_int_eq(inlay_lua_load_string(rt, fine, strlen(fine), "=fine"), INLAY_OK);
    inlay_lua_free(rt);
}
END_TEST

/* Everything goes through the host's allocator and comes back. */
START_TEST(test_host_allocator)
{
    test_alloc ta = { 0 };
    inlay_lua_options o;
    inlay_lua_options_init(&o);
    o.alloc = test_allocator(&ta);
    inlay_lua *rt;
    ck_assert_int_eq(inlay_lua_create(&rt, &o), INLAY_OK);
    ck_assert_int_eq(inlay_lua_load_string(rt, SCRIPT, strlen(SCRIPT), "=test"), INLAY_OK);
    inlay_schema *in = input_schema();
    file f;
    inlay_writer *w = open_output(&f);
    static batch x;
    make_batch(&x, 0);
    inlay_lua_transform *t;
    ck_assert_int_eq(inlay_lua_transform_open(&t, rt, "keep_even", in, w), INLAY_OK);
    ck_assert_int_eq(inlay_lua_transform_run(t, x.b, NCOLS, N), INLAY_OK);
    inlay_lua_transform_free(t);
    inlay_lua_free(rt);
    ck_assert_uint_gt(ta.requests, 0);
    ck_assert_no_leak(&ta);
    finish(w, &f);
    file_free(&f);
    inlay_schema_free(in);
}
END_TEST

static Suite *embed_suite(void)
{
    Suite *s = suite_create("embed");
    TCase *c = tcase_create("transforms");
    tcase_add_test(c, test_transform_values);
    tcase_add_test(c, test_drop_and_errors);
    tcase_add_test(c, test_load_errors);
    tcase_add_test(c, test_host_allocator);
    suite_add_tcase(s, c);
    c = tcase_create("runaway scripts");
    tcase_set_timeout(c, 120);
    tcase_add_test(c, test_endless_loop);
    tcase_add_test(c, test_unbounded_memory);
    tcase_add_test(c, test_budget_at_load);
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(embed_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
