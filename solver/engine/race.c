/* race.c -- the race (race.h): CG solves alongside a preconditioned solve,
 * each on a stream of the executor's own in one block or a cluster, from
 * the same x0; the host takes whichever converges first.  A side's last
 * read goes through the host's tests (solver/control.h). */
#include <string.h>

#include "solver/engine/race.h"

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
    if (rc->sides < 1 || !spk_race_cuda_can(k0->e) || o->vector_ops != SPK_VECTOR_BLOCK || o->maxit < 1)
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
        spk_blockrun br;
        spk_block_open(k, o, SPK_BLOCK_CG, b, x, &sd->res, rc->bnorm, &br);
        if (!br.on) continue;
        spk_block_job *j = &br.job;
        j->x0 = x0; /* copied in by spk_race_cuda_run */
        j->r0 = main->w[0];
        if (sd->jacobi) {
            j->M.kind = SPK_BLOCK_DIAG;
            j->M.id[0] = k->w[5];
            j->diag_of_A = 1;
        }
        const int slot[7] = {SPK_CG_RZ1, SPK_CG_RZ0, SPK_CG_PQ, SPK_CG_RR};
        memcpy(j->slot, slot, sizeof j->slot);
        j->first = 1;
        j->it = 0;
        j->iters = o->maxit;
        j->rnorm = sd->res.rnorm;
        j->ring = 1;
        SPK_TRY(spk_race_cuda_run(k->e, w, j));
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
    double last[4] = {0, 0, 0, 0}; /* the host-only build's stub writes none */
    sd->running = 0;
    SPK_TRY(spk_race_cuda_end(k->e, w, last, &sd->count, &sd->seconds, sd->share));
    const double rz = last[0], pq = last[1], rr = last[2];
    sd->true_rr = last[3];
    spk_result *res = &sd->res;
    sd->won = 0;
    int why;
    if (spk_cg_rz_bad(rz, &why) || spk_cg_pq_bad(pq, &why) || !(isfinite(rr) && rr >= 0)) return SPK_OK;
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
        SPK_TRY(spk_race_cuda_poll(rc->side[w].k.e, w, &ended));
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
        const int s = spk_race_cuda_end(sd->k.e, w, NULL, NULL, NULL, NULL);
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
    if (spk_norm_from_square(tt) >= 0)
        SPK_TRY(spk_krylov_finished(res, spk_norm_from_square(tt), rc->bnorm));
    else
        SPK_TRY(spk_fused_finish(k, b, k->w[4], k->w[3], res, rc->bnorm));
    if (host_x) {
        SPK_TRY(spk_race_cuda_download(k->e, rc->winner, host_x, k->w[4], k->n));
        *on_host = 1;
    } else {
        SPK_TRY(k->e->ops->copy(k->e, k->n, k->w[4], x));
    }
    /* the others have seen the winner's flag and stopped, or stop within an iteration */
    return spk_race_stop(rc);
}

const spk_block_watch *spk_race_watch(const spk_race *rc, spk_block_watch *w)
{
    return spk_race_running(rc) ? spk_race_cuda_watch(rc->side[0].k.e, w) : NULL;
}

#ifndef SPK_HAVE_CUDA
/* A build without CUDA runs no sides (spk_race_start starts none). */
int spk_race_cuda_can(const spk_exec *e)
{
    (void)e;
    return 0;
}

#define NO_SIDES(e) spk_err_set((e)->err, SPK_ERR_INTERNAL, "the race's sides asked of a build without CUDA")

int spk_race_cuda_run(spk_exec *e, int which, spk_block_job *job)
{
    (void)which, (void)job;
    return NO_SIDES(e);
}

int spk_race_cuda_poll(spk_exec *e, int which, int *ended)
{
    (void)e, (void)which;
    *ended = 1;
    return SPK_OK;
}

int spk_race_cuda_end(spk_exec *e, int which, double last[4], int *count, double *seconds, double *share)
{
    (void)which, (void)last, (void)count, (void)seconds, (void)share;
    return NO_SIDES(e);
}

int spk_race_cuda_download(spk_exec *e, int which, double *host, const double *dev, int n)
{
    (void)which, (void)host, (void)dev, (void)n;
    return NO_SIDES(e);
}

const spk_block_watch *spk_race_cuda_watch(spk_exec *e, spk_block_watch *w)
{
    (void)e, (void)w;
    return NULL;
}

const int *spk_race_cuda_flag(const spk_exec *e, int *race)
{
    (void)e;
    *race = 0;
    return NULL;
}
#endif
