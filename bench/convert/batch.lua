-- batch.lua — inlay convert plus one derived column, batch by batch.
--
--   build/inlay run bench/convert/batch.lua IN.csv OUT.parquet
--
-- map.lua with src:map_batch instead of src:map: the function runs once per
-- batch, reads `value` as a Lua array and sets `score` (a double, value * 2)
-- as a new one. Beside map.lua it shows what a call per row costs over a
-- loop per batch.
local inlay = require "inlay"

local input, output = arg[1], arg[2]
if not input or not output or arg[3] then
  io.stderr:write("usage: inlay run bench/convert/batch.lua IN.csv OUT.parquet\n")
  os.exit(2)
end

local dir = arg[0]:match("^(.*)/") or "."
local schema, fields = dofile(dir .. "/schema.lua")
local out_fields = { table.unpack(fields) }
out_fields[#out_fields + 1] = { "score", "double" }

-- threads = 2 as inlay convert: the next batch is parsed while this one is
-- transformed and written
local src = inlay.csv(input, { schema = schema, threads = 2 })
src:map_batch(function(b)
  local v, s = b.value, {}
  for i = 1, b.n do s[i] = v[i] * 2 end
  b.score = s
end)

local w <close> = inlay.open(output, inlay.schema(out_fields))
local summary = src:write(w, { progress = false })
local info = w:close()
src:close()
print(string.format("batch.lua: %d rows in, %d rows out, %d bytes written, %.3f s",
                    summary.rows_in, summary.rows_out, info.bytes, summary.seconds))
