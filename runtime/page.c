/*
 * page.c — page header and body (see page.h).
 */
#include "page.h"

#include "thrift.h"

static int put_header(buf *out, const inlay_allocator *a, const page_desc *d,
                      size_t raw_len, size_t stored_len)
{
    tc t;
    tc_init(&t, out, a);
    tc_field_i32(&t, 1, d->type);
    tc_field_i32(&t, 2, (int32_t)raw_len);
    tc_field_i32(&t, 3, (int32_t)stored_len);
    if (d->type == PAGE_DICTIONARY) {
        tc_field_struct(&t, 7);
        tc_field_i32(&t, 1, d->num_values);
        tc_field_i32(&t, 2, d->encoding);
        tc_struct_end(&t);
    } else {
        tc_field_struct(&t, 5);
        tc_field_i32(&t, 1, d->num_values);
        tc_field_i32(&t, 2, d->encoding);
        tc_field_i32(&t, 3, ENC_RLE);
        tc_field_i32(&t, 4, ENC_RLE);
        tc_struct_end(&t);
    }
    tc_struct_end(&t);
    return t.err ? INLAY_ERR_NOMEM : 0;
}

int page_write(buf *out, const inlay_allocator *a, compressor *c, page_scratch *scratch,
               const page_desc *d, size_t *raw_size, size_t *stored_size)
{
    size_t raw_len = 0;
    for (int i = 0; i < d->nparts; i++) raw_len += d->lens[i];
    if (raw_len > INT32_MAX) return INLAY_ERR_VALUE;
    size_t start = out->len;

    if (c->codec == INLAY_UNCOMPRESSED) {
        if (put_header(out, a, d, raw_len, raw_len)) goto nomem;
        size_t header = out->len - start;
        for (int i = 0; i < d->nparts; i++)
            if (buf_append(out, a, d->parts[i], d->lens[i])) goto nomem;
        *raw_size = *stored_size = header + raw_len;
        return 0;
    }

    const void *body = d->parts[0];
    if (d->nparts != 1) {
        scratch->raw.len = 0;
        for (int i = 0; i < d->nparts; i++)
            if (buf_append(&scratch->raw, a, d->parts[i], d->lens[i])) goto nomem;
        body = scratch->raw.data;
    }
    size_t bound = compress_bound(c, raw_len);
    scratch->packed.len = 0;
    if (buf_reserve(&scratch->packed, a, bound)) goto nomem;
    int status;
    size_t stored = compress_run(c, scratch->packed.data, bound, body, raw_len, &status);
    if (stored == SIZE_MAX) return status;
    if (put_header(out, a, d, raw_len, stored)) goto nomem;
    size_t header = out->len - start;
    if (buf_append(out, a, scratch->packed.data, stored)) goto nomem;
    *raw_size = header + raw_len;
    *stored_size = header + stored;
    return 0;
nomem:
    out->len = start;
    return INLAY_ERR_NOMEM;
}

void page_scratch_free(page_scratch *s, const inlay_allocator *a)
{
    buf_free(&s->raw, a);
    buf_free(&s->packed, a);
}
