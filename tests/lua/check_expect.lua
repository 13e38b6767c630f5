-- check_expect.lua FILE.parquet EXPECT.lua — a file written by a program
-- of examples/ holds, read back by DuckDB, exactly the values the program
-- says it wrote (EXPECT.lua: `return { rows =, row_groups =, values = {
-- column = { n =, v1, v2, ... }, ... } }`, in the canonical forms of
-- duckdb_read.mjs).

local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/testlib.lua")
local file, expect = arg[1], arg[2]

T.case("DuckDB reads back every value written to " .. tostring(file), function()
  local want = dofile(expect)
  local got = T.duckdb(file)
  T.eq(got.rows, want.rows, "rows")
  T.eq(got.row_groups, want.row_groups, "row groups")
  local names = {}
  for name in pairs(want.values) do names[#names + 1] = name end
  table.sort(names)
  T.eq(#got.columns, #names, "columns")
  for _, name in ipairs(names) do
    local w, g = want.values[name], got.values[name]
    T.ok(g ~= nil, "column " .. name .. " is in the file")
    T.eq(g.n, w.n, "values in " .. name)
    for i = 1, w.n do
      if g[i] ~= w[i] then
        T.fail(string.format("%s row %d: read %s, wrote %s", name, i, tostring(g[i]), tostring(w[i])))
      end
    end
  end
end)

T.finish()
