/*
 * schedule.c — which queued page job runs next, and with which page_work
 * (see schedule.h).
 *
 * Each job carries its place among its column's jobs (order, given when it
 * is queued); a job may start only when every earlier job of its column
 * has started (order == started[col]), and then alone, or beside data
 * pages of its column when it is one and none of them must run alone
 * (alone: a chunk end, or a page deciding its chunk's codec). A job that
 * starts beside others waits for its turn (every earlier job finished,
 * inl_schedule_turn) before it goes into its chunk. A job passed over
 * because no page_work suits it holds back the rest of its column's jobs,
 * whatever page_works they could take.
 */
#include "schedule.h"

enum { SEEN_PAGE = 1, SEEN_SEAL = 2 };

static uint8_t seen_bit(const page_job *j) { return j->seal ? SEEN_SEAL : SEEN_PAGE; }

static uint8_t *seen_at(const schedule *s, int w, int col)
{
    return &s->seen[(size_t)w * (size_t)s->ncols + (size_t)col];
}

void inl_schedule_free(schedule *s)
{
    const inlay_allocator *a = &s->alloc;
    const size_t cols = (size_t)s->ncols, works = (size_t)s->nworks;
    if (s->spare) inl_mem_free(a, s->spare, cols * sizeof *s->spare);
    if (s->spare_tail) inl_mem_free(a, s->spare_tail, cols * sizeof *s->spare_tail);
    if (s->queued) inl_mem_free(a, s->queued, cols * sizeof *s->queued);
    if (s->started) inl_mem_free(a, s->started, cols * sizeof *s->started);
    if (s->finished) inl_mem_free(a, s->finished, cols * sizeof *s->finished);
    if (s->running) inl_mem_free(a, s->running, cols * sizeof *s->running);
    if (s->alone) inl_mem_free(a, s->alone, cols * sizeof *s->alone);
    if (s->freed_at) inl_mem_free(a, s->freed_at, works * sizeof *s->freed_at);
    if (s->behind) inl_mem_free(a, s->behind, works * sizeof *s->behind);
    if (s->seen) inl_mem_free(a, s->seen, works * cols);
    memset(s, 0, sizeof *s);
}

static void *zeroed(const inlay_allocator *a, size_t n)
{
    void *p = inl_mem_alloc(a, n);
    if (p) memset(p, 0, n);
    return p;
}

int inl_schedule_init(schedule *s, const inlay_allocator *a, int ncols, int nworks)
{
    memset(s, 0, sizeof *s);
    s->alloc = *a;
    s->ncols = ncols;
    s->nworks = nworks;
    const size_t cols = (size_t)ncols, works = (size_t)nworks;
    s->spare = zeroed(a, cols * sizeof *s->spare);
    s->spare_tail = zeroed(a, cols * sizeof *s->spare_tail);
    s->queued = zeroed(a, cols * sizeof *s->queued);
    s->started = zeroed(a, cols * sizeof *s->started);
    s->finished = zeroed(a, cols * sizeof *s->finished);
    s->running = zeroed(a, cols * sizeof *s->running);
    s->alone = zeroed(a, cols * sizeof *s->alone);
    s->freed_at = zeroed(a, works * sizeof *s->freed_at);
    s->seen = zeroed(a, works * cols);
    s->behind = zeroed(a, works * sizeof *s->behind);
    if (!s->spare || !s->spare_tail || !s->queued || !s->started || !s->finished || !s->running || !s->alone ||
        !s->freed_at || !s->seen || !s->behind) {
        inl_schedule_free(s);
        return INLAY_ERR_NOMEM;
    }
    for (int i = 0; i < nworks; i++) s->freed_at[i] = ++s->clock;
    return 0;
}

void inl_schedule_push(schedule *s, page_job *j)
{
    j->order = s->queued[j->col]++;
    j->next = NULL;
    if (s->tail) s->tail->next = j;
    else s->head = j;
    s->tail = j;
}

/* Whether page_work w is free and, when only_seen, has finished a job like j
 * and has the room others have had. */
static bool usable_work(const schedule *s, int w, const page_job *j, bool only_seen)
{
    return s->freed_at[w] && (!only_seen || ((*seen_at(s, w, j->col) & seen_bit(j)) && !s->behind[w]));
}

/* The page_work for job j (as inl_schedule_pick says), taken; -1 when none. */
static int take_work(schedule *s, work_pref *pref, const page_job *j, bool only_seen)
{
    int w = -1;
    if (pref->last >= 0 && pref->seq == j->k->seq && usable_work(s, pref->last, j, only_seen)) w = pref->last;
    else
        for (int i = 0; i < s->nworks; i++)
            if (usable_work(s, i, j, only_seen) && (w < 0 || s->freed_at[i] < s->freed_at[w])) w = i;
    if (w < 0) return -1;
    s->freed_at[w] = 0;
    pref->last = w;
    pref->seq = j->k->seq;
    return w;
}

static bool must_run_alone(const page_job *j) { return j->seal || j->decides; }

/* Whether j may start beside the jobs of its column now running. */
static bool may_join(const schedule *s, const page_job *j)
{
    return s->running[j->col] == 0 || (!j->seal && s->alone[j->col] == 0);
}

/* A job that starts alone goes straight into its chunk and never waits
 * for its turn: the first pass takes only those, the second any. */
static page_job *pick(schedule *s, work_pref *pref, bool only_seen, bool alone_only, int *w)
{
    page_job *prev = NULL;
    for (page_job *j = s->head; j; prev = j, j = j->next) {
        if (j->order != s->started[j->col] || (alone_only ? s->running[j->col] != 0 : !may_join(s, j)) ||
            (*w = take_work(s, pref, j, only_seen)) < 0)
            continue;
        if (prev) prev->next = j->next;
        else s->head = j->next;
        if (s->tail == j) s->tail = prev;
        j->next = NULL;
        j->in_place = s->running[j->col] == 0;
        s->running[j->col]++;
        if (must_run_alone(j)) s->alone[j->col]++;
        s->started[j->col]++;
        return j;
    }
    return NULL;
}

page_job *inl_schedule_pick(schedule *s, work_pref *pref, bool only_seen, int *w)
{
    page_job *j = pick(s, pref, only_seen, true, w);
    return j ? j : pick(s, pref, only_seen, false, w);
}

void inl_schedule_finished(schedule *s, page_job *j, int w, bool ok)
{
    s->freed_at[w] = ++s->clock;
    if (ok) *seen_at(s, w, j->col) |= seen_bit(j);
    s->running[j->col]--;
    if (must_run_alone(j)) s->alone[j->col]--;
    s->finished[j->col]++;
    inl_schedule_give_back(s, j);
}

bool inl_schedule_turn(const schedule *s, const page_job *j) { return s->finished[j->col] == j->order; }

void inl_schedule_give_back(schedule *s, page_job *j)
{
    j->next = NULL;
    if (s->spare_tail[j->col]) s->spare_tail[j->col]->next = j;
    else s->spare[j->col] = j;
    s->spare_tail[j->col] = j;
}

page_job *inl_schedule_take_spare(schedule *s, int col)
{
    page_job *j = s->spare[col];
    if (j) {
        s->spare[col] = j->next;
        if (!j->next) s->spare_tail[col] = NULL;
        j->next = NULL;
    }
    return j;
}
