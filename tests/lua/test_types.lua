-- Every column type, written through w:write, w:row and w:write_columns,
-- read back by DuckDB with the right types and values.

local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/testlib.lua")
local inlay = require "inlay"

local nan, inf = 0 / 0, math.huge
local function f32(x) return (string.unpack("<f", string.pack("<f", x))) end
local function hex(s) return (s:gsub(".", function(c) return string.format("%02x", c:byte()) end)) end

local R = 12   -- rows 1-4 through write, 5-8 through row, 9-12 through write_columns

-- name, type, the values written (nil = null), and how DuckDB shows them:
-- `want` lists them in canonical form (see duckdb_read.mjs); `kind` says
-- how to compare.
local columns = {
  { "id", "int64", required = true, duck = "BIGINT", kind = "int",
    vals = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 } },
  { "name", "string", required = true, duck = "VARCHAR", kind = "text",
    vals = { "a", "bb", "", "héllo", "日本語", "tab\there", "x", "y", "z", "quote\"", "back\\slash", "end" } },
  { "b", "boolean", duck = "BOOLEAN", kind = "same",
    vals = { true, false, nil, true, false, nil, true, false, nil, true, true, false } },
  { "i8", "int8", duck = "TINYINT", kind = "int",
    vals = { -128, 127, nil, 0, -1, 1, nil, 100, 2.0, -2, 5, 6 } },
  { "i16", "int16", duck = "SMALLINT", kind = "int",
    vals = { -32768, 32767, 0, nil, 1, 2, 3, 4, 5, 6, 7, 8 } },
  { "i32", "int32", duck = "INTEGER", kind = "int",
    vals = { -2147483648, 2147483647, 0, nil, 1, -1, 3, 4, 5, 6, 7, 8 } },
  { "i64", "int64", duck = "BIGINT", kind = "int",
    vals = { math.mininteger, math.maxinteger, 0, nil, 1, -1, 2 ^ 53, 4, 5, 6, 7, 8 } },
  { "u8", "uint8", duck = "UTINYINT", kind = "int",
    vals = { 0, 255, nil, 1, 2, 3, 4, 5, 6, 7, 8, 9 } },
  { "u16", "uint16", duck = "USMALLINT", kind = "int",
    vals = { 0, 65535, nil, 1, 2, 3, 4, 5, 6, 7, 8, 9 } },
  { "u32", "uint32", duck = "UINTEGER", kind = "int",
    vals = { 0, 4294967295, nil, 2147483648, 2, 3, 4, 5, 6, 7, 8, 9 } },
  { "u64", "uint64", duck = "UBIGINT", kind = "text",
    vals = { 0, math.maxinteger, "18446744073709551615", 2 ^ 63, nil, "0", 1, "12345678901234567890",
             18446744073709549568.0, 7, 8, 9 },
    want = { "0", "9223372036854775807", "18446744073709551615", "9223372036854775808", nil, "0", "1",
             "12345678901234567890", "18446744073709549568", "7", "8", "9" } },
  { "f", "float", duck = "FLOAT", kind = "same",
    vals = { 1.5, 0.1, -3.4e38, 1e39, nil, nan, -0.0, 1, 16777217, -1e39, 3.4028235e38, 1e-46 },
    want = { 1.5, f32(0.1), f32(-3.4e38), inf, nil, nan, -0.0, 1.0, 16777216.0, -inf, f32(3.4028235e38), 0.0 } },
  { "d", "double", duck = "DOUBLE", kind = "same",
    vals = { 0.1, -1e308, inf, -inf, nil, nan, 5e-324, 42, -0.0, 1 / 3, 2 ^ 63, 7 },
    want = { 0.1, -1e308, inf, -inf, nil, nan, 5e-324, 42.0, -0.0, 1 / 3, 2 ^ 63, 7.0 } },
  { "h", "float16", duck = "FLOAT", kind = "same",
    vals = { 1.0, 65504, 65519, 65520, nil, 0.1, 2 ^ -25, 1 / 3, 2051, 2049, 3 * 2 ^ -26, -3e-8 },
    want = { 1.0, 65504.0, 65504.0, inf, nil, 0.0999755859375, 0.0, 0.333251953125, 2052.0, 2048.0,
             2 ^ -24, -2 ^ -24 } },
  { "bin", "binary", duck = "BLOB", kind = "hex",
    vals = { "\0\1\255", "", nil, "abc", "\0", "x", "y", nil, "z", "\n", "", "q" } },
  { "j", "json", duck = "JSON", kind = "text",
    vals = { '{"a":1}', "[]", nil, "null", '"s"', "1", "2", "3", "{}", "[1,2]", "true", "false" } },
  { "e", "enum", duck = "VARCHAR", kind = "text",
    vals = { "RED", "GREEN", nil, "BLUE", "RED", "RED", "GREEN", nil, "BLUE", "RED", "RED", "RED" } },
  { "uu", "uuid", duck = "UUID", kind = "text",
    vals = { "\x12\x3e\x45\x67\xe8\x9b\x12\xd3\xa4\x56\x42\x66\x14\x17\x40\x00",
             "123E4567-E89B-12D3-A456-426614174000", nil, "00000000-0000-0000-0000-000000000000",
             "ffffffff-ffff-ffff-ffff-ffffffffffff", nil, "abcdefab-cdef-abcd-efab-cdefabcdefab",
             string.rep("\0", 16), "123e4567-e89b-12d3-a456-426614174000", nil, nil, nil },
    want = { "123e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-a456-426614174000", nil,
             "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff", nil,
             "abcdefab-cdef-abcd-efab-cdefabcdefab", "00000000-0000-0000-0000-000000000000",
             "123e4567-e89b-12d3-a456-426614174000", nil, nil, nil } },
  { "dt", "date", duck = "DATE", kind = "int",
    vals = { 0, -1, 19000, 2932896, -719162, nil, 1, 2, 3, 4, 5, 6 } },
  { "ts_ms", inlay.timestamp("ms"), duck = "TIMESTAMP", kind = "instant", unit = "ms",
    vals = { 1700000000123, 0, -1, nil, 1, 2, 3, 4, 5, 6, 7, 8 } },
  { "ts_us", inlay.timestamp("us", { utc = true }), duck = "TIMESTAMP WITH TIME ZONE", kind = "instant", unit = "us",
    vals = { 1700000000123456, 0, -1, nil, 1, 2, 3, 4, 5, 6, 7, 8 } },
  { "ts_ns", inlay.timestamp("ns"), duck = "TIMESTAMP_NS", kind = "instant", unit = "ns",
    vals = { 1700000000123456789, 0, -1, nil, 1, 2, 3, 4, 5, 6, 7, 8 } },
  { "t_ms", inlay.time("ms"), duck = "TIME", kind = "instant", unit = "ms",
    vals = { 0, 86399999, 43200000, nil, 1, 2, 3, 4, 5, 6, 7, 8 } },
  { "t_us", inlay.time("us", { utc = true }), duck = "TIME WITH TIME ZONE", kind = "instant", unit = "us",
    vals = { 0, 86399999999, 1, nil, 1, 2, 3, 4, 5, 6, 7, 8 } },
  { "t_ns", inlay.time("ns"), duck = "TIME_NS", kind = "instant", unit = "ns",
    vals = { 0, 86399999999999, 1, nil, 1, 2, 3, 4, 5, 6, 7, 8 } },
  { "dec9", inlay.decimal(9, 2), duck = "DECIMAL(9,2)", kind = "text",
    vals = { "1234567.89", -0.5, 12, "-0.01", nil, 2.675, "+1.5", "1.500", "1e2", 0.1 + 0.2, "-9999999.99", ".5" },
    want = { "1234567.89", "-0.50", "12.00", "-0.01", nil, "2.68", "1.50", "1.50", "100.00", "0.30",
             "-9999999.99", "0.50" } },
  { "dec18", inlay.decimal(18, 4), duck = "DECIMAL(18,4)", kind = "text",
    vals = { "12345678901234.5678", "-99999999999999.9999", 5, nil, 0, -1.25, "0.0001", 1e10, 1, 2, 3, 4 },
    want = { "12345678901234.5678", "-99999999999999.9999", "5.0000", nil, "0.0000", "-1.2500", "0.0001",
             "10000000000.0000", "1.0000", "2.0000", "3.0000", "4.0000" } },
  { "dec38", inlay.decimal(38, 10), duck = "DECIMAL(38,10)", kind = "text",
    vals = { "1234567890123456789012345678.0123456789", "-0.0000000001",
             "-9999999999999999999999999999.9999999999", 1.5, math.mininteger, nil, 0, "1", 2, 3, 4, 5 },
    want = { "1234567890123456789012345678.0123456789", "-0.0000000001",
             "-9999999999999999999999999999.9999999999", "1.5000000000", "-9223372036854775808.0000000000",
             nil, "0.0000000000", "1.0000000000", "2.0000000000", "3.0000000000", "4.0000000000",
             "5.0000000000" } },
  { "dec20", inlay.decimal(20), duck = "DECIMAL(20,0)", kind = "text",
    vals = { "99999999999999999999", "-99999999999999999999", 0, -1, nil, 1, 2, 3, 4, 5, 6, 7 },
    want = { "99999999999999999999", "-99999999999999999999", "0", "-1", nil, "1", "2", "3", "4", "5", "6", "7" } },
  { "fx", inlay.fixed(4), duck = "BLOB", kind = "hex",
    vals = { "abcd", "\0\0\0\0", "\255\254\253\252", nil, "wxyz", "1234", nil, "    ", "a\0b\0", "zzzz", "....", "!!!!" } },
}

local function schema_of(cols)
  local fields = {}
  for i, c in ipairs(cols) do fields[i] = { c[1], c[2], optional = not c.required } end
  return inlay.schema(fields)
end

local function check_column(c, got_type, got)
  local name = c[1]
  T.eq(got_type, c.duck, "DuckDB type of " .. name)
  T.eq(got.n, R, "rows in " .. name)
  for r = 1, R do
    local v, want = c.vals[r], c.want and c.want[r]
    local g = got[r]
    local what = string.format("%s row %d", name, r)
    if v == nil then
      T.eq(g, nil, what)
    elseif c.kind == "int" then
      T.eq(g, string.format("%d", math.tointeger(v)), what)
    elseif c.kind == "text" then
      T.eq(g, want or v, what)
    elseif c.kind == "hex" then
      T.eq(g, hex(v), what)
    elseif c.kind == "instant" then
      T.ok(g and T.same_instant(g, v, c.unit), string.format("%s: expected %d%s, got %s", what, v, c.unit, tostring(g)))
    else
      if want == nil then want = v end
      T.eq(g, want, what)
      if want == 0 and type(g) == "number" then   -- the sign of zero matters too
        T.eq(1 / g, 1 / want, what .. " (sign of zero)")
      end
    end
  end
end

T.case("every type through write, row and write_columns", function()
  local dir = T.tmpdir("types")
  local path = dir .. "/types.parquet"
  local s = schema_of(columns)
  local w <close> = inlay.open(path, s)
  for r = 1, 4 do
    local row = {}
    for _, c in ipairs(columns) do row[c[1]] = c.vals[r] end
    w:write(row)
  end
  for r = 5, 8 do
    local args = {}
    for i, c in ipairs(columns) do args[i] = c.vals[r] end
    w:row(table.unpack(args, 1, #columns))
  end
  local batch = {}
  for _, c in ipairs(columns) do
    local a = {}
    for r = 9, R do
      local v = c.vals[r]
      if v == nil then v = inlay.null end
      a[#a + 1] = v
    end
    batch[c[1]] = a
  end
  w:write_columns(batch)   -- n from the first column
  local info = w:close()
  T.eq(info.rows, R, "info.rows")
  T.eq(info.row_groups, 1, "info.row_groups")
  T.eq(info.path, path, "info.path")
  T.eq(info.bytes, #T.read(path), "info.bytes is the file size")

  local got = T.duckdb(path)
  T.eq(got.rows, R, "rows read")
  for i, c in ipairs(columns) do
    T.eq(got.columns[i], c[1], "column " .. i)
    check_column(c, got.types[i], got.values[c[1]])
  end
end)

-- The encoding each column gets in the encodings case: every value encoding
-- DuckDB reads for that type (it reads BYTE_STREAM_SPLIT only on FLOAT and
-- DOUBLE).
local function encoding_for(c)
  local d = c.duck
  if d == "BOOLEAN" then return "rle" end
  if c[2] == "float16" then return "delta_byte_array" end
  if d == "FLOAT" or d == "DOUBLE" then return "byte_stream_split" end
  if d:match("INT") or d:match("^DATE") or d:match("^TIME") then return "delta" end
  if d == "VARCHAR" or d == "BLOB" or d == "JSON" or d == "UUID" then return "delta_byte_array" end
  return nil   -- decimals keep the default
end

T.case("every type with delta, byte_stream_split and rle encodings on v2 pages", function()
  local dir = T.tmpdir("encodings")
  local path = dir .. "/encodings.parquet"
  local fields = {}
  for i, c in ipairs(columns) do
    fields[i] = { c[1], c[2], optional = not c.required, encoding = encoding_for(c) }
  end
  local w <close> = inlay.open(path, inlay.schema(fields), { page_version = 2, page_rows = 5 })
  local batch = {}
  for _, c in ipairs(columns) do
    local a = {}
    for r = 1, R do
      local v = c.vals[r]
      if v == nil then v = inlay.null end
      a[r] = v
    end
    batch[c[1]] = a
  end
  w:write_columns(batch)
  w:close()
  local got = T.duckdb(path)
  T.eq(got.rows, R, "rows read")
  for i, c in ipairs(columns) do check_column(c, got.types[i], got.values[c[1]]) end
end)

T.case("large batches: pages, row groups, nil holes with explicit n", function()
  local dir = T.tmpdir("large")
  local path = dir .. "/large.parquet"
  local s = inlay.schema {
    { "id", "int64" },
    { "cat", "string", optional = true },
    { "v", "double", optional = true },
    { "ok", "boolean" },
    { "small", "uint16" },
  }
  local w = inlay.open(path, s, { page_rows = 1000, row_group_rows = 2500 })
  local n = 3000
  local cols = { id = {}, cat = {}, v = {}, ok = {}, small = {} }
  local want_nulls = 0
  for batch = 0, 2 do
    for i = 1, n do
      local k = batch * n + i
      cols.id[i] = k
      if k % 7 == 0 then cols.cat[i] = nil else cols.cat[i] = "c" .. (k % 13) end   -- holes, n given
      cols.v[i] = (k % 5 == 0) and inlay.null or k / 4
      cols.ok[i] = k % 2 == 0
      cols.small[i] = k % 65536
      if k % 7 == 0 then want_nulls = want_nulls + 1 end
    end
    w:write_columns(cols, n)
  end
  local info = w:close()
  T.eq(info.rows, 3 * n, "rows")
  T.eq(info.row_groups, 4, "row groups of 2500 rows")
  local got = T.duckdb(path)
  T.eq(got.rows, 3 * n, "rows read")
  T.eq(got.row_groups, 4, "row groups read")
  local nulls = 0
  for k = 1, 3 * n do
    T.eq(got.values.id[k], tostring(k), "id")
    local cat = got.values.cat[k]
    if k % 7 == 0 then T.eq(cat, nil, "cat null"); nulls = nulls + 1 else T.eq(cat, "c" .. (k % 13), "cat") end
    if k % 5 == 0 then T.eq(got.values.v[k], nil, "v null") else T.eq(got.values.v[k], k / 4, "v") end
    T.eq(got.values.ok[k], k % 2 == 0, "ok")
    T.eq(got.values.small[k], tostring(k % 65536), "small")
  end
  T.eq(nulls, want_nulls, "nulls")
end)

T.case("rows staged by write and row keep their order across flushes", function()
  local dir = T.tmpdir("staged")
  local path = dir .. "/staged.parquet"
  local w = inlay.open(path, inlay.schema {
    { "id", "int64" },
    { "s", "string", optional = true },
    { "u", "uuid", optional = true },
    { "h", "float16", optional = true },
    { "d", inlay.decimal(30, 3), optional = true },
    { "x", inlay.fixed(3) },
  })
  local function text(i) return string.rep(string.char(97 + i % 26), i % 300) end   -- up to 299 bytes
  local function uuid(i) return string.format("00000000-0000-0000-0000-%012d", i) end
  local id = 0
  local function rows(n, how)
    for _ = 1, n do
      id = id + 1
      local s, u, h, d = text(id), uuid(id), id % 7 == 0 and inlay.null or id % 2048, string.format("%d.%03d", id, id % 1000)
      if id % 5 == 0 then s = nil end
      if how == "row" then w:row(id, s, u, h, d, string.format("%03d", id % 1000))
      else w:write { id = id, s = s, u = u, h = h, d = d, x = string.format("%03d", id % 1000) } end
    end
  end
  rows(1500, "row")          -- one flush at 1024, 476 rows left staged
  T.eq(w:info().rows, 1500, "staged rows count")
  local ids, ss, xs = {}, {}, {}
  for i = 1, 10 do
    id = id + 1
    ids[i], ss[i], xs[i] = id, text(id), string.format("%03d", id % 1000)
  end
  w:write_columns { id = ids, s = ss, x = xs }   -- after the staged rows
  rows(2100, "write")
  rows(3, "row")
  local total = id
  T.eq(w:close().rows, total, "rows")
  local got = T.duckdb(path)
  T.eq(got.rows, total, "rows read")
  local v = got.values
  for i = 1, total do
    local in_batch = i > 1500 and i <= 1510
    T.eq(v.id[i], tostring(i), "id")
    if i % 5 == 0 and not in_batch then T.eq(v.s[i], nil, "s null " .. i) else T.eq(v.s[i], text(i), "s " .. i) end
    T.eq(v.x[i], hex(string.format("%03d", i % 1000)), "x " .. i)
    if in_batch then
      T.eq(v.u[i], nil, "u null in the batch")
    else
      T.eq(v.u[i], uuid(i), "u " .. i)
      if i % 7 == 0 then T.eq(v.h[i], nil, "h null " .. i) else T.eq(v.h[i], (i % 2048) + 0.0, "h " .. i) end
      T.eq(v.d[i], string.format("%d.%03d", i, i % 1000), "d " .. i)
    end
  end
end)

-- Negative values that round to zero, in a chunk that also holds +0.
T.case("float16 keeps the sign of values that round to zero, and NaN", function()
  local dir = T.tmpdir("half")
  local path = dir .. "/half.parquet"
  local w = inlay.open(path, inlay.schema { { "h", "float16" } })
  w:write_columns { h = { -1e-300, -2, -65520, 0 / 0, 6.1e-5, -0.0, 2 ^ -26 } }
  w:close()
  local got = T.duckdb(path).values.h
  T.eq(got[1], 0.0, "-1e-300")
  T.eq(1 / got[1], -inf, "-1e-300 keeps its sign")
  T.eq(got[2], -2.0, "-2")
  T.eq(got[3], -inf, "-65520")
  T.ok(got[4] ~= got[4], "NaN")
  T.eq(got[5], 6.097555160522461e-05, "6.1e-5, a subnormal")
  T.eq(1 / got[6], -inf, "-0.0")
  T.eq(1 / got[7], inf, "2^-26 rounds to +0")
end)

-- write_columns with units: integers in another unit, converted per column
-- in one pass (finer to coarser floors, so -1 s is the day before the epoch).
T.case("write_columns converts date, time and timestamp columns from another unit", function()
  local dir = T.tmpdir("units")
  local path = dir .. "/units.parquet"
  local s = inlay.schema {
    { "ts", inlay.timestamp("us") }, { "tn", inlay.timestamp("ns"), optional = true },
    { "d", "date", optional = true }, { "t", inlay.time("ms") }, { "raw", inlay.timestamp("ms") },
  }
  local w = inlay.open(path, s)
  local units = { units = { ts = "s", tn = "ms", d = "s", t = "us", raw = "ms" } }
  w:write_columns({ ts = { 1, -1, 1700000000 }, tn = { 5, inlay.null, -5 }, d = { 86400, -1, inlay.null },
                    t = { 1999, 86399999999, 0 }, raw = { 7, 8, 9 } }, 3, units)
  -- a value that overflows after conversion, one outside the day, an unknown
  -- unit, a unit on a non-time column: each rejects the whole call
  local ok_batch = { ts = { 1 }, tn = { 1 }, d = { 1 }, t = { 1 }, raw = { 1 } }
  local function with(k, v) local b = {} for n, a in pairs(ok_batch) do b[n] = a end b[k] = v return b end
  T.raises(function() w:write_columns(with("ts", { 9223372036855 }), 1, units) end,
           "column 'ts' row 1: 9223372036855 s does not fit timestamp(us)")
  T.raises(function() w:write_columns(with("t", { 86400000000 }), 1, units) end,
           "column 't' row 1: 86400000000 us does not fit time(ms)")
  T.raises(function()
             w:write_columns({ ts = { 1, 2, 3 }, tn = { inlay.null, 2, 9223372036854775 }, d = { 1, 2, 3 },
                               t = { 1, 2, 3 }, raw = { 1, 2, 3 } }, 3, units)
           end, "column 'tn' row 3: 9223372036854775 ms does not fit timestamp(ns)")
  T.raises(function() w:write_columns(ok_batch, 1, { units = { ts = "hours" } }) end, "unknown unit hours")
  T.raises(function() w:write_columns(ok_batch, 1, { units = { nope = "s" } }) end, "nope is not a column")
  T.raises(function() w:write_columns(ok_batch, 1, { unit = {} }) end, "unknown option unit")
  T.raises(function() w:write_columns(with("ts", { "1" }), 1, units) end, "column 'ts' row 1: expected integer")
  local info = w:close()
  T.eq(info.rows, 3, "only the good call wrote rows")
  local got = T.duckdb(path).values
  T.ok(T.same_instant(got.ts[1], 1, "s") and T.same_instant(got.ts[2], -1, "s")
       and T.same_instant(got.ts[3], 1700000000, "s"), "ts from seconds")
  T.ok(T.same_instant(got.tn[1], 5, "ms") and T.same_instant(got.tn[3], -5, "ms"), "tn from ms")
  T.eq(got.tn[2], nil, "tn null")
  T.ok(T.same_instant(got.t[1], 1, "ms") and T.same_instant(got.t[2], 86399999, "ms"), "t floors us to ms")
  T.ok(T.same_instant(got.raw[2], 8, "ms"), "a unit equal to the column's is a no-op")
  T.eq(got.d[1], "1", "d: 86400 s is day 1")
  T.eq(got.d[2], "-1", "d: -1 s is the day before")
  T.eq(got.d[3], nil, "d null")
end)

T.case("a type's printed name reads back as the same type", function()
  local s = schema_of(columns)
  local fields = {}
  for i, c in ipairs(s:columns()) do
    T.eq(type(c.type), "string", "the type of " .. c.name .. " prints as a string")
    fields[i] = { c.name, c.type, optional = c.optional }
  end
  local again = inlay.schema(fields)
  T.eq(tostring(again), tostring(s), "the schema made from the printed names")
  -- names with parameters, written and read back by DuckDB
  local path = T.tmpdir("typenames") .. "/names.parquet"
  local w = inlay.open(path, inlay.schema {
    { "ts", "timestamp(us, utc)" }, { "t", "time(ms)" }, { "d", "decimal(9,2)" }, { "f", "fixed(3)" },
    { "w", "decimal(30,3)" },
  })
  w:row(1700000000123456, 1000, "12.5", "abc", "-123456789012345678901234567.891")
  w:close()
  local got = T.duckdb(path)
  T.eq(table.concat(got.types, ","), "TIMESTAMP WITH TIME ZONE,TIME,DECIMAL(9,2),BLOB,DECIMAL(30,3)", "DuckDB's types")
  T.eq(got.values.d[1], "12.50", "decimal value")
  T.eq(got.values.f[1], "616263", "fixed value")
  T.eq(got.values.w[1], "-123456789012345678901234567.891", "wide decimal value")
  for _, bad in ipairs { "timestamp(s)", "decimal(0,0)", "decimal(5,6)", "int12", "fixed(0)", "time(us,utc)" } do
    T.raises(function() inlay.schema { { "x", bad } } end, "field 'x': unknown type '" .. bad .. "'", bad)
  end
end)

T.finish()
