/* fused.c -- CG and BiCGStab with fused vector steps and the scalars kept on
 * the executor (spk_options.vector_ops = SPK_VECTOR_FUSED, on an executor
 * with spk_exec_ops.krylov): the iterations of cg.c and bicgstab.c, the same
 * tests in the same order with the same outcomes, but each iteration queues
 * its work without waiting and reads its scalars back once (CG) or twice
 * (BiCGStab, at the half step and at the end), instead of after every dot
 * product and norm.
 *
 * CG, one iteration (slots: rz, its successor, pq, rr):
 *   q = A p; pq = p'q; [a = rz/pq; x += a p; r -= a q; rr = r'r]
 *   read rz, pq, rr  -> the plain driver's tests on rz, pq, then ||r||
 *   z = M^-1 r; rz' = r'z (or ||r||^2 without M); [p = z + (rz'/rz) p]
 * BiCGStab, one iteration (slots: rho and its predecessor, r0v, ss, tt, ts, rr):
 *   rho = r0'r; [p = r + beta (p - omega v)]; ph = M^-1 p; v = A ph; r0v = r0'v;
 *   [s = r - (rho/r0v) v; ss = s's]  read rho, r0v, ss  -> tests, ||s||
 *   sh = M^-1 s; t = A sh; tt = t't, ts = t's;
 *   [x += alpha ph + omega sh; r = s - omega t; rr = r'r]  read tt, ts, rr -> tests, ||r||
 * Brackets are single fused steps; each is guarded on the device (exec.h),
 * so a step after a breakdown changes nothing and the host, reading the
 * scalars, stops with the plain driver's reason.  The work a plain driver
 * would skip after a breakdown (an SpMV or an apply) is queued here before
 * the test that stops: it costs time once, never the answer.
 *
 * Norms: ||r|| is sqrt(r'r) as nrm2 computes it when r'r is finite and
 * above 1e-290; otherwise the executor's nrm2 (which rescales) is called, as
 * in the plain drivers.
 *
 * Graphs (SPK_VECTOR_GRAPH, on an executor with them): the steps between
 * two reads (run_steps: CG from the preconditioner to the read; BiCGStab's
 * two halves) are recorded once per key (which steps, which parity of the
 * scalar slots) and replayed, one launch per read, from about the 40th
 * iteration on; the host reads and tests exactly as above, so the numbers
 * are those of the fused steps queued one by one.  A step that cannot be
 * recorded (a backend that waits) ends the graphs for the solve.
 *
 * Times: SpMV, preconditioner and vector phases from the executor's marks
 * (GPU time on the GPU), collected right after each read, when no work is
 * queued (so collecting waits for nothing); res->t_sync gets the rest of the
 * loop's wall time: launches, waits and the host's work. */
#include <string.h>

#include "krylov_common.h"

enum { CG_RZ0, CG_RZ1, CG_PQ, CG_RR, BI_RHO0, BI_RHO1, BI_R0V, BI_SS, BI_TT, BI_TS, BI_RR };

#define K(k) ((k)->e->ops->krylov)
#define GRAPH_SAMPLE 8 /* one replay in this many of a run of steps' even-parity graph is
                          timed (one iteration in 16) */
#define GRAPH_FROM 40  /* graphs run from about this iteration on: recording one costs
                          a few hundred microseconds, which short solves do not win back
                          (H100: from the 16th iteration, solves of 18-35 iterations took
                          up to 20 % longer than with the fused steps; those of 130-5000
                          iterations 10-40 % less time) */
/* an SpMV, an apply or vector work, queued, then marked as its phase */
#define F_SPMV(k, alpha, x, beta, y)                                       \
    do {                                                                   \
        SPK_TRY((k)->A_ops->apply((k)->A, alpha, x, beta, y));             \
        SPK_TRY(K(k)->mark((k)->e, SPK_PHASE_SPMV));                       \
    } while (0)
#define F_PREC(k, r, z)                                                    \
    do {                                                                   \
        SPK_TRY((k)->M_ops->apply((k)->M, r, z));                          \
        SPK_TRY(K(k)->mark((k)->e, SPK_PHASE_PRECOND));                    \
    } while (0)
#define F_VEC(k, op, ...)                                                  \
    do {                                                                   \
        SPK_TRY(K(k)->op((k)->e, __VA_ARGS__));                            \
        SPK_TRY(K(k)->mark((k)->e, SPK_PHASE_VECTOR));                     \
    } while (0)
/* one of the executor's plain vector operations (copy, nrm2), marked as
 * vector work like the fused ones: timed by the host (SPK_VEC), it would also
 * wait for, and count again, the work queued before it */
#define F_PLAIN(k, op, ...)                                                \
    do {                                                                   \
        SPK_TRY((k)->e->ops->op((k)->e, __VA_ARGS__));                     \
        SPK_TRY(K(k)->mark((k)->e, SPK_PHASE_VECTOR));                     \
    } while (0)

/* The phases' times so far into res, and the loop's other time into t_sync. */
static int fused_times(spk_krylov *k, spk_result *res, double t0, double *phases_before)
{
    double sec[SPK_PHASES] = {0, 0, 0};
    SPK_TRY(K(k)->collect(k->e, sec));
    res->t_spmv += sec[SPK_PHASE_SPMV];
    res->t_precond += sec[SPK_PHASE_PRECOND];
    res->t_vector += sec[SPK_PHASE_VECTOR];
    *phases_before += sec[SPK_PHASE_SPMV] + sec[SPK_PHASE_PRECOND] + sec[SPK_PHASE_VECTOR];
    double other = (spk_time_now() - t0) - *phases_before;
    res->t_sync = other > 0 ? other : 0;
    return SPK_OK;
}

/* ||v|| from v'v as the plain drivers get it (nrm2's fast path, else nrm2). */
static int norm_of(spk_krylov *k, int n, const double *v, double vv, double *out)
{
    if (vv != 0 && isfinite(vv) && vv > 1e-290) {
        *out = sqrt(vv);
        return SPK_OK;
    }
    F_PLAIN(k, nrm2, n, v, out);
    return SPK_OK;
}

/* r = b - A x queued, then r'r (and b'b when bb) read back in one
 * transfer: h[0] = r'r, h[1] = b'b; the time into res's phases. */
static int residual_read(spk_krylov *k, spk_result *res, const double *b, const double *x, double *r, int bb,
                         double h[2])
{
    double sec[SPK_PHASES] = {0, 0, 0};
    const int want[2] = {CG_RR, CG_PQ};
    SPK_TRY(K(k)->mark(k->e, -1));
    F_PLAIN(k, copy, k->n, b, r);
    F_SPMV(k, -1.0, x, 1.0, r);
    F_VEC(k, dot, k->n, r, r, CG_RR);
    if (bb) F_VEC(k, dot, k->n, b, b, CG_PQ);
    F_VEC(k, read, want, bb ? 2 : 1, h);
    SPK_TRY(K(k)->collect(k->e, sec));
    res->t_spmv += sec[SPK_PHASE_SPMV];
    res->t_vector += sec[SPK_PHASE_VECTOR];
    return SPK_OK;
}

/* spk_krylov_start with one read (residual_read), the norms as norm_of
 * takes them (cuBLAS's nrm2 where b'b or r'r is not finite or tiny), the
 * decisions spk_krylov_started's.  A start made ahead for these b and x
 * (k->begun) is taken instead, once. */
static int fused_start(spk_krylov *k, const double *b, double *x, double *r, const spk_options *o,
                       spk_result *res, double *bnorm, int *done)
{
    double rnorm = 0, h[2];
    if (k->begun.on && k->begun.b == b && k->begun.x == x && r == k->w[0]) {
        k->begun.on = 0;
        *bnorm = k->begun.bnorm;
        res->t_spmv += k->begun.t_spmv;
        res->t_vector += k->begun.t_vector;
        return spk_krylov_started(k, o, res, x, *bnorm, k->begun.rnorm, done);
    }
    SPK_TRY(residual_read(k, res, b, x, r, 1, h));
    SPK_TRY(norm_of(k, k->n, b, h[1], bnorm));
    if (isfinite(*bnorm) && *bnorm != 0.0) SPK_TRY(norm_of(k, k->n, r, h[0], &rnorm));
    return spk_krylov_started(k, o, res, x, *bnorm, rnorm, done);
}

int spk_krylov_begin(spk_krylov *k, const double *b, double *x, const spk_options *o, int *done)
{
    spk_result res;
    double bnorm;
    memset(&res, 0, sizeof res);
    k->begun.on = 0;
    SPK_TRY(fused_start(k, b, x, k->w[0], o, &res, &bnorm, done));
    k->begun.on = !*done;
    k->begun.b = b;
    k->begun.x = x;
    k->begun.bnorm = bnorm;
    k->begun.rnorm = res.rnorm0;
    k->begun.t_spmv = res.t_spmv;
    k->begun.t_vector = res.t_vector;
    return SPK_OK;
}

/* spk_krylov_finish with one read (residual_read), the norm as norm_of
 * takes it, the decisions spk_krylov_finished's. */
static int fused_finish(spk_krylov *k, const double *b, const double *x, double *t, spk_result *res, double bnorm)
{
    if (res->reason == SPK_INVALID_INPUT || res->reason == SPK_CONVERGED_ZERO_RHS)
        return spk_krylov_finished(res, 0.0, bnorm); /* nothing to compute */
    double h[2], tn;
    SPK_TRY(residual_read(k, res, b, x, t, 0, h));
    SPK_TRY(norm_of(k, k->n, t, h[0], &tn));
    return spk_krylov_finished(res, tn, bnorm);
}

/* A run of steps between two reads, and the slots it reads into h[3]. */
enum { STEPS_CG, STEPS_BICG_HALF, STEPS_BICG_REST };
typedef struct steps {
    int kind;
    int cur, other;  /* CG: rz's slot and its successor's; BiCGStab: rho's and rho_old's */
    int fresh;       /* BiCGStab: p = r (the first iteration, after a restart) */
    double rnorm;    /* CG without M: ||r||, whose square is rz' */
    double *x;
} steps;

/* Queue the steps (into the graph, when one is being recorded), then the read.
 *   CG, for the iteration after the one whose scalars were read: z = M^-1 r,
 *     rz' = r'z (or ||r||^2), p = z + (rz'/rz) p, q = A p, pq, the update;
 *     read rz', pq, rr.
 *   BiCGStab, first half: rho = r0'r, p, ph = M^-1 p, v = A ph, r0v, s, ss;
 *     read rho, r0v, ss.  Second half: sh = M^-1 s, t = A sh, tt, ts, the
 *     update of x and r, rr; read tt, ts, rr. */
static int run_steps(spk_krylov *k, const steps *st, double *h)
{
    const int n = k->n, ident = spk_krylov_identity(k);
    double *x = st->x;
    if (st->kind == STEPS_CG) {
        double *r = k->w[0], *p = k->w[1], *q = k->w[2];
        double *z = ident ? r : k->w[3];
        const int cur = st->cur, next = st->other;
        if (ident) {
            F_VEC(k, set, next, st->rnorm * st->rnorm);
        } else {
            F_PREC(k, r, z);
            F_VEC(k, dot, n, r, z, next);
        }
        F_VEC(k, cg_direction, n, next, cur, z, p);
        F_SPMV(k, 1.0, p, 0.0, q);
        F_VEC(k, dot, n, p, q, CG_PQ);
        F_VEC(k, cg_update, n, next, CG_PQ, p, q, x, r, CG_RR);
        const int want[3] = {next, CG_PQ, CG_RR};
        F_VEC(k, read, want, 3, h);
        return SPK_OK;
    }
    double *r = k->w[0], *r0 = k->w[1], *p = k->w[2], *v = k->w[3], *t = k->w[4];
    double *ph = ident ? p : k->w[5];
    double *s = r; /* s overwrites r, as in bicgstab.c */
    double *sh = ident ? s : k->w[6];
    const int cur = st->cur, old = st->other;
    if (st->kind == STEPS_BICG_HALF) {
        F_VEC(k, dot, n, r0, r, cur);
        F_VEC(k, bicg_direction, n, st->fresh, cur, old, BI_R0V, BI_TS, BI_TT, r, v, p);
        if (!ident) F_PREC(k, p, ph);
        F_SPMV(k, 1.0, ph, 0.0, v);
        F_VEC(k, dot, n, r0, v, BI_R0V);
        F_VEC(k, bicg_s, n, cur, BI_R0V, v, s, BI_SS);
        const int want[3] = {cur, BI_R0V, BI_SS};
        F_VEC(k, read, want, 3, h);
        return SPK_OK;
    }
    if (!ident) F_PREC(k, s, sh);
    F_SPMV(k, 1.0, sh, 0.0, t);
    F_VEC(k, dot2, n, t, s, BI_TT, BI_TS);
    F_VEC(k, bicg_update, n, cur, BI_R0V, BI_TS, BI_TT, ph, sh, t, x, r, BI_RR);
    const int want[3] = {BI_TT, BI_TS, BI_RR};
    F_VEC(k, read, want, 3, h);
    return SPK_OK;
}

/* The graphs of a solve (SPK_VECTOR_GRAPH), by key (which steps, which
 * parity of the slots) and timed or not. */
#define GRAPH_KEYS 4
typedef struct graphs {
    int on;                              /* cleared for good when a recording fails */
    void *g[GRAPH_KEYS][2];
    int replays[GRAPH_KEYS];
    double sample[GRAPH_KEYS][SPK_PHASES]; /* the phases of the last timed replay */
} graphs;

static void graphs_free(spk_krylov *k, graphs *gs)
{
    for (int a = 0; a < GRAPH_KEYS; a++)
        for (int t = 0; t < 2; t++)
            if (gs->g[a][t]) K(k)->graph_free(gs->g[a][t]);
}

/* The steps as a graph, recorded at the first use of its key (timed: with
 * its marks), then replayed, h read.  *ran = 0 when it cannot be recorded
 * (nothing ran: the caller queues the steps itself). */
static int graph_steps(spk_krylov *k, const steps *st, int timed, void **graph, double *h, int *ran)
{
    const struct spk_exec_krylov_ops *g = K(k);
    *ran = 0;
    if (!*graph) {
        SPK_TRY(g->capture(k->e, timed));
        const int s1 = run_steps(k, st, h);
        const int s2 = g->end_capture(k->e, graph);
        if (s1 || s2 || !*graph) {
            g->graph_free(*graph);
            *graph = NULL;
            spk_err_clear(k->e->err); /* e.g. a preconditioner that waits: plain fused steps then */
            return SPK_OK;
        }
    }
    *ran = 1;
    SPK_TRY(g->launch(k->e, *graph));
    const int want[3][3] = {{st->other, CG_PQ, CG_RR}, {st->cur, BI_R0V, BI_SS}, {BI_TT, BI_TS, BI_RR}};
    return g->read_wait(k->e, want[st->kind], 3, h);
}

/* The steps, replayed as a graph when gs is on (one replay in GRAPH_SAMPLE
 * timed, its phase times standing for the untimed replays after it), else
 * queued one by one; then the phase times so far.  *ran: a graph ran. */
static int steps_then_times(spk_krylov *k, spk_result *res, double t0, double *marked, graphs *gs, int key,
                            const steps *st, double *h, int *ran)
{
    *ran = 0;
    if (gs && gs->on) {
        /* the two parities of one run of steps share the timed replays (of the even one) */
        const int base = key & ~1, timed = key == base && gs->replays[key] % GRAPH_SAMPLE == 0;
        const double before[SPK_PHASES] = {res->t_spmv, res->t_precond, res->t_vector};
        SPK_TRY(graph_steps(k, st, timed, &gs->g[key][timed], h, ran));
        gs->on = *ran;
        if (*ran && timed) {
            SPK_TRY(fused_times(k, res, t0, marked));
            gs->sample[base][SPK_PHASE_SPMV] = res->t_spmv - before[SPK_PHASE_SPMV];
            gs->sample[base][SPK_PHASE_PRECOND] = res->t_precond - before[SPK_PHASE_PRECOND];
            gs->sample[base][SPK_PHASE_VECTOR] = res->t_vector - before[SPK_PHASE_VECTOR];
        } else if (*ran) {
            const double *sm = gs->sample[base];
            res->t_spmv += sm[SPK_PHASE_SPMV];
            res->t_precond += sm[SPK_PHASE_PRECOND];
            res->t_vector += sm[SPK_PHASE_VECTOR];
            *marked += sm[SPK_PHASE_SPMV] + sm[SPK_PHASE_PRECOND] + sm[SPK_PHASE_VECTOR];
        }
        gs->replays[key] += *ran;
    }
    if (!*ran) SPK_TRY(run_steps(k, st, h));
    return fused_times(k, res, t0, marked); /* now, while nothing is queued: no wait */
}

/* Block iterations (SPK_VECTOR_BLOCK, exec.h spk_block_job): a launch runs
 * iterations until the driver's tests would stop it, and gives the reads;
 * the driver hands them out one by one where it would read, runs its tests
 * on them as on its own reads, and launches again when they are used up. */
typedef struct blockrun {
    int on;
    spk_block_job job;
    double reads[3 * 2 * SPK_BLOCK_ITERS + 1]; /* and t't of the true residual after the last */
    double tt;       /* that t't, of the last launch (NaN: not computed) */
    int count, next; /* reads held, the next to hand out */
    int stopped;     /* a CG alongside answered before the reads (block_read) */
} blockrun;


int spk_block_lanes(int n, const int *rp, int blocks)
{
    enum { T = 1024, WARPS = T / 32 }; /* kSmallBlock (core/devtri.cuh) */
    if (n < 1 || !rp || blocks < 1 || blocks > SPK_BLOCK_CLUSTER_MAX) return 0;
    long long cost[SPK_BLOCK_CLUSTER_MAX * WARPS];
    long long best_cost = -1;
    int best = 0;
    for (int g = 2; g <= 32; g *= 2) {
        const int groups = T / g, all = blocks * groups, per_warp = 32 / g;
        memset(cost, 0, sizeof cost);
        long long worst = 0;
        for (int base = 0; base < n; base += all)
            for (int b = 0; b < blocks; b++)
                for (int w = 0; w < WARPS; w++) {
                    const int first = base + b * groups + w * per_warp;
                    if (first >= n) break;
                    int longest = 0;
                    for (int i = first; i < first + per_warp && i < n; i++)
                        if (rp[i + 1] - rp[i] > longest) longest = rp[i + 1] - rp[i];
                    const int loads = (longest + g - 1) / g;
                    long long *c = &cost[b * WARPS + w];
                    *c += 1 + (loads + 1) / 2;
                    if (*c > worst) worst = *c;
                }
        if (best_cost < 0 || worst < best_cost) {
            best_cost = worst;
            best = g;
        }
    }
    return best;
}

/* Can this solve run its iterations in one block, or in a cluster of
 * blocks?  br->on and the job's fixed parts set when it can.  One block up
 * to SPK_BLOCK_NNZ_MAX entries (SPK_BLOCK_NNZ_PREC_MAX with a
 * preconditioner), beyond that a cluster up to SPK_BLOCK_CLUSTER_NNZ_MAX
 * (SPK_BLOCK_CLUSTER_NNZ_PREC_MAX) where M is none or sweeps (exact solves
 * wait row on row: one block's shared memory only). */
static void block_of(spk_krylov *k, const spk_options *o, int method, const double *b, double *x,
                     const spk_result *res, double bnorm, blockrun *br)
{
    memset(br, 0, sizeof *br);
    const int ident = spk_krylov_identity(k);
    if (o->vector_ops != SPK_VECTOR_BLOCK || !K(k)->block || !k->dA || k->n < 1 || k->n > SPK_BLOCK_ROWS) return;
    spk_block_job *j = &br->job;
    if (!ident && (!k->M_ops->block || !k->M_ops->block(k->M, &j->M))) return;
    /* Jacobi costs a product per entry of a vector: the limits without M */
    const int light = ident || j->M.kind == SPK_BLOCK_DIAG;
    if (k->dA->nnz > (light ? SPK_BLOCK_CLUSTER_NNZ_MAX : SPK_BLOCK_CLUSTER_NNZ_PREC_MAX)) return;
    j->cluster = 1;
    if (k->dA->nnz > (light ? SPK_BLOCK_NNZ_MAX : SPK_BLOCK_NNZ_PREC_MAX)) {
        if (!ident && j->M.kind == SPK_BLOCK_SOLVE) return;
        j->cluster = SPK_BLOCK_CLUSTER_MAX;
    }
    j->method = method;
    j->n = k->n;
    j->rp = k->dA->rowptr;
    j->ci = k->dA->colind;
    j->val = k->dA->val;
    /* lanes a row: 2^k >= the mean row length; for CG without a
     * preconditioner or with Jacobi, the model's (spk_block_lanes).  Measured
     * on the H100, us a product, the mean's lanes against the model's:
     * bcsstk08 11.4 against 8.9 (one block), bcsstk21 6.4 against 4.7 (a
     * cluster), 1138_bus 3.6 against 2.8.  Not for BiCGStab: another order
     * of each row's additions moved its iterations (watt_2 67 -> 101 with 4
     * lanes), nor with IC(0), whose factor in shared memory leaves less L1
     * (bcsstk08's product 14.1 -> 14.7 us with 4 lanes). */
    const double mean = (double)k->dA->nnz / k->n;
    j->lanes = 1;
    while (j->lanes < 32 && j->lanes < mean) j->lanes *= 2;
    const int model = k->lanes_light[j->cluster > 1];
    if (method == SPK_BLOCK_CG && light && model > 0) j->lanes = model;
    j->x = x;
    j->b = b; /* the answer's true residual from the kernel (block_finish) */
    for (int i = 0; i < 7; i++) j->v[i] = k->w[i];
    j->maxit = o->maxit;
    /* krylov_common.h's tests, with their thresholds as the host computes them */
    j->conv = o->rtol * bnorm;
    j->atol = o->atol;
    j->div = o->dtol > 0 ? o->dtol * (bnorm > res->rnorm0 ? bnorm : res->rnorm0) : 0;
    br->on = 1;
}

static int race_over(spk_krylov *k, int *over);

/* The next read of the block iterations into h, launching them from
 * iteration it + 1 (slots: spk_block_job.slot; at most `left` iterations)
 * when none is held; the kernel's time goes to the phases by its shares.
 * br->stopped (nothing read): a CG alongside answered while they ran. */
static int block_read(spk_krylov *k, spk_result *res, double t0, double *marked, blockrun *br, const int *slot,
                      int it, int left, double rnorm, double *h)
{
    if (br->next == br->count) {
        spk_block_job *j = &br->job;
        memcpy(j->slot, slot, sizeof j->slot);
        j->it = it;
        j->iters = left < SPK_BLOCK_ITERS ? left : SPK_BLOCK_ITERS;
        j->rnorm = rnorm;
        double share[SPK_PHASES];
        const double before = res->t_vector;
        SPK_TRY(K(k)->block(k->e, j, br->reads, &br->count, share));
        while (br->count == 0) { /* a CG alongside ended first: its answer, else these reads */
            if (!k->race) /* its end would be taken by no one, and asked about again and again */
                return spk_err_set(k->e->err, SPK_ERR_INTERNAL,
                                   "the block iterations ran alongside jobs of a race this solve does not run");
            SPK_TRY(race_over(k, &br->stopped));
            if (br->stopped) { /* these iterations stop on the race's flag: not waited for */
                br->next = 0;
                return SPK_OK;
            }
            SPK_TRY(K(k)->block_rest(k->e, br->reads, &br->count, share));
        }
        br->tt = br->reads[3 * br->count];
        SPK_TRY(fused_times(k, res, t0, marked));
        const double dt = res->t_vector - before;
        res->t_vector = before + dt * share[SPK_PHASE_VECTOR];
        res->t_spmv += dt * share[SPK_PHASE_SPMV];
        res->t_precond += dt * share[SPK_PHASE_PRECOND];
        res->block_iterations += j->method == SPK_BLOCK_CG ? br->count : (br->count + 1) / 2;
        res->block_cluster = j->cluster;
        br->next = 0;
    }
    memcpy(h, br->reads + 3 * br->next++, 3 * sizeof(double));
    return SPK_OK;
}

/* The loop ended: every read of the block iterations was tested. */
static int block_done(spk_krylov *k, const blockrun *br, int it)
{
    if (!br->on || br->next == br->count) return SPK_OK;
    return spk_err_set(k->e->err, SPK_ERR_INTERNAL,
                       "the block iterations ran past the host's stopping test (iteration %d, %d reads left)", it,
                       br->count - br->next);
}

/* The solve's end: its true residual as the block iterations' kernel gave
 * it, where the loop ended at their last read and they ended converged
 * there (x as they left it; norm_of's fast path), else fused_finish's. */
static int block_finish(spk_krylov *k, const blockrun *br, const double *b, const double *x, double *t,
                        spk_result *res, double bnorm)
{
    const int given = br->on && br->count > 0 && br->next == br->count && isfinite(br->tt) && br->tt > 1e-290 &&
                      res->reason != SPK_INVALID_INPUT && res->reason != SPK_CONVERGED_ZERO_RHS;
    return given ? spk_krylov_finished(res, sqrt(br->tt), bnorm) : fused_finish(k, b, x, t, res, bnorm);
}

/* ---- CG alongside (krylov.h, spk_race) ---------------------------------- */

int spk_race_start(spk_race *rc, spk_krylov *main, const double *b, const double *x0, const spk_options *o)
{
    rc->o = o;
    rc->winner = -1;
    for (int w = 0; w < SPK_RACE_SIDES; w++) {
        spk_race_side *sd = &rc->side[w];
        sd->running = sd->won = 0;
        memset(&sd->res, 0, sizeof sd->res);
    }
    spk_krylov *k0 = &rc->side[0].k;
    if (rc->sides < 1 || !K(k0) || !K(k0)->side_run || o->vector_ops != SPK_VECTOR_BLOCK || o->maxit < 1)
        return SPK_OK;
    int done;
    /* main's start, once for all */
    SPK_TRY(spk_krylov_begin(main, b, (double *)x0, o, &done));
    if (done) return SPK_OK;
    rc->bnorm = main->begun.bnorm;
    for (int w = 0; w < rc->sides && w < SPK_RACE_SIDES; w++) {
        spk_race_side *sd = &rc->side[w];
        spk_krylov *k = &sd->k;
        double *x = k->w[4];
        sd->res.rnorm0 = sd->res.rnorm = main->begun.rnorm;
        sd->res.relres = main->begun.rnorm / main->begun.bnorm;
        blockrun br;
        block_of(k, o, SPK_BLOCK_CG, b, x, &sd->res, rc->bnorm, &br);
        if (!br.on) continue;
        spk_block_job *j = &br.job;
        j->x0 = x0; /* copied in by side_run */
        j->r0 = main->w[0];
        if (sd->jacobi) {
            j->M.kind = SPK_BLOCK_DIAG;
            j->M.id[0] = k->w[5];
            j->diag_of_A = 1;
        }
        const int slot[7] = {CG_RZ1, CG_RZ0, CG_PQ, CG_RR};
        memcpy(j->slot, slot, sizeof j->slot);
        j->first = 1;
        j->it = 0;
        j->iters = o->maxit;
        j->rnorm = sd->res.rnorm;
        j->ring = 1;
        SPK_TRY(K(k)->side_run(k->e, w, j));
        sd->cluster = j->cluster;
        sd->running = j->cluster > 0;
    }
    return SPK_OK;
}

int spk_race_running(const spk_race *rc)
{
    for (int w = 0; rc && w < SPK_RACE_SIDES; w++)
        if (rc->side[w].running) return 1;
    return 0;
}

/* Side w has ended: its last read through the host's tests (krylov_common.h). */
static int race_end(spk_race *rc, int w)
{
    spk_race_side *sd = &rc->side[w];
    spk_krylov *k = &sd->k;
    double last[4];
    sd->running = 0;
    SPK_TRY(K(k)->side_end(k->e, w, last, &sd->count, &sd->seconds, sd->share));
    const double rz = last[0], pq = last[1], rr = last[2];
    sd->true_rr = last[3];
    spk_result *res = &sd->res;
    sd->won = 0;
    if (!(isfinite(rz) && rz > 0 && isfinite(pq) && pq > 0 && isfinite(rr) && rr >= 0)) return SPK_OK;
    const double rnorm = sqrt(rr);
    res->iterations = sd->count;
    sd->won = spk_krylov_converged(rc->o, res, rnorm, rc->bnorm);
    if (sd->won) {
        res->rnorm = rnorm;
        res->relres = rnorm / rc->bnorm;
        if (rc->winner < 0) rc->winner = w;
    }
    return SPK_OK;
}

int spk_race_poll(spk_race *rc, int *won)
{
    for (int w = 0; w < SPK_RACE_SIDES && rc->winner < 0; w++) {
        if (!rc->side[w].running) continue;
        int ended = 0;
        SPK_TRY(K(&rc->side[w].k)->side_poll(rc->side[w].k.e, w, &ended));
        if (ended) SPK_TRY(race_end(rc, w));
    }
    *won = rc->winner >= 0;
    return SPK_OK;
}

int spk_race_settle(spk_race *rc)
{
    int won = 0;
    while (spk_race_running(rc) && !won) SPK_TRY(spk_race_poll(rc, &won));
    return SPK_OK;
}

/* The sides still running are not read: the answer is taken, or none of
 * theirs is wanted any more; each is stopped and waited for (its work
 * vectors are the next race's), without a readback's cost. */
int spk_race_stop(spk_race *rc)
{
    int st = SPK_OK;
    for (int w = 0; rc && w < SPK_RACE_SIDES; w++) {
        spk_race_side *sd = &rc->side[w];
        if (!sd->running) continue;
        sd->running = sd->won = 0;
        const int s = K(&sd->k)->side_end(sd->k.e, w, NULL, NULL, NULL, NULL);
        if (!st) st = s;
    }
    return st;
}

int spk_race_result(spk_race *rc, const double *b, double *x, double *host_x, int *on_host, spk_result *res)
{
    *on_host = 0;
    if (rc->winner < 0)
        return spk_err_set(rc->side[0].k.e->err, SPK_ERR_INTERNAL, "spk_race_result: no CG alongside won");
    spk_race_side *sd = &rc->side[rc->winner];
    spk_krylov *k = &sd->k;
    *res = sd->res;
    res->block_iterations = sd->count;
    res->block_cluster = sd->cluster;
    res->t_spmv = sd->seconds * sd->share[SPK_PHASE_SPMV];
    res->t_precond = sd->seconds * sd->share[SPK_PHASE_PRECOND];
    res->t_vector = sd->seconds * sd->share[SPK_PHASE_VECTOR];
    /* the true residual as the side's kernel gave it (norm_of's fast path),
     * else computed here: queued behind the solve's iterations */
    const double tt = sd->true_rr;
    if (tt != 0 && isfinite(tt) && tt > 1e-290)
        SPK_TRY(spk_krylov_finished(res, sqrt(tt), rc->bnorm));
    else
        SPK_TRY(fused_finish(k, b, k->w[4], k->w[3], res, rc->bnorm));
    if (host_x && K(k)->side_download) {
        SPK_TRY(K(k)->side_download(k->e, rc->winner, host_x, k->w[4], k->n));
        *on_host = 1;
    } else {
        SPK_TRY(k->e->ops->copy(k->e, k->n, k->w[4], x));
    }
    /* the others have seen the winner's flag and stopped, or stop within an iteration */
    return spk_race_stop(rc);
}

/* Has the CG alongside (if any) won?  Asked before the driver queues more
 * work; *over = 1 when it has. */
static int race_over(spk_krylov *k, int *over)
{
    *over = 0;
    return k->race ? spk_race_poll(k->race, over) : SPK_OK;
}

/* CG's other rz slot */
static int next_of(int cur)
{
    return cur == CG_RZ0 ? CG_RZ1 : CG_RZ0;
}

static int cg_run(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res, graphs *gs)
{
    const int n = k->n, ident = spk_krylov_identity(k);
    double *r = k->w[0], *p = k->w[1], *q = k->w[2];
    double *z = ident ? r : k->w[3];
    double bnorm, rnorm;
    int done, cur = CG_RZ0; /* the slot of rz */

    SPK_TRY(fused_start(k, b, x, r, o, res, &bnorm, &done));
    if (done) return fused_finish(k, b, x, q, res, bnorm);

    const double t0 = spk_time_now();
    double marked = 0;
    SPK_TRY(K(k)->mark(k->e, -1));
    rnorm = res->rnorm;
    res->reason = SPK_DIVERGED_MAXIT;
    /* graphs: without M, rz' comes from the host */
    if (ident) gs = NULL;
    blockrun br;
    block_of(k, o, SPK_BLOCK_CG, b, x, res, bnorm, &br);
    double h[3];
    if (br.on && o->maxit >= 1) { /* iteration 1 on in the block: z, rz and p = z there */
        const int slot[7] = {next_of(cur), cur, CG_PQ, CG_RR};
        br.job.first = 1;
        SPK_TRY(block_read(k, res, t0, &marked, &br, slot, 0, o->maxit, rnorm, h));
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
        F_VEC(k, dot, n, p, q, CG_PQ);
        F_VEC(k, cg_update, n, cur, CG_PQ, p, q, x, r, CG_RR);
        const int want[3] = {cur, CG_PQ, CG_RR};
        F_VEC(k, read, want, 3, h);
        SPK_TRY(fused_times(k, res, t0, &marked)); /* now, while nothing is queued: no wait */
    }
    for (int it = 1; it <= o->maxit && !br.stopped; it++) {
        if (spk_cg_bad_rz(res, h[0]) || spk_cg_bad_pq(res, h[1])) break;
        SPK_TRY(norm_of(k, n, r, h[2], &rnorm));
        res->iterations = it;
        if (spk_krylov_end_step(k, o, res, it, rnorm, bnorm) || it == o->maxit) break;
        const int next = next_of(cur);
        int over = 0;
        if (!br.on || br.next == br.count) SPK_TRY(race_over(k, &over));
        if (over) break;
        if (br.on) {
            const int slot[7] = {cur, next, CG_PQ, CG_RR};
            SPK_TRY(block_read(k, res, t0, &marked, &br, slot, it, o->maxit - it, rnorm, h));
            if (br.stopped) break;
        } else {
            const steps st = {STEPS_CG, cur, next, 0, rnorm, x};
            int ran = 0;
            SPK_TRY(steps_then_times(k, res, t0, &marked, it >= GRAPH_FROM ? gs : NULL, cur == CG_RZ1, &st, h, &ran));
            res->graph_iterations += ran;
        }
        cur = next;
    }
    SPK_TRY(block_done(k, &br, res->iterations));
    /* the caller takes the answer alongside; this solve's times are not
     * wanted (collected, they would wait for its last iteration) */
    if (k->race && k->race->winner >= 0) return SPK_OK;
    SPK_TRY(fused_times(k, res, t0, &marked));
    return block_finish(k, &br, b, x, q, res, bnorm);
}

/* with graphs (SPK_VECTOR_GRAPH, on an executor that has them) or without */
static graphs *graphs_of(spk_krylov *k, const spk_options *o, graphs *gs)
{
    memset(gs, 0, sizeof *gs);
    gs->on = (o->vector_ops == SPK_VECTOR_GRAPH || o->vector_ops == SPK_VECTOR_BLOCK) && K(k)->capture != NULL;
    return gs->on ? gs : NULL;
}

typedef int (*driver_fn)(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res,
                         graphs *gs);

/* run the driver, then free its graphs whatever its outcome */
static int with_graphs(driver_fn run, spk_krylov *k, const double *b, double *x, const spk_options *o,
                       spk_result *res)
{
    graphs gs;
    graphs *g = graphs_of(k, o, &gs);
    const int st = run(k, b, x, o, res, g);
    if (g) graphs_free(k, g);
    return st;
}

int spk_cg_fused(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res)
{
    return with_graphs(cg_run, k, b, x, o, res);
}

static int bicgstab_run(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res,
                        graphs *gs)
{
    const int n = k->n, ident = spk_krylov_identity(k);
    double *r = k->w[0], *r0 = k->w[1], *t = k->w[4];
    double *ph = ident ? k->w[2] : k->w[5];
    double *s = r; /* s overwrites r, as in bicgstab.c */
    double bnorm, rnorm, snorm;
    int done, fresh = 1, seq = 0, cur = BI_RHO0;

    SPK_TRY(fused_start(k, b, x, r, o, res, &bnorm, &done));
    if (done) return fused_finish(k, b, x, t, res, bnorm);

    const double t0 = spk_time_now();
    double marked = 0;
    SPK_TRY(K(k)->mark(k->e, -1));
    F_PLAIN(k, copy, n, r, r0);
    res->reason = SPK_DIVERGED_MAXIT;
    blockrun br;
    block_of(k, o, SPK_BLOCK_BICGSTAB, b, x, res, bnorm, &br);
    if (br.on) gs = NULL;
    for (int it = 1; it <= o->maxit; it++) {
        const int old = cur == BI_RHO0 ? BI_RHO1 : BI_RHO0;
        int broke = 0, ran = 0;
        /* graphs from GRAPH_FROM on, not for a first step (p = r) */
        graphs *g = it >= GRAPH_FROM && !fresh ? gs : NULL;
        const int par = cur == BI_RHO1;
        const steps half = {STEPS_BICG_HALF, cur, old, fresh, 0, x}, rest = {STEPS_BICG_REST, cur, old, 0, 0, x};
        double h[3];
        /* the block iterations start at a first half that is not a first step (p = r): the
         * first step's sums taken in the block moved BiCGStab's iterations (cryg2500's
         * ILU(0) from 286 to none in 5000, watt_2 without a preconditioner from 1506 to
         * none; H100) */
        const int slot[7] = {cur, old, BI_R0V, BI_SS, BI_TT, BI_TS, BI_RR};
        int over = 0;
        if (!br.on || br.next == br.count) SPK_TRY(race_over(k, &over));
        if (over) break;
        if (br.on && (br.next < br.count || !fresh)) {
            SPK_TRY(block_read(k, res, t0, &marked, &br, slot, it - 1, o->maxit - it + 1, 0, h));
        } else {
            SPK_TRY(steps_then_times(k, res, t0, &marked, g, par, &half, h, &ran));
            res->graph_iterations += ran;
        }
        const double rho = h[0], r0v = h[1], ss = h[2];
        if (!isfinite(rho)) {
            res->reason = SPK_DIVERGED_NAN;
            break;
        }
        if (rho == 0) {
            broke = SPK_BREAKDOWN_RHO;
        } else {
            fresh = 0;
            if (!isfinite(r0v)) {
                res->reason = SPK_DIVERGED_NAN;
                break;
            }
            const double alpha = r0v != 0 ? rho / r0v : INFINITY;
            if (!isfinite(alpha)) broke = SPK_BREAKDOWN_R0V;
        }
        if (broke) {
            int stop;
            SPK_TRY(spk_bicgstab_broke(k, b, x, r, r0, o, res, it, bnorm, broke, &seq, &fresh, &stop));
            if (stop) break;
            it--; /* the restart is not an iteration */
            continue;
        }
        SPK_TRY(norm_of(k, n, s, ss, &snorm));
        res->iterations = it;
        if (isfinite(snorm) && spk_krylov_converged(o, res, snorm, bnorm)) {
            F_VEC(k, axpy_ratio, n, cur, BI_R0V, ph, x);
            res->rnorm = snorm;
            res->relres = snorm / bnorm;
            spk_krylov_record(k, o, res, it, snorm, bnorm);
            break;
        }
        if (br.on && br.next < br.count) /* else the block iterations stopped after the first half */
            SPK_TRY(block_read(k, res, t0, &marked, &br, slot, it - 1, 1, 0, h));
        else
            SPK_TRY(steps_then_times(k, res, t0, &marked, g, 2 + par, &rest, h, &ran));
        const double tt = h[0], ts = h[1], rr = h[2];
        if (!isfinite(tt) || !isfinite(ts)) {
            res->reason = SPK_DIVERGED_NAN;
            break;
        }
        if (tt == 0) {
            res->reason = SPK_BREAKDOWN_OMEGA;
            break;
        }
        const double omega = ts / tt;
        SPK_TRY(norm_of(k, n, r, rr, &rnorm));
        if (spk_krylov_end_step(k, o, res, it, rnorm, bnorm)) break;
        if (omega == 0) {
            res->reason = SPK_BREAKDOWN_OMEGA;
            break;
        }
        cur = old; /* this rho becomes rho_old */
        seq++;
    }
    SPK_TRY(block_done(k, &br, res->iterations));
    SPK_TRY(fused_times(k, res, t0, &marked));
    if (k->race && k->race->winner >= 0) return SPK_OK; /* the caller takes the answer alongside */
    return block_finish(k, &br, b, x, t, res, bnorm);
}

int spk_bicgstab_fused(spk_krylov *k, const double *b, double *x, const spk_options *o, spk_result *res)
{
    return with_graphs(bicgstab_run, k, b, x, o, res);
}
