-- Writes generated ride-hailing trips (schemas/trips.lua) one row at a
-- time with w:row (values in schema order, no table per row), then prints
-- the schema, what was written and the first rows.
--
--   inlay run examples/trips.lua [OUT.parquet] [ROWS]

local inlay = require "inlay"
local here = arg[0]:match("^(.*)/") or "."
local schema = dofile(here .. "/../schemas/trips.lua")
local out = arg[1] or "trips.parquet"
local rows = math.tointeger(tonumber(arg[2] or "100000")) or error("ROWS must be an integer")

math.randomseed(2024)
local cities = { { "lisbon", "EUR" }, { "porto", "EUR" }, { "london", "GBP" }, { "warsaw", "PLN" } }
local vehicles = { "economy", "economy", "economy", "comfort", "xl", "bike" }
local payments = { "card", "card", "card", "wallet", "cash" }

local w <close> = inlay.open(out, schema, { metadata = { source = "examples/trips.lua" } })
local t, first = 1717218000000000, {}   -- 2024-06-01T05:00:00 local, in microseconds
for i = 1, rows do
  t = t + math.random(0, 5000000)
  local city = cities[math.random(#cities)]
  local roll = math.random()
  local status = roll < 0.9 and "completed" or roll < 0.97 and "cancelled" or "no_driver"
  local done = status == "completed"
  local driver = status ~= "no_driver" and math.random(1, 20000) or nil
  local pickup = driver and t + math.random(60, 900) * 1000000 or nil
  local km = done and math.random() * 25 + 0.5 or nil
  local dropoff = done and pickup + math.floor(km * math.random(90, 240)) * 1000000 or nil
  local fare = done and string.format("%.2f", 2.5 + km * 1.1) or nil
  local tip = done and math.random() < 0.3 and string.format("%.2f", math.random(1, 10) / 2) or nil
  local values = {
    i, math.random(1, 300000), driver, city[1], vehicles[math.random(#vehicles)], status,
    t, pickup, dropoff, t // 86400000000, km, math.random(1, 4), fare, tip, city[2],
    done and payments[math.random(#payments)] or nil, done and math.random() < 0.6 and math.random(3, 5) or nil,
  }
  w:row(table.unpack(values, 1, 17))
  if i <= 3 then
    local row = {}
    for k, c in ipairs(schema:columns()) do row[c.name] = values[k] end
    first[i] = row
  end
end
local info = w:close()

io.write(tostring(schema))
print("wrote " .. inlay.pretty(info))
print("first rows:")
for _, row in ipairs(first) do print(inlay.pretty(row)) end
