"""Complex systems through the Python package: complex128 matrices and vectors, the
methods chosen by symmetry (CG for Hermitian positive definite, COCG for complex
symmetric, BiCGStab otherwise), against scipy.sparse.linalg.spsolve."""
import os

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import spk

DEVICE = os.environ.get("SPK_TEST_DEVICE", "auto")


def lap2d(n):
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    return sp.kronsum(T, T, format="csr")


def helmholtz(n=20, k2=0.3, damp=0.2):
    """-Lap - k^2 (1 + i damp): complex symmetric, indefinite real part."""
    L = lap2d(n).astype(np.complex128)
    return sp.csr_matrix(L - k2 * (1 + 1j * damp) * sp.identity(n * n)), n * n


def hermitian(n=15, t=0.4, shift=0.5):
    """A magnetic-Laplacian-like Hermitian positive definite matrix."""
    N = n * n
    rows, cols, vals = [], [], []
    for i in range(n):
        for j in range(n):
            p = i * n + j
            rows.append(p)
            cols.append(p)
            vals.append(4.0 + shift)
            if j + 1 < n:
                q = p + 1
                w = -np.exp(1j * t * i)
                rows += [p, q]
                cols += [q, p]
                vals += [w, np.conj(w)]
            if i + 1 < n:
                q = p + n
                rows += [p, q]
                cols += [q, p]
                vals += [-1.0, -1.0]
    return sp.csr_matrix((vals, (rows, cols)), shape=(N, N), dtype=np.complex128), N


def general(n=20, seed=3):
    rng = np.random.default_rng(seed)
    A = lap2d(n).astype(np.complex128)
    C = sp.diags([1.0 + 0.5j], [1], shape=A.shape)  # convection: A != A^T
    return sp.csr_matrix(A + 0.8 * C + sp.diags(rng.uniform(0.1, 1.0, n * n) * 1j)), n * n


def rhs(n, seed=1):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n) + 1j * rng.standard_normal(n)


@pytest.mark.parametrize("make, method", [(helmholtz, "cocg"), (hermitian, "cg"), (general, "bicgstab")])
def test_auto_method_and_solution(make, method):
    A, n = make()
    b = rhs(n)
    x, info = spk.solve(A, b, device=DEVICE, rtol=1e-10)
    assert x.dtype == np.complex128
    assert info.method == method
    ref = spla.spsolve(A.tocsc(), b)
    assert np.linalg.norm(x - ref) <= 1e-7 * np.linalg.norm(ref)
    assert np.linalg.norm(b - A @ x) <= 1e-9 * np.linalg.norm(b)


def test_preconditioners_and_iterations():
    A, n = helmholtz(30)
    b = rhs(n)
    its = {}
    for pc in ("none", "jacobi", "ic0", "ilu0"):
        x, info = spk.solve(A, b, method="cocg", precond=pc, device=DEVICE, rtol=1e-9)
        assert info.converged and np.linalg.norm(b - A @ x) <= 1e-8 * np.linalg.norm(b)
        its[pc] = info.iterations
    assert its["ic0"] < its["none"], its


def test_scipy_style_cocg_and_bicgstab():
    A, n = helmholtz()
    b = rhs(n)
    x, info = spk.cocg(A, b, rtol=1e-10, device=DEVICE)
    assert info == 0 and np.linalg.norm(b - A @ x) <= 1e-9 * np.linalg.norm(b)
    x, info = spk.bicgstab(A, b, rtol=1e-10, device=DEVICE)
    assert info == 0 and np.linalg.norm(b - A @ x) <= 1e-9 * np.linalg.norm(b)
    x, info = spk.cocg(A, b, rtol=1e-12, maxiter=2, device=DEVICE)
    assert info == 2  # maxiter reached: the iterations done


def test_solver_reuse_update_values_and_columns():
    A, n = hermitian()
    with spk.Solver(A, device=DEVICE, rtol=1e-10) as s:
        B = np.stack([rhs(n, 1), rhs(n, 2)], axis=1)
        X, infos = s.solve(B)
        assert X.shape == B.shape and len(infos) == 2
        assert np.linalg.norm(B - A @ X) <= 1e-9 * np.linalg.norm(B)
        A2 = A.copy()
        A2.data = A2.data * 2.0
        s.update_values(A2)
        x, info = s.solve(B[:, 0])
        assert np.allclose(x, X[:, 0] / 2.0, rtol=1e-7, atol=1e-9)
        with pytest.raises(ValueError):
            s.update_values(sp.csr_matrix(A.real))  # real values for a complex solver


def test_errors():
    A, n = helmholtz(8)
    with pytest.raises(spk.SpkError):
        spk.solve(A, rhs(n), method="cg", device=DEVICE)  # not Hermitian
    with pytest.raises(spk.SpkError):
        spk.solve(A, rhs(n), method="gmres", device=DEVICE)  # not in complex
    R = sp.csr_matrix(lap2d(8))
    with pytest.raises(spk.SpkError):
        spk.solve(R, rhs(64), device=DEVICE)  # complex b, real A
    with pytest.raises(spk.SpkError):
        spk.solve(R, np.ones(64), method="cocg", device=DEVICE)  # cocg on a real matrix
    with pytest.raises(ValueError):
        spk.Solver(A, callback=lambda xk: None, device=DEVICE)
    b = rhs(n)
    b[3] = np.nan
    with pytest.raises(spk.SpkError):
        spk.solve(A, b, device=DEVICE)


def test_monitor_and_history():
    A, n = hermitian(10)
    seen = []
    x, info = spk.solve(A, rhs(n), monitor=lambda k, r, rel: seen.append(k), keep_history=True, device=DEVICE)
    assert info.converged and seen[0] == 0 and len(seen) == info.iterations + 1
    assert len(info.history) == info.iterations + 1 and info.history[-1] <= info.history[0]
