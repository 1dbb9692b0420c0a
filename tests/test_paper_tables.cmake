# test_paper_tables.cmake -- scripts/paper_tables.py on the JSON of a host run
# of spk bench over the formats the TEB and TileSpMV papers compare: each
# pair whose two formats ran gets its ratios (numbers, not "—"), and the
# papers' figures are beside them.  Prints "SKIP:" when there is no python3.
# Inputs: SPK, DATA, SCRIPT (paper_tables.py), PYTHON, WORK.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND "${SPK}" bench --device cpu --min-time 0 --repeat 2 --quiet
                        --formats teb,teb-fast,pbc,amf-csr,csr-scalar,csr5,tile,tile-csr,tile-dcoo,merge
                        "${DATA}/sherman3.mtx.gz" "${DATA}/nos3.mtx.gz" --json "${WORK}/bench.json"
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "spk bench failed (${rc}): ${err}")
endif()
if(NOT PYTHON)
  message("SKIP: no python3 found, the tables were not made")
  return()
endif()
execute_process(COMMAND "${PYTHON}" "${SCRIPT}" "${WORK}/bench.json"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "paper_tables.py failed (${rc}):\n${out}\n${err}")
endif()
# a row: | other | double | variant | mean | geomean | largest | k of 2 | paper | 0 |
foreach(row "pbc \\| double \\| teb" "amf-csr \\| double \\| teb" "csr-scalar \\| double \\| teb-fast"
            "csr5 \\| double \\| teb")
  if(NOT out MATCHES "\\| ${row} \\| [0-9]+\\.[0-9][0-9] \\| [0-9]+\\.[0-9][0-9] \\| [0-9]+\\.[0-9][0-9] \\| [0-2] of 2 \\| [0-9]+\\.[0-9][0-9] \\| 0 \\|")
    message(FATAL_ERROR "paper_tables.py: no ratios for '${row}':\n${out}")
  endif()
endforeach()
foreach(row "tile \\| merge \\| double" "tile \\| csr5 \\| double" "tile-dcoo \\| tile \\| double")
  if(NOT out MATCHES "\\| ${row} \\| [0-9]+\\.[0-9][0-9] \\| [0-9]+\\.[0-9][0-9] \\| [0-9]+\\.[0-9][0-9] \\| [0-2] of 2 \\|")
    message(FATAL_ERROR "paper_tables.py: no ratios for '${row}':\n${out}")
  endif()
endforeach()
# cuSPARSE's BSR runs on the GPU only: its pair has no matrices here
if(NOT out MATCHES "\\| tile \\| cusparse-bsr \\| double \\| — \\| — \\| — \\| — \\| 426\\.59x, 1638 of 2757 \\| 2 \\|")
  message(FATAL_ERROR "paper_tables.py: the missing pair is not shown as missing:\n${out}")
endif()
