/*
 * check_schema.c — the schema tree (runtime/model/schema.c): the printed
 * message type for every type, the errors of inlay_schema_add (each naming
 * the field) that leave the schema unchanged, and the layout
 * inl_schema_finalize computes: depth-first leaves, their paths and their
 * maximum definition and repetition levels. Nested groups: the LIST and MAP
 * builders, their levels at depth, the shapes they refuse (when a field is
 * added and at finalize), their printed form and their SchemaElements in
 * the footer (read with thrift_reader.h). Names: every call that takes one
 * refuses a name that is not UTF-8 (or empty), showing it escaped.
 */
#define _POSIX_C_SOURCE 200809L
#include "schema.h"

#include "thrift_reader.h"
#include "unit.h"

static inlay_schema *s;

static void setup(void)
{
    s = inlay_schema_create(NULL);
    ck_assert_ptr_nonnull(s);
}

static void teardown(void)
{
    inlay_schema_free(s);
    s = NULL;
}

static int add(int parent, const char *name, inlay_repetition rep, inlay_type t)
{
    int id = inlay_schema_add(s, parent, name, rep, t, NULL);
    ck_assert_msg(id > 0, "adding %s: %d %s", name, id, inlay_schema_errmsg(s));
    return id;
}

static int group(int parent, const char *name, inlay_repetition rep)
{
    int id = inlay_schema_add_group(s, parent, name, rep);
    ck_assert_msg(id > 0, "adding group %s: %d %s", name, id, inlay_schema_errmsg(s));
    return id;
}

static char *format(void)
{
    size_t n = inlay_schema_format(s, NULL, 0);
    char *text = malloc(n + 1);
    ck_assert_ptr_nonnull(text);
    ck_assert_uint_eq(inlay_schema_format(s, text, n + 1), n);
    ck_assert_uint_eq(strlen(text), n);
    return text;
}

/* ---- printing --------------------------------------------------------------------------- */

static const char every_type[] =
    "message schema {\n"
    "  required boolean b;\n"
    "  required int32 i32;\n"
    "  optional int64 i64;\n"
    "  required float f;\n"
    "  required double d;\n"
    "  optional binary bin;\n"
    "  required binary s (STRING);\n"
    "  required binary e (ENUM);\n"
    "  required binary j (JSON);\n"
    "  required fixed_len_byte_array(3) fx;\n"
    "  required fixed_len_byte_array(16) u (UUID);\n"
    "  required fixed_len_byte_array(2) h (FLOAT16);\n"
    "  required int32 dt (DATE);\n"
    "  required int32 t_ms (TIME(MILLIS,true));\n"
    "  required int64 t_us (TIME(MICROS,false));\n"
    "  required int64 t_ns (TIME(NANOS,true));\n"
    "  required int64 ts_ms (TIMESTAMP(MILLIS,true));\n"
    "  required int64 ts_us (TIMESTAMP(MICROS,false));\n"
    "  required int64 ts_ns (TIMESTAMP(NANOS,true));\n"
    "  required int32 dec32 (DECIMAL(9,2));\n"
    "  required int64 dec64 (DECIMAL(18,3));\n"
    "  required fixed_len_byte_array(9) decfx (DECIMAL(20,4));\n"
    "  required binary decba (DECIMAL(30,5));\n"
    "  required int32 i8 (INTEGER(8,true));\n"
    "  required int32 u16 (INTEGER(16,false));\n"
    "  required int32 i32l (INTEGER(32,true));\n"
    "  required int64 u64 (INTEGER(64,false));\n"
    "  optional group g {\n"
    "    repeated int32 x;\n"
    "    required group inner {\n"
    "      optional binary y (STRING);\n"
    "    }\n"
    "  }\n"
    "}\n";

static void add_every_type(void)
{
    add(0, "b", INLAY_REQUIRED, inlay_type_boolean());
    add(0, "i32", INLAY_REQUIRED, inlay_type_physical(INLAY_INT32));
    add(0, "i64", INLAY_OPTIONAL, inlay_type_physical(INLAY_INT64));
    add(0, "f", INLAY_REQUIRED, inlay_type_float());
    add(0, "d", INLAY_REQUIRED, inlay_type_double());
    add(0, "bin", INLAY_OPTIONAL, inlay_type_binary());
    add(0, "s", INLAY_REQUIRED, inlay_type_string());
    add(0, "e", INLAY_REQUIRED, inlay_type_enum());
    add(0, "j", INLAY_REQUIRED, inlay_type_json());
    add(0, "fx", INLAY_REQUIRED, inlay_type_fixed(3));
    add(0, "u", INLAY_REQUIRED, inlay_type_uuid());
    add(0, "h", INLAY_REQUIRED, inlay_type_float16());
    add(0, "dt", INLAY_REQUIRED, inlay_type_date());
    add(0, "t_ms", INLAY_REQUIRED, inlay_type_time(INLAY_MILLIS, true));
    add(0, "t_us", INLAY_REQUIRED, inlay_type_time(INLAY_MICROS, false));
    add(0, "t_ns", INLAY_REQUIRED, inlay_type_time(INLAY_NANOS, true));
    add(0, "ts_ms", INLAY_REQUIRED, inlay_type_timestamp(INLAY_MILLIS, true));
    add(0, "ts_us", INLAY_REQUIRED, inlay_type_timestamp(INLAY_MICROS, false));
    add(0, "ts_ns", INLAY_REQUIRED, inlay_type_timestamp(INLAY_NANOS, true));
    add(0, "dec32", INLAY_REQUIRED, inlay_type_decimal(9, 2, INLAY_INT32, 0));
    add(0, "dec64", INLAY_REQUIRED, inlay_type_decimal(18, 3, INLAY_INT64, 0));
    add(0, "decfx", INLAY_REQUIRED, inlay_type_decimal(20, 4, INLAY_FIXED_LEN_BYTE_ARRAY, 9));
    add(0, "decba", INLAY_REQUIRED, inlay_type_decimal(30, 5, INLAY_BYTE_ARRAY, 0));
    add(0, "i8", INLAY_REQUIRED, inlay_type_int(8, true));
    add(0, "u16", INLAY_REQUIRED, inlay_type_int(16, false));
    add(0, "i32l", INLAY_REQUIRED, inlay_type_int(32, true));
    add(0, "u64", INLAY_REQUIRED, inlay_type_int(64, false));
    int g = group(0, "g", INLAY_OPTIONAL);
    add(g, "x", INLAY_REPEATED, inlay_type_physical(INLAY_INT32));
    int inner = group(g, "inner", INLAY_REQUIRED);
    add(inner, "y", INLAY_OPTIONAL, inlay_type_string());
}

START_TEST(test_format_every_type)
{
    add_every_type();
    char *text = format();
    ck_assert_str_eq(text, every_type);
    free(text);
    ck_assert_int_eq(inlay_schema_num_columns(s), 29);
}
END_TEST

START_TEST(test_format_empty)
{
    char text[64];
    ck_assert_uint_eq(inlay_schema_format(s, text, sizeof text), strlen("message schema {\n}\n"));
    ck_assert_str_eq(text, "message schema {\n}\n");
}
END_TEST

START_TEST(test_format_truncated)
{
    add_every_type();
    const size_t full = strlen(every_type);
    for (size_t cap = 1; cap < full + 2; cap += 7) {
        char text[sizeof every_type + 8];
        memset(text, 'Z', sizeof text);
        ck_assert_uint_eq(inlay_schema_format(s, text, cap), full);
        size_t kept = cap - 1 < full ? cap - 1 : full;
        ck_assert_uint_eq(strlen(text), kept);
        ck_assert_int_eq(memcmp(text, every_type, kept), 0);
        ck_assert_int_eq(text[cap], 'Z');              /* nothing past cap */
    }
    ck_assert_uint_eq(inlay_schema_format(s, NULL, 0), full);
}
END_TEST

/* ---- errors ------------------------------------------------------------------------------- */

/* The call fails with INLAY_ERR_SCHEMA, the message holds `what`, and the
 * schema prints as before. */
#define EXPECT_SCHEMA_ERROR(call, what)                                              \
    do {                                                                             \
        char *before_ = format();                                                    \
        int n_ = inlay_schema_num_columns(s);                                        \
        int st_ = (call);                                                            \
        ck_assert_int_eq(st_, INLAY_ERR_SCHEMA);                                     \
        ck_assert_msg(strstr(inlay_schema_errmsg(s), (what)) != NULL,                \
                      "message \"%s\" does not mention \"%s\"", inlay_schema_errmsg(s), (what)); \
        char *after_ = format();                                                     \
        ck_assert_str_eq(after_, before_);                                           \
        ck_assert_int_eq(inlay_schema_num_columns(s), n_);                           \
        free(before_);                                                               \
        free(after_);                                                                \
    } while (0)

START_TEST(test_duplicate_name)
{
    add(0, "a", INLAY_REQUIRED, inlay_type_boolean());
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, "a", INLAY_OPTIONAL, inlay_type_double(), NULL), "'a'");
    ck_assert_ptr_nonnull(strstr(inlay_schema_errmsg(s), "duplicate"));
    EXPECT_SCHEMA_ERROR(inlay_schema_add_group(s, 0, "a", INLAY_OPTIONAL), "'a'");
}
END_TEST

START_TEST(test_duplicate_nested)
{
    int g = group(0, "g", INLAY_OPTIONAL);
    add(g, "x", INLAY_REQUIRED, inlay_type_boolean());
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, g, "x", INLAY_REQUIRED, inlay_type_boolean(), NULL), "g.x");
    /* the same name under another parent is fine */
    add(0, "x", INLAY_REQUIRED, inlay_type_boolean());
    int h = group(0, "h", INLAY_OPTIONAL);
    add(h, "x", INLAY_REQUIRED, inlay_type_boolean());
}
END_TEST

START_TEST(test_empty_name)
{
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, "", INLAY_REQUIRED, inlay_type_boolean(), NULL), "empty name");
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, NULL, INLAY_REQUIRED, inlay_type_boolean(), NULL), "empty name");
    EXPECT_SCHEMA_ERROR(inlay_schema_add_group(s, 0, "", INLAY_OPTIONAL), "empty name");
}
END_TEST

START_TEST(test_bad_parent)
{
    int leaf = add(0, "leaf", INLAY_REQUIRED, inlay_type_boolean());
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, -1, "x", INLAY_REQUIRED, inlay_type_boolean(), NULL), "'x'");
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 999, "x", INLAY_REQUIRED, inlay_type_boolean(), NULL), "parent 999");
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, leaf, "x", INLAY_REQUIRED, inlay_type_boolean(), NULL), "not a group");
    EXPECT_SCHEMA_ERROR(inlay_schema_add_group(s, leaf, "g", INLAY_REQUIRED), "'g'");
}
END_TEST

START_TEST(test_bad_repetition)
{
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, "x", (inlay_repetition)3, inlay_type_boolean(), NULL), "'x'");
}
END_TEST

START_TEST(test_decimal_precision)
{
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, "price", INLAY_REQUIRED,
                                         inlay_type_decimal(10, 2, INLAY_INT32, 0), NULL), "'price'");
    ck_assert_ptr_nonnull(strstr(inlay_schema_errmsg(s), "precision"));
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, "price", INLAY_REQUIRED,
                                         inlay_type_decimal(19, 2, INLAY_INT64, 0), NULL), "'price'");
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, "price", INLAY_REQUIRED,
                                         inlay_type_decimal(3, 0, INLAY_FIXED_LEN_BYTE_ARRAY, 1), NULL), "'price'");
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, "price", INLAY_REQUIRED,
                                         inlay_type_decimal(39, 0, INLAY_FIXED_LEN_BYTE_ARRAY, 16), NULL), "'price'");
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, "price", INLAY_REQUIRED,
                                         inlay_type_decimal(0, 0, INLAY_INT32, 0), NULL), "'price'");
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, "price", INLAY_REQUIRED,
                                         inlay_type_decimal(5, 6, INLAY_INT32, 0), NULL), "scale");
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, "price", INLAY_REQUIRED,
                                         inlay_type_decimal(5, 1, INLAY_DOUBLE, 0), NULL), "'price'");
    /* the limits themselves are fine */
    add(0, "p9", INLAY_REQUIRED, inlay_type_decimal(9, 0, INLAY_INT32, 0));
    add(0, "p18", INLAY_REQUIRED, inlay_type_decimal(18, 18, INLAY_INT64, 0));
    add(0, "p2", INLAY_REQUIRED, inlay_type_decimal(2, 1, INLAY_FIXED_LEN_BYTE_ARRAY, 1));
    add(0, "p38", INLAY_REQUIRED, inlay_type_decimal(38, 0, INLAY_FIXED_LEN_BYTE_ARRAY, 16));
}
END_TEST

START_TEST(test_decimal_names_nested_field)
{
    int g = group(0, "order", INLAY_OPTIONAL);
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, g, "total", INLAY_REQUIRED,
                                         inlay_type_decimal(10, 2, INLAY_INT32, 0), NULL), "order.total");
}
END_TEST

START_TEST(test_bad_types)
{
    inlay_type t;
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, "fx", INLAY_REQUIRED, inlay_type_fixed(0), NULL), "'fx'");
    t = inlay_type_uuid();
    t.type_length = 8;
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, "u", INLAY_REQUIRED, t, NULL), "'u'");
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, "i", INLAY_REQUIRED, inlay_type_int(12, true), NULL), "'i'");
    t = inlay_type_int(64, true);
    t.physical = INLAY_INT32;
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, "i", INLAY_REQUIRED, t, NULL), "'i'");
    t = inlay_type_string();
    t.physical = INLAY_INT32;
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, "str", INLAY_REQUIRED, t, NULL), "'str'");
    t = inlay_type_time(INLAY_MILLIS, true);
    t.physical = INLAY_INT64;
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, "t", INLAY_REQUIRED, t, NULL), "'t'");
    t = inlay_type_timestamp(INLAY_MILLIS, true);
    t.physical = INLAY_INT32;
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, "ts", INLAY_REQUIRED, t, NULL), "'ts'");
    t = inlay_type_date();
    t.physical = INLAY_INT64;
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, "dt", INLAY_REQUIRED, t, NULL), "'dt'");
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, "int96", INLAY_REQUIRED, inlay_type_physical((inlay_physical)3), NULL),
                        "'int96'");
    t = inlay_type_boolean();
    t.logical = (inlay_logical)99;
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, "odd", INLAY_REQUIRED, t, NULL), "'odd'");
}
END_TEST

START_TEST(test_bad_options)
{
    inlay_column_options o;
    inlay_column_options_init(&o);
    o.encoding = INLAY_ENCODING_DICTIONARY;
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, "flag", INLAY_REQUIRED, inlay_type_boolean(), &o), "'flag'");
    o.encoding = (inlay_encoding_choice)7;
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, "n", INLAY_REQUIRED, inlay_type_double(), &o), "'n'");
}
END_TEST

START_TEST(test_null_schema)
{
    ck_assert_int_eq(inlay_schema_add(NULL, 0, "x", INLAY_REQUIRED, inlay_type_boolean(), NULL), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inlay_schema_add_group(NULL, 0, "x", INLAY_REQUIRED), INLAY_ERR_ARGUMENT);
    ck_assert_ptr_nonnull(inlay_schema_errmsg(NULL));
    ck_assert_int_eq(inlay_schema_num_columns(NULL), 0);
    char text[4] = "abc";
    ck_assert_uint_eq(inlay_schema_format(NULL, text, sizeof text), 0);
    ck_assert_str_eq(text, "");
    inlay_schema_free(NULL);
}
END_TEST

/* ---- layout and levels ---------------------------------------------------------------------- */

static const schema_leaf *leaf(int i)
{
    ck_assert_int_lt(i, s->num_leaves);
    return &s->leaves[i];
}

#define EXPECT_LEAF(i, p, def, rep)                                          \
    do {                                                                     \
        ck_assert_str_eq(leaf(i)->path, (p));                                \
        ck_assert_int_eq(leaf(i)->max_def, (def));                           \
        ck_assert_int_eq(leaf(i)->max_rep, (rep));                           \
    } while (0)

START_TEST(test_levels)
{
    add(0, "id", INLAY_REQUIRED, inlay_type_int(64, true));
    add(0, "name", INLAY_OPTIONAL, inlay_type_string());
    int tags = group(0, "tags", INLAY_OPTIONAL);                 /* a 3-level LIST */
    int list = group(tags, "list", INLAY_REPEATED);
    add(list, "element", INLAY_OPTIONAL, inlay_type_string());
    int matrix = group(0, "matrix", INLAY_REQUIRED);
    int rows = group(matrix, "rows", INLAY_REPEATED);
    int cells = group(rows, "cells", INLAY_REPEATED);
    add(cells, "v", INLAY_REQUIRED, inlay_type_double());
    int a = group(0, "a", INLAY_OPTIONAL);
    int b = group(a, "b", INLAY_REQUIRED);
    add(b, "c", INLAY_REQUIRED, inlay_type_physical(INLAY_INT32));
    add(0, "r", INLAY_REPEATED, inlay_type_physical(INLAY_INT32));

    ck_assert_int_eq(inl_schema_finalize(s), 0);
    ck_assert_int_eq(s->num_leaves, 6);
    EXPECT_LEAF(0, "id", 0, 0);
    EXPECT_LEAF(1, "name", 1, 0);
    EXPECT_LEAF(2, "tags.list.element", 3, 1);
    EXPECT_LEAF(3, "matrix.rows.cells.v", 2, 2);
    EXPECT_LEAF(4, "a.b.c", 1, 0);
    EXPECT_LEAF(5, "r", 1, 1);
    ck_assert_int_eq(leaf(2)->depth, 3);
    ck_assert_str_eq(leaf(2)->parts[0], "tags");
    ck_assert_str_eq(leaf(2)->parts[1], "list");
    ck_assert_str_eq(leaf(2)->parts[2], "element");
    ck_assert_int_eq(leaf(3)->depth, 4);
    ck_assert_str_eq(leaf(3)->parts[3], "v");
    /* the preorder is the footer's SchemaElement order */
    static const char *order[] = { "schema", "id", "name", "tags", "list", "element", "matrix", "rows",
                                   "cells", "v", "a", "b", "c", "r" };
    ck_assert_int_eq(s->count, 14);
    for (int i = 0; i < 14; i++) ck_assert_str_eq(s->nodes[s->preorder[i]].name, order[i]);
}
END_TEST

START_TEST(test_depth_first_when_added_out_of_order)
{
    int g = group(0, "g", INLAY_OPTIONAL);
    add(0, "x", INLAY_REQUIRED, inlay_type_boolean());
    add(g, "y", INLAY_REQUIRED, inlay_type_boolean());
    int h = group(g, "h", INLAY_REPEATED);
    add(0, "z", INLAY_REQUIRED, inlay_type_boolean());
    add(h, "w", INLAY_OPTIONAL, inlay_type_boolean());
    ck_assert_int_eq(inl_schema_finalize(s), 0);
    ck_assert_int_eq(inlay_schema_num_columns(s), 4);
    EXPECT_LEAF(0, "g.y", 1, 0);
    EXPECT_LEAF(1, "g.h.w", 3, 1);
    EXPECT_LEAF(2, "x", 0, 0);
    EXPECT_LEAF(3, "z", 0, 0);
}
END_TEST

START_TEST(test_finalize_again_after_add)
{
    add(0, "x", INLAY_REQUIRED, inlay_type_boolean());
    ck_assert_int_eq(inl_schema_finalize(s), 0);
    ck_assert_int_eq(s->num_leaves, 1);
    add(0, "y", INLAY_OPTIONAL, inlay_type_boolean());
    ck_assert_int_eq(inl_schema_finalize(s), 0);
    ck_assert_int_eq(s->num_leaves, 2);
    EXPECT_LEAF(1, "y", 1, 0);
}
END_TEST

START_TEST(test_sort_orders)
{
    add(0, "i", INLAY_REQUIRED, inlay_type_int(32, true));
    add(0, "u", INLAY_REQUIRED, inlay_type_int(32, false));
    add(0, "u64", INLAY_REQUIRED, inlay_type_int(64, false));
    add(0, "f", INLAY_REQUIRED, inlay_type_float());
    add(0, "s", INLAY_REQUIRED, inlay_type_string());
    add(0, "dfx", INLAY_REQUIRED, inlay_type_decimal(5, 0, INLAY_FIXED_LEN_BYTE_ARRAY, 4));
    add(0, "h", INLAY_REQUIRED, inlay_type_float16());
    add(0, "id", INLAY_REQUIRED, inlay_type_uuid());
    add(0, "d32", INLAY_REQUIRED, inlay_type_decimal(5, 0, INLAY_INT32, 0));
    ck_assert_int_eq(inl_schema_finalize(s), 0);
    static const sort_order want[] = { ORDER_SIGNED, ORDER_UNSIGNED, ORDER_UNSIGNED, ORDER_FLOAT,
                                        ORDER_BYTES, ORDER_DECIMAL_BYTES, ORDER_FLOAT16, ORDER_BYTES,
                                        ORDER_SIGNED };
    for (int i = 0; i < 9; i++) ck_assert_int_eq(leaf(i)->order, want[i]);
}
END_TEST

START_TEST(test_empty_groups)
{
    ck_assert_int_eq(inl_schema_finalize(s), INLAY_ERR_SCHEMA);
    ck_assert_ptr_nonnull(strstr(inlay_schema_errmsg(s), "no fields"));
    add(0, "x", INLAY_REQUIRED, inlay_type_boolean());
    int g = group(0, "g", INLAY_OPTIONAL);
    group(g, "empty", INLAY_OPTIONAL);
    ck_assert_int_eq(inl_schema_finalize(s), INLAY_ERR_SCHEMA);
    ck_assert_ptr_nonnull(strstr(inlay_schema_errmsg(s), "g.empty"));
    /* the writer refuses it too, saying why */
    inlay_buffer b;
    inlay_buffer_init(&b, NULL);
    inlay_writer *w = NULL;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&b), s, NULL), INLAY_ERR_SCHEMA);
    ck_assert_ptr_nonnull(w);
    ck_assert_ptr_nonnull(strstr(inlay_writer_errmsg(w), "g.empty"));
    inlay_writer_free(w);
    inlay_buffer_free(&b);
}
END_TEST

START_TEST(test_clone)
{
    add_every_type();
    inlay_allocator a = inl_mem_default();
    inlay_schema *c = inl_schema_clone(s, &a);
    ck_assert_ptr_nonnull(c);
    inlay_schema_free(s);
    s = c;                              /* the teardown frees the clone */
    char *text = format();
    ck_assert_str_eq(text, every_type);
    free(text);
    ck_assert_int_eq(inl_schema_finalize(s), 0);
    ck_assert_int_eq(s->num_leaves, 29);
}
END_TEST

START_TEST(test_allocator_used)
{
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    inlay_schema *t = inlay_schema_create(&a);
    ck_assert_ptr_nonnull(t);
    for (int i = 0; i < 40; i++) {
        char name[8];
        snprintf(name, sizeof name, "c%d", i);
        ck_assert_int_gt(inlay_schema_add(t, 0, name, INLAY_OPTIONAL, inlay_type_double(), NULL), 0);
    }
    ck_assert_int_eq(inl_schema_finalize(t), 0);
    ck_assert_uint_gt(ta.requests, 40);
    inlay_schema_free(t);
    ck_assert_no_leak(&ta);
}
END_TEST

/* Build a small nested schema with an allocator that fails request N. */
static int build_nested(inlay_schema *t)
{
    int g, l, st;
    if ((g = inlay_schema_add_group(t, 0, "g", INLAY_OPTIONAL)) < 0) return g;
    if ((st = inlay_schema_add(t, g, "a", INLAY_REQUIRED, inlay_type_string(), NULL)) < 0) return st;
    if ((l = inlay_schema_add_group(t, g, "list", INLAY_REPEATED)) < 0) return l;
    if ((st = inlay_schema_add(t, l, "b", INLAY_OPTIONAL, inlay_type_int(32, true), NULL)) < 0) return st;
    if ((st = inlay_schema_add(t, 0, "c", INLAY_REQUIRED, inlay_type_double(), NULL)) < 0) return st;
    return inl_schema_finalize(t);
}

START_TEST(test_nomem)
{
    test_alloc ta = { 0 };
    inlay_allocator a = test_allocator(&ta);
    inlay_schema *t = inlay_schema_create(&a);
    ck_assert_int_eq(build_nested(t), 0);
    inlay_schema_free(t);
    const unsigned long total = ta.requests;
    for (unsigned long n = 1; n <= total; n++) {
        ta = (test_alloc){ .fail_at = n };
        t = inlay_schema_create(&a);
        if (t) {
            int st = build_nested(t);
            ck_assert_msg(st == INLAY_ERR_NOMEM, "allocation %lu of %lu: status %d", n, total, st);
            inlay_schema_free(t);
        }
        ck_assert_uint_eq(ta.refused, 1);
        ck_assert_msg(ta.live_bytes == 0 && ta.live_blocks == 0 && ta.bad_sizes == 0,
                      "allocation %lu of %lu failed: %zu bytes in %zu blocks left, %lu frees "
                      "with a wrong size", n, total, ta.live_bytes, ta.live_blocks, ta.bad_sizes);
    }
}
END_TEST

/* ---- nested groups: LIST and MAP ------------------------------------------------------------ */

static int list_of(int parent, const char *name, inlay_repetition rep)
{
    int id = inlay_schema_add_list(s, parent, name, rep);
    ck_assert_msg(id > 0, "adding list %s: %d %s", name, id, inlay_schema_errmsg(s));
    return id;
}

static int map_of(int parent, const char *name, inlay_repetition rep)
{
    int id = inlay_schema_add_map(s, parent, name, rep);
    ck_assert_msg(id > 0, "adding map %s: %d %s", name, id, inlay_schema_errmsg(s));
    return id;
}

static const inlay_repetition REQ_OPT[] = { INLAY_REQUIRED, INLAY_OPTIONAL };

START_TEST(test_list_builder)
{
    int tags = list_of(0, "tags", INLAY_OPTIONAL);
    ck_assert_str_eq(s->nodes[tags].name, "list");
    ck_assert_int_eq(s->nodes[tags].rep, INLAY_REPEATED);
    const schema_node *outer = &s->nodes[s->nodes[tags].parent];
    ck_assert_str_eq(outer->name, "tags");
    ck_assert_int_eq(outer->annotation, GROUP_LIST);
    ck_assert_int_eq(outer->rep, INLAY_OPTIONAL);
    ck_assert_int_eq(s->nodes[tags].annotation, GROUP_PLAIN);
    add(tags, "element", INLAY_OPTIONAL, inlay_type_string());
    int ids = list_of(0, "ids", INLAY_REQUIRED);
    add(ids, "element", INLAY_REQUIRED, inlay_type_int(64, true));
    char *text = format();
    ck_assert_str_eq(text,
                     "message schema {\n"
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
                     "}\n");
    free(text);
    ck_assert_int_eq(inl_schema_finalize(s), 0);
    ck_assert_int_eq(inlay_schema_num_columns(s), 2);
    EXPECT_LEAF(0, "tags.list.element", 3, 1);
    EXPECT_LEAF(1, "ids.list.element", 1, 1);
    ck_assert_int_eq(leaf(0)->depth, 3);
    ck_assert_str_eq(leaf(0)->parts[1], "list");
}
END_TEST

START_TEST(test_map_builder)
{
    int attrs = map_of(0, "attrs", INLAY_OPTIONAL);
    ck_assert_str_eq(s->nodes[attrs].name, "key_value");
    ck_assert_int_eq(s->nodes[attrs].rep, INLAY_REPEATED);
    ck_assert_int_eq(s->nodes[s->nodes[attrs].parent].annotation, GROUP_MAP);
    add(attrs, "key", INLAY_REQUIRED, inlay_type_string());
    add(attrs, "value", INLAY_OPTIONAL, inlay_type_int(64, true));
    int keys = map_of(0, "keys", INLAY_REQUIRED);          /* a map without values: a set */
    add(keys, "key", INLAY_REQUIRED, inlay_type_int(32, true));
    char *text = format();
    ck_assert_str_eq(text,
                     "message schema {\n"
                     "  optional group attrs (MAP) {\n"
                     "    repeated group key_value {\n"
                     "      required binary key (STRING);\n"
                     "      optional int64 value (INTEGER(64,true));\n"
                     "    }\n"
                     "  }\n"
                     "  required group keys (MAP) {\n"
                     "    repeated group key_value {\n"
                     "      required int32 key (INTEGER(32,true));\n"
                     "    }\n"
                     "  }\n"
                     "}\n");
    free(text);
    ck_assert_int_eq(inl_schema_finalize(s), 0);
    ck_assert_int_eq(s->num_leaves, 3);
    EXPECT_LEAF(0, "attrs.key_value.key", 2, 1);
    EXPECT_LEAF(1, "attrs.key_value.value", 3, 1);
    EXPECT_LEAF(2, "keys.key_value.key", 1, 1);
}
END_TEST

/* list<list<string>>: every required/optional choice of the outer list,
 * the inner list and the string. */
START_TEST(test_levels_list_of_lists)
{
    for (int k = 0; k < 8; k++) {
        inlay_repetition r1 = REQ_OPT[k & 1], r2 = REQ_OPT[(k >> 1) & 1], r3 = REQ_OPT[(k >> 2) & 1];
        inlay_schema_free(s);
        s = inlay_schema_create(NULL);
        int outer = list_of(0, "lol", r1);
        int inner = list_of(outer, "element", r2);
        add(inner, "element", r3, inlay_type_string());
        ck_assert_int_eq(inl_schema_finalize(s), 0);
        EXPECT_LEAF(0, "lol.list.element.list.element", r1 + 1 + r2 + 1 + r3, 2);
    }
}
END_TEST

/* list<struct<n int32, list<int64>>> at every required/optional choice. */
START_TEST(test_levels_list_of_structs)
{
    for (int k = 0; k < 16; k++) {
        inlay_repetition r1 = REQ_OPT[k & 1], r2 = REQ_OPT[(k >> 1) & 1], r3 = REQ_OPT[(k >> 2) & 1],
                         r4 = REQ_OPT[(k >> 3) & 1];
        inlay_schema_free(s);
        s = inlay_schema_create(NULL);
        int items = list_of(0, "items", r1);
        int item = group(items, "element", r2);
        add(item, "n", INLAY_REQUIRED, inlay_type_int(32, true));
        int values = list_of(item, "values", r3);
        add(values, "element", r4, inlay_type_int(64, true));
        ck_assert_int_eq(inl_schema_finalize(s), 0);
        EXPECT_LEAF(0, "items.list.element.n", r1 + 1 + r2, 1);
        EXPECT_LEAF(1, "items.list.element.values.list.element", r1 + 1 + r2 + r3 + 1 + r4, 2);
    }
}
END_TEST

/* map<string, list<int64>> at every required/optional choice. */
START_TEST(test_levels_map_of_lists)
{
    for (int k = 0; k < 8; k++) {
        inlay_repetition r1 = REQ_OPT[k & 1], r2 = REQ_OPT[(k >> 1) & 1], r3 = REQ_OPT[(k >> 2) & 1];
        inlay_schema_free(s);
        s = inlay_schema_create(NULL);
        int m = map_of(0, "m", r1);
        add(m, "key", INLAY_REQUIRED, inlay_type_string());
        int v = list_of(m, "value", r2);
        add(v, "element", r3, inlay_type_int(64, true));
        add(0, "after", INLAY_OPTIONAL, inlay_type_double());
        ck_assert_int_eq(inl_schema_finalize(s), 0);
        ck_assert_int_eq(s->num_leaves, 3);
        EXPECT_LEAF(0, "m.key_value.key", r1 + 1, 1);
        EXPECT_LEAF(1, "m.key_value.value.list.element", r1 + 1 + r2 + 1 + r3, 2);
        EXPECT_LEAF(2, "after", 1, 0);
    }
}
END_TEST

/* One of each, nested, as the footer and the printed text must show it. */
static void add_nested_schema(void)
{
    add(0, "id", INLAY_REQUIRED, inlay_type_int(64, true));
    int tags = list_of(0, "tags", INLAY_OPTIONAL);
    add(tags, "element", INLAY_OPTIONAL, inlay_type_string());
    int attrs = map_of(0, "attrs", INLAY_REQUIRED);
    add(attrs, "key", INLAY_REQUIRED, inlay_type_string());
    int vals = list_of(attrs, "value", INLAY_OPTIONAL);
    add(vals, "element", INLAY_REQUIRED, inlay_type_int(64, true));
    int items = list_of(0, "items", INLAY_OPTIONAL);
    int item = group(items, "element", INLAY_OPTIONAL);
    add(item, "x", INLAY_REQUIRED, inlay_type_double());
    int grid = list_of(item, "grid", INLAY_REQUIRED);
    int row = list_of(grid, "element", INLAY_OPTIONAL);
    add(row, "element", INLAY_OPTIONAL, inlay_type_int(32, true));
}

static const char nested_text[] =
    "message schema {\n"
    "  required int64 id (INTEGER(64,true));\n"
    "  optional group tags (LIST) {\n"
    "    repeated group list {\n"
    "      optional binary element (STRING);\n"
    "    }\n"
    "  }\n"
    "  required group attrs (MAP) {\n"
    "    repeated group key_value {\n"
    "      required binary key (STRING);\n"
    "      optional group value (LIST) {\n"
    "        repeated group list {\n"
    "          required int64 element (INTEGER(64,true));\n"
    "        }\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "  optional group items (LIST) {\n"
    "    repeated group list {\n"
    "      optional group element {\n"
    "        required double x;\n"
    "        required group grid (LIST) {\n"
    "          repeated group list {\n"
    "            optional group element (LIST) {\n"
    "              repeated group list {\n"
    "                optional int32 element (INTEGER(32,true));\n"
    "              }\n"
    "            }\n"
    "          }\n"
    "        }\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "}\n";

START_TEST(test_nested_format_and_levels)
{
    add_nested_schema();
    char *text = format();
    ck_assert_str_eq(text, nested_text);
    free(text);
    ck_assert_int_eq(inl_schema_finalize(s), 0);
    ck_assert_int_eq(s->num_leaves, 6);
    EXPECT_LEAF(0, "id", 0, 0);
    EXPECT_LEAF(1, "tags.list.element", 3, 1);
    EXPECT_LEAF(2, "attrs.key_value.key", 1, 1);
    EXPECT_LEAF(3, "attrs.key_value.value.list.element", 3, 2);
    EXPECT_LEAF(4, "items.list.element.x", 3, 1);
    EXPECT_LEAF(5, "items.list.element.grid.list.element.list.element", 7, 3);
    /* a clone (what a writer keeps) carries the annotations */
    inlay_allocator a = inl_mem_default();
    inlay_schema *c = inl_schema_clone(s, &a);
    ck_assert_ptr_nonnull(c);
    inlay_schema_free(s);
    s = c;
    text = format();
    ck_assert_str_eq(text, nested_text);
    free(text);
}
END_TEST

START_TEST(test_nested_add_errors)
{
    EXPECT_SCHEMA_ERROR(inlay_schema_add_list(s, 0, "l", INLAY_REPEATED), "'l'");
    ck_assert_ptr_nonnull(strstr(inlay_schema_errmsg(s), "not repeated"));
    EXPECT_SCHEMA_ERROR(inlay_schema_add_map(s, 0, "m", INLAY_REPEATED), "'m'");
    EXPECT_SCHEMA_ERROR(inlay_schema_add_list(s, 0, "", INLAY_OPTIONAL), "empty name");
    int leafid = add(0, "flat", INLAY_REQUIRED, inlay_type_boolean());
    EXPECT_SCHEMA_ERROR(inlay_schema_add_list(s, leafid, "l", INLAY_OPTIONAL), "not a group");
    EXPECT_SCHEMA_ERROR(inlay_schema_add_map(s, 0, "flat", INLAY_OPTIONAL), "duplicate");

    int tags = list_of(0, "tags", INLAY_OPTIONAL);
    int outer = s->nodes[tags].parent;
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, tags, "item", INLAY_OPTIONAL, inlay_type_string(), NULL),
                        "tags.list.item");
    ck_assert_ptr_nonnull(strstr(inlay_schema_errmsg(s), "'element'"));
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, tags, "element", INLAY_REPEATED, inlay_type_string(), NULL),
                        "tags.list.element");
    EXPECT_SCHEMA_ERROR(inlay_schema_add_group(s, tags, "element", INLAY_REPEATED), "not repeated");
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, outer, "extra", INLAY_OPTIONAL, inlay_type_string(), NULL),
                        "tags.extra");
    ck_assert_ptr_nonnull(strstr(inlay_schema_errmsg(s), "LIST 'tags' holds only its repeated group 'list'"));
    EXPECT_SCHEMA_ERROR(inlay_schema_add_group(s, outer, "list", INLAY_REPEATED), "duplicate");
    add(tags, "element", INLAY_OPTIONAL, inlay_type_string());
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, tags, "element2", INLAY_OPTIONAL, inlay_type_string(), NULL),
                        "already has its element");
    EXPECT_SCHEMA_ERROR(inlay_schema_add_list(s, tags, "element", INLAY_OPTIONAL), "duplicate");

    int m = map_of(0, "attrs", INLAY_OPTIONAL);
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, m, "value", INLAY_OPTIONAL, inlay_type_string(), NULL),
                        "attrs.key_value.value");
    ck_assert_ptr_nonnull(strstr(inlay_schema_errmsg(s), "must be its 'key'"));
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, m, "key", INLAY_OPTIONAL, inlay_type_string(), NULL),
                        "map key must be required");
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, s->nodes[m].parent, "key", INLAY_REQUIRED, inlay_type_string(), NULL),
                        "MAP 'attrs' holds only its repeated group 'key_value'");
    add(m, "key", INLAY_REQUIRED, inlay_type_string());
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, m, "key", INLAY_REQUIRED, inlay_type_string(), NULL), "duplicate");
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, m, "val", INLAY_OPTIONAL, inlay_type_string(), NULL),
                        "attrs.key_value.val");
    EXPECT_SCHEMA_ERROR(inlay_schema_add_group(s, m, "value", INLAY_REPEATED), "not repeated");
    add(m, "value", INLAY_REQUIRED, inlay_type_double());
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, m, "more", INLAY_OPTIONAL, inlay_type_string(), NULL),
                        "already has its key and value");

    ck_assert_int_eq(inlay_schema_add_list(NULL, 0, "x", INLAY_OPTIONAL), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inlay_schema_add_map(NULL, 0, "x", INLAY_OPTIONAL), INLAY_ERR_ARGUMENT);
    ck_assert_int_eq(inl_schema_finalize(s), 0);
}
END_TEST

/* inl_schema_finalize again, after the nodes may have been edited by hand. */
static int refinalize(void)
{
    s->finalized = false;
    return inl_schema_finalize(s);
}

#define EXPECT_FINALIZE_ERROR(what)                                                      \
    do {                                                                                 \
        ck_assert_int_eq(refinalize(), INLAY_ERR_SCHEMA);                                \
        ck_assert_msg(strstr(inlay_schema_errmsg(s), (what)) != NULL,                    \
                      "message \"%s\" does not mention \"%s\"", inlay_schema_errmsg(s), (what)); \
    } while (0)

START_TEST(test_nested_finalize_errors)
{
    /* a list or a map left without its fields */
    add(0, "x", INLAY_REQUIRED, inlay_type_boolean());
    int g = group(0, "g", INLAY_OPTIONAL);
    int l = list_of(g, "tags", INLAY_OPTIONAL);
    EXPECT_FINALIZE_ERROR("LIST 'g.tags' has no element (add it under 'g.tags.list')");
    add(l, "element", INLAY_REQUIRED, inlay_type_string());
    ck_assert_int_eq(inl_schema_finalize(s), 0);
    int m = map_of(0, "m", INLAY_OPTIONAL);
    EXPECT_FINALIZE_ERROR("MAP 'm' has no key");
    add(m, "key", INLAY_REQUIRED, inlay_type_string());
    ck_assert_int_eq(inl_schema_finalize(s), 0);
    /* the writer refuses it too */
    map_of(0, "empty", INLAY_REQUIRED);
    inlay_buffer b;
    inlay_buffer_init(&b, NULL);
    inlay_writer *w = NULL;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&b), s, NULL), INLAY_ERR_SCHEMA);
    ck_assert_ptr_nonnull(strstr(inlay_writer_errmsg(w), "MAP 'empty' has no key"));
    inlay_writer_free(w);
    inlay_buffer_free(&b);
}
END_TEST

/* Add a double under parent past the checks that the annotation of group
 * g would make (to build what they refuse). */
static void unannotated_add(int g, int parent, const char *name, inlay_repetition rep)
{
    schema_group a = s->nodes[g].annotation;
    s->nodes[g].annotation = GROUP_PLAIN;
    add(parent, name, rep, inlay_type_double());
    s->nodes[g].annotation = a;
}

/* Annotations put on groups built by hand (as a reader of an older file
 * might hand them over): the shapes the spec allows pass, the rest are
 * refused by name. */
START_TEST(test_nested_hand_made)
{
    /* the 2-level form: the repeated primitive is the element */
    int legacy = group(0, "legacy", INLAY_OPTIONAL);
    add(legacy, "item", INLAY_REPEATED, inlay_type_int(32, true));
    s->nodes[legacy].annotation = GROUP_LIST;
    ck_assert_int_eq(refinalize(), 0);
    EXPECT_LEAF(0, "legacy.item", 2, 1);
    char *text = format();
    ck_assert_ptr_nonnull(strstr(text, "optional group legacy (LIST) {\n    repeated int32 item"));
    free(text);

    /* a repeated list */
    int rl = group(0, "rl", INLAY_REPEATED);
    int rl_list = group(rl, "list", INLAY_REPEATED);
    add(rl_list, "element", INLAY_OPTIONAL, inlay_type_double());
    s->nodes[rl].annotation = GROUP_LIST;
    EXPECT_FINALIZE_ERROR("LIST 'rl' is repeated");
    s->nodes[rl].rep = INLAY_OPTIONAL;
    ck_assert_int_eq(refinalize(), 0);

    /* its one field must be repeated */
    int two = group(0, "two", INLAY_OPTIONAL);
    int two_list = group(two, "list", INLAY_REQUIRED);
    add(two_list, "element", INLAY_OPTIONAL, inlay_type_double());
    s->nodes[two].annotation = GROUP_LIST;
    EXPECT_FINALIZE_ERROR("LIST 'two' must hold exactly one field, a repeated group");
    s->nodes[two_list].rep = INLAY_REPEATED;
    ck_assert_int_eq(refinalize(), 0);
    /* and be the only one */
    unannotated_add(two, two, "beside", INLAY_REPEATED);
    EXPECT_FINALIZE_ERROR("LIST 'two' must hold exactly one field");
    s->nodes[two].annotation = GROUP_PLAIN;

    /* 3-level: one element named 'element', not repeated */
    int named = group(0, "named", INLAY_OPTIONAL);
    int bag = group(named, "bag", INLAY_REPEATED);
    int item = add(bag, "item", INLAY_OPTIONAL, inlay_type_double());
    s->nodes[named].annotation = GROUP_LIST;
    EXPECT_FINALIZE_ERROR("LIST 'named' must hold 'list.element', not 'bag.item'");
    inl_mem_strfree(&s->alloc, s->nodes[bag].name);
    s->nodes[bag].name = inl_mem_strdup(&s->alloc, "list");
    inl_mem_strfree(&s->alloc, s->nodes[item].name);
    s->nodes[item].name = inl_mem_strdup(&s->alloc, "element");
    s->nodes[item].rep = INLAY_REPEATED;
    EXPECT_FINALIZE_ERROR("LIST 'named': its element is repeated");
    s->nodes[item].rep = INLAY_REQUIRED;
    ck_assert_int_eq(refinalize(), 0);
    unannotated_add(named, bag, "other", INLAY_REQUIRED);
    EXPECT_FINALIZE_ERROR("LIST 'named' must hold one element in 'named.list', not 2 fields");
    s->nodes[named].annotation = GROUP_PLAIN;

    /* maps: key_value with a required key first, then at most a value */
    int m = group(0, "m", INLAY_OPTIONAL);
    int kv = group(m, "key_value", INLAY_REPEATED);
    int v = add(kv, "value", INLAY_OPTIONAL, inlay_type_double());
    int k = add(kv, "key", INLAY_REQUIRED, inlay_type_string());
    s->nodes[m].annotation = GROUP_MAP;
    EXPECT_FINALIZE_ERROR("MAP 'm': the first field of 'm.key_value' must be the required 'key'");
    /* swap the two into order */
    s->nodes[kv].first_child = k;
    s->nodes[kv].last_child = v;
    s->nodes[k].next_sibling = v;
    s->nodes[v].next_sibling = -1;
    ck_assert_int_eq(refinalize(), 0);
    s->nodes[v].rep = INLAY_REPEATED;
    EXPECT_FINALIZE_ERROR("MAP 'm': the second field of 'm.key_value' must be a required or optional 'value'");
    s->nodes[v].rep = INLAY_REQUIRED;
    s->nodes[k].rep = INLAY_OPTIONAL;
    EXPECT_FINALIZE_ERROR("the required 'key'");
    s->nodes[k].rep = INLAY_REQUIRED;
    unannotated_add(m, kv, "third", INLAY_REQUIRED);
    EXPECT_FINALIZE_ERROR("MAP 'm' must hold a key and at most a value in 'm.key_value', not 3 fields");
    s->nodes[m].annotation = GROUP_PLAIN;

    int pm = group(0, "pm", INLAY_REQUIRED);
    add(pm, "key_value", INLAY_REPEATED, inlay_type_string());
    s->nodes[pm].annotation = GROUP_MAP;
    EXPECT_FINALIZE_ERROR("MAP 'pm' must hold the repeated group 'key_value', not 'key_value'");
    s->nodes[pm].annotation = GROUP_PLAIN;
    int rm = group(0, "rm", INLAY_REPEATED);
    int rkv = group(rm, "key_value", INLAY_REPEATED);
    add(rkv, "key", INLAY_REQUIRED, inlay_type_string());
    s->nodes[rm].annotation = GROUP_MAP;
    EXPECT_FINALIZE_ERROR("MAP 'rm' is repeated");
    s->nodes[rm].rep = INLAY_OPTIONAL;
    ck_assert_int_eq(refinalize(), 0);
}
END_TEST

/* The SchemaElements of a footer, as far as the tests look at them. */
typedef struct elem {
    char name[32];
    int type, repetition, num_children, converted;   /* -1 when absent */
    int logical;             /* the LogicalType union's field id; -1 when absent */
    bool logical_empty;      /* that field is an empty struct */
} elem;

static int read_elements(const uint8_t *file, size_t len, elem *out, int max)
{
    uint32_t mlen = (uint32_t)file[len - 8] | (uint32_t)file[len - 7] << 8 |
                    (uint32_t)file[len - 6] << 16 | (uint32_t)file[len - 5] << 24;
    tr r = tr_make(file + len - 8 - mlen, mlen);
    int16_t last = 0, id;
    int type, elem_type, n = -1;
    uint32_t count;
    while (tr_field(&r, &last, &id, &type)) {
        if (id != 2) { tr_skip(&r, type); continue; }
        tr_list(&r, &elem_type, &count);
        ck_assert_int_le((int)count, max);
        for (n = 0; n < (int)count && !r.err; n++) {
            elem *e = &out[n];
            memset(e, 0, sizeof *e);
            e->type = e->repetition = e->num_children = e->converted = e->logical = -1;
            int16_t l2 = 0, id2;
            int t2;
            while (tr_field(&r, &l2, &id2, &t2)) {
                switch (id2) {
                case 1: e->type = (int)tr_zigzag(&r); break;
                case 3: e->repetition = (int)tr_zigzag(&r); break;
                case 4: {
                    size_t nl;
                    const uint8_t *p = tr_binary(&r, &nl);
                    ck_assert_uint_lt(nl, sizeof e->name);
                    memcpy(e->name, p, nl);
                    e->name[nl] = 0;
                    break;
                }
                case 5: e->num_children = (int)tr_zigzag(&r); break;
                case 6: e->converted = (int)tr_zigzag(&r); break;
                case 10: {
                    int16_t l3 = 0, id3;
                    int t3;
                    while (tr_field(&r, &l3, &id3, &t3)) {
                        ck_assert_int_eq(t3, TR_STRUCT);
                        e->logical = id3;
                        int16_t l4 = 0, id4;
                        int t4;
                        e->logical_empty = true;
                        while (tr_field(&r, &l4, &id4, &t4)) {
                            e->logical_empty = false;
                            tr_skip(&r, t4);
                        }
                    }
                    break;
                }
                default: tr_skip(&r, t2); break;
                }
            }
        }
    }
    ck_assert_int_eq(r.err, 0);
    ck_assert_ptr_eq(r.p, r.end);
    return n;
}

START_TEST(test_nested_footer)
{
    add_nested_schema();
    inlay_buffer b;
    inlay_buffer_init(&b, NULL);
    inlay_writer *w = NULL;
    ck_assert_int_eq(inlay_writer_open(&w, inlay_buffer_sink(&b), s, NULL), INLAY_OK);
    /* two rows: {id 1, tags ["a", null], attrs {"k": [5]}, items [{x 1, grid [[1, null], null]}]}
     * and {id 2, tags null, attrs {}, items [null, {x 2, grid []}]} */
    static const int64_t id[] = { 1, 2 };
    static const inlay_bytes tags[] = { { "a", 1 } }, keys[] = { { "k", 1 } };
    static const int16_t tags_def[] = { 3, 2, 0 }, tags_rep[] = { 0, 1, 0 };
    static const int16_t key_def[] = { 1, 0 }, key_rep[] = { 0, 0 };
    static const int64_t vals[] = { 5 };
    static const int16_t val_def[] = { 3, 0 }, val_rep[] = { 0, 0 };
    static const double x[] = { 1, 2 };
    static const int16_t x_def[] = { 3, 2, 3 }, x_rep[] = { 0, 0, 1 };
    static const int32_t cells[] = { 1 };
    static const int16_t cell_def[] = { 7, 6, 4, 2, 3 }, cell_rep[] = { 0, 3, 2, 0, 1 };
    ck_assert_int_eq(inlay_writer_append_i64(w, 0, id, 2, NULL), INLAY_OK);
    ck_assert_int_eq(inlay_writer_append_bytes(w, 1, tags, 3, &(inlay_levels){ tags_def, tags_rep, NULL }), INLAY_OK);
    ck_assert_int_eq(inlay_writer_append_bytes(w, 2, keys, 2, &(inlay_levels){ key_def, key_rep, NULL }), INLAY_OK);
    ck_assert_int_eq(inlay_writer_append_i64(w, 3, vals, 2, &(inlay_levels){ val_def, val_rep, NULL }), INLAY_OK);
    ck_assert_int_eq(inlay_writer_append_double(w, 4, x, 3, &(inlay_levels){ x_def, x_rep, NULL }), INLAY_OK);
    ck_assert_int_eq(inlay_writer_append_i32(w, 5, cells, 5, &(inlay_levels){ cell_def, cell_rep, NULL }),
                     INLAY_OK);
    ck_assert_int_eq(inlay_writer_column(w, "items.list.element.grid.list.element.list.element"), 5);
    ck_assert_int_eq(inlay_writer_close(w), INLAY_OK);
    ck_assert_uint_eq(inlay_writer_rows(w), 2);
    inlay_writer_free(w);

    elem e[32];
    int n = read_elements(b.data, b.len, e, 32);
    enum { REQ = 0, OPT = 1, REP = 2, NONE = -1, CT_UTF8 = 0, CT_MAP = 1, CT_LIST = 3, CT_INT_32 = 17,
           CT_INT_64 = 18, LT_STRING = 1, LT_MAP = 2, LT_LIST = 3, LT_INT = 10 };
    static const struct { const char *name; int rep, children, converted, logical; } want[] = {
        { "schema", NONE, 4, NONE, NONE },
        { "id", REQ, NONE, CT_INT_64, LT_INT },
        { "tags", OPT, 1, CT_LIST, LT_LIST },
        { "list", REP, 1, NONE, NONE },
        { "element", OPT, NONE, CT_UTF8, LT_STRING },
        { "attrs", REQ, 1, CT_MAP, LT_MAP },
        { "key_value", REP, 2, NONE, NONE },       /* no MAP_KEY_VALUE */
        { "key", REQ, NONE, CT_UTF8, LT_STRING },
        { "value", OPT, 1, CT_LIST, LT_LIST },
        { "list", REP, 1, NONE, NONE },
        { "element", REQ, NONE, CT_INT_64, LT_INT },
        { "items", OPT, 1, CT_LIST, LT_LIST },
        { "list", REP, 1, NONE, NONE },
        { "element", OPT, 2, NONE, NONE },          /* a struct: no annotation */
        { "x", REQ, NONE, NONE, NONE },
        { "grid", REQ, 1, CT_LIST, LT_LIST },
        { "list", REP, 1, NONE, NONE },
        { "element", OPT, 1, CT_LIST, LT_LIST },
        { "list", REP, 1, NONE, NONE },
        { "element", OPT, NONE, CT_INT_32, LT_INT },
    };
    ck_assert_int_eq(n, (int)(sizeof want / sizeof want[0]));
    for (int i = 0; i < n; i++) {
        ck_assert_msg(strcmp(e[i].name, want[i].name) == 0, "element %d is %s, expected %s", i, e[i].name,
                      want[i].name);
        ck_assert_msg(e[i].repetition == want[i].rep && e[i].num_children == want[i].children &&
                      e[i].converted == want[i].converted && e[i].logical == want[i].logical,
                      "element %d (%s): repetition %d children %d converted %d logical %d", i, e[i].name,
                      e[i].repetition, e[i].num_children, e[i].converted, e[i].logical);
        ck_assert_int_eq(e[i].type < 0, want[i].children >= 0);   /* groups have no physical type */
        if (want[i].logical == LT_LIST || want[i].logical == LT_MAP) ck_assert(e[i].logical_empty);
    }
    inlay_buffer_free(&b);
}
END_TEST

/* add_list and add_map make two nodes: when either allocation fails the
 * call returns INLAY_ERR_NOMEM and the schema is as before. */
START_TEST(test_nested_nomem)
{
    for (int which = 0; which < 2; which++) {
        for (unsigned long n = 1;; n++) {
            test_alloc ta = { 0 };
            inlay_allocator a = test_allocator(&ta);
            inlay_schema *t = inlay_schema_create(&a);
            ck_assert_ptr_nonnull(t);
            for (int i = 0; i < 15; i++) {     /* fill the node array but one, so it grows mid-call */
                char name[8];
                snprintf(name, sizeof name, "c%d", i);
                ck_assert_int_gt(inlay_schema_add(t, 0, name, INLAY_OPTIONAL, inlay_type_double(), NULL), 0);
            }
            size_t len = inlay_schema_format(t, NULL, 0);
            char *before = malloc(len + 1), *after = malloc(len + 1);
            inlay_schema_format(t, before, len + 1);
            const int count = t->count;
            ta.fail_at = ta.requests + n;
            int st = which ? inlay_schema_add_map(t, 0, "m", INLAY_OPTIONAL)
                           : inlay_schema_add_list(t, 0, "l", INLAY_OPTIONAL);
            if (st > 0) {
                ck_assert_uint_eq(ta.refused, 0);
                ck_assert_uint_ge(n, 4);       /* the node array and both names failed in turn */
                inlay_schema_free(t);
                free(before);
                free(after);
                ck_assert_no_leak(&ta);
                break;
            }
            ck_assert_int_eq(st, INLAY_ERR_NOMEM);
            ck_assert_uint_eq(ta.refused, 1);
            ck_assert_int_eq(t->count, count);
            ck_assert_uint_eq(inlay_schema_format(t, after, len + 1), len);
            ck_assert_str_eq(after, before);
            /* still usable */
            ta.fail_at = 0;
            int again = which ? inlay_schema_add_map(t, 0, "m", INLAY_OPTIONAL)
                              : inlay_schema_add_list(t, 0, "l", INLAY_OPTIONAL);
            ck_assert_int_gt(again, 0);
            inlay_schema_free(t);
            free(before);
            free(after);
            ck_assert_no_leak(&ta);
        }
    }
}
END_TEST

/* ---- names -------------------------------------------------------------------------------- */

/* A name reaches the footer as a string that readers decode as UTF-8 (and
 * refuse when they cannot), so every call that takes one refuses a bad
 * one, naming it escaped. */
START_TEST(test_name_not_utf8)
{
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, "\xff\xfe", INLAY_REQUIRED, inlay_type_int(64, true), NULL),
                        "field '\\xff\\xfe': the name is not valid UTF-8");
    EXPECT_SCHEMA_ERROR(inlay_schema_add_group(s, 0, "g\xff", INLAY_OPTIONAL), "field 'g\\xff'");
    EXPECT_SCHEMA_ERROR(inlay_schema_add_list(s, 0, "\xc3", INLAY_OPTIONAL), "field '\\xc3'");
    EXPECT_SCHEMA_ERROR(inlay_schema_add_map(s, 0, "m\x80", INLAY_OPTIONAL), "field 'm\\x80'");
    /* nested: the message has the parent's path */
    int g = group(0, "g", INLAY_OPTIONAL);
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, g, "x\xfe", INLAY_REQUIRED, inlay_type_boolean(), NULL),
                        "field 'g.x\\xfe': the name is not valid UTF-8");
    EXPECT_SCHEMA_ERROR(inlay_schema_add_group(s, g, "\xe2\x82", INLAY_OPTIONAL), "field 'g.\\xe2\\x82'");
    /* the check comes first: a bad name under a bad parent still says why */
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 999, "\xff", INLAY_REQUIRED, inlay_type_boolean(), NULL),
                        "field '\\xff': the name is not valid UTF-8");
    ck_assert_int_eq(inlay_schema_num_columns(s), 0);
}
END_TEST

/* What RFC 3629 rules out, each refused; valid characters around a bad
 * byte are shown as they are, control characters and backslashes escaped. */
START_TEST(test_name_not_utf8_forms)
{
    static const struct { const char *name, *shown; } bad[] = {
        { "\xc0\xaf", "\\xc0\\xaf" },               /* overlong '/' */
        { "\xe0\x80\xaf", "\\xe0\\x80\\xaf" },       /* overlong, 3 bytes */
        { "\xed\xa0\x80", "\\xed\\xa0\\x80" },       /* a surrogate */
        { "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" }, /* past U+10FFFF */
        { "\xf8\x88\x80\x80\x80", "\\xf8\\x88\\x80\\x80\\x80" },
        { "caf\xc3\xa9\xff", "caf\xc3\xa9\\xff" },    /* é kept, the stray byte escaped */
        { "a\\b\n\xff", "a\\\\b\\x0a\\xff" },
        { "\xe6\x97\xa5\xe6\x97", "\xe6\x97\xa5\\xe6\\x97" },   /* a character cut short */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[128];
        snprintf(want, sizeof want, "field '%s': the name is not valid UTF-8", bad[i].shown);
        EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, bad[i].name, INLAY_OPTIONAL, inlay_type_string(), NULL), want);
    }
    /* a long bad name is cut in the message, not overflowed */
    char longname[1200];
    memset(longname, 0xff, sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, 0, longname, INLAY_OPTIONAL, inlay_type_string(), NULL),
                        "field '\\xff\\xff");
}
END_TEST

START_TEST(test_name_utf8_accepted)
{
    add(0, "caf\xc3\xa9", INLAY_REQUIRED, inlay_type_int(64, true));           /* café */
    add(0, "\xe6\x97\xa5\xe6\x9c\xac", INLAY_OPTIONAL, inlay_type_string());  /* 日本 */
    int g = group(0, "\xf0\x9f\x98\x80", INLAY_OPTIONAL);                     /* U+1F600 */
    add(g, "\xf4\x8f\xbf\xbf", INLAY_REQUIRED, inlay_type_boolean());         /* U+10FFFF */
    ck_assert_int_eq(inl_schema_finalize(s), 0);
    ck_assert_int_eq(s->num_leaves, 3);
    ck_assert_str_eq(s->leaves[2].path, "\xf0\x9f\x98\x80.\xf4\x8f\xbf\xbf");
    char *text = format();
    ck_assert_ptr_nonnull(strstr(text, "required int64 caf\xc3\xa9 (INTEGER(64,true));"));
    free(text);
}
END_TEST

START_TEST(test_empty_name_nested)
{
    int g = group(0, "g", INLAY_OPTIONAL);
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, g, "", INLAY_REQUIRED, inlay_type_boolean(), NULL),
                        "a field of 'g' has an empty name");
    int tags = inlay_schema_add_list(s, 0, "tags", INLAY_OPTIONAL);
    ck_assert_int_gt(tags, 0);
    EXPECT_SCHEMA_ERROR(inlay_schema_add(s, tags, NULL, INLAY_REQUIRED, inlay_type_boolean(), NULL),
                        "a field of 'tags.list' has an empty name");
}
END_TEST

/* Names from an Arrow schema go through the same calls. */
START_TEST(test_name_from_arrow)
{
    struct ArrowSchema good = { .format = "l", .name = "ok", .flags = 2 };
    struct ArrowSchema bad = { .format = "l", .name = "id\xff", .flags = 2 };
    struct ArrowSchema *kids[] = { &good, &bad };
    struct ArrowSchema root = { .format = "+s", .name = "", .n_children = 2, .children = kids };
    inlay_schema *out = NULL;
    char err[256];
    ck_assert_int_eq(inlay_schema_from_arrow(&out, &root, NULL, err, sizeof err), INLAY_ERR_SCHEMA);
    ck_assert_ptr_null(out);
    ck_assert_msg(strstr(err, "field 'id\\xff': the name is not valid UTF-8") != NULL, "%s", err);
    struct ArrowSchema other = { .format = "l", .name = "z\xc3\xa9", .flags = 2 };
    kids[1] = &other;
    ck_assert_int_eq(inlay_schema_from_arrow(&out, &root, NULL, err, sizeof err), INLAY_OK);
    inlay_schema_free(out);
}
END_TEST

static Suite *schema_suite(void)
{
    Suite *su = suite_create("schema");
    TCase *c;

    c = tcase_create("printing");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_format_every_type);
    tcase_add_test(c, test_format_empty);
    tcase_add_test(c, test_format_truncated);
    suite_add_tcase(su, c);

    c = tcase_create("errors");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_duplicate_name);
    tcase_add_test(c, test_duplicate_nested);
    tcase_add_test(c, test_empty_name);
    tcase_add_test(c, test_bad_parent);
    tcase_add_test(c, test_bad_repetition);
    tcase_add_test(c, test_decimal_precision);
    tcase_add_test(c, test_decimal_names_nested_field);
    tcase_add_test(c, test_bad_types);
    tcase_add_test(c, test_bad_options);
    tcase_add_test(c, test_null_schema);
    suite_add_tcase(su, c);

    c = tcase_create("names");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_name_not_utf8);
    tcase_add_test(c, test_name_not_utf8_forms);
    tcase_add_test(c, test_name_utf8_accepted);
    tcase_add_test(c, test_empty_name_nested);
    tcase_add_test(c, test_name_from_arrow);
    suite_add_tcase(su, c);

    c = tcase_create("layout and levels");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_levels);
    tcase_add_test(c, test_depth_first_when_added_out_of_order);
    tcase_add_test(c, test_finalize_again_after_add);
    tcase_add_test(c, test_sort_orders);
    tcase_add_test(c, test_empty_groups);
    tcase_add_test(c, test_clone);
    suite_add_tcase(su, c);

    c = tcase_create("nested groups");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_list_builder);
    tcase_add_test(c, test_map_builder);
    tcase_add_test(c, test_levels_list_of_lists);
    tcase_add_test(c, test_levels_list_of_structs);
    tcase_add_test(c, test_levels_map_of_lists);
    tcase_add_test(c, test_nested_format_and_levels);
    tcase_add_test(c, test_nested_add_errors);
    tcase_add_test(c, test_nested_finalize_errors);
    tcase_add_test(c, test_nested_hand_made);
    tcase_add_test(c, test_nested_footer);
    tcase_add_test(c, test_nested_nomem);
    suite_add_tcase(su, c);

    c = tcase_create("memory");
    tcase_add_test(c, test_allocator_used);
    tcase_add_test(c, test_nomem);
    suite_add_tcase(su, c);

    return su;
}

int main(void)
{
    SRunner *sr = srunner_create(schema_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
