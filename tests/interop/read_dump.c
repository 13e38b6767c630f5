/*
 * interop_read_dump [OPTIONS] FILE...
 *
 * Reads each Parquet FILE with inlay's reader (inlay_reader_open_file,
 * inlay_reader_next, inlay_reader_array) and prints, one line per file, a
 * JSON object with the file's schema and every value in the canonical form
 * of the interop fixtures (see the top of fixtures.c), for check.mjs and
 * foreign.mjs to compare with NAME.json or with DuckDB's reading:
 *
 *   {"file": PATH, "num_rows": N (footer), "row_groups": G, "rows": N (read),
 *    "batches": B, "created_by": "...",
 *    "fields": [ {"name", "type", type parameters, "nullable",
 *                 ("element" | "fields" | "key", "value"), "values": [...]} ],
 *    "problems": [ "..." ]}
 *
 * or, when the reader fails, the same with "error" (the reader's message)
 * and "status" (its code) and no "fields".
 *
 * Types as fixtures.c writes them: a leaf is {"type": TAG, parameters,
 * "nullable"} with the tags boolean, int8..int64, uint8..uint64 (an INT32 or
 * INT64 without annotation is "int32" / "int64"), float, double, float16,
 * string, binary, enum, json, uuid, fixed (width), date, time and
 * timestamp (unit "ms"|"us"|"ns", utc), decimal (precision, scale,
 * physical "int32"|"int64"|"fixed"|"binary", width for fixed). Groups:
 * {"type": "list", "element": T}, {"type": "map", "key": T, "value": T},
 * {"type": "struct", "fields": [...]}; a bare repeated field (no LIST/MAP
 * annotation) is {"type": "list", "repeated": true, "nullable": false,
 * "element": T}, T the field itself as required (a struct for a group).
 *
 * Values as fixtures.c writes them: null; true/false; integers, dates,
 * times and timestamps as decimal strings of the stored integer (unsigned
 * types as unsigned); float with 9 and double / float16 with 17 significant
 * digits, or "NaN", "Infinity", "-Infinity", "-0"; text as JSON strings;
 * binary and fixed as lowercase hex; uuid as 8-4-4-4-12; decimals as exact
 * text with `scale` fractional digits. A list is an array, a struct an
 * object, a map an array of [key, value] pairs.
 *
 * "problems" lists what this program finds wrong with the reader's arrays
 * themselves, beside the values: a top-level array whose length is not the
 * batch's rows, a struct child of another length than the struct, offsets
 * out of order or past the child, a null in a required node, a value of
 * the wrong width, a batch of more rows than asked for or crossing a row
 * group, inlay_reader_batch_first_row / _row_group that disagree with the
 * rows read, a STRING/JSON/ENUM value that is not UTF-8.
 *
 * Options:
 *   --batch N        read N rows per batch (default: 0, the reader's default)
 *   --reverse        select the fields in reverse order (the output is in
 *                    schema order all the same)
 *   --fields A,B     read only the top-level fields named (inlay_reader_select
 *                    by inlay_reader_field), printed in schema order
 *   --memory         open the file with inlay_reader_open_memory (its bytes
 *                    read here first) instead of inlay_reader_open_file
 *   --stream         open it with inlay_reader_open_stream (stdio callbacks)
 *   --rewrite OUT    (one FILE) copy the file with inlay's writer: every
 *                    batch appended with inlay_writer_append_array per field
 *                    to a writer opened on inlay_reader_schema(); the dump
 *                    is printed as usual
 *   --page-version V, --uncompressed, --row-group-rows N, --page-rows N
 *                    writer options for --rewrite
 *
 * Exit status: 0 when every file was read (problems or not: the caller
 * compares); 1 when the reader (or the rewrite) failed on some file; 2 on a
 * usage or internal error.
 */
#define _POSIX_C_SOURCE 200809L /* fseeko, ftello */
#include <inlay.h>

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "sbuf.h"

/*----------------------------------------------------------------------
 *  Utilities
 *--------------------------------------------------------------------*/

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("interop_read_dump: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

/*----------------------------------------------------------------------
 *  Problems found in the reader's arrays (at most a few per file)
 *--------------------------------------------------------------------*/

enum { MAX_PROBLEMS = 20 };
static sbuf g_problems;
static int g_nproblems;

static void problem(const char *fmt, ...)
{
    g_nproblems++;
    if (g_nproblems > MAX_PROBLEMS)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (g_problems.len)
        sb_puts(&g_problems, ",");
    sb_json_str(&g_problems, (const unsigned char *)msg, strlen(msg));
}

/*----------------------------------------------------------------------
 *  Canonical values (as fixtures.c emits them)
 *--------------------------------------------------------------------*/

static void emit_double(sbuf *s, double v, int digits)
{
    if (isnan(v))
        sb_puts(s, "\"NaN\"");
    else if (isinf(v))
        sb_puts(s, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    else if (v == 0 && signbit(v))
        sb_puts(s, "\"-0\"");
    else
        sb_printf(s, "%.*g", digits, v);
}

static double half_to_double(uint16_t h)
{
    int e = (h >> 10) & 0x1f, f = h & 0x3ff;
    double v;
    if (e == 0)
        v = ldexp((double)f, -24);
    else if (e == 31)
        v = f ? NAN : INFINITY;
    else
        v = ldexp((double)(f + 1024), e - 25);
    return (h & 0x8000) ? -v : v;
}

/* Big-endian two's complement bytes (1..64 of them) -> sign and decimal
 * digits. */
static void be_twos_to_digits(const unsigned char *b, size_t w, bool *neg, char *out)
{
    unsigned char m[64];
    memcpy(m, b, w);
    *neg = (m[0] & 0x80) != 0;
    if (*neg) {
        unsigned carry = 1;
        for (size_t i = w; i-- > 0;) {
            unsigned v = (unsigned)(unsigned char)~m[i] + carry;
            m[i] = (unsigned char)(v & 0xff);
            carry = v >> 8;
        }
    }
    char rev[200];
    size_t nd = 0;
    for (;;) {
        bool zero = true;
        unsigned rem = 0;
        for (size_t i = 0; i < w; i++) {
            unsigned cur = rem * 256 + m[i];
            m[i] = (unsigned char)(cur / 10);
            rem = cur % 10;
            if (m[i])
                zero = false;
        }
        rev[nd++] = (char)('0' + rem);
        if (zero)
            break;
    }
    for (size_t i = 0; i < nd; i++)
        out[i] = rev[nd - 1 - i];
    out[nd] = 0;
}

static void emit_decimal_text(sbuf *s, bool neg, const char *digits, int scale)
{
    size_t nd = strlen(digits);
    sbuf b = {0};
    if (neg && strcmp(digits, "0") != 0)
        sb_puts(&b, "-");
    if (scale <= 0) {
        sb_puts(&b, digits);
    } else {
        size_t need = (size_t)scale + 1; /* at least one integer digit */
        size_t pad = nd < need ? need - nd : 0;
        for (size_t i = 0; i < pad; i++)
            sb_puts(&b, "0");
        sb_puts(&b, digits);
        /* insert the point `scale` digits from the end */
        size_t at = b.len - (size_t)scale;
        sb_reserve(&b, 1);
        memmove(b.p + at + 1, b.p + at, (size_t)scale + 1);
        b.p[at] = '.';
        b.len++;
    }
    sb_printf(s, "\"%s\"", b.p);
    sb_free(&b);
}

static void emit_decimal_int(sbuf *s, int64_t v, int scale)
{
    char digits[32];
    bool neg = v < 0;
    snprintf(digits, sizeof digits, "%llu", neg ? (unsigned long long)(-(uint64_t)v) : (unsigned long long)v);
    emit_decimal_text(s, neg, digits, scale);
}

static void emit_decimal_bytes(sbuf *s, const unsigned char *p, size_t n, int scale, const char *path)
{
    if (n == 0 || n > 64) {
        problem("%s: a decimal of %zu bytes", path, n);
        sb_puts(s, "\"<bad decimal>\"");
        return;
    }
    char digits[200];
    bool neg;
    be_twos_to_digits(p, n, &neg, digits);
    emit_decimal_text(s, neg, digits, scale);
}

static const char *unit_name(inlay_time_unit u)
{
    return u == INLAY_MILLIS ? "ms" : u == INLAY_MICROS ? "us" : "ns";
}

/*----------------------------------------------------------------------
 *  The schema as a type tree
 *--------------------------------------------------------------------*/

static const inlay_schema *g_schema;

static inlay_node_info node_info(int node)
{
    inlay_node_info ni;
    if (inlay_schema_node(g_schema, node, &ni) != INLAY_OK)
        die("inlay_schema_node(%d) failed", node);
    return ni;
}

/* The children of a group, in order (at most cap). */
static int node_children(int node, int *out, int cap)
{
    inlay_node_info ni = node_info(node);
    int n = 0;
    for (int c = ni.first_child; c >= 0 && n < cap; c = node_info(c).next_sibling)
        out[n++] = c;
    if (n != ni.num_children)
        die("node %d (%s): %d children listed, num_children %d", node, ni.name, n, ni.num_children);
    return n;
}

enum { MAX_KIDS = 256 };

static void leaf_type_json(sbuf *s, const inlay_type *t)
{
    switch (t->logical) {
    case INLAY_LOGICAL_STRING: sb_puts(s, "\"type\":\"string\""); return;
    case INLAY_LOGICAL_ENUM: sb_puts(s, "\"type\":\"enum\""); return;
    case INLAY_LOGICAL_JSON: sb_puts(s, "\"type\":\"json\""); return;
    case INLAY_LOGICAL_UUID: sb_puts(s, "\"type\":\"uuid\""); return;
    case INLAY_LOGICAL_FLOAT16: sb_puts(s, "\"type\":\"float16\""); return;
    case INLAY_LOGICAL_DATE: sb_puts(s, "\"type\":\"date\""); return;
    case INLAY_LOGICAL_TIME:
    case INLAY_LOGICAL_TIMESTAMP:
        sb_printf(s, "\"type\":\"%s\",\"unit\":\"%s\",\"utc\":%s",
                  t->logical == INLAY_LOGICAL_TIME ? "time" : "timestamp", unit_name(t->unit),
                  t->utc ? "true" : "false");
        return;
    case INLAY_LOGICAL_INT:
        sb_printf(s, "\"type\":\"%sint%d\"", t->is_signed ? "" : "u", (int)t->bit_width);
        return;
    case INLAY_LOGICAL_DECIMAL: {
        const char *phys = t->physical == INLAY_INT32   ? "int32"
                           : t->physical == INLAY_INT64 ? "int64"
                           : t->physical == INLAY_FIXED_LEN_BYTE_ARRAY ? "fixed"
                                                                        : "binary";
        sb_printf(s, "\"type\":\"decimal\",\"precision\":%d,\"scale\":%d,\"physical\":\"%s\"", (int)t->precision,
                  (int)t->scale, phys);
        if (t->physical == INLAY_FIXED_LEN_BYTE_ARRAY)
            sb_printf(s, ",\"width\":%d", (int)t->type_length);
        return;
    }
    case INLAY_LOGICAL_NONE:
        break;
    }
    switch (t->physical) {
    case INLAY_BOOLEAN: sb_puts(s, "\"type\":\"boolean\""); return;
    case INLAY_INT32: sb_puts(s, "\"type\":\"int32\""); return;
    case INLAY_INT64: sb_puts(s, "\"type\":\"int64\""); return;
    case INLAY_FLOAT: sb_puts(s, "\"type\":\"float\""); return;
    case INLAY_DOUBLE: sb_puts(s, "\"type\":\"double\""); return;
    case INLAY_BYTE_ARRAY: sb_puts(s, "\"type\":\"binary\""); return;
    case INLAY_FIXED_LEN_BYTE_ARRAY: sb_printf(s, "\"type\":\"fixed\",\"width\":%d", (int)t->type_length); return;
    }
    sb_printf(s, "\"type\":\"unknown physical %d logical %d\"", (int)t->physical, (int)t->logical);
}

/* The JSON type of node `node`; `as_required` for the element of a bare
 * repeated field (the field itself, each entry present). */
static void type_json(sbuf *s, int node, bool named, bool as_required)
{
    inlay_node_info ni = node_info(node);
    if (named) {
        sb_puts(s, "\"name\":");
        sb_json_str(s, (const unsigned char *)ni.name, strlen(ni.name));
        sb_puts(s, ",");
    }
    if (ni.repetition == INLAY_REPEATED && !as_required) {
        sb_puts(s, "\"type\":\"list\",\"repeated\":true,\"nullable\":false,\"element\":{");
        type_json(s, node, false, true);
        sb_puts(s, "}");
        return;
    }
    const char *nullable = (ni.repetition == INLAY_OPTIONAL) ? "true" : "false";
    if (!ni.is_group) {
        leaf_type_json(s, &ni.type);
        sb_printf(s, ",\"nullable\":%s", nullable);
        return;
    }
    int kids[MAX_KIDS];
    if (ni.group == INLAY_GROUP_LIST || ni.group == INLAY_GROUP_MAP) {
        int n = node_children(node, kids, MAX_KIDS);
        inlay_node_info mid = n == 1 ? node_info(kids[0]) : ni;
        if (n != 1 || !mid.is_group || mid.repetition != INLAY_REPEATED) {
            sb_printf(s, "\"type\":\"malformed %s\",\"nullable\":%s", ni.group == INLAY_GROUP_LIST ? "list" : "map",
                      nullable);
            return;
        }
        int inner[MAX_KIDS];
        int m = node_children(kids[0], inner, MAX_KIDS);
        if (ni.group == INLAY_GROUP_LIST) {
            sb_printf(s, "\"type\":\"list\",\"nullable\":%s,\"element\":{", nullable);
            if (m == 1) {
                type_json(s, inner[0], false, false);
            } else { /* not a standard list: the middle group's fields as a struct */
                sb_puts(s, "\"type\":\"struct\",\"nullable\":false,\"fields\":[");
                for (int i = 0; i < m; i++) {
                    sb_puts(s, i ? ",{" : "{");
                    type_json(s, inner[i], true, false);
                    sb_puts(s, "}");
                }
                sb_puts(s, "]");
            }
            sb_puts(s, "}");
        } else {
            sb_printf(s, "\"type\":\"map\",\"nullable\":%s", nullable);
            if (m >= 1) {
                sb_puts(s, ",\"key\":{");
                type_json(s, inner[0], false, false);
                sb_puts(s, "}");
            }
            if (m >= 2) {
                sb_puts(s, ",\"value\":{");
                type_json(s, inner[1], false, false);
                sb_puts(s, "}");
            }
            if (m > 2)
                sb_printf(s, ",\"extra_fields\":%d", m - 2);
        }
        return;
    }
    int n = node_children(node, kids, MAX_KIDS);
    sb_printf(s, "\"type\":\"struct\",\"nullable\":%s,\"fields\":[", nullable);
    for (int i = 0; i < n; i++) {
        sb_puts(s, i ? ",{" : "{");
        type_json(s, kids[i], true, false);
        sb_puts(s, "}");
    }
    sb_puts(s, "]");
}

/*----------------------------------------------------------------------
 *  Values from the reader's arrays
 *--------------------------------------------------------------------*/

static bool valid_at(const inlay_array *a, size_t i)
{
    return !a->validity || ((a->validity[i >> 3] >> (i & 7)) & 1);
}

/* The dotted path of a node, for messages. */
static void node_path(int node, char *out, size_t cap)
{
    inlay_node_info ni = node_info(node);
    if (ni.parent <= 0) {
        snprintf(out, cap, "%s", ni.name);
        return;
    }
    char up[512];
    node_path(ni.parent, up, sizeof up);
    size_t n = strlen(up);
    if (n + 1 < cap) {
        memcpy(out, up, n);
        out[n] = '.';
        snprintf(out + n + 1, cap - n - 1, "%s", ni.name);
    } else {
        snprintf(out, cap, "%s", up);
    }
}

static uint64_t g_row; /* file row of the value being printed, for messages */

static void emit_leaf(sbuf *s, const inlay_type *t, const inlay_array *a, size_t i, int node)
{
    if (!a->values) {
        char p[512];
        node_path(node, p, sizeof p);
        problem("%s row %llu: a primitive array without values", p, (unsigned long long)g_row);
        sb_puts(s, "\"<no values>\"");
        return;
    }
    switch (t->physical) {
    case INLAY_BOOLEAN:
        sb_puts(s, ((const bool *)a->values)[i] ? "true" : "false");
        return;
    case INLAY_INT32: {
        int32_t v = ((const int32_t *)a->values)[i];
        if (t->logical == INLAY_LOGICAL_DECIMAL)
            emit_decimal_int(s, v, t->scale);
        else if (t->logical == INLAY_LOGICAL_INT && !t->is_signed)
            sb_printf(s, "\"%lu\"", (unsigned long)(uint32_t)v);
        else
            sb_printf(s, "\"%ld\"", (long)v);
        return;
    }
    case INLAY_INT64: {
        int64_t v = ((const int64_t *)a->values)[i];
        if (t->logical == INLAY_LOGICAL_DECIMAL)
            emit_decimal_int(s, v, t->scale);
        else if (t->logical == INLAY_LOGICAL_INT && !t->is_signed)
            sb_printf(s, "\"%llu\"", (unsigned long long)(uint64_t)v);
        else
            sb_printf(s, "\"%lld\"", (long long)v);
        return;
    }
    case INLAY_FLOAT:
        emit_double(s, (double)((const float *)a->values)[i], 9);
        return;
    case INLAY_DOUBLE:
        emit_double(s, ((const double *)a->values)[i], 17);
        return;
    case INLAY_BYTE_ARRAY:
    case INLAY_FIXED_LEN_BYTE_ARRAY: {
        inlay_bytes b = ((const inlay_bytes *)a->values)[i];
        const unsigned char *p = b.data;
        if (!p && b.len) {
            char path[512];
            node_path(node, path, sizeof path);
            problem("%s row %llu: a byte string of %zu bytes at NULL", path, (unsigned long long)g_row, b.len);
            sb_puts(s, "\"<NULL bytes>\"");
            return;
        }
        if (t->physical == INLAY_FIXED_LEN_BYTE_ARRAY && b.len != (size_t)t->type_length) {
            char path[512];
            node_path(node, path, sizeof path);
            problem("%s row %llu: a value of %zu bytes in a FIXED_LEN_BYTE_ARRAY(%d) column", path,
                    (unsigned long long)g_row, b.len, (int)t->type_length);
        }
        switch (t->logical) {
        case INLAY_LOGICAL_STRING:
        case INLAY_LOGICAL_ENUM:
        case INLAY_LOGICAL_JSON:
            if (!inlay_utf8_valid(p, b.len)) {
                char path[512];
                node_path(node, path, sizeof path);
                problem("%s row %llu: text that is not UTF-8", path, (unsigned long long)g_row);
                sb_puts(s, "{\"invalid_utf8\":");
                sb_hex(s, p, b.len);
                sb_puts(s, "}");
                return;
            }
            sb_json_str(s, p, b.len);
            return;
        case INLAY_LOGICAL_UUID:
            if (b.len == 16) {
                static const char hx[] = "0123456789abcdef";
                char u[40];
                size_t k = 0;
                for (int j = 0; j < 16; j++) {
                    if (j == 4 || j == 6 || j == 8 || j == 10)
                        u[k++] = '-';
                    u[k++] = hx[p[j] >> 4];
                    u[k++] = hx[p[j] & 15];
                }
                u[k] = 0;
                sb_printf(s, "\"%s\"", u);
            } else {
                sb_hex(s, p, b.len);
            }
            return;
        case INLAY_LOGICAL_FLOAT16:
            if (b.len == 2)
                emit_double(s, half_to_double((uint16_t)(p[0] | (p[1] << 8))), 17);
            else
                sb_hex(s, p, b.len);
            return;
        case INLAY_LOGICAL_DECIMAL: {
            char path[512];
            node_path(node, path, sizeof path);
            emit_decimal_bytes(s, p, b.len, t->scale, path);
            return;
        }
        default:
            sb_hex(s, p, b.len);
            return;
        }
    }
    }
    sb_puts(s, "\"<unknown physical type>\"");
}

static void emit_node(sbuf *s, int node, const inlay_array *a, size_t i, bool as_required);

/* Entries [lo, hi) of a list-like array: checks the offsets against the
 * child arrays' lengths. Returns false (and a problem) when they do not fit. */
static bool list_range(int node, const inlay_array *a, size_t i, int nkids, size_t *lo, size_t *hi)
{
    char p[512];
    if (!a->offsets) {
        node_path(node, p, sizeof p);
        problem("%s row %llu: a list without offsets", p, (unsigned long long)g_row);
        return false;
    }
    if (!a->children) {
        node_path(node, p, sizeof p);
        problem("%s row %llu: a list without children", p, (unsigned long long)g_row);
        return false;
    }
    int32_t o0 = a->offsets[i], o1 = a->offsets[i + 1];
    if (o0 < 0 || o1 < o0) {
        node_path(node, p, sizeof p);
        problem("%s row %llu: offsets %ld..%ld out of order", p, (unsigned long long)g_row, (long)o0, (long)o1);
        return false;
    }
    for (int k = 0; k < nkids; k++) {
        if ((size_t)o1 > a->children[k].length) {
            node_path(node, p, sizeof p);
            problem("%s row %llu: offsets %ld..%ld past child %d of length %zu", p, (unsigned long long)g_row,
                    (long)o0, (long)o1, k, a->children[k].length);
            return false;
        }
    }
    *lo = (size_t)o0;
    *hi = (size_t)o1;
    return true;
}

static void emit_struct_fields(sbuf *s, const int *kids, int n, const inlay_array *a, size_t i, size_t parent_len,
                               int node)
{
    sb_puts(s, "{");
    for (int k = 0; k < n; k++) {
        inlay_node_info ki = node_info(kids[k]);
        if (k)
            sb_puts(s, ",");
        sb_json_str(s, (const unsigned char *)ki.name, strlen(ki.name));
        sb_puts(s, ":");
        const inlay_array *c = &a->children[k];
        if (c->length != parent_len) {
            char p[512];
            node_path(node, p, sizeof p);
            problem("%s: child %d (%s) has length %zu, the struct %zu", p, k, ki.name, c->length, parent_len);
            if (i >= c->length) {
                sb_puts(s, "\"<past the child>\"");
                continue;
            }
        }
        emit_node(s, kids[k], c, i, false);
    }
    sb_puts(s, "}");
}

static void emit_node(sbuf *s, int node, const inlay_array *a, size_t i, bool as_required)
{
    inlay_node_info ni = node_info(node);
    char p[512];
    if (i >= a->length) {
        node_path(node, p, sizeof p);
        problem("%s row %llu: entry %zu of an array of length %zu", p, (unsigned long long)g_row, i, a->length);
        sb_puts(s, "\"<past the array>\"");
        return;
    }
    bool repeated = ni.repetition == INLAY_REPEATED && !as_required;
    if (repeated) {
        /* a bare repeated field: offsets, and one child per field of the
         * group, or its values as children[0] */
        int kids[MAX_KIDS];
        int n = ni.is_group ? node_children(node, kids, MAX_KIDS) : 1;
        size_t lo, hi;
        if (!list_range(node, a, i, n, &lo, &hi)) {
            sb_puts(s, "\"<bad list>\"");
            return;
        }
        sb_puts(s, "[");
        for (size_t j = lo; j < hi; j++) {
            if (j > lo)
                sb_puts(s, ",");
            if (ni.is_group)
                emit_struct_fields(s, kids, n, a, j, a->children[0].length, node);
            else
                emit_node(s, node, &a->children[0], j, true);
        }
        sb_puts(s, "]");
        return;
    }
    if (!valid_at(a, i)) {
        if (ni.repetition == INLAY_REQUIRED || as_required) {
            node_path(node, p, sizeof p);
            problem("%s row %llu: null in a required node", p, (unsigned long long)g_row);
        }
        sb_puts(s, "null");
        return;
    }
    if (!ni.is_group) {
        emit_leaf(s, &ni.type, a, i, node);
        return;
    }
    int kids[MAX_KIDS];
    int n = node_children(node, kids, MAX_KIDS);
    if (ni.group == INLAY_GROUP_LIST || ni.group == INLAY_GROUP_MAP) {
        int inner[MAX_KIDS];
        int m = n == 1 ? node_children(kids[0], inner, MAX_KIDS) : 0;
        if (m == 0) {
            node_path(node, p, sizeof p);
            problem("%s: a LIST/MAP group without a repeated group of fields", p);
            sb_puts(s, "\"<malformed>\"");
            return;
        }
        size_t lo, hi;
        if (!list_range(node, a, i, m, &lo, &hi)) {
            sb_puts(s, "\"<bad list>\"");
            return;
        }
        sb_puts(s, "[");
        for (size_t j = lo; j < hi; j++) {
            if (j > lo)
                sb_puts(s, ",");
            if (ni.group == INLAY_GROUP_MAP) {
                sb_puts(s, "[");
                for (int k = 0; k < m && k < 2; k++) {
                    if (k)
                        sb_puts(s, ",");
                    emit_node(s, inner[k], &a->children[k], j, false);
                }
                sb_puts(s, "]");
            } else if (m == 1) {
                emit_node(s, inner[0], &a->children[0], j, false);
            } else {
                emit_struct_fields(s, inner, m, a, j, a->children[0].length, kids[0]);
            }
        }
        sb_puts(s, "]");
        return;
    }
    if (!a->children) {
        node_path(node, p, sizeof p);
        problem("%s row %llu: a struct without children", p, (unsigned long long)g_row);
        sb_puts(s, "\"<no children>\"");
        return;
    }
    emit_struct_fields(s, kids, n, a, i, a->length, node);
}

/*----------------------------------------------------------------------
 *  One file
 *--------------------------------------------------------------------*/

/* The --stream source: stdio behind inlay_read_stream. */
static int64_t stream_read(void *ctx, void *buf, size_t len)
{
    size_t n = fread(buf, 1, len, (FILE *)ctx);
    return n == 0 && ferror((FILE *)ctx) ? -1 : (int64_t)n;
}

static int64_t stream_seek(void *ctx, int64_t offset, int whence)
{
    if (fseeko((FILE *)ctx, (off_t)offset, whence) != 0)
        return -1;
    return (int64_t)ftello((FILE *)ctx);
}

static void stream_close(void *ctx) { fclose((FILE *)ctx); }

enum open_how { OPEN_FILE, OPEN_MEMORY, OPEN_STREAM };

static int open_reader(inlay_reader **r, const char *path, enum open_how how, const inlay_read_options *ro,
                       void **memory)
{
    *memory = NULL;
    if (how == OPEN_FILE)
        return inlay_reader_open_file(r, path, ro);
    FILE *f = fopen(path, "rb");
    if (!f) {
        *r = NULL;
        return INLAY_ERR_IO;
    }
    if (how == OPEN_STREAM) {
        inlay_read_stream st = {stream_read, stream_seek, stream_close, f};
        return inlay_reader_open_stream(r, st, ro);
    }
    size_t cap = 1 << 16, len = 0;
    unsigned char *p = malloc(cap);
    for (;;) {
        if (!p)
            die("out of memory");
        len += fread(p + len, 1, cap - len, f);
        if (len < cap)
            break;
        cap *= 2;
        p = realloc(p, cap);
    }
    if (ferror(f))
        die("reading %s failed", path);
    fclose(f);
    *memory = p;
    return inlay_reader_open_memory(r, p, len, ro);
}

typedef struct wopts {
    int page_version;
    bool uncompressed;
    size_t row_group_rows, page_rows;
} wopts;

static const char *status_name(int st)
{
    switch (st) {
    case INLAY_OK: return "INLAY_OK";
    case INLAY_ERR_ARGUMENT: return "INLAY_ERR_ARGUMENT";
    case INLAY_ERR_SCHEMA: return "INLAY_ERR_SCHEMA";
    case INLAY_ERR_COLUMN: return "INLAY_ERR_COLUMN";
    case INLAY_ERR_TYPE: return "INLAY_ERR_TYPE";
    case INLAY_ERR_VALUE: return "INLAY_ERR_VALUE";
    case INLAY_ERR_NULL: return "INLAY_ERR_NULL";
    case INLAY_ERR_LEVEL: return "INLAY_ERR_LEVEL";
    case INLAY_ERR_STATE: return "INLAY_ERR_STATE";
    case INLAY_ERR_NOMEM: return "INLAY_ERR_NOMEM";
    case INLAY_ERR_IO: return "INLAY_ERR_IO";
    case INLAY_ERR_COMPRESS: return "INLAY_ERR_COMPRESS";
    case INLAY_ERR_FORMAT: return "INLAY_ERR_FORMAT";
    }
    return "unknown status";
}

static void put_error(sbuf *out, const char *what, int st, const char *msg)
{
    char m[2048];
    snprintf(m, sizeof m, "%s: %s", what, msg ? msg : "");
    sb_puts(out, ",\"error\":");
    sb_json_str(out, (const unsigned char *)m, strlen(m));
    sb_printf(out, ",\"status\":\"%s\"", status_name(st));
}

/* Returns 0 when the file was read (and rewritten, with rewrite), 1 when
 * the reader or the writer failed. */
static int dump_file(const char *path, size_t batch, bool reverse, const char *fields, enum open_how how,
                     const char *rewrite, const wopts *wo)
{
    sbuf out = {0};
    sb_free(&g_problems);
    g_nproblems = 0;
    sb_puts(&out, "{\"file\":");
    sb_json_str(&out, (const unsigned char *)path, strlen(path));

    inlay_read_options ro;
    inlay_read_options_init(&ro);
    inlay_reader *r = NULL;
    inlay_writer *w = NULL;
    void *memory = NULL;
    int rc = 0;
    static const char *const opener[] = {"inlay_reader_open_file", "inlay_reader_open_memory",
                                         "inlay_reader_open_stream"};
    int st = open_reader(&r, path, how, &ro, &memory);
    if (st != INLAY_OK) {
        put_error(&out, opener[how], st, r ? inlay_reader_errmsg(r) : "(no reader)");
        rc = 1;
        goto done;
    }
    g_schema = inlay_reader_schema(r);
    const inlay_file_info *info = inlay_reader_info(r);
    if (!g_schema || !info) {
        put_error(&out, "inlay_reader_schema/info", INLAY_ERR_ARGUMENT, "NULL");
        rc = 1;
        goto done;
    }
    sb_printf(&out, ",\"num_rows\":%lld,\"row_groups\":%d,\"created_by\":", (long long)info->num_rows,
              info->num_row_groups);
    sb_json_str(&out, (const unsigned char *)(info->created_by ? info->created_by : ""),
                info->created_by ? strlen(info->created_by) : 0);

    /* the top-level fields */
    inlay_node_info root = node_info(0);
    int nf = root.num_children;
    int *top = calloc((size_t)nf + 1, sizeof *top);
    sbuf *vals = calloc((size_t)nf + 1, sizeof *vals);
    int *order = calloc((size_t)nf + 1, sizeof *order);
    if (!top || !vals || !order)
        die("out of memory");
    if (node_children(0, top, nf + 1) != nf)
        die("%s: root children", path);
    bool *selected = calloc((size_t)nf + 1, sizeof *selected);
    if (!selected)
        die("out of memory");
    for (int k = 0; k < nf; k++) {
        inlay_node_info ni = node_info(top[k]);
        if (inlay_reader_field(r, ni.name) != k)
            problem("inlay_reader_field(\"%s\") is %d, the field is number %d", ni.name, inlay_reader_field(r, ni.name),
                    k);
    }
    int nsel = 0; /* order[j]: the field number of the j-th selected field */
    if (fields) {
        const char *p = fields;
        while (*p) {
            size_t n = strcspn(p, ",");
            char name[512];
            snprintf(name, sizeof name, "%.*s", (int)n, p);
            int k = inlay_reader_field(r, name);
            if (k < 0 || k >= nf || selected[k])
                die("%s: no field '%s' (or named twice)", path, name);
            selected[k] = true;
            order[nsel++] = k;
            p += n + (p[n] == ',');
        }
    } else {
        for (int k = 0; k < nf; k++) {
            selected[k] = true;
            order[nsel++] = k;
        }
    }
    if (reverse)
        for (int j = 0; j < nsel / 2; j++) {
            int t = order[j];
            order[j] = order[nsel - 1 - j];
            order[nsel - 1 - j] = t;
        }
    if (reverse || fields) {
        st = inlay_reader_select(r, order, nsel, NULL, 0);
        if (st != INLAY_OK) {
            put_error(&out, "inlay_reader_select", st, inlay_reader_errmsg(r));
            rc = 1;
            goto fields;
        }
    }

    if (rewrite) {
        inlay_options o;
        inlay_options_init(&o);
        if (wo->page_version)
            o.page_version = wo->page_version;
        if (wo->uncompressed)
            o.compression = INLAY_UNCOMPRESSED;
        if (wo->row_group_rows)
            o.row_group_rows = wo->row_group_rows;
        if (wo->page_rows)
            o.page_rows = wo->page_rows;
        o.sync = false;
        st = inlay_writer_open_file(&w, rewrite, g_schema, &o);
        if (st != INLAY_OK) {
            put_error(&out, "inlay_writer_open_file", st, w ? inlay_writer_errmsg(w) : "(no writer)");
            rc = 1;
            goto fields;
        }
    }

    /* the batches */
    uint64_t total = 0;
    size_t batches = 0;
    for (;;) {
        size_t rows = 0;
        st = inlay_reader_next(r, batch, &rows);
        if (st != INLAY_OK) {
            char what[128];
            snprintf(what, sizeof what, "inlay_reader_next (after %llu rows)", (unsigned long long)total);
            put_error(&out, what, st, inlay_reader_errmsg(r));
            rc = 1;
            break;
        }
        if (rows == 0)
            break;
        batches++;
        if (batch && rows > batch)
            problem("batch %zu: %zu rows, %zu asked for", batches, rows, batch);
        int rg = inlay_reader_batch_row_group(r);
        uint64_t first = inlay_reader_batch_first_row(r);
        if (first != total)
            problem("batch %zu: inlay_reader_batch_first_row %llu, %llu rows read before it", batches,
                    (unsigned long long)first, (unsigned long long)total);
        /* the row group holding file row `total` (row groups of no rows
         * give no batch), and the rows left in it */
        uint64_t start = 0;
        int g = 0;
        while (g < info->num_row_groups && start + (uint64_t)info->row_groups[g].num_rows <= total)
            start += (uint64_t)info->row_groups[g++].num_rows;
        if (g >= info->num_row_groups) {
            problem("batch %zu: %zu rows past the footer's %lld rows", batches, rows, (long long)info->num_rows);
        } else {
            uint64_t left = start + (uint64_t)info->row_groups[g].num_rows - total;
            if (rg != g)
                problem("batch %zu: inlay_reader_batch_row_group %d, file row %llu is in row group %d", batches, rg,
                        (unsigned long long)total, g);
            if (rows > left)
                problem("batch %zu: %zu rows cross the end of row group %d (%llu rows left in it)", batches, rows, g,
                        (unsigned long long)left);
        }

        for (int j = 0; j < nsel; j++) {
            int k = order[j]; /* the j-th selected field is field k */
            const inlay_array *a = inlay_reader_array(r, j);
            if (!a) {
                problem("batch %zu: inlay_reader_array(%d) is NULL", batches, j);
                continue;
            }
            if (a->length != rows)
                problem("batch %zu: field %s has length %zu, the batch %zu rows", batches, node_info(top[k]).name,
                        a->length, rows);
            for (size_t i = 0; i < rows && i < a->length; i++) {
                g_row = total + i;
                if (vals[k].len)
                    sb_puts(&vals[k], ",");
                emit_node(&vals[k], top[k], a, i, false);
            }
            if (w) {
                st = inlay_writer_append_array(w, k, a, rows);
                if (st != INLAY_OK) {
                    char what[160];
                    snprintf(what, sizeof what, "inlay_writer_append_array (field %d, batch %zu)", k, batches);
                    put_error(&out, what, st, inlay_writer_errmsg(w));
                    rc = 1;
                    goto counted;
                }
            }
        }
        if (inlay_reader_array(r, nsel) != NULL)
            problem("batch %zu: inlay_reader_array(%d) is not NULL past the %d fields selected", batches, nsel, nsel);
        total += rows;
    }
    if (rc == 0 && total != (uint64_t)info->num_rows)
        problem("read %llu rows, the footer says %lld", (unsigned long long)total, (long long)info->num_rows);
    if (w && rc == 0) {
        st = inlay_writer_close(w);
        if (st != INLAY_OK) {
            put_error(&out, "inlay_writer_close", st, inlay_writer_errmsg(w));
            rc = 1;
        }
    }
counted:
    sb_printf(&out, ",\"rows\":%llu,\"batches\":%zu", (unsigned long long)total, batches);
fields:
    sb_puts(&out, ",\"fields\":[");
    for (int k = 0, first = 1; k < nf; k++) {
        if (!selected[k])
            continue;
        sb_puts(&out, first ? "{" : ",{");
        first = 0;
        type_json(&out, top[k], true, false);
        sb_puts(&out, ",\"values\":[");
        if (vals[k].len)
            sb_putn(&out, vals[k].p, vals[k].len);
        sb_puts(&out, "]}");
        sb_free(&vals[k]);
    }
    sb_puts(&out, "]");
    free(top);
    free(vals);
    free(order);
    free(selected);
done:
    if (g_nproblems > MAX_PROBLEMS)
        problem("... and %d more problems", g_nproblems - MAX_PROBLEMS);
    sb_puts(&out, ",\"problems\":[");
    if (g_problems.len)
        sb_putn(&out, g_problems.p, g_problems.len);
    sb_puts(&out, "]}\n");
    fwrite(out.p, 1, out.len, stdout);
    sb_free(&out);
    inlay_writer_free(w);
    inlay_reader_free(r);
    free(memory);
    g_schema = NULL;
    return rc;
}

static size_t parse_size(const char *s, const char *opt)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end)
        die("%s: not a number: %s", opt, s);
    return (size_t)v;
}

int main(int argc, char **argv)
{
    size_t batch = 0;
    bool reverse = false;
    const char *rewrite = NULL, *fields = NULL;
    enum open_how how = OPEN_FILE;
    wopts wo = {0};
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--")) {
            i++;
            break;
        } else if (!strcmp(o, "--reverse")) {
            reverse = true;
        } else if (!strcmp(o, "--memory")) {
            how = OPEN_MEMORY;
        } else if (!strcmp(o, "--stream")) {
            how = OPEN_STREAM;
        } else if (!strcmp(o, "--uncompressed")) {
            wo.uncompressed = true;
        } else if (i + 1 < argc && !strcmp(o, "--batch")) {
            batch = parse_size(argv[++i], o);
        } else if (i + 1 < argc && !strcmp(o, "--fields")) {
            fields = argv[++i];
        } else if (i + 1 < argc && !strcmp(o, "--rewrite")) {
            rewrite = argv[++i];
        } else if (i + 1 < argc && !strcmp(o, "--page-version")) {
            wo.page_version = (int)parse_size(argv[++i], o);
        } else if (i + 1 < argc && !strcmp(o, "--row-group-rows")) {
            wo.row_group_rows = parse_size(argv[++i], o);
        } else if (i + 1 < argc && !strcmp(o, "--page-rows")) {
            wo.page_rows = parse_size(argv[++i], o);
        } else {
            die("unknown option %s (usage: interop_read_dump [--batch N] [--reverse] [--fields A,B] [--rewrite OUT "
                "[--page-version V] [--uncompressed] [--row-group-rows N] [--page-rows N]] FILE...)",
                o);
        }
    }
    if (i >= argc)
        die("usage: interop_read_dump [--batch N] [--reverse] [--rewrite OUT] FILE...");
    if (rewrite && argc - i != 1)
        die("--rewrite takes one FILE");
    if (rewrite && fields)
        die("--rewrite copies every field: no --fields");
    int rc = 0;
    for (; i < argc; i++)
        if (dump_file(argv[i], batch, reverse, fields, how, rewrite, &wo))
            rc = 1;
    if (fflush(stdout) != 0)
        die("writing the output failed");
    return rc;
}
