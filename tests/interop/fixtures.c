/*
 * interop_fixtures OUTDIR
 *
 * Writes a matrix of Parquet files with libinlay and, beside each
 * NAME.parquet, a NAME.json that records exactly what was written. The
 * checker (check.mjs) reads every file back with independent readers and
 * compares what they see with the JSON.
 *
 * The JSON of one file:
 *
 *   {
 *     "name": "int64__dict__zstd",
 *     "rows": 2500,                       rows written
 *     "compression": "ZSTD",              the writer's codec (options.compression):
 *                                         "UNCOMPRESSED", "SNAPPY", "GZIP",
 *                                         "BROTLI", "ZSTD" or "LZ4_RAW"
 *     "compression_level": 3,             its level as resolved (the codec's
 *                                         default for INLAY_LEVEL_DEFAULT, 0
 *                                         for codecs without levels)
 *     "encoding": "dictionary",           the file's design: "dictionary" |
 *                                         "plain" | "fallback" | "auto" |
 *                                         "delta" | "delta_byte_array" |
 *                                         "byte_stream_split" | "rle" | "mixed"
 *     "options": { page_rows, page_bytes, row_group_rows, dictionary_bytes,
 *                  page_version, column_at_a_time, append_columns, memory_sink,
 *                  min_compression_gain },
 *     "expect": { "row_groups": 3 },      row groups the options imply
 *     "writer": { rows, row_groups, bytes },  what the writer reported
 *     "created_by": "inlay version 0.1.0",
 *     "key_value_metadata": { ... },      only when some was written
 *     "columns": [ { "name", "type", type parameters, "nullable",
 *                    "all_null", "encoding", "pages", "codec", "level",
 *                    "chunk_codecs", "stats", "values": [ ... ] } ]
 *   }
 *
 * A column's "codec" and "level" are what it compresses with (its own
 * inlay_column_options.compression, or the writer's), the level resolved as
 * above. "chunk_codecs", one per row group, is the codec the footer must
 * give each chunk, where the options or the data settle it: the column's
 * codec when it is UNCOMPRESSED, with page_version 2 (pages decide one by
 * one, is_compressed), with min_compression_gain 0, or for text built to
 * shrink far past any gain; "UNCOMPRESSED" for random bits in v1 pages
 * under a gain. Absent, the min_compression_gain rule decides chunk by
 * chunk from the first data page and check.mjs checks the rule. "stats" is
 * what inlay_writer_column_stats said after close: {codec, level,
 * uncompressed_bytes, compressed_bytes, chunks, chunks_uncompressed}.
 *
 * A column's "encoding" is its inlay_encoding_choice: "auto", "plain",
 * "dictionary", "delta", "delta_byte_array", "byte_stream_split" or "rle".
 * "pages" is what its data implies for the data pages: "dictionary" (every
 * chunk dictionary encoded throughout), "fallback" (dictionary first, and at
 * least one chunk falls back mid-chunk), "value" (no dictionary: every page
 * in the choice's value encoding) or "any" (only the general rules). Some
 * columns add "incompressible": true (ZSTD cannot shrink its pages: with
 * page_version 2 some are stored raw), "compressible": true (ZSTD shrinks
 * them: with page_version 2 some are stored compressed), "features": [...] (page contents the
 * column is built to produce, see check.mjs) or "time_source": "s" (appended
 * through inlay_writer_append_time from that unit; the values are the
 * converted ones).
 *
 * Type tags and their parameters: boolean; int8 int16 int32 int64 uint8
 * uint16 uint32 uint64; float; double; string; binary; enum; json; uuid;
 * fixed (width); float16; date; time (unit "ms"|"us"|"ns", utc);
 * timestamp (unit, utc); decimal (precision, scale, physical "int32" |
 * "int64" | "fixed", width).
 *
 * Canonical values (null is JSON null):
 *   boolean                  true / false
 *   integers of every width  decimal string ("-128", "18446744073709551615")
 *   date, time, timestamp    decimal string of the stored integer (days, or
 *                            the column's unit since midnight / the epoch)
 *   float, double, float16   JSON number, or "NaN", "Infinity", "-Infinity",
 *                            "-0"; a float is printed with 9 significant
 *                            digits, so the reader's value v must satisfy
 *                            Math.fround(expected) === v
 *   string, enum, json       JSON string (the exact UTF-8 text)
 *   binary, fixed            lowercase hex of the bytes
 *   uuid                     lowercase 8-4-4-4-12 text
 *   decimal                  exact decimal text with exactly `scale`
 *                            fractional digits ("-123.45", "0.0500")
 *
 * The matrix: every type x {dictionary, plain, fallback} x {UNCOMPRESSED,
 * ZSTD} (booleans: auto and plain), and every type x each value encoding
 * that applies to it (delta, delta_byte_array, byte_stream_split; rle for
 * booleans) x {UNCOMPRESSED, ZSTD}; each file with a required column, an
 * optional one whose nulls come as definition levels, one whose nulls come
 * as validity bitmaps (null slots holding junk), and an all-null one; small
 * pages and row groups; nulls at the start, the end, scattered and in a run
 * of whole pages; uneven append batches, round robin over the columns,
 * column after column, or through inlay_writer_append_columns. Fallback
 * files choose AUTO for two columns and DICTIONARY for the third. The value
 * encodings get runs of equal values, constant steps and shared prefixes
 * between random stretches.
 *
 * Then Data Page V2 files: per encoding design x codec, every type the
 * encoding applies to side by side (required and optional), all-null
 * columns, a column of random bits that ZSTD cannot shrink and one of text
 * it shrinks well. Files of DELTA_BINARY_PACKED / DELTA_BYTE_ARRAY edge data
 * (64- and 32-bit extremes and deltas that overflow, runs, shared prefixes
 * of no and of full length) with 1, 31, 33, 127 and 129 rows per page.
 * Files written through inlay_writer_append_time. Byte-array files whose
 * first pages are all null, with the delta encodings. Files with every type
 * side by side (one through the memory sink, one with key-value metadata,
 * one row, plain), one of float zeros and NaNs, and one with no rows.
 * Nested files: lists, a struct, a map and a list of lists, their leaves
 * appended with explicit definition and repetition levels, under each page
 * version, codec and several encodings (their JSON, with "nested": true, is
 * described in the section "Nested files" below). Shredded files: lists of
 * structs, a struct holding a list, a map of lists, a list of lists and a
 * struct of structs, built as Arrow arrays and appended through
 * inlay_writer_append_array (section "Shredded files"; the same JSON).
 * Codec files (section "Codecs"): every codec x page version, flat (several
 * types with nulls, text every codec shrinks, random bits none does) and
 * nested, each codec at its default level under the default
 * min_compression_gain and at another level with no gain; files whose
 * columns have codecs and levels of their own; and files of random bits,
 * uniform doubles, text and integers under min_compression_gain 0, the
 * default, and 0.5, with v1 and v2 pages.
 *
 * Everything is derived from a deterministic PRNG seeded by the file name,
 * so the files are the same on every run.
 *
 * Exit status: 0; 1 when libinlay failed on some files (each is named on
 * stderr with the failing call, and left out; the others are written); 2 on
 * a usage or internal error.
 */
#include <inlay.h>

#include <errno.h>
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sbuf.h"

/* INLAY_FIXTURE_THREADS: the writers' thread count (0: the default), for
 * the test that compares the files written at several counts. */
static int fixture_threads(void)
{
    const char *t = getenv("INLAY_FIXTURE_THREADS");
    return t ? atoi(t) : 0;
}

/*----------------------------------------------------------------------
 *  Small utilities
 *--------------------------------------------------------------------*/

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("interop_fixtures: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2); /* 1 means: libinlay failed on some files, the others were written */
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p)
        die("out of memory");
    return p;
}

/* An arena for the bytes of generated values; freed per file. */
typedef struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    unsigned char data[];
} arena_block;

static arena_block *g_arena;

static void *arena_alloc(size_t n)
{
    if (n == 0)
        n = 1;
    n = (n + 7) & ~(size_t)7;
    if (!g_arena || g_arena->cap - g_arena->used < n) {
        size_t cap = n > 65536 ? n : 65536;
        arena_block *b = xmalloc(sizeof *b + cap);
        b->next = g_arena;
        b->used = 0;
        b->cap = cap;
        g_arena = b;
    }
    void *p = g_arena->data + g_arena->used;
    g_arena->used += n;
    return p;
}

static void arena_reset(void)
{
    while (g_arena) {
        arena_block *n = g_arena->next;
        free(g_arena);
        g_arena = n;
    }
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        die("cannot open %s: %s", path, strerror(errno));
    if (len && fwrite(data, 1, len, f) != len)
        die("cannot write %s", path);
    if (fclose(f) != 0)
        die("cannot close %s", path);
}

/*----------------------------------------------------------------------
 *  Deterministic PRNG: xoshiro256** seeded by splitmix64
 *--------------------------------------------------------------------*/

typedef struct rng {
    uint64_t s[4];
} rng;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void rng_seed_str(rng *r, const char *str)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)str; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&h);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rnext(rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Uniform in [0, n), n > 0. */
static uint64_t rbelow(rng *r, uint64_t n) { return rnext(r) % n; }

/* Uniform in [lo, hi]. */
static int64_t rrange(rng *r, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
    uint64_t v = span ? rnext(r) % span : rnext(r);
    return (int64_t)((uint64_t)lo + v);
}

static bool rchance(rng *r, unsigned percent) { return rbelow(r, 100) < percent; }

/*----------------------------------------------------------------------
 *  Types under test
 *--------------------------------------------------------------------*/

enum kind {
    K_BOOL, K_INT, K_FLOAT, K_DOUBLE, K_STRING, K_BINARY, K_ENUM, K_JSON,
    K_UUID, K_FIXED, K_F16, K_DATE, K_TIME, K_TS, K_DEC
};

typedef struct tspec {
    char tag[40];
    enum kind kind;
    inlay_type type;
    int bits;          /* K_INT */
    bool is_signed;    /* K_INT */
    inlay_time_unit unit;
    bool utc;
    int precision, scale, width; /* K_DEC (width for FIXED), K_FIXED */
} tspec;

#define MAX_TYPES 64
static tspec g_types[MAX_TYPES];
static int g_ntypes;

static tspec *add_type(const char *tag, enum kind k, inlay_type t)
{
    if (g_ntypes == MAX_TYPES)
        die("too many types");
    tspec *s = &g_types[g_ntypes++];
    memset(s, 0, sizeof *s);
    snprintf(s->tag, sizeof s->tag, "%s", tag);
    s->kind = k;
    s->type = t;
    return s;
}

static const char *unit_name(inlay_time_unit u)
{
    return u == INLAY_MILLIS ? "ms" : u == INLAY_MICROS ? "us" : "ns";
}

static void build_types(void)
{
    add_type("boolean", K_BOOL, inlay_type_boolean());
    static const int widths[] = {8, 16, 32, 64};
    for (int sgn = 1; sgn >= 0; sgn--) {
        for (int i = 0; i < 4; i++) {
            char tag[16];
            snprintf(tag, sizeof tag, "%sint%d", sgn ? "" : "u", widths[i]);
            tspec *t = add_type(tag, K_INT, inlay_type_int(widths[i], sgn));
            t->bits = widths[i];
            t->is_signed = sgn;
        }
    }
    add_type("float", K_FLOAT, inlay_type_float());
    add_type("double", K_DOUBLE, inlay_type_double());
    add_type("string", K_STRING, inlay_type_string());
    add_type("binary", K_BINARY, inlay_type_binary());
    add_type("enum", K_ENUM, inlay_type_enum());
    add_type("json", K_JSON, inlay_type_json());
    add_type("uuid", K_UUID, inlay_type_uuid())->width = 16;
    add_type("fixed7", K_FIXED, inlay_type_fixed(7))->width = 7;
    add_type("float16", K_F16, inlay_type_float16())->width = 2;
    add_type("date", K_DATE, inlay_type_date());
    for (int ts = 0; ts < 2; ts++) {
        for (int u = 0; u < 3; u++) {
            for (int utc = 1; utc >= 0; utc--) {
                char tag[40];
                snprintf(tag, sizeof tag, "%s_%s_%s", ts ? "timestamp" : "time",
                         unit_name((inlay_time_unit)u), utc ? "utc" : "local");
                inlay_type it = ts ? inlay_type_timestamp((inlay_time_unit)u, utc)
                                   : inlay_type_time((inlay_time_unit)u, utc);
                tspec *t = add_type(tag, ts ? K_TS : K_TIME, it);
                t->unit = (inlay_time_unit)u;
                t->utc = utc;
            }
        }
    }
    static const struct { int p, s; inlay_physical phys; int w; const char *tag; } decs[] = {
        {9, 2, INLAY_INT32, 0, "decimal_9_2_int32"},
        {4, 4, INLAY_INT32, 0, "decimal_4_4_int32"},
        {18, 4, INLAY_INT64, 0, "decimal_18_4_int64"},
        {38, 10, INLAY_FIXED_LEN_BYTE_ARRAY, 16, "decimal_38_10_fixed16"},
        {11, 0, INLAY_FIXED_LEN_BYTE_ARRAY, 5, "decimal_11_0_fixed5"},
    };
    for (size_t i = 0; i < sizeof decs / sizeof decs[0]; i++) {
        tspec *t = add_type(decs[i].tag, K_DEC,
                            inlay_type_decimal(decs[i].p, decs[i].s, decs[i].phys, decs[i].w));
        t->precision = decs[i].p;
        t->scale = decs[i].s;
        t->width = decs[i].w;
    }
}

static inlay_physical phys_of(const tspec *t) { return t->type.physical; }

static void emit_type(sbuf *s, const tspec *t)
{
    switch (t->kind) {
    case K_BOOL: sb_puts(s, "\"type\":\"boolean\""); break;
    case K_INT:
        sb_printf(s, "\"type\":\"%sint%d\"", t->is_signed ? "" : "u", t->bits);
        break;
    case K_FLOAT: sb_puts(s, "\"type\":\"float\""); break;
    case K_DOUBLE: sb_puts(s, "\"type\":\"double\""); break;
    case K_STRING: sb_puts(s, "\"type\":\"string\""); break;
    case K_BINARY: sb_puts(s, "\"type\":\"binary\""); break;
    case K_ENUM: sb_puts(s, "\"type\":\"enum\""); break;
    case K_JSON: sb_puts(s, "\"type\":\"json\""); break;
    case K_UUID: sb_puts(s, "\"type\":\"uuid\""); break;
    case K_FIXED: sb_printf(s, "\"type\":\"fixed\",\"width\":%d", t->width); break;
    case K_F16: sb_puts(s, "\"type\":\"float16\""); break;
    case K_DATE: sb_puts(s, "\"type\":\"date\""); break;
    case K_TIME:
    case K_TS:
        sb_printf(s, "\"type\":\"%s\",\"unit\":\"%s\",\"utc\":%s",
                  t->kind == K_TS ? "timestamp" : "time", unit_name(t->unit),
                  t->utc ? "true" : "false");
        break;
    case K_DEC:
        sb_printf(s, "\"type\":\"decimal\",\"precision\":%d,\"scale\":%d,\"physical\":\"%s\"",
                  t->precision, t->scale,
                  phys_of(t) == INLAY_INT32 ? "int32" : phys_of(t) == INLAY_INT64 ? "int64" : "fixed");
        if (phys_of(t) == INLAY_FIXED_LEN_BYTE_ARRAY)
            sb_printf(s, ",\"width\":%d", t->width);
        break;
    }
}

/*----------------------------------------------------------------------
 *  Values
 *--------------------------------------------------------------------*/

typedef struct cell {
    bool null;
    bool b;
    int32_t i32;
    int64_t i64;
    float f;
    double d;
    const unsigned char *bytes;
    size_t len;
    int64_t src;       /* inlay_writer_append_time's input, for those columns */
} cell;

static void set_bytes(cell *c, const void *p, size_t n)
{
    unsigned char *q = arena_alloc(n);
    if (n)
        memcpy(q, p, n);
    c->bytes = q;
    c->len = n;
}

static void set_str(cell *c, const char *s) { set_bytes(c, s, strlen(s)); }

/* A decimal of up to `precision` digits as an exact string of digits with a
 * sign, stored for the physical type. */
static void set_decimal_digits(const tspec *t, cell *c, bool neg, const char *digits)
{
    /* strip leading zeros */
    while (digits[0] == '0' && digits[1])
        digits++;
    if (strcmp(digits, "0") == 0)
        neg = false;
    if (phys_of(t) == INLAY_INT32 || phys_of(t) == INLAY_INT64) {
        int64_t v = 0;
        for (const char *p = digits; *p; p++)
            v = v * 10 + (*p - '0');
        if (neg)
            v = -v;
        c->i32 = (int32_t)v;
        c->i64 = v;
        return;
    }
    /* big-endian magnitude, then two's complement */
    int w = t->width;
    unsigned char *b = arena_alloc((size_t)w);
    memset(b, 0, (size_t)w);
    for (const char *p = digits; *p; p++) {
        unsigned carry = (unsigned)(*p - '0');
        for (int i = w - 1; i >= 0; i--) {
            unsigned v = b[i] * 10u + carry;
            b[i] = (unsigned char)(v & 0xff);
            carry = v >> 8;
        }
        if (carry)
            die("decimal digits overflow width %d", w);
    }
    if (neg) {
        unsigned carry = 1;
        for (int i = w - 1; i >= 0; i--) {
            unsigned v = (unsigned)(unsigned char)~b[i] + carry;
            b[i] = (unsigned char)(v & 0xff);
            carry = v >> 8;
        }
    }
    c->bytes = b;
    c->len = (size_t)w;
}

static int64_t time_units_per_second(inlay_time_unit u)
{
    return u == INLAY_MILLIS ? 1000 : u == INLAY_MICROS ? 1000000 : 1000000000;
}

static void put_utf8_random(rng *r, char *buf, size_t *n, size_t max_chars)
{
    static const char *const pieces[] = {
        "a", "b", "c", "x", "y", "z", "Q", "0", "7", " ", "-", "_", ".", "é", "ß", "ø",
        "Ж", "中", "文", "日", "€", "✓", "😀", "🦆", "\"", "\\", "\t",
    };
    size_t chars = (size_t)rbelow(r, max_chars + 1);
    for (size_t i = 0; i < chars; i++) {
        const char *p = pieces[rbelow(r, sizeof pieces / sizeof pieces[0])];
        size_t l = strlen(p);
        memcpy(buf + *n, p, l);
        *n += l;
    }
}

/* Edge values of a type: returns false once idx is past the last one. */
static bool gen_edge(const tspec *t, int idx, cell *c)
{
    memset(c, 0, sizeof *c);
    switch (t->kind) {
    case K_BOOL:
        if (idx > 1)
            return false;
        c->b = idx == 1;
        return true;
    case K_INT: {
        int64_t v;
        if (t->is_signed) {
            int64_t mx = t->bits == 64 ? INT64_MAX : (int64_t)((1ull << (t->bits - 1)) - 1);
            int64_t mn = -mx - 1;
            int64_t e[] = {mn, mx, 0, -1, 1, mn + 1, mx - 1};
            if (idx >= (int)(sizeof e / sizeof e[0]))
                return false;
            v = e[idx];
        } else {
            uint64_t mx = t->bits == 64 ? UINT64_MAX : (1ull << t->bits) - 1;
            uint64_t e[] = {mx, 0, 1, mx - 1, mx >> 1, (mx >> 1) + 1};
            if (idx >= (int)(sizeof e / sizeof e[0]))
                return false;
            v = (int64_t)e[idx];
        }
        c->i64 = v;
        c->i32 = (int32_t)(uint32_t)(uint64_t)v;
        return true;
    }
    case K_FLOAT: {
        float e[] = {0.0f, -0.0f, NAN, INFINITY, -INFINITY, FLT_MAX, -FLT_MAX,
                     FLT_MIN, -FLT_MIN, 1.4e-45f, 1.0f, -1.5f, 0.1f, 16777217.0f};
        if (idx >= (int)(sizeof e / sizeof e[0]))
            return false;
        c->f = e[idx];
        return true;
    }
    case K_DOUBLE: {
        double e[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, DBL_MAX, -DBL_MAX,
                      DBL_MIN, -DBL_MIN, 4.9406564584124654e-324, 1.0, -1.5, 0.1,
                      9007199254740993.0, 1e300, -1e-300};
        if (idx >= (int)(sizeof e / sizeof e[0]))
            return false;
        c->d = e[idx];
        return true;
    }
    case K_STRING: {
        static const char *const e[] = {
            "", "a", "é", "日本語のテキスト", "emoji 😀🦆 mix", "quote \" backslash \\ tab \t nl \n",
            "ctrl \x01\x1f", "Ünïcödé ßtring ✓", " leading and trailing ",
        };
        if (idx < (int)(sizeof e / sizeof e[0])) {
            set_str(c, e[idx]);
            return true;
        }
        if (idx == (int)(sizeof e / sizeof e[0])) { /* a long one */
            char buf[512];
            size_t n = 0;
            for (int i = 0; i < 60; i++) {
                memcpy(buf + n, "long✓", 7);
                n += 7;
            }
            set_bytes(c, buf, n);
            return true;
        }
        return false;
    }
    case K_BINARY: {
        static const unsigned char b3[] = {0xff, 0x00, 0x80};
        static const unsigned char b1[] = {0x00};
        static const unsigned char b4[] = {0xde, 0xad, 0xbe, 0xef};
        switch (idx) {
        case 0: set_bytes(c, "", 0); return true;
        case 1: set_bytes(c, b1, 1); return true;
        case 2: set_bytes(c, b3, 3); return true;
        case 3: set_bytes(c, b4, 4); return true;
        case 4: {
            unsigned char buf[256];
            for (int i = 0; i < 256; i++)
                buf[i] = (unsigned char)i;
            set_bytes(c, buf, 256);
            return true;
        }
        default: return false;
        }
    }
    case K_ENUM: {
        static const char *const e[] = {"RED", "GREEN", "BLUE", "", "GRÜN", "紅"};
        if (idx >= (int)(sizeof e / sizeof e[0]))
            return false;
        set_str(c, e[idx]);
        return true;
    }
    case K_JSON: {
        static const char *const e[] = {
            "{}", "[]", "null", "0", "-1.5e3", "\"text\"", "true",
            "{\"a\":[1,2,{\"b\":null}],\"ü\":\"✓\"}", "[\"x\",{\"y\":[]}]",
        };
        if (idx >= (int)(sizeof e / sizeof e[0]))
            return false;
        set_str(c, e[idx]);
        return true;
    }
    case K_UUID:
    case K_FIXED: {
        unsigned char buf[16];
        int w = t->width;
        if (idx == 0)
            memset(buf, 0, sizeof buf);
        else if (idx == 1)
            memset(buf, 0xff, sizeof buf);
        else if (idx == 2) {
            static const unsigned char u[16] = {0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3,
                                                0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40, 0x00};
            memcpy(buf, u, 16);
        } else if (idx == 3) {
            for (int i = 0; i < 16; i++)
                buf[i] = (unsigned char)(i * 17);
        } else
            return false;
        set_bytes(c, buf, (size_t)w);
        return true;
    }
    case K_F16: {
        static const uint16_t e[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7bff, 0xfbff,
                                     0x0001, 0x8001, 0x0400, 0x3c00, 0xbc00, 0x3555, 0x03ff};
        if (idx >= (int)(sizeof e / sizeof e[0]))
            return false;
        unsigned char b[2] = {(unsigned char)(e[idx] & 0xff), (unsigned char)(e[idx] >> 8)};
        set_bytes(c, b, 2);
        return true;
    }
    case K_DATE: {
        /* 0001-01-01 .. 9999-12-31, the epoch, around it, a leap day */
        static const int32_t e[] = {0, -1, 1, -719162, 2932896, 11016, 19782, -25567};
        if (idx >= (int)(sizeof e / sizeof e[0]))
            return false;
        c->i32 = e[idx];
        c->i64 = e[idx];
        return true;
    }
    case K_TIME: {
        int64_t ups = time_units_per_second(t->unit);
        int64_t e[] = {0, 86400 * ups - 1, 1, 43200 * ups, 3600 * ups + 1};
        if (idx >= (int)(sizeof e / sizeof e[0]))
            return false;
        c->i64 = e[idx];
        c->i32 = (int32_t)e[idx];
        return true;
    }
    case K_TS: {
        int64_t ups = time_units_per_second(t->unit);
        int64_t e[] = {0, -1, 1, 7000000000ll * ups, -7000000000ll * ups,
                       951782400ll * ups, 1700000000ll * ups + ups / 3};
        if (idx >= (int)(sizeof e / sizeof e[0]))
            return false;
        c->i64 = e[idx];
        return true;
    }
    case K_DEC: {
        char nines[64];
        memset(nines, '9', (size_t)t->precision);
        nines[t->precision] = 0;
        switch (idx) {
        case 0: set_decimal_digits(t, c, false, "0"); return true;
        case 1: set_decimal_digits(t, c, false, nines); return true;
        case 2: set_decimal_digits(t, c, true, nines); return true;
        case 3: set_decimal_digits(t, c, false, "1"); return true;
        case 4: set_decimal_digits(t, c, true, "1"); return true;
        case 5: set_decimal_digits(t, c, true, "5"); return true;
        case 6: {
            char d[64];
            int n = t->precision < 5 ? t->precision : 5;
            memcpy(d, "12345", (size_t)n);
            d[n] = 0;
            set_decimal_digits(t, c, true, d);
            return true;
        }
        default: return false;
        }
    }
    }
    return false;
}

/* A random value over the type's whole domain (high cardinality). */
static void gen_random(const tspec *t, rng *r, cell *c)
{
    memset(c, 0, sizeof *c);
    switch (t->kind) {
    case K_BOOL:
        c->b = rnext(r) & 1;
        break;
    case K_INT: {
        uint64_t bits = rnext(r);
        int64_t v;
        if (t->bits == 64)
            v = (int64_t)bits;
        else if (t->is_signed) {
            uint64_t m = 1ull << t->bits;
            uint64_t u = bits & (m - 1);
            v = u >= (m >> 1) ? (int64_t)u - (int64_t)m : (int64_t)u;
        } else
            v = (int64_t)(bits & ((1ull << t->bits) - 1));
        /* unsigned: lean to the top of the range */
        if (!t->is_signed && rchance(r, 30)) {
            uint64_t mx = t->bits == 64 ? UINT64_MAX : (1ull << t->bits) - 1;
            v = (int64_t)(mx - (rnext(r) % (t->bits == 8 ? 64 : t->bits == 16 ? 1000 : 100000)));
        }
        c->i64 = v;
        c->i32 = (int32_t)(uint32_t)(uint64_t)v;
        break;
    }
    case K_FLOAT:
        if (rchance(r, 50)) {
            uint32_t u = (uint32_t)rnext(r);
            memcpy(&c->f, &u, 4);
        } else {
            c->f = (float)rrange(r, -1000000, 1000000) / 64.0f;
        }
        break;
    case K_DOUBLE:
        if (rchance(r, 50)) {
            uint64_t u = rnext(r);
            memcpy(&c->d, &u, 8);
        } else {
            c->d = (double)rrange(r, -1000000000, 1000000000) / 1000.0;
        }
        break;
    case K_STRING: {
        char buf[4 * 60 + 8];
        size_t n = 0;
        put_utf8_random(r, buf, &n, rchance(r, 5) ? 60 : 12);
        set_bytes(c, buf, n);
        break;
    }
    case K_BINARY: {
        unsigned char buf[48];
        size_t n = (size_t)rbelow(r, sizeof buf + 1);
        for (size_t i = 0; i < n; i++)
            buf[i] = (unsigned char)rnext(r);
        set_bytes(c, buf, n);
        break;
    }
    case K_ENUM: {
        char buf[32];
        snprintf(buf, sizeof buf, "VALUE_%05u", (unsigned)rbelow(r, 100000));
        set_str(c, buf);
        break;
    }
    case K_JSON: {
        char name[4 * 12 + 8];
        size_t n = 0;
        put_utf8_random(r, name, &n, 8);
        name[n] = 0;
        /* keep it valid JSON: drop quote, backslash and control chars */
        for (size_t i = 0; i < n; i++)
            if (name[i] == '"' || name[i] == '\\' || name[i] == '\t')
                name[i] = '_';
        char buf[160];
        snprintf(buf, sizeof buf, "{\"id\":%u,\"name\":\"%s\",\"v\":[%d,%d.5],\"ok\":%s}",
                 (unsigned)rbelow(r, 1000000), name, (int)rrange(r, -999, 999),
                 (int)rrange(r, -99, 99), rchance(r, 50) ? "true" : "false");
        set_str(c, buf);
        break;
    }
    case K_UUID:
    case K_FIXED: {
        unsigned char buf[16];
        for (int i = 0; i < t->width; i++)
            buf[i] = (unsigned char)rnext(r);
        if (t->kind == K_UUID) { /* version 4, variant 1 */
            buf[6] = (unsigned char)((buf[6] & 0x0f) | 0x40);
            buf[8] = (unsigned char)((buf[8] & 0x3f) | 0x80);
        }
        set_bytes(c, buf, (size_t)t->width);
        break;
    }
    case K_F16: {
        uint16_t h = (uint16_t)rnext(r);
        unsigned char b[2] = {(unsigned char)(h & 0xff), (unsigned char)(h >> 8)};
        set_bytes(c, b, 2);
        break;
    }
    case K_DATE:
        c->i32 = (int32_t)rrange(r, -719162, 2932896);
        c->i64 = c->i32;
        break;
    case K_TIME:
        c->i64 = rrange(r, 0, 86400 * time_units_per_second(t->unit) - 1);
        c->i32 = (int32_t)c->i64;
        break;
    case K_TS: {
        int64_t ups = time_units_per_second(t->unit);
        c->i64 = rrange(r, -7000000000ll * ups, 7000000000ll * ups);
        break;
    }
    case K_DEC: {
        char d[64];
        int n = 1 + (int)rbelow(r, (uint64_t)t->precision);
        if (rchance(r, 40))
            n = t->precision;
        for (int i = 0; i < n; i++)
            d[i] = (char)('0' + rbelow(r, 10));
        d[n] = 0;
        set_decimal_digits(t, c, rchance(r, 50), d);
        break;
    }
    }
}

/* The range of an integer-backed type's values (as int64), or false for a
 * type that is not stored as an integer. */
static bool int_range(const tspec *t, int64_t *lo, int64_t *hi)
{
    switch (t->kind) {
    case K_INT:
        if (t->bits == 64) {
            *lo = INT64_MIN;
            *hi = INT64_MAX;
        } else if (t->is_signed) {
            *hi = (int64_t)((1ull << (t->bits - 1)) - 1);
            *lo = -*hi - 1;
        } else {
            *lo = 0;
            *hi = (int64_t)((1ull << t->bits) - 1);
        }
        return true;
    case K_DATE: *lo = -719162; *hi = 2932896; return true;
    case K_TIME: *lo = 0; *hi = 86400 * time_units_per_second(t->unit) - 1; return true;
    case K_TS: {
        int64_t ups = time_units_per_second(t->unit);
        *lo = -7000000000ll * ups;
        *hi = 7000000000ll * ups;
        return true;
    }
    case K_DEC: {
        if (phys_of(t) == INLAY_FIXED_LEN_BYTE_ARRAY)
            return false;
        int64_t m = 1;
        for (int i = 0; i < t->precision; i++)
            m *= 10;
        *lo = -(m - 1);
        *hi = m - 1;
        return true;
    }
    default: return false;
    }
}

static void set_int(cell *c, int64_t v)
{
    memset(c, 0, sizeof *c);
    c->i64 = v;
    c->i32 = (int32_t)(uint32_t)(uint64_t)v;
}

/* The first n of len bytes of a UTF-8 text, n moved back to a character. */
static size_t utf8_cut(const unsigned char *p, size_t n, size_t len)
{
    while (n > 0 && n < len && (p[n] & 0xc0) == 0x80)
        n--;
    return n;
}

/* A value near prev: a small step (or `step`, when non-zero) for numbers, a
 * shared prefix for byte strings, the same value for booleans. */
static void gen_near(const tspec *t, rng *r, const cell *prev, cell *c, int64_t step)
{
    int64_t lo, hi, v;
    if (int_range(t, &lo, &hi)) {
        int64_t d = step;
        if (!d) {
            int64_t m = (int64_t)1 << rbelow(r, 12);
            d = rrange(r, -m, m);
        }
        if (__builtin_add_overflow(prev->i64, d, &v) || v < lo || v > hi)
            gen_random(t, r, c);
        else
            set_int(c, v);
        return;
    }
    unsigned char buf[512];
    size_t n = 0;
    switch (t->kind) {
    case K_BOOL:
        memset(c, 0, sizeof *c);
        c->b = prev->b;
        return;
    case K_FLOAT:
    case K_DOUBLE: {
        double p = t->kind == K_FLOAT ? (double)prev->f : prev->d;
        if (!isfinite(p) || fabs(p) > 1e30) {
            gen_random(t, r, c);
            return;
        }
        double d = step ? (double)step / 8 : (double)rrange(r, -100, 100) / 16;
        memset(c, 0, sizeof *c);
        c->d = p + d;
        c->f = (float)(p + d);
        return;
    }
    case K_STRING:
        n = prev->len > 200 ? 0 : utf8_cut(prev->bytes, (size_t)rbelow(r, prev->len + 1), prev->len);
        memcpy(buf, prev->bytes, n);
        put_utf8_random(r, (char *)buf, &n, 6);
        memset(c, 0, sizeof *c);
        set_bytes(c, buf, n);
        return;
    case K_BINARY: {
        n = (size_t)rbelow(r, (prev->len < 40 ? prev->len : 40) + 1);
        memcpy(buf, prev->bytes, n);
        size_t more = (size_t)rbelow(r, 17);
        for (size_t i = 0; i < more; i++)
            buf[n++] = (unsigned char)rnext(r);
        memset(c, 0, sizeof *c);
        set_bytes(c, buf, n);
        return;
    }
    case K_UUID:
    case K_FIXED:
    case K_F16: {
        size_t w = (size_t)t->width, keep = (size_t)rbelow(r, w + 1);
        memcpy(buf, prev->bytes, keep);
        for (size_t i = keep; i < w; i++)
            buf[i] = (unsigned char)rnext(r);
        memset(c, 0, sizeof *c);
        set_bytes(c, buf, w);
        return;
    }
    default: /* enum, json, decimals on bytes: their random values share prefixes */
        gen_random(t, r, c);
        return;
    }
}

/* Stretches of random values (edges sprinkled in), runs of one value,
 * constant steps, and small steps or shared prefixes: what the delta, byte
 * stream split and RLE encodings are for. */
static void gen_structured(const tspec *t, cell *cells, size_t rows, const cell *pool, int nedges,
                           rng *r)
{
    size_t i = 0;
    while (i < rows) {
        size_t len = 1 + (size_t)rbelow(r, rchance(r, 30) ? 160 : 40);
        unsigned kind = (unsigned)rbelow(r, 4);
        int64_t step = 0;
        if (kind == 2)
            step = rchance(r, 20) ? 1 : rrange(r, -3000, 3000);
        if (kind == 2 && step == 0)
            step = -1;
        for (size_t j = 0; j < len && i < rows; j++, i++) {
            cell *c = &cells[i];
            if (i == 0 || kind == 0) {
                if (nedges && rchance(r, 6))
                    *c = pool[rbelow(r, (uint64_t)nedges)];
                else
                    gen_random(t, r, c);
            } else if (kind == 1) {
                *c = cells[i - 1];
            } else {
                gen_near(t, r, &cells[i - 1], c, step);
            }
        }
    }
}

/* Random bits that no compressor can shrink (a required column's values). */
static void gen_noise(const tspec *t, rng *r, cell *c)
{
    memset(c, 0, sizeof *c);
    switch (t->kind) {
    case K_BOOL: c->b = rnext(r) & 1; break;
    case K_DOUBLE: {
        uint64_t u = rnext(r);
        memcpy(&c->d, &u, 8);
        break;
    }
    case K_BINARY:
    case K_FIXED: {
        unsigned char buf[32];
        size_t n = t->kind == K_FIXED ? (size_t)t->width : sizeof buf;
        for (size_t i = 0; i < n; i++)
            buf[i] = (unsigned char)rnext(r);
        set_bytes(c, buf, n);
        break;
    }
    default: set_int(c, (int64_t)rnext(r)); break;
    }
}

/*----------------------------------------------------------------------
 *  Canonical JSON of a value
 *--------------------------------------------------------------------*/

static void emit_double(sbuf *s, double v, int digits)
{
    if (isnan(v))
        sb_puts(s, "\"NaN\"");
    else if (isinf(v))
        sb_puts(s, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    else if (v == 0 && signbit(v))
        sb_puts(s, "\"-0\"");
    else
        sb_printf(s, "%.*g", digits, v);
}

static double half_to_double(uint16_t h)
{
    int e = (h >> 10) & 0x1f, f = h & 0x3ff;
    double v;
    if (e == 0)
        v = ldexp((double)f, -24);
    else if (e == 31)
        v = f ? NAN : INFINITY;
    else
        v = ldexp((double)(f + 1024), e - 25);
    return (h & 0x8000) ? -v : v;
}

/* Big-endian two's complement bytes -> signed decimal digit string. */
static void be_twos_to_digits(const unsigned char *b, size_t w, bool *neg, char *out)
{
    unsigned char m[64];
    memcpy(m, b, w);
    *neg = (m[0] & 0x80) != 0;
    if (*neg) {
        unsigned carry = 1;
        for (size_t i = w; i-- > 0;) {
            unsigned v = (unsigned)(unsigned char)~m[i] + carry;
            m[i] = (unsigned char)(v & 0xff);
            carry = v >> 8;
        }
    }
    char rev[128];
    size_t nd = 0;
    for (;;) {
        bool zero = true;
        unsigned rem = 0;
        for (size_t i = 0; i < w; i++) {
            unsigned cur = rem * 256 + m[i];
            m[i] = (unsigned char)(cur / 10);
            rem = cur % 10;
            if (m[i])
                zero = false;
        }
        rev[nd++] = (char)('0' + rem);
        if (zero)
            break;
    }
    for (size_t i = 0; i < nd; i++)
        out[i] = rev[nd - 1 - i];
    out[nd] = 0;
}

static void emit_decimal_text(sbuf *s, bool neg, const char *digits, int scale)
{
    char buf[160];
    size_t nd = strlen(digits);
    size_t k = 0;
    if (neg && strcmp(digits, "0") != 0)
        buf[k++] = '-';
    if (scale == 0) {
        memcpy(buf + k, digits, nd);
        k += nd;
    } else {
        size_t need = (size_t)scale + 1; /* at least one integer digit */
        size_t pad = nd < need ? need - nd : 0;
        char full[160];
        memset(full, '0', pad);
        memcpy(full + pad, digits, nd);
        size_t nf = pad + nd;
        memcpy(buf + k, full, nf - (size_t)scale);
        k += nf - (size_t)scale;
        buf[k++] = '.';
        memcpy(buf + k, full + nf - (size_t)scale, (size_t)scale);
        k += (size_t)scale;
    }
    buf[k] = 0;
    sb_printf(s, "\"%s\"", buf);
}

static void emit_value(sbuf *s, const tspec *t, const cell *c)
{
    if (c->null) {
        sb_puts(s, "null");
        return;
    }
    switch (t->kind) {
    case K_BOOL: sb_puts(s, c->b ? "true" : "false"); break;
    case K_INT:
        if (t->is_signed)
            sb_printf(s, "\"%lld\"", (long long)c->i64);
        else if (t->bits == 64)
            sb_printf(s, "\"%llu\"", (unsigned long long)(uint64_t)c->i64);
        else
            sb_printf(s, "\"%lu\"", (unsigned long)(uint32_t)c->i32);
        break;
    case K_FLOAT: emit_double(s, (double)c->f, 9); break;
    case K_DOUBLE: emit_double(s, c->d, 17); break;
    case K_STRING:
    case K_ENUM:
    case K_JSON: sb_json_str(s, c->bytes, c->len); break;
    case K_BINARY:
    case K_FIXED: sb_hex(s, c->bytes, c->len); break;
    case K_UUID: {
        static const char hx[] = "0123456789abcdef";
        char u[40];
        size_t k = 0;
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10)
                u[k++] = '-';
            u[k++] = hx[c->bytes[i] >> 4];
            u[k++] = hx[c->bytes[i] & 15];
        }
        u[k] = 0;
        sb_printf(s, "\"%s\"", u);
        break;
    }
    case K_F16: emit_double(s, half_to_double((uint16_t)(c->bytes[0] | (c->bytes[1] << 8))), 17); break;
    case K_DATE: sb_printf(s, "\"%ld\"", (long)c->i32); break;
    case K_TIME:
    case K_TS: sb_printf(s, "\"%lld\"", (long long)c->i64); break;
    case K_DEC: {
        char digits[128];
        bool neg;
        if (phys_of(t) == INLAY_FIXED_LEN_BYTE_ARRAY) {
            be_twos_to_digits(c->bytes, c->len, &neg, digits);
        } else {
            int64_t v = phys_of(t) == INLAY_INT32 ? c->i32 : c->i64;
            neg = v < 0;
            snprintf(digits, sizeof digits, "%llu",
                     neg ? (unsigned long long)(-(uint64_t)v) : (unsigned long long)v);
        }
        emit_decimal_text(s, neg, digits, t->scale);
        break;
    }
    }
}

/*----------------------------------------------------------------------
 *  Codecs
 *--------------------------------------------------------------------*/

/* The codec's name as the format (and the JSON, and every reader) spells it;
 * a table of our own, not inlay_compression_name. */
static const char *codec_json(inlay_compression c)
{
    switch (c) {
    case INLAY_UNCOMPRESSED: return "UNCOMPRESSED";
    case INLAY_SNAPPY: return "SNAPPY";
    case INLAY_GZIP: return "GZIP";
    case INLAY_BROTLI: return "BROTLI";
    case INLAY_ZSTD: return "ZSTD";
    case INLAY_LZ4_RAW: return "LZ4_RAW";
    }
    return "?";
}

/* In file names. */
static const char *codec_short(inlay_compression c)
{
    switch (c) {
    case INLAY_UNCOMPRESSED: return "none";
    case INLAY_SNAPPY: return "snappy";
    case INLAY_GZIP: return "gzip";
    case INLAY_BROTLI: return "brotli";
    case INLAY_ZSTD: return "zstd";
    case INLAY_LZ4_RAW: return "lz4_raw";
    }
    return "?";
}

/* The level codec c compresses at when asked for `level`: the codec's
 * default (inlay.h's INLAY_DEFAULT_*_LEVEL) for INLAY_LEVEL_DEFAULT, 0 for
 * codecs without levels (what inlay_column_stats reports). */
static int codec_level(inlay_compression c, int level)
{
    if (c == INLAY_UNCOMPRESSED || c == INLAY_SNAPPY)
        return 0;
    if (level != INLAY_LEVEL_DEFAULT)
        return level;
    switch (c) {
    case INLAY_ZSTD: return INLAY_DEFAULT_ZSTD_LEVEL;
    case INLAY_GZIP: return INLAY_DEFAULT_GZIP_LEVEL;
    case INLAY_BROTLI: return INLAY_DEFAULT_BROTLI_LEVEL;
    case INLAY_LZ4_RAW: return INLAY_DEFAULT_LZ4_LEVEL;
    default: return 0;
    }
}

/* In file names: "default", "l9", "lm5" (level -5). */
static const char *level_short(int level, char *buf, size_t cap)
{
    if (level == INLAY_LEVEL_DEFAULT)
        snprintf(buf, cap, "default");
    else
        snprintf(buf, cap, "l%s%d", level < 0 ? "m" : "", level < 0 ? -level : level);
    return buf;
}

/* What a column's v1 chunks come to when min_compression_gain > 0 (its
 * "chunk_codecs" in the JSON): the rule decides and check.mjs checks the
 * rule (X_RULE), the data is built so that the codec pays (X_CODEC: text
 * that shrinks by far more than any gain asked) or cannot pay (X_RAW:
 * random bits, stored UNCOMPRESSED). */
enum expect { X_RULE, X_CODEC, X_RAW };

/* Every chunk's codec, when the options settle it: a codec-less column, v2
 * pages (they decide one by one, the chunk keeps its codec), no gain asked
 * (everything compressed), or data built for one outcome; NULL when the
 * rule decides from the first page (check.mjs checks the rule). */
static const char *chunk_expect(inlay_compression codec, int page_version, double gain, enum expect x)
{
    if (codec == INLAY_UNCOMPRESSED || page_version == 2 || gain <= 0 || x == X_CODEC)
        return codec_json(codec);
    return x == X_RAW ? "UNCOMPRESSED" : NULL;
}

static void emit_chunk_codecs(sbuf *s, const char *codec, size_t groups)
{
    if (!codec)
        return;
    sb_puts(s, ",\"chunk_codecs\":[");
    for (size_t g = 0; g < groups; g++)
        sb_printf(s, "%s\"%s\"", g ? "," : "", codec);
    sb_puts(s, "]");
}

/* What inlay_writer_column_stats said after close, as "stats". */
static void emit_column_stats(sbuf *s, const inlay_column_stats *st)
{
    sb_printf(s, ",\"stats\":{\"codec\":\"%s\",\"level\":%d,\"uncompressed_bytes\":%llu,"
                 "\"compressed_bytes\":%llu,\"chunks\":%llu,\"chunks_uncompressed\":%llu}",
              codec_json(st->compression), st->compression_level,
              (unsigned long long)st->uncompressed_bytes, (unsigned long long)st->compressed_bytes,
              (unsigned long long)st->chunks, (unsigned long long)st->chunks_uncompressed);
}

/*----------------------------------------------------------------------
 *  Columns of a file and how they are appended
 *--------------------------------------------------------------------*/

enum nullmode {
    NM_REQUIRED,   /* required column, levels NULL */
    NM_DEF,        /* optional, nulls given by def levels */
    NM_VALIDITY,   /* optional, nulls given by an Arrow-style validity bitmap */
};

/* What a column's data implies for its data pages ("pages" in the JSON). */
enum design { D_ANY, D_DICT, D_FALLBACK, D_VALUE };

typedef struct column {
    char name[48];
    const tspec *t;
    inlay_encoding_choice enc;
    enum nullmode nm;
    bool all_null;
    enum design design;
    bool incompressible;   /* ZSTD cannot shrink its pages */
    bool compressible;     /* ZSTD shrinks its pages */
    const char *features;  /* JSON array text of page features, or NULL */
    int time_source;       /* an inlay_unit: appended with append_time; -1: not */
    bool codec_set;        /* its own codec (inlay_column_options.compression), else the file's */
    inlay_compression codec;
    int level;             /* with codec_set: its level, or INLAY_LEVEL_DEFAULT */
    enum expect expect;
    inlay_column_stats stats;   /* inlay_writer_column_stats after close */
    cell *cells;
    size_t next;       /* rows appended so far */
    int index;         /* leaf index in the schema */
} column;

enum encmode { E_DICT, E_PLAIN, E_FALLBACK, E_AUTO, E_DELTA, E_DBA, E_BSS, E_RLE, E_MIXED };

static const char *encmode_name(enum encmode e)
{
    static const char *const n[] = {"dictionary", "plain", "fallback", "auto", "delta",
                                    "delta_byte_array", "byte_stream_split", "rle", "mixed"};
    return n[e];
}

static const char *encmode_short(enum encmode e)
{
    static const char *const n[] = {"dict", "plain", "fallback", "auto", "delta",
                                    "dba", "bss", "rle", "mixed"};
    return n[e];
}

static const char *choice_name(inlay_encoding_choice c)
{
    switch (c) {
    case INLAY_ENCODING_AUTO: return "auto";
    case INLAY_ENCODING_PLAIN: return "plain";
    case INLAY_ENCODING_DICTIONARY: return "dictionary";
    case INLAY_ENCODING_DELTA: return "delta";
    case INLAY_ENCODING_DELTA_BYTE_ARRAY: return "delta_byte_array";
    case INLAY_ENCODING_BYTE_STREAM_SPLIT: return "byte_stream_split";
    case INLAY_ENCODING_RLE: return "rle";
    }
    return "?";
}

/* Does the value encoding of mode em apply to type t? */
static bool encmode_applies(enum encmode em, const tspec *t)
{
    inlay_physical p = t->type.physical;
    bool integer = p == INLAY_INT32 || p == INLAY_INT64;
    bool bytes = p == INLAY_BYTE_ARRAY || p == INLAY_FIXED_LEN_BYTE_ARRAY;
    switch (em) {
    case E_DELTA: return integer || bytes;
    case E_DBA: return bytes;
    case E_BSS: return integer || p == INLAY_FLOAT || p == INLAY_DOUBLE || p == INLAY_FIXED_LEN_BYTE_ARRAY;
    case E_RLE: return p == INLAY_BOOLEAN;
    default: return true;
    }
}

/* Generate a column's values.
 *  E_DICT:     draws from a pool of ~24 values (edges first): low cardinality
 *  E_PLAIN/E_AUTO: random over the whole domain, with edges sprinkled in
 *  E_FALLBACK: each row group starts with a stretch of 8 pool values (so a
 *              dictionary pays on the first page), then turns
 *              high-cardinality, so the dictionary overflows mid-chunk
 *  E_DELTA, E_DBA, E_BSS, E_RLE: gen_structured */
static void gen_column(column *col, size_t rows, enum encmode em, size_t rg_rows,
                       size_t page_rows, rng *r, int null_variant)
{
    const tspec *t = col->t;
    cell pool[32];
    int npool = 0;
    while (npool < 24 && gen_edge(t, npool, &pool[npool]))
        npool++;
    int nedges = npool;
    while (npool < 24)
        gen_random(t, r, &pool[npool++]);

    col->cells = xcalloc(rows, sizeof(cell));
    if (em >= E_DELTA)
        gen_structured(t, col->cells, rows, pool, nedges, r);
    for (size_t i = 0; i < rows && em < E_DELTA; i++) {
        cell *c = &col->cells[i];
        switch (em) {
        case E_DICT:
            *c = pool[rbelow(r, (uint64_t)npool)];
            break;
        case E_FALLBACK:
            if (t->kind != K_BOOL && i % rg_rows < rg_rows / 8) {
                *c = pool[rbelow(r, 8)];
                break;
            }
            /* fall through */
        default:
            if (rchance(r, 4))
                *c = pool[rbelow(r, (uint64_t)nedges)];
            else
                gen_random(t, r, c);
            break;
        }
    }
    /* make sure every edge value occurs at least once (rows permitting) */
    if (em != E_FALLBACK)
        for (int e = 0; e < nedges && (size_t)e * 7 + 5 < rows; e++)
            col->cells[(size_t)e * 7 + 5] = pool[e];

    if (col->nm == NM_REQUIRED)
        return;
    if (col->all_null) {
        for (size_t i = 0; i < rows; i++)
            col->cells[i].null = true;
        return;
    }
    /* nulls at the start, at the end, scattered in the middle, and one
     * stretch long enough to fill several whole pages */
    size_t run_len = 2 * page_rows + 17;
    size_t run_at = rows / 4;
    if (null_variant && (2 * rows) / 3 > run_len / 2)
        run_at = (2 * rows) / 3 - run_len / 2;
    for (size_t i = 0; i < rows; i++) {
        bool nul = rchance(r, 15);
        if (i < 3 || i + 3 >= rows)
            nul = true;
        if (i >= run_at && i < run_at + run_len)
            nul = true;
        if (i == 3 || i + 4 == rows)
            nul = false; /* a value right after/before the edge nulls */
        col->cells[i].null = nul;
    }
}

static const char *g_file; /* for messages */

/* A call into libinlay that fails while a file is written ends that file
 * (check() jumps back to write_parquet); the others are still written and
 * the program exits 1 at the end, naming the files that failed. */
static jmp_buf g_fail;
static bool g_fail_armed;
static char g_failed_names[4096];
static int g_failed;

static void check(inlay_writer *w, int st, const char *what, const column *col)
{
    if (st == INLAY_OK)
        return;
    if (!g_fail_armed)
        die("%s: %s%s%s failed: %s (%s)", g_file, what, col ? " of column " : "",
            col ? col->name : "", inlay_strerror(st), w ? inlay_writer_errmsg(w) : "");
    fprintf(stderr, "interop_fixtures: FAIL %s: %s%s%s failed: %s (%s)\n", g_file, what,
            col ? " of column " : "", col ? col->name : "", inlay_strerror(st),
            w ? inlay_writer_errmsg(w) : "");
    longjmp(g_fail, 1);
}

/* One column's batch, ready to append: rows [a, a+n) of the column. */
typedef struct prepared {
    column *col;
    size_t a, n;
    inlay_column_batch b;   /* b.values points into `values` */
    void *values;
    int16_t *def;
    uint8_t *validity;
} prepared;

static void prepare_batch(prepared *pb, column *col, size_t a, size_t n, rng *r)
{
    const tspec *t = col->t;
    const cell *cells = col->cells + a;
    memset(pb, 0, sizeof *pb);
    pb->col = col;
    pb->a = a;
    pb->n = n;
    pb->b.column = col->index;
    pb->b.count = n;
    size_t nnull = 0;
    for (size_t i = 0; i < n; i++)
        nnull += cells[i].null;

    bool spaced = false;
    if (col->nm == NM_DEF && (nnull > 0 || rchance(r, 50))) {
        pb->def = xmalloc(n * sizeof *pb->def);
        for (size_t i = 0; i < n; i++)
            pb->def[i] = cells[i].null ? 0 : 1;
        pb->b.levels.def = pb->def;
    } else if (col->nm == NM_VALIDITY && (nnull > 0 || rchance(r, 50))) {
        pb->validity = xcalloc((n + 7) / 8, 1);
        for (size_t i = 0; i < n; i++)
            if (!cells[i].null)
                pb->validity[i / 8] |= (uint8_t)(1u << (i % 8));
        pb->b.levels.validity = pb->validity;
        spaced = true;
    }
    if (!pb->def && !pb->validity && nnull)
        die("internal: nulls without levels");

    /* the values: dense (one per present value) or spaced (one per row, null
     * slots hold junk that must be ignored) */
    size_t nv = spaced ? n : n - nnull;
    cell *vals = xcalloc(nv, sizeof(cell));
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!cells[i].null)
            vals[k++] = cells[i];
        else if (spaced) {
            gen_random(t, r, &vals[k]); /* junk */
            vals[k++].src = rchance(r, 50) ? INT64_MAX : INT64_MIN;
        }
    }
    if (k != nv)
        die("internal: value count");

    if (col->time_source >= 0) {
        int64_t *v = xcalloc(nv, sizeof *v);
        for (size_t i = 0; i < nv; i++)
            v[i] = vals[i].src;
        pb->values = v;
    } else switch (phys_of(t)) {
    case INLAY_BOOLEAN: {
        bool *v = xcalloc(nv, sizeof *v);
        for (size_t i = 0; i < nv; i++)
            v[i] = vals[i].b;
        pb->values = v;
        break;
    }
    case INLAY_INT32: {
        int32_t *v = xcalloc(nv, sizeof *v);
        for (size_t i = 0; i < nv; i++)
            v[i] = vals[i].i32;
        pb->values = v;
        break;
    }
    case INLAY_INT64: {
        int64_t *v = xcalloc(nv, sizeof *v);
        for (size_t i = 0; i < nv; i++)
            v[i] = vals[i].i64;
        pb->values = v;
        break;
    }
    case INLAY_FLOAT: {
        float *v = xcalloc(nv, sizeof *v);
        for (size_t i = 0; i < nv; i++)
            v[i] = vals[i].f;
        pb->values = v;
        break;
    }
    case INLAY_DOUBLE: {
        double *v = xcalloc(nv, sizeof *v);
        for (size_t i = 0; i < nv; i++)
            v[i] = vals[i].d;
        pb->values = v;
        break;
    }
    case INLAY_BYTE_ARRAY:
    case INLAY_FIXED_LEN_BYTE_ARRAY: {
        inlay_bytes *v = xcalloc(nv, sizeof *v);
        for (size_t i = 0; i < nv; i++) {
            v[i].data = vals[i].bytes;
            v[i].len = vals[i].len;
        }
        pb->values = v;
        break;
    }
    }
    pb->b.values = pb->values;
    free(vals);
}

static void release_batch(prepared *pb)
{
    pb->col->next = pb->a + pb->n;
    free(pb->values);
    free(pb->def);
    free(pb->validity);
}

/* Append rows [a, a+n) of a column with its type's append function. */
static void append_batch(inlay_writer *w, column *col, size_t a, size_t n, rng *r)
{
    prepared pb;
    prepare_batch(&pb, col, a, n, r);
    const inlay_levels *plv = (pb.def || pb.validity) ? &pb.b.levels : NULL;
    int st = INLAY_ERR_ARGUMENT;
    if (col->time_source >= 0)
        st = inlay_writer_append_time(w, col->index, pb.values, n, (inlay_unit)col->time_source, plv);
    else switch (phys_of(col->t)) {
    case INLAY_BOOLEAN: st = inlay_writer_append_bool(w, col->index, pb.values, n, plv); break;
    case INLAY_INT32: st = inlay_writer_append_i32(w, col->index, pb.values, n, plv); break;
    case INLAY_INT64: st = inlay_writer_append_i64(w, col->index, pb.values, n, plv); break;
    case INLAY_FLOAT: st = inlay_writer_append_float(w, col->index, pb.values, n, plv); break;
    case INLAY_DOUBLE: st = inlay_writer_append_double(w, col->index, pb.values, n, plv); break;
    case INLAY_BYTE_ARRAY:
    case INLAY_FIXED_LEN_BYTE_ARRAY:
        st = inlay_writer_append_bytes(w, col->index, pb.values, n, plv);
        break;
    }
    char what[64];
    snprintf(what, sizeof what, "append of rows %zu..%zu", a, a + n);
    release_batch(&pb); /* before check(), which may leave this file */
    check(w, st, what, col);
}

/* Batch sizes: mostly small and uneven, sometimes exactly a page, sometimes
 * large, so batches straddle page and row-group boundaries. */
static size_t batch_size(rng *r, size_t page_rows)
{
    switch (rbelow(r, 8)) {
    case 0: return 1;
    case 1: return page_rows;
    case 2: return 700 + (size_t)rbelow(r, 400);
    default: return 1 + (size_t)rbelow(r, 300);
    }
}

/*----------------------------------------------------------------------
 *  One file
 *--------------------------------------------------------------------*/

typedef struct fspec {
    char name[128];
    column *cols;
    int ncols;
    size_t rows;
    enum encmode em;
    bool zstd;
    size_t page_rows, page_bytes, rg_rows, dict_bytes;
    int page_version;       /* 0 means the default, 1 */
    bool column_at_a_time;  /* append each column whole, one after another */
    bool append_columns;    /* round robin through inlay_writer_append_columns */
    bool memory_sink;       /* write through inlay_buffer_sink */
    const inlay_kv *kv;
    size_t nkv;
    bool codec_set;         /* codec and level: the file's (else zstd ? ZSTD : UNCOMPRESSED, default level) */
    inlay_compression codec;
    int level;              /* with codec_set: a level or INLAY_LEVEL_DEFAULT */
    bool gain_set;          /* min_gain: options.min_compression_gain (else the default) */
    double min_gain;
    double gain_used;       /* the options' min_compression_gain, set when the file is opened */
} fspec;

static inlay_compression file_codec(const fspec *f)
{
    return f->codec_set ? f->codec : f->zstd ? INLAY_ZSTD : INLAY_UNCOMPRESSED;
}

static int file_level(const fspec *f) { return f->codec_set ? f->level : INLAY_LEVEL_DEFAULT; }

static inlay_compression col_codec(const fspec *f, const column *c)
{
    return c->codec_set ? c->codec : file_codec(f);
}

/* The level column c compresses at (0 without levels). */
static int col_level(const fspec *f, const column *c)
{
    return codec_level(col_codec(f, c), c->codec_set ? c->level : file_level(f));
}

static const char *g_outdir;
static int g_files;

static void emit_json(const fspec *f, inlay_writer *w)
{
    sbuf s = {0};
    sb_printf(&s, "{\n\"name\":\"%s\",\n\"rows\":%zu,\n", f->name, f->rows);
    sb_printf(&s, "\"compression\":\"%s\",\n\"compression_level\":%d,\n\"encoding\":\"%s\",\n",
              codec_json(file_codec(f)), codec_level(file_codec(f), file_level(f)), encmode_name(f->em));
    sb_printf(&s, "\"options\":{\"page_rows\":%zu,\"page_bytes\":%zu,\"row_group_rows\":%zu,"
                  "\"dictionary_bytes\":%zu,\"page_version\":%d,\"column_at_a_time\":%s,"
                  "\"append_columns\":%s,\"memory_sink\":%s,\"min_compression_gain\":%.17g},\n",
              f->page_rows, f->page_bytes, f->rg_rows, f->dict_bytes,
              f->page_version ? f->page_version : 1,
              f->column_at_a_time ? "true" : "false", f->append_columns ? "true" : "false",
              f->memory_sink ? "true" : "false", f->gain_used);
    sb_printf(&s, "\"expect\":{\"row_groups\":%zu},\n", (f->rows + f->rg_rows - 1) / f->rg_rows);
    sb_printf(&s, "\"writer\":{\"rows\":%llu,\"row_groups\":%llu,\"bytes\":%llu},\n",
              (unsigned long long)inlay_writer_rows(w),
              (unsigned long long)inlay_writer_row_groups(w),
              (unsigned long long)inlay_writer_bytes(w));
    sb_printf(&s, "\"created_by\":\"inlay version %s\",\n", inlay_version());
    if (f->nkv) {
        sb_puts(&s, "\"key_value_metadata\":{");
        for (size_t i = 0; i < f->nkv; i++) {
            if (i)
                sb_puts(&s, ",");
            sb_json_str(&s, (const unsigned char *)f->kv[i].key, strlen(f->kv[i].key));
            sb_puts(&s, ":");
            sb_json_str(&s, (const unsigned char *)f->kv[i].value, strlen(f->kv[i].value));
        }
        sb_puts(&s, "},\n");
    }
    sb_puts(&s, "\"columns\":[\n");
    for (int c = 0; c < f->ncols; c++) {
        const column *col = &f->cols[c];
        sb_printf(&s, "%s{\"name\":\"%s\",", c ? ",\n" : "", col->name);
        emit_type(&s, col->t);
        static const char *const designs[] = {"any", "dictionary", "fallback", "value"};
        static const char *const units[] = {"days", "s", "ms", "us", "ns"};
        sb_printf(&s, ",\"nullable\":%s,\"all_null\":%s,\"encoding\":\"%s\",\"pages\":\"%s\"",
                  col->nm == NM_REQUIRED ? "false" : "true", col->all_null ? "true" : "false",
                  choice_name(col->enc), designs[col->design]);
        if (col->incompressible)
            sb_puts(&s, ",\"incompressible\":true");
        if (col->compressible)
            sb_puts(&s, ",\"compressible\":true");
        if (col->features)
            sb_printf(&s, ",\"features\":%s", col->features);
        if (col->time_source >= 0)
            sb_printf(&s, ",\"time_source\":\"%s\"", units[col->time_source]);
        inlay_compression cc = col_codec(f, col);
        sb_printf(&s, ",\"codec\":\"%s\",\"level\":%d", codec_json(cc), col_level(f, col));
        emit_chunk_codecs(&s, chunk_expect(cc, f->page_version ? f->page_version : 1, f->gain_used, col->expect),
                          (f->rows + f->rg_rows - 1) / f->rg_rows);
        emit_column_stats(&s, &col->stats);
        sb_puts(&s, ",\"values\":[");
        for (size_t i = 0; i < f->rows; i++) {
            if (i)
                sb_puts(&s, i % 16 ? "," : ",\n");
            emit_value(&s, col->t, &col->cells[i]);
        }
        sb_puts(&s, "]}");
    }
    sb_puts(&s, "\n]\n}\n");

    char path[1024];
    snprintf(path, sizeof path, "%s/%s.json", g_outdir, f->name);
    write_file(path, s.p, s.len);
    free(s.p);
}

static inlay_writer *g_cur_w;   /* the writer of the file being written */
static inlay_buffer g_buf;      /* its memory sink */
static bool g_cur_mem;

static void write_parquet_body(fspec *f, rng *r)
{
    g_file = f->name;
    inlay_schema *s = inlay_schema_create(NULL);
    if (!s)
        die("%s: inlay_schema_create failed", f->name);
    for (int c = 0; c < f->ncols; c++) {
        column *col = &f->cols[c];
        inlay_column_options co;
        inlay_column_options_init(&co);
        co.encoding = col->enc;
        if (col->codec_set) {
            co.compression = (int)col->codec;
            co.compression_level = col->level;
        }
        int id = inlay_schema_add(s, 0, col->name,
                                  col->nm == NM_REQUIRED ? INLAY_REQUIRED : INLAY_OPTIONAL,
                                  col->t->type, &co);
        if (id <= 0)
            die("%s: inlay_schema_add(%s) failed: %s", f->name, col->name, inlay_schema_errmsg(s));
    }
    if (inlay_schema_num_columns(s) != f->ncols)
        die("%s: schema has %d leaves, expected %d", f->name, inlay_schema_num_columns(s), f->ncols);

    inlay_options o;
    inlay_options_init(&o);
    o.threads = fixture_threads();
    o.compression = file_codec(f);
    o.compression_level = file_level(f);
    if (f->gain_set)
        o.min_compression_gain = f->min_gain;
    f->gain_used = o.min_compression_gain;
    o.page_rows = f->page_rows;
    o.page_bytes = f->page_bytes;
    o.row_group_rows = f->rg_rows;
    o.dictionary_bytes = f->dict_bytes;
    o.page_version = f->page_version ? f->page_version : 1;
    o.metadata = f->kv;
    o.metadata_count = f->nkv;

    char path[1024];
    snprintf(path, sizeof path, "%s/%s.parquet", g_outdir, f->name);
    inlay_writer *w = NULL;
    inlay_buffer *buf = &g_buf;
    int st;
    if (f->memory_sink) {
        inlay_buffer_init(buf, NULL);
        g_cur_mem = true;
        st = inlay_writer_open(&w, inlay_buffer_sink(buf), s, &o);
    } else {
        st = inlay_writer_open_file(&w, path, s, &o);
    }
    g_cur_w = w;
    check(w, st, "open", NULL);
    inlay_schema_free(s);

    for (int c = 0; c < f->ncols; c++) {
        f->cols[c].index = inlay_writer_column(w, f->cols[c].name);
        if (f->cols[c].index != c)
            die("%s: inlay_writer_column(%s) = %d, expected %d", f->name, f->cols[c].name,
                f->cols[c].index, c);
        f->cols[c].next = 0;
    }

    if (f->column_at_a_time) {
        for (int c = 0; c < f->ncols; c++)
            while (f->cols[c].next < f->rows) {
                size_t a = f->cols[c].next, n = batch_size(r, f->page_rows);
                append_batch(w, &f->cols[c], a, n < f->rows - a ? n : f->rows - a, r);
            }
    } else if (f->append_columns) {
        /* round robin, every column's next batch in one all-or-nothing call */
        for (int c = 0; c < f->ncols; c++)
            if (f->cols[c].time_source >= 0)
                die("%s: append_columns cannot convert time units (column %s)", f->name,
                    f->cols[c].name);
        prepared *pbs = xcalloc((size_t)f->ncols, sizeof *pbs);
        inlay_column_batch *bs = xcalloc((size_t)f->ncols, sizeof *bs);
        for (;;) {
            int nb = 0;
            for (int c = 0; c < f->ncols; c++) {
                column *col = &f->cols[c];
                if (col->next >= f->rows)
                    continue;
                size_t a = col->next, n = batch_size(r, f->page_rows);
                prepare_batch(&pbs[nb], col, a, n < f->rows - a ? n : f->rows - a, r);
                bs[nb] = pbs[nb].b;
                nb++;
            }
            if (nb == 0)
                break;
            int st_ = inlay_writer_append_columns(w, bs, nb);
            for (int i = 0; i < nb; i++)
                release_batch(&pbs[i]);
            if (st_ != INLAY_OK) {
                free(pbs);
                free(bs);
            }
            check(w, st_, "inlay_writer_append_columns", NULL);
        }
        free(pbs);
        free(bs);
    } else {
        /* round robin: each column its own batch sizes, so the columns run
         * ahead of one another by up to a batch */
        bool more = true;
        while (more) {
            more = false;
            for (int c = 0; c < f->ncols; c++) {
                column *col = &f->cols[c];
                if (col->next >= f->rows)
                    continue;
                size_t a = col->next, n = batch_size(r, f->page_rows);
                append_batch(w, col, a, n < f->rows - a ? n : f->rows - a, r);
                more = true;
            }
        }
    }
    check(w, inlay_writer_close(w), "close", NULL);
    if (inlay_writer_rows(w) != f->rows)
        die("%s: inlay_writer_rows = %llu after close, expected %zu", f->name,
            (unsigned long long)inlay_writer_rows(w), f->rows);
    for (int c = 0; c < f->ncols; c++)
        check(w, inlay_writer_column_stats(w, c, &f->cols[c].stats), "inlay_writer_column_stats", &f->cols[c]);
    if (f->memory_sink) {
        if (buf->len != inlay_writer_bytes(w))
            die("%s: memory sink holds %zu bytes, writer says %llu", f->name, buf->len,
                (unsigned long long)inlay_writer_bytes(w));
        write_file(path, buf->data, buf->len);
        inlay_buffer_free(buf);
        g_cur_mem = false;
    } else {
        struct stat st_;
        if (stat(path, &st_) != 0)
            die("%s: not published after close: %s", path, strerror(errno));
        if ((uint64_t)st_.st_size != inlay_writer_bytes(w))
            die("%s: file has %lld bytes, writer says %llu", path, (long long)st_.st_size,
                (unsigned long long)inlay_writer_bytes(w));
    }
    emit_json(f, w);
    inlay_writer_free(w);
    g_cur_w = NULL;
    g_files++;
}

static void write_parquet(fspec *f, rng *r)
{
    g_cur_w = NULL;
    g_cur_mem = false;
    if (setjmp(g_fail)) {
        g_fail_armed = false;
        inlay_writer_free(g_cur_w); /* aborts: the temporary file goes */
        if (g_cur_mem)
            inlay_buffer_free(&g_buf);
        g_cur_w = NULL;
        g_cur_mem = false;
        size_t used = strlen(g_failed_names);
        snprintf(g_failed_names + used, sizeof g_failed_names - used, " %s", f->name);
        g_failed++;
        return;
    }
    g_fail_armed = true;
    write_parquet_body(f, r);
    g_fail_armed = false;
}

static void free_file(fspec *f)
{
    for (int c = 0; c < f->ncols; c++)
        free(f->cols[c].cells);
    free(f->cols);
    arena_reset();
}

/* What the data of mode em implies for a column's pages. */
static enum design design_for(enum encmode em, const column *c)
{
    bool dict = c->t->kind != K_BOOL &&
                (c->enc == INLAY_ENCODING_AUTO || c->enc == INLAY_ENCODING_DICTIONARY);
    if (!dict)
        return D_VALUE;
    if (c->all_null)
        return D_ANY;
    return em == E_DICT ? D_DICT : em == E_FALLBACK ? D_FALLBACK : D_ANY;
}

static column *add_col(fspec *f, int *cap, const char *name, const tspec *t,
                       inlay_encoding_choice enc, enum nullmode nm, bool all_null)
{
    if (f->ncols == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        f->cols = realloc(f->cols, (size_t)*cap * sizeof(column));
        if (!f->cols)
            die("out of memory");
    }
    column *c = &f->cols[f->ncols++];
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    c->t = t;
    c->enc = enc;
    c->nm = nm;
    c->all_null = all_null;
    c->design = design_for(f->em, c);
    c->time_source = -1;
    return c;
}

/* The encoding choice of mode em for type t (booleans have no dictionary). */
static inlay_encoding_choice enc_choice(enum encmode em, const tspec *t)
{
    switch (em) {
    case E_DICT: return t->kind == K_BOOL ? INLAY_ENCODING_AUTO : INLAY_ENCODING_DICTIONARY;
    case E_PLAIN: return INLAY_ENCODING_PLAIN;
    case E_DELTA: return INLAY_ENCODING_DELTA;
    case E_DBA: return INLAY_ENCODING_DELTA_BYTE_ARRAY;
    case E_BSS: return INLAY_ENCODING_BYTE_STREAM_SPLIT;
    case E_RLE: return INLAY_ENCODING_RLE;
    default: return INLAY_ENCODING_AUTO;
    }
}

/* The main matrix: one type per file, four columns (required; optional with
 * def levels; optional with validity bitmaps; optional and all null). */
static void matrix_file(const tspec *t, enum encmode em, bool zstd)
{
    fspec f;
    memset(&f, 0, sizeof f);
    snprintf(f.name, sizeof f.name, "%.40s__%s__%s", t->tag, encmode_short(em),
             zstd ? "zstd" : "none");
    rng r;
    rng_seed_str(&r, f.name);

    static const size_t rows_choice[] = {2000, 2500, 3001};
    static const size_t page_rows_choice[] = {100, 256, 500};
    static const size_t page_bytes_choice[] = {1024, 4096, 65536};
    f.rows = rows_choice[rbelow(&r, 3)];
    f.page_rows = page_rows_choice[rbelow(&r, 3)];
    f.page_bytes = page_bytes_choice[rbelow(&r, 3)];
    f.em = em;
    f.zstd = zstd;
    if (em == E_FALLBACK) {
        /* the dictionary is checked as pages end: keep pages small enough
         * that it overflows well before a chunk's last page */
        f.page_rows = page_rows_choice[rbelow(&r, 2)];
        f.rg_rows = 2000;
        /* 1- and 2-byte values: a smaller dictionary limit, so that the
         * high-cardinality stretch still overflows it */
        bool small = (t->kind == K_INT && t->bits == 8) || t->kind == K_F16;
        f.dict_bytes = small ? 512 : 1024;
    } else {
        static const size_t rg_choice[] = {700, 1000, 1500};
        f.rg_rows = rg_choice[rbelow(&r, 3)];
        f.dict_bytes = INLAY_DEFAULT_DICTIONARY_BYTES;
    }
    f.column_at_a_time = rchance(&r, 20);
    f.append_columns = !f.column_at_a_time && rchance(&r, 35);

    int cap = 0;
    inlay_encoding_choice enc = enc_choice(em, t);
    add_col(&f, &cap, "req", t, enc, NM_REQUIRED, false);
    add_col(&f, &cap, "opt_def", t, enc, NM_DEF, false);
    /* fallback files: AUTO (with the first-page check) and DICTIONARY */
    add_col(&f, &cap, "opt_validity", t, em == E_FALLBACK ? INLAY_ENCODING_DICTIONARY : enc,
            NM_VALIDITY, false);
    add_col(&f, &cap, "all_null", t, enc, rchance(&r, 50) ? NM_DEF : NM_VALIDITY, true);
    for (int c = 0; c < f.ncols; c++)
        gen_column(&f.cols[c], f.rows, em, f.rg_rows, f.page_rows, &r, c == 2);
    write_parquet(&f, &r);
    free_file(&f);
}

/* Every type side by side in one file: required and optional columns of each,
 * appended one whole column after another. */
static void wide_file(const char *name, enum encmode em, bool zstd, bool column_at_a_time,
                      bool memory_sink, size_t rows, const inlay_kv *kv, size_t nkv)
{
    fspec f;
    memset(&f, 0, sizeof f);
    snprintf(f.name, sizeof f.name, "%s", name);
    rng r;
    rng_seed_str(&r, f.name);
    f.rows = rows;
    f.page_rows = 400;
    f.page_bytes = 8192;
    f.rg_rows = 1800;
    f.dict_bytes = INLAY_DEFAULT_DICTIONARY_BYTES;
    f.em = em;
    f.zstd = zstd;
    f.column_at_a_time = column_at_a_time;
    f.memory_sink = memory_sink;
    f.append_columns = memory_sink && !column_at_a_time;
    f.kv = kv;
    f.nkv = nkv;
    int cap = 0;
    for (int i = 0; i < g_ntypes; i++) {
        char nm[48];
        snprintf(nm, sizeof nm, "r_%.40s", g_types[i].tag);
        add_col(&f, &cap, nm, &g_types[i], enc_choice(em, &g_types[i]), NM_REQUIRED, false);
        snprintf(nm, sizeof nm, "o_%.40s", g_types[i].tag);
        add_col(&f, &cap, nm, &g_types[i], enc_choice(em, &g_types[i]), i % 2 ? NM_DEF : NM_VALIDITY, false);
    }
    for (int c = 0; c < f.ncols; c++)
        gen_column(&f.cols[c], f.rows, em, f.rg_rows, f.page_rows, &r, c % 4 == 1);
    write_parquet(&f, &r);
    free_file(&f);
}

/* A small file through the memory sink, a file with key-value metadata, a
 * file with no rows and one with a single row. */
static void special_files(void)
{
    static const inlay_kv kv[] = {
        {"inlay.test", "interop"},
        {"unicode", "Ærøskøbing ✓ 日本"},
        {"empty", ""},
        {"json", "{\"a\":[1,2,3]}"},
    };
    wide_file("special__wide__memory_sink", E_AUTO, true, false, true, 1200, NULL, 0);
    wide_file("special__wide__kv_metadata", E_AUTO, false, false, false, 50, kv,
              sizeof kv / sizeof kv[0]);
    wide_file("special__wide__column_at_a_time", E_AUTO, true, true, false, 5000, NULL, 0);
    wide_file("special__wide__plain", E_PLAIN, true, false, false, 3000, NULL, 0);
    wide_file("special__wide__one_row", E_AUTO, true, false, false, 1, NULL, 0);
}

/* Zeros of both signs and NaNs: the dictionary must keep -0.0 and +0.0 apart,
 * statistics must leave NaN out (and write no min/max when nothing else is
 * there), and a zero extreme is written as -0.0 (min) / +0.0 (max). */
static void float_edges_file(void)
{
    fspec f;
    memset(&f, 0, sizeof f);
    snprintf(f.name, sizeof f.name, "special__float_edges");
    rng r;
    rng_seed_str(&r, f.name);
    f.rows = 1000;
    f.page_rows = 100;
    f.page_bytes = 4096;
    f.rg_rows = 400;
    f.dict_bytes = INLAY_DEFAULT_DICTIONARY_BYTES;
    f.em = E_AUTO;
    f.zstd = true;
    const tspec *tf = NULL, *td = NULL, *th = NULL;
    for (int i = 0; i < g_ntypes; i++) {
        if (g_types[i].kind == K_FLOAT) tf = &g_types[i];
        if (g_types[i].kind == K_DOUBLE) td = &g_types[i];
        if (g_types[i].kind == K_F16) th = &g_types[i];
    }
    static const struct { const char *name; int which; inlay_encoding_choice enc; enum nullmode nm; int pattern; } cols[] = {
        {"d_zeros_dict", 1, INLAY_ENCODING_DICTIONARY, NM_REQUIRED, 0},
        {"d_zeros_plain", 1, INLAY_ENCODING_PLAIN, NM_DEF, 0},
        {"f_zeros_dict", 0, INLAY_ENCODING_DICTIONARY, NM_VALIDITY, 0},
        {"h_zeros_dict", 2, INLAY_ENCODING_DICTIONARY, NM_REQUIRED, 0},
        {"d_negzero_only", 1, INLAY_ENCODING_AUTO, NM_REQUIRED, 1},
        {"f_negzero_only", 0, INLAY_ENCODING_PLAIN, NM_REQUIRED, 1},
        {"d_nan_only", 1, INLAY_ENCODING_DICTIONARY, NM_DEF, 2},
        {"f_nan_only", 0, INLAY_ENCODING_AUTO, NM_REQUIRED, 2},
        {"h_nan_only", 2, INLAY_ENCODING_PLAIN, NM_VALIDITY, 2},
        {"d_nan_and_values", 1, INLAY_ENCODING_AUTO, NM_DEF, 3},
        {"f_nan_and_values", 0, INLAY_ENCODING_DICTIONARY, NM_REQUIRED, 3},
        {"h_nan_and_values", 2, INLAY_ENCODING_AUTO, NM_REQUIRED, 3},
    };
    int cap = 0;
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
        const tspec *t = cols[c].which == 0 ? tf : cols[c].which == 1 ? td : th;
        column *col = add_col(&f, &cap, cols[c].name, t, cols[c].enc, cols[c].nm, false);
        col->cells = xcalloc(f.rows, sizeof(cell));
        for (size_t i = 0; i < f.rows; i++) {
            cell *ce = &col->cells[i];
            double v;
            switch (cols[c].pattern) {
            case 0: v = (rnext(&r) & 1) ? 0.0 : -0.0; break;
            case 1: v = -0.0; break;
            case 2: v = NAN; break;
            default: v = rchance(&r, 50) ? NAN : (double)rrange(&r, -50, 50) / 4; break;
            }
            ce->d = v;
            ce->f = (float)v;
            /* float16: +-0, NaN with a few payloads, or the value (exact in half) */
            uint16_t h;
            if (isnan(v))
                h = (uint16_t)(0x7c01 + rbelow(&r, 0x3ff) + ((rnext(&r) & 1) ? 0x8000 : 0));
            else if (v == 0)
                h = signbit(v) ? 0x8000 : 0x0000;
            else {
                /* quarter steps in [-12.5, 12.5]: exact in half precision */
                double a = fabs(v);
                int e = 0;
                double m = frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
                uint16_t frac = (uint16_t)((m * 2 - 1) * 1024);
                h = (uint16_t)(((e - 1 + 15) << 10) | frac | (v < 0 ? 0x8000 : 0));
            }
            unsigned char b[2] = {(unsigned char)(h & 0xff), (unsigned char)(h >> 8)};
            set_bytes(ce, b, 2);
            if (cols[c].nm != NM_REQUIRED && (i < 2 || rchance(&r, 10)))
                ce->null = true;
        }
    }
    write_parquet(&f, &r);
    free_file(&f);
}

static const tspec *find_type(const char *tag)
{
    for (int i = 0; i < g_ntypes; i++)
        if (strcmp(g_types[i].tag, tag) == 0)
            return &g_types[i];
    die("internal: no type %s", tag);
    return NULL;
}

/* Data Page V2: every type the mode's encoding applies to side by side,
 * required and optional (nulls in runs of whole pages: all-null pages), an
 * all-null column per physical type, and required columns of random bits
 * whose pages ZSTD cannot shrink (stored raw, is_compressed = false). */
static void v2_wide_file(enum encmode em, bool zstd)
{
    fspec f;
    memset(&f, 0, sizeof f);
    snprintf(f.name, sizeof f.name, "v2__wide__%s__%s", encmode_short(em), zstd ? "zstd" : "none");
    rng r;
    rng_seed_str(&r, f.name);
    f.em = em;
    f.zstd = zstd;
    f.page_version = 2;
    f.rows = 3000;
    /* 257 rows: 256 deltas fill DELTA_BINARY_PACKED blocks exactly, so
     * pages of random bits have no zero padding for ZSTD to squeeze */
    f.page_rows = em == E_FALLBACK ? 100 : 257;
    f.page_bytes = 8192;
    f.rg_rows = em == E_FALLBACK ? 2000 : 1200;
    f.dict_bytes = em == E_FALLBACK ? 512 : INLAY_DEFAULT_DICTIONARY_BYTES;
    f.column_at_a_time = rchance(&r, 30);
    f.append_columns = !f.column_at_a_time && rchance(&r, 50);
    int cap = 0;
    for (int i = 0; i < g_ntypes; i++) {
        const tspec *t = &g_types[i];
        if (!encmode_applies(em, t))
            continue;
        inlay_encoding_choice enc = enc_choice(em, t);
        char nm[48];
        snprintf(nm, sizeof nm, "r_%.40s", t->tag);
        add_col(&f, &cap, nm, t, enc, NM_REQUIRED, false);
        snprintf(nm, sizeof nm, "o_%.40s", t->tag);
        add_col(&f, &cap, nm, t,
                em == E_FALLBACK && t->kind != K_BOOL ? INLAY_ENCODING_DICTIONARY : enc,
                i % 2 ? NM_DEF : NM_VALIDITY, false);
    }
    /* all-null columns after the others (null_first_file has them first) */
    bool phys_seen[8] = {false};
    for (int i = 0; i < g_ntypes; i++) {
        const tspec *t = &g_types[i];
        if (!encmode_applies(em, t) || phys_seen[phys_of(t)])
            continue;
        phys_seen[phys_of(t)] = true;
        char nm[48];
        snprintf(nm, sizeof nm, "n_%.40s", t->tag);
        add_col(&f, &cap, nm, t, enc_choice(em, t), i % 2 ? NM_VALIDITY : NM_DEF, true);
    }
    int first_noise = f.ncols;
    static const struct { enum encmode em; const char *tag; inlay_encoding_choice enc; } noise[] = {
        {E_DICT, "double", INLAY_ENCODING_PLAIN},
        {E_PLAIN, "double", INLAY_ENCODING_PLAIN},
        {E_FALLBACK, "double", INLAY_ENCODING_PLAIN},
        {E_DELTA, "int64", INLAY_ENCODING_DELTA},
        {E_DELTA, "binary", INLAY_ENCODING_DELTA},
        {E_DBA, "binary", INLAY_ENCODING_DELTA_BYTE_ARRAY},
        {E_DBA, "fixed7", INLAY_ENCODING_DELTA_BYTE_ARRAY},
        {E_BSS, "double", INLAY_ENCODING_BYTE_STREAM_SPLIT},
        {E_BSS, "int64", INLAY_ENCODING_BYTE_STREAM_SPLIT},
        {E_RLE, "boolean", INLAY_ENCODING_RLE},
    };
    for (size_t k = 0; k < sizeof noise / sizeof noise[0]; k++) {
        if (noise[k].em != em)
            continue;
        char nm[48];
        snprintf(nm, sizeof nm, "noise_%s", noise[k].tag);
        column *c = add_col(&f, &cap, nm, find_type(noise[k].tag), noise[k].enc, NM_REQUIRED, false);
        c->incompressible = true;
    }
    /* and text that ZSTD shrinks well */
    const tspec *ts = find_type("string");
    column *sq = add_col(&f, &cap, "squeeze", ts,
                         em == E_DELTA || em == E_DBA || em == E_PLAIN ? enc_choice(em, ts)
                                                                       : INLAY_ENCODING_PLAIN,
                         NM_REQUIRED, false);
    sq->compressible = true;
    for (int c = 0; c < f.ncols; c++) {
        column *col = &f.cols[c];
        if (c < first_noise) {
            gen_column(col, f.rows, em, f.rg_rows, f.page_rows, &r, c % 4 == 1);
            continue;
        }
        col->cells = xcalloc(f.rows, sizeof(cell));
        for (size_t i = 0; i < f.rows; i++) {
            if (col->compressible) {
                char buf[128];
                snprintf(buf, sizeof buf, "row %05zu: the same words again and again and again", i);
                set_bytes(&col->cells[i], buf, strlen(buf));
            } else {
                gen_noise(col->t, &r, &col->cells[i]);
            }
        }
    }
    write_parquet(&f, &r);
    free_file(&f);
}

/* Integer extremes: both ends of a 64- or 32-bit range alternating and in
 * runs, steps of one across the wrap from MAX to MIN, random values over the
 * whole range (deltas that overflow), a few values around the ends. */
static void gen_int_extremes(cell *cells, size_t rows, int bits, rng *r)
{
    const int64_t mx = bits == 64 ? INT64_MAX : INT32_MAX, mn = -mx - 1;
    const int64_t near[] = {mn, mn + 1, mx - 1, mx, 0, -1, 1};
    /* random first (full-width deltas), then runs and steps long enough to
     * cover whole miniblocks even at 33 rows a page */
    static const unsigned order[] = {3, 1, 0, 2, 4};
    size_t i = 0;
    for (size_t seg = 0; i < rows; seg++) {
        unsigned kind = order[seg % 5];
        size_t len = kind == 1 || kind == 2 ? 70 + (size_t)rbelow(r, 100)
                     : kind == 3            ? 3 + (size_t)rbelow(r, 60)
                                            : 1 + (size_t)rbelow(r, 40);
        int64_t run = rchance(r, 50) ? mn : mx;
        uint64_t start = (uint64_t)mx - rbelow(r, len + 1);
        for (size_t j = 0; j < len && i < rows; j++, i++) {
            int64_t v;
            switch (kind) {
            case 0: v = (j & 1) ? mx : mn; break;
            case 1: v = run; break;
            case 2: v = (int64_t)(start + j); break; /* wraps past MAX */
            case 3: v = (int64_t)rnext(r); break;
            default: v = near[rbelow(r, sizeof near / sizeof near[0])]; break;
            }
            if (bits == 32)
                v = (int32_t)(uint32_t)(uint64_t)v;
            set_int(&cells[i], v);
        }
    }
}

/* Runs of equal values and constant steps, of lengths around the
 * DELTA_BINARY_PACKED miniblock (32) and block (128). */
static void gen_int_runs(cell *cells, size_t rows, rng *r)
{
    static const size_t lens[] = {1, 2, 31, 32, 33, 64, 65, 127, 128, 129, 300};
    size_t i = 0;
    while (i < rows) {
        size_t len = lens[rbelow(r, sizeof lens / sizeof lens[0])];
        int64_t v = rrange(r, -100000, 100000);
        int64_t step = rchance(r, 50) ? 0 : rrange(r, -50, 50);
        for (size_t j = 0; j < len && i < rows; j++, i++)
            set_int(&cells[i], v + (int64_t)j * step);
    }
}

/* Byte strings related to the one before: the same (prefix = its whole
 * length), extended (prefix = the whole previous value), cut short, with a
 * different first byte (prefix 0), empty, or sharing part of it. text keeps
 * UTF-8 whole; width > 0 makes fixed-width values. */
static void gen_prefixes(cell *cells, size_t rows, bool text, int width, rng *r)
{
    static const char *const firsts[] = {"A", "b", "Ж", "中", "😀", "~"};
    unsigned char buf[600];
    for (size_t i = 0; i < rows; i++) {
        cell *c = &cells[i];
        const cell *p = i ? &cells[i - 1] : NULL;
        size_t n = 0, keep;
        unsigned op = p ? (unsigned)rbelow(r, 6) : 3;
        if (width) {
            size_t w = (size_t)width;
            switch (op) {
            case 0: memcpy(buf, p->bytes, w); break;
            case 1: memcpy(buf, p->bytes, w); buf[w - 1] ^= (unsigned char)(1 + rbelow(r, 255)); break;
            case 2: memset(buf, rchance(r, 50) ? 0 : 0xff, w); break;
            case 3:
                for (size_t k = 0; k < w; k++)
                    buf[k] = (unsigned char)rnext(r);
                if (p && buf[0] == p->bytes[0])
                    buf[0] ^= 0x80;
                break;
            default:
                keep = (size_t)rbelow(r, w);
                memcpy(buf, p->bytes, keep);
                for (size_t k = keep; k < w; k++)
                    buf[k] = (unsigned char)rnext(r);
                break;
            }
            set_bytes(c, buf, w);
            continue;
        }
        if (p && p->len > 400)
            op = 3;
        switch (op) {
        case 0: n = p->len; memcpy(buf, p->bytes, n); break;
        case 1:
            n = p->len;
            memcpy(buf, p->bytes, n);
            if (text)
                put_utf8_random(r, (char *)buf, &n, 8);
            else
                for (size_t k = 1 + (size_t)rbelow(r, 12); k > 0; k--)
                    buf[n++] = (unsigned char)rnext(r);
            break;
        case 2:
            n = (size_t)rbelow(r, p->len + 1);
            if (text)
                n = utf8_cut(p->bytes, n, p->len);
            memcpy(buf, p->bytes, n);
            break;
        case 3: {
            const char *f0;
            do
                f0 = firsts[rbelow(r, sizeof firsts / sizeof firsts[0])];
            while (p && p->len && (unsigned char)f0[0] == p->bytes[0]);
            memcpy(buf, f0, strlen(f0));
            n = strlen(f0);
            if (text)
                put_utf8_random(r, (char *)buf, &n, 10);
            else
                for (size_t k = (size_t)rbelow(r, 20); k > 0; k--)
                    buf[n++] = (unsigned char)rnext(r);
            break;
        }
        case 4: n = 0; break;
        default:
            n = (size_t)rbelow(r, p->len + 1);
            if (text)
                n = utf8_cut(p->bytes, n, p->len);
            memcpy(buf, p->bytes, n);
            if (text)
                put_utf8_random(r, (char *)buf, &n, 5);
            else
                for (size_t k = (size_t)rbelow(r, 8); k > 0; k--)
                    buf[n++] = (unsigned char)rnext(r);
            break;
        }
        set_bytes(c, buf, n);
    }
}

/* Byte strings for DELTA_LENGTH_BYTE_ARRAY: runs of empty ones, one byte,
 * long ones (hundreds of bytes), random lengths. */
static void gen_lengths(cell *cells, size_t rows, rng *r)
{
    unsigned char buf[1200];
    for (size_t i = 0; i < rows; i++) {
        size_t n;
        switch (rbelow(r, 6)) {
        case 0: case 1: n = 0; break;
        case 2: n = 1; break;
        case 3: n = 300 + (size_t)rbelow(r, 900); break;
        default: n = (size_t)rbelow(r, 41); break;
        }
        for (size_t k = 0; k < n; k++)
            buf[k] = (unsigned char)rnext(r);
        set_bytes(&cells[i], buf, n);
    }
}

/* DELTA_BINARY_PACKED and DELTA_BYTE_ARRAY edge data, with page_rows rows
 * per page (required columns: that many values per page; 1 leaves a page
 * with no deltas, 31/33/127/129 leave miniblocks and blocks partly filled). */
static void delta_edges_file(size_t page_rows, int page_version, bool zstd)
{
    fspec f;
    memset(&f, 0, sizeof f);
    snprintf(f.name, sizeof f.name, "delta_edges__p%zu__v%d__%s", page_rows, page_version,
             zstd ? "zstd" : "none");
    rng r;
    rng_seed_str(&r, f.name);
    f.em = E_MIXED;
    f.zstd = zstd;
    f.page_version = page_version;
    f.page_rows = page_rows;
    f.page_bytes = 1u << 20;
    f.rg_rows = page_rows == 1 ? 40 : 4 * page_rows + 3;
    f.rows = 2 * f.rg_rows + page_rows / 2 + 5;
    f.dict_bytes = INLAY_DEFAULT_DICTIONARY_BYTES;
    f.column_at_a_time = page_rows % 2 == 1 && page_version == 1;
    enum pat { P_I64, P_I32, P_RUNS, P_TEXT, P_BYTES, P_FIXED, P_LENGTHS };
    /* features only where pages hold enough values to show them */
    const bool many = page_rows >= 31;
    const char *dbp = many ? "[\"dbp_width0\",\"dbp_full_width\"]" : NULL;
    const char *dba = many ? "[\"dba_prefix0\",\"dba_prefix_full\"]" : NULL;
    const struct {
        const char *name, *tag;
        inlay_encoding_choice enc;
        enum nullmode nm;
        enum pat pat;
        const char *features;
    } cols[] = {
        {"i64_extremes", "int64", INLAY_ENCODING_DELTA, NM_REQUIRED, P_I64, dbp},
        {"i64_extremes_opt", "int64", INLAY_ENCODING_DELTA, NM_DEF, P_I64, NULL},
        {"u64_extremes", "uint64", INLAY_ENCODING_DELTA, NM_REQUIRED, P_I64, dbp},
        {"i32_extremes", "int32", INLAY_ENCODING_DELTA, NM_REQUIRED, P_I32, dbp},
        {"i32_extremes_opt", "int32", INLAY_ENCODING_DELTA, NM_VALIDITY, P_I32, NULL},
        {"u32_extremes", "uint32", INLAY_ENCODING_DELTA, NM_REQUIRED, P_I32, dbp},
        {"i32_runs", "int32", INLAY_ENCODING_DELTA, NM_REQUIRED, P_RUNS,
         many ? "[\"dbp_width0\"]" : NULL},
        {"i64_runs_opt", "int64", INLAY_ENCODING_DELTA, NM_DEF, P_RUNS, NULL},
        {"str_dba", "string", INLAY_ENCODING_DELTA_BYTE_ARRAY, NM_REQUIRED, P_TEXT, dba},
        {"str_dba_opt", "string", INLAY_ENCODING_DELTA_BYTE_ARRAY, NM_DEF, P_TEXT, NULL},
        {"bin_dba", "binary", INLAY_ENCODING_DELTA_BYTE_ARRAY, NM_REQUIRED, P_BYTES, dba},
        {"fixed_dba", "fixed7", INLAY_ENCODING_DELTA_BYTE_ARRAY, NM_REQUIRED, P_FIXED, dba},
        {"uuid_delta_opt", "uuid", INLAY_ENCODING_DELTA, NM_VALIDITY, P_FIXED, NULL},
        {"str_dlba", "string", INLAY_ENCODING_DELTA, NM_VALIDITY, P_TEXT, NULL},
        {"bin_dlba", "binary", INLAY_ENCODING_DELTA, NM_REQUIRED, P_LENGTHS, NULL},
    };
    int cap = 0;
    for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) {
        const tspec *t = find_type(cols[k].tag);
        column *col = add_col(&f, &cap, cols[k].name, t, cols[k].enc, cols[k].nm, false);
        col->features = cols[k].features;
        col->cells = xcalloc(f.rows, sizeof(cell));
        switch (cols[k].pat) {
        case P_I64: gen_int_extremes(col->cells, f.rows, 64, &r); break;
        case P_I32: gen_int_extremes(col->cells, f.rows, 32, &r); break;
        case P_RUNS: gen_int_runs(col->cells, f.rows, &r); break;
        case P_TEXT: gen_prefixes(col->cells, f.rows, true, 0, &r); break;
        case P_BYTES: gen_prefixes(col->cells, f.rows, false, 0, &r); break;
        case P_FIXED: gen_prefixes(col->cells, f.rows, false, t->width, &r); break;
        case P_LENGTHS: gen_lengths(col->cells, f.rows, &r); break;
        }
        if (cols[k].nm != NM_REQUIRED)
            for (size_t i = 0; i < f.rows; i++)
                col->cells[i].null = i == 0 || rchance(&r, 20) || (i / page_rows) % 7 == 3;
    }
    write_parquet(&f, &r);
    free_file(&f);
}

/* A byte-array column whose first pages hold no value (all null) before any
 * other byte-array page of the file is written, then one with values. */
static void null_first_file(const char *tag, inlay_encoding_choice enc, int page_version)
{
    fspec f;
    memset(&f, 0, sizeof f);
    snprintf(f.name, sizeof f.name, "null_first__%s_%s__v%d", tag, choice_name(enc), page_version);
    rng r;
    rng_seed_str(&r, f.name);
    f.em = E_MIXED;
    f.zstd = page_version == 2;
    f.page_version = page_version;
    f.rows = 300;
    f.page_rows = 64;
    f.page_bytes = 65536;
    f.rg_rows = 200;
    f.dict_bytes = INLAY_DEFAULT_DICTIONARY_BYTES;
    f.column_at_a_time = true;
    const tspec *t = find_type(tag);
    int cap = 0;
    add_col(&f, &cap, "nulls", t, enc, NM_DEF, true);
    add_col(&f, &cap, "values", t, enc, NM_VALIDITY, false);
    for (int c = 0; c < f.ncols; c++)
        gen_column(&f.cols[c], f.rows, enc == INLAY_ENCODING_DELTA ? E_DELTA : E_DBA, f.rg_rows,
                   f.page_rows, &r, 0);
    write_parquet(&f, &r);
    free_file(&f);
}

/* floor(a / b), b > 0 */
static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* DATE, TIME and TIMESTAMP columns fed through inlay_writer_append_time in
 * another unit; the JSON holds the converted values (coarser to finer
 * multiplies, finer to coarser rounds toward negative infinity). */
static void append_time_file(int page_version, bool zstd)
{
    fspec f;
    memset(&f, 0, sizeof f);
    snprintf(f.name, sizeof f.name, "append_time__v%d__%s", page_version, zstd ? "zstd" : "none");
    rng r;
    rng_seed_str(&r, f.name);
    f.em = E_MIXED;
    f.zstd = zstd;
    f.page_version = page_version;
    f.rows = 2500;
    f.page_rows = 200;
    f.page_bytes = 16384;
    f.rg_rows = 1000;
    f.dict_bytes = INLAY_DEFAULT_DICTIONARY_BYTES;
    f.column_at_a_time = page_version == 2;
    static const int64_t unit_ns[] = {86400000000000ll, 1000000000ll, 1000000ll, 1000ll, 1};
    const struct {
        const char *name, *tag;
        inlay_unit src;
        inlay_encoding_choice enc;
        enum nullmode nm;
    } cols[] = {
        {"ts_us_from_s", "timestamp_us_utc", INLAY_UNIT_SECONDS, INLAY_ENCODING_AUTO, NM_REQUIRED},
        {"ts_us_from_ns", "timestamp_us_local", INLAY_UNIT_NANOS, INLAY_ENCODING_DELTA, NM_DEF},
        {"ts_ms_from_us", "timestamp_ms_utc", INLAY_UNIT_MICROS, INLAY_ENCODING_PLAIN, NM_VALIDITY},
        {"ts_ns_from_ms", "timestamp_ns_utc", INLAY_UNIT_MILLIS, INLAY_ENCODING_BYTE_STREAM_SPLIT, NM_REQUIRED},
        {"ts_ms_from_days", "timestamp_ms_local", INLAY_UNIT_DAYS, INLAY_ENCODING_DELTA, NM_DEF},
        {"date_from_s", "date", INLAY_UNIT_SECONDS, INLAY_ENCODING_AUTO, NM_DEF},
        {"date_from_ms", "date", INLAY_UNIT_MILLIS, INLAY_ENCODING_DELTA, NM_VALIDITY},
        {"date_from_ns", "date", INLAY_UNIT_NANOS, INLAY_ENCODING_PLAIN, NM_REQUIRED},
        {"date_from_days", "date", INLAY_UNIT_DAYS, INLAY_ENCODING_DICTIONARY, NM_REQUIRED},
        {"time_ms_from_us", "time_ms_utc", INLAY_UNIT_MICROS, INLAY_ENCODING_AUTO, NM_REQUIRED},
        {"time_ms_from_s", "time_ms_local", INLAY_UNIT_SECONDS, INLAY_ENCODING_DELTA, NM_VALIDITY},
        {"time_us_from_ns", "time_us_utc", INLAY_UNIT_NANOS, INLAY_ENCODING_BYTE_STREAM_SPLIT, NM_VALIDITY},
        {"time_ns_from_s", "time_ns_local", INLAY_UNIT_SECONDS, INLAY_ENCODING_DELTA, NM_DEF},
    };
    int cap = 0;
    for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) {
        const tspec *t = find_type(cols[k].tag);
        column *col = add_col(&f, &cap, cols[k].name, t, cols[k].enc, cols[k].nm, false);
        col->time_source = (int)cols[k].src;
        col->cells = xcalloc(f.rows, sizeof(cell));
        const int64_t sns = unit_ns[cols[k].src];
        const int64_t dns = t->kind == K_DATE ? unit_ns[INLAY_UNIT_DAYS]
                                              : unit_ns[INLAY_UNIT_MILLIS + (int)t->unit];
        /* the source range: for TIME the day, else +-7e9 seconds (within
         * what every destination unit holds) */
        int64_t span_s = t->kind == K_TIME ? 86400 : 7000000000ll;
        int64_t hi = sns >= 1000000000ll ? span_s / (sns / 1000000000ll)
                                         : span_s * (1000000000ll / sns);
        int64_t lo = t->kind == K_TIME ? 0 : -hi;
        if (t->kind == K_TIME)
            hi--;
        /* around the epoch and day boundaries, in the source unit */
        const int64_t edges_s[] = {0, 1, 86399, 86400, 86401, -1, -86399, -86400, -86401, -951782400};
        for (size_t i = 0; i < f.rows; i++) {
            cell *c = &col->cells[i];
            int64_t v;
            size_t e = i % 50;
            if (e < sizeof edges_s / sizeof edges_s[0] && i < 500) {
                int64_t es = edges_s[e];
                v = sns >= 1000000000ll ? es / (sns / 1000000000ll) : es * (1000000000ll / sns);
                if (i >= 250 && sns < 1000000000ll)
                    v += rchance(&r, 50) ? 1 : -1; /* one source unit off a boundary */
                if (v < lo || v > hi)
                    v = lo + (int64_t)rbelow(&r, 1000);
            } else {
                v = rrange(&r, lo, hi);
            }
            int64_t conv = sns >= dns ? v * (sns / dns) : floor_div(v, dns / sns);
            set_int(c, conv);
            c->src = v;
        }
        if (cols[k].nm != NM_REQUIRED)
            for (size_t i = 0; i < f.rows; i++)
                col->cells[i].null = i < 2 || rchance(&r, 15);
    }
    write_parquet(&f, &r);
    free_file(&f);
}

static void empty_file(void)
{
    fspec f;
    memset(&f, 0, sizeof f);
    snprintf(f.name, sizeof f.name, "special__empty");
    rng r;
    rng_seed_str(&r, f.name);
    f.rows = 0;
    f.page_rows = 100;
    f.page_bytes = 4096;
    f.rg_rows = 1000;
    f.dict_bytes = INLAY_DEFAULT_DICTIONARY_BYTES;
    f.em = E_AUTO;
    f.zstd = true;
    int cap = 0;
    add_col(&f, &cap, "id", &g_types[4], INLAY_ENCODING_AUTO, NM_REQUIRED, false); /* int64 */
    for (int i = 0; i < g_ntypes; i++)
        if (g_types[i].kind == K_STRING)
            add_col(&f, &cap, "name", &g_types[i], INLAY_ENCODING_AUTO, NM_DEF, false);
    for (int c = 0; c < f.ncols; c++)
        f.cols[c].cells = xcalloc(1, sizeof(cell));
    write_parquet(&f, &r);
    free_file(&f);
}

/*----------------------------------------------------------------------
 *  Nested files: lists, a struct and a map, written with explicit levels
 *
 * The schema (built with inlay_schema_add_list / _map / _group):
 *
 *   required int64 id;
 *   optional group ints (LIST)   { repeated group list { required int64 element; } }
 *   optional group tags (LIST)   { repeated group list { optional binary element (STRING); } }
 *   optional group point         { required double x; optional double y; }
 *   optional group attrs (MAP)   { repeated group key_value { required binary key (STRING);
 *                                                             optional int64 value; } }
 *   required group matrix (LIST) { repeated group list { optional group element (LIST) {
 *                                  repeated group list { optional int32 element; } } } }
 *
 * Each row is drawn at random (null and empty lists and maps, null
 * elements, values, extremes), its canonical JSON written to the field's
 * "values" and its definition/repetition levels and values appended to the
 * leaves' arrays by hand; batches of whole rows then go to the writer
 * through the ordinary append calls with those levels. In the JSON a list
 * is an array, a struct an object, a map an array of [key, value] pairs,
 * and leaves are canonical as in flat files; "fields" describe the types
 * as a tree ({"type": "list", "element": T}, {"type": "struct", "fields":
 * [...]}, {"type": "map", "key": T, "value": T}, or a type tag, each with
 * "nullable"), and "leaves" give per leaf column its path, levels and per
 * row group its level entries and nulls (entries without a value).
 *--------------------------------------------------------------------*/

enum { NL_ID, NL_INTS, NL_TAGS, NL_X, NL_Y, NL_KEY, NL_VALUE, NL_MATRIX, NLEAVES };
enum { NF_ID, NF_INTS, NF_TAGS, NF_POINT, NF_ATTRS, NF_MATRIX, NFIELDS };
enum { NESTED_MAX_ENTRIES = 16 };   /* level entries of one row in any leaf, at most */

typedef struct nleaf {
    const char *path, *type;       /* dotted path; type tag: int64, int32, double, string */
    inlay_physical physical;
    int max_def, max_rep;
    int16_t *def, *rep;
    size_t n;                      /* level entries so far */
    union { int64_t *i64; int32_t *i32; double *f64; inlay_bytes *bytes; void *any; } v;
    size_t nv;                     /* values so far */
    size_t *row_entry, *row_value; /* where row i starts, for rows + 1 */
    size_t next;                   /* rows appended */
} nleaf;

static const struct {
    const char *path, *type;
    inlay_physical physical;
    int max_def, max_rep;
} nleaf_specs[NLEAVES] = {
    {"id", "int64", INLAY_INT64, 0, 0},
    {"ints.list.element", "int64", INLAY_INT64, 2, 1},
    {"tags.list.element", "string", INLAY_BYTE_ARRAY, 3, 1},
    {"point.x", "double", INLAY_DOUBLE, 1, 0},
    {"point.y", "double", INLAY_DOUBLE, 2, 0},
    {"attrs.key_value.key", "string", INLAY_BYTE_ARRAY, 2, 1},
    {"attrs.key_value.value", "int64", INLAY_INT64, 3, 1},
    {"matrix.list.element.list.element", "int32", INLAY_INT32, 4, 2},
};

static const char *const nfield_json[NFIELDS] = {
    "\"name\":\"id\",\"type\":\"int64\",\"nullable\":false",
    "\"name\":\"ints\",\"type\":\"list\",\"nullable\":true,"
    "\"element\":{\"type\":\"int64\",\"nullable\":false}",
    "\"name\":\"tags\",\"type\":\"list\",\"nullable\":true,"
    "\"element\":{\"type\":\"string\",\"nullable\":true}",
    "\"name\":\"point\",\"type\":\"struct\",\"nullable\":true,\"fields\":["
    "{\"name\":\"x\",\"type\":\"double\",\"nullable\":false},"
    "{\"name\":\"y\",\"type\":\"double\",\"nullable\":true}]",
    "\"name\":\"attrs\",\"type\":\"map\",\"nullable\":true,"
    "\"key\":{\"type\":\"string\",\"nullable\":false},\"value\":{\"type\":\"int64\",\"nullable\":true}",
    "\"name\":\"matrix\",\"type\":\"list\",\"nullable\":false,\"element\":{\"type\":\"list\",\"nullable\":true,"
    "\"element\":{\"type\":\"int32\",\"nullable\":true}}",
};

typedef struct nfile {
    char name[64];
    size_t rows, page_rows, rg_rows;
    int page_version;
    bool append_columns;
    inlay_compression codec;       /* every leaf's */
    int level;                     /* a level or INLAY_LEVEL_DEFAULT */
    double gain;                   /* min_compression_gain; < 0: the default */
    double gain_used;              /* the options', set when the file is opened */
    inlay_encoding_choice enc_int, enc_string, enc_double;
    nleaf leaves[NLEAVES];
    inlay_column_stats stats[NLEAVES];   /* inlay_writer_column_stats after close */
    sbuf values[NFIELDS];          /* the fields' JSON values, comma separated */
} nfile;

static void nlevel(nleaf *l, int def, int rep)
{
    l->def[l->n] = (int16_t)def;
    l->rep[l->n] = (int16_t)rep;
    l->n++;
}

static void nval_i64(nleaf *l, int64_t v, int rep, sbuf *js)
{
    nlevel(l, l->max_def, rep);
    l->v.i64[l->nv++] = v;
    sb_printf(js, "\"%lld\"", (long long)v);
}

static void nval_i32(nleaf *l, int32_t v, int rep, sbuf *js)
{
    nlevel(l, l->max_def, rep);
    l->v.i32[l->nv++] = v;
    sb_printf(js, "\"%ld\"", (long)v);
}

static void nval_f64(nleaf *l, double v, int rep, sbuf *js)
{
    nlevel(l, l->max_def, rep);
    l->v.f64[l->nv++] = v;
    emit_double(js, v, 17);
}

static void nval_str(nleaf *l, const char *text, int rep, sbuf *js)
{
    size_t len = strlen(text);
    char *p = arena_alloc(len);
    memcpy(p, text, len);
    nlevel(l, l->max_def, rep);
    l->v.bytes[l->nv++] = (inlay_bytes){p, len};
    sb_json_str(js, (const unsigned char *)p, len);
}

static int64_t nrand_i64(rng *r)
{
    switch (rbelow(r, 10)) {
    case 0: return INT64_MIN;
    case 1: return INT64_MAX;
    case 2: return (int64_t)rnext(r);
    default: return rrange(r, -1000, 1000);
    }
}

static const char *nrand_tag(rng *r, char *buf, size_t cap)
{
    static const char *const pool[] = {"red", "green", "blue", "", "\xc3\xbcml\xc3\xa4ut \xe2\x9c\x93",
                                       "a somewhat longer tag, to vary the lengths"};
    if (rchance(r, 70))
        return pool[rbelow(r, sizeof pool / sizeof pool[0])];
    snprintf(buf, cap, "t%llu", (unsigned long long)rbelow(r, 100000));
    return buf;
}

/* One row: its JSON to each field's values, its levels and values to the
 * leaves. A list is null (def below the list), empty (def at the list
 * group) or holds entries whose first has the repetition level of the
 * enclosing row or list and the rest that of the list itself. */
static void nested_row(nfile *f, size_t row, rng *r)
{
    nleaf *L = f->leaves;
    sbuf *J = f->values;
    char tmp[32];
    for (int k = 0; k < NLEAVES; k++) {
        L[k].row_entry[row] = L[k].n;
        L[k].row_value[row] = L[k].nv;
    }
    for (int k = 0; k < NFIELDS; k++)
        if (row)
            sb_puts(&J[k], row % 8 ? "," : ",\n");

    nval_i64(&L[NL_ID], (int64_t)row, 0, &J[NF_ID]);

    /* ints: optional list of required int64 (def 0 null, 1 empty, 2 value) */
    unsigned u = (unsigned)rbelow(r, 100);
    if (u < 12) {
        nlevel(&L[NL_INTS], 0, 0);
        sb_puts(&J[NF_INTS], "null");
    } else if (u < 24) {
        nlevel(&L[NL_INTS], 1, 0);
        sb_puts(&J[NF_INTS], "[]");
    } else {
        size_t n = 1 + (size_t)rbelow(r, 5);
        sb_puts(&J[NF_INTS], "[");
        for (size_t i = 0; i < n; i++) {
            if (i)
                sb_puts(&J[NF_INTS], ",");
            nval_i64(&L[NL_INTS], nrand_i64(r), i ? 1 : 0, &J[NF_INTS]);
        }
        sb_puts(&J[NF_INTS], "]");
    }

    /* tags: optional list of optional strings (0 null, 1 empty, 2 null element, 3 value) */
    u = (unsigned)rbelow(r, 100);
    if (u < 10) {
        nlevel(&L[NL_TAGS], 0, 0);
        sb_puts(&J[NF_TAGS], "null");
    } else if (u < 20) {
        nlevel(&L[NL_TAGS], 1, 0);
        sb_puts(&J[NF_TAGS], "[]");
    } else {
        size_t n = 1 + (size_t)rbelow(r, 5);
        sb_puts(&J[NF_TAGS], "[");
        for (size_t i = 0; i < n; i++) {
            if (i)
                sb_puts(&J[NF_TAGS], ",");
            if (rchance(r, 20)) {
                nlevel(&L[NL_TAGS], 2, i ? 1 : 0);
                sb_puts(&J[NF_TAGS], "null");
            } else {
                nval_str(&L[NL_TAGS], nrand_tag(r, tmp, sizeof tmp), i ? 1 : 0, &J[NF_TAGS]);
            }
        }
        sb_puts(&J[NF_TAGS], "]");
    }

    /* point: optional struct {required double x; optional double y} */
    if (rchance(r, 15)) {
        nlevel(&L[NL_X], 0, 0);
        nlevel(&L[NL_Y], 0, 0);
        sb_puts(&J[NF_POINT], "null");
    } else {
        sb_puts(&J[NF_POINT], "{\"x\":");
        nval_f64(&L[NL_X], (double)rrange(r, -1000000, 1000000) / 8, 0, &J[NF_POINT]);
        sb_puts(&J[NF_POINT], ",\"y\":");
        if (rchance(r, 25)) {
            nlevel(&L[NL_Y], 1, 0);
            sb_puts(&J[NF_POINT], "null");
        } else {
            static const double specials[] = {-0.0, 1e300, -2.5e-300, 0.1};
            double y = rchance(r, 10) ? specials[rbelow(r, 4)] : (double)rrange(r, -99999, 99999) / 16;
            if (rchance(r, 2))
                y = NAN;
            nval_f64(&L[NL_Y], y, 0, &J[NF_POINT]);
        }
        sb_puts(&J[NF_POINT], "}");
    }

    /* attrs: optional map<string, optional int64>; keys unique within a map */
    u = (unsigned)rbelow(r, 100);
    if (u < 10 || u >= 90) {
        int def = u < 10 ? 0 : 1;
        nlevel(&L[NL_KEY], def, 0);
        nlevel(&L[NL_VALUE], def, 0);
        sb_puts(&J[NF_ATTRS], def ? "[]" : "null");
    } else {
        size_t n = 1 + (size_t)rbelow(r, 4);
        sb_puts(&J[NF_ATTRS], "[");
        for (size_t i = 0; i < n; i++) {
            int rep = i ? 1 : 0;
            snprintf(tmp, sizeof tmp, "%c%llu", (char)('a' + i), (unsigned long long)rbelow(r, 50));
            sb_puts(&J[NF_ATTRS], i ? ",[" : "[");
            nval_str(&L[NL_KEY], tmp, rep, &J[NF_ATTRS]);
            sb_puts(&J[NF_ATTRS], ",");
            if (rchance(r, 20)) {
                nlevel(&L[NL_VALUE], 2, rep);
                sb_puts(&J[NF_ATTRS], "null");
            } else {
                nval_i64(&L[NL_VALUE], nrand_i64(r), rep, &J[NF_ATTRS]);
            }
            sb_puts(&J[NF_ATTRS], "]");
        }
        sb_puts(&J[NF_ATTRS], "]");
    }

    /* matrix: required list of optional lists of optional int32 (def 0
     * empty, 1 null row, 2 empty row, 3 null cell, 4 value; rep 0 row, 1
     * a next row, 2 a next cell) */
    nleaf *m = &L[NL_MATRIX];
    if (rchance(r, 12)) {
        nlevel(m, 0, 0);
        sb_puts(&J[NF_MATRIX], "[]");
    } else {
        size_t rows = 1 + (size_t)rbelow(r, 3);
        sb_puts(&J[NF_MATRIX], "[");
        for (size_t i = 0; i < rows; i++) {
            int rep = i ? 1 : 0;
            if (i)
                sb_puts(&J[NF_MATRIX], ",");
            u = (unsigned)rbelow(r, 100);
            if (u < 15) {
                nlevel(m, 1, rep);
                sb_puts(&J[NF_MATRIX], "null");
                continue;
            }
            if (u < 30) {
                nlevel(m, 2, rep);
                sb_puts(&J[NF_MATRIX], "[]");
                continue;
            }
            size_t cells = 1 + (size_t)rbelow(r, 4);
            sb_puts(&J[NF_MATRIX], "[");
            for (size_t j = 0; j < cells; j++) {
                if (j)
                    sb_puts(&J[NF_MATRIX], ",");
                int crep = j ? 2 : rep;
                if (rchance(r, 15)) {
                    nlevel(m, 3, crep);
                    sb_puts(&J[NF_MATRIX], "null");
                } else {
                    int32_t v = rchance(r, 10) ? (rchance(r, 50) ? INT32_MIN : INT32_MAX)
                                               : (int32_t)rrange(r, -50, 50);
                    nval_i32(m, v, crep, &J[NF_MATRIX]);
                }
            }
            sb_puts(&J[NF_MATRIX], "]");
        }
        sb_puts(&J[NF_MATRIX], "]");
    }
    for (int k = 0; k < NLEAVES; k++)
        if (L[k].n - L[k].row_entry[row] > NESTED_MAX_ENTRIES)
            die("%s: row %zu has too many entries in %s", f->name, row, L[k].path);
}

static inlay_encoding_choice nested_encoding(const nfile *f, inlay_physical p)
{
    return p == INLAY_BYTE_ARRAY ? f->enc_string : p == INLAY_DOUBLE ? f->enc_double : f->enc_int;
}

static inlay_schema *nested_schema(const nfile *f)
{
    inlay_schema *s = inlay_schema_create(NULL);
    if (!s)
        die("%s: inlay_schema_create failed", f->name);
    inlay_column_options co[3];
    static const inlay_physical ps[3] = {INLAY_INT64, INLAY_BYTE_ARRAY, INLAY_DOUBLE};
    for (int i = 0; i < 3; i++) {
        inlay_column_options_init(&co[i]);
        co[i].encoding = nested_encoding(f, ps[i]);
    }
    const inlay_column_options *oi = &co[0], *os = &co[1], *od = &co[2];
    int ok = 1, n;
    ok &= inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), oi) > 0;
    ok &= (n = inlay_schema_add_list(s, 0, "ints", INLAY_OPTIONAL)) > 0;
    ok &= n > 0 && inlay_schema_add(s, n, "element", INLAY_REQUIRED, inlay_type_int(64, true), oi) > 0;
    ok &= (n = inlay_schema_add_list(s, 0, "tags", INLAY_OPTIONAL)) > 0;
    ok &= n > 0 && inlay_schema_add(s, n, "element", INLAY_OPTIONAL, inlay_type_string(), os) > 0;
    ok &= (n = inlay_schema_add_group(s, 0, "point", INLAY_OPTIONAL)) > 0;
    ok &= n > 0 && inlay_schema_add(s, n, "x", INLAY_REQUIRED, inlay_type_double(), od) > 0;
    ok &= n > 0 && inlay_schema_add(s, n, "y", INLAY_OPTIONAL, inlay_type_double(), od) > 0;
    ok &= (n = inlay_schema_add_map(s, 0, "attrs", INLAY_OPTIONAL)) > 0;
    ok &= n > 0 && inlay_schema_add(s, n, "key", INLAY_REQUIRED, inlay_type_string(), os) > 0;
    ok &= n > 0 && inlay_schema_add(s, n, "value", INLAY_OPTIONAL, inlay_type_int(64, true), oi) > 0;
    ok &= (n = inlay_schema_add_list(s, 0, "matrix", INLAY_REQUIRED)) > 0;
    ok &= n > 0 && (n = inlay_schema_add_list(s, n, "element", INLAY_OPTIONAL)) > 0;
    ok &= n > 0 && inlay_schema_add(s, n, "element", INLAY_OPTIONAL, inlay_type_int(32, true),
                                    &co[0]) > 0;
    if (!ok)
        die("%s: building the nested schema failed: %s", f->name, inlay_schema_errmsg(s));
    if (inlay_schema_num_columns(s) != NLEAVES)
        die("%s: nested schema has %d leaves, expected %d", f->name, inlay_schema_num_columns(s), NLEAVES);
    return s;
}

/* The batch of leaf l for rows [a, b). */
static inlay_column_batch nested_batch(nleaf *l, int index, size_t a, size_t b)
{
    size_t e0 = l->row_entry[a], e1 = l->row_entry[b], v0 = l->row_value[a];
    inlay_column_batch cb = {index, NULL, e1 - e0, {NULL, NULL, NULL}};
    if (l->max_def)
        cb.levels.def = l->def + e0;
    if (l->max_rep)
        cb.levels.rep = l->rep + e0;
    switch (l->physical) {
    case INLAY_INT64: cb.values = l->v.i64 + v0; break;
    case INLAY_INT32: cb.values = l->v.i32 + v0; break;
    case INLAY_DOUBLE: cb.values = l->v.f64 + v0; break;
    default: cb.values = l->v.bytes + v0; break;
    }
    return cb;
}

static void nested_append_one(inlay_writer *w, nleaf *l, int index, size_t a, size_t b)
{
    inlay_column_batch cb = nested_batch(l, index, a, b);
    const inlay_levels *lv = l->max_def || l->max_rep ? &cb.levels : NULL;
    int st;
    switch (l->physical) {
    case INLAY_INT64: st = inlay_writer_append_i64(w, index, cb.values, cb.count, lv); break;
    case INLAY_INT32: st = inlay_writer_append_i32(w, index, cb.values, cb.count, lv); break;
    case INLAY_DOUBLE: st = inlay_writer_append_double(w, index, cb.values, cb.count, lv); break;
    default: st = inlay_writer_append_bytes(w, index, cb.values, cb.count, lv); break;
    }
    check(w, st, l->path, NULL);
}

static void nested_json(const nfile *f, inlay_writer *w)
{
    sbuf s = {0};
    sb_printf(&s, "{\n\"name\":\"%s\",\n\"nested\":true,\n\"rows\":%zu,\n", f->name, f->rows);
    sb_printf(&s, "\"compression\":\"%s\",\n\"compression_level\":%d,\n", codec_json(f->codec),
              codec_level(f->codec, f->level));
    sb_printf(&s, "\"options\":{\"page_rows\":%zu,\"row_group_rows\":%zu,\"page_version\":%d,"
                  "\"append_columns\":%s,\"min_compression_gain\":%.17g},\n",
              f->page_rows, f->rg_rows, f->page_version, f->append_columns ? "true" : "false", f->gain_used);
    size_t groups = (f->rows + f->rg_rows - 1) / f->rg_rows;
    sb_printf(&s, "\"expect\":{\"row_groups\":%zu},\n", groups);
    sb_printf(&s, "\"writer\":{\"rows\":%llu,\"row_groups\":%llu,\"bytes\":%llu},\n",
              (unsigned long long)inlay_writer_rows(w), (unsigned long long)inlay_writer_row_groups(w),
              (unsigned long long)inlay_writer_bytes(w));
    sb_printf(&s, "\"created_by\":\"inlay version %s\",\n", inlay_version());
    sb_puts(&s, "\"leaves\":[\n");
    for (int k = 0; k < NLEAVES; k++) {
        const nleaf *l = &f->leaves[k];
        sb_printf(&s, "%s{\"path\":\"%s\",\"type\":\"%s\",\"max_def\":%d,\"max_rep\":%d,\"encoding\":\"%s\",",
                  k ? ",\n" : "", l->path, l->type, l->max_def, l->max_rep,
                  choice_name(nested_encoding(f, l->physical)));
        sbuf nulls = {0};
        sb_puts(&s, "\"entries\":[");
        for (size_t g = 0; g < groups; g++) {
            size_t a = g * f->rg_rows, b = a + f->rg_rows < f->rows ? a + f->rg_rows : f->rows;
            size_t entries = l->row_entry[b] - l->row_entry[a], values = l->row_value[b] - l->row_value[a];
            sb_printf(&s, "%s%zu", g ? "," : "", entries);
            sb_printf(&nulls, "%s%zu", g ? "," : "", entries - values);
        }
        sb_printf(&s, "],\"nulls\":[%s]", nulls.p ? nulls.p : "");
        free(nulls.p);
        sb_printf(&s, ",\"codec\":\"%s\",\"level\":%d", codec_json(f->codec), codec_level(f->codec, f->level));
        emit_chunk_codecs(&s, chunk_expect(f->codec, f->page_version, f->gain_used, X_RULE), groups);
        emit_column_stats(&s, &f->stats[k]);
        sb_puts(&s, "}");
    }
    sb_puts(&s, "\n],\n\"fields\":[\n");
    for (int k = 0; k < NFIELDS; k++)
        sb_printf(&s, "%s{%s,\"values\":[\n%s]}", k ? ",\n" : "", nfield_json[k], f->values[k].p ? f->values[k].p : "");
    sb_puts(&s, "\n]\n}\n");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.json", g_outdir, f->name);
    write_file(path, s.p, s.len);
    free(s.p);
}

static void nested_write_body(nfile *f, rng *r)
{
    g_file = f->name;
    inlay_schema *s = nested_schema(f);
    inlay_options o;
    inlay_options_init(&o);
    o.threads = fixture_threads();
    o.compression = f->codec;
    o.compression_level = f->level;
    if (f->gain >= 0)
        o.min_compression_gain = f->gain;
    f->gain_used = o.min_compression_gain;
    o.page_rows = f->page_rows;
    o.row_group_rows = f->rg_rows;
    o.page_version = f->page_version;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.parquet", g_outdir, f->name);
    inlay_writer *w = NULL;
    int st = inlay_writer_open_file(&w, path, s, &o);
    g_cur_w = w;
    inlay_schema_free(s);
    check(w, st, "open", NULL);
    for (int k = 0; k < NLEAVES; k++) {
        if (inlay_writer_column(w, f->leaves[k].path) != k)
            die("%s: inlay_writer_column(%s) = %d, expected %d", f->name, f->leaves[k].path,
                inlay_writer_column(w, f->leaves[k].path), k);
        f->leaves[k].next = 0;
    }
    if (f->append_columns) {
        /* every leaf's rows [a, b) in one all-or-nothing call */
        for (size_t a = 0; a < f->rows;) {
            size_t n = batch_size(r, f->page_rows), b = n < f->rows - a ? a + n : f->rows;
            inlay_column_batch bs[NLEAVES];
            for (int k = 0; k < NLEAVES; k++)
                bs[k] = nested_batch(&f->leaves[k], k, a, b);
            check(w, inlay_writer_append_columns(w, bs, NLEAVES), "inlay_writer_append_columns", NULL);
            a = b;
        }
    } else {
        /* round robin, each leaf its own batch sizes */
        bool more = true;
        while (more) {
            more = false;
            for (int k = 0; k < NLEAVES; k++) {
                nleaf *l = &f->leaves[k];
                if (l->next >= f->rows)
                    continue;
                size_t n = batch_size(r, f->page_rows), b = n < f->rows - l->next ? l->next + n : f->rows;
                nested_append_one(w, l, k, l->next, b);
                l->next = b;
                more = true;
            }
        }
    }
    check(w, inlay_writer_close(w), "close", NULL);
    if (inlay_writer_rows(w) != f->rows)
        die("%s: inlay_writer_rows = %llu after close, expected %zu", f->name,
            (unsigned long long)inlay_writer_rows(w), f->rows);
    for (int k = 0; k < NLEAVES; k++)
        check(w, inlay_writer_column_stats(w, k, &f->stats[k]), "inlay_writer_column_stats", NULL);
    nested_json(f, w);
    inlay_writer_free(w);
    g_cur_w = NULL;
    g_files++;
}

/* codec at level (INLAY_LEVEL_DEFAULT: its default); gain < 0: the default
 * min_compression_gain. */
static void nested_file_codec(const char *name, size_t rows, size_t page_rows, size_t rg_rows, int page_version,
                              inlay_compression codec, int level, double gain, bool append_columns,
                              inlay_encoding_choice enc_int, inlay_encoding_choice enc_string,
                              inlay_encoding_choice enc_double)
{
    nfile *f = xcalloc(1, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    f->rows = rows;
    f->page_rows = page_rows;
    f->rg_rows = rg_rows;
    f->page_version = page_version;
    f->codec = codec;
    f->level = level;
    f->gain = gain;
    f->append_columns = append_columns;
    f->enc_int = enc_int;
    f->enc_string = enc_string;
    f->enc_double = enc_double;
    for (int k = 0; k < NLEAVES; k++) {
        nleaf *l = &f->leaves[k];
        l->path = nleaf_specs[k].path;
        l->type = nleaf_specs[k].type;
        l->physical = nleaf_specs[k].physical;
        l->max_def = nleaf_specs[k].max_def;
        l->max_rep = nleaf_specs[k].max_rep;
        size_t cap = rows * NESTED_MAX_ENTRIES + 1;
        l->def = xcalloc(cap, sizeof *l->def);
        l->rep = xcalloc(cap, sizeof *l->rep);
        size_t width = l->physical == INLAY_INT32 ? sizeof(int32_t)
                     : l->physical == INLAY_BYTE_ARRAY ? sizeof(inlay_bytes) : 8;
        l->v.any = xcalloc(cap, width);
        l->row_entry = xcalloc(rows + 1, sizeof(size_t));
        l->row_value = xcalloc(rows + 1, sizeof(size_t));
    }
    rng r;
    rng_seed_str(&r, f->name);
    for (size_t i = 0; i < rows; i++)
        nested_row(f, i, &r);
    for (int k = 0; k < NLEAVES; k++) {
        f->leaves[k].row_entry[rows] = f->leaves[k].n;
        f->leaves[k].row_value[rows] = f->leaves[k].nv;
    }

    g_cur_w = NULL;
    g_cur_mem = false;
    if (setjmp(g_fail)) {
        g_fail_armed = false;
        inlay_writer_free(g_cur_w);
        g_cur_w = NULL;
        size_t used = strlen(g_failed_names);
        snprintf(g_failed_names + used, sizeof g_failed_names - used, " %s", f->name);
        g_failed++;
    } else {
        g_fail_armed = true;
        nested_write_body(f, &r);
        g_fail_armed = false;
    }

    for (int k = 0; k < NLEAVES; k++) {
        nleaf *l = &f->leaves[k];
        free(l->def);
        free(l->rep);
        free(l->v.any);
        free(l->row_entry);
        free(l->row_value);
    }
    for (int k = 0; k < NFIELDS; k++)
        free(f->values[k].p);
    free(f);
    arena_reset();
}

static void nested_file(const char *name, size_t rows, size_t page_rows, size_t rg_rows, int page_version,
                        bool zstd, bool append_columns, inlay_encoding_choice enc_int,
                        inlay_encoding_choice enc_string, inlay_encoding_choice enc_double)
{
    nested_file_codec(name, rows, page_rows, rg_rows, page_version, zstd ? INLAY_ZSTD : INLAY_UNCOMPRESSED,
                      INLAY_LEVEL_DEFAULT, -1, append_columns, enc_int, enc_string, enc_double);
}

static void nested_files(void)
{
    nested_file("nested__v1__zstd", 1000, 37, 300, 1, true, false, INLAY_ENCODING_AUTO, INLAY_ENCODING_AUTO,
                INLAY_ENCODING_AUTO);
    nested_file("nested__v2__uncompressed__delta", 1000, 50, 400, 2, false, true, INLAY_ENCODING_DELTA,
                INLAY_ENCODING_DELTA_BYTE_ARRAY, INLAY_ENCODING_BYTE_STREAM_SPLIT);
    nested_file("nested__v1__plain__tiny_pages", 400, 3, 64, 1, false, false, INLAY_ENCODING_PLAIN,
                INLAY_ENCODING_PLAIN, INLAY_ENCODING_PLAIN);
    nested_file("nested__v2__zstd__dictionary", 800, 20, 250, 2, true, true, INLAY_ENCODING_DICTIONARY,
                INLAY_ENCODING_DICTIONARY, INLAY_ENCODING_DICTIONARY);
}

/*----------------------------------------------------------------------
 *  Shredded files: nested fields appended as Arrow arrays
 *
 * The JSON of the nested files above, but the values are held as a host
 * holding Arrow arrays has them (validity bitmaps LSB first, int32 offsets,
 * a value slot for every entry, nulls included) and appended through
 * inlay_writer_append_array, which computes the levels itself. The fields:
 *
 *   id                 required int64 (the row number)
 *   pts,  pts_inv      list<struct<x double, y int32>>
 *   rec,  rec_inv      struct<a int64, tags list<string>>
 *   kv,   kv_inv       map<string, list<int64>>
 *   grid, grid_inv     list<list<string>>
 *   nest, nest_inv     struct<inner struct<v float16, w string>>
 *
 * Which nodes are optional comes from the file's mask (four bits per shape,
 * its nodes in schema order, map keys always required); the _inv field has
 * the complement, so every node is required in one and optional in the
 * other. Optional nodes are null and lists and maps empty at every level.
 * Under a null the arrays hold junk, as Arrow allows: a null struct's
 * children have entries of their own, a null list may span a stretch of its
 * child, a null value's slot holds some value. A required node has no
 * validity bitmap, or (req_validity) one whose bits are set except, now and
 * then, under a null struct (arrow-rs lets a non-nullable field be null
 * where its struct is).
 *
 * Each field is appended in its own uneven batches. A batch from row a on
 * is what slicing the Arrow arrays gives: a list's or map's offsets from
 * entry a with its children whole (the offsets index them absolutely), a
 * struct's children sliced at a as well, leaves' values from slot a; a
 * validity bitmap from byte a / 8 when a is a multiple of 8, else its bits
 * copied to start at bit 0.
 *
 * The JSON is that of the nested files; its "options" add "append_array":
 * true, the "mask" (hex) and "required_validity".
 *--------------------------------------------------------------------*/

enum skind { SK_LEAF, SK_LIST, SK_STRUCT, SK_MAP };
enum sleaf { SL_INT64, SL_INT32, SL_DOUBLE, SL_STRING, SL_FLOAT16 };
enum { SHAPES = 5, SFIELDS = 1 + 2 * SHAPES, SMAX_NODES = 96, SMAX_LEAVES = 32 };

static const char *const sleaf_tag[] = {"int64", "int32", "double", "string", "float16"};

/* A growable byte array. */
typedef struct gbuf {
    uint8_t *p;
    size_t len, cap;
} gbuf;

static void gb_push(gbuf *b, const void *data, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p)
            die("out of memory");
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
}

/* Bit i of a bitmap being built (bits come in order). */
static void gb_bit(gbuf *b, size_t i, bool on)
{
    if (i % 8 == 0) {
        uint8_t z = 0;
        gb_push(b, &z, 1);
    }
    if (on)
        b->p[i / 8] |= (uint8_t)(1u << (i % 8));
}

/* A schema node and its Arrow array, built entry by entry. */
typedef struct snode {
    enum skind kind;
    const char *name;
    bool nullable;
    bool rowid;                 /* a leaf holding the row number */
    enum sleaf leaf;
    int nchild;
    struct snode *child[2];     /* element; key, value; struct fields */
    int leaf_index;             /* a leaf: its column */
    size_t len;                 /* entries */
    gbuf valid, offsets, values;
    inlay_array arr;            /* the whole array, once built */
    inlay_array kids[2];
} snode;

typedef struct sleafinfo {
    char path[96];
    enum sleaf type;
    int max_def, max_rep;
    size_t *entries, *values;   /* level entries and values per row group */
} sleafinfo;

typedef struct sfile {
    char name[64];
    size_t rows, page_rows, rg_rows;
    int page_version;
    bool zstd, req_validity;
    uint32_t mask;              /* optional nodes, 4 bits per shape */
    unsigned null_pct, empty_pct;
    inlay_encoding_choice enc_int, enc_string, enc_double, enc_fixed;
    snode nodes[SMAX_NODES];
    int nnodes;
    snode *fields[SFIELDS];
    sleafinfo leaves[SMAX_LEAVES];
    int nleaves;
    size_t group, row;          /* of the row being generated */
    sbuf values[SFIELDS];
} sfile;

static snode *snew(sfile *f, enum skind k, const char *name, bool nullable)
{
    if (f->nnodes == SMAX_NODES)
        die("%s: too many schema nodes", f->name);
    snode *n = &f->nodes[f->nnodes++];
    memset(n, 0, sizeof *n);
    n->kind = k;
    n->name = name;
    n->nullable = nullable;
    if (k == SK_LIST || k == SK_MAP) {
        int32_t zero = 0;
        gb_push(&n->offsets, &zero, sizeof zero);
    }
    return n;
}

static snode *sleafnew(sfile *f, const char *name, bool nullable, enum sleaf t)
{
    snode *n = snew(f, SK_LEAF, name, nullable);
    n->leaf = t;
    return n;
}

static snode *sparent(snode *p, snode *a, snode *b)
{
    p->child[0] = a;
    p->child[1] = b;
    p->nchild = b ? 2 : 1;
    return p;
}

/* Shape s under `name`, node i optional when bit i of m is set. */
static snode *sshape(sfile *f, int s, const char *name, unsigned m)
{
#define OPT(i) (((m) >> (i)) & 1u)
    switch (s) {
    case 0: /* list<struct<x double, y int32>> */
        return sparent(snew(f, SK_LIST, name, OPT(0)),
                       sparent(snew(f, SK_STRUCT, "element", OPT(1)), sleafnew(f, "x", OPT(2), SL_DOUBLE),
                               sleafnew(f, "y", OPT(3), SL_INT32)),
                       NULL);
    case 1: /* struct<a int64, tags list<string>> */
        return sparent(snew(f, SK_STRUCT, name, OPT(0)), sleafnew(f, "a", OPT(1), SL_INT64),
                       sparent(snew(f, SK_LIST, "tags", OPT(2)), sleafnew(f, "element", OPT(3), SL_STRING),
                               NULL));
    case 2: /* map<string, list<int64>> */
        return sparent(snew(f, SK_MAP, name, OPT(0)), sleafnew(f, "key", false, SL_STRING),
                       sparent(snew(f, SK_LIST, "value", OPT(1)), sleafnew(f, "element", OPT(2), SL_INT64),
                               NULL));
    case 3: /* list<list<string>> */
        return sparent(snew(f, SK_LIST, name, OPT(0)),
                       sparent(snew(f, SK_LIST, "element", OPT(1)), sleafnew(f, "element", OPT(2), SL_STRING),
                               NULL),
                       NULL);
    default: /* struct<inner struct<v float16, w string>> */
        return sparent(snew(f, SK_STRUCT, name, OPT(0)),
                       sparent(snew(f, SK_STRUCT, "inner", OPT(1)), sleafnew(f, "v", OPT(2), SL_FLOAT16),
                               sleafnew(f, "w", OPT(3), SL_STRING)),
                       NULL);
    }
#undef OPT
}

/* Numbers the leaves under n in schema order with their dotted paths and
 * maximum levels. */
static void sleaves(sfile *f, snode *n, const char *prefix, int def, int rep)
{
    char path[96];
    snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", n->name);
    def += n->nullable;
    switch (n->kind) {
    case SK_LEAF: {
        if (f->nleaves == SMAX_LEAVES)
            die("%s: too many leaves", f->name);
        sleafinfo *l = &f->leaves[f->nleaves];
        snprintf(l->path, sizeof l->path, "%s", path);
        l->type = n->leaf;
        l->max_def = def;
        l->max_rep = rep;
        size_t groups = (f->rows + f->rg_rows - 1) / f->rg_rows;
        l->entries = xcalloc(groups, sizeof(size_t));
        l->values = xcalloc(groups, sizeof(size_t));
        n->leaf_index = f->nleaves++;
        break;
    }
    case SK_STRUCT:
        for (int i = 0; i < n->nchild; i++)
            sleaves(f, n->child[i], path, def, rep);
        break;
    case SK_LIST:
    case SK_MAP: {
        char mid[sizeof path + 16];
        snprintf(mid, sizeof mid, "%s.%s", path, n->kind == SK_LIST ? "list" : "key_value");
        for (int i = 0; i < n->nchild; i++)
            sleaves(f, n->child[i], mid, def + 1, rep + 1);
        break;
    }
    }
}

static inlay_encoding_choice sencoding(const sfile *f, enum sleaf t)
{
    switch (t) {
    case SL_STRING: return f->enc_string;
    case SL_DOUBLE: return f->enc_double;
    case SL_FLOAT16: return f->enc_fixed;
    default: return f->enc_int;
    }
}

static int sschema_add(inlay_schema *s, int parent, const sfile *f, const snode *n)
{
    inlay_repetition rep = n->nullable ? INLAY_OPTIONAL : INLAY_REQUIRED;
    int id;
    switch (n->kind) {
    case SK_LEAF: {
        inlay_type t = n->leaf == SL_INT64  ? inlay_type_int(64, true)
                     : n->leaf == SL_INT32  ? inlay_type_int(32, true)
                     : n->leaf == SL_DOUBLE ? inlay_type_double()
                     : n->leaf == SL_STRING ? inlay_type_string()
                                            : inlay_type_float16();
        inlay_column_options co;
        inlay_column_options_init(&co);
        co.encoding = sencoding(f, n->leaf);
        return inlay_schema_add(s, parent, n->name, rep, t, &co);
    }
    case SK_STRUCT: id = inlay_schema_add_group(s, parent, n->name, rep); break;
    case SK_LIST: id = inlay_schema_add_list(s, parent, n->name, rep); break;
    default: id = inlay_schema_add_map(s, parent, n->name, rep); break;
    }
    for (int i = 0; id > 0 && i < n->nchild; i++) {
        int c = sschema_add(s, id, f, n->child[i]);
        if (c < 0)
            return c;
    }
    return id;
}

static size_t sleaf_size(enum sleaf t)
{
    switch (t) {
    case SL_INT32: return sizeof(int32_t);
    case SL_INT64: return sizeof(int64_t);
    case SL_DOUBLE: return sizeof(double);
    default: return sizeof(inlay_bytes);
    }
}

/* A live entry of leaf n with a value. */
static void svalue(sfile *f, const snode *n)
{
    f->leaves[n->leaf_index].entries[f->group]++;
    f->leaves[n->leaf_index].values[f->group]++;
}

/* Every leaf under n gets one level entry without a value: n is null, or
 * an empty list or map. */
static void sempty(sfile *f, const snode *n)
{
    if (n->kind == SK_LEAF)
        f->leaves[n->leaf_index].entries[f->group]++;
    for (int i = 0; i < n->nchild; i++)
        sempty(f, n->child[i]);
}

static uint16_t srand_half(rng *r)
{
    static const uint16_t specials[] = {0x7c00, 0xfc00, 0x7e00, 0x8000, 0x0000, 0x0001,
                                        0x03ff, 0x0400, 0x7bff, 0xfbff, 0x3c00, 0x3555};
    unsigned u = (unsigned)rbelow(r, 100);
    if (u < 15)
        return specials[rbelow(r, sizeof specials / sizeof specials[0])];
    if (u < 50) {
        uint16_t h = (uint16_t)rnext(r);
        return (h & 0x7c00) == 0x7c00 ? (uint16_t)(h & 0xbfff) : h; /* any finite half */
    }
    return inlay_float16_bits((double)rrange(r, -40000, 40000) / 16);
}

static inlay_bytes sbytes(const void *data, size_t len)
{
    char *p = arena_alloc(len);
    memcpy(p, data, len);
    return (inlay_bytes){p, len};
}

/* The slot of leaf n for one entry: a value when present, else junk; the
 * value's JSON goes to js when the entry is live. */
static void sgen_leaf(sfile *f, snode *n, rng *r, bool present, sbuf *js)
{
    union { int64_t i64; int32_t i32; double d; inlay_bytes b; } v;
    memset(&v, 0, sizeof v);
    switch (n->leaf) {
    case SL_INT64:
        v.i64 = n->rowid ? (int64_t)f->row : present ? nrand_i64(r) : (int64_t)rnext(r);
        if (js)
            sb_printf(js, "\"%lld\"", (long long)v.i64);
        break;
    case SL_INT32:
        v.i32 = !present            ? (int32_t)rnext(r)
              : rchance(r, 10)      ? (rchance(r, 50) ? INT32_MIN : INT32_MAX)
                                    : (int32_t)rrange(r, -50, 50);
        if (js)
            sb_printf(js, "\"%ld\"", (long)v.i32);
        break;
    case SL_DOUBLE: {
        static const double specials[] = {-0.0, 1e300, -2.5e-300, 0.1, INFINITY, -INFINITY, NAN, DBL_MIN / 4};
        v.d = !present        ? (double)(int64_t)rnext(r)
            : rchance(r, 12)  ? specials[rbelow(r, sizeof specials / sizeof specials[0])]
                              : (double)rrange(r, -1000000, 1000000) / 8;
        if (js)
            emit_double(js, v.d, 17);
        break;
    }
    case SL_STRING: {
        char tmp[32];
        const char *text = present ? nrand_tag(r, tmp, sizeof tmp) : "junk in the slot of a null";
        v.b = sbytes(text, present ? strlen(text) : (size_t)rbelow(r, 27));
        if (js)
            sb_json_str(js, v.b.data, v.b.len);
        break;
    }
    case SL_FLOAT16: {
        uint16_t h = present ? srand_half(r) : (uint16_t)rnext(r);
        uint8_t le[2] = {(uint8_t)(h & 0xff), (uint8_t)(h >> 8)};
        v.b = sbytes(le, 2);
        if (js)
            emit_double(js, half_to_double(h), 17);
        break;
    }
    }
    gb_push(&n->values, &v, sleaf_size(n->leaf));
    if (js)
        svalue(f, n);
}

/* Key i of a map entry: unique within the map, never null. */
static void skey(sfile *f, snode *n, rng *r, size_t i, sbuf *js)
{
    char tmp[32];
    if (i == 0 && rchance(r, 5))
        tmp[0] = 0;
    else
        snprintf(tmp, sizeof tmp, "%s%c%llu", rchance(r, 10) ? "\xc3\xbc" : "", (char)('a' + i),
                 (unsigned long long)rbelow(r, 50));
    gb_bit(&n->valid, n->len++, true);
    inlay_bytes b = sbytes(tmp, strlen(tmp));
    gb_push(&n->values, &b, sizeof b);
    if (js) {
        sb_json_str(js, b.data, b.len);
        svalue(f, n);
    }
}

/* One entry of node n. js is where its JSON goes, or NULL for junk under a
 * null (no JSON, no level entries). `masked`: the entry is a field of a
 * null struct, where Arrow lets even a required field be null (with
 * req_validity, some are). */
static void sgen(sfile *f, snode *n, rng *r, sbuf *js, bool masked)
{
    bool present = n->nullable ? !rchance(r, f->null_pct) : !(masked && f->req_validity && rchance(r, 25));
    gb_bit(&n->valid, n->len++, present);
    sbuf *cj = present ? js : NULL;   /* the JSON of what is inside */
    if (js && !present) {
        sb_puts(js, "null");
        sempty(f, n);
    }
    switch (n->kind) {
    case SK_LEAF:
        sgen_leaf(f, n, r, present, cj);
        break;
    case SK_STRUCT:
        if (cj)
            sb_puts(cj, "{");
        for (int i = 0; i < n->nchild; i++) {
            if (cj)
                sb_printf(cj, "%s\"%s\":", i ? "," : "", n->child[i]->name);
            sgen(f, n->child[i], r, cj, !present);
        }
        if (cj)
            sb_puts(cj, "}");
        break;
    case SK_LIST:
    case SK_MAP: {
        /* empty or 1..4 entries; a null one spans junk entries now and then */
        size_t k = present ? (rchance(r, f->empty_pct) ? 0 : 1 + (size_t)rbelow(r, 4))
                           : (rchance(r, 30) ? 1 + (size_t)rbelow(r, 3) : 0);
        if (cj) {
            sb_puts(cj, "[");
            if (k == 0)
                sempty(f, n);
        }
        for (size_t i = 0; i < k; i++) {
            if (cj && i)
                sb_puts(cj, ",");
            if (n->kind == SK_LIST) {
                sgen(f, n->child[0], r, cj, false);
                continue;
            }
            if (cj)
                sb_puts(cj, "[");
            skey(f, n->child[0], r, i, cj);
            if (cj)
                sb_puts(cj, ",");
            sgen(f, n->child[1], r, cj, false);
            if (cj)
                sb_puts(cj, "]");
        }
        if (cj)
            sb_puts(cj, "]");
        int32_t end = (int32_t)n->child[0]->len;
        gb_push(&n->offsets, &end, sizeof end);
        break;
    }
    }
}

/* The whole arrays of n and below, once every row is generated. */
static void sbuild(const sfile *f, snode *n)
{
    for (int i = 0; i < n->nchild; i++) {
        sbuild(f, n->child[i]);
        n->kids[i] = n->child[i]->arr;
    }
    n->arr = (inlay_array){
        .length = n->len,
        .validity = n->nullable || f->req_validity ? n->valid.p : NULL,
        .offsets = n->kind == SK_LIST || n->kind == SK_MAP ? (const int32_t *)n->offsets.p : NULL,
        .values = n->kind == SK_LEAF ? n->values.p : NULL,
        .children = n->nchild ? n->kids : NULL,
    };
}

/* Bits [a, a + n) of a bitmap, starting at a byte boundary. */
static const uint8_t *sbits(const uint8_t *v, size_t a, size_t n)
{
    if (!v || a % 8 == 0)
        return v ? v + a / 8 : NULL;
    uint8_t *out = arena_alloc((n + 7) / 8);
    memset(out, 0, (n + 7) / 8);
    for (size_t i = 0; i < n; i++)
        if (v[(a + i) / 8] >> ((a + i) % 8) & 1)
            out[i / 8] |= (uint8_t)(1u << (i % 8));
    return out;
}

/* Entries [a, a + count) of n's array x, sliced as Arrow slices: a list's
 * or map's children stay whole, a struct's are sliced with it. */
static inlay_array sslice(const snode *n, const inlay_array *x, size_t a, size_t count)
{
    inlay_array s = *x;
    s.length = count;
    s.validity = sbits(x->validity, a, count);
    if (n->kind == SK_LEAF) {
        s.values = (const uint8_t *)x->values + a * sleaf_size(n->leaf);
    } else if (n->kind == SK_STRUCT) {
        inlay_array *kids = arena_alloc((size_t)n->nchild * sizeof *kids);
        for (int i = 0; i < n->nchild; i++)
            kids[i] = sslice(n->child[i], &x->children[i], a, count);
        s.children = kids;
    } else {
        s.offsets = x->offsets + a;
    }
    return s;
}

/* Batch sizes as batch_size(), half of them rounded up to a multiple of 8
 * (whose slices start on a byte of the bitmaps until an odd one comes). */
static size_t sbatch(rng *r, size_t page_rows)
{
    size_t n = batch_size(r, page_rows);
    return rchance(r, 50) ? (n + 7) / 8 * 8 : n;
}

/* The type tree of n, as "fields" has it. */
static void stype_json(sbuf *s, const snode *n, bool named)
{
    if (named)
        sb_printf(s, "\"name\":\"%s\",", n->name);
    const char *nullable = n->nullable ? "true" : "false";
    switch (n->kind) {
    case SK_LEAF:
        sb_printf(s, "\"type\":\"%s\",\"nullable\":%s", sleaf_tag[n->leaf], nullable);
        break;
    case SK_LIST:
        sb_printf(s, "\"type\":\"list\",\"nullable\":%s,\"element\":{", nullable);
        stype_json(s, n->child[0], false);
        sb_puts(s, "}");
        break;
    case SK_MAP:
        sb_printf(s, "\"type\":\"map\",\"nullable\":%s,\"key\":{", nullable);
        stype_json(s, n->child[0], false);
        sb_puts(s, "},\"value\":{");
        stype_json(s, n->child[1], false);
        sb_puts(s, "}");
        break;
    case SK_STRUCT:
        sb_printf(s, "\"type\":\"struct\",\"nullable\":%s,\"fields\":[", nullable);
        for (int i = 0; i < n->nchild; i++) {
            sb_puts(s, i ? ",{" : "{");
            stype_json(s, n->child[i], true);
            sb_puts(s, "}");
        }
        sb_puts(s, "]");
        break;
    }
}

static void sjson(const sfile *f, inlay_writer *w)
{
    sbuf s = {0};
    sb_printf(&s, "{\n\"name\":\"%s\",\n\"nested\":true,\n\"rows\":%zu,\n", f->name, f->rows);
    sb_printf(&s, "\"compression\":\"%s\",\n", f->zstd ? "ZSTD" : "UNCOMPRESSED");
    sb_printf(&s, "\"options\":{\"page_rows\":%zu,\"row_group_rows\":%zu,\"page_version\":%d,"
                  "\"append_array\":true,\"mask\":\"%05x\",\"required_validity\":%s},\n",
              f->page_rows, f->rg_rows, f->page_version, (unsigned)f->mask, f->req_validity ? "true" : "false");
    size_t groups = (f->rows + f->rg_rows - 1) / f->rg_rows;
    sb_printf(&s, "\"expect\":{\"row_groups\":%zu},\n", groups);
    sb_printf(&s, "\"writer\":{\"rows\":%llu,\"row_groups\":%llu,\"bytes\":%llu},\n",
              (unsigned long long)inlay_writer_rows(w), (unsigned long long)inlay_writer_row_groups(w),
              (unsigned long long)inlay_writer_bytes(w));
    sb_printf(&s, "\"created_by\":\"inlay version %s\",\n", inlay_version());
    sb_puts(&s, "\"leaves\":[\n");
    for (int k = 0; k < f->nleaves; k++) {
        const sleafinfo *l = &f->leaves[k];
        sb_printf(&s, "%s{\"path\":\"%s\",\"type\":\"%s\",\"max_def\":%d,\"max_rep\":%d,\"encoding\":\"%s\",",
                  k ? ",\n" : "", l->path, sleaf_tag[l->type], l->max_def, l->max_rep,
                  choice_name(sencoding(f, l->type)));
        sb_puts(&s, "\"entries\":[");
        for (size_t g = 0; g < groups; g++)
            sb_printf(&s, "%s%zu", g ? "," : "", l->entries[g]);
        sb_puts(&s, "],\"nulls\":[");
        for (size_t g = 0; g < groups; g++)
            sb_printf(&s, "%s%zu", g ? "," : "", l->entries[g] - l->values[g]);
        sb_puts(&s, "]}");
    }
    sb_puts(&s, "\n],\n\"fields\":[\n");
    for (int k = 0; k < SFIELDS; k++) {
        sb_puts(&s, k ? ",\n{" : "{");
        stype_json(&s, f->fields[k], true);
        sb_printf(&s, ",\"values\":[\n%s]}", f->values[k].p ? f->values[k].p : "");
    }
    sb_puts(&s, "\n]\n}\n");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.json", g_outdir, f->name);
    write_file(path, s.p, s.len);
    free(s.p);
}

static void swrite_body(sfile *f, rng *r)
{
    g_file = f->name;
    inlay_schema *s = inlay_schema_create(NULL);
    if (!s)
        die("%s: inlay_schema_create failed", f->name);
    for (int k = 0; k < SFIELDS; k++)
        if (sschema_add(s, 0, f, f->fields[k]) <= 0)
            die("%s: building the schema failed: %s", f->name, inlay_schema_errmsg(s));
    if (inlay_schema_num_columns(s) != f->nleaves)
        die("%s: schema has %d leaves, expected %d", f->name, inlay_schema_num_columns(s), f->nleaves);
    inlay_options o;
    inlay_options_init(&o);
    o.threads = fixture_threads();
    o.compression = f->zstd ? INLAY_ZSTD : INLAY_UNCOMPRESSED;
    o.page_rows = f->page_rows;
    o.row_group_rows = f->rg_rows;
    o.page_version = f->page_version;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.parquet", g_outdir, f->name);
    inlay_writer *w = NULL;
    int st = inlay_writer_open_file(&w, path, s, &o);
    g_cur_w = w;
    inlay_schema_free(s);
    check(w, st, "open", NULL);
    for (int k = 0; k < f->nleaves; k++)
        if (inlay_writer_column(w, f->leaves[k].path) != k)
            die("%s: inlay_writer_column(%s) = %d, expected %d", f->name, f->leaves[k].path,
                inlay_writer_column(w, f->leaves[k].path), k);
    /* round robin, each field its own batch sizes */
    size_t next[SFIELDS] = {0};
    for (bool more = true; more;) {
        more = false;
        for (int k = 0; k < SFIELDS; k++) {
            size_t a = next[k], n = sbatch(r, f->page_rows);
            if (a >= f->rows)
                continue;
            if (n > f->rows - a)
                n = f->rows - a;
            inlay_array x = sslice(f->fields[k], &f->fields[k]->arr, a, n);
            char what[96];
            snprintf(what, sizeof what, "inlay_writer_append_array of field %s, rows %zu..%zu", f->fields[k]->name,
                     a, a + n - 1);
            check(w, inlay_writer_append_array(w, k, &x, n), what, NULL);
            next[k] = a + n;
            more = true;
        }
    }
    check(w, inlay_writer_close(w), "close", NULL);
    if (inlay_writer_rows(w) != f->rows)
        die("%s: inlay_writer_rows = %llu after close, expected %zu", f->name,
            (unsigned long long)inlay_writer_rows(w), f->rows);
    sjson(f, w);
    inlay_writer_free(w);
    g_cur_w = NULL;
    g_files++;
}

typedef struct sconf {
    const char *name;
    size_t rows, page_rows, rg_rows;
    int page_version;
    bool zstd, req_validity;
    uint32_t mask;
    unsigned null_pct, empty_pct;
    inlay_encoding_choice enc_int, enc_string, enc_double, enc_fixed;   /* 0: AUTO */
} sconf;

static void shred_file(const sconf *c)
{
    static const char *const names[SFIELDS] = {"id",   "pts",      "pts_inv", "rec",  "rec_inv", "kv",
                                               "kv_inv", "grid", "grid_inv", "nest", "nest_inv"};
    sfile *f = xcalloc(1, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", c->name);
    f->rows = c->rows;
    f->page_rows = c->page_rows;
    f->rg_rows = c->rg_rows;
    f->page_version = c->page_version;
    f->zstd = c->zstd;
    f->req_validity = c->req_validity;
    f->mask = c->mask;
    f->null_pct = c->null_pct;
    f->empty_pct = c->empty_pct;
    f->enc_int = c->enc_int;
    f->enc_string = c->enc_string;
    f->enc_double = c->enc_double;
    f->enc_fixed = c->enc_fixed;
    f->fields[0] = sleafnew(f, names[0], false, SL_INT64);
    f->fields[0]->rowid = true;
    for (int s = 0; s < SHAPES; s++) {
        unsigned m = (unsigned)(c->mask >> (4 * s)) & 0xf;
        f->fields[1 + 2 * s] = sshape(f, s, names[1 + 2 * s], m);
        f->fields[2 + 2 * s] = sshape(f, s, names[2 + 2 * s], ~m & 0xf);
    }
    for (int k = 0; k < SFIELDS; k++)
        sleaves(f, f->fields[k], "", 0, 0);

    rng r;
    rng_seed_str(&r, f->name);
    for (f->row = 0; f->row < f->rows; f->row++) {
        f->group = f->row / f->rg_rows;
        for (int k = 0; k < SFIELDS; k++) {
            if (f->row)
                sb_puts(&f->values[k], f->row % 8 ? "," : ",\n");
            sgen(f, f->fields[k], &r, &f->values[k], false);
        }
    }
    for (int k = 0; k < SFIELDS; k++)
        sbuild(f, f->fields[k]);

    g_cur_w = NULL;
    g_cur_mem = false;
    if (setjmp(g_fail)) {
        g_fail_armed = false;
        inlay_writer_free(g_cur_w);
        g_cur_w = NULL;
        size_t used = strlen(g_failed_names);
        snprintf(g_failed_names + used, sizeof g_failed_names - used, " %s", f->name);
        g_failed++;
    } else {
        g_fail_armed = true;
        swrite_body(f, &r);
        g_fail_armed = false;
    }

    for (int i = 0; i < f->nnodes; i++) {
        free(f->nodes[i].valid.p);
        free(f->nodes[i].offsets.p);
        free(f->nodes[i].values.p);
    }
    for (int k = 0; k < f->nleaves; k++) {
        free(f->leaves[k].entries);
        free(f->leaves[k].values);
    }
    for (int k = 0; k < SFIELDS; k++)
        free(f->values[k].p);
    free(f);
    arena_reset();
}

/* Masks: the first file has every node optional in the plain fields (and
 * required in the _inv ones); the others mix them. */
static void shred_files(void)
{
    shred_file(&(sconf){.name = "shred__v1__zstd", .rows = 1000, .page_rows = 37, .rg_rows = 300,
                        .page_version = 1, .zstd = true, .mask = 0xfffff, .null_pct = 15, .empty_pct = 12});
    shred_file(&(sconf){.name = "shred__v2__uncompressed", .rows = 1000, .page_rows = 50, .rg_rows = 256,
                        .page_version = 2, .mask = 0xa5c36, .req_validity = true, .null_pct = 15,
                        .empty_pct = 12});
    shred_file(&(sconf){.name = "shred__v1__uncompressed__plain__tiny_pages", .rows = 400, .page_rows = 3,
                        .rg_rows = 64, .page_version = 1, .mask = 0x3c96a, .null_pct = 30, .empty_pct = 25,
                        .enc_int = INLAY_ENCODING_PLAIN, .enc_string = INLAY_ENCODING_PLAIN,
                        .enc_double = INLAY_ENCODING_PLAIN, .enc_fixed = INLAY_ENCODING_PLAIN});
    shred_file(&(sconf){.name = "shred__v2__zstd__delta", .rows = 900, .page_rows = 40, .rg_rows = 350,
                        .page_version = 2, .zstd = true, .mask = 0x96a5c, .null_pct = 15, .empty_pct = 12,
                        .enc_int = INLAY_ENCODING_DELTA, .enc_string = INLAY_ENCODING_DELTA_BYTE_ARRAY,
                        .enc_double = INLAY_ENCODING_BYTE_STREAM_SPLIT, .enc_fixed = INLAY_ENCODING_DELTA});
    shred_file(&(sconf){.name = "shred__v2__zstd__dictionary", .rows = 800, .page_rows = 20, .rg_rows = 250,
                        .page_version = 2, .zstd = true, .mask = 0x6c39a, .req_validity = true,
                        .null_pct = 15, .empty_pct = 12, .enc_int = INLAY_ENCODING_DICTIONARY,
                        .enc_string = INLAY_ENCODING_DICTIONARY, .enc_double = INLAY_ENCODING_DICTIONARY,
                        .enc_fixed = INLAY_ENCODING_DICTIONARY});
    shred_file(&(sconf){.name = "shred__v1__zstd__mostly_null", .rows = 600, .page_rows = 16, .rg_rows = 200,
                        .page_version = 1, .zstd = true, .mask = 0xfffff, .null_pct = 60, .empty_pct = 40});
}

/*----------------------------------------------------------------------
 *  Codecs: every codec x page version x flat and nested, per-column
 *  codecs, and min_compression_gain
 *
 * Their JSON adds, per column (per leaf in nested files), "codec" and
 * "level" (what the column was given, the level resolved to the codec's
 * default or 0 without levels), "stats" (inlay_writer_column_stats after
 * close) and, where the options or the data settle it, "chunk_codecs" (the
 * footer's codec of each chunk; see chunk_expect). The top level has
 * "compression" / "compression_level" (the writer's options) and
 * options.min_compression_gain. Every file of the matrix has them.
 *--------------------------------------------------------------------*/

/* Every codec, and a level of it that is not the default and takes another
 * path through the codec: gzip 1 (deflate_fast), brotli 11 (the slow
 * optimal parse), zstd -5 (the fast negative levels), lz4_raw 9 (LZ4 HC). */
static const struct {
    inlay_compression codec;
    bool has_levels;
    int other_level;
} g_codecs[] = {
    {INLAY_UNCOMPRESSED, false, 0}, {INLAY_SNAPPY, false, 0}, {INLAY_GZIP, true, 1},
    {INLAY_BROTLI, true, 11},       {INLAY_ZSTD, true, -5},   {INLAY_LZ4_RAW, true, 9},
};
#define NCODECS (sizeof g_codecs / sizeof g_codecs[0])

/* Text every codec shrinks far past any min_compression_gain asked. */
static void gen_text(column *col, size_t rows, int variant)
{
    col->cells = xcalloc(rows, sizeof(cell));
    for (size_t i = 0; i < rows; i++) {
        char buf[128];
        if (variant)
            snprintf(buf, sizeof buf, "note %zu: nothing to report, all quiet, nothing to report", i % 97);
        else
            snprintf(buf, sizeof buf, "row %05zu: the same words again and again and again", i);
        set_bytes(&col->cells[i], buf, strlen(buf));
    }
}

/* Random bits no codec can shrink (doubles: some are NaNs). */
static void gen_noise_column(column *col, size_t rows, rng *r)
{
    col->cells = xcalloc(rows, sizeof(cell));
    for (size_t i = 0; i < rows; i++)
        gen_noise(col->t, r, &col->cells[i]);
    if (col->nm != NM_REQUIRED)
        for (size_t i = 0; i < rows; i++)
            col->cells[i].null = rchance(r, 10);
}

/* Doubles uniform in [0, 1000), as bench_write_table has them: what the
 * gain rule is for. */
static void gen_uniform_column(column *col, size_t rows, rng *r)
{
    col->cells = xcalloc(rows, sizeof(cell));
    for (size_t i = 0; i < rows; i++)
        col->cells[i].d = (double)(rnext(r) >> 11) * 0x1.0p-53 * 1000.0;
}

/* A column of a codec file: how it is generated. */
enum cgen { CG_MODE, CG_TEXT, CG_TEXT2, CG_NOISE, CG_UNIFORM, CG_ALL_NULL };

typedef struct ccol {
    const char *name, *tag;
    inlay_encoding_choice enc;
    enum nullmode nm;
    enum cgen gen;
    enum encmode em;                  /* CG_MODE: gen_column's mode */
    int codec;                        /* -1: the file's */
    int level;                        /* with codec: INLAY_LEVEL_DEFAULT or a level */
} ccol;

static void codec_columns(fspec *f, const ccol *cs, size_t n, rng *r)
{
    int cap = 0;
    for (size_t k = 0; k < n; k++) {
        const ccol *cc = &cs[k];
        column *c = add_col(f, &cap, cc->name, find_type(cc->tag), cc->enc, cc->nm, cc->gen == CG_ALL_NULL);
        if (cc->codec >= 0) {
            c->codec_set = true;
            c->codec = (inlay_compression)cc->codec;
            c->level = cc->level;
        }
        switch (cc->gen) {
        case CG_TEXT:
        case CG_TEXT2:
            c->expect = X_CODEC;
            c->compressible = true;
            break;
        case CG_NOISE:
            c->expect = X_RAW;
            c->incompressible = true;
            break;
        default: break;
        }
    }
    for (int k = 0; k < f->ncols; k++) {
        column *c = &f->cols[k];
        switch (cs[k].gen) {
        case CG_TEXT: gen_text(c, f->rows, 0); break;
        case CG_TEXT2: gen_text(c, f->rows, 1); break;
        case CG_NOISE: gen_noise_column(c, f->rows, r); break;
        case CG_UNIFORM: gen_uniform_column(c, f->rows, r); break;
        default: gen_column(c, f->rows, cs[k].em, f->rg_rows, f->page_rows, r, k % 3 == 1); break;
        }
    }
}

#define L_DEF INLAY_LEVEL_DEFAULT

/* A flat file of one codec at one level: several types side by side
 * (integers, strings, doubles, floats, booleans, timestamps, binary,
 * decimals), with nulls, in several encodings, text every codec shrinks
 * and random bits none does. gain < 0: the default min_compression_gain. */
static void codec_flat_file(inlay_compression codec, int level, int page_version, double gain)
{
    fspec f;
    memset(&f, 0, sizeof f);
    char lv[16];
    snprintf(f.name, sizeof f.name, "codec__%s__v%d__%s", codec_short(codec), page_version,
             level_short(level, lv, sizeof lv));
    rng r;
    rng_seed_str(&r, f.name);
    f.em = E_MIXED;
    f.codec_set = true;
    f.codec = codec;
    f.level = level;
    f.gain_set = gain >= 0;
    f.min_gain = gain;
    f.page_version = page_version;
    f.rows = 3000;
    f.page_rows = 400;
    f.page_bytes = 16384;
    f.rg_rows = 1300;
    f.dict_bytes = INLAY_DEFAULT_DICTIONARY_BYTES;
    f.column_at_a_time = rchance(&r, 25);
    f.append_columns = !f.column_at_a_time && rchance(&r, 40);
    static const ccol cs[] = {
        {"id", "int64", INLAY_ENCODING_DELTA, NM_REQUIRED, CG_MODE, E_DELTA, -1, 0},
        {"name", "string", INLAY_ENCODING_DICTIONARY, NM_DEF, CG_MODE, E_DICT, -1, 0},
        {"qty", "int32", INLAY_ENCODING_AUTO, NM_VALIDITY, CG_MODE, E_DICT, -1, 0},
        {"price", "double", INLAY_ENCODING_AUTO, NM_DEF, CG_MODE, E_PLAIN, -1, 0},
        {"ratio", "float", INLAY_ENCODING_BYTE_STREAM_SPLIT, NM_REQUIRED, CG_MODE, E_BSS, -1, 0},
        {"flag", "boolean", INLAY_ENCODING_AUTO, NM_DEF, CG_MODE, E_PLAIN, -1, 0},
        {"ts", "timestamp_us_utc", INLAY_ENCODING_DELTA, NM_VALIDITY, CG_MODE, E_DELTA, -1, 0},
        {"blob", "binary", INLAY_ENCODING_DELTA_BYTE_ARRAY, NM_DEF, CG_MODE, E_DBA, -1, 0},
        {"amount", "decimal_18_4_int64", INLAY_ENCODING_PLAIN, NM_REQUIRED, CG_MODE, E_PLAIN, -1, 0},
        {"text", "string", INLAY_ENCODING_PLAIN, NM_REQUIRED, CG_TEXT, E_PLAIN, -1, 0},
        {"noise", "double", INLAY_ENCODING_PLAIN, NM_REQUIRED, CG_NOISE, E_PLAIN, -1, 0},
        {"none", "int64", INLAY_ENCODING_AUTO, NM_DEF, CG_ALL_NULL, E_PLAIN, -1, 0},
    };
    codec_columns(&f, cs, sizeof cs / sizeof cs[0], &r);
    write_parquet(&f, &r);
    free_file(&f);
}

/* Columns with codecs of their own, and one that takes the file's (GZIP 9). */
static void percol_file(const char *name, int page_version, double gain)
{
    fspec f;
    memset(&f, 0, sizeof f);
    snprintf(f.name, sizeof f.name, "%s", name);
    rng r;
    rng_seed_str(&r, f.name);
    f.em = E_MIXED;
    f.codec_set = true;
    f.codec = INLAY_GZIP;
    f.level = 9;
    f.gain_set = gain >= 0;
    f.min_gain = gain;
    f.page_version = page_version;
    f.rows = 3500;
    f.page_rows = 500;
    f.page_bytes = 32768;
    f.rg_rows = 1200;
    f.dict_bytes = INLAY_DEFAULT_DICTIONARY_BYTES;
    f.append_columns = rchance(&r, 50);
    static const ccol cs[] = {
        {"id", "int64", INLAY_ENCODING_DELTA, NM_REQUIRED, CG_MODE, E_DELTA, INLAY_SNAPPY, L_DEF},
        {"payload", "string", INLAY_ENCODING_PLAIN, NM_REQUIRED, CG_TEXT, E_PLAIN, INLAY_ZSTD, 19},
        {"flag", "boolean", INLAY_ENCODING_AUTO, NM_DEF, CG_MODE, E_PLAIN, INLAY_UNCOMPRESSED, L_DEF},
        {"city", "string", INLAY_ENCODING_DICTIONARY, NM_VALIDITY, CG_MODE, E_DICT, INLAY_GZIP, 1},
        {"count", "int64", INLAY_ENCODING_AUTO, NM_DEF, CG_MODE, E_DICT, INLAY_LZ4_RAW, 9},
        {"noise", "double", INLAY_ENCODING_PLAIN, NM_REQUIRED, CG_NOISE, E_PLAIN, INLAY_LZ4_RAW, -8},
        {"note", "string", INLAY_ENCODING_PLAIN, NM_DEF, CG_TEXT2, E_PLAIN, INLAY_BROTLI, 11},
        {"small", "int32", INLAY_ENCODING_DELTA, NM_VALIDITY, CG_MODE, E_DELTA, INLAY_BROTLI, 0},
        {"inherit", "int32", INLAY_ENCODING_AUTO, NM_REQUIRED, CG_MODE, E_DICT, -1, 0},
        {"zneg", "double", INLAY_ENCODING_AUTO, NM_DEF, CG_MODE, E_PLAIN, INLAY_ZSTD, -5},
        {"zdef", "float", INLAY_ENCODING_BYTE_STREAM_SPLIT, NM_REQUIRED, CG_MODE, E_BSS, INLAY_ZSTD, L_DEF},
        {"snap_text", "string", INLAY_ENCODING_DELTA_BYTE_ARRAY, NM_DEF, CG_TEXT, E_PLAIN, INLAY_SNAPPY, L_DEF},
    };
    codec_columns(&f, cs, sizeof cs / sizeof cs[0], &r);
    write_parquet(&f, &r);
    free_file(&f);
}

/* min_compression_gain at work: random bits (stored UNCOMPRESSED in v1
 * whenever a gain is asked), doubles uniform in [0, 1000) (the rule
 * decides), text (compressed), and integers and categories. gain < 0: the
 * default. */
static void gain_file(const char *name, inlay_compression codec, int page_version, double gain)
{
    fspec f;
    memset(&f, 0, sizeof f);
    snprintf(f.name, sizeof f.name, "%s", name);
    rng r;
    rng_seed_str(&r, f.name);
    f.em = E_MIXED;
    f.codec_set = true;
    f.codec = codec;
    f.level = L_DEF;
    f.gain_set = gain >= 0;
    f.min_gain = gain;
    f.page_version = page_version;
    f.rows = 4000;
    f.page_rows = 500;
    f.page_bytes = 65536;
    f.rg_rows = 1500;
    f.dict_bytes = INLAY_DEFAULT_DICTIONARY_BYTES;
    f.column_at_a_time = rchance(&r, 30);
    static const ccol cs[] = {
        {"noise", "double", INLAY_ENCODING_PLAIN, NM_REQUIRED, CG_NOISE, E_PLAIN, -1, 0},
        {"uniform", "double", INLAY_ENCODING_PLAIN, NM_REQUIRED, CG_UNIFORM, E_PLAIN, -1, 0},
        {"text", "string", INLAY_ENCODING_PLAIN, NM_REQUIRED, CG_TEXT, E_PLAIN, -1, 0},
        {"id", "int64", INLAY_ENCODING_DELTA, NM_REQUIRED, CG_MODE, E_DELTA, -1, 0},
        {"cat", "string", INLAY_ENCODING_DICTIONARY, NM_DEF, CG_MODE, E_DICT, -1, 0},
        {"bits", "int64", INLAY_ENCODING_PLAIN, NM_VALIDITY, CG_NOISE, E_PLAIN, -1, 0},
    };
    codec_columns(&f, cs, sizeof cs / sizeof cs[0], &r);
    write_parquet(&f, &r);
    free_file(&f);
}

static void codec_files(void)
{
    for (size_t k = 0; k < NCODECS; k++) {
        inlay_compression c = g_codecs[k].codec;
        for (int pv = 1; pv <= 2; pv++) {
            char name[64], lv[16];
            /* the default level under the default min_compression_gain;
             * the other level with none, so every chunk is compressed */
            codec_flat_file(c, L_DEF, pv, -1);
            snprintf(name, sizeof name, "nested__codec__%s__v%d__default", codec_short(c), pv);
            nested_file_codec(name, 900, 37, 300, pv, c, L_DEF, -1, k % 2 == 1, INLAY_ENCODING_AUTO,
                              INLAY_ENCODING_AUTO, INLAY_ENCODING_AUTO);
            if (!g_codecs[k].has_levels)
                continue;
            int other = g_codecs[k].other_level;
            codec_flat_file(c, other, pv, 0);
            snprintf(name, sizeof name, "nested__codec__%s__v%d__%s", codec_short(c), pv,
                     level_short(other, lv, sizeof lv));
            nested_file_codec(name, 700, 29, 250, pv, c, other, 0, k % 2 == 0,
                              pv == 1 ? INLAY_ENCODING_DICTIONARY : INLAY_ENCODING_DELTA,
                              pv == 1 ? INLAY_ENCODING_DICTIONARY : INLAY_ENCODING_DELTA_BYTE_ARRAY,
                              pv == 1 ? INLAY_ENCODING_PLAIN : INLAY_ENCODING_BYTE_STREAM_SPLIT);
        }
    }
    percol_file("percol__v1", 1, -1);
    percol_file("percol__v1__gain0", 1, 0);
    percol_file("percol__v2", 2, -1);
    gain_file("gain__v1__zstd__default", INLAY_ZSTD, 1, -1);
    gain_file("gain__v1__zstd__zero", INLAY_ZSTD, 1, 0);
    gain_file("gain__v1__gzip__half", INLAY_GZIP, 1, 0.5);
    gain_file("gain__v1__snappy__default", INLAY_SNAPPY, 1, -1);
    gain_file("gain__v1__lz4_raw__default", INLAY_LZ4_RAW, 1, -1);
    gain_file("gain__v1__brotli__default", INLAY_BROTLI, 1, -1);
    gain_file("gain__v2__zstd__default", INLAY_ZSTD, 2, -1);
    gain_file("gain__v2__lz4_raw__zero", INLAY_LZ4_RAW, 2, 0);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    g_outdir = argv[1];
    if (mkdir(g_outdir, 0777) != 0 && errno != EEXIST)
        die("cannot create %s: %s", g_outdir, strerror(errno));

    build_types();
    if (strcmp(g_types[4].tag, "int64") != 0)
        die("internal: type table order");

    int before = g_files;
    for (int i = 0; i < g_ntypes; i++) {
        const tspec *t = &g_types[i];
        for (int e = E_DICT; e <= E_FALLBACK; e++) {
            enum encmode em = (enum encmode)e;
            if (t->kind == K_BOOL && em != E_PLAIN)
                em = e == E_DICT ? E_AUTO : E_PLAIN; /* booleans are not dictionary encoded */
            if (t->kind == K_BOOL && e == E_FALLBACK)
                continue;
            for (int z = 0; z < 2; z++)
                matrix_file(t, em, z == 1);
        }
    }
    int n_main = g_files - before;
    /* the value encodings, for every type each applies to */
    before = g_files;
    for (int i = 0; i < g_ntypes; i++)
        for (int e = E_DELTA; e <= E_RLE; e++)
            if (encmode_applies((enum encmode)e, &g_types[i]))
                for (int z = 0; z < 2; z++)
                    matrix_file(&g_types[i], (enum encmode)e, z == 1);
    int n_enc = g_files - before;
    /* Data Page V2 */
    before = g_files;
    static const enum encmode v2modes[] = {E_DICT, E_PLAIN, E_FALLBACK, E_DELTA, E_DBA, E_BSS, E_RLE};
    for (size_t m = 0; m < sizeof v2modes / sizeof v2modes[0]; m++)
        for (int z = 0; z < 2; z++)
            v2_wide_file(v2modes[m], z == 1);
    static const size_t edge_pages[] = {1, 31, 33, 127, 129};
    for (size_t k = 0; k < sizeof edge_pages / sizeof edge_pages[0]; k++) {
        delta_edges_file(edge_pages[k], 1, k % 2 == 0);
        delta_edges_file(edge_pages[k], 2, k % 2 == 1);
    }
    append_time_file(1, true);
    append_time_file(2, false);
    null_first_file("string", INLAY_ENCODING_DELTA, 1);
    null_first_file("binary", INLAY_ENCODING_DELTA_BYTE_ARRAY, 2);
    null_first_file("fixed7", INLAY_ENCODING_DELTA_BYTE_ARRAY, 1);
    null_first_file("uuid", INLAY_ENCODING_DELTA, 2);
    int n_v2 = g_files - before;
    before = g_files;
    nested_files();
    shred_files();
    int n_nested = g_files - before;
    before = g_files;
    codec_files();
    int n_codec = g_files - before;
    special_files();
    float_edges_file();
    empty_file();
    printf("interop_fixtures: wrote %d files to %s (%d type x {dictionary, plain, fallback}, "
           "%d type x value encoding, %d page v2 / delta edge / append_time / null first, %d nested, "
           "%d codec x page version x flat/nested, per-column codecs, min_compression_gain, %d special)\n",
           g_files, g_outdir, n_main, n_enc, n_v2, n_nested, n_codec,
           g_files - n_main - n_enc - n_v2 - n_nested - n_codec);
    if (g_failed) {
        fprintf(stderr, "interop_fixtures: %d file(s) could not be written:%s\n", g_failed,
                g_failed_names);
        return 1;
    }
    return 0;
}
