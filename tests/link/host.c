/*
 * host.c — a host program whose own global functions carry every name the
 * library once exported without a prefix (buf_free, column_init, csv_open,
 * mem_alloc ...; see old_exports.h), linked against libinlay.a and against
 * libinlay.so.
 *
 * Linked statically, a clash is a "multiple definition" error and this
 * program does not build. Linked dynamically, a library that still called
 * such a name would get the host's function instead of its own: so the
 * program writes a small file through the library, checks that none of its
 * own functions ran meanwhile and that the file is whole, then calls each of
 * its functions and checks that its own ran.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <inlay.h>

enum {
#define X(name) NAME_##name,
#include "old_exports.h"
#undef X
    NAME_COUNT
};

static const char *const names[NAME_COUNT] = {
#define X(name) #name,
#include "old_exports.h"
#undef X
};

static int calls[NAME_COUNT];

/* The host's own functions: each counts its calls and returns its index. */
#define X(name)                 \
    int name(void);             \
    int name(void)              \
    {                           \
        calls[NAME_##name]++;   \
        return NAME_##name;     \
    }
#include "old_exports.h"
#undef X

static int (*const functions[NAME_COUNT])(void) = {
#define X(name) name,
#include "old_exports.h"
#undef X
};

static int failures;

static void expect(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "FAIL %s\n", what);
        failures++;
    }
}

/* A write that goes through the library's allocator, buffers, memo tables,
 * encoders, compressor, thrift writer and sink: most of the old names. */
static void write_a_file(void)
{
    inlay_schema *s = inlay_schema_create(NULL);
    expect(s != NULL, "inlay_schema_create");
    expect(inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL) > 0, "add id");
    expect(inlay_schema_add(s, 0, "name", INLAY_OPTIONAL, inlay_type_string(), NULL) > 0, "add name");
    inlay_buffer out;
    inlay_buffer_init(&out, NULL);
    inlay_writer *w = NULL;
    expect(inlay_writer_open(&w, inlay_buffer_sink(&out), s, NULL) == INLAY_OK, "inlay_writer_open");
    enum { N = 5000 };
    static int64_t ids[N];
    static inlay_bytes texts[N];
    static int16_t def[N];
    static const char *const words[] = { "alpha", "beta", "gamma", "delta" };
    for (int i = 0; i < N; i++) {
        ids[i] = i * 7;
        def[i] = i % 5 != 0;
        texts[i] = (inlay_bytes){ words[i % 4], strlen(words[i % 4]) };
    }
    size_t nnames = 0;
    static inlay_bytes dense[N];
    for (int i = 0; i < N; i++)
        if (def[i]) dense[nnames++] = texts[i];
    inlay_levels lv = { .def = def };
    expect(inlay_writer_append_i64(w, 0, ids, N, NULL) == INLAY_OK, "append ids");
    expect(inlay_writer_append_bytes(w, 1, dense, N, &lv) == INLAY_OK, "append names");
    expect(inlay_writer_close(w) == INLAY_OK, inlay_writer_errmsg(w));
    expect(inlay_writer_rows(w) == N, "rows written");
    expect(out.len > 8 && memcmp(out.data, "PAR1", 4) == 0 && memcmp(out.data + out.len - 4, "PAR1", 4) == 0,
           "the file starts and ends with PAR1");
    inlay_writer_free(w);
    inlay_schema_free(s);
    inlay_buffer_free(&out);
}

int main(void)
{
    write_a_file();
    for (int i = 0; i < NAME_COUNT; i++)
        if (calls[i]) {
            fprintf(stderr, "FAIL the library called the host's %s\n", names[i]);
            failures++;
        }
    for (int i = 0; i < NAME_COUNT; i++) {
        int before = calls[i];
        if (functions[i]() != i || calls[i] != before + 1) {
            fprintf(stderr, "FAIL calling %s did not run the host's own function\n", names[i]);
            failures++;
        }
    }
    if (failures) return EXIT_FAILURE;
    printf("ok: %d host functions named as the library's old internals; the library called none of them\n",
           NAME_COUNT);
    return EXIT_SUCCESS;
}
