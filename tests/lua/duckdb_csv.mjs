#!/usr/bin/env node
// duckdb_csv.mjs KIND:FILE...
//
// Reads text files with DuckDB's own detection (@duckdb/node-api, installed
// by the interop tests in tests/interop/node_modules) and prints what it
// finds as a Lua chunk, for test_sniff.lua to compare with what inlay makes
// of the same files:
//
//   return {
//     ["FILE"] = {
//       rows = N,
//       columns = { "id", ... }, types = { "BIGINT", ... },
//       values = { id = { "1", "2", n = 2 }, ... },               -- nil for nulls
//       dialect = { delimiter = ",", quote = "\"", escape = "", header = true },  -- CSV: sniff_csv's
//     }, ...
//   }
//
// KIND is `csv` (read_csv(FILE, auto_detect = true)), `csv_all` (the same
// with sample_size = -1: DuckDB's sniffer over the whole file, for files
// whose types change past its default sample) or `json` (read_json_auto).
// Values are in the canonical form of duckdb_read.mjs (integers as decimal
// strings, doubles as numbers, text as its bytes, dates as days, times and
// timestamps as the integer in DuckDB's unit with the unit appended), so
// they compare with what T.duckdb reads back from inlay's Parquet files.
//
// Exits 1 when the packages are missing or a file cannot be read.

import process from 'node:process'
import { loadDuckDB, luaBytes, luaString, luaNumber } from './duckdb_lua.mjs'

const duckdb = loadDuckDB('duckdb_csv')

// The types the sniffer gives, in duckdb_read.mjs's canonical forms.
function luaValue(type, v) {
  if (v === null || v === undefined) return 'nil'
  if (type === 'BOOLEAN') return v ? 'true' : 'false'
  if (/^(U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?)$/.test(type)) return luaString(String(v))
  if (type === 'FLOAT' || type === 'DOUBLE') return luaNumber(v)
  if (type === 'VARCHAR' || type === 'JSON') return luaString(v)
  if (type === 'DATE') return luaString(String(v.days))
  if (type === 'TIME') return luaString(`${v.micros}us`)
  if (type === 'TIMESTAMP' || type === 'TIMESTAMP WITH TIME ZONE') return luaString(`${v.micros}us`)
  if (type === 'TIMESTAMP_NS') return luaString(`${v.nanos}ns`)
  return luaString(`unhandled ${type}: ${String(v)}`)
}

const sql = s => `'${s.replaceAll("'", "''")}'`

async function readFile(con, kind, file) {
  const f = sql(file)
  const from = kind === 'json' ? `read_json_auto(${f})`
    : kind === 'csv_all' ? `read_csv(${f}, auto_detect = true, sample_size = -1)`
    : `read_csv(${f}, auto_detect = true)`
  const r = await con.runAndReadAll(`SELECT * FROM ${from}`)
  const names = r.columnNames()
  const d = await con.runAndReadAll(`DESCRIBE SELECT * FROM ${from}`)
  const described = d.getRowObjectsJS()
  const types = names.map(n => described.find(x => x.column_name === n)?.column_type)
  const cols = r.currentRowCount ? r.getColumns() : names.map(() => [])
  const out = []
  out.push(`rows = ${r.currentRowCount},`)
  out.push(`columns = { ${names.map(luaString).join(', ')} },`)
  out.push(`types = { ${types.map(luaString).join(', ')} },`)
  out.push('values = {')
  names.forEach((n, k) => {
    const vals = cols[k].map(v => luaValue(types[k], v))
    out.push(`  [${luaString(n)}] = { n = ${vals.length}, ${vals.join(', ')} },`)
  })
  out.push('},')
  if (kind !== 'json') {
    const opts = kind === 'csv_all' ? ', sample_size = -1' : ''
    const s = (await con.runAndReadAll(`SELECT * FROM sniff_csv(${f}${opts})`)).getRowObjectsJS()[0]
    const ch = c => (c === '(empty)' ? '' : c)
    out.push(`dialect = { delimiter = ${luaString(ch(s.Delimiter))}, quote = ${luaString(ch(s.Quote))}, ` +
             `escape = ${luaString(ch(s.Escape))}, header = ${s.HasHeader ? 'true' : 'false'} },`)
  }
  return out.join('\n')
}

async function main() {
  const args = process.argv.slice(2)
  if (!args.length) {
    console.error('usage: node duckdb_csv.mjs csv|csv_all|json:FILE...')
    process.exit(2)
  }
  const instance = await duckdb.DuckDBInstance.create(':memory:')
  const con = await instance.connect()
  const parts = []
  for (const arg of args) {
    const at = arg.indexOf(':')
    const kind = arg.slice(0, at), file = arg.slice(at + 1)
    if (!['csv', 'csv_all', 'json'].includes(kind)) throw new Error(`unknown kind in ${arg}`)
    parts.push(`[${luaString(file)}] = {\n${await readFile(con, kind, file)}\n},`)
  }
  process.stdout.write(`return {\n${parts.join('\n')}\n}\n`)
}

main().catch(err => {
  console.error(`duckdb_csv: ${err.stack ?? err}`)
  process.exit(1)
})
