"""spk.mpi (python/spk/mpi.py) across MPI ranks: run under mpiexec, not pytest.

    SPK_LIBRARY=build/libspk.so SPK_MPI_LIBRARY=build/libspk_mpi.so PYTHONPATH=python \\
        mpiexec -n 3 python3 python/tests/mpi_check.py

Each rank assembles its rows of the 2-D Laplacian (columns unsorted, the diagonal
in two halves), then: the product against its own, the default solve and none
(x against the known solution, the method, the same iterations and info on
every rank, none as many as spk.solve in one process), scipy's spsolve on the
gathered matrix, the CSR arrays over a Fortran handle, update_values, a rank
without rows, and failures (a bad column, a b of the wrong length, a refused
option on one rank, too few iterations) raised on every rank with a message.
Prints "N checks on R ranks, F failed"; exits 1 when any failed.
"""
import subprocess
import sys

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from mpi4py import MPI

import spk
import spk.mpi

COMM = MPI.COMM_WORLD
RANK, SIZE = COMM.rank, COMM.size
M = 24
N = M * M
checks = fails = 0


def check(cond, what):
    global checks, fails
    checks += 1
    if not cond:
        fails += 1
        print("rank %d: FAILED: %s" % (RANK, what), flush=True)


def same_on_all(v):
    return len(set(COMM.allgather(v))) == 1


def assemble(r0, r1):
    """Rows r0..r1-1 of the M x M grid's 5-point Laplacian: (indptr, indices, data)."""
    indptr, indices, data = [0], [], []
    for i in range(r0, r1):
        x, y = i % M, i // M
        for j, ok in ((i + M, y < M - 1), (i + 1, x < M - 1), (i - 1, x > 0), (i - M, y > 0)):
            if ok:
                indices.append(j)
                data.append(-1.0)
        indices += [i, i]
        data += [2.0, 2.0]
        indptr.append(len(indices))
    return np.array(indptr), np.array(indices), np.array(data)


def xstar(i):
    return np.sin(0.37 * np.asarray(i)) + 1.5


def raises_everywhere(f, exc, words, what):
    """f() raises exc on this rank, with each of words in its message."""
    try:
        f()
        check(False, "%s: no exception" % what)
        return None
    except exc as e:
        check(all(w in str(e) for w in words), "%s: '%s'" % (what, e))
        return e
    except Exception as e:  # noqa: BLE001 -- any other is a failure, reported
        check(False, "%s: %r" % (what, e))
        return None


def solve_check(A, b, xs, method, precond, pc_name, what, **kw):
    x, info = A.solve(b, method=method, precond=precond, rtol=1e-10, **kw)
    err = COMM.allreduce(float(np.max(np.abs(x - xs), initial=0.0)), op=MPI.MAX)
    check(info.converged and info.reason == "converged (rtol)", "%s: %s" % (what, info.reason))
    check(err < 1e-6, "%s: |x - x*| = %g" % (what, err))
    check(info.method == "cg" and info.precond == pc_name, "%s: ran %s + %s" % (what, info.method, info.precond))
    check(same_on_all((info.iterations, info.relres)) and info.iterations > 0,
          "%s: %d iterations, not the same on every rank" % (what, info.iterations))
    if RANK == 0:
        print("%-34s %d ranks: %s + %s, %d iterations, |x - x*| = %.1e" % (what, SIZE, info.method, info.precond,
                                                                          info.iterations, err), flush=True)
    return x, info


def solves(r0, r1):
    indptr, indices, data = assemble(r0, r1)
    rows = sp.csr_matrix((data, indices, indptr), shape=(r1 - r0, N))  # unsorted, duplicates: kept as given
    xs = xstar(np.arange(r0, r1))
    b = rows @ xstar(np.arange(N))
    with spk.mpi.DistMatrix(COMM, N, r0, rows) as A:
        i = A.info()
        check(i.n == N and i.row_begin == r0 and i.nrows == r1 - r0 and (i.halo > 0) == (SIZE > 1), "info %s" % (i,))
        check(np.max(np.abs(A.matvec(xs) - b), initial=0.0) < 1e-12, "matvec against this rank's product")
        solve_check(A, b, xs, "auto", "auto", "ic0", "the default")
        x, info = solve_check(A, b, xs, "cg", "none", "none", "CG, none")
        k_none = info.iterations
        # scipy's direct solve of the gathered matrix and b
        full = sp.vstack(COMM.allgather(rows)).tocsc()
        ref = spla.spsolve(full, np.concatenate(COMM.allgather(b)))
        xg = np.concatenate(COMM.allgather(x))
        check(np.linalg.norm(xg - ref) <= 1e-8 * np.linalg.norm(ref), "against spsolve: %g"
              % (np.linalg.norm(xg - ref) / np.linalg.norm(ref)))
        _, one = spk.solve(full, np.concatenate(COMM.allgather(b)), method="cg", precond="none", device="cpu",
                           rtol=1e-10)
        check(one.iterations == k_none, "CG, none: %d iterations, %d in one process" % (k_none, one.iterations))
        A.update_values(2 * rows)  # x* / 2
        x, _ = A.solve(b, precond="factor", rtol=1e-10)
        check(COMM.allreduce(float(np.max(np.abs(x - xs / 2), initial=0.0)), op=MPI.MAX) < 1e-6, "update_values(2 A)")
        A.update_values(rows.data)  # the data array, in the order given
        x, _ = A.solve(b, x0=x, rtol=1e-10)
        check(np.allclose(x, xs, atol=1e-6), "update_values(data)")
    raises_everywhere(lambda: A.solve(b), spk.SpkError, ["closed"], "solve after close")
    # the CSR arrays over the Fortran handle: the same solve
    with spk.mpi.DistMatrix(COMM.py2f(), N, r0, (indptr, indices, data)) as A:
        _, info = solve_check(A, b, xs, "cg", "none", "none", "CG, none (arrays, py2f)")
        check(info.iterations == k_none, "arrays, py2f: other iterations")
    # every row on the last rank, none on the others
    last = RANK == SIZE - 1
    ip, ix, dv = assemble(0, N) if last else (np.zeros(1, int), np.zeros(0, int), np.zeros(0))
    with spk.mpi.DistMatrix(COMM, N, 0 if last else N, (ip, ix, dv)) as A:
        bb = sp.csr_matrix((dv, ix, ip), shape=(len(ip) - 1, N)) @ xstar(np.arange(N))
        solve_check(A, bb, xstar(np.arange(N)) if last else np.zeros(0), "cg", "jacobi", "jacobi",
                    "all rows on the last rank")


def errors(r0, r1):
    indptr, indices, data = assemble(r0, r1)
    bad = indices.copy()
    if RANK == SIZE - 1:
        bad[0] = N + 5
    e = raises_everywhere(lambda: spk.mpi.DistMatrix(COMM, N, r0, (indptr, bad, data)), spk.SpkError, ["column"],
                          "a bad column on the last rank")
    check(e is not None and same_on_all(e.status), "a bad column: not the same status on every rank")
    if RANK == 0 and e is not None:
        print("a bad column on the last rank: '%s'" % e, flush=True)
    raises_everywhere(lambda: spk.mpi.DistMatrix(COMM, N + 1, r0, (indptr, indices, data)), spk.SpkError,
                      ["rows"], "rows not covering n")
    with spk.mpi.DistMatrix(COMM, N, r0, (indptr, indices, data)) as A:
        b = np.ones(r1 - r0 + (1 if RANK == 0 else 0))  # rank 0's b one entry too long
        raises_everywhere(lambda: A.solve(b), ValueError, ["rank 0", "b has shape"], "a long b on rank 0")
        b = np.ones(r1 - r0)
        raises_everywhere(lambda: A.solve(b, rtol=2 if RANK == SIZE - 1 else 1e-8), spk.SpkOptionError,
                          ["rank %d" % (SIZE - 1), "rtol"], "rtol=2 on the last rank")
        raises_everywhere(lambda: A.solve(b, method="gmres"), ValueError, ["unknown method"], "method gmres")
        e = raises_everywhere(lambda: A.solve(b, method="cg", precond="none", maxit=2), spk.SpkError,
                              ["did not converge"], "maxit 2")
        check(e is not None and e.status_name == "SPK_ERR_NOT_CONVERGED" and e.info.iterations == 2
              and e.x.shape == (r1 - r0,) and same_on_all(e.info.relres), "maxit 2: status, info and x")
        raises_everywhere(lambda: A.update_values(np.ones(3)), ValueError, ["values has shape"], "short values")
        # the matrix still works after the refusals
        x, info = A.solve(b)
        check(info.converged, "a solve after the refusals")


def main():
    r0, r1 = N * RANK // SIZE, N * (RANK + 1) // SIZE
    solves(r0, r1)
    errors(r0, r1)
    if RANK == 0:  # `import spk` loads neither spk.mpi nor mpi4py
        p = subprocess.run([sys.executable, "-c", "import spk, sys; "
                            "assert 'mpi4py' not in sys.modules and 'spk.mpi' not in sys.modules"],
                           capture_output=True, text=True)
        check(p.returncode == 0, "import spk alone: %s" % p.stderr.strip())
    total = COMM.allreduce(checks)
    failed = COMM.allreduce(fails)
    if RANK == 0:
        print("%d checks on %d ranks, %d failed" % (total, SIZE, failed), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
