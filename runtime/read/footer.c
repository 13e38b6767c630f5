/*
 * footer.c — a file's FileMetaData and PageHeaders, decoded and checked
 * (see footer.h).
 *
 * Two passes over the footer. Thrift lets a struct's fields come in any
 * order and the row groups can only be checked against the schema, so the
 * first pass reads the FileMetaData's scalars and notes where its lists
 * start, skipping them (which checks their structure and bounds every
 * count by the bytes left). The second reads the schema elements, builds
 * the inlay_schema, then the column orders, the key-value metadata and the
 * row groups, checking each column chunk against its leaf and the file.
 *
 * Memory: the public view lives in a few blocks the rd_meta owns (leaves,
 * row groups, chunks, key-values, and one arena for every byte string
 * kept). Each string kept copies its own stretch of the footer, which also
 * held at least one byte of length prefix, so the arena is the footer's
 * length plus one and never grows. (A leaf's dotted path is spelled by its
 * path_in_schema in the first row group, and is only kept when there is
 * one.) The chunk array is allocated only once the footer is long enough
 * to hold that many chunks, MIN_CHUNK_BYTES each at the least, so nothing
 * allocated is out of proportion to the footer.
 *
 * The schema: inl_schema_finalize accepts a LIST only as LIST { repeated
 * group list { element } } and a MAP as MAP { repeated group key_value
 * { key [value] } }, the forms the writer writes. A file's lists and maps
 * are read into those forms, names included, whatever the file called the
 * middle group and its fields; the legacy two-level lists of
 * LogicalTypes.md ("backward-compatibility rules": a repeated primitive,
 * a repeated group of several fields, one named "array" or "<list>_tuple")
 * gain a required `element` (a primitive renamed, or a group holding the
 * repeated group's fields), which keeps every leaf's levels. A LIST or MAP
 * of no shape the rules name stays a plain group, its repeated field a
 * bare repeated one. Levels are checked leaf by leaf against the file's
 * after the schema is finalized, and chunks are matched by the file's own
 * paths, which rd_meta keeps in the chunk infos.
 */
#include "footer.h"

#include <stdarg.h>
#include <stdio.h>

#include "page.h"
#include "thrift_in.h"
#include "utf8.h"

enum { MAX_DEPTH = 64, MIN_CHUNK_BYTES = 16, TEXT = 256, FALLBACK = 1 };

/* LogicalType union members (parquet.thrift). */
enum { LT_STRING = 1, LT_MAP = 2, LT_LIST = 3, LT_ENUM = 4, LT_DECIMAL = 5, LT_DATE = 6, LT_TIME = 7,
       LT_TIMESTAMP = 8, LT_INTEGER = 10, LT_UNKNOWN = 11, LT_JSON = 12, LT_BSON = 13, LT_UUID = 14,
       LT_FLOAT16 = 15 };
/* ConvertedType values. */
enum { CT_UTF8 = 0, CT_MAP = 1, CT_MAP_KEY_VALUE = 2, CT_LIST = 3, CT_ENUM = 4, CT_DECIMAL = 5, CT_DATE = 6,
       CT_TIME_MILLIS = 7, CT_TIME_MICROS = 8, CT_TIMESTAMP_MILLIS = 9, CT_TIMESTAMP_MICROS = 10,
       CT_UINT_8 = 11, CT_UINT_64 = 14, CT_INT_8 = 15, CT_INT_64 = 18, CT_JSON = 19 };

/* FileMetaData fields seen. */
enum { F_VERSION = 1, F_SCHEMA = 2, F_ROWS = 4, F_ROW_GROUPS = 8, F_KV = 16, F_CREATED_BY = 32, F_ORDERS = 64,
       F_ENCRYPTION = 128 };
/* SchemaElement fields seen. */
enum { E_TYPE = 1, E_LENGTH = 2, E_REP = 4, E_NAME = 8, E_CHILDREN = 16, E_CONVERTED = 32, E_SCALE = 64,
       E_PRECISION = 128 };
/* Parameters of a logical type seen. */
enum { L_SCALE = 1, L_PRECISION = 2, L_BITS = 4, L_SIGNED = 8, L_UTC = 16, L_UNIT = 32 };
/* ColumnMetaData fields seen. */
enum { M_TYPE = 1, M_PATH = 2, M_CODEC = 4, M_VALUES = 8, M_RAW = 16, M_STORED = 32, M_DATA = 64, M_DICT = 128,
       M_BLOOM = 256, M_BLOOM_LEN = 512 };

/* One SchemaElement, with its place in the file's tree. */
typedef struct elem {
    const uint8_t *name;         /* into the footer */
    size_t name_len;
    int32_t type, type_length, rep, num_children, converted, scale, precision;
    unsigned has;                /* E_* */
    int logical;                 /* LogicalType member, 0 when absent */
    unsigned lhas;               /* L_* */
    int32_t l_scale, l_precision;
    int l_bits, l_unit;          /* unit: 1 MILLIS, 2 MICROS, 3 NANOS */
    bool l_signed, l_utc;
    bool is_group;
    int parent, end;             /* parent element; one past the subtree */
    int16_t def, replvl;         /* levels of the element's own values */
} elem;

typedef struct parse {
    rd_meta *m;
    const inlay_allocator *a;
    inl_err *err;
    size_t len;
    uint64_t data_end;           /* where the footer starts: every chunk ends before */
    ti t;
    unsigned has;                /* F_* */
    size_t schema_at, row_groups_at, kv_at, orders_at;
    const uint8_t *created_by;
    size_t created_by_len;
    elem *el;
    int nel, nleaves, next_leaf;
    int *leaf_elem;              /* the element of each leaf */
    uint8_t *order_undefined;    /* per leaf: a ColumnOrder this reader does not know */
    char *name;                  /* scratch: an element's name, NUL-terminated */
    size_t name_cap;
    size_t arena_used;
} parse;

/* ---- messages --------------------------------------------------------------- */

INL_PRINTF(2, 3) static int fail(parse *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    inl_err_vset(p->err, INLAY_ERR_FORMAT, fmt, ap);
    va_end(ap);
    return INLAY_ERR_FORMAT;
}

static int nomem(parse *p) { return inl_err_set(p->err, INLAY_ERR_NOMEM, "out of memory"); }

static int thrift_fail(parse *p)
{
    return fail(p, "footer: %s at byte %zu of %zu", p->t.err == TI_SHORT ? "cut short" : "malformed", p->t.err_at,
                p->len);
}

/* Bytes of a name as a message shows them, at out[at..]: control bytes,
 * the backslash and, in a name that is not UTF-8, bytes from 0x80 escaped.
 * Returns the new length; out stays NUL-terminated (at < cap). */
static size_t put_text(char *out, size_t cap, size_t at, const uint8_t *s, size_t n)
{
    const bool utf8 = inl_utf8_valid(s, n);
    for (size_t i = 0; i < n && at + 5 < cap; i++) {
        const uint8_t b = s[i];
        if (b < 0x20 || b == 0x7f || b == '\\' || (b >= 0x80 && !utf8))
            at += (size_t)snprintf(out + at, cap - at, b == '\\' ? "\\\\" : "\\x%02x", b);
        else
            out[at++] = (char)b;
    }
    out[at] = 0;
    return at;
}

/* The dotted path of element i in the file, for messages. */
static void elem_path(const parse *p, int i, char *out, size_t cap)
{
    int chain[MAX_DEPTH + 1], d = 0;
    for (int k = i; k > 0 && d < MAX_DEPTH + 1; k = p->el[k].parent) chain[d++] = k;
    size_t at = 0;
    out[0] = 0;
    while (d-- > 0) {
        if (at && at + 2 < cap) {
            out[at++] = '.';
            out[at] = 0;
        }
        at = put_text(out, cap, at, p->el[chain[d]].name, p->el[chain[d]].name_len);
    }
}

static const char *physical_name(int t)
{
    static const char *const names[] = { "BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY",
                                         "FIXED_LEN_BYTE_ARRAY" };
    return t >= 0 && t <= PT_FIXED_LEN_BYTE_ARRAY ? names[t] : "an unknown type";
}

/* ---- the arena ------------------------------------------------------------------ */

/* A copy of s[0..n) (NUL-terminated with nul) in the arena. */
static char *keep(parse *p, const uint8_t *s, size_t n, bool nul)
{
    const size_t need = n + (nul ? 1 : 0);
    if (need > p->m->arena_size - p->arena_used) {
        fail(p, "footer: more strings than the footer holds");
        return NULL;
    }
    char *d = (char *)p->m->arena + p->arena_used;
    if (n) memcpy(d, s, n);
    if (nul) d[n] = 0;
    p->arena_used += need;
    return d;
}

/* ---- FileMetaData: the first pass ---------------------------------------------- */

static int read_top(parse *p)
{
    ti *t = &p->t;
    rd_meta *m = p->m;
    int16_t last = 0, id;
    int type;
    while (inl_ti_field(t, &last, &id, &type)) {
        const size_t at = inl_ti_pos(t);
        switch (id) {
        case 1:
            if (type != TI_I32) break;
            m->info.version = inl_ti_i32(t);
            p->has |= F_VERSION;
            continue;
        case 2: if (type == TI_LIST) { p->schema_at = at; p->has |= F_SCHEMA; } break;
        case 3:
            if (type != TI_I64) break;
            m->info.num_rows = inl_ti_i64(t);
            p->has |= F_ROWS;
            continue;
        case 4: if (type == TI_LIST) { p->row_groups_at = at; p->has |= F_ROW_GROUPS; } break;
        case 5: if (type == TI_LIST) { p->kv_at = at; p->has |= F_KV; } break;
        case 6:
            if (type != TI_BINARY) break;
            p->created_by = inl_ti_binary(t, &p->created_by_len);
            p->has |= F_CREATED_BY;
            continue;
        case 7: if (type == TI_LIST) { p->orders_at = at; p->has |= F_ORDERS; } break;
        case 8: p->has |= F_ENCRYPTION; break;
        default: break;
        }
        inl_ti_skip(t, type, false, 1);
    }
    if (t->err) return thrift_fail(p);
    /* a footer signed for encryption carries its signature after the struct */
    if (inl_ti_left(t) && !(p->has & F_ENCRYPTION))
        return fail(p, "footer: %zu bytes after the FileMetaData", inl_ti_left(t));
    static const struct { unsigned bit; const char *what; } required[] = {
        { F_VERSION, "version" }, { F_SCHEMA, "schema" }, { F_ROWS, "num_rows" }, { F_ROW_GROUPS, "row_groups" },
    };
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!(p->has & required[i].bit)) return fail(p, "footer: the FileMetaData has no %s", required[i].what);
    if (m->info.num_rows < 0) return fail(p, "footer: num_rows is negative (%lld)", (long long)m->info.num_rows);
    return 0;
}

/* ---- schema elements --------------------------------------------------------------- */

static void read_unit(ti *t, elem *e)
{
    int16_t last = 0, id;
    int type;
    while (inl_ti_field(t, &last, &id, &type)) {
        if (type == TI_STRUCT && id >= 1 && id <= 3) {
            e->l_unit = id;
            e->lhas |= L_UNIT;
        }
        inl_ti_skip(t, type, false, 6);
    }
}

/* The LogicalType union: its member and the parameters inlay has. */
static void read_logical(ti *t, elem *e)
{
    int16_t last = 0, id;
    int type;
    while (inl_ti_field(t, &last, &id, &type)) {
        if (type != TI_STRUCT) {
            inl_ti_skip(t, type, false, 4);
            continue;
        }
        e->logical = id;
        e->lhas = 0;
        const bool time = id == LT_TIME || id == LT_TIMESTAMP;
        int16_t l2 = 0, id2;
        int t2;
        while (inl_ti_field(t, &l2, &id2, &t2)) {
            const bool is_bool = t2 == TI_TRUE || t2 == TI_FALSE;
            if (id == LT_DECIMAL && t2 == TI_I32 && id2 == 1) {
                e->l_scale = inl_ti_i32(t);
                e->lhas |= L_SCALE;
            } else if (id == LT_DECIMAL && t2 == TI_I32 && id2 == 2) {
                e->l_precision = inl_ti_i32(t);
                e->lhas |= L_PRECISION;
            } else if (time && id2 == 1 && is_bool) {
                e->l_utc = inl_ti_bool(t2);
                e->lhas |= L_UTC;
            } else if (time && id2 == 2 && t2 == TI_STRUCT) {
                read_unit(t, e);
            } else if (id == LT_INTEGER && id2 == 1 && t2 == TI_BYTE) {
                e->l_bits = (int8_t)inl_ti_byte(t);
                e->lhas |= L_BITS;
            } else if (id == LT_INTEGER && id2 == 2 && is_bool) {
                e->l_signed = inl_ti_bool(t2);
                e->lhas |= L_SIGNED;
            } else {
                inl_ti_skip(t, t2, false, 5);
            }
        }
    }
}

static void read_element(ti *t, elem *e)
{
    int16_t last = 0, id;
    int type;
    while (inl_ti_field(t, &last, &id, &type)) {
        if (type == TI_I32 && id >= 1 && id <= 8 && id != 4) {
            const int32_t v = inl_ti_i32(t);
            switch (id) {
            case 1: e->type = v; e->has |= E_TYPE; break;
            case 2: e->type_length = v; e->has |= E_LENGTH; break;
            case 3: e->rep = v; e->has |= E_REP; break;
            case 5: e->num_children = v; e->has |= E_CHILDREN; break;
            case 6: e->converted = v; e->has |= E_CONVERTED; break;
            case 7: e->scale = v; e->has |= E_SCALE; break;
            default: e->precision = v; e->has |= E_PRECISION; break;
            }
        } else if (id == 4 && type == TI_BINARY) {
            e->name = inl_ti_binary(t, &e->name_len);
            e->has |= E_NAME;
        } else if (id == 10 && type == TI_STRUCT) {
            read_logical(t, e);
        } else {
            inl_ti_skip(t, type, false, 3);
        }
    }
}

static int read_elements(parse *p)
{
    ti *t = &p->t;
    inl_ti_seek(t, p->schema_at);
    int type;
    const uint32_t n = inl_ti_list(t, &type);
    if (t->err) return thrift_fail(p);
    if (n == 0) return fail(p, "footer: the schema has no elements");
    if (type != TI_STRUCT) return fail(p, "footer: the schema is not a list of SchemaElements");
    /* each takes three bytes at least (a name, or the root's num_children, and a stop) */
    if (n > INT32_MAX / 4 || n > inl_ti_left(t) / 3)
        return fail(p, "footer: %u schema elements cannot fit in the footer", n);
    p->el = inl_mem_alloc(p->a, (size_t)n * sizeof *p->el);
    if (!p->el) return nomem(p);
    memset(p->el, 0, (size_t)n * sizeof *p->el);
    p->nel = (int)n;
    size_t longest = 0;
    for (uint32_t i = 0; i < n && !t->err; i++) {
        read_element(t, &p->el[i]);
        if (p->el[i].name_len > longest) longest = p->el[i].name_len;
    }
    if (t->err) return thrift_fail(p);
    p->name_cap = longest + 1;
    p->name = inl_mem_alloc(p->a, p->name_cap);
    return p->name ? 0 : nomem(p);
}

/* What an element is on its own: a named group with fields or a primitive
 * of a known type, with a repetition (but the root). */
static int check_element(parse *p, int i)
{
    elem *e = &p->el[i];
    char name[TEXT];
    put_text(name, sizeof name, 0, e->name, e->name_len);
    if (i > 0 && !(e->has & E_NAME)) return fail(p, "footer: schema element %d has no name", i);
    if (e->name_len && memchr(e->name, 0, e->name_len))
        return fail(p, "footer: schema element %d ('%s') has a NUL byte in its name", i, name);
    if ((e->has & E_CHILDREN) && e->num_children < 0)
        return fail(p, "footer: schema element %d ('%s') has %d children", i, name, (int)e->num_children);
    e->is_group = (e->has & E_CHILDREN) && e->num_children > 0;
    if (i == 0) return e->is_group ? 0 : fail(p, "footer: the schema has no columns");
    if (!(e->has & E_REP) || e->rep < INLAY_REQUIRED || e->rep > INLAY_REPEATED)
        return fail(p, "footer: schema element %d ('%s') has no valid repetition", i, name);
    if (e->is_group) return 0;
    if (!(e->has & E_TYPE)) {
        if (e->has & E_CHILDREN) return fail(p, "footer: schema element %d ('%s') is a group with no fields", i, name);
        return fail(p, "footer: schema element %d ('%s') has neither a type nor fields", i, name);
    }
    if (e->type < PT_BOOLEAN || e->type > PT_FIXED_LEN_BYTE_ARRAY)
        return fail(p, "footer: schema element %d ('%s') has the unknown type %d", i, name, (int)e->type);
    if (e->type == PT_FIXED_LEN_BYTE_ARRAY && (!(e->has & E_LENGTH) || e->type_length < 1))
        return fail(p, "footer: schema element %d ('%s') is a FIXED_LEN_BYTE_ARRAY without a width", i, name);
    return 0;
}

/* Lay the flattened elements out as a tree: every group gets exactly its
 * num_children fields, every element has a place, nesting stays within
 * MAX_DEPTH; and each element gets its levels. */
static int check_tree(parse *p)
{
    for (int i = 0; i < p->nel; i++) INL_FORWARD(check_element(p, i));
    elem *el = p->el;
    struct { int i; int32_t left; } stack[MAX_DEPTH];
    int sp = 1;
    stack[0].i = 0;
    stack[0].left = el[0].num_children;
    el[0].parent = -1;
    char path[TEXT];
    for (int i = 1; i < p->nel; i++) {
        while (sp > 0 && stack[sp - 1].left == 0) el[stack[--sp].i].end = i;
        elem *e = &el[i];
        if (sp == 0) {
            put_text(path, sizeof path, 0, e->name, e->name_len);
            return fail(p, "footer: schema element %d ('%s') is past the last field of the schema", i, path);
        }
        const elem *up = &el[stack[sp - 1].i];
        stack[sp - 1].left--;
        e->parent = stack[sp - 1].i;
        e->def = (int16_t)(up->def + (e->rep != INLAY_REQUIRED));
        e->replvl = (int16_t)(up->replvl + (e->rep == INLAY_REPEATED));
        if (!e->is_group) {
            e->end = i + 1;
            p->nleaves++;
            continue;
        }
        if (sp == MAX_DEPTH) {
            elem_path(p, i, path, sizeof path);
            return fail(p, "footer: the schema is nested deeper than %d levels at '%s'", MAX_DEPTH, path);
        }
        stack[sp].i = i;
        stack[sp].left = e->num_children;
        sp++;
    }
    while (sp > 0) {
        const int g = stack[sp - 1].i;
        if (stack[sp - 1].left) {
            elem_path(p, g, path, sizeof path);
            return fail(p, "footer: the schema ends before %s%s%s has its %d fields", g ? "group '" : "the root",
                        path, g ? "'" : "", (int)el[g].num_children);
        }
        el[g].end = p->nel;
        sp--;
    }
    return 0;
}

/* ---- types ------------------------------------------------------------------------------ */

static inlay_type base_type(const elem *e)
{
    switch (e->type) {
    case PT_FIXED_LEN_BYTE_ARRAY: return inlay_type_fixed(e->type_length);
    case PT_BYTE_ARRAY: return inlay_type_binary();
    default: return inlay_type_physical((inlay_physical)e->type);
    }
}

static inlay_time_unit unit_of(int u) { return u == 1 ? INLAY_MILLIS : u == 2 ? INLAY_MICROS : INLAY_NANOS; }

/* The type the LogicalType says into *t; false for a member this reader
 * does not know (the converted type decides then). A known member that
 * inlay has no type for, or with parameters missing, leaves *t alone. */
static bool from_logical(const elem *e, inlay_type *t)
{
    const inlay_physical p = (inlay_physical)e->type;
    switch (e->logical) {
    case LT_STRING: *t = inlay_type_string(); return true;
    case LT_ENUM: *t = inlay_type_enum(); return true;
    case LT_JSON: *t = inlay_type_json(); return true;
    case LT_UUID: *t = inlay_type_uuid(); return true;
    case LT_FLOAT16: *t = inlay_type_float16(); return true;
    case LT_DATE: *t = inlay_type_date(); return true;
    case LT_DECIMAL:
        if ((e->lhas & (L_SCALE | L_PRECISION)) == (L_SCALE | L_PRECISION))
            *t = inlay_type_decimal(e->l_precision, e->l_scale, p, e->type_length);
        return true;
    case LT_TIME: case LT_TIMESTAMP:
        if ((e->lhas & (L_UTC | L_UNIT)) == (L_UTC | L_UNIT))
            *t = e->logical == LT_TIME ? inlay_type_time(unit_of(e->l_unit), e->l_utc)
                                       : inlay_type_timestamp(unit_of(e->l_unit), e->l_utc);
        return true;
    case LT_INTEGER:
        if ((e->lhas & (L_BITS | L_SIGNED)) == (L_BITS | L_SIGNED)) *t = inlay_type_int(e->l_bits, e->l_signed);
        return true;
    case LT_MAP: case LT_LIST: case LT_UNKNOWN: case LT_BSON:
        return true;
    default:
        return false;
    }
}

static void from_converted(const elem *e, inlay_type *t)
{
    const inlay_physical p = (inlay_physical)e->type;
    const int32_t c = e->converted;
    switch (c) {
    case CT_UTF8: *t = inlay_type_string(); return;
    case CT_ENUM: *t = inlay_type_enum(); return;
    case CT_JSON: *t = inlay_type_json(); return;
    case CT_DATE: *t = inlay_type_date(); return;
    case CT_DECIMAL:
        if (e->has & E_PRECISION)
            *t = inlay_type_decimal(e->precision, (e->has & E_SCALE) ? e->scale : 0, p, e->type_length);
        return;
    case CT_TIME_MILLIS: *t = inlay_type_time(INLAY_MILLIS, true); return;
    case CT_TIME_MICROS: *t = inlay_type_time(INLAY_MICROS, true); return;
    case CT_TIMESTAMP_MILLIS: *t = inlay_type_timestamp(INLAY_MILLIS, true); return;
    case CT_TIMESTAMP_MICROS: *t = inlay_type_timestamp(INLAY_MICROS, true); return;
    default:
        if (c >= CT_UINT_8 && c <= CT_INT_64) {
            const int k = (c - CT_UINT_8) % 4;
            *t = inlay_type_int(8 << k, c >= CT_INT_8);
        }
        return;
    }
}

/* An element's type in inlay's terms: its logical type, else its
 * converted type, else its physical type, which is also what a type inlay
 * would refuse (a mismatched annotation, a precision past the width...)
 * becomes. INT96 reads as timestamp(ns) in an INT64. */
static inlay_type map_type(const elem *e, bool *int96)
{
    *int96 = e->type == PT_INT96;
    if (*int96) return inlay_type_timestamp(INLAY_NANOS, false);
    const inlay_type base = base_type(e);
    inlay_type t = base;
    if (!(e->logical && from_logical(e, &t)) && (e->has & E_CONVERTED)) from_converted(e, &t);
    char why[8];
    if (t.physical != base.physical || t.type_length != base.type_length || inl_type_check(&t, why, sizeof why))
        return base;
    return t;
}

/* The annotation of a group: LIST or MAP from its logical type, else from
 * its converted type (MAP_KEY_VALUE, which old writers put on a map,
 * counts as MAP). */
static schema_group group_of(const elem *e)
{
    if (e->logical == LT_LIST) return GROUP_LIST;
    if (e->logical == LT_MAP) return GROUP_MAP;
    inlay_type ignored;
    if (e->logical && from_logical(e, &ignored)) return GROUP_PLAIN;
    if (!(e->has & E_CONVERTED)) return GROUP_PLAIN;
    if (e->converted == CT_LIST) return GROUP_LIST;
    if (e->converted == CT_MAP || e->converted == CT_MAP_KEY_VALUE) return GROUP_MAP;
    return GROUP_PLAIN;
}

/* ---- the inlay schema --------------------------------------------------------------------- */

/* Element i's name, NUL-terminated in the scratch buffer. */
static const char *name_of(parse *p, int i)
{
    const elem *e = &p->el[i];
    if (e->name_len) memcpy(p->name, e->name, e->name_len);
    p->name[e->name_len] = 0;
    return p->name;
}

static bool name_is(const elem *e, const char *s)
{
    const size_t n = strlen(s);
    return e->name_len == n && memcmp(e->name, s, n) == 0;
}

/* The repeated group `r` of LIST `e` is named "<e>_tuple". */
static bool is_tuple(const elem *r, const elem *e)
{
    return r->name_len == e->name_len + 6 && (e->name_len == 0 || memcmp(r->name, e->name, e->name_len) == 0) &&
           memcmp(r->name + e->name_len, "_tuple", 6) == 0;
}

/* A node at inlay depth `depth` (the root's fields are at 1). */
static int add(parse *p, int parent, const char *name, int rep, bool is_group, schema_group g,
               const inlay_type *type, int depth)
{
    if (depth > MAX_DEPTH)
        return fail(p, "footer: the schema, its lists made standard, is nested deeper than %d levels", MAX_DEPTH);
    const int id = inl_schema_add_raw(p->m->schema, parent, name, (inlay_repetition)rep, is_group, g, type);
    return id < 0 ? nomem(p) : id;
}

static int build_field(parse *p, int parent, int i, const char *as, int depth);

static int build_leaf(parse *p, int parent, int i, const char *name, int rep, int depth)
{
    const elem *e = &p->el[i];
    bool int96;
    const inlay_type t = map_type(e, &int96);
    const int id = add(p, parent, name, rep, false, GROUP_PLAIN, &t, depth);
    if (id < 0) return id;
    const int k = p->next_leaf++;
    rd_leaf *l = &p->m->leaves[k];
    p->leaf_elem[k] = i;
    l->physical = e->type;
    l->type_length = e->type == PT_FIXED_LEN_BYTE_ARRAY ? e->type_length : int96 ? 12 : 0;
    l->max_def = e->def;
    l->max_rep = e->replvl;
    l->int96_to_nanos = int96;
    return 0;
}

/* The fields of group element i, under node `node`. */
static int build_children(parse *p, int node, int i, int depth)
{
    for (int c = i + 1; c < p->el[i].end; c = p->el[c].end) INL_FORWARD(build_field(p, node, c, NULL, depth));
    return 0;
}

/* LIST element i as LIST { repeated group list { element } }, or FALLBACK
 * when it has no shape a list may have. */
static int build_list(parse *p, int parent, int i, const char *name, int depth)
{
    const elem *e = &p->el[i], *r = &p->el[i + 1];
    if (e->rep == INLAY_REPEATED || e->num_children != 1 || r->rep != INLAY_REPEATED) return FALLBACK;
    /* LogicalTypes.md: the repeated field is itself the (required) element
     * when it is a primitive, a group of several fields, a group named
     * "array" or "<list>_tuple"; otherwise its one field is. An element
     * that is repeated in turn cannot be inlay's: the group is then the
     * element, which holds it as a bare repeated field. */
    const bool two_level = !r->is_group || r->num_children != 1 || name_is(r, "array") || is_tuple(r, e) ||
                           p->el[i + 2].rep == INLAY_REPEATED;
    const int outer = add(p, parent, name, e->rep, true, GROUP_LIST, NULL, depth);
    if (outer < 0) return outer;
    const int mid = add(p, outer, "list", INLAY_REPEATED, true, GROUP_PLAIN, NULL, depth + 1);
    if (mid < 0) return mid;
    if (!r->is_group) return build_leaf(p, mid, i + 1, "element", INLAY_REQUIRED, depth + 2);
    if (!two_level) return build_field(p, mid, i + 2, "element", depth + 2);
    const int el = add(p, mid, "element", INLAY_REQUIRED, true, GROUP_PLAIN, NULL, depth + 2);
    return el < 0 ? el : build_children(p, el, i + 1, depth + 3);
}

/* MAP element i as MAP { repeated group key_value { key [value] } }, or
 * FALLBACK. */
static int build_map(parse *p, int parent, int i, const char *name, int depth)
{
    const elem *e = &p->el[i], *r = &p->el[i + 1];
    if (e->rep == INLAY_REPEATED || e->num_children != 1 || !r->is_group || r->rep != INLAY_REPEATED ||
        r->num_children > 2)
        return FALLBACK;
    const int key = i + 2, value = p->el[key].end;
    if (p->el[key].rep != INLAY_REQUIRED) return FALLBACK;
    if (r->num_children == 2 && p->el[value].rep == INLAY_REPEATED) return FALLBACK;
    const int outer = add(p, parent, name, e->rep, true, GROUP_MAP, NULL, depth);
    if (outer < 0) return outer;
    const int mid = add(p, outer, "key_value", INLAY_REPEATED, true, GROUP_PLAIN, NULL, depth + 1);
    if (mid < 0) return mid;
    INL_FORWARD(build_field(p, mid, key, "key", depth + 2));
    return r->num_children == 2 ? build_field(p, mid, value, "value", depth + 2) : 0;
}

/* Element i under node `parent`, named `as` (NULL: its own name). */
static int build_field(parse *p, int parent, int i, const char *as, int depth)
{
    const elem *e = &p->el[i];
    const char *name = as ? as : name_of(p, i);
    if (!e->is_group) return build_leaf(p, parent, i, name, e->rep, depth);
    const schema_group g = group_of(e);
    int st = FALLBACK;
    if (g == GROUP_LIST) st = build_list(p, parent, i, name, depth);
    else if (g == GROUP_MAP) st = build_map(p, parent, i, name, depth);
    if (st != FALLBACK) return st;
    if (!as) name = name_of(p, i);
    const int id = add(p, parent, name, e->rep, true, GROUP_PLAIN, NULL, depth);
    return id < 0 ? id : build_children(p, id, i, depth + 1);
}

static int build_schema(parse *p)
{
    rd_meta *m = p->m;
    m->leaves = inl_mem_alloc(p->a, (size_t)p->nleaves * sizeof *m->leaves);
    if (!m->leaves) return nomem(p);
    memset(m->leaves, 0, (size_t)p->nleaves * sizeof *m->leaves);
    m->info.num_columns = p->nleaves;
    p->leaf_elem = inl_mem_alloc(p->a, (size_t)p->nleaves * sizeof *p->leaf_elem);
    if (!p->leaf_elem) return nomem(p);
    m->schema = inlay_schema_create(p->a);
    if (!m->schema) return nomem(p);
    INL_FORWARD(build_children(p, 0, 0, 1));
    inlay_schema *s = m->schema;
    const int st = inl_schema_finalize(s);
    if (st == INLAY_ERR_NOMEM) return nomem(p);
    if (st) return fail(p, "footer: the schema is not one inlay can hold: %s", s->err.msg);
    if (s->num_leaves != p->nleaves || p->next_leaf != p->nleaves)
        return fail(p, "footer: the schema read has %d columns, the file's %d", s->num_leaves, p->nleaves);
    for (int k = 0; k < p->nleaves; k++) {
        const rd_leaf *l = &m->leaves[k];
        if (s->leaves[k].max_def != l->max_def || s->leaves[k].max_rep != l->max_rep) {
            char path[TEXT];
            elem_path(p, p->leaf_elem[k], path, sizeof path);
            return fail(p, "footer: column '%s' has levels %d/%d in the file but %d/%d as read", path,
                        (int)l->max_def, (int)l->max_rep, (int)s->leaves[k].max_def, (int)s->leaves[k].max_rep);
        }
    }
    return 0;
}

/* ---- column orders, key-value metadata ------------------------------------------------- */

/* A column whose ColumnOrder is not TYPE_ORDER has no min/max a reader
 * can use. A list of another length than the columns is ignored. */
static int read_orders(parse *p)
{
    p->order_undefined = inl_mem_alloc(p->a, (size_t)p->nleaves);
    if (!p->order_undefined) return nomem(p);
    memset(p->order_undefined, 0, (size_t)p->nleaves);
    if (!(p->has & F_ORDERS)) return 0;
    ti *t = &p->t;
    inl_ti_seek(t, p->orders_at);
    int type;
    const uint32_t n = inl_ti_list(t, &type);
    if (t->err) return thrift_fail(p);
    if (n != (uint32_t)p->nleaves || type != TI_STRUCT) return 0;
    for (uint32_t k = 0; k < n && !t->err; k++) {
        int16_t last = 0, id;
        int ft;
        bool known = false;
        while (inl_ti_field(t, &last, &id, &ft)) {
            known |= id == 1 && ft == TI_STRUCT;
            inl_ti_skip(t, ft, false, 3);
        }
        p->order_undefined[k] = !known;
    }
    return t->err ? thrift_fail(p) : 0;
}

static int read_kv(parse *p)
{
    if (!(p->has & F_KV)) return 0;
    ti *t = &p->t;
    inl_ti_seek(t, p->kv_at);
    int type;
    const uint32_t n = inl_ti_list(t, &type);
    if (t->err) return thrift_fail(p);
    if (n == 0) return 0;
    if (type != TI_STRUCT) return fail(p, "footer: key_value_metadata is not a list of KeyValues");
    if (n > inl_ti_left(t) / 3) return fail(p, "footer: %u key-value pairs cannot fit in the footer", n);
    rd_meta *m = p->m;
    m->kv = inl_mem_alloc(p->a, (size_t)n * sizeof *m->kv);
    if (!m->kv) return nomem(p);
    memset(m->kv, 0, (size_t)n * sizeof *m->kv);
    m->info.metadata_count = n;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *key = NULL, *value = NULL;
        size_t key_len = 0, value_len = 0;
        int16_t last = 0, id;
        int ft;
        while (inl_ti_field(t, &last, &id, &ft)) {
            if (id == 1 && ft == TI_BINARY) key = inl_ti_binary(t, &key_len);
            else if (id == 2 && ft == TI_BINARY) value = inl_ti_binary(t, &value_len);
            else inl_ti_skip(t, ft, false, 3);
        }
        if (t->err) return thrift_fail(p);
        if (!key) return fail(p, "footer: key-value metadata entry %u has no key", i);
        if (!(m->kv[i].key = keep(p, key, key_len, true))) return INLAY_ERR_FORMAT;
        if (value && !(m->kv[i].value = keep(p, value, value_len, true))) return INLAY_ERR_FORMAT;
    }
    m->info.metadata = m->kv;
    return 0;
}

/* ---- row groups and column chunks -------------------------------------------------------- */

typedef struct raw_stats {
    const uint8_t *min, *max, *min_value, *max_value;
    size_t min_len, max_len, min_value_len, max_value_len;
    bool has_min, has_max, has_min_value, has_max_value;
    bool min_exact, max_exact;
    bool has_null_count, has_distinct_count;
    int64_t null_count, distinct_count;
} raw_stats;

typedef struct raw_meta {
    unsigned has;                /* M_* */
    int32_t type, codec, bloom_length;
    bool path_ok;
    char path[TEXT];             /* path_in_schema as found, for the message */
    uint32_t encodings;
    int64_t num_values, raw, stored, data, dict, bloom;
    bool has_stats;
    raw_stats st;
} raw_meta;

INL_PRINTF(4, 5) static int chunk_fail(parse *p, int g, int c, const char *fmt, ...)
{
    char why[TEXT * 2], path[TEXT];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    elem_path(p, p->leaf_elem[c], path, sizeof path);
    return fail(p, "row group %d, column '%s': %s", g, path, why);
}

static void read_stats(ti *t, raw_stats *s)
{
    int16_t last = 0, id;
    int type;
    while (inl_ti_field(t, &last, &id, &type)) {
        const bool is_bool = type == TI_TRUE || type == TI_FALSE;
        switch (id) {
        case 1: if (type == TI_BINARY) { s->max = inl_ti_binary(t, &s->max_len); s->has_max = true; continue; } break;
        case 2: if (type == TI_BINARY) { s->min = inl_ti_binary(t, &s->min_len); s->has_min = true; continue; } break;
        case 3:
            if (type != TI_I64) break;
            s->null_count = inl_ti_i64(t);
            s->has_null_count = true;
            continue;
        case 4:
            if (type != TI_I64) break;
            s->distinct_count = inl_ti_i64(t);
            s->has_distinct_count = true;
            continue;
        case 5:
            if (type != TI_BINARY) break;
            s->max_value = inl_ti_binary(t, &s->max_value_len);
            s->has_max_value = true;
            continue;
        case 6:
            if (type != TI_BINARY) break;
            s->min_value = inl_ti_binary(t, &s->min_value_len);
            s->has_min_value = true;
            continue;
        case 7: if (is_bool) { s->max_exact = inl_ti_bool(type); continue; } break;
        case 8: if (is_bool) { s->min_exact = inl_ti_bool(type); continue; } break;
        default: break;
        }
        inl_ti_skip(t, type, false, 6);
    }
}

/* path_in_schema against leaf c's path in the file; the path found goes
 * into r->path for a message. */
static bool read_path(parse *p, int c, raw_meta *r)
{
    ti *t = &p->t;
    int chain[MAX_DEPTH + 1], d = 0;
    for (int k = p->leaf_elem[c]; k > 0 && d < MAX_DEPTH + 1; k = p->el[k].parent) chain[d++] = k;
    int type;
    const uint32_t n = inl_ti_list(t, &type);
    bool same = n == (uint32_t)d && (n == 0 || type == TI_BINARY);
    size_t at = 0;
    r->path[0] = 0;
    for (uint32_t j = 0; j < n && !t->err; j++) {
        if (type != TI_BINARY) {
            inl_ti_skip(t, type, true, 5);
            continue;
        }
        size_t len;
        const uint8_t *s = inl_ti_binary(t, &len);
        if (same) {
            const elem *e = &p->el[chain[d - 1 - (int)j]];
            same = e->name_len == len && (len == 0 || memcmp(e->name, s, len) == 0);
        }
        if (at + 2 < sizeof r->path) {
            if (j) {
                r->path[at++] = '.';
                r->path[at] = 0;
            }
            at = put_text(r->path, sizeof r->path, at, s, len);
        }
    }
    return same;
}

static void read_column_meta(parse *p, int c, raw_meta *r)
{
    ti *t = &p->t;
    int16_t last = 0, id;
    int type, elem_type;
    while (inl_ti_field(t, &last, &id, &type)) {
        const bool i64 = type == TI_I64, i32 = type == TI_I32;
        switch (id) {
        case 1: if (i32) { r->type = inl_ti_i32(t); r->has |= M_TYPE; continue; } break;
        case 2: {
            if (type != TI_LIST) break;
            const uint32_t n = inl_ti_list(t, &elem_type);
            for (uint32_t k = 0; k < n && !t->err; k++) {
                if (elem_type != TI_I32) {
                    inl_ti_skip(t, elem_type, true, 5);
                    continue;
                }
                const int32_t e = inl_ti_i32(t);
                if (e >= 0 && e < 32) r->encodings |= 1u << e;
            }
            continue;
        }
        case 3:
            if (type != TI_LIST) break;
            r->path_ok = read_path(p, c, r);
            r->has |= M_PATH;
            continue;
        case 4: if (i32) { r->codec = inl_ti_i32(t); r->has |= M_CODEC; continue; } break;
        case 5: if (i64) { r->num_values = inl_ti_i64(t); r->has |= M_VALUES; continue; } break;
        case 6: if (i64) { r->raw = inl_ti_i64(t); r->has |= M_RAW; continue; } break;
        case 7: if (i64) { r->stored = inl_ti_i64(t); r->has |= M_STORED; continue; } break;
        case 9: if (i64) { r->data = inl_ti_i64(t); r->has |= M_DATA; continue; } break;
        case 11: if (i64) { r->dict = inl_ti_i64(t); r->has |= M_DICT; continue; } break;
        case 12:
            if (type != TI_STRUCT) break;
            memset(&r->st, 0, sizeof r->st);
            r->st.min_exact = r->st.max_exact = true;
            read_stats(t, &r->st);
            r->has_stats = true;
            continue;
        case 14: if (i64) { r->bloom = inl_ti_i64(t); r->has |= M_BLOOM; continue; } break;
        case 15: if (i32) { r->bloom_length = inl_ti_i32(t); r->has |= M_BLOOM_LEN; continue; } break;
        default: break;
        }
        inl_ti_skip(t, type, false, 5);
    }
}

/* Bytes of one PLAIN value of a leaf's physical type; 0 for BYTE_ARRAY. */
static size_t plain_width(const rd_leaf *l)
{
    switch (l->physical) {
    case PT_BOOLEAN: return 1;
    case PT_INT32: case PT_FLOAT: return 4;
    case PT_INT64: case PT_DOUBLE: return 8;
    case PT_INT96: return 12;
    case PT_FIXED_LEN_BYTE_ARRAY: return (size_t)l->type_length;
    default: return 0;
    }
}

/* The statistics worth handing on: min_value/max_value when either is
 * there; the legacy min/max, which writers compared as signed values,
 * only for types ordered that way; neither for INT96 (no defined order)
 * or a column order this reader does not know; and a bound only when it
 * is one value wide. Counts below zero are left out. */
static int keep_stats(parse *p, int c, const raw_stats *r, inlay_statistics *st)
{
    const rd_leaf *l = &p->m->leaves[c];
    st->min_exact = st->max_exact = true;
    if (r->has_null_count && r->null_count >= 0) {
        st->has_null_count = true;
        st->null_count = r->null_count;
    }
    if (r->has_distinct_count && r->distinct_count >= 0) {
        st->has_distinct_count = true;
        st->distinct_count = r->distinct_count;
    }
    if (l->int96_to_nanos || p->order_undefined[c]) return 0;
    const uint8_t *mn = NULL, *mx = NULL;
    size_t mn_len = 0, mx_len = 0;
    bool has_mn = false, has_mx = false;
    if (r->has_min_value || r->has_max_value) {
        has_mn = r->has_min_value, mn = r->min_value, mn_len = r->min_value_len;
        has_mx = r->has_max_value, mx = r->max_value, mx_len = r->max_value_len;
        st->min_exact = r->min_exact;
        st->max_exact = r->max_exact;
    } else {
        const sort_order o = p->m->schema->leaves[c].order;
        if (o == ORDER_SIGNED || o == ORDER_FLOAT || l->physical == PT_BOOLEAN) {
            has_mn = r->has_min, mn = r->min, mn_len = r->min_len;
            has_mx = r->has_max, mx = r->max, mx_len = r->max_len;
        }
    }
    const size_t w = plain_width(l);
    if (has_mn && (!w || mn_len == w)) {
        if (!(st->min = (const uint8_t *)keep(p, mn, mn_len, false))) return INLAY_ERR_FORMAT;
        st->min_len = mn_len;
    }
    if (has_mx && (!w || mx_len == w)) {
        if (!(st->max = (const uint8_t *)keep(p, mx, mx_len, false))) return INLAY_ERR_FORMAT;
        st->max_len = mx_len;
    }
    return 0;
}

static int check_chunk(parse *p, int g, int c, const raw_meta *r, inlay_chunk_info *k)
{
    const rd_leaf *l = &p->m->leaves[c];
    if (!(r->has & M_TYPE)) return chunk_fail(p, g, c, "no type");
    if (r->type != l->physical)
        return chunk_fail(p, g, c, "the chunk's type is %s, the schema's %s", physical_name(r->type),
                          physical_name(l->physical));
    if (!(r->has & M_PATH)) return chunk_fail(p, g, c, "no path_in_schema");
    if (!r->path_ok) return chunk_fail(p, g, c, "the chunk's path_in_schema is '%s'", r->path);
    if (!(r->has & M_CODEC)) return chunk_fail(p, g, c, "no codec");
    if (!(r->has & M_VALUES) || r->num_values < 0) return chunk_fail(p, g, c, "no num_values, or a negative one");
    if (!(r->has & M_RAW) || r->raw < 0)
        return chunk_fail(p, g, c, "no total_uncompressed_size, or a negative one");
    if (!(r->has & M_STORED) || r->stored <= 0)
        return chunk_fail(p, g, c, "total_compressed_size %lld is not positive", (long long)r->stored);
    if (!(r->has & M_DATA)) return chunk_fail(p, g, c, "no data_page_offset");
    if (r->data < 4) return chunk_fail(p, g, c, "data_page_offset %lld is before the first page", (long long)r->data);
    /* 0 is how some writers (older parquet-mr) say "no dictionary" */
    const bool dict = (r->has & M_DICT) && r->dict != 0;
    if (dict && r->dict < 4)
        return chunk_fail(p, g, c, "dictionary_page_offset %lld is before the first page", (long long)r->dict);
    const int64_t start = dict && r->dict < r->data ? r->dict : r->data;
    if ((uint64_t)start > p->data_end || (uint64_t)r->stored > p->data_end - (uint64_t)start)
        return chunk_fail(p, g, c, "chunk ends past the footer (bytes %lld..%llu; the footer starts at %llu)",
                          (long long)start, (unsigned long long)start + (unsigned long long)r->stored,
                          (unsigned long long)p->data_end);
    k->codec = r->codec;
    k->encodings = r->encodings;
    k->num_values = r->num_values;
    k->uncompressed_size = r->raw;
    k->compressed_size = r->stored;
    k->data_page_offset = r->data;
    k->dictionary_page_offset = dict ? r->dict : -1;
    if ((r->has & M_BLOOM) && r->bloom >= 0) k->bloom_filter_offset = r->bloom;
    if ((r->has & M_BLOOM_LEN) && r->bloom_length >= 0) k->bloom_filter_length = r->bloom_length;
    k->has_statistics = r->has_stats;
    return r->has_stats ? keep_stats(p, c, &r->st, &k->statistics) : 0;
}

static int read_chunk(parse *p, int g, int c)
{
    ti *t = &p->t;
    inlay_chunk_info *k = &p->m->chunks[(size_t)g * (size_t)p->nleaves + (size_t)c];
    k->column = c;
    k->physical = p->m->leaves[c].physical;
    k->data_page_offset = k->dictionary_page_offset = -1;
    k->column_index_offset = k->offset_index_offset = k->bloom_filter_offset = -1;
    raw_meta r;
    memset(&r, 0, sizeof r);
    bool has_meta = false, elsewhere = false;
    int16_t last = 0, id;
    int type;
    while (inl_ti_field(t, &last, &id, &type)) {
        int64_t v64;
        int32_t v32;
        switch (id) {
        case 1: if (type == TI_BINARY) { size_t n; inl_ti_binary(t, &n); elsewhere = true; continue; } break;
        case 3:
            if (type != TI_STRUCT) break;
            memset(&r, 0, sizeof r);
            read_column_meta(p, c, &r);
            has_meta = true;
            continue;
        case 4: case 6:
            if (type != TI_I64) break;
            if ((v64 = inl_ti_i64(t)) >= 0) *(id == 4 ? &k->offset_index_offset : &k->column_index_offset) = v64;
            continue;
        case 5: case 7:
            if (type != TI_I32) break;
            if ((v32 = inl_ti_i32(t)) >= 0) *(id == 5 ? &k->offset_index_length : &k->column_index_length) = v32;
            continue;
        default: break;
        }
        inl_ti_skip(t, type, false, 4);
    }
    if (t->err) return thrift_fail(p);
    if (!has_meta) return chunk_fail(p, g, c, "no ColumnMetaData");
    if (elsewhere) return chunk_fail(p, g, c, "the chunk's data is in another file, which this reader does not read");
    return check_chunk(p, g, c, &r, k);
}

static int read_row_group(parse *p, int g)
{
    ti *t = &p->t;
    inlay_row_group_info *rg = &p->m->row_groups[g];
    rg->total_compressed_size = rg->file_offset = -1;
    rg->chunks = &p->m->chunks[(size_t)g * (size_t)p->nleaves];
    bool has_columns = false, has_rows = false, has_size = false;
    int16_t last = 0, id;
    int type, elem_type;
    while (inl_ti_field(t, &last, &id, &type)) {
        switch (id) {
        case 1: {
            if (type != TI_LIST) break;
            const uint32_t n = inl_ti_list(t, &elem_type);
            if (t->err) return thrift_fail(p);
            if (n != (uint32_t)p->nleaves)
                return fail(p, "row group %d has %u column chunks; the schema has %d columns", g, n, p->nleaves);
            if (elem_type != TI_STRUCT) return fail(p, "row group %d: columns is not a list of ColumnChunks", g);
            for (int c = 0; c < p->nleaves; c++) INL_FORWARD(read_chunk(p, g, c));
            has_columns = true;
            continue;
        }
        case 2: if (type == TI_I64) { rg->total_byte_size = inl_ti_i64(t); has_size = true; continue; } break;
        case 3: if (type == TI_I64) { rg->num_rows = inl_ti_i64(t); has_rows = true; continue; } break;
        case 5: if (type == TI_I64) { rg->file_offset = inl_ti_i64(t); continue; } break;
        case 6: if (type == TI_I64) { rg->total_compressed_size = inl_ti_i64(t); continue; } break;
        default: break;
        }
        inl_ti_skip(t, type, false, 3);
    }
    if (t->err) return thrift_fail(p);
    if (!has_columns) return fail(p, "row group %d has no columns", g);
    if (!has_rows || rg->num_rows < 0) return fail(p, "row group %d has no num_rows, or a negative one", g);
    if (!has_size || rg->total_byte_size < 0)
        return fail(p, "row group %d has no total_byte_size, or a negative one", g);
    if (rg->file_offset < -1 || rg->total_compressed_size < -1)
        return fail(p, "row group %d has a negative file_offset or total_compressed_size", g);
    return 0;
}

static int read_row_groups(parse *p)
{
    ti *t = &p->t;
    rd_meta *m = p->m;
    inl_ti_seek(t, p->row_groups_at);
    int type;
    const uint32_t n = inl_ti_list(t, &type);
    if (t->err) return thrift_fail(p);
    if (n == 0) {
        if (m->info.num_rows != 0)
            return fail(p, "footer: %lld rows in no row groups", (long long)m->info.num_rows);
        return 0;
    }
    if (type != TI_STRUCT) return fail(p, "footer: row_groups is not a list of RowGroups");
    /* every chunk takes bytes of the footer: allocate for no more than it can hold */
    if ((uint64_t)n * (uint64_t)p->nleaves > p->len / MIN_CHUNK_BYTES)
        return fail(p, "footer: %u row groups of %d columns cannot fit in a footer of %zu bytes", n, p->nleaves,
                    p->len);
    m->info.num_row_groups = (int)n;
    m->row_groups = inl_mem_alloc(p->a, (size_t)n * sizeof *m->row_groups);
    m->chunks = inl_mem_alloc(p->a, (size_t)n * (size_t)p->nleaves * sizeof *m->chunks);
    if (!m->row_groups || !m->chunks) return nomem(p);
    memset(m->row_groups, 0, (size_t)n * sizeof *m->row_groups);
    memset(m->chunks, 0, (size_t)n * (size_t)p->nleaves * sizeof *m->chunks);
    uint64_t rows = 0;
    for (int g = 0; g < (int)n; g++) {
        INL_FORWARD(read_row_group(p, g));
        rows += (uint64_t)m->row_groups[g].num_rows;   /* each < 2^63: no wrap in two */
        if (rows > (uint64_t)INT64_MAX) return fail(p, "footer: the row groups hold more than 2^63 rows");
    }
    if (rows != (uint64_t)m->info.num_rows)
        return fail(p, "footer: num_rows is %lld but the row groups hold %llu", (long long)m->info.num_rows,
                    (unsigned long long)rows);
    m->info.row_groups = m->row_groups;
    return 0;
}

/* Each leaf's dotted path in the file, once, for all its chunks. */
static int keep_paths(parse *p)
{
    rd_meta *m = p->m;
    if (!m->info.num_row_groups) return 0;
    for (int c = 0; c < p->nleaves; c++) {
        int chain[MAX_DEPTH + 1], d = 0;
        size_t len = 0;
        for (int k = p->leaf_elem[c]; k > 0 && d < MAX_DEPTH + 1; k = p->el[k].parent) {
            chain[d++] = k;
            len += p->el[k].name_len + 1;
        }
        char *s = keep(p, NULL, 0, false);
        if (!s || len > m->arena_size - p->arena_used) return fail(p, "footer: more strings than the footer holds");
        p->arena_used += len;
        size_t at = 0;
        while (d-- > 0) {
            const elem *e = &p->el[chain[d]];
            if (at) s[at++] = '.';
            if (e->name_len) memcpy(s + at, e->name, e->name_len);
            at += e->name_len;
        }
        s[at] = 0;
        for (int g = 0; g < m->info.num_row_groups; g++) m->chunks[(size_t)g * (size_t)p->nleaves + (size_t)c].path = s;
    }
    return 0;
}

/* ---- the whole --------------------------------------------------------------------------- */

static int parse_all(parse *p, const uint8_t *footer)
{
    rd_meta *m = p->m;
    inl_ti_init(&p->t, footer, p->len);
    INL_FORWARD(read_top(p));
    INL_FORWARD(read_elements(p));
    INL_FORWARD(check_tree(p));
    INL_FORWARD(build_schema(p));
    INL_FORWARD(read_orders(p));
    m->arena_size = p->len + 1;
    m->arena = inl_mem_alloc(p->a, m->arena_size);
    if (!m->arena) {
        m->arena_size = 0;
        return nomem(p);
    }
    m->info.created_by = "";
    if (p->has & F_CREATED_BY) {
        const char *s = keep(p, p->created_by, p->created_by_len, true);
        if (!s) return INLAY_ERR_FORMAT;
        m->info.created_by = s;
    }
    INL_FORWARD(read_kv(p));
    INL_FORWARD(read_row_groups(p));
    return keep_paths(p);
}

int inl_rd_meta_parse(rd_meta *m, const uint8_t *footer, size_t len, uint64_t file_size, const inlay_allocator *a,
                      inl_err *err)
{
    const inlay_allocator al = inl_mem_or_default(a);
    memset(m, 0, sizeof *m);
    if (len == 0) return inl_err_set(err, INLAY_ERR_FORMAT, "footer: empty");
    if (len > UINT32_MAX || file_size < 12 || len > file_size - 12)
        return inl_err_set(err, INLAY_ERR_FORMAT, "footer: %zu bytes do not fit in a file of %llu bytes", len,
                           (unsigned long long)file_size);
    parse p;
    memset(&p, 0, sizeof p);
    p.m = m;
    p.a = &al;
    p.err = err;
    p.len = len;
    p.data_end = file_size - 8 - len;
    int st = parse_all(&p, footer);
    if (p.el) inl_mem_free(&al, p.el, (size_t)p.nel * sizeof *p.el);
    if (p.leaf_elem) inl_mem_free(&al, p.leaf_elem, (size_t)p.nleaves * sizeof *p.leaf_elem);
    if (p.order_undefined) inl_mem_free(&al, p.order_undefined, (size_t)p.nleaves);
    if (p.name) inl_mem_free(&al, p.name, p.name_cap);
    if (st) {
        inl_rd_meta_free(m, &al);
        return st;
    }
    m->info.file_size = file_size;
    m->info.footer_size = (uint32_t)len;
    return 0;
}

void inl_rd_meta_free(rd_meta *m, const inlay_allocator *a)
{
    if (!m) return;
    const inlay_allocator al = inl_mem_or_default(a);
    const size_t groups = (size_t)m->info.num_row_groups, columns = (size_t)m->info.num_columns;
    inlay_schema_free(m->schema);
    if (m->leaves) inl_mem_free(&al, m->leaves, columns * sizeof *m->leaves);
    if (m->row_groups) inl_mem_free(&al, m->row_groups, groups * sizeof *m->row_groups);
    if (m->chunks) inl_mem_free(&al, m->chunks, groups * columns * sizeof *m->chunks);
    if (m->kv) inl_mem_free(&al, m->kv, m->info.metadata_count * sizeof *m->kv);
    if (m->arena) inl_mem_free(&al, m->arena, m->arena_size);
    memset(m, 0, sizeof *m);
}

/* ---- page headers --------------------------------------------------------------------------- */

/* The i32 fields 1..8 of one of the three page header structs, and which
 * were there; DataPageHeaderV2's is_compressed and the dictionary's
 * is_sorted are the bools. */
typedef struct sub_header {
    int32_t v[9];
    unsigned has;
    bool present, flag, has_flag;
} sub_header;

static void read_sub_header(ti *t, sub_header *s, int16_t bool_id)
{
    memset(s, 0, sizeof *s);
    s->present = true;
    int16_t last = 0, id;
    int type;
    while (inl_ti_field(t, &last, &id, &type)) {
        if (type == TI_I32 && id >= 1 && id <= 8) {
            s->v[id] = inl_ti_i32(t);
            s->has |= 1u << id;
        } else if (id == bool_id && (type == TI_TRUE || type == TI_FALSE)) {
            s->flag = inl_ti_bool(type);
            s->has_flag = true;
        } else {
            inl_ti_skip(t, type, false, 2);
        }
    }
}

/* Fields 1..n all present. */
static bool has_all(const sub_header *s, int n)
{
    const unsigned want = ((1u << (n + 1)) - 1) & ~1u;
    return (s->has & want) == want;
}

static size_t page_fail(const char **why, const char *reason)
{
    if (why) *why = reason;
    return 0;
}

size_t inl_rd_page_header(const uint8_t *p, size_t n, rd_page_header *h, const char **why)
{
    ti t;
    inl_ti_init(&t, p, n);
    memset(h, 0, sizeof *h);
    h->type = h->encoding = h->def_encoding = h->rep_encoding = -1;
    h->is_compressed = true;
    sub_header data, dict, v2;
    data.present = dict.present = v2.present = false;
    unsigned has = 0;
    int32_t top[5] = { 0 };
    int16_t last = 0, id;
    int type;
    while (inl_ti_field(&t, &last, &id, &type)) {
        if (type == TI_I32 && id >= 1 && id <= 4) {
            top[id] = inl_ti_i32(&t);
            has |= 1u << id;
        } else if (type == TI_STRUCT && id == 5) {
            read_sub_header(&t, &data, 0);
        } else if (type == TI_STRUCT && id == 7) {
            read_sub_header(&t, &dict, 3);
        } else if (type == TI_STRUCT && id == 8) {
            read_sub_header(&t, &v2, 7);
        } else {
            inl_ti_skip(&t, type, false, 1);
        }
    }
    if (t.err) return page_fail(why, t.err == TI_SHORT ? "page header cut short" : "page header malformed");
    if ((has & 14u) != 14u) return page_fail(why, "page header without its type or sizes");
    h->type = top[1];
    h->uncompressed_size = top[2];
    h->compressed_size = top[3];
    h->has_crc = has & 16u;
    h->crc = (uint32_t)top[4];
    if (h->uncompressed_size < 0 || h->compressed_size < 0) return page_fail(why, "page header with a negative size");
    switch (h->type) {
    case PAGE_DATA:
        if (!data.present) return page_fail(why, "data page without its DataPageHeader");
        if (!has_all(&data, 4)) return page_fail(why, "DataPageHeader with a field missing");
        h->num_values = data.v[1];
        h->encoding = data.v[2];
        h->def_encoding = data.v[3];
        h->rep_encoding = data.v[4];
        break;
    case PAGE_DICTIONARY:
        if (!dict.present) return page_fail(why, "dictionary page without its DictionaryPageHeader");
        if (!has_all(&dict, 2)) return page_fail(why, "DictionaryPageHeader with a field missing");
        h->num_values = dict.v[1];
        h->encoding = dict.v[2];
        h->dict_sorted = dict.has_flag && dict.flag;
        break;
    case PAGE_DATA_V2:
        if (!v2.present) return page_fail(why, "data page v2 without its DataPageHeaderV2");
        if (!has_all(&v2, 6)) return page_fail(why, "DataPageHeaderV2 with a field missing");
        h->num_values = v2.v[1];
        h->num_nulls = v2.v[2];
        h->num_rows = v2.v[3];
        h->encoding = v2.v[4];
        h->def_bytes = v2.v[5];
        h->rep_bytes = v2.v[6];
        h->is_compressed = !v2.has_flag || v2.flag;
        if (h->num_nulls < 0 || h->num_rows < 0 || h->def_bytes < 0 || h->rep_bytes < 0)
            return page_fail(why, "DataPageHeaderV2 with a negative count or length");
        if ((int64_t)h->def_bytes + h->rep_bytes > h->compressed_size ||
            (int64_t)h->def_bytes + h->rep_bytes > h->uncompressed_size)
            return page_fail(why, "DataPageHeaderV2 levels longer than the page");
        if (h->num_nulls > h->num_values || h->num_rows > h->num_values)
            return page_fail(why, "DataPageHeaderV2 with more nulls or rows than values");
        break;
    default:
        break;
    }
    if (h->num_values < 0) return page_fail(why, "page header with a negative num_values");
    if (why) *why = NULL;
    return inl_ti_pos(&t);
}
