#!/usr/bin/env node
// check.mjs DIR
//
// For every NAME.parquet in DIR that has a NAME.json beside it (written by
// interop_fixtures, see fixtures.c for the JSON's format), read the file
// with three independent readers and compare what each sees with the JSON:
//
//   duckdb    DuckDB (@duckdb/node-api), read_parquet()
//   arrow-rs  arrow-rs through parquet-wasm (node build), to Arrow IPC,
//             read with apache-arrow's tableFromIPC
//   hyparquet hyparquet, with hyparquet-compressors for ZSTD
//
// Each reader's values are normalised to the canonical form of the JSON and
// compared value by value, together with the row count, the column names and
// the column types each reader reports (hyparquet: the footer's schema
// elements). DuckDB also runs filters at the data's min/max with and without
// row-group pruning, which must agree. Beside the readers, a structural
// check looks at the file's metadata (DuckDB's parquet_metadata(), the
// footer as hyparquet parses it, and every page header): row groups,
// compression, encodings and encoding_stats, dictionary fallback, page
// counts and sizes, statistics (null_count, min/max by sort order),
// key-value metadata, created_by, the file size the writer reported.
//
// Exits 1 on any mismatch, naming file, reader, column and row.

import fs from 'node:fs'
import path from 'node:path'
import process from 'node:process'

import { DuckDBInstance } from '@duckdb/node-api'
import * as parquetWasm from 'parquet-wasm/node'
import { tableFromIPC, Type, Precision, TimeUnit, DateUnit } from 'apache-arrow'
import { parquetMetadata, parquetRead } from 'hyparquet'
import { parquetHeader } from 'hyparquet/src/column.js'
import { deserializeTCompactProtocol } from 'hyparquet/src/thrift.js'
import { compressors } from 'hyparquet-compressors'

const MAX_REPORTS = 8 // mismatches printed per file and reader

// ---------------------------------------------------------------------------
// Canonical forms

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))
function hex(bytes) {
  let s = ''
  for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i]]
  return s
}

function uuidText(bytes) {
  const h = hex(bytes)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`
}

// An unscaled integer and a scale as exact decimal text: exactly `scale`
// fractional digits.
function decimalText(unscaled, scale) {
  const neg = unscaled < 0n
  let digits = (neg ? -unscaled : unscaled).toString()
  if (scale > 0) {
    digits = digits.padStart(scale + 1, '0')
    digits = digits.slice(0, digits.length - scale) + '.' + digits.slice(digits.length - scale)
  }
  return (neg ? '-' : '') + digits
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

// Canonical float value (JSON) to a JS number.
function canonNumber(e) {
  if (typeof e === 'number') return e
  switch (e) {
    case 'NaN': return NaN
    case 'Infinity': return Infinity
    case '-Infinity': return -Infinity
    case '-0': return -0
  }
  throw new Error(`bad canonical float ${JSON.stringify(e)}`)
}

function showNumber(v) {
  return Object.is(v, -0) ? '-0' : String(v)
}

const UNIT_SCALE = { s: 1n, ms: 1000n, us: 1000000n, ns: 1000000000n }

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
function schemaProblems(col, el) {
  const p = []
  const physical = {
    boolean: 'BOOLEAN', int8: 'INT32', int16: 'INT32', int32: 'INT32', int64: 'INT64',
    uint8: 'INT32', uint16: 'INT32', uint32: 'INT32', uint64: 'INT64', float: 'FLOAT',
    double: 'DOUBLE', string: 'BYTE_ARRAY', enum: 'BYTE_ARRAY', json: 'BYTE_ARRAY',
    binary: 'BYTE_ARRAY', uuid: 'FIXED_LEN_BYTE_ARRAY', fixed: 'FIXED_LEN_BYTE_ARRAY',
    float16: 'FIXED_LEN_BYTE_ARRAY', date: 'INT32',
    time: col.unit === 'ms' ? 'INT32' : 'INT64', timestamp: 'INT64',
    decimal: { int32: 'INT32', int64: 'INT64', fixed: 'FIXED_LEN_BYTE_ARRAY' }[col.physical],
  }[col.type]
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

function sqlString(s) {
  return `'${s.replaceAll("'", "''")}'`
}

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
  for (const col of spec.columns) {
    if (col.all_null || col.type === 'json') continue
    const type = types[col.name]
    const q = sqlString(col.name).replaceAll("'", '"')
    const notNaN = ['float', 'double', 'float16'].includes(col.type) ? `NOT isnan(${q})` : 'true'
    const [mx, mn] = await one(conPlain,
      `SELECT max(${q})::VARCHAR, min(${q})::VARCHAR FROM ${src} WHERE ${q} IS NOT NULL AND ${notNaN}`)
    if (mx === null) continue
    // a value from the last row group, for an equality filter
    const lastStart = (spec.expect.row_groups - 1) * spec.options.row_group_rows
    const k = col.values.findIndex((v, i) => i >= lastStart && v !== null && !['NaN'].includes(v))
    let mid = null
    if (k >= 0) [mid] = await one(conPlain, `SELECT ${q}::VARCHAR FROM ${src} WHERE file_row_number = ${k}`)
    const filters = [[`>=`, mx], [`<=`, mn]]
    if (mid !== null) filters.push([`=`, mid])
    for (const [op, lit] of filters) {
      // NaN sorts above everything in DuckDB but is never in the statistics
      const sql = `SELECT count(*) FROM ${src} WHERE ${q} ${op} CAST(${sqlString(lit)} AS ${type}) AND ${notNaN}`
      const [want] = await one(conPlain, sql)
      const [got] = await one(con, sql)
      if (got !== want)
        mm.add(`column ${col.name} (${col.type}): WHERE ${col.name} ${op} ${lit} counts ${got} rows with row-group pruning, ${want} without (statistics disagree with the data)`)
      else if (Number(want) === 0)
        mm.add(`column ${col.name} (${col.type}): WHERE ${col.name} ${op} ${lit} matches no row (the test's own literal is off)`)
    }
  }
}

async function checkDuckdb(con, conPlain, file, spec) {
  const mm = new Mismatches(spec.name, 'duckdb')
  try {
    const r = await con.runAndReadAll(
      `SELECT * FROM read_parquet(${sqlString(file)}, file_row_number = true) ORDER BY file_row_number`)
    const names = r.columnNames()
    // DESCRIBE names the JSON alias that columnTypes() reports as VARCHAR
    const d = await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${sqlString(file)}, file_row_number = true)`)
    const types = names.map(n => d.getRowObjectsJS().find(x => x.column_name === n)?.column_type)
    const cols = r.currentRowCount ? r.getColumns() : names.map(() => [])
    const want = spec.columns.map(c => c.name)
    const got = names.slice(0, -1)
    if (JSON.stringify(got) !== JSON.stringify(want)) mm.add(`columns ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`)
    if (r.currentRowCount !== spec.rows) mm.add(`row count ${r.currentRowCount}, expected ${spec.rows}`)
    spec.columns.forEach(col => {
      const k = names.indexOf(col.name)
      if (k < 0) return
      const wantType = duckdbTypeName(col)
      if (types[k] !== wantType) {
        mm.add(`column ${col.name} (${col.type}): DuckDB type ${types[k]}, expected ${wantType}`)
        return
      }
      const vals = cols[k]
      const n = Math.min(vals.length, spec.rows)
      for (let i = 0; i < n; i++) mm.compare(col, i, col.values[i], duckdbValue(col, types[k], vals[i]))
    })
    if (mm.count === 0)
      await checkDuckdbPruning(con, conPlain, file, spec, Object.fromEntries(names.map((n, i) => [n, types[i]])), mm)
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

function checkArrow(bytes, spec) {
  const mm = new Mismatches(spec.name, 'arrow-rs')
  try {
    const wasmTable = parquetWasm.readParquet(bytes)
    const table = tableFromIPC(wasmTable.intoIPCStream())
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
    const rows = await new Promise((resolve, reject) => {
      parquetRead({
        file: arrayBuffer, metadata: md, compressors, utf8: false, parsers: rawParsers,
        rowFormat: 'array', onComplete: resolve,
      }).catch(reject)
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
// Structure: parquet_metadata(), the footer and the page headers

function splitEncodings(s) {
  if (Array.isArray(s)) return s
  return String(s ?? '').split(',').map(x => x.trim()).filter(Boolean)
}

const DICT_ENCODINGS = ['RLE_DICTIONARY', 'PLAIN_DICTIONARY']
const isDict = e => DICT_ENCODINGS.includes(e)

// Every page of one column chunk: [{type, encoding, num_values, ...}].
function walkPages(bytes, meta) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const start = Number(meta.dictionary_page_offset ?? meta.data_page_offset)
  const end = start + Number(meta.total_compressed_size)
  const reader = { view, offset: start }
  const pages = []
  while (reader.offset < end) {
    const h = parquetHeader(reader)
    const dp = h.data_page_header ?? h.data_page_header_v2
    pages.push({
      type: h.type,
      encoding: h.dictionary_page_header?.encoding ?? dp?.encoding,
      num_values: h.dictionary_page_header?.num_values ?? dp?.num_values,
      num_rows: h.data_page_header_v2?.num_rows,
      compressed: h.compressed_page_size,
      uncompressed: h.uncompressed_page_size,
    })
    reader.offset += h.compressed_page_size
  }
  if (reader.offset !== end) throw new Error(`pages end at ${reader.offset}, chunk ends at ${end}`)
  return pages
}

// The footer as raw thrift (field ids), for the statistics' exact bytes.
function rawFooter(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const len = view.getUint32(bytes.length - 8, true)
  return deserializeTCompactProtocol({ view, offset: bytes.length - 8 - len })
}

const utf8 = new TextEncoder()
const hexBytes = h => Uint8Array.from(h.match(/../g) ?? [], x => parseInt(x, 16))

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
      if (ch.compression !== spec.compression)
        mm.add(`row group ${ch.row_group_id} column ${col.name}: compression ${ch.compression}, expected ${spec.compression}`)
    }
    for (const col of spec.columns) {
      const list = byColumn.get(col.name)
      const encs = list.map(ch => splitEncodings(ch.encodings))
      const rg = g => `row group ${list[g].row_group_id} column ${col.name}`
      if (col.all_null || col.type === 'boolean') continue
      if (spec.encoding === 'dictionary')
        encs.forEach((e, g) => { if (!e.some(isDict)) mm.add(`${rg(g)}: encodings [${e}] lack RLE_DICTIONARY (dictionary file)`) })
      if (spec.encoding === 'plain')
        encs.forEach((e, g) => { if (e.some(isDict)) mm.add(`${rg(g)}: encodings [${e}] include a dictionary encoding (plain file)`) })
      if (spec.encoding === 'fallback' && !col.name.startsWith('all') && encs.length &&
          !encs.some(e => e.some(isDict) && e.includes('PLAIN')))
        mm.add(`column ${col.name}: no chunk lists both RLE_DICTIONARY and PLAIN (fallback file): ${JSON.stringify(encs)}`)
    }

    // footer column metadata and page headers, chunk by chunk
    const raw = rawFooter(bytes)
    if (spec.columns.length && (raw.field_7 ?? []).length !== spec.columns.length)
      mm.add(`column_orders has ${(raw.field_7 ?? []).length} entries, expected ${spec.columns.length} (min_value/max_value need them)`)
    const fallbackSeen = new Map()
    rgs.forEach((rgMeta, g) => {
      const rgRows = Number(rgMeta.num_rows)
      const rgStart = g * spec.options.row_group_rows
      rgMeta.columns.forEach((cc, ci) => {
        const col = spec.columns[ci]
        if (!col) return
        const meta = cc.meta_data
        const where = `row group ${g} column ${col.name}`
        if (meta.codec !== spec.compression) mm.add(`${where}: footer codec ${meta.codec}, expected ${spec.compression}`)
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
        const dictPages = pages.filter(p => p.type === 'DICTIONARY_PAGE')
        const dataPages = pages.filter(p => p.type === 'DATA_PAGE' || p.type === 'DATA_PAGE_V2')
        if (dictPages.length > 1) mm.add(`${where}: ${dictPages.length} dictionary pages`)
        if (dictPages.length === 1 && pages[0].type !== 'DICTIONARY_PAGE') mm.add(`${where}: the dictionary page is not first`)
        if (dictPages.length === 1 && meta.dictionary_page_offset === undefined) mm.add(`${where}: dictionary page but no dictionary_page_offset`)
        const nv = dataPages.reduce((a, p) => a + p.num_values, 0)
        if (nv !== rgRows) mm.add(`${where}: data pages hold ${nv} values, expected ${rgRows}`)
        const footerEnc = meta.encodings ?? []
        for (const p of pages)
          if (!footerEnc.includes(p.encoding)) mm.add(`${where}: a ${p.type} uses ${p.encoding}, not listed in the chunk's encodings [${footerEnc}]`)
        if (meta.encoding_stats) {
          const counted = new Map()
          for (const pg of pages) {
            const key = `${pg.type === 'DATA_PAGE_V2' ? 'DATA_PAGE_V2' : pg.type}/${pg.encoding}`
            counted.set(key, (counted.get(key) ?? 0) + 1)
          }
          const listed = new Map(meta.encoding_stats.map(es => [`${es.page_type}/${es.encoding}`, Number(es.count)]))
          const a = JSON.stringify([...counted].sort()), b = JSON.stringify([...listed].sort())
          if (a !== b) mm.add(`${where}: encoding_stats ${b}, the pages are ${a}`)
        }
        if (spec.compression === 'UNCOMPRESSED')
          for (const p of pages) if (p.compressed !== p.uncompressed) mm.add(`${where}: uncompressed page with compressed size ${p.compressed} != ${p.uncompressed}`)
        // several pages where the options call for them
        const pr = spec.options.page_rows
        if (rgRows > 2 * pr && dataPages.length < 2) mm.add(`${where}: ${rgRows} rows in ${dataPages.length} data page(s), page_rows ${pr}`)
        for (const p of dataPages)
          if (p.num_values > pr) { mm.add(`${where}: a data page holds ${p.num_values} values, page_rows is ${pr}`); break }

        if (col.type === 'boolean' || col.all_null) return
        const encs = dataPages.map(p => p.encoding)
        if (spec.encoding === 'dictionary') {
          if (dictPages.length !== 1) mm.add(`${where}: no dictionary page (dictionary file)`)
          if (!encs.every(isDict)) mm.add(`${where}: data page encodings ${[...new Set(encs)]} (dictionary file)`)
        }
        if (spec.encoding === 'plain') {
          if (dictPages.length) mm.add(`${where}: a dictionary page in a plain file`)
          if (!encs.every(e => e === 'PLAIN')) mm.add(`${where}: data page encodings ${[...new Set(encs)]} (plain file)`)
        }
        if (spec.encoding === 'fallback') {
          const firstPlain = encs.indexOf('PLAIN')
          if (firstPlain >= 0 && encs.slice(firstPlain).some(isDict)) mm.add(`${where}: dictionary-encoded page after a PLAIN page`)
          if (dictPages.length && firstPlain > 0 && isDict(encs[0])) fallbackSeen.set(col.name, true)
        }
      })
    })
    if (spec.encoding === 'fallback')
      for (const col of spec.columns)
        if (col.type !== 'boolean' && !col.all_null && !fallbackSeen.get(col.name))
          mm.add(`column ${col.name}: no chunk falls back from RLE_DICTIONARY pages to PLAIN pages mid-chunk (fallback file)`)
  } catch (err) {
    mm.add(`structure check failed: ${err.stack ?? err}`)
  }
  mm.finish('structure')
}

// ---------------------------------------------------------------------------

async function main() {
  const dir = process.argv[2]
  if (!dir) {
    console.error('usage: node check.mjs DIR')
    process.exit(2)
  }
  const names = fs.readdirSync(dir)
    .filter(f => f.endsWith('.parquet') && fs.existsSync(path.join(dir, f.replace(/\.parquet$/, '.json'))))
    .map(f => f.replace(/\.parquet$/, ''))
    .sort()
  if (names.length === 0) {
    console.error(`interop: no NAME.parquet with NAME.json in ${dir}`)
    process.exit(1)
  }
  const con = await (await DuckDBInstance.create(':memory:')).connect()
  // a second database: disabled_optimizers is global to a database instance
  const conPlain = await (await DuckDBInstance.create(':memory:')).connect()
  await conPlain.run(`SET disabled_optimizers = 'filter_pushdown'`)
  if ((await con.runAndReadAll(`SELECT current_setting('disabled_optimizers')`)).getRows()[0][0] !== '')
    throw new Error('filter pushdown is disabled on the main DuckDB connection')
  const started = Date.now()
  for (const name of names) {
    const file = path.resolve(dir, `${name}.parquet`)
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
    await checkDuckdb(con, conPlain, file, spec)
    checkArrow(bytes, spec)
    if (metadata) {
      await checkHyparquet(arrayBuffer, metadata, spec)
      await checkStructure(con, file, bytes, metadata, spec)
    } else {
      const mm = new Mismatches(name, 'structure')
      mm.add('no footer')
      mm.finish('structure')
    }
  }
  const secs = ((Date.now() - started) / 1000).toFixed(1)
  console.log(`interop: structure of ${results.files} files: ${results.structPass} passed, ${results.structFail} failed`)
  console.log(`interop: checked in ${secs}s`)
  console.log(`interop: ${results.files} files x 3 readers: ${results.readerPass} passed, ${results.readerFail} failed`)
  if (failures.length) {
    console.log(`interop: FAILED (${failures.length} failure(s), details above)`)
    process.exit(1)
  }
}

main().catch(err => {
  console.error(`interop: ${err.stack ?? err}`)
  process.exit(1)
})
