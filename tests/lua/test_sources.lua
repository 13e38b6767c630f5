-- CSV and NDJSON sources, pipelines (map, filter, map_batch, rename, drop,
-- select), bad input with on_error = "fail" and "skip", inference, and
-- `inlay convert`. Files are read back with DuckDB.

local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/testlib.lua")
local inlay = require "inlay"
local q = T.quote
local bin = q(T.bin)

local function lines(...) return table.concat({ ... }, "\n") .. "\n" end

local EVENTS = inlay.schema {
  { "id", "int64" },
  { "ts", inlay.timestamp("us", { utc = true }) },
  { "path", "string", optional = true },
  { "score", "double", optional = true },
  { "ok", "boolean" },
}

local CSV = lines(
  "id,ts,path,score,ok",
  "1,2024-03-10T12:00:00Z,/a,1.5,true",
  "2,2024-03-10T12:00:01.5+01:00,\"/b,with comma\",,false",
  "3,2024-03-10 12:00:02,\"say \"\"hi\"\"\",2.25,t",
  "4,1710072003000000,\"two",
  "lines\",-0.5,no")

local T0 = 1710072000000000   -- 2024-03-10T12:00:00Z in microseconds

local function write_events(dir, src, opts)
  local path = dir .. "/out.parquet"
  local w = inlay.open(path, EVENTS)
  local summary = src:write(w, opts or { progress = false })
  w:close()
  return path, summary
end

T.case("CSV: quoting, nulls, offsets, epoch numbers, flags", function()
  local dir = T.tmpdir("csv")
  T.write(dir .. "/in.csv", CSV)
  local path, summary = write_events(dir, inlay.csv(dir .. "/in.csv", { schema = EVENTS }))
  T.eq(summary.rows_in, 4, "rows in")
  T.eq(summary.rows_out, 4, "rows out")
  T.eq(summary.skipped, 0, "skipped")
  local got = T.duckdb(path)
  T.eq(got.rows, 4, "rows")
  local v = got.values
  T.ok(T.same_instant(v.ts[1], T0, "us"), "Z")
  T.ok(T.same_instant(v.ts[2], T0 + 1500000 - 3600000000, "us"), "+01:00 converted to UTC: " .. v.ts[2])
  T.ok(T.same_instant(v.ts[3], T0 + 2000000, "us"), "space separator, no zone")
  T.ok(T.same_instant(v.ts[4], T0 + 3000000, "us"), "epoch number in the column's unit")
  T.eq(v.path[2], "/b,with comma", "embedded delimiter")
  T.eq(v.path[3], 'say "hi"', "doubled quotes")
  T.eq(v.path[4], "two\nlines", "embedded newline")
  T.eq(v.score[2], nil, "empty field is null")
  T.eq(v.score[4], -0.5, "negative")
  T.eq(v.ok[3], true, "t")
  T.eq(v.ok[4], false, "no")
end)

T.case("a source column in another time unit than the writer's is converted, not copied", function()
  local dir = T.tmpdir("units")
  T.write(dir .. "/in.csv", lines("id,ts,day", "1,2024-03-10T12:00:00.123Z,2024-03-10", "2,,1970-01-02"))
  local src = inlay.csv(dir .. "/in.csv", { schema = inlay.schema {
    { "id", "int64" }, { "ts", "timestamp(ms, utc)", optional = true }, { "day", "date" } } })
  local path = dir .. "/out.parquet"
  local w = inlay.open(path, inlay.schema {
    { "id", "int64" }, { "ts", "timestamp(us, utc)", optional = true }, { "day", "timestamp(ms)" } })
  src:write(w, { progress = false })
  w:close()
  local v = T.duckdb(path).values
  T.ok(T.same_instant(v.ts[1], T0 + 123000, "us"), "ms to us: " .. tostring(v.ts[1]))
  T.eq(v.ts[2], nil, "null stays null")
  T.ok(T.same_instant(v.day[1], T0 // 1000 - 12 * 3600000, "ms"), "days to ms: " .. tostring(v.day[1]))
  T.ok(T.same_instant(v.day[2], 86400000, "ms"), "day 1: " .. tostring(v.day[2]))
end)

T.case("NDJSON: keys by name, missing keys are null, nested values into json", function()
  local dir = T.tmpdir("ndjson")
  T.write(dir .. "/in.ndjson", lines(
    '{"id": 1, "ts": "2024-03-10T12:00:00Z", "ok": true, "extra": [1, 2]}',
    '',
    '{"ok": false, "ts": 1710072001000000, "id": 2, "path": "/\\u00e9", "score": 1e3}',
    '{"id": 3, "ts": "2024-03-10T12:00:02Z", "ok": true, "path": null}'))
  local path = write_events(dir, inlay.ndjson(dir .. "/in.ndjson", { schema = EVENTS }))
  local v = T.duckdb(path).values
  T.eq(#v.id, 3, "rows (the blank line is skipped)")
  T.eq(v.path[1], nil, "missing key")
  T.eq(v.path[2], "/é", "escape")
  T.eq(v.score[2], 1000.0, "exponent")
  T.eq(v.path[3], nil, "null")
  T.ok(T.same_instant(v.ts[2], T0 + 1000000, "us"), "epoch")

  -- json columns keep objects and arrays as text; strict rejects unknown keys
  local js = inlay.schema { { "id", "int64" }, { "doc", "json", optional = true } }
  T.write(dir .. "/j.ndjson", lines('{"id": 1, "doc": {"a": [1, {"b": null}]}}', '{"id": 2, "doc": [true]}'))
  local w = inlay.open(dir .. "/j.parquet", js)
  inlay.ndjson(dir .. "/j.ndjson", { schema = js }):write(w, { progress = false })
  w:close()
  local got = T.duckdb(dir .. "/j.parquet").values
  T.eq(got.doc[1], '{"a": [1, {"b": null}]}', "object text")
  T.eq(got.doc[2], "[true]", "array text")
  T.write(dir .. "/s.ndjson", lines('{"id": 1, "nope": 2}'))
  local w2 = inlay.open(dir .. "/s.parquet", js)
  T.raises(function() inlay.ndjson(dir .. "/s.ndjson", { schema = js, strict = true }):write(w2, { progress = false }) end,
           "s.ndjson:1: unknown key 'nope'")
  w2:abort()
end)

T.case("a bad value fails the job with file, line and column; nothing is published", function()
  local dir = T.tmpdir("fail")
  T.write(dir .. "/in.csv", lines("id,ts,path,score,ok", "1,2024-03-10T12:00:00Z,/a,1,true",
                                  "2,2024-13-01,/b,2,true", "3,2024-03-10T12:00:00Z,/c,3,true"))
  local out = dir .. "/out.parquet"
  T.raises(function()
    local w <close> = inlay.open(out, EVENTS)
    inlay.csv(dir .. "/in.csv", { schema = EVENTS }):write(w, { progress = false })
    w:close()
  end, 'in.csv:3: column \'ts\': cannot parse "2024-13-01" as timestamp(us, utc)')
  T.ok(not T.exists(out), "no file")
  -- each kind of bad input names its problem
  local cases = {
    { "x,2024-03-10T12:00:00Z,/a,1,true", "column 'id': cannot parse \"x\" as int64" },
    { "1,2024-03-10T12:00:00Z,/a,1,maybe", "column 'ok': cannot parse \"maybe\" as boolean" },
    { "1,2024-03-10T12:00:00Z,/a,1e999,true", "column 'score': \"1e999\" is out of range for double" },
    { "99999999999999999999,2024-03-10T12:00:00Z,/a,1,true", "column 'id': \"99999999999999999999\" is out of range for int64" },
    { "1,2024-03-10T12:00:00Z,/a,1", "expected 5 fields, got 4" },
    { "1,2024-03-10T12:00:00Z,\"/a,1,true", "unterminated quoted field" },
    { "1,2024-03-10T12:00:00Z,\"/a\"x,1,true", "unexpected character after closing quote" },
    { ",2024-03-10T12:00:00Z,/a,1,true", "column 'id': null in a required column" },
    { "1,2024-03-10T12:00:00Z,\255\254,1,true", "column 'path': invalid UTF-8" },
  }
  for i, c in ipairs(cases) do
    local p = dir .. "/bad" .. i .. ".csv"
    T.write(p, lines("id,ts,path,score,ok", c[1]))
    local w = inlay.open(dir .. "/bad.parquet", EVENTS)
    T.raises(function() inlay.csv(p, { schema = EVENTS }):write(w, { progress = false }) end,
             "bad" .. i .. ".csv:2: " .. c[2], c[1])
    w:abort()
  end
end)

T.case("on_error = skip keeps every good row, counts and rejects every bad one", function()
  local dir = T.tmpdir("skip")
  local rows, good = { "id,ts,path,score,ok" }, {}
  for i = 1, 3000 do
    local bad = i % 97 == 0 or i % 101 == 0
    if i % 97 == 0 then
      rows[#rows + 1] = string.format("%d,not a time,/p%d,%d,true", i, i, i)
    elseif i % 101 == 0 then
      rows[#rows + 1] = string.format("%d,2024-03-10T12:00:00Z,/p%d,%d,perhaps", i, i, i)
    else
      rows[#rows + 1] = string.format("%d,2024-03-10T12:00:00Z,/p%d,%d.5,%s", i, i, i, i % 2 == 0)
    end
    if not bad then good[#good + 1] = i end
  end
  rows[#rows + 1] = '3001,2024-03-10T12:00:00Z,"unterminated'
  T.write(dir .. "/in.csv", table.concat(rows, "\n") .. "\n")
  local src = inlay.csv(dir .. "/in.csv", { schema = EVENTS, on_error = "skip", reject = dir .. "/rejects.txt",
                                            batch_rows = 500 })
  local path, summary = write_events(dir, src)
  local nbad = 3000 - #good + 1
  T.eq(summary.skipped, nbad, "skipped")
  T.eq(summary.rows_out, #good, "rows out")
  T.eq(summary.rows_in, 3001, "rows in")
  local v = T.duckdb(path).values
  T.eq(#v.id, #good, "rows in the file")
  for k, id in ipairs(good) do
    if v.id[k] ~= tostring(id) and v.id[k] ~= id then T.fail(string.format("row %d: id %s, want %d", k, tostring(v.id[k]), id)) end
  end
  local rej = {}
  for line in T.read(dir .. "/rejects.txt"):gmatch("[^\n]+") do rej[#rej + 1] = line end
  T.eq(#rej, nbad, "reject lines")
  T.ok(rej[1]:find("in.csv:98: column 'ts': cannot parse \"not a time\" as timestamp(us, utc)\t97,not a time,/p97,97,true",
                   1, true), rej[1])
  T.ok(rej[2]:find("in.csv:102: column 'ok': cannot parse \"perhaps\" as boolean", 1, true), rej[2])
  T.ok(rej[#rej]:find("in.csv:3002: unterminated quoted field", 1, true), rej[#rej])
end)

T.case("map: reads and writes declared or discovered, dropped and multiplied rows", function()
  local dir = T.tmpdir("map")
  T.write(dir .. "/in.csv", CSV)
  local out = inlay.schema {
    { "id", "int64" }, { "ts", inlay.timestamp("us", { utc = true }) }, { "path", "string", optional = true },
    { "score", "double", optional = true }, { "ok", "boolean" }, { "tag", "string", optional = true },
  }
  for _, declared in ipairs({ true, false }) do
    local calls = 0
    local fn = function(r)
      calls = calls + 1
      if r.id == 2 then return nil end                       -- dropped
      if r.id == 3 then                                      -- emitted twice
        return { { id = 30, tag = "first" }, { id = 31, tag = "second" } }
      end
      r.tag = "id" .. r.id
      return r
    end
    local src = inlay.csv(dir .. "/in.csv", { schema = EVENTS })
    -- found on the first call: what row 1 touches (id read, tag written);
    -- the fresh rows' other columns then come from their input row
    src:map(fn, declared and { reads = { "id" }, writes = { "id", "tag" } } or nil)
    local w = inlay.open(dir .. "/out.parquet", out)
    local summary = src:write(w, { progress = false })
    w:close()
    T.eq(calls, 4, "one call per row")
    T.eq(summary.rows_out, 4, "rows out")
    local v = T.duckdb(dir .. "/out.parquet").values
    local ids = {}
    for i = 1, 4 do ids[i] = tostring(v.id[i]) end
    T.eq(table.concat(ids, ","), declared and "1,30,31,4" or "1,3,3,4", "ids (declared = " .. tostring(declared) .. ")")
    T.eq(v.tag[1], "id1", "tag 1")
    T.eq(v.tag[2], "first", "tag of the first copy")
    T.eq(v.tag[3], "second", "tag of the second copy")
    T.eq(v.path[2], 'say "hi"', "untouched column follows its row")
    T.eq(v.path[3], 'say "hi"', "and is repeated with it")
    T.eq(v.score[4], -0.5, "last row")
  end
end)

T.case("filter, map_batch, rename, drop and select", function()
  local dir = T.tmpdir("stages")
  T.write(dir .. "/in.csv", CSV)
  local out = inlay.schema {
    { "key", "int64" }, { "ts", inlay.timestamp("us", { utc = true }) }, { "score", "double", optional = true },
    { "double_score", "double", optional = true },
  }
  local src = inlay.csv(dir .. "/in.csv", { schema = EVENTS })
  src:filter(function(r) return r.ok end)
     :map_batch(function(b)
       local s, d = b.score, {}
       for i = 1, b.n do d[i] = s[i] and s[i] * 2 end
       b.double_score = d
       local keep = {}
       for i = 1, b.n do keep[i] = b.id[i] ~= 3 end
       b:filter(keep)
     end)
     :rename { id = "key" }
     :drop { "path" }
  local w = inlay.open(dir .. "/out.parquet", out)
  src:write(w, { progress = false })
  w:close()
  local v = T.duckdb(dir .. "/out.parquet").values
  T.eq(#v.key, 1, "rows: ok and id ~= 3")
  T.eq(tostring(v.key[1]), "1", "key")
  T.eq(v.double_score[1], 3.0, "computed column")
  -- select keeps only the named columns; a required column left out is an error
  local src2 = inlay.csv(dir .. "/in.csv", { schema = EVENTS }):select { "id", "ok" }
  local w2 = inlay.open(dir .. "/out2.parquet", EVENTS)
  T.raises(function() src2:write(w2, { progress = false }) end, "column 'ts': no values for it (it is required)")
  w2:abort()
  T.raises(function() inlay.csv(dir .. "/in.csv", { schema = EVENTS }):rename { nope = "x" }
                        :write(inlay.open(dir .. "/x.parquet", EVENTS), { progress = false }) end,
           "rename: no column 'nope'")
end)

T.case("an error inside a transform fails the job with the script's line; nothing is published", function()
  local dir = T.tmpdir("transform_error")
  T.write(dir .. "/in.csv", CSV)
  T.write(dir .. "/job.lua", table.concat({
    "local inlay = require 'inlay'",
    "local src = inlay.csv(arg[1], { schema = inlay.schema { { 'id', 'int64' }, { 'ts', 'string' } } })",
    "src:map(function(r)",
    "  if r.id == 3 then error('no row three') end",
    "  return r",
    "end)",
    "local w <close> = inlay.open(arg[2], inlay.schema { { 'id', 'int64' } })",
    "src:write(w)",
    "w:close()",
  }, "\n"))
  local _, err, code = T.run(bin .. " run " .. q(dir .. "/job.lua") .. " " .. q(dir .. "/in.csv") .. " " ..
                             q(dir .. "/out.parquet"))
  T.ok(code ~= 0, "exit code")
  T.ok(err:find("job.lua:4: no row three", 1, true), "message: " .. err)
  T.ok(not T.exists(dir .. "/out.parquet"), "nothing published")
end)

T.case("infer: narrowest integers, timestamps, optional where nulls were seen", function()
  local dir = T.tmpdir("infer")
  T.write(dir .. "/in.csv", lines(
    "small,mid,big,real,flag,day,when,local,code,text,empty",
    "1,300,5000000000,1.5,true,2024-01-01,2024-01-01T00:00:00Z,2024-01-01 10:00:00.123,007,a,",
    "-5,-300,1,2,false,2024-02-29,2024-01-01T00:00:00.123456789+02:00,2024-01-01 10:00:01,008,,",
    "127,0,0,3e5,yes,1999-12-31,2024-01-01T01:00:00-0100,2024-01-01T10:00:02,009,c,"))
  local s, fields = inlay.infer(dir .. "/in.csv", { narrow_ints = true })   -- int64 by default
  local text = tostring(s)
  local want = {
    "required int32 small (INTEGER(8,true))", "required int32 mid (INTEGER(16,true))",
    "required int64 big (INTEGER(64,true))", "required double real",
    "required boolean flag", "required int32 day (DATE)",
    "required int64 when (TIMESTAMP(NANOS,true))", "required int64 local (TIMESTAMP(MICROS,false))",
    "required binary code (STRING)", "optional binary text (STRING)", "optional binary empty (STRING)",
  }
  for _, line in ipairs(want) do T.ok(text:find(line, 1, true), line .. " in\n" .. text) end
  T.eq(fields[1][1], "small", "fields are editable")
  fields[1][2] = "int64"
  T.ok(tostring(inlay.schema(fields)):find("required int64 small", 1, true), "edited")
  -- a source without a schema infers one
  local src = inlay.csv(dir .. "/in.csv")
  T.ok(tostring(src:schema()):find("TIMESTAMP(NANOS,true)", 1, true), "source schema")
  -- NDJSON: keys in order of first appearance
  T.write(dir .. "/in.ndjson", lines('{"a": 1, "b": "2024-01-01"}', '{"c": {"x": 1}, "a": 2.5}'))
  local js = tostring((inlay.infer(dir .. "/in.ndjson")))
  T.ok(js:find("required double a;", 1, true) and js:find("optional int32 b (DATE)", 1, true) and
       js:find("optional binary c (JSON)", 1, true), js)
end)

T.case("inlay convert: schema file, inference, compressed input, stdin, summary", function()
  local dir = T.tmpdir("convert")
  T.write(dir .. "/in.csv", CSV)
  T.write(dir .. "/schema.lua", [[
    local inlay = require "inlay"
    return inlay.schema {
      { "id", "int64" }, { "ts", inlay.timestamp("us", { utc = true }) }, { "path", "string", optional = true },
      { "score", "double", optional = true }, { "ok", "boolean" },
    }]])
  local out, err, code = T.run(bin .. " convert " .. q(dir .. "/in.csv") .. " " .. q(dir .. "/a.parquet") ..
                               " --schema " .. q(dir .. "/schema.lua"))
  T.eq(code, 0, "exit code: " .. err)
  T.eq(out, "", "nothing on stdout")
  T.ok(err:find("4 rows in, 4 rows out, 0 skipped", 1, true), "summary: " .. err)
  T.ok(not err:find("\r", 1, true), "no progress line when stderr is not a terminal")
  local v = T.duckdb(dir .. "/a.parquet").values
  T.eq(v.path[4], "two\nlines", "values")

  T.ok(os.execute("gzip -c " .. q(dir .. "/in.csv") .. " > " .. q(dir .. "/in.csv.gz")), "gzip")
  _, err, code = T.run(bin .. " convert " .. q(dir .. "/in.csv.gz") .. " " .. q(dir .. "/b.parquet") .. " --quiet")
  T.eq(code, 0, "gz: " .. err)
  T.eq(err, "", "--quiet")
  T.eq(#T.duckdb(dir .. "/b.parquet").values.id, 4, "rows from .gz")

  _, err, code = T.run(bin .. " convert - " .. q(dir .. "/c.parquet") .. " --quiet", CSV)
  T.eq(code, 0, "stdin: " .. err)
  T.eq(#T.duckdb(dir .. "/c.parquet").values.id, 4, "rows from stdin")
  -- a pipe by path: nothing may read its head but the source (the Parquet
  -- probe and the inference sample came before and took it)
  for i, args in ipairs { "", " --schema " .. q(dir .. "/schema.lua"), " --threads 1", " --threads 2" } do
    local o = dir .. "/pipe" .. i .. ".parquet"
    _, err, code = T.run("cat " .. q(dir .. "/in.csv") .. " | " .. bin .. " convert /dev/stdin " .. q(o) .. args)
    T.eq(code, 0, "a pipe by path" .. args .. ": " .. err)
    T.ok(err:find("4 rows in, 4 rows out", 1, true), "a pipe by path" .. args .. ": every row: " .. err)
  end

  T.write(dir .. "/bad.csv", lines("id,ts,path,score,ok", "1,2024-03-10T12:00:00Z,/a,1,true", "2,never,/b,2,true"))
  _, err, code = T.run(bin .. " convert " .. q(dir .. "/bad.csv") .. " " .. q(dir .. "/d.parquet") ..
                       " --schema " .. q(dir .. "/schema.lua"))
  T.ok(code ~= 0, "bad input fails")
  T.ok(err:find("bad.csv:3: column 'ts': cannot parse \"never\"", 1, true), err)
  T.ok(not T.exists(dir .. "/d.parquet"), "nothing published")
  _, err, code = T.run(bin .. " convert " .. q(dir .. "/bad.csv") .. " " .. q(dir .. "/e.parquet") ..
                       " --schema " .. q(dir .. "/schema.lua") .. " --on-error skip --reject " .. q(dir .. "/rej"))
  T.eq(code, 0, "skip: " .. err)
  T.ok(err:find("3 rows in, 1 rows out, 1 skipped", 1, true) or err:find("2 rows in, 1 rows out, 1 skipped", 1, true),
       err)
  T.ok(T.read(dir .. "/rej"):find("bad.csv:3:", 1, true), "reject file")
end)

T.finish()
