#!/usr/bin/env node
// polars_peer.mjs — the polars peer of bench_write_table.
//
//   POLARS_MAX_THREADS=N node bench/write_table/polars_peer.mjs FILE.parquet [--repeat K] [--out PATH]
//
// Reads FILE (the file bench_write_table wrote) into a DataFrame, then
// times df.writeParquet(out, { compression: 'zstd', compressionLevel: 3 })
// K times and reports the median: polars writing a table it already holds
// in memory, with the codec and level inlay uses by default. polars sizes
// its thread pool from POLARS_MAX_THREADS when it loads, so the thread
// count is the environment's, one process per count.
//
// nodejs-polars is pinned in bench/package.json (npm ci in bench/); the
// run ends with a machine-readable "RESULT key=value ..." line.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const here = path.dirname(new URL(import.meta.url).pathname);

function usage(code) {
  (code ? console.error : console.log)(
    'usage: POLARS_MAX_THREADS=N node polars_peer.mjs FILE.parquet [--repeat K] [--out PATH]');
  process.exit(code);
}

function parseArgs(argv) {
  const a = { file: null, repeat: 1, out: null };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '-h' || k === '--help') usage(0);
    if (k === '--repeat') a.repeat = Number(argv[++i]);
    else if (k === '--out') a.out = argv[++i];
    else if (!k.startsWith('--') && a.file === null) a.file = k;
    else usage(2);
  }
  if (a.file === null || !Number.isInteger(a.repeat) || a.repeat < 1) usage(2);
  a.file = path.resolve(a.file);
  a.out = path.resolve(a.out ?? path.join(path.dirname(a.file), 'polars_peer.parquet'));
  return a;
}

function loadPolars() {
  const require = createRequire(path.join(here, '..', 'package.json'));
  try {
    return require('nodejs-polars');
  } catch (e) {
    console.error('polars_peer: nodejs-polars is not installed: run `npm ci` in bench/ ' +
                  `(${e.message.split('\n')[0]})`);
    process.exit(2);
  }
}

const median = (v) => {
  const s = [...v].sort((x, y) => x - y);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const seconds = (t0) => Number(process.hrtime.bigint() - t0) / 1e9;

const args = parseArgs(process.argv.slice(2));
const pl = loadPolars();
const threads = process.env.POLARS_MAX_THREADS ?? '(polars default)';
let t0 = process.hrtime.bigint();
const df = pl.readParquet(args.file);
const loadSeconds = seconds(t0);
const rows = df.height;
console.log(`polars peer: ${args.file}: ${rows} rows, ${df.width} columns, loaded in ${loadSeconds.toFixed(3)} s`);
console.log(`timing: df.writeParquet(out, { compression: 'zstd', compressionLevel: 3 }) with POLARS_MAX_THREADS=${threads}`);
const times = [];
for (let k = 0; k < args.repeat; k++) {
  fs.rmSync(args.out, { force: true });   // each timed write makes a new file, as inlay's runs do
  t0 = process.hrtime.bigint();
  df.writeParquet(args.out, { compression: 'zstd', compressionLevel: 3 });
  times.push(seconds(t0));
  console.log(`  run ${k + 1}/${args.repeat}: ${times[k].toFixed(3)} s`);
}
const t = median(times);
const outBytes = fs.statSync(args.out).size;
const back = pl.readParquet(args.out).height;
if (back !== rows) {
  console.error(`polars_peer: polars wrote ${back} rows, not ${rows}`);
  process.exit(1);
}
console.log(`seconds           ${t.toFixed(3)}  (median of ${args.repeat}; the write alone)`);
console.log(`output            ${outBytes} bytes (${(outBytes / 1048576).toFixed(1)} MiB)`);
console.log(`RESULT rows=${rows} repeat=${args.repeat} seconds=${t.toFixed(6)} out_bytes=${outBytes} ` +
            `threads=${process.env.POLARS_MAX_THREADS ?? 0}`);
