#!/usr/bin/env node
// nested_peer.mjs — the DuckDB peer of bench_nested.
//
//   node bench/nested/nested_peer.mjs FILE.parquet [--repeat K] [--threads 1,2] [--out PATH]
//                                     [--expect 'RESULT ...'] [--sample FILE.jsonl]
//
// 1. With --expect (bench_nested's RESULT line, or any "key=value ..." text
//    holding its exp_* keys) and --sample (the JSON lines bench_nested wrote
//    with --sample): DuckDB reads FILE, the file inlay wrote, and compares
//    the aggregates below with the exp_* values computed by the generator,
//    then reads the sampled rows back by id and compares them value by value
//    (tags lists, pos, attrs maps), with the FNV-1a 64 of their JSON lines
//    against sample_fnv.
// 2. DuckDB loads FILE into an in-memory table t, then for each thread count
//    (--threads, default 1,2) times
//        COPY t TO 'out.parquet' (FORMAT parquet, COMPRESSION zstd)
//    K times and reports the median and the size of what it wrote.
//
// @duckdb/node-api is taken from tests/interop/node_modules (or any
// node_modules above bench/, or NODE_PATH), as every peer does: see
// ../common/duckdb_load.mjs.
//
// The last line of output is a machine-readable "RESULT key=value ..." line.
// The exit status is 1 when the check finds a difference.

import fs from 'node:fs';
import path from 'node:path';

import { loadDuckDB } from '../common/duckdb_load.mjs';


function usage(code) {
  const out = code ? console.error : console.log;
  out('usage: node nested_peer.mjs FILE.parquet [--repeat K] [--threads 1,2] [--out PATH]');
  out('                            [--expect "RESULT ..."] [--sample FILE.jsonl]');
  out('  --repeat K     time each COPY K times and report the median (default 1)');
  out('  --threads L    DuckDB thread counts to time, comma-separated (default 1,2)');
  out('  --out PATH     where DuckDB writes (default: nested_peer.parquet beside FILE)');
  out("  --expect TEXT  bench_nested's RESULT line: check FILE against its exp_* values");
  out('  --sample FILE  the rows bench_nested wrote with --sample: compare them one by one');
  out('  --no-copy      only the check, no timing');
  process.exit(code);
}

function parseArgs(argv) {
  const a = { file: null, repeat: 1, out: null, threads: [1, 2], expect: null, sample: null,
              copy: true };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '-h' || k === '--help') usage(0);
    if (k === '--no-copy') { a.copy = false; continue; }
    if (k.startsWith('--')) {
      const v = argv[++i];
      if (v === undefined) usage(2);
      if (k === '--repeat') a.repeat = Number(v);
      else if (k === '--out') a.out = v;
      else if (k === '--threads') a.threads = v.split(',').map(Number);
      else if (k === '--expect') a.expect = v;
      else if (k === '--sample') a.sample = v;
      else usage(2);
    } else if (a.file === null) {
      a.file = k;
    } else {
      usage(2);
    }
  }
  if (a.file === null) usage(2);
  for (const n of [a.repeat, ...a.threads]) {
    if (!Number.isInteger(n) || n < 1) {
      console.error('nested_peer: --repeat and --threads want positive integers');
      process.exit(2);
    }
  }
  a.file = path.resolve(a.file);
  a.out = path.resolve(a.out ?? path.join(path.dirname(a.file), 'nested_peer.parquet'));
  return a;
}

const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;
const median = (v) => {
  const s = [...v].sort((x, y) => x - y);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const seconds = (t0) => Number(process.hrtime.bigint() - t0) / 1e9;

// "RESULT a=1 b=2" -> { a: '1', b: '2' }
function keyValues(text) {
  const kv = {};
  for (const w of text.replace(/^RESULT\s+/, '').split(/\s+/)) {
    const eq = w.indexOf('=');
    if (eq > 0) kv[w.slice(0, eq)] = w.slice(eq + 1);
  }
  return kv;
}

// FNV-1a 64 over the UTF-8 bytes of s, as bench_nested computes it.
function fnv1a(h, s) {
  const mask = (1n << 64n) - 1n;
  for (const b of Buffer.from(s, 'utf8')) {
    h ^= BigInt(b);
    h = (h * 0x100000001b3n) & mask;
  }
  return h;
}

// One row as bench_nested's row_json writes it (pos in units of 1/1024).
function rowJson(r) {
  const pos = r.pos === null ? null : [r.pos.x * 1024, r.pos.y * 1024, r.pos.z * 1024];
  const attrs = r.attrs === null ? null
    : r.attrs.map((e) => [e.key, e.value === null ? null : Number(e.value)]);
  return JSON.stringify({ id: Number(r.id), tags: r.tags, pos, attrs }) + '\n';
}

// The aggregates, by the exp_* key they answer.
const AGGREGATES = `
  SELECT count(*) AS rows,
         sum(id) AS sum_id,
         sum(len(tags)) AS sum_tags_len,
         count(*) FILTER (WHERE tags IS NULL) AS null_tags,
         sum(len(list_filter(tags, e -> e IS NULL))) AS null_tag_elems,
         sum(pos.x::DOUBLE * 1024) AS sum_pos_x_1024,
         sum(pos.y::DOUBLE * 1024) AS sum_pos_y_1024,
         sum(pos.z::DOUBLE * 1024) AS sum_pos_z_1024,
         count(*) FILTER (WHERE pos IS NULL) AS null_pos,
         sum(cardinality(attrs)) AS sum_attrs_card,
         count(*) FILTER (WHERE attrs IS NULL) AS null_attrs,
         sum(list_sum(map_values(attrs))) AS sum_attr_values,
         sum(len(list_filter(map_values(attrs), v -> v IS NULL))) AS null_attr_values
  FROM src`;
const DISTINCT = `
  SELECT (SELECT count(DISTINCT e) FROM (SELECT unnest(tags) AS e FROM src)) AS distinct_tags,
         (SELECT count(DISTINCT k) FROM (SELECT unnest(map_keys(attrs)) AS k FROM src)) AS distinct_keys`;

async function verify(con, args) {
  const exp = keyValues(args.expect);
  await con.run(`CREATE VIEW src AS SELECT * FROM read_parquet(${sqlString(args.file)})`);
  const cols = (await con.runAndReadAll('DESCRIBE src')).getRows().map((r) => `${r[0]} ${r[1]}`);
  console.log(`check: ${args.file}: ${cols.join(', ')}`);
  let checks = 0, bad = 0;
  const got = {
    ...(await con.runAndReadAll(AGGREGATES)).getRowObjectsJS()[0],
    ...(await con.runAndReadAll(DISTINCT)).getRowObjectsJS()[0],
  };
  for (const [k, v] of Object.entries(got)) {
    const want = exp[`exp_${k}`];
    if (want === undefined) continue;
    const g = v === null ? '0' : String(v);
    checks++;
    const ok = g === want;
    if (!ok) bad++;
    console.log(`  ${ok ? 'ok      ' : 'MISMATCH'} ${k.padEnd(18)} ${g}${ok ? '' : `  (expected ${want})`}`);
  }
  if (checks === 0) {
    console.error('nested_peer: --expect holds no exp_* key');
    process.exit(2);
  }
  if (args.sample) {
    const lines = fs.readFileSync(args.sample, 'utf8').split('\n').filter((l) => l.length);
    const ids = lines.map((l) => JSON.parse(l).id);
    const rows = (await con.runAndReadAll(
      `SELECT id, tags, pos, attrs FROM src WHERE id IN (${ids.join(',')}) ORDER BY id`))
      .getRowObjectsJS();
    let h = 0xcbf29ce484222325n, differ = 0;
    for (let i = 0; i < lines.length; i++) {
      const line = i < rows.length ? rowJson(rows[i]) : '(missing)\n';
      h = fnv1a(h, line);
      if (line !== lines[i] + '\n') {
        if (differ++ < 5) {
          console.log(`  sample row id ${ids[i]}:\n    expected ${lines[i]}\n    got      ${line.trimEnd()}`);
        }
      }
    }
    if (rows.length !== lines.length) differ++;
    const fnv = h.toString(16).padStart(16, '0');
    const fnvOk = exp.sample_fnv === undefined || exp.sample_fnv === fnv;
    checks += 2;
    bad += (differ ? 1 : 0) + (fnvOk ? 0 : 1);
    console.log(`  ${differ ? 'MISMATCH' : 'ok      '} sample rows        ${lines.length - differ} of ` +
                `${lines.length} equal value by value (${rows.length} read back)`);
    console.log(`  ${fnvOk ? 'ok      ' : 'MISMATCH'} sample fnv         ${fnv}` +
                `${fnvOk ? '' : `  (expected ${exp.sample_fnv})`}`);
  }
  await con.run('DROP VIEW src');
  console.log(`check: ${checks - bad} of ${checks} checks passed`);
  return { checks, bad };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(args.file)) {
    console.error(`nested_peer: no such file: ${args.file}`);
    process.exit(2);
  }
  const { DuckDBInstance } = loadDuckDB('nested_peer');
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const one = async (sql) => (await con.runAndReadAll(sql)).getRows()[0];

  const [version] = await one('SELECT version()');
  console.log(`duckdb ${version} nested peer: ${args.file}`);

  let v = { checks: 0, bad: 0 };
  if (args.expect) v = await verify(con, args);
  const verdict = !args.expect ? 'skipped' : v.bad ? 'failed' : 'ok';

  const result = [];
  let rows = 0;
  if (args.copy) {
    let t0 = process.hrtime.bigint();
    await con.run(`CREATE TABLE t AS SELECT * FROM read_parquet(${sqlString(args.file)})`);
    const loadSeconds = seconds(t0);
    rows = Number((await one('SELECT count(*) FROM t'))[0]);
    console.log(`loaded ${rows} rows into t in ${loadSeconds.toFixed(3)} s (default threads)`);
    result.push(`load_seconds=${loadSeconds.toFixed(6)}`);
    const rss0 = process.resourceUsage().maxRSS;

    const copy = `COPY t TO ${sqlString(args.out)} (FORMAT parquet, COMPRESSION zstd)`;
    for (const threads of args.threads) {
      await con.run(`SET threads=${threads}`);
      console.log(`timing: ${copy.replace(sqlString(args.out), "'out.parquet'")} with threads=${threads}`);
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
        console.error(`nested_peer: DuckDB wrote ${written} rows, not ${rows}`);
        process.exit(1);
      }
      console.log(`  threads=${threads}: ${t.toFixed(3)} s (median of ${args.repeat}), ` +
                  `${(rows / t).toFixed(0)} rows/s, ${(t * 1e9 / rows).toFixed(1)} ns/row, ` +
                  `${outBytes} bytes (${(outBytes / 1048576).toFixed(1)} MiB), ${rowGroups} row groups, ` +
                  `${(outBytes / rows).toFixed(2)} B/row`);
      result.push(`seconds_${threads}=${t.toFixed(6)} out_bytes_${threads}=${outBytes} ` +
                  `row_groups_${threads}=${rowGroups}`);
    }
    const rss = process.resourceUsage().maxRSS;
    console.log(`peak RSS          ${(rss / 1024).toFixed(1)} MiB (node and DuckDB; ` +
                `${(rss0 / 1024).toFixed(1)} MiB before the first COPY)`);
    result.push(`maxrss_kb=${rss} maxrss_before_kb=${rss0}`);
  }
  console.log(`RESULT rows=${rows} repeat=${args.repeat} verify=${verdict} checks=${v.checks} ` +
              `mismatches=${v.bad} ${result.join(' ')} version=${version}`);

  con.closeSync();
  db.closeSync();
  if (v.bad) process.exit(1);
}

main().catch((e) => {
  console.error(`nested_peer: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
