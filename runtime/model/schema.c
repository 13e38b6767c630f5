/*
 * schema.c — building, checking, copying and printing the schema tree
 * (see schema.h).
 */
#include "schema.h"

#include <stdarg.h>
#include <stdio.h>

#include "utf8.h"

void inlay_column_options_init(inlay_column_options *o)
{
    memset(o, 0, sizeof *o);
    o->encoding = INLAY_ENCODING_AUTO;
    o->statistics = true;
    o->compression = -1;
    o->compression_level = INLAY_LEVEL_DEFAULT;
}

int inl_codec_check(int codec, int level, int *resolved, char *why, size_t cap)
{
    const char *name = codec >= 0 ? inlay_compression_name((inlay_compression)codec) : NULL;
    if (!name) {
        snprintf(why, cap, "unknown compression %d", codec);
        return INLAY_ERR_ARGUMENT;
    }
    if (!inlay_compression_supported((inlay_compression)codec)) {
        snprintf(why, cap, "compression %s is not built into this library", name);
        return INLAY_ERR_ARGUMENT;
    }
    int lo, hi, dflt;
    if (!inlay_compression_levels((inlay_compression)codec, &lo, &hi, &dflt)) {
        if (level != INLAY_LEVEL_DEFAULT) {
            snprintf(why, cap, "compression %s has no levels (level %d given)", name, level);
            return INLAY_ERR_ARGUMENT;
        }
        *resolved = 0;
        return 0;
    }
    if (level == INLAY_LEVEL_DEFAULT) level = dflt;
    if (level < lo || level > hi) {
        snprintf(why, cap, "compression %s takes levels %d to %d, not %d", name, lo, hi, level);
        return INLAY_ERR_ARGUMENT;
    }
    *resolved = level;
    return 0;
}

/* ---- building ---------------------------------------------------------- */


static void clear_layout(inlay_schema *s)
{
    if (s->preorder) inl_mem_free(&s->alloc, s->preorder, (size_t)s->count * sizeof *s->preorder);
    for (int i = 0; i < s->num_leaves; i++) {
        inl_mem_strfree(&s->alloc, s->leaves[i].path);
        if (s->leaves[i].parts)
            inl_mem_free(&s->alloc, (void *)s->leaves[i].parts, (size_t)s->leaves[i].depth * sizeof(char *));
    }
    if (s->leaves) inl_mem_free(&s->alloc, s->leaves, (size_t)s->num_leaves * sizeof *s->leaves);
    s->preorder = NULL;
    s->leaves = NULL;
    s->num_leaves = 0;
    s->finalized = false;
}

static int add_node(inlay_schema *s, int parent, const char *name, inlay_repetition rep)
{
    if (s->count == s->cap) {
        int cap = s->cap ? s->cap * 2 : 16;
        schema_node *n = inl_mem_realloc(&s->alloc, s->nodes, (size_t)s->cap * sizeof *n,
                                     (size_t)cap * sizeof *n);
        if (!n) return inl_err_set(&s->err, INLAY_ERR_NOMEM, "out of memory");
        s->nodes = n;
        s->cap = cap;
    }
    schema_node *n = &s->nodes[s->count];
    memset(n, 0, sizeof *n);
    n->name = inl_mem_strdup(&s->alloc, name);
    if (!n->name) return inl_err_set(&s->err, INLAY_ERR_NOMEM, "out of memory");
    n->parent = parent;
    n->first_child = n->last_child = n->next_sibling = -1;
    n->rep = rep;
    inlay_column_options_init(&n->opts);
    if (parent >= 0) {
        schema_node *p = &s->nodes[parent];
        if (p->last_child >= 0) s->nodes[p->last_child].next_sibling = s->count;
        else p->first_child = s->count;
        p->last_child = s->count;
        p->num_children++;
    }
    clear_layout(s);
    return s->count++;
}

/* Take back the node add_node made last (the newest child of its parent). */
static void drop_last_node(inlay_schema *s)
{
    clear_layout(s);                  /* sized by the count it was made with */
    int id = s->count - 1;
    schema_node *p = &s->nodes[s->nodes[id].parent];
    if (p->first_child == id) {
        p->first_child = p->last_child = -1;
    } else {
        int prev = p->first_child;
        while (s->nodes[prev].next_sibling != id) prev = s->nodes[prev].next_sibling;
        s->nodes[prev].next_sibling = -1;
        p->last_child = prev;
    }
    p->num_children--;
    inl_mem_strfree(&s->alloc, s->nodes[id].name);
    s->count--;
}

inlay_schema *inlay_schema_create(const inlay_allocator *alloc)
{
    inlay_allocator a = inl_mem_or_default(alloc);
    inlay_schema *s = inl_mem_alloc(&a, sizeof *s);
    if (!s) return NULL;
    memset(s, 0, sizeof *s);
    s->alloc = a;
    if (add_node(s, -1, "schema", INLAY_REQUIRED) < 0) {
        inl_mem_free(&a, s->nodes, (size_t)s->cap * sizeof *s->nodes);
        inl_mem_free(&a, s, sizeof *s);
        return NULL;
    }
    s->nodes[0].is_group = true;
    return s;
}

void inlay_schema_free(inlay_schema *s)
{
    if (!s) return;
    inlay_allocator a = s->alloc;
    clear_layout(s);
    for (int i = 0; i < s->count; i++) inl_mem_strfree(&a, s->nodes[i].name);
    inl_mem_free(&a, s->nodes, (size_t)s->cap * sizeof *s->nodes);
    inl_mem_free(&a, s, sizeof *s);
}

const char *inlay_schema_errmsg(const inlay_schema *s)
{
    return s ? s->err.msg : "no schema";
}

/* Dotted path of node n (without the root) into out. */
static void node_path(const inlay_schema *s, int n, char *out, size_t cap)
{
    int chain[64], depth = 0;
    for (int i = n; i > 0 && depth < 64; i = s->nodes[i].parent) chain[depth++] = i;
    size_t len = 0;
    out[0] = 0;
    for (int k = depth - 1; k >= 0 && len < cap; k--)
        len += (size_t)snprintf(out + len, cap - len, "%s%s", k == depth - 1 ? "" : ".",
                                s->nodes[chain[k]].name);
}

/* Dotted path of a field `name` about to be added under `parent`. */
static void child_path(const inlay_schema *s, int parent, const char *name, char *out, size_t cap)
{
    node_path(s, parent, out, cap);
    size_t len = strlen(out);
    snprintf(out + len, cap - len, "%s%s", len ? "." : "", name);
}

static const char *group_kind(schema_group a)
{
    return a == GROUP_LIST ? "LIST" : "MAP";
}

/* The LIST or MAP group whose repeated middle group (`list`, `key_value`)
 * is node n, or -1 when n is not one. */
static int nested_owner(const inlay_schema *s, int n)
{
    if (n <= 0 || !s->nodes[n].is_group) return -1;
    int p = s->nodes[n].parent;
    return p > 0 && s->nodes[p].annotation != GROUP_PLAIN ? p : -1;
}

/* A field added where a LIST or MAP has fixed places: not beside the
 * middle group, and under it only `element`, or `key` then `value`. */
static int check_slot(inlay_schema *s, int parent, const char *name, inlay_repetition rep)
{
    const schema_node *p = &s->nodes[parent];
    char path[256], owner_path[256];
    child_path(s, parent, name, path, sizeof path);
    if (p->annotation != GROUP_PLAIN) {
        const bool list = p->annotation == GROUP_LIST;
        node_path(s, parent, owner_path, sizeof owner_path);
        return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "field '%s': %s '%s' holds only its repeated group '%s'; "
                    "add fields under the id inlay_schema_add_%s returned", path, group_kind(p->annotation),
                    owner_path, list ? "list" : "key_value", list ? "list" : "map");
    }
    int owner = nested_owner(s, parent);
    if (owner < 0) return 0;
    node_path(s, owner, owner_path, sizeof owner_path);
    if (s->nodes[owner].annotation == GROUP_LIST) {
        if (p->num_children > 0)
            return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "field '%s': LIST '%s' already has its element", path, owner_path);
        if (strcmp(name, "element") != 0)
            return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "field '%s': the element of LIST '%s' must be named 'element'",
                        path, owner_path);
        if (rep == INLAY_REPEATED)
            return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "field '%s': a list element is required or optional, not repeated",
                        path);
        return 0;
    }
    if (p->num_children == 0) {
        if (strcmp(name, "key") != 0)
            return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "field '%s': the first field of MAP '%s' must be its 'key'",
                        path, owner_path);
        if (rep != INLAY_REQUIRED)
            return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "field '%s': a map key must be required", path);
        return 0;
    }
    if (p->num_children > 1)
        return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "field '%s': MAP '%s' already has its key and value", path, owner_path);
    if (strcmp(name, "value") != 0)
        return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "field '%s': the field after the key of MAP '%s' must be its 'value'",
                    path, owner_path);
    if (rep == INLAY_REPEATED)
        return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "field '%s': a map value is required or optional, not repeated", path);
    return 0;
}

/* A name as a message shows it: each byte that is not part of valid UTF-8,
 * each control character and the backslash escaped (\xff, \x0a, \\), so
 * a bad name is readable and never goes into a message raw. */
static void escape_name(const char *name, char *out, size_t cap)
{
    const uint8_t *p = (const uint8_t *)name;
    const size_t n = strlen(name);
    size_t len = 0;
    for (size_t i = 0; i < n && len + 5 < cap;) {
        const uint8_t b = p[i];
        size_t seq = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
        if (b >= 0x80 && seq && i + seq <= n && len + seq < cap && inl_utf8_valid(p + i, seq)) {
            memcpy(out + len, p + i, seq);
            len += seq;
            i += seq;
            continue;
        }
        if (b < 0x20 || b == 0x7F || b == '\\' || b >= 0x80)
            len += (size_t)snprintf(out + len, cap - len, b == '\\' ? "\\\\" : "\\x%02x", b);
        else
            out[len++] = (char)b;
        i++;
    }
    out[len] = 0;
}

/* Names become the footer's strings, which readers (Arrow, DuckDB) refuse
 * when they are not UTF-8, so a bad one is refused here, where the mistake
 * is made, rather than in a file nobody can read. Names are C strings: a
 * NUL cannot be in one. */
static int check_name(inlay_schema *s, int parent, const char *name)
{
    const bool parent_ok = parent > 0 && parent < s->count;
    char path[256] = "";
    if (parent_ok) node_path(s, parent, path, sizeof path);
    if (!name || !*name) {
        if (!parent_ok) return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "a field has an empty name");
        return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "a field of '%s' has an empty name", path);
    }
    if (inl_utf8_valid((const uint8_t *)name, strlen(name))) return 0;
    char shown[256];
    escape_name(name, shown, sizeof shown);
    return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "field '%s%s%s': the name is not valid UTF-8", path,
                       path[0] ? "." : "", shown);
}

static int check_parent(inlay_schema *s, int parent, const char *name, inlay_repetition rep)
{
    INL_FORWARD(check_name(s, parent, name));
    if (parent < 0 || parent >= s->count || !s->nodes[parent].is_group)
        return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "field '%s': parent %d is not a group", name, parent);
    if (rep != INLAY_REQUIRED && rep != INLAY_OPTIONAL && rep != INLAY_REPEATED)
        return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "field '%s': bad repetition %d", name, (int)rep);
    for (int c = s->nodes[parent].first_child; c >= 0; c = s->nodes[c].next_sibling) {
        if (strcmp(s->nodes[c].name, name) == 0) {
            char path[256];
            node_path(s, c, path, sizeof path);
            return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "field '%s': duplicate name", path);
        }
    }
    return check_slot(s, parent, name, rep);
}

static int check_type(inlay_schema *s, const char *name, const inlay_type *t)
{
    char why[128];
    if (inl_type_check(t, why, sizeof why)) return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "field '%s': %s", name, why);
    return 0;
}

static int check_encoding(inlay_schema *s, const char *path, const inlay_type *t,
                          inlay_encoding_choice e)
{
    const inlay_physical p = t->physical;
    const bool integer = p == INLAY_INT32 || p == INLAY_INT64;
    const bool bytes = inl_type_is_bytes(t);
    const char *why = NULL;
    switch (e) {
    case INLAY_ENCODING_AUTO: case INLAY_ENCODING_PLAIN: return 0;
    case INLAY_ENCODING_DICTIONARY:
        if (p == INLAY_BOOLEAN) why = "BOOLEAN columns have no dictionary encoding";
        break;
    case INLAY_ENCODING_DELTA:
        if (!integer && !bytes) why = "delta encodings are for integer and byte-array columns";
        break;
    case INLAY_ENCODING_DELTA_BYTE_ARRAY:
        if (!bytes) why = "DELTA_BYTE_ARRAY is for byte-array columns";
        break;
    case INLAY_ENCODING_BYTE_STREAM_SPLIT:
        if (p == INLAY_BOOLEAN || p == INLAY_BYTE_ARRAY)
            why = "BYTE_STREAM_SPLIT is for FLOAT, DOUBLE, INT32, INT64 and FIXED_LEN_BYTE_ARRAY";
        break;
    case INLAY_ENCODING_RLE:
        if (p != INLAY_BOOLEAN) why = "RLE value encoding is for BOOLEAN columns";
        break;
    default:
        return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "field '%s': unknown encoding %d", path, (int)e);
    }
    return why ? inl_err_set(&s->err, INLAY_ERR_SCHEMA, "field '%s': %s", path, why) : 0;
}

int inlay_schema_add(inlay_schema *s, int parent, const char *name, inlay_repetition rep,
                     inlay_type type, const inlay_column_options *opts)
{
    if (!s) return INLAY_ERR_ARGUMENT;
    INL_FORWARD(check_parent(s, parent, name, rep));
    char path[256];
    child_path(s, parent, name, path, sizeof path);
    INL_FORWARD(check_type(s, path, &type));
    if (opts) INL_FORWARD(check_encoding(s, path, &type, opts->encoding));
    if (opts && opts->compression != -1) {
        char why[128];
        int level;
        if (inl_codec_check(opts->compression, opts->compression_level, &level, why, sizeof why))
            return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "field '%s': %s", path, why);
    }
    if (opts && opts->bloom_filter) {
        if (type.physical == INLAY_BOOLEAN)
            return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "field '%s': a bloom filter is not for booleans", path);
        if (!(opts->bloom_fpp == 0 || (opts->bloom_fpp > 0 && opts->bloom_fpp < 1)))
            return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "field '%s': bloom filter fpp %g is not in (0, 1)",
                               path, opts->bloom_fpp);
    }
    int id = add_node(s, parent, name, rep);
    if (id < 0) return id;
    s->nodes[id].type = type;
    if (opts) s->nodes[id].opts = *opts;
    return id;
}

int inlay_schema_add_group(inlay_schema *s, int parent, const char *name, inlay_repetition rep)
{
    if (!s) return INLAY_ERR_ARGUMENT;
    INL_FORWARD(check_parent(s, parent, name, rep));
    int id = add_node(s, parent, name, rep);
    if (id >= 0) s->nodes[id].is_group = true;
    return id;
}

/* <rep> group <name> (LIST|MAP) { repeated group <middle> { } }: both
 * nodes or neither. Returns the middle group's id. */
static int add_nested(inlay_schema *s, int parent, const char *name, inlay_repetition rep,
                      schema_group annotation, const char *middle)
{
    if (!s) return INLAY_ERR_ARGUMENT;
    INL_FORWARD(check_parent(s, parent, name, rep));
    if (rep == INLAY_REPEATED) {
        char path[256];
        child_path(s, parent, name, path, sizeof path);
        return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "field '%s': a %s is required or optional, not repeated", path,
                    group_kind(annotation));
    }
    int outer = add_node(s, parent, name, rep);
    if (outer < 0) return outer;
    s->nodes[outer].is_group = true;
    s->nodes[outer].annotation = annotation;
    int mid = add_node(s, outer, middle, INLAY_REPEATED);
    if (mid < 0) {
        drop_last_node(s);
        return mid;
    }
    s->nodes[mid].is_group = true;
    return mid;
}

int inlay_schema_add_list(inlay_schema *s, int parent, const char *name, inlay_repetition rep)
{
    return add_nested(s, parent, name, rep, GROUP_LIST, "list");
}

int inlay_schema_add_map(inlay_schema *s, int parent, const char *name, inlay_repetition rep)
{
    return add_nested(s, parent, name, rep, GROUP_MAP, "key_value");
}

/* For a reader, which builds the schema of a file it has checked itself:
 * no name, slot or type checks, so a file's names (any bytes but NUL)
 * and its LIST and MAP groups go in as they are. */
int inl_schema_add_raw(inlay_schema *s, int parent, const char *name, inlay_repetition rep, bool is_group,
                       schema_group annotation, const inlay_type *type)
{
    int id = add_node(s, parent, name, rep);
    if (id < 0) return id;
    s->nodes[id].is_group = is_group;
    s->nodes[id].annotation = is_group ? annotation : GROUP_PLAIN;
    if (!is_group && type) s->nodes[id].type = *type;
    return id;
}

/* ---- layout -------------------------------------------------------------- */

/* The shape LogicalTypes.md asks of a LIST or MAP group n: a list or map
 * is required or optional and holds one repeated field. A LIST's is the
 * group `list` holding one non-repeated `element` (or, in the older 2-level
 * form, a repeated primitive that is itself the element); a MAP's is the
 * group `key_value` holding a required `key` and at most a non-repeated
 * `value`, in that order. */
static int check_nested(inlay_schema *s, int n)
{
    const schema_node *g = &s->nodes[n];
    const char *kind = group_kind(g->annotation);
    char path[256], mid_path[256];
    node_path(s, n, path, sizeof path);
    if (g->rep == INLAY_REPEATED)
        return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "%s '%s' is repeated; a %s is required or optional", kind, path, kind);
    const int m = g->first_child;
    if (g->num_children != 1 || s->nodes[m].rep != INLAY_REPEATED)
        return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "%s '%s' must hold exactly one field, a repeated group", kind, path);
    const schema_node *mid = &s->nodes[m];
    node_path(s, m, mid_path, sizeof mid_path);
    if (g->annotation == GROUP_LIST) {
        if (!mid->is_group) return 0;   /* 2-level: the repeated primitive is the element */
        if (mid->num_children == 0)
            return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "LIST '%s' has no element (add it under '%s')", path, mid_path);
        if (mid->num_children != 1)
            return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "LIST '%s' must hold one element in '%s', not %d fields",
                        path, mid_path, mid->num_children);
        const schema_node *e = &s->nodes[mid->first_child];
        if (strcmp(mid->name, "list") != 0 || strcmp(e->name, "element") != 0)
            return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "LIST '%s' must hold 'list.element', not '%s.%s'",
                        path, mid->name, e->name);
        if (e->rep == INLAY_REPEATED)
            return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "LIST '%s': its element is repeated; it must be required or optional",
                        path);
        return 0;
    }
    if (!mid->is_group || strcmp(mid->name, "key_value") != 0)
        return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "MAP '%s' must hold the repeated group 'key_value', not '%s'",
                    path, mid->name);
    if (mid->num_children == 0)
        return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "MAP '%s' has no key (add 'key' and 'value' under '%s')", path, mid_path);
    if (mid->num_children > 2)
        return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "MAP '%s' must hold a key and at most a value in '%s', not %d fields",
                    path, mid_path, mid->num_children);
    const schema_node *key = &s->nodes[mid->first_child];
    if (strcmp(key->name, "key") != 0 || key->rep != INLAY_REQUIRED)
        return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "MAP '%s': the first field of '%s' must be the required 'key'",
                    path, mid_path);
    if (mid->num_children == 2) {
        const schema_node *value = &s->nodes[key->next_sibling];
        if (strcmp(value->name, "value") != 0 || value->rep == INLAY_REPEATED)
            return inl_err_set(&s->err, INLAY_ERR_SCHEMA,
                        "MAP '%s': the second field of '%s' must be a required or optional 'value'",
                        path, mid_path);
    }
    return 0;
}

int inl_schema_finalize(inlay_schema *s)
{
    if (s->finalized) return 0;
    clear_layout(s);
    s->preorder = inl_mem_alloc(&s->alloc, (size_t)s->count * sizeof *s->preorder);
    if (!s->preorder) return inl_err_set(&s->err, INLAY_ERR_NOMEM, "out of memory");
    int nleaves = 0, k = 0;
    /* iterative preorder walk */
    int n = 0;
    while (n >= 0) {
        s->preorder[k++] = n;
        if (!s->nodes[n].is_group) nleaves++;
        else if (s->nodes[n].annotation != GROUP_PLAIN && check_nested(s, n)) return INLAY_ERR_SCHEMA;
        else if (s->nodes[n].num_children == 0) {
            char path[256];
            node_path(s, n, path, sizeof path);
            if (n == 0) return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "the schema has no fields");
            return inl_err_set(&s->err, INLAY_ERR_SCHEMA, "group '%s' has no fields", path);
        }
        if (s->nodes[n].first_child >= 0) { n = s->nodes[n].first_child; continue; }
        while (n >= 0 && s->nodes[n].next_sibling < 0) n = s->nodes[n].parent;
        if (n >= 0) n = s->nodes[n].next_sibling;
    }
    s->leaves = inl_mem_alloc(&s->alloc, (size_t)nleaves * sizeof *s->leaves);
    if (!s->leaves) return inl_err_set(&s->err, INLAY_ERR_NOMEM, "out of memory");
    memset(s->leaves, 0, (size_t)nleaves * sizeof *s->leaves);
    s->num_leaves = nleaves;   /* the array's size, for clear_layout on failure */
    int leaf = 0;
    for (int i = 0; i < k; i++) {
        int id = s->preorder[i];
        if (s->nodes[id].is_group) continue;
        schema_leaf *l = &s->leaves[leaf++];
        l->node = id;
        l->order = inl_type_sort_order(&s->nodes[id].type);
        for (int c = id; c > 0; c = s->nodes[c].parent) {
            l->depth++;
            if (s->nodes[c].rep != INLAY_REQUIRED) l->max_def++;
            if (s->nodes[c].rep == INLAY_REPEATED) l->max_rep++;
        }
        char path[1024];
        node_path(s, id, path, sizeof path);
        l->path = inl_mem_strdup(&s->alloc, path);
        l->parts = inl_mem_alloc(&s->alloc, (size_t)l->depth * sizeof(char *));
        if (!l->path || !l->parts) return inl_err_set(&s->err, INLAY_ERR_NOMEM, "out of memory");
        int d = l->depth;
        for (int c = id; c > 0; c = s->nodes[c].parent) l->parts[--d] = s->nodes[c].name;
    }
    s->finalized = true;
    return 0;
}

int inlay_schema_num_columns(const inlay_schema *s)
{
    if (!s) return 0;
    int n = 0;
    for (int i = 0; i < s->count; i++) n += !s->nodes[i].is_group;
    return n;
}

inlay_schema *inl_schema_clone(const inlay_schema *src, const inlay_allocator *a)
{
    inlay_schema *s = inl_mem_alloc(a, sizeof *s);
    if (!s) return NULL;
    memset(s, 0, sizeof *s);
    s->alloc = *a;
    s->nodes = inl_mem_alloc(a, (size_t)src->count * sizeof *s->nodes);
    if (!s->nodes) { inl_mem_free(a, s, sizeof *s); return NULL; }
    s->cap = src->count;
    for (int i = 0; i < src->count; i++) {
        s->nodes[i] = src->nodes[i];
        s->nodes[i].name = inl_mem_strdup(a, src->nodes[i].name);
        s->count = i + 1;
        if (!s->nodes[i].name) { inlay_schema_free(s); return NULL; }
    }
    return s;
}

/* Node n of src and everything under it, added under `parent` of s. */
static int copy_subtree(inlay_schema *s, int parent, const inlay_schema *src, int n)
{
    const schema_node *o = &src->nodes[n];
    int id = inl_schema_add_raw(s, parent, o->name, o->rep, o->is_group, o->annotation, &o->type);
    if (id < 0) return id;
    s->nodes[id].opts = o->opts;
    for (int c = o->first_child; c > 0; c = src->nodes[c].next_sibling)
        INL_FORWARD(copy_subtree(s, id, src, c));
    return 0;
}

inlay_schema *inl_schema_clone_without(const inlay_schema *src, const inlay_allocator *a, const bool *drop)
{
    inlay_schema *s = inlay_schema_create(a);
    if (!s) return NULL;
    int i = 0;
    for (int c = src->nodes[0].first_child; c > 0; c = src->nodes[c].next_sibling, i++) {
        if (drop[i]) continue;
        if (copy_subtree(s, 0, src, c) < 0) {
            inlay_schema_free(s);
            return NULL;
        }
    }
    return s;
}

/* ---- printing ------------------------------------------------------------ */

typedef struct out { char *buf; size_t cap, len; } out;

static void emit(out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = o->len < o->cap ? o->cap - o->len : 0;
    int n = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0) o->len += (size_t)n;
}

/* The Parquet schema text spells units as the format does. */
static const char *unit_name(inlay_time_unit u)
{
    return u == INLAY_MILLIS ? "MILLIS" : u == INLAY_MICROS ? "MICROS" : "NANOS";
}

static void emit_annotation(out *o, const inlay_type *t)
{
    switch (t->logical) {
    case INLAY_LOGICAL_NONE: return;
    case INLAY_LOGICAL_STRING: emit(o, " (STRING)"); return;
    case INLAY_LOGICAL_ENUM: emit(o, " (ENUM)"); return;
    case INLAY_LOGICAL_JSON: emit(o, " (JSON)"); return;
    case INLAY_LOGICAL_UUID: emit(o, " (UUID)"); return;
    case INLAY_LOGICAL_FLOAT16: emit(o, " (FLOAT16)"); return;
    case INLAY_LOGICAL_DATE: emit(o, " (DATE)"); return;
    case INLAY_LOGICAL_TIME:
        emit(o, " (TIME(%s,%s))", unit_name(t->unit), t->utc ? "true" : "false"); return;
    case INLAY_LOGICAL_TIMESTAMP:
        emit(o, " (TIMESTAMP(%s,%s))", unit_name(t->unit), t->utc ? "true" : "false"); return;
    case INLAY_LOGICAL_DECIMAL:
        emit(o, " (DECIMAL(%d,%d))", (int)t->precision, (int)t->scale); return;
    case INLAY_LOGICAL_INT:
        emit(o, " (INTEGER(%d,%s))", (int)t->bit_width, t->is_signed ? "true" : "false"); return;
    }
}

static const char *physical_name(inlay_physical p)
{
    static const char *names[] = { "boolean", "int32", "int64", "int96", "float", "double",
                                   "binary", "fixed_len_byte_array" };
    return (unsigned)p < 8 ? names[p] : "?";
}

static void emit_node(out *o, const inlay_schema *s, int n, int indent)
{
    const schema_node *node = &s->nodes[n];
    static const char *reps[] = { "required", "optional", "repeated" };
    emit(o, "%*s%s ", indent, "", reps[node->rep]);
    if (node->is_group) {
        emit(o, "group %s%s {\n", node->name, node->annotation == GROUP_LIST ? " (LIST)"
                                           : node->annotation == GROUP_MAP ? " (MAP)" : "");
        for (int c = node->first_child; c >= 0; c = s->nodes[c].next_sibling)
            emit_node(o, s, c, indent + 2);
        emit(o, "%*s}\n", indent, "");
        return;
    }
    emit(o, "%s", physical_name(node->type.physical));
    if (node->type.physical == INLAY_FIXED_LEN_BYTE_ARRAY) emit(o, "(%d)", (int)node->type.type_length);
    emit(o, " %s", node->name);
    emit_annotation(o, &node->type);
    emit(o, ";\n");
}

size_t inlay_schema_format(const inlay_schema *s, char *text, size_t cap)
{
    out o = { text, cap, 0 };
    if (cap) text[0] = 0;
    if (!s) return 0;
    emit(&o, "message schema {\n");
    for (int c = s->nodes[0].first_child; c >= 0; c = s->nodes[c].next_sibling)
        emit_node(&o, s, c, 2);
    emit(&o, "}\n");
    return o.len;
}

/* The i-th leaf in depth-first order, counting down *i. */
static int nth_leaf(const inlay_schema *s, int node, int *i)
{
    for (int c = s->nodes[node].first_child; c >= 0; c = s->nodes[c].next_sibling) {
        if (!s->nodes[c].is_group) {
            if ((*i)-- == 0) return c;
        } else {
            int r = nth_leaf(s, c, i);
            if (r >= 0) return r;
        }
    }
    return -1;
}

int inlay_schema_column(const inlay_schema *s, int i, const char **name, inlay_type *type,
                        inlay_repetition *repetition)
{
    if (!s || i < 0 || !s->count) return INLAY_ERR_COLUMN;
    int left = i;
    int n = nth_leaf(s, 0, &left);
    if (n < 0) return INLAY_ERR_COLUMN;
    if (name) *name = s->nodes[n].name;
    if (type) *type = s->nodes[n].type;
    if (repetition) *repetition = s->nodes[n].rep;
    return INLAY_OK;
}

/* ---- walking --------------------------------------------------------------- */

/* Nodes are numbered for hosts in depth-first order, which is the order of
 * the footer's elements. A schema built top-down (every reader's, and a
 * writer's whose fields were added parent before child, siblings in order)
 * has its node ids in that order already, so the fast paths below cost
 * nothing; any other is answered by walking the preorder. */

/* Depth-first position of node id, or -1. */
static int rank_of(const inlay_schema *s, int id)
{
    if (id < 0) return -1;
    if (s->preorder[id] == id) return id;
    for (int k = 0; k < s->count; k++)
        if (s->preorder[k] == id) return k;
    return -1;
}

/* The leaf column of node id (a primitive), or -1. */
static int column_of(const inlay_schema *s, int id)
{
    int lo = 0, hi = s->num_leaves - 1;
    while (lo <= hi) {   /* leaves are in preorder: by id when ids are ranks */
        const int mid = lo + (hi - lo) / 2, n = s->leaves[mid].node;
        if (n == id) return mid;
        if (n < id) lo = mid + 1;
        else hi = mid - 1;
    }
    for (int i = 0; i < s->num_leaves; i++)
        if (s->leaves[i].node == id) return i;
    return -1;
}

int inlay_schema_num_nodes(const inlay_schema *s)
{
    return s ? s->count : 0;
}

int inlay_schema_node(const inlay_schema *s, int node, inlay_node_info *info)
{
    if (!s || !info || node < 0 || node >= s->count) return INLAY_ERR_ARGUMENT;
    if (!s->finalized && inl_schema_finalize((inlay_schema *)s)) return INLAY_ERR_ARGUMENT;
    const int id = s->preorder[node];
    const schema_node *n = &s->nodes[id];
    memset(info, 0, sizeof *info);
    info->name = n->name;
    info->parent = rank_of(s, n->parent);
    info->first_child = rank_of(s, n->first_child);
    info->next_sibling = rank_of(s, n->next_sibling);
    info->num_children = n->num_children;
    info->is_group = n->is_group;
    info->group = n->annotation == GROUP_LIST ? INLAY_GROUP_LIST
                : n->annotation == GROUP_MAP ? INLAY_GROUP_MAP : INLAY_GROUP_STRUCT;
    info->repetition = n->rep;
    info->column = -1;
    if (!n->is_group) {
        info->type = n->type;
        info->column = column_of(s, id);
        if (info->column >= 0) {
            info->max_def = s->leaves[info->column].max_def;
            info->max_rep = s->leaves[info->column].max_rep;
        }
    }
    return INLAY_OK;
}
