/*
 * plain.c — PLAIN encoding of byte arrays (see plain.h).
 */
#include "plain.h"

size_t inl_plain_bytes_size(const inlay_bytes *v, size_t n)
{
    size_t total = 4 * n;
    for (size_t i = 0; i < n; i++) total += v[i].len;
    return total;
}

int inl_plain_put_bytes(buf *out, const inlay_allocator *a, const inlay_bytes *v, size_t n)
{
    if (!n) return 0;   /* out may have no memory yet: no offset from NULL */
    if (inl_buf_reserve(out, a, inl_plain_bytes_size(v, n))) return -1;
    uint8_t *p = out->data + out->len;
    for (size_t i = 0; i < n; i++) {
        inl_put_u32le(p, (uint32_t)v[i].len);
        if (v[i].len) memcpy(p + 4, v[i].data, v[i].len);
        p += 4 + v[i].len;
    }
    out->len = (size_t)(p - out->data);
    return 0;
}

int inl_plain_put_flba(buf *out, const inlay_allocator *a, const inlay_bytes *v, size_t n,
                   size_t width)
{
    if (!n) return 0;
    if (inl_buf_reserve(out, a, n * width)) return -1;
    uint8_t *p = out->data + out->len;
    for (size_t i = 0; i < n; i++, p += width) memcpy(p, v[i].data, width);
    out->len += n * width;
    return 0;
}
