/*
 * check_arrow.c — the Arrow C data interface (runtime/write/arrow.c):
 * inlay_schema_from_arrow and inlay_writer_append_arrow, with Arrow schemas
 * and arrays built by hand exactly as the specification lays them out
 * (validity bitmaps LSB first, offsets, views with their variadic buffers,
 * dictionaries, struct/list/map children), record batches and child arrays
 * starting at offsets that are not multiples of 8.
 *
 * Files are read back with the suite's own decoders (chunk_reader.h). A
 * rejected batch must return its status with a message naming the field,
 * change nothing and leave the writer usable: those cases write file A with
 * the rejected batch between two good ones and file B with the good ones
 * only, and the two must be identical.
 */
#include <stdarg.h>

#include "chunk_reader.h"

/* ---- Arrow structures by hand --------------------------------------------- */

/* Everything a test builds, freed at its end. */
static void *g_blocks[4096];
static int g_nblocks;

static void *P(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_lt(g_nblocks, 4096);
    g_blocks[g_nblocks++] = p;
    return p;
}

static void pool_free(void)
{
    for (int i = 0; i < g_nblocks; i++) free(g_blocks[i]);
    g_nblocks = 0;
}

static void *dup_bytes(const void *src, size_t n)
{
    void *p = P(n);
    if (n) memcpy(p, src, n);
    return p;
}

#define NULLABLE ARROW_FLAG_NULLABLE

static struct ArrowSchema *S(const char *format, const char *name, int64_t flags)
{
    struct ArrowSchema *s = P(sizeof *s);
    s->format = format;
    s->name = name;
    s->flags = flags;
    return s;
}

/* s with n children. */
static struct ArrowSchema *SK(struct ArrowSchema *s, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    s->n_children = n;
    s->children = P((size_t)n * sizeof *s->children);
    for (int i = 0; i < n; i++) s->children[i] = va_arg(ap, struct ArrowSchema *);
    va_end(ap);
    return s;
}

/* An array of n buffers (given after nbuf). */
static struct ArrowArray *A(int64_t length, int64_t null_count, int64_t offset, int nbuf, ...)
{
    struct ArrowArray *a = P(sizeof *a);
    a->length = length;
    a->null_count = null_count;
    a->offset = offset;
    a->n_buffers = nbuf;
    a->buffers = P((size_t)(nbuf ? nbuf : 1) * sizeof *a->buffers);
    va_list ap;
    va_start(ap, nbuf);
    for (int i = 0; i < nbuf; i++) a->buffers[i] = va_arg(ap, const void *);
    va_end(ap);
    return a;
}

static struct ArrowArray *AK(struct ArrowArray *a, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    a->n_children = n;
    a->children = P((size_t)n * sizeof *a->children);
    for (int i = 0; i < n; i++) a->children[i] = va_arg(ap, struct ArrowArray *);
    va_end(ap);
    return a;
}

/* A bitmap whose bit i is text[i] == '1' (spaces ignored), LSB first. */
static const uint8_t *bits(const char *text)
{
    uint8_t *b = P(strlen(text) / 8 + 8);
    size_t i = 0;
    for (const char *p = text; *p; p++) {
        if (*p == ' ') continue;
        if (*p == '1') b[i / 8] |= (uint8_t)(1u << (i % 8));
        i++;
    }
    return b;
}

static int64_t zeros(const char *text)
{
    int64_t n = 0;
    for (const char *p = text; *p; p++) n += *p == '0';
    return n;
}

/* Metadata in Arrow's encoding with one pair. */
static const char *metadata1(const char *key, const char *value)
{
    const int32_t n = 1, kl = (int32_t)strlen(key), vl = (int32_t)strlen(value);
    char *m = P(12 + (size_t)kl + (size_t)vl);
    memcpy(m, &n, 4);
    memcpy(m + 4, &kl, 4);
    memcpy(m + 8, key, (size_t)kl);
    memcpy(m + 8 + kl, &vl, 4);
    memcpy(m + 12 + kl, value, (size_t)vl);
    return m;
}

/* The record batch: a "+s" of the fields, offset `off`, `rows` rows. */
static struct ArrowArray *batch(int64_t rows, int64_t off, int n, ...)
{
    struct ArrowArray *a = A(rows, 0, off, 1, NULL);
    va_list ap;
    va_start(ap, n);
    a->n_children = n;
    a->children = P((size_t)n * sizeof *a->children);
    for (int i = 0; i < n; i++) a->children[i] = va_arg(ap, struct ArrowArray *);
    va_end(ap);
    return a;
}

/* A primitive column for a batch at offset B: the array has its own offset
 * `co` and length B + n; its entries before B (and the bits before co + B)
 * hold junk; row i is slot co + B + i of the buffers. vals holds the n rows'
 * values of `width` bytes; valid is a "1011" text or NULL (no bitmap). */
static struct ArrowArray *prim(size_t width, const void *vals, int64_t n, const char *valid, int64_t co, int64_t B)
{
    const int64_t total = co + B + n;
    uint8_t *data = P((size_t)total * width + 8);
    memset(data, 0xA5, (size_t)(co + B) * width);
    memcpy(data + (size_t)(co + B) * width, vals, (size_t)n * width);
    const uint8_t *vb = NULL;
    if (valid) {
        uint8_t *b = P((size_t)total / 8 + 8);
        for (int64_t i = 0; i < co + B; i++)
            if (i % 3) b[i / 8] |= (uint8_t)(1u << (i % 8));   /* junk */
        for (int64_t i = 0; i < n; i++)
            if (valid[i] == '1') b[(co + B + i) / 8] |= (uint8_t)(1u << ((co + B + i) % 8));
        vb = b;
    }
    return A(B + n, valid ? zeros(valid) : 0, co, 2, vb, data);
}

/* A boolean column as prim() lays it out, values as a "0110" text. */
static struct ArrowArray *bool_col(const char *values, const char *valid, int64_t co, int64_t B)
{
    const int64_t n = (int64_t)strlen(values), total = co + B + n;
    uint8_t *data = P((size_t)total / 8 + 8);
    for (int64_t i = 0; i < co + B; i++)
        if (i % 2) data[i / 8] |= (uint8_t)(1u << (i % 8));
    for (int64_t i = 0; i < n; i++)
        if (values[i] == '1') data[(co + B + i) / 8] |= (uint8_t)(1u << ((co + B + i) % 8));
    struct ArrowArray *a = prim(1, values, n, valid, co, B);   /* for its bitmap */
    a->buffers[1] = data;
    return a;
}

/* Strings in the offsets form (u z with 32-bit offsets, U Z with 64-bit)
 * as prim() lays them out; a NULL value is a null with junk bytes. */
static struct ArrowArray *str_col(const char *const *vals, int64_t n, bool wide, int64_t co, int64_t B)
{
    const int64_t total = co + B + n;
    size_t bytes = 0;
    for (int64_t i = 0; i < n; i++) bytes += vals[i] ? strlen(vals[i]) : 3;
    char *data = P(bytes + 16 + (size_t)(co + B) * 2);
    int64_t *o64 = P((size_t)(total + 1) * 8);
    int32_t *o32 = P((size_t)(total + 1) * 4);
    char text[64];
    size_t at = 0;
    uint8_t *vb = P((size_t)total / 8 + 8);
    int64_t nulls = 0;
    for (int64_t i = 0; i < total; i++) {
        o64[i] = (int64_t)at;
        o32[i] = (int32_t)at;
        const bool row = i >= co + B;
        const char *v = row ? vals[i - co - B] : "jj";
        if (row && v) vb[i / 8] |= (uint8_t)(1u << (i % 8));
        if (!v) {
            v = "\xff\xfe!";   /* junk, not UTF-8 */
            nulls++;
        }
        snprintf(text, sizeof text, "%s", v);
        memcpy(data + at, text, strlen(text));
        at += strlen(text);
    }
    o64[total] = (int64_t)at;
    o32[total] = (int32_t)at;
    return A(B + n, nulls, co, 3, nulls ? vb : NULL, wide ? (const void *)o64 : (const void *)o32, data);
}

/* The same strings as views (vu vz): short ones inline, long ones in two
 * variadic buffers, alternately. */
static struct ArrowArray *view_col(const char *const *vals, int64_t n, int64_t co, int64_t B)
{
    const int64_t total = co + B + n;
    uint8_t *views = P((size_t)total * 16);
    char *buf0 = P(4096), *buf1 = P(4096);
    int64_t *sizes = P(2 * 8);
    uint8_t *vb = P((size_t)total / 8 + 8);
    int64_t nulls = 0;
    for (int64_t i = 0; i < total; i++) {
        const bool row = i >= co + B;
        const char *v = row ? vals[i - co - B] : "junk before the rows";
        uint8_t *w = views + i * 16;
        if (row && v) vb[i / 8] |= (uint8_t)(1u << (i % 8));
        if (!v) {
            nulls++;
            const int32_t bad = -7;   /* a null's view is junk */
            memcpy(w, &bad, 4);
            continue;
        }
        const int32_t len = (int32_t)strlen(v);
        memcpy(w, &len, 4);
        if (len <= 12) {
            memcpy(w + 4, v, (size_t)len);
            continue;
        }
        const int32_t k = (int32_t)(i % 2), off = (int32_t)sizes[k];
        memcpy(k ? buf1 + off : buf0 + off, v, (size_t)len);
        sizes[k] += len;
        memcpy(w + 4, v, 4);
        memcpy(w + 8, &k, 4);
        memcpy(w + 12, &off, 4);
    }
    return A(B + n, nulls, co, 5, nulls ? vb : NULL, views, buf0, buf1, sizes);
}

/* ---- writing and reading back ----------------------------------------------- */

/* A writer on the schema inlay_schema_from_arrow makes of sch. */
static inlay_writer *open_arrow(file *f, const struct ArrowSchema *sch, const inlay_options *o)
{
    inlay_schema *s = NULL;
    char err[256];
    int st = inlay_schema_from_arrow(&s, sch, NULL, err, sizeof err);
    ck_assert_msg(st == INLAY_OK, "schema_from_arrow: %d %s", st, err);
    f->meta = NULL;
    inlay_buffer_init(&f->out, NULL);
    inlay_writer *w = NULL;
    inlay_options def;
    inlay_options_init(&def);
    def.compression = INLAY_UNCOMPRESSED;
    st = inlay_writer_open(&w, inlay_buffer_sink(&f->out), s, o ? o : &def);
    ck_assert_msg(st == INLAY_OK, "open: %s", w ? inlay_writer_errmsg(w) : "no writer");
    inlay_schema_free(s);
    return w;
}

#define APPEND_OK(w, a, s)                                                                    \
    do {                                                                                      \
        int st_ = inlay_writer_append_arrow((w), (a), (s));                                   \
        ck_assert_msg(st_ == INLAY_OK, "append_arrow: %d %s", st_, inlay_writer_errmsg(w));   \
    } while (0)

/* Column `path` decoded; defs compared with a "1011" text (flat optional
 * columns), the present values returned in d. */
static void read_flat(const file *f, const char *path, int width, const char *valid, decoded *d)
{
    memset(d, 0, sizeof *d);
    decode_column(f, path, width, valid ? 1 : 0, 0, d);
    if (!valid) return;
    ck_assert_uint_eq(d->nlevels, strlen(valid));
    for (size_t i = 0; i < d->nlevels; i++)
        ck_assert_msg(d->def[i] == (valid[i] == '1'), "%s row %zu: def %d, want %c", path, i, d->def[i], valid[i]);
}

static void expect_texts(const decoded *d, const char *const *vals, int64_t n)
{
    size_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!vals[i]) continue;
        ck_assert_uint_lt(k, d->nvalues);
        ck_assert_msg(d->len[k] == strlen(vals[i]) && !memcmp(d->val[k], vals[i], d->len[k]), "value %zu: '%.*s', want '%s'",
                      k, (int)d->len[k], (const char *)d->val[k], vals[i]);
        k++;
    }
    ck_assert_uint_eq(d->nvalues, k);
}

/* The present values of an n-row column whose values are int64s, each
 * stored in `width` bytes (little-endian). */
static void expect_ints(const decoded *d, const int64_t *want, const char *valid, int64_t n, int width)
{
    size_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        if (valid && valid[i] != '1') continue;
        ck_assert_uint_lt(k, d->nvalues);
        ck_assert_uint_eq(d->len[k], (size_t)width);
        int64_t v = 0;
        memcpy(&v, d->val[k], (size_t)width);
        if (width == 4) v = (int32_t)v;
        ck_assert_msg(v == want[i], "row %lld: %lld, want %lld", (long long)i, (long long)v, (long long)want[i]);
        k++;
    }
    ck_assert_uint_eq(d->nvalues, k);
}

static void type_is(const inlay_schema *s, int col, const char *name, const char *type, inlay_repetition rep)
{
    const char *n;
    inlay_type t;
    inlay_repetition r;
    ck_assert_int_eq(inlay_schema_column(s, col, &n, &t, &r), INLAY_OK);
    char tn[64];
    inlay_type_name(&t, tn, sizeof tn);
    ck_assert_msg(!strcmp(n, name) && !strcmp(tn, type) && r == rep, "column %d: %s %s %d, want %s %s %d", col, n, tn,
                  (int)r, name, type, (int)rep);
}

/* ---- schema_from_arrow ----------------------------------------------------- */

START_TEST(test_schema_types)
{
    struct ArrowSchema *uuid = S("w:16", "uuid", NULLABLE);
    uuid->metadata = metadata1("ARROW:extension:name", "arrow.uuid");
    struct ArrowSchema *json = S("u", "json", 0);
    json->metadata = metadata1("ARROW:extension:name", "arrow.json");
    struct ArrowSchema *other = S("w:16", "other_ext", 0);
    other->metadata = metadata1("ARROW:extension:name", "my.thing");
    struct ArrowSchema *dict = S("i", "dict", NULLABLE);
    dict->dictionary = S("u", NULL, 0);
    struct ArrowSchema *dict_json = S("c", "dict_json", 0);
    dict_json->dictionary = S("vu", NULL, 0);
    dict_json->dictionary->metadata = metadata1("ARROW:extension:name", "arrow.json");
    static const struct { const char *format, *type; bool nullable; } cases[] = {
        { "b", "boolean", true },      { "c", "int8", false },        { "C", "uint8", true },
        { "s", "int16", false },       { "S", "uint16", false },      { "i", "int32", true },
        { "I", "uint32", false },      { "l", "int64", false },       { "L", "uint64", true },
        { "e", "float16", false },     { "f", "float", false },       { "g", "double", true },
        { "u", "string", true },       { "U", "string", false },      { "vu", "string", false },
        { "z", "binary", false },      { "Z", "binary", true },       { "vz", "binary", false },
        { "w:5", "fixed(5)", false },  { "d:9,2", "decimal(9,2)", false },
        { "d:18,0", "decimal(18,0)", true },  { "d:38,10", "decimal(38,10)", false },
        { "d:40,5,256", "decimal(40,5)", false }, { "d:5,2,128", "decimal(5,2)", false },
        { "d:7,1,32", "decimal(7,1)", false }, { "d:15,2,64", "decimal(15,2)", false },
        { "tdD", "date", false },      { "tdm", "date", true },       { "tts", "time(ms)", false },
        { "ttm", "time(ms)", false },  { "ttu", "time(us)", false },  { "ttn", "time(ns)", true },
        { "tss:", "timestamp(ms)", false },   { "tsm:UTC", "timestamp(ms, utc)", false },
        { "tsu:Europe/Paris", "timestamp(us, utc)", true }, { "tsn:", "timestamp(ns)", false },
        { "tsu:+01:00", "timestamp(us, utc)", false },
    };
    enum { N = sizeof cases / sizeof cases[0] };
    struct ArrowSchema *root = S("+s", "", 0);
    root->n_children = N + 5;
    root->children = P((N + 5) * sizeof *root->children);
    char names[N][16];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "f%d", i);
        root->children[i] = S(cases[i].format, names[i], cases[i].nullable ? NULLABLE : 0);
    }
    root->children[N] = uuid;
    root->children[N + 1] = json;
    root->children[N + 2] = other;
    root->children[N + 3] = dict;
    root->children[N + 4] = dict_json;
    inlay_schema *s = NULL;
    char err[256] = "x";
    ck_assert_int_eq(inlay_schema_from_arrow(&s, root, NULL, err, sizeof err), INLAY_OK);
    ck_assert_str_eq(err, "");
    ck_assert_int_eq(inlay_schema_num_columns(s), N + 5);
    for (int i = 0; i < N; i++)
        type_is(s, i, names[i], cases[i].type, cases[i].nullable ? INLAY_OPTIONAL : INLAY_REQUIRED);
    type_is(s, N, "uuid", "uuid", INLAY_OPTIONAL);
    type_is(s, N + 1, "json", "json", INLAY_REQUIRED);
    type_is(s, N + 2, "other_ext", "fixed(16)", INLAY_REQUIRED);
    type_is(s, N + 3, "dict", "string", INLAY_OPTIONAL);
    type_is(s, N + 4, "dict_json", "json", INLAY_REQUIRED);
    /* the physical types decimals get */
    inlay_type t;
    const char *n;
    inlay_repetition r;
    ck_assert_int_eq(inlay_schema_column(s, 19, &n, &t, &r), INLAY_OK);
    ck_assert_int_eq(t.physical, INLAY_INT32);
    ck_assert_int_eq(inlay_schema_column(s, 20, &n, &t, &r), INLAY_OK);
    ck_assert_int_eq(t.physical, INLAY_INT64);
    ck_assert_int_eq(inlay_schema_column(s, 21, &n, &t, &r), INLAY_OK);
    ck_assert_int_eq(t.physical, INLAY_FIXED_LEN_BYTE_ARRAY);
    ck_assert_int_eq(t.type_length, 16);
    ck_assert_int_eq(inlay_schema_column(s, 22, &n, &t, &r), INLAY_OK);
    ck_assert_int_eq(t.type_length, 17);
    inlay_schema_free(s);
    pool_free();
}
END_TEST

START_TEST(test_schema_nested)
{
    struct ArrowSchema *root = SK(S("+s", "", 0), 5,
        SK(S("+s", "pos", NULLABLE), 2, S("g", "x", 0), S("g", "y", NULLABLE)),
        SK(S("+l", "tags", NULLABLE), 1, S("u", "item", NULLABLE)),
        SK(S("+L", "ids", 0), 1, S("l", "item", 0)),
        SK(S("+m", "attrs", NULLABLE), 1, SK(S("+s", "entries", 0), 2, S("u", "key", NULLABLE), S("i", "value", NULLABLE))),
        SK(S("+l", "hits", 0), 1,
           SK(S("+s", "item", NULLABLE), 2, S("d:12,3", "score", 0), SK(S("+l", "seen", NULLABLE), 1, S("tsu:UTC", "t", 0)))));
    inlay_schema *s = NULL;
    char err[256];
    ck_assert_msg(inlay_schema_from_arrow(&s, root, NULL, err, sizeof err) == INLAY_OK, "%s", err);
    char text[2048];
    inlay_schema_format(s, text, sizeof text);
    const char *want =
        "message schema {\n"
        "  optional group pos {\n"
        "    required double x;\n"
        "    optional double y;\n"
        "  }\n"
        "  optional group tags (LIST) {\n"
        "    repeated group list {\n"
        "      optional binary element (STRING);\n"
        "    }\n"
        "  }\n"
        "  required group ids (LIST) {\n"
        "    repeated group list {\n"
        "      required int64 element (INTEGER(64,true));\n"
        "    }\n"
        "  }\n"
        "  optional group attrs (MAP) {\n"
        "    repeated group key_value {\n"
        "      required binary key (STRING);\n"
        "      optional int32 value (INTEGER(32,true));\n"
        "    }\n"
        "  }\n"
        "  required group hits (LIST) {\n"
        "    repeated group list {\n"
        "      optional group element {\n"
        "        required int64 score (DECIMAL(12,3));\n"
        "        optional group seen (LIST) {\n"
        "          repeated group list {\n"
        "            required int64 element (TIMESTAMP(MICROS,true));\n"
        "          }\n"
        "        }\n"
        "      }\n"
        "    }\n"
        "  }\n"
        "}\n";
    ck_assert_msg(!strcmp(text, want), "got:\n%s", text);
    inlay_schema_free(s);
    pool_free();
}
END_TEST

/* One field of format `format` alone: the status and the message. */
static void schema_fails(struct ArrowSchema *field, int status, const char *msg)
{
    struct ArrowSchema *root = SK(S("+s", "", 0), 2, S("l", "ok", 0), field);
    inlay_schema *s = (inlay_schema *)1;
    char err[256] = "";
    int st = inlay_schema_from_arrow(&s, root, NULL, err, sizeof err);
    ck_assert_msg(st == status, "%s: status %d, want %d (%s)", field->format ? field->format : "(null)", st, status, err);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err, msg), "message '%s' lacks '%s'", err, msg);
}

START_TEST(test_schema_unsupported)
{
    schema_fails(S("tDs", "d", 0), INLAY_ERR_SCHEMA, "field 'd': Arrow format \"tDs\" (duration) is not supported");
    schema_fails(S("tiM", "iv", 0), INLAY_ERR_SCHEMA, "field 'iv': Arrow format \"tiM\" (interval) is not supported");
    schema_fails(SK(S("+w:2", "fl", 0), 1, S("i", "item", 0)), INLAY_ERR_SCHEMA,
                 "field 'fl': Arrow format \"+w:2\" (fixed-size list) is not supported");
    schema_fails(SK(S("+ud:0,1", "un", 0), 2, S("i", "a", 0), S("u", "b", 0)), INLAY_ERR_SCHEMA,
                 "field 'un': Arrow format \"+ud:0,1\" (union) is not supported");
    schema_fails(S("n", "nothing", 0), INLAY_ERR_SCHEMA, "field 'nothing': Arrow format \"n\" (null) is not supported");
    schema_fails(S("d:5,-2", "neg", 0), INLAY_ERR_SCHEMA, "(decimal with a negative scale)");
    schema_fails(S("d:5,2,99", "odd", 0), INLAY_ERR_SCHEMA, "field 'odd'");
    schema_fails(S("x", "what", 0), INLAY_ERR_SCHEMA, "field 'what': Arrow format \"x\" (unknown format)");
    schema_fails(SK(S("+s", "p", 0), 1, S("tDn", "dur", 0)), INLAY_ERR_SCHEMA, "field 'p.dur'");
    struct ArrowSchema *dict = S("g", "dg", 0);
    dict->dictionary = S("u", NULL, 0);
    schema_fails(dict, INLAY_ERR_SCHEMA, "field 'dg': Arrow format \"g\" (dictionary indices that are not integers)");
    schema_fails(SK(S("+s", "empty", 0), 0), INLAY_ERR_SCHEMA, "field 'empty': a struct with no fields");
    /* malformed */
    schema_fails(S(NULL, "nf", 0), INLAY_ERR_ARGUMENT, "field 'nf': no format");
    struct ArrowSchema *st = S("+s", "st", 0);
    st->n_children = 2;   /* and no children */
    schema_fails(st, INLAY_ERR_ARGUMENT, "field 'st'");
    struct ArrowSchema *nullkid = SK(S("+s", "nk", 0), 2, S("i", "a", 0), S("i", "b", 0));
    nullkid->children[1] = NULL;
    schema_fails(nullkid, INLAY_ERR_ARGUMENT, "field 'nk': child 1 is NULL");
    schema_fails(SK(S("+s", "noname", 0), 1, S("i", NULL, 0)), INLAY_ERR_ARGUMENT, "field 'noname': child 0 has no name");
    schema_fails(SK(S("+l", "twokids", 0), 2, S("i", "a", 0), S("i", "b", 0)), INLAY_ERR_ARGUMENT, "field 'twokids'");
    schema_fails(SK(S("+m", "badmap", 0), 1, S("i", "entries", 0)), INLAY_ERR_ARGUMENT,
                 "field 'badmap': a map's child is not a struct of key and value");
    /* the record batch itself */
    inlay_schema *s = (inlay_schema *)1;
    char err[256];
    ck_assert_int_eq(inlay_schema_from_arrow(&s, NULL, NULL, err, sizeof err), INLAY_ERR_ARGUMENT);
    ck_assert_ptr_null(s);
    ck_assert_int_eq(inlay_schema_from_arrow(&s, S("i", "x", 0), NULL, err, sizeof err), INLAY_ERR_ARGUMENT);
    ck_assert_msg(strstr(err, "a record batch's schema is a struct"), "%s", err);
    ck_assert_int_eq(inlay_schema_from_arrow(&s, SK(S("+s", "", 0), 1, S("i", NULL, 0)), NULL, err, sizeof err),
                     INLAY_ERR_ARGUMENT);
    ck_assert_msg(strstr(err, "field 0 has no name"), "%s", err);
    ck_assert_int_eq(inlay_schema_from_arrow(&s, SK(S("+s", "", 0), 0), NULL, NULL, 0), INLAY_ERR_SCHEMA);
    ck_assert_int_eq(inlay_schema_from_arrow(NULL, SK(S("+s", "", 0), 1, S("i", "a", 0)), NULL, NULL, 0),
                     INLAY_ERR_ARGUMENT);
    /* a duplicate name: the schema's own check */
    ck_assert_int_eq(inlay_schema_from_arrow(&s, SK(S("+s", "", 0), 2, S("i", "a", 0), S("l", "a", 0)), NULL, err,
                                             sizeof err), INLAY_ERR_SCHEMA);
    ck_assert_ptr_null(s);
    pool_free();
}
END_TEST

START_TEST(test_schema_nomem)
{
    struct ArrowSchema *root = SK(S("+s", "", 0), 4, S("l", "id", 0), SK(S("+l", "tags", NULLABLE), 1, S("u", "item", 0)),
        SK(S("+m", "attrs", 0), 1, SK(S("+s", "entries", 0), 2, S("u", "key", 0), S("d:20,2", "value", NULLABLE))),
        SK(S("+s", "pos", 0), 2, S("f", "x", 0), S("f", "y", 0)));
    int failures = 0;
    for (unsigned long n = 1;; n++) {
        test_alloc ta;
        memset(&ta, 0, sizeof ta);
        ta.fail_at = n;
        inlay_allocator a = test_allocator(&ta);
        inlay_schema *s = NULL;
        char err[128];
        int st = inlay_schema_from_arrow(&s, root, &a, err, sizeof err);
        if (st == INLAY_OK) {
            ck_assert_uint_eq(ta.refused, 0);
            inlay_schema_free(s);
            ck_assert_no_leak(&ta);
            break;
        }
        ck_assert_msg(st == INLAY_ERR_NOMEM, "fail at %lu: %d %s", n, st, err);
        ck_assert_ptr_null(s);
        ck_assert_no_leak(&ta);
        failures++;
    }
    ck_assert_int_gt(failures, 5);
    pool_free();
}
END_TEST

/* ---- flat columns ----------------------------------------------------------- */

/* Integers of every width, nullable and not, with the batch at offset 3
 * and the arrays at offsets 5 and 0: validity bitmaps start mid-byte. */
START_TEST(test_flat_integers)
{
    enum { N = 11, B = 3 };
    const char *valid = "10110111011";
    const int8_t i8[N] = { -128, 0, 127, -1, 5, 6, 7, 8, 9, 10, -11 };
    const uint8_t u8[N] = { 255, 0, 1, 2, 3, 4, 5, 6, 7, 8, 200 };
    const int16_t i16[N] = { -32768, 32767, 0, 1, 2, 3, 4, 5, 6, 7, -8 };
    const uint16_t u16[N] = { 65535, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
    const int32_t i32[N] = { INT32_MIN, INT32_MAX, 0, 1, 2, 3, 4, 5, 6, 7, -8 };
    const uint32_t u32[N] = { UINT32_MAX, 0, 1, 2, 3, 4, 5, 6, 7, 8, 3000000000u };
    const int64_t i64[N] = { INT64_MIN, INT64_MAX, 0, 1, 2, 3, 4, 5, 6, 7, -8 };
    const uint64_t u64[N] = { UINT64_MAX, 0, 1, 2, 3, 4, 5, 6, 7, 8, 1ull << 63 };
    struct ArrowSchema *sch = SK(S("+s", "", 0), 8, S("c", "i8", NULLABLE), S("C", "u8", 0), S("s", "i16", 0),
                                 S("S", "u16", NULLABLE), S("i", "i32", NULLABLE), S("I", "u32", 0), S("l", "i64", NULLABLE),
                                 S("L", "u64", 0));
    struct ArrowArray *arr = batch(N, B, 8, prim(1, i8, N, valid, 5, B), prim(1, u8, N, NULL, 0, B),
                                   prim(2, i16, N, NULL, 5, B), prim(2, u16, N, valid, 0, B), prim(4, i32, N, valid, 5, B),
                                   prim(4, u32, N, NULL, 2, B), prim(8, i64, N, valid, 5, B), prim(8, u64, N, NULL, 1, B));
    arr->children[4]->null_count = -1;   /* unknown: the bitmap is read */
    file f;
    inlay_writer *w = open_arrow(&f, sch, NULL);
    APPEND_OK(w, arr, sch);
    APPEND_OK(w, arr, sch);
    ck_assert_uint_eq(inlay_writer_rows(w), 2 * N);
    finish(w, &f);
    int64_t want[8][2 * N];
    for (int r = 0; r < 2 * N; r++) {
        const int i = r % N;
        want[0][r] = i8[i], want[1][r] = u8[i], want[2][r] = i16[i], want[3][r] = u16[i];
        want[4][r] = i32[i], want[5][r] = (int32_t)u32[i], want[6][r] = i64[i], want[7][r] = (int64_t)u64[i];
    }
    static const char *const names[8] = { "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64" };
    static const bool opt[8] = { true, false, false, true, true, false, true, false };
    char valid2[2 * N + 1];
    snprintf(valid2, sizeof valid2, "%s%s", valid, valid);
    for (int c = 0; c < 8; c++) {
        decoded d;
        read_flat(&f, names[c], 0, opt[c] ? valid2 : NULL, &d);
        expect_ints(&d, want[c], opt[c] ? valid2 : NULL, 2 * N, c >= 6 ? 8 : 4);
        decoded_free(&d);
    }
    file_free(&f);
    pool_free();
}
END_TEST

START_TEST(test_flat_bool_float)
{
    enum { N = 19, B = 6 };
    const char *vals = "1101001110100011101", *valid = "1111011111110111101";
    float fl[N];
    double db[N];
    uint16_t half[N];
    for (int i = 0; i < N; i++) {
        fl[i] = (float)i * 1.5f - 3;
        db[i] = i * -0.25 + 1e300 * (i == 3);
        half[i] = inlay_float16_bits(i * 0.5);
    }
    struct ArrowSchema *sch = SK(S("+s", "", 0), 5, S("b", "flag", 0), S("b", "maybe", NULLABLE), S("f", "f", 0),
                                 S("g", "d", NULLABLE), S("e", "h", NULLABLE));
    /* offsets 3 and 0 + B: one column's bits start on a byte, the other's not */
    struct ArrowArray *arr = batch(N, B, 5, bool_col(vals, NULL, 3, B), bool_col(vals, valid, 2, B),
                                   prim(4, fl, N, NULL, 1, B), prim(8, db, N, valid, 0, B), prim(2, half, N, valid, 7, B));
    file f;
    inlay_writer *w = open_arrow(&f, sch, NULL);
    APPEND_OK(w, arr, sch);
    finish(w, &f);
    decoded d;
    read_flat(&f, "flag", 0, NULL, &d);
    ck_assert_uint_eq(d.nvalues, N);
    for (int i = 0; i < N; i++) ck_assert_int_eq(d.val[i][0], vals[i] == '1');
    decoded_free(&d);
    read_flat(&f, "maybe", 0, valid, &d);
    for (int i = 0, k = 0; i < N; i++)
        if (valid[i] == '1') ck_assert_int_eq(d.val[k++][0], vals[i] == '1');
    decoded_free(&d);
    read_flat(&f, "f", 0, NULL, &d);
    expect_fixed(&d, fl, N, 4);
    decoded_free(&d);
    read_flat(&f, "d", 0, valid, &d);
    for (int i = 0, k = 0; i < N; i++)
        if (valid[i] == '1') ck_assert(!memcmp(d.val[k++], &db[i], 8));
    decoded_free(&d);
    read_flat(&f, "h", 2, valid, &d);
    for (int i = 0, k = 0; i < N; i++)
        if (valid[i] == '1') ck_assert(!memcmp(d.val[k++], &half[i], 2));
    decoded_free(&d);
    file_free(&f);
    pool_free();
}
END_TEST

/* Strings and binaries in all three layouts, with nulls (whose slots hold
 * bytes that are not UTF-8) and the batch at an offset. */
START_TEST(test_flat_strings)
{
    enum { N = 9, B = 5 };
    const char *const vals[N] = { "alpha", "", NULL, "a value longer than twelve bytes", "é中",
                                  NULL, "twelve bytes", "thirteen byte", "z" };
    const char *valid = "110110111";
    const char *const bins[N] = { "\x01\x02", "", "\xff\xff\xff", "binary that is long enough", "b", "",
                                  "0123456789ab", "0123456789abc", "\x80" };
    struct ArrowSchema *sch = SK(S("+s", "", 0), 6, S("u", "s32", NULLABLE), S("U", "s64", NULLABLE),
                                 S("vu", "sview", NULLABLE), S("z", "b32", 0), S("Z", "b64", 0), S("vz", "bview", 0));
    struct ArrowArray *arr = batch(N, B, 6, str_col(vals, N, false, 3, B), str_col(vals, N, true, 0, B),
                                   view_col(vals, N, 2, B), str_col(bins, N, false, 1, B), str_col(bins, N, true, 9, B),
                                   view_col(bins, N, 0, B));
    file f;
    inlay_writer *w = open_arrow(&f, sch, NULL);
    APPEND_OK(w, arr, sch);
    finish(w, &f);
    static const char *const names[6] = { "s32", "s64", "sview", "b32", "b64", "bview" };
    for (int c = 0; c < 6; c++) {
        decoded d;
        read_flat(&f, names[c], 0, c < 3 ? valid : NULL, &d);
        expect_texts(&d, c < 3 ? vals : bins, N);
        decoded_free(&d);
    }
    file_free(&f);
    pool_free();
}
END_TEST

/* Fixed-size binaries, UUIDs and decimals of every width into INT32,
 * INT64 and FIXED_LEN_BYTE_ARRAY columns. */
static void put_dec(uint8_t *dst, size_t width, int64_t v)
{
    memset(dst, v < 0 ? 0xFF : 0, width);
    memcpy(dst, &v, width < 8 ? width : 8);
}

START_TEST(test_flat_fixed_decimal)
{
    enum { N = 6, B = 2 };
    const char *valid = "101111";
    uint8_t fx[N][3], id[N][16];
    for (int i = 0; i < N; i++) {
        for (int k = 0; k < 3; k++) fx[i][k] = (uint8_t)(i * 16 + k);
        for (int k = 0; k < 16; k++) id[i][k] = (uint8_t)(i + k * 7);
    }
    const int64_t v9[N] = { 999999999, -999999999, 0, 1, -1, 123456789 };
    const int64_t v18[N] = { 999999999999999999, -999999999999999999, 0, 1, -1, 42 };
    const int64_t v38[N] = { INT64_MAX, INT64_MIN, 0, -1, 12345, -98765 };
    uint8_t d9[N][16], d18[N][8], d38[N][16], d40[N][32], d7[N][4];
    for (int i = 0; i < N; i++) {
        put_dec(d9[i], 16, v9[i]);
        put_dec(d18[i], 8, v18[i]);
        put_dec(d38[i], 16, v38[i]);
        put_dec(d40[i], 32, v38[i]);
        put_dec(d7[i], 4, v9[i] % 10000000);
    }
    struct ArrowSchema *uuid = S("w:16", "id", NULLABLE);
    uuid->metadata = metadata1("ARROW:extension:name", "arrow.uuid");
    struct ArrowSchema *sch = SK(S("+s", "", 0), 7, S("w:3", "fx", 0), uuid, S("d:9,2", "d9", NULLABLE),
                                 S("d:18,4,64", "d18", 0), S("d:38,0", "d38", 0), S("d:40,3,256", "d40", NULLABLE),
                                 S("d:7,7,32", "d7", 0));
    struct ArrowArray *arr = batch(N, B, 7, prim(3, fx, N, NULL, 1, B), prim(16, id, N, valid, 3, B),
                                   prim(16, d9, N, valid, 0, B), prim(8, d18, N, NULL, 4, B), prim(16, d38, N, NULL, 1, B),
                                   prim(32, d40, N, valid, 2, B), prim(4, d7, N, NULL, 0, B));
    file f;
    inlay_writer *w = open_arrow(&f, sch, NULL);
    APPEND_OK(w, arr, sch);
    finish(w, &f);
    decoded d;
    read_flat(&f, "fx", 3, NULL, &d);
    expect_fixed(&d, fx, N, 3);
    decoded_free(&d);
    read_flat(&f, "id", 16, valid, &d);
    for (int i = 0, k = 0; i < N; i++)
        if (valid[i] == '1') ck_assert(!memcmp(d.val[k++], id[i], 16));
    decoded_free(&d);
    read_flat(&f, "d9", 0, valid, &d);
    expect_ints(&d, v9, valid, N, 4);
    decoded_free(&d);
    read_flat(&f, "d18", 0, NULL, &d);
    expect_ints(&d, v18, NULL, N, 8);
    decoded_free(&d);
    /* FIXED_LEN_BYTE_ARRAY: big-endian, 16 bytes for 38 digits, 17 for 40 */
    read_flat(&f, "d38", 16, NULL, &d);
    for (int i = 0; i < N; i++) {
        uint8_t be[16];
        for (int k = 0; k < 16; k++) be[k] = d38[i][15 - k];
        ck_assert_msg(d.len[i] == 16 && !memcmp(d.val[i], be, 16), "d38 row %d: %s", i, hex(d.val[i], d.len[i]));
    }
    decoded_free(&d);
    read_flat(&f, "d40", 17, valid, &d);
    for (int i = 0, k = 0; i < N; i++) {
        if (valid[i] != '1') continue;
        uint8_t be[17];
        for (int j = 0; j < 17; j++) be[j] = d40[i][16 - j];
        ck_assert_msg(!memcmp(d.val[k], be, 17), "d40 row %d: %s", i, hex(d.val[k], d.len[k]));
        k++;
    }
    decoded_free(&d);
    read_flat(&f, "d7", 0, NULL, &d);
    int64_t w7[N];
    for (int i = 0; i < N; i++) w7[i] = v9[i] % 10000000;
    expect_ints(&d, w7, NULL, N, 4);
    decoded_free(&d);
    file_free(&f);
    pool_free();
}
END_TEST

/* Dates, times and timestamps: as they are, or converted to the column's
 * unit (schema_from_arrow's, and a writer schema made by hand). */
START_TEST(test_flat_times)
{
    enum { N = 5, B = 1 };
    const char *valid = "11011";
    const int32_t days[N] = { 0, -1, 19000, 0, 1 };
    const int64_t ms[N] = { 0, -1, 86400000, 123, -86400001 };
    const int32_t secs[N] = { 0, 1, 86399, 7, 12 };
    const int32_t msday[N] = { 0, 1, 86399999, 7, 12 };
    const int64_t us[N] = { 0, 1, 86399999999, 1500, 3 };
    const int64_t ts[N] = { 0, -1, 1704067200, 1, -1704067200 };
    struct ArrowSchema *sch = SK(S("+s", "", 0), 8, S("tdD", "d32", 0), S("tdm", "d64", NULLABLE), S("tts", "t_s", 0),
                                 S("ttm", "t_ms", 0), S("ttu", "t_us", NULLABLE), S("ttn", "t_ns", 0), S("tss:", "ts_s", NULLABLE),
                                 S("tsu:UTC", "ts_us", 0));
    struct ArrowArray *arr = batch(N, B, 8, prim(4, days, N, NULL, 2, B), prim(8, ms, N, valid, 3, B),
                                   prim(4, secs, N, NULL, 0, B), prim(4, msday, N, NULL, 1, B), prim(8, us, N, valid, 0, B),
                                   prim(8, us, N, NULL, 5, B), prim(8, ts, N, valid, 1, B), prim(8, ts, N, NULL, 0, B));
    file f;
    inlay_writer *w = open_arrow(&f, sch, NULL);
    APPEND_OK(w, arr, sch);
    finish(w, &f);
    decoded d;
    int64_t want[N];
    for (int i = 0; i < N; i++) want[i] = days[i];
    read_flat(&f, "d32", 0, NULL, &d);
    expect_ints(&d, want, NULL, N, 4);
    decoded_free(&d);
    const int64_t want_d64[N] = { 0, -1, 1, 0, -2 };   /* floor */
    read_flat(&f, "d64", 0, valid, &d);
    expect_ints(&d, want_d64, valid, N, 4);
    decoded_free(&d);
    for (int i = 0; i < N; i++) want[i] = secs[i] * 1000LL;
    read_flat(&f, "t_s", 0, NULL, &d);
    expect_ints(&d, want, NULL, N, 4);
    decoded_free(&d);
    for (int i = 0; i < N; i++) want[i] = msday[i];
    read_flat(&f, "t_ms", 0, NULL, &d);
    expect_ints(&d, want, NULL, N, 4);
    decoded_free(&d);
    read_flat(&f, "t_us", 0, valid, &d);
    expect_ints(&d, us, valid, N, 8);
    decoded_free(&d);
    read_flat(&f, "t_ns", 0, NULL, &d);
    expect_ints(&d, us, NULL, N, 8);
    decoded_free(&d);
    for (int i = 0; i < N; i++) want[i] = ts[i] * 1000;
    read_flat(&f, "ts_s", 0, valid, &d);
    expect_ints(&d, want, valid, N, 8);
    decoded_free(&d);
    read_flat(&f, "ts_us", 0, NULL, &d);
    expect_ints(&d, ts, NULL, N, 8);
    decoded_free(&d);
    file_free(&f);

    /* a writer whose units differ from the batch's: us -> ms floors, s -> ns
     * multiplies, time(us) -> time(ms) floors, date64 of a timestamp column
     * does not map */
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "a", INLAY_REQUIRED, inlay_type_timestamp(INLAY_MILLIS, true), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "b", INLAY_OPTIONAL, inlay_type_timestamp(INLAY_NANOS, false), NULL), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "c", INLAY_REQUIRED, inlay_type_time(INLAY_MILLIS, true), NULL), 0);
    inlay_buffer_init(&f.out, NULL);
    inlay_options o;
    inlay_options_init(&o);
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&f.out), s, &o), INLAY_OK);
    inlay_schema_free(s);
    const int64_t a_us[N] = { 1500, -1, 999, -1000, -1001 };
    struct ArrowSchema *sch2 = SK(S("+s", "", 0), 3, S("tsu:UTC", "a", 0), S("tss:", "b", NULLABLE), S("ttu", "c", 0));
    struct ArrowArray *arr2 = batch(N, 0, 3, prim(8, a_us, N, NULL, 3, 0), prim(8, ts, N, valid, 0, 0),
                                    prim(8, us, N, NULL, 0, 0));
    APPEND_OK(w, arr2, sch2);
    /* a timestamp without a zone does not go into a UTC column */
    struct ArrowSchema *sch3 = SK(S("+s", "", 0), 3, S("tsu:", "a", 0), S("tss:", "b", NULLABLE), S("ttu", "c", 0));
    ck_assert_int_eq(inlay_writer_append_arrow(w, arr2, sch3), INLAY_ERR_SCHEMA);
    ck_assert_msg(strstr(inlay_writer_errmsg(w), "field 'a': Arrow format \"tsu:\" (timestamp(us) from us) does not map "
                                                 "onto the writer's timestamp(ms, utc)"), "%s", inlay_writer_errmsg(w));
    /* seconds past what nanoseconds hold */
    const int64_t big[N] = { 0, 0, 0, 0, INT64_MAX / 1000 };
    struct ArrowArray *arr4 = batch(N, 0, 3, prim(8, a_us, N, NULL, 3, 0), prim(8, big, N, valid, 0, 0),
                                    prim(8, us, N, NULL, 0, 0));
    ck_assert_int_eq(inlay_writer_append_arrow(w, arr4, sch2), INLAY_ERR_VALUE);
    ck_assert_msg(strstr(inlay_writer_errmsg(w), "column 'b' row 9: 9223372036854775 s does not fit timestamp(ns)"), "%s",
                  inlay_writer_errmsg(w));
    finish(w, &f);
    const int64_t want_a[N] = { 1, -1, 0, -1, -2 };
    read_flat(&f, "a", 0, NULL, &d);
    expect_ints(&d, want_a, NULL, N, 8);
    decoded_free(&d);
    for (int i = 0; i < N; i++) want[i] = ts[i] * 1000000000;
    read_flat(&f, "b", 0, valid, &d);
    expect_ints(&d, want, valid, N, 8);
    decoded_free(&d);
    for (int i = 0; i < N; i++) want[i] = us[i] / 1000;
    read_flat(&f, "c", 0, NULL, &d);
    expect_ints(&d, want, NULL, N, 4);
    decoded_free(&d);
    file_free(&f);
    pool_free();
}
END_TEST

/* Dictionary-encoded columns: indices of every integer width, nulls in the
 * indices and in the dictionary, dictionaries at an offset, values that are
 * converted (timestamps in seconds, decimals) looked up per row. */
START_TEST(test_flat_dictionary)
{
    enum { N = 8, B = 3 };
    const char *const dict_vals[] = { "zero", NULL, "two", "three, a longer one" };
    /* dictionary at offset 2: its entries are dict_vals */
    struct ArrowArray *dict = str_col(dict_vals, 4, false, 0, 2);   /* entries 2.. */
    struct ArrowArray *dsl = A(4, dict->null_count, 2, 3, dict->buffers[0], dict->buffers[1], dict->buffers[2]);
    const int8_t idx8[N] = { 0, 2, 3, 1, 0, 99, 3, 2 };   /* 99 under a null */
    const char *ivalid = "11111011";
    const uint16_t idx16[N] = { 3, 3, 0, 0, 2, 2, 3, 0 };
    const int64_t idx64[N] = { 1, 0, 1, 0, 1, 0, 1, 0 };
    const int32_t idx32[N] = { 2, 0, 1, 2, 0, 1, 2, 0 };
    const int64_t secs[3] = { 10, -1, 1704067200 };
    uint8_t decs[3][16];
    put_dec(decs[0], 16, 12345);
    put_dec(decs[1], 16, -5);
    put_dec(decs[2], 16, 0);
    struct ArrowSchema *s8 = S("c", "s8", NULLABLE);
    s8->dictionary = S("u", NULL, NULLABLE);
    struct ArrowSchema *s16 = S("S", "s16", 0);
    s16->dictionary = S("u", NULL, 0);
    struct ArrowSchema *t64 = S("l", "t64", 0);
    t64->dictionary = S("tss:UTC", NULL, 0);
    struct ArrowSchema *d32 = S("i", "d32", 0);
    d32->dictionary = S("d:7,2", NULL, 0);
    /* nulls in the indices only, junk indices under them */
    const int8_t jidx[N] = { 2, 1, 120, 0, 1, 2, 1, 0 };
    const char *jvalid = "11011111";
    struct ArrowSchema *j8 = S("c", "j8", NULLABLE);
    j8->dictionary = S("tss:UTC", NULL, 0);
    struct ArrowSchema *sch = SK(S("+s", "", 0), 5, s8, s16, t64, d32, j8);
    struct ArrowArray *a8 = prim(1, idx8, N, ivalid, 4, B);
    a8->dictionary = dsl;
    struct ArrowArray *a16 = prim(2, idx16, N, NULL, 0, B);
    a16->dictionary = dsl;
    struct ArrowArray *a64 = prim(8, idx64, N, NULL, 1, B);
    a64->dictionary = prim(8, secs, 3, NULL, 0, 0);
    struct ArrowArray *a32 = prim(4, idx32, N, NULL, 2, B);
    a32->dictionary = prim(16, decs, 3, NULL, 1, 0);
    struct ArrowArray *aj = prim(1, jidx, N, jvalid, 0, B);
    aj->dictionary = a64->dictionary;
    struct ArrowArray *arr = batch(N, B, 5, a8, a16, a64, a32, aj);
    file f;
    inlay_writer *w = open_arrow(&f, sch, NULL);
    APPEND_OK(w, arr, sch);
    /* s16 is required: a row pointing at the dictionary's null fails */
    const uint16_t bad16[N] = { 3, 3, 0, 0, 1, 2, 3, 0 };
    struct ArrowArray *b16 = prim(2, bad16, N, NULL, 0, B);
    b16->dictionary = dsl;
    struct ArrowArray *bad = batch(N, B, 5, a8, b16, a64, a32, aj);
    ck_assert_int_eq(inlay_writer_append_arrow(w, bad, sch), INLAY_ERR_NULL);
    ck_assert_msg(strstr(inlay_writer_errmsg(w), "column 's16' row 12: null in a required column"), "%s",
                  inlay_writer_errmsg(w));
    /* an index past the dictionary */
    const int32_t far[N] = { 2, 0, 1, 2, 0, 3, 2, 0 };
    struct ArrowArray *af = prim(4, far, N, NULL, 2, B);
    af->dictionary = a32->dictionary;
    ck_assert_int_eq(inlay_writer_append_arrow(w, batch(N, B, 5, a8, a16, a64, af, aj), sch), INLAY_ERR_ARGUMENT);
    ck_assert_msg(strstr(inlay_writer_errmsg(w), "column 'd32' row 13: dictionary index 3, the dictionary has 3 entries"),
                  "%s", inlay_writer_errmsg(w));
    finish(w, &f);
    decoded d;
    /* s8: rows 1..: idx 0 2 3 1(null entry) 0 null 3 2 */
    const char *v8valid = "11101011";
    read_flat(&f, "s8", 0, v8valid, &d);
    const char *const want8[N] = { "zero", "two", "three, a longer one", NULL, "zero", NULL, "three, a longer one", "two" };
    expect_texts(&d, want8, N);
    decoded_free(&d);
    read_flat(&f, "s16", 0, NULL, &d);
    const char *const want16[N] = { "three, a longer one", "three, a longer one", "zero", "zero", "two", "two",
                                    "three, a longer one", "zero" };
    expect_texts(&d, want16, N);
    decoded_free(&d);
    int64_t want[N];
    for (int i = 0; i < N; i++) want[i] = secs[idx64[i]] * 1000;
    read_flat(&f, "t64", 0, NULL, &d);
    expect_ints(&d, want, NULL, N, 8);
    decoded_free(&d);
    const int64_t dv[3] = { 12345, -5, 0 };
    for (int i = 0; i < N; i++) want[i] = dv[idx32[i]];
    read_flat(&f, "d32", 0, NULL, &d);
    expect_ints(&d, want, NULL, N, 4);
    decoded_free(&d);
    for (int i = 0; i < N; i++) want[i] = jvalid[i] == '1' ? secs[jidx[i]] * 1000 : 0;
    read_flat(&f, "j8", 0, jvalid, &d);
    expect_ints(&d, want, jvalid, N, 8);
    decoded_free(&d);
    file_free(&f);
    pool_free();
}
END_TEST

/* ---- nested fields ------------------------------------------------------------ */

/* list<int64 nullable> nullable, the batch at offset 2, the list at offset
 * 1 with offsets that do not start at 0, its child at offset 3: the levels
 * and values read back. The same with 64-bit offsets (+L). */
START_TEST(test_nested_list_levels)
{
    /* rows [1, 2], [], null, [null, 4], [5]: list entries 1 (its offset) + 2
     * (the batch's) + i; the offsets index child entries 1.. (the null row
     * spans two junk entries), the child at offset 3 */
    const int32_t o32[] = { 0, 0, 0, 1, 3, 3, 5, 7, 8 };
    const int64_t o64[] = { 0, 0, 0, 1, 3, 3, 5, 7, 8 };
    const uint8_t *lvalid = bits("111 11011");
    int64_t vals[3 + 8];
    for (int i = 0; i < 11; i++) vals[i] = -100 - i;
    /* child entry k is slot 3 + k */
    vals[3 + 1] = 1, vals[3 + 2] = 2, vals[3 + 3] = 77, vals[3 + 4] = 78, vals[3 + 5] = 0, vals[3 + 6] = 4, vals[3 + 7] = 5;
    const uint8_t *cvalid = bits("111 11111 01 1");   /* child entry 5 (slot 8) null */
    struct ArrowArray *child = A(8, 1, 3, 2, cvalid, vals);
    struct ArrowArray *l32 = AK(A(7, 1, 1, 2, lvalid, o32), 1, child);
    struct ArrowArray *l64 = AK(A(7, 1, 1, 2, lvalid, o64), 1, child);
    struct ArrowSchema *sch = SK(S("+s", "", 0), 2, SK(S("+l", "a", NULLABLE), 1, S("l", "item", NULLABLE)),
                                 SK(S("+L", "b", NULLABLE), 1, S("l", "element", NULLABLE)));
    struct ArrowArray *arr = batch(5, 2, 2, l32, l64);
    file f;
    inlay_writer *w = open_arrow(&f, sch, NULL);
    APPEND_OK(w, arr, sch);
    finish(w, &f);
    const int16_t want_def[] = { 3, 3, 1, 0, 2, 3, 3 };
    const int16_t want_rep[] = { 0, 1, 0, 0, 0, 1, 0 };
    const int64_t want_vals[] = { 1, 2, 4, 5 };
    static const char *const paths[2] = { "a.list.element", "b.list.element" };
    for (int c = 0; c < 2; c++) {
        decoded d;
        memset(&d, 0, sizeof d);
        decode_column(&f, paths[c], 0, 3, 1, &d);
        ck_assert_uint_eq(d.nlevels, 7);
        for (int i = 0; i < 7; i++)
            ck_assert_msg(d.def[i] == want_def[i] && d.rep[i] == want_rep[i], "%s level %d: (r %d, d %d)", paths[c], i,
                          d.rep[i], d.def[i]);
        expect_fixed(&d, want_vals, 4, 8);
        decoded_free(&d);
    }
    file_free(&f);
    pool_free();
}
END_TEST

/* The same rows through append_arrow (Arrow arrays at offsets, a struct
 * whose own offset applies to its children, a map whose entries start
 * inside their child) and through append_array (the same data laid out
 * from 0): the files are identical. */
START_TEST(test_nested_same_as_append_array)
{
    enum { N = 6 };
    /* struct pos { x double, tag utf8 nullable } nullable: rows 0..5, row 2 null */
    const double xs[2 + N] = { 9, 9, 1.5, 2.5, 99, 4.5, 5.5, 6.5 };
    const char *const tags[N] = { "a", NULL, "junk", "dd", "eee", "f" };
    const char *pvalid = "110111", *tvalid = "101111";
    /* Arrow: batch offset 1; struct offset 1 (so children index 2 + i); x at offset 0, tags at offset 2 - 2 */
    struct ArrowArray *ax = A(2 + N, 0, 0, 2, NULL, xs);
    const char *const tag_rows[2 + N] = { "q", "q", "a", NULL, "junk", "dd", "eee", "f" };
    struct ArrowArray *at = str_col(tag_rows, 2 + N, false, 0, 0);
    at->null_count = 1;
    struct ArrowArray *pos = AK(A(N + 1, 1, 1, 1, bits("11 110111")), 2, ax, at);
    /* map<utf8, int32 nullable> required: row sizes 2, 0, 1, 3, 0, 1 */
    const int32_t moff[] = { 5, 5, 7, 7, 8, 11, 11, 12 };   /* entry 0 is junk before the batch */
    const char *const keys[12] = { "x", "x", "x", "x", "x", "k1", "k2", "k3", "k4", "k5", "k6", "k7" };
    int32_t mv[12];
    for (int i = 0; i < 12; i++) mv[i] = i * 10;
    const uint8_t *mvvalid = bits("11111 0111011");
    struct ArrowArray *keys_a = str_col(keys, 12, false, 0, 0);
    struct ArrowArray *vals_a = A(12, 2, 0, 2, mvvalid, mv);
    struct ArrowArray *entries = AK(A(12, 0, 0, 1, NULL), 2, keys_a, vals_a);
    struct ArrowArray *map = AK(A(N + 1, 0, 0, 2, NULL, moff), 1, entries);
    struct ArrowSchema *sch = SK(S("+s", "", 0), 2,
        SK(S("+s", "pos", NULLABLE), 2, S("g", "x", 0), S("u", "tag", NULLABLE)),
        SK(S("+m", "attrs", 0), 1, SK(S("+s", "entries", 0), 2, S("u", "key", 0), S("i", "value", NULLABLE))));
    struct ArrowArray *arr = batch(N, 1, 2, pos, map);
    file f1, f2;
    inlay_options o;
    inlay_options_init(&o);
    o.page_rows = 2;
    o.compression = INLAY_UNCOMPRESSED;
    inlay_writer *w = open_arrow(&f1, sch, &o);
    APPEND_OK(w, arr, sch);
    APPEND_OK(w, arr, sch);
    finish(w, &f1);
    /* the same through append_array, laid out from 0 */
    inlay_writer *w2 = open_arrow(&f2, sch, &o);
    inlay_bytes tb[N];
    for (int i = 0; i < N; i++) tb[i] = (inlay_bytes){ tags[i] ? tags[i] : "", tags[i] ? strlen(tags[i]) : 0 };
    const inlay_array pos_kids[2] = { { .length = N, .values = xs + 2 }, { .length = N, .values = tb, .validity = bits(tvalid) } };
    const inlay_array pos_a = { .length = N, .validity = bits(pvalid), .children = pos_kids };
    const int32_t off0[] = { 0, 2, 2, 3, 6, 6, 7 };
    inlay_bytes kb[7];
    for (int i = 0; i < 7; i++) kb[i] = (inlay_bytes){ keys[5 + i], strlen(keys[5 + i]) };
    const inlay_array map_kids[2] = { { .length = 7, .values = kb }, { .length = 7, .values = mv + 5, .validity = bits("0111011") } };
    const inlay_array map_a = { .length = N, .offsets = off0, .children = map_kids };
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(inlay_writer_append_array(w2, 0, &pos_a, N), INLAY_OK);
        ck_assert_int_eq(inlay_writer_append_array(w2, 1, &map_a, N), INLAY_OK);
    }
    finish(w2, &f2);
    ck_assert_bytes(f1.out.data, f1.out.len, f2.out.data, f2.out.len);
    /* and a spot check of what is in it */
    decoded d;
    memset(&d, 0, sizeof d);
    decode_column(&f1, "attrs.key_value.value", 0, 2, 1, &d);
    ck_assert_uint_eq(d.nlevels, 2 * 9);
    decoded_free(&d);
    file_free(&f1);
    file_free(&f2);
    pool_free();
}
END_TEST

/* list<struct<a double, b list<utf8 (dictionary-encoded)>>>, with a
 * flat column beside it; read back leaf by leaf. */
START_TEST(test_nested_deep)
{
    /* rows: [ {a 1, b [x, y]}, null, {a 2, b []} ], [], [ {a 3, b null} ] */
    const int32_t hoff[] = { 0, 3, 3, 4 };
    const double av[] = { 1, 0, 2, 3 };
    const int32_t boff[] = { 0, 2, 2, 2, 2 };
    const int8_t bidx[] = { 1, 0 };
    const char *const bdict[] = { "y", "x" };
    struct ArrowArray *bel = A(2, 0, 0, 2, NULL, bidx);
    bel->dictionary = str_col(bdict, 2, false, 0, 0);
    struct ArrowArray *bl = AK(A(4, 1, 0, 2, bits("1110"), boff), 1, bel);
    struct ArrowArray *el = AK(A(4, 1, 0, 1, bits("1011")), 2, A(4, 0, 0, 2, NULL, av), bl);
    struct ArrowArray *hits = AK(A(3, 0, 0, 2, NULL, hoff), 1, el);
    const int64_t ids[] = { 7, 8, 9 };
    struct ArrowSchema *bsch = S("c", "item", 0);
    bsch->dictionary = S("u", NULL, 0);
    struct ArrowSchema *sch = SK(S("+s", "", 0), 2, S("l", "id", 0),
        SK(S("+l", "hits", 0), 1, SK(S("+s", "item", NULLABLE), 2, S("g", "a", 0), SK(S("+l", "b", NULLABLE), 1, bsch))));
    file f;
    inlay_writer *w = open_arrow(&f, sch, NULL);
    APPEND_OK(w, batch(3, 0, 2, A(3, 0, 0, 2, NULL, ids), hits), sch);
    finish(w, &f);
    decoded d;
    memset(&d, 0, sizeof d);
    /* hits (req) 0, list (rep) 1, element (opt) 2, a (req) 2 */
    decode_column(&f, "hits.list.element.a", 0, 2, 1, &d);
    const int16_t adef[] = { 2, 1, 2, 0, 2 }, arep[] = { 0, 1, 1, 0, 0 };
    ck_assert_uint_eq(d.nlevels, 5);
    for (int i = 0; i < 5; i++) ck_assert(d.def[i] == adef[i] && d.rep[i] == arep[i]);
    const double awant[] = { 1, 2, 3 };
    expect_fixed(&d, awant, 3, 8);
    decoded_free(&d);
    memset(&d, 0, sizeof d);
    /* ... b (opt) 3, list (rep) 4, element (req) 4 */
    decode_column(&f, "hits.list.element.b.list.element", 0, 4, 2, &d);
    const int16_t bdef[] = { 4, 4, 1, 3, 0, 2 }, brep[] = { 0, 2, 1, 1, 0, 0 };
    ck_assert_uint_eq(d.nlevels, 6);
    for (int i = 0; i < 6; i++)
        ck_assert_msg(d.def[i] == bdef[i] && d.rep[i] == brep[i], "level %d: (r %d, d %d)", i, d.rep[i], d.def[i]);
    const char *const bwant[] = { "x", "y" };
    expect_texts(&d, bwant, 2);
    decoded_free(&d);
    file_free(&f);
    pool_free();
}
END_TEST

/* ---- bad batches ---------------------------------------------------------------- */

/* The good batch of the error cases: id int64, name utf8 nullable, tags
 * list<int32>, score double. */
typedef struct good {
    struct ArrowSchema *sch;
    struct ArrowArray *arr;
    int64_t ids[4];
    const char *names[4];
    int32_t toff[5];
    int32_t tv[5];
    double score[4];
} good;

static void make_good(good *g)
{
    const int64_t ids[4] = { 1, 2, 3, 4 };
    memcpy(g->ids, ids, sizeof ids);
    g->names[0] = "one", g->names[1] = NULL, g->names[2] = "three", g->names[3] = "four";
    const int32_t toff[5] = { 0, 2, 2, 3, 5 }, tv[5] = { 1, 2, 3, 4, 5 };
    memcpy(g->toff, toff, sizeof toff);
    memcpy(g->tv, tv, sizeof tv);
    for (int i = 0; i < 4; i++) g->score[i] = i / 4.0;
    g->sch = SK(S("+s", "", 0), 4, S("l", "id", 0), S("u", "name", NULLABLE),
                SK(S("+l", "tags", NULLABLE), 1, S("i", "item", 0)), S("g", "score", 0));
    g->arr = batch(4, 0, 4, A(4, 0, 0, 2, NULL, g->ids), str_col(g->names, 4, false, 0, 0),
                   AK(A(4, 0, 0, 2, NULL, g->toff), 1, A(5, 0, 0, 2, NULL, g->tv)), A(4, 0, 0, 2, NULL, g->score));
}

/* A deep copy of the good batch's arrays (and schema), to break one part. */
static struct ArrowArray *copy_array(const struct ArrowArray *a)
{
    if (!a) return NULL;
    struct ArrowArray *c = dup_bytes(a, sizeof *a);
    c->buffers = dup_bytes(a->buffers, (size_t)(a->n_buffers ? a->n_buffers : 1) * sizeof *a->buffers);
    if (a->n_children) {
        c->children = P((size_t)a->n_children * sizeof *c->children);
        for (int64_t k = 0; k < a->n_children; k++) c->children[k] = copy_array(a->children[k]);
    }
    c->dictionary = copy_array(a->dictionary);
    return c;
}

static struct ArrowSchema *copy_schema(const struct ArrowSchema *s)
{
    if (!s) return NULL;
    struct ArrowSchema *c = dup_bytes(s, sizeof *s);
    if (s->n_children > 0 && s->children) {
        c->children = P((size_t)s->n_children * sizeof *c->children);
        for (int64_t k = 0; k < s->n_children; k++) c->children[k] = copy_schema(s->children[k]);
    }
    c->dictionary = copy_schema(s->dictionary);
    return c;
}

/* File A: good, the bad batch (rejected with `status` and a message
 * holding `msg`), good; file B: good, good. They must be identical. */
static void rejected(const good *g, const struct ArrowArray *arr, const struct ArrowSchema *sch, int status,
                     const char *msg)
{
    file fa, fb;
    inlay_writer *w = open_arrow(&fa, g->sch, NULL);
    APPEND_OK(w, g->arr, g->sch);
    int st = inlay_writer_append_arrow(w, arr, sch);
    ck_assert_msg(st == status, "status %d, want %d: %s", st, status, inlay_writer_errmsg(w));
    ck_assert_msg(strstr(inlay_writer_errmsg(w), msg), "message '%s' lacks '%s'", inlay_writer_errmsg(w), msg);
    ck_assert_uint_eq(inlay_writer_rows(w), 4);
    APPEND_OK(w, g->arr, g->sch);
    finish(w, &fa);
    inlay_writer *w2 = open_arrow(&fb, g->sch, NULL);
    APPEND_OK(w2, g->arr, g->sch);
    APPEND_OK(w2, g->arr, g->sch);
    finish(w2, &fb);
    ck_assert_bytes(fa.out.data, fa.out.len, fb.out.data, fb.out.len);
    file_free(&fa);
    file_free(&fb);
}

START_TEST(test_bad_schemas)
{
    good g;
    make_good(&g);
    struct ArrowSchema *s;
    /* an unsupported format in a batch */
    s = copy_schema(g.sch);
    s->children[3] = S("tDs", "score", 0);
    rejected(&g, g.arr, s, INLAY_ERR_SCHEMA, "field 'score': Arrow format \"tDs\" (duration) is not supported");
    s->children[3] = S("tiD", "score", 0);
    rejected(&g, g.arr, s, INLAY_ERR_SCHEMA, "field 'score': Arrow format \"tiD\" (interval) is not supported");
    s->children[3] = SK(S("+w:2", "score", 0), 1, S("g", "item", 0));
    rejected(&g, g.arr, s, INLAY_ERR_SCHEMA, "field 'score': Arrow format \"+w:2\" (fixed-size list) is not supported");
    s->children[3] = SK(S("+us:0,1", "score", 0), 2, S("g", "a", 0), S("g", "b", 0));
    rejected(&g, g.arr, s, INLAY_ERR_SCHEMA, "(union) is not supported");
    s->children[3] = S("n", "score", 0);
    rejected(&g, g.arr, s, INLAY_ERR_SCHEMA, "field 'score': Arrow format \"n\" (null) is not supported");
    /* a type that does not map onto the column */
    s->children[3] = S("f", "score", 0);
    rejected(&g, g.arr, s, INLAY_ERR_SCHEMA, "field 'score': Arrow format \"f\" (float) does not map onto the writer's double");
    s = copy_schema(g.sch);
    s->children[2]->children[0] = S("l", "item", 0);
    rejected(&g, g.arr, s, INLAY_ERR_SCHEMA, "field 'tags.item': Arrow format \"l\" (int64) does not map onto the writer's int32");
    s = copy_schema(g.sch);
    s->children[2] = SK(S("+s", "tags", 0), 1, S("i", "item", 0));
    rejected(&g, g.arr, s, INLAY_ERR_SCHEMA, "field 'tags': Arrow format \"+s\" (struct) does not map onto the writer's list");
    /* names and counts */
    s = copy_schema(g.sch);
    s->children[1] = S("u", "label", NULLABLE);
    rejected(&g, g.arr, s, INLAY_ERR_SCHEMA, "field 1 is 'label' in the batch but 'name' in the writer's schema");
    s = copy_schema(g.sch);
    s->n_children = 3;
    rejected(&g, g.arr, s, INLAY_ERR_SCHEMA, "3 fields in the batch, 4 in the writer's schema");
    s = copy_schema(g.sch);
    s->format = "+m";
    rejected(&g, g.arr, s, INLAY_ERR_ARGUMENT, "a record batch is a struct");
    s = copy_schema(g.sch);
    s->children[0]->format = NULL;
    rejected(&g, g.arr, s, INLAY_ERR_ARGUMENT, "field 'id': no format");
    pool_free();
}
END_TEST

START_TEST(test_bad_arrays)
{
    good g;
    make_good(&g);
    struct ArrowArray *a;
    /* n_buffers */
    a = copy_array(g.arr);
    a->children[0]->n_buffers = 3;
    rejected(&g, a, g.sch, INLAY_ERR_ARGUMENT, "field 'id': the array has 3 buffers, format \"l\" has 2");
    a = copy_array(g.arr);
    a->children[1]->n_buffers = 2;
    rejected(&g, a, g.sch, INLAY_ERR_ARGUMENT, "field 'name': the array has 2 buffers, format \"u\" has 3");
    a = copy_array(g.arr);
    a->n_buffers = 0;
    rejected(&g, a, g.sch, INLAY_ERR_ARGUMENT, "the array has 0 buffers, format \"+s\" has 1");
    /* a NULL child, missing children */
    a = copy_array(g.arr);
    a->children[2]->children[0] = NULL;
    rejected(&g, a, g.sch, INLAY_ERR_ARGUMENT, "field 'tags': child array 0 is NULL");
    a = copy_array(g.arr);
    a->children[3] = NULL;
    rejected(&g, a, g.sch, INLAY_ERR_ARGUMENT, "child array 3 is NULL");
    a = copy_array(g.arr);
    a->n_children = 3;
    rejected(&g, a, g.sch, INLAY_ERR_ARGUMENT, "the array has 3 children, format \"+s\" has 4");
    /* NULL buffers */
    a = copy_array(g.arr);
    a->children[3]->buffers[1] = NULL;
    rejected(&g, a, g.sch, INLAY_ERR_ARGUMENT, "field 'score': no data buffer");
    a = copy_array(g.arr);
    a->children[2]->buffers[1] = NULL;
    rejected(&g, a, g.sch, INLAY_ERR_ARGUMENT, "field 'tags': no offsets buffer");
    a = copy_array(g.arr);
    a->children[1]->buffers[0] = NULL;
    rejected(&g, a, g.sch, INLAY_ERR_ARGUMENT, "field 'name': null_count 1 without a validity buffer");
    /* offsets */
    int32_t back[5] = { 0, 2, 1, 3, 5 };
    a = copy_array(g.arr);
    a->children[2]->buffers[1] = back;
    rejected(&g, a, g.sch, INLAY_ERR_ARGUMENT, "field 'tags': offsets go back at entry 1 (2, then 1)");
    int32_t past[5] = { 0, 2, 2, 3, 6 };
    a = copy_array(g.arr);
    a->children[2]->buffers[1] = past;
    rejected(&g, a, g.sch, INLAY_ERR_ARGUMENT, "field 'tags': offsets reach entry 6 of a child array of 5 entries");
    int32_t sback[5] = { 0, 3, 3, 2, 11 };
    a = copy_array(g.arr);
    a->children[1]->buffers[1] = sback;
    rejected(&g, a, g.sch, INLAY_ERR_ARGUMENT, "column 'name' row 6: offsets go back (3, then 2)");
    /* lengths */
    a = copy_array(g.arr);
    a->children[3]->length = 3;
    rejected(&g, a, g.sch, INLAY_ERR_ARGUMENT, "field 'score': the array has 3 entries, 4 are needed");
    a = copy_array(g.arr);
    a->offset = 1;
    rejected(&g, a, g.sch, INLAY_ERR_ARGUMENT, "field 'id': the array has 4 entries, 5 are needed");
    /* a struct with nulls */
    a = copy_array(g.arr);
    a->buffers[0] = bits("1101");
    a->null_count = 1;
    rejected(&g, a, g.sch, INLAY_ERR_ARGUMENT, "row 2 is null: a record batch's struct has no nulls");
    /* a dictionary where the format has none */
    a = copy_array(g.arr);
    a->children[0]->dictionary = A(1, 0, 0, 2, NULL, g.ids);
    rejected(&g, a, g.sch, INLAY_ERR_ARGUMENT, "field 'id': a dictionary where the format has none");
    /* values: a null in a required column, a null element of a required list item */
    a = copy_array(g.arr);
    a->children[0]->buffers[0] = bits("1110");
    a->children[0]->null_count = 1;
    rejected(&g, a, g.sch, INLAY_ERR_NULL, "column 'id' row 7: null in a required column");
    a = copy_array(g.arr);
    a->children[2]->children[0]->buffers[0] = bits("11011");
    a->children[2]->children[0]->null_count = 1;
    /* the element of row 2 of the batch: row 6 of the file, counted as the flat columns' are */
    rejected(&g, a, g.sch, INLAY_ERR_NULL, "field 'tags.list.element' row 6: null in the required 'element'");
    /* invalid UTF-8 in a value (not in a null's junk) */
    const char *const badtext[4] = { "one", NULL, "thr\xc3", "four" };
    a = copy_array(g.arr);
    a->children[1] = str_col(badtext, 4, false, 0, 0);
    rejected(&g, a, g.sch, INLAY_ERR_VALUE, "column 'name' row 6: invalid UTF-8 in a text column");
    /* a value that starts inside a character */
    const char *const split[4] = { "\xc3", "\xa9", "three", "four" };
    a = copy_array(g.arr);
    a->children[1] = str_col(split, 4, false, 0, 0);
    rejected(&g, a, g.sch, INLAY_ERR_VALUE, "column 'name' row 4: invalid UTF-8");
    pool_free();
}
END_TEST

/* Value errors of the conversions, each naming the column and row. */
START_TEST(test_bad_values)
{
    enum { N = 3 };
    uint8_t dec[N][16];
    put_dec(dec[0], 16, 99999);
    put_dec(dec[1], 16, -100000);   /* 6 digits in a decimal(5,2) */
    put_dec(dec[2], 16, 0);
    uint8_t wide[N][16];
    put_dec(wide[0], 16, 1);
    memset(wide[1], 0, 16);
    wide[1][9] = 1;                 /* 2^72: past INT64 */
    put_dec(wide[2], 16, 0);
    uint8_t views[N][16];
    memset(views, 0, sizeof views);
    const int32_t len = 20, idx = 0, off = 10;
    memcpy(views[1], &len, 4);
    memcpy(views[1] + 8, &idx, 4);
    memcpy(views[1] + 12, &off, 4);   /* bytes 10..30 of a 16-byte buffer */
    char vdata[16] = "0123456789abcdef";
    int64_t vsize = 16;
    struct ArrowSchema *sch = SK(S("+s", "", 0), 1, S("d:5,2", "d", NULLABLE));
    struct ArrowSchema *sch64 = SK(S("+s", "", 0), 1, S("d:15,2", "d", 0));
    struct ArrowSchema *vsch = SK(S("+s", "", 0), 1, S("vz", "v", 0));
    file f;
    inlay_writer *w = open_arrow(&f, sch, NULL);
    ck_assert_int_eq(inlay_writer_append_arrow(w, batch(N, 0, 1, prim(16, dec, N, NULL, 0, 0)), sch), INLAY_ERR_VALUE);
    ck_assert_msg(strstr(inlay_writer_errmsg(w), "column 'd' row 1: unscaled decimal out of range -99999..99999, got -100000"),
                  "%s", inlay_writer_errmsg(w));
    /* the same value under a null is fine */
    APPEND_OK(w, batch(N, 0, 1, prim(16, dec, N, "101", 0, 0)), sch);
    finish(w, &f);
    file_free(&f);
    w = open_arrow(&f, sch64, NULL);
    ck_assert_int_eq(inlay_writer_append_arrow(w, batch(N, 0, 1, prim(16, wide, N, NULL, 0, 0)), sch64), INLAY_ERR_VALUE);
    ck_assert_msg(strstr(inlay_writer_errmsg(w), "column 'd' row 1: unscaled decimal does not fit INT64"), "%s",
                  inlay_writer_errmsg(w));
    finish(w, &f);
    file_free(&f);
    /* decimal(40, 0) in 17 bytes: 10^40 - 1 fits, 10^40 does not */
    uint8_t d40[2][32];
    memset(d40, 0, sizeof d40);
    static const uint8_t p40m1[17] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0x60, 0xf5, 0xb9, 0xab,
                                       0xbf, 0xa4, 0x5c, 0xc3, 0xf1, 0x29, 0x63, 0x1d };
    static const uint8_t p40[17] = { 0x00, 0x00, 0x00, 0x00, 0x00, 0x61, 0xf5, 0xb9, 0xab,
                                     0xbf, 0xa4, 0x5c, 0xc3, 0xf1, 0x29, 0x63, 0x1d };
    memcpy(d40[0], p40m1, 17);
    memcpy(d40[1], p40, 17);
    struct ArrowSchema *s40 = SK(S("+s", "", 0), 1, S("d:40,0,256", "big", 0));
    w = open_arrow(&f, s40, NULL);
    ck_assert_int_eq(inlay_writer_append_arrow(w, batch(2, 0, 1, prim(32, d40, 2, NULL, 0, 0)), s40), INLAY_ERR_VALUE);
    ck_assert_msg(strstr(inlay_writer_errmsg(w), "column 'big' row 1: unscaled decimal has more than 40 digits"), "%s",
                  inlay_writer_errmsg(w));
    APPEND_OK(w, batch(1, 0, 1, prim(32, d40, 1, NULL, 0, 0)), s40);
    finish(w, &f);
    decoded d;
    read_flat(&f, "big", 17, NULL, &d);
    ck_assert_uint_eq(d.nvalues, 1);
    uint8_t be[17];
    for (int k = 0; k < 17; k++) be[k] = d40[0][16 - k];
    ck_assert_bytes(d.val[0], d.len[0], be, 17);
    decoded_free(&d);
    file_free(&f);
    /* a view past its buffer */
    w = open_arrow(&f, vsch, NULL);
    ck_assert_int_eq(inlay_writer_append_arrow(w, batch(N, 0, 1, A(N, 0, 0, 4, NULL, views, vdata, &vsize)), vsch),
                     INLAY_ERR_ARGUMENT);
    ck_assert_msg(strstr(inlay_writer_errmsg(w), "column 'v' row 1: view of bytes 10..30 of data buffer 0, which has 16"),
                  "%s", inlay_writer_errmsg(w));
    ck_assert_int_eq(inlay_writer_append_arrow(w, batch(N, 0, 1, A(N, 0, 0, 2, NULL, views)), vsch), INLAY_ERR_ARGUMENT);
    ck_assert_msg(strstr(inlay_writer_errmsg(w), "the array has 2 buffers, format \"vz\" has at least 3"), "%s",
                  inlay_writer_errmsg(w));
    finish(w, &f);
    file_free(&f);
    pool_free();
}
END_TEST

/* A bad nested field after a good flat one, and a bad flat one after a good
 * nested one: nothing of the batch is written. */
START_TEST(test_all_or_nothing)
{
    good g;
    make_good(&g);
    struct ArrowArray *a = copy_array(g.arr);
    int32_t past[5] = { 0, 2, 2, 3, 9 };
    a->children[2]->buffers[1] = past;
    rejected(&g, a, g.sch, INLAY_ERR_ARGUMENT, "field 'tags'");
    a = copy_array(g.arr);
    a->children[3]->buffers[1] = NULL;
    rejected(&g, a, g.sch, INLAY_ERR_ARGUMENT, "field 'score'");
    /* found by the writer's own checks, after every column was staged */
    const char *const badtext[4] = { "one", NULL, "three", "fo\xff" };
    a = copy_array(g.arr);
    a->children[1] = str_col(badtext, 4, false, 0, 0);
    rejected(&g, a, g.sch, INLAY_ERR_VALUE, "column 'name' row 7");
    pool_free();
}
END_TEST

/* ---- memory ---------------------------------------------------------------------- */

/* One writer's life (open, three appends, close) with allocation n
 * refused (0: none); returns the status and counts the requests. */
static int life(const good *g, const inlay_schema *s, unsigned long n, unsigned long *requests)
{
    test_alloc ta;
    memset(&ta, 0, sizeof ta);
    ta.fail_at = n;
    inlay_options o;
    inlay_options_init(&o);
    o.alloc = test_allocator(&ta);
    o.threads = 1;   /* one allocation sequence, the same every run */
    o.page_rows = 3;
    o.compression = INLAY_UNCOMPRESSED;
    inlay_buffer out;
    inlay_buffer_init(&out, NULL);
    inlay_writer *w = NULL;
    int st = inlay_writer_open(&w, inlay_buffer_sink(&out), s, &o);
    const bool opened = st == INLAY_OK;
    bool appending = false;
    for (int k = 0; k < 3 && st == INLAY_OK; k++) {
        appending = true;
        st = inlay_writer_append_arrow(w, g->arr, g->sch);
    }
    if (st == INLAY_OK) appending = false, st = inlay_writer_close(w);
    if (st != INLAY_OK) {
        ck_assert_msg(st == INLAY_ERR_NOMEM, "fail at %lu: %d %s", n, st, w ? inlay_writer_errmsg(w) : "");
        if (opened) ck_assert_int_eq(inlay_writer_append_arrow(w, g->arr, g->sch), INLAY_ERR_NOMEM);   /* sticky */
    }
    inlay_writer_free(w);
    inlay_buffer_free(&out);
    ck_assert_no_leak(&ta);
    *requests = ta.requests;
    return st == INLAY_OK ? 0 : appending ? 2 : 1;
}

/* Fail the Nth allocation of a writer's life for every N: the open, the
 * appends or the close fail with INLAY_ERR_NOMEM (sticky), and nothing
 * leaks. */
START_TEST(test_nomem_every_n)
{
    good g;
    make_good(&g);
    inlay_schema *s = NULL;
    ck_assert_int_eq(inlay_schema_from_arrow(&s, g.sch, NULL, NULL, 0), INLAY_OK);
    unsigned long total, req;
    ck_assert_int_eq(life(&g, s, 0, &total), 0);
    int failed_appends = 0;
    for (unsigned long n = 1; n <= total; n++) failed_appends += life(&g, s, n, &req) == 2;
    ck_assert_int_gt(failed_appends, 10);
    inlay_schema_free(s);
    pool_free();
}
END_TEST

/* Appends of the same shape allocate nothing once the first has grown the
 * scratch: every layout that converts (strings, views, booleans, bitmaps
 * from mid-byte, decimals, times, dictionaries) and a nested field. The
 * writer's own buffers still grow in the 2nd and 3rd appends (pages and
 * row groups end inside them: the second chunk of each column's ring is
 * filled for the first time), so a twin writer takes the same rows through
 * the native calls (append_columns, append_array): the files must be the
 * same and the allocations of appends 2 and 3 as many, so append_arrow adds
 * none. Then, the writer warm, appends allocate nothing at all. */
static inlay_writer *steady_writer(test_alloc *ta, const inlay_schema *s, inlay_buffer *out)
{
    memset(ta, 0, sizeof *ta);
    inlay_options o;
    inlay_options_init(&o);
    o.alloc = test_allocator(ta);
    o.threads = 1;   /* counts of allocations per call: the jobs handed to workers would vary */
    o.compression = INLAY_UNCOMPRESSED;
    o.page_rows = 50;
    o.row_group_rows = 100;
    inlay_buffer_init(out, NULL);
    inlay_writer *w = NULL;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(out), s, &o), INLAY_OK);
    return w;
}

START_TEST(test_steady_state)
{
    enum { N = 100, B = 3 };
    int64_t ids[N];
    int16_t small16[N];
    int32_t small[N], secs[N], ms[N], toff[N + 1], tv[3 * N];
    int32_t *toff2 = P((N + B + 1) * 4);
    const char *names[N];
    char text[N][24];
    uint8_t dec[N][16], dec_be[N][9];
    int8_t idx[N];
    char valid[N + 1], nvalid[N + 1];
    bool flag[N];
    inlay_bytes nb[N], cb[N], db[N];
    const char *const dv[3] = { "a", "bb", "a longer category" };
    for (int i = 0; i < N; i++) {
        ids[i] = i * 7;
        small16[i] = (int16_t)(i % 100 - 50);
        small[i] = small16[i];
        snprintf(text[i], sizeof text[i], i % 2 ? "name %d" : "a longer name %d", i);
        names[i] = i % 7 ? text[i] : NULL;
        nvalid[i] = names[i] ? '1' : '0';
        nb[i] = (inlay_bytes){ names[i] ? names[i] : "", names[i] ? strlen(names[i]) : 0 };
        put_dec(dec[i], 16, (i - 50) * 1000);
        for (int k = 0; k < 9; k++) dec_be[i][k] = dec[i][8 - k];
        db[i] = (inlay_bytes){ dec_be[i], 9 };
        secs[i] = i * 11;
        ms[i] = secs[i] * 1000;
        idx[i] = (int8_t)(i % 3);
        cb[i] = (inlay_bytes){ dv[i % 3], strlen(dv[i % 3]) };
        valid[i] = i % 5 ? '1' : '0';
        flag[i] = valid[i] == '1';
        toff[i] = 3 * i - (i > 0);
    }
    valid[N] = nvalid[N] = 0;
    toff[N] = 3 * N - 1;
    for (int i = 0; i < 3 * N; i++) tv[i] = i;
    for (int i = 0; i <= N + B; i++) toff2[i] = i < B ? 0 : toff[i - B];
    struct ArrowSchema *dsch = S("c", "cat", 0);
    dsch->dictionary = S("u", NULL, 0);
    struct ArrowSchema *flat = SK(S("+s", "", 0), 8, S("l", "id", 0), S("u", "name", NULLABLE), S("vu", "view", NULLABLE),
                                  S("b", "flag", NULLABLE), S("d:20,2", "dec", 0), S("tts", "t", 0), dsch,
                                  S("s", "small", NULLABLE));
    struct ArrowArray *cat = prim(1, idx, N, NULL, 1, B);
    cat->dictionary = str_col(dv, 3, false, 0, 0);
    struct ArrowArray *flat_arr = batch(N, B, 8, prim(8, ids, N, NULL, 0, B), str_col(names, N, false, 1, B),
                                        view_col(names, N, 2, B), bool_col(valid, valid, 3, B), prim(16, dec, N, NULL, 0, B),
                                        prim(4, secs, N, NULL, 5, B), cat, prim(2, small16, N, valid, 1, B));
    const inlay_levels lv = { .validity = bits(valid) }, nlv = { .validity = bits(nvalid) };
    const inlay_column_batch native[8] = {
        { 0, ids, N, { 0 } }, { 1, nb, N, nlv }, { 2, nb, N, nlv }, { 3, flag, N, lv },
        { 4, db, N, { 0 } }, { 5, ms, N, { 0 } }, { 6, cb, N, { 0 } }, { 7, small, N, lv },
    };
    struct ArrowSchema *nested = SK(S("+s", "", 0), 1, SK(S("+l", "tags", 0), 1, S("i", "item", 0)));
    struct ArrowArray *nested_arr = batch(N, B, 1, AK(A(N + B, 0, 0, 2, NULL, toff2), 1, A(3 * N, 0, 0, 2, NULL, tv)));
    const inlay_array tel = { .length = 3 * N, .values = tv };
    const inlay_array tags = { .length = N, .offsets = toff, .children = &tel };
    for (int part = 0; part < 2; part++) {
        struct ArrowSchema *sch = part ? nested : flat;
        struct ArrowArray *arr = part ? nested_arr : flat_arr;
        inlay_schema *s = NULL;
        ck_assert_int_eq(inlay_schema_from_arrow(&s, sch, NULL, NULL, 0), INLAY_OK);
        test_alloc ta, tb;
        inlay_buffer out_a, out_b;
        inlay_writer *wa = steady_writer(&ta, s, &out_a), *wb = steady_writer(&tb, s, &out_b);
        unsigned long a1 = 0, b1 = 0;
        for (int k = 0; k < 3; k++) {
            APPEND_OK(wa, arr, sch);
            if (part) ck_assert_int_eq(inlay_writer_append_array(wb, 0, &tags, N), INLAY_OK);
            else ck_assert_int_eq(inlay_writer_append_columns(wb, native, 8), INLAY_OK);
            if (k == 0) a1 = ta.requests, b1 = tb.requests;
        }
        const unsigned long da = ta.requests - a1, db2 = tb.requests - b1;
        ck_assert_msg(da == db2, "appends 2 and 3: %lu allocations through append_arrow, %lu through the native calls",
                      da, db2);
        ck_assert_int_eq(inlay_writer_close(wa), INLAY_OK);
        ck_assert_int_eq(inlay_writer_close(wb), INLAY_OK);
        ck_assert_uint_eq(inlay_writer_rows(wa), 3 * N);
        ck_assert_bytes(out_a.data, out_a.len, out_b.data, out_b.len);
        inlay_writer_free(wa);
        inlay_writer_free(wb);
        ck_assert_no_leak(&ta);
        ck_assert_no_leak(&tb);
        inlay_buffer_free(&out_a);
        inlay_buffer_free(&out_b);
        inlay_schema_free(s);
    }

    /* Both together, into columns without a dictionary (whose cost check
     * shares a buffer between the columns that grows with the largest), a
     * row group per append: once the writer's own ring of two chunks per
     * column has been filled (2 appends), further appends allocate nothing
     * at all. */
    struct ArrowSchema *both = copy_schema(flat);
    both->n_children = 9;
    both->children = P(9 * sizeof *both->children);
    memcpy(both->children, flat->children, 8 * sizeof *both->children);
    both->children[8] = nested->children[0];
    struct ArrowArray *both_arr = copy_array(flat_arr);
    both_arr->n_children = 9;
    both_arr->children = P(9 * sizeof *both_arr->children);
    memcpy(both_arr->children, flat_arr->children, 8 * sizeof *both_arr->children);
    both_arr->children[8] = nested_arr->children[0];
    inlay_schema *s = inlay_schema_create(NULL);
    inlay_column_options co;
    inlay_column_options_init(&co);
    co.encoding = INLAY_ENCODING_PLAIN;
    ck_assert_int_gt(inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), &co), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "name", INLAY_OPTIONAL, inlay_type_string(), &co), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "view", INLAY_OPTIONAL, inlay_type_string(), &co), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "flag", INLAY_OPTIONAL, inlay_type_boolean(), &co), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "dec", INLAY_REQUIRED, inlay_type_decimal(20, 2, INLAY_FIXED_LEN_BYTE_ARRAY, 0), &co), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "t", INLAY_REQUIRED, inlay_type_time(INLAY_MILLIS, false), &co), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "cat", INLAY_REQUIRED, inlay_type_string(), &co), 0);
    ck_assert_int_gt(inlay_schema_add(s, 0, "small", INLAY_OPTIONAL, inlay_type_int(16, true), &co), 0);
    int list = inlay_schema_add_list(s, 0, "tags", INLAY_REQUIRED);
    ck_assert_int_gt(inlay_schema_add(s, list, "element", INLAY_REQUIRED, inlay_type_int(32, true), &co), 0);
    test_alloc ta;
    inlay_buffer out;
    inlay_writer *w = steady_writer(&ta, s, &out);
    for (int k = 0; k < 2; k++) APPEND_OK(w, both_arr, both);
    const unsigned long a1 = ta.requests;
    for (int k = 0; k < 4; k++) APPEND_OK(w, both_arr, both);
    ck_assert_msg(ta.requests == a1, "appends 3 to 6 allocated %lu times", ta.requests - a1);
    ck_assert_int_eq(inlay_writer_close(w), INLAY_OK);
    ck_assert_uint_eq(inlay_writer_row_groups(w), 6);
    inlay_writer_free(w);
    ck_assert_no_leak(&ta);
    inlay_buffer_free(&out);
    inlay_schema_free(s);
    pool_free();
}
END_TEST

/* Maps: a null key, a null entry, keys declared nullable (still a
 * required column); and a writer column Arrow cannot express. */
START_TEST(test_bad_maps)
{
    const char *const keys[4] = { "a", "b", "c", "d" };
    const int64_t vals[4] = { 1, 2, 3, 4 };
    const int32_t off[3] = { 0, 2, 4 };
    struct ArrowSchema *sch = SK(S("+s", "", 0), 1, SK(S("+m", "m", NULLABLE), 1, SK(S("+s", "entries", 0), 2,
                                                                            S("u", "key", NULLABLE), S("l", "value", 0))));
    file f;
    inlay_writer *w = open_arrow(&f, sch, NULL);
    struct ArrowArray *entries = AK(A(4, 0, 0, 1, NULL), 2, str_col(keys, 4, false, 0, 0), A(4, 0, 0, 2, NULL, vals));
    struct ArrowArray *arr = batch(2, 0, 1, AK(A(2, 0, 0, 2, NULL, off), 1, entries));
    APPEND_OK(w, arr, sch);
    const char *const nullkey[4] = { "a", "b", NULL, "d" };
    struct ArrowArray *e2 = AK(A(4, 0, 0, 1, NULL), 2, str_col(nullkey, 4, false, 0, 0), A(4, 0, 0, 2, NULL, vals));
    ck_assert_int_eq(inlay_writer_append_arrow(w, batch(2, 0, 1, AK(A(2, 0, 0, 2, NULL, off), 1, e2)), sch),
                     INLAY_ERR_NULL);
    ck_assert_msg(strstr(inlay_writer_errmsg(w), "field 'm.key_value.key' row 3: a map key is null"), "%s",
                  inlay_writer_errmsg(w));
    struct ArrowArray *e3 = AK(A(4, 1, 0, 1, bits("1101")), 2, str_col(keys, 4, false, 0, 0), A(4, 0, 0, 2, NULL, vals));
    ck_assert_int_eq(inlay_writer_append_arrow(w, batch(2, 0, 1, AK(A(2, 0, 0, 2, NULL, off), 1, e3)), sch),
                     INLAY_ERR_NULL);
    ck_assert_msg(strstr(inlay_writer_errmsg(w), "field 'm.entries': entry 2 of the map's entries is null"), "%s",
                  inlay_writer_errmsg(w));
    /* a null entry under a null map is junk, and fine */
    struct ArrowArray *m4 = AK(A(2, 1, 0, 2, bits("10"), off), 1, e3);
    APPEND_OK(w, batch(2, 0, 1, m4), sch);
    finish(w, &f);
    decoded d;
    memset(&d, 0, sizeof d);
    decode_column(&f, "m.key_value.key", 0, 2, 1, &d);
    ck_assert_uint_eq(d.nlevels, 4 + 2 + 1);
    decoded_free(&d);
    file_free(&f);

    /* a bare repeated column: no Arrow format maps onto it */
    inlay_schema *s = inlay_schema_create(NULL);
    ck_assert_int_gt(inlay_schema_add(s, 0, "r", INLAY_REPEATED, inlay_type_int(64, true), NULL), 0);
    inlay_buffer_init(&f.out, NULL);
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&f.out), s, NULL), INLAY_OK);
    inlay_schema_free(s);
    struct ArrowSchema *rs = SK(S("+s", "", 0), 1, S("l", "r", 0));
    ck_assert_int_eq(inlay_writer_append_arrow(w, batch(4, 0, 1, A(4, 0, 0, 2, NULL, vals)), rs), INLAY_ERR_SCHEMA);
    ck_assert_msg(strstr(inlay_writer_errmsg(w), "field 'r': Arrow format \"l\" (int64) does not map onto the writer's "
                                                 "repeated int64"), "%s", inlay_writer_errmsg(w));
    inlay_writer_free(w);
    inlay_buffer_free(&f.out);
    pool_free();
}
END_TEST

/* Zero rows, and a writer that is closed or failed. */
START_TEST(test_edges)
{
    good g;
    make_good(&g);
    file f;
    inlay_writer *w = open_arrow(&f, g.sch, NULL);
    struct ArrowArray *empty = copy_array(g.arr);
    empty->length = 0;
    APPEND_OK(w, empty, g.sch);
    ck_assert_int_eq(inlay_writer_append_arrow(w, NULL, g.sch), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inlay_writer_append_arrow(w, g.arr, NULL), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inlay_writer_append_arrow(NULL, g.arr, g.sch), INLAY_ERR_ARGUMENT);
    APPEND_OK(w, g.arr, g.sch);
    ck_assert_int_eq(inlay_writer_close(w), INLAY_OK);
    ck_assert_int_eq(inlay_writer_append_arrow(w, g.arr, g.sch), INLAY_ERR_STATE);
    ck_assert_uint_eq(inlay_writer_rows(w), 4);
    inlay_writer_free(w);
    file_free(&f);
    pool_free();
}
END_TEST

static Suite *arrow_suite(void)
{
    Suite *s = suite_create("arrow");
    TCase *c = tcase_create("schema");
    tcase_add_test(c, test_schema_types);
    tcase_add_test(c, test_schema_nested);
    tcase_add_test(c, test_schema_unsupported);
    tcase_add_test(c, test_schema_nomem);
    suite_add_tcase(s, c);
    c = tcase_create("flat");
    tcase_add_test(c, test_flat_integers);
    tcase_add_test(c, test_flat_bool_float);
    tcase_add_test(c, test_flat_strings);
    tcase_add_test(c, test_flat_fixed_decimal);
    tcase_add_test(c, test_flat_times);
    tcase_add_test(c, test_flat_dictionary);
    suite_add_tcase(s, c);
    c = tcase_create("nested");
    tcase_add_test(c, test_nested_list_levels);
    tcase_add_test(c, test_nested_same_as_append_array);
    tcase_add_test(c, test_nested_deep);
    suite_add_tcase(s, c);
    c = tcase_create("errors");
    tcase_add_test(c, test_bad_schemas);
    tcase_add_test(c, test_bad_arrays);
    tcase_add_test(c, test_bad_values);
    tcase_add_test(c, test_all_or_nothing);
    tcase_add_test(c, test_bad_maps);
    tcase_add_test(c, test_edges);
    suite_add_tcase(s, c);
    c = tcase_create("memory");
    tcase_set_timeout(c, 120);
    tcase_add_test(c, test_nomem_every_n);
    tcase_add_test(c, test_steady_state);
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(arrow_suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
