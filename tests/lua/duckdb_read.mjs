#!/usr/bin/env node
// duckdb_read.mjs FILE...
//
// Reads Parquet files with DuckDB (@duckdb/node-api, installed by the
// interop tests in tests/interop/node_modules) and prints what DuckDB sees
// as a Lua chunk, for the Lua tests to load and compare:
//
//   return {
//     ["FILE"] = {
//       rows = N, row_groups = G,
//       columns = { "id", ... }, types = { "BIGINT", ... },   -- DESCRIBE's types
//       values = { id = { "1", "2", n = 2 }, ... },           -- nil for nulls
//       chunks = { id = { compression =, encodings =, has_min =, null_count = }, ... },  -- row group 0
//       kv = { key = "value", ... },
//     }, ...
//   }
//
// Values in canonical form: integers of every width as decimal strings;
// float/double as numbers; text as the exact bytes; binary as lowercase hex;
// uuid as text; date as days (string); time and timestamp as the stored
// integer in DuckDB's unit with the unit appended ("1700000000000000us");
// decimals as exact text with `scale` fractional digits. Nested values: a
// list as { n = N, v1, v2, ... } (nil for a null element), a struct as
// { field = v, ... }, a map as its entries in order, { n = N, { key, value },
// ... }; their leaves in the same canonical form.
//
// Exits 1 when the packages are missing or a file cannot be read.

import fs from 'node:fs'
import process from 'node:process'
import { loadDuckDB, luaBytes, luaString, luaNumber } from './duckdb_lua.mjs'
import { hex, decimalText } from '../interop/common.mjs'

const duckdb = loadDuckDB('duckdb_read')

function luaValue(type, v) {
  if (v === null || v === undefined) return 'nil'
  if (type === 'BOOLEAN') return v ? 'true' : 'false'
  if (/^(U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?)$/.test(type)) return luaString(String(v))
  if (type === 'FLOAT' || type === 'DOUBLE') return luaNumber(v)
  if (type === 'VARCHAR' || type === 'JSON') return luaString(v)
  if (type === 'BLOB') return luaString(hex(v.bytes))
  if (type === 'UUID') return luaString(v.toString())
  if (type === 'DATE') return luaString(String(v.days))
  if (type === 'TIME') return luaString(`${v.micros}us`)
  if (type === 'TIME_NS') return luaString(`${v.nanos}ns`)
  if (type === 'TIME WITH TIME ZONE') return luaString(`${v.micros}us${v.offset ? '+' + v.offset : ''}`)
  if (type === 'TIMESTAMP' || type === 'TIMESTAMP WITH TIME ZONE') return luaString(`${v.micros}us`)
  if (type === 'TIMESTAMP_NS') return luaString(`${v.nanos}ns`)
  if (type === 'TIMESTAMP_MS') return luaString(`${v.millis}ms`)
  if (type === 'TIMESTAMP_S') return luaString(`${v.seconds}s`)
  if (type.startsWith('DECIMAL')) return luaString(decimalText(BigInt(v.value), v.scale))
  return luaString(`unhandled ${type}: ${String(v)}`)
}

// DuckDBTypeId values of the nested types
const LIST = 24, STRUCT = 25, MAP = 26

function isNested(type) {
  return type && (type.typeId === LIST || type.typeId === STRUCT || type.typeId === MAP)
}

const luaKey = name => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `[${luaString(name)}]`

// A nested value of DuckDBType `type` (see the top for the form).
function luaNested(type, v) {
  if (v === null || v === undefined) return 'nil'
  if (!isNested(type)) return luaValue(type.toString(), v)
  if (type.typeId === LIST) {
    const items = v.items.map(x => luaNested(type.valueType, x))
    return `{ n = ${items.length}${items.map(x => ', ' + x).join('')} }`
  }
  if (type.typeId === STRUCT) {
    const parts = type.entryNames.map((name, i) => `${luaKey(name)} = ${luaNested(type.entryTypes[i], v.entries[name])}`)
    return `{ ${parts.join(', ')} }`
  }
  const entries = v.entries.map(e => `{ ${luaNested(type.keyType, e.key)}, ${luaNested(type.valueType, e.value)} }`)
  return `{ n = ${entries.length}${entries.map(x => ', ' + x).join('')} }`
}

const sql = s => `'${s.replaceAll("'", "''")}'`

async function readFile(con, file) {
  const f = sql(file)
  const r = await con.runAndReadAll(`SELECT * FROM read_parquet(${f}, file_row_number = true) ORDER BY file_row_number`)
  const names = r.columnNames().slice(0, -1)
  const d = await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${f})`)
  const described = d.getRowObjectsJS()
  const types = names.map(n => described.find(x => x.column_name === n)?.column_type)
  const cols = r.currentRowCount ? r.getColumns() : names.map(() => [])
  const ctypes = r.columnTypes()
  const out = []
  out.push(`rows = ${r.currentRowCount},`)
  out.push(`columns = { ${names.map(luaString).join(', ')} },`)
  out.push(`types = { ${types.map(luaString).join(', ')} },`)
  out.push('values = {')
  names.forEach((n, k) => {
    const vals = cols[k].map(v => isNested(ctypes[k]) ? luaNested(ctypes[k], v) : luaValue(types[k], v))
    out.push(`  [${luaString(n)}] = { n = ${vals.length}, ${vals.join(', ')} },`)
  })
  out.push('},')
  const m = await con.runAndReadAll(
    `SELECT row_group_id, path_in_schema, compression, encodings, stats_min_value, stats_null_count
     FROM parquet_metadata(${f}) ORDER BY row_group_id, column_id`)
  const chunks = m.getRowObjectsJS()
  const groups = new Set(chunks.map(c => String(c.row_group_id)))
  out.push(`row_groups = ${groups.size},`)
  out.push('chunks = {')
  for (const c of chunks.filter(c => String(c.row_group_id) === '0')) {
    out.push(`  [${luaString(c.path_in_schema)}] = { compression = ${luaString(c.compression)}, ` +
             `encodings = ${luaString(c.encodings)}, has_min = ${c.stats_min_value !== null}, ` +
             `null_count = ${c.stats_null_count === null ? 'nil' : Number(c.stats_null_count)} },`)
  }
  out.push('},')
  const kv = await con.runAndReadAll(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(${f})`)
  out.push(`kv = { ${kv.getRows().map(([k, v]) => `[${luaString(k)}] = ${luaString(v ?? '')}`).join(', ')} },`)
  return out.join('\n')
}

async function main() {
  const files = process.argv.slice(2)
  if (!files.length) {
    console.error('usage: node duckdb_read.mjs FILE...')
    process.exit(2)
  }
  const instance = await duckdb.DuckDBInstance.create(':memory:')
  const con = await instance.connect()
  const parts = []
  for (const file of files) {
    if (!fs.existsSync(file)) throw new Error(`no such file: ${file}`)
    parts.push(`[${luaString(file)}] = {\n${await readFile(con, file)}\n},`)
  }
  process.stdout.write(`return {\n${parts.join('\n')}\n}\n`)
}

main().catch(err => {
  console.error(`duckdb_read: ${err.stack ?? err}`)
  process.exit(1)
})
