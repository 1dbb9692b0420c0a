/* consumer_mpi.c -- a program outside spk using the installed spk_mpi.h: each
 * rank its rows of a 1-D Laplacian, one CG solve across the ranks, b = A*1,
 * every entry of x checked against 1.  Exit 0 only where all ranks agree. */
#include <stdio.h>
#include <stdlib.h>

#include "spk_mpi.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int n = 400, r0 = n * rank / size, r1 = n * (rank + 1) / size, nl = r1 - r0;
    int *rowptr = malloc((nl + 1) * sizeof(int)), *colind = malloc((3 * nl + 1) * sizeof(int)), q = 0;
    double *val = malloc((3 * nl + 1) * sizeof(double)), *b = malloc((nl + 1) * sizeof(double));
    double *x = calloc(nl + 1, sizeof(double));
    rowptr[0] = 0;
    for (int i = r0; i < r1; i++) {
        for (int j = i - 1; j <= i + 1; j++)
            if (j >= 0 && j < n) {
                colind[q] = j;
                val[q++] = j == i ? 2.0 : -1.0;
            }
        rowptr[i - r0 + 1] = q;
        b[i - r0] = (i == 0 || i == n - 1) ? 1.0 : 0.0; /* A*1 */
    }
    spk_mpi_matrix *A = NULL;
    spk_result res;
    int st = spk_mpi_matrix_create(MPI_COMM_WORLD, n, r0, nl, rowptr, colind, val, &A);
    if (!st) st = spk_mpi_solve(A, SPK_SOLVER_AUTO, SPK_PRECOND_NONE, NULL, b, x, &res);
    int bad = st != SPK_OK;
    for (int i = 0; i < nl; i++) bad |= x[i] < 1 - 1e-6 || x[i] > 1 + 1e-6;
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s on %d ranks: %s, %d iterations (%s)\n", spk_version(), size, any ? "FAILED" : "ok",
               st ? 0 : res.iterations, st ? spk_mpi_last_error(A) : spk_mpi_method(A));
    spk_mpi_matrix_destroy(A);
    free(rowptr);
    free(colind);
    free(val);
    free(b);
    free(x);
    MPI_Finalize();
    return any;
}
