"""spk: preconditioned CG / BiCGStab on NVIDIA GPUs (and the host) from Python.

    import spk
    x, info = spk.solve(A, b)                 # A: any scipy.sparse matrix (or array), b: NumPy
    print(info.converged, info.iterations, info.device, info.format)

    s = spk.Solver(A, method="cg", precond="ic0", rtol=1e-10)
    x1, _ = s.solve(b1)
    X, infos = s.solve(B)                      # B of shape (n, k): reuses the factorization
    s.update_values(A_new)                     # same pattern, new values: refactored on next solve

    x, info = spk.cg(A, b, rtol=1e-8, M=ml.aspreconditioner())   # SciPy's calls, info 0 when converged
    x, info = spk.bicgstab(A, b, x0=x0, maxiter=500, callback=lambda xk: None)

    x_gpu, info = s.solve(b_gpu)               # b a CuPy array or PyTorch CUDA tensor (float64, (n,)):
                                               # x on the GPU too, nothing through the host

A thin ctypes layer over the C library (libspk.so): no compiled extension.
The library is the one `pip install ./python` built into this package
(spk/lib/libspk.so), else the one the environment variable SPK_LIBRARY names
(a build tree's, for development), else the system loader's (an installed
spk).  At import its struct sizes and ABI version are checked against the
mirrors below (ImportError on a mismatch).  Every failure raises SpkError
with the library's message.
"""
import ctypes
import ctypes.util
import os
from dataclasses import dataclass

import numpy as np

__all__ = ["solve", "Solver", "SpkError", "SpkOptionError", "SolveInfo", "options", "version", "have_cuda",
           "cg", "bicgstab", "gmres", "cocg"]

_DEVICES = {"auto": 0, "cpu": 1, "host": 1, "cuda": 2, "gpu": 2}
_METHODS = {"auto": 0, "cg": 1, "bicgstab": 2, "gmres": 3, "cocg": 4}
_PRECONDS = {"auto": 0, "none": 1, "jacobi": 2, "ilu0": 3, "ic0": 4, "factor": 5, "user": 6}
_PRECOND_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_double),
                               ctypes.POINTER(ctypes.c_double))
_ITERATE_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_double))
_MONITOR_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_double, ctypes.c_double)


class _OptionDesc(ctypes.Structure):
    """struct spk_option_desc: one key of the library's options table."""
    _fields_ = [("key", ctypes.c_char_p), ("alias", ctypes.c_char_p), ("field", ctypes.c_char_p),
                ("type", ctypes.c_char_p), ("owner", ctypes.c_char_p), ("meta", ctypes.c_char_p),
                ("help", ctypes.c_char_p), ("scope", ctypes.c_char_p), ("offset", ctypes.c_size_t),
                ("size", ctypes.c_size_t), ("range", ctypes.c_char * 512), ("default", ctypes.c_char * 64)]


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


# The ABI (include/spk.h, SPK_ABI_VERSION) this file mirrors: _Result is spk_result,
# _OptionDesc spk_option_desc, and the numbers of _DEVICES, _METHODS, _PRECONDS are the
# header's enums.  Bump it with them when the header's changes.  spk_options is held as opaque
# memory of the library's size (spk_options_size), so it needs no mirror.
_ABI_VERSION = 2


def _candidates():
    """The libraries to try, in order: the one installed in this package (spk/lib; every
    folder of the package's path, for `pip install -e`, whose library is in site-packages),
    the one SPK_LIBRARY names, the system's."""
    dirs = list(globals().get("__path__") or []) or [os.path.dirname(__file__)]
    out = [p for d in dirs for p in (os.path.join(os.path.abspath(d), "lib", n) for n in ("libspk.so", "libspk.dylib"))
           if os.path.exists(p)]
    if os.environ.get("SPK_LIBRARY"):
        out.append(os.environ["SPK_LIBRARY"])
    found = ctypes.util.find_library("spk")
    if found:
        out.append(found)
    return out


def _check_abi(lib, path):
    """ImportError unless the library's struct sizes and ABI version are the ones mirrored here."""
    try:
        info = lib.spk_abi_info
    except AttributeError:
        raise ImportError("spk: %s has no spk_abi_info: a library older than this package (ABI %d); "
                          "rebuild it from the same checkout" % (path, _ABI_VERSION)) from None
    info.restype = ctypes.c_int
    info.argtypes = [ctypes.POINTER(ctypes.c_size_t)] * 3 + [ctypes.POINTER(ctypes.c_int)]
    so, sr, sd, abi = ctypes.c_size_t(), ctypes.c_size_t(), ctypes.c_size_t(), ctypes.c_int()
    info(ctypes.byref(so), ctypes.byref(sr), ctypes.byref(sd), ctypes.byref(abi))
    bad = []
    if abi.value != _ABI_VERSION:
        bad.append("ABI version %d, this package was written for %d" % (abi.value, _ABI_VERSION))
    for what, lib_size, mirror in (("spk_result", sr.value, _Result), ("spk_option_desc", sd.value, _OptionDesc)):
        if lib_size != ctypes.sizeof(mirror):
            bad.append("sizeof(%s) %d, this package's mirror %d" % (what, lib_size, ctypes.sizeof(mirror)))
    if bad:
        raise ImportError("spk: %s does not match this package (%s): install the package and the library "
                          "from the same checkout" % (path, "; ".join(bad)))


def _load():
    errors = []
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            errors.append("%s: %s" % (path, e))
            continue
        _check_abi(lib, path)  # a library that loads but does not match is an error, not skipped
        return lib, path
    raise ImportError("spk: cannot load the spk C library (pip install ./python builds it into the package; "
                      "or set SPK_LIBRARY to the path of a libspk.so); tried: "
                      + ("; ".join(errors) if errors else "nothing found"))


_lib, library_path = _load()
_P = ctypes.c_void_p
for name, res, args in [
        ("spk_version", ctypes.c_char_p, []),
        ("spk_have_cuda", ctypes.c_int, []),
        ("spk_status_name", ctypes.c_char_p, [ctypes.c_int]),
        ("spk_reason_name", ctypes.c_char_p, [ctypes.c_int]),
        ("spk_context_create", ctypes.c_int, [ctypes.POINTER(_P), ctypes.c_int]),
        ("spk_context_destroy", None, [_P]),
        ("spk_context_device", ctypes.c_char_p, [_P]),
        ("spk_context_set_threads", ctypes.c_int, [_P, ctypes.c_int]),
        ("spk_context_threads", ctypes.c_int, [_P]),
        ("spk_last_error", ctypes.c_char_p, [_P]),
        ("spk_matrix_from_csr", ctypes.c_int, [_P, ctypes.c_int, ctypes.c_int, _P, _P, _P, ctypes.POINTER(_P)]),
        ("spk_matrix_update_values", ctypes.c_int, [_P, _P]),
        ("spk_matrix_from_csr_complex", ctypes.c_int, [_P, ctypes.c_int, ctypes.c_int, _P, _P, _P, ctypes.POINTER(_P)]),
        ("spk_matrix_update_values_complex", ctypes.c_int, [_P, _P]),
        ("spk_solve_complex", ctypes.c_int, [_P, _P, _P, ctypes.POINTER(_Result)]),
        ("spk_matrix_destroy", None, [_P]),
        ("spk_options_size", ctypes.c_size_t, []),
        ("spk_options_default", None, [_P]),
        ("spk_options_set", ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]),
        ("spk_options_check", ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_size_t]),
        ("spk_options_get", ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]),
        ("spk_options_set_precond", None, [_P, _PRECOND_FN, _P]),
        ("spk_options_set_iterate", None, [_P, _ITERATE_FN, _P]),
        ("spk_options_set_monitor", None, [_P, _MONITOR_FN, _P]),
        ("spk_option_count", ctypes.c_int, []),
        ("spk_option_info", ctypes.c_int, [ctypes.c_int, ctypes.POINTER(_OptionDesc)]),
        ("spk_solver_create", ctypes.c_int, [_P, _P, ctypes.c_int, ctypes.c_int, _P, ctypes.POINTER(_P)]),
        ("spk_solve", ctypes.c_int, [_P, _P, _P, ctypes.POINTER(_Result)]),
        ("spk_solve_device", ctypes.c_int, [_P, _P, _P, ctypes.POINTER(_Result)]),
        ("spk_solver_method", ctypes.c_char_p, [_P]),
        ("spk_solver_precond", ctypes.c_char_p, [_P]),
        ("spk_solver_precond_sweeps", ctypes.c_int, [_P]),
        ("spk_solver_choice", ctypes.c_char_p, [_P]),
        ("spk_solver_factorization", ctypes.c_char_p, [_P]),
        ("spk_solver_format", ctypes.c_char_p, [_P]),
        ("spk_solver_format_detail", ctypes.c_char_p, [_P]),
        ("spk_solver_pivoted", ctypes.c_int, [_P]),
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


class SpkOptionError(SpkError, ValueError):
    """An option the library refused: an unknown keyword (the message names
    the close ones) or a value out of its range (the message gives it)."""


def options():
    """The library's options table: for each key a dict with its type, the
    component that reads it ("solver", "precond", "spmv"), its help, the
    values it takes and its default.  Every key is a keyword of Solver and
    solve, with '_' for '-' (rtol, vector_ops, ...)."""
    out = {}
    d = _OptionDesc()
    for i in range(_lib.spk_option_count()):
        if _lib.spk_option_info(i, ctypes.byref(d)) == 0:
            out[_s(d.key)] = {"type": _s(d.type), "owner": _s(d.owner), "help": _s(d.help),
                              "range": _s(d.range), "default": _s(d.default)}
    return out


def _text(value):
    """An option's value as the text spk_options_set reads."""
    if isinstance(value, (bool, np.bool_)):
        return "on" if value else "off"
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    return str(value)


def _options_of(kw):
    """An spk_options (opaque memory of the library's size) at its defaults,
    with every keyword set through spk_options_set and checked together;
    None values are left at their defaults."""
    size = _lib.spk_options_size()
    o = (ctypes.c_double * ((size + 7) // 8))()  # aligned like the struct's doubles and pointers
    _lib.spk_options_default(o)
    msg = ctypes.create_string_buffer(1024)
    for key, value in kw.items():
        if value is None:
            continue
        st = _lib.spk_options_set(o, key.encode(), _text(value).encode(), msg, len(msg))
        if st:
            raise SpkOptionError(st, "spk: %s=%r: %s" % (key, value, _s(msg.value)))
    st = _lib.spk_options_check(o, msg, len(msg))  # the combinations of keys
    if st:
        raise SpkOptionError(st, "spk: %s" % _s(msg.value))
    return o


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
    switched: int  # 0; 1: auto's CG found A indefinite, BiCGStab solved; 2: auto's BiCGStab broke down, GMRES finished
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
    choice: str = ""  # probe=True: the preconditioner the first solve chose by measuring, and why
    factorization: str = ""  # how the IC(0)/ILU(0) factor was computed: "exact", "by K sweeps, ..."
    pivoted: int = -1  # rows static pivoting moved (pivot=...); -1: it did not run


def _host_matrix_of(A):
    """A matrix in GPU memory (cupyx.scipy.sparse, a CuPy array, a PyTorch tensor, sparse or
    dense) as scipy.sparse or NumPy: its entries are copied to the host once, at setup, where
    spk builds its formats and factors; anything else is returned as it is."""
    mod = type(A).__module__ or ""
    if mod.split(".")[0] in ("cupy", "cupyx") and hasattr(A, "get"):
        return A.get()
    if mod.split(".")[0] == "torch" and hasattr(A, "layout"):
        import torch
        if A.layout == torch.strided:
            return A.detach().cpu().numpy()
        import scipy.sparse as sp
        C = A.detach().to_sparse_csr().cpu()
        return sp.csr_matrix((C.values().numpy(), C.col_indices().numpy(), C.crow_indices().numpy()),
                             shape=tuple(C.shape))
    return A


def _csr_of(A):
    """A as a CSR with int32 indices and float64 values, or complex128 values for a complex
    matrix (scipy.sparse in any format, a dense array, a GPU matrix of CuPy or PyTorch, or a
    LinearOperator that wraps one: aslinearoperator(matrix))."""
    import scipy.sparse as sp
    import scipy.sparse.linalg as spla
    if isinstance(A, spla.LinearOperator):
        inner = getattr(A, "A", None)  # aslinearoperator(matrix) keeps the matrix as .A
        if inner is None or not (sp.issparse(inner) or isinstance(inner, np.ndarray)):
            raise TypeError("spk needs the matrix's entries (a scipy.sparse matrix or a dense array), not a "
                            "LinearOperator of %s: its formats and factorizations are built from the entries; "
                            "pass the assembled matrix (a LinearOperator is accepted as the preconditioner M)"
                            % type(A).__name__)
        A = inner
    A = _host_matrix_of(A)
    if not sp.issparse(A):
        A = np.asarray(A)
        if A.ndim != 2:
            raise ValueError("spk: the matrix must be 2-D, got an array of shape %s" % (A.shape,))
        A = sp.csr_matrix(A.astype(np.complex128 if np.iscomplexobj(A) else np.float64, copy=False))
    dtype = np.complex128 if np.iscomplexobj(A.data) else np.float64
    C = sp.csr_matrix(A, dtype=dtype, copy=False)
    if max(C.shape + (C.nnz,)) > np.iinfo(np.int32).max:
        raise SpkError(4, "the matrix is too large for 32-bit indices")  # SPK_ERR_UNSUPPORTED
    indptr = np.ascontiguousarray(C.indptr, dtype=np.int32)
    indices = np.ascontiguousarray(C.indices, dtype=np.int32)
    data = np.ascontiguousarray(C.data, dtype=dtype)
    return C.shape, indptr, indices, data


def _operator_of(M, n):
    """The preconditioner M (an approximation of A^-1, as in SciPy) as a function r -> M r:
    a LinearOperator, a sparse matrix, a dense array or a callable."""
    import scipy.sparse.linalg as spla
    if callable(M) and not hasattr(M, "shape"):
        return M
    try:
        op = spla.aslinearoperator(M)
    except TypeError:
        raise TypeError("spk: the preconditioner must be a name (%s), a LinearOperator, a matrix or a "
                        "callable, not %s" % (", ".join(k for k in _PRECONDS if k != "user"),
                                              type(M).__name__)) from None
    if op.shape != (n, n):
        raise ValueError("spk: the preconditioner has shape %s, the matrix %s" % (op.shape, (n, n)))
    return op.matvec


class Solver:
    """A factorized solver for one matrix; solve() reuses its setup for every
    right-hand side, update_values() keeps the pattern and refactors.

    A complex matrix (complex128 values) gives a complex solver: b and x are
    complex128; method "auto" is CG for a Hermitian A with a positive real
    diagonal, "cocg" (conjugate orthogonal CG) for a complex symmetric A = A^T,
    else "bicgstab"; precond "auto" is none (on the GPU Jacobi where the diagonal
    varies), "factor" IC(0) (L D L^H or L D L^T) with CG and COCG, ILU(0) with
    BiCGStab; a Python preconditioner and callback(xk) are for real systems (monitor
    works for both).

    method: "auto" | "cg" | "bicgstab" | "gmres" | "cocg"; precond: "auto" | "factor" | "ic0" |
    "ilu0" | "jacobi" | "none" ("factor": IC(0) with CG, ILU(0) with BiCGStab;
    "auto": the same, but on the GPU none for a matrix shaped like a
    Laplacian, where they do not pay for their apply), or the caller's
    preconditioner M ~ A^-1 as in SciPy: a LinearOperator (pyamg's
    aspreconditioner(), ...), a matrix or a callable r -> M r (on the GPU r
    and M r pass through host memory at every apply; CG needs M symmetric
    positive definite); device: "auto" | "cpu" | "cuda"; callback: called
    as callback(xk) after every iteration with the iterate (a copy; it turns
    the default's probe off, like the residual history); monitor: called as
    monitor(k, rnorm, relres) for k = 0, 1, ... (also turns the probe off);
    threads: the host threads of the setup and the solves (0: OMP_NUM_THREADS,
    else every core; x has the same bits for any count).
    Every other keyword is a key of the library's options
    table, with '_' for '-', checked by the library (SpkOptionError names the
    key and the values it takes); spk.options() lists them, and below:
    """

    def __init__(self, A, method="auto", precond="auto", device="auto", callback=None, monitor=None, threads=0,
                 **options):
        user = precond if not isinstance(precond, str) else None
        for what, val, table in (("method", method, _METHODS), ("precond", "user" if user is not None else precond,
                                                                 _PRECONDS), ("device", device, _DEVICES)):
            if val not in table or (what == "precond" and val == "user" and user is None):
                names = [k for k in table if k != "user"]
                raise ValueError("spk: unknown %s '%s' (one of %s)" % (what, val, ", ".join(names)))
        self._ctx = self._mat = self._solver = None
        self._raised = None  # an exception of a Python callback, raised once the solve returns
        self._opts = _options_of(options)  # the format's name, if any, is the library's own string
        shape, self._indptr, self._indices, data = _csr_of(A)
        self.shape = shape
        self.complex = data.dtype == np.complex128
        if self.complex and (user is not None or callback is not None):
            raise ValueError("spk: a complex system takes no Python preconditioner or callback(xk) (monitor "
                             "works); its preconditioners are %s" % ", ".join(("auto", "factor", "ic0", "ilu0",
                                                                              "jacobi", "none")))
        self._callbacks(user, callback, monitor, shape[0])
        ctx = _P()
        st = _lib.spk_context_create(ctypes.byref(ctx), _DEVICES[device])
        if st:
            msg = _s(_lib.spk_last_error(ctx)) if ctx else ""
            if ctx:
                _lib.spk_context_destroy(ctx)
            raise SpkError(st, msg or "cannot create a context for device '%s'" % device)
        self._ctx = ctx
        if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 0:
            raise ValueError("spk: threads must be an integer >= 0 (0: the default), got %r" % (threads,))
        self._check(_lib.spk_context_set_threads(ctx, int(threads)))
        mat = _P()
        make = _lib.spk_matrix_from_csr_complex if self.complex else _lib.spk_matrix_from_csr
        self._check(make(ctx, shape[0], shape[1], self._indptr.ctypes.data, self._indices.ctypes.data,
                         data.ctypes.data, ctypes.byref(mat)))
        self._mat = mat
        solver = _P()
        self._check(_lib.spk_solver_create(ctx, mat, _METHODS[method], _PRECONDS["user" if user is not None else precond],
                                           self._opts, ctypes.byref(solver)))
        self._solver = solver

    def _callbacks(self, M, callback, monitor, n):
        """The C callbacks of the caller's preconditioner, callback(xk) and monitor, kept alive
        with the solver; an exception inside one is kept and raised when the solve returns."""
        self._pfn = self._ifn = self._mfn = None
        if monitor is not None:
            def watch(_, k, rnorm, relres):
                if self._raised is not None:
                    return
                try:
                    monitor(k, rnorm, relres)
                except BaseException as e:  # noqa: B902 -- re-raised after the solve
                    self._raised = e
            self._mfn = _MONITOR_FN(watch)
            _lib.spk_options_set_monitor(self._opts, self._mfn, None)
        if M is not None:
            apply_m = _operator_of(M, n)

            def precond(_, size, r, z):
                if self._raised is not None:
                    return 1
                try:
                    out = np.asarray(apply_m(np.ctypeslib.as_array(r, shape=(size,)).copy()), dtype=np.float64)
                    if out.size != size:
                        raise ValueError("spk: the preconditioner returned %d values for %d" % (out.size, size))
                    np.ctypeslib.as_array(z, shape=(size,))[:] = out.reshape(-1)
                    return 0
                except BaseException as e:  # noqa: B902 -- re-raised after the solve
                    self._raised = e
                    return 1
            self._pfn = _PRECOND_FN(precond)
            _lib.spk_options_set_precond(self._opts, self._pfn, None)
        if callback is not None:
            def iterate(_, k, x):
                if self._raised is not None:
                    return
                try:
                    callback(np.ctypeslib.as_array(x, shape=(n,)).copy())
                except BaseException as e:  # noqa: B902 -- re-raised after the solve
                    self._raised = e
            self._ifn = _ITERATE_FN(iterate)
            _lib.spk_options_set_iterate(self._opts, self._ifn, None)

    def _check(self, st):
        if st:
            raise SpkError(st, _s(_lib.spk_last_error(self._ctx)))

    @property
    def device(self):
        """The device the solves run on, e.g. "cuda (NVIDIA H100 80GB HBM3)" or "host"."""
        return _s(_lib.spk_context_device(self._ctx))

    @property
    def threads(self):
        """The host threads this solver's work runs on (1 in a build without OpenMP)."""
        return _lib.spk_context_threads(self._ctx)

    def solve(self, b, x0=None):
        """Solve A x = b from x0 (default zero); returns (x, SolveInfo).  b of shape (n, k):
        each column in turn on the same setup, returning (X of shape (n, k), [SolveInfo]).
        b (and x0) may be arrays in GPU memory (__cuda_array_interface__: CuPy, PyTorch; float64,
        shape (n,)) for a solver on the GPU: x is then a new array of the same kind on the GPU,
        and nothing goes through the host (spk_solve_device).
        Raises SpkError (with .info and .x) when the solve fails or does not converge."""
        if self._solver is None:
            raise SpkError(1, "the solver was closed")  # SPK_ERR_INVALID_ARG
        n = self.shape[0]
        if _cuda_interface(b) is not None:
            return self._solve_device(b, x0)
        b = np.asarray(b)
        dtype = np.complex128 if self.complex else np.float64
        if np.iscomplexobj(b) and not self.complex:
            raise SpkError(4, "a complex right-hand side for a real matrix: give the matrix as complex "
                              "(A.astype(complex)), or solve the real and imaginary parts apart")
        if b.ndim == 2 and b.shape[0] == n:
            X0 = None if x0 is None else np.asarray(x0, dtype=dtype)
            if X0 is not None and X0.shape != b.shape:
                raise ValueError("spk: x0 has shape %s, expected %s" % (X0.shape, b.shape))
            X, infos = np.zeros(b.shape, dtype=dtype), []
            for j in range(b.shape[1]):
                try:
                    X[:, j], info = self.solve(b[:, j], None if X0 is None else X0[:, j])
                except SpkError as e:
                    if e.x is not None:
                        X[:, j] = e.x
                        e.x = X
                    raise
                infos.append(info)
            return X, infos
        b = np.ascontiguousarray(b, dtype=dtype)
        if b.ndim != 1 or b.shape[0] != n:
            raise ValueError("spk: b has shape %s but the matrix has %d rows" % (b.shape, n))
        if x0 is not None and np.iscomplexobj(x0) and not self.complex:
            raise SpkError(4, "a complex x0 for a real matrix")  # SPK_ERR_UNSUPPORTED
        x = np.zeros(n, dtype=dtype) if x0 is None else np.array(x0, dtype=dtype, copy=True).reshape(-1)
        if x.shape != (n,):
            raise ValueError("spk: x0 has shape %s, expected (%d,)" % (np.shape(x0), n))
        run = _lib.spk_solve_complex if self.complex else _lib.spk_solve
        return self._run(run, b.ctypes.data, x.ctypes.data, x)

    def _solve_device(self, b, x0):
        """b (and x0) in GPU memory (__cuda_array_interface__: CuPy, PyTorch, ...): x comes back
        in a new array of b's kind, on the device; nothing goes through the host."""
        n = self.shape[0]
        if self.complex:
            raise SpkError(4, "GPU arrays: real systems only (solve a complex one with NumPy arrays)")
        _device_vector(b, n, "b")
        if x0 is not None:
            _device_vector(x0, n, "x0")
        x = _device_copy(b if x0 is None else x0, zero=x0 is None)
        return self._run(_lib.spk_solve_device, _cuda_interface(b)["data"][0], _cuda_interface(x)["data"][0], x)

    def _run(self, run, b_ptr, x_ptr, x):
        """One solve through run (spk_solve, _complex or _device) into x: (x, SolveInfo)."""
        r = _Result()
        self._raised = None
        st = run(self._solver, b_ptr, x_ptr, ctypes.byref(r))
        if self._raised is not None:  # a Python callback failed: its exception, not the library's
            raised, self._raised = self._raised, None
            raise raised
        msg = _s(_lib.spk_last_error(self._ctx)) if st else ""
        hist = np.array(r.history[:r.history_len]) if r.history_len > 0 else np.zeros(0)
        info = SolveInfo(converged=st == 0, status=_s(_lib.spk_status_name(st)),
                         reason=_s(_lib.spk_reason_name(r.reason)), iterations=r.iterations,
                         relres=r.relres, true_relres=r.true_relres, rnorm0=r.rnorm0, restarts=r.restarts,
                         shift=r.shift, switched=int(r.switched), t_setup=r.t_setup, t_solve=r.t_total,
                         t_spmv=r.t_spmv, t_precond=r.t_precond, t_vector=r.t_vector, t_sync=r.t_sync,
                         method=_s(_lib.spk_solver_method(self._solver)),
                         precond=_s(_lib.spk_solver_precond(self._solver)),
                         format=_s(_lib.spk_solver_format(self._solver)),
                         format_detail=_s(_lib.spk_solver_format_detail(self._solver)), device=self.device,
                         history=hist, graph_iterations=r.graph_iterations, block_iterations=r.block_iterations,
                         block_cluster=r.block_cluster, precond_sweeps=_lib.spk_solver_precond_sweeps(self._solver),
                         race=r.race, choice=_s(_lib.spk_solver_choice(self._solver)),
                         factorization=_s(_lib.spk_solver_factorization(self._solver)),
                         pivoted=_lib.spk_solver_pivoted(self._solver))
        if st:
            raise SpkError(st, msg, info=info, x=x)
        return x, info

    def update_values(self, A):
        """New values for the same pattern (the CSR structure given at creation)."""
        shape, indptr, indices, data = _csr_of(A)
        if shape != self.shape or not np.array_equal(indptr, self._indptr) \
                or not np.array_equal(indices, self._indices):
            raise ValueError("spk: update_values needs the matrix's pattern (same CSR indptr and indices)")
        if (data.dtype == np.complex128) != self.complex:
            raise ValueError("spk: update_values needs %s values, as at creation" % ("complex" if self.complex
                                                                                    else "real"))
        update = _lib.spk_matrix_update_values_complex if self.complex else _lib.spk_matrix_update_values
        self._check(update(self._mat, data.ctypes.data))

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


def _cuda_interface(a):
    """a's CUDA array interface (a CuPy array, a PyTorch CUDA tensor, ...), else None."""
    try:
        return getattr(a, "__cuda_array_interface__", None)
    except Exception:  # a tensor on the host raises when asked
        return None


def _device_vector(a, n, what):
    """Check a GPU array as spk_solve_device takes it: float64, shape (n,), contiguous."""
    cai = _cuda_interface(a)
    if cai is None:
        raise TypeError("spk: %s must be a GPU array like b (__cuda_array_interface__), got %s" % (what, type(a)))
    if cai.get("typestr") != "<f8":
        raise ValueError("spk: %s on the GPU must be float64 (typestr <f8), got %s" % (what, cai.get("typestr")))
    if tuple(cai.get("shape", ())) != (n,):
        raise ValueError("spk: %s on the GPU has shape %s, expected (%d,) (one right-hand side a call)"
                         % (what, tuple(cai.get("shape", ())), n))
    if cai.get("strides") not in (None, (8,)):
        raise ValueError("spk: %s on the GPU must be contiguous, strides %s" % (what, cai.get("strides")))


def _device_copy(a, zero):
    """A new GPU array like a (CuPy's copy, PyTorch's clone), zeroed when asked."""
    x = a.copy() if hasattr(a, "copy") else a.clone()
    if zero:
        x.fill(0) if hasattr(x, "fill") else x.zero_()
    return x


def solve(A, b, method="auto", precond="auto", device="auto", **options):
    """Solve A x = b once: returns (x, SolveInfo); see Solver for the keywords."""
    with Solver(A, method=method, precond=precond, device=device, **options) as s:
        return s.solve(b)


_BREAKDOWNS = ("SPK_ERR_BREAKDOWN", "SPK_ERR_INDEFINITE")


def _scipy_call(method, A, b, x0, rtol, atol, maxiter, M, callback, device, options, monitor=None):
    """scipy.sparse.linalg's convention: (x, info), info 0 converged, > 0 the iterations
    done without converging, < 0 a breakdown; bad input raises."""
    gpu = _cuda_interface(b) is not None  # a GPU array stays there (spk_solve_device)
    b = b if gpu else np.asarray(b)
    n = np.shape(A)[0] if hasattr(A, "shape") else len(b)
    if not gpu and b.ndim == 2 and b.shape[1] == 1:  # SciPy takes a column too and returns a 1-D x
        b = b[:, 0]
    if len(b.shape) != 1:
        raise ValueError("spk.%s: b must have shape (%d,) or (%d, 1), got %s (spk.Solver solves several "
                         "columns)" % (method, n, n, b.shape))
    if maxiter is None:
        maxiter = 10 * max(n, 1)  # SciPy's default
    with Solver(A, method=method, precond="auto" if M is None else M, device=device, callback=callback,
                monitor=monitor, rtol=rtol, atol=atol, maxit=int(maxiter), **options) as s:
        try:
            x, _ = s.solve(b, x0)
            return x, 0
        except SpkError as e:
            if e.info is None or e.x is None:
                raise
            if e.status_name == "SPK_ERR_NOT_CONVERGED":
                return e.x, max(e.info.iterations, 1)
            if e.status_name in _BREAKDOWNS:
                return e.x, -1
            raise


def cg(A, b, x0=None, *, rtol=1e-5, atol=0.0, maxiter=None, M=None, callback=None, device="auto", **options):
    """Conjugate gradients for a symmetric positive definite A, called as
    scipy.sparse.linalg.cg: returns (x, info), info 0 when ||b - A x|| <=
    max(rtol ||b||, atol), the iterations done (> 0) when maxiter (default
    10 n) was reached first, -1 on a breakdown (A or M not positive
    definite).  M: None gives spk's own choice (IC(0), or none or Jacobi
    where they are faster, measured on the first solve); "none", "jacobi",
    "ic0", ... name one; a LinearOperator, matrix or callable is applied as
    M r (an approximation of A^-1).  callback(xk) after every iteration.
    A: scipy.sparse in any format, a dense array, or aslinearoperator(matrix).
    Any other keyword is an spk option (spk.options(); e.g. format="sell").
    For several right-hand sides or new values on the same pattern, keep an
    spk.Solver."""
    return _scipy_call("cg", A, b, x0, rtol, atol, maxiter, M, callback, device, options)


def bicgstab(A, b, x0=None, *, rtol=1e-5, atol=0.0, maxiter=None, M=None, callback=None, device="auto",
             **options):
    """BiCGStab for a general square A, called as scipy.sparse.linalg.bicgstab:
    returns (x, info) as spk.cg does (-1: a breakdown that the restarts did
    not cure).  M: None gives spk's own choice (ILU(0), or none or Jacobi
    where they are faster); the caller's M is applied on the right."""
    return _scipy_call("bicgstab", A, b, x0, rtol, atol, maxiter, M, callback, device, options)


def cocg(A, b, x0=None, *, rtol=1e-5, atol=0.0, maxiter=None, M=None, device="auto", **options):
    """Conjugate orthogonal CG for a complex symmetric A = A^T (Helmholtz, eddy currents),
    called as spk.cg: returns (x, info), x complex128.  M: None gives spk's choice (none, or
    Jacobi on the GPU where the diagonal varies); "ic0" (L D L^T), "jacobi", ... name one."""
    return _scipy_call("cocg", A, b, x0, rtol, atol, maxiter, M, None, device, options)


def gmres(A, b, x0=None, *, rtol=1e-5, atol=0.0, restart=None, maxiter=None, M=None, callback=None,
          callback_type=None, device="auto", **options):
    """Restarted GMRES for a general square A, called as scipy.sparse.linalg.gmres: returns
    (x, info) as spk.cg does.  restart: the basis size m (default 20, SciPy's); maxiter: the
    restart cycles (default 10 n, at most 10000, as SciPy's), so at most maxiter * restart
    iterations.  M as in spk.cg, applied on the right (spk's residual is the unpreconditioned
    one).  callback_type "pr_norm" (the default) or "legacy": callback(||r|| / ||b||) after
    every inner iteration; "x": callback(xk) after every inner iteration (x_k is formed for
    it, one more preconditioner apply per iteration)."""
    n = np.shape(A)[0] if hasattr(A, "shape") else len(b)
    m = 20 if restart is None else int(restart)
    cycles = min(10 * max(n, 1), 10000) if maxiter is None else int(maxiter)
    monitor = None
    if callback is not None and callback_type in (None, "pr_norm", "legacy"):
        on_norm = callback

        def monitor(k, rnorm, relres):
            if k > 0:
                on_norm(relres)
        callback = None
    elif callback is not None and callback_type != "x":
        raise ValueError("spk.gmres: callback_type must be 'x', 'pr_norm' or 'legacy', not %r" % (callback_type,))
    return _scipy_call("gmres", A, b, x0, rtol, atol, cycles * m, M, callback, device,
                       dict(options, gmres_restart=m), monitor=monitor)


def _document():
    """Solver's docstring ends with the options' table, as the library describes it."""
    lines = []
    for key, d in options().items():
        lines.append("    %s: %s (%s; default %s)" % (key.replace("-", "_"), d["help"], d["range"], d["default"]))
    Solver.__doc__ = Solver.__doc__.rstrip() + "\n" + "\n".join(lines) + "\n"


_document()
