/* agree.c -- a status every rank agrees on (dist.h): what keeps a failure
 * on one rank from leaving the others waiting in a collective call. */
#include <string.h>

#include "dist.h"

int spk_dist_agree(MPI_Comm comm, int st, spk_err *err)
{
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int mine = st ? rank : size, first = size;
    if (MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        return spk_err_set(err, SPK_ERR_DEVICE, "MPI_Allreduce failed while the ranks agreed a status");
    if (first == size) return SPK_OK;
    /* the first failing rank's status and message, to every rank */
    struct {
        int st;
        char msg[sizeof err->msg];
    } m;
    memset(&m, 0, sizeof m);
    if (rank == first) {
        m.st = st;
        memcpy(m.msg, err->msg, sizeof m.msg);
    }
    if (MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, first, comm) != MPI_SUCCESS)
        return spk_err_set(err, SPK_ERR_DEVICE, "MPI_Bcast failed while the ranks agreed a status");
    if (rank != first) {
        m.msg[sizeof m.msg - 1] = 0;
        spk_err_set(err, m.st, "%s", m.msg);
    }
    return m.st;
}
