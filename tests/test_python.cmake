# test_python.cmake -- the Python package (python/spk) under pytest, against
# scipy.sparse.linalg.spsolve.  Uses PYTHON as it is when it already has
# NumPy, SciPy and pytest; otherwise makes a virtual environment in the build
# folder (reusing packages installed system-wide) and installs them with pip.
# Then runs python/tests with the library just built.  Prints "SKIP:" (CTest
# reports the test skipped) when there is no python3 or the packages cannot
# be installed (no network).
# Then `pip install ./python` into a fresh virtual environment (VENV-pip): the
# package builds its own library (the host build: SPK_CUDA=OFF, to keep the
# test short) and solves without SPK_LIBRARY.  That step is left out, with a
# line saying why, where pip can reach no index and scikit-build-core, NumPy
# and SciPy are not installed (the pytest run above still counts).
# Inputs: PYTHON, LIB (libspk.so), SRC (the repository), VENV, SHARED (may be empty).
include("${CMAKE_CURRENT_LIST_DIR}/python_env.cmake")
spk_python_or_skip(py "import numpy, scipy, pytest" numpy scipy pytest)
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

# ---- pip install ./python: the wheel with its own library, no SPK_LIBRARY -------------------
unset(ENV{SPK_LIBRARY})
unset(ENV{PYTHONPATH})
set(pipvenv "${VENV}-pip")
file(REMOVE_RECURSE "${pipvenv}")
# system site packages: a scikit-build-core, NumPy or SciPy installed system-wide serves offline
execute_process(COMMAND "${PYTHON}" -m venv --system-site-packages "${pipvenv}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message("pip install step left out: cannot make a virtual environment (${rc}): ${err}")
  return()
endif()
set(pip "${pipvenv}/bin/python" -m pip --disable-pip-version-check)
# an index pip reaches (the build requirement scikit-build-core is on it)?
execute_process(COMMAND ${pip} download --no-deps --timeout 15 --retries 0 -d "${pipvenv}/probe" scikit-build-core
                RESULT_VARIABLE online OUTPUT_QUIET ERROR_QUIET)
execute_process(COMMAND "${pipvenv}/bin/python" -c
                "import sys, pip; sys.exit(tuple(map(int, pip.__version__.split('.')[:2])) < (21, 3))"
                RESULT_VARIABLE old_pip OUTPUT_QUIET ERROR_QUIET)
if(online EQUAL 0)
  if(NOT old_pip EQUAL 0) # pip before 21.3 builds a copy of python/ without the repository around it
    execute_process(COMMAND ${pip} install --quiet --upgrade pip RESULT_VARIABLE rc ERROR_VARIABLE err)
  endif()
  set(pip_args "")
else()
  execute_process(COMMAND "${pipvenv}/bin/python" -c "import scikit_build_core, numpy, scipy"
                  RESULT_VARIABLE have OUTPUT_QUIET ERROR_QUIET)
  if(NOT have EQUAL 0 OR NOT old_pip EQUAL 0)
    message("pip install step left out: pip reaches no index, and scikit-build-core, NumPy and SciPy "
            "(and pip 21.3 or later) are not all installed")
    file(REMOVE_RECURSE "${pipvenv}")
    return()
  endif()
  set(pip_args --no-build-isolation --no-index --no-deps)
endif()
set(ENV{CMAKE_ARGS} "-DSPK_CUDA=OFF") # the host build: a CUDA build of the library takes minutes
string(TIMESTAMP t0 "%s")
execute_process(COMMAND ${pip} install --quiet ${pip_args} "${SRC}/python" WORKING_DIRECTORY "${pipvenv}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(TIMESTAMP t1 "%s")
math(EXPR secs "${t1} - ${t0}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pip install ${SRC}/python failed (${rc}) after ${secs} s:\n${out}\n${err}")
endif()
message("pip install ${SRC}/python: ${secs} s")
execute_process(COMMAND "${pipvenv}/bin/python" -W ignore -c "import spk, numpy, scipy.sparse as sp; \
A = sp.diags([-1,2,-1],[-1,0,1],shape=(100,100),format='csr'); x, info = spk.solve(A, numpy.ones(100)); \
print(spk.library_path); print(info.converged)"
                WORKING_DIRECTORY "${pipvenv}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
string(FIND "${out}" "${pipvenv}/" at)
if(NOT rc EQUAL 0 OR NOT at EQUAL 0 OR NOT out MATCHES "/spk/lib/libspk\\.so\nTrue\n$")
  message(FATAL_ERROR "the pip-installed spk did not solve with its own library (${rc}):\n${out}\n${err}")
endif()
file(REMOVE_RECURSE "${pipvenv}")
