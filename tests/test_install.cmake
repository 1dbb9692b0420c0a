# test_install.cmake -- install spk to a temporary prefix, then build and run
# a consumer program both ways: through find_package(spk) (shared and static
# targets) and through pkg-config.
# Inputs: BUILD_DIR, SRC (tests/consumer), WORK, GENERATOR, C_COMPILER, SANITIZE
# (the sanitizers spk was built with: the consumers must link their runtimes too),
# FORTRAN_COMPILER (when spk was built with its Fortran module: a Fortran
# consumer, tests/consumer_fortran, through spk::spk_fortran), MPIEXEC (when spk
# was built with MPI: tests/consumer_mpi through find_package(spk COMPONENTS mpi)
# and through pkg-config spk-mpi, run on 2 ranks).
file(REMOVE_RECURSE "${WORK}")
set(san_flags "")
if(SANITIZE)
  set(san_flags "-fsanitize=${SANITIZE}")
endif()
set(prefix "${WORK}/prefix")

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok ${out}")
endfunction()

run("install" "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")
foreach(f include/spk.h)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "install did not create ${prefix}/${f}")
  endif()
endforeach()
file(GLOB_RECURSE pcs "${prefix}/*/spk.pc")
file(GLOB_RECURSE cfgs "${prefix}/*/spkConfig.cmake")
if(NOT pcs OR NOT cfgs)
  message(FATAL_ERROR "install lacks spk.pc or spkConfig.cmake")
endif()
list(GET pcs 0 pc)
get_filename_component(pcdir "${pc}" DIRECTORY)
get_filename_component(libdir "${pcdir}" DIRECTORY)

# 1. CMake package
run("configure consumer" "${CMAKE_COMMAND}" -S "${SRC}" -B "${WORK}/cmake-build" -G "${GENERATOR}"
    "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_C_FLAGS=${san_flags}")
run("build consumer" "${CMAKE_COMMAND}" --build "${WORK}/cmake-build")
run("run consumer (shared, find_package)" "${CMAKE_COMMAND}" -E env "LD_LIBRARY_PATH=${libdir}"
    "${WORK}/cmake-build/consumer_shared")
run("run consumer (static, find_package)" "${WORK}/cmake-build/consumer_static")
# spk::spk alone, where neither zlib nor CUDA can be found: its consumers need neither
run("configure consumer (spk::spk, no zlib or CUDA)" "${CMAKE_COMMAND}" -S "${SRC}" -B "${WORK}/shared-build"
    -G "${GENERATOR}" "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_C_COMPILER=${C_COMPILER}"
    "-DCMAKE_C_FLAGS=${san_flags}" -DSHARED_ONLY=ON -DCMAKE_DISABLE_FIND_PACKAGE_ZLIB=ON
    -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON)
run("build consumer (spk::spk only)" "${CMAKE_COMMAND}" --build "${WORK}/shared-build")
run("run consumer (spk::spk only)" "${CMAKE_COMMAND}" -E env "LD_LIBRARY_PATH=${libdir}"
    "${WORK}/shared-build/consumer_shared")
# ... and asking for the static target there fails, saying what it needs
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SRC}" -B "${WORK}/static-nozlib" -G "${GENERATOR}"
    "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_C_COMPILER=${C_COMPILER}" -DCMAKE_DISABLE_FIND_PACKAGE_ZLIB=ON
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT "${out}${err}" MATCHES "spk_static.*needs zlib")
  message(FATAL_ERROR "find_package(spk COMPONENTS static) without zlib: exit ${rc}, expected a failure naming zlib:\n${out}\n${err}")
endif()
message(STATUS "static target without zlib refused: ok")

# 2. pkg-config
find_program(PKG_CONFIG NAMES pkg-config pkgconf)
if(NOT PKG_CONFIG)
  message(FATAL_ERROR "pkg-config not found: install it (Debian/Ubuntu: apt-get install pkg-config)")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -E env "PKG_CONFIG_PATH=${pcdir}" "${PKG_CONFIG}" --cflags --libs spk
                RESULT_VARIABLE rc OUTPUT_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config --cflags --libs spk failed")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
run("compile consumer (pkg-config)" "${C_COMPILER}" -std=c11 "${SRC}/consumer.c" -o "${WORK}/consumer_pc" ${flags} -lm ${san_flags})
# spk.pc's rpath: the consumer finds libspk without LD_LIBRARY_PATH
run("run consumer (pkg-config, no LD_LIBRARY_PATH)" "${CMAKE_COMMAND}" -E env --unset=LD_LIBRARY_PATH "${WORK}/consumer_pc")

# 3. the Fortran module (include/spk/spk.mod) through find_package(spk) and spk::spk_fortran
if(FORTRAN_COMPILER)
  if(NOT EXISTS "${prefix}/include/spk/spk.mod")
    message(FATAL_ERROR "install did not create ${prefix}/include/spk/spk.mod")
  endif()
  run("configure Fortran consumer" "${CMAKE_COMMAND}" -S "${SRC}/../consumer_fortran" -B "${WORK}/fortran-build"
      -G "${GENERATOR}" "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_C_COMPILER=${C_COMPILER}"
      "-DCMAKE_Fortran_COMPILER=${FORTRAN_COMPILER}" "-DCMAKE_EXE_LINKER_FLAGS=${san_flags}")
  run("build Fortran consumer" "${CMAKE_COMMAND}" --build "${WORK}/fortran-build")
  run("run Fortran consumer" "${CMAKE_COMMAND}" -E env "LD_LIBRARY_PATH=${libdir}"
      "${WORK}/fortran-build/consumer_fortran")
endif()

# 4. the component mpi (include/spk_mpi.h, libspk_mpi) through find_package and pkg-config
if(MPIEXEC)
  foreach(f include/spk_mpi.h)
    if(NOT EXISTS "${prefix}/${f}")
      message(FATAL_ERROR "install did not create ${prefix}/${f}")
    endif()
  endforeach()
  run("configure MPI consumer" "${CMAKE_COMMAND}" -S "${SRC}/../consumer_mpi" -B "${WORK}/mpi-build" -G "${GENERATOR}"
      "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_C_FLAGS=${san_flags}")
  run("build MPI consumer" "${CMAKE_COMMAND}" --build "${WORK}/mpi-build")
  run("run MPI consumer (find_package, 2 ranks)" "${CMAKE_COMMAND}" -E env "LD_LIBRARY_PATH=${libdir}"
      "${MPIEXEC}" -n 2 --oversubscribe "${WORK}/mpi-build/consumer_mpi")
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env "PKG_CONFIG_PATH=${pcdir}" "${PKG_CONFIG}" --cflags --libs spk-mpi
                  RESULT_VARIABLE rc OUTPUT_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags --libs spk-mpi failed")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  find_program(MPICC mpicc)
  if(MPICC)
    run("compile MPI consumer (pkg-config, mpicc)" "${MPICC}" -std=c11 "${SRC}/../consumer_mpi/consumer_mpi.c"
        -o "${WORK}/consumer_mpi_pc" ${flags} ${san_flags})
    run("run MPI consumer (pkg-config, 2 ranks, no LD_LIBRARY_PATH)" "${CMAKE_COMMAND}" -E env --unset=LD_LIBRARY_PATH
        "${MPIEXEC}" -n 2 --oversubscribe "${WORK}/consumer_mpi_pc")
  endif()
endif()
