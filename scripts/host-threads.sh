#!/usr/bin/env bash
# host-threads.sh -- the host path's scaling with threads on this machine:
# the CSR product against the copy bandwidth (spk bench --device cpu) and
# default solves with IC(0)/ILU(0) (spk solve --probe off), for 1, 2, 4, ...
# threads up to the cores, each count's JSON and a table in OUT_DIR.
#
#   scripts/host-threads.sh [BUILD_DIR [OUT_DIR]]   (default build, host-threads)
#
# Environment: PROBLEMS (the solves' gen:SPECs), PRODUCTS (the products'),
# MAX_THREADS (default: nproc).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-host-threads}
mkdir -p "$out"
max=${MAX_THREADS:-$(nproc)}
products=${PRODUCTS:-"gen:poisson3d-7:160 gen:elasticity3d:40 gen:powerlaw:4000000"}
problems=${PROBLEMS:-"gen:poisson3d-7:100 gen:convdiff3d-7:100 gen:elasticity3d:30"}
counts=()
for ((t = 1; t < max; t *= 2)); do counts+=("$t"); done
counts+=("$max")
status=0
for t in "${counts[@]}"; do
  # shellcheck disable=SC2086
  "$build/spk" bench --device cpu --threads "$t" --formats csr --min-time 0.3 --quiet $products \
    --json "$out/bench_t$t.json" > "$out/bench_t$t.txt" 2>&1 || status=1
  for p in $problems; do
    "$build/spk" solve "$p" --device cpu --threads "$t" --probe off --json > "$out/solve_t${t}_${p#gen:}.json" \
      2> /dev/null || status=1
  done
done
python3 - "$out" "${counts[@]}" <<'PY' || status=1
import glob, json, os, sys
out, counts = sys.argv[1], [int(c) for c in sys.argv[2:]]
print("CSR product: GB/s by CSR traffic (fraction of the copy bandwidth measured with the same threads)")
rows = {}
for t in counts:
    d = json.load(open(os.path.join(out, "bench_t%d.json" % t)))
    for m in d["matrices"]:
        for f in m.get("formats", []):
            if f.get("format") == "csr" and f.get("status") == "ok":
                h = f["hot"]
                rows.setdefault(m["name"], {})[t] = "%.1f (%.2f)" % (h["gbs_csr"], h["frac_copy"])
print("| matrix | " + " | ".join("%d thr" % t for t in counts) + " |")
for name, r in rows.items():
    print("| %s | " % name + " | ".join(r.get(t, "-") for t in counts) + " |")
print("\nsolves: total ms (speedup over 1 thread)")
print("| problem | " + " | ".join("%d thr" % t for t in counts) + " |")
for path in sorted(glob.glob(os.path.join(out, "solve_t1_*.json"))):
    name = path.split("solve_t1_", 1)[1][:-5]
    cells, base = [], None
    for t in counts:
        try:
            d = json.load(open(os.path.join(out, "solve_t%d_%s.json" % (t, name))))
            ms = d["time_ms"]["total"]
            base = base or ms
            cells.append("%.0f (%.2fx)" % (ms, base / ms))
        except (OSError, ValueError, KeyError):
            cells.append("-")
    print("| %s | " % name + " | ".join(cells) + " |")
PY
exit $status
