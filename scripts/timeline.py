#!/usr/bin/env python3
"""Read a timeline written by tests/tools/kernel_timeline.c and say where the
GPU waited.

    timeline.py FILE [--from MS] [--to MS] [--gap US] [--top N]

Times are milliseconds from the first record.  Prints, for the window:
  - the GPU's busy time by kernel (or copy, memset) name, largest first;
  - every stretch where no kernel, copy or memset ran for longer than --gap
    microseconds, with the runtime calls that overlap it (when the file has
    them: SPK_TIMELINE_API=1), the longest first: host work, allocations,
    synchronizations and launches that leave the GPU idle.
"""
import argparse
import collections
import gzip
import re
import sys


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    rows = []
    with opener(path, "rt") as f:
        for line in f:
            parts = line.rstrip("\n").split(",", 3)
            if len(parts) != 4:
                continue
            kind, start, end, name = parts
            rows.append((kind, int(start), int(end), name))
    rows.sort(key=lambda r: r[1])
    return rows


def short(name):
    """A kernel's readable name: the innermost name of a mangled symbol
    (_Z[N] followed by length-prefixed names, up to its template arguments)."""
    if not name.startswith("_Z"):
        return name[:60]
    i = 3 if name.startswith("_ZN") else 2
    last = name
    while i < len(name) and name[i].isdigit():
        j = i
        while j < len(name) and name[j].isdigit():
            j += 1
        n = int(name[i:j])
        last, i = name[j : j + n], j + n
    return last[:60]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--from", dest="lo", type=float, default=0.0, help="window start, ms")
    ap.add_argument("--to", dest="hi", type=float, default=float("inf"), help="window end, ms")
    ap.add_argument("--gap", type=float, default=100.0, help="shortest idle stretch to list, us")
    ap.add_argument("--top", type=int, default=25, help="lines per table")
    a = ap.parse_args()
    rows = read(a.file)
    if not rows:
        sys.exit("timeline.py: no records in %s" % a.file)
    t0 = rows[0][1]

    def ms(t):
        return (t - t0) / 1e6

    gpu = [r for r in rows if r[0] != "R" and a.lo <= ms(r[1]) <= a.hi]
    api = [r for r in rows if r[0] == "R" and ms(r[2]) >= a.lo and ms(r[1]) <= a.hi]
    busy = collections.defaultdict(lambda: [0, 0.0])
    for kind, s, e, name in gpu:
        b = busy[short(name) if kind == "K" else name]
        b[0] += 1
        b[1] += (e - s) / 1e6
    total = sum(v[1] for v in busy.values())
    print("GPU busy %.3f ms in the window" % total)
    for name, (count, t) in sorted(busy.items(), key=lambda x: -x[1][1])[: a.top]:
        print("  %9.3f ms %6d x %8.1f us  %s" % (t, count, 1e3 * t / count, name))
    idle, end = [], None
    for _, s, e, _ in gpu:
        if end is not None and s - end > a.gap * 1e3:
            idle.append((end, s))
        end = e if end is None else max(end, e)
    print("idle stretches over %.0f us: %d, %.3f ms in all" % (a.gap, len(idle), sum(b - s for s, b in idle) / 1e6))
    for s, e in sorted(idle, key=lambda x: x[0] - x[1])[: a.top]:
        under = collections.defaultdict(float)
        for _, cs, ce, name in api:
            if ce > s and cs < e:
                under[name.split("_v")[0]] += (min(ce, e) - max(cs, s)) / 1e6
        calls = ", ".join("%s %.2f" % kv for kv in sorted(under.items(), key=lambda x: -x[1])[:4])
        print("  at %9.3f ms idle %7.3f ms  %s" % (ms(s), (e - s) / 1e6, calls or "(no runtime calls traced)"))


if __name__ == "__main__":
    main()
