/*
 * utf8.h — UTF-8 validation (RFC 3629: no overlong forms, surrogates or
 * code points past U+10FFFF), the check STRING, JSON and ENUM values pass
 * on their way in, whether they come from an append call or a text source.
 */
#ifndef INLAY_UTF8_H
#define INLAY_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True if p[0..n) is valid UTF-8. p may be NULL when n is 0. */
bool inl_utf8_valid(const uint8_t *p, size_t n);

#endif
