/*
 * check_utf8.c — UTF-8 validation (runtime/base/utf8.c): every class of
 * valid and invalid sequence, at every offset around the 8-byte ASCII fast
 * path, and the public inlay_utf8_valid.
 *
 * The agreement cases hold both checkers (inl_utf8_valid, which takes the
 * AVX2 path on a processor that has it, and inl_utf8_valid_portable) to a
 * reference written from RFC 3629's table of well-formed sequences, over
 * every 1-, 2- and 3-byte sequence, the 4-byte ones with sampled tails,
 * and random text. Text under test ends where its heap block ends, so
 * under -DINLAY_SANITIZE=ON a read past p + n is an error.
 */
#include "utf8.h"

#include "unit.h"

/* ---- UTF-8 --------------------------------------------------------------------------------- */

typedef struct seq {
    const char *bytes;
    size_t len;
    const char *what;
} seq;

#define SEQ(s, what) { s, sizeof s - 1, what }

static const seq valid[] = {
    SEQ("", "empty"), SEQ("a", "ASCII"), SEQ("\x7F", "DEL"),
    SEQ("\xC2\x80", "U+0080"), SEQ("\xDF\xBF", "U+07FF"), SEQ("\xC3\xA9", "U+00E9"),
    SEQ("\xE0\xA0\x80", "U+0800"), SEQ("\xE2\x82\xAC", "U+20AC"), SEQ("\xED\x9F\xBF", "U+D7FF"),
    SEQ("\xEE\x80\x80", "U+E000"), SEQ("\xEF\xBF\xBF", "U+FFFF"),
    SEQ("\xF0\x90\x80\x80", "U+10000"), SEQ("\xF0\x9D\x84\x9E", "U+1D11E"), SEQ("\xF4\x8F\xBF\xBF", "U+10FFFF"),
};

static const seq invalid[] = {
    SEQ("\x80", "lone continuation"), SEQ("\xBF", "lone continuation"),
    SEQ("\xC0\x80", "overlong U+0000"), SEQ("\xC1\xBF", "overlong U+007F"),
    SEQ("\xE0\x80\x80", "overlong 3 bytes"), SEQ("\xE0\x9F\xBF", "overlong U+07FF"),
    SEQ("\xF0\x80\x80\x80", "overlong 4 bytes"), SEQ("\xF0\x8F\xBF\xBF", "overlong U+FFFF"),
    SEQ("\xED\xA0\x80", "surrogate U+D800"), SEQ("\xED\xBF\xBF", "surrogate U+DFFF"),
    SEQ("\xF4\x90\x80\x80", "U+110000"), SEQ("\xF5\x80\x80\x80", "lead F5"),
    SEQ("\xF8\x88\x80\x80\x80", "5-byte form"), SEQ("\xFE", "FE"), SEQ("\xFF", "FF"),
    SEQ("\xC3", "truncated 2"), SEQ("\xE2\x82", "truncated 3"), SEQ("\xF0\x9D\x84", "truncated 4"),
    SEQ("\xC3\x41", "ASCII as continuation"), SEQ("\xE2\x28\xA1", "bad second byte"),
    SEQ("\xE2\x82\x28", "bad third byte"), SEQ("\xF0\x9D\x84\x28", "bad fourth byte"),
    SEQ("\xC3\xA9\xA9", "extra continuation"),
};

START_TEST(test_utf8_sequences)
{
    for (size_t i = 0; i < sizeof valid / sizeof valid[0]; i++)
        ck_assert_msg(inl_utf8_valid((const uint8_t *)valid[i].bytes, valid[i].len), "%s rejected", valid[i].what);
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++)
        ck_assert_msg(!inl_utf8_valid((const uint8_t *)invalid[i].bytes, invalid[i].len), "%s accepted", invalid[i].what);
}
END_TEST

START_TEST(test_utf8_every_offset)
{
    /* each sequence with 0..24 ASCII bytes before and 0..24 after: the
     * verdict must not depend on where the 8-byte blocks fall */
    uint8_t text[64];
    unsigned long wrong = 0;
    char first[96] = "";
    for (int pass = 0; pass < 2; pass++) {
        const seq *set = pass ? invalid : valid;
        size_t n = pass ? sizeof invalid / sizeof invalid[0] : sizeof valid / sizeof valid[0];
        for (size_t i = 0; i < n; i++)
            for (size_t pre = 0; pre <= 24; pre++)
                for (size_t post = 0; post <= 24; post++) {
                    memset(text, 'x', pre);
                    memcpy(text + pre, set[i].bytes, set[i].len);
                    memset(text + pre + set[i].len, 'y', post);
                    bool ok = inl_utf8_valid(text, pre + set[i].len + post);
                    if (ok != !pass && !wrong++)
                        snprintf(first, sizeof first, "%s with %zu bytes before, %zu after", set[i].what, pre, post);
                }
    }
    ck_assert_msg(wrong == 0, "%lu wrong verdicts; the first: %s", wrong, first);
}
END_TEST

START_TEST(test_utf8_ascii_lengths)
{
    uint8_t text[40];
    memset(text, 'a', sizeof text);
    for (size_t n = 0; n <= sizeof text; n++) ck_assert(inl_utf8_valid(text, n));
    /* a high byte at every position of every length */
    for (size_t n = 1; n <= sizeof text; n++)
        for (size_t at = 0; at < n; at++) {
            text[at] = 0x80;
            ck_assert_msg(!inl_utf8_valid(text, n), "0x80 at %zu of %zu accepted", at, n);
            text[at] = 'a';
        }
}
END_TEST

START_TEST(test_utf8_long_text)
{
    /* mixed text, valid, then spoiled at one place */
    char text[4000];
    size_t n = 0;
    static const char *parts[] = { "plain ", "caf\xC3\xA9 ", "\xE2\x82\xAC" "5 ", "\xF0\x9D\x84\x9E ", "12345678" };
    for (int i = 0; n + 16 < sizeof text; i++) {
        size_t l = strlen(parts[i % 5]);
        memcpy(text + n, parts[i % 5], l);
        n += l;
    }
    ck_assert(inl_utf8_valid((const uint8_t *)text, n));
    text[n - 3] = (char)0xC3;
    ck_assert(!inl_utf8_valid((const uint8_t *)text, n - 2));    /* truncated at the end */
}
END_TEST

START_TEST(test_public_utf8_valid)
{
    ck_assert(inlay_utf8_valid(NULL, 0));
    ck_assert(inlay_utf8_valid("caf\xC3\xA9", 5));
    ck_assert(!inlay_utf8_valid("caf\xC3", 4));
    ck_assert(!inlay_utf8_valid(NULL, 1));
}
END_TEST

/* ---- agreement with a reference ------------------------------------------------------------ */

/* RFC 3629, section 4: the well-formed sequences, byte range by byte range. */
static size_t ref_sequence(const uint8_t *p, size_t n)
{
    static const struct { uint8_t lo, hi, len, lo2, hi2; } forms[] = {
        { 0x00, 0x7F, 1, 0, 0 },
        { 0xC2, 0xDF, 2, 0x80, 0xBF },
        { 0xE0, 0xE0, 3, 0xA0, 0xBF }, { 0xE1, 0xEC, 3, 0x80, 0xBF },
        { 0xED, 0xED, 3, 0x80, 0x9F }, { 0xEE, 0xEF, 3, 0x80, 0xBF },
        { 0xF0, 0xF0, 4, 0x90, 0xBF }, { 0xF1, 0xF3, 4, 0x80, 0xBF }, { 0xF4, 0xF4, 4, 0x80, 0x8F },
    };
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        if (p[0] < forms[f].lo || p[0] > forms[f].hi) continue;
        size_t len = forms[f].len;
        if (len > n) return 0;
        if (len > 1 && (p[1] < forms[f].lo2 || p[1] > forms[f].hi2)) return 0;
        for (size_t k = 2; k < len; k++)
            if (p[k] < 0x80 || p[k] > 0xBF) return 0;
        return len;
    }
    return 0;
}

static bool ref_valid(const uint8_t *p, size_t n)
{
    for (size_t i = 0, len; i < n; i += len)
        if (!(len = ref_sequence(p + i, n - i))) return false;
    return true;
}

/* Text is built at the end of a heap block of ROOM bytes. */
enum { ROOM = 512 };

typedef struct tally {
    uint8_t *block;
    unsigned long calls, wrong;
    char first[200];
} tally;

static void tally_open(tally *t)
{
    memset(t, 0, sizeof *t);
    t->block = malloc(ROOM);
    ck_assert_ptr_nonnull(t->block);
}

static void tally_close(tally *t, const char *what)
{
    free(t->block);
    ck_assert_msg(t->wrong == 0, "%s: %lu wrong verdicts of %lu; the first: %s", what, t->wrong, t->calls,
                  t->first);
}

/* where n bytes of text go */
static uint8_t *text_at(tally *t, size_t n)
{
    return t->block + ROOM - n;
}

/* Judges the n bytes at text_at(t, n); the note says where the interesting
 * bytes sit, for the message. */
static void judge(tally *t, size_t n, const char *note, size_t at)
{
    const uint8_t *p = text_at(t, n);
    bool want = ref_valid(p, n);
    bool got = inl_utf8_valid(p, n), portable = inl_utf8_valid_portable(p, n);
    t->calls++;
    if ((got != want || portable != want) && !t->wrong++) {
        int w = snprintf(t->first, sizeof t->first, "%s at %zu of %zu: expected %d, got %d (portable %d); bytes",
                         note, at, n, want, got, portable);
        for (size_t i = at; i < n && i < at + 8 && w > 0 && (size_t)w + 4 < sizeof t->first; i++)
            w += snprintf(t->first + w, sizeof t->first - (size_t)w, " %02X", p[i]);
    }
}

/* bytes[0..len) placed at `at` in n bytes of ASCII */
static void judge_in_ascii(tally *t, const uint8_t *bytes, size_t len, size_t at, size_t n, const char *note)
{
    uint8_t *p = text_at(t, n);
    memset(p, 'a', n);
    memcpy(p + at, bytes, len);
    judge(t, n, note, at);
}

START_TEST(test_utf8_all_short_sequences)
{
    /* every 1-, 2- and 3-byte sequence alone (the short path), across the
     * two halves of a 32-byte value, across the first block boundary of a
     * long one, and at the end of one (its overlapping last block) */
    static const struct { size_t at, n; } places[] = { { 0, 0 }, { 15, 32 }, { 30, 70 }, { 37, 40 } };
    tally t;
    tally_open(&t);
    uint8_t s[3];
    for (unsigned a = 0; a < 256; a++) {
        s[0] = (uint8_t)a;
        judge_in_ascii(&t, s, 1, 0, 1, "1 byte");
        for (unsigned b = 0; b < 256; b++) {
            s[1] = (uint8_t)b;
            for (size_t k = 0; k < 4; k++)
                judge_in_ascii(&t, s, 2, places[k].at, places[k].n ? places[k].n : 2, "2 bytes");
            if (a < 0x80) continue;     /* an ASCII lead is the 2-byte case again */
            for (unsigned c = 0; c < 256; c++) {
                s[2] = (uint8_t)c;
                for (size_t k = 0; k < 4; k++)
                    judge_in_ascii(&t, s, 3, places[k].at, places[k].n ? places[k].n : 3, "3 bytes");
            }
        }
    }
    tally_close(&t, "1-3 byte sequences");
}
END_TEST

/* bytes worth trying after a lead byte: each edge of every range the
 * tables tell apart, and non-continuations of each kind */
static const uint8_t edges[] = { 0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0,
                                 0xB5, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xF0, 0xF4, 0xF5, 0xFF };

START_TEST(test_utf8_four_byte_sequences)
{
    /* a lead F0..FF, every second byte, sampled third and fourth bytes;
     * alone, and across the first block boundary of a long value */
    tally t;
    tally_open(&t);
    uint8_t s[4];
    for (unsigned a = 0xF0; a < 256; a++)
        for (unsigned b = 0; b < 256; b++)
            for (size_t c = 0; c < sizeof edges; c++)
                for (size_t d = 0; d < sizeof edges; d++) {
                    s[0] = (uint8_t)a, s[1] = (uint8_t)b, s[2] = edges[c], s[3] = edges[d];
                    judge_in_ascii(&t, s, 4, 0, 4, "4 bytes");
                    judge_in_ascii(&t, s, 4, 30 - (b & 3), 67, "4 bytes");
                }
    tally_close(&t, "4-byte sequences");
}
END_TEST

START_TEST(test_utf8_sequences_everywhere)
{
    /* sequences of one lead byte and edge bytes after it, at every offset
     * 0..40 of every length 1..80 of ASCII: the verdict must not depend on
     * where the blocks, the halves of a short value or the last block fall */
    tally t;
    tally_open(&t);
    uint8_t s[4];
    for (unsigned a = 0x80; a < 256; a++)
        for (size_t len = 1; len <= 4; len++)
            for (size_t e = 0; e < (len > 1 ? sizeof edges : 1); e++) {
                s[0] = (uint8_t)a;
                s[1] = edges[e];
                s[2] = (uint8_t)(e & 1 ? 0x80 : 0xBF);
                s[3] = (uint8_t)(e & 2 ? 0xBF : 0x80);
                for (size_t n = len; n <= 80; n++)
                    for (size_t at = 0; at <= 40 && at + len <= n; at++)
                        judge_in_ascii(&t, s, len, at, n, "sequence");
            }
    tally_close(&t, "sequences at every offset");
}
END_TEST

START_TEST(test_utf8_truncated_at_end)
{
    /* every proper prefix of a multi-byte character, as the last bytes of
     * every length, after ASCII and after other multi-byte characters */
    static const char *chars[] = { "\xC3\xA9", "\xDF\xBF", "\xE0\xA0\x80", "\xE2\x82\xAC", "\xED\x9F\xBF",
                                   "\xEF\xBF\xBF", "\xF0\x90\x80\x80", "\xF0\x9D\x84\x9E", "\xF4\x8F\xBF\xBF" };
    tally t;
    tally_open(&t);
    for (size_t c = 0; c < sizeof chars / sizeof chars[0]; c++) {
        size_t clen = strlen(chars[c]);
        for (size_t cut = 1; cut < clen; cut++)
            for (size_t n = cut; n <= 100; n++) {
                for (int fill = 0; fill < 2; fill++) {
                    uint8_t *p = text_at(&t, n);
                    memset(p, 'a', n);
                    if (fill)   /* the character itself, repeated */
                        for (size_t i = 0; i + clen <= n - cut; i += clen) memcpy(p + i, chars[c], clen);
                    memcpy(p + n - cut, chars[c], cut);
                    judge(&t, n, fill ? "cut after characters" : "cut after ASCII", n - cut);
                    ck_assert(!inl_utf8_valid(p, n));
                }
            }
    }
    tally_close(&t, "truncated characters");
}
END_TEST

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 32);
}

/* Valid text of exactly n bytes, mostly ASCII or mostly not. */
static void random_text(uint8_t *p, size_t n, unsigned ascii_percent)
{
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        size_t room = n - i, len;
        unsigned r = rng() % 100;
        if (r < ascii_percent || room == 1) cp = rng() % 0x80, len = 1;
        else if (r % 3 == 0 || room == 2) cp = 0x80 + rng() % (0x800 - 0x80), len = 2;
        else if (r % 3 == 1 || room == 3) {
            do cp = 0x800 + rng() % (0x10000 - 0x800); while (cp >= 0xD800 && cp <= 0xDFFF);
            len = 3;
        } else cp = 0x10000 + rng() % (0x110000 - 0x10000), len = 4;
        switch (len) {
        case 1: p[i] = (uint8_t)cp; break;
        case 2: p[i] = (uint8_t)(0xC0 | cp >> 6); break;
        case 3: p[i] = (uint8_t)(0xE0 | cp >> 12); break;
        default: p[i] = (uint8_t)(0xF0 | cp >> 18); break;
        }
        for (size_t k = 1; k < len; k++) p[i + k] = (uint8_t)(0x80 | (cp >> 6 * (len - 1 - k) & 0x3F));
        i += len;
    }
}

START_TEST(test_utf8_random_text)
{
    /* random valid text of every length 0..300, then the same text with one
     * byte replaced by a random one or an edge byte, and cut short */
    tally t;
    tally_open(&t);
    static const unsigned mixes[] = { 100, 95, 70, 30, 0 };
    for (size_t n = 0; n <= 300; n++)
        for (int round = 0; round < 40; round++) {
            uint8_t *p = text_at(&t, n);
            random_text(p, n, mixes[round % 5]);
            ck_assert_msg(ref_valid(p, n), "the generator made invalid text");
            judge(&t, n, "random text", 0);
            if (!n) continue;
            for (int spoil = 0; spoil < 8; spoil++) {
                size_t at = rng() % n;
                uint8_t keep = p[at];
                p[at] = spoil & 1 ? (uint8_t)rng() : edges[rng() % sizeof edges];
                judge(&t, n, "one byte replaced", at);
                p[at] = keep;
            }
            size_t cut = 1 + rng() % (n < 4 ? n : 4);
            memmove(text_at(&t, n - cut), p, n - cut);
            judge(&t, n - cut, "cut short", n - cut);
        }
    tally_close(&t, "random text");
}
END_TEST

START_TEST(test_utf8_long_buffers)
{
    /* a long valid text, then each of a few bad bytes at spread positions:
     * one error anywhere must spoil the whole verdict */
    enum { N = 1 << 16 };
    uint8_t *p = malloc(N);
    ck_assert_ptr_nonnull(p);
    for (unsigned mix = 0; mix <= 100; mix += 50) {
        random_text(p, N, mix);
        ck_assert(inl_utf8_valid(p, N));
        ck_assert(inl_utf8_valid_portable(p, N));
        for (size_t at = 0; at < N; at += 4093) {
            uint8_t keep = p[at];
            for (size_t b = 0; b < sizeof edges; b++) {
                p[at] = edges[b];
                bool want = ref_valid(p, N);
                ck_assert_msg(inl_utf8_valid(p, N) == want, "byte %02X at %zu: expected %d", edges[b], at, want);
                ck_assert_msg(inl_utf8_valid_portable(p, N) == want, "portable: byte %02X at %zu", edges[b], at);
            }
            p[at] = keep;
        }
    }
    free(p);
}
END_TEST

static Suite *utf8_suite(void)
{
    Suite *s = suite_create("utf8");
    TCase *c = tcase_create("sequences");
    tcase_add_test(c, test_utf8_sequences);
    tcase_add_test(c, test_utf8_every_offset);
    tcase_add_test(c, test_utf8_ascii_lengths);
    tcase_add_test(c, test_utf8_long_text);
    tcase_add_test(c, test_public_utf8_valid);
    suite_add_tcase(s, c);
    c = tcase_create("agreement");
    tcase_set_timeout(c, 240);
    tcase_add_test(c, test_utf8_all_short_sequences);
    tcase_add_test(c, test_utf8_four_byte_sequences);
    tcase_add_test(c, test_utf8_sequences_everywhere);
    tcase_add_test(c, test_utf8_truncated_at_end);
    tcase_add_test(c, test_utf8_random_text);
    tcase_add_test(c, test_utf8_long_buffers);
    suite_add_tcase(s, c);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(utf8_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
