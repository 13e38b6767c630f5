/*
 * utf8.c — UTF-8 validation. Text is mostly ASCII, so a whole value is
 * first tested eight bytes at a time for a high bit; only a value that has
 * one is decoded, and even then ASCII runs are skipped a word at a time.
 */
#include <string.h>

#include "alloc.h"
#include "utf8.h"

/* True when no byte of p[0..n) has its high bit set. */
static bool all_ascii(const uint8_t *p, size_t n)
{
    uint64_t acc = 0, w;
    if (n >= 8) {
        size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            memcpy(&w, p + i, 8);
            acc |= w;
        }
        memcpy(&w, p + n - 8, 8);   /* the tail, overlapping */
        acc |= w;
    } else {
        for (size_t i = 0; i < n; i++) acc |= p[i];
    }
    return !(acc & 0x8080808080808080ull);
}

bool inl_utf8_valid(const uint8_t *p, size_t n)
{
    if (INLAY_LIKELY(all_ascii(p, n))) return true;
    size_t i = 0;
    while (i < n) {
        /* ASCII fast path, 8 bytes at a time */
        while (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            if (w & 0x8080808080808080ull) break;
            i += 8;
        }
        if (i >= n) break;
        uint8_t b = p[i];
        if (b < 0x80) { i++; continue; }
        size_t len;
        uint32_t cp;
        if ((b & 0xE0) == 0xC0) { len = 2; cp = b & 0x1F; }
        else if ((b & 0xF0) == 0xE0) { len = 3; cp = b & 0x0F; }
        else if ((b & 0xF8) == 0xF0) { len = 4; cp = b & 0x07; }
        else return false;
        if (i + len > n) return false;
        for (size_t k = 1; k < len; k++) {
            if ((p[i + k] & 0xC0) != 0x80) return false;
            cp = cp << 6 | (p[i + k] & 0x3F);
        }
        static const uint32_t min_cp[5] = { 0, 0, 0x80, 0x800, 0x10000 };
        if (cp < min_cp[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += len;
    }
    return true;
}

bool inlay_utf8_valid(const void *data, size_t len)
{
    return len == 0 || (data && inl_utf8_valid(data, len));
}
