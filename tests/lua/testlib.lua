-- testlib.lua — the little the Lua tests share. Each test file is run by
-- the `inlay` program under ctest (see CMakeLists.txt here), which sets:
--
--   INLAY_TEST_TMP     a folder of the test's own, emptied first
--   INLAY_NODE         node, to read files back with DuckDB
--   INLAY_BIN          the inlay program (for the tests of the command)
--   INLAY_SOURCE_DIR   the repository
--
-- A test is a list of T.case(name, fn); a failing check raises, the case
-- is reported and the others still run; T.finish() exits non-zero when any
-- failed.

local T = {}

T.here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
T.source = os.getenv("INLAY_SOURCE_DIR") or (T.here .. "/../..")
T.bin = os.getenv("INLAY_BIN") or "inlay"

local failures, cases, checks = {}, 0, 0

local function fmt(v)
  if type(v) == "string" then return string.format("%q", v) end
  return tostring(v)
end

function T.fail(msg, level)
  error(msg, (level or 1) + 1)
end

function T.ok(cond, msg)
  checks = checks + 1
  if not cond then error(msg or "check failed", 2) end
  return cond
end

function T.eq(got, want, what)
  checks = checks + 1
  local same = got == want or (got ~= got and want ~= want)   -- NaN equals NaN here
  if not same then
    error(string.format("%s: expected %s, got %s", what or "value", fmt(want), fmt(got)), 2)
  end
end

-- Runs fn, which must raise; the message must contain `want` (plain text).
function T.raises(fn, want, what)
  checks = checks + 1
  local ok, err = pcall(fn)
  if ok then error(string.format("%s: expected an error containing %q, none raised", what or "call", want), 2) end
  err = tostring(err)
  if not err:find(want, 1, true) then
    error(string.format("%s: expected an error containing %q, got %q", what or "call", want, err), 2)
  end
  return err
end

function T.case(name, fn)
  cases = cases + 1
  local ok, err = xpcall(fn, debug.traceback)
  if ok then
    io.write("ok   ", name, "\n")
  else
    io.write("FAIL ", name, "\n  ", tostring(err):gsub("\n", "\n  "), "\n")
    failures[#failures + 1] = name
  end
  io.flush()
end

function T.finish()
  io.write(string.format("%d cases, %d checks, %d failed\n", cases, checks, #failures))
  collectgarbage()
  collectgarbage()
  if #failures > 0 then
    io.stderr:write("failed: ", table.concat(failures, ", "), "\n")
    os.exit(1)
  end
end

-- ---- files ------------------------------------------------------------------

local function shell_quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end
T.quote = shell_quote

local tmp_root = os.getenv("INLAY_TEST_TMP") or os.tmpname() .. ".d"
assert(os.execute("rm -rf " .. shell_quote(tmp_root) .. " && mkdir -p " .. shell_quote(tmp_root)))

-- A fresh empty folder under the test's temporary folder.
function T.tmpdir(name)
  local d = tmp_root .. "/" .. name
  assert(os.execute("rm -rf " .. shell_quote(d) .. " && mkdir -p " .. shell_quote(d)))
  return d
end

function T.read(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

function T.write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

function T.exists(path)
  local f = io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end

-- The names in a folder, sorted.
function T.ls(dir)
  local p = assert(io.popen("ls -A " .. shell_quote(dir)))
  local names = {}
  for line in p:lines() do names[#names + 1] = line end
  p:close()
  table.sort(names)
  return names
end

-- Runs a shell command; returns stdout, stderr, exit code.
function T.run(cmd, stdin)
  local dir = T.tmpdir(".run")
  local input = ""
  if stdin then
    T.write(dir .. "/in", stdin)
    input = " < " .. shell_quote(dir .. "/in")
  end
  local ok, how, code = os.execute("(" .. cmd .. ")" .. input .. " > " .. shell_quote(dir .. "/out") ..
                                   " 2> " .. shell_quote(dir .. "/err"))
  return T.read(dir .. "/out"), T.read(dir .. "/err"), how == "exit" and code or 128 + code
end

-- ---- reading back with DuckDB -----------------------------------------------

-- What DuckDB sees in each file (see duckdb_read.mjs); raises when node or
-- its packages are missing: a test must fail, not skip.
function T.duckdb(...)
  local files = { ... }
  local node = os.getenv("INLAY_NODE")
  if not node or node == "" or node:match("NOTFOUND$") then
    T.fail("INLAY_NODE is not set: node is needed to read files back with DuckDB", 2)
  end
  local cmd = shell_quote(node) .. " " .. shell_quote(T.here .. "/duckdb_read.mjs")
  for _, f in ipairs(files) do cmd = cmd .. " " .. shell_quote(f) end
  local out, err, code = T.run(cmd)
  if code ~= 0 then T.fail("reading with DuckDB failed (" .. code .. "): " .. (err or ""), 2) end
  local chunk = assert(load(out, "=duckdb_read"))
  local all = chunk()
  if #files == 1 then return all[files[1]] end
  return all
end

-- A time/timestamp as DuckDB prints it ("123us") equals v in unit `unit`.
local unit_ns = { s = 1000000000, ms = 1000000, us = 1000, ns = 1 }
function T.same_instant(got, v, unit)
  local n, u = got:match("^(%-?%d+)(%a+)$")
  if not n then return false end
  n = math.tointeger(tonumber(n))
  return n * unit_ns[u] == v * unit_ns[unit]
end

return T
