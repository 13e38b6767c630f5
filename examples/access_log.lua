-- Writes generated HTTP access-log records (schemas/access_log.lua) one
-- table per request with w:write, then prints the schema, what was written
-- and the first rows.
--
--   inlay run examples/access_log.lua [OUT.parquet] [ROWS]

local inlay = require "inlay"
local here = arg[0]:match("^(.*)/") or "."
local schema = dofile(here .. "/../schemas/access_log.lua")
local out = arg[1] or "access_log.parquet"
local rows = math.tointeger(tonumber(arg[2] or "100000")) or error("ROWS must be an integer")

math.randomseed(7)
local hosts = { "shop.example.com", "api.example.com", "static.example.com" }
local paths = { "/", "/cart", "/checkout", "/api/v1/items", "/api/v1/items/42", "/static/app.js",
                "/static/logo.svg", "/login", "/search" }
local methods = { "GET", "GET", "GET", "GET", "POST", "PUT", "DELETE" }
local agents = { "Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0", "curl/8.5.0",
                 "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) Safari/604.1" }
local statuses = { 200, 200, 200, 200, 200, 201, 204, 301, 304, 404, 500, 503 }

local function uuid()
  return string.format("%08x-%04x-4%03x-%04x-%012x", math.random(0, 0xffffffff), math.random(0, 0xffff),
                       math.random(0, 0xfff), 0x8000 | math.random(0, 0x3fff), math.random(0, 0xffffffffffff))
end

local w <close> = inlay.open(out, schema, { metadata = { source = "examples/access_log.lua" } })
local ts, first = 1717243200000, {}   -- 2024-06-01T12:00:00Z, in milliseconds
for i = 1, rows do
  ts = ts + math.random(0, 40)
  local path = paths[math.random(#paths)]
  local static = path:find("^/static/") ~= nil
  local cached = static and math.random() < 0.8
  local row = {
    ts = ts,
    host = static and hosts[3] or hosts[math.random(2)],
    client_ip = string.format("203.0.113.%d", math.random(1, 254)),
    method = static and "GET" or methods[math.random(#methods)],
    path = path,
    query = path == "/search" and ("q=item" .. math.random(1, 999)) or nil,
    protocol = math.random() < 0.7 and "HTTP/2" or "HTTP/1.1",
    status = statuses[math.random(#statuses)],
    bytes_sent = math.random(0, 250000),
    duration_us = cached and math.random(80, 900) or math.random(2000, 900000),
    upstream_ms = not cached and math.random() * 800 or nil,
    cache = static and (cached and "HIT" or "MISS") or nil,
    referer = math.random() < 0.5 and "https://shop.example.com/" or nil,
    user_agent = agents[math.random(#agents)],
    request_id = uuid(),
    tls = math.random() < 0.97,
  }
  w:write(row)
  if i <= 3 then first[i] = row end
end
local info = w:close()

io.write(tostring(schema))
print("wrote " .. inlay.pretty(info))
print("first rows:")
for _, row in ipairs(first) do print(inlay.pretty(row)) end
