"""pytest tests of the spk Python package against scipy.sparse.linalg.spsolve.

Run (from the repository root, with libspk built):
    SPK_LIBRARY=build/libspk.so PYTHONPATH=python python3 -m pytest python/tests
SPK_TEST_DATA names the folder of sample matrices (default: data/), and the
"shared" tests run over SPK_SHARED_MATRICES (skipped when unset or absent).
"""
import glob
import os

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import spk

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.environ.get("SPK_TEST_DATA", os.path.join(ROOT, "data"))
SHARED = os.environ.get("SPK_SHARED_MATRICES", "")
DEVICE = os.environ.get("SPK_TEST_DEVICE", "auto")


def read(path):
    return sp.csr_matrix(scipy.io.mmread(path))


def cond1(A):
    """The 1-norm condition number, estimated (Hager/Higham) with a sparse LU."""
    lu = spla.splu(sp.csc_matrix(A))
    inv = spla.LinearOperator(A.shape, matvec=lu.solve, rmatvec=lambda y: lu.solve(y, trans="T"))
    return spla.onenormest(sp.csc_matrix(A)) * spla.onenormest(inv)


def check_solution(A, b, x, rtol):
    """The true residual meets rtol, and x agrees with a direct solve as far as
    the conditioning allows (||x - x_ref|| / ||x_ref|| <= cond(A) * residual)."""
    assert np.all(np.isfinite(x))
    ref = spla.spsolve(sp.csc_matrix(A), b)
    res = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
    assert res <= 10 * rtol, "true residual %g" % res
    err = np.linalg.norm(x - ref) / np.linalg.norm(ref)
    bound = 10 * cond1(A) * max(res, 1e-15)
    assert err <= bound, "error %g against spsolve above cond * residual = %g" % (err, bound)
    return err


@pytest.mark.parametrize("name", ["bcsstk21", "nos3", "sherman3", "orsirr_1", "plat362"])
def test_data_matrices_match_spsolve(name):
    A = read(os.path.join(DATA, name + ".mtx.gz"))
    xs = np.linspace(1.0, 2.0, A.shape[0])
    b = A @ xs
    # IC(0)/ILU(0) from the start: the probe's choice would follow timings
    x, info = spk.solve(A, b, rtol=1e-10, probe=False, device=DEVICE)
    assert info.converged and info.status == "SPK_OK"
    assert info.iterations > 0 and info.true_relres <= 1e-9
    assert info.method in ("cg", "bicgstab") and info.precond.split("-")[0] in ("ic0", "ilu0")
    assert info.format and info.device
    assert info.t_solve > 0 and info.t_spmv > 0
    check_solution(A, b, x, 1e-10)


def test_method_precond_format_and_history():
    A = read(os.path.join(DATA, "nos3.mtx.gz"))
    b = np.ones(A.shape[0])
    x, info = spk.solve(A, b, method="cg", precond="jacobi", format="csr", keep_history=True, device="cpu")
    assert (info.method, info.precond, info.format) == ("cg", "jacobi", "csr")
    assert info.device == "host"
    assert len(info.history) == info.iterations + 1 and info.history[-1] <= 1e-8 * np.linalg.norm(b)
    check_solution(A, b, x, 1e-8)


def test_probe_choice_is_told():
    # a 1-D Laplacian: CG without a preconditioner gains little per iteration,
    # IC(0) is exact on it, so the measured choice is IC(0) (probe.c)
    n = 3000
    A = sp.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1], format="csr")
    b = np.ones(n)
    x, info = spk.solve(A, b, device="cpu")  # the probe is on by default
    assert info.precond.startswith("ic0") and info.choice.startswith("ic0: ")
    check_solution(A, b, x, 1e-8)
    x, info = spk.solve(A, b, probe=False, device="cpu")
    assert info.choice == "" and info.factorization == "exact"
    x, info = spk.solve(A, b, device="cpu", precond="jacobi")
    assert info.factorization == ""


def test_solver_reuse_and_update_values():
    A = read(os.path.join(DATA, "sherman3.mtx.gz"))
    n = A.shape[0]
    with spk.Solver(A, rtol=1e-10, device=DEVICE) as s:
        for k in range(3):  # several right-hand sides on one setup
            b = A @ np.cos(np.arange(n) + k)
            x, info = s.solve(b)
            assert info.converged
            check_solution(A, b, x, 1e-10)
        B = A.copy()
        B.data = B.data * 2.0  # same pattern, new values
        s.update_values(B)
        b = B @ np.ones(n)
        x, info = s.solve(b)
        assert info.converged
        assert np.allclose(x, 1.0, rtol=1e-5)
        with pytest.raises(ValueError, match="pattern"):
            s.update_values(sp.eye(n, format="csr"))


def test_threads_give_the_same_bits():
    """A 3-D Laplacian large enough for threaded loops and level-scheduled
    IC(0): x is bit for bit the one-thread x, with 2 and 3 threads."""
    m = 40
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m))
    I = sp.identity(m)
    A = sp.csr_matrix(sp.kron(sp.kron(T, I), I) + sp.kron(sp.kron(I, T), I) + sp.kron(sp.kron(I, I), T))
    b = A @ np.sin(np.arange(A.shape[0]))
    xs = []
    for t in (1, 2, 3):
        with spk.Solver(A, method="cg", precond="ic0", device="cpu", threads=t, probe="off") as s:
            assert s.threads == t or s.threads == 1  # 1: a build without OpenMP
            x, info = s.solve(b)
            assert info.converged
            xs.append(x)
    assert all(np.array_equal(xs[0], x) for x in xs[1:])
    with pytest.raises(ValueError, match="threads"):
        spk.Solver(A, device="cpu", threads=-1)


def test_any_scipy_format_and_dense():
    A = read(os.path.join(DATA, "nos3.mtx.gz"))
    b = A @ np.ones(A.shape[0])
    for M in (A.tocoo(), A.tocsc(), sp.lil_matrix(A), A.toarray()):
        x, info = spk.solve(M, b, device="cpu")
        assert info.converged and np.allclose(x, 1.0, rtol=1e-5)


def test_errors_raise_with_the_library_message():
    with pytest.raises(spk.SpkError, match="square"):
        spk.solve(sp.random(4, 5, density=0.5, format="csr"), np.ones(4), device="cpu")
    A = read(os.path.join(DATA, "west0479.mtx.gz"))
    with pytest.raises(spk.SpkError, match="zero pivot") as e:  # ILU(0) from the start
        spk.solve(A, np.ones(A.shape[0]), probe=False, pivot="off", device="cpu")
    assert e.value.status_name == "SPK_ERR_ZERO_PIVOT"
    A = read(os.path.join(DATA, "nos3.mtx.gz"))
    with pytest.raises(spk.SpkError, match="did not converge in 3 iterations") as e:
        spk.solve(A, np.ones(A.shape[0]), maxit=3, device="cpu")
    assert e.value.info.iterations == 3 and not e.value.info.converged and e.value.x.shape == (A.shape[0],)
    with pytest.raises(spk.SpkError, match="format"):
        spk.solve(A, np.ones(A.shape[0]), format="nosuch", device="cpu")
    with pytest.raises(ValueError, match="rows"):
        spk.solve(A, np.ones(3), device="cpu")
    with pytest.raises(ValueError, match="method"):
        spk.solve(A, np.ones(A.shape[0]), method="minres")
    with pytest.raises(spk.SpkError, match="complex"):  # a complex b for a real matrix
        spk.solve(sp.eye(3, format="csr"), np.ones(3) * 1j, device="cpu")
    x, info = spk.solve(sp.eye(3, dtype=complex, format="csr"), np.ones(3), device="cpu")  # a complex system
    assert x.dtype == np.complex128 and np.allclose(x, 1) and info.converged


def test_zero_rhs_and_tiny_systems():
    x, info = spk.solve(sp.eye(5, format="csr") * 3.0, np.zeros(5), device="cpu")
    assert info.converged and info.iterations == 0 and not x.any()
    x, info = spk.solve(sp.csr_matrix([[4.0]]), np.array([2.0]), device="cpu")
    assert info.converged and abs(x[0] - 0.5) < 1e-12


def test_cuda_device_when_present():
    if not spk.have_cuda():
        pytest.skip("this build of libspk has no CUDA")
    A = read(os.path.join(DATA, "bcsstk21.mtx.gz"))
    try:
        s = spk.Solver(A, device="cuda")
    except spk.SpkError as e:
        if e.status_name == "SPK_ERR_DEVICE":
            pytest.skip("no usable GPU: %s" % e)
        raise
    with s:
        b = A @ np.ones(A.shape[0])
        x, info = s.solve(b)
        assert info.converged and info.device.startswith("cuda")
        # the tolerance is on the residual; the error it leaves depends on the
        # method that answered (IC(0) 6e-5, CG with Jacobi 1.5e-4, plain CG 9e-4)
        assert np.linalg.norm(b - A @ x) <= 1.01e-8 * np.linalg.norm(b)
        assert np.allclose(x, 1.0, rtol=1e-3)


SHARED_FILES = sorted(glob.glob(os.path.join(SHARED, "*.mtx.gz"))) if SHARED and os.path.isdir(SHARED) else []


@pytest.mark.skipif(not SHARED_FILES, reason="SPK_SHARED_MATRICES is not set or absent")
@pytest.mark.parametrize("path", SHARED_FILES, ids=[os.path.basename(p) for p in SHARED_FILES])
def test_shared_matrices_match_spsolve(path):
    A = read(path)
    if A.shape[0] != A.shape[1] or A.shape[0] > 200000 or np.iscomplexobj(A.data):
        pytest.skip("not a square real system small enough for spsolve")
    xs = np.ones(A.shape[0])
    b = A @ xs
    if not np.linalg.norm(b):
        pytest.skip("A*1 = 0")
    try:
        x, info = spk.solve(A, b, rtol=1e-8, device=DEVICE, maxit=3000)
    except spk.SpkError as e:
        # spk may refuse or fail to converge on a singular or very hard system; it must say why
        assert str(e) and e.status_name in ("SPK_ERR_ZERO_PIVOT", "SPK_ERR_NOT_CONVERGED", "SPK_ERR_BREAKDOWN",
                                            "SPK_ERR_INDEFINITE")
        return
    assert info.converged and info.true_relres <= 1e-7
    res = np.linalg.norm(b - A @ x) / np.linalg.norm(b)
    assert res <= 1e-7


def test_precond_sweeps():
    n = 40
    A = sp.diags([-1.0, 2.5, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
    b = A @ np.ones(n)
    # Laplacian-shaped: precond="auto" would take none on the GPU; "factor" is IC(0) always
    xa, infoa = spk.solve(A, b, precond_sweeps="auto", precond="factor", device=DEVICE)
    assert infoa.converged
    x, info = spk.solve(A, b, precond_sweeps=2, precond="factor", device=DEVICE)
    assert info.converged and info.precond == "ic0-sweeps" and info.precond_sweeps == 2
    assert np.allclose(x, 1.0, rtol=1e-6)
    xe, infoe = spk.solve(A, b, precond_sweeps=0, precond="factor", device=DEVICE)
    assert infoe.precond == "ic0" and infoe.precond_sweeps == 0 and infoe.iterations <= info.iterations
    with pytest.raises(spk.SpkError) as e:
        spk.solve(A, b, precond_sweeps=1001, precond="factor", device=DEVICE)
    assert "precond_sweeps" in str(e.value)


def test_precond_isai():
    n = 40
    A = sp.diags([-1.0, 2.5, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
    x, info = spk.solve(A, A @ np.ones(n), precond_isai=True, precond="factor", device=DEVICE)
    assert info.converged and info.precond == "ic0-isai"
    assert np.allclose(x, 1.0, rtol=1e-6)
    with pytest.raises(spk.SpkError) as e:
        spk.solve(A, A @ np.ones(n), precond_isai=True, precond_sweeps=2, precond="factor", device=DEVICE)
    assert "choose one" in str(e.value)


def test_reorder_multicolor():
    g = 12
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(g, g))
    A = (sp.kron(sp.identity(g), T) + sp.kron(T, sp.identity(g))).tocsr()
    xt = np.linspace(1.0, 2.0, g * g)
    x, info = spk.solve(A, A @ xt, reorder="multicolor", rtol=1e-10, device=DEVICE)
    assert info.converged and np.allclose(x, xt, rtol=1e-7)
    x0, info0 = spk.solve(A, A @ xt, rtol=1e-10, device=DEVICE)
    assert info0.converged and np.allclose(x, x0, rtol=1e-7)
    xb, infob = spk.solve(A, A @ xt, reorder="block-multicolor", reorder_block=4, rtol=1e-10, device=DEVICE)
    assert infob.converged and np.allclose(xb, xt, rtol=1e-7)
    with pytest.raises(ValueError) as e:
        spk.solve(A, A @ xt, reorder="rcm", device=DEVICE)
    assert "reorder" in str(e.value)


def test_vector_ops_fused():
    g = 12
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(g, g))
    A = (sp.kron(sp.identity(g), T) + sp.kron(T, sp.identity(g))).tocsr()
    xt = np.linspace(1.0, 2.0, g * g)
    for method in ("cg", "bicgstab"):
        # the preconditioner named: the probe's choice, made from measured times, could differ
        # between two solves on a loaded machine
        xc, infoc = spk.solve(A, A @ xt, method=method, precond="none", rtol=1e-10, device=DEVICE,
                              vector_ops="classic")
        xf, infof = spk.solve(A, A @ xt, method=method, precond="none", rtol=1e-10, device=DEVICE)  # block
        assert infof.converged and np.allclose(xf, xt, rtol=1e-7)
        assert abs(infof.iterations - infoc.iterations) <= max(3, infoc.iterations // 10)
        assert infof.t_sync >= 0 and infoc.t_sync == 0
        # on the GPU this small system's iterations run in one block (BiCGStab's first apart)
        first = 1 if method == "bicgstab" else 0
        assert infof.block_iterations == (infof.iterations - first if infof.device == "cuda" else 0)
        assert infof.block_cluster == (1 if infof.device == "cuda" else 0)
        xg, infog = spk.solve(A, A @ xt, method=method, precond="none", rtol=1e-10, device=DEVICE,
                              vector_ops="graph")
        assert infog.converged and np.allclose(xg, xt, rtol=1e-7) and infog.block_iterations == 0
    # more entries than one block takes: without a preconditioner, a cluster of blocks on sm_90
    h = 40
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(h, h))
    B = (sp.kron(sp.kron(sp.identity(h), sp.identity(h)), T) + sp.kron(sp.kron(sp.identity(h), T), sp.identity(h))
         + sp.kron(sp.kron(T, sp.identity(h)), sp.identity(h))).tocsr()[:12000, :12000]
    xb = np.linspace(1.0, 2.0, B.shape[0])
    xk, infok = spk.solve(B, B @ xb, method="cg", precond="none", rtol=1e-10, device=DEVICE)
    assert infok.converged and np.allclose(xk, xb, rtol=1e-7) and B.nnz > 32768
    if infok.device == "cuda":
        assert infok.block_cluster > 1 and infok.block_iterations == infok.iterations
    else:
        assert infok.block_cluster == 0 and infok.block_iterations == 0
    with pytest.raises(ValueError) as e:
        spk.solve(A, A @ xt, vector_ops="turbo", device=DEVICE)
    assert "vector_ops" in str(e.value)


def test_options_from_the_library_table():
    table = spk.options()
    assert table["rtol"]["default"] == "1e-8" and table["rtol"]["range"] == "a number in [0, 1)"
    assert table["sell-c"]["owner"] == "spmv" and table["precond-sweeps"]["default"] == "auto"
    assert "vector_ops" in spk.Solver.__doc__ and "sell_c" in spk.Solver.__doc__
    n = 40
    A = sp.diags([-1.0, 2.5, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
    b = A @ np.ones(n)
    # a format's knob, a switch as a bool, a name: all through the library's setter
    x, info = spk.solve(A, b, format="sell", sell_c=8, sell_sigma=16, allow_shift=False, vector_ops="classic",
                        precond="factor", device="cpu")
    assert info.converged and info.format == "sell" and "SELL-8-16" in info.format_detail
    assert np.allclose(x, 1.0, rtol=1e-6)
    # an unknown keyword and a value out of range: the library's message, as SpkError and ValueError
    with pytest.raises(spk.SpkOptionError) as e:
        spk.solve(A, b, sel_c=8, device="cpu")
    assert "did you mean sell-c" in str(e.value) and e.value.status_name == "SPK_ERR_NOT_FOUND"
    for bad, part in ((dict(rtol=2), "rtol must be a number in [0, 1)"), (dict(sell_c=2000), "[1, 1024]"),
                      (dict(sell_c=16, sell_sigma=40), "multiple of sell-c")):
        with pytest.raises(ValueError) as e:
            spk.solve(A, b, format="sell", device="cpu", **bad)
        assert part in str(e.value)
