-- map.lua — inlay convert plus one derived column, through a row map.
--
--   build/inlay run bench/convert/map.lua IN.csv OUT.parquet
--
-- Reads the convert benchmark's CSV with schema.lua, adds
-- score = value * 2 (a double) with src:map, declaring what the function
-- reads and writes so that only `value` is converted to a Lua value and only
-- `score` back, and writes the six columns with the library defaults.
-- Beside `inlay convert --schema` it shows what a Lua function per row
-- costs; batch.lua does the same with map_batch.
local inlay = require "inlay"

local input, output = arg[1], arg[2]
if not input or not output or arg[3] then
  io.stderr:write("usage: inlay run bench/convert/map.lua IN.csv OUT.parquet\n")
  os.exit(2)
end

local dir = arg[0]:match("^(.*)/") or "."
local schema, fields = dofile(dir .. "/schema.lua")
local out_fields = { table.unpack(fields) }
out_fields[#out_fields + 1] = { "score", "double" }

-- threads = 2 as inlay convert: the next batch is parsed while this one is
-- transformed and written
local src = inlay.csv(input, { schema = schema, threads = 2 })
src:map(function(r) r.score = r.value * 2 return r end, { reads = { "value" }, writes = { "score" } })

local w <close> = inlay.open(output, inlay.schema(out_fields))
local summary = src:write(w, { progress = false })
local info = w:close()
src:close()
print(string.format("map.lua: %d rows in, %d rows out, %d bytes written, %.3f s",
                    summary.rows_in, summary.rows_out, info.bytes, summary.seconds))
