#!/usr/bin/env python3
"""choice_table.py -- how far each solve configuration of spk bench runs is
from the fastest fixed choice, problem by problem: the table a rule that
chooses (a preconditioner, a factorization) is decided and reported with.

    scripts/choice_table.py RUN.json [RUN.json ...] [--fixed default,none,jacobi] [--markdown]
                            [--detail NAME [--setup-of CONFIG]]

Each configuration's time to solution (without the upload of A) is divided
by the fastest of the --fixed configurations on that problem; a run that did
not converge counts as infinitely slow.  The last rows give each
configuration's worst ratio and geometric mean (over the problems where it
converged; 'fails' counts the others).  Runs are read as given; put only
runs of one machine together.

--detail NAME gives one line per problem for configuration NAME instead:
the preconditioner it ran (and how its factor was computed), its time, the
fastest fixed configuration and its time, the ratio, and the setup of
CONFIG's preconditioner (--setup-of, default factor) in products of the
baseline format (the hot SpMV time of the run's first format).
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
    ap.add_argument("--detail", help="one line per problem for this configuration")
    ap.add_argument("--setup-of", default="factor",
                    help="with --detail: whose preconditioner setup is counted in products")
    a = ap.parse_args()
    fixed = [f for f in a.fixed.split(",") if f]
    if a.detail:
        return detail(a, fixed)
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


def short_factorization(c):
    f = c.get("factorization", "")
    if not f:
        return ""
    return "iterative" if f.startswith("by ") else "exact"


def detail(a, fixed):
    sep = " | "
    head = ["problem", "%s ran" % a.detail, "ms", "fastest fixed", "ms", "ratio",
            "%s setup / SpMV" % a.setup_of]
    if a.markdown:
        print("| " + sep.join(head) + " |")
        print("| --- | --- | ---: | --- | ---: | ---: | ---: |")
    ratios, fails = [], 0
    for path in a.runs:
        d = load(path)
        for m in d.get("matrices", []):
            cs = {c["name"]: c for c in m.get("configs", [])}
            missing = [f for f in fixed + [a.detail] if f not in cs]
            if missing:
                sys.exit("%s: %s has no configuration %s" % (path, m.get("name"), ", ".join(missing)))
            best = min(fixed, key=lambda f: seconds(cs[f]))
            tb, tc = seconds(cs[best]), seconds(cs[a.detail])
            if not math.isfinite(tb):
                continue
            c = cs[a.detail]
            ran = c.get("precond", "?")
            how = short_factorization(c)
            if how:
                ran += " (%s)" % how
            spmv = None
            fm = m.get("formats") or []
            if fm and fm[0].get("hot"):
                spmv = fm[0]["hot"].get("ms")
            sc = cs.get(a.setup_of)
            prods = "-"
            if sc and spmv and sc.get("precond_setup_ms") is not None and \
                    sc.get("status", "converged") == "converged":
                prods = "%.0f" % (sc["precond_setup_ms"] / spmv)
            r = tc / tb
            if math.isfinite(r):
                ratios.append(r)
            else:
                fails += 1
            vals = [m["name"], ran, "%.2f" % tc if math.isfinite(tc) else "fails", best, "%.2f" % tb,
                    "%.2f" % r if math.isfinite(r) else "fails", prods]
            if a.markdown:
                print("| " + sep.join(vals) + " |")
            else:
                print("%-28s %-24s %10s %-10s %10s %7s %8s" % tuple(vals))
    if ratios:
        geo = math.exp(sum(math.log(v) for v in ratios) / len(ratios))
        print("\n%s: worst %.2f, geometric mean %.2f over %d problems, %d failed"
              % (a.detail, max(ratios), geo, len(ratios), fails))


if __name__ == "__main__":
    main()
