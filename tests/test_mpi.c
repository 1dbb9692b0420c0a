/* test_mpi.c -- the distributed solve (mpi/), run under mpirun with 2 and 3
 * ranks: the product equals the one-process product to rounding, including
 * on a matrix whose couplings cross every rank boundary; CG and BiCGStab
 * with no preconditioner or Jacobi take the iterations of one process and
 * reach its solution to rounding; block-Jacobi IC(0) / ILU(0) (the local
 * blocks' factorizations) converge to rtol. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "io/gen.h"
#include "mpi/dist.h"
#include "precond/precond.h"
#include "solver/krylov.h"

static int g_rank, g_size;

/* Rows r0..r1-1 of A, global columns. */
static void rows_of(const spk_csr *A, int r0, int r1, spk_csr *R)
{
    spk_err e;
    const int nnz = A->rowptr[r1] - A->rowptr[r0];
    CHECK_OK(spk_csr_alloc(R, r1 - r0, A->ncols, nnz, &e), e.msg);
    for (int i = r0; i <= r1; i++) R->rowptr[i - r0] = A->rowptr[i] - A->rowptr[r0];
    memcpy(R->colind, A->colind + A->rowptr[r0], (size_t)nnz * sizeof(int));
    memcpy(R->val, A->val + A->rowptr[r0], (size_t)nnz * sizeof(double));
}

/* This rank's rows of M (the blocks row0) as a distributed matrix on e, R
 * holding them; *nh: the halo entries this rank receives. */
static spk_dist *dist_of(spk_exec *e, const spk_csr *M, const int *row0, spk_csr *R, int *nh)
{
    rows_of(M, row0[g_rank], row0[g_rank + 1], R);
    spk_dist *d = NULL;
    CHECK_OK(spk_dist_create(e, M->nrows, row0[g_rank], R, NULL, &d), e->err->msg);
    int nb = 0;
    *nh = 0;
    if (d) spk_dist_halo(d, nh, &nb);
    return d;
}

/* A 1-D Laplacian plus symmetric couplings (i, (i + n/2) mod n): every row
 * block talks to the far one, so the halo crosses every rank boundary. */
static void far_coupled(int n, spk_csr *A)
{
    spk_err e;
    CHECK_OK(spk_csr_alloc(A, n, n, 5 * n, &e), e.msg);
    int q = 0;
    for (int i = 0; i < n; i++) {
        int c[5], k = 0;
        const int f1 = (i + n / 2) % n, f2 = (i - n / 2 + n) % n;
        for (int j = 0; j < n; j++)
            if (j == i - 1 || j == i || j == i + 1 || j == f1 || j == f2) c[k++] = j;
        for (int t = 0; t < k; t++) {
            A->colind[q] = c[t];
            A->val[q++] = c[t] == i ? 6.0 : (c[t] == i - 1 || c[t] == i + 1 ? -1.0 : -0.5);
        }
        A->rowptr[i + 1] = q;
    }
    A->nnz = q;
}

/* One solve on the executor e with n unknowns. */
static int solve(spk_exec *e, int n, const struct spk_spmv_ops *aops, void *A, const char *pc, const spk_csr *block,
                 int bicg, const double *b, double *x, spk_result *res)
{
    spk_krylov k;
    memset(&k, 0, sizeof k);
    spk_options o;
    spk_options_default(&o);
    o.vector_ops = SPK_VECTOR_CLASSIC;
    o.rtol = 1e-10;
    CHECK_OK(spk_krylov_init(&k, e, n, o.maxit, 0), e->err->msg);
    k.A_ops = aops;
    k.A = A;
    spk_precond_opts po;
    spk_precond_opts_default(&po);
    CHECK_OK(spk_precond_find(pc, e, &k.M_ops, e->err), e->err->msg);
    CHECK_OK(k.M_ops->create(e, block, &po, &k.M), e->err->msg);
    memset(x, 0, (size_t)n * sizeof(double));
    memset(res, 0, sizeof *res);
    int st = bicg ? spk_bicgstab(&k, b, x, &o, res) : spk_cg(&k, b, x, &o, res);
    CHECK_OK(st, e->err->msg);
    k.M_ops->destroy(k.M);
    spk_krylov_free(&k);
    return st;
}

static void run(const char *what, const spk_csr *G, int bicg, spk_exec *host, spk_exec *e)
{
    const int n = G->nrows;
    int *row0 = malloc(((size_t)g_size + 1) * sizeof(int));
    spk_dist_partition_rows(G->rowptr, n, g_size, row0);
    const int r0 = row0[g_rank], r1 = row0[g_rank + 1], nloc = r1 - r0;
    spk_csr R = {0};
    int nh = 0;
    spk_dist *d = dist_of(e, G, row0, &R, &nh);

    /* the product: the rows of the one-process product */
    double *xg = malloc((size_t)n * sizeof(double)), *yg = malloc((size_t)n * sizeof(double));
    double *y = malloc(((size_t)nloc + 1) * sizeof(double));
    for (int i = 0; i < n; i++) xg[i] = sin(0.7 * i) + 0.1 * i;
    spk_csr_spmv(G, 1.0, xg, 0.0, yg);
    for (int i = 0; i < nloc; i++) y[i] = 1.0;
    CHECK_OK(spk_dist_apply(d, 2.0, xg + r0, 0.5, y), e->err->msg);
    double err = 0, scale = 0;
    for (int i = 0; i < nloc; i++) {
        err = fmax(err, fabs(y[i] - (2.0 * yg[r0 + i] + 0.5)));
        scale = fmax(scale, fabs(yg[r0 + i]));
    }
    CHECK(err <= 1e-13 * (scale + 1), "%s rank %d: product off by %g", what, g_rank, err);
    /* the local blocks in another host format (any is pluggable): the same product */
    {
        spk_dist *d2 = NULL;
        double *y2 = malloc(((size_t)nloc + 1) * sizeof(double));
        CHECK_OK(spk_dist_create(e, n, r0, &R, "hyb", &d2), e->err->msg);
        CHECK_OK(spk_dist_apply(d2, 1.0, xg + r0, 0.0, y2), e->err->msg);
        double e2 = 0;
        for (int i = 0; i < nloc; i++) e2 = fmax(e2, fabs(y2[i] - yg[r0 + i]));
        CHECK(e2 <= 1e-13 * (scale + 1), "%s rank %d: hyb product off by %g", what, g_rank, e2);
        spk_dist_destroy(d2);
        free(y2);
    }

    /* b = A * xs; the solves */
    for (int i = 0; i < n; i++) xg[i] = cos(0.3 * i) + 1.5;
    spk_csr_spmv(G, 1.0, xg, 0.0, yg);
    double *x = malloc(((size_t)nloc + 1) * sizeof(double)), *xs = malloc((size_t)n * sizeof(double));
    double *xall = malloc((size_t)n * sizeof(double));
    int *cnt = malloc((size_t)g_size * sizeof(int));
    for (int r = 0; r < g_size; r++) cnt[r] = row0[r + 1] - row0[r];
    const char *pcs[] = {"none", "jacobi", bicg ? "ilu0" : "ic0"};
    for (int p = 0; p < 3; p++) {
        spk_result rd, rs;
        solve(e, nloc, &spk_dist_spmv, d, pcs[p], spk_dist_local_block(d), bicg, yg + r0, x, &rd);
        CHECK(rd.reason == SPK_CONVERGED_RTOL && rd.true_relres <= 1e-9, "%s %s rank %d: %s, true residual %g",
              what, pcs[p], g_rank, spk_reason_name(rd.reason), rd.true_relres);
        MPI_Allgatherv(x, nloc, MPI_DOUBLE, xall, cnt, row0, MPI_DOUBLE, MPI_COMM_WORLD);
        if (p < 2) { /* none, Jacobi: the one-process solve, to rounding */
            const struct spk_spmv_ops *hops;
            void *HA = NULL;
            spk_spmv_opts so;
            memset(&so, 0, sizeof so);
            CHECK_OK(spk_spmv_find("csr", host, &hops, host->err), host->err->msg);
            CHECK_OK(hops->create(host, G, &so, &HA), host->err->msg);
            solve(host, n, hops, HA, pcs[p], G, bicg, yg, xs, &rs);
            hops->destroy(HA);
            double dx = 0, xn = 0;
            for (int i = 0; i < n; i++) {
                dx = fmax(dx, fabs(xall[i] - xs[i]));
                xn = fmax(xn, fabs(xs[i]));
            }
            CHECK(rd.iterations == rs.iterations, "%s %s: %d iterations on %d ranks, %d on one", what, pcs[p],
                  rd.iterations, g_size, rs.iterations);
            CHECK(dx <= 1e-8 * xn, "%s %s: solutions differ by %g of %g", what, pcs[p], dx, xn);
            if (g_rank == 0)
                printf("%-18s %-7s %d ranks: %4d iterations (one process %4d), |x - x1| = %.1e, halo %d entries\n",
                       what, pcs[p], g_size, rd.iterations, rs.iterations, dx, nh);
        } else if (g_rank == 0) {
            printf("%-18s %-7s %d ranks: %4d iterations (block-Jacobi), true residual %.1e\n", what, pcs[p], g_size,
                   rd.iterations, rd.true_relres);
        }
    }
    free(cnt);
    free(xall);
    free(xs);
    free(x);
    free(y);
    free(yg);
    free(xg);
    spk_dist_destroy(d);
    spk_csr_free(&R);
    free(row0);
}

/* Graph partitions (METIS): a 3D grid with its rows numbered at random, so
 * that contiguous row blocks cut almost every edge; the METIS parts, made
 * contiguous by spk_dist_order_parts, must exchange far fewer halo entries,
 * and CG on them take the one-process iterations to the same solution. */
static void graph_partition(spk_exec *host, spk_exec *e)
{
    spk_err ge;
    spk_csr G = {0}, S = {0}, T = {0};
    CHECK_OK(spk_gen_poisson3d7(10, &G, &ge), ge.msg);
    const int n = G.nrows;
    int *q = malloc((size_t)n * sizeof(int)), *part = malloc((size_t)n * sizeof(int));
    int *perm = malloc((size_t)n * sizeof(int)), *row0 = malloc(((size_t)g_size + 1) * sizeof(int));
    for (int i = 0; i < n; i++) q[i] = i;
    unsigned h = 12345u; /* a fixed shuffle, the same on every rank */
    for (int i = n - 1; i > 0; i--) {
        h = h * 1103515245u + 12345u;
        const int j = (int)((h >> 8) % (unsigned)(i + 1)), t = q[i];
        q[i] = q[j];
        q[j] = t;
    }
    CHECK_OK(spk_csr_permute(&G, q, &S, NULL, &ge), ge.msg);
    /* the order of the parts: grouped, stable, bad parts refused */
    {
        const int pt[6] = {1, 0, 1, 2, 0, 1};
        int pm[6], r0[4];
        CHECK_OK(spk_dist_order_parts(pt, 6, 3, pm, r0, &ge), ge.msg);
        CHECK(r0[0] == 0 && r0[1] == 2 && r0[2] == 5 && r0[3] == 6 && pm[0] == 1 && pm[1] == 4 && pm[2] == 0 &&
                  pm[3] == 2 && pm[4] == 5 && pm[5] == 3,
              "order of parts");
        const int bad[2] = {0, 3};
        CHECK(spk_dist_order_parts(bad, 2, 3, pm, r0, &ge) == SPK_ERR_INVALID_ARG && strstr(ge.msg, "row 1"),
              "a part out of range: %s", ge.msg);
    }
    if (!spk_dist_have_metis()) {
        /* one part needs no cut (every row in part 0); more need METIS, and say how to get it */
        spk_err_clear(&ge);
        const int st = spk_dist_partition_graph(&S, g_size, part, &ge);
        int all0 = 1;
        for (int i = 0; i < n && g_size == 1; i++) all0 &= part[i] == 0;
        CHECK(g_size == 1 ? st == SPK_OK && all0 : st == SPK_ERR_NOT_FOUND && strstr(ge.msg, "libmetis-dev"),
              "without METIS, %d parts: status %d, %s", g_size, st, ge.msg);
        if (g_rank == 0) printf("graph partition: built without METIS (its error message checked)\n");
    } else {
        int halo[2];
        for (int way = 0; way < 2; way++) { /* 0: contiguous blocks of S, 1: METIS parts of S */
            const spk_csr *M = &S;
            if (way == 0) {
                spk_dist_partition_rows(S.rowptr, n, g_size, row0);
            } else {
                CHECK_OK(spk_dist_partition_graph(&S, g_size, part, &ge), ge.msg);
                CHECK_OK(spk_dist_order_parts(part, n, g_size, perm, row0, &ge), ge.msg);
                CHECK_OK(spk_csr_permute(&S, perm, &T, NULL, &ge), ge.msg);
                M = &T;
                for (int r = 0; r < g_size; r++)
                    CHECK(row0[r + 1] - row0[r] >= n / g_size / 2, "METIS part %d has %d of %d rows", r,
                          row0[r + 1] - row0[r], n);
            }
            const int r0 = row0[g_rank], nloc = row0[g_rank + 1] - r0;
            spk_csr R = {0};
            int nh = 0;
            spk_dist *d = dist_of(e, M, row0, &R, &nh);
            MPI_Allreduce(&nh, &halo[way], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            if (way == 1) { /* CG without a preconditioner: the one-process solve of S */
                double *xg = malloc((size_t)n * sizeof(double)), *bs = malloc((size_t)n * sizeof(double));
                double *bt = malloc((size_t)n * sizeof(double)), *x = malloc(((size_t)nloc + 1) * sizeof(double));
                double *xs = malloc((size_t)n * sizeof(double)), *xall = malloc((size_t)n * sizeof(double));
                int *cnt = malloc((size_t)g_size * sizeof(int));
                for (int i = 0; i < n; i++) xg[i] = cos(0.3 * i) + 1.5;
                spk_csr_spmv(&S, 1.0, xg, 0.0, bs);
                for (int i = 0; i < n; i++) bt[i] = bs[perm[i]];
                spk_result rd, rs;
                solve(e, nloc, &spk_dist_spmv, d, "none", spk_dist_local_block(d), 0, bt + r0, x, &rd);
                for (int r = 0; r < g_size; r++) cnt[r] = row0[r + 1] - row0[r];
                MPI_Allgatherv(x, nloc, MPI_DOUBLE, xall, cnt, row0, MPI_DOUBLE, MPI_COMM_WORLD);
                const struct spk_spmv_ops *hops;
                void *HA = NULL;
                spk_spmv_opts so;
                memset(&so, 0, sizeof so);
                CHECK_OK(spk_spmv_find("csr", host, &hops, host->err), host->err->msg);
                CHECK_OK(hops->create(host, &S, &so, &HA), host->err->msg);
                solve(host, n, hops, HA, "none", &S, 0, bs, xs, &rs);
                hops->destroy(HA);
                double dx = 0, xn = 0;
                for (int i = 0; i < n; i++) {
                    dx = fmax(dx, fabs(xall[i] - xs[perm[i]]));
                    xn = fmax(xn, fabs(xs[i]));
                }
                CHECK(rd.reason == SPK_CONVERGED_RTOL && abs(rd.iterations - rs.iterations) <= 1,
                      "METIS parts: %s after %d iterations, %d on one process", spk_reason_name(rd.reason),
                      rd.iterations, rs.iterations);
                CHECK(dx <= 1e-8 * xn, "METIS parts: solutions differ by %g of %g", dx, xn);
                if (g_rank == 0)
                    printf("graph partition %d ranks: CG %d iterations (one process %d), |x - x1| = %.1e\n", g_size,
                           rd.iterations, rs.iterations, dx);
                free(cnt);
                free(xall);
                free(xs);
                free(x);
                free(bt);
                free(bs);
                free(xg);
            }
            spk_dist_destroy(d);
            spk_csr_free(&R);
        }
        /* one rank owns every column: no halo either way; more: METIS's parts cut far less */
        if (g_size == 1)
            CHECK(halo[0] == 0 && halo[1] == 0, "one rank: halo %d and %d entries", halo[0], halo[1]);
        else
            CHECK(2 * halo[1] < halo[0], "METIS parts exchange %d halo entries, contiguous blocks %d", halo[1],
                  halo[0]);
        if (g_rank == 0)
            printf("graph partition %d ranks, poisson3d-7:10 numbered at random: halo %d entries (contiguous blocks "
                   "%d)\n", g_size, halo[1], halo[0]);
    }
    spk_csr_free(&T);
    spk_csr_free(&S);
    spk_csr_free(&G);
    free(row0);
    free(perm);
    free(part);
    free(q);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    static spk_err herr, derr;
    spk_exec *host = NULL, *e = NULL;
    CHECK_OK(spk_exec_host_create(&herr, &host), herr.msg);
    CHECK_OK(spk_exec_mpi_create(MPI_COMM_WORLD, &derr, &e), derr.msg);
    CHECK(spk_exec_is_host(e), "the MPI executor keeps host vectors");
    CHECK(spk_exec_mpi_comm(host) == MPI_COMM_NULL && spk_exec_mpi_comm(e) == MPI_COMM_WORLD, "communicators");
    {   /* a distributed matrix needs the MPI executor */
        spk_csr one = {0};
        spk_dist *bad = NULL;
        CHECK_OK(spk_csr_alloc(&one, 1, 1, 1, &herr), herr.msg);
        one.rowptr[1] = 1;
        one.colind[0] = 0;
        one.val[0] = 1;
        CHECK(spk_dist_create(host, 1, 0, &one, NULL, &bad) == SPK_ERR_INVALID_ARG && !bad &&
                  strstr(herr.msg, "not the MPI executor"),
              "dist on the host executor: %s", herr.msg);
        spk_csr_free(&one);
    }

    /* the partition: contiguous, every part a row, balanced by nonzeros */
    {
        int rp[11] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 100}, row0[4];
        spk_dist_partition_rows(rp, 10, 3, row0);
        CHECK(row0[0] == 0 && row0[3] == 10 && row0[1] >= 1 && row0[2] > row0[1] && row0[2] <= 9,
              "partition %d %d %d %d", row0[0], row0[1], row0[2], row0[3]);
        int rq[5] = {0, 3, 6, 9, 12};
        spk_dist_partition_rows(rq, 4, 2, row0);
        CHECK(row0[1] == 2, "balanced split at %d", row0[1]);
    }
    spk_err ge;
    spk_csr P = {0}, C = {0}, F = {0};
    CHECK_OK(spk_gen_poisson3d7(8, &P, &ge), ge.msg);
    CHECK_OK(spk_gen_convdiff3d7(8, 50.0, &C, &ge), ge.msg);
    far_coupled(90, &F);
    run("poisson3d-7:8", &P, 0, host, e);
    run("convdiff3d-7:8", &C, 1, host, e);
    run("far-coupled 90", &F, 0, host, e);
    run("far-coupled 90", &F, 1, host, e);
    graph_partition(host, e);
    spk_csr_free(&P);
    spk_csr_free(&C);
    spk_csr_free(&F);
    spk_exec_destroy(e);
    spk_exec_destroy(host);
    int bad = check_failures_, all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int rc = check_exit();
    MPI_Finalize();
    return all ? 1 : rc;
}
