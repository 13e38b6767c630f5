#!/usr/bin/env node
// convert_peer.mjs — the DuckDB peer of `inlay convert`, and the check of
// what inlay wrote.
//
//   node bench/convert/convert_peer.mjs IN.csv [--repeat K] [--threads N] [--out PATH]
//   node bench/convert/convert_peer.mjs --compare REF.parquet FILE.parquet...
//
// Timing: with SET threads=N (default 1) and SET TimeZone='UTC', times
//   COPY (SELECT * FROM read_csv('IN', header=true, columns={'id':'BIGINT',
//     'ts':'TIMESTAMPTZ','category':'VARCHAR','value':'DOUBLE','flag':'BOOLEAN'}))
//   TO 'OUT' (FORMAT parquet, COMPRESSION zstd)
// K times and reports the median, the size of what DuckDB wrote, and the
// process's peak RSS (which includes node and DuckDB's own start-up: the
// RSS before the first COPY is printed beside it). The CSV is the one
// bench_gen_csv writes (gen_csv.c); the explicit columns are the schema
// inlay convert gets from schema.lua.
//
// --compare: reads REF and each FILE with one thread and prints, for each,
// count(*), sum(id), min(ts), max(ts), sum(value) and the count of true
// flags, plus two exact checks: sum(value) in integer millionths (the CSV's
// grid) and the rows that differ from REF when the files are put side by
// side (POSITIONAL JOIN on the five columns). A FILE that has a `score`
// column also gets the rows where score <> value * 2 counted. The exit
// status is 1 when anything differs.
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
  out('usage: node convert_peer.mjs IN.csv [--repeat K] [--threads N] [--out PATH]');
  out('       node convert_peer.mjs --compare REF.parquet FILE.parquet...');
  out('  --repeat K   time the COPY K times and report the median (default 1)');
  out('  --threads N  DuckDB threads for the COPY (default 1)');
  out('  --out PATH   where DuckDB writes (default: convert_peer.parquet beside IN)');
  out('  --compare    check FILEs against REF instead of timing');
  process.exit(code);
}

function parseArgs(argv) {
  const a = { files: [], repeat: 1, out: null, threads: 1, compare: false };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '-h' || k === '--help') usage(0);
    if (k === '--compare') {
      a.compare = true;
    } else if (k.startsWith('--')) {
      const v = argv[++i];
      if (v === undefined) usage(2);
      if (k === '--repeat') a.repeat = Number(v);
      else if (k === '--out') a.out = v;
      else if (k === '--threads') a.threads = Number(v);
      else usage(2);
    } else {
      a.files.push(path.resolve(k));
    }
  }
  if (a.compare ? a.files.length < 2 : a.files.length !== 1) usage(2);
  for (const k of ['repeat', 'threads']) {
    if (!Number.isInteger(a[k]) || a[k] < 1) {
      console.error(`convert_peer: --${k} wants a positive integer`);
      process.exit(2);
    }
  }
  for (const f of a.files) {
    if (!fs.existsSync(f)) {
      console.error(`convert_peer: no such file: ${f}`);
      process.exit(2);
    }
  }
  a.out = path.resolve(a.out ?? path.join(path.dirname(a.files[0]), 'convert_peer.parquet'));
  return a;
}

const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;
const median = (v) => {
  const s = [...v].sort((x, y) => x - y);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const seconds = (t0) => Number(process.hrtime.bigint() - t0) / 1e9;
const maxRssKb = () => process.resourceUsage().maxRSS;   // KiB on Linux

const COLUMNS = "{'id':'BIGINT','ts':'TIMESTAMPTZ','category':'VARCHAR','value':'DOUBLE','flag':'BOOLEAN'}";

async function time(con, one, args) {
  const csv = args.files[0];
  const [version] = await one('SELECT version()');
  const inBytes = fs.statSync(csv).size;
  console.log(`duckdb ${version} peer: ${csv} (${inBytes} bytes)`);
  await con.run(`SET threads=${args.threads}`);
  await con.run("SET TimeZone='UTC'");
  const copy = `COPY (SELECT * FROM read_csv(${sqlString(csv)}, header=true, columns=${COLUMNS})) ` +
               `TO ${sqlString(args.out)} (FORMAT parquet, COMPRESSION zstd)`;
  console.log(`timing: ${copy.replace(sqlString(csv), "'IN.csv'").replace(sqlString(args.out), "'OUT.parquet'")}` +
              ` with threads=${args.threads}`);
  const rssBase = maxRssKb();

  const times = [];
  for (let k = 0; k < args.repeat; k++) {
    const t0 = process.hrtime.bigint();
    await con.run(copy);
    times.push(seconds(t0));
    console.log(`  run ${k + 1}/${args.repeat}: ${times[k].toFixed(3)} s`);
  }
  const t = median(times);
  const rssPeak = maxRssKb();
  const outBytes = fs.statSync(args.out).size;
  const [rowsBig, rowGroups] = await one(
    `SELECT sum(num_rows), count(*) FROM (SELECT DISTINCT row_group_id, row_group_num_rows AS num_rows ` +
    `FROM parquet_metadata(${sqlString(args.out)}))`);
  const rows = Number(rowsBig);

  console.log(`rows              ${rows}`);
  console.log(`seconds           ${t.toFixed(3)}  (median of ${args.repeat}; the COPY alone, ` +
              `min ${Math.min(...times).toFixed(3)}, max ${Math.max(...times).toFixed(3)})`);
  console.log(`input MB/s        ${(inBytes / t / 1e6).toFixed(1)}`);
  console.log(`rows/s            ${(rows / t).toFixed(0)}  (${(rows / t / 1e6).toFixed(2)} M)`);
  console.log(`output            ${outBytes} bytes (${(outBytes / 1048576).toFixed(1)} MiB), ` +
              `${rowGroups} row groups, ${(outBytes / rows).toFixed(2)} B/row`);
  console.log(`peak RSS          ${(rssPeak / 1024).toFixed(1)} MiB for the process ` +
              `(${(rssBase / 1024).toFixed(1)} MiB before the first COPY: node and DuckDB at rest)`);
  console.log(`RESULT rows=${rows} repeat=${args.repeat} seconds=${t.toFixed(6)} ` +
              `min_seconds=${Math.min(...times).toFixed(6)} in_bytes=${inBytes} ` +
              `out_bytes=${outBytes} row_groups=${rowGroups} threads=${args.threads} ` +
              `maxrss_kb=${rssPeak} base_rss_kb=${rssBase} version=${version}`);
  return true;
}

// The figures --compare prints, in order: [label, SQL over the file as f].
const FIGURES = [
  ['count(*)', 'count(*)'],
  ['sum(id)', 'sum(id)'],
  ['min(ts)', "strftime(min(ts), '%Y-%m-%dT%H:%M:%S.%fZ')"],
  ['max(ts)', "strftime(max(ts), '%Y-%m-%dT%H:%M:%S.%fZ')"],
  ['sum(value)', 'sum(value)'],
  ['count(*) filter (where flag)', 'count(*) FILTER (WHERE flag)'],
  ['sum(value) in 10^-6 (exact)', 'sum(CAST(round(value * 1e6) AS HUGEINT))'],
];

async function compare(con, one, args) {
  const [version] = await one('SELECT version()');
  // One thread: the floating-point sums then add in file order, and equal
  // files give equal sums to the last bit.
  await con.run('SET threads=1');
  await con.run("SET TimeZone='UTC'");
  const [ref, ...files] = args.files;
  const figures = async (f) => {
    const row = await one(`SELECT ${FIGURES.map((x) => x[1]).join(', ')} FROM read_parquet(${sqlString(f)})`);
    return row.map((v) => (typeof v === 'number' ? v.toPrecision(17) : String(v)));
  };
  console.log(`duckdb ${version}: checking ${files.length} file(s) against ${ref}`);
  const want = await figures(ref);
  const w = Math.max(...FIGURES.map((x) => x[0].length));
  let bad = 0;
  console.log(`  ${''.padEnd(w)}  ${'file'.padStart(28)}  ${'reference'.padStart(28)}`);
  for (const f of files) {
    const got = await figures(f);
    const cols = (await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${sqlString(f)})`))
      .getRows().map((r) => r[0]);
    const [differ] = await one(
      `SELECT count(*) FROM read_parquet(${sqlString(f)}) a POSITIONAL JOIN read_parquet(${sqlString(ref)}) b ` +
      'WHERE a.id IS DISTINCT FROM b.id OR a.ts IS DISTINCT FROM b.ts OR a.category IS DISTINCT FROM b.category ' +
      'OR a.value IS DISTINCT FROM b.value OR a.flag IS DISTINCT FROM b.flag');
    console.log(`${path.basename(f)} (${cols.join(', ')}) against ${path.basename(ref)}:`);
    FIGURES.forEach(([label], i) => {
      const ok = got[i] === want[i];
      if (!ok) bad++;
      console.log(`  ${label.padEnd(w)}  ${got[i].padStart(28)}  ${want[i].padStart(28)}  ${ok ? 'match' : 'DIFFER'}`);
    });
    console.log(`  ${'rows that differ'.padEnd(w)}  ${String(differ).padStart(28)}  ${'0'.padStart(28)}  ` +
                `${Number(differ) === 0 ? 'match' : 'DIFFER'}`);
    if (Number(differ) !== 0) bad++;
    if (cols.includes('score')) {
      const [off] = await one(`SELECT count(*) FROM read_parquet(${sqlString(f)}) WHERE score IS DISTINCT FROM value * 2`);
      console.log(`  ${'score <> value * 2'.padEnd(w)}  ${String(off).padStart(28)}  ${'0'.padStart(28)}  ` +
                  `${Number(off) === 0 ? 'match' : 'DIFFER'}`);
      if (Number(off) !== 0) bad++;
    }
  }
  console.log(`RESULT compared=${files.length} mismatches=${bad} version=${version}`);
  return bad === 0;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const { DuckDBInstance } = loadDuckDB('convert_peer');
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const one = async (sql) => (await con.runAndReadAll(sql)).getRows()[0];
  const ok = args.compare ? await compare(con, one, args) : await time(con, one, args);
  con.closeSync();
  db.closeSync();
  process.exitCode = ok ? 0 : 1;
}

main().catch((e) => {
  console.error(`convert_peer: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
