/* jacobi.c -- the Jacobi (diagonal) preconditioner: z_i = r_i / a_ii, on
 * the host and (built with CUDA) on the GPU.
 *
 * The reciprocals 1/a_ii are computed on the host at setup (where a bad
 * diagonal is reported with its row) and, on the GPU, uploaded once, so
 * apply is one multiply per entry (3 doubles of traffic per row). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/parallel.h"
#include "precond/precond.h"
#ifdef SPK_HAVE_CUDA
#include "core/cuda_kernels.h"
#include "core/exec_cuda.h"
#endif

typedef struct jacobi {
    spk_exec *exec;
    int n;
    double *inv; /* 1 / a_ii (host) */
    double *dev; /* the same on the device (CUDA variant), else NULL */
} jacobi;

/* inv_i = 1 / a_ii; a zero, missing or non-finite a_ii is a zero pivot at row i. */
static int jacobi_load(jacobi *J, const spk_csr *A)
{
    spk_err *err = J->exec->err;
    if (!A) return spk_err_set(err, SPK_ERR_INVALID_ARG, "Jacobi: the matrix is NULL");
    if (A->nrows != J->n || A->ncols != J->n)
        return spk_err_set(err, SPK_ERR_INVALID_MATRIX,
                           "Jacobi: the matrix is %d x %d, but the preconditioner was set up for "
                           "%d x %d",
                           A->nrows, A->ncols, J->n, J->n);
    /* the scan below compares columns with i and never indexes by them, so
     * rowptr is all it needs checked (a full check costs more than the scan) */
    if (spk_csr_validate_rows(A, err)) return spk_err_prefix(err, "Jacobi");
    if (A->nnz > 0 && !A->val)
        return spk_err_set(err, SPK_ERR_INVALID_MATRIX, "Jacobi: the matrix has no values");
    for (int i = 0; i < J->n; i++) {
        int found = 0;
        double d = 0;
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (A->colind[k] == i) {
                d = A->val[k];
                found = 1;
                break;
            }
        if (!found)
            return spk_err_set(err, SPK_ERR_ZERO_PIVOT,
                               "Jacobi: zero diagonal entry at row %d (0-based; a_ii is not "
                               "stored)",
                               i);
        if (d == 0)
            return spk_err_set(err, SPK_ERR_ZERO_PIVOT,
                               "Jacobi: zero diagonal entry at row %d (0-based)", i);
        if (!isfinite(d))
            return spk_err_set(err, SPK_ERR_ZERO_PIVOT,
                               "Jacobi: non-finite diagonal entry %g at row %d (0-based)", d, i);
        J->inv[i] = 1.0 / d;
    }
#ifdef SPK_HAVE_CUDA
    if (J->dev)
        return spk_cuda_upload(J->exec, J->dev, J->inv, (size_t)J->n * sizeof(double),
                               "the Jacobi diagonal");
#endif
    return SPK_OK;
}

static void jacobi_destroy(void *impl);

/* Store 1/a_ii for a square canonical A (on the device too when cuda). */
static int jacobi_create_on(spk_exec *e, const spk_csr *A, int cuda, void **impl)
{
    jacobi *J = NULL;
    int st = SPK_OK;
    if (!e || !impl) return e ? spk_err_set(e->err, SPK_ERR_INVALID_ARG, "Jacobi: impl is NULL")
                              : SPK_ERR_INVALID_ARG;
    *impl = NULL;
    if (cuda ? strcmp(e->ops->name, "cuda") != 0 : !spk_exec_is_host(e))
        return spk_err_set(e->err, SPK_ERR_INVALID_ARG,
                           "Jacobi: the %s preconditioner was given the '%s' executor",
                           cuda ? "CUDA" : "host", e->ops ? e->ops->name : "?");
    if (!A) return spk_err_set(e->err, SPK_ERR_INVALID_ARG, "Jacobi: the matrix is NULL");
    if (A->nrows != A->ncols)
        return spk_err_set(e->err, SPK_ERR_INVALID_MATRIX,
                           "Jacobi: the matrix is %d x %d; a square matrix is required", A->nrows,
                           A->ncols);
    J = spk_calloc(1, sizeof *J, "Jacobi preconditioner", e->err);
    if (!J) return SPK_ERR_NOMEM;
    J->exec = e;
    J->n = A->nrows;
    J->inv = spk_malloc((size_t)J->n, sizeof(double), "Jacobi diagonal", e->err);
    if (!J->inv) {
        st = SPK_ERR_NOMEM;
        goto cleanup;
    }
#ifdef SPK_HAVE_CUDA
    if (cuda)
        SPK_CHECK(st, spk_cuda_alloc(e, (size_t)J->n * sizeof(double), "the Jacobi diagonal",
                                     (void **)&J->dev));
#endif
    SPK_CHECK(st, jacobi_load(J, A));
    *impl = J;
    J = NULL;
cleanup:
    jacobi_destroy(J);
    return st;
}

static int jacobi_create(spk_exec *e, const spk_csr *A, const spk_precond_opts *o, void **impl)
{
    (void)o;
    return jacobi_create_on(e, A, 0, impl);
}

/* z_i = r_i / a_ii */
static int jacobi_apply(void *impl, const double *r, double *z)
{
    const jacobi *J = impl;
    if (!J || !r || !z) return SPK_ERR_INVALID_ARG;
    const double *inv = J->inv;
    const int n = J->n;
    SPK_OMP(omp parallel for schedule(static) if (n >= SPK_PAR_MIN))
    for (int i = 0; i < n; i++) z[i] = r[i] * inv[i];
    return SPK_OK;
}

/* New values: recompute the reciprocals in place. */
static int jacobi_refactor(void *impl, const spk_csr *A)
{
    if (!impl) return SPK_ERR_INVALID_ARG;
    return jacobi_load(impl, A);
}

static void jacobi_destroy(void *impl)
{
    jacobi *J = impl;
    if (!J) return;
#ifdef SPK_HAVE_CUDA
    spk_cuda_free(J->exec, J->dev);
#endif
    free(J->inv);
    free(J);
}

static double jacobi_shift(const void *impl)
{
    (void)impl;
    return 0.0;
}

const struct spk_precond_ops spk_precond_jacobi_host = {
    "jacobi", "host", jacobi_create, jacobi_apply, jacobi_refactor, jacobi_destroy, jacobi_shift, NULL, NULL, NULL, NULL, NULL, NULL,
};

#ifdef SPK_HAVE_CUDA
static int jacobi_cuda_create(spk_exec *e, const spk_csr *A, const spk_precond_opts *o, void **impl)
{
    (void)o;
    return jacobi_create_on(e, A, 1, impl);
}

/* The reciprocals from A's arrays on the device (no pass over A on the
 * host); a bad diagonal is then found again on the host for its message. */
static int jacobi_cuda_create_dev(spk_exec *e, const spk_csr *A, const spk_csr *dA, const spk_precond_opts *o,
                                  void **impl)
{
    (void)o;
    if (!e || !impl || !A || !dA) return e ? spk_err_set(e->err, SPK_ERR_INVALID_ARG, "Jacobi: an argument is NULL")
                                           : SPK_ERR_INVALID_ARG;
    *impl = NULL;
    if (strcmp(e->ops->name, "cuda") != 0)
        return spk_err_set(e->err, SPK_ERR_INVALID_ARG, "Jacobi: the CUDA preconditioner was given the '%s' executor",
                           e->ops ? e->ops->name : "?");
    if (A->nrows != A->ncols || dA->nrows != A->nrows || dA->nnz != A->nnz)
        return spk_err_set(e->err, SPK_ERR_INVALID_MATRIX,
                           "Jacobi: the matrix is %d x %d (%d x %d with %d entries on the device); a square "
                           "matrix, the same on both, is required", A->nrows, A->ncols, dA->nrows, dA->ncols, dA->nnz);
    jacobi *J = spk_calloc(1, sizeof *J, "Jacobi preconditioner", e->err);
    if (!J) return SPK_ERR_NOMEM;
    J->exec = e;
    J->n = A->nrows;
    int st = SPK_OK, bad = J->n, *dbad = NULL;
    J->inv = spk_malloc((size_t)J->n + 1, sizeof(double), "Jacobi diagonal", e->err);
    if (!J->inv) st = SPK_ERR_NOMEM;
    if (!st) st = spk_cuda_alloc(e, (size_t)J->n * sizeof(double) + sizeof(int), "the Jacobi diagonal", (void **)&J->dev);
    if (!st) {
        cudaStream_t s;
        spk_exec_cuda_handles(e, &s, NULL, NULL);
        dbad = (int *)(J->dev + J->n);
        st = spk_cuda_check(e->err, cudaMemcpyAsync(dbad, &bad, sizeof bad, cudaMemcpyHostToDevice, s),
                            "cudaMemcpyAsync (host to device)");
        if (!st)
            st = spk_cuda_check(e->err, spk_cuda_inv_diagonal(s, J->n, dA->rowptr, dA->colind, dA->val, J->dev, dbad),
                                "spk_cuda_inv_diagonal");
        if (!st)
            st = spk_cuda_check(e->err, cudaMemcpyAsync(&bad, dbad, sizeof bad, cudaMemcpyDeviceToHost, s),
                                "cudaMemcpyAsync (device to host)");
        if (!st) st = spk_cuda_check(e->err, cudaStreamSynchronize(s), "cudaStreamSynchronize");
    }
    if (!st && bad < J->n) { /* the host's pass names the row and the cause */
        st = jacobi_load(J, A);
        if (!st) st = spk_err_set(e->err, SPK_ERR_INTERNAL, "Jacobi: row %d's diagonal differs on the device", bad);
    }
    if (st) {
        jacobi_destroy(J);
        return st;
    }
    *impl = J;
    return SPK_OK;
}

/* z_i = r_i / a_ii on the device */
static int jacobi_cuda_apply(void *impl, const double *r, double *z)
{
    const jacobi *J = impl;
    if (!J || !r || !z) return SPK_ERR_INVALID_ARG;
    cudaStream_t s;
    spk_exec_cuda_handles(J->exec, &s, NULL, NULL);
    SPK_CUDA_TRY(J->exec->err, spk_cuda_scale(s, J->n, J->dev, r, z));
    return SPK_OK;
}

/* One block applies it (precond.h, block; precond/devtri.h, SPK_BLOCK_DIAG) */
static int jacobi_block(const void *impl, spk_block_prec *out)
{
    const jacobi *J = impl;
    memset(out, 0, sizeof *out);
    if (!J || !J->dev || J->n < 1 || J->n > SPK_BLOCK_ROWS) return 0;
    out->kind = SPK_BLOCK_DIAG;
    out->id[0] = J->dev;
    return 1;
}

const struct spk_precond_ops spk_precond_jacobi_cuda = {
    "jacobi", "cuda", jacobi_cuda_create, jacobi_cuda_apply, jacobi_refactor, jacobi_destroy,
    jacobi_shift, NULL, jacobi_cuda_create_dev, jacobi_block, NULL, NULL, NULL,
};
#endif
