/* partition.c -- graph partitions of the rows for the distributed solve
 * (dist.h): METIS's k-way partition of the graph of A + A^T, and the row
 * order that makes each part a contiguous block, as spk_dist_create takes. */
#include <stdlib.h>
#include <string.h>

#include "dist.h"

#ifdef SPK_HAVE_METIS
#include <metis.h>
#endif

int spk_dist_have_metis(void)
{
#ifdef SPK_HAVE_METIS
    return 1;
#else
    return 0;
#endif
}

int spk_dist_partition_graph(const spk_csr *A, int nparts, int *part, spk_err *e)
{
    if (!A || !part || A->nrows != A->ncols || nparts < 1)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "graph partition: a square matrix and at least one part are needed");
    const int n = A->nrows;
    if (nparts == 1 || n <= nparts) { /* nothing to cut: one part, or a row each */
        for (int i = 0; i < n; i++) part[i] = nparts == 1 ? 0 : i;
        return SPK_OK;
    }
#ifdef SPK_HAVE_METIS
    /* the graph of A + A^T without its diagonal, in METIS's CSR (idx_t) */
    spk_csr At = {0};
    int st = spk_csr_transpose(A, &At, e);
    if (st) return st;
    idx_t *xadj = malloc(((size_t)n + 1) * sizeof(idx_t));
    idx_t *adj = malloc(((size_t)A->nnz * 2 + 1) * sizeof(idx_t));
    idx_t *pt = malloc((size_t)n * sizeof(idx_t));
    if (!xadj || !adj || !pt) {
        st = spk_err_set(e, SPK_ERR_NOMEM, "graph partition: out of host memory for %d rows", n);
    } else {
        idx_t q = 0;
        xadj[0] = 0;
        for (int i = 0; i < n; i++) { /* merge row i of A and of A^T (both sorted) */
            int a = A->rowptr[i], ae = A->rowptr[i + 1], b = At.rowptr[i], be = At.rowptr[i + 1];
            while (a < ae || b < be) {
                int c;
                if (b >= be || (a < ae && A->colind[a] < At.colind[b])) {
                    c = A->colind[a++];
                } else if (a >= ae || At.colind[b] < A->colind[a]) {
                    c = At.colind[b++];
                } else {
                    c = A->colind[a++];
                    b++;
                }
                if (c != i) adj[q++] = c;
            }
            xadj[i + 1] = q;
        }
        idx_t nv = n, ncon = 1, np = nparts, cut = 0;
        idx_t opt[METIS_NOPTIONS];
        METIS_SetDefaultOptions(opt);
        opt[METIS_OPTION_SEED] = 1; /* the same partition on every run and rank */
        const int r = METIS_PartGraphKway(&nv, &ncon, xadj, adj, NULL, NULL, NULL, &np, NULL, NULL, opt, &cut, pt);
        if (r != METIS_OK) {
            st = spk_err_set(e, r == METIS_ERROR_MEMORY ? SPK_ERR_NOMEM : SPK_ERR_INTERNAL,
                             "graph partition: METIS_PartGraphKway failed (%d) on %d rows, %d parts", r, n, nparts);
        } else {
            for (int i = 0; i < n; i++) part[i] = (int)pt[i];
        }
    }
    free(xadj);
    free(adj);
    free(pt);
    spk_csr_free(&At);
    return st;
#else
    return spk_err_set(e, SPK_ERR_NOT_FOUND,
                       "graph partition: spk was built without METIS (Debian/Ubuntu: apt-get install libmetis-dev, "
                       "then configure again)");
#endif
}

int spk_dist_order_parts(const int *part, int n, int nparts, int *perm, int *row0, spk_err *e)
{
    for (int i = 0; i < n; i++)
        if (part[i] < 0 || part[i] >= nparts)
            return spk_err_set(e, SPK_ERR_INVALID_ARG, "row %d is in part %d, outside 0..%d", i, part[i], nparts - 1);
    memset(row0, 0, ((size_t)nparts + 1) * sizeof(int));
    for (int i = 0; i < n; i++) row0[part[i] + 1]++;
    for (int p = 0; p < nparts; p++) row0[p + 1] += row0[p];
    int *next = malloc(((size_t)nparts + 1) * sizeof(int));
    if (!next) return spk_err_set(e, SPK_ERR_NOMEM, "out of host memory (%d parts)", nparts);
    memcpy(next, row0, (size_t)nparts * sizeof(int));
    for (int i = 0; i < n; i++) perm[next[part[i]]++] = i;
    free(next);
    return SPK_OK;
}
