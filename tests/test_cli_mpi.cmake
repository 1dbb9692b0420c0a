# test_cli_mpi.cmake -- `mpirun -np NP spk solve` as a user runs it: one report
# (not one per rank), the iterations and solution of one process, gen: problems
# made on each rank, --out gathered in the file's order (also for METIS
# parts), errors and usage errors said once with every rank's exit status.
# Inputs: SPK, MPIEXEC, NP, DATA (data/), FILES (tests/mm), WORK, METIS (1: built
# with METIS).
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

# run(<expected exit code> <out var> <err var> <ranks> args...): ranks 0: one process
function(run expect outv errv np)
  if(np EQUAL 0)
    execute_process(COMMAND "${SPK}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  else()
    execute_process(COMMAND "${MPIEXEC}" -n ${np} --oversubscribe "${SPK}" ${ARGN}
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  endif()
  if(NOT rc STREQUAL "${expect}")
    message(SEND_ERROR "${np} ranks: spk ${ARGN}: exit code ${rc}, expected ${expect}\nstdout: ${out}\nstderr: ${err}")
  endif()
  set(${outv} "${out}" PARENT_SCOPE)
  set(${errv} "${err}" PARENT_SCOPE)
endfunction()

include("${CMAKE_CURRENT_LIST_DIR}/expect.cmake")

# the number of times part occurs in text must be n
function(expect_count text part n what)
  string(REGEX MATCHALL "${part}" all "${text}")
  list(LENGTH all got)
  if(NOT got EQUAL n)
    message(SEND_ERROR "${what}: '${part}' printed ${got} times, expected ${n}:\n${text}")
  endif()
endfunction()

# "after K iterations" -> K
function(iterations text outv)
  string(REGEX MATCH "after ([0-9]+) iterations" m "${text}")
  set(${outv} "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()

# two solution files agree entry by entry to the first 9 characters (rtol 1e-12: the
# ranks' sums in another order change the last digits only)
function(same_x a b what)
  file(STRINGS "${a}" la)
  file(STRINGS "${b}" lb)
  list(LENGTH la na)
  list(LENGTH lb nb)
  if(NOT na EQUAL nb OR na LESS 3)
    message(SEND_ERROR "${what}: ${na} and ${nb} lines")
    return()
  endif()
  math(EXPR last "${na} - 1")
  foreach(i RANGE 2 ${last})
    list(GET la ${i} x)
    list(GET lb ${i} y)
    string(SUBSTRING "${x}" 0 9 x)
    string(SUBSTRING "${y}" 0 9 y)
    if(NOT x STREQUAL y)
      message(SEND_ERROR "${what}: line ${i}: ${x} against ${y}")
      return()
    endif()
  endforeach()
endfunction()

# CG and BiCGStab without a preconditioner and with Jacobi: the iterations of one process,
# the report once, and x (random x*, so every entry differs) gathered in order
run(0 out err 0 gen convdiff3d-7:10:20 "${WORK}/cd.mtx")
foreach(case "${DATA}/nos3.mtx.gz;cg" "${WORK}/cd.mtx;bicgstab")
  list(GET case 0 m)
  list(GET case 1 method)
  foreach(pc none jacobi)
    set(args solve "${m}" --solver ${method} --precond ${pc} --rtol 1e-12 --rhs-kind random)
    run(0 one err 0 ${args} --device cpu --probe off --out "${WORK}/one.mtx")
    run(0 out err ${NP} ${args} --out "${WORK}/ranks.mtx")
    iterations("${one}" k1)
    iterations("${out}" kn)
    if(NOT k1 STREQUAL kn OR k1 STREQUAL "")
      message(SEND_ERROR "${m} ${pc}: ${kn} iterations on ${NP} ranks, ${k1} on one process\n${out}\n${one}")
    endif()
    expect_count("${out}" "result    " 1 "${m} ${pc}: one report")
    if(NP GREATER 1)
      expect_in("${out}" "host, ${NP} MPI ranks" "${m} ${pc}: the ranks said")
    endif()
    same_x("${WORK}/one.mtx" "${WORK}/ranks.mtx" "${m} ${pc}: x gathered")
  endforeach()
endforeach()

# the default: block-Jacobi IC(0) (one rank: IC(0) itself), converged, error small
run(0 out err ${NP} solve "${DATA}/nos3.mtx.gz")
expect_count("${out}" "converged \\(rtol\\)" 1 "nos3 default")
if(NP GREATER 1)
  expect_in("${out}" "CG + block-Jacobi IC(0) (auto)" "nos3 default: the method")
endif()

# a gen: problem made on each rank: the iterations of one process
run(0 one err 0 solve gen:poisson3d-7:12 --device cpu --precond none --probe off)
run(0 out err ${NP} solve gen:poisson3d-7:12 --precond none --json)
iterations("${one}" k1)
expect_in("${out}" "\"iterations\": ${k1}," "gen on each rank: iterations")
if(NP GREATER 1)
  expect_in("${out}" "\"ranks\": ${NP}," "gen --json: ranks")
endif()
expect_count("${out}" "\"iterations\"" 1 "gen --json: one object")
string(FIND "${out}" "{\"schema\": " at)
if(NOT at EQUAL 0)
  message(SEND_ERROR "gen --json: the object does not begin with its schema: ${out}")
endif()

# METIS parts: x comes back in the file's order
if(METIS AND NP GREATER 1)
  run(0 one err 0 solve "${DATA}/nos3.mtx.gz" --precond none --rtol 1e-12 --rhs-kind random --device cpu
      --probe off --out "${WORK}/one.mtx")
  run(0 out err ${NP} solve "${DATA}/nos3.mtx.gz" --precond none --rtol 1e-12 --rhs-kind random --partition metis
      --out "${WORK}/metis.mtx")
  expect_in("${out}" "METIS parts" "metis: said")
  same_x("${WORK}/one.mtx" "${WORK}/metis.mtx" "metis: x gathered in the file's order")
endif()

# b from a file (any vector of n entries: a solution of nos3), in the parts' order too
run(0 out err 0 solve "${DATA}/nos3.mtx.gz" --rhs-kind random --device cpu --out "${WORK}/b.mtx")
run(0 out err 0 solve "${DATA}/nos3.mtx.gz" --precond none --rtol 1e-12 --rhs "${WORK}/b.mtx" --device cpu
    --probe off --out "${WORK}/one_rhs.mtx")
set(parts rows)
if(METIS AND NP GREATER 1)
  list(APPEND parts metis)
endif()
foreach(part ${parts})
  run(0 out err ${NP} solve "${DATA}/nos3.mtx.gz" --precond none --rtol 1e-12 --rhs "${WORK}/b.mtx"
      --partition ${part} --out "${WORK}/ranks_rhs.mtx")
  expect_in("${out}" "rhs       b = ${WORK}/b.mtx" "--rhs ${part}: said")
  same_x("${WORK}/one_rhs.mtx" "${WORK}/ranks_rhs.mtx" "--rhs ${part}: x")
endforeach()
run(1 out err ${NP} solve "${DATA}/nos3.mtx.gz" --rhs "${WORK}/cd.mtx")
expect_count("${err}" "spk solve" 1 "--rhs of another size: one message")

# errors: said once, every rank's exit status the same
run(1 out err ${NP} solve "${FILES}/bad_nan.mtx")
expect_count("${err}" "bad_nan.mtx" 1 "a bad file: one message")
run(2 out err ${NP} solve "${DATA}/nos3.mtx.gz" --bogus)
expect_count("${err}" "unknown option '--bogus'" 1 "usage error: one message")
run(1 out err ${NP} solve "${DATA}/nos3.mtx.gz" --out "${WORK}/nonexistent/x.mtx")
expect_count("${err}" "does not exist" 1 "--out into a missing folder: one message")
run(1 out err ${NP} solve "${DATA}/sherman3.mtx.gz" --maxit 3 --out "${WORK}/never.mtx")
expect_in("${err}" "did not converge" "not converged")
if(EXISTS "${WORK}/never.mtx")
  message(SEND_ERROR "not converged: --out was written")
endif()
if(NP GREATER 1)
  run(2 out err ${NP} solve "${DATA}/nos3.mtx.gz" --device cuda)
  expect_count("${err}" "host ranks" 1 "--device cuda across ranks: one message")
endif()
