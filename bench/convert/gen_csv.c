/*
 * bench_gen_csv — the CSV file the convert benchmark reads.
 *
 * Writes a header and N rows of
 *
 *     id,ts,category,value,flag
 *     0,2024-01-01T00:00:00.000000Z,c04_l6d6yvz3f1cggwvpb1ckyskjgskk,83.862971,false
 *
 *     id        0, 1, 2, ...
 *     ts        ISO 8601 UTC with microseconds, from 2024-01-01T00:00:00Z,
 *               advancing a random 0..1023 us per row
 *     category  one of 100 plain strings ([a-z0-9_], no quoting needed) of
 *               8..32 bytes, picked uniformly; the lengths are skewed long
 *               (32 - 24 (k/99)^4 for the k-th string, 27.5 bytes on
 *               average) so that a row averages about 80 bytes:
 *               10,000,000 rows make 807 MB
 *     value     uniform in [0, 1000) on a grid of 10^-6, always printed with
 *               six decimals (the text is exact; a reader parses the nearest
 *               double)
 *     flag      true or false at random
 *
 * The data comes from xoshiro256** (bench_util.h) with a fixed seed, so the
 * same N and seed give the same bytes. Digits are produced by hand into one
 * reused output buffer, which writes 10,000,000 rows in about a second (a
 * Lua generator built on string.format took 3 s per million rows).
 *
 * The last line of output is a machine-readable "RESULT key=value ..." line
 * (read by bench/convert/run.sh).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define BENCH_NAME "bench_gen_csv"
/* bench_util.h is shared by all the benchmarks; this one needs only the
   PRNG and the helpers, not the counting allocator or the interposer. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "bench_util.h"
#pragma GCC diagnostic pop

#define NUM_CATEGORIES 100
#define CATEGORY_MIN 8
#define CATEGORY_MAX 32
#define TS_START 1704067200000000LL /* 2024-01-01T00:00:00Z in microseconds */
#define OUT_SIZE (4u << 20)
#define ROW_MAX 128 /* longest row: 20 + 27 + 32 + 10 + 5 + 5 separators, rounded up */

static char category_text[NUM_CATEGORIES][CATEGORY_MAX + 1];
static size_t category_len[NUM_CATEGORIES];

/* Uniform in [0, n) for n < 2^32 (Lemire's multiply-shift, no division). */
static inline uint32_t below(uint32_t x32, uint32_t n)
{
    return (uint32_t)(((uint64_t)x32 * n) >> 32);
}

/* 100 distinct strings, the same for every seed; the c%02d_ prefix keeps
   them distinct. */
static void make_categories(void)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789_";
    const uint64_t k_max4 = 99ull * 99 * 99 * 99;
    rng r;
    rng_seed(&r, 0xca7e60e1u);
    for (uint64_t k = 0; k < NUM_CATEGORIES; k++) {
        size_t len = CATEGORY_MAX - (size_t)((CATEGORY_MAX - CATEGORY_MIN) * k * k * k * k / k_max4);
        int p = snprintf(category_text[k], sizeof category_text[k], "c%02d_", (int)k);
        for (size_t j = (size_t)p; j < len; j++)
            category_text[k][j] = alphabet[below((uint32_t)rng_next(&r), sizeof alphabet - 1)];
        category_len[k] = len;
    }
}

/* Writes v in decimal at p; returns the end. */
static inline char *put_u64(char *p, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

/* Writes v in exactly `width` digits, zero-padded. */
static inline char *put_fixed(char *p, uint32_t v, int width)
{
    for (int i = width - 1; i >= 0; i--) {
        p[i] = (char)('0' + v % 10);
        v /= 10;
    }
    return p + width;
}

/* "YYYY-MM-DDTHH:MM:SS" for a count of seconds since 1970 (Howard Hinnant's
   days_from_civil inverse; valid for any date after 1970). */
static void format_second(char out[19], int64_t secs)
{
    int64_t days = secs / 86400, sod = secs % 86400;
    int64_t z = days + 719468, era = z / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1;
    int64_t m = mp < 10 ? mp + 3 : mp - 9;
    int64_t y = yoe + era * 400 + (m <= 2);
    put_fixed(out, (uint32_t)y, 4);
    out[4] = '-';
    put_fixed(out + 5, (uint32_t)m, 2);
    out[7] = '-';
    put_fixed(out + 8, (uint32_t)d, 2);
    out[10] = 'T';
    put_fixed(out + 11, (uint32_t)(sod / 3600), 2);
    out[13] = ':';
    put_fixed(out + 14, (uint32_t)(sod / 60 % 60), 2);
    out[16] = ':';
    put_fixed(out + 17, (uint32_t)(sod % 60), 2);
}

static void flush(FILE *f, const char *buf, size_t n)
{
    if (fwrite(buf, 1, n, f) != n)
        die("write failed");
}

/* Writes the header and `rows` rows to f; returns the bytes written. */
static uint64_t generate(FILE *f, uint64_t rows, uint64_t seed)
{
    static char buf[OUT_SIZE];
    static const char header[] = "id,ts,category,value,flag\n";
    char second[19];
    int64_t ts = TS_START, second_of = -1;
    uint64_t total = 0;
    size_t n = 0;
    rng r;
    rng_seed(&r, seed);

    memcpy(buf, header, sizeof header - 1);
    n = sizeof header - 1;
    for (uint64_t id = 0; id < rows; id++) {
        if (n > OUT_SIZE - ROW_MAX) {
            flush(f, buf, n);
            total += n;
            n = 0;
        }
        uint64_t x = rng_next(&r), y = rng_next(&r);
        char *p = buf + n;
        p = put_u64(p, id);
        *p++ = ',';
        if (ts / 1000000 != second_of) {
            second_of = ts / 1000000;
            format_second(second, second_of);
        }
        memcpy(p, second, sizeof second);
        p += sizeof second;
        *p++ = '.';
        p = put_fixed(p, (uint32_t)(ts % 1000000), 6);
        *p++ = 'Z';
        *p++ = ',';
        uint32_t k = below((uint32_t)x, NUM_CATEGORIES);
        memcpy(p, category_text[k], category_len[k]);
        p += category_len[k];
        *p++ = ',';
        uint32_t micro = below((uint32_t)(x >> 32), 1000000000u); /* value x 10^6 */
        p = put_u64(p, micro / 1000000);
        *p++ = '.';
        p = put_fixed(p, micro % 1000000, 6);
        if (y & 1) {
            memcpy(p, ",true\n", 6);
            p += 6;
        } else {
            memcpy(p, ",false\n", 7);
            p += 7;
        }
        n = (size_t)(p - buf);
        ts += (int64_t)((y >> 1) & 1023);
    }
    flush(f, buf, n);
    return total + n;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: bench_gen_csv [--rows N] [--seed S] --out PATH\n"
               "  --rows N    data rows after the header (default 10000000)\n"
               "  --seed S    the PRNG seed (default 42)\n"
               "  --out PATH  the CSV file to write (- for stdout)\n");
}

int main(int argc, char **argv)
{
    uint64_t rows = 10000000, seed = 42;
    const char *path = NULL;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (i + 1 >= argc) {
            usage(stderr);
            return 2;
        }
        const char *v = argv[++i];
        if (!strcmp(a, "--rows"))
            rows = parse_u64(a, v);
        else if (!strcmp(a, "--seed"))
            seed = parse_u64(a, v);
        else if (!strcmp(a, "--out"))
            path = v;
        else {
            usage(stderr);
            return 2;
        }
    }
    if (!path) {
        usage(stderr);
        return 2;
    }

    make_categories();
    FILE *f = strcmp(path, "-") ? fopen(path, "wb") : stdout;
    if (!f) {
        perror(path);
        return 1;
    }
    double t0 = now();
    uint64_t bytes = generate(f, rows, seed);
    if (f != stdout ? fclose(f) != 0 : fflush(f) != 0)
        die("write failed");
    double t = now() - t0;

    double cat_avg = 0;
    for (int k = 0; k < NUM_CATEGORIES; k++)
        cat_avg += (double)category_len[k] / NUM_CATEGORIES;
    fprintf(f == stdout ? stderr : stdout,
            "bench_gen_csv: %" PRIu64 " rows, %" PRIu64 " bytes (%.1f MB, %.2f B/row, categories %.2f B "
            "on average) in %.3f s (%.0f MB/s)\n"
            "RESULT rows=%" PRIu64 " bytes=%" PRIu64 " seconds=%.6f seed=%" PRIu64 "\n",
            rows, bytes, bytes / 1e6, (double)bytes / (double)(rows ? rows : 1), cat_avg, t, bytes / 1e6 / t, rows,
            bytes, t, seed);
    return 0;
}
