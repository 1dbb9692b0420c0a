/* api_mpi.c -- the C API of the solve across MPI ranks (include/spk_mpi.h)
 * over the distributed matrix and solve of dist.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "spk_mpi.h"
#include "dist.h"

struct spk_mpi_matrix {
    MPI_Comm comm;          /* the caller's, duplicated: spk's messages apart from theirs */
    spk_err err;
    spk_exec *e;
    int n, row_begin, nrows, rank;
    spk_csr rows;           /* this rank's rows, sorted, duplicates summed */
    int nin, *map;          /* input entries; input position -> stored one (NULL: the same) */
    spk_dist *d;
    int sym;                /* -1 not tested yet; else 1: symmetric with a positive diagonal */
    double *history;        /* the last solve's residuals (keep_history), until the next solve */
    const char *method, *precond;
};

static _Thread_local spk_err create_err; /* spk_mpi_last_error(NULL) */

static int agree(spk_mpi_matrix *m, int st)
{
    return spk_dist_agree(m->comm, st, &m->err);
}

/* This rank's rows copied, sorted and summed (map: input -> stored). */
static int take_rows(spk_mpi_matrix *m, const int *rowptr, const int *colind, const double *val)
{
    spk_err *e = &m->err;
    const int nnz = m->nrows > 0 ? rowptr[m->nrows] : 0;
    spk_csr in = {m->nrows, m->n, nnz, (int *)rowptr, (int *)colind, (double *)val};
    if (nnz > 0 && (!colind || !val))
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_mpi_matrix_create: colind and val are required for %d entries",
                           nnz);
    if (spk_csr_validate(&in, 0, e))
        return spk_err_prefix(e, "spk_mpi_matrix_create, rank %d (its rows from %d; local row numbers below)", m->rank,
                              m->row_begin);
    for (int k = 0; k < nnz; k++)
        if (!isfinite(val[k]))
            return spk_err_set(e, SPK_ERR_INVALID_MATRIX, "spk_mpi_matrix_create, rank %d: entry %d (of its rows "
                               "from %d) is not finite", m->rank, k, m->row_begin);
    SPK_TRY(spk_csr_copy(&in, &m->rows, e));
    m->nin = nnz;
    if (spk_csr_is_sorted(&m->rows)) return SPK_OK;
    int *perm = malloc(((size_t)nnz + 1) * sizeof(int)), *dup = malloc(((size_t)nnz + 1) * sizeof(int));
    m->map = malloc(((size_t)nnz + 1) * sizeof(int));
    int st = !perm || !dup || !m->map ? spk_err_set(e, SPK_ERR_NOMEM, "out of host memory (%d entries)", nnz) : 0;
    if (!st) st = spk_csr_sort(&m->rows, perm, e);
    if (!st) {
        spk_csr_sum_duplicates(&m->rows, dup);
        for (int k = 0; k < nnz; k++) m->map[perm[k]] = dup[k];
    }
    free(perm);
    free(dup);
    return st;
}

/* Are the ranks' blocks contiguous, in rank order, covering 0..n-1? */
static int check_blocks(spk_mpi_matrix *m)
{
    int size = 1, mine[2] = {m->row_begin, m->nrows}, st = SPK_OK;
    MPI_Comm_size(m->comm, &size);
    int *all = malloc(2 * (size_t)size * sizeof(int));
    if (!all) st = spk_err_set(&m->err, SPK_ERR_NOMEM, "out of host memory");
    if ((st = agree(m, st))) return st;
    MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, m->comm);
    long long next = 0;
    for (int r = 0; r < size && !st; r++) {
        if (all[2 * r + 1] == 0) { /* a rank without rows: placed where the blocks are */
            if (r == m->rank) m->row_begin = (int)next;
            continue;
        }
        if (all[2 * r] != next)
            st = spk_err_set(&m->err, SPK_ERR_INVALID_ARG,
                             "spk_mpi_matrix_create: rank %d's rows begin at %d, not %lld: the ranks' row blocks "
                             "must be contiguous and in rank order", r, all[2 * r], next);
        next += all[2 * r + 1];
    }
    if (!st && next != m->n)
        st = spk_err_set(&m->err, SPK_ERR_INVALID_ARG, "spk_mpi_matrix_create: the ranks hold %lld rows of %d (the row "
                         "blocks must be contiguous and cover every row)", next, m->n);
    free(all);
    return st; /* the same on every rank: all saw the same numbers */
}

int spk_mpi_matrix_create(MPI_Comm comm, int n, int row_begin, int nrows, const int *rowptr, const int *colind,
                          const double *val, spk_mpi_matrix **A)
{
    spk_err_clear(&create_err);
    if (!A) return spk_err_set(&create_err, SPK_ERR_INVALID_ARG, "spk_mpi_matrix_create: A is NULL");
    *A = NULL;
    int init = 0;
    MPI_Initialized(&init);
    if (!init || comm == MPI_COMM_NULL)
        return spk_err_set(&create_err, SPK_ERR_INVALID_ARG,
                           "spk_mpi_matrix_create: %s", init ? "the communicator is MPI_COMM_NULL" : "MPI_Init first");
    spk_mpi_matrix *m = calloc(1, sizeof *m);
    int st = m ? SPK_OK : spk_err_set(&create_err, SPK_ERR_NOMEM, "out of host memory");
    if ((st = spk_dist_agree(comm, st, &create_err))) {
        free(m);
        return st;
    }
    MPI_Comm_dup(comm, &m->comm);
    MPI_Comm_rank(m->comm, &m->rank);
    m->n = n;
    m->row_begin = row_begin;
    m->nrows = nrows;
    m->sym = -1;
    m->method = m->precond = "";
    if (n < 0 || nrows < 0 || row_begin < 0 || (long long)row_begin + nrows > n || (nrows > 0 && !rowptr))
        st = spk_err_set(&m->err, SPK_ERR_INVALID_ARG,
                         "spk_mpi_matrix_create: rows %d..%d of %d do not fit (or rowptr is NULL)", row_begin,
                         row_begin + nrows - 1, n);
    if (!st) st = take_rows(m, rowptr, colind, val);
    if (!(st = agree(m, st)) && !(st = check_blocks(m)) && !(st = agree(m, spk_exec_mpi_create(m->comm, &m->err, &m->e))))
        st = spk_dist_create(m->e, n, row_begin, &m->rows, NULL, &m->d); /* agreed inside */
    if (st) {
        create_err = m->err;
        spk_mpi_matrix_destroy(m);
        return st;
    }
    *A = m;
    return SPK_OK;
}

int spk_mpi_matrix_create_f(int fcomm, int n, int row_begin, int nrows, const int *rowptr, const int *colind,
                            const double *val, spk_mpi_matrix **A)
{
    return spk_mpi_matrix_create(MPI_Comm_f2c((MPI_Fint)fcomm), n, row_begin, nrows, rowptr, colind, val, A);
}

void spk_mpi_matrix_destroy(spk_mpi_matrix *A)
{
    if (!A) return;
    spk_dist_destroy(A->d);
    spk_exec_destroy(A->e);
    spk_csr_free(&A->rows);
    free(A->map);
    free(A->history);
    if (A->comm != MPI_COMM_NULL) {
        int fin = 0;
        MPI_Finalized(&fin);
        if (!fin) MPI_Comm_free(&A->comm);
    }
    free(A);
}

int spk_mpi_matrix_update_values(spk_mpi_matrix *A, const double *val)
{
    if (!A) return SPK_ERR_INVALID_ARG;
    int st = SPK_OK;
    if (!val && A->nin > 0) st = spk_err_set(&A->err, SPK_ERR_INVALID_ARG, "spk_mpi_matrix_update_values: val is NULL");
    for (int k = 0; k < A->nin && !st; k++)
        if (!isfinite(val[k]))
            st = spk_err_set(&A->err, SPK_ERR_INVALID_MATRIX, "spk_mpi_matrix_update_values: entry %d is not finite", k);
    if ((st = agree(A, st))) return st;
    if (A->map) {
        memset(A->rows.val, 0, (size_t)A->rows.nnz * sizeof(double));
        for (int k = 0; k < A->nin; k++) A->rows.val[A->map[k]] += val[k];
    } else if (A->nin > 0) {
        memcpy(A->rows.val, val, (size_t)A->nin * sizeof(double));
    }
    spk_dist_destroy(A->d);
    A->d = NULL;
    A->sym = -1;
    return spk_dist_create(A->e, A->n, A->row_begin, &A->rows, NULL, &A->d);
}

int spk_mpi_matrix_info(const spk_mpi_matrix *A, int *n, int *row_begin, int *nrows, int *halo)
{
    if (!A) return SPK_ERR_INVALID_ARG;
    int h = 0, nb = 0;
    if (A->d) spk_dist_halo(A->d, &h, &nb);
    if (n) *n = A->n;
    if (row_begin) *row_begin = A->row_begin;
    if (nrows) *nrows = A->nrows;
    if (halo) *halo = h;
    return SPK_OK;
}

int spk_mpi_matrix_apply(spk_mpi_matrix *A, const double *x, double *y)
{
    if (!A) return SPK_ERR_INVALID_ARG;
    int st = (!x || !y) && A->nrows > 0 ? spk_err_set(&A->err, SPK_ERR_INVALID_ARG, "spk_mpi_matrix_apply: NULL vector")
                                        : SPK_OK;
    if ((st = agree(A, st)) || !A->d) return st ? st : spk_err_set(&A->err, SPK_ERR_INVALID_ARG, "no matrix");
    return agree(A, spk_dist_apply(A->d, 1.0, x, 0.0, y));
}

const char *spk_mpi_method(const spk_mpi_matrix *A)
{
    return A ? A->method : "";
}

const char *spk_mpi_precond(const spk_mpi_matrix *A)
{
    return A ? A->precond : "";
}

const char *spk_mpi_last_error(const spk_mpi_matrix *A)
{
    return A ? A->err.msg : create_err.msg;
}

/* The solve's status from its reason, and its message. */
static int outcome(spk_mpi_matrix *m, const spk_result *r, double rtol, double dtol)
{
    const char *how = strcmp(m->method, "cg") == 0 ? "CG" : "BiCGStab";
    switch (r->reason) {
    case SPK_CONVERGED_RTOL:
    case SPK_CONVERGED_ATOL:
    case SPK_CONVERGED_ZERO_RHS: return SPK_OK;
    case SPK_DIVERGED_MAXIT:
        return spk_err_set(&m->err, SPK_ERR_NOT_CONVERGED,
                           "%s did not converge in %d iterations: relative residual %.3e, rtol %.1e", how,
                           r->iterations, r->relres, rtol);
    case SPK_DIVERGED_DTOL:
        return spk_err_set(&m->err, SPK_ERR_NOT_CONVERGED,
                           "%s diverged at iteration %d: relative residual %.3e, above dtol %.1e", how, r->iterations,
                           r->relres, dtol);
    case SPK_BREAKDOWN_INDEFINITE:
    case SPK_BREAKDOWN_PRECOND:
        return spk_err_set(&m->err, SPK_ERR_INDEFINITE, "CG broke down at iteration %d: %s (the matrix or the "
                           "preconditioner is not positive definite)", r->iterations + 1, spk_reason_name(r->reason));
    case SPK_INVALID_INPUT:
        return spk_err_set(&m->err, SPK_ERR_INVALID_ARG, "the right-hand side or the initial guess contains NaN or Inf");
    default:
        return spk_err_set(&m->err, SPK_ERR_BREAKDOWN, "%s stopped at iteration %d: %s", how, r->iterations,
                           spk_reason_name(r->reason));
    }
}

static const char *pc_name(spk_precond_kind pk, int bicg)
{
    switch (pk) {
    case SPK_PRECOND_NONE: return "none";
    case SPK_PRECOND_JACOBI: return "jacobi";
    case SPK_PRECOND_IC0: return "ic0";
    case SPK_PRECOND_ILU0: return "ilu0";
    default: return bicg ? "ilu0" : "ic0";
    }
}

int spk_mpi_solve(spk_mpi_matrix *A, spk_solver_kind kind, spk_precond_kind precond, const spk_options *o,
                  const double *b, double *x, spk_result *res)
{
    if (!A) return SPK_ERR_INVALID_ARG;
    spk_result mine;
    spk_result *r = res ? res : &mine;
    memset(r, 0, sizeof *r);
    spk_options opt;
    spk_options_default(&opt);
    if (o) opt = *o;
    if (A->rank != 0) opt.monitor = NULL; /* once */
    int st = SPK_OK;
    if (kind < SPK_SOLVER_AUTO || kind > SPK_SOLVER_BICGSTAB || precond < SPK_PRECOND_AUTO ||
        precond > SPK_PRECOND_FACTOR)
        st = spk_err_set(&A->err, SPK_ERR_INVALID_ARG, "spk_mpi_solve: unknown solver (%d) or preconditioner (%d)",
                         (int)kind, (int)precond);
    else if (A->nrows > 0 && (!b || !x))
        st = spk_err_set(&A->err, SPK_ERR_INVALID_ARG, "spk_mpi_solve: b or x is NULL");
    else if (!(opt.rtol >= 0 && opt.rtol < 1 && opt.atol >= 0 && opt.maxit >= 0 && opt.dtol >= 0))
        st = spk_err_set(&A->err, SPK_ERR_INVALID_ARG, "spk_mpi_solve: rtol in [0, 1), atol, maxit and dtol >= 0");
    if ((st = agree(A, st))) goto failed;
    if (kind == SPK_SOLVER_AUTO && A->sym < 0) {
        int sym = 0, posdiag = 0;
        if ((st = spk_dist_symmetry(A->comm, A->n, A->row_begin, &A->rows, 1e-12, NULL, &sym, &posdiag, &A->err)))
            goto failed;
        A->sym = sym && posdiag;
    }
    int bicg = kind == SPK_SOLVER_BICGSTAB || (kind == SPK_SOLVER_AUTO && !A->sym);
    A->method = bicg ? "bicgstab" : "cg";
    A->precond = pc_name(precond, bicg);
    st = spk_dist_solve(A->d, bicg, A->precond, &opt, b, x, r);
    const int indefinite = st == SPK_ERR_INDEFINITE || r->reason == SPK_BREAKDOWN_INDEFINITE ||
                           r->reason == SPK_BREAKDOWN_PRECOND || (st == SPK_ERR_ZERO_PIVOT && !bicg);
    if (kind == SPK_SOLVER_AUTO && !bicg && indefinite) { /* as one process does */
        A->method = "bicgstab";
        if (precond == SPK_PRECOND_AUTO || precond == SPK_PRECOND_FACTOR || precond == SPK_PRECOND_IC0)
            A->precond = "ilu0";
        if (A->nrows > 0) memset(x, 0, (size_t)A->nrows * sizeof(double));
        const double t_first = r->t_setup + r->t_total;
        free((double *)r->history); /* the first solve's: ours (spk_dist_solve) */
        r->history = NULL;
        st = spk_dist_solve(A->d, 1, A->precond, &opt, b, x, r);
        r->switched = 1;
        r->t_setup += t_first;
    }
    free(A->history); /* the previous solve's; this one's until the next */
    A->history = (double *)r->history; /* handed over by spk_dist_solve */
    if (!st) return agree(A, outcome(A, r, opt.rtol, opt.dtol));
failed:
    r->reason = SPK_SOLVE_ERROR; /* an error ended the solve: the status says which */
    return st;
}
