// duckdb_lua.mjs — what duckdb_read.mjs and duckdb_csv.mjs share: DuckDB
// (@duckdb/node-api, installed by the interop tests in
// tests/interop/node_modules) and the Lua literals they print values as.

import path from 'node:path'
import process from 'node:process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

// The @duckdb/node-api module; exits 1 naming `who` when it is missing.
export function loadDuckDB(who) {
  const here = path.dirname(fileURLToPath(import.meta.url))
  const interop = process.env.INLAY_INTEROP_DIR || path.resolve(here, '../interop')
  try {
    return createRequire(path.join(interop, 'package.json'))('@duckdb/node-api')
  } catch (err) {
    console.error(`${who}: @duckdb/node-api is not installed in ${interop}/node_modules ` +
                  `(run: cd ${interop} && npm ci): ${err.message}`)
    process.exit(1)
  }
}

// A Lua string literal holding exactly these bytes.
export function luaBytes(bytes) {
  let s = '"'
  for (const b of bytes) {
    if (b === 0x22) s += '\\"'
    else if (b === 0x5c) s += '\\\\'
    else if (b >= 0x20 && b < 0x7f) s += String.fromCharCode(b)
    else s += '\\' + String(b).padStart(3, '0')
  }
  return s + '"'
}
export const luaString = s => luaBytes(new TextEncoder().encode(String(s)))

// A Lua number literal, NaN, infinities and -0.0 included.
export function luaNumber(v) {
  if (Number.isNaN(v)) return '(0/0)'
  if (v === Infinity) return 'math.huge'
  if (v === -Infinity) return '-math.huge'
  if (Object.is(v, -0)) return '-0.0'
  const s = String(v)
  return /[.e]/.test(s) ? s : s + '.0'
}
