#!/usr/bin/env bash
# gpu-choice.sh -- on a GPU machine: the runs a rule that chooses the
# default's preconditioner and factorization is decided and reported with.
# Builds spk for sm_90, then runs spk bench once per problem (each with its
# own time limit, so one slow problem costs only itself) over one half of
# the generated corpus (bench/corpus.txt) and, where SPK_SHARED_MATRICES is
# set, the shared set, with the fixed configurations (none, Jacobi,
# IC(0)/ILU(0)), the default and the previous default (probe off, exact
# factorization), merges each set's JSON into one file and writes its
# tables (scripts/choice_table.py) to OUT_DIR.
#
#   scripts/gpu-choice.sh [HALF [OUT_DIR]]     (HALF: train (default) or test)
#
# Environment: CUDA_ARCH (default 90), BUILD (default build-gpu), REPEAT
# (solves per configuration, median kept; default 3), MAXIT (default 5000),
# PER (seconds a problem may take; default 60), LIMIT (seconds for the whole
# run, build included; default 3000), EXTRA (more --solve-config arguments,
# at most 8 configurations in all).
set -uo pipefail
cd "$(dirname "$0")/.."
half=${1:-train}
out=${2:-choice-$half}
build=${BUILD:-build-gpu}
t0=$SECONDS
mkdir -p "$out/runs"
cmake -S . -B "$build" -DSPK_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" -DSPK_FORTRAN=OFF \
      > "$out/configure.log" 2>&1 && cmake --build "$build" -j "$(nproc)" > "$out/build.log" 2>&1 \
  || { tail -30 "$out/build.log"; exit 1; }
configs=(--solve-config none:precond=none --solve-config jacobi:precond=jacobi
         --solve-config factor:precond=factor --solve-config default
         --solve-config previous:probe=off,factorization=exact ${EXTRA:-})
common=(--formats cusparse --repeat 5 --min-time 0.02 --solve-repeat "${REPEAT:-3}" --rhs-kind random
        --maxit "${MAXIT:-5000}" "${configs[@]}")
status=0
# one problem: its run's JSON as runs/TAG.json (nothing where it ran out of time)
one() {
  local left=$((${LIMIT:-3000} - (SECONDS - t0)))
  if [ "$left" -lt 10 ]; then echo "out of time before $2"; return 1; fi
  local t=$((left < ${PER:-60} ? left : ${PER:-60}))
  timeout -k 2 "$t" "$build/spk" bench "${common[@]}" "$2" --json "$out/runs/$1.json" > "$out/runs/$1.txt" 2>&1 \
    || { echo "$2: exit $? after $((SECONDS - t0)) s"; status=1; }
  return 0
}
# the runs named PREFIX*.json merged into NAME.json, and their tables
table() {
  python3 - "$out/$2.json" "$out"/runs/"$1"*.json <<'PY' || status=1
import json, sys
mats, head = [], None
for path in sorted(sys.argv[2:], key=lambda p: int("".join(c for c in p.rsplit("/", 1)[-1] if c.isdigit()) or 0)):
    try:
        d = json.load(open(path))
    except ValueError:
        continue
    head = head or d
    mats += d.get("matrices", [])
if head is None:
    sys.exit("no run ended with its JSON")
head["matrices"] = mats
for k in ("summary", "config_summary"):
    head.pop(k, None)
json.dump(head, open(sys.argv[1], "w"))
PY
  python3 scripts/choice_table.py "$out/$2.json" --fixed none,jacobi,factor | tee "$out/$2-table.txt" || status=1
  python3 scripts/choice_table.py "$out/$2.json" --fixed none,jacobi,factor --detail default --markdown \
    > "$out/$2-default.md" || status=1
}
i=0
for spec in $(awk -v h="$half" '$1 ~ /^gen:/ && $2 == h {print $1}' bench/corpus.txt); do
  i=$((i + 1)); one "c$i" "$spec" || break
done
table c corpus
if [ -n "${SPK_SHARED_MATRICES:-}" ]; then
  i=0
  for f in "$SPK_SHARED_MATRICES"/*.mtx*; do i=$((i + 1)); one "s$i" "$f" || break; done
  table s shared
fi
exit $status
