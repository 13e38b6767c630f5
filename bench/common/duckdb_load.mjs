// duckdb_load.mjs — how the benchmarks' DuckDB peers find @duckdb/node-api:
// in tests/interop/node_modules (installed by `npm ci` there), else in a
// node_modules in or above bench/common/, or on NODE_PATH. A peer that
// cannot find it exits with status 2.

import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

export function loadDuckDB(who) {
  const bases = [
    path.join(here, '..', '..', 'tests', 'interop', 'package.json'),
    path.join(here, 'package.json'),
  ];
  let last;
  for (const base of bases) {
    try {
      return createRequire(base)('@duckdb/node-api');
    } catch (e) {
      if (e.code !== 'MODULE_NOT_FOUND') throw e;
      last = e;
    }
  }
  console.error(`${who}: cannot find @duckdb/node-api (install it in tests/interop, ` +
                'or point NODE_PATH at a node_modules that has it)');
  console.error(String(last && last.message).split('\n')[0]);
  process.exit(2);
}
