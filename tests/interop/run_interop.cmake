# Driver of the `interop`, `interop_arrow` and `interop_skip` ctest tests (see
# CMakeLists.txt beside this file). Inputs: FIXTURES (the interop_fixtures,
# interop_arrow_fixtures or interop_skip_fixtures program), NODE, SOURCE_DIR
# (tests/interop, holding check.mjs and node_modules), WORK_DIR (made afresh),
# READ_DUMP (the interop_read_dump program: inlay's reader, given to check.mjs as
# INLAY_READ_DUMP). CHECK (optional): the checker script in SOURCE_DIR,
# check.mjs by default (interop_skip runs skip.mjs). READERS (optional): the
# readers check.mjs runs (INLAY_INTEROP_READERS; empty: all).

foreach(pkg @duckdb/node-api parquet-wasm apache-arrow hyparquet hyparquet-compressors)
  if(NOT EXISTS "${SOURCE_DIR}/node_modules/${pkg}/package.json")
    message(FATAL_ERROR
      "interop: the Node package ${pkg} is not installed in ${SOURCE_DIR}/node_modules.\n"
      "Run the install step first:  (cd ${SOURCE_DIR} && npm ci)\n"
      "or:  cmake --build <build dir> --target interop_npm_ci")
  endif()
endforeach()
if(NOT NODE OR NODE MATCHES "NOTFOUND$")
  message(FATAL_ERROR "interop: node (Node.js >= 20) was not found when configuring; install it and re-run cmake")
endif()

if(NOT CHECK)
  set(CHECK check.mjs)
endif()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# interop_fixtures exits 1 when libinlay failed to write some files (it names
# them and writes the rest); the rest are still checked before failing.
execute_process(COMMAND "${FIXTURES}" "${WORK_DIR}" RESULT_VARIABLE fixtures_rc)
get_filename_component(fixtures_name "${FIXTURES}" NAME)
if(NOT fixtures_rc EQUAL 0 AND NOT fixtures_rc EQUAL 1)
  message(FATAL_ERROR "interop: ${fixtures_name} failed (${fixtures_rc})")
endif()

execute_process(COMMAND "${CMAKE_COMMAND}" -E env "INLAY_READ_DUMP=${READ_DUMP}" "INLAY_INTEROP_READERS=${READERS}"
    "${NODE}" "${SOURCE_DIR}/${CHECK}" "${WORK_DIR}"
  WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE rc)
if(NOT fixtures_rc EQUAL 0)
  message(FATAL_ERROR "interop: libinlay could not write some fixture files (see FAIL above); "
    "${CHECK} exit ${rc} on the others; the files are in ${WORK_DIR}")
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "interop: ${CHECK} found problems (exit ${rc}); the files are in ${WORK_DIR}")
endif()
