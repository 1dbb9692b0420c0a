# test_python_mpi.cmake -- the Python submodule spk.mpi (python/spk/mpi.py) across
# NP ranks: python/tests/mpi_check.py under mpiexec, with the libraries just built.
# The interpreter is chosen as test_python.cmake does (PYTHON when it has NumPy and
# SciPy, else the virtual environment of the build folder, made and filled with
# pip where needed).  mpi4py is not installed here (it must match the MPI spk was
# built with: Debian/Ubuntu python3-mpi4py); without it, or without NumPy/SciPy,
# the test prints "SKIP:" (CTest reports it skipped).
# Inputs: PYTHON, LIB (libspk.so), MPILIB (libspk_mpi.so), SRC (the repository),
# VENV, MPIEXEC, NPFLAG, NP.
include("${CMAKE_CURRENT_LIST_DIR}/python_env.cmake")
spk_python_env(py why "import numpy, scipy" numpy scipy)
if(NOT py)
  message("SKIP: ${why}")
  return()
endif()
# only the package's presence: importing mpi4py.MPI would start MPI outside mpiexec
execute_process(COMMAND "${py}" -c "import mpi4py" RESULT_VARIABLE have_mpi4py OUTPUT_QUIET ERROR_QUIET)
if(NOT have_mpi4py EQUAL 0)
  message("SKIP: mpi4py not installed")
  return()
endif()
set(ENV{SPK_LIBRARY} "${LIB}")
set(ENV{SPK_MPI_LIBRARY} "${MPILIB}")
set(ENV{PYTHONPATH} "${SRC}/python")
execute_process(COMMAND "${MPIEXEC}" ${NPFLAG} ${NP} --oversubscribe "${py}" "${SRC}/python/tests/mpi_check.py"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mpi_check.py on ${NP} ranks failed (${rc}):\n${err}")
endif()
