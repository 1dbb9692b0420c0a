#!/usr/bin/env bash
# bench-results.sh -- the benchmark behind docs/benchmarks.md, in parts of a
# few minutes each on a GPU machine, then the charts and tables.
#
#   scripts/bench-results.sh run PART OUTDIR   (on the GPU machine; PART below)
#   scripts/bench-results.sh report OUTDIR     (anywhere: charts + summary.md)
#
# Parts: shared1..shared6 (the ../shared/matrices set, or SPK_SHARED_MATRICES,
# split in six by name in byte order; about 3-5 minutes each on an H100), gen-small (1M nonzeros each), gen-poisson7,
# gen-poisson27, gen-convdiff, gen-powerlaw (about 100M nonzeros each).  Every
# part runs `spk bench --formats all --solve` and writes OUTDIR/bench-PART.json
# (and .csv, .txt); `report` merges every bench-*.json of OUTDIR.
# Environment: SPK (the spk binary, default build-gpu/spk), MIN_TIME (0.2),
# MAXIT (the solves' iteration limit, default 10000), FORMATS (default all),
# SWEEPS (the solves' --precond-sweeps; the files are then named
# bench-PART-sweepsK.*; give them their own OUTDIR, as report merges every
# bench-*.json of one), ISAI=1 (--precond-isai, files bench-PART-isai.*),
# REORDER=multicolor|block-multicolor (--reorder, files bench-PART-REORDER.*;
# REORDER_BLOCK=B adds --reorder-block B, files bench-PART-REORDER-B.*),
# SOLVE_CONFIGS="NAME:key=value,... ..." (one --solve-config each, files
# bench-PART-configs.*; SOLVE=0 then drops the per-format solves).
# Part gen-target: the generated problems at the sizes of the cuSPARSE
# reference run (../shared/baseline-h100): poisson3d-7:64, poisson3d-7:160,
# poisson3d-27:100, convdiff3d-7:128.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
spk=${SPK:-build-gpu/spk}
min=${MIN_TIME:-0.2}
maxit=${MAXIT:-10000}
case "$mode" in
run)
  part=${2:?part}; out=${3:?outdir}
  mkdir -p "$out"
  args=()
  case "$part" in
  shared[1-6])
    dir=${SPK_SHARED_MATRICES:-../shared/matrices}
    k=${part#shared}
    mapfile -t files < <(ls "$dir" | grep -E '\.mtx(\.gz)?$' | LC_ALL=C sort)
    n=${#files[@]}
    for ((i = 0; i < n; i++)); do
      if (( i * 6 / n + 1 == k )); then args+=("$dir/${files[$i]}"); fi
    done ;;
  gen-small) args=(gen:poisson3d-7:55 gen:poisson3d-27:35 gen:convdiff3d-7:55 gen:powerlaw:65000) ;;
  gen-poisson7) args=(gen:poisson3d-7:245) ;;      # 103M nonzeros
  gen-poisson27) args=(gen:poisson3d-27:157) ;;    # 103M nonzeros
  gen-convdiff) args=(gen:convdiff3d-7:245) ;;     # 103M nonzeros
  gen-powerlaw) args=(gen:powerlaw:6500000) ;;     # about 102M nonzeros
  gen-target) args=(gen:poisson3d-7:64 gen:poisson3d-7:160 gen:poisson3d-27:100 gen:convdiff3d-7:128) ;;
  *) echo "unknown part '$part'" >&2; exit 2 ;;
  esac
  name=$part extra=()
  if [ -n "${SWEEPS:-}" ]; then name=$part-sweeps$SWEEPS extra=(--precond-sweeps "$SWEEPS"); fi
  if [ -n "${ISAI:-}" ]; then name=$part-isai extra=(--precond-isai); fi
  if [ -n "${REORDER:-}" ]; then name=$name-$REORDER extra+=(--reorder "$REORDER"); fi
  if [ -n "${REORDER_BLOCK:-}" ]; then name=$name-$REORDER_BLOCK extra+=(--reorder-block "$REORDER_BLOCK"); fi
  solve=(--solve)
  if [ -n "${SOLVE_CONFIGS:-}" ]; then
    name=$name-configs
    for c in $SOLVE_CONFIGS; do extra+=(--solve-config "$c"); done
    [ "${SOLVE:-1}" = 0 ] && solve=()
  fi
  start=$(date +%s) rc=0
  "$spk" bench --formats "${FORMATS:-all}" "${solve[@]}" --min-time "$min" --maxit "$maxit" "${extra[@]}" \
    --json "$out/bench-$name.json" --csv "$out/bench-$name.csv" "${args[@]}" > "$out/bench-$name.txt" \
    2> "$out/bench-$name.err" || rc=$?
  echo "part $name: $(( $(date +%s) - start )) s" | tee -a "$out/bench-$name.txt"
  tail -25 "$out/bench-$name.txt"
  exit $rc ;;
report)
  out=${2:?outdir}
  python3 scripts/bench_plots.py "$out"/bench-*.json "$out/charts" ;;
*)
  sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'
  exit 2 ;;
esac
