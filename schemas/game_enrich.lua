-- A transform for the game events of examples/game_events.h, the kind a
-- studio's analyst writes and the game's host runs on every batch before
-- writing it (examples/script_host.c, through inlay_lua.h): each event gets
-- the quarter of the map it happened in, and debug events are left out.
-- Only x, y and kind become Lua values; the other columns go from the
-- host's arrays to the file as they are.
--
-- The host calls enrich(batch) with the batch as map_batch gives it:
-- batch.n rows, batch.name the column as a Lua array, batch.name = array
-- to set one, batch:filter(mask) to keep rows.

function enrich(batch)
  local x, y, kind = batch.x, batch.y, batch.kind
  local zone, keep = {}, {}
  for i = 1, batch.n do
    zone[i] = (y[i] >= 0 and "north" or "south") .. "-" .. (x[i] >= 0 and "east" or "west")
    keep[i] = kind[i] ~= "debug"
  end
  batch.zone = zone
  batch:filter(keep)
end
