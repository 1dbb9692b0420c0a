/* spk_mpi.h -- solving A x = b across MPI ranks through the C API: each rank
 * passes its own rows of A (the way a finite-element code assembles them)
 * and its entries of b, and gets its entries of x.  The library libspk_mpi
 * (installed where spk was built with MPI: CMake `find_package(spk
 * COMPONENTS mpi)`, target spk::spk_mpi; pkg-config `spk-mpi`) holds all of
 * spk plus this; programs that do not use MPI include spk.h alone.
 *
 *     spk_mpi_matrix *A;
 *     spk_mpi_matrix_create(MPI_COMM_WORLD, n, row_begin, nrows, rowptr, colind, val, &A);
 *     spk_result res;
 *     spk_mpi_solve(A, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, NULL, b, x, &res);
 *     spk_mpi_matrix_destroy(A);
 *
 * Every call except spk_mpi_last_error and the queries is collective over
 * the matrix's communicator and returns the same status on every rank (a
 * failure on one rank, a bad row or a zero pivot in its block, is every
 * rank's, with that rank's message), so no rank is left waiting.  The solve
 * runs on the host ranks (the GPUs across ranks are not built yet). */
#ifndef SPK_MPI_H
#define SPK_MPI_H

#include <mpi.h>

#include "spk.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spk_mpi_matrix spk_mpi_matrix;

/* This rank's rows of a global n x n matrix: rows row_begin ..
 * row_begin + nrows - 1, CSR (rowptr[0] = 0) with global 0-based column
 * indices, in any order within a row (duplicates are summed).  The ranks'
 * row blocks must be contiguous and in rank order, covering 0..n-1; a rank
 * may hold no rows.  The arrays are copied. */
SPK_API int spk_mpi_matrix_create(MPI_Comm comm, int n, int row_begin, int nrows, const int *rowptr,
                                  const int *colind, const double *val, spk_mpi_matrix **A);
/* The same from a Fortran communicator handle (Fortran's `integer` comm,
 * mpi4py's comm.py2f()): for bindings that cannot pass an MPI_Comm. */
SPK_API int spk_mpi_matrix_create_f(int fcomm, int n, int row_begin, int nrows, const int *rowptr,
                                    const int *colind, const double *val, spk_mpi_matrix **A);
/* New values in the order of the arrays given to create (same pattern):
 * the next solve rebuilds its preconditioner. */
SPK_API int spk_mpi_matrix_update_values(spk_mpi_matrix *A, const double *val);
SPK_API void spk_mpi_matrix_destroy(spk_mpi_matrix *A);
/* Sizes (any output may be NULL): the global n, this rank's first row and
 * row count, and the halo entries this rank receives in each product. */
SPK_API int spk_mpi_matrix_info(const spk_mpi_matrix *A, int *n, int *row_begin, int *nrows, int *halo);

/* y = A x: this rank's entries of y from its entries of x (the halo
 * exchanged), e.g. for a residual. */
SPK_API int spk_mpi_matrix_apply(spk_mpi_matrix *A, const double *x, double *y);

/* Solve from x (this rank's nrows entries; b likewise).  kind: AUTO is CG
 * where A is symmetric with a positive diagonal (tested across the ranks),
 * else BiCGStab; where AUTO's CG finds A indefinite, BiCGStab + ILU(0)
 * from x = 0 (res->switched).  precond: NONE, JACOBI, or block-Jacobi:
 * AUTO, FACTOR, IC0 and ILU0 build IC(0) (with CG) / ILU(0) (with
 * BiCGStab) of each rank's diagonal block.  o: rtol, atol, maxit, dtol,
 * keep_history and monitor are used (NULL: the defaults; the monitor is
 * called on rank 0 only; res->history stays valid until the next solve on
 * A or its destroy).  res (may be NULL) is the same on every rank,
 * filled on every return.  Returns SPK_OK when converged, else
 * SPK_ERR_NOT_CONVERGED, SPK_ERR_BREAKDOWN, SPK_ERR_INDEFINITE, ... */
SPK_API int spk_mpi_solve(spk_mpi_matrix *A, spk_solver_kind kind, spk_precond_kind precond, const spk_options *o,
                          const double *b, double *x, spk_result *res);
/* The last solve's method ("cg", "bicgstab") and preconditioner ("none",
 * "jacobi", "ic0", "ilu0": the last two each rank's block); "" before one. */
SPK_API const char *spk_mpi_method(const spk_mpi_matrix *A);
SPK_API const char *spk_mpi_precond(const spk_mpi_matrix *A);
/* The message of this rank's last failed call on A (or of a create that
 * failed: spk_mpi_last_error(NULL)). */
SPK_API const char *spk_mpi_last_error(const spk_mpi_matrix *A);

#ifdef __cplusplus
}
#endif

#endif
