# Driver of the `interop_dataset_*` ctest tests (see CMakeLists.txt beside
# this file). Inputs: FIXTURE (the interop_dataset program), NODE, SOURCE_DIR
# (tests/interop, holding dataset_check.mjs and node_modules), WORK_DIR (made
# afresh by dataset_check.mjs), TESTS (a regex of the checks to run: basic,
# weird, rolling_rows, rolling_bytes, rolling_open_files, shards, kill).

foreach(pkg @duckdb/node-api parquet-wasm apache-arrow hyparquet hyparquet-compressors)
  if(NOT EXISTS "${SOURCE_DIR}/node_modules/${pkg}/package.json")
    message(FATAL_ERROR
      "interop_dataset: the Node package ${pkg} is not installed in ${SOURCE_DIR}/node_modules.\n"
      "Run the install step first:  (cd ${SOURCE_DIR} && npm ci)\n"
      "or:  cmake --build <build dir> --target interop_npm_ci")
  endif()
endforeach()
if(NOT NODE OR NODE MATCHES "NOTFOUND$")
  message(FATAL_ERROR "interop_dataset: node (Node.js >= 20) was not found when configuring; install it and re-run cmake")
endif()

execute_process(COMMAND "${NODE}" "${SOURCE_DIR}/dataset_check.mjs" "${FIXTURE}" "${WORK_DIR}" "${TESTS}"
  WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "interop_dataset: dataset_check.mjs found problems (exit ${rc}); the files are in ${WORK_DIR}")
endif()
