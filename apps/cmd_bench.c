/* cmd_bench.c -- `spk bench`: SpMV (and with --solve, solve) time of every
 * format on each matrix, next to the baseline format from the same run.
 *
 * For each matrix and format: the conversion (setup) time and device bytes;
 * the product checked against the host CSR product; its time as the median
 * of at least --repeat samples, and of as many as fit in --min-time seconds
 * of measuring (CUDA events on the GPU), once back to back ("hot": each
 * sample a batch of calls taking about 50 us, timed together and divided,
 * as a solver issues them, so that one call's launch latency and the
 * timestamps' jitter do not swamp a product of a few microseconds) and once
 * with the caches evicted before every call, each timed alone ("cold");
 * GFLOP/s (2 nnz); the effective bandwidth by the CSR traffic model
 * 12 nnz + 4 (rows+1) + 8 cols + 8 rows and by the format's own bytes +
 * 8 cols + 8 rows; its fraction of the copy bandwidth measured at the start
 * of the run; the speedup over the baseline ("cusparse" on the GPU, "csr" on
 * the host).  A matrix whose CSR traffic fits in the last-level cache (the
 * GPU's L2) is in the "cache" regime: its hot times measure latency, and its
 * cold times are the ones to set against memory bandwidth; otherwise the
 * regime is "memory".
 *
 * With --solve, each format is the SpMV of a solve with spk's automatic
 * choice (CG + IC(0) for a symmetric matrix with a positive diagonal,
 * BiCGStab + ILU(0) otherwise), b = A*1: iterations, true residual, setup,
 * solve, time per iteration and its split, speedup over the baseline's
 * solve. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "core/csr.h"
#include "core/exec.h"
#include "core/timing.h"
#include "io/gen.h"
#include "io/mmio.h"
#include "io/rhs.h"
#include "spk.h"
#include "spmv/spmv.h"
#ifdef SPK_HAVE_CUDA
#include "core/exec_cuda.h"
#endif

static void help(void)
{
    printf("usage: spk bench [options] (MATRIX.mtx[.gz] | gen:SPEC | --dir DIR)...\n"
           "\n"
           "Time the SpMV of every format (and with --solve, a solve with each format as the\n"
           "SpMV) on each matrix, next to the baseline format (cusparse on the GPU, csr on the\n"
           "host) from the same run.  gen:SPEC makes a model problem in memory (see spk gen\n"
           "--help), e.g. gen:poisson3d-27:120 or gen:powerlaw:1000000.\n"
           "\n"
           "options:\n"
           "  --formats LIST      all (default) or a comma-separated list; the baseline always runs\n"
           "  --solve             also solve A x = A*1 with each format as the SpMV (CG + IC(0)\n"
           "                      or BiCGStab + ILU(0), as spk solve chooses)\n"
           "  --repeat N          at least N timed samples per measurement (default 10)\n"
           "  --min-time S        and as many as S seconds of measuring allow (default 0.2)\n"
           "  --maxit N           iteration limit of the solves (default 10000)\n"
           "  --solve-repeat N    set up and solve each system N times (1..15, default 1) and\n"
           "                      report the run with the median time to solution\n"
           "  --precond-sweeps K  the solves' IC(0)/ILU(0) apply K Jacobi sweeps per triangular\n"
           "                      solve, 0 (exact solves) or auto (the default; see spk solve --help)\n"
           "  --precond-isai      ... or apply the factors' approximate inverses (one SpMV each)\n"
           "  --vector-ops V      the solves' vector work: block (default), graph, fused or classic (cublas)\n"
           "                      (see spk solve --help); fused adds the solves' launches and\n"
           "                      waits as a column\n"
           "  --reorder R         the solves: none (default), multicolor or block-multicolor\n"
           "                      (rows, or blocks of --reorder-block B rows, ordered by a\n"
           "                      greedy coloring of A + A^T)\n"
           "  --device D          auto | cpu | cuda (default auto: the GPU when usable)\n"
           "  --dir DIR           every .mtx / .mtx.gz file in DIR, in name order\n"
           "  --solve-config C    NAME[:key=value,...]: solve each matrix in this configuration\n"
           "                      (repeatable, at most 8; keys format=NAME, vector=classic|fused|graph,\n"
           "                      sweeps=K|auto, factor=auto|double|float (the sweeps' factor\n"
           "                      values, see spk solve --precond-precision), isai=0|1,\n"
           "                      reorder=none|multicolor|block-multicolor,\n"
           "                      block=B, precond=auto|factor|none|jacobi|ic0|ilu0, race=0|1|2 (spk solve\n"
           "                      --race), rtol=R (default 1e-8)); reports each one's\n"
           "                      time to solution (setup + solve),\n"
           "                      iterations, true residual and split, and its speedup over the\n"
           "                      first configuration, with a summary (geometric mean, least,\n"
           "                      least above 1M nonzeros, largest ratio of iterations)\n"
           "  --floors            also measure the executor's fixed costs (alone: without\n"
           "                      matrices): an empty kernel back to back, queueing one, one\n"
           "                      with a synchronize, with an 8-byte readback, inside a CUDA\n"
           "                      graph, and uploads from pageable, pinned and registered memory\n"
           "  --tile-te X, --tile-th X, --tile-defer-nnz N, --sell-c C, --sell-sigma S, --bcsr-block B\n"
           "                      the formats' options, for the products and the solves (see spk\n"
           "                      solve --help)\n"
           "  --precision P       double (default) or float: the products in single precision,\n");
    printf("                      every format storing its values in float (indices unchanged),\n"
           "                      x and y float, cuSPARSE in CUDA_R_32F; each product is checked\n"
           "                      against the double CSR product row by row with the bound of\n"
           "                      float summation, (row length + 5) 2^-24 sum_j |a_ij x_j|, and\n"
           "                      the CSR traffic model counts 4-byte values (no solves in float)\n"
           "  --csv FILE          one row per matrix and format\n"
           "  --json FILE         everything, for scripts/bench_plots.py\n"
           "  --quiet             no progress lines on stderr\n"
           "\n"
           "Per format: setup (conversion) ms, device MB, the median ms of a product back to\n"
           "back (hot: batches of products of about 50 us each, timed together) and with the\n"
           "caches flushed before each product (cold, timed alone), GFLOP/s, GB/s by\n"
           "the CSR traffic model and by the format's own bytes, their fraction of the copy\n"
           "bandwidth measured at the start, and the speedup over the baseline.  A matrix in the\n"
           "'cache' regime fits in the cache (the GPU's L2): hot times measure latency there.\n");
}

/* ---- results ------------------------------------------------------------------ */

typedef struct fmt_result {
    const struct spk_spmv_ops *ops;
    int status;              /* SPK_OK, or why it did not run */
    char note[512];          /* the format's description, or the refusal / failure */
    double setup_ms, upload_ms, mbytes, rel_err; /* upload_ms: of setup_ms, the upload of A (0: unknown) */
    double hot_ms, cold_ms;
    int hot_calls, cold_calls, hot_batch;
    char chose[32];          /* auto: the format it chose */
    int solved;              /* a solve was attempted */
    int solve_status, iterations;
    int colors, levels_lower, levels_upper; /* of the matrix solved (reordered or not) */
    char method[16], precond[16], solve_note[256];
    int sweeps; /* spk_solver_precond_sweeps */
    double true_relres, s_setup_ms, s_ms, s_spmv_ms, s_precond_ms, s_vector_ms;
    double s_sync_ms;        /* fused vector steps: the solve's launches and waits */
    double s_format_ms;      /* of s_setup_ms, the SpMV format's (spk_result.t_setup_format) */
    double s_pc_setup_ms;    /* ... and the preconditioner's (spk_result.t_setup_precond) */
    int graph_iterations;    /* spk_result.graph_iterations */
    int block_iterations;    /* spk_result.block_iterations */
    int block_cluster;       /* spk_result.block_cluster */
    int race;                /* spk_result.race */
} fmt_result;

#define MAX_CONFIGS 8

/* A solve configuration (--solve-config NAME:key=value,...): the options of
 * spk_options that make a solver's speed, compared in one run. */
typedef struct solve_cfg {
    char name[32];
    char format[32];         /* the SpMV format ("": the executor's default) */
    int vector_ops, sweeps, isai, reorder, reorder_block;
    int precision;           /* spk_options.precond_precision */
    int precond;             /* spk_precond_kind (SPK_PRECOND_AUTO: IC(0) / ILU(0)) */
    int race;                /* spk_options.race */
    double rtol;             /* spk_options.rtol (0: its default) */
} solve_cfg;

typedef struct mat_result {
    char name[256];
    int rows, cols, nnz;
    double traffic;          /* the CSR traffic model, bytes */
    int cache_regime;
    int nf;
    fmt_result f[64];
    fmt_result c[MAX_CONFIGS]; /* the solves of the configurations (ops unused) */
} mat_result;

typedef struct bench {
    spk_exec *ex;
    spk_err err;
    spk_context *ctx;        /* the solves */
    spk_timer *timer;
    const struct spk_spmv_ops *fmts[64];
    int nfmts;
    int repeat, maxit, solve, quiet, sweeps, isai, reorder, reorder_block;
    int solve_repeat;        /* --solve-repeat: solves per configuration, the median kept */
    int single;              /* --precision float: the products in single precision */
    int floors;              /* --floors: measured (spk_exec_floors) */
    solve_cfg cfg[MAX_CONFIGS]; /* --solve-config: solves compared by configuration */
    int ncfg;
    int vector_ops;          /* the solves' spk_options.vector_ops */
    cli_tile_opts fo;        /* the formats' options (--tile-*, --sell-*, --bcsr-block), solves' too */
    spk_floors fl;
    double min_time, copy_gbs;
    size_t cache;
    char devname[128];
    mat_result *m;
    int nm, cap, total;
} bench;

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

static const char *baseline(const bench *b)
{
    return spk_exec_is_host(b->ex) ? "csr" : "cusparse";
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
    memset(&o, 0, sizeof o);
    cli_tile_to_spmv(&b->fo, &o);
    o.precision = b->single ? SPK_SPMV_FLOAT : SPK_SPMV_DOUBLE;
    double t0 = spk_time_now();
    int st = r->ops->create(ex, A, &o, &impl);
    r->setup_ms = (spk_time_now() - t0) * 1e3;
    if (st) {
        failed(b, r, st);
        return;
    }
    spk_spmv_stats s;
    r->ops->stats(impl, &s);
    r->mbytes = (double)s.bytes / 1e6;
    r->upload_ms = s.upload_seconds * 1e3;
    snprintf(r->note, sizeof r->note, "%s", s.detail);
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

/* The configuration of the per-format solves: the bench's options and format f. */
static solve_cfg format_cfg(const bench *b, const char *f)
{
    solve_cfg c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "%s", f);
    snprintf(c.format, sizeof c.format, "%s", f);
    c.vector_ops = b->vector_ops;
    c.sweeps = b->sweeps;
    c.isai = b->isai;
    c.reorder = b->reorder;
    c.reorder_block = b->reorder_block;
    return c;
}

/* Solve A x = A*1 in configuration c, once. */
static void bench_solve_once(bench *b, spk_matrix *M, const double *rhs, double *x, int n, const solve_cfg *c,
                             fmt_result *r)
{
    spk_options o;
    spk_options_default(&o);
    o.format = c->format[0] ? c->format : NULL;
    o.maxit = b->maxit;
    o.precond_sweeps = c->sweeps;
    o.precond_isai = c->isai;
    o.reorder = c->reorder;
    o.reorder_block = c->reorder_block;
    o.vector_ops = c->vector_ops;
    o.precond_precision = c->precision;
    o.race = c->race;
    cli_tile_to_options(&b->fo, &o);
    if (c->rtol > 0) o.rtol = c->rtol;
    spk_solver *s = NULL;
    r->solved = 1;
    double t0 = spk_time_now();
    int st = spk_solver_create(b->ctx, M, SPK_SOLVER_AUTO, (spk_precond_kind)c->precond, &o, &s);
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

static const fmt_result *find_fmt(const mat_result *m, const char *name)
{
    for (int k = 0; k < m->nf; k++)
        if (strcmp(m->f[k].ops->name, name) == 0) return &m->f[k];
    return NULL;
}

/* What one measured product time means (hot or cold). */
typedef struct rates {
    double ms, gflops, gbs_csr, gbs_own, frac, speedup;
} rates;

/* The rates of format f's hot (cold = 0) or cold time, against the baseline's. */
static rates rates_of(const bench *b, const mat_result *m, const fmt_result *f, int cold)
{
    const fmt_result *base = find_fmt(m, baseline(b));
    rates r;
    r.ms = cold ? f->cold_ms : f->hot_ms;
    const double s = r.ms * 1e-3, own = f->mbytes * 1e6 + 8.0 * m->cols + 8.0 * m->rows;
    r.gflops = 2.0 * m->nnz / s / 1e9;
    r.gbs_csr = m->traffic / s / 1e9;
    r.gbs_own = own / s / 1e9;
    r.frac = r.gbs_csr / b->copy_gbs;
    r.speedup = base && !base->status ? (cold ? base->cold_ms : base->hot_ms) / r.ms : NAN;
    return r;
}

/* The fastest hot time of the formats other than auto (0: none ran). */
static double best_hot(const mat_result *m, const char **who)
{
    double best = 0;
    for (int k = 0; k < m->nf; k++) {
        const fmt_result *f = &m->f[k];
        if (f->status || strcmp(f->ops->name, "auto") == 0) continue;
        if (best == 0 || f->hot_ms < best) best = f->hot_ms, *who = f->ops->name;
    }
    return best;
}

/* The hot time of the format auto chose, as measured on its own in this run
 * (auto's own time when that format was not run). */
static double chosen_hot(const mat_result *m, const fmt_result *au)
{
    const fmt_result *c = find_fmt(m, au->chose);
    return c && !c->status ? c->hot_ms : au->hot_ms;
}

/* What auto's selection cost and whether its solve paid for it. */
typedef struct payback {
    double cost_ms;      /* auto's setup beyond the baseline's: in the solves, where both are made from
                            the solver's device copy of A, the format setups; otherwise (no solve) in
                            the SpMV run, neither counting the upload of A from the host (the same
                            bytes for both; a pageable copy of a large matrix varies by a quarter from
                            one copy to the next) */
    double spmv_cost_ms; /* the SpMV run's cost as above, also when cost_ms comes from the solves */
    int in_solve;        /* cost_ms is the solves' */
    double gain_ms;      /* the baseline's hot product time minus auto's */
    double products;     /* products after which the cost is paid back (0: no cost; inf: never) */
    int solve_products;  /* products in auto's converged solve (CG: one an iteration, BiCGStab: two,
                            and the initial and final residuals); -1: no such solve */
    int paid;            /* products <= solve_products */
} payback;

static int auto_payback(const bench *b, const mat_result *m, payback *p)
{
    const fmt_result *au = find_fmt(m, "auto"), *base = find_fmt(m, baseline(b));
    if (!au || au->status || !base || base->status) return 0;
    p->spmv_cost_ms = (au->setup_ms - au->upload_ms) - (base->setup_ms - base->upload_ms);
    p->in_solve = au->solved && base->solved && au->s_format_ms > 0 && base->s_format_ms > 0;
    p->cost_ms = p->in_solve ? au->s_format_ms - base->s_format_ms : p->spmv_cost_ms;
    p->gain_ms = base->hot_ms - au->hot_ms;
    p->products = p->cost_ms <= 0 ? 0 : p->gain_ms > 0 ? ceil(p->cost_ms / p->gain_ms) : INFINITY;
    p->solve_products = -1;
    if (au->solved && !au->solve_status && au->iterations >= 0)
        p->solve_products = (strstr(au->method, "bicgstab") ? 2 : 1) * au->iterations + 2;
    p->paid = p->solve_products >= 0 && p->products <= p->solve_products;
    return 1;
}

/* How many matrices with a converged auto solve paid the selection back within it. */
static void auto_paid(const bench *b, int *ok, int *of)
{
    *ok = *of = 0;
    for (int i = 0; i < b->nm; i++) {
        payback p;
        if (!auto_payback(b, &b->m[i], &p) || p.solve_products < 0) continue;
        (*of)++;
        *ok += p.paid;
    }
}

static void progress(const bench *b, const mat_result *m, const fmt_result *f, const char *what)
{
    if (b->quiet) return;
    if (f->status)
        fprintf(stderr, "spk bench: [%d/%d] %s %s %s: %s\n", b->nm + 1, b->total, m->name, f->ops->name, what,
                f->note);
    else if (!strcmp(what, "spmv"))
        fprintf(stderr, "spk bench: [%d/%d] %s %s: hot %.4f ms (%d), cold %.4f ms (%d)\n", b->nm + 1, b->total,
                m->name, f->ops->name, f->hot_ms, f->hot_calls, f->cold_ms, f->cold_calls);
    else
        fprintf(stderr, "spk bench: [%d/%d] %s %s solve: %s, %d iterations, %.2f ms\n", b->nm + 1, b->total,
                m->name, f->ops->name, f->solve_status ? spk_status_name(f->solve_status) : "converged",
                f->iterations, f->s_ms);
}

/* ---- solve configurations ------------------------------------------------- */

/* setup + solve of a converged configuration solve (NAN otherwise) */
static double cfg_total(const fmt_result *f)
{
    return f->solved && !f->solve_status ? f->s_setup_ms + f->s_ms : NAN;
}

static void print_configs(const bench *b, const mat_result *m)
{
    const double rt = cfg_total(&m->c[0]);
    printf("  %-12s %-20s %6s %11s %9s %10s %10s %9s %7s %7s %7s %7s %8s\n", "config", "method", "iters",
           "true res", "setup ms", "solve ms", "total ms", "ms/iter", "spmv", "precond", "vector", "sync",
           "x total");
    for (int k = 0; k < b->ncfg; k++) {
        const fmt_result *f = &m->c[k];
        if (!f->solved) continue;
        if (f->solve_status && f->iterations == 0) {
            printf("  %-12s %s\n", b->cfg[k].name, f->solve_note);
            continue;
        }
        char meth[40];
        snprintf(meth, sizeof meth, "%s+%s", f->method, f->precond);
        const double it = f->iterations > 0 ? f->iterations : 1;
        printf("  %-12s %-20s %6d %11.3e %9.2f %10.2f %10.2f %9.4f %7.4f %7.4f %7.4f %7.4f %8.2f%s%s\n",
               b->cfg[k].name, meth, f->iterations, f->true_relres, f->s_setup_ms, f->s_ms,
               f->s_setup_ms + f->s_ms, f->s_ms / it, f->s_spmv_ms / it, f->s_precond_ms / it, f->s_vector_ms / it,
               f->s_sync_ms / it, rt / cfg_total(f), f->solve_status ? "  " : "",
               f->solve_status ? spk_status_name(f->solve_status) : "");
    }
}

/* Configuration k against the first over the matrices where both converged:
 * geometric mean and least speedup of the time to solution, the least over
 * the matrices above 1M nonzeros (*big of them), the largest ratio of
 * iterations; returns the number of matrices. */
static int cfg_summary(const bench *b, int k, double *geo, double *least, double *least_big, int *big,
                       double *iter_ratio)
{
    double lg = 0;
    int n = 0;
    *least = *least_big = INFINITY;
    *iter_ratio = 0;
    *big = 0;
    for (int i = 0; i < b->nm; i++) {
        const fmt_result *r = &b->m[i].c[0], *f = &b->m[i].c[k];
        const double sp = cfg_total(r) / cfg_total(f);
        if (!(sp > 0) || !isfinite(sp)) continue;
        lg += log(sp);
        n++;
        *least = fmin(*least, sp);
        if (b->m[i].nnz > 1000000) {
            *least_big = fmin(*least_big, sp);
            (*big)++;
        }
        if (r->iterations > 0) *iter_ratio = fmax(*iter_ratio, (double)f->iterations / r->iterations);
    }
    *geo = n ? exp(lg / n) : NAN;
    if (!n) *least = NAN;
    if (!*big) *least_big = NAN;
    return n;
}

static void print_config_summary(const bench *b)
{
    printf("\nconfigurations: time to solution (setup + solve) against '%s', over the matrices where both "
           "converged\n",
           b->cfg[0].name);
    printf("  %-12s %9s %9s %14s %12s %9s\n", "config", "geomean", "least", "least >1M nnz", "iter ratio",
           "matrices");
    for (int k = 0; k < b->ncfg; k++) {
        double geo, least, least_big, ir;
        int big, n = cfg_summary(b, k, &geo, &least, &least_big, &big, &ir);
        char lb[32];
        snprintf(lb, sizeof lb, "%.2f (%d)", least_big, big);
        printf("  %-12s %9.2f %9.2f %14s %12.2f %9d\n", b->cfg[k].name, geo, least, lb, ir, n);
    }
}

/* The spk_precond_kind named, or -1. */
static int precond_of(const char *v)
{
    const char *names[] = {"auto", "none", "jacobi", "ilu0", "ic0", "factor"};
    const int kinds[] = {SPK_PRECOND_AUTO, SPK_PRECOND_NONE, SPK_PRECOND_JACOBI, SPK_PRECOND_ILU0, SPK_PRECOND_IC0,
                         SPK_PRECOND_FACTOR};
    for (int k = 0; k < 6; k++)
        if (strcmp(v, names[k]) == 0) return kinds[k];
    return -1;
}

/* Parse NAME:key=value,... into c; 0, or a usage message's return. */
static int parse_cfg(const char *spec, solve_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->vector_ops = SPK_VECTOR_BLOCK; /* the library's defaults where a key is not given */
    c->sweeps = SPK_PRECOND_SWEEPS_AUTO;
    c->race = 1;
    const char *colon = strchr(spec, ':');
    size_t nl = colon ? (size_t)(colon - spec) : strlen(spec);
    if (nl == 0 || nl >= sizeof c->name)
        return cli_usage_error("bench", "--solve-config needs NAME[:key=value,...] with a name of 1-31 characters");
    memcpy(c->name, spec, nl);
    if (!colon) return 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", colon + 1);
    for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq) return cli_usage_error("bench", "--solve-config %s: '%s' is not key=value", c->name, kv);
        *eq = '\0';
        const char *key = kv, *val = eq + 1;
        int iv = 0;
        if (strcmp(key, "format") == 0 && strlen(val) < sizeof c->format) {
            snprintf(c->format, sizeof c->format, "%s", val);
        } else if (strcmp(key, "vector") == 0 && (!strcmp(val, "fused") || !strcmp(val, "graph") ||
                                                   !strcmp(val, "block") || !strcmp(val, "classic") ||
                                                   !strcmp(val, "cublas"))) {
            c->vector_ops = !strcmp(val, "fused")   ? SPK_VECTOR_FUSED
                            : !strcmp(val, "graph") ? SPK_VECTOR_GRAPH
                            : !strcmp(val, "block") ? SPK_VECTOR_BLOCK
                                                    : SPK_VECTOR_CLASSIC;
        } else if (strcmp(key, "sweeps") == 0 && !cli_parse_int(val, &iv) && iv >= 0 && iv <= 1000) {
            c->sweeps = iv;
        } else if (strcmp(key, "sweeps") == 0 && strcmp(val, "auto") == 0) {
            c->sweeps = SPK_PRECOND_SWEEPS_AUTO;
        } else if (strcmp(key, "isai") == 0 && !cli_parse_int(val, &iv) && (iv == 0 || iv == 1)) {
            c->isai = iv;
        } else if (strcmp(key, "reorder") == 0 && (!strcmp(val, "none") || !strcmp(val, "multicolor") ||
                                                    !strcmp(val, "block-multicolor"))) {
            c->reorder = !strcmp(val, "none")         ? SPK_REORDER_NONE
                         : !strcmp(val, "multicolor") ? SPK_REORDER_MULTICOLOR
                                                      : SPK_REORDER_BLOCK_MULTICOLOR;
        } else if (strcmp(key, "block") == 0 && !cli_parse_int(val, &iv) && iv >= 1 && iv <= 1000000) {
            c->reorder_block = iv;
        } else if (strcmp(key, "factor") == 0 && (iv = cli_precision_of(val)) >= 0) {
            c->precision = iv;
        } else if (strcmp(key, "precond") == 0 && (iv = precond_of(val)) >= 0) {
            c->precond = iv;
        } else if (strcmp(key, "race") == 0 && !cli_parse_int(val, &iv) && (iv >= 0 && iv <= 2)) {
            c->race = iv;
        } else if (strcmp(key, "rtol") == 0 && !cli_parse_double(val, &c->rtol) && c->rtol > 0 && c->rtol < 1) {
            /* c->rtol set */
        } else {
            return cli_usage_error("bench",
                                   "--solve-config %s: bad '%s=%s' (keys: format=NAME, vector=classic|fused|graph, "
                                   "sweeps=K|auto, factor=auto|double|float, isai=0|1, "
                                   "reorder=none|multicolor|block-multicolor, block=B, "
                                   "precond=auto|factor|none|jacobi|ic0|ilu0, race=0|1|2, rtol=R)",
                                   c->name, key, val);
        }
    }
    return 0;
}

/* ---- one matrix --------------------------------------------------------------- */

static void print_matrix(const bench *b, const mat_result *m)
{
    const fmt_result *base = find_fmt(m, baseline(b));
    printf("%s: %d x %d, %d nonzeros, %s regime (%.2f MB of CSR traffic, cache %.1f MB)\n", m->name, m->rows, m->cols,
           m->nnz, m->cache_regime ? "cache" : "memory", m->traffic / 1e6, (double)b->cache / 1e6);
    printf("  %-11s %9s %9s %10s %7s %9s %9s %6s %7s %10s %6s %7s\n", "format", "setup ms", "MB", "hot ms",
           "GF/s", "GB/s csr", "GB/s own", "copy", "x hot", "cold ms", "copy", "x cold");
    for (int k = 0; k < m->nf; k++) {
        const fmt_result *f = &m->f[k];
        if (f->status) {
            printf("  %-11s %s\n", f->ops->name, f->note);
            continue;
        }
        const rates h = rates_of(b, m, f, 0), c = rates_of(b, m, f, 1);
        printf("  %-11s %9.3f %9.3f %10.4f %7.2f %9.1f %9.1f %6.3f %7.2f %10.4f %6.3f %7.2f%s%s\n", f->ops->name,
               f->setup_ms, f->mbytes, h.ms, h.gflops, h.gbs_csr, h.gbs_own, h.frac, h.speedup, c.ms, c.frac,
               c.speedup, f->chose[0] ? "  -> " : "", f->chose);
    }
    const fmt_result *au = find_fmt(m, "auto");
    const char *who = "";
    double best = best_hot(m, &who);
    payback p;
    if (best > 0 && auto_payback(b, m, &p)) {
        printf("  auto chose %s (%.4f ms on its own, %.4f ms through auto) against the best %.4f ms (%s): "
               "%.1f%% off; selection %.2f ms (upload of A %.2f ms; %s's setup %.2f ms, upload %.2f ms): "
               "%.2f ms beyond %s's setup without the uploads",
               au->chose, chosen_hot(m, au), au->hot_ms, best, who, 100.0 * (chosen_hot(m, au) / best - 1),
               au->setup_ms, au->upload_ms, baseline(b), base->setup_ms, base->upload_ms, p.spmv_cost_ms,
               baseline(b));
        if (p.in_solve)
            printf("; in the solves, from the solver's copy of A: format setup %.2f ms against %s's %.2f ms, "
                   "%.2f ms beyond it",
                   au->s_format_ms, baseline(b), base->s_format_ms, p.cost_ms);
        if (p.products == 0)
            printf(", nothing to pay back");
        else if (isfinite(p.products))
            printf(", paid back after %.0f products", p.products);
        else
            printf(", %s", p.gain_ms > 0 ? "never paid back" : "no faster than the baseline: never paid back");
        if (p.solve_products >= 0) printf("; its solve made %d: %s", p.solve_products, p.paid ? "paid back" : "not paid back");
        printf("\n");
    }
    if (b->ncfg) print_configs(b, m);
    if (!b->solve) return;
    const double bs = base && base->solved && !base->solve_status ? base->s_ms : NAN;
    const int fused = b->vector_ops != SPK_VECTOR_CLASSIC;
    printf("  %-11s %-15s %6s %11s %9s %10s %9s %7s %7s %7s %7s%s\n", "solve with", "method", "iters", "true res",
           "setup ms", "solve ms", "ms/iter", "spmv", "precond", "vector", "x", fused ? "    sync" : "");
    for (int k = 0; k < m->nf; k++) {
        const fmt_result *f = &m->f[k];
        if (!f->solved) continue;
        if (f->solve_status && f->iterations == 0) {
            printf("  %-11s %s\n", f->ops->name, f->solve_note);
            continue;
        }
        char meth[40], sync[32] = "";
        snprintf(meth, sizeof meth, "%s+%s", f->method, f->precond);
        double it = f->iterations > 0 ? f->iterations : 1;
        if (fused) snprintf(sync, sizeof sync, " %7.4f", f->s_sync_ms / it);
        printf("  %-11s %-15s %6d %11.3e %9.2f %10.2f %9.4f %7.4f %7.4f %7.4f %7.2f%s%s%s\n", f->ops->name, meth,
               f->iterations, f->true_relres, f->s_setup_ms, f->s_ms, f->s_ms / it, f->s_spmv_ms / it,
               f->s_precond_ms / it, f->s_vector_ms / it, bs / f->s_ms, sync, f->solve_status ? "  " : "",
               f->solve_status ? spk_status_name(f->solve_status) : "");
    }
}

static void print_floors(const bench *b)
{
    const spk_floors *f = &b->fl;
    const int gpu = !spk_exec_is_host(b->ex);
    printf("floors (medians)%s\n", gpu ? "" : ": on the host a 'kernel' is a call through a function pointer");
    printf("  empty kernel, back to back (GPU time)          %9.3f us\n", f->launch_us);
    printf("  queueing one kernel (host time)                %9.3f us\n", f->issue_us);
    printf("  kernel + stream synchronize (host wall)        %9.3f us\n", f->sync_us);
    printf("  kernel + 8-byte readback + synchronize         %9.3f us\n", f->readback_us);
    if (gpu) printf("  kernel in a CUDA graph, replayed (GPU time)    %9.3f us\n", f->graph_us);
    printf("  upload %s: pageable %.1f GB/s, pinned %.1f GB/s, pinned for the copy %.1f GB/s\n\n",
           gpu ? "256 MiB" : "(memcpy 64 MiB)", f->upload_pageable_gbs, f->upload_pinned_gbs, f->upload_register_gbs);
}

static int bench_matrix(bench *b, const char *name, spk_csr *A)
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
        progress(b, m, f, "spmv");
    }
    if (b->solve || b->ncfg) {
        spk_matrix *M = NULL;
        double *rhs = malloc(((size_t)nr + 1) * sizeof(double)), *xs = malloc(((size_t)nc + 1) * sizeof(double));
        if (!rhs || !xs || nr != nc) {
            for (int k = b->solve ? 0 : m->nf; k < m->nf + b->ncfg; k++) {
                fmt_result *f = k < m->nf ? &m->f[k] : &m->c[k - m->nf];
                f->solved = 1;
                f->solve_status = nr != nc ? SPK_ERR_INVALID_MATRIX : SPK_ERR_NOMEM;
                snprintf(f->solve_note, sizeof f->solve_note, "%s",
                         nr != nc ? "not square: no linear system" : "out of host memory");
            }
        } else if (spk_matrix_from_csr(b->ctx, nr, nc, A->rowptr, A->colind, A->val, &M)) {
            for (int k = b->solve ? 0 : m->nf; k < m->nf + b->ncfg; k++) {
                fmt_result *f = k < m->nf ? &m->f[k] : &m->c[k - m->nf];
                f->solved = 1;
                f->solve_status = SPK_ERR_INVALID_MATRIX;
                snprintf(f->solve_note, sizeof f->solve_note, "%s", spk_last_error(b->ctx));
            }
        } else {
            spk_rhs_known_solution(A, xs, rhs);
            for (int k = 0; b->solve && k < m->nf; k++) {
                if (m->f[k].status) continue; /* the format refused the matrix */
                /* the solver's "auto" is csr on the host: that solve is already the baseline's */
                if (spk_exec_is_host(b->ex) && strcmp(m->f[k].ops->name, "auto") == 0) continue;
                const solve_cfg c = format_cfg(b, m->f[k].ops->name);
                bench_solve(b, M, rhs, xs, nc, &c, &m->f[k]);
                progress(b, m, &m->f[k], "solve");
            }
            for (int k = 0; k < b->ncfg; k++) {
                bench_solve(b, M, rhs, xs, nc, &b->cfg[k], &m->c[k]);
                if (!b->quiet)
                    fprintf(stderr, "spk bench: [%d/%d] %s config %s: %s, %d iterations, %.2f ms\n", b->nm + 1,
                            b->total, m->name, b->cfg[k].name,
                            m->c[k].solve_status ? spk_status_name(m->c[k].solve_status) : "converged",
                            m->c[k].iterations, m->c[k].s_setup_ms + m->c[k].s_ms);
            }
        }
        spk_matrix_destroy(M);
        free(rhs);
        free(xs);
    }
    print_matrix(b, m);
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

/* ---- output files ------------------------------------------------------------- */

static double geomean_speedup(const bench *b, const char *fmt, int what, int *count)
{
    double s = 0;
    int n = 0;
    for (int i = 0; i < b->nm; i++) {
        const fmt_result *base = find_fmt(&b->m[i], baseline(b)), *f = find_fmt(&b->m[i], fmt);
        if (!base || !f || base->status || f->status) continue;
        double r;
        if (what == 0)
            r = base->hot_ms / f->hot_ms;
        else if (what == 1)
            r = base->cold_ms / f->cold_ms;
        else if (base->solved && f->solved && !base->solve_status && !f->solve_status)
            r = base->s_ms / f->s_ms;
        else
            continue;
        if (!(r > 0) || !isfinite(r)) continue;
        s += log(r);
        n++;
    }
    *count = n;
    return n ? exp(s / n) : NAN;
}

/* auto picked a format within 5% of the best hot time: how many matrices of how many. */
static void auto_accuracy(const bench *b, int *ok, int *of)
{
    *ok = *of = 0;
    for (int i = 0; i < b->nm; i++) {
        const fmt_result *au = find_fmt(&b->m[i], "auto");
        const char *who = "";
        double best = best_hot(&b->m[i], &who);
        if (!au || au->status || best <= 0) continue;
        (*of)++;
        *ok += chosen_hot(&b->m[i], au) <= 1.05 * best;
    }
}

static void json_num(FILE *f, const char *key, double v)
{
    fprintf(f, ", \"%s\": ", key);
    cli_json_number(f, v);
}

/* Close the in-memory report f and write it to path as spk writes files
 * (temporary file, renamed when complete); the message in b->err. */
static int report_close(bench *b, FILE *f, char **mem, size_t *len, const char *path)
{
    int st = fclose(f) != 0 ? spk_err_set(&b->err, SPK_ERR_NOMEM, "out of host memory (report)")
                            : spk_write_file(path, *mem, *len, &b->err);
    free(*mem);
    *mem = NULL;
    return st;
}

static int write_json(bench *b, const char *path, int argc, char **argv)
{
    char *mem = NULL;
    size_t memlen = 0;
    FILE *f = open_memstream(&mem, &memlen); /* the report is written whole, then to path (report_close) */
    if (!f) return spk_err_set(&b->err, SPK_ERR_NOMEM, "out of host memory (report)");
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    fprintf(f, "{\"spk_version\": \"%s\", \"date\": \"%s\", \"command\": ", spk_version(), date);
    char cmd[2048] = "spk bench";
    size_t used = strlen(cmd);
    for (int i = 1; i < argc && used < sizeof cmd; i++) {
        int w = snprintf(cmd + used, sizeof cmd - used, " %s", argv[i]);
        if (w > 0) used += (size_t)w;
    }
    cli_json_string(f, cmd);
    fprintf(f, ", \"device\": ");
    cli_json_string(f, b->devname);
    fprintf(f, ", \"executor\": \"%s\", \"baseline\": \"%s\", \"precision\": \"%s\"", b->ex->ops->name,
            baseline(b), b->single ? "float" : "double");
    json_num(f, "copy_gbs", b->copy_gbs);
    fprintf(f, ", \"cache_bytes\": %zu, \"min_time_s\": %g, \"repeat\": %d, \"solve_repeat\": %d", b->cache,
            b->min_time, b->repeat, b->solve_repeat);
    fprintf(f, ", \"vector_ops\": \"%s\"", cli_vector_ops_name(b->vector_ops));
    static const char *const reorders[] = {"none", "multicolor", "block-multicolor"};
    spk_options od;
    spk_options_default(&od);
    fprintf(f, ", \"solve_configs\": [");
    for (int k = 0; k < b->ncfg; k++) {
        const solve_cfg *c = &b->cfg[k];
        fprintf(f, "%s{\"name\": ", k ? ", " : "");
        cli_json_string(f, c->name);
        fprintf(f, ", \"format\": ");
        cli_json_string(f, c->format[0] ? c->format : "auto");
        fprintf(f, ", \"vector_ops\": \"%s\", \"precond_sweeps\": %d, \"precond_isai\": %d, \"reorder\": \"%s\", "
                   "\"reorder_block\": %d, \"precond\": \"%s\", \"precond_precision\": \"%s\", \"race\": %d, "
                   "\"rtol\": %g}",
                cli_vector_ops_name(c->vector_ops), c->sweeps, c->isai, reorders[c->reorder],
                c->reorder_block, spk_precond_kind_name((spk_precond_kind)c->precond),
                cli_precision_name(c->precision), c->race, c->rtol > 0 ? c->rtol : od.rtol);
    }
    fprintf(f, "]");
    if (b->floors) {
        fprintf(f, ", \"floors\": {\"launch_us\": ");
        cli_json_number(f, b->fl.launch_us);
        json_num(f, "issue_us", b->fl.issue_us);
        json_num(f, "sync_us", b->fl.sync_us);
        json_num(f, "readback_us", b->fl.readback_us);
        json_num(f, "graph_us", b->fl.graph_us);
        json_num(f, "upload_pageable_gbs", b->fl.upload_pageable_gbs);
        json_num(f, "upload_pinned_gbs", b->fl.upload_pinned_gbs);
        json_num(f, "upload_register_gbs", b->fl.upload_register_gbs);
        fprintf(f, "}");
    }
    fprintf(f, ", \"matrices\": [");
    for (int i = 0; i < b->nm; i++) {
        const mat_result *m = &b->m[i];
        fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
        cli_json_string(f, m->name);
        fprintf(f, ", \"rows\": %d, \"cols\": %d, \"nnz\": %d, \"regime\": \"%s\"", m->rows, m->cols, m->nnz,
                m->cache_regime ? "cache" : "memory");
        json_num(f, "csr_traffic_bytes", m->traffic);
        fprintf(f, ", \"formats\": [");
        const fmt_result *base = find_fmt(m, baseline(b));
        for (int k = 0; k < m->nf; k++) {
            const fmt_result *r = &m->f[k];
            fprintf(f, "%s\n    {\"format\": \"%s\", \"status\": \"%s\"", k ? "," : "", r->ops->name,
                    r->status == SPK_OK ? "ok" : r->status == SPK_ERR_UNSUPPORTED ? "refused" : "failed");
            fprintf(f, ", \"note\": ");
            cli_json_string(f, r->note);
            json_num(f, "setup_ms", r->setup_ms);
            if (!r->status) {
                json_num(f, "device_mb", r->mbytes);
                json_num(f, "rel_err", r->rel_err);
                const int calls[2] = {r->hot_calls, r->cold_calls};
                const char *reg[2] = {"hot", "cold"};
                for (int h = 0; h < 2; h++) {
                    const rates q = rates_of(b, m, r, h);
                    fprintf(f, ", \"%s\": {\"ms\": ", reg[h]);
                    cli_json_number(f, q.ms);
                    fprintf(f, ", \"calls\": %d", calls[h]);
                    if (h == 0) fprintf(f, ", \"batch\": %d", r->hot_batch);
                    json_num(f, "gflops", q.gflops);
                    json_num(f, "gbs_csr", q.gbs_csr);
                    json_num(f, "gbs_own", q.gbs_own);
                    json_num(f, "frac_copy", q.frac);
                    json_num(f, "speedup", q.speedup);
                    fprintf(f, "}");
                }
                json_num(f, "upload_ms", r->upload_ms);
                payback p;
                if (r->chose[0]) {
                    fprintf(f, ", \"auto_choice\": \"%s\"", r->chose);
                    json_num(f, "auto_choice_hot_ms", chosen_hot(m, r));
                    if (auto_payback(b, m, &p)) {
                        json_num(f, "auto_cost_ms", p.cost_ms);
                        fprintf(f, ", \"auto_cost_from\": \"%s\"", p.in_solve ? "solve" : "spmv");
                        json_num(f, "auto_spmv_cost_ms", p.spmv_cost_ms);
                        json_num(f, "auto_payback_products", p.products);
                        fprintf(f, ", \"auto_solve_products\": %d, \"auto_paid_back\": %s", p.solve_products,
                                p.solve_products < 0 ? "null" : p.paid ? "true" : "false");
                    }
                }
            }
            if (r->solved) {
                fprintf(f, ", \"solve\": {\"status\": \"%s\", \"method\": \"%s\", \"precond\": \"%s\", \"iterations\": %d",
                        r->solve_status ? spk_status_name(r->solve_status) : "converged", r->method, r->precond,
                        r->iterations);
                fprintf(f, ", \"colors\": %d, \"levels_lower\": %d, \"levels_upper\": %d", r->colors, r->levels_lower,
                        r->levels_upper);
                json_num(f, "true_relres", r->true_relres);
                json_num(f, "setup_ms", r->s_setup_ms);
                json_num(f, "solve_ms", r->s_ms);
                json_num(f, "spmv_ms", r->s_spmv_ms);
                json_num(f, "precond_ms", r->s_precond_ms);
                json_num(f, "vector_ms", r->s_vector_ms);
                json_num(f, "sync_ms", r->s_sync_ms);
                json_num(f, "format_setup_ms", r->s_format_ms);
                json_num(f, "precond_setup_ms", r->s_pc_setup_ms);
                fprintf(f, ", \"graph_iterations\": %d, \"block_iterations\": %d, \"block_cluster\": %d, \"race\": %d",
                        r->graph_iterations, r->block_iterations, r->block_cluster, r->race);
                json_num(f, "ms_per_iteration", r->iterations > 0 ? r->s_ms / r->iterations : NAN);
                json_num(f, "speedup", base && base->solved && !base->solve_status && !r->solve_status
                                           ? base->s_ms / r->s_ms
                                           : NAN);
                fprintf(f, ", \"note\": ");
                cli_json_string(f, r->solve_note);
                fprintf(f, "}");
            }
            fprintf(f, "}");
        }
        fprintf(f, "]");
        if (b->ncfg) {
            fprintf(f, ", \"configs\": [");
            const double rt = cfg_total(&m->c[0]);
            for (int k = 0; k < b->ncfg; k++) {
                const fmt_result *r = &m->c[k];
                fprintf(f, "%s\n    {\"name\": ", k ? "," : "");
                cli_json_string(f, b->cfg[k].name);
                fprintf(f,
                        ", \"status\": \"%s\", \"method\": \"%s\", \"precond\": \"%s\", \"precond_sweeps\": %d, "
                        "\"iterations\": %d",
                        !r->solved ? "not run" : r->solve_status ? spk_status_name(r->solve_status) : "converged",
                        r->method, r->precond, r->sweeps, r->iterations);
                json_num(f, "true_relres", r->true_relres);
                json_num(f, "setup_ms", r->s_setup_ms);
                json_num(f, "format_setup_ms", r->s_format_ms);
                json_num(f, "precond_setup_ms", r->s_pc_setup_ms);
                json_num(f, "solve_ms", r->s_ms);
                json_num(f, "total_ms", cfg_total(r));
                json_num(f, "spmv_ms", r->s_spmv_ms);
                json_num(f, "precond_ms", r->s_precond_ms);
                json_num(f, "vector_ms", r->s_vector_ms);
                json_num(f, "sync_ms", r->s_sync_ms);
                json_num(f, "speedup_total", rt / cfg_total(r));
                fprintf(f, ", \"graph_iterations\": %d, \"block_iterations\": %d, \"block_cluster\": %d, \"race\": %d",
                        r->graph_iterations, r->block_iterations, r->block_cluster, r->race);
                fprintf(f, ", \"note\": ");
                cli_json_string(f, r->solve_note);
                fprintf(f, "}");
            }
            fprintf(f, "]");
        }
        fprintf(f, "}");
    }
    fprintf(f, "\n], \"summary\": [");
    for (int k = 0; k < b->nfmts; k++) {
        int nh, nc, ns;
        double gh = geomean_speedup(b, b->fmts[k]->name, 0, &nh), gc = geomean_speedup(b, b->fmts[k]->name, 1, &nc);
        double gs = geomean_speedup(b, b->fmts[k]->name, 2, &ns);
        fprintf(f, "%s\n  {\"format\": \"%s\"", k ? "," : "", b->fmts[k]->name);
        json_num(f, "geomean_speedup_hot", gh);
        json_num(f, "geomean_speedup_cold", gc);
        json_num(f, "geomean_speedup_solve", gs);
        fprintf(f, ", \"matrices\": %d, \"solves\": %d}", nh, ns);
    }
    int ok, of, pk, pof;
    auto_accuracy(b, &ok, &of);
    auto_paid(b, &pk, &pof);
    fprintf(f, "\n], \"auto_within_5pct\": %d, \"auto_matrices\": %d", ok, of); /* by the chosen format's own time */
    fprintf(f, ", \"auto_paid_back\": %d, \"auto_solves\": %d", pk, pof);
    fprintf(f, ", \"config_summary\": [");
    for (int k = 0; k < b->ncfg; k++) {
        double geo, least, least_big, ir;
        int big, n = cfg_summary(b, k, &geo, &least, &least_big, &big, &ir);
        fprintf(f, "%s{\"name\": ", k ? ", " : "");
        cli_json_string(f, b->cfg[k].name);
        json_num(f, "geomean_speedup_total", geo);
        json_num(f, "least_speedup_total", least);
        json_num(f, "least_speedup_total_above_1M", least_big);
        fprintf(f, ", \"matrices_above_1M\": %d", big);
        json_num(f, "max_iteration_ratio", ir);
        fprintf(f, ", \"matrices\": %d}", n);
    }
    fprintf(f, "]}\n");
    return report_close(b, f, &mem, &memlen, path);
}

static int write_csv(bench *b, const char *path)
{
    char *mem = NULL;
    size_t memlen = 0;
    FILE *f = open_memstream(&mem, &memlen); /* the report is written whole, then to path (report_close) */
    if (!f) return spk_err_set(&b->err, SPK_ERR_NOMEM, "out of host memory (report)");
    fprintf(f, "matrix,rows,cols,nnz,regime,format,status,setup_ms,device_mb,hot_ms,hot_calls,cold_ms,cold_calls,"
               "gflops_hot,gbs_csr_hot,gbs_own_hot,frac_copy_hot,frac_copy_cold,speedup_hot,speedup_cold,rel_err,"
               "auto_choice,solve_status,method,precond,iterations,true_relres,solve_setup_ms,solve_ms,"
               "ms_per_iteration,spmv_ms,precond_ms,vector_ms,solve_speedup\n");
    for (int i = 0; i < b->nm; i++) {
        const mat_result *m = &b->m[i];
        const fmt_result *base = find_fmt(m, baseline(b));
        for (int k = 0; k < m->nf; k++) {
            const fmt_result *r = &m->f[k];
            fprintf(f, "%s,%d,%d,%d,%s,%s,%s,%.4f", m->name, m->rows, m->cols, m->nnz,
                    m->cache_regime ? "cache" : "memory", r->ops->name,
                    r->status == SPK_OK ? "ok" : r->status == SPK_ERR_UNSUPPORTED ? "refused" : "failed", r->setup_ms);
            if (r->status) {
                fprintf(f, ",,,,,,,,,,,,,,");
            } else {
                const rates h = rates_of(b, m, r, 0), c = rates_of(b, m, r, 1);
                fprintf(f, ",%.6f,%.6f,%d,%.6f,%d,%.4f,%.3f,%.3f,%.5f,%.5f,%.5f,%.5f,%.3g,%s", r->mbytes, h.ms,
                        r->hot_calls, c.ms, r->cold_calls, h.gflops, h.gbs_csr, h.gbs_own, h.frac, c.frac, h.speedup,
                        c.speedup, r->rel_err, r->chose);
            }
            if (r->solved) {
                double it = r->iterations > 0 ? r->iterations : NAN;
                double bs = base && base->solved && !base->solve_status && !r->solve_status ? base->s_ms / r->s_ms : NAN;
                fprintf(f, ",%s,%s,%s,%d,%.3e,%.3f,%.3f,%.5f,%.3f,%.3f,%.3f,%.4f\n",
                        r->solve_status ? spk_status_name(r->solve_status) : "converged", r->method, r->precond,
                        r->iterations, r->true_relres, r->s_setup_ms, r->s_ms, r->s_ms / it, r->s_spmv_ms,
                        r->s_precond_ms, r->s_vector_ms, bs);
            } else {
                fprintf(f, ",,,,,,,,,,,,\n");
            }
        }
    }
    return report_close(b, f, &mem, &memlen, path);
}

static void print_summary(const bench *b)
{
    printf("\nsummary: geometric mean of the speedup over %s (matrices where both ran)\n", baseline(b));
    printf("  %-11s %8s %8s %8s %9s\n", "format", "hot", "cold", "solve", "matrices");
    for (int k = 0; k < b->nfmts; k++) {
        int nh, nc, ns;
        double gh = geomean_speedup(b, b->fmts[k]->name, 0, &nh), gc = geomean_speedup(b, b->fmts[k]->name, 1, &nc);
        double gs = geomean_speedup(b, b->fmts[k]->name, 2, &ns);
        printf("  %-11s %8.3f %8.3f %8.3f %9d\n", b->fmts[k]->name, gh, gc, gs, nh);
    }
    int ok, of;
    auto_accuracy(b, &ok, &of);
    if (of)
        printf("auto: the format it chose is within 5%% of the best measured hot time on %d of %d matrices\n", ok,
               of);
    auto_paid(b, &ok, &of);
    if (of)
        printf("auto: its selection paid for itself within the solve on %d of %d matrices whose auto solve "
               "converged\n", ok, of);
}

/* ---- the command -------------------------------------------------------------- */

static int has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), c = strlen(suf);
    return a >= c && strcmp(s + a - c, suf) == 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of dir, sorted; *n of them (caller frees each and the array). */
static char **list_dir(const char *dir, int *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) return NULL;
    char **v = NULL;
    int cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!has_suffix(de->d_name, ".mtx") && !has_suffix(de->d_name, ".mtx.gz")) continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            char **w = realloc(v, (size_t)cap * sizeof *v);
            if (!w) break;
            v = w;
        }
        size_t len = strlen(dir) + strlen(de->d_name) + 2;
        v[*n] = malloc(len);
        if (!v[*n]) break;
        snprintf(v[*n], len, "%s/%s", dir, de->d_name);
        (*n)++;
    }
    closedir(d);
    if (v) qsort(v, (size_t)*n, sizeof *v, cmp_str);
    return v;
}

/* Select the formats of LIST ("all" or a,b,c) for the executor, baseline first. */
static int select_formats(bench *b, const char *list)
{
    const char *base = baseline(b);
    b->nfmts = 0;
    for (const struct spk_spmv_ops *const *p = spk_spmv_list(); *p; p++)
        if (strcmp((*p)->exec, b->ex->ops->name) == 0 && strcmp((*p)->name, base) == 0) b->fmts[b->nfmts++] = *p;
    int all = !list || strcmp(list, "all") == 0;
    if (!all) { /* every listed name must exist here */
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", list);
        for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
            const struct spk_spmv_ops *ops = NULL;
            int found = 0;
            for (const struct spk_spmv_ops *const *p = spk_spmv_list(); *p; p++)
                found |= strcmp((*p)->exec, b->ex->ops->name) == 0 && strcmp((*p)->name, tok) == 0;
            if (!found) {
                spk_spmv_find(tok, b->ex, &ops, &b->err);
                return cli_usage_error("bench", "--formats: %s", b->err.msg[0] ? b->err.msg : tok);
            }
        }
    }
    for (const struct spk_spmv_ops *const *p = spk_spmv_list(); *p && b->nfmts < 64; p++) {
        if (strcmp((*p)->exec, b->ex->ops->name) != 0 || strcmp((*p)->name, base) == 0) continue;
        int want = all;
        if (!all) {
            size_t n = strlen((*p)->name);
            for (const char *q = list; (q = strstr(q, (*p)->name)) != NULL; q++)
                if ((q == list || q[-1] == ',') && (q[n] == ',' || q[n] == '\0')) want = 1;
        }
        if (want) b->fmts[b->nfmts++] = *p;
    }
    return CLI_OK;
}

int cmd_bench(int argc, char **argv)
{
    bench b;
    memset(&b, 0, sizeof b);
    b.vector_ops = SPK_VECTOR_BLOCK;
    b.sweeps = SPK_PRECOND_SWEEPS_AUTO;
    b.repeat = 10;
    b.solve_repeat = 1;
    b.min_time = 0.2;
    b.maxit = 10000;
    const char *formats = NULL, *csv = NULL, *json = NULL, *v = NULL;
    spk_device device = SPK_DEVICE_AUTO;
    int r, nsrc = 0;
    const char **src = calloc((size_t)argc + 1, sizeof *src); /* matrices, gen: specs and "--dir" entries */
    int *isdir = calloc((size_t)argc + 1, sizeof *isdir);
    if (!src || !isdir) {
        free(src);
        free(isdir);
        fprintf(stderr, "spk bench: out of host memory\n");
        return CLI_FAIL;
    }
    int rc = CLI_USAGE;
    for (int i = 1; i < argc; i++) {
        if (cli_flag(argv[i], "help") || strcmp(argv[i], "-h") == 0) {
            help();
            rc = CLI_OK;
            goto out;
        } else if (cli_flag(argv[i], "precond-isai")) {
            b.isai = 1;
        } else if ((r = cli_vector_ops_option("bench", argc, argv, &i, &b.vector_ops))) {
            if (r < 0) goto out;
        } else if ((r = cli_reorder_option("bench", argc, argv, &i, &b.reorder, &b.reorder_block))) {
            if (r < 0) goto out;
        } else if ((r = cli_tile_option("bench", argc, argv, &i, &b.fo))) {
            if (r < 0) goto out;
        } else if ((r = cli_opt_value(argc, argv, &i, "precision", &v))) {
            if (r < 0 || (strcmp(v, "double") != 0 && strcmp(v, "float") != 0)) {
                cli_usage_error("bench", "--precision needs double or float");
                goto out;
            }
            b.single = strcmp(v, "float") == 0;
        } else if (cli_flag(argv[i], "solve")) {
            b.solve = 1;
        } else if (cli_flag(argv[i], "floors")) {
            b.floors = 1;
        } else if ((r = cli_opt_value(argc, argv, &i, "solve-config", &v))) {
            if (r < 0 || b.ncfg == MAX_CONFIGS) {
                cli_usage_error("bench", r < 0 ? "--solve-config needs NAME[:key=value,...]"
                                               : "at most 8 --solve-config");
                goto out;
            }
            if (parse_cfg(v, &b.cfg[b.ncfg])) goto out;
            b.ncfg++;
        } else if (cli_flag(argv[i], "quiet")) {
            b.quiet = 1;
        } else if ((r = cli_opt_value(argc, argv, &i, "formats", &v))) {
            if (r < 0 || !*v) {
                cli_usage_error("bench", "--formats needs all or a list of names");
                goto out;
            }
            formats = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "repeat", &v))) {
            if (r < 0 || cli_parse_int(v, &b.repeat) || b.repeat < 1) {
                cli_usage_error("bench", "--repeat needs an integer >= 1");
                goto out;
            }
        } else if ((r = cli_opt_value(argc, argv, &i, "solve-repeat", &v))) {
            if (r < 0 || cli_parse_int(v, &b.solve_repeat) || b.solve_repeat < 1 || b.solve_repeat > 15) {
                cli_usage_error("bench", "--solve-repeat needs an integer in [1, 15]");
                goto out;
            }
        } else if ((r = cli_opt_value(argc, argv, &i, "min-time", &v))) {
            if (r < 0 || cli_parse_double(v, &b.min_time) || !(b.min_time >= 0) || b.min_time > 3600) {
                cli_usage_error("bench", "--min-time needs seconds in [0, 3600]");
                goto out;
            }
        } else if ((r = cli_opt_value(argc, argv, &i, "maxit", &v))) {
            if (r < 0 || cli_parse_int(v, &b.maxit) || b.maxit < 0) {
                cli_usage_error("bench", "--maxit needs an integer >= 0");
                goto out;
            }
        } else if ((r = cli_opt_value(argc, argv, &i, "precond-sweeps", &v))) {
            if (r > 0 && strcmp(v, "auto") == 0) {
                b.sweeps = SPK_PRECOND_SWEEPS_AUTO;
            } else if (r < 0 || cli_parse_int(v, &b.sweeps) || b.sweeps < 0 || b.sweeps > 1000) {
                cli_usage_error("bench", "--precond-sweeps needs an integer in [0, 1000] or auto");
                goto out;
            }
        } else if ((r = cli_opt_value(argc, argv, &i, "device", &v))) {
            if (r < 0) {
                cli_usage_error("bench", "--device needs auto, cpu or cuda");
                goto out;
            }
            if (strcmp(v, "auto") == 0)
                device = SPK_DEVICE_AUTO;
            else if (strcmp(v, "cpu") == 0 || strcmp(v, "host") == 0)
                device = SPK_DEVICE_HOST;
            else if (strcmp(v, "cuda") == 0 || strcmp(v, "gpu") == 0)
                device = SPK_DEVICE_CUDA;
            else {
                cli_usage_error("bench", "--device must be auto, cpu or cuda (got '%s')", v);
                goto out;
            }
        } else if ((r = cli_opt_value(argc, argv, &i, "csv", &v))) {
            if (r < 0) {
                cli_usage_error("bench", "--csv needs a file");
                goto out;
            }
            csv = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "json", &v))) {
            if (r < 0) {
                cli_usage_error("bench", "--json needs a file");
                goto out;
            }
            json = v;
        } else if ((r = cli_opt_value(argc, argv, &i, "dir", &v))) {
            if (r < 0) {
                cli_usage_error("bench", "--dir needs a folder");
                goto out;
            }
            isdir[nsrc] = 1;
            src[nsrc++] = v;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_usage_error("bench", "unknown option '%s'", argv[i]);
            goto out;
        } else {
            src[nsrc++] = argv[i];
        }
    }
    if (b.single && (b.solve || b.ncfg)) {
        cli_usage_error("bench", "--precision float times the products only: the solvers run in double "
                                 "(drop --solve and --solve-config, or bench the solves in another run)");
        goto out;
    }
    if (!nsrc && !b.floors) {
        cli_usage_error("bench", "no matrix: give files, gen:SPEC or --dir DIR (or --floors alone)");
        goto out;
    }
    rc = CLI_FAIL;
    /* the context of the solves decides the device; the benchmark executor follows it */
    int st = spk_context_create(&b.ctx, device);
    if (st) {
        fprintf(stderr, "spk bench: %s\n",
                st == SPK_ERR_DEVICE ? "no usable CUDA device (use --device cpu)" : spk_status_name(st));
        goto out;
    }
    if (strcmp(spk_context_device(b.ctx), "cuda") == 0) {
#ifdef SPK_HAVE_CUDA
        st = spk_exec_cuda_create(&b.err, &b.ex);
#else
        st = SPK_ERR_DEVICE;
#endif
    } else {
        st = spk_exec_host_create(&b.err, &b.ex);
    }
    if (!st) st = spk_timer_create(b.ex, 1, &b.timer);
    if (!st) st = spk_exec_copy_bandwidth(b.ex, &b.copy_gbs);
    if (st) {
        fprintf(stderr, "spk bench: %s\n", b.err.msg);
        goto out;
    }
    if ((st = select_formats(&b, formats))) {
        rc = st;
        goto out;
    }
    b.cache = spk_exec_cache_bytes(b.ex);
    spk_exec_device_name(b.ex, b.devname, sizeof b.devname);
    /* count the matrices for the progress lines */
    for (int i = 0; i < nsrc; i++) {
        if (!isdir[i]) {
            b.total++;
            continue;
        }
        int n = 0;
        char **files = list_dir(src[i], &n);
        if (!files) {
            fprintf(stderr, "spk bench: cannot read the folder %s\n", src[i]);
            goto out;
        }
        b.total += n;
        for (int k = 0; k < n; k++) free(files[k]);
        free(files);
    }
    printf("spk bench on %s (%s executor): copy bandwidth %.0f GB/s (read + write), cache %.1f MB, baseline %s, "
           "products in %s\n\n",
           b.devname, b.ex->ops->name, b.copy_gbs, (double)b.cache / 1e6, baseline(&b), b.single ? "float" : "double");
    if (b.floors) {
        if ((st = spk_exec_floors(b.ex, &b.fl))) {
            fprintf(stderr, "spk bench: floors: %s\n", b.err.msg);
            goto out;
        }
        print_floors(&b);
    }
    int bad = 0;
    for (int i = 0; i < nsrc; i++) {
        int n = 1;
        char **files = isdir[i] ? list_dir(src[i], &n) : NULL;
        for (int k = 0; k < n; k++) {
            const char *name = isdir[i] ? files[k] : src[i];
            spk_csr A = {0};
            spk_err_clear(&b.err);
            if (strncmp(name, "gen:", 4) == 0)
                st = spk_gen_spec(name + 4, &A, &b.err);
            else
                st = spk_mm_read_csr(name, &A, NULL, &b.err);
            if (st) {
                fprintf(stderr, "spk bench: %s: %s\n", name, b.err.msg);
                bad = 1;
                b.total--;
            } else if (bench_matrix(&b, strncmp(name, "gen:", 4) == 0 ? name + 4 : name, &A)) {
                fprintf(stderr, "spk bench: %s: %s\n", name, b.err.msg);
                bad = 1;
            }
            spk_csr_free(&A);
            if (isdir[i]) free(files[k]);
        }
        free(files);
    }
    if (b.nm || nsrc) print_summary(&b);
    if (b.ncfg) print_config_summary(&b);
    if (json && write_json(&b, json, argc, argv)) {
        fprintf(stderr, "spk bench: %s\n", b.err.msg);
        bad = 1;
    }
    if (csv && write_csv(&b, csv)) {
        fprintf(stderr, "spk bench: %s\n", b.err.msg);
        bad = 1;
    }
    rc = bad ? CLI_FAIL : CLI_OK;
out:
    free(src);
    free(isdir);
    free(b.m);
    spk_timer_destroy(b.timer);
    spk_exec_destroy(b.ex);
    spk_context_destroy(b.ctx);
    return rc;
}
