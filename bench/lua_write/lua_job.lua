-- lua_job.lua — a Lua job that generates its rows and writes them: how long
-- the script waits for the writer, with its worker threads and without.
--
--   build/inlay-probe run bench/lua_write/lua_job.lua [--rows N] [--batch B] [--repeat K] [--out PATH]
--
-- The job makes N rows (default 5,000,000) of bench_write_table's table
-- (id, ts, category, value, flag; see lua_write.lua) in batches of B rows
-- (default 65,536) in reused Lua arrays, and hands each batch to
-- w:write_columns. Three ways, timed whole (generating, writing, closing),
-- one run of each in turn for K rounds (default 5), medians:
--
--   alone     the same rows generated, nothing written: the job by itself
--   threads1  written with { threads = 1 }: encoding and compression on
--             the script's thread
--   threads2  written with { threads = 2 }: a worker encodes and compresses
--             while the script goes on
--
-- and each one's ratio to "alone": what writing adds to the job. The last
-- line is a machine-readable RESULT line.

local inlay = require "inlay"
local probe = require "inlay.probe"

local opts = { rows = 5000000, batch = 65536, repeat_ = 5 }
do
  local i = 1
  while i <= #arg do
    local a, v = arg[i], arg[i + 1]
    if a == "--rows" or a == "--batch" then opts[a:sub(3)] = math.tointeger(tonumber(v)); i = i + 2
    elseif a == "--repeat" then opts.repeat_ = math.tointeger(tonumber(v)); i = i + 2
    elseif a == "--out" then opts.out = v; i = i + 2
    else
      io.stderr:write("usage: inlay-probe run bench/lua_write/lua_job.lua [--rows N] [--batch B] [--repeat K] [--out PATH]\n")
      os.exit(2)
    end
  end
  assert(opts.rows and opts.rows > 0 and opts.batch and opts.batch > 0 and opts.repeat_ and opts.repeat_ > 0,
         "--rows, --batch and --repeat must be positive")
end

local ROWS, BATCH = opts.rows, opts.batch
local now = probe.now
local out = opts.out or (os.tmpname() .. ".parquet")

local schema = inlay.schema {
  { "id", "int64" },
  { "ts", inlay.timestamp("us", { utc = true }) },
  { "category", "string" },
  { "value", "double" },
  { "flag", "boolean" },
}

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

local cols = { id = {}, ts = {}, category = {}, value = {}, flag = {} }
local ids, tss, cats, vals, flags = cols.id, cols.ts, cols.category, cols.value, cols.flag
local random = math.random

-- The job: every batch generated, and written when w is given.
local function job(w)
  math.randomseed(42)
  local id, ts = 0, 1704067200000000
  local left = ROWS
  while left > 0 do
    local n = left < BATCH and left or BATCH
    for i = 1, n do
      ids[i] = id
      tss[i] = ts
      cats[i] = categories[random(100)]
      vals[i] = random() * 1000
      flags[i] = random(2) == 1
      id = id + 1
      ts = ts + random(0, 1023)
    end
    if w then w:write_columns(cols, n) end
    left = left - n
  end
end

local WAYS = { "alone", "threads1", "threads2" }
local times = { alone = {}, threads1 = {}, threads2 = {} }
local bytes = {}
for round = 1, opts.repeat_ do
  for _, way in ipairs(WAYS) do
    collectgarbage()
    collectgarbage()
    local t0 = now()
    if way == "alone" then
      job(nil)
    else
      local w = inlay.open(out, schema, { threads = way == "threads1" and 1 or 2 })
      job(w)
      bytes[way] = w:close().bytes
    end
    local s = (now() - t0) / 1e9
    times[way][round] = s
    print(string.format("round %d %-9s %.3f s", round, way, s))
  end
end
os.remove(out)

local function median(v)
  local s = {}
  for i = 1, #v do s[i] = v[i] end
  table.sort(s)
  local n = #s
  return n % 2 == 1 and s[(n + 1) // 2] or (s[n // 2] + s[n // 2 + 1]) / 2
end

local m = {}
for _, way in ipairs(WAYS) do m[way] = median(times[way]) end
if bytes.threads1 ~= bytes.threads2 then
  io.stderr:write(string.format("lua_job: %d bytes with one thread, %d with two\n", bytes.threads1, bytes.threads2))
  os.exit(1)
end
print(string.format("%d rows in batches of %d, medians of %d rounds (%d bytes written)", ROWS, BATCH, opts.repeat_,
                    bytes.threads1))
print(string.format("alone      %.3f s", m.alone))
print(string.format("threads 1  %.3f s  %.2fx the job alone", m.threads1, m.threads1 / m.alone))
print(string.format("threads 2  %.3f s  %.2fx the job alone; %.2fx faster than one thread", m.threads2,
                    m.threads2 / m.alone, m.threads1 / m.threads2))
print(string.format("RESULT rows=%d alone=%.6f threads1=%.6f threads2=%.6f ratio1=%.4f ratio2=%.4f", ROWS, m.alone,
                    m.threads1, m.threads2, m.threads1 / m.alone, m.threads2 / m.alone))
