/* exec.h -- the executor: where vectors live and how BLAS-1 runs.
 *
 * The solver drivers see vectors only through this table, so the same driver
 * runs on host memory with plain loops or on device memory with cuBLAS.
 * Every operation returns a status and records a message in e->err on failure.
 * Vector lengths are ints (the matrix dimension). */
#ifndef SPK_CORE_EXEC_H
#define SPK_CORE_EXEC_H

#include <stddef.h>

#include "error.h"

typedef struct spk_exec spk_exec;

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
};

struct spk_exec {
    const struct spk_exec_ops *ops;
    void *impl;      /* executor-private state (handles, streams) */
    spk_err *err;    /* where failures are recorded (owned by the context) */
};

/* Create the host executor; errors go to err. */
int spk_exec_host_create(spk_err *err, spk_exec **e);
/* Destroy any executor (NULL-safe). */
void spk_exec_destroy(spk_exec *e);
/* Is this the host executor (pointers are host pointers)? */
int spk_exec_is_host(const spk_exec *e);

/* Allocate n doubles on the executor. */
int spk_exec_alloc_vec(spk_exec *e, int n, double **p);

/* Monotonic wall clock in seconds. */
double spk_time_now(void);

#endif
