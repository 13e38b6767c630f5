/*
 * lschema.h — column types and schemas for Lua: the "inlay.type" userdata
 * (inlay.timestamp, time, decimal, fixed, list, struct, map only record
 * their arguments, which inlay.schema checks, so a mistake is reported
 * with the field's path) and the "inlay.schema" userdata, an inlay_schema
 * plus one lfield per top-level field.
 *
 * Fields and columns: a flat field is one leaf column; a nested field (a
 * list, struct or map at the top level) is a tree of lnode whose leaves are
 * several consecutive columns, fields[i].column .. + nleaves - 1. In a
 * schema without nested fields, field i is leaf column i and batch slot i;
 * the flat paths rely on `slot` and `column` only, and never look at the
 * tree.
 */
#ifndef LSCHEMA_H
#define LSCHEMA_H

#include "lconv.h"

#define LI_TYPE "inlay.type"
#define LI_SCHEMA "inlay.schema"

/* One node of a nested field's type tree. Every node has an id, unique in
 * its schema, that indexes a writer's per-node scratch; the children of a
 * node have consecutive ids (first .. first + nchildren - 1), so their
 * inlay_array descriptions lie side by side as the core wants them. */
typedef enum inl_lua_nkind { N_LEAF, N_STRUCT, N_LIST, N_MAP } inl_lua_nkind;

typedef struct lnode {
    inl_lua_nkind kind;
    int id, first, nchildren;
    const struct lnode *const *children;   /* list: element; map: key, value; struct: fields */
    const char *name;        /* its name in its struct (an interned Lua string); else "element", "key", "value" */
    size_t name_len;
    const char *ppath;       /* leaves: the column's path in the Parquet schema ("tags.list.element") */
    unsigned hash_mask;      /* struct: field name pointer -> child index, open addressing */
    const int *hash;
    lfield f;                /* f.name: the dotted path in messages ("hits.element.pos.x"); f.optional:
                                entries may be null; f.type_name: the leaf's type, or "list", "struct", "map";
                                leaves: the conversion, as for a flat column */
} lnode;

/* The userdata behind a schema. `s` is NULL until it is complete. */
typedef struct lschema {
    inlay_schema *s;
    int nfields;             /* top-level fields */
    int ncolumns;            /* leaf columns */
    int nflat;               /* flat fields (batch slots) */
    int nnodes;              /* nodes of all nested fields (0: a flat schema) */
    int depth;               /* deepest nesting, in nodes */
    unsigned hash_mask;      /* name pointer -> field index, open addressing */
    int *hash;               /* points after fields[] in this block */
    lfield fields[];
} lschema;

/* Registers the type and schema metatables and sets schema, timestamp,
 * time, decimal, fixed, list, struct and map in the module table on top of
 * the stack. */
void inl_lua_open_schema(lua_State *L);

lschema *inl_lua_check_schema(lua_State *L, int idx);
int inl_lua_schema_new(lua_State *L);                 /* inlay.schema{...} */
/* Pushes a new schema: the one the schema at idx was made from, with the
 * field option `option` set to values[name] for each top-level field the
 * table at `values` names (name -> option value). A key that is not a
 * top-level field raises "<what>: no top-level field 'x'". */
void inl_lua_schema_with_option(lua_State *L, int idx, const char *option, int values, const char *what);
/* Field index of a name (the address of an interned Lua string is tried
 * first), or -1. */
int inl_lua_field_lookup(const lschema *s, const char *name, size_t len);
/* Child index of a struct node's field, or -1. */
int inl_lua_struct_lookup(const lnode *n, const char *name, size_t len);

/* The codec a string names ("zstd", "ZSTD", "lz4", "none"), with a level
 * after a colon ("zstd:19"): *codec, and *level (INLAY_LEVEL_DEFAULT when
 * there is none). Returns NULL, or pushes and returns why not: an unknown
 * name or one this build leaves out (both listing the codecs it has), a
 * level that is not an integer. Whether the codec takes the level is left
 * to the core, whose message says the codec's range. */
const char *inl_lua_codec_parse(lua_State *L, const char *spec, inlay_compression *codec, int *level);
/* Pushes the codecs this build has, as "'uncompressed', 'snappy', ...". */
void inl_lua_push_codec_list(lua_State *L);
/* Pushes and returns codec c's name as scripts spell it ("lz4_raw"). */
const char *inl_lua_push_codec_name(lua_State *L, inlay_compression c);
/* Every codec the format numbers and the writer knows, built in or not:
 * sets *list, returns their count. */
int inl_lua_codecs(const inlay_compression **list);

#endif
