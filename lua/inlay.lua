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
