"""spk: preconditioned CG / BiCGStab on NVIDIA GPUs (and the host) from Python.

    import spk
    x, info = spk.solve(A, b)                 # A: any scipy.sparse matrix (or array), b: NumPy
    print(info.converged, info.iterations, info.device, info.format)

    s = spk.Solver(A, method="cg", precond="ic0", rtol=1e-10)
    x1, _ = s.solve(b1)
    x2, _ = s.solve(b2)                        # reuses the factorization
    s.update_values(A_new)                     # same pattern, new values: refactored on next solve

A thin ctypes layer over the C library (libspk.so): no compiled extension.
The library is found through the environment variable SPK_LIBRARY (a path),
then next to this package (spk/lib), then by the system loader.  Every
failure raises SpkError with the library's message.
"""
import ctypes
import ctypes.util
import os
from dataclasses import dataclass

import numpy as np

__all__ = ["solve", "Solver", "SpkError", "SolveInfo", "version", "have_cuda"]

_DEVICES = {"auto": 0, "cpu": 1, "host": 1, "cuda": 2, "gpu": 2}
_METHODS = {"auto": 0, "cg": 1, "bicgstab": 2}
_PRECONDS = {"auto": 0, "none": 1, "jacobi": 2, "ilu0": 3, "ic0": 4, "factor": 5}
_MONITOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_double, ctypes.c_double)


_REORDER = {"none": 0, "multicolor": 1, "block-multicolor": 2}
_VECTOR_OPS = {"classic": 0, "cublas": 0, "fused": 1, "graph": 2, "block": 3}
_PRECISION = {"auto": 0, "double": 1, "float": 2}


class _Options(ctypes.Structure):
    _fields_ = [("rtol", ctypes.c_double), ("atol", ctypes.c_double), ("maxit", ctypes.c_int),
                ("format", ctypes.c_char_p), ("hmec_parts", ctypes.c_int), ("tile_te", ctypes.c_double),
                ("tile_th", ctypes.c_double), ("tile_defer_nnz", ctypes.c_longlong),
                ("allow_shift", ctypes.c_int), ("shift_init", ctypes.c_double), ("shift_max", ctypes.c_double),
                ("keep_history", ctypes.c_int), ("monitor", ctypes.c_void_p), ("monitor_user", ctypes.c_void_p),
                ("dtol", ctypes.c_double), ("precond_sweeps", ctypes.c_int), ("precond_isai", ctypes.c_int),
                ("reorder", ctypes.c_int), ("reorder_block", ctypes.c_int), ("vector_ops", ctypes.c_int),
                ("precond_precision", ctypes.c_int), ("race", ctypes.c_int), ("sell_c", ctypes.c_int),
                ("sell_sigma", ctypes.c_int), ("bcsr_block", ctypes.c_int)]


class _Result(ctypes.Structure):
    _fields_ = [("reason", ctypes.c_int), ("iterations", ctypes.c_int), ("rnorm0", ctypes.c_double),
                ("rnorm", ctypes.c_double), ("relres", ctypes.c_double), ("true_relres", ctypes.c_double),
                ("restarts", ctypes.c_int), ("shift", ctypes.c_double), ("switched", ctypes.c_int),
                ("t_setup", ctypes.c_double), ("t_spmv", ctypes.c_double), ("t_precond", ctypes.c_double),
                ("t_vector", ctypes.c_double), ("t_total", ctypes.c_double), ("history_len", ctypes.c_int),
                ("history", ctypes.POINTER(ctypes.c_double)), ("t_sync", ctypes.c_double),
                ("t_setup_upload", ctypes.c_double), ("t_setup_check", ctypes.c_double),
                ("t_setup_format", ctypes.c_double), ("t_setup_precond", ctypes.c_double),
                ("graph_iterations", ctypes.c_int),
                ("block_iterations", ctypes.c_int), ("block_cluster", ctypes.c_int),
                ("race", ctypes.c_int)]


def _load():
    candidates = []
    if os.environ.get("SPK_LIBRARY"):
        candidates.append(os.environ["SPK_LIBRARY"])
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib")
    candidates += [os.path.join(here, n) for n in ("libspk.so", "libspk.dylib")]
    found = ctypes.util.find_library("spk")
    if found:
        candidates.append(found)
    errors = []
    for path in candidates:
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            errors.append("%s: %s" % (path, e))
    raise ImportError("spk: cannot load the spk C library (set SPK_LIBRARY to the path of libspk.so); tried: "
                      + ("; ".join(errors) if errors else "nothing found"))


_lib = _load()
_P = ctypes.c_void_p
for name, res, args in [
        ("spk_version", ctypes.c_char_p, []),
        ("spk_have_cuda", ctypes.c_int, []),
        ("spk_status_name", ctypes.c_char_p, [ctypes.c_int]),
        ("spk_reason_name", ctypes.c_char_p, [ctypes.c_int]),
        ("spk_context_create", ctypes.c_int, [ctypes.POINTER(_P), ctypes.c_int]),
        ("spk_context_destroy", None, [_P]),
        ("spk_context_device", ctypes.c_char_p, [_P]),
        ("spk_last_error", ctypes.c_char_p, [_P]),
        ("spk_matrix_from_csr", ctypes.c_int, [_P, ctypes.c_int, ctypes.c_int, _P, _P, _P, ctypes.POINTER(_P)]),
        ("spk_matrix_update_values", ctypes.c_int, [_P, _P]),
        ("spk_matrix_destroy", None, [_P]),
        ("spk_options_default", None, [ctypes.POINTER(_Options)]),
        ("spk_solver_create", ctypes.c_int, [_P, _P, ctypes.c_int, ctypes.c_int, ctypes.POINTER(_Options),
                                             ctypes.POINTER(_P)]),
        ("spk_solve", ctypes.c_int, [_P, _P, _P, ctypes.POINTER(_Result)]),
        ("spk_solver_method", ctypes.c_char_p, [_P]),
        ("spk_solver_precond", ctypes.c_char_p, [_P]),
        ("spk_solver_precond_sweeps", ctypes.c_int, [_P]),
        ("spk_solver_format", ctypes.c_char_p, [_P]),
        ("spk_solver_format_detail", ctypes.c_char_p, [_P]),
        ("spk_solver_destroy", None, [_P])]:
    f = getattr(_lib, name)
    f.restype = res
    f.argtypes = args


def _s(b):
    return b.decode() if b is not None else ""


def version():
    """The C library's version, "MAJOR.MINOR.PATCH"."""
    return _s(_lib.spk_version())


def have_cuda():
    """True when the library was built with CUDA (a GPU may still be absent)."""
    return bool(_lib.spk_have_cuda())


class SpkError(RuntimeError):
    """A failed spk call: .status (int), .status_name, the library's message;
    for a solve that ran, .info (SolveInfo) and .x (the last iterate)."""

    def __init__(self, status, message, info=None, x=None):
        self.status = status
        self.status_name = _s(_lib.spk_status_name(status))
        self.info = info
        self.x = x
        super().__init__("%s (%s)" % (message or self.status_name, self.status_name))


@dataclass
class SolveInfo:
    """What a solve did: outcome, residuals, timings (seconds) and what ran where."""
    converged: bool
    status: str
    reason: str
    iterations: int
    relres: float
    true_relres: float
    rnorm0: float
    restarts: int
    shift: float
    switched: bool
    t_setup: float
    t_solve: float
    t_spmv: float
    t_precond: float
    t_vector: float
    t_sync: float
    method: str
    precond: str
    format: str
    format_detail: str
    device: str
    history: np.ndarray
    graph_iterations: int = 0  # iterations replayed as CUDA graphs (vector_ops "graph")
    block_iterations: int = 0  # iterations run inside one thread block or cluster (vector_ops "block")
    block_cluster: int = 0  # the blocks that ran them: 1 one block, 2-16 a cluster, 0 none
    precond_sweeps: int = 0  # Jacobi sweeps per triangular solve of IC(0)/ILU(0); 0: exact or none
    race: int = 0  # 0 no race; 1 the preconditioned solve answered; 2 CG without one, run alongside; 3 CG with Jacobi, alongside


def _csr_of(A):
    """A as a square CSR with int32 indices and float64 values (scipy.sparse, or a dense array)."""
    import scipy.sparse as sp
    if not sp.issparse(A):
        A = sp.csr_matrix(np.asarray(A, dtype=np.float64))
    if np.iscomplexobj(A.data):
        raise SpkError(4, "complex matrices are not supported")  # SPK_ERR_UNSUPPORTED
    C = sp.csr_matrix(A, dtype=np.float64, copy=False)
    if max(C.shape + (C.nnz,)) > np.iinfo(np.int32).max:
        raise SpkError(4, "the matrix is too large for 32-bit indices")  # SPK_ERR_UNSUPPORTED
    indptr = np.ascontiguousarray(C.indptr, dtype=np.int32)
    indices = np.ascontiguousarray(C.indices, dtype=np.int32)
    data = np.ascontiguousarray(C.data, dtype=np.float64)
    return C.shape, indptr, indices, data


class Solver:
    """A factorized solver for one matrix; solve() reuses its setup for every
    right-hand side, update_values() keeps the pattern and refactors.

    method: "auto" | "cg" | "bicgstab"; precond: "auto" | "factor" | "ic0" |
    "ilu0" | "jacobi" | "none" ("factor": IC(0) with CG, ILU(0) with BiCGStab;
    "auto": the same, but on the GPU none for a matrix shaped like a
    Laplacian, where they do not pay for their apply); format: an SpMV format name ("auto", "cusparse", "ell",
    ..., see `spk solve --help`; "auto" is the GPU's default and csr on the host); device:
    "auto" | "cpu" | "cuda".  Other keywords: rtol, atol, maxit, dtol,
    allow_shift, keep_history, precond_sweeps (IC(0)/ILU(0): "auto", the
    default: on the GPU the device's factorization with the fewest sweeps
    (2..16) that pass a check on a probe vector, exact solves with that
    factor where none does or where they cost about as much; on the host
    exact solves; 0: exact triangular solves (on the GPU the cuSPARSE
    reference); k > 0: k Jacobi sweeps each (on the GPU factorization and
    sweeps on the device)), precond_isai (True:
    the factors' approximate inverses, one SpMV each), reorder ("none" |
    "multicolor": rows ordered by a greedy coloring of A + A^T, one
    triangular-solve level per color; "block-multicolor": blocks of
    reorder_block rows colored, default 16; x comes back in A's order),
    vector_ops ("block", the default: on the GPU a small system's whole
    iterations in one thread block, up to 64 a launch (at most 12288 rows
    and 32768 entries, 16384 with a preconditioner; beyond that, in a
    cluster of 16 blocks up to 524288 entries, 131072 with IC(0)/ILU(0)
    sweeps: SolveInfo.block_cluster), elsewhere as "graph";
    "graph": the fused steps below between two
    reads, with the SpMV and the preconditioner, recorded once as CUDA
    graphs and replayed (elsewhere as "fused"); "fused": each iteration's
    vector work in a few fused steps, the scalars kept on the device; "classic", also "cublas": one
    operation per dot product and update, each scalar back on the host),
    precond_precision (the factor's values in the sweeps: "auto", the
    default: float with precond_sweeps="auto" on the GPU, else double;
    "double"; "float": rounded to float, sums in double)."""

    def __init__(self, A, method="auto", precond="auto", format="auto", rtol=1e-8, atol=0.0, maxit=10000,
                 device="auto", dtol=None, allow_shift=True, keep_history=False, precond_sweeps="auto",
                 precond_isai=False, reorder="none", reorder_block=0, vector_ops="block",
                 precond_precision="auto"):
        if reorder not in _REORDER:
            raise ValueError("spk: unknown reorder '%s' (one of %s)" % (reorder, ", ".join(_REORDER)))
        if precond_precision not in _PRECISION:
            raise ValueError("spk: unknown precond_precision '%s' (one of %s)" %
                             (precond_precision, ", ".join(_PRECISION)))
        if vector_ops not in _VECTOR_OPS:
            raise ValueError("spk: unknown vector_ops '%s' (one of %s)" % (vector_ops, ", ".join(_VECTOR_OPS)))
        for what, val, table in (("method", method, _METHODS), ("precond", precond, _PRECONDS),
                                 ("device", device, _DEVICES)):
            if val not in table:
                raise ValueError("spk: unknown %s '%s' (one of %s)" % (what, val, ", ".join(table)))
        self._ctx = self._mat = self._solver = None
        shape, self._indptr, self._indices, data = _csr_of(A)
        self.shape = shape
        ctx = _P()
        st = _lib.spk_context_create(ctypes.byref(ctx), _DEVICES[device])
        if st:
            msg = _s(_lib.spk_last_error(ctx)) if ctx else ""
            if ctx:
                _lib.spk_context_destroy(ctx)
            raise SpkError(st, msg or "cannot create a context for device '%s'" % device)
        self._ctx = ctx
        mat = _P()
        self._check(_lib.spk_matrix_from_csr(ctx, shape[0], shape[1], self._indptr.ctypes.data,
                                             self._indices.ctypes.data, data.ctypes.data, ctypes.byref(mat)))
        self._mat = mat
        o = _Options()
        _lib.spk_options_default(ctypes.byref(o))
        o.rtol, o.atol, o.maxit = float(rtol), float(atol), int(maxit)
        if dtol is not None:
            o.dtol = float(dtol)
        o.allow_shift = 1 if allow_shift else 0
        o.keep_history = 1 if keep_history else 0
        o.precond_sweeps = -1 if precond_sweeps == "auto" else int(precond_sweeps)
        o.precond_isai = 1 if precond_isai else 0
        o.reorder = _REORDER[reorder]
        o.reorder_block = int(reorder_block)
        o.vector_ops = _VECTOR_OPS[vector_ops]
        o.precond_precision = _PRECISION[precond_precision]
        self._format = format.encode() if format else None
        o.format = self._format
        solver = _P()
        self._check(_lib.spk_solver_create(ctx, mat, _METHODS[method], _PRECONDS[precond], ctypes.byref(o),
                                           ctypes.byref(solver)))
        self._solver = solver

    def _check(self, st):
        if st:
            raise SpkError(st, _s(_lib.spk_last_error(self._ctx)))

    @property
    def device(self):
        """The device the solves run on, e.g. "cuda (NVIDIA H100 80GB HBM3)" or "host"."""
        return _s(_lib.spk_context_device(self._ctx))

    def solve(self, b, x0=None):
        """Solve A x = b from x0 (default zero); returns (x, SolveInfo).  Raises
        SpkError (with .info and .x) when the solve fails or does not converge."""
        if self._solver is None:
            raise SpkError(1, "the solver was closed")  # SPK_ERR_INVALID_ARG
        b = np.ascontiguousarray(b, dtype=np.float64)
        n = self.shape[0]
        if b.ndim != 1 or b.shape[0] != n:
            raise ValueError("spk: b has shape %s but the matrix has %d rows" % (b.shape, n))
        x = np.zeros(n) if x0 is None else np.array(x0, dtype=np.float64, copy=True)
        if x.shape != (n,):
            raise ValueError("spk: x0 has shape %s, expected (%d,)" % (x.shape, n))
        r = _Result()
        st = _lib.spk_solve(self._solver, b.ctypes.data, x.ctypes.data, ctypes.byref(r))
        msg = _s(_lib.spk_last_error(self._ctx)) if st else ""
        hist = np.array(r.history[:r.history_len]) if r.history_len > 0 else np.zeros(0)
        info = SolveInfo(converged=st == 0, status=_s(_lib.spk_status_name(st)),
                         reason=_s(_lib.spk_reason_name(r.reason)), iterations=r.iterations,
                         relres=r.relres, true_relres=r.true_relres, rnorm0=r.rnorm0, restarts=r.restarts,
                         shift=r.shift, switched=bool(r.switched), t_setup=r.t_setup, t_solve=r.t_total,
                         t_spmv=r.t_spmv, t_precond=r.t_precond, t_vector=r.t_vector, t_sync=r.t_sync,
                         method=_s(_lib.spk_solver_method(self._solver)),
                         precond=_s(_lib.spk_solver_precond(self._solver)),
                         format=_s(_lib.spk_solver_format(self._solver)),
                         format_detail=_s(_lib.spk_solver_format_detail(self._solver)), device=self.device,
                         history=hist, graph_iterations=r.graph_iterations, block_iterations=r.block_iterations,
                         block_cluster=r.block_cluster, precond_sweeps=_lib.spk_solver_precond_sweeps(self._solver),
                         race=r.race)
        if st:
            raise SpkError(st, msg, info=info, x=x)
        return x, info

    def update_values(self, A):
        """New values for the same pattern (the CSR structure given at creation)."""
        shape, indptr, indices, data = _csr_of(A)
        if shape != self.shape or not np.array_equal(indptr, self._indptr) \
                or not np.array_equal(indices, self._indices):
            raise ValueError("spk: update_values needs the matrix's pattern (same CSR indptr and indices)")
        self._check(_lib.spk_matrix_update_values(self._mat, data.ctypes.data))

    def close(self):
        """Release the solver, the matrix and the context (also done when garbage collected)."""
        if getattr(self, "_solver", None):
            _lib.spk_solver_destroy(self._solver)
            self._solver = None
        if getattr(self, "_mat", None):
            _lib.spk_matrix_destroy(self._mat)
            self._mat = None
        if getattr(self, "_ctx", None):
            _lib.spk_context_destroy(self._ctx)
            self._ctx = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def solve(A, b, method="auto", precond="auto", format="auto", rtol=1e-8, maxit=10000, device="auto", **kw):
    """Solve A x = b once: returns (x, SolveInfo); see Solver for the keywords."""
    with Solver(A, method=method, precond=precond, format=format, rtol=rtol, maxit=maxit, device=device,
                **kw) as s:
        return s.solve(b)
