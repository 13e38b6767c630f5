-- Ride-hailing trips: one row per trip request, from the request to the
-- payment. Times are local to the city (naive timestamps); money is exact.
local inlay = require "inlay"

return inlay.schema {
  { "trip_id",      "int64" },
  { "rider_id",     "int64" },
  { "driver_id",    "int64", optional = true },               -- none when nobody accepted
  { "city",         "enum" },
  { "vehicle",      "enum" },                                 -- "economy", "comfort", "xl", "bike"
  { "status",       "enum" },                                 -- "completed", "cancelled", "no_driver"
  { "requested_at", inlay.timestamp("us") },
  { "pickup_at",    inlay.timestamp("us"), optional = true },
  { "dropoff_at",   inlay.timestamp("us"), optional = true },
  { "service_day",  "date" },                                 -- the local day of requested_at
  { "distance_km",  "double", optional = true },
  { "passengers",   "uint8" },
  { "fare",         inlay.decimal(10, 2), optional = true },
  { "tip",          inlay.decimal(10, 2), optional = true },
  { "currency",     "string" },                               -- ISO 4217 code
  { "payment",      "enum", optional = true },                -- "card", "cash", "wallet"
  { "rating",       "int8", optional = true },                -- 1..5, given by the rider
}
