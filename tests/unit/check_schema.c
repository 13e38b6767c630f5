/*
 * check_schema.c — the schema tree (runtime/schema.c): the printed
 * message type for every type, the errors of inlay_schema_add (each naming
 * the field) that leave the schema unchanged, and the layout
 * schema_finalize computes: depth-first leaves, their paths and their
 * maximum definition and repetition levels.
 */
#define _POSIX_C_SOURCE 200809L
#include "schema.h"

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

START_TEST(test_type_names)
{
    char tmp[32];
    ck_assert_str_eq(schema_type_name(&(inlay_type){ .physical = INLAY_INT64 }, tmp, sizeof tmp), "int64");
    inlay_type t = inlay_type_int(16, false);
    ck_assert_str_eq(schema_type_name(&t, tmp, sizeof tmp), "uint16");
    t = inlay_type_decimal(9, 2, INLAY_INT32, 0);
    ck_assert_str_eq(schema_type_name(&t, tmp, sizeof tmp), "decimal(9,2)");
    t = inlay_type_fixed(16);
    ck_assert_str_eq(schema_type_name(&t, tmp, sizeof tmp), "fixed(16)");
    t = inlay_type_timestamp(INLAY_NANOS, true);
    ck_assert_str_eq(schema_type_name(&t, tmp, sizeof tmp), "timestamp(NANOS)");
    t = inlay_type_string();
    ck_assert_str_eq(schema_type_name(&t, tmp, sizeof tmp), "string");
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

    ck_assert_int_eq(schema_finalize(s), 0);
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
    ck_assert_int_eq(schema_finalize(s), 0);
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
    ck_assert_int_eq(schema_finalize(s), 0);
    ck_assert_int_eq(s->num_leaves, 1);
    add(0, "y", INLAY_OPTIONAL, inlay_type_boolean());
    ck_assert_int_eq(schema_finalize(s), 0);
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
    ck_assert_int_eq(schema_finalize(s), 0);
    static const stats_order want[] = { ORDER_SIGNED, ORDER_UNSIGNED, ORDER_UNSIGNED, ORDER_FLOAT,
                                        ORDER_BYTES, ORDER_DECIMAL_BYTES, ORDER_FLOAT16, ORDER_BYTES,
                                        ORDER_SIGNED };
    for (int i = 0; i < 9; i++) ck_assert_int_eq(leaf(i)->order, want[i]);
}
END_TEST

START_TEST(test_empty_groups)
{
    ck_assert_int_eq(schema_finalize(s), INLAY_ERR_SCHEMA);
    ck_assert_ptr_nonnull(strstr(inlay_schema_errmsg(s), "no fields"));
    add(0, "x", INLAY_REQUIRED, inlay_type_boolean());
    int g = group(0, "g", INLAY_OPTIONAL);
    group(g, "empty", INLAY_OPTIONAL);
    ck_assert_int_eq(schema_finalize(s), INLAY_ERR_SCHEMA);
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
    inlay_allocator a = mem_default();
    inlay_schema *c = schema_clone(s, &a);
    ck_assert_ptr_nonnull(c);
    inlay_schema_free(s);
    s = c;                              /* the teardown frees the clone */
    char *text = format();
    ck_assert_str_eq(text, every_type);
    free(text);
    ck_assert_int_eq(schema_finalize(s), 0);
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
    ck_assert_int_eq(schema_finalize(t), 0);
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
    return schema_finalize(t);
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

static Suite *schema_suite(void)
{
    Suite *su = suite_create("schema");
    TCase *c;

    c = tcase_create("printing");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_format_every_type);
    tcase_add_test(c, test_format_empty);
    tcase_add_test(c, test_format_truncated);
    tcase_add_test(c, test_type_names);
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

    c = tcase_create("layout and levels");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_levels);
    tcase_add_test(c, test_depth_first_when_added_out_of_order);
    tcase_add_test(c, test_finalize_again_after_add);
    tcase_add_test(c, test_sort_orders);
    tcase_add_test(c, test_empty_groups);
    tcase_add_test(c, test_clone);
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
