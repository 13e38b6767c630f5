/*
 * tmp_folders.h — a temporary folder per TCase and a fresh one per test,
 * for suites that write files. Each TCase gets `base` (made and removed in
 * the runner's process, so it goes even when a test fails:
 * tcase_add_unchecked_fixture(c, make_base, remove_base)), and each test
 * `dir` inside it (tcase_add_checked_fixture(c, make_dir, remove_dir)).
 * Included once, by one suite's .c file, after unit.h.
 */
#ifndef INLAY_TMP_FOLDERS_H
#define INLAY_TMP_FOLDERS_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char base[256], dir[300];

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        unlink(path);
        return;
    }
    struct dirent *e;
    char sub[4096];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        remove_tree(sub);
    }
    closedir(d);
    rmdir(path);
}

static void make_base(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(base, sizeof base, "%s/inlay-unit-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(base)) base[0] = 0;
}

static void remove_base(void)
{
    if (base[0]) remove_tree(base);
}

static void make_dir(void)
{
    ck_assert_msg(base[0] != 0, "no temporary folder");
    snprintf(dir, sizeof dir, "%s/XXXXXX", base);
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
    remove_tree(dir);
}

#endif
