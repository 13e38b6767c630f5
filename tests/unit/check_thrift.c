/*
 * check_thrift.c — the thrift compact-protocol encoder (runtime/format/thrift.c)
 * against bytes computed by hand from the protocol description, and against
 * an independent decoder (thrift_reader.h) on random structures.
 *
 * Reminders for reading the expected bytes: a field header is one byte
 * (delta << 4 | type) when the id is 1..15 above the previous field of the
 * same struct, else the type byte then the id as a zigzag varint; types are
 * 1/2 bool true/false, 3 byte, 4 i16, 5 i32, 6 i64, 8 binary, 9 list,
 * 12 struct; a struct ends with a 0 byte.
 */
#define _POSIX_C_SOURCE 200809L
#include "thrift.h"

#include "thrift_reader.h"
#include "unit.h"

static buf out;
static inlay_allocator alloc;
static tc t;

static void setup(void)
{
    memset(&out, 0, sizeof out);
    alloc = inl_mem_default();
    inl_tc_init(&t, &out, &alloc);
}

static void teardown(void)
{
    inl_buf_free(&out, &alloc);
}

/* The encoder's output so far is exactly these bytes. */
#define EXPECT(...)                                                 \
    do {                                                            \
        static const uint8_t want_[] = { __VA_ARGS__ };             \
        ck_assert_int_eq(t.err, 0);                                 \
        ck_assert_bytes(out.data, out.len, want_, sizeof want_);    \
    } while (0)

/* ---- field headers ------------------------------------------------------- */

START_TEST(test_short_delta)
{
    inl_tc_field_i32(&t, 1, 0);      /* delta 1 */
    inl_tc_field_i32(&t, 2, 1);      /* delta 1 */
    inl_tc_field_i32(&t, 17, -1);    /* delta 15: the largest short form */
    inl_tc_field_i32(&t, 19, 0);     /* delta 2 */
    inl_tc_struct_end(&t);
    EXPECT(0x15, 0x00, 0x15, 0x02, 0xF5, 0x01, 0x25, 0x00, 0x00);
}
END_TEST

START_TEST(test_long_delta)
{
    inl_tc_field_i32(&t, 1, 0);
    inl_tc_field_i32(&t, 17, 0);     /* delta 16: long form, id 17 -> zigzag 34 */
    inl_tc_field_i32(&t, 18, 3);     /* back to a short delta from 17 */
    inl_tc_struct_end(&t);
    EXPECT(0x15, 0x00, 0x05, 0x22, 0x00, 0x15, 0x06, 0x00);
}
END_TEST

START_TEST(test_first_field_16)
{
    inl_tc_field_i32(&t, 16, 0);     /* delta 16 from the implicit 0 */
    EXPECT(0x05, 0x20, 0x00);
}
END_TEST

START_TEST(test_negative_field_id)
{
    inl_tc_field_i32(&t, -1, 0);     /* zigzag(-1) = 1 */
    inl_tc_field_i32(&t, 1, 0);      /* delta 2 from -1: short form is valid */
    inl_tc_field_i32(&t, -300, 0);   /* zigzag(-300) = 599 = 0xD7 0x04 */
    EXPECT(0x05, 0x01, 0x00, 0x25, 0x00, 0x05, 0xD7, 0x04, 0x00);
}
END_TEST

START_TEST(test_decreasing_and_repeated_ids)
{
    inl_tc_field_i32(&t, 5, 0);
    inl_tc_field_i32(&t, 3, 0);      /* delta -2: long form */
    inl_tc_field_i32(&t, 3, 0);      /* delta 0: long form */
    EXPECT(0x55, 0x00, 0x05, 0x06, 0x00, 0x05, 0x06, 0x00);
}
END_TEST

START_TEST(test_big_field_jumps)
{
    inl_tc_field_i32(&t, 300, 0);    /* zigzag 600 = 0xD8 0x04 */
    inl_tc_field_i32(&t, 301, 0);    /* delta 1 */
    inl_tc_field_i32(&t, INT16_MAX, 0);   /* zigzag 65534 = 0xFE 0xFF 0x03 */
    EXPECT(0x05, 0xD8, 0x04, 0x00, 0x15, 0x00, 0x05, 0xFE, 0xFF, 0x03, 0x00);
    out.len = 0;
    inl_tc_init(&t, &out, &alloc);
    inl_tc_field_i32(&t, INT16_MIN, 0);   /* zigzag 65535 = 0xFF 0xFF 0x03 */
    inl_tc_field_i32(&t, 0, 0);           /* a jump of +32768 */
    EXPECT(0x05, 0xFF, 0xFF, 0x03, 0x00, 0x05, 0x00, 0x00);
}
END_TEST

/* ---- integers -------------------------------------------------------------- */

START_TEST(test_varint)
{
    static const struct { uint64_t v; uint8_t b[10]; size_t n; } cases[] = {
        { 0, { 0x00 }, 1 },
        { 1, { 0x01 }, 1 },
        { 127, { 0x7F }, 1 },
        { 128, { 0x80, 0x01 }, 2 },
        { 300, { 0xAC, 0x02 }, 2 },
        { 16383, { 0xFF, 0x7F }, 2 },
        { 16384, { 0x80, 0x80, 0x01 }, 3 },
        { UINT32_MAX, { 0xFF, 0xFF, 0xFF, 0xFF, 0x0F }, 5 },
        { UINT64_MAX, { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01 }, 10 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        out.len = 0;
        inl_tc_varint(&t, cases[i].v);
        ck_assert_bytes(out.data, out.len, cases[i].b, cases[i].n);
    }
}
END_TEST

START_TEST(test_zigzag)
{
    ck_assert_uint_eq(inl_tc_zigzag64(0), 0);
    ck_assert_uint_eq(inl_tc_zigzag64(-1), 1);
    ck_assert_uint_eq(inl_tc_zigzag64(1), 2);
    ck_assert_uint_eq(inl_tc_zigzag64(-2), 3);
    ck_assert_uint_eq(inl_tc_zigzag64(INT32_MAX), 0xFFFFFFFEu);
    ck_assert_uint_eq(inl_tc_zigzag64(INT32_MIN), 0xFFFFFFFFu);
    ck_assert_uint_eq(inl_tc_zigzag64(INT64_MAX), UINT64_MAX - 1);
    ck_assert_uint_eq(inl_tc_zigzag64(INT64_MIN), UINT64_MAX);
}
END_TEST

START_TEST(test_i32_extremes)
{
    inl_tc_field_i32(&t, 1, INT32_MAX);
    inl_tc_field_i32(&t, 2, INT32_MIN);
    inl_tc_field_i32(&t, 3, -1);
    inl_tc_field_i32(&t, 4, 64);
    inl_tc_field_i32(&t, 5, -64);
    EXPECT(0x15, 0xFE, 0xFF, 0xFF, 0xFF, 0x0F,
           0x15, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F,
           0x15, 0x01,
           0x15, 0x80, 0x01,
           0x15, 0x7F);
}
END_TEST

START_TEST(test_i64_extremes)
{
    inl_tc_field_i64(&t, 1, INT64_MAX);
    inl_tc_field_i64(&t, 2, INT64_MIN);
    inl_tc_field_i64(&t, 3, 0);
    inl_tc_field_i64(&t, 4, -4294967296LL);   /* zigzag 2^33 - 1 */
    EXPECT(0x16, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,
           0x16, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,
           0x16, 0x00,
           0x16, 0xFF, 0xFF, 0xFF, 0xFF, 0x1F);
}
END_TEST

START_TEST(test_i16_field)
{
    inl_tc_field_i16(&t, 1, -300);
    inl_tc_field_i16(&t, 2, INT16_MAX);
    inl_tc_field_i16(&t, 3, INT16_MIN);
    inl_tc_field_i16(&t, 4, 0);
    EXPECT(0x14, 0xD7, 0x04, 0x14, 0xFE, 0xFF, 0x03, 0x14, 0xFF, 0xFF, 0x03, 0x14, 0x00);
}
END_TEST

START_TEST(test_byte_field)
{
    inl_tc_field_byte(&t, 1, -1);
    inl_tc_field_byte(&t, 2, 127);
    inl_tc_field_byte(&t, 5, INT8_MIN);
    EXPECT(0x13, 0xFF, 0x13, 0x7F, 0x33, 0x80);
}
END_TEST

/* ---- bool, binary -------------------------------------------------------------- */

START_TEST(test_bool_fields)
{
    inl_tc_field_bool(&t, 1, true);
    inl_tc_field_bool(&t, 2, false);
    inl_tc_field_bool(&t, 20, true);    /* long form: the value is still the type nibble */
    inl_tc_field_bool(&t, 21, false);
    inl_tc_struct_end(&t);
    EXPECT(0x11, 0x12, 0x01, 0x28, 0x12, 0x00);
}
END_TEST

START_TEST(test_binary)
{
    inl_tc_field_binary(&t, 1, "abc", 3);
    inl_tc_field_binary(&t, 2, NULL, 0);
    inl_tc_field_string(&t, 5, "\xC3\xA9");
    EXPECT(0x18, 0x03, 'a', 'b', 'c', 0x18, 0x00, 0x38, 0x02, 0xC3, 0xA9);
}
END_TEST

START_TEST(test_long_binary)
{
    uint8_t data[200];
    for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 7);
    inl_tc_field_binary(&t, 4, data, sizeof data);
    ck_assert_int_eq(t.err, 0);
    static const uint8_t head[] = { 0x48, 0xC8, 0x01 };
    ck_assert_uint_eq(out.len, sizeof head + sizeof data);
    ck_assert_mem_eq(out.data, head, sizeof head);
    ck_assert_mem_eq(out.data + sizeof head, data, sizeof data);
}
END_TEST

/* ---- structs ---------------------------------------------------------------- */

START_TEST(test_nested_structs)
{
    inl_tc_field_i32(&t, 1, 1);
    inl_tc_field_struct(&t, 2);
    inl_tc_field_i32(&t, 1, 5);          /* ids restart inside a struct */
    inl_tc_field_struct(&t, 20);         /* long form, nested again */
    inl_tc_field_bool(&t, 1, true);
    inl_tc_struct_end(&t);
    inl_tc_field_i64(&t, 3, 7);          /* 3 after 20 in this struct: long form */
    inl_tc_struct_end(&t);
    inl_tc_field_i32(&t, 3, 9);          /* the outer struct resumes from id 2 */
    inl_tc_struct_end(&t);
    EXPECT(0x15, 0x02,
           0x1C,
           0x15, 0x0A,
           0x0C, 0x28,
           0x11,
           0x00,
           0x06, 0x06, 0x0E,
           0x00,
           0x15, 0x12,
           0x00);
    ck_assert_int_eq(t.depth, 0);
}
END_TEST

START_TEST(test_depth_limit)
{
    for (int i = 0; i < TC_MAX_DEPTH - 1; i++) inl_tc_field_struct(&t, 1);
    ck_assert_int_eq(t.err, 0);
    inl_tc_field_struct(&t, 1);
    ck_assert_int_eq(t.err, 1);
}
END_TEST

/* ---- lists ---------------------------------------------------------------------- */

START_TEST(test_short_list)
{
    inl_tc_field_list(&t, 1, TC_I32, 3);
    inl_tc_list_i32(&t, 1);
    inl_tc_list_i32(&t, -1);
    inl_tc_list_i32(&t, 300);
    inl_tc_field_list(&t, 3, TC_I32, 0);
    EXPECT(0x19, 0x35, 0x02, 0x01, 0xD8, 0x04, 0x29, 0x05);
}
END_TEST

START_TEST(test_list_14_15)
{
    /* 14 elements still fit the size nibble; 15 take the 0xF marker + varint */
    for (uint32_t n = 14; n <= 15; n++) {
        out.len = 0;
        inl_tc_init(&t, &out, &alloc);
        inl_tc_field_list(&t, 1, TC_I32, n);
        for (uint32_t i = 0; i < n; i++) inl_tc_list_i32(&t, (int32_t)i);
        uint8_t want[20];
        size_t k = 0;
        want[k++] = 0x19;
        if (n < 15) {
            want[k++] = (uint8_t)(n << 4 | 5);
        } else {
            want[k++] = 0xF5;
            want[k++] = (uint8_t)n;
        }
        for (uint32_t i = 0; i < n; i++) want[k++] = (uint8_t)(2 * i);
        ck_assert_int_eq(t.err, 0);
        ck_assert_bytes(out.data, out.len, want, k);
    }
}
END_TEST

START_TEST(test_long_list)
{
    inl_tc_field_list(&t, 1, TC_I32, 300);
    for (int i = 0; i < 300; i++) inl_tc_list_i32(&t, 0);
    ck_assert_int_eq(t.err, 0);
    static const uint8_t head[] = { 0x19, 0xF5, 0xAC, 0x02 };
    ck_assert_uint_eq(out.len, sizeof head + 300);
    ck_assert_mem_eq(out.data, head, sizeof head);
}
END_TEST

START_TEST(test_list_of_binary)
{
    inl_tc_field_list(&t, 2, TC_BINARY, 2);
    inl_tc_list_binary(&t, "a", 1);
    inl_tc_list_binary(&t, "bc", 2);
    EXPECT(0x29, 0x28, 0x01, 'a', 0x02, 'b', 'c');
}
END_TEST

START_TEST(test_list_of_structs)
{
    inl_tc_field_list(&t, 1, TC_STRUCT, 2);
    inl_tc_list_struct(&t);
    inl_tc_field_i32(&t, 1, 1);
    inl_tc_struct_end(&t);
    inl_tc_list_struct(&t);
    inl_tc_field_i32(&t, 2, 2);          /* each element starts from id 0 */
    inl_tc_struct_end(&t);
    inl_tc_field_i32(&t, 3, 3);          /* the enclosing struct resumes from 1 */
    inl_tc_struct_end(&t);
    EXPECT(0x19, 0x2C, 0x15, 0x02, 0x00, 0x25, 0x04, 0x00, 0x25, 0x06, 0x00);
}
END_TEST

/* ---- out of memory ------------------------------------------------------------ */

START_TEST(test_nomem_first)
{
    test_alloc ta = { .fail_at = 1, .fail_after = true };
    inlay_allocator a = test_allocator(&ta);
    buf b = { 0 };
    tc t2;
    inl_tc_init(&t2, &b, &a);
    inl_tc_field_i32(&t2, 1, 5);
    ck_assert_int_eq(t2.err, 1);
    inl_tc_field_i32(&t2, 2, 5);
    inl_tc_struct_end(&t2);
    ck_assert_int_eq(t2.err, 1);
    ck_assert_uint_eq(b.len, 0);
    inl_buf_free(&b, &a);
    ck_assert_no_leak(&ta);
}
END_TEST

START_TEST(test_nomem_sticky)
{
    /* the first block (256 bytes) is granted, growing it is not */
    test_alloc ta = { .fail_at = 2, .fail_after = true };
    inlay_allocator a = test_allocator(&ta);
    buf b = { 0 };
    tc t2;
    inl_tc_init(&t2, &b, &a);
    uint8_t data[100] = { 0 };
    inl_tc_field_binary(&t2, 1, data, sizeof data);
    inl_tc_field_binary(&t2, 2, data, sizeof data);
    ck_assert_int_eq(t2.err, 0);
    size_t len = b.len;
    inl_tc_field_binary(&t2, 3, data, sizeof data);   /* needs more than 256 bytes */
    ck_assert_int_eq(t2.err, 1);
    inl_tc_field_i32(&t2, 4, 1);                      /* would fit, but the error is sticky */
    ck_assert_int_eq(t2.err, 1);
    ck_assert_uint_le(b.len, len + 3);            /* no bytes after the failure point */
    inl_buf_free(&b, &a);
    ck_assert_no_leak(&ta);
}
END_TEST

/* ---- random structures through the independent decoder --------------------- */

/* Encode (enc != NULL) or decode and check (dec != NULL) one random struct
 * with its stop byte. Both modes draw the same random numbers, so the
 * decoder knows what the encoder was given. */
static void walk(uint64_t *rng, int depth, tc *enc, tr *dec)
{
    int nfields = (int)(rng_next(rng) % 7);
    int16_t id = 0, last = 0;
    for (int f = 0; f < nfields; f++) {
        uint64_t r = rng_next(rng);
        int step;
        switch (r % 8) {
        case 0: step = -(int)((r >> 8) % 40) - 1; break;     /* backwards */
        case 1: step = (int)((r >> 8) % 5000) + 16; break;   /* a big jump */
        case 2: step = 0; break;                              /* the same id again */
        default: step = (int)((r >> 8) % 15) + 1; break;
        }
        int next = id + step;
        if (next > 30000 || next < -30000) next = (int)((r >> 20) % 100);
        id = (int16_t)next;
        int kind = (int)((r >> 40) % 9);
        if (depth >= 4 && (kind == 7 || kind == 8)) kind = 1;
        int64_t v = (int64_t)rng_next(rng);
        int16_t got_id = 0;
        int type = -1;
        if (dec) {
            ck_assert_msg(tr_field(dec, &last, &got_id, &type), "field %d missing", (int)id);
            ck_assert_int_eq(got_id, id);
        }
        switch (kind) {
        case 0:
            if (enc) inl_tc_field_i16(enc, id, (int16_t)v);
            else { ck_assert_int_eq(type, TR_I16); ck_assert_int_eq(tr_zigzag(dec), (int16_t)v); }
            break;
        case 1:
            if (enc) inl_tc_field_i32(enc, id, (int32_t)v);
            else { ck_assert_int_eq(type, TR_I32); ck_assert_int_eq(tr_zigzag(dec), (int32_t)v); }
            break;
        case 2:
            if (enc) inl_tc_field_i64(enc, id, v);
            else { ck_assert_int_eq(type, TR_I64); ck_assert_int_eq(tr_zigzag(dec), v); }
            break;
        case 3:
            if (enc) inl_tc_field_bool(enc, id, v & 1);
            else ck_assert_int_eq(type, (v & 1) ? TR_TRUE : TR_FALSE);
            break;
        case 4:
            if (enc) inl_tc_field_byte(enc, id, (int8_t)v);
            else { ck_assert_int_eq(type, TR_BYTE); ck_assert_int_eq((int8_t)tr_byte(dec), (int8_t)v); }
            break;
        case 5: {
            uint8_t data[24];
            size_t n = (size_t)(v & 0xff) % sizeof data;
            for (size_t i = 0; i < n; i++) data[i] = (uint8_t)rng_next(rng);
            if (enc) {
                inl_tc_field_binary(enc, id, data, n);
            } else {
                size_t len;
                ck_assert_int_eq(type, TR_BINARY);
                const uint8_t *p = tr_binary(dec, &len);
                ck_assert_bytes(p, len, data, n);
            }
            break;
        }
        case 6: {
            uint32_t n = (uint32_t)((uint64_t)v % 40);
            int elem = -1;
            uint32_t count = 0;
            if (enc) inl_tc_field_list(enc, id, TC_I32, n);
            else {
                ck_assert_int_eq(type, TR_LIST);
                tr_list(dec, &elem, &count);
                ck_assert_int_eq(elem, TR_I32);
                ck_assert_uint_eq(count, n);
            }
            for (uint32_t i = 0; i < n; i++) {
                int32_t x = (int32_t)rng_next(rng);
                if (enc) inl_tc_list_i32(enc, x);
                else ck_assert_int_eq(tr_zigzag(dec), x);
            }
            break;
        }
        case 7:
            if (enc) inl_tc_field_struct(enc, id);
            else ck_assert_int_eq(type, TR_STRUCT);
            walk(rng, depth + 1, enc, dec);
            break;
        case 8: {
            uint32_t n = (uint32_t)((uint64_t)v % 4);
            int elem = -1;
            uint32_t count = 0;
            if (enc) inl_tc_field_list(enc, id, TC_STRUCT, n);
            else {
                ck_assert_int_eq(type, TR_LIST);
                tr_list(dec, &elem, &count);
                ck_assert_int_eq(elem, TR_STRUCT);
                ck_assert_uint_eq(count, n);
            }
            for (uint32_t i = 0; i < n; i++) {
                if (enc) inl_tc_list_struct(enc);
                walk(rng, depth + 1, enc, dec);
            }
            break;
        }
        }
    }
    if (enc) {
        inl_tc_struct_end(enc);
    } else {
        int16_t i;
        int ty;
        ck_assert_msg(!tr_field(dec, &last, &i, &ty), "a field where the struct should stop");
        ck_assert_int_eq(dec->err, 0);
    }
}

START_TEST(test_random_structs)
{
    for (uint64_t seed = 1; seed <= 500; seed++) {
        out.len = 0;
        inl_tc_init(&t, &out, &alloc);
        uint64_t rng = seed * 0x9E3779B97F4A7C15ULL;
        walk(&rng, 0, &t, NULL);
        ck_assert_int_eq(t.err, 0);
        ck_assert_int_eq(t.depth, 0);
        tr r = tr_make(out.data, out.len);
        rng = seed * 0x9E3779B97F4A7C15ULL;
        walk(&rng, 0, NULL, &r);
        ck_assert_msg(r.p == r.end, "seed %llu: %td bytes left over", (unsigned long long)seed,
                      r.end - r.p);
    }
}
END_TEST

static Suite *thrift_suite(void)
{
    Suite *s = suite_create("thrift");
    TCase *c;

    c = tcase_create("field header");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_short_delta);
    tcase_add_test(c, test_long_delta);
    tcase_add_test(c, test_first_field_16);
    tcase_add_test(c, test_negative_field_id);
    tcase_add_test(c, test_decreasing_and_repeated_ids);
    tcase_add_test(c, test_big_field_jumps);
    suite_add_tcase(s, c);

    c = tcase_create("integers");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_varint);
    tcase_add_test(c, test_zigzag);
    tcase_add_test(c, test_i32_extremes);
    tcase_add_test(c, test_i64_extremes);
    tcase_add_test(c, test_i16_field);
    tcase_add_test(c, test_byte_field);
    suite_add_tcase(s, c);

    c = tcase_create("bool and binary");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_bool_fields);
    tcase_add_test(c, test_binary);
    tcase_add_test(c, test_long_binary);
    suite_add_tcase(s, c);

    c = tcase_create("structs");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_nested_structs);
    tcase_add_test(c, test_depth_limit);
    suite_add_tcase(s, c);

    c = tcase_create("lists");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_short_list);
    tcase_add_test(c, test_list_14_15);
    tcase_add_test(c, test_long_list);
    tcase_add_test(c, test_list_of_binary);
    tcase_add_test(c, test_list_of_structs);
    suite_add_tcase(s, c);

    c = tcase_create("out of memory");
    tcase_add_test(c, test_nomem_first);
    tcase_add_test(c, test_nomem_sticky);
    suite_add_tcase(s, c);

    c = tcase_create("decoder round trip");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, test_random_structs);
    suite_add_tcase(s, c);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(thrift_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
