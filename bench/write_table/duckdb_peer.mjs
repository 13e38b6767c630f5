#!/usr/bin/env node
// duckdb_peer.mjs — the DuckDB peer of bench_write_table.
//
//   node bench/write_table/duckdb_peer.mjs FILE.parquet [--repeat K] [--out PATH] [--threads N]
//
// Loads FILE (the file bench_write_table wrote) into an in-memory DuckDB
// table, sets threads=1 (--threads), then times
//   COPY t TO 'out.parquet' (FORMAT parquet, COMPRESSION zstd)
// K times and reports the median and the size of what DuckDB wrote. The data
// is then exactly the data inlay wrote, and DuckDB starts from columns that
// are already in memory (inlay's timed run also generates them).
//
// @duckdb/node-api is taken from tests/interop/node_modules (or any
// node_modules above bench/, or NODE_PATH): see ../common/duckdb_load.mjs.
//
// The last line of output is a machine-readable "RESULT key=value ..." line.

import fs from 'node:fs';
import path from 'node:path';

import { loadDuckDB } from '../common/duckdb_load.mjs';


function usage(code) {
  const out = code ? console.error : console.log;
  out('usage: node duckdb_peer.mjs FILE.parquet [--repeat K] [--out PATH] [--threads N]');
  out('  --repeat K   time the COPY K times and report the median (default 1)');
  out('  --out PATH   where DuckDB writes (default: duckdb_peer.parquet beside FILE)');
  out('  --threads N  DuckDB threads for the COPY (default 1)');
  process.exit(code);
}

function parseArgs(argv) {
  const a = { file: null, repeat: 1, out: null, threads: 1 };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '-h' || k === '--help') usage(0);
    if (k.startsWith('--')) {
      const v = argv[++i];
      if (v === undefined) usage(2);
      if (k === '--repeat') a.repeat = Number(v);
      else if (k === '--out') a.out = v;
      else if (k === '--threads') a.threads = Number(v);
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
  const copy = `COPY t TO ${sqlString(args.out)} (FORMAT parquet, COMPRESSION zstd)`;
  console.log(`timing: ${copy.replace(sqlString(args.out), "'out.parquet'")} with threads=${args.threads}`);

  const times = [];
  for (let k = 0; k < args.repeat; k++) {
    t0 = process.hrtime.bigint();
    await con.run(copy);
    times.push(seconds(t0));
    console.log(`  run ${k + 1}/${args.repeat}: ${times[k].toFixed(3)} s`);
  }
  const t = median(times);
  const outBytes = fs.statSync(args.out).size;
  const [rowGroups] = await one(
    `SELECT count(DISTINCT row_group_id) FROM parquet_metadata(${sqlString(args.out)})`);
  const [written] = await one(`SELECT count(*) FROM read_parquet(${sqlString(args.out)})`);
  if (Number(written) !== rows) {
    console.error(`duckdb_peer: DuckDB wrote ${written} rows, not ${rows}`);
    process.exit(1);
  }

  console.log(`rows              ${rows}`);
  console.log(`seconds           ${t.toFixed(3)}  (median of ${args.repeat}; the COPY alone)`);
  console.log(`rows/s            ${(rows / t).toFixed(0)}  (${(rows / t / 1e6).toFixed(2)} M)`);
  console.log(`ns/row            ${(t * 1e9 / rows).toFixed(1)}`);
  console.log(`output            ${outBytes} bytes (${(outBytes / 1048576).toFixed(1)} MiB), ` +
              `${rowGroups} row groups, ${(outBytes / rows).toFixed(2)} B/row`);
  console.log(`output MB/s       ${(outBytes / t / 1e6).toFixed(1)}`);
  console.log(`RESULT rows=${rows} repeat=${args.repeat} seconds=${t.toFixed(6)} ` +
              `out_bytes=${outBytes} row_groups=${rowGroups} load_seconds=${loadSeconds.toFixed(6)} ` +
              `threads=${args.threads} version=${version}`);

  con.closeSync();
  db.closeSync();
}

main().catch((e) => {
  console.error(`duckdb_peer: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
