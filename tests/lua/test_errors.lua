-- Bad schemas and bad values: each raises its message, a rejected call
-- leaves nothing in the file (the bytes equal those of a file written
-- without it), and the writer stays usable.

local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/testlib.lua")
local inlay = require "inlay"

-- ---- schemas ------------------------------------------------------------------

local function schema_error(fields, want)
  return T.raises(function() inlay.schema(fields) end, want, "schema " .. want)
end

T.case("bad schemas name the field", function()
  schema_error({}, "inlay: schema: no fields")
  schema_error({ { "id", "int128" } }, "inlay: field 'id': unknown type 'int128'")
  schema_error({ { "a", "int64" }, { "a", "string" } }, "inlay: field 'a': duplicate name")
  schema_error({ { "", "int64" } }, "inlay: schema field #1: empty name")
  schema_error({ { "id", "int64" }, { "a" } }, "inlay: field 'a': no type")
  schema_error({ "id" }, "inlay: schema field #1: expected a table { name, type, ... }, got string")
  schema_error({ { 1, "int64" } }, "inlay: schema field #1: expected its name first, got number")
  schema_error({ { "a", "int64" }, x = 1 }, "inlay: schema: unexpected key x")
  schema_error({ { "a", 42 } }, "inlay: field 'a': expected a type name or an inlay type, got number")
  schema_error({ { "price", inlay.decimal(0, 2) } }, "inlay: field 'price': decimal precision 0 out of range 1..76")
  schema_error({ { "price", inlay.decimal(77, 2) } }, "inlay: field 'price': decimal precision 77 out of range 1..76")
  schema_error({ { "price", inlay.decimal(5, 7) } }, "inlay: field 'price': decimal scale 7 out of range 0..5")
  schema_error({ { "price", inlay.decimal(5, -1) } }, "inlay: field 'price': decimal scale -1 out of range 0..5")
  schema_error({ { "h", inlay.fixed(0) } }, "inlay: field 'h': fixed width 0 out of range 1..2147483647")
  schema_error({ { "ts", inlay.timestamp("s") } },
               "inlay: field 'ts': timestamp unit 's' is not one of 'ms', 'us', 'ns'")
  schema_error({ { "ts", inlay.timestamp("us", { tz = "UTC" }) } },
               "inlay: field 'ts': unknown timestamp option 'tz' (the only one is 'utc')")
  schema_error({ { "t", inlay.time("us", { utc = "yes" }) } }, "inlay: field 't': time option 'utc' must be a boolean")
  schema_error({ { "ts", "timestamp" } },
    "inlay: field 'ts': type 'timestamp' needs a unit: use inlay.timestamp(\"us\") (or \"ms\", \"ns\")")
  schema_error({ { "t", "time" } }, "inlay: field 't': type 'time' needs a unit: use inlay.time(\"us\")")
  schema_error({ { "p", "decimal" } }, "inlay: field 'p': type 'decimal' needs a precision")
  schema_error({ { "tags", "list" } }, "inlay: field 'tags': type 'list' needs an element type: use inlay.list(T)")
  schema_error({ { "x", "double", encoding = "delta" } },
               "inlay: field 'x': delta encodings are for integer and byte-array columns")
  schema_error({ { "x", "string", encoding = "byte_stream_split" } },
               "inlay: field 'x': BYTE_STREAM_SPLIT is for FLOAT, DOUBLE, INT32, INT64 and FIXED_LEN_BYTE_ARRAY")
  schema_error({ { "x", "int32", encoding = "rle" } },
               "inlay: field 'x': RLE value encoding is for BOOLEAN columns")
  schema_error({ { "x", "int64", encoding = "zigzag" } }, "inlay: field 'x': unknown encoding 'zigzag'")
  schema_error({ { "x", "int64", bloom_filter = "yes" } },
               "inlay: field 'x': option 'bloom_filter' must be true, false or { ndv = n, fpp = p }, got string")
  schema_error({ { "x", "int64", bloom_filter = { ndv = 0 } } },
               "inlay: field 'x': bloom_filter: ndv must be a positive integer, got 0")
  schema_error({ { "flag", "boolean", bloom_filter = true } },
               "inlay: field 'flag': bloom filters are not for boolean columns")
  schema_error({ { "x", "int64", nullable = true } }, "inlay: field 'x': unknown option 'nullable'")
  schema_error({ { "x", "int64", optional = "yes" } }, "inlay: field 'x': option 'optional' must be a boolean, got string")
  schema_error({ { "x", "int64", statistics = 1 } }, "inlay: field 'x': option 'statistics' must be a boolean, got number")
  schema_error({ { "x", "int64", "extra" } }, "inlay: field 'x': unexpected value at position 3")
  schema_error({ { "flag", "boolean", encoding = "dictionary" } },
               "inlay: field 'flag': BOOLEAN columns have no dictionary encoding")
  -- options that are fine
  inlay.schema { { "x", "int64", bloom_filter = false, statistics = false, encoding = "plain", optional = false } }
  inlay.schema { { "x", "int64", bloom_filter = true }, { "y", "string", bloom_filter = { ndv = 100, fpp = 0.01 } } }
end)

-- A name becomes a string of the footer, which DuckDB and arrow-rs refuse
-- to read when it is not UTF-8: such a name is refused where it is given,
-- and shown escaped.
T.case("field names must be UTF-8", function()
  schema_error({ { "\xff\xfe", "int64" } }, "inlay: field '\\xff\\xfe': the name is not valid UTF-8")
  schema_error({ { "id", "int64" }, { "caf\xc3\xa9\xff", "string", optional = "oops" } },
               "inlay: field 'caf\xc3\xa9\\xff': the name is not valid UTF-8")
  schema_error({ { "a\\b\n\xc3", "int64" } }, "inlay: field 'a\\\\b\\x0a\\xc3': the name is not valid UTF-8")
  schema_error({ { "\xed\xa0\x80", "int64" } }, "inlay: field '\\xed\\xa0\\x80'")   -- a surrogate
  schema_error({ { "\xc0\xaf", "int64" } }, "inlay: field '\\xc0\\xaf'")            -- overlong
  schema_error({ { "pos", inlay.struct { { "x", "float" }, { "y\xff", "float" } } } },
               "inlay: field 'pos.y\\xff': the name is not valid UTF-8")
  schema_error({ { "l", inlay.list(inlay.struct { { "\x80", "int32" } }) } },
               "inlay: field 'l.element.\\x80': the name is not valid UTF-8")
  schema_error({ { "a\0b", "int64" } }, "inlay: schema field #1: the name contains a NUL byte")
  schema_error({ { "s", inlay.struct { { "a\0", "int64" } } } }, "inlay: field 's': struct field #1: the name contains a NUL byte")
  -- valid UTF-8 names are kept, and read back as they were written
  local dir = T.tmpdir("utf8_names")
  local names = { "caf\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac", "\xf0\x9f\x98\x80", "tab\there" }
  local fields = {}
  for i, n in ipairs(names) do fields[i] = { n, "int64" } end
  local w = inlay.open(dir .. "/names.parquet", fields)
  w:row(1, 2, 3, 4)
  w:close()
  T.eq(table.concat(T.duckdb(dir .. "/names.parquet").columns, ","), table.concat(names, ","), "names DuckDB reads")
end)

T.case("a CSV header that is not UTF-8 is refused, and nothing is written", function()
  local dir = T.tmpdir("csv_header")
  local path = dir .. "/bad.csv"
  T.write(path, "id,na\xffme\n1,a\n2,b\n")
  T.raises(function() inlay.source(path) end, "inlay: field 'na\\xffme': the name is not valid UTF-8")
  T.raises(function() inlay.infer(path) end, "field 'na\\xffme': the name is not valid UTF-8")
  -- through the command as well: no file
  local out, err, code = T.run(T.quote(T.bin) .. " convert " .. T.quote(path) .. " " .. T.quote(dir .. "/out.parquet"))
  T.ok(code ~= 0, "convert fails")
  T.ok(err:find("the name is not valid UTF-8", 1, true), "convert says why: " .. err)
  T.ok(not T.exists(dir .. "/out.parquet"), "nothing published")
  -- with a schema of its own, the bad header column is one the schema lacks
  local src = inlay.csv(path, { schema = { { "id", "int64" } } })
  local w = inlay.open(dir .. "/ok.parquet", src:schema())
  T.eq(src:write(w, { progress = false }).rows_out, 2)
  src:close()
  w:close()
end)

T.case("nested constructors record their arguments (test_nested.lua has the rest)", function()
  T.eq(tostring(inlay.list("string")), 'inlay.list("string")')
  T.eq(tostring(inlay.struct { { "x", "float" } }), 'inlay.struct { { "x", "float" } }')
  T.eq(tostring(inlay.map("string", "int64", { nullable = false })), 'inlay.map("string", "int64", { nullable = false })')
end)

-- ---- values ---------------------------------------------------------------------

local fields = {
  { "id", "int64" },
  { "name", "string" },
  { "score", "double", optional = true },
  { "i8", "int8", optional = true },
  { "u32", "uint32", optional = true },
  { "u64", "uint64", optional = true },
  { "t", inlay.time("ms"), optional = true },
  { "fx", inlay.fixed(4), optional = true },
  { "uu", "uuid", optional = true },
  { "price", inlay.decimal(9, 2), optional = true },
  { "flag", "boolean", optional = true },
}
local s = inlay.schema(fields)

-- Good rows: phase p writes 2 rows with write, 2 with row, 20 with write_columns.
local function good_row(k)
  return { id = k, name = "n" .. k, score = k / 2, i8 = k % 100, u32 = k, u64 = k, t = k * 1000,
           fx = string.format("%04d", k % 10000), uu = string.rep(string.char(k % 256), 16),
           price = k + 0.25, flag = k % 2 == 0 }
end

local function good_batch(base)
  local cols = {}
  for _, f in ipairs(fields) do cols[f[1]] = {} end
  for i = 1, 20 do
    for k, v in pairs(good_row(base + i)) do cols[k][i] = v end
  end
  return cols
end

local function row_args(r)
  local args = {}
  for i, f in ipairs(fields) do args[i] = r[f[1]] end
  return table.unpack(args, 1, #fields)
end

local function write_good(w, p)
  local k = p * 100
  w:write(good_row(k + 1))
  w:write(good_row(k + 2))
  w:row(row_args(good_row(k + 3)))
  w:row(row_args(good_row(k + 4)))
  w:write_columns(good_batch(k + 10))
end

local function with(tbl, changes)
  local t = {}
  for k, v in pairs(tbl) do t[k] = v end
  for k, v in pairs(changes) do t[k] = v end
  return t
end

-- A batch with one entry changed (column `col`, index i), or columns set/removed.
local function bad_batch(col, i, v)
  local cols = good_batch(5000)
  cols[col][i] = v
  return cols
end

-- Each bad call and the message it must raise. `rowno` is the file row a
-- w:write or w:row call would make (rows written before it + 1).
local function bad_calls(rowno)
  local r = function(n) return string.format("row %d", n) end
  local R = r(rowno)
  return {
    -- the example of the contract
    { function(w) w:write_columns(bad_batch("score", 17, "x")) end,
      "inlay: column 'score' row 17: expected number, got string" },
    { function(w) w:write(with(good_row(1), { i8 = 300 })) end,
      "inlay: column 'i8' " .. R .. ": expected int8 (-128..127), got 300" },
    { function(w) w:write(with(good_row(1), { id = 1.5 })) end,
      "inlay: column 'id' " .. R .. ": expected integer, got 1.5" },
    { function(w) w:write(with(good_row(1), { id = "1" })) end,
      "inlay: column 'id' " .. R .. ": expected integer, got string" },
    { function(w) w:write(with(good_row(1), { u32 = -1 })) end,
      "inlay: column 'u32' " .. R .. ": expected uint32 (0..4294967295), got -1" },
    { function(w) w:write(with(good_row(1), { u32 = 4294967296 })) end,
      "inlay: column 'u32' " .. R .. ": expected uint32 (0..4294967295), got 4294967296" },
    { function(w) w:write(with(good_row(1), { u64 = -1 })) end,
      "inlay: column 'u64' " .. R .. ": expected uint64 (0..18446744073709551615), got -1" },
    { function(w) w:write(with(good_row(1), { u64 = "18446744073709551616" })) end,
      "inlay: column 'u64' " .. R .. ": expected uint64 (0..18446744073709551615), got \"18446744073709551616\"" },
    { function(w) w:write(with(good_row(1), { u64 = 2 ^ 64 })) end,
      "inlay: column 'u64' " .. R .. ": expected uint64 (0..18446744073709551615), got 1.844674407371e+19" },
    { function(w) w:write(with(good_row(1), { t = 86400000 })) end,
      "inlay: column 't' " .. R .. ": expected time(ms) (0..86399999), got 86400000" },
    { function(w) w:write(with(good_row(1), { fx = "abc" })) end,
      "inlay: column 'fx' " .. R .. ": expected fixed(4) (4 bytes), got a string of 3 bytes" },
    { function(w) w:write(with(good_row(1), { uu = "short" })) end,
      "inlay: column 'uu' " .. R .. ": expected uuid (16 bytes or 36-character text), got string" },
    { function(w) w:write(with(good_row(1), { uu = "123e4567-e89b-12d3-a456-42661417400g" })) end,
      "inlay: column 'uu' " .. R .. ": expected uuid, got \"123e4567-e89b-12d3-a456-42661417400g\" (not a uuid)" },
    { function(w) w:write(with(good_row(1), { uu = 5 })) end,
      "inlay: column 'uu' " .. R .. ": expected uuid (16 bytes or 36-character text), got number" },
    { function(w) w:write(with(good_row(1), { price = "1.234" })) end,
      "inlay: column 'price' " .. R .. ": expected decimal(9,2), got \"1.234\" (more fractional digits than the scale)" },
    { function(w) w:write(with(good_row(1), { price = "12345678.9" })) end,
      "inlay: column 'price' " .. R .. ": expected decimal(9,2), got \"12345678.9\" (too many digits)" },
    { function(w) w:write(with(good_row(1), { price = 1e20 })) end,
      "inlay: column 'price' " .. R .. ": expected decimal(9,2), got 1e+20 (too many digits)" },
    { function(w) w:write(with(good_row(1), { price = "12a" })) end,
      "inlay: column 'price' " .. R .. ": expected decimal(9,2), got \"12a\" (not a decimal number)" },
    { function(w) w:write(with(good_row(1), { price = math.huge })) end,
      "inlay: column 'price' " .. R .. ": expected decimal(9,2), got inf (not a finite number)" },
    { function(w) w:write(with(good_row(1), { price = true })) end,
      "inlay: column 'price' " .. R .. ": expected a number or a decimal string, got boolean" },
    { function(w) w:write(with(good_row(1), { flag = 1 })) end,
      "inlay: column 'flag' " .. R .. ": expected boolean, got number" },
    { function(w) w:write(with(good_row(1), { name = 7 })) end,
      "inlay: column 'name' " .. R .. ": expected string, got number" },
    { function(w) w:write(with(good_row(1), { id = false })) end,
      "inlay: column 'id' " .. R .. ": expected integer, got boolean" },
    { function(w) w:write(with(good_row(1), { id = inlay.null })) end,
      "inlay: column 'id' " .. R .. ": expected int64, got inlay.null" },
    { function(w) local row = good_row(1); row.id = nil; w:write(row) end,
      "inlay: column 'id' " .. R .. ": expected int64, got nil (a required field is missing)" },
    { function(w) w:write(with(good_row(1), { nope = 1 })) end,
      "inlay: column 'nope' " .. R .. ": not in the schema" },
    { function(w) w:write(with(good_row(1), { [1] = 1 })) end,
      "inlay: " .. R .. ": key 1 is not a column name" },
    -- the core's own checks come through its message, renumbered the same way
    { function(w) w:write(with(good_row(1), { name = "bad \255 utf-8" })) end,
      "inlay: column 'name' " .. R .. ": invalid UTF-8 in a text column" },
    { function(w) w:row(row_args(with(good_row(1), { name = "\192\128" }))) end,
      "inlay: column 'name' " .. R .. ": invalid UTF-8 in a text column" },
    { function(w) w:write_columns(bad_batch("name", 3, "\237\160\128")) end,
      "inlay: column 'name' row 3: invalid UTF-8 in a text column" },
    -- w:row
    { function(w) w:row(nil, "x") end, "inlay: column 'id' " .. R .. ": expected int64, got nil" },
    { function(w) w:row(1, "x", "high") end, "inlay: column 'score' " .. R .. ": expected number, got string" },
    { function(w) w:row(1, "x", nil, nil, nil, nil, nil, nil, nil, nil, nil, "extra") end,
      "inlay: " .. R .. ": 12 values for 11 columns" },
    -- w:write_columns
    { function(w) w:write_columns(bad_batch("i8", 20, -129)) end,
      "inlay: column 'i8' row 20: expected int8 (-128..127), got -129" },
    { function(w) w:write_columns(bad_batch("id", 5, 2.5)) end,
      "inlay: column 'id' row 5: expected integer, got 2.5" },
    { function(w) w:write_columns(bad_batch("flag", 9, "yes")) end,
      "inlay: column 'flag' row 9: expected boolean, got string" },
    { function(w) w:write_columns(bad_batch("fx", 2, "toolong")) end,
      "inlay: column 'fx' row 2: expected fixed(4) (4 bytes), got a string of 7 bytes" },
    { function(w) w:write_columns(bad_batch("id", 11, inlay.null)) end,
      "inlay: column 'id' row 11: expected int64, got inlay.null" },
    { function(w) w:write_columns(bad_batch("name", 12, false)) end,
      "inlay: column 'name' row 12: expected string, got boolean" },
    { function(w) w:write_columns(bad_batch("uu", 1, "x")) end,
      "inlay: column 'uu' row 1: expected uuid (16 bytes or 36-character text), got string" },
    { function(w) w:write_columns(bad_batch("price", 4, "1.001")) end,
      "inlay: column 'price' row 4: expected decimal(9,2), got \"1.001\" (more fractional digits than the scale)" },
    { function(w) w:write_columns(bad_batch("u64", 6, -5)) end,
      "inlay: column 'u64' row 6: expected uint64 (0..18446744073709551615), got -5" },
    { function(w) w:write_columns(with(good_batch(1), { nope = { 1 } })) end,
      "inlay: column 'nope': not in the schema" },
    { function(w) w:write_columns(with(good_batch(1), { id = 5 })) end,
      "inlay: column 'id': expected an array, got number" },
    { function(w) local b = good_batch(1); b.id = nil; w:write_columns(b) end,
      "inlay: column 'id': missing from the batch (it is required)" },
    { function(w) local b = good_batch(1); w:write_columns(b, 21) end,
      "inlay: column 'id' row 21: expected int64, got nil" },
  }
end

T.case("a rejected call leaves the file unchanged and the writer usable", function()
  local dir = T.tmpdir("rejected")
  local ref, test = dir .. "/ref.parquet", dir .. "/test.parquet"
  local phases = 3
  do
    local w <close> = inlay.open(ref, s)
    for p = 1, phases do write_good(w, p) end
  end
  local w <close> = inlay.open(test, s)
  local rows = 0
  local count = 0
  for p = 1, phases do
    for _, case in ipairs(bad_calls(rows + 1)) do
      local fn, want = case[1], case[2]
      local ok, err = pcall(fn, w)
      T.ok(not ok, "expected an error: " .. want)
      T.eq(err, want, "message")
      count = count + 1
    end
    write_good(w, p)
    rows = rows + 24
  end
  local info = w:close()
  T.eq(info.rows, phases * 24, "rows")
  T.ok(count > 40, "bad calls tried")
  local a, b = T.read(ref), T.read(test)
  T.ok(a and b and #a > 0, "both files written")
  T.ok(a == b, string.format("the files differ (%d and %d bytes)", #a, #b))
  T.eq(T.duckdb(test).rows, phases * 24, "DuckDB rows")
end)

T.case("misuse of the writer", function()
  local dir = T.tmpdir("misuse")
  local w = inlay.open(dir .. "/x.parquet", s)
  T.raises(function() w:write(5) end, "bad argument #1 to 'write' (table expected, got number)")
  T.raises(function() w:write_columns(good_batch(1), -1) end, "expected a row count in 0..2147483647")
  T.raises(function() w:write_columns(good_batch(1), 2 ^ 40) end, "expected a row count in 0..2147483647")
  T.raises(function() w.write({}, {}) end, "bad argument #1 to 'write' (inlay.writer expected, got table)")
  w:write_columns({}, 0)     -- nothing to write is fine
  w:write_columns({})
  w:close()
  T.raises(function() w:write(good_row(1)) end, "inlay: writer for '" .. dir .. "/x.parquet' is closed")
  T.raises(function() w:row() end, "is closed")
  T.raises(function() w:write_columns({}) end, "is closed")
  local w2 = inlay.open(dir .. "/y.parquet", s)
  w2:abort()
  T.raises(function() w2:write(good_row(1)) end, "is aborted")
  T.raises(function() w2:close() end, "is aborted")
  T.ok(not T.exists(dir .. "/y.parquet"), "aborted file not published")
end)

T.case("options", function()
  local dir = T.tmpdir("options")
  local p = dir .. "/o.parquet"
  T.raises(function() inlay.open(p, s, { compresion = "zstd" }) end, "inlay: unknown option 'compresion'")
  T.raises(function() inlay.open(p, s, { compression = "rar" }) end,
           "inlay: option 'compression': unknown compression 'rar' (this inlay has 'uncompressed'")
  T.raises(function() inlay.open(p, s, { compression = 6 }) end, "inlay: option 'compression' must be a string, got number")
  T.raises(function() inlay.open(p, s, { page_bytes = 0 }) end, "inlay: option 'page_bytes' must be an integer >= 1, got 0")
  T.raises(function() inlay.open(p, s, { row_group_rows = 1.5 }) end, "option 'row_group_rows' must be an integer >= 1, got 1.5")
  T.raises(function() inlay.open(p, s, { metadata = { k = {} } }) end, "inlay: metadata value for 'k' must be a string, got table")
  T.raises(function() inlay.open(p, s, { compression_level = 99 }) end,
           "inlay: cannot open '" .. p .. "': compression ZSTD takes levels -131072 to 22, not 99")
  T.raises(function() inlay.open(p, s, { compression_level = 1.5 }) end, "option 'compression_level' must be an integer, got 1.5")
  T.raises(function() inlay.open(dir .. "/no/such/dir/x.parquet", s) end, "inlay: cannot open '" .. dir .. "/no/such/dir/x.parquet': ")
  T.eq(#T.ls(dir), 0, "nothing left behind by failed opens")
end)

T.finish()
