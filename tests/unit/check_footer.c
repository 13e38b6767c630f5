/*
 * check_footer.c — the reader's footer and page headers
 * (runtime/read/footer.c, thrift_in.c): files written by the inlay writer
 * read back (the schema prints as it was written, for flat schemas of
 * every type and nested ones; chunk infos agree with the file's layout
 * and with the data written; a read schema opens a writer that writes the
 * same bytes), footers built by hand with the thrift encoder for what the
 * writer never makes (legacy two-level lists and old maps, converted-only
 * and INT96 columns, legacy statistics, each kind of bad chunk), and
 * corruption: every truncation, thousands of single-bit flips, absurd
 * list counts, a 10000-deep schema, and every allocation failing in turn,
 * each an error and never a crash or a leak. Page headers written by
 * format/page.c read back field by field, and inlay_schema_node
 * (model/schema.c) numbers nodes depth-first whatever order they were
 * added in.
 */
#define _POSIX_C_SOURCE 200809L
#include "footer.h"
#include "page.h"
#include "thrift.h"
#include "thrift_in.h"
#include "unit.h"

/* ---- helpers ------------------------------------------------------------------ */

static test_alloc counts;
static inlay_allocator alloc;

static void setup(void)
{
    memset(&counts, 0, sizeof counts);
    alloc = test_allocator(&counts);
}

static void teardown(void)
{
    ck_assert_no_leak(&counts);
}

/* The footer of a whole file in memory. */
static int parse_file(rd_meta *m, const uint8_t *file, size_t len, inl_err *err)
{
    ck_assert_uint_ge(len, 12);
    const uint32_t mlen = le32(file + len - 8);
    ck_assert_uint_le(mlen, len - 12);
    inl_err_clear(err);
    return inl_rd_meta_parse(m, file + len - 8 - mlen, mlen, len, &alloc, err);
}

#define PARSE_OK(m, file, len)                                                                  \
    do {                                                                                        \
        inl_err e_;                                                                             \
        int st_ = parse_file((m), (file), (len), &e_);                                          \
        ck_assert_msg(st_ == INLAY_OK, "parse: %d %s", st_, e_.msg);                              \
    } while (0)

static char *format(const inlay_schema *s)
{
    size_t n = inlay_schema_format(s, NULL, 0);
    char *text = malloc(n + 1);
    ck_assert_ptr_nonnull(text);
    inlay_schema_format(s, text, n + 1);
    return text;
}

#define ck_assert_same_schema(a, b)                                                             \
    do {                                                                                        \
        char *ta_ = format(a), *tb_ = format(b);                                                \
        ck_assert_msg(strcmp(ta_, tb_) == 0, "schemas differ:\n%s\n---- read back as ----\n%s", ta_, tb_); \
        free(ta_);                                                                              \
        free(tb_);                                                                              \
    } while (0)

/* Close a writer with no rows on schema s: the file in *out. */
static void write_empty(const inlay_schema *s, inlay_buffer *out)
{
    inlay_buffer_init(out, NULL);
    inlay_writer *w = NULL;
    int st = inlay_writer_open(&w, inlay_buffer_sink(out), s, NULL);
    ck_assert_msg(st == INLAY_OK, "open: %s", w ? inlay_writer_errmsg(w) : "no writer");
    ck_assert_msg(inlay_writer_close(w) == INLAY_OK, "close: %s", inlay_writer_errmsg(w));
    inlay_writer_free(w);
}

static void add(inlay_schema *s, int parent, const char *name, inlay_repetition rep, inlay_type t)
{
    ck_assert_msg(inlay_schema_add(s, parent, name, rep, t, NULL) > 0, "%s: %s", name, inlay_schema_errmsg(s));
}

/* ---- schemas written by inlay -------------------------------------------------- */

static inlay_schema *every_type(void)
{
    inlay_schema *s = inlay_schema_create(NULL);
    static const int widths[] = { 8, 16, 32, 64 };
    char name[32];
    for (int k = 0; k < 4; k++) {
        snprintf(name, sizeof name, "i%d", widths[k]);
        add(s, 0, name, INLAY_REQUIRED, inlay_type_int(widths[k], true));
        snprintf(name, sizeof name, "u%d", widths[k]);
        add(s, 0, name, INLAY_OPTIONAL, inlay_type_int(widths[k], false));
    }
    add(s, 0, "b", INLAY_OPTIONAL, inlay_type_boolean());
    add(s, 0, "p32", INLAY_REQUIRED, inlay_type_physical(INLAY_INT32));
    add(s, 0, "p64", INLAY_REQUIRED, inlay_type_physical(INLAY_INT64));
    add(s, 0, "f", INLAY_OPTIONAL, inlay_type_float());
    add(s, 0, "d", INLAY_OPTIONAL, inlay_type_double());
    add(s, 0, "bin", INLAY_OPTIONAL, inlay_type_binary());
    add(s, 0, "str", INLAY_OPTIONAL, inlay_type_string());
    add(s, 0, "en", INLAY_OPTIONAL, inlay_type_enum());
    add(s, 0, "js", INLAY_OPTIONAL, inlay_type_json());
    add(s, 0, "fx", INLAY_REQUIRED, inlay_type_fixed(5));
    add(s, 0, "id", INLAY_OPTIONAL, inlay_type_uuid());
    add(s, 0, "half", INLAY_OPTIONAL, inlay_type_float16());
    add(s, 0, "day", INLAY_OPTIONAL, inlay_type_date());
    static const inlay_time_unit units[] = { INLAY_MILLIS, INLAY_MICROS, INLAY_NANOS };
    for (int u = 0; u < 3; u++) {
        for (int utc = 0; utc < 2; utc++) {
            snprintf(name, sizeof name, "time%d%d", u, utc);
            add(s, 0, name, INLAY_OPTIONAL, inlay_type_time(units[u], utc));
            snprintf(name, sizeof name, "ts%d%d", u, utc);
            add(s, 0, name, INLAY_OPTIONAL, inlay_type_timestamp(units[u], utc));
        }
    }
    add(s, 0, "dec32", INLAY_OPTIONAL, inlay_type_decimal(9, 2, INLAY_INT32, 0));
    add(s, 0, "dec64", INLAY_OPTIONAL, inlay_type_decimal(18, 0, INLAY_INT64, 0));
    add(s, 0, "decfx", INLAY_OPTIONAL, inlay_type_decimal(38, 10, INLAY_FIXED_LEN_BYTE_ARRAY, 0));
    add(s, 0, "decwide", INLAY_OPTIONAL, inlay_type_decimal(5, 5, INLAY_FIXED_LEN_BYTE_ARRAY, 12));
    add(s, 0, "decbin", INLAY_OPTIONAL, inlay_type_decimal(40, 3, INLAY_BYTE_ARRAY, 0));
    add(s, 0, "reps", INLAY_REPEATED, inlay_type_string());
    return s;
}

static inlay_schema *nested(void)
{
    inlay_schema *s = inlay_schema_create(NULL);
    add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true));
    int person = inlay_schema_add_group(s, 0, "person", INLAY_OPTIONAL);
    ck_assert_int_gt(person, 0);
    add(s, person, "name", INLAY_REQUIRED, inlay_type_string());
    int tags = inlay_schema_add_list(s, person, "tags", INLAY_OPTIONAL);
    add(s, tags, "element", INLAY_OPTIONAL, inlay_type_string());
    int scores = inlay_schema_add_map(s, person, "scores", INLAY_OPTIONAL);
    add(s, scores, "key", INLAY_REQUIRED, inlay_type_string());
    int values = inlay_schema_add_list(s, scores, "value", INLAY_OPTIONAL);
    add(s, values, "element", INLAY_REQUIRED, inlay_type_double());
    int matrix = inlay_schema_add_list(s, 0, "matrix", INLAY_OPTIONAL);
    int row = inlay_schema_add_list(s, matrix, "element", INLAY_REQUIRED);
    add(s, row, "element", INLAY_OPTIONAL, inlay_type_int(32, true));
    int points = inlay_schema_add_list(s, 0, "points", INLAY_REQUIRED);
    int point = inlay_schema_add_group(s, points, "element", INLAY_OPTIONAL);
    add(s, point, "x", INLAY_REQUIRED, inlay_type_float());
    add(s, point, "y", INLAY_REQUIRED, inlay_type_float());
    int set = inlay_schema_add_map(s, 0, "set", INLAY_OPTIONAL);
    add(s, set, "key", INLAY_REQUIRED, inlay_type_int(32, true));
    add(s, 0, "bare", INLAY_REPEATED, inlay_type_int(32, true));
    int rg = inlay_schema_add_group(s, 0, "rg", INLAY_REPEATED);
    add(s, rg, "a", INLAY_REQUIRED, inlay_type_int(32, true));
    add(s, rg, "b", INLAY_OPTIONAL, inlay_type_binary());
    int deep = inlay_schema_add_map(s, 0, "deep", INLAY_REQUIRED);
    int kstruct = inlay_schema_add_group(s, deep, "key", INLAY_REQUIRED);
    add(s, kstruct, "k", INLAY_REQUIRED, inlay_type_date());
    int vmap = inlay_schema_add_map(s, deep, "value", INLAY_OPTIONAL);
    add(s, vmap, "key", INLAY_REQUIRED, inlay_type_uuid());
    add(s, vmap, "value", INLAY_OPTIONAL, inlay_type_timestamp(INLAY_MICROS, true));
    return s;
}

/* Write s with no rows, read it back: the same text, the same levels, a
 * leaf per column of the file's physical type; and the schema read writes
 * the very same file. */
static void round_trip(inlay_schema *s)
{
    inlay_buffer a, b;
    write_empty(s, &a);
    rd_meta m;
    PARSE_OK(&m, a.data, a.len);
    ck_assert_same_schema(s, m.schema);
    ck_assert_int_eq(m.info.num_columns, inlay_schema_num_columns(s));
    ck_assert_int_eq(m.info.num_row_groups, 0);
    ck_assert_int_eq(m.info.num_rows, 0);
    ck_assert_int_eq(m.info.version, 1);
    ck_assert_str_eq(m.info.created_by, "inlay version " INLAY_VERSION_STRING);
    ck_assert_uint_eq(m.info.file_size, a.len);
    ck_assert_uint_eq(m.info.footer_size, le32(a.data + a.len - 8));
    for (int c = 0; c < m.info.num_columns; c++) {
        inlay_type t;
        ck_assert_int_eq(inlay_schema_column(s, c, NULL, &t, NULL), INLAY_OK);
        ck_assert_int_eq(m.leaves[c].physical, (int)t.physical);
        ck_assert_int_eq(m.leaves[c].max_def, m.schema->leaves[c].max_def);
        ck_assert_int_eq(m.leaves[c].max_rep, m.schema->leaves[c].max_rep);
        ck_assert(!m.leaves[c].int96_to_nanos);
        if (t.physical == INLAY_FIXED_LEN_BYTE_ARRAY) ck_assert_int_eq(m.leaves[c].type_length, t.type_length);
    }
    write_empty(m.schema, &b);
    ck_assert_bytes(b.data, b.len, a.data, a.len);
    inl_rd_meta_free(&m, &alloc);
    inlay_buffer_free(&a);
    inlay_buffer_free(&b);
}

START_TEST(test_every_type)
{
    inlay_schema *s = every_type();
    round_trip(s);
    inlay_schema_free(s);
}
END_TEST

START_TEST(test_nested)
{
    inlay_schema *s = nested();
    round_trip(s);
    inlay_schema_free(s);
}
END_TEST

/* inlay_schema_node numbers nodes depth-first, for a schema whose node ids
 * are in that order and for one built out of order. */
static void check_walk(const inlay_schema *s)
{
    const int n = inlay_schema_num_nodes(s);
    ck_assert_int_gt(n, 1);
    inlay_node_info root, info;
    ck_assert_int_eq(inlay_schema_node(s, 0, &root), INLAY_OK);
    ck_assert_int_eq(root.parent, -1);
    ck_assert(root.is_group);
    ck_assert_int_eq(root.first_child, 1);
    ck_assert_int_eq(inlay_schema_node(s, n, &info), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inlay_schema_node(s, -1, &info), INLAY_ERR_ARGUMENT);
    int column = 0;
    for (int k = 1; k < n; k++) {
        ck_assert_int_eq(inlay_schema_node(s, k, &info), INLAY_OK);
        ck_assert_int_lt(info.parent, k);   /* depth-first: parents first */
        inlay_node_info up;
        ck_assert_int_eq(inlay_schema_node(s, info.parent, &up), INLAY_OK);
        ck_assert(up.is_group);
        if (info.first_child >= 0) ck_assert_int_eq(info.first_child, k + 1);
        if (info.next_sibling >= 0) {
            inlay_node_info sib;
            ck_assert_int_eq(inlay_schema_node(s, info.next_sibling, &sib), INLAY_OK);
            ck_assert_int_eq(sib.parent, info.parent);
            ck_assert_int_gt(info.next_sibling, k);
        }
        if (info.is_group) {
            ck_assert_int_eq(info.column, -1);
            continue;
        }
        ck_assert_int_eq(info.column, column);
        const char *name;
        ck_assert_int_eq(inlay_schema_column(s, column, &name, NULL, NULL), INLAY_OK);
        ck_assert_str_eq(name, info.name);
        column++;
    }
    ck_assert_int_eq(column, inlay_schema_num_columns(s));
}

START_TEST(test_schema_node)
{
    inlay_schema *s = nested();
    check_walk(s);
    inlay_node_info info;
    /* person.tags (LIST): node 4 = person(2) name(3) tags(4) */
    ck_assert_int_eq(inlay_schema_node(s, 4, &info), INLAY_OK);
    ck_assert_str_eq(info.name, "tags");
    ck_assert_int_eq(info.group, INLAY_GROUP_LIST);
    ck_assert_int_eq(inlay_schema_node(s, 6, &info), INLAY_OK);
    ck_assert_str_eq(info.name, "element");
    ck_assert_int_eq(info.max_def, 4);
    ck_assert_int_eq(info.max_rep, 1);
    ck_assert_int_eq(info.column, 2);
    inlay_schema_free(s);

    /* fields added to an earlier group after later ones: ids out of order */
    s = inlay_schema_create(NULL);
    int g = inlay_schema_add_group(s, 0, "g", INLAY_OPTIONAL);
    add(s, 0, "late", INLAY_REQUIRED, inlay_type_int(32, true));
    add(s, g, "x", INLAY_REQUIRED, inlay_type_int(32, true));
    int l = inlay_schema_add_list(s, g, "l", INLAY_OPTIONAL);
    add(s, l, "element", INLAY_REQUIRED, inlay_type_string());
    check_walk(s);
    ck_assert_int_eq(inlay_schema_node(s, 2, &info), INLAY_OK);   /* g, x, l, list, element, late */
    ck_assert_str_eq(info.name, "x");
    ck_assert_int_eq(info.column, 0);
    ck_assert_int_eq(info.next_sibling, 3);
    ck_assert_int_eq(inlay_schema_node(s, 6, &info), INLAY_OK);
    ck_assert_str_eq(info.name, "late");
    ck_assert_int_eq(info.column, 2);
    ck_assert_int_eq(info.parent, 0);
    ck_assert_int_eq(info.max_def, 0);
    inlay_schema_free(s);

    /* a reader's schema */
    s = nested();
    inlay_buffer a;
    write_empty(s, &a);
    rd_meta m;
    PARSE_OK(&m, a.data, a.len);
    check_walk(m.schema);
    inl_rd_meta_free(&m, &alloc);
    inlay_buffer_free(&a);
    inlay_schema_free(s);
}
END_TEST

/* ---- chunks of a file with data ----------------------------------------------- */

enum { ROWS = 150, RG_ROWS = 60, NCOLS = 4 };

typedef struct data_file {
    inlay_buffer buf;
    inlay_schema *schema;
} data_file;

static bool name_null(int r) { return r % 7 == 3; }
static void name_of_row(int r, char *out) { snprintf(out, 8, "n%03d", (r * 37) % 101); }

/* id int64, name string (some null), tags list<int32>, flag bool; rows of
 * RG_ROWS, zstd; key-value metadata with a NULL value. With `use`, that
 * schema (f->schema is then NULL). */
static void write_data_as(data_file *f, int page_version, const inlay_schema *use)
{
    inlay_schema *s = NULL;
    if (!use) {
        s = inlay_schema_create(NULL);
        add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true));
        add(s, 0, "name", INLAY_OPTIONAL, inlay_type_string());
        int tags = inlay_schema_add_list(s, 0, "tags", INLAY_OPTIONAL);
        add(s, tags, "element", INLAY_OPTIONAL, inlay_type_int(32, true));
        add(s, 0, "flag", INLAY_REQUIRED, inlay_type_boolean());
    }
    f->schema = s;
    inlay_options o;
    inlay_options_init(&o);
    o.row_group_rows = RG_ROWS;
    o.page_rows = 25;
    o.page_version = page_version;
    o.min_compression_gain = 0;   /* every chunk ZSTD, as the checks below expect */
    static const inlay_kv kv[] = { { "origin", "check_footer" }, { "empty", NULL }, { "", "" } };
    o.metadata = kv;
    o.metadata_count = 3;
    inlay_buffer_init(&f->buf, NULL);
    inlay_writer *w = NULL;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&f->buf), use ? use : s, &o), INLAY_OK);
    int64_t id[ROWS];
    static char text[ROWS][8];
    inlay_bytes names[ROWS];
    int16_t name_def[ROWS];
    int32_t tag_values[2 * ROWS];
    int16_t tag_def[2 * ROWS], tag_rep[2 * ROWS];
    bool flag[ROWS];
    size_t nn = 0, nt = 0, nv = 0;
    for (int r = 0; r < ROWS; r++) {
        id[r] = (int64_t)r * 10 - 500;
        name_def[r] = !name_null(r);
        if (name_def[r]) {
            name_of_row(r, text[nn]);
            names[nn] = bytes_of(text[nn]);
            nn++;
        }
        if (r % 3 == 0) { tag_def[nt] = 0; tag_rep[nt++] = 0; }
        else { tag_def[nt] = 3; tag_rep[nt++] = 0; tag_values[nv++] = r; tag_def[nt] = 2; tag_rep[nt++] = 1; }
        flag[r] = r % 2;
    }
    inlay_levels name_lv = { name_def, NULL, NULL }, tag_lv = { tag_def, tag_rep, NULL };
    ck_assert_int_eq(inlay_writer_append_i64(w, 0, id, ROWS, NULL), INLAY_OK);
    ck_assert_int_eq(inlay_writer_append_bytes(w, 1, names, ROWS, &name_lv), INLAY_OK);
    ck_assert_int_eq(inlay_writer_append_i32(w, 2, tag_values, nt, &tag_lv), INLAY_OK);
    ck_assert_int_eq(inlay_writer_append_bool(w, 3, flag, ROWS, NULL), INLAY_OK);
    ck_assert_msg(inlay_writer_close(w) == INLAY_OK, "%s", inlay_writer_errmsg(w));
    inlay_writer_free(w);
}

static void write_data(data_file *f, int page_version) { write_data_as(f, page_version, NULL); }

static void free_data(data_file *f)
{
    inlay_buffer_free(&f->buf);
    inlay_schema_free(f->schema);
}

static int64_t le64(const uint8_t *p) { return (int64_t)((uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32); }

/* Walk the pages of a chunk: they fill it exactly and hold num_values. */
static void walk_pages(const uint8_t *file, const inlay_chunk_info *k, int want_type)
{
    int64_t pos = k->dictionary_page_offset >= 0 ? k->dictionary_page_offset : k->data_page_offset;
    const int64_t end = pos + k->compressed_size;
    int64_t values = 0, raw = 0;
    bool dict = false;
    while (pos < end) {
        rd_page_header h;
        const char *why = "?";
        size_t n = inl_rd_page_header(file + pos, (size_t)(end - pos), &h, &why);
        ck_assert_msg(n > 0, "page at %lld: %s", (long long)pos, why);
        if (h.type == PAGE_DICTIONARY) {
            ck_assert_int_eq(pos, k->dictionary_page_offset);
            dict = true;
        } else {
            ck_assert_int_eq(h.type, want_type);
            values += h.num_values;
        }
        pos += (int64_t)n + h.compressed_size;
        raw += (int64_t)n + h.uncompressed_size;
    }
    ck_assert_int_eq(pos, end);
    ck_assert_int_eq(values, k->num_values);
    ck_assert_int_eq(raw, k->uncompressed_size);
    ck_assert(dict == (k->dictionary_page_offset >= 0));
}

static void check_data(int page_version)
{
    data_file f;
    write_data(&f, page_version);
    rd_meta m;
    PARSE_OK(&m, f.buf.data, f.buf.len);
    const inlay_file_info *in = &m.info;
    ck_assert_same_schema(f.schema, m.schema);
    ck_assert_int_eq(in->num_rows, ROWS);
    ck_assert_int_eq(in->num_columns, NCOLS);
    ck_assert_int_eq(in->num_row_groups, (ROWS + RG_ROWS - 1) / RG_ROWS);
    ck_assert_uint_eq(in->metadata_count, 3);
    ck_assert_str_eq(in->metadata[0].key, "origin");
    ck_assert_str_eq(in->metadata[0].value, "check_footer");
    ck_assert_str_eq(in->metadata[1].key, "empty");
    ck_assert_ptr_null(in->metadata[1].value);
    ck_assert_str_eq(in->metadata[2].key, "");
    ck_assert_str_eq(in->metadata[2].value, "");
    ck_assert_str_eq(in->created_by, "inlay version " INLAY_VERSION_STRING);
    static const char *const paths[NCOLS] = { "id", "name", "tags.list.element", "flag" };
    int64_t next = 4;   /* chunks follow one another from the magic to the footer */
    for (int g = 0; g < in->num_row_groups; g++) {
        const inlay_row_group_info *rg = &in->row_groups[g];
        const int first = g * RG_ROWS, last = first + (int)rg->num_rows - 1;
        ck_assert_int_eq(rg->num_rows, g < 2 ? RG_ROWS : ROWS - 2 * RG_ROWS);
        ck_assert_int_eq(rg->file_offset, next);
        int64_t stored = 0;
        for (int c = 0; c < NCOLS; c++) {
            const inlay_chunk_info *k = &rg->chunks[c];
            ck_assert_int_eq(k->column, c);
            ck_assert_str_eq(k->path, paths[c]);
            ck_assert_int_eq(k->codec, INLAY_ZSTD);
            ck_assert_int_eq(k->physical, c == 0 ? 2 : c == 1 ? 6 : c == 2 ? 1 : 0);
            const int64_t start = k->dictionary_page_offset >= 0 ? k->dictionary_page_offset : k->data_page_offset;
            ck_assert_int_eq(start, next);
            next = start + k->compressed_size;
            stored += k->compressed_size;
            /* the page index lies after every row group, before the footer */
            ck_assert_int_gt(k->column_index_offset, 0);
            ck_assert_int_gt(k->column_index_length, 0);
            ck_assert_int_gt(k->offset_index_offset, k->column_index_offset);
            ck_assert_int_gt(k->offset_index_length, 0);
            ck_assert_int_le(k->offset_index_offset + k->offset_index_length,
                             (int64_t)f.buf.len - 8 - (int64_t)in->footer_size);
            ck_assert_int_eq(k->bloom_filter_offset, -1);
            ck_assert(k->encodings != 0);
            walk_pages(f.buf.data, k, page_version == 2 ? PAGE_DATA_V2 : PAGE_DATA);
            ck_assert(k->has_statistics);
            const inlay_statistics *st = &k->statistics;
            ck_assert(st->has_null_count);
            ck_assert(st->min_exact && st->max_exact);
            if (c == 0) {
                ck_assert_int_eq(k->num_values, rg->num_rows);
                ck_assert_int_eq(st->null_count, 0);
                ck_assert_uint_eq(st->min_len, 8);
                ck_assert_uint_eq(st->max_len, 8);
                ck_assert_int_eq(le64(st->min), (int64_t)first * 10 - 500);
                ck_assert_int_eq(le64(st->max), (int64_t)last * 10 - 500);
            } else if (c == 1) {
                char lo[8] = "~", hi[8] = "";
                int nulls = 0;
                for (int r = first; r <= last; r++) {
                    char t[8];
                    if (name_null(r)) { nulls++; continue; }
                    name_of_row(r, t);
                    if (strcmp(t, lo) < 0) strcpy(lo, t);
                    if (strcmp(t, hi) > 0) strcpy(hi, t);
                }
                ck_assert_int_eq(st->null_count, nulls);
                ck_assert_bytes(st->min, st->min_len, lo, strlen(lo));
                ck_assert_bytes(st->max, st->max_len, hi, strlen(hi));
            } else if (c == 2) {
                int lo = INT32_MAX, hi = INT32_MIN;
                for (int r = first; r <= last; r++)
                    if (r % 3) { lo = r < lo ? r : lo; hi = r > hi ? r : hi; }
                ck_assert_uint_eq(st->min_len, 4);
                ck_assert_int_eq((int32_t)le32(st->min), lo);
                ck_assert_int_eq((int32_t)le32(st->max), hi);
            } else {
                ck_assert_uint_eq(st->min_len, 1);
                ck_assert_int_eq(st->min[0], 0);
                ck_assert_int_eq(st->max[0], 1);
            }
        }
        ck_assert_int_eq(rg->total_compressed_size, stored);
    }
    /* the page index follows the last chunk and ends where the footer starts */
    ck_assert_int_eq(next, in->row_groups[0].chunks[0].column_index_offset);
    const inlay_row_group_info *last = &in->row_groups[in->num_row_groups - 1];
    const inlay_chunk_info *lk = &last->chunks[NCOLS - 1];
    ck_assert_int_eq(lk->offset_index_offset + lk->offset_index_length, (int64_t)f.buf.len - 8 - (int64_t)in->footer_size);

    /* the schema read writes the same file from the same data */
    data_file again;
    write_data_as(&again, page_version, m.schema);
    ck_assert_bytes(again.buf.data, again.buf.len, f.buf.data, f.buf.len);
    free_data(&again);
    inl_rd_meta_free(&m, &alloc);
    free_data(&f);
}

START_TEST(test_chunks_v1) { check_data(1); }
END_TEST

START_TEST(test_chunks_v2) { check_data(2); }
END_TEST

/* A nested schema read back opens a writer, takes rows, and the file it
 * writes reads back with the same schema. */
START_TEST(test_read_schema_writes)
{
    data_file f;
    write_data(&f, 1);
    rd_meta m;
    PARSE_OK(&m, f.buf.data, f.buf.len);
    inlay_buffer out;
    inlay_buffer_init(&out, NULL);
    inlay_writer *w = NULL;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&out), m.schema, NULL), INLAY_OK);
    const int64_t id[2] = { 1, 2 };
    inlay_bytes names[1] = { bytes_of("x") };
    int16_t name_def[2] = { 1, 0 };
    int32_t tag_values[2] = { 7, 8 };
    int16_t tag_def[3] = { 3, 3, 1 }, tag_rep[3] = { 0, 1, 0 };
    bool flag[2] = { true, false };
    inlay_levels name_lv = { name_def, NULL, NULL }, tag_lv = { tag_def, tag_rep, NULL };
    ck_assert_int_eq(inlay_writer_append_i64(w, 0, id, 2, NULL), INLAY_OK);
    ck_assert_int_eq(inlay_writer_append_bytes(w, 1, names, 2, &name_lv), INLAY_OK);
    ck_assert_int_eq(inlay_writer_append_i32(w, 2, tag_values, 3, &tag_lv), INLAY_OK);
    ck_assert_int_eq(inlay_writer_append_bool(w, 3, flag, 2, NULL), INLAY_OK);
    ck_assert_msg(inlay_writer_close(w) == INLAY_OK, "%s", inlay_writer_errmsg(w));
    inlay_writer_free(w);
    rd_meta m2;
    PARSE_OK(&m2, out.data, out.len);
    ck_assert_same_schema(m.schema, m2.schema);
    ck_assert_int_eq(m2.info.num_rows, 2);
    inl_rd_meta_free(&m2, &alloc);
    inl_rd_meta_free(&m, &alloc);
    inlay_buffer_free(&out);
    free_data(&f);
}
END_TEST

/* ---- footers by hand ------------------------------------------------------------ */

/* A SchemaElement: type -1 for a group; rep -1 for none (the root);
 * converted -1 for none; logical 0 for none (else an empty member: LIST 3,
 * MAP 2, STRING 1, BSON 13, UNKNOWN 11...). */
typedef struct xel {
    const char *name;
    int type, rep, children, converted, logical;
    int length, scale, precision;
} xel;

#define G(name, rep, n, conv) { name, -1, rep, n, conv, 0, 0, 0, 0 }
#define P(name, type, rep, conv) { name, type, rep, 0, conv, 0, 0, 0, 0 }
enum { REQ = 0, OPT = 1, REP = 2, NONE = -1 };

static void put_xel(tc *t, const xel *e)
{
    inl_tc_list_struct(t);
    if (e->type >= 0) inl_tc_field_i32(t, 1, e->type);
    if (e->length) inl_tc_field_i32(t, 2, e->length);
    if (e->rep >= 0) inl_tc_field_i32(t, 3, e->rep);
    inl_tc_field_string(t, 4, e->name);
    if (e->type < 0) inl_tc_field_i32(t, 5, e->children);
    if (e->converted >= 0) inl_tc_field_i32(t, 6, e->converted);
    if (e->scale) inl_tc_field_i32(t, 7, e->scale);
    if (e->precision) inl_tc_field_i32(t, 8, e->precision);
    if (e->logical) {
        inl_tc_field_struct(t, 10);
        inl_tc_field_struct(t, (int16_t)e->logical);
        inl_tc_struct_end(t);
        inl_tc_struct_end(t);
    }
    inl_tc_struct_end(t);
}

/* Legacy shapes and types the writer never makes. */
static const xel legacy[] = {
    G("spark_schema", NONE, 18, NONE),
    G("a", OPT, 1, 3), P("array", 1, REP, NONE),                              /* 2-level, primitive */
    G("b", OPT, 1, 3), G("array", REP, 1, NONE), P("x", 1, REQ, NONE),         /* "array": the element */
    G("c", OPT, 1, 3), G("c_tuple", REP, 1, NONE), P("x", 6, REQ, 0),          /* "<list>_tuple" */
    G("d", OPT, 1, 3), G("pair", REP, 2, NONE), P("x", 1, REQ, NONE), P("y", 6, OPT, NONE),   /* several fields */
    { "e", -1, OPT, 1, NONE, 3, 0, 0, 0 },                                      /* 3-level, Hive's names */
    G("bag", REP, 1, NONE), P("array_element", 1, OPT, NONE),
    G("m", OPT, 1, 1), G("map", REP, 2, 2), P("key", 6, REQ, 0), P("value", 1, OPT, NONE),   /* MAP_KEY_VALUE inside */
    G("n", REQ, 1, 2), G("entries", REP, 1, NONE), P("k", 2, REQ, NONE),        /* MAP_KEY_VALUE outside, key only */
    G("f", OPT, 2, 3), P("x", 1, REQ, NONE), P("y", 1, REQ, NONE),             /* no list shape: a struct */
    P("r", 1, REP, NONE),                                                       /* bare repeated */
    P("ts", 3, OPT, NONE),                                                      /* INT96 */
    P("s", 6, OPT, 0),                                                          /* UTF8 */
    P("tm", 2, REQ, 9),                                                         /* TIMESTAMP_MILLIS */
    P("u16", 1, REQ, 12),                                                       /* UINT_16 */
    { "dec", 7, OPT, 0, 5, 0, 9, 4, 20 },                                      /* DECIMAL(20,4) on FLBA(9) */
    { "bson", 6, OPT, 0, 20, 13, 0, 0, 0 },                                    /* BSON */
    { "iv", 7, OPT, 0, 21, 0, 12, 0, 0 },                                      /* INTERVAL */
    { "bad_dec", 1, REQ, 0, 5, 0, 0, 2, 12 },                                  /* precision past INT32's */
    G("g", OPT, 1, 3), G("list", REP, 1, NONE), P("element", 1, REP, NONE),    /* a repeated element */
};

static const char legacy_text[] =
    "message schema {\n"
    "  optional group a (LIST) {\n    repeated group list {\n      required int32 element;\n    }\n  }\n"
    "  optional group b (LIST) {\n    repeated group list {\n      required group element {\n"
    "        required int32 x;\n      }\n    }\n  }\n"
    "  optional group c (LIST) {\n    repeated group list {\n      required group element {\n"
    "        required binary x (STRING);\n      }\n    }\n  }\n"
    "  optional group d (LIST) {\n    repeated group list {\n      required group element {\n"
    "        required int32 x;\n        optional binary y;\n      }\n    }\n  }\n"
    "  optional group e (LIST) {\n    repeated group list {\n      optional int32 element;\n    }\n  }\n"
    "  optional group m (MAP) {\n    repeated group key_value {\n      required binary key (STRING);\n"
    "      optional int32 value;\n    }\n  }\n"
    "  required group n (MAP) {\n    repeated group key_value {\n      required int64 key;\n    }\n  }\n"
    "  optional group f {\n    required int32 x;\n    required int32 y;\n  }\n"
    "  repeated int32 r;\n"
    "  optional int64 ts (TIMESTAMP(NANOS,false));\n"
    "  optional binary s (STRING);\n"
    "  required int64 tm (TIMESTAMP(MILLIS,true));\n"
    "  required int32 u16 (INTEGER(16,false));\n"
    "  optional fixed_len_byte_array(9) dec (DECIMAL(20,4));\n"
    "  optional binary bson;\n"
    "  optional fixed_len_byte_array(12) iv;\n"
    "  required int32 bad_dec;\n"
    "  optional group g (LIST) {\n    repeated group list {\n      required group element {\n"
    "        repeated int32 element;\n      }\n    }\n  }\n"
    "}\n";

/* The leaves of `legacy`, by the file's paths, and their levels. */
static const struct { const char *path; int type; int def, rep; } legacy_leaves[] = {
    { "a.array", 1, 2, 1 }, { "b.array.x", 1, 2, 1 }, { "c.c_tuple.x", 6, 2, 1 }, { "d.pair.x", 1, 2, 1 },
    { "d.pair.y", 6, 3, 1 }, { "e.bag.array_element", 1, 3, 1 }, { "m.map.key", 6, 2, 1 },
    { "m.map.value", 1, 3, 1 }, { "n.entries.k", 2, 1, 1 }, { "f.x", 1, 1, 0 }, { "f.y", 1, 1, 0 },
    { "r", 1, 1, 1 }, { "ts", 3, 1, 0 }, { "s", 6, 1, 0 }, { "tm", 2, 0, 0 }, { "u16", 1, 0, 0 },
    { "dec", 7, 1, 0 }, { "bson", 6, 1, 0 }, { "iv", 7, 1, 0 }, { "bad_dec", 1, 0, 0 },
    { "g.list.element", 1, 3, 2 },
};
enum { LEGACY_LEAVES = sizeof legacy_leaves / sizeof legacy_leaves[0], CHUNK = 100 };

/* What to break in a hand-made footer. */
typedef enum breakage {
    OK_FOOTER, BAD_PATH, BAD_TYPE, FEW_CHUNKS, NO_META, NEGATIVE_SIZE, OFFSET_IN_MAGIC, PAST_FOOTER,
    WRONG_ROWS, DICT_ZERO, DICT_IN_MAGIC, OTHER_FILE, TRAILING,
} breakage;

static void put_chunk(tc *t, int c, breakage b)
{
    char path[64];
    snprintf(path, sizeof path, "%s", legacy_leaves[c].path);
    if (b == BAD_PATH && c == 3) strcpy(path, "d.pair.z");
    const char *parts[8];
    int n = 0;
    for (char *s = strtok(path, "."); s; s = strtok(NULL, ".")) parts[n++] = s;
    inl_tc_list_struct(t);
    if (b == OTHER_FILE && c == 2) inl_tc_field_string(t, 1, "elsewhere.parquet");
    inl_tc_field_i64(t, 2, 4 + CHUNK * c);
    if (!(b == NO_META && c == 5)) {
        inl_tc_field_struct(t, 3);
        inl_tc_field_i32(t, 1, b == BAD_TYPE && c == 4 ? 1 : legacy_leaves[c].type);
        inl_tc_field_list(t, 2, TC_I32, 2);
        inl_tc_list_i32(t, ENC_PLAIN);
        inl_tc_list_i32(t, ENC_RLE);
        inl_tc_field_list(t, 3, TC_BINARY, (uint32_t)n);
        for (int i = 0; i < n; i++) inl_tc_list_binary(t, parts[i], strlen(parts[i]));
        inl_tc_field_i32(t, 4, 0);
        inl_tc_field_i64(t, 5, 1);
        inl_tc_field_i64(t, 6, CHUNK);
        inl_tc_field_i64(t, 7, b == NEGATIVE_SIZE && c == 6 ? -CHUNK : CHUNK);
        int64_t data = 4 + CHUNK * c;
        if (b == OFFSET_IN_MAGIC && c == 7) data = 2;
        if (b == PAST_FOOTER && c == LEGACY_LEAVES - 1) data += 1;
        inl_tc_field_i64(t, 9, data);
        if (b == DICT_ZERO) inl_tc_field_i64(t, 11, 0);
        if (b == DICT_IN_MAGIC && c == 8) inl_tc_field_i64(t, 11, 3);
        const char *name = legacy_leaves[c].path;
        if (!strcmp(name, "r") || !strcmp(name, "u16") || !strcmp(name, "ts") || !strcmp(name, "s")) {
            /* r and u16: legacy min/max (4-byte ints); ts: INT96 bounds; s: min_value/max_value */
            inl_tc_field_struct(t, 12);
            static const uint8_t lo[12] = { 1, 0, 0, 0 }, hi[12] = { 0xff, 0xff, 0xff, 0xff };
            const size_t w = !strcmp(name, "ts") ? 12 : 4;
            if (!strcmp(name, "s")) {
                inl_tc_field_i64(t, 3, 2);
                inl_tc_field_binary(t, 5, "zz", 2);
                inl_tc_field_binary(t, 6, "aa", 2);
                inl_tc_field_bool(t, 7, false);
            } else {
                inl_tc_field_binary(t, 1, hi, w);
                inl_tc_field_binary(t, 2, lo, w);
                inl_tc_field_i64(t, 3, -1);   /* a negative count: left out */
                inl_tc_field_i64(t, 4, 7);
            }
            inl_tc_struct_end(t);
        }
        inl_tc_struct_end(t);
    }
    if (c == 0) {
        inl_tc_field_i64(t, 4, 1000);
        inl_tc_field_i32(t, 5, 20);
    }
    inl_tc_struct_end(t);
}

/* A footer of the `legacy` schema and one row group, with a chunk of
 * CHUNK bytes per leaf from offset 4; *file_size the file it ends. */
static void legacy_footer(buf *out, breakage b, uint64_t *file_size)
{
    tc t;
    inl_tc_init(&t, out, &alloc);
    inl_tc_field_i32(&t, 1, 1);
    const uint32_t nel = sizeof legacy / sizeof legacy[0];
    inl_tc_field_list(&t, 2, TC_STRUCT, nel);
    for (uint32_t i = 0; i < nel; i++) put_xel(&t, &legacy[i]);
    inl_tc_field_i64(&t, 3, b == WRONG_ROWS ? 2 : 1);
    inl_tc_field_list(&t, 4, TC_STRUCT, 1);
    inl_tc_list_struct(&t);
    const int nchunks = b == FEW_CHUNKS ? LEGACY_LEAVES - 1 : LEGACY_LEAVES;
    inl_tc_field_list(&t, 1, TC_STRUCT, (uint32_t)nchunks);
    for (int c = 0; c < nchunks; c++) put_chunk(&t, c, b);
    inl_tc_field_i64(&t, 2, CHUNK * LEGACY_LEAVES);
    inl_tc_field_i64(&t, 3, 1);
    inl_tc_struct_end(&t);
    static const inlay_kv kv[] = { { "k", "v" } };
    inl_tc_field_list(&t, 5, TC_STRUCT, 1);
    inl_tc_list_struct(&t);
    inl_tc_field_string(&t, 1, kv[0].key);
    inl_tc_field_string(&t, 2, kv[0].value);
    inl_tc_struct_end(&t);
    inl_tc_struct_end(&t);
    ck_assert_int_eq(t.err, 0);
    if (b == TRAILING) ck_assert_int_eq(inl_buf_append(out, &alloc, "x", 1), 0);
    *file_size = 4 + (uint64_t)CHUNK * LEGACY_LEAVES + out->len + 8;
}

static int parse_legacy(rd_meta *m, breakage b, inl_err *err)
{
    buf f = { 0 };
    uint64_t size;
    legacy_footer(&f, b, &size);
    inl_err_clear(err);
    int st = inl_rd_meta_parse(m, f.data, f.len, size, &alloc, err);
    inl_buf_free(&f, &alloc);
    return st;
}

START_TEST(test_legacy_schema)
{
    rd_meta m;
    inl_err err;
    int st = parse_legacy(&m, OK_FOOTER, &err);
    ck_assert_msg(st == INLAY_OK, "%s", err.msg);
    char *text = format(m.schema);
    ck_assert_msg(strcmp(text, legacy_text) == 0, "read as:\n%s", text);
    free(text);
    ck_assert_int_eq(m.info.num_columns, LEGACY_LEAVES);
    ck_assert_str_eq(m.info.created_by, "");
    ck_assert_uint_eq(m.info.metadata_count, 1);
    ck_assert_str_eq(m.info.metadata[0].value, "v");
    for (int c = 0; c < LEGACY_LEAVES; c++) {
        const inlay_chunk_info *k = &m.info.row_groups[0].chunks[c];
        ck_assert_str_eq(k->path, legacy_leaves[c].path);
        ck_assert_int_eq(k->physical, legacy_leaves[c].type);
        ck_assert_int_eq(m.leaves[c].physical, legacy_leaves[c].type);
        ck_assert_msg(m.leaves[c].max_def == legacy_leaves[c].def && m.leaves[c].max_rep == legacy_leaves[c].rep,
                      "%s: levels %d/%d", k->path, m.leaves[c].max_def, m.leaves[c].max_rep);
        ck_assert_int_eq(m.schema->leaves[c].max_def, legacy_leaves[c].def);
        ck_assert_int_eq(m.schema->leaves[c].max_rep, legacy_leaves[c].rep);
        ck_assert_int_eq(k->data_page_offset, 4 + CHUNK * c);
        ck_assert_int_eq(k->dictionary_page_offset, -1);
        ck_assert_uint_eq(k->encodings, (1u << ENC_PLAIN) | (1u << ENC_RLE));
        const inlay_statistics *st2 = &k->statistics;
        if (!strcmp(k->path, "r")) {          /* signed INT32: legacy min/max are good */
            ck_assert(k->has_statistics);
            ck_assert_uint_eq(st2->min_len, 4);
            ck_assert_int_eq((int32_t)le32(st2->min), 1);
            ck_assert_int_eq((int32_t)le32(st2->max), -1);
            ck_assert(!st2->has_null_count);
            ck_assert(st2->has_distinct_count);
            ck_assert_int_eq(st2->distinct_count, 7);
        } else if (!strcmp(k->path, "u16") || !strcmp(k->path, "ts")) {   /* unsigned, INT96: not */
            ck_assert(k->has_statistics);
            ck_assert_ptr_null(st2->min);
            ck_assert_ptr_null(st2->max);
        } else if (!strcmp(k->path, "s")) {
            ck_assert_bytes(st2->min, st2->min_len, "aa", 2);
            ck_assert_bytes(st2->max, st2->max_len, "zz", 2);
            ck_assert(!st2->max_exact);
            ck_assert(st2->min_exact);
            ck_assert_int_eq(st2->null_count, 2);
        } else {
            ck_assert(!k->has_statistics);
        }
    }
    ck_assert_int_eq(m.info.row_groups[0].chunks[0].offset_index_offset, 1000);
    ck_assert_int_eq(m.info.row_groups[0].chunks[0].offset_index_length, 20);
    ck_assert(m.leaves[12].int96_to_nanos);
    ck_assert_int_eq(m.leaves[12].type_length, 12);
    ck_assert_int_eq(m.leaves[16].type_length, 9);

    /* the normalized schema opens a writer, takes rows, and reads back the same */
    inlay_buffer out;
    inlay_buffer_init(&out, NULL);
    inlay_writer *w = NULL;
    st = inlay_writer_open(&w, inlay_buffer_sink(&out), m.schema, NULL);
    ck_assert_msg(st == INLAY_OK, "open: %s", inlay_writer_errmsg(w));
    /* a: [[1, 2], [], null] as levels of a.list.element (def 2, rep 1) */
    const int32_t a_values[2] = { 1, 2 };
    const int16_t a_def[4] = { 2, 2, 1, 0 }, a_rep[4] = { 0, 1, 0, 0 };
    inlay_levels a_lv = { a_def, a_rep, NULL };
    ck_assert_msg(inlay_writer_append_i32(w, 0, a_values, 4, &a_lv) == INLAY_OK, "%s", inlay_writer_errmsg(w));
    inlay_writer_abort(w);
    inlay_writer_free(w);
    inlay_buffer_free(&out);
    write_empty(m.schema, &out);
    rd_meta m2;
    PARSE_OK(&m2, out.data, out.len);
    ck_assert_same_schema(m.schema, m2.schema);
    inl_rd_meta_free(&m2, &alloc);
    inlay_buffer_free(&out);
    inl_rd_meta_free(&m, &alloc);
}
END_TEST

/* Each breakage: INLAY_ERR_FORMAT with a message saying where. */
START_TEST(test_bad_chunks)
{
    static const struct { breakage b; const char *want; } cases[] = {
        { BAD_PATH, "row group 0, column 'd.pair.x': the chunk's path_in_schema is 'd.pair.z'" },
        { BAD_TYPE, "row group 0, column 'd.pair.y': the chunk's type is INT32, the schema's BYTE_ARRAY" },
        { FEW_CHUNKS, "row group 0 has 20 column chunks; the schema has 21 columns" },
        { NO_META, "row group 0, column 'e.bag.array_element': no ColumnMetaData" },
        { NEGATIVE_SIZE, "row group 0, column 'm.map.key': total_compressed_size -100 is not positive" },
        { OFFSET_IN_MAGIC, "row group 0, column 'm.map.value': data_page_offset 2 is before the first page" },
        { PAST_FOOTER, "row group 0, column 'g.list.element': chunk ends past the footer" },
        { WRONG_ROWS, "footer: num_rows is 2 but the row groups hold 1" },
        { DICT_IN_MAGIC, "row group 0, column 'n.entries.k': dictionary_page_offset 3 is before the first page" },
        { OTHER_FILE, "row group 0, column 'c.c_tuple.x': the chunk's data is in another file" },
        { TRAILING, "footer: 1 bytes after the FileMetaData" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rd_meta m;
        inl_err err;
        const int st = parse_legacy(&m, cases[i].b, &err);
        ck_assert_msg(st == INLAY_ERR_FORMAT, "case %zu: %d %s", i, st, err.msg);
        ck_assert_msg(strstr(err.msg, cases[i].want), "case %zu: '%s', not '%s'", i, err.msg, cases[i].want);
        ck_assert_ptr_null(m.schema);
        ck_assert_ptr_null(m.chunks);
        inl_rd_meta_free(&m, &alloc);
    }
    /* a dictionary_page_offset of 0 means none */
    rd_meta m;
    inl_err err;
    ck_assert_int_eq(parse_legacy(&m, DICT_ZERO, &err), INLAY_OK);
    ck_assert_int_eq(m.info.row_groups[0].chunks[3].dictionary_page_offset, -1);
    inl_rd_meta_free(&m, &alloc);
}
END_TEST

/* A footer whose schema is the root, `depth` nested groups of one field
 * each, then an INT32 leaf; no row groups. */
static void deep_footer(buf *out, int depth)
{
    tc t;
    inl_tc_init(&t, out, &alloc);
    inl_tc_field_i32(&t, 1, 1);
    inl_tc_field_list(&t, 2, TC_STRUCT, (uint32_t)depth + 2);
    xel root = G("schema", NONE, 1, NONE);
    put_xel(&t, &root);
    for (int i = 0; i < depth; i++) {
        xel g = G("g", OPT, 1, NONE);
        put_xel(&t, &g);
    }
    xel leaf = P("v", 1, OPT, NONE);
    put_xel(&t, &leaf);
    inl_tc_field_i64(&t, 3, 0);
    inl_tc_field_list(&t, 4, TC_STRUCT, 0);
    inl_tc_struct_end(&t);
    ck_assert_int_eq(t.err, 0);
}

START_TEST(test_deep_schema)
{
    static const struct { int depth; int status; } cases[] = {
        { 63, INLAY_OK }, { 64, INLAY_ERR_FORMAT }, { 10000, INLAY_ERR_FORMAT },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        buf f = { 0 };
        deep_footer(&f, cases[i].depth);
        rd_meta m;
        inl_err err;
        inl_err_clear(&err);
        const int st = inl_rd_meta_parse(&m, f.data, f.len, f.len + 12, &alloc, &err);
        ck_assert_msg(st == cases[i].status, "depth %d: %d %s", cases[i].depth, st, err.msg);
        if (st) ck_assert_msg(strstr(err.msg, "deeper than 64"), "%s", err.msg);
        else ck_assert_int_eq(m.leaves[0].max_def, 64);
        inl_rd_meta_free(&m, &alloc);
        inl_buf_free(&f, &alloc);
    }
}
END_TEST

static void expect_format(const uint8_t *p, size_t n, const char *want)
{
    rd_meta m;
    inl_err err;
    inl_err_clear(&err);
    const int st = inl_rd_meta_parse(&m, p, n, n + 1000, &alloc, &err);
    ck_assert_msg(st == INLAY_ERR_FORMAT, "%d %s", st, err.msg);
    ck_assert_msg(strstr(err.msg, want), "'%s', not '%s'", err.msg, want);
    inl_rd_meta_free(&m, &alloc);
}

START_TEST(test_absurd_counts)
{
    /* version 1, then a schema list claiming 2^31 SchemaElements */
    static const uint8_t big_list[] = { 0x15, 0x02, 0x19, 0xfc, 0x80, 0x80, 0x80, 0x80, 0x08, 0x00, 0x00, 0x00 };
    expect_format(big_list, sizeof big_list, "footer: cut short at byte 3");
    /* the same in the row groups' columns: a list of 2^31 - 1 ColumnChunks */
    static const uint8_t big_cols[] = { 0x15, 0x02, 0x39, 0x1c, 0x19, 0xfc, 0xff, 0xff, 0xff, 0xff, 0x07, 0x00, 0x00 };
    expect_format(big_cols, sizeof big_cols, "footer: cut short at byte 5");
    /* a varint of 11 bytes */
    static const uint8_t long_varint[] = { 0x16, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                           0x01, 0x00 };
    expect_format(long_varint, sizeof long_varint, "footer: malformed at byte 1");
    /* an i32 past its range */
    static const uint8_t wide_i32[] = { 0x15, 0xff, 0xff, 0xff, 0xff, 0x1f, 0x00 };
    expect_format(wide_i32, sizeof wide_i32, "footer: malformed at byte 1");
    /* an unknown field type */
    static const uint8_t bad_type[] = { 0x1e, 0x00 };
    expect_format(bad_type, sizeof bad_type, "footer: malformed at byte 0");
    /* lists nested past the depth limit, in a field nobody reads */
    uint8_t nest[300];
    size_t n = 0;
    nest[n++] = 0x89;   /* field 8: a list */
    for (int i = 0; i < 140; i++) nest[n++] = 0x19;   /* one list of lists ... */
    nest[n++] = 0x00;
    expect_format(nest, n, "malformed");
    /* required fields */
    static const uint8_t empty[] = { 0x00 };
    expect_format(empty, sizeof empty, "the FileMetaData has no version");
}
END_TEST

/* ---- corruption of a real footer ------------------------------------------------- */

static void footer_of(const data_file *f, const uint8_t **p, size_t *n)
{
    *n = le32(f->buf.data + f->buf.len - 8);
    *p = f->buf.data + f->buf.len - 8 - *n;
}

START_TEST(test_truncations)
{
    data_file f;
    write_data(&f, 1);
    const uint8_t *footer;
    size_t n;
    footer_of(&f, &footer, &n);
    for (size_t cut = 0; cut < n; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1);   /* exactly cut bytes, for ASan */
        memcpy(copy, footer, cut);
        rd_meta m;
        inl_err err;
        inl_err_clear(&err);
        const int st = inl_rd_meta_parse(&m, copy, cut, f.buf.len, &alloc, &err);
        ck_assert_msg(st == INLAY_ERR_FORMAT, "cut at %zu: %d", cut, st);
        ck_assert_ptr_null(m.schema);
        inl_rd_meta_free(&m, &alloc);
        free(copy);
        ck_assert_no_leak(&counts);
    }
    free_data(&f);
}
END_TEST

START_TEST(test_bit_flips)
{
    data_file f;
    write_data(&f, 2);
    const uint8_t *footer;
    size_t n;
    footer_of(&f, &footer, &n);
    uint8_t *copy = malloc(n);
    uint64_t seed = 20240611;
    int ok = 0;
    for (int i = 0; i < 4000; i++) {
        memcpy(copy, footer, n);
        const uint64_t r = rng_next(&seed);
        const int flips = 1 + (int)(r % 3 == 0);   /* mostly one bit, sometimes two */
        for (int k = 0; k < flips; k++) {
            const uint64_t bit = rng_next(&seed) % (n * 8);
            copy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        rd_meta m;
        inl_err err;
        inl_err_clear(&err);
        const int st = inl_rd_meta_parse(&m, copy, n, f.buf.len, &alloc, &err);
        ck_assert_msg(st == INLAY_OK || st == INLAY_ERR_FORMAT, "flip %d: %d %s", i, st, err.msg);
        if (st == INLAY_OK) {
            ok++;
            /* what it says holds together */
            ck_assert_int_eq(m.schema->num_leaves, m.info.num_columns);
            char text[4096];
            inlay_schema_format(m.schema, text, sizeof text);
            for (int g = 0; g < m.info.num_row_groups; g++)
                for (int c = 0; c < m.info.num_columns; c++) {
                    const inlay_chunk_info *k = &m.info.row_groups[g].chunks[c];
                    ck_assert_ptr_nonnull(k->path);
                    const int64_t dict = k->dictionary_page_offset, data = k->data_page_offset;
                    const int64_t start = dict >= 0 && dict < data ? dict : data;
                    ck_assert_int_ge(start, 4);
                    ck_assert_int_le(start + k->compressed_size, (int64_t)f.buf.len - 8 - (int64_t)n);
                }
            for (int k = 0; k < inlay_schema_num_nodes(m.schema); k++) {
                inlay_node_info info;
                ck_assert_int_eq(inlay_schema_node(m.schema, k, &info), INLAY_OK);
            }
        } else {
            ck_assert_ptr_null(m.schema);
        }
        inl_rd_meta_free(&m, &alloc);
        ck_assert_no_leak(&counts);
    }
    ck_assert_int_gt(ok, 0);   /* some flips hit statistics bytes and stay valid */
    free(copy);
    free_data(&f);
}
END_TEST

/* Every allocation failing in turn: NOMEM, nothing leaked, *m empty. */
START_TEST(test_nomem)
{
    data_file f;
    write_data(&f, 1);
    const uint8_t *footer;
    size_t n;
    footer_of(&f, &footer, &n);
    for (unsigned long k = 1;; k++) {
        memset(&counts, 0, sizeof counts);
        counts.fail_at = k;
        rd_meta m;
        inl_err err;
        inl_err_clear(&err);
        const int st = inl_rd_meta_parse(&m, footer, n, f.buf.len, &alloc, &err);
        if (!counts.refused) {
            ck_assert_int_eq(st, INLAY_OK);
            inl_rd_meta_free(&m, &alloc);
            ck_assert_no_leak(&counts);
            ck_assert_uint_gt(k, 5);
            break;
        }
        ck_assert_msg(st == INLAY_ERR_NOMEM, "allocation %lu: %d %s", k, st, err.msg);
        ck_assert_ptr_null(m.schema);
        inl_rd_meta_free(&m, &alloc);
        ck_assert_no_leak(&counts);
    }
    /* the same for a hand-made legacy footer */
    buf leg = { 0 };
    uint64_t size;
    inlay_allocator keep = alloc;
    alloc = inl_mem_default();
    legacy_footer(&leg, OK_FOOTER, &size);
    alloc = keep;
    for (unsigned long k = 1;; k++) {
        memset(&counts, 0, sizeof counts);
        counts.fail_at = k;
        rd_meta m;
        inl_err err;
        const int st = inl_rd_meta_parse(&m, leg.data, leg.len, size, &alloc, &err);
        inl_rd_meta_free(&m, &alloc);
        ck_assert_no_leak(&counts);
        if (!counts.refused) {
            ck_assert_int_eq(st, INLAY_OK);
            break;
        }
        ck_assert_msg(st == INLAY_ERR_NOMEM, "allocation %lu: %d %s", k, st, err.msg);
    }
    inlay_allocator dflt = inl_mem_default();
    inl_buf_free(&leg, &dflt);
    free_data(&f);
}
END_TEST

/* ---- page headers --------------------------------------------------------------- */

static const uint8_t levels[8] = { 2, 0, 0, 0, 0x06, 0x01, 0x03, 0x02 };
static uint8_t zeros[400];

static size_t write_page(buf *out, const page_desc *d, inlay_compression codec)
{
    compressor z;
    page_scratch sc;
    memset(&sc, 0, sizeof sc);
    ck_assert_int_eq(inl_compress_init(&z, &alloc, codec, 3, 0), 0);
    size_t raw, stored;
    ck_assert_int_eq(inl_page_write(out, &alloc, &z, &sc, d, 0, &raw, &stored), 0);
    inl_page_scratch_free(&sc, &alloc);
    inl_compress_free(&z);
    return stored;
}

/* A page header read back; every shorter prefix is "cut short". */
static size_t read_back(const buf *out, rd_page_header *h)
{
    const char *why = "unset";
    const size_t n = inl_rd_page_header(out->data, out->len, h, &why);
    ck_assert_msg(n > 0, "%s", why);
    ck_assert_ptr_null(why);
    ck_assert_uint_eq(n + (size_t)h->compressed_size, out->len);
    for (size_t cut = 0; cut < n; cut++) {
        rd_page_header g;
        uint8_t *copy = malloc(cut ? cut : 1);
        memcpy(copy, out->data, cut);
        why = NULL;
        ck_assert_uint_eq(inl_rd_page_header(copy, cut, &g, &why), 0);
        ck_assert_str_eq(why, "page header cut short");
        free(copy);
    }
    return n;
}

START_TEST(test_page_v1)
{
    buf out = { 0 };
    page_desc d;
    memset(&d, 0, sizeof d);
    d.type = PAGE_DATA;
    d.num_values = 10;
    d.encoding = ENC_RLE_DICTIONARY;
    d.parts[0] = levels;
    d.lens[0] = sizeof levels;
    d.parts[1] = zeros;
    d.lens[1] = 40;
    d.nparts = 2;
    write_page(&out, &d, INLAY_ZSTD);
    rd_page_header h;
    read_back(&out, &h);
    ck_assert_int_eq(h.type, PAGE_DATA);
    ck_assert_int_eq(h.num_values, 10);
    ck_assert_int_eq(h.encoding, ENC_RLE_DICTIONARY);
    ck_assert_int_eq(h.def_encoding, ENC_RLE);
    ck_assert_int_eq(h.rep_encoding, ENC_RLE);
    ck_assert_int_eq(h.uncompressed_size, 48);
    ck_assert_int_lt(h.compressed_size, 48);
    ck_assert(!h.has_crc);
    inl_buf_free(&out, &alloc);
}
END_TEST

START_TEST(test_page_v2)
{
    for (int k = 0; k < 2; k++) {   /* values that compress, and that do not */
        buf out = { 0 };
        uint8_t random[64];
        uint64_t seed = 7;
        for (size_t i = 0; i < sizeof random; i++) random[i] = (uint8_t)(rng_next(&seed) >> 56);
        page_desc d;
        memset(&d, 0, sizeof d);
        d.type = PAGE_DATA_V2;
        d.num_values = 12;
        d.num_nulls = 3;
        d.num_rows = 5;
        d.encoding = ENC_DELTA_BINARY_PACKED;
        d.parts[0] = levels;
        d.lens[0] = 3;
        d.parts[1] = levels + 3;
        d.lens[1] = 5;
        d.parts[2] = k ? (const void *)random : (const void *)zeros;
        d.lens[2] = k ? sizeof random : sizeof zeros;
        d.nparts = 3;
        d.nprefix = 2;
        d.rep_bytes = 3;
        d.def_bytes = 5;
        write_page(&out, &d, INLAY_ZSTD);
        rd_page_header h;
        read_back(&out, &h);
        ck_assert_int_eq(h.type, PAGE_DATA_V2);
        ck_assert_int_eq(h.num_values, 12);
        ck_assert_int_eq(h.num_nulls, 3);
        ck_assert_int_eq(h.num_rows, 5);
        ck_assert_int_eq(h.encoding, ENC_DELTA_BINARY_PACKED);
        ck_assert_int_eq(h.rep_bytes, 3);
        ck_assert_int_eq(h.def_bytes, 5);
        ck_assert(h.is_compressed == (k == 0));
        ck_assert_int_eq(h.uncompressed_size, 8 + (int)d.lens[2]);
        inl_buf_free(&out, &alloc);
    }
}
END_TEST

START_TEST(test_page_dictionary)
{
    buf out = { 0 };
    page_desc d;
    memset(&d, 0, sizeof d);
    d.type = PAGE_DICTIONARY;
    d.num_values = 4;
    d.encoding = ENC_PLAIN;
    d.parts[0] = zeros;
    d.lens[0] = 16;
    d.nparts = 1;
    write_page(&out, &d, INLAY_UNCOMPRESSED);
    rd_page_header h;
    read_back(&out, &h);
    ck_assert_int_eq(h.type, PAGE_DICTIONARY);
    ck_assert_int_eq(h.num_values, 4);
    ck_assert_int_eq(h.encoding, ENC_PLAIN);
    ck_assert_int_eq(h.compressed_size, 16);
    ck_assert_int_eq(h.uncompressed_size, 16);
    ck_assert(!h.dict_sorted);
    inl_buf_free(&out, &alloc);
}
END_TEST

/* Headers the writer never writes. */
typedef struct bad_page {
    int type, raw, stored, sub;      /* sub: 0 none, 5 v1, 7 dictionary, 8 v2 */
    int values, nulls, rows, def_bytes, rep_bytes;
    bool crc, drop_field;
    const char *why;                 /* NULL: valid */
} bad_page;

static void put_bad_page(buf *out, const bad_page *b)
{
    tc t;
    inl_tc_init(&t, out, &alloc);
    inl_tc_field_i32(&t, 1, b->type);
    inl_tc_field_i32(&t, 2, b->raw);
    inl_tc_field_i32(&t, 3, b->stored);
    if (b->crc) inl_tc_field_i32(&t, 4, -2);
    if (b->sub) {
        inl_tc_field_struct(&t, (int16_t)b->sub);
        inl_tc_field_i32(&t, 1, b->values);
        if (b->sub == 8) {
            inl_tc_field_i32(&t, 2, b->nulls);
            inl_tc_field_i32(&t, 3, b->rows);
            inl_tc_field_i32(&t, 4, ENC_PLAIN);
            inl_tc_field_i32(&t, 5, b->def_bytes);
            if (!b->drop_field) inl_tc_field_i32(&t, 6, b->rep_bytes);
        } else {
            inl_tc_field_i32(&t, 2, ENC_PLAIN);
            if (b->sub == 5 && !b->drop_field) {
                inl_tc_field_i32(&t, 3, ENC_RLE);
                inl_tc_field_i32(&t, 4, ENC_RLE);
            }
            if (b->sub == 7) inl_tc_field_bool(&t, 3, true);
        }
        inl_tc_struct_end(&t);
    }
    inl_tc_struct_end(&t);
    ck_assert_int_eq(t.err, 0);
}

START_TEST(test_page_bad)
{
    static const bad_page cases[] = {
        { PAGE_DATA, 10, 10, 5, 3, 0, 0, 0, 0, true, false, NULL },
        { PAGE_DICTIONARY, 10, 10, 7, 3, 0, 0, 0, 0, false, false, NULL },
        { 1, 10, 10, 0, 0, 0, 0, 0, 0, false, false, NULL },   /* an index page: skipped by the reader */
        { PAGE_DATA, -1, 10, 5, 3, 0, 0, 0, 0, false, false, "page header with a negative size" },
        { PAGE_DATA, 10, 10, 0, 0, 0, 0, 0, 0, false, false, "data page without its DataPageHeader" },
        { PAGE_DATA, 10, 10, 7, 3, 0, 0, 0, 0, false, false, "data page without its DataPageHeader" },
        { PAGE_DATA, 10, 10, 5, 3, 0, 0, 0, 0, false, true, "DataPageHeader with a field missing" },
        { PAGE_DATA, 10, 10, 5, -3, 0, 0, 0, 0, false, false, "page header with a negative num_values" },
        { PAGE_DICTIONARY, 10, 10, 5, 3, 0, 0, 0, 0, false, false, "dictionary page without its DictionaryPageHeader" },
        { PAGE_DATA_V2, 10, 10, 8, 5, 1, 2, 6, 6, false, false, "DataPageHeaderV2 levels longer than the page" },
        { PAGE_DATA_V2, 10, 10, 8, 5, 1, 2, -4, 6, false, false, "DataPageHeaderV2 with a negative count or length" },
        { PAGE_DATA_V2, 10, 10, 8, 5, 6, 2, 4, 1, false, false,
          "DataPageHeaderV2 with more nulls or rows than values" },
        { PAGE_DATA_V2, 10, 10, 8, 5, 1, 2, 4, 1, false, true, "DataPageHeaderV2 with a field missing" },
        { PAGE_DATA_V2, 10, 10, 8, 5, 1, 2, 4, 1, false, false, NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        buf out = { 0 };
        put_bad_page(&out, &cases[i]);
        rd_page_header h;
        const char *why = "unset";
        const size_t n = inl_rd_page_header(out.data, out.len, &h, &why);
        if (cases[i].why) {
            ck_assert_msg(n == 0, "case %zu parsed", i);
            ck_assert_msg(why && !strcmp(why, cases[i].why), "case %zu: %s", i, why ? why : "(null)");
        } else {
            ck_assert_msg(n == out.len, "case %zu: %s", i, why ? why : "");
            ck_assert_int_eq(h.type, cases[i].type);
            if (cases[i].crc) {
                ck_assert(h.has_crc);
                ck_assert_uint_eq(h.crc, 0xfffffffeu);
            }
            if (cases[i].sub == 7) ck_assert(h.dict_sorted);
            if (cases[i].sub == 8) ck_assert(h.is_compressed);
        }
        inl_buf_free(&out, &alloc);
    }
    /* malformed: a field of an unknown type */
    static const uint8_t junk[] = { 0x15, 0x00, 0x1e, 0x00 };
    rd_page_header h;
    const char *why = NULL;
    ck_assert_uint_eq(inl_rd_page_header(junk, sizeof junk, &h, &why), 0);
    ck_assert_str_eq(why, "page header malformed");
    ck_assert_uint_eq(inl_rd_page_header(junk, sizeof junk, &h, NULL), 0);
}
END_TEST

/* ---- the decoder's pieces ----------------------------------------------------------------- */

START_TEST(test_thrift_in)
{
    buf out = { 0 };
    tc t;
    inl_tc_init(&t, &out, &alloc);
    inl_tc_field_i64(&t, 1, INT64_MIN);
    inl_tc_field_i32(&t, 3, INT32_MAX);
    inl_tc_field_i16(&t, 300, -300);                 /* long form: the id zigzagged after the type */
    inl_tc_field_bool(&t, 301, true);
    inl_tc_field_binary(&t, 302, "", 0);
    inl_tc_field_list(&t, 303, TC_I32, 20);          /* a count past 14: varint form */
    for (int i = 0; i < 20; i++) inl_tc_list_i32(&t, -i);
    inl_tc_struct_end(&t);
    ck_assert_int_eq(t.err, 0);
    ti r;
    inl_ti_init(&r, out.data, out.len);
    int16_t last = 0, id;
    int type, elem;
    ck_assert(inl_ti_field(&r, &last, &id, &type));
    ck_assert_int_eq(id, 1);
    ck_assert_int_eq(inl_ti_i64(&r), INT64_MIN);
    ck_assert(inl_ti_field(&r, &last, &id, &type));
    ck_assert_int_eq(id, 3);
    ck_assert_int_eq(inl_ti_i32(&r), INT32_MAX);
    ck_assert(inl_ti_field(&r, &last, &id, &type));
    ck_assert_int_eq(id, 300);
    ck_assert_int_eq(inl_ti_i16(&r), -300);
    ck_assert(inl_ti_field(&r, &last, &id, &type));
    ck_assert_int_eq(id, 301);
    ck_assert(inl_ti_bool(type));
    ck_assert(inl_ti_field(&r, &last, &id, &type));
    size_t n = 99;
    ck_assert_ptr_nonnull(inl_ti_binary(&r, &n));
    ck_assert_uint_eq(n, 0);
    ck_assert(inl_ti_field(&r, &last, &id, &type));
    ck_assert_uint_eq(inl_ti_list(&r, &elem), 20);
    ck_assert_int_eq(elem, TI_I32);
    for (int i = 0; i < 20; i++) ck_assert_int_eq(inl_ti_i32(&r), -i);
    ck_assert(!inl_ti_field(&r, &last, &id, &type));
    ck_assert_int_eq(r.err, TI_OK);
    ck_assert_uint_eq(inl_ti_left(&r), 0);
    /* skipping the whole struct lands at its end; a cut struct is TI_SHORT and sticky */
    inl_ti_init(&r, out.data, out.len);
    inl_ti_skip(&r, TI_STRUCT, false, 0);
    ck_assert_int_eq(r.err, TI_OK);
    ck_assert_uint_eq(inl_ti_pos(&r), out.len);
    inl_ti_init(&r, out.data, out.len - 1);
    inl_ti_skip(&r, TI_STRUCT, false, 0);
    ck_assert_int_eq(r.err, TI_SHORT);
    ck_assert_uint_eq(r.err_at, out.len - 1);
    ck_assert_int_eq(inl_ti_byte(&r), 0);
    ck_assert_int_eq(r.err_at, out.len - 1);
    /* a map, a set and a double are skipped too */
    static const uint8_t mixed[] = { 0x1b, 0x02, 0x85, 0x01, 0x41, 0x00, 0x00, 0x02,   /* map<binary,i32> of 2 */
                                     0x1a, 0x21, 0x01, 0x02,                             /* set<bool> of 2 */
                                     0x17, 1, 2, 3, 4, 5, 6, 7, 8, 0x00 };
    inl_ti_init(&r, mixed, sizeof mixed);
    inl_ti_skip_struct(&r, 0);
    ck_assert_int_eq(r.err, TI_OK);
    ck_assert_uint_eq(inl_ti_left(&r), 0);
    inl_buf_free(&out, &alloc);
}
END_TEST

static Suite *footer_suite(void)
{
    Suite *s = suite_create("footer");
    TCase *t = tcase_create("schema");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, test_every_type);
    tcase_add_test(t, test_nested);
    tcase_add_test(t, test_schema_node);
    suite_add_tcase(s, t);

    t = tcase_create("chunks");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, test_chunks_v1);
    tcase_add_test(t, test_chunks_v2);
    tcase_add_test(t, test_read_schema_writes);
    suite_add_tcase(s, t);

    t = tcase_create("hand-made footers");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, test_legacy_schema);
    tcase_add_test(t, test_bad_chunks);
    tcase_add_test(t, test_deep_schema);
    tcase_add_test(t, test_absurd_counts);
    suite_add_tcase(s, t);

    t = tcase_create("corruption");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_truncations);
    tcase_add_test(t, test_bit_flips);
    tcase_add_test(t, test_nomem);
    suite_add_tcase(s, t);

    t = tcase_create("page headers");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, test_page_v1);
    tcase_add_test(t, test_page_v2);
    tcase_add_test(t, test_page_dictionary);
    tcase_add_test(t, test_page_bad);
    tcase_add_test(t, test_thrift_in);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(footer_suite());
    srunner_set_fork_status(sr, CK_FORK_GETENV);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
