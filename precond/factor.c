/* factor.c -- the working pattern, value loading, shift policy and sparse
 * triangular solves shared by the host ILU(0) and IC(0) (see factor.h). */
#include "factor.h"
#include "parfactor.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Check the options: the factorization's choice, sweeps and tolerance in
 * range; alpha in [shift_init, shift_max], 0 < shift_init. */
static int check_opts(const spk_precond_opts *o, const char *label, spk_err *err)
{
    if (o->factorization < SPK_FACTORIZATION_AUTO || o->factorization > SPK_FACTORIZATION_ITERATIVE)
        return spk_err_set(err, SPK_ERR_INVALID_ARG,
                           "%s: factorization must be auto (%d), exact (%d) or iterative (%d) (got %d)", label,
                           SPK_FACTORIZATION_AUTO, SPK_FACTORIZATION_EXACT, SPK_FACTORIZATION_ITERATIVE,
                           o->factorization);
    if (o->factor_sweeps < 1 || o->factor_sweeps > SPK_FACTOR_SWEEPS_MAX)
        return spk_err_set(err, SPK_ERR_INVALID_ARG, "%s: factor_sweeps must be in [1, %d] (got %d)", label,
                           SPK_FACTOR_SWEEPS_MAX, o->factor_sweeps);
    if (!(o->factor_tol >= 0 && o->factor_tol < 1))
        return spk_err_set(err, SPK_ERR_INVALID_ARG, "%s: factor_tol must be a number in [0, 1) (got %g)", label,
                           o->factor_tol);
    if (!o->allow_shift) return SPK_OK;
    if (!(o->shift_init > 0) || !isfinite(o->shift_init))
        return spk_err_set(err, SPK_ERR_INVALID_ARG,
                           "%s: shift_init must be a finite number > 0 (got %g)", label,
                           o->shift_init);
    if (!(o->shift_max >= o->shift_init) || !isfinite(o->shift_max))
        return spk_err_set(err, SPK_ERR_INVALID_ARG,
                           "%s: shift_max must be finite and >= shift_init = %g (got %g)", label,
                           o->shift_init, o->shift_max);
    return SPK_OK;
}

/* The shift options as a table's combination (each value's range is its key's). */
static int shift_check(const void *own, spk_err *err)
{
    return check_opts(own, "IC(0)/ILU(0)", err);
}

static const spk_opt_name factorization_names[] = {{"auto", SPK_FACTORIZATION_AUTO},
                                                   {"exact", SPK_FACTORIZATION_EXACT},
                                                   {"iterative", SPK_FACTORIZATION_ITERATIVE},
                                                   {NULL, 0}};

/* The keys of the shift policy (spk_factor_run below, devsweep.c) and of
 * the choice of factorization (parfactor.h). */
static const spk_opt shift_keys[] = {
    {.key = "shift", .alias = "allow-shift", SPK_PRECOND_KNOB(allow_shift), .type = SPK_OPT_FLAG, .def = 1,
     .help = "IC(0)/ILU(0): after a zero or negative pivot, retry on A + alpha*diag(A) (--no-shift: fail)"},
    {.key = "shift-init", SPK_PRECOND_KNOB(shift_init), .type = SPK_OPT_DOUBLE, .min = 0, .max = INFINITY,
     .flags = SPK_OPT_MIN_OPEN, .def = 1e-3, .meta = "A",
     .help = "IC(0)/ILU(0): the first alpha of the shift, doubled after each failure"},
    {.key = "shift-max", SPK_PRECOND_KNOB(shift_max), .type = SPK_OPT_DOUBLE, .min = 0, .max = INFINITY,
     .flags = SPK_OPT_MIN_OPEN, .def = 1.0, .meta = "A", .help = "IC(0)/ILU(0): the largest alpha tried"},
    {.key = "factorization", SPK_PRECOND_KNOB(factorization), .type = SPK_OPT_ENUM, .names = factorization_names,
     .def = SPK_FACTORIZATION_AUTO, .meta = "F",
     .help = "IC(0)/ILU(0): auto (the default: iterative where the GPU builds the factor, exact on the "
             "host), exact (row by row in dependency order), iterative (fixed-point sweeps over all "
             "entries at once)"},
    {.key = "factor-sweeps", SPK_PRECOND_KNOB(factor_sweeps), .type = SPK_OPT_INT, .min = 1,
     .max = SPK_FACTOR_SWEEPS_MAX, .def = SPK_FACTOR_SWEEPS_DEFAULT, .meta = "N",
     .help = "IC(0)/ILU(0) iterative: the most sweeps"},
    {.key = "factor-tol", SPK_PRECOND_KNOB(factor_tol), .type = SPK_OPT_DOUBLE, .min = 0, .max = 1,
     .flags = SPK_OPT_MAX_OPEN, .def = SPK_FACTOR_TOL_DEFAULT, .meta = "X",
     .help = "IC(0)/ILU(0) iterative: stop once the relative residual of A = LU on the pattern is at most "
             "this; still above it after factor-sweeps, the exact factorization runs instead (0: keep the "
             "sweeps' factor)"},
};
const spk_opt_table spk_precond_options = {"precond", shift_keys, 6, shift_check};

/* F = the pattern of the lower triangle of A (j <= i) with every diagonal
 * entry present: spk_csr_with_diagonal restricted to j <= i, built in one
 * pass so that IC(0) never holds a copy of the whole matrix.  Values are
 * left unset (spk_factor_load fills them). */
static int lower_with_diagonal(const spk_csr *A, spk_csr *F, spk_err *err)
{
    int n = A->nrows;
    long long nnz = 0;
    for (int i = 0; i < n; i++) {
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1] && A->colind[k] < i; k++) nnz++;
        nnz++;
    }
    if (nnz > INT_MAX)
        return spk_err_set(err, SPK_ERR_INVALID_MATRIX,
                           "the lower triangle with its diagonal has %lld entries, beyond the "
                           "32-bit index limit",
                           nnz);
    SPK_TRY(spk_csr_alloc(F, n, n, (int)nnz, err));
    int out = 0;
    for (int i = 0; i < n; i++) {
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1] && A->colind[k] < i; k++)
            F->colind[out++] = A->colind[k];
        F->colind[out++] = i;
        F->rowptr[i + 1] = out;
    }
    return SPK_OK;
}

/* Working pattern P of A (diagonal inserted; lower part only for IC(0)) and buffers. */
int spk_factor_setup(spk_exec *e, const spk_csr *A, const spk_precond_opts *o,
                     const spk_factor_kind *kind, spk_factor **out)
{
    int st = SPK_OK, added = 0;
    spk_factor *f = NULL;
    spk_precond_opts def;
    if (!out || !kind) return SPK_ERR_INVALID_ARG;
    *out = NULL;
    if (!e) return SPK_ERR_INVALID_ARG;
    spk_err *err = e->err;
    if (!A) return spk_err_set(err, SPK_ERR_INVALID_ARG, "%s: the matrix is NULL", kind->label);
    if (!kind->device && !kind->any_exec && !spk_exec_is_host(e))
        return spk_err_set(err, SPK_ERR_INVALID_ARG,
                           "%s: the host preconditioner was given the '%s' executor", kind->label,
                           e->ops ? e->ops->name : "?");
    if (!o) {
        spk_precond_opts_default(&def);
        o = &def;
    }
    SPK_TRY(check_opts(o, kind->label, err));
    if (A->nrows != A->ncols)
        return spk_err_set(err, SPK_ERR_INVALID_MATRIX,
                           "%s: the matrix is %d x %d; a square matrix is required", kind->label,
                           A->nrows, A->ncols);
    if (spk_csr_validate(A, 1, err)) return spk_err_prefix(err, "%s", kind->label);
    if (A->nnz > 0 && !A->val)
        return spk_err_set(err, SPK_ERR_INVALID_MATRIX, "%s: the matrix has no values",
                           kind->label);

    f = spk_calloc(1, sizeof *f, "factorization", err);
    if (!f) return SPK_ERR_NOMEM;
    f->kind = kind;
    f->exec = e;
    f->opts = *o;
    f->n = A->nrows;
    int n = f->n;

    if (kind->lower_only) {
        st = lower_with_diagonal(A, &f->F, err);
    } else {
        st = spk_csr_with_diagonal(A, &f->F, &added, err);
    }
    if (st) {
        spk_err_prefix(err, "%s", kind->label);
        goto cleanup;
    }
    f->diag = spk_malloc((size_t)n, sizeof(int), "diagonal positions", err);
    f->adiag = spk_calloc((size_t)n, sizeof(double), "diagonal of A", err);
    f->missing = spk_calloc((size_t)n, 1, "diagonal flags", err);
    f->idiag = spk_malloc((size_t)n, sizeof(double), "inverse pivots", err);
    f->mark = spk_malloc((size_t)n, sizeof(int), "factorization marker", err);
    if (!f->diag || !f->adiag || !f->missing || !f->idiag || !f->mark) {
        st = SPK_ERR_NOMEM;
        goto cleanup;
    }
    if (kind->lower_only)
        for (int i = 0; i < n; i++) f->diag[i] = f->F.rowptr[i + 1] - 1;
    else
        spk_csr_diag_pos(&f->F, f->diag);
    for (int i = 0; i < n; i++) f->mark[i] = -1;
    /* the host factorization is sequential either way, so auto takes the
     * exact one (its cost does not grow with the dependency chains, as on the GPU);
     * cuSPARSE's kinds factorize their own way */
    if (!kind->device && o->factorization == SPK_FACTORIZATION_ITERATIVE && (st = spk_parfactor_create(f)) != SPK_OK)
        goto cleanup;
    *out = f;
    f = NULL;
cleanup:
    spk_factor_free(f);
    return st;
}

/* P's values = A's (A already validated): the pattern walk of spk_factor_load. */
static int copy_values(spk_factor *f, const spk_csr *A)
{
    spk_err *err = f->exec->err;
    const char *lb = f->kind->label;
    const int n = f->n, *frp = f->F.rowptr, *fci = f->F.colind;
    for (int i = 0; i < n; i++) {
        int ka = A->rowptr[i], ea = A->rowptr[i + 1];
        f->missing[i] = 1;
        f->adiag[i] = 0;
        for (int kf = frp[i]; kf < frp[i + 1]; kf++) {
            int c = fci[kf];
            double v = 0.0;
            if (ka < ea && A->colind[ka] < c) break; /* an entry P lacks: reported below */
            if (ka < ea && A->colind[ka] == c) {
                v = A->val[ka++];
                if (!isfinite(v))
                    return spk_err_set(err, SPK_ERR_INVALID_MATRIX,
                                       "%s: the matrix has a non-finite value %g at row %d, "
                                       "column %d (0-based)",
                                       lb, v, i, c);
                if (c == i) {
                    f->missing[i] = 0;
                    f->adiag[i] = v;
                }
            } else if (c != i) {
                return spk_err_set(err, SPK_ERR_INVALID_MATRIX,
                                   "%s: row %d (0-based) of the matrix has no entry in column %d, "
                                   "which its pattern had at setup (refactoring needs the same "
                                   "pattern)",
                                   lb, i, c);
            }
            f->F.val[kf] = v;
        }
        /* what is left of A's row must lie outside P (the upper part, for IC(0)) */
        if (ka < ea && (!f->kind->lower_only || A->colind[ka] <= i))
            return spk_err_set(err, SPK_ERR_INVALID_MATRIX,
                               "%s: row %d (0-based) of the matrix has an entry in column %d, "
                               "which its pattern did not have at setup (refactoring needs the "
                               "same pattern)",
                               lb, i, A->colind[ka]);
    }
    return SPK_OK;
}

/* P's values = A's, 0 at inserted diagonal positions; adiag, missing = A's diagonal. */
int spk_factor_load(spk_factor *f, const spk_csr *A)
{
    if (!f) return SPK_ERR_INVALID_ARG;
    spk_err *err = f->exec->err;
    const char *lb = f->kind->label;
    int n = f->n;
    if (!A) return spk_err_set(err, SPK_ERR_INVALID_ARG, "%s: the matrix is NULL", lb);
    if (A->nrows != n || A->ncols != n)
        return spk_err_set(err, SPK_ERR_INVALID_MATRIX,
                           "%s: the new matrix is %d x %d, but the preconditioner was set up "
                           "for %d x %d",
                           lb, A->nrows, A->ncols, n, n);
    if (spk_csr_validate(A, 1, err)) return spk_err_prefix(err, "%s", lb);
    if (A->nnz > 0 && !A->val)
        return spk_err_set(err, SPK_ERR_INVALID_MATRIX, "%s: the matrix has no values", lb);
    return copy_values(f, A);
}

/* A phrase about a_ii of row i: "the diagonal entry a_ii is not stored (inserted as 0)". */
static void describe_diag(const spk_factor *f, int i, char *buf, size_t len)
{
    double d = f->adiag[i];
    if (f->missing[i])
        snprintf(buf, len, "the diagonal entry a_ii is not stored in A (inserted as 0)");
    else if (d == 0)
        snprintf(buf, len, "the diagonal entry a_ii is 0");
    else
        snprintf(buf, len, "the diagonal entry a_ii = %.6g", d);
}

/* Record the failure of the factorization in exec->err. */
int spk_factor_report(const spk_factor *f, const spk_factor_fail *first, int hopeless_first,
                  int tries, double alpha_last, const spk_factor_fail *last, int hopeless_last)
{
    const spk_factor_kind *k = f->kind;
    char head[256], tail[512], dd[128];
    const char *cannot = ", so shifting by alpha*diag(A) cannot help";
    if (first->overflow)
        snprintf(head, sizeof head,
                 "%s: the factorization overflowed (non-finite entries) at row %d (0-based), "
                 "%s = %.6g",
                 k->label, first->row, k->pivot_what, first->pivot);
    else
        snprintf(head, sizeof head, "%s: %s = %.6g at row %d (0-based)", k->label,
                 k->pivot_what, first->pivot, first->row);
    describe_diag(f, first->row, dd, sizeof dd);
    if (hopeless_first) {
        snprintf(tail, sizeof tail, "; %s%s%s", dd, cannot,
                 f->opts.allow_shift ? "" : " (and shifting is off: allow_shift = 0)");
    } else if (!f->opts.allow_shift) {
        int zero = f->adiag[first->row] == 0;
        snprintf(tail, sizeof tail, "; %s; shifting is off (allow_shift = 0), so no shifted "
                 "factorization of A + alpha*diag(A) was tried%s",
                 dd, zero ? " (and it could not raise a zero diagonal entry)" : "");
    } else {
        char d2[128];
        describe_diag(f, last->row, d2, sizeof d2);
        int zero = f->adiag[last->row] == 0;
        snprintf(tail, sizeof tail,
                 "; retried on A + alpha*diag(A) with alpha = %g doubling up to %g "
                 "(%d tr%s, shift_max = %g) and every one failed: at alpha = %g the %s is "
                 "%.6g at row %d%s, where %s%s",
                 f->opts.shift_init, alpha_last, tries, tries == 1 ? "y" : "ies",
                 f->opts.shift_max, alpha_last, k->pivot_what, last->pivot, last->row,
                 last->overflow ? " (the row overflowed)" : "", d2,
                 (hopeless_last || zero) ? cannot : "");
    }
    return spk_err_set(f->exec->err, SPK_ERR_ZERO_PIVOT, "%s%s", head, tail);
}

/* Factorize A, else A + alpha*diag(A) for alpha = shift_init * 2^k up to shift_max. */
int spk_factor_run(spk_factor *f, const spk_csr *A)
{
    spk_factor_fail first = {0, 0, 0}, last = {0, 0, 0};
    if (!f) return SPK_ERR_INVALID_ARG;
    const spk_factor_kind *k = f->kind;
    int (*numeric)(spk_factor *, double, spk_factor_fail *) = f->iter ? spk_parfactor_numeric : k->numeric;
    f->valid = 0;
    f->alpha = 0;
    f->info.iterative = f->iter != NULL;
    f->info.sweeps = 0;
    f->info.residual = 0;
    SPK_TRY(spk_factor_load(f, A));
    /* a build no longer wanted (opts.stop) ends before its factorization */
    if (f->opts.stop && f->opts.stop(f->opts.stop_arg)) return SPK_PRECOND_STOPPED;
    int r = numeric(f, 0.0, &first);
    if (r > 0) return r;
    if (r == 0) {
        f->valid = 1;
        f->stamp++;
        if (f->iter) spk_parfactor_keep(f);
        return SPK_OK;
    }
    int hopeless = k->hopeless(f, first.row);
    if (!f->opts.allow_shift || hopeless) return spk_factor_report(f, &first, hopeless, 0, 0, &first, 0);
    double alpha = f->opts.shift_init;
    int tries = 0;
    for (;;) {
        tries++;
        /* each try is a whole factorization: a build no longer wanted ends here */
        if (f->opts.stop && f->opts.stop(f->opts.stop_arg)) return SPK_PRECOND_STOPPED;
        SPK_TRY(copy_values(f, A));
        r = numeric(f, alpha, &last);
        if (r > 0) return r;
        if (r == 0) {
            f->alpha = alpha;
            f->valid = 1;
            f->stamp++;
            if (f->iter) spk_parfactor_keep(f);
            return SPK_OK;
        }
        hopeless = k->hopeless(f, last.row);
        if (hopeless || alpha >= f->opts.shift_max) break;
        alpha = 2 * alpha < f->opts.shift_max ? 2 * alpha : f->opts.shift_max;
    }
    return spk_factor_report(f, &first, 0, tries, alpha, &last, hopeless);
}

void spk_factor_free(spk_factor *f)
{
    if (!f) return;
    if (f->kind && f->kind->release) f->kind->release(f);
    spk_parfactor_free(f->iter);
    spk_factor_plan_free(f->plan);
    spk_csr_free(&f->F);
    free(f->adiag);
    free(f->diag);
    free(f->missing);
    free(f->idiag);
    free(f->mark);
    free(f);
}

int spk_factor_create(spk_exec *e, const spk_csr *A, const spk_precond_opts *o,
                      const spk_factor_kind *kind, void **impl)
{
    spk_factor *f = NULL;
    int st;
    if (!impl)
        return e ? spk_err_set(e->err, SPK_ERR_INVALID_ARG, "%s: impl is NULL", kind->label)
                 : SPK_ERR_INVALID_ARG;
    *impl = NULL;
    SPK_CHECK(st, spk_factor_setup(e, A, o, kind, &f));
    if (kind->prepare) SPK_CHECK(st, kind->prepare(f));
    st = spk_factor_run(f, A);
    /* the stop is for this build only: a refactor must not ask it */
    f->opts.stop = NULL;
    f->opts.stop_arg = NULL;
    f->opts.stop_dev = NULL;
    if (st) goto cleanup;
    *impl = f;
    f = NULL;
cleanup:
    spk_factor_free(f);
    return st;
}

int spk_factor_refactor(void *impl, const spk_csr *A)
{
    if (!impl) return SPK_ERR_INVALID_ARG;
    return spk_factor_run(impl, A);
}

void spk_factor_destroy(void *impl)
{
    spk_factor_free(impl);
}

double spk_factor_shift(const void *impl)
{
    const spk_factor *f = impl;
    return f ? f->alpha : 0.0;
}

int spk_factor_check_apply(const spk_factor *f, const double *r, const double *z)
{
    if (!f || !r || !z) return SPK_ERR_INVALID_ARG;
    if (!f->valid)
        return spk_err_set(f->exec->err, SPK_ERR_ZERO_PIVOT,
                           "%s: no valid factorization to apply (the last refactor failed)",
                           f->kind->label);
    return SPK_OK;
}

/* x = L^-1 b, row by row from the top (x may equal b). */
void spk_factor_lower_solve(int n, const int *beg, int boff, const int *end, int eoff,
                            const int *colind, const double *val, const double *idiag,
                            const double *b, double *x)
{
    if (idiag) {
        for (int i = 0; i < n; i++) {
            double s = b[i];
            for (int k = beg[i] + boff, e = end[i] + eoff; k < e; k++) s -= val[k] * x[colind[k]];
            x[i] = s * idiag[i];
        }
    } else {
        for (int i = 0; i < n; i++) {
            double s = b[i];
            for (int k = beg[i] + boff, e = end[i] + eoff; k < e; k++) s -= val[k] * x[colind[k]];
            x[i] = s;
        }
    }
}

/* x = U^-1 b, row by row from the bottom (x may equal b). */
void spk_factor_upper_solve(int n, const int *beg, int boff, const int *end, int eoff,
                            const int *colind, const double *val, const double *idiag,
                            const double *b, double *x)
{
    for (int i = n - 1; i >= 0; i--) {
        double s = b[i];
        for (int k = beg[i] + boff, e = end[i] + eoff; k < e; k++) s -= val[k] * x[colind[k]];
        x[i] = idiag ? s * idiag[i] : s;
    }
}

/* x = L^-T x, column-oriented on L's rows, from the bottom (the diagonal is last in each row). */
void spk_factor_lower_trans_solve(int n, const int *rowptr, const int *colind, const double *val,
                                  const double *idiag, double *x)
{
    for (int i = n - 1; i >= 0; i--) {
        const double xi = x[i] * idiag[i];
        x[i] = xi;
        for (int k = rowptr[i], e = rowptr[i + 1] - 1; k < e; k++) x[colind[k]] -= val[k] * xi;
    }
}

/* F and alpha of an ilu0/ic0 impl. */
int spk_factor_inspect(const void *impl, const spk_csr **F, double *alpha)
{
    const spk_factor *f = impl;
    if (!f) return SPK_ERR_INVALID_ARG;
    if (F) *F = &f->F;
    if (alpha) *alpha = f->alpha;
    return f->valid ? SPK_OK : SPK_ERR_ZERO_PIVOT;
}

/* How the factor of an ilu0/ic0 impl was computed. */
int spk_factor_info_of(const void *impl, spk_precond_factor_info *out)
{
    const spk_factor *f = impl;
    if (!f || !out) return SPK_ERR_INVALID_ARG;
    *out = f->info;
    return SPK_OK;
}
