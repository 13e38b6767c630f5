/*
 * lprint.c — a Parquet file as text: inspect, head and cat (see lprint.h
 * for what each prints, lfmt.c for how each value is written), and
 * inlay.inspect / inlay.head for Lua.
 *
 * Output is built in an sbuf and handed to the FILE in blocks of about
 * 64 KiB; cat holds one batch of the reader at a time, whatever the
 * file's size. head and inspect lay out their tables after seeing every
 * cell, so each column is as wide as its widest cell.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lfmt.h"
#include "lprint.h"

/* ---- errors ------------------------------------------------------------------ */

static int fail(char *err, size_t errcap, int status, const char *fmt, ...)
{
    if (err && errcap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errcap, fmt, ap);
        va_end(ap);
    }
    return status;
}

static int reader_fail(const inlay_reader *r, int status, char *err, size_t errcap)
{
    int st = inlay_reader_status(r);
    return fail(err, errcap, st ? st : status, "%s", inlay_reader_errmsg(r));
}

static int nomem(char *err, size_t errcap)
{
    return fail(err, errcap, INLAY_ERR_NOMEM, "out of memory");
}

/* Writes what b holds to out and empties it. */
static int flush_to(sbuf *b, FILE *out, char *err, size_t errcap)
{
    if (b->oom) return nomem(err, errcap);
    if (b->len && fwrite(b->p, 1, b->len, out) != b->len)
        return fail(err, errcap, INLAY_ERR_IO, "writing the output: %s", strerror(errno));
    b->len = 0;
    return INLAY_OK;
}

static int finish_out(FILE *out, char *err, size_t errcap)
{
    if (fflush(out) != 0 || ferror(out))
        return fail(err, errcap, INLAY_ERR_IO, "writing the output: %s", strerror(errno ? errno : EIO));
    return INLAY_OK;
}

/* ---- the selected fields --------------------------------------------------------- */

typedef struct fields {
    int n;
    pnode *pn;           /* one per selected field */
} fields;

static void fields_free(fields *f)
{
    for (int k = 0; k < f->n; k++) inl_lua_shape_free(&f->pn[k]);
    free(f->pn);
    memset(f, 0, sizeof *f);
}

/* The schema node of each top-level field, in order; *n gets their count. */
static int *top_nodes(const inlay_schema *s, int *n)
{
    inlay_node_info root;
    *n = 0;
    if (inlay_schema_node(s, 0, &root) != INLAY_OK) return NULL;
    int *nodes = malloc(sizeof *nodes * (size_t)(root.num_children + 1));
    if (!nodes) return NULL;
    for (int c = root.first_child; c >= 0 && *n < root.num_children;) {
        nodes[(*n)++] = c;
        inlay_node_info ci;
        if (inlay_schema_node(s, c, &ci) != INLAY_OK) break;
        c = ci.next_sibling;
    }
    return nodes;
}

/* The names of the top-level fields, for a message: "a, b, c". */
static void field_names(const inlay_schema *s, const int *nodes, int n, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (int k = 0; k < n && len + 8 < cap; k++) {
        inlay_node_info in;
        if (inlay_schema_node(s, nodes[k], &in) != INLAY_OK) break;
        int w = snprintf(out + len, cap - len, "%s%s", k ? ", " : "", in.name);
        if (w < 0 || (size_t)w >= cap - len) {
            snprintf(out + (cap > 5 ? cap - 5 : 0), cap > 5 ? 5 : cap, "...");
            return;
        }
        len += (size_t)w;
    }
}

/* The field numbers `columns` ("a,b") names, into sel[*nsel]; sel has room
 * for every top-level field, and none may come twice. */
static int name_fields(inlay_reader *r, const char *columns, const int *nodes, int ntop, int *sel, int *nsel,
                       char *err, size_t errcap)
{
    const char *p = columns;
    for (;;) {
        const char *e = strchr(p, ',');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        char name[512], names[256];
        if (len == 0) return fail(err, errcap, INLAY_ERR_COLUMN, "an empty column name in '%s'", columns);
        if (len >= sizeof name) return fail(err, errcap, INLAY_ERR_COLUMN, "no column '%.40s...' in the file", p);
        memcpy(name, p, len);
        name[len] = '\0';
        const int k = inlay_reader_field(r, name);
        if (k < 0) {
            field_names(inlay_reader_schema(r), nodes, ntop, names, sizeof names);
            return fail(err, errcap, INLAY_ERR_COLUMN, "no column '%s' in the file (its columns: %s)", name, names);
        }
        for (int j = 0; j < *nsel; j++)
            if (sel[j] == k) return fail(err, errcap, INLAY_ERR_COLUMN, "column '%s' is named twice", name);
        if (*nsel == ntop) return fail(err, errcap, INLAY_ERR_COLUMN, "more columns than the file has");
        sel[(*nsel)++] = k;
        if (!e) return INLAY_OK;
        p = e + 1;
    }
}

/* Select the fields named in `columns` (NULL: all) and build their shapes. */
static int select_fields(inlay_reader *r, const char *columns, fields *f, char *err, size_t errcap)
{
    memset(f, 0, sizeof *f);
    const inlay_schema *s = inlay_reader_schema(r);
    int ntop = 0, nsel = 0, st = INLAY_OK;
    int *nodes = s ? top_nodes(s, &ntop) : NULL;
    if (!nodes) return s ? nomem(err, errcap) : fail(err, errcap, INLAY_ERR_ARGUMENT, "the reader has no schema");
    int *sel = malloc(sizeof *sel * (size_t)(ntop + 1));
    if (!sel) st = nomem(err, errcap);
    else if (columns) st = name_fields(r, columns, nodes, ntop, sel, &nsel, err, errcap);
    else
        for (int k = 0; k < ntop; k++) sel[nsel++] = k;
    if (!st && inlay_reader_select(r, columns ? sel : NULL, columns ? nsel : 0, NULL, 0) != INLAY_OK)
        st = reader_fail(r, INLAY_ERR_ARGUMENT, err, errcap);
    if (!st && !(f->pn = calloc((size_t)(nsel ? nsel : 1), sizeof *f->pn))) st = nomem(err, errcap);
    for (int k = 0; k < nsel && !st; k++) {
        f->n = k + 1;
        int rc = inl_lua_shape_build(&f->pn[k], s, nodes[sel[k]]);
        if (rc) st = rc == INLAY_ERR_NOMEM ? nomem(err, errcap) : fail(err, errcap, rc, "a malformed schema");
    }
    free(sel);
    free(nodes);
    if (st) fields_free(f);
    return st;
}

/* ---- tables ---------------------------------------------------------------------- */

/* Cells of text in rows of `ncols`, printed with each column as wide as
 * its widest cell. */
typedef struct table {
    int ncols;
    sbuf text;            /* every cell, one after the other */
    size_t *end;          /* cell k is text[end[k-1] .. end[k]) */
    size_t ncells, cap;
    bool *right;          /* per column: right-aligned (numbers) */
    int header_rows;      /* left-aligned over numbers too */
    bool oom;
} table;

static bool tbl_init(table *t, int ncols)
{
    memset(t, 0, sizeof *t);
    t->ncols = ncols;
    t->right = calloc((size_t)(ncols ? ncols : 1), sizeof *t->right);
    return t->right != NULL;
}

static void tbl_free(table *t)
{
    inl_lua_sb_free(&t->text);
    free(t->end);
    free(t->right);
    memset(t, 0, sizeof *t);
}

/* Ends the cell whose text was appended to t->text since the last one. */
static void tbl_end_cell(table *t)
{
    if (t->ncells == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        size_t *e = realloc(t->end, cap * sizeof *e);
        if (!e) {
            t->oom = true;
            return;
        }
        t->end = e;
        t->cap = cap;
    }
    t->end[t->ncells++] = t->text.len;
}

static void tbl_cell(table *t, const char *s)
{
    sb_puts(&t->text, s);
    tbl_end_cell(t);
}

/* Characters, not bytes: UTF-8 continuation bytes take no column. */
static size_t text_width(const char *s, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++) w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}

static int tbl_print(table *t, const char *indent, FILE *out, char *err, size_t errcap)
{
    if (t->oom || t->text.oom) return nomem(err, errcap);
    size_t *width = calloc((size_t)(t->ncols ? t->ncols : 1), sizeof *width);
    if (!width) return nomem(err, errcap);
    for (size_t k = 0; k < t->ncells; k++) {
        size_t start = k ? t->end[k - 1] : 0;
        size_t w = text_width(t->text.p + start, t->end[k] - start);
        int c = (int)(k % (size_t)t->ncols);
        if (w > width[c]) width[c] = w;
    }
    sbuf line = { 0 };
    int st = INLAY_OK;
    for (size_t k = 0; k < t->ncells && !st; k++) {
        int c = (int)(k % (size_t)t->ncols);
        size_t start = k ? t->end[k - 1] : 0, n = t->end[k] - start;
        size_t pad = width[c] - text_width(t->text.p + start, n);
        if (c == 0) sb_puts(&line, indent);
        else sb_puts(&line, "  ");
        const bool right = t->right[c] && k >= (size_t)t->header_rows * (size_t)t->ncols;
        if (right)
            for (size_t i = 0; i < pad; i++) sb_putc(&line, ' ');
        sb_put(&line, t->text.p + start, n);
        if (!right && c < t->ncols - 1)
            for (size_t i = 0; i < pad; i++) sb_putc(&line, ' ');
        if (c == t->ncols - 1) {
            sb_putc(&line, '\n');
            if (line.len >= 1 << 16) st = flush_to(&line, out, err, errcap);
        }
    }
    if (!st) st = flush_to(&line, out, err, errcap);
    inl_lua_sb_free(&line);
    free(width);
    return st;
}

/* The columns a byte takes in a cell: none for a UTF-8 continuation byte,
 * 2 for \n \t \r, 4 for other control characters (\xHH). */
static size_t byte_width(unsigned char c)
{
    if (c < 0x20 || c == 0x7F) return c == '\n' || c == '\t' || c == '\r' ? 2 : 4;
    return (c & 0xC0) == 0x80 ? 0 : 1;
}

/* The text of a cell, without ending it: control characters made visible
 * (\n, \t, \xHH), at most `max` characters, a longer text cut to max - 1
 * and "…"; an empty text shows as "". */
static void cell_put(table *t, const char *s, size_t n, size_t max)
{
    sbuf *b = &t->text;
    if (n == 0) {   /* an empty text, not nothing */
        sb_puts(b, "\"\"");
        return;
    }
    size_t total = 0, chars = 0;
    for (size_t i = 0; i < n; i++) total += byte_width((unsigned char)s[i]);
    const size_t limit = total <= max ? total : max - 1;
    for (size_t i = 0; i < n; i++) {
        const unsigned char c = (unsigned char)s[i];
        const size_t w = byte_width(c);
        if (chars + w > limit) break;
        chars += w;
        if (c == '\n') sb_puts(b, "\\n");
        else if (c == '\t') sb_puts(b, "\\t");
        else if (c == '\r') sb_puts(b, "\\r");
        else if (w == 4) inl_lua_put_xbyte(b, c);
        else sb_putc(b, (char)c);
    }
    if (total > max) sb_puts(b, "\xE2\x80\xA6");
}

/* A table cell from text, as cell_put writes it. */
static void cell_text(table *t, const char *s, size_t n, size_t max)
{
    cell_put(t, s, n, max);
    tbl_end_cell(t);
}

/* ---- names of the format's enums ----------------------------------------------------- */

static const char *physical_name(int p)
{
    static const char *const names[] = { "BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY",
                                         "FIXED_LEN_BYTE_ARRAY" };
    return p >= 0 && p < 8 ? names[p] : "?";
}

static void codec_name(int c, char *buf, size_t cap)
{
    static const char *const names[] = { "UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW" };
    if (c >= 0 && c < 8) snprintf(buf, cap, "%s", names[c]);
    else snprintf(buf, cap, "CODEC(%d)", c);
}

static const char *encoding_name(int e)
{
    static const char *const names[] = { "PLAIN", "GROUP_VAR_INT", "PLAIN_DICTIONARY", "RLE", "BIT_PACKED",
                                         "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY",
                                         "RLE_DICTIONARY", "BYTE_STREAM_SPLIT" };
    return e >= 0 && e < 10 ? names[e] : NULL;
}

/* The encodings of a chunk in the order of their numbers; `json`: as a
 * JSON array, else comma-separated. */
static void put_encodings(sbuf *b, uint32_t bits, bool json)
{
    bool first = true;
    if (json) sb_putc(b, '[');
    for (int e = 0; e < 32; e++) {
        if (!(bits >> e & 1)) continue;
        if (!first) sb_putc(b, ',');
        first = false;
        const char *n = encoding_name(e);
        if (json) sb_putc(b, '"');
        if (n) sb_puts(b, n);
        else inl_lua_sb_printf(b, "ENCODING(%d)", e);
        if (json) sb_putc(b, '"');
    }
    if (json) sb_putc(b, ']');
}

static const char *repetition_name(inlay_repetition r)
{
    return r == INLAY_REQUIRED ? "required" : r == INLAY_OPTIONAL ? "optional" : "repeated";
}

/* ---- inspect -------------------------------------------------------------------------- */

/* The leaf type of each column, from the schema. */
static inlay_type *leaf_types(const inlay_schema *s, int ncols)
{
    inlay_type *t = calloc((size_t)(ncols ? ncols : 1), sizeof *t);
    if (!t) return NULL;
    const int nn = inlay_schema_num_nodes(s);
    for (int n = 0; n < nn; n++) {
        inlay_node_info in;
        if (inlay_schema_node(s, n, &in) == INLAY_OK && !in.is_group && in.column >= 0 && in.column < ncols)
            t[in.column] = in.type;
    }
    return t;
}

static void group_type(sbuf *b, const inlay_node_info *in)
{
    if (!in->is_group) {
        char tmp[64];
        size_t n = inlay_type_name(&in->type, tmp, sizeof tmp);
        sb_put(b, tmp, n < sizeof tmp ? n : sizeof tmp - 1);
        return;
    }
    sb_puts(b, in->group == INLAY_GROUP_LIST ? "list" : in->group == INLAY_GROUP_MAP ? "map" : "struct");
}

/* The schema as rows of (indented name, repetition, type). */
static void schema_rows(table *t, const inlay_schema *s, int node, int depth)
{
    inlay_node_info in;
    for (int c = node; c >= 0; c = in.next_sibling) {
        if (inlay_schema_node(s, c, &in) != INLAY_OK) return;
        for (int i = 0; i < depth; i++) sb_puts(&t->text, "  ");
        cell_text(t, in.name, strlen(in.name), SIZE_MAX);
        tbl_cell(t, repetition_name(in.repetition));
        group_type(&t->text, &in);
        tbl_end_cell(t);
        if (in.is_group && depth < 64) schema_rows(t, s, in.first_child, depth + 1);
    }
}

static void schema_json(sbuf *b, const inlay_schema *s, int node, int depth)
{
    inlay_node_info in;
    sb_putc(b, '[');
    for (int c = node; c >= 0 && depth < 64; c = in.next_sibling) {
        if (inlay_schema_node(s, c, &in) != INLAY_OK) break;
        if (c != node) sb_putc(b, ',');
        sb_putc(b, '{');
        inl_lua_json_key(b, "name", true);
        inl_lua_json_str(b, in.name);
        inl_lua_json_key(b, "repetition", false);
        inl_lua_json_str(b, repetition_name(in.repetition));
        inl_lua_json_key(b, "type", false);
        sb_putc(b, '"');
        group_type(b, &in);
        sb_putc(b, '"');
        if (in.is_group) {
            inl_lua_json_key(b, "children", false);
            schema_json(b, s, in.first_child, depth + 1);
        } else {
            inl_lua_json_key(b, "physical", false);
            inl_lua_json_str(b, physical_name((int)in.type.physical));
            inl_lua_json_key(b, "column", false);
            inl_lua_put_i64(b, in.column);
        }
        sb_putc(b, '}');
    }
    sb_putc(b, ']');
}

static bool is_base64(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/' ||
              c == '='))
            return false;
    }
    return true;
}

enum { MAX_META_SHOWN = 60, MAX_STAT_SHOWN = 36 };

static void put_opt_i64(sbuf *b, int64_t v, bool json)
{
    if (v < 0) sb_puts(b, json ? "null" : "-");
    else inl_lua_put_i64(b, v);
}

static void chunk_json(sbuf *b, const inlay_chunk_info *ci, const inlay_type *t)
{
    char codec[32], tname[64];
    codec_name(ci->codec, codec, sizeof codec);
    inlay_type_name(t, tname, sizeof tname);
    sb_putc(b, '{');
    inl_lua_json_key(b, "path_in_schema", true);
    inl_lua_json_str(b, ci->path ? ci->path : "");
    inl_lua_json_key(b, "type", false);
    inl_lua_json_str(b, physical_name(ci->physical));
    inl_lua_json_key(b, "logical_type", false);
    inl_lua_json_str(b, tname);
    inl_lua_json_key(b, "encodings", false);
    put_encodings(b, ci->encodings, true);
    inl_lua_json_key(b, "compression", false);
    inl_lua_json_str(b, codec);
    inl_lua_json_key(b, "num_values", false);
    inl_lua_put_i64(b, ci->num_values);
    inl_lua_json_key(b, "total_compressed_size", false);
    inl_lua_put_i64(b, ci->compressed_size);
    inl_lua_json_key(b, "total_uncompressed_size", false);
    inl_lua_put_i64(b, ci->uncompressed_size);
    inl_lua_json_key(b, "data_page_offset", false);
    inl_lua_put_i64(b, ci->data_page_offset);
    inl_lua_json_key(b, "dictionary_page_offset", false);
    put_opt_i64(b, ci->dictionary_page_offset, true);
    inl_lua_json_key(b, "statistics", false);
    if (ci->has_statistics) {
        const inlay_statistics *st = &ci->statistics;
        sb_putc(b, '{');
        inl_lua_json_key(b, "min", true);
        inl_lua_put_stat(b, t, ci->physical, st->min, st->min_len, M_JSON);
        inl_lua_json_key(b, "max", false);
        inl_lua_put_stat(b, t, ci->physical, st->max, st->max_len, M_JSON);
        inl_lua_json_key(b, "null_count", false);
        put_opt_i64(b, st->has_null_count ? st->null_count : -1, true);
        inl_lua_json_key(b, "distinct_count", false);
        put_opt_i64(b, st->has_distinct_count ? st->distinct_count : -1, true);
        inl_lua_json_key(b, "min_exact", false);
        sb_puts(b, st->min_exact ? "true" : "false");
        inl_lua_json_key(b, "max_exact", false);
        sb_puts(b, st->max_exact ? "true" : "false");
        sb_putc(b, '}');
    } else {
        sb_puts(b, "null");
    }
    inl_lua_json_key(b, "has_page_index", false);
    sb_puts(b, ci->column_index_offset >= 0 ? "true" : "false");
    inl_lua_json_key(b, "has_bloom_filter", false);
    sb_puts(b, ci->bloom_filter_offset >= 0 ? "true" : "false");
    static const char *const where[] = { "column_index", "offset_index", "bloom_filter" };
    const int64_t off[] = { ci->column_index_offset, ci->offset_index_offset, ci->bloom_filter_offset };
    const int32_t len[] = { ci->column_index_length, ci->offset_index_length, ci->bloom_filter_length };
    for (int k = 0; k < 3; k++) {   /* null when absent; a bloom filter's length may be unknown (0) */
        char key[32];
        snprintf(key, sizeof key, "%s_offset", where[k]);
        inl_lua_json_key(b, key, false);
        put_opt_i64(b, off[k], true);
        snprintf(key, sizeof key, "%s_length", where[k]);
        inl_lua_json_key(b, key, false);
        put_opt_i64(b, off[k] >= 0 && len[k] > 0 ? len[k] : -1, true);
    }
    sb_putc(b, '}');
}

static void row_group_json(sbuf *b, const inlay_row_group_info *rg, int ncols, const inlay_type *types)
{
    sb_putc(b, '{');
    inl_lua_json_key(b, "num_rows", true);
    inl_lua_put_i64(b, rg->num_rows);
    inl_lua_json_key(b, "total_byte_size", false);
    inl_lua_put_i64(b, rg->total_byte_size);
    inl_lua_json_key(b, "total_compressed_size", false);
    put_opt_i64(b, rg->total_compressed_size, true);
    inl_lua_json_key(b, "file_offset", false);
    put_opt_i64(b, rg->file_offset, true);
    inl_lua_json_key(b, "columns", false);
    sb_putc(b, '[');
    for (int c = 0; c < ncols; c++) {
        const inlay_chunk_info *ci = &rg->chunks[c];
        if (c) sb_putc(b, ',');
        chunk_json(b, ci, &types[ci->column >= 0 && ci->column < ncols ? ci->column : c]);
    }
    sb_puts(b, "]}");
}

static void inspect_json(sbuf *b, const inlay_reader *r, const char *name, const inlay_type *types)
{
    const inlay_file_info *fi = inlay_reader_info(r);
    const inlay_schema *s = inlay_reader_schema(r);
    sb_putc(b, '{');
    inl_lua_json_key(b, "file", true);
    inl_lua_json_str(b, name ? name : "");
    inl_lua_json_key(b, "file_size", false);
    inl_lua_put_u64(b, fi->file_size);
    inl_lua_json_key(b, "footer_size", false);
    inl_lua_put_u64(b, fi->footer_size);
    inl_lua_json_key(b, "format_version", false);
    inl_lua_put_i64(b, fi->version);
    inl_lua_json_key(b, "created_by", false);
    inl_lua_json_str(b, fi->created_by ? fi->created_by : "");
    inl_lua_json_key(b, "num_rows", false);
    inl_lua_put_i64(b, fi->num_rows);
    inl_lua_json_key(b, "num_row_groups", false);
    inl_lua_put_i64(b, fi->num_row_groups);
    inl_lua_json_key(b, "num_columns", false);
    inl_lua_put_i64(b, fi->num_columns);
    inl_lua_json_key(b, "key_value_metadata", false);
    sb_putc(b, '{');
    for (size_t k = 0; k < fi->metadata_count; k++) {
        inl_lua_json_key(b, fi->metadata[k].key ? fi->metadata[k].key : "", k == 0);
        if (fi->metadata[k].value) inl_lua_json_str(b, fi->metadata[k].value);
        else sb_puts(b, "null");
    }
    sb_putc(b, '}');
    inl_lua_json_key(b, "schema", false);
    inlay_node_info root;
    if (inlay_schema_node(s, 0, &root) == INLAY_OK) schema_json(b, s, root.first_child, 0);
    else sb_puts(b, "[]");
    inl_lua_json_key(b, "row_groups", false);
    sb_putc(b, '[');
    for (int g = 0; g < fi->num_row_groups; g++) {
        if (g) sb_putc(b, ',');
        row_group_json(b, &fi->row_groups[g], fi->num_columns, types);
    }
    sb_puts(b, "]}\n");
}

/* A key-value value for the text view: short ones as they are, long
 * base64 (ARROW:schema) as its length, other long ones cut. */
static void meta_value(sbuf *b, const char *v)
{
    if (!v) {
        sb_puts(b, "(no value)");
        return;
    }
    const size_t n = strlen(v);
    if (n > MAX_META_SHOWN && is_base64(v, n)) {
        inl_lua_sb_printf(b, "(base64, %zu bytes)", n);
        return;
    }
    table tmp;
    if (!tbl_init(&tmp, 1)) {
        b->oom = true;
        return;
    }
    cell_text(&tmp, v, n, MAX_META_SHOWN);
    sb_put(b, tmp.text.p, tmp.text.len);
    if (n > MAX_META_SHOWN) inl_lua_sb_printf(b, " (%zu bytes)", n);
    if (tmp.oom || tmp.text.oom) b->oom = true;
    tbl_free(&tmp);
}

/* A statistic for the chunk table: its text, cut to MAX_STAT_SHOWN, then
 * " (inexact)" for a bound the writer says it truncated. */
static void stat_cell(table *t, sbuf *scratch, const inlay_type *ty, int stored, const uint8_t *p, size_t n,
                      bool exact)
{
    scratch->len = 0;
    inl_lua_put_stat(scratch, ty, stored, p, n, M_PLAIN);
    if (scratch->oom) t->oom = true;
    cell_put(t, scratch->len ? scratch->p : "", scratch->len, MAX_STAT_SHOWN);
    if (p && !exact) sb_puts(&t->text, " (inexact)");
    tbl_end_cell(t);
}

/* A length in bytes where the offset says the structure is there, else "-". */
static void length_cell(table *t, int64_t offset, int32_t length)
{
    if (offset < 0) sb_puts(&t->text, "-");
    else inl_lua_put_i64(&t->text, length);
    tbl_end_cell(t);
}

static void chunk_rows(table *t, const inlay_row_group_info *rg, int ncols, const inlay_type *types)
{
    static const char *const head[] = { "column", "type", "codec", "encodings", "values", "nulls", "distinct",
                                        "compressed", "uncompressed", "min", "max", "col index", "off index",
                                        "bloom" };
    for (size_t k = 0; k < sizeof head / sizeof *head; k++) tbl_cell(t, head[k]);
    for (int c = 4; c <= 8; c++) t->right[c] = true;
    for (int c = 11; c <= 13; c++) t->right[c] = true;
    t->header_rows = 1;
    sbuf tmp = { 0 };
    for (int c = 0; c < ncols; c++) {
        const inlay_chunk_info *ci = &rg->chunks[c];
        const inlay_type *ty = &types[ci->column >= 0 && ci->column < ncols ? ci->column : c];
        const inlay_statistics *st = ci->has_statistics ? &ci->statistics : NULL;
        char codec[32];
        codec_name(ci->codec, codec, sizeof codec);
        cell_text(t, ci->path ? ci->path : "?", ci->path ? strlen(ci->path) : 1, SIZE_MAX);
        tbl_cell(t, physical_name(ci->physical));
        tbl_cell(t, codec);
        put_encodings(&t->text, ci->encodings, false);
        tbl_end_cell(t);
        inl_lua_put_i64(&t->text, ci->num_values);
        tbl_end_cell(t);
        put_opt_i64(&t->text, st && st->has_null_count ? st->null_count : -1, false);
        tbl_end_cell(t);
        put_opt_i64(&t->text, st && st->has_distinct_count ? st->distinct_count : -1, false);
        tbl_end_cell(t);
        inl_lua_put_i64(&t->text, ci->compressed_size);
        tbl_end_cell(t);
        inl_lua_put_i64(&t->text, ci->uncompressed_size);
        tbl_end_cell(t);
        stat_cell(t, &tmp, ty, ci->physical, st ? st->min : NULL, st ? st->min_len : 0, st && st->min_exact);
        stat_cell(t, &tmp, ty, ci->physical, st ? st->max : NULL, st ? st->max_len : 0, st && st->max_exact);
        length_cell(t, ci->column_index_offset, ci->column_index_length);
        length_cell(t, ci->offset_index_offset, ci->offset_index_length);
        length_cell(t, ci->bloom_filter_offset, ci->bloom_filter_length);
    }
    inl_lua_sb_free(&tmp);
}

static void file_text(sbuf *b, const inlay_file_info *fi, const char *name)
{
    if (name) {
        sb_puts(b, "file        ");
        inl_lua_put_text(b, (const uint8_t *)name, strlen(name), M_PLAIN);
        sb_putc(b, '\n');
    }
    inl_lua_sb_printf(b, "size        %" PRIu64 " bytes (footer %" PRIu32 ")\n", fi->file_size, fi->footer_size);
    sb_puts(b, "created by  ");
    meta_value(b, fi->created_by && fi->created_by[0] ? fi->created_by : "-");
    inl_lua_sb_printf(b, "\nversion     %" PRId32 "\n", fi->version);
    inl_lua_sb_printf(b, "rows        %" PRId64 "\n", fi->num_rows);
    inl_lua_sb_printf(b, "row groups  %d\n", fi->num_row_groups);
    inl_lua_sb_printf(b, "columns     %d\n", fi->num_columns);
}

static void metadata_text(sbuf *b, const inlay_file_info *fi)
{
    sb_puts(b, "\nkey-value metadata\n");
    if (fi->metadata_count == 0) sb_puts(b, "  (none)\n");
    for (size_t k = 0; k < fi->metadata_count; k++) {
        const char *key = fi->metadata[k].key ? fi->metadata[k].key : "";
        sb_puts(b, "  ");
        inl_lua_put_text(b, (const uint8_t *)key, strlen(key), M_PLAIN);
        sb_puts(b, ": ");
        meta_value(b, fi->metadata[k].value);
        sb_putc(b, '\n');
    }
}

/* Its rows in a table of `ncols` columns, filled by fill, printed indented. */
static int print_table(int ncols, void (*fill)(table *, const void *, const void *), const void *a, const void *b,
                       FILE *out, char *err, size_t errcap)
{
    table t;
    if (!tbl_init(&t, ncols)) return nomem(err, errcap);
    fill(&t, a, b);
    int st = tbl_print(&t, "  ", out, err, errcap);
    tbl_free(&t);
    return st;
}

static void fill_schema(table *t, const void *schema, const void *unused)
{
    (void)unused;
    inlay_node_info root;
    if (inlay_schema_node(schema, 0, &root) == INLAY_OK) schema_rows(t, schema, root.first_child, 0);
}

typedef struct chunk_table { const inlay_row_group_info *rg; int ncols; } chunk_table;

static void fill_chunks(table *t, const void *what, const void *types)
{
    const chunk_table *ct = what;
    chunk_rows(t, ct->rg, ct->ncols, types);
}

static int inspect_text(const inlay_reader *r, const char *name, const inlay_type *types, FILE *out, char *err,
                        size_t errcap)
{
    const inlay_file_info *fi = inlay_reader_info(r);
    sbuf b = { 0 };
    file_text(&b, fi, name);
    sb_puts(&b, "\nschema\n");
    int st = flush_to(&b, out, err, errcap);
    if (!st) st = print_table(3, fill_schema, inlay_reader_schema(r), NULL, out, err, errcap);
    if (!st) {
        metadata_text(&b, fi);
        st = flush_to(&b, out, err, errcap);
    }
    for (int g = 0; g < fi->num_row_groups && !st; g++) {
        const inlay_row_group_info *rg = &fi->row_groups[g];
        inl_lua_sb_printf(&b, "\nrow group %d: %" PRId64 " rows, %" PRId64 " bytes", g, rg->num_rows,
                          rg->total_byte_size);
        if (rg->total_compressed_size >= 0) inl_lua_sb_printf(&b, " (%" PRId64 " compressed)", rg->total_compressed_size);
        if (rg->file_offset >= 0) inl_lua_sb_printf(&b, ", at offset %" PRId64, rg->file_offset);
        sb_putc(&b, '\n');
        st = flush_to(&b, out, err, errcap);
        const chunk_table ct = { rg, fi->num_columns };
        if (!st) st = print_table(14, fill_chunks, &ct, types, out, err, errcap);
    }
    inl_lua_sb_free(&b);
    return st;
}

int inl_lua_print_inspect(inlay_reader *r, const char *name, bool json, FILE *out, char *err, size_t errcap)
{
    const inlay_file_info *fi = inlay_reader_info(r);
    const inlay_schema *s = inlay_reader_schema(r);
    if (!fi || !s) return fail(err, errcap, INLAY_ERR_ARGUMENT, "no reader");
    inlay_type *types = leaf_types(s, fi->num_columns);
    if (!types) return nomem(err, errcap);
    int st;
    if (json) {
        sbuf b = { 0 };
        inspect_json(&b, r, name, types);
        st = flush_to(&b, out, err, errcap);
        inl_lua_sb_free(&b);
    } else {
        st = inspect_text(r, name, types, out, err, errcap);
    }
    free(types);
    return st ? st : finish_out(out, err, errcap);
}

/* ---- head --------------------------------------------------------------------------- */

static bool pn_numeric(const pnode *pn)
{
    return pn->kind == PN_LEAF && inl_lua_type_is_numeric(&pn->type);
}

/* Rows of the current batch into the table, one cell per field. */
static void head_rows(table *t, const inlay_reader *r, const fields *f, size_t rows, sbuf *scratch, bool *bad)
{
    render rd = { scratch, true, false };
    for (size_t i = 0; i < rows; i++) {
        for (int k = 0; k < f->n; k++) {
            const inlay_array *a = inlay_reader_array(r, k);
            scratch->len = 0;
            if (!a || !inl_lua_put_field(&rd, &f->pn[k], a, i, M_PLAIN)) {
                tbl_cell(t, "NULL");
                continue;
            }
            if (scratch->oom) t->oom = true;
            cell_text(t, scratch->len ? scratch->p : "", scratch->len, INL_LUA_PRINT_CELL_WIDTH);
        }
    }
    if (rd.bad) *bad = true;
}

int inl_lua_print_head(inlay_reader *r, const char *columns, size_t rows, FILE *out, char *err, size_t errcap)
{
    fields f;
    int st = select_fields(r, columns, &f, err, errcap);
    if (st) return st;
    table t;
    if (!tbl_init(&t, f.n ? f.n : 1)) {
        fields_free(&f);
        return nomem(err, errcap);
    }
    sbuf scratch = { 0 };
    t.header_rows = 2;
    for (int k = 0; k < f.n; k++) {
        tbl_cell(&t, f.pn[k].name);
        t.right[k] = pn_numeric(&f.pn[k]);
    }
    for (int k = 0; k < f.n; k++) {
        inl_lua_shape_type(&scratch, &f.pn[k]);
        cell_text(&t, scratch.p ? scratch.p : "", scratch.len, INL_LUA_PRINT_CELL_WIDTH);
        scratch.len = 0;
    }
    size_t shown = 0;
    bool bad = false;
    while (shown < rows && !st) {
        size_t got = 0;
        if (inlay_reader_next(r, rows - shown, &got) != INLAY_OK) st = reader_fail(r, INLAY_ERR_FORMAT, err, errcap);
        else if (got == 0) break;
        else head_rows(&t, r, &f, got, &scratch, &bad);
        shown += got;
    }
    if (!st && bad) st = fail(err, errcap, INLAY_ERR_FORMAT, "the reader's arrays do not match the schema");
    if (!st && f.n) st = tbl_print(&t, "", out, err, errcap);
    const inlay_file_info *fi = inlay_reader_info(r);
    if (!st && fi && (uint64_t)fi->num_rows > shown)
        fprintf(out, "(%zu of %" PRId64 " rows)\n", shown, fi->num_rows);
    else if (!st && shown == 0)
        fputs("(no rows)\n", out);
    inl_lua_sb_free(&scratch);
    tbl_free(&t);
    fields_free(&f);
    return st ? st : finish_out(out, err, errcap);
}

/* ---- cat ------------------------------------------------------------------------------ */

static bool csv_needs_quotes(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r') return true;
    return false;
}

static void csv_field(sbuf *b, const char *s, size_t n)
{
    if (n == 0) {   /* an empty value, not a null */
        sb_put(b, "\"\"", 2);
        return;
    }
    if (!csv_needs_quotes(s, n)) {
        sb_put(b, s, n);
        return;
    }
    sb_putc(b, '"');
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '"') continue;
        sb_put(b, s + run, i + 1 - run);
        sb_putc(b, '"');
        run = i + 1;
    }
    sb_put(b, s + run, n - run);
    sb_putc(b, '"');
}

static void cat_header(sbuf *b, const fields *f, inl_lua_print_format format)
{
    if (format != INL_LUA_PRINT_CSV) return;
    for (int k = 0; k < f->n; k++) {
        if (k) sb_putc(b, ',');
        const char *n = f->pn[k].name;
        csv_field(b, n, strlen(n));
    }
    sb_putc(b, '\n');
}

/* Row i of the batch as a CSV record or an NDJSON line. */
static void cat_row(render *rd, sbuf *b, sbuf *cell, const inlay_reader *r, const fields *f, const sbuf *keys,
                    size_t i, inl_lua_print_format format)
{
    if (format == INL_LUA_PRINT_CSV) {
        rd->b = cell;
        for (int k = 0; k < f->n; k++) {
            if (k) sb_putc(b, ',');
            cell->len = 0;
            const inlay_array *a = inlay_reader_array(r, k);
            if (a && inl_lua_put_field(rd, &f->pn[k], a, i, M_PLAIN)) csv_field(b, cell->p ? cell->p : "", cell->len);
        }
        if (cell->oom) b->oom = true;
    } else {
        rd->b = b;
        sb_putc(b, '{');
        for (int k = 0; k < f->n; k++) {
            sb_put(b, keys[k].p, keys[k].len);
            const inlay_array *a = inlay_reader_array(r, k);
            if (!a || !inl_lua_put_field(rd, &f->pn[k], a, i, M_JSON)) sb_puts(b, "null");
        }
        sb_putc(b, '}');
    }
    sb_putc(b, '\n');
}

int inl_lua_print_cat(inlay_reader *r, const char *columns, inl_lua_print_format format, FILE *out, char *err,
                      size_t errcap)
{
    fields f;
    int st = select_fields(r, columns, &f, err, errcap);
    if (st) return st;
    /* "name": (with the comma before it) for each field, made once */
    sbuf *keys = calloc((size_t)(f.n ? f.n : 1), sizeof *keys);
    sbuf b = { 0 }, cell = { 0 };
    if (!keys) st = nomem(err, errcap);
    for (int k = 0; k < f.n && !st; k++) inl_lua_json_key(&keys[k], f.pn[k].name, k == 0);
    if (!st) {
        cat_header(&b, &f, format);
        st = flush_to(&b, out, err, errcap);
    }
    render rd = { NULL, false, false };
    while (!st) {
        size_t rows = 0;
        if (inlay_reader_next(r, 0, &rows) != INLAY_OK) {
            st = reader_fail(r, INLAY_ERR_FORMAT, err, errcap);
            break;
        }
        if (rows == 0) break;
        for (size_t i = 0; i < rows && !st; i++) {
            cat_row(&rd, &b, &cell, r, &f, keys, i, format);
            if (rd.bad) st = fail(err, errcap, INLAY_ERR_FORMAT, "the reader's arrays do not match the schema");
            else if (b.len >= 1 << 16 || i + 1 == rows) st = flush_to(&b, out, err, errcap);
        }
    }
    for (int k = 0; keys && k < f.n; k++) inl_lua_sb_free(&keys[k]);
    free(keys);
    inl_lua_sb_free(&b);
    inl_lua_sb_free(&cell);
    fields_free(&f);
    return st ? st : finish_out(out, err, errcap);
}

/* ---- Lua: inlay.inspect and inlay.head ------------------------------------------------------ */

/* Opens `path` with the state's allocator (so --max-memory covers it);
 * raises on failure, with the reader's message. */
static inlay_reader *lua_open_reader(lua_State *L, const char *path)
{
    inlay_read_options o;
    inlay_read_options_init(&o);
    o.alloc.fn = lua_getallocf(L, &o.alloc.ud);
    inlay_reader *r = NULL;
    int st = inlay_reader_open_file(&r, path, &o);
    if (st == INLAY_OK) return r;
    lua_pushstring(L, r ? inlay_reader_errmsg(r) : inlay_strerror(st));
    inlay_reader_free(r);
    inl_lua_fail(L, st, "%s", lua_tostring(L, -1));
    return NULL;
}

/* Raises the failure of a print call on reader r (freed here), naming the
 * file when the message does not already. */
static void lua_print_done(lua_State *L, inlay_reader *r, int st, const char *path, const char *err)
{
    inlay_reader_free(r);
    if (st == INLAY_OK) return;
    if (err[0] == '\'' || st == INLAY_ERR_COLUMN || st == INLAY_ERR_NOMEM) inl_lua_fail(L, st, "%s", err);
    inl_lua_fail(L, st, "'%s': %s", path, err);
}

static int l_inspect(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    bool json = false;
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        json = lua_getfield(L, 2, "json") != LUA_TNIL && lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    inlay_reader *r = lua_open_reader(L, path);
    char err[512] = "";
    int st = inl_lua_print_inspect(r, path, json, stdout, err, sizeof err);
    lua_print_done(L, r, st, path, err);
    return 0;
}

/* columns = "a,b" or { "a", "b" }: pushed as "a,b", or nothing pushed
 * (returns NULL) when absent. */
static const char *lua_columns(lua_State *L, int idx)
{
    int t = lua_getfield(L, idx, "columns");
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return NULL;
    }
    if (t == LUA_TSTRING) return lua_tostring(L, -1);
    if (t != LUA_TTABLE) luaL_argerror(L, idx, "columns must be a string or a list of names");
    luaL_Buffer b;
    const int list = lua_gettop(L);
    luaL_buffinit(L, &b);
    for (lua_Integer i = 1; lua_rawgeti(L, list, i) != LUA_TNIL; i++) {
        if (lua_type(L, -1) != LUA_TSTRING) luaL_argerror(L, idx, "columns must be a list of names");
        if (i > 1) luaL_addchar(&b, ',');
        luaL_addvalue(&b);
    }
    lua_pop(L, 1);
    luaL_pushresult(&b);
    lua_replace(L, list);
    return lua_tostring(L, list);
}

static int l_head(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    lua_Integer n = INL_LUA_PRINT_HEAD_ROWS;
    const char *columns = NULL;
    if (lua_type(L, 2) == LUA_TTABLE) {
        if (lua_getfield(L, 2, "n") != LUA_TNIL) {
            int isint = 0;
            n = lua_tointegerx(L, -1, &isint);
            if (!isint) luaL_argerror(L, 2, "n must be an integer");
        }
        lua_pop(L, 1);
        columns = lua_columns(L, 2);
    } else if (!lua_isnoneornil(L, 2)) {
        n = luaL_checkinteger(L, 2);
    }
    luaL_argcheck(L, n >= 0, 2, "the number of rows must be >= 0");
    inlay_reader *r = lua_open_reader(L, path);
    char err[512] = "";
    int st = inl_lua_print_head(r, columns, (size_t)n, stdout, err, sizeof err);
    lua_print_done(L, r, st, path, err);
    return 0;
}

void inl_lua_open_print(lua_State *L)
{
    static const luaL_Reg funcs[] = {
        { "inspect", l_inspect },
        { "head", l_head },
        { NULL, NULL },
    };
    luaL_setfuncs(L, funcs, 0);
}

