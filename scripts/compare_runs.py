#!/usr/bin/env python3
"""compare_runs.py -- two builds of spk compared on one machine, from
`spk bench --json` runs made in turn (A B A B ...): each configuration's
time to solution and each format's product time, the new build over the
old, next to the spread between two runs of the old build.

  scripts/compare_runs.py --base A1.json A2.json --new B1.json B2.json [--md OUT.md]

A (matrix, configuration) counts only where every run converged.  The
spread is |A2 / A1 - 1| per item; an item is 'slower' when the new
build's best run is slower than the old build's best by more than the
larger of that item's spread and the median spread.  Iterations are
compared too: a change there means the math moved.
"""
import argparse
import json
import math
import statistics
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def items(run):
    """{(matrix, 'solve:'+config): (ms, iterations)} and {(matrix, 'spmv:'+format): ms}."""
    out = {}
    for m in run["matrices"]:
        for c in m.get("configs") or []:
            if c.get("status") == "converged" and c.get("total_ms"):
                out[(m["name"], "solve:" + c["name"])] = (c["total_ms"], c.get("iterations"))
        for f in m.get("formats") or []:
            hot = f.get("hot") or {}
            if f.get("status") == "ok" and hot.get("ms"):
                out[(m["name"], "spmv:" + f["format"])] = (hot["ms"], None)
    return out


def gmean(v):
    v = [x for x in v if x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", nargs="+", required=True)
    ap.add_argument("--new", nargs="+", required=True)
    ap.add_argument("--md", help="write the tables as Markdown here too")
    a = ap.parse_args()
    base = [items(load(p)) for p in a.base]
    new = [items(load(p)) for p in a.new]
    keys = set.intersection(*(set(r) for r in base + new))
    if not keys:
        print("no item converged in every run", file=sys.stderr)
        return 1
    spreads = {k: abs(base[1][k][0] / base[0][k][0] - 1) if len(base) > 1 else 0.0 for k in keys}
    med_spread = statistics.median(spreads.values())
    groups = {}
    slower, moved = [], []
    for k in sorted(keys):
        b = min(r[k][0] for r in base)
        n = min(r[k][0] for r in new)
        ratio = n / b
        groups.setdefault(k[1], []).append((ratio, spreads[k]))
        if ratio - 1 > max(spreads[k], med_spread):
            slower.append((ratio, spreads[k], k))
        if k[1].startswith("solve:") and base[0][k][1] != new[0][k][1]:
            moved.append((k, base[0][k][1], new[0][k][1]))
    lines = ["| item | n | new / old, geomean | least | largest | old-run spread, median | slower beyond spread |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for g in sorted(groups):
        r = [x[0] for x in groups[g]]
        s = [x[1] for x in groups[g]]
        ns = sum(1 for x in slower if x[2][1] == g)
        lines.append(f"| {g} | {len(r)} | {gmean(r):.3f} | {min(r):.3f} | {max(r):.3f} | "
                     f"{statistics.median(s):.3f} | {ns} |")
    lines.append("")
    lines.append(f"median spread between the old build's runs: {med_spread:.3f}; "
                 f"items: {len(keys)}; slower beyond the spread: {len(slower)}; iterations changed: {len(moved)}")
    for ratio, sp, k in sorted(slower, reverse=True)[:15]:
        lines.append(f"  slower: {k[0]} {k[1]}: {ratio:.3f} (spread {sp:.3f})")
    for k, i0, i1 in moved[:15]:
        lines.append(f"  iterations: {k[0]} {k[1]}: {i0} -> {i1}")
    text = "\n".join(lines)
    print(text)
    if a.md:
        with open(a.md, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
