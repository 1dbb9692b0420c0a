"""GPU arrays (CuPy, or PyTorch CUDA tensors) as b and x0: solved in place on
the device (spk_solve_device), the same iterations and solution as with NumPy
arrays; the refusals (dtype, shape, a host solver).  Skipped without a GPU
build, a usable GPU, or either array library."""
import numpy as np
import pytest
import scipy.sparse as sp

import spk


def _gpu_array_module():
    try:
        import cupy
        cupy.zeros(1)
        return "cupy", lambda a: cupy.asarray(a), lambda a: cupy.asnumpy(a)
    except Exception:
        pass
    try:
        import torch
        if torch.cuda.is_available():
            return ("torch", lambda a: torch.as_tensor(np.asarray(a), device="cuda"),
                    lambda a: a.cpu().numpy())
    except Exception:
        pass
    return None


_MOD = _gpu_array_module() if spk.have_cuda() else None
pytestmark = pytest.mark.skipif(_MOD is None, reason="needs a CUDA build of spk, a GPU, and CuPy or PyTorch")


def _poisson2d(m):
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(m, m))
    return (sp.kron(sp.identity(m), T) + sp.kron(T, sp.identity(m))).tocsr()


def _convdiff(m):
    T = sp.diags([-1.3, 2.0, -0.7], [-1, 0, 1], shape=(m, m))
    return (sp.kron(sp.identity(m), T) + sp.kron(T, sp.identity(m))).tocsr()


@pytest.mark.parametrize("make,method,precond", [(_poisson2d, "cg", "ic0"), (_convdiff, "bicgstab", "ilu0"),
                                                 (_poisson2d, "cg", "none")])
def test_same_as_numpy(make, method, precond):
    name, to_gpu, to_host = _MOD
    A = make(40)
    b = np.random.default_rng(2).uniform(-1, 1, A.shape[0])
    with spk.Solver(A, method=method, precond=precond, device="cuda", rtol=1e-10) as s:
        x, info = s.solve(b)
        bg = to_gpu(b)
        xg, infog = s.solve(bg)
        assert type(xg) is type(bg), "x comes back as %s" % type(xg)
        assert infog.iterations == info.iterations and infog.converged
        np.testing.assert_allclose(to_host(xg), x, rtol=0, atol=1e-12 * np.abs(x).max())
        assert np.array_equal(to_host(bg), b), "b changed"
        x0 = to_gpu(x)
        xg2, info2 = s.solve(bg, x0)
        assert info2.iterations <= 1 and np.array_equal(to_host(x0), x), "x0 used, not changed"


def test_scipy_style_call():
    name, to_gpu, to_host = _MOD
    A = _poisson2d(30)
    b = np.ones(A.shape[0])
    x, info = spk.cg(A, to_gpu(b), rtol=1e-10, device="cuda")
    assert info == 0
    r = b - A @ to_host(x)
    assert np.linalg.norm(r) <= 1e-9 * np.linalg.norm(b)


def test_refusals():
    name, to_gpu, to_host = _MOD
    A = _poisson2d(10)
    n = A.shape[0]
    with spk.Solver(A, method="cg", precond="jacobi", device="cuda") as s:
        with pytest.raises(ValueError, match="float64"):
            s.solve(to_gpu(np.ones(n, dtype=np.float32)))
        with pytest.raises(ValueError, match="shape"):
            s.solve(to_gpu(np.ones(n + 1)))
        with pytest.raises(TypeError, match="GPU array like b"):
            s.solve(to_gpu(np.ones(n)), np.zeros(n))
    with spk.Solver(A, method="cg", precond="jacobi", device="cpu") as s:
        with pytest.raises(spk.SpkError, match="context runs on the host"):
            s.solve(to_gpu(np.ones(n)))


def test_matrix_on_the_gpu():
    """A sparse matrix in GPU memory (cupyx.scipy.sparse, or a PyTorch sparse CSR tensor) gives
    the solve of the same matrix from scipy.sparse."""
    name, to_gpu, to_host = _MOD
    A = _convdiff(30)
    if name == "cupy":
        import cupyx.scipy.sparse as csp
        Ag = csp.csr_matrix(A)
    else:
        import torch
        Ag = torch.sparse_csr_tensor(torch.as_tensor(A.indptr, dtype=torch.int64),
                                     torch.as_tensor(A.indices, dtype=torch.int64),
                                     torch.as_tensor(A.data), size=A.shape, device="cuda")
    b = np.random.default_rng(5).uniform(-1, 1, A.shape[0])
    x, info = spk.bicgstab(A, b, rtol=1e-10, M="ilu0", device="cuda")
    xg, infog = spk.bicgstab(Ag, to_gpu(b), rtol=1e-10, M="ilu0", device="cuda")
    assert info == 0 and infog == 0
    np.testing.assert_allclose(to_host(xg), x, rtol=0, atol=1e-12 * np.abs(x).max())
