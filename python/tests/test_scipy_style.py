"""spk.cg and spk.bicgstab called as scipy.sparse.linalg's, against SciPy on the same
systems: the (x, info) convention, x0, rtol/atol, maxiter, M (names, LinearOperators,
matrices, callables), callback(xk), the accepted inputs and the errors."""
import os

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import spk

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.environ.get("SPK_TEST_DATA", os.path.join(ROOT, "data"))
DEVICE = os.environ.get("SPK_TEST_DEVICE", "auto")


def read(name):
    return sp.csr_matrix(scipy.io.mmread(os.path.join(DATA, name + ".mtx.gz")))


def relres(A, b, x):
    return np.linalg.norm(b - A @ x) / np.linalg.norm(b)


def spd(n=25, seed=0):
    """A 2-D Laplacian plus a varying diagonal (Jacobi changes the iterations)."""
    rng = np.random.default_rng(seed)
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    A = sp.kronsum(T, T, format="csr") + sp.diags(rng.uniform(0.1, 3.0, n * n))
    return sp.csr_matrix(A), rng.standard_normal(n * n)


@pytest.mark.parametrize("rtol", [1e-5, 1e-10])
def test_cg_converges_like_scipy(rtol):
    A, b = spd()
    x, info = spk.cg(A, b, rtol=rtol, device=DEVICE)
    assert info == 0 and relres(A, b, x) <= 10 * rtol
    ref, rinfo = spla.cg(A, b, rtol=rtol, maxiter=10000)
    assert rinfo == 0 and np.linalg.norm(x - ref) <= 1e3 * rtol * np.linalg.norm(ref)


def test_threads_keyword():
    """threads= reaches the solver through the SciPy-style calls: the same x for 1 and 2."""
    A, b = spd(300)  # 90,000 rows: threaded products and vector operations
    x1, i1 = spk.cg(A, b, rtol=1e-8, device="cpu", threads=1, M="ic0")
    x2, i2 = spk.cg(A, b, rtol=1e-8, device="cpu", threads=2, M="ic0")
    assert i1 == 0 and i2 == 0 and np.array_equal(x1, x2)


def test_the_callers_preconditioner_gives_scipys_iterates():
    """The same method, M and start as SciPy: the same iterates, to rounding."""
    A, b = spd()
    Minv = sp.diags(1.0 / A.diagonal())
    for M in (Minv, spla.aslinearoperator(Minv), lambda r: r / A.diagonal()):
        ours, theirs = [], []
        x, info = spk.cg(A, b, rtol=1e-10, M=M, callback=ours.append, device=DEVICE)
        ref, rinfo = spla.cg(A, b, rtol=1e-10, M=Minv, callback=lambda xk: theirs.append(xk.copy()), maxiter=10000)
        assert info == 0 and rinfo == 0
        assert abs(len(ours) - len(theirs)) <= 1, (len(ours), len(theirs))
        # the first iterates agree to rounding; CG's rounding grows along the run
        for k in range(3):
            assert np.linalg.norm(ours[k] - theirs[k]) <= 1e-12 * np.linalg.norm(theirs[k]), k
        assert np.linalg.norm(ours[-1] - theirs[-1]) <= 1e-8 * np.linalg.norm(theirs[-1])
        assert np.array_equal(ours[-1], x)


def test_preconditioner_names_and_none():
    A, b = spd()
    plain, _ = spk.cg(A, b, rtol=1e-8, M="none", device=DEVICE)
    for name in ("jacobi", "ic0", None):
        its = []
        x, info = spk.cg(A, b, rtol=1e-8, M=name, callback=its.append, device=DEVICE)
        assert info == 0 and relres(A, b, x) <= 1e-7
    with pytest.raises(ValueError, match="unknown precond"):
        spk.cg(A, b, M="amg")


def test_not_converged_returns_the_iterations_and_x():
    A, b = spd()
    x, info = spk.cg(A, b, maxiter=3, M="none", device=DEVICE)
    assert info == 3 and np.all(np.isfinite(x)) and relres(A, b, x) < 1
    x, info = spk.bicgstab(A, b, maxiter=2, M="none", device=DEVICE)
    assert info == 2


def test_x0_and_atol():
    A, b = spd()
    x, _ = spk.cg(A, b, rtol=1e-12, device=DEVICE)
    its = []
    x1, info = spk.cg(A, b, x0=x, rtol=1e-10, callback=its.append, device=DEVICE)
    assert info == 0 and len(its) == 0  # the start already meets the tolerance
    _, info = spk.cg(A, b, rtol=0.0, atol=1e-6 * np.linalg.norm(b), device=DEVICE)
    assert info == 0


def test_breakdown_is_negative_info():
    # symmetric indefinite: CG's p'Ap turns negative
    A = sp.diags([1.0, -2.0, 3.0, -4.0, 5.0], format="csr")
    x, info = spk.cg(A, np.ones(5), M="none", device=DEVICE)
    assert info < 0 and x.shape == (5,)


def test_bicgstab_nonsymmetric_with_scipy_inputs():
    A = read("sherman3")
    b = A @ np.ones(A.shape[0])
    for AA in (A, A.tocoo(), A.tocsc(), spla.aslinearoperator(A), sp.csr_array(A)):
        x, info = spk.bicgstab(AA, b.reshape(-1, 1), rtol=1e-9, device=DEVICE)
        assert info == 0 and x.shape == b.shape and relres(A, b, x) <= 1e-8


def test_float32_and_int64_inputs():
    A, b = spd()
    B = sp.csr_matrix(A.astype(np.float32))
    B.indices = B.indices.astype(np.int64)
    B.indptr = B.indptr.astype(np.int64)
    x, info = spk.cg(B, b.astype(np.float32), rtol=1e-6, device=DEVICE)
    assert info == 0 and x.dtype == np.float64 and relres(B.astype(np.float64), b, x) <= 1e-5


def test_several_right_hand_sides_on_one_setup():
    A, _ = spd()
    B = np.random.default_rng(1).standard_normal((A.shape[0], 3))
    with spk.Solver(A, rtol=1e-10, device=DEVICE) as s:
        X, infos = s.solve(B)
        assert X.shape == B.shape and len(infos) == 3 and all(i.converged for i in infos)
        for j in range(3):
            assert relres(A, B[:, j], X[:, j]) <= 1e-9
        X2, _ = s.solve(B, x0=X)
        assert np.allclose(X2, X)


def test_errors_are_clear():
    A, b = spd()
    op = spla.LinearOperator(A.shape, matvec=lambda v: A @ v)
    with pytest.raises(TypeError, match="matrix's entries"):
        spk.cg(op, b)
    with pytest.raises(ValueError, match=r"shape \(\d+, 2\)|\(\d+, 1\)"):
        spk.cg(A, np.ones((A.shape[0], 2)))
    with pytest.raises(ValueError, match="preconditioner has shape"):
        spk.cg(A, b, M=sp.eye(3))

    def boom(r):
        raise RuntimeError("the caller's M failed")
    with pytest.raises(RuntimeError, match="caller's M failed"):
        spk.cg(A, b, M=boom, device=DEVICE)

    def stop(xk):
        raise KeyError("stop here")
    with pytest.raises(KeyError, match="stop here"):
        spk.cg(A, b, callback=stop, device=DEVICE)
    with pytest.raises(spk.SpkOptionError, match="rtol"):
        spk.cg(A, b, tol=1e-5)  # SciPy's old keyword: the message names rtol


def test_static_pivoting():
    A = read("west0479")  # no diagonal: ILU(0) needs the rows permuted
    b = A @ np.ones(A.shape[0])
    x, info = spk.solve(A, b, precond="factor", probe=False, device=DEVICE)
    assert info.converged and info.pivoted > 400 and relres(A, b, x) <= 2e-8
    with pytest.raises(spk.SpkError, match="zero pivot"):
        spk.solve(A, b, precond="factor", probe=False, pivot="off", device=DEVICE)
    x, info = spk.bicgstab(A, b, M="ilu0", rtol=1e-9, device=DEVICE)
    assert info == 0 and relres(A, b, x) <= 2e-9


def test_gmres_like_scipy():
    A = read("sherman3")
    b = A @ np.ones(A.shape[0])
    x, info = spk.gmres(A, b, rtol=1e-9, restart=50, M="ilu0", device=DEVICE)
    assert info == 0 and relres(A, b, x) <= 1e-8
    # the same method, M and restart as SciPy: the same residual norms, to rounding
    A, b = spd()
    A = sp.csr_matrix(A + sp.diags([0.3], [1], shape=A.shape))  # nonsymmetric
    Minv = sp.diags(1.0 / A.diagonal())
    ours, theirs = [], []
    x, info = spk.gmres(A, b, rtol=1e-10, restart=15, M=Minv, callback=ours.append, device=DEVICE)
    ref, rinfo = spla.gmres(A, b, rtol=1e-10, restart=15, M=Minv, callback=theirs.append, callback_type="pr_norm",
                            maxiter=1000)
    assert info == 0 and rinfo == 0 and relres(A, b, x) <= 1e-9
    assert np.linalg.norm(x - ref) <= 1e-7 * np.linalg.norm(ref)
    assert all(b2 <= a2 * (1 + 1e-8) for a2, b2 in zip(ours, ours[1:]))  # never grows
    xs = []
    x, info = spk.gmres(A, b, restart=15, callback=xs.append, callback_type="x", M="none", device=DEVICE)
    assert info == 0 and np.array_equal(xs[-1], x)
    x, info = spk.gmres(A, b, restart=5, maxiter=2, M="none", device=DEVICE)
    assert info == 10  # two cycles of five
    with pytest.raises(ValueError, match="callback_type"):
        spk.gmres(A, b, callback=print, callback_type="residual")
    with spk.Solver(A, method="gmres", gmres_restart=40, device=DEVICE) as s:
        x, inf = s.solve(b)
        assert inf.converged and inf.method == "gmres"
