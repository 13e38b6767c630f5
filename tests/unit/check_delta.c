/*
 * check_delta.c — the delta encodings (runtime/encode/delta.c): DELTA_BINARY_PACKED,
 * DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY.
 *
 * Exact bytes for small cases worked out by hand from Encodings.md (its two
 * DELTA_BINARY_PACKED examples, re-blocked at 128 values and 4 miniblocks,
 * and its "Hello World" and "axis axle" byte-array examples), then round
 * trips of many sizes and shapes through the decoders of decoders.h,
 * written from the spec and strict where inlay makes a choice the spec
 * leaves open:
 *
 *   header    := ULEB block size (128), ULEB miniblocks (4), ULEB count,
 *                zigzag ULEB first value
 *   block     := zigzag ULEB min delta, 4 width bytes, miniblocks
 *   miniblock := 32 values of `width` bits, LSB first; the reader adds
 *                min delta + value to the previous value, wrapping at the
 *                type's width. Once the count is reached, padding bits are
 *                0, unused miniblocks have width 0 and no body.
 *
 * INT32 streams are decoded modulo 2^32 and may not use widths over 32.
 */
#define _POSIX_C_SOURCE 200809L
#include "delta.h"

#include "decoders.h"
#include "unit.h"

#include "out_fixture.h"

/* ---- the independent decoder (decoders.h) ------------------------------------ */

/* The widest miniblock the last expect_stream saw. */
static int decoded_max_width;

/* Decode a whole buffer holding one stream of exactly `want` values. */
static void expect_stream(const uint8_t *p, size_t len, int bits, uint64_t *got, size_t want,
                          const char *what)
{
    const char *why;
    size_t n = 0;
    long used = dbp_decode(p, len, bits, got, want, &n, &decoded_max_width, &why);
    ck_assert_msg(used >= 0, "%s: %s", what, why);
    ck_assert_msg((size_t)used == len, "%s: %zu bytes, the stream has %ld", what, len, used);
    ck_assert_msg(n == want, "%s: %zu values, want %zu", what, n, want);
}

/* ---- hand-computed bytes ---------------------------------------------------- */

#define EXPECT_BYTES(...)                                            \
    do {                                                             \
        static const uint8_t want_[] = { __VA_ARGS__ };              \
        ck_assert_bytes(out.data, out.len, want_, sizeof want_);     \
    } while (0)

static void enc32(const int32_t *v, size_t n)
{
    out.len = 0;
    ck_assert_int_eq(inl_delta_encode_i32(&out, &alloc, v, n), 0);
}

static void enc64(const int64_t *v, size_t n)
{
    out.len = 0;
    ck_assert_int_eq(inl_delta_encode_i64(&out, &alloc, v, n), 0);
}

START_TEST(test_spec_example_1)
{
    /* 1..5: deltas 1, 1, 1, 1; min delta 1 (zigzag 2), all widths 0 */
    static const int32_t v[] = { 1, 2, 3, 4, 5 };
    enc32(v, 5);
    EXPECT_BYTES(0x80, 0x01, 0x04, 0x05, 0x02,   0x02, 0x00, 0x00, 0x00, 0x00);
    static const int64_t w[] = { 1, 2, 3, 4, 5 };
    enc64(w, 5);
    EXPECT_BYTES(0x80, 0x01, 0x04, 0x05, 0x02,   0x02, 0x00, 0x00, 0x00, 0x00);
}
END_TEST

START_TEST(test_spec_example_2)
{
    /* 7 5 3 1 2 3 4 5: first 7 (zigzag 14); deltas -2 -2 -2 1 1 1 1, min -2
     * (zigzag 3), relative 0 0 0 3 3 3 3 at 2 bits: 0xC0 0x3F, then zeros to
     * 32 values = 8 bytes */
    static const int32_t v[] = { 7, 5, 3, 1, 2, 3, 4, 5 };
    enc32(v, 8);
    EXPECT_BYTES(0x80, 0x01, 0x04, 0x08, 0x0E,   0x03, 0x02, 0x00, 0x00, 0x00,
                 0xC0, 0x3F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00);
}
END_TEST

START_TEST(test_empty_and_one)
{
    enc32(NULL, 0);
    EXPECT_BYTES(0x80, 0x01, 0x04, 0x00, 0x00);
    enc64(NULL, 0);
    EXPECT_BYTES(0x80, 0x01, 0x04, 0x00, 0x00);
    static const int32_t five = 5, minus_one = -1;
    enc32(&five, 1);
    EXPECT_BYTES(0x80, 0x01, 0x04, 0x01, 0x0A);    /* a header alone */
    enc32(&minus_one, 1);
    EXPECT_BYTES(0x80, 0x01, 0x04, 0x01, 0x01);
    static const int64_t big = INT64_C(1) << 40;
    enc64(&big, 1);
    EXPECT_BYTES(0x80, 0x01, 0x04, 0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40);  /* 2^41 */
}
END_TEST

START_TEST(test_all_equal)
{
    /* 200 values: 199 zero deltas, a full block and one of 71 */
    static int32_t v[200];
    for (int i = 0; i < 200; i++) v[i] = 42;
    enc32(v, 200);
    EXPECT_BYTES(0x80, 0x01, 0x04, 0xC8, 0x01, 0x54,
                 0x00, 0x00, 0x00, 0x00, 0x00,
                 0x00, 0x00, 0x00, 0x00, 0x00);
}
END_TEST

START_TEST(test_partial_miniblocks)
{
    /* 34 values: 33 deltas, 32 ones then a 3. Min 1; miniblock 0 is all 0
     * (width 0), miniblock 1 holds one value 2 (width 2, padded to 32
     * values = 8 bytes), miniblocks 2 and 3 are unused: width 0, no body */
    static int32_t v[34];
    for (int i = 0; i < 33; i++) v[i] = i;
    v[33] = 35;
    enc32(v, 34);
    EXPECT_BYTES(0x80, 0x01, 0x04, 0x22, 0x00,   0x02, 0x00, 0x02, 0x00, 0x00,
                 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00);
}
END_TEST

START_TEST(test_block_boundaries)
{
    /* deltas alternate 1 and 0: min 0 and width 1 (4 bytes) for every used
     * miniblock, so the sizes show which miniblocks exist; a block of one
     * delta has min 1 and width 0 */
    static int32_t v[300];
    v[0] = 0;
    for (int i = 1; i < 300; i++) v[i] = v[i - 1] + (i & 1);
    static const struct { size_t n; size_t len; } cases[] = {
        { 2, 5 + 5 },                  /* 1 delta: one miniblock, width 0 */
        { 32, 5 + 5 + 4 },             /* 31 */
        { 33, 5 + 5 + 4 },             /* 32: one full miniblock */
        { 34, 5 + 5 + 8 },             /* 33: two */
        { 128, 6 + 5 + 16 },           /* 127: four (count 128 takes 2 bytes) */
        { 129, 6 + 5 + 16 },           /* 128: one full block */
        { 130, 6 + 5 + 16 + 5 },       /* 129: a second block with one value */
        { 257, 6 + 2 * (5 + 16) },     /* 256: two full blocks */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        enc32(v, cases[c].n);
        ck_assert_msg(out.len == cases[c].len, "n %zu: %zu bytes, want %zu", cases[c].n,
                      out.len, cases[c].len);
        uint64_t got[300];
        expect_stream(out.data, out.len, 32, got, cases[c].n, "alternating deltas");
        for (size_t i = 0; i < cases[c].n; i++) ck_assert_uint_eq(got[i], (uint32_t)v[i]);
    }
    /* 34 values: widths 1 1 0 0; deltas 1 0 1 0 ... pack to 0x55 bytes */
    enc32(v, 34);
    EXPECT_BYTES(0x80, 0x01, 0x04, 0x22, 0x00,   0x00, 0x01, 0x01, 0x00, 0x00,
                 0x55, 0x55, 0x55, 0x55,   0x01, 0x00, 0x00, 0x00);
}
END_TEST

START_TEST(test_int64_extremes)
{
    /* MIN then MAX: first zigzag(MIN) = 2^64 - 1, the delta wraps to -1 */
    static const int64_t a[] = { INT64_MIN, INT64_MAX };
    enc64(a, 2);
    EXPECT_BYTES(0x80, 0x01, 0x04, 0x02, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,
                 0x01, 0x00, 0x00, 0x00, 0x00);
    /* MAX MIN MAX: deltas wrap to 1 and -1, min -1, relative 2 0 at 2 bits */
    static const int64_t b[] = { INT64_MAX, INT64_MIN, INT64_MAX };
    enc64(b, 3);
    EXPECT_BYTES(0x80, 0x01, 0x04, 0x03, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,
                 0x01, 0x02, 0x00, 0x00, 0x00,
                 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00);
}
END_TEST

START_TEST(test_int64_full_width)
{
    /* MIN 0 MAX MIN: deltas 2^63 (= MIN), MAX, 1; min MIN (zigzag 2^64-1),
     * relative 0, 2^64 - 1, 2^63 + 1: one 64-bit miniblock of 256 bytes */
    static const int64_t v[] = { INT64_MIN, 0, INT64_MAX, INT64_MIN };
    enc64(v, 4);
    uint8_t want[14 + 10 + 4 + 256] = { 0x80, 0x01, 0x04, 0x04,
                                        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,
                                        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,
                                        64, 0, 0, 0 };
    memset(want + 28 + 8, 0xFF, 8);            /* value 1 */
    want[28 + 16] = 0x01;                      /* value 2 */
    want[28 + 23] = 0x80;
    ck_assert_bytes(out.data, out.len, want, sizeof want);
}
END_TEST

START_TEST(test_int32_extremes)
{
    /* MIN then MAX: first zigzag(MIN) = 2^32 - 1, the 32-bit delta is -1 */
    static const int32_t a[] = { INT32_MIN, INT32_MAX };
    enc32(a, 2);
    EXPECT_BYTES(0x80, 0x01, 0x04, 0x02, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F,
                 0x01, 0x00, 0x00, 0x00, 0x00);
    static const int32_t b[] = { INT32_MAX, INT32_MIN, INT32_MAX };
    enc32(b, 3);
    EXPECT_BYTES(0x80, 0x01, 0x04, 0x03, 0xFE, 0xFF, 0xFF, 0xFF, 0x0F,
                 0x01, 0x02, 0x00, 0x00, 0x00,
                 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00);
    /* MIN 0 MAX MIN: 32-bit deltas MIN, MAX, 1; min MIN, relative 0,
     * 2^32 - 1, 2^31 + 1: width 32, never more */
    static const int32_t c[] = { INT32_MIN, 0, INT32_MAX, INT32_MIN };
    enc32(c, 4);
    uint8_t want[9 + 5 + 4 + 128] = { 0x80, 0x01, 0x04, 0x04, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F,
                                      0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 32, 0, 0, 0 };
    memset(want + 18 + 4, 0xFF, 4);
    want[18 + 8] = 0x01;
    want[18 + 11] = 0x80;
    ck_assert_bytes(out.data, out.len, want, sizeof want);
}
END_TEST

START_TEST(test_appends)
{
    ck_assert_int_eq(inl_buf_append(&out, &alloc, "ab", 2), 0);
    static const int32_t v[] = { 1, 2, 3, 4, 5 };
    ck_assert_int_eq(inl_delta_encode_i32(&out, &alloc, v, 5), 0);
    EXPECT_BYTES('a', 'b', 0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00);
}
END_TEST

/* ---- round trips -------------------------------------------------------------- */

enum { MAXN = 10000, PATTERNS = 12 };

static const size_t big_sizes[] = { 383, 384, 385, 511, 512, 513, 1000, 4097, MAXN };

/* A sequence of shape `pattern`, as 64-bit two's complement bits. */
static void make_values(uint64_t *v, size_t n, int pattern, uint64_t *rng)
{
    uint64_t x = rng_next(rng);
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = rng_next(rng);
        switch (pattern) {
        case 0: v[i] = r; break;                                        /* anything */
        case 1: v[i] = 7; break;                                        /* constant */
        case 2: v[i] = (uint64_t)i * 3; break;                          /* arithmetic */
        case 3: x += r % 1000; v[i] = x; break;                         /* sorted, small steps */
        case 4: x -= r % 100000; v[i] = x; break;                       /* decreasing */
        case 5: v[i] = i & 1 ? UINT64_MAX >> 1 : UINT64_C(1) << 63; break;     /* MAX MIN ... */
        case 6: v[i] = i & 1 ? UINT32_MAX >> 1 : UINT64_C(0xFFFFFFFF80000000); /* i32 MAX MIN */
            break;
        case 7: v[i] = r >> (r % 64); break;                            /* every width */
        case 8: v[i] = (uint64_t)((int64_t)(r % 2001) - 1000); break;   /* small, signed */
        case 9: v[i] = (i / 37) % 2 ? r : i; break;                     /* calm and wild */
        case 10: x += (r % 16 == 0) ? r : 1; v[i] = x; break;           /* rare outliers */
        default: v[i] = (uint64_t)(int64_t)(int32_t)(uint32_t)r; break; /* any int32 */
        }
    }
}

static void round_trip_i64(const uint64_t *v, size_t n, int pattern)
{
    static int64_t in[MAXN];
    static uint64_t got[MAXN];
    for (size_t i = 0; i < n; i++) in[i] = (int64_t)v[i];
    enc64(in, n);
    char what[64];
    snprintf(what, sizeof what, "i64 pattern %d n %zu", pattern, n);
    expect_stream(out.data, out.len, 64, got, n, what);
    size_t bad = 0;
    while (bad < n && got[bad] == v[bad]) bad++;
    ck_assert_msg(bad == n, "%s: value %zu differs", what, bad);
}

static void round_trip_i32(const uint64_t *v, size_t n, int pattern)
{
    static int32_t in[MAXN];
    static uint64_t got[MAXN];
    for (size_t i = 0; i < n; i++) in[i] = (int32_t)(uint32_t)v[i];
    enc32(in, n);
    char what[64];
    snprintf(what, sizeof what, "i32 pattern %d n %zu", pattern, n);
    expect_stream(out.data, out.len, 32, got, n, what);
    size_t bad = 0;
    while (bad < n && got[bad] == (uint32_t)in[bad]) bad++;
    ck_assert_msg(bad == n, "%s: value %zu differs", what, bad);
}

START_TEST(test_round_trip_i64)
{
    const int pattern = _i;
    static uint64_t v[MAXN];
    uint64_t rng = 0xABCDEF + (uint64_t)pattern;
    for (size_t n = 0; n <= 300; n++) {
        make_values(v, n, pattern, &rng);
        round_trip_i64(v, n, pattern);
    }
    for (size_t k = 0; k < sizeof big_sizes / sizeof big_sizes[0]; k++) {
        make_values(v, big_sizes[k], pattern, &rng);
        round_trip_i64(v, big_sizes[k], pattern);
    }
}
END_TEST

START_TEST(test_round_trip_i32)
{
    const int pattern = _i;
    static uint64_t v[MAXN];
    uint64_t rng = 0x13579 + (uint64_t)pattern;
    for (size_t n = 0; n <= 300; n++) {
        make_values(v, n, pattern, &rng);
        round_trip_i32(v, n, pattern);
    }
    for (size_t k = 0; k < sizeof big_sizes / sizeof big_sizes[0]; k++) {
        make_values(v, big_sizes[k], pattern, &rng);
        round_trip_i32(v, big_sizes[k], pattern);
    }
}
END_TEST

/* Deltas below 2^w with a 0 and a 2^w - 1 among them (min 0, widest
 * miniblock exactly w bits), or, at the type's full width, a MIN and a 0
 * among random ones. Values are their running sum, wrapping at `bits`. */
static void make_width(uint64_t *v, size_t n, int w, int bits, uint64_t *rng)
{
    const uint64_t mask = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    const uint64_t below = w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;
    v[0] = rng_next(rng) & mask;
    for (size_t i = 1; i < n; i++) {
        uint64_t d = rng_next(rng) & below;
        if (w == bits && i == 1) d = UINT64_C(1) << (bits - 1);
        else if (w == bits && i == 2) d = 0;
        else if (w < bits && i == 1) d = 0;
        else if (w < bits && i == 2) d = below;
        v[i] = (v[i - 1] + d) & mask;
    }
}

START_TEST(test_every_width)
{
    const int w = _i;
    uint64_t rng = 77 + (uint64_t)w;
    static const size_t sizes[] = { 3, 33, 34, 129, 300 };
    uint64_t v[300], got[300];
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const size_t n = sizes[k];
        if (w <= 32) {
            int32_t in[300];
            make_width(v, n, w, 32, &rng);
            for (size_t i = 0; i < n; i++) in[i] = (int32_t)(uint32_t)v[i];
            enc32(in, n);
            expect_stream(out.data, out.len, 32, got, n, "i32");
            ck_assert_int_eq(decoded_max_width, w);
            for (size_t i = 0; i < n; i++) ck_assert_uint_eq(got[i], v[i]);
        }
        int64_t in64[300];
        make_width(v, n, w, 64, &rng);
        for (size_t i = 0; i < n; i++) in64[i] = (int64_t)v[i];
        enc64(in64, n);
        expect_stream(out.data, out.len, 64, got, n, "i64");
        ck_assert_int_eq(decoded_max_width, w);
        for (size_t i = 0; i < n; i++) ck_assert_uint_eq(got[i], v[i]);
    }
}
END_TEST

/* ---- byte arrays ----------------------------------------------------------------- */

/* Decode a DELTA_LENGTH_BYTE_ARRAY of n values in p[0..len) and compare;
 * returns the bytes it takes. */
static size_t expect_length_bytes(const uint8_t *p, size_t len, const inlay_bytes *v, size_t n,
                                  const char *what)
{
    static const uint8_t *ptr[MAXN];
    static size_t lens[MAXN];
    const char *why;
    long used = dlba_decode(p, len, n, ptr, lens, &why);
    ck_assert_msg(used >= 0, "%s: %s", what, why);
    for (size_t i = 0; i < n; i++) {
        ck_assert_msg(lens[i] == v[i].len, "%s: value %zu has length %zu, want %zu", what, i,
                      lens[i], v[i].len);
        ck_assert_msg(v[i].len == 0 || memcmp(ptr[i], v[i].data, v[i].len) == 0,
                      "%s: value %zu differs", what, i);
    }
    return (size_t)used;
}

/* Decode a DELTA_BYTE_ARRAY of n values and compare; prefixes must be the
 * longest shared ones, and the stream must end with the last suffix. */
static void expect_front(const uint8_t *p, size_t len, const inlay_bytes *v, size_t n,
                         const char *what)
{
    static const uint8_t *ptr[MAXN];
    static size_t lens[MAXN];
    static uint64_t prefix[MAXN];
    const char *why;
    uint8_t *arena;
    long used = dba_decode(p, len, n, &arena, ptr, lens, prefix, &why);
    ck_assert_msg(used >= 0, "%s: %s", what, why);
    ck_assert_msg((size_t)used == len, "%s: %zu bytes after the values", what, len - (size_t)used);
    for (size_t i = 0; i < n; i++) {
        size_t shared = 0;
        if (i) {
            const uint8_t *x = v[i - 1].data, *y = v[i].data;
            while (shared < v[i - 1].len && shared < v[i].len && x[shared] == y[shared]) shared++;
        }
        ck_assert_msg(prefix[i] == shared, "%s: value %zu: prefix %llu, want %zu", what, i,
                      (unsigned long long)prefix[i], shared);
        ck_assert_msg(lens[i] == v[i].len, "%s: value %zu: %zu bytes, want %zu", what, i, lens[i],
                      v[i].len);
        ck_assert_msg(v[i].len == 0 || memcmp(ptr[i], v[i].data, v[i].len) == 0,
                      "%s: value %zu differs", what, i);
    }
    free(arena);
}

START_TEST(test_length_spec_example)
{
    /* lengths 5 5 6 6: deltas 0 1 0, min 0, width 1: bit 1 set */
    inlay_bytes v[] = { bytes_of("Hello"), bytes_of("World"), bytes_of("Foobar"),
                        bytes_of("ABCDEF") };
    out.len = 0;
    ck_assert_int_eq(inl_delta_encode_length_bytes(&out, &alloc, v, 4), 0);
    static const uint8_t want[] = { 0x80, 0x01, 0x04, 0x04, 0x0A,   0x00, 0x01, 0x00, 0x00, 0x00,
                                    0x02, 0x00, 0x00, 0x00,
                                    'H', 'e', 'l', 'l', 'o', 'W', 'o', 'r', 'l', 'd', 'F', 'o', 'o',
                                    'b', 'a', 'r', 'A', 'B', 'C', 'D', 'E', 'F' };
    ck_assert_bytes(out.data, out.len, want, sizeof want);
}
END_TEST

START_TEST(test_front_spec_example)
{
    /* prefixes 0 2 0 3: deltas 2 -2 3, min -2, relative 4 0 5 at 3 bits;
     * suffix lengths 4 2 6 5: deltas -2 4 -1, min -2, relative 0 6 1 */
    inlay_bytes v[] = { bytes_of("axis"), bytes_of("axle"), bytes_of("babble"),
                        bytes_of("babyhood") };
    out.len = 0;
    ck_assert_int_eq(inl_delta_encode_bytes(&out, &alloc, v, 4), 0);
    static const uint8_t want[] = {
        0x80, 0x01, 0x04, 0x04, 0x00,   0x03, 0x03, 0x00, 0x00, 0x00,
        0x44, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x80, 0x01, 0x04, 0x04, 0x08,   0x03, 0x03, 0x00, 0x00, 0x00,
        0x70, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        'a', 'x', 'i', 's', 'l', 'e', 'b', 'a', 'b', 'b', 'l', 'e', 'y', 'h', 'o', 'o', 'd' };
    ck_assert_bytes(out.data, out.len, want, sizeof want);
}
END_TEST

START_TEST(test_bytes_empty)
{
    static const uint8_t header0[] = { 0x80, 0x01, 0x04, 0x00, 0x00 };
    out.len = 0;
    ck_assert_int_eq(inl_delta_encode_length_bytes(&out, &alloc, NULL, 0), 0);
    ck_assert_bytes(out.data, out.len, header0, 5);
    out.len = 0;
    ck_assert_int_eq(inl_delta_encode_bytes(&out, &alloc, NULL, 0), 0);
    static const uint8_t two[] = { 0x80, 0x01, 0x04, 0x00, 0x00, 0x80, 0x01, 0x04, 0x00, 0x00 };
    ck_assert_bytes(out.data, out.len, two, 10);

    /* empty strings only, with NULL data */
    inlay_bytes e[3] = { { NULL, 0 }, { NULL, 0 }, { "", 0 } };
    out.len = 0;
    ck_assert_int_eq(inl_delta_encode_length_bytes(&out, &alloc, e, 3), 0);
    EXPECT_BYTES(0x80, 0x01, 0x04, 0x03, 0x00,   0x00, 0x00, 0x00, 0x00, 0x00);
    out.len = 0;
    ck_assert_int_eq(inl_delta_encode_bytes(&out, &alloc, e, 3), 0);
    EXPECT_BYTES(0x80, 0x01, 0x04, 0x03, 0x00,   0x00, 0x00, 0x00, 0x00, 0x00,
                 0x80, 0x01, 0x04, 0x03, 0x00,   0x00, 0x00, 0x00, 0x00, 0x00);
}
END_TEST

START_TEST(test_front_prefix_edges)
{
    /* full-length prefixes (equal values, a value that is a prefix of the
     * one before), none (first bytes differ), and empty values between */
    inlay_bytes v[] = { bytes_of("abc"), bytes_of("abc"), bytes_of("ab"), bytes_of("abcd"),
                        bytes_of(""), bytes_of("x"), bytes_of("y"), bytes_of(""), bytes_of(""),
                        bytes_of("yy") };
    const size_t n = sizeof v / sizeof v[0];
    out.len = 0;
    ck_assert_int_eq(inl_delta_encode_bytes(&out, &alloc, v, n), 0);
    expect_front(out.data, out.len, v, n, "prefix edges");
    /* the suffix bytes are all that is left: "abc" "" "" "cd" "" "x" "y" "" "" "yy" */
    ck_assert_uint_ge(out.len, 9);
    ck_assert_mem_eq(out.data + out.len - 9, "abccdxyyy", 9);

    /* 8-byte comparisons: first differences and ends at every offset
     * around 8 and 16 */
    static char text[40][32];
    inlay_bytes w[40];
    for (int i = 0; i < 40; i++) {
        memset(text[i], 'q', 24);
        text[i][i % 20] = (char)('a' + i % 7);
        w[i] = (inlay_bytes){ text[i], (size_t)(i % 25) };
    }
    out.len = 0;
    ck_assert_int_eq(inl_delta_encode_bytes(&out, &alloc, w, 40), 0);
    expect_front(out.data, out.len, w, 40, "offsets");
}
END_TEST

START_TEST(test_front_flba)
{
    /* FIXED_LEN_BYTE_ARRAY(16): every length written, suffixes 16 - prefix */
    static uint8_t keys[300][16];
    inlay_bytes v[300];
    uint64_t rng = 5;
    for (int i = 0; i < 300; i++) {
        uint64_t hi = (uint64_t)(i / 10), lo = rng_next(&rng);
        for (int b = 0; b < 8; b++) keys[i][b] = (uint8_t)(hi >> (56 - 8 * b));  /* big-endian ids */
        memcpy(keys[i] + 8, &lo, 8);
        if (i % 10 == 3) memcpy(keys[i], keys[i - 1], 16);                        /* duplicates */
        v[i] = (inlay_bytes){ keys[i], 16 };
    }
    out.len = 0;
    ck_assert_int_eq(inl_delta_encode_bytes(&out, &alloc, v, 300), 0);
    expect_front(out.data, out.len, v, 300, "flba");
    out.len = 0;
    ck_assert_int_eq(inl_delta_encode_length_bytes(&out, &alloc, v, 300), 0);
    ck_assert_uint_eq(expect_length_bytes(out.data, out.len, v, 300, "flba lengths"), out.len);
}
END_TEST

/* Random strings with shared prefixes of random length (pattern 0), sorted
 * words (1), long values (2), lots of empties (3). */
static size_t make_strings(inlay_bytes *v, char *pool, size_t n, int pattern, uint64_t *rng)
{
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len;
        char *s = pool + used;
        switch (pattern) {
        case 0: len = rng_next(rng) % 20; break;
        case 1: len = 3 + rng_next(rng) % 8; break;
        case 2: len = 100 + rng_next(rng) % 300; break;
        default: len = rng_next(rng) % 3 ? 0 : rng_next(rng) % 5; break;
        }
        size_t keep = 0;
        if (i && pattern != 3) keep = rng_next(rng) % (v[i - 1].len + 1);
        if (keep > len) len = keep;
        if (keep) memcpy(s, v[i - 1].data, keep);
        for (size_t k = keep; k < len; k++) s[k] = (char)('a' + rng_next(rng) % (pattern == 1 ? 3 : 26));
        v[i] = (inlay_bytes){ s, len };
        used += len;
    }
    return used;
}

START_TEST(test_bytes_round_trip)
{
    const int pattern = _i;
    static inlay_bytes v[MAXN];
    static char pool[MAXN * 400];
    uint64_t rng = 31 + (uint64_t)pattern;
    static const size_t sizes[] = { 1, 2, 3, 31, 32, 33, 34, 127, 128, 129, 130, 1000, 5000 };
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const size_t n = sizes[k];
        make_strings(v, pool, n, pattern, &rng);
        char what[64];
        snprintf(what, sizeof what, "pattern %d n %zu", pattern, n);
        out.len = 0;
        ck_assert_int_eq(inl_delta_encode_length_bytes(&out, &alloc, v, n), 0);
        ck_assert_uint_eq(expect_length_bytes(out.data, out.len, v, n, what), out.len);
        out.len = 0;
        ck_assert_int_eq(inl_delta_encode_bytes(&out, &alloc, v, n), 0);
        expect_front(out.data, out.len, v, n, what);
    }
}
END_TEST

START_TEST(test_too_long)
{
    /* a length past INT32_MAX is refused before anything is read or written */
    static const char byte = 'x';
    inlay_bytes v[2] = { { &byte, 1 }, { &byte, (size_t)INT32_MAX + 1 } };
    ck_assert_int_eq(inl_buf_append(&out, &alloc, "ab", 2), 0);
    ck_assert_int_eq(inl_delta_encode_length_bytes(&out, &alloc, v, 2), -1);
    ck_assert_int_eq(inl_delta_encode_bytes(&out, &alloc, v, 2), -1);
    ck_assert_uint_eq(out.len, 2);
}
END_TEST

/* ---- out of memory -------------------------------------------------------------- */

/* Fail the Nth request for memory and every one after, for every N until
 * the call succeeds: each failure returns -1, keeps what the buffer held
 * and leaks nothing. */
START_TEST(test_nomem)
{
    static int32_t v32[3000];
    static int64_t v64[3000];
    static inlay_bytes s[3000];
    static char text[3000][12];
    uint64_t rng = 9;
    for (size_t i = 0; i < 3000; i++) {
        v32[i] = (int32_t)rng_next(&rng);
        v64[i] = (int64_t)rng_next(&rng);
        snprintf(text[i], sizeof text[i], "k%010zu", i * 7919 % 100000);
        s[i] = bytes_of(text[i]);
    }
    for (int which = 0; which < 4; which++) {
        int done = 0;
        for (unsigned long fail = 2; !done; fail++) {
            test_alloc ta = { .fail_at = fail, .fail_after = true };
            inlay_allocator a = test_allocator(&ta);
            buf b = { 0 };
            ck_assert_int_eq(inl_buf_append(&b, &a, "xyz", 3), 0);
            int rc = which == 0 ? inl_delta_encode_i32(&b, &a, v32, 3000)
                   : which == 1 ? inl_delta_encode_i64(&b, &a, v64, 3000)
                   : which == 2 ? inl_delta_encode_length_bytes(&b, &a, s, 3000)
                                : inl_delta_encode_bytes(&b, &a, s, 3000);
            if (rc == 0) {
                ck_assert_uint_eq(ta.refused, 0);
                done = 1;
            } else {
                ck_assert_int_eq(rc, -1);
                ck_assert_uint_gt(ta.refused, 0);
                ck_assert_uint_eq(b.len, 3);
                ck_assert_mem_eq(b.data, "xyz", 3);
            }
            inl_buf_free(&b, &a);
            ck_assert_no_leak(&ta);
            ck_assert_uint_lt(fail, 100);
        }
    }
}
END_TEST

static Suite *delta_suite(void)
{
    Suite *s = suite_create("delta");
    TCase *c;

    c = tcase_create("DELTA_BINARY_PACKED bytes");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_spec_example_1);
    tcase_add_test(c, test_spec_example_2);
    tcase_add_test(c, test_empty_and_one);
    tcase_add_test(c, test_all_equal);
    tcase_add_test(c, test_partial_miniblocks);
    tcase_add_test(c, test_block_boundaries);
    tcase_add_test(c, test_int64_extremes);
    tcase_add_test(c, test_int64_full_width);
    tcase_add_test(c, test_int32_extremes);
    tcase_add_test(c, test_appends);
    suite_add_tcase(s, c);

    c = tcase_create("DELTA_BINARY_PACKED round trip");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_set_timeout(c, 120);
    tcase_add_loop_test(c, test_round_trip_i64, 0, PATTERNS);
    tcase_add_loop_test(c, test_round_trip_i32, 0, PATTERNS);
    tcase_add_loop_test(c, test_every_width, 0, 65);
    suite_add_tcase(s, c);

    c = tcase_create("byte arrays");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_set_timeout(c, 60);
    tcase_add_test(c, test_length_spec_example);
    tcase_add_test(c, test_front_spec_example);
    tcase_add_test(c, test_bytes_empty);
    tcase_add_test(c, test_front_prefix_edges);
    tcase_add_test(c, test_front_flba);
    tcase_add_loop_test(c, test_bytes_round_trip, 0, 4);
    tcase_add_test(c, test_too_long);
    suite_add_tcase(s, c);

    c = tcase_create("out of memory");
    tcase_add_test(c, test_nomem);
    suite_add_tcase(s, c);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(delta_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
