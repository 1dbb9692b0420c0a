# python_env.cmake -- the interpreter the Python tests run under (included by
# test_python.cmake, test_python_mpi.cmake and test_fem_python.cmake).
#
# spk_python_env(<out py> <out why> "<imports>" <pip packages...>): PYTHON as
# it is when `python -c "<imports>"` works there; else the virtual environment
# VENV of the build folder (made with the system's site packages, so packages
# installed system-wide serve offline), with the pip packages installed into it
# where the imports fail.  <out py> is empty where that cannot be done (no
# python3, no venv, no network): <out why> then says why, for a "SKIP:" line.
function(spk_python_env outpy outwhy imports)
  set(${outpy} "" PARENT_SCOPE)
  if(NOT PYTHON)
    set(${outwhy} "no python3 found" PARENT_SCOPE)
    return()
  endif()
  execute_process(COMMAND "${PYTHON}" -c "${imports}" RESULT_VARIABLE have_base OUTPUT_QUIET ERROR_QUIET)
  if(have_base EQUAL 0)
    set(${outpy} "${PYTHON}" PARENT_SCOPE)
    return()
  endif()
  set(py "${VENV}/bin/python")
  if(NOT EXISTS "${py}")
    execute_process(COMMAND "${PYTHON}" -m venv --system-site-packages "${VENV}"
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      set(${outwhy} "cannot make a virtual environment (${rc}): ${err}" PARENT_SCOPE)
      return()
    endif()
    # --system-site-packages shows the base installation's packages only; where PYTHON is itself
    # a virtual environment's, a .pth file adds that environment's (its NumPy and SciPy), so
    # pip installs only what is missing (offline too, from PIP_FIND_LINKS)
    execute_process(COMMAND "${PYTHON}" -c "import site; print('\\n'.join(site.getsitepackages()))"
                    OUTPUT_VARIABLE parent OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc1)
    execute_process(COMMAND "${py}" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])"
                    OUTPUT_VARIABLE purelib OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc2)
    if(rc1 EQUAL 0 AND rc2 EQUAL 0 AND parent AND purelib)
      file(WRITE "${purelib}/spk_parent_site.pth" "${parent}\n")
    endif()
  endif()
  execute_process(COMMAND "${py}" -c "${imports}" RESULT_VARIABLE have OUTPUT_QUIET ERROR_QUIET)
  if(NOT have EQUAL 0)
    # pip leaves a package already there (from the system or another test) as it is
    execute_process(COMMAND "${py}" -m pip install --quiet ${ARGN}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      string(REPLACE ";" ", " names "${ARGN}")
      set(${outwhy} "${names} could not be installed (${rc}): ${err}" PARENT_SCOPE)
      return()
    endif()
  endif()
  set(${outpy} "${py}" PARENT_SCOPE)
endfunction()

# spk_python_or_skip(<out py> "<imports>" <pip packages...>): spk_python_env, then a "SKIP:"
# line and the end of the calling script where no interpreter can be had; else the
# environment that imports spk from the source tree with the build's library.
macro(spk_python_or_skip outpy imports)
  spk_python_env(${outpy} spk_skip_why_ "${imports}" ${ARGN})
  if(NOT ${outpy})
    message("SKIP: ${spk_skip_why_}")
    return()
  endif()
  set(ENV{SPK_LIBRARY} "${LIB}")
  set(ENV{PYTHONPATH} "${SRC}/python")
endmacro()
