/* devsweep_mode.c -- after a good factorization of the GPU sweeps
 * (devsweep.h): the sweeps' count (the check, then fewer by the growth
 * test) and how apply runs, chosen by timing each candidate's apply as the
 * solver's iterations replay it. */
#include <math.h>
#include <stdio.h>

#include "devsweep.h"

/* The device time of one apply in `mode` (ms), replayed from a CUDA graph
 * as the solver's iterations replay it (a one-kernel mode: launched as it
 * is, recording it would cost more than its runs): the mean of two runs
 * after a first, or the first alone where it passes `budget` (a slower
 * candidate costs no more setup than that); INFINITY where the apply
 * cannot be recorded. */
static int time_mode(dev_pc *p, int mode, const double *b, double *z, double budget, double *ms)
{
    spk_err *err = p->e->err;
    cudaGraphExec_t ge = NULL;
    cudaEvent_t ev[2] = {NULL, NULL};
    *ms = INFINITY;
    cudaError_t c = cudaSuccess;
    if (mode != APPLY_SMALL_SWEEPS && mode != APPLY_SMALL_SOLVE) { /* recorded; one kernel is launched as it is */
        cudaGraph_t g = NULL;
        SPK_CUDA_TRY(err, cudaStreamBeginCapture(p->s, cudaStreamCaptureModeThreadLocal));
        const int st = spk_devsweep_apply_mode(p, mode, b, z);
        const cudaError_t ce = cudaStreamEndCapture(p->s, &g);
        if (st || ce != cudaSuccess || !g) { /* not recordable: not a candidate */
            (void)cudaGetLastError();
            if (g) cudaGraphDestroy(g);
            spk_err_clear(err);
            return SPK_OK;
        }
        c = cudaGraphInstantiate(&ge, g, 0);
        cudaGraphDestroy(g);
    }
    int st = SPK_OK;
    float t = 0;
    if (c == cudaSuccess) c = cudaEventCreate(&ev[0]);
    if (c == cudaSuccess) c = cudaEventCreate(&ev[1]);
    for (int pass = 0; pass < 2 && c == cudaSuccess && !st; pass++) {
        const int reps = pass ? 2 : 1;
        c = cudaEventRecord(ev[0], p->s);
        for (int i = 0; i < reps && c == cudaSuccess && !st; i++) {
            if (ge)
                c = cudaGraphLaunch(ge, p->s);
            else
                st = spk_devsweep_apply_mode(p, mode, b, z);
        }
        if (c == cudaSuccess && !st) c = cudaEventRecord(ev[1], p->s);
        if (c == cudaSuccess && !st) c = cudaEventSynchronize(ev[1]);
        if (c == cudaSuccess && !st) c = cudaEventElapsedTime(&t, ev[0], ev[1]);
        if (c == cudaSuccess && !st) *ms = t / reps;
        if (c == cudaSuccess && !st && !pass && *ms > budget) break;
    }
    if (ge) cudaGraphExecDestroy(ge);
    for (int i = 0; i < 2; i++)
        if (ev[i]) cudaEventDestroy(ev[i]);
    SPK_TRY(st);
    return spk_cuda_check(err, c, "timing the preconditioner's apply");
}

/* How apply runs, by time: of the sweeps, one kernel per sweep or one
 * block's kernel (the same result); exact solves in one block (fewer
 * iterations) where they cost at most EXACT_OVER_SWEEPS times the sweeps
 * plus EXACT_OVER_SWEEPS_MS (small against the rest of an iteration, and
 * the sweeps may take more iterations than exact solves, sweeps_check);
 * where the check asked for exact solves, one block's or cusparseSpSV, the
 * faster.  Where the solver's block iterations will apply M (opts.block),
 * only what one block runs is weighed: its sweeps (as stored where there
 * are no sliced copies), or its exact solves where the check asks for them
 * or they cost at most EXACT_OVER_SWEEPS times the sweeps.  Exact solves
 * that are taken only below such a bar are timed with the bar as budget:
 * one run where the first is over it (the first run of a kernel whose data
 * the previous candidate left in L2 is close to the next ones). */
#define EXACT_OVER_SWEEPS 1.1
#define EXACT_OVER_SWEEPS_MS 0.003

/* opts.dev_apply (tests) names the way: taken where it applies, else sweeps
 * a kernel each, or cusparseSpSV where the check asked for exact solves. */
static int pick_forced(dev_pc *p, int forced, int can_solve)
{
    spk_err *err = p->e->err;
    const int n = p->n;
    int st = SPK_OK;
    p->mode = p->exact && n > 0 ? APPLY_SPSV : APPLY_SWEEPS;
    if (forced == APPLY_SMALL_SWEEPS && p->small_ok && !p->exact) {
        st = spk_cuda_check(err, spk_dev_small_init(n), "spk_dev_small_init");
        p->mode = forced;
    } else if (forced == APPLY_SMALL_SOLVE && can_solve) {
        st = spk_cuda_check(err, spk_dev_small_solve_init(n), "spk_dev_small_solve_init");
        p->mode = forced;
    } else if (forced == APPLY_SPSV && n > 0) {
        p->mode = forced;
    }
    p->exact = p->mode == APPLY_SMALL_SOLVE || p->mode == APPLY_SPSV;
    if (!st && p->mode == APPLY_SPSV) {
        if (!p->sp.e) st = spk_spsv_pair_init(p->e, &p->sp, n, p->nnz, p->ic, p->frp, p->fci, p->v);
        if (!st) st = spk_spsv_pair_ready(&p->sp);
    }
    return st;
}

/* The solver's block iterations will apply M (opts.block = 1): one block's
 * ways, timed on b and z. */
static int pick_in_block(dev_pc *p, const double *b, double *z, int can_time_solve)
{
    spk_err *err = p->e->err;
    const int n = p->n;
    int st = SPK_OK;
    double t_solve = INFINITY;
    if (p->exact) {
        /* the check asked for exact solves: one block's (cusparseSpSV's won
         * only on systems beyond the block iterations' limits) */
        p->mode = APPLY_SMALL_SOLVE;
        st = spk_cuda_check(err, spk_dev_small_solve_init(n), "spk_dev_small_solve_init");
    } else if (!p->small_ok) {
        p->mode = APPLY_SWEEPS; /* the block sweeps the factor as stored */
    } else {
        /* one block's sweeps, or one block's exact solves where they cost
         * at most 1.1x as much (the rest of a block iteration is cheap, so
         * no margin is added) */
        double t_small = INFINITY;
        p->mode = APPLY_SMALL_SWEEPS;
        st = spk_cuda_check(err, spk_dev_small_init(n), "spk_dev_small_init");
        if (!st) st = time_mode(p, APPLY_SMALL_SWEEPS, b, z, INFINITY, &t_small);
        if (!st && can_time_solve && p->opts.sweeps_check > 0) {
            st = spk_cuda_check(err, spk_dev_small_solve_init(n), "spk_dev_small_solve_init");
            if (!st) st = time_mode(p, APPLY_SMALL_SOLVE, b, z, EXACT_OVER_SWEEPS * t_small, &t_solve);
            if (!st && t_solve <= EXACT_OVER_SWEEPS * t_small) {
                p->mode = APPLY_SMALL_SOLVE;
                p->exact = 1;
            }
        }
    }
    return st;
}

/* The check took sweeps: a kernel each or one block's, or one block's
 * exact solves where they cost little more. */
static int pick_sweeps(dev_pc *p, const double *b, double *z, int can_time_solve)
{
    spk_err *err = p->e->err;
    const int n = p->n;
    int st = SPK_OK;
    double t = INFINITY, t_small = INFINITY, t_solve = INFINITY;
    p->mode = APPLY_SWEEPS;
    if (n > 0) st = time_mode(p, APPLY_SWEEPS, b, z, INFINITY, &t);
    if (!st && p->small_ok) {
        st = spk_cuda_check(err, spk_dev_small_init(n), "spk_dev_small_init");
        if (!st) st = time_mode(p, APPLY_SMALL_SWEEPS, b, z, 2 * t, &t_small);
        if (!st && t_small < t) {
            p->mode = APPLY_SMALL_SWEEPS;
            t = t_small;
        }
    }
    const double t_max = EXACT_OVER_SWEEPS * t + EXACT_OVER_SWEEPS_MS;
    if (!st && can_time_solve && p->opts.sweeps_check > 0) {
        st = spk_cuda_check(err, spk_dev_small_solve_init(n), "spk_dev_small_solve_init");
        if (!st) st = time_mode(p, APPLY_SMALL_SOLVE, b, z, t_max, &t_solve);
        if (!st && t_solve <= t_max) {
            p->mode = APPLY_SMALL_SOLVE;
            p->exact = 1;
        }
    }
    return st;
}

/* The check asked for exact solves: cusparseSpSV, or one block's where
 * they are faster. */
static int pick_exact(dev_pc *p, const double *b, double *z, int can_time_exact)
{
    spk_err *err = p->e->err;
    const int n = p->n;
    int st = SPK_OK;
    double t = INFINITY, t_solve = INFINITY;
    p->mode = APPLY_SPSV;
    if (!p->sp.e) st = spk_spsv_pair_init(p->e, &p->sp, n, p->nnz, p->ic, p->frp, p->fci, p->v);
    if (!st) st = spk_spsv_pair_ready(&p->sp);
    /* one block's solves first: where they win (the cases worth timing)
     * cusparseSpSV's slower first run ends its timing */
    if (!st && can_time_exact) st = spk_cuda_check(err, spk_dev_small_solve_init(n), "spk_dev_small_solve_init");
    if (!st && can_time_exact) st = time_mode(p, APPLY_SMALL_SOLVE, b, z, INFINITY, &t_solve);
    if (!st && can_time_exact) st = time_mode(p, APPLY_SPSV, b, z, 2 * t_solve, &t);
    if (!st && t_solve < t) p->mode = APPLY_SMALL_SOLVE;
    return st;
}

/* p->mode and p->what by the policy above: sweeps untimed where nothing
 * else is worth timing, else the probe vectors, then the way. */
static int pick_mode(dev_pc *p)
{
    const char *lb = p->ic ? "ic0" : "ilu0";
    spk_err *err = p->e->err;
    const int n = p->n, can_solve = n > 0 && n <= SPK_DEV_SOLVE_ROWS;
    /* one block's solves, as a cheaper way than the sweeps: timed up to
     * 4096 rows (beyond, the sweeps are faster) */
    const int can_time_solve = n > 0 && n <= 4096;
    /* ... where the check asks for exact solves, against cusparseSpSV:
     * timed up to 8192 rows (beyond, cusparseSpSV is faster), where one
     * costs no more setup than a few SpSVs */
    const int can_time_exact = n > 0 && n <= 8192 && can_solve;
    const int forced = p->opts.dev_apply - 1;
    /* the block iterations will apply M (opts.block): only one block's ways
     * matter, timed on x0 and x1, which they do not touch */
    const int free_choice = !(forced >= APPLY_SWEEPS && forced <= APPLY_SPSV);
    const int in_block = p->opts.block == 1 && free_choice && n > 0 && n <= SPK_DEV_SMALL_ROWS;
    /* the sweeps taken as they are, untimed: where a cluster of blocks will
     * apply them (opts.block = 2: it sweeps the copies itself, whatever the
     * mode; timing the ways it does not use would only add setup), and a
     * large system's, with no other way to time them against (timing them
     * would only add setup) */
    const int in_cluster = p->opts.block == 2 && n > 0 && n <= SPK_DEV_SMALL_ROWS;
    if (free_choice && !p->exact &&
        (in_cluster || (!in_block && !p->small_ok && !(can_time_solve && p->opts.sweeps_check > 0)))) {
        p->mode = APPLY_SWEEPS;
        snprintf(p->what, sizeof p->what, "%s-sweeps", lb);
        return SPK_OK;
    }
    double *b = NULL, *z = NULL;
    int owned = 0;
    if (in_block) {
        b = p->x0;
        z = p->x1;
        SPK_CUDA_TRY(err, spk_dev_probe(p->s, n, b));
    } else if (n > 0) {
        double *w[2] = {NULL, NULL}, *unused = NULL;
        int st = spk_devsweep_scratch_get(p, 2, 0, w, &unused, &unused, &owned);
        b = w[0];
        z = w[1];
        if (!st) st = spk_cuda_check(err, spk_dev_probe(p->s, n, b), "spk_dev_probe");
        if (st) {
            spk_devsweep_scratch_put(p, 2, w, NULL, NULL, owned);
            return st;
        }
    }
    int st;
    if (!free_choice) /* where it applies */
        st = pick_forced(p, forced, can_solve);
    else if (in_block)
        st = pick_in_block(p, b, z, can_time_solve);
    else if (!p->exact)
        st = pick_sweeps(p, b, z, can_time_solve);
    else
        st = pick_exact(p, b, z, can_time_exact);
    if (!in_block) {
        double *w[2] = {b, z};
        spk_devsweep_scratch_put(p, 2, w, NULL, NULL, owned);
    }
    SPK_TRY(st);
    snprintf(p->what, sizeof p->what, "%s-%s", lb, p->exact ? "dev" : "sweeps");
    return SPK_OK;
}

/* Sweeps, or (sweeps_check > 0) K by the check (and fewer by the test
 * after it), or exact solves. */
static int choose(dev_pc *p)
{
    if (!p->pool) SPK_TRY(spk_devsweep_check(p));
    STOP_POINT(p);
    if (p->opts.sweeps_check > 0 && !p->exact && p->opts.sweeps_rho > 0 && p->n > SPK_DEV_SMALL_ROWS &&
        p->k > SWEEPS_MIN) {
        SPK_TRY(spk_devsweep_fewer_sweeps(p));
        STOP_POINT(p);
    }
    phase_mark(p, 5);
    return pick_mode(p);
}

/* After a good factorization: how to apply it (choose), then ready. */
int spk_devsweep_settle(dev_pc *p)
{
    SPK_TRY(choose(p));
    phase_mark(p, 6);
    if (p->exact) /* the solves read F */
        for (int t = 0; t < 2; t++) {
            p->lean = 0;
            if (!p->pool) {
                spk_cuda_free(p->e, p->scol[t]);
                spk_cuda_free(p->e, p->sval[t]);
            }
            p->scol[t] = NULL;
            p->sval[t] = NULL;
        }
    p->valid = 1;
    return SPK_OK;
}
