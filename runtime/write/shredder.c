/*
 * shredder.c — inlay_shredder_* (inlay.h): shred.c's record shredding for a
 * host that appends level batches itself. A dataset takes nested fields
 * only as level batches (it routes whole rows, all fields in one call), so
 * a host holding nested values in Arrow's layout shreds them here and
 * appends the batches beside its flat ones.
 *
 * One shred state per top-level field, made the first time the field is
 * shredded, so that the batches of every field of one append stay valid
 * together; each is reused by the field's next call.
 */
#include "shred.h"

struct inlay_shredder {
    inlay_allocator alloc;
    inlay_schema *schema;   /* a finalized copy */
    int nfields;
    int *nodes;             /* per top-level field: its schema node */
    int *leaves;            /* per top-level field: its leaf columns */
    shred *fields;          /* per top-level field; alloc NULL until first used */
    bool ready;             /* made whole by inlay_shredder_create */
    inl_err err;
};

int inlay_shredder_create(inlay_shredder **out, const inlay_schema *schema, const inlay_allocator *alloc)
{
    if (!out) return INLAY_ERR_ARGUMENT;
    *out = NULL;
    if (!schema) return INLAY_ERR_ARGUMENT;
    const inlay_allocator a = inl_mem_or_default(alloc);
    inlay_shredder *sh = inl_mem_alloc(&a, sizeof *sh);
    if (!sh) return INLAY_ERR_NOMEM;
    memset(sh, 0, sizeof *sh);
    sh->alloc = a;
    *out = sh;
    if (!(sh->schema = inl_schema_clone(schema, &sh->alloc)))
        return inl_err_set(&sh->err, INLAY_ERR_NOMEM, "out of memory");
    int st = inl_schema_finalize(sh->schema);
    if (st) return inl_err_set(&sh->err, st, "%s", sh->schema->err.msg);
    for (int node = sh->schema->nodes[0].first_child; node >= 0; node = sh->schema->nodes[node].next_sibling)
        sh->nfields++;
    if (sh->nfields) {
        const size_t n = (size_t)sh->nfields;
        sh->nodes = inl_mem_alloc(&sh->alloc, n * sizeof *sh->nodes);
        sh->leaves = inl_mem_alloc(&sh->alloc, n * sizeof *sh->leaves);
        sh->fields = inl_mem_alloc(&sh->alloc, n * sizeof *sh->fields);
        if (sh->fields) memset(sh->fields, 0, n * sizeof *sh->fields);   /* free looks at each */
        if (!sh->nodes || !sh->leaves || !sh->fields) return inl_err_set(&sh->err, INLAY_ERR_NOMEM, "out of memory");
        int k = 0;
        for (int node = sh->schema->nodes[0].first_child; node >= 0; node = sh->schema->nodes[node].next_sibling) {
            sh->leaves[k] = 0;
            sh->nodes[k++] = node;
        }
        for (int l = 0; l < sh->schema->num_leaves; l++) {   /* each leaf to its top-level field */
            int node = sh->schema->leaves[l].node;
            while (sh->schema->nodes[node].parent != 0) node = sh->schema->nodes[node].parent;
            for (k = 0; sh->nodes[k] != node; k++) {}
            sh->leaves[k]++;
        }
    }
    sh->ready = true;
    return INLAY_OK;
}

int inlay_shredder_shred(inlay_shredder *sh, int field, const inlay_array *a, size_t rows, inlay_column_batch *out,
                         int cap, int *n)
{
    if (n) *n = 0;
    if (!sh || !a || !out || !n) return INLAY_ERR_ARGUMENT;
    if (!sh->ready) return INLAY_ERR_STATE;   /* create failed: its message stays */
    if (field < 0 || field >= sh->nfields)
        return inl_err_set(&sh->err, INLAY_ERR_COLUMN, "field %d does not exist (the schema has %d)", field,
                           sh->nfields);
    if (sh->leaves[field] > cap)   /* before the field's batches are touched */
        return inl_err_set(&sh->err, INLAY_ERR_ARGUMENT, "field '%s' has %d leaf columns, room for %d",
                           sh->schema->nodes[sh->nodes[field]].name, sh->leaves[field], cap);
    shred *s = &sh->fields[field];
    if (!s->alloc) inl_shred_init(s, &sh->alloc);
    int first, count;
    int st = inl_shred_field(s, sh->schema, sh->nodes[field], a, rows, &first, &count);
    if (st) return inl_err_set(&sh->err, st, "%s", s->err.msg);
    inl_shred_batches(s, sh->schema, first, count, out);
    *n = count;
    return INLAY_OK;
}

const char *inlay_shredder_errmsg(const inlay_shredder *sh)
{
    return !sh ? "no shredder" : sh->err.status ? sh->err.msg : "";
}

void inlay_shredder_free(inlay_shredder *sh)
{
    if (!sh) return;
    const inlay_allocator a = sh->alloc;
    if (sh->fields)
        for (int i = 0; i < sh->nfields; i++)
            if (sh->fields[i].alloc) inl_shred_free(&sh->fields[i]);
    if (sh->fields) inl_mem_free(&a, sh->fields, (size_t)sh->nfields * sizeof *sh->fields);
    if (sh->nodes) inl_mem_free(&a, sh->nodes, (size_t)sh->nfields * sizeof *sh->nodes);
    if (sh->leaves) inl_mem_free(&a, sh->leaves, (size_t)sh->nfields * sizeof *sh->leaves);
    if (sh->schema) inlay_schema_free(sh->schema);
    inl_mem_free(&a, sh, sizeof *sh);
}
