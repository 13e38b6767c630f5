-- Writes generated game telemetry (schemas/telemetry.lua) in batches with
-- w:write_columns, then prints the schema, what was written and the first
-- rows, read back from the file.
--
--   inlay run examples/telemetry.lua [OUT.parquet] [ROWS] [DAY]
--
-- DAY (default 0) picks the day the events start on, counted from
-- 2024-06-01, and the random seed: jobs given distinct days make distinct
-- logs.

local inlay = require "inlay"
local here = arg[0]:match("^(.*)/") or "."
local schema = dofile(here .. "/../schemas/telemetry.lua")
local out = arg[1] or "telemetry.parquet"
local rows = math.tointeger(tonumber(arg[2] or "100000")) or error("ROWS must be an integer")
local day = math.tointeger(tonumber(arg[3] or "0")) or error("DAY must be an integer")

math.randomseed(42 + day)
local events = { "match_start", "match_end", "kill", "death", "purchase", "level_up", "perf_sample" }
local platforms = { "pc", "ps5", "xbox", "switch", "ios", "android" }
local maps = { "harbor", "citadel", "dunes", "glacier" }
local builds = { "1.42.0+3e1f9c2", "1.42.1+a07b5d1", "1.43.0+c91e044" }

local function uuid()
  return string.format("%08x-%04x-4%03x-%04x-%012x", math.random(0, 0xffffffff), math.random(0, 0xffff),
                       math.random(0, 0xfff), 0x8000 | math.random(0, 0x3fff), math.random(0, 0xffffffffffff))
end

local players = {}
for i = 1, 500 do players[i] = { id = 1000000 + i, platform = platforms[math.random(#platforms)], session = uuid() } end

local start = 1717200000000000 + day * 86400000000   -- 2024-06-01T00:00:00Z, in microseconds
local batch = 10000
local cols = {}
for _, c in ipairs(schema:columns()) do cols[c.name] = {} end

local w <close> = inlay.open(out, schema, { metadata = { source = "examples/telemetry.lua" } })
local ts = start
for base = 0, rows - 1, batch do
  local n = math.min(batch, rows - base)
  for i = 1, n do
    local p = players[math.random(#players)]
    local ev = events[math.random(#events)]
    ts = ts + math.random(0, 20000)
    local in_match = ev ~= "purchase" and ev ~= "perf_sample"
    cols.event_id[i] = base + i
    cols.ts[i] = ts
    cols.day[i] = ts // 86400000000
    cols.session_id[i] = p.session
    cols.player_id[i] = p.id
    cols.event[i] = ev
    cols.platform[i] = p.platform
    cols.build[i] = builds[math.random(#builds)]
    cols.map[i] = in_match and maps[math.random(#maps)] or inlay.null
    cols.level[i] = math.random(1, 60)
    cols.x[i] = in_match and math.random() * 2000 - 1000 or inlay.null
    cols.y[i] = in_match and math.random() * 2000 - 1000 or inlay.null
    cols.z[i] = in_match and math.random() * 50 or inlay.null
    cols.health[i] = in_match and math.random() or inlay.null
    cols.latency_ms[i] = ev == "perf_sample" and math.random(5, 250) or inlay.null
    cols.fps[i] = ev == "perf_sample" and math.random(24, 240) or inlay.null
    cols.amount[i] = ev == "purchase" and string.format("%d.%02d", math.random(0, 99), math.random(0, 99)) or inlay.null
    cols.currency[i] = ev == "purchase" and "EUR" or inlay.null
    cols.props[i] = ev == "kill" and string.format('{"weapon":"w%d","headshot":%s}', math.random(1, 12),
                                                   tostring(math.random() < 0.2)) or inlay.null
  end
  w:write_columns(cols, n)
end
local info = w:close()

io.write(tostring(schema))
print("wrote " .. inlay.pretty(info))
print("first rows, read back from " .. out .. ":")
inlay.head(out, { n = 3, columns = { "event_id", "ts", "player_id", "event", "platform", "map", "x", "amount" } })
