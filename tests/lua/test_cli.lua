-- The `inlay` command: jobs and their `arg`, -e, --help/--version, the
-- REPL driven through a pipe, and a job failing mid-write.

local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/testlib.lua")
local q = T.quote
local bin = q(T.bin)

local function job(dir, name, text)
  local p = dir .. "/" .. name
  T.write(p, text)
  return p
end

T.case("--version, --help, bad options", function()
  local out, _, code = T.run(bin .. " --version")
  T.eq(code, 0, "exit code")
  T.ok(out:match("^inlay %d+%.%d+%.%d+ %(Lua 5%.4"), "version: " .. out)
  out, _, code = T.run(bin .. " --help")
  T.eq(code, 0, "exit code")
  T.ok(out:find("usage: inlay", 1, true) and out:find("inlay run [--max-memory SIZE] [--max-instructions N] JOB.lua", 1, true), "help")
  local _, err
  _, err, code = T.run(bin .. " -z")
  T.ok(code == 2 and err:find("unknown option '-z'", 1, true), "bad option: " .. err)
  _, err, code = T.run(bin .. " convert /nonexistent/a.csv b.parquet")
  T.ok(code == 3 and err:find("cannot open '/nonexistent/a.csv'", 1, true), "convert of a missing file: " .. err)
  _, err, code = T.run(bin .. " convert a.csv")
  T.ok(code == 2 and err:find("expected IN and OUT", 1, true), "convert without OUT: " .. err)
  _, err, code = T.run(bin .. " convert a.csv b.parquet --bogus")
  T.ok(code == 2 and err:find("unknown option '--bogus'", 1, true), "convert, bad option: " .. err)
end)

T.case("-e runs a chunk", function()
  local out, err, code = T.run(bin .. " -e 'print(1 + 1)' -e 'print(inlay.version, require(\"inlay\") == inlay)'")
  T.eq(code, 0, "exit code " .. err)
  T.eq(out, "2\n0.1.0\ttrue\n", "output")
  local _, err2, code2 = T.run(bin .. " -e 'error(\"nope\")'")
  T.ok(code2 ~= 0, "error exit code")
  T.ok(err2:find("^inlay: %(command line%):1: nope"), "message: " .. err2)
end)

T.case("jobs get arg and ... as in lua5.4", function()
  local dir = T.tmpdir("args")
  local p = job(dir, "args.lua", [[
    local inlay = require "inlay"
    print(arg[0], arg[1], arg[2], #arg, select("#", ...), ...)
    print(arg[-1])
  ]])
  local out, err, code = T.run(bin .. " run " .. q(p) .. " a 'b c'")
  T.eq(code, 0, "exit code " .. err)
  T.eq(out, p .. "\ta\tb c\t2\t2\ta\tb c\nrun\n", "run form")
  out, err, code = T.run(bin .. " " .. q(p) .. " a 'b c'")
  T.eq(code, 0, "exit code " .. err)
  T.eq(out, p .. "\ta\tb c\t2\t2\ta\tb c\n" .. T.bin .. "\n", "short form")
  out, err, code = T.run(bin .. " -", "print('from stdin', ...)")
  T.eq(out, "from stdin\n", "job from stdin " .. err)
end)

local writing_job = [[
  local inlay = require "inlay"
  local out = arg[1]
  local s = inlay.schema { { "id", "int64" }, { "name", "string" } }
  %s
  for i = 1, 5000 do w:write { id = i, name = "n" .. i } end
  %s
]]

T.case("a job failing mid-write leaves no file", function()
  local variants = {
    { "plain writer, error()", "local w = inlay.open(out, s)", "error('boom')", "boom" },
    { "<close> writer, error()", "local w <close> = inlay.open(out, s)", "error('boom')", "boom" },
    { "bad value", "local w = inlay.open(out, s)", "w:write { id = 'x', name = 'y' }",
      "inlay: column 'id' row 5001: expected integer, got string" },
    { "os.exit", "local w = inlay.open(out, s)", "os.exit(3)", nil, 3 },
    { "never closed", "local w = inlay.open(out, s)", "", nil, 0 },
  }
  for _, v in ipairs(variants) do
    local name, open, fail, msg, want_code = v[1], v[2], v[3], v[4], v[5]
    local dir = T.tmpdir("fail")
    local p = job(dir, "job.lua", string.format(writing_job, open, fail))
    local out_file = dir .. "/out/data.parquet"
    os.execute("mkdir -p " .. q(dir .. "/out"))
    local _, err, code = T.run(bin .. " run " .. q(p) .. " " .. q(out_file))
    if want_code then T.eq(code, want_code, name .. ": exit code") else T.ok(code ~= 0, name .. ": exit code") end
    if msg then
      T.ok(err:find("^inlay: ") and not err:find("^inlay: inlay: "), name .. ": one prefix: " .. err)
      T.ok(err:find(msg, 1, true), name .. ": message: " .. err)
    end
    T.eq(#T.ls(dir .. "/out"), 0, name .. ": files in the output folder")
  end
end)

T.case("a job that closes its writer publishes it", function()
  local dir = T.tmpdir("ok")
  local p = job(dir, "job.lua", string.format(writing_job, "local w = inlay.open(out, s)",
                                              "print(w:close().rows)"))
  local out, err, code = T.run(bin .. " run " .. q(p) .. " " .. q(dir .. "/data.parquet"))
  T.eq(code, 0, "exit code " .. err)
  T.eq(out, "5000\n", "output")
  T.eq(T.duckdb(dir .. "/data.parquet").rows, 5000, "rows")
end)

T.case("--max-memory and --max-instructions end a runaway job, not a good one", function()
  local dir = T.tmpdir("limits")
  local loop = job(dir, "loop.lua", "local n = 0 while true do n = n + 1 end")
  local hog = job(dir, "hog.lua", "local t = {} for i = 1, math.huge do t[i] = string.rep('x', 100) .. i end")
  local good = job(dir, "good.lua", [[
    local inlay = require "inlay"
    local w = inlay.open(arg[1], inlay.schema { { "id", "int64" } })
    for i = 1, 20000 do w:row(i) end
    print(w:close().rows, arg[2])
  ]])
  local _, err, code = T.run(bin .. " run --max-instructions 2000000 " .. q(loop))
  T.ok(code ~= 0 and err:find("instruction budget of 2000000 exceeded", 1, true), "endless loop: " .. err)
  _, err, code = T.run(bin .. " --max-memory=16M " .. q(hog))
  T.ok(code ~= 0 and err:find("not enough memory", 1, true), "unbounded allocation: " .. err)
  local out
  out, err, code = T.run(bin .. " run --max-memory 64M --max-instructions=50M " .. q(good) .. " " ..
                         q(dir .. "/good.parquet") .. " x")
  T.eq(code, 0, "a job within its limits: " .. err)
  T.eq(out, "20000\tx\n", "its output")
  _, err, code = T.run(bin .. " run --max-memory lots " .. q(good))
  T.ok(code ~= 0 and err:find("--max-memory needs a positive size", 1, true), "bad size: " .. err)
end)

T.case("the REPL through a pipe", function()
  local dir = T.tmpdir("repl")
  local input = table.concat({
    "1 + 1",
    "function f(x)",
    "  return x * 2",
    "end",
    "f(21)",
    "=3 * 3",
    "t = {",
    "  a = 1,",
    "  b = { 2, 3 },",
    "}",
    "t",
    "'text', nil, 4.5",
    "error('oops')",
    "local s = inlay.schema { { 'id', 'int64' }, { 'name', 'string', optional = true } }; S = s",
    "S",
    "W = inlay.open(" .. string.format("%q", dir .. "/r.parquet") .. ", S)",
    "W:row(1, 'a')",
    "W",
    "W:close().rows",
    "inlay.null",
    "for i = 1, 2 do",
    "  print('loop', i)",
    "end",
    "",
  }, "\n")
  local out, err, code = T.run(bin, input)
  T.eq(code, 0, "exit code")
  local want = table.concat({
    "2",
    "42",
    "9",
    "{ a = 1, b = { 2, 3 } }",
    "text\tnil\t4.5",
    "message schema {",
    "  required int64 id (INTEGER(64,true));",
    "  optional binary name (STRING);",
    "}",
    "inlay.writer { path = " .. string.format("%q", dir .. "/r.parquet") .. ", state = \"open\", rows = 1, row_groups = 0, bytes = 4 }",
    "1",
    "inlay.null",
    "loop\t1",
    "loop\t2",
    "",
  }, "\n")
  T.eq(out, want, "REPL output")
  T.ok(err:find("oops", 1, true), "the error on stderr: " .. err)
  T.eq(T.duckdb(dir .. "/r.parquet").rows, 1, "file written from the REPL")
end)

T.finish()
