/* spmv_compare.h -- one SpMV backend against the host CSR product on one
 * matrix, for several alpha and beta (beta = 0 with NaN in y), then again
 * after new values (the matrix doubled).  The error bound is normwise:
 *     max_i |y_i - ref_i| <= 1e-12 * max_i (|alpha| |A| |x| + |beta| |y|)_i,
 * which holds for any summation order (CSR-vector lanes, COO atomics). */
#ifndef SPK_TESTS_SPMV_COMPARE_H
#define SPK_TESTS_SPMV_COMPARE_H

#include <stdint.h>

#include "device.h"
#include "spmv/spmv.h"

static uint64_t spmv_cmp_rng = 4242;
static inline double spmv_cmp_rnd(void)
{
    spmv_cmp_rng = spmv_cmp_rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(spmv_cmp_rng >> 11) / 9007199254740992.0;
}

/* Compare with the backend's options opt (NULL: the defaults); returns the
 * create status (a refusal is returned, and a CHECK failure only when
 * must_create).  bytes >= 0: stats' bytes must be exactly that (the storage
 * formula the format states).  The worst error ratio goes to *worst (when
 * not NULL). */
static inline int spmv_compare_opts(const struct spk_spmv_ops *ops, spk_exec *ex, const spk_csr *A,
                                    const char *what, int must_create, const spk_spmv_opts *opt, long long bytes,
                                    double *worst)
{
    void *impl = NULL;
    spk_spmv_opts o;
    memset(&o, 0, sizeof o);
    if (opt) o = *opt;
    int st = ops->create(ex, A, &o, &impl);
    if (st) {
        if (must_create) CHECK(st == 0, "%s on %s: create failed: %s", ops->name, what, ex->err->msg);
        return st;
    }
    const int m = A->nrows, n = A->ncols;
    double *x = malloc(((size_t)n + 1) * sizeof(double)), *y = malloc(((size_t)m + 1) * sizeof(double));
    double *ref = malloc(((size_t)m + 1) * sizeof(double)), *bound = malloc(((size_t)m + 1) * sizeof(double));
    double *absx = malloc(((size_t)n + 1) * sizeof(double));
    spk_csr B = {0};
    spk_err e2;
    for (int j = 0; j < n; j++) x[j] = spmv_cmp_rnd() - 0.5, absx[j] = fabs(x[j]);
    double *dx = to_dev(ex, x, n), *dy = NULL;
    CHECK(dx != NULL, "upload x: %s", ex->err->msg);
    const double ab[][2] = {{1, 0}, {-2.5, 0}, {1, 1}, {0.5, -3}, {1, 0}};
    CHECK_OK(spk_csr_copy(A, &B, &e2), e2.msg);
    for (int t = 0; t < 5 && dx; t++) {
        const double alpha = ab[t][0], beta = ab[t][1];
        if (t == 4) { /* new values, same pattern: the product doubles */
            for (int k = 0; k < B.nnz; k++) B.val[k] *= 2;
            if (ops->update) {
                CHECK_OK(ops->update(impl, &B), ex->err->msg);
            } else {
                ops->destroy(impl);
                impl = NULL;
                CHECK_OK(ops->create(ex, &B, &o, &impl), ex->err->msg);
                if (!impl) break;
            }
        }
        for (int i = 0; i < m; i++) y[i] = beta == 0 ? NAN : spmv_cmp_rnd();
        for (int i = 0; i < m; i++) ref[i] = beta == 0 ? 0 : y[i];
        spk_csr_spmv(&B, alpha, x, beta, ref);
        /* |alpha| |A| |x| + |beta| |y| */
        for (int i = 0; i < m; i++) {
            double s = 0;
            for (int k = B.rowptr[i]; k < B.rowptr[i + 1]; k++) s += fabs(B.val[k]) * absx[B.colind[k]];
            bound[i] = fabs(alpha) * s + (beta == 0 ? 0 : fabs(beta * y[i]));
        }
        if (dy) ex->ops->free(ex, dy);
        dy = to_dev(ex, y, m);
        CHECK_OK(ops->apply(impl, alpha, dx, beta, dy), ex->err->msg);
        for (int i = 0; i < m; i++) y[i] = NAN;
        CHECK_OK(from_dev(ex, y, dy, m), ex->err->msg);
        double err = 0, scale = 0;
        for (int i = 0; i < m; i++) {
            err = fmax(err, isfinite(y[i]) ? fabs(y[i] - ref[i]) : INFINITY);
            scale = fmax(scale, bound[i]);
        }
        double ratio = scale > 0 ? err / scale : err;
        if (worst) *worst = fmax(*worst, ratio);
        CHECK(err <= 1e-12 * scale, "%s on %s: alpha %g beta %g%s: error %g, bound scale %g", ops->name,
              what, alpha, beta, t == 4 ? " (new values)" : "", err, scale);
    }
    spk_spmv_stats s;
    if (impl) {
        ops->stats(impl, &s);
        CHECK(s.setup_seconds >= 0 && (s.detail[0] != '\0' || strcmp(ops->name, "csr") == 0),
              "%s: stats without a description", ops->name);
        /* every format keeps each value (8 bytes); tile formats pack indices in 4 bits */
        CHECK(s.bytes >= (size_t)A->nnz * 8, "%s on %s: %zu bytes for %d nonzeros", ops->name, what, s.bytes,
              A->nnz);
        if (bytes >= 0)
            CHECK((long long)s.bytes == bytes, "%s on %s: stats %zu bytes, the storage formula %lld", ops->name,
                  what, s.bytes, bytes);
        ops->destroy(impl);
    }
    if (dx) ex->ops->free(ex, dx);
    if (dy) ex->ops->free(ex, dy);
    spk_csr_free(&B);
    free(x);
    free(y);
    free(ref);
    free(bound);
    free(absx);
    return SPK_OK;
}

/* spmv_compare_opts with the defaults. */
static inline int spmv_compare_worst(const struct spk_spmv_ops *ops, spk_exec *ex, const spk_csr *A,
                                     const char *what, int must_create, double *worst)
{
    return spmv_compare_opts(ops, ex, A, what, must_create, NULL, -1, worst);
}

static inline int spmv_compare(const struct spk_spmv_ops *ops, spk_exec *ex, const spk_csr *A,
                               const char *what, int must_create)
{
    return spmv_compare_worst(ops, ex, A, what, must_create, NULL);
}

#endif
