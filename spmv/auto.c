/* auto.c -- the "auto" format: the fastest format for a matrix, by a cheap
 * rule on its row lengths and, where the rule leaves more than one
 * candidate, by timing short trials of them.
 *
 * Candidates (spk_auto_candidates; irregular: the longest row over 8 x the
 * mean; "ELL-shaped": rows padded to the longest keep at least 90 % of the
 * slots busy, the mean row is at most 32 long and there are at least 32768
 * rows; csr-vector's steps: the longest row over the lanes csr-vector gives
 * a row, rounded up):
 *   up to 2M nonzeros, regular rows     ell when ELL-shaped from AUTO_MID_NNZ
 *                                       nonzeros on, otherwise csr-vector
 *   up to 2M nonzeros, irregular rows   csr-vector up to AUTO_VECTOR_STEPS
 *                                       steps, coo beyond them while the
 *                                       longest row has at most AUTO_COO_ROW
 *                                       entries, cusparse beyond that
 *   larger, regular rows                bell (hyb, bell and csr-scalar, timed,
 *                                       when ELL's padding would be refused)
 *   larger, irregular rows              cusparse
 * Only the large regular matrices that ELL's padding bound would refuse
 * are timed; every other rule names one format (and the formats that take
 * its place should it refuse the matrix).
 *
 * Why: below AUTO_SMALL_NNZ the matrix stays in the GPU's L2; csr-vector is
 * then close to the fastest on regular rows (ELL on ELL-shaped ones), and
 * on irregular rows its steps tell it, COO and cuSPARSE apart (its slowest
 * warp walks the longest row).  Above, blocked ELL leads on regular rows
 * and cuSPARSE's merge-based CSR on irregular ones.  Trials would cost more
 * than a solve's products save, hence one format wherever the rule can
 * name one.  The runs behind the thresholds: docs/benchmarks.md#the-auto-format.
 * Formats the executor lacks are skipped; one that refuses the matrix is
 * passed over (the next candidate of the rule is then tried).
 *
 * On the GPU the matrix is uploaded once and the candidates that have a
 * device builder (csr-*, ell, bell, hyb) are built from that copy, so a
 * candidate costs a device copy or kernel, not a host conversion and
 * another upload; a single candidate with a builder is made that way too
 * (cuSPARSE, which only copies CSR, is then made from the host matrix).
 * Each timed candidate is multiplied once to warm up and timed once; when
 * that product takes over AUTO_CUT x the best candidate so far (and the
 * best takes at least AUTO_CUT_MS) it is dropped there.  Otherwise it is
 * timed as `spk bench` times (batches of back-to-back products, CUDA
 * events) until 0.3 ms or 30 samples have passed, at least 3; the median
 * decides.  Only the best candidate so far is kept.
 *
 * The whole selection is the backend's setup time; stats() names the
 * choice, every trial, that cost and the upload inside it (which the
 * cusparse format pays as well). */
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
/* irregular rows below AUTO_SMALL_NNZ: csr-vector up to this many steps of
 * its lanes along the longest row, COO beyond them up to a longest row of
 * AUTO_COO_ROW entries, cuSPARSE beyond that */
#define AUTO_VECTOR_STEPS 32
#define AUTO_COO_ROW 8192
/* a candidate whose first timed product is AUTO_CUT x the best so far is
 * dropped, when that best takes at least AUTO_CUT_MS (one event-timed
 * product is then exact to a few per cent) */
#define AUTO_CUT 1.5
#define AUTO_CUT_MS 0.05

int spk_auto_candidates(const spk_csr *A, const char **names, int max, int *timed)
{
    int n = 0, maxlen = 0;
    for (int i = 0; i < A->nrows; i++)
        if (A->rowptr[i + 1] - A->rowptr[i] > maxlen) maxlen = A->rowptr[i + 1] - A->rowptr[i];
    const double mean = A->nrows ? (double)A->nnz / A->nrows : 0;
    const int irregular = maxlen > 8 * mean;
    /* rows padded to the longest keep >= 90 % of ELL's slots busy, short rows, many of them */
    const int ell_shaped = maxlen > 0 && A->nnz >= 0.9 * (double)maxlen * A->nrows && mean <= 32 &&
                           A->nrows >= 32768;
    const int lanes = spk_format_lanes(A), steps = (maxlen + lanes - 1) / lanes;
    static const char *const small_regular[] = {"csr-vector", NULL};
    static const char *const mid_stencil[] = {"ell", "csr-vector", NULL};
    static const char *const small_balanced[] = {"csr-vector", "coo", "cusparse", NULL};
    static const char *const small_long_rows[] = {"coo", "cusparse", NULL};
    static const char *const small_very_long_rows[] = {"cusparse", "coo", NULL};
    static const char *const large_regular[] = {"bell", "csr-scalar", NULL};
    static const char *const large_regular_padded[] = {"hyb", "bell", "csr-scalar", NULL};
    static const char *const large_irregular[] = {"cusparse", "coo", NULL};
    const char *const *list;
    int trials = 0; /* 0: the first candidate the executor has and accepts is the choice */
    if (A->nnz <= AUTO_SMALL_NNZ) {
        if (!irregular)
            list = A->nnz >= AUTO_MID_NNZ && ell_shaped ? mid_stencil : small_regular;
        else
            list = steps <= AUTO_VECTOR_STEPS ? small_balanced
                   : maxlen <= AUTO_COO_ROW   ? small_long_rows
                                              : small_very_long_rows;
    } else if (!irregular) { /* would ELL be refused by the padding bound? */
        const double ell = (double)maxlen * A->nrows;
        const int padded = ell > (double)SPK_PAD_FLOOR && ell > SPK_PAD_LIMIT * A->nnz;
        list = padded ? large_regular_padded : large_regular;
        trials = padded;
    } else {
        list = large_irregular;
    }
    for (; *list && n < max; list++) names[n++] = *list;
    if (timed) *timed = trials && n > 1;
    return n;
}

typedef struct auto_impl {
    spk_exec *e;
    const struct spk_spmv_ops *ops; /* the chosen format */
    void *impl;
    double setup;                   /* seconds: the whole selection */
    double upload;                  /* seconds of it: the one upload of A (0: none) */
    double ms;                      /* the choice's trial time per product */
    spk_spmv_opts o;                /* the options of create(), for a re-creation */
    char detail[512];
} auto_impl;

typedef struct trial {
    const struct spk_spmv_ops *ops;
    void *impl;
    const double *x;
    double *y;
    int single; /* the candidates in single precision: x and y hold floats */
} trial;

static int trial_apply(void *arg)
{
    trial *t = arg;
    if (t->single) return t->ops->apply_float(t->impl, 1.0f, (const float *)t->x, 0.0f, (float *)t->y);
    return t->ops->apply(t->impl, 1.0, t->x, 0.0, t->y);
}

static void auto_destroy(void *impl)
{
    auto_impl *a = impl;
    if (!a) return;
    if (a->impl) a->ops->destroy(a->impl);
    free(a);
}

/* The selection among the candidates `given` (ngiven of them; timed: by
 * trials, else the first accepted), or those of spk_auto_candidates when
 * given is NULL. */
static int auto_select(spk_exec *e, const spk_csr *A, const spk_spmv_opts *o, const struct spk_spmv_ops *const *given,
                       int ngiven, int given_timed, const spk_csr *ext, void **impl)
{
    double t0 = spk_time_now();
    *impl = NULL;
    auto_impl *a = calloc(1, sizeof *a);
    if (!a) return spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (format 'auto')");
    a->e = e;
    if (o) a->o = *o;
    const char *names[16];
    int timed = given_timed;
    int nc = given ? (ngiven < 16 ? ngiven : 16) : spk_auto_candidates(A, names, 16, &timed), st = SPK_OK;
    for (int c = 0; given && c < nc; c++) names[c] = given[c]->name;
    if (nc == 1) timed = 0; /* nothing to choose between */
    double *x = NULL, *y = NULL;
    spk_timer *tm = NULL;
    char tried[400] = "";
    size_t used = 0;
    spk_csr dA = {0}; /* A on the device, for the candidates with a device builder */
    int uploaded = 0;
    double t_up = 0;
#ifdef SPK_HAVE_CUDA
    /* one upload, from which the candidates are built on the device: always
     * when trials will build several, else when the rule's first candidate
     * has a device builder (a kernel instead of a host conversion) */
    const struct spk_spmv_ops *first_ops = given ? given[0] : NULL;
    if (!given && nc > 0) {
        spk_err keep = *e->err;
        if (spk_spmv_find(names[0], e, &first_ops, e->err) != SPK_OK) first_ops = NULL;
        *e->err = keep;
    }
    if (ext && spk_exec_is_cuda(e)) { /* the caller's device copy: no upload, not freed here */
        dA = *ext;
        uploaded = 1;
    } else if (spk_exec_is_cuda(e) && nc > 0 &&
               (timed || (first_ops && first_ops->create_dev && strcmp(first_ops->name, "cusparse") != 0))) {
        /* (cuSPARSE's device build only copies the CSR arrays: from the host it uploads them once) */
        SPK_CHECK(st, spk_cuda_csr_upload(e, A, &dA, "the matrix for auto"));
        SPK_CHECK(st, e->ops->sync(e));
        uploaded = 1;
        t_up = spk_time_now() - t0;
    }
#endif
    if (timed) { /* the trials' vectors and timer */
        SPK_CHECK(st, spk_exec_alloc_vec(e, A->ncols, &x));
        SPK_CHECK(st, spk_exec_alloc_vec(e, A->nrows, &y));
        /* x = 1 (in single precision each double slot holds two floats 1.0f) */
        double one = 1.0;
        if (o && o->precision == SPK_SPMV_FLOAT) {
            const float ones[2] = {1.0f, 1.0f};
            memcpy(&one, ones, sizeof one);
        }
        SPK_CHECK(st, e->ops->fill(e, A->ncols, one, x));
        SPK_CHECK(st, spk_timer_create(e, 0, &tm));
    }
    for (int c = 0; c < nc; c++) {
        const struct spk_spmv_ops *ops = given ? given[c] : NULL;
        spk_err keep = *e->err;
        if (given ? strcmp(ops->exec, e->ops->name) != 0
                  : spk_spmv_find(names[c], e, &ops, e->err) != SPK_OK) { /* not on this executor */
            *e->err = keep;
            continue;
        }
        trial t = {ops, NULL, x, y, o && o->precision == SPK_SPMV_FLOAT};
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
        if (!timed) { /* the rule's choice: no trial */
            a->ops = ops;
            a->impl = t.impl;
            a->ms = 0;
            snprintf(tried + used, sizeof tried - used, "%s%s (%s, not timed; built in %.1f)", used ? ", " : "",
                     names[c], nc == 1 ? "the only candidate" : "the rule's choice", tb * 1e3);
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
    a->upload = t_up;
    if (timed)
        snprintf(a->detail, sizeof a->detail,
                 "auto chose %s (%.4f ms per product); trials in ms per product (build ms): %s; upload %.1f ms, "
                 "selection %.2f ms",
                 a->ops->name, a->ms, tried, t_up * 1e3, a->setup * 1e3);
    else
        snprintf(a->detail, sizeof a->detail, "auto chose %s (by the rule on the row lengths): %s; upload %.1f ms, "
                 "selection %.2f ms",
                 a->ops->name, tried, t_up * 1e3, a->setup * 1e3);
    *impl = a;
cleanup:
    spk_timer_destroy(tm);
#ifdef SPK_HAVE_CUDA
    if (!ext) spk_cuda_csr_free(&dA);
#endif
    if (x) e->ops->free(e, x);
    if (y) e->ops->free(e, y);
    if (st) auto_destroy(a);
    return st;
}

static int auto_create(spk_exec *e, const spk_csr *A, const spk_spmv_opts *o, void **impl)
{
    return auto_select(e, A, o, NULL, 0, 1, NULL, impl);
}

#ifdef SPK_HAVE_CUDA
/* From the caller's device copy of A (the solver's): the candidates are
 * built from it, with no upload of their own. */
static int auto_create_dev(spk_exec *e, const spk_csr *A, const spk_csr *dA, const spk_spmv_opts *o, void **impl)
{
    return auto_select(e, A, o, NULL, 0, 1, dA, impl);
}
#endif

int spk_auto_create_with(spk_exec *e, const spk_csr *A, const spk_spmv_opts *o,
                         const struct spk_spmv_ops *const *cands, int n, int timed, void **impl)
{
    if (!e || !A || !cands || n < 1 || !impl)
        return e ? spk_err_set(e->err, SPK_ERR_INVALID_ARG, "spk_auto_create_with: bad arguments")
                 : SPK_ERR_INVALID_ARG;
    return auto_select(e, A, o, cands, n, timed, NULL, impl);
}

static int auto_apply(void *impl, double alpha, const double *x, double beta, double *y)
{
    auto_impl *a = impl;
    return a->ops->apply(a->impl, alpha, x, beta, y);
}

static int auto_apply_float(void *impl, float alpha, const float *x, float beta, float *y)
{
    auto_impl *a = impl;
    return a->ops->apply_float(a->impl, alpha, x, beta, y);
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
    s->upload_seconds += a->upload; /* the choice's own upload (made from the host) or auto's */
    snprintf(s->detail, sizeof s->detail, "%s", a->detail);
}

const char *spk_auto_choice(const void *impl)
{
    return ((const auto_impl *)impl)->ops->name;
}

#define AUTO_SUMMARY "the fastest format for the matrix: a rule on its row lengths, then timed trials where the rule leaves several"
const struct spk_spmv_ops spk_spmv_auto_host = {"auto", "host", AUTO_SUMMARY, auto_create, auto_apply,
                                                auto_update, auto_destroy, auto_stats, NULL, auto_apply_float};
#ifdef SPK_HAVE_CUDA
const struct spk_spmv_ops spk_spmv_auto_cuda = {"auto", "cuda", AUTO_SUMMARY, auto_create, auto_apply,
                                                auto_update, auto_destroy, auto_stats, auto_create_dev,
                                                auto_apply_float};
#endif
