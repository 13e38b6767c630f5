/*
 * replay.c — runs a fuzz harness over corpus files, without libFuzzer: the
 * main() of the fuzz_<name>_replay programs that ctest runs in every build.
 *
 *     fuzz_csv_replay DIR|FILE...
 *
 * Each file is read into a block of exactly its size (so AddressSanitizer
 * sees a read past the end) and given to LLVMFuzzerTestOneInput once, in
 * name order. A failed check in the harness aborts; an argument that
 * cannot be read, or directories holding no file at all, fail too, so a
 * missing corpus is not a silent pass.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *data = malloc(cap);
    for (;;) {
        if (!data) {
            fprintf(stderr, "%s: out of memory\n", path);
            fclose(f);
            return -1;
        }
        len += fread(data + len, 1, cap - len, f);
        if (len < cap) break;
        cap *= 2;
        uint8_t *d = realloc(data, cap);
        if (!d) free(data);
        data = d;
    }
    const int bad = ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "%s: read error\n", path);
        free(data);
        return -1;
    }
    /* exactly len bytes, so that one byte too far is caught */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        free(data);
        return -1;
    }
    if (len) memcpy(exact, data, len);
    free(data);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of dir (not those whose name starts with '.'), in
 * name order. Returns the count, or -1. */
static long run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "%s: %s\n", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn) break;
            names = nn;
        }
        names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
        if (!names[n]) break;
        sprintf(names[n], "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name);
    long count = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (count >= 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            if (getenv("FUZZ_REPLAY_VERBOSE")) fprintf(stderr, "%s\n", names[i]);
            count = run_file(names[i]) ? -1 : count + 1;
        }
        free(names[i]);
    }
    free(names);
    return count;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR|FILE...\n", argv[0]);
        return 2;
    }
    long total = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
            return 1;
        }
        long n = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]) ? -1 : 1;
        if (n < 0) return 1;
        total += n;
    }
    if (total == 0) {
        fprintf(stderr, "no input files\n");
        return 1;
    }
    printf("%ld inputs replayed\n", total);
    return 0;
}
