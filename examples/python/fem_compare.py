"""fem_compare.py -- shared by fem_poisson3d.py and fem_elasticity3d.py: solve one
assembled SPD system A x = b with spk and with SciPy, print a table and judge it.

Rows of the table (each timed by wall clock, the fastest of --repeat runs, setup
included: spk's conversion to CSR, its analysis and factorization, its probe;
SciPy's preconditioner or LU):
    spk default     spk.solve(A, b, rtol=...)       the library chooses method and preconditioner
    spk cg+ic0      spk.solve(A, b, method="cg", precond="ic0", rtol=...)
    scipy cg        scipy.sparse.linalg.cg, no preconditioner
    scipy cg+jacobi scipy.sparse.linalg.cg with M = diag(A)^-1
    scipy spsolve   scipy.sparse.linalg.spsolve (SuperLU), only up to --spsolve-max unknowns
The relative residual ||b - A x|| / ||b|| is computed here, in NumPy, for every
row (spk's must be at most 1.1 rtol); "diff" is ||x - x_ref|| / ||x_ref||, x_ref being the spsolve solution
when it ran, else SciPy's CG with Jacobi.
"""
import sys
import time

import numpy as np
import scipy
import scipy.sparse as sp
import scipy.sparse.linalg as spl

try:
    import spk
except ImportError as e:  # the package (python/) is not on the path, or libspk.so is not found
    sys.exit("fem example: cannot import spk: %s\n(run with PYTHONPATH=<repo>/python and "
             "SPK_LIBRARY=<build>/libspk.so, or pip install ./python)" % e)


def add_arguments(parser, spsolve_max, max_diff):
    """The options both examples take besides their mesh size."""
    parser.add_argument("--rtol", type=float, default=1e-8,
                        help="relative tolerance of every iterative solver (default %(default)g)")
    parser.add_argument("--spsolve-max", type=int, default=spsolve_max,
                        help="run SciPy's direct spsolve only up to this many unknowns (default %(default)d)")
    parser.add_argument("--max-diff", type=float, default=max_diff,
                        help="largest ||x_spk - x_ref|| / ||x_ref|| accepted (default %(default)g)")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"),
                        help="spk's device (default %(default)s)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="run every solve this many times and report the fastest (default %(default)d)")
    parser.add_argument("--no-plain-cg", action="store_true",
                        help="leave out SciPy's unpreconditioned CG (slow on large meshes)")


SLACK = 1.1  # the residual computed here may exceed rtol by this factor


def _scipy_cg(A, b, rtol, M=None):
    """scipy.sparse.linalg.cg with rtol (SciPy >= 1.12) or tol (older), counting iterations."""
    count = [0]

    def cb(_xk):
        count[0] += 1

    maxiter = 20000
    try:
        x, info = spl.cg(A, b, rtol=rtol, atol=0.0, maxiter=maxiter, M=M, callback=cb)
    except TypeError:
        x, info = spl.cg(A, b, tol=rtol, atol=0.0, maxiter=maxiter, M=M, callback=cb)
    return x, count[0], info == 0


def _relres(A, b, x):
    return float(np.linalg.norm(b - A @ x) / np.linalg.norm(b))


def run(A, b, args, title):
    """Solve A x = b every way, print the table, return (exit status, spk default's x)."""
    A = sp.csr_matrix(A)
    b = np.asarray(b, dtype=np.float64)
    n = A.shape[0]
    rows = []  # (name, x, iterations or "-", seconds, detail, converged)
    notes = {}  # spk's account of its automatic choice

    def timed(name, f):
        best = float("inf")
        for _ in range(max(1, args.repeat)):  # the fastest of --repeat runs (a loaded machine)
            t0 = time.perf_counter()
            x, its, ok, detail = f()
            best = min(best, time.perf_counter() - t0)
        rows.append((name, x, its, best, detail, ok))

    def spk_row(name, **kw):
        def f():
            try:
                x, info = spk.solve(A, b, rtol=args.rtol, device=args.device, **kw)
                ok = True
            except spk.SpkError as e:  # not converged: keep the last iterate, judge it below
                if e.info is None:
                    raise
                x, info, ok = e.x, e.info, False
            if info.choice:  # the default measured Jacobi against IC(0) first (its iterations count too)
                notes[name] = "%s: chose %s" % (name, info.choice)
            return x, info.iterations, ok, "%s+%s, %s, %s" % (info.method, info.precond, info.format,
                                                              info.device)
        return f

    timed("spk default", spk_row("spk default"))
    timed("spk cg+ic0", spk_row("spk cg+ic0", method="cg", precond="ic0"))
    if not args.no_plain_cg:
        timed("scipy cg", lambda: _scipy_cg(A, b, args.rtol) + ("",))

    def jacobi():
        M = sp.diags(1.0 / A.diagonal())
        return _scipy_cg(A, b, args.rtol, M=M) + ("",)

    timed("scipy cg+jacobi", jacobi)
    if n <= args.spsolve_max:
        timed("scipy spsolve", lambda: (spl.spsolve(A.tocsc(), b), "-", True, "SuperLU"))
    ref = rows[-1]
    xref = ref[1]

    print("%s\nunknowns %d, nonzeros %d, rtol %g; spk %s, SciPy %s, NumPy %s"
          % (title, n, A.nnz, args.rtol, spk.version(), scipy.__version__, np.__version__))
    print("%-16s %7s %9s %11s %11s  %s" % ("method", "iters", "time s", "relres", "diff", "detail"))
    status = 0
    for name, x, its, t, detail, ok in rows:
        rr = _relres(A, b, x)
        diff = float(np.linalg.norm(x - xref) / np.linalg.norm(xref))
        diff_text = "(ref)" if name == ref[0] else "%11.2e" % diff
        print(("%-16s %7s %9.3f %11.2e %11s  %s%s" % (name, its, t, rr, diff_text, detail,
                                                    "" if ok else "  NOT CONVERGED")).rstrip())
        if name.startswith("spk"):
            # spk stops on its recurrence residual (info.relres <= rtol) and reports the true
            # one (info.true_relres) without requiring it below rtol: allow the drift between
            # the two, ~eps * cond(A), a small fraction of rtol at rtol >= 1e-8 here
            if not ok or rr > SLACK * args.rtol:
                print("FAIL: %s: relative residual %.3e misses rtol %g" % (name, rr, args.rtol))
                status = 1
            if diff > args.max_diff:
                print("FAIL: %s: differs from %s by %.3e (bound %g)" % (name, ref[0], diff, args.max_diff))
                status = 1
    for note in notes.values():
        print(note)
    return status, rows[0][1]
