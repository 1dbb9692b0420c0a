#!/usr/bin/env python3
"""The complex defaults' table from scripts/complex-choice.sh's runs.jsonl: per problem and
device, the time to solution (setup + solve, median over the repeats) of each
preconditioner, the fastest, and the ratio of a rule's choice to the fastest; the rules'
worst and geometric-mean ratios per half.

    scripts/complex_table.py RUNS.jsonl [--rule NAME]"""
import gzip
import json
import math
import statistics
import sys
from collections import defaultdict

CONFIGS = ("none", "jacobi", "factor")


def load(path):
    runs = defaultdict(list)
    for line in (gzip.open(path, "rt") if path.endswith(".gz") else open(path)):
        d = json.loads(line)
        r = d["run"]
        key = (d["half"], d["spec"], d.get("method") or r.get("solver", "?"), d["device"])
        ok = r.get("converged") is True
        t = (r["time_ms"]["setup"] + r["time_ms"]["total"]) if ok else math.inf
        runs[key].append((d["asked"], t, r.get("iterations", 0)))
    table = {}
    for key, rows in runs.items():
        by = defaultdict(list)
        its = {}
        for asked, t, it in rows:
            by[asked].append(t)
            its[asked] = it
        table[key] = ({a: statistics.median(v) for a, v in by.items()}, its)
    return table


def main():
    path = sys.argv[1]
    table = load(path)
    # "cheap": the real systems' cheap choice, Jacobi where the diagonal varies (in this corpus the
    # Helmholtz problems', through the absorbing layer), else none
    rules = {"factor": lambda key, t: "factor", "none": lambda key, t: "none", "jacobi": lambda key, t: "jacobi",
             "cheap": lambda key, t: "jacobi" if key[1].startswith("helmholtz") else "none"}
    print("| half | problem | method | device | none ms (its) | Jacobi ms (its) | IC(0)/ILU(0) ms (its) | fastest |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: | --- |")
    for key in sorted(table, key=lambda k: (k[3], k[0], k[1])):
        t, its = table[key]
        cells = []
        for c in CONFIGS:
            v = t.get(c, math.inf)
            cells.append("%.1f (%d)" % (v, its.get(c, 0)) if v < math.inf else "failed")
        best = min(CONFIGS, key=lambda c: t.get(c, math.inf))
        print("| %s | %s | %s | %s | %s | %s |" % (key[0], key[1], key[2], key[3], " | ".join(cells), best))
    print()
    print("| rule | device | half | worst ratio | geometric mean | failed |")
    print("| --- | --- | --- | ---: | ---: | ---: |")
    for name, rule in rules.items():
        for dev in sorted({k[3] for k in table}):
            for half in ("train", "test"):
                ratios, failed = [], 0
                for key, (t, _) in table.items():
                    if key[3] != dev or key[0] != half:
                        continue
                    best = min(t.get(c, math.inf) for c in CONFIGS)
                    got = t.get(rule(key, t), math.inf)
                    if got == math.inf:
                        failed += 1
                    elif best < math.inf:
                        ratios.append(got / best)
                if ratios:
                    gm = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
                    print("| %s | %s | %s | %.2f | %.2f | %d |" % (name, dev, half, max(ratios), gm, failed))


if __name__ == "__main__":
    main()
