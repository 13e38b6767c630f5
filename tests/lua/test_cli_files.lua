-- `inlay convert` and `inlay run` never destroy a file: every case that
-- could overwrite or replace one without --force is refused with a message
-- and its exit status, and the file is byte for byte what it was; --force
-- replaces atomically; `-` streams to stdout; SIGTERM and SIGINT leave no
-- temporary and the previous file intact.

local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/testlib.lua")
local q = T.quote
local bin = q(T.bin)

local CSV = "id,name\n1,a\n2,b\n3,c\n"

-- Runs `inlay convert ARGS` in dir; returns stdout, stderr, exit status.
local function convert(dir, args, stdin)
  return T.run("cd " .. q(dir) .. " && " .. bin .. " convert " .. args, stdin)
end

-- Every name in dir, with its bytes for regular files (a FIFO is not
-- opened: that would block).
local function snapshot(dir)
  local regular = {}
  local p = assert(io.popen("find " .. q(dir) .. " -maxdepth 1 -type f -printf '%f\\n'"))
  for name in p:lines() do regular[name] = true end
  p:close()
  local files = {}
  for _, name in ipairs(T.ls(dir)) do
    files[name] = regular[name] and T.read(dir .. "/" .. name) or "(not a regular file)"
  end
  return files
end

local function same_files(dir, before, what)
  local after = snapshot(dir)
  for name, bytes in pairs(before) do
    T.ok(after[name] == bytes, what .. ": " .. name .. " is unchanged")
  end
  for name in pairs(after) do T.ok(before[name] ~= nil, what .. ": no new file " .. name) end
end

-- A refused command: its status, a message, and nothing changed in dir.
local function refused(dir, args, want_code, want_msg, stdin)
  local before = snapshot(dir)
  local _, err, code = convert(dir, args, stdin)
  T.eq(code, want_code, args .. ": exit status (" .. err .. ")")
  T.ok(err:find(want_msg, 1, true), args .. ": message: " .. err)
  same_files(dir, before, args)
end

T.case("destructive conversions are refused and change nothing", function()
  local dir = T.tmpdir("refused")
  T.write(dir .. "/x.csv", CSV)
  T.write(dir .. "/old.parquet", "not really parquet, but someone's file\n")
  T.write(dir .. "/old.rej", "earlier rejects\n")
  os.execute("cd " .. q(dir) .. " && ln -s x.csv link.csv && ln x.csv hard.csv && mkdir folder && mkfifo pipe" ..
             " && ln -s pipe pipe.link")

  refused(dir, "x.csv x.csv", 2, "'x.csv' is the input")
  refused(dir, "x.csv link.csv --force", 2, "'link.csv' is the input")
  refused(dir, "x.csv hard.csv -f", 2, "'hard.csv' is the input")
  refused(dir, "x.csv old.parquet", 2, "'old.parquet' exists (--force replaces it)")
  refused(dir, "x.csv folder", 2, "'folder' is a directory, not a file")
  refused(dir, "x.csv folder --force", 2, "'folder' is a directory, not a file")
  refused(dir, "x.csv pipe -f", 2, "'pipe' is a fifo, not a file")
  refused(dir, "x.csv pipe.link -f", 2, "'pipe.link' is a fifo, not a file")
  refused(dir, "x.csv new.parquet --reject x.csv", 2, "the reject file 'x.csv' is the input")
  refused(dir, "x.csv new.parquet --reject link.csv", 2, "the reject file 'link.csv' is the input")
  refused(dir, "x.csv new.parquet --reject new.parquet", 2, "the reject file 'new.parquet' is the output")
  refused(dir, "x.csv old.parquet -f --reject old.parquet", 2, "the reject file 'old.parquet' is the output")
  refused(dir, "x.csv new.parquet --reject old.rej", 2, "the reject file 'old.rej' exists")
  refused(dir, "--on-error=fail --reject r.rej x.csv new.parquet", 2, "--reject needs --on-error skip")
  -- stdin redirected from the output itself
  refused(dir, "- old.parquet --force < old.parquet", 2, "'old.parquet' is the input")
  -- a missing input is an I/O failure, and nothing appears
  refused(dir, "missing.csv new.parquet", 3, "cannot open 'missing.csv'")
  refused(dir, "folder new.parquet", 3, "'folder' is a directory")
end)

T.case("--force replaces atomically; a failed conversion leaves the old file", function()
  local dir = T.tmpdir("force")
  T.write(dir .. "/x.csv", CSV)
  T.write(dir .. "/out.parquet", "the previous file\n")
  local _, err, code = convert(dir, "-q x.csv out.parquet --force")
  T.eq(code, 0, "--force: " .. err)
  local got = T.duckdb(dir .. "/out.parquet")
  T.eq(got.rows, 3, "rows after --force")
  T.eq(got.values.name[3], "c", "a value")
  T.eq(table.concat(T.ls(dir), " "), "out.parquet x.csv", "no temporary left")

  -- bad data: exit 1, the file from before untouched
  T.write(dir .. "/bad.csv", "id,name\n1,a\nzz,b\n")
  local before = T.read(dir .. "/out.parquet")
  _, err, code = convert(dir, "-qf --types id=int64 bad.csv out.parquet")
  T.eq(code, 1, "bad data: exit status (" .. err .. ")")
  T.ok(err:find("zz", 1, true), "the bad value is named: " .. err)
  T.eq(T.read(dir .. "/out.parquet"), before, "the previous file is intact")
  T.eq(table.concat(T.ls(dir), " "), "bad.csv out.parquet x.csv", "no temporary left")
end)

T.case("an output that cannot be written: exit 3, the system's reason, nothing left", function()
  local dir = T.tmpdir("full")
  local big = { "id,name" }
  for i = 1, 50000 do big[#big + 1] = i .. ",someone number " .. i end
  T.write(dir .. "/big.csv", table.concat(big, "\n") .. "\n")
  -- files may not grow past 64 KiB here: writing fails with EFBIG as a full
  -- disk fails with ENOSPC (SIGXFSZ ignored, so the write returns the error)
  local _, err, code = T.run("cd " .. q(dir) .. " && trap '' XFSZ && ulimit -f 128 && " .. bin ..
                             " convert -q --compression uncompressed big.csv out.parquet")
  T.eq(code, 3, "exit status (" .. err .. ")")
  T.ok(err:find("File too large", 1, true), "the system's reason: " .. err)
  T.eq(table.concat(T.ls(dir), " "), "big.csv", "no output, no temporary")
  -- the same through stdout: the stream ends, without a footer
  _, err, code = T.run("cd " .. q(dir) .. " && trap '' XFSZ && ulimit -f 128 && " .. bin ..
                       " convert -q --compression uncompressed big.csv - > streamed.parquet")
  T.eq(code, 3, "to stdout: exit status (" .. err .. ")")
  local bytes = T.read(dir .. "/streamed.parquet") or ""
  T.ok(#bytes > 0 and bytes:sub(-4) ~= "PAR1", "the cut stream has no footer")
end)

T.case("- streams the file to stdout", function()
  local dir = T.tmpdir("stdout")
  T.write(dir .. "/x.csv", CSV)
  local _, err, code = T.run("cd " .. q(dir) .. " && " .. bin .. " convert -q x.csv - > piped.parquet")
  T.eq(code, 0, "to a file through the shell: " .. err)
  T.eq(T.duckdb(dir .. "/piped.parquet").rows, 3, "DuckDB reads what was streamed")
  _, err, code = T.run("cd " .. q(dir) .. " && " .. bin .. " convert -q x.csv - | cat > catted.parquet")
  T.eq(code, 0, "through a pipe: " .. err)
  T.eq(T.read(dir .. "/catted.parquet"), T.read(dir .. "/piped.parquet"), "the same bytes through a pipe")
  local got = T.duckdb(dir .. "/catted.parquet")
  T.eq(got.values.id[2], "2", "a value")
  T.ok(not T.exists(dir .. "/-"), "no file named -")
  -- `-- -` is still stdout; a file named -x.csv is reached after --
  T.write(dir .. "/-x.csv", CSV)
  _, err, code = T.run("cd " .. q(dir) .. " && " .. bin .. " convert -q -- -x.csv dashed.parquet")
  T.eq(code, 0, "-- ends the options: " .. err)
  T.eq(T.duckdb(dir .. "/dashed.parquet").rows, 3, "the file named -x.csv")
end)

T.case("options: --opt=value, combined flags, unknown ones named, exit statuses in --help", function()
  local dir = T.tmpdir("options")
  T.write(dir .. "/x.csv", CSV)
  local out, err, code = convert(dir, "--help")
  T.eq(code, 0, "--help")
  T.ok(out:find("exit status: 0 done; 1 bad data", 1, true) and out:find("3 input or output", 1, true),
       "exit statuses documented: " .. out)
  _, err, code = convert(dir, "--compression=uncompressed --threads=1 -fq x.csv a.parquet")
  T.eq(code, 0, "--opt=value and -fq: " .. err)
  T.eq(err, "", "-q: nothing on stderr")
  T.eq(T.duckdb(dir .. "/a.parquet").chunks.id.compression, "UNCOMPRESSED", "--compression=uncompressed applied")
  _, err, code = convert(dir, "x.csv b.parquet --bogus")
  T.eq(code, 2, "unknown long option: " .. err)
  T.ok(err:find("unknown option '--bogus'", 1, true), "named: " .. err)
  _, err, code = convert(dir, "-qz x.csv b.parquet")
  T.eq(code, 2, "unknown short option: " .. err)
  T.ok(err:find("unknown option '-z'", 1, true), "named: " .. err)
  _, err, code = convert(dir, "x.csv b.parquet --threads")
  T.ok(code == 2 and err:find("option '--threads' needs a value", 1, true), "missing value: " .. err)
  _, err, code = convert(dir, "x.csv b.parquet --quiet=yes")
  T.ok(code == 2 and err:find("option '--quiet' takes no value", 1, true), "value for a flag: " .. err)
  _, err, code = convert(dir, "x.csv b.parquet --threads 65")
  T.ok(code == 2 and err:find("--threads is 1 to 64, got 65", 1, true), "bad value: " .. err)
  T.ok(not T.exists(dir .. "/b.parquet"), "no output after a usage error")

  -- the top level too
  _, err, code = T.run(bin .. " -z")
  T.ok(code == 2 and err:find("unknown option '-z'", 1, true), "top level, unknown short: " .. err)
  _, err, code = T.run(bin .. " --frobnicate")
  T.ok(code == 2 and err:find("unknown option '--frobnicate'", 1, true), "top level, unknown long: " .. err)
  _, err, code = T.run(bin .. " -e")
  T.ok(code == 2 and err:find("option '-e' needs a value", 1, true), "-e without code: " .. err)
  out, err, code = T.run(bin .. " -ve 'print(6 * 7)'")
  T.eq(code, 0, "-ve: " .. err)
  T.ok(out:match("^inlay [%d.]+ %(Lua 5%.4[^\n]*\n42\n$"), "-v then the chunk: " .. out)
  out, err, code = T.run(bin .. " '-eprint(1)'")
  T.eq(out, "1\n", "-eCODE " .. err)
  _, err, code = T.run(bin .. " run -i job.lua")
  T.ok(code == 2 and err:find("unknown option '-i' for inlay run", 1, true), "run takes no -i: " .. err)
  _, err, code = T.run(bin .. " run")
  T.ok(code == 2 and err:find("inlay run needs a job", 1, true), "run without a job: " .. err)
  out, err, code = T.run(bin .. " --help")
  T.ok(code == 0 and out:find("exit status", 1, true), "--help documents exit statuses")
end)

-- Starts `cmd` in the background with its stdin fed slowly (the first part,
-- then nothing for 30 s), waits until a temporary of target exists, sends
-- sig, and returns the exit status and what is left in dir.
local function interrupt(dir, cmd, first_part, target, sig)
  T.write(dir .. "/first", first_part)
  local script = dir .. "/interrupt.sh"
  T.write(script, table.concat({
    "cd " .. q(dir),
    "sh -c 'echo $$ > feeder.pid; cat first; exec sleep 30' | " .. cmd .. " 2> stderr &",
    "pid=$!",
    "i=0",
    "while [ $i -lt 100 ] && ! ls " .. q("." .. target) .. ".*.tmp > /dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done",
    "ls " .. q("." .. target) .. ".*.tmp > /dev/null 2>&1 && echo temp-seen",
    "kill -" .. sig .. " $pid",
    "sleep 0.5",
    "kill $(cat feeder.pid) 2>/dev/null",   -- wait waits for the whole pipeline
    "wait $pid",
    "echo status=$?",
    "exit 0",
  }, "\n") .. "\n")
  local out = T.run("sh " .. q(script))
  return tonumber(out:match("status=(%d+)")), out:find("temp-seen", 1, true) ~= nil
end

local function rows(n)
  local t = { "id,name" }
  for i = 1, n do t[#t + 1] = i .. ",name" .. i end
  return table.concat(t, "\n") .. "\n"
end

T.case("SIGTERM and SIGINT: no temporary, the previous file intact, 143 and 130", function()
  for _, sig in ipairs({ { "TERM", 143 }, { "INT", 130 } }) do
    local dir = T.tmpdir("signal-" .. sig[1])
    T.write(dir .. "/out.parquet", "the previous file\n")
    -- more than the sample inference takes from stdin (8 MiB), so the
    -- writer is open and the conversion waits for the rest
    local status, seen = interrupt(dir, bin .. " convert -q --force - out.parquet", rows(800000), "out.parquet",
                                   sig[1])
    T.ok(seen, sig[1] .. ": convert was writing its temporary when the signal came")
    T.eq(status, sig[2], sig[1] .. ": convert's exit status")
    T.eq(T.read(dir .. "/out.parquet"), "the previous file\n", sig[1] .. ": the previous file is intact")
    for _, name in ipairs(T.ls(dir)) do T.ok(not name:find("%.tmp$"), sig[1] .. ": temporary left: " .. name) end

    -- a job, blocked reading its stdin while its writer is open
    T.write(dir .. "/job.lua", [[
      local w <close> = inlay.open(arg[1], inlay.schema { { "line", "string" } })
      for line in io.lines() do w:row(line) end
    ]])
    status, seen = interrupt(dir, bin .. " run job.lua job.parquet", "one\ntwo\n", "job.parquet", sig[1])
    T.ok(seen, sig[1] .. ": the job had its temporary open")
    T.eq(status, sig[2], sig[1] .. ": the job's exit status")
    T.ok(not T.exists(dir .. "/job.parquet"), sig[1] .. ": nothing published by the job")
    for _, name in ipairs(T.ls(dir)) do T.ok(not name:find("%.tmp$"), sig[1] .. ": temporary left: " .. name) end
  end
end)

T.case("a signal while the writer creates its temporary waits until the command lists it", function()
  -- slow_lock.c holds the writer a second between creating its temporary
  -- and returning to the command; the signal is sent as soon as the file
  -- shows up, so it lands there
  local preload = os.getenv("INLAY_SLOW_LOCK")
  T.ok(preload and preload ~= "", "INLAY_SLOW_LOCK names the library to preload")
  local slow = "LD_PRELOAD=" .. q(preload) .. " " .. bin
  local job = [[
    local w <close> = inlay.open(arg[1], inlay.schema { { "line", "string" } })
    for line in io.lines() do w:row(line) end
  ]]
  local cases = {
    { "TERM", 143, "run job.lua job.parquet", "one\ntwo\n", "job.parquet" },
    { "INT", 130, "run job.lua job.parquet", "one\ntwo\n", "job.parquet" },
    { "TERM", 143, "convert -q - out.parquet", rows(800000), "out.parquet" },
  }
  for _, c in ipairs(cases) do
    local what = c[1] .. " " .. c[3]
    local dir = T.tmpdir("signal-opening")
    T.write(dir .. "/job.lua", job)
    local status, seen = interrupt(dir, slow .. " " .. c[3], c[4], c[5], c[1])
    T.ok(seen, what .. ": the temporary was there when the signal came")
    T.ok(T.exists(dir .. "/slow-lock-used"), what .. ": the writer was held in its open")
    T.eq(status, c[2], what .. ": exit status")
    T.ok(not T.exists(dir .. "/" .. c[5]), what .. ": nothing published")
    for _, name in ipairs(T.ls(dir)) do T.ok(not name:find("%.tmp$"), what .. ": temporary left: " .. name) end
  end
end)

T.finish()
