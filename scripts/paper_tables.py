#!/usr/bin/env python3
"""The shape of the TEB and TileSpMV papers' comparisons, from `spk bench` runs.

    paper_tables.py [--cold] [--label NAME] RUN.json[.gz] ... [--float RUN.json[.gz] ...]

Reads the products' times (hot by default: back to back; --cold: with the
cache flushed) of every matrix in the runs and prints two Markdown tables,
each next to the ratios the paper reports:

  TEB (its Table 2 and the text: SpMV time of PBC, AMF-CSR, CSR-Scalar and
  CSR5 over TEB's, averaged over its 20 matrices, float and double): for
  `teb` (the paper's Alg. 3) and `teb-fast`, the mean, geometric mean and
  largest of time(X) / time(TEB), and on how many matrices TEB is faster.

  TileSpMV (the abstract and Sec. 5: TileSpMV faster than Merge-SpMV, CSR5
  and cuSPARSE's BSR on 1813, 2040 and 1638 of 2757 matrices, by up to
  2.61x, 3.96x and 426.59x; the adaptive tile formats up to 6.75x over
  all-CSR tiles, deferred COO up to 7.02x over adaptive): for `tile`,
  `tile-csr` and `tile-dcoo` against `merge`, `csr5` and `cusparse-bsr`
  (and cuSPARSE's CSR, which the paper's Merge-SpMV was), the same
  statistics, the largest being the paper's "up to".

With float runs, a third table: each format's double time over its float
time (the speedup single precision gives it), on the matrices with both.

Matrices where either format is missing or was refused are left out of
that pair and counted.  Runs with `--precision float` go after --float
(their columns are labelled float); without them only the double columns
are printed.
"""
import argparse
import gzip
import json
import math
import sys

# The TEB paper: average speedup of TEB in SpMV time over each format
# (Sec. 5.2, the speedup figures 22 and 26).
TEB_PAPER = {
    "float": {"pbc": 5.62, "amf-csr": 3.15, "csr-scalar": 2.04, "csr5": 2.38},
    "double": {"pbc": 6.04, "amf-csr": 3.31, "csr-scalar": 2.51, "csr5": 2.03},
}
# The TileSpMV paper: the most speedup, and on how many of 2757 matrices faster.
TILE_PAPER = {"merge": (2.61, 1813), "csr5": (3.96, 2040), "cusparse-bsr": (426.59, 1638)}
TILE_VARIANTS = [("tile", "tile-csr", 6.75), ("tile-dcoo", "tile", 7.02)]


def load(paths, cold, precision):
    """{matrix: {format: ms}} over the runs (a later run's time replaces an earlier one).
    Every run must have been made in `precision` (its JSON's "precision"; double when absent)."""
    times = {}
    for p in paths:
        opener = gzip.open if p.endswith(".gz") else open
        with opener(p, "rt") as f:
            d = json.load(f)
        got = d.get("precision", "double")
        if got != precision:
            sys.exit("paper_tables.py: %s is a run in %s, given as %s (float runs go after --float)"
                     % (p, got, precision))
        for m in d.get("matrices", []):
            row = times.setdefault(m["name"], {})
            for fm in m.get("formats", []):
                t = fm.get("cold" if cold else "hot") or {}
                if fm.get("status") == "ok" and t.get("ms"):
                    row[fm["format"]] = t["ms"]
    return times


def ratios(times, num, den):
    """time(num) / time(den) on each matrix with both; and how many lacked one."""
    out, missing = [], 0
    for row in times.values():
        if num in row and den in row:
            out.append(row[num] / row[den])
        else:
            missing += 1
    return out, missing


def stats(r):
    if not r:
        return "—", "—", "—", "—"
    gm = math.exp(sum(math.log(x) for x in r) / len(r))
    faster = sum(1 for x in r if x > 1)
    return "%.2f" % (sum(r) / len(r)), "%.2f" % gm, "%.2f" % max(r), "%d of %d" % (faster, len(r))


def teb_table(runs):
    print("| TEB against | precision | TEB variant | mean | geometric mean | largest | TEB faster on | "
          "the paper's mean | matrices without both |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for other in ("pbc", "amf-csr", "csr-scalar", "csr5"):
        for prec, times in runs:
            for teb in ("teb", "teb-fast"):
                r, miss = ratios(times, other, teb)
                mean, gm, top, faster = stats(r)
                print("| %s | %s | %s | %s | %s | %s | %s | %.2f | %d |" % (
                    other, prec, teb, mean, gm, top, faster, TEB_PAPER[prec][other], miss))


def tile_table(runs):
    print("| TileSpMV variant | against | precision | mean | geometric mean | largest (the paper's \"up to\") | "
          "faster on | the paper: up to, faster on | matrices without both |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for prec, times in runs:
        for tile in ("tile", "tile-csr", "tile-dcoo"):
            for other in ("merge", "csr5", "cusparse-bsr", "cusparse"):
                r, miss = ratios(times, other, tile)
                mean, gm, top, faster = stats(r)
                paper = TILE_PAPER.get(other)
                ptxt = "%.2fx, %d of 2757" % paper if paper and tile == "tile" else "—"
                print("| %s | %s | %s | %s | %s | %s | %s | %s | %d |" % (
                    tile, other, prec, mean, gm, top, faster, ptxt, miss))
        for fast, slow, up_to in TILE_VARIANTS:
            r, miss = ratios(times, slow, fast)
            mean, gm, top, faster = stats(r)
            print("| %s | %s | %s | %s | %s | %s | %s | up to %.2fx | %d |" % (
                fast, slow, prec, mean, gm, top, faster, up_to, miss))


def precision_table(runs):
    dbl, flt = runs[0][1], runs[1][1]
    names = sorted({f for row in flt.values() for f in row} & {f for row in dbl.values() for f in row})
    print("| format | double time / float time: mean | geometric mean | least | largest | matrices |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for f in names:
        r = [dbl[m][f] / flt[m][f] for m in flt if m in dbl and f in flt[m] and f in dbl[m]]
        if r:
            gm = math.exp(sum(math.log(x) for x in r) / len(r))
            print("| %s | %.2f | %.2f | %.2f | %.2f | %d |" % (f, sum(r) / len(r), gm, min(r), max(r), len(r)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", help="spk bench --json files (double)")
    ap.add_argument("--float", dest="float_runs", nargs="+", default=[], help="runs with --precision float")
    ap.add_argument("--cold", action="store_true", help="cold times (cache flushed) instead of hot")
    a = ap.parse_args()
    runs = [("double", load(a.runs, a.cold, "double"))]
    if a.float_runs:
        runs.append(("float", load(a.float_runs, a.cold, "float")))
    if not any(runs[0][1].values()):
        sys.exit("paper_tables.py: no product times in the runs")
    print("### The TEB paper's comparison (SpMV time of each format over TEB's)\n")
    teb_table(runs)
    print("\n### The TileSpMV paper's comparison (SpMV time of each format over the tile format's)\n")
    tile_table(runs)
    if len(runs) > 1:
        print("\n### Single precision: each format's double time over its float time\n")
        precision_table(runs)


if __name__ == "__main__":
    main()
