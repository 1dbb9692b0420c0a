/* graph.c -- the graph engine (graph.h): a run of fused steps recorded
 * once per key as a graph of the executor and replayed, one launch a read;
 * the host reads and tests exactly as after the queue engine, so the
 * numbers are those of the steps queued one by one.  A step that cannot be
 * recorded (a backend that waits) ends the graphs for the solve. */
#include <string.h>

#include "solver/engine/graph.h"

void spk_graphs_close(spk_krylov *k, spk_graphs *gs)
{
    if (!gs) return;
    for (int a = 0; a < SPK_GRAPH_KEYS; a++)
        for (int t = 0; t < 2; t++)
            if (gs->g[a][t]) SPK_ASYNC(k)->graph_free(gs->g[a][t]);
}

/* The steps as a graph, recorded at the first use of its key (timed: with
 * its marks), then replayed, h read.  *ran = 0 when it cannot be recorded
 * (nothing ran: the caller queues the steps itself). */
static int graph_steps(spk_krylov *k, const spk_steps *st, int timed, void **graph, double *h, int *ran)
{
    const struct spk_exec_async_ops *g = SPK_ASYNC(k);
    *ran = 0;
    if (!*graph) {
        SPK_TRY(g->capture(k->e, timed));
        const int s1 = spk_queue_steps(k, st, h);
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
    int want[3];
    spk_steps_read_slots(st, want);
    return g->read_wait(k->e, want, 3, h);
}

/* The steps, replayed as a graph when gs is on (one replay in SPK_GRAPH_SAMPLE
 * timed, its phase times standing for the untimed replays after it), else
 * queued one by one; then the phase times so far.  *ran: a graph ran. */
int spk_graphs_steps(spk_krylov *k, spk_result *res, spk_clock *c, spk_graphs *gs, int key, const spk_steps *st,
                     double *h, int *ran)
{
    *ran = 0;
    if (gs && gs->on) {
        /* the two parities of one run of steps share the timed replays (of the even one) */
        const int base = key & ~1, timed = key == base && gs->replays[key] % SPK_GRAPH_SAMPLE == 0;
        const double before[SPK_PHASES] = {res->t_spmv, res->t_precond, res->t_vector};
        SPK_TRY(graph_steps(k, st, timed, &gs->g[key][timed], h, ran));
        gs->on = *ran;
        if (*ran && timed) {
            SPK_TRY(spk_fused_times(k, res, c));
            gs->sample[base][SPK_PHASE_SPMV] = res->t_spmv - before[SPK_PHASE_SPMV];
            gs->sample[base][SPK_PHASE_PRECOND] = res->t_precond - before[SPK_PHASE_PRECOND];
            gs->sample[base][SPK_PHASE_VECTOR] = res->t_vector - before[SPK_PHASE_VECTOR];
        } else if (*ran) {
            const double *sm = gs->sample[base];
            res->t_spmv += sm[SPK_PHASE_SPMV];
            res->t_precond += sm[SPK_PHASE_PRECOND];
            res->t_vector += sm[SPK_PHASE_VECTOR];
            c->marked += sm[SPK_PHASE_SPMV] + sm[SPK_PHASE_PRECOND] + sm[SPK_PHASE_VECTOR];
        }
        gs->replays[key] += *ran;
    }
    if (!*ran) SPK_TRY(spk_queue_steps(k, st, h));
    return spk_fused_times(k, res, c); /* now, while nothing is queued: no wait */
}

/* with graphs (SPK_VECTOR_GRAPH, on an executor that has them) or without */
spk_graphs *spk_graphs_open(spk_krylov *k, const spk_options *o, spk_graphs *gs)
{
    memset(gs, 0, sizeof *gs);
    gs->on = (o->vector_ops == SPK_VECTOR_GRAPH || o->vector_ops == SPK_VECTOR_BLOCK) && SPK_ASYNC(k)->capture != NULL;
    return gs->on ? gs : NULL;
}

