# Driver of the `interop_convert` ctest test (see CMakeLists.txt beside this
# file). Inputs: INLAY (the inlay program), NODE, SOURCE_DIR (tests/interop,
# holding convert_fixtures.lua, check.mjs and node_modules), WORK_DIR (made
# afresh), READ_DUMP (the interop_read_dump program: inlay's reader, given to
# check.mjs as INLAY_READ_DUMP), READERS (optional: the readers check.mjs
# runs, INLAY_INTEROP_READERS; empty: all).

foreach(pkg @duckdb/node-api parquet-wasm apache-arrow hyparquet hyparquet-compressors)
  if(NOT EXISTS "${SOURCE_DIR}/node_modules/${pkg}/package.json")
    message(FATAL_ERROR
      "interop_convert: the Node package ${pkg} is not installed in ${SOURCE_DIR}/node_modules.\n"
      "Run the install step first:  (cd ${SOURCE_DIR} && npm ci)\n"
      "or:  cmake --build <build dir> --target interop_npm_ci")
  endif()
endforeach()
if(NOT NODE OR NODE MATCHES "NOTFOUND$")
  message(FATAL_ERROR "interop_convert: node (Node.js >= 20) was not found when configuring; install it and re-run cmake")
endif()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# convert_fixtures.lua writes the CSV/NDJSON inputs, converts them and writes
# NAME.parquet + NAME.json. It exits 1 when some inputs could not be
# converted (it names them and writes the rest); the rest are still checked
# before failing.
execute_process(COMMAND "${INLAY}" run "${SOURCE_DIR}/convert_fixtures.lua" "${WORK_DIR}"
  RESULT_VARIABLE convert_rc)
if(NOT convert_rc EQUAL 0 AND NOT convert_rc EQUAL 1)
  message(FATAL_ERROR "interop_convert: convert_fixtures.lua failed (${convert_rc})")
endif()

execute_process(COMMAND "${CMAKE_COMMAND}" -E env "INLAY_READ_DUMP=${READ_DUMP}" "INLAY_INTEROP_READERS=${READERS}"
    "${NODE}" "${SOURCE_DIR}/check.mjs" "${WORK_DIR}"
  WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE rc)
if(NOT convert_rc EQUAL 0)
  message(FATAL_ERROR "interop_convert: inlay could not convert some inputs (see FAIL above); "
    "check.mjs exit ${rc} on the others; the files are in ${WORK_DIR}")
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "interop_convert: check.mjs found problems (exit ${rc}); the files are in ${WORK_DIR}")
endif()
