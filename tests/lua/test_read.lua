-- Reading Parquet: inlay.read and the reader's methods (schema, info,
-- batches, rows), inlay.parquet pipelines, and `inlay convert` with Parquet
-- input. Files written by inlay.open are read back value by value, types
-- included; copies are checked against their source by DuckDB (EXCEPT ALL
-- both ways empty).

local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/testlib.lua")
local inlay = require "inlay"

local NULL = inlay.null
local nan, inf = 0 / 0, math.huge
local function f32(x) return (string.unpack("<f", string.pack("<f", x))) end

-- ---- helpers -------------------------------------------------------------------

-- got equals want, deeply; numbers of the same subtype (integer or float),
-- NaN equal to itself, inlay.null only to itself.
local function same(got, want, path)
  if type(want) == "table" then
    if type(got) ~= "table" then T.fail(string.format("%s: expected a table, got %s", path, tostring(got)), 2) end
    for k, v in pairs(want) do same(got[k], v, path .. "[" .. tostring(k) .. "]") end
    for k in pairs(got) do
      if want[k] == nil then T.fail(string.format("%s: unexpected key %s", path, tostring(k)), 2) end
    end
    return
  end
  if type(want) == "number" then T.eq(math.type(got), math.type(want), path .. " (number subtype)") end
  T.eq(got, want, path)
end

local function read_all(path, opts)
  local r <close> = inlay.read(path)
  local rows = {}
  for row in r:rows(opts) do rows[#rows + 1] = row end
  return rows
end

-- Runs SQL statements in DuckDB; returns each one's rows, values as text
-- (nil for null). The script lives in the test's folder; duckdb_lua.mjs
-- finds the packages.
local sql_script
local function duck(...)
  if not sql_script then
    sql_script = T.tmpdir("duck") .. "/duckdb_sql.mjs"
    local lib = T.here:sub(1, 1) == "/" and T.here or (os.getenv("PWD") .. "/" .. T.here)
    T.write(sql_script, ([[
import { loadDuckDB, luaString } from 'file://LIB/duckdb_lua.mjs'
const duckdb = loadDuckDB('test_read')
const con = await (await duckdb.DuckDBInstance.create(':memory:')).connect()
const out = []
for (const sql of process.argv.slice(2)) {
  const rows = (await con.runAndReadAll(sql)).getRows()
  out.push('{' + rows.map(r => '{' + r.map(v => v === null ? 'nil' : luaString(String(v))).join(', ') + '}').join(', ') + '}')
}
process.stdout.write('return {' + out.join(', ') + '}\n')
]]):gsub("LIB", lib))
  end
  local node = os.getenv("INLAY_NODE")
  if not node or node == "" or node:match("NOTFOUND$") then T.fail("INLAY_NODE is not set: node is needed for DuckDB", 2) end
  local cmd = T.quote(node) .. " " .. T.quote(sql_script)
  for _, q in ipairs { ... } do cmd = cmd .. " " .. T.quote(q) end
  local out, err, code = T.run(cmd)
  if code ~= 0 then T.fail("DuckDB failed (" .. code .. "): " .. (err or ""), 2) end
  return assert(load(out, "=duckdb_sql"))()
end

local function rp(path, cols) return string.format("SELECT %s FROM read_parquet('%s')", cols or "*", path) end

-- DuckDB sees the same rows (as multisets) in a and b: a EXCEPT ALL b and
-- b EXCEPT ALL a are empty and the counts agree. `cols` is the select list
-- (to put map entries in order where Lua tables lost it); b may be a query.
local function same_as(a, b, cols, what)
  local qa = "SELECT * FROM (" .. rp(a, cols) .. ")"
  local qb = "SELECT * FROM (" .. (b:match("^SELECT") and b or rp(b, cols)) .. ")"
  local r = duck(string.format("SELECT count(*) FROM (%s EXCEPT ALL %s)", qa, qb),
                 string.format("SELECT count(*) FROM (%s EXCEPT ALL %s)", qb, qa),
                 string.format("SELECT count(*) FROM (%s)", qa), string.format("SELECT count(*) FROM (%s)", qb))
  T.eq(r[1][1][1], "0", (what or a) .. ": rows of the first not in the second")
  T.eq(r[2][1][1], "0", (what or a) .. ": rows of the second not in the first")
  T.eq(r[3][1][1], r[4][1][1], (what or a) .. ": row counts")
  return tonumber(r[3][1][1])
end

local function run_inlay(args)
  local cmd = T.quote(T.bin)
  for _, a in ipairs(args) do cmd = cmd .. " " .. T.quote(a) end
  return T.run(cmd)
end

-- ---- every flat type ---------------------------------------------------------------

local R = 10

-- name, type, values written (nil = null), and what reads back (want;
-- the values themselves when absent).
local flat = {
  { "id", "int64", required = true, vals = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 } },
  { "b", "boolean", vals = { true, false, nil, true, false, nil, true, true, false, true } },
  { "i8", "int8", vals = { -128, 127, nil, 0, -1, 1, nil, 100, 2, -2 } },
  { "i16", "int16", vals = { -32768, 32767, 0, nil, 1, 2, 3, 4, 5, 6 } },
  { "i32", "int32", vals = { -2147483648, 2147483647, 0, nil, 1, -1, 3, 4, 5, 6 } },
  { "i64", "int64", vals = { math.mininteger, math.maxinteger, 0, nil, 1, -1, 1 << 53, 4, 5, 6 } },
  { "u8", "uint8", vals = { 0, 255, nil, 1, 2, 3, 4, 5, 6, 7 } },
  { "u16", "uint16", vals = { 0, 65535, nil, 1, 2, 3, 4, 5, 6, 7 } },
  { "u32", "uint32", vals = { 0, 4294967295, nil, 2147483648, 2, 3, 4, 5, 6, 7 } },
  { "u64", "uint64", vals = { 0, math.maxinteger, "18446744073709551615", "9223372036854775808", nil, 1,
                              "12345678901234567890", 7, 8, 9 } },
  { "f", "float", vals = { 1.5, 0.1, -3.4e38, inf, nil, nan, -0.0, 1, 16777217, -inf },
    want = { 1.5, f32(0.1), f32(-3.4e38), inf, nil, nan, -0.0, 1.0, 16777216.0, -inf } },
  { "d", "double", vals = { 0.1, -1e308, inf, -inf, nil, nan, 5e-324, 42, -0.0, 1 / 3 },
    want = { 0.1, -1e308, inf, -inf, nil, nan, 5e-324, 42.0, -0.0, 1 / 3 } },
  { "h", "float16", vals = { 1.0, 0.5, -2, 65504, nil, 0.1, 1 / 3, 2051, -0.0, 0 },
    want = { 1.0, 0.5, -2.0, 65504.0, nil, 0.0999755859375, 0.333251953125, 2052.0, -0.0, 0.0 } },
  { "s", "string", vals = { "a", "bb", "", "héllo", "日本語", nil, "x", "quote\"", "back\\slash", "end" } },
  { "bin", "binary", vals = { "\0\1\255", "", nil, "abc", "\0", "x", "y", nil, "z", "\n" } },
  { "j", "json", vals = { '{"a":1}', "[]", nil, "null", '"s"', "1", "2", "3", "{}", "[1,2]" } },
  { "e", "enum", vals = { "RED", "GREEN", nil, "BLUE", "RED", "RED", "GREEN", nil, "BLUE", "RED" } },
  { "uu", "uuid", vals = { "123E4567-E89B-12D3-A456-426614174000", string.rep("\255", 16), nil,
                           "00000000-0000-0000-0000-000000000000", "abcdefab-cdef-abcd-efab-cdefabcdefab",
                           nil, "123e4567-e89b-12d3-a456-426614174000", nil, nil, string.rep("\0", 16) },
    want = { "123e4567-e89b-12d3-a456-426614174000", "ffffffff-ffff-ffff-ffff-ffffffffffff", nil,
             "00000000-0000-0000-0000-000000000000", "abcdefab-cdef-abcd-efab-cdefabcdefab",
             nil, "123e4567-e89b-12d3-a456-426614174000", nil, nil, "00000000-0000-0000-0000-000000000000" } },
  { "dt", "date", vals = { 0, -1, 19000, 2932896, -719162, nil, 1, 2, 3, 4 } },
  { "ts_ms", inlay.timestamp("ms"), vals = { 1700000000123, 0, -1, nil, 1, 2, 3, 4, 5, 6 } },
  { "ts_us", inlay.timestamp("us", { utc = true }), vals = { 1700000000123456, 0, -1, nil, 1, 2, 3, 4, 5, 6 } },
  { "ts_ns", inlay.timestamp("ns"), vals = { 1700000000123456789, 0, -1, nil, 1, 2, 3, 4, 5, 6 } },
  { "t_ms", inlay.time("ms"), vals = { 0, 86399999, 43200000, nil, 1, 2, 3, 4, 5, 6 } },
  { "t_us", inlay.time("us", { utc = true }), vals = { 0, 86399999999, 1, nil, 1, 2, 3, 4, 5, 6 } },
  { "t_ns", inlay.time("ns"), vals = { 0, 86399999999999, 1, nil, 1, 2, 3, 4, 5, 6 } },
  { "dec9", inlay.decimal(9, 2), vals = { "1.25", "-9999999.99", nil, "0", 3, "-0.5", "7.1", "8", "9.99", "10" },
    want = { "1.25", "-9999999.99", nil, "0.00", "3.00", "-0.50", "7.10", "8.00", "9.99", "10.00" } },
  { "dec18", inlay.decimal(18, 4), vals = { "12345678901234.5678", "-1", nil, "0.0001", "2", "3", "4", "5", "6", "7" },
    want = { "12345678901234.5678", "-1.0000", nil, "0.0001", "2.0000", "3.0000", "4.0000", "5.0000", "6.0000",
             "7.0000" } },
  { "dec38", inlay.decimal(38, 10), vals = { "1234567890123456789012345678.1234567890", "-0.0000000001", nil, "0",
                                             "1", "2", "3", "4", "5", "6" },
    want = { "1234567890123456789012345678.1234567890", "-0.0000000001", nil, "0.0000000000", "1.0000000000",
             "2.0000000000", "3.0000000000", "4.0000000000", "5.0000000000", "6.0000000000" } },
  { "dec50", inlay.decimal(50, 3), vals = { "-1234567890123456789012345678901234567890123456.789", "0.001", nil,
                                            "1", "2", "3", "4", "5", "6", "7" },
    want = { "-1234567890123456789012345678901234567890123456.789", "0.001", nil, "1.000", "2.000", "3.000",
             "4.000", "5.000", "6.000", "7.000" } },
  { "fx", inlay.fixed(3), vals = { "abc", "\0\0\0", nil, "xyz", "123", "\255\254\253", nil, "aaa", "bbb", "ccc" } },
}

-- The encodings a column of this type may be given (see inlay.h).
local function encoding_for(c, which)
  local ty = type(c[2]) == "string" and c[2] or tostring(c[2])
  if which == "plain" then return "plain" end
  if which == "dictionary" then return ty ~= "boolean" and "dictionary" or nil end
  if which == "delta" then
    if ty:match("int") or ty == "string" or ty == "binary" or ty == "json" or ty == "enum" or ty == "date" or
       ty:match("timestamp") or ty:match("time%(") then
      return "delta"
    end
    if ty:match("fixed") or ty == "uuid" then return "delta_byte_array" end
    if ty == "float" or ty == "double" then return "byte_stream_split" end
  end
  return nil
end

local function flat_schema(encoding)
  local fields = {}
  for i, c in ipairs(flat) do
    fields[i] = { c[1], c[2], optional = not c.required or nil, encoding = encoding and encoding_for(c, encoding) }
  end
  return inlay.schema(fields)
end

local function flat_columns()
  local cols = {}
  for _, c in ipairs(flat) do
    local a = {}
    for i = 1, R do
      local v = c.vals[i]
      if v == nil then a[i] = NULL else a[i] = v end
    end
    cols[c[1]] = a
  end
  return cols
end

local function want_of(c, i)
  local w = c.want or c.vals
  local v = w[i]
  if c[1] == "u64" then return v end   -- past 2^63: exact text
  if type(c[2]) == "string" and (c[2]:match("^int") or c[2]:match("^uint") or c[2] == "date") then
    return v and math.tointeger(v) or nil
  end
  return v
end

local function write_flat(path, opts, encoding)
  local w <close> = inlay.open(path, flat_schema(encoding), opts)
  w:write_columns(flat_columns(), R)
  return w:close()
end

local dir = T.tmpdir("flat")
local variants = {
  { name = "v1", opts = { row_group_rows = 4, page_rows = 2 } },
  { name = "v2", opts = { row_group_rows = 3, page_rows = 2, page_version = 2 } },
  { name = "v2-plain", opts = { page_version = 2, compression = "uncompressed" }, encoding = "plain" },
  { name = "v1-dict", opts = { row_group_rows = 5, page_rows = 1 }, encoding = "dictionary" },
  { name = "v2-delta", opts = { page_version = 2, page_rows = 3 }, encoding = "delta" },
}

for _, v in ipairs(variants) do
  T.case("every flat type reads back as written: " .. v.name, function()
    local path = dir .. "/" .. v.name .. ".parquet"
    write_flat(path, v.opts, v.encoding)
    local r <close> = inlay.read(path)
    T.eq(tostring(r:schema()), tostring(flat_schema()), "schema")
    local n_total, batches = 0, 0
    for cols, n in r:batches { rows = 3 } do
      batches = batches + 1
      T.ok(n >= 1 and n <= 3, "a batch of 1..3 rows")
      for _, c in ipairs(flat) do
        local a = cols[c[1]]
        T.eq(#a, n, c[1] .. ": one entry per row")
        for i = 1, n do
          local want = want_of(c, n_total + i)
          if want == nil then T.eq(a[i], NULL, c[1] .. " row " .. (n_total + i) .. " is inlay.null")
          else same(a[i], want, c[1] .. " row " .. (n_total + i)) end
        end
      end
      n_total = n_total + n
    end
    T.eq(n_total, R, "rows")
    local rows = read_all(path)
    T.eq(#rows, R, "rows()")
    for i, row in ipairs(rows) do
      for _, c in ipairs(flat) do same(row[c[1]], want_of(c, i), "rows() " .. c[1] .. " row " .. i) end
    end
  end)
end

T.case("the schema of a file is the schema that wrote it, and opens a writer", function()
  local path = dir .. "/v1.parquet"
  local r <close> = inlay.read(path)
  local s = r:schema()
  T.eq(getmetatable(s).__name, "inlay.schema", "a schema userdata")
  local want = flat_schema():columns()
  for i, c in ipairs(s:columns()) do
    T.eq(c.name, want[i].name, "name " .. i)
    T.eq(c.type, want[i].type, "type of " .. c.name)
    T.eq(c.optional, want[i].optional, "optional " .. c.name)
  end
  local out = dir .. "/reopened.parquet"
  local w <close> = inlay.open(out, r:schema())
  w:write_columns(flat_columns(), R)
  T.eq(w:close().rows, R, "rows written")
  local inferred, fields = inlay.infer(path)
  T.eq(tostring(inferred), tostring(s), "inlay.infer on a Parquet file")
  T.eq(tostring(inlay.schema(fields)), tostring(s), "its field table")
end)

T.case("the copy loop (batches into write_columns) makes a file DuckDB reads as the source", function()
  for _, v in ipairs(variants) do
    local src = dir .. "/" .. v.name .. ".parquet"
    local out = dir .. "/" .. v.name .. "-copy.parquet"
    do
      local r <close> = inlay.read(src)
      local w <close> = inlay.open(out, r:schema(), { row_group_rows = 7 })
      for cols, n in r:batches { rows = 4 } do w:write_columns(cols, n) end
      w:close()
    end
    T.eq(same_as(src, out, nil, v.name), R, v.name .. ": rows")
  end
end)

T.case("info: row groups, column chunks, codecs, encodings, statistics, metadata", function()
  local path = dir .. "/info.parquet"
  -- min_compression_gain = 0: chunks of 4 rows do not shrink, and would be stored uncompressed
  write_flat(path, { row_group_rows = 4, min_compression_gain = 0, metadata = { source = "test", n = "42" } })
  local r <close> = inlay.read(path)
  local info = r:info()
  T.eq(info.num_rows, R, "num_rows")
  T.eq(info.num_row_groups, 3, "num_row_groups")
  T.eq(#info.row_groups, 3, "row_groups")
  T.eq(info.created_by, "inlay version " .. inlay.version, "created_by")
  T.eq(info.metadata.source, "test", "metadata")
  T.eq(info.metadata.n, "42", "metadata")
  T.eq(info.num_columns, #flat, "num_columns")
  local rows = 0
  for g, rg in ipairs(info.row_groups) do
    rows = rows + rg.num_rows
    T.ok(rg.total_byte_size > 0, "total_byte_size")
    T.eq(#rg.columns, #flat, "a chunk per column")
    for k, ch in ipairs(rg.columns) do
      T.eq(ch.path, flat[k][1], "path")
      T.eq(ch.codec, "zstd", "codec")
      T.ok(#ch.encodings >= 1, "encodings")
      T.ok(ch.compressed_size > 0 and ch.uncompressed_size > 0, "sizes")
      T.eq(ch.num_values, rg.num_rows, "num_values")
      T.ok(ch.statistics and ch.statistics.null_count, "null_count")
    end
    -- id and i64: min and max as the values of the group
    local first = (g - 1) * 4 + 1
    local last = first + rg.num_rows - 1
    same(rg.columns[1].statistics.min, first, "id min of group " .. g)
    same(rg.columns[1].statistics.max, last, "id max of group " .. g)
    T.eq(rg.columns[1].type, "int64", "type")
  end
  T.eq(rows, R, "rows of the groups")
  local g1 = info.row_groups[1].columns
  local by = {}
  for k, c in ipairs(flat) do by[c[1]] = g1[k] end
  same(by.i64.statistics.min, math.mininteger, "i64 min")
  same(by.i64.statistics.max, math.maxinteger, "i64 max")
  same(by.u32.statistics.max, 4294967295, "u32 max, unsigned")
  same(by.s.statistics.min, "", "string min")
  same(by.dec9.statistics.min, "-9999999.99", "decimal min as text")
  same(by.uu.statistics.max, "ffffffff-ffff-ffff-ffff-ffffffffffff", "uuid max as text")
  same(by.f.statistics.max, inf, "float max")
  T.eq(by.b.statistics.null_count, 1, "boolean null_count")
  T.eq(by.dec9.type, "decimal(9,2)", "decimal type")
end)

-- ---- nested ------------------------------------------------------------------------

local nested_fields = {
  { "id", "int64" },
  { "st", inlay.struct { { "x", "int32" }, { "y", "string", optional = true } }, optional = true },
  { "li", inlay.list("int64"), optional = true },
  { "lr", inlay.list("string", { nullable = false }) },
  { "m", inlay.map("string", "int64"), optional = true },
  { "ls", inlay.list(inlay.struct { { "a", "int32" }, { "b", inlay.list("string"), optional = true } }) },
  { "ml", inlay.map("string", inlay.list("double")), optional = true },
  { "ll", inlay.list(inlay.list("int32")), optional = true },
  { "sm", inlay.struct { { "inner", inlay.map("int32", "string"), optional = true },
                         { "z", "uuid", optional = true } }, optional = true },
  { "dl", inlay.list(inlay.decimal(20, 2)), optional = true },
}

local NR = 9
local function nested_rows()
  local uuid = "00112233-4455-6677-8899-aabbccddeeff"
  return {
    { id = 1, st = { x = 1, y = "a" }, li = { 1, 2, 3 }, lr = { "p", "q" }, m = { a = 1, b = 2, c = NULL },
      ls = { { a = 1, b = { "u", NULL } }, { a = 2 } }, ml = { k = { 1.5, NULL }, l = {} }, ll = { { 1 }, {}, { 2, 3 } },
      sm = { inner = { [7] = "seven" }, z = uuid }, dl = { "1.50", NULL, "-123456789012345678.99" } },
    { id = 2, st = { x = 2 }, li = {}, lr = {}, m = {}, ls = {}, ml = {}, ll = {}, sm = {}, dl = {} },
    { id = 3, lr = { "only" }, ls = { { a = 3, b = {} } } },
    { id = 4, st = { x = -4, y = "" }, li = { NULL, 5 }, lr = { "" }, m = { z = -9 }, ls = { { a = 4 } },
      ml = { x = { 0.25 } }, ll = { NULL, { NULL } }, sm = { z = uuid }, dl = { "0.00" } },
    { id = 5, lr = {}, ls = {}, li = { math.maxinteger, math.mininteger }, sm = { inner = {} } },
    { id = 6, st = { x = 6, y = "six" }, lr = { "a", "b", "c" }, m = { k = 6 }, ls = { { a = 6, b = { "x" } } },
      ml = { one = { 1.0 }, two = { 2.0, 2.5 }, three = NULL } },
    { id = 7, lr = { "seven" }, ls = { { a = 7 }, { a = 8 }, { a = 9 } }, ll = { { 7, 7 } } },
    { id = 8, lr = {}, ls = {}, m = { only = NULL } },
    { id = 9, st = { x = 9 }, lr = { "nine" }, ls = { { a = 9, b = { NULL } } }, dl = { NULL } },
  }
end

local ndir = T.tmpdir("nested")

local function write_nested(path, opts)
  local w <close> = inlay.open(path, inlay.schema(nested_fields), opts)
  for _, row in ipairs(nested_rows()) do w:write(row) end
  return w:close()
end

-- Maps in DuckDB's view with their entries sorted, for comparing files
-- whose maps went through Lua tables (whose order Lua keeps to itself).
local NESTED_COLS = "id, st, li, lr, list_sort(map_entries(m)) AS m, ls, list_sort(map_entries(ml)) AS ml, ll, " ..
                    "sm, dl"

for _, pv in ipairs { 1, 2 } do
  T.case("nested values read back as written (page version " .. pv .. ")", function()
    local path = ndir .. "/nested" .. pv .. ".parquet"
    write_nested(path, { page_version = pv, row_group_rows = 4, page_rows = 2 })
    local r <close> = inlay.read(path)
    T.eq(tostring(r:schema()), tostring(inlay.schema(nested_fields)), "schema")
    local want = nested_rows()
    local i = 0
    for row in r:rows() do
      i = i + 1
      same(row, want[i], "row " .. i)
    end
    T.eq(i, NR, "rows")
    -- the columns of batches: the same values, inlay.null for a null field
    local k = 0
    for cols, n in r:batches { rows = 2 } do
      for j = 1, n do
        for _, f in ipairs(nested_fields) do
          local v = want[k + j][f[1]]
          same(cols[f[1]][j], v == nil and NULL or v, f[1] .. " row " .. (k + j))
        end
      end
      k = k + n
    end
    T.eq(k, NR, "rows of batches")
  end)
end

T.case("nested copy loop: batches into write_columns, DuckDB reads the same", function()
  local src = ndir .. "/nested1.parquet"
  local out = ndir .. "/nested-copy.parquet"
  do
    local r <close> = inlay.read(src)
    local w <close> = inlay.open(out, r:schema())
    for cols, n in r:batches { rows = 3 } do w:write_columns(cols, n) end
    w:close()
  end
  T.eq(same_as(src, out, NESTED_COLS, "nested copy"), NR, "rows")
end)

-- ---- selections -----------------------------------------------------------------------

T.case("columns: only the fields named, in their order", function()
  local r <close> = inlay.read(ndir .. "/nested1.parquet")
  local want = nested_rows()
  local k = 0
  for cols, n in r:batches { columns = { "ls", "id" } } do
    local keys = {}
    for name in pairs(cols) do keys[#keys + 1] = name end
    table.sort(keys)
    T.eq(table.concat(keys, ","), "id,ls", "the columns asked for")
    for j = 1, n do
      same(cols.id[j], want[k + j].id, "id")
      same(cols.ls[j], want[k + j].ls, "ls")
    end
    k = k + n
  end
  T.eq(k, NR, "rows")
  local i = 0
  for row in r:rows { columns = { "m" } } do
    i = i + 1
    same(row, { m = want[i].m }, "row " .. i)
  end
  T.raises(function() r:batches { columns = { "nope" } } end, "no column 'nope'")
  T.raises(function() r:batches { columns = { "id", "id" } } end, "named twice")
  T.raises(function() r:batches { colums = { "id" } } end, "unknown option colums")
end)

T.case("row_groups: only the groups named (1-based, in the order given)", function()
  local path = dir .. "/v1.parquet"   -- row groups of 4: ids 1-4, 5-8, 9-10
  local r <close> = inlay.read(path)
  T.eq(r:info().num_row_groups, 3, "groups")
  local ids = {}
  for cols, n in r:batches { row_groups = { 3, 1 }, columns = { "id" } } do
    for j = 1, n do ids[#ids + 1] = cols.id[j] end
  end
  T.eq(table.concat(ids, ","), "9,10,1,2,3,4", "ids of groups 3 then 1")
  T.raises(function() r:rows { row_groups = { 4 } } end, "no row group 4 (the file has 3")
  T.raises(function() r:rows { row_groups = { 0 } } end, "no row group 0")
end)

T.case("a batch never spans row groups; rows bounds its size", function()
  local r <close> = inlay.read(dir .. "/v1.parquet")
  local sizes = {}
  for _, n in r:batches { rows = 3 } do sizes[#sizes + 1] = n end
  T.eq(table.concat(sizes, ","), "3,1,3,1,2", "batch sizes")
  T.raises(function() r:batches { rows = 0 } end, "option 'rows'")
end)

T.case("a later batches() or rows() ends the earlier iteration; a closed reader says so", function()
  local r = inlay.read(dir .. "/v1.parquet", { batch_rows = 2 })
  local it = r:batches()
  local _, n = it()
  T.eq(n, 2, "batch_rows from inlay.read's options")
  local it2 = r:rows()
  T.ok(it2(), "the new iteration runs")
  T.raises(it, "ended by a later batches() or rows()")
  r:close()
  T.raises(it2, "closed")
  T.raises(function() r:info() end, "closed")
  r:close()   -- idempotent
  T.ok(tostring(r):find("closed"), "tostring of a closed reader")
  T.raises(function() inlay.read(dir .. "/v1.parquet", { nope = 1 }) end, "unknown option nope")
end)

-- ---- errors ----------------------------------------------------------------------------

T.case("files that are not Parquet, or are corrupt, raise the reader's message", function()
  local edir = T.tmpdir("errors")
  local missing = edir .. "/missing.parquet"
  T.raises(function() inlay.read(missing) end, missing)
  local text = edir .. "/text.parquet"
  T.write(text, "id,name\n1,a\n")
  T.raises(function() inlay.read(text) end, "not a Parquet file")
  T.write(edir .. "/empty.parquet", "")
  T.raises(function() inlay.read(edir .. "/empty.parquet") end, "not a Parquet file")
  -- a good file cut short, and one whose footer length is wrong
  local good = T.read(dir .. "/v2-plain.parquet")
  T.write(edir .. "/cut.parquet", good:sub(1, #good - 10))
  T.raises(function() inlay.read(edir .. "/cut.parquet") end, "inlay: ")
  T.write(edir .. "/len.parquet", good:sub(1, #good - 8) .. string.pack("<I4", #good) .. "PAR1")
  T.raises(function() inlay.read(edir .. "/len.parquet") end, "footer")
  -- the footer intact, the pages overwritten: an error at the batch, naming where
  local smashed = "PAR1" .. string.rep("\255", 200) .. good:sub(205)
  T.write(edir .. "/pages.parquet", smashed)
  local r <close> = inlay.read(edir .. "/pages.parquet")
  local err = T.raises(function() for _ in r:batches() do end end, "row group")
  T.ok(err:find("^inlay: "), "one inlay: prefix: " .. err)
  T.raises(function() for _ in r:rows() do end end, "row group")
end)

-- ---- pipelines ---------------------------------------------------------------------------

T.case("inlay.parquet with no stage copies every field as it is, nested maps in order", function()
  local pdir = T.tmpdir("pipe")
  local src = ndir .. "/nested1.parquet"
  local out = pdir .. "/same.parquet"
  local p <close> = inlay.parquet(src, { batch_rows = 4 })
  local w <close> = inlay.open(out, p:schema())
  local summary = p:write(w)
  T.eq(summary.rows_in, NR, "rows_in")
  T.eq(summary.rows_out, NR, "rows_out")
  T.ok(summary.bytes_read > 0, "bytes_read")
  w:close()
  T.eq(same_as(src, out, nil, "pipeline copy"), NR, "rows")
  local flat_out = pdir .. "/flat.parquet"
  local fp <close> = inlay.source(dir .. "/v2.parquet")   -- detected by its bytes
  local fw <close> = inlay.open(flat_out, fp:schema())
  fp:write(fw)
  fw:close()
  T.eq(same_as(dir .. "/v2.parquet", flat_out, nil, "flat pipeline copy"), R, "rows")
end)

T.case("a filtered pipeline gathers untouched nested fields in C, map entries in order", function()
  local pdir = T.tmpdir("pipe-filter")
  local src = ndir .. "/nested2.parquet"
  local out = pdir .. "/odd.parquet"
  local p <close> = inlay.parquet(src, { batch_rows = 4 })
  p:filter(function(r) return r.id % 2 == 1 end, { reads = { "id" } })
   :map(function(r) if r.id == 5 then return { r, r } end return r end, { reads = { "id" }, writes = {} })
  local w <close> = inlay.open(out, p:schema())
  T.eq(p:write(w).rows_out, 6, "rows out: five odd ids, 5 twice")
  w:close()
  same_as(out, string.format("%s WHERE id %% 2 = 1 UNION ALL %s WHERE id = 5", rp(src), rp(src)), nil, "filtered")
  local want = nested_rows()
  local got = read_all(out)
  local ids = {}
  for i, row in ipairs(got) do
    ids[i] = row.id
    same(row, want[row.id], "row " .. i)
  end
  T.eq(table.concat(ids, ","), "1,3,5,5,7,9", "ids")
end)

T.case("inlay.parquet pipelines: filter, map, select, rename, drop, map_batch", function()
  local pdir = T.tmpdir("pipe2")
  local src = ndir .. "/nested2.parquet"
  local out = pdir .. "/out.parquet"
  local p = inlay.parquet(src)
  p:filter(function(r) return r.id % 2 == 1 end)
   :map(function(r) r.n = r.li and #r.li or -1 return r end)
   :rename { st = "point" }
   :drop { "ml" }
   :select { "id", "point", "li", "n", "ls", "m", "sm" }
   :map_batch(function(b)
     local ids = b.id
     for i = 1, b.n do ids[i] = ids[i] * 100 end
   end)
  local w <close> = inlay.open(out, {
    { "id", "int64" },
    { "point", inlay.struct { { "x", "int32" }, { "y", "string", optional = true } }, optional = true },
    { "li", inlay.list("int64"), optional = true },
    { "n", "int32" },
    { "ls", inlay.list(inlay.struct { { "a", "int32" }, { "b", inlay.list("string"), optional = true } }) },
    { "m", inlay.map("string", "int64"), optional = true },
    { "sm", inlay.struct { { "inner", inlay.map("int32", "string"), optional = true },
                           { "z", "uuid", optional = true } }, optional = true },
  })
  local summary = p:write(w)
  T.eq(summary.rows_in, NR, "rows_in")
  T.eq(summary.rows_out, 5, "rows_out")
  w:close()
  p:close()
  local got = read_all(out)
  local want = {}
  for _, row in ipairs(nested_rows()) do
    if row.id % 2 == 1 then
      want[#want + 1] = { id = row.id * 100, point = row.st, li = row.li, n = row.li and #row.li or -1, ls = row.ls,
                          m = row.m, sm = row.sm }
    end
  end
  T.eq(#got, #want, "rows")
  for i = 1, #want do same(got[i], want[i], "row " .. i) end
end)

T.case("inlay.parquet: columns and row_groups options; types converted where the writer differs", function()
  local pdir = T.tmpdir("pipe3")
  local out = pdir .. "/out.parquet"
  local p <close> = inlay.parquet(dir .. "/v1.parquet", { columns = { "i32", "id" }, row_groups = { 2 } })
  T.eq(#p:schema(), 2, "the schema of the columns")
  local w <close> = inlay.open(out, { { "id", "int32" }, { "i32", "int64", optional = true } })
  T.eq(p:write(w).rows_out, 4, "rows of group 2")
  w:close()
  local got = read_all(out)
  for i, row in ipairs(got) do
    same(row.id, 4 + i, "id")
    same(row.i32, want_of(flat[5], 4 + i), "i32")
  end
  -- every field, in another order: the pipeline's schema follows it
  local two = pdir .. "/two.parquet"
  local w2 = inlay.open(two, { { "a", "int64" }, { "b", "string" } })
  w2:write_columns { a = { 1, 2 }, b = { "x", "y" } }
  w2:close()
  local q <close> = inlay.parquet(two, { columns = { "b", "a" } })
  T.eq(q:schema():columns()[1].name, "b", "the schema in the order asked for")
  local swapped = pdir .. "/swapped.parquet"
  local w3 <close> = inlay.open(swapped, q:schema())
  q:write(w3)
  w3:close()
  same(read_all(swapped), { { a = 1, b = "x" }, { a = 2, b = "y" } }, "swapped")
  T.raises(function() inlay.parquet(dir .. "/v1.parquet", { delimiter = "," }) end, "unknown option delimiter")
  T.raises(function() inlay.parquet(dir .. "/v1.parquet", { columns = { "zz" } }) end, "no column 'zz'")
  T.ok(tostring(p):find("inlay.parquet", 1, true), "tostring")
end)

T.case("a pipeline over a Parquet file: a bad value a transform made names its row", function()
  local p <close> = inlay.parquet(dir .. "/v1.parquet")
  p:map(function(r) if r.id == 6 then r.s = 42 end return r end, { reads = { "id" }, writes = { "s" } })
  local w <close> = inlay.open(T.tmpdir("pipe4") .. "/x.parquet", { { "s", "string", optional = true } })
  T.raises(function() p:write(w) end, "row 6")
  w:abort()
end)

-- ---- files from another writer ------------------------------------------------------------

T.case("a DuckDB file: decimals stored wider than inlay stores them, also inside nested fields", function()
  local ddir = T.tmpdir("duckdb")
  local src = ddir .. "/duck.parquet"
  duck(string.format([[COPY (SELECT i::INT AS id, (i * 1.25)::DECIMAL(20,2) AS d20, (i / 10)::DECIMAL(4,1) AS d4,
      (i * -7.5)::DECIMAL(38,5) AS d38, (i * -1234567890123456.78)::DECIMAL(20,2) AS big,
      [(i * -1.5)::DECIMAL(20,2), NULL] AS ld, {'a': i, 'dd': (i * 2)::DECIMAL(22,3)} AS sd,
      MAP {'k' || i: (i * 3)::DECIMAL(25,3), 'z': NULL} AS md, CASE WHEN i %% 3 = 0 THEN NULL ELSE 'v' || i END AS s,
      '00112233-4455-6677-8899-aabbccddeeff'::UUID AS u, i::UTINYINT AS ut, i::UINTEGER AS ui, i::UBIGINT AS ub,
      DATE '2024-01-01' + i::INT AS dt
    FROM range(1, 8) t(i)) TO '%s' (FORMAT PARQUET, ROW_GROUP_SIZE 3, COMPRESSION zstd)]], src))
  local r <close> = inlay.read(src)
  local types = {}
  for _, c in ipairs(r:schema():columns()) do types[#types + 1] = c.name .. " " .. c.type end
  T.eq(table.concat(types, ", "), "id int32, d20 decimal(20,2), d4 decimal(4,1), d38 decimal(38,5), " ..
       "big decimal(20,2), ld list<optional decimal(20,2)>, sd struct<a: optional int64, dd: optional decimal(22,3)>, " ..
       "md map<string, optional decimal(25,3)>, s string, u uuid, ut uint8, ui uint32, ub uint64, dt date", "types")
  local rows = read_all(src)
  T.eq(#rows, 7, "rows")
  for i, row in ipairs(rows) do
    same(row, {
      id = i, d20 = string.format("%.2f", i * 1.25), d4 = string.format("%.1f", i / 10),
      d38 = string.format("-%.5f", i * 7.5), big = row.big, ld = { string.format("-%.2f", i * 1.5), NULL },
      sd = { a = i, dd = string.format("%.3f", i * 2) }, md = { ["k" .. i] = string.format("%.3f", i * 3), z = NULL },
      s = i % 3 ~= 0 and "v" .. i or nil, u = "00112233-4455-6677-8899-aabbccddeeff", ut = i, ui = i, ub = i,
      dt = 19723 + i,
    }, "row " .. i)
  end
  T.eq(rows[1].big, "-1234567890123456.78", "a wide negative decimal")
  T.eq(rows[7].big, "-8641975230864197.46", "a wide negative decimal")
  -- three copies: Lua values, a pipeline (the reader's arrays, filtered), the command
  local a = ddir .. "/batches.parquet"
  do
    local w <close> = inlay.open(a, r:schema())
    for cols, n in r:batches { rows = 2 } do w:write_columns(cols, n) end
    w:close()
  end
  same_as(src, a, "* EXCLUDE (md), list_sort(map_entries(md))", "DuckDB file through Lua values")
  local b = ddir .. "/pipeline.parquet"
  do
    local p <close> = inlay.parquet(src)
    p:filter(function(row) return row.id ~= 4 end)
    local w <close> = inlay.open(b, p:schema())
    p:write(w)
    w:close()
  end
  same_as(b, rp(src) .. " WHERE id <> 4", nil, "DuckDB file through a pipeline")
  local c = ddir .. "/convert.parquet"
  local _, err, code = run_inlay { "convert", src, c, "-q" }
  T.eq(code, 0, "convert: " .. (err or ""))
  same_as(src, c, nil, "DuckDB file converted")
  -- snappy; in a build without it, the reader's message, at the batch
  local snappy = ddir .. "/snappy.parquet"
  duck(string.format("COPY (SELECT 1 AS x) TO '%s' (FORMAT PARQUET, COMPRESSION snappy)", snappy))
  local rs <close> = inlay.read(snappy)
  local has_snappy = false
  for _, c in ipairs(inlay.compressions()) do has_snappy = has_snappy or c == "snappy" end
  if has_snappy then
    local cols, n = rs:batches()()
    T.eq(n, 1, "snappy: rows")
    T.eq(cols.x[1], 1, "snappy: the value")
  else
    T.raises(function() for _ in rs:batches() do end end, "SNAPPY")
  end
end)

-- ---- inlay convert -----------------------------------------------------------------------

T.case("convert rewrites Parquet with other options; DuckDB reads the same", function()
  local cdir = T.tmpdir("convert")
  for _, src in ipairs { ndir .. "/nested2.parquet", dir .. "/v1-dict.parquet" } do
    local out = cdir .. "/" .. src:match("([^/]+)$")
    local _, err, code = run_inlay { "convert", src, out, "--compression", "uncompressed", "--row-group-rows", "2",
                                     "--page-rows", "1", "--page-version", "2", "-q" }
    T.eq(code, 0, "exit status: " .. (err or ""))
    T.eq(err, "", "quiet")
    local r <close> = inlay.read(out)
    local info = r:info()
    T.eq(info.row_groups[1].columns[1].codec, "uncompressed", "codec")
    T.eq(info.row_groups[1].num_rows, 2, "row group rows")
    T.eq(tostring(r:schema()), tostring(inlay.read(src):schema()), "schema")
    same_as(src, out, nil, "rewrite of " .. src)
  end
  local out = cdir .. "/level.parquet"
  local _, err, code = run_inlay { "convert", dir .. "/v1.parquet", out, "--compression=zstd:9", "--compression-level",
                                   "1", "-v" }
  T.eq(code, 0, "exit status: " .. (err or ""))
  T.ok(err:find("parquet, 10 rows in 3 row groups", 1, true), "verbose says what it read: " .. err)
  T.ok(err:find("10 rows in, 10 rows out", 1, true), "summary: " .. err)
  same_as(dir .. "/v1.parquet", out, nil, "zstd level")
end)

T.case("convert merges Parquet inputs of one schema", function()
  local cdir = T.tmpdir("merge")
  local a, b, c = dir .. "/v1.parquet", dir .. "/v2.parquet", dir .. "/v2-delta.parquet"
  local out = cdir .. "/merged.parquet"
  local _, err, code = run_inlay { "convert", a, b, c, out, "-q" }
  T.eq(code, 0, "exit status: " .. (err or ""))
  local union = string.format("%s UNION ALL %s UNION ALL %s", rp(a), rp(b), rp(c))
  T.eq(same_as(out, union, nil, "merge"), 3 * R, "rows")
  T.eq(inlay.read(out):info().num_rows, 3 * R, "num_rows")
  local nout = cdir .. "/nested.parquet"
  _, err, code = run_inlay { "convert", ndir .. "/nested1.parquet", ndir .. "/nested2.parquet", nout, "-q" }
  T.eq(code, 0, "exit status: " .. (err or ""))
  same_as(nout, string.format("%s UNION ALL %s", rp(ndir .. "/nested1.parquet"), rp(ndir .. "/nested2.parquet")),
          nil, "nested merge")
end)

T.case("convert refuses inputs of another schema, naming the first field that differs", function()
  local cdir = T.tmpdir("mismatch")
  local other = cdir .. "/other.parquet"
  local fields = {}
  for i, c in ipairs(flat) do fields[i] = { c[1], c[2], optional = not c.required or nil } end
  fields[5] = { "i32", "int64", optional = true }
  fields[9] = { "u32", "int64", optional = true }
  local w = inlay.open(other, fields)
  w:write { id = 1 }
  w:close()
  local out = cdir .. "/out.parquet"
  local _, err, code = run_inlay { "convert", dir .. "/v1.parquet", dir .. "/v2.parquet", other, out }
  T.eq(code, 1, "exit status")
  T.ok(err:find("does not have the schema of", 1, true), err)
  T.ok(err:find("field 'i32' is int64 in '" .. other .. "', int32 in", 1, true), err)
  T.ok(not T.exists(out), "no output")
  local fewer = cdir .. "/fewer.parquet"
  w = inlay.open(fewer, { { "id", "int64" } })
  w:write { id = 1 }
  w:close()
  _, err, code = run_inlay { "convert", dir .. "/v1.parquet", fewer, out }
  T.eq(code, 1, "exit status")
  T.ok(err:find("it has no field 'b'", 1, true), err)
end)

T.case("convert: the output may not be an input; OUT must not exist; text options are refused", function()
  local cdir = T.tmpdir("paths")
  local a = cdir .. "/a.parquet"
  T.write(a, T.read(dir .. "/v1.parquet"))
  local before = T.read(a)
  local _, err, code = run_inlay { "convert", a, a, "--force" }
  T.eq(code, 2, "exit status")
  T.ok(err:find("is the input", 1, true), err)
  _, err, code = run_inlay { "convert", dir .. "/v2.parquet", a, cdir .. "/../paths/a.parquet", "--force" }
  T.eq(code, 2, "output among several inputs: " .. err)
  T.ok(err:find("is the input", 1, true), err)
  T.eq(T.read(a), before, "the input is untouched")
  _, err, code = run_inlay { "convert", dir .. "/v2.parquet", a }
  T.eq(code, 2, "exists: " .. err)
  T.ok(err:find("exists", 1, true), err)
  _, err, code = run_inlay { "convert", a, cdir .. "/x.parquet", "--delimiter", ";" }
  T.eq(code, 2, "text option: " .. err)
  T.ok(err:find("--delimiter is for CSV and NDJSON input, not Parquet", 1, true), err)
  T.write(cdir .. "/t.csv", "id\n1\n")
  _, err, code = run_inlay { "convert", a, cdir .. "/t.csv", cdir .. "/y.parquet" }
  T.eq(code, 2, "mixed inputs: " .. err)
  T.ok(err:find("all Parquet", 1, true), err)
  local out = run_inlay { "convert", "--help" }
  T.ok(out:find("IN... OUT", 1, true) and out:find("Parquet", 1, true) and out:find("--page-version", 1, true),
       "help")
  -- a Parquet input named like text is still Parquet
  local disguised = cdir .. "/data.csv"
  T.write(disguised, before)
  _, err, code = run_inlay { "convert", disguised, cdir .. "/z.parquet", "-q" }
  T.eq(code, 0, "by its bytes: " .. (err or ""))
  same_as(a, cdir .. "/z.parquet", nil, "disguised")
end)

T.finish()
