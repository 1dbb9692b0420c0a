/* spsv.h -- exact triangular solves with a factor in device memory through
 * cusparseSpSV, shared by the cuSPARSE preconditioners (factor_cuda.c) and
 * the device-resident ones (devsweep.c) (internal, built with CUDA).
 *
 * The factor is one CSR matrix (n x n, nnz entries, device arrays):
 *   ILU(0) (ic = 0): unit lower L strictly below the diagonal and upper U on
 *                    and above it; z = U^-1 L^-1 r;
 *   IC(0)  (ic = 1): lower L with its diagonal; z = L^-T L^-1 r (the second
 *                    solve is the transposed operation on L).
 * ready() runs the analysis after the first good factorization and only
 * updates the values after later ones (the arrays stay the same). */
#ifndef SPK_PRECOND_SPSV_H
#define SPK_PRECOND_SPSV_H

#include "core/exec_cuda.h"

typedef struct spk_spsv_pair {
    spk_exec *e;
    cusparseHandle_t h;
    int n, ic, analyzed;
    cudaDataType_t type;          /* CUDA_R_64F, or CUDA_C_64F for complex systems */
    double *val;                  /* the factor's values (not owned) */
    double *t;                    /* the vector between the solves (owned) */
    cusparseSpMatDescr_t M1, M2;  /* L, and U (ILU(0) only) */
    cusparseDnVecDescr_t vr, vt, vz;
    cusparseSpSVDescr_t sv1, sv2;
    void *buf1, *buf2;
} spk_spsv_pair;

/* Descriptors over (rowptr, colind, val); nothing is analyzed yet. */
int spk_spsv_pair_init(spk_exec *e, spk_spsv_pair *p, int n, int nnz, int ic, int *rowptr, int *colind, double *val);
/* The same for values of another type: CUDA_C_64F for a complex factor
 * (val, r and z then hold (re, im) pairs; precond/zprecond_cuda.c). */
int spk_spsv_pair_init_type(spk_exec *e, spk_spsv_pair *p, int n, int nnz, int ic, int *rowptr, int *colind,
                            double *val, cudaDataType_t type);
/* Analysis (first call) or new values (later calls). */
int spk_spsv_pair_ready(spk_spsv_pair *p);
/* z = M^-1 r (z may be r). */
int spk_spsv_pair_solve(spk_spsv_pair *p, const double *r, double *z);
/* Release (NULL-safe, zeroes p). */
void spk_spsv_pair_free(spk_spsv_pair *p);

#endif
