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
#include <stdarg.h>
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
 * dropped, when that best takes at least AUTO_CUT_MS (long enough for one
 * event-timed product to be trusted) */
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

/* One selection in progress: the candidates, the device copy of A they
 * are built from, the trials' vectors and timer, and the log of what was
 * tried (for stats()). */
typedef struct selection {
    spk_exec *e;
    const spk_csr *A;
    const spk_spmv_opts *o;
    const struct spk_spmv_ops *const *given; /* the caller's candidates, or NULL: the rule's */
    const char *names[16];
    int nc, timed;
    spk_csr dA;   /* A on the device, for the candidates with a device builder */
    int uploaded; /* dA holds A */
    double t_up;  /* seconds of auto's own upload (0: none) */
    double *x, *y;
    spk_timer *tm;
    char tried[400];
    size_t used;
} selection;

/* Append to the log of what was tried (cut short when it is full). */
static void note(selection *s, const char *fmt, ...) SPK_PRINTF(2, 3);
static void note(selection *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(s->tried + s->used, sizeof s->tried - s->used, fmt, ap);
    va_end(ap);
    if (w > 0 && (size_t)w < sizeof s->tried - s->used) s->used += (size_t)w;
}

/* The candidates: the caller's (at most 16), or those of the rule. */
static void list_candidates(selection *s, int ngiven)
{
    s->nc = s->given ? (ngiven < 16 ? ngiven : 16) : spk_auto_candidates(s->A, s->names, 16, &s->timed);
    for (int c = 0; s->given && c < s->nc; c++) s->names[c] = s->given[c]->name;
    if (s->nc == 1) s->timed = 0; /* nothing to choose between */
}

#ifdef SPK_HAVE_CUDA
/* The device copy of A the candidates are built from: the caller's (ext,
 * not freed here), else one upload, always when trials will build several,
 * else when the rule's first candidate has a device builder (a kernel
 * instead of a host conversion).  cuSPARSE's device build only copies the
 * CSR arrays, so it is left to upload them from the host itself. */
static int upload_once(selection *s, const spk_csr *ext, double t0)
{
    spk_exec *e = s->e;
    const struct spk_spmv_ops *first = s->given ? s->given[0] : NULL;
    if (!s->given && s->nc > 0) {
        spk_err keep = *e->err;
        if (spk_spmv_find(s->names[0], e, &first, e->err) != SPK_OK) first = NULL;
        *e->err = keep;
    }
    if (ext && spk_exec_is_cuda(e)) {
        s->dA = *ext;
        s->uploaded = 1;
    } else if (spk_exec_is_cuda(e) && s->nc > 0 &&
               (s->timed || (first && first->create_dev && strcmp(first->name, "cusparse") != 0))) {
        SPK_TRY(spk_cuda_csr_upload(e, s->A, &s->dA, "the matrix for auto"));
        SPK_TRY(e->ops->sync(e));
        s->uploaded = 1;
        s->t_up = spk_time_now() - t0;
    }
    return SPK_OK;
}
#endif

/* The trials' vectors, x = 1, and their timer. */
static int prepare_trials(selection *s)
{
    spk_exec *e = s->e;
    SPK_TRY(spk_exec_alloc_vec(e, s->A->ncols, &s->x));
    SPK_TRY(spk_exec_alloc_vec(e, s->A->nrows, &s->y));
    /* in single precision each double slot holds two floats 1.0f */
    double one = 1.0;
    if (s->o && s->o->precision == SPK_SPMV_FLOAT) {
        const float ones[2] = {1.0f, 1.0f};
        memcpy(&one, ones, sizeof one);
    }
    SPK_TRY(e->ops->fill(e, s->A->ncols, one, s->x));
    return spk_timer_create(e, 0, &s->tm);
}

/* Candidate c built into t->impl in *built seconds; *skip when it is passed
 * over (not on this executor, or refused by its padding bound). */
static int build_candidate(selection *s, int c, trial *t, double *built, int *skip)
{
    spk_exec *e = s->e;
    const struct spk_spmv_ops *ops = s->given ? s->given[c] : NULL;
    spk_err keep = *e->err;
    *skip = 1;
    if (s->given ? strcmp(ops->exec, e->ops->name) != 0
                 : spk_spmv_find(s->names[c], e, &ops, e->err) != SPK_OK) { /* not on this executor */
        *e->err = keep;
        return SPK_OK;
    }
    *t = (trial){ops, NULL, s->x, s->y, s->o && s->o->precision == SPK_SPMV_FLOAT};
    double tb = spk_time_now();
    int cs = s->uploaded && ops->create_dev ? ops->create_dev(e, s->A, &s->dA, s->o, &t->impl)
                                            : ops->create(e, s->A, s->o, &t->impl);
    if (cs == SPK_ERR_UNSUPPORTED) { /* refused (padding bound): pass over it */
        *e->err = keep;
        note(s, "%s%s refused", s->used ? ", " : "", s->names[c]);
        return SPK_OK;
    }
    SPK_TRY(cs);
    SPK_TRY(e->ops->sync(e));
    *built = spk_time_now() - tb;
    *skip = 0;
    return SPK_OK;
}

/* Time candidate c (built as t) and keep the faster of it and a's choice so
 * far.  One warm-up and one timed product come first: a candidate already
 * AUTO_CUT x slower than the best, on products long enough for one timing
 * to be trusted, is dropped without more trials; else the median decides. */
static int time_candidate(selection *s, auto_impl *a, int c, trial *t, double built)
{
    double first = 0, med = 0;
    int calls = 0, st = trial_apply(t);
    if (!st) st = spk_timer_call(s->tm, trial_apply, t, 0, 1, &first);
    if (!st && a->impl && a->ms >= AUTO_CUT_MS && first * 1e3 > AUTO_CUT * a->ms) {
        note(s, "%s%s %.4f (one product; built in %.1f)", s->used ? ", " : "", s->names[c], first * 1e3,
             built * 1e3);
        t->ops->destroy(t->impl);
        return SPK_OK;
    }
    if (!st) st = spk_timer_median(s->tm, trial_apply, t, 0, 1, 3, 30, 3e-4, &med, &calls, NULL);
    if (st) {
        t->ops->destroy(t->impl);
        return st;
    }
    note(s, "%s%s %.4f (built in %.1f)", s->used ? ", " : "", s->names[c], med * 1e3, built * 1e3);
    if (!a->impl || med * 1e3 < a->ms) {
        if (a->impl) a->ops->destroy(a->impl);
        a->ops = t->ops;
        a->impl = t->impl;
        a->ms = med * 1e3;
    } else {
        t->ops->destroy(t->impl);
    }
    return SPK_OK;
}

/* The candidates in turn: untimed, the first one built is the choice;
 * timed, the fastest. */
static int try_candidates(selection *s, auto_impl *a)
{
    for (int c = 0; c < s->nc; c++) {
        trial t = {0};
        double built = 0;
        int skip;
        SPK_TRY(build_candidate(s, c, &t, &built, &skip));
        if (skip) continue;
        if (!s->timed) { /* the rule's choice: no trial */
            a->ops = t.ops;
            a->impl = t.impl;
            a->ms = 0;
            note(s, "%s%s (%s, not timed; built in %.1f)", s->used ? ", " : "", s->names[c],
                 s->nc == 1 ? "the only candidate" : "the rule's choice", built * 1e3);
            return SPK_OK;
        }
        SPK_TRY(time_candidate(s, a, c, &t, built));
    }
    return SPK_OK;
}

/* The selection among the candidates `given` (ngiven of them; timed: by
 * trials, else the first accepted), or those of spk_auto_candidates when
 * given is NULL; ext: the caller's device copy of A, or NULL. */
static int auto_select(spk_exec *e, const spk_csr *A, const spk_spmv_opts *o, const struct spk_spmv_ops *const *given,
                       int ngiven, int given_timed, const spk_csr *ext, void **impl)
{
    double t0 = spk_time_now();
    *impl = NULL;
    auto_impl *a = calloc(1, sizeof *a);
    if (!a) return spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (format 'auto')");
    a->e = e;
    if (o) a->o = *o;
    selection s;
    memset(&s, 0, sizeof s);
    s.e = e;
    s.A = A;
    s.o = o;
    s.given = given;
    s.timed = given_timed;
    list_candidates(&s, ngiven);
    int st = SPK_OK;
#ifdef SPK_HAVE_CUDA
    SPK_CHECK(st, upload_once(&s, ext, t0));
#endif
    if (s.timed) SPK_CHECK(st, prepare_trials(&s));
    SPK_CHECK(st, try_candidates(&s, a));
    if (!a->impl) {
        st = spk_err_set(e->err, SPK_ERR_UNSUPPORTED, "format 'auto': no candidate format accepted the matrix");
        goto cleanup;
    }
    a->setup = spk_time_now() - t0;
    a->upload = s.t_up;
    if (s.timed)
        snprintf(a->detail, sizeof a->detail,
                 "auto chose %s (%.4f ms per product); trials in ms per product (build ms): %s; upload %.1f ms, "
                 "selection %.2f ms",
                 a->ops->name, a->ms, s.tried, s.t_up * 1e3, a->setup * 1e3);
    else
        snprintf(a->detail, sizeof a->detail, "auto chose %s (by the rule on the row lengths): %s; upload %.1f ms, "
                 "selection %.2f ms",
                 a->ops->name, s.tried, s.t_up * 1e3, a->setup * 1e3);
    *impl = a;
cleanup:
    spk_timer_destroy(s.tm);
#ifdef SPK_HAVE_CUDA
    if (!ext) spk_cuda_csr_free(&s.dA);
#endif
    if (s.x) e->ops->free(e, s.x);
    if (s.y) e->ops->free(e, s.y);
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
