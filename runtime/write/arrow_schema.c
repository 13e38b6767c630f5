/*
 * arrow_schema.c — Arrow schemas (the C data interface's ArrowSchema): the
 * format strings parsed into what they say (atype), the column types they
 * become, which columns can take them, and inlay_schema_from_arrow.
 *
 * A format string is the whole description of a type, but for two things:
 * a dictionary-encoded field's format is its indices' (the values' is the
 * dictionary's), and an extension type is its storage type's format with
 * the extension's name in the field's metadata ("ARROW:extension:name",
 * in Arrow's metadata encoding). inlay knows arrow.uuid and arrow.json;
 * any other extension is read as its storage type.
 *
 * Nothing here reads arrays or keeps anything: every function looks at the
 * caller's structs during the call only.
 */
#include "arrow.h"

#include <stdarg.h>
#include <stdio.h>

/* A decimal integer at *p (optionally signed); false when there is none or
 * it is past 9 digits. */
static bool take_num(const char **p, int32_t *out, bool sign)
{
    const char *q = *p;
    bool neg = false;
    if (sign && *q == '-') neg = true, q++;
    int32_t v = 0;
    int digits = 0;
    while (*q >= '0' && *q <= '9') {
        if (++digits > 9) return false;
        v = v * 10 + (*q++ - '0');
    }
    if (!digits) return false;
    *p = q;
    *out = neg ? -v : v;
    return true;
}

/* An integer format: c s i l (signed) C S I L (unsigned). */
static bool int_format(const char *f, int *bits, bool *is_signed)
{
    static const char codes[] = "csilCSIL";
    const char *k = f[0] && !f[1] ? strchr(codes, f[0]) : NULL;
    if (!k) return false;
    *bits = 8 << ((k - codes) & 3);
    *is_signed = k - codes < 4;
    return true;
}

/* Parses a format string that is not dictionary-encoded. Returns 0, or
 * INLAY_ERR_SCHEMA with *what naming what inlay does not take. */
static int parse_format(const char *f, atype *t, const char **what)
{
    memset(t, 0, sizeof *t);
    *what = "unknown format";
    if (int_format(f, &t->bits, &t->is_signed)) {
        t->kind = A_INT;
        return 0;
    }
    if (f[0] && !f[1]) {
        switch (f[0]) {
        case 'b': t->kind = A_BOOL; return 0;
        case 'e': t->kind = A_HALF; return 0;
        case 'f': t->kind = A_FLOAT; return 0;
        case 'g': t->kind = A_DOUBLE; return 0;
        case 'z': case 'u': t->kind = A_BYTES; t->layout = BYTES_OFFSETS32; t->utf8 = f[0] == 'u'; return 0;
        case 'Z': case 'U': t->kind = A_BYTES; t->layout = BYTES_OFFSETS64; t->utf8 = f[0] == 'U'; return 0;
        case 'n': *what = "null"; return INLAY_ERR_SCHEMA;
        default: return INLAY_ERR_SCHEMA;
        }
    }
    if (!strcmp(f, "vu") || !strcmp(f, "vz")) {
        t->kind = A_BYTES;
        t->layout = BYTES_VIEW;
        t->utf8 = f[1] == 'u';
        return 0;
    }
    const char *p = f + 2;
    if (f[0] == 'w' && f[1] == ':') {
        if (!take_num(&p, &t->width, false) || *p || t->width < 1) return INLAY_ERR_SCHEMA;
        t->kind = A_FIXED;
        return 0;
    }
    if (f[0] == 'd' && f[1] == ':') {
        int32_t bits = 128;
        if (!take_num(&p, &t->precision, false) || *p++ != ',' || !take_num(&p, &t->scale, true))
            return INLAY_ERR_SCHEMA;
        if (*p == ',' && (++p, !take_num(&p, &bits, false))) return INLAY_ERR_SCHEMA;
        if (*p) return INLAY_ERR_SCHEMA;
        t->kind = A_DECIMAL;
        t->bits = bits;
        if (bits != 32 && bits != 64 && bits != 128 && bits != 256) *what = "decimal of that bit width";
        else if (t->scale < 0) *what = "decimal with a negative scale";
        else if (t->precision < 1 || t->scale > t->precision || t->precision > inl_decimal_max_precision(bits / 8))
            *what = "decimal precision or scale out of range";
        else return 0;
        return INLAY_ERR_SCHEMA;
    }
    if (f[0] == 't') {
        static const char units[] = "smun";   /* s ms us ns */
        const char *u = f[1] && f[2] ? strchr(units, f[2]) : NULL;
        if (f[1] == 'd' && !f[3] && (f[2] == 'D' || f[2] == 'm')) {
            t->kind = A_DATE;
            t->bits = f[2] == 'D' ? 32 : 64;
            t->unit = f[2] == 'D' ? INLAY_UNIT_DAYS : INLAY_UNIT_MILLIS;
            return 0;
        }
        if (f[1] == 't' && u && !f[3]) {
            t->kind = A_TIME;
            t->unit = (inlay_unit)(INLAY_UNIT_SECONDS + (u - units));
            t->bits = u - units < 2 ? 32 : 64;
            return 0;
        }
        if (f[1] == 's' && u && f[3] == ':') {
            t->kind = A_TIMESTAMP;
            t->unit = (inlay_unit)(INLAY_UNIT_SECONDS + (u - units));
            t->bits = 64;
            t->tz = f[4] != '\0';
            return 0;
        }
        if (f[1] == 'D') *what = "duration";
        else if (f[1] == 'i') *what = "interval";
        return INLAY_ERR_SCHEMA;
    }
    if (f[0] == '+') {
        if (!strcmp(f, "+s")) { t->kind = A_STRUCT; return 0; }
        if (!strcmp(f, "+m")) { t->kind = A_MAP; t->bits = 32; return 0; }
        if (!strcmp(f, "+l") || !strcmp(f, "+L")) {
            t->kind = A_LIST;
            t->bits = f[1] == 'l' ? 32 : 64;
            return 0;
        }
        if (f[1] == 'w') *what = "fixed-size list";
        else if (f[1] == 'u') *what = "union";
        else if (f[1] == 'v') *what = "list view";
        else if (f[1] == 'r') *what = "run-end encoded";
        return INLAY_ERR_SCHEMA;
    }
    return INLAY_ERR_SCHEMA;
}

/* The value of "ARROW:extension:name" in metadata (Arrow's encoding: an
 * int32 count, then per pair an int32 length and the key's bytes, an int32
 * length and the value's bytes). Returns false when the metadata is
 * malformed (a negative count or length). */
static bool extension_name(const char *md, const char **name, int32_t *len)
{
    *name = NULL;
    *len = 0;
    if (!md) return true;
    int32_t n, kl, vl;
    memcpy(&n, md, 4);
    md += 4;
    if (n < 0) return false;
    for (int32_t i = 0; i < n; i++) {
        memcpy(&kl, md, 4);
        if (kl < 0) return false;
        const char *key = md + 4;
        memcpy(&vl, key + kl, 4);
        if (vl < 0) return false;
        const char *val = key + kl + 4;
        if (kl == 20 && !memcmp(key, "ARROW:extension:name", 20)) {
            *name = val;
            *len = vl;
        }
        md = val + vl;
    }
    return true;
}

static bool ext_is(const char *name, int32_t len, const char *want)
{
    return name && (size_t)len == strlen(want) && !memcmp(name, want, (size_t)len);
}

/* The type of an Arrow field: its format, or its dictionary's with the
 * indices' width; the extensions inlay knows. Returns 0,
 * INLAY_ERR_SCHEMA (*what names what is not supported; *shown is the
 * format meant) or INLAY_ERR_ARGUMENT (*what says what is malformed). */
int inl_arrow_type(const struct ArrowSchema *sch, atype *t, const char **what, const char **shown)
{
    *shown = sch->format;
    const struct ArrowSchema *vs = sch;
    int index_bits = 0;
    bool index_signed = false;
    if (sch->dictionary) {
        if (!int_format(sch->format, &index_bits, &index_signed)) {
            *what = "dictionary indices that are not integers";
            return INLAY_ERR_SCHEMA;
        }
        vs = sch->dictionary;
        if (!vs->format) {
            *what = "a dictionary without a format";
            return INLAY_ERR_ARGUMENT;
        }
        *shown = vs->format;
        if (vs->dictionary) {
            *what = "a dictionary of dictionary-encoded values";
            return INLAY_ERR_SCHEMA;
        }
    }
    int st = parse_format(vs->format, t, what);
    if (st) return st;
    if (index_bits && (t->kind == A_STRUCT || t->kind == A_LIST || t->kind == A_MAP)) {
        *what = "a dictionary of nested values";
        return INLAY_ERR_SCHEMA;
    }
    t->index_bits = index_bits;
    t->index_signed = index_signed;
    const char *ext;
    int32_t len;
    if (!extension_name(vs->metadata, &ext, &len) ||
        (vs != sch && !ext && !extension_name(sch->metadata, &ext, &len))) {
        *what = "malformed metadata";
        return INLAY_ERR_ARGUMENT;
    }
    if (ext_is(ext, len, "arrow.uuid") && t->kind == A_FIXED && t->width == 16) t->ext = EXT_UUID;
    if (ext_is(ext, len, "arrow.json") && t->kind == A_BYTES && t->utf8) t->ext = EXT_JSON;
    return 0;
}

/* The column type a leaf's Arrow type becomes in inlay_schema_from_arrow. */
/* Seconds become milliseconds: Parquet has no coarser unit. */
static inlay_time_unit column_unit(inlay_unit u)
{
    return u <= INLAY_UNIT_MILLIS ? INLAY_MILLIS : (inlay_time_unit)(u - INLAY_UNIT_MILLIS);
}

inlay_type inl_arrow_column_type(const atype *t)
{
    switch (t->kind) {
    case A_BOOL: return inlay_type_boolean();
    case A_INT: return inlay_type_int(t->bits, t->is_signed);
    case A_HALF: return inlay_type_float16();
    case A_FLOAT: return inlay_type_float();
    case A_DOUBLE: return inlay_type_double();
    case A_BYTES: return t->ext == EXT_JSON ? inlay_type_json() : t->utf8 ? inlay_type_string() : inlay_type_binary();
    case A_FIXED: return t->ext == EXT_UUID ? inlay_type_uuid() : inlay_type_fixed(t->width);
    case A_DECIMAL: {
        const int32_t p = t->precision;
        const inlay_physical phys = p <= 9 ? INLAY_INT32 : p <= 18 ? INLAY_INT64 : INLAY_FIXED_LEN_BYTE_ARRAY;
        return inlay_type_decimal(p, t->scale, phys, 0);
    }
    case A_DATE: return inlay_type_date();
    case A_TIME: return inlay_type_time(column_unit(t->unit), false);   /* a time of day has no zone */
    case A_TIMESTAMP: return inlay_type_timestamp(column_unit(t->unit), t->tz);
    default: return inlay_type_physical(INLAY_BOOLEAN);   /* groups have no type */
    }
}

/* Can a column of type ct take the values of Arrow type t? The same type,
 * or the same storage: a time or timestamp in another unit (converted),
 * strings and binaries into any BYTE_ARRAY column but a decimal one,
 * fixed-size binaries into a FIXED_LEN_BYTE_ARRAY of their width. */
bool inl_arrow_maps_onto(const atype *t, const inlay_type *ct)
{
    switch (t->kind) {
    case A_BOOL: return ct->physical == INLAY_BOOLEAN;
    case A_INT:
        if (ct->logical == INLAY_LOGICAL_INT) return ct->bit_width == t->bits && ct->is_signed == t->is_signed;
        return ct->logical == INLAY_LOGICAL_NONE && t->is_signed &&
               ((t->bits == 32 && ct->physical == INLAY_INT32) || (t->bits == 64 && ct->physical == INLAY_INT64));
    case A_HALF: return ct->logical == INLAY_LOGICAL_FLOAT16;
    case A_FLOAT: return ct->physical == INLAY_FLOAT;
    case A_DOUBLE: return ct->physical == INLAY_DOUBLE;
    case A_BYTES: return ct->physical == INLAY_BYTE_ARRAY && ct->logical != INLAY_LOGICAL_DECIMAL;
    case A_FIXED:
        return ct->physical == INLAY_FIXED_LEN_BYTE_ARRAY && ct->logical != INLAY_LOGICAL_DECIMAL &&
               ct->type_length == t->width;
    case A_DECIMAL:
        return ct->logical == INLAY_LOGICAL_DECIMAL && ct->precision == t->precision && ct->scale == t->scale &&
               (ct->physical != INLAY_FIXED_LEN_BYTE_ARRAY || ct->type_length >= 1);
    case A_DATE: return ct->logical == INLAY_LOGICAL_DATE;
    case A_TIME: return ct->logical == INLAY_LOGICAL_TIME;
    case A_TIMESTAMP: return ct->logical == INLAY_LOGICAL_TIMESTAMP && ct->utc == t->tz;
    default: return false;
    }
}

/* "timestamp(us, utc)", "struct", "list"... for messages. */
void inl_arrow_type_name(const atype *t, char *text, size_t cap)
{
    const char *group = t->kind == A_STRUCT ? "struct" : t->kind == A_LIST ? "list" : t->kind == A_MAP ? "map" : NULL;
    if (group) {
        snprintf(text, cap, "%s", group);
        return;
    }
    inlay_type ty = inl_arrow_column_type(t);
    size_t n = inl_type_name(&ty, text, cap);
    if (t->kind == A_TIME || t->kind == A_TIMESTAMP) {   /* say the unit Arrow has */
        static const char *const units[] = { "days", "s", "ms", "us", "ns" };
        if (n < cap) snprintf(text + n, cap - n, " from %s", units[t->unit]);
    }
}

/* ---- inlay_schema_from_arrow ---------------------------------------------- */

typedef struct fctx {
    inlay_schema *s;
    inl_err err;
    char path[256];
    size_t plen;
} fctx;

size_t inl_arrow_path_push(char *path, size_t *plen, size_t cap, const char *name)
{
    const size_t old = *plen;
    int k = snprintf(path + old, cap - old, "%s%s", old ? "." : "", name);
    if (k > 0) *plen = old + (size_t)k < cap ? old + (size_t)k : cap - 1;
    return old;
}

void inl_arrow_path_pop(char *path, size_t *plen, size_t old)
{
    *plen = old;
    path[old] = '\0';
}

INL_PRINTF(3, 4) static int fail_field(fctx *c, int status, const char *fmt, ...)
{
    char reason[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    return inl_err_set(&c->err, status, "field '%s': %s", c->path, reason);
}

/* A schema call's failure, with the schema's own message. */
static int schema_failed(fctx *c, int st)
{
    if (st == INLAY_ERR_NOMEM) return inl_err_set(&c->err, st, "out of memory");
    return inl_err_set(&c->err, st, "%s", inlay_schema_errmsg(c->s));
}

/* n_children and children agree, and no child is NULL. */
static int check_children(fctx *c, const struct ArrowSchema *sch, int64_t want)
{
    if (sch->n_children < 0 || (sch->n_children > 0 && !sch->children))
        return fail_field(c, INLAY_ERR_ARGUMENT, "n_children %lld without its children", (long long)sch->n_children);
    if (want >= 0 && sch->n_children != want)
        return fail_field(c, INLAY_ERR_ARGUMENT, "format \"%s\" with %lld children, not %lld", sch->format,
                          (long long)sch->n_children, (long long)want);
    for (int64_t k = 0; k < sch->n_children; k++)
        if (!sch->children[k]) return fail_field(c, INLAY_ERR_ARGUMENT, "child %lld is NULL", (long long)k);
    return 0;
}

static int add_field(fctx *c, int parent, const char *name, bool required, const struct ArrowSchema *sch, int depth);

static int add_children(fctx *c, int parent, const struct ArrowSchema *sch, int depth)
{
    for (int64_t k = 0; k < sch->n_children; k++) {
        const char *name = sch->children[k]->name;
        if (!name) return fail_field(c, INLAY_ERR_ARGUMENT, "child %lld has no name", (long long)k);
        INL_FORWARD(add_field(c, parent, name, false, sch->children[k], depth + 1));
    }
    return 0;
}

static int add_field(fctx *c, int parent, const char *name, bool required, const struct ArrowSchema *sch, int depth)
{
    const size_t old = inl_arrow_path_push(c->path, &c->plen, sizeof c->path, name);
    if (depth > ARROW_MAX_DEPTH) return fail_field(c, INLAY_ERR_SCHEMA, "nested deeper than %d", ARROW_MAX_DEPTH);
    if (!sch->format) return fail_field(c, INLAY_ERR_ARGUMENT, "no format");
    atype t;
    const char *what, *shown;
    int st = inl_arrow_type(sch, &t, &what, &shown);
    if (st == INLAY_ERR_SCHEMA)
        return fail_field(c, st, "Arrow format \"%s\" (%s) is not supported", shown, what);
    if (st) return fail_field(c, st, "%s", what);
    const inlay_repetition rep = !required && (sch->flags & ARROW_FLAG_NULLABLE) ? INLAY_OPTIONAL : INLAY_REQUIRED;
    int id;
    switch (t.kind) {
    case A_STRUCT:
        INL_FORWARD(check_children(c, sch, -1));
        if (sch->n_children == 0) return fail_field(c, INLAY_ERR_SCHEMA, "a struct with no fields");
        if ((id = inlay_schema_add_group(c->s, parent, name, rep)) < 0) return schema_failed(c, id);
        INL_FORWARD(add_children(c, id, sch, depth));
        break;
    case A_LIST:
        INL_FORWARD(check_children(c, sch, 1));
        if ((id = inlay_schema_add_list(c->s, parent, name, rep)) < 0) return schema_failed(c, id);
        INL_FORWARD(add_field(c, id, "element", false, sch->children[0], depth + 1));
        break;
    case A_MAP: {
        INL_FORWARD(check_children(c, sch, 1));
        const struct ArrowSchema *e = sch->children[0];
        if (!e->format || strcmp(e->format, "+s") || e->dictionary)
            return fail_field(c, INLAY_ERR_ARGUMENT, "a map's child is not a struct of key and value");
        INL_FORWARD(check_children(c, e, 2));
        if ((id = inlay_schema_add_map(c->s, parent, name, rep)) < 0) return schema_failed(c, id);
        INL_FORWARD(add_field(c, id, "key", true, e->children[0], depth + 1));
        INL_FORWARD(add_field(c, id, "value", false, e->children[1], depth + 1));
        break;
    }
    default:
        if (sch->n_children != 0) INL_FORWARD(check_children(c, sch, 0));
        if ((id = inlay_schema_add(c->s, parent, name, rep, inl_arrow_column_type(&t), NULL)) < 0)
            return schema_failed(c, id);
        break;
    }
    inl_arrow_path_pop(c->path, &c->plen, old);
    return 0;
}

int inlay_schema_from_arrow(inlay_schema **out, const struct ArrowSchema *schema, const inlay_allocator *alloc,
                            char *err, size_t errcap)
{
    if (!out) return inl_err_format(err, errcap, INLAY_ERR_ARGUMENT, "no place for the schema");
    *out = NULL;
    if (!schema || !schema->format)
        return inl_err_format(err, errcap, INLAY_ERR_ARGUMENT, "no Arrow schema, or one without a format");
    if (strcmp(schema->format, "+s") || schema->dictionary)
        return inl_err_format(err, errcap, INLAY_ERR_ARGUMENT,
                              "a record batch's schema is a struct (\"+s\"), not \"%s\"", schema->format);
    fctx c;
    memset(&c, 0, sizeof c);
    inl_err_clear(&c.err);
    c.s = inlay_schema_create(alloc);
    if (!c.s) return inl_err_format(err, errcap, INLAY_ERR_NOMEM, "out of memory");
    int st = check_children(&c, schema, -1);
    if (!st && schema->n_children == 0) st = inl_err_set(&c.err, INLAY_ERR_SCHEMA, "the schema has no fields");
    for (int64_t k = 0; !st && k < schema->n_children; k++) {
        const char *name = schema->children[k]->name;
        if (!name) st = inl_err_set(&c.err, INLAY_ERR_ARGUMENT, "field %lld has no name", (long long)k);
        else st = add_field(&c, 0, name, false, schema->children[k], 1);
    }
    if (st) {
        inlay_schema_free(c.s);
        return inl_err_format(err, errcap, st, "%s", c.err.msg);
    }
    *out = c.s;
    if (err && errcap) err[0] = '\0';
    return INLAY_OK;
}
