-- inlay.lua — the parts of the inlay module written in Lua. Compiled into
-- the module; luaopen_inlay runs this chunk with the module table.
--
-- inlay.pretty(v) renders a value the way the REPL prints results: tables
-- as constructors (one line when they fit, else one entry per line), a
-- schema as its Parquet message type, a writer with its totals so far.

local inlay = ...

local keywords = {}
for w in ([[and break do else elseif end false for function goto if in
            local nil not or repeat return then true until while]]):gmatch("%a+") do
  keywords[w] = true
end

local WIDTH = 78        -- a table goes on one line when it fits in this
local MAX_DEPTH = 8     -- deeper tables print as {...}
local MAX_ITEMS = 100   -- entries shown per table

local function quote(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    local named = { ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t", ['"'] = '\\"', ["\\"] = "\\\\" }
    return named[c] or string.format("\\%03d", c:byte())
  end) .. '"'
end

local function metaname(v)
  local mt = getmetatable(v)
  return type(mt) == "table" and rawget(mt, "__name") or nil
end

local function has_tostring(v)
  local mt = getmetatable(v)
  return type(mt) == "table" and rawget(mt, "__tostring") ~= nil
end

local render

local function scalar(v, top, indent, depth, seen)
  local t = type(v)
  if t == "string" then return top and v or quote(v) end
  if t == "userdata" then
    if v == inlay.null then return "inlay.null" end
    local name = metaname(v)
    if name == "inlay.schema" then return (tostring(v):gsub("\n$", "")) end
    if name == "inlay.writer" then
      local i = v:info()
      return string.format("inlay.writer { path = %s, state = %s, rows = %d, row_groups = %d, bytes = %d }",
                           quote(i.path), quote(i.state), i.rows, i.row_groups, i.bytes)
    end
  end
  return tostring(v)
end

local function key_order(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then
    if ta == "number" then return true end
    if tb == "number" then return false end
    if ta == "string" then return true end
    if tb == "string" then return false end
    return ta < tb
  end
  if ta == "number" or ta == "string" then return a < b end
  return tostring(a) < tostring(b)
end

function render(v, indent, depth, seen)
  if type(v) ~= "table" or has_tostring(v) then return scalar(v, false, indent, depth, seen) end
  if seen[v] then return "<cycle>" end
  if depth >= MAX_DEPTH then return "{...}" end
  seen[v] = true
  local inner = indent .. "  "
  local items, total = {}, 0
  local function add(s)
    total = total + 1
    if total <= MAX_ITEMS then items[total] = s end
  end
  local n = rawlen(v)
  for i = 1, n do add(render(rawget(v, i), inner, depth + 1, seen)) end
  local keys = {}
  for k in next, v do
    if not (math.type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  table.sort(keys, key_order)
  for _, k in ipairs(keys) do
    local ks = (type(k) == "string" and k:match("^[%a_][%w_]*$") and not keywords[k]) and k
               or "[" .. render(k, inner, depth + 1, seen) .. "]"
    add(ks .. " = " .. render(rawget(v, k), inner, depth + 1, seen))
  end
  seen[v] = nil
  if total > MAX_ITEMS then items[#items + 1] = string.format("... (%d more)", total - MAX_ITEMS) end
  if #items == 0 then return "{}" end
  local line = "{ " .. table.concat(items, ", ") .. " }"
  if #line + #indent <= WIDTH and not line:find("\n", 1, true) then return line end
  return "{\n" .. inner .. table.concat(items, ",\n" .. inner) .. "\n" .. indent .. "}"
end

-- inlay.pretty(v) -> string
function inlay.pretty(v)
  if type(v) == "table" and not has_tostring(v) then return render(v, "", 0, {}) end
  return scalar(v, true, "", 0, {})
end

-- ---- sources and pipelines ------------------------------------------------
--
-- inlay.csv(path, opts) and inlay.ndjson(path, opts) open a source (C:
-- lsource.c) and return a pipeline: the source plus a list of stages that
-- every batch goes through before it reaches a writer. Stages run in C
-- where they touch values (the row loop of map and filter, the batch
-- view's arrays); this file only strings them together.

local SOURCE_OPTIONS = {
  schema = true, format = true, delimiter = true, quote = true, escape = true, header = true, skip = true,
  nulls = true, strict = true, on_error = true, reject = true, batch_rows = true, infer_rows = true,
  threads = true, narrow_ints = true, types = true,
}

local function check_keys(t, allowed, what)
  for k in pairs(t) do
    if not allowed[k] then error("inlay: " .. what .. ": unknown option " .. tostring(k), 3) end
  end
end

local function is_schema(v)
  local mt = getmetatable(v)
  return type(v) == "userdata" and mt and mt.__name == "inlay.schema"
end

-- The field list of an inferred schema (editable; inlay.schema takes it).
local function inferred_fields(path, opts, rows)
  local o = {}
  for k, v in pairs(opts) do if k ~= "schema" and k ~= "infer_rows" and k ~= "rows" then o[k] = v end end
  local cols, sample, held = inlay._infer(path, o, rows)
  local fields = {}
  for i, c in ipairs(cols) do
    fields[i] = { c[1], c[2], optional = c.optional or nil }
  end
  return fields, sample, held
end

local Pipeline = {}
Pipeline.__index = Pipeline
Pipeline.__name = "inlay.pipeline"

local function open_source(path, opts, format)
  if type(path) ~= "string" then error("inlay: expected a path (or \"-\" for stdin), got " .. type(path), 3) end
  opts = opts or {}
  check_keys(opts, SOURCE_OPTIONS, format)
  local o = {}
  for k, v in pairs(opts) do o[k] = v end
  o.format = opts.format or format
  local schema = opts.schema
  if schema ~= nil and opts.types ~= nil then
    error("inlay: " .. format .. ": options 'types' and 'schema' do not go together (types adjust an inferred schema)", 3)
  end
  local held   -- a pipe or FIFO by path: open from the sample's read until the source's own
  if schema == nil then
    local fields, sample
    fields, sample, held = inferred_fields(path, o, opts.infer_rows)
    schema = inlay.schema(fields)
    o.prefix = sample   -- stdin, a pipe: the sample inference read comes first
    o.inferred_schema = true   -- a value past the sample that does not fit says how to fix it
  elseif not is_schema(schema) then
    schema = inlay.schema(schema)
  end
  o.schema, o.infer_rows = nil, nil
  local src = inlay._source_open(path, schema, o)
  if held then held:close() end
  return setmetatable({ src = src, stages = {}, path = path, options = o, schema_ = schema }, Pipeline)
end

-- ---- Parquet sources ----
--
-- inlay.parquet(path, opts) runs the same pipelines over a Parquet file:
-- a reader (C: lreader.c) fills a view (the batch view of lsource.c, over
-- the reader's arrays), and ParquetSource gives the pipeline the methods
-- a text source has: its own _next, _stats, _close and _dialect, the rest
-- the view's. Fields no stage touches go from the reader's arrays to the
-- writer as they are, nested ones included.

local io_open = io and io.open

-- Whether the file at path starts with Parquet's magic bytes. A regular
-- file only: a reader needs to seek, and the head of stdin, a pipe or a
-- FIFO (/dev/stdin, <(cmd)) read here would be lost to the text source.
local function is_parquet(path)
  if type(path) ~= "string" or path == "-" or not io_open or not inlay._is_regular(path) then return false end
  local f = io_open(path, "rb")
  if not f then return false end
  local head = f:read(4)
  f:close()
  return head == "PAR1"
end
inlay._is_parquet = is_parquet

local ParquetSource = {}
ParquetSource.__index = ParquetSource
function ParquetSource:_next() return self.reader:_pipe_next() end
function ParquetSource:_stats() return self.reader:_pipe_stats() end
function ParquetSource:_close() self.reader:close() end
function ParquetSource:_dialect() return { format = "parquet", sniffed = {} } end
for _, m in ipairs { "_cols", "_n", "_schema", "_array", "_keep", "_map", "_write", "_where" } do
  ParquetSource[m] = function(self, ...) return self.view[m](self.view, ...) end
end

local PARQUET_OPTIONS = { columns = true, row_groups = true, batch_rows = true }

-- inlay.parquet(path [, { columns = { names }, row_groups = { 1-based numbers }, batch_rows = n }])
local function open_parquet(path, opts, level)
  if type(path) ~= "string" then error("inlay: expected a path, got " .. type(path), level) end
  opts = opts or {}
  check_keys(opts, PARQUET_OPTIONS, "parquet")
  local r = inlay.read(path)
  local view, schema = r:_pipe(opts.columns, opts.row_groups, opts.batch_rows)
  local src = setmetatable({ reader = r, view = view }, ParquetSource)
  return setmetatable({ src = src, stages = {}, path = path, options = opts, schema_ = schema, format = "parquet" },
                      Pipeline)
end

function inlay.parquet(path, opts) return open_parquet(path, opts, 3) end
function inlay.csv(path, opts) return open_source(path, opts, "csv") end
function inlay.ndjson(path, opts) return open_source(path, opts, "ndjson") end
-- Parquet by its first bytes; else by extension (.csv/.tsv or
-- .json/.jsonl/.ndjson, also compressed).
function inlay.source(path, opts)
  if is_parquet(path) then return open_parquet(path, opts, 3) end
  return open_source(path, opts, "auto")
end

-- inlay.infer(path or pipeline, { rows = 10000, ...source options }) ->
-- schema, fields: the schema prints as its message type; fields is the
-- list inlay.schema took, to edit and pass again.
function inlay.infer(source, opts)
  opts = opts or {}
  local path, o = source, {}
  if (getmetatable(source) == Pipeline and source.format == "parquet") or is_parquet(source) then
    local r <close> = inlay.read(getmetatable(source) == Pipeline and source.path or source)
    return r:schema(), r:_fields()   -- a Parquet file says its schema
  end
  if getmetatable(source) == Pipeline then
    path = source.path
    for k, v in pairs(source.options) do o[k] = v end
  elseif type(source) ~= "string" then
    error("inlay.infer: expected a path or a source, got " .. type(source), 2)
  end
  local allowed = { rows = true }
  for k in pairs(SOURCE_OPTIONS) do allowed[k] = true end
  check_keys(opts, allowed, "infer")
  for k, v in pairs(opts) do o[k] = v end
  o.format = o.format or "auto"
  local fields = inferred_fields(path, o, opts.rows)
  return inlay.schema(fields), fields
end

function Pipeline:schema() return self.schema_ end

local function names_of(opts, key)
  local list = {}
  if opts and opts[key] ~= nil then
    if type(opts[key]) ~= "table" then error("inlay: " .. key .. " must be a list of column names", 3) end
    for i, v in ipairs(opts[key]) do list[i] = v end
  end
  return list
end

-- src:map(fn [, { reads = {...}, writes = {...} }]): fn(row) returns the
-- row (changed in place), nil to drop it, or a list of rows to emit. The
-- row table is reused; only the columns fn reads or writes are converted.
-- Without reads/writes they are found on the first call.
function Pipeline:map(fn, opts)
  if type(fn) ~= "function" then error("inlay: map expects a function", 2) end
  if opts ~= nil then check_keys(opts, { reads = true, writes = true }, "map") end
  self.stages[#self.stages + 1] = {
    kind = "map", fn = fn, reads = names_of(opts, "reads"), writes = names_of(opts, "writes"),
    discover = opts == nil or (opts.reads == nil and opts.writes == nil), row = {},
  }
  return self
end

-- src:filter(fn [, { reads = {...} }]): keeps the rows for which fn(row) is true.
function Pipeline:filter(fn, opts)
  if type(fn) ~= "function" then error("inlay: filter expects a function", 2) end
  if opts ~= nil then check_keys(opts, { reads = true }, "filter") end
  self.stages[#self.stages + 1] = {
    kind = "filter", fn = fn, reads = names_of(opts, "reads"), writes = {},
    discover = opts == nil or opts.reads == nil, row = {},
  }
  return self
end

-- src:map_batch(fn): fn(batch) once per batch; batch.n rows, batch.col is
-- the column as a Lua array (edits in place count), batch.col = array sets
-- or adds a column, batch.col = nil drops one, batch:filter(mask) keeps the
-- rows whose mask entry is true, batch:columns() lists the names,
-- batch:column(name) reads a column whose name is n, filter, column or
-- columns. Returning false drops the whole batch.
function Pipeline:map_batch(fn)
  if type(fn) ~= "function" then error("inlay: map_batch expects a function", 2) end
  self.stages[#self.stages + 1] = { kind = "map_batch", fn = fn }
  return self
end

function Pipeline:rename(map)
  self.stages[#self.stages + 1] = { kind = "rename", map = map }
  return self
end

function Pipeline:drop(names)
  self.stages[#self.stages + 1] = { kind = "drop", names = names }
  return self
end

function Pipeline:select(names)
  self.stages[#self.stages + 1] = { kind = "select", names = names }
  return self
end

local function batch_view(src)
  local function column(name)
    local a = src:_array(name)
    src:_cols()[name] = a   -- from now on a Lua column: in-place edits reach the writer
    return a
  end
  local methods = {
    filter = function(_, mask) return src:_keep(mask) end,
    columns = function()
      local t = {}
      for name in pairs(src:_cols()) do t[#t + 1] = name end
      table.sort(t)
      return t
    end,
    column = function(_, name) return column(name) end,
  }
  return setmetatable({}, {
    __index = function(_, k)
      if k == "n" then return src:_n() end
      if methods[k] then return methods[k] end
      return column(k)
    end,
    __newindex = function(_, k, v)
      if v ~= nil and type(v) ~= "table" then error("inlay: a batch column must be an array", 2) end
      src:_cols()[k] = v
    end,
    __len = function() return src:_n() end,
  })
end

-- Where in the input a failure happened, for its message: view row i (by
-- default the one map or filter was at) as "row 69930 (line 69931 of
-- in.csv)", the row's number among the rows read and the line its record
-- starts on; "rows A..B (lines C..D of in.csv)" for the whole view.
local function input_name(self)
  return self.path == "-" and "<stdin>" or self.path
end

local function where(self, i)
  local row, line = self.src:_where(i)
  if not row then return nil end
  if not line then return string.format("row %d", row) end
  return string.format("row %d (line %d of %s)", row, line, input_name(self))
end

local function span(self)
  local n = self.src:_n()
  if n == 1 then return where(self, 1) end
  local r1, l1 = self.src:_where(1)
  local r2, l2 = self.src:_where(n)
  if not r1 then return nil end
  if not l1 then return string.format("rows %d..%d", r1, r2) end
  return string.format("rows %d..%d (lines %d..%d of %s)", r1, r2, l1, l2, input_name(self))
end

-- The error err (a transform's, or the writer's on the rows a transform
-- made), raised again with `at` in front. Errors that are not strings go
-- on as they are.
local function raise_at(err, at)
  if type(err) ~= "string" or not at then error(err, 0) end
  error("inlay: " .. at .. ": " .. (err:gsub("^inlay: ", "")), 0)
end

-- The writer names a bad value by its index in the batch it was handed
-- ("column 'x' row 3394: ..."), or for a nested column by its row in the
-- output (rows_out rows were written before this batch): said again with
-- its place in the input.
local function raise_write_error(self, w, err, rows_out)
  local col, row, rest
  if type(err) == "string" then col, row, rest = err:match("^inlay: column '(.-)' row (%d+): (.*)$") end
  if not col then error(err, 0) end
  local i = tonumber(row)
  for _, c in ipairs(w:schema():columns()) do
    if c.columns and (col == c.name or col:sub(1, #c.name + 1) == c.name .. ".") then
      i = i - rows_out
      break
    end
  end
  local at = where(self, i)
  if not at then error(err, 0) end
  raise_at("column '" .. col .. "': " .. rest, at)
end

local function run_stages(self)
  local src = self.src
  for _, st in ipairs(self.stages) do
    if src:_n() == 0 then return end
    local k = st.kind
    if k == "map" or k == "filter" then
      local ok, err = pcall(src._map, src, st.fn, st.reads, st.writes, st.row, k == "filter", st.discover)
      if not ok then raise_at(err, where(self)) end
      st.discover = false
    elseif k == "map_batch" then
      local ok, res = pcall(st.fn, batch_view(src))
      if not ok then raise_at(res, span(self)) end
      if res == false then src:_keep({}) end
    else
      local cols = src:_cols()
      if k == "rename" then
        local moved = {}
        for old, new in pairs(st.map) do
          if cols[old] == nil then error("inlay: rename: no column '" .. tostring(old) .. "'", 0) end
          moved[new] = cols[old]
          cols[old] = nil
        end
        for new, v in pairs(moved) do cols[new] = v end
      elseif k == "drop" then
        for _, name in ipairs(st.names) do cols[name] = nil end
      elseif k == "select" then
        local keep = {}
        for _, name in ipairs(st.names) do
          if cols[name] == nil then error("inlay: select: no column '" .. tostring(name) .. "'", 0) end
          keep[name] = true
        end
        for name in pairs(cols) do if not keep[name] then cols[name] = nil end end
      end
    end
  end
end

-- For host programs (inlay_lua.h): fn(batch) on the view of src, as a
-- map_batch stage; false drops the batch.
function inlay._run_batch(src, fn)
  if fn(batch_view(src)) == false then src:_keep({}) end
end

local function thousands(n)
  local s = string.format("%d", n)
  return (s:reverse():gsub("(%d%d%d)", "%1,"):reverse():gsub("^,", ""))
end

local function progress_line(st, rows, t0, now)
  local secs = (now - t0) / 1e9
  local mb = st.bytes_read / 1e6
  local line = string.format("inlay: %s rows  %.1f MB read  %.1f MB/s", thousands(rows), mb,
                             secs > 0 and mb / secs or 0)
  if st.bytes_total > 0 and st.bytes_consumed > 0 then
    local frac = st.bytes_consumed / st.bytes_total
    line = line .. string.format("  %d%%", math.floor(frac * 100))
    if frac > 0.01 and frac < 1 then line = line .. string.format("  ETA %ds", math.ceil(secs / frac - secs)) end
  end
  io.stderr:write("\r", line, "\27[K")
  io.stderr:flush()
end

-- src:write(w [, { progress = bool }]) drains the pipeline into writer w
-- (columns matched by name) and returns the job's summary. A progress line
-- goes to stderr when it is a terminal, unless progress = false.
function Pipeline:write(w, opts)
  opts = opts or {}
  check_keys(opts, { progress = true }, "write")
  local progress = opts.progress
  if progress == nil then progress = inlay._isatty(2) end
  local src = self.src
  local t0 = inlay._now()
  local last, rows_out = t0, 0
  while src:_next() > 0 do
    run_stages(self)
    local n = src:_n()
    if n > 0 then
      local ok, err = pcall(src._write, src, w)
      if not ok then raise_write_error(self, w, err, rows_out) end
      rows_out = rows_out + n
    end
    if progress then
      local now = inlay._now()
      if now - last > 250e6 then
        last = now
        progress_line(src:_stats(), rows_out, t0, now)
      end
    end
  end
  if progress then io.stderr:write("\r\27[K") end
  local st = src:_stats()
  return {
    rows_in = st.records, rows_out = rows_out, skipped = st.skipped, bytes_read = st.bytes_read,
    seconds = (inlay._now() - t0) / 1e9,
  }
end

-- for batch in src:batches() do ... end: the batch views, for consumers of
-- their own (each valid until the next step).
function Pipeline:batches()
  local src = self.src
  return function()
    while src:_next() > 0 do
      run_stages(self)
      if src:_n() > 0 then return batch_view(src) end
    end
    return nil
  end
end

function Pipeline:stats() return self.src:_stats() end
-- { format =, compression =, delimiter =, quote =, escape =, header =, sniffed = { names } }
function Pipeline:dialect() return self.src:_dialect() end
function Pipeline:close() self.src:_close() end
Pipeline.__close = Pipeline.close
function Pipeline:__tostring()
  return string.format("inlay.%s(%q, %d stages)", self.format or "source", self.path, #self.stages)
end

-- w:write_source(src [, opts]) is src:write(w [, opts]).
-- d:write_source(src [, opts]) the same for a dataset.
for _, name in ipairs({ "inlay.writer", "inlay.dataset" }) do
  local mt = debug.getregistry()[name]
  local index = mt and mt.__index
  if type(index) == "table" then
    index.write_source = function(w, src, opts)
      if getmetatable(src) ~= Pipeline then error("inlay: write_source expects a source", 2) end
      return src:write(w, opts)
    end
  end
end

-- ---- inlay convert ------------------------------------------------------------

local CONVERT_USAGE = [[
usage: inlay convert [options] IN... OUT
       inlay convert [options] IN... OUTDIR --partition-by COL,..

Converts CSV, NDJSON or Parquet to Parquet. IN is a file or - (stdin); a
Parquet file is known by its first bytes, and rewritten with the options
given (codec, row group and page sizes, page version); several Parquet
inputs with the same schema are merged into OUT, one after the other. For
CSV and NDJSON, the compression (gzip, zstd) is read from the content, the
CSV dialect (delimiter, quote, escape, header) sniffed from a sample, and
the schema inferred from rows taken across the whole file, unless options
say them. OUT is a file, written to a temporary beside it and renamed into
place once complete and synced to disk, or - to stream the file to stdout.
OUT must not exist (unless --force) and must not be an input.

With --partition-by, OUTDIR is a folder (made if missing) that receives a
dataset: the rows go to files part-SHARD-NNNNNN.parquet in Hive-style
folders named by the values of the partition columns (OUTDIR/day=2024-06-01
/platform=pc/), each published complete; a successful run then writes the
shard's manifest (_inlay_manifest.SHARD.json) and _SUCCESS. Several CSV or
NDJSON inputs then go one after the other, all with the first one's schema.

options (--opt value or --opt=value; short flags combine, -fq; SIZE is a
byte count with K, M or G for KiB, MiB, GiB: 64K, 1M):
  --schema FILE.lua    the schema: a Lua file returning inlay.schema{...},
                       run with the schema functions only (no io, os); for
                       Parquet input, the output's (columns by name)
  --infer              infer the schema (the default)
  --infer-rows N       rows to infer from (default 10000, spread across a file)
  --types COL=TYPE,..  the type of some columns, the rest inferred (repeatable)
  --narrow-ints        infer the narrowest integer type rather than int64
  --format F           csv or ndjson, whatever the content says
  --delimiter C        CSV field delimiter (\t for tab); default: sniffed
  --quote C            CSV quote character ("" for none); default: sniffed
  --escape C           CSV escape character inside quotes; default: sniffed
  --header             the CSV's first line holds the column names
  --no-header          it does not: columns are named column0, column1, ...
  --null TEXT          a CSV text read as null (repeatable; default: the
                       empty field)
  --nulls A,B          several at once
  --on-error E         fail (default) or skip bad records
  --reject FILE        where skipped records go (implies --on-error skip)
  --threads N          threads for the work (1..64; default: the online
                       CPUs, at most 8): 1 parses, encodes and writes in
                       turn; from 2 on, a thread parses the next batch of
                       CSV or NDJSON while the current one is written (and
                       another decodes a gzip or zstd file ahead of it),
                       and N - 1 more encode and compress pages
  --compression C[:L]  the codec of every column, at level L (the codec's
                       default without one); this build has:
%CODECS%
  --level N            the level of the codec (also --compression-level)
  --min-compression-gain F
                       a column chunk (v2: a page) that its codec shrinks by
                       less than this fraction is stored uncompressed
                       (default 0.03; 0 compresses everything)
  --row-group-rows N   rows per row group (default 1048576)
  --row-group-bytes SIZE  a row group also ends when the writer holds this
                       much for it (default 128M)
  --page-rows N        rows per data page at most (default 20000)
  --page-bytes SIZE    bytes per data page at most (default 1M)
  --page-version V     data pages v1 (default) or v2
  --no-statistics      no min/max/null counts in pages and chunks
  --no-page-index      no column index and offset index (readers skip
                       pages by them)
  --statistics-truncate-length N
                       cut string and binary min/max longer than N bytes
                       (marked inexact; default 64, 0 never cuts)
  --bloom-filter COL,..
                       a bloom filter in each row group for these
                       top-level columns (repeatable)
  --sorted-by COL[:desc][:nulls_first],..
                       the rows are in this order: checked as they are
                       written (a row out of order is bad data) and
                       declared in the footer; COL is a top-level column or
                       a struct's leaf (pos.x)
  --page-checksum      a CRC32 of each page in its header
  --no-sync            do not wait for the file to reach the disk
  --partition-by COL,..
                       write a dataset under OUTDIR, partitioned by these
                       top-level columns, outermost folder first (boolean,
                       integer, date or text columns)
  --keep-partition-columns
                       also store the partition columns in the files
  --max-file-rows N    a file holds at most N rows (default: no limit)
  --max-file-bytes SIZE
                       a file is closed once it reaches SIZE
  --max-open-files N   files written at once (default 64); the least
                       recently used is closed when another is needed
  --shard ID           names the files part-ID-NNNNNN.parquet, so that jobs
                       with distinct shards fill one OUTDIR together
                       (default: $INLAY_SHARD, else 8 random hex digits)
  --existing MODE      when OUTDIR holds this shard's files: error (the
                       default), replace_shard (they are replaced once the
                       run succeeds) or append (the numbering goes on)
  -f, --force          replace OUT (and the reject file) if it exists; write
                       to a terminal
  -v, --verbose        say what was detected: format, dialect, schema
  -q, --quiet          no progress line and no summary
  -h, --help           this help
  --                   the rest are IN and OUT, even if they start with -

exit status: 0 done; 1 bad data (a record, a value, a schema, inputs whose
schemas differ); 2 bad command line (an unknown option, OUT exists, OUT is
an input); 3 input or output failed (a missing file, a full disk). On any
failure OUT is left as it was.
]]

-- The command line's own errors: a message and the exit status the inlay
-- command uses (it reads `code`).
local BAD_DATA, USAGE, IO_FAILED = 1, 2, 3
local CliError = { __tostring = function(e) return e.msg end }
local function cli_error(code, fmt, ...)
  error(setmetatable({ code = code, msg = "inlay: " .. string.format(fmt, ...) }, CliError), 0)
end

-- The most a page may hold, in rows or bytes (the writer's limit).
local PAGE_MAX = 2 ^ 30 - 1

local function positive_int(v, name, max)
  local n = math.tointeger(tonumber(v))
  if not n or n < 1 then cli_error(USAGE, "%s needs a positive integer, got '%s'", name, v) end
  if max and n > max then cli_error(USAGE, "%s is at most %d, got '%s'", name, max, v) end
  return n
end

-- SIZE: a byte count, with K, M or G for KiB, MiB, GiB ("64K", "1M").
local SIZE_UNITS = { [""] = 1, K = 2 ^ 10, M = 2 ^ 20, G = 2 ^ 30 }
local function size(v, name, max)
  local digits, unit = v:match("^(%d+)(%a?)$")
  local mult = unit and SIZE_UNITS[unit:upper()]
  local n = mult and math.tointeger(tonumber(digits) * mult)
  if not n or n < 1 then
    cli_error(USAGE, "%s needs a size, a positive byte count with K, M or G for KiB, MiB, GiB (64K, 1M), got '%s'",
              name, v)
  end
  if max and n > max then cli_error(USAGE, "%s is at most %d bytes (1G - 1), got '%s'", name, max, v) end
  return n
end

-- A codec this build has, or a command-line error naming the flag.
local function codec_name(c, flag)
  local ok, err = pcall(inlay.compression_levels, c)
  if not ok then cli_error(USAGE, "%s: %s", flag, (tostring(err):gsub("^inlay: ", ""))) end
end

-- The level a flag gives: an integer; whether the codec takes it is
-- checked once the codec is known (check_level).
local function set_level(o, v, flag, whole)
  local l = math.tointeger(tonumber(v))
  if not l or l < -2 ^ 31 + 1 or l > 2 ^ 31 - 1 then
    cli_error(USAGE, "%s: the level in '%s' is not an integer", flag, whole or v)
  end
  o.writer.compression_level, o.level_flag = l, flag
end

-- The level given (by any flag) against the codec's range, in the words
-- of the core's message.
local function check_level(o)
  local l = o.writer.compression_level
  if not l then return end
  local codec = o.writer.compression or "zstd"
  local lo, hi = inlay.compression_levels(codec)
  local name = ({ lz4 = "LZ4_RAW", none = "UNCOMPRESSED" })[codec:lower()] or codec:upper()
  if not lo then cli_error(USAGE, "%s: compression %s has no levels (level %d given)", o.level_flag, name, l) end
  if l < lo or l > hi then
    cli_error(USAGE, "%s: compression %s takes levels %d to %d, not %d", o.level_flag, name, lo, hi, l)
  end
end

-- The lines of --help that list the codecs this build has.
local function codec_lines()
  local lines, aside = {}, { uncompressed = " (also none)", lz4_raw = " (also lz4)", zstd = " (the default)" }
  for _, c in ipairs(inlay.compressions()) do
    local lo, hi, dflt = inlay.compression_levels(c)
    local line = "                         " .. c .. (aside[c] or "")
    if lo then
      line = line .. string.rep(" ", math.max(1, 44 - #line)) .. string.format("levels %d..%d, default %d", lo, hi, dflt)
    end
    lines[#lines + 1] = line
  end
  return table.concat(lines, "\n")
end

local function one_char(v, name)
  if v == "\\t" then return "\t" end
  if #v > 1 then cli_error(USAGE, "%s needs one character, got '%s'", name, v) end
  return v
end

-- Each option: whether it takes a value, its short letter, and what it sets
-- in `o` (the parsed command line).
local CONVERT_OPTIONS = {
  schema = { value = true, set = function(o, v) o.schema_file = v end },
  infer = { set = function(o) o.schema_file = nil end },
  ["infer-rows"] = { value = true, set = function(o, v, n) o.src.infer_rows = positive_int(v, n) end },
  types = { value = true, set = function(o, v, n)
    o.src.types = o.src.types or {}
    for item in v:gmatch("[^,]+") do
      local col, ty = item:match("^%s*(.-)%s*=%s*(.-)%s*$")
      if not col or col == "" or ty == "" then cli_error(USAGE, "%s expects COL=TYPE, got '%s'", n, item) end
      o.src.types[col] = ty
    end
  end },
  ["narrow-ints"] = { set = function(o) o.src.narrow_ints = true end },
  format = { value = true, set = function(o, v, n)
    if v ~= "csv" and v ~= "ndjson" then cli_error(USAGE, "%s is csv or ndjson, got '%s'", n, v) end
    o.src.format = v
  end },
  delimiter = { value = true, set = function(o, v, n) o.src.delimiter = one_char(v, n) end },
  quote = { value = true, set = function(o, v, n) o.src.quote = one_char(v, n) end },
  escape = { value = true, set = function(o, v, n) o.src.escape = one_char(v, n) end },
  header = { set = function(o) o.src.header = true end },
  ["no-header"] = { set = function(o) o.src.header = false end },
  null = { value = true, set = function(o, v)
    o.src.nulls = o.src.nulls or {}
    o.src.nulls[#o.src.nulls + 1] = v
  end },
  nulls = { value = true, set = function(o, v)
    o.src.nulls = o.src.nulls or {}
    for item in (v .. ","):gmatch("([^,]*),") do o.src.nulls[#o.src.nulls + 1] = item end
  end },
  ["on-error"] = { value = true, set = function(o, v, n)
    if v ~= "fail" and v ~= "skip" then cli_error(USAGE, "%s is fail or skip, got '%s'", n, v) end
    o.src.on_error = v
  end },
  reject = { value = true, set = function(o, v) o.src.reject = v end },
  compression = { value = true, set = function(o, v, n)
    local codec, level = v:match("^([^:]*):(.*)$")
    codec_name(codec or v, n)
    o.writer.compression = codec or v
    if codec then set_level(o, level, n, v) end
  end },
  level = { value = true, set = function(o, v, n) set_level(o, v, n) end },
  ["compression-level"] = { value = true, set = function(o, v, n) set_level(o, v, n) end },
  ["min-compression-gain"] = { value = true, set = function(o, v, n)
    local g = tonumber(v)
    if not g or not (g >= 0 and g < 1) then cli_error(USAGE, "%s is a fraction in [0, 1), got '%s'", n, v) end
    o.writer.min_compression_gain = g
  end },
  ["row-group-rows"] = { value = true, set = function(o, v, n) o.writer.row_group_rows = positive_int(v, n) end },
  ["row-group-bytes"] = { value = true, set = function(o, v, n) o.writer.row_group_bytes = size(v, n) end },
  ["page-rows"] = { value = true, set = function(o, v, n) o.writer.page_rows = positive_int(v, n, PAGE_MAX) end },
  ["page-bytes"] = { value = true, set = function(o, v, n) o.writer.page_bytes = size(v, n, PAGE_MAX) end },
  ["page-version"] = { value = true, set = function(o, v, n)
    if v ~= "1" and v ~= "2" then cli_error(USAGE, "%s is 1 or 2, got '%s'", n, v) end
    o.writer.page_version = tonumber(v)
  end },
  threads = { value = true, set = function(o, v, n)
    local t = positive_int(v, n)
    if t > 64 then cli_error(USAGE, "%s is 1 to 64, got %d", n, t) end
    o.src.threads = t > 1 and 2 or 1
    o.writer.threads = t
  end },
  ["no-statistics"] = { set = function(o) o.writer.statistics = false end },
  ["no-page-index"] = { set = function(o) o.writer.page_index = false end },
  ["page-checksum"] = { set = function(o) o.writer.page_checksum = true end },
  ["statistics-truncate-length"] = { value = true, set = function(o, v, n)
    local len = math.tointeger(tonumber(v))
    if not len or len < 0 or not v:match("^%d+$") then
      cli_error(USAGE, "%s needs a byte count (0 never cuts), got '%s'", n, v)
    end
    o.writer.statistics_truncate_length = len
  end },
  ["bloom-filter"] = { value = true, set = function(o, v, n)
    o.writer.bloom_filter = o.writer.bloom_filter or {}
    for item in (v .. ","):gmatch("([^,]*),") do
      if item == "" then cli_error(USAGE, "%s expects COL[,COL...], got '%s'", n, v) end
      table.insert(o.writer.bloom_filter, item)
    end
  end },
  ["sorted-by"] = { value = true, set = function(o, v, n)
    o.writer.sorting_columns = o.writer.sorting_columns or {}
    for item in (v .. ","):gmatch("([^,]*),") do
      local col, mods = item:match("^([^:]+)(.*)$")
      if not col then cli_error(USAGE, "%s expects COL[:desc][:nulls_first][,...], got '%s'", n, v) end
      local entry = { col }
      for m in mods:gmatch(":([^:]*)") do
        if m == "desc" then entry.descending = true
        elseif m == "asc" then entry.descending = false
        elseif m == "nulls_first" then entry.nulls_first = true
        elseif m == "nulls_last" then entry.nulls_first = false
        else cli_error(USAGE, "%s: '%s' in '%s' is not asc, desc, nulls_first or nulls_last", n, m, item) end
      end
      table.insert(o.writer.sorting_columns, entry)
    end
  end },
  ["no-sync"] = { set = function(o) o.writer.sync = false end },
  ["partition-by"] = { value = true, set = function(o, v, n)
    o.dataset.partition_by = o.dataset.partition_by or {}
    for item in (v .. ","):gmatch("([^,]*),") do
      if item == "" then cli_error(USAGE, "%s expects COL[,COL...], got '%s'", n, v) end
      table.insert(o.dataset.partition_by, item)
    end
  end },
  ["keep-partition-columns"] = { set = function(o) o.dataset.keep_partition_columns = true end },
  ["max-file-rows"] = { value = true, set = function(o, v, n) o.dataset.max_file_rows = positive_int(v, n) end },
  ["max-file-bytes"] = { value = true, set = function(o, v, n) o.dataset.max_file_bytes = size(v, n) end },
  ["max-open-files"] = { value = true, set = function(o, v, n)
    o.dataset.max_open_files = positive_int(v, n, 2 ^ 31 - 1)
  end },
  shard = { value = true, set = function(o, v, n)
    if not v:match("^[%w_.-]+$") or v:sub(1, 1) == "." or #v > 64 then
      cli_error(USAGE, "%s is 1 to 64 of A-Z a-z 0-9 _ . - (not starting with .), got '%s'", n, v)
    end
    o.dataset.shard = v
  end },
  existing = { value = true, set = function(o, v, n)
    if v ~= "error" and v ~= "replace_shard" and v ~= "append" then
      cli_error(USAGE, "%s is error, replace_shard or append, got '%s'", n, v)
    end
    o.dataset.existing = v
  end },
  force = { short = "f", set = function(o) o.force = true end },
  verbose = { short = "v", set = function(o) o.verbose = true end },
  quiet = { short = "q", set = function(o) o.quiet = true end },
  help = { short = "h", set = function(o) o.help = true end },
}
local CONVERT_SHORT = {}
for name, spec in pairs(CONVERT_OPTIONS) do if spec.short then CONVERT_SHORT[spec.short] = name end end

-- Options that only a dataset (--partition-by) takes.
local DATASET_ONLY = {
  ["keep-partition-columns"] = true, ["max-file-rows"] = true, ["max-file-bytes"] = true, ["max-open-files"] = true,
  shard = true, existing = true,
}

-- Options anywhere among the arguments, as getopt_long permutes them;
-- "--" ends them. Returns the parsed options and the positional arguments.
local function parse_convert_args(args)
  local o = { src = { threads = 2 }, writer = {}, dataset = {}, given = {} }
  local pos, i = {}, 1
  local function take(name, inline)
    local spec = CONVERT_OPTIONS[name]
    local shown = #name == 1 and "-" .. name or "--" .. name
    if not spec then cli_error(USAGE, "unknown option '%s' (see inlay convert --help)", shown) end
    o.given[#o.given + 1] = name
    if not spec.value then
      if inline then cli_error(USAGE, "option '%s' takes no value", shown) end
      spec.set(o, true, shown)
      return
    end
    local v = inline
    if v == nil then
      i = i + 1
      v = args[i]
      if v == nil then cli_error(USAGE, "option '%s' needs a value", shown) end
    end
    spec.set(o, v, shown)
  end
  while i <= #args do
    local a = args[i]
    if a == "--" then
      table.move(args, i + 1, #args, #pos + 1, pos)
      break
    elseif a:sub(1, 2) == "--" then
      local name, inline = a:match("^%-%-([^=]+)=(.*)$")
      take(name or a:sub(3), inline)
    elseif a:sub(1, 1) == "-" and #a > 1 then
      for j = 2, #a do
        local c = a:sub(j, j)
        local name = CONVERT_SHORT[c]
        if not name then cli_error(USAGE, "unknown option '-%s' (see inlay convert --help)", c) end
        take(name)
      end
    else
      pos[#pos + 1] = a
    end
    i = i + 1
  end
  check_level(o)
  if o.dataset.partition_by then
    o.dataset_out = true
  else
    for _, name in ipairs(o.given) do
      if DATASET_ONLY[name] then cli_error(USAGE, "--%s needs --partition-by", name) end
    end
  end
  if o.src.reject then
    if o.src.on_error == "fail" then cli_error(USAGE, "--reject needs --on-error skip (it holds the skipped records)") end
    o.src.on_error = "skip"
  end
  return o, pos
end

-- What a path is, by device and inode (symlinks followed): "dev:ino", kind;
-- nil and the system's message when there is nothing there.
local function file_id(path)
  local kind, dev, ino = inlay._cli.stat(path)
  if not kind then return nil, dev, ino end
  return dev .. ":" .. ino, kind
end

local ENOENT = 2

-- What an input is, by device and inode: "dev:ino" (nil for a pipe or a
-- terminal on stdin); raises when it cannot be read.
local function input_id(input)
  if input == "-" then
    local kind, dev, ino = inlay._cli.fstat(0)
    return kind == "file" and dev .. ":" .. ino or nil
  end
  local id, kind_or_err = file_id(input)
  if not id then cli_error(IO_FAILED, "cannot open '%s': %s", input, kind_or_err) end
  if kind_or_err == "directory" then cli_error(IO_FAILED, "'%s' is a directory", input) end
  return id
end

-- Everything that could destroy a file is refused here, before any work:
-- OUT existing (without --force), OUT or the reject file being one of the
-- inputs, OUT not a regular file, Parquet to a terminal.
local function check_paths(o, inputs, output)
  local in_ids = {}
  for i, input in ipairs(inputs) do
    local id = input_id(input)
    if id then in_ids[id] = input end
  end
  local out_id
  if o.dataset_out then
    if output == "-" then cli_error(USAGE, "--partition-by writes a folder: OUTDIR cannot be - (stdout)") end
    local id, kind_or_err, errno = file_id(output)
    if id and kind_or_err ~= "directory" then
      cli_error(USAGE, "'%s' is a %s, not a folder: --partition-by writes a dataset into a folder", output, kind_or_err)
    elseif not id and errno ~= ENOENT then
      cli_error(IO_FAILED, "cannot write '%s': %s", output, kind_or_err)
    end
  elseif output == "-" then
    if inlay._isatty(1) and not o.force then
      cli_error(USAGE, "will not write Parquet to a terminal (redirect stdout, or --force)")
    end
    local kind, dev, ino = inlay._cli.fstat(1)
    if kind == "file" then out_id = dev .. ":" .. ino end
  else
    local id, kind_or_err, errno = file_id(output)
    if id then
      if in_ids[id] then cli_error(USAGE, "'%s' is the input: the output may not replace it", output) end
      if kind_or_err ~= "file" then
        cli_error(USAGE, "'%s' is a %s, not a file: it is not replaced (- writes to stdout)", output, kind_or_err)
      end
      if not o.force then cli_error(USAGE, "'%s' exists (--force replaces it)", output) end
      out_id = id
    elseif errno ~= ENOENT then
      cli_error(IO_FAILED, "cannot write '%s': %s", output, kind_or_err)
    end
  end
  if out_id and in_ids[out_id] then
    cli_error(USAGE, "'%s' is the input: the output may not replace it", output)
  end
  local reject = o.src.reject
  if reject then
    local input = inputs[1]
    if reject == output or (reject == input and input ~= "-") then
      cli_error(USAGE, "the reject file '%s' is the %s", reject, reject == output and "output" or "input")
    end
    local id, kind = file_id(reject)
    if id then
      if in_ids[id] or id == out_id then
        cli_error(USAGE, "the reject file '%s' is the %s", reject, in_ids[id] and "input" or "output")
      end
      if kind == "file" and not o.force then
        cli_error(USAGE, "the reject file '%s' exists (--force replaces it)", reject)
      end
    end
  end
end

local function describe_dialect(input, src)
  if not src.dialect then return end
  local d = src:dialect()
  local function show(c) return c == "\t" and "\\t" or c == "" and "none" or c end
  local detected = {}
  for _, k in ipairs(d.sniffed or {}) do detected[k] = true end
  local function mark(k) return detected[k] and " (detected)" or "" end
  local parts = { string.format("inlay: %s: %s%s", input, d.format, mark("format")) }
  if d.compression and d.compression ~= "none" then parts[#parts + 1] = d.compression .. mark("compression") end
  if d.format == "csv" then
    parts[#parts + 1] = "delimiter " .. show(d.delimiter) .. mark("delimiter")
    parts[#parts + 1] = "quote " .. show(d.quote) .. mark("quote")
    parts[#parts + 1] = "escape " .. show(d.escape) .. mark("escape")
    parts[#parts + 1] = (d.header and "header" or "no header") .. mark("header")
  end
  io.stderr:write(table.concat(parts, ", "), "\n")
end

-- The columns --bloom-filter and --sorted-by name, against the output's
-- schema: a command-line error, before anything is written, naming the
-- flag. (What inlay.open checks beyond the name, it says itself.)
local function check_flag_columns(o, schema)
  local top, leaves, names = {}, {}, {}
  for _, c in ipairs(schema:columns()) do
    top[c.name] = c
    names[#names + 1] = c.name
    for _, p in ipairs(c.columns or { c.name }) do leaves[p] = true end
  end
  local function unknown(flag, col, also)
    cli_error(USAGE, "%s: no column '%s' (the columns are %s%s)", flag, col, table.concat(names, ", "), also or "")
  end
  for _, col in ipairs(o.writer.bloom_filter or {}) do
    if not top[col] then unknown("--bloom-filter", col) end
  end
  for _, e in ipairs(o.writer.sorting_columns or {}) do
    local c = top[e[1]]
    if not c and not leaves[e[1]] then unknown("--sorted-by", e[1], ", or a leaf's dotted path") end
    if c and c.columns then
      local kind = c.type:match("^%a+")
      if kind == "struct" then
        cli_error(USAGE, "--sorted-by: '%s' is a struct: name one of its leaves (%s)", e[1], table.concat(c.columns, ", "))
      end
      cli_error(USAGE, "--sorted-by: '%s' is a %s: rows cannot be sorted by it", e[1], kind)
    end
  end
end

-- Options that only CSV and NDJSON input take.
local TEXT_ONLY = {
  infer = true, ["infer-rows"] = true, types = true, ["narrow-ints"] = true, format = true, delimiter = true,
  quote = true, escape = true, header = true, ["no-header"] = true, null = true, nulls = true, ["on-error"] = true,
  reject = true,
}

-- How Parquet input b's fields differ from a's (lists of s:columns()), or nil.
local function schema_difference(a, b, na, nb)
  for i = 1, math.max(#a, #b) do
    local x, y = a[i], b[i]
    if not y then return string.format("it has no field '%s' (field #%d of '%s')", x.name, i, na) end
    if not x then return string.format("its field #%d '%s' is not in '%s'", i, y.name, na) end
    if x.name ~= y.name then
      return string.format("its field #%d is '%s', where '%s' has '%s'", i, y.name, na, x.name)
    end
    if x.type ~= y.type then
      return string.format("field '%s' is %s in '%s', %s in '%s'", x.name, y.type, nb, x.type, na)
    end
    if x.optional ~= y.optional then
      return string.format("field '%s' is %s in '%s', %s in '%s'", x.name, y.optional and "optional" or "required",
                           nb, x.optional and "optional" or "required", na)
    end
  end
end

local function summary_line(o, rows_in, rows_out, skipped, bytes_read, info, output, t0)
  if o.quiet then return end
  local secs = (inlay._now() - t0) / 1e9
  if o.dataset_out then
    io.stderr:write(string.format(
      "inlay: %s rows in, %s rows out, %s skipped; %.1f MB read, %s bytes written in %s file%s, %s partition%s, "
        .. "under %s; %.2f s (%.1f MB/s)\n",
      thousands(rows_in), thousands(rows_out), thousands(skipped), bytes_read / 1e6, thousands(info.bytes),
      thousands(info.files), info.files == 1 and "" or "s", thousands(info.partitions),
      info.partitions == 1 and "" or "s", output, secs, secs > 0 and bytes_read / 1e6 / secs or 0))
    return
  end
  io.stderr:write(string.format(
    "inlay: %s rows in, %s rows out, %s skipped; %.1f MB read, %s bytes written to %s; %.2f s (%.1f MB/s)\n",
    thousands(rows_in), thousands(rows_out), thousands(skipped), bytes_read / 1e6,
    thousands(info.bytes), output == "-" and "stdout" or output, secs, secs > 0 and bytes_read / 1e6 / secs or 0))
end

-- The output: a file writer, or with --partition-by a dataset under the
-- folder OUT (the writer's options go to each of its files).
local function open_output(o, output, schema)
  if not o.dataset_out then return inlay.open(output == "-" and io.stdout or output, schema, o.writer) end
  local opts = {}
  for k, v in pairs(o.writer) do opts[k] = v end
  for k, v in pairs(o.dataset) do opts[k] = v end
  return inlay.dataset(output, schema, opts)
end

-- Parquet in: every input's schema is checked against the first's before
-- anything is written; then the inputs go through one writer, one at a
-- time, as pipelines with no stage (their columns go over as the
-- reader's arrays).
local function convert_parquet(o, inputs, output, t0)
  for _, name in ipairs(o.given) do
    if TEXT_ONLY[name] then cli_error(USAGE, "--%s is for CSV and NDJSON input, not Parquet", name) end
  end
  local schema, first
  for i, input in ipairs(inputs) do
    local r <close> = inlay.read(input)
    local cols = r:schema():columns()
    if i == 1 then
      schema, first = r:schema(), cols
      if o.verbose then
        local info = r:info()
        io.stderr:write(string.format("inlay: %s: parquet, %s rows in %d row group%s%s\n", input,
          thousands(info.num_rows), info.num_row_groups, info.num_row_groups == 1 and "" or "s",
          info.created_by ~= "" and ", written by " .. info.created_by or ""))
      end
    else
      local why = schema_difference(first, cols, inputs[1], input)
      if why then cli_error(BAD_DATA, "'%s' does not have the schema of '%s': %s", input, inputs[1], why) end
    end
  end
  if o.schema_file then schema = inlay.load_schema(o.schema_file) end
  if o.verbose then io.stderr:write("inlay: schema ", tostring(schema), "\n") end
  check_flag_columns(o, schema)
  local w <close> = open_output(o, output, schema)
  local rows_in, rows_out, bytes = 0, 0, 0
  for _, input in ipairs(inputs) do
    local src <close> = inlay.parquet(input)
    local summary = src:write(w, { progress = not o.quiet and inlay._isatty(2) })
    rows_in, rows_out, bytes = rows_in + summary.rows_in, rows_out + summary.rows_out, bytes + summary.bytes_read
  end
  local info = w:close()
  summary_line(o, rows_in, rows_out, 0, bytes, info, output, t0)
  return true
end

-- Several CSV or NDJSON inputs into one dataset: the first one's schema
-- (given or inferred from it) is every input's, and they go one after the
-- other.
local function convert_texts(o, inputs, output, t0)
  if o.src.reject then cli_error(USAGE, "--reject takes one input (each would replace the reject file)") end
  if o.schema_file then o.src.schema = inlay.load_schema(o.schema_file) end
  local progress = not o.quiet and inlay._isatty(2)
  local first <close> = inlay.source(inputs[1], o.src)
  local schema = first:schema()
  if o.verbose then
    describe_dialect(inputs[1], first)
    io.stderr:write("inlay: schema ", tostring(schema), "\n")
  end
  check_flag_columns(o, schema)
  local w <close> = open_output(o, output, schema)
  local rest = {}   -- the next inputs take the schema as it is: no inference
  for k, v in pairs(o.src) do rest[k] = v end
  rest.schema, rest.types, rest.infer_rows, rest.narrow_ints = schema, nil, nil, nil
  local rows_in, rows_out, skipped, bytes = 0, 0, 0, 0
  for i, input in ipairs(inputs) do
    local next_src <close> = i > 1 and inlay.source(input, rest) or nil
    if next_src and o.verbose then describe_dialect(input, next_src) end
    local summary = (next_src or first):write(w, { progress = progress })
    rows_in, rows_out = rows_in + summary.rows_in, rows_out + summary.rows_out
    skipped, bytes = skipped + summary.skipped, bytes + summary.bytes_read
  end
  local info = w:close()
  summary_line(o, rows_in, rows_out, skipped, bytes, info, output, t0)
  return true
end

function inlay._convert(args)
  local o, pos = parse_convert_args(args)
  local usage = CONVERT_USAGE:gsub("%%CODECS%%", codec_lines)
  if o.help then io.stdout:write(usage) return true end
  if #pos < 2 then
    io.stderr:write(usage)
    cli_error(USAGE, "expected IN and OUT, got %d argument%s", #pos, #pos == 1 and "" or "s")
  end
  local output = pos[#pos]
  local inputs = table.move(pos, 1, #pos - 1, 1, {})
  check_paths(o, inputs, output)
  local t0 = inlay._now()
  local nparquet = 0
  for _, input in ipairs(inputs) do
    if is_parquet(input) then nparquet = nparquet + 1 end
  end
  if nparquet == 0 and #inputs > 1 and o.dataset_out then return convert_texts(o, inputs, output, t0) end
  if nparquet > 0 or #inputs > 1 then
    for _, input in ipairs(inputs) do
      if not is_parquet(input) then
        cli_error(USAGE, "several inputs are merged only when they are all Parquet, and '%s' is not", input)
      end
    end
    return convert_parquet(o, inputs, output, t0)
  end
  local input = inputs[1]
  if o.schema_file then o.src.schema = inlay.load_schema(o.schema_file) end
  local src <close> = inlay.source(input, o.src)
  if o.verbose then
    describe_dialect(input, src)
    io.stderr:write("inlay: schema ", tostring(src:schema()), "\n")
  end
  check_flag_columns(o, src:schema())
  local w <close> = open_output(o, output, src:schema())
  local summary = src:write(w, { progress = not o.quiet and inlay._isatty(2) })
  local info = w:close()
  summary_line(o, summary.rows_in, summary.rows_out, summary.skipped, summary.bytes_read, info, output, t0)
  return true
end
