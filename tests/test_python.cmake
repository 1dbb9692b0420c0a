# test_python.cmake -- the Python package (python/spk) under pytest, against
# scipy.sparse.linalg.spsolve.  Uses PYTHON as it is when it already has
# NumPy, SciPy and pytest; otherwise makes a virtual environment in the build
# folder (reusing packages installed system-wide) and installs them with pip.
# Then runs python/tests with the library just built.  Prints "SKIP:" (CTest
# reports the test skipped) when there is no python3 or the packages cannot
# be installed (no network).
# Inputs: PYTHON, LIB (libspk.so), SRC (the repository), VENV, SHARED (may be empty).
if(NOT PYTHON)
  message("SKIP: no python3 found")
  return()
endif()
# A Python that already has the packages (a machine without network, a
# virtual environment of its own) is used as it is.
execute_process(COMMAND "${PYTHON}" -c "import numpy, scipy, pytest" RESULT_VARIABLE have_base OUTPUT_QUIET ERROR_QUIET)
if(have_base EQUAL 0)
  set(py "${PYTHON}")
else()
  set(py "${VENV}/bin/python")
endif()
if(NOT EXISTS "${py}")
  # system site packages: a NumPy/SciPy/pytest already installed is used as is (machines without network)
  execute_process(COMMAND "${PYTHON}" -m venv --system-site-packages "${VENV}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message("SKIP: cannot make a virtual environment (${rc}): ${err}")
    return()
  endif()
endif()
execute_process(COMMAND "${py}" -c "import numpy, scipy, pytest" RESULT_VARIABLE have OUTPUT_QUIET ERROR_QUIET)
if(NOT have EQUAL 0)
  execute_process(COMMAND "${py}" -m pip install --quiet numpy scipy pytest
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message("SKIP: NumPy, SciPy and pytest could not be installed (${rc}): ${err}")
    return()
  endif()
endif()
set(ENV{SPK_LIBRARY} "${LIB}")
set(ENV{PYTHONPATH} "${SRC}/python")
set(ENV{SPK_TEST_DATA} "${SRC}/data")
if(SHARED AND IS_DIRECTORY "${SHARED}")
  set(ENV{SPK_SHARED_MATRICES} "${SHARED}")
endif()
execute_process(COMMAND "${py}" -m pytest -q -p no:cacheprovider "${SRC}/python/tests"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pytest failed (${rc}):\n${err}")
endif()
