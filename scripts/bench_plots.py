#!/usr/bin/env python3
"""bench_plots.py -- charts from the JSON of `spk bench --json`.

    scripts/bench_plots.py BENCH.json [MORE.json ...] OUTDIR

Several JSON files (runs split over several commands) are merged; they must
come from the same device; a name ending in .gz is read through gzip.  Writes
PNG files to OUTDIR:

  spmv_speedup_hot.png    SpMV speedup over the baseline per matrix and format
  spmv_speedup_cold.png   the same with the caches flushed before each product
  spmv_geomean.png        geometric-mean SpMV speedup per format (hot and cold)
  frac_copy.png           fraction of the copy bandwidth (CSR traffic model,
                          cold products) against the matrix size, per format
  solve_speedup.png       solve speedup over the baseline per matrix and format
  solve_time.png          solve time per format, bars per matrix (largest ones)
  summary.md              the tables for docs/benchmarks.md: per matrix the speedup of
                          every format (hot and cold), the solves, what auto chose, and
                          the geometric means per format

matplotlib is taken from the running Python when it has it; otherwise the
script makes a virtual environment (SPK_PLOTS_VENV, default
~/.cache/spk/plots-venv), installs matplotlib there and runs again inside it.
Exit status 0, 1 on bad input, 3 when matplotlib cannot be installed.
"""
import gzip
import json
import math
import os
import subprocess
import sys


def ensure_matplotlib():
    try:
        import matplotlib  # noqa: F401
        return
    except ImportError:
        pass
    if os.environ.get("SPK_PLOTS_INSIDE"):
        sys.exit("bench_plots.py: matplotlib is still missing inside the virtual environment")
    venv = os.environ.get("SPK_PLOTS_VENV") or os.path.join(os.path.expanduser("~"), ".cache", "spk", "plots-venv")
    py = os.path.join(venv, "bin", "python")
    try:
        if not os.path.exists(py):
            print("bench_plots.py: installing matplotlib into %s" % venv, file=sys.stderr)
            subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        probe = subprocess.run([py, "-c", "import matplotlib"], capture_output=True)
        if probe.returncode != 0:
            subprocess.run([py, "-m", "pip", "install", "--quiet", "matplotlib"], check=True)
    except (subprocess.CalledProcessError, OSError) as e:
        print("bench_plots.py: cannot install matplotlib (%s); install it (pip install matplotlib) "
              "or set SPK_PLOTS_VENV" % e, file=sys.stderr)
        sys.exit(3)
    env = dict(os.environ, SPK_PLOTS_INSIDE="1")
    sys.exit(subprocess.run([py, os.path.abspath(__file__)] + sys.argv[1:], env=env).returncode)


def read_json(path):
    """A run's JSON, from PATH or, when PATH ends in .gz, from the gzip file."""
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def load(paths):
    runs = [read_json(p) for p in paths]
    devices = {r["device"] for r in runs}
    if len(devices) > 1:
        sys.exit("bench_plots.py: the runs come from different devices: %s" % ", ".join(sorted(devices)))
    base = runs[0]["baseline"]
    matrices, formats = [], []
    for r in runs:
        for m in r["matrices"]:
            matrices.append(m)
            for f in m["formats"]:
                if f["format"] not in formats:
                    formats.append(f["format"])
    return runs[0], base, matrices, formats


def value(m, fmt, key):
    for f in m["formats"]:
        if f["format"] == fmt:
            if key == "solve":
                s = f.get("solve")
                return s["speedup"] if s and s.get("speedup") is not None else None
            if key == "solve_ms":
                s = f.get("solve")
                return s["solve_ms"] if s and s["status"] == "converged" else None
            if f["status"] != "ok":
                return None
            hot, cold = f["hot"], f["cold"]
            return {"hot": hot["speedup"], "cold": cold["speedup"], "frac": cold["frac_copy"]}[key]
    return None


def heatmap(plt, matrices, formats, key, title, path, base):
    import matplotlib.colors as mcolors
    rows = [m["name"].replace(".mtx.gz", "").replace(".mtx", "") for m in matrices]
    data = [[value(m, f, key) for f in formats] for m in matrices]
    grid = [[math.log2(v) if v and v > 0 else float("nan") for v in row] for row in data]
    h = max(4.0, 0.18 * len(rows) + 1.5)
    fig, ax = plt.subplots(figsize=(1.0 + 0.62 * len(formats), h))
    import matplotlib
    cmap = matplotlib.colormaps["RdBu"].copy()
    cmap.set_bad("lightgrey")
    im = ax.imshow(grid, aspect="auto", cmap=cmap, norm=mcolors.TwoSlopeNorm(vcenter=0.0, vmin=-2.0, vmax=2.0))
    ax.set_xticks(range(len(formats)))
    ax.set_xticklabels(formats, rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(rows, fontsize=6 if len(rows) > 40 else 8)
    cb = fig.colorbar(im, ax=ax, ticks=[-2, -1, 0, 1, 2])
    cb.ax.set_yticklabels(["1/4", "1/2", "1", "2", "4"])
    cb.set_label("speedup over %s (grey: did not run)" % base)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def geo(vals):
    vals = [v for v in vals if v and v > 0]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else float("nan")


def fmt_ratio(v):
    return "" if v is None or not (v > 0) else "%.2f" % v


def total(c):
    """A configuration's time to solution without the upload of A (runs before the field: all of it)."""
    return c.get("total_excl_upload_ms", c["total_ms"])


def config_tables(matrices):
    """The --solve-config solves: per matrix each configuration's time to solution (setup +
    solve, without the upload of A: the baseline ref times it apart), iterations and speedup
    over the first configuration, then the geometric mean, the least speedup and the least
    above 1M nonzeros (empty when no run had configurations)."""
    ms = [m for m in matrices if m.get("configs")]
    if not ms:
        return []
    names = [c["name"] for c in ms[0]["configs"]]
    out = ["### Solve configurations: time to solution (setup + solve, without the upload of A) against `%s`"
           % names[0], "",
           "| matrix | nnz | " + " | ".join("%s: iterations, ms, ×" % n for n in names) + " |",
           "| --- | ---: | " + " | ".join("---:" for _ in names) + " |"]
    logs = {n: [] for n in names}
    big = {n: [] for n in names}
    for m in ms:
        by = {c["name"]: c for c in m["configs"]}
        ref = by.get(names[0])
        cells = []
        for n in names:
            c = by.get(n)
            if not c or c["status"] != "converged":
                cells.append("%s" % (c["status"] if c else "—"))
                continue
            sp = total(ref) / total(c) if ref and ref["status"] == "converged" else None
            cells.append("%d, %.2f, %s" % (c["iterations"], total(c), "%.2f" % sp if sp else "—"))
            if sp:
                logs[n].append(math.log(sp))
                if m["nnz"] > 1000000:
                    big[n].append(sp)
        out.append("| %s | %d | %s |" % (m["name"].replace(".mtx.gz", ""), m["nnz"], " | ".join(cells)))
    out.append("")
    out.append("| configuration | geometric mean | least | least above 1M nonzeros | matrices |")
    out.append("| --- | ---: | ---: | ---: | ---: |")
    for n in names:
        geo = math.exp(sum(logs[n]) / len(logs[n])) if logs[n] else float("nan")
        least = math.exp(min(logs[n])) if logs[n] else float("nan")
        lb = "%.2f (%d)" % (min(big[n]), len(big[n])) if big[n] else "—"
        out.append("| %s | %.2f | %.2f | %s | %d |" % (n, geo, least, lb, len(logs[n])))
    out.append("")
    return out


def summary(runs_head, base, matrices, formats, paths):
    """The Markdown tables (geometric means over the matrices where both ran)."""
    out = []
    out.append("Device: %s; copy bandwidth %.0f GB/s (read + write); cache %.1f MB; baseline `%s`; "
               "spk %s, %s." % (runs_head["device"], runs_head["copy_gbs"], runs_head["cache_bytes"] / 1e6, base,
                                runs_head["spk_version"], runs_head["date"]))
    out.append("")
    out.append("### Geometric-mean speedup over `%s`" % base)
    out.append("")
    out.append("| format | SpMV hot | SpMV cold | solve | matrices (SpMV / solve) |")
    out.append("| --- | ---: | ---: | ---: | ---: |")
    for f in formats:
        hot = [value(m, f, "hot") for m in matrices]
        cold = [value(m, f, "cold") for m in matrices]
        sol = [value(m, f, "solve") for m in matrices]
        nh = len([v for v in hot if v])
        ns = len([v for v in sol if v])
        out.append("| %s | %s | %s | %s | %d / %d |" % (f, fmt_ratio(geo(hot)), fmt_ratio(geo(cold)),
                                                       fmt_ratio(geo(sol)), nh, ns))
    out.append("")
    ok = of = paid = solves = 0
    rows = []
    for m in matrices:
        best, who, auto = None, "", None
        for f in m["formats"]:
            if f["status"] != "ok":
                continue
            if f["format"] == "auto":
                auto = f
            elif best is None or f["hot"]["ms"] < best:
                best, who = f["hot"]["ms"], f["format"]
        if auto and best:
            of += 1
            mine = auto.get("auto_choice_hot_ms") or auto["hot"]["ms"]  # the chosen format on its own
            off = mine / best - 1
            ok += off <= 0.05
            # the selection's cost beyond the baseline's setup (uploads left out) and its payback,
            # in runs that report them
            cost = auto.get("auto_cost_ms")
            back = auto.get("auto_payback_products", "absent")
            sp = auto.get("auto_solve_products", -1)
            if "auto_paid_back" in auto and sp is not None and sp >= 0:
                solves += 1
                paid += bool(auto["auto_paid_back"])
            back_s = "—" if back == "absent" else "never" if back is None else "%d" % back
            solve_s = "—" if sp is None or sp < 0 else "%d: %s" % (sp, "yes" if auto.get("auto_paid_back") else "no")
            rows.append("| %s | %d | %s | %s | %.4f | %s | %.4f | %.4f | %+.1f%% | %.2f | %s | %s | %s |" % (
                m["name"].replace(".mtx.gz", ""), m["nnz"], m["regime"], who, best, auto.get("auto_choice", ""),
                mine, auto["hot"]["ms"], 100 * off, auto["setup_ms"], "—" if cost is None else "%.2f" % cost,
                back_s, solve_s))
    if of:
        out.append("### auto: the format it chose is within 5 %% of the best measured SpMV time on %d of %d "
                   "matrices" % (ok, of))
        out.append("")
        if solves:
            out.append("Its selection paid for itself within the solve on %d of the %d matrices whose solve "
                       "with auto converged (cost: auto's format setup beyond the baseline's in the two "
                       "solves, both made from the solver's device copy of the matrix, or, where a run "
                       "has no solve or predates that report, its setup beyond the baseline's in the "
                       "SpMV run with the upload of the matrix left out of both; paid back after: "
                       "products at the SpMV time auto saves; solve: the products of the solve with "
                       "auto)." % (paid, solves))
            out.append("")
        out.append("| matrix | nnz | regime | best format | its ms | auto chose | that format's ms | through auto "
                   "| off | selection ms | cost ms | paid back after | solve |")
        out.append("| --- | ---: | --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        out.extend(rows)
        out.append("")
    out.append("### SpMV speedup over `%s` per matrix (hot / cold)" % base)
    out.append("")
    out.append("| matrix | nnz | regime | %s ms | " % base + " | ".join(formats) + " |")
    out.append("| --- | ---: | --- | ---: | " + " | ".join("---:" for _ in formats) + " |")
    for m in matrices:
        b = [f for f in m["formats"] if f["format"] == base and f["status"] == "ok"]
        cells = []
        for f in formats:
            h, c = value(m, f, "hot"), value(m, f, "cold")
            cells.append("%s / %s" % (fmt_ratio(h), fmt_ratio(c)) if h else "—")
        out.append("| %s | %d | %s | %s | %s |" % (m["name"].replace(".mtx.gz", ""), m["nnz"], m["regime"],
                                                  "%.4f" % b[0]["hot"]["ms"] if b else "—", " | ".join(cells)))
    solved = [m for m in matrices if any(f.get("solve") for f in m["formats"])]
    if solved:
        out.append("")
        out.append("### Solve speedup over the `%s`-backed solve (iterations, ms with `%s`)" % (base, base))
        out.append("")
        out.append("| matrix | method | iterations | %s ms | " % base + " | ".join(formats) + " |")
        out.append("| --- | --- | ---: | ---: | " + " | ".join("---:" for _ in formats) + " |")
        for m in solved:
            b = [f.get("solve") for f in m["formats"] if f["format"] == base and f.get("solve")]
            b = b[0] if b else None
            cells = [fmt_ratio(value(m, f, "solve")) or "—" for f in formats]
            out.append("| %s | %s | %s | %s | %s |" % (
                m["name"].replace(".mtx.gz", ""),
                "%s+%s" % (b["method"], b["precond"]) if b and b.get("method") else "—", outcome(b),
                "%.2f" % b["solve_ms"] if b and b["status"] == "converged" else "—", " | ".join(cells)))
    out.append("")
    out.extend(config_tables(matrices))
    out.append("Runs (paths shortened to file names): " + "; ".join(
        "`%s`" % " ".join(os.path.basename(w) if "/" in w else w for w in read_json(p)["command"].split())
        for p in paths))
    return "\n".join(out) + "\n"


def outcome(b):
    """Iterations of a solve, or why it gave no solution (zero pivot, breakdown, ...)."""
    if not b:
        return "—"
    if b["status"] == "converged":
        return str(b["iterations"])
    why = {"SPK_ERR_ZERO_PIVOT": "zero pivot", "SPK_ERR_NOT_CONVERGED": "not converged",
           "SPK_ERR_BREAKDOWN": "breakdown", "SPK_ERR_INDEFINITE": "indefinite"}.get(b["status"], b["status"])
    return "%s (%d)" % (why, b["iterations"]) if b["iterations"] else why


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    ensure_matplotlib()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = sys.argv[-1]
    try:
        head, base, matrices, formats = load(sys.argv[1:-1])
    except (OSError, ValueError, KeyError) as e:
        print("bench_plots.py: bad input: %s" % e, file=sys.stderr)
        return 1
    if not matrices:
        print("bench_plots.py: no matrices in the input", file=sys.stderr)
        return 1
    os.makedirs(out, exist_ok=True)
    dev = head["device"]
    matrices.sort(key=lambda m: m["nnz"])
    written = []

    def save(name):
        written.append(os.path.join(out, name))
        return written[-1]

    heatmap(plt, matrices, formats, "hot", "SpMV speedup over %s, back to back (%s)" % (base, dev),
            save("spmv_speedup_hot.png"), base)
    heatmap(plt, matrices, formats, "cold", "SpMV speedup over %s, caches flushed (%s)" % (base, dev),
            save("spmv_speedup_cold.png"), base)

    fig, ax = plt.subplots(figsize=(1.0 + 0.6 * len(formats), 4.0))
    hot = [geo([value(m, f, "hot") for m in matrices]) for f in formats]
    cold = [geo([value(m, f, "cold") for m in matrices]) for f in formats]
    xs = range(len(formats))
    ax.bar([x - 0.2 for x in xs], hot, 0.4, label="hot")
    ax.bar([x + 0.2 for x in xs], cold, 0.4, label="cold (caches flushed)")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(list(xs))
    ax.set_xticklabels(formats, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("geometric-mean speedup over %s" % base)
    ax.set_title("SpMV over %d matrices (%s)" % (len(matrices), dev), fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(save("spmv_geomean.png"), dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(8.0, 5.0))
    colors = matplotlib.colormaps["tab20"].colors
    markers = "os^vD<>ph*"
    for k, f in enumerate(formats):
        pts = [(m["nnz"], value(m, f, "frac")) for m in matrices]
        pts = [(n, v) for n, v in pts if v is not None]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=markers[k % len(markers)], markersize=3,
                    linewidth=0.8, color=colors[k % len(colors)], label=f)
    ax.set_xscale("log")
    ax.set_xlabel("nonzeros")
    ax.set_ylabel("fraction of the copy bandwidth (%.0f GB/s)" % head["copy_gbs"])
    ax.set_title("SpMV effective bandwidth, CSR traffic model, caches flushed (%s)" % dev, fontsize=10)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(save("frac_copy.png"), dpi=110)
    plt.close(fig)

    solved = [m for m in matrices if any(f.get("solve") for f in m["formats"])]
    if solved:
        heatmap(plt, solved, formats, "solve", "Solve speedup over the %s-backed solve (%s)" % (base, dev),
                save("solve_speedup.png"), base)
        big = sorted(solved, key=lambda m: -m["nnz"])[:8]
        fig, ax = plt.subplots(figsize=(10.0, 4.5))
        width = 0.8 / max(1, len(formats))
        for k, f in enumerate(formats):
            ys = [value(m, f, "solve_ms") or 0.0 for m in big]
            ax.bar([i + k * width for i in range(len(big))], ys, width, label=f, color=colors[k % len(colors)])
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(big))])
        ax.set_xticklabels([m["name"].replace(".mtx.gz", "") for m in big], rotation=30, ha="right", fontsize=8)
        ax.set_ylabel("solve time, ms (0: did not converge)")
        ax.set_title("Solve time per format, largest matrices (%s)" % dev, fontsize=10)
        ax.legend(fontsize=7, ncol=3)
        fig.tight_layout()
        fig.savefig(save("solve_time.png"), dpi=110)
        plt.close(fig)
    with open(save("summary.md"), "w") as f:
        f.write(summary(head, base, matrices, formats, sys.argv[1:-1]))
    for p in written:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
