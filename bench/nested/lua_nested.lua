-- lua_nested.lua — what writing nested values from Lua costs.
--
--   build/inlay-probe run bench/nested/lua_nested.lua [--rows N] [--batch B] [--out PATH]
--
-- It needs inlay-probe, the inlay command with the inlay.probe module (the
-- clock, the allocation counter and the conversion alone), which the
-- shipped command does not have. bench/nested/run.sh runs it after
-- bench_nested and its DuckDB peer.
--
-- Writes N rows (default 1,000,000) of
--
--   id     int64                              0, 1, 2, ...
--   tags   list<string>                       0..8 items, of 1,000 distinct strings (5..16 bytes)
--   pos    struct<x float, y float, z float>  uniform in [-1000, 1000)
--   attrs  map<string, int64>                 0..4 entries, keys of 16 distinct strings
--
-- with zstd and the library defaults, through w:write_columns in batches of
-- B rows (default 65,536), in three modes:
--
--   tables     every nested value a Lua table: a sequence per tags list, a
--              table keyed by field name per pos, one keyed by map key per
--              attrs
--   flat tags  the same, except tags in the flat form { offsets = {...},
--              values = {...} }: one array of offsets and one of strings per
--              batch, no table per row
--   convert    probe.convert_columns with the tables: write_columns
--              without the appends, i.e. the Lua -> C conversion alone,
--              into the probe's own scratch (grown by one call on a full
--              batch before the mode runs)
--
-- Each mode fills its batch arrays (reused, not timed) and times open, the
-- write_columns calls and close. The garbage collector is stopped during
-- the timed calls (which make no garbage): the tables the generator drops
-- are its own cost, not the writer's. Allocations are counted through the Lua
-- state's allocator (probe.alloc_stats), which the writer uses too, inside
-- the write_columns calls from the fourth batch on: the steady state, once
-- every scratch array has grown to its size.

local inlay = require "inlay"
local probe = require "inlay.probe"

local opts = { rows = 1000000, batch = 65536 }
do
  local i = 1
  while i <= #arg do
    local a, v = arg[i], arg[i + 1]
    if a == "--rows" or a == "--batch" then opts[a:sub(3)] = math.tointeger(tonumber(v)); i = i + 2
    elseif a == "--out" then opts.out = v; i = i + 2
    else
      io.stderr:write("usage: inlay-probe run bench/nested/lua_nested.lua [--rows N] [--batch B] [--out PATH]\n")
      os.exit(2)
    end
  end
  assert(opts.rows and opts.rows > 0 and opts.batch and opts.batch > 0, "--rows and --batch must be positive")
end

local ROWS, BATCH = opts.rows, opts.batch
local now = probe.now

local schema = inlay.schema {
  { "id", "int64" },
  { "tags", inlay.list("string") },
  { "pos", inlay.struct { { "x", "float" }, { "y", "float" }, { "z", "float" } } },
  { "attrs", inlay.map("string", "int64") },
}

-- 1,000 distinct tags and 16 map keys, the same on every run.
local TAGS, KEYS = {}, {}
do
  math.randomseed(0x7a95)
  local alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
  for i = 1, 1000 do
    local s = { string.format("t%03d_", i - 1) }
    for _ = 6, math.random(5, 16) do
      local k = math.random(#alphabet)
      s[#s + 1] = alphabet:sub(k, k)
    end
    TAGS[i] = table.concat(s)
  end
  for i = 1, 16 do KEYS[i] = "attr_" .. i end
end

-- The batch arrays; the per-row tables are reused from batch to batch.
local ids, tags, poss, attrs = {}, {}, {}, {}
local flat = { offsets = {}, values = {} }
local cols = { id = ids, tags = tags, pos = poss, attrs = attrs }
local flat_cols = { id = ids, tags = flat, pos = poss, attrs = attrs }
local random = math.random
local next_id
local items = 0   -- tags written so far, for the report

local function generate(n, flat_tags)
  local offs, vals = flat.offsets, flat.values
  local nv = 0
  offs[1] = 0
  for i = 1, n do
    ids[i] = next_id
    next_id = next_id + 1
    local k = random(0, 8)
    items = items + k
    if flat_tags then
      for _ = 1, k do
        nv = nv + 1
        vals[nv] = TAGS[random(1000)]
      end
      offs[i + 1] = nv
    else
      local t = tags[i]
      if not t then t = {}; tags[i] = t end
      for j = 1, k do t[j] = TAGS[random(1000)] end
      for j = k + 1, #t do t[j] = nil end
    end
    local p = poss[i]
    if not p then p = {}; poss[i] = p end
    p.x, p.y, p.z = random() * 2000 - 1000, random() * 2000 - 1000, random() * 2000 - 1000
    local m = {}
    local e = random(0, 4)
    local first = random(16)
    for j = 0, e - 1 do m[KEYS[(first + j * 3) % 16 + 1]] = random(-1000000, 1000000) end
    attrs[i] = m
  end
  for i = #offs, n + 2, -1 do offs[i] = nil end
  for i = #vals, nv + 1, -1 do vals[i] = nil end
end

local out = opts.out or (os.tmpname() .. ".parquet")
probe.alloc_stats()   -- count allocations from here on

-- One mode: returns seconds, the writer's info (when it writes), and the
-- allocations and rows counted in steady state.
local function run(flat_tags, writer, body)
  math.randomseed(42)
  next_id, items = 0, 0
  collectgarbage()
  collectgarbage()
  local w, info
  local t0 = now()
  w = inlay.open(out, schema)
  local t = now() - t0
  local batches, allocs, steady_rows = 0, 0, 0
  for base = 0, ROWS - 1, BATCH do
    local n = math.min(BATCH, ROWS - base)
    generate(n, flat_tags)
    local a0, r0 = probe.alloc_stats()
    collectgarbage("stop")   -- the generator's garbage is collected outside the timed calls
    t0 = now()
    body(w, n)
    t = t + (now() - t0)
    collectgarbage("restart")
    local a1, r1 = probe.alloc_stats()
    if batches >= 3 then
      allocs = allocs + (a1 - a0) + (r1 - r0)
      steady_rows = steady_rows + n
    end
    batches = batches + 1
  end
  t0 = now()
  if writer then info = w:close() else w:abort() end
  t = t + (now() - t0)
  return t / 1e9, info, allocs, steady_rows
end

print(string.format("inlay %s lua_nested: %d rows, batches of %d, zstd (library defaults)", inlay.version, ROWS, BATCH))
print("schema: id int64, tags list<string> (0..8 of 1,000), pos struct<x, y, z float>, attrs map<string, int64> (0..4)")

local function report(name, seconds, info, allocs, steady_rows)
  io.write(string.format("%-10s %8.3f s %12.0f rows/s %9.1f ns/row   allocations in steady state: %s",
                         name, seconds, ROWS / seconds, seconds * 1e9 / ROWS,
                         steady_rows > 0 and string.format("%d for %d rows = %.6f per row", allocs, steady_rows,
                                                           allocs / steady_rows)
                                         or "n/a (fewer than 4 batches)"))
  if info then io.write(string.format("   %d bytes, %d row groups", info.bytes, info.row_groups)) end
  io.write("\n")
  io.flush()
end

report("tables", run(false, true, function(w, n) w:write_columns(cols, n) end))
local tag_items = items
report("flat tags", run(true, true, function(w, n) w:write_columns(flat_cols, n) end))
-- The probe converts into scratch of its own, kept per schema and allocated
-- by its first call: one call on a full batch first, outside the counts.
math.randomseed(42)
next_id = 0
generate(math.min(BATCH, ROWS), false)
probe.convert_columns(schema, cols, math.min(BATCH, ROWS))
report("convert", run(false, false, function(_, n) probe.convert_columns(schema, cols, n) end))
print(string.format("values per run: %d ids, %d tags, %d pos fields", ROWS, tag_items, 3 * ROWS))
if not opts.out then os.remove(out) end
