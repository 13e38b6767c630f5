-- Run by the install test luarocks under stock lua5.4, LUA_CPATH set to
-- the rock tree's (see run_install.cmake): the module loads from the tree
-- and writes a file.
--   lua5.4 use_rock.lua TREE/lib/lua/5.4/inlay.so DIR VERSION
local module_path, dir, version = arg[1], arg[2], arg[3]
local found = package.searchpath("inlay", package.cpath)
assert(found == module_path, ("require \"inlay\" would load %s, not %s"):format(tostring(found), module_path))

local inlay = require "inlay"
assert(inlay.version == version, ("the rock is inlay %s, the project %s"):format(inlay.version, version))
local path = dir .. "/rock.parquet"
local w = inlay.open(path, inlay.schema { { "id", "int64" }, { "name", "string", optional = true } })
w:row(1, "ana")
w:write { id = 2 }
w:row(3, "chen")
local info = w:close()

local f = assert(io.open(path, "rb"))
local head = f:read(4)
f:seek("end", -4)
local tail = f:read(4)
f:close()
assert(head == "PAR1" and tail == "PAR1", path .. " does not start and end with PAR1")
print(("ok inlay %s %d rows"):format(inlay.version, info.rows))
