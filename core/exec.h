/* exec.h -- the executor: where vectors live and how BLAS-1 runs.
 *
 * The solver drivers see vectors only through this table, so the same driver
 * runs on host memory with plain loops or on device memory with cuBLAS.
 * Every operation returns a status and records a message in e->err on failure.
 * Vector lengths are ints (the matrix dimension).  The executor knows no
 * method: iteration steps, block iterations and races belong to solver/. */
#ifndef SPK_CORE_EXEC_H
#define SPK_CORE_EXEC_H

#include <stddef.h>

#include "error.h"

typedef struct spk_exec spk_exec;

/* Scalars kept on the executor (optional: spk_exec_ops.async is NULL where an
 * executor has none).  Work is queued without waiting; reductions write
 * into SPK_EXEC_SLOTS scalar slots in the executor's memory, and one read
 * brings any of them back.  A reduction adds in an order fixed by n alone,
 * so a run repeats to the bit; on the host a reduction does dot's
 * arithmetic (core/host_sum.h), so queued work there equals the plain
 * operations to the bit. */
#define SPK_EXEC_SLOTS 16
/* The phases that marks attribute time to. */
enum { SPK_PHASE_SPMV, SPK_PHASE_PRECOND, SPK_PHASE_VECTOR, SPK_PHASES };
struct spk_exec_async_ops {
    /* s[o] = x'y */
    int (*dot)(spk_exec *e, int n, const double *x, const double *y, int o);
    /* s[o1] = x'x, s[o2] = x'y */
    int (*dot2)(spk_exec *e, int n, const double *x, const double *y, int o1, int o2);
    /* s[o] = v (a value the host computed) */
    int (*set)(spk_exec *e, int o, double v);
    /* host[i] = s[slots[i]] for i < count: one transfer after the queued work */
    int (*read)(spk_exec *e, const int *slots, int count, double *host);
    /* The slots in the executor's memory (device memory on the GPU), for
     * the steps that solver/ queues on the executor; NULL after an error. */
    double *(*slots)(spk_exec *e);
    /* Phase times without a wait per phase: mark(e, ph) says that the work
     * queued since the previous mark belongs to phase ph (SPK_PHASE_*);
     * mark(e, -1) only sets a starting point (and drops what was marked
     * since the last collect).  collect waits for the work marked so far
     * and adds to seconds[SPK_PHASES] the time of each phase since the last
     * collect (on the GPU the GPU's time, from events; on the host wall
     * time); the last mark stays the next starting point. */
    int (*mark)(spk_exec *e, int ph);
    int (*collect)(spk_exec *e, double *seconds);
    /* Graphs (NULL where the executor has none).  capture(e, timed): the
     * work queued next is recorded instead of run, with its marks as
     * timing nodes when timed; a read then only queues its transfer.
     * end_capture(e, &g): the graph, or an error (*g NULL, nothing run, the
     * executor usable) when something queued could not be recorded.
     * launch(e, g) runs it, its marks counting as if queued one by one;
     * read_wait(e, slots, count, host) waits for it and gives what its read
     * transferred; graph_free(g) (NULL-safe). */
    int (*capture)(spk_exec *e, int timed);
    int (*end_capture)(spk_exec *e, void **graph);
    int (*launch)(spk_exec *e, void *graph);
    int (*read_wait)(spk_exec *e, const int *slots, int count, double *host);
    void (*graph_free)(void *graph);
};

struct spk_exec_ops {
    const char *name; /* "host", "cuda" */
    int (*alloc)(spk_exec *e, size_t bytes, void **p);
    void (*free)(spk_exec *e, void *p);
    int (*upload)(spk_exec *e, void *dst, const void *src, size_t bytes);   /* host -> exec */
    int (*download)(spk_exec *e, void *dst, const void *src, size_t bytes); /* exec -> host */
    /* *out = x'y */
    int (*dot)(spk_exec *e, int n, const double *x, const double *y, double *out);
    /* *out = ||x||_2 */
    int (*nrm2)(spk_exec *e, int n, const double *x, double *out);
    /* y = a*x + y */
    int (*axpy)(spk_exec *e, int n, double a, const double *x, double *y);
    /* y = a*x + b*y (b == 0: y is not read) */
    int (*axpby)(spk_exec *e, int n, double a, const double *x, double b, double *y);
    /* x = a*x */
    int (*scal)(spk_exec *e, int n, double a, double *x);
    /* y = x */
    int (*copy)(spk_exec *e, int n, const double *x, double *y);
    /* x[i] = a */
    int (*fill)(spk_exec *e, int n, double a, double *x);
    /* wait for queued work (timing); NULL-safe no-op on the host */
    int (*sync)(spk_exec *e);
    void (*destroy)(spk_exec *e);
    /* scalars on the executor, graphs (NULL: none) */
    const struct spk_exec_async_ops *async;
    /* k vectors at once, V_i = V + i*ld (GMRES's basis); NULL: by dot and axpy
     * one vector at a time.  h[i] = V_i'w, h on the host: */
    int (*mdot)(spk_exec *e, int n, int k, const double *V, size_t ld, const double *w, double *h);
    /* w += sum_i a[i] V_i, a on the host: */
    int (*maxpy)(spk_exec *e, int n, int k, const double *a, const double *V, size_t ld, double *w);
};

/* State that an upper layer keeps per executor (its buffers, streams), found
 * by a key of its own and destroyed with the executor, before the
 * executor's own resources, newest first. */
#define SPK_EXEC_ATTACHED 4
typedef struct spk_exec_attachment {
    const void *key;
    void *state;
    void (*destroy)(void *state);
} spk_exec_attachment;

struct spk_exec {
    const struct spk_exec_ops *ops;
    void *impl;      /* executor-private state (handles, streams) */
    spk_err *err;    /* where failures are recorded (owned by the context) */
    spk_exec_attachment attached[SPK_EXEC_ATTACHED];
};

/* Create the host executor; errors go to err. */
int spk_exec_host_create(spk_err *err, spk_exec **e);
/* Destroy any executor (NULL-safe): its attachments first. */
void spk_exec_destroy(spk_exec *e);
/* Is this the host executor (pointers are host pointers)? */
int spk_exec_is_host(const spk_exec *e);

/* Keep state with e under key (destroy may be NULL); an error when key is
 * taken or the table is full. */
int spk_exec_attach(spk_exec *e, const void *key, void *state, void (*destroy)(void *state));
/* The state kept under key, or NULL. */
void *spk_exec_attached(const spk_exec *e, const void *key);
/* The state kept under key, made (bytes, zeroed) and attached at the first
 * call (*made = 1 then; made may be NULL); NULL after an error, whose
 * message names `what`. */
void *spk_exec_state(spk_exec *e, const void *key, size_t bytes, void (*destroy)(void *state), const char *what,
                     int *made);

/* Allocate n doubles on the executor. */
int spk_exec_alloc_vec(spk_exec *e, int n, double **p);

/* Monotonic wall clock in seconds. */
double spk_time_now(void);

#endif
