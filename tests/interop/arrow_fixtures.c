/*
 * interop_arrow_fixtures OUTDIR
 *
 * Files written through inlay_writer_append_arrow, for check.mjs: each
 * NAME.parquet with a NAME.json in the format fixtures.c describes (flat
 * files: "columns"; nested files: "nested": true with "fields" and
 * "leaves"), the values in their canonical forms.
 *
 * The rows are generated once per file into Arrow arrays laid out as the
 * C data interface has them: validity bitmaps LSB first, int32 or int64
 * offsets, string views (short values inline, long ones in two variadic
 * buffers, with the buffer of their sizes), bit-packed booleans, decimals
 * as little-endian two's complement of 32 to 256 bits, dictionaries
 * (indices of every integer width into a dictionary that starts at offset
 * 1), structs, lists, large lists and maps, with junk under the nulls
 * (a null struct's children have entries, a null list may span child
 * entries) and junk entries before the rows. Every top-level array starts
 * at offset 1, and the rows are appended in uneven record batches, each a
 * "+s" array whose own offset selects its rows: validity bitmaps are read
 * from any bit. The writer's schema comes from inlay_schema_from_arrow,
 * whose column types are checked against the ones this program expects.
 *
 * The expected values are computed here from what was generated: times in
 * seconds become milliseconds, date64 values the day they fall in.
 *
 * Exit status: 0; 1 when libinlay failed on some file (named on stderr; the
 * others are written); 2 on a usage or internal error.
 */
#include <inlay.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
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
 *  Utilities
 *--------------------------------------------------------------------*/

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("interop_arrow_fixtures: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) die("out of memory");
    return p;
}

/* A growable byte array. */
typedef struct gbuf {
    uint8_t *p;
    size_t len, cap;
} gbuf;

static void gb_reserve(gbuf *b, size_t more)
{
    if (b->len + more <= b->cap) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more) cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) die("out of memory");
    memset(p + b->cap, 0, cap - b->cap);
    b->p = p;
    b->cap = cap;
}

static void gb_put(gbuf *b, const void *d, size_t n)
{
    gb_reserve(b, n + 1);
    if (n) memcpy(b->p + b->len, d, n);
    b->len += n;
}

/* Bit i of a bitmap whose bits come in order. */
static void gb_bit(gbuf *b, size_t i, bool on)
{
    if (i / 8 >= b->len) {
        gb_reserve(b, 1);
        b->p[b->len++] = 0;
    }
    if (on) b->p[i / 8] |= (uint8_t)(1u << (i % 8));
}

static void gb_free(gbuf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) die("cannot write %s: %s", path, strerror(errno));
}

/* xoshiro256** seeded by splitmix64 from the file name. */
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

static void rng_seed_str(rng *r, const char *text)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *p = text; *p; p++) h = (h ^ (uint8_t)*p) * 1099511628211ull;
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&h);
}

static uint64_t rnext(rng *r)
{
    uint64_t *s = r->s;
    const uint64_t result = ((s[1] * 5) << 7 | (s[1] * 5) >> 57) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = s[3] << 45 | s[3] >> 19;
    return result;
}

static uint64_t rbelow(rng *r, uint64_t n) { return rnext(r) % n; }
static int64_t rrange(rng *r, int64_t lo, int64_t hi) { return lo + (int64_t)rbelow(r, (uint64_t)(hi - lo) + 1); }
static bool rchance(rng *r, unsigned pct) { return rbelow(r, 100) < pct; }

/*----------------------------------------------------------------------
 *  Leaf types: Arrow format, value generation, Arrow layout, canonical JSON
 *--------------------------------------------------------------------*/

enum lk { LK_BOOL, LK_INT, LK_F16, LK_F32, LK_F64, LK_STR, LK_BIN, LK_FIXED, LK_DEC, LK_DATE32, LK_DATE64, LK_TIME, LK_TS };
enum { L_OFF32, L_OFF64, L_VIEW };

typedef struct leafdef {
    const char *format;    /* the Arrow format of the values */
    const char *index;     /* dictionary-encoded: the indices' format; else NULL */
    const char *ext;       /* ARROW:extension:name, or NULL */
    enum lk lk;
    int bytes;             /* bytes per value: LK_INT, LK_DEC, LK_FIXED, LK_TIME */
    bool is_signed;        /* LK_INT */
    int layout;            /* LK_STR, LK_BIN */
    int precision, scale;  /* LK_DEC */
    int unit;              /* LK_TIME, LK_TS: 0 s, 1 ms, 2 us, 3 ns */
    const char *json;      /* the JSON type: tag and parameters */
    const char *inlay;     /* the column type inlay_schema_from_arrow must give */
} leafdef;

typedef struct val {
    bool null;
    int64_t i;             /* integers, dates, times, timestamps (as Arrow has them) */
    double d;
    uint16_t h;
    uint8_t b[64];         /* strings, binaries, fixed; decimals little-endian */
    size_t len;
    bool neg;              /* decimals: sign and digits */
    char digits[80];
} val;

static const int64_t pow10_tab[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
                                     10000000000LL, 100000000000LL, 1000000000000LL };

static void gen_text(rng *r, val *v, size_t max_chars)
{
    static const char *const pieces[] = { "a", "b", "z", "Q", "0", "7", " ", "_", "-", "é", "ß", "中", "文", "😀", "\"",
                                          "\\" };
    const size_t n = rbelow(r, max_chars + 1);
    v->len = 0;
    for (size_t i = 0; i < n; i++) {
        const char *p = pieces[rbelow(r, sizeof pieces / sizeof pieces[0])];
        const size_t k = strlen(p);
        if (v->len + k > sizeof v->b) break;
        memcpy(v->b + v->len, p, k);
        v->len += k;
    }
}

/* value digits into w bytes of little-endian two's complement */
static void dec_bytes(val *v, int w)
{
    memset(v->b, 0, (size_t)w);
    for (const char *p = v->digits; *p; p++) {
        unsigned carry = (unsigned)(*p - '0');
        for (int k = 0; k < w; k++) {
            const unsigned x = v->b[k] * 10u + carry;
            v->b[k] = (uint8_t)x;
            carry = x >> 8;
        }
    }
    if (v->neg) {
        unsigned carry = 1;
        for (int k = 0; k < w; k++) {
            const unsigned x = (uint8_t)~v->b[k] + carry;
            v->b[k] = (uint8_t)x;
            carry = x >> 8;
        }
    }
}

static void gen_value(const leafdef *ld, rng *r, val *v)
{
    memset(v, 0, sizeof *v);
    switch (ld->lk) {
    case LK_BOOL: v->i = (int64_t)rbelow(r, 2); break;
    case LK_INT: {
        const int bits = ld->bytes * 8;
        const uint64_t k = rbelow(r, 10);
        if (ld->is_signed) {
            const int64_t lo = bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
            const int64_t hi = bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
            v->i = k == 0 ? lo : k == 1 ? hi : k == 2 ? 0 : (int64_t)((rnext(r) >> (64 - bits)) + (uint64_t)lo);
        } else {
            const uint64_t hi = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
            v->i = (int64_t)(k == 0 ? 0 : k == 1 ? hi : rnext(r) & hi);
        }
        break;
    }
    case LK_F16: {
        const uint16_t e = (uint16_t)rbelow(r, 31);   /* no infinities, no NaN */
        v->h = (uint16_t)((rbelow(r, 2) << 15) | e << 10 | rbelow(r, 1024));
        break;
    }
    case LK_F32: v->d = (double)(float)((double)rrange(r, -2000000, 2000000) / 7.0); break;
    case LK_F64: v->d = (double)rrange(r, -4000000000000LL, 4000000000000LL) / 1024.0 + (rchance(r, 5) ? 1e300 : 0); break;
    case LK_STR:
        if (ld->ext && !strcmp(ld->ext, "arrow.json")) {   /* JSON text, for readers that parse it */
            v->len = (size_t)snprintf((char *)v->b, sizeof v->b, "{\"n\":%d,\"s\":[\"é\",%d]}", (int)rbelow(r, 1000),
                                      (int)rbelow(r, 10));
            break;
        }
        gen_text(r, v, rchance(r, 30) ? 3 : 12);
        break;
    case LK_BIN:
        v->len = rbelow(r, rchance(r, 30) ? 13 : 40);
        for (size_t i = 0; i < v->len; i++) v->b[i] = (uint8_t)rnext(r);
        break;
    case LK_FIXED:
        v->len = (size_t)ld->bytes;
        for (size_t i = 0; i < v->len; i++) v->b[i] = (uint8_t)rnext(r);
        break;
    case LK_DEC: {
        const size_t nd = rbelow(r, (uint64_t)ld->precision + 1);
        for (size_t i = 0; i < nd; i++) v->digits[i] = (char)('0' + (i || nd == 1 ? rbelow(r, 10) : 1 + rbelow(r, 9)));
        if (!nd) v->digits[0] = '0';
        v->neg = rchance(r, 40) && strcmp(v->digits, "0") != 0;
        dec_bytes(v, ld->bytes);
        break;
    }
    case LK_DATE32: v->i = rrange(r, -40000, 40000); break;
    case LK_DATE64: v->i = rrange(r, -40000, 40000) * 86400000LL + rrange(r, 0, 86399999); break;
    case LK_TIME: v->i = rrange(r, 0, 86400 * pow10_tab[3 * ld->unit] - 1); break;
    case LK_TS: {
        static const int64_t span[] = { 4000000000LL, 4000000000000LL, 4000000000000000LL, 4000000000000000000LL };
        v->i = rrange(r, -span[ld->unit], span[ld->unit]);
        break;
    }
    }
}

static double half_to_double(uint16_t h)
{
    const int e = (h >> 10) & 0x1f, f = h & 0x3ff;
    const double m = e == 0 ? ldexp((double)f, -24) : ldexp((double)(f + 1024), e - 25);
    return (h & 0x8000) ? -m : m;
}

static void emit_double(sbuf *s, double v, int digits)
{
    if (v == 0 && signbit(v)) sb_puts(s, "\"-0\"");
    else sb_printf(s, "%.*g", digits, v);
}

static int64_t floor_div(int64_t a, int64_t b)
{
    const int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* The canonical JSON of a value, in the column's form. */
static void json_value(sbuf *s, const leafdef *ld, const val *v)
{
    if (v->null) {
        sb_puts(s, "null");
        return;
    }
    switch (ld->lk) {
    case LK_BOOL: sb_puts(s, v->i ? "true" : "false"); break;
    case LK_INT:
        if (ld->is_signed || ld->bytes < 8) sb_printf(s, "\"%lld\"", (long long)v->i);
        else sb_printf(s, "\"%llu\"", (unsigned long long)(uint64_t)v->i);
        break;
    case LK_F16: emit_double(s, half_to_double(v->h), 17); break;
    case LK_F32: emit_double(s, v->d, 9); break;
    case LK_F64: emit_double(s, v->d, 17); break;
    case LK_STR:
        sb_json_str(s, v->b, v->len);
        break;
    case LK_BIN: case LK_FIXED:
        if (ld->ext && !strcmp(ld->ext, "arrow.uuid")) {
            static const char hx[] = "0123456789abcdef";
            char u[40];
            size_t k = 0;
            for (int i = 0; i < 16; i++) {
                if (i == 4 || i == 6 || i == 8 || i == 10) u[k++] = '-';
                u[k++] = hx[v->b[i] >> 4];
                u[k++] = hx[v->b[i] & 15];
            }
            u[k] = 0;
            sb_printf(s, "\"%s\"", u);
        } else {
            sb_hex(s, v->b, v->len);
        }
        break;
    case LK_DEC: {
        const char *d = v->digits;
        const size_t nd = strlen(d), sc = (size_t)ld->scale;
        char text[100];
        size_t k = 0;
        if (v->neg) text[k++] = '-';
        if (sc == 0) {
            memcpy(text + k, d, nd);
            k += nd;
        } else {
            const size_t pad = nd < sc + 1 ? sc + 1 - nd : 0;
            char full[100];
            memset(full, '0', pad);
            memcpy(full + pad, d, nd);
            const size_t nf = pad + nd;
            memcpy(text + k, full, nf - sc);
            k += nf - sc;
            text[k++] = '.';
            memcpy(text + k, full + nf - sc, sc);
            k += sc;
        }
        text[k] = 0;
        sb_printf(s, "\"%s\"", text);
        break;
    }
    case LK_DATE32: sb_printf(s, "\"%lld\"", (long long)v->i); break;
    case LK_DATE64: sb_printf(s, "\"%lld\"", (long long)floor_div(v->i, 86400000)); break;
    case LK_TIME: case LK_TS: sb_printf(s, "\"%lld\"", (long long)(ld->unit == 0 ? v->i * 1000 : v->i)); break;
    }
}

/* An Arrow array being built. */
typedef struct abuf {
    gbuf valid, data, text[2];
    int64_t len, nulls;
    int64_t sizes[2];
    const void *buffers[6];
} abuf;

static size_t value_bytes(const leafdef *ld)
{
    switch (ld->lk) {
    case LK_F16: return 2;
    case LK_F32: case LK_DATE32: return 4;
    case LK_F64: case LK_DATE64: case LK_TS: return 8;
    default: return (size_t)ld->bytes;
    }
}

static void abuf_init(abuf *a, const leafdef *ld)
{
    memset(a, 0, sizeof *a);
    if (ld && (ld->lk == LK_STR || ld->lk == LK_BIN) && ld->layout != L_VIEW) {
        const int64_t zero = 0;
        gb_put(&a->data, &zero, ld->layout == L_OFF64 ? 8 : 4);
    }
}

/* One slot: the value, or junk for a null. */
static void abuf_put(abuf *a, const leafdef *ld, const val *v, rng *r)
{
    gb_bit(&a->valid, (size_t)a->len, !v->null);
    a->nulls += v->null;
    val junk;
    if (v->null) {   /* a null's slot holds some value */
        gen_value(ld, r, &junk);
        v = &junk;
    }
    switch (ld->lk) {
    case LK_BOOL:
        gb_bit(&a->data, (size_t)a->len, v->i != 0);
        break;
    case LK_STR: case LK_BIN:
        if (ld->layout == L_VIEW) {
            uint8_t w[16] = { 0 };
            const int32_t len = (int32_t)v->len;
            memcpy(w, &len, 4);
            if (len <= 12) {
                memcpy(w + 4, v->b, v->len);
            } else {
                const int32_t k = (int32_t)(a->len % 2), off = (int32_t)a->text[k].len;
                gb_put(&a->text[k], v->b, v->len);
                a->sizes[k] = (int64_t)a->text[k].len;
                memcpy(w + 4, v->b, 4);
                memcpy(w + 8, &k, 4);
                memcpy(w + 12, &off, 4);
            }
            gb_put(&a->data, w, 16);
        } else {
            gb_put(&a->text[0], v->b, v->len);
            const int64_t end = (int64_t)a->text[0].len;
            const int32_t end32 = (int32_t)end;
            gb_put(&a->data, ld->layout == L_OFF64 ? (const void *)&end : (const void *)&end32, ld->layout == L_OFF64 ? 8 : 4);
        }
        break;
    case LK_F16: gb_put(&a->data, &v->h, 2); break;
    case LK_F32: {
        const float f = (float)v->d;
        gb_put(&a->data, &f, 4);
        break;
    }
    case LK_F64: gb_put(&a->data, &v->d, 8); break;
    case LK_FIXED: case LK_DEC: gb_put(&a->data, v->b, (size_t)ld->bytes); break;
    default: {   /* integers, dates, times, timestamps: little-endian, value_bytes wide */
        const int64_t x = v->i;
        gb_put(&a->data, &x, value_bytes(ld));
        break;
    }
    }
    a->len++;
}

/* A raw fixed-width slot (dictionary indices). */
static void abuf_put_raw(abuf *a, const void *bytes, size_t n, bool valid)
{
    gb_bit(&a->valid, (size_t)a->len, valid);
    a->nulls += !valid;
    gb_put(&a->data, bytes, n);
    a->len++;
}

/* The ArrowArray of a leaf's values (ld) or of raw slots (ld NULL). */
static void abuf_array(abuf *a, const leafdef *ld, struct ArrowArray *out)
{
    memset(out, 0, sizeof *out);
    out->length = a->len;
    out->null_count = a->nulls;
    a->buffers[0] = a->nulls ? a->valid.p : NULL;
    a->buffers[1] = a->data.p;
    out->n_buffers = 2;
    if (ld && (ld->lk == LK_STR || ld->lk == LK_BIN)) {
        if (ld->layout == L_VIEW) {
            a->buffers[2] = a->text[0].p;
            a->buffers[3] = a->text[1].p;
            a->buffers[4] = a->sizes;
            out->n_buffers = 5;
        } else {
            a->buffers[2] = a->text[0].p;
            out->n_buffers = 3;
        }
    }
    out->buffers = a->buffers;
}

static void abuf_free(abuf *a)
{
    gb_free(&a->valid);
    gb_free(&a->data);
    gb_free(&a->text[0]);
    gb_free(&a->text[1]);
}

/*----------------------------------------------------------------------
 *  Fields: a tree of nodes, each building its Arrow array
 *--------------------------------------------------------------------*/

enum nk { N_LEAF, N_STRUCT, N_LIST, N_LARGE_LIST, N_MAP };

#define MAX_GROUPS 64
#define DICT_ENTRIES 24

typedef struct node node;
struct node {
    enum nk kind;
    const char *name;
    bool nullable;
    const leafdef *ld;
    node *kid[4];
    int nkid;
    /* the Arrow array */
    abuf a;                 /* leaf values or indices; a group's validity */
    gbuf offsets;           /* lists, maps */
    int64_t child_len;
    val dict[DICT_ENTRIES]; /* dictionary-encoded leaves: entry 0 is junk before the dictionary's offset */
    abuf dict_a;
    struct ArrowArray arr, dict_arr, entries_arr;
    struct ArrowArray *kid_arr[4], *entries_kids[2];
    const void *group_buffers[2], *entries_buffers[1];
    struct ArrowSchema sch, dict_sch, entries_sch;
    struct ArrowSchema *kid_sch[4], *entries_sch_kids[2];
    char metadata[64];
    /* the Parquet leaf */
    char path[200];
    int max_def, max_rep;
    size_t entries[MAX_GROUPS], values[MAX_GROUPS];
};

typedef struct ffile {
    char name[96];
    bool nested;
    size_t rows, page_rows, rg_rows;
    int page_version;
    bool zstd;
    unsigned null_pct;
    node *fields[64];
    int nfields;
    sbuf values[64];
    node *leaves[64];
    int nleaves;
    size_t row;             /* being generated (for the row group) */
    node pool[128];
    int npool;
} ffile;

static node *mk(ffile *f, enum nk kind, const char *name, bool nullable)
{
    if (f->npool == 128) die("too many nodes");
    node *n = &f->pool[f->npool++];
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->name = name;
    n->nullable = nullable;
    return n;
}

static node *leaf(ffile *f, const char *name, bool nullable, const leafdef *ld)
{
    node *n = mk(f, N_LEAF, name, nullable);
    n->ld = ld;
    return n;
}

static node *group(ffile *f, enum nk kind, const char *name, bool nullable, int nkid, node *a, node *b)
{
    node *n = mk(f, kind, name, nullable);
    n->nkid = nkid;
    n->kid[0] = a;
    n->kid[1] = b;
    return n;
}

static node *strukt(ffile *f, const char *name, bool nullable, int nkid, node **kids)
{
    node *n = mk(f, N_STRUCT, name, nullable);
    n->nkid = nkid;
    for (int i = 0; i < nkid; i++) n->kid[i] = kids[i];
    return n;
}

/* Leaves in schema order, their paths and maximum levels. */
static void number_leaves(ffile *f, node *n, const char *prefix, int def, int rep)
{
    char path[200];
    snprintf(path, sizeof path, "%.150s%s%.40s", prefix, *prefix ? "." : "", n->name);
    def += n->nullable;
    switch (n->kind) {
    case N_LEAF:
        snprintf(n->path, sizeof n->path, "%.190s", path);
        n->max_def = def;
        n->max_rep = rep;
        f->leaves[f->nleaves++] = n;
        break;
    case N_STRUCT:
        for (int i = 0; i < n->nkid; i++) number_leaves(f, n->kid[i], path, def, rep);
        break;
    case N_LIST: case N_LARGE_LIST: {
        char p2[210];
        snprintf(p2, sizeof p2, "%.190s.list", path);
        n->kid[0]->name = "element";
        number_leaves(f, n->kid[0], p2, def + 1, rep + 1);
        break;
    }
    case N_MAP: {
        char p2[210];
        snprintf(p2, sizeof p2, "%.190s.key_value", path);
        n->kid[0]->name = "key";
        n->kid[1]->name = "value";
        number_leaves(f, n->kid[0], p2, def + 1, rep + 1);
        number_leaves(f, n->kid[1], p2, def + 1, rep + 1);
        break;
    }
    }
}

/* Every leaf under n gets one level entry without a value. */
static void empty_entry(ffile *f, node *n)
{
    if (n->kind == N_LEAF) {
        n->entries[f->row / f->rg_rows]++;
        return;
    }
    for (int i = 0; i < n->nkid; i++) empty_entry(f, n->kid[i]);
}

static void offsets_push(node *n)
{
    if (n->kind == N_LARGE_LIST) gb_put(&n->offsets, &n->child_len, 8);
    else {
        const int32_t o = (int32_t)n->child_len;
        gb_put(&n->offsets, &o, 4);
    }
}

static void gen_node(ffile *f, node *n, rng *r, sbuf *js, bool force_null);

/* A leaf entry: a value or a null, from the dictionary when encoded. */
static void gen_leaf(ffile *f, node *n, rng *r, sbuf *js, bool null)
{
    const leafdef *ld = n->ld;
    val v;
    if (ld->index) {
        /* entry 1 of the dictionary array (its first, past its offset) is null when nullable */
        int k = null ? (int)rbelow(r, DICT_ENTRIES) : 1 + (int)rbelow(r, DICT_ENTRIES - 1);
        if (!null && n->nullable && rchance(r, 3)) k = 1;
        if (!n->nullable && k == 1) k = 2;
        const int idx = k - 1;   /* the dictionary array starts at entry 1 */
        const int64_t x = idx;
        abuf_put_raw(&n->a, &x, (size_t)(strchr("cC", ld->index[0]) ? 1 : strchr("sS", ld->index[0]) ? 2
                                         : strchr("iI", ld->index[0]) ? 4 : 8), !null);
        v = n->dict[k];
        v.null = null || v.null;
    } else {
        if (null) {
            memset(&v, 0, sizeof v);
            v.null = true;
        } else {
            gen_value(ld, r, &v);
        }
        abuf_put(&n->a, ld, &v, r);
    }
    if (!js) return;
    json_value(js, ld, &v);
    n->entries[f->row / f->rg_rows]++;
    n->values[f->row / f->rg_rows] += !v.null;
}

static void gen_node(ffile *f, node *n, rng *r, sbuf *js, bool force_null)
{
    const bool null = force_null || (n->nullable && rchance(r, f->null_pct));
    switch (n->kind) {
    case N_LEAF:
        gen_leaf(f, n, r, js, null);
        return;
    case N_STRUCT:
        gb_bit(&n->a.valid, (size_t)n->a.len, !null);
        n->a.nulls += null;
        n->a.len++;
        if (null) {   /* the children have entries all the same: junk */
            for (int i = 0; i < n->nkid; i++) gen_node(f, n->kid[i], r, NULL, rchance(r, 50));
            if (js) {
                sb_puts(js, "null");
                empty_entry(f, n);
            }
            return;
        }
        if (js) sb_puts(js, "{");
        for (int i = 0; i < n->nkid; i++) {
            if (js) sb_printf(js, "%s\"%s\":", i ? "," : "", n->kid[i]->name);
            gen_node(f, n->kid[i], r, js, js ? false : rchance(r, 50));
        }
        if (js) sb_puts(js, "}");
        return;
    case N_LIST: case N_LARGE_LIST: case N_MAP: {
        gb_bit(&n->a.valid, (size_t)n->a.len, !null);
        n->a.nulls += null;
        n->a.len++;
        const bool map = n->kind == N_MAP;
        if (null) {   /* a null list may span junk entries */
            const uint64_t k = map ? 0 : rbelow(r, 3);
            for (uint64_t j = 0; j < k; j++) gen_node(f, n->kid[0], r, NULL, rchance(r, 50));
            n->child_len += (int64_t)k;
            offsets_push(n);
            if (js) {
                sb_puts(js, "null");
                empty_entry(f, n);
            }
            return;
        }
        const uint64_t len = rbelow(r, 5);
        if (js) sb_puts(js, "[");
        for (uint64_t j = 0; j < len; j++) {
            if (js) sb_puts(js, j ? "," : "");
            if (!map) {
                gen_node(f, n->kid[0], r, js, js ? false : rchance(r, 50));
                continue;
            }
            /* keys unique within the map, never null */
            val key;
            memset(&key, 0, sizeof key);
            key.len = (size_t)snprintf((char *)key.b, sizeof key.b, "k%llu_%c", (unsigned long long)j,
                                       (char)('a' + rbelow(r, 26)));
            abuf_put(&n->kid[0]->a, n->kid[0]->ld, &key, r);
            if (js) {
                sb_puts(js, "[");
                json_value(js, n->kid[0]->ld, &key);
                n->kid[0]->entries[f->row / f->rg_rows]++;
                n->kid[0]->values[f->row / f->rg_rows]++;
                sb_puts(js, ",");
            }
            gen_node(f, n->kid[1], r, js, js ? false : rchance(r, 50));
            if (js) sb_puts(js, "]");
        }
        if (js) sb_puts(js, "]");
        if (js && len == 0) empty_entry(f, n);
        n->child_len += (int64_t)len;
        offsets_push(n);
        return;
    }
    }
}

/* The ArrowSchema and ArrowArray of n, once every entry is in. */
static void finish_node(node *n, int64_t offset)
{
    struct ArrowSchema *s = &n->sch;
    memset(s, 0, sizeof *s);
    s->name = n->name;
    s->flags = n->nullable ? ARROW_FLAG_NULLABLE : 0;
    for (int i = 0; i < n->nkid; i++) {
        finish_node(n->kid[i], 0);
        n->kid_sch[i] = &n->kid[i]->sch;
        n->kid_arr[i] = &n->kid[i]->arr;
    }
    switch (n->kind) {
    case N_LEAF: {
        const leafdef *ld = n->ld;
        if (ld->ext) {   /* one pair: the extension's name */
            const int32_t one = 1, kl = 20, vl = (int32_t)strlen(ld->ext);
            memcpy(n->metadata, &one, 4);
            memcpy(n->metadata + 4, &kl, 4);
            memcpy(n->metadata + 8, "ARROW:extension:name", 20);
            memcpy(n->metadata + 28, &vl, 4);
            memcpy(n->metadata + 32, ld->ext, (size_t)vl);
        }
        if (ld->index) {
            s->format = ld->index;
            abuf_array(&n->a, NULL, &n->arr);
            n->dict_sch = (struct ArrowSchema){ .format = ld->format, .metadata = ld->ext ? n->metadata : NULL };
            s->dictionary = &n->dict_sch;
            abuf_array(&n->dict_a, ld, &n->dict_arr);
            n->dict_arr.offset = 1;   /* past a junk entry */
            n->dict_arr.length -= 1;
            n->arr.dictionary = &n->dict_arr;
        } else {
            s->format = ld->format;
            s->metadata = ld->ext ? n->metadata : NULL;
            abuf_array(&n->a, ld, &n->arr);
        }
        break;
    }
    case N_STRUCT:
        s->format = "+s";
        n->arr = (struct ArrowArray){ .length = n->a.len, .null_count = n->a.nulls, .n_buffers = 1,
                                      .n_children = n->nkid, .children = n->kid_arr };
        n->group_buffers[0] = n->a.nulls ? n->a.valid.p : NULL;
        n->arr.buffers = n->group_buffers;
        break;
    case N_LIST: case N_LARGE_LIST:
        s->format = n->kind == N_LIST ? "+l" : "+L";
        n->kid[0]->sch.name = "item";
        n->arr = (struct ArrowArray){ .length = n->a.len, .null_count = n->a.nulls, .n_buffers = 2,
                                      .n_children = 1, .children = n->kid_arr };
        n->group_buffers[0] = n->a.nulls ? n->a.valid.p : NULL;
        n->group_buffers[1] = n->offsets.p;
        n->arr.buffers = n->group_buffers;
        break;
    case N_MAP:
        s->format = "+m";
        n->entries_sch = (struct ArrowSchema){ .format = "+s", .name = "entries", .n_children = 2,
                                               .children = n->kid_sch };
        n->entries_sch_kids[0] = &n->entries_sch;
        n->entries_arr = (struct ArrowArray){ .length = n->child_len, .n_buffers = 1, .n_children = 2,
                                              .children = n->kid_arr };
        n->entries_buffers[0] = NULL;
        n->entries_arr.buffers = n->entries_buffers;
        n->entries_kids[0] = &n->entries_arr;
        n->arr = (struct ArrowArray){ .length = n->a.len, .null_count = n->a.nulls, .n_buffers = 2,
                                      .n_children = 1, .children = n->entries_kids };
        n->group_buffers[0] = n->a.nulls ? n->a.valid.p : NULL;
        n->group_buffers[1] = n->offsets.p;
        n->arr.buffers = n->group_buffers;
        s->n_children = 1;   /* the entries struct holds the children */
        s->children = n->entries_sch_kids;
        break;
    }
    if (n->kind == N_STRUCT || n->kind == N_LIST || n->kind == N_LARGE_LIST) {
        s->n_children = n->nkid;
        s->children = n->kid_sch;
    }
    n->arr.offset += offset;
    n->arr.length -= offset;
}

static void free_node(node *n)
{
    abuf_free(&n->a);
    abuf_free(&n->dict_a);
    gb_free(&n->offsets);
}

/*----------------------------------------------------------------------
 *  One file
 *--------------------------------------------------------------------*/

static const char *g_outdir;
static int g_files, g_failed;
static char g_failed_names[4096];

static void leaf_json_type(sbuf *s, const node *n) { sb_puts(s, n->ld->json); }

static void type_json(sbuf *s, const node *n, bool named)
{
    if (named) sb_printf(s, "\"name\":\"%s\",", n->name);
    const char *nullable = n->nullable ? "true" : "false";
    switch (n->kind) {
    case N_LEAF:
        leaf_json_type(s, n);
        sb_printf(s, ",\"nullable\":%s", nullable);
        break;
    case N_LIST: case N_LARGE_LIST:
        sb_printf(s, "\"type\":\"list\",\"nullable\":%s,\"element\":{", nullable);
        type_json(s, n->kid[0], false);
        sb_puts(s, "}");
        break;
    case N_MAP:
        sb_printf(s, "\"type\":\"map\",\"nullable\":%s,\"key\":{", nullable);
        type_json(s, n->kid[0], false);
        sb_puts(s, "},\"value\":{");
        type_json(s, n->kid[1], false);
        sb_puts(s, "}");
        break;
    case N_STRUCT:
        sb_printf(s, "\"type\":\"struct\",\"nullable\":%s,\"fields\":[", nullable);
        for (int i = 0; i < n->nkid; i++) {
            sb_puts(s, i ? ",{" : "{");
            type_json(s, n->kid[i], true);
            sb_puts(s, "}");
        }
        sb_puts(s, "]");
        break;
    }
}

static void emit_json(ffile *f, inlay_writer *w)
{
    sbuf s = { 0 };
    const size_t groups = (f->rows + f->rg_rows - 1) / f->rg_rows;
    sb_printf(&s, "{\n\"name\":\"%s\",\n%s\"rows\":%zu,\n", f->name, f->nested ? "\"nested\":true,\n" : "", f->rows);
    sb_printf(&s, "\"compression\":\"%s\",\n", f->zstd ? "ZSTD" : "UNCOMPRESSED");
    if (!f->nested) sb_puts(&s, "\"encoding\":\"auto\",\n");
    sb_printf(&s, "\"options\":{\"page_rows\":%zu,\"page_bytes\":%u,\"row_group_rows\":%zu,\"dictionary_bytes\":%u,"
                  "\"page_version\":%d,\"append_arrow\":true},\n",
              f->page_rows, INLAY_DEFAULT_PAGE_BYTES, f->rg_rows, INLAY_DEFAULT_DICTIONARY_BYTES, f->page_version);
    sb_printf(&s, "\"expect\":{\"row_groups\":%zu},\n", groups);
    sb_printf(&s, "\"writer\":{\"rows\":%llu,\"row_groups\":%llu,\"bytes\":%llu},\n",
              (unsigned long long)inlay_writer_rows(w), (unsigned long long)inlay_writer_row_groups(w),
              (unsigned long long)inlay_writer_bytes(w));
    sb_printf(&s, "\"created_by\":\"inlay version %s\",\n", inlay_version());
    if (!f->nested) {
        sb_puts(&s, "\"columns\":[\n");
        for (int k = 0; k < f->nfields; k++) {
            const node *n = f->fields[k];
            sb_printf(&s, "%s{\"name\":\"%s\",", k ? ",\n" : "", n->name);
            leaf_json_type(&s, n);
            sb_printf(&s, ",\"nullable\":%s,\"all_null\":false,\"encoding\":\"auto\",\"pages\":\"any\",\"values\":[\n",
                      n->nullable ? "true" : "false");
            sb_puts(&s, f->values[k].p ? f->values[k].p : "");
            sb_puts(&s, "]}");
        }
        sb_puts(&s, "\n]\n}\n");
    } else {
        sb_puts(&s, "\"leaves\":[\n");
        for (int k = 0; k < f->nleaves; k++) {
            const node *l = f->leaves[k];
            const char *tag = strstr(l->ld->json, "\"type\":\"") + 8;
            sb_printf(&s, "%s{\"path\":\"%s\",\"type\":\"%.*s\",\"max_def\":%d,\"max_rep\":%d,\"encoding\":\"auto\",",
                      k ? ",\n" : "", l->path, (int)(strchr(tag, '"') - tag), tag, l->max_def, l->max_rep);
            sb_puts(&s, "\"entries\":[");
            for (size_t g = 0; g < groups; g++) sb_printf(&s, "%s%zu", g ? "," : "", l->entries[g]);
            sb_puts(&s, "],\"nulls\":[");
            for (size_t g = 0; g < groups; g++) sb_printf(&s, "%s%zu", g ? "," : "", l->entries[g] - l->values[g]);
            sb_puts(&s, "]}");
        }
        sb_puts(&s, "\n],\n\"fields\":[\n");
        for (int k = 0; k < f->nfields; k++) {
            sb_puts(&s, k ? ",\n{" : "{");
            type_json(&s, f->fields[k], true);
            sb_puts(&s, ",\"values\":[\n");
            sb_puts(&s, f->values[k].p ? f->values[k].p : "");
            sb_puts(&s, "]}");
        }
        sb_puts(&s, "\n]\n}\n");
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.json", g_outdir, f->name);
    write_file(path, s.p, s.len);
    free(s.p);
}

/* A libinlay call that fails ends the file (named at the end). */
static bool failed(ffile *f, inlay_writer *w, int st, const char *what)
{
    if (st == INLAY_OK) return false;
    fprintf(stderr, "FAIL %s: %s: %s: %s\n", f->name, what, inlay_strerror(st), w ? inlay_writer_errmsg(w) : "");
    const size_t used = strlen(g_failed_names);
    snprintf(g_failed_names + used, sizeof g_failed_names - used, " %s", f->name);
    g_failed++;
    return true;
}

enum { JUNK = 3 };   /* entries before the rows in every top-level array */

static void write_one(ffile *f)
{
    if ((f->rows + f->rg_rows - 1) / f->rg_rows > MAX_GROUPS) die("%s: too many row groups", f->name);
    rng r;
    rng_seed_str(&r, f->name);
    for (int k = 0; k < f->nfields; k++) number_leaves(f, f->fields[k], "", 0, 0);
    /* dictionaries: entry 0 junk (before the offset), entry 1 null where nullable */
    for (int k = 0; k < f->nleaves; k++) {
        node *l = f->leaves[k];
        if (!l->ld->index) continue;
        abuf_init(&l->dict_a, l->ld);
        for (int e = 0; e < DICT_ENTRIES; e++) {
            gen_value(l->ld, &r, &l->dict[e]);
            l->dict[e].null = e == 1 && l->nullable;
            abuf_put(&l->dict_a, l->ld, &l->dict[e], &r);
        }
    }
    for (int i = 0; i < f->npool; i++)
        if (f->pool[i].kind == N_LEAF) {
            if (f->pool[i].ld->index) memset(&f->pool[i].a, 0, sizeof f->pool[i].a);
            else abuf_init(&f->pool[i].a, f->pool[i].ld);
        } else if (f->pool[i].kind != N_STRUCT) {
            const int64_t zero = 0;
            gb_put(&f->pool[i].offsets, &zero, f->pool[i].kind == N_LARGE_LIST ? 8 : 4);
        }
    /* junk entries, then the rows */
    for (int j = 0; j < JUNK; j++)
        for (int k = 0; k < f->nfields; k++) gen_node(f, f->fields[k], &r, NULL, rchance(&r, 30));
    for (f->row = 0; f->row < f->rows; f->row++)
        for (int k = 0; k < f->nfields; k++) {
            sbuf *js = &f->values[k];
            if (f->row) sb_puts(js, f->row % 8 ? "," : ",\n");
            gen_node(f, f->fields[k], &r, js, false);
        }
    /* the record batch: the top-level arrays from offset 1 */
    struct ArrowSchema root = { .format = "+s", .name = "", .n_children = f->nfields };
    struct ArrowSchema *sch_kids[64];
    struct ArrowArray *arr_kids[64];
    for (int k = 0; k < f->nfields; k++) {
        finish_node(f->fields[k], 1);
        sch_kids[k] = &f->fields[k]->sch;
        arr_kids[k] = &f->fields[k]->arr;
    }
    root.children = sch_kids;
    inlay_schema *s = NULL;
    char err[256];
    int st = inlay_schema_from_arrow(&s, &root, NULL, err, sizeof err);
    if (st) die("%s: inlay_schema_from_arrow: %s", f->name, err);
    if (!f->nested) {
        for (int k = 0; k < f->nfields; k++) {
            const char *name;
            inlay_type t;
            inlay_repetition rep;
            char tn[64];
            if (inlay_schema_column(s, k, &name, &t, &rep) != INLAY_OK) die("%s: no column %d", f->name, k);
            inlay_type_name(&t, tn, sizeof tn);
            if (strcmp(tn, f->fields[k]->ld->inlay) || rep != (f->fields[k]->nullable ? INLAY_OPTIONAL : INLAY_REQUIRED))
                die("%s: column %s is %s, expected %s", f->name, name, tn, f->fields[k]->ld->inlay);
        }
    }
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
    st = inlay_writer_open_file(&w, path, s, &o);
    inlay_schema_free(s);
    if (failed(f, w, st, "open")) {
        inlay_writer_free(w);
        return;
    }
    /* uneven batches: one row, a page, a few pages, sometimes none */
    for (size_t a = 0; a < f->rows;) {
        size_t n;
        switch (rbelow(&r, 6)) {
        case 0: n = 0; break;
        case 1: n = 1; break;
        case 2: n = f->page_rows; break;
        case 3: n = 3 * f->page_rows + 5; break;
        default: n = 1 + rbelow(&r, f->page_rows); break;
        }
        if (n > f->rows - a) n = f->rows - a;
        struct ArrowArray batch = { .length = (int64_t)n, .offset = (int64_t)(JUNK - 1 + a), .n_buffers = 1,
                                    .n_children = f->nfields, .children = arr_kids };
        const void *none[1] = { NULL };
        batch.buffers = none;
        char what[96];
        snprintf(what, sizeof what, "inlay_writer_append_arrow of rows %zu..%zu", a, a + n);
        if (failed(f, w, inlay_writer_append_arrow(w, &batch, &root), what)) {
            inlay_writer_free(w);
            return;
        }
        a += n;
    }
    if (failed(f, w, inlay_writer_close(w), "close")) {
        inlay_writer_free(w);
        return;
    }
    if (inlay_writer_rows(w) != f->rows) die("%s: %llu rows written", f->name, (unsigned long long)inlay_writer_rows(w));
    emit_json(f, w);
    inlay_writer_free(w);
    g_files++;
}

static ffile *new_file(const char *name, bool nested, size_t rows, size_t page_rows, size_t rg_rows, int page_version,
                       bool zstd, unsigned null_pct)
{
    ffile *f = xcalloc(1, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    f->nested = nested;
    f->rows = rows;
    f->page_rows = page_rows;
    f->rg_rows = rg_rows;
    f->page_version = page_version;
    f->zstd = zstd;
    f->null_pct = null_pct;
    return f;
}

static void done_file(ffile *f)
{
    write_one(f);
    for (int i = 0; i < f->npool; i++) free_node(&f->pool[i]);
    for (int k = 0; k < f->nfields; k++) free(f->values[k].p);
    free(f);
}

/*----------------------------------------------------------------------
 *  The files
 *--------------------------------------------------------------------*/

#define INT(fmt, b, sg, tag) { fmt, NULL, NULL, LK_INT, b, sg, 0, 0, 0, 0, "\"type\":\"" tag "\"", tag }

static const leafdef flat_types[] = {
    { "b", NULL, NULL, LK_BOOL, 0, 0, 0, 0, 0, 0, "\"type\":\"boolean\"", "boolean" },
    INT("c", 1, true, "int8"), INT("C", 1, false, "uint8"), INT("s", 2, true, "int16"), INT("S", 2, false, "uint16"),
    INT("i", 4, true, "int32"), INT("I", 4, false, "uint32"), INT("l", 8, true, "int64"), INT("L", 8, false, "uint64"),
    { "e", NULL, NULL, LK_F16, 2, 0, 0, 0, 0, 0, "\"type\":\"float16\"", "float16" },
    { "f", NULL, NULL, LK_F32, 4, 0, 0, 0, 0, 0, "\"type\":\"float\"", "float" },
    { "g", NULL, NULL, LK_F64, 8, 0, 0, 0, 0, 0, "\"type\":\"double\"", "double" },
    { "u", NULL, NULL, LK_STR, 0, 0, L_OFF32, 0, 0, 0, "\"type\":\"string\"", "string" },
    { "U", NULL, NULL, LK_STR, 0, 0, L_OFF64, 0, 0, 0, "\"type\":\"string\"", "string" },
    { "vu", NULL, NULL, LK_STR, 0, 0, L_VIEW, 0, 0, 0, "\"type\":\"string\"", "string" },
    { "z", NULL, NULL, LK_BIN, 0, 0, L_OFF32, 0, 0, 0, "\"type\":\"binary\"", "binary" },
    { "Z", NULL, NULL, LK_BIN, 0, 0, L_OFF64, 0, 0, 0, "\"type\":\"binary\"", "binary" },
    { "vz", NULL, NULL, LK_BIN, 0, 0, L_VIEW, 0, 0, 0, "\"type\":\"binary\"", "binary" },
    { "w:7", NULL, NULL, LK_FIXED, 7, 0, 0, 0, 0, 0, "\"type\":\"fixed\",\"width\":7", "fixed(7)" },
    { "w:16", NULL, "arrow.uuid", LK_FIXED, 16, 0, 0, 0, 0, 0, "\"type\":\"uuid\"", "uuid" },
    { "u", NULL, "arrow.json", LK_STR, 0, 0, L_OFF32, 0, 0, 0, "\"type\":\"json\"", "json" },
    { "d:9,2", NULL, NULL, LK_DEC, 16, 0, 0, 9, 2, 0,
      "\"type\":\"decimal\",\"precision\":9,\"scale\":2,\"physical\":\"int32\"", "decimal(9,2)" },
    { "d:18,4", NULL, NULL, LK_DEC, 16, 0, 0, 18, 4, 0,
      "\"type\":\"decimal\",\"precision\":18,\"scale\":4,\"physical\":\"int64\"", "decimal(18,4)" },
    { "d:30,5", NULL, NULL, LK_DEC, 16, 0, 0, 30, 5, 0,
      "\"type\":\"decimal\",\"precision\":30,\"scale\":5,\"physical\":\"fixed\",\"width\":13", "decimal(30,5)" },
    { "d:38,6,256", NULL, NULL, LK_DEC, 32, 0, 0, 38, 6, 0,
      "\"type\":\"decimal\",\"precision\":38,\"scale\":6,\"physical\":\"fixed\",\"width\":16", "decimal(38,6)" },
    { "d:7,3,32", NULL, NULL, LK_DEC, 4, 0, 0, 7, 3, 0,
      "\"type\":\"decimal\",\"precision\":7,\"scale\":3,\"physical\":\"int32\"", "decimal(7,3)" },
    { "d:15,0,64", NULL, NULL, LK_DEC, 8, 0, 0, 15, 0, 0,
      "\"type\":\"decimal\",\"precision\":15,\"scale\":0,\"physical\":\"int64\"", "decimal(15,0)" },
    { "tdD", NULL, NULL, LK_DATE32, 4, 0, 0, 0, 0, 0, "\"type\":\"date\"", "date" },
    { "tdm", NULL, NULL, LK_DATE64, 8, 0, 0, 0, 0, 0, "\"type\":\"date\"", "date" },
    { "tts", NULL, NULL, LK_TIME, 4, 0, 0, 0, 0, 0, "\"type\":\"time\",\"unit\":\"ms\",\"utc\":false", "time(ms)" },
    { "ttm", NULL, NULL, LK_TIME, 4, 0, 0, 0, 0, 1, "\"type\":\"time\",\"unit\":\"ms\",\"utc\":false", "time(ms)" },
    { "ttu", NULL, NULL, LK_TIME, 8, 0, 0, 0, 0, 2, "\"type\":\"time\",\"unit\":\"us\",\"utc\":false", "time(us)" },
    { "ttn", NULL, NULL, LK_TIME, 8, 0, 0, 0, 0, 3, "\"type\":\"time\",\"unit\":\"ns\",\"utc\":false", "time(ns)" },
    { "tss:", NULL, NULL, LK_TS, 8, 0, 0, 0, 0, 0, "\"type\":\"timestamp\",\"unit\":\"ms\",\"utc\":false", "timestamp(ms)" },
    { "tsm:UTC", NULL, NULL, LK_TS, 8, 0, 0, 0, 0, 1, "\"type\":\"timestamp\",\"unit\":\"ms\",\"utc\":true",
      "timestamp(ms, utc)" },
    { "tsu:UTC", NULL, NULL, LK_TS, 8, 0, 0, 0, 0, 2, "\"type\":\"timestamp\",\"unit\":\"us\",\"utc\":true",
      "timestamp(us, utc)" },
    { "tsn:Europe/Paris", NULL, NULL, LK_TS, 8, 0, 0, 0, 0, 3, "\"type\":\"timestamp\",\"unit\":\"ns\",\"utc\":true",
      "timestamp(ns, utc)" },
    { "tsu:", NULL, NULL, LK_TS, 8, 0, 0, 0, 0, 2, "\"type\":\"timestamp\",\"unit\":\"us\",\"utc\":false", "timestamp(us)" },
};

/* Dictionary-encoded: indices of every width into dictionaries of several types. */
static const leafdef dict_types[] = {
    { "u", "c", NULL, LK_STR, 0, 0, L_OFF32, 0, 0, 0, "\"type\":\"string\"", "string" },
    { "vu", "S", NULL, LK_STR, 0, 0, L_VIEW, 0, 0, 0, "\"type\":\"string\"", "string" },
    { "U", "L", NULL, LK_STR, 0, 0, L_OFF64, 0, 0, 0, "\"type\":\"string\"", "string" },
    { "z", "C", NULL, LK_BIN, 0, 0, L_OFF32, 0, 0, 0, "\"type\":\"binary\"", "binary" },
    { "d:12,2", "i", NULL, LK_DEC, 16, 0, 0, 12, 2, 0,
      "\"type\":\"decimal\",\"precision\":12,\"scale\":2,\"physical\":\"int64\"", "decimal(12,2)" },
    { "d:20,3", "I", NULL, LK_DEC, 16, 0, 0, 20, 3, 0,
      "\"type\":\"decimal\",\"precision\":20,\"scale\":3,\"physical\":\"fixed\",\"width\":9", "decimal(20,3)" },
    { "tss:UTC", "l", NULL, LK_TS, 8, 0, 0, 0, 0, 0, "\"type\":\"timestamp\",\"unit\":\"ms\",\"utc\":true",
      "timestamp(ms, utc)" },
    { "w:5", "s", NULL, LK_FIXED, 5, 0, 0, 0, 0, 0, "\"type\":\"fixed\",\"width\":5", "fixed(5)" },
    { "g", "s", NULL, LK_F64, 8, 0, 0, 0, 0, 0, "\"type\":\"double\"", "double" },
    { "tdD", "I", NULL, LK_DATE32, 4, 0, 0, 0, 0, 0, "\"type\":\"date\"", "date" },
    { "b", "c", NULL, LK_BOOL, 0, 0, 0, 0, 0, 0, "\"type\":\"boolean\"", "boolean" },
    { "i", "S", NULL, LK_INT, 4, true, 0, 0, 0, 0, "\"type\":\"int32\"", "int32" },
    { "u", "i", "arrow.json", LK_STR, 0, 0, L_OFF32, 0, 0, 0, "\"type\":\"json\"", "json" },
};

static const leafdef t_int64 = INT("l", 8, true, "int64");
static const leafdef t_int32 = INT("i", 4, true, "int32");
static const leafdef t_double = { "g", NULL, NULL, LK_F64, 8, 0, 0, 0, 0, 0, "\"type\":\"double\"", "double" };
static const leafdef t_half = { "e", NULL, NULL, LK_F16, 2, 0, 0, 0, 0, 0, "\"type\":\"float16\"", "float16" };
static const leafdef t_string = { "u", NULL, NULL, LK_STR, 0, 0, L_OFF32, 0, 0, 0, "\"type\":\"string\"", "string" };
static const leafdef t_view = { "vu", NULL, NULL, LK_STR, 0, 0, L_VIEW, 0, 0, 0, "\"type\":\"string\"", "string" };
static const leafdef t_large = { "U", NULL, NULL, LK_STR, 0, 0, L_OFF64, 0, 0, 0, "\"type\":\"string\"", "string" };
static const leafdef t_dict = { "u", "s", NULL, LK_STR, 0, 0, L_OFF32, 0, 0, 0, "\"type\":\"string\"", "string" };

/* Every flat type side by side; `nullable` chooses the fields' flag. */
static void flat_file(const char *name, const leafdef *types, size_t ntypes, bool nullable, size_t rows,
                      size_t page_rows, size_t rg_rows, int page_version, bool zstd)
{
    ffile *f = new_file(name, false, rows, page_rows, rg_rows, page_version, zstd, 12);
    static char names[64][32];
    for (size_t i = 0; i < ntypes; i++) {
        snprintf(names[i], sizeof names[i], "c%02zu_%s", i, types[i].format);
        for (char *p = names[i]; *p; p++)
            if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') && !(*p >= '0' && *p <= '9')) *p = '_';
        f->fields[f->nfields++] = leaf(f, names[i], nullable || i % 3 == 1, &types[i]);
    }
    done_file(f);
}

/* Structs, lists, large lists, maps and their mixes, with leaves in
 * plain, view, large and dictionary-encoded forms. */
static void nested_file(const char *name, size_t rows, size_t page_rows, size_t rg_rows, int page_version, bool zstd,
                        bool opt)
{
    ffile *f = new_file(name, true, rows, page_rows, rg_rows, page_version, zstd, 15);
    f->fields[f->nfields++] = leaf(f, "id", false, &t_int64);
    node *pt[2] = { leaf(f, "x", false, &t_double), leaf(f, "y", true, &t_int32) };
    f->fields[f->nfields++] = group(f, N_LIST, "pts", opt, 1, strukt(f, "item", true, 2, pt), NULL);
    f->fields[f->nfields++] = group(f, N_LARGE_LIST, "tags", true, 1, leaf(f, "item", opt, &t_view), NULL);
    f->fields[f->nfields++] = group(f, N_MAP, "attrs", opt, 2, leaf(f, "key", false, &t_string),
                                    leaf(f, "value", true, &t_int64));
    node *rk[3] = { leaf(f, "a", !opt, &t_int64), group(f, N_LIST, "b", true, 1, leaf(f, "item", opt, &t_dict), NULL),
                    leaf(f, "h", true, &t_half) };
    f->fields[f->nfields++] = strukt(f, "rec", true, 3, rk);
    f->fields[f->nfields++] = group(f, N_LIST, "grid", !opt, 1,
                                    group(f, N_LARGE_LIST, "item", true, 1, leaf(f, "item", true, &t_int32), NULL), NULL);
    node *inner[2] = { leaf(f, "s", true, &t_large), leaf(f, "n", opt, &t_int32) };
    node *outer[1] = { strukt(f, "inner", opt, 2, inner) };
    f->fields[f->nfields++] = strukt(f, "nest", !opt, 1, outer);
    done_file(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    g_outdir = argv[1];
    if (mkdir(g_outdir, 0777) != 0 && errno != EEXIST) die("cannot create %s: %s", g_outdir, strerror(errno));
    const size_t nflat = sizeof flat_types / sizeof flat_types[0], ndict = sizeof dict_types / sizeof dict_types[0];
    flat_file("arrow__flat__nullable__v1__zstd", flat_types, nflat, true, 1500, 100, 600, 1, true);
    flat_file("arrow__flat__required__v2__uncompressed", flat_types, nflat, false, 700, 64, 256, 2, false);
    flat_file("arrow__dict__nullable__v1__uncompressed", dict_types, ndict, true, 1200, 80, 500, 1, false);
    flat_file("arrow__dict__required__v2__zstd", dict_types, ndict, false, 900, 50, 1000, 2, true);
    nested_file("arrow__nested__v1__zstd", 800, 40, 300, 1, true, true);
    nested_file("arrow__nested__v2__uncompressed", 600, 25, 256, 2, false, false);
    nested_file("arrow__nested__v1__uncompressed__tiny_pages", 300, 3, 64, 1, false, true);
    printf("interop_arrow_fixtures: wrote %d files to %s\n", g_files, g_outdir);
    if (g_failed) {
        fprintf(stderr, "interop_arrow_fixtures: %d file(s) could not be written:%s\n", g_failed, g_failed_names);
        return 1;
    }
    return 0;
}
