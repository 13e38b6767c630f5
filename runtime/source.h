/*
 * source.h — what the text sources (source.c) share with schema inference
 * (infer.c): the input format a path's extension implies.
 */
#ifndef INLAY_SOURCE_H
#define INLAY_SOURCE_H

#include <stdbool.h>

#include "inlay.h"

/* CSV or NDJSON by extension, after a .gz/.zst/.zstd suffix, ignoring
 * case; *tsv is set for .tsv and .tab (tab-delimited CSV). */
inlay_source_format source_format_of(const char *path, bool *tsv);

#endif
