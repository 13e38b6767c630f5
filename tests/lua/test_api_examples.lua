-- The examples of the Lua API contract (LUA_API.md), as written there, with
-- the `...` of the examples filled in.

local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/testlib.lua")

local dir = T.tmpdir("api")

T.case("the schema example", function()
  local inlay = require "inlay"   -- inside `inlay`, and from stock lua5.4 via inlay.so

  local s = inlay.schema {
    { "id",     "int64" },                                  -- required by default
    { "ts",     inlay.timestamp("us", { utc = true }) },    -- "ms" | "us" | "ns"
    { "player", "string", optional = true },
    { "score",  "double", optional = true },
    { "level",  "int16" },                                  -- INT(16, signed)
    { "price",  inlay.decimal(10, 2) },
    { "guid",   "uuid" },
    { "day",    "date" },
    { "blob",   "binary" },
    { "hash",   inlay.fixed(32) },                          -- FIXED_LEN_BYTE_ARRAY(32)
    { "tags",   inlay.list("string") },                     -- nested: see the nested-data work
    { "pos",    inlay.struct { { "x", "float" }, { "y", "float" } } },
    { "attrs",  inlay.map("string", "int64") },
  }
  local text = tostring(s)   -- print(s) in the contract
  T.ok(text:find("^message schema {\n  required int64 id"), "message type: " .. text)
  T.ok(text:find("required fixed_len_byte_array(32) hash;", 1, true), "hash: " .. text)
  T.ok(text:find("required int64 price (DECIMAL(10,2));", 1, true), "price: " .. text)
  T.ok(text:find("required group tags (LIST) {\n    repeated group list {\n      optional binary element (STRING);",
                 1, true), "tags: " .. text)
  T.ok(text:find("required group pos {\n    required float x;\n    required float y;\n  }", 1, true), "pos: " .. text)
  T.ok(text:find("required group attrs (MAP) {\n    repeated group key_value {\n      required binary key (STRING);\n" ..
                 "      optional int64 value (INTEGER(64,true));", 1, true), "attrs: " .. text)
end)

T.case("the writing example", function()
  local inlay = require "inlay"
  local s = inlay.schema {
    { "id",     "int64" },
    { "ts",     inlay.timestamp("us", { utc = true }) },
    { "player", "string", optional = true },
    { "score",  "double", optional = true },
    { "level",  "int16" },
  }
  local path = dir .. "/events.parquet"
  local ids, tss, players = { 3, 4 }, { 1700000000000002, 1700000000000003 }, { "cy", inlay.null }
  local scores, levels = { 1.5, inlay.null }, { 7, 8 }
  local n = 2
  local info
  do
    local w <close> = inlay.open(path, s, {
      compression = "zstd",           -- "uncompressed" | "zstd" | ... ; zstd is the default
      compression_level = 3,
      row_group_rows = 1000000,       -- a row group ends at whichever limit comes first
      row_group_bytes = 128 * 2^20,
      page_bytes = 2^20,
      metadata = { source = "job-42" },   -- key-value metadata in the footer
    })

    -- one row: a table keyed by field name; nil or absent = null
    w:write { id = 1, ts = 1700000000000000, player = "ana", level = 3 }

    -- one row as arguments, in schema field order (nil = null): no table at all,
    -- the cheapest row path
    w:row(2, 1700000000000001, "bo", nil, 3)

    -- a batch: one Lua array per column, inlay.null marks a null;
    -- n defaults to the length of the first column
    w:write_columns({ id = ids, ts = tss, player = players, score = scores, level = levels }, n)

    info = w:close()   -- { path=, rows=, row_groups=, bytes= }
  end
  T.eq(info.path, path, "info.path")
  T.eq(info.rows, 4, "info.rows")
  T.eq(info.row_groups, 1, "info.row_groups")
  T.eq(info.bytes, #T.read(path), "info.bytes")
  local got = T.duckdb(path)
  T.eq(got.kv.source, "job-42", "metadata")
  local v = got.values
  T.eq(table.concat({ v.id[1], v.id[2], v.id[3], v.id[4] }, ","), "1,2,3,4", "ids")
  T.eq(v.player[1], "ana", "player 1")
  T.eq(v.player[2], "bo", "player 2")
  T.eq(v.player[3], "cy", "player 3")
  T.eq(v.player[4], nil, "player 4")
  T.eq(v.score[1], nil, "score 1")
  T.eq(v.score[3], 1.5, "score 3")
  T.eq(v.level[4], "8", "level 4")
  T.eq(v.ts[2], "1700000000000001us", "ts 2")
end)

T.case("the error example", function()
  local inlay = require "inlay"
  local w <close> = inlay.open(dir .. "/err.parquet", inlay.schema { { "score", "double", optional = true } })
  local scores = {}
  for i = 1, 20 do scores[i] = i * 1.5 end
  scores[17] = "17"
  local ok, err = pcall(w.write_columns, w, { score = scores })
  T.eq(ok, false, "rejected")
  T.eq(err, "inlay: column 'score' row 17: expected number, got string", "message")
end)

T.finish()
