/*
 * source.h — what the text sources (source.c) share with schema inference
 * (infer.c) and the sniffer (sniff.c): which CSV fields are nulls.
 */
#ifndef INLAY_SOURCE_H
#define INLAY_SOURCE_H

#include <stdbool.h>

#include "csv.h"
#include "inlay.h"

/* The CSV null markers of a source's options, copied: the texts for which
 * an unquoted field is null (the default: only the empty field), and
 * whether the marker `""` (two quote characters) makes a quoted empty field
 * null too. */
typedef struct null_set {
    char **text;
    size_t *len;
    size_t count;
    bool quoted_empty;
} null_set;

/* quote is the quote character in use (0: none). 0, INLAY_ERR_ARGUMENT (a
 * NULL marker) or INLAY_ERR_NOMEM; on failure inl_null_set_free still
 * releases what was taken. */
int inl_null_set_init(null_set *ns, const inlay_source_options *o, char quote, const inlay_allocator *a);
void inl_null_set_free(null_set *ns, const inlay_allocator *a);

static inline bool inl_null_set_match(const null_set *ns, const csv_field *f)
{
    if (f->quoted) return f->len == 0 && ns->quoted_empty;
    for (size_t i = 0; i < ns->count; i++)
        if (ns->len[i] == f->len && memcmp(ns->text[i], f->data, f->len) == 0) return true;
    return false;
}

#endif
