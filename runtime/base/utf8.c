/*
 * utf8.c — UTF-8 validation (RFC 3629).
 *
 * Text is mostly ASCII and mostly short (names, codes, 8..32-byte values),
 * so a value of 8..32 bytes is first tested for a high bit with four
 * overlapping 8-byte loads: no loop, no branch on the length. What is left
 * goes to one of two checkers that give the same verdicts:
 *
 *   - with AVX2, the lookup-table method of Keiser and Lemire ("Validating
 *     UTF-8 In Less Than One Instruction Per Byte", 2021): 32 bytes a step,
 *     each byte judged from itself and the three before it, no decoding;
 *   - elsewhere, a decoder that skips ASCII a word at a time.
 *
 * The table method. Almost every error shows in a pair of adjacent bytes:
 * the high nibble of the earlier byte, its low nibble and the high nibble
 * of the later one. Three 16-entry tables map each nibble to the set of
 * error kinds it allows (one bit per kind); a pair is wrong when some kind
 * survives the AND of the three. The eight kinds:
 *
 *   TOO_SHORT   a lead byte (C_..F_) not followed by a continuation (8_..B_)
 *   TOO_LONG    a continuation after an ASCII byte
 *   TWO_CONTS   a continuation after a continuation
 *   OVERLONG_2  C0 or C1 and a continuation: a 1-byte character in 2
 *   OVERLONG_3  E0 and 80..9F: a 2-byte character in 3
 *   SURROGATE   ED and A0..BF: U+D800..U+DFFF
 *   OVERLONG_4  F0 and 80..8F (and F5..FF and 80..8F: past U+10FFFF)
 *   TOO_LARGE   F4..FF and 90..BF: past U+10FFFF
 *
 * TWO_CONTS is right, not wrong, for the third byte of a 3- or 4-byte form
 * and the fourth of a 4-byte form, i.e. when the byte two back is E0 or
 * more or the byte three back is F0 or more. Those positions must be
 * continuations, and every other error is already caught, so TWO_CONTS
 * (bit 0x80) is XORed with "must be a continuation": a continuation there
 * cancels it, anything else there raises it.
 *
 * A block carries its last three bytes into the next, so forms may cross
 * blocks; a form cut off by the end of the input shows as a lead byte among
 * the last three. A short value is padded with zeros to a block: zero is
 * ASCII, so it ends any form it follows with TOO_SHORT. Loads never reach
 * past p + n.
 */
#include <string.h>

#include "alloc.h"
#include "utf8.h"

#define HIGH_BITS 0x8080808080808080ull

/* True when no byte of p[0..n) has its high bit set; n <= 16. */
static inline bool ascii_upto16(const uint8_t *p, size_t n)
{
    uint64_t a = 0, b = 0;
    if (n >= 8) {
        memcpy(&a, p, 8);
        memcpy(&b, p + n - 8, 8);   /* overlapping */
    } else if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, p, 4);
        memcpy(&y, p + n - 4, 4);
        a = x | y;
    } else if (n) {
        a = p[0] | p[n / 2] | p[n - 1];
    }
    return !((a | b) & HIGH_BITS);
}

/* ---- the portable checker ------------------------------------------------------------------- */

/* True when no byte of p[0..n) has its high bit set. */
static bool all_ascii(const uint8_t *p, size_t n)
{
    if (n <= 16) return ascii_upto16(p, n);
    uint64_t acc = 0, w;
    for (size_t i = 0; i + 8 <= n; i += 8) {
        memcpy(&w, p + i, 8);
        acc |= w;
    }
    memcpy(&w, p + n - 8, 8);   /* the tail, overlapping */
    return !((acc | w) & HIGH_BITS);
}

bool inl_utf8_valid_portable(const uint8_t *p, size_t n)
{
    if (INLAY_LIKELY(all_ascii(p, n))) return true;
    size_t i = 0;
    while (i < n) {
        /* ASCII fast path, 8 bytes at a time */
        while (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            if (w & HIGH_BITS) break;
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

/* ---- the AVX2 checker ----------------------------------------------------------------------- */

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_UTF8_AVX2 1
#define AVX2 __attribute__((target("avx2")))

enum {
    TOO_SHORT = 0x01, TOO_LONG = 0x02, OVERLONG_3 = 0x04, TOO_LARGE = 0x08,
    SURROGATE = 0x10, OVERLONG_2 = 0x20, OVERLONG_4 = 0x40, TWO_CONTS = 0x80,
    /* kinds that do not depend on the earlier byte's low nibble */
    ANY_LOW = TOO_SHORT | TOO_LONG | TWO_CONTS,
};

/* by the earlier byte's high nibble */
static const uint8_t t_high1[16] = {
    TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,  /* 0_..7_ */
    TWO_CONTS, TWO_CONTS, TWO_CONTS, TWO_CONTS,                                     /* 8_..B_ */
    TOO_SHORT | OVERLONG_2,                                                         /* C_ */
    TOO_SHORT,                                                                      /* D_ */
    TOO_SHORT | OVERLONG_3 | SURROGATE,                                             /* E_ */
    TOO_SHORT | OVERLONG_4 | TOO_LARGE,                                             /* F_ */
};
/* by the earlier byte's low nibble */
static const uint8_t t_low1[16] = {
    ANY_LOW | OVERLONG_2 | OVERLONG_3 | OVERLONG_4,                                 /* C0 E0 F0 */
    ANY_LOW | OVERLONG_2,                                                           /* C1 */
    ANY_LOW, ANY_LOW,
    ANY_LOW | TOO_LARGE,                                                            /* F4 */
    ANY_LOW | TOO_LARGE | OVERLONG_4, ANY_LOW | TOO_LARGE | OVERLONG_4,              /* F5.. */
    ANY_LOW | TOO_LARGE | OVERLONG_4, ANY_LOW | TOO_LARGE | OVERLONG_4,
    ANY_LOW | TOO_LARGE | OVERLONG_4, ANY_LOW | TOO_LARGE | OVERLONG_4,
    ANY_LOW | TOO_LARGE | OVERLONG_4, ANY_LOW | TOO_LARGE | OVERLONG_4,
    ANY_LOW | TOO_LARGE | OVERLONG_4 | SURROGATE,                                   /* ED FD */
    ANY_LOW | TOO_LARGE | OVERLONG_4, ANY_LOW | TOO_LARGE | OVERLONG_4,             /* ..FF */
};
/* by the later byte's high nibble */
static const uint8_t t_high2[16] = {
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
    TOO_LONG | TWO_CONTS | OVERLONG_2 | OVERLONG_3 | OVERLONG_4,                    /* 8_ */
    TOO_LONG | TWO_CONTS | OVERLONG_2 | OVERLONG_3 | TOO_LARGE,                     /* 9_ */
    TOO_LONG | TWO_CONTS | OVERLONG_2 | SURROGATE | TOO_LARGE,                      /* A_ */
    TOO_LONG | TWO_CONTS | OVERLONG_2 | SURROGATE | TOO_LARGE,                      /* B_ */
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
};

/* one 16-entry table in both 128-bit lanes, as vpshufb wants it */
AVX2 static inline __m256i table(const uint8_t t[16])
{
    return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t));
}

/* The error kinds of each byte of `in`, given the block before it (only its
 * last three bytes matter); zero where the byte is fine. */
AVX2 static inline __m256i block_errors(__m256i in, __m256i before)
{
    const __m256i nibble = _mm256_set1_epi8(0x0F);

    /* the input moved one, two and three bytes later, the gap filled from `before` */
    const __m256i joint = _mm256_permute2x128_si256(before, in, 0x21);
    const __m256i prev1 = _mm256_alignr_epi8(in, joint, 15);
    const __m256i prev2 = _mm256_alignr_epi8(in, joint, 14);
    const __m256i prev3 = _mm256_alignr_epi8(in, joint, 13);

    const __m256i high1 = _mm256_and_si256(_mm256_srli_epi16(prev1, 4), nibble);
    const __m256i low1 = _mm256_and_si256(prev1, nibble);
    const __m256i high2 = _mm256_and_si256(_mm256_srli_epi16(in, 4), nibble);
    __m256i kinds = _mm256_shuffle_epi8(table(t_high1), high1);
    kinds = _mm256_and_si256(kinds, _mm256_shuffle_epi8(table(t_low1), low1));
    kinds = _mm256_and_si256(kinds, _mm256_shuffle_epi8(table(t_high2), high2));

    /* 0x80 where the byte must continue a 3- or 4-byte form: prev2 >= E0
     * leaves 0x80..0x9F after subtracting 0x60, prev3 >= F0 leaves 0x80..0x8F
     * after subtracting 0x70, and anything smaller stays below 0x80 */
    __m256i must = _mm256_or_si256(_mm256_subs_epu8(prev2, _mm256_set1_epi8(0x60)),
                                   _mm256_subs_epu8(prev3, _mm256_set1_epi8(0x70)));
    must = _mm256_and_si256(must, _mm256_set1_epi8((char)0x80));
    return _mm256_xor_si256(kinds, must);
}

/* Nonzero where a form starts in the last three bytes of `in` and so needs
 * bytes past it: byte 29 >= F0, byte 30 >= E0 or byte 31 >= C0. */
AVX2 static inline __m256i unfinished(__m256i in)
{
    const __m256i limit = _mm256_setr_epi8(
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
        -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, (char)0xEF, (char)0xDF, (char)0xBF);
    return _mm256_subs_epu8(in, limit);
}

/* p[0..n), n < 8, in the low bytes of a word, zeros after */
static inline uint64_t word_under8(const uint8_t *p, size_t n)
{
    if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, p, 4);
        memcpy(&b, p + n - 4, 4);
        return a | ((uint64_t)b >> 8 * (8 - n)) << 32;     /* b without what a has */
    }
    if (!n) return 0;
    return (uint64_t)p[0] | (uint64_t)p[n / 2] << 8 * (n / 2) | (uint64_t)p[n - 1] << 8 * (n - 1);
}

/* p[0..n), n <= 32, as one block padded with zeros. From 8 bytes on,
 * without branches (lengths in this range follow no pattern): each lane
 * gets two words, read at 0 and min(8, n-8), and at min(16, n-8) and n-8,
 * and a shuffle puts each byte k < n where it belongs. */
AVX2 static inline __m256i load_upto32(const uint8_t *p, size_t n)
{
    if (INLAY_UNLIKELY(n < 8)) return _mm256_setr_epi64x((long long)word_under8(p, n), 0, 0, 0);
    const size_t last = n - 8, o1 = last < 8 ? last : 8, o2 = last < 16 ? last : 16;
    uint64_t w0, w1, w2, w3;
    memcpy(&w0, p, 8);
    memcpy(&w1, p + o1, 8);
    memcpy(&w2, p + o2, 8);
    memcpy(&w3, p + last, 8);
    const __m256i words = _mm256_setr_epi64x((long long)w0, (long long)w1, (long long)w2, (long long)w3);
    /* byte k comes from the lane's second word when it starts at or
     * before k, else from its first; nothing from k >= n */
    const __m256i k = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
                                       21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
    const __m256i first = _mm256_setr_m128i(_mm_setzero_si128(), _mm_set1_epi8((char)o2));
    const __m256i second = _mm256_setr_m128i(_mm_set1_epi8((char)(o1 - 8)), _mm_set1_epi8((char)(last - 8)));
    const __m256i from_second = _mm256_cmpgt_epi8(k, _mm256_sub_epi8(second, _mm256_set1_epi8(-7)));
    __m256i idx = _mm256_blendv_epi8(_mm256_sub_epi8(k, first), _mm256_sub_epi8(k, second), from_second);
    idx = _mm256_or_si256(idx, _mm256_cmpgt_epi8(k, _mm256_set1_epi8((char)(n - 1))));
    return _mm256_shuffle_epi8(words, idx);
}

/* The three bytes before p[k] (zeros before p[0]) at the end of a block. */
AVX2 static inline __m256i context_before(const uint8_t *p, size_t k)
{
    uint32_t w = 0;
    if (k >= 4) memcpy(&w, p + k - 4, 4);
    else for (size_t j = 0; j < k; j++) w |= (uint32_t)p[j] << 8 * (4 - k + j);
    return _mm256_insert_epi32(_mm256_setzero_si256(), (int)w, 7);
}

AVX2 static bool valid_avx2(const uint8_t *p, size_t n)
{
    const __m256i zero = _mm256_setzero_si256();
    if (n <= 32) {
        __m256i in = load_upto32(p, n);
        __m256i err = _mm256_or_si256(block_errors(in, zero), unfinished(in));
        return _mm256_testz_si256(err, err);
    }
    /* `open`: the previous block's forms that run into this one, which an
     * ASCII block cannot continue */
    __m256i before = zero, open = zero, err = zero;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i in = _mm256_loadu_si256((const __m256i *)(p + i));
        if (INLAY_LIKELY(!_mm256_movemask_epi8(in))) {
            err = _mm256_or_si256(err, open);
            open = zero;
        } else {
            err = _mm256_or_si256(err, block_errors(in, before));
            open = unfinished(in);
        }
        before = in;
    }
    if (i < n) {
        /* the last 32 bytes, overlapping what was checked: a byte checked
         * twice, in its true context both times, gets the same verdict */
        const size_t k = n - 32;
        __m256i in = _mm256_loadu_si256((const __m256i *)(p + k));
        if (!_mm256_movemask_epi8(in)) {
            /* p[i..n) is ASCII, so anything still open is cut short */
            err = _mm256_or_si256(err, open);
        } else {
            err = _mm256_or_si256(err, block_errors(in, context_before(p, k)));
            err = _mm256_or_si256(err, unfinished(in));
        }
    } else {
        err = _mm256_or_si256(err, open);
    }
    return _mm256_testz_si256(err, err);
}
#endif

/* ---- the entry points ----------------------------------------------------------------------- */

bool inl_utf8_valid(const uint8_t *p, size_t n)
{
    if (n - 8 <= 24) {
        /* 8..32 bytes: four overlapping words, the middle two pulled back
         * to stay inside p[0..n) (conditional moves, not branches) */
        const size_t last = n - 8, o1 = last < 8 ? last : 8, o2 = last < 16 ? last : 16;
        uint64_t a, b, c, d;
        memcpy(&a, p, 8);
        memcpy(&b, p + o1, 8);
        memcpy(&c, p + o2, 8);
        memcpy(&d, p + last, 8);
        if (INLAY_LIKELY(!((a | b | c | d) & HIGH_BITS))) return true;
    } else if (n < 8) {
        if (INLAY_LIKELY(ascii_upto16(p, n))) return true;
    }
#ifdef HAVE_UTF8_AVX2
    if (__builtin_cpu_supports("avx2")) return valid_avx2(p, n);
#endif
    return inl_utf8_valid_portable(p, n);
}

bool inlay_utf8_valid(const void *data, size_t len)
{
    return len == 0 || (data && inl_utf8_valid(data, len));
}
