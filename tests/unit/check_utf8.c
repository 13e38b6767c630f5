/*
 * check_utf8.c — UTF-8 validation (runtime/base/utf8.c): every class of
 * valid and invalid sequence, at every offset around the 8-byte ASCII fast
 * path, and the public inlay_utf8_valid.
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
