/* fused.c -- CG and BiCGStab with fused vector steps and the scalars kept on
 * the executor (spk_options.vector_ops FUSED, GRAPH or BLOCK, on an
 * executor with scalars): the iterations of cg.c and bicgstab.c, the same
 * tests (solver/control.h) in the same order with the same outcomes, but
 * each iteration queues its work without waiting and reads its scalars back
 * once (CG) or twice (BiCGStab, at the half step and at the end), instead
 * of after every dot product and norm.  The runs of steps between two reads
 * go to an engine (solver/engine/engine.h): the block iterations where
 * they take the system, else graphs from SPK_GRAPH_FROM on, else the steps
 * queued one by one; a race (race.h) may answer first.
 *
 * CG, one iteration (slots: rz, its successor, pq, rr):
 *   q = A p; pq = p'q; [a = rz/pq; x += a p; r -= a q; rr = r'r]
 *   read rz, pq, rr  -> the classic driver's tests on rz, pq, then ||r||
 *   z = M^-1 r; rz' = r'z (or ||r||^2 without M); [p = z + (rz'/rz) p]
 * BiCGStab, one iteration (slots: rho and its predecessor, r0v, ss, tt, ts, rr):
 *   rho = r0'r; [p = r + beta (p - omega v)]; ph = M^-1 p; v = A ph; r0v = r0'v;
 *   [s = r - (rho/r0v) v; ss = s's]  read rho, r0v, ss  -> tests, ||s||
 *   sh = M^-1 s; t = A sh; tt = t't, ts = t's;
 *   [x += alpha ph + omega sh; r = s - omega t; rr = r'r]  read tt, ts, rr -> tests, ||r||
 * Brackets are single fused steps (engine/steps.h); each is guarded on the
 * device, so a step after a breakdown changes nothing and the host, reading
 * the scalars, stops with the classic driver's reason.  The work a classic
 * driver would skip after a breakdown (an SpMV or an apply) is queued here
 * before the test that stops: it costs time once, never the answer. */
#include "solver/engine/block.h"
#include "solver/engine/graph.h"
#include "solver/engine/race.h"

/* Has the race (if any) been won?  Asked before the driver queues more
 * work; *over = 1 when it has. */
static int race_over(spk_krylov *k, int *over)
{
    *over = 0;
    return k->race ? spk_race_poll(k->race, over) : SPK_OK;
}

/* Iterations a block launch after `done` of them may run: left, but no
 * further than a look at the run (k->check), which the host must make
 * before the run goes on. */
static int block_left(const spk_krylov *k, int done, int left)
{
    if (k->check.fn && k->check.at > done && k->check.at - done < left) return k->check.at - done;
    return left;
}

/* The block engine's next read, waiting for its launch or a side of the
 * race, whichever ends first: br->stopped (nothing read) where a side
 * answered while the launch ran. */
static int block_next(spk_krylov *k, spk_result *res, spk_clock *c, spk_blockrun *br, const int *slot, int it,
                      int left, double rnorm, double *h)
{
    spk_block_watch w;
    const spk_block_watch *wp = k->race ? spk_race_watch(k->race, &w) : NULL;
    SPK_TRY(spk_block_read(k, res, c, br, slot, it, left, rnorm, wp, h));
    while (br->pending) {
        if (!k->race) /* its end would be taken by no one, and asked about again and again */
            return spk_err_set(k->e->err, SPK_ERR_INTERNAL,
                               "the block iterations ran alongside a race this solve does not run");
        SPK_TRY(race_over(k, &br->stopped));
        if (br->stopped) { /* these iterations stop on the race's flag: not waited for */
            br->pending = 0;
            br->count = br->next = 0;
            return SPK_OK;
        }
        SPK_TRY(spk_block_rest(k, res, c, br, wp, h));
    }
    return SPK_OK;
}

/* CG's other rz slot */
static int next_of(int cur)
{
    return cur == SPK_CG_RZ0 ? SPK_CG_RZ1 : SPK_CG_RZ0;
}

static int cg_run(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res, spk_graphs *gs)
{
    const int n = k->n, ident = spk_krylov_identity(k);
    double *r = k->w[0], *p = k->w[1], *q = k->w[2];
    double *z = ident ? r : k->w[3];
    double bnorm, rnorm;
    int done, cur = SPK_CG_RZ0; /* the slot of rz */

    SPK_TRY(spk_fused_start(k, b, x, r, o, res, &bnorm, &done));
    if (done) return spk_fused_finish(k, b, x, q, res, bnorm);

    spk_clock c = {spk_time_now(), 0};
    SPK_TRY(SPK_ASYNC(k)->mark(k->e, -1));
    rnorm = res->rnorm;
    res->reason = SPK_DIVERGED_MAXIT;
    /* without M, rz' = ||r||^2: from the host's norm where the executor
     * records no graphs (the classic driver's arithmetic), else reduced on
     * the device, in graphs and out of them alike (the same numbers) */
    const int dev_rz = ident && SPK_ASYNC(k)->capture != NULL;
    spk_blockrun br;
    spk_block_open(k, o, SPK_BLOCK_CG, b, x, res, bnorm, &br);
    double h[3];
    if (br.on && o->maxit >= 1) { /* iteration 1 on in the block: z, rz and p = z there */
        const int slot[7] = {next_of(cur), cur, SPK_CG_PQ, SPK_CG_RR};
        br.job.first = 1;
        SPK_TRY(block_next(k, res, &c, &br, slot, 0, block_left(k, 0, o->maxit), rnorm, h));
        br.job.first = 0;
    } else {
        if (ident) {
            F_VEC(k, set, cur, rnorm * rnorm);
        } else {
            F_PREC(k, r, z);
            F_VEC(k, dot, n, r, z, cur);
        }
        F_PLAIN(k, copy, n, z, p);
    }
    if (!br.on && o->maxit >= 1) { /* iteration 1 from the product on */
        F_SPMV(k, 1.0, p, 0.0, q);
        F_VEC(k, dot, n, p, q, SPK_CG_PQ);
        F_STEP(k, cg_update, n, cur, SPK_CG_PQ, p, q, x, r, SPK_CG_RR);
        const int want[3] = {cur, SPK_CG_PQ, SPK_CG_RR};
        F_VEC(k, read, want, 3, h);
        SPK_TRY(spk_fused_times(k, res, &c)); /* now, while nothing is queued: no wait */
    }
    for (int it = 1; it <= o->maxit && !br.stopped; it++) {
        if (spk_cg_bad_rz(res, h[0]) || spk_cg_bad_pq(res, h[1])) break;
        SPK_TRY(spk_fused_norm(k, n, r, h[2], &rnorm));
        res->iterations = it;
        if (spk_krylov_end_step(k, o, res, it, rnorm, bnorm) || it == o->maxit) break;
        const int next = next_of(cur);
        int over = 0;
        if (!br.on || br.next == br.count) SPK_TRY(race_over(k, &over));
        if (over) break;
        if (br.on) {
            const int slot[7] = {cur, next, SPK_CG_PQ, SPK_CG_RR};
            SPK_TRY(block_next(k, res, &c, &br, slot, it, block_left(k, it, o->maxit - it), rnorm, h));
            if (br.stopped) break;
        } else {
            const spk_steps st = {SPK_STEPS_CG, cur, next, 0, dev_rz ? -1.0 : rnorm, x};
            int ran = 0;
            SPK_TRY(spk_graphs_steps(k, res, &c, it >= SPK_GRAPH_FROM ? gs : NULL, cur == SPK_CG_RZ1, &st, h, &ran));
            res->graph_iterations += ran;
        }
        cur = next;
    }
    SPK_TRY(spk_block_done(k, &br, res->iterations));
    /* the caller takes the answer alongside; this solve's times are not
     * wanted (collected, they would wait for its last iteration) */
    if (k->race && k->race->winner >= 0) return SPK_OK;
    SPK_TRY(spk_fused_times(k, res, &c));
    return spk_block_finish(k, &br, b, x, q, res, bnorm);
}

typedef int (*driver_fn)(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res,
                         spk_graphs *gs);

/* run the driver, then free its graphs whatever its outcome */
static int with_graphs(driver_fn run, spk_krylov *k, const double *b, double *x, const spk_options *o,
                       spk_result *res)
{
    spk_graphs gs;
    spk_graphs *g = spk_graphs_open(k, o, &gs);
    const int st = run(k, b, x, o, res, g);
    spk_graphs_close(k, g);
    return st;
}

int spk_cg_fused(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res)
{
    return with_graphs(cg_run, k, b, x, o, res);
}

static int bicgstab_run(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res,
                        spk_graphs *gs)
{
    const int n = k->n, ident = spk_krylov_identity(k);
    double *r = k->w[0], *r0 = k->w[1], *t = k->w[4];
    double *ph = ident ? k->w[2] : k->w[5];
    double *s = r; /* s overwrites r, as in bicgstab.c */
    double bnorm, rnorm, snorm;
    int done, fresh = 1, seq = 0, cur = SPK_BI_RHO0;

    SPK_TRY(spk_fused_start(k, b, x, r, o, res, &bnorm, &done));
    if (done) return spk_fused_finish(k, b, x, t, res, bnorm);

    spk_clock c = {spk_time_now(), 0};
    SPK_TRY(SPK_ASYNC(k)->mark(k->e, -1));
    F_PLAIN(k, copy, n, r, r0);
    res->reason = SPK_DIVERGED_MAXIT;
    spk_blockrun br;
    spk_block_open(k, o, SPK_BLOCK_BICGSTAB, b, x, res, bnorm, &br);
    if (br.on) gs = NULL;
    for (int it = 1; it <= o->maxit; it++) {
        const int old = cur == SPK_BI_RHO0 ? SPK_BI_RHO1 : SPK_BI_RHO0;
        int broke = 0, ran = 0;
        /* graphs from SPK_GRAPH_FROM on, not for a first step (p = r) */
        spk_graphs *g = it >= SPK_GRAPH_FROM && !fresh ? gs : NULL;
        const int par = cur == SPK_BI_RHO1;
        const spk_steps half = {SPK_STEPS_BICG_HALF, cur, old, fresh, 0, x};
        const spk_steps rest = {SPK_STEPS_BICG_REST, cur, old, 0, 0, x};
        double h[3];
        /* the block iterations start at a first half that is not a first step (p = r):
         * the first step's sums taken in the block moved BiCGStab's iterations, on some
         * systems from convergence to none */
        const int slot[7] = {cur, old, SPK_BI_R0V, SPK_BI_SS, SPK_BI_TT, SPK_BI_TS, SPK_BI_RR};
        int over = 0;
        if (!br.on || br.next == br.count) SPK_TRY(race_over(k, &over));
        if (over) break;
        if (br.on && (br.next < br.count || !fresh)) {
            SPK_TRY(block_next(k, res, &c, &br, slot, it - 1, block_left(k, it - 1, o->maxit - it + 1), 0, h));
        } else {
            SPK_TRY(spk_graphs_steps(k, res, &c, g, par, &half, h, &ran));
            res->graph_iterations += ran;
        }
        const double rho = h[0], r0v = h[1], ss = h[2];
        int why;
        if (spk_bicg_rho_bad(rho, &why)) {
            broke = why;
        } else {
            fresh = 0;
            if (spk_bicg_r0v_bad(rho, r0v, &why)) broke = why;
        }
        if (broke && !spk_bicg_restartable(broke)) {
            res->reason = (spk_reason)broke;
            break;
        }
        if (broke) {
            int stop;
            SPK_TRY(spk_bicgstab_broke(k, b, x, r, r0, o, res, it, bnorm, broke, &seq, &fresh, &stop));
            if (stop) break;
            it--; /* the restart is not an iteration */
            continue;
        }
        SPK_TRY(spk_fused_norm(k, n, s, ss, &snorm));
        res->iterations = it;
        if (isfinite(snorm) && spk_krylov_converged(o, res, snorm, bnorm)) {
            F_STEP(k, axpy_ratio, n, cur, SPK_BI_R0V, ph, x);
            res->rnorm = snorm;
            res->relres = snorm / bnorm;
            spk_krylov_record(k, o, res, it, snorm, bnorm);
            break;
        }
        if (br.on && br.next < br.count) /* else the block iterations stopped after the first half */
            SPK_TRY(block_next(k, res, &c, &br, slot, it - 1, 1, 0, h));
        else
            SPK_TRY(spk_graphs_steps(k, res, &c, g, 2 + par, &rest, h, &ran));
        const double tt = h[0], ts = h[1], rr = h[2];
        if (spk_bicg_rest_bad(tt, ts, &why)) {
            res->reason = (spk_reason)why;
            break;
        }
        const double omega = ts / tt;
        SPK_TRY(spk_fused_norm(k, n, r, rr, &rnorm));
        if (spk_krylov_end_step(k, o, res, it, rnorm, bnorm)) break;
        if (omega == 0) {
            res->reason = SPK_BREAKDOWN_OMEGA;
            break;
        }
        cur = old; /* this rho becomes rho_old */
        seq++;
    }
    SPK_TRY(spk_block_done(k, &br, res->iterations));
    SPK_TRY(spk_fused_times(k, res, &c));
    if (k->race && k->race->winner >= 0) return SPK_OK; /* the caller takes the answer alongside */
    return spk_block_finish(k, &br, b, x, t, res, bnorm);
}

int spk_bicgstab_fused(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res)
{
    return with_graphs(bicgstab_run, k, b, x, o, res);
}
