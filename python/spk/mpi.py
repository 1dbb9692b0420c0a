"""spk.mpi: the solve across MPI ranks (include/spk_mpi.h, libspk_mpi) with mpi4py.

    from mpi4py import MPI
    import spk.mpi
    # this rank's rows row_begin .. row_begin + nrows - 1 of the n x n matrix, global columns
    with spk.mpi.DistMatrix(MPI.COMM_WORLD, n, row_begin, A_rows) as A:
        x, info = A.solve(b, rtol=1e-10)        # this rank's entries of b and x
        A.update_values(A_rows_new)             # same pattern, new values: rebuilt on the next solve
        y = A.matvec(x)                         # this rank's entries of A x

A submodule that `import spk` does not load, so spk alone needs neither mpi4py nor
MPI.  The library is found through SPK_MPI_LIBRARY (a path), then beside
SPK_LIBRARY's libspk, then in spk/lib, then by the system loader; it must be built
against the MPI that mpi4py uses.  Every method is collective over the
communicator and ends the same way on every rank: a failure on one rank (a bad
column, a b of the wrong length) raises SpkError (or ValueError, SpkOptionError)
on every rank, with the failing rank's message.
"""
import ctypes
import ctypes.util
import os
from collections import namedtuple

import numpy as np
from mpi4py import MPI

from . import SolveInfo, SpkError, SpkOptionError, _Result, _csr_of, _METHODS, _PRECONDS, _s, _text

__all__ = ["DistMatrix", "DistInfo"]

DistInfo = namedtuple("DistInfo", "n row_begin nrows halo")
DistInfo.__doc__ = "The global n, this rank's first row and row count, the halo entries it receives in a product."


def _load():
    candidates = []
    if os.environ.get("SPK_MPI_LIBRARY"):
        candidates.append(os.environ["SPK_MPI_LIBRARY"])
    if os.environ.get("SPK_LIBRARY"):  # a build folder holds both libraries
        candidates.append(os.path.join(os.path.dirname(os.environ["SPK_LIBRARY"]), "libspk_mpi.so"))
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib")
    candidates += [os.path.join(here, n) for n in ("libspk_mpi.so", "libspk_mpi.dylib")]
    found = ctypes.util.find_library("spk_mpi")
    if found:
        candidates.append(found)
    errors = []
    for path in candidates:
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            errors.append("%s: %s" % (path, e))
    raise ImportError("spk.mpi: cannot load libspk_mpi (spk built with MPI; set SPK_MPI_LIBRARY to its path); "
                      "tried: " + ("; ".join(errors) if errors else "nothing found"))


_lib = _load()
_P = ctypes.c_void_p
_I = ctypes.POINTER(ctypes.c_int)
for _name, _res, _args in [
        ("spk_mpi_matrix_create_f", ctypes.c_int, [ctypes.c_int] * 4 + [_P, _P, _P, ctypes.POINTER(_P)]),
        ("spk_mpi_matrix_update_values", ctypes.c_int, [_P, _P]),
        ("spk_mpi_matrix_destroy", None, [_P]),
        ("spk_mpi_matrix_info", ctypes.c_int, [_P, _I, _I, _I, _I]),
        ("spk_mpi_matrix_apply", ctypes.c_int, [_P, _P, _P]),
        ("spk_mpi_solve", ctypes.c_int, [_P, ctypes.c_int, ctypes.c_int, _P, _P, _P, ctypes.POINTER(_Result)]),
        ("spk_mpi_method", ctypes.c_char_p, [_P]),
        ("spk_mpi_precond", ctypes.c_char_p, [_P]),
        ("spk_mpi_last_error", ctypes.c_char_p, [_P]),
        # the options through this library's own table (its struct layout)
        ("spk_options_size", ctypes.c_size_t, []),
        ("spk_options_default", None, [_P]),
        ("spk_options_set", ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]),
        ("spk_options_check", ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_size_t]),
        ("spk_status_name", ctypes.c_char_p, [ctypes.c_int]),
        ("spk_reason_name", ctypes.c_char_p, [ctypes.c_int])]:
    _f = getattr(_lib, _name)
    _f.restype = _res
    _f.argtypes = _args


class _Refused(Exception):
    """A check that failed on this rank: _agree raises it on every rank."""

    def __init__(self, kind, status, msg):
        super().__init__(msg)
        self.kind, self.status, self.msg = kind, status, msg


def _options_of(kw):
    """An spk_options at the library's defaults with the keywords set (None: the default)."""
    o = (ctypes.c_double * ((_lib.spk_options_size() + 7) // 8))()
    _lib.spk_options_default(o)
    msg = ctypes.create_string_buffer(1024)
    for key, value in kw.items():
        if value is None:
            continue
        st = _lib.spk_options_set(o, key.encode(), _text(value).encode(), msg, len(msg))
        if st:
            raise _Refused("option", st, "spk: %s=%r: %s" % (key, value, _s(msg.value)))
    st = _lib.spk_options_check(o, msg, len(msg))
    if st:
        raise _Refused("option", st, "spk: %s" % _s(msg.value))
    return o


def _vector(v, n, what):
    """v as a float64 copy of length n (this rank's entries)."""
    a = np.array(v, dtype=np.float64, copy=True)
    if a.shape != (n,):
        raise _Refused("value", 1, "%s has shape %s, this rank holds %d rows" % (what, a.shape, n))
    return a


def _local_csr(local, n):
    """This rank's rows as (nrows, indptr, indices, data): a scipy.sparse matrix or
    dense array of shape (nrows, n), or the CSR arrays (indptr, indices, data)."""
    if isinstance(local, tuple):
        if len(local) != 3:
            raise _Refused("value", 1, "the rows: a scipy.sparse matrix or (indptr, indices, data)")
        indptr, indices, data = (np.ascontiguousarray(a, dtype=t) for a, t in
                                 zip(local, (np.int32, np.int32, np.float64)))
        nnz = int(indptr[-1]) if indptr.size else -1
        if indptr.ndim != 1 or indptr.size < 1 or nnz < 0 or indices.size < nnz or data.size < nnz:
            raise _Refused("value", 1, "indptr (%d entries) ends at %d, indices and data hold %d and %d"
                           % (indptr.size, nnz, indices.size, data.size))
        return indptr.size - 1, indptr, indices[:nnz].copy(), data[:nnz].copy()
    try:
        shape, indptr, indices, data = _csr_of(local)
    except SpkError as e:  # its message without the " (STATUS)" SpkError adds
        raise _Refused("spk", e.status, str(e)[:-len(" (%s)" % e.status_name)])
    if shape[1] != n:
        raise _Refused("value", 1, "the rows have %d columns, not n = %d (global columns)" % (shape[1], n))
    return shape[0], indptr, indices, data


class DistMatrix:
    """This rank's rows of an n x n matrix distributed over an mpi4py communicator.

    comm: an mpi4py communicator (or its Fortran handle, comm.py2f()); rows
    row_begin .. row_begin + nrows - 1 (0-based) come from `local`: a
    scipy.sparse matrix (or dense array) of shape (nrows, n), global columns, or
    the arrays (indptr, indices, data).  Columns in any order, duplicates summed;
    the ranks' blocks contiguous, in rank order, covering 0..n-1 (a rank may hold
    none).  The arrays are copied.  close() (or the with-block's end) is collective.
    """

    def __init__(self, comm, n, row_begin, local):
        self._A = None
        if not isinstance(comm, MPI.Comm):
            comm = MPI.Comm.f2py(int(comm))
        self._comm = comm.Dup()  # this object's own checks, apart from the caller's messages
        refused = None
        try:
            self.nrows, self._indptr, self._indices, data = _local_csr(local, n)
        except _Refused as e:
            refused, self.nrows = e, 0
        self._agree(refused)
        A = _P()
        st = _lib.spk_mpi_matrix_create_f(comm.py2f(), int(n), int(row_begin), self.nrows, self._indptr.ctypes.data,
                                          self._indices.ctypes.data, data.ctypes.data, ctypes.byref(A))
        if st:
            raise SpkError(st, _s(_lib.spk_mpi_last_error(None)))
        self._A = A
        i = self.info()
        self.n, self.row_begin = i.n, i.row_begin  # a rank without rows: placed by the library

    def _agree(self, refused):
        """Every rank raises the first failing rank's refusal (None: this rank's checks passed)."""
        mine = None if refused is None else (refused.kind, refused.status, refused.msg)
        for rank, r in enumerate(self._comm.allgather(mine)):
            if r is not None:
                kind, status, msg = r
                msg = "spk.mpi: rank %d: %s" % (rank, msg)
                if kind == "value":
                    raise ValueError(msg)
                raise (SpkOptionError if kind == "option" else SpkError)(status, msg)

    def _check(self, st):
        if st:
            raise SpkError(st, _s(_lib.spk_mpi_last_error(self._A)))

    def _open(self):
        if self._A is None:
            raise SpkError(1, "spk.mpi: the matrix was closed")  # SPK_ERR_INVALID_ARG

    def info(self):
        """DistInfo(n, row_begin, nrows, halo) of this rank (not collective)."""
        self._open()
        v = [ctypes.c_int() for _ in range(4)]
        self._check(_lib.spk_mpi_matrix_info(self._A, *[ctypes.byref(c) for c in v]))
        return DistInfo(*[c.value for c in v])

    def solve(self, b, x0=None, method="auto", precond="auto", **options):
        """Solve A x = b from x0 (default zero), b and x this rank's entries;
        returns (x, SolveInfo), the same info on every rank.  method: "auto" |
        "cg" | "bicgstab"; precond: "auto" | "factor" | "ic0" | "ilu0" (IC(0) /
        ILU(0) of each rank's diagonal block) | "jacobi" | "none"; options: keys of
        the library's table (rtol, atol, maxit, dtol are used).  Raises SpkError
        (with .info and .x) on every rank when the solve fails or does not converge."""
        self._open()
        refused = None
        try:
            # across ranks: CG and BiCGStab (GMRES is the one-process solver's), spk's preconditioners
            methods = {k: v for k, v in _METHODS.items() if k != "gmres"}
            preconds = {k: v for k, v in _PRECONDS.items() if k != "user"}
            for what, val, table in (("method", method, methods), ("precond", precond, preconds)):
                if val not in table:
                    raise _Refused("value", 1, "unknown %s '%s' (one of %s)" % (what, val, ", ".join(table)))
            opts = _options_of(options)
            b = _vector(b, self.nrows, "b")
            x = np.zeros(self.nrows) if x0 is None else _vector(x0, self.nrows, "x0")
        except _Refused as e:
            refused = e
        self._agree(refused)
        r = _Result()
        st = _lib.spk_mpi_solve(self._A, methods[method], preconds[precond], opts, b.ctypes.data, x.ctypes.data,
                                ctypes.byref(r))
        msg = _s(_lib.spk_mpi_last_error(self._A)) if st else ""
        # no history: r.history points into the solve's freed workspace (keep_history)
        info = SolveInfo(converged=st == 0, status=_s(_lib.spk_status_name(st)),
                         reason=_s(_lib.spk_reason_name(r.reason)), iterations=r.iterations, relres=r.relres,
                         true_relres=r.true_relres, rnorm0=r.rnorm0, restarts=r.restarts, shift=r.shift,
                         switched=bool(r.switched), t_setup=r.t_setup, t_solve=r.t_total, t_spmv=r.t_spmv,
                         t_precond=r.t_precond, t_vector=r.t_vector, t_sync=r.t_sync,
                         method=_s(_lib.spk_mpi_method(self._A)), precond=_s(_lib.spk_mpi_precond(self._A)),
                         format="csr", format_detail="", device="host", history=np.zeros(0))
        if st:
            raise SpkError(st, msg, info=info, x=x)
        return x, info

    def matvec(self, x):
        """This rank's entries of y = A x from its entries of x."""
        self._open()
        refused = None
        try:
            x = _vector(x, self.nrows, "x")
        except _Refused as e:
            refused = e
        self._agree(refused)
        y = np.zeros(self.nrows)
        self._check(_lib.spk_mpi_matrix_apply(self._A, x.ctypes.data, y.ctypes.data))
        return y

    def update_values(self, values):
        """New values on the same pattern: this rank's rows as a matrix with the
        CSR structure given at creation, or the data array in its order."""
        self._open()
        refused = None
        try:
            if isinstance(values, np.ndarray) and values.ndim == 1:
                data = _vector(values, self._indices.size, "values")
            else:
                _, indptr, indices, data = _local_csr(values, self.n)
                if not (np.array_equal(indptr, self._indptr) and np.array_equal(indices, self._indices)):
                    raise _Refused("value", 1, "update_values needs the pattern given to create "
                                   "(the same CSR indptr and indices)")
        except _Refused as e:
            refused = e
        self._agree(refused)
        self._check(_lib.spk_mpi_matrix_update_values(self._A, data.ctypes.data))

    def close(self):
        """Release the matrix (collective: every rank closes it)."""
        if getattr(self, "_A", None):
            _lib.spk_mpi_matrix_destroy(self._A)
            self._A = None
        if getattr(self, "_comm", None) is not None:
            if not MPI.Is_finalized():
                self._comm.Free()
            self._comm = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
