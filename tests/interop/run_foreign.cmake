# Driver of the `interop_foreign` ctest test (see CMakeLists.txt beside this
# file). Inputs: HANDMADE (the interop_handmade program), READ_DUMP (the
# interop_read_dump program: inlay's reader), NODE, SOURCE_DIR
# (tests/interop, holding foreign.mjs and node_modules), WORK_DIR (made
# afresh), BIG_ROWS (rows of the big files; 100,000 unless given).

foreach(pkg @duckdb/node-api parquet-wasm apache-arrow)
  if(NOT EXISTS "${SOURCE_DIR}/node_modules/${pkg}/package.json")
    message(FATAL_ERROR
      "interop_foreign: the Node package ${pkg} is not installed in ${SOURCE_DIR}/node_modules.\n"
      "Run the install step first:  (cd ${SOURCE_DIR} && npm ci)\n"
      "or:  cmake --build <build dir> --target interop_npm_ci")
  endif()
endforeach()
if(NOT NODE OR NODE MATCHES "NOTFOUND$")
  message(FATAL_ERROR "interop_foreign: node (Node.js >= 20) was not found when configuring; install it and re-run cmake")
endif()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# the hand-made files (INT96, legacy lists, ...) with their JSON
execute_process(COMMAND "${HANDMADE}" "${WORK_DIR}" RESULT_VARIABLE hand_rc)
if(NOT hand_rc EQUAL 0)
  message(FATAL_ERROR "interop_foreign: interop_handmade failed (${hand_rc})")
endif()

# foreign.mjs writes the DuckDB and arrow-rs files beside them and reads
# everything with inlay's reader
if(NOT BIG_ROWS)
  set(BIG_ROWS 100000)
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -E env "INLAY_READ_DUMP=${READ_DUMP}" "INLAY_FOREIGN_BIG_ROWS=${BIG_ROWS}"
    "${NODE}" "${SOURCE_DIR}/foreign.mjs" "${WORK_DIR}"
  WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "interop_foreign: foreign.mjs found problems (exit ${rc}); the files are in ${WORK_DIR}")
endif()
