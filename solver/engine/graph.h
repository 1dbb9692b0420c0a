/* graph.h -- the graph engine (engine.h): the runs of steps between two
 * reads (CG from the preconditioner to the read; BiCGStab's two halves)
 * recorded once per key (which steps, which parity of the scalar slots)
 * and replayed, from about the SPK_GRAPH_FROM-th iteration on, where the
 * executor has graphs (SPK_VECTOR_GRAPH and SPK_VECTOR_BLOCK). */
#ifndef SPK_SOLVER_ENGINE_GRAPH_H
#define SPK_SOLVER_ENGINE_GRAPH_H

#include "solver/engine/engine.h"

/* Graphs run from about this iteration on: recording one costs more than
 * short solves win back (docs/benchmarks.md). */
#define SPK_GRAPH_FROM 40
/* One replay in this many of a run of steps' even-parity graph is timed. */
#define SPK_GRAPH_SAMPLE 8

#define SPK_GRAPH_KEYS 4
typedef struct spk_graphs {
    int on;                                  /* cleared for good when a recording fails */
    void *g[SPK_GRAPH_KEYS][2];
    int replays[SPK_GRAPH_KEYS];
    double sample[SPK_GRAPH_KEYS][SPK_PHASES]; /* the phases of the last timed replay */
} spk_graphs;

/* The graphs of a solve: gs when its options and executor have them, else
 * NULL; spk_graphs_close frees what was recorded (gs may be NULL). */
spk_graphs *spk_graphs_open(spk_krylov *k, const spk_options *o, spk_graphs *gs);
void spk_graphs_close(spk_krylov *k, spk_graphs *gs);
/* The run st, replayed as a graph when gs is on (one replay in
 * SPK_GRAPH_SAMPLE timed, its phase times standing for the untimed replays
 * after it), else queued one by one; then the phase times so far.  key:
 * which steps and parity (0..3); *ran: a graph ran. */
int spk_graphs_steps(spk_krylov *k, spk_result *res, spk_clock *c, spk_graphs *gs, int key, const spk_steps *st,
                     double *h, int *ran);

#endif
