/*
 * partition.c — rows to partitions (see partition.h).
 */
#include "partition.h"

#include <string.h>

int inl_hive_kind_of(const inlay_type *t)
{
    switch (t->physical) {
    case INLAY_BOOLEAN: return HIVE_BOOL;
    case INLAY_INT32:
    case INLAY_INT64:
        if (t->logical == INLAY_LOGICAL_DATE) return HIVE_DATE;
        if (t->logical == INLAY_LOGICAL_INT) return t->is_signed ? HIVE_INT : HIVE_UINT;
        if (t->logical == INLAY_LOGICAL_NONE) return HIVE_INT;
        return -1;
    case INLAY_BYTE_ARRAY:
        if (t->logical == INLAY_LOGICAL_DECIMAL) return -1;
        return HIVE_BYTES;
    default: return -1;
    }
}

int inl_partitioner_init(partitioner *p, const inlay_allocator *a, const inlay_schema *s, const int *leaves,
                         int n)
{
    memset(p, 0, sizeof *p);
    p->alloc = *a;
    inl_memo_fixed_init(&p->pairs, &p->alloc, 8);
    inl_memo_bytes_init(&p->tuples, &p->alloc, 0);
    if (n && !(p->cols = inl_mem_alloc(&p->alloc, (size_t)n * sizeof *p->cols))) return -1;
    p->ncols = n;
    for (int k = 0; k < n; k++) {
        partition_column *c = &p->cols[k];
        const schema_node *node = &s->nodes[s->leaves[leaves[k]].node];
        c->leaf = leaves[k];
        c->name = node->name;
        c->kind = (hive_kind)inl_hive_kind_of(&node->type);
        c->physical = node->type.physical;
        inl_memo_fixed_init(&c->fixed, &p->alloc, c->physical == INLAY_INT32 ? 4 : 8);
        inl_memo_bytes_init(&c->bytes, &p->alloc, 0);
    }
    return 0;
}

void inl_partitioner_free(partitioner *p)
{
    for (int k = 0; k < p->ncols; k++) {
        inl_memo_fixed_free(&p->cols[k].fixed);
        inl_memo_bytes_free(&p->cols[k].bytes);
    }
    if (p->cols) inl_mem_free(&p->alloc, p->cols, (size_t)p->ncols * sizeof *p->cols);
    inl_memo_fixed_free(&p->pairs);
    inl_memo_bytes_free(&p->tuples);
    buf *bufs[] = { &p->values, &p->single, &p->ids, &p->dense, &p->keys, &p->tuple_bytes, &p->row_part,
                    &p->counts, &p->touched, &p->starts, &p->order };
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) inl_buf_free(bufs[i], &p->alloc);
}

/* Value ids of one partition column for every row into ids[0..rows). */
static int column_ids(partitioner *p, partition_column *c, const inlay_column_batch *b, size_t rows,
                      uint32_t *ids)
{
    const int16_t *def = b->levels.def;
    const uint8_t *validity = def ? NULL : b->levels.validity;
    const size_t vsize = c->physical == INLAY_BOOLEAN ? sizeof(bool)
                         : c->physical == INLAY_INT32 ? 4
                         : c->physical == INLAY_INT64 ? 8 : sizeof(inlay_bytes);
    /* the present values, dense */
    const void *values = b->values;
    size_t n = rows;
    if (validity) {
        if (inl_buf_sized(&p->dense, &p->alloc, rows * vsize)) return -1;
        uint8_t *d = p->dense.data;
        n = 0;
        for (size_t r = 0; r < rows; r++)
            if (validity[r >> 3] >> (r & 7) & 1) memcpy(d + vsize * n++, (const uint8_t *)b->values + vsize * r, vsize);
        values = d;
    } else if (def) {
        n = 0;
        for (size_t r = 0; r < rows; r++) n += def[r] != 0;
    }
    /* ids of the present values, at the end of ids[] (they are moved down below) */
    uint32_t *got = ids + (rows - n);
    int st = 0;
    switch (c->physical) {
    case INLAY_BOOLEAN: {
        const bool *v = values;
        for (size_t i = 0; i < n; i++) got[i] = (uint32_t)v[i];
        break;
    }
    case INLAY_INT32:
    case INLAY_INT64: st = inl_memo_fixed_insert_many(&c->fixed, values, n, got); break;
    default: st = inl_memo_bytes_insert_many(&c->bytes, values, n, got) ? -1 : 0; break;
    }
    if (st) return -1;
    if (n == rows) {
        for (size_t r = 0; r < rows; r++) ids[r]++;
        return 0;
    }
    /* spread: row r takes the next present id, or 0 for null; got[] lies at or after the rows it fills */
    size_t j = 0;
    for (size_t r = 0; r < rows; r++) {
        const bool present = validity ? (validity[r >> 3] >> (r & 7) & 1) : def[r] != 0;
        ids[r] = present ? got[j++] + 1 : 0;
    }
    return 0;
}

/* A new partition's value ids. */
static int remember(partitioner *p, const uint32_t *ids, size_t stride, size_t row)
{
    if (inl_buf_reserve(&p->values, &p->alloc, (size_t)p->ncols * 4)) return -1;
    uint32_t *v = (uint32_t *)(p->values.data + p->values.len);
    for (int k = 0; k < p->ncols; k++) v[k] = ids[(size_t)k * stride + row];
    p->values.len += (size_t)p->ncols * 4;
    p->count++;
    return 0;
}

static int find_partitions(partitioner *p, const uint32_t *ids, size_t rows, uint32_t *part)
{
    if (p->ncols == 0) {
        if (!p->count && remember(p, ids, rows, 0)) return -1;
        memset(part, 0, rows * sizeof *part);
        return 0;
    }
    if (p->ncols == 1) {
        for (size_t r = 0; r < rows; r++) {
            const uint32_t id = ids[r];
            if ((size_t)id * 4 + 4 > p->single.len) {
                const size_t want = ((size_t)id + 1) * 4, old = p->single.len;
                if (inl_buf_reserve(&p->single, &p->alloc, want - old)) return -1;
                memset(p->single.data + old, 0, want - old);
                p->single.len = want;
            }
            uint32_t *slot = (uint32_t *)p->single.data + id;
            if (!*slot) {
                if (remember(p, ids, rows, r)) return -1;
                *slot = (uint32_t)p->count;
            }
            part[r] = *slot - 1;
        }
        return 0;
    }
    if (p->ncols == 2) {
        if (inl_buf_sized(&p->keys, &p->alloc, rows * 8)) return -1;
        uint64_t *key = (uint64_t *)p->keys.data;
        for (size_t r = 0; r < rows; r++) key[r] = (uint64_t)ids[r] << 32 | ids[rows + r];
        if (inl_memo_fixed_insert_many(&p->pairs, key, rows, part)) return -1;
    } else {
        const size_t width = (size_t)p->ncols * 4;
        if (inl_buf_sized(&p->tuple_bytes, &p->alloc, rows * width) || inl_buf_sized(&p->keys, &p->alloc, rows * sizeof(inlay_bytes)))
            return -1;
        uint8_t *t = p->tuple_bytes.data;
        inlay_bytes *view = (inlay_bytes *)p->keys.data;
        for (size_t r = 0; r < rows; r++) {
            for (int k = 0; k < p->ncols; k++) memcpy(t + r * width + (size_t)k * 4, &ids[(size_t)k * rows + r], 4);
            view[r] = (inlay_bytes){ t + r * width, width };
        }
        if (inl_memo_bytes_insert_many(&p->tuples, view, rows, part)) return -1;
    }
    /* partitions new in this batch appear in row order with the next indices */
    for (size_t r = 0; r < rows; r++)
        if (part[r] == p->count && remember(p, ids, rows, r)) return -1;
    return 0;
}

int inl_partition_batch(partitioner *p, const inlay_column_batch *const *by, size_t rows, size_t *ntouched)
{
    *ntouched = 0;
    if (inl_buf_sized(&p->ids, &p->alloc, ((size_t)p->ncols + (p->ncols == 0)) * rows * 4) ||
        inl_buf_sized(&p->row_part, &p->alloc, rows * 4) || inl_buf_sized(&p->order, &p->alloc, rows * 4))
        return -1;
    uint32_t *ids = (uint32_t *)p->ids.data;
    for (int k = 0; k < p->ncols; k++)
        if (column_ids(p, &p->cols[k], by[k], rows, ids + (size_t)k * rows)) return -1;
    uint32_t *part = (uint32_t *)p->row_part.data;
    if (find_partitions(p, ids, rows, part)) return -1;
    /* counts is all zero between batches; only the touched entries are set and reset */
    if (p->counts.len < p->count * 4) {
        const size_t old = p->counts.len;
        if (inl_buf_reserve(&p->counts, &p->alloc, p->count * 4 - old)) return -1;
        memset(p->counts.data + old, 0, p->count * 4 - old);
        p->counts.len = p->count * 4;
    }
    uint32_t *count = (uint32_t *)p->counts.data;
    p->touched.len = 0;
    for (size_t r = 0; r < rows; r++) {
        if (count[part[r]]++ == 0) {
            if (inl_buf_append(&p->touched, &p->alloc, &part[r], 4)) {
                for (size_t x = 0; x <= r; x++) count[part[x]] = 0;
                return -1;
            }
        }
    }
    const size_t n = p->touched.len / 4;
    const uint32_t *touched = (const uint32_t *)p->touched.data;
    if (inl_buf_sized(&p->starts, &p->alloc, (n + 1) * sizeof(size_t))) {
        for (size_t t = 0; t < n; t++) count[touched[t]] = 0;
        return -1;
    }
    size_t *start = (size_t *)p->starts.data;
    size_t at = 0;
    for (size_t t = 0; t < n; t++) {
        start[t] = at;
        at += count[touched[t]];
        count[touched[t]] = (uint32_t)start[t];   /* now the next free slot */
    }
    start[n] = at;
    uint32_t *order = (uint32_t *)p->order.data;
    for (size_t r = 0; r < rows; r++) order[count[part[r]]++] = (uint32_t)r;
    for (size_t t = 0; t < n; t++) count[touched[t]] = 0;
    *ntouched = n;
    return 0;
}

void inl_partition_value(const partitioner *p, size_t part, int k, hive_value *v)
{
    const uint32_t id = ((const uint32_t *)p->values.data)[part * (size_t)p->ncols + (size_t)k];
    const partition_column *c = &p->cols[k];
    memset(v, 0, sizeof *v);
    if (!id) {
        v->is_null = true;
        return;
    }
    switch (c->physical) {
    case INLAY_BOOLEAN: v->i = id - 1; break;
    case INLAY_INT32: {
        int32_t x;
        memcpy(&x, c->fixed.values.data + (size_t)(id - 1) * 4, 4);
        v->i = c->kind == HIVE_UINT ? (int64_t)(uint32_t)x : x;
        break;
    }
    case INLAY_INT64: memcpy(&v->i, c->fixed.values.data + (size_t)(id - 1) * 8, 8); break;
    default: v->data = inl_memo_bytes_value(&c->bytes, id - 1, &v->len); break;
    }
}
