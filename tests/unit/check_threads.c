/*
 * check_threads.c — writers on threads of their own: each thread opens,
 * fills and closes its own writer at the same time as the others (as a
 * game's logging thread and an ops agent's exporter would), and every file
 * reads back whole. Writers share nothing; the library keeps no state
 * between them but what textval builds once for all (its powers of ten).
 */
#include <pthread.h>

#include "chunk_reader.h"

enum { THREADS = 4, ROWS = 30000, BATCH = 1000 };

typedef struct job {
    int id;
    file f;
    int status;
    char why[256];
} job;

static void *write_one(void *arg)
{
    job *j = arg;
    inlay_options o;
    inlay_options_init(&o);
    o.page_rows = 700 + 100 * (size_t)j->id;   /* different page and row group boundaries in each */
    o.row_group_rows = 9000 + 1000 * (size_t)j->id;
    inlay_schema *s = inlay_schema_create(NULL);
    inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL);
    inlay_schema_add(s, 0, "name", INLAY_OPTIONAL, inlay_type_string(), NULL);
    inlay_buffer_init(&j->f.out, NULL);
    inlay_writer *w = NULL;
    j->status = inlay_writer_open(&w, inlay_buffer_sink(&j->f.out), s, &o);
    inlay_schema_free(s);
    int64_t ids[BATCH];
    inlay_bytes names[BATCH];
    int16_t def[BATCH];
    char text[BATCH][24];
    for (int base = 0; j->status == INLAY_OK && base < ROWS; base += BATCH) {
        size_t n = 0;
        for (int i = 0; i < BATCH; i++) {
            const int64_t v = (int64_t)j->id * 1000000 + base + i;
            ids[i] = v;
            def[i] = v % 5 != 0;
            if (def[i]) {
                int len = snprintf(text[n], sizeof text[n], "t%d-%lld", j->id, (long long)(v % 97));
                names[n] = (inlay_bytes){ text[n], (size_t)len };
                n++;
            }
        }
        inlay_levels lv = { def, NULL, NULL };
        j->status = inlay_writer_append_i64(w, 0, ids, BATCH, NULL);
        if (j->status == INLAY_OK) j->status = inlay_writer_append_bytes(w, 1, names, BATCH, &lv);
    }
    if (j->status == INLAY_OK) j->status = inlay_writer_close(w);
    if (j->status != INLAY_OK) snprintf(j->why, sizeof j->why, "%s", w ? inlay_writer_errmsg(w) : "no writer");
    inlay_writer_free(w);
    return NULL;
}

START_TEST(test_writers_on_threads)
{
    static job jobs[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].id = i + 1;
        ck_assert_int_eq(pthread_create(&t[i], NULL, write_one, &jobs[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) ck_assert_int_eq(pthread_join(t[i], NULL), 0);
    for (int i = 0; i < THREADS; i++) {
        job *j = &jobs[i];
        ck_assert_msg(j->status == INLAY_OK, "thread %d: %s", j->id, j->why);
        const char *why;
        j->f.meta = fm_read(j->f.out.data, j->f.out.len, &why);
        ck_assert_msg(j->f.meta != NULL, "thread %d: %s", j->id, why);
        ck_assert_int_eq(j->f.meta->num_rows, ROWS);
        decoded ids, names;
        memset(&ids, 0, sizeof ids);
        memset(&names, 0, sizeof names);
        decode_column(&j->f, "id", 8, 0, 0, &ids);
        decode_column(&j->f, "name", 0, 1, 0, &names);
        ck_assert_uint_eq(ids.nvalues, ROWS);
        ck_assert_uint_eq(names.nlevels, ROWS);
        size_t k = 0;
        for (size_t r = 0; r < ROWS; r++) {
            int64_t v;
            memcpy(&v, ids.val[r], 8);
            ck_assert_int_eq(v, (int64_t)j->id * 1000000 + (int64_t)r);
            ck_assert_int_eq(names.def[r], v % 5 != 0);
            if (!names.def[r]) continue;
            char want[24];
            int len = snprintf(want, sizeof want, "t%d-%lld", j->id, (long long)(v % 97));
            ck_assert_uint_eq(names.len[k], (size_t)len);
            ck_assert(memcmp(names.val[k], want, (size_t)len) == 0);
            k++;
        }
        ck_assert_uint_eq(k, names.nvalues);
        decoded_free(&ids);
        decoded_free(&names);
        file_free(&j->f);
    }
}
END_TEST

static Suite *threads_suite(void)
{
    Suite *s = suite_create("threads");
    TCase *c = tcase_create("writers");
    tcase_set_timeout(c, 120);
    tcase_add_test(c, test_writers_on_threads);
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(threads_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
