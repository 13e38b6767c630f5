/*
 * lconv.c — Lua values into column values (see lconv.h).
 *
 * The hot loops are inl_lua_convert_column's, one per common kind: lua_rawgeti
 * pushes the value and returns its type, so the expected type costs no
 * extra call; one lua_to* reads it; the stack is cut back every LI_STACK_RUN
 * values instead of popping each one. Anything else (nulls, integral floats
 * for a float column, values to reject) goes through inl_lua_put_value.
 *
 * Text is parsed by the core (inlay_parse_int, inlay_parse_decimal), the
 * same parsers the CSV and NDJSON sources use. A Lua number for a decimal
 * column goes through its shortest round-trip text ("%.17g" at most) and is
 * rounded half away from zero to the scale, so 2.675 stores 2.68 as
 * written, not what the binary double is closest to.
 */
#include <math.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lconv.h"

const char *const inl_lua_unit_names[] = { "days", "s", "ms", "us", "ns", NULL };

/* ---- fields ----------------------------------------------------------------- */

void inl_lua_field_set_type(lfield *f, const inlay_type *t)
{
    f->type = *t;
    inlay_type_name(t, f->type_name, sizeof f->type_name);
    f->utf8 = inlay_type_is_utf8(t);
    f->lo = INT64_MIN;
    f->hi = INT64_MAX;
    f->width = 0;
    f->precision = f->scale = 0;
    f->time_unit1 = 0;
    switch (t->logical) {
    case INLAY_LOGICAL_DECIMAL:
        f->precision = t->precision;
        f->scale = t->scale;
        f->kind = t->physical == INLAY_INT32 ? K_DEC32 : t->physical == INLAY_INT64 ? K_DEC64 : K_DECBIG;
        f->width = t->type_length;
        return;
    case INLAY_LOGICAL_UUID: f->kind = K_UUID; f->width = 16; return;
    case INLAY_LOGICAL_FLOAT16: f->kind = K_FLOAT16; f->width = 2; return;
    case INLAY_LOGICAL_DATE: f->time_unit1 = INLAY_UNIT_DAYS + 1; break;
    case INLAY_LOGICAL_TIME: case INLAY_LOGICAL_TIMESTAMP:
        f->time_unit1 = INLAY_UNIT_MILLIS + (int)t->unit + 1;
        break;
    default: break;
    }
    switch (t->physical) {
    case INLAY_BOOLEAN: f->kind = K_BOOL; return;
    case INLAY_INT32: case INLAY_INT64:
        if (!inlay_type_int_range(t, &f->lo, &f->hi)) f->kind = K_UINT64;
        else f->kind = t->physical == INLAY_INT32 ? K_INT32 : K_INT64;
        return;
    case INLAY_FLOAT: f->kind = K_FLOAT; return;
    case INLAY_DOUBLE: f->kind = K_DOUBLE; return;
    case INLAY_FIXED_LEN_BYTE_ARRAY: f->kind = K_FIXED; f->width = t->type_length; return;
    default: f->kind = K_BYTES; return;
    }
}

size_t inl_lua_elem_size(const lfield *f) { return inlay_type_value_size(&f->type); }

bool inl_lua_derived_bytes(inl_lua_kind k) { return k == K_UUID || k == K_FLOAT16 || k == K_DECBIG; }

bool inl_lua_is_bytes(inl_lua_kind k) { return k == K_BYTES || k == K_FIXED || inl_lua_derived_bytes(k); }

/* ---- memory ------------------------------------------------------------------- */

void *inl_lua_libc_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, nsize);
}

bool (*inl_lua_alloc_safe_hook)(void *fn);
static void *_Atomic safe_allocs[4];

void inl_lua_alloc_mark_safe(void *fn)
{
    for (size_t i = 0; i < sizeof safe_allocs / sizeof *safe_allocs; i++) {
        void *expected = NULL;
        if (safe_allocs[i] == fn || atomic_compare_exchange_strong(&safe_allocs[i], &expected, fn)) return;
    }
}

bool inl_lua_alloc_thread_safe(void *fn)
{
    if (fn == (void *)inl_lua_libc_alloc) return true;
    for (size_t i = 0; i < sizeof safe_allocs / sizeof *safe_allocs; i++)
        if (safe_allocs[i] == fn) return true;
    return inl_lua_alloc_safe_hook && inl_lua_alloc_safe_hook(fn);
}

void inl_lua_conv_init(lconv *cv, lua_State *L)
{
    memset(cv, 0, sizeof *cv);
    cv->alloc.fn = lua_getallocf(L, &cv->alloc.ud);
    cv->null_ud = inl_lua_null_pointer(L);
}

void *inl_lua_resize(lconv *cv, void *p, size_t osize, size_t nsize)
{
    if (!p && nsize == 0) return NULL;
    return cv->alloc.fn(cv->alloc.ud, p, osize, nsize);
}

void inl_lua_conv_free(lconv *cv)
{
    inl_lua_resize(cv, cv->times, cv->times_cap * sizeof *cv->times, 0);
    inl_lua_resize(cv, cv->arena, cv->arena_cap, 0);
    cv->times = NULL;
    cv->arena = NULL;
    cv->times_cap = cv->arena_cap = cv->arena_len = 0;
}

static bool grow(lconv *cv, void **p, size_t *cap, size_t want, size_t elem)
{
    if (*cap >= want) return true;
    size_t ncap = *cap * 2 > want ? *cap * 2 : want;
    void *q = inl_lua_resize(cv, *p, *cap * elem, ncap * elem);
    if (!q) return false;
    *p = q;
    *cap = ncap;
    return true;
}

void inl_lua_col_reserve(lua_State *L, lconv *cv, const lfield *f, lcol *c, size_t n)
{
    if (LI_LIKELY(c->vcap >= n && c->dcap >= n && c->bcap >= n * c->bwidth)) return;
    if (!c->esize) {
        c->esize = inl_lua_elem_size(f);
        c->bwidth = inl_lua_derived_bytes(f->kind) ? (size_t)f->width : 0;
    }
    if (!grow(cv, &c->vals, &c->vcap, n, c->esize) || !grow(cv, (void **)&c->def, &c->dcap, n, sizeof(int16_t)) ||
        (c->bwidth && !grow(cv, (void **)&c->bytes, &c->bcap, n * c->bwidth, 1)))
        inl_lua_error(L, "out of memory");
}

void inl_lua_col_free(lconv *cv, lcol *c)
{
    inl_lua_resize(cv, c->vals, c->vcap * c->esize, 0);
    inl_lua_resize(cv, c->def, c->dcap * sizeof(int16_t), 0);
    inl_lua_resize(cv, c->bytes, c->bcap, 0);
    c->vals = NULL;
    c->def = NULL;
    c->bytes = NULL;
    c->vcap = c->dcap = c->bcap = 0;
}

/* ---- errors in values ---------------------------------------------------------- */

bool inl_lua_is_null(lua_State *L, const lconv *cv, int idx, int t)
{
    return t == LUA_TNIL || t == LUA_TNONE || (t == LUA_TUSERDATA && lua_touserdata(L, idx) == cv->null_ud);
}

/* "got ..." for the value at idx: nil, inlay.null or its type name. */
static const char *describe(lua_State *L, const lconv *cv, int idx, int t)
{
    if (t == LUA_TNONE || t == LUA_TNIL) return "nil";
    if (t == LUA_TUSERDATA && lua_touserdata(L, idx) == cv->null_ud) return "inlay.null";
    return luaL_typename(L, idx);
}

static LI_NORETURN LI_NOINLINE void bad_value(lua_State *L, const lconv *cv, const lfield *f, uint64_t row,
                                              const char *expected, int idx, int t)
{
    const char *got = describe(L, cv, idx, t);
    inl_lua_error(L, "column '%s' row %I: expected %s, got %s", f->name, (LUAI_UACINT)row, expected, got);
}

static LI_NORETURN LI_NOINLINE void bad_text(lua_State *L, const lfield *f, uint64_t row, const char *expected,
                                             int idx, const char *why)
{
    size_t len;
    const char *s = lua_tolstring(L, idx, &len);
    inl_lua_error(L, "column '%s' row %I: expected %s, got \"%s%s\"%s%s%s", f->name, (LUAI_UACINT)row, expected,
             lua_pushlstring(L, s, len > 40 ? 40 : len), len > 40 ? "..." : "", why ? " (" : "", why ? why : "",
             why ? ")" : "");
}

static LI_NORETURN LI_NOINLINE void bad_int(lua_State *L, const lfield *f, uint64_t row, int idx, lua_Integer v,
                                            int ok)
{
    if (!ok)
        inl_lua_error(L, "column '%s' row %I: expected integer, got %s", f->name, (LUAI_UACINT)row,
                 luaL_tolstring(L, idx, NULL));
    lua_pushfstring(L, "%s (%I..%I)", f->type_name, (LUAI_UACINT)f->lo, (LUAI_UACINT)f->hi);
    inl_lua_error(L, "column '%s' row %I: expected %s, got %I", f->name, (LUAI_UACINT)row, lua_tostring(L, -1),
             (LUAI_UACINT)v);
}

/* ---- one value ------------------------------------------------------------------- */

static int64_t be_to_i64(const uint8_t *p, int width)
{
    uint64_t v = (p[0] & 0x80) ? UINT64_MAX : 0;
    for (int i = 0; i < width; i++) v = v << 8 | p[i];
    int64_t r;
    memcpy(&r, &v, sizeof r);
    return r;
}

/* The text of a number for the decimal parser: an integer as it is, a
 * float as the shortest text that reads back as it. */
static const char *number_text(lua_State *L, int idx, char *buf, size_t cap, bool *is_float)
{
    *is_float = !lua_isinteger(L, idx);
    if (!*is_float) {
        snprintf(buf, cap, LUA_INTEGER_FMT, (LUAI_UACINT)lua_tointeger(L, idx));
        return buf;
    }
    double d = lua_tonumber(L, idx);
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, d);
        if (strtod(buf, NULL) == d) break;
    }
    for (char *p = buf; *p; p++)   /* a locale's decimal comma */
        if (*p == ',') *p = '.';
    return buf;
}

static void put_decimal(lua_State *L, const lconv *cv, const lfield *f, lcol *c, size_t k, uint64_t row, int idx,
                        int t)
{
    uint8_t tmp[8];
    const int width = f->kind == K_DEC32 ? 4 : f->kind == K_DEC64 ? 8 : f->width;
    uint8_t *out = f->kind == K_DECBIG ? c->bytes + k * (size_t)width : tmp;
    const char *why;
    if (t == LUA_TNUMBER) {
        char text[64];
        bool is_float;
        if (!isfinite(lua_tonumber(L, idx))) {
            why = "not a finite number";
        } else {
            number_text(L, idx, text, sizeof text, &is_float);
            inlay_parse_decimal(text, strlen(text), f->precision, f->scale, is_float, out, (size_t)width, &why);
        }
        if (why) {
            const char *got = luaL_tolstring(L, idx, NULL);
            inl_lua_error(L, "column '%s' row %I: expected %s, got %s (%s)", f->name, (LUAI_UACINT)row, f->type_name,
                     got, why);
        }
    } else if (t == LUA_TSTRING) {
        size_t len;
        const char *s = lua_tolstring(L, idx, &len);
        if (inlay_parse_decimal(s, len, f->precision, f->scale, false, out, (size_t)width, &why) != INLAY_OK)
            bad_text(L, f, row, f->type_name, idx, why);
    } else {
        bad_value(L, cv, f, row, "a number or a decimal string", idx, t);
    }
    if (f->kind == K_DEC32) ((int32_t *)c->vals)[k] = (int32_t)be_to_i64(tmp, 4);
    else if (f->kind == K_DEC64) ((int64_t *)c->vals)[k] = be_to_i64(tmp, 8);
    else ((inlay_bytes *)c->vals)[k] = (inlay_bytes){ out, (size_t)width };
}

static void put_uint64(lua_State *L, const lconv *cv, const lfield *f, lcol *c, size_t k, uint64_t row, int idx,
                       int t)
{
    uint64_t u;
    if (t == LUA_TNUMBER) {
        int ok;
        lua_Integer v = lua_tointegerx(L, idx, &ok);
        if (ok && v >= 0) {
            u = (uint64_t)v;
        } else {
            double d = lua_tonumber(L, idx);
            if (!(d >= 0 && d < 0x1p64 && d == floor(d))) {
                const char *got = luaL_tolstring(L, idx, NULL);
                inl_lua_error(L, "column '%s' row %I: expected uint64 (0..18446744073709551615), got %s", f->name,
                         (LUAI_UACINT)row, got);
            }
            u = (uint64_t)d;
        }
    } else if (t == LUA_TSTRING) {
        size_t len;
        const char *s = lua_tolstring(L, idx, &len);
        int64_t bits;
        if (inlay_parse_int(s, len, 64, false, &bits, NULL) != INLAY_OK)
            bad_text(L, f, row, "uint64 (0..18446744073709551615)", idx, NULL);
        memcpy(&u, &bits, sizeof u);
    } else {
        bad_value(L, cv, f, row, "integer", idx, t);
    }
    memcpy((int64_t *)c->vals + k, &u, sizeof u);
}

int inl_lua_put_value(lua_State *L, const lconv *cv, const lfield *f, lcol *c, size_t k, uint64_t row, int idx, int t)
{
    if (inl_lua_is_null(L, cv, idx, t)) {
        if (!f->optional) bad_value(L, cv, f, row, f->type_name, idx, t);
        return 0;
    }
    switch (f->kind) {
    case K_BOOL:
        if (t != LUA_TBOOLEAN) bad_value(L, cv, f, row, "boolean", idx, t);
        ((bool *)c->vals)[k] = lua_toboolean(L, idx);
        return 1;
    case K_INT32: case K_INT64: {
        if (t != LUA_TNUMBER) bad_value(L, cv, f, row, "integer", idx, t);
        int ok;
        lua_Integer v = lua_tointegerx(L, idx, &ok);
        if (!ok || v < f->lo || v > f->hi) bad_int(L, f, row, idx, v, ok);
        if (f->kind == K_INT32) ((int32_t *)c->vals)[k] = (int32_t)(uint32_t)v;
        else ((int64_t *)c->vals)[k] = v;
        return 1;
    }
    case K_UINT64:
        put_uint64(L, cv, f, c, k, row, idx, t);
        return 1;
    case K_FLOAT:
        if (t != LUA_TNUMBER) bad_value(L, cv, f, row, "number", idx, t);
        ((float *)c->vals)[k] = inl_lua_to_float(lua_tonumber(L, idx));
        return 1;
    case K_DOUBLE:
        if (t != LUA_TNUMBER) bad_value(L, cv, f, row, "number", idx, t);
        ((double *)c->vals)[k] = lua_tonumber(L, idx);
        return 1;
    case K_FLOAT16: {
        if (t != LUA_TNUMBER) bad_value(L, cv, f, row, "number", idx, t);
        uint16_t h = inlay_float16_bits(lua_tonumber(L, idx));
        uint8_t *out = c->bytes + 2 * k;
        out[0] = (uint8_t)h;
        out[1] = (uint8_t)(h >> 8);
        ((inlay_bytes *)c->vals)[k] = (inlay_bytes){ out, 2 };
        return 1;
    }
    case K_BYTES: case K_FIXED: {
        if (t != LUA_TSTRING) bad_value(L, cv, f, row, "string", idx, t);
        size_t len;
        const char *s = lua_tolstring(L, idx, &len);
        if (f->kind == K_FIXED && len != (size_t)f->width) {
            lua_pushfstring(L, "%s (%d bytes)", f->type_name, (int)f->width);
            inl_lua_error(L, "column '%s' row %I: expected %s, got a string of %I bytes", f->name, (LUAI_UACINT)row,
                     lua_tostring(L, -1), (LUAI_UACINT)len);
        }
        ((inlay_bytes *)c->vals)[k] = (inlay_bytes){ s, len };
        return 1;
    }
    case K_UUID: {
        if (t != LUA_TSTRING) bad_value(L, cv, f, row, "uuid (16 bytes or 36-character text)", idx, t);
        size_t len;
        const char *s = lua_tolstring(L, idx, &len);
        if (len == 16) {
            ((inlay_bytes *)c->vals)[k] = (inlay_bytes){ s, 16 };
        } else {
            uint8_t *out = c->bytes + 16 * k;
            if (len != 36) bad_value(L, cv, f, row, "uuid (16 bytes or 36-character text)", idx, t);
            if (!inlay_uuid_parse(s, len, out)) bad_text(L, f, row, "uuid", idx, "not a uuid");
            ((inlay_bytes *)c->vals)[k] = (inlay_bytes){ out, 16 };
        }
        return 1;
    }
    default:
        put_decimal(L, cv, f, c, k, row, idx, t);
        return 1;
    }
}

/* ---- whole columns ----------------------------------------------------------------- */

bool inl_lua_convert_column(lua_State *L, const lconv *cv, const lfield *f, lcol *c, int tab, size_t n)
{
    int16_t *def = c->def;
    const int base = lua_gettop(L);
    size_t k = 0;

/* A required column needs no levels (a null raises), so its loop stores none. */
#define LOOP_BODY(TYPE, STORE, OPTIONAL)                                                 \
    for (size_t j = 0; j < n; j++) {                                                     \
        int t_ = lua_rawgeti(L, tab, (lua_Integer)j + 1);                                \
        if (LI_LIKELY(t_ == (TYPE))) {                                                   \
            STORE;                                                                       \
            if (OPTIONAL) def[j] = 1;                                                    \
            k++;                                                                         \
        } else {                                                                         \
            int p_ = inl_lua_put_value(L, cv, f, c, k, j + 1, -1, t_);                        \
            if (OPTIONAL) def[j] = (int16_t)p_;                                          \
            k += (size_t)p_;                                                             \
        }                                                                                \
        if ((j % LI_STACK_RUN) == LI_STACK_RUN - 1) lua_settop(L, base);                       \
    }
#define COLUMN_LOOP(TYPE, STORE)                                                         \
    if (f->optional) { LOOP_BODY(TYPE, STORE, 1) } else { LOOP_BODY(TYPE, STORE, 0) }

    switch (f->kind) {
    case K_INT64: {
        int64_t *out = c->vals;
        const int64_t lo = f->lo, hi = f->hi;
        COLUMN_LOOP(LUA_TNUMBER, {
            int ok;
            lua_Integer v = lua_tointegerx(L, -1, &ok);
            if (LI_UNLIKELY(!ok || v < lo || v > hi)) bad_int(L, f, j + 1, -1, v, ok);
            out[k] = v;
        })
        break;
    }
    case K_INT32: {
        int32_t *out = c->vals;
        const int64_t lo = f->lo, hi = f->hi;
        COLUMN_LOOP(LUA_TNUMBER, {
            int ok;
            lua_Integer v = lua_tointegerx(L, -1, &ok);
            if (LI_UNLIKELY(!ok || v < lo || v > hi)) bad_int(L, f, j + 1, -1, v, ok);
            out[k] = (int32_t)(uint32_t)v;
        })
        break;
    }
    case K_DOUBLE: {
        double *out = c->vals;
        COLUMN_LOOP(LUA_TNUMBER, out[k] = lua_tonumberx(L, -1, NULL))
        break;
    }
    case K_FLOAT: {
        float *out = c->vals;
        COLUMN_LOOP(LUA_TNUMBER, out[k] = inl_lua_to_float(lua_tonumberx(L, -1, NULL)))
        break;
    }
    case K_BOOL: {
        bool *out = c->vals;
        COLUMN_LOOP(LUA_TBOOLEAN, out[k] = lua_toboolean(L, -1))
        break;
    }
    case K_BYTES: {
        inlay_bytes *out = c->vals;
        COLUMN_LOOP(LUA_TSTRING, out[k].data = lua_tolstring(L, -1, &out[k].len))
        break;
    }
    default:
        for (size_t j = 0; j < n; j++) {
            int t = lua_rawgeti(L, tab, (lua_Integer)j + 1);
            int p = inl_lua_put_value(L, cv, f, c, k, j + 1, -1, t);
            def[j] = (int16_t)p;
            k += (size_t)p;
            if ((j % LI_STACK_RUN) == LI_STACK_RUN - 1) lua_settop(L, base);
        }
        break;
    }
#undef COLUMN_LOOP
#undef LOOP_BODY
    lua_settop(L, base);
    return k != n;
}

/* Read the integers as int64 in one loop, then convert the whole array in
 * one pass (inlay_time_convert: the unit decided once, not per value). */
bool inl_lua_convert_time_column(lua_State *L, lconv *cv, const lfield *f, lcol *c, int tab, size_t n)
{
    const inlay_unit from = (inlay_unit)(c->from_unit1 - 1), to = (inlay_unit)(f->time_unit1 - 1);
    if (!grow(cv, (void **)&cv->times, &cv->times_cap, n, sizeof *cv->times)) inl_lua_error(L, "out of memory");
    /* nulls and bad values go through inl_lua_put_value as for an int64 column */
    lfield g = *f;
    g.kind = K_INT64;
    g.lo = INT64_MIN;
    g.hi = INT64_MAX;
    snprintf(g.type_name, sizeof g.type_name, "integer (%s)", inl_lua_unit_names[from]);
    lcol t = *c;
    t.vals = cv->times;
    int64_t *tmp = cv->times;
    int16_t *def = c->def;
    const int base = lua_gettop(L);
    size_t k = 0;
    for (size_t j = 0; j < n; j++) {
        int tp = lua_rawgeti(L, tab, (lua_Integer)j + 1), ok = 0;
        lua_Integer v = tp == LUA_TNUMBER ? lua_tointegerx(L, -1, &ok) : 0;
        if (LI_LIKELY(ok)) {
            tmp[k++] = v;
            def[j] = 1;
        } else {
            int p = inl_lua_put_value(L, cv, &g, &t, k, j + 1, -1, tp);
            def[j] = (int16_t)p;
            k += (size_t)p;
        }
        if ((j % LI_STACK_RUN) == LI_STACK_RUN - 1) lua_settop(L, base);
    }
    lua_settop(L, base);
    const bool narrow = c->esize == sizeof(int32_t);
    size_t bad = inlay_time_convert(c->vals, narrow, tmp, k, from, to);
    if (bad == k) {   /* fits the storage; a TIME must also lie within the day */
        for (bad = 0; bad < k; bad++) {
            int64_t v = narrow ? ((int32_t *)c->vals)[bad] : ((int64_t *)c->vals)[bad];
            if (v < f->lo || v > f->hi) break;
        }
    }
    if (bad < k) {
        size_t row = 0, seen = 0;   /* the row of the bad-th value present */
        for (; row < n; row++)
            if (!f->optional || def[row]) {
                if (seen == bad) break;
                seen++;
            }
        inl_lua_error(L, "column '%s' row %I: %I %s does not fit %s", f->name, (LUAI_UACINT)(row + 1),
                 (LUAI_UACINT)tmp[bad], inl_lua_unit_names[from], f->type_name);
    }
    return k != n;
}

/* ---- bytes kept for later ---------------------------------------------------------------- */

void inl_lua_check_bytes(lua_State *L, const lfield *f, uint64_t row, const inlay_bytes *b)
{
    if (f->utf8 && LI_UNLIKELY(!inlay_utf8_valid(b->data, b->len)))
        inl_lua_error(L, "column '%s' row %I: invalid UTF-8 in a text column", f->name, (LUAI_UACINT)row);
    if (LI_UNLIKELY(b->len > INT32_MAX))
        inl_lua_error(L, "column '%s' row %I: value of %I bytes is too long (max %d)", f->name, (LUAI_UACINT)row,
                 (LUAI_UACINT)b->len, INT32_MAX);
}

size_t inl_lua_arena_put(lua_State *L, lconv *cv, size_t *apos, const void *p, size_t len)
{
    size_t off = *apos;
    if (LI_UNLIKELY(off + len > cv->arena_cap)) {   /* the contents move: staged values hold offsets */
        size_t cap = cv->arena_cap ? cv->arena_cap : 4096;
        while (cap < off + len) cap *= 2;
        uint8_t *q = inl_lua_resize(cv, cv->arena, cv->arena_cap, cap);
        if (!q) inl_lua_error(L, "out of memory");
        cv->arena = q;
        cv->arena_cap = cap;
    }
    if (len) memcpy(cv->arena + off, p, len);
    *apos = off + len;
    return off;
}
