/*
 * check_column.c — column chunks (runtime/write/column.c) seen from the file:
 * the dictionary decision (kept when it pays, dropped after the first page
 * when it does not, given up for the fallback encoding past
 * dictionary_bytes: DELTA_BINARY_PACKED for integers,
 * DELTA_LENGTH_BYTE_ARRAY for byte arrays, PLAIN for the rest), pages cut
 * at their limits, and chunks that decode back to what was appended.
 *
 * Files are written through the public API into a memory sink and read
 * back with chunk_reader.h (the footer with thrift_reader.h, every page
 * and encoding with decoders independent of the encoders under test).
 */
#define _POSIX_C_SOURCE 200809L
#include "chunk_reader.h"

/* ---- writing ---------------------------------------------------------------------------- */

static inlay_options options(void)
{
    inlay_options o;
    inlay_options_init(&o);
    o.compression = INLAY_UNCOMPRESSED;
    o.page_rows = 1000;
    return o;
}

/* ---- dictionary fallback ------------------------------------------------------------------ */

enum { LOW = 5000, ROWS = 25000 };

/* A hash of i, so "random" picks are a function of the row. */
static uint32_t mix(size_t i)
{
    uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15ULL;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ULL;
    return (uint32_t)(x >> 32);
}

/* Rows below LOW: random picks from 16 values (the dictionary pays: 4-bit
 * indices against deltas of up to 5 bits); then distinct values. */
static int32_t fallback_value(size_t i)
{
    return i < LOW ? (int32_t)(mix(i) % 16) * 1000 : (int32_t)(1000000 + i);
}

START_TEST(test_fallback_int32)
{
    inlay_options o = options();
    o.dictionary_bytes = 4096;
    file f;
    inlay_writer *w = open_one(&f, "v", INLAY_REQUIRED, inlay_type_physical(INLAY_INT32),
                               INLAY_ENCODING_AUTO, &o);
    static int32_t v[ROWS];
    for (size_t i = 0; i < ROWS; i++) v[i] = fallback_value(i);
    for (size_t i = 0; i < ROWS; i += 3000)
        ck_assert_int_eq(inlay_writer_append_i32(w, 0, v + i, ROWS - i < 3000 ? ROWS - i : 3000, NULL), 0);
    finish(w, &f);
    ck_assert_int_eq(f.meta->num_row_groups, 1);
    const fm_chunk *c = fm_find(f.meta, 0, "v");
    ck_assert_int_eq(fm_pages(c, PT_DICTIONARY, E_PLAIN), 1);
    ck_assert_int_ge(fm_pages(c, PT_DATA, E_RLE_DICTIONARY), LOW / 1000);
    /* the fallback for INT32 is DELTA_BINARY_PACKED, never PLAIN */
    ck_assert_int_gt(fm_pages(c, PT_DATA, E_DBP), 0);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_PLAIN), 0);
    /* the page in which the dictionary passes its limit (at about row 6009) ends there */
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_RLE_DICTIONARY) + fm_pages(c, PT_DATA, E_DBP), ROWS / 1000 + 1);
    ck_assert_int_ge(c->dictionary_page_offset, 4);
    ck_assert_int_lt(c->dictionary_page_offset, c->data_page_offset);
    ck_assert(fm_has_encoding(c, E_PLAIN) && fm_has_encoding(c, E_RLE_DICTIONARY) &&
              fm_has_encoding(c, E_DBP));
    decoded d = { 0 };
    decode_column(&f, "v", 4, 0, 0, &d);
    expect_fixed(&d, v, ROWS, 4);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_fallback_strings)
{
    inlay_options o = options();
    o.dictionary_bytes = 8192;
    o.compression = INLAY_ZSTD;
    file f;
    inlay_writer *w = open_one(&f, "s", INLAY_REQUIRED, inlay_type_string(), INLAY_ENCODING_AUTO, &o);
    enum { N = 20000 };
    static char text[N][24];
    static inlay_bytes v[N];
    for (size_t i = 0; i < N; i++) {
        int n = i < 3000 ? snprintf(text[i], sizeof text[i], "k%u", mix(i) % 10)
                         : snprintf(text[i], sizeof text[i], "distinct-%06zu", i);
        v[i].data = text[i];
        v[i].len = (size_t)n;
    }
    ck_assert_int_eq(inlay_writer_append_bytes(w, 0, v, N, NULL), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "s");
    ck_assert_int_eq(fm_pages(c, PT_DICTIONARY, E_PLAIN), 1);
    ck_assert_int_ge(fm_pages(c, PT_DATA, E_RLE_DICTIONARY), 3);
    /* the fallback for BYTE_ARRAY is DELTA_LENGTH_BYTE_ARRAY */
    ck_assert_int_gt(fm_pages(c, PT_DATA, E_DLBA), 0);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_PLAIN), 0);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_RLE_DICTIONARY) + fm_pages(c, PT_DATA, E_DLBA), N / 1000);
    decoded d = { 0 };
    decode_column(&f, "s", 0, 0, 0, &d);
    expect_bytes(&d, v, N);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_fallback_double)
{
    /* FLOAT and DOUBLE fall back to PLAIN */
    inlay_options o = options();
    o.dictionary_bytes = 2048;
    file f;
    inlay_writer *w = open_one(&f, "x", INLAY_REQUIRED, inlay_type_double(), INLAY_ENCODING_AUTO, &o);
    enum { N = 6000 };
    static double v[N];
    for (size_t i = 0; i < N; i++) v[i] = i < 2000 ? (double)(mix(i) % 20) / 8 : (double)i / 3;
    ck_assert_int_eq(inlay_writer_append_double(w, 0, v, N, NULL), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "x");
    ck_assert_int_eq(fm_pages(c, PT_DICTIONARY, E_PLAIN), 1);
    ck_assert_int_ge(fm_pages(c, PT_DATA, E_RLE_DICTIONARY), 2);
    ck_assert_int_gt(fm_pages(c, PT_DATA, E_PLAIN), 0);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_RLE_DICTIONARY) + fm_pages(c, PT_DATA, E_PLAIN), N / 1000);
    decoded d = { 0 };
    decode_column(&f, "x", 8, 0, 0, &d);
    expect_fixed(&d, v, N, 8);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_fallback_per_row_group)
{
    /* every chunk decides afresh: rows 0..3999 low-cardinality, then distinct */
    inlay_options o = options();
    o.dictionary_bytes = 4096;
    o.row_group_rows = 4000;
    file f;
    inlay_writer *w = open_one(&f, "v", INLAY_REQUIRED, inlay_type_physical(INLAY_INT32),
                               INLAY_ENCODING_AUTO, &o);
    static int32_t v[ROWS];
    for (size_t i = 0; i < ROWS; i++) v[i] = fallback_value(i);
    ck_assert_int_eq(inlay_writer_append_i32(w, 0, v, ROWS, NULL), 0);
    finish(w, &f);
    ck_assert_int_eq(f.meta->num_row_groups, (ROWS + 3999) / 4000);
    const fm_chunk *first = fm_find(f.meta, 0, "v"), *second = fm_find(f.meta, 1, "v"),
                   *last = fm_find(f.meta, 3, "v");
    ck_assert_int_eq(fm_pages(first, PT_DATA, E_DBP), 0);            /* all 16 values */
    ck_assert_int_eq(fm_pages(first, PT_DATA, E_RLE_DICTIONARY), 4);
    /* rows 4000..4999 keep the dictionary, the distinct rest overflows it */
    ck_assert_int_ge(fm_pages(second, PT_DATA, E_RLE_DICTIONARY), 1);
    ck_assert_int_ge(fm_pages(second, PT_DATA, E_DBP), 1);
    /* distinct from its first page: the dictionary does not pay */
    ck_assert_int_eq(fm_pages(last, PT_DATA, E_RLE_DICTIONARY), 0);
    ck_assert_int_eq(fm_pages(last, PT_DATA, E_DBP), 4);
    ck_assert_int_eq(last->dictionary_page_offset, -1);
    decoded d = { 0 };
    decode_column(&f, "v", 4, 0, 0, &d);
    expect_fixed(&d, v, ROWS, 4);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_forced_dictionary_fallback)
{
    /* DICTIONARY keeps a dictionary that does not pay, up to dictionary_bytes */
    inlay_options o = options();
    o.dictionary_bytes = 16000;
    file f;
    inlay_writer *w = open_one(&f, "v", INLAY_REQUIRED, inlay_type_physical(INLAY_INT64),
                               INLAY_ENCODING_DICTIONARY, &o);
    enum { N = 6000 };
    static int64_t v[N];
    for (size_t i = 0; i < N; i++) v[i] = (int64_t)(i * 7919);
    ck_assert_int_eq(inlay_writer_append_i64(w, 0, v, N, NULL), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "v");
    ck_assert_int_eq(fm_pages(c, PT_DICTIONARY, E_PLAIN), 1);
    ck_assert_int_ge(fm_pages(c, PT_DATA, E_RLE_DICTIONARY), 2);
    ck_assert_int_gt(fm_pages(c, PT_DATA, E_DBP), 0);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_PLAIN), 0);
    decoded d = { 0 };
    decode_column(&f, "v", 8, 0, 0, &d);
    expect_fixed(&d, v, N, 8);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

/* ---- the dictionary decision ------------------------------------------------------------- */

START_TEST(test_low_cardinality)
{
    /* random picks from 100 wide values: 7-bit indices against 64-bit
     * deltas, the dictionary pays */
    inlay_options o = options();
    file f;
    inlay_writer *w = open_one(&f, "v", INLAY_REQUIRED, inlay_type_physical(INLAY_INT64),
                               INLAY_ENCODING_AUTO, &o);
    enum { N = 10000 };
    static int64_t v[N];
    int64_t pool[100];
    uint64_t rng = 100;
    for (size_t i = 0; i < 100; i++) pool[i] = (int64_t)rng_next(&rng);
    for (size_t i = 0; i < N; i++) v[i] = pool[mix(i) % 100];
    ck_assert_int_eq(inlay_writer_append_i64(w, 0, v, N, NULL), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "v");
    ck_assert_int_eq(fm_pages(c, PT_DICTIONARY, E_PLAIN), 1);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_RLE_DICTIONARY), N / 1000);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_PLAIN) + fm_pages(c, PT_DATA, E_DBP), 0);
    ck_assert_int_eq(c->dictionary_page_offset, 4);          /* the first chunk of the file */
    ck_assert_int_gt(c->data_page_offset, c->dictionary_page_offset);
    decoded d = { 0 };
    decode_column(&f, "v", 8, 0, 0, &d);
    ck_assert_uint_eq(d.dict_entries, 100);
    expect_fixed(&d, v, N, 8);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_high_cardinality_delta)
{
    /* distinct integers: no dictionary, DELTA_BINARY_PACKED from page 1 */
    inlay_options o = options();
    file f;
    inlay_writer *w = open_one(&f, "v", INLAY_REQUIRED, inlay_type_physical(INLAY_INT64),
                               INLAY_ENCODING_AUTO, &o);
    enum { N = 10000 };
    static int64_t v[N];
    for (size_t i = 0; i < N; i++) v[i] = (int64_t)i * 1000003;
    ck_assert_int_eq(inlay_writer_append_i64(w, 0, v, N, NULL), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "v");
    ck_assert_int_eq(c->dictionary_page_offset, -1);
    ck_assert_int_eq(fm_pages(c, PT_DICTIONARY, E_PLAIN), 0);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_RLE_DICTIONARY), 0);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_PLAIN), 0);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_DBP), N / 1000);
    /* constant deltas: a page of 1000 values is a few header bytes a block */
    ck_assert_int_lt(c->total_uncompressed, N);
    decoded d = { 0 };
    decode_column(&f, "v", 8, 0, 0, &d);
    expect_fixed(&d, v, N, 8);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_high_cardinality_strings)
{
    inlay_options o = options();
    file f;
    inlay_writer *w = open_one(&f, "s", INLAY_OPTIONAL, inlay_type_string(), INLAY_ENCODING_AUTO, &o);
    enum { N = 3000 };
    static char text[N][24];
    static inlay_bytes v[N];
    for (size_t i = 0; i < N; i++) {
        int n = snprintf(text[i], sizeof text[i], "%08x-%zu", mix(i), i);
        v[i] = (inlay_bytes){ text[i], (size_t)n };
    }
    ck_assert_int_eq(inlay_writer_append_bytes(w, 0, v, N, NULL), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "s");
    ck_assert_int_eq(c->dictionary_page_offset, -1);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_DLBA), N / 1000);
    decoded d = { 0 };
    decode_column(&f, "s", 0, 1, 0, &d);
    expect_bytes(&d, v, N);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_high_cardinality_float)
{
    inlay_options o = options();
    file f;
    inlay_writer *w = open_one(&f, "x", INLAY_REQUIRED, inlay_type_float(), INLAY_ENCODING_AUTO, &o);
    enum { N = 3000 };
    static float v[N];
    for (size_t i = 0; i < N; i++) v[i] = (float)mix(i) / 7.0f;
    ck_assert_int_eq(inlay_writer_append_float(w, 0, v, N, NULL), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "x");
    ck_assert_int_eq(c->dictionary_page_offset, -1);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_PLAIN), N / 1000);
    decoded d = { 0 };
    decode_column(&f, "x", 4, 0, 0, &d);
    expect_fixed(&d, v, N, 4);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_plain_option)
{
    inlay_options o = options();
    file f;
    inlay_writer *w = open_one(&f, "v", INLAY_REQUIRED, inlay_type_string(), INLAY_ENCODING_PLAIN, &o);
    enum { N = 3000 };
    static inlay_bytes v[N];
    for (size_t i = 0; i < N; i++) v[i] = bytes_of(i % 2 ? "odd" : "even");
    ck_assert_int_eq(inlay_writer_append_bytes(w, 0, v, N, NULL), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "v");
    ck_assert_int_eq(c->dictionary_page_offset, -1);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_RLE_DICTIONARY), 0);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_PLAIN), 3);
    decoded d = { 0 };
    decode_column(&f, "v", 0, 0, 0, &d);
    expect_bytes(&d, v, N);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_forced_dictionary_high_cardinality)
{
    inlay_options o = options();
    file f;
    inlay_writer *w = open_one(&f, "v", INLAY_REQUIRED, inlay_type_physical(INLAY_INT32),
                               INLAY_ENCODING_DICTIONARY, &o);
    enum { N = 3000 };
    static int32_t v[N];
    for (size_t i = 0; i < N; i++) v[i] = (int32_t)(i * 2654435761u);
    ck_assert_int_eq(inlay_writer_append_i32(w, 0, v, N, NULL), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "v");
    ck_assert_int_eq(fm_pages(c, PT_DICTIONARY, E_PLAIN), 1);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_RLE_DICTIONARY), 3);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_PLAIN), 0);
    decoded d = { 0 };
    decode_column(&f, "v", 4, 0, 0, &d);
    expect_fixed(&d, v, N, 4);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_float_bits_kept)
{
    /* the dictionary keys floats by bit pattern: -0.0, +0.0 and two NaNs
     * come back with their exact bits */
    inlay_options o = options();
    file f;
    inlay_writer *w = open_one(&f, "v", INLAY_REQUIRED, inlay_type_double(), INLAY_ENCODING_DICTIONARY, &o);
    enum { N = 400 };
    static double v[N];
    const uint64_t nan1 = 0x7FF8000000000001ULL, nan2 = 0xFFF8000000000002ULL;
    for (size_t i = 0; i < N; i++) {
        switch (i % 5) {
        case 0: v[i] = 0.0; break;
        case 1: v[i] = -0.0; break;
        case 2: memcpy(&v[i], &nan1, 8); break;
        case 3: memcpy(&v[i], &nan2, 8); break;
        default: v[i] = 1.5; break;
        }
    }
    ck_assert_int_eq(inlay_writer_append_double(w, 0, v, N, NULL), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "v");
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_RLE_DICTIONARY), 1);
    decoded d = { 0 };
    decode_column(&f, "v", 8, 0, 0, &d);
    expect_fixed(&d, v, N, 8);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

/* ---- levels and other types ---------------------------------------------------------------- */

START_TEST(test_optional_strings)
{
    inlay_options o = options();
    o.compression = INLAY_ZSTD;
    o.page_rows = 300;
    file f;
    inlay_writer *w = open_one(&f, "s", INLAY_OPTIONAL, inlay_type_string(), (inlay_encoding_choice)_i, &o);
    enum { N = 2000 };
    static char text[N][16];
    static inlay_bytes v[N];
    static int16_t def[N];
    size_t nv = 0;
    for (size_t i = 0; i < N; i++) {
        def[i] = i % 3 != 0;
        if (def[i]) {
            int n = snprintf(text[nv], sizeof text[nv], "%zu", i % 50);
            v[nv].data = text[nv];
            v[nv].len = (size_t)n;
            nv++;
        }
    }
    inlay_levels lv = { def, NULL, NULL };
    ck_assert_int_eq(inlay_writer_append_bytes(w, 0, v, N, &lv), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "s");
    ck_assert_int_eq(c->num_values, N);
    ck_assert_int_eq(c->null_count, N - (int64_t)nv);
    ck_assert(fm_has_encoding(c, E_RLE));
    decoded d = { 0 };
    decode_column(&f, "s", 0, 1, 0, &d);
    ck_assert_uint_eq(d.nlevels, N);
    ck_assert_int_eq(memcmp(d.def, def, sizeof def), 0);
    expect_bytes(&d, v, nv);
    switch (_i) {
    case INLAY_ENCODING_AUTO:        /* the dictionary or its fallback, never PLAIN */
        ck_assert_int_eq(d.data_pages[E_PLAIN], 0);
        ck_assert_int_eq(d.data_pages[E_RLE_DICTIONARY] + d.data_pages[E_DLBA], (N + 299) / 300);
        break;
    case INLAY_ENCODING_PLAIN: expect_all_pages(&d, E_PLAIN); break;
    case INLAY_ENCODING_DICTIONARY: expect_all_pages(&d, E_RLE_DICTIONARY); break;
    case INLAY_ENCODING_DELTA: expect_all_pages(&d, E_DLBA); break;
    default: expect_all_pages(&d, E_DBA); break;
    }
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_nested_list)
{
    /* optional group tags { repeated group list { optional int32 element } },
     * rows cycling through [r, null], null, [], [r, r+1, r+2]; in v1 and
     * v2 pages */
    inlay_schema *s = inlay_schema_create(NULL);
    int tags = inlay_schema_add_group(s, 0, "tags", INLAY_OPTIONAL);
    int list = inlay_schema_add_group(s, tags, "list", INLAY_REPEATED);
    ck_assert_int_gt(inlay_schema_add(s, list, "element", INLAY_OPTIONAL, inlay_type_int(32, true), NULL), 0);
    inlay_options o = options();
    o.page_rows = 70;
    o.row_group_rows = 250;
    o.compression = INLAY_ZSTD;
    o.page_version = 1 + _i;
    file f = { .meta = NULL };
    inlay_buffer_init(&f.out, NULL);
    inlay_writer *w;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&f.out), s, &o), INLAY_OK);
    inlay_schema_free(s);
    enum { R = 1000 };
    static int16_t def[3 * R], rep[3 * R];
    static int32_t v[3 * R];
    size_t n = 0, nv = 0;
    for (int r = 0; r < R; r++) {
        switch (r % 4) {
        case 0:
            def[n] = 3; rep[n++] = 0; v[nv++] = r;
            def[n] = 2; rep[n++] = 1;
            break;
        case 1: def[n] = 0; rep[n++] = 0; break;
        case 2: def[n] = 1; rep[n++] = 0; break;
        default:
            for (int k = 0; k < 3; k++) { def[n] = 3; rep[n++] = k ? 1 : 0; v[nv++] = r + k; }
            break;
        }
    }
    /* in uneven batches that start at row boundaries */
    size_t at = 0, vat = 0;
    while (at < n) {
        size_t end = at + 37 < n ? at + 37 : n;
        while (end < n && rep[end] != 0) end++;
        size_t vals = 0;
        for (size_t i = at; i < end; i++) vals += def[i] == 3;
        inlay_levels lv = { def + at, rep + at, NULL };
        ck_assert_int_eq(inlay_writer_append_i32(w, 0, v + vat, end - at, &lv), 0);
        at = end;
        vat += vals;
    }
    ck_assert_uint_eq(inlay_writer_rows(w), R);
    finish(w, &f);
    ck_assert_int_eq(f.meta->num_rows, R);
    ck_assert_int_eq(f.meta->num_row_groups, R / 250);
    for (int g = 0; g < f.meta->num_row_groups; g++) ck_assert_int_eq(f.meta->row_group_rows[g], 250);
    decoded d = { 0 };
    decode_column(&f, "tags.list.element", 4, 3, 1, &d);
    ck_assert_uint_eq(d.nlevels, n);
    ck_assert_int_eq(memcmp(d.def, def, n * sizeof *def), 0);
    ck_assert_int_eq(memcmp(d.rep, rep, n * sizeof *rep), 0);
    expect_fixed(&d, v, nv, 4);
    /* pages of 70 rows, 4 row groups of 250 rows: 4 pages each */
    ck_assert_int_eq(_i ? d.v2_pages : d.v1_pages, 4 * 4);
    ck_assert_int_eq(_i ? d.v1_pages : d.v2_pages, 0);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_booleans)
{
    inlay_options o = options();
    o.page_rows = 333;
    file f;
    inlay_writer *w = open_one(&f, "b", INLAY_OPTIONAL, inlay_type_boolean(), INLAY_ENCODING_AUTO, &o);
    enum { N = 1000 };
    static bool v[N];
    static uint8_t valid[(N + 7) / 8], want[N];
    static int16_t def[N];
    size_t nv = 0;
    for (size_t i = 0; i < N; i++) {
        v[i] = (i * 7) % 3 == 0;
        def[i] = i % 11 != 0;
        if (def[i]) {
            valid[i / 8] |= (uint8_t)(1u << (i % 8));
            want[nv++] = v[i];
        }
    }
    inlay_levels lv = { NULL, NULL, valid };       /* spaced values with a bitmap */
    ck_assert_int_eq(inlay_writer_append_bool(w, 0, v, N, &lv), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "b");
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_PLAIN), 4);
    ck_assert_int_eq(c->dictionary_page_offset, -1);
    decoded d = { 0 };
    decode_column(&f, "b", 1, 1, 0, &d);
    ck_assert_int_eq(memcmp(d.def, def, sizeof def), 0);
    expect_fixed(&d, want, nv, 1);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_fixed_len)
{
    inlay_options o = options();
    file f;
    inlay_writer *w = open_one(&f, "u", INLAY_REQUIRED, inlay_type_uuid(), (inlay_encoding_choice)_i, &o);
    enum { N = 1500 };
    static uint8_t raw[N][16];
    static inlay_bytes v[N];
    for (size_t i = 0; i < N; i++) {
        for (int k = 0; k < 16; k++) raw[i][k] = (uint8_t)((i < 700 ? i % 5 : i) * 31 + (size_t)k);
        v[i].data = raw[i];
        v[i].len = 16;
    }
    ck_assert_int_eq(inlay_writer_append_bytes(w, 0, v, N, NULL), 0);
    finish(w, &f);
    decoded d = { 0 };
    decode_column(&f, "u", 16, 0, 0, &d);
    expect_bytes(&d, v, N);
    switch (_i) {
    case INLAY_ENCODING_AUTO:           /* rows 0..699 take 5 values: the dictionary pays */
        ck_assert_int_eq(d.dictionary_pages, 1);
        ck_assert_int_eq(d.data_pages[E_RLE_DICTIONARY] + d.data_pages[E_PLAIN], 2);
        break;
    case INLAY_ENCODING_PLAIN: expect_all_pages(&d, E_PLAIN); break;
    case INLAY_ENCODING_DICTIONARY: expect_all_pages(&d, E_RLE_DICTIONARY); break;
    case INLAY_ENCODING_DELTA:          /* DELTA on FIXED_LEN_BYTE_ARRAY is front coding */
    case INLAY_ENCODING_DELTA_BYTE_ARRAY: expect_all_pages(&d, E_DBA); break;
    default: expect_all_pages(&d, E_BSS); break;
    }
    if (_i != INLAY_ENCODING_AUTO && _i != INLAY_ENCODING_DICTIONARY) ck_assert_int_eq(d.dictionary_pages, 0);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

/* ---- page limits ---------------------------------------------------------------------------- */

START_TEST(test_page_bytes)
{
    /* PLAIN byte arrays end their page once page_bytes are reached */
    inlay_options o = options();
    o.page_bytes = 4096;
    o.page_rows = 100000;
    file f;
    inlay_writer *w = open_one(&f, "s", INLAY_REQUIRED, inlay_type_binary(), INLAY_ENCODING_PLAIN, &o);
    enum { N = 1000 };
    static uint8_t raw[N][100];
    static inlay_bytes v[N];
    for (size_t i = 0; i < N; i++) {
        memset(raw[i], (int)(i & 0xff), 100);
        v[i].data = raw[i];
        v[i].len = 100;
    }
    ck_assert_int_eq(inlay_writer_append_bytes(w, 0, v, N, NULL), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "s");
    int pages = fm_pages(c, PT_DATA, E_PLAIN);
    /* 104 bytes a value: about 40 values a page */
    ck_assert_int_ge(pages, N * 104 / (4096 + 104));
    ck_assert_int_le(pages, N * 104 / (4096 - 104) + 1);
    decoded d = { 0 };
    decode_column(&f, "s", 0, 0, 0, &d);
    expect_bytes(&d, v, N);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_page_bytes_auto)
{
    /* The same distinct 100-byte values with AUTO (loop 0: BYTE_ARRAY) and
     * 8-byte distinct integers (loop 1: INT64): the dictionary does not pay
     * and is dropped on the first page, whose fallback encoding must still
     * respect page_bytes like every later page. */
    inlay_options o = options();
    o.page_bytes = 4096;
    o.page_rows = 100000;
    file f;
    enum { N = 3000 };
    static uint8_t raw[N][100];
    static inlay_bytes v[N];
    static int64_t x[N];
    uint64_t rng = 31;
    for (size_t i = 0; i < N; i++) {
        for (size_t k = 0; k < 100; k++) raw[i][k] = (uint8_t)rng_next(&rng);
        v[i] = (inlay_bytes){ raw[i], 100 };
        x[i] = (int64_t)rng_next(&rng);
    }
    inlay_writer *w = open_one(&f, "s", INLAY_REQUIRED, _i ? inlay_type_int(64, true) : inlay_type_binary(),
                               INLAY_ENCODING_AUTO, &o);
    if (_i) ck_assert_int_eq(inlay_writer_append_i64(w, 0, x, N, NULL), 0);
    else ck_assert_int_eq(inlay_writer_append_bytes(w, 0, v, N, NULL), 0);
    finish(w, &f);
    decoded d = { 0 };
    decode_column(&f, "s", 0, 0, 0, &d);
    if (_i) expect_fixed(&d, x, N, 8);
    else expect_bytes(&d, v, N);
    ck_assert_int_eq(d.dictionary_pages, 0);
    expect_all_pages(&d, _i ? E_DBP : E_DLBA);
    /* a page may pass the limit by a value and the encoding's own overhead */
    const int32_t limit = 4096 + 4096 / 4 + 2 * (_i ? 8 : 104);
    for (size_t p = 0; p < d.npages; p++)
        ck_assert_msg(d.pages[p].uncompressed <= limit, "page %zu of %zu holds %d values in %d bytes, "
                      "page_bytes is 4096", p, d.npages, d.pages[p].num_values, d.pages[p].uncompressed);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_page_rows)
{
    inlay_options o = options();
    o.page_rows = 128;
    file f;
    inlay_writer *w = open_one(&f, "v", INLAY_OPTIONAL, inlay_type_float(), INLAY_ENCODING_AUTO, &o);
    enum { N = 1000 };
    static float v[N];
    for (size_t i = 0; i < N; i++) v[i] = (float)(i % 10) / 4.0f;
    for (size_t i = 0; i < N; i += 100) ck_assert_int_eq(inlay_writer_append_float(w, 0, v + i, 100, NULL), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "v");
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_RLE_DICTIONARY) + fm_pages(c, PT_DATA, E_PLAIN), (N + 127) / 128);
    decoded d = { 0 };
    decode_column(&f, "v", 4, 1, 0, &d);
    expect_fixed(&d, v, N, 4);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

/* ---- batch independence ------------------------------------------------------------------- */

/* The file depends on the rows and the options only, not on how the rows
 * were split into appends: each page's index width, where pages end and
 * where the dictionary is given up (dictionary_bytes) are the same for one
 * append and for many small ones. Strings are staged into the dictionary
 * a batch at a time (see column.h), ahead of their pages. */
enum { SPLIT_ROWS = 13000 };

static const size_t split_sizes[][6] = {
    { SPLIT_ROWS },   /* one append */
    { 1 }, { 3 }, { 7 }, { 4095 }, { 4096 }, { 4097 }, { 1, 4097, 3, 4095, 7, 64 },
};

/* Row i's value: few distinct at first, then more and more, so the
 * dictionary grows through the index widths and past its limit. */
static uint32_t split_value(size_t i)
{
    const uint32_t spread = i < 2000 ? 5 : i < 6000 ? 40 : 1000 + (uint32_t)i;
    return mix(i) % spread;
}

static void split_options(inlay_options *o, int variant)
{
    *o = options();
    o->page_rows = variant & 1 ? 4 : 200;
    o->page_bytes = variant & 2 ? 97 : 1u << 20;
    o->row_group_rows = 5000;
    o->dictionary_bytes = 300;
}

/* The file of SPLIT_ROWS rows appended in the sizes of split_sizes[pattern], cycled. */
static void split_write(file *f, bool strings, int variant, inlay_encoding_choice enc, int pattern)
{
    static int32_t iv[SPLIT_ROWS];
    static inlay_bytes bv[SPLIT_ROWS];
    static char text[SPLIT_ROWS][16];
    for (size_t i = 0; i < SPLIT_ROWS; i++) {
        iv[i] = (int32_t)split_value(i);
        int n = snprintf(text[i], sizeof text[i], "s%u", (unsigned)split_value(i));
        bv[i].data = (const uint8_t *)text[i];
        bv[i].len = (size_t)n;
    }
    inlay_options o;
    split_options(&o, variant);
    inlay_writer *w = open_one(f, "v", INLAY_REQUIRED, strings ? inlay_type_string() : inlay_type_int(32, true),
                               enc, &o);
    const size_t *sizes = split_sizes[pattern];
    size_t nsizes = 0;
    while (nsizes < 6 && sizes[nsizes]) nsizes++;
    for (size_t i = 0, k = 0; i < SPLIT_ROWS; k++) {
        size_t n = sizes[k % nsizes];
        if (n > SPLIT_ROWS - i) n = SPLIT_ROWS - i;
        int st = strings ? inlay_writer_append_bytes(w, 0, bv + i, n, NULL)
                         : inlay_writer_append_i32(w, 0, iv + i, n, NULL);
        ck_assert_int_eq(st, 0);
        i += n;
    }
    finish(w, f);
}

/* loop index: bit 0 strings, bits 1-2 the options' variant, bit 3 DICTIONARY (else AUTO) */
START_TEST(test_batch_split)
{
    const bool strings = _i & 1;
    const int variant = (_i >> 1) & 3;
    const inlay_encoding_choice enc = _i & 8 ? INLAY_ENCODING_DICTIONARY : INLAY_ENCODING_AUTO;
    file one;
    split_write(&one, strings, variant, enc, 0);
    /* a forced dictionary: given up at its limit in the second chunk */
    const fm_chunk *c = fm_find(one.meta, 1, "v");
    if (enc == INLAY_ENCODING_DICTIONARY) {
        ck_assert_int_gt(fm_pages(c, PT_DATA, E_RLE_DICTIONARY), 0);
        ck_assert_int_gt(fm_pages(c, PT_DATA, strings ? E_DLBA : E_DBP), 0);
    }
    for (int p = 1; p < (int)(sizeof split_sizes / sizeof *split_sizes); p++) {
        file f;
        split_write(&f, strings, variant, enc, p);
        ck_assert_msg(f.out.len == one.out.len && memcmp(f.out.data, one.out.data, one.out.len) == 0,
                      "%s, variant %d, encoding %d: appends of %zu... give %zu bytes, one append %zu",
                      strings ? "strings" : "int32", variant, (int)enc, split_sizes[p][0], f.out.len,
                      one.out.len);
        file_free(&f);
    }
    file_free(&one);
}
END_TEST

static Suite *column_suite(void)
{
    Suite *s = suite_create("column");
    TCase *c;

    c = tcase_create("dictionary fallback");
    tcase_set_timeout(c, 60);
    tcase_add_test(c, test_fallback_int32);
    tcase_add_test(c, test_fallback_strings);
    tcase_add_test(c, test_fallback_double);
    tcase_add_test(c, test_fallback_per_row_group);
    tcase_add_test(c, test_forced_dictionary_fallback);
    suite_add_tcase(s, c);

    c = tcase_create("dictionary decision");
    tcase_add_test(c, test_low_cardinality);
    tcase_add_test(c, test_high_cardinality_delta);
    tcase_add_test(c, test_high_cardinality_strings);
    tcase_add_test(c, test_high_cardinality_float);
    tcase_add_test(c, test_plain_option);
    tcase_add_test(c, test_forced_dictionary_high_cardinality);
    tcase_add_test(c, test_float_bits_kept);
    suite_add_tcase(s, c);

    /* loop index: the inlay_encoding_choice (AUTO .. DELTA_BYTE_ARRAY for
     * strings, .. BYTE_STREAM_SPLIT for fixed-length), the page version - 1 */
    c = tcase_create("levels and types");
    tcase_add_loop_test(c, test_optional_strings, INLAY_ENCODING_AUTO, INLAY_ENCODING_DELTA_BYTE_ARRAY + 1);
    tcase_add_loop_test(c, test_nested_list, 0, 2);
    tcase_add_test(c, test_booleans);
    tcase_add_loop_test(c, test_fixed_len, INLAY_ENCODING_AUTO, INLAY_ENCODING_BYTE_STREAM_SPLIT + 1);
    suite_add_tcase(s, c);

    c = tcase_create("page limits");
    tcase_add_test(c, test_page_bytes);
    tcase_add_loop_test(c, test_page_bytes_auto, 0, 2);
    tcase_add_test(c, test_page_rows);
    suite_add_tcase(s, c);

    c = tcase_create("batch independence");
    tcase_set_timeout(c, 120);
    tcase_add_loop_test(c, test_batch_split, 0, 16);
    suite_add_tcase(s, c);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(column_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
