#!/usr/bin/env bash
# gpu-check.sh -- on a machine with an NVIDIA GPU: build spk for sm_90 with
# CUDA, run the whole test suite (no test may be skipped), then run the GPU
# tests under compute-sanitizer (memcheck with leak checking).
#
#   scripts/gpu-check.sh [BUILD_DIR [STEPS]]   (default build-gpu, build,test,table,bench,memcheck)
#
# Steps: build, test, table, bench, memcheck, and (not by default) sync:
# racecheck (shared-memory hazards) and synccheck (barrier misuse) over GPU
# test runs that together launch every kernel of libspk (the step checks it
# with the CUPTI trace below); kernels: every kernel compiled into libspk
# (cuobjdump) must be launched by the GPU tests (recorded through CUPTI by
# tests/tools/kernel_trace.c), so the sanitizer runs cover every kernel.
#
# The sanitizer runs set SPK_UNDER_SANITIZER=1, which tells the tests that
# launches are instrumented (timing bounds are then said, not checked).
# Environment: SPK_SHARED_MATRICES (the SuiteSparse folder for the "shared"
# tests), CUDA_ARCH (default 90), JOBS (default: all cores), LOG_DIR (where
# logs are copied; default BUILD_DIR/logs), MEMCHECK_SHARED=1 (memcheck also
# every format on the whole shared set: slow), MEMCHECK_TESTS (the memcheck
# runs instead of the default list: space-separated, each a test and its
# arguments joined by colons, e.g. "test_precond_cuda:device:2/4
# test_solver_cuda:0/3": the long tests take I/N, every N-th case from the
# I-th, so each part fits a time limit), MEMCHECK_JOBS (memcheck runs at once,
# default 4), BENCH_SOLVE=1 (the bench step
# also solves with every format), SYNC_TESTS, SYNC_TOOLS and SYNC_JOBS (the
# sync step's test runs, tools and how many run at once), SYNC_TIMEOUT (seconds
# one sanitizer run may take; a run stopped by it fails the step).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
steps=${2:-build,test,table,bench,memcheck}
arch=${CUDA_ARCH:-90}
jobs=${JOBS:-$(nproc)}
logs=${LOG_DIR:-$build/logs}
mkdir -p "$logs"
status=0
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)

step() { case ",$steps," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

if step build; then
echo "== configure and build (sm_$arch)"
cmake -S . -B "$build" -DSPK_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" -DSPK_WERROR=ON \
      ${SPK_SHARED_MATRICES:+-DSPK_SHARED_MATRICES="$SPK_SHARED_MATRICES"} > "$logs/configure.log" 2>&1 \
  && cmake --build "$build" -j "$jobs" > "$logs/build.log" 2>&1
if [ $? -ne 0 ]; then
  tail -40 "$logs/configure.log" "$logs/build.log"
  echo "BUILD FAILED"
  exit 1
fi
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true

if step test; then
echo "== the whole test suite"
(cd "$build" && ctest -V -j 4 --timeout 900) > "$logs/ctest.log" 2>&1
rc=$?
grep -E "tests passed|Skipped|\*\*\*Failed|Not Run" "$logs/ctest.log"
[ $rc -eq 0 ] || status=1
if grep -q "Skipped" "$logs/ctest.log"; then
  echo "SOME TESTS WERE SKIPPED: the GPU suite must run completely on a GPU machine"
  status=1
fi
fi

if step table; then
echo "== per-matrix solves, GPU and host (the required set; modules loaded eagerly)"
CUDA_MODULE_LOADING=EAGER "$build/tests/test_shared_cuda" --required > "$logs/solve_table.txt" 2>&1
rc=$?
tail -2 "$logs/solve_table.txt"
[ $rc -eq 0 ] || status=1
fi

if step bench; then
echo "== spk bench: every format next to cuSPARSE (SpMV hot and cold, solves)"
bench_args=(--formats all --json "$logs/bench.json" --csv "$logs/bench.csv"
            gen:poisson3d-7:160 gen:poisson3d-27:100 gen:convdiff3d-7:128 gen:powerlaw:2000000)
[ -n "${SPK_SHARED_MATRICES:-}" ] && bench_args+=(--dir "$SPK_SHARED_MATRICES")
[ -n "${BENCH_SOLVE:-}" ] && bench_args+=(--solve)
"$build/spk" bench "${bench_args[@]}" > "$logs/bench.txt" 2> "$logs/bench.err" || status=1
grep -A30 "^summary" "$logs/bench.txt"
fi
if step memcheck; then
echo "== compute-sanitizer memcheck (leak check) on the GPU tests"
default_tests="test_exec_cuda test_spmv_cuda test_hmec_cuda test_tile_cuda test_auto_cuda test_solver_cuda
  test_api_cuda test_data_cuda test_precond_cuda:host test_precond_cuda:device ${MEMCHECK_SHARED:+test_spmv_shared_cuda}
  test_shared_cuda:bcsstk21 test_shared_cuda:sherman3 test_callbacks_cuda test_gmres_cuda test_pivot_cuda
  test_probe_cuda test_zsolve_cuda test_zapi_cuda test_devsolve_cuda"
# the runs go MEMCHECK_JOBS at a time on the one GPU (default 4), each into
# its own log; the summaries are printed in the list's order afterwards
memcheck_one() { # LOG TEST ARGS...
  local log=$1; shift
  local name=$1; shift
  SPK_UNDER_SANITIZER=1 "$san" --tool memcheck --leak-check full --error-exitcode 3 "$build/tests/$name" "$@" > "$log" 2>&1
  echo $? > "$log.rc"
}
memcheck_log() { # TEST:ARGS -> its log's path
  local name=${1%%:*} tag=
  [ "$name" != "$1" ] && tag=$(printf '%s' "${1#*:}" | tr ':/' '_-')
  echo "$logs/memcheck_${name}${tag:+_$tag}.log"
}
for t in ${MEMCHECK_TESTS:-$default_tests}; do
  while [ "$(jobs -rp | wc -l)" -ge "${MEMCHECK_JOBS:-4}" ]; do wait -n; done
  memcheck_one "$(memcheck_log "$t")" ${t//:/ } &
done
wait
for t in ${MEMCHECK_TESTS:-$default_tests}; do
  log=$(memcheck_log "$t")
  rc=$(cat "$log.rc" 2>/dev/null || echo none)
  echo "memcheck ${t//:/ }: exit $rc  $(grep -E "ERROR SUMMARY|LEAK SUMMARY" "$log" | tr '\n' ' ')"
  [ "$rc" = 0 ] || status=1
done
# the tile kernel shares per-warp sums in shared memory: racecheck it
log="$logs/racecheck_test_tile_cuda.log"
SPK_UNDER_SANITIZER=1 "$san" --tool racecheck --error-exitcode 3 "$build/tests/test_tile_cuda" > "$log" 2>&1
rc=$?
echo "racecheck test_tile_cuda: exit $rc  $(grep -E "RACECHECK SUMMARY|ERROR SUMMARY" "$log" | tr '\n' ' ')"
[ $rc -eq 0 ] || status=1
# test_oom_cuda makes cudaMalloc fail on purpose: memcheck would count those
# API errors, so it checks only memory errors and leaks there
log="$logs/memcheck_test_oom_cuda.log"
SPK_UNDER_SANITIZER=1 "$san" --tool memcheck --leak-check full --report-api-errors no --error-exitcode 3 \
  "$build/tests/test_oom_cuda" > "$log" 2>&1
rc=$?
echo "memcheck test_oom_cuda (API errors not reported): exit $rc  $(grep -E "ERROR SUMMARY|LEAK SUMMARY" "$log" | tr '\n' ' ')"
[ $rc -eq 0 ] || status=1
fi

# kernels compiled into libspk: mangled entry names (kernels_built.txt) and the
# same names demangled and reduced to their qualified name (kernels_ours.txt),
# the form hazard_check compares against
list_kernels() {
  local objdump filt
  objdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
  filt=$(command -v cu++filt || echo /usr/local/cuda/bin/cu++filt)
  [ -x "$filt" ] || filt=c++filt
  "$objdump" -symbols "$build/libspk.so" > "$logs/cuobjdump_symbols.txt" 2>&1
  # CUB compiles an empty kernel into each unit that includes it and never launches it
  awk '/STO_ENTRY/ {print $NF}' "$logs/cuobjdump_symbols.txt" | grep -v '^_ZN3cub.*EmptyKernel' \
    | sort -u > "$logs/kernels_built.txt"
  "$filt" < "$logs/kernels_built.txt" | kernel_base | sort -u > "$logs/kernels_ours.txt"
  [ -s "$logs/kernels_built.txt" ] && [ -s "$logs/kernels_ours.txt" ]
}
# a demangled kernel signature -> its qualified name ("void ns::k<T>(int)" -> "ns::k")
kernel_base() { sed -E 's/\(anonymous namespace\)/@anon@/g; s/^void //; s/[<(].*//'; }

# hazard_check TOOL LOG RC: the kernels a racecheck or synccheck log reports,
# split into spk's own (a failure) and library kernels (cuSPARSE: reported, not
# ours to fix).  Returns 1 when one of ours is named, or when the tool failed
# without naming any kernel.
hazard_check() {
  local tool=$1 log=$2 rc=$3 named mine others
  named=$(grep -oE '(access| ) at .+\+0x[0-9a-f]+' "$log" | sed -E 's/^(access| ) at //; s/\+0x[0-9a-f]+$//' \
          | kernel_base | sort | uniq -c | sort -rn)
  mine=$(printf '%s\n' "$named" | awk 'NF' | while read -r n k; do
           grep -qxF "$k" "$logs/kernels_ours.txt" && echo "$k x$n"; done)
  others=$(printf '%s\n' "$named" | awk 'NF' | while read -r n k; do
           grep -qxF "$k" "$logs/kernels_ours.txt" || echo "$k x$n"; done | tr '\n' ' ')
  [ -n "$others" ] && echo "    in library kernels (not spk's, not failed on): ${others//@anon@/(anonymous namespace)}"
  if [ -n "$mine" ]; then
    echo "    IN SPK KERNELS: $(echo "$mine" | sed 's/@anon@/(anonymous namespace)/g' | tr '\n' ' ')"
    return 1
  fi
  if [ "$rc" -ne 0 ] && [ -z "$named" ]; then
    echo "    $tool exited $rc without naming a kernel: see $log"
    return 1
  fi
  return 0
}

if step sync; then
echo "== compute-sanitizer racecheck and synccheck on the GPU tests (spk's kernels must be clean)"
if ! list_kernels; then
  echo "cannot list libspk's kernels (cuobjdump or a demangler missing):"; head -20 "$logs/cuobjdump_symbols.txt"
  status=1
else
# cuSPARSE's kernels are left out of the instrumentation (slow, and not ours);
# those it still reports are listed but do not fail the step.  The runs go
# SYNC_JOBS at a time (default 8) on the one GPU; test_data_cuda one matrix a
# run, as it is the slowest.
rm -rf "$logs/sync_trace"
sync_one() { # TOOL TEST[:ARG] -> its log and LOG.rc
  local tool=$1 name=${2%%:*} arg=
  [ "$name" != "$2" ] && arg=${2#*:}
  local log="$logs/${tool}_${name}${arg:+_$arg}.log" t0=$SECONDS
  SPK_UNDER_SANITIZER=1 ${SYNC_TIMEOUT:+timeout -k 10 "$SYNC_TIMEOUT"} "$san" --tool "$tool" --print-limit 0 --kernel-name-exclude kns=cusparse --error-exitcode 3 \
    "$build/tests/$name" $arg > "$log" 2>&1
  echo $? > "$log.rc"
  echo $((SECONDS - t0)) > "$log.s"
}
# The default runs launch every kernel of libspk (checked below); test_solver_cuda
# and the other test_data_cuda matrices launch no kernel these do not, and take
# over 8 minutes each under racecheck.
sync_tests=${SYNC_TESTS:-test_exec_cuda test_spmv_cuda test_hmec_cuda test_tile_cuda test_auto_cuda \
  test_api_cuda test_precond_cuda test_shared_cuda:bcsstk21 test_shared_cuda:sherman3 test_data_cuda:nos3 \
  test_data_cuda:west0479}
sync_tools=${SYNC_TOOLS:-racecheck synccheck}
for tool in $sync_tools; do
  for t in $sync_tests; do
    while [ "$(jobs -rp | wc -l)" -ge "${SYNC_JOBS:-8}" ]; do wait -n; done
    sync_one "$tool" "$t" &
  done
done
wait
for tool in $sync_tools; do
  for t in $sync_tests; do
    name=${t%%:*} arg=
    [ "$name" != "$t" ] && arg=${t#*:}
    log="$logs/${tool}_${name}${arg:+_$arg}.log"
    rc=$(cat "$log.rc" 2>/dev/null || echo "none")
    echo "$tool $name $arg: exit $rc after $(cat "$log.s" 2>/dev/null || echo ?) s  $(grep -E "RACECHECK SUMMARY|ERROR SUMMARY" "$log" | tr '\n' ' ')"
    case $rc in
      0|3) hazard_check "$tool" "$log" "$rc" || status=1 ;;
      124|137) echo "    stopped after SYNC_TIMEOUT=${SYNC_TIMEOUT:-} s: not checked"; status=1 ;;
      *) echo "    the test failed under $tool"; status=1 ;;
    esac
  done
done
# Which of spk's kernels the finished runs checked: each run again, without a
# sanitizer, under the CUPTI trace (tests/tools/kernel_trace.c).
if [ -f "$build/tests/libspk_kernel_trace.so" ]; then
  for tool in $sync_tools; do
    : > "$logs/${tool}_kernels.txt"
    for t in $sync_tests; do
      name=${t%%:*} arg=
      [ "$name" != "$t" ] && arg=${t#*:}
      log="$logs/${tool}_${name}${arg:+_$arg}.log"
      case $(cat "$log.rc" 2>/dev/null) in 0|3) ;; *) continue ;; esac
      tr="$logs/sync_trace/${name}${arg:+_$arg}"
      if [ ! -d "$tr" ]; then
        mkdir -p "$tr"
        CUDA_INJECTION64_PATH="$build/tests/libspk_kernel_trace.so" SPK_KERNEL_TRACE="$tr" \
          "$build/tests/$name" $arg > /dev/null 2>&1 || echo "$name $arg failed under the trace"
      fi
      cat "$tr"/kernels.* >> "$logs/${tool}_kernels.txt" 2>/dev/null
    done
    sort -u -o "$logs/${tool}_kernels.txt" "$logs/${tool}_kernels.txt"
    missed=$(comm -23 "$logs/kernels_built.txt" "$logs/${tool}_kernels.txt")
    echo "$tool checked $(comm -12 "$logs/kernels_built.txt" "$logs/${tool}_kernels.txt" | wc -l)" \
         "of the $(wc -l < "$logs/kernels_built.txt") kernels in libspk"
    if [ -n "$missed" ]; then echo "  not checked by $tool:"; echo "$missed" | sed 's/^/    /'; status=1; fi
  done
else
  echo "the CUPTI trace library is missing: which kernels $sync_tools checked is unknown"; status=1
fi
fi
fi

if step kernels; then
echo "== kernel coverage: every kernel in libspk launched by the GPU tests"
trace="$logs/kernel_trace"
rm -rf "$trace" && mkdir -p "$trace"
if ! list_kernels || [ ! -f "$build/tests/libspk_kernel_trace.so" ]; then
  echo "cannot list the kernels (cuobjdump output or CUPTI trace library missing):"
  head -20 "$logs/cuobjdump_symbols.txt"
  status=1
else
  for t in test_exec_cuda test_spmv_cuda test_hmec_cuda test_tile_cuda test_auto_cuda test_solver_cuda \
           test_api_cuda test_data_cuda test_precond_cuda test_oom_cuda "test_shared_cuda bcsstk21"; do
    set -- $t
    name=$1; shift
    CUDA_INJECTION64_PATH="$build/tests/libspk_kernel_trace.so" SPK_KERNEL_TRACE="$trace" \
      "$build/tests/$name" "$@" > /dev/null 2>&1 || { echo "$name failed under the trace"; status=1; }
  done
  cat "$trace"/kernels.* 2>/dev/null | sort -u > "$logs/kernels_launched.txt"
  comm -23 "$logs/kernels_built.txt" "$logs/kernels_launched.txt" > "$logs/kernels_missed.txt"
  echo "kernels in libspk: $(wc -l < "$logs/kernels_built.txt"), launched by the tests:" \
       "$(comm -12 "$logs/kernels_built.txt" "$logs/kernels_launched.txt" | wc -l)"
  if [ -s "$logs/kernels_missed.txt" ]; then
    echo "never launched:"
    sed 's/^/  /' "$logs/kernels_missed.txt"
    status=1
  fi
fi
fi

[ $status -eq 0 ] && echo "GPU CHECK PASSED" || echo "GPU CHECK FAILED"
exit $status
