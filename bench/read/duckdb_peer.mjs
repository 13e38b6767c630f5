#!/usr/bin/env node
// duckdb_peer.mjs — the DuckDB peer of bench_read.
//
//   node bench/read/duckdb_peer.mjs FILE.parquet [--columns a,b] [--repeat K] [--threads N]
//   node bench/read/duckdb_peer.mjs FILE.parquet --copy OUT.parquet [--codec zstd|uncompressed]
//                                   [--repeat K] [--threads N]
//
// Read mode (the default): with SET threads=1 (--threads), times
//   SELECT sum(hash(a)), sum(hash(b)), ... FROM read_parquet('FILE')
// K times: an aggregate that reads and hashes every value of the columns
// (default: all of the file's top-level columns). Then, untimed, the check
// that bench/read/run.sh compares with bench_read's CHECK line: the row
// count and, per column, its nulls and the sum of its integers (modulo
// 2^64, as bench_read's wrapping sum), the sum of its floats, its true
// booleans or its string bytes. Timestamps are summed as the integers the
// file holds (epoch_us or epoch_ns: exact for TIMESTAMP(MICROS) and (NANOS)
// columns); a type it does not know is left out of the check.
//
// Copy mode (--copy OUT): times
//   COPY (FROM read_parquet('FILE')) TO 'OUT' (FORMAT parquet, COMPRESSION codec)
// K times, threads=1: the Parquet-to-Parquet rewrite `inlay convert IN OUT
// --compression codec` does.
//
// Both modes run in one process where DuckDB is already loaded: the times
// are the statements alone. @duckdb/node-api is taken from
// tests/interop/node_modules (or any node_modules above bench/, or
// NODE_PATH): see ../common/duckdb_load.mjs.
//
// The last line of output is a machine-readable "RESULT key=value ..." line;
// in read mode a "CHECK rows=N name:key=value ..." line comes before it.

import fs from 'node:fs';
import path from 'node:path';

import { loadDuckDB } from '../common/duckdb_load.mjs';

function usage(code) {
  const out = code ? console.error : console.log;
  out('usage: node duckdb_peer.mjs FILE.parquet [--columns a,b] [--repeat K] [--threads N]');
  out('       node duckdb_peer.mjs FILE.parquet --copy OUT.parquet [--codec zstd|uncompressed] [--repeat K] [--threads N]');
  out('  --columns a,b  the columns the aggregate reads (default: all)');
  out('  --repeat K     time the statement K times and report the median (default 1)');
  out('  --threads N    DuckDB threads (default 1)');
  out('  --copy OUT     time COPY (FROM read_parquet(FILE)) TO OUT instead');
  out('  --codec C      the COPY\'s compression: zstd (default), uncompressed, snappy, gzip');
  out('  --no-check     skip the untimed check query (read mode)');
  process.exit(code);
}

function parseArgs(argv) {
  const a = { file: null, columns: null, repeat: 1, threads: 1, copy: null, codec: 'zstd', check: true };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '-h' || k === '--help') usage(0);
    if (k === '--no-check') {
      a.check = false;
      continue;
    }
    if (k.startsWith('--')) {
      const v = argv[++i];
      if (v === undefined) usage(2);
      if (k === '--repeat') a.repeat = Number(v);
      else if (k === '--threads') a.threads = Number(v);
      else if (k === '--columns') a.columns = v.split(',').filter((c) => c.length > 0);
      else if (k === '--copy') a.copy = v;
      else if (k === '--codec') a.codec = v;
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
  if (!['zstd', 'uncompressed', 'snappy', 'gzip'].includes(a.codec)) {
    console.error(`duckdb_peer: --codec wants zstd, uncompressed, snappy or gzip, not '${a.codec}'`);
    process.exit(2);
  }
  if (a.columns !== null && a.columns.length === 0) {
    console.error('duckdb_peer: --columns names no column');
    process.exit(2);
  }
  a.file = path.resolve(a.file);
  if (a.copy !== null) a.copy = path.resolve(a.copy);
  return a;
}

const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;
const ident = (s) => `"${s.replaceAll('"', '""')}"`;
const median = (v) => {
  const s = [...v].sort((x, y) => x - y);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const seconds = (t0) => Number(process.hrtime.bigint() - t0) / 1e9;

// The check expression of a column of DuckDB type `type`: [key, SQL], or
// null for a type the check leaves out. Integers are summed modulo 2^64
// (non-negative), as bench_read's uint64_t sum wraps.
function checkExpr(name, type) {
  const c = ident(name);
  const mod64 = (e) => `((sum(${e}::HUGEINT) % 18446744073709551616::HUGEINT + ` +
                       `18446744073709551616::HUGEINT) % 18446744073709551616::HUGEINT)::VARCHAR`;
  if (/^(TINYINT|SMALLINT|INTEGER|BIGINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT)$/.test(type))
    return ['sum', mod64(c)];
  if (/^TIMESTAMP( WITH TIME ZONE)?$/.test(type)) return ['sum', mod64(`epoch_us(${c})`)];
  if (type === 'TIMESTAMP_NS') return ['sum', mod64(`epoch_ns(${c})`)];
  if (type === 'DATE') return ['sum', mod64(`(${c} - DATE '1970-01-01')`)];
  if (type === 'FLOAT' || type === 'DOUBLE') return ['fsum', `sum(${c}::DOUBLE)::VARCHAR`];
  if (type === 'BOOLEAN') return ['true', `count_if(${c})::VARCHAR`];
  if (type === 'VARCHAR' || type === 'BLOB') return ['bytes', `sum(octet_length(${c}::BLOB))::VARCHAR`];
  return null;
}

async function timeIt(con, sql, repeat, onRun) {
  const times = [];
  let last;
  for (let k = 0; k < repeat; k++) {
    const t0 = process.hrtime.bigint();
    last = await con.runAndReadAll(sql);
    times.push(seconds(t0));
    onRun(k, times[k], last);
  }
  return { times, last };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(args.file)) {
    console.error(`duckdb_peer: no such file: ${args.file}`);
    process.exit(2);
  }
  const fileBytes = fs.statSync(args.file).size;
  const { DuckDBInstance } = loadDuckDB('duckdb_peer');
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const one = async (sql) => (await con.runAndReadAll(sql)).getRows()[0];

  const [version] = await one('SELECT version()');
  const src = `read_parquet(${sqlString(args.file)})`;
  const described = (await con.runAndReadAll(`DESCRIBE SELECT * FROM ${src}`)).getRows()
    .map((r) => ({ name: String(r[0]), type: String(r[1]) }));
  const [rowsBig] = await one(`SELECT count(*) FROM ${src}`);
  const rows = Number(rowsBig);
  console.log(`duckdb ${version} peer: ${args.file}`);
  console.log(`file: ${fileBytes} bytes, ${rows} rows: ${described.map((d) => `${d.name} ${d.type}`).join(', ')}`);
  await con.run(`SET threads=${args.threads}`);

  if (args.copy !== null) {
    const codec = args.codec.toUpperCase();
    const copy = `COPY (FROM ${src}) TO ${sqlString(args.copy)} (FORMAT parquet, COMPRESSION ${codec})`;
    console.log(`timing: ${copy.replace(sqlString(args.file), "'IN.parquet'").replace(sqlString(args.copy), "'OUT.parquet'")}` +
                ` with threads=${args.threads}`);
    const { times } = await timeIt(con, copy, args.repeat,
      (k, t) => console.log(`  run ${k + 1}/${args.repeat}: ${t.toFixed(3)} s`));
    const t = median(times);
    const outBytes = fs.statSync(args.copy).size;
    const [written] = await one(`SELECT count(*) FROM read_parquet(${sqlString(args.copy)})`);
    if (Number(written) !== rows) {
      console.error(`duckdb_peer: DuckDB wrote ${written} rows, not ${rows}`);
      process.exit(1);
    }
    console.log(`rows              ${rows}`);
    console.log(`seconds           ${t.toFixed(3)}  (median of ${args.repeat}; the COPY alone)`);
    console.log(`rows/s            ${(rows / t).toFixed(0)}  (${(rows / t / 1e6).toFixed(2)} M)`);
    console.log(`ns/row            ${(t * 1e9 / rows).toFixed(1)}`);
    console.log(`input MB/s        ${(fileBytes / t / 1e6).toFixed(1)}  (${fileBytes} bytes)`);
    console.log(`output            ${outBytes} bytes (${(outBytes / 1048576).toFixed(1)} MiB), ${args.codec}`);
    console.log(`RESULT mode=copy rows=${rows} repeat=${args.repeat} seconds=${t.toFixed(6)} ` +
                `min_seconds=${Math.min(...times).toFixed(6)} file_bytes=${fileBytes} out_bytes=${outBytes} ` +
                `codec=${args.codec} threads=${args.threads} version=${version}`);
    con.closeSync();
    db.closeSync();
    return;
  }

  const cols = args.columns ?? described.map((d) => d.name);
  for (const c of cols) {
    if (!described.some((d) => d.name === c)) {
      console.error(`duckdb_peer: ${args.file} has no column '${c}'`);
      process.exit(2);
    }
  }
  const agg = `SELECT ${cols.map((c) => `sum(hash(${ident(c)}))`).join(', ')} FROM ${src}`;
  console.log(`timing: ${agg.replace(sqlString(args.file), "'FILE'")} with threads=${args.threads}`);
  const { times, last } = await timeIt(con, agg, args.repeat,
    (k, t) => console.log(`  run ${k + 1}/${args.repeat}: ${t.toFixed(3)} s`));
  const t = median(times);
  const hashes = last.getRows()[0].map((v) => String(v));
  const values = rows * cols.length;

  console.log(`rows              ${rows}`);
  console.log(`seconds           ${t.toFixed(3)}  (median of ${args.repeat}; the query alone)`);
  console.log(`rows/s            ${(rows / t).toFixed(0)}  (${(rows / t / 1e6).toFixed(2)} M)`);
  console.log(`ns/row            ${(t * 1e9 / rows).toFixed(1)}`);
  console.log(`ns/value          ${(t * 1e9 / values).toFixed(2)}  (${cols.length} columns)`);
  console.log(`file MB/s         ${(fileBytes / t / 1e6).toFixed(1)}  (${fileBytes} bytes, all of the file)`);
  console.log(`sum(hash)         ${cols.map((c, i) => `${c}=${hashes[i]}`).join(' ')}`);

  if (args.check) {
    const keys = [];
    const exprs = [];
    for (const c of cols) {
      const d = described.find((x) => x.name === c);
      exprs.push(`(count(*) - count(${ident(c)}))::VARCHAR`);
      keys.push(`${c}:nulls`);
      const e = checkExpr(c, d.type);
      if (e) {
        keys.push(`${c}:${e[0]}`);
        exprs.push(e[1]);
      }
    }
    const got = (await con.runAndReadAll(`SELECT count(*)::VARCHAR, ${exprs.join(', ')} FROM ${src}`)).getRows()[0];
    let line = `CHECK rows=${got[0]}`;
    keys.forEach((k, i) => {
      line += ` ${k}=${got[i + 1] === null ? 0 : got[i + 1]}`;
    });
    console.log(line);
  }
  console.log(`RESULT mode=read rows=${rows} repeat=${args.repeat} seconds=${t.toFixed(6)} ` +
              `min_seconds=${Math.min(...times).toFixed(6)} file_bytes=${fileBytes} columns=${cols.join(',')} ` +
              `threads=${args.threads} version=${version}`);

  con.closeSync();
  db.closeSync();
}

main().catch((e) => {
  console.error(`duckdb_peer: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
