/*
 * slow_lock.c — preloaded into the inlay command by test_cli_files.lua: a
 * granted exclusive flock() returns a second late, and leaves the file
 * slow-lock-used in the current folder to say it did. A writer locks its
 * temporary right after creating it, so a signal sent as soon as the
 * temporary shows up arrives while the writer is still opening: the
 * stretch in which the command must hold its signals.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

int flock(int fd, int op)
{
    int (*real)(int, int) = (int (*)(int, int))dlsym(RTLD_NEXT, "flock");
    if (!real) return -1;
    const int rc = real(fd, op);
    if (rc == 0 && (op & LOCK_EX)) {
        const int mark = open("slow-lock-used", O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
        if (mark >= 0) close(mark);
        struct timespec second = { 1, 0 };
        nanosleep(&second, NULL);   /* a signal not held ends it, and the process */
    }
    return rc;
}
