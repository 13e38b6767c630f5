/*
 * thread.c — starting the library's threads with the host's signals kept
 * off them (see thread.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>

#include "thread.h"

int inl_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg)
{
    static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT };
    sigset_t blocked, old;
    sigfillset(&blocked);
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) sigdelset(&blocked, faults[i]);
    /* a new thread inherits its creator's mask: set it for the call only */
    const int masked = pthread_sigmask(SIG_BLOCK, &blocked, &old);
    const int rc = pthread_create(thread, NULL, fn, arg);
    if (masked == 0) pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}
