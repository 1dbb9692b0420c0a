#!/usr/bin/env bash
# complex-choice.sh -- the runs the complex systems' default preconditioner is
# decided and reported with: every problem of bench/complex-corpus.txt solved
# with no preconditioner, Jacobi and IC(0)/ILU(0) (CONFIGS), on the
# GPU (REPEAT solves each, the median kept) and on the host (one), random
# right-hand sides; one JSON line per solve (spk solve --json) in OUT/runs.jsonl.
#
#   scripts/complex-choice.sh BUILD_DIR OUT_DIR
#
# Environment: REPEAT (GPU solves per configuration, default 3), PER (seconds
# one solve may take, default 20), LIMIT (seconds for the whole run, default
# 600), DEVICES (default "cuda cpu"), THREADS (host threads, default: all).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?build folder}
out=${2:?output folder}
mkdir -p "$out"
t0=$SECONDS
: > "$out/runs.jsonl"
while read -r half spec method; do
  case "$half" in "#"* | "") continue ;; esac
  for dev in ${DEVICES:-cuda cpu}; do
    reps=${REPEAT:-3}
    [ "$dev" = cpu ] && reps=1
    for pc in ${CONFIGS:-none jacobi factor}; do
      for ((k = 0; k < reps; k++)); do
        [ $((SECONDS - t0)) -gt "${LIMIT:-600}" ] && { echo "out of time at $spec"; exit 0; }
        line=$(timeout "${PER:-20}" "$build/spk" solve "gen:$spec" --device "$dev" ${THREADS:+--threads $THREADS} \
               --solver "$method" --precond "$pc" --rhs-kind random --rtol 1e-8 --maxit 20000 --json 2>/dev/null)
        [ -n "$line" ] || line='{"status": "timeout or error"}'
        echo "{\"half\": \"$half\", \"spec\": \"$spec\", \"method\": \"$method\", \"device\": \"$dev\", \"asked\": \"$pc\", \"run\": $line}" \
          >> "$out/runs.jsonl"
      done
    done
  done
done < bench/complex-corpus.txt
echo "done in $((SECONDS - t0)) s"
