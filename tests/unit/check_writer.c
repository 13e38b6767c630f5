/*
 * check_writer.c — the public writer API (runtime/write/writer.c with
 * validate.c behind it): options and opening, the file's frame and totals, and every
 * kind of bad input. A rejected call must return its status with a message
 * naming the column (and row, where one is at fault), change nothing, and
 * leave the writer usable: each case writes file A with the rejected call
 * in the middle and file B without it, and the two must be identical.
 */
#define _POSIX_C_SOURCE 200809L
#include "thrift_reader.h"
#include "unit.h"

/* Columns of the test schema, in leaf order. */
enum { C_ID, C_NAME, C_SMALL, C_CODE, C_TAGS, C_FLAG, C_PRICE, NCOLS };
enum { B = 50 };    /* rows per batch */

static inlay_schema *make_schema(void)
{
    /* name always dictionary-encoded: its values are looked up as they
     * are checked, and a refused call must take them back out */
    inlay_column_options dict;
    inlay_column_options_init(&dict);
    dict.encoding = INLAY_ENCODING_DICTIONARY;
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_gt(inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "name", INLAY_OPTIONAL, inlay_type_string(), &dict), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "small", INLAY_REQUIRED, inlay_type_int(8, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "code", INLAY_REQUIRED, inlay_type_fixed(4), NULL), 0);
    int tags = inlay_schema_add_list(s, 0, "tags", INLAY_OPTIONAL);
    ck_assert_int_gt(tags, 0);
    ck_assert_int_gt(inlay_schema_add(s, tags, "element", INLAY_OPTIONAL, inlay_type_int(32, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "flag", INLAY_OPTIONAL, inlay_type_boolean(), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "price", INLAY_REQUIRED,
                                      inlay_type_decimal(4, 2, INLAY_INT32, 0), NULL), 0);
    return s;
}

static inlay_options small_pages(void)
{
    inlay_options o;
    inlay_options_init(&o);
    o.page_rows = 20;           /* pages and row groups end inside batches */
    o.row_group_rows = 60;
    o.min_compression_gain = 0; /* every chunk ZSTD, however small its pages */
    return o;
}

static inlay_writer *open_writer(inlay_buffer *out)
{
    inlay_schema *s = make_schema();
    inlay_options o = small_pages();
    inlay_buffer_init(out, NULL);
    inlay_writer *w = NULL;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(out), s, &o), INLAY_OK);
    inlay_schema_free(s);
    return w;
}

#define APPEND_OK(call) \
    do { int st_ = (call); ck_assert_msg(st_ == INLAY_OK, "%s: %d %s", #call, st_, inlay_writer_errmsg(w)); } while (0)

/* Append batch k (rows k*B ..) to the columns [from, to). */
static void append_batch(inlay_writer *w, int k, int from, int to)
{
    int64_t id[B];
    inlay_bytes name[B];
    int16_t name_def[B];
    static char text[B][16];
    int32_t small[B], price[B];
    inlay_bytes code[B];
    static char codes[B][4];
    int32_t tag_values[2 * B];
    int16_t tag_def[2 * B], tag_rep[2 * B];
    bool flag[B];
    uint8_t flag_valid[(B + 7) / 8] = { 0 };
    size_t nname = 0, ntags = 0, ntag_values = 0;
    for (int i = 0; i < B; i++) {
        int r = k * B + i;
        id[i] = (int64_t)r * 1000003;
        name_def[i] = r % 7 != 3;
        if (name_def[i]) {
            int n = snprintf(text[nname], sizeof text[nname], "n%d", r % 13);
            name[nname].data = text[nname];
            name[nname].len = (size_t)n;
            nname++;
        }
        small[i] = (r % 256) - 128;
        memcpy(codes[i], (r % 3) ? "abcd" : "wxyz", 4);
        code[i].data = codes[i];
        code[i].len = 4;
        switch (r % 4) {            /* [r, null], null list, [], [r] */
        case 0:
            tag_def[ntags] = 3; tag_rep[ntags++] = 0; tag_values[ntag_values++] = r;
            tag_def[ntags] = 2; tag_rep[ntags++] = 1;
            break;
        case 1: tag_def[ntags] = 0; tag_rep[ntags++] = 0; break;
        case 2: tag_def[ntags] = 1; tag_rep[ntags++] = 0; break;
        default: tag_def[ntags] = 3; tag_rep[ntags++] = 0; tag_values[ntag_values++] = r; break;
        }
        flag[i] = r % 2;
        if (r % 5) flag_valid[i / 8] |= (uint8_t)(1u << (i % 8));
        price[i] = (r * 37) % 10000 - 5000;
    }
    inlay_levels name_lv = { name_def, NULL, NULL }, tag_lv = { tag_def, tag_rep, NULL },
                 flag_lv = { NULL, NULL, flag_valid };
    for (int c = from; c < to; c++) {
        switch (c) {
        case C_ID: APPEND_OK(inlay_writer_append_i64(w, C_ID, id, B, NULL)); break;
        case C_NAME: APPEND_OK(inlay_writer_append_bytes(w, C_NAME, name, B, &name_lv)); break;
        case C_SMALL: APPEND_OK(inlay_writer_append_i32(w, C_SMALL, small, B, NULL)); break;
        case C_CODE: APPEND_OK(inlay_writer_append_bytes(w, C_CODE, code, B, NULL)); break;
        case C_TAGS: APPEND_OK(inlay_writer_append_i32(w, C_TAGS, tag_values, ntags, &tag_lv)); break;
        case C_FLAG: APPEND_OK(inlay_writer_append_bool(w, C_FLAG, flag, B, &flag_lv)); break;
        case C_PRICE: APPEND_OK(inlay_writer_append_i32(w, C_PRICE, price, B, NULL)); break;
        }
    }
}

/* True if msg has "row N" with nothing more of the number after it. */
static bool mentions_row(const char *msg, unsigned long row)
{
    char want[32];
    snprintf(want, sizeof want, "row %lu", row);
    for (const char *p = strstr(msg, want); p; p = strstr(p + 1, want)) {
        char next = p[strlen(want)];
        if (next < '0' || next > '9') return true;
    }
    return false;
}

/* ---- bad calls ------------------------------------------------------------------------ */

/* Each is made after batch 0 (all columns) and batch 1 of id, name and
 * small: those three hold 2B rows, the others B. */
typedef struct bad_call {
    const char *what;
    int status;
    const char *mention;       /* the column, as the message must name it */
    long row;                  /* -1: no row in the message */
    int (*call)(inlay_writer *w);
} bad_call;

static int unknown_column(inlay_writer *w)
{
    static const int64_t v[] = { 1 };
    return inlay_writer_append_i64(w, 99, v, 1, NULL);
}

static int negative_column(inlay_writer *w)
{
    static const int64_t v[] = { 1 };
    return inlay_writer_append_i64(w, -1, v, 1, NULL);
}

static int wrong_type_i64(inlay_writer *w)
{
    static const int64_t v[] = { 1, 2 };
    return inlay_writer_append_i64(w, C_SMALL, v, 2, NULL);   /* an int32 column */
}

static int wrong_type_bytes(inlay_writer *w)
{
    const inlay_bytes v[] = { { "x", 1 } };
    return inlay_writer_append_bytes(w, C_ID, v, 1, NULL);
}

static int wrong_type_double(inlay_writer *w)
{
    static const double v[] = { 1 };
    return inlay_writer_append_double(w, C_PRICE, v, 1, NULL);
}

static int wrong_type_bool(inlay_writer *w)
{
    static const bool v[] = { true };
    return inlay_writer_append_bool(w, C_NAME, v, 1, NULL);
}

static int fixed_wrong_length(inlay_writer *w)
{
    const inlay_bytes v[] = { { "abcd", 4 }, { "abc", 3 }, { "abcd", 4 } };
    return inlay_writer_append_bytes(w, C_CODE, v, 3, NULL);
}

static int fixed_too_long(inlay_writer *w)
{
    const inlay_bytes v[] = { { "abcde", 5 } };
    return inlay_writer_append_bytes(w, C_CODE, v, 1, NULL);
}

static int null_in_required(inlay_writer *w)
{
    static const int64_t v[] = { 1, 2, 3 };
    static const uint8_t valid[] = { 0x05 };    /* rows 0 and 2 present */
    inlay_levels lv = { NULL, NULL, valid };
    return inlay_writer_append_i64(w, C_ID, v, 3, &lv);
}

static int def_above_max(inlay_writer *w)
{
    const inlay_bytes v[] = { { "a", 1 }, { "b", 1 } };
    static const int16_t def[] = { 1, 2 };
    inlay_levels lv = { def, NULL, NULL };
    return inlay_writer_append_bytes(w, C_NAME, v, 2, &lv);
}

static int def_negative(inlay_writer *w)
{
    const inlay_bytes v[] = { { "a", 1 }, { "b", 1 } };
    static const int16_t def[] = { 1, 1, -1 };
    inlay_levels lv = { def, NULL, NULL };
    return inlay_writer_append_bytes(w, C_NAME, v, 3, &lv);
}

static int def_on_required(inlay_writer *w)
{
    static const int32_t v[] = { 1 };
    static const int16_t def[] = { 0, 1 };       /* max is 0 */
    inlay_levels lv = { def, NULL, NULL };
    return inlay_writer_append_i32(w, C_SMALL, v, 2, &lv);
}

static int nested_def_above_max(inlay_writer *w)
{
    static const int32_t v[] = { 1, 2 };
    static const int16_t def[] = { 3, 2, 0, 4 }, rep[] = { 0, 1, 0, 0 };
    inlay_levels lv = { def, rep, NULL };
    return inlay_writer_append_i32(w, C_TAGS, v, 4, &lv);   /* entry 3 is row B + 2 */
}

static int nested_rep_above_max(inlay_writer *w)
{
    static const int32_t v[] = { 1, 2 };
    static const int16_t def[] = { 3, 3 }, rep[] = { 0, 2 };
    inlay_levels lv = { def, rep, NULL };
    return inlay_writer_append_i32(w, C_TAGS, v, 2, &lv);
}

static int nested_batch_mid_row(inlay_writer *w)
{
    static const int32_t v[] = { 1 };
    static const int16_t def[] = { 3 }, rep[] = { 1 };
    inlay_levels lv = { def, rep, NULL };
    return inlay_writer_append_i32(w, C_TAGS, v, 1, &lv);
}

static int int8_too_big(inlay_writer *w)
{
    static const int32_t v[] = { 1, 200, 3 };
    return inlay_writer_append_i32(w, C_SMALL, v, 3, NULL);
}

static int int8_too_small(inlay_writer *w)
{
    static const int32_t v[] = { -129 };
    return inlay_writer_append_i32(w, C_SMALL, v, 1, NULL);
}

static int decimal_too_big(inlay_writer *w)
{
    static const int32_t v[] = { 9999, -9999, 10000 };   /* DECIMAL(4,2): |unscaled| <= 9999 */
    return inlay_writer_append_i32(w, C_PRICE, v, 3, NULL);
}

static int bad_utf8(inlay_writer *w)
{
    const inlay_bytes v[] = { { "ok", 2 }, { "\xC3\x28", 2 } };
    static const int16_t def[] = { 1, 0, 1 };             /* the bad value is entry 2 */
    inlay_levels lv = { def, NULL, NULL };
    return inlay_writer_append_bytes(w, C_NAME, v, 3, &lv);
}

static int bad_utf8_long(inlay_writer *w)
{
    /* valid ASCII, then an invalid byte at the end of a long value */
    const inlay_bytes v[] = { { "abcdefghijklmnopq\xFF", 18 } };
    return inlay_writer_append_bytes(w, C_NAME, v, 1, NULL);
}

static int surrogate_utf8(inlay_writer *w)
{
    const inlay_bytes v[] = { { "a", 1 }, { "\xED\xA0\x80", 3 } };   /* U+D800 */
    return inlay_writer_append_bytes(w, C_NAME, v, 2, NULL);
}

static int null_data(inlay_writer *w)
{
    const inlay_bytes v[] = { { "a", 1 }, { NULL, 3 } };
    return inlay_writer_append_bytes(w, C_NAME, v, 2, NULL);
}

/* Byte arrays in dictionary mode are looked up as they are checked: a batch
 * of values new to the dictionary, refused late, must leave none of them
 * behind (and, made twice, must find none of them the second time). */
enum { NEW_ENTRIES = 5000 };
static inlay_bytes *new_entries(void)
{
    static inlay_bytes v[NEW_ENTRIES];
    static char text[NEW_ENTRIES][24];
    for (int k = 0; k < NEW_ENTRIES; k++) {
        int n = snprintf(text[k], sizeof text[k], "fresh-entry-%d", k % 300);
        v[k].data = text[k];
        v[k].len = (size_t)n;
    }
    return v;
}

static int bad_utf8_after_new_entries(inlay_writer *w)
{
    inlay_bytes *v = new_entries();
    v[4500].data = "fresh-but-\xC3\x28-bad";
    v[4500].len = 17;
    return inlay_writer_append_bytes(w, C_NAME, v, NEW_ENTRIES, NULL);
}

static int null_data_after_new_entries(inlay_writer *w)
{
    inlay_bytes *v = new_entries();
    v[4700].data = NULL;
    v[4700].len = 12;
    return inlay_writer_append_bytes(w, C_NAME, v, NEW_ENTRIES, NULL);
}

static int short_bad_after_new_entries(inlay_writer *w)
{
    inlay_bytes *v = new_entries();   /* all within the open row group, the bad one new */
    v[15].data = "\xFF";
    v[15].len = 1;
    return inlay_writer_append_bytes(w, C_NAME, v, 18, NULL);
}

static int values_missing(inlay_writer *w)
{
    return inlay_writer_append_i64(w, C_ID, NULL, 3, NULL);
}

static int def_and_validity(inlay_writer *w)
{
    static const bool v[] = { true };
    static const int16_t def[] = { 1 };
    static const uint8_t valid[] = { 1 };
    inlay_levels lv = { def, NULL, valid };
    return inlay_writer_append_bool(w, C_FLAG, v, 1, &lv);
}

static int validity_on_nested(inlay_writer *w)
{
    static const int32_t v[] = { 1 };
    static const uint8_t valid[] = { 1 };
    inlay_levels lv = { NULL, NULL, valid };
    return inlay_writer_append_i32(w, C_TAGS, v, 1, &lv);
}

/* append_columns: good batches for id and code, then a bad one: nothing
 * of the call may be buffered */
static int columns_one_bad(inlay_writer *w)
{
    static const int64_t id[] = { 1, 2 };
    const inlay_bytes code[] = { { "abcd", 4 }, { "efgh", 4 } };
    static const int32_t price[] = { 5, 10000 };
    inlay_column_batch b[3] = {
        { C_ID, id, 2, { NULL, NULL, NULL } },
        { C_CODE, code, 2, { NULL, NULL, NULL } },
        { C_PRICE, price, 2, { NULL, NULL, NULL } },
    };
    return inlay_writer_append_columns(w, b, 3);
}

/* append_columns: a string batch of new dictionary entries, then a bad
 * batch: the strings must leave the dictionary again */
static int columns_new_entries_then_bad(inlay_writer *w)
{
    const inlay_bytes name[] = { { "staged-name-one", 15 }, { "staged-name-two", 15 }, { "n1", 2 } };
    static const int32_t price[] = { 5, 10000, 7 };
    inlay_column_batch b[2] = {
        { C_NAME, name, 3, { NULL, NULL, NULL } },
        { C_PRICE, price, 3, { NULL, NULL, NULL } },
    };
    return inlay_writer_append_columns(w, b, 2);
}

static int columns_bad_validity(inlay_writer *w)
{
    /* a bitmap batch converted first, then a null in a required column */
    static const bool flag[] = { true, false, true };
    static const uint8_t some[] = { 0x05 }, holes[] = { 0x03 };
    static const int64_t id[] = { 7, 8, 9 };
    inlay_column_batch b[2] = {
        { C_FLAG, flag, 3, { NULL, NULL, some } },
        { C_ID, id, 3, { NULL, NULL, holes } },
    };
    return inlay_writer_append_columns(w, b, 2);
}

static int columns_twice(inlay_writer *w)
{
    static const int32_t small[] = { 1 };
    inlay_column_batch b[2] = {
        { C_SMALL, small, 1, { NULL, NULL, NULL } },
        { C_SMALL, small, 1, { NULL, NULL, NULL } },
    };
    return inlay_writer_append_columns(w, b, 2);
}

static int columns_unknown(inlay_writer *w)
{
    static const int32_t small[] = { 1 };
    inlay_column_batch b[2] = {
        { C_SMALL, small, 1, { NULL, NULL, NULL } },
        { 42, small, 1, { NULL, NULL, NULL } },
    };
    return inlay_writer_append_columns(w, b, 2);
}

static int columns_bad_level(inlay_writer *w)
{
    static const int32_t v[] = { 1 };
    static const int16_t def[] = { 3, 9 }, rep[] = { 0, 0 };
    static const int64_t id[] = { 1, 2 };
    inlay_column_batch b[2] = {
        { C_ID, id, 2, { NULL, NULL, NULL } },
        { C_TAGS, v, 2, { def, rep, NULL } },
    };
    return inlay_writer_append_columns(w, b, 2);
}

static int columns_negative_count(inlay_writer *w)
{
    static const int64_t id[] = { 1 };
    inlay_column_batch b[1] = { { C_ID, id, 1, { NULL, NULL, NULL } } };
    int st = inlay_writer_append_columns(w, b, -1);
    return st == INLAY_ERR_ARGUMENT ? inlay_writer_append_columns(w, NULL, 1) : st;
}

static const bad_call bad_calls[] = {
    { "unknown column", INLAY_ERR_COLUMN, "99", -1, unknown_column },
    { "negative column", INLAY_ERR_COLUMN, "-1", -1, negative_column },
    { "append_i64 to an int32 column", INLAY_ERR_TYPE, "small", -1, wrong_type_i64 },
    { "append_bytes to an int64 column", INLAY_ERR_TYPE, "id", -1, wrong_type_bytes },
    { "append_double to a decimal column", INLAY_ERR_TYPE, "price", -1, wrong_type_double },
    { "append_bool to a string column", INLAY_ERR_TYPE, "name", -1, wrong_type_bool },
    { "fixed value too short", INLAY_ERR_VALUE, "code", B + 1, fixed_wrong_length },
    { "fixed value too long", INLAY_ERR_VALUE, "code", B, fixed_too_long },
    { "null in a required column", INLAY_ERR_NULL, "id", 2 * B + 1, null_in_required },
    { "definition level above the max", INLAY_ERR_LEVEL, "name", 2 * B + 1, def_above_max },
    { "negative definition level", INLAY_ERR_LEVEL, "name", 2 * B + 2, def_negative },
    { "definition level on a required column", INLAY_ERR_LEVEL, "small", 2 * B + 1, def_on_required },
    { "nested definition level above the max", INLAY_ERR_LEVEL, "tags.list.element", B + 2, nested_def_above_max },
    { "repetition level above the max", INLAY_ERR_LEVEL, "tags.list.element", B, nested_rep_above_max },
    { "batch starting inside a row", INLAY_ERR_LEVEL, "tags.list.element", B, nested_batch_mid_row },
    { "int8 above its range", INLAY_ERR_VALUE, "small", 2 * B + 1, int8_too_big },
    { "int8 below its range", INLAY_ERR_VALUE, "small", 2 * B, int8_too_small },
    { "decimal beyond its precision", INLAY_ERR_VALUE, "price", B + 2, decimal_too_big },
    { "invalid UTF-8", INLAY_ERR_VALUE, "name", 2 * B + 2, bad_utf8 },
    { "invalid UTF-8 after 8 ASCII bytes", INLAY_ERR_VALUE, "name", 2 * B, bad_utf8_long },
    { "UTF-8 surrogate", INLAY_ERR_VALUE, "name", 2 * B + 1, surrogate_utf8 },
    { "NULL data with a length", INLAY_ERR_VALUE, "name", 2 * B + 1, null_data },
    { "invalid UTF-8 after new dictionary entries", INLAY_ERR_VALUE, "name", 2 * B + 4500, bad_utf8_after_new_entries },
    { "NULL data after new dictionary entries", INLAY_ERR_VALUE, "name", 2 * B + 4700, null_data_after_new_entries },
    { "invalid UTF-8 among new entries in the open row group", INLAY_ERR_VALUE, "name", 2 * B + 15, short_bad_after_new_entries },
    { "append_columns with new entries, then a bad batch", INLAY_ERR_VALUE, "price", B + 1, columns_new_entries_then_bad },
    { "NULL values", INLAY_ERR_ARGUMENT, "id", -1, values_missing },
    { "levels and a validity bitmap", INLAY_ERR_ARGUMENT, "flag", -1, def_and_validity },
    { "validity bitmap on a nested column", INLAY_ERR_ARGUMENT, "tags.list.element", -1, validity_on_nested },
    { "append_columns with one bad batch", INLAY_ERR_VALUE, "price", B + 1, columns_one_bad },
    { "append_columns with a null after a bitmap batch", INLAY_ERR_NULL, "id", 2 * B + 2, columns_bad_validity },
    { "append_columns naming a column twice", INLAY_ERR_ARGUMENT, "small", -1, columns_twice },
    { "append_columns with an unknown column", INLAY_ERR_COLUMN, "42", -1, columns_unknown },
    { "append_columns with a level above the max", INLAY_ERR_LEVEL, "tags.list.element", B + 1, columns_bad_level },
    { "append_columns with bad arguments", INLAY_ERR_ARGUMENT, "", -1, columns_negative_count },
};
enum { NBAD = sizeof bad_calls / sizeof bad_calls[0] };

/* Batches 0..3, with `bad` (or nothing) made after batch 1 of the first
 * three columns. The bad call is made twice, to see it is repeatable. */
static void write_file(inlay_buffer *out, const bad_call *bad)
{
    inlay_writer *w = open_writer(out);
    append_batch(w, 0, 0, NCOLS);
    append_batch(w, 1, 0, 3);
    if (bad) {
        for (int again = 0; again < 2; again++) {
            uint64_t bytes = inlay_writer_bytes(w), rows = inlay_writer_rows(w);
            int st = bad->call(w);
            const char *msg = inlay_writer_errmsg(w);
            ck_assert_msg(st == bad->status, "%s: status %d, want %d (%s)", bad->what, st, bad->status, msg);
            ck_assert_msg(strstr(msg, bad->mention) != NULL, "%s: message \"%s\" does not name \"%s\"",
                          bad->what, msg, bad->mention);
            if (bad->row >= 0)
                ck_assert_msg(mentions_row(msg, (unsigned long)bad->row), "%s: message \"%s\" lacks \"row %ld\"",
                              bad->what, msg, bad->row);
            ck_assert_uint_eq(inlay_writer_bytes(w), bytes);
            ck_assert_uint_eq(inlay_writer_rows(w), rows);
        }
    }
    append_batch(w, 1, 3, NCOLS);
    append_batch(w, 2, 0, NCOLS);
    append_batch(w, 3, 0, NCOLS);
    APPEND_OK(inlay_writer_close(w));
    ck_assert_uint_eq(inlay_writer_rows(w), 4 * B);
    ck_assert_uint_eq(inlay_writer_bytes(w), out->len);
    inlay_writer_free(w);
}

START_TEST(test_bad_call)
{
    const bad_call *bad = &bad_calls[_i];
    inlay_buffer a, b;
    write_file(&a, bad);
    write_file(&b, NULL);
    ck_assert_msg(a.len == b.len && memcmp(a.data, b.data, a.len) == 0,
                  "%s: the file differs from one written without the rejected call", bad->what);
    inlay_buffer_free(&a);
    inlay_buffer_free(&b);
}
END_TEST

/* ---- byte arrays looked up as they are checked ------------------------------------------ */

enum { SB_ROWS = 9000, SB_MORE = 5000, SB_BINARY_DISTINCT = 1200 };

/* Row r of column s (text, 300 distinct) and of b (40 bytes, some above
 * 0x7F, 1200 distinct; every 5th row null). */
static size_t sb_text(char *out, size_t r)
{
    return (size_t)snprintf(out, 32, "fresh-entry-%zu", r % 300);
}

static void sb_binary(uint8_t *out, size_t r)
{
    for (int i = 0; i < 40; i++) out[i] = (uint8_t)((r % SB_BINARY_DISTINCT) * 131 + (size_t)i * 29);
}

/* Rows [first, first + n) of s (with `bad_at`, if below n, invalid UTF-8)
 * or of b. */
static int sb_append(inlay_writer *w, int col, size_t first, size_t n, size_t bad_at)
{
    static char text[SB_ROWS][32];
    static uint8_t bin[SB_ROWS][40];
    static inlay_bytes v[SB_ROWS];
    static int16_t def[SB_ROWS];
    size_t nv = 0;
    for (size_t i = 0; i < n; i++) {
        size_t r = first + i;
        if (col == 0) {
            v[nv].len = sb_text(text[i], r);
            v[nv++].data = text[i];
            continue;
        }
        def[i] = r % 5 != 4;
        if (!def[i]) continue;
        sb_binary(bin[i], r);
        v[nv].data = bin[i];
        v[nv++].len = 40;
    }
    if (bad_at < n) {
        v[bad_at].data = "fresh-entry-\xC3\x28";
        v[bad_at].len = 14;
    }
    inlay_levels lv = { def, NULL, NULL };
    return inlay_writer_append_bytes(w, col, v, n, col ? &lv : NULL);
}

/* refuse: make a refused call first (a batch of new entries, the bad one late) */
static void sb_write(inlay_buffer *out, bool refuse)
{
    /* s always dictionary-encoded (looked up from its first value); b by
     * AUTO, whose first page in each row group decides and is not staged */
    inlay_column_options dict;
    inlay_column_options_init(&dict);
    dict.encoding = INLAY_ENCODING_DICTIONARY;
    dict.bloom_filter = true;
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "s", INLAY_REQUIRED, inlay_type_string(), &dict), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "b", INLAY_OPTIONAL, inlay_type_binary(), NULL), 0);
    inlay_options o;
    inlay_options_init(&o);
    o.page_rows = 1000;
    o.row_group_rows = 10000;            /* the second batches cross it */
    o.dictionary_bytes = 48 * 1024;      /* b's 1200 x 44 bytes pass it inside a batch */
    inlay_buffer_init(out, NULL);
    inlay_writer *w = NULL;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(out), s, &o), INLAY_OK);
    inlay_schema_free(s);
    if (refuse) {
        for (int again = 0; again < 2; again++) {
            ck_assert_int_eq(sb_append(w, 0, 0, SB_ROWS, 8000), INLAY_ERR_VALUE);
            ck_assert_msg(mentions_row(inlay_writer_errmsg(w), 8000), "%s", inlay_writer_errmsg(w));
        }
    }
    APPEND_OK(sb_append(w, 0, 0, SB_ROWS, SIZE_MAX));
    APPEND_OK(sb_append(w, 1, 0, SB_ROWS, SIZE_MAX));
    APPEND_OK(sb_append(w, 0, SB_ROWS, SB_MORE, SIZE_MAX));
    APPEND_OK(sb_append(w, 1, SB_ROWS, SB_MORE, SIZE_MAX));
    APPEND_OK(inlay_writer_close(w));
    inlay_writer_free(w);
}

START_TEST(test_staged_batches)
{
    inlay_buffer a, b;
    sb_write(&a, true);
    sb_write(&b, false);
    ck_assert_msg(a.len == b.len && memcmp(a.data, b.data, a.len) == 0,
                  "a refused batch of new dictionary entries changed the file");

    inlay_reader *r = NULL;
    ck_assert_int_eq(inlay_reader_open_memory(&r, b.data, b.len, NULL), INLAY_OK);
    ck_assert_int_eq(inlay_reader_info(r)->num_row_groups, 2);
    size_t rows, row = 0;
    char text[32];
    uint8_t bin[40];
    while (inlay_reader_next(r, 0, &rows) == INLAY_OK && rows) {
        const inlay_array *sa = inlay_reader_array(r, 0), *ba = inlay_reader_array(r, 1);
        const inlay_bytes *sv = sa->values, *bv = ba->values;
        for (size_t i = 0; i < rows; i++, row++) {
            size_t len = sb_text(text, row);
            ck_assert_uint_eq(sv[i].len, len);
            ck_assert_mem_eq(sv[i].data, text, len);
            bool present = !ba->validity || (ba->validity[i / 8] >> (i % 8) & 1);
            ck_assert_int_eq(present, row % 5 != 4);
            if (!present) continue;
            sb_binary(bin, row);
            ck_assert_uint_eq(bv[i].len, 40);
            ck_assert_mem_eq(bv[i].data, bin, 40);
        }
    }
    ck_assert_uint_eq(row, SB_ROWS + SB_MORE);
    inlay_reader_free(r);
    inlay_buffer_free(&a);
    inlay_buffer_free(&b);
}
END_TEST

/* A batch refused for the declared sort order, after a string batch of the
 * same call was looked up into its dictionary: the strings leave it. */
static void sorted_write(inlay_buffer *out, bool refuse)
{
    inlay_column_options dict;
    inlay_column_options_init(&dict);
    dict.encoding = INLAY_ENCODING_DICTIONARY;
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "name", INLAY_REQUIRED, inlay_type_string(), &dict), 0);
    inlay_options o;
    inlay_options_init(&o);
    const inlay_sorting_column key = { "id", false, false };
    o.sorting_columns = &key;
    o.sorting_columns_count = 1;
    inlay_buffer_init(out, NULL);
    inlay_writer *w = NULL;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(out), s, &o), INLAY_OK);
    inlay_schema_free(s);
    if (refuse) {
        const inlay_bytes names[] = { { "refused-name-one", 16 }, { "refused-name-two", 16 }, { "kept-name-1", 11 } };
        static const int64_t ids[] = { 5, 3, 4 };
        inlay_column_batch b[2] = { { 1, names, 3, { NULL, NULL, NULL } }, { 0, ids, 3, { NULL, NULL, NULL } } };
        ck_assert_int_eq(inlay_writer_append_columns(w, b, 2), INLAY_ERR_VALUE);
        ck_assert_ptr_nonnull(strstr(inlay_writer_errmsg(w), "sort order"));
    }
    const inlay_bytes names[] = { { "kept-name-1", 11 }, { "kept-name-2", 11 }, { "kept-name-1", 11 } };
    static const int64_t ids[] = { 1, 2, 3 };
    inlay_column_batch b[2] = { { 1, names, 3, { NULL, NULL, NULL } }, { 0, ids, 3, { NULL, NULL, NULL } } };
    APPEND_OK(inlay_writer_append_columns(w, b, 2));
    APPEND_OK(inlay_writer_close(w));
    inlay_writer_free(w);
}

START_TEST(test_sort_refusal_unstages)
{
    inlay_buffer a, b;
    sorted_write(&a, true);
    sorted_write(&b, false);
    ck_assert_msg(a.len == b.len && memcmp(a.data, b.data, a.len) == 0,
                  "a batch refused for its order left strings in the dictionary");
    inlay_buffer_free(&a);
    inlay_buffer_free(&b);
}
END_TEST

START_TEST(test_error_info)
{
    inlay_buffer out;
    inlay_writer *w = open_writer(&out);
    inlay_error_info e;
    inlay_writer_error_info(w, &e);
    ck_assert_int_eq(e.column, -1);
    ck_assert_int_eq(e.row, -1);
    /* 5 good rows of "small" (column 2), then a batch whose third value is out of range */
    int32_t ok[5] = { 1, 2, 3, 4, 5 }, bad[4] = { 0, 1, 300, 2 };
    APPEND_OK(inlay_writer_append_i32(w, 2, ok, 5, NULL));
    ck_assert_int_eq(inlay_writer_append_i32(w, 2, bad, 4, NULL), INLAY_ERR_VALUE);
    inlay_writer_error_info(w, &e);
    ck_assert_int_eq(e.column, 2);
    ck_assert_int_eq(e.row, 7);   /* 5 rows before it, third of the batch */
    ck_assert_str_eq(e.reason, "integer out of range -128..127, got 300");
    ck_assert_str_eq(inlay_writer_errmsg(w), "column 'small' row 7: integer out of range -128..127, got 300");
    /* an error that names no row */
    ck_assert_int_eq(inlay_writer_append_i64(w, 2, NULL, 1, NULL), INLAY_ERR_TYPE);
    inlay_writer_error_info(w, &e);
    ck_assert_int_eq(e.column, -1);
    ck_assert_int_eq(e.row, -1);
    ck_assert_str_eq(e.reason, inlay_writer_errmsg(w));
    inlay_writer_free(w);
    inlay_buffer_free(&out);
}
END_TEST

/* ---- state: close ---------------------------------------------------------------------- */

/* Out of memory in the sort order's check, or while a nested field is
 * shredded, fails the writer as any other failure of the environment does:
 * the call and every later one but abort and free are refused, and close
 * publishes nothing. Each allocation of the call is refused in turn, with
 * one thread and with a worker. */
static void nomem_mid_stream(bool nested, int threads, unsigned long nth, bool *met)
{
    test_alloc ta = { 0 };
    inlay_schema *s = inlay_schema_create(NULL);
    if (nested) {
        int l = inlay_schema_add_list(s, 0, "tags", INLAY_OPTIONAL);
        ck_assert_int_gt(inlay_schema_add(s, l, "element", INLAY_OPTIONAL, inlay_type_int(32, true), NULL), 0);
    } else {
        ck_assert_int_gt(inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL), 0);
    }
    inlay_options o;
    inlay_options_init(&o);
    o.alloc = test_allocator(&ta);
    o.threads = threads;
    const inlay_sorting_column key = { "id", false, false };
    if (!nested) {
        o.sorting_columns = &key;
        o.sorting_columns_count = 1;
    }
    test_sink out = { 0 };
    inlay_writer *w = NULL;
    ck_assert_int_eq(inlay_writer_open(&w, test_sink_interface(&out), s, &o), INLAY_OK);
    inlay_schema_free(s);
    enum { N = 20000 };
    static int32_t vals[2 * N];
    static int32_t offs[N + 1];
    static int64_t ids[N];
    for (int i = 0; i < 2 * N; i++) vals[i] = i;
    for (int i = 0; i <= N; i++) offs[i] = 2 * i;
    for (int i = 0; i < N; i++) ids[i] = i;
    const inlay_array child = { .length = 2 * N, .values = vals };
    const inlay_array small = { .length = 2, .offsets = offs, .children = &child };
    const inlay_array big = { .length = N, .offsets = offs, .children = &child };
    ck_assert_int_eq(nested ? inlay_writer_append_array(w, 0, &small, 2) : inlay_writer_append_i64(w, 0, ids, 2, NULL),
                     INLAY_OK);
    ta.fail_at = ta.requests + nth;
    int st = nested ? inlay_writer_append_array(w, 0, &big, N) : inlay_writer_append_i64(w, 0, ids + 2, N - 2, NULL);
    ta.fail_at = 0;
    if (st == INLAY_ERR_NOMEM) {
        *met = true;
        ck_assert_int_eq(inlay_writer_status(w), INLAY_ERR_NOMEM);
        ck_assert_int_ne(nested ? inlay_writer_append_array(w, 0, &small, 2) : inlay_writer_append_i64(w, 0, ids + N - 1, 1, NULL),
                         INLAY_OK);
        ck_assert_int_ne(inlay_writer_close(w), INLAY_OK);
    } else {
        ck_assert_int_eq(st, INLAY_OK);
        ck_assert_int_eq(inlay_writer_close(w), INLAY_OK);
    }
    inlay_writer_free(w);
    /* published only when every call went in */
    ck_assert_uint_eq(out.finishes, st == INLAY_OK ? 1 : 0);
    ck_assert_uint_eq(out.aborts, st == INLAY_OK ? 0 : 1);
    free(out.data);
    ck_assert_no_leak(&ta);
}

START_TEST(test_nomem_mid_stream_sticky)
{
    for (int nested = 0; nested < 2; nested++)
        for (int threads = 1; threads <= 2; threads++) {
            bool met = false;
            for (unsigned long nth = 1; nth <= 12; nth++) nomem_mid_stream(nested, threads, nth, &met);
            ck_assert_msg(met, "no refused allocation reached the call (nested %d, threads %d)", nested, threads);
        }
}
END_TEST

START_TEST(test_call_after_close)
{
    inlay_buffer out;
    inlay_writer *w = open_writer(&out);
    append_batch(w, 0, 0, NCOLS);
    APPEND_OK(inlay_writer_close(w));
    size_t len = out.len;
    static const int64_t v[] = { 1 };
    ck_assert_int_eq(inlay_writer_append_i64(w, C_ID, v, 1, NULL), INLAY_ERR_STATE);
    ck_assert_ptr_nonnull(strstr(inlay_writer_errmsg(w), "closed"));
    ck_assert_int_eq(inlay_writer_append_i64(w, C_ID, v, 0, NULL), INLAY_ERR_STATE);
    ck_assert_int_eq(inlay_writer_close(w), INLAY_ERR_STATE);
    ck_assert_uint_eq(out.len, len);
    ck_assert_uint_eq(inlay_writer_rows(w), B);
    inlay_writer_abort(w);       /* after a close: nothing to undo */
    ck_assert_uint_eq(out.len, len);
    inlay_writer_free(w);
    inlay_buffer_free(&out);
}
END_TEST

START_TEST(test_unequal_rows_at_close)
{
    inlay_buffer a, b;
    inlay_writer *w = open_writer(&a);
    append_batch(w, 0, 0, NCOLS);
    append_batch(w, 1, 0, 2);                    /* id and name are B rows ahead */
    ck_assert_int_eq(inlay_writer_close(w), INLAY_ERR_STATE);
    const char *msg = inlay_writer_errmsg(w);
    ck_assert_msg(strstr(msg, "small") || strstr(msg, "code"), "message \"%s\" names no short column", msg);
    ck_assert_int_eq(inlay_writer_close(w), INLAY_ERR_STATE);     /* still unequal, still open */
    append_batch(w, 1, 2, NCOLS);
    APPEND_OK(inlay_writer_close(w));
    inlay_writer_free(w);

    w = open_writer(&b);
    append_batch(w, 0, 0, NCOLS);
    append_batch(w, 1, 0, NCOLS);
    APPEND_OK(inlay_writer_close(w));
    inlay_writer_free(w);
    ck_assert(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
    inlay_buffer_free(&a);
    inlay_buffer_free(&b);
}
END_TEST

START_TEST(test_abort)
{
    test_sink ts = { 0 };
    inlay_schema *s = make_schema();
    inlay_writer *w;
    ck_assert_int_eq(inlay_writer_open(&w, test_sink_interface(&ts), s, NULL), INLAY_OK);
    inlay_schema_free(s);
    append_batch(w, 0, 0, NCOLS);
    inlay_writer_abort(w);
    inlay_writer_abort(w);                       /* idempotent */
    static const int64_t v[] = { 1 };
    ck_assert_int_eq(inlay_writer_append_i64(w, C_ID, v, 1, NULL), INLAY_ERR_STATE);
    ck_assert_int_eq(inlay_writer_close(w), INLAY_ERR_STATE);
    inlay_writer_free(w);
    ck_assert_uint_eq(ts.aborts, 1);
    ck_assert_uint_eq(ts.finishes, 0);
    ck_assert_uint_eq(ts.late_calls, 0);
    test_sink_free(&ts);
}
END_TEST

/* ---- append_columns ---------------------------------------------------------------------- */

START_TEST(test_columns_same_file)
{
    /* one call per batch for all columns gives the same file as one call
     * per column; two bitmap batches in a call do not share scratch space */
    enum { N = 40 };
    inlay_buffer a, b;
    for (int pass = 0; pass < 2; pass++) {
        inlay_writer *w = open_writer(pass ? &b : &a);
        for (int k = 0; k < 3; k++) {
            int64_t id[N];
            int32_t small[N], price[N], el[N];
            inlay_bytes name[N], code[N];
            bool flag[N];
            uint8_t name_valid[(N + 7) / 8] = { 0 }, flag_valid[(N + 7) / 8] = { 0 };
            int16_t tdef[N], trep[N];
            static char text[N][8];
            for (int i = 0; i < N; i++) {
                int r = k * N + i;
                id[i] = r;
                small[i] = r % 100;
                price[i] = r * 3;
                el[i] = r;
                tdef[i] = r % 3 ? 3 : 0;
                trep[i] = 0;
                int n = snprintf(text[i], sizeof text[i], "t%d", r % 11);
                name[i].data = text[i];
                name[i].len = (size_t)n;
                code[i] = bytes_of(r % 2 ? "abcd" : "dcba");
                flag[i] = r % 3 == 1;
                if (r % 4) name_valid[i / 8] |= (uint8_t)(1u << (i % 8));
                if (r % 5) flag_valid[i / 8] |= (uint8_t)(1u << (i % 8));
            }
            size_t nel = 0;
            for (int i = 0; i < N; i++)
                if (tdef[i] == 3) el[nel++] = k * N + i;
            inlay_levels none = { NULL, NULL, NULL }, nl = { NULL, NULL, name_valid },
                         fl = { NULL, NULL, flag_valid }, tl = { tdef, trep, NULL };
            if (pass == 0) {
                inlay_column_batch batch[NCOLS] = {
                    { C_FLAG, flag, N, fl }, { C_NAME, name, N, nl }, { C_ID, id, N, none },
                    { C_SMALL, small, N, none }, { C_CODE, code, N, none }, { C_TAGS, el, N, tl },
                    { C_PRICE, price, N, none },
                };
                APPEND_OK(inlay_writer_append_columns(w, batch, NCOLS));
            } else {
                APPEND_OK(inlay_writer_append_i64(w, C_ID, id, N, &none));
                APPEND_OK(inlay_writer_append_bytes(w, C_NAME, name, N, &nl));
                APPEND_OK(inlay_writer_append_i32(w, C_SMALL, small, N, NULL));
                APPEND_OK(inlay_writer_append_bytes(w, C_CODE, code, N, NULL));
                APPEND_OK(inlay_writer_append_i32(w, C_TAGS, el, N, &tl));
                APPEND_OK(inlay_writer_append_bool(w, C_FLAG, flag, N, &fl));
                APPEND_OK(inlay_writer_append_i32(w, C_PRICE, price, N, NULL));
            }
        }
        APPEND_OK(inlay_writer_close(w));
        inlay_writer_free(w);
    }
    ck_assert(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
    inlay_buffer_free(&a);
    inlay_buffer_free(&b);
}
END_TEST

START_TEST(test_columns_edges)
{
    inlay_buffer out;
    inlay_writer *w = open_writer(&out);
    ck_assert_int_eq(inlay_writer_append_columns(w, NULL, 0), INLAY_OK);
    ck_assert_int_eq(inlay_writer_append_columns(NULL, NULL, 0), INLAY_ERR_ARGUMENT);
    /* uneven row counts are allowed until close */
    static const int64_t id[] = { 1, 2, 3 };
    inlay_column_batch b[1] = { { C_ID, id, 3, { NULL, NULL, NULL } } };
    APPEND_OK(inlay_writer_append_columns(w, b, 1));
    ck_assert_uint_eq(inlay_writer_rows(w), 0);
    ck_assert_int_eq(inlay_writer_close(w), INLAY_ERR_STATE);
    inlay_writer_abort(w);
    ck_assert_int_eq(inlay_writer_append_columns(w, b, 1), INLAY_ERR_STATE);
    inlay_writer_free(w);
    inlay_buffer_free(&out);
}
END_TEST

/* ---- opening ------------------------------------------------------------------------------ */

START_TEST(test_open_arguments)
{
    inlay_schema *s = make_schema();
    inlay_buffer b;
    inlay_buffer_init(&b, NULL);
    inlay_writer *w = (inlay_writer *)&b;
    ck_assert_int_eq(inlay_writer_open(NULL, inlay_buffer_sink(&b), s, NULL), INLAY_ERR_ARGUMENT);
    inlay_sink none = { 0 };
    ck_assert_int_eq(inlay_writer_open(&w, none, s, NULL), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&b), NULL, NULL), INLAY_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(w);
    ck_assert_ptr_nonnull(strstr(inlay_writer_errmsg(w), "schema"));
    inlay_writer_free(w);
    ck_assert_int_eq(inlay_writer_open_file(&w, NULL, s, NULL), INLAY_ERR_ARGUMENT);
    ck_assert_ptr_null(w);
    ck_assert_int_eq(inlay_writer_open_file(&w, "", s, NULL), INLAY_ERR_ARGUMENT);
    ck_assert_ptr_null(w);
    ck_assert_int_eq(inlay_writer_open_fd(NULL, 1, s, NULL), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inlay_writer_open_fd(&w, -1, s, NULL), INLAY_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(w);
    ck_assert_ptr_nonnull(strstr(inlay_writer_errmsg(w), "-1 is not a file descriptor"));
    inlay_writer_free(w);
    inlay_schema_free(s);
    inlay_buffer_free(&b);
}
END_TEST

/* Opening with options o fails with INLAY_ERR_ARGUMENT and a message. */
static void expect_bad_options(const inlay_options *o, const char *mention)
{
    inlay_schema *s = make_schema();
    inlay_buffer b;
    inlay_buffer_init(&b, NULL);
    inlay_writer *w = NULL;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&b), s, o), INLAY_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(w);
    ck_assert_msg(strstr(inlay_writer_errmsg(w), mention) != NULL, "message \"%s\" lacks \"%s\"",
                  inlay_writer_errmsg(w), mention);
    inlay_writer_free(w);
    inlay_schema_free(s);
    inlay_buffer_free(&b);
}

START_TEST(test_bad_options)
{
    inlay_options o;
    memset(&o, 0, sizeof o);
    expect_bad_options(&o, "inlay_options_init");
    inlay_options_init(&o);
    o.page_bytes = 0;
    expect_bad_options(&o, "positive");
    inlay_options_init(&o);
    o.row_group_rows = 0;
    expect_bad_options(&o, "positive");
    inlay_options_init(&o);
    o.compression = (inlay_compression)3;   /* LZO: never written */
    expect_bad_options(&o, "compression");
    inlay_options_init(&o);
    o.compression_level = 1000;
    expect_bad_options(&o, "level");
    inlay_options_init(&o);
    o.metadata_count = 2;
    expect_bad_options(&o, "metadata");
    inlay_options_init(&o);
    const inlay_kv kv[] = { { NULL, "v" } };
    o.metadata = kv;
    o.metadata_count = 1;
    expect_bad_options(&o, "key");
}
END_TEST

START_TEST(test_defaults)
{
    inlay_options o;
    inlay_options_init(&o);
    ck_assert_uint_eq(o.struct_size, sizeof o);
    ck_assert_int_eq(o.compression, INLAY_DEFAULT_COMPRESSION);
    ck_assert_int_eq(o.compression_level, INLAY_LEVEL_DEFAULT);
    ck_assert(o.min_compression_gain == INLAY_DEFAULT_MIN_GAIN);
    ck_assert_uint_eq(o.page_bytes, INLAY_DEFAULT_PAGE_BYTES);
    ck_assert_uint_eq(o.page_rows, INLAY_DEFAULT_PAGE_ROWS);
    ck_assert_uint_eq(o.row_group_rows, INLAY_DEFAULT_ROW_GROUP_ROWS);
    ck_assert_uint_eq(o.row_group_bytes, INLAY_DEFAULT_ROW_GROUP_BYTES);
    ck_assert_uint_eq(o.dictionary_bytes, INLAY_DEFAULT_DICTIONARY_BYTES);
    ck_assert(o.sync == INLAY_DEFAULT_SYNC && o.sync);
    ck_assert_ptr_null(o.alloc.fn);
    ck_assert_uint_eq(o.metadata_count, 0);
    inlay_column_options co;
    inlay_column_options_init(&co);
    ck_assert_int_eq(co.encoding, INLAY_ENCODING_AUTO);
    ck_assert(co.statistics);
    ck_assert_str_eq(inlay_version(), INLAY_VERSION_STRING);
}
END_TEST

START_TEST(test_column_lookup)
{
    inlay_buffer out;
    inlay_writer *w = open_writer(&out);
    ck_assert_int_eq(inlay_writer_column(w, "id"), C_ID);
    ck_assert_int_eq(inlay_writer_column(w, "price"), C_PRICE);
    ck_assert_int_eq(inlay_writer_column(w, "tags.list.element"), C_TAGS);
    ck_assert_int_eq(inlay_writer_column(w, "tags"), INLAY_ERR_COLUMN);
    ck_assert_int_eq(inlay_writer_column(w, "nope"), INLAY_ERR_COLUMN);
    ck_assert_int_eq(inlay_writer_column(w, ""), INLAY_ERR_COLUMN);
    ck_assert_int_eq(inlay_writer_column(w, NULL), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inlay_writer_column(NULL, "id"), INLAY_ERR_ARGUMENT);
    inlay_writer_free(w);
    inlay_buffer_free(&out);
}
END_TEST

START_TEST(test_schema_is_copied)
{
    inlay_schema *s = make_schema();
    inlay_buffer out;
    inlay_buffer_init(&out, NULL);
    inlay_writer *w;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&out), s, NULL), INLAY_OK);
    /* changing the caller's schema afterwards does not reach the writer */
    ck_assert_int_gt(inlay_schema_add(s, 0, "later", INLAY_REQUIRED, inlay_type_boolean(), NULL), 0);
    ck_assert_int_eq(inlay_writer_column(w, "later"), INLAY_ERR_COLUMN);
    inlay_schema_free(s);
    append_batch(w, 0, 0, NCOLS);
    APPEND_OK(inlay_writer_close(w));
    inlay_writer_free(w);
    inlay_buffer_free(&out);
}
END_TEST

START_TEST(test_null_writer)
{
    static const int64_t v[] = { 1 };
    ck_assert_int_eq(inlay_writer_append_i64(NULL, 0, v, 1, NULL), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inlay_writer_append_bytes(NULL, 0, NULL, 0, NULL), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inlay_writer_close(NULL), INLAY_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(inlay_writer_errmsg(NULL));
    ck_assert_uint_eq(inlay_writer_rows(NULL), 0);
    ck_assert_uint_eq(inlay_writer_row_groups(NULL), 0);
    ck_assert_uint_eq(inlay_writer_bytes(NULL), 0);
    ck_assert_ptr_null(inlay_writer_temp_path(NULL));
    inlay_writer_abort(NULL);
    inlay_writer_free(NULL);
    inlay_buffer_free(NULL);
}
END_TEST

START_TEST(test_strerror)
{
    static const int codes[] = { INLAY_OK, INLAY_ERR_ARGUMENT, INLAY_ERR_SCHEMA, INLAY_ERR_COLUMN,
                                 INLAY_ERR_TYPE, INLAY_ERR_VALUE, INLAY_ERR_NULL, INLAY_ERR_LEVEL,
                                 INLAY_ERR_STATE, INLAY_ERR_NOMEM, INLAY_ERR_IO, INLAY_ERR_COMPRESS };
    const int n = sizeof codes / sizeof codes[0];
    for (int i = 0; i < n; i++) {
        const char *m = inlay_strerror(codes[i]);
        ck_assert_ptr_nonnull(m);
        ck_assert_str_ne(m, "");
        ck_assert_str_ne(m, inlay_strerror(12345));
        for (int j = 0; j < i; j++) ck_assert_str_ne(m, inlay_strerror(codes[j]));
    }
    ck_assert_ptr_nonnull(inlay_strerror(-999));
}
END_TEST

/* ---- the file -------------------------------------------------------------------------------- */

START_TEST(test_frame_and_totals)
{
    inlay_buffer out;
    inlay_schema *s = make_schema();
    inlay_options o = small_pages();
    const inlay_kv kv[] = { { "origin", "unit test" }, { "empty", NULL } };
    o.metadata = kv;
    o.metadata_count = 2;
    inlay_buffer_init(&out, NULL);
    inlay_writer *w;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&out), s, &o), INLAY_OK);
    inlay_schema_free(s);
    for (int k = 0; k < 5; k++) append_batch(w, k, 0, NCOLS);
    APPEND_OK(inlay_writer_close(w));
    ck_assert_uint_eq(inlay_writer_rows(w), 5 * B);
    ck_assert_uint_eq(inlay_writer_bytes(w), out.len);
    uint64_t groups = inlay_writer_row_groups(w);
    inlay_writer_free(w);

    const char *why;
    fm_file *f = fm_read(out.data, out.len, &why);
    ck_assert_msg(f != NULL, "%s", why);
    ck_assert_int_eq(f->version, 1);
    ck_assert_int_eq(f->num_rows, 5 * B);
    ck_assert_int_eq(f->num_row_groups, (int)groups);
    ck_assert_int_eq(groups, (5 * B + 59) / 60);          /* row_group_rows = 60 */
    int64_t total = 0;
    for (int g = 0; g < f->num_row_groups; g++) total += f->row_group_rows[g];
    ck_assert_int_eq(total, 5 * B);
    ck_assert_int_eq(f->nchunks, NCOLS * f->num_row_groups);
    ck_assert_int_eq(f->num_schema_elements, 10);          /* root, 7 leaves, 2 groups */
    ck_assert_int_eq(f->num_column_orders, NCOLS);
    ck_assert_int_eq(f->num_kv, 2);
    ck_assert_str_eq(f->created_by, "inlay version " INLAY_VERSION_STRING);
    /* chunks lie inside the file, after the magic, in order */
    int64_t prev = 4;
    for (int i = 0; i < f->nchunks; i++) {
        const fm_chunk *c = &f->chunks[i];
        int64_t start = c->dictionary_page_offset >= 0 ? c->dictionary_page_offset : c->data_page_offset;
        ck_assert_int_eq(start, prev);
        prev = start + c->total_compressed;
        ck_assert_int_eq(c->codec, INLAY_ZSTD);
    }
    /* then the page index: every chunk's column indexes, then its offset
     * indexes, each right after the one before */
    for (int which = 1; which >= 0; which--)
        for (int i = 0; i < f->nchunks; i++) {
            const fm_chunk *c = &f->chunks[i];
            ck_assert_int_eq(c->index_offset[which], prev);
            ck_assert_int_gt(c->index_length[which], 0);
            prev += c->index_length[which];
        }
    uint32_t footer = le32(out.data + out.len - 8);
    ck_assert_int_eq(prev + footer + 8, (int64_t)out.len);
    free(f);
    inlay_buffer_free(&out);
}
END_TEST

/* Row groups on the host's schedule: each flush ends one where the rows
 * stand, the stats say what is buffered, and a flush where the columns
 * disagree changes nothing. */
START_TEST(test_flush_row_group)
{
    inlay_buffer out;
    inlay_schema *s = make_schema();
    inlay_options o;
    inlay_options_init(&o);   /* the size limits are far away */
    inlay_buffer_init(&out, NULL);
    inlay_writer *w;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&out), s, &o), INLAY_OK);
    inlay_schema_free(s);
    inlay_writer_stats st;
    APPEND_OK(inlay_writer_flush_row_group(w));   /* nothing buffered: nothing happens */
    inlay_writer_get_stats(w, &st);
    ck_assert_uint_eq(st.row_groups, 0);
    ck_assert_uint_eq(st.bytes_written, 4);       /* the magic */
    append_batch(w, 0, 0, NCOLS);
    inlay_writer_get_stats(w, &st);
    ck_assert_uint_eq(st.rows, B);
    ck_assert_uint_eq(st.rows_buffered, B);
    ck_assert_uint_gt(st.bytes_buffered, 0);
    APPEND_OK(inlay_writer_flush_row_group(w));
    inlay_writer_get_stats(w, &st);
    ck_assert_uint_eq(st.row_groups, 1);
    ck_assert_uint_eq(st.rows_buffered, 0);
    ck_assert_uint_eq(st.bytes_buffered, 0);
    ck_assert_uint_gt(st.bytes_written, 4);
    ck_assert_uint_eq(st.bytes_written, inlay_writer_bytes(w));
    APPEND_OK(inlay_writer_flush_row_group(w));   /* again: still one */
    ck_assert_uint_eq(inlay_writer_row_groups(w), 1);
    /* columns that disagree: refused, nothing changes */
    append_batch(w, 1, 0, 3);
    ck_assert_int_eq(inlay_writer_flush_row_group(w), INLAY_ERR_STATE);
    ck_assert_ptr_nonnull(strstr(inlay_writer_errmsg(w), "rows but column"));
    ck_assert_uint_eq(inlay_writer_row_groups(w), 1);
    append_batch(w, 1, 3, NCOLS);
    append_batch(w, 2, 0, NCOLS);
    APPEND_OK(inlay_writer_flush_row_group(w));
    append_batch(w, 3, 0, NCOLS);
    APPEND_OK(inlay_writer_close(w));
    ck_assert_int_eq(inlay_writer_flush_row_group(w), INLAY_ERR_STATE);
    inlay_writer_get_stats(w, &st);
    ck_assert_uint_eq(st.rows, 4 * B);
    ck_assert_uint_eq(st.row_groups, 3);
    ck_assert_uint_eq(st.rows_buffered, 0);
    ck_assert_uint_eq(st.bytes_written, out.len);
    inlay_writer_free(w);
    const char *why;
    fm_file *f = fm_read(out.data, out.len, &why);
    ck_assert_msg(f != NULL, "%s", why);
    ck_assert_int_eq(f->num_row_groups, 3);
    ck_assert_int_eq(f->row_group_rows[0], B);
    ck_assert_int_eq(f->row_group_rows[1], 2 * B);
    ck_assert_int_eq(f->row_group_rows[2], B);
    free(f);
    inlay_buffer_free(&out);
    inlay_writer_get_stats(NULL, &st);
    ck_assert_uint_eq(st.rows + st.row_groups + st.bytes_written + st.rows_buffered + st.bytes_buffered, 0);
    ck_assert_int_eq(inlay_writer_flush_row_group(NULL), INLAY_ERR_ARGUMENT);
}
END_TEST

START_TEST(test_empty_file)
{
    inlay_buffer out;
    inlay_writer *w = open_writer(&out);
    APPEND_OK(inlay_writer_close(w));
    ck_assert_uint_eq(inlay_writer_rows(w), 0);
    ck_assert_uint_eq(inlay_writer_row_groups(w), 0);
    inlay_writer_free(w);
    const char *why;
    fm_file *f = fm_read(out.data, out.len, &why);
    ck_assert_msg(f != NULL, "%s", why);
    ck_assert_int_eq(f->num_rows, 0);
    ck_assert_int_eq(f->num_row_groups, 0);
    free(f);
    inlay_buffer_free(&out);
}
END_TEST

START_TEST(test_zero_count_appends)
{
    /* count 0 is a no-op, even with NULL values */
    inlay_buffer a, b;
    inlay_writer *w = open_writer(&a);
    append_batch(w, 0, 0, NCOLS);
    APPEND_OK(inlay_writer_append_i64(w, C_ID, NULL, 0, NULL));
    APPEND_OK(inlay_writer_append_bytes(w, C_NAME, NULL, 0, NULL));
    APPEND_OK(inlay_writer_close(w));
    inlay_writer_free(w);
    w = open_writer(&b);
    append_batch(w, 0, 0, NCOLS);
    APPEND_OK(inlay_writer_close(w));
    inlay_writer_free(w);
    ck_assert(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
    inlay_buffer_free(&a);
    inlay_buffer_free(&b);
}
END_TEST

START_TEST(test_all_null_batch)
{
    /* every entry null: values may be NULL */
    inlay_buffer out;
    inlay_writer *w = open_writer(&out);
    static const int16_t def[] = { 0, 0, 0 };
    inlay_levels lv = { def, NULL, NULL };
    APPEND_OK(inlay_writer_append_bytes(w, C_NAME, NULL, 3, &lv));
    static const uint8_t none[] = { 0 };
    inlay_levels vl = { NULL, NULL, none };
    APPEND_OK(inlay_writer_append_bool(w, C_FLAG, NULL, 3, &vl));
    inlay_writer_free(w);
    inlay_buffer_free(&out);
}
END_TEST

static Suite *writer_suite(void)
{
    Suite *s = suite_create("writer");
    TCase *c;

    c = tcase_create("bad input changes nothing");
    tcase_set_timeout(c, 60);
    tcase_add_loop_test(c, test_bad_call, 0, NBAD);
    suite_add_tcase(s, c);

    c = tcase_create("append_columns");
    tcase_add_test(c, test_columns_same_file);
    tcase_add_test(c, test_columns_edges);
    suite_add_tcase(s, c);

    c = tcase_create("close and abort");
    tcase_add_test(c, test_error_info);
    tcase_add_test(c, test_staged_batches);
    tcase_add_test(c, test_sort_refusal_unstages);
    tcase_add_test(c, test_call_after_close);
    tcase_add_test(c, test_nomem_mid_stream_sticky);
    tcase_add_test(c, test_unequal_rows_at_close);
    tcase_add_test(c, test_abort);
    suite_add_tcase(s, c);

    c = tcase_create("opening");
    tcase_add_test(c, test_open_arguments);
    tcase_add_test(c, test_bad_options);
    tcase_add_test(c, test_defaults);
    tcase_add_test(c, test_column_lookup);
    tcase_add_test(c, test_schema_is_copied);
    tcase_add_test(c, test_null_writer);
    tcase_add_test(c, test_strerror);
    suite_add_tcase(s, c);

    c = tcase_create("file frame");
    tcase_add_test(c, test_frame_and_totals);
    tcase_add_test(c, test_empty_file);
    tcase_add_test(c, test_flush_row_group);
    tcase_add_test(c, test_zero_count_appends);
    tcase_add_test(c, test_all_null_batch);
    suite_add_tcase(s, c);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(writer_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
