-- Errors in a pipeline's transforms say where the row is in the input:
-- its row number among the rows read and the line its record starts on
-- ("row 69930 (line 69931 of in.csv): ..."), past the first batch of
-- 65,536 rows, after filters and multi-line records, for an error raised
-- by a row function, a batch function, or by the writer on a value a
-- transform made. Nothing is published.

local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/testlib.lua")
local inlay = require "inlay"

local dir = T.tmpdir("pipeline_errors")
local ROWS = 70000

-- id,name,v for ids 1..ROWS; every `multi`-th row's name is quoted and
-- spans two lines; `bad_after` puts an unparsable record after that id.
local function csv(name, opts)
  opts = opts or {}
  local lines = { "id,name,v" }
  for i = 1, ROWS do
    local nm = (opts.multi and i % opts.multi == 0) and '"two\nlines"' or "n" .. i
    lines[#lines + 1] = string.format("%d,%s,%d.5", i, nm, i)
    if opts.bad_after == i then lines[#lines + 1] = "not a number,x,1" end
  end
  local path = dir .. "/" .. name
  T.write(path, table.concat(lines, "\n") .. "\n")
  return path
end

local plain = csv("in.csv")
local SCHEMA = { { "id", "int64" }, { "name", "string" }, { "v", "double" } }

-- Runs the pipeline src into a new file; returns the error (it must fail)
-- after checking that nothing was published.
local function fails(src, name)
  local out = dir .. "/" .. name .. ".parquet"
  local ok, err = pcall(function()
    local w <close> = inlay.open(out, inlay.schema(SCHEMA))
    src:write(w, { progress = false })
    w:close()
  end)
  src:close()
  T.ok(not ok, name .. ": expected an error")
  T.ok(not T.exists(out), name .. ": a file was published")
  for _, f in ipairs(T.ls(dir)) do T.ok(not f:find("%.tmp$"), name .. ": temporary file left: " .. f) end
  return err
end

local function has(err, want, what)
  T.ok(type(err) == "string" and err:find(want, 1, true),
       string.format("%s: expected %q in %q", what, want, tostring(err)))
end

T.case("a map's error names the row and line, past the first batch", function()
  local src = inlay.csv(plain, { schema = SCHEMA }):map(function(r)
    if r.id == 69930 then error("boom") end
    return r
  end, { reads = { "id" } })
  local err = fails(src, "map")
  has(err, "inlay: row 69930 (line 69931 of " .. plain .. "): ", "map")
  has(err, "test_pipeline_errors.lua:", "the script's own line is kept")
  has(err, ": boom", "map")
  T.ok(not err:find("row 4394", 1, true), "no row within the batch")
end)

T.case("the first row's error, when the columns are being found", function()
  local src = inlay.csv(plain, { schema = SCHEMA }):map(function(r) return r.id + nil end)
  local err = fails(src, "discover")
  has(err, "inlay: row 1 (line 2 of " .. plain .. "): ", "discovery")
  has(err, "attempt to perform arithmetic", "discovery")
end)

T.case("lines count the lines of multi-line records", function()
  local path = csv("multi.csv", { multi = 1000 })
  local src = inlay.csv(path, { schema = SCHEMA }):map(function(r)
    if r.id == 69930 then error("boom") end
    return r
  end, { reads = { "id" } })
  -- rows 1000, 2000, ..., 69000 each took one more line
  has(fails(src, "multi"), "inlay: row 69930 (line 70000 of " .. path .. "): ", "multi-line")
end)

T.case("with the next batch parsed in a thread of its own", function()
  local path = csv("threads.csv", { multi = 1000 })
  local src = inlay.csv(path, { schema = SCHEMA, threads = 2, batch_rows = 1000 }):map(function(r)
    if r.id == 69930 then error("boom") end
    return r
  end, { reads = { "id" } })
  has(fails(src, "threads"), "inlay: row 69930 (line 70000 of " .. path .. "): ", "threads = 2")
end)

T.case("from stdin, with the schema inferred from what was read first", function()
  local job = dir .. "/stdin_job.lua"
  T.write(job, [[
    local src = inlay.csv("-"):map(function(r)
      if r.id == 69930 then error("from stdin") end
      return r
    end, { reads = { "id" } })
    local w <close> = inlay.open(arg[1], src:schema())
    src:write(w, { progress = false })
  ]])
  local out = dir .. "/stdin.parquet"
  local _, err, code = T.run(T.quote(T.bin) .. " run " .. T.quote(job) .. " " .. T.quote(out), T.read(plain))
  T.ok(code ~= 0, "the job fails")
  has(err, "inlay: row 69930 (line 69931 of <stdin>): ", "stdin")
  has(err, "from stdin", "stdin")
  T.ok(not T.exists(out), "nothing published")
end)

T.case("a skipped bad record is a line but not a row", function()
  local path = csv("skip.csv", { bad_after = 5 })
  local src = inlay.csv(path, { schema = SCHEMA, on_error = "skip" }):map(function(r)
    if r.id == 69930 then error("boom") end
    return r
  end, { reads = { "id" } })
  has(fails(src, "skip"), "inlay: row 69930 (line 69932 of " .. path .. "): ", "skipped record")
end)

T.case("after a filter and rows emitted twice, the row is the input's", function()
  local src = inlay.csv(plain, { schema = SCHEMA })
    :filter(function(r) return r.id % 2 == 1 end, { reads = { "id" } })
    :map(function(r) return { { id = r.id }, { id = r.id } } end, { reads = { "id" }, writes = { "id" } })
    :filter(function(r)
      if r.id == 69931 then error("late") end
      return true
    end, { reads = { "id" } })
  local err = fails(src, "filtered")
  has(err, "inlay: row 69931 (line 69932 of " .. plain .. "): ", "after filter")
  has(err, ": late", "after filter")
end)

T.case("a bad value a transform made names the input row", function()
  local src = inlay.csv(plain, { schema = SCHEMA })
    :filter(function(r) return r.id > 10 end, { reads = { "id" } })
    :map(function(r)
      if r.id == 69930 then r.v = "oops" end
      return r
    end, { reads = { "id", "v" }, writes = { "v" } })
  local err = fails(src, "value")
  has(err, "inlay: row 69930 (line 69931 of " .. plain .. "): column 'v': expected", "writer")
  has(err, "got string", "writer")
end)

T.case("a batch function's error names the batch's rows and lines", function()
  local src = inlay.csv(plain, { schema = SCHEMA }):map_batch(function(b)
    if b.id[1] > 1 then error("batch boom") end
  end)
  local err = fails(src, "batch")
  has(err, "inlay: rows 65537..70000 (lines 65538..70001 of " .. plain .. "): ", "map_batch")
  has(err, "batch boom", "map_batch")
end)

T.case("NDJSON lines", function()
  local lines = {}
  for i = 1, ROWS do lines[i] = string.format('{"id":%d,"name":"n","v":1}', i) end
  local path = dir .. "/in.ndjson"
  T.write(path, table.concat(lines, "\n") .. "\n")
  local src = inlay.ndjson(path, { schema = SCHEMA }):map(function(r)
    if r.id == 66000 then error("json boom") end
    return r
  end, { reads = { "id" } })
  has(fails(src, "ndjson"), "inlay: row 66000 (line 66000 of " .. path .. "): ", "ndjson")
end)

T.case("an error that is not a string goes through as it is", function()
  local src = inlay.csv(plain, { schema = SCHEMA }):map(function(r)
    if r.id == 3 then error({ code = 7 }) end
    return r
  end, { reads = { "id" } })
  local err = fails(src, "object")
  T.ok(type(err) == "table" and err.code == 7, "error object kept")
end)

T.case("batches() says the same", function()
  local src = inlay.csv(plain, { schema = SCHEMA }):filter(function(r)
    if r.id == 65540 then error("in batches") end
    return true
  end, { reads = { "id" } })
  local ok, err = pcall(function() for _ in src:batches() do end end)
  src:close()
  T.ok(not ok)
  has(err, "inlay: row 65540 (line 65541 of " .. plain .. "): ", "batches")
end)

T.case("a pipeline without errors is unchanged", function()
  local out = dir .. "/ok.parquet"
  local w = inlay.open(out, inlay.schema(SCHEMA))
  local src = inlay.csv(plain, { schema = SCHEMA }):filter(function(r) return r.id % 7 == 0 end, { reads = { "id" } })
  local summary = src:write(w, { progress = false })
  src:close()
  T.eq(summary.rows_out, ROWS // 7)
  T.eq(w:close().rows, ROWS // 7)
end)

T.finish()
