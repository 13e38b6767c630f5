# The README's "Beyond one machine" commands, run as written (from the
# source folder, with the build's inlay for build/inlay and a folder of our
# own for /tmp), then the dataset they made read back by DuckDB.
#
#   cmake -DSOURCE_DIR=... -DINLAY=... -DWORK=... -DNODE=... -P run_readme_dataset.cmake
file(READ ${SOURCE_DIR}/README.md readme)
string(FIND "${readme}" "<!-- beyond-one-machine" at)
if(at LESS 0)
  message(FATAL_ERROR "README.md has no beyond-one-machine block")
endif()
string(SUBSTRING "${readme}" ${at} -1 rest)
string(FIND "${rest}" "```sh\n" open)
string(SUBSTRING "${rest}" ${open} -1 rest)
string(LENGTH "```sh\n" skip)
string(SUBSTRING "${rest}" ${skip} -1 rest)
string(FIND "${rest}" "```" close)
string(SUBSTRING "${rest}" 0 ${close} commands)
if(NOT commands MATCHES "build/inlay convert .* --partition-by day,platform")
  message(FATAL_ERROR "the README's block no longer converts into a dataset:\n${commands}")
endif()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
string(REPLACE "/tmp/" "${WORK}/" commands "${commands}")
string(REPLACE "build/inlay" "${INLAY}" commands "${commands}")
file(WRITE ${WORK}/readme.sh "set -eu\n${commands}")
execute_process(COMMAND bash ${WORK}/readme.sh WORKING_DIRECTORY ${SOURCE_DIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the README's commands failed (${rc})")
endif()
execute_process(COMMAND ${NODE} ${SOURCE_DIR}/tests/examples/readme_dataset.mjs ${WORK}/events
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "DuckDB does not read the dataset as the README says")
endif()
