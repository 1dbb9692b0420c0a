/* zsolve.c -- the solver of a complex matrix (include/spk.h, "complex
 * systems"): the method and preconditioner resolved from the matrix's
 * symmetry, the product and factor made on the context's executor, and
 * spk_solve_complex. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver/api_impl.h"
#include "solver/zkrylov.h"

struct spk_zsolver {
    spk_zspmv *A;
    spk_zprecond *M;
    spk_zmethod method;
    double *b, *x;     /* executor copies (NULL on the host: the caller's arrays) */
    double *hist;      /* keep_history: maxit + 1 norms */
    unsigned version;  /* the matrix's values the setup was made for */
};

/* What the choices read of the diagonal: every entry stored, real and
 * positive (*posreal); every entry stored and nonzero, and not all equal
 * (*varies: where they are, Jacobi only scales). */
static int diagonal(const spk_zcsr *Z, int *posreal, int *varies, spk_err *e)
{
    int *dg = NULL;
    SPK_TRY(spk_zcsr_diag_pos(Z, &dg, e));
    int pr = Z->nrows > 0, nz = 1, vr = 0;
    double d0[2] = {0, 0};
    for (int i = 0; i < Z->nrows && nz; i++) { /* a missing or zero entry settles both */
        nz = dg[i] >= 0 && (Z->val[2 * (size_t)dg[i]] != 0 || Z->val[2 * (size_t)dg[i] + 1] != 0);
        if (!nz) break;
        const double re = Z->val[2 * (size_t)dg[i]], im = Z->val[2 * (size_t)dg[i] + 1];
        if (i == 0) d0[0] = re, d0[1] = im;
        pr &= re > 0 && im == 0;
        vr |= re != d0[0] || im != d0[1];
    }
    pr &= nz;
    free(dg);
    *posreal = pr;
    *varies = nz && vr;
    return SPK_OK;
}

/* The method for the caller's kind and A's symmetry, or an error saying why not. */
static int method_of(spk_err *e, spk_solver_kind kind, spk_zsym sym, int posdiag, spk_zmethod *m)
{
    switch (kind) {
    case SPK_SOLVER_AUTO:
        *m = (sym & SPK_ZSYM_HERMITIAN) && posdiag ? SPK_ZMETHOD_CG
             : (sym & SPK_ZSYM_SYMMETRIC)          ? SPK_ZMETHOD_COCG
                                                   : SPK_ZMETHOD_BICGSTAB;
        return SPK_OK;
    case SPK_SOLVER_CG:
        if (!(sym & SPK_ZSYM_HERMITIAN))
            return spk_err_set(e, SPK_ERR_INVALID_MATRIX, "cg needs a Hermitian matrix (A = A^H); this complex "
                               "matrix is %s: use %s", sym ? "complex symmetric" : "not", sym ? "cocg" : "bicgstab");
        *m = SPK_ZMETHOD_CG;
        return SPK_OK;
    case SPK_SOLVER_COCG:
        if (!(sym & SPK_ZSYM_SYMMETRIC))
            return spk_err_set(e, SPK_ERR_INVALID_MATRIX, "cocg needs a complex symmetric matrix (A = A^T); this "
                               "one is %s: use %s", sym ? "Hermitian" : "not", sym ? "cg" : "bicgstab");
        *m = SPK_ZMETHOD_COCG;
        return SPK_OK;
    case SPK_SOLVER_BICGSTAB: *m = SPK_ZMETHOD_BICGSTAB; return SPK_OK;
    case SPK_SOLVER_GMRES: break;
    }
    return spk_err_set(e, SPK_ERR_UNSUPPORTED, "%s is not available for complex systems (cg, cocg and bicgstab are)",
                       spk_solver_kind_name(kind));
}

/* The preconditioner for the caller's kind and the method.  AUTO: none, or
 * on the GPU Jacobi where the diagonal varies.  Decided on the train half
 * of bench/complex-corpus.txt (scripts/complex-choice.sh; the numbers in
 * docs/benchmarks.md): IC(0)/ILU(0), whose exact triangular solves are long
 * chains, saved iterations but lost in time to both cheap choices on every
 * problem there; of the two, Jacobi where the diagonal varies did better on
 * the GPU, none on the host. */
static int precond_of(spk_err *e, spk_precond_kind pk, spk_zmethod m, spk_zsym sym, int varies, int host,
                      spk_zpc_kind *k)
{
    switch (pk) {
    case SPK_PRECOND_AUTO: *k = !host && varies ? SPK_ZPC_JACOBI : SPK_ZPC_NONE; return SPK_OK;
    case SPK_PRECOND_FACTOR: *k = m == SPK_ZMETHOD_BICGSTAB ? SPK_ZPC_ILU0 : SPK_ZPC_IC0; return SPK_OK;
    case SPK_PRECOND_NONE: *k = SPK_ZPC_NONE; return SPK_OK;
    case SPK_PRECOND_JACOBI: *k = SPK_ZPC_JACOBI; return SPK_OK;
    case SPK_PRECOND_ILU0: *k = SPK_ZPC_ILU0; return SPK_OK;
    case SPK_PRECOND_IC0:
        if (sym == SPK_ZSYM_GENERAL)
            return spk_err_set(e, SPK_ERR_INVALID_MATRIX, "ic0 needs a complex symmetric or Hermitian matrix; use "
                               "ilu0");
        *k = SPK_ZPC_IC0;
        return SPK_OK;
    case SPK_PRECOND_USER: break;
    }
    return spk_err_set(e, SPK_ERR_UNSUPPORTED, "the %s preconditioner is not available for complex systems (none, "
                       "jacobi, ilu0 and ic0 are)", spk_precond_kind_name(pk));
}

int spk_zsolver_setup(spk_solver *s, spk_solver_kind solver, spk_precond_kind precond)
{
    const double t0 = spk_time_now();
    spk_err *e = &s->ctx->err;
    spk_exec *ex = s->ctx->exec;
    const spk_zcsr *Z = &s->M->Z;
    if (Z->nrows != Z->ncols)
        return spk_err_set(e, SPK_ERR_INVALID_MATRIX, "the system must be square (the matrix is %d x %d)", Z->nrows,
                           Z->ncols);
    const spk_zsym sym = spk_zcsr_symmetry(Z);
    const double t_check = spk_time_now();
    s->t_split[1] = t_check - t0;
    spk_zmethod m = SPK_ZMETHOD_BICGSTAB;
    spk_zpc_kind pk = SPK_ZPC_NONE;
    int posreal = 0, varies = 0;
    SPK_TRY(diagonal(Z, &posreal, &varies, e));
    SPK_TRY(method_of(e, solver, sym, posreal, &m));
    SPK_TRY(precond_of(e, precond, m, sym, varies, spk_exec_is_host(ex), &pk));
    struct spk_zsolver *z = calloc(1, sizeof *z);
    if (!z) return spk_err_set(e, SPK_ERR_NOMEM, "out of host memory (complex solver)");
    s->z = z;
    z->method = m;
    s->kind = m == SPK_ZMETHOD_CG ? SPK_SOLVER_CG : m == SPK_ZMETHOD_COCG ? SPK_SOLVER_COCG : SPK_SOLVER_BICGSTAB;
    const int hermitian = m == SPK_ZMETHOD_CG || sym == SPK_ZSYM_HERMITIAN;
    SPK_TRY(spk_zspmv_create(ex, Z, s->opts.format, &z->A));
    const double t_format = spk_time_now();
    s->t_split[2] = t_format - t_check;
    SPK_TRY(spk_zprecond_create(ex, Z, pk, hermitian, &z->M));
    s->t_split[3] = spk_time_now() - t_format;
    if (s->opts.keep_history) {
        z->hist = malloc(((size_t)s->opts.maxit + 1) * sizeof(double));
        if (!z->hist) return spk_err_set(e, SPK_ERR_NOMEM, "out of host memory (residual history)");
    }
    if (!spk_exec_is_host(ex)) {
        SPK_TRY(ex->ops->alloc(ex, ((size_t)Z->nrows + 1) * 2 * sizeof(double), (void **)&z->b));
        SPK_TRY(ex->ops->alloc(ex, ((size_t)Z->nrows + 1) * 2 * sizeof(double), (void **)&z->x));
    }
    z->version = s->M->version;
    s->t_setup = spk_time_now() - t0;
    return SPK_OK;
}

void spk_zsolver_free(spk_solver *s)
{
    struct spk_zsolver *z = s->z;
    if (!z) return;
    spk_exec *ex = s->ctx->exec;
    spk_zspmv_destroy(z->A);
    spk_zprecond_destroy(z->M);
    if (z->b) ex->ops->free(ex, z->b);
    if (z->x) ex->ops->free(ex, z->x);
    free(z->hist);
    free(z);
    s->z = NULL;
}

const char *spk_zsolver_method(const spk_solver *s)
{
    return spk_zmethod_name(s->z->method);
}

const char *spk_zsolver_precond(const spk_solver *s)
{
    return s->z->M ? spk_zprecond_name(s->z->M) : "";
}

const char *spk_zsolver_format(const spk_solver *s)
{
    return s->z->A ? spk_zspmv_name(s->z->A) : "";
}

/* New values since the setup: the product's and the factor's. */
static int refresh(spk_solver *s)
{
    const double t0 = spk_time_now();
    SPK_TRY(spk_zspmv_update(s->z->A, &s->M->Z));
    SPK_TRY(spk_zprecond_refactor(s->z->M, &s->M->Z));
    s->z->version = s->M->version;
    s->t_setup = spk_time_now() - t0;
    return SPK_OK;
}

/* NaN or Inf in b or x0: the entry named. */
static int invalid_input(spk_err *e, int n, const double *b, const double *x)
{
    for (int w = 0; w < 2; w++)
        for (size_t i = 0; i < 2 * (size_t)n; i++)
            if (!isfinite((w ? x : b)[i]))
                return spk_err_set(e, SPK_ERR_INVALID_ARG, "the %s contains NaN or Inf: %s[%zu] has %s part %g",
                                   w ? "initial guess" : "right-hand side", w ? "x0" : "b", i / 2,
                                   i % 2 ? "imaginary" : "real", (w ? x : b)[i]);
    return SPK_OK;
}

static int solve_into(spk_solver *s, const double *b, double *x, spk_result *r)
{
    struct spk_zsolver *z = s->z;
    spk_exec *ex = s->ctx->exec;
    const int n = s->M->Z.nrows;
    const size_t bytes = (size_t)n * 2 * sizeof(double);
    double t_setup = 0; /* a refactorization's */
    if (z->version != s->M->version) {
        SPK_TRY(refresh(s));
        t_setup = s->t_setup;
    }
    spk_zkrylov_opts o = {s->opts.maxit, s->opts.rtol, s->opts.atol, s->opts.dtol,
                          s->opts.monitor ? s->opts.monitor : s->opts.progress,
                          s->opts.monitor ? s->opts.monitor_user : s->opts.progress_user, z->hist};
    const double *db = b;
    double *dx = x;
    if (z->b) {
        SPK_TRY(ex->ops->upload(ex, z->b, b, bytes));
        SPK_TRY(ex->ops->upload(ex, z->x, x, bytes));
        db = z->b;
        dx = z->x;
    }
    const int st = spk_zkrylov_solve(ex, z->A, z->M, z->method, &o, n, db, dx, r);
    if (z->x && (st == SPK_OK || r->iterations > 0)) SPK_TRY(ex->ops->download(ex, x, z->x, bytes));
    r->shift = spk_zprecond_shift(z->M);
    r->t_setup = t_setup > 0 ? t_setup : s->t_setup; /* as spk_solve reports it */
    r->t_setup_check = s->t_split[1];
    r->t_setup_format = s->t_split[2];
    r->t_setup_precond = s->t_split[3];
    if (z->hist) r->history = z->hist;
    return st;
}

int spk_solve_complex(spk_solver *s, const double *b, double *x, spk_result *res)
{
    spk_result r;
    memset(&r, 0, sizeof r);
    const double t0 = spk_time_now();
    int st = SPK_ERR_INVALID_ARG;
    if (s && !s->z) {
        st = spk_err_set(&s->ctx->err, SPK_ERR_INVALID_ARG, "spk_solve_complex: the matrix is real (use spk_solve)");
    } else if (s && (!b || !x)) {
        st = spk_err_set(&s->ctx->err, SPK_ERR_INVALID_ARG, "spk_solve_complex: b and x are required");
    } else if (s) {
        spk_err_clear(&s->ctx->err);
        st = invalid_input(&s->ctx->err, s->M->Z.nrows, b, x);
        if (st) {
            r.reason = SPK_INVALID_INPUT;
        } else {
            const int threads = spk_threads_enter(s->ctx);
            st = solve_into(s, b, x, &r);
            spk_threads_leave(s->ctx, threads);
        }
    }
    r.t_total = spk_time_now() - t0;
    return spk_result_close(st, &r, res);
}
