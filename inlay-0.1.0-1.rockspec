-- The Lua module of inlay (inlay.so, require "inlay") as a LuaRocks rock,
-- built from this source tree with the project's CMake build:
--
--   luarocks --lua-version 5.4 make --tree TREE
--
-- Only the module is built and installed (no command, tests or benchmarks);
-- libinlay is linked into it statically. The version is the one of
-- runtime/include/inlay.h: rename this file when it changes (the test
-- install_luarocks checks it).
rockspec_format = "3.0"
package = "inlay"
version = "0.1.0-1"
-- `luarocks make` builds the folder it is run in and does not fetch this;
-- a rock published for `luarocks install` needs the repository's address.
source = {
   url = "git+file://.",
}
description = {
   summary = "A Parquet writer: schemas, column buffers, encodings and compression in C",
   detailed = [[
inlay writes Parquet files from Lua 5.4: typed schemas, rows or whole
columns, nested fields, dictionary and delta encodings, ZSTD compression,
and streaming CSV and NDJSON sources. The module wraps libinlay, a C11
library.]],
   license = "MIT",
   labels = { "parquet" },
}
dependencies = {
   "lua >= 5.4, < 5.5",
}
external_dependencies = {
   ZSTD = { header = "zstd.h" },
   XXHASH = { header = "xxhash.h" },
   ZLIB = { header = "zlib.h" },
   SNAPPY = { header = "snappy-c.h" },
   LZ4 = { header = "lz4.h" },
   BROTLI = { header = "brotli/encode.h" },
}
build = {
   type = "cmake",
   variables = {
      CMAKE_BUILD_TYPE = "Release",
      CMAKE_INSTALL_PREFIX = "$(PREFIX)",
      INLAY_LUA = "ON",
      INLAY_CLI = "OFF",
      INLAY_TESTS = "OFF",
      INLAY_BENCH = "OFF",
      INLAY_EXAMPLES = "OFF",
      INLAY_INSTALL_LUA_MODULE_ONLY = "ON",
      INLAY_LUA_CMOD_DIR = "$(LIBDIR)",
      LUA_INCDIR = "$(LUA_INCDIR)",
   },
}
