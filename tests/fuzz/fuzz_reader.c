/*
 * fuzz_reader.c — the Parquet reader on any bytes, through the public API
 * of inlay.h only: open the input as a file in memory, read every batch,
 * check the arrays it hands out, and append them to a writer on the
 * reader's own schema; all of it on an allocator that can refuse the Nth
 * request.
 *
 * Input: one option byte, then the file.
 *   bits 0-2: batch rows (1 2 3 7 64 1000 65536, 0 = default)
 *   bit 3:    read only the first top-level field
 *   bit 4:    read the row groups backwards
 *   bits 5-7: 0 no allocation failure; k: refuse request number
 *             (size of the input * k) % 997 + 1
 *
 * What must hold, besides no crash, leak or undefined behaviour:
 *   - open and next fail only with INLAY_ERR_FORMAT (INLAY_ERR_NOMEM when
 *     the allocator refused), always with a message;
 *   - every batch has the rows asked for or fewer, never more, and every
 *     array is well formed: lengths as the parent says, offsets that start
 *     at 0, never go back and end at the child's length;
 *   - the writer takes the arrays or refuses a value (a corrupt file may
 *     hold bytes its type does not allow), never with INLAY_ERR_ARGUMENT
 *     (which would mean an array that does not follow the schema).
 */
#include "fuzz.h"

static const size_t batch_sizes[] = { 0, 1, 2, 3, 7, 64, 1000, 65536 };

static void check_array(const inlay_schema *s, int node, const inlay_array *a, size_t length);

/* The children of a group node as its array holds them. */
static void check_children(const inlay_schema *s, int group, const inlay_array *a, size_t length)
{
    inlay_node_info g;
    FUZZ_CHECK(inlay_schema_node(s, group, &g) == INLAY_OK, "node %d", group);
    int i = 0;
    for (int k = g.first_child; k >= 0; i++) {
        inlay_node_info c;
        FUZZ_CHECK(inlay_schema_node(s, k, &c) == INLAY_OK, "node %d", k);
        check_array(s, k, &a->children[i], length);
        k = c.next_sibling;
    }
}

static void check_offsets(const inlay_array *a)
{
    FUZZ_CHECK(a->offsets != NULL, "a list without offsets");
    FUZZ_CHECK(a->offsets[0] == 0, "offsets start at %d", a->offsets[0]);
    for (size_t i = 0; i < a->length; i++)
        FUZZ_CHECK(a->offsets[i] <= a->offsets[i + 1], "offsets go back at %zu", i);
}

static void check_array(const inlay_schema *s, int node, const inlay_array *a, size_t length)
{
    inlay_node_info n;
    FUZZ_CHECK(inlay_schema_node(s, node, &n) == INLAY_OK, "node %d", node);
    FUZZ_CHECK(a->length == length, "'%s': %zu slots where %zu were expected", n.name, a->length, length);
    if (n.repetition == INLAY_OPTIONAL && length) FUZZ_CHECK(a->validity != NULL, "'%s' without validity", n.name);
    if (!n.is_group && n.repetition != INLAY_REPEATED) {
        FUZZ_CHECK(length == 0 || a->values != NULL, "'%s' without values", n.name);
        if (n.type.physical == INLAY_BYTE_ARRAY || n.type.physical == INLAY_FIXED_LEN_BYTE_ARRAY) {
            const inlay_bytes *v = a->values;
            unsigned sum = 0;
            for (size_t i = 0; i < length; i++) sum += fuzz_touch(v[i].data, v[i].len);
            (void)sum;
        }
        return;
    }
    if (!n.is_group) {   /* a bare repeated primitive: values as the one child */
        check_offsets(a);
        FUZZ_CHECK(a->children != NULL, "'%s' without its values", n.name);
        FUZZ_CHECK(a->children[0].length == (size_t)a->offsets[length], "'%s' values", n.name);
        return;
    }
    if (n.group == INLAY_GROUP_LIST || n.group == INLAY_GROUP_MAP) {
        check_offsets(a);
        check_children(s, n.first_child, a, (size_t)a->offsets[length]);
    } else if (n.repetition == INLAY_REPEATED) {
        check_offsets(a);
        check_children(s, node, a, (size_t)a->offsets[length]);
    } else {
        check_children(s, node, a, length);
    }
}

static int read_file(const uint8_t *file, size_t len, uint8_t opt, fuzz_alloc *fa)
{
    inlay_read_options ro;
    inlay_read_options_init(&ro);
    ro.alloc = fuzz_allocator(fa);
    ro.batch_rows = batch_sizes[opt & 7];
    inlay_reader *r;
    int rc = inlay_reader_open_memory(&r, file, len, &ro);
    if (rc) {
        FUZZ_CHECK(rc == INLAY_ERR_FORMAT || rc == INLAY_ERR_NOMEM, "open: status %d", rc);
        FUZZ_CHECK(!r || inlay_reader_errmsg(r)[0], "open: no message");
        inlay_reader_free(r);
        return rc;
    }
    const inlay_schema *s = inlay_reader_schema(r);
    const inlay_file_info *info = inlay_reader_info(r);
    int nfields = 0, first = -1;
    inlay_node_info root;
    FUZZ_CHECK(inlay_schema_node(s, 0, &root) == INLAY_OK, "no root");
    nfields = root.num_children;
    first = root.first_child;
    int field0 = 0;
    int *groups = NULL;
    int ngroups = 0;
    if (opt & 0x10 && info->num_row_groups > 0) {
        ngroups = info->num_row_groups;
        groups = malloc((size_t)ngroups * sizeof *groups);
        for (int i = 0; i < ngroups; i++) groups[i] = ngroups - 1 - i;
    }
    rc = inlay_reader_select(r, opt & 8 ? &field0 : NULL, opt & 8 ? 1 : 0, groups, ngroups);
    free(groups);
    FUZZ_CHECK(rc == INLAY_OK || rc == INLAY_ERR_NOMEM || nfields == 0, "select: %d %s", rc, inlay_reader_errmsg(r));
    if (rc) {
        inlay_reader_free(r);
        return rc == INLAY_ERR_NOMEM ? rc : INLAY_ERR_FORMAT;
    }
    const int selected = opt & 8 ? 1 : nfields;

    inlay_buffer out;
    inlay_buffer_init(&out, &ro.alloc);
    inlay_writer *w = NULL;
    inlay_options wo;
    inlay_options_init(&wo);
    wo.alloc = ro.alloc;
    wo.compression = INLAY_UNCOMPRESSED;
    bool writing = !(opt & 8) && inlay_writer_open(&w, inlay_buffer_sink(&out), s, &wo) == INLAY_OK;
    size_t rows;
    while (rc == INLAY_OK && (rc = inlay_reader_next(r, 0, &rows)) == INLAY_OK && rows) {
        size_t want = ro.batch_rows ? ro.batch_rows : INLAY_DEFAULT_BATCH_ROWS;
        FUZZ_CHECK(rows <= want, "%zu rows in a batch of %zu", rows, want);
        int node = first;
        for (int k = 0; k < selected; k++) {
            const inlay_array *a = inlay_reader_array(r, k);
            FUZZ_CHECK(a != NULL, "no array %d", k);
            check_array(s, node, a, rows);
            if (writing) {
                int wr = inlay_writer_append_array(w, k, a, rows);
                FUZZ_CHECK(wr != INLAY_ERR_ARGUMENT, "the writer refused the shape of field %d: %s", k,
                           inlay_writer_errmsg(w));
                if (wr) writing = false;
            }
            inlay_node_info n;
            inlay_schema_node(s, node, &n);
            node = n.next_sibling;
        }
    }
    if (rc) {
        FUZZ_CHECK(rc == INLAY_ERR_FORMAT || rc == INLAY_ERR_NOMEM, "next: status %d (%s)", rc, inlay_reader_errmsg(r));
        FUZZ_CHECK(inlay_reader_errmsg(r)[0], "next: no message");
    }
    if (writing) inlay_writer_close(w);
    inlay_writer_free(w);
    inlay_buffer_free(&out);
    inlay_reader_free(r);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const uint8_t opt = data[0];
    fuzz_alloc fa;
    unsigned k = opt >> 5;
    fuzz_alloc_init(&fa, k ? (unsigned long)((size * k) % 997 + 1) : 0, false);
    int rc = read_file(data + 1, size - 1, opt, &fa);
    if (!k) FUZZ_CHECK(rc != INLAY_ERR_NOMEM, "out of memory with no failure asked for");
    fuzz_alloc_check_empty(&fa);
    return 0;
}
