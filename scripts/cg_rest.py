#!/usr/bin/env python3
"""cg_rest.py -- how well CG's first iterations predict the rest of the solve.

For each Matrix Market file (SPD), runs textbook CG without a preconditioner
(and with Jacobi) on b = A x*, x* uniform in [-1, 1) (spk bench's
--rhs-kind random), to rtol 1e-8, and at iterations 16, 32, 64, ... compares
the iterations truly left with two predictions of them:
  slope    the residual's rate over the second half of the run so far (a
           least-squares line through log ||r_k||), as the default's probe;
  lanczos  CG's error bound 0.5 sqrt(kappa) ln(2/tol) less the iterations
           done, kappa from the extreme eigenvalues of CG's Lanczos
           tridiagonal (its coefficients alpha and beta).
Iteration counts only: the same on any device.  Needs NumPy and SciPy.

    scripts/cg_rest.py A.mtx [B.mtx ...] > rest.jsonl     one line per matrix and preconditioner
    scripts/cg_rest.py --table rest.jsonl                 error of each prediction
"""
import json
import math
import sys


def cg(A, b, dinv, tol=1e-8, maxit=20000):
    import numpy as np
    x = np.zeros_like(b)
    r = b.copy()
    z = r * dinv
    p = z.copy()
    rz = r @ z
    hist, al, be = [float(np.linalg.norm(r))], [], []
    for _ in range(maxit):
        q = A @ p
        a = rz / (p @ q)
        x += a * p
        r -= a * q
        hist.append(float(np.linalg.norm(r)))
        al.append(a)
        if hist[-1] <= tol * hist[0]:
            break
        z = r * dinv
        rzn = r @ z
        be.append(rzn / rz)
        rz = rzn
        p = z + be[-1] * p
    return hist, al, be


def slope_rest(h, k, target):
    import numpy as np
    ks = np.arange(k // 2, k + 1)
    rate = math.exp(np.polyfit(ks, np.log(np.array(h)[ks]), 1)[0])
    return math.inf if rate >= 1 else max(0.0, math.log(target / h[k]) / math.log(rate))


def lanczos_rest(h, al, be, k, target):
    import numpy as np
    import scipy.linalg as sl
    d = [1 / al[j] + (be[j - 1] / al[j - 1] if j else 0) for j in range(k)]
    e = [math.sqrt(be[j]) / al[j] for j in range(k - 1)]
    th = sl.eigh_tridiagonal(np.array(d), np.array(e), eigvals_only=True)
    return max(0.0, 0.5 * math.sqrt(th[-1] / th[0]) * math.log(2 * h[0] / target) - k)


def run(files):
    import numpy as np
    import scipy.io
    import scipy.sparse as sp
    for f in files:
        A = sp.csr_matrix(scipy.io.mmread(f))
        b = A @ np.random.default_rng(1).uniform(-1, 1, A.shape[0])
        for pre in ("none", "jacobi"):
            dinv = np.ones(A.shape[0]) if pre == "none" else 1 / A.diagonal()
            h, al, be = cg(A, b, dinv)
            n, target, looks, k = len(h) - 1, 1e-8 * h[0], [], 16
            while k < n:
                looks.append([k, n - k, round(slope_rest(h, k, target), 1),
                              round(lanczos_rest(h, al, be, k, target), 1)])
                k *= 2
            print(json.dumps({"matrix": f.split("/")[-1], "precond": pre, "iterations": n, "looks": looks}))
            sys.stdout.flush()


def table(files):
    rows, seen = [], set()
    for line in (line for f in files for line in open(f)):  # Jacobi on a constant diagonal: the same run
        r = json.loads(line)
        key = (r["matrix"], json.dumps(r["looks"]))
        if key not in seen:
            seen.add(key)
            rows.append(r)
    for name, col in (("slope", 2), ("lanczos", 3)):
        for first in (True, False):
            errs = sorted(abs(math.log(max(L[col], 1) / L[1])) for r in rows
                          for L in (r["looks"][:1] if first else r["looks"]) if L[1] >= 8)
            if errs:
                print(f"{name:8s} {'first look' if first else 'every look':10s} n {len(errs):3d}  "
                      f"median {math.exp(errs[len(errs) // 2]):5.2f}x  90th {math.exp(errs[int(len(errs) * .9)]):6.2f}x"
                      f"  worst {math.exp(errs[-1]):6.2f}x")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--table":
        table(sys.argv[2:])
    elif len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        run(sys.argv[1:])
    else:
        sys.exit(__doc__)
