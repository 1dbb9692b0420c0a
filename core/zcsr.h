/* zcsr.h -- the host CSR matrix with complex double values.
 *
 * The pattern is held as in spk_csr (0-based 32-bit indices, canonical:
 * columns strictly increasing in each row); val holds 2*nnz doubles, the
 * real and imaginary part of each entry next to each other -- the layout of
 * C's double _Complex, Fortran's complex(c_double_complex), NumPy's
 * complex128 and CUDA's cuDoubleComplex.  Complex vectors likewise hold
 * 2*n doubles. */
#ifndef SPK_CORE_ZCSR_H
#define SPK_CORE_ZCSR_H

#include <stddef.h>

#include "error.h"

typedef struct spk_zcsr {
    int nrows, ncols, nnz;
    int *rowptr; /* nrows + 1 */
    int *colind; /* nnz */
    double *val; /* 2 * nnz: re, im */
} spk_zcsr;

/* How A relates to its transpose (spk_zcsr_symmetry). */
typedef enum {
    SPK_ZSYM_GENERAL = 0,   /* neither */
    SPK_ZSYM_SYMMETRIC = 1, /* A = A^T (complex symmetric: COCG) */
    SPK_ZSYM_HERMITIAN = 2, /* A = A^H (real diagonal: CG where positive definite) */
    SPK_ZSYM_BOTH = 3       /* A = A^T = A^H: the values are real */
} spk_zsym;

/* Arrays for nrows x ncols with room for nnz entries; rowptr zeroed. */
int spk_zcsr_alloc(spk_zcsr *A, int nrows, int ncols, int nnz, spk_err *e);
void spk_zcsr_free(spk_zcsr *A);
int spk_zcsr_copy(const spk_zcsr *A, spk_zcsr *B, spk_err *e);
/* Canonical CSR from nnz triplets (val: 2*nnz, re/im; duplicates summed;
 * indices checked against the dimensions, the message naming the entry). */
int spk_zcsr_from_coo(int nrows, int ncols, size_t nnz, const int *row, const int *col, const double *val,
                      spk_zcsr *A, spk_err *e);
/* Canonical CSR from the caller's CSR arrays (columns in any order,
 * duplicates summed); map (may be NULL, nnz entries) receives for each input
 * entry its position in A. */
int spk_zcsr_from_csr(int nrows, int ncols, const int *rowptr, const int *colind, const double *val, spk_zcsr *A,
                      int *map, spk_err *e);
/* y = A x (host, on the host's threads; x: 2*ncols, y: 2*nrows doubles). */
void spk_zcsr_spmv(const spk_zcsr *A, const double *x, double *y);
/* A's symmetry (canonical A; square, else SPK_ZSYM_GENERAL).  O(nnz log). */
spk_zsym spk_zcsr_symmetry(const spk_zcsr *A);
/* The position of each row's diagonal entry in *diag (-1 where none is
 * stored); allocated with malloc. */
int spk_zcsr_diag_pos(const spk_zcsr *A, int **diag, spk_err *e);

#endif
