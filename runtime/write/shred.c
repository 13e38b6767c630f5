/*
 * shred.c — Arrow-shaped nested arrays to levels and dense values (see
 * shred.h).
 *
 * Each leaf is walked on its own, from the top-level field down the path of
 * schema nodes that leads to it; the arrays on the way are the ones that
 * path selects. The walk of one row is a recursion over that path (its
 * depth is the schema's), fanning out over the entries of each repeated
 * node. Errors stop the whole call: the caller appends nothing.
 */
#include "shred.h"

#include <stdarg.h>
#include <stdio.h>

enum { SHRED_MAX_DEPTH = 64 };

/* One leaf's walk. */
typedef struct walk {
    shred *sh;
    const inlay_schema *s;
    shred_leaf *out;
    int path[SHRED_MAX_DEPTH];   /* node ids, field first, leaf last */
    int child_k[SHRED_MAX_DEPTH];  /* path[d + 1]'s position among path[d]'s children */
    int depth;
    size_t esize;                /* bytes per value */
    uint64_t row;
    const char *leaf_path;
    int leaf_col;
} walk;

void inl_shred_init(shred *sh, const inlay_allocator *a)
{
    memset(sh, 0, sizeof *sh);
    sh->alloc = a;
}

void inl_shred_free(shred *sh)
{
    for (int i = 0; i < sh->cap; i++) {
        inl_buf_free(&sh->leaves[i].def, sh->alloc);
        inl_buf_free(&sh->leaves[i].rep, sh->alloc);
        inl_buf_free(&sh->leaves[i].values, sh->alloc);
    }
    inl_mem_free(sh->alloc, sh->leaves, (size_t)sh->cap * sizeof *sh->leaves);
    sh->leaves = NULL;
    sh->cap = 0;
}

/* "field 'hits.list.element.x' row 3: ..." */
#define wfail(w, status, ...)                                                                   \
    ((w)->sh->err_leaf = (w)->leaf_col, (w)->sh->err_row = (w)->row,                            \
     inl_err_at(&(w)->sh->err, status, "field", (w)->leaf_path, -1, (w)->row + 1, __VA_ARGS__))

static inline bool is_valid(const inlay_array *a, size_t i)
{
    return !a->validity || (a->validity[i >> 3] >> (i & 7) & 1);
}

static int put_levels(walk *w, int16_t def, int16_t rep)
{
    shred_leaf *o = w->out;
    if (inl_buf_reserve(&o->def, w->sh->alloc, 2) || inl_buf_reserve(&o->rep, w->sh->alloc, 2))
        return wfail(w, INLAY_ERR_NOMEM, "out of memory");
    memcpy(o->def.data + o->def.len, &def, 2);
    memcpy(o->rep.data + o->rep.len, &rep, 2);
    o->def.len += 2;
    o->rep.len += 2;
    o->count++;
    return 0;
}

static int put_value(walk *w, const inlay_array *a, size_t i)
{
    shred_leaf *o = w->out;
    if (!a->values) return wfail(w, INLAY_ERR_ARGUMENT, "no values array for a leaf");
    const size_t es = w->esize;
    if (inl_buf_reserve(&o->values, w->sh->alloc, es)) return wfail(w, INLAY_ERR_NOMEM, "out of memory");
    uint8_t *dst = o->values.data + o->values.len;
    const uint8_t *src = (const uint8_t *)a->values + i * es;
    switch (es) {   /* a constant size per case: no call to memcpy per value */
    case 1: *dst = *src; break;
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    default: memcpy(dst, src, sizeof(inlay_bytes)); break;
    }
    o->values.len += es;
    o->nvalues++;
    return 0;
}

/* The child array of a->children for path[d + 1], a field of group path[d]. */
static int child_array(walk *w, const inlay_array *a, int d, const inlay_array **out)
{
    if (!a->children)
        return wfail(w, INLAY_ERR_ARGUMENT, "no child arrays under '%s'", w->s->nodes[w->path[d]].name);
    *out = &a->children[w->child_k[d]];
    return 0;
}

static int walk_node(walk *w, int d, const inlay_array *a, size_t i, int16_t def, int16_t rep, int16_t rl);

/* The entries of repeated node path[d] (a LIST/MAP middle group, or a bare
 * repeated field) held by list array a at index i. */
static int walk_repeated(walk *w, int d, const inlay_array *a, size_t i, int16_t def, int16_t rep, int16_t rl)
{
    const schema_node *n = &w->s->nodes[w->path[d]];
    if (i >= a->length)
        return wfail(w, INLAY_ERR_ARGUMENT, "entry %zu past the %zu entries of the array for '%s'", i, a->length,
                     n->name);
    if (!a->offsets) return wfail(w, INLAY_ERR_ARGUMENT, "no offsets for the repeated '%s'", n->name);
    const int32_t start = a->offsets[i], end = a->offsets[i + 1];
    if (start < 0 || end < start)
        return wfail(w, INLAY_ERR_ARGUMENT, "offsets of '%s' out of order (%d, %d)", n->name, (int)start, (int)end);
    if (start == end) return put_levels(w, def, rep);   /* empty: no entry at this level */
    const int16_t my_rl = (int16_t)(rl + 1);
    const inlay_array *child = NULL;
    int st;
    if (!n->is_group) {   /* a bare repeated primitive: children[0] holds the values */
        if (!a->children) return wfail(w, INLAY_ERR_ARGUMENT, "no values array under '%s'", n->name);
        child = &a->children[0];
    } else if ((st = child_array(w, a, d, &child))) {
        return st;
    }
    if ((size_t)end > child->length)
        return wfail(w, INLAY_ERR_ARGUMENT, "offsets of '%s' go past its child's %zu entries", n->name,
                     child->length);
    for (int32_t j = start; j < end; j++) {
        const int16_t r = j == start ? rep : my_rl;
        if (!n->is_group) {
            INL_FORWARD(put_levels(w, (int16_t)(def + 1), r));
            INL_FORWARD(put_value(w, child, (size_t)j));
        } else if ((st = walk_node(w, d + 1, child, (size_t)j, (int16_t)(def + 1), r, my_rl))) {
            return st;
        }
    }
    return 0;
}

/* Node path[d], entry i of its array a; def and rep are the levels reached
 * so far, rl the repetition level of the innermost repeated node above. */
static int walk_node(walk *w, int d, const inlay_array *a, size_t i, int16_t def, int16_t rep, int16_t rl)
{
    const int id = w->path[d];
    const schema_node *n = &w->s->nodes[id];
    if (n->rep == INLAY_REPEATED) return walk_repeated(w, d, a, i, def, rep, rl);
    if (i >= a->length)
        return wfail(w, INLAY_ERR_ARGUMENT, "entry %zu past the %zu entries of the array for '%s'", i, a->length,
                     n->name);
    if (!is_valid(a, i)) {
        if (n->rep == INLAY_REQUIRED) {
            const schema_node *p = &w->s->nodes[n->parent];
            if (p->rep == INLAY_REPEATED && p->parent >= 0 && w->s->nodes[p->parent].annotation == GROUP_MAP &&
                p->first_child == id)
                return wfail(w, INLAY_ERR_NULL, "a map key is null");
            return wfail(w, INLAY_ERR_NULL, "null in the required '%s'", n->name);
        }
        return put_levels(w, def, rep);
    }
    if (n->rep == INLAY_OPTIONAL) def++;
    if (d == w->depth - 1) {
        int st = put_levels(w, def, rep);
        return st ? st : put_value(w, a, i);
    }
    if (n->annotation == GROUP_LIST || n->annotation == GROUP_MAP)
        return walk_node(w, d + 1, a, i, def, rep, rl);   /* the middle group reads the same array's offsets */
    const inlay_array *child = NULL;
    int st = child_array(w, a, d, &child);
    return st ? st : walk_node(w, d + 1, child, i, def, rep, rl);
}

static int leaf_path(walk *w, int leaf_node, int field)
{
    int tmp[SHRED_MAX_DEPTH], n = 0;
    for (int id = leaf_node;; id = w->s->nodes[id].parent) {
        if (n == SHRED_MAX_DEPTH) return wfail(w, INLAY_ERR_ARGUMENT, "nested deeper than %d", SHRED_MAX_DEPTH);
        tmp[n++] = id;
        if (id == field) break;
    }
    for (int k = 0; k < n; k++) w->path[k] = tmp[n - 1 - k];
    w->depth = n;
    for (int d = 0; d + 1 < n; d++) {
        int k = 0;
        for (int c = w->s->nodes[w->path[d]].first_child; c >= 0 && c != w->path[d + 1]; c = w->s->nodes[c].next_sibling)
            k++;
        w->child_k[d] = k;
    }
    return 0;
}

static bool under(const inlay_schema *s, int node, int field)
{
    for (; node > 0; node = s->nodes[node].parent)
        if (node == field) return true;
    return false;
}

int inl_shred_field(shred *sh, const inlay_schema *s, int field, const inlay_array *a, size_t rows, int *first,
                int *nleaves)
{
    inl_err_clear(&sh->err);
    sh->err_leaf = -1;
    int lo = -1, hi = -1;
    for (int l = 0; l < s->num_leaves; l++)
        if (under(s, s->leaves[l].node, field)) {
            if (lo < 0) lo = l;
            hi = l;
        }
    if (lo < 0) {
        inl_err_set(&sh->err, INLAY_ERR_ARGUMENT, "node %d is not a field with columns", field);
        return INLAY_ERR_ARGUMENT;
    }
    const int n = hi - lo + 1;
    if (n > sh->cap) {
        shred_leaf *p = inl_mem_realloc(sh->alloc, sh->leaves, (size_t)sh->cap * sizeof *p, (size_t)n * sizeof *p);
        if (!p) {
            inl_err_set(&sh->err, INLAY_ERR_NOMEM, "out of memory");
            return INLAY_ERR_NOMEM;
        }
        memset(p + sh->cap, 0, (size_t)(n - sh->cap) * sizeof *p);
        sh->leaves = p;
        sh->cap = n;
    }
    walk w;
    memset(&w, 0, sizeof w);
    w.sh = sh;
    w.s = s;
    for (int k = 0; k < n; k++) {
        const schema_leaf *lf = &s->leaves[lo + k];
        shred_leaf *o = &sh->leaves[k];
        o->def.len = o->rep.len = o->values.len = 0;
        o->count = o->nvalues = 0;
        w.out = o;
        w.leaf_path = lf->path;
        w.leaf_col = lo + k;
        w.esize = inl_type_value_size(&s->nodes[lf->node].type);
        INL_FORWARD(leaf_path(&w, lf->node, field));
        if (rows > a->length) {
            w.row = 0;
            return wfail(&w, INLAY_ERR_ARGUMENT, "%zu rows asked of an array of %zu entries", rows, a->length);
        }
        for (size_t r = 0; r < rows; r++) {
            w.row = r;
            INL_FORWARD(walk_node(&w, 0, a, r, 0, 0, 0));
        }
    }
    *first = lo;
    *nleaves = n;
    return 0;
}

void inl_shred_batches(const shred *sh, const inlay_schema *s, int first, int n, inlay_column_batch *out)
{
    for (int k = 0; k < n; k++) {
        const shred_leaf *l = &sh->leaves[k];
        const schema_leaf *lf = &s->leaves[first + k];
        out[k].column = first + k;
        out[k].values = l->values.data;
        out[k].count = l->count;
        out[k].levels.def = lf->max_def ? (const int16_t *)l->def.data : NULL;
        out[k].levels.rep = lf->max_rep ? (const int16_t *)l->rep.data : NULL;
        out[k].levels.validity = NULL;
    }
}
