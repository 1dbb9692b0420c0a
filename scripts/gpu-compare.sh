#!/usr/bin/env bash
# gpu-compare.sh -- two builds of spk on one GPU in one run: `spk bench`
# with the same solve configurations over the same inputs, the old binary
# and the new in turn, twice (the old binary's two runs give the spread),
# then scripts/compare_runs.py.  For a change that must not slow anything.
#
#   scripts/gpu-compare.sh OLD_SPK NEW_SPK OUTDIR INPUT...
#
# INPUT: what spk bench takes (files, --dir DIR, gen:SPEC).  Environment:
# FORMATS (the products timed; default cusparse,csr-vector,ell,bell,hyb,
# hmec,teb,tile), MAXIT (the solves' limit, default 3000), ROUNDS (2),
# PART (a name for the files, default run).
set -euo pipefail
old=${1:?old spk}; new=${2:?new spk}; out=${3:?outdir}; shift 3
mkdir -p "$out"
part=${PART:-run}
args=(--formats "${FORMATS:-cusparse,csr-vector,ell,bell,hyb,hmec,teb,tile}" --repeat 5 --min-time 0.02
      --maxit "${MAXIT:-3000}" --quiet
      --solve-config default --solve-config graph:vector=graph --solve-config fused:vector=fused
      --solve-config classic:vector=classic --solve-config norace:race=0 --solve-config exact:sweeps=0)
for r in $(seq 1 "${ROUNDS:-2}"); do
  for which in old new; do
    bin=$old
    [ "$which" = new ] && bin=$new
    "$bin" bench "${args[@]}" --json "$out/$part-$which$r.json" "$@" > "$out/$part-$which$r.txt"
  done
done
bases=() news=()
for r in $(seq 1 "${ROUNDS:-2}"); do
  bases+=("$out/$part-old$r.json")
  news+=("$out/$part-new$r.json")
done
python3 "$(dirname "$0")/compare_runs.py" --base "${bases[@]}" --new "${news[@]}" --md "$out/$part-compare.md"
