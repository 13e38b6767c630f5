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
  schema = true, format = true, delimiter = true, quote = true, header = true, skip = true,
  nulls = true, strict = true, on_error = true, reject = true, batch_rows = true, infer_rows = true,
  threads = true,
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
  local cols, sample = inlay._infer(path, o, rows)
  local fields = {}
  for i, c in ipairs(cols) do
    fields[i] = { c[1], c[2], optional = c.optional or nil }
  end
  return fields, sample
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
  if schema == nil then
    local fields, sample = inferred_fields(path, o, opts.infer_rows)
    schema = inlay.schema(fields)
    o.prefix = sample   -- stdin: the sample inference read comes first
  elseif not is_schema(schema) then
    schema = inlay.schema(schema)
  end
  o.schema, o.infer_rows = nil, nil
  local src = inlay._source_open(path, schema, o)
  return setmetatable({ src = src, stages = {}, path = path, options = o, schema_ = schema }, Pipeline)
end

function inlay.csv(path, opts) return open_source(path, opts, "csv") end
function inlay.ndjson(path, opts) return open_source(path, opts, "ndjson") end
-- By extension (.csv/.tsv or .json/.jsonl/.ndjson, also compressed).
function inlay.source(path, opts) return open_source(path, opts, "auto") end

-- inlay.infer(path or pipeline, { rows = 10000, ...source options }) ->
-- schema, fields: the schema prints as its message type; fields is the
-- list inlay.schema took, to edit and pass again.
function inlay.infer(source, opts)
  opts = opts or {}
  local path, o = source, {}
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

local function run_stages(self)
  local src = self.src
  for _, st in ipairs(self.stages) do
    if src:_n() == 0 then return end
    local k = st.kind
    if k == "map" or k == "filter" then
      src:_map(st.fn, st.reads, st.writes, st.row, k == "filter", st.discover)
      st.discover = false
    elseif k == "map_batch" then
      if st.fn(batch_view(src)) == false then src:_keep({}) end
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
      src:_write(w)
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
function Pipeline:close() self.src:_close() end
Pipeline.__close = Pipeline.close
function Pipeline:__tostring()
  return string.format("inlay.source(%q, %d stages)", self.path, #self.stages)
end

-- w:write_source(src [, opts]) is src:write(w [, opts]).
do
  local mt = debug.getregistry()["inlay.writer"]
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
usage: inlay convert IN OUT [options]

Converts CSV or NDJSON (chosen by IN's extension: .csv .tsv .json .jsonl
.ndjson, also .gz or .zst compressed; - reads CSV from stdin) to Parquet.

options:
  --schema FILE.lua    the schema: a Lua file returning inlay.schema{...}
  --infer              infer the schema from the first rows (the default)
  --infer-rows N       rows to infer from (default 10000)
  --compression C      zstd (default) or uncompressed
  --format F           csv or ndjson, whatever the extension
  --delimiter C        CSV field delimiter (default , or tab for .tsv)
  --no-header          the CSV has no header: columns by position
  --nulls A,B          CSV texts read as null (default: the empty field)
  --on-error E         fail (default) or skip bad records
  --reject FILE        with --on-error skip: where bad records go
  --threads N          1: parse and write in turn; 2 (default): parse the next
                       batch while the current one is written
  --quiet              no progress line and no summary
]]

function inlay._convert(args)
  local pos, o, wopts = {}, { threads = 2 }, {}
  local schema_file, quiet = nil, false
  local i = 1
  local function value(name)
    i = i + 1
    if args[i] == nil then error("inlay convert: " .. name .. " needs a value", 0) end
    return args[i]
  end
  while i <= #args do
    local a = args[i]
    if a == "--help" or a == "-h" then io.stdout:write(CONVERT_USAGE) return true
    elseif a == "--schema" then schema_file = value(a)
    elseif a == "--infer" then schema_file = nil
    elseif a == "--infer-rows" then o.infer_rows = math.tointeger(tonumber(value(a)))
    elseif a == "--compression" then wopts.compression = value(a)
    elseif a == "--format" then o.format = value(a)
    elseif a == "--delimiter" then
      local d = value(a)
      o.delimiter = d == "\\t" and "\t" or d
    elseif a == "--no-header" then o.header = false
    elseif a == "--nulls" then
      local list = {}
      for item in (value(a) .. ","):gmatch("([^,]*),") do list[#list + 1] = item end
      o.nulls = list
    elseif a == "--on-error" then o.on_error = value(a)
    elseif a == "--threads" then o.threads = math.tointeger(tonumber(value(a)))
    elseif a == "--reject" then o.reject = value(a)
    elseif a == "--quiet" or a == "-q" then quiet = true
    elseif a:sub(1, 2) == "--" then error("inlay convert: unknown option " .. a .. " (see inlay convert --help)", 0)
    else pos[#pos + 1] = a end
    i = i + 1
  end
  if #pos ~= 2 then io.stderr:write(CONVERT_USAGE) error("inlay convert: expected IN and OUT", 0) end
  local input, output = pos[1], pos[2]
  if schema_file then
    local chunk, err = loadfile(schema_file)
    if not chunk then error("inlay convert: " .. err, 0) end
    local s = chunk()
    if not is_schema(s) then error("inlay convert: " .. schema_file .. " must return a schema (inlay.schema{...})", 0) end
    o.schema = s
  end
  local t0 = inlay._now()
  local src = inlay.source(input, o)
  local w <close> = inlay.open(output, src:schema(), wopts)
  local summary = src:write(w, { progress = not quiet and inlay._isatty(2) })
  local info = w:close()
  src:close()
  if not quiet then
    local secs = (inlay._now() - t0) / 1e9
    io.stderr:write(string.format(
      "inlay: %s rows in, %s rows out, %s skipped; %.1f MB read, %s bytes written to %s; %.2f s (%.1f MB/s)\n",
      thousands(summary.rows_in), thousands(summary.rows_out), thousands(summary.skipped), summary.bytes_read / 1e6,
      thousands(info.bytes), output, secs, secs > 0 and summary.bytes_read / 1e6 / secs or 0))
  end
  return true
end
