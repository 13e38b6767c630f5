-- `inlay inspect`, `inlay head` and `inlay cat` (lua/lprint.c), and
-- inlay.inspect / inlay.head: files of every type, flat and nested, over
-- several row groups, written here and compared with what DuckDB makes of
-- the same file; files DuckDB wrote; error cases and exit statuses.
--
-- DuckDB's text forms differ from ours in ways that are choices, not
-- errors, so its CSV and ours are compared value by value after these
-- normalisations (and nothing else):
--   - floats by value ("-0.0" = "-0", "nan" = "-nan"); float16 within half
--     precision (DuckDB shows the half widened to float, 0.3330078; we show
--     the shortest text that is the same half, 0.333);
--   - times and timestamps: "T" or " " between date and time, trailing
--     zeros of the fraction, and "Z" against DuckDB's "+00";
--   - nested values: both as JSON (DuckDB's through to_json, as its CSV
--     text for nested values is not JSON), maps with non-text keys, which
--     we write as [{"key": k, "value": v}] and DuckDB as {"k": v}.

local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/testlib.lua")
local inlay = require "inlay"
local q = T.quote
local bin = q(T.bin)

-- ---- JSON and CSV, read back --------------------------------------------------

local NULL = setmetatable({}, { __tostring = function() return "NULL" end })
-- A JSON number keeps its text: int64, uint64 and decimals are exact there.
local Num = { __tostring = function(n) return n[1] end }
local function is_num(v) return getmetatable(v) == Num end

local function json_decode(s)
  local pos = 1
  local function ws() pos = s:find("[^ \t\r\n]", pos) or #s + 1 end
  local function err(what) error(string.format("JSON: %s at %d in %q", what, pos, s:sub(1, 200)), 0) end
  local value
  local function str()
    local out = {}
    pos = pos + 1
    while true do
      local c = s:sub(pos, pos)
      if c == "" then err("unterminated string") end
      if c == '"' then pos = pos + 1 break end
      if c == "\\" then
        local e = s:sub(pos + 1, pos + 1)
        local simple = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }
        if simple[e] then
          out[#out + 1] = simple[e]
          pos = pos + 2
        elseif e == "u" then
          local cp = tonumber(s:sub(pos + 2, pos + 5), 16) or err("bad \\u")
          pos = pos + 6
          if cp >= 0xD800 and cp <= 0xDBFF and s:sub(pos, pos + 1) == "\\u" then
            local lo = tonumber(s:sub(pos + 2, pos + 5), 16)
            cp = 0x10000 + (cp - 0xD800) * 0x400 + (lo - 0xDC00)
            pos = pos + 6
          end
          out[#out + 1] = utf8.char(cp)
        else
          err("bad escape")
        end
      else
        if c:byte() < 0x20 then err("control character in a string") end
        out[#out + 1] = c
        pos = pos + 1
      end
    end
    return table.concat(out)
  end
  function value()
    ws()
    local c = s:sub(pos, pos)
    if c == "{" then
      local t = {}
      pos = pos + 1
      ws()
      if s:sub(pos, pos) == "}" then pos = pos + 1 return t end
      while true do
        ws()
        if s:sub(pos, pos) ~= '"' then err("expected a key") end
        local k = str()
        ws()
        if s:sub(pos, pos) ~= ":" then err("expected :") end
        pos = pos + 1
        t[k] = value()
        ws()
        local d = s:sub(pos, pos)
        pos = pos + 1
        if d == "}" then return t end
        if d ~= "," then err("expected , or }") end
      end
    elseif c == "[" then
      local t = { n = 0 }
      pos = pos + 1
      ws()
      if s:sub(pos, pos) == "]" then pos = pos + 1 return t end
      while true do
        t.n = t.n + 1
        t[t.n] = value()
        ws()
        local d = s:sub(pos, pos)
        pos = pos + 1
        if d == "]" then return t end
        if d ~= "," then err("expected , or ]") end
      end
    elseif c == '"' then
      return str()
    elseif s:sub(pos, pos + 3) == "true" then pos = pos + 4 return true
    elseif s:sub(pos, pos + 4) == "false" then pos = pos + 5 return false
    elseif s:sub(pos, pos + 3) == "null" then pos = pos + 4 return NULL
    else
      local num = s:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
      if not num or num == "" or num == "-" then err("unexpected character") end
      pos = pos + #num
      return setmetatable({ num }, Num)
    end
  end
  local v = value()
  ws()
  if pos <= #s then err("trailing text") end
  return v
end

-- RFC 4180: records of fields; an unquoted empty field is NULL, a quoted
-- one the empty string.
local function csv_parse(text)
  local rows, row, pos = {}, {}, 1
  while pos <= #text do
    local field
    if text:sub(pos, pos) == '"' then
      local parts = {}
      pos = pos + 1
      while true do
        local e = text:find('"', pos, true) or error("unterminated quote in CSV")
        parts[#parts + 1] = text:sub(pos, e - 1)
        if text:sub(e + 1, e + 1) == '"' then
          parts[#parts + 1] = '"'
          pos = e + 2
        else
          pos = e + 1
          break
        end
      end
      field = table.concat(parts)
    else
      local e = text:find("[,\n]", pos) or #text + 1
      field = text:sub(pos, e - 1)
      if field == "" then field = NULL end
      pos = e
    end
    row[#row + 1] = field
    local d = text:sub(pos, pos)
    pos = pos + 1
    if d == "\n" or d == "" then
      rows[#rows + 1] = row
      row = {}
    elseif d ~= "," then
      error("CSV: expected , or a line end at " .. pos)
    end
  end
  return rows
end

-- ---- DuckDB --------------------------------------------------------------------

local function duck_script(dir)
  local path = dir .. "/duck.mjs"
  if T.exists(path) then return path end
  T.write(path, ([[
import { loadDuckDB, luaString, luaNumber } from '%s'
const duckdb = loadDuckDB('test_read_cli')
const lua = v => v === null || v === undefined ? 'NULL'
  : typeof v === 'string' ? luaString(v)
  : typeof v === 'number' ? luaNumber(v)
  : typeof v === 'boolean' ? String(v)
  : typeof v === 'bigint' ? luaString(String(v))
  : Array.isArray(v) ? '{' + v.map(lua).join(', ') + '}'
  : '{' + Object.entries(v).map(([k, x]) => '[' + luaString(k) + '] = ' + lua(x)).join(', ') + '}'
const instance = await duckdb.DuckDBInstance.create(':memory:')
const con = await instance.connect()
await con.run("SET TimeZone = 'UTC'")
const out = []
for (const sql of process.argv.slice(2)) {
  const r = await con.runAndReadAll(sql)
  out.push('{' + r.getRowObjectsJson().map(lua).join(',\n') + '}')
}
process.stdout.write('return {' + out.join(',\n') + '}\n')
]]):format("file://" .. T.here .. "/duckdb_lua.mjs"))
  return path
end

-- Runs the SQL statements with DuckDB; returns one list of rows (tables
-- keyed by column name, NULL for nulls) per statement.
local function duck(dir, ...)
  local node = os.getenv("INLAY_NODE")
  if not node or node == "" or node:match("NOTFOUND$") then T.fail("INLAY_NODE is not set: node runs DuckDB", 2) end
  local cmd = q(node) .. " " .. q(duck_script(dir))
  for _, sql in ipairs({ ... }) do cmd = cmd .. " " .. q(sql) end
  local out, err, code = T.run(cmd)
  if code ~= 0 then T.fail("DuckDB failed (" .. code .. "): " .. err, 2) end
  return table.unpack(assert(load(out, "=duckdb", "t", { NULL = NULL }))())
end

local function sql_str(s) return "'" .. s:gsub("'", "''") .. "'" end

-- ---- running the command -------------------------------------------------------

local function inlay_cmd(args)
  return T.run(bin .. " " .. args)
end

local function ok_run(args)
  local out, err, code = inlay_cmd(args)
  if code ~= 0 then T.fail("inlay " .. args .. ": exit " .. code .. ": " .. err, 2) end
  return out
end

-- ---- normalising DuckDB's text and ours ----------------------------------------

local function float_value(s)
  local l = s:lower():gsub("^%+", "")
  if l == "nan" or l == "-nan" then return 0 / 0 end
  if l == "inf" or l == "infinity" then return math.huge end
  if l == "-inf" or l == "-infinity" then return -math.huge end
  return tonumber(s)
end

local function same_float(a, b, tolerance)
  local x, y = float_value(a), float_value(b)
  if not x or not y then return false end
  if x ~= x or y ~= y then return x ~= x and y ~= y end
  if x == y then return true end
  return tolerance and math.abs(x - y) <= tolerance * math.max(math.abs(x), math.abs(y), 2 ^ -14)
end

-- DuckDB writes years before 1 as "0001-01-01 (BC)"; ISO 8601 (and we)
-- as 0000, -0001 ...
local function norm_bc(s)
  local y, rest = s:match("^(%d%d%d%d)(%-.*) %(BC%)$")
  if not y then return s end
  local iso = 1 - tonumber(y)
  return (iso == 0 and "0000" or string.format("-%04d", -iso)) .. rest
end

-- "2023-11-14T22:13:20.123400Z" and "2023-11-14 22:13:20.1234+00" alike.
local function norm_time(s)
  s = norm_bc(s)
  s = s:gsub("^(%d%d%d%d%-%d%d%-%d%d)T", "%1 "):gsub("Z$", ""):gsub("%+00$", "")
  s = s:gsub("(%.%d-)0+$", "%1"):gsub("%.$", "")
  return s
end

local function time_like(s)
  return type(s) == "string" and (s:match("^%d%d%d%d%-%d%d%-%d%d[T ]%d%d:%d%d") or s:match("^%d%d:%d%d:%d%d"))
end

-- Two decoded JSON values alike: numbers by value, times normalised.
local function same_json(a, b, path)
  path = path or "$"
  if a == NULL or b == NULL then return a == b, path end
  if is_num(a) or is_num(b) then
    local x = is_num(a) and a[1] or tostring(a)
    local y = is_num(b) and b[1] or tostring(b)
    if x == y or same_float(x, y) then return true end
    return false, path .. ": " .. x .. " vs " .. y
  end
  if type(a) ~= type(b) then return false, path .. ": " .. type(a) .. " vs " .. type(b) end
  if type(a) == "string" then
    if a == b or (time_like(a) and norm_time(a) == norm_time(b)) then return true end
    return false, path .. ": " .. string.format("%q vs %q", a, b)
  end
  if type(a) ~= "table" then return a == b, path end
  for k, v in pairs(a) do
    local ok, where = same_json(v, b[k] == nil and NULL or b[k], path .. "." .. tostring(k))
    if not ok then return false, where end
  end
  for k in pairs(b) do
    if a[k] == nil then return false, path .. "." .. tostring(k) .. " missing" end
  end
  return true
end

-- Our maps with non-text keys ([{"key": k, "value": v}]) as DuckDB's to_json
-- writes them ({"k": v}).
local function keyed(v)
  if v == NULL then return v end
  local t = {}
  for i = 1, v.n do t[tostring(v[i].key)] = v[i].value end
  return t
end

-- Compares our CSV with DuckDB's, column by column, with a comparator
-- chosen by DuckDB's type of the column; `json_cols` hold JSON text on both
-- sides (`fix[name]` adjusts our decoded value first).
local function compare_csv(ours, theirs, types, json_cols, fix, what)
  local a, b = csv_parse(ours), csv_parse(theirs)
  T.eq(#a, #b, what .. ": records (header included)")
  T.eq(table.concat(a[1], ","), table.concat(b[1], ","), what .. ": header")
  local names = a[1]
  for r = 2, #a do
    for c, name in ipairs(names) do
      local x, y = a[r][c], b[r][c]
      local ty = types[name] or "?"
      local ok
      if x == NULL or y == NULL then
        ok = x == y
      elseif json_cols[name] then
        local jx = json_decode(x)
        if fix and fix[name] then jx = fix[name](jx) end
        local where
        ok, where = same_json(jx, json_decode(y))
        if not ok then T.fail(string.format("%s: row %d column %s: %s", what, r - 1, name, where)) end
      elseif ty == "FLOAT" or ty == "DOUBLE" then
        ok = same_float(x, y, fix and fix.tolerance and fix.tolerance[name])
      elseif ty:match("^TIME") then
        ok = norm_time(x) == norm_time(y)
      elseif ty == "DATE" then
        ok = x == norm_bc(y)
      else
        ok = x == y
      end
      if not ok then
        T.fail(string.format("%s: row %d column %s (%s): ours %q, DuckDB's %q", what, r - 1, name, ty,
                             tostring(x), tostring(y)))
      end
    end
  end
  T.ok(true)
end

-- ---- the files -------------------------------------------------------------------

local U = { ms = 1000, us = 1000000, ns = 1000000000 }

local function blob_text(s)
  return (s:gsub(".", function(c)
    return c:match("[\32-\126]") and not c:match("[\\'\"]") and c or string.format("\\x%02X", c:byte())
  end))
end

local function iso_date(days)
  local t = os.date("!*t", days * 86400)
  return string.format("%04d-%02d-%02d", t.year, t.month, t.day)
end

local function iso_clock(v, unit)
  local secs, frac = v // U[unit], v % U[unit]
  local digits = #tostring(U[unit]) - 1
  return os.date("!%H:%M:%S", secs), string.format(".%0" .. digits .. "d", frac), secs
end

local function iso_time(v, unit)
  local hms, frac = iso_clock(v, unit)
  return hms .. frac
end

local function iso_timestamp(v, unit, utc)
  local _, frac, secs = iso_clock(v, unit)
  return os.date("!%Y-%m-%dT%H:%M:%S", secs) .. frac .. (utc and "Z" or "")
end

local function decimal_text(units, scale)
  local neg = units < 0
  local d = tostring(neg and -units or units)
  if scale > 0 then
    d = string.rep("0", scale + 1 - #d) .. d
    d = d:sub(1, #d - scale) .. "." .. d:sub(#d - scale + 1)
  end
  return (neg and "-" or "") .. d
end

local STRINGS = { "plain", "héllo wörld", "comma, inside", 'say "hi"', "two\nlines", "", "tab\there", "ñ ü 漢字 🎉",
                  " leading space", "back\\slash" }

-- Every flat type: name, type, optional, value of row i (nil: null), and
-- the JSON `cat --format ndjson` must write for it (a string holds a JSON
-- string's content, a Num a number's text).
local FLAT = {
  { "i8", "int8", true, function(i) if i % 5 ~= 0 then return i * 37 % 256 - 128 end end, "int" },
  { "u8", "uint8", false, function(i) return i * 7 % 256 end, "int" },
  { "i16", "int16", false, function(i) return i * 1237 % 65536 - 32768 end, "int" },
  { "u16", "uint16", false, function(i) return i * 4099 % 65536 end, "int" },
  { "i32", "int32", false, function(i) return i * 2654435761 % 4294967296 - 2147483648 end, "int" },
  { "u32", "uint32", false, function(i) return i * 2654435761 % 4294967296 end, "int" },
  { "i64", "int64", false, function(i) return i * -7046029254386353131 end, "int" },
  { "u64", "uint64", true, function(i)
    if i % 3 == 0 then return nil end
    return i % 2 == 0 and i * 1000003 or "1844674407370955" .. string.format("%04d", i % 1616)
  end, "int" },
  { "f", "float", false, function(i) return i * 0.25 - 10 end, "float" },
  { "d", "double", true, function(i) if i % 3 ~= 0 then return i / 7 - 50 end end, "float" },
  { "b", "boolean", true, function(i) if i % 4 ~= 0 then return i % 3 == 0 end end, "bool" },
  { "s", "string", true, function(i) if i % 11 ~= 5 then return STRINGS[i % #STRINGS + 1] .. (i % 2 == 0 and "" or i) end end, "string" },
  { "bin", "binary", false, function(i) return string.char(i % 256, (i * 7) % 256, 0x22, 0x5c) .. "x" end, "blob" },
  { "j", "json", false, function(i) return '{"i":' .. i .. ',"s":"a,b"}' end, "string" },
  { "e", "enum", false, function(i) return ({ "RED", "GREEN", "BLUE" })[i % 3 + 1] end, "string" },
  { "id", "uuid", false, function(i) return string.format("%08x-0000-4000-8000-%012x", i * 2654435761 % 4294967296, i * 7919) end, "string" },
  { "h", "float16", false, function(i) return (i % 64) * 0.25 - 8 end, "float" },
  { "dt", "date", false, function(i) return i * 37 - 10000 end, "date" },
  { "tms", "time(ms)", false, function(i) return i * 86399 % 86400000 end, "time_ms" },
  { "tus", "time(us)", false, function(i) return i * 86399999 % 86400000000 end, "time_us" },
  { "tns", "time(ns)", true, function(i) if i % 7 ~= 1 then return i * 86399999999 % 86400000000000 end end, "time_ns" },
  { "tsms", "timestamp(ms)", false, function(i) return (i - 500) * 86400123 + 1700000000000 end, "ts_ms" },
  { "tsus", "timestamp(us, utc)", true, function(i) if i % 9 ~= 2 then return (i - 500) * 86400123457 end end, "ts_us_utc" },
  { "tsns", "timestamp(ns)", false, function(i) return (i - 500) * 86400123456789 end, "ts_ns" },
  { "dec32", "decimal(9,2)", false, function(i) return decimal_text(i * 123457 - 60000000, 2) end, "decimal" },
  { "dec64", "decimal(18,4)", true, function(i) if i % 6 ~= 0 then return decimal_text(i * 12345678901 - 5000000000000, 4) end end, "decimal" },
  { "decfx", "decimal(30,5)", false, function(i)
    local neg = i % 2 == 1 and "-" or ""
    return neg .. string.format("%d%018d.%05d", i, i * 99991, i % 100000)
  end, "decimal" },
  { "fx", "fixed(3)", false, function(i) return string.char(65 + i % 26, i % 256, 97 + i % 26) end, "blob" },
}

-- The ndjson value a written value becomes (a string: JSON string content;
-- a table { num }: a number's text; NULL).
local function flat_expected(kind, v)
  if v == nil then return NULL end
  if kind == "int" then return setmetatable({ type(v) == "string" and v or string.format("%d", v) }, Num) end
  if kind == "float" then
    if v ~= v or v == math.huge or v == -math.huge then return NULL end
    return setmetatable({ string.format("%.17g", v) }, Num)
  end
  if kind == "bool" then return v end
  if kind == "string" then return v end
  if kind == "blob" then return blob_text(v) end
  if kind == "date" then return iso_date(v) end
  if kind == "decimal" then return setmetatable({ v }, Num) end
  local unit = kind:match("_(%a+)")
  if kind:match("^time") then return iso_time(v, unit) end
  return iso_timestamp(v, unit, kind:match("utc$") ~= nil)
end

-- A value of ours equals the expected one: numbers by value (floats) or
-- text (integers, decimals), the rest exactly.
local function same_value(kind, got, want)
  if want == NULL or got == NULL then return got == want end
  if is_num(want) then
    if not is_num(got) then return false end
    if kind == "float" then return tonumber(got[1]) == tonumber(want[1]) end
    return got[1] == want[1]
  end
  return got == want
end

-- The edge rows, then generated ones.
local EDGE = {
  { i8 = -128, u8 = 255, i16 = -32768, u16 = 65535, i32 = -2147483648, u32 = 4294967295, i64 = math.mininteger,
    u64 = "18446744073709551615", f = 1 / 0, d = -1 / 0, b = true, s = "héllo, \"w\"\n", bin = "\0\255ab\\'\"",
    j = '{"a":[1,2]}', e = "RED", id = "123e4567-e89b-12d3-a456-426614174000", h = 65504, dt = -719528,
    tms = 86399999, tus = 86399999999, tns = 86399999999999, tsms = 253402300799999, tsus = 1700000000123456,
    tsns = -9000000000000000001, dec32 = "-9999999.99", dec64 = "99999999999999.9999",
    decfx = "-9999999999999999999999999.99999", fx = "\0\0\0" },
  { i8 = 127, u8 = 0, i16 = 32767, u16 = 0, i32 = 2147483647, u32 = 0, i64 = math.maxinteger, u64 = 0, f = 0 / 0,
    d = 0.1, b = false, s = "", bin = "", j = "[]", e = "", id = "ffffffff-ffff-ffff-ffff-ffffffffffff", h = -0.0,
    dt = 2932896, tms = 0, tus = 0, tns = 0, tsms = -1, tsus = -1, tsns = 9000000000000000000, dec32 = "0.05",
    dec64 = "-0.0001", decfx = "0.00000", fx = "zzz" },
  { u8 = 1, i16 = 0, u16 = 1, i32 = 0, u32 = 1, i64 = 0, f = 1.5, d = 1e300, bin = "x", j = "null", e = "B",
    id = "00000000-0000-0000-0000-000000000000", h = 0.333, dt = 0, tms = 1, tus = 1, tsms = 0, tsns = 0,
    dec32 = "1.00", decfx = "99999999999999999999999.99999", fx = "abc" },
}

local FLAT_ROWS = 1000

local function flat_value(col, i)
  if i <= #EDGE then return EDGE[i][col[1]] end
  return col[4](i)
end

local function write_flat(path, opts)
  local fields = {}
  for _, c in ipairs(FLAT) do fields[#fields + 1] = { c[1], c[2], optional = c[3] } end
  local w = inlay.open(path, inlay.schema(fields), opts)
  local cols = {}
  for _, c in ipairs(FLAT) do
    local a = {}
    for i = 1, FLAT_ROWS do
      local v = flat_value(c, i)
      a[i] = v == nil and inlay.null or v
    end
    cols[c[1]] = a
  end
  w:write_columns(cols, FLAT_ROWS)
  return w:close()
end

-- Nested: struct, list, map (text and integer keys), list of struct with a
-- list inside, list of lists.
local NESTED_SCHEMA = {
  { "id", "int64" },
  { "tags", inlay.list("string"), optional = true },
  { "pos", inlay.struct { { "x", "int32" }, { "y", "double", optional = true }, { "label", "string", optional = true } },
    optional = true },
  { "m", inlay.map("string", "int64") },
  { "mi", inlay.map("int32", "string"), optional = true },
  { "hits", inlay.list(inlay.struct { { "at", "timestamp(us)" }, { "n", inlay.list("int32") } }) },
  { "ll", inlay.list(inlay.list("int64", { nullable = false })), optional = true },
}

local NESTED_ROWS = 700

local function nested_row(i)
  local r = { id = i }
  if i % 5 ~= 0 then
    r.tags = {}
    for k = 1, i % 4 do r.tags[k] = (k == 2 and i % 3 == 0) and inlay.null or ("t" .. i .. "," .. k) end
  end
  if i % 7 ~= 3 then r.pos = { x = i - 350, y = i % 2 == 0 and i / 8 or nil, label = i % 3 == 0 and "q\"" .. i or nil } end
  r.m = {}
  for k = 1, i % 3 do r.m["k" .. k] = (k == 2 and i % 2 == 0) and inlay.null or i * k end
  if i % 6 ~= 1 then
    r.mi = {}
    for k = 1, i % 3 do r.mi[k * 10] = k == 1 and inlay.null or ("v" .. k) end
  end
  r.hits = {}
  for k = 1, i % 3 do
    local n = {}
    for z = 1, k do n[z] = (z == 2) and inlay.null or z * i end
    r.hits[k] = { at = (i - 300) * 1000003 + k, n = n }
  end
  if i % 4 ~= 2 then
    r.ll = {}
    for k = 1, i % 3 do
      local inner = {}
      for z = 1, k do inner[z] = i * 100 + z end
      r.ll[k] = inner
    end
  end
  return r
end

local function write_nested(path, opts)
  local w = inlay.open(path, NESTED_SCHEMA, opts)
  for i = 1, NESTED_ROWS do w:write(nested_row(i)) end
  return w:close()
end

-- What the row written as `r` must read back as, in ndjson's decoded form.
local function nested_expected(i)
  local r = nested_row(i)
  local function list(t, f)
    if t == nil then return NULL end
    local out = { n = #t }
    for k = 1, #t do
      local v = t[k]
      out[k] = v == inlay.null and NULL or (f and f(v) or v)
    end
    return out
  end
  local num = function(v) return setmetatable({ string.format("%.17g", v) }, Num) end
  local e = { id = num(i) }
  e.tags = list(r.tags)
  e.pos = r.pos and { x = num(r.pos.x), y = r.pos.y and num(r.pos.y) or NULL, label = r.pos.label or NULL } or NULL
  e.m = {}
  for k, v in pairs(r.m) do e.m[k] = v == inlay.null and NULL or num(v) end
  if r.mi then
    e.mi = {}
    for k, v in pairs(r.mi) do e.mi[tostring(k)] = v == inlay.null and NULL or v end
  else
    e.mi = NULL
  end
  e.hits = list(r.hits, function(h)
    return { at = iso_timestamp(h.at, "us", false), n = list(h.n, num) }
  end)
  e.ll = list(r.ll, function(inner) return list(inner, num) end)
  return e
end

-- ---- cases -------------------------------------------------------------------------

T.case("cat --format csv: every flat type, as DuckDB exports it", function()
  local dir = T.tmpdir("flat_csv")
  local f = dir .. "/flat.parquet"
  write_flat(f, { row_group_rows = 300, page_rows = 128 })
  local ours = ok_run("cat " .. q(f))
  local desc, _ = duck(dir, "DESCRIBE FROM read_parquet(" .. sql_str(f) .. ")",
                       "COPY (FROM read_parquet(" .. sql_str(f) .. ")) TO " .. sql_str(dir .. "/duck.csv") ..
                       " (HEADER, DELIMITER ',')")
  local types = {}
  for _, row in ipairs(desc) do types[row.column_name] = row.column_type end
  compare_csv(ours, T.read(dir .. "/duck.csv"), types, {}, { tolerance = { h = 2 ^ -10 } }, "flat")
  -- --format=csv is the default's spelling
  T.eq(ok_run("cat --format=csv " .. q(f)), ours, "--format=csv")
end)

T.case("cat --format ndjson: every flat type read back as written", function()
  local dir = T.tmpdir("flat_ndjson")
  local f = dir .. "/flat.parquet"
  write_flat(f, { row_group_rows = 300 })
  local out = ok_run("cat --format ndjson " .. q(f))
  local n = 0
  for line in out:gmatch("([^\n]*)\n") do
    n = n + 1
    local got = json_decode(line)
    for _, c in ipairs(FLAT) do
      local want = flat_expected(c[5], flat_value(c, n))
      local g = got[c[1]]
      if c[2] == "float16" and is_num(g) and is_num(want) then
        T.ok(math.abs(tonumber(g[1]) - tonumber(want[1])) <= 2 ^ -11 * math.abs(tonumber(want[1])),
             string.format("row %d %s: %s vs %s", n, c[1], g[1], want[1]))
      elseif not same_value(c[5], g, want) then
        T.fail(string.format("row %d column %s: got %s, want %s", n, c[1], tostring(g), tostring(want)))
      end
    end
  end
  T.eq(n, FLAT_ROWS, "lines")
  -- the text forms chosen, on the edge rows
  local first = out:match("^[^\n]*")
  for _, piece in ipairs({ '"u64":18446744073709551615', '"f":null', '"d":null', '"h":65504',
                           '"dt":"0000-01-01"', '"tms":"23:59:59.999"', '"tsms":"9999-12-31T23:59:59.999"',
                           '"tsus":"2023-11-14T22:13:20.123456Z"', '"tsns":"1684-10-19T07:59:59.999999999"',
                           '"dec32":-9999999.99', '"bin":"\\\\x00\\\\xFFab\\\\x5C\\\\x27\\\\x22"',
                           '"s":"héllo, \\"w\\"\\n"', '"fx":"\\\\x00\\\\x00\\\\x00"' }) do
    T.ok(first:find(piece, 1, true), "row 1 holds " .. piece .. ": " .. first)
  end
  local second = out:match("\n([^\n]*)")
  for _, piece in ipairs({ '"i8":127', '"f":null', '"h":-0', '"s":""', '"tsms":"1969-12-31T23:59:59.999"',
                           '"dec32":0.05', '"dec64":-0.0001', '"decfx":0.00000' }) do
    T.ok(second:find(piece, 1, true), "row 2 holds " .. piece .. ": " .. second)
  end
end)

T.case("nested values: ndjson as written, csv as DuckDB's to_json", function()
  local dir = T.tmpdir("nested")
  local f = dir .. "/nested.parquet"
  write_nested(f, { row_group_rows = 250 })
  local out = ok_run("cat --format ndjson " .. q(f))
  local n = 0
  for line in out:gmatch("([^\n]*)\n") do
    n = n + 1
    local got = json_decode(line)
    got.mi = keyed(got.mi)
    local ok, where = same_json(got, nested_expected(n))
    if not ok then T.fail("row " .. n .. ": " .. where .. "\n" .. line) end
  end
  T.eq(n, NESTED_ROWS, "rows")
  T.ok(out:find('"mi":[{"key":10,"value":null},{"key":20,"value":"v2"}]', 1, true) or
       out:find('"mi":[{"key":20,"value":"v2"},{"key":10,"value":null}]', 1, true), "a map with integer keys")

  local csv = ok_run("cat " .. q(f))
  local cols = {}
  for _, fld in ipairs(NESTED_SCHEMA) do cols[#cols + 1] = fld[1] end
  local sel = {}
  for _, c in ipairs(cols) do sel[#sel + 1] = c == "id" and "id" or ("to_json(" .. c .. ") AS " .. c) end
  local desc = duck(dir, "DESCRIBE FROM read_parquet(" .. sql_str(f) .. ")",
                    "COPY (SELECT " .. table.concat(sel, ", ") .. " FROM read_parquet(" .. sql_str(f) .. ")) TO " ..
                    sql_str(dir .. "/duck.csv") .. " (HEADER)")
  local types = {}
  for _, row in ipairs(desc) do types[row.column_name] = row.column_type end
  local json_cols = { tags = true, pos = true, m = true, mi = true, hits = true, ll = true }
  compare_csv(csv, T.read(dir .. "/duck.csv"), types, json_cols, { mi = keyed }, "nested")
end)

T.case("--columns picks and orders top-level fields", function()
  local dir = T.tmpdir("columns")
  local f = dir .. "/nested.parquet"
  write_nested(f, { row_group_rows = 250 })
  local out = ok_run("cat --columns pos,id --format ndjson " .. q(f))
  local first = out:match("^[^\n]*")
  T.eq(first, '{"pos":{"x":-349,"y":null,"label":null},"id":1}', "first line")
  local csv = ok_run("cat " .. q(f) .. " --columns=ll")
  T.eq(csv:match("^" .. string.rep("[^\n]*\n", 6)), 'll\n[[101]]\n\n[]\n[[401]]\n"[[501],[501,502]]"\n',
       "csv of one nested column")
end)

-- inspect --json of f against DuckDB's parquet_metadata,
-- parquet_file_metadata and parquet_kv_metadata; returns our decoded JSON.
local function compare_inspect(dir, f, what)
  local info = json_decode(ok_run("inspect --json " .. q(f)))
  local meta, file, kv = duck(dir,
    "SELECT * FROM parquet_metadata(" .. sql_str(f) .. ") ORDER BY row_group_id, column_id",
    "SELECT * FROM parquet_file_metadata(" .. sql_str(f) .. ")",
    "SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(" .. sql_str(f) .. ")")
  file = file[1]
  T.eq(info.file, f, what .. ": file")
  T.eq(info.created_by, file.created_by, what .. ": created_by")
  T.eq(info.num_rows[1], tostring(file.num_rows), what .. ": num_rows")
  T.eq(info.num_row_groups[1], tostring(file.num_row_groups), what .. ": num_row_groups")
  T.eq(info.format_version[1], tostring(file.format_version), what .. ": format_version")
  T.eq(info.file_size[1], tostring(file.file_size_bytes), what .. ": file_size")
  T.eq(info.footer_size[1], tostring(file.footer_size), what .. ": footer_size")
  local nkv = 0
  for _ in pairs(info.key_value_metadata) do nkv = nkv + 1 end
  T.eq(nkv, #kv, what .. ": key-value pairs")
  for _, p in ipairs(kv) do T.eq(info.key_value_metadata[p.k], p.v, what .. ": metadata " .. p.k) end
  local chunks = 0
  for _, m in ipairs(meta) do
    chunks = chunks + 1
    local g = info.row_groups[tonumber(m.row_group_id) + 1]
    local c = g.columns[tonumber(m.column_id) + 1]
    local at = string.format("%s: row group %s column %s", what, m.row_group_id, m.path_in_schema)
    T.eq(g.num_rows[1], tostring(m.row_group_num_rows), at .. ": rows")
    T.eq(g.total_byte_size[1], tostring(m.row_group_bytes), at .. ": row group bytes")
    if m.row_group_compressed_bytes ~= NULL then
      T.eq(g.total_compressed_size[1], tostring(m.row_group_compressed_bytes), at .. ": row group compressed bytes")
    end
    T.eq(c.path_in_schema, (m.path_in_schema:gsub(", ", ".")), at .. ": path")
    T.eq(c.type, m.type, at .. ": type")
    T.eq(c.compression, m.compression, at .. ": compression")
    local enc = {}
    for k = 1, c.encodings.n do enc[#enc + 1] = c.encodings[k] end
    local theirs = {}
    for e in m.encodings:gmatch("[^, ]+") do theirs[#theirs + 1] = e end
    table.sort(enc)
    table.sort(theirs)
    T.eq(table.concat(enc, ","), table.concat(theirs, ","), at .. ": encodings")
    for _, k in ipairs({ "num_values", "total_compressed_size", "total_uncompressed_size", "data_page_offset" }) do
      T.eq(c[k][1], tostring(m[k]), at .. ": " .. k)
    end
    T.eq(c.dictionary_page_offset == NULL and NULL or c.dictionary_page_offset[1],
         m.dictionary_page_offset == NULL and NULL or tostring(m.dictionary_page_offset), at .. ": dictionary_page_offset")
    T.eq(c.has_bloom_filter, m.bloom_filter_offset ~= NULL, at .. ": bloom filter")
    local st = c.statistics
    if st == NULL then
      T.eq(m.stats_null_count, NULL, at .. ": no statistics")
    else
      T.eq(st.null_count == NULL and NULL or st.null_count[1],
           m.stats_null_count == NULL and NULL or tostring(m.stats_null_count), at .. ": null_count")
      T.eq(st.distinct_count == NULL and NULL or st.distinct_count[1],
           m.stats_distinct_count == NULL and NULL or tostring(m.stats_distinct_count), at .. ": distinct_count")
      for _, k in ipairs({ "min", "max" }) do
        local ours, theirs_v = st[k], m["stats_" .. k .. "_value"]
        if ours == NULL or theirs_v == NULL then
          T.eq(ours == NULL, theirs_v == NULL, at .. ": " .. k .. " present")
        else
          local text = is_num(ours) and ours[1] or tostring(ours)
          local lt = c.logical_type
          local ok
          if lt == "float16" then ok = same_float(text, theirs_v, 2 ^ -10)
          elseif lt == "float" or lt == "double" then ok = same_float(text, theirs_v)
          elseif lt:match("^time") then ok = norm_time(text) == norm_time(theirs_v)
          elseif lt == "date" then ok = text == norm_bc(theirs_v)
          else ok = text == theirs_v end
          T.ok(ok, string.format("%s: %s %q vs DuckDB's %q", at, k, text, theirs_v))
        end
      end
    end
  end
  T.eq(chunks, info.num_columns[1] * #info.row_groups, what .. ": chunks compared")
  return info, meta
end

T.case("inspect --json matches DuckDB's parquet_metadata", function()
  local dir = T.tmpdir("inspect")
  for _, which in ipairs({ "flat", "nested" }) do
    local f = dir .. "/" .. which .. ".parquet"
    local opts = { row_group_rows = which == "flat" and 300 or 250,
                   metadata = { ["ARROW:schema"] = string.rep("QUJD", 300), source = "job \"42\"" } }
    if which == "flat" then write_flat(f, opts) else write_nested(f, opts) end
    local info = compare_inspect(dir, f, which)
    T.eq(#info.row_groups, which == "flat" and 4 or 3, which .. ": row groups")
    T.eq(info.key_value_metadata.source, 'job "42"', which .. ": a value in full")
    if which == "nested" then
      local leaf
      for k = 1, info.row_groups[1].columns.n do
        local c = info.row_groups[1].columns[k]
        if c.path_in_schema == "hits.list.element.n.list.element" then leaf = c end
      end
      T.eq(leaf and leaf.logical_type, "int32", "a deep leaf's type")
      local hits = info.schema[6]
      T.eq(hits.name, "hits", "schema: field 6")
      T.eq(hits.type, "list", "schema: a list")
      T.eq(hits.children[1].repetition, "repeated", "schema: the list's middle group")
      T.eq(hits.children[1].children[1].children[2].name, "n", "schema: nested names")
      T.eq(hits.children[1].children[1].children[1].type, "timestamp(us)", "schema: a leaf's type")
    end
  end
end)

T.case("inspect: the text view", function()
  local dir = T.tmpdir("inspect_text")
  local f = dir .. "/flat.parquet"
  write_flat(f, { row_group_rows = 300, metadata = { ["ARROW:schema"] = string.rep("QUJD", 300), note = "hi" } })
  local out = ok_run("inspect " .. q(f))
  for _, piece in ipairs({ "file        " .. f, "rows        1000", "row groups  4", "columns     28",
                           "created by  inlay version " .. inlay.version,
                           "  tsus   optional  timestamp(us, utc)", "  decfx  required  decimal(30,5)",
                           "  ARROW:schema: (base64, 1200 bytes)", "  note: hi",
                           "row group 0: 300 rows", "row group 3: 100 rows" }) do
    T.ok(out:find(piece, 1, true), "inspect shows " .. piece .. ":\n" .. out)
  end
  local line = out:match("\n  u64 +INT64[^\n]*")
  T.ok(line and line:find("18446744073709551615", 1, true) and line:find("ZSTD", 1, true), "u64 chunk: " .. tostring(line))
  line = out:match("\n  dt +INT32[^\n]*")
  T.ok(line and line:find("0000-01-01", 1, true), "a date's min: " .. tostring(line))
end)

T.case("head: the first rows as a table", function()
  local dir = T.tmpdir("head")
  local f = dir .. "/small.parquet"
  local w = inlay.open(f, { { "id", "int64" }, { "name", "string", optional = true }, { "score", "double" },
                            { "tags", inlay.list("string"), optional = true } }, { row_group_rows = 2 })
  w:write_columns({ id = { 1, 2, 3, 4, 5 }, name = { "ana", inlay.null, "a\nb", "", string.rep("x", 60) },
                    score = { 1.5, -20, 0.1, 3, 4 },
                    tags = { { "a", "b" }, {}, inlay.null, { inlay.null }, { "z" } } }, 5)
  w:close()
  local out = ok_run("head -n 3 " .. q(f))
  T.eq(out, table.concat({
    "id     name    score   tags",
    "int64  string  double  list<string>",
    "    1  ana        1.5  [\"a\", \"b\"]",
    "    2  NULL       -20  []",
    "    3  a\\nb       0.1  NULL",
    "(3 of 5 rows)",
    "" }, "\n"), "head -n 3")
  out = ok_run("head " .. q(f) .. " --columns name,tags")
  T.eq(out, table.concat({
    "name                                      tags",
    "string                                    list<string>",
    "ana                                       [\"a\", \"b\"]",
    "NULL                                      []",
    "a\\nb                                      NULL",
    '""                                        [null]',
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\u{2026}  [\"z\"]",
    "" }, "\n"), "head of every row, a long value cut")
  T.eq(ok_run("head -n0 " .. q(f)), "id     name    score   tags\nint64  string  double  list<string>\n(0 of 5 rows)\n",
       "-n 0: the header")
end)

T.case("files DuckDB wrote: zstd and gzip, dictionaries, bloom filters; snappy", function()
  local dir = T.tmpdir("duckdb_files")
  local query = [[SELECT range AS i, range::VARCHAR || 'x' AS s,
      CASE WHEN range % 3 = 0 THEN NULL ELSE [range, range + 1] END AS l,
      {'a': range, 'b': 'v' || (range % 10)} AS st, MAP {'k' || (range % 4): range} AS m,
      range::DOUBLE / 3 AS d, DATE '2020-01-01' + (range % 1000)::INT AS dt,
      TIMESTAMP '2020-01-01' + INTERVAL (range) SECOND AS ts, (range::DECIMAL(18,3) / 7)::DECIMAL(18,3) AS dec,
      CASE WHEN range % 5 = 0 THEN NULL ELSE ['red', 'green', 'blue'][range % 3 + 1] END AS color
    FROM range(5000)]]
  for _, codec in ipairs({ "zstd", "gzip", "uncompressed" }) do
    local f = dir .. "/duck_" .. codec .. ".parquet"
    local _, desc = duck(dir, "COPY (" .. query .. ") TO " .. sql_str(f) .. " (FORMAT parquet, COMPRESSION " .. codec ..
                      ", ROW_GROUP_SIZE 2048)",
                      "DESCRIBE FROM read_parquet(" .. sql_str(f) .. ")",
                      "COPY (SELECT * REPLACE (to_json(l) AS l, to_json(st) AS st, to_json(m) AS m) FROM read_parquet(" ..
                      sql_str(f) .. ")) TO " .. sql_str(dir .. "/duck.csv") .. " (HEADER)")
    local types = {}
    for _, row in ipairs(desc) do types[row.column_name] = row.column_type end
    compare_csv(ok_run("cat " .. q(f)), T.read(dir .. "/duck.csv"), types, { l = true, st = true, m = true }, {},
                "DuckDB's " .. codec)
    local info = compare_inspect(dir, f, "DuckDB's " .. codec)
    T.ok(#info.row_groups >= 2, codec .. ": several row groups")
    local blooms = 0
    for _, g in ipairs(info.row_groups) do
      for k = 1, g.columns.n do if g.columns[k].has_bloom_filter then blooms = blooms + 1 end end
    end
    T.ok(blooms > 0, codec .. ": DuckDB wrote bloom filters, and inspect sees them")
  end
  local f = dir .. "/snappy.parquet"
  duck(dir, "COPY (SELECT range AS i FROM range(10)) TO " .. sql_str(f) .. " (FORMAT parquet, COMPRESSION snappy)")
  T.ok(ok_run("inspect " .. q(f)):find("SNAPPY", 1, true), "inspect shows the codec")
  local out, err, code = inlay_cmd("cat " .. q(f))
  local has_snappy = false
  for _, c in ipairs(inlay.compressions()) do has_snappy = has_snappy or c == "snappy" end
  if has_snappy then
    T.eq(code, 0, "cat of a snappy file: exit status (" .. err .. ")")
    T.eq(out, "i\n0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n", "cat of a snappy file")
  else   -- a build without snappy (INLAY_WITH_SNAPPY=OFF)
    T.eq(code, 1, "cat of a snappy file: exit status (" .. err .. ")")
    T.ok(err:find("^inlay: ") and err:find("SNAPPY", 1, true), "the codec is named: " .. err)
    T.eq(out, "i\n", "only the header was written")
  end
end)

T.case("cat streams many batches and row groups", function()
  local dir = T.tmpdir("big")
  local f = dir .. "/big.parquet"
  local n = 150000
  local w = inlay.open(f, { { "id", "int64" }, { "half", "double", optional = true } }, { row_group_rows = 100000 })
  local ids, halves = {}, {}
  for i = 1, n do
    ids[i] = i
    halves[i] = i % 10 == 0 and inlay.null or i / 2
  end
  w:write_columns({ id = ids, half = halves }, n)
  w:close()
  local out = ok_run("cat --format ndjson " .. q(f))
  local count, ok = 0, true
  for id, half in out:gmatch('{"id":(%d+),"half":([^}]*)}\n') do
    count = count + 1
    local want = count % 10 == 0 and "null" or string.format("%.17g", count / 2)
    if tonumber(id) ~= count or (half ~= want and tonumber(half) ~= count / 2) then ok = false end
  end
  T.eq(count, n, "rows")
  T.ok(ok, "every row in order")
  local csv = ok_run("cat " .. q(f))
  T.eq(select(2, csv:gsub("\n", "")), n + 1, "csv lines")
  T.ok(csv:find("\n99999,49999.5\n100000,\n100001,50000.5\n", 1, true), "across the row groups' boundary")
end)

T.case("errors: exit statuses and messages", function()
  local dir = T.tmpdir("errors")
  local f = dir .. "/ok.parquet"
  write_nested(f, { row_group_rows = 250 })
  local bytes = T.read(f)
  T.write(dir .. "/text.txt", "id,name\n1,a\n")
  T.write(dir .. "/cut.parquet", bytes:sub(1, #bytes - 100))
  T.write(dir .. "/headless.parquet", bytes:sub(101))
  -- the footer intact, the first column chunks overwritten
  T.write(dir .. "/garbled.parquet", bytes:sub(1, 4) .. string.rep("\255", 200) .. bytes:sub(205))
  local cases = {
    { "cat " .. q(dir .. "/missing.parquet"), 3, "missing.parquet': No such file or directory" },
    { "head " .. q(dir), 3, "is a directory" },
    { "inspect " .. q(dir .. "/text.txt"), 1, "is not a Parquet file" },
    { "cat " .. q(dir .. "/cut.parquet"), 1, "cut.parquet" },
    { "inspect --json " .. q(dir .. "/headless.parquet"), 1, "headless.parquet" },
    { "cat " .. q(dir .. "/garbled.parquet"), 1, "row group 0" },
    { "head " .. q(f) .. " --bogus", 2, "unknown option '--bogus' (see inlay head --help)" },
    { "cat -x " .. q(f), 2, "unknown option '-x' (see inlay cat --help)" },
    { "head --json " .. q(f), 2, "unknown option '--json'" },
    { "inspect " .. q(f) .. " --json=yes", 2, "option '--json' takes no value" },
    { "head " .. q(f) .. " -n", 2, "option '-n' needs a value" },
    { "head " .. q(f) .. " -n ten", 2, "-n needs a number of rows, got 'ten'" },
    { "cat " .. q(f) .. " --format xml", 2, "--format is csv or ndjson, got 'xml'" },
    { "cat " .. q(f) .. " --columns nosuch", 2, "no column 'nosuch' in the file (its columns: id, tags, pos, m, mi, hits, ll)" },
    { "head " .. q(f) .. " --columns id,tags,id", 2, "column 'id' is named twice" },
    { "head " .. q(f) .. " --columns id,,tags", 2, "an empty column name in 'id,,tags'" },
    { "cat -", 2, "cat cannot read stdin" },
    { "head", 2, "head needs a Parquet FILE" },
    { "inspect " .. q(f) .. " " .. q(f), 2, "one FILE only" },
  }
  for _, c in ipairs(cases) do
    local out, err, code = inlay_cmd(c[1])
    T.eq(code, c[2], c[1] .. ": exit status (" .. err .. ")")
    T.ok(err:find("^inlay: ") and not err:find("^inlay: inlay: "), c[1] .. ": one prefix: " .. err)
    T.ok(err:find(c[3], 1, true), c[1] .. ": message " .. c[3] .. ": " .. err)
    if c[2] ~= 1 or not c[1]:find("garbled") then T.eq(out, "", c[1] .. ": nothing on stdout") end
  end
  -- -- ends the options: a file named -x.parquet
  os.execute("cp " .. q(f) .. " " .. q(dir .. "/-x.parquet"))
  local out, err, code = T.run("cd " .. q(dir) .. " && " .. bin .. " head -n 1 -- -x.parquet")
  T.eq(code, 0, "-- then a file starting with -: " .. err)
  T.ok(out:find("(1 of 700 rows)", 1, true), "its rows")
end)

T.case("--help of each command, and the top level's", function()
  for _, cmd in ipairs({ "inspect", "head", "cat" }) do
    local out, err, code = inlay_cmd(cmd .. " --help")
    T.eq(code, 0, cmd .. " --help: " .. err)
    T.ok(out:find("usage: inlay " .. cmd .. " FILE", 1, true) and out:find("exit status", 1, true), cmd .. " --help: " .. out)
    T.eq(select(1, inlay_cmd(cmd .. " -h")), out, cmd .. " -h")
  end
  local out = inlay_cmd("--help")
  for _, piece in ipairs({ "inlay inspect FILE [--json]", "inlay head FILE [-n N] [--columns A,B]",
                           "inlay cat FILE [--format csv|ndjson] [--columns A,B]" }) do
    T.ok(out:find(piece, 1, true), "inlay --help shows " .. piece)
  end
end)

T.case("inlay.inspect and inlay.head print what the commands print", function()
  local dir = T.tmpdir("lua")
  local f = dir .. "/nested.parquet"
  write_nested(f, { row_group_rows = 250 })
  local function lua_out(code)
    local out, err, status = T.run(bin .. " -e " .. q(code))
    return out, err, status
  end
  local F = string.format("%q", f)
  T.eq(lua_out("inlay.head(" .. F .. ")"), ok_run("head " .. q(f)), "inlay.head(path)")
  T.eq(lua_out("inlay.head(" .. F .. ", 3)"), ok_run("head -n 3 " .. q(f)), "inlay.head(path, n)")
  T.eq(lua_out("inlay.head(" .. F .. ", { n = 2, columns = { 'mi', 'id' } })"),
       ok_run("head -n 2 --columns mi,id " .. q(f)), "inlay.head(path, { n, columns = list })")
  T.eq(lua_out("inlay.head(" .. F .. ", { columns = 'pos' })"), ok_run("head --columns pos " .. q(f)),
       "inlay.head(path, { columns = text })")
  T.eq(lua_out("inlay.inspect(" .. F .. ")"), ok_run("inspect " .. q(f)), "inlay.inspect(path)")
  T.eq(lua_out("inlay.inspect(" .. F .. ", { json = true })"), ok_run("inspect --json " .. q(f)),
       "inlay.inspect(path, { json = true })")
  -- output interleaves with print's, in order
  T.eq(lua_out("print('before') inlay.head(" .. F .. ", 0) print('after')"),
       "before\n" .. ok_run("head -n 0 " .. q(f)) .. "after\n", "with print around it")
  local out, err, status = lua_out("print(pcall(inlay.head, " .. string.format("%q", dir .. "/missing.parquet") .. "))")
  T.eq(status, 0, "pcall: " .. err)
  T.ok(out:find("^false\tinlay: opening '.*missing.parquet': No such file or directory\n$"), "a missing file raises: " .. out)
  _, err, status = lua_out("inlay.inspect(" .. string.format("%q", dir .. "/missing.parquet") .. ")")
  T.eq(status, 3, "an I/O failure is exit status 3 in a job too: " .. err)
  out, err, status = lua_out("inlay.head(" .. F .. ", { columns = 'nope' })")
  T.ok(status == 1 and err:find("inlay: no column 'nope' in the file", 1, true), "a column that is not there: " .. err)
  T.eq(out, "", "nothing printed before the error")
  _, err = lua_out("inlay.head(" .. F .. ", -1)")
  T.ok(err:find("bad argument #2 to 'head'", 1, true), "a negative count: " .. err)
end)

T.finish()
