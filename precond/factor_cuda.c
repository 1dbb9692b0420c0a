/* factor_cuda.c -- ILU(0) and IC(0) on the GPU through cuSPARSE, behind the
 * same interface and shift policy as the host ones (factor.h):
 *
 *   setup   (once)  host pattern with the diagonal present (IC(0): lower part),
 *                   upload, csrilu02/csric02 analysis;
 *   numeric (each try and each refactor)  scale a_ii by (1 + alpha) on the
 *                   host, upload the values, csrilu02/csric02, then read the
 *                   pivots back and apply the host's pivot test row by row,
 *                   so a bad pivot names the same row as on the host;
 *   triangular solves  cusparseSpSV: ILU(0) unit-lower L then upper U on the
 *                   factor's arrays; IC(0) L then L^T (transposed operation).
 *                   Their analysis runs after the first good factorization;
 *                   later ones only call cusparseSpSV_updateMatrix.
 *
 * csrilu02 and csric02 are deprecated in CUDA 13 but still shipped; they stay
 * the reference path here, replaceable without touching the drivers.
 * Traffic per apply: the factor twice (12 bytes per entry each) plus about
 * 48 bytes per row. */
#define DISABLE_CUSPARSE_DEPRECATED 1

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cuda_kernels.h"
#include "core/exec_cuda.h"
#include "factor.h"
#include "spsv.h"

#define PIVOT_RTOL 1e-14 /* the host's test: |pivot| <= 1e-14 * scale is a bad pivot */

typedef struct gpu_factor {
    spk_exec *e;
    cusparseHandle_t h;
    cudaStream_t s;
    int n, nnz, ic;                 /* ic: IC(0) (else ILU(0)) */
    int *rowptr, *colind, *diag;    /* device pattern */
    double *val, *piv;              /* factor values, pivots read back */
    unsigned char *bad;
    double *hpiv, *hscale;          /* host: pivots, and the scale of each row's test */
    unsigned char *hbad;
    cusparseMatDescr_t descr;
    csrilu02Info_t ilu;
    csric02Info_t icinfo;
    void *fbuf;
    spk_spsv_pair sp;               /* the triangular solves on the factor's arrays */
} gpu_factor;

static void gpu_release(spk_factor *f)
{
    gpu_factor *g = f->dev;
    if (!g) return;
    spk_spsv_pair_free(&g->sp);
    if (g->ilu) cusparseDestroyCsrilu02Info(g->ilu);
    if (g->icinfo) cusparseDestroyCsric02Info(g->icinfo);
    if (g->descr) cusparseDestroyMatDescr(g->descr);
    void *dev[] = {g->rowptr, g->colind, g->diag, g->val, g->piv, g->bad, g->fbuf};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++) cudaFree(dev[i]);
    free(g->hpiv);
    free(g->hscale);
    free(g->hbad);
    free(g);
    f->dev = NULL;
}

/* Device copy of the pattern, cuSPARSE descriptors and the factorization analysis. */
static int gpu_prepare(spk_factor *f)
{
    spk_exec *e = f->exec;
    spk_err *err = e->err;
    if (!spk_exec_is_cuda(e))
        return spk_err_set(err, SPK_ERR_INVALID_ARG, "%s: the CUDA preconditioner was given the '%s' executor",
                           f->kind->label, e->ops->name);
    gpu_factor *g = calloc(1, sizeof *g);
    if (!g) return spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (%s)", f->kind->label);
    f->dev = g;
    g->e = e;
    g->n = f->n;
    g->nnz = f->F.nnz;
    g->ic = f->kind->lower_only;
    spk_exec_cuda_handles(e, &g->s, NULL, &g->h);
    const int n = g->n, nnz = g->nnz;
    size_t nb = (size_t)n;
    g->hpiv = spk_malloc(nb, sizeof(double), "pivots", err);
    g->hscale = spk_malloc(nb, sizeof(double), "pivot scales", err);
    g->hbad = spk_malloc(nb, 1, "pivot flags", err);
    if (!g->hpiv || !g->hscale || !g->hbad) return SPK_ERR_NOMEM;
    SPK_TRY(spk_cuda_alloc(e, (nb + 1) * sizeof(int), "the factor's row pointers", (void **)&g->rowptr));
    SPK_TRY(spk_cuda_alloc(e, (size_t)nnz * sizeof(int), "the factor's column indices", (void **)&g->colind));
    SPK_TRY(spk_cuda_alloc(e, (size_t)nnz * sizeof(double), "the factor's values", (void **)&g->val));
    SPK_TRY(spk_cuda_alloc(e, nb * sizeof(int), "the factor's diagonal positions", (void **)&g->diag));
    SPK_TRY(spk_cuda_alloc(e, nb * sizeof(double), "the factor's pivots", (void **)&g->piv));
    SPK_TRY(spk_cuda_alloc(e, nb, "pivot flags", (void **)&g->bad));
    SPK_TRY(spk_cuda_upload(e, g->rowptr, f->F.rowptr, (nb + 1) * sizeof(int), "factor row pointers"));
    SPK_TRY(spk_cuda_upload(e, g->colind, f->F.colind, (size_t)nnz * sizeof(int), "factor columns"));
    SPK_TRY(spk_cuda_upload(e, g->diag, f->diag, nb * sizeof(int), "diagonal positions"));
    if (n == 0) return SPK_OK;

    SPK_CUSPARSE_TRY(err, cusparseCreateMatDescr(&g->descr));
    SPK_CUSPARSE_TRY(err, cusparseSetMatType(g->descr, CUSPARSE_MATRIX_TYPE_GENERAL));
    SPK_CUSPARSE_TRY(err, cusparseSetMatIndexBase(g->descr, CUSPARSE_INDEX_BASE_ZERO));
    int fbytes = 0;
    if (g->ic) {
        SPK_CUSPARSE_TRY(err, cusparseCreateCsric02Info(&g->icinfo));
        SPK_CUSPARSE_TRY(err, cusparseDcsric02_bufferSize(g->h, n, nnz, g->descr, g->val, g->rowptr,
                                                          g->colind, g->icinfo, &fbytes));
    } else {
        SPK_CUSPARSE_TRY(err, cusparseCreateCsrilu02Info(&g->ilu));
        SPK_CUSPARSE_TRY(err, cusparseDcsrilu02_bufferSize(g->h, n, nnz, g->descr, g->val, g->rowptr,
                                                           g->colind, g->ilu, &fbytes));
    }
    SPK_TRY(spk_cuda_alloc(e, (size_t)fbytes, "the factorization workspace", &g->fbuf));
    if (g->ic)
        SPK_CUSPARSE_TRY(err, cusparseDcsric02_analysis(g->h, n, nnz, g->descr, g->val, g->rowptr,
                                                        g->colind, g->icinfo,
                                                        CUSPARSE_SOLVE_POLICY_USE_LEVEL, g->fbuf));
    else
        SPK_CUSPARSE_TRY(err, cusparseDcsrilu02_analysis(g->h, n, nnz, g->descr, g->val, g->rowptr,
                                                         g->colind, g->ilu,
                                                         CUSPARSE_SOLVE_POLICY_USE_LEVEL, g->fbuf));

    return spk_spsv_pair_init(e, &g->sp, n, nnz, g->ic, g->rowptr, g->colind, g->val);
}

/* Factorize A + alpha*diag(A) on the device; 0, -1 with the failing row, or an error. */
static int gpu_numeric(spk_factor *f, double alpha, spk_factor_fail *fail)
{
    gpu_factor *g = f->dev;
    spk_err *err = g->e->err;
    const int n = g->n, *rp = f->F.rowptr;
    double *v = f->F.val;
    if (n == 0) return 0;
    /* the scale of each row's pivot test, as on the host */
    for (int i = 0; i < n; i++) {
        v[f->diag[i]] *= 1.0 + alpha;
        double s = 0;
        if (g->ic) {
            s = fabs(v[f->diag[i]]);
        } else {
            for (int k = rp[i]; k < rp[i + 1]; k++) s = fmax(s, fabs(v[k]));
        }
        g->hscale[i] = s;
    }
    SPK_TRY(spk_cuda_upload(g->e, g->val, v, (size_t)g->nnz * sizeof(double), "factor values"));
    int zp = -1;
    cusparseStatus_t zs;
    if (g->ic) {
        SPK_CUSPARSE_TRY(err, cusparseDcsric02(g->h, n, g->nnz, g->descr, g->val, g->rowptr, g->colind,
                                               g->icinfo, CUSPARSE_SOLVE_POLICY_USE_LEVEL, g->fbuf));
        zs = cusparseXcsric02_zeroPivot(g->h, g->icinfo, &zp);
    } else {
        SPK_CUSPARSE_TRY(err, cusparseDcsrilu02(g->h, n, g->nnz, g->descr, g->val, g->rowptr, g->colind,
                                                g->ilu, CUSPARSE_SOLVE_POLICY_USE_LEVEL, g->fbuf));
        zs = cusparseXcsrilu02_zeroPivot(g->h, g->ilu, &zp);
    }
    if (zs != CUSPARSE_STATUS_SUCCESS && zs != CUSPARSE_STATUS_ZERO_PIVOT)
        return spk_cusparse_check(err, zs, "cusparseXcsr*02_zeroPivot");
    SPK_CUDA_TRY(err, spk_cuda_pivots(g->s, n, g->rowptr, g->diag, g->val, g->piv, g->bad));
    SPK_TRY(g->e->ops->download(g->e, g->hpiv, g->piv, (size_t)n * sizeof(double)));
    SPK_TRY(g->e->ops->download(g->e, g->hbad, g->bad, (size_t)n));
    for (int i = 0; i < n; i++) {
        double p = g->hpiv[i];
        /* IC(0) stores l_ii = sqrt(d_i): test d_i as the host does */
        double piv = g->ic ? p * p : p;
        int ok = g->ic ? p > 0 && piv > PIVOT_RTOL * g->hscale[i] : fabs(p) > PIVOT_RTOL * g->hscale[i];
        if (i == zp) ok = 0;
        if (!ok || g->hbad[i] || !isfinite(p)) {
            fail->row = i;
            fail->pivot = i == zp ? 0.0 : (isfinite(p) ? piv : p);
            fail->overflow = ok && g->hbad[i];
            return -1;
        }
    }
    SPK_TRY(spk_spsv_pair_ready(&g->sp));
    return 0;
}

/* z = M^-1 r: two cusparseSpSV solves through the temporary t. */
static int gpu_apply(void *impl, const double *r, double *z)
{
    spk_factor *f = impl;
    SPK_TRY(spk_factor_check_apply(f, r, z));
    gpu_factor *g = f->dev;
    return spk_spsv_pair_solve(&g->sp, r, z);
}

static const spk_factor_kind ilu0_cuda_kind = {
    "ILU(0)", "zero pivot u_ii", 0, gpu_numeric, spk_ilu0_hopeless, 1, gpu_prepare, gpu_release, 0,
};
static const spk_factor_kind ic0_cuda_kind = {
    "IC(0)", "non-positive pivot d_i", 1, gpu_numeric, spk_ic0_hopeless, 1, gpu_prepare, gpu_release, 0,
};

static int ilu0_cuda_create(spk_exec *e, const spk_csr *A, const spk_precond_opts *o, void **impl)
{
    return spk_factor_create(e, A, o, &ilu0_cuda_kind, impl);
}

static int ic0_cuda_create(spk_exec *e, const spk_csr *A, const spk_precond_opts *o, void **impl)
{
    return spk_factor_create(e, A, o, &ic0_cuda_kind, impl);
}

const struct spk_precond_ops spk_precond_ilu0_cuda = {
    "ilu0", "cuda", ilu0_cuda_create, gpu_apply, spk_factor_refactor, spk_factor_destroy, spk_factor_shift,
    NULL, NULL, NULL, NULL, NULL, NULL,
};
const struct spk_precond_ops spk_precond_ic0_cuda = {
    "ic0", "cuda", ic0_cuda_create, gpu_apply, spk_factor_refactor, spk_factor_destroy, spk_factor_shift,
    NULL, NULL, NULL, NULL, NULL, NULL,
};
