/* bench_report.c -- `spk bench`'s text report and the figures it derives
 * from the results: rates against the copy bandwidth and the baseline, what
 * auto's choice cost and paid back, the configurations' speedups. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

const char *bench_baseline(const bench *b)
{
    return spk_exec_is_host(b->ex) ? "csr" : "cusparse";
}

const fmt_result *bench_find(const mat_result *m, const char *name)
{
    for (int k = 0; k < m->nf; k++)
        if (strcmp(m->f[k].ops->name, name) == 0) return &m->f[k];
    return NULL;
}

/* What one measured product time means (hot or cold). */
rates bench_rates(const bench *b, const mat_result *m, const fmt_result *f, int cold)
{
    const fmt_result *base = bench_find(m, bench_baseline(b));
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
double bench_chosen_hot(const mat_result *m, const fmt_result *au)
{
    const fmt_result *c = bench_find(m, au->chose);
    return c && !c->status ? c->hot_ms : au->hot_ms;
}

/* What auto's selection cost and whether its solve paid for it. */
int bench_payback(const bench *b, const mat_result *m, payback *p)
{
    const fmt_result *au = bench_find(m, "auto"), *base = bench_find(m, bench_baseline(b));
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
void bench_auto_paid(const bench *b, int *ok, int *of)
{
    *ok = *of = 0;
    for (int i = 0; i < b->nm; i++) {
        payback p;
        if (!bench_payback(b, &b->m[i], &p) || p.solve_products < 0) continue;
        (*of)++;
        *ok += p.paid;
    }
}

void bench_status(bench *b, int force)
{
    if (!b->prog.on || !b->cur) return;
    const double t = cli_progress_elapsed(&b->prog);
    const int done = b->at - 1;
    char el[32], rest[48] = "estimating the rest";
    cli_progress_duration(t, el, sizeof el);
    if (done > 0) { /* the matrices so far, on average */
        char r[32];
        cli_progress_duration(t / done * (b->total - done), r, sizeof r);
        snprintf(rest, sizeof rest, "about %s to go", r);
    }
    const char *slash = strrchr(b->cur, '/');
    cli_progress_show(&b->prog, force, "spk bench: matrix %d of %d, %.40s, %s elapsed, %s", b->at, b->total,
                      slash ? slash + 1 : b->cur, el, rest);
}

void bench_progress(bench *b, const mat_result *m, const fmt_result *f, const char *what)
{
    if (b->quiet) return;
    cli_progress_clear(&b->prog); /* the line under this one again at the end */
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
    bench_status(b, 1);
}


/* setup + solve without the upload of A (the baseline ref times it apart;
 * spk's setup includes it) of a converged solve (NAN otherwise) */
double bench_cfg_total(const fmt_result *f)
{
    if (!f->solved || f->solve_status) return NAN;
    return f->s_setup_ms - (f->s_upload_apart ? 0.0 : f->s_upload_ms) + f->s_ms;
}

/* v as %W.Pf, or "-" where there is no number (not measured, nothing to
 * compare with: NaN or infinite). */
static const char *num(char *buf, size_t len, int width, int prec, double v)
{
    if (!isfinite(v))
        snprintf(buf, len, "%*s", width, "-");
    else
        snprintf(buf, len, "%*.*f", width, prec, v);
    return buf;
}

/* v / it as %7.4f, or "-" where not measured (NaN: the baseline's split). */
static const char *per_it(char *buf, size_t len, double v, double it)
{
    return num(buf, len, 7, 4, v / it);
}

/* The configurations' solves of m (on the host without the upload column:
 * nothing is uploaded there). */
static void print_configs(const bench *b, const mat_result *m)
{
    const double rt = bench_cfg_total(&m->c[0]);
    const int gpu = !spk_exec_is_host(b->ex);
    char ratio[40];
    snprintf(ratio, sizeof ratio, "x %.6s", b->cfg[0].name);
    printf("  %-12s %-20s %6s %11s %9s%s %10s %10s %9s %7s %7s %7s %7s %8s\n", "config", "method", "iters",
           "true res", "setup ms", gpu ? "    upload" : "", "solve ms", "total ms", "ms/iter", "spmv", "precond",
           "vector", "sync", ratio);
    for (int k = 0; k < b->ncfg; k++) {
        const fmt_result *f = &m->c[k];
        if (!f->solved) continue;
        if (f->solve_status && f->iterations == 0) {
            printf("  %-12s %s\n", b->cfg[k].name, f->solve_note);
            continue;
        }
        char meth[40], p[4][16], up[24] = "", x[16];
        snprintf(meth, sizeof meth, "%s+%s", f->method, f->precond);
        if (gpu) snprintf(up, sizeof up, " %9.2f", f->s_upload_ms);
        const double it = f->iterations > 0 ? f->iterations : 1;
        printf("  %-12s %-20s %6d %11.3e %9.2f%s %10.2f %10.2f %9.4f %s %s %s %s %s%s%s\n", b->cfg[k].name, meth,
               f->iterations, f->true_relres, f->s_setup_ms, up, f->s_ms,
               f->s_setup_ms + f->s_ms - (f->s_upload_apart ? 0.0 : f->s_upload_ms), f->s_ms / it,
               per_it(p[0], sizeof p[0], f->s_spmv_ms, it), per_it(p[1], sizeof p[1], f->s_precond_ms, it),
               per_it(p[2], sizeof p[2], f->s_vector_ms, it), per_it(p[3], sizeof p[3], f->s_sync_ms, it),
               num(x, sizeof x, 8, 2, rt / bench_cfg_total(f)), f->solve_status ? "  " : "",
               f->solve_status ? spk_status_name(f->solve_status) : "");
    }
    if (gpu)
        printf("  (total: setup + solve without the upload of A%s)\n",
               bench_has_ref(b) ? "; ref uploads A once, timed apart, the others' setup includes it and it is "
                                  "taken out"
                                : ", which setup includes");
    else
        printf("  (total: setup + solve)\n");
}

/* Configuration k against the first over the matrices where both converged:
 * geometric mean and least speedup of the time to solution, the least over
 * the matrices above 1M nonzeros (*big of them), the largest ratio of
 * iterations; returns the number of matrices. */
int bench_cfg_summary(const bench *b, int k, double *geo, double *least, double *least_big, int *big,
                       double *iter_ratio)
{
    double lg = 0;
    int n = 0;
    *least = *least_big = INFINITY;
    *iter_ratio = 0;
    *big = 0;
    for (int i = 0; i < b->nm; i++) {
        const fmt_result *r = &b->m[i].c[0], *f = &b->m[i].c[k];
        const double sp = bench_cfg_total(r) / bench_cfg_total(f);
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

void bench_print_config_summary(const bench *b)
{
    printf("\nconfigurations: time to solution (setup + solve%s) against '%s', over the matrices where both "
           "converged\n",
           spk_exec_is_host(b->ex) ? "" : ", without the upload of A", b->cfg[0].name);
    printf("  %-12s %9s %9s %14s %12s %9s\n", "config", "geomean", "least", "least >1M nnz", "iter ratio",
           "matrices");
    for (int k = 0; k < b->ncfg; k++) {
        double geo, least, least_big, ir;
        int big, n = bench_cfg_summary(b, k, &geo, &least, &least_big, &big, &ir);
        char lb[32], g[16], l[16], r[16];
        if (big)
            snprintf(lb, sizeof lb, "%.2f (%d)", least_big, big);
        else
            snprintf(lb, sizeof lb, "-");
        printf("  %-12s %s %s %14s %s %9d\n", b->cfg[k].name, num(g, sizeof g, 9, 2, geo),
               num(l, sizeof l, 9, 2, least), lb, num(r, sizeof r, 12, 2, n ? ir : NAN), n);
    }
}

void bench_print_matrix(const bench *b, const mat_result *m)
{
    const fmt_result *base = bench_find(m, bench_baseline(b));
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
        const rates h = bench_rates(b, m, f, 0), c = bench_rates(b, m, f, 1);
        printf("  %-11s %9.3f %9.3f %10.4f %7.2f %9.1f %9.1f %6.3f %7.2f %10.4f %6.3f %7.2f%s%s\n", f->ops->name,
               f->setup_ms, f->mbytes, h.ms, h.gflops, h.gbs_csr, h.gbs_own, h.frac, h.speedup, c.ms, c.frac,
               c.speedup, f->chose[0] ? "  -> " : "", f->chose);
    }
    const fmt_result *au = bench_find(m, "auto");
    const char *who = "";
    double best = best_hot(m, &who);
    payback p;
    if (best > 0 && bench_payback(b, m, &p)) {
        printf("  auto chose %s (%.4f ms on its own, %.4f ms through auto) against the best %.4f ms (%s): "
               "%.1f%% off; ",
               au->chose, bench_chosen_hot(m, au), au->hot_ms, best, who, 100.0 * (bench_chosen_hot(m, au) / best - 1));
        if (spk_exec_is_host(b->ex)) /* nothing is uploaded on the host */
            printf("selection %.2f ms (%s's setup %.2f ms): %.2f ms beyond %s's setup", au->setup_ms,
                   bench_baseline(b), base->setup_ms, p.spmv_cost_ms, bench_baseline(b));
        else
            printf("selection %.2f ms (upload of A %.2f ms; %s's setup %.2f ms, upload %.2f ms): %.2f ms beyond "
                   "%s's setup without the uploads",
                   au->setup_ms, au->upload_ms, bench_baseline(b), base->setup_ms, base->upload_ms, p.spmv_cost_ms,
                   bench_baseline(b));
        if (p.in_solve)
            printf("; in the solves, from the solver's copy of A: format setup %.2f ms against %s's %.2f ms, "
                   "%.2f ms beyond it",
                   au->s_format_ms, bench_baseline(b), base->s_format_ms, p.cost_ms);
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
    const int fused = b->o.vector_ops != SPK_VECTOR_CLASSIC, ref = bench_has_ref(b);
    const double rt = ref ? bench_cfg_total(&m->c[0]) : NAN;
    printf("  %-11s %-15s %6s %11s %9s %10s %9s %7s %7s %7s %7s%s%s\n", "solve with", "method", "iters", "true res",
           "setup ms", "solve ms", "ms/iter", "spmv", "precond", "vector", "x", fused ? "    sync" : "",
           ref ? "   x ref" : "");
    for (int k = 0; k < m->nf; k++) {
        const fmt_result *f = &m->f[k];
        if (!f->solved) continue;
        if (f->solve_status && f->iterations == 0) {
            printf("  %-11s %s\n", f->ops->name, f->solve_note);
            continue;
        }
        char meth[40], sync[32] = "", vsref[32] = "", x[16];
        snprintf(meth, sizeof meth, "%s+%s", f->method, f->precond);
        double it = f->iterations > 0 ? f->iterations : 1;
        if (fused) snprintf(sync, sizeof sync, " %7.4f", f->s_sync_ms / it);
        if (ref) snprintf(vsref, sizeof vsref, " %7.2f", rt / bench_cfg_total(f));
        printf("  %-11s %-15s %6d %11.3e %9.2f %10.2f %9.4f %7.4f %7.4f %7.4f %s%s%s%s%s\n", f->ops->name, meth,
               f->iterations, f->true_relres, f->s_setup_ms, f->s_ms, f->s_ms / it, f->s_spmv_ms / it,
               f->s_precond_ms / it, f->s_vector_ms / it, num(x, sizeof x, 7, 2, f->solve_status ? NAN : bs / f->s_ms),
               sync, vsref, f->solve_status ? "  " : "", f->solve_status ? spk_status_name(f->solve_status) : "");
    }
    if (ref)
        printf("  (x: solve time against %s's solve; x ref: time to solution without the upload of A against "
               "ref's)\n",
               bench_baseline(b));
}

void bench_print_floors(const bench *b)
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

double bench_geomean(const bench *b, const char *fmt, int what, int *count)
{
    double s = 0;
    int n = 0;
    for (int i = 0; i < b->nm; i++) {
        const fmt_result *base = bench_find(&b->m[i], bench_baseline(b)), *f = bench_find(&b->m[i], fmt);
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
void bench_auto_accuracy(const bench *b, int *ok, int *of)
{
    *ok = *of = 0;
    for (int i = 0; i < b->nm; i++) {
        const fmt_result *au = bench_find(&b->m[i], "auto");
        const char *who = "";
        double best = best_hot(&b->m[i], &who);
        if (!au || au->status || best <= 0) continue;
        (*of)++;
        *ok += bench_chosen_hot(&b->m[i], au) <= 1.05 * best;
    }
}

void bench_print_summary(const bench *b)
{
    printf("\nsummary: geometric mean of the speedup over %s (matrices where both ran)\n", bench_baseline(b));
    /* the solve column with --solve only ("-": no solve, e.g. auto on the host, whose solve is csr's) */
    printf("  %-11s %8s %8s%s %9s\n", "format", "hot", "cold", b->solve ? "    solve" : "", "matrices");
    for (int k = 0; k < b->nfmts; k++) {
        int nh, nc, ns;
        double gh = bench_geomean(b, b->fmts[k]->name, 0, &nh), gc = bench_geomean(b, b->fmts[k]->name, 1, &nc);
        double gs = bench_geomean(b, b->fmts[k]->name, 2, &ns);
        char h[16], c[16], sv[16] = "";
        if (b->solve) num(sv, sizeof sv, 9, 3, gs);
        printf("  %-11s %s %s%s %9d\n", b->fmts[k]->name, num(h, sizeof h, 8, 3, gh), num(c, sizeof c, 8, 3, gc), sv,
               nh);
    }
    int ok, of;
    bench_auto_accuracy(b, &ok, &of);
    if (of)
        printf("auto: the format it chose is within 5%% of the best measured hot time on %d of %d matrices\n", ok,
               of);
    bench_auto_paid(b, &ok, &of);
    if (of)
        printf("auto: its selection paid for itself within the solve on %d of %d matrices whose auto solve "
               "converged\n", ok, of);
}

