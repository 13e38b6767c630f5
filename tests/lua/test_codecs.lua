-- Codecs: every codec this build has, file-wide and per column, with
-- levels. Files are written from Lua with each codec and page version, flat
-- and nested, and read back by inlay.read and by DuckDB, value by value;
-- min_compression_gain stores what a codec cannot shrink uncompressed; bad
-- codecs and levels are refused at open or at schema time, naming the
-- option or the field; `inlay convert` takes the codec, level and size
-- flags, and refuses bad values with exit status 2.

local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/testlib.lua")
local inlay = require "inlay"

local NULL = inlay.null
local CODECS = inlay.compressions()
local HAS = {}
for _, c in ipairs(CODECS) do HAS[c] = true end

-- The codec's name as the format (and DuckDB) spells it.
local function upper(c) return c:upper() end

-- got equals want, deeply; inlay.null only to itself.
local function same(got, want, path)
  if type(want) == "table" then
    if type(got) ~= "table" then T.fail(string.format("%s: expected a table, got %s", path, tostring(got)), 2) end
    for k, v in pairs(want) do same(got[k], v, path .. "[" .. tostring(k) .. "]") end
    for k in pairs(got) do
      if want[k] == nil then T.fail(string.format("%s: unexpected key %s", path, tostring(k)), 2) end
    end
    return
  end
  if got ~= want then T.fail(string.format("%s: expected %s, got %s", path, tostring(want), tostring(got)), 2) end
end

-- Every batch of the file, column by column: { name = { v1, ... } }, n.
local function read_columns(path)
  local r <close> = inlay.read(path)
  local all, n = {}, 0
  for cols, k in r:batches { rows = 700 } do
    for name, vals in pairs(cols) do
      all[name] = all[name] or {}
      for i = 1, k do all[name][n + i] = vals[i] end
    end
    n = n + k
  end
  return all, n
end

-- The codec of every chunk of the file, by r:info(): { path = { codec, ... } }.
local function chunk_codecs(path)
  local r <close> = inlay.read(path)
  local by = {}
  for _, g in ipairs(r:info().row_groups) do
    for _, c in ipairs(g.columns) do
      by[c.path] = by[c.path] or {}
      table.insert(by[c.path], c.codec)
    end
  end
  return by
end

local function run_inlay(args)
  local cmd = T.quote(T.bin)
  for _, a in ipairs(args) do cmd = cmd .. " " .. T.quote(a) end
  return T.run(cmd)
end

-- ---- the data --------------------------------------------------------------------

local N = 2000

local flat_fields = {
  { "id", "int64" },
  { "name", "string", optional = true },
  { "score", "double", optional = true },
  { "flag", "boolean" },
  { "n", "int32", optional = true },
}

local nested_fields = {
  { "id", "int64" },
  { "tags", inlay.list("string"), optional = true },
  { "pos", inlay.struct { { "x", "float" }, { "y", "float", optional = true } }, optional = true },
  { "attrs", inlay.map("string", "int64"), optional = true },
}

local flat_cols = { id = {}, name = {}, score = {}, flag = {}, n = {} }
local nested_cols = { id = {}, tags = {}, pos = {}, attrs = {} }
for i = 1, N do
  flat_cols.id[i] = i * 7919 - 5000000
  flat_cols.name[i] = i % 7 == 0 and NULL or "player-" .. (i % 50)
  flat_cols.score[i] = i % 11 == 0 and NULL or (i % 100) / 4
  flat_cols.flag[i] = i % 3 == 0
  flat_cols.n[i] = i % 13 == 0 and NULL or (i * 31) % 1000 - 500

  nested_cols.id[i] = i
  if i % 9 == 0 then
    nested_cols.tags[i] = NULL
  else
    local t = {}
    for k = 1, i % 4 do t[k] = (k == 2 and i % 5 == 0) and NULL or "t" .. ((i + k) % 10) end
    nested_cols.tags[i] = t
  end
  nested_cols.pos[i] = i % 10 == 0 and NULL or { x = (i % 64) / 2, y = i % 3 ~= 0 and -(i % 32) / 4 or nil }
  if i % 8 == 0 then nested_cols.attrs[i] = NULL
  elseif i % 2 == 0 then nested_cols.attrs[i] = { ["k" .. (i % 5)] = i, z = -i }
  else nested_cols.attrs[i] = {} end
end

local SHAPES = {
  { name = "flat", fields = flat_fields, cols = flat_cols },
  { name = "nested", fields = nested_fields, cols = nested_cols },
}

-- What DuckDB prints for value v of field `name` (see duckdb_read.mjs).
local function duck_value(name, v)
  if v == NULL then return nil end
  if math.type(v) == "integer" then return string.format("%d", v) end
  if name == "tags" then
    local l = { n = #v }
    for k = 1, #v do if v[k] ~= NULL then l[k] = v[k] end end
    return l
  end
  if name == "attrs" then   -- entries in the file's order, which the Lua table does not keep: a set
    local set = {}
    for k, x in pairs(v) do set[k] = string.format("%d", x) end
    return set
  end
  return v
end

local function duck_map_set(entries)
  if entries == nil then return nil end
  local set = {}
  for k = 1, entries.n do set[entries[k][1]] = entries[k][2] end
  return set
end

local function check_duckdb(got, shape, what)
  T.eq(got.rows, N, what .. ": DuckDB's rows")
  for _, f in ipairs(shape.fields) do
    local name = f[1]
    local vals = got.values[name]
    T.ok(vals, what .. ": DuckDB has column " .. name)
    for i = 1, N do
      local g = vals[i]
      if name == "attrs" then g = duck_map_set(g) end
      same(g, duck_value(name, shape.cols[name][i]), string.format("%s: DuckDB %s[%d]", what, name, i))
    end
  end
end

-- ---- every codec, both page versions, flat and nested ------------------------------

T.case("this build has codecs, by the names inlay.open takes", function()
  T.ok(#CODECS >= 2, "at least zstd and uncompressed")
  T.ok(HAS.zstd and HAS.uncompressed, "zstd and uncompressed are always there")
  for _, c in ipairs(CODECS) do
    local lo, hi, dflt = inlay.compression_levels(c)
    if c == "uncompressed" or c == "snappy" then
      T.eq(lo, nil, c .. " has no levels")
    else
      T.ok(lo <= dflt and dflt <= hi, c .. ": its default level is in its range")
    end
  end
  T.eq(select(2, inlay.compression_levels("zstd")), 22, "zstd's highest level")
  T.eq(select(3, inlay.compression_levels("ZSTD")), 3, "zstd's default, any case")
  if HAS.gzip then T.eq(select(2, inlay.compression_levels("gzip")), 9, "gzip's highest level") end
  if HAS.lz4_raw then T.eq(select(2, inlay.compression_levels("lz4")), 12, "lz4 is lz4_raw") end
  T.raises(function() inlay.compression_levels("rar") end, "unknown compression 'rar'")
end)

local written = {}   -- { path =, shape =, codec =, version = }

T.case("every codec x page version x flat and nested: inlay.read gives back what was written", function()
  local dir = T.tmpdir("matrix")
  for _, codec in ipairs(CODECS) do
    for _, version in ipairs { 1, 2 } do
      for _, shape in ipairs(SHAPES) do
        local what = string.format("%s v%d %s", codec, version, shape.name)
        local path = string.format("%s/%s-v%d-%s.parquet", dir, codec, version, shape.name)
        local w = inlay.open(path, shape.fields, {
          compression = codec, page_version = version, page_rows = 300, row_group_rows = 800,
          min_compression_gain = 0,
        })
        w:write_columns(shape.cols, N)
        local info = w:close()
        T.eq(info.rows, N, what .. ": rows")
        T.eq(info.row_groups, 3, what .. ": row groups")
        for p, c in pairs(info.columns) do
          T.eq(c.compression, upper(codec), what .. ": close() says " .. p .. "'s codec")
          T.eq(c.chunks, 3, what .. ": " .. p .. "'s chunks")
          T.eq(c.chunks_uncompressed, 0, what .. ": min_compression_gain = 0 compresses every chunk")
          T.ok(c.compressed_bytes > 0 and c.uncompressed_bytes > 0, what .. ": " .. p .. "'s sizes")
          local lo, _, dflt = inlay.compression_levels(codec)
          T.eq(c.compression_level, lo and dflt or nil, what .. ": " .. p .. "'s level is the codec's default")
        end
        local got, n = read_columns(path)
        T.eq(n, N, what .. ": rows read")
        same(got, shape.cols, what)
        for p, codecs in pairs(chunk_codecs(path)) do
          T.ok(info.columns[p], what .. ": close() reports " .. p)
          for k, c in ipairs(codecs) do T.eq(c, codec, string.format("%s: %s chunk %d's codec", what, p, k)) end
        end
        written[#written + 1] = { path = path, shape = shape, codec = codec, version = version, what = what }
      end
    end
  end
end)

T.case("... and DuckDB reads the same values and codecs", function()
  T.ok(#written == #CODECS * 4, "every file was written")
  local paths = {}
  for i, f in ipairs(written) do paths[i] = f.path end
  local all = T.duckdb(table.unpack(paths))
  for _, f in ipairs(written) do
    local got = all[f.path]
    check_duckdb(got, f.shape, f.what)
    T.eq(got.chunks.id.compression, upper(f.codec), f.what .. ": DuckDB's codec of id")
  end
end)

-- ---- codecs per column ----------------------------------------------------------

T.case("codecs per column: id snappy, payload zstd:19, flag uncompressed", function()
  local dir = T.tmpdir("per_column")
  local path = dir .. "/mixed.parquet"
  local fields = {
    { "id", "int64", compression = HAS.snappy and "snappy" or "zstd" },
    { "payload", "string", compression = "zstd", compression_level = 19 },
    { "flag", "boolean", compression = "uncompressed" },
    { "other", "string" },                                   -- the writer's codec
  }
  local default = HAS.gzip and "gzip" or "zstd"
  local w = inlay.open(path, fields, { compression = default, min_compression_gain = 0, row_group_rows = 500,
                                    threads = 1 })   -- row groups written during the appends
  local cols = { id = {}, payload = {}, flag = {}, other = {} }
  for i = 1, 1200 do
    cols.id[i] = i
    cols.payload[i] = string.rep("payload " .. (i % 17) .. " ", 20)   -- long enough that page headers (statistics) weigh little
    cols.flag[i] = i % 2 == 0
    cols.other[i] = "o" .. (i % 9)
  end
  w:write_columns(cols, 1200)
  local live = w:info().columns
  T.eq(live.payload.chunks, 2, "info() while open: the row groups written so far")
  local info = w:close()
  local c = info.columns
  T.eq(c.id.compression, HAS.snappy and "SNAPPY" or "ZSTD", "id's codec")
  if HAS.snappy then T.eq(c.id.compression_level, nil, "snappy has no level") end
  T.eq(c.payload.compression, "ZSTD", "payload's codec")
  T.eq(c.payload.compression_level, 19, "payload's level")
  T.eq(c.flag.compression, "UNCOMPRESSED", "flag's codec")
  T.eq(c.flag.compressed_bytes, c.flag.uncompressed_bytes, "uncompressed: as many bytes as written")
  T.eq(c.other.compression, upper(default), "other: the writer's codec")
  T.eq(c.payload.chunks, 3, "payload's chunks")
  T.ok(c.payload.compressed_bytes < c.payload.uncompressed_bytes / 4, "zstd:19 shrinks the repetitive payload")
  T.eq(w:info().columns.payload.compression_level, 19, "info() after close: the same")

  local codecs = chunk_codecs(path)
  T.eq(codecs.id[1], HAS.snappy and "snappy" or "zstd", "r:info(): id")
  T.eq(codecs.payload[3], "zstd", "r:info(): payload")
  T.eq(codecs.flag[2], "uncompressed", "r:info(): flag")
  T.eq(codecs.other[1], default, "r:info(): other")
  local got = read_columns(path)
  same(got, cols, "read back")
  local d = T.duckdb(path)
  T.eq(d.chunks.id.compression, HAS.snappy and "SNAPPY" or "ZSTD", "DuckDB: id")
  T.eq(d.chunks.payload.compression, "ZSTD", "DuckDB: payload")
  T.eq(d.chunks.flag.compression, "UNCOMPRESSED", "DuckDB: flag")
  T.eq(d.values.payload[1200], cols.payload[1200], "DuckDB: a payload")
end)

T.case("codecs on nested fields: a field's codec reaches its leaves; a struct's fields may have their own", function()
  local dir = T.tmpdir("per_leaf")
  local path = dir .. "/nested.parquet"
  local inner = HAS.brotli and "brotli" or "zstd"
  local fields = {
    { "id", "int64" },
    { "tags", inlay.list("string"), compression = HAS.lz4_raw and "lz4" or "zstd", optional = true },
    { "pos", inlay.struct { { "x", "float", compression = "uncompressed" }, { "y", "float", optional = true } },
      compression = inner .. ":" .. (HAS.brotli and 9 or 12), optional = true },
    { "attrs", inlay.map("string", "int64"), optional = true },
  }
  local w = inlay.open(path, fields, { min_compression_gain = 0 })
  w:write_columns(nested_cols, N)
  local c = w:close().columns
  T.eq(c["tags.list.element"].compression, HAS.lz4_raw and "LZ4_RAW" or "ZSTD", "tags' leaf")
  T.eq(c["pos.x"].compression, "UNCOMPRESSED", "pos.x: its own")
  T.eq(c["pos.y"].compression, upper(inner), "pos.y: the struct's")
  T.eq(c["pos.y"].compression_level, HAS.brotli and 9 or 12, "pos.y: the struct's level")
  T.eq(c["attrs.key_value.key"].compression, "ZSTD", "attrs: the writer's")
  T.eq(c["attrs.key_value.value"].compression_level, 3, "attrs: the writer's level")
  local codecs = chunk_codecs(path)
  T.eq(codecs["tags.list.element"][1], HAS.lz4_raw and "lz4_raw" or "zstd", "r:info(): tags")
  T.eq(codecs["pos.x"][1], "uncompressed", "r:info(): pos.x")
  T.eq(codecs["pos.y"][1], inner, "r:info(): pos.y")
  same(read_columns(path), nested_cols, "read back")
  check_duckdb(T.duckdb(path), SHAPES[2], "per-leaf codecs")
end)

-- ---- min_compression_gain ----------------------------------------------------------

-- Doubles whose 64 bits are random (below infinity, so no NaN): nothing
-- for a codec to find.
local function random_doubles(n)
  math.randomseed(42)
  local t = {}
  for i = 1, n do
    t[i] = string.unpack("<d", string.pack("<I4I4", math.random(0, 0xFFFFFFFF), math.random(0, 0x7FEFFFFF)))
  end
  return t
end

T.case("min_compression_gain: a chunk zstd cannot shrink is stored uncompressed; 0 compresses everything", function()
  local dir = T.tmpdir("gain")
  local fields = { { "x", "double", encoding = "plain" }, { "k", "int64" } }
  local cols = { x = random_doubles(5000), k = {} }
  for i = 1, 5000 do cols.k[i] = i % 4 end
  for _, case in ipairs {
    { name = "default", opts = {}, x = "uncompressed", uncompressed = 2 },
    { name = "0.03", opts = { min_compression_gain = 0.03 }, x = "uncompressed", uncompressed = 2 },
    { name = "0", opts = { min_compression_gain = 0 }, x = "zstd", uncompressed = 0 },
  } do
    local path = dir .. "/" .. case.name .. ".parquet"
    local o = { compression = "zstd", row_group_rows = 2500 }
    for k, v in pairs(case.opts) do o[k] = v end
    local w = inlay.open(path, fields, o)
    w:write_columns(cols, 5000)
    local c = w:close().columns
    T.eq(c.x.compression, "ZSTD", case.name .. ": x's codec is zstd")
    T.eq(c.x.chunks, 2, case.name .. ": x's chunks")
    T.eq(c.x.chunks_uncompressed, case.uncompressed, case.name .. ": x's chunks stored uncompressed")
    T.eq(c.k.chunks_uncompressed, 0, case.name .. ": k compresses")
    local codecs = chunk_codecs(path)
    T.eq(codecs.x[1], case.x, case.name .. ": r:info() says x's codec")
    T.eq(codecs.x[2], case.x, case.name .. ": r:info() says x's codec, second row group")
    T.eq(codecs.k[1], "zstd", case.name .. ": k stays zstd")
    same(read_columns(path), cols, case.name .. ": read back")
    local d = T.duckdb(path)
    T.eq(d.chunks.x.compression, upper(case.x), case.name .. ": DuckDB's codec of x")
    T.eq(d.values.x[4321], cols.x[4321], case.name .. ": DuckDB reads x")
  end
  -- v2: the page says it is not compressed, the chunk keeps its codec
  local path = dir .. "/v2.parquet"
  local w = inlay.open(path, fields, { compression = "zstd", page_version = 2 })
  w:write_columns(cols, 5000)
  w:close()
  same(read_columns(path), cols, "v2 read back")
  local d = T.duckdb(path)
  T.eq(d.values.x[5000], cols.x[5000], "v2: DuckDB reads x")
end)

-- ---- bad codecs and levels --------------------------------------------------------

T.case("bad codecs and levels are refused at open, naming the option; nothing is written", function()
  local dir = T.tmpdir("bad_open")
  local p = dir .. "/x.parquet"
  local s = { { "id", "int64" } }
  T.raises(function() inlay.open(p, s, { compression = "rar" }) end,
           "inlay: option 'compression': unknown compression 'rar' (this inlay has 'uncompressed', ")
  T.raises(function() inlay.open(p, s, { compression = "zstd:x" }) end,
           "inlay: option 'compression': the level in 'zstd:x' is not an integer")
  T.raises(function() inlay.open(p, s, { compression = "zstd:" }) end, "the level in 'zstd:' is not an integer")
  T.raises(function() inlay.open(p, s, { compression = "zstd:19", compression_level = 5 }) end,
           "inlay: option 'compression' says level 19, option 'compression_level' 5")
  T.raises(function() inlay.open(p, s, { compression = "zstd", compression_level = 23 }) end,
           "compression ZSTD takes levels -131072 to 22, not 23")
  T.raises(function() inlay.open(p, s, { compression = "zstd:-200000" }) end,
           "compression ZSTD takes levels -131072 to 22, not -200000")
  T.raises(function() inlay.open(p, s, { compression = "uncompressed", compression_level = 1 }) end,
           "compression UNCOMPRESSED has no levels (level 1 given)")
  if HAS.gzip then
    T.raises(function() inlay.open(p, s, { compression = "gzip", compression_level = 10 }) end,
             "inlay: cannot open '" .. p .. "': compression GZIP takes levels 1 to 9, not 10")
    T.raises(function() inlay.open(p, s, { compression = "gzip:0" }) end, "compression GZIP takes levels 1 to 9, not 0")
  end
  if HAS.brotli then
    T.raises(function() inlay.open(p, s, { compression = "brotli:12" }) end,
             "compression BROTLI takes levels 0 to 11, not 12")
  end
  if HAS.snappy then
    T.raises(function() inlay.open(p, s, { compression = "snappy", compression_level = 1 }) end,
             "compression SNAPPY has no levels (level 1 given)")
    T.raises(function() inlay.open(p, s, { compression = "snappy:3" }) end, "compression SNAPPY has no levels")
  end
  if HAS.lz4_raw then
    T.raises(function() inlay.open(p, s, { compression = "lz4:13" }) end, "compression LZ4_RAW takes levels")
  end
  T.raises(function() inlay.open(p, s, { min_compression_gain = 1 }) end,
           "inlay: option 'min_compression_gain' must be a number in [0, 1), got 1")
  T.raises(function() inlay.open(p, s, { min_compression_gain = -0.1 }) end, "must be a number in [0, 1), got -0.1")
  T.raises(function() inlay.open(p, s, { min_compression_gain = "0.1" }) end, "must be a number in [0, 1), got 0.1")
  T.raises(function() inlay.open(p, s, { min_compression_gain = 0 / 0 }) end, "must be a number in [0, 1)")
  T.eq(#T.ls(dir), 0, "nothing left behind by failed opens")
  -- the good ones, in any case and by their other names
  for _, c in ipairs { "ZSTD", "none", "Uncompressed", "zstd:-5", "zstd:1", HAS.lz4_raw and "lz4" or "zstd",
                       HAS.gzip and "GZIP:1" or "zstd" } do
    local w = inlay.open(p, s, { compression = c })
    w:row(1)
    w:close()
  end
end)

T.case("bad codecs and levels in a schema name the field", function()
  local function schema_error(fields, want, what)
    T.raises(function() inlay.schema(fields) end, want, what)
  end
  schema_error({ { "payload", "string", compression = "rar" } },
               "inlay: field 'payload': unknown compression 'rar' (this inlay has ")
  schema_error({ { "payload", "string", compression = 3 } },
               "inlay: field 'payload': option 'compression' must be a string, got number")
  schema_error({ { "payload", "string", compression = "zstd", compression_level = 23 } },
               "inlay: field 'payload': compression ZSTD takes levels -131072 to 22, not 23")
  schema_error({ { "payload", "string", compression = "zstd:30" } },
               "inlay: field 'payload': compression ZSTD takes levels -131072 to 22, not 30")
  schema_error({ { "payload", "string", compression = "zstd:3", compression_level = 4 } },
               "inlay: field 'payload': option 'compression' says level 3, 'compression_level' 4")
  schema_error({ { "payload", "string", compression_level = 4 } },
               "inlay: field 'payload': option 'compression_level' needs 'compression' too")
  schema_error({ { "payload", "string", compression = "zstd", compression_level = "x" } },
               "inlay: field 'payload': option 'compression_level' must be an integer, got x")
  schema_error({ { "payload", "string", compression = "uncompressed", compression_level = 1 } },
               "inlay: field 'payload': compression UNCOMPRESSED has no levels (level 1 given)")
  if HAS.gzip then
    schema_error({ { "id", "int64" }, { "payload", "string", compression = "gzip", compression_level = 10 } },
                 "inlay: field 'payload': compression GZIP takes levels 1 to 9, not 10")
  end
  if HAS.brotli then
    schema_error({ { "pos", inlay.struct { { "x", "float", compression = "brotli:12" } } } },
                 "inlay: field 'pos.x': compression BROTLI takes levels 0 to 11, not 12")
    schema_error({ { "tags", inlay.list("string"), compression = "brotli", compression_level = 12 } },
                 "inlay: field 'tags.element': compression BROTLI takes levels 0 to 11, not 12")
  end
  if HAS.snappy then
    schema_error({ { "id", "int64", compression = "snappy", compression_level = 1 } },
                 "inlay: field 'id': compression SNAPPY has no levels (level 1 given)")
    -- a struct field naming another codec does not inherit the struct's level
    inlay.schema { { "pos", inlay.struct { { "x", "float", compression = "snappy" } }, compression = "zstd:19" } }
  end
  -- a level alone changes the level of the codec inherited
  local w = inlay.open(T.tmpdir("inherit") .. "/l.parquet",
                       { { "pos", inlay.struct { { "x", "float", compression_level = 1 }, { "y", "float" } },
                           compression = "zstd:19" } })
  w:row { x = 1, y = 2 }
  local c = w:close().columns
  T.eq(c["pos.x"].compression_level, 1, "pos.x: its own level")
  T.eq(c["pos.y"].compression_level, 19, "pos.y: the struct's level")
end)

-- ---- inlay convert ----------------------------------------------------------------

local CSV_ROWS = 20000

local function make_csv(path, rows)
  local lines = { "id,name,score" }
  for i = 1, rows do
    lines[#lines + 1] = string.format("%d,name-%d,%g", i, i * 7919 % 1000003, (i % 1000) / 8)
  end
  T.write(path, table.concat(lines, "\n") .. "\n")
end

T.case("convert --compression CODEC[:LEVEL], --level, sizes with suffixes", function()
  local dir = T.tmpdir("convert")
  local csv, big = dir .. "/in.csv", dir .. "/big.csv"
  make_csv(csv, CSV_ROWS)
  make_csv(big, 4 * CSV_ROWS)   -- several batches of the source: a row group ends between appends
  local cases = {
    { args = { "--compression", "snappy" }, codec = "snappy" },
    { args = { "--compression", "gzip:9" }, codec = "gzip", level = 9 },
    { args = { "--compression=lz4" }, codec = "lz4_raw" },
    { args = { "--compression=brotli:3" }, codec = "brotli", level = 3 },
    { args = { "--compression", "zstd", "--level", "5" }, codec = "zstd", level = 5 },
    { args = { "--level=7" }, codec = "zstd", level = 7 },
    { args = { "--level", "2", "--compression", "GZIP" }, codec = "gzip", level = 2 },
    { args = { "--compression", "none" }, codec = "uncompressed" },
    { args = { "--compression", "zstd:9", "--compression-level", "1" }, codec = "zstd", level = 1 },
    { args = { "--row-group-bytes", "64K", "--page-bytes", "16k" }, codec = "zstd", groups = "several", big = true },
    { args = { "--row-group-bytes=1M", "--page-bytes=64K" }, codec = "zstd" },
    { args = { "--row-group-rows", "5000", "--page-rows=1000", "--page-version", "2" }, codec = "zstd", groups = 4 },
    { args = { "--min-compression-gain", "0" }, codec = "zstd" },
    { args = { "--min-compression-gain=0.5", "--row-group-bytes", "1G" }, codec = "zstd" },
  }
  local outs, nrows = {}, {}
  for i, case in ipairs(cases) do
    if HAS[case.codec] then
      local out = string.format("%s/out%d.parquet", dir, i)
      local rows = case.big and 4 * CSV_ROWS or CSV_ROWS
      local args = { "convert", "-q", case.big and big or csv, out }
      table.move(case.args, 1, #case.args, #args + 1, args)
      local what = table.concat(case.args, " ")
      local _, err, code = run_inlay(args)
      T.eq(code, 0, what .. ": exit status (" .. (err or "") .. ")")
      local r <close> = inlay.read(out)
      local info = r:info()
      T.eq(info.num_rows, rows, what .. ": rows")
      local min_gain = what:find("0.5", 1, true)
      for _, g in ipairs(info.row_groups) do
        for _, c in ipairs(g.columns) do
          if not min_gain then T.eq(c.codec, case.codec, what .. ": " .. c.path .. "'s codec") end
        end
      end
      if case.groups == "several" then T.ok(info.num_row_groups > 1, what .. ": row groups " .. info.num_row_groups) end
      if type(case.groups) == "number" then T.eq(info.num_row_groups, case.groups, what .. ": row groups") end
      local got = read_columns(out)
      T.eq(got.id[rows], rows, what .. ": last id")
      T.eq(got.name[777], "name-" .. (777 * 7919 % 1000003), what .. ": a name")
      outs[#outs + 1] = out
      nrows[out] = rows
    end
  end
  local all = T.duckdb(table.unpack(outs))
  for _, out in ipairs(outs) do
    T.eq(all[out].rows, nrows[out], out .. ": DuckDB's rows")
    T.eq(all[out].values.id[12345], "12345", out .. ": DuckDB's id")
    T.eq(all[out].values.score[999], (999 % 1000) / 8, out .. ": DuckDB's score")
  end
end)

T.case("convert: bad codec, level, size and gain values exit 2 naming the flag", function()
  local dir = T.tmpdir("convert_bad")
  local csv = dir .. "/in.csv"
  T.write(csv, "id\n1\n2\n")
  local out = dir .. "/out.parquet"
  local bad = {
    { { "--compression", "rar" }, "--compression: unknown compression 'rar' (this inlay has " },
    { { "--compression=zstd:x" }, "--compression: the level in 'zstd:x' is not an integer" },
    { { "--compression", "zstd:99" }, "--compression: compression ZSTD takes levels -131072 to 22, not 99" },
    { { "--level", "1.5" }, "--level: the level in '1.5' is not an integer" },
    { { "--level", "23" }, "--level: compression ZSTD takes levels -131072 to 22, not 23" },
    { { "--compression", "uncompressed", "--level", "1" },
      "--level: compression UNCOMPRESSED has no levels (level 1 given)" },
    { { "--compression-level", "50" }, "--compression-level: compression ZSTD takes levels -131072 to 22, not 50" },
    { { "--row-group-bytes", "0" }, "--row-group-bytes needs a size" },
    { { "--row-group-bytes", "1.5M" }, "--row-group-bytes needs a size" },
    { { "--row-group-bytes=12Q" }, "--row-group-bytes needs a size, a positive byte count with K, M or G" },
    { { "--page-bytes", "-1" }, "--page-bytes needs a size" },
    { { "--page-bytes", "1G" }, "--page-bytes is at most 1073741823 bytes" },
    { { "--page-bytes" }, "option '--page-bytes' needs a value" },
    { { "--page-rows", "0" }, "--page-rows needs a positive integer" },
    { { "--page-version", "3" }, "--page-version is 1 or 2, got '3'" },
    { { "--row-group-rows", "x" }, "--row-group-rows needs a positive integer, got 'x'" },
    { { "--min-compression-gain", "1" }, "--min-compression-gain is a fraction in [0, 1), got '1'" },
    { { "--min-compression-gain=-0.5" }, "--min-compression-gain is a fraction in [0, 1), got '-0.5'" },
    { { "--min-compression-gain", "lots" }, "--min-compression-gain is a fraction in [0, 1), got 'lots'" },
  }
  local function add(codec, args, want) if HAS[codec] then bad[#bad + 1] = { args, want } end end
  add("gzip", { "--compression", "gzip:10" }, "--compression: compression GZIP takes levels 1 to 9, not 10")
  add("gzip", { "--level", "10", "--compression", "gzip" }, "--level: compression GZIP takes levels 1 to 9, not 10")
  add("brotli", { "--compression=brotli:12" }, "--compression: compression BROTLI takes levels 0 to 11, not 12")
  add("snappy", { "--compression", "snappy:1" }, "--compression: compression SNAPPY has no levels (level 1 given)")
  add("lz4_raw", { "--compression", "lz4", "--level", "13" }, "--level: compression LZ4_RAW takes levels")
  for _, b in ipairs(bad) do
    local args = { "convert", csv, out }
    table.move(b[1], 1, #b[1], #args + 1, args)
    local what = table.concat(b[1], " ")
    local _, err, code = run_inlay(args)
    T.eq(code, 2, what .. ": exit status (" .. (err or "") .. ")")
    T.ok(err:find("inlay: " .. b[2], 1, true), what .. ": the message names the flag: " .. err)
    T.ok(not T.exists(out), what .. ": nothing written")
  end
end)

T.case("inlay convert --help lists the codecs this build has, with their levels", function()
  local out, _, code = run_inlay { "convert", "--help" }
  T.eq(code, 0, "--help")
  for _, c in ipairs(CODECS) do
    T.ok(out:find("\n%s+" .. c .. "[ \n(]"), "--help lists " .. c .. ":\n" .. out)
  end
  T.ok(out:find("\n%s+zstd %(the default%)%s+levels %-131072%.%.22, default 3\n"), "zstd's levels: " .. out)
  if HAS.gzip then T.ok(out:find("\n%s+gzip%s+levels 1%.%.9, default 6\n"), "gzip's levels") end
  if HAS.snappy then T.ok(out:find("\n%s+snappy\n"), "snappy: no levels") end
  for _, flag in ipairs { "--compression C[:L]", "--level N", "--min-compression-gain F", "--row-group-bytes SIZE",
                          "--page-bytes SIZE", "--page-rows N", "--page-version V", "--row-group-rows N" } do
    T.ok(out:find(flag, 1, true), "--help has " .. flag)
  end
  T.ok(not out:find("%CODECS%", 1, true), "the placeholder is filled")
end)

T.finish()
