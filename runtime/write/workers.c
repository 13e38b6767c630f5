/*
 * workers.c — the writer's worker threads (see workers.h).
 *
 * One lock guards the schedule (the queue, the spare jobs, the pool of
 * page_works: schedule.c), every chunk's pending count, the emit slot and
 * the failure. A worker takes a queued emit first, else the job the
 * schedule picks (a column's jobs start in order); it runs it without the
 * lock, which it takes again only if the job started beside an earlier
 * one of its column and must wait for that one to finish (job_done)
 * before it goes into the chunk.
 *
 * Each column has JOBS_PER_COLUMN jobs, made at the start and reused in
 * turn: a column whose jobs are all queued or running makes the appending
 * thread wait for one. So the pages in flight, and the buffers they hold,
 * are bounded, and once each job has held a page of the column's size
 * nothing more is allocated.
 *
 * The appending thread, rather than wait (for a spare job, a chunk's jobs,
 * an emit) while jobs are queued, runs them itself (help). Whoever runs a
 * job takes a page_work (scratch, compressors) from a pool of one per
 * worker and one more: the one it had for its last job while the job is of
 * the same row group (its caches stay warm), else the one free the
 * longest, so the page_works take turns from the first row groups on. The
 * appending thread takes only a page_work that has already finished a job
 * of the same kind (page or chunk end) of the same column, whose buffers
 * have grown for it, and otherwise waits: a host that counts its
 * allocations (a game's frame) sees none from helping once the workers
 * have warmed up. Which page_work meets which page depends on the timing,
 * so "grown for it" is kept pool-wide: the most room each of a page_work's
 * buffers has had (room), to which a worker grows the page_work it takes
 * before the job, and which the appending thread's must have already.
 * Once the largest pages have been met, no page_work grows again, whoever
 * runs what.
 */
#include <pthread.h>
#include <stdio.h>

#include "schedule.h"
#include "thread.h"
#include "workers.h"

enum { JOBS_PER_COLUMN = 4 };
enum { PAGE_HEADER_ROOM = 4096 };   /* a data page's header, statistics included, and then some */
enum { WORK_BUFS = 9 };   /* the buffers of a page_work that grow with its pages */

typedef struct worker {
    struct workers *ws;
    pthread_t thread;
    work_pref pref;
} worker;

struct workers {
    const column_env *env;
    inlay_allocator alloc;
    pthread_mutex_t lock;
    pthread_cond_t work_ready;   /* a job queued, or stop */
    pthread_cond_t job_done;
    schedule sched;
    page_job *jobs;              /* JOBS_PER_COLUMN per column */
    int ncols;
    worker *threads;
    int nthreads, threads_cap, ncodecs;
    workers_emit_fn emit;        /* queued (emit_queued) or running (emit_running) */
    void *emit_ctx;
    bool emit_queued, emit_running;
    page_work *works;            /* the pool: nthreads + 1 (sched.nworks) */
    work_pref helper;            /* the appending thread's */
    size_t room[WORK_BUFS];      /* the most each buffer of a page_work has grown to, at most room_cap */
    size_t room_cap;             /* a page of the largest size (inl_workers_start): past it, a page
                                    (one huge value) grows only the page_work it meets */
    bool stop;
    int failure;
    char failure_msg[512];
};

/* Run the queued emit; the lock held, and again on return. */
static void run_emit(workers *ws)
{
    ws->emit_queued = false;
    ws->emit_running = true;
    const bool skip = ws->stop || ws->failure;
    pthread_mutex_unlock(&ws->lock);
    char msg[sizeof ws->failure_msg];
    const int st = skip ? 0 : ws->emit(ws->emit_ctx, msg, sizeof msg);
    pthread_mutex_lock(&ws->lock);
    ws->emit_running = false;
    if (st && !ws->failure) {
        ws->failure = st;
        snprintf(ws->failure_msg, sizeof ws->failure_msg, "%s", msg);
    }
    pthread_cond_broadcast(&ws->job_done);
}

static void work_bufs(page_work *pw, buf *b[WORK_BUFS])
{
    buf *all[WORK_BUFS] = { &pw->scratch.raw, &pw->scratch.packed, &pw->scratch.head, &pw->levels, &pw->encoded,
                            &pw->trial, &pw->views, &pw->out, &pw->trunc };
    memcpy(b, all, sizeof all);
}

/* Whether each of pw's buffers has the room given. */
static bool has_room(page_work *pw, const size_t room[WORK_BUFS])
{
    buf *b[WORK_BUFS];
    work_bufs(pw, b);
    for (int i = 0; i < WORK_BUFS; i++)
        if (b[i]->cap < room[i]) return false;
    return true;
}

/* pw's buffers grown to the room given (their contents are a job's
 * scratch). 0 or INLAY_ERR_NOMEM. */
static int grow_work(page_work *pw, const inlay_allocator *a, const size_t room[WORK_BUFS])
{
    buf *b[WORK_BUFS];
    work_bufs(pw, b);
    for (int i = 0; i < WORK_BUFS; i++)
        if (inl_buf_grow(b[i], a, room[i])) return INLAY_ERR_NOMEM;
    return 0;
}

/* Finish job j (picked) with page_work w (taken), grown first to the
 * pool's room when grow; the lock held, and again on return. */
static void run_job(workers *ws, page_job *j, int w, bool grow)
{
    const bool skip = ws->stop || ws->failure;
    size_t room[WORK_BUFS];
    memcpy(room, ws->room, sizeof room);
    pthread_mutex_unlock(&ws->lock);
    int st = 0;
    if (!skip && grow) st = grow_work(&ws->works[w], &ws->alloc, room);
    if (!skip && !st) st = inl_column_finish(j, ws->env, &ws->works[w]);
    pthread_mutex_lock(&ws->lock);
    buf *b[WORK_BUFS];
    work_bufs(&ws->works[w], b);
    for (int i = 0; i < WORK_BUFS; i++)
        if (b[i]->cap > ws->room[i]) ws->room[i] = b[i]->cap < ws->room_cap ? b[i]->cap : ws->room_cap;
    if (st && !ws->failure) {
        ws->failure = st;
        snprintf(ws->failure_msg, sizeof ws->failure_msg, "column '%s' row group %llu: %s", j->c->path,
                 (unsigned long long)j->k->seq, inlay_strerror(st));
    }
    j->k->pending--;
    inl_schedule_finished(&ws->sched, j, w, !skip && !st);
    pthread_cond_broadcast(&ws->job_done);
    if (ws->sched.head) pthread_cond_signal(&ws->work_ready);   /* the column let go may have jobs waiting */
}

/* Every free page_work with less room than the pool's grown by this
 * worker now, so that none is left to grow later (after a host's warm-up)
 * when the timing first hands it a large page. path, seq: the job this
 * worker has just finished, which a failure names. The lock held, and
 * again on return. */
static void catch_up(workers *ws, const char *path, uint64_t seq)
{
    for (int i = 0; i < ws->sched.nworks && !ws->stop && !ws->failure; i++) {
        if (!ws->sched.freed_at[i] || has_room(&ws->works[i], ws->room)) continue;
        const uint64_t freed = ws->sched.freed_at[i];
        ws->sched.freed_at[i] = 0;   /* held while it grows; free the longest as before */
        size_t room[WORK_BUFS];
        memcpy(room, ws->room, sizeof room);
        pthread_mutex_unlock(&ws->lock);
        const int st = grow_work(&ws->works[i], &ws->alloc, room);
        pthread_mutex_lock(&ws->lock);
        ws->sched.freed_at[i] = freed;
        pthread_cond_broadcast(&ws->job_done);   /* the appending thread may take it now */
        if (st && !ws->failure) {   /* as the job's own growth would be */
            ws->failure = st;
            snprintf(ws->failure_msg, sizeof ws->failure_msg, "column '%s' row group %llu: %s", path,
                     (unsigned long long)seq, inlay_strerror(st));
        }
    }
}

static void *run(void *arg)
{
    worker *me = arg;
    workers *ws = me->ws;
    pthread_mutex_lock(&ws->lock);
    for (;;) {
        if (ws->emit_queued) {   /* first: it gives a row group's room back */
            run_emit(ws);
            continue;
        }
        int w;
        page_job *j = inl_schedule_pick(&ws->sched, &me->pref, false, &w);
        if (!j) {
            if (ws->stop) break;
            pthread_cond_wait(&ws->work_ready, &ws->lock);
            continue;
        }
        const char *path = j->c->path;   /* j is given back by run_job */
        const uint64_t seq = j->k->seq;
        run_job(ws, j, w, true);
        catch_up(ws, path, seq);
    }
    pthread_mutex_unlock(&ws->lock);
    return NULL;
}

/* The appending thread, about to wait: it takes a queued emit or job
 * itself rather than sit idle while the workers have more than they can
 * run at once. Whether it ran one; the lock held, and again on return. */
static bool help(workers *ws)
{
    if (ws->stop || ws->failure) return false;
    if (ws->emit_queued) {
        run_emit(ws);
        return true;
    }
    for (int i = 0; i < ws->sched.nworks; i++)   /* a page_work in use is passed over anyway */
        ws->sched.behind[i] = ws->sched.freed_at[i] && !has_room(&ws->works[i], ws->room);
    int w;
    page_job *j = inl_schedule_pick(&ws->sched, &ws->helper, true, &w);
    if (!j) return false;
    run_job(ws, j, w, false);
    return true;
}

void inl_workers_submit(void *ctx, page_job *j)
{
    workers *ws = ctx;
    j->col = (int)j->c->index;
    pthread_mutex_lock(&ws->lock);
    j->k->pending++;
    inl_schedule_push(&ws->sched, j);
    pthread_cond_signal(&ws->work_ready);
    pthread_mutex_unlock(&ws->lock);
}

page_job *inl_workers_take_job(void *ctx, int col)
{
    workers *ws = ctx;
    pthread_mutex_lock(&ws->lock);
    while (!ws->sched.spare[col] && !ws->failure)
        if (!help(ws)) pthread_cond_wait(&ws->job_done, &ws->lock);
    page_job *j = ws->failure ? NULL : inl_schedule_take_spare(&ws->sched, col);
    pthread_mutex_unlock(&ws->lock);
    return j;
}

/* Stopping (abort, free) skips queued jobs, which then count as finished
 * out of their order: the turn they seem to give may not be j's, so j
 * leaves without touching its chunk, as after a failure. */
int inl_workers_await_turn(void *ctx, const page_job *j)
{
    workers *ws = ctx;
    pthread_mutex_lock(&ws->lock);
    while (!ws->failure && !ws->stop && !inl_schedule_turn(&ws->sched, j))
        pthread_cond_wait(&ws->job_done, &ws->lock);
    const int st = ws->failure ? ws->failure : ws->stop ? INLAY_ERR_STATE : 0;
    pthread_mutex_unlock(&ws->lock);
    return st;
}

void inl_workers_emit(workers *ws, workers_emit_fn fn, void *ctx)
{
    pthread_mutex_lock(&ws->lock);
    ws->emit = fn;
    ws->emit_ctx = ctx;
    ws->emit_queued = true;
    pthread_cond_signal(&ws->work_ready);
    pthread_mutex_unlock(&ws->lock);
}

bool inl_workers_emitted(workers *ws, bool wait)
{
    pthread_mutex_lock(&ws->lock);
    while (wait && (ws->emit_queued || ws->emit_running) && !ws->failure)
        if (!help(ws)) pthread_cond_wait(&ws->job_done, &ws->lock);
    const bool done = !ws->emit_queued && !ws->emit_running;
    pthread_mutex_unlock(&ws->lock);
    return done;
}

bool inl_workers_done(workers *ws, const chunk *k, bool wait)
{
    pthread_mutex_lock(&ws->lock);
    while (wait && k->pending && !ws->failure)
        if (!help(ws)) pthread_cond_wait(&ws->job_done, &ws->lock);
    const bool done = k->pending == 0;
    pthread_mutex_unlock(&ws->lock);
    return done;
}

int inl_workers_failure(workers *ws, char *msg, size_t cap)
{
    pthread_mutex_lock(&ws->lock);
    const int st = ws->failure;
    if (st && msg) snprintf(msg, cap, "%s", ws->failure_msg);
    pthread_mutex_unlock(&ws->lock);
    return st;
}

static void free_all(workers *ws)
{
    const inlay_allocator *a = &ws->alloc;
    if (ws->works) {
        for (int i = 0; i < ws->sched.nworks; i++) inl_page_work_free(&ws->works[i], a, ws->ncodecs);
        inl_mem_free(a, ws->works, (size_t)ws->sched.nworks * sizeof *ws->works);
    }
    inl_schedule_free(&ws->sched);
    if (ws->threads) inl_mem_free(a, ws->threads, (size_t)ws->threads_cap * sizeof *ws->threads);
    const size_t njobs = (size_t)ws->ncols * JOBS_PER_COLUMN;
    if (ws->jobs) {
        for (size_t i = 0; i < njobs; i++) inl_page_job_free(&ws->jobs[i], a);
        inl_mem_free(a, ws->jobs, njobs * sizeof *ws->jobs);
    }
    pthread_mutex_destroy(&ws->lock);
    pthread_cond_destroy(&ws->work_ready);
    pthread_cond_destroy(&ws->job_done);
    inlay_allocator copy = *a;
    inl_mem_free(&copy, ws, sizeof *ws);
}

void inl_workers_stop(workers *ws)
{
    if (!ws) return;
    pthread_mutex_lock(&ws->lock);
    ws->stop = true;
    pthread_cond_broadcast(&ws->work_ready);
    pthread_cond_broadcast(&ws->job_done);   /* a job waiting for its turn leaves */
    pthread_mutex_unlock(&ws->lock);
    for (int i = 0; i < ws->nthreads; i++) pthread_join(ws->threads[i].thread, NULL);
    free_all(ws);
}

static int init_work(page_work *pw, const inlay_allocator *a, const compressor *codecs, int n, size_t largest_page)
{
    memset(pw, 0, sizeof *pw);
    int st = inl_compress_init(&pw->none, a, INLAY_UNCOMPRESSED, INLAY_LEVEL_DEFAULT, 0);
    if (st) return st;
    pw->comps = inl_mem_alloc(a, (size_t)n * sizeof *pw->comps);
    if (!pw->comps) return INLAY_ERR_NOMEM;
    memset(pw->comps, 0, (size_t)n * sizeof *pw->comps);
    for (int i = 0; i < n; i++)
        if ((st = inl_compress_init(&pw->comps[i], a, codecs[i].codec, codecs[i].level, 2 * largest_page)))
            return st;
    /* Whether a page is finished aside (beside an earlier one of its
     * column), and whether its chunk's buffer has the room to compress it
     * in place or it goes through the scratch, depend on the timing: their
     * room is made now, so that a warm writer does not allocate the first
     * time this page_work meets one. Address space (grown, not reserved:
     * no pages mapped ahead), touched only when used. */
    size_t out = 2 * largest_page;
    for (int i = 0; i < n; i++) {
        const size_t bound = inl_compress_bound(&pw->comps[i], 2 * largest_page);
        if (bound > out) out = bound;
    }
    if (inl_buf_grow(&pw->out, a, out + PAGE_HEADER_ROOM) || inl_buf_grow(&pw->scratch.packed, a, out))
        return INLAY_ERR_NOMEM;
    return 0;
}

int inl_workers_start(workers **out, const column_env *e, int n, int ncols, const compressor *codecs,
                      int ncodecs, size_t largest_page)
{
    *out = NULL;
    workers *ws = inl_mem_alloc(&e->alloc, sizeof *ws);
    if (!ws) return INLAY_ERR_NOMEM;
    memset(ws, 0, sizeof *ws);
    ws->env = e;
    ws->alloc = e->alloc;
    ws->ncodecs = ncodecs;
    pthread_mutex_init(&ws->lock, NULL);
    pthread_cond_init(&ws->work_ready, NULL);
    pthread_cond_init(&ws->job_done, NULL);
    const int nworks = n + 1;
    if (inl_schedule_init(&ws->sched, &ws->alloc, ncols, nworks)) {
        free_all(ws);
        return INLAY_ERR_NOMEM;
    }
    const size_t njobs = (size_t)ncols * JOBS_PER_COLUMN;
    ws->jobs = inl_mem_alloc(&ws->alloc, njobs * sizeof *ws->jobs);
    ws->threads = inl_mem_alloc(&ws->alloc, (size_t)n * sizeof *ws->threads);
    ws->works = inl_mem_alloc(&ws->alloc, (size_t)nworks * sizeof *ws->works);
    /* what free_all frees: the arrays are made with these sizes */
    ws->ncols = ncols;
    ws->threads_cap = n;
    if (ws->jobs) memset(ws->jobs, 0, njobs * sizeof *ws->jobs);
    if (ws->threads) memset(ws->threads, 0, (size_t)n * sizeof *ws->threads);
    if (ws->works) memset(ws->works, 0, (size_t)nworks * sizeof *ws->works);
    if (!ws->jobs || !ws->threads || !ws->works) {
        free_all(ws);
        return INLAY_ERR_NOMEM;
    }
    for (size_t i = 0; i < njobs; i++) {
        ws->jobs[i].col = (int)(i / JOBS_PER_COLUMN);
        inl_schedule_give_back(&ws->sched, &ws->jobs[i]);
    }
    ws->nthreads = n;
    for (int i = 0; i < nworks; i++) {
        int st = init_work(&ws->works[i], &ws->alloc, codecs, ncodecs, largest_page);
        if (st) {
            free_all(ws);
            return st;
        }
    }
    ws->room_cap = ws->works[0].out.cap;
    ws->helper.last = -1;
    int started = 0;
    for (; started < n; started++) {
        ws->threads[started].ws = ws;
        ws->threads[started].pref.last = -1;
        if (inl_thread_start(&ws->threads[started].thread, run, &ws->threads[started])) break;
    }
    if (started == 0) {
        free_all(ws);
        return INLAY_ERR_STATE;
    }
    /* fewer threads than asked (the system's limit): the pages go on the
     * ones that started (the pool keeps its page_works, more than enough) */
    ws->nthreads = started;
    *out = ws;
    return 0;
}
