// common.mjs — helpers the interop checkers (check.mjs, skip.mjs,
// foreign.mjs, dataset_check.mjs) and inlay_dump.mjs share: the canonical
// forms of fixtures.c's JSON (hex bytes, decimal text, floats, time units),
// SQL quoting for DuckDB, the raw footer, and reading a file through
// arrow-rs and hyparquet. What each checker compares stays in the checker.

import * as parquetWasm from 'parquet-wasm/node'
import { tableFromIPC } from 'apache-arrow'
import { parquetRead } from 'hyparquet'
import { deserializeTCompactProtocol } from 'hyparquet/src/thrift.js'

// ---------------------------------------------------------------------------
// Canonical forms

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))
export function hex(bytes) {
  let s = ''
  for (let i = 0; i < bytes.length; i++) s += HEX[bytes[i]]
  return s
}

export const hexBytes = h => Uint8Array.from(h.match(/../g) ?? [], x => parseInt(x, 16))

// An unscaled integer and a scale as exact decimal text: exactly `scale`
// fractional digits.
export function decimalText(unscaled, scale) {
  const neg = unscaled < 0n
  let digits = (neg ? -unscaled : unscaled).toString()
  if (scale > 0) {
    digits = digits.padStart(scale + 1, '0')
    digits = digits.slice(0, digits.length - scale) + '.' + digits.slice(digits.length - scale)
  }
  return (neg ? '-' : '') + digits
}

// A canonical floating-point value (number or "NaN", "Infinity",
// "-Infinity", "-0") as a JS number; undefined when it is none.
export function canonNumber(e) {
  if (typeof e === 'number') return e
  switch (e) {
    case 'NaN': return NaN
    case 'Infinity': return Infinity
    case '-Infinity': return -Infinity
    case '-0': return -0
  }
  return undefined
}

// The same for a value that must be canonical (the fixtures' own JSON):
// anything else is a broken fixture, not a reader's difference, so it
// throws, naming the column type (`what`) the checker expected.
export function canonNumberOf(e, what) {
  const v = canonNumber(e)
  if (v === undefined) throw new Error(`bad canonical ${what} ${JSON.stringify(e)}`)
  return v
}

export const UNIT_SCALE = { s: 1n, ms: 1000n, us: 1000000n, ns: 1000000000n }

// JSON.stringify cannot take a BigInt: shown as `123n`, so that it stays
// apart from the string "123".
export const bigJSON = v => JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? `${x}n` : x))

// ---------------------------------------------------------------------------
// DuckDB SQL

export const sqlString = s => `'${s.replaceAll("'", "''")}'`
export const quoteId = s => `"${s.replaceAll('"', '""')}"`

// ---------------------------------------------------------------------------
// Files

// The footer as raw thrift (field ids), for the exact bytes hyparquet's
// metadata parser converts, and where it starts.
export function rawFooter(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const len = view.getUint32(bytes.length - 8, true)
  const start = bytes.length - 8 - len
  return { footer: deserializeTCompactProtocol({ view, offset: start }), start }
}

// A Parquet file's bytes read by arrow-rs (parquet-wasm), as an
// apache-arrow Table: the wasm table is only reachable through Arrow IPC.
export const readArrow = bytes => tableFromIPC(parquetWasm.readParquet(bytes).intoIPCStream())

// hyparquet's rows as a promise: parquetRead hands them to onComplete, and
// its own promise only carries a failure.
export const hyparquetRows = options => new Promise((resolve, reject) => {
  parquetRead({ ...options, onComplete: resolve }).catch(reject)
})
