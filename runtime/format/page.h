/*
 * page.h — one Parquet page: the thrift PageHeader followed by the
 * (compressed) body, appended to a column chunk's buffer.
 *
 * The body is given in up to four parts (repetition levels, definition
 * levels, values...). In a v1 data page or a dictionary page they are
 * gathered and compressed as one block; in a v2 data page the first
 * `nprefix` parts (the levels) stay uncompressed and only the values are
 * compressed — or stored raw, flagged is_compressed = false, when
 * compression does not make them smaller by at least the fraction
 * min_gain (0: any gain at all).
 *
 * A data page header may carry the page's statistics; any page may carry a
 * CRC32 (zlib's polynomial) of the bytes stored after its header.
 */
#ifndef INLAY_PAGE_H
#define INLAY_PAGE_H

#include "alloc.h"
#include "compress.h"

enum { PAGE_DATA = 0, PAGE_DICTIONARY = 2, PAGE_DATA_V2 = 3 };
enum { ENC_PLAIN = 0, ENC_PLAIN_DICTIONARY = 2, ENC_RLE = 3, ENC_BIT_PACKED = 4,
       ENC_DELTA_BINARY_PACKED = 5, ENC_DELTA_LENGTH_BYTE_ARRAY = 6, ENC_DELTA_BYTE_ARRAY = 7,
       ENC_RLE_DICTIONARY = 8, ENC_BYTE_STREAM_SPLIT = 9, ENC_COUNT = 10 };

typedef struct page_scratch {
    buf raw;      /* the gathered uncompressed body */
    buf packed;   /* the compressed body, when it cannot go straight into the output */
    buf head;     /* a trial page header, for the room to leave in front of the body */
} page_scratch;

/* Statistics as a page header or a chunk's metadata carries them: bounds
 * as PLAIN bytes (min and max stay valid while the caller's buffers do). */
typedef struct stats_wire {
    int64_t null_count;
    bool has_bounds;
    const uint8_t *min, *max;
    size_t min_len, max_len;
    bool min_exact, max_exact;
} stats_wire;

typedef struct tc tc;
/* A Statistics struct as field `id` of the open struct. */
void inl_put_statistics(tc *t, int16_t id, const stats_wire *s);

typedef struct page_desc {
    int type;                 /* PAGE_DATA, PAGE_DATA_V2 or PAGE_DICTIONARY */
    int32_t num_values;       /* level entries (data) or dictionary entries */
    int encoding;             /* of the values */
    const void *parts[4];
    size_t lens[4];
    int nparts;
    /* v2 only */
    int nprefix;              /* leading parts stored uncompressed (levels) */
    int32_t num_nulls, num_rows;
    int32_t rep_bytes, def_bytes;
    /* data pages */
    const stats_wire *stats;  /* NULL: none in the header */
    bool checksum;            /* a CRC32 of the stored bytes after the header */
} page_desc;

/* Append the page to out. *raw_size and *stored_size get the page's total
 * size (header included) uncompressed and as stored. Returns 0,
 * INLAY_ERR_NOMEM, INLAY_ERR_COMPRESS, or INLAY_ERR_VALUE for a page past
 * INT32_MAX bytes (sizes are i32 in the header); out is unchanged on
 * failure. */
int inl_page_write(buf *out, const inlay_allocator *a, compressor *c, page_scratch *scratch,
               const page_desc *d, double min_gain, size_t *raw_size, size_t *stored_size);

void inl_page_scratch_free(page_scratch *s, const inlay_allocator *a);

#endif
