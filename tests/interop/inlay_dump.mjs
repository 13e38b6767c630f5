// inlay_dump.mjs — running interop_read_dump (read_dump.c: inlay's reader)
// and comparing what it prints, shared by check.mjs and foreign.mjs.
//
// interop_read_dump prints one JSON line per file: the schema as a type
// tree in the form of the fixtures' JSON ("type" and its parameters,
// "nullable", "element" / "key", "value" / "fields") and every value in
// the canonical form of fixtures.c (integers, dates, times and timestamps
// as decimal strings; floats as numbers or "NaN", "Infinity", "-Infinity",
// "-0"; text as strings; binary and fixed as hex; uuid as text; decimals
// as exact text), a list as an array, a struct as an object, a map as
// [key, value] pairs.

import { spawnSync } from 'node:child_process'
import path from 'node:path'

import { canonNumber } from './common.mjs'

// The checkers run one interop_read_dump for many files: a spawn from a
// Node process that holds DuckDB and the files' values costs tens of
// milliseconds (it grows with the process's memory); one per file took
// longer than the reads.

// Run interop_read_dump once on the files: for each, in order, {dump} (its
// parsed line) or {error}. A process that dies leaves every file after its
// last whole line in error; one that prints more lines than files, all.
export function readDumps(exe, files, args = []) {
  const r = spawnSync(exe, [...args, ...files], { encoding: 'utf8', maxBuffer: 1 << 30 })
  const names = files.length === 1 ? path.basename(files[0]) : `${path.basename(files[0])} and ${files.length - 1} more`
  const how = `interop_read_dump ${[...args, names].join(' ')}`
  const tail = r.stderr ? `; stderr: ${r.stderr.trim().slice(0, 2000)}` : ''
  let failed = null
  if (r.error) failed = `${how}: ${r.error.message}`
  else if (r.signal) failed = `${how} was killed by ${r.signal}${tail}`
  else if (r.status !== 0 && r.status !== 1) failed = `${how} exited ${r.status}${tail}`
  const lines = failed && r.error ? [] : r.stdout.split('\n').filter(Boolean)
  if (!failed && lines.length !== files.length) failed = `${how} printed ${lines.length} lines, expected ${files.length}${tail}`
  return files.map((file, k) => {
    if (failed && (lines.length > files.length || k >= lines.length - 1)) return { error: failed }
    try {
      return { dump: JSON.parse(lines[k]) }
    } catch (err) {
      return { error: `interop_read_dump ${[...args, path.basename(file)].join(' ')} printed no valid JSON (${err.message})${tail}` }
    }
  })
}

// Run interop_read_dump on one file: {dump} (the parsed line) or {error}.
export function readDump(exe, file, args = []) {
  return readDumps(exe, [file], args)[0]
}

// The type parameters the JSON's types carry (fixtures.c), beside "type".
export const TYPE_KEYS = ['width', 'unit', 'utc', 'precision', 'scale', 'physical']

// What is wrong with inlay's type tree `got` for the JSON's `want` (a flat
// column or a field tree), or null: the tag, every parameter the JSON
// gives, nullable, and for groups their children in order.
export function inlayTypeProblem(want, got, where = '') {
  const at = where ? `${where}: ` : ''
  if (!got) return `${at}missing`
  if (got.type !== want.type) return `${at}type ${describeType(got)}, expected ${describeType(want)}`
  for (const k of TYPE_KEYS)
    if (k in want && got[k] !== want[k]) return `${at}type ${describeType(got)}, expected ${describeType(want)}`
  if (want.nullable !== undefined && got.nullable !== want.nullable) return `${at}nullable=${got.nullable}, expected ${want.nullable}`
  if (!!want.repeated !== !!got.repeated) return `${at}repeated=${!!got.repeated}, expected ${!!want.repeated}`
  switch (want.type) {
    case 'list': return inlayTypeProblem(want.element, got.element, `${where}.element`)
    case 'map':
      return inlayTypeProblem(want.key, got.key, `${where}.key`) ||
        (want.value ? inlayTypeProblem(want.value, got.value, `${where}.value`) : got.value ? `${where}: a map value, expected none` : null)
    case 'struct': {
      const names = (got.fields ?? []).map(f => f.name), wantNames = want.fields.map(f => f.name)
      if (JSON.stringify(names) !== JSON.stringify(wantNames)) return `${at}struct fields ${JSON.stringify(names)}, expected ${JSON.stringify(wantNames)}`
      for (const [i, f] of want.fields.entries()) {
        const p = inlayTypeProblem(f, got.fields[i], `${where}.${f.name}`)
        if (p) return p
      }
      return null
    }
  }
  return null
}

export function describeType(t) {
  const params = TYPE_KEYS.filter(k => k in t).map(k => `${k} ${t[k]}`)
  return params.length ? `${t.type}(${params.join(', ')})` : String(t.type)
}

// Where two reads' fields first differ, or null.
export function firstDifference(a, b) {
  if (a.length !== b.length) return `${b.length} fields, the first read ${a.length}`
  for (let k = 0; k < a.length; k++) {
    if (a[k].name !== b[k].name) return `field ${k} is ${b[k].name}, the first read ${a[k].name}`
    const va = a[k].values, vb = b[k].values
    if (va.length !== vb.length) return `field ${a[k].name}: ${vb.length} values, the first read ${va.length}`
    for (let i = 0; i < va.length; i++) {
      const x = JSON.stringify(va[i]), y = JSON.stringify(vb[i])
      if (x !== y) return `field ${a[k].name} row ${i}: ${y}, the first read ${x}`
    }
    const { values: _a, ...ta } = a[k], { values: _b, ...tb } = b[k]
    if (JSON.stringify(ta) !== JSON.stringify(tb)) return `field ${a[k].name}: type ${JSON.stringify(tb)}, the first read ${JSON.stringify(ta)}`
  }
  return null
}


const FLOATING = ['float', 'double', 'float16']

// Are two canonical values of type tree `t` the same? Floating point is
// compared as numbers (Object.is: NaN equals NaN, -0 is not 0; a float
// through Math.fround on both sides), everything else exactly.
export function sameCanon(t, e, a) {
  if (e === null || a === null || e === undefined || a === undefined) return e === a
  switch (t.type) {
    case 'list':
      return Array.isArray(e) && Array.isArray(a) && a.length === e.length && e.every((x, i) => sameCanon(t.element, x, a[i]))
    case 'struct':
      return typeof a === 'object' && !Array.isArray(a) && Object.keys(a).length === t.fields.length &&
        t.fields.every(f => f.name in a && f.name in e && sameCanon(f, e[f.name], a[f.name]))
    case 'map':
      return Array.isArray(e) && Array.isArray(a) && a.length === e.length &&
        e.every(([k, v], i) => Array.isArray(a[i]) && sameCanon(t.key, k, a[i][0]) && (!t.value || sameCanon(t.value, v, a[i][1])))
  }
  if (FLOATING.includes(t.type)) {
    let x = canonNumber(e), y = canonNumber(a)
    if (x === undefined || y === undefined) return false
    if (t.type === 'float') { x = Math.fround(x); y = Math.fround(y) }
    return Object.is(x, y)
  }
  return e === a
}
