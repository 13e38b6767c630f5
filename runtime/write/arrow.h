/*
 * arrow.h — the Arrow C data interface: what an Arrow schema's formats say
 * (arrow_schema.c, which also makes inlay schemas of them), and record
 * batches read into the column batches of one all-or-nothing append
 * (arrow.c).
 *
 * inl_arrow_stage matches the batch's Arrow schema with the writer's schema
 * tree, checks the arrays and stages every leaf column's batch: flat
 * columns as values and a validity bitmap (the Arrow buffer itself where
 * the layouts agree, a converted copy otherwise), nested fields shredded
 * into levels and dense values. Nothing reaches a column: the writer then
 * checks and buffers the staged batches together (writer.c), so a batch
 * that fails anywhere leaves the writer as it was.
 *
 * The state holds the scratch of the conversions and the shredding, kept
 * by the writer and reused from batch to batch: once a batch of a shape
 * has been read, reading another of the same shape allocates nothing.
 */
#ifndef INLAY_ARROW_H
#define INLAY_ARROW_H

#include "column.h"
#include "error.h"
#include "schema.h"

enum { ARROW_MAX_DEPTH = 64 };   /* nesting taken from an Arrow schema */

/* ---- Arrow types (arrow_schema.c) ------------------------------------------ */

typedef enum akind {
    A_BOOL, A_INT, A_HALF, A_FLOAT, A_DOUBLE, A_BYTES, A_FIXED, A_DECIMAL, A_DATE, A_TIME, A_TIMESTAMP,
    A_STRUCT, A_LIST, A_MAP,
} akind;

enum { BYTES_OFFSETS32, BYTES_OFFSETS64, BYTES_VIEW };   /* how strings and binaries hold values */
enum { EXT_NONE, EXT_UUID, EXT_JSON };

/* What an Arrow field's format string (with its dictionary's, and its
 * extension name) says: arrow_schema.c parses it. */
typedef struct atype {
    akind kind;
    int bits;                 /* bits of one stored value: A_INT, A_DECIMAL, A_DATE, A_TIME, A_TIMESTAMP;
                                 A_LIST: of an offset */
    bool is_signed;           /* A_INT */
    int layout;               /* A_BYTES */
    bool utf8;                /* A_BYTES: u U vu */
    int32_t width;            /* A_FIXED */
    int32_t precision, scale; /* A_DECIMAL */
    inlay_unit unit;          /* A_DATE, A_TIME, A_TIMESTAMP */
    bool tz;                  /* A_TIMESTAMP: a time zone after the colon */
    int ext;                  /* EXT_* */
    int index_bits;           /* dictionary-encoded: the width of its indices; 0: not encoded */
    bool index_signed;
} atype;

/* The type of the Arrow field sch: its format, or with a dictionary the
 * dictionary's format and the indices' width; the extensions inlay knows.
 * Returns 0, INLAY_ERR_SCHEMA (*what names what inlay does not take, *shown
 * the format meant) or INLAY_ERR_ARGUMENT (*what says what is malformed). */
int inl_arrow_type(const struct ArrowSchema *sch, atype *t, const char **what, const char **shown);

/* The column type a leaf of type t becomes in inlay_schema_from_arrow. */
inlay_type inl_arrow_column_type(const atype *t);

/* Can a column of type ct take values of type t? The same type, or the
 * same storage (see the definition). */
bool inl_arrow_maps_onto(const atype *t, const inlay_type *ct);

/* "timestamp(us, utc) from us", "struct"... for messages. */
void inl_arrow_type_name(const atype *t, char *text, size_t cap);

/* Dotted paths of Arrow names, for messages: name appended to path (plen
 * its length, cap its size); returns the old length, which pop restores. */
size_t inl_arrow_path_push(char *path, size_t *plen, size_t cap, const char *name);
void inl_arrow_path_pop(char *path, size_t *plen, size_t old);

/* ---- record batches (arrow.c) ---------------------------------------------- */

typedef struct arrow_state arrow_state;

/* What inl_arrow_stage staged: one batch per leaf column, in column order;
 * checked[i] is true when batch i's values are byte strings that need no
 * more checks (see inl_validate_values_prechecked). Owned by the state,
 * valid until its next call. */
typedef struct arrow_batches {
    const inlay_column_batch *batches;
    const bool *checked;
    int n;
} arrow_batches;

/* Stage the record batch `array` described by `schema` for the finalized
 * schema s. cols: the writer's columns of s, whose rows so far number the
 * rows in messages (0-based, as the other appends count them); NULL (a
 * dataset): the batch's first row is row rows_before. *state is created on
 * the first call (allocator a, which must outlive it) and kept for the
 * next. Returns 0, or INLAY_ERR_SCHEMA (the batch's schema does not match
 * s), INLAY_ERR_ARGUMENT (a malformed array), INLAY_ERR_VALUE or
 * INLAY_ERR_NULL (a value the columns cannot take, found while reading the
 * arrays), INLAY_ERR_NOMEM; err says which field and where. The staged
 * batches may point into the arrays (no copy where the layouts agree): they
 * are for the append that follows, and not read after it. */
int inl_arrow_stage(arrow_state **state, const inlay_allocator *a, const inlay_schema *s, const column *cols,
                    uint64_t rows_before, const struct ArrowArray *array, const struct ArrowSchema *schema,
                    inl_err *err, arrow_batches *out);

/* Free a state; NULL is accepted. */
void inl_arrow_free(arrow_state *state);

#endif
