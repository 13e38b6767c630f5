/*
 * schedule.h — which queued page job runs next, and with which page_work.
 *
 * The writer's workers (workers.c) keep here, under their one lock, the
 * queue of page jobs in the order the appending thread cut them, each
 * column's spare jobs, and the pool of page_works (scratch and
 * compressors). The rule that keeps a file the same at any thread count
 * lives here: a column's jobs start in the order they were queued, and
 * go into their chunks in that order (the page_job's in_place, and
 * inl_schedule_turn). Its data pages may run side by side, except beside
 * a page that decides its chunk's codec (which the pages after it use)
 * or a chunk's end (whose dictionary page uses the codec the first page
 * decided, and which runs alone). Columns' jobs run in parallel.
 *
 * No threads and no lock: every call is made with the workers' lock held.
 */
#ifndef INLAY_SCHEDULE_H
#define INLAY_SCHEDULE_H
#include "column.h"

/* Which page_work a thread last had, and for which row group (chunk seq). */
typedef struct work_pref {
    int last;        /* -1: none yet */
    uint64_t seq;
} work_pref;

typedef struct schedule {
    inlay_allocator alloc;
    int ncols, nworks;
    page_job *head, *tail;            /* queued, in the order cut */
    page_job **spare, **spare_tail;   /* per column: finished, for reuse in turn (FIFO) */
    uint64_t *queued, *started;       /* per column: jobs queued and started so far */
    uint64_t *finished;               /* per column: jobs finished so far */
    int *running;                     /* per column: jobs started and not finished */
    int *alone;                       /* per column: of those, chunk ends and codec deciders */
    uint64_t *freed_at;               /* per page_work: when it was last given back (0: in use) */
    uint8_t *seen;                    /* per page_work and column: SEEN_PAGE, SEEN_SEAL (jobs it has finished) */
    bool *behind;                     /* per page_work, the caller's to set: its buffers have less room than
                                         another's have had (only_seen passes it over) */
    uint64_t clock;                   /* counts the give-backs */
} schedule;

/* An empty queue, no spare jobs, and nworks page_works all free.
 * 0 or INLAY_ERR_NOMEM (nothing then to free). */
int inl_schedule_init(schedule *s, const inlay_allocator *a, int ncols, int nworks);
void inl_schedule_free(schedule *s);

/* Job j (its col set) to the end of the queue. */
void inl_schedule_push(schedule *s, page_job *j);

/* The first queued job that is its column's next to start, that may run
 * beside the column's jobs running (none, or data pages only when it is
 * one and none of them decides a codec), and for which a page_work can be
 * taken -- one whose column has none running if there is such a job, as
 * it will not wait for its turn; off the queue, in_place set (no job of
 * its column was running), its page_work in *w. The page_work is the thread's
 * last one (pref) if the job is of the same row group, else the one free
 * the longest; with only_seen, only one that has finished a job of the
 * same kind (page or chunk end) of the same column and is not behind.
 * NULL when no job can start. */
page_job *inl_schedule_pick(schedule *s, work_pref *pref, bool only_seen, int *w);

/* Job j, picked with page_work w, has finished (ok: without failure): its
 * page_work is free again, and j goes to its column's spares. */
void inl_schedule_finished(schedule *s, page_job *j, int w, bool ok);

/* Whether every job of j's column before j has finished: j's turn to go
 * into its chunk. */
bool inl_schedule_turn(const schedule *s, const page_job *j);

/* j to the end of its column's spares (a job made, or one finished). */
void inl_schedule_give_back(schedule *s, page_job *j);

/* The column's oldest spare job, off the spares; NULL when none. */
page_job *inl_schedule_take_spare(schedule *s, int col);
#endif
