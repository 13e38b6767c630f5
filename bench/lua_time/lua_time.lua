-- lua_time.lua — the time_column benchmark from Lua arrays through
-- w:write_columns, beside the same case from C arrays.
--
--   build/inlay-probe run bench/lua_time/lua_time.lua [--rows N] [--repeat K] [--c-bench PATH]
--
-- It needs inlay-probe, the inlay command with the inlay.probe module (the
-- clock and the allocation counter), which the shipped command does not have.
--
-- One TIMESTAMP(us, utc) REQUIRED column, encoding DELTA, uncompressed, one
-- long-lived writer per case (as bench_encodings' time_column section), fed
-- N rows in total (default 10,000,000) by calls of 1,000 and of 1,000,000
-- rows:
--
--   us     the integers are microseconds, the column's unit
--   s      seconds, converted by write_columns { units = { ts = "s" } }
--   ns     nanoseconds, the same with "ns" (floored to microseconds)
--
-- The timestamps start at 2024-01-01 and advance 0..1023 us per row (0..3 s
-- per row for the seconds case). The arrays are built once before timing;
-- the timed part is the write_columns calls and close. Allocations are
-- counted through the Lua state's allocator (probe.alloc_stats), which the
-- writer uses, over every call after the first 10.
--
-- The C figure is bench_encodings' time_column section (in bench/ beside
-- the inlay-probe program, or --c-bench PATH) run in the same process tree
-- for the same cases; the ratio Lua/C is printed. The C target is <= 2 us
-- per 1,000 rows.

local inlay = require "inlay"
local probe = require "inlay.probe"

local opts = { rows = 10000000, repeat_ = 3 }
do
  local i = 1
  while i <= #arg do
    local a, v = arg[i], arg[i + 1]
    if a == "--rows" then opts.rows = math.tointeger(tonumber(v)); i = i + 2
    elseif a == "--repeat" then opts.repeat_ = math.tointeger(tonumber(v)); i = i + 2
    elseif a == "--c-bench" then opts.cbench = v; i = i + 2
    else
      io.stderr:write("usage: inlay-probe run bench/lua_time/lua_time.lua [--rows N] [--repeat K] [--c-bench PATH]\n")
      os.exit(2)
    end
  end
  assert(opts.rows and opts.rows >= 1000000 and opts.repeat_ and opts.repeat_ > 0,
         "--rows must be at least 1000000, --repeat positive")
end

local now = probe.now
local schema = inlay.schema { { "ts", inlay.timestamp("us", { utc = true }), encoding = "delta" } }
local out = os.tmpname() .. ".parquet"

local START_US = 1704067200000000   -- 2024-01-01T00:00:00Z
local function make(n, unit)
  math.randomseed(42)
  local a, t = {}, unit == "s" and START_US // 1000000 or START_US
  for i = 1, n do
    if unit == "s" then
      t = t + math.random(0, 3)
      a[i] = t
    elseif unit == "ns" then
      t = t + math.random(0, 1023)
      a[i] = t * 1000 + math.random(0, 999)
    else
      t = t + math.random(0, 1023)
      a[i] = t
    end
  end
  return a
end

probe.alloc_stats()   -- count allocations from here on

-- One case: `calls` calls of `rows` rows from the same array; returns ns
-- per row and allocations per call after the first 10 calls.
local function run(rows, unit)
  local arr = make(rows, unit)
  local batch, o = { ts = arr }, unit ~= "us" and { units = { ts = unit } } or nil
  local calls = opts.rows // rows
  local best = {}
  local allocs_per_call
  for r = 1, opts.repeat_ do
    collectgarbage()
    collectgarbage("stop")
    local w = inlay.open(out, schema, { compression = "uncompressed" })
    local a0
    local t0 = now()
    for c = 1, calls do
      if c == 11 or (calls <= 10 and c == 2) then a0 = { probe.alloc_stats() } end
      w:write_columns(batch, rows, o)
    end
    local a1 = { probe.alloc_stats() }
    w:close()
    local t = now() - t0
    collectgarbage("restart")
    best[r] = t / (calls * rows)
    if a0 then
      local counted = calls - (calls > 10 and 10 or 1)
      allocs_per_call = ((a1[1] - a0[1]) + (a1[2] - a0[2])) / counted
    end
  end
  table.sort(best)
  return best[(#best + 1) // 2], allocs_per_call
end

-- bench_encodings' figures for the same cases, from C arrays.
local c_ns = {}
do
  local cbench = opts.cbench
  if not cbench then
    local i = -1
    while arg[i - 1] do i = i - 1 end
    cbench = (arg[i]:match("^(.*)/") or ".") .. "/bench/bench_encodings"
  end
  local f = io.open(cbench, "rb")
  if f then
    f:close()
    local p = io.popen(string.format("%q --no-limits --repeat %d time_column", cbench, opts.repeat_))
    for line in p:lines() do
      local case, ns = line:match("^RESULT section=time_column case=(%S+) ns_per_value=([%d.]+)")
      if case then c_ns[case] = tonumber(ns) end
    end
    p:close()
  else
    print("C figures: " .. cbench .. " not found (build bench_encodings, or give --c-bench PATH)")
  end
end

print(string.format("inlay %s lua_time: %d rows per case, TIMESTAMP(us, utc) REQUIRED, DELTA, uncompressed, " ..
                    "median of %d", inlay.version, opts.rows, opts.repeat_))
print(string.format("  %-38s %9s %14s %11s %12s %9s", "case", "ns/row", "us/1000 rows", "allocs/call",
                    "C ns/row", "Lua/C"))
local cases = {
  { 1000, "us", "i64_1k" }, { 1000, "s", "time_s_1k" }, { 1000, "ns", "time_ns_1k" },
  { 1000000, "us", "i64_1M" }, { 1000000, "s", "time_s_1M" }, { 1000000, "ns", "time_ns_1M" },
}
for _, c in ipairs(cases) do
  local rows, unit, cid = c[1], c[2], c[3]
  local ns, allocs = run(rows, unit)
  local label = string.format("write_columns %s, %d rows/call", unit == "us" and "(us)" or "from " .. unit, rows)
  local cn = c_ns[cid]
  print(string.format("  %-38s %9.2f %14.3f %11.4f %12s %9s", label, ns, ns, allocs or 0 / 0,
                      cn and string.format("%.2f", cn) or "-", cn and string.format("%.2fx", ns / cn) or "-"))
end
os.remove(out)
