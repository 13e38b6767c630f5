-- lua_write.lua — what writing from Lua costs on top of the C API.
--
--   build/inlay-probe run bench/lua_write/lua_write.lua [--rows N] [--batch B] [--repeat K]
--                                                      [--out PATH] [--c-bench PATH] [--modes LIST]
--
-- It needs inlay-probe, the inlay command with the inlay.probe module (the
-- clock, the allocation counters and the floors below), which the shipped
-- command does not have.
--
-- Writes N rows (default 10,000,000) of the table bench_write_table writes
-- through the C API:
--
--   id        int64                     0, 1, 2, ...
--   ts        timestamp(us, utc)        from 2024-01-01, +0..1023 us per row
--   category  string                    one of 100 values of 8..32 bytes
--   value     double                    uniform in [0, 1000)
--   flag      boolean                   random
--
-- with zstd and the library defaults, once per mode:
--
--   columns   w:write_columns, one call per batch of B rows (default 65,536)
--   row       w:row(id, ts, category, value, flag) per row
--   write     w:write{...} per row, with one reused table
--   floor     probe.read_columns(cols, n): the batch arrays walked with
--             lua_rawgeti and nothing else (each value pushed)
--   read      probe.read_columns(cols, n, true): lua_rawgeti plus
--             the one lua_to* call that gets each value out (lua_tointegerx,
--             lua_tonumberx, lua_tolstring, lua_toboolean): the least any
--             reader of the arrays does
--   convert   probe.convert_columns(schema, cols, n): write_columns without
--             the final inlay_writer_append_columns call, i.e. the Lua->C
--             conversion, into the probe's own scratch (grown by one
--             untimed call first)
--
-- With --repeat K each mode runs K times and its median is reported.
--
-- Each mode generates its data batch by batch into reused Lua arrays, which
-- is not timed; the timed part is open, the calls of the mode, and close
-- (for row and write, the loop that feeds the calls from the arrays too).
-- The C API figure comes from running bench_write_table (in bench/ beside
-- the inlay-probe program, or --c-bench PATH) on the same number of rows:
-- its time less its own data generation. Allocations are counted through
-- the Lua state's allocator, which the writer uses (probe.alloc_stats),
-- from the fourth batch on.
--
-- Acceptance: write_columns' ns per value <= C API ns per value + 1.5 x the
-- floor's ns per value. It is printed against both floors: write_columns
-- makes two Lua API calls per value (lua_rawgeti and a lua_to*), like
-- "read", where "floor" makes one.

local inlay = require "inlay"
local probe = require "inlay.probe"

local opts = { rows = 10000000, batch = 65536, repeat_ = 1, modes = "columns,row,write,floor,read,convert" }
do
  local i = 1
  while i <= #arg do
    local a, v = arg[i], arg[i + 1]
    if a == "--rows" or a == "--batch" then opts[a:sub(3)] = math.tointeger(tonumber(v)); i = i + 2
    elseif a == "--repeat" then opts.repeat_ = math.tointeger(tonumber(v)); i = i + 2
    elseif a == "--out" or a == "--c-bench" or a == "--modes" then opts[a:sub(3)] = v; i = i + 2
    elseif a:match("^%d+$") then opts.rows = math.tointeger(tonumber(a)); i = i + 1
    else
      io.stderr:write("usage: inlay-probe run bench/lua_write/lua_write.lua [--rows N] [--batch B] [--repeat K] [--out PATH] ",
                      "[--c-bench PATH] [--modes columns,row,write,floor,read,convert]\n")
      os.exit(2)
    end
  end
  assert(opts.rows and opts.rows > 0 and opts.batch and opts.batch > 0 and opts.repeat_ and opts.repeat_ > 0,
         "--rows, --batch and --repeat must be positive")
end

local ROWS, BATCH, COLS = opts.rows, opts.batch, 5
local VALUES = ROWS * COLS
local now = probe.now

local schema = inlay.schema {
  { "id", "int64" },
  { "ts", inlay.timestamp("us", { utc = true }) },
  { "category", "string" },
  { "value", "double" },
  { "flag", "boolean" },
}

-- 100 distinct ASCII strings of 8..32 bytes, the same on every run.
local categories = {}
do
  math.randomseed(0xca7e60e1)
  local alphabet = "abcdefghijklmnopqrstuvwxyz0123456789_-"
  for i = 1, 100 do
    local len = math.random(8, 32)
    local s = { string.format("c%02d_", i - 1) }
    for _ = 5, len do
      local k = math.random(#alphabet)
      s[#s + 1] = alphabet:sub(k, k)
    end
    categories[i] = table.concat(s)
  end
end

-- The batch arrays, reused by every batch of every mode.
local cols = { id = {}, ts = {}, category = {}, value = {}, flag = {} }
local ids, tss, cats, vals, flags = cols.id, cols.ts, cols.category, cols.value, cols.flag
local next_id, next_ts

local function reset()
  math.randomseed(42)
  next_id, next_ts = 0, 1704067200000000   -- 2024-01-01T00:00:00Z in microseconds
end

local random = math.random
local function generate(n)
  local id, ts = next_id, next_ts
  for i = 1, n do
    ids[i] = id
    tss[i] = ts
    cats[i] = categories[random(100)]
    vals[i] = random() * 1000
    flags[i] = random(2) == 1
    id = id + 1
    ts = ts + random(0, 1023)
  end
  next_id, next_ts = id, ts
end

local out = opts.out or (os.tmpname() .. ".parquet")
probe.alloc_stats()   -- count allocations from here on

-- Runs one mode: `body(n)` is timed for every batch, plus open and close
-- when `writer` is true. Returns seconds, the last writer's info, and the
-- allocations counted from the fourth batch on.
local malloc_seen   -- interposer total at the end of the previous mode
local function run(name, writer, body)
  reset()
  collectgarbage()
  collectgarbage()
  local w, info
  local t = 0
  local t0 = now()
  if writer then w = inlay.open(out, schema) end
  t = t + (now() - t0)
  local batches, steady = 0, nil
  for base = 0, ROWS - 1, BATCH do
    local n = math.min(BATCH, ROWS - base)
    generate(n)
    if batches == 3 then steady = { probe.alloc_stats() } end
    if batches >= 3 then probe.malloc_stats(true) end
    t0 = now()
    body(n, w)
    t = t + (now() - t0)
    if batches >= 3 then probe.malloc_stats(false) end
    batches = batches + 1
  end
  local a1, r1 = probe.alloc_stats()
  local allocs = steady and { a1 - steady[1], r1 - steady[2] } or { 0, 0 }
  local m = { probe.malloc_stats() }
  if #m > 0 then
    local total = m[1] + m[2] + m[3] + m[4]
    allocs.malloc = total - (malloc_seen or 0)
    malloc_seen = total
  end
  if writer then
    t0 = now()
    info = w:close()
    t = t + (now() - t0)
  end
  return t / 1e9, info, allocs
end

local modes = {}
for m in opts.modes:gmatch("[^,]+") do modes[m] = true end

local results = {}
local function report(name, seconds, info, allocs)
  results[name] = { seconds = seconds, info = info, allocs = allocs }
  io.write(string.format("%-15s %8.3f s %9.1f ns/row %8.2f ns/value", name, seconds,
                         seconds * 1e9 / ROWS, seconds * 1e9 / VALUES))
  if info then io.write(string.format("   %d bytes, %d row groups", info.bytes, info.row_groups)) end
  io.write("\n")
  io.flush()
end

-- Runs a mode --repeat times and reports the median run.
local function measure(name, writer, body)
  local runs = {}
  for k = 1, opts.repeat_ do runs[k] = table.pack(run(name, writer, body)) end
  table.sort(runs, function(a, b) return a[1] < b[1] end)
  local m = runs[(#runs + 1) // 2]
  report(name, m[1], m[2], m[3])
end

print(string.format("inlay %s lua_write: %d rows x %d columns = %d values, batches of %d, zstd (library defaults)%s",
                    inlay.version, ROWS, COLS, VALUES, BATCH,
                    opts.repeat_ > 1 and string.format(", median of %d runs", opts.repeat_) or ""))

if modes.columns then
  measure("write_columns", true, function(n, w) w:write_columns(cols, n) end)
end
if modes.row then
  measure("w:row", true, function(n, w)
    for i = 1, n do w:row(ids[i], tss[i], cats[i], vals[i], flags[i]) end
  end)
end
if modes.write then
  local row = {}
  measure("w:write", true, function(n, w)
    for i = 1, n do
      row.id, row.ts, row.category, row.value, row.flag = ids[i], tss[i], cats[i], vals[i], flags[i]
      w:write(row)
    end
  end)
end
if modes.floor then
  measure("floor (rawgeti)", false, function(n) probe.read_columns(cols, n) end)
end
if modes.read then
  measure("read (+lua_to*)", false, function(n) probe.read_columns(cols, n, true) end)
end
if modes.convert then
  -- The probe converts into scratch of its own, kept per schema and
  -- allocated by its first call: one call on a full batch first, untimed.
  reset()
  generate(math.min(BATCH, ROWS))
  probe.convert_columns(schema, cols, math.min(BATCH, ROWS))
  measure("convert only", false, function(n) probe.convert_columns(schema, cols, n) end)
end
if not opts.out then os.remove(out) end

-- The C API on the same rows.
local cbench = opts["c-bench"]
if not cbench then
  local i = -1
  while arg[i - 1] do i = i - 1 end   -- arg[i] is the inlay program
  cbench = (arg[i]:match("^(.*)/") or ".") .. "/bench/bench_write_table"
end
local c_ns
do
  local f = io.open(cbench, "rb")
  if f then
    f:close()
    local tmp = os.tmpname()
    local p = io.popen(string.format("%q --rows %d --batch %d --repeat 3 --out %q.parquet", cbench, ROWS, BATCH, tmp))
    local text = p:read("a")
    p:close()
    os.remove(tmp .. ".parquet")
    os.remove(tmp)
    local ns_row = text:match("without gen%s+[%d.]+ s%s+%(([%d.]+) ns/row")
    if ns_row then c_ns = tonumber(ns_row) / COLS end
    print(string.format("%-15s %8s   %9.1f ns/row %8.2f ns/value   (%s, less its data generation)",
                        "C API", "", c_ns and c_ns * COLS or 0 / 0, c_ns or 0 / 0, cbench))
  else
    print("C API: " .. cbench .. " not found (build bench_write_table, or give --c-bench PATH)")
  end
end

local function per_value(name)
  return results[name] and results[name].seconds * 1e9 / VALUES
end
local wc, floor, conv = per_value("write_columns"), per_value("floor (rawgeti)"), per_value("convert only")
local read = per_value("read (+lua_to*)")
if wc and conv then
  print(string.format("Lua->C conversion: %.2f ns/value, %.0f%% of write_columns%s", conv, 100 * conv / wc,
                      floor and read and string.format("; %.2fx the rawgeti floor, %.2fx the read floor",
                                                       conv / floor, conv / read) or ""))
end
if results.write_columns then
  local a = results.write_columns.allocs
  print(string.format("allocations in steady state (write_columns, batch 4 on): %d allocations + %d reallocations " ..
                      "for %d values = %.6f per value", a[1], a[2], VALUES, (a[1] + a[2]) / VALUES))
end
for _, m in ipairs({ "write_columns", "w:row", "w:write" }) do
  local a = results[m] and results[m].allocs
  if a then
    print(a.malloc and string.format("malloc interposer (%s, batch 4 on, inside the calls): %d malloc-family calls " ..
                                     "for %d values", m, a.malloc, VALUES)
                   or "malloc interposer not loaded (LD_PRELOAD=build/bench/libbench_malloc_count.so to count)")
  end
end
for _, m in ipairs({ "w:row", "w:write" }) do
  if results[m] then
    local a = results[m].allocs
    print(string.format("allocations in steady state (%s): %d + %d = %.6f per value", m, a[1], a[2], (a[1] + a[2]) / VALUES))
  end
end
for _, f in ipairs({ { "rawgeti floor", floor }, { "read floor", read } }) do
  if wc and f[2] and c_ns then
    local limit = c_ns + 1.5 * f[2]
    print(string.format("acceptance (%s): write_columns %.2f ns/value <= C API %.2f + 1.5 x %.2f = %.2f: %s",
                        f[1], wc, c_ns, f[2], limit, wc <= limit and "PASS" or "FAIL"))
  end
end
local function fmt(x) return x and string.format("%.3f", x) or "na" end
print(string.format("RESULT rows=%d columns_ns_value=%s row_ns_value=%s write_ns_value=%s floor_ns_value=%s " ..
                    "read_ns_value=%s convert_ns_value=%s c_ns_value=%s", ROWS, fmt(wc), fmt(per_value("w:row")),
                    fmt(per_value("w:write")), fmt(floor), fmt(read), fmt(conv), fmt(c_ns)))
