# test_fem_python.cmake -- the Python finite-element examples (examples/python:
# a 3-D Poisson problem and a 3-D linear-elasticity cantilever assembled by
# scikit-fem), each solved by spk and by SciPy at a small size; an example
# exits nonzero when spk misses its tolerance or its solution differs from
# SciPy's.  Chooses the interpreter the way test_python.cmake does: PYTHON as
# it is when it already has NumPy, SciPy and scikit-fem; otherwise the
# virtual environment in the build folder (made with the system's packages
# when missing), with whichever of them are missing installed by pip.  Prints
# "SKIP:" (CTest reports the test skipped) only when there is no python3 or
# the packages cannot be installed (no network); a failing example fails.
# Inputs: PYTHON, LIB (libspk.so), SRC (the repository), VENV.
include("${CMAKE_CURRENT_LIST_DIR}/python_env.cmake")
spk_python_or_skip(py "import numpy, scipy, skfem" numpy scipy scikit-fem)
# small sizes (a few thousand unknowns each, spsolve included), on the host: label cpu
foreach(run "fem_poisson3d.py;--n;16" "fem_poisson3d.py;--mesh;hex;--n;14" "fem_elasticity3d.py;--n;6")
  list(POP_FRONT run script)
  execute_process(COMMAND "${py}" "${SRC}/examples/python/${script}" ${run} --device cpu
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(JOIN " " line ${script} ${run})
  message("${line}:\n${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${line} failed (${rc}):\n${err}")
  endif()
endforeach()
