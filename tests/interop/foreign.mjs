#!/usr/bin/env node
// foreign.mjs WORKDIR [NAME-REGEX]
//
// inlay's reader on files other writers wrote. INLAY_READ_DUMP names the
// interop_read_dump program (read_dump.c), which prints what inlay reads:
// the schema as a type tree and every value in the canonical form of the
// fixtures (see fixtures.c and inlay_dump.mjs).
//
//  1. Hand-made files (interop_handmade, handmade_fixtures.c, run before
//     this into WORKDIR: hand__*.parquet + hand__*.json): INT96
//     timestamps, legacy two-level lists and other backward-compatible
//     list and map forms, bare repeated fields, converted types without
//     logical types, unknown logical types, BIT_PACKED levels. inlay must
//     read exactly the JSON (types and values); DuckDB reads them too, as a
//     check of the hand-made bytes (see HANDMADE_DUCKDB for where it reads
//     them otherwise).
//  2. Files DuckDB writes (COPY ... TO (FORMAT parquet, ...)): every type
//     DuckDB has, nulls, lists, structs, maps, lists of structs, lists of
//     lists, maps of lists, deep nesting, under ZSTD, GZIP and no
//     compression, PARQUET_VERSION V1 and V2 (DuckDB's V2 keeps v1 page
//     headers but writes DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and
//     BYTE_STREAM_SPLIT), dictionary and plain, small and 100,000-row files
//     of several row groups, a file of one row and one of none. DuckDB's
//     V2 INT32 deltas are checked on their own (checkWideDeltas).
//  3. Files arrow-rs writes (parquet-wasm's writeParquet, from apache-arrow
//     tables built buffer by buffer): every Arrow type arrow-rs writes,
//     nullable and not, under UNCOMPRESSED, ZSTD and GZIP, writer version 1
//     and 2 (DATA_PAGE_V2), dictionary on and off, and per-column encodings
//     (DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY,
//     BYTE_STREAM_SPLIT on every type that has it, RLE booleans), small
//     pages and row groups, 100,000 rows. A file DuckDB cannot read
//     (BYTE_STREAM_SPLIT on integers) is compared through its twin: the
//     same table written with arrow-rs's defaults.
//
//     Each file of 2 and 3 is read by inlay and by DuckDB, and compared:
//     inlay's type tree with the one parquet_schema() implies (expectedTree
//     below: the Parquet schema elements as DuckDB parses them, mapped to
//     inlay's types by LogicalTypes.md), and every value with DuckDB's,
//     brought to the canonical form of inlay's type (duckCanon below). A
//     second read in batches of 777 rows with the fields selected in
//     reverse order, from memory (inlay_reader_open_memory), must give the
//     same values.
//  4. The other codecs: DuckDB's SNAPPY, LZ4_RAW and BROTLI files and
//     arrow-rs's SNAPPY, BROTLI, LZ4_RAW and Hadoop-framed LZ4 files, read
//     as in 2.
//  5. Round trips: some of those files are read by inlay and written again
//     by inlay (interop_read_dump --rewrite: every batch through
//     inlay_writer_append_array into a writer opened on the reader's
//     schema); inlay must read the copy exactly as the source, and DuckDB
//     must find no row of one missing from the other (EXCEPT ALL both
//     ways, and the same row count).
//
// Normalisations (everything else is compared exactly):
//  - floating point is compared as numbers, NaN equal to NaN, -0 not 0 (a
//    float through Math.fround on both sides), since DuckDB hands numbers
//    and inlay prints 9 or 17 significant digits;
//  - DuckDB's time and timestamp values come in its unit (TIME and
//    TIMESTAMP[_TZ] microseconds, TIME_NS and TIMESTAMP_NS nanoseconds,
//    TIMESTAMP_MS milliseconds, TIMESTAMP_S seconds) and are converted to
//    the unit of inlay's type (the file's), exactly: a value that does not
//    convert exactly is a mismatch; TIME WITH TIME ZONE must have offset 0;
//  - INTERVAL (FIXED_LEN_BYTE_ARRAY(12), converted type INTERVAL), which
//    inlay has no type for and reads as fixed(12), is compared as its 12
//    bytes: DuckDB's months, days and micros / 1000 (the file holds
//    milliseconds) as little-endian uint32s;
//  - DuckDB decimals are its unscaled value and scale as exact text;
//    uuids its text, blobs their bytes as hex;
//  - HUGEINT and UHUGEINT: DuckDB writes them as DOUBLE (no annotation), so
//    inlay reads doubles, compared as numbers like any double;
//  - DuckDB's ENUM is written as a UTF8 string (read as string), its JSON
//    with the JSON annotation (read as json, compared as text);
//  - DuckDB has no nanosecond TIMESTAMP WITH TIME ZONE: a TIMESTAMP(NANOS,
//    adjusted to UTC) column (arrow-rs's Timestamp(ns, tz)) reads in DuckDB
//    in microseconds, and so does INT96 (hand-made) as TIMESTAMP: inlay's
//    nanoseconds cut to microseconds (toward zero or down) must equal
//    DuckDB's value;
//  - round trips: DuckDB reads inlay's copy of an INTERVAL column as BLOB
//    (inlay writes fixed(12) without the INTERVAL annotation), so those
//    columns are left out of DuckDB's EXCEPT ALL; inlay's own reading of
//    the copy still compares them byte for byte. Legacy converted
//    TIMESTAMP_MILLIS/MICROS and TIME_MILLIS/MICROS without a logical type
//    are adjusted to UTC by LogicalTypes.md (and by inlay, which writes them
//    so), while DuckDB reads them as local TIMESTAMP / TIME: the copy's
//    TIMESTAMP WITH TIME ZONE / TIME WITH TIME ZONE is cast back to compare
//    (the session's time zone is UTC). DuckDB reads a two-level list of
//    one-field groups named "array" / "<list>_tuple" as a list of that
//    field (see HANDMADE_DUCKDB), inlay's standard copy as a list of
//    one-field structs: the copy's field is taken out to compare.
//
// Exits 1 on any mismatch, naming file, reader, field and row.

import fs from 'node:fs'
import path from 'node:path'
import process from 'node:process'

import { DuckDBInstance } from '@duckdb/node-api'
import * as pw from 'parquet-wasm/node'
import * as A from 'apache-arrow'

import { readDump, inlayTypeProblem, firstDifference, sameCanon, describeType } from './inlay_dump.mjs'
import { hex, decimalText, UNIT_SCALE, bigJSON, sqlString, quoteId } from './common.mjs'

const MAX_REPORTS = 10
const READ_DUMP = process.env.INLAY_READ_DUMP
// rows of the big files (several row groups each); smaller under the sanitizers
const BIG = Number(process.env.INLAY_FOREIGN_BIG_ROWS ?? 100000)
// the second read: other batches, the fields in reverse order, and the
// file's bytes through inlay_reader_open_memory
const SECOND_READ = ['--batch', '777', '--reverse', '--memory']

// ---------------------------------------------------------------------------
// Results

const results = { pass: 0, fail: 0 }
const failures = []

class Report {
  constructor(file, what) {
    this.file = file
    this.what = what
    this.count = 0
    this.lines = []
  }
  add(msg) {
    this.count++
    if (this.lines.length < MAX_REPORTS) this.lines.push(msg)
  }
  finish() {
    if (this.count === 0) { results.pass++; return true }
    results.fail++
    const more = this.count > this.lines.length ? `\n    ... and ${this.count - this.lines.length} more` : ''
    const msg = `FAIL ${this.file} [${this.what}]: ${this.count} problem(s)\n    ${this.lines.join('\n    ')}${more}`
    failures.push(msg)
    process.stderr.write(msg + '\n')
    return false
  }
}

// ---------------------------------------------------------------------------
// Canonical forms

// v (BigInt, in unit `from`) in unit `to`: a decimal string, or a
// description of why it does not convert exactly (never equal to a value).
function convertUnit(v, from, to) {
  const f = UNIT_SCALE[from], t = UNIT_SCALE[to]
  if (t >= f) return String(v * (t / f))
  const d = f / t
  if (v % d !== 0n) return `${v}${from} (not a whole number of ${to})`
  return String(v / d)
}

// DuckDB's value `v` of DuckDB type `dt` in the canonical form of inlay's
// type `t` (a leaf or a tree). See the normalisations at the top.
function duckCanon(t, dt, v) {
  if (v === null || v === undefined) return null
  switch (t.type) {
    case 'list':
      if (!v.items) return `DuckDB ${dt} value ${String(v)} for a list`
      return v.items.map(x => duckCanon(t.element, elementType(dt), x))
    case 'struct': {
      if (!v.entries || Array.isArray(v.entries)) return `DuckDB ${dt} value ${String(v)} for a struct`
      const out = {}
      const sub = structTypes(dt)
      for (const [name, x] of Object.entries(v.entries)) {
        const f = t.fields.find(y => y.name === name)
        out[name] = f ? duckCanon(f, sub[name], x) : `unexpected field ${name}`
      }
      return out
    }
    case 'map': {
      if (!Array.isArray(v.entries)) return `DuckDB ${dt} value ${String(v)} for a map`
      const [kt, vt] = mapTypes(dt)
      return v.entries.map(({ key, value }) => [duckCanon(t.key, kt, key), t.value ? duckCanon(t.value, vt, value) : undefined])
    }
  }
  const T = t.type
  if (/^u?int(8|16|32|64)$/.test(T)) return String(v)
  switch (T) {
    case 'boolean': return v
    case 'float': case 'double': case 'float16': return typeof v === 'number' ? v : `DuckDB ${dt} ${String(v)}`
    case 'string': case 'enum': case 'json': return typeof v === 'string' ? v : `DuckDB ${dt} ${String(v)}`
    case 'binary': return v.bytes ? hex(v.bytes) : `DuckDB ${dt} ${String(v)}`
    case 'fixed':
      if (dt === 'INTERVAL') { // months, days, milliseconds: little-endian uint32s
        const b = new Uint8Array(12), dv = new DataView(b.buffer)
        if (v.micros % 1000n !== 0n) return `interval with ${v.micros} micros`
        dv.setUint32(0, v.months >>> 0, true)
        dv.setUint32(4, v.days >>> 0, true)
        dv.setUint32(8, Number(BigInt.asUintN(32, v.micros / 1000n)), true)
        return hex(b)
      }
      return v.bytes ? hex(v.bytes) : `DuckDB ${dt} ${String(v)}`
    case 'uuid': return v.toString()
    case 'date': return v.days !== undefined ? String(v.days) : `DuckDB ${dt} ${String(v)}`
    case 'time':
      if (dt === 'TIME_NS') return convertUnit(v.nanos, 'ns', t.unit)
      if (dt === 'TIME WITH TIME ZONE' && v.offset !== 0) return `TIMETZ with offset ${v.offset}`
      if (v.micros !== undefined) return convertUnit(v.micros, 'us', t.unit)
      return `DuckDB ${dt} ${String(v)}`
    case 'timestamp':
      // DuckDB has no nanosecond TIMESTAMP WITH TIME ZONE (nor reads INT96
      // finer than microseconds): its value is the instant cut to micros
      if (t.unit === 'ns' && (dt === 'TIMESTAMP WITH TIME ZONE' || dt === 'TIMESTAMP') && v.micros !== undefined)
        return { coarse: v.micros, unit: 'us' }
      if (dt === 'TIMESTAMP_NS') return convertUnit(v.nanos, 'ns', t.unit)
      if (dt === 'TIMESTAMP_MS') return convertUnit(v.millis, 'ms', t.unit)
      if (dt === 'TIMESTAMP_S') return convertUnit(v.seconds, 's', t.unit)
      if (v.micros !== undefined) return convertUnit(v.micros, 'us', t.unit)
      return `DuckDB ${dt} ${String(v)}`
    case 'decimal': {
      if (v.value === undefined) return `DuckDB ${dt} ${String(v)}`
      let u = BigInt(v.value)
      if (v.scale < t.scale) u *= 10n ** BigInt(t.scale - v.scale)
      else if (v.scale > t.scale) return `DuckDB decimal of scale ${v.scale}, inlay's ${t.scale}`
      return decimalText(u, t.scale)
    }
  }
  return `no DuckDB conversion to ${T}`
}

// Parts of DuckDB's type text: the element of "T[]", the fields of
// "STRUCT(a T, ...)", the key and value of "MAP(K, V)".
function splitTop(s) {
  const out = []
  let depth = 0, start = 0, quote = false
  for (let i = 0; i < s.length; i++) {
    const c = s[i]
    if (c === '"') quote = !quote
    if (quote) continue
    if (c === '(' || c === '[') depth++
    else if (c === ')' || c === ']') depth--
    else if (c === ',' && depth === 0) { out.push(s.slice(start, i).trim()); start = i + 1 }
  }
  out.push(s.slice(start).trim())
  return out
}
function elementType(dt) { return dt?.endsWith('[]') ? dt.slice(0, -2) : undefined }
function structTypes(dt) {
  const m = /^STRUCT\((.*)\)$/.exec(dt ?? '')
  const out = {}
  if (!m) return out
  for (const part of splitTop(m[1])) {
    const q = /^"((?:[^"]|"")*)"\s+(.*)$/.exec(part)
    if (q) out[q[1].replaceAll('""', '"')] = q[2]
    else { const sp = part.indexOf(' '); out[part.slice(0, sp)] = part.slice(sp + 1) }
  }
  return out
}
function mapTypes(dt) {
  const m = /^MAP\((.*)\)$/.exec(dt ?? '')
  return m ? splitTop(m[1]) : [undefined, undefined]
}

// ---------------------------------------------------------------------------
// The type tree inlay must read, from the file's schema elements as DuckDB's
// parquet_schema() lists them (depth first), mapped by LogicalTypes.md:
//  - a group annotated LIST: a list; its repeated child is the element when
//    it is a primitive, a group of several fields, or a group of one field
//    named "array" or "<list>_tuple" (two-level lists, the element
//    required); otherwise the repeated group's one field is the element;
//  - a group annotated MAP (or MAP_KEY_VALUE): a map of the repeated
//    group's first field (key) and second (value);
//  - another group: a struct; a repeated field outside a LIST/MAP: a bare
//    repeated field ({type: 'list', repeated: true});
//  - leaves by logical type, else converted type (legacy TIME_* and
//    TIMESTAMP_* adjusted to UTC), else physical type; INT96 is
//    timestamp(ns) not adjusted to UTC; INTERVAL is fixed(12), BSON binary;
//    a logical type inlay does not have, its physical type.

function parseLogical(lt) {
  if (!lt) return null
  const m = /^(\w+?)Type\((.*)\)$/s.exec(lt)
  if (!m) return { name: lt }
  const out = { name: m[1] }
  const body = m[2]
  const utc = /isAdjustedToUTC=(\d)/.exec(body)
  if (utc) out.utc = utc[1] === '1'
  if (/MILLIS=MilliSeconds/.test(body)) out.unit = 'ms'
  if (/MICROS=MicroSeconds/.test(body)) out.unit = 'us'
  if (/NANOS=NanoSeconds/.test(body)) out.unit = 'ns'
  const bw = /bitWidth=(.)/s.exec(body) // printed as a char code by DuckDB
  if (bw) out.bitWidth = /\d/.test(bw[1]) ? Number(/bitWidth=(\d+)/.exec(body)[1]) : bw[1].charCodeAt(0)
  const sg = /isSigned=(\d)/.exec(body)
  if (sg) out.signed = sg[1] === '1'
  return out
}

function leafType(el) {
  const phys = el.type, ct = el.converted_type, lt = parseLogical(el.logical_type)
  const width = el.type_length === null || el.type_length === undefined ? undefined : Number(el.type_length)
  const decimal = () => {
    const t = { type: 'decimal', precision: Number(el.precision), scale: Number(el.scale ?? 0) }
    t.physical = { INT32: 'int32', INT64: 'int64', FIXED_LEN_BYTE_ARRAY: 'fixed', BYTE_ARRAY: 'binary' }[phys]
    if (phys === 'FIXED_LEN_BYTE_ARRAY') t.width = width
    return t
  }
  const ints = { INT_8: [8, true], INT_16: [16, true], INT_32: [32, true], INT_64: [64, true], UINT_8: [8, false], UINT_16: [16, false], UINT_32: [32, false], UINT_64: [64, false] }
  if (phys === 'INT96') return { type: 'timestamp', unit: 'ns', utc: false }
  if (lt) {
    switch (lt.name) {
      case 'String': return { type: 'string' }
      case 'Enum': return { type: 'enum' }
      case 'Json': return { type: 'json' }
      case 'UUID': return { type: 'uuid' }
      case 'Float16': return { type: 'float16' }
      case 'Date': return { type: 'date' }
      case 'Time': return { type: 'time', unit: lt.unit, utc: lt.utc }
      case 'Timestamp': return { type: 'timestamp', unit: lt.unit, utc: lt.utc }
      case 'Decimal': return decimal()
      case 'Int': return { type: `${lt.signed ? '' : 'u'}int${lt.bitWidth}` }
    }
    // a logical type inlay does not have (BSON, UNKNOWN...): fall through
    // to the converted type, else the physical type
  }
  if (ct && !(lt && lt.name === 'Bson')) {
    if (ints[ct]) return { type: `${ints[ct][1] ? '' : 'u'}int${ints[ct][0]}` }
    switch (ct) {
      case 'UTF8': return { type: 'string' }
      case 'ENUM': return { type: 'enum' }
      case 'JSON': return { type: 'json' }
      case 'DATE': return { type: 'date' }
      case 'TIME_MILLIS': return { type: 'time', unit: 'ms', utc: true }
      case 'TIME_MICROS': return { type: 'time', unit: 'us', utc: true }
      case 'TIMESTAMP_MILLIS': return { type: 'timestamp', unit: 'ms', utc: true }
      case 'TIMESTAMP_MICROS': return { type: 'timestamp', unit: 'us', utc: true }
      case 'DECIMAL': return decimal()
    }
  }
  switch (phys) {
    case 'BOOLEAN': return { type: 'boolean' }
    case 'INT32': return { type: 'int32' }
    case 'INT64': return { type: 'int64' }
    case 'FLOAT': return { type: 'float' }
    case 'DOUBLE': return { type: 'double' }
    case 'BYTE_ARRAY': return { type: 'binary' }
    case 'FIXED_LEN_BYTE_ARRAY': return { type: 'fixed', width }
  }
  return { type: `unknown physical ${phys}` }
}

function expectedTree(elements) {
  let at = 1
  const node = () => {
    const el = elements[at++]
    const kids = []
    for (let k = 0; k < Number(el.num_children ?? 0); k++) kids.push(node())
    return { el, kids }
  }
  const fields = []
  for (let k = 0; k < Number(elements[0].num_children); k++) fields.push(node())

  const nullableOf = n => n.el.repetition_type === 'OPTIONAL'
  const annotation = n => {
    const lt = parseLogical(n.el.logical_type)?.name
    if (n.el.converted_type === 'LIST' || lt === 'List') return 'LIST'
    if (n.el.converted_type === 'MAP' || n.el.converted_type === 'MAP_KEY_VALUE' || lt === 'Map') return 'MAP'
    return null
  }
  // t of node n, as a required element when `asElement`
  const typeOf = (n, asElement = false) => {
    const named = t => ({ name: n.el.name, ...t })
    if (n.el.repetition_type === 'REPEATED' && !asElement)
      return named({ type: 'list', repeated: true, nullable: false, element: typeOf(n, true) })
    const nullable = asElement ? false : nullableOf(n)
    if (!n.kids.length) return named({ ...leafType(n.el), nullable })
    const ann = annotation(n)
    if (ann === 'LIST' && n.kids.length === 1 && n.kids[0].el.repetition_type === 'REPEATED') {
      const r = n.kids[0]
      const twoLevel = !r.kids.length || r.kids.length > 1 || r.el.name === 'array' || r.el.name === `${n.el.name}_tuple`
      const element = twoLevel ? typeOf(r, true) : typeOf(r.kids[0])
      delete element.name
      return named({ type: 'list', nullable, element })
    }
    if (ann === 'MAP' && n.kids.length === 1 && n.kids[0].el.repetition_type === 'REPEATED' && n.kids[0].kids.length >= 1) {
      const r = n.kids[0]
      const key = typeOf(r.kids[0]), t = named({ type: 'map', nullable, key })
      delete key.name
      if (r.kids[1]) { t.value = typeOf(r.kids[1]); delete t.value.name }
      return t
    }
    return named({ type: 'struct', nullable, fields: n.kids.map(k => typeOf(k)) })
  }
  return fields.map(f => typeOf(f))
}

// ---------------------------------------------------------------------------
// Reading a file with inlay: the dump, its problems, and the second read

function inlayRead(rep, file) {
  const first = readDump(READ_DUMP, file)
  if (first.error) { rep.add(first.error); return null }
  const d = first.dump
  if (d.error) rep.add(`inlay: read failed: ${d.error} (${d.status})`)
  for (const p of d.problems ?? []) rep.add(`inlay arrays: ${p}`)
  if (!d.error) {
    const second = readDump(READ_DUMP, file, SECOND_READ)
    const how = `inlay read again with ${SECOND_READ.join(' ')}`
    if (second.error) rep.add(`${how}: ${second.error}`)
    else if (second.dump.error) rep.add(`${how}: read failed: ${second.dump.error}`)
    else {
      for (const p of second.dump.problems ?? []) rep.add(`${how}: arrays: ${p}`)
      const diff = firstDifference(d.fields, second.dump.fields)
      if (diff) rep.add(`${how}: ${diff}`)
    }
  }
  return d
}

async function duckdbRead(con, file) {
  const src = `read_parquet(${sqlString(file)}, file_row_number = true)`
  const d = (await con.runAndReadAll(`DESCRIBE SELECT * FROM ${src}`)).getRowObjectsJS()
  const names = d.map(x => x.column_name).filter(n => n !== 'file_row_number')
  const r = await con.runAndReadAll(`SELECT ${names.map(quoteId).join(', ')} FROM ${src} ORDER BY file_row_number`)
  const cols = r.currentRowCount ? r.getColumns() : names.map(() => [])
  return { names, types: names.map(n => d.find(x => x.column_name === n).column_type), cols, rows: r.currentRowCount }
}

// Compare inlay's field values with canonical expected values.
function compareValues(rep, who, t, expected, got) {
  if (got.length !== expected.length) rep.add(`field ${t.name}: inlay read ${got.length} values, ${who} ${expected.length}`)
  const n = Math.min(got.length, expected.length)
  for (let i = 0; i < n; i++)
    if (!sameForeign(t, expected[i], got[i]))
      rep.add(`field ${t.name} (${describeType(t)}) row ${i}: inlay ${bigJSON(got[i])}, ${who} ${bigJSON(expected[i])}`)
}

// A foreign file: inlay against DuckDB.
async function checkForeign(con, file, label) {
  const rep = new Report(label, 'inlay vs DuckDB')
  try {
    const d = inlayRead(rep, file)
    const elements = (await con.runAndReadAll(`SELECT * FROM parquet_schema(${sqlString(file)})`)).getRowObjectsJS()
    const want = expectedTree(elements)
    const duck = await duckdbRead(con, file)
    if (d && !d.error) {
      const meta = (await con.runAndReadAll(`SELECT num_rows, num_row_groups FROM parquet_file_metadata(${sqlString(file)})`)).getRowObjectsJS()[0]
      if (d.num_rows !== Number(meta.num_rows)) rep.add(`inlay: num_rows ${d.num_rows}, DuckDB's parquet_file_metadata ${meta.num_rows}`)
      if (d.row_groups !== Number(meta.num_row_groups)) rep.add(`inlay: ${d.row_groups} row groups, DuckDB's parquet_file_metadata ${meta.num_row_groups}`)
      if (d.rows !== duck.rows) rep.add(`inlay read ${d.rows} rows, DuckDB ${duck.rows}`)
      const names = d.fields.map(f => f.name)
      if (JSON.stringify(names) !== JSON.stringify(duck.names)) rep.add(`inlay's fields ${JSON.stringify(names)}, DuckDB's ${JSON.stringify(duck.names)}`)
      for (const [k, t] of want.entries()) {
        const f = d.fields.find(x => x.name === t.name)
        if (!f) { rep.add(`field ${t.name}: not read by inlay`); continue }
        const tp = inlayTypeProblem(t, f, t.name)
        if (tp) { rep.add(`inlay's type: ${tp}`); continue }
        const j = duck.names.indexOf(t.name)
        if (j < 0) { rep.add(`field ${t.name}: not read by DuckDB`); continue }
        compareValues(rep, 'DuckDB', t, duck.cols[j].map(v => duckCanon(t, duck.types[j], v)), f.values)
      }
      if (want.length !== d.fields.length) rep.add(`inlay read ${d.fields.length} fields, the schema has ${want.length}`)
    }
  } catch (err) {
    rep.add(`check failed: ${err.stack ?? err}`)
  }
  return rep.finish()
}

// ---------------------------------------------------------------------------
// 1. Hand-made files

// Where DuckDB reads a hand-made file otherwise than the JSON says (it is
// only a check of the hand-made bytes; inlay is compared with the JSON).
const HANDMADE_DUCKDB = {
  // DuckDB (1.5) does not apply LogicalTypes.md's rule for a repeated group
  // of one field named "array" or "<list>_tuple" (that group is the
  // element, a struct): it reads the field inside as the element. Its
  // values are wrapped back into the one-field struct to compare.
  legacy_lists: (t, dt, v) => {
    const el = t.type === 'list' ? t.element : null
    if (v === null || !el || el.type !== 'struct' || el.fields.length !== 1 || elementType(dt)?.startsWith('STRUCT')) return duckCanon(t, dt, v)
    const inner = { type: 'list', element: el.fields[0] }
    const name = el.fields[0].name
    const got = duckCanon(inner, dt, v)
    return Array.isArray(got) ? got.map(x => ({ [name]: x })) : got
  },
}
// Hand-made files DuckDB cannot read at all: no cross-check of their bytes.
const HANDMADE_NO_DUCKDB = {
  // DuckDB: "Out of buffer" (it reads levels as RLE only); arrow-rs
  // (parquet-wasm 0.8) fails too ("StructArrayReader out of sync")
  bitpacked_levels: 'DuckDB does not read BIT_PACKED levels',
}

// sameCanon, where one side may be DuckDB's coarser reading of a timestamp
// ({coarse, unit}): the other side, cut to that unit toward zero or down,
// must equal it.
function sameForeign(t, x, y) {
  const coarse = v => v !== null && typeof v === 'object' && 'coarse' in v
  if (coarse(x) || coarse(y)) {
    const [c, v] = coarse(x) ? [x, y] : [y, x]
    if (v === null || v === undefined || typeof v !== 'string') return false
    const fine = BigInt(v), f = UNIT_SCALE[t.unit] / UNIT_SCALE[c.unit]
    const trunc = fine / f, floor = fine % f !== 0n && fine < 0n ? trunc - 1n : trunc
    return c.coarse === trunc || c.coarse === floor
  }
  if (x === null || y === null || x === undefined || y === undefined) return x === y
  switch (t.type) {
    case 'list':
      return Array.isArray(x) && Array.isArray(y) && x.length === y.length && x.every((e, i) => sameForeign(t.element, e, y[i]))
    case 'struct':
      return typeof x === 'object' && typeof y === 'object' && Object.keys(x).length === t.fields.length &&
        Object.keys(y).length === t.fields.length && t.fields.every(f => sameForeign(f, x[f.name], y[f.name]))
    case 'map':
      return Array.isArray(x) && Array.isArray(y) && x.length === y.length &&
        x.every((p, i) => Array.isArray(y[i]) && sameForeign(t.key, p[0], y[i][0]) && (!t.value || sameForeign(t.value, p[1], y[i][1])))
  }
  return sameCanon(t, x, y)
}

async function checkHandmade(con, dir, name) {
  const file = path.resolve(dir, `${name}.parquet`)
  const spec = JSON.parse(fs.readFileSync(path.join(dir, `${name}.json`), 'utf8'))
  const fields = spec.nested ? spec.fields : spec.columns
  // inlay against the JSON
  const rep = new Report(name, 'inlay vs JSON')
  const d = inlayRead(rep, file)
  if (d && !d.error) {
    if (d.rows !== spec.rows) rep.add(`inlay read ${d.rows} rows, the file has ${spec.rows}`)
    if (d.row_groups !== spec.row_groups) rep.add(`inlay: ${d.row_groups} row groups, the file has ${spec.row_groups}`)
    const names = d.fields.map(f => f.name)
    if (JSON.stringify(names) !== JSON.stringify(fields.map(f => f.name))) rep.add(`inlay's fields ${JSON.stringify(names)}`)
    for (const t of fields) {
      const f = d.fields.find(x => x.name === t.name)
      if (!f) continue
      const tp = inlayTypeProblem(t, f, t.name)
      if (tp) { rep.add(`inlay's type: ${tp}`); continue }
      compareValues(rep, 'the JSON', t, t.values, f.values)
    }
  }
  rep.finish()
  // DuckDB against the JSON: the hand-made bytes are what they claim
  const key = name.replace(/^hand__/, '')
  if (HANDMADE_NO_DUCKDB[key]) {
    console.log(`foreign: ${name}: not cross-checked by DuckDB (${HANDMADE_NO_DUCKDB[key]})`)
    return
  }
  const drep = new Report(name, 'DuckDB vs JSON (the hand-made file itself)')
  try {
    const duck = await duckdbRead(con, file)
    if (duck.rows !== spec.rows) drep.add(`DuckDB read ${duck.rows} rows, expected ${spec.rows}`)
    const conv = HANDMADE_DUCKDB[key] ?? duckCanon
    for (const t of fields) {
      const j = duck.names.indexOf(t.name)
      if (j < 0) { drep.add(`field ${t.name}: not read by DuckDB`); continue }
      const vals = duck.cols[j].map(v => conv(t, duck.types[j], v))
      for (let i = 0; i < Math.min(vals.length, t.values.length); i++) {
        if (!sameForeign(t, t.values[i], vals[i]))
          drep.add(`field ${t.name} (DuckDB ${duck.types[j]}) row ${i}: DuckDB ${bigJSON(vals[i])}, expected ${bigJSON(t.values[i])}`)
      }
    }
  } catch (err) {
    drep.add(`DuckDB: ${err.message}`)
  }
  drep.finish()
}

// ---------------------------------------------------------------------------
// 2. Files DuckDB writes

// Every type DuckDB writes, n rows, with nulls in every column (each its
// own pattern) and one column all null. Values from hash(i): deterministic.
function duckdbFlat(n) {
  const nul = (k, e) => `CASE WHEN (i * ${k} + ${k}) % ${11 + k} = 0 THEN NULL ELSE ${e} END`
  const h = k => `hash(i + ${k * 1000003})`
  const cols = [
    ['c_tinyint', `((${h(1)} % 256)::INTEGER - 128)::TINYINT`],
    ['c_smallint', `((${h(2)} % 65536)::INTEGER - 32768)::SMALLINT`],
    // in V2 files INT32 values within +-2^29 (and UINT32 below 2^30), so
    // that no delta between two of them leaves the int32 range: DuckDB's
    // DELTA_BINARY_PACKED computes INT32 deltas in 64 bits (see
    // checkWideDeltas)
    ['c_integer', `((${h(3)} % 4294967296)::BIGINT - 2147483648)::INTEGER`],
    ['c_bigint', `(${h(4)}::HUGEINT - 9223372036854775808)::BIGINT`],
    ['c_hugeint', `${h(5)}::HUGEINT * 1000000007 - ${h(6)}::HUGEINT * 999999937`],
    ['c_uhugeint', `${h(7)}::UHUGEINT * 4294967311`],
    ['c_utinyint', `(${h(8)} % 256)::UTINYINT`],
    ['c_usmallint', `(${h(9)} % 65536)::USMALLINT`],
    ['c_uinteger', `(${h(10)} % 4294967296)::UINTEGER`],
    ['c_ubigint', `${h(11)}`],
    ['c_float', `(CASE i % 50 WHEN 3 THEN 'NaN'::FLOAT WHEN 4 THEN 'Infinity'::FLOAT WHEN 5 THEN '-Infinity'::FLOAT
       WHEN 6 THEN '-0.0'::FLOAT WHEN 7 THEN 3.4028235e38::FLOAT WHEN 8 THEN 1.4e-45::FLOAT WHEN 9 THEN 0::FLOAT
       ELSE ((${h(12)} % 2000001)::DOUBLE - 1000000) / 7.3 END)::FLOAT`],
    ['c_double', `CASE i % 50 WHEN 3 THEN 'NaN'::DOUBLE WHEN 4 THEN 'Infinity'::DOUBLE WHEN 5 THEN '-Infinity'::DOUBLE
       WHEN 6 THEN '-0.0'::DOUBLE WHEN 7 THEN 1.7976931348623157e308 WHEN 8 THEN 5e-324 WHEN 9 THEN 0::DOUBLE
       ELSE ${h(13)}::DOUBLE / 3.7e10 * (CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END) END`],
    ['c_decimal_4_1', `(((${h(14)} % 19999)::INTEGER - 9999) * 0.1)::DECIMAL(4,1)`],
    ['c_decimal_9_2', `(((${h(15)} % 1999999999)::BIGINT - 999999999) * 0.01)::DECIMAL(9,2)`],
    ['c_decimal_18_3', `(((${h(16)} % 1999999999999999999)::HUGEINT - 999999999999999999) * 0.001)::DECIMAL(18,3)`],
    ['c_decimal_38_10', `(CASE i % 17 WHEN 1 THEN '9999999999999999999999999999.9999999999' WHEN 2 THEN '-9999999999999999999999999999.9999999999'
       ELSE (CASE WHEN i % 2 = 0 THEN '-' ELSE '' END) || (${h(17)} % 1000000000000000000)::VARCHAR
         || lpad((${h(18)} % 10000000000)::VARCHAR, 10, '0') || '.' || lpad((${h(19)} % 10000000000)::VARCHAR, 10, '0') END)::DECIMAL(38,10)`],
    ['c_varchar', `CASE i % 6 WHEN 0 THEN '' WHEN 1 THEN 'ü€😀 ' || i WHEN 2 THEN repeat('ab', (i % 40)::INTEGER)
       WHEN 3 THEN 'line' || chr(10) || 'tab' || chr(9) || '"q"\\' || chr(1) ELSE md5(i::VARCHAR) END`],
    ['c_blob', `CASE i % 4 WHEN 0 THEN ''::BLOB WHEN 1 THEN '\\x00\\xFF\\x80'::BLOB ELSE unhex(md5(i::VARCHAR)) END`],
    ['c_boolean', `${h(20)} % 3 = 0`],
    ['c_date', `DATE '1970-01-01' + ((${h(21)} % 2000000)::INTEGER - 1000000)`],
    ['c_time', `'00:00:00'::TIME + to_microseconds((${h(22)} % 86400000000)::BIGINT)`],
    ['c_timetz', `('00:00:00'::TIME + to_microseconds((${h(23)} % 86400000000)::BIGINT))::TIMETZ`],
    ['c_timestamp', `make_timestamp((${h(24)} % 120000000000000000)::BIGINT - 60000000000000000)`],
    ['c_timestamp_ms', `make_timestamp(((${h(25)} % 120000000000000000)::BIGINT - 60000000000000000) // 1000 * 1000)::TIMESTAMP_MS`],
    ['c_timestamp_ns', `make_timestamp_ns((${h(26)} % 9000000000000000000)::BIGINT - 4500000000000000000)`],
    ['c_timestamp_s', `make_timestamp(((${h(27)} % 120000000000000000)::BIGINT - 60000000000000000) // 1000000 * 1000000)::TIMESTAMP_S`],
    ['c_timestamptz', `make_timestamp((${h(28)} % 120000000000000000)::BIGINT - 60000000000000000)::TIMESTAMPTZ`],
    ['c_uuid', `md5(i::VARCHAR)::UUID`],
    ['c_interval', `to_months((${h(29)} % 100)::INTEGER) + to_days((${h(30)} % 1000)::INTEGER) + to_milliseconds((${h(31)} % 100000000)::BIGINT)`],
    ['c_enum', `(['sad', 'ok', 'happy'])[(i % 3) + 1]::mood`],
    ['c_json', `json_object('i', i, 's', 'x' || i, 'a', [i, i + 1])`],
  ]
  return `SELECT i::INTEGER AS id, ${cols.map(([name, e], k) => `${nul(k + 1, e)} AS ${name}`).join(',\n  ')},
    NULL::INTEGER AS c_all_null FROM range(${n}) t(i)`
}

// Lists, structs, maps and their combinations, nulls and empties at every
// level.
function duckdbNested(n) {
  return `SELECT i::INTEGER AS id,
  CASE WHEN i % 9 = 0 THEN NULL WHEN i % 9 = 1 THEN []::INTEGER[]
    ELSE list_transform(range((i % 5)::BIGINT), x -> CASE WHEN (x + i) % 4 = 0 THEN NULL ELSE (x * i)::INTEGER END) END AS l_int,
  CASE WHEN i % 7 = 0 THEN NULL ELSE list_transform(range((i % 4)::BIGINT), x -> CASE WHEN x = 1 THEN NULL ELSE 's' || x || '_' || i END) END AS l_str,
  CASE WHEN i % 6 = 0 THEN NULL ELSE {'a': CASE WHEN i % 3 = 0 THEN NULL ELSE i END, 'b': 'x' || i,
    'c': CASE WHEN i % 5 = 0 THEN NULL ELSE {'d': i * 1.5, 'e': [i, NULL]} END} END AS st,
  CASE WHEN i % 8 = 0 THEN NULL ELSE map_from_entries(list_transform(range((i % 4)::BIGINT),
    x -> {'key': 'k' || x, 'value': CASE WHEN x = 1 THEN NULL ELSE x * i END})) END AS m,
  list_transform(range((i % 4)::BIGINT), x -> CASE WHEN x = 2 THEN NULL ELSE {'p': x, 'q': CASE WHEN x = 0 THEN NULL ELSE 'v' || x END} END) AS l_struct,
  CASE WHEN i % 10 = 0 THEN NULL ELSE list_transform(range((i % 3)::BIGINT),
    x -> CASE WHEN x = 1 THEN NULL ELSE list_transform(range((x + i % 2)::BIGINT), y -> (y * i)::INTEGER) END) END AS l_l,
  map_from_entries(list_transform(range((i % 3)::BIGINT), x -> {'key': x::INTEGER, 'value': list_transform(range(x), y -> y)})) AS m_list,
  {'ts': make_timestamp(i * 1000001), 'dec': (i * 0.01)::DECIMAL(9,2), 'u': md5(i::VARCHAR)::UUID,
    'bl': unhex(md5(i::VARCHAR)), 'f': (i / 3)::FLOAT, 'd': DATE '2000-01-01' + i::INTEGER, 'b': i % 2 = 0} AS st_types,
  list_transform(range((i % 3)::BIGINT), x -> (i * x * 0.001)::DECIMAL(38,10)) AS l_dec,
  CASE WHEN i % 11 = 0 THEN NULL ELSE [{'a': [{'b': i, 'c': [[(i % 30000)::SMALLINT]]}], 'z': NULL::VARCHAR}] END AS deep
FROM range(${n}) t(i)`
}

// [name, query, COPY options]
function duckdbCases() {
  const cases = []
  for (const [codec, version, dict] of [
    ['zstd', 'V1', true], ['zstd', 'V2', true], ['gzip', 'V1', true], ['gzip', 'V2', false],
    ['uncompressed', 'V1', false], ['uncompressed', 'V2', true], ['zstd', 'V1', false], ['zstd', 'V2', false],
  ]) {
    const opts = `COMPRESSION ${codec}, PARQUET_VERSION ${version}, ROW_GROUP_SIZE 1000${dict ? '' : ', DICTIONARY_SIZE_LIMIT 0'}`
    const tag = `${codec}__${version.toLowerCase()}__${dict ? 'dict' : 'plain'}`
    cases.push([`duck_flat__${tag}`, duckdbFlat(3000), opts])
    cases.push([`duck_nested__${tag}`, duckdbNested(2500), opts])
  }
  cases.push(['duck_big__zstd__v1', `SELECT * FROM (${duckdbFlat(BIG)}) JOIN (${duckdbNested(BIG)}) USING (id)`,
    `COMPRESSION zstd, ROW_GROUP_SIZE ${BIG / 5}`])
  cases.push(['duck_big__gzip__v2__plain', `SELECT * FROM (${duckdbFlat(BIG)}) JOIN (${duckdbNested(BIG)}) USING (id)`,
    `COMPRESSION gzip, PARQUET_VERSION V2, ROW_GROUP_SIZE ${BIG * 3 / 10}, DICTIONARY_SIZE_LIMIT 0`])
  cases.push(['duck_empty', `SELECT * FROM (${duckdbFlat(10)}) JOIN (${duckdbNested(10)}) USING (id) WHERE false`, 'COMPRESSION zstd'])
  cases.push(['duck_one_row', `SELECT * FROM (${duckdbFlat(1)}) JOIN (${duckdbNested(1)}) USING (id)`, 'COMPRESSION uncompressed'])
  return cases
}

// DuckDB (1.5) with PARQUET_VERSION V2 writes INT32 columns in
// DELTA_BINARY_PACKED with the deltas computed in 64 bits: a min_delta
// outside the int32 range and miniblocks 33 bits wide wherever two values
// are more than 2^31 apart (full-range INTEGER, UINTEGER). Encodings.md has
// INT32 deltas wrap in 32 bits, and arrow-rs (parquet-wasm 0.8) refuses
// such pages ("'min_delta' too large"); inlay reads them, since the sums
// wrap to the same 32-bit values. Each such column is read on its own and
// must equal DuckDB's reading.
async function checkWideDeltas(con, dir) {
  const name = 'duck_wide_deltas__v2'
  const file = path.resolve(dir, `${name}.parquet`)
  await con.run(`COPY (SELECT i::INTEGER AS id,
      ((hash(i) % 4294967296)::BIGINT - 2147483648)::INTEGER AS c_integer_full,
      (hash(i + 1) % 4294967296)::UINTEGER AS c_uinteger_full,
      (2147483648 - 536870912 + hash(i + 2) % 1073741824)::UINTEGER AS c_uinteger_high,
      ((hash(i + 3) % 1073741824)::BIGINT - 536870912)::INTEGER AS c_integer_small
    FROM range(5000) t(i)) TO ${sqlString(file)} (FORMAT parquet, PARQUET_VERSION V2, COMPRESSION zstd)`)
  const elements = (await con.runAndReadAll(`SELECT * FROM parquet_schema(${sqlString(file)})`)).getRowObjectsJS()
  const want = expectedTree(elements)
  const duck = await duckdbRead(con, file)
  for (const t of want) {
    const rep = new Report(name, `inlay vs DuckDB, field ${t.name} alone`)
    const r = readDump(READ_DUMP, file, ['--fields', t.name])
    if (r.error) rep.add(r.error)
    else if (r.dump.error) {
      rep.add(`inlay: read failed: ${r.dump.error} (${r.dump.status})`)
    } else {
      for (const p of r.dump.problems ?? []) rep.add(`inlay arrays: ${p}`)
      const f = r.dump.fields[0]
      const tp = inlayTypeProblem(t, f, t.name)
      if (tp) rep.add(`inlay's type: ${tp}`)
      else {
        const j = duck.names.indexOf(t.name)
        compareValues(rep, 'DuckDB', t, duck.cols[j].map(v => duckCanon(t, duck.types[j], v)), f.values)
      }
    }
    rep.finish()
  }
}

// ---------------------------------------------------------------------------
// 3. Files arrow-rs writes (parquet-wasm)

function prng(seed) {
  let s = BigInt(seed) | 1n
  return () => {
    s = (s * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn
    return s
  }
}

// An Arrow table of n rows built buffer by buffer: every type arrow-rs
// writes, each column nullable (nulls on its own pattern) or not.
function arrowTable(n, seed) {
  const rnd = prng(seed)
  const r32 = () => Number(rnd() >> 32n) | 0
  const r64 = () => BigInt.asIntN(64, rnd())
  const bitmap = valid => { const b = new Uint8Array((valid.length + 7) >> 3); valid.forEach((v, i) => { if (v) b[i >> 3] |= 1 << (i & 7) }); return b }
  const fields = [], datas = []
  const add = (name, type, nullable, length, build) => {
    const valid = Array.from({ length: n }, (_, i) => !nullable || (i * 7 + name.length) % 9 !== 0)
    const data = build(valid)
    fields.push(new A.Field(name, type, nullable))
    datas.push(data)
  }
  const prim = (name, type, nullable, arr) => add(name, type, nullable, n, valid => A.makeData({
    type, length: n, nullCount: valid.filter(v => !v).length, nullBitmap: nullable ? bitmap(valid) : undefined, data: arr,
  }))
  const I = f => Array.from({ length: n }, (_, i) => f(i))
  for (const nullable of [true, false]) {
    const s = nullable ? '' : '_req'
    prim(`i8${s}`, new A.Int8, nullable, Int8Array.from(I(() => r32())))
    prim(`i16${s}`, new A.Int16, nullable, Int16Array.from(I(() => r32())))
    prim(`i32${s}`, new A.Int32, nullable, Int32Array.from(I(i => (i % 5 === 0 ? i : r32()))))
    prim(`i64${s}`, new A.Int64, nullable, BigInt64Array.from(I(i => (i % 3 === 0 ? BigInt(i) : r64()))))
    prim(`u8${s}`, new A.Uint8, nullable, Uint8Array.from(I(() => r32())))
    prim(`u16${s}`, new A.Uint16, nullable, Uint16Array.from(I(() => r32())))
    prim(`u32${s}`, new A.Uint32, nullable, Uint32Array.from(I(() => r32())))
    prim(`u64${s}`, new A.Uint64, nullable, BigUint64Array.from(I(() => rnd())))
    prim(`f32${s}`, new A.Float32, nullable, Float32Array.from(I(i => [NaN, -0, Infinity, -Infinity][i % 40] ?? r32() / 1024)))
    prim(`f64${s}`, new A.Float64, nullable, Float64Array.from(I(i => [NaN, -0, Infinity, 5e-324][i % 40] ?? Number(r64()) / 3.3e7)))
    prim(`f16${s}`, new A.Float16, nullable, Uint16Array.from(I(i => [0x7e00, 0x8000, 0x7c00, 0x0001][i % 40] ?? (r32() & 0x7bff))))
    prim(`date32${s}`, new A.DateDay, nullable, Int32Array.from(I(() => r32() % 3000000)))
    prim(`ts_s${s}`, new A.TimestampSecond, nullable, BigInt64Array.from(I(() => r64() / 1000000000n)))
    prim(`ts_ms_utc${s}`, new A.TimestampMillisecond('UTC'), nullable, BigInt64Array.from(I(() => r64() / 1000000n)))
    prim(`ts_us${s}`, new A.TimestampMicrosecond, nullable, BigInt64Array.from(I(() => r64() / 1000n)))
    prim(`ts_ns_tz${s}`, new A.TimestampNanosecond('+01:00'), nullable, BigInt64Array.from(I(() => r64())))
    prim(`time_ms${s}`, new A.TimeMillisecond, nullable, Int32Array.from(I(() => (r32() >>> 0) % 86400000)))
    prim(`time_us${s}`, new A.TimeMicrosecond, nullable, BigInt64Array.from(I(() => BigInt.asUintN(64, r64()) % 86400000000n)))
    prim(`time_ns${s}`, new A.TimeNanosecond, nullable, BigInt64Array.from(I(() => BigInt.asUintN(64, r64()) % 86400000000000n)))
    prim(`dec_9_2${s}`, new A.Decimal(2, 9, 128), nullable, Uint32Array.from(I(() => {
      const v = BigInt(r32() % 1000000000)
      return [0, 1, 2, 3].map(w => Number(BigInt.asUintN(32, v >> BigInt(32 * w))))
    }).flat()))
    prim(`dec_38_10${s}`, new A.Decimal(10, 38, 128), nullable, Uint32Array.from(I(() => {
      const v = (BigInt.asUintN(64, r64()) * BigInt.asUintN(64, r64())) % (10n ** 38n) * (rnd() & 1n ? -1n : 1n)
      return [0, 1, 2, 3].map(w => Number(BigInt.asUintN(32, v >> BigInt(32 * w))))
    }).flat()))
    prim(`fsb5${s}`, new A.FixedSizeBinary(5), nullable, Uint8Array.from(I(i => [i & 255, (i >> 8) & 255, r32() & 255, 0, 255]).flat()))
    const strs = I(i => (i % 13 === 0 ? '' : i % 5 === 0 ? 'ü€😀' + i : 'str' + (r32() % 50)))
    const valid = I(i => !nullable || (i * 7 + 3) % 9 !== 0)
    fields.push(new A.Field(`utf8${s}`, new A.Utf8, nullable))
    datas.push(A.vectorFromArray(strs.map((x, i) => (valid[i] ? x : null)), new A.Utf8).data[0])
    fields.push(new A.Field(`large_utf8${s}`, new A.LargeUtf8, nullable))
    datas.push(A.vectorFromArray(strs.map((x, i) => (valid[i] ? x + '!' : null)), new A.LargeUtf8).data[0])
    fields.push(new A.Field(`binary${s}`, new A.Binary, nullable))
    datas.push(A.vectorFromArray(I(i => (valid[i] ? Uint8Array.from({ length: i % 7 }, () => r32() & 255) : null)), new A.Binary).data[0])
    fields.push(new A.Field(`bool${s}`, new A.Bool, nullable))
    datas.push(A.vectorFromArray(I(i => (valid[i] ? (r32() & 3) === 0 : null)), new A.Bool).data[0])
    fields.push(new A.Field(`dict${s}`, new A.Dictionary(new A.Utf8, new A.Int32), nullable))
    datas.push(A.vectorFromArray(I(i => (valid[i] ? ['red', 'green', 'blue'][i % 3] : null)), new A.Dictionary(new A.Utf8, new A.Int32)).data[0])
    // nested
    const listT = new A.List(new A.Field('item', new A.Int64, true))
    fields.push(new A.Field(`list_i64${s}`, listT, nullable))
    datas.push(A.vectorFromArray(I(i => (valid[i] ? Array.from({ length: i % 4 }, (_, k) => (k === 1 ? null : BigInt(i * k))) : null)), listT).data[0])
    const structT = new A.Struct([new A.Field('a', new A.Int32, true), new A.Field('b', new A.Utf8, false),
      new A.Field('c', new A.List(new A.Field('item', new A.Float64, false)), true)])
    fields.push(new A.Field(`struct${s}`, structT, nullable))
    datas.push(A.vectorFromArray(I(i => (valid[i] ? { a: i % 3 ? i : null, b: 'b' + i, c: i % 4 ? [i / 2, i / 4] : null } : null)), structT).data[0])
    const mapT = new A.Map_(new A.Field('entries', new A.Struct([new A.Field('key', new A.Utf8, false), new A.Field('value', new A.Int32, true)]), false))
    fields.push(new A.Field(`map${s}`, mapT, nullable))
    datas.push(A.vectorFromArray(I(i => (valid[i] ? new Map(Array.from({ length: i % 3 }, (_, k) => ['k' + k, k === 1 ? null : i + k])) : null)), mapT).data[0])
    const lolT = new A.List(new A.Field('item', new A.List(new A.Field('item', new A.Utf8, true)), true))
    fields.push(new A.Field(`list_list${s}`, lolT, nullable))
    datas.push(A.vectorFromArray(I(i => (valid[i] ? Array.from({ length: i % 3 }, (_, k) => (k === 1 ? null : Array.from({ length: (i + k) % 3 }, (_, q) => (q === 2 ? null : `v${i}.${q}`)))) : null)), lolT).data[0])
    const losT = new A.List(new A.Field('item', new A.Struct([new A.Field('x', new A.Float32, true), new A.Field('y', new A.Int16, true)]), true))
    fields.push(new A.Field(`list_struct${s}`, losT, nullable))
    datas.push(A.vectorFromArray(I(i => (valid[i] ? Array.from({ length: i % 4 }, (_, k) => (k === 2 ? null : { x: k === 0 ? null : i / 8, y: k })) : null)), losT).data[0])
  }
  const schema = new A.Schema(fields)
  const batch = new A.RecordBatch(schema, A.makeData({ type: new A.Struct(fields), length: n, nullCount: 0, children: datas }))
  return new A.Table(schema, [batch])
}

// [name, WriterPropertiesBuilder setup, rows, twin]. A file with a twin is
// one DuckDB cannot read: the same table is written again with arrow-rs's
// default properties (NAME.twin.parquet), which is compared with DuckDB,
// and inlay must read both files alike.
function arrowCases() {
  const E = pw.Encoding
  const perColumn = (b, table, pick) => {
    for (const f of table.schema.fields) {
      const e = pick(f)
      if (e !== undefined) b = b.setColumnEncoding(f.name, e)
    }
    return b
  }
  const isInt = f => A.DataType.isInt(f.type) || A.DataType.isDate(f.type) || A.DataType.isTime(f.type) || A.DataType.isTimestamp(f.type) ||
    (A.DataType.isDecimal(f.type) && f.type.precision <= 18)
  const isFloat = f => A.DataType.isFloat(f.type) && f.type.precision !== A.Precision.HALF
  const isText = f => A.DataType.isUtf8(f.type) || A.DataType.isLargeUtf8(f.type) || A.DataType.isBinary(f.type)
  const isFixed = f => A.DataType.isFixedSizeBinary(f.type) || (A.DataType.isDecimal(f.type) && f.type.precision > 18) ||
    (A.DataType.isFloat(f.type) && f.type.precision === A.Precision.HALF)
  const delta = f => (isInt(f) ? E.DELTA_BINARY_PACKED : isText(f) ? E.DELTA_LENGTH_BYTE_ARRAY : isFixed(f) ? E.DELTA_BYTE_ARRAY
    : isFloat(f) ? E.BYTE_STREAM_SPLIT : A.DataType.isBool(f.type) ? E.RLE : undefined)
  const split = f => (isInt(f) || isFloat(f) || isFixed(f) ? E.BYTE_STREAM_SPLIT : isText(f) ? E.DELTA_BYTE_ARRAY : undefined)
  return [
    ['arrow__v1__zstd__dict', (b) => b.setCompression(pw.Compression.ZSTD), 3000],
    ['arrow__v2__gzip__plain', (b) => b.setCompression(pw.Compression.GZIP).setWriterVersion(pw.WriterVersion.V2).setDictionaryEnabled(false), 3000],
    ['arrow__v1__uncompressed__dict__small_pages', (b) => b.setCompression(pw.Compression.UNCOMPRESSED).setDataPageSizeLimit(700)
      .setWriteBatchSize(50).setMaxRowGroupSize(1100).setDictionaryPageSizeLimit(2000), 3000],
    ['arrow__v1__uncompressed__delta', (b, t) => perColumn(b.setCompression(pw.Compression.UNCOMPRESSED).setDictionaryEnabled(false), t, delta), 2000],
    ['arrow__v2__zstd__delta__small_pages', (b, t) => perColumn(b.setCompression(pw.Compression.ZSTD).setWriterVersion(pw.WriterVersion.V2)
      .setDictionaryEnabled(false).setDataPageSizeLimit(500).setWriteBatchSize(64).setMaxRowGroupSize(700), t, delta), 2000],
    // DuckDB cannot read BYTE_STREAM_SPLIT on INT32, INT64 or
    // FIXED_LEN_BYTE_ARRAY (see check.mjs): compared through its twin
    ['arrow__v2__gzip__byte_stream_split', (b, t) => perColumn(b.setCompression(pw.Compression.GZIP).setWriterVersion(pw.WriterVersion.V2)
      .setDictionaryEnabled(false), t, split), 2000, true],
    ['arrow__v2__zstd__dict__big', (b) => b.setCompression(pw.Compression.ZSTD).setWriterVersion(pw.WriterVersion.V2)
      .setMaxRowGroupSize(Math.min(30000, BIG / 3)), BIG],
  ]
}

function writeArrow(file, rows, seed, setup) {
  const table = arrowTable(rows, seed)
  const props = setup(new pw.WriterPropertiesBuilder(), table).build()
  const bytes = pw.writeParquet(pw.Table.fromIPCStream(A.tableToIPC(table, 'stream')), props)
  fs.writeFileSync(file, bytes)
}

// ---------------------------------------------------------------------------
// 5. Round trips: inlay reads, inlay writes, inlay and DuckDB compare

async function roundTrip(con, src, label, writerArgs) {
  const rep = new Report(label, `round trip ${writerArgs.join(' ') || '(default writer options)'}`)
  try {
    const out = src.replace(/\.parquet$/, `.rewrite${writerArgs.join('').replace(/[^a-z0-9]+/gi, '_')}.parquet`)
    fs.rmSync(out, { force: true })
    const w = readDump(READ_DUMP, src, ['--rewrite', out, ...writerArgs])
    if (w.error) { rep.add(w.error); return rep.finish() }
    if (w.dump.error) { rep.add(`rewrite failed: ${w.dump.error} (${w.dump.status})`); return rep.finish() }
    // inlay reads the copy exactly as the source
    const a = readDump(READ_DUMP, out)
    if (a.error) { rep.add(a.error); return rep.finish() }
    if (a.dump.error) { rep.add(`inlay cannot read its copy: ${a.dump.error}`); return rep.finish() }
    for (const p of a.dump.problems ?? []) rep.add(`inlay arrays (copy): ${p}`)
    const diff = firstDifference(w.dump.fields, a.dump.fields)
    if (diff) rep.add(`inlay reads the copy otherwise than the source: ${diff}`)
    if (a.dump.rows !== w.dump.rows) rep.add(`the copy has ${a.dump.rows} rows, the source ${w.dump.rows}`)
    // DuckDB: the same rows both ways
    const describe = async f => (await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${sqlString(f)})`)).getRowObjectsJS()
    const [da, db] = [await describe(src), await describe(out)]
    // the columns to compare, and how DuckDB reads each in the copy where
    // its type differs (see the normalisations at the top)
    const exprs = []
    for (const c of da) {
      const o = db.find(x => x.column_name === c.column_name)
      const q = quoteId(c.column_name)
      if (!o) { rep.add(`DuckDB: the copy lacks column ${c.column_name}`); continue }
      if (o.column_type === c.column_type) { exprs.push([q, q]); continue }
      // INTERVAL becomes fixed(12), which DuckDB reads as BLOB: left out
      if (c.column_type.includes('INTERVAL') && o.column_type === c.column_type.replaceAll('INTERVAL', 'BLOB')) continue
      // legacy converted TIMESTAMP_*/TIME_* (adjusted to UTC by the spec,
      // and so in inlay's copy): DuckDB reads the source's as local
      if ((c.column_type === 'TIMESTAMP' && o.column_type === 'TIMESTAMP WITH TIME ZONE') ||
          (c.column_type === 'TIME' && o.column_type === 'TIME WITH TIME ZONE')) {
        exprs.push([q, `${q}::${c.column_type} AS ${q}`])
        continue
      }
      // a two-level list of one-field groups named "array" / "<list>_tuple":
      // DuckDB reads the source's element as the field inside, the copy's
      // (standard three-level, element the one-field struct) as the struct
      const st = /^STRUCT\(("?)([^ "]+)\1 (.*)\)\[\]$/.exec(o.column_type)
      if (st && c.column_type === `${st[3]}[]`) {
        exprs.push([q, `list_transform(${q}, inlay_elem__ -> inlay_elem__.${quoteId(st[2])}) AS ${q}`])
        continue
      }
      rep.add(`DuckDB: column ${c.column_name} is ${o.column_type} in the copy, ${c.column_type} in the source`)
    }
    const count = async sql => Number((await con.runAndReadAll(sql)).getRows()[0][0])
    const A_ = `SELECT ${exprs.map(e => e[0]).join(', ')} FROM read_parquet(${sqlString(src)})`
    const B_ = `SELECT ${exprs.map(e => e[1]).join(', ')} FROM read_parquet(${sqlString(out)})`
    const [na, nb] = [await count(`SELECT count(*) FROM (${A_})`), await count(`SELECT count(*) FROM (${B_})`)]
    if (na !== nb) rep.add(`DuckDB: ${nb} rows in the copy, ${na} in the source`)
    const ab = await count(`SELECT count(*) FROM (${A_} EXCEPT ALL ${B_})`)
    const ba = await count(`SELECT count(*) FROM (${B_} EXCEPT ALL ${A_})`)
    if (ab) rep.add(`DuckDB: ${ab} rows of the source are not in the copy (EXCEPT ALL)`)
    if (ba) rep.add(`DuckDB: ${ba} rows of the copy are not in the source (EXCEPT ALL)`)
  } catch (err) {
    rep.add(`check failed: ${err.stack ?? err}`)
  }
  return rep.finish()
}

// ---------------------------------------------------------------------------

async function main() {
  const dir = process.argv[2]
  if (!dir) {
    console.error('usage: node foreign.mjs WORKDIR [NAME-REGEX]   (INLAY_READ_DUMP=path of interop_read_dump)')
    process.exit(2)
  }
  const only = process.argv[3] ? new RegExp(process.argv[3]) : null
  const want = name => !only || only.test(name)
  if (!READ_DUMP || !fs.existsSync(READ_DUMP)) {
    console.error(`foreign: set INLAY_READ_DUMP to the interop_read_dump program${READ_DUMP ? ` (${READ_DUMP} does not exist)` : ''}`)
    process.exit(2)
  }
  fs.mkdirSync(dir, { recursive: true })
  const started = Date.now()
  const db = await DuckDBInstance.create(':memory:')
  const con = await db.connect()
  await con.run(`SET TimeZone = 'UTC'`)
  await con.run(`CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')`)

  // 1. hand-made
  const hand = fs.readdirSync(dir).filter(f => /^hand__.*\.json$/.test(f)).map(f => f.replace(/\.json$/, '')).filter(want).sort()
  if (!only && hand.length === 0) { console.error(`foreign: no hand__*.json in ${dir} (run interop_handmade ${dir} first)`); process.exit(1) }
  for (const name of hand) await checkHandmade(con, dir, name)

  // 2. DuckDB
  for (const [name, query, opts] of duckdbCases()) {
    if (!want(name)) continue
    const file = path.resolve(dir, `${name}.parquet`)
    try {
      await con.run(`COPY (${query}) TO ${sqlString(file)} (FORMAT parquet, ${opts})`)
    } catch (err) {
      const rep = new Report(name, 'DuckDB writing')
      rep.add(`COPY failed: ${err.message}`)
      rep.finish()
      continue
    }
    await checkForeign(con, file, name)
  }

  if (want('duck_wide_deltas__v2')) await checkWideDeltas(con, dir)

  // 3. arrow-rs
  let seed = 1
  for (const [name, setup, rows, twin] of arrowCases()) {
    seed++
    if (!want(name)) continue
    const file = path.resolve(dir, `${name}.parquet`)
    const twinFile = path.resolve(dir, `${name}.twin.parquet`)
    try {
      writeArrow(file, rows, seed, setup)
      if (twin) writeArrow(twinFile, rows, seed, b => b)
    } catch (err) {
      const rep = new Report(name, 'arrow-rs writing')
      rep.add(`writeParquet failed: ${err.message ?? err}`)
      rep.finish()
      continue
    }
    if (!twin) {
      await checkForeign(con, file, name)
      continue
    }
    await checkForeign(con, twinFile, `${name}.twin`)
    const rep = new Report(name, 'inlay vs inlay on its twin')
    const d = inlayRead(rep, file), e = inlayRead(rep, twinFile)
    if (d && e && !d.error && !e.error) {
      const diff = firstDifference(e.fields, d.fields)
      if (diff) rep.add(`inlay reads ${name} otherwise than its twin (arrow-rs's defaults): ${diff}`)
    }
    rep.finish()
  }

  // 4. the other codecs: DuckDB's SNAPPY, LZ4_RAW and BROTLI; arrow-rs's
  // SNAPPY, BROTLI, LZ4_RAW and the deprecated Hadoop-framed LZ4
  for (const codec of ['SNAPPY', 'LZ4_RAW', 'BROTLI']) {
    const name = `duck_codec__${codec.toLowerCase()}`
    if (!want(name)) continue
    const file = path.resolve(dir, `${name}.parquet`)
    await con.run(`COPY (${duckdbFlat(100)}) TO ${sqlString(file)} (FORMAT parquet, COMPRESSION ${codec})`)
    await checkForeign(con, file, name)
  }
  for (const codec of ['SNAPPY', 'BROTLI', 'LZ4_RAW', 'LZ4']) {
    const name = `arrow_codec__${codec.toLowerCase()}`
    if (!want(name) || pw.Compression[codec] === undefined) continue
    const file = path.resolve(dir, `${name}.parquet`)
    writeArrow(file, 100, 99, b => b.setCompression(pw.Compression[codec]))
    if (codec !== 'LZ4') { await checkForeign(con, file, name); continue }
    // DuckDB does not read the Hadoop-framed LZ4: inlay must read the file
    // as it reads its twin (the same table, uncompressed), which DuckDB checks
    const twinFile = path.resolve(dir, `${name}.twin.parquet`)
    writeArrow(twinFile, 100, 99, b => b.setCompression(pw.Compression.UNCOMPRESSED))
    await checkForeign(con, twinFile, `${name}.twin`)
    const rep = new Report(name, 'inlay vs inlay on its uncompressed twin')
    const d = inlayRead(rep, file), e = inlayRead(rep, twinFile)
    if (d && e && !d.error && !e.error) {
      const diff = firstDifference(e.fields, d.fields)
      if (diff) rep.add(`inlay reads ${name} otherwise than its twin: ${diff}`)
      if (d.rows !== 100) rep.add(`${d.rows} rows, 100 written`)
    }
    rep.finish()
  }

  // 5. round trips
  const trips = [
    ['duck_flat__zstd__v1__dict', []],
    ['duck_flat__gzip__v2__plain', ['--page-version', '2', '--uncompressed']],
    ['duck_nested__zstd__v2__dict', []],
    ['duck_nested__uncompressed__v1__plain', ['--page-version', '2', '--row-group-rows', '777', '--page-rows', '100']],
    ['duck_big__zstd__v1', ['--row-group-rows', '30000']],
    ['arrow__v2__zstd__delta__small_pages', []],
    ['arrow__v1__zstd__dict', ['--page-version', '2', '--page-rows', '64']],
    ['hand__legacy_lists', []],
    ['hand__converted_types', []],
  ]
  for (const [name, args] of trips) {
    if (!want(name)) continue
    const file = path.resolve(dir, `${name}.parquet`)
    if (!fs.existsSync(file)) continue // its writing failed, reported above
    await roundTrip(con, file, name, args)
  }

  const secs = ((Date.now() - started) / 1000).toFixed(1)
  console.log(`foreign: ${results.pass} checks passed, ${results.fail} failed, in ${secs}s (files in ${dir})`)
  if (failures.length) {
    console.log(`foreign: FAILED (${failures.length} failure(s), details above)`)
    process.exit(1)
  }
}

main().catch(err => {
  console.error(`foreign: ${err.stack ?? err}`)
  process.exit(1)
})
