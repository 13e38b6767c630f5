#!/usr/bin/env node
// check.mjs DIR [NAME-REGEX]
//
// INLAY_INTEROP_READERS (optional): the readers to run, a comma-separated
// subset of duckdb, arrow, hyparquet, inlay (default: all four). The
// structural check always runs. The sanitizer builds run inlay alone: the
// other three run no code of ours, and read the same files in the
// optimised build.
//
// For every NAME.parquet in DIR that has a NAME.json beside it (written by
// interop_fixtures, see fixtures.c for the JSON's format), read the file
// with three independent readers, and with inlay's own reader, and compare
// what each sees with the JSON:
//
//   duckdb    DuckDB (@duckdb/node-api), read_parquet()
//   arrow-rs  arrow-rs through parquet-wasm (node build), to Arrow IPC,
//             read with apache-arrow's tableFromIPC
//   hyparquet hyparquet, with hyparquet-compressors for every codec
//   inlay     libinlay's reader, through the interop_read_dump program
//             (read_dump.c; its path in the environment variable
//             INLAY_READ_DUMP), which prints the schema and the values in
//             the canonical form of the JSON. Its types must be the
//             JSON's exactly (tag, parameters, nullable), its values too
//             (floats compared as numbers, as for the other readers), its
//             arrays must hold together (lengths, offsets, no null in a
//             required node: read_dump.c's "problems"), and a second read
//             in batches of 37 rows with the fields selected in reverse
//             order, through inlay_reader_open_stream, must give the same
//             values.
//
// Each reader's values are normalised to the canonical form of the JSON and
// compared value by value, together with the row count, the column names and
// the column types each reader reports (hyparquet: the footer's schema
// elements). DuckDB also runs filters at the data's min/max with and without
// row-group pruning, which must agree. Beside the readers, a structural
// check looks at the file's metadata (DuckDB's parquet_metadata(), the
// footer as hyparquet parses it, and every page header): row groups,
// compression, statistics (null_count, min/max by sort order), key-value
// metadata, created_by, the file size the writer reported, page counts and
// sizes, and the encodings:
//
//   - the data pages of a chunk follow the encoding policy of inlay.h:
//     dictionary-encoded pages first (with one dictionary page), then the
//     value encoding of the column's choice and physical type (valueEncoding
//     below: AUTO/DICTIONARY fall back to DELTA_BINARY_PACKED for INT32 and
//     INT64, DELTA_LENGTH_BYTE_ARRAY for BYTE_ARRAY, PLAIN otherwise), never
//     back; what the column's data implies ("pages" in the JSON: all
//     dictionary, a mid-chunk fallback in some chunk, or no dictionary);
//   - the chunk's encodings (footer and parquet_metadata()) are exactly
//     those of its pages plus RLE for levels; encoding_stats counts the
//     pages actually present by page type and encoding;
//   - every data page is DATA_PAGE (page_version 1) or DATA_PAGE_V2
//     (page_version 2); a v2 page's num_rows, num_nulls and level lengths
//     match the rows it holds, and it is stored compressed only when that
//     made it smaller by min_compression_gain (is_compressed = false
//     otherwise, and always without a codec);
//   - each page body is taken apart independently of the readers: the
//     definition levels must match the nulls row by row, and the values
//     section must hold exactly the page's non-null values in its encoding
//     (PLAIN, BYTE_STREAM_SPLIT and dictionary pages by size and index
//     range; RLE booleans, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and
//     DELTA_BYTE_ARRAY decoded and compared value by value, with 32-bit
//     wrapping for INT32);
//   - codecs: each chunk's codec in the footer (and parquet_metadata())
//     is the JSON's "chunk_codecs" where it has them, else the column's
//     codec or, for v1 pages under a min_compression_gain, UNCOMPRESSED;
//     the rule itself on the first data page of chunks without a
//     dictionary (compressed: it saved at least the gain, header included,
//     exactly as inlay weighs it; UNCOMPRESSED: Node's GZIP / BROTLI at the
//     column's level do not save much more than the gain); v2 pages
//     compressed only when that saved the gain, raw ones the same checked
//     with Node's codec; every page (dictionary pages too, flat and nested
//     files) decompressed by another implementation than inlay's (Node's
//     zlib for GZIP and BROTLI, fzstd for ZSTD, hysnappy for SNAPPY, the
//     LZ4 block decoder below for LZ4_RAW) to exactly the header's
//     uncompressed size; inlay_writer_column_stats ("stats") against the
//     footer's chunks: codec, level, chunks, chunks stored uncompressed,
//     compressed and uncompressed bytes;
//   - columns built for it show what they were built for ("features":
//     zero-width and full-width miniblocks, DELTA_BYTE_ARRAY prefixes of 0
//     and of the whole previous value; "incompressible"/"compressible":
//     v2 pages stored raw / compressed under the column's codec).
//
// Known reader limitation: DuckDB 1.5 cannot read BYTE_STREAM_SPLIT on
// INT32, INT64 or FIXED_LEN_BYTE_ARRAY (see DUCKDB_BSS_ERROR); those columns
// are compared by arrow-rs and hyparquet only, and DuckDB must fail on them
// with exactly that error (or read them correctly).
//
// Known reader limitation: hyparquet-compressors' LZ4_RAW cannot decode the
// empty block (see hyCompressors); check.mjs decodes that block for it.
// A parquet-wasm build without a codec is skipped for arrow-rs on the files
// that use it, and the run says so (the pinned one has them all).
//
// Nested files ("nested": true) hold lists, structs and maps: each reader's
// values are compared tree by tree (a list as an array, a struct as an
// object, a map as [key, value] pairs in order), and the structure check
// looks at the schema elements (LIST and MAP 3-level forms, the logical and
// converted types on the outer group only), each leaf chunk's level entries,
// null_count, page types, v2 row/null counts and level lengths, encodings
// and encoding_stats.
//
// NAME-REGEX checks only the files whose names match. Exits 1 on any
// mismatch, naming file, reader, column and row.

import fs from 'node:fs'
import path from 'node:path'
import process from 'node:process'
import zlib from 'node:zlib'

import { DuckDBInstance } from '@duckdb/node-api'
import { Type, Precision, TimeUnit, DateUnit } from 'apache-arrow'
import { parquetMetadata } from 'hyparquet'
import { parquetHeader } from 'hyparquet/src/column.js'
import { compressors } from 'hyparquet-compressors'

import { readDumps, inlayTypeProblem, firstDifference } from './inlay_dump.mjs'
import { hex, hexBytes, decimalText, canonNumberOf, UNIT_SCALE, bigJSON, sqlString, rawFooter, readArrow, hyparquetRows } from './common.mjs'

const MAX_REPORTS = 8 // mismatches printed per file and reader

// ---------------------------------------------------------------------------
// Canonical forms

function uuidText(bytes) {
  const h = hex(bytes)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`
}

// Big-endian two's complement bytes as a BigInt.
function beTwosComplement(bytes) {
  if (bytes.length === 0) return 0n
  let v = 0n
  for (const b of bytes) v = (v << 8n) | BigInt(b)
  const bits = BigInt(bytes.length * 8)
  if (bytes[0] & 0x80) v -= 1n << bits
  return v
}

// Little-endian 32-bit words (Arrow decimals) as a signed BigInt.
function leWordsSigned(words, start, count) {
  let v = 0n
  for (let i = count - 1; i >= 0; i--) v = (v << 32n) | BigInt(words[start + i] >>> 0)
  const bits = BigInt(32 * count)
  if (v >> (bits - 1n)) v -= 1n << bits
  return v
}

// Canonical float value (JSON) to a JS number; throws on anything else
// (inlayLeaf takes that for a reader's non-number).
const canonNumber = e => canonNumberOf(e, 'float')

function showNumber(v) {
  return Object.is(v, -0) ? '-0' : String(v)
}

// Does the value `actual` (BigInt, in unit `au`) equal the expected value
// `e` (BigInt, in the column's unit `eu`)? When the reader's unit is coarser
// the expected value is cut to it, rounding either toward zero or down.
function sameInUnit(e, eu, actual, au) {
  const es = UNIT_SCALE[eu], as = UNIT_SCALE[au]
  if (as >= es) return e * (as / es) === actual
  const f = es / as
  const trunc = e / f
  const floor = e % f !== 0n && e < 0n ? trunc - 1n : trunc
  return actual === trunc || actual === floor
}

const isIntTag = t => /^u?int(8|16|32|64)$/.test(t)

// Compare one reader value (already normalised: see `norm*` below) with the
// canonical expected value. Normalised forms: null; boolean; for integers,
// date/time/timestamp a {v: BigInt, unit} or decimal string; numbers for
// floating point; strings for text, hex, uuid and decimals.
function sameValue(col, e, a) {
  if (e === null || a === null) return e === a
  switch (col.type) {
    case 'boolean':
      return a === e
    case 'float':
      return Object.is(Math.fround(canonNumber(e)), a)
    case 'double':
    case 'float16':
      return Object.is(canonNumber(e), a)
    case 'time':
    case 'timestamp':
      if (typeof a === 'object') return sameInUnit(BigInt(e), col.unit, a.v, a.unit)
      return a === e
    default:
      return a === e
  }
}

function showValue(col, v) {
  if (v === null || v === undefined) return 'null'
  if (typeof v === 'number') return showNumber(v)
  if (typeof v === 'object' && 'unit' in v) return `${v.v}${v.unit}`
  return JSON.stringify(v)
}

// ---------------------------------------------------------------------------
// Expected types per reader

function duckdbTypeName(col) {
  switch (col.type) {
    case 'boolean': return 'BOOLEAN'
    case 'int8': return 'TINYINT'
    case 'int16': return 'SMALLINT'
    case 'int32': return 'INTEGER'
    case 'int64': return 'BIGINT'
    case 'uint8': return 'UTINYINT'
    case 'uint16': return 'USMALLINT'
    case 'uint32': return 'UINTEGER'
    case 'uint64': return 'UBIGINT'
    case 'float': return 'FLOAT'
    case 'double': return 'DOUBLE'
    case 'float16': return 'FLOAT'
    case 'string': return 'VARCHAR'
    case 'enum': return 'VARCHAR'
    case 'json': return 'JSON'
    case 'binary': return 'BLOB'
    case 'fixed': return 'BLOB'
    case 'uuid': return 'UUID'
    case 'date': return 'DATE'
    case 'time':
      if (col.utc) return 'TIME WITH TIME ZONE'
      return col.unit === 'ns' ? 'TIME_NS' : 'TIME'
    case 'timestamp':
      if (col.utc) return 'TIMESTAMP WITH TIME ZONE'
      return col.unit === 'ns' ? 'TIMESTAMP_NS' : 'TIMESTAMP'
    case 'decimal': return `DECIMAL(${col.precision},${col.scale})`
  }
  throw new Error(`unknown type tag ${col.type}`)
}

const ARROW_UNIT = { [TimeUnit.SECOND]: 's', [TimeUnit.MILLISECOND]: 'ms', [TimeUnit.MICROSECOND]: 'us', [TimeUnit.NANOSECOND]: 'ns' }

// null when the Arrow type fits the column, else what is wrong.
function arrowTypeProblem(col, t) {
  const want = (ok, what) => (ok ? null : `expected ${what}`)
  switch (col.type) {
    case 'boolean': return want(t.typeId === Type.Bool, 'Bool')
    case 'int8': case 'int16': case 'int32': case 'int64':
    case 'uint8': case 'uint16': case 'uint32': case 'uint64': {
      const bits = Number(col.type.replace(/\D/g, ''))
      const signed = !col.type.startsWith('u')
      return want(t.typeId === Type.Int && t.bitWidth === bits && t.isSigned === signed,
        `${signed ? 'Int' : 'Uint'}${bits}`)
    }
    case 'float': return want(t.typeId === Type.Float && t.precision === Precision.SINGLE, 'Float32')
    case 'double': return want(t.typeId === Type.Float && t.precision === Precision.DOUBLE, 'Float64')
    case 'float16': return want(t.typeId === Type.Float && t.precision === Precision.HALF, 'Float16')
    case 'string': case 'json':
      return want(t.typeId === Type.Utf8 || t.typeId === Type.LargeUtf8, 'Utf8')
    case 'enum': // arrow-rs reads ENUM as Binary
      return want(t.typeId === Type.Utf8 || t.typeId === Type.LargeUtf8 || t.typeId === Type.Binary, 'Utf8 or Binary')
    case 'binary': return want(t.typeId === Type.Binary || t.typeId === Type.LargeBinary, 'Binary')
    case 'uuid': return want(t.typeId === Type.FixedSizeBinary && t.byteWidth === 16, 'FixedSizeBinary[16]')
    case 'fixed': return want(t.typeId === Type.FixedSizeBinary && t.byteWidth === col.width, `FixedSizeBinary[${col.width}]`)
    case 'date': return want(t.typeId === Type.Date && t.unit === DateUnit.DAY, 'Date32<DAY>')
    case 'time': {
      const bits = col.unit === 'ms' ? 32 : 64
      return want(t.typeId === Type.Time && ARROW_UNIT[t.unit] === col.unit && t.bitWidth === bits,
        `Time${bits}<${col.unit}>`)
    }
    case 'timestamp':
      return want(t.typeId === Type.Timestamp && ARROW_UNIT[t.unit] === col.unit && !!t.timezone === col.utc,
        `Timestamp<${col.unit}${col.utc ? ', UTC' : ''}>`)
    case 'decimal':
      return want(t.typeId === Type.Decimal && t.precision === col.precision && t.scale === col.scale,
        `Decimal(${col.precision}, ${col.scale})`)
  }
  return `unknown type tag ${col.type}`
}

// The Parquet schema element the type tag implies (checked on hyparquet's
// parse of the footer): the logical type, and the legacy converted type
// exactly where LogicalTypes.md gives one (for TIME/TIMESTAMP only when
// adjusted to UTC, in MILLIS or MICROS; none for UUID, FLOAT16, NANOS).
// The Parquet physical type of a column, and the width of its values in
// bytes (undefined for BYTE_ARRAY, 1 bit for BOOLEAN as 1/8).
function physicalOf(col) {
  return {
    boolean: 'BOOLEAN', int8: 'INT32', int16: 'INT32', int32: 'INT32', int64: 'INT64',
    uint8: 'INT32', uint16: 'INT32', uint32: 'INT32', uint64: 'INT64', float: 'FLOAT',
    double: 'DOUBLE', string: 'BYTE_ARRAY', enum: 'BYTE_ARRAY', json: 'BYTE_ARRAY',
    binary: 'BYTE_ARRAY', uuid: 'FIXED_LEN_BYTE_ARRAY', fixed: 'FIXED_LEN_BYTE_ARRAY',
    float16: 'FIXED_LEN_BYTE_ARRAY', date: 'INT32',
    time: col.unit === 'ms' ? 'INT32' : 'INT64', timestamp: 'INT64',
    decimal: { int32: 'INT32', int64: 'INT64', fixed: 'FIXED_LEN_BYTE_ARRAY' }[col.physical],
  }[col.type]
}

function widthOf(col) {
  const p = physicalOf(col)
  if (p === 'INT32' || p === 'FLOAT') return 4
  if (p === 'INT64' || p === 'DOUBLE') return 8
  if (p === 'FIXED_LEN_BYTE_ARRAY') return { uuid: 16, float16: 2 }[col.type] ?? col.width
  return undefined
}

function schemaProblems(col, el) {
  const p = []
  const physical = physicalOf(col)
  if (el.type !== physical) p.push(`physical type ${el.type}, expected ${physical}`)
  const rep = col.nullable ? 'OPTIONAL' : 'REQUIRED'
  if (el.repetition_type !== rep) p.push(`repetition ${el.repetition_type}, expected ${rep}`)
  const width = { uuid: 16, float16: 2, fixed: col.width, decimal: col.physical === 'fixed' ? col.width : undefined }[col.type]
  if (width !== undefined && el.type_length !== width) p.push(`type_length ${el.type_length}, expected ${width}`)
  const lt = el.logical_type
  const ct = el.converted_type
  const unitName = { ms: 'MILLIS', us: 'MICROS', ns: 'NANOS' }[col.unit]
  let wantLogical = null // a predicate on the logical type, or null for none
  let wantConverted // the converted type, or undefined for none
  let describe = ''
  switch (col.type) {
    case 'int8': case 'int16': case 'int32': case 'int64':
    case 'uint8': case 'uint16': case 'uint32': case 'uint64': {
      const bits = Number(col.type.replace(/\D/g, ''))
      const signed = !col.type.startsWith('u')
      describe = `INTEGER(${bits}, ${signed})`
      wantLogical = l => l?.type === 'INTEGER' && l.bitWidth === bits && l.isSigned === signed
      wantConverted = `${signed ? 'INT' : 'UINT'}_${bits}`
      break
    }
    case 'string': describe = 'STRING'; wantLogical = l => l?.type === 'STRING'; wantConverted = 'UTF8'; break
    case 'enum': describe = 'ENUM'; wantLogical = l => l?.type === 'ENUM'; wantConverted = 'ENUM'; break
    case 'json': describe = 'JSON'; wantLogical = l => l?.type === 'JSON'; wantConverted = 'JSON'; break
    case 'uuid': describe = 'UUID'; wantLogical = l => l?.type === 'UUID'; break
    case 'float16': describe = 'FLOAT16'; wantLogical = l => l?.type === 'FLOAT16'; break
    case 'date': describe = 'DATE'; wantLogical = l => l?.type === 'DATE'; wantConverted = 'DATE'; break
    case 'time':
      describe = `TIME(${col.utc}, ${unitName})`
      wantLogical = l => l?.type === 'TIME' && l.isAdjustedToUTC === col.utc && l.unit === unitName
      wantConverted = col.utc && col.unit !== 'ns' ? `TIME_${unitName}` : undefined
      break
    case 'timestamp':
      describe = `TIMESTAMP(${col.utc}, ${unitName})`
      wantLogical = l => l?.type === 'TIMESTAMP' && l.isAdjustedToUTC === col.utc && l.unit === unitName
      wantConverted = col.utc && col.unit !== 'ns' ? `TIMESTAMP_${unitName}` : undefined
      break
    case 'decimal':
      describe = `DECIMAL(${col.precision}, ${col.scale})`
      wantLogical = l => l?.type === 'DECIMAL' && l.precision === col.precision && l.scale === col.scale
      wantConverted = 'DECIMAL'
      if (el.precision !== col.precision || (el.scale ?? 0) !== col.scale)
        p.push(`element precision/scale ${el.precision}/${el.scale}, expected ${col.precision}/${col.scale}`)
      break
    default: // boolean, float, double, binary, fixed: no annotation
      describe = 'no annotation'
      wantLogical = l => l === undefined
      break
  }
  if (!wantLogical(lt)) p.push(`logical type ${JSON.stringify(lt)}, expected ${describe}`)
  if (ct !== wantConverted) p.push(`converted type ${ct ?? 'none'}, expected ${wantConverted ?? 'none'}`)
  return p
}

// ---------------------------------------------------------------------------
// Results

const results = { files: 0, readerPass: 0, readerFail: 0, structPass: 0, structFail: 0 }
let failures = []

class Mismatches {
  constructor(file, reader) {
    this.file = file
    this.reader = reader
    this.count = 0
    this.lines = []
  }
  add(msg) {
    this.count++
    if (this.lines.length < MAX_REPORTS) this.lines.push(msg)
  }
  compare(col, row, expected, actual) {
    if (!sameValue(col, expected, actual))
      this.add(`column ${col.name} (${col.type}) row ${row}: expected ${showValue(col, expected)}, got ${showValue(col, actual)}`)
  }
  finish(kind) {
    if (this.count === 0) {
      if (kind === 'reader') results.readerPass++
      else results.structPass++
      return
    }
    if (kind === 'reader') results.readerFail++
    else results.structFail++
    const more = this.count > this.lines.length ? `\n    ... and ${this.count - this.lines.length} more` : ''
    failures.push(`FAIL ${this.file} [${this.reader}]: ${this.count} problem(s)\n    ${this.lines.join('\n    ')}${more}`)
    process.stderr.write(failures[failures.length - 1] + '\n')
  }
}

// ---------------------------------------------------------------------------
// Reader 1: DuckDB

function duckdbValue(col, type, v) {
  if (v === null || v === undefined) return null
  switch (col.type) {
    case 'boolean': return v
    case 'float': case 'double': case 'float16': return v
    case 'string': case 'enum': case 'json': return v
    case 'binary': case 'fixed': return hex(v.bytes)
    case 'uuid': return v.toString()
    case 'date': return String(v.days)
    case 'time':
      if (type === 'TIME_NS') return { v: v.nanos, unit: 'ns' }
      if (type === 'TIME WITH TIME ZONE') return v.offset === 0 ? { v: v.micros, unit: 'us' } : `offset ${v.offset}`
      return { v: v.micros, unit: 'us' }
    case 'timestamp':
      if (type === 'TIMESTAMP_NS') return { v: v.nanos, unit: 'ns' }
      if (type === 'TIMESTAMP_MS') return { v: v.millis, unit: 'ms' }
      if (type === 'TIMESTAMP_S') return { v: v.seconds, unit: 's' }
      return { v: v.micros, unit: 'us' }
    case 'decimal': return decimalText(BigInt(v.value), v.scale)
    default:
      if (isIntTag(col.type)) return String(v)
  }
  throw new Error(`no DuckDB normaliser for ${col.type}`)
}

// Row-group pruning: DuckDB skips row groups by their min/max statistics when
// a filter is pushed into the scan. The same counts with the filter pushdown
// optimizer disabled (conPlain) must come out equal: a statistic that is
// wrong, or read with another sort order, drops rows that are there.
async function checkDuckdbPruning(con, conPlain, file, spec, types, mm) {
  const src = `read_parquet(${sqlString(file)}, file_row_number = true)`
  const one = async (c, sql) => (await c.runAndReadAll(sql)).getRows()[0]
  const cols = spec.columns.filter(col => !col.all_null && col.type !== 'json')
  if (!cols.length) return
  const quote = col => sqlString(col.name).replaceAll("'", '"')
  const notNaNOf = col => (['float', 'double', 'float16'].includes(col.type) ? `NOT isnan(${quote(col)})` : 'true')
  // per column, in one query: max, min (NaN left out) and a value from the
  // last row group, for an equality filter
  const lastStart = (spec.expect.row_groups - 1) * spec.options.row_group_rows
  const picks = cols.map(col => col.values.findIndex((v, i) => i >= lastStart && v !== null && !['NaN'].includes(v)))
  const row = await one(conPlain, `SELECT ${cols.map((col, j) => {
    const q = quote(col), nn = notNaNOf(col)
    return `(max(${q}) FILTER (WHERE ${nn}))::VARCHAR, (min(${q}) FILTER (WHERE ${nn}))::VARCHAR, ` +
      `(max(${q}) FILTER (WHERE file_row_number = ${picks[j]}))::VARCHAR`
  }).join(', ')} FROM ${src}`)
  const filters = []
  for (const [j, col] of cols.entries()) {
    const [mx, mn, pick] = row.slice(3 * j, 3 * j + 3)
    if (mx === null) continue
    const lits = [[`>=`, mx], [`<=`, mn]]
    if (picks[j] >= 0 && pick !== null) lits.push([`=`, pick])
    // NaN sorts above everything in DuckDB but is never in the statistics
    for (const [op, lit] of lits)
      filters.push({ col, op, lit, cond: `${quote(col)} ${op} CAST(${sqlString(lit)} AS ${types[col.name]}) AND ${notNaNOf(col)}` })
  }
  if (!filters.length) return
  // every count in one query per connection: each branch is its own scan,
  // with the filter pushed into it (con) or not (conPlain)
  const sql = `SELECT i, n FROM (${filters.map((f, i) => `SELECT ${i} AS i, count(*) AS n FROM ${src} WHERE ${f.cond}`).join(' UNION ALL ')}) ORDER BY i`
  const [wantRows, gotRows] = (await Promise.all([conPlain.runAndReadAll(sql), con.runAndReadAll(sql)])).map(r => r.getRows())
  filters.forEach(({ col, op, lit }, i) => {
    const want = wantRows[i]?.[1], got = gotRows[i]?.[1]
    if (got !== want)
      mm.add(`column ${col.name} (${col.type}): WHERE ${col.name} ${op} ${lit} counts ${got} rows with row-group pruning, ${want} without (statistics disagree with the data)`)
    else if (Number(want) === 0)
      mm.add(`column ${col.name} (${col.type}): WHERE ${col.name} ${op} ${lit} matches no row (the test's own literal is off)`)
  })
}

// DuckDB (1.5) reads BYTE_STREAM_SPLIT only for FLOAT and DOUBLE; the
// format has it for INT32, INT64 and FIXED_LEN_BYTE_ARRAY as well (since
// parquet-format 2.11), and arrow-rs and hyparquet read those. Such columns
// are left out of DuckDB's main read; each is read on its own, and must
// either fail with exactly this error or read back correctly.
const DUCKDB_BSS_ERROR = 'BYTE_STREAM_SPLIT encoding is only supported for FLOAT or DOUBLE data'
const duckdbLacks = col =>
  col.encoding === 'byte_stream_split' && !['FLOAT', 'DOUBLE'].includes(physicalOf(col))
const known = { duckdbBss: 0, arrowCodecs: new Map(), hyLz4Empty: 0 }

// Known reader limitation: hyparquet-compressors 1.1.2's LZ4_RAW decoder
// fails on the empty block (the one token byte 0x00, which is what LZ4
// makes of 0 bytes: inlay's dictionary page of an all-null chunk has no
// entries) with "lz4 offset out of range 0". hyparquet gets that block,
// and only that one, decoded here (counted, and reported at the end); every
// other block goes through its own decoder.
const hyCompressors = {
  ...compressors,
  LZ4_RAW: (input, n) => {
    if (n === 0 && input.length === 1 && input[0] === 0) {
      known.hyLz4Empty++
      return new Uint8Array(0)
    }
    return compressors.LZ4_RAW(input, n)
  },
}
const codecsSeen = new Map() // chunks by footer codec, over every file checked

function compareDuckdbColumn(mm, col, type, vals, n) {
  const wantType = duckdbTypeName(col)
  if (type !== wantType) {
    mm.add(`column ${col.name} (${col.type}): DuckDB type ${type}, expected ${wantType}`)
    return
  }
  for (let i = 0; i < n; i++) mm.compare(col, i, col.values[i], duckdbValue(col, type, vals[i]))
}

async function checkDuckdb(con, conPlain, file, spec) {
  const mm = new Mismatches(spec.name, 'duckdb')
  try {
    const quote = n => `"${n.replaceAll('"', '""')}"`
    const readable = spec.columns.filter(c => !duckdbLacks(c))
    const list = [...readable.map(c => quote(c.name)), 'file_row_number'].join(', ')
    const src = `read_parquet(${sqlString(file)}, file_row_number = true)`
    const r = await con.runAndReadAll(`SELECT ${list} FROM ${src} ORDER BY file_row_number`)
    const names = r.columnNames()
    // DESCRIBE names the JSON alias that columnTypes() reports as VARCHAR
    const d = await con.runAndReadAll(`DESCRIBE SELECT * FROM ${src}`)
    const types = names.map(n => d.getRowObjectsJS().find(x => x.column_name === n)?.column_type)
    const cols = r.currentRowCount ? r.getColumns() : names.map(() => [])
    const all = d.getRowObjectsJS().map(x => x.column_name).filter(n => n !== 'file_row_number')
    const want = spec.columns.map(c => c.name)
    if (JSON.stringify(all) !== JSON.stringify(want)) mm.add(`columns ${JSON.stringify(all)}, expected ${JSON.stringify(want)}`)
    if (r.currentRowCount !== spec.rows) mm.add(`row count ${r.currentRowCount}, expected ${spec.rows}`)
    for (const col of spec.columns.filter(duckdbLacks)) {
      try {
        const one = await con.runAndReadAll(`SELECT ${quote(col.name)} FROM ${src} ORDER BY file_row_number`)
        const type = d.getRowObjectsJS().find(x => x.column_name === col.name)?.column_type
        const vals = one.currentRowCount ? one.getColumns()[0] : []
        if (one.currentRowCount !== spec.rows) mm.add(`column ${col.name}: ${one.currentRowCount} rows, expected ${spec.rows}`)
        compareDuckdbColumn(mm, col, type, vals, Math.min(vals.length, spec.rows))
      } catch (err) {
        if (err.message.includes(DUCKDB_BSS_ERROR)) known.duckdbBss++
        else mm.add(`column ${col.name}: read failed: ${err.message}`)
      }
    }
    readable.forEach(col => {
      const k = names.indexOf(col.name)
      if (k < 0) { mm.add(`column ${col.name}: not read`); return }
      compareDuckdbColumn(mm, col, types[k], cols[k], Math.min(cols[k].length, spec.rows))
    })
    if (mm.count === 0)
      await checkDuckdbPruning(con, conPlain, file, { ...spec, columns: readable },
        Object.fromEntries(names.map((n, i) => [n, types[i]])), mm)
  } catch (err) {
    mm.add(`read failed: ${err.message}`)
  }
  mm.finish('reader')
}

// ---------------------------------------------------------------------------
// Reader 2: arrow-rs (parquet-wasm) -> Arrow IPC -> apache-arrow

function arrowValidAt(d, j) {
  if (!d.nullBitmap || d.nullCount === 0) return true
  const k = d.offset + j
  return ((d.nullBitmap[k >> 3] >> (k & 7)) & 1) === 1
}

// Normalised values of one Arrow column, chunk by chunk, from the raw
// buffers for the types whose get() would round or convert.
function arrowValues(col, vector) {
  const out = []
  const t = vector.type
  for (const d of vector.data) {
    for (let j = 0; j < d.length; j++) {
      if (!arrowValidAt(d, j)) { out.push(null); continue }
      const k = d.offset + j
      switch (col.type) {
        case 'date':
          out.push(String(d.values[k]))
          break
        case 'time':
        case 'timestamp':
          out.push({ v: BigInt(d.values[k]), unit: ARROW_UNIT[t.unit] })
          break
        case 'decimal': {
          const words = t.bitWidth / 32
          out.push(decimalText(leWordsSigned(d.values, k * words, words), t.scale))
          break
        }
        default:
          out.push(null) // filled below from get()
      }
    }
  }
  if (['date', 'time', 'timestamp', 'decimal'].includes(col.type)) return out
  for (let i = 0; i < out.length; i++) {
    const v = vector.get(i)
    if (v === null || v === undefined) { out[i] = null; continue }
    switch (col.type) {
      case 'binary': case 'fixed': out[i] = hex(v); break
      case 'uuid': out[i] = uuidText(v); break
      case 'enum': out[i] = typeof v === 'string' ? v : textDecoder.decode(v); break
      default:
        out[i] = isIntTag(col.type) ? String(v) : v
    }
  }
  return out
}

// A parquet-wasm build may leave codecs out (arrow-rs says "Disabled
// feature at compile time: brotli"): a file with such a codec is skipped
// for arrow-rs only, and the run says so. Returns the codec, or null when
// the error is anything else. (The pinned 0.8.0 node build reads them all.)
const ARROW_FEATURE_CODEC = { snap: 'SNAPPY', snappy: 'SNAPPY', flate2: 'GZIP', gzip: 'GZIP', brotli: 'BROTLI', lz4: 'LZ4_RAW', lz4_raw: 'LZ4_RAW', zstd: 'ZSTD' }
function arrowCodecSkip(err, name, codecs) {
  const msg = String(err?.message ?? err)
  const m = msg.match(/Disabled feature at compile time: (\w+)|codec type (\w+) is not supported/i)
  const codec = m && (ARROW_FEATURE_CODEC[(m[1] ?? m[2]).toLowerCase()] ?? (m[1] ?? m[2]).toUpperCase())
  if (!codec || !codecs.has(codec)) return null
  known.arrowCodecs.set(codec, (known.arrowCodecs.get(codec) ?? 0) + 1)
  console.log(`interop: SKIP ${name} [arrow-rs]: the parquet-wasm build lacks ${codec} (${msg})`)
  return codec
}

function checkArrow(bytes, spec, codecs) {
  const mm = new Mismatches(spec.name, 'arrow-rs')
  try {
    const table = readArrow(bytes)
    const names = table.schema.fields.map(f => f.name)
    const want = spec.columns.map(c => c.name)
    if (JSON.stringify(names) !== JSON.stringify(want)) mm.add(`columns ${JSON.stringify(names)}, expected ${JSON.stringify(want)}`)
    if (table.numRows !== spec.rows) mm.add(`row count ${table.numRows}, expected ${spec.rows}`)
    for (const col of spec.columns) {
      const field = table.schema.fields.find(f => f.name === col.name)
      if (!field) continue
      const tp = arrowTypeProblem(col, field.type)
      if (tp) { mm.add(`column ${col.name} (${col.type}): Arrow type ${field.type}, ${tp}`); continue }
      if (field.nullable !== col.nullable) mm.add(`column ${col.name}: Arrow field nullable=${field.nullable}, expected ${col.nullable}`)
      const vals = arrowValues(col, table.getChild(col.name))
      if (vals.length !== spec.rows) mm.add(`column ${col.name}: ${vals.length} values, expected ${spec.rows}`)
      const n = Math.min(vals.length, spec.rows)
      for (let i = 0; i < n; i++) mm.compare(col, i, col.values[i], vals[i])
    }
  } catch (err) {
    if (arrowCodecSkip(err, spec.name, codecs)) return
    mm.add(`read failed: ${err.message ?? err}`)
  }
  mm.finish('reader')
}

// ---------------------------------------------------------------------------
// Reader 3: hyparquet

const textDecoder = new TextDecoder('utf-8', { fatal: true })

// Keep dates, times and timestamps as the stored integers, JSON as its text.
const rawParsers = {
  timestampFromMilliseconds: v => ({ raw: v }),
  timestampFromMicroseconds: v => ({ raw: v }),
  timestampFromNanoseconds: v => ({ raw: v }),
  dateFromDays: v => ({ raw: v }),
  jsonFromBytes: b => (b === undefined || b === null ? b : textDecoder.decode(b)),
}

function hyparquetValue(col, v) {
  if (v === null || v === undefined) return null
  if (v && typeof v === 'object' && 'raw' in v) v = v.raw
  switch (col.type) {
    case 'boolean': return v
    case 'float': case 'double': case 'float16': return typeof v === 'number' ? v : `non-number ${String(v)}`
    case 'string': case 'json': return v
    case 'enum': return typeof v === 'string' ? v : textDecoder.decode(v)
    case 'binary': case 'fixed': return v instanceof Uint8Array ? hex(v) : `non-bytes ${JSON.stringify(v)}`
    case 'uuid': return v
    case 'date': return String(v)
    case 'time': case 'timestamp': return { v: BigInt(v), unit: col.unit }
    case 'decimal': {
      // annotations were stripped before reading: the stored unscaled value
      const unscaled = v instanceof Uint8Array ? beTwosComplement(v) : BigInt(v)
      return decimalText(unscaled, col.scale)
    }
    default:
      if (isIntTag(col.type)) return String(v)
  }
  throw new Error(`no hyparquet normaliser for ${col.type}`)
}

async function checkHyparquet(arrayBuffer, metadata, spec) {
  const mm = new Mismatches(spec.name, 'hyparquet')
  try {
    const leaves = metadata.schema.slice(1)
    const want = spec.columns.map(c => c.name)
    const names = leaves.map(e => e.name)
    if (JSON.stringify(names) !== JSON.stringify(want)) mm.add(`columns ${JSON.stringify(names)}, expected ${JSON.stringify(want)}`)
    if (Number(metadata.num_rows) !== spec.rows) mm.add(`num_rows ${metadata.num_rows}, expected ${spec.rows}`)
    // the schema elements as the footer has them
    for (const col of spec.columns) {
      const el = leaves.find(e => e.name === col.name)
      if (el) for (const p of schemaProblems(col, el)) mm.add(`column ${col.name} (${col.type}): ${p}`)
    }
    // hyparquet turns decimals into JS numbers (inexact): read them raw,
    // with the annotation taken off a copy of the footer
    const decimals = new Set(spec.columns.filter(c => c.type === 'decimal').map(c => c.name))
    const md = {
      ...metadata,
      schema: metadata.schema.map(e => (decimals.has(e.name) ? { ...e, converted_type: undefined, logical_type: undefined } : e)),
    }
    const rows = await hyparquetRows({
      file: arrayBuffer, metadata: md, compressors: hyCompressors, utf8: false, parsers: rawParsers,
      rowFormat: 'array',
    })
    if (rows.length !== spec.rows) mm.add(`row count ${rows.length}, expected ${spec.rows}`)
    spec.columns.forEach(col => {
      const k = names.indexOf(col.name)
      if (k < 0) return
      const n = Math.min(rows.length, spec.rows)
      for (let i = 0; i < n; i++) mm.compare(col, i, col.values[i], hyparquetValue(col, rows[i][k]))
    })
  } catch (err) {
    mm.add(`read failed: ${err.message ?? err}`)
  }
  mm.finish('reader')
}

// ---------------------------------------------------------------------------
// Reader 4: inlay's own reader, through interop_read_dump (read_dump.c)

const READ_DUMP = process.env.INLAY_READ_DUMP
const ALL_READERS = ['duckdb', 'arrow', 'hyparquet', 'inlay']
const READERS = (process.env.INLAY_INTEROP_READERS || ALL_READERS.join(',')).split(',').map(r => r.trim()).filter(r => r)
const runs = r => READERS.includes(r)
// the second read: small batches that cross pages and row groups anywhere,
// the fields selected in reverse order, through inlay_reader_open_stream
const SECOND_READ = ['--batch', '37', '--reverse', '--stream']

// inlay's canonical value, as the comparison of the other readers takes it
// (sameValue): floating point as numbers (a float through Math.fround, as
// its 9 digits name exactly one float), everything else as printed.
function inlayLeaf(t, v) {
  if (v === null || v === undefined) return null
  if (typeof v === 'object') return JSON.stringify(v) // {invalid_utf8}: never equal
  if (['float', 'double', 'float16'].includes(t.type)) {
    let n
    try { n = canonNumber(v) } catch { return `non-number ${JSON.stringify(v)}` }
    return t.type === 'float' ? Math.fround(n) : n
  }
  return v
}

function inlayNested(t, v) {
  if (v === null || v === undefined) return null
  switch (t.type) {
    case 'list': return Array.isArray(v) ? v.map(x => inlayNested(t.element, x)) : `non-list ${bigJSON(v)}`
    case 'struct': {
      if (typeof v !== 'object' || Array.isArray(v)) return `non-struct ${bigJSON(v)}`
      const out = {}
      for (const [name, x] of Object.entries(v)) {
        const f = t.fields.find(y => y.name === name)
        out[name] = f ? inlayNested(f, x) : x
      }
      return out
    }
    case 'map': return Array.isArray(v) ? v.map(([k, x]) => [inlayNested(t.key, k), t.value ? inlayNested(t.value, x) : x]) : `non-map ${bigJSON(v)}`
  }
  return inlayLeaf(t, v)
}

// Files per run of interop_read_dump (see readDumps)
const DUMP_GROUP = 16

// `first` and `second`: the file's two reads by interop_read_dump, as
// readDumps gives them
function checkInlay(spec, first, second) {
  const mm = new Mismatches(spec.name, 'inlay')
  const d = first.dump
  if (first.error) mm.add(first.error)
  else {
    if (d.error) mm.add(`read failed: ${d.error} (${d.status})`)
    for (const p of d.problems ?? []) mm.add(`arrays: ${p}`)
    if (d.num_rows !== spec.rows) mm.add(`the footer's num_rows ${d.num_rows}, expected ${spec.rows}`)
    if (!d.error && d.rows !== spec.rows) mm.add(`row count ${d.rows}, expected ${spec.rows}`)
    const fields = d.fields ?? []
    const want = spec.nested ? spec.fields : spec.columns
    const names = fields.map(f => f.name)
    if (JSON.stringify(names) !== JSON.stringify(want.map(c => c.name))) mm.add(`fields ${JSON.stringify(names)}, expected ${JSON.stringify(want.map(c => c.name))}`)
    for (const col of want) {
      const f = fields.find(x => x.name === col.name)
      if (!f) continue
      const tp = inlayTypeProblem(col, f)
      if (tp) { mm.add(`${spec.nested ? 'field' : 'column'} ${col.name} (${col.type}): inlay ${tp}`); continue }
      if (spec.nested) {
        compareNested(mm, col, f.values.map(v => inlayNested(col, v)))
        continue
      }
      if (f.values.length !== spec.rows && !d.error) mm.add(`column ${col.name}: ${f.values.length} values, expected ${spec.rows}`)
      const n = Math.min(f.values.length, spec.rows)
      for (let i = 0; i < n; i++) mm.compare(col, i, col.values[i], inlayLeaf(col, f.values[i]))
    }
  }
  // the same again in small batches, the fields in reverse order
  if (d && !d.error) {
    const how = `read again with ${SECOND_READ.join(' ')}`
    if (second.error) mm.add(`${how}: ${second.error}`)
    else if (second.dump.error) mm.add(`${how}: read failed: ${second.dump.error} (${second.dump.status})`)
    else {
      for (const p of second.dump.problems ?? []) mm.add(`${how}: arrays: ${p}`)
      const diff = firstDifference(d.fields, second.dump.fields)
      if (diff) mm.add(`${how}: ${diff}`)
    }
  }
  mm.finish('reader')
}

// ---------------------------------------------------------------------------
// Structure: parquet_metadata(), the footer and the page headers

function splitEncodings(s) {
  if (Array.isArray(s)) return s
  return String(s ?? '').split(',').map(x => x.trim()).filter(Boolean)
}

const DICT_ENCODINGS = ['RLE_DICTIONARY', 'PLAIN_DICTIONARY']
const isDict = e => DICT_ENCODINGS.includes(e)

// The encoding policy (inlay.h, inlay_encoding_choice): the encoding of the
// data pages that are not dictionary encoded, by the column's choice and
// physical type. AUTO and DICTIONARY fall back to DELTA_BINARY_PACKED
// (INT32, INT64), DELTA_LENGTH_BYTE_ARRAY (BYTE_ARRAY) or PLAIN.
function valueEncoding(col) {
  const p = physicalOf(col)
  const integer = p === 'INT32' || p === 'INT64'
  switch (col.encoding) {
    case 'plain': return 'PLAIN'
    case 'delta':
      return integer ? 'DELTA_BINARY_PACKED' : p === 'BYTE_ARRAY' ? 'DELTA_LENGTH_BYTE_ARRAY' : 'DELTA_BYTE_ARRAY'
    case 'delta_byte_array': return 'DELTA_BYTE_ARRAY'
    case 'byte_stream_split': return 'BYTE_STREAM_SPLIT'
    case 'rle': return 'RLE'
    case 'auto': case 'dictionary':
      return integer ? 'DELTA_BINARY_PACKED' : p === 'BYTE_ARRAY' ? 'DELTA_LENGTH_BYTE_ARRAY' : 'PLAIN'
  }
  throw new Error(`unknown encoding choice ${col.encoding}`)
}

const dictionaryAllowed = col => physicalOf(col) !== 'BOOLEAN' && (col.encoding === 'auto' || col.encoding === 'dictionary')

// Every page of one column chunk: [{type, encoding, num_values, ...,
// offset (of the body), compressed, uncompressed}].
function walkPages(bytes, meta) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const start = Number(meta.dictionary_page_offset ?? meta.data_page_offset)
  const end = start + Number(meta.total_compressed_size)
  const reader = { view, offset: start }
  const pages = []
  while (reader.offset < end) {
    const headerAt = reader.offset
    const h = parquetHeader(reader)
    const v2 = h.data_page_header_v2
    const dp = h.data_page_header ?? v2
    pages.push({
      type: h.type,
      encoding: h.dictionary_page_header?.encoding ?? dp?.encoding,
      num_values: h.dictionary_page_header?.num_values ?? dp?.num_values,
      num_nulls: v2?.num_nulls,
      num_rows: v2?.num_rows,
      def_bytes: v2?.definition_levels_byte_length,
      rep_bytes: v2?.repetition_levels_byte_length,
      is_compressed: v2?.is_compressed,
      offset: reader.offset,
      header: reader.offset - headerAt,
      compressed: h.compressed_page_size,
      uncompressed: h.uncompressed_page_size,
    })
    reader.offset += h.compressed_page_size
  }
  if (reader.offset !== end) throw new Error(`pages end at ${reader.offset}, chunk ends at ${end}`)
  return pages
}

// ---------------------------------------------------------------------------
// Codecs, independently of inlay and of the readers' own code paths where
// Node has one: GZIP through Node's zlib (gunzipSync), BROTLI through Node's
// brotli (brotliDecompressSync), ZSTD through fzstd (hyparquet-compressors'
// ZSTD), SNAPPY through hysnappy (hyparquet-compressors' SNAPPY) after
// reading the length snappy stores in front, LZ4_RAW through the block
// decoder below (the LZ4 block format, checked as it goes, including its
// end-of-block rules). Every page must come out at exactly the header's
// uncompressed size.

const GAIN_SLACK = 0.02 // how far another build of a codec may differ from inlay's (the rule's reverse check)

// inlay's default min_compression_gain (INLAY_DEFAULT_MIN_GAIN in inlay.h),
// for the JSON files that do not record theirs (the Arrow and text
// fixtures write with the defaults).
const DEFAULT_MIN_GAIN = (() => {
  try {
    const h = fs.readFileSync(new URL('../../runtime/include/inlay.h', import.meta.url), 'utf8')
    const m = h.match(/#define\s+INLAY_DEFAULT_MIN_GAIN\s+([0-9.eE+-]+)/)
    if (m) return Number(m[1])
  } catch { /* the default below */ }
  return 0.03
})()

const minGainOf = spec => spec.options?.min_compression_gain ?? DEFAULT_MIN_GAIN

// The varint in front of a snappy block: the length it decodes to.
function snappyLength(input) {
  let v = 0
  for (let i = 0, shift = 0; i < 5 && i < input.length; i++, shift += 7) {
    v += (input[i] & 0x7f) * 2 ** shift
    if (!(input[i] & 0x80)) return v
  }
  throw new Error('snappy: no valid length in front of the block')
}

// An LZ4 block (the LZ4_RAW codec: no frame, no size) into exactly `size`
// bytes: every sequence within the input and the output, offsets within
// what is decoded, the last sequence literals only, the last 5 bytes
// literals and the last match starting 12 bytes or more before the end.
function lz4RawDecode(src, size) {
  const out = new Uint8Array(size)
  let i = 0, o = 0, lastMatchStart = -1, lastMatchEnd = 0
  const length = n => {
    for (;;) {
      if (i >= src.length) throw new Error('LZ4_RAW: the block ends inside a length')
      const b = src[i++]
      n += b
      if (b !== 255) return n
    }
  }
  for (;;) {
    if (i >= src.length) throw new Error('LZ4_RAW: the block ends without a last sequence of literals')
    const token = src[i++]
    let lit = token >> 4
    if (lit === 15) lit = length(lit)
    if (i + lit > src.length) throw new Error(`LZ4_RAW: ${lit} literals at byte ${i} run past the block (${src.length} bytes)`)
    if (o + lit > size) throw new Error(`LZ4_RAW: decodes to more than the ${size} bytes the header says`)
    out.set(src.subarray(i, i + lit), o)
    i += lit
    o += lit
    if (i === src.length) break // the last sequence: literals only
    if (i + 2 > src.length) throw new Error('LZ4_RAW: the block ends inside a match offset')
    const off = src[i] | (src[i + 1] << 8)
    i += 2
    if (off === 0 || off > o) throw new Error(`LZ4_RAW: match offset ${off} at output byte ${o}`)
    let ml = token & 15
    if (ml === 15) ml = length(ml)
    ml += 4
    if (o + ml > size) throw new Error(`LZ4_RAW: decodes to more than the ${size} bytes the header says`)
    lastMatchStart = o
    for (let k = 0; k < ml; k++, o++) out[o] = out[o - off]
    lastMatchEnd = o
  }
  if (o !== size) throw new Error(`LZ4_RAW: decodes to ${o} bytes, the header says ${size}`)
  if (lastMatchStart >= 0 && (lastMatchStart > size - 12 || lastMatchEnd > size - 5))
    throw new Error(`LZ4_RAW: the last match covers bytes ${lastMatchStart}..${lastMatchEnd} of ${size} (the format wants the last 5 bytes literals and no match starting in the last 12)`)
  return out
}

function gunzipPage(input, size) {
  if (input.length < 18 || input[0] !== 0x1f || input[1] !== 0x8b || input[2] !== 8)
    throw new Error('GZIP: not a gzip member (no 1f 8b 08 header)')
  const isize = new DataView(input.buffer, input.byteOffset + input.length - 4, 4).getUint32(0, true)
  if (isize !== size % 2 ** 32) throw new Error(`GZIP: the member's ISIZE is ${isize}, the header says ${size} (one member, RFC 1952)`)
  return zlib.gunzipSync(input)
}

const DECOMPRESS = {
  UNCOMPRESSED: input => input,
  GZIP: gunzipPage,
  BROTLI: input => zlib.brotliDecompressSync(input),
  ZSTD: (input, size) => compressors.ZSTD(input, size),
  SNAPPY: (input, size) => {
    const n = snappyLength(input)
    if (n !== size) throw new Error(`SNAPPY: the block says ${n} bytes, the header ${size}`)
    return compressors.SNAPPY(input, size)
  },
  LZ4_RAW: lz4RawDecode,
}

function decompress(codec, input, size) {
  const f = DECOMPRESS[codec]
  if (!f) throw new Error(`codec ${codec}: no decompressor here`)
  let out
  try {
    out = f(input, size)
  } catch (err) {
    throw new Error(`${codec} page of ${input.length} bytes: ${err.message}`)
  }
  if (out.length !== size) throw new Error(`${codec}: decompressed ${out.length} bytes, the header says ${size}`)
  return out
}

// The size another build of the codec (Node's) gives at `level`, for the
// reverse of the min_compression_gain rule: what inlay stored raw must not
// shrink much past the gain. Codecs Node has no compressor for are not
// checked this way.
const RECOMPRESS = {
  GZIP: (buf, level) => zlib.gzipSync(buf, { level }).length,
  BROTLI: (buf, level) => zlib.brotliCompressSync(buf, {
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: level, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: buf.length },
  }).length,
}

const pct = (from, to) => `${(100 * (1 - to / from)).toFixed(1)}% saved`

// The chunk's codec: the JSON's "chunk_codecs" where it settles it, else
// the column's codec, or UNCOMPRESSED for a v1 chunk when a gain is asked
// (inlay.h, min_compression_gain); v2 chunks keep their codec. The rule on
// the first data page is checked exactly when the chunk is compressed
// (header included, as inlay weighs it), and the other way round with
// Node's codec when it is not; chunks with a dictionary page are left out
// of both (the dictionary so far counts in the decision).
function chunkCodecProblems(spec, col, g, meta, pages, bytes) {
  const p = []
  const configured = col.codec ?? spec.compression
  const level = col.level ?? spec.compression_level
  const gain = minGainOf(spec)
  const v2 = (spec.options?.page_version ?? 1) === 2
  const got = meta.codec
  const want = col.chunk_codecs?.[g]
  if (want !== undefined && got !== want) p.push(`footer codec ${got}, expected ${want}`)
  if (got !== configured) {
    if (got !== 'UNCOMPRESSED') p.push(`footer codec ${got}, the column's codec is ${configured}`)
    else if (v2) p.push(`stored UNCOMPRESSED with page v2, whose pages decide one by one (is_compressed): the chunk keeps ${configured}`)
    else if (!(gain > 0)) p.push(`stored UNCOMPRESSED, yet min_compression_gain is ${gain} (everything is compressed)`)
  }
  if (v2 || configured === 'UNCOMPRESSED' || !(gain > 0)) return p
  const first = pages.find(pg => pg.type === 'DATA_PAGE')
  if (!first || pages.some(pg => pg.type === 'DICTIONARY_PAGE')) return p
  const raw = first.header + first.uncompressed
  if (got === configured) {
    const stored = first.header + first.compressed
    if (stored > raw * (1 - gain))
      p.push(`${configured} shrinks the first data page (header included) from ${raw} to ${stored} bytes (${pct(raw, stored)}), ` +
        `less than min_compression_gain ${gain}: the chunk should be UNCOMPRESSED`)
  } else if (got === 'UNCOMPRESSED' && RECOMPRESS[configured] && level !== undefined) {
    const stored = first.header + RECOMPRESS[configured](bytes.subarray(first.offset, first.offset + first.compressed), level)
    if (stored <= raw * (1 - gain - GAIN_SLACK))
      p.push(`stored UNCOMPRESSED, yet Node's ${configured} at level ${level} shrinks the first data page from ${raw} to ` +
        `${stored} bytes (${pct(raw, stored)}), past min_compression_gain ${gain}`)
  }
  return p
}

// A v2 page's is_compressed against its chunk's codec and the gain: values
// stored compressed only when that saved at least the gain (and a byte),
// raw ones the same size stored as uncompressed, and (Node's GZIP and
// BROTLI) raw ones that the codec would not have shrunk much past the gain.
function v2PageProblems(pg, codec, gain, level, bytes) {
  const p = []
  const lv = pg.rep_bytes + pg.def_bytes
  const body = pg.uncompressed - lv
  if (codec === 'UNCOMPRESSED' && pg.is_compressed !== false) p.push(`is_compressed ${pg.is_compressed} in a chunk without a codec`)
  if (pg.is_compressed === false && pg.compressed !== pg.uncompressed) p.push(`stored raw, yet ${pg.compressed} bytes stored for ${pg.uncompressed}`)
  if (pg.is_compressed !== false && codec !== 'UNCOMPRESSED') {
    const n = pg.compressed - lv
    if (!(n < body && n <= body * (1 - gain)))
      p.push(`values compressed from ${body} to ${n} bytes (${pct(body, n)}), less than min_compression_gain ${gain}: they should be stored raw (is_compressed = false)`)
  }
  if (pg.is_compressed === false && RECOMPRESS[codec] && level !== undefined && body > 0) {
    const n = RECOMPRESS[codec](bytes.subarray(pg.offset + lv, pg.offset + pg.compressed), level)
    if (n <= body * (1 - gain - GAIN_SLACK))
      p.push(`values stored raw, yet Node's ${codec} at level ${level} shrinks them from ${body} to ${n} bytes (${pct(body, n)}), past min_compression_gain ${gain}`)
  }
  return p
}

// inlay_writer_column_stats, as the JSON recorded it after close, against
// the footer's chunks of the column (metas: one per row group).
function columnStatsProblems(spec, col, metas) {
  const s = col.stats
  if (!s) return []
  const p = []
  const configured = col.codec ?? spec.compression
  const what = 'inlay_writer_column_stats'
  if (s.codec !== configured) p.push(`${what}: codec ${s.codec}, the column's is ${configured}`)
  if (col.level !== undefined && s.level !== col.level) p.push(`${what}: level ${s.level}, expected ${col.level}`)
  if (s.chunks !== metas.length) p.push(`${what}: ${s.chunks} chunks, the file has ${metas.length}`)
  const raw = configured === 'UNCOMPRESSED' ? 0 : metas.filter(m => m.codec === 'UNCOMPRESSED').length
  if (s.chunks_uncompressed !== raw) p.push(`${what}: ${s.chunks_uncompressed} chunks stored uncompressed, the footer has ${raw}`)
  const sum = k => metas.reduce((a, m) => a + Number(m[k]), 0)
  if (s.compressed_bytes !== sum('total_compressed_size')) p.push(`${what}: compressed_bytes ${s.compressed_bytes}, the chunks' total_compressed_size add up to ${sum('total_compressed_size')}`)
  if (s.uncompressed_bytes !== sum('total_uncompressed_size')) p.push(`${what}: uncompressed_bytes ${s.uncompressed_bytes}, the chunks' total_uncompressed_size add up to ${sum('total_uncompressed_size')}`)
  return p
}

// ---------------------------------------------------------------------------
// Page bodies: levels and values as the specification lays them out, read
// independently of the three readers.

// A page's body split into {levels, values} (Uint8Arrays, uncompressed):
// v1 data pages keep 4-byte-length-prefixed definition levels before the
// values, compressed together; v2 pages keep the levels uncompressed, in
// front, and the values compressed unless is_compressed is false.
function pageParts(bytes, page, codec, nullable) {
  const raw = bytes.subarray(page.offset, page.offset + page.compressed)
  if (page.type === 'DATA_PAGE_V2') {
    const lv = page.rep_bytes + page.def_bytes
    const rest = raw.subarray(lv)
    const values = page.is_compressed !== false ? decompress(codec, rest, page.uncompressed - lv) : rest
    return { levels: raw.subarray(page.rep_bytes, lv), values }
  }
  const body = decompress(codec, raw, page.uncompressed)
  if (page.type !== 'DATA_PAGE' || !nullable) return { levels: null, values: body }
  if (body.length < 4) throw new Error('no room for the definition levels\' length')
  const len = new DataView(body.buffer, body.byteOffset, body.byteLength).getUint32(0, true)
  if (4 + len > body.length) throw new Error(`definition levels of ${len} bytes overrun the page`)
  return { levels: body.subarray(4, 4 + len), values: body.subarray(4 + len) }
}

function uleb(buf, at) {
  let v = 0, mul = 1, p = at.p
  for (;;) {
    if (p >= buf.length) throw new Error('varint runs off the end')
    const b = buf[p++]
    v += (b & 0x7f) * mul
    if (!(b & 0x80)) break
    mul *= 128
  }
  at.p = p
  return v
}

function ulebBig(buf, at) {
  let v = 0n, shift = 0n, p = at.p
  for (;;) {
    if (p >= buf.length) throw new Error('varint runs off the end')
    const b = buf[p++]
    v |= BigInt(b & 0x7f) << shift
    if (!(b & 0x80)) break
    shift += 7n
  }
  at.p = p
  return v
}

const unzigzag = v => (v & 1n ? -((v + 1n) >> 1n) : v >> 1n)

// count values of `width` bits, LSB first, from buf at byte p.
function unpackBits(buf, p, count, width, out) {
  if (width === 0) { for (let i = 0; i < count; i++) out.push(0); return }
  for (let i = 0; i < count; i++) {
    let v = 0, bit = i * width
    for (let b = 0; b < width; b++, bit++) if ((buf[p + (bit >> 3)] >> (bit & 7)) & 1) v += 2 ** b
    out.push(v)
  }
}

// The RLE / bit-packed hybrid (without a length prefix) of `count` values of
// `width` bits in buf[from, end). Returns the values and where they end.
function readHybrid(buf, from, end, width, count) {
  const out = []
  const at = { p: from }
  const bw = (width + 7) >> 3
  while (out.length < count) {
    if (at.p >= end) throw new Error(`RLE/bit-packed runs end after ${out.length} of ${count} values`)
    const h = uleb(buf, at)
    if (h % 2) {
      const groups = Math.floor(h / 2)
      if (at.p + groups * width > end) throw new Error('bit-packed run overruns its bytes')
      const vals = []
      unpackBits(buf, at.p, groups * 8, width, vals)
      at.p += groups * width
      for (const v of vals) if (out.length < count) out.push(v)
    } else {
      const n = Math.floor(h / 2)
      if (n === 0) throw new Error('RLE run of length 0')
      if (n > count - out.length) throw new Error(`RLE run of ${n} values, only ${count - out.length} left`)
      if (at.p + bw > end) throw new Error('RLE run value overruns its bytes')
      let v = 0
      for (let b = 0; b < bw; b++) v += buf[at.p + b] * 2 ** (8 * b)
      at.p += bw
      for (let i = 0; i < n; i++) out.push(v)
    }
  }
  return { values: out, end: at.p }
}

// DELTA_BINARY_PACKED in buf from `at.p`, integers of `bits` (32 or 64):
// {values (BigInt, wrapped to the type), widths (of the miniblocks that
// hold values)}; at.p is left after it. Problems found go to `bad`.
function readDeltaBinaryPacked(buf, at, bits, bad) {
  const blockSize = uleb(buf, at), miniblocks = uleb(buf, at), total = uleb(buf, at)
  let value = BigInt.asIntN(bits, unzigzag(ulebBig(buf, at)))
  if (blockSize === 0 || blockSize % 128) bad(`block size ${blockSize} is not a multiple of 128`)
  if (miniblocks === 0 || (blockSize / miniblocks) % 32) bad(`${miniblocks} miniblocks per block of ${blockSize}: not a multiple of 32 values each`)
  if (blockSize === 0 || miniblocks === 0 || (blockSize / miniblocks) % 32) throw new Error('unreadable DELTA_BINARY_PACKED header')
  const perMini = blockSize / miniblocks
  const values = total ? [value] : []
  const widths = []
  let left = total ? total - 1 : 0
  const lo = -(2n ** BigInt(bits - 1)), hi = 2n ** BigInt(bits - 1) - 1n
  while (left > 0) {
    const minDelta = unzigzag(ulebBig(buf, at))
    if (minDelta < lo || minDelta > hi) bad(`min delta ${minDelta} does not fit ${bits} bits`)
    if (at.p + miniblocks > buf.length) throw new Error('miniblock widths run off the end')
    const ws = buf.subarray(at.p, at.p + miniblocks)
    at.p += miniblocks
    const inBlock = Math.min(blockSize, left)
    const used = Math.ceil(inBlock / perMini)
    for (let m = 0; m < miniblocks; m++) {
      const w = ws[m]
      if (m >= used) {
        if (w !== 0) bad(`an unused miniblock's bit width is ${w}, not 0`)
        continue
      }
      if (w > bits) { bad(`miniblock bit width ${w} for ${bits}-bit values`); throw new Error('unreadable miniblock') }
      widths.push(w)
      const n = Math.min(perMini, inBlock - m * perMini)
      if (at.p + (perMini * w) / 8 > buf.length) throw new Error('miniblock runs off the end')
      const raw = []
      if (w <= 30) unpackBits(buf, at.p, n, w, raw)
      else {
        for (let i = 0; i < n; i++) {
          let v = 0n, bit = i * w
          for (let b = 0; b < w; b++, bit++) if ((buf[at.p + (bit >> 3)] >> (bit & 7)) & 1) v |= 1n << BigInt(b)
          raw.push(v)
        }
      }
      for (const d of raw) {
        value = BigInt.asIntN(bits, value + minDelta + BigInt(d))
        values.push(value)
      }
      at.p += (perMini * w) / 8
    }
    left -= inBlock
  }
  return { values, widths }
}

// The stored form of a canonical value, for comparing decoded pages: BigInt
// for integer physical types, bytes for byte arrays, undefined when the
// canonical form does not pin the bytes (float16 NaN payloads).
function storedValue(col, v) {
  const p = physicalOf(col)
  if (p === 'INT32' || p === 'INT64') {
    const n = col.type === 'decimal' ? BigInt(v.replace('.', '')) : BigInt(v)
    return BigInt.asIntN(p === 'INT32' ? 32 : 64, n)
  }
  if (col.type === 'float16') return undefined
  if (col.type === 'decimal') { // FIXED_LEN_BYTE_ARRAY, big-endian two's complement
    let n = BigInt.asUintN(8 * col.width, BigInt(v.replace('.', '')))
    const b = new Uint8Array(col.width)
    for (let i = col.width - 1; i >= 0; i--, n >>= 8n) b[i] = Number(n & 0xffn)
    return b
  }
  return sortKey(col, v).b
}

const sameBytes = (a, b) => a.length === b.length && a.every((x, i) => x === b[i])

// Check the values section of one data page (n non-null values, `expected`
// their canonical forms) against its encoding; note features seen.
function checkValues(col, enc, buf, n, expected, dictSize, feats, bad) {
  const p = physicalOf(col)
  const width = widthOf(col)
  const compare = (decoded, what) => {
    for (let i = 0; i < n; i++) {
      const want = storedValue(col, expected[i])
      if (want === undefined) continue
      const got = decoded[i]
      const same = typeof want === 'bigint' ? got === want : sameBytes(got, want)
      if (!same) { bad(`${what} value ${i} of the page decodes to ${typeof got === 'bigint' ? got : '0x' + hex(got)}, expected ${expected[i]}`); return }
    }
  }
  switch (enc) {
    case 'PLAIN':
      if (p === 'BOOLEAN') { if (buf.length !== Math.ceil(n / 8)) bad(`PLAIN booleans: ${buf.length} bytes for ${n} values`); return }
      if (p !== 'BYTE_ARRAY') { if (buf.length !== n * width) bad(`PLAIN: ${buf.length} bytes for ${n} values of ${width}`); return }
      {
        const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength)
        let at = 0
        for (let i = 0; i < n; i++) {
          if (at + 4 > buf.length) { bad(`PLAIN byte arrays end after ${i} of ${n} values`); return }
          at += 4 + dv.getUint32(at, true)
        }
        if (at !== buf.length) bad(`PLAIN byte arrays: ${n} values take ${at} bytes, the section has ${buf.length}`)
      }
      return
    case 'BYTE_STREAM_SPLIT':
      if (buf.length !== n * width) bad(`BYTE_STREAM_SPLIT: ${buf.length} bytes for ${n} values of ${width}`)
      return
    case 'RLE': { // booleans: 4-byte length, then the hybrid at width 1
      if (buf.length < 4) { bad('RLE booleans without their length'); return }
      const len = new DataView(buf.buffer, buf.byteOffset, buf.byteLength).getUint32(0, true)
      if (4 + len !== buf.length) bad(`RLE booleans: length prefix ${len}, the section has ${buf.length - 4} bytes after it`)
      const r = readHybrid(buf, 4, Math.min(buf.length, 4 + len), 1, n)
      if (r.end !== 4 + len) bad(`RLE booleans: the runs end at ${r.end - 4} of ${len} bytes`)
      for (let i = 0; i < n; i++)
        if ((r.values[i] === 1) !== expected[i]) { bad(`RLE boolean ${i} of the page is ${r.values[i] === 1}, expected ${expected[i]}`); break }
      return
    }
    case 'RLE_DICTIONARY': case 'PLAIN_DICTIONARY': {
      if (buf.length < 1) { bad('dictionary indices without their bit width'); return }
      const w = buf[0]
      if (w > 32) { bad(`dictionary index bit width ${w}`); return }
      if (n === 0) return
      const r = readHybrid(buf, 1, buf.length, w, n)
      if (r.end !== buf.length) bad(`dictionary indices end at byte ${r.end} of ${buf.length}`)
      const max = r.values.reduce((a, v) => (v > a ? v : a), 0)
      if (max >= dictSize) bad(`dictionary index ${max}, the dictionary holds ${dictSize}`)
      return
    }
    case 'DELTA_BINARY_PACKED': {
      const at = { p: 0 }
      const bits = p === 'INT32' ? 32 : 64
      const r = readDeltaBinaryPacked(buf, at, bits, bad)
      if (r.values.length !== n) bad(`DELTA_BINARY_PACKED holds ${r.values.length} values, the page ${n}`)
      if (at.p !== buf.length) bad(`DELTA_BINARY_PACKED ends at byte ${at.p} of ${buf.length}`)
      if (r.widths.includes(0)) feats.add('dbp_width0')
      if (r.widths.includes(bits)) feats.add('dbp_full_width')
      compare(r.values, 'DELTA_BINARY_PACKED')
      return
    }
    case 'DELTA_LENGTH_BYTE_ARRAY': {
      const at = { p: 0 }
      const lens = readDeltaBinaryPacked(buf, at, 32, bad).values
      if (lens.length !== n) bad(`DELTA_LENGTH_BYTE_ARRAY: ${lens.length} lengths, the page holds ${n} values`)
      const total = lens.reduce((a, l) => a + Number(l), 0)
      if (lens.some(l => l < 0n)) bad('DELTA_LENGTH_BYTE_ARRAY: a negative length')
      if (at.p + total !== buf.length) { bad(`DELTA_LENGTH_BYTE_ARRAY: lengths add up to ${total}, ${buf.length - at.p} bytes follow them`); return }
      const vals = []
      for (const l of lens) { vals.push(buf.subarray(at.p, at.p + Number(l))); at.p += Number(l) }
      compare(vals, 'DELTA_LENGTH_BYTE_ARRAY')
      return
    }
    case 'DELTA_BYTE_ARRAY': {
      const at = { p: 0 }
      const pre = readDeltaBinaryPacked(buf, at, 32, bad).values
      const suf = readDeltaBinaryPacked(buf, at, 32, bad).values
      if (pre.length !== n || suf.length !== n) bad(`DELTA_BYTE_ARRAY: ${pre.length} prefix and ${suf.length} suffix lengths, the page holds ${n} values`)
      const total = suf.reduce((a, l) => a + Number(l), 0)
      if (at.p + total !== buf.length) { bad(`DELTA_BYTE_ARRAY: suffixes add up to ${total}, ${buf.length - at.p} bytes follow them`); return }
      const vals = []
      let prev = new Uint8Array(0)
      for (let i = 0; i < Math.min(n, pre.length, suf.length); i++) {
        const k = Number(pre[i]), s = Number(suf[i])
        if (k < 0 || s < 0 || k > prev.length) { bad(`DELTA_BYTE_ARRAY value ${i}: prefix ${k} of a previous value of ${prev.length} bytes, suffix ${s}`); return }
        if (i > 0 && k === 0) feats.add('dba_prefix0')
        if (i > 0 && k > 0 && k === prev.length) feats.add('dba_prefix_full')
        const v = new Uint8Array(k + s)
        v.set(prev.subarray(0, k))
        v.set(buf.subarray(at.p, at.p + s), k)
        at.p += s
        if (width !== undefined && v.length !== width) { bad(`DELTA_BYTE_ARRAY value ${i} has ${v.length} bytes, the column ${width}`); return }
        vals.push(v)
        prev = v
      }
      compare(vals, 'DELTA_BYTE_ARRAY')
      return
    }
  }
  bad(`no check for ${enc} pages`)
}

// A dictionary page: num_values PLAIN entries, exactly.
function checkDictionary(col, buf, count, bad) {
  const p = physicalOf(col)
  if (p !== 'BYTE_ARRAY') {
    if (buf.length !== count * widthOf(col)) bad(`dictionary page: ${buf.length} bytes for ${count} entries of ${widthOf(col)}`)
    return
  }
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength)
  let at = 0
  for (let i = 0; i < count; i++) {
    if (at + 4 > buf.length) { bad(`dictionary page ends after ${i} of ${count} entries`); return }
    at += 4 + dv.getUint32(at, true)
  }
  if (at !== buf.length) bad(`dictionary page: ${count} entries take ${at} bytes of ${buf.length}`)
}

// The pages of one chunk against the values it holds (rows [first,
// first + rows) of the column): page types and v2 header fields, the
// definition levels, and each values section. Returns nothing; problems go
// to `bad`, features seen to `feats`.
function checkPages(spec, col, codec, bytes, pages, first, rows, feats, bad) {
  const v2 = (spec.options.page_version ?? 1) === 2
  const gain = minGainOf(spec)
  const level = col.level ?? spec.compression_level
  const wantType = v2 ? 'DATA_PAGE_V2' : 'DATA_PAGE'
  const dict = pages.find(pg => pg.type === 'DICTIONARY_PAGE')
  if (dict) {
    if (dict.encoding !== 'PLAIN' && dict.encoding !== 'PLAIN_DICTIONARY') bad(`dictionary page encoded ${dict.encoding}`)
    try {
      checkDictionary(col, decompress(codec, bytes.subarray(dict.offset, dict.offset + dict.compressed), dict.uncompressed), dict.num_values, bad)
    } catch (err) { bad(`dictionary page: ${err.message}`) }
  }
  let row = first
  pages.forEach((pg, k) => {
    if (pg.type === 'DICTIONARY_PAGE') return
    const at = `page ${k} (rows ${row - first}..${row - first + pg.num_values} of the chunk)`
    if (pg.type !== wantType) bad(`${at}: a ${pg.type}, expected ${wantType} (page_version ${v2 ? 2 : 1})`)
    const slice = col.values.slice(row, row + pg.num_values)
    row += pg.num_values
    const present = slice.filter(v => v !== null)
    const nulls = slice.length - present.length
    if (pg.type === 'DATA_PAGE_V2') {
      if (pg.num_rows !== pg.num_values) bad(`${at}: num_rows ${pg.num_rows}, num_values ${pg.num_values} (a flat column)`)
      if (pg.num_nulls !== nulls) bad(`${at}: num_nulls ${pg.num_nulls}, expected ${nulls}`)
      if (pg.rep_bytes !== 0) bad(`${at}: repetition_levels_byte_length ${pg.rep_bytes} in a flat column`)
      if (!col.nullable && pg.def_bytes !== 0) bad(`${at}: definition_levels_byte_length ${pg.def_bytes} in a required column`)
      if (col.nullable && !(pg.def_bytes > 0)) bad(`${at}: definition_levels_byte_length ${pg.def_bytes} in an optional column`)
      for (const m of v2PageProblems(pg, codec, gain, level, bytes)) bad(`${at}: ${m}`)
    }
    let parts
    try {
      parts = pageParts(bytes, pg, codec, col.nullable)
    } catch (err) { bad(`${at}: ${err.message}`); return }
    if (col.nullable) {
      try {
        const r = readHybrid(parts.levels, 0, parts.levels.length, 1, pg.num_values)
        if (r.end !== parts.levels.length) bad(`${at}: definition levels end at byte ${r.end} of ${parts.levels.length}`)
        const i = r.values.findIndex((d, j) => d !== (slice[j] === null ? 0 : 1))
        if (i >= 0) bad(`${at}: definition level ${r.values[i]} for row ${i} of the page, which is ${slice[i] === null ? 'null' : 'not null'}`)
      } catch (err) { bad(`${at}: definition levels: ${err.message}`) }
    }
    try {
      checkValues(col, pg.encoding, parts.values, present.length, present, dict?.num_values ?? 0, feats, m => bad(`${at}: ${m}`))
    } catch (err) { bad(`${at}: ${pg.encoding} values: ${err.message}`) }
  })
  if (row !== first + rows) bad(`the data pages hold ${row - first} rows, the chunk ${rows}`)
}

const utf8 = new TextEncoder()

// A canonical value as something ordered by the column's sort order:
// {n: BigInt} signed/unsigned integers and decimals, {f: number} floats,
// {b: Uint8Array} bytes (unsigned lexicographic), {t: boolean}.
function sortKey(col, v) {
  switch (col.type) {
    case 'boolean': return { t: v }
    case 'float': return { f: Math.fround(canonNumber(v)) }
    case 'double': case 'float16': return { f: canonNumber(v) }
    case 'string': case 'enum': case 'json': return { b: utf8.encode(v) }
    case 'binary': case 'fixed': return { b: hexBytes(v) }
    case 'uuid': return { b: hexBytes(v.replaceAll('-', '')) }
    case 'decimal': return { n: BigInt(v.replace('.', '')) }
    default: return { n: BigInt(v) } // integers, date, time, timestamp
  }
}

function cmpKey(a, b) {
  if ('n' in a) return a.n < b.n ? -1 : a.n > b.n ? 1 : 0
  if ('f' in a) return a.f < b.f ? -1 : a.f > b.f ? 1 : 0
  if ('t' in a) return Number(a.t) - Number(b.t)
  const n = Math.min(a.b.length, b.b.length)
  for (let i = 0; i < n; i++) if (a.b[i] !== b.b[i]) return a.b[i] - b.b[i]
  return a.b.length - b.b.length
}

function showKey(k) {
  if ('n' in k) return String(k.n)
  if ('f' in k) return showNumber(k.f)
  if ('t' in k) return String(k.t)
  return `0x${hex(k.b)}`
}

// A statistics value (plain-encoded bytes) as a sort key.
function statKey(col, raw) {
  const v = new DataView(raw.buffer, raw.byteOffset, raw.byteLength)
  const need = n => { if (raw.length !== n) throw new Error(`statistics value of ${raw.length} bytes, expected ${n}`) }
  switch (col.type) {
    case 'boolean': need(1); return { t: raw[0] === 1 }
    case 'float': need(4); return { f: v.getFloat32(0, true) }
    case 'double': need(8); return { f: v.getFloat64(0, true) }
    case 'float16': {
      need(2)
      const h = raw[0] | (raw[1] << 8), e = (h >> 10) & 31, m = h & 1023
      const mag = e === 0 ? m * 2 ** -24 : e === 31 ? (m ? NaN : Infinity) : (m + 1024) * 2 ** (e - 25)
      return { f: h & 0x8000 ? -mag : mag }
    }
    case 'string': case 'enum': case 'json': case 'binary': case 'fixed': case 'uuid':
      return { b: raw }
    case 'decimal':
      if (col.physical === 'fixed') { need(col.width); return { n: beTwosComplement(raw) } }
      if (col.physical === 'int32') { need(4); return { n: BigInt(v.getInt32(0, true)) } }
      need(8); return { n: v.getBigInt64(0, true) }
  }
  const unsigned = col.type.startsWith('uint')
  if (col.type === 'int64' || col.type === 'uint64' || col.type === 'timestamp' || (col.type === 'time' && col.unit !== 'ms')) {
    need(8)
    return { n: unsigned ? v.getBigUint64(0, true) : v.getBigInt64(0, true) }
  }
  need(4)
  return { n: BigInt(unsigned ? v.getUint32(0, true) : v.getInt32(0, true)) }
}

// Statistics of one chunk against the values it holds: null_count, and
// min_value/max_value by the column's sort order (signed, unsigned,
// bytewise), exact unless flagged inexact, never NaN, -0/+0 for zero
// extremes, absent when the chunk holds no non-null (non-NaN) value.
function statsProblems(col, rawStats, values) {
  const p = []
  let min = null, max = null
  for (const v of values) {
    if (v === null) continue
    const k = sortKey(col, v)
    if ('f' in k && Number.isNaN(k.f)) continue
    if (min === null || cmpKey(k, min) < 0) min = k
    if (max === null || cmpKey(k, max) > 0) max = k
  }
  if (!rawStats) return ['no statistics']
  if (rawStats.field_1 !== undefined || rawStats.field_2 !== undefined) {
    // the deprecated min/max are signed-order only
    const signed = ['int8', 'int16', 'int32', 'int64', 'float', 'double', 'date', 'time', 'timestamp', 'boolean'].includes(col.type) ||
      (col.type === 'decimal' && col.physical !== 'fixed')
    if (!signed) p.push('deprecated min/max written for a column without signed sort order')
  }
  const smin = rawStats.field_6, smax = rawStats.field_5
  if (min === null) {
    if (smin !== undefined || smax !== undefined) p.push('min_value/max_value written for a chunk with no non-null, non-NaN value')
    return p
  }
  if (smin === undefined || smax === undefined) return [...p, 'no min_value/max_value']
  const kmin = statKey(col, smin), kmax = statKey(col, smax)
  for (const [name, k] of [['min_value', kmin], ['max_value', kmax]])
    if ('f' in k && Number.isNaN(k.f)) p.push(`${name} is NaN`)
  const exactMin = rawStats.field_8 !== false, exactMax = rawStats.field_7 !== false
  if (exactMin ? cmpKey(kmin, min) !== 0 : cmpKey(kmin, min) > 0) p.push(`min_value ${showKey(kmin)}, expected ${exactMin ? '' : '<= '}${showKey(min)}`)
  if (exactMax ? cmpKey(kmax, max) !== 0 : cmpKey(kmax, max) < 0) p.push(`max_value ${showKey(kmax)}, expected ${exactMax ? '' : '>= '}${showKey(max)}`)
  // parquet.thrift: a zero min is written as -0.0, a zero max as +0.0
  if ('f' in kmin && kmin.f === 0 && !Object.is(kmin.f, -0)) p.push('min_value is +0.0; a zero minimum is written as -0.0')
  if ('f' in kmax && kmax.f === 0 && !Object.is(kmax.f, 0)) p.push('max_value is -0.0; a zero maximum is written as +0.0')
  return p
}

async function checkStructure(con, file, bytes, metadata, spec) {
  const mm = new Mismatches(spec.name, 'structure')
  try {
    // the file and the footer
    if (bytes.length !== spec.writer.bytes) mm.add(`file has ${bytes.length} bytes, the writer reported ${spec.writer.bytes}`)
    if (spec.writer.rows !== spec.rows) mm.add(`writer reported ${spec.writer.rows} rows, expected ${spec.rows}`)
    if (metadata.created_by !== spec.created_by) mm.add(`created_by ${JSON.stringify(metadata.created_by)}, expected ${JSON.stringify(spec.created_by)}`)
    const rgs = metadata.row_groups
    if (rgs.length !== spec.expect.row_groups) mm.add(`${rgs.length} row groups, expected ${spec.expect.row_groups}`)
    if (spec.writer.row_groups !== rgs.length) mm.add(`writer reported ${spec.writer.row_groups} row groups, file has ${rgs.length}`)
    let sum = 0
    rgs.forEach((rg, g) => {
      const n = Number(rg.num_rows)
      const want = Math.min(spec.options.row_group_rows, spec.rows - sum)
      if (n !== want) mm.add(`row group ${g} has ${n} rows, expected ${want}`)
      sum += n
    })

    // key-value metadata, as hyparquet and DuckDB see it
    const kvWant = spec.key_value_metadata ?? {}
    const kvHy = Object.fromEntries((metadata.key_value_metadata ?? []).map(kv => [kv.key, kv.value ?? '']))
    if (JSON.stringify(kvHy) !== JSON.stringify(kvWant)) mm.add(`key_value_metadata (hyparquet) ${JSON.stringify(kvHy)}, expected ${JSON.stringify(kvWant)}`)
    if (Object.keys(kvWant).length) {
      const r = await con.runAndReadAll(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(${sqlString(file)})`)
      const kvDuck = Object.fromEntries(r.getRows().map(([k, v]) => [k, v ?? '']))
      if (JSON.stringify(kvDuck) !== JSON.stringify(kvWant)) mm.add(`key_value_metadata (duckdb) ${JSON.stringify(kvDuck)}, expected ${JSON.stringify(kvWant)}`)
    }

    // DuckDB's parquet_metadata(): compression and encodings per chunk
    const r = await con.runAndReadAll(
      `SELECT row_group_id, column_id, path_in_schema, compression, encodings, num_values, stats_null_count
       FROM parquet_metadata(${sqlString(file)}) ORDER BY row_group_id, column_id`)
    const chunks = r.getRowObjectsJS()
    if (chunks.length !== rgs.length * spec.columns.length) mm.add(`parquet_metadata lists ${chunks.length} chunks, expected ${rgs.length * spec.columns.length}`)
    const byColumn = new Map(spec.columns.map(c => [c.name, []]))
    for (const ch of chunks) {
      const col = spec.columns[Number(ch.column_id)]
      if (!col || ch.path_in_schema !== col.name) { mm.add(`parquet_metadata column ${ch.column_id} is ${ch.path_in_schema}`); continue }
      byColumn.get(col.name).push(ch)
      const footerCodec = rgs[Number(ch.row_group_id)]?.columns[Number(ch.column_id)]?.meta_data?.codec
      if (ch.compression !== footerCodec)
        mm.add(`row group ${ch.row_group_id} column ${col.name}: parquet_metadata compression ${ch.compression}, the footer (hyparquet) ${footerCodec}`)
    }
    // the encodings DuckDB lists per chunk: the chosen value encoding where
    // the column's data calls for it (col.pages, see fixtures.c)
    for (const col of spec.columns) {
      const list = byColumn.get(col.name)
      const encs = list.map(ch => splitEncodings(ch.encodings))
      const rg = g => `row group ${list[g].row_group_id} column ${col.name}`
      const venc = valueEncoding(col)
      if (col.pages === 'dictionary')
        encs.forEach((e, g) => { if (!e.some(isDict)) mm.add(`${rg(g)}: encodings [${e}] lack RLE_DICTIONARY (dictionary data)`) })
      if (col.pages === 'value')
        encs.forEach((e, g) => {
          if (e.some(isDict)) mm.add(`${rg(g)}: encodings [${e}] include a dictionary encoding (${col.encoding} column)`)
          if (!e.includes(venc)) mm.add(`${rg(g)}: encodings [${e}] lack ${venc} (${col.encoding} column)`)
        })
      if (col.pages === 'fallback' && encs.length && !encs.some(e => e.some(isDict) && e.includes(venc)))
        mm.add(`column ${col.name}: no chunk lists both RLE_DICTIONARY and ${venc} (fallback data): ${JSON.stringify(encs)}`)
    }

    // footer column metadata and page headers, chunk by chunk
    const raw = rawFooter(bytes).footer
    if (spec.columns.length && (raw.field_7 ?? []).length !== spec.columns.length)
      mm.add(`column_orders has ${(raw.field_7 ?? []).length} entries, expected ${spec.columns.length} (min_value/max_value need them)`)
    const fallbackSeen = new Map()
    const featuresSeen = new Map(spec.columns.map(c => [c.name, new Set()]))
    const rawPages = new Map(spec.columns.map(c => [c.name, 0])) // v2 pages stored raw, with values
    const packedPages = new Map(spec.columns.map(c => [c.name, 0])) // v2 pages stored compressed
    rgs.forEach((rgMeta, g) => {
      const rgRows = Number(rgMeta.num_rows)
      const rgStart = g * spec.options.row_group_rows
      rgMeta.columns.forEach((cc, ci) => {
        const col = spec.columns[ci]
        if (!col) return
        const meta = cc.meta_data
        const where = `row group ${g} column ${col.name}`
        if (Number(meta.num_values) !== rgRows) mm.add(`${where}: num_values ${meta.num_values}, expected ${rgRows}`)
        // null count
        let nulls = 0
        for (let i = rgStart; i < rgStart + rgRows && i < spec.rows; i++) if (col.values[i] === null) nulls++
        const st = meta.statistics
        if (!st || st.null_count === undefined) mm.add(`${where}: no null_count in the statistics`)
        else if (Number(st.null_count) !== nulls) mm.add(`${where}: statistics null_count ${st.null_count}, expected ${nulls}`)
        const rawStats = raw.field_4?.[g]?.field_1?.[ci]?.field_3?.field_12
        for (const sp of statsProblems(col, rawStats, col.values.slice(rgStart, rgStart + rgRows)))
          mm.add(`${where}: statistics: ${sp}`)
        const duckChunk = byColumn.get(col.name)?.[g]
        if (duckChunk && duckChunk.stats_null_count !== null && Number(duckChunk.stats_null_count) !== nulls)
          mm.add(`${where}: parquet_metadata stats_null_count ${duckChunk.stats_null_count}, expected ${nulls}`)

        const pages = walkPages(bytes, meta)
        for (const m of chunkCodecProblems(spec, col, g, meta, pages, bytes)) mm.add(`${where}: ${m}`)
        codecsSeen.set(meta.codec, (codecsSeen.get(meta.codec) ?? 0) + 1)
        const dictPages = pages.filter(p => p.type === 'DICTIONARY_PAGE')
        const dataPages = pages.filter(p => p.type === 'DATA_PAGE' || p.type === 'DATA_PAGE_V2')
        if (dictPages.length > 1) mm.add(`${where}: ${dictPages.length} dictionary pages`)
        if (dictPages.length === 1 && pages[0].type !== 'DICTIONARY_PAGE') mm.add(`${where}: the dictionary page is not first`)
        if (dictPages.length === 1 && meta.dictionary_page_offset === undefined) mm.add(`${where}: dictionary page but no dictionary_page_offset`)
        const nv = dataPages.reduce((a, p) => a + p.num_values, 0)
        if (nv !== rgRows) mm.add(`${where}: data pages hold ${nv} values, expected ${rgRows}`)
        // the chunk's encodings: exactly those of its pages, and RLE for the
        // levels of an optional column; DuckDB lists the same
        const footerEnc = meta.encodings ?? []
        const wantEnc = new Set(pages.map(p => p.encoding))
        if (col.nullable) wantEnc.add('RLE')
        const sortedSet = x => JSON.stringify([...new Set(x)].sort())
        if (sortedSet(footerEnc) !== sortedSet(wantEnc) || footerEnc.length !== new Set(footerEnc).size)
          mm.add(`${where}: the chunk's encodings are [${footerEnc}], its pages (and levels) use [${[...wantEnc]}]`)
        if (duckChunk && sortedSet(splitEncodings(duckChunk.encodings)) !== sortedSet(footerEnc))
          mm.add(`${where}: parquet_metadata encodings [${splitEncodings(duckChunk.encodings)}], the footer [${footerEnc}]`)
        // encoding_stats: one entry per page type and encoding, counting the
        // pages actually present
        if (!meta.encoding_stats) mm.add(`${where}: no encoding_stats`)
        else {
          const counted = new Map()
          for (const pg of pages) {
            const key = `${pg.type}/${pg.encoding}`
            counted.set(key, (counted.get(key) ?? 0) + 1)
          }
          const listed = new Map()
          for (const es of meta.encoding_stats) {
            const key = `${es.page_type}/${es.encoding}`
            if (listed.has(key)) mm.add(`${where}: encoding_stats lists ${key} twice`)
            listed.set(key, Number(es.count))
          }
          const a = JSON.stringify([...counted].sort()), b = JSON.stringify([...listed].sort())
          if (a !== b) mm.add(`${where}: encoding_stats ${b}, the pages are ${a}`)
        }
        if (meta.codec === 'UNCOMPRESSED')
          for (const p of pages) if (p.compressed !== p.uncompressed) { mm.add(`${where}: uncompressed page with compressed size ${p.compressed} != ${p.uncompressed}`); break }
        // several pages where the options call for them
        const pr = spec.options.page_rows
        if (rgRows > 2 * pr && dataPages.length < 2) mm.add(`${where}: ${rgRows} rows in ${dataPages.length} data page(s), page_rows ${pr}`)
        for (const p of dataPages)
          if (p.num_values > pr) { mm.add(`${where}: a data page holds ${p.num_values} values, page_rows is ${pr}`); break }
        for (const p of dataPages) {
          if (p.is_compressed === false && p.num_nulls < p.num_values) rawPages.set(col.name, rawPages.get(col.name) + 1)
          if (p.is_compressed === true) packedPages.set(col.name, packedPages.get(col.name) + 1)
        }

        // page headers, levels and values sections, page by page
        const pageProblems = []
        checkPages(spec, col, meta.codec, bytes, pages, rgStart, rgRows, featuresSeen.get(col.name), m => pageProblems.push(m))
        pageProblems.slice(0, 3).forEach(m => mm.add(`${where}: ${m}`))
        if (pageProblems.length > 3) mm.add(`${where}: ... and ${pageProblems.length - 3} more page problems`)

        // data page encodings under the policy: dictionary-encoded pages
        // first (with the chunk's one dictionary page), then the value
        // encoding of the column's choice and type, never back
        const encs = dataPages.map(p => p.encoding)
        const venc = valueEncoding(col)
        const dictOk = dictionaryAllowed(col)
        const stray = [...new Set(encs.filter(e => e !== venc && !(dictOk && isDict(e))))]
        if (stray.length) mm.add(`${where}: data pages encoded [${stray}]; encoding choice ${col.encoding} on ${physicalOf(col)} gives ${dictOk ? 'RLE_DICTIONARY and ' : ''}${venc} only`)
        const firstValue = encs.indexOf(venc)
        if (firstValue >= 0 && encs.slice(firstValue).some(isDict)) mm.add(`${where}: a dictionary-encoded page after a ${venc} page`)
        if (encs.some(isDict) !== (dictPages.length === 1)) mm.add(`${where}: ${dictPages.length} dictionary page(s) with data pages [${[...new Set(encs)]}]`)
        if (col.pages === 'dictionary') {
          if (dictPages.length !== 1) mm.add(`${where}: no dictionary page (dictionary data)`)
          if (!encs.every(isDict)) mm.add(`${where}: data page encodings [${[...new Set(encs)]}] (dictionary data)`)
        }
        if (col.pages === 'value') {
          if (dictPages.length) mm.add(`${where}: a dictionary page (${col.encoding} column)`)
          if (!encs.every(e => e === venc)) mm.add(`${where}: data page encodings [${[...new Set(encs)]}], expected ${venc} (${col.encoding} column)`)
        }
        if (col.pages === 'fallback' && dictPages.length && firstValue > 0 && isDict(encs[0])) fallbackSeen.set(col.name, true)
      })
    })
    for (const col of spec.columns) {
      if (col.pages === 'fallback' && !fallbackSeen.get(col.name))
        mm.add(`column ${col.name}: no chunk falls back from RLE_DICTIONARY pages to ${valueEncoding(col)} pages mid-chunk (fallback data)`)
      // page contents the column was built to produce (fixtures.c)
      for (const f of col.features ?? [])
        if (!featuresSeen.get(col.name).has(f)) mm.add(`column ${col.name}: no page shows ${f} (the data is built for it)`)
      // no codec can shrink these pages: with page v2 some are stored raw;
      // and text every codec shrinks is stored compressed
      const codecV2 = (col.codec ?? spec.compression) !== 'UNCOMPRESSED' && spec.options.page_version === 2
      if (col.incompressible && codecV2 && rawPages.get(col.name) === 0)
        mm.add(`column ${col.name}: random bits, yet no v2 page with values is stored raw (is_compressed = false)`)
      if (col.compressible && codecV2 && packedPages.get(col.name) === 0)
        mm.add(`column ${col.name}: repetitive text, yet no v2 page is stored compressed`)
      for (const m of columnStatsProblems(spec, col, rgs.map(rg => rg.columns[spec.columns.indexOf(col)]?.meta_data).filter(Boolean)))
        mm.add(`column ${col.name}: ${m}`)
    }
  } catch (err) {
    mm.add(`structure check failed: ${err.stack ?? err}`)
  }
  mm.finish('structure')
}

// ---------------------------------------------------------------------------
// Nested files ("nested": true in the JSON, see fixtures.c): lists, structs
// and maps whose leaves were written with explicit definition and
// repetition levels, or appended as Arrow arrays through
// inlay_writer_append_array (shred__*). "fields" describe each top-level
// field as a type tree ({type: 'list', element}, {type: 'struct', fields},
// {type: 'map', key, value}, or a leaf type tag; each with `nullable`; a
// struct's fields may be structs too) and hold its values
// (a list as an array, a struct as an object, a map as [key, value] pairs,
// leaves canonical as in flat files). Each reader's values are brought to
// that shape and compared tree by tree; the structure check compares the
// footer's schema elements with the LIST/MAP 3-level forms the tree
// implies, and each leaf chunk's level entries, nulls and pages with what
// fixtures.c wrote ("leaves").

// Does the reader's value `a` (brought to the canonical shape) equal `e`?
function sameNested(t, e, a) {
  if (e === null || a === null || a === undefined) return e === a
  switch (t.type) {
    case 'list':
      return Array.isArray(a) && a.length === e.length && e.every((x, i) => sameNested(t.element, x, a[i]))
    case 'struct':
      return typeof a === 'object' && Object.keys(a).length === t.fields.length &&
        t.fields.every(f => f.name in a && sameNested(f, e[f.name], a[f.name]))
    case 'map':
      return Array.isArray(a) && a.length === e.length &&
        e.every(([k, v], i) => Array.isArray(a[i]) && sameNested(t.key, k, a[i][0]) && sameNested(t.value, v, a[i][1]))
  }
  return sameValue(t, e, a)
}

function nestedLeaf(t, v) {
  if (v === null || v === undefined) return null
  return isIntTag(t.type) ? String(v) : v
}

// A reader's nested value in the canonical shape. `entries(v)` gives a
// map's [key, value] pairs in order, `field(v, name)` a struct's field.
function canonNested(t, v, how) {
  if (v === null || v === undefined) return null
  switch (t.type) {
    case 'list': return Array.from(v, x => canonNested(t.element, x, how))
    case 'struct': {
      const out = {}
      for (const name of how.fieldNames(v)) {
        const f = t.fields.find(x => x.name === name)
        out[name] = f ? canonNested(f, how.field(v, name), how) : how.field(v, name)
      }
      return out
    }
    case 'map': return how.entries(v).map(([k, x]) => [canonNested(t.key, k, how), canonNested(t.value, x, how)])
  }
  return nestedLeaf(t, v)
}

const DUCKDB_NESTED = {
  fieldNames: v => Object.keys(v),
  field: (v, name) => v[name],
  entries: v => v.map(({ key, value }) => [key, value]),
}
const ARROW_NESTED = { // StructRow proxies and MapRow iterators
  fieldNames: v => Object.keys(v),
  field: (v, name) => v[name],
  entries: v => Array.from(v),
}
const HYPARQUET_NESTED = { // maps come as plain objects keyed by the (string) key
  fieldNames: v => Object.keys(v),
  field: (v, name) => v[name],
  entries: v => (v instanceof Map ? [...v] : Object.entries(v)),
}

function compareNested(mm, field, values) {
  if (values.length !== field.values.length) mm.add(`field ${field.name}: ${values.length} values, expected ${field.values.length}`)
  const n = Math.min(values.length, field.values.length)
  for (let i = 0; i < n; i++)
    if (!sameNested(field, field.values[i], values[i]))
      mm.add(`field ${field.name} row ${i}: expected ${bigJSON(field.values[i])}, got ${bigJSON(values[i])}`)
}

function duckdbNestedType(t) {
  switch (t.type) {
    case 'list': return `${duckdbNestedType(t.element)}[]`
    case 'struct': return `STRUCT(${t.fields.map(f => `${f.name} ${duckdbNestedType(f)}`).join(', ')})`
    case 'map': return `MAP(${duckdbNestedType(t.key)}, ${duckdbNestedType(t.value)})`
  }
  return duckdbTypeName(t)
}

// DuckDB's type text quotes struct field names that are keywords
// (STRUCT("inner" ...)); compared without the quotes.
const duckdbUnquoted = type => type?.replace(/"((?:[^"]|"")*)"/g, (m, s) => s.replaceAll('""', '"'))

async function checkNestedDuckdb(con, file, spec) {
  const mm = new Mismatches(spec.name, 'duckdb')
  try {
    const src = `read_parquet(${sqlString(file)}, file_row_number = true)`
    const list = spec.fields.map(f => `"${f.name}"`).join(', ')
    const r = await con.runAndReadAll(`SELECT ${list} FROM ${src} ORDER BY file_row_number`)
    const d = (await con.runAndReadAll(`DESCRIBE SELECT * FROM ${src}`)).getRowObjectsJS()
    const names = d.map(x => x.column_name).filter(n => n !== 'file_row_number')
    if (JSON.stringify(names) !== JSON.stringify(spec.fields.map(f => f.name))) mm.add(`columns ${JSON.stringify(names)}`)
    if (r.currentRowCount !== spec.rows) mm.add(`row count ${r.currentRowCount}, expected ${spec.rows}`)
    const cols = r.currentRowCount ? r.getColumnsJS() : spec.fields.map(() => [])
    spec.fields.forEach((field, k) => {
      const type = duckdbUnquoted(d.find(x => x.column_name === field.name)?.column_type)
      if (type !== duckdbNestedType(field)) mm.add(`field ${field.name}: DuckDB type ${type}, expected ${duckdbNestedType(field)}`)
      else compareNested(mm, field, cols[k].map(v => canonNested(field, v, DUCKDB_NESTED)))
    })
  } catch (err) {
    mm.add(`read failed: ${err.message}`)
  }
  mm.finish('reader')
}

// null when the Arrow type (and its children's nullability) fits the tree.
function arrowNestedProblem(t, type) {
  const child = (i, name, sub, nullable) => {
    const c = type.children?.[i]
    if (!c) return `no child ${name}`
    if (c.nullable !== nullable) return `${name} nullable=${c.nullable}, expected ${nullable}`
    const p = sub(c.type)
    return p && `${name}: ${p}`
  }
  switch (t.type) {
    case 'list':
      if (type.typeId !== Type.List) return `${type}, expected a List`
      return child(0, 'element', ct => arrowNestedProblem(t.element, ct), t.element.nullable)
    case 'struct':
      if (type.typeId !== Type.Struct || type.children.length !== t.fields.length) return `${type}, expected a Struct of ${t.fields.length}`
      for (const [i, f] of t.fields.entries()) {
        if (type.children[i].name !== f.name) return `field ${i} is ${type.children[i].name}, expected ${f.name}`
        const p = child(i, f.name, ct => arrowNestedProblem(f, ct), f.nullable)
        if (p) return p
      }
      return null
    case 'map': {
      if (type.typeId !== Type.Map) return `${type}, expected a Map`
      const entries = type.children[0]?.type
      if (!entries || entries.children?.length !== 2) return `${type}: entries are not key and value`
      const k = arrowNestedProblem(t.key, entries.children[0].type), v = arrowNestedProblem(t.value, entries.children[1].type)
      if (entries.children[1].nullable !== t.value.nullable) return `map value nullable=${entries.children[1].nullable}`
      return (k && `key: ${k}`) || (v && `value: ${v}`)
    }
  }
  return arrowTypeProblem(t, type)
}

function checkNestedArrow(bytes, spec, codecs) {
  const mm = new Mismatches(spec.name, 'arrow-rs')
  try {
    const table = readArrow(bytes)
    const names = table.schema.fields.map(f => f.name)
    if (JSON.stringify(names) !== JSON.stringify(spec.fields.map(f => f.name))) mm.add(`columns ${JSON.stringify(names)}`)
    if (table.numRows !== spec.rows) mm.add(`row count ${table.numRows}, expected ${spec.rows}`)
    for (const field of spec.fields) {
      const af = table.schema.fields.find(f => f.name === field.name)
      if (!af) continue
      if (af.nullable !== field.nullable) mm.add(`field ${field.name}: Arrow nullable=${af.nullable}, expected ${field.nullable}`)
      const tp = arrowNestedProblem(field, af.type)
      if (tp) { mm.add(`field ${field.name}: Arrow type ${tp}`); continue }
      const vec = table.getChild(field.name)
      const vals = []
      for (let i = 0; i < vec.length; i++) vals.push(canonNested(field, vec.get(i), ARROW_NESTED))
      compareNested(mm, field, vals)
    }
  } catch (err) {
    if (arrowCodecSkip(err, spec.name, codecs)) return
    mm.add(`read failed: ${err.message ?? err}`)
  }
  mm.finish('reader')
}

async function checkNestedHyparquet(arrayBuffer, metadata, spec) {
  const mm = new Mismatches(spec.name, 'hyparquet')
  try {
    if (Number(metadata.num_rows) !== spec.rows) mm.add(`num_rows ${metadata.num_rows}, expected ${spec.rows}`)
    const rows = await hyparquetRows({ file: arrayBuffer, metadata, compressors: hyCompressors, rowFormat: 'array' })
    if (rows.length !== spec.rows) mm.add(`row count ${rows.length}, expected ${spec.rows}`)
    spec.fields.forEach((field, k) => compareNested(mm, field, rows.map(row => canonNested(field, row[k], HYPARQUET_NESTED))))
  } catch (err) {
    mm.add(`read failed: ${err.message ?? err}`)
  }
  mm.finish('reader')
}

// The schema elements a field's tree implies, depth first: the standard
// 3-level LIST and MAP forms with both annotations on the outer group and
// none on the repeated middle one; leaves as schemaProblems checks them.
function nestedElements(t, name, out = []) {
  const rep = t.nullable ? 'OPTIONAL' : 'REQUIRED'
  switch (t.type) {
    case 'list':
      out.push({ name, rep, children: 1, annotation: 'LIST' }, { name: 'list', rep: 'REPEATED', children: 1 })
      nestedElements(t.element, 'element', out)
      break
    case 'map':
      out.push({ name, rep, children: 1, annotation: 'MAP' },
        { name: 'key_value', rep: 'REPEATED', children: t.value === undefined ? 1 : 2 })
      nestedElements(t.key, 'key', out)
      if (t.value) nestedElements(t.value, 'value', out)
      break
    case 'struct':
      out.push({ name, rep, children: t.fields.length })
      for (const f of t.fields) nestedElements(f, f.name, out)
      break
    default:
      out.push({ name, leaf: { ...t, name } })
  }
  return out
}

async function checkNestedStructure(con, file, bytes, metadata, spec) {
  const mm = new Mismatches(spec.name, 'structure')
  try {
    if (bytes.length !== spec.writer.bytes) mm.add(`file has ${bytes.length} bytes, the writer reported ${spec.writer.bytes}`)
    if (spec.writer.rows !== spec.rows) mm.add(`writer reported ${spec.writer.rows} rows, expected ${spec.rows}`)
    if (metadata.created_by !== spec.created_by) mm.add(`created_by ${JSON.stringify(metadata.created_by)}`)
    // the schema elements
    const want = spec.fields.flatMap(f => nestedElements(f, f.name))
    const got = metadata.schema.slice(1)
    if (metadata.schema[0].num_children !== spec.fields.length) mm.add(`the root has ${metadata.schema[0].num_children} children, expected ${spec.fields.length}`)
    if (got.length !== want.length) mm.add(`${got.length} schema elements, expected ${want.length}`)
    want.forEach((w, i) => {
      const el = got[i]
      if (!el) return
      const where = `schema element ${i + 1} (${w.name})`
      if (el.name !== w.name) { mm.add(`${where} is named ${el.name}`); return }
      if (w.leaf) {
        for (const p of schemaProblems(w.leaf, el)) mm.add(`${where}: ${p}`)
        return
      }
      if (el.type !== undefined) mm.add(`${where}: a group with physical type ${el.type}`)
      if (el.repetition_type !== w.rep) mm.add(`${where}: repetition ${el.repetition_type}, expected ${w.rep}`)
      if (el.num_children !== w.children) mm.add(`${where}: ${el.num_children} children, expected ${w.children}`)
      if (el.converted_type !== w.annotation) mm.add(`${where}: converted type ${el.converted_type ?? 'none'}, expected ${w.annotation ?? 'none'}`)
      if (el.logical_type?.type !== w.annotation) mm.add(`${where}: logical type ${bigJSON(el.logical_type)}, expected ${w.annotation ?? 'none'}`)
    })
    // the logical type of a LIST/MAP group is an empty struct
    const raw = rawFooter(bytes).footer
    raw.field_2.forEach((el, i) => {
      const lt = el.field_10
      if (lt && (lt.field_2 || lt.field_3) && Object.keys(lt.field_2 ?? lt.field_3).length)
        mm.add(`schema element ${i}: the LIST/MAP logical type has fields ${bigJSON(lt)}`)
    })
    // row groups
    const rgs = metadata.row_groups
    if (rgs.length !== spec.expect.row_groups) mm.add(`${rgs.length} row groups, expected ${spec.expect.row_groups}`)
    if (spec.writer.row_groups !== rgs.length) mm.add(`writer reported ${spec.writer.row_groups} row groups, file has ${rgs.length}`)
    rgs.forEach((rg, g) => {
      const want = Math.min(spec.options.row_group_rows, spec.rows - g * spec.options.row_group_rows)
      if (Number(rg.num_rows) !== want) mm.add(`row group ${g} has ${rg.num_rows} rows, expected ${want}`)
    })
    // DuckDB's view of the chunks
    const chunks = (await con.runAndReadAll(
      `SELECT row_group_id, column_id, path_in_schema, num_values, compression FROM parquet_metadata(${sqlString(file)}) ORDER BY row_group_id, column_id`)).getRowObjectsJS()
    if (chunks.length !== rgs.length * spec.leaves.length) mm.add(`parquet_metadata lists ${chunks.length} chunks, expected ${rgs.length * spec.leaves.length}`)
    for (const ch of chunks) {
      const leaf = spec.leaves[Number(ch.column_id)]
      const g = Number(ch.row_group_id)
      if (!leaf || ch.path_in_schema.replaceAll(', ', '.') !== leaf.path) mm.add(`parquet_metadata column ${ch.column_id} is ${ch.path_in_schema}`)
      else if (Number(ch.num_values) !== leaf.entries[g]) mm.add(`parquet_metadata row group ${g} ${leaf.path}: num_values ${ch.num_values}, expected ${leaf.entries[g]}`)
      const footerCodec = rgs[g]?.columns[Number(ch.column_id)]?.meta_data?.codec
      if (leaf && ch.compression !== footerCodec) mm.add(`parquet_metadata row group ${g} ${leaf.path}: compression ${ch.compression}, the footer (hyparquet) ${footerCodec}`)
    }
    // each chunk: path, level entries, nulls, pages
    const v2 = spec.options.page_version === 2
    rgs.forEach((rg, g) => {
      const rgRows = Number(rg.num_rows)
      rg.columns.forEach((cc, ci) => {
        const leaf = spec.leaves[ci]
        if (!leaf) { mm.add(`row group ${g} has a chunk ${ci} past the leaves`); return }
        const meta = cc.meta_data
        const where = `row group ${g} ${leaf.path}`
        if (meta.path_in_schema.join('.') !== leaf.path) mm.add(`${where}: path_in_schema ${meta.path_in_schema.join('.')}`)
        if (Number(meta.num_values) !== leaf.entries[g]) mm.add(`${where}: num_values ${meta.num_values}, expected ${leaf.entries[g]} level entries`)
        if (Number(meta.statistics?.null_count) !== leaf.nulls[g]) mm.add(`${where}: null_count ${meta.statistics?.null_count}, expected ${leaf.nulls[g]}`)
        const pages = walkPages(bytes, meta)
        // the codec, and every page decompressed to its header's size
        for (const m of chunkCodecProblems(spec, leaf, g, meta, pages, bytes)) mm.add(`${where}: ${m}`)
        codecsSeen.set(meta.codec, (codecsSeen.get(meta.codec) ?? 0) + 1)
        const pageProblems = []
        pages.forEach((pg, k) => {
          try {
            if (meta.codec === 'UNCOMPRESSED' && pg.compressed !== pg.uncompressed) pageProblems.push(`page ${k}: ${pg.compressed} bytes stored for ${pg.uncompressed} without a codec`)
            if (pg.type === 'DATA_PAGE_V2')
              for (const m of v2PageProblems(pg, meta.codec, minGainOf(spec), leaf.level ?? spec.compression_level, bytes)) pageProblems.push(`page ${k}: ${m}`)
            if (pg.type === 'DATA_PAGE' || pg.type === 'DATA_PAGE_V2') pageParts(bytes, pg, meta.codec, false)
            else decompress(meta.codec, bytes.subarray(pg.offset, pg.offset + pg.compressed), pg.uncompressed)
          } catch (err) { pageProblems.push(`page ${k} (${pg.type}): ${err.message}`) }
        })
        pageProblems.slice(0, 3).forEach(m => mm.add(`${where}: ${m}`))
        if (pageProblems.length > 3) mm.add(`${where}: ... and ${pageProblems.length - 3} more page problems`)
        const data = pages.filter(p => p.type === 'DATA_PAGE' || p.type === 'DATA_PAGE_V2')
        if (data.some(p => p.type !== (v2 ? 'DATA_PAGE_V2' : 'DATA_PAGE'))) mm.add(`${where}: data pages of types ${[...new Set(data.map(p => p.type))]}`)
        const nv = data.reduce((a, p) => a + p.num_values, 0)
        if (nv !== leaf.entries[g]) mm.add(`${where}: data pages hold ${nv} level entries, expected ${leaf.entries[g]}`)
        if (rgRows > 2 * spec.options.page_rows && data.length < 2) mm.add(`${where}: ${rgRows} rows in ${data.length} data page(s)`)
        if (v2) {
          const rows = data.reduce((a, p) => a + p.num_rows, 0)
          if (rows !== rgRows) mm.add(`${where}: v2 pages hold ${rows} rows, expected ${rgRows}`)
          const nulls = data.reduce((a, p) => a + p.num_nulls, 0)
          if (nulls !== leaf.nulls[g]) mm.add(`${where}: v2 pages count ${nulls} nulls, expected ${leaf.nulls[g]}`)
          for (const p of data) {
            if ((p.rep_bytes > 0) !== (leaf.max_rep > 0)) { mm.add(`${where}: a v2 page with ${p.rep_bytes} bytes of repetition levels (max ${leaf.max_rep})`); break }
            if ((p.def_bytes > 0) !== (leaf.max_def > 0)) { mm.add(`${where}: a v2 page with ${p.def_bytes} bytes of definition levels (max ${leaf.max_def})`); break }
          }
        }
        const wantEnc = new Set(pages.map(p => p.encoding))
        if (leaf.max_def || leaf.max_rep) wantEnc.add('RLE')
        const sorted = x => JSON.stringify([...new Set(x)].sort())
        if (sorted(meta.encodings ?? []) !== sorted(wantEnc)) mm.add(`${where}: encodings [${meta.encodings}], the pages (and levels) use [${[...wantEnc]}]`)
        const counted = new Map()
        for (const p of pages) counted.set(`${p.type}/${p.encoding}`, (counted.get(`${p.type}/${p.encoding}`) ?? 0) + 1)
        const listed = new Map((meta.encoding_stats ?? []).map(es => [`${es.page_type}/${es.encoding}`, Number(es.count)]))
        if (JSON.stringify([...counted].sort()) !== JSON.stringify([...listed].sort())) mm.add(`${where}: encoding_stats ${bigJSON([...listed])}, the pages are ${bigJSON([...counted])}`)
        const venc = valueEncoding(leaf)
        const stray = data.map(p => p.encoding).filter(e => e !== venc && !(dictionaryAllowed(leaf) && isDict(e)))
        if (stray.length) mm.add(`${where}: data pages encoded [${[...new Set(stray)]}] under the ${leaf.encoding} choice`)
      })
    })
    spec.leaves.forEach((leaf, ci) => {
      for (const m of columnStatsProblems(spec, leaf, rgs.map(rg => rg.columns[ci]?.meta_data).filter(Boolean))) mm.add(`${leaf.path}: ${m}`)
    })
  } catch (err) {
    mm.add(`structure check failed: ${err.stack ?? err}`)
  }
  mm.finish('structure')
}

// ---------------------------------------------------------------------------

async function main() {
  const dir = process.argv[2]
  if (!dir) {
    console.error('usage: node check.mjs DIR [NAME-REGEX]')
    process.exit(2)
  }
  const only = process.argv[3] ? new RegExp(process.argv[3]) : null
  const unknown = READERS.filter(r => !ALL_READERS.includes(r))
  if (unknown.length || READERS.length === 0) {
    console.error(`interop: INLAY_INTEROP_READERS names ${unknown.length ? unknown.join(', ') : 'no reader'}; ` +
      `it takes a comma-separated subset of ${ALL_READERS.join(', ')}`)
    process.exit(2)
  }
  if (!READ_DUMP || !fs.existsSync(READ_DUMP)) {
    console.error(`interop: set INLAY_READ_DUMP to the interop_read_dump program (inlay's reader; built beside ` +
      `interop_fixtures, e.g. INLAY_READ_DUMP=build/tests/interop/interop_read_dump)` +
      (READ_DUMP ? `: ${READ_DUMP} does not exist` : ''))
    process.exit(2)
  }
  const names = fs.readdirSync(dir)
    .filter(f => f.endsWith('.parquet') && fs.existsSync(path.join(dir, f.replace(/\.parquet$/, '.json'))))
    .map(f => f.replace(/\.parquet$/, ''))
    .filter(n => !only || only.test(n))
    .sort()
  if (names.length === 0) {
    console.error(`interop: no NAME.parquet with NAME.json in ${dir}`)
    process.exit(1)
  }
  const db = await DuckDBInstance.create(':memory:')
  const con = await db.connect()
  const conStruct = await db.connect() // parquet_metadata() while `con` reads
  // a second database: disabled_optimizers is global to a database instance
  const conPlain = await (await DuckDBInstance.create(':memory:')).connect()
  await conPlain.run(`SET disabled_optimizers = 'filter_pushdown'`)
  for (const c of [con, conPlain]) await c.run('SET parquet_metadata_cache = true')
  if ((await con.runAndReadAll(`SELECT current_setting('disabled_optimizers')`)).getRows()[0][0] !== '')
    throw new Error('filter pushdown is disabled on the main DuckDB connection')
  const started = Date.now()
  let reads = null
  for (const [at, name] of names.entries()) {
    const file = path.resolve(dir, `${name}.parquet`)
    if (runs('inlay') && at % DUMP_GROUP === 0) {
      const group = names.slice(at, at + DUMP_GROUP).map(n => path.resolve(dir, `${n}.parquet`))
      reads = { first: readDumps(READ_DUMP, group), second: readDumps(READ_DUMP, group, SECOND_READ) }
    }
    const inlayReads = () => [reads.first[at % DUMP_GROUP], reads.second[at % DUMP_GROUP]]
    const spec = JSON.parse(fs.readFileSync(path.join(dir, `${name}.json`), 'utf8'))
    const bytes = new Uint8Array(fs.readFileSync(file))
    const arrayBuffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
    results.files++
    let metadata = null
    try {
      metadata = parquetMetadata(arrayBuffer)
    } catch (err) {
      const mm = new Mismatches(name, 'hyparquet')
      mm.add(`footer parse failed: ${err.message}`)
      mm.finish('reader')
    }
    // the codecs of the file's chunks, as its footer has them
    const codecs = new Set((metadata?.row_groups ?? []).flatMap(rg => rg.columns.map(c => c.meta_data?.codec)))
    if (spec.nested) {
      const duck = runs('duckdb') ? checkNestedDuckdb(con, file, spec) : null
      if (runs('arrow')) checkNestedArrow(bytes, spec, codecs)
      if (runs('inlay')) checkInlay(spec, ...inlayReads())
      if (metadata) {
        if (runs('hyparquet')) await checkNestedHyparquet(arrayBuffer, metadata, spec)
        await checkNestedStructure(conStruct, file, bytes, metadata, spec)
      }
      await duck
      continue
    }
    // DuckDB works in its own threads while the other checks run here
    const duck = runs('duckdb') ? checkDuckdb(con, conPlain, file, spec) : null
    if (runs('arrow')) checkArrow(bytes, spec, codecs)
    if (runs('inlay')) checkInlay(spec, ...inlayReads())
    if (metadata) {
      if (runs('hyparquet')) await checkHyparquet(arrayBuffer, metadata, spec)
      await checkStructure(conStruct, file, bytes, metadata, spec)
    } else {
      const mm = new Mismatches(name, 'structure')
      mm.add('no footer')
      mm.finish('structure')
    }
    await duck
  }
  const secs = ((Date.now() - started) / 1000).toFixed(1)
  console.log(`interop: structure of ${results.files} files: ${results.structPass} passed, ${results.structFail} failed`)
  console.log(`interop: checked in ${secs}s`)
  console.log(`interop: ${results.files} files x ${READERS.length} reader(s) (${READERS.join(', ')}): ${results.readerPass} passed, ${results.readerFail} failed`)
  console.log(`interop: chunks by codec: ${[...codecsSeen].sort().map(([c, n]) => `${c} ${n}`).join(', ')}`)
  if (known.hyLz4Empty)
    console.log(`interop: known reader limitation: hyparquet-compressors' LZ4_RAW cannot decode the empty block (0x00); ` +
      `${known.hyLz4Empty} such pages (dictionary pages of all-null chunks) decoded for hyparquet by check.mjs`)
  for (const [codec, n] of known.arrowCodecs)
    console.log(`interop: arrow-rs (parquet-wasm) skipped on ${n} file(s): its build lacks ${codec}`)
  if (known.duckdbBss)
    console.log(`interop: known reader limitation: DuckDB cannot read BYTE_STREAM_SPLIT INT32/INT64/FIXED_LEN_BYTE_ARRAY ` +
      `(${known.duckdbBss} columns; read by arrow-rs and hyparquet only)`)
  if (failures.length) {
    console.log(`interop: FAILED (${failures.length} failure(s), details above)`)
    process.exit(1)
  }
}

main().catch(err => {
  console.error(`interop: ${err.stack ?? err}`)
  process.exit(1)
})
