/*
 * assemble.c — levels to Arrow-shaped arrays (see assemble.h).
 */
#include "assemble.h"

static int leaf_of(const inlay_schema *s, int node)
{
    while (s->nodes[node].is_group) {
        node = s->nodes[node].first_child;
        if (node < 0) return -1;
    }
    for (int i = 0; i < s->num_leaves; i++)
        if (s->leaves[i].node == node) return i;
    return -1;
}

static int build(asm_node *n, const inlay_schema *s, int node, int16_t d_above, int16_t r, int16_t def_parent,
                 const inlay_allocator *a);

/* nkids is set as soon as kids exists, so that a failure half way frees
 * both blocks with the sizes they were taken with. */
static int alloc_kids(asm_node *n, int count, const inlay_allocator *a)
{
    n->kids = inl_mem_alloc(a, (size_t)count * sizeof *n->kids);
    if (!n->kids) return INLAY_ERR_NOMEM;
    memset(n->kids, 0, (size_t)count * sizeof *n->kids);
    n->nkids = count;
    n->kid_arrs = inl_mem_alloc(a, (size_t)count * sizeof *n->kid_arrs);
    return n->kid_arrs ? INLAY_OK : INLAY_ERR_NOMEM;
}

static int build_kids(asm_node *n, const inlay_schema *s, int group, int16_t d_above, int16_t r, int16_t def_parent,
                      const inlay_allocator *a)
{
    int count = s->nodes[group].num_children;
    if (count <= 0) return INLAY_ERR_SCHEMA;
    INL_FORWARD(alloc_kids(n, count, a));
    int i = 0;
    for (int k = s->nodes[group].first_child; k >= 0 && i < count; k = s->nodes[k].next_sibling, i++)
        INL_FORWARD(build(&n->kids[i], s, k, d_above, r, def_parent, a));
    return i == count ? INLAY_OK : INLAY_ERR_SCHEMA;
}

static int build(asm_node *n, const inlay_schema *s, int node, int16_t d_above, int16_t r, int16_t def_parent,
                 const inlay_allocator *a)
{
    const schema_node *sn = &s->nodes[node];
    memset(n, 0, sizeof *n);
    n->leaf = leaf_of(s, node);
    if (n->leaf < 0) return INLAY_ERR_SCHEMA;
    n->path = s->leaves[n->leaf].path;
    n->d_above = d_above;
    n->r = r;
    n->def_self = (int16_t)(def_parent + (sn->rep != INLAY_REQUIRED));
    n->optional = sn->rep == INLAY_OPTIONAL;
    if (!sn->is_group) {
        if (sn->rep != INLAY_REPEATED) {
            n->kind = ASM_PRIMITIVE;
            return INLAY_OK;
        }
        /* a bare repeated primitive: a list whose values are its one child */
        n->kind = ASM_LIST;
        n->def_elem = n->def_self;
        INL_FORWARD(alloc_kids(n, 1, a));
        asm_node *v = &n->kids[0];
        v->kind = ASM_PRIMITIVE;
        v->leaf = n->leaf;
        v->path = n->path;
        v->d_above = n->def_self;
        v->r = (int16_t)(r + 1);
        v->def_self = n->def_self;
        return INLAY_OK;
    }
    if (sn->annotation == GROUP_LIST || sn->annotation == GROUP_MAP) {
        int middle = sn->first_child;
        if (middle < 0 || sn->num_children != 1 || !s->nodes[middle].is_group || s->nodes[middle].rep != INLAY_REPEATED)
            return INLAY_ERR_SCHEMA;
        n->kind = ASM_LIST;
        n->def_elem = (int16_t)(n->def_self + 1);
        return build_kids(n, s, middle, n->def_elem, (int16_t)(r + 1), n->def_elem, a);
    }
    if (sn->rep == INLAY_REPEATED) {
        n->kind = ASM_LIST;
        n->def_elem = n->def_self;
        return build_kids(n, s, node, n->def_self, (int16_t)(r + 1), n->def_self, a);
    }
    n->kind = ASM_STRUCT;
    return build_kids(n, s, node, d_above, r, n->def_self, a);
}

int inl_asm_build(asm_node *n, const inlay_schema *s, int node, const inlay_allocator *a)
{
    int rc = build(n, s, node, 0, 0, 0, a);
    if (!rc) n->flat = n->kind == ASM_PRIMITIVE;
    return rc;
}

void inl_asm_free(asm_node *n, const inlay_allocator *a)
{
    for (int i = 0; i < n->nkids; i++) inl_asm_free(&n->kids[i], a);
    if (n->kids) inl_mem_free(a, n->kids, (size_t)n->nkids * sizeof *n->kids);
    if (n->kid_arrs) inl_mem_free(a, n->kid_arrs, (size_t)n->nkids * sizeof *n->kid_arrs);
    inl_buf_free(&n->validity, a);
    inl_buf_free(&n->offsets, a);
    inl_buf_free(&n->values, a);
    memset(n, 0, sizeof *n);
}

static int nomem(inl_err *err, const char *path)
{
    return inl_err_set(err, INLAY_ERR_NOMEM, "out of memory assembling '%s'", path);
}

static uint8_t *bits_for(buf *b, const inlay_allocator *a, size_t n)
{
    size_t bytes = (n + 7) / 8 + 1;
    b->len = 0;
    if (inl_buf_reserve(b, a, bytes)) return NULL;
    memset(b->data, 0, bytes);
    return b->data;
}

/* A top-level primitive: its slots are its entries. Optional values are
 * spread from dense to one slot per entry in place, from the back. */
static int fill_flat(asm_node *n, chunk_reader *c, const inlay_allocator *a, inl_err *err)
{
    size_t entries = c->out_entries, w = c->slot;
    n->arr.length = entries;
    n->arr.validity = NULL;
    if (c->max_def == 0) {
        n->arr.values = c->out_vals.data;
        return INLAY_OK;
    }
    if (inl_buf_reserve(&c->out_vals, a, entries * w - c->out_vals.len + 1)) return nomem(err, n->path);
    uint8_t *bits = bits_for(&n->validity, a, entries);
    if (!bits) return nomem(err, n->path);
    const int16_t *def = (const int16_t *)c->out_def.data;
    const int16_t max = c->max_def;
    for (size_t i = 0; i < entries; i++) bits[i >> 3] |= (uint8_t)((def[i] == max) << (i & 7));
    uint8_t *v = c->out_vals.data;
    if (c->out_values != entries) {
        size_t vi = c->out_values;
        for (size_t i = entries; i-- > 0;) {
            if (def[i] == max) {
                vi--;
                if (vi != i) memcpy(v + i * w, v + vi * w, w);
            } else {
                memset(v + i * w, 0, w);
            }
        }
    }
    n->arr.values = v;
    n->arr.validity = bits;
    return INLAY_OK;
}

static int fill(asm_node *n, chunk_reader *cols, size_t expected, const inlay_allocator *a, inl_err *err)
{
    chunk_reader *c = &cols[n->leaf];
    if (n->flat) return fill_flat(n, c, a, err);
    const size_t entries = c->out_entries, w = c->slot;
    const int16_t *def = c->max_def ? (const int16_t *)c->out_def.data : NULL;
    const int16_t *rep = c->max_rep ? (const int16_t *)c->out_rep.data : NULL;
    const int16_t d_above = n->d_above, r = n->r, def_self = n->def_self, max = c->max_def;
    const bool list = n->kind == ASM_LIST, prim = n->kind == ASM_PRIMITIVE;

    uint8_t *bits = n->optional ? bits_for(&n->validity, a, expected) : NULL;
    if (n->optional && !bits) return nomem(err, n->path);
    int32_t *offs = NULL;
    if (list) {
        n->offsets.len = 0;
        if (inl_buf_reserve(&n->offsets, a, (expected + 1) * sizeof(int32_t))) return nomem(err, n->path);
        offs = (int32_t *)n->offsets.data;
    }
    uint8_t *vals = NULL;
    if (prim) {
        n->values.len = 0;
        if (inl_buf_reserve(&n->values, a, expected * w + 1)) return nomem(err, n->path);
        vals = n->values.data;
    }
    const uint8_t *dense = c->out_vals.data;
    size_t slots = 0, elems = 0, vi = 0;
    for (size_t e = 0; e < entries; e++) {
        const int16_t d = def ? def[e] : 0, rl = rep ? rep[e] : 0;
        if (d >= d_above && rl <= r) {
            if (slots == expected) goto disagree;
            if (bits && d >= def_self) bits[slots >> 3] |= (uint8_t)(1u << (slots & 7));
            if (list) offs[slots] = (int32_t)elems;
            if (prim) {
                if (d == max) {
                    if (vi >= c->out_values) goto disagree;
                    memcpy(vals + slots * w, dense + vi++ * w, w);
                } else {
                    memset(vals + slots * w, 0, w);
                }
            }
            slots++;
        }
        if (list && d >= n->def_elem && rl <= r + 1) {
            if (elems == INT32_MAX) return inl_err_set(err, INLAY_ERR_FORMAT, "'%s': more than 2^31 list entries in one batch", n->path);
            if (slots == 0) goto disagree;
            elems++;
        }
    }
    if (slots != expected) goto disagree;
    if (list) offs[slots] = (int32_t)elems;
    n->arr.length = slots;
    n->arr.validity = bits;
    n->arr.offsets = offs;
    n->arr.values = vals;
    n->arr.children = n->nkids ? n->kid_arrs : NULL;
    size_t kid_expected = list ? elems : slots;
    for (int i = 0; i < n->nkids; i++) {
        INL_FORWARD(fill(&n->kids[i], cols, kid_expected, a, err));
        n->kid_arrs[i] = n->kids[i].arr;
    }
    return INLAY_OK;
disagree:
    return inl_err_set(err, INLAY_ERR_FORMAT,
                       "column '%s': its levels do not agree with the other columns of its field (%zu slots where %zu were expected)",
                       n->path, slots, expected);
}

int inl_asm_fill(asm_node *n, chunk_reader *cols, size_t rows, const inlay_allocator *a, inl_err *err)
{
    return fill(n, cols, rows, a, err);
}
