/* rhs.h -- the default right-hand side of `spk solve` and of the tests and
 * benchmarks: b = A*1, so the exact solution x* = 1 is known.  When A*1 = 0
 * (every row sums to zero, e.g. a graph Laplacian), x* is instead a fixed
 * pseudo-random vector in [0, 1) and b = A*x*. */
#ifndef SPK_IO_RHS_H
#define SPK_IO_RHS_H

#include "core/csr.h"

/* Fill xstar (ncols) and b (nrows); returns 1 when the random fallback was used. */
int spk_rhs_known_solution(const spk_csr *A, double *xstar, double *b);
/* The same through the public matrix arrays (for code that holds an spk_matrix). */
int spk_rhs_known_solution_arrays(int nrows, int ncols, const int *rowptr, const int *colind,
                                  const double *val, double *xstar, double *b);

#endif
