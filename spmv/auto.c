/* auto.c -- the "auto" format: time short trials of a few candidate formats
 * on the matrix and keep the fastest.
 *
 * Candidates (spk_auto_candidates), by a cheap rule on the row lengths
 * (irregular: the longest row over 8 x the mean):
 *   up to 2M nonzeros, regular rows     csr-vector, csr-scalar, and ell from
 *                                       AUTO_MID_NNZ nonzeros on
 *   up to 2M nonzeros, irregular rows   csr-vector, hyb, coo, cusparse
 *   larger, regular rows                bell, csr-scalar (and hyb first when
 *                                       ELL's padding would be refused)
 *   larger, irregular rows              cusparse, and hyb when the long rows
 *                                       (> 8 x the mean) hold at most a fifth of
 *                                       the nonzeros; otherwise cusparse alone,
 *                                       untimed
 * This comes from `spk bench --formats all` on an H100 (docs/benchmarks.md):
 * below 2M nonzeros the matrix sits in the 50 MB L2 and csr-vector was the
 * fastest format on 59 of the 86 SuiteSparse matrices, csr-scalar on 6, COO
 * on 5 (irregular ones), the rest leading by no more than the timing noise
 * of 6-12 us products; ELL/HYB were 6-8 % ahead on 1.1M-nonzero 3D stencils; on
 * 100M-nonzero stencils blocked ELL was the fastest format every time (ELL
 * 1-5 % behind it, ahead by 2 % on a 28M-nonzero one; HYB as ELL) and
 * trying ELL too cost 8-22 ms of build; on power-law matrices cuSPARSE's
 * merge-based CSR beat HYB, COO and csr-vector by 2.5-19x.  Formats the
 * executor lacks are skipped; one that refuses the matrix is passed over.
 *
 * On the GPU the matrix is uploaded once and the candidates that have a
 * device builder (csr-*, ell, bell, hyb) are built from that copy, so a
 * candidate costs a device copy or kernel, not a host conversion and
 * another upload.  Each candidate is multiplied once to warm up and timed
 * once; when that product takes over AUTO_CUT x the best candidate so far
 * (and the best takes at least AUTO_CUT_MS) it is dropped there.  Otherwise
 * it is timed as `spk bench` times (batches of back-to-back products, CUDA
 * events) until 0.3 ms or 30 samples have passed, at least 3; the median
 * decides.  Only the best candidate so far is kept.
 *
 * The whole selection is the backend's setup time; stats() names the
 * choice, every trial and that cost. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/timing.h"
#include "format.h"
#include "spmv.h"
#ifdef SPK_HAVE_CUDA
#include "core/exec_cuda.h"
#endif

#define AUTO_SMALL_NNZ 2000000
#define AUTO_MID_NNZ 500000
/* a candidate whose first timed product is AUTO_CUT x the best so far is
 * dropped, when that best takes at least AUTO_CUT_MS (one event-timed
 * product is then exact to a few per cent) */
#define AUTO_CUT 1.5
#define AUTO_CUT_MS 0.05

int spk_auto_candidates(const spk_csr *A, const char **names, int max)
{
    int n = 0, maxlen = 0;
    for (int i = 0; i < A->nrows; i++)
        if (A->rowptr[i + 1] - A->rowptr[i] > maxlen) maxlen = A->rowptr[i + 1] - A->rowptr[i];
    const double mean = A->nrows ? (double)A->nnz / A->nrows : 0;
    const int irregular = maxlen > 8 * mean;
    static const char *const small_regular[] = {"csr-vector", "csr-scalar", NULL};
    static const char *const mid_regular[] = {"csr-vector", "csr-scalar", "ell", NULL};
    static const char *const small_irregular[] = {"csr-vector", "hyb", "coo", "cusparse", NULL};
    static const char *const large_regular[] = {"bell", "csr-scalar", NULL};
    static const char *const large_regular_padded[] = {"hyb", "bell", "csr-scalar", NULL};
    static const char *const large_few_long[] = {"cusparse", "hyb", NULL};
    static const char *const large_spread[] = {"cusparse", NULL};
    const char *const *list;
    if (A->nnz <= AUTO_SMALL_NNZ) {
        list = irregular ? small_irregular : A->nnz >= AUTO_MID_NNZ ? mid_regular : small_regular;
    } else if (!irregular) { /* would ELL be refused by the padding bound? */
        const double ell = (double)maxlen * A->nrows;
        list = ell > (double)SPK_PAD_FLOOR && ell > SPK_PAD_LIMIT * A->nnz ? large_regular_padded : large_regular;
    } else {
        long long in_long = 0;
        for (int i = 0; i < A->nrows; i++) {
            const int len = A->rowptr[i + 1] - A->rowptr[i];
            if (len > 8 * mean) in_long += len;
        }
        list = 5 * in_long <= A->nnz ? large_few_long : large_spread;
    }
    for (; *list && n < max; list++) names[n++] = *list;
    return n;
}

typedef struct auto_impl {
    spk_exec *e;
    const struct spk_spmv_ops *ops; /* the chosen format */
    void *impl;
    double setup;                   /* seconds: the whole selection */
    double ms;                      /* the choice's trial time per product */
    spk_spmv_opts o;                /* the options of create(), for a re-creation */
    char detail[512];
} auto_impl;

typedef struct trial {
    const struct spk_spmv_ops *ops;
    void *impl;
    const double *x;
    double *y;
} trial;

static int trial_apply(void *arg)
{
    trial *t = arg;
    return t->ops->apply(t->impl, 1.0, t->x, 0.0, t->y);
}

static void auto_destroy(void *impl)
{
    auto_impl *a = impl;
    if (!a) return;
    if (a->impl) a->ops->destroy(a->impl);
    free(a);
}

/* The selection among the candidates `given` (ngiven of them), or those of
 * spk_auto_candidates when given is NULL. */
static int auto_select(spk_exec *e, const spk_csr *A, const spk_spmv_opts *o, const struct spk_spmv_ops *const *given,
                       int ngiven, void **impl)
{
    double t0 = spk_time_now();
    *impl = NULL;
    auto_impl *a = calloc(1, sizeof *a);
    if (!a) return spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (format 'auto')");
    a->e = e;
    if (o) a->o = *o;
    const char *names[16];
    int nc = given ? (ngiven < 16 ? ngiven : 16) : spk_auto_candidates(A, names, 16), st = SPK_OK;
    for (int c = 0; given && c < nc; c++) names[c] = given[c]->name;
    double *x = NULL, *y = NULL;
    spk_timer *tm = NULL;
    char tried[400] = "";
    size_t used = 0;
    spk_csr dA = {0}; /* A on the device, for the candidates with a device builder */
    int uploaded = 0;
    double t_up = 0;
#ifdef SPK_HAVE_CUDA
    if (spk_exec_is_cuda(e) && nc > 1) {
        dA.nrows = A->nrows;
        dA.ncols = A->ncols;
        dA.nnz = A->nnz;
        SPK_CHECK(st, spk_cuda_alloc(e, ((size_t)A->nrows + 1) * sizeof(int), "the matrix for auto", (void **)&dA.rowptr));
        SPK_CHECK(st, spk_cuda_alloc(e, (size_t)A->nnz * sizeof(int), "the matrix for auto", (void **)&dA.colind));
        SPK_CHECK(st, spk_cuda_alloc(e, (size_t)A->nnz * sizeof(double), "the matrix for auto", (void **)&dA.val));
        SPK_CHECK(st, spk_cuda_upload(e, dA.rowptr, A->rowptr, ((size_t)A->nrows + 1) * sizeof(int), "the matrix"));
        SPK_CHECK(st, spk_cuda_upload(e, dA.colind, A->colind, (size_t)A->nnz * sizeof(int), "the matrix"));
        SPK_CHECK(st, spk_cuda_upload(e, dA.val, A->val, (size_t)A->nnz * sizeof(double), "the matrix"));
        uploaded = 1;
        t_up = spk_time_now() - t0;
    }
#endif
    SPK_CHECK(st, spk_exec_alloc_vec(e, A->ncols, &x));
    SPK_CHECK(st, spk_exec_alloc_vec(e, A->nrows, &y));
    SPK_CHECK(st, e->ops->fill(e, A->ncols, 1.0, x));
    SPK_CHECK(st, spk_timer_create(e, 0, &tm));
    for (int c = 0; c < nc; c++) {
        const struct spk_spmv_ops *ops = given ? given[c] : NULL;
        spk_err keep = *e->err;
        if (given ? strcmp(ops->exec, e->ops->name) != 0
                  : spk_spmv_find(names[c], e, &ops, e->err) != SPK_OK) { /* not on this executor */
            *e->err = keep;
            continue;
        }
        trial t = {ops, NULL, x, y};
        double tb = spk_time_now();
        int cs = uploaded && ops->create_dev ? ops->create_dev(e, A, &dA, o, &t.impl) : ops->create(e, A, o, &t.impl);
        if (cs == SPK_ERR_UNSUPPORTED) { /* refused (padding bound): pass over it */
            *e->err = keep;
            int w = snprintf(tried + used, sizeof tried - used, "%s%s refused", used ? ", " : "", names[c]);
            if (w > 0 && (size_t)w < sizeof tried - used) used += (size_t)w;
            continue;
        }
        SPK_CHECK(st, cs);
        SPK_CHECK(st, e->ops->sync(e));
        tb = spk_time_now() - tb;
        double med = 0;
        int calls = 0;
        if (nc == 1) { /* nothing to choose between: no trial */
            a->ops = ops;
            a->impl = t.impl;
            a->ms = 0;
            snprintf(tried, sizeof tried, "%s (the only candidate, not timed)", names[c]);
            break;
        }
        /* one warm-up and one timed product first: a candidate already
         * AUTO_CUT x slower than the best so far, on products long enough
         * for one timing to be trusted, is dropped without more trials */
        double first = 0;
        st = trial_apply(&t);
        if (!st) st = spk_timer_call(tm, trial_apply, &t, 0, 1, &first);
        if (!st && a->impl && a->ms >= AUTO_CUT_MS && first * 1e3 > AUTO_CUT * a->ms) {
            int w = snprintf(tried + used, sizeof tried - used, "%s%s %.4f (one product; built in %.1f)",
                             used ? ", " : "", names[c], first * 1e3, tb * 1e3);
            if (w > 0 && (size_t)w < sizeof tried - used) used += (size_t)w;
            ops->destroy(t.impl);
            continue;
        }
        if (!st) st = spk_timer_median(tm, trial_apply, &t, 0, 1, 3, 30, 3e-4, &med, &calls, NULL);
        if (st) {
            ops->destroy(t.impl);
            goto cleanup;
        }
        int w = snprintf(tried + used, sizeof tried - used, "%s%s %.4f (built in %.1f)", used ? ", " : "", names[c],
                         med * 1e3, tb * 1e3);
        if (w > 0 && (size_t)w < sizeof tried - used) used += (size_t)w;
        if (!a->impl || med * 1e3 < a->ms) {
            if (a->impl) a->ops->destroy(a->impl);
            a->ops = ops;
            a->impl = t.impl;
            a->ms = med * 1e3;
        } else {
            ops->destroy(t.impl);
        }
    }
    if (!a->impl) {
        st = spk_err_set(e->err, SPK_ERR_UNSUPPORTED, "format 'auto': no candidate format accepted the matrix");
        goto cleanup;
    }
    a->setup = spk_time_now() - t0;
    snprintf(a->detail, sizeof a->detail,
             "auto chose %s (%.4f ms per product); trials in ms per product (build ms): %s; upload %.1f ms, "
             "selection %.2f ms",
             a->ops->name, a->ms, tried, t_up * 1e3, a->setup * 1e3);
    *impl = a;
cleanup:
    spk_timer_destroy(tm);
#ifdef SPK_HAVE_CUDA
    if (uploaded || dA.rowptr || dA.colind || dA.val) {
        cudaFree(dA.rowptr);
        cudaFree(dA.colind);
        cudaFree(dA.val);
    }
#endif
    if (x) e->ops->free(e, x);
    if (y) e->ops->free(e, y);
    if (st) auto_destroy(a);
    return st;
}

static int auto_create(spk_exec *e, const spk_csr *A, const spk_spmv_opts *o, void **impl)
{
    return auto_select(e, A, o, NULL, 0, impl);
}

int spk_auto_create_with(spk_exec *e, const spk_csr *A, const spk_spmv_opts *o,
                         const struct spk_spmv_ops *const *cands, int n, void **impl)
{
    if (!e || !A || !cands || n < 1 || !impl)
        return e ? spk_err_set(e->err, SPK_ERR_INVALID_ARG, "spk_auto_create_with: bad arguments")
                 : SPK_ERR_INVALID_ARG;
    return auto_select(e, A, o, cands, n, impl);
}

static int auto_apply(void *impl, double alpha, const double *x, double beta, double *y)
{
    auto_impl *a = impl;
    return a->ops->apply(a->impl, alpha, x, beta, y);
}

static int auto_update(void *impl, const spk_csr *A)
{
    auto_impl *a = impl;
    if (a->ops->update) return a->ops->update(a->impl, A);
    a->ops->destroy(a->impl); /* the same format again, no new selection */
    a->impl = NULL;
    return a->ops->create(a->e, A, &a->o, &a->impl);
}

static void auto_stats(const void *impl, spk_spmv_stats *s)
{
    const auto_impl *a = impl;
    a->ops->stats(a->impl, s);
    s->setup_seconds = a->setup;
    snprintf(s->detail, sizeof s->detail, "%s", a->detail);
}

const char *spk_auto_choice(const void *impl)
{
    return ((const auto_impl *)impl)->ops->name;
}

#define AUTO_SUMMARY "the fastest of a few candidate formats, chosen by timing short trials"
const struct spk_spmv_ops spk_spmv_auto_host = {"auto", "host", AUTO_SUMMARY, auto_create, auto_apply,
                                                auto_update, auto_destroy, auto_stats, NULL};
#ifdef SPK_HAVE_CUDA
const struct spk_spmv_ops spk_spmv_auto_cuda = {"auto", "cuda", AUTO_SUMMARY, auto_create, auto_apply,
                                                auto_update, auto_destroy, auto_stats, NULL};
#endif
