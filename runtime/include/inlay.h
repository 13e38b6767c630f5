/*
 * inlay.h — the public C API of libinlay, a Parquet writer.
 *
 * The shape of a program that embeds inlay:
 *
 *     inlay_schema *s = inlay_schema_create(NULL);
 *     inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL);
 *     inlay_schema_add(s, 0, "name", INLAY_OPTIONAL, inlay_type_string(), NULL);
 *
 *     inlay_options opt;
 *     inlay_options_init(&opt);               // defaults: zstd level 3, 1 MiB pages ...
 *     inlay_writer *w;
 *     if (inlay_writer_open_file(&w, "out.parquet", s, &opt) != INLAY_OK) ...
 *     inlay_schema_free(s);                    // the writer keeps its own copy
 *
 *     inlay_writer_append_i64(w, 0, ids, n, NULL);          // n rows, none null
 *     inlay_writer_append_bytes(w, 1, names, n, &levels);   // some null
 *     if (inlay_writer_close(w) != INLAY_OK) puts(inlay_writer_errmsg(w));
 *     inlay_writer_free(w);
 *
 * Threading: one writer may be used from one thread at a time. Distinct
 * writers are independent. A writer has worker threads of its own
 * (inlay_options.threads, by default one per online CPU up to
 * INLAY_MAX_DEFAULT_THREADS): they encode and compress the pages the
 * calling thread cuts, and the allocator is then called from them too,
 * concurrently; a host whose allocator is not thread-safe sets
 * inlay_options.serialize_alloc (or threads = 1). A host's sink
 * (inlay_writer_open) is called only from the thread calling the writer;
 * a file or descriptor writer hands each finished row group's bytes to one
 * of its workers, one row group at a time, in file order. The file is byte
 * for byte the same at any thread count. The library's threads (workers, a
 * text source's parsing thread) block the asynchronous signals (SIGINT,
 * SIGTERM, SIGHUP, ...): those reach the host's own threads.
 *
 * Errors: every function that can fail returns an int status, INLAY_OK (0)
 * or one of the negative INLAY_ERR_* codes. The writer keeps a message that
 * names the column (and row, where one is at fault); it is owned by the
 * writer and valid until the next call on it. A call that fails on bad input
 * changes nothing and the writer stays usable. Failures of the environment
 * (out of memory, the sink failing) are sticky: the writer then only accepts
 * inlay_writer_abort()/inlay_writer_free().
 */
#ifndef INLAY_H
#define INLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the library exports: every declaration here and nothing else (the
 * library is built with hidden visibility). */
#if defined(_WIN32) && defined(INLAY_SHARED_BUILD)
#define INLAY_API __declspec(dllexport)
#elif defined(__GNUC__) && __GNUC__ >= 4
#define INLAY_API __attribute__((visibility("default")))
#else
#define INLAY_API
#endif

/*======================================================================
 *  Version
 *====================================================================*/

/* The one place the version is defined; the build reads it from here. */
#define INLAY_VERSION_MAJOR 0
#define INLAY_VERSION_MINOR 1
#define INLAY_VERSION_PATCH 0

#define INLAY_VERSION_NUMBER (INLAY_VERSION_MAJOR * 10000 + INLAY_VERSION_MINOR * 100 + INLAY_VERSION_PATCH)
#define INLAY_VERSION_TEXT_(a, b, c) #a "." #b "." #c
#define INLAY_VERSION_TEXT(a, b, c) INLAY_VERSION_TEXT_(a, b, c)
#define INLAY_VERSION_STRING INLAY_VERSION_TEXT(INLAY_VERSION_MAJOR, INLAY_VERSION_MINOR, INLAY_VERSION_PATCH)

/* The version of the library actually loaded, which may differ from the
 * header's: inlay_version_number() is INLAY_VERSION_NUMBER (major * 10000
 * + minor * 100 + patch) and inlay_version() "X.Y.Z", as it was built. The
 * footer's created_by is "inlay version X.Y.Z". */
INLAY_API unsigned inlay_version_number(void);
INLAY_API const char *inlay_version(void);

/*======================================================================
 *  Status codes
 *====================================================================*/

enum {
    INLAY_OK = 0,
    INLAY_ERR_ARGUMENT = -1,   /* a NULL or out-of-range argument */
    INLAY_ERR_SCHEMA = -2,     /* the schema is invalid */
    INLAY_ERR_COLUMN = -3,     /* no such column */
    INLAY_ERR_TYPE = -4,       /* the append function does not match the column's type */
    INLAY_ERR_VALUE = -5,      /* a value does not fit its column */
    INLAY_ERR_NULL = -6,       /* a null in a required column */
    INLAY_ERR_LEVEL = -7,      /* a definition/repetition level out of range */
    INLAY_ERR_STATE = -8,      /* call after close, or unequal row counts at close */
    INLAY_ERR_NOMEM = -9,      /* the allocator failed (sticky) */
    INLAY_ERR_IO = -10,        /* the sink failed (sticky) */
    INLAY_ERR_COMPRESS = -11,  /* the compressor failed (sticky) */
    INLAY_ERR_FORMAT = -12,    /* a file read is not valid Parquet: corrupt, truncated or unsupported */
};

/* A short static description of a status code; never NULL. */
INLAY_API const char *inlay_strerror(int status);

/* True if data[0..len) is valid UTF-8 (RFC 3629: no overlong forms,
 * surrogates or code points past U+10FFFF) — the check STRING, JSON and
 * ENUM columns apply to their values. data may be NULL when len is 0. */
INLAY_API bool inlay_utf8_valid(const void *data, size_t len);

/*======================================================================
 *  Memory
 *====================================================================*/

/* Shaped like lua_Alloc: with nsize == 0, free ptr and return NULL;
 * otherwise allocate (ptr == NULL) or resize ptr from osize to nsize bytes,
 * returning NULL on failure (ptr stays valid). osize is the size the block
 * was allocated with (0 when ptr is NULL).
 *
 * On Linux the library asks the kernel to map the pages of a large block
 * (64 KiB or more) just before it writes them, in one call
 * (madvise MADV_POPULATE_WRITE) rather than one page fault per page: the
 * block's contents are not read or changed, and where the kernel cannot
 * (before 5.14) the pages fault as they are written. */
typedef void *(*inlay_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);

typedef struct inlay_allocator {
    inlay_alloc_fn fn;
    void *ud;
} inlay_allocator;

/*======================================================================
 *  Types
 *====================================================================*/

typedef enum inlay_physical {
    INLAY_BOOLEAN = 0,
    INLAY_INT32 = 1,
    INLAY_INT64 = 2,
    INLAY_FLOAT = 4,
    INLAY_DOUBLE = 5,
    INLAY_BYTE_ARRAY = 6,
    INLAY_FIXED_LEN_BYTE_ARRAY = 7,
} inlay_physical;

typedef enum inlay_logical {
    INLAY_LOGICAL_NONE = 0,
    INLAY_LOGICAL_STRING,
    INLAY_LOGICAL_ENUM,
    INLAY_LOGICAL_JSON,
    INLAY_LOGICAL_UUID,
    INLAY_LOGICAL_DATE,
    INLAY_LOGICAL_TIME,
    INLAY_LOGICAL_TIMESTAMP,
    INLAY_LOGICAL_DECIMAL,
    INLAY_LOGICAL_INT,
    INLAY_LOGICAL_FLOAT16,
} inlay_logical;

typedef enum inlay_time_unit {
    INLAY_MILLIS = 0,
    INLAY_MICROS = 1,
    INLAY_NANOS = 2,
} inlay_time_unit;

typedef enum inlay_repetition {
    INLAY_REQUIRED = 0,
    INLAY_OPTIONAL = 1,
    INLAY_REPEATED = 2,
} inlay_repetition;

/* A column's type: a physical type and an optional logical annotation.
 * Make one with the constructors below rather than by hand. */
typedef struct inlay_type {
    inlay_physical physical;
    inlay_logical logical;
    int32_t type_length;    /* FIXED_LEN_BYTE_ARRAY width in bytes */
    int32_t precision;      /* DECIMAL */
    int32_t scale;          /* DECIMAL */
    int32_t bit_width;      /* INT: 8, 16, 32 or 64 */
    bool is_signed;         /* INT */
    bool utc;               /* TIME, TIMESTAMP: isAdjustedToUTC */
    inlay_time_unit unit;   /* TIME, TIMESTAMP */
} inlay_type;

INLAY_API inlay_type inlay_type_physical(inlay_physical p);     /* no annotation */
INLAY_API inlay_type inlay_type_boolean(void);
INLAY_API inlay_type inlay_type_int(int bit_width, bool is_signed); /* INT32 (8/16/32) or INT64 */
INLAY_API inlay_type inlay_type_float(void);
INLAY_API inlay_type inlay_type_double(void);
INLAY_API inlay_type inlay_type_binary(void);                    /* BYTE_ARRAY */
INLAY_API inlay_type inlay_type_string(void);                    /* BYTE_ARRAY, UTF-8 checked */
INLAY_API inlay_type inlay_type_enum(void);                      /* BYTE_ARRAY, UTF-8 checked */
INLAY_API inlay_type inlay_type_json(void);                      /* BYTE_ARRAY, UTF-8 checked */
INLAY_API inlay_type inlay_type_fixed(int32_t width);            /* FIXED_LEN_BYTE_ARRAY */
INLAY_API inlay_type inlay_type_uuid(void);                      /* FIXED_LEN_BYTE_ARRAY(16) */
INLAY_API inlay_type inlay_type_float16(void);                   /* FIXED_LEN_BYTE_ARRAY(2), IEEE half, little-endian */
INLAY_API inlay_type inlay_type_date(void);                      /* INT32 days since 1970-01-01 */
INLAY_API inlay_type inlay_type_time(inlay_time_unit u, bool utc);      /* INT32 (ms) or INT64 (us, ns) */
INLAY_API inlay_type inlay_type_timestamp(inlay_time_unit u, bool utc); /* INT64 since the epoch */
/* DECIMAL(precision, scale) on INT32 (precision 1..9), INT64 (1..18) or
 * FIXED_LEN_BYTE_ARRAY (width bytes, precision up to what width holds;
 * width 0: the narrowest that holds precision, 16 bytes for 38 digits).
 * Values are unscaled integers; on FIXED_LEN_BYTE_ARRAY, big-endian two's
 * complement. */
INLAY_API inlay_type inlay_type_decimal(int32_t precision, int32_t scale, inlay_physical p, int32_t width);

/* What a type is, from the one table the library itself uses. */

/* The type's name as scripts write it: "int8", "uint64", "string",
 * "timestamp(us, utc)", "time(ms)", "decimal(10,2)", "fixed(16)", "uuid"...
 * (an INT32 or INT64 without annotation prints as "int32", "int64"). Into
 * buf, cap bytes, NUL-terminated when cap > 0; returns the length the whole
 * name needs, as snprintf. */
INLAY_API size_t inlay_type_name(const inlay_type *t, char *buf, size_t cap);

/* The type a name names: what inlay_type_name prints ("int32" is
 * INT(32, signed)); "decimal(p,s)" is on INT32 up to precision 9, INT64 up
 * to 18, else the narrowest FIXED_LEN_BYTE_ARRAY. Returns false when the
 * name names no type. */
INLAY_API bool inlay_type_parse(const char *name, size_t len, inlay_type *out);

/* Bytes per entry of the array the append call of a column of this type
 * takes: sizeof(bool), int32_t, int64_t, float, double or inlay_bytes. */
INLAY_API size_t inlay_type_value_size(const inlay_type *t);

/* The values an INT32 or INT64 column of this type accepts, as integers
 * (not as the bits stored): int8 -128..127, uint32 0..4294967295,
 * DECIMAL(5,2) -99999..99999 unscaled, TIME(ms) 0..86399999. Returns false
 * for uint64 (past int64) and for other physical types. */
INLAY_API bool inlay_type_int_range(const inlay_type *t, int64_t *lo, int64_t *hi);

/* True for STRING, JSON and ENUM, whose values must be valid UTF-8. */
INLAY_API bool inlay_type_is_utf8(const inlay_type *t);

/*======================================================================
 *  Values from text
 *
 *  The parsers the CSV and NDJSON sources use, for hosts that hold values
 *  as text. Pure functions of (s, len): s need not be NUL-terminated and
 *  is not read past s[len - 1]; no locale, no allocation, no trimming.
 *  Each returns INLAY_OK, or INLAY_ERR_VALUE with *why (why may be NULL)
 *  set to a static reason; outputs are written only on INLAY_OK.
 *====================================================================*/

/* [+-]digits, range-checked for bit_width (1..64) bits, signed or not
 * ("-0" is the only negative an unsigned type takes). An unsigned 64-bit
 * value past INT64_MAX comes back as the same bits. Reasons: "not a
 * number", "out of range". */
INLAY_API int inlay_parse_int(const char *s, size_t len, int bit_width, bool is_signed, int64_t *out,
                              const char **why);

/* [+-](digits[.digits] | .digits | digits.)[(e|E)[+-]digits] as the
 * unscaled value of DECIMAL(precision, scale), big-endian two's complement
 * in out[0..width) (width 1..32: 4 and 8 give the INT32 and INT64 forms'
 * bits, other widths the FIXED_LEN_BYTE_ARRAY form). Exact: digits past the
 * scale must be zeros, unless `round`, which rounds half away from zero.
 * Reasons: "not a decimal number", "more fractional digits than the
 * scale", "too many digits" (more than precision, or than width holds).
 * INLAY_ERR_ARGUMENT for a precision below 1 or a scale outside
 * 0..precision. */
INLAY_API int inlay_parse_decimal(const char *s, size_t len, int32_t precision, int32_t scale, bool round,
                                  uint8_t *out, size_t width, const char **why);

/*======================================================================
 *  Schema
 *====================================================================*/

typedef struct inlay_schema inlay_schema;

/* How a column's values are encoded.
 *  AUTO: dictionary while it pays (it is dropped for the chunk when
 *    dictionary + indices would not be smaller than the fallback on the
 *    first page) and while it stays under options.dictionary_bytes; the
 *    fallback is DELTA_BINARY_PACKED for INT32/INT64 (including dates,
 *    times, timestamps), DELTA_LENGTH_BYTE_ARRAY for BYTE_ARRAY, PLAIN for
 *    the rest.
 *  DICTIONARY: as AUTO without the first-page check.
 *  DELTA: DELTA_BINARY_PACKED (INT32, INT64), DELTA_LENGTH_BYTE_ARRAY
 *    (BYTE_ARRAY) or DELTA_BYTE_ARRAY (FIXED_LEN_BYTE_ARRAY).
 *  DELTA_BYTE_ARRAY: front coding, for BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY.
 *  BYTE_STREAM_SPLIT: FLOAT, DOUBLE, INT32, INT64, FIXED_LEN_BYTE_ARRAY.
 *  RLE: BOOLEAN only. */
typedef enum inlay_encoding_choice {
    INLAY_ENCODING_AUTO = 0,
    INLAY_ENCODING_PLAIN = 1,
    INLAY_ENCODING_DICTIONARY = 2,
    INLAY_ENCODING_DELTA = 3,
    INLAY_ENCODING_DELTA_BYTE_ARRAY = 4,
    INLAY_ENCODING_BYTE_STREAM_SPLIT = 5,
    INLAY_ENCODING_RLE = 6,
} inlay_encoding_choice;

/* Per-column settings; NULL in inlay_schema_add means the defaults. */
typedef struct inlay_column_options {
    inlay_encoding_choice encoding;
    bool statistics;        /* default true */
    int compression;        /* an inlay_compression for this column's chunks, or -1 (the
                               default): the writer's options.compression */
    int compression_level;  /* with compression set: a level of that codec, or
                               INLAY_LEVEL_DEFAULT (the default) for the codec's own */
    /* A split-block bloom filter (XXH64, seed 0, over each value's PLAIN
     * bytes; BloomFilter.md) for every chunk of this column, written after
     * the row group's chunks. Not for BOOLEAN. */
    bool bloom_filter;      /* default false */
    uint64_t bloom_ndv;     /* distinct values to size it for; 0 (the default): the chunk's own count,
                               exact for a dictionary-encoded chunk, its non-null values otherwise */
    double bloom_fpp;       /* false-positive probability, in (0, 1); 0 (the default):
                               INLAY_DEFAULT_BLOOM_FPP */
} inlay_column_options;

INLAY_API void inlay_column_options_init(inlay_column_options *o);

/* Create an empty schema (the root group, node 0). alloc may be NULL for
 * malloc/realloc/free. Returns NULL when out of memory. */
INLAY_API inlay_schema *inlay_schema_create(const inlay_allocator *alloc);

/* Free a schema; NULL is accepted. */
INLAY_API void inlay_schema_free(inlay_schema *s);

/* Add a primitive field under the group node `parent` (0 = root). name is
 * copied. Returns the new node's id (> 0) or a negative status:
 * INLAY_ERR_SCHEMA for an empty or duplicate name, a name that is not valid
 * UTF-8 (the message shows it escaped, "\xff"), a bad parent, or a type
 * that is not valid (decimal precision out of range for its physical type,
 * a fixed width < 1, ...). inlay_schema_errmsg() says why. */
INLAY_API int inlay_schema_add(inlay_schema *s, int parent, const char *name,
                               inlay_repetition rep, inlay_type type,
                               const inlay_column_options *opts);

/* Add a group field: a struct, whose fields are added under the returned
 * id. Returns the node id or a negative status, as inlay_schema_add. */
INLAY_API int inlay_schema_add_group(inlay_schema *s, int parent, const char *name,
                                     inlay_repetition rep);

/* Lists and maps, in the standard 3-level form of the Parquet spec
 * (LogicalTypes.md); the outer group carries the LIST or MAP annotation.
 *
 *     // optional group tags (LIST) { repeated group list { optional binary element (STRING); } }
 *     int tags = inlay_schema_add_list(s, 0, "tags", INLAY_OPTIONAL);
 *     inlay_schema_add(s, tags, "element", INLAY_OPTIONAL, inlay_type_string(), NULL);
 *
 *     // required group attrs (MAP) { repeated group key_value {
 *     //     required binary key (STRING); optional group value (LIST) { ... } } }
 *     int attrs = inlay_schema_add_map(s, 0, "attrs", INLAY_REQUIRED);
 *     inlay_schema_add(s, attrs, "key", INLAY_REQUIRED, inlay_type_string(), NULL);
 *     int values = inlay_schema_add_list(s, attrs, "value", INLAY_OPTIONAL);
 *     inlay_schema_add(s, values, "element", INLAY_REQUIRED, inlay_type_int(64, true), NULL);
 *
 * Each call adds two groups, `<rep> group <name> (LIST) { repeated group
 * list { } }` or `<rep> group <name> (MAP) { repeated group key_value { } }`
 * (name is copied), and returns the id of the inner repeated group (`list`, `key_value`): the
 * parent under which the caller adds, with any of the add calls (so an
 * element or value may be a struct, list or map itself):
 *  - list: one field named "element", required or optional (whether an
 *    element may be null);
 *  - map: first a field named "key", required; then, optionally, one named
 *    "value", required or optional.
 * `rep` (the list's or map's own: may it be null) is INLAY_REQUIRED or
 * INLAY_OPTIONAL. Returns a negative status as inlay_schema_add, and also
 * INLAY_ERR_SCHEMA for a repeated list or map; adding under the returned id
 * a field of another name, repetition or count, or anything beside it under
 * the list or map group itself, fails the same way (naming the field by
 * its dotted path, "tags.list.item"), and a list or map whose fields were
 * never added is refused when a writer opens on the schema. A failed call
 * adds nothing.
 *
 * Levels count the groups on a leaf's path as for any field: each list or
 * map adds one repetition level, and definition levels for the optional
 * groups and the repeated one. For `tags` above (max definition level 3,
 * max repetition level 1), definition level 0 is a null list, 1 an empty
 * list, 2 a null element, 3 a value. The leaves are named by their dotted
 * paths ("tags.list.element", "attrs.key_value.value.list.element"). */
INLAY_API int inlay_schema_add_list(inlay_schema *s, int parent, const char *name,
                                    inlay_repetition rep);
INLAY_API int inlay_schema_add_map(inlay_schema *s, int parent, const char *name,
                                   inlay_repetition rep);

/* The message of the last failed schema call; owned by the schema. */
INLAY_API const char *inlay_schema_errmsg(const inlay_schema *s);

/* Number of leaf columns. Leaves are numbered 0.. in schema (depth-first)
 * order; these numbers are the `column` arguments of the append calls. */
INLAY_API int inlay_schema_num_columns(const inlay_schema *s);

/* Print the schema as a Parquet message type ("message schema { ... }")
 * into buf (always NUL-terminated when cap > 0). Returns the length the
 * full text needs, like snprintf. */
INLAY_API size_t inlay_schema_format(const inlay_schema *s, char *buf, size_t cap);

/*======================================================================
 *  Sinks
 *====================================================================*/

/* Where the bytes of a file go. inlay calls write() with the file's bytes
 * in order, then finish() once after the last byte of a successful close,
 * or abort() instead when the file will not be completed. Each returns 0
 * on success or non-zero on failure (abort's result is ignored). The
 * writer never calls a sink again after finish or abort.
 *
 * A write() or finish() that fails may leave errno set to say why (ENOSPC,
 * EPIPE, ...): the writer clears errno before each call and, when it is set
 * after a failure, adds strerror(errno) to its message ("writing to the
 * sink failed: No space left on device"). A sink that fails for a reason of
 * its own leaves errno at 0. */
typedef struct inlay_sink {
    int (*write)(void *ctx, const void *data, size_t len);
    int (*finish)(void *ctx);
    void (*abort)(void *ctx);
    void *ctx;
} inlay_sink;

/* A growable memory buffer usable as a sink. Its bytes are allocated with
 * the allocator given to inlay_buffer_init (NULL = malloc). */
typedef struct inlay_buffer {
    uint8_t *data;
    size_t len;
    size_t cap;
    inlay_allocator alloc;
} inlay_buffer;

INLAY_API void inlay_buffer_init(inlay_buffer *b, const inlay_allocator *alloc);
INLAY_API void inlay_buffer_free(inlay_buffer *b);              /* NULL accepted */
INLAY_API inlay_sink inlay_buffer_sink(inlay_buffer *b);

/*======================================================================
 *  Writer options
 *====================================================================*/

/* Codecs, numbered as the format's CompressionCodec. A column chunk
 * carries its own codec, so columns may differ (inlay_column_options). */
typedef enum inlay_compression {
    INLAY_UNCOMPRESSED = 0,
    INLAY_SNAPPY = 1,
    INLAY_GZIP = 2,          /* a gzip member (RFC 1952), as the format requires */
    INLAY_BROTLI = 4,
    INLAY_ZSTD = 6,
    INLAY_LZ4_RAW = 7,       /* the LZ4 block format; the deprecated Hadoop-framed LZ4 (5) is not written */
} inlay_compression;

/* A level meaning "the codec's own default" (see inlay_compression_levels). */
#define INLAY_LEVEL_DEFAULT INT32_MIN

/* The codec's name as the format spells it ("ZSTD", "LZ4_RAW"), or NULL
 * for a number outside inlay_compression. Thread-safe. */
INLAY_API const char *inlay_compression_name(inlay_compression c);
/* The codec called `name`, case-insensitive: "uncompressed" (also
 * "none"), "snappy", "gzip", "brotli", "zstd", "lz4_raw" (also "lz4").
 * Returns false for any other name. */
INLAY_API bool inlay_compression_parse(const char *name, inlay_compression *out);
/* Whether this build writes (and reads) codec c: some codecs may be left
 * out when the library is built (INLAY_WITH_SNAPPY=OFF and the like). */
INLAY_API bool inlay_compression_supported(inlay_compression c);
/* The levels codec c takes, lo..hi, and the one INLAY_LEVEL_DEFAULT picks:
 *   ZSTD   -131072..22, default 3 (negative levels trade ratio for speed)
 *   GZIP   1..9, default 6
 *   BROTLI 0..11, default INLAY_DEFAULT_BROTLI_LEVEL
 *   LZ4_RAW -65537..12, default 1: below 3 the fast compressor with an
 *          acceleration of max(1, -level), 3..12 the high-compression one
 * Returns false for a codec without levels (UNCOMPRESSED, SNAPPY: only
 * INLAY_LEVEL_DEFAULT is valid) or not in inlay_compression. */
INLAY_API bool inlay_compression_levels(inlay_compression c, int *lo, int *hi, int *dflt);

/* Defaults, in one place. */
#define INLAY_DEFAULT_PAGE_BYTES        (1u << 20)
#define INLAY_DEFAULT_PAGE_ROWS         20000u
#define INLAY_DEFAULT_ROW_GROUP_ROWS    1048576u
#define INLAY_DEFAULT_ROW_GROUP_BYTES   (128u << 20)
#define INLAY_DEFAULT_DICTIONARY_BYTES  (1u << 20)
#define INLAY_DEFAULT_COMPRESSION       INLAY_ZSTD
#define INLAY_DEFAULT_ZSTD_LEVEL        3
#define INLAY_DEFAULT_GZIP_LEVEL        6
#define INLAY_DEFAULT_BROTLI_LEVEL      5
#define INLAY_DEFAULT_LZ4_LEVEL         1
#define INLAY_DEFAULT_MIN_GAIN          0.03
#define INLAY_DEFAULT_PAGE_VERSION      1
#define INLAY_DEFAULT_SYNC              true
#define INLAY_MAX_DEFAULT_THREADS       8
#define INLAY_DEFAULT_ROW_GROUPS_IN_FLIGHT 2
#define INLAY_DEFAULT_TRUNCATE_LENGTH   64
#define INLAY_DEFAULT_BLOOM_FPP         0.01
#define INLAY_BLOOM_MAX_BYTES           (128u << 20)

typedef struct inlay_kv {
    const char *key;
    const char *value;
} inlay_kv;

/* A sort order the rows are in, declared in every row group's
 * sorting_columns. */
typedef struct inlay_sorting_column {
    const char *column;     /* a leaf's dotted path ("id", "a.b"); not inside a list or map */
    bool descending;
    bool nulls_first;
} inlay_sorting_column;

typedef struct inlay_options {
    unsigned struct_size;          /* set by inlay_options_init; guards the layout */
    inlay_allocator alloc;         /* fn NULL = malloc/realloc/free */
    inlay_compression compression; /* the default of every column (inlay_column_options overrides) */
    int compression_level;         /* a level of that codec; INLAY_LEVEL_DEFAULT (the default): its own */
    double min_compression_gain;   /* a v1 column chunk whose first data page its codec shrinks by less
                                      than this fraction is stored UNCOMPRESSED (its footer says so), and
                                      so is a v2 page (is_compressed = false); 0 compresses everything.
                                      Depends on the data only: the output stays deterministic. */
    size_t page_bytes;             /* a page ends at page_bytes or page_rows */
    size_t page_rows;
    size_t row_group_rows;         /* a row group ends at whichever comes first */
    size_t row_group_bytes;
    size_t dictionary_bytes;       /* past this, a chunk falls back (see inlay_encoding_choice) */
    int page_version;              /* data pages: 1 (default) or 2 (levels uncompressed) */
    const inlay_kv *metadata;      /* key-value metadata; copied at open */
    size_t metadata_count;
    bool sync;                     /* a successful close of a file is durable (see inlay_writer_open_file);
                                      false leaves syncing to the host */
    /* What readers skip by. Statistics (min, max, null count, in the column's sort order) go in
     * every data page header and every chunk's metadata unless a column turns them off
     * (inlay_column_options.statistics); so do size statistics (byte-array bytes, level
     * histograms). */
    bool statistics;               /* default true; false turns statistics off for every column */
    bool page_index;               /* default true: a ColumnIndex (per-page min/max/null counts, for
                                      columns with statistics) and an OffsetIndex (page locations)
                                      per chunk, written after the row groups */
    size_t statistics_truncate_length;  /* byte-array min/max longer than this are cut to it (the max
                                      rounded up so it still bounds every value; a UTF-8 string at a
                                      character boundary) and flagged inexact; default
                                      INLAY_DEFAULT_TRUNCATE_LENGTH, 0 = never */
    bool page_checksum;            /* default false: a CRC32 of each page's stored bytes in its header */
    const inlay_sorting_column *sorting_columns;   /* the order rows are appended in, first key first;
                                      copied at open. Checked as rows arrive: a row out of order is
                                      INLAY_ERR_VALUE naming it, and the append is refused whole. */
    size_t sorting_columns_count;
    /* Threads. The calling thread checks and buffers values and cuts pages where it would alone;
     * threads - 1 workers finish them (statistics, encoding, compression), columns in parallel,
     * while it goes on with the next rows. A column's pages may be finished side by side but go
     * into its chunk in the order they were cut, so the output does not depend on the thread
     * count or the timing. */
    int threads;                   /* 0 (default): the online CPUs, at most INLAY_MAX_DEFAULT_THREADS;
                                      1: everything on the calling thread; at most 64 */
    int row_groups_in_flight;      /* ended row groups not yet written (their pages still being
                                      finished) before an append waits for the oldest; 0 = default
                                      INLAY_DEFAULT_ROW_GROUPS_IN_FLIGHT. Buffered memory stays about
                                      (row_groups_in_flight + 1) row groups */
    bool serialize_alloc;          /* the allocator is not thread-safe: the library calls it under a
                                      lock of its own (from its workers as well) */
} inlay_options;

/* Fill o with the defaults above. */
INLAY_API void inlay_options_init(inlay_options *o);

/*======================================================================
 *  Writer
 *====================================================================*/

typedef struct inlay_writer inlay_writer;

/* Open a writer on a sink. The schema is copied; the caller keeps it.
 * opts may be NULL for the defaults. On success *out is a new writer and
 * INLAY_OK is returned. On failure *out is still set when a writer could be
 * allocated (so inlay_writer_errmsg() can say why; free it), else NULL. */
INLAY_API int inlay_writer_open(inlay_writer **out, inlay_sink sink,
                                const inlay_schema *schema, const inlay_options *opts);

/* Open a writer on a file. Bytes go to a temporary file beside `path`
 * (".name.XXXXXX.tmp" for path dir/name: hidden, so that readers listing
 * the folder skip it; a name too long for that keeps at most its first
 * 243 bytes in it), renamed to `path` only when close succeeds; abort or
 * free without close removes it. An existing regular file at `path` is
 * replaced atomically by that rename (a reader sees the old file or the new
 * one, never a mix); a symlink at `path` is itself replaced, and the file
 * it pointed to is left alone, as most tools that save atomically do.
 *
 * Refused at open (INLAY_ERR_IO, nothing created): a `path` that exists and
 * is not a regular file, symlinks followed ("'out' is a directory",
 * "'/dev/stdout' is not a regular file (a character device)"); use
 * inlay_writer_open_fd for devices and pipes. A folder that is missing or
 * not writable fails the same way, with the system's reason.
 *
 * Durability: with opts->sync (the default), close fsyncs the file before
 * the rename and the folder after it, as SQLite commits, so a successful
 * close means the file survives a crash or power loss. Should only the
 * folder's sync fail, close fails with a message saying the file is in
 * place but may not survive a crash.
 *
 * Stale temporaries: the writer holds an flock() on its temporary while it
 * writes. A successful open removes the temporaries of the same `path` that
 * no process holds a lock on (writers killed before their close); a live
 * writer's temporary is never touched. Listing the folder costs one pass
 * over it per open. */
INLAY_API int inlay_writer_open_file(inlay_writer **out, const char *path,
                                     const inlay_schema *schema, const inlay_options *opts);

/* Open a writer on a file descriptor: the Parquet stream is written to `fd`
 * front to back (no seek, no temporary, no rename), for pipes, sockets,
 * standard output, or a file the host manages. The caller keeps `fd`: the
 * writer never closes it, and it must stay open until the writer is closed,
 * aborted or freed. A non-blocking `fd` is waited on. With opts->sync, close
 * fsyncs `fd` when it is a regular file.
 *
 * A pipe whose reader is gone fails the write with EPIPE ("writing the
 * stream: Broken pipe"); SIGPIPE is blocked in the calling thread during
 * the write, so it does not end the process. A failure, an abort or a free
 * without close ends the stream without a footer: a reader finds no
 * trailing "PAR1" (should the bytes written end in those four anyway, abort
 * writes one more byte) and does not take a partial stream for a file. A
 * consumer must still check the producer's status.
 *
 * fd < 0 is INLAY_ERR_ARGUMENT; a closed descriptor or one not open for
 * writing is INLAY_ERR_IO. Errors as for inlay_writer_open. */
INLAY_API int inlay_writer_open_fd(inlay_writer **out, int fd, const inlay_schema *schema,
                                   const inlay_options *opts);

/* The temporary file a writer opened with inlay_writer_open_file is
 * writing ("dir/.name.XXXXXX.tmp"), while it exists; NULL for other sinks, for a
 * NULL writer, and once the writer is closed or aborted. Owned by the
 * writer, valid until the temporary goes. A host's signal handler may
 * unlink() it before _exit(), so that an interrupted program leaves no
 * temporary behind: copy it when the writer opens (a handler must not read
 * memory the interrupted code may be freeing), with the handler's signals
 * blocked from before inlay_writer_open_file until the copy is made (the
 * file exists before the open returns), and drop the copy only once close
 * or free has returned (the name is then gone, and unlinking it finds
 * nothing). */
INLAY_API const char *inlay_writer_temp_path(const inlay_writer *w);

/* The leaf column whose dotted path ("a.b.c") or top-level name is `name`,
 * or INLAY_ERR_COLUMN. */
INLAY_API int inlay_writer_column(const inlay_writer *w, const char *name);

/* The writer's own copy of its schema (finalized: inlay_schema_column and
 * inlay_schema_format work on it); owned by the writer, valid until it is
 * freed. NULL for a NULL writer. */
INLAY_API const inlay_schema *inlay_writer_schema(const inlay_writer *w);

/* Levels for a batch. NULL levels means every value is present and, for a
 * flat column, one value per row.
 *  - def: count definition levels; values holds one entry per level equal
 *    to the column's maximum definition level (dense: nulls take no slot).
 *  - rep: count repetition levels (nested columns; NULL for flat ones). A
 *    batch starts at a row boundary: rep[0] must be 0.
 *  - validity: for flat optional columns, an alternative to def: bit i
 *    (LSB first, as in Arrow) set when row i is present; values then holds
 *    count entries (spaced: the slots of nulls are ignored).
 */
typedef struct inlay_levels {
    const int16_t *def;
    const int16_t *rep;
    const uint8_t *validity;
} inlay_levels;

/* A byte string for BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY columns. The bytes
 * are copied during the call; data may be NULL when len is 0. */
typedef struct inlay_bytes {
    const void *data;
    size_t len;
} inlay_bytes;

/* Append `count` entries to leaf `column`. The function must match the
 * column's physical type (INLAY_ERR_TYPE otherwise): bool for BOOLEAN,
 * i32 for INT32 (including DATE, TIME(ms), INT(8/16/32), DECIMAL on INT32;
 * unsigned columns take the same bits), i64 for INT64, float, double, and
 * bytes for BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY.
 *
 * The whole batch is checked before anything is written: a value out of
 * range for its logical type (INLAY_ERR_VALUE), a null in a required column
 * (INLAY_ERR_NULL), a level above the maximum (INLAY_ERR_LEVEL), a fixed
 * value of the wrong length, invalid UTF-8 in a STRING/JSON/ENUM column.
 * On error nothing is appended and the message names the column and row.
 * Values are copied; the caller keeps its arrays. */
INLAY_API int inlay_writer_append_bool(inlay_writer *w, int column, const bool *values,
                                       size_t count, const inlay_levels *levels);
INLAY_API int inlay_writer_append_i32(inlay_writer *w, int column, const int32_t *values,
                                      size_t count, const inlay_levels *levels);
INLAY_API int inlay_writer_append_i64(inlay_writer *w, int column, const int64_t *values,
                                      size_t count, const inlay_levels *levels);
INLAY_API int inlay_writer_append_float(inlay_writer *w, int column, const float *values,
                                        size_t count, const inlay_levels *levels);
INLAY_API int inlay_writer_append_double(inlay_writer *w, int column, const double *values,
                                         size_t count, const inlay_levels *levels);
INLAY_API int inlay_writer_append_bytes(inlay_writer *w, int column, const inlay_bytes *values,
                                        size_t count, const inlay_levels *levels);

/* Units of time values handed to inlay_writer_append_time. */
typedef enum inlay_unit {
    INLAY_UNIT_DAYS = 0,
    INLAY_UNIT_SECONDS = 1,
    INLAY_UNIT_MILLIS = 2,
    INLAY_UNIT_MICROS = 3,
    INLAY_UNIT_NANOS = 4,
} inlay_unit;

/* Append to a DATE, TIME or TIMESTAMP column values given in `unit`,
 * converted to the column's own unit in one pass over the array (coarser
 * to finer multiplies; finer to coarser rounds toward negative infinity, so
 * a timestamp in seconds becomes the DATE of its day). A value that does
 * not fit the column after conversion is INLAY_ERR_VALUE, naming the row.
 * Levels as for the other append calls. */
INLAY_API int inlay_writer_append_time(inlay_writer *w, int column, const int64_t *values, size_t count,
                                       inlay_unit unit, const inlay_levels *levels);

/* The IEEE 754 half (binary16) nearest to x, ties to even, as a FLOAT16
 * column stores it (bits, little-endian in the file); magnitudes from 65520
 * on become infinity, NaN stays NaN, the sign of zero is kept. */
INLAY_API uint16_t inlay_float16_bits(double x);

/* The 16 bytes of a UUID in its 36-character text form
 * (8-4-4-4-12 hex digits, either case). Returns false when s is not one. */
INLAY_API bool inlay_uuid_parse(const char *s, size_t len, uint8_t out[16]);

/* Converts n time values from one unit to another exactly as
 * inlay_writer_append_time does, for hosts that stage a batch before
 * appending it (inlay_writer_append_columns). dst receives int64_t values,
 * or int32_t ones when `narrow` (DATE, TIME(ms)); dst may be src when not
 * narrow. Returns n when every value fits, else the index of the first one
 * that does not (dst is then partly written); SIZE_MAX for a unit outside
 * inlay_unit. Allocates nothing; thread-safe. */
INLAY_API size_t inlay_time_convert(void *dst, bool narrow, const int64_t *src, size_t n, inlay_unit from,
                                    inlay_unit to);

/* One column's part of an inlay_writer_append_columns call. values is typed
 * as for the column's append function (bool, int32_t, int64_t, float,
 * double or inlay_bytes). */
typedef struct inlay_column_batch {
    int column;
    const void *values;
    size_t count;
    inlay_levels levels;     /* all NULL: every value present */
} inlay_column_batch;

/* Append to several columns at once, all or nothing: every batch is checked
 * before any is buffered, so a bad value in one column rejects the whole
 * call (the message names its column and row). A column may appear once.
 * The batches need not hold the same number of rows; close requires equal
 * totals. */
INLAY_API int inlay_writer_append_columns(inlay_writer *w, const inlay_column_batch *batches, int n);

/* Nested values in Arrow's layout, for inlay_writer_append_array. One
 * inlay_array per schema node below the field, except the repeated middle
 * group of a LIST or MAP, whose entries are the outer array's:
 *  - primitive: `values`, one slot per entry (nulls have slots, ignored),
 *    typed as the leaf's append function takes them; `validity` (bit i set
 *    = entry i present, LSB first; NULL = all present);
 *  - struct (a plain group): `validity` and `children`, one per field;
 *  - LIST / MAP: `validity`, `offsets` (length + 1 entries: entry i is
 *    children entries offsets[i] .. offsets[i+1]) and `children`: the
 *    element, or the keys and the values;
 *  - a bare repeated group or primitive (no LIST/MAP annotation, as in the
 *    Dremel paper): `offsets` and one child per field of the group, or the
 *    values as children[0].
 * An empty list is offsets[i] == offsets[i+1]; a null list is a clear
 * validity bit. A host holding Arrow buffers points these at them as they
 * are. */
typedef struct inlay_array {
    size_t length;
    const uint8_t *validity;
    const int32_t *offsets;
    const void *values;
    const struct inlay_array *children;
} inlay_array;

/* Append `rows` rows of the top-level field number `field` (0-based, in
 * schema order: for a flat schema the column number) from the array `a`,
 * computing every leaf's definition and repetition levels in one pass per
 * leaf. All of the field's leaf columns are appended together, or none:
 * an array that does not follow the schema (missing children, offsets out
 * of order or past the child) is INLAY_ERR_ARGUMENT, a null where the
 * schema is required or a null map key INLAY_ERR_NULL, each with a message
 * naming the leaf's path and the row, counted as the other appends count
 * them ("field 'hits.list.element.x' row 3: ..."; inlay_writer_error_info
 * gives the leaf column and the row). The field's other appends (inlay_writer_append_columns with
 * explicit levels) may be mixed with these. Values are copied. */
INLAY_API int inlay_writer_append_array(inlay_writer *w, int field, const inlay_array *a, size_t rows);

/* Shredding: nested values in Arrow's layout as level batches, what
 * inlay_writer_append_array does inside, for a host that appends column
 * batches itself -- a dataset (inlay_dataset_append_columns), which takes
 * a nested field only as level batches, all fields of the rows in one call:
 *
 *     inlay_shredder *sh;
 *     inlay_shredder_create(&sh, schema, NULL);
 *     inlay_column_batch b[64];                       // flat batches first
 *     int n = nflat, got;
 *     inlay_shredder_shred(sh, tags_field, &tags, rows, b + n, 64 - n, &got);
 *     n += got;
 *     inlay_dataset_append_columns(d, b, n);
 *
 * A shredder is not thread-safe; separate shredders are independent. */
typedef struct inlay_shredder inlay_shredder;

/* A shredder for `schema` (copied: it may be freed after). alloc: NULL for
 * malloc. INLAY_OK, INLAY_ERR_NOMEM, or the schema's own error (a schema
 * a writer would refuse); *out is set whenever it could be allocated, so
 * that inlay_shredder_errmsg can say why (free it either way). */
INLAY_API int inlay_shredder_create(inlay_shredder **out, const inlay_schema *schema,
                                    const inlay_allocator *alloc);

/* Rows 0 .. rows-1 of top-level field `field` (0-based, in schema order)
 * from the array `a` (as inlay_writer_append_array takes it) into one
 * batch per leaf column of the field, in column order, in out[0 .. *n):
 * the leaf's column number, its definition and repetition levels and its
 * values, dense. They point into the shredder and stay valid until its
 * next call for the same field (one that fails too) or its free; other
 * fields' batches are not touched. BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY
 * values point into the host's bytes. cap: the room in out
 * (inlay_schema_num_columns() is always enough; too little is refused
 * before anything is touched). Errors (*n is then 0), with
 * inlay_shredder_errmsg naming the leaf and the row within the call
 * ("field 'tags.list.element' row 3: ..."): INLAY_ERR_ARGUMENT (an array
 * that does not follow the schema, or cap too small), INLAY_ERR_NULL (a
 * null where the schema is required, a null map key), INLAY_ERR_COLUMN (no
 * such field), INLAY_ERR_NOMEM, INLAY_ERR_STATE (a shredder whose create
 * failed). Values themselves are checked by the append that takes the
 * batches. */
INLAY_API int inlay_shredder_shred(inlay_shredder *sh, int field, const inlay_array *a, size_t rows,
                                   inlay_column_batch *out, int cap, int *n);

/* The message of the last failed call; owned by the shredder. */
INLAY_API const char *inlay_shredder_errmsg(const inlay_shredder *sh);

INLAY_API void inlay_shredder_free(inlay_shredder *sh);

/* End the current row group now, on the host's schedule (once per N
 * seconds of game time, say) rather than at the size limits: the rows
 * buffered so far are encoded, compressed and written (the workers' pages
 * waited for), and the next append
 * starts a new row group. Every column must hold the same number of rows
 * (INLAY_ERR_STATE otherwise, naming the columns; nothing changes). No rows
 * buffered: nothing happens. Errors of the sink or the allocator are sticky
 * as for the appends. */
INLAY_API int inlay_writer_flush_row_group(inlay_writer *w);

/* What a writer holds and has written, for a host deciding when to flush. */
typedef struct inlay_writer_stats {
    uint64_t rows;             /* rows complete in every column, written or buffered */
    uint64_t row_groups;       /* row groups written (a file or descriptor writer's workers may still
                                  be giving the last one's bytes to the sink) */
    uint64_t bytes_written;    /* bytes given to the sink (that last row group's once it is known
                                  written) */
    uint64_t rows_buffered;    /* rows of the current row group, not written yet */
    uint64_t bytes_buffered;   /* about what the current row group holds in memory (encoded pages and the page
                                  being filled) */
} inlay_writer_stats;

/* Fills *st; a NULL writer gives zeros. */
INLAY_API void inlay_writer_get_stats(const inlay_writer *w, inlay_writer_stats *st);

/* What one leaf column has written so far (row groups written, not the one
 * being buffered). */
typedef struct inlay_column_stats {
    inlay_compression compression;  /* the column's codec */
    int compression_level;          /* the level it compresses at (0 for codecs without levels) */
    uint64_t uncompressed_bytes;    /* its pages as they would be uncompressed, headers included */
    uint64_t compressed_bytes;      /* as written */
    uint64_t chunks;                /* column chunks written */
    uint64_t chunks_uncompressed;   /* of those, stored UNCOMPRESSED because the codec did not pay */
    uint64_t bloom_filter_bytes;    /* its bloom filters, headers included */
    uint64_t column_index_bytes;    /* its ColumnIndex structs (written at close) */
    uint64_t offset_index_bytes;    /* its OffsetIndex structs (written at close) */
} inlay_column_stats;

/* Fills *st for leaf `column`. INLAY_ERR_COLUMN when there is no such
 * column, INLAY_ERR_ARGUMENT for NULLs. */
INLAY_API int inlay_writer_column_stats(const inlay_writer *w, int column, inlay_column_stats *st);

/* Finish the file: flush the last row group, write the footer and finish the
 * sink (for a file: sync it, rename it into place, sync its folder). Every
 * column must have the same number of rows (INLAY_ERR_STATE otherwise, and
 * the writer stays open). A failure of the sink is INLAY_ERR_IO with the
 * system's reason in the message ("writing 'out.parquet': No space left on
 * device"); the file is then not published (its temporary is removed).
 * After a successful close only the info calls and free are valid. */
INLAY_API int inlay_writer_close(inlay_writer *w);

/* Give up the file: nothing (more) is published; a file sink removes its
 * temporary file. Idempotent. */
INLAY_API void inlay_writer_abort(inlay_writer *w);

/* Free the writer (aborting it first unless it was closed). NULL accepted. */
INLAY_API void inlay_writer_free(inlay_writer *w);

/* The message of the last failure, or "" if none. Owned by the writer. */
INLAY_API const char *inlay_writer_errmsg(const inlay_writer *w);
/* The status of the last failure (INLAY_ERR_IO: the sink failed, ...), or
 * INLAY_OK if none; INLAY_ERR_ARGUMENT for NULL. For a host that treats
 * kinds of failure differently (the inlay command's exit status). */
INLAY_API int inlay_writer_status(const inlay_writer *w);

/* The last failure in parts, for hosts that report errors their own way
 * (the Lua binding counts rows per call): the leaf column and its row
 * (0-based, counting every row appended to that column) when a value or
 * level was at fault, else -1; and the reason without the
 * "column 'x' row N: " prefix. Strings are owned by the writer and valid
 * until its next call. */
typedef struct inlay_error_info {
    int column;
    int64_t row;
    const char *reason;
} inlay_error_info;

INLAY_API void inlay_writer_error_info(const inlay_writer *w, inlay_error_info *info);

/* Totals so far: rows completed in every column, row groups written, bytes
 * given to the sink (the file size after a successful close). */
INLAY_API uint64_t inlay_writer_rows(const inlay_writer *w);
INLAY_API uint64_t inlay_writer_row_groups(const inlay_writer *w);
INLAY_API uint64_t inlay_writer_bytes(const inlay_writer *w);

/*======================================================================
 *  The Arrow C data interface
 *
 *  Hosts that hold Arrow data (DuckDB, Polars, nanoarrow, Arrow C++ and
 *  every tool built on them) hand a record batch over as it is, through
 *  the ABI of the Arrow specification ("The Arrow C data interface"):
 *
 *     struct ArrowSchema sch;  struct ArrowArray arr;       // from the host's library
 *     inlay_schema *s;
 *     inlay_schema_from_arrow(&s, &sch, NULL, err, sizeof err);
 *     inlay_writer_open_file(&w, "out.parquet", s, NULL);
 *     inlay_writer_append_arrow(w, &arr, &sch);            // once per batch
 *
 *  The structs are declared under the specification's guard, so this
 *  header coexists with nanoarrow's or Arrow's own declaration of them.
 *  inlay only reads them during a call: it never calls a release callback,
 *  and nothing of them is read after the call returns, so the host may
 *  release them then.
 *
 *  Formats and the Parquet types they become:
 *    b boolean;  c s i l  INT(8/16/32/64, signed);  C S I L  unsigned;
 *    e FLOAT16;  f float;  g double;
 *    u U vu  STRING;  z Z vz  binary;  w:N  fixed(N);
 *    d:P,S  d:P,S,128  d:P,S,256  DECIMAL(P,S) (INT32 to precision 9,
 *      INT64 to 18, else the narrowest FIXED_LEN_BYTE_ARRAY); also the
 *      32- and 64-bit d:P,S,32 d:P,S,64; a scale from 0 to P (Parquet has
 *      no negative scale), P up to 76;
 *    tdD tdm  DATE (milliseconds become the day they fall in);
 *    tts ttm  TIME(ms);  ttu TIME(us);  ttn TIME(ns): not adjusted to UTC
 *      (a time of day carries no zone; seconds become ms);
 *    tss tsm  TIMESTAMP(ms), tsu (us), tsn (ns): with a time zone after the
 *      colon adjusted to UTC, without one not (seconds become ms);
 *    +s  a struct (group);  +l +L  LIST (its element named "element");
 *    +m  MAP (the key required, as Parquet has it);
 *    a dictionary-encoded column (indices of any integer format): the type
 *      of its dictionary's values, which may not be nested;
 *    the extension types arrow.uuid (on w:16) and arrow.json (on u U vu)
 *      become UUID and JSON; any other extension is its storage type.
 *  A field is optional when ARROW_FLAG_NULLABLE is set on it. Not supported
 *  (INLAY_ERR_SCHEMA): n (null), tD* durations, ti* intervals, +w:N
 *  fixed-size lists, +ud +us unions, +r run-end encoded, +vl +vL list views.
 *====================================================================*/

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
    /* Array type description */
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;

    /* Release callback */
    void (*release)(struct ArrowSchema *);
    /* Opaque producer-specific data */
    void *private_data;
};

struct ArrowArray {
    /* Array data description */
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;

    /* Release callback */
    void (*release)(struct ArrowArray *);
    /* Opaque producer-specific data */
    void *private_data;
};

#endif /* ARROW_C_DATA_INTERFACE */

/* The schema of a record batch: `schema` is a struct ("+s") whose children
 * are the top-level fields, in order, named by their `name`. alloc may be
 * NULL (malloc). Returns INLAY_OK with *out a new schema (the caller frees
 * it with inlay_schema_free); INLAY_ERR_SCHEMA naming the field and its
 * format when inlay has no type for it ("field 'd': Arrow format \"tDs\"
 * (duration) is not supported"); INLAY_ERR_ARGUMENT for a NULL or
 * malformed schema (a missing format or name, children that do not match
 * n_children); INLAY_ERR_NOMEM. The message goes to err (errcap bytes; err
 * may be NULL). *out is NULL on failure. */
INLAY_API int inlay_schema_from_arrow(inlay_schema **out, const struct ArrowSchema *schema,
                                      const inlay_allocator *alloc, char *err, size_t errcap);

/* Append a record batch: `array` is a struct array described by `schema`
 * (a "+s" as inlay_schema_from_arrow takes it), whose children are the
 * writer's top-level fields in order: the same number, the same names, and
 * types that map onto the columns': the type inlay_schema_from_arrow gives
 * the field, or one with the same storage (an Arrow time or timestamp in
 * another unit is converted, finer to coarser rounding toward negative
 * infinity; strings and binaries of any form go into any BYTE_ARRAY column
 * but a DECIMAL one, w:N into a FIXED_LEN_BYTE_ARRAY(N), a decimal into any
 * DECIMAL column of its precision and scale; a nullable field into a
 * required column as long as it holds no null). A large, view or
 * dictionary-encoded variant is read as it is, and so are buffers whose
 * layout is the column's (int32, int64, float, double, times in the
 * column's unit: no copy is made of them). array->length rows are
 * appended, after array->offset (which, as for any struct, applies to the
 * children too); the struct itself must have no null row (no validity
 * buffer, null_count 0, or every bit of the rows set).
 * All of it or nothing: every column is checked before any is buffered.
 * Returns INLAY_OK; INLAY_ERR_SCHEMA when the batch does not match the
 * writer's schema (naming the field); INLAY_ERR_ARGUMENT for a malformed
 * array (n_buffers or n_children wrong for the format, a NULL buffer or
 * child where one is needed, offsets out of order or past their data, a
 * dictionary index past the dictionary), naming the field; INLAY_ERR_NULL,
 * INLAY_ERR_VALUE as the other appends; the sticky errors of the
 * environment (INLAY_ERR_NOMEM). A problem with the arrays' shape is
 * reported as "field 'a.b': ..." by Arrow names; a value of a top-level
 * column as the other appends report it, "column 'x' row N: ..."; a null
 * where a nested field's schema has none as "field 'a.list.element' row
 * N: ..." with N counted the same way; a nested value that cannot be
 * converted as "field 'a.b' entry N: ..." by its index in its Arrow array. The
 * interface gives no size for a string or binary array's data, so those
 * offsets can only be checked for order; list and map offsets are checked
 * against their child's length, views against their buffers' sizes.
 * Values are copied during the call. */
INLAY_API int inlay_writer_append_arrow(inlay_writer *w, const struct ArrowArray *array,
                                        const struct ArrowSchema *schema);

/*======================================================================
 *  Datasets: one table written as many files under a folder
 *
 *     inlay_dataset_options o;
 *     inlay_dataset_options_init(&o);
 *     const char *by[] = { "day", "platform" };
 *     o.partition_by = by;
 *     o.partition_by_count = 2;
 *     inlay_dataset *d;
 *     if (inlay_dataset_open(&d, "out", schema, &o) != INLAY_OK) ...
 *     inlay_dataset_append_columns(d, batches, n);     // once per batch
 *     inlay_dataset_close(d);
 *     inlay_dataset_free(d);
 *
 * Rows go to Parquet files under `root`, in Hive-style folders named by the
 * values of the partition columns (root/day=2024-06-01/platform=pc/), as
 * Spark, Trino, Arrow datasets and DuckDB (hive_partitioning) read them.
 * A batch is split in one pass: each row's partition is found through
 * memo tables of the partition columns' values, and each partition's rows
 * are gathered into its waiting rows. A partition's waiting rows go on to
 * its file (opened then) once they make a page (file.page_rows), or fill
 * the file to max_file_rows, or when memory is short (below), and at
 * close: so pages are whole, and the files open at a time write in turn,
 * each in one burst, however the partitions interleave in the input.
 *
 * Files are named part-<shard>-<seq>.parquet, seq counting the shard's
 * files from 000000 (at least six digits), so jobs given distinct shards
 * write into one root at the same time without meeting. Each file is
 * written and published as inlay_writer_open_file does (a hidden temporary
 * ".<name>.XXXXXX.tmp" renamed into place by its close, durable with
 * file.sync), so a reader, or what a killed job leaves, only ever holds
 * complete files under a .parquet name; opening the shard again removes
 * the temporaries a killed run of it left (those no process holds the
 * lock of). A file is closed and published
 * when it reaches max_file_rows or max_file_bytes, when it is the least
 * recently used of max_open_files open ones and another partition needs a
 * file, and at inlay_dataset_close. A successful close then writes
 * root/_inlay_manifest.<shard>.json (the shard's files: path under root,
 * partition values, rows, bytes) and an empty root/_SUCCESS; a failed,
 * aborted or killed job writes neither.
 *
 * Folder names are "column=value", the value rendered as Hive renders it
 * (integers in decimal, dates YYYY-MM-DD, booleans true/false, text as its
 * bytes) and escaped as Hive's escapePathName escapes it: control
 * characters, DEL and " # % ' * / : = ? \ { [ ] ^ as %XX (upper-case hex),
 * every byte of a value that is not valid UTF-8 as well; readers decode
 * them. A null is __HIVE_DEFAULT_PARTITION__ (the text values
 * "__HIVE_DEFAULT_PARTITION__", and "null" in any case, get their first
 * character escaped, so that they do not read back as null); "." and ".."
 * are escaped whole; the empty string is "column=". Nothing in a value is
 * ever interpreted as a path: no file is written outside `root`. A folder
 * name would pass 255 bytes (a value over about 240 bytes): it keeps the
 * longest prefix that fits, then "~" and 16 hex digits of the value's
 * XXH3-64, so distinct values stay apart; a reader then gets that
 * shortened form from the folder name, so the files of such a partition
 * hold the partition columns themselves whatever keep_partition_columns
 * says (a reader that ignores folder names, DuckDB with
 * hive_partitioning = false, reads the whole value).
 *
 * Partition columns are top-level fields, not repeated, of a type with a
 * folder form: BOOLEAN, INT32 and INT64 integers (signed or unsigned) and
 * DATE, and BYTE_ARRAY (STRING, ENUM, JSON, binary). Any other is
 * INLAY_ERR_SCHEMA at open, naming the column. Nested fields may be
 * written (their rows are gathered by their repetition levels) but not
 * partitioned by.
 *
 * Memory: the partitions' waiting rows and the pages the open files have
 * not written yet (each file's row group) are counted together; past
 * max_buffered_bytes, the largest holders give back until half of it is
 * held: a partition's waiting rows go to its file and their room is freed,
 * an open file ends its row group (written). A file between bursts keeps
 * only its page being filled and the dictionaries its open chunks use (its
 * compressor's context and scratch are given back and made again by its
 * next burst). So memory stays about max_buffered_bytes, plus a few KiB
 * per open file and column, whatever the number of partitions.
 *====================================================================*/

typedef struct inlay_dataset inlay_dataset;

/* What open does when the root already holds files of the same shard
 * (part-<shard>-*.parquet anywhere under it, or its manifest). */
typedef enum inlay_existing {
    INLAY_EXISTING_ERROR = 0,       /* INLAY_ERR_IO at open, naming one of them (the default) */
    INLAY_EXISTING_REPLACE_SHARD,   /* open removes the shard's manifest; a successful close removes
                                       the shard's files this run did not write (files of the same
                                       name were replaced as each was published); other shards'
                                       files are left alone */
    INLAY_EXISTING_APPEND,          /* the new files continue the shard's numbering; the manifest
                                       lists the earlier manifest's files too (files a killed run
                                       published before it died are in no manifest, though readers
                                       that list the folders see them) */
} inlay_existing;

#define INLAY_DEFAULT_MAX_OPEN_FILES 64
#define INLAY_DEFAULT_MAX_BUFFERED_BYTES ((size_t)256 << 20)

typedef struct inlay_dataset_options {
    unsigned struct_size;          /* set by inlay_dataset_options_init */
    inlay_options file;            /* every file's writer options (codecs, page and row group sizes,
                                      metadata, sync; its allocator is the dataset's). threads: 0
                                      (the default) means 1 here, since every open file would
                                      start its own workers */
    const char *const *partition_by;   /* partition columns by top-level name, outermost folder
                                      first; copied at open. None: every file at root */
    size_t partition_by_count;
    bool keep_partition_columns;   /* also store the partition columns in the files (default false:
                                      only in the folder names, as Spark and DuckDB do) */
    uint64_t max_file_rows;        /* a file holds at most this many rows (0: no limit) */
    uint64_t max_file_bytes;       /* a file is closed once its bytes written and buffered reach this
                                      (0: no limit), looked at every file.page_rows rows: it passes it
                                      by at most that many rows. Buffered pages count as cut, before
                                      compression (so that where a file ends depends only on the data
                                      and the options): a compressed file ends below it */
    int max_open_files;            /* 0: INLAY_DEFAULT_MAX_OPEN_FILES */
    size_t max_buffered_bytes;     /* waiting rows and unwritten pages of every partition together
                                      (see Memory above); 0: INLAY_DEFAULT_MAX_BUFFERED_BYTES */
    const char *shard;             /* NULL: $INLAY_SHARD, else 8 random hex digits fixed at open.
                                      1..64 of [A-Za-z0-9_.-], not starting with '.' */
    inlay_existing existing;
} inlay_dataset_options;

/* Fill o with the defaults above (o->file as inlay_options_init). */
INLAY_API void inlay_dataset_options_init(inlay_dataset_options *o);

/* Open a dataset under `root` (made, with its parents, when missing). The
 * schema and the options are copied. Returns INLAY_OK with *out a new
 * dataset; on failure *out is still set when one could be allocated (for
 * inlay_dataset_errmsg; free it), else NULL. INLAY_ERR_SCHEMA: a partition
 * column that is not a top-level field, appears twice or has no folder
 * form, or no column left for the files; INLAY_ERR_ARGUMENT: options out
 * of range, a shard that is not a safe name; INLAY_ERR_IO: root cannot be
 * made or read, or holds the shard's files (see inlay_existing). */
INLAY_API int inlay_dataset_open(inlay_dataset **out, const char *root, const inlay_schema *schema,
                                 const inlay_dataset_options *opts);

/* The leaf column named `name` (dotted path or top-level name) in the
 * dataset's schema, partition columns included, or INLAY_ERR_COLUMN. */
INLAY_API int inlay_dataset_column(const inlay_dataset *d, const char *name);

/* The dataset's copy of its schema (every column); owned by it. */
INLAY_API const inlay_schema *inlay_dataset_schema(const inlay_dataset *d);

/* The shard id its files are named with. */
INLAY_API const char *inlay_dataset_shard(const inlay_dataset *d);

/* Append rows: one batch per leaf column of the schema, each column once,
 * every batch holding the same number of rows. Batches are as for
 * inlay_writer_append_columns (values, definition levels or a validity
 * bitmap, repetition levels for nested columns; inlay_shredder makes a
 * nested field's batches from its values in Arrow's layout). The call is checked whole
 * before any row reaches a file, as a writer's append is: a bad value is
 * INLAY_ERR_VALUE / NULL / LEVEL / TYPE with the message naming the column
 * and the row, counted over every row appended to the dataset ("column
 * 'x' row 1234: ..."); nothing is appended and the dataset stays usable.
 * Rows of a call that passes may wait in their partitions (see above):
 * inlay_dataset_get_stats counts them as appended.
 * Declared sorting columns (file.sorting_columns) are checked over the
 * rows in the order they are given. Failures of the environment
 * (INLAY_ERR_NOMEM, INLAY_ERR_IO from a file, INLAY_ERR_COMPRESS) are
 * sticky: the dataset is failed, accepts only abort and free, and
 * publishes nothing more (files published before stay, complete). */
INLAY_API int inlay_dataset_append_columns(inlay_dataset *d, const inlay_column_batch *batches, int n);

/* Append an Arrow record batch: `array` is a struct array described by
 * `schema` whose children are the dataset's top-level fields in order,
 * partition columns included, read as inlay_writer_append_arrow reads one
 * (the same formats, conversions and checks; nested fields are shredded),
 * and then appended as by inlay_dataset_append_columns: checked whole, a
 * value at fault named by its column and dataset row (a nested value that
 * cannot be converted: by its field and its index in its Arrow array),
 * nothing appended on a refusal and the dataset still usable. A batch that does not match the
 * schema is INLAY_ERR_SCHEMA, a malformed one INLAY_ERR_ARGUMENT (naming
 * the field); out of memory fails the dataset. Nothing of the arrays is
 * read after the call returns. */
INLAY_API int inlay_dataset_append_arrow(inlay_dataset *d, const struct ArrowArray *array,
                                         const struct ArrowSchema *schema);

/* What a dataset has done so far. */
typedef struct inlay_dataset_stats {
    uint64_t rows;            /* rows appended */
    uint64_t files;           /* files published */
    uint64_t bytes;           /* bytes of the files published */
    uint64_t partitions;      /* distinct partitions seen */
    uint64_t open_files;      /* files being written */
} inlay_dataset_stats;

/* Fills *st; a NULL dataset gives zeros. */
INLAY_API void inlay_dataset_get_stats(const inlay_dataset *d, inlay_dataset_stats *st);

/* Close every open file (publishing it), then write the manifest and
 * _SUCCESS, and with INLAY_EXISTING_REPLACE_SHARD remove the shard's
 * earlier files that were not replaced. Errors as for the appends; on
 * failure nothing more is published and the dataset is failed. After a
 * successful close only the info calls and free are valid. */
INLAY_API int inlay_dataset_close(inlay_dataset *d);

/* Give up: open files are removed (their temporaries), nothing more is
 * published, no manifest. Files already published stay. Idempotent. */
INLAY_API void inlay_dataset_abort(inlay_dataset *d);

/* Free the dataset (aborting it unless it was closed). NULL accepted. */
INLAY_API void inlay_dataset_free(inlay_dataset *d);

/* The last failure's message ("" if none), status, and parts (as
 * inlay_writer_error_info: the column and the dataset row of a value at
 * fault). Owned by the dataset. */
INLAY_API const char *inlay_dataset_errmsg(const inlay_dataset *d);
INLAY_API int inlay_dataset_status(const inlay_dataset *d);
INLAY_API void inlay_dataset_error_info(const inlay_dataset *d, inlay_error_info *info);

/*======================================================================
 *  Sources: CSV and NDJSON parsed into column batches
 *
 *     inlay_source_options so;
 *     inlay_source_options_init(&so);                 // everything detected
 *     inlay_source *src;
 *     if (inlay_source_open(&src, "in.csv.gz", schema, &so) != INLAY_OK) ...
 *     size_t rows;
 *     while (inlay_source_next(src, &rows) == INLAY_OK && rows > 0) {
 *         int n;
 *         const inlay_column_batch *b = inlay_source_batch(src, &n);
 *         inlay_writer_append_columns(w, b, n);       // same schema as the writer
 *     }
 *     inlay_source_free(src);
 *
 * A source streams its input in batches of typed column arrays, in constant
 * memory whatever the input's size. Text is parsed straight into the arrays
 * (no per-value allocation): integers, floats, booleans (true/false, t/f,
 * yes/no, 1/0), decimals exactly, dates and timestamps from ISO-8601 (a
 * zone offset is applied, giving UTC) or from epoch numbers (days; the
 * column's unit), times as HH:MM[:SS[.f]], UTF-8 checked for text columns. A record that does not
 * parse is an error naming it ("in.csv:1234: column 'ts': cannot parse
 * \"2024-13-01\" as timestamp(us)"), or, with INLAY_ON_ERROR_SKIP, is
 * counted, written to the reject file with its reason, and left out.
 *
 * What the options leave open is detected from the input itself, as
 * DuckDB's read_csv does: the compression from the first bytes (gzip and
 * zstd magic, on files, stdin and pipes alike), the format, and for CSV
 * the dialect from a sample of the first records: the delimiter among
 * , | ; and tab that gives a consistent field count, the quote (" or ' or
 * none) and escape (doubled quotes or backslash) that parse the sample
 * without error, and whether the first record is a header (it is when
 * one of its cells does not parse as the type the records below give its
 * column, or when every column is text; a first record that parses like
 * the rest is data). A given option is never second-guessed.
 * inlay_source_get_dialect says what was used and what was detected.
 *====================================================================*/

typedef struct inlay_source inlay_source;

typedef enum inlay_source_format {
    INLAY_FORMAT_AUTO = 0,   /* by extension: .csv .tsv .tab -> CSV; .json .jsonl .ndjson -> NDJSON (after
                                .gz / .zst); anything else (stdin too) by content: NDJSON when the first
                                non-blank byte is '{' or '[', else CSV */
    INLAY_FORMAT_CSV = 1,
    INLAY_FORMAT_NDJSON = 2,
} inlay_source_format;

typedef enum inlay_on_error {
    INLAY_ON_ERROR_FAIL = 0,  /* the first bad record ends the source with an error */
    INLAY_ON_ERROR_SKIP = 1,  /* bad records are counted, rejected and skipped */
} inlay_on_error;

#define INLAY_DEFAULT_BATCH_ROWS 65536
/* quote, escape, header: detect from the input (the default). */
#define INLAY_SNIFF (-1)

/* A column's type given by name (what inlay_type_parse takes: "int32",
 * "string", "timestamp(ms)", "decimal(10,2)"...), for inference. */
typedef struct inlay_column_type {
    const char *column;
    const char *type;
} inlay_column_type;

typedef struct inlay_source_options {
    unsigned struct_size;           /* set by inlay_source_options_init */
    inlay_allocator alloc;          /* fn NULL = malloc/realloc/free */
    inlay_source_format format;
    size_t batch_rows;              /* rows per batch (default INLAY_DEFAULT_BATCH_ROWS) */
    /* CSV */
    char delimiter;                 /* 0 (default): detected; tab for .tsv and .tab */
    int quote;                      /* INLAY_SNIFF (default), a character, or 0 for none */
    int escape;                     /* INLAY_SNIFF (default); 0 or the quote character: quotes are
                                       doubled inside quotes (RFC 4180); another one, e.g. '\\': it
                                       escapes a quote or itself inside quotes */
    int header;                     /* INLAY_SNIFF (default); 1 (true): the first record names the
                                       columns; 0 (false): there is no header */
    size_t skip_rows;               /* physical lines skipped first */
    const char *const *null_values; /* unquoted field texts read as null; default { "" }.
                                       "\"\"" (two quotes) also makes a quoted empty field null */
    size_t null_count;              /* entries of null_values; 0 with null_values NULL = the default */
    /* NDJSON */
    bool strict;                    /* a key that is not a column is an error */
    /* both */
    inlay_on_error on_error;
    const char *reject_path;        /* each bad record's location, reason and raw text (SKIP); NULL = none.
                                       It may not be the input: a path naming the same file is
                                       INLAY_ERR_ARGUMENT, and nothing is truncated */
    int threads;                    /* 1 (0 = default): parse in the calling thread. 2: a thread of the
                                       source's own parses the next batch while the caller works on the
                                       current one; the allocator must then be thread-safe */
    const void *prefix;             /* the first bytes of the input, already taken from it (a sample read
                                       from a pipe for inference), still compressed if the input is; they
                                       come before the input's own. Not copied, must outlive the source */
    size_t prefix_len;
    /* inference (inlay_source_infer) */
    bool narrow_ints;               /* integers get the narrowest type that holds every sampled value
                                       (int8..int64); default false: int64, so that one feed gets one
                                       schema whatever the length of a file */
    const inlay_column_type *types; /* these columns get these types instead of inferred ones, and are
                                       optional; each must name a column of the input */
    size_t type_count;
    /* inlay_source_open */
    bool inferred_schema;           /* the schema was inferred from a sample: a value that does not fit
                                       it says so and how to fix it (as the command line's flags:
                                       --infer-rows N, --schema FILE or --types col=type) */
} inlay_source_options;

INLAY_API void inlay_source_options_init(inlay_source_options *o);

/* Opens path ("-" = stdin; gzip and zstd are decompressed) for the flat
 * schema (copied; the caller keeps it). CSV columns are matched to the
 * schema by header name (extra header columns are ignored; a schema column
 * missing from the header is all null, or INLAY_ERR_SCHEMA when required),
 * or by position without a header; with a schema, a first record naming
 * one of its columns is a header. NDJSON keys are matched by name.
 * Returns INLAY_OK, INLAY_ERR_IO (cannot open), INLAY_ERR_SCHEMA,
 * INLAY_ERR_ARGUMENT (also: the reject file is the input) or
 * INLAY_ERR_NOMEM; on failure *out is a source that only answers
 * inlay_source_errmsg and inlay_source_free (or NULL when out of memory). */
INLAY_API int inlay_source_open(inlay_source **out, const char *path, const inlay_schema *schema,
                                const inlay_source_options *o);

/* Parses the next batch: *rows > 0, or 0 at the end of the input. A bad
 * record (INLAY_ON_ERROR_FAIL) is INLAY_ERR_VALUE; a failing input or
 * decompression INLAY_ERR_IO; INLAY_ERR_NOMEM. Errors are sticky. */
INLAY_API int inlay_source_next(inlay_source *s, size_t *rows);

/* The last batch: one entry per schema column (column = its index), values
 * dense with definition levels for nulls, in the types the append calls
 * take. Owned by the source, valid until the next inlay_source_next. */
INLAY_API const inlay_column_batch *inlay_source_batch(const inlay_source *s, int *ncolumns);

/* Where the rows of the last batch are in the input: for row i, the line
 * (1-based, counting every line of the input: header, skipped lines, bad
 * records and lines inside quoted fields) on which its record starts. For
 * a caller that finds a problem with a row later (a transform, a writer)
 * and must say where it came from. Owned by the source, valid until the
 * next inlay_source_next; NULL before the first batch. */
INLAY_API const uint64_t *inlay_source_batch_lines(const inlay_source *s);

typedef struct inlay_source_stats {
    uint64_t records;        /* records read (rows delivered + skipped) */
    uint64_t rows;           /* rows delivered */
    uint64_t skipped;        /* bad records left out (INLAY_ON_ERROR_SKIP) */
    uint64_t bytes_read;     /* input bytes parsed, after decompression */
    uint64_t bytes_consumed; /* bytes of the file read so far (compressed size) */
    uint64_t bytes_total;    /* size of the file when known (regular file), else 0 */
} inlay_source_stats;

INLAY_API void inlay_source_get_stats(const inlay_source *s, inlay_source_stats *st);
INLAY_API const char *inlay_source_errmsg(const inlay_source *s);   /* "" if none */
/* The status of the last failure (INLAY_ERR_IO: the input could not be
 * read; INLAY_ERR_VALUE, INLAY_ERR_NULL, INLAY_ERR_SCHEMA: the data was
 * bad), INLAY_OK if none; INLAY_ERR_NOMEM for NULL (inlay_source_open
 * could not allocate). */
INLAY_API int inlay_source_status(const inlay_source *s);
INLAY_API void inlay_source_free(inlay_source *s);                  /* NULL accepted */

typedef enum inlay_input_compression {
    INLAY_INPUT_PLAIN = 0,
    INLAY_INPUT_GZIP = 1,
    INLAY_INPUT_ZSTD = 2,
} inlay_input_compression;

/* Bits of inlay_source_dialect.sniffed: what was detected rather than given. */
#define INLAY_SNIFFED_FORMAT    (1u << 0)
#define INLAY_SNIFFED_DELIMITER (1u << 1)
#define INLAY_SNIFFED_QUOTE     (1u << 2)
#define INLAY_SNIFFED_ESCAPE    (1u << 3)
#define INLAY_SNIFFED_HEADER    (1u << 4)

/* How a source reads its input. The CSV fields are meaningful for CSV. */
typedef struct inlay_source_dialect {
    inlay_source_format format;          /* CSV or NDJSON, never AUTO */
    inlay_input_compression compression; /* always found from the bytes */
    char delimiter;
    char quote;                          /* 0: none */
    char escape;                         /* the quote itself: doubled quotes; else e.g. '\\'; 0 without a quote */
    bool header;
    unsigned sniffed;                    /* INLAY_SNIFFED_* bits; a delimiter by extension counts */
} inlay_source_dialect;

/* The dialect of an open source into *d (zeroed for NULL or a failed
 * source). */
INLAY_API void inlay_source_get_dialect(const inlay_source *s, inlay_source_dialect *d);

/* A flat schema for the input, from a sample of its records: the first
 * `sample_rows` (0 = 10,000), and, in a plain file longer than that, chunks
 * spread over the whole file (the middle, the end and a few places picked
 * with a fixed seed, each from the first record boundary that is certain;
 * compressed files and pipes: the head only). For each column the type
 * that holds every sampled value: int64 (uint64 above its range), or with
 * narrow_ints the narrowest of int8..int64; double, boolean, date,
 * time(us), timestamp(us or ns, utc when the values carry a zone), string;
 * json for NDJSON objects and arrays; options.types replaces a column's
 * type. A column is optional where a null or a missing value was seen.
 * CSV names come from the header (trimmed; "column<i>" for an empty one,
 * "<name>_1"... for a repeat) or, without one, are column0, column1...
 * (as DuckDB names them); NDJSON keys in order of first appearance. The
 * format and the dialect are detected as inlay_source_open detects them.
 * The schema is the caller's (inlay_schema_free). Errors as
 * inlay_source_open, and INLAY_ERR_ARGUMENT for a bad options.types; the
 * message goes to err (errcap bytes). */
INLAY_API int inlay_source_infer(inlay_schema **out, const char *path, const inlay_source_options *o,
                                 size_t sample_rows, char *err, size_t errcap);

/* The same from `len` bytes in memory: the start of a pipe read for the
 * purpose, as read (gzip or zstd is decompressed, and may be cut short
 * when the bytes are not the whole input); `whole` says the bytes are the
 * entire input, not its beginning; `name` is used in messages and for
 * the format by extension. A last record cut short by the end of the
 * buffer is left out. */
INLAY_API int inlay_source_infer_buffer(inlay_schema **out, const void *data, size_t len, bool whole, const char *name,
                                        const inlay_source_options *o, size_t sample_rows, char *err, size_t errcap);

/* Column i (0-based, in order) of a flat schema: its name (owned by the
 * schema), type and repetition. INLAY_ERR_COLUMN when there is no such
 * column. */
INLAY_API int inlay_schema_column(const inlay_schema *s, int i, const char **name, inlay_type *type,
                                  inlay_repetition *repetition);


/* One node of a schema tree, for hosts that walk it (a reader's schema,
 * which may be nested). Node 0 is the root group; the top-level fields are
 * its children, in order. */
typedef enum inlay_group_kind {
    INLAY_GROUP_STRUCT = 0,    /* a plain group, or the repeated middle of a LIST or MAP */
    INLAY_GROUP_LIST = 1,
    INLAY_GROUP_MAP = 2,
} inlay_group_kind;

typedef struct inlay_node_info {
    const char *name;          /* owned by the schema */
    int parent;                /* -1 for the root */
    int first_child;           /* -1 when none (a primitive) */
    int next_sibling;          /* -1 when last */
    int num_children;
    bool is_group;
    inlay_group_kind group;    /* groups only */
    inlay_repetition repetition;
    inlay_type type;           /* primitives only */
    int column;                /* leaf column number, or -1 for a group */
    int16_t max_def, max_rep;  /* levels of the leaf (primitives only) */
} inlay_node_info;

/* Describe node `node` into *out. Returns INLAY_OK or INLAY_ERR_ARGUMENT
 * for a node that does not exist. Nodes are numbered depth-first in the
 * order of the footer's schema (0 = root); inlay_schema_num_nodes() says
 * how many. The schema must be complete (any schema a writer or reader
 * holds is). */
INLAY_API int inlay_schema_node(const inlay_schema *s, int node, inlay_node_info *out);
INLAY_API int inlay_schema_num_nodes(const inlay_schema *s);

/*======================================================================
 *  Reader
 *
 *  Reads Parquet files, inlay's and other writers', back into the shapes
 *  the writer takes: the footer's schema as an inlay_schema, and row
 *  groups as batches of inlay_array per top-level field, so that
 *
 *      while (inlay_reader_next(r, 0, &rows) == INLAY_OK && rows)
 *          for (int k = 0; k < nfields; k++)
 *              inlay_writer_append_array(w, k, inlay_reader_array(r, k), rows);
 *
 *  copies a file. Every length, offset, count and level read from a file
 *  is checked before use: a corrupt or truncated file is INLAY_ERR_FORMAT
 *  with a message naming where (row group, column, page), never a crash,
 *  and no allocation is sized by a field the file's own size does not
 *  bound. Codecs: every one the writer has (inlay_compression_supported)
 *  and the deprecated Hadoop-framed LZ4; others are INLAY_ERR_FORMAT
 *  naming the codec. Encodings: all of the format's. INT96 timestamps read
 *  as timestamp(ns) INT64; legacy two-level lists as standard lists; a
 *  logical type inlay does not have reads as its physical type.
 *
 *  A reader is not thread-safe; separate readers are independent.
 *====================================================================*/

typedef struct inlay_reader inlay_reader;

/* Bytes from a host's own storage (a game's pack file, an object store):
 * read() fills up to len bytes at the current position and returns how
 * many (0 at the end, -1 on failure); seek() moves to offset from
 * SEEK_SET or SEEK_END (whence as in <stdio.h>) and returns the new
 * position or -1. close() (may be NULL) is called once by inlay_reader_free. */
typedef struct inlay_read_stream {
    int64_t (*read)(void *ctx, void *buf, size_t len);
    int64_t (*seek)(void *ctx, int64_t offset, int whence);
    void (*close)(void *ctx);
    void *ctx;
} inlay_read_stream;


typedef struct inlay_read_options {
    unsigned struct_size;      /* set by inlay_read_options_init; guards the layout */
    inlay_allocator alloc;     /* fn NULL = malloc/realloc/free */
    size_t batch_rows;         /* rows per batch when inlay_reader_next is given 0 */
} inlay_read_options;

INLAY_API void inlay_read_options_init(inlay_read_options *o);

/* Open a reader on a file, on len bytes in memory (not copied: they must
 * outlive the reader) or on a host stream. The footer is read and checked
 * here. Returns INLAY_OK; INLAY_ERR_IO (the system's reason in the
 * message), INLAY_ERR_FORMAT (not Parquet, or a corrupt footer),
 * INLAY_ERR_NOMEM or INLAY_ERR_ARGUMENT. On failure *out is still set when a
 * reader could be allocated (inlay_reader_errmsg() says why; free it), else
 * NULL; a stream's close() is called on failure too. */
INLAY_API int inlay_reader_open_file(inlay_reader **out, const char *path, const inlay_read_options *o);
INLAY_API int inlay_reader_open_memory(inlay_reader **out, const void *data, size_t len,
                                       const inlay_read_options *o);
INLAY_API int inlay_reader_open_stream(inlay_reader **out, inlay_read_stream stream,
                                       const inlay_read_options *o);

/* Free the reader and everything it handed out. NULL accepted. */
INLAY_API void inlay_reader_free(inlay_reader *r);
/* The message of the last failure, or "" if none. Owned by the reader. */
INLAY_API const char *inlay_reader_errmsg(const inlay_reader *r);
/* The status of the last failure, or INLAY_OK. */
INLAY_API int inlay_reader_status(const inlay_reader *r);

/* The file's schema, owned by the reader: walk it with inlay_schema_node,
 * or hand it to inlay_writer_open to write the same shape. */
INLAY_API const inlay_schema *inlay_reader_schema(const inlay_reader *r);

/* A column chunk's statistics as the footer holds them. min and max are
 * the plain encoding of a value (little-endian for numbers, the bytes for
 * BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY), or NULL when absent; the legacy
 * min/max fields are used only where the sort order makes them valid. */
typedef struct inlay_statistics {
    const uint8_t *min, *max;
    size_t min_len, max_len;
    bool has_null_count, has_distinct_count;
    bool min_exact, max_exact;     /* false when the writer said it truncated them */
    int64_t null_count;
    int64_t distinct_count;
} inlay_statistics;

/* One column chunk, as the footer describes it. Offsets are -1 when absent. */
typedef struct inlay_chunk_info {
    int column;                    /* leaf column number in the reader's schema */
    const char *path;              /* dotted path in the file ("tags.list.element") */
    int physical;                  /* Parquet Type as in the file (INT96 = 3) */
    int codec;                     /* Parquet CompressionCodec: 0 none, 1 snappy, 2 gzip, 6 zstd... */
    uint32_t encodings;            /* bit e set for each Parquet Encoding number e listed */
    int64_t num_values;            /* level entries, nulls included */
    int64_t compressed_size, uncompressed_size;
    int64_t data_page_offset, dictionary_page_offset;
    int64_t column_index_offset, offset_index_offset;
    int32_t column_index_length, offset_index_length;
    int64_t bloom_filter_offset;
    int32_t bloom_filter_length;
    bool has_statistics;
    inlay_statistics statistics;
} inlay_chunk_info;

typedef struct inlay_row_group_info {
    int64_t num_rows;
    int64_t total_byte_size;       /* uncompressed, as the writer counted it */
    int64_t total_compressed_size; /* -1 when the writer left it out */
    int64_t file_offset;           /* -1 when absent */
    const inlay_chunk_info *chunks;/* one per leaf column, in column order */
} inlay_row_group_info;

/* What the footer says of the whole file. Owned by the reader, valid until
 * it is freed; later versions may add fields at the end. */
typedef struct inlay_file_info {
    int32_t version;               /* the footer's format version */
    int64_t num_rows;
    int num_row_groups;
    int num_columns;               /* leaf columns */
    const char *created_by;        /* "" when absent */
    const inlay_kv *metadata;      /* key-value metadata; a value may be NULL */
    size_t metadata_count;
    uint64_t file_size;
    uint32_t footer_size;          /* the FileMetaData's length */
    const inlay_row_group_info *row_groups;
} inlay_file_info;

INLAY_API const inlay_file_info *inlay_reader_info(const inlay_reader *r);

/* The number of the top-level field called `name`, or -1. */
INLAY_API int inlay_reader_field(const inlay_reader *r, const char *name);

/* Choose what inlay_reader_next reads: top-level fields by number (in the
 * order given; each at most once) and row groups by index (in the order
 * given). NULL / 0 selects every field or every row group. Reading starts
 * again at the first selected row group. INLAY_ERR_ARGUMENT for a number
 * out of range or a repeated field, and nothing changes. */
INLAY_API int inlay_reader_select(inlay_reader *r, const int *fields, int nfields, const int *row_groups,
                                  int nrow_groups);

/* Read up to max_rows rows (0: options.batch_rows) of the selected fields
 * into the reader's arrays. *rows gets the rows read; 0 at the end. A batch
 * never spans two row groups. Returns INLAY_OK, INLAY_ERR_FORMAT naming the
 * row group, column and page at fault, INLAY_ERR_IO or INLAY_ERR_NOMEM;
 * after a failure the reader can be moved on with inlay_reader_select. */
INLAY_API int inlay_reader_next(inlay_reader *r, size_t max_rows, size_t *rows);

/* The k-th selected field of the last batch, in the layout
 * inlay_writer_append_array takes: bool, int32_t, int64_t, float, double,
 * or inlay_bytes values with one slot per entry. Owned by the reader; valid
 * until the next inlay_reader_next, inlay_reader_select or free. NULL when
 * k is out of range. */
INLAY_API const inlay_array *inlay_reader_array(const inlay_reader *r, int k);

/* The row group the last batch came from (-1 before the first), and the
 * file row of its first row. */
INLAY_API int inlay_reader_batch_row_group(const inlay_reader *r);
INLAY_API uint64_t inlay_reader_batch_first_row(const inlay_reader *r);

#ifdef __cplusplus
}
#endif
#endif /* INLAY_H */
