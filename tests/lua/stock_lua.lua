-- Run by the stock lua5.4 with inlay.so on package.cpath (see
-- run_stock_lua.cmake): the module works outside the inlay program.
local inlay = require "inlay"
local dir = assert(arg[1], "usage: lua5.4 stock_lua.lua DIR")
assert(package.searchpath("inlay", package.cpath):find("inlay%.so$"))
assert(inlay.null and inlay.pretty and inlay.version)

local s = inlay.schema { { "id", "int64" }, { "name", "string", optional = true } }
local w = inlay.open(dir .. "/stock.parquet", s)
for i = 1, 50 do w:row(i, "n" .. i) end
w:write_columns({ id = { 51, 52 }, name = { "a", inlay.null } })
for i = 53, 100 do w:write { id = i } end
local info = w:close()

-- left to the collector: lua5.4 closes its state at exit, so this is aborted
local dropped = inlay.open(dir .. "/dropped.parquet", s)
dropped:row(1, "x")

print("ok " .. info.rows)
