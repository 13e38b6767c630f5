/*
 * page.h — one Parquet page: the thrift PageHeader followed by the
 * (compressed) body, appended to a column chunk's buffer.
 *
 * The body is given in up to four parts (repetition levels, definition
 * levels, values...) which are gathered into scratch memory, compressed as
 * one block, and written after a header that records both sizes.
 */
#ifndef INLAY_PAGE_H
#define INLAY_PAGE_H

#include "alloc.h"
#include "compress.h"

enum { PAGE_DATA = 0, PAGE_DICTIONARY = 2, PAGE_DATA_V2 = 3 };
enum { ENC_PLAIN = 0, ENC_PLAIN_DICTIONARY = 2, ENC_RLE = 3, ENC_BIT_PACKED = 4,
       ENC_RLE_DICTIONARY = 8 };

typedef struct page_scratch {
    buf raw;      /* the gathered uncompressed body */
    buf packed;   /* the compressed body */
} page_scratch;

typedef struct page_desc {
    int type;                 /* PAGE_DATA or PAGE_DICTIONARY */
    int32_t num_values;       /* level entries (data) or dictionary entries */
    int encoding;             /* of the values */
    const void *parts[4];
    size_t lens[4];
    int nparts;
} page_desc;

/* Append the page to out. *raw_size and *stored_size get the page's total
 * size (header included) uncompressed and as stored. Returns 0,
 * INLAY_ERR_NOMEM or INLAY_ERR_COMPRESS. */
int page_write(buf *out, const inlay_allocator *a, compressor *c, page_scratch *scratch,
               const page_desc *d, size_t *raw_size, size_t *stored_size);

void page_scratch_free(page_scratch *s, const inlay_allocator *a);

#endif
