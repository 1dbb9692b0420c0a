/* bench_run.c -- the harness of `spk bench`: for each format the
 * conversion, a product checked against the host CSR product and timed hot
 * and cold, and with --solve or --solve-config the solves, each kept as the
 * median of --solve-repeat runs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#ifdef SPK_HAVE_CUDA
#include "bench_ref.h"
#endif
#include "io/rhs.h"
#include "spmv/options.h"

typedef struct apply_arg {
    const struct spk_spmv_ops *ops;
    void *impl;
    const void *x;
    void *y;
    int single; /* x and y hold floats: apply_float */
} apply_arg;

static int apply_once(void *p)
{
    apply_arg *a = p;
    if (a->single) return a->ops->apply_float(a->impl, 1.0f, a->x, 0.0f, a->y);
    return a->ops->apply(a->impl, 1.0, a->x, 0.0, a->y);
}

/* Note the executor's message in r and clear it. */
static void failed(bench *b, fmt_result *r, int st)
{
    r->status = st;
    snprintf(r->note, sizeof r->note, "%.500s", b->err.msg[0] ? b->err.msg : spk_status_name(st));
    spk_err_clear(&b->err);
}

/* Create, check and time one format on A (x, y on the executor, floats in
 * single precision; ref, rowabs and scale on the host: the CSR product, each
 * row's sum_j |a_ij x_j| and their largest). */
static void bench_format(bench *b, const spk_csr *A, const double *ref, const double *rowabs, double scale,
                         const void *x, void *y, double *hy, float *hf, fmt_result *r)
{
    spk_exec *ex = b->ex;
    void *impl = NULL;
    spk_spmv_opts o;
    spk_spmv_opts_of(&b->o, &o);
    o.precision = b->single ? SPK_SPMV_FLOAT : SPK_SPMV_DOUBLE;
    /* on the host auto is what the solver's auto is there, csr (the rule and
     * trials of the GPU's auto would time the host references of GPU kernels) */
    const struct spk_spmv_ops *csr = NULL;
    const int host_auto = spk_exec_is_host(ex) && strcmp(r->ops->name, "auto") == 0 &&
                          spk_spmv_find("csr", ex, &csr, &b->err) == SPK_OK;
    double t0 = spk_time_now();
    int st = host_auto ? spk_auto_create_with(ex, A, &o, &csr, 1, 0, &impl) : r->ops->create(ex, A, &o, &impl);
    r->setup_ms = (spk_time_now() - t0) * 1e3;
    if (st) {
        failed(b, r, st);
        return;
    }
    spk_spmv_stats s;
    r->ops->stats(impl, &s);
    r->mbytes = (double)s.bytes / 1e6;
    r->upload_ms = s.upload_seconds * 1e3;
    snprintf(r->note, sizeof r->note, "%s", host_auto ? "auto on the host is csr, as the solver's auto" : s.detail);
    if (strcmp(r->ops->name, "auto") == 0) snprintf(r->chose, sizeof r->chose, "%s", spk_auto_choice(impl));
    /* the product must be right before it is timed */
    apply_arg a = {r->ops, impl, x, y, b->single};
    double nan = NAN; /* in single precision, each double slot two float NaNs */
    if (b->single) {
        const float fnan[2] = {NAN, NAN};
        memcpy(&nan, fnan, sizeof nan);
    }
    st = ex->ops->fill(ex, A->nrows, nan, y);
    if (!st) st = apply_once(&a);
    if (!st && A->nrows > 0)
        st = b->single ? ex->ops->download(ex, hf, y, (size_t)A->nrows * sizeof(float))
                       : ex->ops->download(ex, hy, y, (size_t)A->nrows * sizeof(double));
    if (st) {
        failed(b, r, st);
        r->ops->destroy(impl);
        return;
    }
    if (b->single)
        for (int i = 0; i < A->nrows; i++) hy[i] = hf[i];
    double e = 0;
    int bad = -1;
    for (int i = 0; i < A->nrows; i++) {
        const double d = isfinite(hy[i]) ? fabs(hy[i] - ref[i]) : INFINITY;
        e = fmax(e, d);
        if (b->single && bad < 0 && !(d <= (A->rowptr[i + 1] - A->rowptr[i] + 5) * 0x1p-24 * rowabs[i])) bad = i;
    }
    r->rel_err = scale > 0 ? e / scale : e;
    if (b->single ? bad >= 0 : !(r->rel_err <= 1e-10)) {
        r->status = SPK_ERR_INTERNAL;
        if (b->single)
            snprintf(r->note, sizeof r->note,
                     "wrong product in float: row %d off by %.3g, beyond the float summation bound %.3g", bad,
                     fabs(hy[bad] - ref[bad]), (A->rowptr[bad + 1] - A->rowptr[bad] + 5) * 0x1p-24 * rowabs[bad]);
        else
            snprintf(r->note, sizeof r->note, "wrong product: error %.3g relative to max |A||x|", r->rel_err);
        r->ops->destroy(impl);
        return;
    }
    double med = 0;
    st = spk_timer_median(b->timer, apply_once, &a, 0, 3, b->repeat, 10000000, b->min_time, &med, &r->hot_calls,
                          &r->hot_batch);
    r->hot_ms = med * 1e3;
    if (!st)
        st = spk_timer_median(b->timer, apply_once, &a, 1, 1, b->repeat, 10000000, b->min_time, &med,
                              &r->cold_calls, NULL);
    r->cold_ms = med * 1e3;
    if (st) failed(b, r, st);
    r->ops->destroy(impl);
}

/* The configuration of the per-format solves: the run's options with format
 * f, and without the race unless --race was given (a CG alongside would
 * answer for some formats and not others). */
static solve_cfg format_cfg(const bench *b, const struct spk_spmv_ops *f)
{
    solve_cfg c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "%s", f->name);
    c.o = b->o;
    c.o.format = f->name;
    if (!b->race_given) c.o.race = 0;
    c.precond = SPK_PRECOND_AUTO;
    return c;
}

/* Solve A x = rhs (A*1 or A x*, --rhs-kind) in configuration c, once. */
static void bench_solve_once(bench *b, spk_matrix *M, const double *rhs, double *x, int n, const solve_cfg *c,
                             fmt_result *r)
{
    spk_solver *s = NULL;
    r->solved = 1;
    double t0 = spk_time_now();
    int st = spk_solver_create(b->ctx, M, SPK_SOLVER_AUTO, (spk_precond_kind)c->precond, &c->o, &s);
    r->s_setup_ms = (spk_time_now() - t0) * 1e3;
    if (st) {
        r->solve_status = st;
        snprintf(r->solve_note, sizeof r->solve_note, "%s", spk_last_error(b->ctx));
        return;
    }
    memset(x, 0, (size_t)n * sizeof(double));
    spk_result res;
    memset(&res, 0, sizeof res);
    st = spk_solve(s, rhs, x, &res);
    r->solve_status = st;
    snprintf(r->method, sizeof r->method, "%s", spk_solver_method(s));
    snprintf(r->precond, sizeof r->precond, "%s", spk_solver_precond(s));
    r->sweeps = spk_solver_precond_sweeps(s);
    snprintf(r->choice, sizeof r->choice, "%s", spk_solver_choice(s));
    snprintf(r->factorization, sizeof r->factorization, "%s", spk_solver_factorization(s));
    r->phases = spk_solver_factor_phases(s, 8, r->phase_ms, r->phase_name);
    if (st) snprintf(r->solve_note, sizeof r->solve_note, "%s", spk_last_error(b->ctx));
    r->iterations = res.iterations;
    r->true_relres = res.true_relres;
    r->colors = spk_solver_colors(s);
    spk_solver_levels(s, &r->levels_lower, &r->levels_upper, NULL, NULL);
    r->s_ms = res.t_total * 1e3;
    r->s_spmv_ms = res.t_spmv * 1e3;
    r->s_precond_ms = res.t_precond * 1e3;
    r->s_vector_ms = res.t_vector * 1e3;
    r->s_sync_ms = res.t_sync * 1e3;
    r->s_format_ms = res.t_setup_format * 1e3;
    r->s_pc_setup_ms = res.t_setup_precond * 1e3;
    r->s_upload_ms = res.t_setup_upload * 1e3;
    r->graph_iterations = res.graph_iterations;
    r->block_iterations = res.block_iterations;
    r->block_cluster = res.block_cluster;
    r->race = res.race;
    spk_solver_destroy(s);
}

/* Setup + solve of r: the time to solution. */
static double solve_total(const fmt_result *r)
{
    return r->s_setup_ms + r->s_ms;
}

/* bench_solve_once --solve-repeat times; the run of the median time to
 * solution is kept (the first failure, if any, at once). */
static void bench_solve(bench *b, spk_matrix *M, const double *rhs, double *x, int n, const solve_cfg *c,
                        fmt_result *r)
{
    enum { MAX_REPEAT = 15 };
    fmt_result runs[MAX_REPEAT];
    const int k = b->solve_repeat < 1 ? 1 : b->solve_repeat > MAX_REPEAT ? MAX_REPEAT : b->solve_repeat;
    int done = 0;
    for (; done < k; done++) {
        runs[done] = *r;
        bench_solve_once(b, M, rhs, x, n, c, &runs[done]);
        if (runs[done].solve_status) {
            *r = runs[done];
            return;
        }
    }
    for (int i = 1; i < done; i++) /* insertion sort by time to solution */
        for (int j = i; j > 0 && solve_total(&runs[j]) < solve_total(&runs[j - 1]); j--) {
            fmt_result t = runs[j];
            runs[j] = runs[j - 1];
            runs[j - 1] = t;
        }
    *r = runs[done / 2];
}

/* The baseline ref (bench_ref.c) in configuration c: A x = rhs with its
 * rtol, atol and maxit, median of --solve-repeat runs. */
static void ref_solve(const bench *b, const spk_csr *A, const double *rhs, const solve_cfg *c, fmt_result *r)
{
    r->solved = 1;
#ifdef SPK_HAVE_CUDA
    const bench_ref_args a = {c->o.rtol, c->o.atol, c->o.maxit, b->solve_repeat};
    bench_ref_result q;
    r->solve_status = bench_ref_run(A, rhs, &a, &q);
    snprintf(r->method, sizeof r->method, "%s", q.method ? q.method : "");
    snprintf(r->precond, sizeof r->precond, "%s", q.precond ? q.precond : "");
    if (q.added_diag)
        snprintf(r->solve_note, sizeof r->solve_note, "%d missing diagonal entries stored as zeros%s%.200s",
                 q.added_diag, q.note[0] ? "; " : "", q.note);
    else
        snprintf(r->solve_note, sizeof r->solve_note, "%.255s", q.note);
    r->iterations = q.iterations;
    r->true_relres = q.true_relres;
    r->s_setup_ms = q.setup_ms;
    r->s_ms = q.solve_ms;
    r->s_upload_ms = q.upload_ms;
    r->s_upload_apart = 1;
    /* no split: the parts of an iteration are not timed apart */
    r->s_spmv_ms = r->s_precond_ms = r->s_vector_ms = r->s_sync_ms = NAN;
    r->s_format_ms = r->s_pc_setup_ms = NAN;
#else
    (void)b, (void)A, (void)rhs, (void)c;
    r->solve_status = SPK_ERR_UNSUPPORTED;
    snprintf(r->solve_note, sizeof r->solve_note, "built without CUDA: no baseline");
#endif
}

/* With --solve each format's solve of A x = A*1, with --solve-config each
 * configuration's (into m; a refusal noted in each). */
static void bench_solves(bench *b, mat_result *m, const spk_csr *A)
{
    spk_matrix *M = NULL;
    double *rhs = malloc(((size_t)A->nrows + 1) * sizeof(double));
    double *xs = malloc(((size_t)A->ncols + 1) * sizeof(double));
    if (!rhs || !xs || A->nrows != A->ncols) {
        for (int k = b->solve ? 0 : m->nf; k < m->nf + b->ncfg; k++) {
            fmt_result *f = k < m->nf ? &m->f[k] : &m->c[k - m->nf];
            f->solved = 1;
            f->solve_status = A->nrows != A->ncols ? SPK_ERR_INVALID_MATRIX : SPK_ERR_NOMEM;
            snprintf(f->solve_note, sizeof f->solve_note, "%s",
                     A->nrows != A->ncols ? "not square: no linear system" : "out of host memory");
        }
    } else if (spk_matrix_from_csr(b->ctx, A->nrows, A->ncols, A->rowptr, A->colind, A->val, &M)) {
        for (int k = b->solve ? 0 : m->nf; k < m->nf + b->ncfg; k++) {
            fmt_result *f = k < m->nf ? &m->f[k] : &m->c[k - m->nf];
            f->solved = 1;
            f->solve_status = SPK_ERR_INVALID_MATRIX;
            snprintf(f->solve_note, sizeof f->solve_note, "%s", spk_last_error(b->ctx));
        }
    } else {
        if (b->rhs.random) spk_rhs_random_solution(A, b->rhs.seed, xs, rhs);
        else spk_rhs_known_solution(A, xs, rhs);
        for (int k = 0; b->solve && k < m->nf; k++) {
            if (m->f[k].status) continue; /* the format refused the matrix */
            /* the solver's "auto" is csr on the host: that solve is already the baseline's */
            if (spk_exec_is_host(b->ex) && strcmp(m->f[k].ops->name, "auto") == 0) continue;
            const solve_cfg c = format_cfg(b, m->f[k].ops);
            bench_solve(b, M, rhs, xs, A->ncols, &c, &m->f[k]);
            bench_progress(b, m, &m->f[k], "solve");
        }
        for (int k = 0; k < b->ncfg; k++) {
            if (b->cfg[k].builtin)
                ref_solve(b, A, rhs, &b->cfg[k], &m->c[k]);
            else
                bench_solve(b, M, rhs, xs, A->ncols, &b->cfg[k], &m->c[k]);
            if (b->quiet) continue;
            cli_progress_clear(&b->prog);
            fprintf(stderr, "spk bench: [%d/%d] %s config %s: %s, %d iterations, %.2f ms\n", b->nm + 1, b->total,
                    m->name, b->cfg[k].name, m->c[k].solve_status ? spk_status_name(m->c[k].solve_status) : "converged",
                    m->c[k].iterations, m->c[k].s_setup_ms + m->c[k].s_ms);
            bench_status(b, 1);
        }
    }
    spk_matrix_destroy(M);
    free(rhs);
    free(xs);
}

int bench_matrix(bench *b, const char *name, spk_csr *A)
{
    if (b->nm == b->cap) {
        int cap = b->cap ? 2 * b->cap : 16;
        mat_result *m = realloc(b->m, (size_t)cap * sizeof *m);
        if (!m) return spk_err_set(&b->err, SPK_ERR_NOMEM, "out of host memory (results)");
        b->m = m;
        b->cap = cap;
    }
    mat_result *m = &b->m[b->nm];
    memset(m, 0, sizeof *m);
    const char *slash = strrchr(name, '/');
    snprintf(m->name, sizeof m->name, "%s", slash ? slash + 1 : name);
    m->rows = A->nrows;
    m->cols = A->ncols;
    m->nnz = A->nnz;
    const double w = b->single ? 4.0 : 8.0; /* bytes per value */
    m->traffic = (4.0 + w) * A->nnz + 4.0 * (A->nrows + 1) + w * A->ncols + w * A->nrows;
    m->cache_regime = b->cache > 0 && m->traffic <= (double)b->cache;
    const int nr = A->nrows, nc = A->ncols;
    double *hx = malloc(((size_t)nc + 1) * sizeof(double)), *ref = malloc(((size_t)nr + 1) * sizeof(double));
    double *hy = malloc(((size_t)nr + 1) * sizeof(double)), *rowabs = malloc(((size_t)nr + 1) * sizeof(double));
    /* single precision: x to upload and y downloaded, in float */
    float *hf = malloc(((size_t)(nr > nc ? nr : nc) + 1) * sizeof(float));
    double *x = NULL, *y = NULL, scale = 0;
    int st = !hx || !ref || !hy || !rowabs || !hf
                 ? spk_err_set(&b->err, SPK_ERR_NOMEM, "out of host memory (vectors)")
                 : SPK_OK;
    if (!st) {
        /* x exact in float too */
        for (int j = 0; j < nc; j++) hx[j] = 1.0 + (j % 7) * 0.125;
        spk_csr_spmv(A, 1.0, hx, 0.0, ref);
        for (int i = 0; i < nr; i++) {
            double s = 0;
            for (int q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) s += fabs(A->val[q] * hx[A->colind[q]]);
            rowabs[i] = s;
            scale = fmax(scale, s);
        }
        /* double vectors: room for the float ones too */
        st = spk_exec_alloc_vec(b->ex, nc, &x);
    }
    if (!st) st = spk_exec_alloc_vec(b->ex, nr, &y);
    if (!st && nc > 0) {
        for (int j = 0; j < nc && b->single; j++) hf[j] = (float)hx[j];
        st = b->single ? b->ex->ops->upload(b->ex, x, hf, (size_t)nc * sizeof(float))
                       : b->ex->ops->upload(b->ex, x, hx, (size_t)nc * sizeof(double));
    }
    if (st) goto done;
    for (int k = 0; k < b->nfmts; k++) {
        fmt_result *f = &m->f[m->nf++];
        f->ops = b->fmts[k];
        bench_format(b, A, ref, rowabs, scale, x, y, hy, hf, f);
        bench_progress(b, m, f, "spmv");
    }
    if (b->solve || b->ncfg) bench_solves(b, m, A);
    cli_progress_clear(&b->prog); /* stdout may be the same terminal */
    bench_print_matrix(b, m);
    fflush(stdout);
    b->nm++;
done:
    if (x) b->ex->ops->free(b->ex, x);
    if (y) b->ex->ops->free(b->ex, y);
    free(hx);
    free(ref);
    free(hy);
    free(rowabs);
    free(hf);
    return st;
}

