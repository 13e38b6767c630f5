#!/usr/bin/env node
// dataset_check.mjs FIXTURE WORKDIR [TEST-REGEX]
//
// Runs the interop_dataset program (dataset_fixtures.c, path FIXTURE) in each
// of its modes under WORKDIR and reads what it wrote with DuckDB
// (read_parquet with hive_partitioning), arrow-rs (parquet-wasm) and
// hyparquet:
//
//   basic   a dataset by (day DATE, platform STRING) reads back in DuckDB as
//           exactly the rows written (EXCEPT ALL both ways against the same
//           rows in one plain file), with the partition columns typed DATE
//           and VARCHAR; folder and file names as inlay.h names them;
//           arrow-rs and hyparquet read every file (row counts add up, ids,
//           values and names match the rows written, no partition column in
//           the files); one manifest and _SUCCESS; max_buffered_bytes
//           small enough that some files hold several row groups.
//   basic_types  BOOLEAN, INT32 and UINT64 partition columns at their
//           extremes (INT32_MIN, UINT64_MAX, null) read back typed; the
//           manifest's partition values are the folders'.
//   basic_nested  a list<string> (null and empty lists, null elements)
//           and an optional struct, gathered by partition and cut by
//           max_file_rows, read back as written (DuckDB, arrow-rs); the
//           same rows appended as Arrow record batches too.
//   weird   partition values hard to put in a folder name round-trip
//           through the folder names (keep_partition_columns = false,
//           hive_partitioning = true), except values too long for a name,
//           which read as "<prefix>~<16 hex>", stay distinct, and are whole
//           in the files; with keep_partition_columns = true every value
//           reads back from the files. Folder names as inlay.h spells them
//           (%XX escapes, "k=", %6Eull, %2E%2E); shortened ones of 252..255
//           bytes (no room left for one more character); the manifest gives
//           each file's value whole. Every file and folder is under the
//           root, no name is "." or "..", none passes 255 bytes.
//   rolling_rows  max_file_rows = N: in each partition every file but the last
//           holds exactly N rows (the last 1..N); the same without
//           partition columns, every file at the root.
//   rolling_bytes  max_file_bytes = B: each file's data (everything before its
//           page index and footer) stays within B plus one look's rows
//           (inlay.h: the size is looked at every file.page_rows rows, and a
//           file passes the limit by at most that many), plus 4 KiB for page
//           headers; more than one file per partition.
//           (With ZSTD the files come out about a fifth of B: the limit
//           counts the writer's buffered bytes, before compression.)
//   rolling_open_files  max_open_files = 2 over 50 partitions hit in random order: each
//           row exactly once, and files were closed early (more than 50).
//   shards  two processes with distinct shards (one by option, one by
//           INLAY_SHARD) write into one root at the same time: both
//           manifests, every row once; replace_shard with other rows
//           changes only that shard's files; existing = error on a shard
//           that has files fails with INLAY_ERR_IO and changes nothing;
//           append continues the shard's numbering.
//   kill    a slow writer killed with SIGKILL once a few files are
//           published leaves only complete .parquet files (each read by
//           DuckDB and hyparquet), no manifest, no _SUCCESS; whatever else
//           it left is a temporary whose name does not end in .parquet;
//           run again with replace_shard, the job leaves only its new rows.
//
// Exits 1 naming the test and what differs on any failure.

import { DuckDBInstance } from '@duckdb/node-api'
import { parquetMetadata } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'
import { spawn } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import { sqlString, readArrow, hyparquetRows } from './common.mjs'

const [fixture, workArg, onlyArg] = process.argv.slice(2)
if (!fixture || !workArg) {
  console.error('usage: node dataset_check.mjs FIXTURE WORKDIR [TEST-REGEX]')
  process.exit(2)
}
const work = path.resolve(workArg)
const only = onlyArg ? new RegExp(onlyArg) : null
const INLAY_ERR_IO = -10

let failures = 0
function fail(test, msg) {
  failures++
  console.log(`dataset: FAIL ${test}: ${msg}`)
}
function check(test, ok, msg) {
  if (!ok) fail(test, msg)
  return ok
}

// ---------------------------------------------------------------------
// Helpers

// Runs the fixture program; resolves with { code, signal, stdout, stderr }.
function start(args, env = {}) {
  const child = spawn(fixture, args, { env: { ...process.env, ...env } })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', d => { stdout += d })
  child.stderr.on('data', d => { stderr += d })
  const done = new Promise(resolve => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })))
  return { child, done }
}
async function runFixture(test, args, env) {
  const r = await start(args, env).done
  if (r.code !== 0) throw new Error(`${test}: interop_dataset ${args.join(' ')} exit ${r.code} ${r.signal ?? ''}: ${r.stderr}`)
  return r
}

// Every entry under root (not following symlinks): { rel, abs, name, st }.
function walk(root) {
  const out = []
  const visit = dir => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, e.name)
      out.push({ rel: path.relative(root, abs), abs, name: e.name, st: fs.lstatSync(abs) })
      if (e.isDirectory()) visit(abs)
    }
  }
  visit(root)
  return out
}
const parquetFiles = root => walk(root).filter(e => e.st.isFile() && e.name.endsWith('.parquet'))

const glob = root => sqlString(`${root}/**/*.parquet`)

let con
async function rows(sql) {
  return (await con.runAndReadAll(sql)).getRowObjectsJS()
}
async function scalar(sql) {
  return (await con.runAndReadAll(sql)).getRowsJS()[0][0]
}

// Rows of `a` not in `b` and of `b` not in `a`, as multisets (EXCEPT ALL
// both ways; DuckDB's set operations take NULLs as equal). Reports up to 5
// of each.
async function sameRows(test, what, a, b) {
  const except = (x, y) => `SELECT * FROM (SELECT * FROM (${x}) EXCEPT ALL SELECT * FROM (${y})) LIMIT 5`
  const ab = await rows(except(a, b))
  const ba = await rows(except(b, a))
  const show = r => JSON.stringify(r, (k, v) => (typeof v === 'bigint' ? v.toString() : v))
  check(test, ab.length === 0, `${what}: rows read that were not written, e.g. ${show(ab)}`)
  check(test, ba.length === 0, `${what}: rows written that were not read, e.g. ${show(ba)}`)
}

const hive = (root, types, extra = '') =>
  `read_parquet(${glob(root)}, hive_partitioning = true, hive_types = ${types}, hive_types_autocast = false${extra})`
const EVENT_TYPES = `{'day': 'DATE', 'platform': 'VARCHAR'}`
const PLATFORM_TYPES = `{'platform': 'VARCHAR'}`
const DAY_TYPES = `{'day': 'DATE'}`
const EVENT_COLS = 'id, value, name, day, platform'
const PART_FILE = /^part-([A-Za-z0-9_.-]+)-(\d{6,})\.parquet$/

const bytesOf = abs => {
  const b = fs.readFileSync(abs)
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)
}
const hyMeta = abs => parquetMetadata(bytesOf(abs))
const hyRows = abs => hyparquetRows({ file: bytesOf(abs), compressors, rowFormat: 'object' })
const arrowTable = abs => readArrow(new Uint8Array(fs.readFileSync(abs)))

// The end of a file's last column chunk: the bytes of its row groups,
// before the page index, bloom filters and footer written at close.
function dataEnd(meta) {
  let end = 4
  for (const rg of meta.row_groups) {
    for (const c of rg.columns) {
      const md = c.meta_data
      const first = Number(md.dictionary_page_offset ?? md.data_page_offset)
      end = Math.max(end, Math.min(first, Number(md.data_page_offset)) + Number(md.total_compressed_size))
    }
  }
  return end
}

// name, size, mtime and a hash of every file under root, for "unchanged".
function snapshot(root, filter = () => true) {
  const m = new Map()
  for (const e of walk(root)) {
    if (!filter(e)) continue
    const hash = e.st.isFile() ? crypto.createHash('sha256').update(fs.readFileSync(e.abs)).digest('hex') : 'dir'
    m.set(e.rel, `${e.st.size} ${e.st.mtimeMs} ${hash}`)
  }
  return m
}
function sameSnapshot(test, what, before, after) {
  for (const [k, v] of before) {
    if (!after.has(k)) fail(test, `${what}: ${k} is gone`)
    else if (after.get(k) !== v) fail(test, `${what}: ${k} changed (${v} -> ${after.get(k)})`)
  }
  for (const k of after.keys()) if (!before.has(k)) fail(test, `${what}: ${k} appeared`)
}

// root/_inlay_manifest.<shard>.json lists exactly the shard's files (path
// under root, rows, bytes as on disk) and, where `partition` is given, each
// file's partition values as its folder names say them (fn of the path).
function checkManifest(test, root, shard, files, partition = null) {
  const p = path.join(root, `_inlay_manifest.${shard}.json`)
  if (!check(test, fs.existsSync(p), `no manifest for shard ${shard}`)) return
  let m
  try { m = JSON.parse(fs.readFileSync(p, 'utf8')) } catch (err) { return fail(test, `manifest of ${shard}: ${err.message}`) }
  const listed = new Map((m.files ?? []).map(f => [f.path, f]))
  check(test, listed.size === (m.files ?? []).length, `manifest of ${shard} lists a file twice`)
  for (const f of files) {
    const rel = f.rel.split(path.sep).join('/')
    const e = listed.get(rel)
    if (!check(test, e, `manifest of ${shard} does not list ${rel}`)) continue
    listed.delete(rel)
    check(test, e.bytes === f.st.size, `manifest of ${shard}: ${rel} has ${e.bytes} bytes, the file ${f.st.size}`)
    const n = Number(hyMeta(f.abs).num_rows)
    check(test, e.rows === n, `manifest of ${shard}: ${rel} has ${e.rows} rows, the file ${n}`)
    if (partition) {
      const want = JSON.stringify(partition(rel))
      check(test, JSON.stringify(e.partition) === want, `manifest of ${shard}: ${rel} partition ${JSON.stringify(e.partition)}, expected ${want}`)
    }
  }
  for (const rel of listed.keys()) fail(test, `manifest of ${shard} lists ${rel}, which is not one of its files`)
}

// The partition values a file's folders name, for names that need no
// unescaping: { column: text or null }.
function folderValues(rel) {
  const out = {}
  for (const part of rel.split('/').slice(0, -1)) {
    const [k, v] = part.split('=')
    out[k] = v === '__HIVE_DEFAULT_PARTITION__' ? null : v
  }
  return out
}

// What every dataset must hold besides its files: nothing outside root,
// names of legal length, no temporaries after a successful close.
function checkTree(test, root) {
  const real = fs.realpathSync(root)
  for (const e of walk(root)) {
    check(test, fs.realpathSync(e.abs).startsWith(real + path.sep), `${e.rel} resolves outside the root`)
    check(test, !e.st.isSymbolicLink(), `${e.rel} is a symlink`)
    for (const part of e.rel.split(path.sep)) {
      check(test, part !== '.' && part !== '..' && part !== '', `${e.rel}: path component '${part}'`)
      check(test, Buffer.byteLength(part) <= 255, `${e.rel}: a component of ${Buffer.byteLength(part)} bytes`)
    }
    check(test, !e.name.endsWith('.tmp'), `${e.rel}: a temporary left after close`)
  }
}

// ---------------------------------------------------------------------
// 1. basic

async function testBasic() {
  const T = 'basic'
  const dir = path.join(work, 'basic')
  await runFixture(T, ['basic', dir])
  const ds = path.join(dir, 'ds')
  const exp = `read_parquet(${sqlString(path.join(dir, 'expected.parquet'))})`
  const want = JSON.parse(fs.readFileSync(path.join(dir, 'info.json'), 'utf8')).rows
  checkTree(T, ds)

  // names: day=YYYY-MM-DD|__HIVE_DEFAULT_PARTITION__ / platform=... / part-<shard>-<seq>.parquet
  const files = parquetFiles(ds)
  const shards = new Set()
  for (const f of files) {
    const m = f.rel.match(/^day=(\d{4}-\d\d-\d\d|__HIVE_DEFAULT_PARTITION__)\/platform=([a-z]+|__HIVE_DEFAULT_PARTITION__)\/(part-[^/]+)$/)
    if (!check(T, m, `unexpected file path ${f.rel}`)) continue
    const p = m[3].match(PART_FILE)
    if (check(T, p, `file name ${m[3]} is not part-<shard>-<seq>.parquet`)) shards.add(p[1])
  }
  check(T, shards.size === 1, `files of ${shards.size} shards, expected 1`)
  const top = fs.readdirSync(ds).filter(n => !n.startsWith('day='))
  const manifests = top.filter(n => /^_inlay_manifest\..+\.json$/.test(n))
  check(T, manifests.length === 1 && manifests[0] === `_inlay_manifest.${[...shards][0]}.json`,
    `manifests at root: ${JSON.stringify(manifests)} (shard ${[...shards][0]})`)
  check(T, top.includes('_SUCCESS') && fs.statSync(path.join(ds, '_SUCCESS')).size === 0, '_SUCCESS missing or not empty')
  check(T, top.length === 2, `root holds ${JSON.stringify(top)} besides the day= folders`)
  if (shards.size === 1) checkManifest(T, ds, [...shards][0], files, folderValues)
  // 5 days and null x 4 platforms and null: 30 partitions, each with rows
  check(T, new Set(files.map(f => path.dirname(f.rel))).size === 30,
    `${new Set(files.map(f => path.dirname(f.rel))).size} partition folders, expected 30`)

  // max_buffered_bytes (64 KiB over 30 open files) ended row groups early
  const groups = files.map(f => hyMeta(f.abs).row_groups.length)
  check(T, groups.some(n => n > 1), `every file has one row group: max_buffered_bytes ended none early`)

  // DuckDB: the rows, the partition columns' types given and inferred
  const desc = await rows(`DESCRIBE SELECT ${EVENT_COLS} FROM ${hive(ds, EVENT_TYPES)}`)
  const types = Object.fromEntries(desc.map(r => [r.column_name, r.column_type]))
  check(T, JSON.stringify(types) === JSON.stringify({ id: 'BIGINT', value: 'DOUBLE', name: 'VARCHAR', day: 'DATE', platform: 'VARCHAR' }),
    `DuckDB types ${JSON.stringify(types)}`)
  const inferred = await rows(`DESCRIBE SELECT day, platform FROM read_parquet(${glob(ds)}, hive_partitioning = true)`)
  check(T, inferred.map(r => r.column_type).join() === 'DATE,VARCHAR',
    `DuckDB infers the partition columns as ${inferred.map(r => r.column_type).join()}, expected DATE,VARCHAR`)
  check(T, Number(await scalar(`SELECT count(*) FROM ${hive(ds, EVENT_TYPES)}`)) === want, 'DuckDB row count')
  await sameRows(T, 'DuckDB hive read vs expected',
    `SELECT ${EVENT_COLS} FROM ${hive(ds, EVENT_TYPES)}`, `SELECT ${EVENT_COLS} FROM ${exp}`)

  // arrow-rs and hyparquet, file by file: no partition column in the files,
  // every id once, its value and name those written
  const expected = new Map()
  for (const r of await rows(`SELECT id, value, name FROM ${exp}`)) expected.set(r.id, r)
  for (const reader of ['arrow-rs', 'hyparquet']) {
    const seen = new Set()
    let total = 0
    let bad = 0
    for (const f of files) {
      let recs
      if (reader === 'arrow-rs') {
        const t = arrowTable(f.abs)
        const names = t.schema.fields.map(x => x.name).join()
        check(T, names === 'id,value,name', `${reader} ${f.rel}: columns ${names}`)
        const [id, value, name] = ['id', 'value', 'name'].map(n => t.getChild(n))
        recs = []
        for (let i = 0; i < t.numRows; i++) recs.push({ id: id.get(i), value: value.get(i), name: name.get(i) })
      } else {
        const names = hyMeta(f.abs).schema.slice(1).map(x => x.name).join()
        check(T, names === 'id,value,name', `${reader} ${f.rel}: columns ${names}`)
        recs = await hyRows(f.abs)
      }
      total += recs.length
      for (const r of recs) {
        const id = BigInt(r.id)
        const e = expected.get(id)
        if (seen.has(id) || !e || e.value !== r.value || e.name !== r.name) {
          const got = JSON.stringify({ ...r, id: String(r.id) })
          const why = seen.has(id) ? 'seen twice' : `expected ${JSON.stringify({ ...e, id: String(id) })}`
          if (bad++ < 5) fail(T, `${reader} ${f.rel}: row ${got} ${why}`)
        }
        seen.add(id)
      }
    }
    check(T, total === want, `${reader}: ${total} rows over the files, expected ${want}`)
    check(T, seen.size === want, `${reader}: ${seen.size} distinct ids, expected ${want}`)
  }
}

// BOOLEAN, INT32 and UINT64 partition columns at their extremes
async function testTypes() {
  const T = 'basic_types'
  const dir = path.join(work, 'types')
  await runFixture(T, ['types', dir])
  const ds = path.join(dir, 'ds')
  const exp = `read_parquet(${sqlString(path.join(dir, 'expected.parquet'))})`
  checkTree(T, ds)
  for (const name of ['b=true/n=-2147483648/u=18446744073709551615', 'b=false/n=2147483647/u=9223372036854775808',
    'b=__HIVE_DEFAULT_PARTITION__/n=__HIVE_DEFAULT_PARTITION__/u=0'])
    check(T, fs.existsSync(path.join(ds, name)), `no folder ${name}`)
  const files = parquetFiles(ds)
  for (const f of files) {
    const names = hyMeta(f.abs).schema.slice(1).map(x => x.name).join()
    check(T, names === 'id', `${f.rel}: columns ${names}, expected id alone`)
  }
  const shard = path.basename(files[0]?.rel ?? '').match(PART_FILE)?.[1]
  checkManifest(T, ds, shard, files, rel => folderValues(rel.split(path.sep).join('/')))
  await sameRows(T, 'typed partition columns vs expected',
    `SELECT b, n, u, id FROM ${hive(ds, `{'b': 'BOOLEAN', 'n': 'INTEGER', 'u': 'UBIGINT'}`)}`,
    `SELECT b, n, u, id FROM ${exp}`)
}

// Nested columns split by partition: a list<string> with null and empty
// lists and null elements, and an optional struct
async function testNested() {
  const T = 'basic_nested'
  const dir = path.join(work, 'nested')
  await runFixture(T, ['nested', dir])
  const ds = path.join(dir, 'ds')
  const exp = `read_parquet(${sqlString(path.join(dir, 'expected.parquet'))})`
  const want = JSON.parse(fs.readFileSync(path.join(dir, 'info.json'), 'utf8')).rows
  checkTree(T, ds)
  const COLS = 'id, p, tags, attrs'
  await sameRows(T, 'nested dataset vs expected', `SELECT ${COLS} FROM ${hive(ds, `{'p': 'VARCHAR'}`)}`, `SELECT ${COLS} FROM ${exp}`)
  // the same rows given as Arrow record batches (inlay_dataset_append_arrow)
  const dsArrow = path.join(dir, 'ds_arrow')
  checkTree(T, dsArrow)
  await sameRows(T, 'nested dataset from Arrow batches vs expected',
    `SELECT ${COLS} FROM ${hive(dsArrow, `{'p': 'VARCHAR'}`)}`, `SELECT ${COLS} FROM ${exp}`)
  // the kinds of list the data must hold, so that the comparison covers them
  const kinds = (await rows(`SELECT count(*) FILTER (WHERE tags IS NULL) AS nulls, count(*) FILTER (WHERE len(tags) = 0) AS empties,
    count(*) FILTER (WHERE list_contains(list_transform(tags, x -> x IS NULL), true)) AS null_elements FROM ${exp}`))[0]
  check(T, kinds.nulls > 0n && kinds.empties > 0n && kinds.null_elements > 0n, `the data lacks a kind of list: ${JSON.stringify(kinds, (k, v) => (typeof v === "bigint" ? String(v) : v))}`)
  // max_file_rows 700 cuts files between rows whatever their lists
  const byPart = await fileCounts(ds)
  for (const list of byPart.values()) list.slice(0, -1).forEach(f => check(T, f.n === 700, `${f.filename}: ${f.n} rows, expected 700`))

  // arrow-rs: every file of both datasets, each row's list as written
  const expected = new Map((await rows(`SELECT id, tags FROM ${exp}`)).map(r => [r.id, JSON.stringify(r.tags)]))
  for (const root of [ds, dsArrow]) {
    let total = 0
    let bad = 0
    for (const f of parquetFiles(root)) {
      const t = arrowTable(f.abs)
      const id = t.getChild('id')
      const tags = t.getChild('tags')
      for (let i = 0; i < t.numRows; i++) {
        const v = tags.get(i)
        const got = JSON.stringify(v === null ? null : Array.from(v))
        const w = expected.get(id.get(i))
        if (got !== w && bad++ < 5) fail(T, `arrow-rs ${f.rel}: id ${id.get(i)} tags ${got}, expected ${w}`)
      }
      total += t.numRows
      check(T, Number(hyMeta(f.abs).num_rows) === t.numRows, `${f.rel}: hyparquet and arrow-rs disagree on rows`)
    }
    check(T, total === want, `arrow-rs: ${total} rows over the files of ${path.basename(root)}, expected ${want}`)
  }
}

// ---------------------------------------------------------------------
// 2. weird partition values

async function testWeird() {
  const T = 'weird'
  const dir = path.join(work, 'weird')
  await runFixture(T, ['weird', dir])
  const exp = `read_parquet(${sqlString(path.join(dir, 'expected.parquet'))})`
  const drop = path.join(dir, 'drop')
  const keep = path.join(dir, 'keep')

  // nothing written beside the datasets or above them
  const here = fs.readdirSync(dir).sort().join()
  check(T, here === 'drop,expected.parquet,info.json,keep', `${dir} holds ${here}`)
  for (const name of ['escape', 'x']) check(T, !fs.existsSync(path.join(work, name)), `${path.join(work, name)} was written`)
  checkTree(T, drop)
  checkTree(T, keep)
  for (const root of [drop, keep]) {
    for (const e of walk(root)) {
      if (e.st.isDirectory()) check(T, e.name.startsWith('k='), `folder ${e.rel} is not k=...`)
      else check(T, e.rel.split(path.sep).length === 2 ? PART_FILE.test(e.name) : /^(_SUCCESS|_inlay_manifest\..+\.json)$/.test(e.name),
        `unexpected file ${e.rel}`)
    }
  }

  // the folder names inlay.h spells out
  for (const name of ['k=%2F', 'k=%3D', 'k=%25', 'k=%3A', 'k=a b', 'k=é', 'k=日本', 'k=', 'k=__HIVE_DEFAULT_PARTITION__',
    'k=%2E%2E', 'k=%2E', 'k=%6Eull', 'k=%4EULL', 'k=%5F_HIVE_DEFAULT_PARTITION__', 'k=%252F', 'k=%09%01%7F', 'k=a%2F..%2F..%2Fescape'])
    check(T, fs.existsSync(path.join(drop, name)), `no folder ${name}`)

  const longIds = (await rows(`SELECT id FROM ${exp} WHERE strlen(k) > 255`)).map(r => r.id)
  const NLONG = 13   // long values in dataset_fixtures.c, 3 rows each
  check(T, longIds.length === 3 * NLONG, `${longIds.length} rows of long values, expected ${3 * NLONG}`)
  const longList = longIds.length ? longIds.join(', ') : '-1'
  const nValues = Number(await scalar(`SELECT count(DISTINCT coalesce(k, '<null>')) FROM ${exp}`))
  const folders = fs.readdirSync(drop).filter(n => n.startsWith('k='))
  check(T, folders.length === nValues, `${folders.length} folders for ${nValues} distinct values`)

  // keep_partition_columns = false, read through the folder names
  const dropHive = hive(drop, `{'k': 'VARCHAR'}`, ', union_by_name = true')
  await sameRows(T, 'drop, hive_partitioning, short values',
    `SELECT k, id FROM ${dropHive} WHERE id NOT IN (${longList})`,
    `SELECT k, id FROM ${exp} WHERE id NOT IN (${longList})`)
  const longRead = await rows(`SELECT d.id, d.k AS got, e.k AS want FROM ${dropHive} d JOIN ${exp} e USING (id) WHERE id IN (${longList})`)
  check(T, longRead.length === longIds.length, `${longRead.length} long-value rows read, expected ${longIds.length}`)
  const shortened = new Map()
  for (const r of longRead) {
    const m = typeof r.got === 'string' && r.got.match(/^([\s\S]+)~[0-9a-fA-F]{16}$/)
    check(T, m && r.want.startsWith(m[1]) && Buffer.byteLength(r.got) < Buffer.byteLength(r.want),
      `id ${r.id}: read ${JSON.stringify(r.got)} from the folder, expected a prefix of ${JSON.stringify(r.want)} then ~ and 16 hex digits`)
    if (shortened.has(r.want)) check(T, shortened.get(r.want) === r.got, `one long value read as ${shortened.get(r.want)} and ${r.got}`)
    shortened.set(r.want, r.got)
  }
  check(T, new Set(shortened.values()).size === NLONG, `${NLONG} long values read as ${new Set(shortened.values()).size} distinct shortened forms`)
  // the longest prefix that fits: no room was left for one more character
  // (at most 4 bytes of UTF-8) or escape (3)
  for (const name of folders.filter(n => /~[0-9a-fA-F]{16}$/.test(n))) {
    const n = Buffer.byteLength(name)
    check(T, n > 255 - 4 && n <= 255, `shortened folder name of ${n} bytes: ${name}`)
  }
  check(T, folders.filter(n => /~[0-9a-fA-F]{16}$/.test(n)).length === NLONG, 'shortened folder names')
  // the files themselves: k only in the long values' files, whole there
  await sameRows(T, 'drop, files alone (k whole where shortened, absent elsewhere)',
    `SELECT k, id FROM read_parquet(${glob(drop)}, hive_partitioning = false, union_by_name = true)`,
    `SELECT CASE WHEN id IN (${longList}) THEN k END AS k, id FROM ${exp}`)

  // the manifest gives each file its partition's value whole, the long ones too
  const shardOf = root => path.basename(parquetFiles(root)[0]?.rel ?? '').match(PART_FILE)?.[1]
  const perFile = await rows(`SELECT d.filename AS f, count(DISTINCT coalesce(e.k, '<null>')) AS n, min(e.k) AS k
    FROM read_parquet(${glob(drop)}, filename = true, hive_partitioning = false, union_by_name = true) d
    JOIN ${exp} e ON d.id = e.id GROUP BY d.filename`)
  const kOf = new Map(perFile.map(r => [path.relative(drop, r.f).split(path.sep).join('/'), r]))
  for (const r of perFile) check(T, Number(r.n) === 1, `${r.f} holds rows of ${r.n} partitions`)
  checkManifest(T, drop, shardOf(drop), parquetFiles(drop), rel => ({ k: kOf.get(rel)?.k ?? null }))

  // keep_partition_columns = true, read from the files
  await sameRows(T, 'keep, hive_partitioning = false',
    `SELECT k, id FROM read_parquet(${glob(keep)}, hive_partitioning = false)`, `SELECT k, id FROM ${exp}`)
  // and through the folders: same as drop's
  await sameRows(T, 'keep, hive_partitioning, short values',
    `SELECT k, id FROM ${hive(keep, `{'k': 'VARCHAR'}`)} WHERE id NOT IN (${longList})`,
    `SELECT k, id FROM ${exp} WHERE id NOT IN (${longList})`)
}

// ---------------------------------------------------------------------
// 3. rolling

const seqOf = f => Number(path.basename(f).match(PART_FILE)?.[2] ?? NaN)

async function fileCounts(ds) {
  const r = await rows(`SELECT filename, count(*) AS n FROM read_parquet(${glob(ds)}, filename = true) GROUP BY filename`)
  const byPart = new Map()
  for (const { filename, n } of r) {
    const d = path.dirname(filename)
    if (!byPart.has(d)) byPart.set(d, [])
    byPart.get(d).push({ filename, n: Number(n), seq: seqOf(filename) })
  }
  for (const list of byPart.values()) list.sort((a, b) => a.seq - b.seq)
  return byPart
}

async function testRows() {
  const T = 'rolling_rows'
  const dir = path.join(work, 'rows')
  const N = 1000
  await runFixture(T, ['rows', dir, String(N)])
  const ds = path.join(dir, 'ds')
  const exp = `read_parquet(${sqlString(path.join(dir, 'expected.parquet'))})`
  const want = JSON.parse(fs.readFileSync(path.join(dir, 'info.json'), 'utf8')).rows
  checkTree(T, ds)
  const byPart = await fileCounts(ds)
  check(T, byPart.size === 4, `${byPart.size} partitions, expected 4`)
  let total = 0
  for (const [d, list] of byPart) {
    list.forEach((f, i) => {
      total += f.n
      if (i < list.length - 1) check(T, f.n === N, `${f.filename}: ${f.n} rows, expected ${N} (not the partition's last file)`)
      else check(T, f.n >= 1 && f.n <= N, `${f.filename}: ${f.n} rows, expected 1..${N} (the partition's last file)`)
    })
    check(T, list.length > 1, `${d}: one file`)
  }
  check(T, total === want, `${total} rows over the files, expected ${want}`)
  await sameRows(T, 'max_file_rows dataset vs expected',
    `SELECT ${EVENT_COLS} FROM ${hive(ds, PLATFORM_TYPES)}`, `SELECT ${EVENT_COLS} FROM ${exp}`)

  // without partitions: files at the root, the same counts
  const flat = path.join(dir, 'flat')
  checkTree(T, flat)
  for (const e of walk(flat)) {
    const known = PART_FILE.test(e.name) || /^(_SUCCESS|_inlay_manifest\..+\.json)$/.test(e.name)
    check(T, e.st.isFile() && known, `flat: unexpected ${e.rel}`)
  }
  const flatFiles = [...(await fileCounts(flat)).values()].flat()
  check(T, flatFiles.length === Math.ceil(want / N), `flat: ${flatFiles.length} files, expected ${Math.ceil(want / N)}`)
  flatFiles.forEach((f, i) => check(T, f.n === (i < flatFiles.length - 1 ? N : want - N * i), `flat: ${f.filename}: ${f.n} rows`))
  await sameRows(T, 'flat max_file_rows dataset vs expected',
    `SELECT ${EVENT_COLS} FROM read_parquet(${glob(flat)})`, `SELECT ${EVENT_COLS} FROM ${exp}`)
}

async function testBytes() {
  const T = 'rolling_bytes'
  const dir = path.join(work, 'bytes')
  const B = 256 * 1024
  await runFixture(T, ['bytes', dir, String(B)])
  const ds = path.join(dir, 'ds')
  const exp = `read_parquet(${sqlString(path.join(dir, 'expected.parquet'))})`
  const info = JSON.parse(fs.readFileSync(path.join(dir, 'info.json'), 'utf8'))
  checkTree(T, ds)
  // page headers (with statistics) of the pages a file ends with
  const bound = B + info.step_bytes + 4096
  const byPart = await fileCounts(ds)
  check(T, byPart.size === 4, `${byPart.size} partitions, expected 4`)
  for (const [d, list] of byPart) {
    check(T, list.length > 1, `${d}: ${list.length} file(s), expected several at max_file_bytes ${B}`)
    for (const f of list) {
      const end = dataEnd(hyMeta(f.filename))
      check(T, end <= bound, `${f.filename}: ${end} bytes of row groups, more than ${B} + ${info.step_bytes} + 4096`)
    }
  }
  check(T, [...byPart.values()].flat().reduce((s, f) => s + f.n, 0) === info.rows, 'row total')
  await sameRows(T, 'max_file_bytes dataset vs expected',
    `SELECT ${EVENT_COLS} FROM ${hive(ds, PLATFORM_TYPES)}`, `SELECT ${EVENT_COLS} FROM ${exp}`)
}

async function testOpenFiles() {
  const T = 'rolling_open_files'
  const dir = path.join(work, 'open')
  await runFixture(T, ['open', dir])
  const ds = path.join(dir, 'ds')
  const exp = `read_parquet(${sqlString(path.join(dir, 'expected.parquet'))})`
  checkTree(T, ds)
  const files = parquetFiles(ds)
  const folders = new Set(files.map(f => path.dirname(f.rel)))
  check(T, folders.size === 50, `${folders.size} partition folders, expected 50`)
  check(T, files.length > 50, `${files.length} files: with 2 open files over 50 partitions, files must be closed early`)
  await sameRows(T, 'max_open_files dataset vs expected',
    `SELECT ${EVENT_COLS} FROM ${hive(ds, DAY_TYPES)}`, `SELECT ${EVENT_COLS} FROM ${exp}`)
}

// ---------------------------------------------------------------------
// 4. shards

async function testShards() {
  const T = 'shards'
  const root = path.join(work, 'shards')
  const expOf = n => path.join(work, `shard_expected_${n}.parquet`)
  const union = names => names.map(n => `SELECT ${EVENT_COLS} FROM read_parquet(${sqlString(expOf(n))})`).join(' UNION ALL ')
  const readAll = `SELECT ${EVENT_COLS} FROM ${hive(root, EVENT_TYPES)}`
  const shardFiles = s => parquetFiles(root).filter(f => path.basename(f.rel).match(PART_FILE)?.[1] === s)
  const manifestNames = (s, files) => checkManifest(T, root, s, files)

  // two writers at once: one names its shard, the other takes INLAY_SHARD
  const a = start(['shard', root, 'sA', '1', '3000', 'error', expOf('a')])
  const b = start(['shard', root, '-', '2', '3000', 'error', expOf('b')], { INLAY_SHARD: 'sB' })
  for (const [n, r] of [['sA', await a.done], ['sB', await b.done]]) {
    if (r.code !== 0) throw new Error(`${T}: writer ${n} exit ${r.code} ${r.signal ?? ''}: ${r.stderr}`)
  }
  checkTree(T, root)
  const filesA = shardFiles('sA')
  const filesB = shardFiles('sB')
  check(T, filesA.length > 1 && filesB.length > 1, `files: ${filesA.length} of sA, ${filesB.length} of sB`)
  check(T, filesA.length + filesB.length === parquetFiles(root).length, 'files of neither shard')
  manifestNames('sA', filesA)
  manifestNames('sB', filesB)
  check(T, fs.existsSync(path.join(root, '_SUCCESS')), 'no _SUCCESS')
  await sameRows(T, 'two shards at once vs both expected', readAll, union(['a', 'b']))

  // replace_shard: sA again with other rows, 40 of them: fewer partitions,
  // so some of its old files are replaced by name and the others must go
  const isB = e => e.name.match(PART_FILE)?.[1] === 'sB' || e.name === '_inlay_manifest.sB.json'
  const beforeB = snapshot(root, isB)
  await runFixture(T, ['shard', root, 'sA', '3', '40', 'replace', expOf('a2')])
  sameSnapshot(T, 'shard sB after sA was replaced', beforeB, snapshot(root, isB))
  checkTree(T, root)
  const filesA2 = shardFiles('sA')
  check(T, filesA2.length > 0 && filesA2.length < filesA.length, `sA has ${filesA2.length} files after the replace (before ${filesA.length})`)
  manifestNames('sA', filesA2)
  await sameRows(T, 'after replace_shard: sB old rows + sA new rows', readAll, union(['a2', 'b']))

  // existing = error on a shard that has files: INLAY_ERR_IO, nothing written
  const beforeAll = snapshot(root)
  const e = await start(['shard', root, 'sB', '4', '500', 'error', '-']).done
  check(T, e.code === 3 && e.stdout.includes(`open status ${INLAY_ERR_IO}`),
    `existing = error on shard sB: exit ${e.code}, "${e.stdout.trim()}", expected open status ${INLAY_ERR_IO}`)
  sameSnapshot(T, 'after a refused open', beforeAll, snapshot(root))

  // append: sB's numbering goes on, its manifest lists old and new files
  const maxSeqB = Math.max(...shardFiles('sB').map(f => seqOf(f.rel)))
  const oldB = new Set(shardFiles('sB').map(f => f.rel))
  await runFixture(T, ['shard', root, 'sB', '5', '700', 'append', expOf('b2')])
  const newB = shardFiles('sB').filter(f => !oldB.has(f.rel))
  check(T, newB.length > 0 && newB.every(f => seqOf(f.rel) > maxSeqB),
    `appended sB files ${JSON.stringify(newB.map(f => f.rel))} do not continue after seq ${maxSeqB}`)
  manifestNames('sB', shardFiles('sB'))
  await sameRows(T, 'after append: sA + sB old + sB new', readAll, union(['a2', 'b', 'b2']))
}

// ---------------------------------------------------------------------
// 5. kill

async function testKill() {
  const T = 'kill'
  const root = path.join(work, 'kill')
  const w = start(['slow', root], { INLAY_SHARD: 'k1' })
  const t0 = Date.now()
  let published = 0
  const exists = () => fs.existsSync(root)
  while (Date.now() - t0 < 30000) {
    await new Promise(r => setTimeout(r, 30))
    try {
      published = exists() ? parquetFiles(root).length : 0
    } catch (err) {
      if (err.code !== 'ENOENT') throw err   // a temporary renamed while listed
    }
    if (published >= 4) break
  }
  w.child.kill('SIGKILL')
  const r = await w.done
  check(T, r.signal === 'SIGKILL', `the writer was not killed while writing (exit ${r.code}, signal ${r.signal}): ${r.stderr}`)
  check(T, published >= 4, `only ${published} files published in 30 s`)
  if (!exists()) return
  const entries = walk(root)
  for (const e of entries) {
    if (e.st.isDirectory()) continue
    check(T, !/^_inlay_manifest\./.test(e.name) && e.name !== '_SUCCESS', `a killed writer left ${e.rel}`)
    if (e.name.endsWith('.parquet')) {
      check(T, PART_FILE.test(e.name), `${e.rel}: not a part file name`)
      try {
        const n = Number(await scalar(`SELECT count(*) FROM read_parquet(${sqlString(e.abs)})`))
        // 25 partitions, fewer than the 64 files kept open: a file is
        // published before close only on reaching max_file_rows
        check(T, n === 200, `${e.rel}: ${n} rows, expected 200 (max_file_rows)`)
        check(T, Number(hyMeta(e.abs).num_rows) === n, `${e.rel}: hyparquet and DuckDB disagree on rows`)
      } catch (err) { fail(T, `${e.rel} does not read: ${err.message}`) }
    } else {
      // a temporary, hidden from readers that list the folder (Spark, Trino)
      check(T, /^\.part-.*\.tmp$/.test(e.name), `${e.rel}: neither a .parquet file nor a hidden temporary`)
    }
  }
  const tmps = entries.filter(e => e.name.endsWith('.tmp')).length
  console.log(`dataset: kill: ${parquetFiles(root).length} files published, ${tmps} temporaries left`)

  // the job run again with replace_shard: only its new rows remain, the
  // killed run's files are gone (its temporaries may stay: not .parquet)
  const exp = path.join(work, 'kill_rerun.parquet')
  await runFixture(T, ['shard', root, 'k1', '7', '500', 'replace', exp])
  const files = parquetFiles(root)
  checkManifest(T, root, 'k1', files)
  check(T, fs.existsSync(path.join(root, '_SUCCESS')), 'no _SUCCESS after the rerun')
  await sameRows(T, 'rerun after the kill vs its rows',
    `SELECT ${EVENT_COLS} FROM ${hive(root, EVENT_TYPES)}`, `SELECT ${EVENT_COLS} FROM read_parquet(${sqlString(exp)})`)
}

// ---------------------------------------------------------------------

const tests = { basic: testBasic, basic_types: testTypes, basic_nested: testNested, weird: testWeird, rolling_rows: testRows, rolling_bytes: testBytes,
  rolling_open_files: testOpenFiles, shards: testShards, kill: testKill }
fs.rmSync(work, { recursive: true, force: true })
fs.mkdirSync(work, { recursive: true })
const db = await DuckDBInstance.create(':memory:')
con = await db.connect()
for (const [name, fn] of Object.entries(tests)) {
  if (only && !only.test(name)) continue
  const t = Date.now()
  const before = failures
  try {
    await fn()
  } catch (err) {
    fail(name, err.stack ?? err.message)
  }
  console.log(`dataset: ${name} ${failures === before ? 'ok' : 'FAILED'} (${((Date.now() - t) / 1000).toFixed(1)} s)`)
}
if (failures) {
  console.log(`dataset: ${failures} failure(s); the files are in ${work}`)
  process.exit(1)
}
console.log('dataset: all checks passed')
