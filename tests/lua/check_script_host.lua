-- check_script_host.lua FILE.parquet — what examples/script_host.c wrote
-- through schemas/game_enrich.lua: every event but the debug ones, each
-- with the zone its position lies in, the columns the script left alone
-- as the game made them.

local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/testlib.lua")
local file = arg[1]

T.case("the transform's file, read back by DuckDB", function()
  local got = T.duckdb(file)
  local v = got.values
  T.ok(got.rows > 0, "rows: " .. got.rows)
  T.eq(table.concat(got.columns, ","), "ts,frame,entity,kind,x,y,hp,note,zone", "columns")
  for i = 1, got.rows do
    if v.kind[i] == "debug" then T.fail("row " .. i .. " is a debug event") end
    local want = (v.y[i] >= 0 and "north" or "south") .. "-" .. (v.x[i] >= 0 and "east" or "west")
    if v.zone[i] ~= want then T.fail(string.format("row %d: zone %s, want %s", i, tostring(v.zone[i]), want)) end
    if (v.hp[i] ~= nil) ~= (v.kind[i] == "hit") then T.fail("row " .. i .. ": hp only on hits") end
    if (v.note[i] ~= nil) ~= (v.kind[i] == "chat") then T.fail("row " .. i .. ": notes only on chats") end
  end
  -- rows come in the game's order
  for i = 2, got.rows do
    if v.ts[i] < v.ts[i - 1] and #v.ts[i] == #v.ts[i - 1] then T.fail("row " .. i .. " is out of order") end
  end
end)

T.finish()
