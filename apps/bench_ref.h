/* bench_ref.h -- the reference baseline of `spk bench` (the configuration
 * "ref"): the preconditioned solve a careful engineer writes directly on
 * cuSPARSE and cuBLAS, without spk's solver, to measure spk against.  Built
 * only with CUDA (SPK_HAVE_CUDA).  bench_ref.c says what it does. */
#ifndef SPK_APPS_BENCH_REF_H
#define SPK_APPS_BENCH_REF_H

#include "core/csr.h"

/* The solve's settings: those of the spk run it is compared with. */
typedef struct bench_ref_args {
    double rtol, atol; /* stop at ||r|| <= max(rtol ||b||, atol) */
    int maxit;
    int repeat;        /* setup + solve this many times; the run of the median time is kept */
} bench_ref_args;

typedef struct bench_ref_result {
    int status;            /* SPK_OK converged; SPK_ERR_ZERO_PIVOT, _NOT_CONVERGED, _BREAKDOWN,
                              _INDEFINITE, _DEVICE, _NOMEM, _INVALID_MATRIX: note says why */
    char note[256];
    const char *method;    /* "cg" or "bicgstab" */
    const char *precond;   /* "ic0" or "ilu0" */
    int iterations;
    int added_diag;        /* missing diagonal entries stored as explicit zeros */
    double true_relres;    /* ||b - A x|| / ||b||, recomputed after the loop */
    double upload_ms;      /* A and b to the device, once, not part of setup_ms */
    double setup_ms;       /* factorization, analyses, buffers, work vectors */
    double solve_ms;       /* the iterations and the true residual */
} bench_ref_result;

/* Solve A x = b (host arrays; A square and canonical) from x0 = 0 on the
 * current CUDA device; the outcome in r (r->status, also returned). */
int bench_ref_run(const spk_csr *A, const double *b, const bench_ref_args *a, bench_ref_result *r);

#endif
