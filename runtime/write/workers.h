/*
 * workers.h — the writer's worker threads.
 *
 * The appending thread cuts pages and ends chunks (column.c) exactly where
 * it would alone; the workers finish them (statistics, encoding,
 * compression, the page index, a chunk's dictionary page and bloom
 * filter). A column's jobs start in the order they were cut and go into
 * their chunk in that order; its data pages may be encoded and compressed
 * side by side (schedule.h says when), and different columns' jobs run in
 * parallel. So the bytes of every chunk are those the appending thread
 * would have made itself, whatever the number of threads and the timing.
 *
 * A row group whose chunks are all finished can be handed back to a
 * worker to go to the sink (inl_workers_emit): one at a time, in file
 * order, so the sink is still called by one thread at a time.
 *
 * A failure (allocation, compression, the sink) is kept with its message;
 * later jobs are then skipped, and the writer reports it on its next call.
 * Each job says when it is done through its chunk's pending count, which
 * the writer waits on before writing a row group.
 */
#ifndef INLAY_WORKERS_H
#define INLAY_WORKERS_H

#include "column.h"

typedef struct workers workers;

/* n threads for ncols columns, and n + 1 sets of scratch with a
 * compressor per entry of codecs (ncodecs of them; sized for pages up to
 * largest_page bytes), taken in turn by whoever finishes a job.
 * e: the writer's column_env, which outlives the workers. Rather than wait
 * (for a spare job, a chunk's jobs, an emit) while jobs are queued, the
 * appending thread finishes them itself, any column's, in their order (a
 * column's jobs still run one at a time, so the bytes are the same), or
 * runs the queued emit. Returns 0, INLAY_ERR_NOMEM, or INLAY_ERR_STATE when
 * no thread could be started. */
int inl_workers_start(workers **out, const column_env *e, int n, int ncols, const compressor *codecs,
                      int ncodecs, size_t largest_page);
/* column_env.submit, column_env.take_job and column_env.await_turn (ctx:
 * the workers). */
void inl_workers_submit(void *ctx, page_job *j);
page_job *inl_workers_take_job(void *ctx, int col);
/* 0; a job's failure; or INLAY_ERR_STATE when stopping. */
int inl_workers_await_turn(void *ctx, const page_job *j);
/* Whether chunk k's jobs are all finished; with wait, block until they are
 * (or a job has failed). */
bool inl_workers_done(workers *ws, const chunk *k, bool wait);
/* What inl_workers_emit runs: 0, or a status with its message in msg. */
typedef int (*workers_emit_fn)(void *ctx, char *msg, size_t cap);
/* Run fn(ctx) once, before any page job queued: on a worker, or on the
 * appending thread if it comes to wait for it first. One at a time: the
 * caller waits for the last one (inl_workers_emitted) before the next. */
void inl_workers_emit(workers *ws, workers_emit_fn fn, void *ctx);
/* Whether the last emit has run (or been skipped after a failure); with
 * wait, block until it has, or until a failure. */
bool inl_workers_emitted(workers *ws, bool wait);
/* The first failure: its status (0: none) and message. */
int inl_workers_failure(workers *ws, char *msg, size_t cap);
/* Skip what is queued, wait for the jobs running, end the threads and
 * free everything. */
void inl_workers_stop(workers *ws);

#endif
