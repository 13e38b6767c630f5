# The benchmark's table (2M rows by default) written with 1, 2 and 4
# threads: the three files must be byte for byte the same (their SHA-256
# printed). A test, not a benchmark: it times nothing.
#
#   -DBENCH=bench_write_table -DWORK_DIR=... [-DROWS=2000000]
if(NOT ROWS)
  set(ROWS 2000000)
endif()
file(MAKE_DIRECTORY "${WORK_DIR}")
foreach(n 1 2 4)
  execute_process(COMMAND "${BENCH}" --rows ${ROWS} --threads ${n} --out "${WORK_DIR}/t${n}.parquet"
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "bench_write_table --threads ${n} failed (${rc}): ${err}")
  endif()
  file(SHA256 "${WORK_DIR}/t${n}.parquet" h${n})
  message(STATUS "${ROWS} rows, ${n} threads: ${h${n}}")
endforeach()
if(NOT h1 STREQUAL h2 OR NOT h1 STREQUAL h4)
  message(FATAL_ERROR "the files differ between thread counts")
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
