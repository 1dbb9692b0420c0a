/* zops.h -- complex BLAS-1 on an executor.
 *
 * Complex vectors hold 2*n doubles (re, im; core/zcsr.h) in the executor's
 * memory.  What needs no complex arithmetic goes through the executor's real
 * operations over 2*n doubles: alloc, copy, fill with 0, and the 2-norm
 * (||x||_2 of a complex vector is the real 2-norm of its 2n parts).
 * Scalars a, b and results out are host arrays of two doubles (re, im).
 * Host sums are blocked as the real dots (core/host_sum.h): the same bits
 * for any thread count. */
#ifndef SPK_CORE_ZOPS_H
#define SPK_CORE_ZOPS_H

#include "exec.h"

typedef struct spk_zops {
    /* out = x^H y (x conjugated) */
    int (*dotc)(spk_exec *e, int n, const double *x, const double *y, double *out);
    /* out = x^T y (no conjugate: COCG's bilinear form) */
    int (*dotu)(spk_exec *e, int n, const double *x, const double *y, double *out);
    /* y = a x + y */
    int (*axpy)(spk_exec *e, int n, const double *a, const double *x, double *y);
    /* y = a x + b y (b = 0: y is not read) */
    int (*axpby)(spk_exec *e, int n, const double *a, const double *x, const double *b, double *y);
    /* z = d .* x, entry by entry (z may be x) */
    int (*mul)(spk_exec *e, int n, const double *d, const double *x, double *z);
} spk_zops;

/* The executor's complex operations: the host's, or the GPU's (cuBLAS and
 * kernels of core/zops_cuda); NULL where the executor has none (MPI). */
const spk_zops *spk_zops_get(const spk_exec *e);
/* The two tables (zops_host.c, zops_cuda.c). */
const spk_zops *spk_zops_host(void);
const spk_zops *spk_zops_cuda(void);

#endif
