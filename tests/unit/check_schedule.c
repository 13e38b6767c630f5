/*
 * check_schedule.c — which queued page job runs next (runtime/write/
 * schedule.c), driven by hand, one step at a time, with no threads: a
 * column's jobs start in the order they were queued, even when a later
 * one could take a page_work its first could not; its data pages side by
 * side, but a chunk end or a page deciding its chunk's codec alone, and
 * each into its chunk only in its turn; columns run in parallel;
 * page_works go to the thread that last had one in the same row group,
 * else to the one free the longest; the appending thread's only_seen;
 * spare jobs in turn; an allocation failure at init.
 */
#include "unit.h"

#include "schedule.h"

static test_alloc counts;
static inlay_allocator alloc;
static schedule s;
static chunk chunks[4];          /* row groups 0..3 (seq) */
static page_job jobs[32];
static int njobs;

static void setup(void)
{
    memset(&counts, 0, sizeof counts);
    alloc = test_allocator(&counts);
    memset(chunks, 0, sizeof chunks);
    for (int i = 0; i < 4; i++) chunks[i].seq = (uint64_t)i;
    memset(jobs, 0, sizeof jobs);
    njobs = 0;
}

static void teardown(void)
{
    inl_schedule_free(&s);
    ck_assert_uint_eq(counts.live_bytes, 0);
    ck_assert_uint_eq(counts.bad_sizes, 0);
}

/* A job of column col in row group rg (a chunk end when seal), queued. */
static page_job *queue(int col, int rg, bool seal)
{
    page_job *j = &jobs[njobs++];
    j->col = col;
    j->k = &chunks[rg];
    j->seal = seal;
    inl_schedule_push(&s, j);
    return j;
}

static work_pref fresh(void) { return (work_pref){ .last = -1, .seq = 0 }; }

/* The regression: with two page_works, A finished column 0's page, B its
 * chunk end. In the next row group a worker holds A for another column,
 * and the appending thread (only_seen) finds column 0's page and chunk end
 * queued: B suits the chunk end but not the page. It must take neither,
 * or the chunk's dictionary page would be written before its first data
 * page decides the chunk's codec. */
START_TEST(test_column_order_when_only_a_later_job_suits)
{
    ck_assert_int_eq(inl_schedule_init(&s, &alloc, 2, 2), 0);
    work_pref worker = fresh(), other = fresh(), helper = fresh();
    int w, a, b;

    page_job *p0 = queue(0, 0, false), *s0 = queue(0, 0, true);
    ck_assert_ptr_null(inl_schedule_pick(&s, &helper, true, &w));   /* nothing seen yet */
    ck_assert_ptr_eq(inl_schedule_pick(&s, &worker, false, &a), p0);
    ck_assert_ptr_null(inl_schedule_pick(&s, &other, false, &w));    /* column 0 held */
    inl_schedule_finished(&s, p0, a, true);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &other, false, &b), s0);  /* the longest free */
    ck_assert_int_ne(a, b);
    inl_schedule_finished(&s, s0, b, true);

    page_job *x1 = queue(1, 1, false), *p1 = queue(0, 1, false), *s1 = queue(0, 1, true);
    int held;
    ck_assert_ptr_eq(inl_schedule_pick(&s, &worker, false, &held), x1);
    ck_assert_int_eq(held, a);   /* A was free longer than B */
    ck_assert_ptr_null(inl_schedule_pick(&s, &helper, true, &w));    /* not s1, past p1 */
    inl_schedule_finished(&s, x1, held, true);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &helper, true, &w), p1);
    ck_assert_int_eq(w, a);
    inl_schedule_finished(&s, p1, w, true);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &helper, true, &w), s1);
    ck_assert_int_eq(w, b);
    inl_schedule_finished(&s, s1, w, true);
    ck_assert_ptr_null(s.head);
}
END_TEST

/* A column's jobs in their order, a codec decider alone; other columns'
 * jobs pass a held column's. */
START_TEST(test_columns_in_parallel_each_in_order)
{
    ck_assert_int_eq(inl_schedule_init(&s, &alloc, 3, 3), 0);
    work_pref t1 = fresh(), t2 = fresh(), t3 = fresh();
    int w1, w2, w3;
    page_job *a0 = queue(0, 0, false), *a1 = queue(0, 0, false), *b0 = queue(1, 0, false);
    a0->decides = true;
    page_job *a2 = queue(0, 0, true), *c0 = queue(2, 0, false);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &t1, false, &w1), a0);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &t2, false, &w2), b0);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &t3, false, &w3), c0);
    ck_assert(w1 != w2 && w2 != w3 && w1 != w3);
    inl_schedule_finished(&s, b0, w2, true);
    ck_assert_ptr_null(inl_schedule_pick(&s, &t2, false, &w2));   /* a1 waits for a0 */
    inl_schedule_finished(&s, a0, w1, true);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &t2, false, &w2), a1);
    ck_assert_ptr_null(inl_schedule_pick(&s, &t1, false, &w1));
    inl_schedule_finished(&s, a1, w2, true);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &t1, false, &w1), a2);
    inl_schedule_finished(&s, a2, w1, true);
    inl_schedule_finished(&s, c0, w3, true);
    ck_assert_ptr_null(s.head);
    ck_assert_ptr_null(s.tail);
}
END_TEST

/* Data pages of a column side by side: the first straight into its chunk,
 * the others in their turn; a chunk end only once they are all done; the
 * next chunk's deciding page beside the last pages of the one before, but
 * no page of its own chunk beside it. */
START_TEST(test_pages_side_by_side)
{
    ck_assert_int_eq(inl_schedule_init(&s, &alloc, 1, 3), 0);
    work_pref t1 = fresh(), t2 = fresh(), t3 = fresh();
    int w1, w2, w3;
    page_job *d0 = queue(0, 0, false), *p1 = queue(0, 0, false), *p2 = queue(0, 0, false);
    page_job *e0 = queue(0, 0, true);
    d0->decides = true;
    ck_assert_ptr_eq(inl_schedule_pick(&s, &t1, false, &w1), d0);
    ck_assert(d0->in_place);
    ck_assert_ptr_null(inl_schedule_pick(&s, &t2, false, &w2));   /* the codec is not decided yet */
    inl_schedule_finished(&s, d0, w1, true);

    ck_assert_ptr_eq(inl_schedule_pick(&s, &t1, false, &w1), p1);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &t2, false, &w2), p2);
    ck_assert(p1->in_place);
    ck_assert(!p2->in_place);
    ck_assert(inl_schedule_turn(&s, p1));
    ck_assert(!inl_schedule_turn(&s, p2));
    ck_assert_ptr_null(inl_schedule_pick(&s, &t3, false, &w3));   /* the chunk end waits for both */
    inl_schedule_finished(&s, p1, w1, true);
    ck_assert(inl_schedule_turn(&s, p2));
    ck_assert_ptr_null(inl_schedule_pick(&s, &t3, false, &w3));
    inl_schedule_finished(&s, p2, w2, true);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &t3, false, &w3), e0);
    ck_assert(e0->in_place);
    page_job *q1 = queue(0, 1, false), *d1 = NULL;
    ck_assert_ptr_null(inl_schedule_pick(&s, &t1, false, &w1));   /* nothing beside a chunk end */
    inl_schedule_finished(&s, e0, w3, true);

    /* row group 1 without a chunk end: its last page, then row group 2's first */
    ck_assert_ptr_eq(inl_schedule_pick(&s, &t1, false, &w1), q1);
    d1 = queue(0, 2, false);
    d1->decides = true;
    page_job *q2 = queue(0, 2, false);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &t2, false, &w2), d1);
    ck_assert(!d1->in_place);
    ck_assert_ptr_null(inl_schedule_pick(&s, &t3, false, &w3));   /* q2 needs d1's decision */
    inl_schedule_finished(&s, q1, w1, true);
    ck_assert(inl_schedule_turn(&s, d1));
    ck_assert_ptr_null(inl_schedule_pick(&s, &t3, false, &w3));
    inl_schedule_finished(&s, d1, w2, true);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &t3, false, &w3), q2);
    ck_assert(q2->in_place);
    inl_schedule_finished(&s, q2, w3, true);
    ck_assert_ptr_null(s.head);
}
END_TEST

/* A job whose column has none running goes before one that would start
 * beside another, though queued after it. */
START_TEST(test_alone_before_beside)
{
    ck_assert_int_eq(inl_schedule_init(&s, &alloc, 2, 3), 0);
    work_pref t1 = fresh(), t2 = fresh(), t3 = fresh();
    int w1, w2, w3;
    page_job *a0 = queue(0, 0, false), *a1 = queue(0, 0, false), *b0 = queue(1, 0, false);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &t1, false, &w1), a0);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &t2, false, &w2), b0);
    ck_assert(b0->in_place);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &t3, false, &w3), a1);   /* nothing alone left: beside a0 */
    ck_assert(!a1->in_place);
    inl_schedule_finished(&s, a0, w1, true);
    inl_schedule_finished(&s, b0, w2, true);
    inl_schedule_finished(&s, a1, w3, true);
    ck_assert_ptr_null(s.head);
}
END_TEST

/* No free page_work: nothing starts; one given back: the first job. */
START_TEST(test_waits_for_a_page_work)
{
    ck_assert_int_eq(inl_schedule_init(&s, &alloc, 3, 1), 0);
    work_pref t1 = fresh(), t2 = fresh();
    int w1, w2;
    page_job *a = queue(0, 0, false), *b = queue(1, 0, false);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &t1, false, &w1), a);
    ck_assert_ptr_null(inl_schedule_pick(&s, &t2, false, &w2));
    inl_schedule_finished(&s, a, w1, true);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &t2, false, &w2), b);
    ck_assert_int_eq(w1, w2);
    inl_schedule_finished(&s, b, w2, true);
}
END_TEST

/* A thread keeps its page_work within a row group; in the next it takes
 * the one free the longest, so all of them take turns. */
START_TEST(test_page_work_preference)
{
    ck_assert_int_eq(inl_schedule_init(&s, &alloc, 2, 3), 0);
    work_pref t = fresh();
    int w, first;
    page_job *j = queue(0, 0, false);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &t, false, &first), j);
    ck_assert_int_eq(first, 0);   /* all free: the lowest clock */
    inl_schedule_finished(&s, j, first, true);
    j = queue(1, 0, false);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &t, false, &w), j);
    ck_assert_int_eq(w, first);   /* same row group: kept */
    inl_schedule_finished(&s, j, w, true);
    j = queue(0, 1, false);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &t, false, &w), j);
    ck_assert_int_eq(w, 1);       /* next row group: free the longest */
    inl_schedule_finished(&s, j, w, true);
    j = queue(0, 2, false);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &t, false, &w), j);
    ck_assert_int_eq(w, 2);
    inl_schedule_finished(&s, j, w, true);
}
END_TEST

/* only_seen: a page_work that has finished a job of the same kind of the
 * same column, and a failed job does not count as one. */
START_TEST(test_only_seen)
{
    ck_assert_int_eq(inl_schedule_init(&s, &alloc, 2, 1), 0);
    work_pref worker = fresh(), helper = fresh();
    int w;
    page_job *j = queue(0, 0, false);
    ck_assert_ptr_null(inl_schedule_pick(&s, &helper, true, &w));
    ck_assert_ptr_eq(inl_schedule_pick(&s, &worker, false, &w), j);
    inl_schedule_finished(&s, j, w, false);   /* failed */
    j = queue(0, 0, false);
    ck_assert_ptr_null(inl_schedule_pick(&s, &helper, true, &w));
    ck_assert_ptr_eq(inl_schedule_pick(&s, &worker, false, &w), j);
    inl_schedule_finished(&s, j, w, true);
    j = queue(0, 0, false);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &helper, true, &w), j);
    inl_schedule_finished(&s, j, w, true);
    j = queue(0, 0, true);    /* a chunk end: not seen */
    ck_assert_ptr_null(inl_schedule_pick(&s, &helper, true, &w));
    page_job *other = queue(1, 0, false);   /* another column: not seen either */
    ck_assert_ptr_null(inl_schedule_pick(&s, &helper, true, &w));
    ck_assert_ptr_eq(inl_schedule_pick(&s, &worker, false, &w), j);
    inl_schedule_finished(&s, j, w, true);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &worker, false, &w), other);
    inl_schedule_finished(&s, other, w, true);
}
END_TEST

/* only_seen passes over a page_work marked behind (less room than another
 * has had), even one that has finished a job like it; a worker takes it. */
START_TEST(test_behind_passed_over)
{
    ck_assert_int_eq(inl_schedule_init(&s, &alloc, 1, 2), 0);
    work_pref worker = fresh(), helper = fresh();
    int w;
    page_job *j = queue(0, 0, false);
    ck_assert_ptr_eq(inl_schedule_pick(&s, &worker, false, &w), j);
    const int ran = w;
    inl_schedule_finished(&s, j, w, true);
    j = queue(0, 0, false);
    s.behind[ran] = true;
    ck_assert_ptr_null(inl_schedule_pick(&s, &helper, true, &w));
    s.behind[ran] = false;
    ck_assert_ptr_eq(inl_schedule_pick(&s, &helper, true, &w), j);
    ck_assert_int_eq(w, ran);
    inl_schedule_finished(&s, j, w, true);
    j = queue(0, 0, false);
    s.behind[ran] = true;
    ck_assert_ptr_eq(inl_schedule_pick(&s, &worker, false, &w), j);
    inl_schedule_finished(&s, j, w, true);
}
END_TEST

/* Spare jobs come back in the order they were given back, per column. */
START_TEST(test_spares_in_turn)
{
    ck_assert_int_eq(inl_schedule_init(&s, &alloc, 2, 1), 0);
    for (int i = 0; i < 6; i++) {
        jobs[i].col = i % 2;
        inl_schedule_give_back(&s, &jobs[i]);
    }
    ck_assert_ptr_eq(inl_schedule_take_spare(&s, 1), &jobs[1]);
    ck_assert_ptr_eq(inl_schedule_take_spare(&s, 0), &jobs[0]);
    ck_assert_ptr_eq(inl_schedule_take_spare(&s, 0), &jobs[2]);
    inl_schedule_push(&s, &jobs[0]);
    int w;
    work_pref t = fresh();
    jobs[0].k = &chunks[0];
    ck_assert_ptr_eq(inl_schedule_pick(&s, &t, false, &w), &jobs[0]);
    inl_schedule_finished(&s, &jobs[0], w, true);
    ck_assert_ptr_eq(inl_schedule_take_spare(&s, 0), &jobs[4]);
    ck_assert_ptr_eq(inl_schedule_take_spare(&s, 0), &jobs[0]);   /* finished: back at the end */
    ck_assert_ptr_null(inl_schedule_take_spare(&s, 0));
    ck_assert_ptr_eq(inl_schedule_take_spare(&s, 1), &jobs[3]);
    ck_assert_ptr_eq(inl_schedule_take_spare(&s, 1), &jobs[5]);
    ck_assert_ptr_null(inl_schedule_take_spare(&s, 1));
}
END_TEST

START_TEST(test_init_nomem)
{
    for (unsigned long n = 1; n < 20; n++) {
        memset(&counts, 0, sizeof counts);
        counts.fail_at = n;
        const int st = inl_schedule_init(&s, &alloc, 4, 3);
        if (st == 0) {
            ck_assert_uint_gt(n, 1);
            inl_schedule_free(&s);
            ck_assert_uint_eq(counts.live_bytes, 0);
            return;
        }
        ck_assert_int_eq(st, INLAY_ERR_NOMEM);
        ck_assert_uint_eq(counts.live_bytes, 0);
        inl_schedule_free(&s);   /* on a failed init: nothing, twice is harmless */
    }
    ck_abort_msg("init never succeeded");
}
END_TEST

static Suite *schedule_suite(void)
{
    Suite *su = suite_create("schedule");
    TCase *c;

    c = tcase_create("order");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_column_order_when_only_a_later_job_suits);
    tcase_add_test(c, test_columns_in_parallel_each_in_order);
    tcase_add_test(c, test_pages_side_by_side);
    tcase_add_test(c, test_alone_before_beside);
    tcase_add_test(c, test_waits_for_a_page_work);
    suite_add_tcase(su, c);

    c = tcase_create("page_works and spares");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_page_work_preference);
    tcase_add_test(c, test_only_seen);
    tcase_add_test(c, test_behind_passed_over);
    tcase_add_test(c, test_spares_in_turn);
    tcase_add_test(c, test_init_nomem);
    suite_add_tcase(su, c);

    return su;
}

int main(void)
{
    SRunner *sr = srunner_create(schedule_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
