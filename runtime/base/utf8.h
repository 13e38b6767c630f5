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

/* True if p[0..n) is valid UTF-8. p may be NULL when n is 0. Reads only
 * p[0..n); picks the AVX2 checker when the processor has it. */
bool inl_utf8_valid(const uint8_t *p, size_t n);

/* The same answer without the vector checker: what processors without AVX2
 * run, exported for the tests to compare. */
bool inl_utf8_valid_portable(const uint8_t *p, size_t n);

#endif
