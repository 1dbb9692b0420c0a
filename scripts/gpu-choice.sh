#!/usr/bin/env bash
# gpu-choice.sh -- on a GPU machine: the runs a rule that chooses the
# default's preconditioner and factorization is decided and reported with.
# Builds spk for sm_90, then runs spk bench over one half of the generated
# corpus (bench/corpus.txt) and, where SPK_SHARED_MATRICES is set, the
# shared set, with the fixed configurations (IC(0)/ILU(0) exact, none,
# Jacobi) and the rules under test (probe, factorization auto, both), and
# writes each run's JSON and its table (scripts/choice_table.py) to OUT_DIR.
#
#   scripts/gpu-choice.sh [HALF [OUT_DIR]]     (HALF: train (default) or test)
#
# Environment: CUDA_ARCH (default 90), BUILD (default build-gpu), REPEAT
# (solves per configuration, median kept; default 3), MAXIT (the solves'
# iteration limit; the fixed configurations that stall spend it), EXTRA
# (more --solve-config arguments).
set -uo pipefail
cd "$(dirname "$0")/.."
half=${1:-train}
out=${2:-choice-$half}
build=${BUILD:-build-gpu}
mkdir -p "$out"
cmake -S . -B "$build" -DSPK_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" -DSPK_FORTRAN=OFF \
      > "$out/configure.log" 2>&1 && cmake --build "$build" -j "$(nproc)" > "$out/build.log" 2>&1 \
  || { tail -30 "$out/build.log"; exit 1; }
configs=(--solve-config default --solve-config none:precond=none --solve-config jacobi:precond=jacobi
         --solve-config probe:probe=on --solve-config auto:factorization=auto
         --solve-config probe-auto:probe=on,factorization=auto ${EXTRA:-})
common=(--formats cusparse --solve-repeat "${REPEAT:-3}" --rhs-kind random ${MAXIT:+--maxit "$MAXIT"} "${configs[@]}")
status=0
"$build/spk" bench "${common[@]}" --list bench/corpus.txt --list-tag "$half" --json "$out/corpus.json" \
  > "$out/corpus.txt" 2> "$out/corpus.err" || status=1
python3 scripts/choice_table.py "$out/corpus.json" | tee "$out/corpus-table.txt" || status=1
if [ -n "${SPK_SHARED_MATRICES:-}" ]; then
  "$build/spk" bench "${common[@]}" --dir "$SPK_SHARED_MATRICES" --json "$out/shared.json" \
    > "$out/shared.txt" 2> "$out/shared.err" || status=1
  python3 scripts/choice_table.py "$out/shared.json" | tee "$out/shared-table.txt" || status=1
fi
exit $status
