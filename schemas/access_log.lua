-- HTTP access log: one row per request served by a reverse proxy, as
-- parsed from its log lines.
local inlay = require "inlay"

return inlay.schema {
  { "ts",          inlay.timestamp("ms", { utc = true }) },  -- end of the request
  { "host",        "string" },                               -- virtual host
  { "client_ip",   "string" },                               -- IPv4 or IPv6 text
  { "method",      "enum" },                                 -- GET, POST, ...
  { "path",        "string" },
  { "query",       "string", optional = true },
  { "protocol",    "enum" },                                 -- HTTP/1.1, HTTP/2, HTTP/3
  { "status",      "uint16" },
  { "bytes_sent",  "int64" },
  { "duration_us", "uint32" },                               -- time to the last byte
  { "upstream_ms", "double", optional = true },              -- absent when served from cache
  { "cache",       "enum", optional = true },                -- HIT, MISS, BYPASS
  { "referer",     "string", optional = true },
  { "user_agent",  "string", optional = true },
  { "request_id",  "uuid" },
  { "tls",         "boolean" },
}
