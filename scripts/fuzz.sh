#!/usr/bin/env bash
# fuzz.sh -- fuzz the Matrix Market reader (tests/fuzz/fuzz_mmio.c) with
# libFuzzer under AddressSanitizer (leaks included) and UndefinedBehaviorSanitizer.
#
#   scripts/fuzz.sh [SECONDS [BUILD_DIR]]     (default 60 s, build-fuzz)
#
# Installs clang when it is missing (Debian/Ubuntu, apt-get), builds with
# -DSPK_FUZZ=ON, starts from the seed corpus (tests/mm, tests/fuzz/seeds and
# every past finding in tests/fuzz/regress) and fuzzes for SECONDS.  Exits
# nonzero on any crash, leak, timeout or sanitizer report; the input is saved
# in BUILD_DIR/findings/ -- fix the bug, then add the input to
# tests/fuzz/regress/ so test_fuzz_regress replays it from then on.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
build=${2:-build-fuzz}

if ! command -v clang >/dev/null 2>&1; then
  echo "fuzz.sh: installing clang (libFuzzer)"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clang
fi
mkdir -p "$build"
cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPK_CUDA=OFF \
      -DSPK_FUZZ=ON -DSPK_SANITIZE=address,undefined -DSPK_WERROR=ON > "$build/configure.log" 2>&1 \
  || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" --target fuzz_mmio > "$build/build.log" 2>&1 \
  || { tail -40 "$build/build.log"; exit 1; }

mkdir -p "$build/corpus" "$build/findings"
echo "fuzz.sh: fuzzing the Matrix Market reader for $secs s"
set +e
# A header may legally claim 2^31 rows: the reader then asks for gigabytes of
# row pointers.  ASan refuses allocations over 256 MB (malloc returns NULL),
# so the reader's out-of-memory path runs, and its message must name the
# input; libFuzzer's own limit (2 GB) stays above that and catches real leaks
# or growth.  A claim just under the cap (60M empty rows) takes seconds to
# read under the sanitizers, hence the 30 s per input.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1:max_allocation_size_mb=256 \
UBSAN_OPTIONS=print_stacktrace=1 \
  "$build/tests/fuzz_mmio" -max_total_time="$secs" -timeout=30 -rss_limit_mb=2560 -malloc_limit_mb=2048 \
  -max_len=8192 \
  -dict=tests/fuzz/mm.dict -artifact_prefix="$build/findings/" -print_final_stats=1 \
  "$build/corpus" tests/mm tests/fuzz/seeds tests/fuzz/regress > "$build/fuzz.log" 2>&1
rc=$?
set -e
grep -E "^(stat::number_of_executed_units|stat::new_units_added|stat::peak_rss_mb)|#[0-9]+ *DONE" "$build/fuzz.log" || true
if [ $rc -ne 0 ]; then
  tail -60 "$build/fuzz.log"
  echo "fuzz.sh: FAILED (exit $rc); the input is in $build/findings/"
  exit 1
fi
echo "fuzz.sh: no crash, leak or sanitizer report in $secs s"
