/* rhs.c -- b = A*1, or b = A*r with a fixed pseudo-random r when A*1 = 0. */
#include "rhs.h"

#include <math.h>
#include <stdint.h>

int spk_rhs_known_solution(const spk_csr *A, double *xstar, double *b)
{
    for (int j = 0; j < A->ncols; j++) xstar[j] = 1.0;
    spk_csr_spmv(A, 1.0, xstar, 0.0, b);
    double bmax = 0;
    for (int i = 0; i < A->nrows; i++) bmax = fmax(bmax, fabs(b[i]));
    if (bmax > 0 || A->nrows == 0) return 0;
    uint64_t s = 0x9E3779B97F4A7C15ull; /* 64-bit LCG, fixed seed: reproducible */
    for (int j = 0; j < A->ncols; j++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        xstar[j] = (double)(s >> 11) * (1.0 / 9007199254740992.0);
    }
    spk_csr_spmv(A, 1.0, xstar, 0.0, b);
    return 1;
}

int spk_rhs_known_solution_arrays(int nrows, int ncols, const int *rowptr, const int *colind,
                                  const double *val, double *xstar, double *b)
{
    spk_csr A = {nrows, ncols, rowptr[nrows], (int *)rowptr, (int *)colind, (double *)val};
    return spk_rhs_known_solution(&A, xstar, b);
}
