#!/usr/bin/env python3
"""choice_table.py -- how far each solve configuration of spk bench runs is
from the fastest fixed choice, problem by problem: the table a rule that
chooses (a preconditioner, a factorization) is decided and reported with.

    scripts/choice_table.py RUN.json [RUN.json ...] [--fixed default,none,jacobi] [--markdown]

Each configuration's time to solution (without the upload of A) is divided
by the fastest of the --fixed configurations on that problem; a run that did
not converge counts as infinitely slow.  The last rows give each
configuration's worst ratio and geometric mean (over the problems where it
converged; 'fails' counts the others).  Runs are read as given; put only
runs of one machine together.
"""
import argparse
import gzip
import json
import math
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def seconds(c):
    """A configuration's time to solution in ms, inf when it did not converge."""
    ok = c.get("converged", c.get("status") == "converged")
    t = c.get("total_excl_upload_ms", c.get("total_ms"))
    return t if ok and t is not None else math.inf


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--fixed", default="default,none,jacobi",
                    help="the configurations the ratios are taken against (comma-separated)")
    ap.add_argument("--markdown", action="store_true", help="a Markdown table")
    a = ap.parse_args()
    fixed = [f for f in a.fixed.split(",") if f]
    names, rows = [], []
    for path in a.runs:
        d = load(path)
        for m in d.get("matrices", []):
            cs = {c["name"]: c for c in m.get("configs", [])}
            missing = [f for f in fixed if f not in cs]
            if missing:
                sys.exit("%s: %s has no configuration %s" % (path, m.get("name"), ", ".join(missing)))
            for n in cs:
                if n not in names:
                    names.append(n)
            best = min(seconds(cs[f]) for f in fixed)
            if not math.isfinite(best):
                continue  # no fixed choice converged: nothing to compare with
            rows.append((m["name"], {n: seconds(cs[n]) / best for n in cs}))
    if not rows:
        sys.exit("no problem where a fixed configuration converged")
    sep = " | " if a.markdown else " "
    fmt = (lambda v: "fails" if not math.isfinite(v) else "%.2f" % v)
    head = ["problem"] + names
    if a.markdown:
        print("| " + sep.join(head) + " |")
        print("|" + "|".join([" --- "] + [" ---: "] * len(names)) + "|")
    else:
        print("%-28s" % head[0] + "".join("%10s" % n for n in names))
    def line(label, vals):
        if a.markdown:
            print("| " + sep.join([label] + vals) + " |")
        else:
            print("%-28s" % label + "".join("%10s" % v for v in vals))
    for name, r in rows:
        line(name, [fmt(r[n]) if n in r else "-" for n in names])
    worst, geo, fails = [], [], []
    for n in names:
        vals = [r[n] for _, r in rows if n in r]
        good = [v for v in vals if math.isfinite(v)]
        worst.append(fmt(max(vals)) if vals else "-")
        geo.append("%.2f" % math.exp(sum(math.log(v) for v in good) / len(good)) if good else "-")
        fails.append(str(len(vals) - len(good)))
    line("worst", worst)
    line("geometric mean", geo)
    line("fails", fails)


if __name__ == "__main__":
    main()
