/* exec_mpi.c -- the host executor with global reductions (dist.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/parallel.h"
#include "dist.h"

typedef struct mpi_exec {
    spk_exec pub;              /* first: the spk_exec the drivers see */
    spk_exec *host;            /* the host executor whose operations do the local work */
    MPI_Comm comm;
    int size;
    double *part;              /* one partial result per rank */
    struct spk_exec_ops ops;
} mpi_exec;

static mpi_exec *of(spk_exec *e)
{
    return (mpi_exec *)e;
}

/* part[r] = rank r's v, on every rank. */
static int gather(mpi_exec *m, double v)
{
    int rc = MPI_Allgather(&v, 1, MPI_DOUBLE, m->part, 1, MPI_DOUBLE, m->comm);
    if (rc != MPI_SUCCESS) return spk_err_set(m->pub.err, SPK_ERR_DEVICE, "MPI_Allgather failed (code %d)", rc);
    return SPK_OK;
}

static int mpi_dot(spk_exec *e, int n, const double *x, const double *y, double *out)
{
    mpi_exec *m = of(e);
    double local = 0;
    SPK_TRY(m->host->ops->dot(e, n, x, y, &local));
    SPK_TRY(gather(m, local));
    double s = 0;
    for (int r = 0; r < m->size; r++) s += m->part[r]; /* rank order: the same sum on every rank */
    *out = s;
    return SPK_OK;
}

/* ||x|| from the ranks' norms, scaled by the largest (no overflow). */
static int mpi_nrm2(spk_exec *e, int n, const double *x, double *out)
{
    mpi_exec *m = of(e);
    double local = 0;
    SPK_TRY(m->host->ops->nrm2(e, n, x, &local));
    SPK_TRY(gather(m, local));
    double big = 0, s = 0;
    int nan = 0;
    for (int r = 0; r < m->size; r++) {
        if (m->part[r] != m->part[r]) nan = 1;
        big = fmax(big, m->part[r]);
    }
    if (nan) {
        *out = NAN;
        return SPK_OK;
    }
    if (big == 0 || isinf(big)) {
        *out = big;
        return SPK_OK;
    }
    for (int r = 0; r < m->size; r++) {
        const double q = m->part[r] / big;
        s += q * q;
    }
    *out = big * sqrt(s);
    return SPK_OK;
}

static void mpi_destroy(spk_exec *e)
{
    mpi_exec *m = of(e);
    if (!m) return;
    spk_exec_destroy(m->host);
    free(m->part);
    free(m);
}

/* Ranks on one node share its cores: without OMP_NUM_THREADS each rank's
 * host loops take its part of them, not all (which would oversubscribe). */
static void share_cores(MPI_Comm comm)
{
    if (getenv("OMP_NUM_THREADS")) return;
    MPI_Comm node;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS) return;
    int local = 1;
    if (MPI_Comm_size(node, &local) != MPI_SUCCESS || local < 1) local = 1;
    MPI_Comm_free(&node);
    const int cores = spk_host_set_threads(0);
    spk_host_set_threads(cores / local > 1 ? cores / local : 1);
}

int spk_exec_mpi_create(MPI_Comm comm, spk_err *err, spk_exec **e)
{
    if (!e) return SPK_ERR_INVALID_ARG;
    *e = NULL;
    int init = 0;
    MPI_Initialized(&init);
    if (!init) return spk_err_set(err, SPK_ERR_INVALID_ARG, "the MPI executor needs MPI_Init first");
    mpi_exec *m = calloc(1, sizeof *m);
    if (!m) return spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (MPI executor)");
    int st = spk_exec_host_create(err, &m->host);
    if (st) {
        free(m);
        return st;
    }
    m->comm = comm;
    if (MPI_Comm_size(comm, &m->size) != MPI_SUCCESS || m->size < 1) {
        mpi_destroy(&m->pub);
        return spk_err_set(err, SPK_ERR_INVALID_ARG, "MPI_Comm_size failed on the communicator given");
    }
    share_cores(comm);
    m->part = malloc((size_t)m->size * sizeof(double));
    if (!m->part) {
        mpi_destroy(&m->pub);
        return spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (MPI executor)");
    }
    m->ops = *m->host->ops;
    m->ops.dot = mpi_dot;
    m->ops.nrm2 = mpi_nrm2;
    m->ops.destroy = mpi_destroy;
    m->ops.async = NULL; /* its scalars would reduce locally: the drivers use the plain operations */
    m->ops.mdot = NULL;  /* the same: dots one at a time, each reduced */
    m->ops.maxpy = NULL;
    m->pub.ops = &m->ops;
    m->pub.impl = m->host->impl;
    m->pub.err = err;
    *e = &m->pub;
    return SPK_OK;
}

MPI_Comm spk_exec_mpi_comm(const spk_exec *e)
{
    return e && e->ops && e->ops->destroy == mpi_destroy ? ((const mpi_exec *)e)->comm : MPI_COMM_NULL;
}
