-- Game telemetry: one row per event a game client reports (match start,
-- kills, purchases, performance samples...). Most columns are filled for
-- every event; position, health and purchase details only for some.
local inlay = require "inlay"

return inlay.schema {
  { "event_id",   "int64" },                                -- unique per event, increasing
  { "ts",         inlay.timestamp("us", { utc = true }) },  -- when the client saw it
  { "day",        "date" },                                 -- UTC day of ts, for partitioning
  { "session_id", "uuid" },
  { "player_id",  "int64" },
  { "event",      "enum" },                                 -- "match_start", "kill", "purchase", ...
  { "platform",   "enum" },                                 -- "pc", "ps5", "xbox", "switch", "ios", "android"
  { "build",      "string" },                               -- client build, e.g. "1.42.0+3e1f9c2"
  { "map",        "string", optional = true },
  { "level",      "int16" },
  { "x",          "float", optional = true },               -- world position, metres
  { "y",          "float", optional = true },
  { "z",          "float", optional = true },
  { "health",     "float16", optional = true },             -- 0..1
  { "latency_ms", "uint16", optional = true },
  { "fps",        "uint8", optional = true },
  { "amount",     inlay.decimal(12, 2), optional = true },  -- purchases, in `currency`
  { "currency",   "string", optional = true },              -- ISO 4217 code
  { "props",      "json", optional = true },                -- anything else, as JSON text
}
