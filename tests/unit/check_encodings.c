/*
 * check_encodings.c — the encoding policy seen from the file (runtime/
 * column.c, page.c, metadata.c, schema.c):
 *
 *  - every explicit encoding choice, for every type it applies to, writes
 *    data pages in that encoding that decode back to the values (v1 and v2
 *    pages, with and without compression); a choice that does not fit a
 *    type is a schema error naming the field;
 *  - AUTO's dictionary cost check: made on the first page of every chunk,
 *    dropping a dictionary that does not pay (compared after compression
 *    when the two sizes are within a factor of two), and skipped for
 *    DICTIONARY;
 *  - DATA_PAGE_V2: header counts, uncompressed levels, is_compressed;
 *  - encoding_stats and the encodings list of the footer.
 *
 * Files are read back with chunk_reader.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "chunk_reader.h"

static inlay_options options(void)
{
    inlay_options o;
    inlay_options_init(&o);
    o.compression = INLAY_UNCOMPRESSED;
    o.page_rows = 1000;
    return o;
}

static uint32_t mix(size_t i)
{
    uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ULL;
    return (uint32_t)(x >> 32);
}

/* ---- one column of any type ---------------------------------------------------------------- */

enum { MAXN = 4000 };

/* The values of a test column: typed arrays for the append call, and each
 * non-null value's PLAIN-shaped bytes to compare the decoded ones with. */
typedef struct column_data {
    int physical;
    int width;                         /* FIXED_LEN_BYTE_ARRAY width */
    bool optional;                     /* else required: no levels, def all 0 */
    size_t n, nv;                      /* level entries, values */
    int16_t def[MAXN];
    bool b[MAXN];
    int32_t i32[MAXN];
    int64_t i64[MAXN];
    float f[MAXN];
    double d[MAXN];
    inlay_bytes by[MAXN];
    char text[MAXN][32];
} column_data;

static inlay_type type_of(int physical, int width)
{
    switch (physical) {
    case INLAY_BOOLEAN: return inlay_type_boolean();
    case INLAY_INT32: return inlay_type_int(32, true);
    case INLAY_INT64: return inlay_type_int(64, true);
    case INLAY_FLOAT: return inlay_type_float();
    case INLAY_DOUBLE: return inlay_type_double();
    case INLAY_BYTE_ARRAY: return inlay_type_binary();
    default: return inlay_type_fixed(width);
    }
}

static const char *physical_name(int physical)
{
    switch (physical) {
    case INLAY_BOOLEAN: return "BOOLEAN";
    case INLAY_INT32: return "INT32";
    case INLAY_INT64: return "INT64";
    case INLAY_FLOAT: return "FLOAT";
    case INLAY_DOUBLE: return "DOUBLE";
    case INLAY_BYTE_ARRAY: return "BYTE_ARRAY";
    default: return "FIXED_LEN_BYTE_ARRAY";
    }
}

/* n entries, when optional about one in seven null (and all of entries
 * [null_from, null_to)); values random with some repeats and runs (so RLE,
 * delta and front coding all have something to do). */
static void make_data(column_data *c, int physical, int width, bool optional, size_t n, uint64_t seed,
                      size_t null_from, size_t null_to)
{
    uint64_t rng = seed;
    c->physical = physical;
    c->width = width;
    c->optional = optional;
    c->n = n;
    c->nv = 0;
    for (size_t i = 0; i < n; i++) {
        c->def[i] = optional ? rng_next(&rng) % 7 != 0 && (i < null_from || i >= null_to) : 0;
        if (optional && !c->def[i]) continue;
        const size_t k = c->nv++;
        const uint64_t r = rng_next(&rng);
        const bool again = k > 0 && r % 8 == 0;    /* the previous value once more */
        switch (physical) {
        case INLAY_BOOLEAN: c->b[k] = (k / 13) % 2 ? (r >> 7) & 1 : (k / 13) % 4 == 1; break;
        /* integers of 25 and 45 bits (signed): deltas narrower than a dictionary's cost */
        case INLAY_INT32: c->i32[k] = again ? c->i32[k - 1] : (int32_t)(r >> 40) - (1 << 23); break;
        case INLAY_INT64: c->i64[k] = again ? c->i64[k - 1] : (int64_t)(r >> 20) - (INT64_C(1) << 43); break;
        case INLAY_FLOAT: c->f[k] = again ? c->f[k - 1] : (float)(int32_t)(r >> 40) / 7.0f; break;
        case INLAY_DOUBLE: c->d[k] = again ? c->d[k - 1] : (double)(int64_t)r / 3.0; break;
        default: {
            size_t len = physical == INLAY_BYTE_ARRAY ? r % 20 : (size_t)width;
            size_t keep = 0;
            if (k && physical == INLAY_BYTE_ARRAY) keep = (r >> 8) % (c->by[k - 1].len + 1);
            else if (k) keep = (r >> 8) % (size_t)(width + 1);
            if (keep > len) len = keep;
            if (keep) memcpy(c->text[k], c->by[k - 1].data, keep);
            for (size_t b = keep; b < len; b++) c->text[k][b] = (char)('a' + rng_next(&rng) % 26);
            if (again) {
                len = c->by[k - 1].len;
                memcpy(c->text[k], c->by[k - 1].data, len);
            }
            c->by[k] = (inlay_bytes){ c->text[k], len };
            break;
        }
        }
    }
}

static int append_data(inlay_writer *w, const column_data *c, size_t from, size_t to, size_t vfrom)
{
    inlay_levels levels = { c->def + from, NULL, NULL };
    const inlay_levels *lv = c->optional ? &levels : NULL;
    const size_t n = to - from;
    switch (c->physical) {
    case INLAY_BOOLEAN: return inlay_writer_append_bool(w, 0, c->b + vfrom, n, lv);
    case INLAY_INT32: return inlay_writer_append_i32(w, 0, c->i32 + vfrom, n, lv);
    case INLAY_INT64: return inlay_writer_append_i64(w, 0, c->i64 + vfrom, n, lv);
    case INLAY_FLOAT: return inlay_writer_append_float(w, 0, c->f + vfrom, n, lv);
    case INLAY_DOUBLE: return inlay_writer_append_double(w, 0, c->d + vfrom, n, lv);
    default: return inlay_writer_append_bytes(w, 0, c->by + vfrom, n, lv);
    }
}

/* Append all of c in batches of `batch` entries. */
static void append_all(inlay_writer *w, const column_data *c, size_t batch)
{
    size_t v = 0;
    for (size_t at = 0; at < c->n; at += batch) {
        size_t end = at + batch < c->n ? at + batch : c->n;
        int st = append_data(w, c, at, end, v);
        ck_assert_msg(st == INLAY_OK, "%s", inlay_writer_errmsg(w));
        for (size_t i = at; i < end; i++) v += !c->optional || c->def[i] == 1;
    }
}

/* The decoded values and definition levels are c's. */
static void expect_data(const decoded *d, const column_data *c)
{
    ck_assert_uint_eq(d->nlevels, c->n);
    ck_assert_msg(memcmp(d->def, c->def, c->n * sizeof *c->def) == 0, "definition levels differ");
    ck_assert_uint_eq(d->nvalues, c->nv);
    for (size_t i = 0; i < c->nv; i++) {
        const void *want;
        size_t len;
        uint8_t b;
        switch (c->physical) {
        case INLAY_BOOLEAN: b = c->b[i]; want = &b; len = 1; break;
        case INLAY_INT32: want = &c->i32[i]; len = 4; break;
        case INLAY_INT64: want = &c->i64[i]; len = 8; break;
        case INLAY_FLOAT: want = &c->f[i]; len = 4; break;
        case INLAY_DOUBLE: want = &c->d[i]; len = 8; break;
        default: want = c->by[i].data; len = c->by[i].len; break;
        }
        ck_assert_msg(d->len[i] == len && (len == 0 || memcmp(d->val[i], want, len) == 0),
                      "%s value %zu differs", physical_name(c->physical), i);
    }
}

/* ---- every choice for every type it applies to ----------------------------------------------- */

typedef struct choice_case {
    int physical;
    inlay_encoding_choice choice;
    int page_encoding;               /* of every data page */
    bool dictionary;                 /* a dictionary page */
} choice_case;

static const choice_case choice_cases[] = {
    { INLAY_BOOLEAN, INLAY_ENCODING_AUTO, E_PLAIN, false },
    { INLAY_BOOLEAN, INLAY_ENCODING_PLAIN, E_PLAIN, false },
    { INLAY_BOOLEAN, INLAY_ENCODING_RLE, E_RLE, false },
    { INLAY_INT32, INLAY_ENCODING_AUTO, E_DBP, false },
    { INLAY_INT32, INLAY_ENCODING_PLAIN, E_PLAIN, false },
    { INLAY_INT32, INLAY_ENCODING_DICTIONARY, E_RLE_DICTIONARY, true },
    { INLAY_INT32, INLAY_ENCODING_DELTA, E_DBP, false },
    { INLAY_INT32, INLAY_ENCODING_BYTE_STREAM_SPLIT, E_BSS, false },
    { INLAY_INT64, INLAY_ENCODING_AUTO, E_DBP, false },
    { INLAY_INT64, INLAY_ENCODING_PLAIN, E_PLAIN, false },
    { INLAY_INT64, INLAY_ENCODING_DICTIONARY, E_RLE_DICTIONARY, true },
    { INLAY_INT64, INLAY_ENCODING_DELTA, E_DBP, false },
    { INLAY_INT64, INLAY_ENCODING_BYTE_STREAM_SPLIT, E_BSS, false },
    { INLAY_FLOAT, INLAY_ENCODING_AUTO, E_PLAIN, false },
    { INLAY_FLOAT, INLAY_ENCODING_PLAIN, E_PLAIN, false },
    { INLAY_FLOAT, INLAY_ENCODING_DICTIONARY, E_RLE_DICTIONARY, true },
    { INLAY_FLOAT, INLAY_ENCODING_BYTE_STREAM_SPLIT, E_BSS, false },
    { INLAY_DOUBLE, INLAY_ENCODING_AUTO, E_PLAIN, false },
    { INLAY_DOUBLE, INLAY_ENCODING_PLAIN, E_PLAIN, false },
    { INLAY_DOUBLE, INLAY_ENCODING_DICTIONARY, E_RLE_DICTIONARY, true },
    { INLAY_DOUBLE, INLAY_ENCODING_BYTE_STREAM_SPLIT, E_BSS, false },
    { INLAY_BYTE_ARRAY, INLAY_ENCODING_AUTO, E_DLBA, false },
    { INLAY_BYTE_ARRAY, INLAY_ENCODING_PLAIN, E_PLAIN, false },
    { INLAY_BYTE_ARRAY, INLAY_ENCODING_DICTIONARY, E_RLE_DICTIONARY, true },
    { INLAY_BYTE_ARRAY, INLAY_ENCODING_DELTA, E_DLBA, false },
    { INLAY_BYTE_ARRAY, INLAY_ENCODING_DELTA_BYTE_ARRAY, E_DBA, false },
    { INLAY_FIXED_LEN_BYTE_ARRAY, INLAY_ENCODING_AUTO, E_PLAIN, false },
    { INLAY_FIXED_LEN_BYTE_ARRAY, INLAY_ENCODING_PLAIN, E_PLAIN, false },
    { INLAY_FIXED_LEN_BYTE_ARRAY, INLAY_ENCODING_DICTIONARY, E_RLE_DICTIONARY, true },
    { INLAY_FIXED_LEN_BYTE_ARRAY, INLAY_ENCODING_DELTA, E_DBA, false },
    { INLAY_FIXED_LEN_BYTE_ARRAY, INLAY_ENCODING_DELTA_BYTE_ARRAY, E_DBA, false },
    { INLAY_FIXED_LEN_BYTE_ARRAY, INLAY_ENCODING_BYTE_STREAM_SPLIT, E_BSS, false },
};
enum { NCHOICES = sizeof choice_cases / sizeof choice_cases[0] };

/* Loop index: case * 4 + variant; variant bit 0: v2 pages, bit 1: ZSTD. */
START_TEST(test_choice_round_trip)
{
    const choice_case *k = &choice_cases[_i / 4];
    const bool v2 = _i & 1, zstd = _i & 2;
    static column_data c;
    /* the second page holds only nulls */
    make_data(&c, k->physical, 3, true, 2600, 1234 + (uint64_t)_i, 1000, 2000);
    inlay_options o = options();
    o.page_rows = 1000;
    o.page_version = v2 ? 2 : 1;
    o.compression = zstd ? INLAY_ZSTD : INLAY_UNCOMPRESSED;
    file f;
    inlay_writer *w = open_one(&f, "v", INLAY_OPTIONAL, type_of(k->physical, 3), k->choice, &o);
    append_all(w, &c, 700);
    finish(w, &f);
    decoded d = { 0 };
    decode_column(&f, "v", k->physical == INLAY_FIXED_LEN_BYTE_ARRAY ? 3 : 0, 1, 0, &d);
    expect_data(&d, &c);
    ck_assert_msg(d.data_pages[k->page_encoding] == 3, "%s choice %d: %d of 3 pages are %s",
                  physical_name(k->physical), (int)k->choice, d.data_pages[k->page_encoding],
                  encoding_name(k->page_encoding));
    ck_assert_int_eq(d.dictionary_pages, k->dictionary);
    ck_assert_int_eq(v2 ? d.v2_pages : d.v1_pages, 3);
    const fm_chunk *m = fm_find(f.meta, 0, "v");
    ck_assert_int_eq(fm_pages(m, v2 ? PT_DATA_V2 : PT_DATA, k->page_encoding), 3);
    ck_assert(fm_has_encoding(m, k->page_encoding));
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_choice_required_column)
{
    /* no levels at all: the values are the whole body of each page */
    const choice_case *k = &choice_cases[_i];
    static column_data c;
    make_data(&c, k->physical, 5, false, 1500, 99 + (uint64_t)_i, 0, 0);
    inlay_options o = options();
    o.page_rows = 400;
    o.compression = INLAY_ZSTD;
    file f;
    inlay_writer *w = open_one(&f, "r", INLAY_REQUIRED, type_of(k->physical, 5), k->choice, &o);
    append_all(w, &c, 333);
    finish(w, &f);
    decoded d = { 0 };
    decode_column(&f, "r", k->physical == INLAY_FIXED_LEN_BYTE_ARRAY ? 5 : 0, 0, 0, &d);
    expect_data(&d, &c);
    expect_all_pages(&d, k->page_encoding);
    ck_assert_int_eq(d.v1_pages, (int)(c.n + 399) / 400);
    ck_assert_int_eq(d.dictionary_pages, k->dictionary);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

/* ---- choices that do not fit ------------------------------------------------------------------ */

/* What inlay.h documents each choice for. */
static bool choice_fits(int physical, inlay_encoding_choice e)
{
    const bool integer = physical == INLAY_INT32 || physical == INLAY_INT64;
    const bool bytes = physical == INLAY_BYTE_ARRAY || physical == INLAY_FIXED_LEN_BYTE_ARRAY;
    switch (e) {
    case INLAY_ENCODING_AUTO: case INLAY_ENCODING_PLAIN: return true;
    case INLAY_ENCODING_DICTIONARY: return physical != INLAY_BOOLEAN;
    case INLAY_ENCODING_DELTA: return integer || bytes;
    case INLAY_ENCODING_DELTA_BYTE_ARRAY: return bytes;
    case INLAY_ENCODING_BYTE_STREAM_SPLIT:
        return physical == INLAY_FLOAT || physical == INLAY_DOUBLE || integer ||
               physical == INLAY_FIXED_LEN_BYTE_ARRAY;
    case INLAY_ENCODING_RLE: return physical == INLAY_BOOLEAN;
    default: return false;
    }
}

START_TEST(test_schema_matrix)
{
    static const int physicals[] = { INLAY_BOOLEAN, INLAY_INT32, INLAY_INT64, INLAY_FLOAT,
                                     INLAY_DOUBLE, INLAY_BYTE_ARRAY, INLAY_FIXED_LEN_BYTE_ARRAY };
    inlay_schema *s = inlay_schema_create(NULL);
    int g = inlay_schema_add_group(s, 0, "grp", INLAY_OPTIONAL);
    ck_assert_int_gt(g, 0);
    int columns = 0, refused = 0;
    for (size_t p = 0; p < sizeof physicals / sizeof physicals[0]; p++) {
        for (int e = INLAY_ENCODING_AUTO; e <= INLAY_ENCODING_RLE + 1; e++) {
            char name[32];
            snprintf(name, sizeof name, "f%zu_%d", p, e);
            inlay_column_options co;
            inlay_column_options_init(&co);
            co.encoding = (inlay_encoding_choice)e;
            int st = inlay_schema_add(s, g, name, INLAY_OPTIONAL, type_of(physicals[p], 6), &co);
            if (choice_fits(physicals[p], (inlay_encoding_choice)e)) {
                ck_assert_msg(st > 0, "%s with choice %d: %d %s", physical_name(physicals[p]), e, st,
                              inlay_schema_errmsg(s));
                columns++;
            } else {
                char want[48];
                snprintf(want, sizeof want, "'grp.%s'", name);
                ck_assert_msg(st == INLAY_ERR_SCHEMA, "%s with choice %d accepted (%d)",
                              physical_name(physicals[p]), e, st);
                ck_assert_msg(strstr(inlay_schema_errmsg(s), want) != NULL,
                              "%s with choice %d: message \"%s\" does not name %s",
                              physical_name(physicals[p]), e, inlay_schema_errmsg(s), want);
                refused++;
            }
            ck_assert_int_eq(inlay_schema_num_columns(s), columns);
        }
    }
    /* 7 types x 8 choices (one unknown): 32 fit, as choice_fits says */
    ck_assert_int_eq(columns, 32);
    ck_assert_int_eq(refused, 24);
    /* the schema is still good: a writer opens on it */
    inlay_buffer out;
    inlay_buffer_init(&out, NULL);
    inlay_writer *w;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&out), s, NULL), INLAY_OK);
    inlay_writer_free(w);
    inlay_buffer_free(&out);
    inlay_schema_free(s);
}
END_TEST

START_TEST(test_schema_errors_named)
{
    /* the cases spelled out, each naming its field */
    static const struct { const char *name; int physical; inlay_encoding_choice e; } bad[] = {
        { "delta_double", INLAY_DOUBLE, INLAY_ENCODING_DELTA },
        { "delta_float", INLAY_FLOAT, INLAY_ENCODING_DELTA },
        { "delta_bool", INLAY_BOOLEAN, INLAY_ENCODING_DELTA },
        { "rle_int32", INLAY_INT32, INLAY_ENCODING_RLE },
        { "rle_string", INLAY_BYTE_ARRAY, INLAY_ENCODING_RLE },
        { "dict_bool", INLAY_BOOLEAN, INLAY_ENCODING_DICTIONARY },
        { "bss_binary", INLAY_BYTE_ARRAY, INLAY_ENCODING_BYTE_STREAM_SPLIT },
        { "bss_bool", INLAY_BOOLEAN, INLAY_ENCODING_BYTE_STREAM_SPLIT },
        { "dba_int64", INLAY_INT64, INLAY_ENCODING_DELTA_BYTE_ARRAY },
        { "dba_double", INLAY_DOUBLE, INLAY_ENCODING_DELTA_BYTE_ARRAY },
    };
    inlay_schema *s = inlay_schema_create(NULL);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        inlay_column_options co;
        inlay_column_options_init(&co);
        co.encoding = bad[i].e;
        ck_assert_int_eq(inlay_schema_add(s, 0, bad[i].name, INLAY_REQUIRED, type_of(bad[i].physical, 4), &co),
                         INLAY_ERR_SCHEMA);
        char want[48];
        snprintf(want, sizeof want, "'%s'", bad[i].name);
        ck_assert_msg(strstr(inlay_schema_errmsg(s), want), "\"%s\" does not name %s",
                      inlay_schema_errmsg(s), want);
        /* the name was not taken: the same field with a fitting choice is fine */
        co.encoding = INLAY_ENCODING_PLAIN;
        ck_assert_int_gt(inlay_schema_add(s, 0, bad[i].name, INLAY_REQUIRED, type_of(bad[i].physical, 4), &co), 0);
    }
    ck_assert_int_eq(inlay_schema_num_columns(s), (int)(sizeof bad / sizeof bad[0]));
    inlay_schema_free(s);
}
END_TEST

/* ---- the dictionary cost check --------------------------------------------------------------- */

/* Sorted timestamps: microseconds a few seconds apart, no two equal. */
static void sorted_timestamps(int64_t *v, size_t n, uint64_t seed)
{
    uint64_t rng = seed;
    int64_t t = INT64_C(1700000000000000);
    for (size_t i = 0; i < n; i++) {
        t += 1 + (int64_t)(rng_next(&rng) % 5000000);
        v[i] = t;
    }
}

START_TEST(test_sorted_timestamps_drop_dictionary)
{
    inlay_options o = options();
    o.compression = _i ? INLAY_ZSTD : INLAY_UNCOMPRESSED;
    file f;
    inlay_writer *w = open_one(&f, "ts", INLAY_REQUIRED, inlay_type_timestamp(INLAY_MICROS, true),
                               INLAY_ENCODING_AUTO, &o);
    enum { N = 5000 };
    static int64_t v[N];
    sorted_timestamps(v, N, 42);
    ck_assert_int_eq(inlay_writer_append_i64(w, 0, v, N, NULL), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "ts");
    ck_assert_int_eq(c->dictionary_page_offset, -1);
    ck_assert_int_eq(fm_pages(c, PT_DICTIONARY, E_PLAIN), 0);
    ck_assert_int_eq(fm_pages(c, PT_DATA, E_DBP), N / 1000);     /* page 1 included */
    decoded d = { 0 };
    decode_column(&f, "ts", 8, 0, 0, &d);
    expect_fixed(&d, v, N, 8);
    expect_all_pages(&d, E_DBP);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_forced_dictionary_keeps_it)
{
    /* the same timestamps with DICTIONARY: no first-page check */
    inlay_options o = options();
    file f;
    inlay_writer *w = open_one(&f, "ts", INLAY_REQUIRED, inlay_type_timestamp(INLAY_MICROS, true),
                               INLAY_ENCODING_DICTIONARY, &o);
    enum { N = 5000 };
    static int64_t v[N];
    sorted_timestamps(v, N, 42);
    ck_assert_int_eq(inlay_writer_append_i64(w, 0, v, N, NULL), 0);
    finish(w, &f);
    decoded d = { 0 };
    decode_column(&f, "ts", 8, 0, 0, &d);
    expect_fixed(&d, v, N, 8);
    ck_assert_int_eq(d.dictionary_pages, 1);
    ck_assert_uint_eq(d.dict_entries, N);
    expect_all_pages(&d, E_RLE_DICTIONARY);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_low_cardinality_strings_keep_dictionary)
{
    inlay_options o = options();
    o.compression = _i ? INLAY_ZSTD : INLAY_UNCOMPRESSED;
    file f;
    inlay_writer *w = open_one(&f, "city", INLAY_OPTIONAL, inlay_type_string(), INLAY_ENCODING_AUTO, &o);
    static const char *cities[] = { "Amsterdam", "Berlin", "Cairo", "Dakar", "Edinburgh", "Fez",
                                    "Geneva", "Hanoi", "Istanbul", "Jakarta", "Kyoto", "Lima" };
    enum { N = 4000 };
    static inlay_bytes v[N];
    for (size_t i = 0; i < N; i++) v[i] = bytes_of(cities[mix(i) % 12]);
    ck_assert_int_eq(inlay_writer_append_bytes(w, 0, v, N, NULL), 0);
    finish(w, &f);
    decoded d = { 0 };
    decode_column(&f, "city", 0, 1, 0, &d);
    expect_bytes(&d, v, N);
    ck_assert_int_eq(d.dictionary_pages, 1);
    ck_assert_uint_eq(d.dict_entries, 12);
    ck_assert_int_eq(d.data_pages[E_RLE_DICTIONARY], N / 1000);
    expect_all_pages(&d, E_RLE_DICTIONARY);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_decision_per_chunk)
{
    /* row groups of 2000 rows: sorted timestamps (dropped), random picks
     * from 50 wide values (kept), sorted again (dropped): each chunk starts
     * with the dictionary and decides on its own first page */
    inlay_options o = options();
    o.row_group_rows = 2000;
    o.compression = INLAY_ZSTD;
    file f;
    inlay_writer *w = open_one(&f, "v", INLAY_REQUIRED, inlay_type_int(64, true), INLAY_ENCODING_AUTO, &o);
    enum { N = 6000 };
    static int64_t v[N];
    int64_t pool[50];
    uint64_t rng = 5;
    for (int i = 0; i < 50; i++) pool[i] = (int64_t)rng_next(&rng);
    sorted_timestamps(v, 2000, 1);
    for (size_t i = 2000; i < 4000; i++) v[i] = pool[mix(i) % 50];
    sorted_timestamps(v + 4000, 2000, 2);
    for (size_t i = 0; i < N; i += 500) ck_assert_int_eq(inlay_writer_append_i64(w, 0, v + i, 500, NULL), 0);
    finish(w, &f);
    ck_assert_int_eq(f.meta->num_row_groups, 3);
    for (int g = 0; g < 3; g++) {
        const fm_chunk *c = fm_find(f.meta, g, "v");
        decoded d = { 0 };
        const char *why = decode_chunk(f.out.data, f.out.len, c, 8, 0, 0, &d);
        ck_assert_msg(why == NULL, "row group %d: %s", g, why);
        expect_fixed(&d, v + 2000 * g, 2000, 8);
        if (g == 1) {
            ck_assert_int_eq(d.dictionary_pages, 1);
            ck_assert_uint_eq(d.dict_entries, 50);
            expect_all_pages(&d, E_RLE_DICTIONARY);
        } else {
            ck_assert_int_eq(d.dictionary_pages, 0);
            ck_assert_int_eq(c->dictionary_page_offset, -1);
            expect_all_pages(&d, E_DBP);
        }
        decoded_free(&d);
    }
    file_free(&f);
}
END_TEST

START_TEST(test_decision_waits_for_values)
{
    /* An optional column whose first page holds only nulls: there is
     * nothing to weigh on it, so the cost check belongs to the first page
     * with values. Here those are distinct sorted timestamps, for which the
     * dictionary does not pay: every page with values is DELTA_BINARY_PACKED.
     * The null-only page went out before the decision, dictionary-encoded;
     * an empty dictionary page backs it. */
    inlay_options o = options();
    o.compression = _i ? INLAY_ZSTD : INLAY_UNCOMPRESSED;
    file f;
    inlay_writer *w = open_one(&f, "ts", INLAY_OPTIONAL, inlay_type_timestamp(INLAY_MICROS, true),
                               INLAY_ENCODING_AUTO, &o);
    enum { NULLS = 1000, N = 5000 };
    static int64_t v[N];
    static int16_t def[N];
    sorted_timestamps(v, N - NULLS, 9);
    for (size_t i = 0; i < N; i++) def[i] = i >= NULLS;
    inlay_levels lv = { def, NULL, NULL };
    ck_assert_int_eq(inlay_writer_append_i64(w, 0, v, N, &lv), 0);
    finish(w, &f);
    decoded d = { 0 };
    decode_column(&f, "ts", 8, 1, 0, &d);
    ck_assert_int_eq(memcmp(d.def, def, sizeof def), 0);
    expect_fixed(&d, v, N - NULLS, 8);
    ck_assert_msg(d.dict_entries == 0 && d.data_pages[E_RLE_DICTIONARY] == NULLS / 1000 &&
                  d.data_pages[E_DBP] >= (N - NULLS) / 1000,
                  "a dictionary of %zu distinct timestamps was kept: %d dictionary page(s), "
                  "%d RLE_DICTIONARY and %d DELTA_BINARY_PACKED data pages", d.dict_entries,
                  d.dictionary_pages, d.data_pages[E_RLE_DICTIONARY], d.data_pages[E_DBP]);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_decision_after_compression)
{
    /* Pages of 768 random 64-bit values repeating with a period of 384
     * (= 3 delta blocks). Uncompressed, dictionary + indices (384 * 8 +
     * 768 * 9 / 8 bytes) are about 60% of the 64-bit-wide deltas, so the
     * dictionary pays. The two are within a factor of two, so with ZSTD
     * they are compared compressed: the delta blocks repeat and shrink to
     * about half, the random dictionary does not shrink and the indices
     * are counted as they are — the fallback wins. */
    enum { P = 384, PAGE = 768, N = 4 * PAGE };
    static int64_t v[N];
    int64_t pool[P];
    uint64_t rng = 77;
    for (int i = 0; i < P; i++) pool[i] = (int64_t)rng_next(&rng);
    for (size_t i = 0; i < N; i++) v[i] = pool[i % P];
    for (int zstd = 0; zstd < 2; zstd++) {
        inlay_options o = options();
        o.page_rows = PAGE;
        o.compression = zstd ? INLAY_ZSTD : INLAY_UNCOMPRESSED;
        file f;
        inlay_writer *w = open_one(&f, "v", INLAY_REQUIRED, inlay_type_int(64, true), INLAY_ENCODING_AUTO, &o);
        ck_assert_int_eq(inlay_writer_append_i64(w, 0, v, N, NULL), 0);
        finish(w, &f);
        decoded d = { 0 };
        decode_column(&f, "v", 8, 0, 0, &d);
        expect_fixed(&d, v, N, 8);
        if (zstd) {
            ck_assert_msg(d.dictionary_pages == 0, "ZSTD: the dictionary was kept");
            expect_all_pages(&d, E_DBP);
        } else {
            ck_assert_msg(d.dictionary_pages == 1, "uncompressed: the dictionary was dropped");
            expect_all_pages(&d, E_RLE_DICTIONARY);
        }
        decoded_free(&d);
        file_free(&f);
    }
}
END_TEST

START_TEST(test_decision_after_compression_keeps)
{
    /* The other way round: random picks from 200 random 16-bit values.
     * Uncompressed, dictionary + indices (200 * 8 + 1000 * 8 / 8 bytes) are
     * some 15% larger than the 17-bit deltas, so without compression the
     * dictionary is dropped. That is within a factor of two, so with ZSTD
     * the sizes are compared compressed: the dictionary's 8-byte entries
     * have 6 zero bytes each and shrink to about half, the deltas are
     * random bits and do not shrink — the dictionary pays, and is kept. */
    enum { K = 200, N = 4000 };
    static int64_t v[N];
    int64_t pool[K];
    uint64_t rng = 4242;
    for (int i = 0; i < K; i++) pool[i] = (int64_t)(rng_next(&rng) >> 48);
    for (size_t i = 0; i < N; i++) v[i] = pool[rng_next(&rng) % K];
    for (int zstd = 0; zstd < 2; zstd++) {
        inlay_options o = options();
        o.compression = zstd ? INLAY_ZSTD : INLAY_UNCOMPRESSED;
        file f;
        inlay_writer *w = open_one(&f, "v", INLAY_REQUIRED, inlay_type_int(64, true), INLAY_ENCODING_AUTO, &o);
        ck_assert_int_eq(inlay_writer_append_i64(w, 0, v, N, NULL), 0);
        finish(w, &f);
        decoded d = { 0 };
        decode_column(&f, "v", 8, 0, 0, &d);
        expect_fixed(&d, v, N, 8);
        if (zstd) {
            ck_assert_msg(d.dictionary_pages == 1, "ZSTD: the dictionary was dropped (%d RLE_DICTIONARY, "
                          "%d DELTA_BINARY_PACKED pages)", d.data_pages[E_RLE_DICTIONARY], d.data_pages[E_DBP]);
            expect_all_pages(&d, E_RLE_DICTIONARY);
        } else {
            ck_assert_msg(d.dictionary_pages == 0, "uncompressed: the dictionary was kept");
            expect_all_pages(&d, E_DBP);
        }
        decoded_free(&d);
        file_free(&f);
    }
}
END_TEST

/* ---- DATA_PAGE_V2 ---------------------------------------------------------------------------- */

START_TEST(test_v2_headers_flat)
{
    /* an optional string column in pages of 500 rows: every header's
     * counts, level lengths and sizes */
    inlay_options o = options();
    o.page_version = 2;
    o.page_rows = 500;
    o.compression = INLAY_ZSTD;
    file f;
    inlay_writer *w = open_one(&f, "s", INLAY_OPTIONAL, inlay_type_string(), INLAY_ENCODING_AUTO, &o);
    static column_data c;
    make_data(&c, INLAY_BYTE_ARRAY, 0, true, 2000, 3, 0, 0);
    append_all(w, &c, 640);
    finish(w, &f);
    decoded d = { 0 };
    decode_column(&f, "s", 0, 1, 0, &d);
    expect_data(&d, &c);
    ck_assert_uint_eq(d.npages, 4);
    ck_assert_int_eq(d.v1_pages, 0);
    size_t at = 0;
    for (size_t p = 0; p < d.npages; p++) {
        const ph *h = &d.pages[p];
        ck_assert_int_eq(h->type, PT_DATA_V2);
        ck_assert(h->has_data_v2 && !h->has_data);
        ck_assert_int_eq(h->num_values, 500);
        ck_assert_int_eq(h->num_rows, 500);
        int nulls = 0;
        for (size_t i = at; i < at + 500; i++) nulls += c.def[i] == 0;
        ck_assert_int_eq(h->num_nulls, nulls);
        ck_assert_int_eq(h->rep_bytes, 0);
        ck_assert_int_gt(h->def_bytes, 0);     /* the decoder read exactly these as levels */
        ck_assert_int_ge(h->uncompressed, h->def_bytes);
        at += 500;
    }
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_v2_headers_nested)
{
    /* optional group l { repeated int64 item }: rows of 0..4 items or null */
    inlay_schema *s = inlay_schema_create(NULL);
    int l = inlay_schema_add_group(s, 0, "l", INLAY_OPTIONAL);
    ck_assert_int_gt(inlay_schema_add(s, l, "item", INLAY_REPEATED, inlay_type_int(64, true), NULL), 0);
    inlay_options o = options();
    o.page_version = 2;
    o.page_rows = 100;
    o.compression = INLAY_ZSTD;
    file f = { .meta = NULL };
    inlay_buffer_init(&f.out, NULL);
    inlay_writer *w;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&f.out), s, &o), INLAY_OK);
    inlay_schema_free(s);
    enum { R = 1000 };
    static int16_t def[5 * R], rep[5 * R];
    static int64_t v[5 * R];
    static size_t row_start[R + 1];
    size_t n = 0, nv = 0;
    uint64_t rng = 11;
    for (int r = 0; r < R; r++) {
        row_start[r] = n;
        int items = (int)(rng_next(&rng) % 6) - 1;   /* -1: a null list */
        if (items <= 0) {
            def[n] = items < 0 ? 0 : 1;
            rep[n++] = 0;
        }
        for (int k = 0; k < items; k++) {
            def[n] = 2;
            rep[n++] = k ? 1 : 0;
            v[nv++] = (int64_t)(r * 10 + k);
        }
    }
    row_start[R] = n;
    inlay_levels lv = { def, rep, NULL };
    ck_assert_int_eq(inlay_writer_append_i64(w, 0, v, n, &lv), 0);
    finish(w, &f);
    decoded d = { 0 };
    decode_column(&f, "l.item", 8, 2, 1, &d);
    ck_assert_uint_eq(d.nlevels, n);
    ck_assert_int_eq(memcmp(d.def, def, n * sizeof *def), 0);
    ck_assert_int_eq(memcmp(d.rep, rep, n * sizeof *rep), 0);
    expect_fixed(&d, v, nv, 8);
    ck_assert_uint_eq(d.npages, R / 100);
    for (size_t p = 0; p < d.npages; p++) {
        const ph *h = &d.pages[p];
        size_t first = row_start[p * 100], last = row_start[p * 100 + 100];
        int nulls = 0;
        for (size_t i = first; i < last; i++) nulls += def[i] < 2;
        ck_assert_int_eq(h->type, PT_DATA_V2);
        ck_assert_int_eq(h->num_rows, 100);
        ck_assert_int_eq(h->num_values, (int32_t)(last - first));
        ck_assert_int_eq(h->num_nulls, nulls);
        ck_assert_int_gt(h->rep_bytes, 0);
        ck_assert_int_gt(h->def_bytes, 0);
    }
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_v2_is_compressed)
{
    /* random values do not shrink under ZSTD: stored raw, is_compressed
     * false; counting values do, and say so. Optional, so every page also
     * has levels in front that stay as they are. */
    for (int compressible = 0; compressible < 2; compressible++) {
        inlay_options o = options();
        o.page_version = 2;
        o.compression = INLAY_ZSTD;
        file f;
        inlay_writer *w = open_one(&f, "v", INLAY_OPTIONAL, inlay_type_int(64, true), INLAY_ENCODING_PLAIN, &o);
        enum { N = 3000 };
        static int64_t v[N];
        static int16_t def[N];
        uint64_t rng = 8;
        size_t nv = 0;
        for (size_t i = 0; i < N; i++) {
            def[i] = i % 10 != 0;
            if (def[i]) {
                v[nv] = compressible ? (int64_t)(nv % 7) : (int64_t)rng_next(&rng);
                nv++;
            }
        }
        inlay_levels lv = { def, NULL, NULL };
        ck_assert_int_eq(inlay_writer_append_i64(w, 0, v, N, &lv), 0);
        finish(w, &f);
        decoded d = { 0 };
        decode_column(&f, "v", 8, 1, 0, &d);
        expect_fixed(&d, v, nv, 8);
        ck_assert_int_eq(memcmp(d.def, def, sizeof def), 0);
        ck_assert_uint_eq(d.npages, 3);
        for (size_t p = 0; p < d.npages; p++) {
            const ph *h = &d.pages[p];
            ck_assert_int_eq(h->type, PT_DATA_V2);
            ck_assert_int_gt(h->def_bytes, 0);
            if (compressible) {
                ck_assert_msg(h->is_compressed, "page %zu: compressible values stored raw", p);
                ck_assert_int_lt(h->compressed, h->uncompressed / 4);
            } else {
                ck_assert_msg(!h->is_compressed, "page %zu: random values flagged compressed", p);
                ck_assert_int_eq(h->compressed, h->uncompressed);
                ck_assert_int_eq(h->uncompressed, h->def_bytes + 8 * (h->num_values - h->num_nulls));
            }
        }
        decoded_free(&d);
        file_free(&f);
    }
}
END_TEST

START_TEST(test_v2_levels_uncompressed)
{
    /* the levels of a compressed v2 page are the first def_bytes of its
     * body, as stored: they equal the RLE runs of the page's levels */
    inlay_options o = options();
    o.page_version = 2;
    o.compression = INLAY_ZSTD;
    o.page_rows = 64;
    file f;
    inlay_writer *w = open_one(&f, "v", INLAY_OPTIONAL, inlay_type_double(), INLAY_ENCODING_PLAIN, &o);
    enum { N = 64 };
    double v[N];
    int16_t def[N];
    size_t nv = 0;
    for (size_t i = 0; i < N; i++) {
        def[i] = i < 16 || i >= 40;        /* 16 present, 24 null, 24 present */
        if (def[i]) v[nv++] = 1.0;
    }
    inlay_levels lv = { def, NULL, NULL };
    ck_assert_int_eq(inlay_writer_append_double(w, 0, v, N, &lv), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "v");
    const uint8_t *page = f.out.data + c->data_page_offset;
    ph h;
    ck_assert(ph_read(page, (size_t)c->total_compressed, &h));
    ck_assert_int_eq(h.type, PT_DATA_V2);
    ck_assert(h.is_compressed);
    /* three runs at width 1: 16 x 1, 24 x 0, 24 x 1 */
    static const uint8_t runs[] = { 0x20, 0x01, 0x30, 0x00, 0x30, 0x01 };
    ck_assert_bytes(page + h.header_len, (size_t)h.def_bytes, runs, sizeof runs);
    decoded d = { 0 };
    decode_column(&f, "v", 8, 1, 0, &d);
    expect_fixed(&d, v, nv, 8);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_v2_dictionary_and_booleans)
{
    /* v2 data pages after a (v1-style) dictionary page, and RLE booleans,
     * whose values keep their 4-byte length in v2 pages too */
    inlay_options o = options();
    o.page_version = 2;
    o.compression = INLAY_ZSTD;
    o.page_rows = 300;
    file f;
    inlay_writer *w = open_one(&f, "b", INLAY_OPTIONAL, inlay_type_boolean(), INLAY_ENCODING_RLE, &o);
    static column_data c;
    make_data(&c, INLAY_BOOLEAN, 0, true, 1000, 21, 0, 0);
    append_all(w, &c, 1000);
    finish(w, &f);
    decoded d = { 0 };
    decode_column(&f, "b", 0, 1, 0, &d);
    expect_data(&d, &c);
    expect_all_pages(&d, E_RLE);
    ck_assert_int_eq(d.v2_pages, 4);
    decoded_free(&d);
    file_free(&f);

    w = open_one(&f, "s", INLAY_OPTIONAL, inlay_type_string(), INLAY_ENCODING_DICTIONARY, &o);
    make_data(&c, INLAY_BYTE_ARRAY, 0, true, 1000, 22, 600, 900);
    append_all(w, &c, 1000);
    finish(w, &f);
    d = (decoded){ 0 };
    decode_column(&f, "s", 0, 1, 0, &d);
    expect_data(&d, &c);
    ck_assert_int_eq(d.dictionary_pages, 1);
    expect_all_pages(&d, E_RLE_DICTIONARY);
    ck_assert_int_eq(d.v2_pages, 4);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_page_version_checked)
{
    static const int bad[] = { 3, 0, -1, 100 };
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "x", INLAY_REQUIRED, inlay_type_int(32, true), NULL), 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        inlay_options o;
        inlay_options_init(&o);
        o.page_version = bad[i];
        test_sink sink = { 0 };
        inlay_writer *w = NULL;
        ck_assert_int_eq(inlay_writer_open(&w, test_sink_interface(&sink), s, &o), INLAY_ERR_ARGUMENT);
        ck_assert_ptr_nonnull(w);
        ck_assert_msg(strstr(inlay_writer_errmsg(w), "page_version"), "message: %s", inlay_writer_errmsg(w));
        inlay_writer_free(w);
        test_sink_free(&sink);
    }
    ck_assert_int_eq(INLAY_DEFAULT_PAGE_VERSION, 1);
    inlay_options o;
    inlay_options_init(&o);
    ck_assert_int_eq(o.page_version, 1);
    for (int v = 1; v <= 2; v++) {
        o.page_version = v;
        inlay_buffer out;
        inlay_buffer_init(&out, NULL);
        inlay_writer *w;
        ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&out), s, &o), INLAY_OK);
        inlay_writer_free(w);
        inlay_buffer_free(&out);
    }
    inlay_schema_free(s);
}
END_TEST

/* ---- encoding_stats ---------------------------------------------------------------------------- */

START_TEST(test_encoding_stats)
{
    /* 2 pages dictionary-encoded, then the dictionary is full and 3 more
     * fall back to DELTA_BINARY_PACKED; in v1 and v2 pages */
    const bool v2 = _i;
    inlay_options o = options();
    o.page_version = v2 ? 2 : 1;
    o.dictionary_bytes = 1024;      /* 128 int64 entries */
    file f;
    inlay_writer *w = open_one(&f, "v", INLAY_REQUIRED, inlay_type_int(64, true), INLAY_ENCODING_AUTO, &o);
    enum { N = 5000 };
    static int64_t v[N];
    int64_t pool[30];
    uint64_t rng = 3;
    for (int i = 0; i < 30; i++) pool[i] = (int64_t)rng_next(&rng);
    for (size_t i = 0; i < N; i++) v[i] = i < 1500 ? pool[mix(i) % 30] : (int64_t)i * 1000;
    ck_assert_int_eq(inlay_writer_append_i64(w, 0, v, N, NULL), 0);
    finish(w, &f);
    const fm_chunk *c = fm_find(f.meta, 0, "v");
    const int data = v2 ? PT_DATA_V2 : PT_DATA, other = v2 ? PT_DATA : PT_DATA_V2;
    ck_assert_int_eq(c->nenc_stats, 3);
    ck_assert_int_eq(fm_pages(c, PT_DICTIONARY, E_PLAIN), 1);
    ck_assert_int_eq(fm_pages(c, data, E_RLE_DICTIONARY), 2);
    ck_assert_int_eq(fm_pages(c, data, E_DBP), 3);
    ck_assert_int_eq(fm_pages(c, other, E_RLE_DICTIONARY) + fm_pages(c, other, E_DBP), 0);
    /* the encodings: PLAIN (the dictionary page), the two of the data pages; no levels */
    ck_assert_int_eq(c->nencodings, 3);
    ck_assert(fm_has_encoding(c, E_PLAIN) && fm_has_encoding(c, E_RLE_DICTIONARY) &&
              fm_has_encoding(c, E_DBP));
    decoded d = { 0 };
    decode_column(&f, "v", 8, 0, 0, &d);
    expect_fixed(&d, v, N, 8);
    decoded_free(&d);
    file_free(&f);
}
END_TEST

START_TEST(test_encoding_stats_every_encoding)
{
    /* one column per choice in one file: each chunk lists its own */
    inlay_schema *s = inlay_schema_create(NULL);
    static const struct { const char *name; inlay_encoding_choice e; int enc, width; } cols[] = {
        { "b", INLAY_ENCODING_RLE, E_RLE, 1 },
        { "i", INLAY_ENCODING_BYTE_STREAM_SPLIT, E_BSS, 4 },
        { "s", INLAY_ENCODING_DELTA_BYTE_ARRAY, E_DBA, 0 },
        { "t", INLAY_ENCODING_DELTA, E_DLBA, 0 },
        { "d", INLAY_ENCODING_PLAIN, E_PLAIN, 8 },
    };
    inlay_type types[5] = { inlay_type_boolean(), inlay_type_int(32, true), inlay_type_string(),
                            inlay_type_string(), inlay_type_double() };
    for (int i = 0; i < 5; i++) {
        inlay_column_options co;
        inlay_column_options_init(&co);
        co.encoding = cols[i].e;
        ck_assert_int_gt(inlay_schema_add(s, 0, cols[i].name, INLAY_REQUIRED, types[i], &co), 0);
    }
    inlay_options o = options();
    o.page_rows = 250;
    file f = { .meta = NULL };
    inlay_buffer_init(&f.out, NULL);
    inlay_writer *w;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&f.out), s, &o), INLAY_OK);
    inlay_schema_free(s);
    enum { N = 1000 };
    static bool b[N];
    static int32_t i32[N];
    static double dv[N];
    static inlay_bytes by[N];
    static char text[N][16];
    for (size_t i = 0; i < N; i++) {
        b[i] = i % 3 == 0;
        i32[i] = (int32_t)mix(i);
        dv[i] = (double)i / 9;
        snprintf(text[i], sizeof text[i], "key-%05zu", i);
        by[i] = bytes_of(text[i]);
    }
    ck_assert_int_eq(inlay_writer_append_bool(w, 0, b, N, NULL), 0);
    ck_assert_int_eq(inlay_writer_append_i32(w, 1, i32, N, NULL), 0);
    ck_assert_int_eq(inlay_writer_append_bytes(w, 2, by, N, NULL), 0);
    ck_assert_int_eq(inlay_writer_append_bytes(w, 3, by, N, NULL), 0);
    ck_assert_int_eq(inlay_writer_append_double(w, 4, dv, N, NULL), 0);
    finish(w, &f);
    for (int i = 0; i < 5; i++) {
        const fm_chunk *c = fm_find(f.meta, 0, cols[i].name);
        ck_assert_ptr_nonnull(c);
        ck_assert_int_eq(c->nenc_stats, 1);
        ck_assert_int_eq(fm_pages(c, PT_DATA, cols[i].enc), 4);
        ck_assert_int_eq(c->nencodings, 1);
        ck_assert(fm_has_encoding(c, cols[i].enc));
        decoded d = { 0 };
        const char *why = decode_chunk(f.out.data, f.out.len, c, cols[i].width, 0, 0, &d);
        ck_assert_msg(why == NULL, "%s: %s", cols[i].name, why);
        ck_assert_uint_eq(d.nvalues, N);
        switch (i) {
        case 0: for (size_t k = 0; k < N; k++) ck_assert_int_eq(d.val[k][0], b[k]); break;
        case 1: expect_fixed(&d, i32, N, 4); break;
        case 4: expect_fixed(&d, dv, N, 8); break;
        default: expect_bytes(&d, by, N); break;
        }
        decoded_free(&d);
    }
    file_free(&f);
}
END_TEST

static Suite *encodings_suite(void)
{
    Suite *s = suite_create("encodings");
    TCase *c;

    c = tcase_create("choices");
    tcase_set_timeout(c, 120);
    tcase_add_loop_test(c, test_choice_round_trip, 0, 4 * NCHOICES);
    tcase_add_loop_test(c, test_choice_required_column, 0, NCHOICES);
    tcase_add_test(c, test_schema_matrix);
    tcase_add_test(c, test_schema_errors_named);
    suite_add_tcase(s, c);

    /* loop index: 0 uncompressed, 1 ZSTD */
    c = tcase_create("dictionary cost check");
    tcase_set_timeout(c, 60);
    tcase_add_loop_test(c, test_sorted_timestamps_drop_dictionary, 0, 2);
    tcase_add_test(c, test_forced_dictionary_keeps_it);
    tcase_add_loop_test(c, test_low_cardinality_strings_keep_dictionary, 0, 2);
    tcase_add_test(c, test_decision_per_chunk);
    tcase_add_loop_test(c, test_decision_waits_for_values, 0, 2);
    tcase_add_test(c, test_decision_after_compression);
    tcase_add_test(c, test_decision_after_compression_keeps);
    suite_add_tcase(s, c);

    c = tcase_create("page version 2");
    tcase_add_test(c, test_v2_headers_flat);
    tcase_add_test(c, test_v2_headers_nested);
    tcase_add_test(c, test_v2_is_compressed);
    tcase_add_test(c, test_v2_levels_uncompressed);
    tcase_add_test(c, test_v2_dictionary_and_booleans);
    tcase_add_test(c, test_page_version_checked);
    suite_add_tcase(s, c);

    /* loop index: page version - 1 */
    c = tcase_create("encoding stats");
    tcase_add_loop_test(c, test_encoding_stats, 0, 2);
    tcase_add_test(c, test_encoding_stats_every_encoding);
    suite_add_tcase(s, c);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(encodings_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
