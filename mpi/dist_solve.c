/* dist_solve.c -- what a solve across ranks needs besides the product
 * (dist.h): the symmetry test of a matrix whose rows are spread over the
 * ranks, and the solve itself (CG or BiCGStab with none, Jacobi or
 * block-Jacobi IC(0)/ILU(0)). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "precond/precond.h"
#include "solver/krylov.h"

static int cmp_int(const void *a, const void *b)
{
    const int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Each entry (i, j, v) goes to the owner of row j, which looks for (j, i)
 * with the value v: the transpose's entries, checked where they live. */
typedef struct sym_entry {
    int row, col; /* the entry to find: row j, column i */
    double val;
} sym_entry;

static void sym_check(const spk_csr *rows, int row_begin, const sym_entry *q, int nq, double rtol, int *flags)
{
    for (int k = 0; k < nq; k++) {
        const int i = q[k].row - row_begin;
        const int *c = rows->colind + rows->rowptr[i];
        const int len = rows->rowptr[i + 1] - rows->rowptr[i];
        const int *at = bsearch(&q[k].col, c, (size_t)len, sizeof(int), cmp_int);
        if (!at) {
            flags[0] = flags[1] = 0;
            return;
        }
        const double a = rows->val[rows->rowptr[i] + (at - c)], b = q[k].val;
        if (!(fabs(a - b) <= rtol * fmax(fabs(a), fabs(b)))) flags[1] = 0;
    }
}

int spk_dist_symmetry(MPI_Comm comm, int n, int row_begin, const spk_csr *rows, double rtol, int *pattern,
                      int *values, int *posdiag, spk_err *err)
{
    int size = 1, st = SPK_OK;
    MPI_Comm_size(comm, &size);
    int flags[3] = {1, 1, 1}; /* pattern, values, positive diagonal */
    int *starts = calloc((size_t)size + 1, sizeof(int)), *scnt = calloc((size_t)size, sizeof(int));
    int *rcnt = calloc((size_t)size, sizeof(int)), *sdisp = calloc((size_t)size, sizeof(int));
    int *rdisp = calloc((size_t)size, sizeof(int)), *fill = calloc((size_t)size, sizeof(int));
    sym_entry *out = malloc(((size_t)rows->nnz + 1) * sizeof *out), *in = NULL;
    if (!starts || !scnt || !rcnt || !sdisp || !rdisp || !fill || !out)
        st = spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (symmetry of a distributed matrix)");
    if ((st = spk_dist_agree(comm, st, err))) goto done;
    MPI_Allgather(&row_begin, 1, MPI_INT, starts, 1, MPI_INT, comm);
    starts[size] = n;
    for (int i = 0; i < rows->nrows; i++) {
        int diag = 0;
        for (int k = rows->rowptr[i]; k < rows->rowptr[i + 1]; k++) {
            const int j = rows->colind[k];
            if (j == row_begin + i) {
                diag = rows->val[k] > 0;
                continue;
            }
            scnt[spk_dist_owner(starts, size, j)]++;
        }
        if (!diag) flags[2] = 0;
    }
    long long total = 0;
    for (int r = 0; r < size; r++) sdisp[r] = r ? sdisp[r - 1] + scnt[r - 1] : 0;
    for (int i = 0; i < rows->nrows; i++)
        for (int k = rows->rowptr[i]; k < rows->rowptr[i + 1]; k++) {
            const int j = rows->colind[k];
            if (j == row_begin + i) continue;
            const int o = spk_dist_owner(starts, size, j);
            out[sdisp[o] + fill[o]++] = (sym_entry){j, row_begin + i, rows->val[k]};
        }
    MPI_Alltoall(scnt, 1, MPI_INT, rcnt, 1, MPI_INT, comm);
    for (int r = 0; r < size; r++) {
        rdisp[r] = r ? rdisp[r - 1] + rcnt[r - 1] : 0;
        total += rcnt[r];
    }
    in = malloc(((size_t)total + 1) * sizeof(sym_entry));
    if (!in) st = spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (symmetry of a distributed matrix)");
    if ((st = spk_dist_agree(comm, st, err))) goto done;
    MPI_Datatype entry;
    MPI_Type_contiguous((int)sizeof(sym_entry), MPI_BYTE, &entry);
    MPI_Type_commit(&entry);
    const int rc = MPI_Alltoallv(out, scnt, sdisp, entry, in, rcnt, rdisp, entry, comm);
    MPI_Type_free(&entry);
    if (rc != MPI_SUCCESS) st = spk_err_set(err, SPK_ERR_DEVICE, "MPI_Alltoallv failed (symmetry of a distributed matrix)");
    if ((st = spk_dist_agree(comm, st, err))) goto done;
    sym_check(rows, row_begin, in, (int)total, rtol, flags);
    int all[3];
    MPI_Allreduce(flags, all, 3, MPI_INT, MPI_MIN, comm);
    if (pattern) *pattern = all[0];
    if (values) *values = all[0] && all[1];
    if (posdiag) *posdiag = all[2];
done:
    free(in);
    free(out);
    free(fill);
    free(rdisp);
    free(sdisp);
    free(rcnt);
    free(scnt);
    free(starts);
    return st;
}

int spk_dist_solve(spk_dist *d, int bicgstab, const char *precond, const spk_options *o, const double *b,
                   double *x, spk_result *res)
{
    spk_exec *e = spk_dist_exec(d);
    MPI_Comm comm = spk_exec_mpi_comm(e);
    const int n = spk_dist_local_block(d)->nrows;
    spk_krylov k;
    memset(&k, 0, sizeof k);
    memset(res, 0, sizeof *res);
    spk_options opt = *o;
    opt.vector_ops = SPK_VECTOR_CLASSIC; /* the MPI executor's scalars are global: the plain drivers */
    int st = spk_krylov_init(&k, e, n, opt.maxit, opt.keep_history);
    k.A_ops = &spk_dist_spmv;
    k.A = d;
    spk_precond_opts po;
    spk_precond_opts_default(&po);
    const double t0 = spk_time_now();
    if (!st) st = spk_precond_find(precond, e, &k.M_ops, e->err);
    if (!st) st = k.M_ops->create(e, spk_dist_local_block(d), &po, &k.M);
    if (st) {
        k.M_ops = NULL;
        int rank = 0;
        MPI_Comm_rank(comm, &rank);
        char msg[sizeof e->err->msg];
        memcpy(msg, e->err->msg, sizeof msg);
        msg[sizeof msg - 1] = 0;
        spk_err_set(e->err, st, "%s, in rank %d's diagonal block (local row numbers): %s", precond, rank, msg);
    }
    if ((st = spk_dist_agree(comm, st, e->err))) goto done;
    const double t_pc = spk_time_now() - t0;
    st = bicgstab ? spk_bicgstab(&k, b, x, &opt, res) : spk_cg(&k, b, x, &opt, res);
    if (res->history && res->history == k.hist) k.hist = NULL; /* the caller's now */
    st = spk_dist_agree(comm, st, e->err);
    res->t_setup_precond = t_pc;
    res->t_setup = t_pc;
done:
    if (k.M_ops && k.M) k.M_ops->destroy(k.M);
    spk_krylov_free(&k);
    return st;
}
