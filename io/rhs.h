/* rhs.h -- the default right-hand side of `spk solve` and of the tests and
 * benchmarks: b = A*1, so the exact solution x* = 1 is known.  When A*1 = 0
 * (every row sums to zero, e.g. a graph Laplacian), x* is instead a fixed
 * pseudo-random vector in [0, 1) and b = A*x*.  The other kind, "random":
 * x* uniform in [-1, 1) from a seed and b = A*x*, so that b has no special
 * relation to A (A*1 favours a graph Laplacian, where it is nearly an
 * eigenvector). */
#ifndef SPK_IO_RHS_H
#define SPK_IO_RHS_H

#include <stddef.h>
#include <stdint.h>

#include "core/csr.h"

/* The kind of known solution: ones (x* = 1) or random (x* from seed). */
typedef struct spk_rhs_kind {
    int random;
    uint64_t seed;
} spk_rhs_kind;

#define SPK_RHS_DEFAULT_SEED 1

/* Fill xstar (ncols) and b (nrows); returns 1 when the random fallback was used. */
int spk_rhs_known_solution(const spk_csr *A, double *xstar, double *b);
/* The same through the public matrix arrays (for code that holds an spk_matrix). */
int spk_rhs_known_solution_arrays(int nrows, int ncols, const int *rowptr, const int *colind,
                                  const double *val, double *xstar, double *b);

/* Parse "ones", "random" or "random:SEED" (SEED a decimal integer). */
int spk_rhs_kind_parse(const char *text, spk_rhs_kind *k, spk_err *e);
/* "ones" or "random:SEED" into buf. */
void spk_rhs_kind_text(const spk_rhs_kind *k, char *buf, size_t n);
/* xstar (ncols) uniform in [-1, 1), the same for the same seed; b = A*xstar. */
void spk_rhs_random_solution(const spk_csr *A, uint64_t seed, double *xstar, double *b);
void spk_rhs_random_solution_arrays(int nrows, int ncols, const int *rowptr, const int *colind,
                                    const double *val, uint64_t seed, double *xstar, double *b);

/* x*[j] of the known solution alone, the same value the whole-vector
 * functions above give (for a rank that holds some rows of A): kind ones
 * (fallback 0: 1; fallback 1: the pseudo-random vector used where A*1 = 0)
 * or random (from its seed). */
double spk_rhs_xstar_at(const spk_rhs_kind *k, int fallback, long long j);

#endif
