#!/usr/bin/env node
// skip.mjs DIR [NAME-REGEX]
//
// Checks what readers skip by in the files interop_skip_fixtures writes
// (skip_fixtures.c; each NAME.parquet has a NAME.json holding the values and
// the statistics, pages and bloom contents they imply, computed there from
// the generated data). Per file:
//
//   statistics  the footer's chunk Statistics (raw thrift, by hyparquet's
//               parser): null_count, min_value/max_value byte for byte in
//               the column's sort order (signed, unsigned, IEEE with NaN out
//               and -0.0/+0.0 zeros, byte-wise strings cut to 64 bytes at a
//               character boundary, the max rounded up), is_*_exact, the
//               deprecated min/max only for signed orders; SizeStatistics
//               (unencoded_byte_array_data_bytes, definition level
//               histogram). DuckDB's parquet_metadata(): stats_min_value,
//               stats_max_value, stats_min/stats_max, stats_null_count,
//               min_is_exact, max_is_exact per row group and column. With
//               statistics off (the file's or a column's), none of them.
//   pages       every page header (v1 and v2): data page statistics per
//               page, num_values per page (page_rows), and the CRC: with
//               page_checksum, zlib's crc32 of the page's stored bytes; else
//               no crc.
//   page index  per chunk, the OffsetIndex (read with hyparquet's
//               readOffsetIndex and as raw thrift): one location per data
//               page, offsets and compressed_page_size (header included)
//               walking the chunk's pages contiguously from data_page_offset
//               (right after the dictionary page) to the chunk's end,
//               first_row_index, unencoded_byte_array_data_bytes per page;
//               the ColumnIndex (readColumnIndex and raw): null_pages,
//               min/max per page (empty for null pages), null_counts,
//               boundary_order (ASCENDING for the sorted id, DESCENDING for
//               the descending column, never a claim the pages contradict),
//               definition/repetition level histograms; none for a column
//               without statistics; neither index with page_index off. The
//               lengths the footer gives are the structs' exact sizes, and
//               inlay_writer_column_stats' byte counts match them.
//   layout      chunks, bloom filters and index structs never overlap and
//               end before the footer; bloom filters sit after their row
//               group's chunks, the page index after every row group.
//   sorting     every row group's sorting_columns (hyparquet) are the
//               declared ones.
//   bloom       (bloom files) the filter's header (BLOCK, XXHASH,
//               UNCOMPRESSED; header + bitset = bloom_filter_length), its
//               size (at least what the ndv and fpp need, at most the next
//               power of two of it), its bitset rebuilt from the chunk's
//               values with hyparquet's xxhash64 and sbbfInsert must be
//               identical; DuckDB's parquet_bloom_probe() never excludes a
//               present value, excludes absent ones but for at most 3x the
//               fpp, and cannot exclude anything in a column without a filter.
//   skipping    (sorted files) DuckDB's profiler (operator_row_groups_scanned
//               / operator_total_row_groups_to_scan of the Parquet scan) for
//               WHERE id = X and a narrow BETWEEN: 1 row group of 10 with
//               statistics, 10 of 10 without; and the same shown by
//               behaviour: with every other row group's pages overwritten
//               the query still answers right, with only X's row group
//               overwritten it fails (so it is read), and without
//               statistics the first copy fails too.
//   readers     arrow-rs (parquet-wasm) and DuckDB read every file whole:
//               row count and every value.
//
// Exits 1 on any problem, naming file, part and what differs. Environment:
// SKIP_MAX_REPORTS (problems printed per file and part, default 10),
// SKIP_TIMING (print each file's time).

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import process from 'node:process'
import zlib from 'node:zlib'

import { DuckDBInstance } from '@duckdb/node-api'
import { parquetMetadata, readColumnIndex, readOffsetIndex } from 'hyparquet'
import { deserializeTCompactProtocol } from 'hyparquet/src/thrift.js'
import { readBloomFilter, sbbfInsert } from 'hyparquet/src/bloom.js'
import { xxhash64 } from 'hyparquet/src/xxhash.js'

import { hex, hexBytes, canonNumberOf, sqlString, quoteId, rawFooter, readArrow } from './common.mjs'

const MAX_REPORTS = Number(process.env.SKIP_MAX_REPORTS ?? 10)
const failures = []
const passed = { count: 0 }
const notes = []

class Problems {
  constructor(file, part) {
    this.file = file
    this.part = part
    this.count = 0
    this.lines = []
  }
  add(msg) {
    this.count++
    if (this.lines.length < MAX_REPORTS) this.lines.push(msg)
  }
  finish() {
    if (this.count === 0) { passed.count++; return }
    const more = this.count > this.lines.length ? `\n    ... and ${this.count - this.lines.length} more` : ''
    const text = `FAIL ${this.file} [${this.part}]: ${this.count} problem(s)\n    ${this.lines.join('\n    ')}${more}`
    failures.push(text)
    process.stderr.write(text + '\n')
  }
}

// ---------------------------------------------------------------------------
// Values

const utf8 = new TextEncoder()
// The fixtures' doubles as numbers: one not canonical throws.
const canonNumber = e => canonNumberOf(e, 'double')

// A canonical value as its PLAIN bytes (what statistics and bloom filters hold).
function plainBytes(col, v) {
  const dv = n => new DataView(new ArrayBuffer(n))
  switch (col.type) {
    case 'int32': case 'uint32': { const d = dv(4); d.setUint32(0, Number(BigInt.asUintN(32, BigInt(v))), true); return new Uint8Array(d.buffer) }
    case 'int64': case 'uint64': { const d = dv(8); d.setBigUint64(0, BigInt.asUintN(64, BigInt(v)), true); return new Uint8Array(d.buffer) }
    case 'double': { const d = dv(8); d.setFloat64(0, canonNumber(v), true); return new Uint8Array(d.buffer) }
    case 'string': return utf8.encode(v)
  }
  throw new Error(`no PLAIN form for ${col.type}`)
}

// A statistics value (PLAIN bytes) shown in the column's terms.
function showStat(col, b) {
  if (b === undefined) return 'none'
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength)
  try {
    switch (col.type) {
      case 'int32': return `${v.getInt32(0, true)} (0x${hex(b)})`
      case 'uint32': return `${v.getUint32(0, true)} (0x${hex(b)})`
      case 'int64': return `${v.getBigInt64(0, true)} (0x${hex(b)})`
      case 'uint64': return `${v.getBigUint64(0, true)} (0x${hex(b)})`
      case 'double': { const d = v.getFloat64(0, true); return `${Object.is(d, -0) ? '-0' : d} (0x${hex(b)})` }
    }
  } catch { /* wrong length: the hex says it */ }
  const s = b.length > 80 ? `${b.length} bytes 0x${hex(b.subarray(0, 40))}...` : `0x${hex(b)}`
  return col.type === 'string' ? `${JSON.stringify(new TextDecoder().decode(b.subarray(0, 80)))} ${s}` : s
}

const showExp = e => (e ? `${JSON.stringify(e.value).slice(0, 90)} (0x${e.hex.length > 80 ? e.hex.slice(0, 80) + '...' : e.hex}${e.exact ? '' : ', inexact'})` : 'none')

// The order of expected statistics values: BigInt, number or bytes.
function orderKey(col, e) {
  if (col.type === 'string') return hexBytes(e.hex)
  if (col.type === 'double') return canonNumber(e.value)
  return BigInt(e.value)
}

function cmpKey(a, b) {
  if (a instanceof Uint8Array) {
    const n = Math.min(a.length, b.length)
    for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i]
    return a.length - b.length
  }
  return a < b ? -1 : a > b ? 1 : 0
}

// ---------------------------------------------------------------------------
// The footer and the pages, as raw thrift

// A thrift struct at [offset, offset + length): the struct, and whether it
// takes exactly that many bytes.
function rawStruct(bytes, offset, length) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const reader = { view, offset: Number(offset) }
  const value = deserializeTCompactProtocol(reader)
  return { value, used: reader.offset - Number(offset), length }
}

const PAGE_TYPE = { 0: 'DATA_PAGE', 1: 'INDEX_PAGE', 2: 'DICTIONARY_PAGE', 3: 'DATA_PAGE_V2' }

// Every page of a chunk, from its raw headers.
function walkPages(bytes, meta) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const start = Number(meta.dictionary_page_offset ?? meta.data_page_offset)
  const end = start + Number(meta.total_compressed_size)
  const reader = { view, offset: start }
  const pages = []
  while (reader.offset < end) {
    const headerAt = reader.offset
    const h = deserializeTCompactProtocol(reader)
    const type = PAGE_TYPE[h.field_1]
    const v1 = h.field_5, v2 = h.field_8
    pages.push({
      type,
      headerAt,
      bodyAt: reader.offset,
      compressed: h.field_3,
      uncompressed: h.field_2,
      crc: h.field_4,
      num_values: (v1 ?? v2)?.field_1,
      num_nulls: v2?.field_2,
      num_rows: v2?.field_3,
      stats: type === 'DATA_PAGE' ? v1?.field_5 : type === 'DATA_PAGE_V2' ? v2?.field_8 : undefined,
    })
    reader.offset += h.field_3
  }
  if (reader.offset !== end) throw new Error(`pages end at ${reader.offset}, the chunk at ${end}`)
  return { pages, start, end }
}

const isData = p => p.type === 'DATA_PAGE' || p.type === 'DATA_PAGE_V2'
const SIGNED = new Set(['int32', 'int64', 'double'])

// One Statistics struct (raw thrift) against the expectation for its rows.
function statsProblems(col, st, exp) {
  const out = []
  if (!st) return ['no statistics']
  if (st.field_3 === undefined) out.push('no null_count')
  else if (Number(st.field_3) !== exp.null_count) out.push(`null_count ${st.field_3}, expected ${exp.null_count}`)
  for (const [name, field, e, exactField] of [['min_value', 6, exp.min, 8], ['max_value', 5, exp.max, 7]]) {
    const got = st[`field_${field}`]
    if (!e) {
      if (got !== undefined) out.push(`${name} ${showStat(col, got)} written, expected none (no non-null, non-NaN value)`)
      continue
    }
    if (got === undefined) { out.push(`no ${name}, expected ${showExp(e)}`); continue }
    if (hex(got) !== e.hex) out.push(`${name} ${showStat(col, got)}, expected ${showExp(e)}`)
    const flag = st[`field_${exactField}`]
    if (e.exact ? flag === false : flag !== false) out.push(`is_${name}_exact ${flag}, expected ${e.exact}`)
  }
  // the deprecated min/max are signed-order only; where written, the same values
  for (const [name, field, e] of [['min', 2, exp.min], ['max', 1, exp.max]]) {
    const got = st[`field_${field}`]
    if (got === undefined) continue
    if (!SIGNED.has(col.type)) out.push(`deprecated ${name} written for a ${col.type} column (its order is not signed)`)
    else if (!e || hex(got) !== e.hex) out.push(`deprecated ${name} ${showStat(col, got)}, expected ${showExp(e)}`)
  }
  return out
}

const hasMinMax = st => st && [1, 2, 5, 6].some(f => st[`field_${f}`] !== undefined)
const statsOn = (spec, col) => spec.options.statistics && col.statistics
const sameList = (a, b) => JSON.stringify((a ?? []).map(Number)) === JSON.stringify(b.map(Number))

// The definition (or repetition) level histogram of rows: [nulls, values]
// for an optional column; for a required one a writer may leave it out.
function histProblem(name, got, want, rows) {
  if (want) return sameList(got, want) ? null : `${name} [${got ?? 'none'}], expected [${want}]`
  if (got === undefined) return null
  return sameList(got, [rows]) ? null : `${name} [${got}], expected none or [${rows}] (max level 0)`
}

// ---------------------------------------------------------------------------
// Footer, pages, page index, layout

function checkStructure(spec, bytes, metadata) {
  const pr = new Problems(spec.name, 'structure')
  try {
    const { footer, start: footerStart } = rawFooter(bytes)
    const rgs = metadata.row_groups
    if (rgs.length !== spec.row_groups.length) pr.add(`${rgs.length} row groups, expected ${spec.row_groups.length}`)
    if (Number(metadata.num_rows) !== spec.rows) pr.add(`num_rows ${metadata.num_rows}, expected ${spec.rows}`)
    if (spec.writer.bytes !== bytes.length) pr.add(`file has ${bytes.length} bytes, the writer reported ${spec.writer.bytes}`)
    const regions = [] // [start, end, what]
    const written = spec.columns.map(() => ({ bloom: 0, ci: 0, oi: 0 }))
    let lastChunkEnd = 0
    const wantSorting = spec.sorting_columns.map(s => ({ column_idx: s.index, descending: s.descending, nulls_first: s.nulls_first }))
    rgs.forEach((rg, g) => {
      const expRg = spec.row_groups[g]
      if (!expRg) return
      if (Number(rg.num_rows) !== expRg.rows) pr.add(`row group ${g}: ${rg.num_rows} rows, expected ${expRg.rows}`)
      const sorting = (rg.sorting_columns ?? []).map(s => ({ column_idx: s.column_idx, descending: s.descending, nulls_first: s.nulls_first }))
      if (JSON.stringify(sorting) !== JSON.stringify(wantSorting))
        pr.add(`row group ${g}: sorting_columns ${JSON.stringify(rg.sorting_columns ?? null)}, expected ${JSON.stringify(wantSorting)}`)
      let rgChunksEnd = 0
      rg.columns.forEach((cc, ci) => {
        const col = spec.columns[ci], exp = expRg.chunks[ci]
        const where = `row group ${g} column ${col.name}`
        const meta = cc.meta_data
        const rawMeta = footer.field_4[g].field_1[ci].field_3
        const on = statsOn(spec, col)

        // chunk statistics and size statistics
        if (on) for (const m of statsProblems(col, rawMeta.field_12, exp)) pr.add(`${where}: chunk statistics: ${m}`)
        else if (hasMinMax(rawMeta.field_12)) pr.add(`${where}: min/max statistics written with statistics off`)
        const size = rawMeta.field_16
        if (on) {
          if (col.type === 'string') {
            if (size?.field_1 === undefined) pr.add(`${where}: no size_statistics.unencoded_byte_array_data_bytes`)
            else if (Number(size.field_1) !== exp.unencoded_bytes) pr.add(`${where}: unencoded_byte_array_data_bytes ${size.field_1}, expected ${exp.unencoded_bytes}`)
          } else if (size?.field_1 !== undefined) pr.add(`${where}: unencoded_byte_array_data_bytes on a ${col.type} column`)
          if (col.nullable && size?.field_3 === undefined) pr.add(`${where}: no size_statistics.definition_level_histogram`)
          for (const m of [histProblem('definition_level_histogram', size?.field_3, exp.def_hist, expRg.rows),
            histProblem('repetition_level_histogram', size?.field_2, null, expRg.rows)]) if (m) pr.add(`${where}: ${m}`)
        } else if (size !== undefined) pr.add(`${where}: size_statistics written with statistics off`)

        // pages
        const { pages, start, end } = walkPages(bytes, meta)
        regions.push([start, end, `${where} pages`])
        rgChunksEnd = Math.max(rgChunksEnd, end)
        const data = pages.filter(isData)
        const dict = pages.filter(p => p.type === 'DICTIONARY_PAGE')
        const wantType = spec.options.page_version === 2 ? 'DATA_PAGE_V2' : 'DATA_PAGE'
        if (data.some(p => p.type !== wantType)) pr.add(`${where}: data pages of types ${[...new Set(data.map(p => p.type))]}, expected ${wantType}`)
        if (data.length !== exp.pages.length)
          pr.add(`${where}: ${data.length} data pages (${data.map(p => p.num_values)}), expected ${exp.pages.length} of page_rows ${spec.options.page_rows}`)
        data.forEach((p, i) => {
          const e = exp.pages[i]
          if (!e) return
          const pw = `${where} page ${i}`
          if (p.num_values !== e.rows) pr.add(`${pw}: ${p.num_values} values, expected ${e.rows}`)
          if (p.type === 'DATA_PAGE_V2' && (p.num_rows !== e.rows || p.num_nulls !== e.null_count))
            pr.add(`${pw}: v2 num_rows ${p.num_rows} num_nulls ${p.num_nulls}, expected ${e.rows} and ${e.null_count}`)
          if (on) for (const m of statsProblems(col, p.stats, e)) pr.add(`${pw}: page header statistics: ${m}`)
          else if (hasMinMax(p.stats)) pr.add(`${pw}: page header min/max written with statistics off`)
        })
        for (const p of pages) {
          const pw = `${where} ${p.type} at ${p.headerAt}`
          if (spec.options.page_checksum) {
            if (p.crc === undefined) { pr.add(`${pw}: no crc (page_checksum on)`); continue }
            const want = zlib.crc32(bytes.subarray(p.bodyAt, p.bodyAt + p.compressed))
            if ((p.crc >>> 0) !== want) pr.add(`${pw}: crc 0x${(p.crc >>> 0).toString(16)}, crc32 of its ${p.compressed} stored bytes is 0x${want.toString(16)}`)
          } else if (p.crc !== undefined) pr.add(`${pw}: crc written with page_checksum off`)
        }
        if (dict.length && Number(meta.dictionary_page_offset) !== dict[0].headerAt) pr.add(`${where}: dictionary_page_offset ${meta.dictionary_page_offset}, the dictionary page is at ${dict[0].headerAt}`)
        if (data.length && Number(meta.data_page_offset) !== data[0].headerAt) pr.add(`${where}: data_page_offset ${meta.data_page_offset}, the first data page is at ${data[0].headerAt}`)

        // the page index
        const hasOi = cc.offset_index_offset !== undefined, hasCi = cc.column_index_offset !== undefined
        if (!spec.options.page_index) {
          if (hasOi || hasCi) pr.add(`${where}: a page index with page_index off`)
        } else {
          if (!hasOi) pr.add(`${where}: no OffsetIndex`)
          else {
            regions.push([Number(cc.offset_index_offset), Number(cc.offset_index_offset) + cc.offset_index_length, `${where} OffsetIndex`])
            written[ci].oi += cc.offset_index_length
            for (const m of offsetIndexProblems(bytes, cc, col, on, pages, data, exp, end)) pr.add(`${where}: OffsetIndex: ${m}`)
          }
          if (!on) { if (hasCi) pr.add(`${where}: a ColumnIndex for a column without statistics`) }
          else if (!hasCi) pr.add(`${where}: no ColumnIndex`)
          else {
            regions.push([Number(cc.column_index_offset), Number(cc.column_index_offset) + cc.column_index_length, `${where} ColumnIndex`])
            written[ci].ci += cc.column_index_length
            for (const m of columnIndexProblems(bytes, cc, col, metadata, ci, exp)) pr.add(`${where}: ColumnIndex: ${m}`)
          }
        }
        if (meta.bloom_filter_offset !== undefined) {
          const at = Number(meta.bloom_filter_offset)
          regions.push([at, at + (meta.bloom_filter_length ?? 1), `${where} bloom filter`])
          written[ci].bloom += meta.bloom_filter_length ?? 0
        }
      })
      // bloom filters: after this row group's chunks, before the next one's
      const nextStart = rgs[g + 1] ? Math.min(...rgs[g + 1].columns.map(c => Number(c.meta_data.dictionary_page_offset ?? c.meta_data.data_page_offset))) : footerStart
      rg.columns.forEach((cc, ci) => {
        const at = cc.meta_data.bloom_filter_offset
        if (at === undefined) return
        if (Number(at) < rgChunksEnd || Number(at) + (cc.meta_data.bloom_filter_length ?? 0) > nextStart)
          pr.add(`row group ${g} column ${spec.columns[ci].name}: bloom filter at ${at} (+${cc.meta_data.bloom_filter_length}) is not between the row group's chunks (end ${rgChunksEnd}) and what follows (${nextStart})`)
      })
      lastChunkEnd = Math.max(lastChunkEnd, rgChunksEnd)
    })
    // the page index comes after every row group
    for (const [s, , what] of regions) if (/Index$/.test(what) && s < lastChunkEnd) pr.add(`${what} at ${s}, before the end of the last row group's chunks (${lastChunkEnd})`)
    regions.sort((a, b) => a[0] - b[0])
    regions.forEach(([s, e, what], i) => {
      if (s < 4 || e > footerStart) pr.add(`${what} [${s}, ${e}) is outside the file's body [4, ${footerStart})`)
      const prev = regions[i - 1]
      if (prev && s < prev[1]) pr.add(`${what} [${s}, ${e}) overlaps ${prev[2]} [${prev[0]}, ${prev[1]})`)
    })
    // what inlay_writer_column_stats reported
    spec.columns.forEach((col, ci) => {
      const w = col.written, got = written[ci]
      if (w.bloom_filter_bytes !== got.bloom || w.column_index_bytes !== got.ci || w.offset_index_bytes !== got.oi)
        pr.add(`column ${col.name}: inlay_writer_column_stats says bloom ${w.bloom_filter_bytes}, ColumnIndex ${w.column_index_bytes}, ` +
          `OffsetIndex ${w.offset_index_bytes} bytes; the footer ${got.bloom}, ${got.ci}, ${got.oi}`)
    })
  } catch (err) {
    pr.add(`failed: ${err.stack ?? err}`)
  }
  pr.finish()
}

function offsetIndexProblems(bytes, cc, col, on, pages, data, exp, chunkEnd) {
  const out = []
  const raw = rawStruct(bytes, cc.offset_index_offset, cc.offset_index_length)
  if (raw.used !== cc.offset_index_length) out.push(`the struct takes ${raw.used} bytes, offset_index_length is ${cc.offset_index_length}`)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const oi = readOffsetIndex({ view, offset: Number(cc.offset_index_offset) })
  const locs = oi.page_locations
  if (locs.length !== data.length) out.push(`${locs.length} page locations, the chunk has ${data.length} data pages`)
  const firstData = pages.findIndex(isData)
  if (firstData > 0) {
    const d = pages[firstData - 1]
    if (d.type === 'DICTIONARY_PAGE' && Number(locs[0]?.offset) !== d.bodyAt + d.compressed)
      out.push(`the first location is at ${locs[0]?.offset}, the dictionary page ends at ${d.bodyAt + d.compressed}`)
  }
  if (locs.length && Number(locs[0].offset) !== Number(cc.meta_data.data_page_offset)) out.push(`the first location is at ${locs[0].offset}, data_page_offset ${cc.meta_data.data_page_offset}`)
  locs.forEach((l, i) => {
    const p = data[i], e = exp.pages[i]
    if (p) {
      if (Number(l.offset) !== p.headerAt) out.push(`page ${i} at ${l.offset}, its header is at ${p.headerAt}`)
      if (l.compressed_page_size !== p.bodyAt - p.headerAt + p.compressed)
        out.push(`page ${i}: compressed_page_size ${l.compressed_page_size}, header + stored bytes are ${p.bodyAt - p.headerAt + p.compressed}`)
    }
    const next = locs[i + 1]
    const end = next ? Number(next.offset) : chunkEnd
    if (Number(l.offset) + l.compressed_page_size !== end) out.push(`page ${i} ends at ${Number(l.offset) + l.compressed_page_size}, the next one (or the chunk) starts at ${end}`)
    if (e && Number(l.first_row_index) !== e.first_row) out.push(`page ${i}: first_row_index ${l.first_row_index}, expected ${e.first_row}`)
    if (i > 0 && !(Number(l.first_row_index) > Number(locs[i - 1].first_row_index))) out.push(`page ${i}: first_row_index ${l.first_row_index} does not increase`)
  })
  const ub = raw.value.field_2
  if (on && col.type === 'string') {
    const want = exp.pages.map(p => p.unencoded_bytes)
    if (!sameList(ub, want)) out.push(`unencoded_byte_array_data_bytes [${ub ?? 'none'}], expected [${want}]`)
  } else if (ub !== undefined) {
    // size statistics go with statistics (inlay.h); where written anyway, say whether they are right
    const want = col.type === 'string' ? exp.pages.map(p => p.unencoded_bytes) : null
    out.push(`unencoded_byte_array_data_bytes [${ub}] on ${col.type === 'string' ? 'a column without statistics' : `a ${col.type} column`}` +
      (want && !sameList(ub, want) ? ` (and wrong: its pages hold [${want}])` : ''))
  }
  return out
}

function columnIndexProblems(bytes, cc, col, metadata, ci, exp) {
  const out = []
  const raw = rawStruct(bytes, cc.column_index_offset, cc.column_index_length)
  if (raw.used !== cc.column_index_length) out.push(`the struct takes ${raw.used} bytes, column_index_length is ${cc.column_index_length}`)
  const x = raw.value
  const n = exp.pages.length
  // hyparquet's own reading must parse and agree on null pages and counts
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const leaf = metadata.schema.filter(s => !s.num_children)[ci]
  const hy = readColumnIndex({ view, offset: Number(cc.column_index_offset) }, leaf)
  if (JSON.stringify(hy.null_pages) !== JSON.stringify(x.field_1)) out.push('hyparquet reads other null_pages')
  const nullPages = x.field_1 ?? [], mins = x.field_2 ?? [], maxs = x.field_3 ?? []
  for (const [name, list] of [['null_pages', nullPages], ['min_values', mins], ['max_values', maxs]])
    if (list.length !== n) out.push(`${list.length} ${name}, expected ${n} (one per page)`)
  if (x.field_5 === undefined) out.push('no null_counts')
  else if (!sameList(x.field_5, exp.pages.map(p => p.null_count))) out.push(`null_counts [${x.field_5}], expected [${exp.pages.map(p => p.null_count)}]`)
  exp.pages.forEach((e, i) => {
    const isNull = e.null_count === e.rows
    if (nullPages[i] !== isNull) out.push(`page ${i}: null_pages ${nullPages[i]}, expected ${isNull}`)
    if (isNull) {
      if (mins[i]?.length || maxs[i]?.length) out.push(`page ${i} (null page): min/max not empty`)
      return
    }
    if (!e.min) return // only NaN: nothing to expect
    if (!mins[i] || hex(mins[i]) !== e.min.hex) out.push(`page ${i}: min ${showStat(col, mins[i])}, expected ${showExp(e.min)}`)
    if (!maxs[i] || hex(maxs[i]) !== e.max.hex) out.push(`page ${i}: max ${showStat(col, maxs[i])}, expected ${showExp(e.max)}`)
  })
  // boundary_order: what the pages with values allow
  const valued = exp.pages.filter(p => p.min && p.null_count !== p.rows)
  const ordered = (key, dir) => valued.every((p, i) => i === 0 || dir * cmpKey(orderKey(col, valued[i - 1][key]), orderKey(col, p[key])) <= 0)
  const asc = ordered('min', 1) && ordered('max', 1), desc = ordered('min', -1) && ordered('max', -1)
  const order = ['UNORDERED', 'ASCENDING', 'DESCENDING'][x.field_4] ?? `? (${x.field_4})`
  const allowed = asc && desc ? ['ASCENDING', 'DESCENDING', 'UNORDERED'] : asc ? ['ASCENDING'] : desc ? ['DESCENDING'] : ['UNORDERED']
  if (!allowed.includes(order)) out.push(`boundary_order ${order}, the pages are ${asc && desc ? 'both' : asc ? 'ASCENDING' : desc ? 'DESCENDING' : 'UNORDERED'}`)
  if (hy.boundary_order !== order) out.push(`hyparquet reads boundary_order ${hy.boundary_order}`)
  // level histograms, page after page
  const def = col.nullable ? exp.pages.flatMap(p => p.def_hist) : null
  const m1 = histProblem('definition_level_histograms', x.field_7, def, null)
  if (m1 && !(def === null && sameList(x.field_7, exp.pages.map(p => p.rows)))) out.push(m1)
  if (x.field_6 !== undefined && !sameList(x.field_6, exp.pages.map(p => p.rows))) out.push(`repetition_level_histograms [${x.field_6}], expected none or [${exp.pages.map(p => p.rows)}]`)
  return out
}

// ---------------------------------------------------------------------------
// DuckDB: parquet_metadata() and the values

// Known reader limitation: DuckDB's parquet_metadata() shows an infinite
// double statistic as NULL (its own files' too); the footer's bytes are
// checked in the structure part.
const known = { duckdbInfinity: 0 }

function duckStatMatches(col, text, e) {
  if ((text === null || text === undefined) && col.type === 'double' && /Infinity$/.test(e.value)) {
    known.duckdbInfinity++
    return true
  }
  if (text === null || text === undefined) return false
  switch (col.type) {
    case 'double': {
      const t = text.toLowerCase()
      const v = t === 'inf' || t === 'infinity' ? Infinity : t === '-inf' || t === '-infinity' ? -Infinity : t === 'nan' ? NaN : Number(text)
      return Object.is(v, canonNumber(e.value))
    }
    case 'string': return text === e.value
    default: return /^-?\d+$/.test(text) && BigInt(text) === BigInt(e.value)
  }
}

async function checkDuckdbMetadata(con, file, spec) {
  const pr = new Problems(spec.name, 'duckdb parquet_metadata')
  try {
    const rows = (await con.runAndReadAll(
      `SELECT row_group_id, column_id, path_in_schema, stats_min, stats_max, stats_min_value, stats_max_value,
              stats_null_count, min_is_exact, max_is_exact, num_values
       FROM parquet_metadata(${sqlString(file)}) ORDER BY row_group_id, column_id`)).getRowObjectsJS()
    if (rows.length !== spec.row_groups.length * spec.columns.length) pr.add(`${rows.length} chunks, expected ${spec.row_groups.length * spec.columns.length}`)
    for (const r of rows) {
      const g = Number(r.row_group_id), col = spec.columns[Number(r.column_id)]
      const exp = spec.row_groups[g]?.chunks[Number(r.column_id)]
      if (!col || !exp) continue
      const where = `row group ${g} column ${col.name}`
      if (r.path_in_schema !== col.name) pr.add(`${where}: path_in_schema ${r.path_in_schema}`)
      if (!statsOn(spec, col)) {
        if (r.stats_min_value !== null || r.stats_max_value !== null || r.stats_min !== null || r.stats_max !== null)
          pr.add(`${where}: statistics off, DuckDB sees min ${r.stats_min_value} max ${r.stats_max_value}`)
        continue
      }
      if (r.stats_null_count === null || Number(r.stats_null_count) !== exp.null_count) pr.add(`${where}: stats_null_count ${r.stats_null_count}, expected ${exp.null_count}`)
      for (const [name, text, e, exact] of [['min', r.stats_min_value, exp.min, r.min_is_exact], ['max', r.stats_max_value, exp.max, r.max_is_exact]]) {
        if (!e) {
          if (text !== null) pr.add(`${where}: stats_${name}_value ${JSON.stringify(text)}, expected none`)
          continue
        }
        if (!duckStatMatches(col, text, e)) pr.add(`${where}: stats_${name}_value ${JSON.stringify(text)?.slice(0, 90)}, expected ${JSON.stringify(e.value).slice(0, 90)}`)
        if (exact !== e.exact) pr.add(`${where}: ${name}_is_exact ${exact}, expected ${e.exact}`)
      }
      // the deprecated fields, where DuckDB shows them: the same values
      for (const [name, text, e] of [['min', r.stats_min, exp.min], ['max', r.stats_max, exp.max]])
        if (text !== null && !(e && duckStatMatches(col, text, e))) pr.add(`${where}: stats_${name} ${JSON.stringify(text)?.slice(0, 90)}, expected ${e ? JSON.stringify(e.value).slice(0, 90) : 'none'}`)
    }
  } catch (err) {
    pr.add(`failed: ${err.message}`)
  }
  pr.finish()
}

function sameCanon(col, e, v) {
  if (e === null || v === null || v === undefined) return e === null && (v === null || v === undefined)
  if (col.type === 'double') return Object.is(canonNumber(e), v)
  if (col.type === 'string') return v === e
  return String(v) === e
}

async function checkDuckdbValues(con, file, spec) {
  const pr = new Problems(spec.name, 'duckdb read')
  try {
    const list = spec.columns.map(c => quoteId(c.name)).join(', ')
    const r = await con.runAndReadAll(`SELECT ${list} FROM read_parquet(${sqlString(file)}, file_row_number = true) ORDER BY file_row_number`)
    if (r.currentRowCount !== spec.rows) pr.add(`${r.currentRowCount} rows, expected ${spec.rows}`)
    const cols = r.currentRowCount ? r.getColumns() : spec.columns.map(() => [])
    spec.columns.forEach((col, k) => {
      for (let i = 0; i < Math.min(spec.rows, cols[k].length); i++)
        if (!sameCanon(col, col.values[i], cols[k][i])) pr.add(`column ${col.name} row ${i}: ${String(cols[k][i]).slice(0, 60)}, expected ${JSON.stringify(col.values[i]).slice(0, 60)}`)
    })
  } catch (err) {
    pr.add(`read failed: ${err.message}`)
  }
  pr.finish()
}

// ---------------------------------------------------------------------------
// arrow-rs

function checkArrow(bytes, spec) {
  const pr = new Problems(spec.name, 'arrow-rs')
  try {
    const table = readArrow(bytes)
    if (table.numRows !== spec.rows) pr.add(`${table.numRows} rows, expected ${spec.rows}`)
    for (const col of spec.columns) {
      const v = table.getChild(col.name)
      if (!v) { pr.add(`no column ${col.name}`); continue }
      for (let i = 0; i < Math.min(spec.rows, v.length); i++) {
        const a = v.get(i)
        if (!sameCanon(col, col.values[i], a)) pr.add(`column ${col.name} row ${i}: ${String(a).slice(0, 60)}, expected ${JSON.stringify(col.values[i]).slice(0, 60)}`)
      }
    }
  } catch (err) {
    pr.add(`read failed: ${err.message ?? err}`)
  }
  pr.finish()
}

// ---------------------------------------------------------------------------
// Bloom filters

// Bytes a split-block bloom filter needs for ndv values at fpp (BloomFilter.md:
// 8 hash bits per value, each block a 256-bit mini filter).
const bloomBytesFor = (ndv, fpp) => Math.ceil(-8 * ndv / Math.log(1 - fpp ** (1 / 8)) / 8)
const nextPow2 = n => 2 ** Math.ceil(Math.log2(Math.max(n, 1)))
const clampBloom = n => Math.min(Math.max(n, 32), 128 * 1024 * 1024)
const DEFAULT_FPP = 0.01

async function checkBloom(db, con, file, spec, bytes, metadata) {
  const pr = new Problems(spec.name, 'bloom')
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  try {
    for (const [ci, col] of spec.columns.entries()) {
      const fpp = col.bloom?.fpp || DEFAULT_FPP
      const rgValues = spec.row_groups.map(rg => new Set(col.values.slice(rg.first_row, rg.first_row + rg.rows).filter(v => v !== null)))
      for (const [g, rg] of metadata.row_groups.entries()) {
        const meta = rg.columns[ci].meta_data, exp = spec.row_groups[g].chunks[ci]
        const where = `row group ${g} column ${col.name}`
        if (!col.bloom) {
          if (meta.bloom_filter_offset !== undefined) pr.add(`${where}: a bloom filter, none asked for`)
          continue
        }
        if (meta.bloom_filter_offset === undefined) { pr.add(`${where}: no bloom filter`); continue }
        const at = Number(meta.bloom_filter_offset)
        const header = rawStruct(bytes, at, meta.bloom_filter_length)
        const h = header.value, numBytes = h.field_1
        if (!h.field_2?.field_1 || !h.field_3?.field_1 || !h.field_4?.field_1) pr.add(`${where}: header ${JSON.stringify(h)} is not BLOCK / XXHASH / UNCOMPRESSED`)
        if (meta.bloom_filter_length === undefined) pr.add(`${where}: no bloom_filter_length`)
        else if (header.used + numBytes !== meta.bloom_filter_length) pr.add(`${where}: header ${header.used} + bitset ${numBytes} bytes, bloom_filter_length ${meta.bloom_filter_length}`)
        // size: the ndv asked for, or the chunk's own count (distinct values
        // when every data page is dictionary-encoded, its non-null values
        // when none is; either between for a chunk that falls back)
        const es = meta.encoding_stats ?? []
        const dataEnc = es.filter(s => s.page_type === 'DATA_PAGE' || s.page_type === 'DATA_PAGE_V2')
        const isDict = e => e === 'RLE_DICTIONARY' || e === 'PLAIN_DICTIONARY'
        const nonNull = exp.pages.reduce((a, p) => a + p.rows - p.null_count, 0)
        let lo, hi
        if (col.bloom.ndv) lo = hi = col.bloom.ndv
        else if (dataEnc.length && dataEnc.every(s => isDict(s.encoding))) lo = hi = exp.distinct
        else if (dataEnc.length && dataEnc.every(s => !isDict(s.encoding))) lo = hi = nonNull
        else { lo = exp.distinct; hi = nonNull }
        const least = clampBloom(bloomBytesFor(lo, fpp)), most = clampBloom(nextPow2(bloomBytesFor(hi, fpp)))
        if (!(numBytes % 32 === 0 && numBytes >= least && numBytes <= most))
          pr.add(`${where}: bitset of ${numBytes} bytes; ndv ${lo === hi ? lo : `${lo}..${hi}`} at fpp ${fpp} needs ${least}, at most ${most} rounded up`)
        // the bitset, rebuilt from the chunk's values
        const got = readBloomFilter({ view, offset: at })
        if (!got) { pr.add(`${where}: hyparquet cannot use the filter`); continue }
        const want = new Uint32Array(got.blocks.length)
        for (const v of rgValues[g]) sbbfInsert(want, xxhash64(plainBytes(col, v)))
        let diff = 0
        for (let i = 0; i < want.length; i++) if (want[i] !== got.blocks[i]) diff++
        if (diff) pr.add(`${where}: the bitset differs from the one its ${rgValues[g].size} distinct values make in ${diff} of ${want.length} words`)
      }
    }
    await probeDuckdb(db, con, file, spec, pr)
  } catch (err) {
    pr.add(`failed: ${err.stack ?? err}`)
  }
  pr.finish()
}

// DuckDB's parquet_bloom_probe(): a present value is never excluded; absent
// values are, but for about fpp of them; a column without a filter excludes
// nothing. One query per value (the function takes literals only), over a
// few connections at once.
const PROBE_PRESENT = 50 // present values probed per row group and column
const PROBE_ABSENT = 300 // values no row holds, per column (each probed in every row group)

async function probeDuckdb(db, con, file, spec, pr) {
  const cons = [con, ...(await Promise.all([1, 2, 3].map(() => db.connect())))]
  const lit = (col, v) => (col.type === 'string' ? sqlString(v) : `${v}::${col.type === 'int64' ? 'BIGINT' : col.type === 'int32' ? 'INTEGER' : col.type.toUpperCase()}`)
  for (const col of spec.columns) {
    const rgSets = spec.row_groups.map(rg => new Set(col.values.slice(rg.first_row, rg.first_row + rg.rows).filter(v => v !== null)))
    const all = new Set(rgSets.flatMap(s => [...s]))
    const pick = (arr, n) => (arr.length <= n ? arr : Array.from({ length: n }, (_, i) => arr[Math.floor(i * arr.length / n)]))
    // present values of each row group, values of the other row groups only,
    // and values of none
    const [nPresent, nAbsent] = col.bloom ? [PROBE_PRESENT, PROBE_ABSENT] : [20, 40]
    const probes = new Set([...rgSets.flatMap(s => pick([...s], nPresent)), ...pick(col.absent ?? [], nAbsent)])
    const result = new Map() // value -> [excludes per row group]
    const list = [...probes]
    let next = 0
    await Promise.all(cons.map(async c => {
      while (next < list.length) {
        const v = list[next++]
        const r = (await c.runAndReadAll(`SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe(${sqlString(file)}, ${sqlString(col.name)}, ${lit(col, v)})`)).getRows()
        result.set(v, r)
      }
    }))
    let absentTrials = 0, falsePositives = 0
    for (const [v, rows] of result) {
      if (rows.length !== spec.row_groups.length) { pr.add(`column ${col.name}: probe of ${v} gave ${rows.length} rows, expected one per row group`); continue }
      for (const [g, excl] of rows) {
        const present = rgSets[Number(g)].has(v)
        if (present && excl !== false) pr.add(`column ${col.name} row group ${g}: DuckDB's probe excludes ${JSON.stringify(v)}, which the row group holds`)
        if (!col.bloom && excl !== false) pr.add(`column ${col.name} (no bloom filter) row group ${g}: probe of ${JSON.stringify(v)} says ${excl}, expected false (cannot exclude)`)
        if (!present && col.bloom) { absentTrials++; if (excl !== true) falsePositives++ }
      }
      if (!all.has(v) && !(col.absent ?? []).includes(v)) pr.add(`column ${col.name}: internal: probe ${v} neither present nor absent`)
    }
    if (col.bloom) {
      const fpp = col.bloom.fpp || DEFAULT_FPP, rate = falsePositives / absentTrials
      notes.push(`${spec.name} ${col.name}: DuckDB's probe excluded ${absentTrials - falsePositives} of ${absentTrials} absent values ` +
        `(${(100 * rate).toFixed(2)}% false positives at fpp ${fpp}); ${result.size} values probed`)
      if (absentTrials < PROBE_ABSENT * spec.row_groups.length) pr.add(`column ${col.name}: only ${absentTrials} absent probes`)
      if (rate > 3 * fpp) pr.add(`column ${col.name}: ${falsePositives} of ${absentTrials} absent values not excluded (${(100 * rate).toFixed(2)}%), fpp ${fpp}`)
    }
  }
  for (const c of cons.slice(1)) c.closeSync?.()
}

// ---------------------------------------------------------------------------
// Row-group skipping

function scanNode(node) {
  if (!node) return null
  if (node.operator_type === 'TABLE_SCAN') return node
  for (const c of node.children ?? []) { const s = scanNode(c); if (s) return s }
  return null
}

async function profiled(con, profFile, sql) {
  const rows = (await con.runAndReadAll(sql)).getRows()
  const scan = scanNode(JSON.parse(fs.readFileSync(profFile, 'utf8')))
  return { rows, scanned: scan?.operator_row_groups_scanned, total: scan?.operator_total_row_groups_to_scan }
}

// A copy of the file with the pages (headers and bodies) of the chosen row
// groups overwritten with 0xff; footer, page index and blooms left alone.
function corrupted(bytes, metadata, groups, out) {
  const copy = Uint8Array.from(bytes)
  for (const g of groups)
    for (const cc of metadata.row_groups[g].columns) {
      const start = Number(cc.meta_data.dictionary_page_offset ?? cc.meta_data.data_page_offset)
      copy.fill(0xff, start, start + Number(cc.meta_data.total_compressed_size))
    }
  fs.writeFileSync(out, copy)
  return out
}

async function checkSkipping(db, file, spec, bytes, metadata, tmp) {
  const pr = new Problems(spec.name, 'row-group skipping')
  const con = await db.connect()
  try {
    const profFile = path.join(tmp, `${spec.name}.profile.json`)
    await con.run(`PRAGMA enable_profiling = 'json'`)
    await con.run(`SET custom_profiling_settings = '{"OPERATOR_ROW_GROUPS_SCANNED": "true", "OPERATOR_TOTAL_ROW_GROUPS_TO_SCAN": "true", "OPERATOR_CARDINALITY": "true"}'`)
    await con.run(`PRAGMA profiling_output = ${sqlString(profFile)}`)
    const [idCol, pCol, sCol] = ['id', 'p', 's'].map(n => spec.columns.find(c => c.name === n))
    const nGroups = spec.row_groups.length, withStats = spec.options.statistics
    if (nGroups !== 10) pr.add(`${nGroups} row groups, expected 10`)
    // the target: a row in row group 6; a range inside row group 3
    const row = spec.row_groups[6].first_row + (5432 % spec.row_groups[6].rows)
    const x = idCol.values[row]
    const lo = spec.row_groups[3].first_row + 1000, hi = lo + 99
    const queries = [
      { what: `WHERE id = ${x}`, where: `id = ${x}`, rows: [row], group: 6 },
      { what: `WHERE id BETWEEN ${idCol.values[lo]} AND ${idCol.values[hi]}`, where: `id BETWEEN ${idCol.values[lo]} AND ${idCol.values[hi]}`, rows: Array.from({ length: 100 }, (_, i) => lo + i), group: 3 },
    ]
    for (const q of queries) {
      const sql = f => `SELECT count(*)::BIGINT AS n, sum(p)::BIGINT AS sp, min(s) AS ms, max(s) AS xs FROM read_parquet(${sqlString(f)}) WHERE ${q.where}`
      const want = [BigInt(q.rows.length), q.rows.reduce((a, r) => a + BigInt(pCol.values[r]), 0n), sCol.values[q.rows[0]], sCol.values[q.rows[q.rows.length - 1]]]
      const got = await profiled(con, profFile, sql(file))
      const same = r => JSON.stringify(r?.map(String)) === JSON.stringify(want.map(String))
      if (!same(got.rows[0])) pr.add(`${q.what}: DuckDB answers ${JSON.stringify(got.rows[0]?.map(String))}, expected ${JSON.stringify(want.map(String))}`)
      const rowsScanned = got.scanned === undefined ? '?' : spec.row_groups.slice(0, got.scanned).reduce((a, g) => a + g.rows, 0)
      notes.push(`${spec.name}: ${q.what}: DuckDB scanned ${got.scanned} of ${got.total} row groups (${got.scanned === 1 ? spec.row_groups[q.group].rows : rowsScanned} of ${spec.rows} rows)`)
      if (got.total !== nGroups) pr.add(`${q.what}: operator_total_row_groups_to_scan ${got.total}, expected ${nGroups}`)
      const wantScanned = withStats ? 1 : nGroups
      if (got.scanned !== wantScanned) pr.add(`${q.what}: DuckDB scanned ${got.scanned} row groups, expected ${wantScanned}${withStats ? ' (statistics should prune the other 9)' : ' (no statistics to prune by)'}`)
      // the same by behaviour: garbage in every other row group's pages
      const others = spec.row_groups.map((_, g) => g).filter(g => g !== q.group)
      const fOthers = corrupted(bytes, metadata, others, path.join(tmp, `${spec.name}.others-${q.group}.parquet`))
      const fTarget = corrupted(bytes, metadata, [q.group], path.join(tmp, `${spec.name}.target-${q.group}.parquet`))
      const attempt = async f => { try { return { rows: (await con.runAndReadAll(sql(f))).getRows() } } catch (err) { return { err: err.message } } }
      const a = await attempt(fOthers), b = await attempt(fTarget)
      if (withStats) {
        if (a.err) pr.add(`${q.what}: with the other row groups' pages overwritten DuckDB fails (it read them): ${a.err.split('\n')[0]}`)
        else if (!same(a.rows[0])) pr.add(`${q.what}: with the other row groups' pages overwritten DuckDB answers ${JSON.stringify(a.rows[0]?.map(String))}`)
        if (!b.err) pr.add(`${q.what}: with row group ${q.group}'s pages overwritten DuckDB still answers ${JSON.stringify(b.rows[0]?.map(String))} (the check cannot see a read)`)
      } else if (!a.err) pr.add(`${q.what}: without statistics, DuckDB answered with the other row groups' pages overwritten (it should have had to read them)`)
    }
  } catch (err) {
    pr.add(`failed: ${err.stack ?? err}`)
  }
  con.closeSync?.()
  pr.finish()
}

// ---------------------------------------------------------------------------
// The CRC check must see a changed byte

function crcSelfTest(spec, bytes, metadata) {
  const pr = new Problems(spec.name, 'crc self-test')
  const copy = Uint8Array.from(bytes)
  const { pages } = walkPages(copy, metadata.row_groups[0].columns[0].meta_data)
  const p = pages.find(isData)
  copy[p.bodyAt + (p.compressed >> 1)] ^= 0x40
  if (zlib.crc32(copy.subarray(p.bodyAt, p.bodyAt + p.compressed)) === (p.crc >>> 0)) pr.add('a changed byte leaves the crc equal')
  pr.finish()
}

// ---------------------------------------------------------------------------

// Every file, one after the other (DuckDB's own threads run its queries).
async function checkAll(dir, names, db, con, tmp) {
  for (const name of names) {
    const t0 = Date.now()
    const file = path.resolve(dir, `${name}.parquet`)
    const spec = JSON.parse(fs.readFileSync(path.join(dir, `${name}.json`), 'utf8'))
    const bytes = new Uint8Array(fs.readFileSync(file))
    let metadata
    try {
      metadata = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))
    } catch (err) {
      const pr = new Problems(name, 'footer')
      pr.add(`hyparquet cannot parse the footer: ${err.message}`)
      pr.finish()
      continue
    }
    checkStructure(spec, bytes, metadata)
    await checkDuckdbMetadata(con, file, spec)
    await checkDuckdbValues(con, file, spec)
    checkArrow(bytes, spec)
    if (spec.options.page_checksum) crcSelfTest(spec, bytes, metadata)
    if (spec.kind === 'bloom') await checkBloom(db, con, file, spec, bytes, metadata)
    if (spec.kind === 'sorted') await checkSkipping(db, file, spec, bytes, metadata, tmp)
    if (process.env.SKIP_TIMING) console.log(`skip: ${name} checked in ${Date.now() - t0} ms`)
  }
}

async function main() {
  const dir = process.argv[2]
  if (!dir) {
    console.error('usage: node skip.mjs DIR [NAME-REGEX]')
    process.exit(2)
  }
  if (typeof zlib.crc32 !== 'function') {
    console.error('skip: this Node has no zlib.crc32 (Node >= 20.15 / 22.2 needed)')
    process.exit(2)
  }
  const only = process.argv[3] ? new RegExp(process.argv[3]) : null
  const names = fs.readdirSync(dir)
    .filter(f => f.endsWith('.parquet') && fs.existsSync(path.join(dir, f.replace(/\.parquet$/, '.json'))))
    .map(f => f.replace(/\.parquet$/, ''))
    .filter(n => !only || only.test(n))
    .sort()
  if (!names.length) {
    console.error(`skip: no NAME.parquet with NAME.json in ${dir}`)
    process.exit(1)
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'inlay-skip-'))
  const db = await DuckDBInstance.create(':memory:')
  const con = await db.connect()
  const started = Date.now()
  try {
    await checkAll(dir, names, db, con, tmp)
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true })
  }
  for (const n of notes) console.log(`skip: ${n}`)
  if (known.duckdbInfinity)
    console.log(`skip: known reader limitation: DuckDB's parquet_metadata() shows infinite double statistics as NULL ` +
      `(${known.duckdbInfinity} values; the footer's bytes are checked)`)
  console.log(`skip: ${names.length} files, ${passed.count} checks passed, ${failures.length} failed, in ${((Date.now() - started) / 1000).toFixed(1)}s`)
  if (failures.length) {
    console.log(`skip: FAILED (${failures.length} failure(s), details above)`)
    process.exit(1)
  }
}

main().catch(err => {
  console.error(`skip: ${err.stack ?? err}`)
  process.exit(1)
})
