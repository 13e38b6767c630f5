-- Datasets: inlay.dataset (write, row, write_columns into Hive-style
-- partition folders, read back with inlay.read), its options and errors,
-- file rolling, shard naming, the `existing` modes, abort and garbage
-- collection (nothing published, no manifest), and `inlay convert
-- --partition-by`.

local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/testlib.lua")
local inlay = require "inlay"
local q = T.quote
local bin = q(T.bin)

local S = inlay.schema {
  { "id", "int64" },
  { "day", "date" },
  { "platform", "string", optional = true },
  { "score", "double", optional = true },
  { "name", "string", optional = true },
}

local DAY0 = 19875   -- 2024-06-01
local PLATFORMS = { "pc", "mac", "linux" }

-- The files under root (paths relative to it), sorted.
local function parquet_files(root)
  local p = assert(io.popen("cd " .. q(root) .. " && find . -name '*.parquet' | sed 's|^\\./||' | sort"))
  local files = {}
  for line in p:lines() do files[#files + 1] = line end
  p:close()
  return files
end

-- Every row of every file under root: a list of { file =, row = } and the
-- rows by id (each id must come once).
local function read_all(root)
  local by_id, n = {}, 0
  for _, f in ipairs(parquet_files(root)) do
    local r <close> = inlay.read(root .. "/" .. f)
    for row in r:rows() do
      T.ok(by_id[row.id] == nil, "id " .. tostring(row.id) .. " appears once")
      by_id[row.id] = { file = f, row = row }
      n = n + 1
    end
  end
  return by_id, n
end

local function day_text(d)
  return os.date("!%Y-%m-%d", d * 86400)
end

-- Row i of the test data.
local function make_row(i)
  return {
    id = i,
    day = DAY0 + i % 2,
    platform = PLATFORMS[i % 3 + 1],
    score = i % 5 == 0 and nil or i / 4,
    name = "n" .. i,
  }
end

-- The folder a row's file must be in.
local function folder(row)
  return "day=" .. day_text(row.day) .. "/platform=" .. row.platform .. "/"
end

local function check_rows(root, want_n, keep)
  local by_id, n = read_all(root)
  T.eq(n, want_n, "rows read back")
  for i = 1, want_n do
    local want, got = make_row(i), by_id[i]
    T.ok(got, "row " .. i .. " is there")
    T.eq(got.file:sub(1, #folder(want)), folder(want), "row " .. i .. "'s folder")
    T.ok(got.file:match("/part%-[%w_.%-]+%-%d%d%d%d%d%d+%.parquet$"), "file name " .. got.file)
    T.eq(got.row.score, want.score, "row " .. i .. " score")
    T.eq(got.row.name, want.name, "row " .. i .. " name")
    if keep then
      T.eq(got.row.day, want.day, "row " .. i .. " day in the file")
      T.eq(got.row.platform, want.platform, "row " .. i .. " platform in the file")
    else
      T.eq(got.row.day, nil, "row " .. i .. ": no day column in the file")
      T.eq(got.row.platform, nil, "row " .. i .. ": no platform column in the file")
    end
  end
end

T.case("write, row and write_columns go to partition folders, each row once", function()
  local root = T.tmpdir("three_ways") .. "/out"
  local d <close> = inlay.dataset(root, S, { partition_by = { "day", "platform" }, shard = "t1" })
  T.ok(tostring(d):find("inlay.dataset", 1, true), tostring(d))
  for i = 1, 1500 do d:write(make_row(i)) end   -- more than one staged batch
  for i = 1501, 2600 do
    local r = make_row(i)
    d:row(r.id, r.day, r.platform, r.score, r.name)
  end
  local cols = { id = {}, day = {}, platform = {}, score = {}, name = {} }
  for i = 2601, 4000 do
    local r, k = make_row(i), i - 2600
    cols.id[k], cols.day[k], cols.platform[k], cols.name[k] = r.id, r.day, r.platform, r.name
    cols.score[k] = r.score == nil and inlay.null or r.score
  end
  d:write_columns(cols, 1400)
  local info = d:close()
  T.eq(info.rows, 4000, "rows")
  T.eq(info.partitions, 6, "partitions")
  T.eq(info.files, 6, "files")
  T.eq(info.shard, "t1", "shard")
  T.ok(info.bytes > 0, "bytes")
  local files = parquet_files(root)
  T.eq(#files, 6, "files on disk")
  local total = 0
  for _, f in ipairs(files) do
    T.ok(f:match("^day=2024%-06%-0[12]/platform=%a+/part%-t1%-%d%d%d%d%d%d%.parquet$"), "file " .. f)
    total = total + #f
  end
  T.ok(T.exists(root .. "/_SUCCESS"), "_SUCCESS")
  local manifest = T.read(root .. "/_inlay_manifest.t1.json")
  T.ok(manifest and manifest:find("day=2024-06-01/platform=pc/part-t1-", 1, true), "manifest lists the files")
  check_rows(root, 4000, false)
  local r <close> = inlay.read(root .. "/" .. files[1])
  local names = {}
  for _, c in ipairs(r:schema():columns()) do names[#names + 1] = c.name end
  T.eq(table.concat(names, ","), "id,score,name", "the files' columns")
end)

T.case("keep_partition_columns stores them in the files too; batches read back", function()
  local root = T.tmpdir("keep") .. "/out"
  local d <close> = inlay.dataset(root, S, { partition_by = { "day", "platform" }, keep_partition_columns = true })
  for i = 1, 300 do d:write(make_row(i)) end
  d:close()
  check_rows(root, 300, true)
  local n = 0
  for _, f in ipairs(parquet_files(root)) do
    local r <close> = inlay.read(root .. "/" .. f)
    for cols, k in r:batches { rows = 7, columns = { "id", "platform" } } do
      for j = 1, k do T.eq(cols.platform[j], make_row(cols.id[j]).platform, "platform of " .. cols.id[j]) end
      n = n + k
    end
  end
  T.eq(n, 300, "rows in batches")
end)

T.case("a bad value names the column and the dataset's row; the dataset stays usable", function()
  local root = T.tmpdir("bad") .. "/out"
  local d <close> = inlay.dataset(root, S, { partition_by = { "platform" } })
  for i = 1, 10 do d:write(make_row(i)) end
  local bad = make_row(11)
  bad.score = "high"
  T.raises(function() d:write(bad) end, "column 'score' row 11: expected number, got string", "write")
  T.raises(function() d:row(11, DAY0, "pc", 1.0, 42) end, "column 'name' row 11", "row")
  T.raises(function() d:write { id = 11, platform = "pc" } end, "column 'day' row 11", "missing required")
  T.raises(function() d:write { id = 11, day = DAY0, nope = 1 } end, "column 'nope' row 11: not in the schema",
           "unknown column")
  T.raises(function() d:write_columns({ id = { 11, 12 }, day = { DAY0, "x" } }) end, "column 'day' row 2",
           "write_columns: the index in the arrays")
  for i = 11, 20 do d:write(make_row(i)) end
  local info = d:close()
  T.eq(info.rows, 20, "rows after the errors")
  local by_id, n = read_all(root)
  T.eq(n, 20, "rows read back")
  T.eq(by_id[11].row.name, "n11", "the row given after the errors")
end)

T.case("sorting_columns: a row out of order is refused with its dataset row", function()
  local root = T.tmpdir("sorted") .. "/out"
  local d <close> = inlay.dataset(root, S, { partition_by = { "platform" }, sorting_columns = { "id" } })
  d:row(1, DAY0, "a")
  d:row(2, DAY0, "b")
  d:row(3, DAY0, "a")
  T.raises(function() d:row(0, DAY0, "a") end, "column 'id' row 4: out of the declared sort order", "row")
  T.raises(function() d:write_columns { id = { 5, 4 }, day = { DAY0, DAY0 }, platform = { "a", "a" } } end,
           "column 'id' row 2: out of the declared sort order", "write_columns: the index in the arrays")
  d:row(7, DAY0, "b")
  T.eq(d:close().rows, 4, "rows")
end)

-- Lists, structs and maps: the same values a writer takes, shredded into
-- the dataset's one append per call; read back from every file.
T.case("nested fields: lists, structs and maps by write, row and write_columns, in partition folders", function()
  local NS = inlay.schema {
    { "id", "int64" },
    { "platform", "string" },
    { "tags", inlay.list("string"), optional = true },
    { "pos", inlay.struct { { "x", "double" }, { "label", "string", optional = true } } },
    { "attrs", inlay.map("string", "int64") },
    { "hits", inlay.list(inlay.struct { { "n", inlay.list("int32") } }) },
  }
  local function nrow(i)
    local tags = i % 4 == 0 and nil or i % 4 == 1 and {} or { "t" .. i, i % 3 == 0 and inlay.null or "u", "v" }
    local attrs = {}
    for k = 1, i % 3 do attrs["k" .. k] = k % 2 == 0 and inlay.null or i * k end
    local hits = {}
    for h = 1, i % 3 do
      local n = {}
      for e = 1, (i + h) % 4 do n[e] = i + h + e end
      hits[h] = { n = n }
    end
    return { id = i, platform = PLATFORMS[i % 3 + 1], tags = tags,
             pos = { x = i / 2, label = i % 2 == 0 and ("p" .. i) or nil }, attrs = attrs, hits = hits }
  end
  local root = T.tmpdir("nested") .. "/out"
  local d <close> = inlay.dataset(root, NS, { partition_by = "platform", shard = "n1", max_file_rows = 250 })
  for i = 1, 1200 do d:write(nrow(i)) end   -- past the 1024 rows write stages
  for i = 1201, 1500 do
    local r = nrow(i)
    d:row(r.id, r.platform, r.tags == nil and inlay.null or r.tags, r.pos, r.attrs, r.hits)
  end
  local cols = { id = {}, platform = {}, tags = {}, pos = {}, attrs = {}, hits = {} }
  for i = 1501, 1800 do
    local r, k = nrow(i), i - 1500
    for name in pairs(cols) do cols[name][k] = r[name] == nil and inlay.null or r[name] end
  end
  d:write_columns(cols, 300)
  -- a bad value in a nested field refuses the whole call, and the dataset goes on
  T.raises(function() d:write { id = 1801, platform = "pc", pos = { x = 1 }, attrs = {}, hits = { { n = { "x" } } } } end,
           "hits.element.n.element", "a bad list element")
  T.raises(function() d:write_columns({ id = { 1801 }, platform = { "pc" }, pos = { { x = 1, bad = 2 } }, attrs = { {} },
                                        hits = { {} } }, 1) end, "bad", "an unknown struct key")
  local info = d:close()
  T.eq(info.rows, 1800, "rows")
  T.eq(info.partitions, 3, "partitions")
  T.eq(info.files, 9, "files rolled at 250 rows (600 a partition)")
  local function same(a, b, path)
    if type(a) ~= "table" or type(b) ~= "table" then
      T.eq(b, a, path)
      return
    end
    for k, v in pairs(a) do same(v, b[k], path .. "." .. tostring(k)) end
    for k, v in pairs(b) do if a[k] == nil then T.eq(v, nil, path .. "." .. tostring(k) .. " (extra)") end end
  end
  local by_id, n = read_all(root)
  T.eq(n, 1800, "rows read back")
  for i = 1, 1800 do
    local want, got = nrow(i), by_id[i]
    T.ok(got, "row " .. i)
    T.eq(got.file:match("^platform=(%a+)/"), want.platform, "row " .. i .. "'s folder")
    local row = got.row
    want.platform, want.id, row.id, row.platform = nil, nil, nil, nil
    -- what a reader gives for a null element or map value
    local function nulls(v)
      if v == inlay.null then return nil end
      if type(v) == "table" then
        local t = {}
        for k, x in pairs(v) do t[k] = nulls(x) end
        return t
      end
      return v
    end
    same(nulls(want), nulls(row), "row " .. i)
  end
end)

T.case("option errors: unknown keys, bad values, partition columns", function()
  local root = T.tmpdir("opts") .. "/out"
  T.raises(function() inlay.dataset(root, S, { partition_by = { "day" }, max_rows = 3 }) end,
           "unknown option 'max_rows'", "unknown key")
  local err = T.raises(function() inlay.dataset(root, S, { compresion = "zstd" }) end, "unknown option 'compresion'")
  T.ok(err:find("partition_by", 1, true) and err:find("compression", 1, true), "the message lists both kinds: " .. err)
  T.raises(function() inlay.dataset(root, S, { max_file_rows = -1 }) end, "option 'max_file_rows'")
  T.raises(function() inlay.dataset(root, S, { existing = "overwrite" }) end, "option 'existing'")
  T.raises(function() inlay.dataset(root, S, { partition_by = { "day", 3 } }) end, "option 'partition_by'")
  T.raises(function() inlay.dataset(root, S, { compression = "nope" }) end, "option 'compression'")
  T.raises(function() inlay.dataset(root, S, { partition_by = { "score" } }) end, "score", "a double column")
  T.raises(function() inlay.dataset(root, S, { partition_by = { "missing" } }) end, "missing", "no such column")
  T.raises(function() inlay.dataset(root, S, { shard = "../x" }) end, "shard", "an unsafe shard")
  -- file options reach the files
  local d <close> = inlay.dataset(root, S, { partition_by = "platform", compression = "snappy", row_group_rows = 4,
                                           metadata = { job = "t" } })
  for i = 1, 30 do d:write(make_row(i)) end
  d:close()
  local f = parquet_files(root)[1]
  local r <close> = inlay.read(root .. "/" .. f)
  local info = r:info()
  T.eq(info.num_row_groups, 3, "row_group_rows reached the files (10 rows each)")
  T.eq(info.metadata.job, "t", "metadata reached the files")
end)

T.case("max_file_rows rolls files at exact counts", function()
  local root = T.tmpdir("roll") .. "/out"
  local d <close> = inlay.dataset(root, S, { partition_by = { "platform" }, max_file_rows = 10, shard = "r" })
  for i = 1, 25 do d:write { id = i, day = DAY0, platform = "pc" } end
  for i = 26, 30 do d:write { id = i, day = DAY0, platform = "mac" } end
  local info = d:close()
  T.eq(info.files, 4, "files")
  local counts = {}
  for _, f in ipairs(parquet_files(root)) do
    local r <close> = inlay.read(root .. "/" .. f)
    counts[#counts + 1] = f:match("^platform=(%a+)/") .. ":" .. r:info().num_rows
  end
  table.sort(counts)
  T.eq(table.concat(counts, " "), "mac:5 pc:10 pc:10 pc:5", "rows per file")
end)

T.case("shard names: the option, $INLAY_SHARD, else 8 hex digits", function()
  local dir = T.tmpdir("shards")
  local d <close> = inlay.dataset(dir .. "/opt", S, { shard = "job-7" })
  d:write(make_row(1))
  d:close()
  T.eq(parquet_files(dir .. "/opt")[1], "part-job-7-000000.parquet", "from the option")
  local code = "local s = inlay.schema{{'id','int64'}}; local d = inlay.dataset(" .. string.format("%q", dir .. "/env")
               .. ", s); d:write{id=1}; print(d:close().shard)"
  local out, err, status = T.run("INLAY_SHARD=envshard " .. bin .. " -e " .. q(code))
  T.eq(status, 0, "child: " .. tostring(err))
  T.eq(out, "envshard\n", "the child's shard")
  T.eq(parquet_files(dir .. "/env")[1], "part-envshard-000000.parquet", "from INLAY_SHARD")
  out, err, status = T.run("unset INLAY_SHARD; " .. bin .. " -e " .. q(code:gsub("/env", "/rand")))
  T.eq(status, 0, "child: " .. tostring(err))
  T.ok(out:match("^%x%x%x%x%x%x%x%x\n$"), "a random shard: " .. out)
  T.ok(parquet_files(dir .. "/rand")[1]:match("^part%-%x+%-000000%.parquet$"), "named by it")
end)

T.case("existing: error, append, replace_shard", function()
  local root = T.tmpdir("existing") .. "/out"
  local function run(opts, ids)
    opts.partition_by = { "platform" }
    local d <close> = inlay.dataset(root, S, opts)
    for _, i in ipairs(ids) do d:write(make_row(i)) end
    return d:close()
  end
  run({ shard = "a" }, { 1, 2, 3 })
  run({ shard = "b" }, { 101 })
  T.raises(function() run({ shard = "a" }, { 4 }) end, "cannot open dataset", "the default refuses")
  local _, n = read_all(root)
  T.eq(n, 4, "nothing changed by the refused run")
  local info = run({ shard = "a", existing = "append" }, { 4, 5, 6 })
  T.eq(info.files, 3, "files of this run")
  local files = parquet_files(root)
  T.eq(#files, 7, "the earlier files stay, numbering goes on")
  local seqs = {}
  for _, f in ipairs(files) do
    local seq = f:match("part%-a%-(%d+)%.parquet$")
    if seq then seqs[#seqs + 1] = seq end
  end
  table.sort(seqs)
  T.eq(table.concat(seqs, ","), "000000,000001,000002,000003,000004,000005", "shard a's numbers")
  local manifest = T.read(root .. "/_inlay_manifest.a.json")
  T.eq(select(2, manifest:gsub("part%-a%-", "")), 6, "the manifest lists the earlier files too")
  run({ shard = "a", existing = "replace_shard" }, { 7 })
  local by_id, n = read_all(root)
  T.eq(n, 2, "shard a replaced, shard b kept")
  T.ok(by_id[7] and by_id[101], "rows 7 and 101")
end)

T.case("abort, an error under <close> and garbage collection publish nothing more", function()
  local dir = T.tmpdir("abort")
  local d = inlay.dataset(dir .. "/a", S, { partition_by = { "platform" }, max_file_rows = 5 })
  for i = 1, 12 do d:write(make_row(i)) end   -- some files published by rolling
  local published = #parquet_files(dir .. "/a")
  d:abort()
  T.eq(#parquet_files(dir .. "/a"), published, "no file published by abort")
  T.ok(not T.exists(dir .. "/a/_SUCCESS"), "no _SUCCESS")
  T.raises(function() d:write(make_row(13)) end, "dataset '" .. dir .. "/a' is aborted", "after abort")
  T.eq(d:info().state, "aborted", "state")
  local ok = pcall(function()
    local e <close> = inlay.dataset(dir .. "/b", S, { partition_by = { "platform" } })
    for i = 1, 10 do e:write(make_row(i)) end
    error("job failed")
  end)
  T.ok(not ok, "the job failed")
  T.eq(#parquet_files(dir .. "/b"), 0, "error path: no file")
  T.ok(not T.exists(dir .. "/b/_SUCCESS"), "error path: no _SUCCESS")
  do
    local g = inlay.dataset(dir .. "/c", S, { partition_by = { "platform" }, shard = "g" })
    for i = 1, 10 do g:write(make_row(i)) end
  end
  collectgarbage()
  collectgarbage()
  T.eq(#parquet_files(dir .. "/c"), 0, "gc: no file")
  T.ok(not T.exists(dir .. "/c/_inlay_manifest.g.json"), "gc: no manifest")
  for _, sub in ipairs({ "a", "b", "c" }) do
    local p = assert(io.popen("find " .. q(dir .. "/" .. sub) .. " -name '*.tmp' -o -name '_inlay_manifest*'"))
    T.eq(p:read("a"), "", sub .. ": no temporary, no manifest")
    p:close()
  end
end)

T.case("a pipeline writes into a dataset (write_source)", function()
  local dir = T.tmpdir("pipe")
  T.write(dir .. "/in.csv", "id,day,platform,score,name\n1,2024-06-01,pc,0.25,n1\n2,2024-06-02,mac,,n2\n")
  local d <close> = inlay.dataset(dir .. "/out", S, { partition_by = { "day" } })
  local src <close> = inlay.csv(dir .. "/in.csv", { schema = S })
  local summary = d:write_source(src, { progress = false })
  T.eq(summary.rows_out, 2, "rows")
  d:close()
  local by_id = read_all(dir .. "/out")
  T.eq(by_id[1].file:match("^[^/]+"), "day=2024-06-01", "row 1's folder")
  T.eq(by_id[2].row.platform, "mac", "row 2")
end)

T.case("a Parquet file's nested fields piped into a dataset (write_source)", function()
  local dir = T.tmpdir("pipe_nested")
  local NS = inlay.schema { { "id", "int64" }, { "p", "string" }, { "tags", inlay.list("string"), optional = true },
                            { "attrs", inlay.map("string", "int64") } }
  do
    local w <close> = inlay.open(dir .. "/in.parquet", NS)
    for i = 1, 300 do
      local attrs = {}
      for k = 1, i % 3 do attrs["k" .. k] = k == 2 and inlay.null or i + k end
      w:write { id = i, p = i % 2 == 0 and "even" or "odd", tags = i % 5 ~= 0 and { "t" .. i, inlay.null } or nil,
                attrs = attrs }
    end
  end
  local d <close> = inlay.dataset(dir .. "/out", NS, { partition_by = "p", shard = "s" })
  local src <close> = inlay.parquet(dir .. "/in.parquet")
  T.eq(d:write_source(src, { progress = false }).rows_out, 300, "rows")
  d:close()
  local by_id, n = read_all(dir .. "/out")
  T.eq(n, 300, "rows read back")
  for i = 1, 300 do
    local row = by_id[i].row
    T.eq(by_id[i].file:match("^p=(%a+)/"), i % 2 == 0 and "even" or "odd", "row " .. i .. "'s folder")
    if i % 5 == 0 then
      T.eq(row.tags, nil, "row " .. i .. ": a null list")
    else
      T.eq(#row.tags, 2, "row " .. i .. ": two tags")
      T.eq(row.tags[1], "t" .. i, "row " .. i .. " tag 1")
      T.eq(row.tags[2], inlay.null, "row " .. i .. " tag 2")
    end
    local keys = 0
    for k, v in pairs(row.attrs) do
      keys = keys + 1
      T.eq(v, k == "k2" and inlay.null or i + tonumber(k:sub(2)), "row " .. i .. " attrs." .. k)
    end
    T.eq(keys, i % 3, "row " .. i .. " map entries")
  end
end)

T.case("inlay convert --partition-by over two CSV inputs", function()
  local dir = T.tmpdir("convert")
  T.write(dir .. "/a.csv", "id,day,platform\n1,2024-06-01,pc\n2,2024-06-01,mac\n3,2024-06-02,pc\n")
  T.write(dir .. "/b.csv", "id,day,platform\n4,2024-06-02,pc\n5,2024-06-01,pc\n6,2024-06-02,linux\n")
  local out, err, code = T.run("cd " .. q(dir) .. " && " .. bin ..
                               " convert a.csv b.csv ds --partition-by day,platform --shard c1 --max-file-rows 1")
  T.eq(code, 0, "exit status: " .. tostring(err))
  T.eq(out, "", "nothing on stdout")
  T.ok(err:find("6 rows in, 6 rows out", 1, true), "summary rows: " .. err)
  T.ok(err:find("in 6 files, 4 partitions", 1, true), "summary files and partitions: " .. err)
  local files = parquet_files(dir .. "/ds")
  T.eq(#files, 6, "files")
  T.ok(T.exists(dir .. "/ds/_SUCCESS"), "_SUCCESS")
  local by_id, n = read_all(dir .. "/ds")
  T.eq(n, 6, "rows")
  T.eq(by_id[4].file:match("^(.*)/"), "day=2024-06-02/platform=pc", "row 4 from the second input")
  T.eq(by_id[6].file:match("^(.*)/"), "day=2024-06-02/platform=linux", "row 6")
  T.ok(by_id[1].file:match("/part%-c1%-%d+%.parquet$"), "the shard names the files")
  -- the shard's files are there: refused, then appended
  _, err, code = T.run("cd " .. q(dir) .. " && " .. bin .. " convert a.csv ds --partition-by day --shard c1")
  T.eq(code, 3, "existing files: " .. tostring(err))
  _, err, code = T.run("cd " .. q(dir) .. " && " .. bin ..
                       " convert -q a.csv ds --partition-by day,platform --shard c1 --existing append")
  T.eq(code, 0, "append: " .. tostring(err))
  T.eq(err, "", "--quiet")
  T.eq(#parquet_files(dir .. "/ds"), 9, "files after append")
  -- command-line errors
  _, err, code = T.run("cd " .. q(dir) .. " && " .. bin .. " convert a.csv x --max-file-rows 3")
  T.eq(code, 2, "a dataset option without --partition-by")
  T.ok(err:find("--max-file-rows needs --partition-by", 1, true), err)
  _, err, code = T.run("cd " .. q(dir) .. " && " .. bin .. " convert a.csv a.csv --partition-by day")
  T.eq(code, 2, "OUTDIR is a file: " .. err)
  _, err, code = T.run("cd " .. q(dir) .. " && " .. bin .. " convert a.csv - --partition-by day")
  T.eq(code, 2, "OUTDIR is stdout: " .. err)
  _, err, code = T.run("cd " .. q(dir) .. " && " .. bin .. " convert a.csv ds2 --partition-by day --existing x")
  T.eq(code, 2, "bad --existing: " .. err)
  local help = T.run(bin .. " convert --help")
  T.ok(help:find("--partition-by", 1, true) and help:find("--max-file-bytes", 1, true), "--help")
end)

T.case("inlay convert --partition-by: a bad record fails the run, nothing more published", function()
  local dir = T.tmpdir("convert_bad")
  T.write(dir .. "/a.csv", "id,day,platform\n1,2024-06-01,pc\n2,2024-06-01,mac\n")
  T.write(dir .. "/b.csv", "id,day,platform\n3,2024-06-02,pc\nx,2024-06-02,pc\n")
  local _, err, code = T.run("cd " .. q(dir) .. " && " .. bin ..
                             " convert a.csv b.csv ds --partition-by day --types id=int64")
  T.eq(code, 1, "bad data: " .. tostring(err))
  T.ok(err:find("b.csv", 1, true), "the message names the input: " .. err)
  T.ok(not T.exists(dir .. "/ds/_SUCCESS"), "no _SUCCESS")
  T.eq(#parquet_files(dir .. "/ds"), 0, "no file")
end)

T.finish()
