/*
 * check_page.c — pages (runtime/format/page.c): the PageHeader of a
 * dictionary page, a v1 data page and a v2 data page read back with
 * thrift_reader.h, every field the writer sets; bodies that are the parts
 * back to back, uncompressed or as one zstd frame (v2: the levels stay
 * uncompressed in front, and values zstd cannot shrink are stored raw with
 * is_compressed = false); raw_size and stored_size; pages appended after
 * other bytes with one scratch reused; and allocation failures as
 * INLAY_ERR_NOMEM with the output unchanged and nothing leaked.
 */
#define _POSIX_C_SOURCE 200809L
#include <zlib.h>
#include <zstd.h>

#include "page.h"

#include "thrift_reader.h"
#include "unit.h"

static buf out;
static page_scratch scratch;
static compressor comp;
static inlay_allocator alloc;

static void setup(void)
{
    memset(&out, 0, sizeof out);
    memset(&scratch, 0, sizeof scratch);
    memset(&comp, 0, sizeof comp);
    alloc = inl_mem_default();
}

static void teardown(void)
{
    inl_buf_free(&out, &alloc);
    inl_page_scratch_free(&scratch, &alloc);
    inl_compress_free(&comp);
}

/* Parts of a page: levels that look like levels, values that compress
 * well (text) or not at all (random). */
static uint8_t rep_levels[] = { 0x02, 0x00, 0x00, 0x00, 0x06, 0x00 };
static uint8_t def_levels[] = { 0x04, 0x00, 0x00, 0x00, 0x06, 0x01, 0x03, 0x02 };
static uint8_t text_values[3000];
static uint8_t random_values[3000];

static void fill_values(void)
{
    for (size_t i = 0; i < sizeof text_values; i++) text_values[i] = (uint8_t)"abcabcabd"[i % 9];
    uint64_t seed = 42;
    for (size_t i = 0; i < sizeof random_values; i++) random_values[i] = (uint8_t)(rng_next(&seed) >> 56);
}

static void use_codec(inlay_compression codec)
{
    fill_values();
    ck_assert_int_eq(inl_compress_init(&comp, &alloc, codec, 3, 0), 0);
}

/* A page of `type` with the given parts (nprefix, for v2, of them levels). */
static page_desc desc(int type, int encoding, int32_t num_values, int nparts, const void *const *parts,
                      const size_t *lens)
{
    page_desc d;
    memset(&d, 0, sizeof d);
    d.type = type;
    d.encoding = encoding;
    d.num_values = num_values;
    d.nparts = nparts;
    for (int i = 0; i < nparts; i++) {
        d.parts[i] = parts[i];
        d.lens[i] = lens[i];
    }
    return d;
}

/* The parts from `from` on, back to back (malloc'd). */
static uint8_t *joined(const page_desc *d, int from, size_t *len)
{
    size_t n = 0;
    for (int i = from; i < d->nparts; i++) n += d->lens[i];
    uint8_t *p = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(p);
    size_t k = 0;
    for (int i = from; i < d->nparts; i++) {
        memcpy(p + k, d->parts[i], d->lens[i]);
        k += d->lens[i];
    }
    *len = n;
    return p;
}

typedef struct written {
    ph h;
    const uint8_t *body;      /* after the header: h.compressed bytes */
    size_t raw_size, stored_size;
} written;

/* Write d after whatever `out` holds and read its header back: the page is
 * exactly stored_size bytes at the end of `out`, its header parses, and the
 * sizes agree with it. */
static written write_page(const page_desc *d)
{
    written w;
    memset(&w, 0, sizeof w);
    const size_t start = out.len;
    w.raw_size = w.stored_size = 777;
    ck_assert_int_eq(inl_page_write(&out, &alloc, &comp, &scratch, d, 0, &w.raw_size, &w.stored_size), 0);
    ck_assert_uint_eq(out.len - start, w.stored_size);
    ck_assert_msg(ph_read(out.data + start, out.len - start, &w.h), "the PageHeader does not parse");
    ck_assert_uint_eq(w.h.header_len + (size_t)w.h.compressed, w.stored_size);
    ck_assert_uint_eq(w.h.header_len + (size_t)w.h.uncompressed, w.raw_size);
    w.body = out.data + start + w.h.header_len;
    return w;
}

/* body[0..len) is one zstd frame holding exactly want[0..want_len). */
static void expect_zstd(const uint8_t *body, size_t len, const uint8_t *want, size_t want_len)
{
    uint8_t *back = malloc(want_len + 16);
    ck_assert_ptr_nonnull(back);
    ck_assert_uint_eq(ZSTD_findFrameCompressedSize(body, len), len);
    size_t r = ZSTD_decompress(back, want_len + 16, body, len);
    ck_assert_msg(!ZSTD_isError(r), "ZSTD_decompress: %s", ZSTD_getErrorName(r));
    ck_assert_bytes(back, r, want, want_len);
    free(back);
}

/* ---- headers, uncompressed --------------------------------------------------------- */

START_TEST(test_dictionary_page)
{
    use_codec(INLAY_UNCOMPRESSED);
    const void *parts[] = { text_values };
    const size_t lens[] = { 120 };
    page_desc d = desc(PAGE_DICTIONARY, ENC_PLAIN, 30, 1, parts, lens);
    written w = write_page(&d);
    ck_assert_int_eq(w.h.type, PAGE_DICTIONARY);
    ck_assert(w.h.has_dictionary);
    ck_assert(!w.h.has_data && !w.h.has_data_v2);
    ck_assert_int_eq(w.h.num_values, 30);
    ck_assert_int_eq(w.h.encoding, ENC_PLAIN);
    ck_assert_int_eq(w.h.uncompressed, 120);
    ck_assert_int_eq(w.h.compressed, 120);
    ck_assert_bytes(w.body, 120, text_values, 120);
    ck_assert_uint_eq(w.raw_size, w.stored_size);
}
END_TEST

START_TEST(test_v1_page)
{
    use_codec(INLAY_UNCOMPRESSED);
    const void *parts[] = { rep_levels, def_levels, random_values };
    const size_t lens[] = { sizeof rep_levels, sizeof def_levels, 500 };
    page_desc d = desc(PAGE_DATA, ENC_RLE_DICTIONARY, 1234, 3, parts, lens);
    written w = write_page(&d);
    ck_assert_int_eq(w.h.type, PAGE_DATA);
    ck_assert(w.h.has_data);
    ck_assert(!w.h.has_dictionary && !w.h.has_data_v2);
    ck_assert_int_eq(w.h.num_values, 1234);
    ck_assert_int_eq(w.h.encoding, ENC_RLE_DICTIONARY);
    ck_assert_int_eq(w.h.def_encoding, ENC_RLE);
    ck_assert_int_eq(w.h.rep_encoding, ENC_RLE);
    size_t n;
    uint8_t *all = joined(&d, 0, &n);
    ck_assert_int_eq(w.h.uncompressed, (int32_t)n);
    ck_assert_int_eq(w.h.compressed, (int32_t)n);
    ck_assert_bytes(w.body, (size_t)w.h.compressed, all, n);
    free(all);
}
END_TEST

START_TEST(test_v2_page)
{
    use_codec(INLAY_UNCOMPRESSED);
    const void *parts[] = { rep_levels, def_levels, text_values };
    const size_t lens[] = { sizeof rep_levels, sizeof def_levels, 700 };
    page_desc d = desc(PAGE_DATA_V2, ENC_DELTA_BINARY_PACKED, 900, 3, parts, lens);
    d.nprefix = 2;
    d.num_nulls = 17;
    d.num_rows = 300;
    d.rep_bytes = sizeof rep_levels;
    d.def_bytes = sizeof def_levels;
    written w = write_page(&d);
    ck_assert_int_eq(w.h.type, PAGE_DATA_V2);
    ck_assert(w.h.has_data_v2);
    ck_assert(!w.h.has_data && !w.h.has_dictionary);
    ck_assert_int_eq(w.h.num_values, 900);
    ck_assert_int_eq(w.h.num_nulls, 17);
    ck_assert_int_eq(w.h.num_rows, 300);
    ck_assert_int_eq(w.h.encoding, ENC_DELTA_BINARY_PACKED);
    ck_assert_int_eq(w.h.rep_bytes, (int32_t)sizeof rep_levels);
    ck_assert_int_eq(w.h.def_bytes, (int32_t)sizeof def_levels);
    ck_assert(!w.h.is_compressed);       /* nothing is, without a codec */
    size_t n;
    uint8_t *all = joined(&d, 0, &n);
    ck_assert_int_eq(w.h.uncompressed, (int32_t)n);
    ck_assert_int_eq(w.h.compressed, (int32_t)n);
    ck_assert_bytes(w.body, n, all, n);
    ck_assert_uint_eq(w.raw_size, w.stored_size);
    free(all);
}
END_TEST

/* A v2 page of a required flat column: no levels at all. */
START_TEST(test_v2_no_levels)
{
    use_codec(INLAY_UNCOMPRESSED);
    const void *parts[] = { text_values };
    const size_t lens[] = { 64 };
    page_desc d = desc(PAGE_DATA_V2, ENC_PLAIN, 16, 1, parts, lens);
    d.num_rows = 16;
    written w = write_page(&d);
    ck_assert_int_eq(w.h.rep_bytes, 0);
    ck_assert_int_eq(w.h.def_bytes, 0);
    ck_assert_int_eq(w.h.num_nulls, 0);
    ck_assert_int_eq(w.h.num_rows, 16);
    ck_assert_int_eq(w.h.compressed, 64);
    ck_assert_bytes(w.body, 64, text_values, 64);
}
END_TEST

/* ---- zstd bodies --------------------------------------------------------------------- */

START_TEST(test_dictionary_zstd)
{
    use_codec(INLAY_ZSTD);
    const void *parts[] = { text_values };
    const size_t lens[] = { sizeof text_values };
    page_desc d = desc(PAGE_DICTIONARY, ENC_PLAIN_DICTIONARY, 600, 1, parts, lens);
    written w = write_page(&d);
    ck_assert_int_eq(w.h.type, PAGE_DICTIONARY);
    ck_assert_int_eq(w.h.encoding, ENC_PLAIN_DICTIONARY);
    ck_assert_int_eq(w.h.num_values, 600);
    ck_assert_int_eq(w.h.uncompressed, (int32_t)sizeof text_values);
    ck_assert_int_lt(w.h.compressed, (int32_t)sizeof text_values);
    expect_zstd(w.body, (size_t)w.h.compressed, text_values, sizeof text_values);
    ck_assert_uint_lt(w.stored_size, w.raw_size);
}
END_TEST

/* v1: levels and values gathered and compressed as one frame. */
START_TEST(test_v1_zstd)
{
    use_codec(INLAY_ZSTD);
    const void *parts[] = { rep_levels, def_levels, text_values };
    const size_t lens[] = { sizeof rep_levels, sizeof def_levels, sizeof text_values };
    page_desc d = desc(PAGE_DATA, ENC_PLAIN, 3000, 3, parts, lens);
    written w = write_page(&d);
    size_t n;
    uint8_t *all = joined(&d, 0, &n);
    ck_assert_int_eq(w.h.uncompressed, (int32_t)n);
    ck_assert_int_lt(w.h.compressed, (int32_t)n);
    expect_zstd(w.body, (size_t)w.h.compressed, all, n);
    ck_assert_uint_eq(w.raw_size - w.stored_size, n - (size_t)w.h.compressed);
    free(all);
}
END_TEST

/* v1 has no is_compressed flag: a body zstd cannot shrink is compressed all
 * the same. */
START_TEST(test_v1_zstd_incompressible)
{
    use_codec(INLAY_ZSTD);
    const void *parts[] = { random_values };
    const size_t lens[] = { sizeof random_values };
    page_desc d = desc(PAGE_DATA, ENC_PLAIN, 375, 1, parts, lens);
    written w = write_page(&d);
    ck_assert_int_eq(w.h.uncompressed, (int32_t)sizeof random_values);
    expect_zstd(w.body, (size_t)w.h.compressed, random_values, sizeof random_values);
}
END_TEST

/* v2: the levels in front as they are, the values as a zstd frame. */
START_TEST(test_v2_zstd)
{
    use_codec(INLAY_ZSTD);
    const void *parts[] = { rep_levels, def_levels, text_values };
    const size_t lens[] = { sizeof rep_levels, sizeof def_levels, sizeof text_values };
    page_desc d = desc(PAGE_DATA_V2, ENC_PLAIN, 3000, 3, parts, lens);
    d.nprefix = 2;
    d.num_rows = 1000;
    d.rep_bytes = sizeof rep_levels;
    d.def_bytes = sizeof def_levels;
    written w = write_page(&d);
    ck_assert(w.h.is_compressed);
    const size_t levels = sizeof rep_levels + sizeof def_levels;
    ck_assert_int_eq(w.h.uncompressed, (int32_t)(levels + sizeof text_values));
    ck_assert_int_lt(w.h.compressed, w.h.uncompressed);
    ck_assert_bytes(w.body, sizeof rep_levels, rep_levels, sizeof rep_levels);
    ck_assert_bytes(w.body + sizeof rep_levels, sizeof def_levels, def_levels, sizeof def_levels);
    expect_zstd(w.body + levels, (size_t)w.h.compressed - levels, text_values, sizeof text_values);
}
END_TEST

/* v2 values in two parts are one frame; the level prefix may be one part. */
START_TEST(test_v2_zstd_split_values)
{
    use_codec(INLAY_ZSTD);
    const void *parts[] = { def_levels, text_values, text_values + 1000, random_values };
    const size_t lens[] = { sizeof def_levels, 1000, 2000, 0 };
    page_desc d = desc(PAGE_DATA_V2, ENC_DELTA_LENGTH_BYTE_ARRAY, 50, 4, parts, lens);
    d.nprefix = 1;
    d.def_bytes = sizeof def_levels;
    written w = write_page(&d);
    ck_assert(w.h.is_compressed);
    ck_assert_int_eq(w.h.rep_bytes, 0);
    ck_assert_int_eq(w.h.def_bytes, (int32_t)sizeof def_levels);
    ck_assert_bytes(w.body, sizeof def_levels, def_levels, sizeof def_levels);
    size_t n;
    uint8_t *values = joined(&d, 1, &n);
    ck_assert_uint_eq(n, sizeof text_values);
    expect_zstd(w.body + sizeof def_levels, (size_t)w.h.compressed - sizeof def_levels, values, n);
    free(values);
}
END_TEST

/* v2 values zstd does not shrink are stored as they are. */
START_TEST(test_v2_zstd_no_gain)
{
    use_codec(INLAY_ZSTD);
    const void *parts[] = { rep_levels, def_levels, random_values };
    const size_t lens[] = { sizeof rep_levels, sizeof def_levels, sizeof random_values };
    page_desc d = desc(PAGE_DATA_V2, ENC_PLAIN, 375, 3, parts, lens);
    d.nprefix = 2;
    d.rep_bytes = sizeof rep_levels;
    d.def_bytes = sizeof def_levels;
    written w = write_page(&d);
    ck_assert(!w.h.is_compressed);
    size_t n;
    uint8_t *all = joined(&d, 0, &n);
    ck_assert_int_eq(w.h.uncompressed, (int32_t)n);
    ck_assert_int_eq(w.h.compressed, (int32_t)n);
    ck_assert_bytes(w.body, n, all, n);
    ck_assert_uint_eq(w.raw_size, w.stored_size);
    free(all);
}
END_TEST

/* Nothing but levels (every entry null): no values to compress. */
START_TEST(test_v2_zstd_levels_only)
{
    use_codec(INLAY_ZSTD);
    const void *parts[] = { rep_levels, def_levels };
    const size_t lens[] = { sizeof rep_levels, sizeof def_levels };
    page_desc d = desc(PAGE_DATA_V2, ENC_PLAIN, 8, 2, parts, lens);
    d.nprefix = 2;
    d.num_nulls = 8;
    d.rep_bytes = sizeof rep_levels;
    d.def_bytes = sizeof def_levels;
    written w = write_page(&d);
    ck_assert(!w.h.is_compressed);
    ck_assert_int_eq(w.h.compressed, (int32_t)(sizeof rep_levels + sizeof def_levels));
    ck_assert_bytes(w.body + sizeof rep_levels, sizeof def_levels, def_levels, sizeof def_levels);
}
END_TEST

/* ---- placement ------------------------------------------------------------------------ */

/* Pages follow what the buffer holds, which they leave alone, and a
 * scratch reused for the next page holds only that page's parts. */
START_TEST(test_appended_pages)
{
    use_codec(INLAY_ZSTD);
    ck_assert_int_eq(inl_buf_append(&out, &alloc, "PAR1", 4), 0);
    const void *p1[] = { rep_levels, def_levels, text_values };
    const size_t l1[] = { sizeof rep_levels, sizeof def_levels, 2500 };
    page_desc d1 = desc(PAGE_DATA, ENC_PLAIN, 100, 3, p1, l1);
    written w1 = write_page(&d1);
    const size_t second = out.len;
    const void *p2[] = { def_levels, text_values + 5 };
    const size_t l2[] = { sizeof def_levels, 600 };
    page_desc d2 = desc(PAGE_DATA, ENC_PLAIN, 40, 2, p2, l2);
    written w2 = write_page(&d2);
    ck_assert_uint_eq(out.len, 4 + w1.stored_size + w2.stored_size);
    ck_assert_bytes(out.data, 4, "PAR1", 4);

    /* the first page is still whole */
    ph h;
    ck_assert(ph_read(out.data + 4, second - 4, &h));
    ck_assert_int_eq(h.num_values, 100);
    size_t n1, n2;
    uint8_t *all1 = joined(&d1, 0, &n1), *all2 = joined(&d2, 0, &n2);
    expect_zstd(out.data + 4 + h.header_len, (size_t)h.compressed, all1, n1);
    expect_zstd(w2.body, (size_t)w2.h.compressed, all2, n2);
    ck_assert_int_eq(w2.h.uncompressed, (int32_t)n2);
    free(all1);
    free(all2);
}
END_TEST

/* A body past what an i32 size holds is refused before anything is
 * written (the parts are not read). */
START_TEST(test_too_large)
{
    use_codec(INLAY_ZSTD);
    ck_assert_int_eq(inl_buf_append(&out, &alloc, "xy", 2), 0);
    const void *parts[] = { def_levels, text_values };
    const size_t lens[] = { 16, (size_t)INT32_MAX - 15 };
    page_desc d = desc(PAGE_DATA, ENC_PLAIN, 1, 2, parts, lens);
    size_t raw = 1, stored = 2;
    ck_assert_int_eq(inl_page_write(&out, &alloc, &comp, &scratch, &d, 0, &raw, &stored), INLAY_ERR_VALUE);
    ck_assert_uint_eq(out.len, 2);
    ck_assert_uint_eq(raw, 1);
    ck_assert_uint_eq(stored, 2);
    ck_assert_uint_eq(scratch.raw.cap, 0);      /* nothing gathered */
}
END_TEST

/* The codec writes into the output after room for the longest header;
 * when the header comes out shorter (a compressed size or a CRC whose
 * varint is shorter than the room assumed) the body moves up. Bodies of
 * many sizes, compressible or not, v1 and v2, with and without the CRC,
 * each after the last in one buffer: every header parses, its CRC is that
 * of the bytes after it, the levels are in front and the body comes back. */
START_TEST(test_compressed_in_place)
{
    use_codec(INLAY_ZSTD);
    static uint8_t body[40000];
    uint64_t x = 0x9E3779B97F4A7C15u;
    size_t pages = 0;
    for (int v2 = 0; v2 < 2; v2++)
        for (int crc = 0; crc < 2; crc++)
            for (size_t len = 1; len < sizeof body; len = len * 5 / 4 + 1)
                for (int random = 0; random < 2; random++) {
                    for (size_t i = 0; i < len; i++) {
                        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                        body[i] = random ? (uint8_t)x : (uint8_t)("abcabd"[i % 6]);
                    }
                    const void *parts[] = { def_levels, body };
                    const size_t lens[] = { sizeof def_levels, len };
                    page_desc d = desc(v2 ? PAGE_DATA_V2 : PAGE_DATA, ENC_PLAIN, (int32_t)len, 2, parts, lens);
                    d.checksum = crc;
                    if (v2) {
                        d.nprefix = 1;
                        d.num_rows = (int32_t)len;
                        d.def_bytes = sizeof def_levels;
                    }
                    const size_t start = out.len;
                    written w = write_page(&d);
                    ck_assert_int_eq(w.h.has_crc, crc);
                    if (crc) {
                        const uint32_t want = (uint32_t)crc32(0, w.body, (uInt)w.h.compressed);
                        ck_assert_msg(w.h.crc == want, "len %zu: crc %08x, bytes say %08x", len, w.h.crc, want);
                    }
                    const uint8_t *values = w.body;
                    size_t stored = (size_t)w.h.compressed;
                    if (v2) {
                        ck_assert_bytes(w.body, sizeof def_levels, def_levels, sizeof def_levels);
                        values += sizeof def_levels;
                        stored -= sizeof def_levels;
                    }
                    if (!v2 || w.h.is_compressed) {
                        size_t all;
                        uint8_t *want = joined(&d, v2 ? 1 : 0, &all);
                        expect_zstd(values, stored, want, all);
                        free(want);
                    } else {
                        ck_assert_bytes(values, stored, body, len);
                    }
                    ck_assert_uint_eq(out.len, start + w.stored_size);
                    pages++;
                }
    ck_assert_uint_gt(pages, 100);
}
END_TEST

/* ---- allocation failures ---------------------------------------------------------------- */

/* Page kinds for the fault loop: type, codec. */
static const struct { int type; inlay_compression codec; bool random; } kinds[] = {
    { PAGE_DICTIONARY, INLAY_UNCOMPRESSED, false }, { PAGE_DICTIONARY, INLAY_ZSTD, false },
    { PAGE_DATA, INLAY_UNCOMPRESSED, false },       { PAGE_DATA, INLAY_ZSTD, false },
    { PAGE_DATA_V2, INLAY_UNCOMPRESSED, false },    { PAGE_DATA_V2, INLAY_ZSTD, false },
    { PAGE_DATA_V2, INLAY_ZSTD, true },
};

/* Refuse allocation n after the setup (or every one from n on), for every
 * n until the page is written: INLAY_ERR_NOMEM, the buffer as it was, and
 * nothing leaked once buffer, scratch and compressor are freed. */
static void nomem_loop(int k, bool after)
{
    fill_values();
    const void *parts[] = { rep_levels, def_levels, kinds[k].random ? random_values : text_values };
    const size_t lens[] = { sizeof rep_levels, sizeof def_levels, sizeof text_values };
    const int nparts = kinds[k].type == PAGE_DICTIONARY ? 1 : 3;
    page_desc d = desc(kinds[k].type, ENC_PLAIN, 10, nparts, parts + 3 - nparts, lens + 3 - nparts);
    if (d.type == PAGE_DATA_V2) {
        d.nprefix = 2;
        d.rep_bytes = sizeof rep_levels;
        d.def_bytes = sizeof def_levels;
    }
    unsigned long failures = 0;
    bool done = false;
    for (unsigned long n = 1; !done && n < 200; n++) {
        test_alloc ta = { 0 };
        inlay_allocator a = test_allocator(&ta);
        buf o = { 0 };
        page_scratch sc;
        memset(&sc, 0, sizeof sc);
        compressor z;
        ck_assert_int_eq(inl_buf_append(&o, &a, "head", 4), 0);
        ck_assert_int_eq(inl_compress_init(&z, &a, kinds[k].codec, 3, 0), 0);
        ta.fail_at = ta.requests + n;
        ta.fail_after = after;
        size_t raw = 0, stored = 0;
        int st = inl_page_write(&o, &a, &z, &sc, &d, 0, &raw, &stored);
        if (st) {
            ck_assert_msg(st == INLAY_ERR_NOMEM, "kind %d, allocation %lu refused: %d", k, n, st);
            ck_assert_uint_ge(ta.refused, 1);
            ck_assert_uint_eq(o.len, 4);
            ck_assert_bytes(o.data, 4, "head", 4);
            failures++;
        } else {
            ck_assert_uint_eq(ta.refused, 0);
            ph h;
            ck_assert(ph_read(o.data + 4, o.len - 4, &h));
            ck_assert_int_eq(h.type, d.type);
            ck_assert_uint_eq(o.len, 4 + stored);
            done = true;
        }
        inl_buf_free(&o, &a);
        inl_page_scratch_free(&sc, &a);
        inl_compress_free(&z);
        ck_assert_msg(ta.live_bytes == 0 && ta.live_blocks == 0 && ta.bad_sizes == 0 && ta.bad_new == 0,
                      "kind %d, allocation %lu refused: %zu bytes in %zu blocks left, %lu wrong sizes", k, n,
                      ta.live_bytes, ta.live_blocks, ta.bad_sizes);
    }
    ck_assert_msg(done, "kind %d never succeeded", k);
    ck_assert_uint_ge(failures, 1);
}

START_TEST(test_nomem_once)
{
    nomem_loop(_i, false);
}
END_TEST

START_TEST(test_nomem_from_n)
{
    nomem_loop(_i, true);
}
END_TEST

static Suite *page_suite(void)
{
    Suite *s = suite_create("page");
    TCase *t = tcase_create("headers");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, test_dictionary_page);
    tcase_add_test(t, test_v1_page);
    tcase_add_test(t, test_v2_page);
    tcase_add_test(t, test_v2_no_levels);
    suite_add_tcase(s, t);

    t = tcase_create("zstd bodies");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, test_dictionary_zstd);
    tcase_add_test(t, test_v1_zstd);
    tcase_add_test(t, test_v1_zstd_incompressible);
    tcase_add_test(t, test_v2_zstd);
    tcase_add_test(t, test_v2_zstd_split_values);
    tcase_add_test(t, test_v2_zstd_no_gain);
    tcase_add_test(t, test_v2_zstd_levels_only);
    tcase_add_test(t, test_compressed_in_place);
    suite_add_tcase(s, t);

    t = tcase_create("placement");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, test_appended_pages);
    tcase_add_test(t, test_too_large);
    suite_add_tcase(s, t);

    /* loop index: the entry of kinds[] */
    const int nkinds = (int)(sizeof kinds / sizeof kinds[0]);
    t = tcase_create("allocation");
    tcase_add_loop_test(t, test_nomem_once, 0, nkinds);
    tcase_add_loop_test(t, test_nomem_from_n, 0, nkinds);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(page_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
