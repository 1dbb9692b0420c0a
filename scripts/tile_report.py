#!/usr/bin/env python3
"""tile_report.py -- turn the JSON of `spk bench --json` (run with at least
--formats tile-csr,tile,tile-dcoo) into the two Markdown tables of
docs/tilespmv.md: the share of tiles and of nonzeros in each tile format
(the paper's Fig. 7, as `tile` builds it) and the SpMV times (back to back)
of the three tile backends next to the baseline from the same run, with the
bytes each moves.

    scripts/tile_report.py bench.json > tables.md
"""
import re
import sys

KINDS = ["CSR", "COO", "ELL", "HYB", "Dns", "DnsRow", "DnsCol"]


def parse(path):
    import json
    run = json.load(open(path))
    mats = []
    for m in run["matrices"]:
        cur = {"name": m["name"], "rows": m["rows"], "nnz": m["nnz"], "f": {}}
        for f in m["formats"]:
            if f["status"] != "ok":
                continue
            moved = f["device_mb"] + 8e-6 * (m["rows"] + m["cols"])
            cur["f"][f["format"]] = {"ms": f["hot"]["ms"], "speedup": f["hot"]["speedup"], "mb": moved,
                                     "detail": f["note"]}
        if run["baseline"] != "cusparse" and run["baseline"] in cur["f"]:
            cur["f"]["cusparse"] = cur["f"][run["baseline"]]  # the host run's baseline column
        mats.append(cur)
    return mats


def shares(detail):
    out = {k: (0.0, 0.0) for k in KINDS}
    part = detail.split("tiles/nonzeros %:")[1].split(";")[0] if "tiles/nonzeros %:" in detail else ""
    for k, t, n in re.findall(r"(\w+) ([0-9.]+)/([0-9.]+)", part):
        out[k] = (float(t), float(n))
    tiles = re.search(r"(\d+) tiles", detail)
    deferred = re.search(r"deferred to CSR ([0-9.]+)%", detail)
    ratio = re.search(r"([0-9.]+)x CSR", detail)
    return out, int(tiles.group(1)) if tiles else 0, float(deferred.group(1)) if deferred else 0.0, \
        float(ratio.group(1)) if ratio else 0.0


def main():
    mats = [m for m in parse(sys.argv[1]) if all(k in m["f"] for k in ("cusparse", "tile-csr", "tile", "tile-dcoo"))]
    print("| matrix | nnz | tiles | " + " | ".join(KINDS) + " | deferred | bytes / CSR |")
    print("| --- | ---: | ---: | " + " | ".join("---:" for _ in KINDS) + " | ---: | ---: |")
    for m in mats:
        sh, tiles, dfr, ratio = shares(m["f"]["tile"]["detail"])
        cells = ["%.1f/%.1f" % sh[k] if sh[k] != (0.0, 0.0) else "" for k in KINDS]
        print("| %s | %d | %d | %s | %s | %.3f |" % (m["name"].replace(".mtx.gz", ""), m["nnz"], tiles,
                                                     " | ".join(cells), "%.1f%%" % dfr if dfr else "", ratio))
    print()
    print("| matrix | nnz | cusparse ms | tile-csr ms (×) | tile ms (×) | tile-dcoo ms (×) |"
          " MB moved: cusparse / tile-csr / tile / tile-dcoo |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for m in mats:
        f = m["f"]
        cells = ["%.4f (%.2f)" % (f[k]["ms"], f[k]["speedup"]) for k in ("tile-csr", "tile", "tile-dcoo")]
        mb = " / ".join("%.2f" % f[k]["mb"] for k in ("cusparse", "tile-csr", "tile", "tile-dcoo"))
        print("| %s | %d | %.4f | %s | %s |" % (m["name"].replace(".mtx.gz", ""), m["nnz"], f["cusparse"]["ms"],
                                              " | ".join(cells), mb))
    if mats:
        import math
        print()
        for k in ("tile-csr", "tile", "tile-dcoo"):
            g = math.exp(sum(math.log(m["f"][k]["speedup"]) for m in mats) / len(mats))
            won = sum(1 for m in mats if m["f"][k]["speedup"] > 1.0)
            print("- `%s`: geometric-mean speedup over cuSPARSE %.2f× over %d matrices; faster on %d." %
                  (k, g, len(mats), won))


if __name__ == "__main__":
    main()
