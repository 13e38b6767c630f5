-- inlay.load_schema(path): a schema file is data. It runs as text only,
-- with the pure libraries and an inlay that can only define a schema; it
-- cannot open files, run code, or change what the job (or the next file)
-- sees. The job that calls it keeps full rights.

local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/testlib.lua")
local inlay = require "inlay"

local dir = T.tmpdir("schema_files")
local n = 0

-- Writes `text` to a new schema file and returns its path.
local function file(text)
  n = n + 1
  local path = string.format("%s/s%d.lua", dir, n)
  T.write(path, text)
  return path
end

local function names(s)
  local t = {}
  for i, c in ipairs(s:columns()) do t[i] = c.name end
  return table.concat(t, " ")
end

T.case("the schemas in schemas/ load as they do with dofile", function()
  for _, name in ipairs { "trips", "telemetry", "access_log" } do
    local path = T.source .. "/schemas/" .. name .. ".lua"
    local s = inlay.load_schema(path)
    T.eq(getmetatable(s).__name, "inlay.schema", name)
    T.eq(tostring(s), tostring(dofile(path)), name)
  end
end)

T.case("what a schema file sees", function()
  -- the file reports what it sees as its columns' names
  local s = inlay.load_schema(file [[
    local seen = {}
    local function see(name, v) seen[#seen + 1] = { name .. "=" .. type(v), "int64" } end
    for _, k in ipairs { "io", "os", "load", "loadfile", "dofile", "debug", "package", "collectgarbage",
                         "print", "warn", "coroutine", "getmetatable", "setmetatable", "pairs", "ipairs",
                         "next", "select", "type", "tostring", "tonumber", "error", "assert", "pcall",
                         "xpcall", "rawget", "rawset", "rawequal", "rawlen", "string", "table", "math",
                         "utf8", "require", "inlay" } do
      see(k, _G[k])
    end
    see("string.dump", string.dump)
    see("method.dump", ("").dump)
    see("string.meta", getmetatable(""))
    see("math.randomseed", math.randomseed)
    see("math.random", math.random)
    for _, k in ipairs { "open", "csv", "ndjson", "source", "infer", "load_schema", "pretty", "_source_open",
                         "_infer", "_convert", "schema", "timestamp", "time", "decimal", "fixed", "list",
                         "struct", "map", "null", "version" } do
      see("inlay." .. k, inlay[k])
    end
    see("require.inlay", require "inlay" == inlay or nil)
    see("rep", ("ab"):rep(2) == "abab" or nil)
    see("format", string.format("%d", 7) == "7" or nil)
    see("utf8.len", utf8.len("caf\u{e9}") == 4 or nil)
    return inlay.schema(seen)
  ]])
  local want = {
    ["io"] = "nil", ["os"] = "nil", ["load"] = "nil", ["loadfile"] = "nil", ["dofile"] = "nil",
    ["debug"] = "nil", ["package"] = "nil", ["collectgarbage"] = "nil", ["print"] = "nil", ["warn"] = "nil",
    ["coroutine"] = "nil", ["getmetatable"] = "function", ["setmetatable"] = "function",
    ["pairs"] = "function", ["ipairs"] = "function", ["next"] = "function", ["select"] = "function",
    ["type"] = "function", ["tostring"] = "function", ["tonumber"] = "function", ["error"] = "function",
    ["assert"] = "function", ["pcall"] = "function", ["xpcall"] = "function", ["rawget"] = "function",
    ["rawset"] = "function", ["rawequal"] = "function", ["rawlen"] = "function", ["string"] = "table",
    ["table"] = "table", ["math"] = "table", ["utf8"] = "table", ["require"] = "function", ["inlay"] = "table",
    ["string.dump"] = "nil", ["method.dump"] = "nil", ["string.meta"] = "nil", ["math.randomseed"] = "nil",
    ["math.random"] = "function",
    ["inlay.open"] = "nil", ["inlay.csv"] = "nil", ["inlay.ndjson"] = "nil", ["inlay.source"] = "nil",
    ["inlay.infer"] = "nil", ["inlay.load_schema"] = "nil", ["inlay.pretty"] = "nil",
    ["inlay._source_open"] = "nil", ["inlay._infer"] = "nil", ["inlay._convert"] = "nil",
    ["inlay.schema"] = "function", ["inlay.timestamp"] = "function", ["inlay.time"] = "function",
    ["inlay.decimal"] = "function", ["inlay.fixed"] = "function", ["inlay.list"] = "function",
    ["inlay.struct"] = "function", ["inlay.map"] = "function", ["inlay.null"] = "userdata",
    ["inlay.version"] = "string", ["require.inlay"] = "boolean", ["rep"] = "boolean", ["format"] = "boolean",
    ["utf8.len"] = "boolean",
  }
  local count = 0
  for _, c in ipairs(s:columns()) do
    local k, v = c.name:match("^(.-)=(.*)$")
    T.eq(v, want[k], k)
    count = count + 1
  end
  local total = 0
  for _ in pairs(want) do total = total + 1 end
  T.eq(count, total, "names checked")
end)

T.case("the file's types and null are inlay's own", function()
  local s = inlay.load_schema(file [[
    local inlay = require "inlay"
    assert(inlay.null ~= nil)
    return inlay.schema {
      { "ts", inlay.timestamp("us", { utc = true }) },
      { "price", inlay.decimal(10, 2) },
      { "tags", inlay.list("string") },
      { "pos", inlay.struct { { "x", "float" }, { "y", "float" } } },
      { "attrs", inlay.map("string", "int64"), optional = true },
    }
  ]])
  T.eq(#s, 5)
  -- a schema from a file writes as any other
  local out = dir .. "/typed.parquet"
  local w = inlay.open(out, s)
  w:write { ts = 1, price = "1.25", tags = { "a", inlay.null }, pos = { x = 1, y = 2 } }
  T.eq(w:close().rows, 1)
end)

T.case("a file changes nothing the job or the next file sees", function()
  local path = file [[
    string.rep = nil
    string.format = function() return "file's" end
    table.concat = nil
    inlay.schema = nil
    leaked = true
    _G.also = true
    pcall(function() getmetatable("").__index = nil end)
    return nil
  ]]
  T.raises(function() inlay.load_schema(path) end, "must return a schema")
  T.eq(leaked, nil, "global set by the file")
  T.eq(also, nil, "global set through _G")
  T.eq(("x"):rep(3), "xxx", "string method after the file")
  T.eq(string.format("%d", 5), "5")
  T.eq(table.concat({ "a", "b" }), "ab")
  T.ok(string.dump ~= nil and ("").dump ~= nil, "the job's string.dump is left alone")
  T.eq(getmetatable("").__index, string, "strings index the job's string library again")
  -- the next file gets fresh copies
  local s = inlay.load_schema(file [[ return inlay.schema { { string.rep("a", 2), "int64" } } ]])
  T.eq(names(s), "aa")
end)

T.case("the string metatable is put back when the file fails", function()
  T.raises(function() inlay.load_schema(file "error('boom')") end, "boom")
  T.eq(getmetatable("").__index, string)
  T.raises(function() inlay.load_schema(file "local x = ('a'):rep(2) .. nil") end, "attempt to concatenate")
  T.eq(getmetatable("").__index, string)
  T.ok(("").dump ~= nil)
end)

T.case("what the file may use is taken when the module opens", function()
  local saved_tostring, saved_rep = tostring, string.rep
  tostring = function() return "job's" end
  string.rep = function() return "job's" end
  local ok, s = pcall(inlay.load_schema, file [[
    return inlay.schema { { tostring(12) .. ("x"):rep(2) .. string.rep("y", 2), "int64" } }
  ]])
  tostring, string.rep = saved_tostring, saved_rep
  T.ok(ok, tostring(s))
  T.eq(names(s), "12xxyy")
end)

T.case("getmetatable answers for tables only", function()
  local s = inlay.load_schema(file [[
    local t = setmetatable({}, { __index = { k = "v" } })
    local locked = setmetatable({}, { __metatable = "locked" })
    return inlay.schema {
      { getmetatable(t).__index.k, "int64" },
      { getmetatable(locked), "int64" },
      { "type:" .. tostring(getmetatable(inlay.list("string"))), "int64" },
      { "null:" .. tostring(getmetatable(inlay.null)), "int64" },
      { "string:" .. tostring(getmetatable("")), "int64" },
    }
  ]])
  T.eq(names(s), "v locked type:nil null:nil string:nil")
end)

T.case("bytecode is refused", function()
  local path = dir .. "/dumped.lua"
  T.write(path, string.dump(function() return inlay.schema { { "a", "int64" } } end))
  local err = T.raises(function() inlay.load_schema(path) end, "attempt to load a binary chunk")
  T.ok(err:find(path, 1, true), "the message names the file: " .. err)
end)

T.case("errors name the file and its line", function()
  local p = file "return 42"
  T.raises(function() inlay.load_schema(p) end, "inlay: " .. p .. " must return a schema (inlay.schema{...})")
  p = file "return { { 'a', 'int64' } }"
  T.raises(function() inlay.load_schema(p) end, "must return a schema")
  p = file "local inlay = require 'inlay'\n\nreturn inlay.schema { { 'x', 'int128' } }"
  T.raises(function() inlay.load_schema(p) end, "inlay: " .. p .. ":3: field 'x': unknown type 'int128'")
  p = file "local f = io.open('/etc/passwd')"
  T.raises(function() inlay.load_schema(p) end, "inlay: " .. p .. ":1: attempt to index a nil value (global 'io')")
  p = file("os.execute('touch " .. dir .. "/touched')")
  T.raises(function() inlay.load_schema(p) end, "global 'os'")
  T.ok(not T.exists(dir .. "/touched"))
  p = file "local lfs = require 'lfs'"
  T.raises(function() inlay.load_schema(p) end, "can only require \"inlay\", not \"lfs\"")
  p = file "return inlay.schema { { 'x', 'int64' }"
  T.raises(function() inlay.load_schema(p) end, "inlay: " .. p .. ":1:")
  T.raises(function() inlay.load_schema(dir .. "/none.lua") end, "cannot open " .. dir .. "/none.lua")
  T.raises(function() inlay.load_schema(file "return inlay.schema { { '\\xff', 'int64' } }") end,
           "field '\\xff': the name is not valid UTF-8")
  -- an error that is not a string goes through as it is
  local ok, e = pcall(inlay.load_schema, file "error({ code = 7 })")
  T.ok(not ok and type(e) == "table" and e.code == 7, "error object kept")
end)

T.case("a long path is named in full, where Lua's messages cut it", function()
  local long = T.tmpdir("schema_files/" .. string.rep("a_rather_long_folder_name/", 4))
  local p = long .. "/bad.lua"
  T.ok(#p > 80, "long enough")
  T.write(p, "local x = 1\nlocal f = io.open('x')")
  T.raises(function() inlay.load_schema(p) end, "inlay: " .. p .. ":2: attempt to index a nil value (global 'io')")
  T.write(p, "return inlay.schema {")
  T.raises(function() inlay.load_schema(p) end, "inlay: " .. p .. ":1: ")
  T.write(p, "\n\nerror('boom')")
  T.raises(function() inlay.load_schema(p) end, "inlay: " .. p .. ":3: boom")
  T.write(p, "return inlay.schema { { 'x', 'int128' } }")
  T.raises(function() inlay.load_schema(p) end, "inlay: " .. p .. ":1: field 'x': unknown type 'int128'")
end)

T.case("pcall inside the file works and its errors stay inside", function()
  local s = inlay.load_schema(file [[
    local ok, err = pcall(inlay.schema, { { "x", "int128" } })
    assert(not ok and err:find("unknown type", 1, true))
    return inlay.schema { { "ok", "int64" } }
  ]])
  T.eq(names(s), "ok")
end)

T.case("jobs keep full rights", function()
  T.eq(type(io.open), "function")
  T.eq(type(os.time), "function")
  T.eq(type(load), "function")
  T.eq(type(inlay.open), "function")
  T.eq(getmetatable(dofile(T.source .. "/schemas/trips.lua")).__name, "inlay.schema")
end)

T.finish()
