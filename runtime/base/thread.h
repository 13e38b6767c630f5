/*
 * thread.h — how the library starts its threads (the writer's workers, a
 * text source's parsing thread): with the asynchronous signals blocked, so
 * that a host's handler for SIGINT, SIGTERM or SIGHUP runs on one of the
 * host's own threads, where its masks and its bookkeeping apply, and never
 * on a library thread in the middle of a page.
 */
#ifndef INLAY_THREAD_H
#define INLAY_THREAD_H

#include <pthread.h>

/* pthread_create with every signal blocked in the new thread except those a
 * fault raises (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT),
 * which stay with the thread that caused them. The caller's mask is left as
 * it was. Returns pthread_create's result. */
int inl_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg);

#endif
