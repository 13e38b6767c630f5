#!/usr/bin/env node
// duckdb_peer.mjs — the DuckDB peer of bench_write_table.
//
//   node bench/write_table/duckdb_peer.mjs FILE.parquet [--repeat K] [--out PATH] [--threads N]
//                                          [--codec NAME[,NAME...]]
//
// Loads FILE (the file bench_write_table wrote) into an in-memory DuckDB
// table, sets threads=1 (--threads), then times
//   COPY t TO 'out.parquet' (FORMAT parquet, COMPRESSION NAME)
// K times for each codec asked (zstd by default; snappy, gzip, zstd,
// lz4_raw, brotli or uncompressed) and reports the median and the size of
// what DuckDB wrote. The data is then exactly the data inlay wrote, and
// DuckDB starts from columns that are already in memory (inlay's timed run
// also generates them). DuckDB picks no level but its codec's default: ZSTD
// 3, GZIP 6 (miniz), BROTLI 11 (quality, window 22), LZ4_RAW the fast
// compressor (LZ4_compress_default), SNAPPY has none.
//
// @duckdb/node-api is taken from tests/interop/node_modules (or any
// node_modules above bench/, or NODE_PATH): see ../common/duckdb_load.mjs.
//
// Each codec ends with a machine-readable "RESULT key=value ..." line (with
// codec=NAME).

import fs from 'node:fs';
import path from 'node:path';

import { loadDuckDB } from '../common/duckdb_load.mjs';


function usage(code) {
  const out = code ? console.error : console.log;
  out('usage: node duckdb_peer.mjs FILE.parquet [--repeat K] [--out PATH] [--threads N] [--codec NAME[,NAME...]]');
  out('  --repeat K   time the COPY K times and report the median (default 1)');
  out('  --out PATH   where DuckDB writes (default: duckdb_peer.parquet beside FILE); with several');
  out('               codecs, PATH gets .NAME before .parquet');
  out('  --threads N  DuckDB threads for the COPY (default 1)');
  out(`  --codec C    COMPRESSION of the COPY: ${CODECS.join(', ')} (default zstd); a comma list`);
  out('               times each in turn, loading the file once');
  process.exit(code);
}

const CODECS = ['uncompressed', 'snappy', 'gzip', 'zstd', 'lz4_raw', 'brotli'];

function parseArgs(argv) {
  const a = { file: null, repeat: 1, out: null, threads: 1, codecs: ['zstd'] };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '-h' || k === '--help') usage(0);
    if (k.startsWith('--')) {
      const v = argv[++i];
      if (v === undefined) usage(2);
      if (k === '--repeat') a.repeat = Number(v);
      else if (k === '--out') a.out = v;
      else if (k === '--threads') a.threads = Number(v);
      else if (k === '--codec') a.codecs = v.toLowerCase().split(',').map((c) => (c === 'none' ? 'uncompressed' : c === 'lz4' ? 'lz4_raw' : c));
      else usage(2);
    } else if (a.file === null) {
      a.file = k;
    } else {
      usage(2);
    }
  }
  if (a.file === null) usage(2);
  for (const k of ['repeat', 'threads']) {
    if (!Number.isInteger(a[k]) || a[k] < 1) {
      console.error(`duckdb_peer: --${k} wants a positive integer`);
      process.exit(2);
    }
  }
  for (const c of a.codecs) {
    if (!CODECS.includes(c)) {
      console.error(`duckdb_peer: --codec ${c}: not one of ${CODECS.join(', ')}`);
      process.exit(2);
    }
  }
  a.file = path.resolve(a.file);
  a.out = path.resolve(a.out ?? path.join(path.dirname(a.file), 'duckdb_peer.parquet'));
  return a;
}

const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;
const median = (v) => {
  const s = [...v].sort((x, y) => x - y);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const seconds = (t0) => Number(process.hrtime.bigint() - t0) / 1e9;

// K timed COPYs of t with one codec, and the figures of what DuckDB wrote.
async function copyTimes(con, one, args, codec, out, rows, loadSeconds, version) {
  const copy = `COPY t TO ${sqlString(out)} (FORMAT parquet, COMPRESSION ${codec})`;
  console.log(`timing: ${copy.replace(sqlString(out), "'out.parquet'")} with threads=${args.threads}`);

  const times = [];
  for (let k = 0; k < args.repeat; k++) {
    fs.rmSync(out, { force: true });   // each timed COPY makes a new file, as inlay's runs do
    const t0 = process.hrtime.bigint();
    await con.run(copy);
    times.push(seconds(t0));
    console.log(`  run ${k + 1}/${args.repeat}: ${times[k].toFixed(3)} s`);
  }
  const t = median(times);
  const outBytes = fs.statSync(out).size;
  const [rowGroups] = await one(
    `SELECT count(DISTINCT row_group_id) FROM parquet_metadata(${sqlString(out)})`);
  const [codecs] = await one(
    `SELECT string_agg(DISTINCT compression, ',') FROM parquet_metadata(${sqlString(out)})`);
  const [written] = await one(`SELECT count(*) FROM read_parquet(${sqlString(out)})`);
  if (Number(written) !== rows) {
    console.error(`duckdb_peer: DuckDB wrote ${written} rows, not ${rows}`);
    process.exit(1);
  }

  console.log(`rows              ${rows}`);
  console.log(`seconds           ${t.toFixed(3)}  (median of ${args.repeat}; the COPY alone)`);
  console.log(`rows/s            ${(rows / t).toFixed(0)}  (${(rows / t / 1e6).toFixed(2)} M)`);
  console.log(`ns/row            ${(t * 1e9 / rows).toFixed(1)}`);
  console.log(`output            ${outBytes} bytes (${(outBytes / 1048576).toFixed(1)} MiB), ` +
              `${rowGroups} row groups, ${(outBytes / rows).toFixed(2)} B/row, chunks ${codecs}`);
  console.log(`output MB/s       ${(outBytes / t / 1e6).toFixed(1)}`);
  console.log(`RESULT rows=${rows} repeat=${args.repeat} seconds=${t.toFixed(6)} ` +
              `out_bytes=${outBytes} row_groups=${rowGroups} load_seconds=${loadSeconds.toFixed(6)} ` +
              `threads=${args.threads} codec=${codec} version=${version}`);
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(args.file)) {
    console.error(`duckdb_peer: no such file: ${args.file}`);
    process.exit(2);
  }
  const { DuckDBInstance } = loadDuckDB('duckdb_peer');
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const one = async (sql) => (await con.runAndReadAll(sql)).getRows()[0];

  const [version] = await one('SELECT version()');
  console.log(`duckdb ${version} peer: ${args.file}`);

  let t0 = process.hrtime.bigint();
  await con.run(`CREATE TABLE t AS SELECT * FROM read_parquet(${sqlString(args.file)})`);
  const loadSeconds = seconds(t0);

  const cols = (await con.runAndReadAll('DESCRIBE t')).getRows().map((r) => `${r[0]} ${r[1]}`);
  const [rowsBig, distinct, minId, maxId] =
    await one('SELECT count(*), count(DISTINCT category), min(id), max(id) FROM t');
  const rows = Number(rowsBig);
  console.log(`loaded ${rows} rows in ${loadSeconds.toFixed(3)} s (default threads): ` +
              `${cols.join(', ')}; ${distinct} categories, id ${minId}..${maxId}`);

  await con.run(`SET threads=${args.threads}`);
  for (const codec of args.codecs) {
    const out = args.codecs.length > 1 ? args.out.replace(/(\.parquet)?$/, `.${codec}.parquet`) : args.out;
    await copyTimes(con, one, args, codec, out, rows, loadSeconds, version);
  }

  con.closeSync();
  db.closeSync();
}

main().catch((e) => {
  console.error(`duckdb_peer: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
