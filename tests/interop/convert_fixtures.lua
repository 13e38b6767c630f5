-- convert_fixtures.lua — interop fixtures for the CSV and NDJSON sources.
--
--   inlay run tests/interop/convert_fixtures.lua OUTDIR
--
-- Writes CSV, TSV and NDJSON inputs into OUTDIR (deterministic: every value
-- comes from a PRNG seeded by the file's name), converts each to
-- NAME.parquet, and writes NAME.json beside it in the format fixtures.c
-- documents, for check.mjs to compare with what DuckDB, arrow-rs and
-- hyparquet read back.
--
-- Most files go through the Lua API (inlay.source(path, { schema = ... }),
-- inlay.open with the default writer options, src:write(w)); a few through
-- the `inlay convert` command, one of them with --infer (and one NDJSON one
-- too), whose schema this script works out from the values it generated.
--
-- The expected values are computed here, independently of the library,
-- from the values generated: dates by days-from-civil arithmetic, instants
-- by subtracting the zone offset and cutting the fraction digits to the
-- unit (which is the floor, also before 1970: the fraction only ever adds),
-- decimals by moving the digits of their unscaled value, float and float16
-- by rounding the value (string.pack "f", and a round-half-even to IEEE
-- half written here). Nothing is read back from the files.
--
-- Covered:
--  - values: booleans in every spelling and case; every integer width at
--    its limits ("+", "-0", leading zeros); float, double and float16 from
--    every literal form (exponents, signed zeros, subnormals, the extremes,
--    underflow to zero, correctly rounded long literals, NaN, infinities);
--    strings with every CSV quoting case (delimiters, doubled quotes, LF and
--    CRLF inside quotes, a quote inside an unquoted field, a bare CR,
--    multi-byte UTF-8, "" against null) and a value over 1 MB; binary (any
--    byte); enum; json (CSV text; NDJSON objects, arrays, numbers and
--    literals as their raw text); uuid text in either case; fixed(n); dates
--    (far and negative years, leap days, epoch day numbers); time and
--    timestamp in ms/us/ns (ISO-8601 with Z, +HH:MM, -HHMM, +HH, T, t or a
--    space, 0 to 9 fraction digits cut toward the past, date-only values,
--    epoch numbers); decimal(9,2), (18,4), (38,10) from exact text and JSON
--    numbers; spaces around numbers, dates and flags.
--  - CSV: null markers ("NULL" and "\N"; "" and '""'; "NA" and ""), LF,
--    CRLF and mixed line ends, no final line end, a BOM, blank lines, skip
--    rows, a header in another order with extra and missing columns, no
--    header, TSV, ';', single quotes and no quoting, gzip and zstd.
--  - NDJSON: keys in any order, left out, null, repeated (the last wins),
--    escaped, extra keys, blank lines, CRLF, a gzip file of two members and
--    a zstd stream of two frames (split inside a line), --format on a .txt.
--  - bad records skipped (on_error = "skip") and counted in the reject
--    file; batches of 1, 97, 128, 211, 333 and 1000 rows; inputs without
--    records.
--  - `inlay convert`: --schema, --nulls, --compression, --no-header,
--    --delimiter, --format, and --infer on CSV, on NDJSON and on stdin with
--    a sample shorter than the input.
--
-- The inlay program for `inlay convert` is $INLAY_BIN, else the program
-- running this script (arg[-2] under `inlay run`).
--
-- Exit status: 0; 1 when some files could not be converted (each is named on
-- stderr; the others are written); 2 on a usage or internal error.

local inlay = require "inlay"

local OUT = arg and arg[1]
if not OUT or OUT == "" then
  io.stderr:write("usage: inlay run convert_fixtures.lua OUTDIR\n")
  os.exit(2)
end

local function shq(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

do
  local ok = os.execute("mkdir -p " .. shq(OUT))
  if not ok then io.stderr:write("convert_fixtures: cannot create " .. OUT .. "\n") os.exit(2) end
end

local INLAY_BIN = os.getenv("INLAY_BIN")
if not INLAY_BIN or INLAY_BIN == "" then
  local i = 0
  while arg[i - 1] do i = i - 1 end   -- arg[i] is the inlay program
  INLAY_BIN = arg[i]
end

local function internal(msg)
  io.stderr:write("convert_fixtures: " .. msg .. "\n")
  os.exit(2)
end

-- ---------------------------------------------------------------------------
-- Small utilities

-- A deterministic PRNG (splitmix64) seeded by a name.
local function new_rng(name)
  local state = 0xcbf29ce484222325
  for i = 1, #name do state = (state ~ name:byte(i)) * 0x100000001b3 end
  local r = {}
  function r.u64()
    state = state + 0x9e3779b97f4a7c15
    local z = state
    z = (z ~ (z >> 30)) * 0xbf58476d1ce4e5b9
    z = (z ~ (z >> 27)) * 0x94d049bb133111eb
    return z ~ (z >> 31)
  end
  function r.below(n) return (r.u64() >> 1) % n end
  function r.range(lo, hi) return lo + r.below(hi - lo + 1) end
  function r.pick(t) return t[r.below(#t) + 1] end
  function r.chance(pct) return r.below(100) < pct end
  function r.shuffle(t)
    for i = #t, 2, -1 do
      local j = r.below(i) + 1
      t[i], t[j] = t[j], t[i]
    end
    return t
  end
  return r
end

-- An int64 bit pattern as an unsigned decimal.
local function utostr(v)
  if v >= 0 then return tostring(v) end
  local q = (v >> 1) // 5
  return tostring(q) .. tostring(v - q * 10)
end

local function write_file(path, data)
  local f = assert(io.open(path, "wb"))
  assert(f:write(data))
  assert(f:close())
end

local function file_size(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local n = f:seek("end")
  f:close()
  return n
end

local HEX = {}
for i = 0, 255 do HEX[i] = string.format("%02x", i) end
local function hex(s)
  local t = {}
  for i = 1, #s do t[i] = HEX[s:byte(i)] end
  return table.concat(t)
end

-- A JSON string literal of UTF-8 text, escaped plainly (for the specs).
local function jq(s)
  return '"' .. s:gsub('[%c"\\\127]', function(c)
    if c == '"' then return '\\"' end
    if c == "\\" then return "\\\\" end
    return string.format("\\u%04x", c:byte())
  end) .. '"'
end

-- A JSON string literal of UTF-8 text for an NDJSON input: escapes chosen
-- at random (\uXXXX for any code point, surrogate pairs, \/, the short
-- forms of control characters) when r is given.
local SHORT = { [8] = "\\b", [9] = "\\t", [10] = "\\n", [12] = "\\f", [13] = "\\r" }
local function ujson(cp, r)
  local fmt = r.chance(50) and "\\u%04x" or "\\u%04X"
  if cp < 0x10000 then return string.format(fmt, cp) end
  cp = cp - 0x10000
  return string.format(fmt, 0xd800 + (cp >> 10)) .. string.format(fmt, 0xdc00 + (cp & 0x3ff))
end
local function jstr(s, r)
  if not r then return jq(s) end
  local t = { '"' }
  for _, cp in utf8.codes(s) do
    local e
    if cp == 34 then e = r.chance(10) and ujson(cp, r) or '\\"'
    elseif cp == 92 then e = r.chance(10) and ujson(cp, r) or "\\\\"
    elseif cp < 0x20 or cp == 0x7f then e = (SHORT[cp] and r.chance(70)) and SHORT[cp] or ujson(cp, r)
    elseif cp == 0x2f then e = r.chance(30) and "\\/" or "/"
    elseif cp >= 0x80 then e = r.chance(30) and ujson(cp, r) or utf8.char(cp)
    else e = r.chance(3) and ujson(cp, r) or string.char(cp) end
    t[#t + 1] = e
  end
  t[#t + 1] = '"'
  return table.concat(t)
end

local function is_json_number(s)
  local i = 1
  local function digit() return s:sub(i, i):match("^%d$") ~= nil end
  if s:sub(i, i) == "-" then i = i + 1 end
  if s:sub(i, i) == "0" then i = i + 1
  elseif s:sub(i, i):match("^[1-9]$") then
    while digit() do i = i + 1 end
  else return false end
  if s:sub(i, i) == "." then
    i = i + 1
    if not digit() then return false end
    while digit() do i = i + 1 end
  end
  local e = s:sub(i, i)
  if e == "e" or e == "E" then
    i = i + 1
    local sg = s:sub(i, i)
    if sg == "+" or sg == "-" then i = i + 1 end
    if not digit() then return false end
    while digit() do i = i + 1 end
  end
  return i == #s + 1
end

-- Canonical JSON of a double (fixtures.c: "NaN", "Infinity", "-Infinity",
-- "-0", else a number that reads back exactly).
local function jdouble(x)
  if x ~= x then return '"NaN"' end
  if x == math.huge then return '"Infinity"' end
  if x == -math.huge then return '"-Infinity"' end
  if x == 0 then return (1 / x < 0) and '"-0"' or "0" end
  return string.format("%.17g", x)
end

-- The double a decimal literal denotes (the C library's strtod through
-- tonumber; nan and infinities by hand).
local function text_double(t)
  local l = t:lower()
  local sign = 1
  if l:sub(1, 1) == "-" then sign, l = -1, l:sub(2) elseif l:sub(1, 1) == "+" then l = l:sub(2) end
  if l == "nan" then return 0 / 0 end
  if l == "inf" or l == "infinity" then return sign * math.huge end
  -- as a float literal: tonumber reads "-0" as the integer 0
  local v = tonumber(t:find("[.eE]") and t or t .. ".0")
  if not v then internal("not a number: " .. t) end
  return v * 1.0   -- (v + 0.0 would turn -0.0 into +0.0)
end

local function fround(x) return (string.unpack("<f", string.pack("<f", x))) end

local function round_half_even(q)   -- q >= 0
  local f = math.floor(q)
  local d = q - f
  if d > 0.5 then return f + 1 end
  if d < 0.5 then return f end
  return (f % 2 == 0) and f or f + 1
end

-- A double rounded to IEEE half (nearest, ties to even), as a double.
local function to_half(x)
  if x ~= x then return x end
  local neg = x < 0 or (x == 0 and 1 / x < 0)
  local a = math.abs(x)
  local v
  if a >= 65520 then v = math.huge
  elseif a < 2.0 ^ -14 then v = round_half_even(a * 2.0 ^ 24) * 2.0 ^ -24
  else
    local e = -14
    while 2.0 ^ (e + 1) <= a do e = e + 1 end
    local ulp = 2.0 ^ (e - 10)
    v = round_half_even(a / ulp) * ulp
  end
  v = v * 1.0
  return neg and -v or v
end

local function half_value(h)
  local e, m = (h >> 10) & 31, h & 1023
  local v = e == 0 and m * 2.0 ^ -24 or (1024 + m) * 2.0 ^ (e - 25)
  return (h >> 15) & 1 == 1 and -v or v
end

-- Proleptic Gregorian calendar, after H. Hinnant's days_from_civil.
local function is_leap(y) return y % 4 == 0 and (y % 100 ~= 0 or y % 400 == 0) end
local MDAYS = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 }
local function month_days(y, m) return (m == 2 and is_leap(y)) and 29 or MDAYS[m] end
local function days_from_civil(y, m, d)
  if m <= 2 then y = y - 1 end
  local era = y // 400
  local yoe = y - era * 400
  local mp = m > 2 and m - 3 or m + 9
  local doy = (153 * mp + 2) // 5 + d - 1
  local doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
  return era * 146097 + doe - 719468
end

local function date_text(y, m, d, signed4)
  local ys
  if y < 0 then ys = string.format("-%04d", -y)
  elseif y > 9999 or signed4 then ys = string.format("+%04d", y)
  else ys = string.format("%04d", y) end
  return string.format("%s-%02d-%02d", ys, m, d)
end

local UNIT = { ms = 1000, us = 1000000, ns = 1000000000 }
local UNIT_DIGITS = { ms = 3, us = 6, ns = 9 }

-- Fraction digits cut (toward negative infinity: they only ever add) to
-- the unit, as a count of units.
local function frac_units(frac, unit)
  local n = UNIT_DIGITS[unit]
  return math.tointeger(tonumber(((frac or "") .. string.rep("0", n)):sub(1, n)))
end

-- ---------------------------------------------------------------------------
-- Column types: the JSON tags of fixtures.c, the inlay type, and its Lua
-- source text (for the schema files of `inlay convert --schema`).

local T = {}
local function simple(tag) return { tag = tag, lua = tag, src = string.format("%q", tag) } end
for _, tag in ipairs { "boolean", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                       "float", "double", "float16", "string", "binary", "enum", "json", "uuid", "date" } do
  T[tag] = simple(tag)
end
function T.time(unit, utc)
  return { tag = "time", unit = unit, utc = utc or false, lua = inlay.time(unit, { utc = utc or false }),
           src = string.format("inlay.time(%q, { utc = %s })", unit, tostring(utc or false)) }
end
function T.timestamp(unit, utc)
  return { tag = "timestamp", unit = unit, utc = utc or false, lua = inlay.timestamp(unit, { utc = utc or false }),
           src = string.format("inlay.timestamp(%q, { utc = %s })", unit, tostring(utc or false)) }
end
function T.decimal(p, s)
  local t = { tag = "decimal", precision = p, scale = s, lua = inlay.decimal(p, s),
              src = string.format("inlay.decimal(%d, %d)", p, s) }
  if p <= 9 then t.physical = "int32"
  elseif p <= 18 then t.physical = "int64"
  else
    -- the smallest two's complement width that holds 10^p - 1
    local w = 1
    while (w * 8 - 1) < math.floor(p * math.log(10, 2)) + 1 do w = w + 1 end
    t.physical, t.width = "fixed", w
  end
  return t
end
function T.fixed(n)
  return { tag = "fixed", width = n, lua = inlay.fixed(n), src = string.format("inlay.fixed(%d)", n) }
end

local function type_json(t)
  local s = '"type":"' .. t.tag .. '"'
  if t.tag == "fixed" then s = s .. ',"width":' .. t.width end
  if t.tag == "time" or t.tag == "timestamp" then
    s = s .. ',"unit":"' .. t.unit .. '","utc":' .. tostring(t.utc)
  end
  if t.tag == "decimal" then
    s = s .. string.format(',"precision":%d,"scale":%d,"physical":"%s"', t.precision, t.scale, t.physical)
    if t.width then s = s .. ',"width":' .. t.width end
  end
  return s
end

-- ---------------------------------------------------------------------------
-- Cells: one value of one column in one input.
--   canon  the canonical JSON text of the value in the Parquet file
--   csv    the field's text (unquoted; the CSV writer quotes as needed),
--          raw = true to write it as it is, quote = true to always quote
--   nd     the NDJSON value text
-- A case lacking csv (or nd) is left out of that format's inputs.

local NULL = { null = true }

-- A numeric text: bare in NDJSON when it is a JSON number (or quoted).
local function numcell(canon, text, r)
  local bare = is_json_number(text) and not (r and r.chance(12))
  return { canon = canon, csv = text, nd = bare and text or jstr(text) }
end

-- A text value: quoted in NDJSON, with random escapes.
local function txtcell(canon, text, r)
  return { canon = canon, csv = text, nd = jstr(text, r) }
end

-- ---------------------------------------------------------------------------
-- Value makers per type: make(t, r) -> gen(r, fmt) -> cell, and the cases
-- every input of that type goes through first (cases(t, r) -> list).

local M = {}

-- booleans --------------------------------------------------------------------
local TRUE_WORDS = { "true", "TRUE", "True", "tRuE", "t", "T", "yes", "YES", "Yes", "yEs", "y", "Y", "1" }
local FALSE_WORDS = { "false", "FALSE", "False", "fAlSe", "f", "F", "no", "NO", "No", "nO", "n", "N", "0" }
M.boolean = {
  cases = function(_, r)
    local c = {}
    for i = 1, #TRUE_WORDS do
      c[#c + 1] = txtcell("true", TRUE_WORDS[i], r)
      c[#c + 1] = txtcell("false", FALSE_WORDS[i], r)
    end
    c[#c + 1] = { canon = "true", nd = "true" }
    c[#c + 1] = { canon = "false", nd = "false" }
    c[#c + 1] = { canon = "true", nd = "1" }
    c[#c + 1] = { canon = "false", nd = "0" }
    return c
  end,
  gen = function(_, r, fmt)
    local v = r.chance(50)
    if fmt == "nd" and r.chance(70) then return { canon = tostring(v), nd = tostring(v) } end
    return txtcell(tostring(v), r.pick(v and TRUE_WORDS or FALSE_WORDS), r)
  end,
}

-- integers ----------------------------------------------------------------------
local INT_LIMITS = {
  int8 = { -128, 127 }, int16 = { -32768, 32767 }, int32 = { -2147483648, 2147483647 },
  int64 = { math.mininteger, math.maxinteger },
  uint8 = { 0, 255 }, uint16 = { 0, 65535 }, uint32 = { 0, 4294967295 }, uint64 = { 0, -1 },
}
local function int_canon(tag, v) return '"' .. (tag == "uint64" and utostr(v) or tostring(v)) .. '"' end
local function int_text(tag, v) return tag == "uint64" and utostr(v) or tostring(v) end
for tag, lim in pairs(INT_LIMITS) do
  local lo, hi = lim[1], lim[2]
  local signed = tag:sub(1, 1) ~= "u"
  M[tag] = {
    cases = function(_, r)
      local c = {}
      local function add(text, v) c[#c + 1] = numcell(int_canon(tag, v), text, r) end
      add(int_text(tag, lo), lo)
      add(int_text(tag, hi), hi)
      add("+" .. int_text(tag, hi), hi)
      add(int_text(tag, hi - 1), hi - 1)
      add("0", 0)
      add("+0", 0)
      add("-0", 0)
      add("007", 7)
      add("0000000000000000000042", 42)
      c[#c + 1] = { canon = int_canon(tag, hi), nd = jstr(int_text(tag, hi)) }   -- a quoted number
      if signed then
        add(int_text(tag, lo + 1), lo + 1)
        add("-1", -1)
        add("-007", -7)
      else
        add("-00", 0)
        add("1", 1)
      end
      if tag == "uint64" then
        add("9223372036854775808", math.mininteger)   -- 2^63
        add("9223372036854775807", math.maxinteger)
      end
      return c
    end,
    gen = function(_, r)
      local v
      if tag == "int64" then
        v = r.u64() >> r.below(64)
        if r.chance(50) then v = -v end
      elseif tag == "uint64" then
        v = r.u64() >> r.below(64)
        if r.chance(20) then v = v | math.mininteger end
      elseif r.chance(50) then
        v = r.range(lo, hi)
      else
        v = r.range(-100, 100)
        if v < lo then v = lo + (lo - v) end
      end
      return numcell(int_canon(tag, v), int_text(tag, v), r)
    end,
  }
end

-- float -------------------------------------------------------------------------
local FLOAT_CASES = {
  "0", "-0", "-0.0", "+0", "0.0e5", "1", "-1", "1.5", "0.1", "-0.1", "1e10", "1E10", "1.5E-3", "+.5", "-.25", "5.",
  "3.40282347e+38", "-3.4028235e38", "1.17549435e-38", "1.4e-45", "-2.5e-44", "16777217", "16777219",
  "123456.789", "6.02214076e23", "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "+INFINITY", "-Infinity",
}
local function float_text_forms(f, r)
  local k = r.below(4)
  if k == 0 then return string.format("%.9g", f) end
  if k == 1 then return string.format("%.17g", f) end
  if k == 2 then return string.format("%.8e", f) end
  return string.format("%.8E", f)
end
M.float = {
  cases = function(_, r)
    local c = {}
    for _, t in ipairs(FLOAT_CASES) do c[#c + 1] = numcell(jdouble(fround(text_double(t))), t, r) end
    return c
  end,
  gen = function(_, r)
    local k = r.below(10)
    local f
    if k == 0 then       -- subnormal
      f = fround(r.range(1, (1 << 23) - 1) * 2.0 ^ -149)
    elseif k <= 3 then   -- a short decimal
      local t = string.format("%d.%0" .. r.range(1, 3) .. "d", r.range(-99999, 99999), r.below(10))
      return numcell(jdouble(fround(text_double(t))), t, r)
    else
      f = fround((1.0 + r.below(1 << 23) / 2.0 ^ 23) * 2.0 ^ r.range(-126, 127))
    end
    if r.chance(50) then f = -f end
    return numcell(jdouble(f), float_text_forms(f, r), r)
  end,
}

-- double ------------------------------------------------------------------------
local DOUBLE_CASES = {
  "0", "-0", "-0.0", "+0", "0.000", "0e10", "1e0", "1E+2", "1e-2", ".5", "-.5", "5.", "+5.5e+1",
  "1.7976931348623157e308", "-1.7976931348623157E+308", "2.2250738585072014e-308", "2.2250738585072011e-308",
  "4.9406564584124654e-324", "5e-324", "2.4703282292062328e-324", "1e-400", "-1e-400", "0.1", "0.30000000000000004",
  "9007199254740993", "123456789012345678901234567890", "3.141592653589793238462643383279",
  "1.000000000000000000000000000001", "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "+Infinity", "INFINITY",
}
M.double = {
  cases = function(_, r)
    local c = {}
    for _, t in ipairs(DOUBLE_CASES) do c[#c + 1] = numcell(jdouble(text_double(t)), t, r) end
    return c
  end,
  gen = function(_, r)
    if r.chance(30) then
      local t = string.format("%d.%d", r.range(-9999999, 9999999), r.below(1000))
      if r.chance(30) then t = t .. "e" .. r.range(-30, 30) end
      return numcell(jdouble(text_double(t)), t, r)
    end
    local bits = r.u64()
    if (bits >> 52) & 0x7ff == 0x7ff then bits = bits ~ (1 << 62) end
    local d = string.unpack("<d", string.pack("<i8", bits))
    local k = r.below(4)
    local t = k == 0 and string.format("%.17g", d) or k == 1 and string.format("%.16e", d)
              or k == 2 and string.format("%.17G", d) or string.format("%.20e", d)
    return numcell(jdouble(d), t, r)
  end,
}

-- float16 -----------------------------------------------------------------------
local HALF_CASES = {
  "0", "-0", "1", "-2", "0.5", "65504", "-65504", "65519", "65520", "-65520", "1e5", "6.103515625e-05",
  "5.9604644775390625e-08", "3e-8", "1e-9", "-1e-9", "2049", "2051", "0.1", "3.14159", "-1000.7", "1.0009765625",
  "nan", "inf", "-Infinity",
}
M.float16 = {
  cases = function(_, r)
    local c = {}
    for _, t in ipairs(HALF_CASES) do c[#c + 1] = numcell(jdouble(to_half(text_double(t))), t, r) end
    return c
  end,
  gen = function(_, r)
    if r.chance(40) then
      local t = string.format("%.4g", (r.below(2000001) - 1000000) / 997.0)
      return numcell(jdouble(to_half(text_double(t))), t, r)
    end
    local h
    repeat h = r.below(65536) until (h >> 10) & 31 ~= 31
    local v = half_value(h)
    return numcell(jdouble(v), string.format("%.17g", v), r)
  end,
}

-- text ------------------------------------------------------------------------------
local WORDS = {
  "alpha", "beta", "gamma", "delta", "x", "lorem", "ipsum", "naïve", "café", "Größe", "日本語", "中文",
  "한국어", "Ελληνικά", "русский", "עברית", "😀", "🎉", "a,b", "semi;colon", "tab\there", "quote\"d",
  "'single'", "back\\slash", "/slash", "{brace}", "[1,2]", "€100", "½", "∑", "𝄞",
}
local STRING_CASES = {
  "hello, world", 'say "hi"', '"', '""', '"quoted"', "a,b,c", ",", ",,", "line1\nline2", "line1\r\nline2", "\n",
  "\r\n", "ends with newline\n", "\nstarts with newline", "two\n\nblank lines", "  padded  ", " ", "",
  "é", "naïve café", "日本語テキスト", "😀 emoji 🎉", "mixed ü,\"ß\"\r\n€", "tab\there", "NULL", "\\N", "null",
  "NA", "007", "1e5", "true", "-", "#hash", "'apostrophe'", string.rep("long ", 300) .. "end",
  "a\rb",
}
local function rand_words(r, maxn)
  local n = r.below(maxn + 1)
  local t = {}
  for i = 1, n do t[i] = r.pick(WORDS) end
  return table.concat(t, r.chance(80) and " " or ",")
end
M.string = {
  cases = function(_, r)
    local c = {}
    for _, s in ipairs(STRING_CASES) do c[#c + 1] = txtcell(jq(s), s, r) end
    -- a quote inside an unquoted field is data; so is a CR not followed by LF
    c[#c + 1] = { canon = jq('ab"c'), csv = 'ab"c', raw = true }
    c[#c + 1] = { canon = jq('5" tall'), csv = '5" tall', raw = true }
    c[#c + 1] = { canon = jq("bare\rcr"), csv = "bare\rcr", raw = true }
    -- NDJSON: numbers and literals in a text column keep their text
    c[#c + 1] = { canon = jq("1.50e3"), nd = "1.50e3" }
    c[#c + 1] = { canon = jq("-0"), nd = "-0" }
    c[#c + 1] = { canon = jq("true"), nd = "true" }
    c[#c + 1] = { canon = jq("false"), nd = "false" }
    c[#c + 1] = { canon = jq("\u{10FFFF}\u{FFFD}\u{7F}\u{1}"), nd = '"\\udbff\\udfff\\ufffd\\u007f\\u0001"' }
    return c
  end,
  gen = function(_, r)
    local s = rand_words(r, 8)
    if r.chance(5) then s = s .. "\n" .. rand_words(r, 3) end
    if r.chance(3) then s = s .. "\r\n" .. rand_words(r, 3) end
    return txtcell(jq(s), s, r)
  end,
}

local ENUM_LABELS = { "red", "green", "blue", "ünïcödé", "with space", "x,y", '"quoted"', "EMPTY", "日本" }
M.enum = {
  cases = function(_, r)
    local c = {}
    for _, s in ipairs(ENUM_LABELS) do c[#c + 1] = txtcell(jq(s), s, r) end
    return c
  end,
  gen = function(_, r)
    local s = r.pick(ENUM_LABELS)
    return txtcell(jq(s), s, r)
  end,
}

-- binary: the field's bytes as they are (CSV: any byte; NDJSON: the UTF-8
-- of the string, \u0000 included; objects, arrays, numbers and literals as
-- their raw text)
local BINARY_CASES = { "", " ", "\0", "\0\1\2", "\255\254\253", "\xEF\xBB\xBF", "a,b", 'q"q', "\r\n", "\128",
                       "\xC3\x28", "plain" }
M.binary = {
  cases = function(_, r)
    local c = {}
    for _, s in ipairs(BINARY_CASES) do c[#c + 1] = { canon = jq(hex(s)), csv = s } end
    for _, s in ipairs { "", "\0", "plain", "é😀", "\1\31" } do c[#c + 1] = { canon = jq(hex(s)), nd = jstr(s, r) } end
    c[#c + 1] = { canon = jq(hex('{"a": [1, 2]}')), nd = '{"a": [1, 2]}' }
    c[#c + 1] = { canon = jq(hex("[ ]")), nd = "[ ]" }
    c[#c + 1] = { canon = jq(hex("-1.5e3")), nd = "-1.5e3" }
    c[#c + 1] = { canon = jq(hex("true")), nd = "true" }
    return c
  end,
  gen = function(_, r, fmt)
    local n = r.below(24)
    local t = {}
    if fmt == "csv" then
      for i = 1, n do t[i] = string.char(r.below(256)) end
    else
      for i = 1, n do t[i] = utf8.char(r.chance(80) and r.below(128) or r.range(128, 0x2fff)) end
    end
    local s = table.concat(t)
    if fmt == "csv" then return { canon = jq(hex(s)), csv = s } end
    return { canon = jq(hex(s)), nd = jstr(s, r) }
  end,
}

-- json: CSV keeps the field's text; NDJSON keeps the raw text of objects,
-- arrays, numbers and literals
local JSON_TEXTS = {
  '{}', '[]', '{"a":1}', '{"a": [1, 2, {"b": null}], "c": "x,y"}', '[1,"two",3.0,true,null]',
  '{"uni":"日本","esc":"line\\nbreak \\u00e9 \\"q\\""}', '{"nested":{"deep":{"deeper":[1,[2,[3]]]}}}',
  '{ "spaced" : [ 1 , 2 ] }', '[{"k":"v"},{"k":"w"}]', '{"big":18446744073709551615,"exp":-1.5e-300}',
}
M.json = {
  cases = function(_, r)
    local c = {}
    for _, s in ipairs(JSON_TEXTS) do c[#c + 1] = { canon = jq(s), csv = s, nd = s } end
    for _, s in ipairs { "42", "-0.5e10", "true", "false" } do
      c[#c + 1] = { canon = jq(s), csv = s, nd = s }
    end
    -- a JSON string is JSON text in a CSV field; NDJSON takes none (its
    -- unescaped value would not be JSON)
    c[#c + 1] = { canon = jq('"just a string"'), csv = '"just a string"' }
    return c
  end,
  gen = function(_, r)
    local items = {}
    for i = 1, r.below(4) do items[i] = tostring(r.range(-1000, 1000)) end
    local sp = r.chance(30) and " " or ""
    local s
    if r.chance(70) then
      s = string.format('{"id":%s%d,%s"tags":%s[%s],%s"name":%s%s}', sp, r.below(100000), sp, sp,
                        table.concat(items, "," .. sp), sp, sp, jq(rand_words(r, 3)))
    else
      s = "[" .. table.concat(items, "," .. sp) .. "]"
    end
    return { canon = jq(s), csv = s, nd = s }
  end,
}

-- uuid: the 36-character text in either case
local function uuid_text(bytes, r)
  local h = hex(bytes)
  local t = h:sub(1, 8) .. "-" .. h:sub(9, 12) .. "-" .. h:sub(13, 16) .. "-" .. h:sub(17, 20) .. "-" .. h:sub(21, 32)
  local mixed = r.below(3)
  if mixed == 1 then return h, t:upper() end
  if mixed == 2 then
    return h, (t:gsub("%x", function(ch) return r.chance(50) and ch:upper() or ch end))
  end
  return h, t
end
local function uuid_canon(h)
  return jq(h:sub(1, 8) .. "-" .. h:sub(9, 12) .. "-" .. h:sub(13, 16) .. "-" .. h:sub(17, 20) .. "-" .. h:sub(21, 32))
end
M.uuid = {
  cases = function(_, r)
    local c = {}
    for _, b in ipairs { string.rep("\0", 16), string.rep("\255", 16), "\1\35\69\103\137\171\205\239\254\220\186\152\118\84\50\16" } do
      local h, t = uuid_text(b, r)
      c[#c + 1] = txtcell(uuid_canon(h), t, r)
      c[#c + 1] = txtcell(uuid_canon(h), t:upper(), r)
    end
    return c
  end,
  gen = function(_, r)
    local b = {}
    for i = 1, 16 do b[i] = string.char(r.below(256)) end
    local h, t = uuid_text(table.concat(b), r)
    return txtcell(uuid_canon(h), t, r)
  end,
}

-- fixed(n): exactly n bytes of text
local PRINTABLE = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"
M.fixed = {
  cases = function(t, r)
    local c = {}
    local n = t.width
    for _, s in ipairs { string.rep(" ", n), string.rep(",", n), string.rep('"', n), ("é" .. string.rep("x", n)):sub(1, n) } do
      if #s == n and utf8.len(s) then c[#c + 1] = txtcell(jq(hex(s)), s, r) end
    end
    if n >= 4 then c[#c + 1] = txtcell(jq(hex("😀" .. string.rep("z", n - 4))), "😀" .. string.rep("z", n - 4), r) end
    if n >= 3 then c[#c + 1] = txtcell(jq(hex("日" .. string.rep("q", n - 3))), "日" .. string.rep("q", n - 3), r) end
    return c
  end,
  gen = function(t, r)
    local b = {}
    for i = 1, t.width do
      local k = r.below(#PRINTABLE) + 1
      b[i] = PRINTABLE:sub(k, k)
    end
    local s = table.concat(b)
    return txtcell(jq(hex(s)), s, r)
  end,
}

-- dates ------------------------------------------------------------------------------
local function date_cell(r, y, m, d, signed4)
  return txtcell('"' .. days_from_civil(y, m, d) .. '"', date_text(y, m, d, signed4), r)
end
local function rand_ymd(r, ylo, yhi)
  local y = r.range(ylo, yhi)
  local m = r.range(1, 12)
  return y, m, r.range(1, month_days(y, m))
end
M.date = {
  cases = function(_, r)
    local c = {}
    for _, v in ipairs {
      { 1970, 1, 1 }, { 1969, 12, 31 }, { 2000, 2, 29 }, { 1900, 2, 28 }, { 1900, 3, 1 }, { 2024, 2, 29 },
      { 1600, 2, 29 }, { 2100, 3, 1 }, { 1, 1, 1 }, { 9999, 12, 31 }, { 0, 2, 29 }, { 0, 1, 1 }, { -1, 12, 31 },
      { -4713, 11, 24 }, { 10000, 1, 1 }, { 275760, 9, 13 }, { -271821, 4, 20 }, { 1582, 10, 10 },
    } do
      c[#c + 1] = date_cell(r, v[1], v[2], v[3])
    end
    c[#c + 1] = date_cell(r, 2024, 3, 1, true)   -- "+2024-03-01"
    -- epoch day numbers
    for _, n in ipairs { 0, -1, 1, 19782, -719528, 2932896, -5000000, 5000000 } do
      c[#c + 1] = numcell('"' .. n .. '"', tostring(n), r)
    end
    c[#c + 1] = numcell('"42"', "+42", r)
    c[#c + 1] = numcell('"-42"', "-042", r)
    return c
  end,
  gen = function(_, r)
    local k = r.below(10)
    if k == 0 then
      local n = r.range(-1000000, 1000000)
      return numcell('"' .. n .. '"', tostring(n), r)
    end
    local y, m, d
    if k == 1 then y, m, d = rand_ymd(r, -9999, -1)
    elseif k == 2 then y, m, d = rand_ymd(r, 10000, 200000)
    else y, m, d = rand_ymd(r, 1, 9999) end
    return date_cell(r, y, m, d)
  end,
}

-- times --------------------------------------------------------------------------------
-- A time of day from parts: hh, mi, ss (nil: "HH:MM"), frac (digits).
local function time_of(unit, hh, mi, ss, frac)
  local text = string.format("%02d:%02d", hh, mi)
  if ss then
    text = text .. string.format(":%02d", ss)
    if frac and frac ~= "" then text = text .. "." .. frac end
  end
  local v = ((hh * 60 + mi) * 60 + (ss or 0)) * UNIT[unit] + frac_units(ss and frac or "", unit)
  return text, v
end
local function rand_frac(r, maxd)
  local n = r.below((maxd or 9) + 1)
  local t = {}
  for i = 1, n do t[i] = tostring(r.below(10)) end
  return table.concat(t)
end
M.time = {
  cases = function(t, r)
    local c = {}
    for _, v in ipairs {
      { 0, 0 }, { 0, 0, 0 }, { 0, 0, 0, "0" }, { 23, 59, 59, "999999999" }, { 23, 59, 59, "9999" }, { 12, 30 },
      { 0, 0, 0, "1" }, { 13, 14, 15, "123456789" }, { 1, 2, 3, "000000001" }, { 9, 8, 7, "65" },
      { 23, 59, 59 }, { 0, 0, 0, "0009" }, { 0, 0, 0, "0000009" },
    } do
      local text, val = time_of(t.unit, v[1], v[2], v[3], v[4])
      c[#c + 1] = txtcell('"' .. val .. '"', text, r)
    end
    return c
  end,
  gen = function(t, r)
    local ss = r.chance(90) and r.below(60) or nil
    local text, val = time_of(t.unit, r.below(24), r.below(60), ss, rand_frac(r))
    return txtcell('"' .. val .. '"', text, r)
  end,
}

-- timestamps --------------------------------------------------------------------------
-- From parts: y m d, hh mi ss (nil: no seconds) frac, sep ('T', 't', ' '),
-- zone: nil (none), "Z"/"z", or { sign, hh, mm, form = ":" | "" | "h" };
-- date_only: the date alone. The value: (local time - offset) in the unit.
local function timestamp_of(unit, p)
  local days = days_from_civil(p.y, p.m, p.d)
  local text = date_text(p.y, p.m, p.d, p.signed4)
  if p.date_only then return text, days * 86400 * UNIT[unit] end
  local ttext = string.format("%02d:%02d", p.hh, p.mi)
  if p.ss then
    ttext = ttext .. string.format(":%02d", p.ss)
    if p.frac and p.frac ~= "" then ttext = ttext .. "." .. p.frac end
  end
  local off, ztext = 0, ""
  if p.zone == "Z" or p.zone == "z" then ztext = p.zone
  elseif p.zone then
    local z = p.zone
    off = z[1] * (z[2] * 3600 + z[3] * 60)
    local sg = z[1] < 0 and "-" or "+"
    if z.form == ":" then ztext = string.format("%s%02d:%02d", sg, z[2], z[3])
    elseif z.form == "" then ztext = string.format("%s%02d%02d", sg, z[2], z[3])
    else ztext = string.format("%s%02d", sg, z[2]) end
  end
  local secs = days * 86400 + (p.hh * 60 + p.mi) * 60 + (p.ss or 0) - off
  return text .. (p.sep or "T") .. ttext .. ztext, secs * UNIT[unit] + frac_units(p.ss and p.frac or "", unit)
end
local function rand_zone(r)
  local k = r.below(9)
  if k == 0 then return nil end
  if k == 1 then return r.chance(80) and "Z" or "z" end
  local form = k <= 4 and ":" or k <= 7 and "" or "h"
  local sign = r.chance(50) and 1 or -1
  local hh, mm = r.below(24), form == "h" and 0 or r.below(60)
  if r.chance(50) then hh, mm = r.below(15), form == "h" and 0 or r.pick { 0, 30, 45 } end
  return { sign, hh, mm, form = form }
end
local function rand_ts_parts(r, ylo, yhi)
  local y, m, d = rand_ymd(r, ylo, yhi)
  local p = { y = y, m = m, d = d, hh = r.below(24), mi = r.below(60), ss = r.below(60), frac = rand_frac(r),
              sep = r.pick { "T", "T", "T", "t", " " }, zone = rand_zone(r) }
  if r.chance(5) then p.ss, p.frac = nil, nil end
  if r.chance(5) then p.date_only = true end
  return p
end
-- the years every unit holds (ns: int64 nanoseconds, 1677-09-21..2262-04-11)
local TS_YEARS = { ms = { 1, 9999 }, us = { 1, 9999 }, ns = { 1679, 2260 } }
local TS_EPOCH_BITS = { ms = 45, us = 55, ns = 62 }
M.timestamp = {
  cases = function(t, r)
    local c = {}
    local list = {
      { y = 1970, m = 1, d = 1, hh = 0, mi = 0, ss = 0, zone = "Z" },
      { y = 1970, m = 1, d = 1, hh = 0, mi = 0, ss = 0 },
      { y = 1969, m = 12, d = 31, hh = 23, mi = 59, ss = 59, frac = "999999999", zone = "Z" },
      { y = 1969, m = 12, d = 31, hh = 23, mi = 59, ss = 59, frac = "9999999", zone = { 1, 0, 0, form = ":" } },
      { y = 1969, m = 12, d = 31, hh = 23, mi = 59, ss = 59, frac = "5" },
      { y = 1960, m = 6, d = 15, hh = 12, mi = 0, ss = 0, frac = "0001", zone = { -1, 3, 0, form = "" } },
      { y = 2000, m = 2, d = 29, hh = 12, mi = 0, ss = 0, zone = { 1, 5, 30, form = ":" } },
      { y = 2024, m = 3, d = 10, hh = 2, mi = 30, ss = 0, zone = { -1, 8, 0, form = "" }, sep = " " },
      { y = 2024, m = 12, d = 31, hh = 23, mi = 59, ss = 59, frac = "5", zone = { -1, 23, 59, form = ":" } },
      { y = 2024, m = 1, d = 1, hh = 0, mi = 0, ss = 0, zone = { 1, 23, 59, form = "" } },
      { y = 2023, m = 7, d = 4, hh = 9, mi = 15, ss = 0, zone = { 1, 14, 0, form = "h" } },
      { y = 2023, m = 7, d = 4, hh = 9, mi = 15, ss = 0, zone = { -1, 12, 0, form = "h" } },
      { y = 1900, m = 1, d = 1, hh = 0, mi = 0, ss = 0, frac = "123", zone = "z", sep = "t" },
      { y = 2024, m = 2, d = 29, date_only = true },
      { y = 1969, m = 12, d = 31, date_only = true },
      { y = 2024, m = 6, d = 15, hh = 12, mi = 0 },
      { y = 2024, m = 6, d = 15, hh = 12, mi = 0, zone = "Z" },
      { y = 2024, m = 6, d = 15, hh = 12, mi = 0, ss = 1, frac = "1", sep = " ", zone = { 1, 1, 0, form = "h" } },
      { y = 2024, m = 6, d = 15, hh = 12, mi = 0, ss = 1, frac = "12" },
      { y = 2024, m = 6, d = 15, hh = 12, mi = 0, ss = 1, frac = "1234" },
      { y = 2024, m = 6, d = 15, hh = 12, mi = 0, ss = 1, frac = "12345" },
      { y = 2024, m = 6, d = 15, hh = 12, mi = 0, ss = 1, frac = "1234567" },
      { y = 2024, m = 6, d = 15, hh = 12, mi = 0, ss = 1, frac = "12345678" },
      { y = 2024, m = 6, d = 15, hh = 12, mi = 0, ss = 1, frac = "123456789", zone = { 1, 2, 0, form = ":" } },
      { y = 2024, m = 6, d = 15, hh = 12, mi = 0, ss = 1, frac = "000000000" },
      { y = 2024, m = 6, d = 15, hh = 12, mi = 0, ss = 0, signed4 = true, zone = "Z" },
      -- near the ends of int64 nanoseconds: INT64_MAX - 1, and the first
      -- midnight after INT64_MIN (DuckDB takes +-(2^63 - 1) for infinities
      -- and cannot convert the day before 1677-09-22)
      { y = 2262, m = 4, d = 11, hh = 23, mi = 47, ss = 16, frac = "854775806", zone = "Z" },
      { y = 1677, m = 9, d = 22, hh = 0, mi = 0, ss = 0, zone = "Z" },
      { y = 1, m = 1, d = 1, hh = 0, mi = 0, ss = 0, zone = { 1, 1, 0, form = ":" }, nons = true },
      { y = 9999, m = 12, d = 31, hh = 23, mi = 59, ss = 59, frac = "999999999", nons = true },
      { y = 1583, m = 1, d = 1, hh = 0, mi = 0, ss = 0, nons = true },
    }
    for _, p in ipairs(list) do
      if not (p.nons and t.unit == "ns") then
        local text, v = timestamp_of(t.unit, p)
        c[#c + 1] = txtcell('"' .. v .. '"', text, r)
      end
    end
    for _, n in ipairs { 0, -1, 1, 1710000000123, -86400001 } do c[#c + 1] = numcell('"' .. n .. '"', tostring(n), r) end
    c[#c + 1] = numcell('"7"', "+7", r)
    c[#c + 1] = { canon = '"-5"', nd = '"-5"' }
    return c
  end,
  gen = function(t, r)
    if r.chance(10) then
      local n = r.u64() >> (64 - TS_EPOCH_BITS[t.unit])
      if r.chance(50) then n = -n end
      return numcell('"' .. n .. '"', tostring(n), r)
    end
    local yl = TS_YEARS[t.unit]
    local text, v = timestamp_of(t.unit, rand_ts_parts(r, yl[1], yl[2]))
    return txtcell('"' .. v .. '"', text, r)
  end,
}

-- decimals -----------------------------------------------------------------------------
-- A decimal value: sign and unscaled digits (no leading zeros; "0" for
-- zero) at scale s. forms(k) gives the k-th text form of it.
local function dec_canon(neg, U, s)
  local padded = string.rep("0", s + 1 - #U) .. U
  local ip, fp = padded:sub(1, #padded - s), padded:sub(#padded - s + 1)
  ip = ip:gsub("^0+", "")
  if ip == "" then ip = "0" end
  return (neg and U ~= "0" and "-" or "") .. ip .. (s > 0 and "." .. fp or ""), ip, fp
end
local DEC_FORMS = 9
local function dec_text(neg, U, s, k)
  local _, ip, fp = dec_canon(neg, U, s)
  local sg = neg and "-" or ""
  if k == 1 then return sg .. ip .. "." .. fp end
  if k == 2 then   -- trailing zeros dropped (and the point, or a bare point)
    local f = fp:gsub("0+$", "")
    if f == "" then return sg .. ip .. (#U % 2 == 0 and "." or "") end
    return sg .. ip .. "." .. f
  end
  if k == 3 then return sg .. ip .. "." .. fp .. "000" end
  if k == 4 then return (neg and "-" or "+") .. "00" .. ip .. "." .. fp end
  if k == 5 then   -- no integer digits
    if ip == "0" then return sg .. "." .. fp end
    return sg .. ip .. "." .. fp
  end
  if k == 6 then return sg .. U .. "e-" .. s end
  if k == 7 or k == 8 then   -- scientific, trailing zeros of the mantissa dropped
    local digits = U:gsub("0+$", "")
    if digits == "" then digits = "0" end
    local e = #U - 1 - s
    local mant = digits:sub(1, 1) .. (#digits > 1 and "." .. digits:sub(2) or "")
    if k == 7 then return sg .. mant .. "e" .. e end
    return sg .. mant .. "E" .. (e >= 0 and "+" or "") .. e
  end
  return sg .. U .. "0e-" .. (s + 1)   -- k == 9
end
local function dec_cell(neg, U, s, k, r)
  return numcell(jq((dec_canon(neg, U, s))), dec_text(neg, U, s, k), r)
end
local function rand_digits(r, n)
  local t = { tostring(r.range(1, 9)) }
  for i = 2, n do t[i] = tostring(r.below(10)) end
  return table.concat(t)
end
M.decimal = {
  cases = function(t, r)
    local p, s = t.precision, t.scale
    local c = {}
    local values = {
      { false, string.rep("9", p) }, { true, string.rep("9", p) }, { false, "0" }, { true, "0" }, { false, "1" },
      { true, "1" }, { false, "5" .. string.rep("0", s - 1) }, { true, "25" }, { false, "1" .. string.rep("0", s + 3) },
      { false, "12345" }, { true, "100" }, { false, "1" .. string.rep("0", p - 1) },
    }
    for i, v in ipairs(values) do
      for k = 1, DEC_FORMS do
        if (i + k) % 3 == 0 or i <= 4 then c[#c + 1] = dec_cell(v[1], v[2], s, k, r) end
      end
    end
    return c
  end,
  gen = function(t, r)
    local U = r.chance(5) and "0" or rand_digits(r, r.range(1, t.precision))
    return dec_cell(r.chance(40), U, t.scale, r.range(1, DEC_FORMS), r)
  end,
}

-- ---------------------------------------------------------------------------
-- Columns

-- column(name, type [, { optional =, pnull = percent, all_null = }]). Its
-- values come from the type's cases (each used once, all of them: a file
-- with too few rows for them is an error), then its generator; c.cases and
-- c.gen replace them.
local function column(name, t, o)
  o = o or {}
  local m = M[t.tag]
  if not m then internal("no value maker for " .. t.tag) end
  local c = { name = name, t = t, optional = o.optional or o.all_null or false, all_null = o.all_null or false,
              pnull = o.pnull or ((o.optional or o.all_null) and 12 or 0), values = {}, pos = 1, gen = o.gen,
              cases = o.cases }
  function c:next(r, fmt)
    if not self.cases then self.cases = m.cases(self.t, r) end
    if self.all_null then return NULL end
    if self.optional and r.chance(self.pnull) then return NULL end
    while self.pos <= #self.cases and self.cases[self.pos][fmt] == nil do self.pos = self.pos + 1 end
    if self.pos <= #self.cases and r.chance(40) then
      local cell = self.cases[self.pos]
      self.pos = self.pos + 1
      return cell
    end
    if self.gen then return self.gen(r, fmt) end
    return m.gen(self.t, r, fmt)
  end
  function c:random(r, fmt)   -- a value (or null) past the cases
    if self.all_null or (self.optional and r.chance(self.pnull)) then return NULL end
    if self.gen then return self.gen(r, fmt) end
    return m.gen(self.t, r, fmt)
  end
  function c:record(cell) self.values[#self.values + 1] = cell.null and "null" or cell.canon end
  function c:check_cases(fmt, file)
    if self.all_null or not self.cases then return end
    while self.pos <= #self.cases and self.cases[self.pos][fmt] == nil do self.pos = self.pos + 1 end
    if self.pos <= #self.cases then
      internal(string.format("%s: column %s used only %d of its %d cases; give it more rows", file, self.name,
                             self.pos - 1, #self.cases))
    end
  end
  return c
end

-- ---------------------------------------------------------------------------
-- Inputs

-- CSV: spec = { rows, cols (schema order), layout (header order: { name =,
-- col = } or { name =, junk = fn(r) }; default: the columns), delim,
-- eol ("\n", "\r\n" or "mixed"), bom, header (default true), pre (lines
-- before anything), null_markers (texts to write nulls as; default { "" }),
-- blank_lines, no_final_eol, no_pad, quote (default '"'; "" for none: no
-- value may then need quotes), bad = { pct =, spoil = { [column index] =
-- fn(r) -> field text } } (bad records between the good ones: a good
-- record with one field spoilt, a field too many or too few, or a stray
-- quote; their count is returned) }
local function csv_quote_needed(text, delim, markers, q)
  if text == "" then return true end
  if text:find(delim, 1, true) or text:find(q, 1, true) or text:find("\r", 1, true) or text:find("\n", 1, true) then
    return true
  end
  for _, mk in ipairs(markers) do if text == mk then return true end end
  return false
end

-- Spaces around numbers, dates, times and flags are ignored (lua/README.md):
-- some of theirs get spaces (and tabs, where tab is not the delimiter).
local PAD_TYPES = {
  boolean = true, int8 = true, int16 = true, int32 = true, int64 = true, uint8 = true, uint16 = true, uint32 = true,
  uint64 = true, float = true, double = true, float16 = true, date = true, time = true, timestamp = true, decimal = true,
}
local function pad(r, tabs)
  local t = {}
  for i = 1, r.range(1, 3) do t[i] = (tabs and r.chance(30)) and "\t" or " " end
  return table.concat(t)
end
local function padded(r, text, tabs)
  local k = r.below(3)
  if k == 0 then return pad(r, tabs) .. text end
  if k == 1 then return text .. pad(r, tabs) end
  return pad(r, tabs) .. text .. pad(r, tabs)
end

local function build_csv(path, r, spec)
  local delim = spec.delim or ","
  local markers = spec.null_markers or { "" }
  local layout = spec.layout
  if not layout then
    layout = {}
    for i, c in ipairs(spec.cols) do layout[i] = { name = c.name, col = c } end
  end
  local out = {}
  local function eol()
    if spec.eol == "mixed" then return r.chance(50) and "\r\n" or "\n" end
    return spec.eol or "\n"
  end
  if spec.bom then out[#out + 1] = "\xEF\xBB\xBF" end
  for _, l in ipairs(spec.pre or {}) do out[#out + 1] = l .. eol() end
  local q = spec.quote or '"'
  if spec.header ~= false then
    local names = {}
    for i, e in ipairs(layout) do names[i] = (q ~= "" and r.chance(20)) and q .. e.name .. q or e.name end
    out[#out + 1] = table.concat(names, delim) .. eol()
  end
  local function fields(cells)
    local f = {}
    for k, e in ipairs(layout) do
      if e.col then
        local cell = cells[e.col]
        local text = cell.csv
        if not cell.null and not spec.no_pad and PAD_TYPES[e.col.t.tag] and r.chance(4) then text = padded(r, text, delim ~= "\t") end
        if cell.null then f[k] = r.pick(markers)
        elseif cell.raw or q == "" then f[k] = text
        elseif cell.quote or csv_quote_needed(text, delim, markers, q) or r.chance(8) then
          f[k] = q .. text:gsub(q, q .. q) .. q
        else f[k] = text end
      else
        f[k] = e.junk(r)
      end
    end
    return f
  end
  local nbad = 0
  for i = 1, spec.rows do
    while spec.bad and r.chance(spec.bad.pct) do
      -- a bad record: random values (the cases are kept for good ones)
      -- (no line breaks in it: after an error the reader resumes at the
      -- next line)
      local cells, broken
      repeat
        cells, broken = {}, false
        for _, c in ipairs(spec.cols) do
          cells[c] = c:random(r, "csv")
          if cells[c].csv and cells[c].csv:find("[\r\n]") then broken = true end
        end
      until not broken
      local f = fields(cells)
      local spoil = {}
      for k in pairs(spec.bad.spoil) do spoil[#spoil + 1] = k end
      table.sort(spoil)
      local k = r.below(#spoil + 3) + 1
      if k <= #spoil then f[spoil[k]] = spec.bad.spoil[spoil[k]](r)
      elseif k == #spoil + 1 then f[#f] = nil
      elseif k == #spoil + 2 then f[#f + 1] = "1"
      elseif q ~= "" then f[1] = q .. "x" .. q .. "y"   -- a character after the closing quote
      else f[#f + 1] = "2" end
      out[#out + 1] = table.concat(f, delim) .. eol()
      nbad = nbad + 1
    end
    local cells = {}
    for _, c in ipairs(spec.cols) do
      local cell = c:next(r, "csv")
      c:record(cell)
      cells[c] = cell
    end
    out[#out + 1] = table.concat(fields(cells), delim)
    if i < spec.rows or not spec.no_final_eol then
      out[#out + 1] = eol()
      if spec.blank_lines and i < spec.rows and r.chance(3) then out[#out + 1] = eol() end
    end
  end
  for _, c in ipairs(spec.cols) do c:check_cases("csv", path) end
  write_file(path, table.concat(out))
  return nbad
end

-- NDJSON: spec = { rows, cols, shuffle, missing (percent of nulls left
-- out rather than written as null), extras, dup (percent of lines with a
-- repeated key, the last one winning), escaped_keys, blank_lines, crlf
-- (percent of lines), no_final_eol, no_pad, bad = { pct =, spoil = {
-- [column name] = fn(r) -> JSON text } } (bad lines between the good
-- ones: their count is returned) }
local EXTRA_VALUES = { '"ignored"', "12", '{"x":[1,{"y":null}]}', "[]", "null", "true", '"\\u00e9\\n"' }
local function build_ndjson(path, r, spec)
  local out = {}
  local nbad = 0
  for i = 1, spec.rows do
    while spec.bad and r.chance(spec.bad.pct) do
      -- a bad line: random values with one spoilt, or broken JSON
      local members, spoilt = {}, false
      local names = {}
      for k in pairs(spec.bad.spoil) do names[#names + 1] = k end
      table.sort(names)
      local target = r.pick(names)
      for _, c in ipairs(spec.cols) do
        local cell = c:random(r, "nd")
        if c.name == target then members[#members + 1] = jq(c.name) .. ":" .. spec.bad.spoil[c.name](r) spoilt = true
        elseif not cell.null then members[#members + 1] = jq(c.name) .. ":" .. cell.nd end
      end
      local line = "{" .. table.concat(members, ",") .. "}"
      local k = r.below(5)
      if k == 0 then line = line:sub(1, #line - 1)                 -- no closing brace
      elseif k == 1 then line = line:sub(1, #line - 1) .. ",}"   -- a trailing comma
      elseif k == 2 then line = "[" .. line .. "]" end           -- not an object
      assert(spoilt)
      out[#out + 1] = line .. "\n"
      nbad = nbad + 1
    end
    local members = {}
    for _, c in ipairs(spec.cols) do
      local cell = c:next(r, "nd")
      c:record(cell)
      if cell.null then
        if not r.chance(spec.missing or 50) then members[#members + 1] = { c.name, "null" } end
      else
        local v = cell.nd
        if not spec.no_pad and PAD_TYPES[c.t.tag] and v:sub(1, 1) == '"' and r.chance(5) then
          v = '"' .. padded(r, v:sub(2, -2), false) .. '"'
        end
        members[#members + 1] = { c.name, v, col = c }
      end
    end
    if spec.extras and r.chance(30) then
      members[#members + 1] = { "_extra" .. r.below(3), r.pick(EXTRA_VALUES) }
    end
    if spec.shuffle then r.shuffle(members) end
    if spec.dup and r.chance(spec.dup) and #members > 0 then
      -- an earlier member with the same key; the later value wins
      local k = r.below(#members) + 1
      local m = members[k]
      if m.col then
        local v = m.col.gen and m.col.gen(r, "nd") or M[m.col.t.tag].gen(m.col.t, r, "nd")
        if not v.null and v.nd then table.insert(members, r.below(k) + 1, { m[1], v.nd }) end
      end
    end
    local style = r.below(4)
    local parts = {}
    for k, m in ipairs(members) do
      local key = jq(m[1])
      if spec.escaped_keys and r.chance(10) then key = jstr(m[1], r) end
      if style == 0 then parts[k] = key .. ":" .. m[2]
      elseif style == 1 then parts[k] = key .. ": " .. m[2]
      elseif style == 2 then parts[k] = key .. " : " .. m[2]
      else parts[k] = key .. "\t:\t" .. m[2] end
    end
    local line
    if style == 0 then line = "{" .. table.concat(parts, ",") .. "}"
    elseif style == 1 then line = "{" .. table.concat(parts, ", ") .. "}"
    elseif style == 2 then line = "{ " .. table.concat(parts, " , ") .. " }"
    else line = " {\t" .. table.concat(parts, " ,") .. "} " end
    out[#out + 1] = line
    if i < spec.rows or not spec.no_final_eol then
      out[#out + 1] = (spec.crlf and r.chance(spec.crlf)) and "\r\n" or "\n"
      if spec.blank_lines and r.chance(2) then out[#out + 1] = r.pick { "\n", "   \n", "\t\n", "\r\n" } end
    end
  end
  for _, c in ipairs(spec.cols) do c:check_cases("nd", path) end
  write_file(path, table.concat(out))
  return nbad
end

-- ---------------------------------------------------------------------------
-- The expected file (fixtures.c's JSON)

-- The writer's defaults (inlay.h, INLAY_DEFAULT_*): `inlay convert` and
-- inlay.open without options write with them.
local DEFAULTS = { page_rows = 20000, page_bytes = 1048576, row_group_rows = 1048576, dictionary_bytes = 1048576 }
local function row_groups(rows) return (rows + DEFAULTS.row_group_rows - 1) // DEFAULTS.row_group_rows end

local function write_spec(name, rows, compression, wr, cols)
  local t = {}
  local function add(s) t[#t + 1] = s end
  add(string.format('{\n"name":%s,\n"rows":%d,\n"compression":"%s",\n"encoding":"auto",\n', jq(name), rows, compression))
  add(string.format('"options":{"page_rows":%d,"page_bytes":%d,"row_group_rows":%d,"dictionary_bytes":%d,' ..
                    '"page_version":1,"column_at_a_time":false,"append_columns":true,"memory_sink":false},\n',
                    DEFAULTS.page_rows, DEFAULTS.page_bytes, DEFAULTS.row_group_rows, DEFAULTS.dictionary_bytes))
  add(string.format('"expect":{"row_groups":%d},\n', row_groups(rows)))
  add(string.format('"writer":{"rows":%d,"row_groups":%d,"bytes":%d},\n', wr.rows, wr.row_groups, wr.bytes))
  add(string.format('"created_by":%s,\n', jq("inlay version " .. inlay.version)))
  add('"columns":[\n')
  for i, c in ipairs(cols) do
    if #c.values ~= rows then internal(string.format("%s: column %s has %d values, expected %d", name, c.name, #c.values, rows)) end
    local all_null = true
    for _, v in ipairs(c.values) do if v ~= "null" then all_null = false break end end
    add(string.format('%s{"name":%s,%s,"nullable":%s,"all_null":%s,"encoding":"auto","pages":"any","values":[',
                      i > 1 and ",\n" or "", jq(c.name), type_json(c.t), tostring(c.optional), tostring(all_null)))
    for k, v in ipairs(c.values) do
      if k > 1 then add(k % 16 == 1 and ",\n" or ",") end
      add(v)
    end
    add("]}")
  end
  add("\n]\n}\n")
  write_file(OUT .. "/" .. name .. ".json", table.concat(t))
end

-- ---------------------------------------------------------------------------
-- Conversions

local failures = {}
local written = 0

local function fail(name, msg)
  failures[#failures + 1] = name
  io.stderr:write(string.format("FAIL %s: %s\n", name, msg))
end

local function schema_of(cols)
  local fields = {}
  for i, c in ipairs(cols) do fields[i] = { c.name, c.t.lua, optional = c.optional or nil } end
  return inlay.schema(fields)
end

-- Through the Lua API, with the library's default writer options.
local function convert_api(name, input, cols, rows, opts)
  local ok, err = pcall(function()
    local schema = schema_of(cols)
    local o = { schema = schema }
    for k, v in pairs(opts or {}) do if k ~= "skipped" then o[k] = v end end
    local src <close> = inlay.source(input, o)
    local out = OUT .. "/" .. name .. ".parquet"
    os.remove(out)
    local w <close> = inlay.open(out, schema)
    local summary = src:write(w, { progress = false })
    local info = w:close()
    src:close()
    local skipped = opts and opts.on_error == "skip" and opts.skipped or 0
    if summary.rows_out ~= rows or summary.skipped ~= skipped then
      error(string.format("%d rows written, %d skipped; the input has %d good and %d bad records", summary.rows_out,
                          summary.skipped, rows, skipped), 0)
    end
    if opts and opts.reject then
      local n = 0
      for l in io.lines(opts.reject) do
        n = n + 1
        if not l:find("\t", 1, true) then error("reject file line without a tab: " .. l, 0) end
      end
      if n ~= skipped then error(string.format("the reject file has %d lines, expected %d", n, skipped), 0) end
    end
    if info.rows ~= rows then error(string.format("the writer reports %d rows, expected %d", info.rows, rows), 0) end
    if file_size(out) ~= info.bytes then error("the file size differs from the writer's bytes", 0) end
    write_spec(name, rows, "ZSTD", info, cols)
  end)
  if ok then
    written = written + 1
    print(string.format("convert_fixtures: %-22s %5d rows  %s", name, rows, input:match("[^/]*$")))
  else
    fail(name, tostring(err))
  end
end

-- Through `inlay convert IN OUT ARGS...`. cols: the schema the output must
-- have (given with --schema, or the one --infer must find).
local function convert_cli(name, input, cols, rows, args, compression)
  local out = OUT .. "/" .. name .. ".parquet"
  os.remove(out)
  local cmd = { shq(INLAY_BIN), "convert", shq(input), shq(out) }
  for _, a in ipairs(args) do cmd[#cmd + 1] = shq(a) end
  local line = table.concat(cmd, " ")
  local ok = os.execute(line)
  if not ok then return fail(name, "command failed: " .. line) end
  local bytes = file_size(out)
  if not bytes then return fail(name, "no output from: " .. line) end
  write_spec(name, rows, compression or "ZSTD", { rows = rows, row_groups = row_groups(rows), bytes = bytes }, cols)
  written = written + 1
  print(string.format("convert_fixtures: %-22s %5d rows  %s (inlay convert %s)", name, rows, input:match("[^/]*$"),
                      table.concat(args, " ")))
end

local function schema_file(name, cols)
  local t = { "-- the schema of " .. name .. " (written by convert_fixtures.lua)", "return inlay.schema {" }
  for _, c in ipairs(cols) do
    t[#t + 1] = string.format("  { %q, %s%s },", c.name, c.t.src, c.optional and ", optional = true" or "")
  end
  t[#t + 1] = "}"
  local path = OUT .. "/" .. name .. ".schema.lua"
  write_file(path, table.concat(t, "\n") .. "\n")
  return path
end

local function have_tool(tool)
  return os.execute("command -v " .. tool .. " >/dev/null 2>&1") == true
end

local function P(file) return OUT .. "/" .. file end

-- ---------------------------------------------------------------------------
-- The files

-- A text column with one value of 1.3 MB (longer than the readers' first
-- buffers), quotes and line breaks in it, among short ones.
local function big_column()
  local parts = {}
  for i = 1, 50000 do parts[i] = string.format("%06d é \"quoted\", line\n", i) end
  local big = "«" .. table.concat(parts) .. "»"
  local c = column("big", T.string, { optional = true })
  c.cases = { { canon = jq(big), csv = big, nd = jq(big) } }
  c.gen = function(rr) local s = rand_words(rr, 3) return txtcell(jq(s), s, rr) end
  return c
end

-- Booleans and every integer width, required and optional; blank lines.
do
  local name = "csv_bool_int"
  local r = new_rng(name)
  local cols = {
    column("b", T.boolean), column("b_opt", T.boolean, { optional = true }),
    column("i8", T.int8), column("i16", T.int16), column("i32", T.int32), column("i64", T.int64),
    column("u8", T.uint8), column("u16", T.uint16), column("u32", T.uint32), column("u64", T.uint64),
    column("i8_opt", T.int8, { optional = true }), column("i64_opt", T.int64, { optional = true, pnull = 30 }),
    column("u64_opt", T.uint64, { optional = true }),
  }
  build_csv(P(name .. ".csv"), r, { rows = 2000, cols = cols, blank_lines = true })
  convert_api(name, P(name .. ".csv"), cols, 2000)
end

-- float, double, float16; CRLF line ends.
do
  local name = "csv_floats"
  local r = new_rng(name)
  local cols = {
    column("f", T.float), column("d", T.double), column("h", T.float16),
    column("f_opt", T.float, { optional = true }), column("d_opt", T.double, { optional = true }),
    column("h_opt", T.float16, { optional = true }),
  }
  build_csv(P(name .. ".csv"), r, { rows = 2500, cols = cols, eol = "\r\n" })
  convert_api(name, P(name .. ".csv"), cols, 2500)
end

-- Text types: every quoting case, CRLF line ends, a BOM.
do
  local name = "csv_text"
  local r = new_rng(name)
  local cols = {
    column("s", T.string), column("s_opt", T.string, { optional = true, pnull = 20 }),
    column("bin", T.binary), column("e", T.enum, { optional = true }), column("j", T.json),
    column("u", T.uuid), column("u_opt", T.uuid, { optional = true }),
    column("fx4", T.fixed(4)), column("fx6", T.fixed(6), { optional = true }), big_column(),
  }
  build_csv(P(name .. ".csv"), r, { rows = 1500, cols = cols, eol = "\r\n", bom = true })
  convert_api(name, P(name .. ".csv"), cols, 1500, { batch_rows = 97 })
end

-- Dates, times and timestamps of every unit; mixed line ends, no newline
-- after the last record.
do
  local name = "csv_time"
  local r = new_rng(name)
  local cols = {
    column("day", T.date), column("day_opt", T.date, { optional = true }),
    column("t_ms", T.time("ms")), column("t_us", T.time("us")), column("t_ns", T.time("ns")),
    column("t_ms_utc", T.time("ms", true), { optional = true }),
    column("ts_ms", T.timestamp("ms")), column("ts_us", T.timestamp("us")), column("ts_ns", T.timestamp("ns")),
    column("ts_ms_utc", T.timestamp("ms", true)), column("ts_us_utc", T.timestamp("us", true)),
    column("ts_ns_utc", T.timestamp("ns", true), { optional = true }),
  }
  build_csv(P(name .. ".csv"), r, { rows = 3000, cols = cols, eol = "mixed", no_final_eol = true })
  convert_api(name, P(name .. ".csv"), cols, 3000, { batch_rows = 1000 })
end

-- Decimals from exact text.
do
  local name = "csv_decimal"
  local r = new_rng(name)
  local cols = {
    column("d9", T.decimal(9, 2)), column("d18", T.decimal(18, 4)), column("d38", T.decimal(38, 10)),
    column("d9_opt", T.decimal(9, 2), { optional = true }), column("d38_opt", T.decimal(38, 10), { optional = true }),
  }
  build_csv(P(name .. ".csv"), r, { rows = 2000, cols = cols })
  convert_api(name, P(name .. ".csv"), cols, 2000)
end

-- Null markers "NULL" and "\N": an empty field is then an empty string,
-- a quoted "NULL" a string.
do
  local name = "csv_nulls"
  local r = new_rng(name)
  local markers = { "NULL", "\\N" }
  local cols = {
    column("id", T.int32),
    column("s", T.string, { optional = true, pnull = 25 }),
    column("s_req", T.string),
    column("n", T.int64, { optional = true, pnull = 30 }),
    column("d", T.double, { optional = true }),
    column("day", T.date, { optional = true }),
    column("ts", T.timestamp("us", true), { optional = true }),
    column("flag", T.boolean, { optional = true }),
    column("dec", T.decimal(18, 4), { optional = true }),
  }
  -- s_req: the empty field is "" here; the markers, quoted, are text
  cols[3].cases = {
    { canon = jq(""), csv = "", raw = true }, { canon = jq("NULL"), csv = "NULL", quote = true },
    { canon = jq("\\N"), csv = "\\N", quote = true }, { canon = jq("null"), csv = "null" },
  }
  cols[1].gen = function(rr) local v = rr.range(-1000000, 1000000) return numcell('"' .. v .. '"', tostring(v), rr) end
  build_csv(P(name .. ".csv"), r, { rows = 1000, cols = cols, null_markers = markers })
  convert_api(name, P(name .. ".csv"), cols, 1000, { nulls = markers, batch_rows = 1 })
end

-- A header in another order than the schema, with columns the schema does
-- not have (among them quoted multi-line text) and without one of its
-- optional columns (all null).
do
  local name = "csv_reordered"
  local r = new_rng(name)
  local id = column("id", T.int32)
  local nm = column("name", T.string)
  local ts = column("ts", T.timestamp("us", true))
  local amt = column("amount", T.decimal(18, 4), { optional = true })
  local flag = column("flag", T.boolean)
  local gone = column("missing", T.int64, { all_null = true })
  local day = column("day", T.date, { optional = true })
  local cols = { id, nm, ts, amt, flag, gone, day }
  local function junk(rr)
    local s = rand_words(rr, 4)
    if rr.chance(20) then s = s .. "\n" .. rand_words(rr, 2) end
    if s == "" or s:find('[,"\n]') then return '"' .. s:gsub('"', '""') .. '"' end
    return s
  end
  local layout = {
    { name = "flag", col = flag }, { name = "extra1", junk = junk }, { name = "ts", col = ts },
    { name = "day", col = day }, { name = "name", col = nm }, { name = "extra2", junk = junk },
    { name = "id", col = id }, { name = "amount", col = amt }, { name = "extra3", junk = function() return "" end },
  }
  build_csv(P(name .. ".csv"), r, { rows = 1200, cols = cols, layout = layout })
  convert_api(name, P(name .. ".csv"), cols, 1200)
end

-- A TSV (tab by extension): commas are data, tabs need quotes.
do
  local name = "tsv_basic"
  local r = new_rng(name)
  local cols = {
    column("id", T.int64), column("text", T.string), column("score", T.double),
    column("day", T.date), column("h", T.float16, { optional = true }), column("tag", T.enum, { optional = true }),
  }
  build_csv(P(name .. ".tsv"), r, { rows = 1000, cols = cols, delim = "\t" })
  convert_api(name, P(name .. ".tsv"), cols, 1000)
end

-- Three lines skipped before the header (one with an unbalanced quote);
-- null markers "" and '""': a quoted empty field is null too.
do
  local name = "csv_skip"
  local r = new_rng(name)
  local cols = { column("a", T.int16), column("b", T.string, { optional = true }), column("c", T.uuid),
                 column("d", T.date, { optional = true }) }
  cols[2].cases = { { canon = "null", csv = "", quote = true }, { canon = jq("x"), csv = "x" },
                    { canon = jq('""'), csv = '""' }, { canon = jq(" "), csv = " ", quote = true } }
  cols[2].gen = function(rr)
    if rr.chance(10) then return { canon = "null", csv = "", quote = true } end
    local s = rand_words(rr, 4)
    if s == "" then s = "-" end
    return txtcell(jq(s), s, rr)
  end
  cols[4].cases = { { canon = "null", csv = "", quote = true } }
  build_csv(P(name .. ".csv"), r, {
    rows = 600, cols = cols,
    pre = { "# exported by a tool that writes a preamble", '# note: "an unbalanced quote', "junk,line,with,commas,,," },
  })
  convert_api(name, P(name .. ".csv"), cols, 600, { skip = 3, nulls = { "", '""' } })
end

-- Quotes: single quotes (quote = "'"), and none at all in a TSV (quote = "").
do
  local name = "csv_squote"
  local r = new_rng(name)
  local cols = { column("s", T.string), column("n", T.int32), column("t", T.string, { optional = true }),
                 column("ts", T.timestamp("ms")) }
  build_csv(P(name .. ".csv"), r, { rows = 800, cols = cols, quote = "'" })
  convert_api(name, P(name .. ".csv"), cols, 800, { quote = "'" })
end
do
  local name = "tsv_noquote"
  local r = new_rng(name)
  local function words(rr)
    local t = {}
    for i = 1, rr.range(1, 5) do t[i] = rr.pick(WORDS):gsub("\t", " ") end
    local s = table.concat(t, " ")
    if rr.chance(20) then s = '"' .. s .. '"' end   -- quotes are data
    if rr.chance(10) then s = s .. '"' end
    return s
  end
  local cols = { column("id", T.int32), column("s", T.string), column("o", T.string, { optional = true }),
                 column("d", T.double), column("day", T.date, { optional = true }) }
  for _, k in ipairs { 2, 3 } do
    cols[k].cases = { { canon = jq('"'), csv = '"' }, { canon = jq('""'), csv = '""' }, { canon = jq("'"), csv = "'" } }
    cols[k].gen = function(rr) local s = words(rr) return { canon = jq(s), csv = s } end
  end
  build_csv(P(name .. ".tsv"), r, { rows = 800, cols = cols, quote = "", delim = "\t" })
  convert_api(name, P(name .. ".tsv"), cols, 800, { quote = "" })
end

-- Bad records skipped (on_error = "skip"), each written to the reject
-- file: among good ones, records that fail at every column (after text and
-- binary values of the same record were taken), with a field too many or
-- too few, a stray quote; in NDJSON, values of the wrong type and broken
-- lines. Only the good records are in the file.
do
  local name = "csv_rejects"
  local r = new_rng(name)
  local cols = {
    column("s", T.string), column("bin", T.binary, { optional = true }), column("n", T.int32),
    column("u", T.string, { optional = true }), column("dec", T.decimal(9, 2), { optional = true }),
    column("day", T.date), column("ts", T.timestamp("us", true)), column("fx", T.fixed(3)), column("last", T.string),
  }
  local bad = { pct = 8, spoil = {
    [3] = function(rr) return rr.pick { "12x", "99999999999", "", "1.5", "--1" } end,
    [4] = function() return "\xff\xfebad" end,
    [5] = function(rr) return rr.pick { "1.234", "100000000", "1e9", "abc" } end,
    [6] = function(rr) return rr.pick { "2023-02-29", "2024-13-01", "2024-1-1", "" } end,
    [7] = function(rr) return rr.pick { "2024-01-01T24:00:00Z", "2024-01-01T10:00:00+24:00", "yesterday", "" } end,
    [8] = function(rr) return rr.pick { "abcd", "ab", "" } end,
    [9] = function() return "\xc3" end,
  } }
  local nbad = build_csv(P(name .. ".csv"), r, { rows = 1500, cols = cols, bad = bad })
  convert_api(name, P(name .. ".csv"), cols, 1500,
              { on_error = "skip", reject = P(name .. ".rejects"), skipped = nbad, batch_rows = 211 })
end
do
  local name = "nd_rejects"
  local r = new_rng(name)
  local cols = {
    column("s", T.string), column("j", T.json, { optional = true }), column("n", T.int64),
    column("f", T.float, { optional = true }), column("day", T.date), column("ok", T.boolean),
    column("u", T.uuid, { optional = true }), column("last", T.binary),
  }
  local bad = { pct = 8, spoil = {
    j = function(rr) return rr.pick { '"a string"', '"{}"' } end,
    n = function(rr) return rr.pick { '"12x"', "1.5", "1e3", "{}", "[1]", "null", "true", "18446744073709551615" } end,
    f = function(rr) return rr.pick { '"x"', "1e39", "[]" } end,
    day = function(rr) return rr.pick { '"2023-02-29"', "1.5", "null", "false" } end,
    ok = function(rr) return rr.pick { '"maybe"', "2", "null", '"on"' } end,
    u = function(rr) return rr.pick { '"not-a-uuid"', "12", '"12345678-1234-1234-1234-12345678901"' } end,
    last = function() return "null" end,
  } }
  local nbad = build_ndjson(P(name .. ".ndjson"), r, { rows = 1500, cols = cols, shuffle = true, bad = bad })
  convert_api(name, P(name .. ".ndjson"), cols, 1500,
              { on_error = "skip", reject = P(name .. ".rejects"), skipped = nbad, batch_rows = 128 })
end

-- Inputs without records: a CSV header alone, and NDJSON of blank lines.
do
  local cols = { column("a", T.int32), column("b", T.string, { optional = true }) }
  write_file(P("csv_empty.csv"), "a,b\r\n")
  convert_api("csv_empty", P("csv_empty.csv"), cols, 0)
  cols = { column("a", T.int32), column("b", T.string, { optional = true }) }
  write_file(P("nd_empty.ndjson"), "\n  \n\t\n")
  convert_api("nd_empty", P("nd_empty.ndjson"), cols, 0)
end

-- Compressed inputs.
local function mixed_cols()
  return {
    column("id", T.int32), column("name", T.string), column("v", T.double, { optional = true }),
    column("day", T.date), column("t", T.time("us")), column("flag", T.boolean),
    column("ts", T.timestamp("ns", true)), column("amt", T.decimal(9, 2), { optional = true }),
  }
end
do
  local name = "csv_gzip"
  local r = new_rng(name)
  local cols = mixed_cols()
  local plain = P(name .. ".csv")
  build_csv(plain, r, { rows = 1500, cols = cols })
  if have_tool("gzip") then
    os.remove(plain .. ".gz")
    if os.execute("gzip -k -n -f " .. shq(plain)) then convert_api(name, plain .. ".gz", cols, 1500)
    else fail(name, "gzip failed") end
  else
    print("convert_fixtures: gzip not found: " .. name .. " left out")
  end
end
do
  local name = "csv_zstd"
  local r = new_rng(name)
  local cols = mixed_cols()
  local plain = P(name .. ".csv")
  build_csv(plain, r, { rows = 1500, cols = cols })
  if have_tool("zstd") then
    if os.execute("zstd -q -f " .. shq(plain) .. " -o " .. shq(plain .. ".zst")) then
      convert_api(name, plain .. ".zst", cols, 1500)
    else
      fail(name, "zstd failed")
    end
  else
    print("convert_fixtures: the zstd command is not installed: " .. name .. " (a .csv.zst input) left out")
  end
end

-- NDJSON with every type: keys in any order, nulls written or left out,
-- extra keys, repeated keys, blank lines, CRLF.
local function all_types_cols()
  return {
    column("b", T.boolean), column("b_opt", T.boolean, { optional = true }),
    column("i8", T.int8), column("i16", T.int16, { optional = true }), column("i32", T.int32), column("i64", T.int64),
    column("u8", T.uint8), column("u16", T.uint16), column("u32", T.uint32, { optional = true }), column("u64", T.uint64),
    column("f", T.float), column("d", T.double, { optional = true }), column("h", T.float16),
    column("s", T.string, { optional = true }), column("bin", T.binary), column("e", T.enum),
    column("j", T.json, { optional = true }), column("u", T.uuid), column("fx", T.fixed(5)),
    column("day", T.date), column("t_ms", T.time("ms")), column("t_ns", T.time("ns"), { optional = true }),
    column("ts_ms", T.timestamp("ms", true)), column("ts_us", T.timestamp("us")), column("ts_ns", T.timestamp("ns", true)),
    column("d9", T.decimal(9, 2)), column("d18", T.decimal(18, 4), { optional = true }), column("d38", T.decimal(38, 10)),
  }
end
do
  local name = "nd_all"
  local r = new_rng(name)
  local cols = all_types_cols()
  build_ndjson(P(name .. ".ndjson"), r, { rows = 2500, cols = cols, shuffle = true, extras = true, dup = 3,
                                          blank_lines = true, crlf = 10 })
  convert_api(name, P(name .. ".ndjson"), cols, 2500, { batch_rows = 333 })
end

-- NDJSON text: json columns of objects and arrays, binary columns taking
-- objects, strings with every escape, keys written with escapes.
do
  local name = "nd_text"
  local r = new_rng(name)
  local cols = {
    column("id", T.int64), column("s", T.string), column("j", T.json), column("j_opt", T.json, { optional = true, pnull = 30 }),
    column("bin", T.binary, { optional = true }), column("e", T.enum), column("u", T.uuid, { optional = true }),
    big_column(),
  }
  cols[1].gen = function(rr) local v = rr.range(0, 1 << 40) return numcell('"' .. v .. '"', tostring(v), rr) end
  build_ndjson(P(name .. ".jsonl"), r, { rows = 1500, cols = cols, shuffle = true, escaped_keys = true, missing = 70,
                                         no_final_eol = true })
  convert_api(name, P(name .. ".jsonl"), cols, 1500)
end

-- Compressed NDJSON, each in two pieces compressed apart and concatenated
-- (a gzip file of two members; a zstd stream of two frames, compressed
-- from a pipe, so without their content size), split inside a line.
local function split_compress(plain, out, cmd)
  local f = assert(io.open(plain, "rb"))
  local data = f:read("a")
  f:close()
  local cut = #data * 2 // 5
  write_file(plain .. ".part1", data:sub(1, cut))
  write_file(plain .. ".part2", data:sub(cut + 1))
  local ok = os.execute(string.format("%s < %s > %s && %s < %s >> %s", cmd, shq(plain .. ".part1"), shq(out), cmd,
                                      shq(plain .. ".part2"), shq(out)))
  os.remove(plain .. ".part1")
  os.remove(plain .. ".part2")
  return ok
end
do
  local name = "nd_gzip"
  local r = new_rng(name)
  local cols = mixed_cols()
  local plain = P(name .. ".ndjson")
  build_ndjson(plain, r, { rows = 1500, cols = cols, shuffle = true })
  if have_tool("gzip") then
    if split_compress(plain, plain .. ".gz", "gzip -n -c") then convert_api(name, plain .. ".gz", cols, 1500)
    else fail(name, "gzip failed") end
  else
    print("convert_fixtures: gzip not found: " .. name .. " left out")
  end
end
do
  local name = "nd_zstd"
  local r = new_rng(name)
  local cols = mixed_cols()
  local plain = P(name .. ".jsonl")
  build_ndjson(plain, r, { rows = 1500, cols = cols })
  if have_tool("zstd") then
    if split_compress(plain, plain .. ".zst", "zstd -q -c") then convert_api(name, plain .. ".zst", cols, 1500)
    else fail(name, "zstd failed") end
  else
    print("convert_fixtures: the zstd command is not installed: " .. name .. " (a .jsonl.zst input) left out")
  end
end

-- ---------------------------------------------------------------------------
-- Through `inlay convert`

-- --schema, --nulls NA and the empty field, --compression uncompressed.
do
  local name = "cli_schema"
  local r = new_rng(name)
  local cols = {
    column("id", T.int64), column("label", T.string, { optional = true }), column("qty", T.int16, { optional = true }),
    column("price", T.decimal(9, 2), { optional = true }), column("at", T.timestamp("ms", true), { optional = true }),
    column("ok", T.boolean), column("ratio", T.float, { optional = true }),
  }
  build_csv(P(name .. ".csv"), r, { rows = 1000, cols = cols, null_markers = { "NA", "" } })
  convert_cli(name, P(name .. ".csv"), cols, 1000,
              { "--schema", schema_file(name, cols), "--nulls", "NA,", "--compression", "uncompressed", "--quiet" },
              "UNCOMPRESSED")
end

-- --no-header --delimiter ';' on a .txt: columns by position.
do
  local name = "cli_noheader"
  local r = new_rng(name)
  local cols = {
    column("k", T.uint32), column("v", T.double), column("word", T.string, { optional = true }),
    column("when", T.timestamp("us")), column("code", T.fixed(3)),
  }
  build_csv(P(name .. ".txt"), r, { rows = 800, cols = cols, delim = ";", header = false })
  convert_cli(name, P(name .. ".txt"), cols, 800,
              { "--schema", schema_file(name, cols), "--no-header", "--delimiter", ";", "--quiet" })
end

-- --format ndjson on a .txt.
do
  local name = "cli_format"
  local r = new_rng(name)
  local cols = {
    column("n", T.int32), column("x", T.double, { optional = true }), column("s", T.string, { optional = true }),
    column("j", T.json, { optional = true }), column("day", T.date),
  }
  build_ndjson(P(name .. ".txt"), r, { rows = 800, cols = cols, shuffle = true })
  convert_cli(name, P(name .. ".txt"), cols, 800, { "--schema", schema_file(name, cols), "--format", "ndjson", "--quiet" })
end

-- --infer on a CSV: the schema is worked out here from the values written.
-- Each column's generator notes what inference sees (integer range, the
-- most fraction digits, whether every timestamp had a zone, nulls).
do
  local name = "cli_infer_csv"
  local r = new_rng(name)
  local ROWS = 1500
  local info = {}
  local function note(key, f)
    info[key] = info[key] or { frac = 0, all_zone = true }
    f(info[key])
  end
  local function int_gen(key, lo, hi, extremes)
    local k = 0
    return function(rr)
      k = k + 1
      local v = extremes[k] or rr.range(lo, hi)
      note(key, function(i)
        i.min = (i.min == nil or v < i.min) and v or i.min
        i.max = (i.max == nil or v > i.max) and v or i.max
      end)
      return { canon = '"' .. v .. '"', csv = tostring(v) }
    end
  end
  local function inferred_int(key)
    local i = info[key]
    for _, w in ipairs { 8, 16, 32 } do
      if i.min >= -(1 << (w - 1)) and i.max <= (1 << (w - 1)) - 1 then return T["int" .. w] end
    end
    return T.int64
  end
  local function ts_gen(key, unit, ylo, yhi, zones, maxfrac, dates)
    return function(rr)
      local p = rand_ts_parts(rr, ylo, yhi)
      p.frac = rand_frac(rr, maxfrac)
      if zones == "all" and not p.zone then p.zone = "Z" end
      if zones == "none" then p.zone = nil end
      if not dates then p.date_only = nil end
      local text, v = timestamp_of(unit, p)
      note(key, function(i)
        if p.date_only or not p.zone then i.all_zone = false end
        if not p.date_only and p.ss and #p.frac > i.frac then i.frac = #p.frac end
      end)
      return { canon = '"' .. v .. '"', csv = text }
    end
  end
  local BOOLS = { "true", "false", "TRUE", "False", "yes", "no", "YES", "No", "t", "f", "T", "F" }
  local defs = {
    { "i8", function() return int_gen("i8", -128, 127, { -128, 127 }) end },
    { "i16", function() return int_gen("i16", -300, 300, { -32768, 32767 }) end },
    { "i32", function() return int_gen("i32", -100000, 100000, { -2147483648, 2147483647 }) end },
    { "i64", function() return int_gen("i64", -5000000000, 5000000000, { math.mininteger, math.maxinteger }) end },
  }
  local cols, gens = {}, {}
  for _, d in ipairs(defs) do
    local c = column(d[1], T.string)   -- its type is set once the values are known
    c.gen, c.cases = d[2](), {}
    cols[#cols + 1] = c
  end
  local function add(nm, gen, o)
    local c = column(nm, T.string, o)
    c.gen, c.cases = gen, {}
    cols[#cols + 1] = c
    gens[nm] = c
    return c
  end
  add("u64", function(rr)
    local v = rr.chance(30) and (rr.u64() | math.mininteger) or rr.range(0, 1 << 40)
    return { canon = '"' .. utostr(v) .. '"', csv = utostr(v) }
  end)
  gens.u64.cases = { { canon = '"18446744073709551615"', csv = "18446744073709551615" } }
  add("dbl", function(rr)
    local k = rr.below(5)
    local t = k == 0 and tostring(rr.range(-1000, 1000)) or k == 1 and string.format("%.17g", (rr.below(1 << 40) - (1 << 39)) / 7.0)
              or k == 2 and string.format("%d.%de%d", rr.range(-9, 9), rr.below(100), rr.range(-300, 300))
              or k == 3 and string.format("%.6f", rr.below(1000000) / 1000.0) or "." .. rr.below(100)
    return { canon = jdouble(text_double(t)), csv = t }
  end)
  gens.dbl.cases = { { canon = '"NaN"', csv = "NaN" }, { canon = '"-Infinity"', csv = "-inf" }, { canon = "5", csv = "5." } }
  add("flag", function(rr)
    local w = rr.pick(BOOLS)
    local l = w:lower()
    return { canon = (l == "true" or l == "yes" or l == "t") and "true" or "false", csv = w }
  end)
  add("day", function(rr)
    local y, m, d = rand_ymd(rr, 1, 9999)
    return { canon = '"' .. days_from_civil(y, m, d) .. '"', csv = date_text(y, m, d) }
  end)
  add("tod", function(rr)
    local ss = rr.chance(90) and rr.below(60) or nil
    local text, v = time_of("us", rr.below(24), rr.below(60), ss, rand_frac(rr, 6))
    return { canon = '"' .. v .. '"', csv = text }
  end)
  add("tod_ns", function(rr)
    local ss = rr.chance(90) and rr.below(60) or nil
    local frac = rand_frac(rr, 9)
    if ss then note("tod_ns", function(i) i.frac = math.max(i.frac, #frac) end) end
    local text, v = time_of("ns", rr.below(24), rr.below(60), ss, frac)
    return { canon = '"' .. v .. '"', csv = text }
  end)
  add("ts_utc", ts_gen("ts_utc", "us", 1, 9999, "all", 6, false))
  add("ts_local", ts_gen("ts_local", "ns", 1700, 2200, "none", 9, true))
  add("ts_mixed", ts_gen("ts_mixed", "us", 1900, 2100, "some", 3, false))
  add("code", function(rr)
    local t = string.format("%0" .. rr.range(1, 6) .. "d", rr.below(1000))
    return { canon = jq(t), csv = t }
  end)
  gens.code.cases = { { canon = jq("007"), csv = "007" } }
  add("name", function(rr)
    local s = rand_words(rr, 5)
    if s == "" then s = "x" end
    return { canon = jq(s), csv = s }
  end)
  add("opt_small", function(rr)
    local v = rr.range(-5, 5)
    return { canon = '"' .. v .. '"', csv = tostring(v) }
  end, { optional = true, pnull = 20 })
  add("mixed", function(rr)
    if rr.chance(50) then local v = rr.below(1000) return { canon = jq(tostring(v)), csv = tostring(v) } end
    local y, m, d = rand_ymd(rr, 1990, 2030)
    return { canon = jq(date_text(y, m, d)), csv = date_text(y, m, d) }
  end)
  add("empty", function() return NULL end, { all_null = true })
  add("opt_ts", ts_gen("opt_ts", "us", 2000, 2030, "all", 6, false), { optional = true, pnull = 25 })

  build_csv(P(name .. ".csv"), r, { rows = ROWS, cols = cols })

  -- the schema inference must find (inlay.h, inlay_source_infer; the
  -- sample is the whole input): the narrowest integer type (asked for with
  -- --narrow-ints; int64 by default), double,
  -- boolean, date, time and timestamp (us, or ns past six fraction digits;
  -- a timestamp is utc when every value had a zone), string for codes with
  -- leading zeros (runtime/infer.c) and for mixed kinds, optional where a
  -- null was seen (a column of nothing but nulls: string)
  for _, c in ipairs(cols) do
    local k = c.name
    if info[k] and info[k].min then c.t = inferred_int(k) end
  end
  gens.u64.t = T.uint64
  gens.dbl.t = T.double
  gens.flag.t = T.boolean
  gens.day.t = T.date
  gens.tod.t = T.time("us")
  gens.tod_ns.t = T.time(info.tod_ns.frac > 6 and "ns" or "us")
  for _, k in ipairs { "ts_utc", "ts_local", "ts_mixed", "opt_ts" } do
    local i = info[k]
    gens[k].t = T.timestamp(i.frac > 6 and "ns" or "us", i.all_zone)
  end
  gens.code.t = T.string
  gens.name.t = T.string
  gens.opt_small.t = T.int8
  gens.mixed.t = T.string
  gens.empty.t = T.string
  -- the generators above were written for these expectations: check them
  assert(gens.ts_utc.t.utc and gens.ts_utc.t.unit == "us" and gens.ts_local.t.unit == "ns" and not gens.ts_local.t.utc
         and gens.tod_ns.t.unit == "ns"
         and not gens.ts_mixed.t.utc and cols[2].t.tag == "int16" and cols[4].t.tag == "int64", "inference plan")
  convert_cli(name, P(name .. ".csv"), cols, ROWS, { "--infer", "--narrow-ints", "--quiet" })
end

-- --infer on NDJSON: keys in order of first appearance; JSON numbers,
-- literals, quoted dates and timestamps, objects and arrays; a key that
-- first appears on a later line, keys left out, nulls.
do
  local name = "cli_infer_nd"
  local r = new_rng(name)
  local ROWS = 1200
  local k = 0
  local cols = {}
  local function add(nm, t, gen, o)
    local c = column(nm, t, o)
    c.gen, c.cases = gen, {}
    cols[#cols + 1] = c
    return c
  end
  add("id", T.int16, function() k = k + 1 return { canon = '"' .. k .. '"', nd = tostring(k) } end)
  add("score", T.double, function(rr)
    local t = rr.chance(30) and tostring(rr.range(-50, 50)) or string.format("%d.%03d", rr.range(-50, 50), rr.below(1000))
    return { canon = jdouble(text_double(t)), nd = t }
  end)
  add("ok", T.boolean, function(rr) local v = rr.chance(50) return { canon = tostring(v), nd = tostring(v) } end)
  add("name", T.string, function(rr) local s = rand_words(rr, 4) return { canon = jq(s), nd = jstr(s, rr) } end)
  add("day", T.date, function(rr)
    local y, m, d = rand_ymd(rr, 1950, 2050)
    return { canon = '"' .. days_from_civil(y, m, d) .. '"', nd = jq(date_text(y, m, d)) }
  end)
  add("at", T.timestamp("us", true), function(rr)
    local p = rand_ts_parts(rr, 1950, 2050)
    p.frac, p.date_only = rand_frac(rr, 6), nil
    if not p.zone then p.zone = "Z" end
    local text, v = timestamp_of("us", p)
    return { canon = '"' .. v .. '"', nd = jq(text) }
  end)
  add("payload", T.json, function(rr)
    local s = rr.chance(50) and string.format('{"k": %d, "v": [%d, "x"]}', rr.below(100), rr.below(100))
              or string.format('[%d,{"a":null}]', rr.below(1000))
    return { canon = jq(s), nd = s }
  end)
  local opt = add("opt", T.int8, function(rr) local v = rr.range(-100, 100) return { canon = '"' .. v .. '"', nd = tostring(v) } end,
                  { optional = true, pnull = 20 })
  add("qnum", T.string, function(rr) local t = tostring(rr.below(100000)) return { canon = jq(t), nd = jq(t) } end)
  local late = add("late", T.string, function(rr) local s = rand_words(rr, 2) return { canon = jq(s), nd = jq(s) } end,
                   { optional = true, pnull = 10 })
  -- first line: every key but `late`, in this order; `late` first on line 5
  local line = 0
  local late_next, opt_next = late.next, opt.next
  function opt:next(rr, fmt)
    line = line + 1   -- opt comes before late: it counts the lines
    if line == 1 then return self.gen(rr, fmt) end
    return opt_next(self, rr, fmt)
  end
  function late:next(rr, fmt)
    if line < 5 then return NULL end
    return late_next(self, rr, fmt)
  end
  build_ndjson(P(name .. ".ndjson"), r, { rows = ROWS, cols = cols, missing = 100, no_pad = true })
  -- id runs 1..ROWS: int16
  assert(ROWS > 127 and ROWS < 32768)
  convert_cli(name, P(name .. ".ndjson"), cols, ROWS, { "--infer", "--narrow-ints", "--quiet" })
end

-- `inlay convert - OUT --infer --infer-rows 100` reading a CSV from stdin:
-- the schema comes from the first 100 records, which inference reads
-- before the conversion goes on with the rest of the stream. The values
-- fit narrower integers, but the sample is not the whole input: int64.
do
  local name = "cli_stdin"
  local r = new_rng(name)
  local ROWS, SAMPLE = 1500, 100
  local row = 0
  local lo, hi, frac = 0, 0, 0
  local cols = {}
  local function add(nm, t, gen, o)
    local c = column(nm, t, o)
    c.gen, c.cases = gen, {}
    cols[#cols + 1] = c
    return c
  end
  add("n", T.int64, function(rr)
    row = row + 1
    local v = row == 1 and 32767 or rr.range(-1000, 1000)
    if row <= SAMPLE then lo, hi = math.min(lo, v), math.max(hi, v) end
    return { canon = '"' .. v .. '"', csv = tostring(v) }
  end)
  add("x", T.double, function(rr)
    local t = string.format("%d.%d", rr.range(-99999, 99999), rr.below(1000))
    return { canon = jdouble(text_double(t)), csv = t }
  end)
  add("day", T.date, function(rr)
    local y, m, d = rand_ymd(rr, 1800, 2200)
    return { canon = '"' .. days_from_civil(y, m, d) .. '"', csv = date_text(y, m, d) }
  end)
  add("at", T.timestamp("us", true), function(rr)
    local p = rand_ts_parts(rr, 1800, 2200)
    p.frac, p.date_only = rand_frac(rr, 6), nil
    if not p.zone then p.zone = "Z" end
    if row <= SAMPLE and p.ss and #p.frac > frac then frac = #p.frac end
    local text, v = timestamp_of("us", p)
    return { canon = '"' .. v .. '"', csv = text }
  end)
  add("word", T.string, function(rr)
    local s = rand_words(rr, 4)
    if s == "" then s = "-" end
    return { canon = jq(s), csv = s }
  end)
  add("flag", T.boolean, function(rr) local v = rr.chance(50) return { canon = tostring(v), csv = tostring(v) } end)
  local opt = add("opt", T.int8, function(rr) local v = rr.range(-9, 9) return { canon = '"' .. v .. '"', csv = tostring(v) } end,
                  { optional = true, pnull = 10 })
  local opt_next = opt.next
  function opt:next(rr, fmt)
    if row == 2 then return NULL end   -- a null within the sample
    return opt_next(self, rr, fmt)
  end
  build_csv(P(name .. ".csv"), r, { rows = ROWS, cols = cols, no_pad = true })
  -- what inference must make of the first 100 records: as for the whole
  -- input, except that integers are int64 when the sample is not the whole
  -- input (inlay.h, inlay_source_infer)
  assert(frac <= 6 and frac > 0 and lo >= -32768 and hi <= 32767)
  cols[1].t, opt.t = T.int64, T.int64
  local out = P(name .. ".parquet")
  os.remove(out)
  local line = string.format("%s convert - %s --infer --infer-rows %d --quiet < %s", shq(INLAY_BIN), shq(out), SAMPLE,
                             shq(P(name .. ".csv")))
  if not os.execute(line) or not file_size(out) then
    fail(name, "command failed: " .. line)
  else
    write_spec(name, ROWS, "ZSTD", { rows = ROWS, row_groups = row_groups(ROWS), bytes = file_size(out) }, cols)
    written = written + 1
    print(string.format("convert_fixtures: %-22s %5d rows  %s (inlay convert - --infer --infer-rows %d, from stdin)",
                        name, ROWS, name .. ".csv", SAMPLE))
  end
end

-- ---------------------------------------------------------------------------

print(string.format("convert_fixtures: %d files written to %s", written, OUT))
if #failures > 0 then
  io.stderr:write(string.format("convert_fixtures: %d file(s) failed: %s\n", #failures, table.concat(failures, ", ")))
  os.exit(1)
end
