/*
 * check_shred.c — nested Arrow-shaped arrays into levels and values
 * (shred.c, inlay_writer_append_array): the Dremel paper's Document
 * records, lists and maps in the 3-level form with empty and null entries at
 * each level, bad arrays, and the writer's all-or-nothing append.
 */
#include "chunk_reader.h"
#include "shred.h"

static inlay_allocator g_alloc;

/* The expected (rep, def) pairs and values of one leaf. */
typedef struct lv {
    int rep, def;
    const char *value;   /* NULL = no value (a null or an empty list at some level) */
} lv;

static void check_leaf(const shred *sh, int k, int max_def, bool text, const lv *want, size_t n, const char *what)
{
    const shred_leaf *l = &sh->leaves[k];
    const int16_t *def = (const int16_t *)l->def.data, *rep = (const int16_t *)l->rep.data;
    ck_assert_msg(l->count == n, "%s: %zu level entries, want %zu", what, l->count, n);
    size_t v = 0;
    for (size_t i = 0; i < n; i++) {
        ck_assert_msg(rep[i] == want[i].rep && def[i] == want[i].def, "%s entry %zu: (r %d, d %d), want (r %d, d %d)",
                      what, i, rep[i], def[i], want[i].rep, want[i].def);
        ck_assert_msg((def[i] == max_def) == (want[i].value != NULL), "%s entry %zu: value presence", what, i);
        if (!want[i].value) continue;
        char got[64];
        if (text) {
            const inlay_bytes *b = &((const inlay_bytes *)l->values.data)[v];
            snprintf(got, sizeof got, "%.*s", (int)b->len, (const char *)b->data);
        } else {
            snprintf(got, sizeof got, "%lld", (long long)((const int64_t *)l->values.data)[v]);
        }
        ck_assert_msg(strcmp(got, want[i].value) == 0, "%s entry %zu: value %s, want %s", what, i, got,
                      want[i].value);
        v++;
    }
    ck_assert_uint_eq(l->nvalues, v);
}

static inlay_bytes str(const char *s) { return (inlay_bytes){ s, s ? strlen(s) : 0 }; }

/* The Document schema of the Dremel paper (Melnik et al., 2010, figure 2). */
static inlay_schema *document_schema(int *name_node)
{
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "DocId", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    int links = inlay_schema_add_group(s, 0, "Links", INLAY_OPTIONAL);
    ck_assert_int_gt(links, 0);
    ck_assert_int_gt(inlay_schema_add(s, links, "Backward", INLAY_REPEATED, inlay_type_int(64, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, links, "Forward", INLAY_REPEATED, inlay_type_int(64, true), NULL), 0);
    int name = inlay_schema_add_group(s, 0, "Name", INLAY_REPEATED);
    ck_assert_int_gt(name, 0);
    int lang = inlay_schema_add_group(s, name, "Language", INLAY_REPEATED);
    ck_assert_int_gt(lang, 0);
    ck_assert_int_gt(inlay_schema_add(s, lang, "Code", INLAY_REQUIRED, inlay_type_string(), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, lang, "Country", INLAY_OPTIONAL, inlay_type_string(), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, name, "Url", INLAY_OPTIONAL, inlay_type_string(), NULL), 0);
    ck_assert_int_eq(inl_schema_finalize(s), 0);
    *name_node = name;
    return s;
}

/* The paper's two records, r1 and r2, column by column in Arrow's layout. */
START_TEST(test_dremel_document)
{
    int name_node;
    inlay_schema *s = document_schema(&name_node);
    shred sh;
    inl_shred_init(&sh, &g_alloc);
    int first, n;

    const int64_t docid[] = { 10, 20 };
    const inlay_array docid_a = { .length = 2, .values = docid };
    ck_assert_int_eq(inl_shred_field(&sh, s, s->nodes[0].first_child, &docid_a, 2, &first, &n), 0);
    ck_assert_int_eq(first, 0);
    ck_assert_int_eq(n, 1);
    const lv docid_want[] = { { 0, 0, "10" }, { 0, 0, "20" } };
    check_leaf(&sh, 0, 0, false, docid_want, 2, "DocId");

    /* Links: r1 { Forward 20, 40, 60 }, r2 { Backward 10, 30; Forward 80 } */
    const int64_t backward[] = { 10, 30 }, forward[] = { 20, 40, 60, 80 };
    const int32_t back_off[] = { 0, 0, 2 }, fwd_off[] = { 0, 3, 4 };
    const inlay_array back_vals = { .length = 2, .values = backward };
    const inlay_array fwd_vals = { .length = 4, .values = forward };
    const inlay_array links_children[] = {
        { .length = 2, .offsets = back_off, .children = &back_vals },
        { .length = 2, .offsets = fwd_off, .children = &fwd_vals },
    };
    const inlay_array links_a = { .length = 2, .children = links_children };
    const int links_node = s->nodes[s->nodes[0].first_child].next_sibling;
    ck_assert_int_eq(inl_shred_field(&sh, s, links_node, &links_a, 2, &first, &n), 0);
    ck_assert_int_eq(first, 1);
    ck_assert_int_eq(n, 2);
    const lv backward_want[] = { { 0, 1, NULL }, { 0, 2, "10" }, { 1, 2, "30" } };
    const lv forward_want[] = { { 0, 2, "20" }, { 1, 2, "40" }, { 1, 2, "60" }, { 0, 2, "80" } };
    check_leaf(&sh, 0, 2, false, backward_want, 3, "Links.Backward");
    check_leaf(&sh, 1, 2, false, forward_want, 4, "Links.Forward");

    /* Name: r1 has three (en-us/us + en, url A; url B; en-gb/gb), r2 one (url C) */
    const int32_t name_off[] = { 0, 3, 4 };
    const int32_t lang_off[] = { 0, 2, 2, 3, 3 };
    const inlay_bytes code[] = { str("en-us"), str("en"), str("en-gb") };
    const inlay_bytes country[] = { str("us"), str(NULL), str("gb") };
    const uint8_t country_valid = 0x5;   /* 101 */
    const inlay_bytes url[] = { str("http://A"), str("http://B"), str(NULL), str("http://C") };
    const uint8_t url_valid = 0xB;       /* 1011: entries 0, 1, 3 */
    const inlay_array lang_children[] = {
        { .length = 3, .values = code },
        { .length = 3, .values = country, .validity = &country_valid },
    };
    const inlay_array name_children[] = {
        { .length = 4, .offsets = lang_off, .children = lang_children },
        { .length = 4, .values = url, .validity = &url_valid },
    };
    const inlay_array name_a = { .length = 2, .offsets = name_off, .children = name_children };
    ck_assert_int_eq(inl_shred_field(&sh, s, name_node, &name_a, 2, &first, &n), 0);
    ck_assert_int_eq(first, 3);
    ck_assert_int_eq(n, 3);
    const lv code_want[] = { { 0, 2, "en-us" }, { 2, 2, "en" }, { 1, 1, NULL }, { 1, 2, "en-gb" }, { 0, 1, NULL } };
    const lv country_want[] = { { 0, 3, "us" }, { 2, 2, NULL }, { 1, 1, NULL }, { 1, 3, "gb" }, { 0, 1, NULL } };
    const lv url_want[] = { { 0, 2, "http://A" }, { 1, 2, "http://B" }, { 1, 1, NULL }, { 0, 2, "http://C" } };
    check_leaf(&sh, 0, 2, true, code_want, 5, "Name.Language.Code");
    check_leaf(&sh, 1, 3, true, country_want, 5, "Name.Language.Country");
    check_leaf(&sh, 2, 2, true, url_want, 4, "Name.Url");

    inl_shred_free(&sh);
    inlay_schema_free(s);
}
END_TEST

/* optional list<optional int64>: [1, 2], [], null, [null, 3] */
START_TEST(test_list_levels)
{
    inlay_schema *s = inlay_schema_create(NULL);
    int list = inlay_schema_add_list(s, 0, "xs", INLAY_OPTIONAL);
    ck_assert_int_gt(list, 0);
    ck_assert_int_gt(inlay_schema_add(s, list, "element", INLAY_OPTIONAL, inlay_type_int(64, true), NULL), 0);
    ck_assert_int_eq(inl_schema_finalize(s), 0);
    ck_assert_int_eq(s->leaves[0].max_def, 3);
    ck_assert_int_eq(s->leaves[0].max_rep, 1);
    const int64_t vals[] = { 1, 2, 0, 3 };
    const uint8_t val_valid = 0xB;   /* 1101 read LSB first: entries 0, 1, 3 */
    const int32_t off[] = { 0, 2, 2, 2, 4 };
    const uint8_t list_valid = 0xB;  /* rows 0, 1, 3 present; row 2 null */
    const inlay_array elem = { .length = 4, .values = vals, .validity = &val_valid };
    const inlay_array xs = { .length = 4, .validity = &list_valid, .offsets = off, .children = &elem };
    shred sh;
    inl_shred_init(&sh, &g_alloc);
    int first, n;
    ck_assert_int_eq(inl_shred_field(&sh, s, s->nodes[0].first_child, &xs, 4, &first, &n), 0);
    const lv want[] = { { 0, 3, "1" }, { 1, 3, "2" }, { 0, 1, NULL }, { 0, 0, NULL }, { 0, 2, NULL }, { 1, 3, "3" } };
    check_leaf(&sh, 0, 3, false, want, 6, "xs");
    inl_shred_free(&sh);
    inlay_schema_free(s);
}
END_TEST

/* required map<string, optional int64>: { a: 1, b: null }, {}, { c: 3 } */
static inlay_schema *map_schema(void)
{
    inlay_schema *s = inlay_schema_create(NULL);
    int kv = inlay_schema_add_map(s, 0, "attrs", INLAY_REQUIRED);
    ck_assert_int_gt(kv, 0);
    ck_assert_int_gt(inlay_schema_add(s, kv, "key", INLAY_REQUIRED, inlay_type_string(), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, kv, "value", INLAY_OPTIONAL, inlay_type_int(64, true), NULL), 0);
    return s;
}

START_TEST(test_map_levels)
{
    inlay_schema *s = map_schema();
    ck_assert_int_eq(inl_schema_finalize(s), 0);
    const inlay_bytes keys[] = { str("a"), str("b"), str("c") };
    const int64_t vals[] = { 1, 0, 3 };
    const uint8_t val_valid = 0x5;
    const int32_t off[] = { 0, 2, 2, 3 };
    const inlay_array kids[] = { { .length = 3, .values = keys }, { .length = 3, .values = vals, .validity = &val_valid } };
    const inlay_array attrs = { .length = 3, .offsets = off, .children = kids };
    shred sh;
    inl_shred_init(&sh, &g_alloc);
    int first, n;
    ck_assert_int_eq(inl_shred_field(&sh, s, s->nodes[0].first_child, &attrs, 3, &first, &n), 0);
    ck_assert_int_eq(n, 2);
    const lv key_want[] = { { 0, 1, "a" }, { 1, 1, "b" }, { 0, 0, NULL }, { 0, 1, "c" } };
    const lv val_want[] = { { 0, 2, "1" }, { 1, 1, NULL }, { 0, 0, NULL }, { 0, 2, "3" } };
    check_leaf(&sh, 0, 1, true, key_want, 4, "attrs.key");
    check_leaf(&sh, 1, 2, false, val_want, 4, "attrs.value");

    /* a null key */
    const uint8_t key_valid = 0x6;   /* entry 0 null */
    const inlay_array bad_kids[] = { { .length = 3, .values = keys, .validity = &key_valid }, kids[1] };
    const inlay_array bad = { .length = 3, .offsets = off, .children = bad_kids };
    ck_assert_int_eq(inl_shred_field(&sh, s, s->nodes[0].first_child, &bad, 3, &first, &n), INLAY_ERR_NULL);
    ck_assert_msg(strstr(sh.err.msg, "field 'attrs.key_value.key' row 1: a map key is null"), "%s", sh.err.msg);
    inl_shred_free(&sh);
    inlay_schema_free(s);
}
END_TEST

/* list<struct<x double, tags list<string>>>: levels of every leaf when
 * structs, lists and nulls nest; and arrays that do not fit the schema. */
START_TEST(test_nested_and_bad_arrays)
{
    inlay_schema *s = inlay_schema_create(NULL);
    int hits = inlay_schema_add_list(s, 0, "hits", INLAY_OPTIONAL);
    int el = inlay_schema_add_group(s, hits, "element", INLAY_OPTIONAL);
    ck_assert_int_gt(inlay_schema_add(s, el, "x", INLAY_REQUIRED, inlay_type_double(), NULL), 0);
    int tags = inlay_schema_add_list(s, el, "tags", INLAY_OPTIONAL);
    ck_assert_int_gt(inlay_schema_add(s, tags, "element", INLAY_REQUIRED, inlay_type_string(), NULL), 0);
    ck_assert_int_eq(inl_schema_finalize(s), 0);
    /* row 0: [ {x 1, tags [a, b]}, null, {x 2, tags []} ]; row 1: [ {x 3, tags null} ] */
    const double xs[] = { 1, 0, 2, 3 };
    const inlay_bytes tg[] = { str("a"), str("b") };
    const int32_t tag_off[] = { 0, 2, 2, 2, 2 };
    const uint8_t tag_valid = 0x7;     /* element 3's tags null */
    const uint8_t el_valid = 0xD;      /* element 1 null: 1101 */
    const int32_t hit_off[] = { 0, 3, 4 };
    const inlay_array tag_el = { .length = 2, .values = tg };
    const inlay_array el_kids[] = { { .length = 4, .values = xs },
                                    { .length = 4, .validity = &tag_valid, .offsets = tag_off, .children = &tag_el } };
    const inlay_array elem = { .length = 4, .validity = &el_valid, .children = el_kids };
    const inlay_array hits_a = { .length = 2, .offsets = hit_off, .children = &elem };
    shred sh;
    inl_shred_init(&sh, &g_alloc);
    int first, n;
    const int field = s->nodes[0].first_child;
    ck_assert_int_eq(inl_shred_field(&sh, s, field, &hits_a, 2, &first, &n), 0);
    ck_assert_int_eq(n, 2);
    /* hits (opt) 1, list (rep) 2, element (opt) 3, x (req) 3 */
    const lv x_want[] = { { 0, 3, "1" }, { 1, 2, NULL }, { 1, 3, "2" }, { 0, 3, "3" } };
    /* ... tags (opt) 4, list (rep) 5, element (req) 5 */
    const lv t_want[] = { { 0, 5, "a" }, { 2, 5, "b" }, { 1, 2, NULL }, { 1, 4, NULL }, { 0, 3, NULL } };
    /* x is a double: compare as text through its bits is awkward; check levels only */
    const shred_leaf *lx = &sh.leaves[0];
    ck_assert_uint_eq(lx->count, 4);
    for (size_t i = 0; i < 4; i++) {
        ck_assert_int_eq(((const int16_t *)lx->rep.data)[i], x_want[i].rep);
        ck_assert_int_eq(((const int16_t *)lx->def.data)[i], x_want[i].def);
    }
    ck_assert_uint_eq(lx->nvalues, 3);
    ck_assert(((const double *)lx->values.data)[2] == 3.0);
    check_leaf(&sh, 1, 5, true, t_want, 5, "hits.element.tags");

    /* offsets past the child */
    const int32_t long_off[] = { 0, 3, 9 };
    const inlay_array too_long = { .length = 2, .offsets = long_off, .children = &elem };
    ck_assert_int_eq(inl_shred_field(&sh, s, field, &too_long, 2, &first, &n), INLAY_ERR_ARGUMENT);
    ck_assert_msg(strstr(sh.err.msg, "row 2: offsets of 'list' go past its child's 4 entries"), "%s", sh.err.msg);
    /* offsets going back */
    const int32_t back_off[] = { 0, 3, 1 };
    const inlay_array backwards = { .length = 2, .offsets = back_off, .children = &elem };
    ck_assert_int_eq(inl_shred_field(&sh, s, field, &backwards, 2, &first, &n), INLAY_ERR_ARGUMENT);
    ck_assert_msg(strstr(sh.err.msg, "out of order"), "%s", sh.err.msg);
    /* a null in the required x */
    const uint8_t x_valid = 0xE;
    const inlay_array bad_kids[] = { { .length = 4, .values = xs, .validity = &x_valid }, el_kids[1] };
    const inlay_array bad_elem = { .length = 4, .validity = &el_valid, .children = bad_kids };
    const inlay_array bad_hits = { .length = 2, .offsets = hit_off, .children = &bad_elem };
    ck_assert_int_eq(inl_shred_field(&sh, s, field, &bad_hits, 2, &first, &n), INLAY_ERR_NULL);
    ck_assert_msg(strstr(sh.err.msg, "field 'hits.list.element.x' row 1: null in the required 'x'"), "%s", sh.err.msg);
    /* no children */
    const inlay_array bare = { .length = 2, .offsets = hit_off };
    ck_assert_int_eq(inl_shred_field(&sh, s, field, &bare, 2, &first, &n), INLAY_ERR_ARGUMENT);
    /* more rows than entries */
    ck_assert_int_eq(inl_shred_field(&sh, s, field, &hits_a, 3, &first, &n), INLAY_ERR_ARGUMENT);
    inl_shred_free(&sh);
    inlay_schema_free(s);
}
END_TEST

/* The writer's append_array: a bad call appends nothing; good calls count
 * rows; steady calls allocate nothing. */
START_TEST(test_writer_append_array)
{
    test_alloc ta = { 0 };
    inlay_schema *s = map_schema();
    ck_assert_int_gt(inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    inlay_buffer out;
    inlay_buffer_init(&out, NULL);
    inlay_options o;
    inlay_options_init(&o);
    o.alloc = test_allocator(&ta);
    o.page_rows = 30;   /* pages close every 10 calls: the steady state comes soon */
    o.threads = 1;      /* counts of allocations per call: the jobs handed to workers would vary */
    inlay_writer *w;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&out), s, &o), INLAY_OK);
    const inlay_bytes keys[] = { str("a"), str("b"), str("c") };
    const int64_t vals[] = { 1, 0, 3 };
    const uint8_t val_valid = 0x5;
    const int32_t off[] = { 0, 2, 2, 3 };
    const inlay_array kids[] = { { .length = 3, .values = keys }, { .length = 3, .values = vals, .validity = &val_valid } };
    const inlay_array attrs = { .length = 3, .offsets = off, .children = kids };
    const int64_t ids[] = { 1, 2, 3 };
    const inlay_array id = { .length = 3, .values = ids };
    const uint8_t key_valid = 0x6;
    const inlay_array bad_kids[] = { { .length = 3, .values = keys, .validity = &key_valid }, kids[1] };
    const inlay_array bad = { .length = 3, .offsets = off, .children = bad_kids };
    ck_assert_int_eq(inlay_writer_append_array(w, 0, &bad, 3), INLAY_ERR_NULL);
    ck_assert_msg(strstr(inlay_writer_errmsg(w), "field 'attrs.key_value.key' row 0: a map key is null"), "%s",
                  inlay_writer_errmsg(w));
    inlay_error_info info;
    inlay_writer_error_info(w, &info);
    ck_assert_int_eq(info.column, 0);
    ck_assert_int_eq(info.row, 0);
    ck_assert_int_eq(inlay_writer_append_array(w, 2, &id, 3), INLAY_ERR_COLUMN);
    unsigned long before = 0;
    for (int k = 0; k < 400; k++) {
        if (k == 200) before = ta.requests;
        ck_assert_int_eq(inlay_writer_append_array(w, 0, &attrs, 3), INLAY_OK);
        ck_assert_int_eq(inlay_writer_append_array(w, 1, &id, 3), INLAY_OK);
    }
    /* nothing per call or per row: only the row group's page store doubling now and then */
    ck_assert_uint_le(ta.requests - before, 6);
    /* the row counted over the file, as a flat column's would be */
    ck_assert_int_eq(inlay_writer_append_array(w, 0, &bad, 3), INLAY_ERR_NULL);
    ck_assert_msg(strstr(inlay_writer_errmsg(w), "field 'attrs.key_value.key' row 1200:"), "%s",
                  inlay_writer_errmsg(w));
    ck_assert_int_eq(inlay_writer_close(w), INLAY_OK);
    ck_assert_uint_eq(inlay_writer_rows(w), 1200);
    inlay_writer_free(w);
    ck_assert_no_leak(&ta);
    inlay_buffer_free(&out);
    inlay_schema_free(s);
}
END_TEST

/* Lists written through append_array across many small pages and row
 * groups, read back page by page with the suite's own decoders: every page
 * starts at a row (repetition level 0), no list is split, and the levels
 * and values are the ones the rows imply. */
START_TEST(test_lists_across_pages)
{
    enum { ROWS = 600, BATCH = 24, MAXLEN = 9 };
    inlay_schema *s = inlay_schema_create(NULL);
    int list = inlay_schema_add_list(s, 0, "xs", INLAY_OPTIONAL);
    ck_assert_int_gt(inlay_schema_add(s, list, "element", INLAY_OPTIONAL, inlay_type_int(64, true), NULL), 0);
    static int32_t off[ROWS + 1];
    static int64_t vals[ROWS * MAXLEN];
    static uint8_t list_valid[ROWS / 8], val_valid[ROWS * MAXLEN / 8 + 1];
    static int16_t want_def[ROWS * MAXLEN + ROWS], want_rep[ROWS * MAXLEN + ROWS];
    size_t nv = 0, nl = 0, npresent = 0;
    static int64_t present[ROWS * MAXLEN];
    uint64_t r = 99;
    for (int i = 0; i < ROWS; i++) {
        r = r * 6364136223846793005ULL + 1;
        const int len = (int)((r >> 40) % (MAXLEN + 1));
        const bool null_list = (r >> 20) % 11 == 0;
        off[i] = (int32_t)nv;
        if (!null_list) list_valid[i / 8] |= (uint8_t)(1u << (i % 8));
        if (null_list) { want_def[nl] = 0; want_rep[nl++] = 0; continue; }
        if (len == 0) { want_def[nl] = 1; want_rep[nl++] = 0; continue; }
        for (int k = 0; k < len; k++) {
            const bool null_el = (r >> (k + 3)) % 7 == 0;
            vals[nv] = (int64_t)i * 100 + k;
            if (!null_el) {
                val_valid[nv / 8] |= (uint8_t)(1u << (nv % 8));
                present[npresent++] = vals[nv];
            }
            want_def[nl] = null_el ? 2 : 3;
            want_rep[nl++] = k ? 1 : 0;
            nv++;
        }
    }
    off[ROWS] = (int32_t)nv;
    inlay_options o;
    inlay_options_init(&o);
    o.page_rows = 5;
    o.row_group_rows = 160;
    o.compression = INLAY_UNCOMPRESSED;
    file f;
    f.meta = NULL;
    inlay_buffer_init(&f.out, NULL);
    inlay_writer *w;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&f.out), s, &o), INLAY_OK);
    const inlay_array elem = { .length = nv, .values = vals, .validity = val_valid };
    for (int b = 0; b < ROWS; b += BATCH) {
        /* an Arrow slice: the parent's offsets and validity from row b, the child whole */
        const inlay_array xs = { .length = BATCH, .validity = list_valid + b / 8, .offsets = off + b,
                                 .children = &elem };
        ck_assert_msg(inlay_writer_append_array(w, 0, &xs, BATCH) == INLAY_OK, "%s", inlay_writer_errmsg(w));
    }
    finish(w, &f);
    ck_assert_int_gt(f.meta->num_row_groups, 3);
    decoded d;
    memset(&d, 0, sizeof d);
    decode_column(&f, "xs.list.element", 0, 3, 1, &d);
    ck_assert_uint_eq(d.nlevels, nl);
    for (size_t i = 0; i < nl; i++) {
        ck_assert_msg(d.def[i] == want_def[i] && d.rep[i] == want_rep[i], "level %zu: (r %d, d %d), want (r %d, d %d)",
                      i, d.rep[i], d.def[i], want_rep[i], want_def[i]);
    }
    expect_fixed(&d, present, npresent, 8);
    ck_assert_uint_gt(d.npages, 100);
    size_t start = 0;
    for (size_t p = 0; p < d.npages; p++) {
        ck_assert_msg(d.rep[start] == 0, "page %zu starts inside a list", p);
        start += (size_t)d.pages[p].num_values;
    }
    ck_assert_uint_eq(start, nl);
    decoded_free(&d);
    file_free(&f);
    inlay_schema_free(s);
}
END_TEST

static Suite *shred_suite(void)
{
    g_alloc = inl_mem_default();
    Suite *s = suite_create("shred");
    TCase *c = tcase_create("levels");
    tcase_add_test(c, test_dremel_document);
    tcase_add_test(c, test_list_levels);
    tcase_add_test(c, test_map_levels);
    tcase_add_test(c, test_nested_and_bad_arrays);
    suite_add_tcase(s, c);
    c = tcase_create("writer");
    tcase_add_test(c, test_writer_append_array);
    tcase_add_test(c, test_lists_across_pages);
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(shred_suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
