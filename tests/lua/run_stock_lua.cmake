# Driver of the lua_stock_require test (see CMakeLists.txt beside this file).
# Inputs: LUA (lua5.4), BUILD_PARENT and BUILD_NAME (the build folder, which
# holds inlay.so), SCRIPT (stock_lua.lua), WORK (made afresh), PRELOAD (the
# sanitizer runtime, in sanitizer builds).

if(NOT LUA OR LUA MATCHES "NOTFOUND$")
  message(FATAL_ERROR "lua5.4 was not found when configuring (apt-get install lua5.4)")
endif()
if(PRELOAD)
  set(ENV{LD_PRELOAD} "${PRELOAD}")
endif()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

# The README's command, as written, from the folder above the build folder.
execute_process(
  COMMAND ${LUA} -e "package.cpath=\"${BUILD_NAME}/?.so;\"..package.cpath" -e "require \"inlay\""
  WORKING_DIRECTORY "${BUILD_PARENT}" RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "require \"inlay\" under lua5.4 failed (${rc}): ${err}")
endif()

# A small job under lua5.4: writes a file, leaves a second writer to the
# collector, which must publish nothing when the interpreter exits.
execute_process(
  COMMAND ${LUA} -e "package.cpath=\"${BUILD_PARENT}/${BUILD_NAME}/?.so;\"..package.cpath" "${SCRIPT}" "${WORK}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out STREQUAL "ok 100\n")
  message(FATAL_ERROR "stock_lua.lua failed (${rc}): ${out}${err}")
endif()
file(GLOB left RELATIVE "${WORK}" "${WORK}/*")
if(NOT left STREQUAL "stock.parquet")
  message(FATAL_ERROR "expected only stock.parquet in ${WORK}, found: ${left}")
endif()
