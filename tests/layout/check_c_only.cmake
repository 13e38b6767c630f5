# cmake -DCOMPILE_COMMANDS=build/compile_commands.json -P check_c_only.cmake
#
# Driver of layout_c_only, in builds with INLAY_LUA=OFF: the C library, its
# tests and examples compile without Lua and libedit. Fails if a compile
# command names Lua's or libedit's headers (Debian: -I/usr/include/lua5.4,
# -I/usr/include/editline) or a source of lua/.

if(NOT EXISTS "${COMPILE_COMMANDS}")
  message(FATAL_ERROR "${COMPILE_COMMANDS} is missing: the build must be configured with "
    "CMAKE_EXPORT_COMPILE_COMMANDS=ON (the top CMakeLists.txt sets it when INLAY_LUA=OFF)")
endif()
file(READ "${COMPILE_COMMANDS}" text)
string(REGEX MATCHALL "\"file\": *\"[^\"]*\"" files "${text}")
list(LENGTH files nfiles)
if(nfiles LESS 20)
  message(FATAL_ERROR "${COMPILE_COMMANDS} lists only ${nfiles} sources; the C library is not in it")
endif()
set(found)
foreach(pattern "lua5\\.[0-9]" "editline" "libedit" "/lua/l[a-z]+\\.c")
  string(REGEX MATCH "${pattern}" hit "${text}")
  if(hit)
    list(APPEND found "${hit}")
  endif()
endforeach()
if(found)
  list(JOIN found ", " found_text)
  message(FATAL_ERROR "the C-only build refers to Lua or libedit (${found_text}) in ${COMPILE_COMMANDS}")
endif()
message(STATUS "${nfiles} compile commands, none with Lua or libedit")
