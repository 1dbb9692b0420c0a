/* cmd_solve_dist.c -- `spk solve` under mpirun with several ranks: rank 0
 * reads A (and b) and shares out their rows (contiguous blocks or METIS
 * parts), or each rank makes its own rows of a gen: problem; CG or BiCGStab
 * run across the ranks on the host (mpi/dist.h) with none, Jacobi or
 * block-Jacobi IC(0)/ILU(0); the report is printed once, x gathered on rank
 * 0 for --out, and every failure is agreed by all ranks, so that every rank
 * exits with the same status and none waits for one that stopped. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "solve_args.h"
#include "core/parallel.h"
#include "io/gen.h"
#include "io/mmio.h"
#include "mpi/dist.h"
#include "spk_mpi.h"

/* What one rank holds. */
typedef struct dist_run {
    int rank, size;
    MPI_Comm comm;
    spk_err err;
    int n;
    long long nnz;          /* the whole matrix's entries */
    int *row0;              /* every rank's first row (size + 1) */
    int *orig;              /* METIS parts: this rank's rows' numbers in A (NULL: row0[rank] + i) */
    int *perm;              /* METIS parts, rank 0: every row's number in A (perm[new] = old) */
    spk_csr rows;           /* this rank's rows, global columns (the parts' numbering) */
    spk_mpi_matrix *A;      /* the rows, through the public API (spk_mpi.h) */
    double *b, *x, *xstar;  /* this rank's entries */
    int fallback;           /* b = A*r: A*1 = 0 */
    int halo, nloc;         /* halo entries in all; this rank's rows */
    spk_result res;
    double t_load, t_setup, t_solve; /* the slowest rank's, seconds */
} dist_run;

/* Rank 0's status, agreed (the others pass SPK_OK). */
static int agree(dist_run *r, int st)
{
    return spk_dist_agree(r->comm, st, &r->err);
}

/* The rows of A read (or made) on rank 0, in the order of the parts. */
static int load_on_root(const solve_args *a, size_t limit, dist_run *r, spk_csr *A, int **perm)
{
    spk_csr F = {0};
    int st = SPK_OK;
    if (strncmp(a->matrix, "gen:", 4) == 0)
        st = spk_gen_spec(a->matrix + 4, A, &r->err);
    else
        st = spk_mm_read_csr_limit(a->matrix, limit, A, NULL, &r->err);
    if (!st && A->nrows != A->ncols)
        st = spk_err_set(&r->err, SPK_ERR_INVALID_MATRIX,
                         "%s: the matrix is %d x %d; a linear system needs a square matrix", a->matrix, A->nrows,
                         A->ncols);
    if (st || !a->partition) {
        if (!st) spk_dist_partition_rows(A->rowptr, A->nrows, r->size, r->row0);
        return st;
    }
    int *part = malloc(((size_t)A->nrows + 1) * sizeof(int));
    *perm = malloc(((size_t)A->nrows + 1) * sizeof(int));
    if (!part || !*perm) st = spk_err_set(&r->err, SPK_ERR_NOMEM, "out of host memory (METIS parts)");
    if (!st) st = spk_dist_partition_graph(A, r->size, part, &r->err);
    if (!st) st = spk_dist_order_parts(part, A->nrows, r->size, *perm, r->row0, &r->err);
    if (!st) st = spk_csr_permute(A, *perm, &F, NULL, &r->err);
    free(part);
    if (!st) {
        spk_csr_free(A);
        *A = F;
    }
    return st;
}

/* Rank 0 shares out the rows of A (A, perm: significant on rank 0) and,
 * for METIS parts (parts), each row's number in the file. */
static int scatter_rows(dist_run *r, const spk_csr *A, const int *perm, int parts)
{
    int st = SPK_OK, rows = 0, nnz = 0;
    int *cnt = malloc((size_t)r->size * sizeof(int)), *disp = malloc((size_t)r->size * sizeof(int));
    int *ecnt = malloc((size_t)r->size * sizeof(int)), *edisp = malloc((size_t)r->size * sizeof(int));
    int *len = NULL, *lens = NULL;
    if (!cnt || !disp || !ecnt || !edisp) st = spk_err_set(&r->err, SPK_ERR_NOMEM, "out of host memory");
    if ((st = spk_dist_agree(r->comm, st, &r->err))) goto done;
    for (int p = 0; p < r->size; p++) {
        cnt[p] = r->row0[p + 1] - r->row0[p];
        disp[p] = r->row0[p];
        if (r->rank == 0) {
            ecnt[p] = A->rowptr[r->row0[p + 1]] - A->rowptr[r->row0[p]];
            edisp[p] = A->rowptr[r->row0[p]];
        }
    }
    rows = cnt[r->rank];
    MPI_Scatter(ecnt, 1, MPI_INT, &nnz, 1, MPI_INT, 0, r->comm);
    st = spk_csr_alloc(&r->rows, rows, r->n, nnz, &r->err);
    len = malloc(((size_t)rows + 1) * sizeof(int));
    if (!st && !len) st = spk_err_set(&r->err, SPK_ERR_NOMEM, "out of host memory for %d rows", rows);
    if (!st && parts && !(r->orig = malloc(((size_t)rows + 1) * sizeof(int))))
        st = spk_err_set(&r->err, SPK_ERR_NOMEM, "out of host memory for %d rows", rows);
    if (r->rank == 0 && !st && !(lens = malloc(((size_t)r->n + 1) * sizeof(int))))
        st = spk_err_set(&r->err, SPK_ERR_NOMEM, "out of host memory for %d rows", r->n);
    if ((st = spk_dist_agree(r->comm, st, &r->err))) goto done;
    if (r->rank == 0)
        for (int i = 0; i < r->n; i++) lens[i] = A->rowptr[i + 1] - A->rowptr[i];
    MPI_Scatterv(lens, cnt, disp, MPI_INT, len, rows, MPI_INT, 0, r->comm);
    for (int i = 0; i < rows; i++) r->rows.rowptr[i + 1] = r->rows.rowptr[i] + len[i];
    MPI_Scatterv(A ? A->colind : NULL, ecnt, edisp, MPI_INT, r->rows.colind, nnz, MPI_INT, 0, r->comm);
    MPI_Scatterv(A ? A->val : NULL, ecnt, edisp, MPI_DOUBLE, r->rows.val, nnz, MPI_DOUBLE, 0, r->comm);
    if (parts) MPI_Scatterv(perm, cnt, disp, MPI_INT, r->orig, rows, MPI_INT, 0, r->comm);
done:
    free(lens);
    free(len);
    free(edisp);
    free(ecnt);
    free(disp);
    free(cnt);
    return st;
}

/* This rank's rows of A: made here (gen: in contiguous blocks), or read on
 * rank 0 and shared out. */
static int load_rows(const solve_args *a, size_t limit, dist_run *r)
{
    int st = SPK_OK;
    r->row0 = calloc((size_t)r->size + 1, sizeof(int));
    if (!r->row0) st = spk_err_set(&r->err, SPK_ERR_NOMEM, "out of host memory");
    if ((st = agree(r, st))) return st;
    if (strncmp(a->matrix, "gen:", 4) == 0 && !a->partition) { /* each rank its own rows */
        st = spk_gen_spec_size(a->matrix + 4, &r->n, &r->err);
        if ((st = agree(r, st))) return st;
        for (int p = 0; p <= r->size; p++) r->row0[p] = (int)((long long)r->n * p / r->size);
        st = spk_gen_spec_rows(a->matrix + 4, r->row0[r->rank], r->row0[r->rank + 1], &r->rows, &r->err);
        return agree(r, st);
    }
    spk_csr A = {0};
    int *perm = NULL;
    if (r->rank == 0) st = load_on_root(a, limit, r, &A, &perm);
    if (!(st = agree(r, st))) {
        if (r->rank == 0) r->n = A.nrows;
        MPI_Bcast(&r->n, 1, MPI_INT, 0, r->comm);
        MPI_Bcast(r->row0, r->size + 1, MPI_INT, 0, r->comm);
        st = scatter_rows(r, r->rank == 0 ? &A : NULL, perm, a->partition);
    }
    spk_csr_free(&A);
    r->perm = perm; /* rank 0: for b and x in the file's order */
    return st;
}

/* The row of A that this rank's local row i is. */
static long long orig_row(const dist_run *r, int i)
{
    return r->orig ? r->orig[i] : (long long)r->row0[r->rank] + i;
}

/* b from --rhs, read on rank 0 and shared out in the parts' order. */
static int rhs_from_file(const solve_args *a, size_t limit, dist_run *r)
{
    double *v = NULL, *w = NULL;
    int nb = 0, ncol = 0, st = SPK_OK, *cnt = malloc((size_t)r->size * sizeof(int));
    if (!cnt) st = spk_err_set(&r->err, SPK_ERR_NOMEM, "out of host memory");
    if (r->rank == 0 && !st) {
        st = spk_mm_read_dense_limit(a->rhs, limit, &nb, &ncol, &v, &r->err);
        if (!st && (long long)nb * ncol != r->n)
            st = spk_err_set(&r->err, SPK_ERR_INVALID_ARG, "%s has %lld entries but the matrix has %d rows", a->rhs,
                             (long long)nb * ncol, r->n);
        if (!st && !(w = malloc(((size_t)r->n + 1) * sizeof(double))))
            st = spk_err_set(&r->err, SPK_ERR_NOMEM, "out of host memory for b");
    }
    if (!(st = agree(r, st))) {
        for (int p = 0; p < r->size; p++) cnt[p] = r->row0[p + 1] - r->row0[p];
        if (r->rank == 0) /* in the parts' order */
            for (int i = 0; i < r->n; i++) w[i] = v[r->perm ? r->perm[i] : i];
        MPI_Scatterv(w, cnt, r->row0, MPI_DOUBLE, r->b, r->nloc, MPI_DOUBLE, 0, r->comm);
    }
    free(cnt);
    free(v);
    free(w);
    return st;
}

/* x = 0 and b: from --rhs, or b = A x* for the known x* of --rhs-kind (each
 * rank its own entries of x*, then the distributed product). */
static int make_vectors(const solve_args *a, size_t limit, dist_run *r)
{
    const int rows = r->nloc;
    int st = SPK_OK;
    r->x = calloc((size_t)rows + 1, sizeof(double));
    r->b = malloc(((size_t)rows + 1) * sizeof(double));
    if (!a->rhs) r->xstar = malloc(((size_t)rows + 1) * sizeof(double));
    if (!r->x || !r->b || (!a->rhs && !r->xstar)) st = spk_err_set(&r->err, SPK_ERR_NOMEM, "out of host memory");
    if ((st = agree(r, st))) return st;
    if (a->rhs) return rhs_from_file(a, limit, r);
    for (r->fallback = 0; r->fallback < 2; r->fallback++) {
        for (int i = 0; i < rows; i++) r->xstar[i] = spk_rhs_xstar_at(&a->kind, r->fallback, orig_row(r, i));
        st = spk_mpi_matrix_apply(r->A, r->xstar, r->b); /* agreed */
        if (st) spk_err_set(&r->err, st, "%s", spk_mpi_last_error(r->A));
        if (st || a->kind.random) return st;
        double mine = 0, all = 0;
        for (int i = 0; i < rows; i++) mine = fmax(mine, fabs(r->b[i]));
        MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, r->comm);
        if (all > 0 || r->n == 0) return SPK_OK; /* else A*1 = 0: b = A*r */
    }
    r->fallback = 1;
    return SPK_OK;
}

/* The solve (spk_mpi_solve: the method, block-Jacobi and auto's switch as
 * one process has them), timed on the slowest rank. */
static int solve(const solve_args *a, dist_run *r)
{
    const double t = MPI_Wtime();
    const int st = spk_mpi_solve(r->A, (spk_solver_kind)a->solver, (spk_precond_kind)a->precond, &a->o, r->b, r->x,
                                 &r->res);
    if (st) spk_err_set(&r->err, st, "%s", spk_mpi_last_error(r->A));
    const double mine[2] = {r->res.t_setup, MPI_Wtime() - t - r->res.t_setup};
    double slow[2];
    MPI_Allreduce(mine, slow, 2, MPI_DOUBLE, MPI_MAX, r->comm);
    r->t_setup += slow[0];
    r->t_solve = slow[1];
    return st;
}

static const char *pc_text(const dist_run *r)
{
    const char *pc = spk_mpi_precond(r->A);
    if (strcmp(pc, "ic0") == 0) return "block-Jacobi IC(0)";
    if (strcmp(pc, "ilu0") == 0) return "block-Jacobi ILU(0)";
    return strcmp(pc, "jacobi") == 0 ? "Jacobi" : "none";
}

/* The report, on rank 0. */
static void report(const solve_args *a, const dist_run *r, int st, double err, FILE *out)
{
    const int bicg = strcmp(spk_mpi_method(r->A), "bicgstab") == 0;
    const char *method = bicg ? "BiCGStab" : "CG", *status = st == SPK_OK ? "converged" : spk_status_name(st);
    int least = r->n, most = 0;
    for (int p = 0; p < r->size; p++) {
        least = r->row0[p + 1] - r->row0[p] < least ? r->row0[p + 1] - r->row0[p] : least;
        most = r->row0[p + 1] - r->row0[p] > most ? r->row0[p + 1] - r->row0[p] : most;
    }
    const char *part = strncmp(a->matrix, "gen:", 4) == 0 && !a->partition ? "contiguous blocks, made on each rank"
                       : a->partition ? "METIS parts" : "contiguous blocks balanced by nonzeros";
    if (a->json) {
        cli_json_begin(stdout);
        printf(", \"matrix\": ");
        cli_json_string(stdout, a->matrix);
        printf(", \"rows\": %d, \"nnz\": %lld, \"device\": \"host\", \"ranks\": %d, \"partition\": \"%s\", "
               "\"halo\": %d, \"rows_per_rank\": [%d, %d], \"solver\": \"%s\", \"precond\": \"%s\", "
               "\"switched\": %s, \"status\": \"%s\", \"reason\": ",
               r->n, r->nnz, r->size, a->partition ? "metis" : "rows", r->halo, least, most,
               spk_mpi_method(r->A), spk_mpi_precond(r->A), r->res.switched ? "true" : "false", status);
        cli_json_string(stdout, spk_reason_name(r->res.reason));
        printf(", \"converged\": %s, \"iterations\": %d, \"relres\": ", st == SPK_OK ? "true" : "false",
               r->res.iterations);
        cli_json_number(stdout, r->res.relres);
        printf(", \"true_relres\": ");
        cli_json_number(stdout, r->res.true_relres);
        printf(", \"error_inf\": ");
        cli_json_number(stdout, err);
        printf(", \"time_ms\": {\"load\": ");
        cli_json_number(stdout, 1e3 * r->t_load);
        printf(", \"setup\": ");
        cli_json_number(stdout, 1e3 * r->t_setup);
        printf(", \"total\": ");
        cli_json_number(stdout, 1e3 * r->t_solve);
        printf("}}\n");
        return;
    }
    fprintf(out, "matrix    %s: %d x %d, %lld nonzeros\n", a->matrix, r->n, r->n, r->nnz);
    fprintf(out, "device    host, %d MPI ranks: %s, %d to %d rows each; halo %d entries in all\n", r->size, part,
            least, most, r->halo);
    fprintf(out, "method    %s + %s%s, SpMV format csr (each rank's local and halo blocks)\n", method, pc_text(r),
            a->solver == SPK_SOLVER_AUTO ? " (auto)" : "");
    fprintf(out, "rhs       b = %s\n", a->rhs ? a->rhs
                                       : a->kind.random ? "A*x* (x* uniform in [-1,1))"
                                       : r->fallback ? "A*r (A*1 = 0: rows sum to zero; r pseudo-random in [0,1))"
                                                     : "A*1");
    if (r->res.switched)
        fprintf(out, "note      CG found the matrix indefinite; switched to BiCGStab + %s\n", pc_text(r));
    fprintf(out, "result    %s after %d iterations\n", spk_reason_name(r->res.reason), r->res.iterations);
    fprintf(out, "residual  ||r||/||b||: recurrence %.3e, true %.3e (rtol %.1e)\n", r->res.relres,
            r->res.true_relres, a->o.rtol);
    if (r->xstar) fprintf(out, "error     ||x - x*||_inf = %.3e\n", err);
    fprintf(out, "time      read and share out %.3f ms, setup %.3f ms, solve %.3f ms (the slowest rank's)\n",
            1e3 * r->t_load, 1e3 * r->t_setup, 1e3 * r->t_solve);
}

/* x gathered on rank 0, in the file's order, and written there. */
static int write_x(const solve_args *a, dist_run *r)
{
    int st = SPK_OK, *cnt = malloc((size_t)r->size * sizeof(int));
    double *xg = NULL, *xf = NULL;
    if (!cnt) st = spk_err_set(&r->err, SPK_ERR_NOMEM, "out of host memory");
    if (r->rank == 0 && !st) {
        xg = malloc(((size_t)r->n + 1) * sizeof(double));
        xf = r->perm ? malloc(((size_t)r->n + 1) * sizeof(double)) : xg;
        if (!xg || !xf) st = spk_err_set(&r->err, SPK_ERR_NOMEM, "out of host memory for x (%d entries)", r->n);
    }
    if (!(st = agree(r, st))) {
        for (int p = 0; p < r->size; p++) cnt[p] = r->row0[p + 1] - r->row0[p];
        MPI_Gatherv(r->x, r->nloc, MPI_DOUBLE, xg, cnt, r->row0, MPI_DOUBLE, 0, r->comm);
        if (r->rank == 0) {
            if (r->perm)
                for (int i = 0; i < r->n; i++) xf[r->perm[i]] = xg[i];
            st = spk_mm_write_dense(a->out, r->n, 1, xf, NULL, &r->err);
        }
        st = agree(r, st);
    }
    if (xf != xg) free(xf);
    free(xg);
    free(cnt);
    return st;
}

static void monitor_print(void *user, int it, double rnorm, double relres)
{
    fprintf(user, "  iteration %5d  ||r|| %.6e  ||r||/||b|| %.6e\n", it, rnorm, relres);
}

/* Set up and solve; st: every rank's agreed status. */
static int run(const solve_args *a, size_t limit, dist_run *r)
{
    const double t0 = MPI_Wtime();
    int st = load_rows(a, limit, r);
    if (st) return st;
    long long mine = r->rows.nnz;
    MPI_Allreduce(&mine, &r->nnz, 1, MPI_LONG_LONG, MPI_SUM, r->comm);
    const double t1 = MPI_Wtime();
    st = spk_mpi_matrix_create(r->comm, r->n, r->row0[r->rank], r->rows.nrows, r->rows.rowptr, r->rows.colind,
                               r->rows.val, &r->A);
    if (st) return spk_err_set(&r->err, st, "%s", spk_mpi_last_error(NULL));
    if (a->threads) spk_host_set_threads(a->threads); /* after the node's cores were shared out */
    r->nloc = r->rows.nrows;
    spk_csr_free(&r->rows); /* copied into A */
    int h = 0;
    spk_mpi_matrix_info(r->A, NULL, NULL, NULL, &h);
    MPI_Allreduce(&h, &r->halo, 1, MPI_INT, MPI_SUM, r->comm);
    const double t_dist = MPI_Wtime() - t1;
    if ((st = make_vectors(a, limit, r))) return st;
    double t = MPI_Wtime() - t0 - t_dist, setup = t_dist;
    MPI_Allreduce(&t, &r->t_load, 1, MPI_DOUBLE, MPI_MAX, r->comm);
    MPI_Allreduce(&setup, &r->t_setup, 1, MPI_DOUBLE, MPI_MAX, r->comm);
    return solve(a, r);
}

int cmd_solve_dist(int argc, char **argv)
{
    int init = 0, rc = CLI_FAIL;
    MPI_Initialized(&init);
    if (!init && MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        fprintf(stderr, "spk solve: MPI_Init failed\n");
        return CLI_FAIL;
    }
    dist_run r;
    memset(&r, 0, sizeof r);
    r.comm = MPI_COMM_WORLD;
    MPI_Comm_rank(r.comm, &r.rank);
    MPI_Comm_size(r.comm, &r.size);
    if (r.rank != 0) { /* one report: every message comes through rank 0 */
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) return CLI_FAIL;
    }
    solve_args a;
    const int pr = solve_args_parse(argc, argv, &a); /* the same on every rank */
    size_t limit = 0;
    const char *inputs[2];
    if (pr) {
        rc = pr < 0 ? CLI_OK : pr;
        goto finish;
    }
    if ((rc = cli_parse_bytes("solve", a.max_memory, &limit)) != CLI_OK) goto finish;
    if (a.o.format && strcmp(a.o.format, "auto") != 0 && strcmp(a.o.format, "csr") != 0) {
        rc = cli_usage_error("solve", "under mpirun each rank's blocks are CSR: --format %s applies to one process",
                             a.o.format);
        goto finish;
    }
    if (cli_complex_input("solve under mpirun", a.matrix)) { /* every rank reads the same header */
        rc = CLI_FAIL;
        goto finish;
    }
    if (a.device == SPK_DEVICE_CUDA) {
        rc = cli_usage_error("solve", "under mpirun the solve runs on the host ranks: the GPU across ranks is not "
                                      "built yet (leave --device out, or run one process for the GPU)");
        goto finish;
    }
    if (a.out_failed && !a.out) {
        rc = cli_usage_error("solve", "--out-failed needs --out FILE");
        goto finish;
    }
    inputs[0] = a.matrix;
    inputs[1] = a.rhs;
    int bad = r.rank == 0 && cli_check_output("solve", "out", a.out, inputs, 2);
    MPI_Bcast(&bad, 1, MPI_INT, 0, r.comm);
    rc = CLI_FAIL;
    if (bad) goto finish;
    if (a.monitor) {
        a.o.monitor = monitor_print; /* on rank 0 only (solve) */
        a.o.monitor_user = a.json ? stderr : stdout;
    }
    const int st = run(&a, limit, &r);
    if (st && !spk_mpi_method(r.A)[0]) { /* before the solve: nothing to report */
        fprintf(stderr, "spk solve: %s\n", r.err.msg);
        goto finish;
    }
    double err = NAN, mine = 0;
    if (r.xstar && r.x) {
        for (int i = 0; i < r.nloc; i++) mine = fmax(mine, fabs(r.x[i] - r.xstar[i]));
        MPI_Allreduce(&mine, &err, 1, MPI_DOUBLE, MPI_MAX, r.comm);
    }
    if (r.res.iterations > 0 || st == SPK_OK || st == SPK_ERR_NOT_CONVERGED || st == SPK_ERR_BREAKDOWN)
        report(&a, &r, st, err, a.json ? stderr : stdout);
    if (st) fprintf(stderr, "spk solve: %s: %s\n", a.matrix, r.err.msg);
    rc = st == SPK_OK ? CLI_OK : CLI_FAIL;
    if (a.out && st != SPK_OK && !a.out_failed) {
        fprintf(stderr, "spk solve: %s not written: the solve did not converge (--out-failed writes the last "
                        "iterate)\n", a.out);
    } else if (a.out && r.x && write_x(&a, &r)) {
        fprintf(stderr, "spk solve: %s\n", r.err.msg);
        rc = CLI_FAIL;
    }
finish:
    free(r.b);
    free(r.x);
    free(r.xstar);
    free(r.row0);
    free(r.orig);
    free(r.perm);
    spk_mpi_matrix_destroy(r.A);
    spk_csr_free(&r.rows);
    MPI_Finalize();
    return rc;
}
