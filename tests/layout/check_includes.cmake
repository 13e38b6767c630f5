# cmake -DSOURCE_DIR=<repo> -P check_includes.cmake
#
# The dependency rules, read from the sources themselves (the build enforces
# the runtime's through include paths; this also catches a relative path
# around them and covers the Lua binding):
#   - runtime/<stage>/ includes only its own headers, inlay.h, and the
#     headers of the stages its rule allows, by bare name (no "../");
#   - lua/ includes only headers of files below it in the binding's stack,
#     and of the core only inlay.h (inlay_lua.h is the binding's public
#     header, inlay_lua_chunk.h the generated inlay.lua).
cmake_policy(SET CMP0057 NEW)

set(rule_base)
set(rule_model base)
set(rule_encode model base)
set(rule_format model base)
set(rule_write format encode model base)
set(rule_input model base)
set(stages base model encode format write input)

set(problems)
foreach(stage ${stages})
  file(GLOB headers RELATIVE ${SOURCE_DIR}/runtime/${stage} ${SOURCE_DIR}/runtime/${stage}/*.h)
  set(owner_of_${stage} ${headers})
endforeach()

foreach(stage ${stages})
  file(GLOB files ${SOURCE_DIR}/runtime/${stage}/*.c ${SOURCE_DIR}/runtime/${stage}/*.h)
  set(allowed ${owner_of_${stage}} inlay.h)
  foreach(other ${rule_${stage}})
    list(APPEND allowed ${owner_of_${other}})
  endforeach()
  foreach(f ${files})
    file(STRINGS ${f} includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(line ${includes})
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" inc "${line}")
      if(NOT inc IN_LIST allowed)
        file(RELATIVE_PATH rel ${SOURCE_DIR} ${f})
        list(APPEND problems "${rel} includes \"${inc}\", which runtime/${stage}/ may not")
      endif()
    endforeach()
  endforeach()
endforeach()

# The Lua binding, bottom to top; a file may include the headers of files
# before it in this list, its own, and the core's public header.
set(stack lerror lconv lfmt lschema lnested lwriter ldataset lsource lreader lprint linit lembed)
set(tops lmodule lprobe main)
file(GLOB lua_files ${SOURCE_DIR}/lua/*.c ${SOURCE_DIR}/lua/*.h)
foreach(f ${lua_files})
  get_filename_component(base ${f} NAME_WE)
  list(FIND stack ${base} rank)
  set(allowed inlay.h inlay_lua.h inlay_lua_chunk.h ${base}.h)
  if(rank GREATER -1)
    math(EXPR last "${rank} - 1")
    if(last GREATER -1)
      foreach(i RANGE ${last})
        list(GET stack ${i} below)
        list(APPEND allowed ${below}.h)
      endforeach()
    endif()
  elseif(base IN_LIST tops)
    foreach(below ${stack})
      list(APPEND allowed ${below}.h)
    endforeach()
  else()
    file(RELATIVE_PATH rel ${SOURCE_DIR} ${f})
    list(APPEND problems "${rel} has no place in the binding's stack (add it to check_includes.cmake)")
  endif()
  file(STRINGS ${f} includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line ${includes})
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" inc "${line}")
    if(NOT inc IN_LIST allowed)
      file(RELATIVE_PATH rel ${SOURCE_DIR} ${f})
      list(APPEND problems "${rel} includes \"${inc}\", which is not below it in the binding's stack")
    endif()
  endforeach()
endforeach()

if(problems)
  list(JOIN problems "\n  " text)
  message(FATAL_ERROR "includes across the dependency rules:\n  ${text}")
endif()
message(STATUS "runtime/ stages and the lua/ stack include only what their rules allow")
