-- Nested types: lists, structs and maps at any depth. Schemas and their
-- message types; values written through w:write, w:row and w:write_columns
-- (row tables and the flat { offsets =, values = } form of a list), read
-- back by DuckDB with empty and null entries at each level; every kind of
-- bad value rejected with its path and row, leaving the writer as it was.

local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/testlib.lua")
local inlay = require "inlay"
local probe = require "inlay.probe"   -- allocation counts, conversion alone (run by inlay-probe)

local null = inlay.null
local dir = T.tmpdir("nested")

-- ---- comparing with what DuckDB reads ----------------------------------------------
--
-- A small mirror of each schema says how a written Lua value looks in
-- duckdb_read.mjs's canonical form: "int" (decimal text), "num" (number),
-- "text" (the bytes), or a function of the value for other leaves;
-- { "list", T }, { "struct", { name, T }, ... }, { "map", K, V }. Maps are
-- compared as their entries sorted by key: a Lua table has no order.

local function canon(ty, v)
  if v == nil or v == null then return nil end
  if ty == "int" then return string.format("%d", v) end
  if ty == "num" then return v + 0.0 end
  if ty == "text" then return v end
  if type(ty) == "function" then return ty(v) end
  if ty[1] == "list" then
    local out = { n = #v }
    for i = 1, #v do out[i] = canon(ty[2], v[i]) end
    return out
  end
  if ty[1] == "struct" then
    local out = {}
    for i = 2, #ty do out[ty[i][1]] = canon(ty[i][2], v[ty[i][1]]) end
    return out
  end
  local out = { n = 0 }
  for k, x in pairs(v) do
    out.n = out.n + 1
    out[out.n] = { canon(ty[2], k), canon(ty[3], x) }
  end
  return out
end

-- DuckDB's form with map entries sorted the way canon's are compared.
local function sort_maps(ty, v)
  if v == nil or type(ty) ~= "table" then return v end
  if ty[1] == "list" then
    for i = 1, v.n do v[i] = sort_maps(ty[2], v[i]) end
  elseif ty[1] == "struct" then
    for i = 2, #ty do v[ty[i][1]] = sort_maps(ty[i][2], v[ty[i][1]]) end
  else
    for i = 1, v.n do v[i][2] = sort_maps(ty[3], v[i][2]) end
    table.sort(v, function(a, b) return tostring(a[1]) < tostring(b[1]) end)
  end
  return v
end

local function show(v)
  if type(v) == "table" then return inlay.pretty(v) end
  if type(v) == "string" then return string.format("%q", v) end
  return tostring(v)
end

local function same(got, want, path)
  if type(want) ~= "table" or type(got) ~= "table" then
    if got ~= want and not (got ~= got and want ~= want) then
      error(string.format("%s: expected %s, got %s", path, show(want), show(got)), 0)
    end
    return
  end
  for k, x in pairs(want) do same(got[k], x, path .. "." .. tostring(k)) end
  for k, x in pairs(got) do
    if want[k] == nil then error(string.format("%s: unexpected %s = %s", path, tostring(k), show(x)), 0) end
  end
end

-- The file's columns equal rows[i][name] for each field of `mirror`
-- ({ name, T } in schema order).
local function check_file(path, mirror, rows, what)
  local f = T.duckdb(path)
  T.eq(f.rows, #rows, what .. ": rows")
  for c, m in ipairs(mirror) do
    local name, ty = m[1], m[2]
    T.eq(f.columns[c], name, what .. ": column " .. c)
    local got = f.values[name]
    for i = 1, #rows do
      local ok, err = pcall(same, sort_maps(ty, got[i]), sort_maps(ty, canon(ty, rows[i][name])),
                            string.format("%s: %s row %d", what, name, i))
      T.ok(ok, err)
    end
  end
  return f
end

-- ---- schemas ------------------------------------------------------------------------

T.case("schemas at depth print their message type", function()
  local s = inlay.schema {
    { "id", "int64" },
    { "tags", inlay.list("string") },
    { "nums", inlay.list("int32", { nullable = false }), optional = true },
    { "pos", inlay.struct { { "x", "float" }, { "y", "float", optional = true } } },
    { "attrs", inlay.map("string", "int64") },
    { "hits", inlay.list(inlay.struct { { "pos", inlay.struct { { "x", "float" } } }, { "ids", inlay.list("int64") } }) },
    { "matrix", inlay.list(inlay.list("double", { nullable = false })) },
    { "groups", inlay.map("string", inlay.list("int64"), { nullable = false }), optional = true },
    { "meta", inlay.struct { { "labels", inlay.map("int32", inlay.struct { { "v", "string" } }) } } },
  }
  T.eq(tostring(s), [[
message schema {
  required int64 id (INTEGER(64,true));
  required group tags (LIST) {
    repeated group list {
      optional binary element (STRING);
    }
  }
  optional group nums (LIST) {
    repeated group list {
      required int32 element (INTEGER(32,true));
    }
  }
  required group pos {
    required float x;
    optional float y;
  }
  required group attrs (MAP) {
    repeated group key_value {
      required binary key (STRING);
      optional int64 value (INTEGER(64,true));
    }
  }
  required group hits (LIST) {
    repeated group list {
      optional group element {
        required group pos {
          required float x;
        }
        required group ids (LIST) {
          repeated group list {
            optional int64 element (INTEGER(64,true));
          }
        }
      }
    }
  }
  required group matrix (LIST) {
    repeated group list {
      optional group element (LIST) {
        repeated group list {
          required double element;
        }
      }
    }
  }
  optional group groups (MAP) {
    repeated group key_value {
      required binary key (STRING);
      required group value (LIST) {
        repeated group list {
          optional int64 element (INTEGER(64,true));
        }
      }
    }
  }
  required group meta {
    required group labels (MAP) {
      repeated group key_value {
        required int32 key (INTEGER(32,true));
        optional group value {
          required binary v (STRING);
        }
      }
    }
  }
}
]], "message type")
  T.eq(#s, 9, "#s counts top-level fields")
  local cols = s:columns()
  T.eq(cols[1].type, "int64")
  T.eq(cols[1].columns, nil, "a flat field has no column list")
  T.eq(cols[2].type, "list<optional string>")
  T.eq(cols[3].type, "list<int32>")
  T.eq(cols[3].optional, true)
  T.eq(cols[4].type, "struct<x: float, y: optional float>")
  T.eq(cols[5].type, "map<string, optional int64>")
  T.eq(cols[6].type, "list<optional struct<pos: struct<x: float>, ids: list<optional int64>>>")
  T.eq(table.concat(cols[6].columns, " "), "hits.list.element.pos.x hits.list.element.ids.list.element")
  T.eq(cols[8].type, "map<string, list<optional int64>>")
  T.eq(table.concat(cols[9].columns, " "),
       "meta.labels.key_value.key meta.labels.key_value.value.v")
  -- type objects print as their constructors
  T.eq(tostring(inlay.list(inlay.struct { { "x", "float" }, { "n", "int32", optional = true } }, { nullable = false })),
       'inlay.list(inlay.struct { { "x", "float" }, { "n", "int32", optional = true } }, { nullable = false })')
  -- and the schema file form works the same way
  local w = inlay.open(dir .. "/empty.parquet", {
    { "id", "int64" }, { "pos", inlay.struct { { "x", "float" } }, optional = true },
  })
  T.eq(w:info().rows, 0)
  w:close()
end)

T.case("bad nested schemas name the field's path", function()
  local function bad(fields, want) T.raises(function() inlay.schema(fields) end, want, want) end
  bad({ { "a", inlay.list("strin") } }, "inlay: field 'a.element': unknown type 'strin'")
  bad({ { "a", inlay.list() } }, "inlay: field 'a.element': no type")
  bad({ { "h", inlay.list(inlay.struct { { "pos", inlay.struct { { "x", "flaot" } } } }) } },
      "inlay: field 'h.element.pos.x': unknown type 'flaot'")
  bad({ { "a", inlay.struct { { "x", "float" }, { "x", "int32" } } } }, "inlay: field 'a.x': duplicate name")
  bad({ { "a", inlay.struct {} } }, "inlay: field 'a': a struct needs at least one field")
  bad({ { "a", inlay.struct { { "", "int32" } } } }, "inlay: field 'a': struct field #1: empty name")
  bad({ { "a", inlay.struct { "x" } } }, "inlay: field 'a': struct field #1: expected a table { name, type, ... }")
  bad({ { "a", inlay.struct { { "x", "float" }, y = 1 } } }, "inlay: field 'a': unexpected key y in inlay.struct")
  bad({ { "a", inlay.struct "x" } }, "inlay: field 'a': inlay.struct takes a table of fields")
  bad({ { "m", inlay.map(inlay.list("int32"), "int32") } },
      "inlay: field 'm.key': a map key must be a primitive type, not a list")
  bad({ { "m", inlay.map("string", inlay.map("string", "blob")) } }, "inlay: field 'm.value.value': unknown type 'blob'")
  bad({ { "a", inlay.list("int8", { nulable = true }) } },
      "inlay: field 'a': unknown inlay.list option 'nulable' (the only one is 'nullable')")
  bad({ { "a", inlay.map("string", "int8", { nullable = 1 }) } },
      "inlay: field 'a': inlay.map option 'nullable' must be a boolean")
  bad({ { "a", inlay.struct { { "b", "float", encoding = "delta" } } } },
      "inlay: field 'a.b': delta encodings are for integer and byte-array columns")
  bad({ { "a", inlay.struct { { "b", "float" } }, encoding = "delta_byte_array" } },
      "inlay: field 'a.b': DELTA_BYTE_ARRAY is for byte-array columns")
  bad({ { "a", inlay.struct { { "b", "float", nullable = true } } } }, "inlay: field 'a.b': unknown option 'nullable'")
  bad({ { "a", "map" } }, "inlay: field 'a': type 'map' needs a key and a value type: use inlay.map(K, V)")
  bad({ { "a", "struct" } }, "inlay: field 'a': type 'struct' needs its fields")
  local deep = "int32"
  for _ = 1, 40 do deep = inlay.list(deep) end
  bad({ { "d", deep } }, "nested deeper than 30 levels")
  -- options on a nested field reach its leaves; the leaves' own win
  local s = inlay.schema {
    { "a", inlay.struct { { "n", "int64" }, { "s", "string", encoding = "plain" } }, encoding = "delta" },
  }
  local w = inlay.open(dir .. "/enc.parquet", s)
  w:write { a = { n = 1, s = "x" } }
  w:close()
  local f = T.duckdb(dir .. "/enc.parquet")
  T.ok(f.chunks["a, n"].encodings:find("DELTA_BINARY_PACKED", 1, true), "a.n: " .. f.chunks["a, n"].encodings)
  T.ok(f.chunks["a, s"].encodings:find("PLAIN", 1, true), "a.s: " .. f.chunks["a, s"].encodings)
end)

T.case("sources do not fill nested columns", function()
  T.write(dir .. "/in.csv", "id\n1\n")
  T.raises(function()
    inlay.csv(dir .. "/in.csv", { schema = inlay.schema { { "id", "int64" }, { "t", inlay.list("string") } } })
  end, "inlay: field 't': sources do not fill nested columns (list) yet")
end)

-- ---- values: empty and null at each level ---------------------------------------------

local SCHEMA = {
  { "id", "int64" },
  { "tags", inlay.list("string"), optional = true },
  { "pos", inlay.struct { { "x", "float" }, { "y", "float" }, { "label", "string", optional = true } }, optional = true },
  { "attrs", inlay.map("string", "int64"), optional = true },
  { "hits", inlay.list(inlay.struct {
      { "pos", inlay.struct { { "x", "float" }, { "y", "float", optional = true } }, optional = true },
      { "ids", inlay.list("int32", { nullable = false }) },
    }) },
  { "groups", inlay.map("string", inlay.list(inlay.list("int64"))), optional = true },
  { "note", "string", optional = true },
}
local MIRROR = {
  { "id", "int" },
  { "tags", { "list", "text" } },
  { "pos", { "struct", { "x", "num" }, { "y", "num" }, { "label", "text" } } },
  { "attrs", { "map", "text", "int" } },
  { "hits", { "list", { "struct", { "pos", { "struct", { "x", "num" }, { "y", "num" } } },
                                  { "ids", { "list", "int" } } } } },
  { "groups", { "map", "text", { "list", { "list", "int" } } } },
  { "note", "text" },
}

-- Rows with an empty and a null entry at every level (floats exact in float).
local function rows_for(base)
  return {
    { id = base + 1, tags = { "a", "bb", "héllo" }, pos = { x = 1.5, y = -2, label = "p" },
      attrs = { one = 1, two = 2 }, hits = { { pos = { x = 0.5, y = 0.25 }, ids = { 1, 2, 3 } } },
      groups = { g = { { 1, 2 }, { 3 } } }, note = "first" },
    { id = base + 2, tags = {}, pos = { x = 0, y = 0 }, attrs = {}, hits = {}, groups = {} },
    { id = base + 3, tags = nil, pos = nil, attrs = nil, hits = { null, { pos = null, ids = {} } }, groups = nil },
    { id = base + 4, tags = { null, "", null }, pos = { x = 3, y = 4, label = null },
      attrs = { k = null, z = 26 }, hits = { { ids = { 7 } }, { pos = { x = 1 }, ids = {} } },
      groups = { e = {}, n = null, l = { {}, null, { null, 5 } } } },
    { id = base + 5, tags = { "日本語" }, hits = { {  pos = { x = -1, y = null }, ids = { -2147483648, 2147483647 } } },
      attrs = { [""] = 0 }, groups = { x = { null } }, note = "last" },
  }
end

local function columns_of(rows, names)
  local cols = {}
  for _, name in ipairs(names) do
    local a = {}
    for i, r in ipairs(rows) do
      local v = r[name]
      if v == nil then v = null end
      a[i] = v
    end
    cols[name] = a
  end
  return cols
end

local NAMES = { "id", "tags", "pos", "attrs", "hits", "groups", "note" }

T.case("write, row and write_columns: nested values read back exactly", function()
  local path = dir .. "/values.parquet"
  local w = inlay.open(path, SCHEMA)
  local all = {}
  for _, r in ipairs(rows_for(0)) do
    w:write(r)
    all[#all + 1] = r
  end
  for _, r in ipairs(rows_for(10)) do
    w:row(r.id, r.tags, r.pos, r.attrs, r.hits, r.groups, r.note)
    all[#all + 1] = r
  end
  local batch = rows_for(20)
  w:write_columns(columns_of(batch, NAMES))
  for _, r in ipairs(batch) do all[#all + 1] = r end
  -- holes are nulls when n is given; absent optional columns are all null
  local holes = rows_for(30)
  local cols = columns_of(holes, NAMES)
  cols.tags[3], cols.pos[3], cols.attrs[3] = nil, nil, nil
  cols.note = nil
  w:write_columns(cols, #holes)
  for _, r in ipairs(holes) do
    local c = {}
    for k, v in pairs(r) do c[k] = v end
    c.note = nil
    all[#all + 1] = c
  end
  T.eq(w:close().rows, #all, "rows")
  check_file(path, MIRROR, all, "values")
end)

T.case("the flat form of a list: offsets, values, validity", function()
  local s = inlay.schema {
    { "id", "int64" },
    { "tags", inlay.list("string"), optional = true },
    { "nums", inlay.list("int64", { nullable = false }) },
  }
  local path = dir .. "/flat.parquet"
  local w = inlay.open(path, s)
  -- rows: ["a", null, "c"], [], null, [null]; nums from a slice (offsets start at 2)
  w:write_columns({
    id = { 1, 2, 3, 4 },
    tags = { offsets = { 0, 3, 3, 5, 6 }, values = { "a", null, "c", "x", "y" }, validity = { true, true, false, true } },
    nums = { offsets = { 2, 4, 4, 5, 5 }, values = { 99, 99, 10, 20, 30 } },
  })
  -- the first column decides n when it is in the flat form; holes in values are nulls
  w:write_columns({
    tags = { offsets = { 0, 2, 2 }, values = { [2] = "z" } },
    id = { 5, 6 },
    nums = { { 1 }, {} },
  })
  -- a list of 100,000 values in one row, and 1,000 rows of one value each
  local big, offs, ids, texts, nums = {}, { 0 }, {}, {}, {}
  for i = 1, 100000 do big[i] = i end
  for i = 1, 1000 do
    offs[i + 1] = i
    ids[i] = 100 + i
    texts[i] = "v" .. i
    nums[i] = { i }
  end
  w:write_columns({ id = { 7 }, nums = { offsets = { 0, 100000 }, values = big } })
  w:write_columns({ id = ids, tags = { offsets = offs, values = texts }, nums = nums })
  w:close()
  local f = T.duckdb(path)
  T.eq(f.rows, 1007)
  local v = f.values
  same(v.tags[1], { n = 3, "a", nil, "c" }, "tags 1")
  same(v.tags[2], { n = 0 }, "tags 2")
  T.eq(v.tags[3], nil, "tags 3 is null")
  same(v.tags[4], { n = 1, nil }, "tags 4")
  same(v.nums[1], { n = 2, "10", "20" }, "nums 1")
  same(v.nums[2], { n = 0 }, "nums 2")
  same(v.nums[3], { n = 1, "30" }, "nums 3")
  same(v.nums[4], { n = 0 }, "nums 4")
  same(v.tags[5], { n = 2, nil, "z" }, "tags 5")
  same(v.tags[6], { n = 0 }, "tags 6")
  same(v.nums[5], { n = 1, "1" }, "nums 5")
  T.eq(v.nums[7].n, 100000, "a long list")
  T.eq(v.nums[7][100000], "100000")
  T.eq(v.tags[7], nil, "absent column: null")
  same(v.tags[1007], { n = 1, "v1000" }, "tags 1007")
  same(v.nums[1007], { n = 1, "1000" }, "nums 1007")
end)

-- ---- leaves of every kind inside nested values ------------------------------------------

local function hex(s) return (s:gsub(".", function(c) return string.format("%02x", c:byte()) end)) end
local UUID = "123e4567-e89b-12d3-a456-426614174000"
local RAW = "\x12\x3e\x45\x67\xe8\x9b\x12\xd3\xa4\x56\x42\x66\x14\x17\x40\x00"

T.case("leaves of every kind in lists, structs and maps", function()
  local item = inlay.struct {
    { "u", "uuid", optional = true },
    { "d", inlay.decimal(30, 2), optional = true },
    { "d9", inlay.decimal(9, 3), optional = true },
    { "h", "float16", optional = true },
    { "b", "binary", optional = true },
    { "fx", inlay.fixed(3), optional = true },
    { "ts", inlay.timestamp("us"), optional = true },
    { "day", "date", optional = true },
    { "big", "uint64", optional = true },
    { "flag", "boolean", optional = true },
    { "i8", "int8", optional = true },
  }
  local s = inlay.schema {
    { "items", inlay.list(item) },
    { "by_id", inlay.map("uuid", inlay.decimal(20, 4)), optional = true },
  }
  local mirror = {
    { "items", { "list", { "struct",
        { "u", function(v) return #v == 16 and UUID or v:lower() end },
        { "d", "text" }, { "d9", "text" }, { "h", "num" }, { "b", hex }, { "fx", hex },
        { "ts", function(v) return v .. "us" end }, { "day", "int" },
        { "big", function(v) return type(v) == "string" and v or string.format("%d", v) end },
        { "flag", function(v) return v end }, { "i8", "int" } } } },
    { "by_id", { "map", function(v) return #v == 16 and UUID or v:lower() end, "text" } },
  }
  local function make(k)
    return {
      { items = { { u = UUID, d = "12345678901234567890.25", d9 = "-1.5", h = 0.5, b = "\0\1\2", fx = "abc",
                    ts = 1700000000000000 + k, day = 19000, big = "18446744073709551615", flag = true, i8 = -128 },
                  { u = RAW, d = "-0.01", h = 65504, b = "", fx = "\255\0\1", flag = false },
                  {} },
        by_id = { [UUID:upper()] = "1.0001" } },
      { items = {}, by_id = {} },
      { items = { null, { d9 = "0.001", big = 7 } }, by_id = nil },
    }
  end
  local path = dir .. "/leaves.parquet"
  local w = inlay.open(path, s)
  local all = {}
  for _, r in ipairs(make(0)) do w:write(r); all[#all + 1] = r end
  for _, r in ipairs(make(1)) do w:row(r.items, r.by_id); all[#all + 1] = r end
  local batch = make(2)
  w:write_columns({ items = { batch[1].items, batch[2].items, batch[3].items },
                    by_id = { batch[1].by_id, batch[2].by_id, null } })
  for _, r in ipairs(batch) do all[#all + 1] = r end
  w:close()
  -- DuckDB shows decimals with the column's scale
  for _, r in ipairs(all) do
    for _, it in ipairs(r.items) do
      if it ~= null and it.d9 == "-1.5" then it.d9 = "-1.500" end
    end
  end
  check_file(path, mirror, all, "leaves")
end)

-- ---- bad values: path, row, nothing appended ---------------------------------------------

T.case("bad nested values are rejected with their path and row, and leave the writer as it was", function()
  local path = dir .. "/errors.parquet"
  local w = inlay.open(path, SCHEMA)
  local good = rows_for(0)
  w:write(good[1])   -- row 1: staged, must survive the errors below
  local function bad(fn, want)
    local rows = w:info().rows
    T.raises(fn, want, want)
    T.eq(w:info().rows, rows, "rows after: " .. want)
  end
  local function row(t)
    local r = { id = 9, hits = {} }
    for k, v in pairs(t) do r[k] = v end
    return r
  end
  -- write (row 2 of the file)
  bad(function() w:write(row { pos = { 1, 2 } }) end,
      "inlay: column 'pos' row 2: expected struct (a table keyed by field name), got a list")
  bad(function() w:write(row { tags = { "a", x = "b" } }) end,
      "inlay: column 'tags' row 2: expected list, got a table with key \"x\"")
  bad(function() w:write(row { tags = { "a", nil, "c" } }) end, "inlay: column 'tags' row 2: expected list, got a table with")
  bad(function() w:write(row { tags = { [0] = "a" } }) end, "inlay: column 'tags' row 2: expected list, got a table with key 0")
  bad(function() w:write(row { tags = "a,b" }) end, "inlay: column 'tags' row 2: expected list, got string")
  bad(function() w:write(row { attrs = { [null] = 1 } }) end,
      "inlay: column 'attrs.key' row 2: a map key cannot be null (inlay.null as a key)")
  bad(function() w:write(row { attrs = { [1] = 1 } }) end, "inlay: column 'attrs.key' row 2: expected string, got number")
  bad(function() w:write(row { attrs = { a = 1.5 } }) end, "inlay: column 'attrs.value' row 2: expected integer, got 1.5")
  bad(function() w:write { id = 9 } end, "inlay: column 'hits' row 2: expected list, got nil (a required field is missing)")
  bad(function() w:write(row { hits = null }) end, "inlay: column 'hits' row 2: expected list, got inlay.null")
  bad(function() w:write(row { hits = { { pos = { x = 1 } } } }) end,
      "inlay: column 'hits.element.ids' row 2: expected list, got nil (a required field is missing)")
  bad(function() w:write(row { pos = { x = 1 } }) end,
      "inlay: column 'pos.y' row 2: expected float, got nil (a required field is missing)")
  bad(function() w:write(row { hits = { { ids = {}, extra = 1 } } }) end,
      "inlay: column 'hits.element.extra' row 2: not in the schema")
  bad(function() w:write(row { hits = { { ids = {}, [1] = 1 } } }) end,
      "inlay: column 'hits.element' row 2: expected struct (a table keyed by field name), got a list")
  bad(function() w:write(row { hits = { { ids = { 1, null } } } }) end,
      "inlay: column 'hits.element.ids.element' row 2: expected int32, got inlay.null")
  bad(function() w:write(row { hits = { { ids = { 2 ^ 40 } } } }) end,
      "inlay: column 'hits.element.ids.element' row 2: expected int32 (-2147483648..2147483647), got 1099511627776")
  bad(function() w:write(row { hits = { { ids = {} }, { ids = {}, pos = { x = "a" } } } }) end,
      "inlay: column 'hits.element.pos.x' row 2: expected number, got string")
  bad(function() w:write(row { pos = { x = 1, y = 2, label = "\xff" } }) end,
      "inlay: column 'pos.label' row 2: invalid UTF-8 in a text column")
  bad(function() w:write(row { groups = { g = { { 1, "2" } } } }) end,
      "inlay: column 'groups.value.element.element' row 2: expected integer, got string")
  bad(function() w:write(row { groups = { g = { 1 } } }) end,
      "inlay: column 'groups.value.element' row 2: expected list, got number")
  -- a bad value after good ones in the same row: none of the row stays
  bad(function() w:write(row { tags = { "kept?" }, attrs = { a = 1 }, groups = { g = { { 1 } } }, note = 5 }) end,
      "inlay: column 'note' row 2: expected string, got number")
  -- row
  bad(function() w:row(9, { "a" }, { x = 1, y = 2 }, { a = 1 }, { { ids = { "x" } } }) end,
      "inlay: column 'hits.element.ids.element' row 2: expected integer, got string")
  bad(function() w:row(9, nil, nil, nil, nil) end, "inlay: column 'hits' row 2: expected list, got nil")
  w:write(good[2])   -- row 2
  -- write_columns: the row is the index in the batch
  local function batch(over)
    local rows = rows_for(100)
    local cols = columns_of(rows, NAMES)
    for k, v in pairs(over) do cols[k] = v or nil end   -- false: leave the column out
    return cols
  end
  bad(function()
    w:write_columns(batch { hits = { {}, {}, { { ids = {} }, { pos = { x = "s" }, ids = {} } }, {}, {} } })
  end, "inlay: column 'hits.element.pos.x' row 3: expected number, got string")
  bad(function() w:write_columns(batch { pos = { null, { 1.5, 2 }, null, null, null } }) end,
      "inlay: column 'pos' row 2: expected struct (a table keyed by field name), got a list")
  bad(function() w:write_columns(batch { tags = { {}, {}, {}, { a = 1 }, {} } }) end,
      "inlay: column 'tags' row 4: expected list, got a table with key \"a\"")
  bad(function() w:write_columns(batch { attrs = { {}, { [null] = 2 }, {}, {}, {} } }) end,
      "inlay: column 'attrs.key' row 2: a map key cannot be null")
  bad(function() w:write_columns(batch { pos = { null, null, null, null, { x = 1, y = 2, label = "ok\xc3" } } }) end,
      "inlay: column 'pos.label' row 5: invalid UTF-8 in a text column")
  -- a flat column the core rejects: the nested ones are not appended either
  bad(function() w:write_columns(batch { note = { "a", "b\xff", null, null, null } }) end,
      "inlay: column 'note' row 2")
  bad(function() w:write_columns(batch { hits = false }) end, "inlay: column 'hits': missing from the batch (it is required)")
  bad(function() w:write_columns(batch { hits = { {}, {}, {}, {}, null } }) end,
      "inlay: column 'hits' row 5: expected list, got inlay.null")
  -- the flat form
  bad(function() w:write_columns(batch { tags = { offsets = { 0, 2, 1, 1, 1, 1 }, values = { "a", "b" } } }) end,
      "inlay: column 'tags' row 2: offsets[3] must be an integer >= offsets[2] (2), got 1")
  bad(function() w:write_columns(batch { tags = { offsets = { 0, 1, 1.5, 2, 2, 2 }, values = { "a", "b" } } }) end,
      "inlay: column 'tags' row 2: offsets[3] must be an integer >= offsets[2] (1), got 1.5")
  bad(function() w:write_columns(batch { tags = { offsets = { -1, 0, 0, 0, 0, 0 }, values = {} } }) end,
      "inlay: column 'tags': offsets[1] must be an integer >= 0, got -1")
  bad(function() w:write_columns(batch { tags = { offsets = { 0, 1, 1, 1, 1, 1 }, values = { 5 } } }) end,
      "inlay: column 'tags.element' row 1: expected string, got number")
  bad(function() w:write_columns(batch { tags = { offsets = { 0, 0, 0, 0, 0, 0 }, values = {}, validity = { true, 1 } } }) end,
      "inlay: column 'tags' row 2: validity entries must be true or false, got number")
  bad(function() w:write_columns(batch { tags = { offsets = { 0, 0, 0, 0, 0, 0 }, values = {}, sizes = {} } }) end,
      "inlay: column 'tags': unexpected key sizes in the { offsets =, values =, validity = } form")
  bad(function() w:write_columns(batch { pos = { offsets = { 0, 0, 0, 0, 0, 0 }, values = {} } }) end,
      "inlay: column 'pos': the { offsets =, values = } form is for lists of primitive values, not struct")
  bad(function() w:write_columns(batch { hits = { offsets = { 0, 0, 0, 0, 0, 0 }, values = {} } }) end,
      "inlay: column 'hits': the { offsets =, values = } form is for lists of primitive values")
  bad(function() w:write_columns(batch {}, 5, { units = { hits = "s" } }) end,
      "inlay: column 'hits': units apply to date, time and timestamp columns, not list")
  -- a required list given as null in the flat form
  do
    local s = inlay.schema { { "nums", inlay.list("int64") } }
    local w2 = inlay.open(dir .. "/req.parquet", s)
    T.raises(function() w2:write_columns { nums = { offsets = { 0, 0 }, values = {}, validity = { false } } } end,
             "inlay: column 'nums' row 1: expected list, got a null (validity false) in a required column")
    T.eq(w2:info().rows, 0)
    w2:abort()
  end
  -- good calls still work, and only they reach the file
  w:write_columns(columns_of(rows_for(200), NAMES))
  w:write(good[3])
  local info = w:close()
  local want = { good[1], good[2] }
  for _, r in ipairs(rows_for(200)) do want[#want + 1] = r end
  want[#want + 1] = good[3]
  T.eq(info.rows, #want, "rows in the file")
  check_file(path, MIRROR, want, "after errors")
end)

-- ---- volume: many rows, several row groups, the row batches of write --------------------

T.case("thousands of rows across row groups through every path", function()
  local path = dir .. "/many.parquet"
  local w = inlay.open(path, SCHEMA, { row_group_rows = 1500 })
  local all = {}
  local k = 0
  local function gen(i)
    local tags = {}
    for j = 1, i % 5 do tags[j] = "t" .. ((i * j) % 97) end
    local r = { id = i, tags = (i % 11 ~= 0) and tags or nil, hits = {} }
    if i % 3 ~= 0 then r.pos = { x = i % 100, y = -(i % 7), label = (i % 2 == 0) and ("L" .. i) or nil } end
    if i % 4 ~= 0 then r.attrs = { a = i, ["b" .. (i % 3)] = (i % 5 == 0) and null or -i } end
    for j = 1, i % 3 do r.hits[j] = (j == 2 and i % 2 == 0) and null or { pos = { x = j }, ids = { i, j } } end
    return r
  end
  for _ = 1, 2500 do k = k + 1; local r = gen(k); w:write(r); all[#all + 1] = r end
  for _ = 1, 1200 do
    k = k + 1
    local r = gen(k)
    w:row(r.id, r.tags, r.pos, r.attrs, r.hits, r.groups, r.note)
    all[#all + 1] = r
  end
  local rows = {}
  for i = 1, 3000 do k = k + 1; rows[i] = gen(k); all[#all + 1] = rows[i] end
  w:write_columns(columns_of(rows, NAMES))
  local info = w:close()
  T.eq(info.rows, #all)
  T.ok(info.row_groups >= 4, "row groups: " .. info.row_groups)
  check_file(path, MIRROR, all, "many")
end)

T.case("steady writing of nested values allocates nothing per value", function()
  probe.alloc_stats()   -- installs the counting allocator (the writer allocates through it)
  local w = inlay.open(dir .. "/alloc.parquet", SCHEMA, { threads = 1 })   -- allocations counted per call
  local n = 2048
  local rows = {}
  for i = 1, n do rows[i] = rows_for(i)[(i % 5) + 1] end
  local cols = columns_of(rows, NAMES)
  local offs, vals = { 0 }, {}
  for i = 1, n do
    for j = 1, i % 4 do vals[#vals + 1] = "v" .. j end
    offs[i + 1] = #vals
  end
  local flat = columns_of(rows, NAMES)
  flat.tags = { offsets = offs, values = vals }
  for _ = 1, 4 do w:write_columns(cols); w:write_columns(flat) end
  local allocs = 0
  local function count(fn)
    local a0, r0 = probe.alloc_stats()
    fn()
    local a1, r1 = probe.alloc_stats()
    allocs = allocs + (a1 - a0) + (r1 - r0)
  end
  -- the conversion allocates nothing at all once its scratch has grown
  probe.convert_columns(w, cols)
  probe.convert_columns(w, flat)
  for _ = 1, 10 do
    count(function() probe.convert_columns(w, cols) end)
    count(function() probe.convert_columns(w, flat) end)
  end
  T.eq(allocs, 0, "allocations converting 20 batches")
  -- the core allocates when its buffers grow and pages are sealed, not per row
  for _ = 1, 20 do
    count(function() w:write_columns(cols) end)
    count(function() w:write_columns(flat) end)
  end
  T.ok(allocs < 40 * n / 500, string.format("%d allocations for %d rows through write_columns", allocs, 40 * n))
  allocs = 0
  for i = 1, n do w:write(rows[i]) end   -- the scratch of staged rows grows here
  count(function()
    for _ = 1, 3 do
      for i = 1, n do w:write(rows[i]) end
      for i = 1, n do
        local r = rows[i]
        w:row(r.id, r.tags, r.pos, r.attrs, r.hits, r.groups, r.note)
      end
    end
  end)
  T.ok(allocs < 6 * n / 500, string.format("%d allocations for %d rows through write and row", allocs, 6 * n))
  w:close()
end)

-- ---- pipelines: a map stage makes a nested column ------------------------------------------

T.case("a pipeline's map stage fills a nested column", function()
  T.write(dir .. "/p.csv", "id,raw\n1,a;b\n2,\n3,c\n")
  local src = inlay.csv(dir .. "/p.csv", { schema = inlay.schema { { "id", "int64" }, { "raw", "string", optional = true } } })
  src:map(function(r)
    local t = {}
    for part in (r.raw or ""):gmatch("[^;]+") do t[#t + 1] = part end
    r.tags = t
    r.pos = { x = r.id, y = 0 }
    return r
  end, { reads = { "id", "raw" }, writes = { "tags", "pos" } })
  local w = inlay.open(dir .. "/p.parquet", {
    { "id", "int64" },
    { "tags", inlay.list("string") },
    { "pos", inlay.struct { { "x", "float" }, { "y", "float" } }, optional = true },
  })
  src:write(w, { progress = false })
  w:close()
  local v = T.duckdb(dir .. "/p.parquet").values
  same(v.tags[1], { n = 2, "a", "b" }, "tags 1")
  same(v.tags[2], { n = 0 }, "tags 2")
  same(v.pos[3], { x = 3.0, y = 0.0 }, "pos 3")
end)

T.finish()
