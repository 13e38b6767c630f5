/*
 * dataset.c — one table written as many files under a folder: partitions,
 * rolling files, shards, the manifest (see inlay.h, "Datasets").
 *
 * An append is checked whole by a writer that never holds a row (the
 * checker: the same checks as any writer's, on the dataset's full schema),
 * then split: partition.c finds each row's partition and groups the rows,
 * and each partition's rows are copied from the caller's arrays into its
 * waiting rows. So a bad value refuses the call before any partition or
 * file has taken a row of it. An Arrow record batch is first read into
 * column batches by arrow.c, as a writer reads one, and then appended so.
 *
 * Waiting rows go on to the partition's file, without their values being
 * checked again, once they make a page (file.page_rows) or fill the file,
 * when memory is short, and at close: files write in turn, each in a
 * burst, after which its writer gives back what it keeps only to go
 * faster (inl_writer_trim).
 *
 * A partition has at most one open file (a writer on a temporary, renamed
 * by its close). Files close at max_file_rows (a burst is cut there, so
 * counts are exact), at max_file_bytes (bytes written plus buffered,
 * looked at every page_rows rows), when max_open_files are open and
 * another partition needs one (the least recently used goes), and at
 * close. When waiting rows and unwritten pages together pass
 * max_buffered_bytes, the largest holders give back (rows go on to their
 * files, a file ends its row group) until half is held.
 * State: OPEN -> CLOSED | FAILED (environment) | ABORTED.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arrow.h"
#include "error.h"
#include "hive.h"
#include "partition.h"
#include "schema.h"
#include "sink.h"
#include "utf8.h"
#include "writer.h"

enum { D_OPEN, D_CLOSED, D_FAILED, D_ABORTED };

#define SHARD_MAX 64

/* One partition: its folder and its open file. */
typedef struct part {
    char *dir;             /* folder under root ("day=2024-06-01/platform=pc"; "" unpartitioned) */
    size_t dir_size;
    bool dir_known;
    bool shortened;        /* a value did not fit its folder name: files keep the partition columns */
    inlay_writer *w;       /* the open file, or NULL */
    char *file;            /* its path under root */
    size_t file_size;
    uint64_t file_rows;
    uint64_t used;         /* the append that last wrote to it, for the LRU */
    uint64_t buffered;     /* bytes its writer buffered after that */
    int open_slot;         /* index in d->open, or -1 */
    /* rows waiting for the file: per dataset leaf, levels and dense values
     * (byte strings as offsets into arena) */
    struct raw_col *raw;
    buf arena;
    uint64_t raw_rows;
    size_t raw_bytes;      /* the room they hold (counted against max_buffered_bytes) */
} part;

typedef struct raw_col {
    buf vals, def, rep;
    size_t entries, values;
} raw_col;

/* How one column of an append is read by row. */
typedef enum gather_kind { G_PLAIN, G_DEF, G_VALIDITY, G_NESTED } gather_kind;

typedef struct gather {
    const inlay_column_batch *in;
    gather_kind kind;
    size_t vsize;
    bool is_bytes;
    int16_t max_def, max_rep;
    buf entry_at;          /* G_NESTED: uint32 first entry of each row, rows + 1 */
    buf value_at;          /* G_DEF, G_NESTED: uint32 values before each row, rows + 1 */
    buf views;             /* a file append's byte strings, pointing into a partition's arena */
} gather;

struct inlay_dataset {
    inlay_allocator alloc;
    int state;
    int failure;
    inl_err err;
    char failure_msg[sizeof ((inl_err *)0)->msg];
    inlay_schema *schema;          /* every column, finalized */
    inlay_schema *file_schema;     /* without the partition columns (unless kept), finalized */
    int nleaves;
    int *file_col;                 /* dataset leaf -> leaf of file_schema, or -1 */
    bool *is_partition;            /* per dataset leaf */
    int *by_leaf;                  /* partition columns, as dataset leaves */
    int nby;
    char **by_names;
    inlay_options file_opts;
    inlay_sorting_column *sorting; /* copied with their names */
    inlay_kv *kv;
    uint64_t max_file_rows, max_file_bytes;
    int max_open_files;
    size_t max_buffered_bytes;
    bool keep;
    inlay_existing existing;
    char shard[SHARD_MAX + 1];
    char *root;
    inlay_writer *checker;
    arrow_state *arrow;            /* reading Arrow record batches; NULL until the first */
    partitioner parts_of;
    part *parts;
    size_t nparts, parts_cap;
    uint32_t *open;                /* partitions with an open file */
    int nopen;
    uint64_t buffered;             /* sum of their `buffered` */
    uint64_t raw_total;            /* sum of the partitions' raw_bytes */
    size_t flush_rows;             /* a partition's waiting rows go to its file from this many on */
    buf pick;                      /* uint32 source values of a partition's rows */
    buf by_size;                   /* partitions or open files, largest first */
    uint64_t appends;
    uint64_t next_seq;
    uint64_t rows, files, bytes;
    gather *g;                     /* per dataset leaf */
    inlay_column_batch *out;       /* one partition's batches for its file */
    const inlay_column_batch **by_batch;
    buf manifest;                  /* the files' lines of the manifest */
    buf earlier;                   /* INLAY_EXISTING_APPEND: the earlier manifest's file lines */
    uint64_t earlier_rows, earlier_bytes;   /* and what they add up to */
    buf old_files;                 /* INLAY_EXISTING_REPLACE_SHARD: the shard's files at open, NUL-separated */
    buf text, path;                /* scratch */
    size_t *cursor_entry, *cursor_value;   /* per leaf: how far a partition's flush has gone */
};

/* ---- errors ------------------------------------------------------------------ */

#define set_error(d, ...) inl_err_set(&(d)->err, __VA_ARGS__)

static int set_failed_msg(inlay_dataset *d, int status)
{
    d->state = D_FAILED;
    d->failure = status;
    d->err.status = status;
    memcpy(d->failure_msg, d->err.msg, sizeof d->failure_msg);
    return status;
}

/* An environment failure, with a writer's message when it had one. */
static int failed_from(inlay_dataset *d, int status, inlay_writer *w, const char *what)
{
    if (w) set_error(d, status, "%s", inlay_writer_errmsg(w));
    else set_error(d, status, "%s: %s", what ? what : "dataset", inlay_strerror(status));
    return set_failed_msg(d, status);
}

static int usable(inlay_dataset *d)
{
    if (d->state == D_FAILED)
        return set_error(d, d->failure, "dataset failed earlier (%s); it can only be aborted", d->failure_msg);
    if (d->state != D_OPEN) return set_error(d, INLAY_ERR_STATE, "dataset is closed");
    return 0;
}

const char *inlay_dataset_errmsg(const inlay_dataset *d) { return d ? d->err.msg : "no dataset"; }
int inlay_dataset_status(const inlay_dataset *d) { return d ? d->err.status : INLAY_ERR_ARGUMENT; }

void inlay_dataset_error_info(const inlay_dataset *d, inlay_error_info *info)
{
    if (!d) {
        *info = (inlay_error_info){ -1, -1, "no dataset" };
        return;
    }
    info->column = d->err.column;
    info->row = d->err.row;
    info->reason = d->err.msg + d->err.reason_at;
}

const inlay_schema *inlay_dataset_schema(const inlay_dataset *d) { return d ? d->schema : NULL; }
const char *inlay_dataset_shard(const inlay_dataset *d) { return d ? d->shard : NULL; }

int inlay_dataset_column(const inlay_dataset *d, const char *name)
{
    if (!d || !name) return INLAY_ERR_ARGUMENT;
    for (int i = 0; i < d->nleaves; i++) {
        const schema_leaf *l = &d->schema->leaves[i];
        if (!strcmp(l->path, name) || (l->depth == 1 && !strcmp(l->parts[0], name))) return i;
    }
    return INLAY_ERR_COLUMN;
}

void inlay_dataset_get_stats(const inlay_dataset *d, inlay_dataset_stats *st)
{
    memset(st, 0, sizeof *st);
    if (!d) return;
    st->rows = d->rows;
    st->files = d->files;
    st->bytes = d->bytes;
    st->partitions = d->nparts;
    st->open_files = (uint64_t)d->nopen;
}

/* ---- options ----------------------------------------------------------------- */

void inlay_dataset_options_init(inlay_dataset_options *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    inlay_options_init(&o->file);
    o->max_open_files = INLAY_DEFAULT_MAX_OPEN_FILES;
    o->max_buffered_bytes = INLAY_DEFAULT_MAX_BUFFERED_BYTES;
}

static bool safe_shard(const char *s)
{
    const size_t n = strlen(s);
    if (n == 0 || n > SHARD_MAX || s[0] == '.') return false;
    for (size_t i = 0; i < n; i++) {
        const char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '-' || c == '.'))
            return false;
    }
    return true;
}

/* 8 hex digits that another job started at the same moment will not
 * draw: the kernel's random bytes, else the clock, the process id and an
 * address mixed. */
static void random_shard(char out[9])
{
    uint32_t x = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    bool got = false;
    if (fd >= 0) {
        got = read(fd, &x, sizeof x) == (ssize_t)sizeof x;
        close(fd);
    }
    if (!got) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t h = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)ts.tv_sec ^
                     (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)out;
        h ^= h >> 29;
        x = (uint32_t)(h * 0xBF58476D1CE4E5B9ull >> 32);
    }
    snprintf(out, 9, "%08x", x);
}

/* ---- the file system ------------------------------------------------------------ */

/* mkdir -p of path[0..len), which may already exist (another job made it). */
static int make_dirs(char *path, size_t len)
{
    for (size_t i = 1; i <= len; i++) {
        if (i < len && path[i] != '/') continue;
        const char keep = path[i];
        path[i] = 0;
        const int r = mkdir(path, 0777);
        const int e = errno;
        path[i] = keep;
        if (r && e != EEXIST) {
            errno = e;
            return -1;
        }
    }
    struct stat st;
    const char keep = path[len];
    path[len] = 0;
    const int r = stat(path, &st);
    path[len] = keep;
    if (r) return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* "part-<shard>-<digits>.parquet": its sequence number, or -1. */
static int64_t shard_seq(const char *shard, const char *name)
{
    const size_t sl = strlen(shard);
    if (strncmp(name, "part-", 5) || strncmp(name + 5, shard, sl) || name[5 + sl] != '-') return -1;
    const char *p = name + 6 + sl;
    int64_t seq = 0;
    size_t digits = 0;
    for (; *p >= '0' && *p <= '9' && digits < 18; p++, digits++) seq = seq * 10 + (*p - '0');
    if (digits < 6 || strcmp(p, ".parquet")) return -1;
    return seq;
}

typedef struct scan {
    inlay_dataset *d;
    int64_t max_seq;
    size_t found;
    char first[256];
} scan;

/* The shard's files under root (dir: a path under root, "" for root). */
static int scan_dir(scan *sc, const char *dir, int depth)
{
    inlay_dataset *d = sc->d;
    char *full = NULL;
    size_t full_size = strlen(d->root) + strlen(dir) + 2;
    if (!(full = inl_mem_alloc(&d->alloc, full_size))) return INLAY_ERR_NOMEM;
    snprintf(full, full_size, "%s%s%s", d->root, *dir ? "/" : "", dir);
    DIR *dh = opendir(full);
    if (!dh) {
        const int e = errno;
        inl_mem_free(&d->alloc, full, full_size);
        if (e == ENOENT && depth > 0) return 0;   /* gone meanwhile */
        char why[128];
        return set_error(d, INLAY_ERR_IO, "reading '%s': %s", d->root, inl_sys_reason(e, why, sizeof why));
    }
    int st = 0;
    struct dirent *de;
    while (!st && (de = readdir(dh))) {
        const char *name = de->d_name;
        if (!strcmp(name, ".") || !strcmp(name, "..")) continue;
        const size_t rel_size = strlen(dir) + strlen(name) + 2;
        char *rel = inl_mem_alloc(&d->alloc, rel_size);
        if (!rel) {
            st = INLAY_ERR_NOMEM;
            break;
        }
        snprintf(rel, rel_size, "%s%s%s", dir, *dir ? "/" : "", name);
        /* a killed run's temporaries of this shard (".part-<shard>-<seq>.parquet.XXXXXX.tmp", or
         * without the dot as earlier versions named them) go */
        const char *file = name[0] == '.' ? name + 1 : name;
        const char *ext = strstr(file, ".parquet.");
        char target[256];
        const size_t tl = ext ? (size_t)(ext - file) + 8 : 0;
        if (ext && tl < sizeof target) {
            memcpy(target, file, tl);
            target[tl] = 0;
            if (shard_seq(d->shard, target) >= 0 && inl_file_sink_remove_if_stale(dirfd(dh), name, target, tl)) {
                inl_mem_free(&d->alloc, rel, rel_size);
                continue;
            }
        }
        const int64_t seq = shard_seq(d->shard, name);
        if (seq >= 0) {
            if (seq > sc->max_seq) sc->max_seq = seq;
            if (!sc->found++) snprintf(sc->first, sizeof sc->first, "%s", rel);
            if (d->existing == INLAY_EXISTING_REPLACE_SHARD &&
                inl_buf_append(&d->old_files, &d->alloc, rel, strlen(rel) + 1))
                st = INLAY_ERR_NOMEM;
        } else if (strchr(name, '=') && depth < 64) {   /* only partition folders are walked */
            struct stat sb;
            char *p = inl_mem_alloc(&d->alloc, full_size + strlen(name) + 1);
            if (!p) {
                st = INLAY_ERR_NOMEM;
            } else {
                snprintf(p, full_size + strlen(name) + 1, "%s/%s", full, name);
                if (!lstat(p, &sb) && S_ISDIR(sb.st_mode)) st = scan_dir(sc, rel, depth + 1);
                inl_mem_free(&d->alloc, p, full_size + strlen(name) + 1);
            }
        }
        inl_mem_free(&d->alloc, rel, rel_size);
    }
    closedir(dh);
    inl_mem_free(&d->alloc, full, full_size);
    if (st == INLAY_ERR_NOMEM) return set_error(d, st, "listing '%s': out of memory", d->root);
    return st;
}

/* root/<name> as d->path (NUL-terminated). */
static int root_path(inlay_dataset *d, const char *rel)
{
    d->path.len = 0;
    if (inl_buf_append(&d->path, &d->alloc, d->root, strlen(d->root)) ||
        inl_buf_append(&d->path, &d->alloc, "/", 1) ||
        inl_buf_append(&d->path, &d->alloc, rel, strlen(rel) + 1))
        return set_error(d, INLAY_ERR_NOMEM, "out of memory");
    return 0;
}

static void manifest_name(const inlay_dataset *d, char *out, size_t cap)
{
    snprintf(out, cap, "_inlay_manifest.%s.json", d->shard);
}

/* The earlier manifest's file lines (ours: one file per line, each line
 * starting with {"path":). */
static int read_earlier(inlay_dataset *d)
{
    char name[128];
    manifest_name(d, name, sizeof name);
    INL_FORWARD(root_path(d, name));
    FILE *f = fopen((const char *)d->path.data, "re");
    if (!f) return 0;
    char line[8192];
    bool in_files = false;
    int st = 0;
    while (!st && fgets(line, sizeof line, f)) {
        const char *p = line;
        while (*p == ' ') p++;
        if (!strncmp(p, "{\"path\":", 8)) {
            in_files = true;
            size_t n = strlen(p);
            while (n && (p[n - 1] == '\n' || p[n - 1] == ',')) n--;
            if (inl_buf_append(&d->earlier, &d->alloc, p, n) || inl_buf_append(&d->earlier, &d->alloc, "\n", 1))
                st = set_error(d, INLAY_ERR_NOMEM, "out of memory");
            const char *rows = strstr(p, "},\"rows\":"), *bytes = rows ? strstr(rows, ",\"bytes\":") : NULL;
            if (rows && bytes) {
                d->earlier_rows += strtoull(rows + 9, NULL, 10);
                d->earlier_bytes += strtoull(bytes + 9, NULL, 10);
            }
        } else if (in_files) {
            break;
        }
    }
    fclose(f);
    return st;
}

/* What is there already of this shard (see inlay_existing). */
static int check_existing(inlay_dataset *d)
{
    scan sc = { d, -1, 0, "" };
    INL_FORWARD(scan_dir(&sc, "", 0));
    char name[128];
    manifest_name(d, name, sizeof name);
    INL_FORWARD(root_path(d, name));
    struct stat sb;
    const bool has_manifest = stat((const char *)d->path.data, &sb) == 0;
    switch (d->existing) {
    case INLAY_EXISTING_ERROR:
        if (sc.found || has_manifest)
            return set_error(d, INLAY_ERR_IO,
                             "dataset '%s' already holds files of shard '%s' ('%s'); use another shard, or "
                             "existing = replace_shard or append",
                             d->root, d->shard, sc.found ? sc.first : name);
        return 0;
    case INLAY_EXISTING_REPLACE_SHARD:
        /* a job that dies from here on leaves no manifest naming files it replaced */
        if (has_manifest && unlink((const char *)d->path.data) && errno != ENOENT) {
            char why[128];
            return set_error(d, INLAY_ERR_IO, "removing '%s': %s", (const char *)d->path.data,
                             inl_sys_reason(errno, why, sizeof why));
        }
        return 0;
    case INLAY_EXISTING_APPEND:
        d->next_seq = (uint64_t)(sc.max_seq + 1);
        return has_manifest ? read_earlier(d) : 0;
    }
    return 0;
}

/* ---- open -------------------------------------------------------------------- */

static int null_write(void *ctx, const void *data, size_t len)
{
    (void)ctx, (void)data, (void)len;
    return 0;
}
static int null_finish(void *ctx) { return (void)ctx, 0; }

static int check_options(inlay_dataset *d, const inlay_dataset_options *o)
{
    if (o->struct_size != sizeof *o)
        return set_error(d, INLAY_ERR_ARGUMENT, "dataset options not set up with inlay_dataset_options_init");
    if (o->max_open_files < 0 || o->max_open_files > 1000000)
        return set_error(d, INLAY_ERR_ARGUMENT, "max_open_files %d out of range 1..1000000", o->max_open_files);
    if ((unsigned)o->existing > INLAY_EXISTING_APPEND)
        return set_error(d, INLAY_ERR_ARGUMENT, "unknown 'existing' choice %d", (int)o->existing);
    if (o->partition_by_count && !o->partition_by)
        return set_error(d, INLAY_ERR_ARGUMENT, "partition_by is NULL with a count of %zu", o->partition_by_count);
    return 0;
}

/* The partition columns: top-level primitives, not repeated, once each,
 * of a type with a folder form. */
static int find_partition_columns(inlay_dataset *d, const inlay_dataset_options *o, bool *drop_field)
{
    const inlay_schema *s = d->schema;
    d->nby = (int)o->partition_by_count;
    if (d->nby && (!(d->by_leaf = inl_mem_alloc(&d->alloc, (size_t)d->nby * sizeof *d->by_leaf)) ||
                   !(d->by_names = inl_mem_alloc(&d->alloc, (size_t)d->nby * sizeof *d->by_names))))
        return set_error(d, INLAY_ERR_NOMEM, "out of memory");
    if (d->nby) memset(d->by_names, 0, (size_t)d->nby * sizeof *d->by_names);
    for (int k = 0; k < d->nby; k++) {
        const char *name = o->partition_by[k];
        if (!name) return set_error(d, INLAY_ERR_ARGUMENT, "partition_by[%d] is NULL", k);
        if (!(d->by_names[k] = inl_mem_strdup(&d->alloc, name))) return set_error(d, INLAY_ERR_NOMEM, "out of memory");
        int field = 0, node = -1;
        for (int c = s->nodes[0].first_child; c > 0; c = s->nodes[c].next_sibling, field++)
            if (!strcmp(s->nodes[c].name, name)) {
                node = c;
                break;
            }
        if (node < 0) return set_error(d, INLAY_ERR_SCHEMA, "partition column '%s' is not a top-level field", name);
        const schema_node *n = &s->nodes[node];
        if (n->is_group || n->rep == INLAY_REPEATED)
            return set_error(d, INLAY_ERR_SCHEMA, "partition column '%s' is %s; partition by a plain field", name,
                             n->is_group ? "a group" : "repeated");
        if (inl_hive_kind_of(&n->type) < 0) {
            char tn[64];
            inl_type_name(&n->type, tn, sizeof tn);
            return set_error(d, INLAY_ERR_SCHEMA,
                             "partition column '%s' is %s, which has no folder form (partition by integers, "
                             "dates, booleans or strings)",
                             name, tn);
        }
        for (int j = 0; j < k; j++)
            if (!strcmp(d->by_names[j], name))
                return set_error(d, INLAY_ERR_SCHEMA, "partition column '%s' is named twice", name);
        /* a name that leaves no room for a value is refused now, not at the first row */
        hive_value null_value = { .is_null = true };
        bool shortened;
        d->text.len = 0;
        const int r = inl_hive_component(&d->text, &d->alloc, name, HIVE_INT, &null_value, &shortened);
        if (r == -1) return set_error(d, INLAY_ERR_NOMEM, "out of memory");
        if (r == -2)
            return set_error(d, INLAY_ERR_SCHEMA, "partition column name '%.60s...' is too long for a folder name",
                             name);
        int leaf = 0;
        while (s->leaves[leaf].node != node) leaf++;
        d->by_leaf[k] = leaf;
        d->is_partition[leaf] = true;
        drop_field[field] = !o->keep_partition_columns;
    }
    return 0;
}

/* The files' schema, and where each dataset column goes in it. */
static int make_file_schema(inlay_dataset *d, const bool *drop_field)
{
    if (!(d->file_schema = inl_schema_clone_without(d->schema, &d->alloc, drop_field)))
        return set_error(d, INLAY_ERR_NOMEM, "out of memory");
    int st = inl_schema_finalize(d->file_schema);
    if (st == INLAY_ERR_NOMEM) return set_error(d, st, "out of memory");
    if (d->file_schema->num_leaves == 0)
        return set_error(d, INLAY_ERR_SCHEMA, "every column is a partition column: the files would hold none "
                                              "(keep_partition_columns keeps them)");
    if (st) return set_error(d, st, "%s", d->file_schema->err.msg);
    for (int i = 0, j = 0; i < d->nleaves; i++)
        d->file_col[i] = d->is_partition[i] && !d->keep ? -1 : j++;
    return 0;
}

/* The options every file is written with: the host's, threads 1 unless
 * asked, the copied sort order and metadata (the caller's may go). */
static int copy_file_options(inlay_dataset *d, const inlay_dataset_options *o)
{
    d->file_opts = o->file;
    d->file_opts.alloc = d->alloc;
    if (d->file_opts.threads == 0) d->file_opts.threads = 1;
    const inlay_options *f = &o->file;
    if (f->sorting_columns_count) {
        if (!f->sorting_columns) return set_error(d, INLAY_ERR_ARGUMENT, "sorting_columns is NULL");
        if (!(d->sorting = inl_mem_alloc(&d->alloc, f->sorting_columns_count * sizeof *d->sorting)))
            return set_error(d, INLAY_ERR_NOMEM, "out of memory");
        for (size_t i = 0; i < f->sorting_columns_count; i++) {
            d->sorting[i] = f->sorting_columns[i];
            d->sorting[i].column = NULL;
        }
        for (size_t i = 0; i < f->sorting_columns_count; i++)
            if (f->sorting_columns[i].column &&
                !(d->sorting[i].column = inl_mem_strdup(&d->alloc, f->sorting_columns[i].column)))
                return set_error(d, INLAY_ERR_NOMEM, "out of memory");
        d->file_opts.sorting_columns = d->sorting;
    }
    if (f->metadata_count) {
        if (!f->metadata) return set_error(d, INLAY_ERR_ARGUMENT, "metadata is NULL");
        if (!(d->kv = inl_mem_alloc(&d->alloc, f->metadata_count * sizeof *d->kv)))
            return set_error(d, INLAY_ERR_NOMEM, "out of memory");
        memset(d->kv, 0, f->metadata_count * sizeof *d->kv);
        for (size_t i = 0; i < f->metadata_count; i++)
            if ((f->metadata[i].key && !(d->kv[i].key = inl_mem_strdup(&d->alloc, f->metadata[i].key))) ||
                (f->metadata[i].value && !(d->kv[i].value = inl_mem_strdup(&d->alloc, f->metadata[i].value))))
                return set_error(d, INLAY_ERR_NOMEM, "out of memory");
        d->file_opts.metadata = d->kv;
    }
    return 0;
}

/* The checker: a writer on the full schema that never takes a row. */
static int open_checker(inlay_dataset *d)
{
    inlay_options co = d->file_opts;
    co.threads = 1;
    co.sync = false;
    inlay_sink sink = { null_write, null_finish, NULL, NULL };
    const int st = inlay_writer_open(&d->checker, sink, d->schema, &co);
    if (st) {
        if (d->checker) set_error(d, st, "%s", inlay_writer_errmsg(d->checker));
        else set_error(d, st, "out of memory");
        return st;
    }
    return 0;
}

/* The files' options on the files' schema (a sort order naming a partition
 * column the files do not hold, say), refused at open rather than at the
 * first file. */
static int try_file_options(inlay_dataset *d)
{
    inlay_options fo = d->file_opts;
    fo.threads = 1;
    inlay_sink sink = { null_write, null_finish, NULL, NULL };
    inlay_writer *w = NULL;
    const int st = inlay_writer_open(&w, sink, d->file_schema, &fo);
    if (st) set_error(d, st, "%s", w ? inlay_writer_errmsg(w) : "out of memory");
    inlay_writer_free(w);
    return st;
}

static int setup(inlay_dataset *d, const char *root, const inlay_schema *schema, const inlay_dataset_options *o)
{
    INL_FORWARD(check_options(d, o));
    d->max_file_rows = o->max_file_rows;
    d->max_file_bytes = o->max_file_bytes;
    d->max_open_files = o->max_open_files ? o->max_open_files : INLAY_DEFAULT_MAX_OPEN_FILES;
    d->max_buffered_bytes = o->max_buffered_bytes ? o->max_buffered_bytes : INLAY_DEFAULT_MAX_BUFFERED_BYTES;
    d->keep = o->keep_partition_columns;
    d->existing = o->existing;
    const char *shard = o->shard;
    if (!shard && (shard = getenv("INLAY_SHARD")) && !*shard) shard = NULL;   /* set but empty: unset */
    if (shard) {
        if (!safe_shard(shard))
            return set_error(d, INLAY_ERR_ARGUMENT,
                             "shard '%.80s' is not a safe name (1..64 of A-Z a-z 0-9 _ . -, not starting with '.')",
                             shard);
        memcpy(d->shard, shard, strlen(shard) + 1);
    } else {
        random_shard(d->shard);
    }
    if (!root || !*root) return set_error(d, INLAY_ERR_ARGUMENT, "no dataset root");
    size_t rl = strlen(root);
    while (rl > 1 && root[rl - 1] == '/') rl--;
    if (!(d->root = inl_mem_alloc(&d->alloc, rl + 1))) return set_error(d, INLAY_ERR_NOMEM, "out of memory");
    memcpy(d->root, root, rl);
    d->root[rl] = 0;

    if (!(d->schema = inl_schema_clone(schema, &d->alloc))) return set_error(d, INLAY_ERR_NOMEM, "out of memory");
    int st = inl_schema_finalize(d->schema);
    if (st) return set_error(d, st, "%s", d->schema->err.msg);
    d->nleaves = d->schema->num_leaves;
    const size_t nl = (size_t)d->nleaves;
    int nfields = d->schema->nodes[0].num_children;
    bool *drop_field = inl_mem_alloc(&d->alloc, (size_t)nfields + 1);
    d->file_col = inl_mem_alloc(&d->alloc, nl * sizeof *d->file_col);
    d->is_partition = inl_mem_alloc(&d->alloc, nl + 1);
    if ((d->g = inl_mem_alloc(&d->alloc, nl * sizeof *d->g))) memset(d->g, 0, nl * sizeof *d->g);
    d->out = inl_mem_alloc(&d->alloc, nl * sizeof *d->out);
    d->cursor_entry = inl_mem_alloc(&d->alloc, nl * sizeof *d->cursor_entry);
    d->cursor_value = inl_mem_alloc(&d->alloc, nl * sizeof *d->cursor_value);
    if (!drop_field || !d->file_col || !d->is_partition || !d->g || !d->out || !d->cursor_entry ||
        !d->cursor_value) {
        if (drop_field) inl_mem_free(&d->alloc, drop_field, (size_t)nfields + 1);
        return set_error(d, INLAY_ERR_NOMEM, "out of memory");
    }
    memset(drop_field, 0, (size_t)nfields + 1);
    memset(d->is_partition, 0, nl + 1);
    st = find_partition_columns(d, o, drop_field);
    if (!st) st = make_file_schema(d, drop_field);
    inl_mem_free(&d->alloc, drop_field, (size_t)nfields + 1);
    INL_FORWARD(st);
    if (d->nby && !(d->by_batch = inl_mem_alloc(&d->alloc, (size_t)d->nby * sizeof *d->by_batch)))
        return set_error(d, INLAY_ERR_NOMEM, "out of memory");
    if (inl_partitioner_init(&d->parts_of, &d->alloc, d->schema, d->by_leaf, d->nby))
        return set_error(d, INLAY_ERR_NOMEM, "out of memory");
    if (!(d->open = inl_mem_alloc(&d->alloc, (size_t)d->max_open_files * sizeof *d->open)))
        return set_error(d, INLAY_ERR_NOMEM, "out of memory");
    INL_FORWARD(copy_file_options(d, o));
    d->flush_rows = d->file_opts.page_rows ? d->file_opts.page_rows : INLAY_DEFAULT_PAGE_ROWS;
    INL_FORWARD(open_checker(d));
    INL_FORWARD(try_file_options(d));

    if (make_dirs(d->root, strlen(d->root))) {
        char why[128];
        return set_error(d, INLAY_ERR_IO, "making dataset folder '%s': %s", d->root,
                         inl_sys_reason(errno, why, sizeof why));
    }
    return check_existing(d);
}

static void free_all(inlay_dataset *d);

int inlay_dataset_open(inlay_dataset **out, const char *root, const inlay_schema *schema,
                       const inlay_dataset_options *opts)
{
    if (!out) return INLAY_ERR_ARGUMENT;
    *out = NULL;
    inlay_dataset_options defaults;
    if (!opts) {
        inlay_dataset_options_init(&defaults);
        opts = &defaults;
    }
    if (opts->struct_size != sizeof *opts) return INLAY_ERR_ARGUMENT;
    const inlay_allocator a = inl_mem_or_default(&opts->file.alloc);
    inlay_dataset *d = inl_mem_alloc(&a, sizeof *d);
    if (!d) return INLAY_ERR_NOMEM;
    memset(d, 0, sizeof *d);
    d->alloc = a;
    d->state = D_OPEN;
    inl_err_clear(&d->err);
    *out = d;
    if (!schema) return set_error(d, INLAY_ERR_ARGUMENT, "no schema");
    const int st = setup(d, root, schema, opts);
    if (st) {
        d->state = D_ABORTED;
        d->err.status = st;
    }
    return st;
}

/* ---- folders and files ----------------------------------------------------------- */

/* The partition's folder under root, made once per partition. */
static int partition_dir(inlay_dataset *d, size_t pi)
{
    part *p = &d->parts[pi];
    if (p->dir_known) return 0;
    d->text.len = 0;
    for (int k = 0; k < d->nby; k++) {
        hive_value v;
        inl_partition_value(&d->parts_of, pi, k, &v);
        bool shortened = false;
        if (k && inl_buf_append(&d->text, &d->alloc, "/", 1)) return failed_from(d, INLAY_ERR_NOMEM, NULL, "naming a folder");
        const int r = inl_hive_component(&d->text, &d->alloc, d->by_names[k], d->parts_of.cols[k].kind, &v,
                                         &shortened);
        if (r) return failed_from(d, INLAY_ERR_NOMEM, NULL, "naming a folder");   /* names fit: see find_partition_columns */
        p->shortened |= shortened;
    }
    if (inl_buf_append(&d->text, &d->alloc, "", 1) || !(p->dir = inl_mem_alloc(&d->alloc, d->text.len)))
        return failed_from(d, INLAY_ERR_NOMEM, NULL, "naming a folder");
    memcpy(p->dir, d->text.data, d->text.len);
    p->dir_size = d->text.len;
    p->dir_known = true;
    return 0;
}

/* The manifest line of a file just published. */
static int json_string(buf *b, const inlay_allocator *a, const uint8_t *s, size_t n)
{
    if (inl_buf_reserve(b, a, n * 6 + 2)) return -1;
    uint8_t *o = b->data + b->len;
    const bool utf8 = inl_utf8_valid(s, n);
    *o++ = '"';
    for (size_t i = 0; i < n; i++) {
        const uint8_t c = s[i];
        if (c == '"' || c == '\\') {
            *o++ = '\\';
            *o++ = c;
        } else if (c < 0x20 || c == 0x7F || (!utf8 && c >= 0x80)) {
            o += sprintf((char *)o, "\\u%04x", c);   /* bytes of a value that is not text: as Latin-1 */
        } else {
            *o++ = c;
        }
    }
    *o++ = '"';
    b->len = (size_t)(o - b->data);
    return 0;
}

static int manifest_line(inlay_dataset *d, size_t pi, const char *file, uint64_t rows, uint64_t bytes)
{
    buf *m = &d->manifest;
    const inlay_allocator *a = &d->alloc;
    int st = inl_buf_append(m, a, "{\"path\":", 8) || json_string(m, a, (const uint8_t *)file, strlen(file)) ||
             inl_buf_append(m, a, ",\"partition\":{", 14);
    for (int k = 0; !st && k < d->nby; k++) {
        hive_value v;
        inl_partition_value(&d->parts_of, pi, k, &v);
        st = (k && inl_buf_append(m, a, ",", 1)) ||
             json_string(m, a, (const uint8_t *)d->by_names[k], strlen(d->by_names[k])) ||
             inl_buf_append(m, a, ":", 1);
        if (st) break;
        if (v.is_null) {
            st = inl_buf_append(m, a, "null", 4);
            continue;
        }
        d->text.len = 0;
        st = inl_hive_text(&d->text, a, d->parts_of.cols[k].kind, &v) ||
             json_string(m, a, d->text.data, d->text.len);
    }
    char tail[96];
    const int n = snprintf(tail, sizeof tail, "},\"rows\":%llu,\"bytes\":%llu}\n", (unsigned long long)rows,
                           (unsigned long long)bytes);
    if (st || inl_buf_append(m, a, tail, (size_t)n)) return set_error(d, INLAY_ERR_NOMEM, "out of memory");
    return 0;
}

static void forget_open(inlay_dataset *d, size_t pi)
{
    part *p = &d->parts[pi];
    const int slot = p->open_slot;
    d->open[slot] = d->open[--d->nopen];
    d->parts[d->open[slot]].open_slot = slot;
    p->open_slot = -1;
    d->buffered -= p->buffered;
    p->buffered = 0;
}

/* Close and publish the partition's open file. */
static int close_file(inlay_dataset *d, size_t pi)
{
    part *p = &d->parts[pi];
    inlay_writer *w = p->w;
    forget_open(d, pi);
    int st = inlay_writer_close(w);
    if (st) {
        failed_from(d, st, w, NULL);
        inlay_writer_free(w);
        p->w = NULL;
        return st;
    }
    const uint64_t bytes = inlay_writer_bytes(w);
    inlay_writer_free(w);
    p->w = NULL;
    d->files++;
    d->bytes += bytes;
    st = manifest_line(d, pi, p->file, p->file_rows, bytes);
    return st ? set_failed_msg(d, st) : 0;
}

/* The least recently used open file, closed. */
static int evict(inlay_dataset *d)
{
    int best = 0;
    for (int i = 1; i < d->nopen; i++)
        if (d->parts[d->open[i]].used < d->parts[d->open[best]].used) best = i;
    return close_file(d, d->open[best]);
}

static int open_file(inlay_dataset *d, size_t pi)
{
    part *p = &d->parts[pi];
    INL_FORWARD(partition_dir(d, pi));
    if (d->nopen == d->max_open_files) INL_FORWARD(evict(d));
    char name[SHARD_MAX + 48];
    snprintf(name, sizeof name, "part-%s-%06llu.parquet", d->shard, (unsigned long long)d->next_seq);
    const size_t dl = strlen(p->dir);
    const size_t need = dl + 1 + strlen(name) + 1;
    if (need > p->file_size) {
        char *f = inl_mem_realloc(&d->alloc, p->file, p->file_size, need);
        if (!f) return failed_from(d, INLAY_ERR_NOMEM, NULL, "opening a file");
        p->file = f;
        p->file_size = need;
    }
    snprintf(p->file, p->file_size, "%s%s%s", p->dir, dl ? "/" : "", name);
    if (root_path(d, p->file)) return set_failed_msg(d, INLAY_ERR_NOMEM);
    char *path = (char *)d->path.data;
    if (dl && make_dirs(path, strlen(d->root) + 1 + dl)) {
        char why[128];
        set_error(d, INLAY_ERR_IO, "making folder '%.*s': %s", (int)(strlen(d->root) + 1 + dl), path,
                  inl_sys_reason(errno, why, sizeof why));
        return set_failed_msg(d, INLAY_ERR_IO);
    }
    const inlay_schema *s = p->shortened && !d->keep ? d->schema : d->file_schema;
    inlay_writer *w = NULL;
    const int st = inlay_writer_open_file(&w, path, s, &d->file_opts);
    if (st) {
        failed_from(d, st, w, "opening a file");
        inlay_writer_free(w);
        return st;
    }
    d->next_seq++;
    p->w = w;
    p->file_rows = 0;
    p->buffered = 0;
    p->open_slot = d->nopen;
    d->open[d->nopen++] = (uint32_t)pi;
    return 0;
}

/* ---- gathering rows ---------------------------------------------------------- */

/* How column i of this append is read by row; its row count. */
static int gather_prepare(inlay_dataset *d, int i, const inlay_column_batch *in, size_t *rows)
{
    gather *g = &d->g[i];
    const schema_leaf *l = &d->schema->leaves[i];
    const inlay_type *t = &d->schema->nodes[l->node].type;
    g->in = in;
    g->vsize = inl_type_value_size(t);
    g->is_bytes = t->physical == INLAY_BYTE_ARRAY || t->physical == INLAY_FIXED_LEN_BYTE_ARRAY;
    g->max_def = l->max_def;
    g->max_rep = l->max_rep;
    const int16_t *def = in->levels.def, *rep = in->levels.rep;
    const size_t count = in->count;
    if (rep) {
        g->kind = G_NESTED;
        size_t r = 0;
        for (size_t e = 0; e < count; e++) r += rep[e] == 0;
        if (inl_buf_sized(&g->entry_at, &d->alloc, (r + 1) * 4) || inl_buf_sized(&g->value_at, &d->alloc, (r + 1) * 4)) return -1;
        uint32_t *ea = (uint32_t *)g->entry_at.data, *va = (uint32_t *)g->value_at.data;
        uint32_t v = 0;
        r = 0;
        for (size_t e = 0; e < count; e++) {
            if (rep[e] == 0) {
                ea[r] = (uint32_t)e;
                va[r++] = v;
            }
            v += !def || def[e] == l->max_def;
        }
        ea[r] = (uint32_t)count;
        va[r] = v;
        *rows = r;
    } else if (def) {
        g->kind = G_DEF;
        if (inl_buf_sized(&g->value_at, &d->alloc, (count + 1) * 4)) return -1;
        uint32_t *va = (uint32_t *)g->value_at.data;
        uint32_t v = 0;
        for (size_t e = 0; e < count; e++) {
            va[e] = v;
            v += def[e] == l->max_def;
        }
        va[count] = v;
        *rows = count;
    } else {
        g->kind = in->levels.validity ? G_VALIDITY : G_PLAIN;
        *rows = count;
    }
    return 0;
}

static void copy_values(uint8_t *dst, const uint8_t *src, const uint32_t *pick, size_t n, size_t vsize)
{
    switch (vsize) {
    case 8:
        for (size_t i = 0; i < n; i++) memcpy(dst + i * 8, src + (size_t)pick[i] * 8, 8);
        break;
    case 4:
        for (size_t i = 0; i < n; i++) memcpy(dst + i * 4, src + (size_t)pick[i] * 4, 4);
        break;
    default:
        for (size_t i = 0; i < n; i++) memcpy(dst + i * vsize, src + (size_t)pick[i] * vsize, vsize);
    }
}

/* Level entries of rows[0..n) of column i appended to dst's levels, and
 * the values they hold (their indices in the caller's array) to d->pick. */
static int gather_levels(inlay_dataset *d, gather *g, const uint32_t *rows, size_t n, raw_col *dst,
                         size_t *npick)
{
    const inlay_allocator *a = &d->alloc;
    const inlay_column_batch *in = g->in;
    const bool want_def = g->max_def > 0, want_rep = g->max_rep > 0;
    size_t entries = n;
    if (g->kind == G_NESTED) {
        const uint32_t *ea = (const uint32_t *)g->entry_at.data;
        entries = 0;
        for (size_t k = 0; k < n; k++) entries += ea[rows[k] + 1] - ea[rows[k]];
    }
    if (inl_buf_sized(&d->pick, a, entries * 4) || (want_def && inl_buf_reserve(&dst->def, a, entries * 2)) ||
        (want_rep && inl_buf_reserve(&dst->rep, a, entries * 2)))
        return -1;
    uint32_t *pick = (uint32_t *)d->pick.data;
    int16_t *def = want_def ? (int16_t *)(dst->def.data + dst->def.len) : NULL;
    int16_t *rep = want_rep ? (int16_t *)(dst->rep.data + dst->rep.len) : NULL;
    size_t m = 0;
    switch (g->kind) {
    case G_PLAIN:
        for (size_t k = 0; k < n; k++) pick[k] = rows[k];
        m = n;
        if (def)
            for (size_t k = 0; k < n; k++) def[k] = g->max_def;
        break;
    case G_VALIDITY: {
        const uint8_t *bits = in->levels.validity;
        for (size_t k = 0; k < n; k++) {
            const uint32_t r = rows[k];
            const bool present = bits[r >> 3] >> (r & 7) & 1;
            if (def) def[k] = present ? g->max_def : 0;
            if (present) pick[m++] = r;   /* a required column's bits are all set (checked) */
        }
        break;
    }
    case G_DEF: {
        const int16_t *idef = in->levels.def;
        const uint32_t *va = (const uint32_t *)g->value_at.data;
        for (size_t k = 0; k < n; k++) {
            const uint32_t r = rows[k];
            def[k] = idef[r];
            if (idef[r] == g->max_def) pick[m++] = va[r];
        }
        break;
    }
    case G_NESTED: {
        const uint32_t *ea = (const uint32_t *)g->entry_at.data, *va = (const uint32_t *)g->value_at.data;
        const int16_t *idef = in->levels.def, *irep = in->levels.rep;
        size_t e = 0;
        for (size_t k = 0; k < n; k++) {
            const uint32_t r = rows[k];
            const size_t ne = ea[r + 1] - ea[r];
            if (def) {
                if (idef) memcpy(def + e, idef + ea[r], ne * 2);
                else
                    for (size_t x = 0; x < ne; x++) def[e + x] = g->max_def;
            }
            memcpy(rep + e, irep + ea[r], ne * 2);
            for (uint32_t v = va[r]; v < va[r + 1]; v++) pick[m++] = v;
            e += ne;
        }
        break;
    }
    }
    if (rep && g->kind != G_NESTED) memset(rep, 0, entries * 2);   /* one entry per row */
    if (def) dst->def.len += entries * 2;
    if (rep) dst->rep.len += entries * 2;
    dst->entries += entries;
    *npick = m;
    return 0;
}

/* Rows rows[0..n) of column i appended to partition p's waiting rows. */
static int gather_rows(inlay_dataset *d, int i, part *p, const uint32_t *rows, size_t n)
{
    gather *g = &d->g[i];
    raw_col *dst = &p->raw[i];
    const inlay_allocator *a = &d->alloc;
    size_t m;
    if (gather_levels(d, g, rows, n, dst, &m)) return -1;
    const uint32_t *pick = (const uint32_t *)d->pick.data;
    const size_t vs = g->vsize;
    if (inl_buf_reserve(&dst->vals, a, m * vs)) return -1;
    uint8_t *o = dst->vals.data + dst->vals.len;
    if (g->is_bytes) {
        /* the caller's strings need not outlive the call: copied into the arena, kept as offsets */
        const inlay_bytes *src = g->in->values;
        size_t total = 0;
        for (size_t k = 0; k < m; k++) total += src[pick[k]].len;
        if (inl_buf_reserve(&p->arena, a, total)) return -1;
        for (size_t k = 0; k < m; k++) {
            const inlay_bytes v = src[pick[k]];
            const inlay_bytes ref = { (const void *)(uintptr_t)p->arena.len, v.len };
            if (v.len) memcpy(p->arena.data + p->arena.len, v.data, v.len);
            p->arena.len += v.len;
            memcpy(o + k * sizeof ref, &ref, sizeof ref);
        }
    } else {
        copy_values(o, g->in->values, pick, m, vs);
    }
    dst->vals.len += m * vs;
    dst->values += m;
    return 0;
}

/* The room a partition's waiting rows hold. */
static size_t raw_room(const inlay_dataset *d, const part *p)
{
    size_t room = p->arena.cap;
    for (int i = 0; i < d->nleaves; i++)
        room += p->raw[i].vals.cap + p->raw[i].def.cap + p->raw[i].rep.cap;
    return room;
}

static void count_raw(inlay_dataset *d, part *p)
{
    const size_t room = raw_room(d, p);
    d->raw_total += room - p->raw_bytes;
    p->raw_bytes = room;
}

/* The entries of column i's next `rows` waiting rows, from entry `from`. */
static size_t entries_of(const raw_col *r, const gather *g, size_t from, uint64_t rows)
{
    if (!g->max_rep) return (size_t)rows;
    const int16_t *rep = (const int16_t *)r->rep.data;
    size_t e = from;
    uint64_t seen = 0;
    while (e < r->entries) {
        if (rep[e] == 0 && seen++ == rows) break;
        e++;
    }
    return e - from;
}

/* A file between bursts: its writer gives back what it keeps only to go
 * faster (inl_writer_trim). */
static int trim(inlay_dataset *d, part *p)
{
    const int st = inl_writer_trim(p->w);
    if (st) return failed_from(d, st, p->w, NULL);
    inlay_writer_stats ws;
    inlay_writer_get_stats(p->w, &ws);
    d->buffered -= p->buffered - ws.bytes_buffered;
    p->buffered = ws.bytes_buffered;
    return 0;
}

/* Partition pi's waiting rows into its file (files rolled as they fill),
 * then its writer trimmed. `release`: the waiting rows' room goes too. */
static int flush_part(inlay_dataset *d, size_t pi, bool release)
{
    part *p = &d->parts[pi];
    const inlay_allocator *a = &d->alloc;
    for (int i = 0; i < d->nleaves; i++) d->cursor_entry[i] = d->cursor_value[i] = 0;
    uint64_t done = 0;
    while (done < p->raw_rows) {
        if (!p->w) INL_FORWARD(open_file(d, pi));
        const bool full = p->shortened && !d->keep;   /* the file's schema is the dataset's own */
        uint64_t take = p->raw_rows - done;
        if (d->max_file_rows && take > d->max_file_rows - p->file_rows) take = d->max_file_rows - p->file_rows;
        if (d->max_file_bytes && take > d->flush_rows) take = d->flush_rows;   /* the size is looked at between */
        int nb = 0;
        for (int i = 0; i < d->nleaves; i++) {
            if (d->file_col[i] < 0 && !full) continue;
            const raw_col *r = &p->raw[i];
            gather *g = &d->g[i];
            const size_t e0 = d->cursor_entry[i], v0 = d->cursor_value[i];
            const size_t ne = entries_of(r, g, e0, take);
            const int16_t *def = g->max_def ? (const int16_t *)r->def.data + e0 : NULL;
            size_t nv = ne;
            if (def) {
                nv = 0;
                for (size_t e = 0; e < ne; e++) nv += def[e] == g->max_def;
            }
            inlay_column_batch *b = &d->out[nb++];
            memset(b, 0, sizeof *b);
            b->column = full ? i : d->file_col[i];
            b->count = ne;
            b->levels.def = def;
            b->levels.rep = g->max_rep ? (const int16_t *)r->rep.data + e0 : NULL;
            if (g->is_bytes) {
                if (inl_buf_sized(&g->views, a, nv * sizeof(inlay_bytes)))
                    return failed_from(d, INLAY_ERR_NOMEM, NULL, "splitting rows");
                const inlay_bytes *ref = (const inlay_bytes *)r->vals.data + v0;
                inlay_bytes *view = (inlay_bytes *)g->views.data;
                for (size_t k = 0; k < nv; k++)
                    view[k] = (inlay_bytes){ p->arena.data + (uintptr_t)ref[k].data, ref[k].len };
                b->values = view;
            } else {
                b->values = r->vals.data + v0 * g->vsize;
            }
            d->cursor_entry[i] = e0 + ne;
            d->cursor_value[i] = v0 + nv;
        }
        const int st = inl_writer_append_checked(p->w, d->out, nb);
        if (st) return failed_from(d, st, p->w, NULL);
        p->file_rows += take;
        done += take;
        inlay_writer_stats ws;
        inlay_writer_get_stats(p->w, &ws);
        d->buffered += ws.bytes_buffered - p->buffered;
        p->buffered = ws.bytes_buffered;
        if ((d->max_file_rows && p->file_rows >= d->max_file_rows) ||
            (d->max_file_bytes && ws.bytes_written + ws.bytes_buffered >= d->max_file_bytes))
            INL_FORWARD(close_file(d, pi));
    }
    for (int i = 0; i < d->nleaves; i++) {
        raw_col *r = &p->raw[i];
        r->vals.len = r->def.len = r->rep.len = 0;
        r->entries = r->values = 0;
        if (release) {
            inl_buf_free(&r->vals, a);
            inl_buf_free(&r->def, a);
            inl_buf_free(&r->rep, a);
        }
    }
    p->arena.len = 0;
    if (release) inl_buf_free(&p->arena, a);
    p->raw_rows = 0;
    count_raw(d, p);
    if (p->w) {
        p->used = d->appends;
        return trim(d, p);
    }
    return 0;
}

static int cmp_size_desc(const void *x, const void *y)
{
    const uint64_t *a = x, *b = y;   /* {size, index} */
    return a[0] < b[0] ? 1 : a[0] > b[0] ? -1 : (a[1] > b[1]) - (a[1] < b[1]);
}

/* Past max_buffered_bytes: the largest holders give back until half of it
 * is held: a partition's waiting rows go to its file (their room freed),
 * an open file ends its row group. */
static int bound_memory(inlay_dataset *d)
{
    if (d->raw_total + d->buffered <= d->max_buffered_bytes) return 0;
    const size_t n = d->nparts + (size_t)d->nopen;
    if (inl_buf_sized(&d->by_size, &d->alloc, n * 16)) return failed_from(d, INLAY_ERR_NOMEM, NULL, "bounding memory");
    uint64_t *e = (uint64_t *)d->by_size.data;
    size_t m = 0;
    for (size_t i = 0; i < d->nparts; i++)
        if (d->parts[i].raw_bytes) e[2 * m] = d->parts[i].raw_bytes, e[2 * m++ + 1] = i;   /* room of rows gone on counts too */
    for (int i = 0; i < d->nopen; i++)   /* open files as nparts + their partition */
        if (d->parts[d->open[i]].buffered) e[2 * m] = d->parts[d->open[i]].buffered, e[2 * m++ + 1] = d->nparts + d->open[i];
    qsort(e, m, 16, cmp_size_desc);
    for (size_t k = 0; k < m && d->raw_total + d->buffered > d->max_buffered_bytes / 2; k++) {
        const size_t x = (size_t)e[2 * k + 1];
        if (x < d->nparts) {
            INL_FORWARD(flush_part(d, x, true));
            continue;
        }
        part *p = &d->parts[x - d->nparts];
        if (!p->w || !p->buffered) continue;   /* closed meanwhile */
        const int st = inlay_writer_flush_row_group(p->w);
        if (st) return failed_from(d, st, p->w, NULL);
        INL_FORWARD(trim(d, p));
    }
    return 0;
}

static int grow_parts(inlay_dataset *d)
{
    const size_t want = d->parts_of.count;
    if (want <= d->nparts) return 0;
    if (want > d->parts_cap) {
        size_t cap = d->parts_cap ? d->parts_cap : 16;
        while (cap < want) cap *= 2;
        part *np = inl_mem_realloc(&d->alloc, d->parts, d->parts_cap * sizeof *np, cap * sizeof *np);
        if (!np) return -1;
        d->parts = np;
        d->parts_cap = cap;
    }
    for (size_t i = d->nparts; i < want; i++) {
        part *p = &d->parts[i];
        memset(p, 0, sizeof *p);
        p->open_slot = -1;
        if (!(p->raw = inl_mem_alloc(&d->alloc, (size_t)d->nleaves * sizeof *p->raw))) return -1;
        memset(p->raw, 0, (size_t)d->nleaves * sizeof *p->raw);
        d->nparts = i + 1;
    }
    return 0;
}

/* A refused value: the checker's message, rows counted over the dataset. */
static int refused(inlay_dataset *d, int st)
{
    if (st == INLAY_ERR_NOMEM || st == INLAY_ERR_IO || st == INLAY_ERR_COMPRESS)
        return failed_from(d, st, d->checker, NULL);
    inlay_error_info info;
    inlay_writer_error_info(d->checker, &info);
    if (info.column >= 0 && info.row >= 0)
        return inl_err_at(&d->err, st, "column", d->schema->leaves[info.column].path, info.column,
                          d->rows + (uint64_t)info.row, "%s", info.reason);
    return set_error(d, st, "%s", inlay_writer_errmsg(d->checker));
}

int inlay_dataset_append_columns(inlay_dataset *d, const inlay_column_batch *batches, int n)
{
    if (!d) return INLAY_ERR_ARGUMENT;
    INL_FORWARD(usable(d));
    if (n < 0 || (n && !batches)) return set_error(d, INLAY_ERR_ARGUMENT, "no batches");
    if (n != d->nleaves)
        return set_error(d, INLAY_ERR_ARGUMENT, "a dataset append takes every column: %d batches for %d columns", n,
                         d->nleaves);
    int st = inl_writer_check_columns(d->checker, batches, n);
    if (st) return refused(d, st);
    /* every column once (the checker saw to that) and the same rows in each */
    size_t rows = 0;
    for (int b = 0; b < n; b++) {
        size_t r;
        const int col = batches[b].column;
        if (gather_prepare(d, col, &batches[b], &r)) return failed_from(d, INLAY_ERR_NOMEM, NULL, "splitting rows");
        if (b == 0) rows = r;
        if (r != rows)
            return set_error(d, INLAY_ERR_ARGUMENT, "column '%s' has %zu rows and column '%s' %zu: a dataset append "
                             "takes whole rows", d->schema->leaves[batches[0].column].path, rows,
                             d->schema->leaves[col].path, r);
        for (int k = 0; k < d->nby; k++)
            if (d->by_leaf[k] == col) d->by_batch[k] = &batches[b];
    }
    if (rows > UINT32_MAX) return set_error(d, INLAY_ERR_ARGUMENT, "%zu rows in one append; at most %u", rows, UINT32_MAX);
    if (!rows) return 0;
    size_t ntouched;
    if (inl_partition_batch(&d->parts_of, d->by_batch, rows, &ntouched) || grow_parts(d))
        return failed_from(d, INLAY_ERR_NOMEM, NULL, "partitioning rows");
    d->appends++;
    const uint32_t *touched = (const uint32_t *)d->parts_of.touched.data;
    const size_t *start = (const size_t *)d->parts_of.starts.data;
    const uint32_t *order = (const uint32_t *)d->parts_of.order.data;
    /* every row waits in its partition first; nothing reaches a file before all are there */
    for (size_t t = 0; t < ntouched; t++) {
        part *p = &d->parts[touched[t]];
        const size_t k = start[t + 1] - start[t];
        if (!p->dir_known) INL_FORWARD(partition_dir(d, touched[t]));
        for (int i = 0; i < d->nleaves; i++) {
            if (d->file_col[i] < 0 && !p->shortened) continue;
            if (gather_rows(d, i, p, order + start[t], k)) {
                set_error(d, INLAY_ERR_NOMEM, "splitting rows: out of memory");
                return set_failed_msg(d, INLAY_ERR_NOMEM);
            }
        }
        p->raw_rows += k;
        count_raw(d, p);
    }
    d->rows += rows;
    /* a page's worth, or the rest of a file, goes on to the file: pages
     * are made whole, and a file that fills is published as it fills */
    for (size_t t = 0; t < ntouched; t++) {
        const part *p = &d->parts[touched[t]];
        if (p->raw_rows >= d->flush_rows || (d->max_file_rows && p->file_rows + p->raw_rows >= d->max_file_rows))
            INL_FORWARD(flush_part(d, touched[t], false));
    }
    return bound_memory(d);
}

int inlay_dataset_append_arrow(inlay_dataset *d, const struct ArrowArray *array, const struct ArrowSchema *schema)
{
    if (!d) return INLAY_ERR_ARGUMENT;
    INL_FORWARD(usable(d));
    if (!array || !schema) return set_error(d, INLAY_ERR_ARGUMENT, "no Arrow array or schema");
    arrow_batches b;
    const int st = inl_arrow_stage(&d->arrow, &d->alloc, d->schema, NULL, d->rows, array, schema, &d->err, &b);
    if (st == INLAY_ERR_NOMEM) return failed_from(d, st, NULL, "reading an Arrow record batch");
    if (st) return st;
    return inlay_dataset_append_columns(d, b.batches, b.n);
}

/* ---- close ------------------------------------------------------------------- */

/* Write root/<name> from data[0..n), through a temporary renamed into place. */
static int publish(inlay_dataset *d, const char *name, const void *data, size_t n)
{
    char tmp[160];
    snprintf(tmp, sizeof tmp, "%s.%d.tmp", name, (int)getpid());
    INL_FORWARD(root_path(d, tmp));
    char *tpath = inl_mem_strdup(&d->alloc, (const char *)d->path.data);
    if (!tpath) return set_error(d, INLAY_ERR_NOMEM, "out of memory");
    int st = root_path(d, name);
    char why[128];
    int fd = st ? -1 : open(tpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (!st && fd < 0) st = set_error(d, INLAY_ERR_IO, "writing '%s': %s", tpath, inl_sys_reason(errno, why, sizeof why));
    const uint8_t *p = data;
    while (!st && n) {
        const ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            st = set_error(d, INLAY_ERR_IO, "writing '%s': %s", tpath, inl_sys_reason(errno, why, sizeof why));
            break;
        }
        p += w;
        n -= (size_t)w;
    }
    if (!st && d->file_opts.sync && fsync(fd))
        st = set_error(d, INLAY_ERR_IO, "syncing '%s': %s", tpath, inl_sys_reason(errno, why, sizeof why));
    if (fd >= 0 && close(fd) && !st)
        st = set_error(d, INLAY_ERR_IO, "closing '%s': %s", tpath, inl_sys_reason(errno, why, sizeof why));
    if (!st && rename(tpath, (const char *)d->path.data))
        st = set_error(d, INLAY_ERR_IO, "renaming '%s': %s", tpath, inl_sys_reason(errno, why, sizeof why));
    if (st) unlink(tpath);
    inl_mem_strfree(&d->alloc, tpath);
    return st;
}

static int write_manifest(inlay_dataset *d)
{
    buf *t = &d->text;
    const inlay_allocator *a = &d->alloc;
    t->len = 0;
    int st = inl_buf_append(t, a, "{\"shard\":", 9) || json_string(t, a, (const uint8_t *)d->shard, strlen(d->shard)) ||
             inl_buf_append(t, a, ",\n\"partition_by\":[", 18);
    for (int k = 0; !st && k < d->nby; k++)
        st = (k && inl_buf_append(t, a, ",", 1)) ||
             json_string(t, a, (const uint8_t *)d->by_names[k], strlen(d->by_names[k]));
    if (!st) st = inl_buf_append(t, a, "],\n\"files\":[\n", 13);
    /* one line per file: the earlier run's (append), then this run's */
    const buf *lists[2] = { &d->earlier, &d->manifest };
    bool first = true;
    for (int l = 0; !st && l < 2; l++) {
        const char *s = (const char *)lists[l]->data, *end = s + lists[l]->len;
        while (!st && s < end) {
            const char *nl = memchr(s, '\n', (size_t)(end - s));
            const size_t len = (size_t)((nl ? nl : end) - s);
            st = (!first && inl_buf_append(t, a, ",\n", 2)) || inl_buf_append(t, a, "  ", 2) ||
                 inl_buf_append(t, a, s, len);
            first = false;
            s += len + 1;
        }
    }
    char tail[160];
    const int n = snprintf(tail, sizeof tail, "\n],\n\"rows\":%llu,\n\"bytes\":%llu\n}\n",
                           (unsigned long long)(d->earlier_rows + d->rows),
                           (unsigned long long)(d->earlier_bytes + d->bytes));
    if (st || inl_buf_append(t, a, tail, (size_t)n)) return set_error(d, INLAY_ERR_NOMEM, "out of memory");
    char name[128];
    manifest_name(d, name, sizeof name);
    return publish(d, name, t->data, t->len);
}

/* INLAY_EXISTING_REPLACE_SHARD: the shard's files of before that this run
 * did not write again. */
static int remove_replaced(inlay_dataset *d)
{
    const char *s = (const char *)d->old_files.data, *end = s + d->old_files.len;
    for (; s < end; s += strlen(s) + 1) {
        const char *base = strrchr(s, '/');
        base = base ? base + 1 : s;
        const int64_t seq = shard_seq(d->shard, base);
        if (seq >= 0 && (uint64_t)seq < d->next_seq) {
            /* a name this run used: replaced only if it is this run's file (same folder) */
            const char *m = (const char *)d->manifest.data, *mend = m + d->manifest.len;
            bool ours = false;
            const size_t sl = strlen(s);
            for (; m < mend && !ours; m = memchr(m, '\n', (size_t)(mend - m)) + 1) {
                ours = !strncmp(m, "{\"path\":\"", 9) && !strncmp(m + 9, s, sl) && m[9 + sl] == '"';
                if (!memchr(m, '\n', (size_t)(mend - m))) break;
            }
            if (ours) continue;
        }
        INL_FORWARD(root_path(d, s));
        if (unlink((const char *)d->path.data) && errno != ENOENT) {
            char why[128];
            return set_error(d, INLAY_ERR_IO, "removing '%s': %s", (const char *)d->path.data,
                             inl_sys_reason(errno, why, sizeof why));
        }
    }
    return 0;
}

int inlay_dataset_close(inlay_dataset *d)
{
    if (!d) return INLAY_ERR_ARGUMENT;
    INL_FORWARD(usable(d));
    for (size_t i = 0; i < d->nparts; i++)
        if (d->parts[i].raw_rows) INL_FORWARD(flush_part(d, i, true));
    while (d->nopen) INL_FORWARD(close_file(d, d->open[0]));
    /* the manifest's own path first, so that a failure after it is published can take it back */
    char name[128];
    manifest_name(d, name, sizeof name);
    char *manifest = root_path(d, name) ? NULL : inl_mem_strdup(&d->alloc, (const char *)d->path.data);
    if (!manifest) return failed_from(d, INLAY_ERR_NOMEM, NULL, "writing the manifest");
    int st = write_manifest(d);
    const bool published = !st;
    if (!st && d->existing == INLAY_EXISTING_REPLACE_SHARD) st = remove_replaced(d);
    if (!st) st = publish(d, "_SUCCESS", "", 0);
    if (st && published) unlink(manifest);
    inl_mem_strfree(&d->alloc, manifest);
    if (st) return set_failed_msg(d, st);
    d->state = D_CLOSED;
    return 0;
}

void inlay_dataset_abort(inlay_dataset *d)
{
    if (!d || d->state == D_CLOSED || d->state == D_ABORTED) return;
    for (size_t i = 0; i < d->nparts; i++)
        if (d->parts[i].w) {
            inlay_writer_free(d->parts[i].w);   /* aborts: its temporary goes */
            d->parts[i].w = NULL;
            d->parts[i].open_slot = -1;
        }
    d->nopen = 0;
    d->buffered = 0;
    d->state = D_ABORTED;
}

static void free_all(inlay_dataset *d)
{
    const inlay_allocator *a = &d->alloc;
    inlay_writer_free(d->checker);
    inl_arrow_free(d->arrow);
    d->arrow = NULL;
    for (size_t i = 0; i < d->nparts; i++) {
        inlay_writer_free(d->parts[i].w);
        if (d->parts[i].dir) inl_mem_free(a, d->parts[i].dir, d->parts[i].dir_size);
        if (d->parts[i].file) inl_mem_free(a, d->parts[i].file, d->parts[i].file_size);
        if (d->parts[i].raw) {
            for (int c = 0; c < d->nleaves; c++) {
                inl_buf_free(&d->parts[i].raw[c].vals, a);
                inl_buf_free(&d->parts[i].raw[c].def, a);
                inl_buf_free(&d->parts[i].raw[c].rep, a);
            }
            inl_mem_free(a, d->parts[i].raw, (size_t)d->nleaves * sizeof *d->parts[i].raw);
        }
        inl_buf_free(&d->parts[i].arena, a);
    }
    if (d->parts) inl_mem_free(a, d->parts, d->parts_cap * sizeof *d->parts);
    inl_partitioner_free(&d->parts_of);
    const size_t nl = (size_t)d->nleaves;
    if (d->g) {
        for (size_t i = 0; i < nl; i++) {
            inl_buf_free(&d->g[i].entry_at, a);
            inl_buf_free(&d->g[i].value_at, a);
            inl_buf_free(&d->g[i].views, a);
        }
        inl_mem_free(a, d->g, nl * sizeof *d->g);
    }
    if (d->out) inl_mem_free(a, d->out, nl * sizeof *d->out);
    if (d->file_col) inl_mem_free(a, d->file_col, nl * sizeof *d->file_col);
    if (d->is_partition) inl_mem_free(a, d->is_partition, nl + 1);
    if (d->by_leaf) inl_mem_free(a, d->by_leaf, (size_t)d->nby * sizeof *d->by_leaf);
    if (d->by_batch) inl_mem_free(a, d->by_batch, (size_t)d->nby * sizeof *d->by_batch);
    if (d->by_names) {
        for (int k = 0; k < d->nby; k++)
            if (d->by_names[k]) inl_mem_strfree(a, d->by_names[k]);
        inl_mem_free(a, d->by_names, (size_t)d->nby * sizeof *d->by_names);
    }
    if (d->open) inl_mem_free(a, d->open, (size_t)d->max_open_files * sizeof *d->open);
    if (d->sorting) {
        for (size_t i = 0; i < d->file_opts.sorting_columns_count; i++)
            if (d->sorting[i].column) inl_mem_strfree(a, (char *)d->sorting[i].column);
        inl_mem_free(a, d->sorting, d->file_opts.sorting_columns_count * sizeof *d->sorting);
    }
    if (d->kv) {
        for (size_t i = 0; i < d->file_opts.metadata_count; i++) {
            if (d->kv[i].key) inl_mem_strfree(a, (char *)d->kv[i].key);
            if (d->kv[i].value) inl_mem_strfree(a, (char *)d->kv[i].value);
        }
        inl_mem_free(a, d->kv, d->file_opts.metadata_count * sizeof *d->kv);
    }
    inlay_schema_free(d->schema);
    inlay_schema_free(d->file_schema);
    if (d->root) inl_mem_free(a, d->root, strlen(d->root) + 1);
    if (d->cursor_entry) inl_mem_free(a, d->cursor_entry, nl * sizeof *d->cursor_entry);
    if (d->cursor_value) inl_mem_free(a, d->cursor_value, nl * sizeof *d->cursor_value);
    buf *bufs[] = { &d->manifest, &d->earlier, &d->old_files, &d->text, &d->path, &d->pick, &d->by_size };
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) inl_buf_free(bufs[i], a);
}

void inlay_dataset_free(inlay_dataset *d)
{
    if (!d) return;
    inlay_dataset_abort(d);
    free_all(d);
    const inlay_allocator a = d->alloc;
    inl_mem_free(&a, d, sizeof *d);
}
