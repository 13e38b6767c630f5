/*
 * page.c — page header and body (see page.h).
 */
#include "page.h"

#include <zlib.h>

#include "thrift.h"

void inl_put_statistics(tc *t, int16_t id, const stats_wire *s)
{
    inl_tc_field_struct(t, id);
    inl_tc_field_i64(t, 3, s->null_count);
    if (s->has_bounds) {
        inl_tc_field_binary(t, 5, s->max, s->max_len);
        inl_tc_field_binary(t, 6, s->min, s->min_len);
        inl_tc_field_bool(t, 7, s->max_exact);
        inl_tc_field_bool(t, 8, s->min_exact);
    }
    inl_tc_struct_end(t);
}

static int put_header(buf *out, const inlay_allocator *a, const page_desc *d,
                      size_t raw_len, size_t stored_len, bool compressed, bool has_crc, uint32_t crc)
{
    tc t;
    inl_tc_init(&t, out, a);
    inl_tc_field_i32(&t, 1, d->type);
    inl_tc_field_i32(&t, 2, (int32_t)raw_len);
    inl_tc_field_i32(&t, 3, (int32_t)stored_len);
    if (has_crc) inl_tc_field_i32(&t, 4, (int32_t)crc);
    if (d->type == PAGE_DICTIONARY) {
        inl_tc_field_struct(&t, 7);
        inl_tc_field_i32(&t, 1, d->num_values);
        inl_tc_field_i32(&t, 2, d->encoding);
        inl_tc_struct_end(&t);
    } else if (d->type == PAGE_DATA_V2) {
        inl_tc_field_struct(&t, 8);
        inl_tc_field_i32(&t, 1, d->num_values);
        inl_tc_field_i32(&t, 2, d->num_nulls);
        inl_tc_field_i32(&t, 3, d->num_rows);
        inl_tc_field_i32(&t, 4, d->encoding);
        inl_tc_field_i32(&t, 5, d->def_bytes);
        inl_tc_field_i32(&t, 6, d->rep_bytes);
        inl_tc_field_bool(&t, 7, compressed);
        if (d->stats) inl_put_statistics(&t, 8, d->stats);
        inl_tc_struct_end(&t);
    } else {
        inl_tc_field_struct(&t, 5);
        inl_tc_field_i32(&t, 1, d->num_values);
        inl_tc_field_i32(&t, 2, d->encoding);
        inl_tc_field_i32(&t, 3, ENC_RLE);
        inl_tc_field_i32(&t, 4, ENC_RLE);
        if (d->stats) inl_put_statistics(&t, 5, d->stats);
        inl_tc_struct_end(&t);
    }
    inl_tc_struct_end(&t);
    return t.err ? INLAY_ERR_NOMEM : 0;
}

/* CRC-32 of the stored bytes after the header: the parts before `from`,
 * then the body (the compressed one, or the parts from `from` on). */
static uint32_t page_crc(const page_desc *d, int from, const void *packed, size_t packed_len)
{
    uLong sum = crc32(0L, Z_NULL, 0);
    for (int i = 0; i < (packed ? from : d->nparts); i++)
        if (d->lens[i]) sum = crc32_z(sum, d->parts[i], d->lens[i]);   /* a NULL buffer would restart it */
    if (packed && packed_len) sum = crc32_z(sum, packed, packed_len);
    return (uint32_t)sum;
}

int inl_page_write(buf *out, const inlay_allocator *a, compressor *c, page_scratch *scratch,
               const page_desc *d, double min_gain, size_t *raw_size, size_t *stored_size)
{
    const int first = d->type == PAGE_DATA_V2 ? d->nprefix : 0;
    size_t prefix_len = 0, body_len = 0;
    for (int i = 0; i < d->nparts; i++) {
        if (i < first) prefix_len += d->lens[i];
        else body_len += d->lens[i];
    }
    if (prefix_len + body_len > INT32_MAX) return INLAY_ERR_VALUE;
    const size_t start = out->len;

    if (c->codec != INLAY_UNCOMPRESSED) {
        const void *body = d->parts[first];
        if (d->nparts - first != 1) {
            scratch->raw.len = 0;
            for (int i = first; i < d->nparts; i++)
                if (inl_buf_append(&scratch->raw, a, d->parts[i], d->lens[i])) goto nomem;
            body = scratch->raw.data;
        }
        /* The codec writes straight into out, after room for the header
         * and the levels, when out has that room already (a chunk's buffer
         * reused for the next row group mostly has): the header's length
         * depends on the compressed size and the CRC (varints), so the room
         * is that of the longest ones, and the bytes move up in the rare
         * case the header came out shorter. Otherwise it goes through
         * scratch, so that out grows only by what the page takes. */
        const size_t bound = inl_compress_bound(c, body_len);
        /* a page near 2 GiB may have a bound past INT32_MAX: the longest size is INT32_MAX's */
        const size_t longest = prefix_len + bound < INT32_MAX ? prefix_len + bound : INT32_MAX;
        scratch->head.len = 0;
        if (put_header(&scratch->head, a, d, prefix_len + body_len, longest, true, d->checksum,
                       0x80000000u))
            goto nomem;
        const size_t room = scratch->head.len;
        const bool in_place = out->cap - start >= room + prefix_len + bound;
        uint8_t *packed;
        if (in_place) {
            /* the codec writes fresh pages of a new chunk buffer: mapped in one call (see alloc.h) */
            inl_buf_ready(out, start + room + prefix_len + bound);
            packed = out->data + start + room + prefix_len;
        } else {
            scratch->packed.len = 0;
            if (inl_buf_reserve(&scratch->packed, a, bound)) goto nomem;
            packed = scratch->packed.data;
        }
        int status;
        const size_t n = inl_compress_run(c, packed, bound, body, body_len, &status);
        if (n == SIZE_MAX) return status;
        if (d->type != PAGE_DATA_V2 || (n < body_len && (double)n <= (double)body_len * (1.0 - min_gain))) {
            const uint32_t crc = d->checksum ? page_crc(d, first, packed, n) : 0;
            /* in place: the header fits in the room, so out does not move */
            if (put_header(out, a, d, prefix_len + body_len, prefix_len + n, true, d->checksum, crc)) goto nomem;
            const size_t header = out->len - start;
            if (in_place) {
                if (header < room) memmove(out->data + start + header + prefix_len, packed, n);
                for (int i = 0; i < first; i++) {
                    if (d->lens[i]) memcpy(out->data + out->len, d->parts[i], d->lens[i]);
                    out->len += d->lens[i];
                }
                out->len += n;
            } else {
                for (int i = 0; i < first; i++)
                    if (inl_buf_append(out, a, d->parts[i], d->lens[i])) goto nomem;
                if (inl_buf_append(out, a, packed, n)) goto nomem;
            }
            *raw_size = header + prefix_len + body_len;
            *stored_size = header + prefix_len + n;
            return 0;
        }
        out->len = start;   /* v2, and the codec does not pay: stored as it is */
    }

    const uint32_t crc = d->checksum ? page_crc(d, first, NULL, 0) : 0;
    if (put_header(out, a, d, prefix_len + body_len, prefix_len + body_len, false, d->checksum, crc)) goto nomem;
    const size_t header = out->len - start;
    for (int i = 0; i < d->nparts; i++)
        if (inl_buf_append(out, a, d->parts[i], d->lens[i])) goto nomem;
    *raw_size = header + prefix_len + body_len;
    *stored_size = header + prefix_len + body_len;
    return 0;
nomem:
    out->len = start;
    return INLAY_ERR_NOMEM;
}

void inl_page_scratch_free(page_scratch *s, const inlay_allocator *a)
{
    inl_buf_free(&s->raw, a);
    inl_buf_free(&s->packed, a);
    inl_buf_free(&s->head, a);
}
