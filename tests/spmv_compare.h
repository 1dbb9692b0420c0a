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

/* New values, same pattern: B's values doubled (the product doubles), given
 * to the instance by update() or, without one, a new create(); 0 when no
 * instance is left. */
static inline int spmv_cmp_new_values(const struct spk_spmv_ops *ops, spk_exec *ex, const spk_spmv_opts *o,
                                      spk_csr *B, void **impl)
{
    for (int k = 0; k < B->nnz; k++) B->val[k] *= 2;
    if (ops->update) {
        CHECK_OK(ops->update(*impl, B), ex->err->msg);
        return 1;
    }
    ops->destroy(*impl);
    *impl = NULL;
    CHECK_OK(ops->create(ex, B, o, impl), ex->err->msg);
    return *impl != NULL;
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
    /* a double instance refuses the float product (before reading anything) */
    CHECK(ops->apply_float && ops->apply_float(impl, 1.0f, NULL, 0.0f, NULL) == SPK_ERR_INVALID_ARG,
          "%s: apply_float of a double instance accepted", ops->name);
    spk_err_clear(ex->err);
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
        if (t == 4 && !spmv_cmp_new_values(ops, ex, &o, &B, &impl)) break;
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
        CHECK(s.bytes >= (size_t)A->nnz * 8, "%s on %s: %zu bytes for %d nonzeros (%s)", ops->name, what, s.bytes,
              A->nnz, s.detail);
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

/* Single precision: the backend created with precision float, applied with
 * float x and y, against the double CSR product of the same (float) x and y.
 * Per row the bound is that of any order of float summation,
 *     |y_i - ref_i| <= (len_i + 5) 2^-24 (|alpha| sum_k |a_ik x_k| + |beta y_i|),
 * the values' rounding to float and the two final operations included.
 * Also: apply() on the float instance is refused, and the stored bytes are
 * below the double instance's by at least 4 per nonzero (every value
 * halved), and at least 4 per nonzero.  double_bytes < 0: not known. */
static inline int spmv_compare_float(const struct spk_spmv_ops *ops, spk_exec *ex, const spk_csr *A,
                                     const char *what, int must_create, const spk_spmv_opts *opt,
                                     long long double_bytes, double *worst)
{
    void *impl = NULL;
    spk_spmv_opts o;
    memset(&o, 0, sizeof o);
    if (opt) o = *opt;
    o.precision = SPK_SPMV_FLOAT;
    CHECK(ops->apply_float != NULL, "%s: no single-precision apply", ops->name);
    if (!ops->apply_float) return SPK_ERR_INTERNAL;
    int st = ops->create(ex, A, &o, &impl);
    if (st) {
        if (must_create) CHECK(st == 0, "%s on %s (float): create failed: %s", ops->name, what, ex->err->msg);
        return st;
    }
    const int m = A->nrows, n = A->ncols;
    float *x = malloc(((size_t)n + 1) * sizeof(float)), *y = malloc(((size_t)m + 1) * sizeof(float));
    double *xd = malloc(((size_t)n + 1) * sizeof(double)), *ref = malloc(((size_t)m + 1) * sizeof(double));
    double *bound = malloc(((size_t)m + 1) * sizeof(double));
    spk_csr B = {0};
    spk_err e2;
    for (int j = 0; j < n; j++) x[j] = (float)(spmv_cmp_rnd() - 0.5), xd[j] = x[j];
    void *dx = NULL, *dy = NULL;
    CHECK_OK(ex->ops->alloc(ex, ((size_t)n + 1) * sizeof(float), &dx), ex->err->msg);
    CHECK_OK(ex->ops->alloc(ex, ((size_t)m + 1) * sizeof(float), &dy), ex->err->msg);
    if (dx && n > 0) CHECK_OK(ex->ops->upload(ex, dx, x, (size_t)n * sizeof(float)), ex->err->msg);
    /* the double instance refuses apply_float, the float one apply() */
    if (dx && dy) {
        CHECK(ops->apply(impl, 1.0, (const double *)dx, 0.0, (double *)dy) == SPK_ERR_INVALID_ARG,
              "%s: apply() of a float instance accepted", ops->name);
        spk_err_clear(ex->err);
    }
    const float ab[][2] = {{1, 0}, {-2.5f, 0}, {1, 1}, {0.5f, -3}, {1, 0}};
    CHECK_OK(spk_csr_copy(A, &B, &e2), e2.msg);
    for (int t = 0; t < 5 && dx && dy; t++) {
        const float alpha = ab[t][0], beta = ab[t][1];
        if (t == 4 && !spmv_cmp_new_values(ops, ex, &o, &B, &impl)) break;
        for (int i = 0; i < m; i++) y[i] = beta == 0 ? NAN : (float)spmv_cmp_rnd();
        for (int i = 0; i < m; i++) ref[i] = beta == 0 ? 0 : (double)y[i];
        spk_csr_spmv(&B, alpha, xd, beta, ref);
        for (int i = 0; i < m; i++) {
            double s = 0;
            for (int k = B.rowptr[i]; k < B.rowptr[i + 1]; k++) s += fabs(B.val[k] * xd[B.colind[k]]);
            bound[i] = (B.rowptr[i + 1] - B.rowptr[i] + 5) * 0x1p-24 *
                       (fabs(alpha) * s + (beta == 0 ? 0 : fabs(beta * (double)y[i])));
        }
        if (m > 0) CHECK_OK(ex->ops->upload(ex, dy, y, (size_t)m * sizeof(float)), ex->err->msg);
        CHECK_OK(ops->apply_float(impl, alpha, dx, beta, dy), ex->err->msg);
        for (int i = 0; i < m; i++) y[i] = NAN;
        if (m > 0) CHECK_OK(ex->ops->download(ex, y, dy, (size_t)m * sizeof(float)), ex->err->msg);
        int bad = -1;
        double ratio = 0;
        for (int i = 0; i < m; i++) {
            const double e = isfinite(y[i]) ? fabs(y[i] - ref[i]) : INFINITY;
            if (e > bound[i] && bad < 0) bad = i;
            if (bound[i] > 0) ratio = fmax(ratio, e / bound[i]);
            else if (e > 0) ratio = INFINITY;
        }
        if (worst) *worst = fmax(*worst, ratio);
        CHECK(bad < 0, "%s on %s (float): alpha %g beta %g%s: row %d: %.9g, reference %.9g, bound %.3g", ops->name,
              what, alpha, beta, t == 4 ? " (new values)" : "", bad, bad >= 0 ? y[bad] : 0.0,
              bad >= 0 ? ref[bad] : 0.0, bad >= 0 ? bound[bad] : 0.0);
    }
    if (impl) {
        spk_spmv_stats s;
        ops->stats(impl, &s);
        CHECK(s.bytes >= (size_t)A->nnz * 4, "%s on %s (float): %zu bytes for %d nonzeros", ops->name, what,
              s.bytes, A->nnz);
        if (double_bytes >= 0)
            CHECK((long long)s.bytes <= double_bytes - 4LL * A->nnz, "%s on %s: %zu bytes in float, %lld in double",
                  ops->name, what, s.bytes, double_bytes);
        ops->destroy(impl);
    }
    if (dx) ex->ops->free(ex, dx);
    if (dy) ex->ops->free(ex, dy);
    spk_csr_free(&B);
    free(x);
    free(y);
    free(xd);
    free(ref);
    free(bound);
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
