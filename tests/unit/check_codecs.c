/*
 * check_codecs.c — codecs as the writer uses them: one per column, with
 * levels, and stored UNCOMPRESSED where the codec does not pay. Files are
 * read back with the library's reader (which reads every codec written),
 * and their footers show each chunk's codec.
 */
#include "unit.h"

#include "footer.h"

static const inlay_compression all_codecs[] = { INLAY_UNCOMPRESSED, INLAY_SNAPPY, INLAY_GZIP,
                                                 INLAY_BROTLI, INLAY_ZSTD, INLAY_LZ4_RAW };
#define NCODECS ((int)(sizeof all_codecs / sizeof all_codecs[0]))

enum { ROWS = 6000 };

static int64_t ids[ROWS];
static double noise[ROWS];
static inlay_bytes texts[ROWS];
static char text_store[ROWS][24];

static void make_data(void)
{
    uint64_t seed = 1;
    for (int i = 0; i < ROWS; i++) {
        ids[i] = i;
        uint64_t r = rng_next(&seed);
        memcpy(&noise[i], &r, sizeof r);
        if (noise[i] != noise[i]) noise[i] = 0.5;   /* no NaN: min/max stay simple */
        snprintf(text_store[i], sizeof text_store[i], "user-%05d-%s", i % 300, i % 2 ? "odd" : "even");
        texts[i] = bytes_of(text_store[i]);
    }
}

/* id (column codec a), noise (b), text (c); file default d. */
static inlay_schema *three_columns(int a, int la, int b, int c)
{
    inlay_schema *s = inlay_schema_create(NULL);
    inlay_column_options o;
    inlay_column_options_init(&o);
    o.compression = a;
    o.compression_level = la;
    o.encoding = INLAY_ENCODING_PLAIN;   /* sequential int64 in PLAIN: every codec shrinks it */
    ck_assert_int_gt(inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), &o), 0);
    inlay_column_options_init(&o);
    o.compression = b;
    ck_assert_int_gt(inlay_schema_add(s, 0, "noise", INLAY_REQUIRED, inlay_type_double(), &o), 0);
    inlay_column_options_init(&o);
    o.compression = c;
    ck_assert_int_gt(inlay_schema_add(s, 0, "text", INLAY_REQUIRED, inlay_type_string(), &o), 0);
    return s;
}

static int write_three(inlay_buffer *out, const inlay_schema *s, const inlay_options *o, inlay_writer **wout)
{
    inlay_buffer_init(out, NULL);
    inlay_writer *w;
    int rc = inlay_writer_open(&w, inlay_buffer_sink(out), s, o);
    if (rc) {
        inlay_writer_free(w);
        return rc;
    }
    const inlay_column_batch b[] = { { 0, ids, ROWS, { 0 } }, { 1, noise, ROWS, { 0 } }, { 2, texts, ROWS, { 0 } } };
    rc = inlay_writer_append_columns(w, b, 3);
    if (!rc) rc = inlay_writer_close(w);
    if (wout) *wout = w;
    else inlay_writer_free(w);
    return rc;
}

/* Every value comes back, and each chunk has the codec wanted. */
static void check_file(const inlay_buffer *f, const int want_codec[3])
{
    inlay_reader *r;
    ck_assert_msg(inlay_reader_open_memory(&r, f->data, f->len, NULL) == INLAY_OK, "%s", inlay_reader_errmsg(r));
    const inlay_file_info *fi = inlay_reader_info(r);
    for (int g = 0; g < fi->num_row_groups; g++)
        for (int c = 0; c < 3; c++)
            ck_assert_msg(fi->row_groups[g].chunks[c].codec == want_codec[c], "row group %d column %d: codec %d, want %d",
                          g, c, fi->row_groups[g].chunks[c].codec, want_codec[c]);
    size_t rows, at = 0;
    while (inlay_reader_next(r, 1000, &rows) == INLAY_OK && rows) {
        const int64_t *id = inlay_reader_array(r, 0)->values;
        const double *nz = inlay_reader_array(r, 1)->values;
        const inlay_bytes *tx = inlay_reader_array(r, 2)->values;
        for (size_t i = 0; i < rows; i++, at++) {
            ck_assert_int_eq(id[i], ids[at]);
            ck_assert(memcmp(&nz[i], &noise[at], 8) == 0);
            ck_assert_bytes(tx[i].data, tx[i].len, texts[at].data, texts[at].len);
        }
    }
    ck_assert_int_eq(inlay_reader_status(r), INLAY_OK);
    ck_assert_uint_eq(at, ROWS);
    inlay_reader_free(r);
}

/* _i: the file's codec; v1 and v2 pages. Random doubles never pay. */
START_TEST(test_each_codec)
{
    const inlay_compression codec = all_codecs[_i];
    if (!inlay_compression_supported(codec)) return;
    make_data();
    for (int v = 1; v <= 2; v++) {
        inlay_schema *s = three_columns(-1, INLAY_LEVEL_DEFAULT, -1, -1);
        inlay_options o;
        inlay_options_init(&o);
        o.compression = codec;
        o.page_version = v;
        o.row_group_rows = 2500;
        o.page_rows = 1000;
        inlay_buffer f;
        ck_assert_int_eq(write_three(&f, s, &o, NULL), INLAY_OK);
        /* v1: the noise chunk does not pay and is stored UNCOMPRESSED; v2
         * keeps the chunk's codec and stores the pages raw */
        const int want[3] = { codec, v == 1 ? INLAY_UNCOMPRESSED : (int)codec, codec };
        check_file(&f, want);
        inlay_buffer_free(&f);
        inlay_schema_free(s);
    }
}
END_TEST

/* A codec per column; the writer's stats say what each came to. */
START_TEST(test_per_column)
{
    if (!inlay_compression_supported(INLAY_SNAPPY) || !inlay_compression_supported(INLAY_GZIP)) return;
    make_data();
    inlay_schema *s = three_columns(INLAY_SNAPPY, INLAY_LEVEL_DEFAULT, INLAY_UNCOMPRESSED, INLAY_GZIP);
    inlay_options o;
    inlay_options_init(&o);
    o.compression = INLAY_ZSTD;
    o.min_compression_gain = 0;
    inlay_buffer f;
    inlay_writer *w;
    ck_assert_int_eq(write_three(&f, s, &o, &w), INLAY_OK);
    const int want[3] = { INLAY_SNAPPY, INLAY_UNCOMPRESSED, INLAY_GZIP };
    check_file(&f, want);
    inlay_column_stats st;
    ck_assert_int_eq(inlay_writer_column_stats(w, 2, &st), INLAY_OK);
    ck_assert_int_eq(st.compression, INLAY_GZIP);
    ck_assert_int_eq(st.compression_level, INLAY_DEFAULT_GZIP_LEVEL);
    ck_assert_uint_eq(st.chunks, 1);
    ck_assert_uint_eq(st.chunks_uncompressed, 0);
    ck_assert_uint_lt(st.compressed_bytes, st.uncompressed_bytes / 2);
    ck_assert_int_eq(inlay_writer_column_stats(w, 1, &st), INLAY_OK);
    ck_assert_uint_eq(st.compressed_bytes, st.uncompressed_bytes);
    ck_assert_int_eq(inlay_writer_column_stats(w, 3, &st), INLAY_ERR_COLUMN);
    inlay_writer_free(w);
    inlay_buffer_free(&f);
    inlay_schema_free(s);
}
END_TEST

/* min_compression_gain: 0 compresses everything; the decision is the
 * data's, so the same data gives the same file. */
START_TEST(test_min_gain)
{
    make_data();
    inlay_schema *s = three_columns(-1, INLAY_LEVEL_DEFAULT, -1, -1);
    inlay_options o;
    inlay_options_init(&o);
    o.min_compression_gain = 0;
    inlay_buffer f, g;
    inlay_writer *w;
    ck_assert_int_eq(write_three(&f, s, &o, &w), INLAY_OK);
    const int all_zstd[3] = { INLAY_ZSTD, INLAY_ZSTD, INLAY_ZSTD };
    check_file(&f, all_zstd);
    inlay_column_stats st;
    ck_assert_int_eq(inlay_writer_column_stats(w, 1, &st), INLAY_OK);
    ck_assert_uint_eq(st.chunks_uncompressed, 0);
    inlay_writer_free(w);
    inlay_options_init(&o);
    ck_assert_int_eq(write_three(&g, s, &o, &w), INLAY_OK);
    ck_assert_int_eq(inlay_writer_column_stats(w, 1, &st), INLAY_OK);
    ck_assert_uint_eq(st.chunks_uncompressed, 1);
    ck_assert_uint_eq(st.compressed_bytes, st.uncompressed_bytes);
    inlay_writer_free(w);
    inlay_buffer h;
    ck_assert_int_eq(write_three(&h, s, &o, NULL), INLAY_OK);
    ck_assert_bytes(h.data, h.len, g.data, g.len);
    /* a gain asked for that no codec gives: everything is stored raw */
    o.min_compression_gain = 0.999;
    inlay_buffer k;
    ck_assert_int_eq(write_three(&k, s, &o, NULL), INLAY_OK);
    const int none[3] = { INLAY_UNCOMPRESSED, INLAY_UNCOMPRESSED, INLAY_UNCOMPRESSED };
    check_file(&k, none);
    o.min_compression_gain = 1;
    inlay_buffer bad;
    ck_assert_int_eq(write_three(&bad, s, &o, NULL), INLAY_ERR_ARGUMENT);
    inlay_buffer_free(&bad);
    inlay_buffer_free(&f);
    inlay_buffer_free(&g);
    inlay_buffer_free(&h);
    inlay_buffer_free(&k);
    inlay_schema_free(s);
}
END_TEST

/* Bad codecs and levels: refused when the field is added or the writer
 * opens, naming the column, and nothing is written. */
START_TEST(test_bad_choices)
{
    inlay_schema *s = inlay_schema_create(NULL);
    inlay_column_options o;
    inlay_column_options_init(&o);
    o.compression = 99;
    ck_assert_int_eq(inlay_schema_add(s, 0, "a", INLAY_REQUIRED, inlay_type_int(64, true), &o), INLAY_ERR_SCHEMA);
    ck_assert_ptr_nonnull(strstr(inlay_schema_errmsg(s), "field 'a': unknown compression 99"));
    o.compression = INLAY_GZIP;
    o.compression_level = 10;
    ck_assert_int_eq(inlay_schema_add(s, 0, "a", INLAY_REQUIRED, inlay_type_int(64, true), &o), INLAY_ERR_SCHEMA);
    ck_assert_ptr_nonnull(strstr(inlay_schema_errmsg(s), "GZIP takes levels 1 to 9, not 10"));
    o.compression = INLAY_SNAPPY;
    o.compression_level = 1;
    ck_assert_int_eq(inlay_schema_add(s, 0, "a", INLAY_REQUIRED, inlay_type_int(64, true), &o), INLAY_ERR_SCHEMA);
    ck_assert_int_eq(inlay_schema_add(s, 0, "a", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 1);
    inlay_options wo;
    inlay_options_init(&wo);
    wo.compression = INLAY_BROTLI;
    wo.compression_level = 12;
    inlay_buffer b;
    inlay_buffer_init(&b, NULL);
    inlay_writer *w;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&b), s, &wo), INLAY_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(inlay_writer_errmsg(w), "BROTLI"));
    ck_assert_uint_eq(b.len, 0);
    inlay_writer_free(w);
    wo.compression = (inlay_compression)3;   /* LZO: not written */
    wo.compression_level = INLAY_LEVEL_DEFAULT;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&b), s, &wo), INLAY_ERR_ARGUMENT);
    ck_assert_uint_eq(b.len, 0);
    inlay_writer_free(w);
    inlay_buffer_free(&b);
    inlay_schema_free(s);
}
END_TEST

/* The allocator failing at every request of a whole write, with each
 * codec: a clean error, no leak. */
START_TEST(test_allocation_failure)
{
    const inlay_compression codec = all_codecs[_i];
    if (!inlay_compression_supported(codec)) return;
    make_data();
    inlay_schema *s = three_columns(-1, INLAY_LEVEL_DEFAULT, -1, -1);
    test_alloc ta = { 0 };
    inlay_options o;
    inlay_options_init(&o);
    o.alloc = test_allocator(&ta);
    o.threads = 1;   /* one allocation sequence, the same every run */
    o.compression = codec;
    o.row_group_rows = 3000;
    inlay_buffer f;
    ck_assert_int_eq(write_three(&f, s, &o, NULL), INLAY_OK);
    inlay_buffer_free(&f);
    ck_assert_no_leak(&ta);
    const unsigned long needed = ta.requests;
    for (unsigned long k = 1; k <= needed; k += 1 + needed / 400) {
        ta = (test_alloc){ .fail_at = k };
        int rc = write_three(&f, s, &o, NULL);
        ck_assert_msg(rc == INLAY_ERR_NOMEM, "%s: request %lu of %lu refused: status %d",
                      inlay_compression_name(codec), k, needed, rc);
        inlay_buffer_free(&f);
        ck_assert_no_leak(&ta);
    }
    inlay_schema_free(s);
}
END_TEST

static Suite *codecs_suite(void)
{
    Suite *s = suite_create("codecs");
    TCase *t = tcase_create("codecs");
    tcase_set_timeout(t, 300);
    tcase_add_loop_test(t, test_each_codec, 0, NCODECS);
    tcase_add_test(t, test_per_column);
    tcase_add_test(t, test_min_gain);
    tcase_add_test(t, test_bad_choices);
    tcase_add_loop_test(t, test_allocation_failure, 0, NCODECS);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(codecs_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
