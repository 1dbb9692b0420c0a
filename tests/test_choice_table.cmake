# test_choice_table.cmake -- scripts/choice_table.py on the JSON of a host run
# of spk bench with four solve configurations: a row per matrix, every ratio
# at least 1 for the fixed configurations and exactly 1 for the fastest of
# them, the worst and geometric-mean rows; a missing fixed configuration is
# refused; --detail gives a line per matrix with the configuration's
# preconditioner and its ratio, and the summary.  Prints "SKIP:" when there
# is no python3.
# Inputs: SPK, DATA, SCRIPT (choice_table.py), PYTHON, WORK.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND "${SPK}" bench --device cpu --formats csr --min-time 0 --repeat 2 --quiet --solve-repeat 1
                        --solve-config default --solve-config none:precond=none
                        --solve-config jacobi:precond=jacobi --solve-config probe:probe=on
                        "${DATA}/sherman3.mtx.gz" "${DATA}/nos3.mtx.gz" --json "${WORK}/bench.json"
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "spk bench failed (${rc}): ${err}")
endif()
if(NOT PYTHON)
  message("SKIP: no python3 found, the table was not made")
  return()
endif()
execute_process(COMMAND "${PYTHON}" "${SCRIPT}" "${WORK}/bench.json"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "choice_table.py failed (${rc}):\n${out}\n${err}")
endif()
message("${out}")
string(REGEX MATCHALL "(sherman3|nos3)\\.mtx\\.gz[^\n]*" rows "${out}")
list(LENGTH rows nrows)
if(NOT nrows EQUAL 2 OR NOT out MATCHES "\nworst " OR NOT out MATCHES "\ngeometric mean ")
  message(FATAL_ERROR "choice_table.py: expected a row per matrix and the summary rows:\n${out}")
endif()
foreach(row ${rows})
  # the columns default, none, jacobi, probe: the fixed ones >= 1, one of them 1.00
  string(REGEX MATCHALL "[0-9]+\\.[0-9]+|fails" v "${row}")
  list(GET v 0 d)
  list(GET v 1 n)
  list(GET v 2 j)
  set(one 0)
  foreach(x ${d} ${n} ${j})
    if(NOT x STREQUAL "fails" AND x LESS 1.0)
      message(FATAL_ERROR "choice_table.py: a fixed configuration below the fastest fixed one: ${row}")
    endif()
    if(x STREQUAL "1.00")
      set(one 1)
    endif()
  endforeach()
  if(NOT one)
    message(FATAL_ERROR "choice_table.py: no fixed configuration at 1.00: ${row}")
  endif()
endforeach()
execute_process(COMMAND "${PYTHON}" "${SCRIPT}" "${WORK}/bench.json" --fixed default,nothere
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "has no configuration nothere")
  message(FATAL_ERROR "choice_table.py took a missing configuration (${rc}):\n${out}\n${err}")
endif()
execute_process(COMMAND "${PYTHON}" "${SCRIPT}" "${WORK}/bench.json" --fixed default,none,jacobi --detail probe
                        --setup-of default --markdown
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "choice_table.py --detail failed (${rc}):\n${out}\n${err}")
endif()
string(REGEX MATCHALL "\\| (sherman3|nos3)\\.mtx\\.gz \\| [a-z0-9-]+[^|]* \\| [0-9.]+ \\| (default|none|jacobi) \\| [0-9.]+ \\| [0-9.]+ \\| [0-9-]+ \\|" drows "${out}")
list(LENGTH drows nd)
if(NOT nd EQUAL 2 OR NOT out MATCHES "probe: worst [0-9.]+, geometric mean [0-9.]+ over 2 problems, 0 failed")
  message(FATAL_ERROR "choice_table.py --detail: expected a row per matrix and the summary:\n${out}")
endif()
