/*
 * check_dataset.c — datasets (runtime/write/dataset.c, hive.c,
 * partition.c), through the public API only: Hive folder names for every
 * kind of partition value (escapes, null, the names a reader would take
 * for something else, values too long for a folder name), file names and
 * shards, partition columns left out of the files or kept, every row in
 * exactly one file (read back with the library's reader), the limits
 * (rows and bytes per file, open files, buffered bytes), bad values and
 * bad call shapes, what an existing shard does, the manifest and
 * _SUCCESS, abort, nested columns, and allocation failures at every N.
 */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <sys/file.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "unit.h"

/* ---- folders ------------------------------------------------------------------------------- */

#include "tmp_folders.h"

/* A path under the test's folder, in one of a few rotating buffers. */
static const char *P(const char *fmt, ...)
{
    static char bufs[8][4096];
    static int next;
    char *b = bufs[next++ % 8];
    int k = snprintf(b, sizeof bufs[0], "%s/", dir);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b + k, sizeof bufs[0] - (size_t)k, fmt, ap);
    va_end(ap);
    return b;
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(a, b);
}

enum { MAXNAMES = 512, NAMELEN = 1024 };

/* The names in a folder, sorted; -1 when it cannot be opened. */
static int list_names(const char *path, char (*names)[NAMELEN], int max)
{
    DIR *d = opendir(path);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        ck_assert_int_lt(n, max);
        snprintf(names[n++], NAMELEN, "%s", e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, NAMELEN, cmp_names);
    return n;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

/* Paths (relative to root) of the regular files under root whose names
 * end in `suffix`, sorted. */
static int walk_rel(const char *root, const char *rel, const char *suffix, char (*out)[NAMELEN], int n, int max)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", root, *rel ? "/" : "", rel);
    DIR *d = opendir(path);
    if (!d) return n;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char sub[NAMELEN], full[4096];
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", root, sub);
        struct stat st;
        if (lstat(full, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            n = walk_rel(root, sub, suffix, out, n, max);
        } else if (ends_with(e->d_name, suffix)) {
            ck_assert_int_lt(n, max);
            snprintf(out[n++], NAMELEN, "%s", sub);
        }
    }
    closedir(d);
    return n;
}

static char files[MAXNAMES][NAMELEN];

static int find_files(const char *root, const char *suffix)
{
    int n = walk_rel(root, "", suffix, files, 0, MAXNAMES);
    qsort(files, (size_t)n, NAMELEN, cmp_names);
    return n;
}

static int count_files(const char *root, const char *suffix)
{
    static char tmp[MAXNAMES][NAMELEN];
    return walk_rel(root, "", suffix, tmp, 0, MAXNAMES);
}

static char *slurp_len(const char *path, size_t *out_len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s: %s", path, strerror(errno));
    char *data = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            data = realloc(data, cap);
            ck_assert_ptr_nonnull(data);
        }
        size_t got = fread(data + len, 1, cap - len - 1, f);
        if (!got) break;
        len += got;
    }
    fclose(f);
    data[len] = 0;
    if (out_len) *out_len = len;
    return data;
}

static char *slurp(const char *path) { return slurp_len(path, NULL); }

/* The numbers after every "rows" key of a manifest, sorted. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The numbers of the "rows" keys of a manifest's file entries, sorted: the
 * "rows" keys nested deepest, never the manifest's own (a total). */
static int manifest_rows(const char *text, uint64_t *out, int max)
{
    int n = 0, depth = 0, deepest = -1;
    for (const char *p = text; *p; p++) {
        if (*p == '{' || *p == '[') {
            depth++;
        } else if (*p == '}' || *p == ']') {
            depth--;
        } else if (*p == '"') {
            const char *q = p + 1;
            while (*q && *q != '"') q += q[0] == '\\' && q[1] ? 2 : 1;
            const bool is_rows = q - p - 1 == 4 && strncmp(p + 1, "rows", 4) == 0;
            p = *q ? q : q - 1;
            if (!is_rows) continue;
            const char *v = p + 1;
            while (*v == ' ' || *v == '\t' || *v == '\n' || *v == '\r') v++;
            if (*v != ':') continue;
            v++;
            while (*v == ' ' || *v == '\t' || *v == '\n' || *v == '\r') v++;
            if (depth < 2) continue;   /* the manifest's own fields */
            if (depth > deepest) {
                deepest = depth;
                n = 0;
            }
            if (depth < deepest) continue;
            ck_assert_int_lt(n, max);
            out[n++] = strtoull(v, NULL, 10);
        }
    }
    qsort(out, (size_t)n, sizeof *out, cmp_u64);
    return n;
}

/* The manifest lists exactly these row counts (any order) and names each
 * of the files. */
static void check_manifest(const char *path, const uint64_t *want_rows, int nwant, const char *const *names, int nnames)
{
    char *text = slurp(path);
    uint64_t got[256], want[256];
    int n = manifest_rows(text, got, 256);
    ck_assert_msg(n == nwant, "manifest %s lists %d row counts, want %d:\n%s", path, n, nwant, text);
    if (nwant) memcpy(want, want_rows, (size_t)nwant * sizeof *want);
    qsort(want, (size_t)nwant, sizeof *want, cmp_u64);
    for (int i = 0; i < n; i++)
        ck_assert_msg(got[i] == want[i], "manifest %s: row counts differ at %d (%llu, want %llu):\n%s", path, i,
                      (unsigned long long)got[i], (unsigned long long)want[i], text);
    for (int i = 0; i < nnames; i++)
        ck_assert_msg(strstr(text, names[i]) != NULL, "manifest %s does not name %s:\n%s", path, names[i], text);
    free(text);
}

/* ---- reading back ----------------------------------------------------------------------------- */

static inlay_reader *open_reader(const char *path)
{
    inlay_reader *r = NULL;
    int st = inlay_reader_open_file(&r, path, NULL);
    ck_assert_msg(st == INLAY_OK, "reading %s: %s", path, r ? inlay_reader_errmsg(r) : "out of memory");
    return r;
}

static int64_t file_rows(const char *path)
{
    inlay_reader *r = open_reader(path);
    int64_t n = inlay_reader_info(r)->num_rows;
    inlay_reader_free(r);
    return n;
}

static int file_row_groups(const char *path)
{
    inlay_reader *r = open_reader(path);
    int n = inlay_reader_info(r)->num_row_groups;
    inlay_reader_free(r);
    return n;
}

static bool file_has_field(const char *path, const char *name)
{
    inlay_reader *r = open_reader(path);
    bool has = inlay_reader_field(r, name) >= 0;
    inlay_reader_free(r);
    return has;
}

static bool bit(const uint8_t *bits, size_t i)
{
    return !bits || (bits[i >> 3] >> (i & 7) & 1);
}

/* The required INT64 field `name` of a file, in order. Returns the count. */
static size_t read_i64(const char *path, const char *name, int64_t *out, size_t cap)
{
    inlay_reader *r = open_reader(path);
    int f = inlay_reader_field(r, name);
    ck_assert_msg(f >= 0, "%s has no field %s", path, name);
    ck_assert_int_eq(inlay_reader_select(r, &f, 1, NULL, 0), INLAY_OK);
    size_t n = 0, rows;
    for (;;) {
        ck_assert_msg(inlay_reader_next(r, 0, &rows) == INLAY_OK, "%s: %s", path, inlay_reader_errmsg(r));
        if (!rows) break;
        const inlay_array *a = inlay_reader_array(r, 0);
        for (size_t i = 0; i < rows; i++) {
            ck_assert_msg(bit(a->validity, i), "%s: null %s", path, name);
            ck_assert_uint_lt(n, cap);
            out[n++] = ((const int64_t *)a->values)[i];
        }
    }
    inlay_reader_free(r);
    return n;
}

/* The parent folder of a relative path ("" at root). */
static void folder_of(const char *rel, char *out, size_t cap)
{
    const char *slash = strrchr(rel, '/');
    size_t n = slash ? (size_t)(slash - rel) : 0;
    snprintf(out, cap, "%.*s", (int)n, rel);
}

static const char *basename_of(const char *rel)
{
    const char *slash = strrchr(rel, '/');
    return slash ? slash + 1 : rel;
}

/* ---- schemas and options ---------------------------------------------------------------------- */

static void options(inlay_dataset_options *o, const char *const *by, size_t nby, const char *shard)
{
    inlay_dataset_options_init(o);
    o->partition_by = by;
    o->partition_by_count = nby;
    o->shard = shard;
    o->file.sync = false;
}

static inlay_dataset *open_ok(const char *root, const inlay_schema *s, const inlay_dataset_options *o)
{
    inlay_dataset *d = NULL;
    int st = inlay_dataset_open(&d, root, s, o);
    ck_assert_msg(st == INLAY_OK, "open %s: %d %s", root, st, d ? inlay_dataset_errmsg(d) : "");
    ck_assert_ptr_nonnull(d);
    return d;
}

static void close_ok(inlay_dataset *d)
{
    int st = inlay_dataset_close(d);
    ck_assert_msg(st == INLAY_OK, "close: %d %s", st, inlay_dataset_errmsg(d));
}

/* id INT64 required (column 0), k of type kt optional (column 1), v STRING
 * optional (column 2). */
static inlay_schema *kv_schema(inlay_type kt)
{
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "k", INLAY_OPTIONAL, kt, NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "v", INLAY_OPTIONAL, inlay_type_string(), NULL), 0);
    return s;
}

enum { KV_MAX = 4096 };

/* n rows with ids first_id.., keys keys[i] (NULL: null; len from
 * key_lens when given, else strlen) and v = "v<id>". */
static int append_kv_n(inlay_dataset *d, int64_t first_id, const char *const *keys, const size_t *key_lens, size_t n)
{
    static int64_t id[KV_MAX];
    static inlay_bytes k[KV_MAX], v[KV_MAX];
    static int16_t kdef[KV_MAX];
    static char vtext[KV_MAX][24];
    ck_assert_uint_le(n, KV_MAX);
    size_t nk = 0;
    for (size_t i = 0; i < n; i++) {
        id[i] = first_id + (int64_t)i;
        kdef[i] = keys[i] != NULL;
        if (keys[i]) k[nk++] = (inlay_bytes){ keys[i], key_lens ? key_lens[i] : strlen(keys[i]) };
        int len = snprintf(vtext[i], sizeof vtext[0], "v%lld", (long long)id[i]);
        v[i] = (inlay_bytes){ vtext[i], (size_t)len };
    }
    inlay_column_batch b[3] = {
        { 0, id, n, { NULL, NULL, NULL } },
        { 1, k, n, { kdef, NULL, NULL } },
        { 2, v, n, { NULL, NULL, NULL } },
    };
    return inlay_dataset_append_columns(d, b, 3);
}

static int append_kv(inlay_dataset *d, int64_t first_id, const char *const *keys, size_t n)
{
    return append_kv_n(d, first_id, keys, NULL, n);
}

/* Every id of every .parquet file under root, counted into seen[0..n). */
static int64_t gather_ids(const char *root, int *seen, int64_t n)
{
    static int64_t ids[1 << 16];
    char path[4096];
    int nf = find_files(root, ".parquet");
    int64_t total = 0;
    for (int f = 0; f < nf; f++) {
        ck_assert_int_lt(snprintf(path, sizeof path, "%s/%.2048s", root, files[f]), (int)sizeof path);
        size_t got = read_i64(path, "id", ids, sizeof ids / sizeof ids[0]);
        for (size_t i = 0; i < got; i++) {
            ck_assert_msg(ids[i] >= 0 && ids[i] < n, "%s: id %lld out of range", files[f], (long long)ids[i]);
            seen[ids[i]]++;
        }
        total += (int64_t)got;
    }
    return total;
}

/* ---- folder names ------------------------------------------------------------------------------ */

typedef struct named {
    const char *value;   /* NULL: null */
    size_t len;          /* 0: strlen */
    const char *folder;
} named;

static const named string_names[] = {
    { "plain", 0, "k=plain" },
    { "a/b", 0, "k=a%2Fb" },
    { "/=%:#?*\"'\\{[]^", 0, "k=%2F%3D%25%3A%23%3F%2A%22%27%5C%7B%5B%5D%5E" },
    { "\x01\t\n\x1f\x7f", 0, "k=%01%09%0A%1F%7F" },
    { "a b  c", 0, "k=a b  c" },
    { " ", 0, "k= " },
    { "\xc3\xa9t\xc3\xa9 \xe6\x97\xa5\xf0\x9f\x98\x80", 0, "k=\xc3\xa9t\xc3\xa9 \xe6\x97\xa5\xf0\x9f\x98\x80" },
    { ".", 0, "k=%2E" },
    { "..", 0, "k=%2E%2E" },
    { "...", 0, "k=..." },
    { "../etc", 0, "k=..%2Fetc" },
    { "", 0, "k=" },
    { NULL, 0, "k=__HIVE_DEFAULT_PARTITION__" },
    { "null", 0, "k=%6Eull" },
    { "NULL", 0, "k=%4EULL" },
    { "nUlL", 0, "k=%6EUlL" },
    { "nullx", 0, "k=nullx" },
    { "__HIVE_DEFAULT_PARTITION__", 0, "k=%5F_HIVE_DEFAULT_PARTITION__" },
    { "x=1", 0, "k=x%3D1" },
};
enum { NSTRING_NAMES = sizeof string_names / sizeof string_names[0] };

/* Values of a table of named values, appended twice (ids i and i + n):
 * each folder holds one file with both rows. Then the listing of root is
 * exactly the folders (and _SUCCESS and the manifest). */
static void check_names(inlay_type kt, const named *t, int n, const char *shard)
{
    inlay_schema *s = kv_schema(kt);
    const char *by[] = { "k" };
    inlay_dataset_options o;
    options(&o, by, 1, shard);
    const char *root = P("root");
    inlay_dataset *d = open_ok(root, s, &o);
    const char *keys[64];
    size_t lens[64];
    for (int i = 0; i < n; i++) {
        keys[i] = t[i].value;
        lens[i] = t[i].value ? (t[i].len ? t[i].len : strlen(t[i].value)) : 0;
    }
    for (int pass = 0; pass < 2; pass++) {
        int st = append_kv_n(d, pass * n, keys, lens, (size_t)n);
        ck_assert_msg(st == INLAY_OK, "append: %s", inlay_dataset_errmsg(d));
    }
    close_ok(d);
    inlay_dataset_stats stats;
    inlay_dataset_get_stats(d, &stats);
    ck_assert_uint_eq(stats.rows, 2 * (uint64_t)n);
    ck_assert_uint_eq(stats.partitions, (uint64_t)n);
    ck_assert_uint_eq(stats.files, (uint64_t)n);
    ck_assert_uint_eq(stats.open_files, 0);
    inlay_dataset_free(d);
    inlay_schema_free(s);

    /* nothing outside root */
    static char names[MAXNAMES][NAMELEN];
    ck_assert_int_eq(list_names(dir, names, MAXNAMES), 1);
    ck_assert_str_eq(names[0], "root");

    static char want[MAXNAMES][NAMELEN];
    for (int i = 0; i < n; i++) snprintf(want[i], NAMELEN, "%s", t[i].folder);
    snprintf(want[n], NAMELEN, "_SUCCESS");
    snprintf(want[n + 1], NAMELEN, "_inlay_manifest.%s.json", shard);
    qsort(want, (size_t)n + 2, NAMELEN, cmp_names);
    int got = list_names(root, names, MAXNAMES);
    char all[8192] = "";
    for (int i = 0; i < got; i++) {
        strncat(all, "[", sizeof all - strlen(all) - 1);
        strncat(all, names[i], sizeof all - strlen(all) - 1);
        strncat(all, "] ", sizeof all - strlen(all) - 1);
    }
    ck_assert_msg(got == n + 2, "root holds %d names, want %d: %s", got, n + 2, all);
    for (int i = 0; i < got; i++)
        ck_assert_msg(strcmp(names[i], want[i]) == 0, "root holds [%s] where [%s] was expected; all: %s", names[i],
                      want[i], all);

    /* each folder: one file holding rows i and i + n, without k */
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", root, t[i].folder);
        static char inside[MAXNAMES][NAMELEN];
        ck_assert_int_eq(list_names(path, inside, MAXNAMES), 1);
        ck_assert_msg(strncmp(inside[0], "part-", 5) == 0 && ends_with(inside[0], ".parquet"), "%s/%s", t[i].folder,
                      inside[0]);
        snprintf(path, sizeof path, "%s/%s/%s", root, t[i].folder, inside[0]);
        int64_t ids[4];
        ck_assert_uint_eq(read_i64(path, "id", ids, 4), 2);
        ck_assert_int_eq(ids[0], i);
        ck_assert_int_eq(ids[1], i + n);
        ck_assert_msg(!file_has_field(path, "k"), "%s holds the partition column", path);
        ck_assert_msg(file_has_field(path, "v"), "%s lacks v", path);
    }
}

START_TEST(test_names_string)
{
    check_names(inlay_type_string(), string_names, NSTRING_NAMES, "s");
}
END_TEST

/* Binary values: bytes of a value that is not UTF-8 are escaped; a valid
 * UTF-8 value stays raw. */
START_TEST(test_names_binary)
{
    static const named t[] = {
        { "a\xff", 0, "k=a%FF" },
        { "\xc3", 0, "k=%C3" },
        { "\xc3\xa9", 0, "k=\xc3\xa9" },
        { "\xed\xa0\x80", 0, "k=%ED%A0%80" },   /* a surrogate */
        { "\xc0\xaf", 0, "k=%C0%AF" },          /* overlong '/' */
        { "x\0y", 3, "k=x%00y" },
        { "ok", 0, "k=ok" },
    };
    check_names(inlay_type_binary(), t, sizeof t / sizeof t[0], "bin");
}
END_TEST

/* Integers (signed and unsigned, 32 and 64 bits), nested three deep. */
START_TEST(test_names_integers)
{
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "n", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "u", INLAY_OPTIONAL, inlay_type_int(32, false), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "w", INLAY_REQUIRED, inlay_type_int(64, false), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "small", INLAY_REQUIRED, inlay_type_int(8, true), NULL), 0);
    const char *by[] = { "n", "u", "w", "small" };
    inlay_dataset_options o;
    options(&o, by, 4, "ints");
    const char *root = P("root");
    inlay_dataset *d = open_ok(root, s, &o);
    static const int64_t id[] = { 0, 1, 2, 3 };
    static const int64_t n[] = { -5, 0, 12345678901234, INT64_MIN };
    static const int32_t u[] = { -1, 0, 7 };   /* the bits of 4294967295, 0, 7; row 3 null */
    static const int16_t udef[] = { 1, 1, 1, 0 };
    static const int64_t w[] = { -1, 0, INT64_MIN, 42 };
    static const int32_t small[] = { -128, 127, 0, -1 };
    inlay_column_batch b[] = {
        { 0, id, 4, { NULL, NULL, NULL } },
        { 1, n, 4, { NULL, NULL, NULL } },
        { 2, u, 4, { udef, NULL, NULL } },
        { 3, w, 4, { NULL, NULL, NULL } },
        { 4, small, 4, { NULL, NULL, NULL } },
    };
    ck_assert_msg(inlay_dataset_append_columns(d, b, 5) == INLAY_OK, "%s", inlay_dataset_errmsg(d));
    close_ok(d);
    inlay_dataset_free(d);
    inlay_schema_free(s);

    static const char *const want[] = {
        "n=-5/u=4294967295/w=18446744073709551615/small=-128",
        "n=0/u=0/w=0/small=127",
        "n=12345678901234/u=7/w=9223372036854775808/small=0",
        "n=-9223372036854775808/u=__HIVE_DEFAULT_PARTITION__/w=42/small=-1",
    };
    ck_assert_int_eq(find_files(root, ".parquet"), 4);
    for (int i = 0; i < 4; i++) {
        char folder[NAMELEN];
        bool found = false;
        for (int f = 0; f < 4; f++) {
            folder_of(files[f], folder, sizeof folder);
            if (strcmp(folder, want[i]) == 0) {
                found = true;
                int64_t got[2];
                char path[4096];
                ck_assert_int_lt(snprintf(path, sizeof path, "%s/%.2048s", root, files[f]), (int)sizeof path);
                ck_assert_uint_eq(read_i64(path, "id", got, 2), 1);
                ck_assert_int_eq(got[0], i);
            }
        }
        ck_assert_msg(found, "no file under %s (first file: %s)", want[i], files[0]);
    }
    static char names[MAXNAMES][NAMELEN];
    ck_assert_int_eq(list_names(root, names, MAXNAMES), 6);   /* 4 folders, _SUCCESS, the manifest */
}
END_TEST

/* DATE and BOOLEAN values; a column name with characters to escape. */
START_TEST(test_names_date_bool)
{
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "day", INLAY_REQUIRED, inlay_type_date(), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "ok", INLAY_OPTIONAL, inlay_type_boolean(), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "a=b/c", INLAY_REQUIRED, inlay_type_int(32, true), NULL), 0);
    const char *by[] = { "day", "ok", "a=b/c" };
    inlay_dataset_options o;
    options(&o, by, 3, "dates");
    const char *root = P("root");
    inlay_dataset *d = open_ok(root, s, &o);
    static const int64_t id[] = { 0, 1, 2, 3 };
    static const int32_t day[] = { 19875, 0, -1, 2932896 };
    static const bool ok[] = { true, false, true };   /* row 2 null */
    static const int16_t okdef[] = { 1, 1, 0, 1 };
    static const int32_t ab[] = { 1, 2, 3, 4 };
    inlay_column_batch b[] = {
        { 0, id, 4, { NULL, NULL, NULL } },
        { 1, day, 4, { NULL, NULL, NULL } },
        { 2, ok, 4, { okdef, NULL, NULL } },
        { 3, ab, 4, { NULL, NULL, NULL } },
    };
    ck_assert_msg(inlay_dataset_append_columns(d, b, 4) == INLAY_OK, "%s", inlay_dataset_errmsg(d));
    close_ok(d);
    inlay_dataset_free(d);
    inlay_schema_free(s);
    static const char *const want[] = {
        "day=2024-06-01/ok=true/a%3Db%2Fc=1",
        "day=1970-01-01/ok=false/a%3Db%2Fc=2",
        "day=1969-12-31/ok=__HIVE_DEFAULT_PARTITION__/a%3Db%2Fc=3",
        "day=9999-12-31/ok=true/a%3Db%2Fc=4",
    };
    ck_assert_int_eq(find_files(root, ".parquet"), 4);
    for (int i = 0; i < 4; i++) {
        bool found = false;
        for (int f = 0; f < 4; f++) {
            char folder[NAMELEN];
            folder_of(files[f], folder, sizeof folder);
            if (strcmp(folder, want[i]) == 0) {
                found = true;
                int64_t got[2];
                char path[4096];
                ck_assert_int_lt(snprintf(path, sizeof path, "%s/%.2048s", root, files[f]), (int)sizeof path);
                ck_assert_uint_eq(read_i64(path, "id", got, 2), 1);
                ck_assert_int_eq(got[0], i);
                ck_assert(!file_has_field(path, "day"));
                ck_assert(!file_has_field(path, "ok"));
            }
        }
        char all[4096] = "";
        for (int f = 0; f < 4; f++) {
            strncat(all, files[f], sizeof all - strlen(all) - 1);
            strncat(all, " ", sizeof all - strlen(all) - 1);
        }
        ck_assert_msg(found, "no file under %s; files: %s", want[i], all);
    }
}
END_TEST

static bool is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A folder name of a long value: at most 255 bytes, "k=" + a prefix of
 * the escaped value + "~" + 16 hex digits of the value's XXH3-64. Returns
 * the prefix's length. */
static size_t check_long_name(const char *name, const void *value, size_t len)
{
    size_t n = strlen(name);
    ck_assert_msg(n <= 255, "folder name of %zu bytes", n);
    ck_assert_msg(n > 20 && strncmp(name, "k=", 2) == 0 && name[n - 17] == '~', "name %s", name);
    for (size_t i = n - 16; i < n; i++) ck_assert_msg(is_hex(name[i]), "name %s", name);
    char want[17];
    snprintf(want, sizeof want, "%016llx", (unsigned long long)XXH3_64bits(value, len));
    ck_assert_msg(strncasecmp(name + n - 16, want, 16) == 0, "hash %s, want %s (XXH3-64 of the value)", name + n - 16,
                  want);
    return n - 17 - 2;
}

/* Values over 240 bytes: shortened names that stay apart, cut at character
 * and escape boundaries; the files of such partitions hold the partition
 * column with its whole value. */
START_TEST(test_names_long)
{
    static char xs[301], xy[301], ee[301], pct[101], mixed[301];
    memset(xs, 'x', 300);
    memcpy(xy, xs, 300);
    xy[299] = 'y';
    for (int i = 0; i < 150; i++) memcpy(ee + 2 * i, "\xc3\xa9", 2);
    memset(pct, '%', 100);
    /* 239 bytes then an escaped byte at the cut */
    memset(mixed, 'm', 300);
    for (int i = 230; i < 300; i += 2) mixed[i] = '/';
    const char *keys[] = { xs, xy, ee, pct, mixed, "short" };
    inlay_schema *s = kv_schema(inlay_type_string());
    const char *by[] = { "k" };
    inlay_dataset_options o;
    options(&o, by, 1, "long");
    const char *root = P("root");
    inlay_dataset *d = open_ok(root, s, &o);
    ck_assert_msg(append_kv(d, 0, keys, 6) == INLAY_OK, "%s", inlay_dataset_errmsg(d));
    close_ok(d);
    inlay_dataset_free(d);
    inlay_schema_free(s);

    ck_assert_int_eq(find_files(root, ".parquet"), 6);
    int seen[6] = { 0 };
    for (int f = 0; f < 6; f++) {
        char folder[NAMELEN], path[4096];
        folder_of(files[f], folder, sizeof folder);
        ck_assert_msg(strchr(folder, '/') == NULL, "nested folder %s", folder);
        ck_assert_int_lt(snprintf(path, sizeof path, "%s/%.2048s", root, files[f]), (int)sizeof path);
        int64_t id[2];
        ck_assert_uint_eq(read_i64(path, "id", id, 2), 1);
        ck_assert(id[0] >= 0 && id[0] < 6);
        seen[id[0]]++;
        const char *value = keys[id[0]];
        if (id[0] == 5) {
            ck_assert_str_eq(folder, "k=short");
            ck_assert_msg(!file_has_field(path, "k"), "a short value's file holds k");
            continue;
        }
        size_t plen = check_long_name(folder, value, strlen(value));
        const char *prefix = folder + 2;
        switch (id[0]) {
        case 0:
        case 1:
            ck_assert_uint_eq(plen, 255 - 2 - 17);   /* the longest prefix that fits */
            for (size_t i = 0; i < plen; i++) ck_assert_int_eq(prefix[i], 'x');
            break;
        case 2:
            ck_assert_msg(plen % 2 == 0 && plen >= 230, "prefix of %zu bytes", plen);
            ck_assert(inlay_utf8_valid(prefix, plen));
            ck_assert_int_eq(memcmp(prefix, ee, plen), 0);
            break;
        case 3:
            ck_assert_msg(plen % 3 == 0 && plen >= 230, "prefix of %zu bytes", plen);
            for (size_t i = 0; i < plen; i += 3) ck_assert_int_eq(memcmp(prefix + i, "%25", 3), 0);
            break;
        case 4:
            ck_assert_msg(plen >= 230, "prefix of %zu bytes", plen);
            ck_assert_int_eq(memcmp(prefix, mixed, 230), 0);
            for (size_t i = 230; i < plen;) {
                if (prefix[i] == '%') {
                    ck_assert_msg(i + 3 <= plen && memcmp(prefix + i, "%2F", 3) == 0, "cut escape in %s", folder);
                    i += 3;
                } else {
                    ck_assert_int_eq(prefix[i], 'm');
                    i++;
                }
            }
            break;
        }
        /* the whole value is in the file */
        inlay_reader *r = open_reader(path);
        int k = inlay_reader_field(r, "k");
        ck_assert_msg(k >= 0, "the file of a shortened partition (%s) lacks k", folder);
        ck_assert_int_eq(inlay_reader_select(r, &k, 1, NULL, 0), INLAY_OK);
        size_t rows;
        ck_assert_int_eq(inlay_reader_next(r, 0, &rows), INLAY_OK);
        ck_assert_uint_eq(rows, 1);
        const inlay_array *a = inlay_reader_array(r, 0);
        ck_assert(bit(a->validity, 0));
        const inlay_bytes *bv = a->values;
        ck_assert_uint_eq(bv[0].len, strlen(value));
        ck_assert_int_eq(memcmp(bv[0].data, value, bv[0].len), 0);
        inlay_reader_free(r);
    }
    for (int i = 0; i < 6; i++) ck_assert_int_eq(seen[i], 1);
}
END_TEST

/* ---- every row once --------------------------------------------------------------------------- */

enum { ROWS = 3000 };

/* id INT64, day DATE, plat STRING optional, flag BOOLEAN, val DOUBLE
 * optional; by day and plat. */
static inlay_schema *table_schema(void)
{
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "day", INLAY_REQUIRED, inlay_type_date(), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "plat", INLAY_OPTIONAL, inlay_type_string(), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "flag", INLAY_REQUIRED, inlay_type_boolean(), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "val", INLAY_OPTIONAL, inlay_type_double(), NULL), 0);
    return s;
}

static const char *const PLATS[] = { "pc", "ps 5", "a/b", "\xc3\xbc" };
static const char *const PLAT_FOLDERS[] = { "pc", "ps 5", "a%2Fb", "\xc3\xbc" };

static bool row_plat_null(int64_t i) { return i % 5 == 0; }
static int row_plat(int64_t i) { return (int)(i * 7 % 4); }
static bool row_flag(int64_t i) { return i % 3 == 1; }
static bool row_val_null(int64_t i) { return i % 7 == 0; }
static double row_val(int64_t i) { return (double)i * 0.5 - 3; }

static void row_folder(int64_t i, char *out, size_t cap)
{
    snprintf(out, cap, "day=2024-06-0%d/plat=%s", (int)(1 + i % 3),
             row_plat_null(i) ? "__HIVE_DEFAULT_PARTITION__" : PLAT_FOLDERS[row_plat(i)]);
}

static int append_table(inlay_dataset *d, int64_t from, size_t n)
{
    static int64_t id[ROWS];
    static int32_t day[ROWS];
    static inlay_bytes plat[ROWS];
    static int16_t pdef[ROWS], vdef[ROWS];
    static bool flag[ROWS];
    static double val[ROWS];
    size_t np = 0, nv = 0;
    for (size_t j = 0; j < n; j++) {
        int64_t i = from + (int64_t)j;
        id[j] = i;
        day[j] = 19875 + (int32_t)(i % 3);
        pdef[j] = !row_plat_null(i);
        if (pdef[j]) plat[np++] = bytes_of(PLATS[row_plat(i)]);
        flag[j] = row_flag(i);
        vdef[j] = !row_val_null(i);
        if (vdef[j]) val[nv++] = row_val(i);
    }
    /* given out of schema order */
    inlay_column_batch b[] = {
        { 4, val, n, { vdef, NULL, NULL } },
        { 2, plat, n, { pdef, NULL, NULL } },
        { 0, id, n, { NULL, NULL, NULL } },
        { 3, flag, n, { NULL, NULL, NULL } },
        { 1, day, n, { NULL, NULL, NULL } },
    };
    return inlay_dataset_append_columns(d, b, 5);
}

/* Reads every file under root and checks each row against its id: the
 * folder, flag and val; with `kept`, day and plat too. Returns the files. */
static int check_table(const char *root, int64_t nrows, bool kept)
{
    static int seen[ROWS];
    memset(seen, 0, sizeof seen);
    int nf = find_files(root, ".parquet");
    for (int f = 0; f < nf; f++) {
        char path[4096], folder[NAMELEN], want[NAMELEN];
        ck_assert_int_lt(snprintf(path, sizeof path, "%s/%.2048s", root, files[f]), (int)sizeof path);
        folder_of(files[f], folder, sizeof folder);
        inlay_reader *r = open_reader(path);
        int fid = inlay_reader_field(r, "id"), fflag = inlay_reader_field(r, "flag"),
            fval = inlay_reader_field(r, "val"), fday = inlay_reader_field(r, "day"),
            fplat = inlay_reader_field(r, "plat");
        ck_assert(fid >= 0 && fflag >= 0 && fval >= 0);
        if (kept) {
            ck_assert_msg(fday >= 0 && fplat >= 0, "%s lacks the partition columns", files[f]);
        } else {
            ck_assert_msg(fday < 0 && fplat < 0, "%s holds a partition column", files[f]);
        }
        ck_assert_int_eq(inlay_schema_num_columns(inlay_reader_schema(r)), kept ? 5 : 3);
        size_t rows;
        for (;;) {
            ck_assert_msg(inlay_reader_next(r, 0, &rows) == INLAY_OK, "%s", inlay_reader_errmsg(r));
            if (!rows) break;
            const inlay_array *aid = inlay_reader_array(r, fid), *aflag = inlay_reader_array(r, fflag),
                              *aval = inlay_reader_array(r, fval);
            for (size_t j = 0; j < rows; j++) {
                int64_t i = ((const int64_t *)aid->values)[j];
                ck_assert_msg(i >= 0 && i < nrows, "id %lld", (long long)i);
                seen[i]++;
                row_folder(i, want, sizeof want);
                ck_assert_msg(strcmp(folder, want) == 0, "row %lld in %s, want %s", (long long)i, folder, want);
                ck_assert_int_eq(((const bool *)aflag->values)[j], row_flag(i));
                ck_assert_int_eq(bit(aval->validity, j), !row_val_null(i));
                if (!row_val_null(i)) ck_assert(((const double *)aval->values)[j] == row_val(i));
                if (kept) {
                    const inlay_array *aday = inlay_reader_array(r, fday), *aplat = inlay_reader_array(r, fplat);
                    ck_assert_int_eq(((const int32_t *)aday->values)[j], 19875 + i % 3);
                    ck_assert_int_eq(bit(aplat->validity, j), !row_plat_null(i));
                    if (!row_plat_null(i)) {
                        const inlay_bytes *pb = &((const inlay_bytes *)aplat->values)[j];
                        ck_assert_uint_eq(pb->len, strlen(PLATS[row_plat(i)]));
                        ck_assert_int_eq(memcmp(pb->data, PLATS[row_plat(i)], pb->len), 0);
                    }
                }
            }
        }
        inlay_reader_free(r);
    }
    for (int64_t i = 0; i < nrows; i++) ck_assert_msg(seen[i] == 1, "row %lld found %d times", (long long)i, seen[i]);
    return nf;
}

static void every_row_once(bool keep)
{
    inlay_schema *s = table_schema();
    const char *by[] = { "day", "plat" };
    inlay_dataset_options o;
    options(&o, by, 2, "t");
    o.keep_partition_columns = keep;
    const char *root = P("out/nested/root");   /* parents made */
    inlay_dataset *d = open_ok(root, s, &o);
    ck_assert_str_eq(inlay_dataset_shard(d), "t");
    ck_assert_int_eq(inlay_dataset_column(d, "plat"), 2);
    ck_assert_int_eq(inlay_dataset_column(d, "val"), 4);
    ck_assert_int_eq(inlay_dataset_column(d, "nosuch"), INLAY_ERR_COLUMN);
    ck_assert_int_eq(inlay_schema_num_columns(inlay_dataset_schema(d)), 5);
    static const size_t sizes[] = { 1, 7, 300, 1, 1691, 1000 };
    int64_t at = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        ck_assert_msg(append_table(d, at, sizes[k]) == INLAY_OK, "%s", inlay_dataset_errmsg(d));
        at += (int64_t)sizes[k];
    }
    ck_assert_int_eq(at, ROWS);
    inlay_dataset_stats st;
    inlay_dataset_get_stats(d, &st);
    ck_assert_uint_eq(st.rows, ROWS);
    ck_assert_uint_eq(st.partitions, 15);
    ck_assert_uint_eq(st.files, 0);
    ck_assert_uint_eq(st.open_files, 0);   /* rows wait in their partitions until a page's worth */
    ck_assert_int_eq(count_files(root, ".parquet"), 0);   /* nothing published before close */
    close_ok(d);
    inlay_dataset_get_stats(d, &st);
    ck_assert_uint_eq(st.files, 15);
    ck_assert_uint_eq(st.open_files, 0);
    inlay_dataset_free(d);
    inlay_schema_free(s);
    ck_assert_int_eq(check_table(root, ROWS, keep), 15);
    ck_assert_int_eq(count_files(root, ".tmp"), 0);
    uint64_t bytes = 0;
    for (int f = 0; f < 15; f++) {
        struct stat sb;
        char path[4096];
        ck_assert_int_lt(snprintf(path, sizeof path, "%s/%.2048s", root, files[f]), (int)sizeof path);
        ck_assert_int_eq(stat(path, &sb), 0);
        bytes += (uint64_t)sb.st_size;
    }
    ck_assert_uint_eq(st.bytes, bytes);
    ck_assert(exists(P("out/nested/root/_SUCCESS")));
    uint64_t rows[15];
    const char *names[15];
    for (int f = 0; f < 15; f++) {
        char path[4096];
        ck_assert_int_lt(snprintf(path, sizeof path, "%s/%.2048s", root, files[f]), (int)sizeof path);
        rows[f] = (uint64_t)file_rows(path);
        names[f] = basename_of(files[f]);
    }
    check_manifest(P("out/nested/root/_inlay_manifest.t.json"), rows, 15, names, 15);
}

START_TEST(test_every_row_once)
{
    every_row_once(false);
}
END_TEST

START_TEST(test_keep_partition_columns)
{
    every_row_once(true);
}
END_TEST

/* No partition columns: every file at root, holding every column. */
START_TEST(test_no_partitions)
{
    inlay_schema *s = table_schema();
    inlay_dataset_options o;
    options(&o, NULL, 0, "flat");
    o.max_file_rows = 1000;
    const char *root = P("root");
    inlay_dataset *d = open_ok(root, s, &o);
    ck_assert_int_eq(append_table(d, 0, 2500), INLAY_OK);
    close_ok(d);
    inlay_dataset_free(d);
    inlay_schema_free(s);
    ck_assert_int_eq(find_files(root, ".parquet"), 3);
    ck_assert_str_eq(files[0], "part-flat-000000.parquet");
    ck_assert_str_eq(files[1], "part-flat-000001.parquet");
    ck_assert_str_eq(files[2], "part-flat-000002.parquet");
    ck_assert_int_eq(file_rows(P("root/%s", files[0])), 1000);
    ck_assert_int_eq(file_rows(P("root/%s", files[1])), 1000);
    ck_assert_int_eq(file_rows(P("root/%s", files[2])), 500);
    ck_assert(file_has_field(P("root/%s", files[0]), "plat"));
    ck_assert(file_has_field(P("root/%s", files[0]), "day"));
    int64_t ids[1000];
    ck_assert_uint_eq(read_i64(P("root/%s", files[1]), "id", ids, 1000), 1000);
    for (int i = 0; i < 1000; i++) ck_assert_int_eq(ids[i], 1000 + i);
}
END_TEST

/* ---- shards and file names -------------------------------------------------------------------- */

static inlay_dataset *one_row(const char *root, const char *shard, int expect)
{
    inlay_schema *s = kv_schema(inlay_type_string());
    inlay_dataset_options o;
    options(&o, NULL, 0, shard);
    inlay_dataset *d = NULL;
    int st = inlay_dataset_open(&d, root, s, &o);
    inlay_schema_free(s);
    ck_assert_msg(st == expect, "shard \"%s\": open gives %d, want %d (%s)", shard ? shard : "(null)", st, expect,
                  d ? inlay_dataset_errmsg(d) : "");
    if (st != INLAY_OK) {
        inlay_dataset_free(d);
        return NULL;
    }
    const char *keys[] = { "a" };
    ck_assert_int_eq(append_kv(d, 0, keys, 1), INLAY_OK);
    close_ok(d);
    return d;
}

START_TEST(test_shard_option)
{
    inlay_dataset *d = one_row(P("r1"), "job-7.a_B", INLAY_OK);
    ck_assert_str_eq(inlay_dataset_shard(d), "job-7.a_B");
    inlay_dataset_free(d);
    ck_assert(exists(P("r1/part-job-7.a_B-000000.parquet")));
    ck_assert(exists(P("r1/_inlay_manifest.job-7.a_B.json")));
    ck_assert(exists(P("r1/_SUCCESS")));
    static char names[MAXNAMES][NAMELEN];
    ck_assert_int_eq(list_names(P("r1"), names, MAXNAMES), 3);

    char longest[65];
    memset(longest, 'z', 64);
    longest[64] = 0;
    d = one_row(P("r2"), longest, INLAY_OK);
    ck_assert_str_eq(inlay_dataset_shard(d), longest);
    inlay_dataset_free(d);
    ck_assert(exists(P("r2/part-%s-000000.parquet", longest)));
}
END_TEST

START_TEST(test_shard_env)
{
    ck_assert_int_eq(setenv("INLAY_SHARD", "from_env", 1), 0);
    inlay_dataset *d = one_row(P("r"), NULL, INLAY_OK);
    ck_assert_str_eq(inlay_dataset_shard(d), "from_env");
    inlay_dataset_free(d);
    ck_assert(exists(P("r/part-from_env-000000.parquet")));
    ck_assert(exists(P("r/_inlay_manifest.from_env.json")));
    /* the option wins over the environment */
    d = one_row(P("r2"), "given", INLAY_OK);
    ck_assert_str_eq(inlay_dataset_shard(d), "given");
    inlay_dataset_free(d);
    ck_assert(exists(P("r2/part-given-000000.parquet")));
    /* an unsafe name from the environment is refused too */
    ck_assert_int_eq(setenv("INLAY_SHARD", "../up", 1), 0);
    ck_assert_ptr_null(one_row(P("r3"), NULL, INLAY_ERR_ARGUMENT));
    ck_assert_int_eq(count_files(dir, ".parquet"), 2);
    unsetenv("INLAY_SHARD");
}
END_TEST

static bool is_hex8(const char *s)
{
    if (strlen(s) != 8) return false;
    for (int i = 0; i < 8; i++)
        if (!is_hex(s[i])) return false;
    return true;
}

START_TEST(test_shard_random)
{
    unsetenv("INLAY_SHARD");
    inlay_dataset *a = one_row(P("r1"), NULL, INLAY_OK);
    inlay_dataset *b = one_row(P("r2"), NULL, INLAY_OK);
    const char *sa = inlay_dataset_shard(a), *sb = inlay_dataset_shard(b);
    ck_assert_msg(is_hex8(sa), "shard \"%s\"", sa);
    ck_assert_msg(is_hex8(sb), "shard \"%s\"", sb);
    ck_assert_str_ne(sa, sb);
    ck_assert(exists(P("r1/part-%s-000000.parquet", sa)));
    ck_assert(exists(P("r1/_inlay_manifest.%s.json", sa)));
    ck_assert(exists(P("r2/part-%s-000000.parquet", sb)));
    inlay_dataset_free(a);
    inlay_dataset_free(b);
}
END_TEST

START_TEST(test_shard_unsafe)
{
    char too_long[66];
    memset(too_long, 'a', 65);
    too_long[65] = 0;
    const char *bad[] = { "../x", "", "a/b", ".x", ".", "..", "a b", "a\\b", "x\ny", "\xc3\xa9", "a:b", "a*", too_long };
    char accepted[512] = "";
    inlay_schema *s = kv_schema(inlay_type_string());
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        inlay_dataset_options o;
        options(&o, NULL, 0, bad[i]);
        inlay_dataset *d = NULL;
        int st = inlay_dataset_open(&d, P("r%zu", i), s, &o);
        if (st != INLAY_ERR_ARGUMENT) {
            size_t l = strlen(accepted);
            snprintf(accepted + l, sizeof accepted - l, " \"%.20s\" (%d)", bad[i], st);
        }
        inlay_dataset_free(d);
    }
    inlay_schema_free(s);
    ck_assert_msg(!accepted[0], "unsafe shards not refused with INLAY_ERR_ARGUMENT:%s", accepted);
    ck_assert_int_eq(count_files(dir, ".parquet"), 0);
    ck_assert_int_eq(count_files(dir, ".json"), 0);
    ck_assert(!exists(P("x")));
}
END_TEST

/* Bad options: INLAY_ERR_ARGUMENT. */
START_TEST(test_bad_options)
{
    inlay_schema *s = kv_schema(inlay_type_string());
    inlay_dataset_options o;
    inlay_dataset *d = NULL;
    options(&o, NULL, 0, "s");
    o.max_open_files = -1;
    ck_assert_int_eq(inlay_dataset_open(&d, P("r"), s, &o), INLAY_ERR_ARGUMENT);
    inlay_dataset_free(d);
    d = NULL;
    options(&o, NULL, 0, "s");
    ck_assert_int_eq(inlay_dataset_open(&d, NULL, s, &o), INLAY_ERR_ARGUMENT);
    inlay_dataset_free(d);
    d = NULL;
    ck_assert_int_eq(inlay_dataset_open(&d, P("r"), NULL, &o), INLAY_ERR_ARGUMENT);
    inlay_dataset_free(d);
    d = NULL;
    options(&o, NULL, 0, "s");
    o.partition_by_count = 1;   /* with NULL names */
    ck_assert_int_ne(inlay_dataset_open(&d, P("r"), s, &o), INLAY_OK);
    inlay_dataset_free(d);
    inlay_schema_free(s);
    ck_assert_int_eq(count_files(dir, ".parquet"), 0);
}
END_TEST

/* ---- schema errors at open -------------------------------------------------------------------- */

static inlay_schema *wide_schema(void)
{
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "dbl", INLAY_REQUIRED, inlay_type_double(), NULL), 0);
    int g = inlay_schema_add_group(s, 0, "g", INLAY_OPTIONAL);
    ck_assert_int_gt(g, 0);
    ck_assert_int_gt(inlay_schema_add(s, g, "x", INLAY_REQUIRED, inlay_type_int(32, true), NULL), 0);
    int l = inlay_schema_add_list(s, 0, "tags", INLAY_OPTIONAL);
    ck_assert_int_gt(l, 0);
    ck_assert_int_gt(inlay_schema_add(s, l, "element", INLAY_REQUIRED, inlay_type_int(32, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "r", INLAY_REPEATED, inlay_type_int(32, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "ts", INLAY_REQUIRED, inlay_type_timestamp(INLAY_MICROS, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "f", INLAY_REQUIRED, inlay_type_fixed(4), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "fl", INLAY_REQUIRED, inlay_type_float(), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "k", INLAY_OPTIONAL, inlay_type_string(), NULL), 0);
    return s;
}

START_TEST(test_schema_errors)
{
    inlay_schema *s = wide_schema();
    static const struct {
        const char *by[2];
        size_t n;
        const char *named;
    } bad[] = {
        { { "nosuch" }, 1, "nosuch" }, { { "dbl" }, 1, "dbl" },     { { "g" }, 1, "g" },
        { { "g.x" }, 1, "g.x" },       { { "tags" }, 1, "tags" },   { { "tags.list.element" }, 1, "tags" },
        { { "r" }, 1, "'r'" },         { { "ts" }, 1, "ts" },       { { "f" }, 1, "'f'" },
        { { "fl" }, 1, "fl" },         { { "k", "k" }, 2, "k" },   { { "k", "dbl" }, 2, "dbl" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        inlay_dataset_options o;
        options(&o, bad[i].by, bad[i].n, "s");
        inlay_dataset *d = NULL;
        int st = inlay_dataset_open(&d, P("r%zu", i), s, &o);
        ck_assert_msg(st == INLAY_ERR_SCHEMA, "partition by %s: %d, want INLAY_ERR_SCHEMA", bad[i].by[0], st);
        if (d) {
            const char *msg = inlay_dataset_errmsg(d);
            ck_assert_msg(strstr(msg, bad[i].named) != NULL, "partition by %s: message \"%s\" does not name it",
                          bad[i].by[0], msg);
            ck_assert_int_eq(inlay_dataset_status(d), INLAY_ERR_SCHEMA);
        }
        inlay_dataset_free(d);
    }
    ck_assert_int_eq(count_files(dir, ".parquet"), 0);
    inlay_schema_free(s);

    /* every column a partition column: nothing left for the files */
    s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "a", INLAY_REQUIRED, inlay_type_int(32, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "b", INLAY_OPTIONAL, inlay_type_string(), NULL), 0);
    const char *both[] = { "b", "a" };
    inlay_dataset_options o;
    options(&o, both, 2, "s");
    inlay_dataset *d = NULL;
    ck_assert_int_eq(inlay_dataset_open(&d, P("all"), s, &o), INLAY_ERR_SCHEMA);
    inlay_dataset_free(d);
    /* kept in the files, they are fine */
    o.keep_partition_columns = true;
    d = open_ok(P("kept"), s, &o);
    static const int32_t a[] = { 1, 2 };
    const inlay_bytes b[] = { bytes_of("x"), bytes_of("y") };
    inlay_column_batch cb[] = { { 0, a, 2, { NULL, NULL, NULL } }, { 1, b, 2, { NULL, NULL, NULL } } };
    ck_assert_msg(inlay_dataset_append_columns(d, cb, 2) == INLAY_OK, "%s", inlay_dataset_errmsg(d));
    close_ok(d);
    inlay_dataset_free(d);
    inlay_schema_free(s);
    ck_assert(exists(P("kept/b=x/a=1/part-s-000000.parquet")) || exists(P("kept/b=x/a=1/part-s-000001.parquet")));
    ck_assert(exists(P("kept/b=y/a=2/part-s-000000.parquet")) || exists(P("kept/b=y/a=2/part-s-000001.parquet")));
}
END_TEST

/* ---- limits ----------------------------------------------------------------------------------- */

START_TEST(test_max_file_rows)
{
    inlay_schema *s = kv_schema(inlay_type_string());
    const char *by[] = { "k" };
    inlay_dataset_options o;
    options(&o, by, 1, "m");
    o.max_file_rows = 10;
    const char *root = P("root");
    inlay_dataset *d = open_ok(root, s, &o);
    const char *keys[7];
    for (int b = 0; b < 7; b++) {
        for (int j = 0; j < 7; j++) keys[j] = (b * 7 + j) % 2 ? "b" : "a";
        ck_assert_msg(append_kv(d, b * 7, keys, 7) == INLAY_OK, "%s", inlay_dataset_errmsg(d));
    }
    close_ok(d);
    inlay_dataset_stats st;
    inlay_dataset_get_stats(d, &st);
    ck_assert_uint_eq(st.files, 6);
    inlay_dataset_free(d);
    inlay_schema_free(s);
    /* a: ids 0, 2, .. 48 (25 rows); b: 1, 3, .. 47 (24 rows) */
    int nf = find_files(root, ".parquet");
    ck_assert_int_eq(nf, 6);
    bool seq[6] = { false };
    int64_t next[2] = { 0, 1 };
    int per[2] = { 0, 0 };
    static const int64_t want_rows[2][3] = { { 10, 10, 5 }, { 10, 10, 4 } };
    /* files sort by folder, then by sequence */
    for (int f = 0; f < nf; f++) {
        char folder[NAMELEN];
        folder_of(files[f], folder, sizeof folder);
        int p = strcmp(folder, "k=a") == 0 ? 0 : strcmp(folder, "k=b") == 0 ? 1 : -1;
        ck_assert_msg(p >= 0, "file %s", files[f]);
        unsigned n;
        char tail[32];
        ck_assert_msg(sscanf(basename_of(files[f]), "part-m-%6u%31s", &n, tail) == 2 && strcmp(tail, ".parquet") == 0,
                      "file name %s", files[f]);
        ck_assert_uint_lt(n, 6);
        ck_assert(!seq[n]);
        seq[n] = true;
        int64_t ids[16];
        size_t got = read_i64(P("root/%s", files[f]), "id", ids, 16);
        ck_assert_msg((int64_t)got == want_rows[p][per[p]], "%s holds %zu rows", files[f], got);
        for (size_t i = 0; i < got; i++) {
            ck_assert_int_eq(ids[i], next[p]);
            next[p] += 2;
        }
        per[p]++;
    }
    ck_assert_int_eq(per[0], 3);
    ck_assert_int_eq(per[1], 3);
    ck_assert_int_eq(next[0], 50);
    ck_assert_int_eq(next[1], 49);
}
END_TEST

enum { PAYLOAD = 64 };

/* id INT64 (0), k INT32 (1), p BYTE_ARRAY (2): random bytes. */
static inlay_schema *payload_schema(void)
{
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "k", INLAY_REQUIRED, inlay_type_int(32, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "p", INLAY_REQUIRED, inlay_type_binary(), NULL), 0);
    return s;
}

static int append_payload(inlay_dataset *d, int64_t from, size_t n, int parts)
{
    static int64_t id[4096];
    static int32_t k[4096];
    static inlay_bytes p[4096];
    static uint8_t bytes[4096][PAYLOAD];
    ck_assert_uint_le(n, 4096);
    for (size_t j = 0; j < n; j++) {
        uint64_t seed = (uint64_t)(from + (int64_t)j) * 0x9E3779B97F4A7C15u + 1;
        id[j] = from + (int64_t)j;
        k[j] = (int32_t)(id[j] % parts);
        for (int b = 0; b < PAYLOAD; b += 8) {
            uint64_t x = rng_next(&seed);
            memcpy(bytes[j] + b, &x, 8);
        }
        p[j] = (inlay_bytes){ bytes[j], PAYLOAD };
    }
    inlay_column_batch b[] = {
        { 0, id, n, { NULL, NULL, NULL } },
        { 1, k, n, { NULL, NULL, NULL } },
        { 2, p, n, { NULL, NULL, NULL } },
    };
    return inlay_dataset_append_columns(d, b, 3);
}

START_TEST(test_max_file_bytes)
{
    inlay_schema *s = payload_schema();
    inlay_dataset_options o;
    options(&o, NULL, 0, "b");
    o.max_file_bytes = 16384;
    o.file.page_rows = 64;
    const char *root = P("root");
    inlay_dataset *d = open_ok(root, s, &o);
    for (int b = 0; b < 40; b++) ck_assert_msg(append_payload(d, b * 50, 50, 1) == INLAY_OK, "%s", inlay_dataset_errmsg(d));
    inlay_dataset_stats st;
    inlay_dataset_get_stats(d, &st);
    ck_assert_msg(st.files >= 3, "only %llu files published during the appends", (unsigned long long)st.files);
    close_ok(d);
    inlay_dataset_free(d);
    inlay_schema_free(s);
    int nf = find_files(root, ".parquet");
    ck_assert_msg(nf >= 5, "%d files for 2000 rows of %d random bytes with max_file_bytes 16384", nf, PAYLOAD);
    static int seen[2000];
    ck_assert_int_eq(gather_ids(root, seen, 2000), 2000);
    for (int i = 0; i < 2000; i++) ck_assert_int_eq(seen[i], 1);
    for (int f = 0; f < nf; f++) {
        int64_t rows = file_rows(P("root/%s", files[f]));
        /* the limit, passed by at most one append of 50 rows */
        ck_assert_msg(rows <= 16384 / PAYLOAD + 50, "%s holds %lld rows", files[f], (long long)rows);
    }
    char want[64];
    for (int f = 0; f < nf; f++) {
        snprintf(want, sizeof want, "part-b-%06d.parquet", f);
        ck_assert_str_eq(files[f], want);
    }
}
END_TEST

/* 20 partitions interleaved in every batch, at most 2 files open. */
START_TEST(test_max_open_files)
{
    inlay_schema *s = payload_schema();
    const char *by[] = { "k" };
    inlay_dataset_options o;
    options(&o, by, 1, "o");
    o.max_open_files = 2;
    o.file.page_rows = 10;   /* a partition's rows go to its file ten at a time */
    const char *root = P("root");
    inlay_dataset *d = open_ok(root, s, &o);
    for (int b = 0; b < 20; b++) {
        ck_assert_msg(append_payload(d, b * 100, 100, 20) == INLAY_OK, "%s", inlay_dataset_errmsg(d));
        inlay_dataset_stats st;
        inlay_dataset_get_stats(d, &st);
        ck_assert_msg(st.open_files <= 2, "%llu files open", (unsigned long long)st.open_files);
        /* each open file's temporary, hidden from readers listing the folder */
        static char temps[MAXNAMES][NAMELEN];
        const int nt = walk_rel(root, "", ".tmp", temps, 0, MAXNAMES);
        ck_assert_int_eq(nt, (int)st.open_files);
        for (int t = 0; t < nt; t++) {
            const char *leaf = strrchr(temps[t], '/');
            ck_assert_msg(leaf && leaf[1] == '.', "a temporary not hidden: %s", temps[t]);
        }
    }
    close_ok(d);
    inlay_dataset_stats st;
    inlay_dataset_get_stats(d, &st);
    ck_assert_uint_eq(st.partitions, 20);
    ck_assert_uint_eq(st.rows, 2000);
    inlay_dataset_free(d);
    inlay_schema_free(s);
    int nf = find_files(root, ".parquet");
    ck_assert_uint_eq(st.files, (uint64_t)nf);
    static int seen[2000];
    ck_assert_int_eq(gather_ids(root, seen, 2000), 2000);
    for (int i = 0; i < 2000; i++) ck_assert_int_eq(seen[i], 1);
    for (int k = 0; k < 20; k++) {
        static char names[MAXNAMES][NAMELEN];
        int n = list_names(P("root/k=%d", k), names, MAXNAMES);
        ck_assert_msg(n >= 2, "partition k=%d has %d files", k, n);
        /* and its rows are all k's */
        for (int f = 0; f < n; f++) {
            int64_t ids[2000];
            size_t got = read_i64(P("root/k=%d/%s", k, names[f]), "id", ids, 2000);
            for (size_t i = 0; i < got; i++) ck_assert_int_eq(ids[i] % 20, k);
        }
    }
    ck_assert_int_eq(count_files(root, ".tmp"), 0);
}
END_TEST

/* Little room for buffers: row groups end early, in every partition. */
START_TEST(test_max_buffered_bytes)
{
    inlay_schema *s = payload_schema();
    const char *by[] = { "k" };
    inlay_dataset_options o;
    options(&o, by, 1, "mb");
    o.max_buffered_bytes = 64 << 10;
    o.file.page_rows = 100;
    const char *root = P("root");
    inlay_dataset *d = open_ok(root, s, &o);
    for (int b = 0; b < 16; b++) ck_assert_msg(append_payload(d, b * 500, 500, 3) == INLAY_OK, "%s", inlay_dataset_errmsg(d));
    close_ok(d);
    inlay_dataset_free(d);
    inlay_schema_free(s);
    int nf = find_files(root, ".parquet");
    ck_assert_int_eq(nf, 3);
    static int seen[8000];
    ck_assert_int_eq(gather_ids(root, seen, 8000), 8000);
    for (int i = 0; i < 8000; i++) ck_assert_int_eq(seen[i], 1);
    for (int f = 0; f < nf; f++) {
        /* 2667 rows of 72 bytes (190 KiB) in at most 64 KiB of buffers */
        int groups = file_row_groups(P("root/%s", files[f]));
        ck_assert_msg(groups >= 3, "%s has %d row groups", files[f], groups);
    }
}
END_TEST

/* ---- bad values and bad calls ------------------------------------------------------------------ */

static void expect_error(inlay_dataset *d, int st, int want, const char *text, int column, int64_t row)
{
    ck_assert_msg(st == want, "status %d, want %d (%s)", st, want, inlay_dataset_errmsg(d));
    ck_assert_int_eq(inlay_dataset_status(d), want);
    const char *msg = inlay_dataset_errmsg(d);
    ck_assert_msg(strstr(msg, text) != NULL, "message \"%s\" lacks \"%s\"", msg, text);
    inlay_error_info info;
    inlay_dataset_error_info(d, &info);
    ck_assert_int_eq(info.column, column);
    ck_assert_int_eq(info.row, row);
    ck_assert_ptr_nonnull(info.reason);
}

START_TEST(test_bad_values)
{
    inlay_schema *s = kv_schema(inlay_type_string());
    const char *by[] = { "k" };
    inlay_dataset_options o;
    options(&o, by, 1, "bad");
    const char *root = P("root");
    inlay_dataset *d = open_ok(root, s, &o);
    const char *keys[10] = { "a", "b", "c", "a", "b", "c", "a", "b", "c", "a" };
    ck_assert_int_eq(append_kv(d, 0, keys, 10), INLAY_OK);

    /* invalid UTF-8 in v, batch row 4: dataset row 14 */
    {
        int64_t id[10];
        inlay_bytes k[10], v[10];
        for (int i = 0; i < 10; i++) {
            id[i] = 50 + i;
            k[i] = bytes_of(i % 2 ? "new" : "a");
            v[i] = bytes_of(i == 4 ? "ok\xff" : "fine");
        }
        inlay_column_batch b[] = { { 0, id, 10, { NULL, NULL, NULL } }, { 1, k, 10, { NULL, NULL, NULL } },
                                   { 2, v, 10, { NULL, NULL, NULL } } };
        expect_error(d, inlay_dataset_append_columns(d, b, 3), INLAY_ERR_VALUE, "column 'v' row 14", 2, 14);
    }
    /* a null id (required), batch row 3: row 13 */
    {
        int64_t id[5] = { 60, 61, 62, 63, 64 };
        static const uint8_t valid[] = { 0x17 };   /* rows 0, 1, 2, 4 */
        inlay_bytes k[5], v[5];
        for (int i = 0; i < 5; i++) {
            k[i] = bytes_of("z");
            v[i] = bytes_of("w");
        }
        inlay_column_batch b[] = { { 1, k, 5, { NULL, NULL, NULL } }, { 2, v, 5, { NULL, NULL, NULL } },
                                   { 0, id, 5, { NULL, NULL, valid } } };
        expect_error(d, inlay_dataset_append_columns(d, b, 3), INLAY_ERR_NULL, "column 'id' row 13", 0, 13);
    }
    /* invalid UTF-8 in the partition column itself, batch row 5: row 15 */
    {
        const char *bad[8] = { "a", "b", "a", "b", "q", "x\xc3", "a", "r" };
        expect_error(d, append_kv(d, 70, bad, 8), INLAY_ERR_VALUE, "column 'k' row 15", 1, 15);
    }
    /* a definition level above the max: INLAY_ERR_LEVEL, row 11 */
    {
        int64_t id[3] = { 80, 81, 82 };
        inlay_bytes k[3] = { bytes_of("a"), bytes_of("a"), bytes_of("a") }, v[3] = { bytes_of("1"), bytes_of("2") };
        static const int16_t vdef[] = { 1, 2, 1 };
        inlay_column_batch b[] = { { 0, id, 3, { NULL, NULL, NULL } }, { 1, k, 3, { NULL, NULL, NULL } },
                                   { 2, v, 3, { vdef, NULL, NULL } } };
        expect_error(d, inlay_dataset_append_columns(d, b, 3), INLAY_ERR_LEVEL, "column 'v' row 11", 2, 11);
    }
    /* still usable; rows keep counting from 10 */
    const char *more[5] = { "b", "new", NULL, "a", "c" };
    ck_assert_msg(append_kv(d, 100, more, 5) == INLAY_OK, "%s", inlay_dataset_errmsg(d));
    {
        const char *bad[3] = { "a", "a", "\xff" };
        expect_error(d, append_kv(d, 200, bad, 3), INLAY_ERR_VALUE, "column 'k' row 17", 1, 17);
    }
    ck_assert_msg(append_kv(d, 105, keys, 2) == INLAY_OK, "%s", inlay_dataset_errmsg(d));
    inlay_dataset_stats st;
    inlay_dataset_get_stats(d, &st);
    ck_assert_uint_eq(st.rows, 17);
    ck_assert_uint_eq(st.partitions, 5);   /* a b c new null: nothing of the refused calls */
    close_ok(d);
    inlay_dataset_free(d);
    inlay_schema_free(s);
    static int seen[300];
    ck_assert_int_eq(gather_ids(root, seen, 300), 17);
    for (int i = 0; i < 300; i++) {
        bool want = i < 10 || (i >= 100 && i < 107);
        ck_assert_msg(seen[i] == want, "id %d found %d times", i, seen[i]);
    }
    ck_assert(!exists(P("root/k=z")));
    ck_assert(!exists(P("root/k=q")));
    ck_assert(!exists(P("root/k=r")));
    ck_assert_int_eq(find_files(root, ".parquet"), 5);
}
END_TEST

START_TEST(test_bad_shapes)
{
    inlay_schema *s = kv_schema(inlay_type_string());
    const char *by[] = { "k" };
    inlay_dataset_options o;
    options(&o, by, 1, "shape");
    const char *root = P("root");
    inlay_dataset *d = open_ok(root, s, &o);
    int64_t id[3] = { 900, 901, 902 };
    inlay_bytes k[3] = { bytes_of("x"), bytes_of("y"), bytes_of("x") }, v[3] = { bytes_of("1"), bytes_of("2"), bytes_of("3") };
    const inlay_levels none = { NULL, NULL, NULL };
    struct {
        const char *what;
        inlay_column_batch b[4];
        int n;
    } bad[] = {
        { "a missing column", { { 0, id, 3, none }, { 1, k, 3, none } }, 2 },
        { "a missing partition column", { { 0, id, 3, none }, { 2, v, 3, none } }, 2 },
        { "a column twice", { { 0, id, 3, none }, { 1, k, 3, none }, { 2, v, 3, none }, { 0, id, 3, none } }, 4 },
        { "unequal row counts", { { 0, id, 3, none }, { 1, k, 2, none }, { 2, v, 3, none } }, 3 },
        { "unequal row counts (value column)", { { 0, id, 3, none }, { 1, k, 3, none }, { 2, v, 2, none } }, 3 },
        { "an unknown column", { { 0, id, 3, none }, { 1, k, 3, none }, { 2, v, 3, none }, { 7, v, 3, none } }, 4 },
        { "a negative count", { { 0, id, 3, none }, { 1, k, 3, none }, { 2, v, 3, none } }, -1 },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int st = inlay_dataset_append_columns(d, bad[i].b, bad[i].n);
        ck_assert_msg(st == INLAY_ERR_ARGUMENT || st == INLAY_ERR_COLUMN || st == INLAY_ERR_STATE,
                      "%s: status %d", bad[i].what, st);
        ck_assert_msg(*inlay_dataset_errmsg(d) != 0, "%s: no message", bad[i].what);
    }
    ck_assert_int_eq(inlay_dataset_append_columns(d, NULL, 3), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inlay_dataset_append_columns(NULL, bad[0].b, 2), INLAY_ERR_ARGUMENT);
    inlay_dataset_stats st;
    inlay_dataset_get_stats(d, &st);
    ck_assert_uint_eq(st.rows, 0);
    /* still usable */
    const char *keys[2] = { "x", "w" };
    ck_assert_msg(append_kv(d, 0, keys, 2) == INLAY_OK, "%s", inlay_dataset_errmsg(d));
    close_ok(d);
    inlay_dataset_free(d);
    inlay_schema_free(s);
    static int seen[1000];
    ck_assert_int_eq(gather_ids(root, seen, 1000), 2);
    ck_assert_int_eq(seen[0], 1);
    ck_assert_int_eq(seen[1], 1);
    ck_assert(!exists(P("root/k=y")));
}
END_TEST

/* ---- an existing shard ------------------------------------------------------------------------- */

static char last_message[1024];

/* n rows at root (no partitions), max_file_rows 5. */
static int write_run(const char *root, const char *shard, inlay_existing ex, int64_t first, size_t n, int *status)
{
    inlay_schema *s = kv_schema(inlay_type_string());
    inlay_dataset_options o;
    options(&o, NULL, 0, shard);
    o.existing = ex;
    o.max_file_rows = 5;
    inlay_dataset *d = NULL;
    int st = inlay_dataset_open(&d, root, s, &o);
    inlay_schema_free(s);
    if (status) *status = st;
    last_message[0] = 0;
    if (st != INLAY_OK) {
        if (d) snprintf(last_message, sizeof last_message, "%s", inlay_dataset_errmsg(d));
        inlay_dataset_free(d);
        return st;
    }
    const char *keys[64];
    for (size_t i = 0; i < n; i++) keys[i] = "k";
    ck_assert_int_eq(append_kv(d, first, keys, n), INLAY_OK);
    close_ok(d);
    inlay_dataset_free(d);
    return INLAY_OK;
}

START_TEST(test_existing_error)
{
    int st;
    ck_assert_int_eq(write_run(P("root"), "s", INLAY_EXISTING_ERROR, 0, 7, &st), INLAY_OK);
    ck_assert_int_eq(write_run(P("root"), "s", INLAY_EXISTING_ERROR, 100, 3, &st), INLAY_ERR_IO);
    const char *msg = last_message;
    ck_assert_msg(strstr(msg, "part-s-00000") || strstr(msg, "_inlay_manifest.s.json"),
                  "message \"%s\" names none of the shard's files", msg);
    /* untouched */
    ck_assert_int_eq(find_files(P("root"), ".parquet"), 2);
    ck_assert_int_eq(file_rows(P("root/part-s-000000.parquet")), 5);
    ck_assert_int_eq(file_rows(P("root/part-s-000001.parquet")), 2);
    uint64_t rows[] = { 5, 2 };
    const char *names[] = { "part-s-000000.parquet", "part-s-000001.parquet" };
    check_manifest(P("root/_inlay_manifest.s.json"), rows, 2, names, 2);
    /* another shard is fine */
    ck_assert_int_eq(write_run(P("root"), "t", INLAY_EXISTING_ERROR, 100, 3, &st), INLAY_OK);
    ck_assert(exists(P("root/part-t-000000.parquet")));
    ck_assert(exists(P("root/_inlay_manifest.t.json")));

    /* a file of the shard deep in a partition folder, without a manifest */
    ck_assert_int_eq(mkdir(P("deep"), 0755), 0);
    ck_assert_int_eq(mkdir(P("deep/k=1"), 0755), 0);
    ck_assert_int_eq(mkdir(P("deep/k=1/j=2"), 0755), 0);
    FILE *f = fopen(P("deep/k=1/j=2/part-s-000003.parquet"), "wb");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    ck_assert_int_eq(write_run(P("deep"), "s", INLAY_EXISTING_ERROR, 0, 1, &st), INLAY_ERR_IO);
    ck_assert_int_eq(count_files(P("deep"), ".parquet"), 1);
    /* only a manifest */
    ck_assert_int_eq(mkdir(P("man"), 0755), 0);
    f = fopen(P("man/_inlay_manifest.s.json"), "wb");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    ck_assert_int_eq(write_run(P("man"), "s", INLAY_EXISTING_ERROR, 0, 1, &st), INLAY_ERR_IO);
    ck_assert_int_eq(count_files(P("man"), ".parquet"), 0);
}
END_TEST

/* A killed run's temporaries of the shard go at the next open of that
 * shard; a live writer's (locked) and another shard's stay. */
START_TEST(test_stale_temporaries)
{
    ck_assert_int_eq(mkdir(P("root"), 0755), 0);
    ck_assert_int_eq(mkdir(P("root/k=1"), 0755), 0);
    const char *stale = P("root/k=1/.part-s-000004.parquet.0a1b2c.tmp");
    char stale_path[4096], live_path[4096], other_path[4096], odd_path[4096], old_path[4096];
    snprintf(stale_path, sizeof stale_path, "%s", stale);
    snprintf(live_path, sizeof live_path, "%s", P("root/k=1/.part-s-000005.parquet.3d4e5f.tmp"));
    snprintf(other_path, sizeof other_path, "%s", P("root/k=1/.part-t-000004.parquet.0a1b2c.tmp"));
    snprintf(odd_path, sizeof odd_path, "%s", P("root/k=1/.part-s-000006.parquet.xyz.tmp"));
    /* as earlier versions named their temporaries, not hidden */
    snprintf(old_path, sizeof old_path, "%s", P("root/k=1/part-s-000007.parquet.1a2b3c.tmp"));
    const char *paths[] = { stale_path, live_path, other_path, odd_path, old_path };
    int fds[5];
    for (int i = 0; i < 5; i++) ck_assert_int_ge(fds[i] = open(paths[i], O_CREAT | O_WRONLY, 0644), 0);
    ck_assert_int_eq(flock(fds[1], LOCK_EX | LOCK_NB), 0);   /* a live writer's */
    ck_assert_int_eq(close(fds[0]), 0);
    ck_assert_int_eq(close(fds[2]), 0);
    ck_assert_int_eq(close(fds[3]), 0);
    ck_assert_int_eq(close(fds[4]), 0);
    inlay_schema *s = kv_schema(inlay_type_string());
    const char *by[] = { "k" };
    inlay_dataset_options o;
    options(&o, by, 1, "s");
    inlay_dataset *d = open_ok(P("root"), s, &o);
    ck_assert(!exists(stale_path));
    ck_assert(!exists(old_path));
    ck_assert(exists(live_path));
    ck_assert(exists(other_path));
    ck_assert(exists(odd_path));   /* not a temporary's name */
    inlay_dataset_free(d);
    inlay_schema_free(s);
    close(fds[1]);
}
END_TEST

START_TEST(test_existing_replace)
{
    int st;
    /* run 1: shard s, partitions a and b (3 files in a, 1 in b); shard t */
    {
        inlay_schema *s = kv_schema(inlay_type_string());
        const char *by[] = { "k" };
        inlay_dataset_options o;
        options(&o, by, 1, "s");
        o.max_file_rows = 5;
        inlay_dataset *d = open_ok(P("root"), s, &o);
        const char *keys[14];
        for (int i = 0; i < 14; i++) keys[i] = i < 12 ? "a" : "b";
        ck_assert_int_eq(append_kv(d, 0, keys, 14), INLAY_OK);
        close_ok(d);
        inlay_dataset_free(d);
        inlay_schema_free(s);
    }
    ck_assert_int_eq(write_run(P("root"), "t", INLAY_EXISTING_ERROR, 500, 3, &st), INLAY_OK);
    ck_assert_int_eq(count_files(P("root"), ".parquet"), 5);
    /* run 2: shard s again, replacing; only partition a, one file */
    inlay_schema *s = kv_schema(inlay_type_string());
    const char *by[] = { "k" };
    inlay_dataset_options o;
    options(&o, by, 1, "s");
    o.existing = INLAY_EXISTING_REPLACE_SHARD;
    inlay_dataset *d = open_ok(P("root"), s, &o);
    ck_assert_msg(!exists(P("root/_inlay_manifest.s.json")), "open left the shard's manifest");
    ck_assert(exists(P("root/_inlay_manifest.t.json")));
    ck_assert_int_eq(count_files(P("root/k=b"), ".parquet"), 1);   /* still there until close */
    const char *keys[3] = { "a", "a", "a" };
    ck_assert_int_eq(append_kv(d, 1000, keys, 3), INLAY_OK);
    close_ok(d);
    inlay_dataset_free(d);
    inlay_schema_free(s);
    /* shard s: only this run's file; shard t untouched */
    ck_assert_int_eq(find_files(P("root"), ".parquet"), 2);
    ck_assert_str_eq(files[0], "k=a/part-s-000000.parquet");
    ck_assert_str_eq(files[1], "part-t-000000.parquet");
    int64_t ids[8];
    ck_assert_uint_eq(read_i64(P("root/k=a/part-s-000000.parquet"), "id", ids, 8), 3);
    ck_assert_int_eq(ids[0], 1000);
    ck_assert_uint_eq(read_i64(P("root/part-t-000000.parquet"), "id", ids, 8), 3);
    ck_assert_int_eq(ids[0], 500);
    uint64_t rows[] = { 3 };
    const char *names[] = { "part-s-000000.parquet" };
    check_manifest(P("root/_inlay_manifest.s.json"), rows, 1, names, 1);
    char *text = slurp(P("root/_inlay_manifest.s.json"));
    ck_assert_msg(!strstr(text, "part-s-000001") && !strstr(text, "part-s-000003"), "manifest: %s", text);
    free(text);
    uint64_t trows[] = { 3 };
    const char *tnames[] = { "part-t-000000.parquet" };
    check_manifest(P("root/_inlay_manifest.t.json"), trows, 1, tnames, 1);
    ck_assert(exists(P("root/_SUCCESS")));
}
END_TEST

START_TEST(test_existing_append)
{
    int st;
    ck_assert_int_eq(write_run(P("root"), "s", INLAY_EXISTING_ERROR, 0, 7, &st), INLAY_OK);
    ck_assert_int_eq(write_run(P("root"), "s", INLAY_EXISTING_APPEND, 100, 6, &st), INLAY_OK);
    ck_assert_int_eq(find_files(P("root"), ".parquet"), 4);
    ck_assert_str_eq(files[0], "part-s-000000.parquet");
    ck_assert_str_eq(files[3], "part-s-000003.parquet");
    ck_assert_int_eq(file_rows(P("root/part-s-000000.parquet")), 5);
    ck_assert_int_eq(file_rows(P("root/part-s-000001.parquet")), 2);
    ck_assert_int_eq(file_rows(P("root/part-s-000002.parquet")), 5);
    ck_assert_int_eq(file_rows(P("root/part-s-000003.parquet")), 1);
    int64_t ids[8];
    ck_assert_uint_eq(read_i64(P("root/part-s-000002.parquet"), "id", ids, 8), 5);
    ck_assert_int_eq(ids[0], 100);
    uint64_t rows[] = { 5, 2, 5, 1 };
    const char *names[] = { "part-s-000000.parquet", "part-s-000001.parquet", "part-s-000002.parquet",
                            "part-s-000003.parquet" };
    check_manifest(P("root/_inlay_manifest.s.json"), rows, 4, names, 4);
    /* append to nothing is a first run */
    ck_assert_int_eq(write_run(P("fresh"), "s", INLAY_EXISTING_APPEND, 0, 2, &st), INLAY_OK);
    ck_assert(exists(P("fresh/part-s-000000.parquet")));
}
END_TEST

/* ---- abort -------------------------------------------------------------------------------------- */

START_TEST(test_abort)
{
    inlay_schema *s = kv_schema(inlay_type_string());
    const char *by[] = { "k" };
    inlay_dataset_options o;
    options(&o, by, 1, "ab");
    o.max_file_rows = 5;
    const char *root = P("root");
    inlay_dataset *d = open_ok(root, s, &o);
    const char *keys[12];
    for (int i = 0; i < 12; i++) keys[i] = i % 2 ? "x" : "y";
    ck_assert_int_eq(append_kv(d, 0, keys, 12), INLAY_OK);   /* 5 + 1 in each */
    ck_assert_int_eq(count_files(root, ".parquet"), 2);
    ck_assert_int_eq(count_files(root, ".tmp"), 2);
    inlay_dataset_abort(d);
    ck_assert_int_eq(count_files(root, ".tmp"), 0);
    ck_assert_int_eq(count_files(root, ".parquet"), 2);   /* published before stay */
    ck_assert(!exists(P("root/_SUCCESS")));
    ck_assert_int_eq(count_files(root, ".json"), 0);
    inlay_dataset_abort(d);   /* idempotent */
    ck_assert_int_ne(inlay_dataset_append_columns(d, NULL, 0), INLAY_OK);
    ck_assert_int_ne(append_kv(d, 50, keys, 2), INLAY_OK);
    ck_assert_int_ne(inlay_dataset_close(d), INLAY_OK);
    ck_assert(!exists(P("root/_SUCCESS")));
    ck_assert_int_eq(count_files(root, ".json"), 0);
    ck_assert_int_eq(count_files(root, ".parquet"), 2);
    inlay_dataset_free(d);
    static int seen[12];
    ck_assert_int_eq(gather_ids(root, seen, 12), 10);
    for (int i = 0; i < 10; i++) ck_assert_int_eq(seen[i], 1);

    /* free without close aborts too (rows going to their files at once: open temporaries) */
    o.file.page_rows = 1;
    d = open_ok(P("r2"), s, &o);
    ck_assert_int_eq(append_kv(d, 0, keys, 3), INLAY_OK);
    ck_assert_int_eq(count_files(P("r2"), ".tmp"), 2);
    inlay_dataset_free(d);
    ck_assert_int_eq(count_files(P("r2"), ".tmp"), 0);
    ck_assert_int_eq(count_files(P("r2"), ".parquet"), 0);
    ck_assert(!exists(P("r2/_SUCCESS")));
    ck_assert_int_eq(count_files(P("r2"), ".json"), 0);
    inlay_schema_free(s);
    inlay_dataset_free(NULL);
    inlay_dataset_stats st;
    inlay_dataset_get_stats(NULL, &st);
    ck_assert_uint_eq(st.rows, 0);
}
END_TEST

/* After a successful close only the info calls and free. */
START_TEST(test_after_close)
{
    inlay_schema *s = kv_schema(inlay_type_string());
    inlay_dataset_options o;
    options(&o, NULL, 0, "c");
    inlay_dataset *d = open_ok(P("root"), s, &o);
    const char *keys[2] = { "a", "b" };
    ck_assert_int_eq(append_kv(d, 0, keys, 2), INLAY_OK);
    close_ok(d);
    ck_assert_int_ne(append_kv(d, 2, keys, 2), INLAY_OK);
    ck_assert_int_ne(inlay_dataset_close(d), INLAY_OK);
    inlay_dataset_abort(d);   /* does not unpublish */
    inlay_dataset_free(d);
    inlay_schema_free(s);
    ck_assert(exists(P("root/_SUCCESS")));
    ck_assert(exists(P("root/_inlay_manifest.c.json")));
    ck_assert_int_eq(file_rows(P("root/part-c-000000.parquet")), 2);

    /* an empty dataset: a manifest without files */
    s = kv_schema(inlay_type_string());
    d = open_ok(P("empty"), s, &o);
    close_ok(d);
    inlay_dataset_free(d);
    inlay_schema_free(s);
    ck_assert(exists(P("empty/_SUCCESS")));
    ck_assert_int_eq(count_files(P("empty"), ".parquet"), 0);
    check_manifest(P("empty/_inlay_manifest.c.json"), NULL, 0, NULL, 0);
}
END_TEST

/* ---- nested columns ---------------------------------------------------------------------------- */

enum { NROWS = 600 };

/* tags of row i: i % 5 == 0 null, == 1 empty, else (i % 4) + 1 elements,
 * element j null when (i + j) % 3 == 0, else i * 10 + j. */
static int tag_count(int64_t i)
{
    return i % 5 == 0 ? -1 : i % 5 == 1 ? 0 : (int)(i % 4) + 1;
}

enum { TAGS_BY_HAND, TAGS_SHREDDED, TAGS_ARROW };

/* id, tags (optional list<optional int32>, tag_count(id) of them) and k,
 * partitioned by k, 70 rows a file, appended in batches of 1 to 300 rows:
 * the list's levels written out by hand (TAGS_BY_HAND); the list given in
 * Arrow's layout and shredded (inlay_shredder) into the level batch
 * appended beside the flat ones (TAGS_SHREDDED); or every field as an
 * Arrow record batch (TAGS_ARROW, inlay_dataset_append_arrow). */
static void write_tags_dataset(const char *root, int how)
{
    const bool shredded = how == TAGS_SHREDDED;
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    int l = inlay_schema_add_list(s, 0, "tags", INLAY_OPTIONAL);
    ck_assert_int_gt(l, 0);
    ck_assert_int_gt(inlay_schema_add(s, l, "element", INLAY_OPTIONAL, inlay_type_int(32, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "k", INLAY_REQUIRED, inlay_type_int(32, true), NULL), 0);
    const char *by[] = { "k" };
    inlay_dataset_options o;
    options(&o, by, 1, "n");
    o.max_file_rows = 70;
    inlay_dataset *d = open_ok(root, s, &o);
    ck_assert_int_eq(inlay_dataset_column(d, "tags.list.element"), 1);
    ck_assert_int_eq(inlay_dataset_column(d, "k"), 2);
    inlay_shredder *sh = NULL;
    ck_assert_int_eq(inlay_shredder_create(&sh, s, NULL), INLAY_OK);
    static const size_t sizes[] = { 1, 2, 97, 300, 200 };
    int64_t at = 0;
    for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
        static int64_t id[NROWS];
        static int32_t k[NROWS], tag[5 * NROWS], slots[5 * NROWS], off[NROWS + 1];
        static int16_t def[5 * NROWS], rep[5 * NROWS];
        static uint8_t list_valid[NROWS / 8 + 1], elem_valid[5 * NROWS / 8 + 1];
        memset(list_valid, 0, sizeof list_valid);
        memset(elem_valid, 0, sizeof elem_valid);
        size_t n = sizes[c], ne = 0, nt = 0, ns = 0;
        for (size_t j = 0; j < n; j++) {
            int64_t i = at + (int64_t)j;
            id[j] = i;
            k[j] = (int32_t)(i % 3);
            int cnt = tag_count(i);
            off[j] = (int32_t)ns;
            if (cnt >= 0) list_valid[j >> 3] |= (uint8_t)(1u << (j & 7));
            if (cnt <= 0) {
                def[ne] = cnt < 0 ? 0 : 1;
                rep[ne++] = 0;
            }
            for (int e = 0; e < cnt; e++) {
                bool null = (i + e) % 3 == 0;
                def[ne] = null ? 2 : 3;
                rep[ne++] = e ? 1 : 0;
                if (!null) {
                    tag[nt++] = (int32_t)(i * 10 + e);
                    elem_valid[ns >> 3] |= (uint8_t)(1u << (ns & 7));
                }
                slots[ns++] = null ? -1 : (int32_t)(i * 10 + e);   /* a null's slot holds anything */
            }
        }
        off[n] = (int32_t)ns;
        inlay_column_batch b[4] = {
            { 2, k, n, { NULL, NULL, NULL } },
            { 1, tag, ne, { def, rep, NULL } },
            { 0, id, n, { NULL, NULL, NULL } },
        };
        if (shredded) {
            const inlay_array elem = { .length = ns, .values = slots, .validity = elem_valid };
            const inlay_array tags = { .length = n, .validity = list_valid, .offsets = off, .children = &elem };
            int got = 0;
            ck_assert_msg(inlay_shredder_shred(sh, 1, &tags, n, &b[1], 1, &got) == INLAY_OK, "%s",
                          inlay_shredder_errmsg(sh));
            ck_assert_int_eq(got, 1);
            ck_assert_int_eq(b[1].column, 1);
            ck_assert_uint_eq(b[1].count, ne);
        }
        if (how == TAGS_ARROW) {
            struct ArrowSchema s_id = { .format = "l", .name = "id" };
            struct ArrowSchema s_el = { .format = "i", .name = "element", .flags = ARROW_FLAG_NULLABLE };
            struct ArrowSchema *s_el_p = &s_el;
            struct ArrowSchema s_tags = { .format = "+l", .name = "tags", .flags = ARROW_FLAG_NULLABLE,
                                          .n_children = 1, .children = &s_el_p };
            struct ArrowSchema s_k = { .format = "i", .name = "k" };
            struct ArrowSchema *s_kids[] = { &s_id, &s_tags, &s_k };
            struct ArrowSchema s_row = { .format = "+s", .name = "", .n_children = 3, .children = s_kids };
            const void *b_id[] = { NULL, id }, *b_el[] = { elem_valid, slots }, *b_tags[] = { list_valid, off },
                       *b_k[] = { NULL, k }, *b_row[] = { NULL };
            struct ArrowArray a_id = { .length = (int64_t)n, .n_buffers = 2, .buffers = b_id };
            struct ArrowArray a_el = { .length = (int64_t)ns, .null_count = -1, .n_buffers = 2, .buffers = b_el };
            struct ArrowArray *a_el_p = &a_el;
            struct ArrowArray a_tags = { .length = (int64_t)n, .null_count = -1, .n_buffers = 2, .buffers = b_tags,
                                         .n_children = 1, .children = &a_el_p };
            struct ArrowArray a_k = { .length = (int64_t)n, .n_buffers = 2, .buffers = b_k };
            struct ArrowArray *a_kids[] = { &a_id, &a_tags, &a_k };
            struct ArrowArray a_row = { .length = (int64_t)n, .n_buffers = 1, .buffers = b_row, .n_children = 3,
                                        .children = a_kids };
            ck_assert_msg(inlay_dataset_append_arrow(d, &a_row, &s_row) == INLAY_OK, "%s", inlay_dataset_errmsg(d));
        } else {
            ck_assert_msg(inlay_dataset_append_columns(d, b, 3) == INLAY_OK, "%s", inlay_dataset_errmsg(d));
        }
        at += (int64_t)n;
    }
    inlay_shredder_free(sh);
    close_ok(d);
    inlay_dataset_free(d);
    inlay_schema_free(s);
}

START_TEST(test_nested_column)
{
    const char *root = P("root");
    write_tags_dataset(root, TAGS_BY_HAND);

    static int seen[NROWS];
    int nf = find_files(root, ".parquet");
    ck_assert_int_ge(nf, 9);   /* 200 rows per partition, 70 per file */
    for (int f = 0; f < nf; f++) {
        char folder[NAMELEN];
        folder_of(files[f], folder, sizeof folder);
        inlay_reader *r = open_reader(P("root/%s", files[f]));
        ck_assert_int_le(inlay_reader_info(r)->num_rows, 70);
        int fid = inlay_reader_field(r, "id"), ft = inlay_reader_field(r, "tags");
        ck_assert(fid >= 0 && ft >= 0);
        ck_assert_int_lt(inlay_reader_field(r, "k"), 0);
        size_t rows;
        for (;;) {
            ck_assert_msg(inlay_reader_next(r, 0, &rows) == INLAY_OK, "%s", inlay_reader_errmsg(r));
            if (!rows) break;
            const inlay_array *aid = inlay_reader_array(r, fid), *at_ = inlay_reader_array(r, ft);
            const inlay_array *el = &at_->children[0];
            for (size_t j = 0; j < rows; j++) {
                int64_t i = ((const int64_t *)aid->values)[j];
                ck_assert(i >= 0 && i < NROWS);
                seen[i]++;
                char want[32];
                snprintf(want, sizeof want, "k=%d", (int)(i % 3));
                ck_assert_str_eq(folder, want);
                int cnt = tag_count(i);
                ck_assert_msg(bit(at_->validity, j) == (cnt >= 0), "row %lld: list validity", (long long)i);
                if (cnt < 0) continue;
                int32_t from = at_->offsets[j], to = at_->offsets[j + 1];
                ck_assert_msg(to - from == cnt, "row %lld: %d elements, want %d", (long long)i, to - from, cnt);
                for (int e = 0; e < cnt; e++) {
                    bool null = (i + e) % 3 == 0;
                    ck_assert_msg(bit(el->validity, (size_t)(from + e)) == !null, "row %lld element %d", (long long)i, e);
                    if (!null) ck_assert_int_eq(((const int32_t *)el->values)[from + e], i * 10 + e);
                }
            }
        }
        inlay_reader_free(r);
    }
    for (int i = 0; i < NROWS; i++) ck_assert_msg(seen[i] == 1, "row %d found %d times", i, seen[i]);
}
END_TEST

/* A fault in a nested field found while an Arrow batch is read is named
 * by its leaf column and dataset row too. */
START_TEST(test_arrow_nested_refused)
{
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    int l = inlay_schema_add_list(s, 0, "tags", INLAY_OPTIONAL);
    ck_assert_int_gt(l, 0);
    ck_assert_int_gt(inlay_schema_add(s, l, "element", INLAY_REQUIRED, inlay_type_int(32, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "k", INLAY_REQUIRED, inlay_type_int(32, true), NULL), 0);
    const char *by[] = { "k" };
    inlay_dataset_options o;
    options(&o, by, 1, "an");
    inlay_dataset *d = open_ok(P("root"), s, &o);
    int64_t id[3] = { 0, 1, 2 };
    int32_t k[3] = { 1, 2, 1 }, off[4] = { 0, 2, 2, 5 }, el[5] = { 10, 11, 30, 31, 32 };
    uint8_t el_valid = 0x1F;
    struct ArrowSchema s_id = { .format = "l", .name = "id" }, s_k = { .format = "i", .name = "k" };
    struct ArrowSchema s_el = { .format = "i", .name = "element", .flags = ARROW_FLAG_NULLABLE };
    struct ArrowSchema *s_el_p = &s_el;
    struct ArrowSchema s_tags = { .format = "+l", .name = "tags", .flags = ARROW_FLAG_NULLABLE, .n_children = 1,
                                  .children = &s_el_p };
    struct ArrowSchema *s_kids[] = { &s_id, &s_tags, &s_k };
    struct ArrowSchema s_row = { .format = "+s", .name = "", .n_children = 3, .children = s_kids };
    const void *b_id[] = { NULL, id }, *b_k[] = { NULL, k }, *b_tags[] = { NULL, off }, *b_el[] = { &el_valid, el },
               *b_row[] = { NULL };
    struct ArrowArray a_id = { .length = 3, .n_buffers = 2, .buffers = b_id },
                      a_k = { .length = 3, .n_buffers = 2, .buffers = b_k },
                      a_el = { .length = 5, .null_count = -1, .n_buffers = 2, .buffers = b_el };
    struct ArrowArray *a_el_p = &a_el;
    struct ArrowArray a_tags = { .length = 3, .n_buffers = 2, .buffers = b_tags, .n_children = 1, .children = &a_el_p };
    struct ArrowArray *a_kids[] = { &a_id, &a_tags, &a_k };
    struct ArrowArray a_row = { .length = 3, .n_buffers = 1, .buffers = b_row, .n_children = 3, .children = a_kids };
    ck_assert_msg(inlay_dataset_append_arrow(d, &a_row, &s_row) == INLAY_OK, "%s", inlay_dataset_errmsg(d));
    el_valid = 0x17;   /* element 3, of batch row 2: dataset row 5 */
    expect_error(d, inlay_dataset_append_arrow(d, &a_row, &s_row), INLAY_ERR_NULL,
                 "field 'tags.list.element' row 5: null in the required 'element'", 1, 5);
    el_valid = 0x1F;
    ck_assert_msg(inlay_dataset_append_arrow(d, &a_row, &s_row) == INLAY_OK, "%s", inlay_dataset_errmsg(d));
    inlay_dataset_stats st;
    inlay_dataset_get_stats(d, &st);
    ck_assert_uint_eq(st.rows, 6);
    close_ok(d);
    inlay_dataset_free(d);
    inlay_schema_free(s);
}
END_TEST

/* id int64, ts timestamp(us, utc) and k string, partitioned by k; and a
 * 4-row Arrow batch of them (ts in seconds, k "a" "b" "a" "b"), built in
 * place: the struct holds the pointers into itself, so it stays put. */
static inlay_schema *id_ts_k_schema(void)
{
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "ts", INLAY_REQUIRED, inlay_type_timestamp(INLAY_MICROS, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "k", INLAY_REQUIRED, inlay_type_string(), NULL), 0);
    return s;
}

typedef struct id_ts_k_batch {
    int64_t id[4], ts[4];
    int32_t off[5];
    struct ArrowSchema s_id, s_ts, s_k, *s_kids[3], s_row;
    const void *b_id[2], *b_ts[2], *b_k[3], *b_row[1];
    struct ArrowArray a_id, a_ts, a_k, *a_kids[3], a_row;
} id_ts_k_batch;

static void id_ts_k_init(id_ts_k_batch *b)
{
    memset(b, 0, sizeof *b);
    for (int i = 0; i < 4; i++) {
        b->id[i] = i;
        b->ts[i] = 60 * i;
        b->off[i + 1] = i + 1;
    }
    b->s_id = (struct ArrowSchema){ .format = "l", .name = "id" };
    b->s_ts = (struct ArrowSchema){ .format = "tss:UTC", .name = "ts" };
    b->s_k = (struct ArrowSchema){ .format = "u", .name = "k", .flags = ARROW_FLAG_NULLABLE };
    b->s_kids[0] = &b->s_id;
    b->s_kids[1] = &b->s_ts;
    b->s_kids[2] = &b->s_k;
    b->s_row = (struct ArrowSchema){ .format = "+s", .name = "", .n_children = 3, .children = b->s_kids };
    b->b_id[1] = b->id;
    b->b_ts[1] = b->ts;
    b->b_k[1] = b->off;
    b->b_k[2] = "abab";
    b->a_id = (struct ArrowArray){ .length = 4, .n_buffers = 2, .buffers = b->b_id };
    b->a_ts = (struct ArrowArray){ .length = 4, .n_buffers = 2, .buffers = b->b_ts };
    b->a_k = (struct ArrowArray){ .length = 4, .n_buffers = 3, .buffers = b->b_k };
    b->a_kids[0] = &b->a_id;
    b->a_kids[1] = &b->a_ts;
    b->a_kids[2] = &b->a_k;
    b->a_row = (struct ArrowArray){ .length = 4, .n_buffers = 1, .buffers = b->b_row, .n_children = 3,
                                    .children = b->a_kids };
}

/* ---- allocation failures ----------------------------------------------------------------------- */

/* Each allocation refused in turn, an Arrow batch (a time converted, a
 * string partition) appended three times and closed: out of memory fails
 * the dataset, nothing leaks; with nothing refused, 12 rows. */
START_TEST(test_arrow_alloc_faults)
{
    inlay_schema *s = id_ts_k_schema();
    const char *by[] = { "k" };
    static id_ts_k_batch b;
    id_ts_k_init(&b);
    unsigned long n, failures = 0;
    for (n = 1; n < 100000; n++) {
        test_alloc ta = { .fail_at = n };
        inlay_dataset_options o;
        options(&o, by, 1, "af");
        o.file.alloc = test_allocator(&ta);
        inlay_dataset *d = NULL;
        int st = inlay_dataset_open(&d, P("r%lu", n), s, &o);
        for (int k = 0; k < 3 && st == INLAY_OK; k++) st = inlay_dataset_append_arrow(d, &b.a_row, &b.s_row);
        if (st == INLAY_OK) st = inlay_dataset_close(d);
        ck_assert_msg(st == INLAY_OK || st == INLAY_ERR_NOMEM, "N=%lu: %d (%s)", n, st,
                      d ? inlay_dataset_errmsg(d) : "");
        if (st == INLAY_OK) {
            ck_assert_uint_eq(ta.refused, 0);
            inlay_dataset_stats dst;
            inlay_dataset_get_stats(d, &dst);
            ck_assert_uint_eq(dst.rows, 12);
        } else {
            failures++;
            if (d) ck_assert_int_eq(inlay_dataset_status(d), INLAY_ERR_NOMEM);
        }
        inlay_dataset_free(d);
        ck_assert_no_leak(&ta);
        if (st == INLAY_OK) break;
    }
    ck_assert_uint_gt(failures, 10);
    ck_assert_uint_lt(n, 100000);
    inlay_schema_free(s);
}
END_TEST


static bool no_trace(const char *root)
{
    return !exists(P("%s/_SUCCESS", root)) && count_files(P("%s", root), ".json") == 0 &&
           count_files(P("%s", root), ".tmp") == 0;
}

START_TEST(test_alloc_faults)
{
    inlay_schema *s = kv_schema(inlay_type_string());
    const char *by[] = { "k" };
    unsigned long n, failures = 0, last_requests = 0;
    static char late_close[256], traces[512], d_msg[256];
    for (n = 1; n < 200000; n++) {
        test_alloc ta = { 0 };
        ta.fail_at = n;
        inlay_dataset_options o;
        options(&o, by, 1, "f");
        o.file.alloc = test_allocator(&ta);
        o.max_file_rows = 40;
        char rel[32];
        snprintf(rel, sizeof rel, "r%lu", n);
        const char *root = P("%s", rel);
        inlay_dataset *d = NULL;
        int st = inlay_dataset_open(&d, root, s, &o);
        const char *where = "open";
        if (st == INLAY_OK) {
            static const char *keys[50];
            for (int b = 0; b < 3 && st == INLAY_OK; b++) {
                for (int i = 0; i < 50; i++) keys[i] = (b * 50 + i) % 3 == 0 ? "a" : (i % 3 == 1 ? "bb" : NULL);
                st = append_kv(d, b * 50, keys, 50);
                where = "append";
            }
            if (st == INLAY_OK) {
                st = inlay_dataset_close(d);
                where = "close";
            } else {
                int again = inlay_dataset_close(d);
                if (again == INLAY_OK && !late_close[0])
                    snprintf(late_close, sizeof late_close,
                             "N=%lu: close after an append that failed with %d succeeded (manifest: %s)", n, st,
                             exists(P("%s/_inlay_manifest.f.json", rel)) ? "written" : "none");
            }
        }
        ck_assert_msg(st == INLAY_OK || st == INLAY_ERR_NOMEM, "N=%lu: %s gives %d (%s)", n, where, st,
                      d ? inlay_dataset_errmsg(d) : "");
        if (st != INLAY_OK && d) ck_assert_int_eq(inlay_dataset_status(d), INLAY_ERR_NOMEM);
        snprintf(d_msg, sizeof d_msg, "%s", d ? inlay_dataset_errmsg(d) : "no dataset");
        inlay_dataset_free(d);
        ck_assert_msg(ta.live_bytes == 0 && ta.live_blocks == 0 && ta.bad_sizes == 0 && ta.bad_new == 0,
                      "N=%lu (%s): %zu bytes in %zu blocks live, %lu bad sizes, %lu bad new", n, where, ta.live_bytes,
                      ta.live_blocks, ta.bad_sizes, ta.bad_new);
        if (st != INLAY_OK) {
            failures++;
            if (!no_trace(rel) && !traces[0])
                snprintf(traces, sizeof traces, "N=%lu: a manifest, _SUCCESS or a temporary after a failed %s (%s)",
                         n, where, d_msg);
        } else {
            static int seen[150];
            memset(seen, 0, sizeof seen);
            ck_assert_int_eq(gather_ids(root, seen, 150), 150);
            ck_assert(exists(P("%s/_SUCCESS", rel)));
        }
        remove_tree(root);
        last_requests = ta.requests;
        if (ta.refused == 0) break;
    }
    ck_assert_msg(!late_close[0] && !traces[0], "%s; %s", late_close, traces);
    ck_assert_msg(n < 200000, "still failing after %lu allocations", n);
    ck_assert_uint_gt(failures, 10);
    ck_assert_uint_gt(last_requests, 10);
    inlay_schema_free(s);
}
END_TEST

/* The same dataset with its list shredded from Arrow's layout, and given
 * as Arrow record batches: the same files, byte for byte. */
START_TEST(test_nested_column_shredded)
{
    write_tags_dataset(P("by_hand"), TAGS_BY_HAND);
    int nf = find_files(P("by_hand"), ".parquet");
    ck_assert_int_ge(nf, 9);
    static char names[MAXNAMES][NAMELEN];
    memcpy(names, files, sizeof names);
    static const char *const ways[] = { "shredded", "arrow" };
    for (int w = 0; w < 2; w++) {
        write_tags_dataset(P("%s", ways[w]), w == 0 ? TAGS_SHREDDED : TAGS_ARROW);
        ck_assert_int_eq(find_files(P("%s", ways[w]), ".parquet"), nf);
        for (int f = 0; f < nf; f++) {
            ck_assert_str_eq(files[f], names[f]);
            size_t la, lb;
            char *a = slurp_len(P("by_hand/%s", names[f]), &la), *b = slurp_len(P("%s/%s", ways[w], names[f]), &lb);
            ck_assert_uint_gt(la, 0);
            ck_assert_msg(la == lb && memcmp(a, b, la) == 0, "%s/%s differs", ways[w], names[f]);
            free(a);
            free(b);
        }
    }
}
END_TEST

/* Arrow record batches refused: a batch of the wrong shape (the field
 * named), a null in a required column (named by its dataset row); nothing
 * appended, and the dataset goes on. */
START_TEST(test_arrow_refused)
{
    inlay_schema *s = id_ts_k_schema();
    const char *by[] = { "k" };
    inlay_dataset_options o;
    options(&o, by, 1, "ar");
    const char *root = P("root");
    inlay_dataset *d = open_ok(root, s, &o);
    static id_ts_k_batch b;
    id_ts_k_init(&b);
    ck_assert_msg(inlay_dataset_append_arrow(d, &b.a_row, &b.s_row) == INLAY_OK, "%s", inlay_dataset_errmsg(d));

    /* a null in k at batch row 2: dataset row 6 */
    const uint8_t valid = 0x0B;
    b.b_k[0] = &valid;
    b.a_k.null_count = 1;
    expect_error(d, inlay_dataset_append_arrow(d, &b.a_row, &b.s_row), INLAY_ERR_NULL, "column 'k' row 6", 2, 6);
    b.b_k[0] = NULL;
    b.a_k.null_count = 0;

    /* seconds too many for microseconds at batch row 3, found while the
     * batch is read: dataset row 7 */
    b.ts[3] = INT64_MAX / 1000;
    expect_error(d, inlay_dataset_append_arrow(d, &b.a_row, &b.s_row), INLAY_ERR_VALUE, "column 'ts' row 7", 1, 7);
    b.ts[3] = 180;

    /* the wrong name, the wrong type, no array */
    b.s_k.name = "key";
    ck_assert_int_eq(inlay_dataset_append_arrow(d, &b.a_row, &b.s_row), INLAY_ERR_SCHEMA);
    ck_assert_msg(strstr(inlay_dataset_errmsg(d), "key") != NULL, "%s", inlay_dataset_errmsg(d));
    b.s_k.name = "k";
    b.s_k.format = "g";
    ck_assert_int_eq(inlay_dataset_append_arrow(d, &b.a_row, &b.s_row), INLAY_ERR_SCHEMA);
    b.s_k.format = "u";
    ck_assert_int_eq(inlay_dataset_append_arrow(d, NULL, &b.s_row), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inlay_dataset_append_arrow(NULL, &b.a_row, &b.s_row), INLAY_ERR_ARGUMENT);

    /* the dataset goes on: 8 rows in all, ids 0..3 twice */
    ck_assert_msg(inlay_dataset_append_arrow(d, &b.a_row, &b.s_row) == INLAY_OK, "%s", inlay_dataset_errmsg(d));
    inlay_dataset_stats st2;
    inlay_dataset_get_stats(d, &st2);
    ck_assert_uint_eq(st2.rows, 8);
    close_ok(d);
    inlay_dataset_free(d);
    ck_assert_int_eq(find_files(root, ".parquet"), 2);
    int64_t total = 0;
    for (int f = 0; f < 2; f++) total += file_rows(P("root/%s", files[f]));
    ck_assert_int_eq(total, 8);
    inlay_schema_free(s);
}
END_TEST

/* The shredder's own refusals: each names what is wrong, and the next call works. */
START_TEST(test_shredder_errors)
{
    inlay_schema *s = inlay_schema_create(NULL);
    int m = inlay_schema_add_map(s, 0, "attrs", INLAY_REQUIRED);
    ck_assert_int_gt(m, 0);
    ck_assert_int_gt(inlay_schema_add(s, m, "key", INLAY_REQUIRED, inlay_type_string(), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, m, "value", INLAY_OPTIONAL, inlay_type_int(64, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    test_alloc ta = { 0 };
    const inlay_allocator a = test_allocator(&ta);
    inlay_shredder *sh = NULL;
    ck_assert_int_eq(inlay_shredder_create(&sh, s, &a), INLAY_OK);
    inlay_schema_free(s);   /* copied */
    const inlay_bytes keys[] = { { "a", 1 }, { "b", 1 }, { "c", 1 } };
    const int64_t vals[] = { 1, 0, 3 };
    const uint8_t val_valid = 0x5, key_valid = 0x6;
    const int32_t off[] = { 0, 2, 2, 3 };
    const inlay_array kids[] = { { .length = 3, .values = keys }, { .length = 3, .values = vals, .validity = &val_valid } };
    const inlay_array attrs = { .length = 3, .offsets = off, .children = kids };
    const inlay_array bad_kids[] = { { .length = 3, .values = keys, .validity = &key_valid }, kids[1] };
    const inlay_array bad = { .length = 3, .offsets = off, .children = bad_kids };
    inlay_column_batch out[3];
    int n = -1;
    ck_assert_int_eq(inlay_shredder_shred(sh, 0, &bad, 3, out, 3, &n), INLAY_ERR_NULL);
    ck_assert_int_eq(n, 0);
    ck_assert_msg(strstr(inlay_shredder_errmsg(sh), "a map key is null"), "%s", inlay_shredder_errmsg(sh));
    ck_assert_int_eq(inlay_shredder_shred(sh, 2, &attrs, 3, out, 3, &n), INLAY_ERR_COLUMN);
    ck_assert_int_eq(inlay_shredder_shred(sh, -1, &attrs, 3, out, 3, &n), INLAY_ERR_COLUMN);
    ck_assert_int_eq(inlay_shredder_shred(sh, 0, &attrs, 3, out, 1, &n), INLAY_ERR_ARGUMENT);
    ck_assert_msg(strstr(inlay_shredder_errmsg(sh), "2 leaf columns, room for 1"), "%s", inlay_shredder_errmsg(sh));
    ck_assert_int_eq(inlay_shredder_shred(sh, 0, NULL, 3, out, 3, &n), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inlay_shredder_shred(sh, 0, &attrs, 3, out, 3, &n), INLAY_OK);
    ck_assert_int_eq(n, 2);
    /* { a: 1, b: null }, {}, { c: 3 }: the values' levels (a present value 2, a null 1, an
     * empty map 0) and the values, dense */
    ck_assert_int_eq(out[0].column, 0);
    ck_assert_int_eq(out[1].column, 1);
    ck_assert_uint_eq(out[0].count, 4);
    ck_assert_uint_eq(out[1].count, 4);
    static const int16_t want_rep[] = { 0, 1, 0, 0 }, want_def_v[] = { 2, 1, 0, 2 };
    for (int e = 0; e < 4; e++) {
        ck_assert_int_eq(out[1].levels.rep[e], want_rep[e]);
        ck_assert_int_eq(out[1].levels.def[e], want_def_v[e]);
    }
    ck_assert_int_eq(((const int64_t *)out[1].values)[0], 1);
    ck_assert_int_eq(((const int64_t *)out[1].values)[1], 3);
    ck_assert_int_eq(inlay_shredder_shred(NULL, 0, &attrs, 3, out, 3, &n), INLAY_ERR_ARGUMENT);
    ck_assert_str_eq(inlay_shredder_errmsg(NULL), "no shredder");
    inlay_shredder_free(sh);
    inlay_shredder_free(NULL);
    ck_assert_no_leak(&ta);
    ck_assert_int_eq(inlay_shredder_create(NULL, NULL, NULL), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inlay_shredder_create(&sh, NULL, NULL), INLAY_ERR_ARGUMENT);
    ck_assert_ptr_null(sh);
}
END_TEST

/* Every allocation of create, then of a first shred, refused in turn: the
 * call fails with INLAY_ERR_NOMEM, free (as the docs say, either way)
 * cleans up, nothing leaks; with none refused both work. */
START_TEST(test_shredder_alloc_faults)
{
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    int l = inlay_schema_add_list(s, 0, "xs", INLAY_OPTIONAL);
    ck_assert_int_gt(inlay_schema_add(s, l, "element", INLAY_OPTIONAL, inlay_type_int(64, true), NULL), 0);
    const int64_t vals[] = { 1, 2, 3 };
    const int32_t off[] = { 0, 2, 3 };
    const inlay_array elem = { .length = 3, .values = vals };
    const inlay_array xs = { .length = 2, .offsets = off, .children = &elem };
    bool clean = false;
    for (unsigned long n = 1; !clean && n < 200; n++) {
        test_alloc ta = { .fail_at = n };
        const inlay_allocator a = test_allocator(&ta);
        inlay_shredder *sh = NULL;
        int st = inlay_shredder_create(&sh, s, &a);
        inlay_column_batch out[2];
        int got = -1;
        if (st == INLAY_OK) st = inlay_shredder_shred(sh, 1, &xs, 2, out, 2, &got);
        if (st == INLAY_OK) {
            ck_assert_int_eq(got, 1);
            clean = ta.refused == 0;
        } else {
            ck_assert_int_eq(st, INLAY_ERR_NOMEM);
            ck_assert_int_eq(got < 0 ? 0 : got, 0);
            ck_assert_uint_gt(ta.refused, 0);
        }
        inlay_shredder_free(sh);
        ck_assert_no_leak(&ta);
    }
    ck_assert_msg(clean, "no run without a refusal");
    inlay_schema_free(s);
}
END_TEST

/* ---- the suite --------------------------------------------------------------------------------- */

static Suite *dataset_suite(void)
{
    Suite *s = suite_create("dataset");
    TCase *c;

    c = tcase_create("folder names");
    tcase_set_timeout(c, 60);
    tcase_add_unchecked_fixture(c, make_base, remove_base);
    tcase_add_checked_fixture(c, make_dir, remove_dir);
    tcase_add_test(c, test_names_string);
    tcase_add_test(c, test_names_binary);
    tcase_add_test(c, test_names_integers);
    tcase_add_test(c, test_names_date_bool);
    tcase_add_test(c, test_names_long);
    suite_add_tcase(s, c);

    c = tcase_create("rows");
    tcase_set_timeout(c, 60);
    tcase_add_unchecked_fixture(c, make_base, remove_base);
    tcase_add_checked_fixture(c, make_dir, remove_dir);
    tcase_add_test(c, test_every_row_once);
    tcase_add_test(c, test_keep_partition_columns);
    tcase_add_test(c, test_no_partitions);
    tcase_add_test(c, test_nested_column);
    tcase_add_test(c, test_nested_column_shredded);
    tcase_add_test(c, test_arrow_refused);
    tcase_add_test(c, test_arrow_nested_refused);
    tcase_add_test(c, test_shredder_errors);
    tcase_add_test(c, test_shredder_alloc_faults);
    suite_add_tcase(s, c);

    c = tcase_create("shards");
    tcase_set_timeout(c, 60);
    tcase_add_unchecked_fixture(c, make_base, remove_base);
    tcase_add_checked_fixture(c, make_dir, remove_dir);
    tcase_add_test(c, test_shard_option);
    tcase_add_test(c, test_shard_env);
    tcase_add_test(c, test_shard_random);
    tcase_add_test(c, test_shard_unsafe);
    tcase_add_test(c, test_bad_options);
    tcase_add_test(c, test_schema_errors);
    suite_add_tcase(s, c);

    c = tcase_create("limits");
    tcase_set_timeout(c, 120);
    tcase_add_unchecked_fixture(c, make_base, remove_base);
    tcase_add_checked_fixture(c, make_dir, remove_dir);
    tcase_add_test(c, test_max_file_rows);
    tcase_add_test(c, test_max_file_bytes);
    tcase_add_test(c, test_max_open_files);
    tcase_add_test(c, test_max_buffered_bytes);
    suite_add_tcase(s, c);

    c = tcase_create("errors");
    tcase_set_timeout(c, 60);
    tcase_add_unchecked_fixture(c, make_base, remove_base);
    tcase_add_checked_fixture(c, make_dir, remove_dir);
    tcase_add_test(c, test_bad_values);
    tcase_add_test(c, test_bad_shapes);
    tcase_add_test(c, test_abort);
    tcase_add_test(c, test_after_close);
    suite_add_tcase(s, c);

    c = tcase_create("existing");
    tcase_set_timeout(c, 60);
    tcase_add_unchecked_fixture(c, make_base, remove_base);
    tcase_add_checked_fixture(c, make_dir, remove_dir);
    tcase_add_test(c, test_existing_error);
    tcase_add_test(c, test_stale_temporaries);
    tcase_add_test(c, test_existing_replace);
    tcase_add_test(c, test_existing_append);
    suite_add_tcase(s, c);

    c = tcase_create("allocation failures");
    tcase_set_timeout(c, 240);
    tcase_add_unchecked_fixture(c, make_base, remove_base);
    tcase_add_checked_fixture(c, make_dir, remove_dir);
    tcase_add_test(c, test_alloc_faults);
    tcase_add_test(c, test_arrow_alloc_faults);
    suite_add_tcase(s, c);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(dataset_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
