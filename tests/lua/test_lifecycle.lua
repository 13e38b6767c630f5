-- Opening and closing writers: only a successful close (or a <close>
-- scope left normally) publishes the file; an error in a <close> scope,
-- garbage collection and abort() leave nothing, not even a temporary file.
-- Options reach the file. Steady writing allocates nothing per value.
-- A target that is not a regular file is refused at open; the temporary a
-- killed writer left is removed by the next open of the same target; a
-- Lua file handle (io.stdout) takes the stream, byte for byte the file.

local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/testlib.lua")
local inlay = require "inlay"
local probe = require "inlay.probe"   -- allocation counts (run by inlay-probe)

local s = inlay.schema {
  { "id", "int64" },
  { "name", "string", optional = true },
}

local function fill(w, n)
  for i = 1, n do w:write { id = i, name = "row " .. i } end
end

T.case("<close> left by an error publishes nothing", function()
  local dir = T.tmpdir("close_error")
  local path = dir .. "/out.parquet"
  local ok, err = pcall(function()
    local w <close> = inlay.open(path, s)
    fill(w, 100)
    T.ok(#T.ls(dir) == 1, "a temporary file while writing")
    error("boom")
  end)
  T.ok(not ok and err:find("boom", 1, true), "the error came through")
  T.eq(#T.ls(dir), 0, "files left in the folder")
end)

T.case("<close> left normally publishes", function()
  local dir = T.tmpdir("close_ok")
  local path = dir .. "/out.parquet"
  do
    local w <close> = inlay.open(path, s)
    fill(w, 10)
  end
  T.eq(table.concat(T.ls(dir), " "), "out.parquet", "folder")
  T.eq(T.duckdb(path).rows, 10, "rows")
end)

T.case("a writer collected without close publishes nothing", function()
  local dir = T.tmpdir("gc")
  do
    local w = inlay.open(dir .. "/out.parquet", s)
    fill(w, 1000)
  end
  collectgarbage()
  collectgarbage()
  T.eq(#T.ls(dir), 0, "files left in the folder")
end)

T.case("abort publishes nothing", function()
  local dir = T.tmpdir("abort")
  local w = inlay.open(dir .. "/out.parquet", s)
  fill(w, 10)
  w:abort()
  w:abort()   -- idempotent
  T.eq(#T.ls(dir), 0, "files left in the folder")
  T.eq(w:info().state, "aborted", "state")
end)

T.case("close returns the totals; closing again returns them again", function()
  local dir = T.tmpdir("info")
  local path = dir .. "/out.parquet"
  local w = inlay.open(path, s, { row_group_rows = 40, threads = 1 })   -- row groups written during the appends
  fill(w, 100)
  local open = w:info()
  T.eq(open.state, "open", "state while open")
  T.eq(open.rows, 100, "rows while open")
  T.eq(open.row_groups, 2, "row groups written so far")
  T.eq(tostring(w), 'inlay.writer("' .. path .. '", open, 100 rows)', "tostring")
  local info = w:close()
  T.eq(info.path, path, "path")
  T.eq(info.rows, 100, "rows")
  T.eq(info.row_groups, 3, "row groups")
  T.eq(info.bytes, #T.read(path), "bytes")
  local again = w:close()
  T.eq(again.bytes, info.bytes, "second close")
  T.eq(w:info().state, "closed", "state")
  T.ok(w:schema() == s, "w:schema()")
  T.ok(inlay.pretty(w):find("^inlay.writer {"), "pretty")
end)

T.case("the writer keeps its schema alive", function()
  local dir = T.tmpdir("schema_alive")
  local w = inlay.open(dir .. "/out.parquet", inlay.schema { { "x", "int32" }, { "y", "string" } })
  collectgarbage()
  collectgarbage()
  for i = 1, 10 do w:row(i, "y" .. i) end
  T.eq(w:close().rows, 10, "rows")
  -- a schema given as a plain table
  local w2 = inlay.open(dir .. "/t.parquet", { { "x", "int32" } })
  w2:row(1)
  T.eq(w2:close().rows, 1, "rows")
end)

T.case("options reach the file", function()
  local dir = T.tmpdir("options")
  local path = dir .. "/o.parquet"
  local s2 = inlay.schema {
    { "id", "int64", encoding = "plain" },
    { "cat", "string", encoding = "dictionary" },
    { "secret", "string", statistics = false },
  }
  local w = inlay.open(path, s2, {
    compression = "uncompressed", row_group_rows = 1000, row_group_bytes = 128 * 2 ^ 20,
    page_bytes = 2 ^ 16, page_rows = 100, dictionary_bytes = 2 ^ 20,
    metadata = { source = "job-42", answer = 42 },
  })
  for i = 1, 2500 do w:row(i, "c" .. (i % 3), "s" .. i) end
  w:close()
  local got = T.duckdb(path)
  T.eq(got.rows, 2500, "rows")
  T.eq(got.row_groups, 3, "row groups")
  T.eq(got.kv.source, "job-42", "metadata")
  T.eq(got.kv.answer, "42", "metadata number")
  T.eq(got.chunks.id.compression, "UNCOMPRESSED", "compression")
  T.ok(not got.chunks.id.encodings:find("DICTIONARY"), "plain id: " .. got.chunks.id.encodings)
  T.ok(got.chunks.cat.encodings:find("DICTIONARY"), "dictionary cat: " .. got.chunks.cat.encodings)
  T.eq(got.chunks.secret.has_min, false, "no min/max without statistics")
  T.eq(got.chunks.id.has_min, true, "min/max with statistics")
  local z = dir .. "/z.parquet"
  -- one row does not shrink: min_compression_gain = 0 keeps the codec anyway
  local w2 = inlay.open(z, s2, { compression = "zstd", compression_level = 19, min_compression_gain = 0 })
  w2:row(1, "a", "b")
  w2:close()
  T.eq(T.duckdb(z).chunks.id.compression, "ZSTD", "zstd")
end)

T.case("steady writing allocates nothing per value", function()
  local dir = T.tmpdir("alloc")
  probe.alloc_stats()   -- installs the counting allocator (the writer allocates through it)
  local w = inlay.open(dir .. "/a.parquet", inlay.schema {
    { "id", "int64" }, { "cat", "string" }, { "v", "double", optional = true }, { "ok", "boolean" },
  }, { threads = 1 })   -- the bound below is one thread's (workers' page jobs warm up over more rows)
  local n = 4096
  local cols = { id = {}, cat = {}, v = {}, ok = {} }
  local function batch(b)
    for i = 1, n do
      local k = b * n + i
      cols.id[i], cols.cat[i], cols.ok[i] = k, "c" .. (k % 50), k % 2 == 0
      cols.v[i] = k % 9 == 0 and inlay.null or k * 0.5
    end
  end
  for b = 0, 3 do batch(b); w:write_columns(cols) end
  local rows = 0
  local allocs, reallocs = 0, 0
  for b = 4, 60 do
    batch(b)   -- outside the count: the strings are made here
    local a0, r0 = probe.alloc_stats()
    w:write_columns(cols)
    local a1, r1 = probe.alloc_stats()
    allocs, reallocs = allocs + (a1 - a0), reallocs + (r1 - r0)
    rows = rows + n
  end
  local a0, r0 = probe.alloc_stats()
  for i = 1, 5000 do w:row(i, "c1", 0.5, true) end
  local row = { id = 1, cat = "c2", v = 1.5, ok = false }
  for i = 1, 5000 do row.id = i; w:write(row) end
  local a1, r1 = probe.alloc_stats()
  -- the core allocates when a page or row group is sealed, not per value
  T.ok(allocs + reallocs < 60, string.format("%d allocations and %d reallocations for %d rows", allocs, reallocs, rows))
  T.ok((a1 - a0) + (r1 - r0) < 10, string.format("%d allocations for 10000 single rows", (a1 - a0) + (r1 - r0)))
  w:close()
end)

T.case("w:flush() ends a row group where the rows stand; info says what is buffered", function()
  local dir = T.tmpdir("flush")
  local w = inlay.open(dir .. "/f.parquet", s)
  w:flush()   -- nothing buffered: nothing happens
  T.eq(w:info().row_groups, 0, "no row group from an empty flush")
  for frame = 1, 4 do
    fill(w, 250)
    local info = w:info()
    T.eq(info.rows_buffered, 250, "rows buffered before flush " .. frame)
    T.ok(info.bytes_buffered > 0, "bytes buffered before flush " .. frame)
    w:flush()
    info = w:info()
    T.eq(info.rows_buffered, 0, "rows buffered after flush " .. frame)
    T.eq(info.row_groups, frame, "row groups after flush " .. frame)
  end
  local info = w:close()
  T.eq(info.row_groups, 4, "row groups in the file")
  T.eq(info.rows, 1000, "rows")
  T.raises(function() w:flush() end, "is closed")
  local got = T.duckdb(dir .. "/f.parquet")
  T.eq(got.row_groups, 4, "DuckDB sees the row groups")
  T.eq(got.rows, 1000, "DuckDB reads every row")
end)

-- The bytes `fill(w, n)` writes, from a writer on a path.
local function reference(dir, n)
  local path = dir .. "/reference.parquet"
  local w = inlay.open(path, s)
  fill(w, n)
  w:close()
  local bytes = T.read(path)
  os.remove(path)
  return bytes
end

T.case("sync = false publishes the same file; sync must be a boolean", function()
  local dir = T.tmpdir("sync")
  local w = inlay.open(dir .. "/a.parquet", s, { sync = false })
  fill(w, 100)
  w:close()
  local v = inlay.open(dir .. "/b.parquet", s, { sync = true })
  fill(v, 100)
  v:close()
  T.eq(table.concat(T.ls(dir), " "), "a.parquet b.parquet", "folder")
  T.ok(T.read(dir .. "/a.parquet") == T.read(dir .. "/b.parquet"), "the same bytes")
  T.raises(function() inlay.open(dir .. "/c.parquet", s, { sync = "no" }) end,
           "option 'sync' must be a boolean, got string")
  T.eq(#T.ls(dir), 2, "nothing made by the refused open")
end)

T.case("a target that is not a regular file is refused at open, by name", function()
  local dir = T.tmpdir("not_regular")
  local folder = dir .. "/out.parquet"
  assert(os.execute("mkdir " .. T.quote(folder) .. " && ln -s /dev/null " .. T.quote(dir .. "/null.parquet")))
  T.raises(function() inlay.open(folder, s) end,
           "cannot open '" .. folder .. "': '" .. folder .. "' is a directory")
  T.raises(function() inlay.open("/dev/null", s) end,
           "cannot open '/dev/null': '/dev/null' is not a regular file (a character device)")
  T.raises(function() inlay.open(dir .. "/null.parquet", s) end,
           "'" .. dir .. "/null.parquet' is not a regular file (a character device)")
  T.eq(table.concat(T.ls(dir), " "), "null.parquet out.parquet", "nothing created")
  T.eq(#T.ls(folder), 0, "nothing inside the folder")
end)

T.case("the temporary of a killed writer goes with the next open; a live one's stays", function()
  local dir = T.tmpdir("stale")
  local path = dir .. "/out.parquet"
  -- a job killed (SIGKILL: nothing runs) while writing
  local code = "local w = inlay.open(" .. string.format("%q", path) .. ", { { 'id', 'int64' } }); w:row(1); " ..
               "os.execute('kill -9 $PPID')"
  local out = T.run(T.quote(T.bin) .. " -e " .. T.quote(code) .. " 2>/dev/null; echo status $?")
  T.eq(out, "status " .. (128 + 9) .. "\n", "the job was killed")
  local left = T.ls(dir)
  T.eq(#left, 1, "the killed job's temporary")
  -- hidden: readers that list the folder (Spark, Trino) skip it
  T.ok(left[1]:match("^%.out%.parquet%.%x%x%x%x%x%x%.tmp$"), "its name: " .. left[1])
  local w = inlay.open(path, s)
  local now = T.ls(dir)
  T.eq(#now, 1, "one temporary: this writer's")
  T.ok(now[1] ~= left[1], "the stale one is gone")
  local w2 = inlay.open(path, s)   -- a live writer's temporary stays
  T.eq(#T.ls(dir), 2, "both writers' temporaries")
  fill(w, 10)
  fill(w2, 20)
  T.eq(w:close().rows, 10, "the first writer closes")
  T.eq(w2:close().rows, 20, "the second writer closes")
  T.eq(table.concat(T.ls(dir), " "), "out.parquet", "folder")
  T.eq(T.duckdb(path).rows, 20, "the last close wins")
end)

T.case("a Lua file handle takes the stream: the same bytes, no temporary", function()
  local dir = T.tmpdir("handle")
  local want = reference(dir, 300)
  local f = assert(io.open(dir .. "/h.parquet", "wb"))
  local w = inlay.open(f, s, { sync = true })
  T.ok(tostring(w):find('^inlay.writer%("<fd %d+>", open'), "tostring: " .. tostring(w))
  T.eq(table.concat(T.ls(dir), " "), "h.parquet", "no temporary")
  for i = 1, 150 do w:write { id = i, name = "row " .. i } end
  f:close()   -- the writer has its own descriptor
  for i = 151, 300 do w:write { id = i, name = "row " .. i } end
  local info = w:close()
  T.eq(info.path, nil, "a stream has no path")
  T.eq(info.rows, 300, "rows")
  T.eq(info.bytes, #want, "bytes")
  T.ok(T.read(dir .. "/h.parquet") == want, "byte for byte the file written by path")
  T.eq(T.duckdb(dir .. "/h.parquet").rows, 300, "DuckDB reads it")
  T.raises(function() inlay.open(f, s) end, "attempt to use a closed file")
  local r = assert(io.open(dir .. "/h.parquet", "rb"))
  T.raises(function() inlay.open(r, s) end, "not open for writing")
  r:close()
  T.raises(function() inlay.open({}, s) end, "path or file expected")
end)

T.case("io.stdout streams to a file or a pipe; an aborted stream has no footer", function()
  local dir = T.tmpdir("stdout")
  local want = reference(dir, 500)
  local job = "local w = inlay.open(io.stdout, { { 'id', 'int64' }, { 'name', 'string', optional = true } }) " ..
              "for i = 1, 500 do w:write { id = i, name = 'row ' .. i } end "
  local bin = T.quote(T.bin)
  local _, err, code = T.run(bin .. " -e " .. T.quote(job .. "w:close()") .. " > " .. T.quote(dir .. "/out.parquet"))
  T.eq(code, 0, "to a file: " .. (err or ""))
  T.ok(T.read(dir .. "/out.parquet") == want, "to a file: byte for byte the file written by path")
  _, err, code = T.run(bin .. " -e " .. T.quote(job .. "w:close()") .. " | cat > " .. T.quote(dir .. "/piped.parquet"))
  T.eq(code, 0, "to a pipe: " .. (err or ""))
  T.ok(T.read(dir .. "/piped.parquet") == want, "to a pipe: byte for byte the file written by path")
  T.eq(T.duckdb(dir .. "/piped.parquet").rows, 500, "DuckDB reads it")
  -- a job that fails after a row group went out: the stream stops without a footer
  _, err, code = T.run(bin .. " -e " .. T.quote(job .. "w:flush() error('stop here')") .. " > " ..
                       T.quote(dir .. "/cut.parquet"))
  T.ok(code ~= 0 and err:find("stop here", 1, true), "the job failed: " .. (err or ""))
  local cut = T.read(dir .. "/cut.parquet")
  T.ok(#cut > 4 and #cut < #want, "a row group went out: " .. #cut .. " bytes")
  T.eq(cut:sub(1, 4), "PAR1", "the header")
  T.ok(cut:sub(-4) ~= "PAR1", "no footer")
end)

T.finish()
