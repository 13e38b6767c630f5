-- schema.lua — the schema of the convert benchmark's CSV (bench_gen_csv,
-- see gen_csv.c).
--
-- Returns the schema, which is what `inlay convert --schema` takes, and the
-- field list it was made from, which map.lua and batch.lua extend with
-- their derived column.
local inlay = require "inlay"

local fields = {
  { "id", "int64" },
  { "ts", inlay.timestamp("us", { utc = true }) },
  { "category", "string" },
  { "value", "double" },
  { "flag", "boolean" },
}

return inlay.schema(fields), fields
