/*
 * reader.c — the public reader: open (footer, schema), select fields and
 * row groups, and read batches (see the Reader section of inlay.h).
 *
 * A reader owns one chunk reader per leaf column (used for the selected
 * fields' leaves) and one node tree per selected field. A batch takes the
 * same number of rows from every selected leaf's chunk, then assembles
 * each field's arrays from them; it never crosses a row group, so a
 * chunk's bytes are fetched once per row group and dropped at the next.
 */
#include <stdio.h>

#include "alloc.h"
#include "assemble.h"
#include "chunk.h"
#include "decompress.h"
#include "error.h"
#include "fetch.h"
#include "footer.h"

struct inlay_reader {
    inlay_allocator alloc;
    inl_err err;
    fetch src;
    bool src_open;
    rd_meta meta;
    decompressor dz;
    size_t batch_rows;
    buf footer;

    chunk_reader *cols;         /* one per leaf */
    bool *col_used;
    int *fields;                /* selected top-level field nodes' numbers */
    asm_node *trees;            /* one per selected field */
    int nfields;
    int *groups;                /* selected row groups */
    int ngroups;
    int next_group;             /* index into groups of the next row group to start */
    int cur_group;              /* row group being read, -1 none */
    uint64_t rows_left;         /* of cur_group */
    uint64_t *group_first_row;  /* file row of each row group's first row */
    uint64_t batch_first_row;
    int batch_group;
    int top_count;              /* top-level fields */
    int *top_nodes;             /* their schema node ids */
};

/* Arrays of the reader carry one spare byte, so that a count of zero is
 * still an allocation (a NULL then means out of memory). */
static void *array_alloc(const inlay_allocator *a, size_t n, size_t size)
{
    return inl_mem_alloc(a, n * size + 1);
}

static void array_free(const inlay_allocator *a, void *p, size_t n, size_t size)
{
    if (p) inl_mem_free(a, p, n * size + 1);
}

void inlay_read_options_init(inlay_read_options *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->batch_rows = INLAY_DEFAULT_BATCH_ROWS;
}

static void free_selection(inlay_reader *r)
{
    const inlay_allocator *a = &r->alloc;
    for (int i = 0; i < r->nfields; i++) inl_asm_free(&r->trees[i], a);
    array_free(a, r->trees, (size_t)r->nfields, sizeof *r->trees);
    array_free(a, r->fields, (size_t)r->nfields, sizeof *r->fields);
    array_free(a, r->groups, (size_t)r->ngroups, sizeof *r->groups);
    r->trees = NULL;
    r->fields = r->groups = NULL;
    r->nfields = r->ngroups = 0;
}

void inlay_reader_free(inlay_reader *r)
{
    if (!r) return;
    const inlay_allocator *a = &r->alloc;
    free_selection(r);
    int ncols = r->meta.info.num_columns;
    if (r->cols) {
        for (int i = 0; i < ncols; i++) inl_chunk_free(&r->cols[i], a);
        array_free(a, r->cols, (size_t)ncols, sizeof *r->cols);
    }
    array_free(a, r->col_used, (size_t)ncols, sizeof *r->col_used);
    array_free(a, r->group_first_row, (size_t)r->meta.info.num_row_groups, sizeof *r->group_first_row);
    array_free(a, r->top_nodes, (size_t)r->top_count, sizeof *r->top_nodes);
    inl_rd_meta_free(&r->meta, a);
    inl_decompress_free(&r->dz);
    inl_buf_free(&r->footer, a);
    if (r->src_open) inl_fetch_close(&r->src);
    inlay_allocator keep = r->alloc;
    inl_mem_free(&keep, r, sizeof *r);
}

const char *inlay_reader_errmsg(const inlay_reader *r)
{
    return r ? r->err.msg : "no reader";
}

int inlay_reader_status(const inlay_reader *r)
{
    return r ? r->err.status : INLAY_ERR_ARGUMENT;
}

const inlay_schema *inlay_reader_schema(const inlay_reader *r)
{
    return r ? r->meta.schema : NULL;
}

const inlay_file_info *inlay_reader_info(const inlay_reader *r)
{
    return r ? &r->meta.info : NULL;
}

/* The footer: "PAR1" at both ends, the FileMetaData before the last 8
 * bytes, its length in the 4 before "PAR1". */
static int read_footer(inlay_reader *r)
{
    const uint64_t size = r->src.size;
    int status = 0;
    if (size < 12) return inl_err_set(&r->err, INLAY_ERR_FORMAT, "'%s' is not a Parquet file: %llu bytes is too short",
                                      r->src.name, (unsigned long long)size);
    const uint8_t *tail = inl_fetch_range(&r->src, size - 8, 8, &r->footer, &r->alloc, &r->err, "the footer", &status);
    if (!tail) return status;
    if (memcmp(tail + 4, "PAR1", 4) != 0)
        return inl_err_set(&r->err, INLAY_ERR_FORMAT, "'%s' is not a Parquet file (no PAR1 at its end)", r->src.name);
    uint32_t len = (uint32_t)tail[0] | (uint32_t)tail[1] << 8 | (uint32_t)tail[2] << 16 | (uint32_t)tail[3] << 24;
    if ((uint64_t)len + 12 > size)
        return inl_err_set(&r->err, INLAY_ERR_FORMAT, "'%s': the footer claims %u bytes, the file has %llu", r->src.name,
                           len, (unsigned long long)size);
    const uint8_t *head = inl_fetch_range(&r->src, 0, 4, &r->footer, &r->alloc, &r->err, "the header", &status);
    if (!head) return status;
    if (memcmp(head, "PAR1", 4) != 0)
        return inl_err_set(&r->err, INLAY_ERR_FORMAT, "'%s' is not a Parquet file (no PAR1 at its start)", r->src.name);
    const uint8_t *meta = inl_fetch_range(&r->src, size - 8 - len, len, &r->footer, &r->alloc, &r->err, "the footer",
                                          &status);
    if (!meta) return status;
    int rc = inl_rd_meta_parse(&r->meta, meta, len, size, &r->alloc, &r->err);
    if (rc) {
        if (rc == INLAY_ERR_FORMAT && strncmp(r->err.msg, r->src.name, strlen(r->src.name)) != 0) {
            char msg[sizeof r->err.msg];
            snprintf(msg, sizeof msg, "%s", r->err.msg);
            inl_err_set(&r->err, rc, "'%s': %s", r->src.name, msg);
        }
        return rc;
    }
    return INLAY_OK;
}

static int nomem(inlay_reader *r)
{
    return inl_err_set(&r->err, INLAY_ERR_NOMEM, "out of memory");
}

static int prepare(inlay_reader *r)
{
    INL_FORWARD(read_footer(r));
    const inlay_allocator *a = &r->alloc;
    const int ncols = r->meta.info.num_columns, ngroups = r->meta.info.num_row_groups;
    r->cols = array_alloc(a, (size_t)ncols, sizeof *r->cols);
    r->col_used = array_alloc(a, (size_t)ncols, sizeof *r->col_used);
    r->group_first_row = array_alloc(a, (size_t)ngroups, sizeof *r->group_first_row);
    if (r->cols) memset(r->cols, 0, (size_t)ncols * sizeof *r->cols);
    if (!r->cols || !r->col_used || !r->group_first_row) return nomem(r);
    for (int i = 0; i < ncols; i++) inl_chunk_init(&r->cols[i], &r->meta, i);
    uint64_t row = 0;
    for (int g = 0; g < ngroups; g++) {
        r->group_first_row[g] = row;
        row += (uint64_t)r->meta.info.row_groups[g].num_rows;
    }
    const inlay_schema *s = r->meta.schema;
    r->top_count = s->nodes[0].num_children;
    r->top_nodes = array_alloc(a, (size_t)r->top_count, sizeof *r->top_nodes);
    if (!r->top_nodes) return nomem(r);
    int k = 0;
    for (int n = s->nodes[0].first_child; n >= 0 && k < r->top_count; n = s->nodes[n].next_sibling) r->top_nodes[k++] = n;
    if (k != r->top_count) return inl_err_set(&r->err, INLAY_ERR_FORMAT, "'%s': the schema's root is malformed", r->src.name);
    return inlay_reader_select(r, NULL, 0, NULL, 0);
}

static int open_with(inlay_reader **out, const inlay_read_options *o, int (*source)(inlay_reader *, void *), void *ctx)
{
    *out = NULL;
    inlay_allocator a = inl_mem_or_default(o ? &o->alloc : NULL);
    inlay_reader *r = inl_mem_alloc(&a, sizeof *r);
    if (!r) return INLAY_ERR_NOMEM;
    memset(r, 0, sizeof *r);
    r->alloc = a;
    r->cur_group = r->batch_group = -1;
    r->batch_rows = o && o->batch_rows ? o->batch_rows : INLAY_DEFAULT_BATCH_ROWS;
    if (r->batch_rows > INT32_MAX) r->batch_rows = INT32_MAX;
    inl_decompress_init(&r->dz, &r->alloc);
    inl_err_clear(&r->err);
    *out = r;
    if (o && o->struct_size != sizeof *o)
        return inl_err_set(&r->err, INLAY_ERR_ARGUMENT, "inlay_read_options not set up by inlay_read_options_init");
    int rc = source(r, ctx);
    if (rc) return rc;
    return prepare(r);
}

static int source_file(inlay_reader *r, void *path)
{
    int rc = inl_fetch_open_file(&r->src, path, &r->err);
    r->src_open = rc == 0;
    return rc;
}

typedef struct memory_ctx { const void *data; size_t len; } memory_ctx;

static int source_memory(inlay_reader *r, void *ctx)
{
    const memory_ctx *m = ctx;
    inl_fetch_open_memory(&r->src, m->data, m->len);
    r->src_open = true;
    return INLAY_OK;
}

static int source_stream(inlay_reader *r, void *ctx)
{
    int rc = inl_fetch_open_stream(&r->src, *(const inlay_read_stream *)ctx, &r->err);
    r->src_open = true;   /* closed by free, failure or not */
    return rc;
}

int inlay_reader_open_file(inlay_reader **out, const char *path, const inlay_read_options *o)
{
    if (!out) return INLAY_ERR_ARGUMENT;
    if (!path) {
        *out = NULL;
        return INLAY_ERR_ARGUMENT;
    }
    return open_with(out, o, source_file, (void *)path);
}

int inlay_reader_open_memory(inlay_reader **out, const void *data, size_t len, const inlay_read_options *o)
{
    if (!out) return INLAY_ERR_ARGUMENT;
    if (!data && len) {
        *out = NULL;
        return INLAY_ERR_ARGUMENT;
    }
    memory_ctx m = { data, len };
    return open_with(out, o, source_memory, &m);
}

int inlay_reader_open_stream(inlay_reader **out, inlay_read_stream stream, const inlay_read_options *o)
{
    if (!out) {
        if (stream.close) stream.close(stream.ctx);
        return INLAY_ERR_ARGUMENT;
    }
    int rc = open_with(out, o, source_stream, &stream);
    if (rc && !*out && stream.close) stream.close(stream.ctx);
    return rc;
}

int inlay_reader_field(const inlay_reader *r, const char *name)
{
    if (!r || !name || !r->meta.schema) return -1;
    for (int i = 0; i < r->top_count; i++)
        if (strcmp(r->meta.schema->nodes[r->top_nodes[i]].name, name) == 0) return i;
    return -1;
}

static void mark_leaves(inlay_reader *r, int node)
{
    const inlay_schema *s = r->meta.schema;
    if (!s->nodes[node].is_group) {
        for (int i = 0; i < s->num_leaves; i++)
            if (s->leaves[i].node == node) r->col_used[i] = true;
        return;
    }
    for (int k = s->nodes[node].first_child; k >= 0; k = s->nodes[k].next_sibling) mark_leaves(r, k);
}

int inlay_reader_select(inlay_reader *r, const int *fields, int nfields, const int *row_groups, int nrow_groups)
{
    if (!r || !r->meta.schema) return INLAY_ERR_ARGUMENT;
    const int ngroups_file = r->meta.info.num_row_groups;
    if (nfields < 0 || nrow_groups < 0 || (nfields && !fields) || (nrow_groups && !row_groups))
        return inl_err_set(&r->err, INLAY_ERR_ARGUMENT, "select: bad arguments");
    for (int i = 0; i < nfields; i++) {
        if (fields[i] < 0 || fields[i] >= r->top_count)
            return inl_err_set(&r->err, INLAY_ERR_ARGUMENT, "select: no field number %d (the file has %d)", fields[i],
                               r->top_count);
        for (int j = 0; j < i; j++)
            if (fields[j] == fields[i])
                return inl_err_set(&r->err, INLAY_ERR_ARGUMENT, "select: field %d given twice", fields[i]);
    }
    for (int i = 0; i < nrow_groups; i++)
        if (row_groups[i] < 0 || row_groups[i] >= ngroups_file)
            return inl_err_set(&r->err, INLAY_ERR_ARGUMENT, "select: no row group %d (the file has %d)", row_groups[i],
                               ngroups_file);
    const inlay_allocator *a = &r->alloc;
    int nf = nfields ? nfields : r->top_count, ng = nrow_groups ? nrow_groups : ngroups_file;
    int *f = array_alloc(a, (size_t)nf, sizeof *f);
    int *g = array_alloc(a, (size_t)ng, sizeof *g);
    asm_node *t = array_alloc(a, (size_t)nf, sizeof *t);
    if (!f || !g || !t) {
        array_free(a, f, (size_t)nf, sizeof *f);
        array_free(a, g, (size_t)ng, sizeof *g);
        array_free(a, t, (size_t)nf, sizeof *t);
        return nomem(r);
    }
    memset(t, 0, (size_t)nf * sizeof *t);
    for (int i = 0; i < nf; i++) f[i] = nfields ? fields[i] : i;
    for (int i = 0; i < ng; i++) g[i] = nrow_groups ? row_groups[i] : i;
    for (int i = 0; i < nf; i++) {
        int rc = inl_asm_build(&t[i], r->meta.schema, r->top_nodes[f[i]], a);
        if (rc) {
            for (int j = 0; j <= i; j++) inl_asm_free(&t[j], a);
            array_free(a, f, (size_t)nf, sizeof *f);
            array_free(a, g, (size_t)ng, sizeof *g);
            array_free(a, t, (size_t)nf, sizeof *t);
            return rc == INLAY_ERR_NOMEM ? nomem(r)
                                         : inl_err_set(&r->err, INLAY_ERR_FORMAT, "field '%s' has a shape this reader cannot read",
                                                       r->meta.schema->nodes[r->top_nodes[f[i]]].name);
        }
    }
    free_selection(r);
    r->fields = f;
    r->groups = g;
    r->trees = t;
    r->nfields = nf;
    r->ngroups = ng;
    r->next_group = 0;
    r->cur_group = r->batch_group = -1;
    r->rows_left = 0;
    memset(r->col_used, 0, (size_t)r->meta.info.num_columns * sizeof *r->col_used);
    for (int i = 0; i < nf; i++) mark_leaves(r, r->top_nodes[f[i]]);
    inl_err_clear(&r->err);
    return INLAY_OK;
}

static int start_group(inlay_reader *r, int g)
{
    const inlay_row_group_info *rg = &r->meta.info.row_groups[g];
    for (int i = 0; i < r->meta.info.num_columns; i++) {
        if (!r->col_used[i]) continue;
        const inlay_chunk_info *ci = &rg->chunks[i];
        chunk_reader *c = &r->cols[i];
        if (!inl_codec_supported(ci->codec)) {
            char tmp[32];
            return inl_err_set(&r->err, INLAY_ERR_FORMAT,
                               "row group %d, column '%s': %s is not a codec this build reads (%s)", g,
                               ci->path, inl_codec_name(ci->codec, tmp, sizeof tmp), inl_codec_list());
        }
        int64_t start = ci->data_page_offset;
        if (ci->dictionary_page_offset >= 0 && ci->dictionary_page_offset < start) start = ci->dictionary_page_offset;
        int status = 0;
        char what[96];
        snprintf(what, sizeof what, "row group %d, column chunk %d", g, i);
        const uint8_t *p = inl_fetch_range(&r->src, (uint64_t)start, (size_t)ci->compressed_size, &c->fetched, &r->alloc,
                                           &r->err, what, &status);
        if (!p) return status;
        inl_chunk_start(c, g, ci->codec, p, (size_t)ci->compressed_size, ci->num_values);
    }
    r->cur_group = g;
    r->rows_left = (uint64_t)rg->num_rows;
    return INLAY_OK;
}

int inlay_reader_next(inlay_reader *r, size_t max_rows, size_t *rows)
{
    if (rows) *rows = 0;
    if (!r || !rows || !r->meta.schema) return INLAY_ERR_ARGUMENT;
    if (max_rows == 0) max_rows = r->batch_rows;
    if (max_rows > INT32_MAX) max_rows = INT32_MAX;
    while (r->rows_left == 0) {
        if (r->next_group >= r->ngroups) {
            r->batch_group = -1;
            return INLAY_OK;
        }
        int g = r->groups[r->next_group++];
        r->cur_group = -1;
        INL_FORWARD(start_group(r, g));
    }
    const int g = r->cur_group;
    size_t n = r->rows_left < max_rows ? (size_t)r->rows_left : max_rows;
    for (int i = 0; i < r->meta.info.num_columns; i++) {
        if (!r->col_used[i]) continue;
        size_t got = 0;
        int rc = inl_chunk_take(&r->cols[i], n, &got, &r->dz, &r->alloc, &r->err);
        if (rc) {
            r->rows_left = 0;
            return rc;
        }
        if (got != n) {
            r->rows_left = 0;
            return inl_err_set(&r->err, INLAY_ERR_FORMAT, "row group %d, column '%s': the pages hold fewer rows than the %lld the footer says",
                               g, r->cols[i].path, (long long)r->meta.info.row_groups[g].num_rows);
        }
    }
    for (int k = 0; k < r->nfields; k++) {
        int rc = inl_asm_fill(&r->trees[k], r->cols, n, &r->alloc, &r->err);
        if (rc) {
            r->rows_left = 0;
            if (rc == INLAY_ERR_FORMAT) {
                char msg[sizeof r->err.msg];
                snprintf(msg, sizeof msg, "%s", r->err.msg);
                inl_err_set(&r->err, rc, "row group %d, %s", g, msg);
            }
            return rc;
        }
    }
    r->batch_group = g;
    r->batch_first_row = r->group_first_row[g] + ((uint64_t)r->meta.info.row_groups[g].num_rows - r->rows_left);
    r->rows_left -= n;
    *rows = n;
    return INLAY_OK;
}

const inlay_array *inlay_reader_array(const inlay_reader *r, int k)
{
    if (!r || k < 0 || k >= r->nfields || r->batch_group < 0) return NULL;
    return &r->trees[k].arr;
}

int inlay_reader_batch_row_group(const inlay_reader *r)
{
    return r ? r->batch_group : -1;
}

uint64_t inlay_reader_batch_first_row(const inlay_reader *r)
{
    return r && r->batch_group >= 0 ? r->batch_first_row : 0;
}
