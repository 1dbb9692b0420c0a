# test_plots.cmake -- scripts/bench_plots.py on the JSON of a host run of
# spk bench: every chart is written as a PNG.  Prints "SKIP:" (CTest then
# reports the test skipped) when there is no python3 or matplotlib cannot be
# installed (no network); the charts are checked in every other case.
# Inputs: SPK, DATA, SCRIPT (bench_plots.py), PYTHON, WORK, VENV.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND "${SPK}" bench --device cpu --min-time 0 --repeat 2 --quiet --solve
                        --solve-config recipe --solve-config fused:vector=fused
                        --formats csr-vector,ell,hyb,auto "${DATA}/sherman3.mtx.gz" "${DATA}/nos3.mtx.gz"
                        gen:powerlaw:2000 --json "${WORK}/bench.json"
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "spk bench failed (${rc}): ${err}")
endif()
if(NOT PYTHON)
  message("SKIP: no python3 found, the charts were not drawn")
  return()
endif()
set(ENV{SPK_PLOTS_VENV} "${VENV}")
execute_process(COMMAND "${PYTHON}" "${SCRIPT}" "${WORK}/bench.json" "${WORK}/plots"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 3)
  message("SKIP: matplotlib could not be installed: ${err}")
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "bench_plots.py failed (${rc}):\n${out}\n${err}")
endif()
foreach(png spmv_speedup_hot spmv_speedup_cold spmv_geomean frac_copy solve_speedup solve_time)
  set(f "${WORK}/plots/${png}.png")
  if(NOT EXISTS "${f}")
    message(FATAL_ERROR "bench_plots.py did not write ${f}")
  endif()
  file(SIZE "${f}" size)
  file(READ "${f}" magic LIMIT 8 HEX)
  if(size LESS 10000 OR NOT magic STREQUAL "89504e470d0a1a0a")
    message(FATAL_ERROR "${f}: ${size} bytes, header ${magic}: not a chart")
  endif()
endforeach()
file(READ "${WORK}/plots/summary.md" md)
foreach(part "### Geometric-mean speedup over `csr`" "| hyb |" "### auto: the format it chose is within 5 % of the best measured"
             "| selection ms | cost ms | paid back after | solve |"
             "### Solve configurations: time to solution (setup + solve, without the upload of A) against `recipe`" "| fused |"
             "### Solve speedup over the `csr`-backed solve" "| powerlaw:2000 |")
  string(FIND "${md}" "${part}" pos)
  if(pos EQUAL -1)
    message(FATAL_ERROR "summary.md lacks '${part}':\n${md}")
  endif()
endforeach()
# the same run gzipped gives the same tables
execute_process(COMMAND "${PYTHON}" -c "import gzip, shutil, sys; shutil.copyfileobj(open(sys.argv[1], 'rb'), gzip.open(sys.argv[2], 'wb'))"
                "${WORK}/bench.json" "${WORK}/bench.json.gz" RESULT_VARIABLE rc)
execute_process(COMMAND "${PYTHON}" "${SCRIPT}" "${WORK}/bench.json.gz" "${WORK}/plots-gz"
                RESULT_VARIABLE rc2 OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT rc2 EQUAL 0 OR NOT EXISTS "${WORK}/plots-gz/summary.md")
  message(FATAL_ERROR "bench_plots.py on a gzipped JSON: exit ${rc} / ${rc2}:\n${out}\n${err}")
endif()
file(READ "${WORK}/plots-gz/summary.md" mdgz)
string(REPLACE "bench.json.gz" "bench.json" mdgz "${mdgz}")
if(NOT mdgz STREQUAL md)
  message(FATAL_ERROR "summary.md from the gzipped JSON differs:\n${mdgz}")
endif()
# bad input: a message and exit code 1
file(WRITE "${WORK}/bad.json" "{\"matrices\": ")
execute_process(COMMAND "${PYTHON}" "${SCRIPT}" "${WORK}/bad.json" "${WORK}/plots2"
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "bad input")
  message(FATAL_ERROR "bench_plots.py on a broken JSON: exit ${rc}, ${err}")
endif()
