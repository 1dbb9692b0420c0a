# test_paper_tables.cmake -- scripts/paper_tables.py on the JSON of two host
# runs of spk bench (double, and --precision float) over the formats the TEB
# and TileSpMV papers compare: each
# pair whose two formats ran gets its ratios (numbers, not "—"), and the
# papers' figures are beside them.  Prints "SKIP:" when there is no python3.
# Inputs: SPK, DATA, SCRIPT (paper_tables.py), PYTHON, WORK.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
foreach(prec double float)
  set(json "${WORK}/bench.json")
  if(prec STREQUAL "float")
    set(json "${WORK}/bench-float.json")
  endif()
  execute_process(COMMAND "${SPK}" bench --device cpu --min-time 0 --repeat 2 --quiet --precision ${prec}
                          --formats teb,teb-fast,pbc,amf-csr,csr-scalar,csr5,tile,tile-csr,tile-dcoo,merge
                          "${DATA}/sherman3.mtx.gz" "${DATA}/nos3.mtx.gz" --json "${json}"
                  RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "spk bench --precision ${prec} failed (${rc}): ${err}")
  endif()
endforeach()
if(NOT PYTHON)
  message("SKIP: no python3 found, the tables were not made")
  return()
endif()
# a float run given as a double one is refused
execute_process(COMMAND "${PYTHON}" "${SCRIPT}" "${WORK}/bench-float.json"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "is a run in float, given as double")
  message(FATAL_ERROR "paper_tables.py took a float run for a double one (${rc}):\n${out}\n${err}")
endif()
execute_process(COMMAND "${PYTHON}" "${SCRIPT}" "${WORK}/bench.json" --float "${WORK}/bench-float.json"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "paper_tables.py failed (${rc}):\n${out}\n${err}")
endif()
# a row: | other | double | variant | mean | geomean | largest | k of 2 | paper | 0 |
foreach(row "pbc \\| double \\| teb" "amf-csr \\| double \\| teb" "csr-scalar \\| double \\| teb-fast"
            "csr5 \\| double \\| teb" "pbc \\| float \\| teb" "amf-csr \\| float \\| teb"
            "csr-scalar \\| float \\| teb" "csr5 \\| float \\| teb-fast")
  if(NOT out MATCHES "\\| ${row} \\| [0-9]+\\.[0-9][0-9] \\| [0-9]+\\.[0-9][0-9] \\| [0-9]+\\.[0-9][0-9] \\| [0-2] of 2 \\| [0-9]+\\.[0-9][0-9] \\| 0 \\|")
    message(FATAL_ERROR "paper_tables.py: no ratios for '${row}':\n${out}")
  endif()
endforeach()
foreach(row "tile \\| merge \\| double" "tile \\| csr5 \\| double" "tile-dcoo \\| tile \\| double"
            "tile \\| merge \\| float" "tile \\| csr5 \\| float")
  if(NOT out MATCHES "\\| ${row} \\| [0-9]+\\.[0-9][0-9] \\| [0-9]+\\.[0-9][0-9] \\| [0-9]+\\.[0-9][0-9] \\| [0-2] of 2 \\|")
    message(FATAL_ERROR "paper_tables.py: no ratios for '${row}':\n${out}")
  endif()
endforeach()
if(NOT out MATCHES "\\| teb \\| [0-9]+\\.[0-9][0-9] \\| [0-9]+\\.[0-9][0-9] \\| [0-9]+\\.[0-9][0-9] \\| [0-9]+\\.[0-9][0-9] \\| 2 \\|")
  message(FATAL_ERROR "paper_tables.py: no float-over-double row for teb:\n${out}")
endif()
# cuSPARSE's BSR runs on the GPU only: its pair has no matrices here
if(NOT out MATCHES "\\| tile \\| cusparse-bsr \\| double \\| — \\| — \\| — \\| — \\| 426\\.59x, 1638 of 2757 \\| 2 \\|")
  message(FATAL_ERROR "paper_tables.py: the missing pair is not shown as missing:\n${out}")
endif()
