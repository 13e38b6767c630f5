-- Skipping: what lets a reader leave data unread. Statistics (min, max,
-- null counts; exact, or truncated and flagged inexact), the page index
-- (column index and offset index), bloom filters, sorting columns and page
-- checksums, as inlay.open and the field options ask for them. Files are
-- read back by inlay.read (r:info()), by hyparquet (skip_read.mjs: the page
-- index, the footer's sorting columns, page CRCs, bloom filter probes) and
-- by DuckDB (exactness flags, parquet_bloom_probe); w:close() says how many
-- bytes each structure took; a row out of the declared order refuses the
-- call that gave it; `inlay convert` takes the same choices as flags, and
-- `inlay inspect` shows them.

local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/testlib.lua")
local inlay = require "inlay"

local NULL = inlay.null
local q = T.quote

-- ---- helpers ----------------------------------------------------------------------

local function run_inlay(args)
  local cmd = q(T.bin)
  for _, a in ipairs(args) do cmd = cmd .. " " .. q(a) end
  return T.run(cmd)
end

local function node()
  local n = os.getenv("INLAY_NODE")
  if not n or n == "" or n:match("NOTFOUND$") then T.fail("INLAY_NODE is not set: node reads the files back", 3) end
  return n
end

-- What hyparquet finds in the file (see skip_read.mjs); probes: { path = { values } }.
local function hyparquet(file, probes)
  local json
  if probes then
    local parts = {}
    for path, vals in pairs(probes) do
      local vs = {}
      for _, v in ipairs(vals) do vs[#vs + 1] = type(v) == "string" and string.format("%q", v) or tostring(v) end
      parts[#parts + 1] = string.format("%q:[%s]", path, table.concat(vs, ","))
    end
    json = "{" .. table.concat(parts, ",") .. "}"
  end
  local cmd = q(node()) .. " " .. q(T.here .. "/skip_read.mjs") .. " " .. q(file) .. (json and " " .. q(json) or "")
  local out, err, code = T.run(cmd)
  if code ~= 0 then T.fail("skip_read.mjs failed (" .. code .. "): " .. err, 2) end
  return assert(load(out, "=skip_read"))()
end

-- SQL statements run by DuckDB; one list of rows (tables keyed by column
-- name, NULL for nulls) per statement.
local function duck(dir, ...)
  local script = dir .. "/duck.mjs"
  if not T.exists(script) then
    T.write(script, ([[
import { loadDuckDB, luaString, luaNumber } from '%s'
const duckdb = loadDuckDB('test_skipping')
const lua = v => v === null || v === undefined ? 'NULL'
  : typeof v === 'string' ? luaString(v)
  : typeof v === 'number' ? luaNumber(v)
  : typeof v === 'boolean' ? String(v)
  : typeof v === 'bigint' ? luaString(String(v))
  : Array.isArray(v) ? '{' + v.map(lua).join(', ') + '}'
  : '{' + Object.entries(v).map(([k, x]) => '[' + luaString(k) + '] = ' + lua(x)).join(', ') + '}'
const instance = await duckdb.DuckDBInstance.create(':memory:')
const con = await instance.connect()
const out = []
for (const sql of process.argv.slice(2)) {
  const r = await con.runAndReadAll(sql)
  out.push('{' + r.getRowObjectsJson().map(lua).join(',\n') + '}')
}
process.stdout.write('return {' + out.join(',\n') + '}\n')
]]):format("file://" .. T.here .. "/duckdb_lua.mjs"))
  end
  local cmd = q(node()) .. " " .. q(script)
  for _, sql in ipairs({ ... }) do cmd = cmd .. " " .. q(sql) end
  local out, err, code = T.run(cmd)
  if code ~= 0 then T.fail("DuckDB failed (" .. code .. "): " .. err, 2) end
  return table.unpack(assert(load(out, "=duckdb", "t", { NULL = "NULL" }))())
end

local function sql_str(s) return "'" .. s:gsub("'", "''") .. "'" end

-- r:info()'s chunks: { path = { chunk of row group 1, chunk of row group 2, ... } }, and the info.
local function chunks(file)
  local r <close> = inlay.read(file)
  local info = r:info()
  local by = {}
  for _, g in ipairs(info.row_groups) do
    for _, c in ipairs(g.columns) do
      by[c.path] = by[c.path] or {}
      table.insert(by[c.path], c)
    end
  end
  return by, info
end

-- Every row of the file as a list of row tables.
local function all_rows(file)
  local r <close> = inlay.read(file)
  local rows = {}
  for row in r:rows() do rows[#rows + 1] = row end
  return rows
end

-- a < b by bytes (Lua's < on strings follows the C locale's collation).
local function bytes_less(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = a:byte(i), b:byte(i)
    if x ~= y then return x < y end
  end
  return #a < #b
end

local function sum_lengths(by, path, key)
  local n = 0
  for _, c in ipairs(by[path]) do n = n + (c[key] or 0) end
  return n
end

-- ---- the table ----------------------------------------------------------------

local N, GROUP, PAGE = 3000, 1000, 250
local CATS = {}
for i = 1, 20 do CATS[i] = string.format("cat-%02d", i) end

local FIELDS = {
  { "id", "int64" },
  { "ts", inlay.timestamp("us", { utc = true }) },
  { "name", "string", optional = true },
  { "score", "double", optional = true },
  { "flag", "boolean" },
  { "cat", "string" },
  { "pos", inlay.struct { { "x", "float" }, { "ok", "boolean" } }, optional = true },
}
local LEAVES = { "id", "ts", "name", "score", "flag", "cat", "pos.x", "pos.ok" }

local function name_of(i) return i % 7 == 0 and NULL or string.format("name-%05d", (i * 7919) % 100000) end
local function score_of(i) return i % 11 == 0 and NULL or (i % 500) / 4 end

local function columns(from, to)
  local c = { id = {}, ts = {}, name = {}, score = {}, flag = {}, cat = {}, pos = {} }
  for i = from, to do
    local k = i - from + 1
    c.id[k] = i
    c.ts[k] = 1700000000000000 + i * 1000
    c.name[k] = name_of(i)
    c.score[k] = score_of(i)
    c.flag[k] = i % 3 == 0
    c.cat[k] = CATS[i % #CATS + 1]
    c.pos[k] = i % 13 == 0 and NULL or { x = i / 2, ok = i % 2 == 0 }
  end
  return c, to - from + 1
end

-- Writes the table (N rows, groups of GROUP rows, pages of PAGE rows) and
-- returns what close() said.
local function write_table(file, opts, fields)
  opts = opts or {}
  opts.row_group_rows = opts.row_group_rows or GROUP
  opts.page_rows = opts.page_rows or PAGE
  local w <close> = inlay.open(file, fields or FIELDS, opts)
  for from = 1, N, 700 do w:write_columns(columns(from, math.min(N, from + 699))) end
  return w:close()
end

-- min, max and null count of column `path` over rows from..to, as r:info() gives them.
local function expected_stats(path, from, to)
  local min, max, nulls = nil, nil, 0
  local less = function(a, b) return a < b end
  for i = from, to do
    local v
    if path == "id" then v = i
    elseif path == "ts" then v = 1700000000000000 + i * 1000
    elseif path == "name" then v = name_of(i); less = bytes_less
    elseif path == "score" then v = score_of(i)
    elseif path == "cat" then v = CATS[i % #CATS + 1]; less = bytes_less
    elseif path == "pos.x" then v = i % 13 == 0 and NULL or i / 2
    end
    if v == NULL then nulls = nulls + 1
    else
      if min == nil or less(v, min) then min = v end
      if max == nil or less(max, v) then max = v end
    end
  end
  return min, max, nulls
end

-- ---- statistics and the page index -----------------------------------------------

T.case("by default: exact statistics per chunk and page, a column index and an offset index", function()
  local dir = T.tmpdir("defaults")
  local f = dir .. "/t.parquet"
  local info = write_table(f)
  local by, rinfo = chunks(f)
  T.eq(rinfo.num_row_groups, 3, "row groups")
  for _, path in ipairs(LEAVES) do
    for g, c in ipairs(by[path]) do
      local at = path .. " in row group " .. g
      T.ok(c.statistics, at .. ": statistics")
      if path ~= "flag" and path ~= "pos.ok" then
        local min, max, nulls = expected_stats(path, (g - 1) * GROUP + 1, g * GROUP)
        T.eq(c.statistics.min, min, at .. ": min")
        T.eq(c.statistics.max, max, at .. ": max")
        T.eq(c.statistics.null_count, nulls, at .. ": null_count")
      end
      T.eq(c.statistics.min_exact, true, at .. ": min_exact")
      T.eq(c.statistics.max_exact, true, at .. ": max_exact")
      T.ok(c.column_index_offset and c.column_index_length > 0, at .. ": a column index")
      T.ok(c.offset_index_offset and c.offset_index_length > 0, at .. ": an offset index")
      T.eq(c.bloom_filter_offset, nil, at .. ": no bloom filter")
    end
    local col = info.columns[path]
    T.eq(col.column_index_bytes, sum_lengths(by, path, "column_index_length"), path .. ": column_index_bytes")
    T.eq(col.offset_index_bytes, sum_lengths(by, path, "offset_index_length"), path .. ": offset_index_bytes")
    T.eq(col.bloom_filter_bytes, 0, path .. ": bloom_filter_bytes")
  end
  local index = 0
  for _, col in pairs(info.columns) do index = index + col.column_index_bytes + col.offset_index_bytes end
  T.eq(info.page_index_bytes, index, "page_index_bytes: every column's index bytes")
  T.ok(index > 0, "page_index_bytes > 0")
  T.eq(info.bloom_filter_bytes, 0, "bloom_filter_bytes")

  -- the page index, as another reader decodes it
  local h = hyparquet(f)
  T.eq(#h.row_groups, 3, "hyparquet: row groups")
  for g, rg in ipairs(h.row_groups) do
    T.eq(rg.sorting_columns, nil, "no sorting columns declared")
    for _, c in ipairs(rg.chunks) do
      local at = string.format("hyparquet: %s in row group %d", c.path, g)
      T.ok(c.pages, at .. ": an offset index")
      T.eq(#c.pages, GROUP // PAGE, at .. ": pages")
      for p, page in ipairs(c.pages) do
        T.eq(page.first_row_index, (p - 1) * PAGE, at .. ": page " .. p .. "'s first row")
        T.eq(page.crc, nil, at .. ": no page checksum by default")
      end
      local ci = c.column_index
      T.ok(ci, at .. ": a column index")
      T.eq(#ci.min, #c.pages, at .. ": a min per page")
      if c.path == "id" then
        T.eq(ci.boundary_order, "ASCENDING", at .. ": boundary order")
        for p = 1, #c.pages do
          local first = (g - 1) * GROUP + (p - 1) * PAGE + 1
          T.eq(ci.min[p], tostring(first), at .. ": page " .. p .. " min")
          T.eq(ci.max[p], tostring(first + PAGE - 1), at .. ": page " .. p .. " max")
          T.eq(ci.null_counts and ci.null_counts[p], 0, at .. ": page " .. p .. " nulls")
        end
      elseif c.path == "name" then
        for p = 1, #c.pages do
          local first = (g - 1) * GROUP + (p - 1) * PAGE + 1
          local min, max, nulls = expected_stats("name", first, first + PAGE - 1)
          T.eq(ci.min[p], min, at .. ": page " .. p .. " min")
          T.eq(ci.max[p], max, at .. ": page " .. p .. " max")
          T.eq(ci.null_counts and ci.null_counts[p], nulls, at .. ": page " .. p .. " nulls")
        end
      end
    end
  end

  -- and DuckDB: the same statistics, exact
  local meta = duck(dir, "SELECT row_group_id, path_in_schema, stats_min_value, stats_max_value, min_is_exact, " ..
                         "max_is_exact, bloom_filter_offset FROM parquet_metadata(" .. sql_str(f) .. ")")
  for _, m in ipairs(meta) do
    local at = "DuckDB: " .. m.path_in_schema .. " in row group " .. m.row_group_id
    T.eq(m.min_is_exact, true, at .. ": min_is_exact")
    T.eq(m.max_is_exact, true, at .. ": max_is_exact")
    T.eq(m.bloom_filter_offset, "NULL", at .. ": no bloom filter")
    if m.path_in_schema == "id" then
      T.eq(m.stats_min_value, tostring(tonumber(m.row_group_id) * GROUP + 1), at .. ": min")
    end
  end
end)

T.case("page_index = false: no column index, no offset index; statistics stay", function()
  local dir = T.tmpdir("no_index")
  local f = dir .. "/t.parquet"
  local info = write_table(f, { page_index = false })
  local by = chunks(f)
  for _, path in ipairs(LEAVES) do
    for g, c in ipairs(by[path]) do
      local at = path .. " in row group " .. g
      T.eq(c.column_index_offset, nil, at .. ": no column index")
      T.eq(c.offset_index_offset, nil, at .. ": no offset index")
      T.ok(c.statistics and c.statistics.null_count, at .. ": statistics")
    end
    T.eq(info.columns[path].column_index_bytes, 0, path .. ": column_index_bytes")
    T.eq(info.columns[path].offset_index_bytes, 0, path .. ": offset_index_bytes")
  end
  T.eq(info.page_index_bytes, 0, "page_index_bytes")
  for _, rg in ipairs(hyparquet(f).row_groups) do
    for _, c in ipairs(rg.chunks) do
      T.eq(c.pages, nil, c.path .. ": hyparquet finds no offset index")
      T.eq(c.column_index, nil, c.path .. ": hyparquet finds no column index")
    end
  end
  local rows = all_rows(f)
  T.eq(#rows, N, "rows")
  T.eq(rows[N].id, N, "the last row")
end)

T.case("statistics = false (file-wide and per field): no statistics, no column index; the offset index stays", function()
  local dir = T.tmpdir("no_stats")
  local f = dir .. "/t.parquet"
  local info = write_table(f, { statistics = false })
  local by = chunks(f)
  for _, path in ipairs(LEAVES) do
    for g, c in ipairs(by[path]) do
      local at = path .. " in row group " .. g
      T.ok(not (c.statistics and (c.statistics.min ~= nil or c.statistics.max ~= nil)), at .. ": no min or max")
      T.eq(c.column_index_offset, nil, at .. ": no column index (nothing to put in it)")
      T.ok(c.offset_index_offset, at .. ": an offset index")
    end
    T.eq(info.columns[path].column_index_bytes, 0, path .. ": column_index_bytes")
  end
  -- one field without, the others with
  local g = dir .. "/field.parquet"
  local fields = {}
  for i, fl in ipairs(FIELDS) do fields[i] = fl end
  fields[3] = { "name", "string", optional = true, statistics = false }
  write_table(g, {}, fields)
  by = chunks(g)
  for _, c in ipairs(by.name) do
    T.ok(not (c.statistics and c.statistics.max), "name: no max")
    T.eq(c.column_index_offset, nil, "name: no column index")
    T.ok(c.offset_index_offset, "name: an offset index")
  end
  for _, c in ipairs(by.id) do
    T.ok(c.statistics and c.statistics.max, "id: statistics")
    T.ok(c.column_index_offset, "id: a column index")
  end
  T.eq(#all_rows(g), N, "rows")
end)

-- ---- truncation -----------------------------------------------------------------

T.case("long byte-array bounds are truncated (64 bytes by default) and flagged inexact", function()
  local dir = T.tmpdir("truncate")
  local long_max = string.rep("z", 5001)
  local long_min = string.rep("a", 100) .. "tail"
  local utf = string.rep("\u{e9}", 100)          -- 200 bytes, 2 per character
  local fields = { { "id", "int64" }, { "s", "string" }, { "u", "string" }, { "b", "binary" }, { "short", "string" } }
  local function write(file, opts)
    local w <close> = inlay.open(file, fields, opts)
    w:write_columns({ id = { 1, 2, 3 }, s = { "m", long_max, long_min }, u = { utf, "\u{e9}", utf .. "x" },
                      b = { "\1", string.rep("\255", 100), "\0" }, short = { "a", "b", "c" } })
    return w:close()
  end
  local f = dir .. "/default.parquet"
  write(f)
  local c = chunks(f)
  local s = c.s[1].statistics
  T.ok(#s.max <= 64, "s: max cut to at most 64 bytes, got " .. #s.max)
  T.eq(s.max_exact, false, "s: max flagged inexact")
  T.ok(not bytes_less(s.max, long_max), "s: the cut max still bounds the values from above")
  T.eq(s.min_exact, false, "s: the long min is cut too")
  T.ok(#s.min <= 64 and long_min:sub(1, #s.min) == s.min, "s: the cut min is a prefix of the min")
  local u = c.u[1].statistics
  T.ok(#u.max <= 64 and utf8.len(u.max), "u: max cut at a character boundary: " .. #u.max .. " bytes")
  T.ok(#u.min <= 64 and utf8.len(u.min), "u: min cut at a character boundary")
  T.eq(u.max_exact, false, "u: max inexact")
  T.eq(u.min_exact, true, "u: min exact (one character)")
  T.eq(u.min, "\u{e9}", "u: min")
  local b = c.b[1].statistics
  T.eq(b.min, "\0", "b: min")
  T.ok(b.max == nil or b.max == string.rep("\255", 100) or (b.max_exact == false and not bytes_less(b.max,
       string.rep("\255", 100))), "b: a max of 0xFF bytes cannot be rounded up: kept whole or left out")
  local short = c.short[1].statistics
  T.eq(short.min, "a", "short: min")
  T.eq(short.max, "c", "short: max")
  T.eq(short.min_exact and short.max_exact, true, "short: exact")
  T.eq(c.id[1].statistics.max_exact, true, "id: exact")

  -- DuckDB reads the same flags
  local meta = duck(dir, "SELECT path_in_schema, min_is_exact, max_is_exact FROM parquet_metadata(" .. sql_str(f) .. ")")
  local flags = {}
  for _, m in ipairs(meta) do flags[m.path_in_schema] = m end
  T.eq(flags.s.max_is_exact, false, "DuckDB: s max_is_exact")
  T.eq(flags.s.min_is_exact, false, "DuckDB: s min_is_exact")
  T.eq(flags.short.max_is_exact, true, "DuckDB: short max_is_exact")
  -- the page index's bounds are cut the same way
  local h = hyparquet(f)
  for _, ch in ipairs(h.row_groups[1].chunks) do
    if ch.path == "s" then
      T.ok(#ch.column_index.max[1] <= 64, "column index: s's page max cut")
      T.ok(not bytes_less(ch.column_index.max[1], long_max), "column index: s's page max bounds the values")
    end
  end

  -- 0: never cut
  local g = dir .. "/never.parquet"
  write(g, { statistics_truncate_length = 0 })
  s = chunks(g).s[1].statistics
  T.eq(#s.max, 5001, "length 0: the whole max")
  T.eq(s.max, long_max, "length 0: the max")
  T.eq(s.max_exact, true, "length 0: exact")
  T.eq(s.min, long_min, "length 0: the whole min")

  -- 10
  local k = dir .. "/ten.parquet"
  write(k, { statistics_truncate_length = 10 })
  c = chunks(k)
  T.ok(#c.s[1].statistics.max <= 10, "length 10: s max")
  T.ok(#c.u[1].statistics.min <= 10 or c.u[1].statistics.min == "\u{e9}", "length 10: u min")
  T.eq(c.u[1].statistics.max_exact, false, "length 10: u max inexact")
  T.eq(c.short[1].statistics.max_exact, true, "length 10: short values stay exact")
  T.eq(#all_rows(k), 3, "rows")
  T.eq(all_rows(k)[2].s, long_max, "the values themselves are never cut")
end)

-- ---- bloom filters ----------------------------------------------------------------

T.case("bloom filters: on the fields asked for, in every row group, probed by hyparquet and DuckDB", function()
  local dir = T.tmpdir("bloom")
  local f = dir .. "/t.parquet"
  local fields = {
    { "id", "int64", bloom_filter = true },
    { "ts", inlay.timestamp("us", { utc = true }) },
    { "name", "string", optional = true },                        -- by inlay.open's option below
    { "score", "double", optional = true },
    { "flag", "boolean" },
    { "cat", "string", bloom_filter = { ndv = 20, fpp = 0.01 } },
    { "pos", inlay.struct { { "x", "float" }, { "ok", "boolean" } }, optional = true, bloom_filter = true },
  }
  local info = write_table(f, { bloom_filter = { "name" } }, fields)
  local with = { id = true, name = true, cat = true, ["pos.x"] = true }
  local by = chunks(f)
  local total = 0
  for _, path in ipairs(LEAVES) do
    for g, c in ipairs(by[path]) do
      local at = path .. " in row group " .. g
      if with[path] then
        T.ok(c.bloom_filter_offset and c.bloom_filter_offset > 0, at .. ": a bloom filter")
      else
        T.eq(c.bloom_filter_offset, nil, at .. ": no bloom filter")
      end
    end
    local bytes = info.columns[path].bloom_filter_bytes
    if with[path] then T.ok(bytes > 0, path .. ": bloom_filter_bytes " .. bytes) else T.eq(bytes, 0, path .. ": no bytes") end
    total = total + bytes
  end
  T.eq(info.bloom_filter_bytes, total, "bloom_filter_bytes: the columns' sum")
  T.ok(info.columns.cat.bloom_filter_bytes < info.columns.id.bloom_filter_bytes,
       "cat's filter (20 values) is smaller than id's (1000 per row group)")

  -- no false negatives; few false positives (fpp 1%: allow 10 of 200)
  local ids, absent = {}, {}
  for i = 1, GROUP do ids[#ids + 1] = i end
  for i = 1, 200 do absent[#absent + 1] = 100000 + i end
  local cats_absent = {}
  for i = 1, 200 do cats_absent[i] = "nope-" .. i end
  local probe_ids = table.move(absent, 1, #absent, #ids + 1, table.move(ids, 1, #ids, 1, {}))
  local probe_cats = table.move(cats_absent, 1, #cats_absent, #CATS + 1, table.move(CATS, 1, #CATS, 1, {}))
  local h = hyparquet(f, { id = probe_ids, cat = probe_cats })
  for g, rg in ipairs(h.row_groups) do
    for _, c in ipairs(rg.chunks) do
      local at = string.format("hyparquet: %s in row group %d", c.path, g)
      if with[c.path] then
        T.ok(c.bloom and c.bloom.bytes > 0, at .. ": a bloom filter it can read")
        T.eq(c.bloom.bytes % 32, 0, at .. ": whole blocks")
      else
        T.eq(c.bloom, nil, at .. ": none")
      end
      if c.path == "id" then
        local fp = 0
        for _, v in ipairs(absent) do if c.bloom.probes[tostring(v)] then fp = fp + 1 end end
        T.ok(fp <= 10, at .. ": " .. fp .. " of 200 absent ids pass")
        if g == 1 then
          for _, v in ipairs(ids) do
            if not c.bloom.probes[tostring(v)] then T.fail(at .. ": id " .. v .. " is missing from the filter") end
          end
        end
      elseif c.path == "cat" then
        for _, v in ipairs(CATS) do T.eq(c.bloom.probes[v], true, at .. ": " .. v) end
        local fp = 0
        for _, v in ipairs(cats_absent) do if c.bloom.probes[v] then fp = fp + 1 end end
        T.ok(fp <= 10, at .. ": " .. fp .. " of 200 absent categories pass")
      end
    end
  end

  local probes = duck(dir, "SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe(" .. sql_str(f) ..
                           ", 'id', 5) ORDER BY row_group_id")
  T.eq(#probes, 3, "DuckDB: a probe per row group")
  T.eq(probes[1].bloom_filter_excludes, false, "DuckDB: id 5 may be in row group 0")
  T.eq(probes[2].bloom_filter_excludes, true, "DuckDB: id 5 is not in row group 1")
  T.eq(probes[3].bloom_filter_excludes, true, "DuckDB: id 5 is not in row group 2")
  local cat = duck(dir, "SELECT count(*) AS n FROM parquet_bloom_probe(" .. sql_str(f) ..
                        ", 'cat', 'cat-07') WHERE bloom_filter_excludes")
  T.eq(cat[1].n, "0", "DuckDB: a category that is there is never excluded")
  local rows = duck(dir, "SELECT count(*) AS n, sum(id) AS s FROM read_parquet(" .. sql_str(f) .. ") WHERE cat = 'cat-03'")
  T.eq(rows[1].n, tostring(N // #CATS), "DuckDB: a filtered query's rows")

  -- sized by ndv and fpp
  local sizes = {}
  for _, o in ipairs { { ndv = 10 }, { ndv = 100000 }, { ndv = 1000, fpp = 0.5 }, { ndv = 1000, fpp = 0.0001 } } do
    local g = dir .. "/size.parquet"
    local w <close> = inlay.open(g, { { "id", "int64", bloom_filter = o } })
    w:write_columns({ id = { 1, 2, 3 } })
    sizes[#sizes + 1] = w:close().columns.id.bloom_filter_bytes
  end
  T.ok(sizes[1] < sizes[2], "more distinct values, a bigger filter: " .. sizes[1] .. " < " .. sizes[2])
  T.ok(sizes[3] < sizes[4], "a lower fpp, a bigger filter: " .. sizes[3] .. " < " .. sizes[4])

  -- a list's elements
  local l = dir .. "/list.parquet"
  local w <close> = inlay.open(l, { { "tags", inlay.list("string"), bloom_filter = true },
                                    { "flags", inlay.struct { { "a", "boolean" }, { "n", "int32" } }, bloom_filter = true } })
  w:write { tags = { "x", "y" }, flags = { a = true, n = 1 } }
  w:write { tags = {}, flags = { a = false, n = 2 } }
  local li = w:close()
  T.ok(li.columns["tags.list.element"].bloom_filter_bytes > 0, "a list's elements get the filter")
  T.ok(li.columns["flags.n"].bloom_filter_bytes > 0, "a struct's int leaf gets it")
  T.eq(li.columns["flags.a"].bloom_filter_bytes, 0, "a struct's boolean leaf goes without")
  local lc = chunks(l)
  T.ok(lc["tags.list.element"][1].bloom_filter_offset, "r:info(): the list's filter")
  T.eq(lc["flags.a"][1].bloom_filter_offset, nil, "r:info(): no filter on the boolean")
end)

T.case("bloom_filter on inlay.open: names and options, the schema it writes with", function()
  local dir = T.tmpdir("bloom_open")
  local s = inlay.schema { { "id", "int64" }, { "cat", "string" }, { "note", "string", optional = true } }
  local f = dir .. "/t.parquet"
  local w <close> = inlay.open(f, s, { bloom_filter = { "id", cat = { ndv = 5, fpp = 0.1 }, note = false } })
  w:write_columns({ id = { 1, 2 }, cat = { "a", "b" }, note = { "x", NULL } })
  local info = w:close()
  T.ok(info.columns.id.bloom_filter_bytes > 0, "id")
  T.ok(info.columns.cat.bloom_filter_bytes > 0, "cat")
  T.eq(info.columns.note.bloom_filter_bytes, 0, "note = false")
  -- the schema given is not changed; the writer's is the one it wrote with
  local g = dir .. "/plain.parquet"
  local w2 <close> = inlay.open(g, s)
  w2:write_columns({ id = { 1 }, cat = { "a" } })
  T.eq(w2:close().bloom_filter_bytes, 0, "the schema itself has no filters")
  local s2 = w:schema()
  local h = dir .. "/again.parquet"
  local w3 <close> = inlay.open(h, s2)
  w3:write_columns({ id = { 1 }, cat = { "a" } })
  T.ok(w3:close().columns.id.bloom_filter_bytes > 0, "w:schema() carries the filters")
  -- a field option is overridden by inlay.open's
  local w4 <close> = inlay.open(dir .. "/override.parquet", { { "id", "int64", bloom_filter = true } },
                                { bloom_filter = { id = false } })
  w4:write_columns({ id = { 1 } })
  T.eq(w4:close().columns.id.bloom_filter_bytes, 0, "open's option wins")
end)

-- ---- sorting columns ----------------------------------------------------------------

T.case("sorting_columns: rows in order are written and declared; a row out of order refuses its call", function()
  local dir = T.tmpdir("sorted")
  local f = dir .. "/t.parquet"
  local w = inlay.open(f, { { "id", "int64" }, { "ts", "int64", optional = true }, { "v", "string" } },
                       { row_group_rows = 4, sorting_columns = { "id", { "ts", descending = true, nulls_first = true } } })
  w:write { id = 1, v = "a" }                      -- 1: ts null first
  w:row(1, 30, "b")                                -- 2
  w:row(1, 20, "c")                                -- 3: descending
  w:write_columns({ id = { 2, 2, 3 }, ts = { NULL, 5, 9 }, v = { "d", "e", "f" } })   -- 4..6
  T.eq(w:info().rows, 6, "rows in order")

  local function refused(fn, col, row, what)
    local before = w:info().rows
    local err = T.raises(fn, string.format("inlay: column '%s' row %d: ", col, row), what)
    T.eq(w:info().rows, before, what .. ": nothing of the call was written")
    return err
  end
  refused(function() w:write { id = 2, ts = 1, v = "x" } end, "id", 7, "id going down (write)")
  refused(function() w:row(3, 10, "x") end, "ts", 7, "ts going up where it descends (row)")
  refused(function() w:row(3, NULL, "x") end, "ts", 7, "a null after a value where nulls come first")
  refused(function() w:write_columns({ id = { 3, 4, 3 }, ts = { 1, 1, 1 }, v = { "x", "y", "z" } }) end,
          "id", 3, "write_columns: the third of its rows")
  refused(function() w:write_columns({ id = { 2 }, ts = { 1 }, v = { "x" } }) end, "id", 1,
          "write_columns: against the rows before")
  -- still usable: rows in order go on, across row groups and a flush
  w:row(3, 9, "g")                                 -- 7: equal keys are in order
  w:flush()
  w:write_columns({ id = { 4, 5 }, ts = { 1, 1 }, v = { "h", "i" } })   -- 8, 9
  refused(function() w:row(4, 1, "x") end, "id", 10, "after a flush, against the last row group")
  w:write { id = 10, v = "j" }                     -- 10
  local info = w:close()
  T.eq(info.rows, 10, "rows written")
  local rows = all_rows(f)
  local want = { "a", "b", "c", "d", "e", "f", "g", "h", "i", "j" }
  T.eq(#rows, #want, "rows read back")
  for i, v in ipairs(want) do T.eq(rows[i].v, v, "row " .. i) end

  -- declared in every row group's footer
  local h = hyparquet(f)
  T.ok(#h.row_groups >= 3, "several row groups")
  for g, rg in ipairs(h.row_groups) do
    local sc = rg.sorting_columns
    T.ok(sc and #sc == 2, "row group " .. g .. ": two sorting columns")
    T.eq(sc[1].column_idx, 0, "row group " .. g .. ": first id")
    T.eq(sc[1].descending, false, "id ascending")
    T.eq(sc[1].nulls_first, false, "id nulls last")
    T.eq(sc[2].column_idx, 1, "row group " .. g .. ": then ts")
    T.eq(sc[2].descending, true, "ts descending")
    T.eq(sc[2].nulls_first, true, "ts nulls first")
  end
end)

T.case("sorting_columns: strings, a struct's leaf, a dotted path", function()
  local dir = T.tmpdir("sorted_more")
  local f = dir .. "/s.parquet"
  local w <close> = inlay.open(f, { { "name", "string" }, { "n", "int32" } }, { sorting_columns = { "name" } })
  w:write_columns({ name = { "a", "ab", "b" }, n = { 1, 2, 3 } })
  T.raises(function() w:row("aa", 4) end, "inlay: column 'name' row 4: ", "a string going down")
  w:row("b", 4)
  T.eq(w:close().rows, 4, "rows")

  local g = dir .. "/pos.parquet"
  local w2 <close> = inlay.open(g, { { "id", "int64" }, { "pos", inlay.struct { { "x", "float" }, { "y", "float" } } } },
                                { sorting_columns = { "pos.x" } })
  w2:write { id = 1, pos = { x = 1, y = 0 } }
  w2:write { id = 2, pos = { x = 2, y = 0 } }
  T.raises(function() w2:write { id = 3, pos = { x = 0, y = 0 } } end, "inlay: column 'pos.x' row 3: ",
           "a struct's leaf going down")
  T.eq(w2:info().rows, 2, "the refused row is not written")
  w2:write { id = 4, pos = { x = 3, y = 0 } }
  T.raises(function() w2:write_columns({ id = { 5, 6 }, pos = { { x = 4, y = 0 }, { x = 3.5, y = 0 } } }) end,
           "inlay: column 'pos.x' row 2: ", "write_columns: a struct's leaf going down")
  w2:write_columns({ id = { 5, 6 }, pos = { { x = 4, y = 0 }, { x = 4, y = 1 } } })
  T.eq(w2:close().rows, 5, "rows")
  local rows = all_rows(g)
  T.eq(#rows, 5, "rows read back")
  T.eq(rows[3].id, 4, "the refused rows left nothing")
  T.eq(rows[5].pos.y, 1, "the last row")
  local h = hyparquet(g)
  T.eq(h.row_groups[1].sorting_columns[1].column_idx, 1, "pos.x is leaf column 1")
end)

T.case("sorted by a struct's leaf: a call refused for a flat column's text leaves nothing", function()
  local dir = T.tmpdir("sorted_text")
  local f = dir .. "/s.parquet"
  local w <close> = inlay.open(f, { { "name", "string", optional = true }, { "pos", inlay.struct { { "x", "int32" } } } },
                               { sorting_columns = { "pos.x" } })
  w:write { name = "a", pos = { x = 1 } }
  -- the struct (the sort keys) goes in first: the flat text must be checked before it
  T.raises(function() w:write_columns({ name = { "b", inlay.null, "\xff" }, pos = { { x = 2 }, { x = 3 }, { x = 4 } } }) end,
           "inlay: column 'name' row 3: invalid UTF-8", "write_columns: bad UTF-8 after a null")
  T.eq(w:info().rows, 1, "the refused call is not written")
  w:write_columns({ name = { "b", inlay.null }, pos = { { x = 2 }, { x = 3 } } })
  T.eq(w:close().rows, 3, "rows")
  local rows = all_rows(f)
  T.eq(#rows, 3, "rows read back")
  T.eq(rows[2].name, "b", "the call after the refused one")
  T.eq(rows[3].pos.x, 3, "its last row")
end)

-- ---- page checksums -----------------------------------------------------------------

T.case("page_checksum: a CRC-32 in every page header, right for v1 and v2 pages and every codec", function()
  local dir = T.tmpdir("crc")
  local n = 0
  for _, opts in ipairs { { page_checksum = true }, { page_checksum = true, page_version = 2 },
                          { page_checksum = true, compression = "uncompressed" },
                          { page_checksum = true, compression = "gzip", page_version = 2 } } do
    n = n + 1
    local f = string.format("%s/t%d.parquet", dir, n)
    write_table(f, opts)
    local what = string.format("page_version %s, %s", opts.page_version or 1, opts.compression or "zstd")
    local pages = 0
    for _, rg in ipairs(hyparquet(f).row_groups) do
      for _, c in ipairs(rg.chunks) do
        for _, p in ipairs(c.pages) do
          T.ok(p.crc ~= nil, what .. ": " .. c.path .. ": a crc")
          T.eq(p.crc_ok, true, what .. ": " .. c.path .. ": the crc of the page's bytes")
          pages = pages + 1
        end
        if c.dictionary then T.eq(c.dictionary.crc_ok, true, what .. ": " .. c.path .. ": the dictionary page's crc") end
      end
    end
    T.ok(pages >= 3 * #LEAVES * (GROUP // PAGE), what .. ": every page checked (" .. pages .. ")")
    T.eq(#all_rows(f), N, what .. ": inlay reads it")
    local d = duck(dir, "SELECT count(*) AS n, max(id) AS m FROM read_parquet(" .. sql_str(f) .. ")")
    T.eq(d[1].m, tostring(N), what .. ": DuckDB reads it")
  end
end)

-- ---- option errors ------------------------------------------------------------------

T.case("bad options are refused at open, naming the option; nothing is created", function()
  local dir = T.tmpdir("option_errors")
  local f = dir .. "/x.parquet"
  local s = inlay.schema { { "id", "int64" }, { "flag", "boolean" }, { "tags", inlay.list("string"), optional = true },
                           { "pos", inlay.struct { { "x", "float" } }, optional = true },
                           { "m", inlay.map("string", "int64"), optional = true } }
  local bad = {
    { { statistics = 1 }, "inlay: option 'statistics' must be a boolean, got number" },
    { { page_index = "no" }, "inlay: option 'page_index' must be a boolean, got string" },
    { { page_checksum = 0 }, "inlay: option 'page_checksum' must be a boolean, got number" },
    { { statistics_truncate_length = -1 }, "inlay: option 'statistics_truncate_length' must be an integer >= 0, got -1" },
    { { statistics_truncate_length = 1.5 }, "inlay: option 'statistics_truncate_length' must be an integer >= 0" },
    { { sorting_columns = "id" }, "inlay: option 'sorting_columns' must be a list of column names, got string" },
    { { sorting_columns = { "nope" } }, "inlay: option 'sorting_columns': no column 'nope'" },
    { { sorting_columns = { "id", "id" } }, "inlay: option 'sorting_columns': column 'id' is given twice" },
    { { sorting_columns = { "pos" } }, "inlay: option 'sorting_columns': 'pos' is a struct: name one of its columns ('pos.x', ...)" },
    { { sorting_columns = { "tags" } }, "inlay: option 'sorting_columns': 'tags' is a list" },
    { { sorting_columns = { "tags.list.element" } }, "inlay: option 'sorting_columns': 'tags.list.element' is inside a list or map" },
    { { sorting_columns = { "m.key_value.key" } }, "is inside a list or map" },
    { { sorting_columns = { "id", "pos.x" } }, "inlay: option 'sorting_columns': 'id' and 'pos.x' are a top-level " ..
      "column and a struct's: the columns of a sort order are all top-level columns, or all in one struct" },
    { { sorting_columns = { { "id", desc = true } } }, "inlay: option 'sorting_columns': entry 1: unknown key desc" },
    { { sorting_columns = { { "id", descending = "yes" } } }, "entry 1: descending must be a boolean, got string" },
    { { sorting_columns = { { descending = true } } }, "entry 1: expected a column name, got nil" },
    { { sorting_columns = { 7 } }, "entry 1: expected a column name, got number" },
    { { sorting_columns = { first = "id" } }, "inlay: option 'sorting_columns': unexpected key first" },
    { { bloom_filter = "id" }, "inlay: option 'bloom_filter' must be a table of field names, got string" },
    { { bloom_filter = { "nope" } }, "inlay: option 'bloom_filter': no top-level field 'nope'" },
    { { bloom_filter = { "pos.x" } }, "no top-level field 'pos.x' (a field inside a struct takes the field option)" },
    { { bloom_filter = { 5 } }, "inlay: option 'bloom_filter': expected a field name, got number" },
    { { bloom_filter = { "flag" } }, "inlay: field 'flag': bloom filters are not for boolean columns" },
    { { bloom_filter = { id = { ndv = -1 } } }, "inlay: field 'id': bloom_filter: ndv must be a positive integer" },
    { { bloom_filter = { id = { fpp = 0 } } }, "inlay: field 'id': bloom_filter: fpp must be a number between 0 and 1" },
    { { statistic = true }, "inlay: unknown option 'statistic' (the options are " },
  }
  for _, b in ipairs(bad) do
    T.raises(function() inlay.open(f, s, b[1]) end, b[2], b[2])
    T.eq(#T.ls(dir), 0, b[2] .. ": nothing created")
  end
  local err = T.raises(function() inlay.open(f, s, { sortng_columns = {} }) end, "unknown option")
  for _, name in ipairs { "statistics", "page_index", "statistics_truncate_length", "page_checksum",
                          "sorting_columns", "bloom_filter" } do
    T.ok(err:find(name, 1, true), "the list of options has " .. name .. ": " .. err)
  end

  -- field options
  local fields = {
    { { "x", "int64", bloom_filter = 1 }, "inlay: field 'x': option 'bloom_filter' must be true, false or { ndv = n, fpp = p }, got number" },
    { { "x", "int64", bloom_filter = { ndv = 1.5 } }, "inlay: field 'x': bloom_filter: ndv must be a positive integer, got 1.5" },
    { { "x", "int64", bloom_filter = { ndv = "9" } }, "bloom_filter: ndv must be a positive integer, got 9" },
    { { "x", "int64", bloom_filter = { fpp = 1 } }, "inlay: field 'x': bloom_filter: fpp must be a number between 0 and 1 (exclusive), got 1" },
    { { "x", "int64", bloom_filter = { fpp = -0.1 } }, "bloom_filter: fpp must be a number between 0 and 1 (exclusive), got -0.1" },
    { { "x", "int64", bloom_filter = { fpp = 0 / 0 } }, "bloom_filter: fpp must be a number between 0 and 1" },
    { { "x", "int64", bloom_filter = { size = 10 } }, "inlay: field 'x': bloom_filter: unknown key size (the keys are ndv and fpp)" },
    { { "b", "boolean", bloom_filter = true }, "inlay: field 'b': bloom filters are not for boolean columns" },
    { { "b", "boolean", bloom_filter = {} }, "inlay: field 'b': bloom filters are not for boolean columns" },
    { { "p", inlay.struct { { "b", "boolean", bloom_filter = true } } }, "inlay: field 'p.b': bloom filters are not for boolean columns" },
    { { "l", inlay.list("boolean"), bloom_filter = true }, "inlay: field 'l.element': bloom filters are not for boolean columns" },
  }
  for _, c in ipairs(fields) do T.raises(function() inlay.schema { c[1] } end, c[2], c[2]) end
  -- fine: off, empty, a struct or map with a boolean inside
  inlay.schema { { "b", "boolean", bloom_filter = false }, { "x", "int64", bloom_filter = {} },
                 { "p", inlay.struct { { "b", "boolean" }, { "n", "int32" } }, bloom_filter = true },
                 { "m", inlay.map("string", "boolean"), bloom_filter = { fpp = 0.2 } } }
end)

-- ---- inspect ----------------------------------------------------------------------

T.case("inspect shows the index and filter lengths and inexact bounds", function()
  local dir = T.tmpdir("inspect")
  local f = dir .. "/t.parquet"
  local w <close> = inlay.open(f, { { "id", "int64", bloom_filter = true }, { "s", "string" } })
  w:write_columns({ id = { 1, 2 }, s = { "a", string.rep("z", 200) } })
  w:close()
  local by = chunks(f)
  local out, err, code = run_inlay { "inspect", f }
  T.eq(code, 0, "inspect: " .. (err or ""))
  T.ok(out:find("col index", 1, true) and out:find("off index", 1, true) and out:find("bloom", 1, true),
       "the table's heads:\n" .. out)
  local id_line = out:match("\n  id +INT64[^\n]*")
  T.ok(id_line, "a line for id:\n" .. out)
  local cells = {}
  for cell in id_line:gmatch("%S+") do cells[#cells + 1] = cell end
  T.eq(cells[#cells], tostring(by.id[1].bloom_filter_length), "id: the bloom filter's length last")
  T.eq(cells[#cells - 1], tostring(by.id[1].offset_index_length), "id: the offset index's length")
  T.eq(cells[#cells - 2], tostring(by.id[1].column_index_length), "id: the column index's length")
  local s_line = out:match("\n  s +BYTE_ARRAY[^\n]*")
  T.ok(s_line and s_line:find("(inexact)", 1, true), "s: the max says it is inexact: " .. tostring(s_line))
  T.ok(s_line and s_line:find("%-$"), "s: no bloom filter: " .. tostring(s_line))

  local json = run_inlay { "inspect", "--json", f }
  T.ok(json:find('"column_index_length":' .. by.id[1].column_index_length, 1, true), "json: column_index_length")
  T.ok(json:find('"offset_index_offset":' .. by.id[1].offset_index_offset, 1, true), "json: offset_index_offset")
  T.ok(json:find('"bloom_filter_offset":' .. by.id[1].bloom_filter_offset, 1, true), "json: bloom_filter_offset")
  T.ok(json:find('"bloom_filter_offset":null', 1, true), "json: s has none")
  T.ok(json:find('"max_exact":false', 1, true), "json: s's max is inexact")
end)

-- ---- inlay convert ------------------------------------------------------------------

local function make_csv(path, rows, shuffled)
  local lines = { "id,cat,note" }
  for i = 1, rows do
    local id = shuffled and (i * 7919) % rows + 1 or i
    lines[#lines + 1] = string.format("%d,%s,%s", id, CATS[id % #CATS + 1], id % 5 == 0 and string.rep("n", 100) or "short")
  end
  T.write(path, table.concat(lines, "\n") .. "\n")
end

T.case("convert --bloom-filter, --sorted-by, --no-statistics, --no-page-index, --page-checksum, truncation", function()
  local dir = T.tmpdir("convert")
  local csv, unsorted = dir .. "/in.csv", dir .. "/shuffled.csv"
  make_csv(csv, 5000)
  make_csv(unsorted, 5000, true)
  local function convert(args, input)
    local out = dir .. "/out.parquet"
    os.remove(out)
    local all = { "convert", "-q", input or csv, out }
    table.move(args, 1, #args, #all + 1, all)
    local _, err, code = run_inlay(all)
    T.eq(code, 0, table.concat(args, " ") .. ": exit status (" .. (err or "") .. ")")
    return out
  end
  local by = chunks(convert { "--bloom-filter", "id,cat", "--row-group-rows", "2000" })
  T.eq(#by.id, 3, "row groups")
  for g = 1, 3 do
    T.ok(by.id[g].bloom_filter_offset, "--bloom-filter: id")
    T.ok(by.cat[g].bloom_filter_offset, "--bloom-filter: cat")
    T.eq(by.note[g].bloom_filter_offset, nil, "--bloom-filter: not note")
    T.ok(by.id[g].column_index_offset and by.id[g].statistics, "defaults: a page index and statistics")
  end
  by = chunks(convert { "--bloom-filter=id", "--bloom-filter", "note" })
  T.ok(by.id[1].bloom_filter_offset and by.note[1].bloom_filter_offset, "repeated --bloom-filter adds")

  by = chunks(convert { "--no-statistics" })
  T.ok(not (by.id[1].statistics and by.id[1].statistics.max), "--no-statistics")
  by = chunks(convert { "--no-page-index" })
  T.eq(by.id[1].column_index_offset, nil, "--no-page-index: no column index")
  T.eq(by.id[1].offset_index_offset, nil, "--no-page-index: no offset index")
  by = chunks(convert { "--statistics-truncate-length", "8" })
  T.ok(#by.note[1].statistics.min <= 8 and by.note[1].statistics.min_exact == false, "--statistics-truncate-length 8")
  by = chunks(convert { "--statistics-truncate-length=0" })
  T.eq(#by.note[1].statistics.min, 100, "--statistics-truncate-length 0: whole")

  local f = convert { "--page-checksum" }
  for _, c in ipairs(hyparquet(f).row_groups[1].chunks) do
    for _, p in ipairs(c.pages) do T.eq(p.crc_ok, true, "--page-checksum: " .. c.path) end
  end

  f = convert { "--sorted-by", "id", "--row-group-rows", "1000" }
  for _, rg in ipairs(hyparquet(f).row_groups) do
    T.eq(rg.sorting_columns and rg.sorting_columns[1].column_idx, 0, "--sorted-by id: declared")
  end
  f = convert { "--sorted-by", "id,cat:desc:nulls_first" }
  local sc = hyparquet(f).row_groups[1].sorting_columns
  T.ok(sc and #sc == 2, "--sorted-by with two columns")
  T.eq(sc[2].column_idx, 1, "then cat")
  T.eq(sc[2].descending, true, "cat:desc")
  T.eq(sc[2].nulls_first, true, "cat:nulls_first")
end)

T.case("convert --sorted-by on rows out of order: exit 1 naming the row; bad flags: exit 2", function()
  local dir = T.tmpdir("convert_bad")
  local csv, unsorted = dir .. "/in.csv", dir .. "/shuffled.csv"
  make_csv(csv, 100)
  make_csv(unsorted, 100, true)
  local out = dir .. "/out.parquet"
  local _, err, code = run_inlay { "convert", "-q", unsorted, out, "--sorted-by", "id" }
  T.eq(code, 1, "unsorted input: exit status (" .. err .. ")")
  T.ok(err:find("column 'id'", 1, true) and err:find("row %d+"), "the message names the column and row: " .. err)
  T.ok(not T.exists(out), "nothing written")
  _, err, code = run_inlay { "convert", "-q", csv, out, "--sorted-by", "id:desc" }
  T.eq(code, 1, "descending on ascending input: exit status (" .. err .. ")")
  T.ok(not T.exists(out), "nothing written")

  local bad = {
    { { "--bloom-filter", "nope" }, "--bloom-filter: no column 'nope' (the columns are id, cat, note)" },
    { { "--bloom-filter", "id,,cat" }, "--bloom-filter expects COL[,COL...], got 'id,,cat'" },
    { { "--sorted-by", "nope" }, "--sorted-by: no column 'nope'" },
    { { "--sorted-by", "id:down" }, "--sorted-by: 'down' in 'id:down' is not asc, desc, nulls_first or nulls_last" },
    { { "--sorted-by", ":desc" }, "--sorted-by expects COL[:desc][:nulls_first][,...], got ':desc'" },
    { { "--statistics-truncate-length", "-1" }, "--statistics-truncate-length needs a byte count (0 never cuts), got '-1'" },
    { { "--statistics-truncate-length", "x" }, "--statistics-truncate-length needs a byte count" },
    { { "--no-statistics=1" }, "option '--no-statistics' takes no value" },
    { { "--bloom-filter" }, "option '--bloom-filter' needs a value" },
  }
  for _, b in ipairs(bad) do
    local args = { "convert", csv, out }
    table.move(b[1], 1, #b[1], #args + 1, args)
    local what = table.concat(b[1], " ")
    _, err, code = run_inlay(args)
    T.eq(code, 2, what .. ": exit status (" .. (err or "") .. ")")
    T.ok(err:find("inlay: " .. b[2], 1, true), what .. ": the message: " .. err)
    T.ok(not T.exists(out), what .. ": nothing written")
  end

  local help = run_inlay { "convert", "--help" }
  for _, flag in ipairs { "--bloom-filter COL", "--sorted-by COL[:desc]", "--no-statistics", "--no-page-index",
                          "--page-checksum", "--statistics-truncate-length N" } do
    T.ok(help:find(flag, 1, true), "--help has " .. flag)
  end
end)

T.case("convert Parquet to Parquet with the flags", function()
  local dir = T.tmpdir("convert_parquet")
  local src = dir .. "/in.parquet"
  write_table(src, { page_index = false })
  local out = dir .. "/out.parquet"
  local _, err, code = run_inlay { "convert", "-q", src, out, "--bloom-filter", "cat,name", "--sorted-by", "id",
                                   "--page-checksum" }
  T.eq(code, 0, "exit status (" .. err .. ")")
  local by = chunks(out)
  T.ok(by.cat[1].bloom_filter_offset and by.name[1].bloom_filter_offset, "bloom filters")
  T.ok(by.id[1].column_index_offset, "a page index again (the input had none)")
  local h = hyparquet(out)
  T.eq(h.row_groups[1].sorting_columns[1].column_idx, 0, "sorted by id")
  T.eq(h.row_groups[1].chunks[1].pages[1].crc_ok, true, "page checksums")
  _, err, code = run_inlay { "convert", "-q", src, dir .. "/bad.parquet", "--sorted-by", "pos.x:desc" }
  T.eq(code, 1, "pos.x descending: refused (" .. err .. ")")
  _, err, code = run_inlay { "convert", "-q", src, dir .. "/bad.parquet", "--sorted-by", "pos" }
  T.eq(code, 2, "a struct: a bad flag (" .. err .. ")")
  T.ok(err:find("inlay: --sorted-by: 'pos' is a struct: name one of its leaves (pos.x, pos.ok)", 1, true),
       "the message: " .. err)
  T.ok(not T.exists(dir .. "/bad.parquet"), "nothing written")
end)

T.finish()
