-- What inlay finds in a text input without being told: the compression by
-- its first bytes (also through a pipe), CSV or NDJSON, the CSV dialect,
-- the header, column names and types. DuckDB's own detection
-- (read_csv(auto_detect = true), through duckdb_csv.mjs) is the oracle:
-- each file is converted with inlay.source(path) and no options, read
-- back with DuckDB, and its names, types and every value must be what
-- DuckDB reads from the text itself. Then the options that override each
-- decision, the reject file that may not be the input, and the advice a
-- value past the inferred sample gets.

local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/testlib.lua")
local inlay = require "inlay"
local q = T.quote
local bin = q(T.bin)

local function lines(t) return table.concat(t, "\n") .. "\n" end

-- n rows made by fn(i), after a header (nil: none)
local function rows(header, n, fn, sep)
  local t = { header }
  for i = 1, n do t[#t + 1] = fn(i) end
  return table.concat(t, sep or "\n") .. (sep or "\n")
end

local function day(i) return string.format("2024-%02d-%02d", 1 + i % 12, 1 + i % 28) end
local function stamp(i) return string.format("%s %02d:%02d:%02d", day(i), i % 24, i % 60, (i * 7) % 60) end
local WORDS = { "alpha", "beta", "gamma", "delta", "eps ilon", "zeta" }
local function word(i) return WORDS[1 + i % #WORDS] end

-- The files, each sniffed by both. `kind` is how DuckDB reads it (see
-- duckdb_csv.mjs); `pipe` runs inlay on the bytes through a pipe (no name
-- to go by); `compress` writes it with gzip or zstd.
local CASES = {
  { name = "comma.csv", text = rows("id,name,price,day,at,ok,note", 300, function(i)
      return string.format('%d,"%s, %d",%d.%02d,%s,%s,%s,%s', i, word(i), i, i % 90, i % 100, day(i), stamp(i),
                           i % 3 == 0 and "true" or "false", i % 7 == 0 and "" or word(i + 1))
    end) },
  { name = "semicolon.csv", text = rows("id;label;amount", 200, function(i)
      return string.format("%d;%s, %s;%d.5", i, word(i), word(i + 2), i * 3)
    end) },
  { name = "tabs.txt", text = rows("city\tpop\tarea, km2", 150, function(i)
      return string.format("%s %d\t%d\t%d,%d", word(i), i, i * 1000, i, i % 10)
    end) },
  { name = "pipes.csv", text = rows("a|b|c", 120, function(i)
      return string.format("%d|%s;%s,x|%s", i, word(i), word(i + 1), i % 2 == 0 and "yes" or "no")
    end) },
  { name = "noheader.csv", text = rows(nil, 100, function(i)
      return string.format("%d,%d.25,%s", i, i, day(i))
    end) },
  { name = "textfirst.csv", text = rows("when,count,ratio", 100, function(i)
      return string.format("%s,%d,%d.5", day(i), i, i)
    end) },
  { name = "bom_crlf.csv", text = "\xEF\xBB\xBF" .. rows('"id","full name","score"', 80, function(i)
      return string.format('%d,"%s %s",%d', i, word(i), word(i + 3), i * 2)
    end, "\r\n") },
  { name = "single.csv", text = rows("'k','v'", 60, function(i)
      return string.format("'%s, %d',%d", word(i), i, i)
    end) },
  { name = "backslash.csv", text = rows("id,quote", 60, function(i)
      return string.format('%d,"she said \\"%s\\" at %d"', i, word(i), i)
    end) },
  { name = "alltext.csv", text = rows("first,last", 40, function(i) return word(i) .. "," .. word(i + 1) end) },
  { name = "times.csv", text = rows("at,t,d", 50, function(i)
      return string.format("%sT%02d:00:00Z,%02d:%02d:%02d,%de%d", day(i), i % 24, i % 24, i % 60, i % 60, i, i % 5)
    end) },
  { name = "late.csv", kind = "csv_all", text = rows("id,v", 20100, function(i)
      return i <= 20000 and string.format("%d,%d", i, i % 1000) or string.format("%d,n/a %d", i, i)
    end) },
  { name = "gz_pipe.csv.gz", compress = "gzip", pipe = true, text = rows("id;name;x", 500, function(i)
      return string.format("%d;%s;%d.5", i, word(i), i)
    end) },
  { name = "zst_pipe.csv.zst", compress = "zstd", pipe = true, text = rows("id|flag|day", 500, function(i)
      return string.format("%d|%s|%s", i, i % 2 == 0 and "true" or "false", day(i))
    end) },
  { name = "gz_named.csv.gz", compress = "gzip", text = rows("id,name", 100, function(i)
      return string.format("%d,%s", i, word(i))
    end) },
  { name = "tsv_pipe.tsv", pipe = true, text = rows("a\tb\tc", 100, function(i)
      return string.format("%d\t%s, %s\t%d.5", i, word(i), word(i), i)
    end) },
  { name = "lines.json.gz", kind = "json", pipe = true, compress = "gzip", text = rows(nil, 100, function(i)
      return string.format('{"id": %d, "name": "%s", "score": %d.5, "ok": %s}', i, word(i), i,
                           i % 2 == 0 and "true" or "false")
    end) },
}

local dir = T.tmpdir("sniff")

-- The text, and the file as DuckDB and inlay get it.
for _, c in ipairs(CASES) do
  c.path = dir .. "/" .. c.name
  if c.compress then
    T.write(c.path .. ".plain", c.text)
    local tool = c.compress == "gzip" and "gzip -c " or "zstd -q -c "
    assert(os.execute(tool .. q(c.path .. ".plain") .. " > " .. q(c.path)))
  else
    T.write(c.path, c.text)
  end
end

-- What DuckDB finds, for every file at once.
local function duckdb_detect()
  local node = os.getenv("INLAY_NODE")
  if not node or node == "" or node:match("NOTFOUND$") then
    T.fail("INLAY_NODE is not set: node is needed for DuckDB's detection", 2)
  end
  local cmd = q(node) .. " " .. q(T.here .. "/duckdb_csv.mjs")
  for _, c in ipairs(CASES) do cmd = cmd .. " " .. q((c.kind or "csv") .. ":" .. c.path) end
  local out, err, code = T.run(cmd)
  if code ~= 0 then T.fail("DuckDB's detection failed (" .. code .. "): " .. (err or ""), 2) end
  return assert(load(out, "=duckdb_csv"))()
end

-- inlay.source(path) with no options into a Parquet file; through a pipe
-- for `pipe` cases (stdin: nothing but the bytes to go by). Returns the
-- Parquet path and the dialect.
local JOB = dir .. "/job.lua"
T.write(JOB, [[
local inlay = require "inlay"
local src = inlay.source(arg[1])
local w = inlay.open(arg[2], src:schema())
src:write(w, { progress = false })
w:close()
local d = src:dialect()
local t = {}
for k, v in pairs(d) do
  if k == "sniffed" then v = table.concat(v, ",") end
  t[#t + 1] = string.format("%s=%q", k, v)
end
table.sort(t)
io.write("return {", table.concat(t, ","), "}")
]])

local function convert(c)
  local out = c.path .. ".parquet"
  local cmd = bin .. " run " .. q(JOB) .. " " .. (c.pipe and "-" or q(c.path)) .. " " .. q(out)
  if c.pipe then cmd = "cat " .. q(c.path) .. " | " .. cmd end
  local stdout, err, code = T.run(cmd)
  if code ~= 0 then T.fail(c.name .. ": inlay failed (" .. code .. "): " .. err, 2) end
  local d = assert(load(stdout, "=dialect"))()
  local sniffed = {}
  for k in tostring(d.sniffed):gmatch("[^,]+") do sniffed[k] = true end
  d.sniffed = sniffed
  return out, d
end

local want_all = duckdb_detect()

for _, c in ipairs(CASES) do
  T.case("as DuckDB detects it: " .. c.name .. (c.pipe and " (through a pipe)" or ""), function()
    local want = want_all[c.path]
    T.ok(want, "DuckDB read " .. c.path)
    local out, d = convert(c)
    local got = T.duckdb(out)
    T.eq(#got.columns, #want.columns, "columns")
    for i, name in ipairs(want.columns) do
      T.eq(got.columns[i], name, "column " .. i .. " name")
      T.eq(got.types[i], want.types[i], "column " .. name .. " type")
    end
    T.eq(got.rows, want.rows, "rows")
    for _, name in ipairs(want.columns) do
      local g, w = got.values[name], want.values[name]
      T.eq(g.n, w.n, name .. ": values")
      for k = 1, w.n do
        if g[k] ~= w[k] then T.fail(string.format("%s row %d: inlay %s, DuckDB %s", name, k, tostring(g[k]), tostring(w[k]))) end
      end
    end
    -- the dialect, where DuckDB names one
    local want_format = c.kind == "json" and "ndjson" or "csv"
    T.eq(d.format, want_format, "format")
    T.ok(d.sniffed.format, "format detected")
    T.eq(d.compression, c.compress or "none", "compression")
    if want.dialect then
      T.eq(d.delimiter, want.dialect.delimiter, "delimiter")
      T.eq(d.header, want.dialect.header, "header")
      if want.dialect.quote ~= "" then T.eq(d.quote, want.dialect.quote, "quote") end
      if want.dialect.escape ~= "" and want.dialect.escape ~= want.dialect.quote then
        T.eq(d.escape, want.dialect.escape, "escape")
      end
      T.ok(d.sniffed.quote and d.sniffed.escape and d.sniffed.header, "quote, escape and header detected")
      T.eq(d.sniffed.delimiter, true, "delimiter detected (.tsv: by name)")
    end
  end)
end

-- ---- overriding each decision ----------------------------------------------

T.case("options given are kept, and only the rest is reported as detected", function()
  local p = dir .. "/over.csv"
  T.write(p, lines { "id;name", "1;a", "2;b" })
  local src = inlay.source(p, { delimiter = ";", header = true, quote = "'", escape = "\\" })
  local d = src:dialect()
  T.eq(d.delimiter, ";")
  T.eq(d.quote, "'")
  T.eq(d.escape, "\\")
  T.eq(d.header, true)
  T.eq(table.concat(d.sniffed, ","), "format", "sniffed")
  src:close()
  -- the first line as data, by name: column0...
  src = inlay.source(p, { header = false })
  T.eq(tostring(src:schema()):match("column0") ~= nil, true, tostring(src:schema()))
  T.eq(table.concat(src:dialect().sniffed, ","), "format,delimiter,quote,escape", "sniffed")
  src:close()
  -- quote "" is none: the quotes are data
  T.write(p, lines { "a,b", '"x",1' })
  src = inlay.source(p, { quote = "" })
  T.eq(src:dialect().quote, "")
  local out = dir .. "/over.parquet"
  local w = inlay.open(out, src:schema())
  src:write(w, { progress = false })
  w:close()
  T.eq(T.duckdb(out).values.a[1], '"x"', "quotes kept as data")
  -- NDJSON by name, CSV by option whatever the content
  T.write(dir .. "/obj.csv", lines { '{"a": 1}' })
  T.eq(inlay.source(dir .. "/obj.csv"):dialect().format, "csv")
  T.eq(inlay.source(dir .. "/obj.csv", { format = "ndjson" }):dialect().format, "ndjson")
end)

T.case("narrow_ints and types", function()
  local p = dir .. "/ints.csv"
  T.write(p, lines { "a,b,c", "1,300,x", "2,70000,2024-01-01" })
  T.ok(tostring(inlay.source(p):schema()):find("required int64 a", 1, true), "int64 by default")
  local s = tostring(inlay.source(p, { narrow_ints = true }):schema())
  T.ok(s:find("INTEGER(8,true)", 1, true) and s:find("INTEGER(32,true)", 1, true), s)
  s = tostring(inlay.source(p, { types = { a = "int16", c = "string" } }):schema())
  T.ok(s:find("optional int32 a (INTEGER(16,true))", 1, true), s)
  T.ok(s:find("optional binary c (STRING)", 1, true), s)
  T.raises(function() inlay.source(p, { types = { z = "int16" } }) end, "no column 'z'")
  T.raises(function() inlay.source(p, { types = { a = "int99" } }) end, "column 'a': unknown type 'int99'")
  T.raises(function() inlay.source(p, { types = { a = "int16" }, schema = { { "a", "int16" } } }) end,
           "'types' and 'schema'")
end)

-- ---- the reject file ---------------------------------------------------------

T.case("the reject file may not be the input: refused, the input untouched", function()
  local p = dir .. "/keep.csv"
  local text = lines { "id,n", "1,2", "x,3", "4,5" }
  T.write(p, text)
  os.execute("ln -sf " .. q(p) .. " " .. q(dir .. "/keep_link.csv"))
  local schema = inlay.schema { { "id", "int64" }, { "n", "int64" } }
  for _, reject in ipairs { p, dir .. "/keep_link.csv", dir .. "/./keep.csv" } do
    for _, on_error in ipairs { "skip", "fail" } do
      T.raises(function() inlay.csv(p, { reject = reject, on_error = on_error }) end, "is the input")
      T.raises(function() inlay.csv(p, { schema = schema, reject = reject, on_error = on_error }) end, "is the input")
      T.eq(T.read(p), text, "the input is unchanged")
    end
  end
  -- another reject file works
  local src = inlay.csv(p, { schema = schema, reject = dir .. "/rej.txt", on_error = "skip" })
  local w = inlay.open(dir .. "/keep.parquet", schema)
  local summary = src:write(w, { progress = false })
  w:close()
  T.eq(summary.skipped, 1, "skipped")
  T.ok(T.read(dir .. "/rej.txt"):find("keep.csv:3: column 'id'", 1, true), "rejected")
  T.eq(T.read(p), text, "the input is unchanged")
end)

-- ---- past the sample ------------------------------------------------------------

T.case("a value past the inferred sample: column, value, line and the way out", function()
  local p = dir .. "/past.csv"
  local t = { "id,v" }
  for i = 1, 3000 do t[#t + 1] = i .. "," .. i end
  t[#t + 1] = "3001,oops"
  T.write(p, lines(t))
  -- from stdin the head is the sample; --infer-rows 100 as the command line would
  local _, err, code = T.run("cat " .. q(p) .. " | " .. bin .. " -e " ..
                             q("local inlay = require 'inlay' local s = inlay.source('-', { infer_rows = 100 }) " ..
                               "local w = inlay.open(" .. string.format("%q", dir .. "/past.parquet") ..
                               ", s:schema()) s:write(w, { progress = false }) w:close()"))
  T.ok(code ~= 0, "fails")
  T.ok(err:find("<stdin>:3002: column 'v': cannot parse \"oops\" as int64; its type was inferred from a sample " ..
                "of the input (use --infer-rows N, --schema FILE or --types v=string)", 1, true), err)
  -- from the file, the whole file is sampled: the column is text
  T.ok(tostring(inlay.source(p, { infer_rows = 100 }):schema()):find("binary v", 1, true), "sampled across the file")
end)

T.finish()
