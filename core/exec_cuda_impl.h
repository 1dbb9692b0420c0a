/* exec_cuda_impl.h -- the CUDA executor's private state, shared by its
 * files (exec_cuda.c: memory, copies, BLAS-1; exec_cuda_async.c: scalar
 * slots, marks, graphs; cuda_timing.c: timers).  Internal to core/. */
#ifndef SPK_CORE_EXEC_CUDA_IMPL_H
#define SPK_CORE_EXEC_CUDA_IMPL_H

#include "exec_cuda.h"
#include "slot_kernels.h"

#define ASYNC_EVENTS 64 /* phase marks between two collects before one waits */

/* A recorded graph and the events of its marks. */
#define GRAPH_EVENTS 32
typedef struct cuda_graph {
    cudaGraphExec_t exec;
    cudaEvent_t ev[GRAPH_EVENTS]; /* ev[0]: its start; ev[i]: its i-th mark */
    int tag[GRAPH_EVENTS];
    int nev;
    int timed;                    /* marks recorded as event nodes */
} cuda_graph;

/* The scalar slots' state, made at their first use. */
typedef struct async_state {
    spk_slot_dev d;          /* slots, block sums, ticket (device) */
    cuda_graph *cap;         /* the graph being recorded (NULL: none) */
    cuda_graph *ran;         /* the graph launched last, whose marks are not collected yet */
    double *hslots;          /* pinned copy of the slots for read */
    cudaEvent_t ev[ASYNC_EVENTS];
    int tag[ASYNC_EVENTS];   /* the phase of each mark (-1: a starting point) */
    int nev;                 /* marks recorded since the last collect (ev[0] the starting point) */
    double acc[SPK_PHASES];  /* seconds of marks already added up */
} async_state;

typedef struct cuda_impl {
    cudaStream_t stream;
    cublasHandle_t blas;
    cusparseHandle_t sparse;
    int device;
    async_state *as;
    void *stage[2];        /* pinned, STAGE_BYTES each (made on the first large upload) */
    cudaEvent_t staged[2]; /* the last copy out of each */
    int stage_failed;      /* pinned memory refused once: plain copies from then on */
    int hold;              /* spk_exec_cuda_hold_frees: frees deferred while > 0 */
    void **later;          /* ... the deferred ones */
    int nlater, caplater;
    double *small;         /* device scratch of nsmall doubles (mdot's and maxpy's coefficients) */
    int nsmall;
} cuda_impl;

static inline cuda_impl *spk_cuda_impl(const spk_exec *e)
{
    return (cuda_impl *)e->impl;
}

/* The slots' operations (exec_cuda_async.c) and their state's release. */
extern const struct spk_exec_async_ops spk_cuda_async_ops;
void spk_cuda_async_free(async_state *as);

#endif
