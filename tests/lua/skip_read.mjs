#!/usr/bin/env node
// skip_read.mjs FILE [PROBES]
//
// What a reader that skips finds in a Parquet file, read with hyparquet
// (installed by the interop tests in tests/interop/node_modules), an
// implementation independent of inlay's reader, printed as a Lua chunk for
// test_skipping.lua:
//
//   return {
//     row_groups = {
//       { num_rows = N,
//         sorting_columns = { { column_idx = 0, descending = false, nulls_first = false }, ... } or nil,
//         chunks = {
//           { path = "id",
//             pages = { { offset =, compressed_page_size =, first_row_index =,   -- the OffsetIndex
//                         type = "DATA_PAGE", crc = n or nil, crc_ok = bool }, ... } or nil,
//             dictionary = { crc =, crc_ok = } or nil,                          -- its page header
//             column_index = { null_pages = {...}, min = {...}, max = {...},
//                              null_counts = {...}, boundary_order = "ASCENDING" } or nil,
//             bloom = { bytes = N, probes = { [value] = true/false, ... } } or nil },
//           ... } },
//       ... } }
//
// crc_ok says whether the page's crc is the CRC-32 of the bytes after its
// header (compressed_page_size of them), as the format defines it; pages
// without a crc have crc_ok = nil. PROBES is JSON, { "path": [values...] }:
// each value is looked up in the chunk's bloom filter (true: maybe there,
// false: certainly not), hashed as hyparquet hashes a query's value.
// Values print as Lua values: bigints and dates as strings, bytes as
// strings of those bytes.
//
// Exits 1 when the packages are missing or the file cannot be read.

import fs from 'node:fs'
import path from 'node:path'
import process from 'node:process'
import zlib from 'node:zlib'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { luaBytes, luaString, luaNumber } from './duckdb_lua.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const interop = process.env.INLAY_INTEROP_DIR || path.resolve(here, '../interop')
const hp = path.join(interop, 'node_modules', 'hyparquet', 'src')
let hyparquet, column, bloom
try {
  hyparquet = await import(pathToFileURL(path.join(hp, 'index.js')))
  column = await import(pathToFileURL(path.join(hp, 'column.js')))
  bloom = await import(pathToFileURL(path.join(hp, 'bloom.js')))
} catch (err) {
  console.error(`skip_read: hyparquet is not installed in ${interop}/node_modules (run: cd ${interop} && npm ci): ` +
                err.message)
  process.exit(1)
}

function lua(v) {
  if (v === null || v === undefined) return 'nil'
  if (typeof v === 'string') return luaString(v)
  if (typeof v === 'number') return luaNumber(v)
  if (typeof v === 'boolean') return String(v)
  if (typeof v === 'bigint') return luaString(String(v))
  if (v instanceof Date) return luaString(v.toISOString())
  if (v instanceof Uint8Array) return luaBytes(v)
  if (Array.isArray(v)) return '{' + v.map(x => (x === null || x === undefined) ? 'false' : lua(x)).join(', ') + '}'
  return '{' + Object.entries(v).filter(([, x]) => x !== undefined && x !== null)
    .map(([k, x]) => '[' + luaString(k) + '] = ' + lua(x)).join(', ') + '}'
}

const [file, probeText] = process.argv.slice(2)
const probes = probeText ? JSON.parse(probeText) : {}
const buf = fs.readFileSync(file)
const arrayBuffer = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)
const view = new DataView(arrayBuffer)
const meta = hyparquet.parquetMetadata(arrayBuffer)

// The schema element of each leaf, by dotted path.
const leaves = {}
const walk = (elements, i, prefix) => {
  const el = elements[i]
  const name = prefix ? prefix + '.' + el.name : el.name
  let next = i + 1
  if (!el.num_children) {
    leaves[name] = el
    return next
  }
  for (let k = 0; k < el.num_children; k++) next = walk(elements, next, name)
  return next
}
for (let i = 1; i < meta.schema.length;) i = walk(meta.schema, i, '')

// A page header at `offset`, and whether its crc covers the bytes after it.
function page(offset) {
  const reader = { view, offset }
  const h = column.parquetHeader(reader)
  const out = { type: h.type, crc: h.crc }
  if (h.crc !== undefined) {
    const body = buf.subarray(reader.offset, reader.offset + h.compressed_page_size)
    out.crc_ok = (zlib.crc32(body) >>> 0) === (h.crc >>> 0)
  }
  return out
}

const groups = meta.row_groups.map(rg => {
  const chunks = rg.columns.map(cc => {
    const md = cc.meta_data
    const p = md.path_in_schema.join('.')
    const el = leaves[p]
    const c = { path: p }
    if (cc.offset_index_offset !== undefined) {
      const oi = hyparquet.readOffsetIndex({ view: new DataView(arrayBuffer, Number(cc.offset_index_offset),
                                                              cc.offset_index_length), offset: 0 })
      c.pages = oi.page_locations.map(loc => ({
        offset: Number(loc.offset), compressed_page_size: loc.compressed_page_size,
        first_row_index: Number(loc.first_row_index), ...page(Number(loc.offset)),
      }))
    }
    if (md.dictionary_page_offset !== undefined) c.dictionary = page(Number(md.dictionary_page_offset))
    if (cc.column_index_offset !== undefined) {
      const ci = hyparquet.readColumnIndex({ view: new DataView(arrayBuffer, Number(cc.column_index_offset),
                                                              cc.column_index_length), offset: 0 }, el)
      c.column_index = { null_pages: ci.null_pages, min: ci.min_values, max: ci.max_values,
                         null_counts: ci.null_counts?.map(Number), boundary_order: ci.boundary_order }
    }
    if (md.bloom_filter_offset !== undefined) {
      const f = bloom.readBloomFilter({ view, offset: Number(md.bloom_filter_offset) })
      c.bloom = { bytes: f ? f.numBytes : 0, probes: {} }
      for (const v of (f && probes[p]) || []) {
        const hash = bloom.hashParquetValue(v, el)
        if (hash !== undefined) c.bloom.probes[String(v)] = bloom.sbbfContains(f.blocks, hash)
      }
    }
    return c
  })
  return { num_rows: Number(rg.num_rows), sorting_columns: rg.sorting_columns, chunks }
})
process.stdout.write('return ' + lua({ row_groups: groups }) + '\n')
