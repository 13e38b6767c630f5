# Driver of the install tests (see CMakeLists.txt beside this file): one
# STEP per ctest test. Every command it runs must succeed; a missing tool is
# a failure, not a skip.
#
# Inputs: STEP, BUILD_DIR, SOURCE_DIR (the top of the tree), PREFIX (the
# install prefix, made afresh by STEP=tree), WORK (this step's folder, made
# afresh), VERSION, LIBDIR, INCLUDEDIR, BINDIR, LUA_CMOD_DIR (install dirs,
# relative to the prefix), LUA, CLI (ON/OFF: what the build has), CC,
# GENERATOR, PKG_CONFIG, READELF, LUAROCKS, LUA_INTERPRETER.
#
#   tree          cmake --install BUILD_DIR --prefix PREFIX, then exactly the
#                 expected files (no inlay-probe, tests or internal headers)
#   pkgconfig     consumer.c built with `cc $(pkg-config --cflags --libs inlay)`
#                 against libinlay.so, and with `pkg-config --static` against
#                 libinlay.a; both run
#   find_package  the project in find_package/: find_package(inlay CONFIG
#                 REQUIRED) with CMAKE_PREFIX_PATH=PREFIX; both consumers run
#   luarocks      `luarocks make` of the rockspec from the source folder into a
#                 tree of its own; stock lua5.4 requires the rock and writes
#   command       PREFIX/bin/inlay -e 'print(require("inlay").version)'

cmake_minimum_required(VERSION 3.18)

# Runs a command that must succeed; its output goes to the named variable.
function(run out)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "install test ${STEP}: failed (${rc}): ${cmd}\n${stdout}${stderr}")
  endif()
  string(STRIP "${stdout}" stdout)
  set(${out} "${stdout}" PARENT_SCOPE)
endfunction()

function(require_tool name value)
  if(NOT value OR value MATCHES "NOTFOUND$")
    message(FATAL_ERROR "install test ${STEP}: ${name} was not found when configuring")
  endif()
endfunction()

# The consumer writes into DIR and says what it wrote.
function(check_consumer program dir)
  file(REMOVE_RECURSE "${dir}")
  file(MAKE_DIRECTORY "${dir}")
  run(out "${program}" "${dir}")
  if(NOT out STREQUAL "inlay ${VERSION}: 2 files, 8 rows")
    message(FATAL_ERROR "install test ${STEP}: ${program} printed \"${out}\"")
  endif()
endfunction()

# NEEDED entries of an ELF file.
function(needed file out)
  run(text ${READELF} -d "${file}")
  string(REGEX MATCHALL "Shared library: \\[[^]]*\\]" libs "${text}")
  set(${out} "${libs}" PARENT_SCOPE)
endfunction()

function(check_linked_statically program)
  needed("${program}" libs)
  if(libs MATCHES "libinlay")
    message(FATAL_ERROR "install test ${STEP}: ${program} should not need libinlay.so: ${libs}")
  endif()
endfunction()

function(check_linked_shared program)
  needed("${program}" libs)
  if(NOT libs MATCHES "libinlay\\.so\\.")
    message(FATAL_ERROR "install test ${STEP}: ${program} does not need libinlay.so: ${libs}")
  endif()
endfunction()

if(NOT STEP STREQUAL "luarocks" AND NOT STEP STREQUAL "tree" AND NOT EXISTS "${PREFIX}/${INCLUDEDIR}/inlay.h")
  message(FATAL_ERROR "install test ${STEP}: nothing is installed in ${PREFIX} (the test install_tree failed?)")
endif()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
# The shared library the consumers run with is the installed one.
set(ENV{LD_LIBRARY_PATH} "${PREFIX}/${LIBDIR}")

if(STEP STREQUAL "tree")
  foreach(dir LIBDIR INCLUDEDIR BINDIR LUA_CMOD_DIR)
    if(IS_ABSOLUTE "${${dir}}")
      message(FATAL_ERROR "install test tree: the install dir ${dir} is absolute (${${dir}}); "
        "cmake --install --prefix would write outside the test prefix. Configure it relative to the prefix.")
    endif()
  endforeach()
  file(REMOVE_RECURSE "${PREFIX}")
  run(out ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${PREFIX}")

  string(REGEX MATCH "^[0-9]+" major "${VERSION}")
  file(GLOB targets_config RELATIVE "${PREFIX}" "${PREFIX}/${LIBDIR}/cmake/inlay/inlayTargets-*.cmake")
  set(expected
    ${INCLUDEDIR}/inlay.h
    ${LIBDIR}/libinlay.a ${LIBDIR}/libinlay.so ${LIBDIR}/libinlay.so.${major} ${LIBDIR}/libinlay.so.${VERSION}
    ${LIBDIR}/pkgconfig/inlay.pc
    ${LIBDIR}/cmake/inlay/inlayConfig.cmake ${LIBDIR}/cmake/inlay/inlayConfigVersion.cmake
    ${LIBDIR}/cmake/inlay/inlayTargets.cmake ${targets_config})
  if(LUA)
    list(APPEND expected ${LUA_CMOD_DIR}/inlay.so)
  endif()
  if(CLI)
    list(APPEND expected ${BINDIR}/inlay ${INCLUDEDIR}/inlay_lua.h ${LIBDIR}/libinlay_lua.a)
  endif()
  file(GLOB_RECURSE installed RELATIVE "${PREFIX}" "${PREFIX}/*")
  set(missing ${expected})
  list(REMOVE_ITEM missing ${installed})
  set(extra ${installed})
  list(REMOVE_ITEM extra ${expected})
  if(missing OR extra OR NOT targets_config)
    message(FATAL_ERROR "install test tree: ${PREFIX} is not what was expected.\n"
      "missing: ${missing}\nnot expected: ${extra}\ninlayTargets-<config>.cmake: ${targets_config}")
  endif()

  # libinlay.so -> libinlay.so.MAJOR -> libinlay.so.X.Y.Z, whose SONAME is libinlay.so.MAJOR
  foreach(link "libinlay.so:libinlay.so.${major}" "libinlay.so.${major}:libinlay.so.${VERSION}")
    string(REPLACE ":" ";" link "${link}")
    list(GET link 0 name)
    list(GET link 1 target)
    set(path "${PREFIX}/${LIBDIR}/${name}")
    if(NOT IS_SYMLINK "${path}")
      message(FATAL_ERROR "install test tree: ${path} is not a symbolic link")
    endif()
    file(READ_SYMLINK "${path}" points_to)
    if(NOT points_to STREQUAL target)
      message(FATAL_ERROR "install test tree: ${path} points to ${points_to}, not ${target}")
    endif()
  endforeach()
  run(dynamic ${READELF} -d "${PREFIX}/${LIBDIR}/libinlay.so.${VERSION}")
  if(NOT dynamic MATCHES "Library soname: \\[libinlay\\.so\\.${major}\\]")
    message(FATAL_ERROR "install test tree: the SONAME of libinlay.so.${VERSION} is not libinlay.so.${major}")
  endif()

elseif(STEP STREQUAL "pkgconfig")
  require_tool(pkg-config "${PKG_CONFIG}")
  require_tool("the C compiler" "${CC}")
  set(ENV{PKG_CONFIG_PATH} "${PREFIX}/${LIBDIR}/pkgconfig")
  run(out ${PKG_CONFIG} --validate inlay)
  run(modversion ${PKG_CONFIG} --modversion inlay)
  if(NOT modversion STREQUAL VERSION)
    message(FATAL_ERROR "install test pkgconfig: pkg-config says inlay ${modversion}, the project is ${VERSION}")
  endif()

  run(pc_prefix ${PKG_CONFIG} --variable=prefix inlay)
  if(NOT pc_prefix STREQUAL PREFIX)
    message(FATAL_ERROR "install test pkgconfig: inlay.pc says the prefix is ${pc_prefix}, not ${PREFIX}")
  endif()

  # A shared link, as the README says: cc app.c $(pkg-config --cflags --libs inlay)
  run(cflags ${PKG_CONFIG} --cflags inlay)
  run(libs ${PKG_CONFIG} --libs inlay)
  separate_arguments(cflags UNIX_COMMAND "${cflags}")
  separate_arguments(libs UNIX_COMMAND "${libs}")
  run(out ${CC} ${cflags} "${SOURCE_DIR}/tests/install/consumer.c" -o "${WORK}/consumer_shared" ${libs})
  check_linked_shared("${WORK}/consumer_shared")
  check_consumer("${WORK}/consumer_shared" "${WORK}/shared")

  # The codecs the build has, from its cache: each one on is in
  # Requires.private and in the static link.
  file(STRINGS "${BUILD_DIR}/CMakeCache.txt" with REGEX "^INLAY_WITH_(SNAPPY|LZ4|BROTLI):BOOL=")
  set(codec_modules)
  set(codec_flags)
  if(with MATCHES "INLAY_WITH_SNAPPY:BOOL=(ON|TRUE|YES|1)")
    list(APPEND codec_modules snappy)
    list(APPEND codec_flags -lsnappy)
  endif()
  if(with MATCHES "INLAY_WITH_LZ4:BOOL=(ON|TRUE|YES|1)")
    list(APPEND codec_modules liblz4)
    list(APPEND codec_flags -llz4)
  endif()
  if(with MATCHES "INLAY_WITH_BROTLI:BOOL=(ON|TRUE|YES|1)")
    list(APPEND codec_modules libbrotlienc libbrotlidec)
    list(APPEND codec_flags -lbrotlienc -lbrotlidec)
  endif()

  # A static link: the flags of `pkg-config --static`, libinlay.a in place
  # of -linlay (the folder holds libinlay.so too, which -l would take).
  run(static_libs ${PKG_CONFIG} --static --libs inlay)
  separate_arguments(static_libs UNIX_COMMAND "${static_libs}")
  foreach(flag -linlay -lzstd -lxxhash -lz ${codec_flags} -pthread -lm)
    if(NOT flag IN_LIST static_libs)
      message(FATAL_ERROR "install test pkgconfig: `pkg-config --static --libs inlay` lacks ${flag}: ${static_libs}")
    endif()
  endforeach()
  # glibc has the threads in libc and libzstd.pc says -pthread too, so the
  # link alone would not notice inlay.pc losing either of these.
  run(requires ${PKG_CONFIG} --print-requires-private inlay)
  string(REGEX REPLACE "[ \n]+" ";" requires "${requires}")
  file(STRINGS "${PREFIX}/${LIBDIR}/pkgconfig/inlay.pc" libs_private REGEX "^Libs.private:")
  set(want_requires libzstd libxxhash zlib ${codec_modules})
  if(NOT requires STREQUAL "${want_requires}" OR NOT libs_private MATCHES "-pthread")
    string(REPLACE ";" " " want_requires "${want_requires}")
    message(FATAL_ERROR "install test pkgconfig: inlay.pc should have Requires.private: ${want_requires} "
      "(it has: ${requires}) and -pthread in Libs.private (it has: ${libs_private})")
  endif()
  list(TRANSFORM static_libs REPLACE "^-linlay$" "-l:libinlay.a")
  run(out ${CC} ${cflags} "${SOURCE_DIR}/tests/install/consumer.c" -o "${WORK}/consumer_static" ${static_libs})
  check_linked_statically("${WORK}/consumer_static")
  check_consumer("${WORK}/consumer_static" "${WORK}/static")

elseif(STEP STREQUAL "find_package")
  set(generator)
  if(GENERATOR)
    set(generator -G "${GENERATOR}")
  endif()
  run(out ${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/install/find_package" -B "${WORK}/build" ${generator}
      -DCMAKE_C_COMPILER=${CC} -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
      -DCONSUMER_SOURCE=${SOURCE_DIR}/tests/install/consumer.c
      -DEXPECT_VERSION=${VERSION} -DEXPECT_PREFIX=${PREFIX})
  run(out ${CMAKE_COMMAND} --build "${WORK}/build")
  check_linked_shared("${WORK}/build/consumer_shared")
  check_linked_statically("${WORK}/build/consumer_static")
  check_consumer("${WORK}/build/consumer_shared" "${WORK}/shared")
  check_consumer("${WORK}/build/consumer_static" "${WORK}/static")

elseif(STEP STREQUAL "luarocks")
  require_tool(luarocks "${LUAROCKS}")
  require_tool(lua5.4 "${LUA_INTERPRETER}")
  # The rockspec's version is the project's.
  file(GLOB rockspecs RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/*.rockspec")
  if(NOT rockspecs MATCHES "^inlay-${VERSION}-[0-9]+\\.rockspec$")
    message(FATAL_ERROR "install test luarocks: expected one inlay-${VERSION}-N.rockspec in ${SOURCE_DIR}, "
      "found: ${rockspecs} (rename it when the version in inlay.h changes)")
  endif()
  set(tree "${WORK}/rocks")
  # LuaRocks' cmake backend builds in build.luarocks/ of the source folder:
  # a fresh one, so that a cache left from an earlier run cannot hide a
  # variable the rockspec no longer sets.
  file(REMOVE_RECURSE "${SOURCE_DIR}/build.luarocks")
  set(ENV{CMAKE_BUILD_PARALLEL_LEVEL} 2)
  execute_process(COMMAND ${LUAROCKS} --lua-version 5.4 make --tree "${tree}" "${rockspecs}"
    WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  file(REMOVE_RECURSE "${SOURCE_DIR}/build.luarocks")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install test luarocks: luarocks make failed (${rc}):\n${out}${err}")
  endif()

  # The rock holds the module and nothing else of the build.
  file(GLOB_RECURSE files RELATIVE "${tree}" "${tree}/*")
  set(module lib/lua/5.4/inlay.so)
  if(NOT module IN_LIST files)
    message(FATAL_ERROR "install test luarocks: ${tree}/${module} is missing; the tree has: ${files}")
  endif()
  list(FILTER files INCLUDE REGEX "libinlay|inlay\\.h$|inlay\\.pc$|inlayConfig|/inlay$|inlay-probe")
  if(files)
    message(FATAL_ERROR "install test luarocks: the rock installed more than the module: ${files}")
  endif()

  # Stock lua5.4 with the tree's cpath alone, as `luarocks path` gives it.
  run(cpath ${LUAROCKS} --lua-version 5.4 path --tree "${tree}" --lr-cpath)
  set(ENV{LUA_CPATH} "${cpath}")
  unset(ENV{LUA_CPATH_5_4})
  unset(ENV{LUA_INIT})
  unset(ENV{LUA_INIT_5_4})
  file(MAKE_DIRECTORY "${WORK}/out")
  run(out ${LUA_INTERPRETER} "${SOURCE_DIR}/tests/install/use_rock.lua" "${tree}/${module}" "${WORK}/out" "${VERSION}")
  if(NOT out STREQUAL "ok inlay ${VERSION} 3 rows")
    message(FATAL_ERROR "install test luarocks: use_rock.lua printed \"${out}\"")
  endif()

elseif(STEP STREQUAL "command")
  run(out "${PREFIX}/${BINDIR}/inlay" -e "print(require(\"inlay\").version)")
  if(NOT out STREQUAL VERSION)
    message(FATAL_ERROR "install test command: the installed inlay says its version is \"${out}\", not ${VERSION}")
  endif()

else()
  message(FATAL_ERROR "run_install.cmake: unknown STEP \"${STEP}\"")
endif()
message(STATUS "install test ${STEP}: ok")
