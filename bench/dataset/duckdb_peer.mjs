#!/usr/bin/env node
// duckdb_peer.mjs — the DuckDB peer of bench_dataset.
//
//   node bench/dataset/duckdb_peer.mjs FLAT.parquet --out DIR [--repeat K] [--threads N]
//                                      [--codec NAME] [--max-open-files N]
//   node bench/dataset/duckdb_peer.mjs --check FLAT.parquet INLAY_DIR DUCKDB_DIR
//
// Timing: loads FLAT (the same rows bench_dataset writes, in one file that
// `bench_dataset --flat` wrote) into an in-memory table t, in the rows'
// order (untimed, default threads), sets threads=1 (--threads), then times
//   COPY t TO 'DIR' (FORMAT parquet, PARTITION_BY (day, platform), COMPRESSION zstd)
// K times, DIR removed before each (untimed), and reports the median, the
// files and bytes written and the peak RSS.
//
// Peak RSS: the node process's. `maxrss` is process.resourceUsage().maxRSS,
// the whole process's life: node, DuckDB, the table t (loaded from FLAT)
// and the COPYs. `copy peak` is VmHWM read after each COPY, the peak reset
// (/proc/self/clear_refs) just before it: node, DuckDB and t are in it too;
// `copy peak - before` is what the COPY added to the RSS it started from.
//
// --check: per (day, platform), the row count and sums of id and of
// hash(ts), hash(category), hash(value), flag, over FLAT, over INLAY_DIR and
// over DUCKDB_DIR (both read with hive_partitioning, day as DATE); prints
// "check: ok" when the three agree, else the differences, exit status 1.
//
// @duckdb/node-api is taken from tests/interop/node_modules (or any
// node_modules above bench/, or NODE_PATH): see ../common/duckdb_load.mjs.
// The timing mode ends with a machine-readable "RESULT key=value ..." line.

import fs from 'node:fs';
import path from 'node:path';

import { loadDuckDB } from '../common/duckdb_load.mjs';

function usage(code) {
  const out = code ? console.error : console.log;
  out('usage: node duckdb_peer.mjs FLAT.parquet --out DIR [--repeat K] [--threads N] [--codec NAME] [--max-open-files N]');
  out('       node duckdb_peer.mjs --check FLAT.parquet INLAY_DIR DUCKDB_DIR');
  out('  --out DIR            where the COPY writes the partitioned dataset (removed before each run)');
  out('  --repeat K           time the COPY K times and report the median (default 1)');
  out('  --threads N          DuckDB threads for the COPY (default 1)');
  out('  --codec C            COMPRESSION of the COPY (default zstd)');
  out("  --max-open-files N   SET partitioned_write_max_open_files (default: DuckDB's own)");
  process.exit(code);
}

function parseArgs(argv) {
  const a = { file: null, out: null, repeat: 1, threads: 1, codec: 'zstd', maxOpen: null, check: null };
  const pos = [];
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '-h' || k === '--help') usage(0);
    if (k === '--check') { a.check = true; continue; }
    if (k.startsWith('--')) {
      const v = argv[++i];
      if (v === undefined) usage(2);
      if (k === '--repeat') a.repeat = Number(v);
      else if (k === '--out') a.out = v;
      else if (k === '--threads') a.threads = Number(v);
      else if (k === '--codec') a.codec = v.toLowerCase();
      else if (k === '--max-open-files') a.maxOpen = Number(v);
      else usage(2);
    } else {
      pos.push(k);
    }
  }
  if (a.check) {
    if (pos.length !== 3) usage(2);
    a.check = pos.map((p) => path.resolve(p));
    return a;
  }
  if (pos.length !== 1 || a.out === null) usage(2);
  a.file = path.resolve(pos[0]);
  a.out = path.resolve(a.out);
  for (const k of ['repeat', 'threads']) {
    if (!Number.isInteger(a[k]) || a[k] < 1) {
      console.error(`duckdb_peer: --${k} wants a positive integer`);
      process.exit(2);
    }
  }
  if (a.maxOpen !== null && (!Number.isInteger(a.maxOpen) || a.maxOpen < 1)) {
    console.error('duckdb_peer: --max-open-files wants a positive integer');
    process.exit(2);
  }
  return a;
}

const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;
const median = (v) => {
  const s = [...v].sort((x, y) => x - y);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const seconds = (t0) => Number(process.hrtime.bigint() - t0) / 1e9;

// VmHWM / VmRSS of this process in KiB (null where /proc has none).
function procStatus(key) {
  try {
    const m = fs.readFileSync('/proc/self/status', 'utf8').match(new RegExp(`^${key}:\\s*(\\d+) kB`, 'm'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}
function resetPeak() {
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

// The .parquet files under dir and their bytes, and the other files.
function walk(dir) {
  let files = 0, bytes = 0, other = 0;
  const dirs = new Set();
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const p = path.join(e.parentPath ?? e.path, e.name);
    if (e.name.endsWith('.parquet')) {
      files++;
      bytes += fs.statSync(p).size;
      dirs.add(path.dirname(p));
    } else {
      other++;
    }
  }
  return { files, bytes, other, partitions: dirs.size };
}

async function timing(args, con, one) {
  if (!fs.existsSync(args.file)) {
    console.error(`duckdb_peer: no such file: ${args.file}`);
    process.exit(2);
  }
  const [version] = await one('SELECT version()');
  console.log(`duckdb ${version} peer: ${args.file}`);

  let t0 = process.hrtime.bigint();
  // read_parquet of one file keeps the rows' order (preserve_insertion_order)
  await con.run(`CREATE TABLE t AS SELECT * FROM read_parquet(${sqlString(args.file)})`);
  const loadSeconds = seconds(t0);
  const cols = (await con.runAndReadAll('DESCRIBE t')).getRows().map((r) => `${r[0]} ${r[1]}`);
  const [rowsBig, parts] = await one('SELECT count(*), count(DISTINCT (day, platform)) FROM t');
  const rows = Number(rowsBig);
  console.log(`loaded ${rows} rows in ${loadSeconds.toFixed(3)} s (default threads, untimed): ` +
              `${cols.join(', ')}; ${parts} partitions`);

  await con.run(`SET threads=${args.threads}`);
  if (args.maxOpen !== null) await con.run(`SET partitioned_write_max_open_files=${args.maxOpen}`);
  const settings = (await con.runAndReadAll(
    "SELECT name, value FROM duckdb_settings() WHERE name IN ('threads', 'partitioned_write_max_open_files', " +
    "'partitioned_write_flush_threshold', 'preserve_insertion_order', 'memory_limit') ORDER BY name")).getRows();
  console.log(`settings: ${settings.map((r) => `${r[0]}=${r[1]}`).join(', ')}`);

  const copy = `COPY t TO ${sqlString(args.out)} (FORMAT parquet, PARTITION_BY (day, platform), ` +
               `COMPRESSION ${args.codec})`;
  console.log(`timing: ${copy.replace(sqlString(args.out), "'DIR'")}`);

  const times = [], cpus = [], hwms = [], befores = [];
  let w = null;
  for (let k = 0; k < args.repeat; k++) {
    fs.rmSync(args.out, { recursive: true, force: true });
    const before = procStatus('VmRSS');
    befores.push(before ?? NaN);
    const reset = resetPeak();
    const c0 = process.cpuUsage();
    const t = process.hrtime.bigint();
    await con.run(copy);
    times.push(seconds(t));
    const c1 = process.cpuUsage(c0);
    cpus.push((c1.user + c1.system) / 1e6);
    const hwm = reset ? procStatus('VmHWM') : null;
    hwms.push(hwm ?? NaN);
    w = walk(args.out);
    console.log(`  run ${k + 1}/${args.repeat}: ${times[k].toFixed(3)} s (cpu ${cpus[k].toFixed(3)} s), ${w.files} files, ${w.bytes} bytes` +
                (hwm !== null ? `, copy peak RSS ${(hwm / 1024).toFixed(1)} MiB (${(before / 1024).toFixed(1)} before)` : ''));
  }
  const t = median(times), cpu = median(cpus);
  const maxrss = process.resourceUsage().maxRSS;
  const hwm = median(hwms), before = median(befores), added = median(hwms.map((h, i) => h - befores[i]));
  const [written] = await one(
    `SELECT count(*) FROM read_parquet(${sqlString(path.join(args.out, '**', '*.parquet'))}, hive_partitioning = true)`);
  if (Number(written) !== rows) {
    console.error(`duckdb_peer: DuckDB wrote ${written} rows, not ${rows}`);
    process.exit(1);
  }

  console.log(`rows              ${rows}`);
  console.log(`seconds           ${t.toFixed(3)}  (median of ${args.repeat}; the COPY alone, threads=${args.threads})`);
  console.log(`cpu seconds       ${cpu.toFixed(3)}  (median; user + system of the node process over the COPY)`);
  console.log(`rows/s            ${(rows / t).toFixed(0)}  (${(rows / t / 1e6).toFixed(2)} M)`);
  console.log(`ns/row            ${(t * 1e9 / rows).toFixed(1)}`);
  console.log(`output            ${w.files} files, ${w.bytes} bytes (${(w.bytes / 1048576).toFixed(1)} MiB), ` +
              `${(w.bytes / rows).toFixed(2)} B/row, ${w.partitions} partition folders`);
  console.log(`output MB/s       ${(w.bytes / t / 1e6).toFixed(1)}`);
  console.log(`peak RSS          ${(maxrss / 1024).toFixed(1)} MiB maxrss of the node process (node + DuckDB + ` +
              `table t + load + COPYs)` +
              (Number.isNaN(hwm) ? '' : `; ${(hwm / 1024).toFixed(1)} MiB during the COPY (median VmHWM, peak reset ` +
              `before it), ${(added / 1024).toFixed(1)} MiB over the ${(before / 1024).toFixed(1)} MiB before it (medians)`));
  console.log(`RESULT rows=${rows} repeat=${args.repeat} seconds=${t.toFixed(6)} cpu_seconds=${cpu.toFixed(6)} files=${w.files} bytes=${w.bytes} ` +
              `partitions=${w.partitions} maxrss_kb=${maxrss} copy_hwm_kb=${Number.isNaN(hwm) ? 'na' : hwm} ` +
              `rss_before_kb=${Number.isNaN(before) ? 'na' : before} load_seconds=${loadSeconds.toFixed(6)} threads=${args.threads} ` +
              `codec=${args.codec} version=${version}`);
}

async function check(args, con) {
  const [flat, inlayDir, duckDir] = args.check;
  const aggregate = async (from) => {
    const r = await con.runAndReadAll(
      `SELECT day::VARCHAR, platform, count(*), sum(id), min(id), max(id), sum(hash(ts)), sum(hash(category)), ` +
      `sum(hash(value)), sum(flag::INT) FROM ${from} GROUP BY ALL ORDER BY 1, 2`);
    return r.getRows().map((row) => row.map(String).join(' '));
  };
  const hive = (dir) => `read_parquet(${sqlString(path.join(dir, '**', '*.parquet'))}, hive_partitioning = true, ` +
                        "hive_types = {'day': DATE, 'platform': VARCHAR})";
  const sources = [
    ['flat', `read_parquet(${sqlString(flat)})`],
    ['inlay', hive(inlayDir)],
    ['duckdb', hive(duckDir)],
  ];
  const got = {};
  for (const [name, from] of sources) got[name] = await aggregate(from);
  const total = (lines) => lines.reduce((acc, l) => {
    const f = l.split(' ');
    return [acc[0] + BigInt(f[2]), acc[1] + BigInt(f[3])];
  }, [0n, 0n]);
  let ok = true;
  for (const [name] of sources) {
    const [n, ids] = total(got[name]);
    console.log(`CHECK ${name}: ${got[name].length} partitions, rows=${n} sum(id)=${ids}`);
  }
  for (const name of ['inlay', 'duckdb']) {
    const a = got.flat, b = got[name];
    const diffs = [];
    for (let i = 0; i < Math.max(a.length, b.length); i++)
      if (a[i] !== b[i]) diffs.push(`  flat:  ${a[i] ?? '(none)'}\n  ${name}: ${b[i] ?? '(none)'}`);
    if (diffs.length) {
      ok = false;
      console.log(`check: ${name} differs from flat in ${diffs.length} partitions, e.g.\n${diffs.slice(0, 3).join('\n')}`);
    }
  }
  console.log(ok ? 'check: ok (per partition: rows, sum(id), min/max(id), sums of hash(ts), hash(category), ' +
                   'hash(value), flag; inlay = duckdb = the flat input)' : 'check: FAILED');
  return ok;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const { DuckDBInstance } = loadDuckDB('duckdb_peer');
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const one = async (sql) => (await con.runAndReadAll(sql)).getRows()[0];
  let ok = true;
  if (args.check) ok = await check(args, con);
  else await timing(args, con, one);
  con.closeSync();
  db.closeSync();
  process.exit(ok ? 0 : 1);
}

main().catch((e) => {
  console.error(`duckdb_peer: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
