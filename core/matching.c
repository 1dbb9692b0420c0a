/* matching.c -- a row for each column of a sparse square matrix such that
 * the product of the matched entries' magnitudes is the largest over all
 * perfect matchings (the weighted matching behind static pivoting, as in
 * MC64's product option): the assignment problem on costs
 *     c(i, j) = log max_k |a_kj| - log |a_ij|  (>= 0),
 * solved by shortest augmenting paths (Dijkstra on reduced costs with dual
 * potentials u, v), one path per column, after a greedy start on the
 * columns' largest entries.  Cost: one Dijkstra per column left unmatched
 * by the start, each over the part of the graph its path search reaches. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/csr.h"

typedef struct heap_item {
    double d;
    int row;
} heap_item;

typedef struct heap {
    heap_item *a;
    size_t n, cap;
} heap;

static int heap_push(heap *h, double d, int row)
{
    if (h->n == h->cap) {
        const size_t cap = h->cap ? 2 * h->cap : 64;
        heap_item *a = realloc(h->a, cap * sizeof *a);
        if (!a) return -1;
        h->a = a;
        h->cap = cap;
    }
    size_t i = h->n++;
    while (i > 0 && h->a[(i - 1) / 2].d > d) {
        h->a[i] = h->a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->a[i] = (heap_item){d, row};
    return 0;
}

static heap_item heap_pop(heap *h)
{
    const heap_item top = h->a[0], last = h->a[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n) break;
        if (c + 1 < h->n && h->a[c + 1].d < h->a[c].d) c++;
        if (h->a[c].d >= last.d) break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (h->n) h->a[i] = last;
    return top;
}

/* The search's state: the columns (T = A^T, row j of T is column j of A, its
 * costs in cost[]), the matching both ways, the potentials and the
 * distances of the rows the current search touched. */
typedef struct match {
    spk_csr T;
    double *cost, *u, *v, *d;
    int *rowmatch, *colmatch, *pred, *touched, *final;
    char *done;
    int ntouched, nfinal;
    heap h;
} match;

static int touch(match *M, int row, double d, int from)
{
    if (M->d[row] == INFINITY) M->touched[M->ntouched++] = row;
    M->d[row] = d;
    M->pred[row] = from;
    return heap_push(&M->h, d, row);
}

/* one shortest augmenting path from the free column j0; 0 when none exists */
static int augment(match *M, int j0, int *found_out)
{
    const spk_csr *T = &M->T;
    int found = -1;
    double lsp = 0;
    M->h.n = 0;
    for (int q = T->rowptr[j0]; q < T->rowptr[j0 + 1]; q++) {
        const int i = T->colind[q];
        const double r = M->cost[q] - M->u[j0] - M->v[i];
        if (isfinite(M->cost[q]) && r < M->d[i] && touch(M, i, r, j0)) return -1;
    }
    while (M->h.n) {
        const heap_item it = heap_pop(&M->h);
        const int i = it.row;
        if (M->done[i] || it.d > M->d[i]) continue;
        M->done[i] = 1;
        M->final[M->nfinal++] = i;
        if (M->rowmatch[i] < 0) {
            found = i;
            lsp = it.d;
            break;
        }
        const int j = M->rowmatch[i];
        for (int q = T->rowptr[j]; q < T->rowptr[j + 1]; q++) {
            const int k = T->colind[q];
            if (M->done[k] || !isfinite(M->cost[q])) continue;
            const double nd = it.d + M->cost[q] - M->u[j] - M->v[k];
            if (nd < M->d[k] && touch(M, k, nd, j)) return -1;
        }
    }
    if (found >= 0) {
        /* potentials: every reduced cost stays >= 0, those on the path become 0 */
        M->u[j0] += lsp;
        for (int f = 0; f < M->nfinal; f++) {
            const int i = M->final[f];
            if (i == found) continue;
            M->u[M->rowmatch[i]] += lsp - M->d[i];
            M->v[i] += M->d[i] - lsp;
        }
        for (int i = found;;) { /* flip the path */
            const int j = M->pred[i], prev = M->colmatch[j];
            M->colmatch[j] = i;
            M->rowmatch[i] = j;
            if (j == j0) break;
            i = prev;
        }
    }
    for (int t = 0; t < M->ntouched; t++) {
        M->d[M->touched[t]] = INFINITY;
        M->done[M->touched[t]] = 0;
    }
    M->ntouched = M->nfinal = 0;
    *found_out = found >= 0;
    return 0;
}

static void match_free(match *M)
{
    spk_csr_free(&M->T);
    free(M->cost);
    free(M->u);
    free(M->v);
    free(M->d);
    free(M->rowmatch);
    free(M->colmatch);
    free(M->pred);
    free(M->touched);
    free(M->final);
    free(M->done);
    free(M->h.a);
}

int spk_csr_max_product_matching(const spk_csr *A, int *rowof, int *matched, spk_err *e)
{
    if (!A || !rowof || A->nrows != A->ncols)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "matching: a square matrix and an output array are needed");
    const int n = A->nrows;
    match M;
    memset(&M, 0, sizeof M);
    int st = spk_csr_transpose(A, &M.T, e);
    if (st) return st;
    const size_t nn = (size_t)n + 1, nz = (size_t)M.T.nnz + 1;
    M.cost = malloc(nz * sizeof(double));
    M.u = calloc(nn, sizeof(double));
    M.v = calloc(nn, sizeof(double));
    M.d = malloc(nn * sizeof(double));
    M.rowmatch = malloc(nn * sizeof(int));
    M.colmatch = malloc(nn * sizeof(int));
    M.pred = malloc(nn * sizeof(int));
    M.touched = malloc(nn * sizeof(int));
    M.final = malloc(nn * sizeof(int));
    M.done = calloc(nn, 1);
    if (!M.cost || !M.u || !M.v || !M.d || !M.rowmatch || !M.colmatch || !M.pred || !M.touched || !M.final ||
        !M.done) {
        match_free(&M);
        return spk_err_set(e, SPK_ERR_NOMEM, "out of host memory (matching of %d columns)", n);
    }
    for (int i = 0; i < n; i++) {
        M.d[i] = INFINITY;
        M.rowmatch[i] = M.colmatch[i] = -1;
    }
    /* costs, and the greedy start: each column its largest entry's row where still free */
    for (int j = 0; j < n; j++) {
        double cmax = 0;
        for (int q = M.T.rowptr[j]; q < M.T.rowptr[j + 1]; q++) cmax = fmax(cmax, fabs(M.T.val[q]));
        for (int q = M.T.rowptr[j]; q < M.T.rowptr[j + 1]; q++) {
            const double a = fabs(M.T.val[q]);
            M.cost[q] = a > 0 && isfinite(a) ? log(cmax) - log(a) : INFINITY;
            const int i = M.T.colind[q];
            if (M.cost[q] == 0 && M.colmatch[j] < 0 && M.rowmatch[i] < 0) {
                M.colmatch[j] = i;
                M.rowmatch[i] = j;
            }
        }
    }
    int count = 0;
    for (int j = 0; j < n && !st; j++) {
        int found = M.colmatch[j] >= 0;
        if (!found && augment(&M, j, &found))
            st = spk_err_set(e, SPK_ERR_NOMEM, "out of host memory (matching's search)");
        count += found;
    }
    /* a structurally singular matrix: the columns left take the rows left, in order */
    for (int j = 0, i = 0; j < n && !st; j++) {
        if (M.colmatch[j] >= 0) continue;
        while (M.rowmatch[i] >= 0) i++;
        M.colmatch[j] = i;
        M.rowmatch[i] = j;
    }
    if (!st) memcpy(rowof, M.colmatch, (size_t)n * sizeof(int));
    if (matched) *matched = count;
    match_free(&M);
    return st;
}

int spk_csr_permute_rows(const spk_csr *A, const int *rowof, spk_csr *B, int *map, spk_err *e)
{
    SPK_TRY(spk_csr_alloc(B, A->nrows, A->ncols, A->nnz, e));
    int k = 0;
    for (int r = 0; r < A->nrows; r++) {
        const int src = rowof[r];
        for (int q = A->rowptr[src]; q < A->rowptr[src + 1]; q++, k++) {
            B->colind[k] = A->colind[q];
            B->val[k] = A->val[q];
            if (map) map[k] = q;
        }
        B->rowptr[r + 1] = k;
    }
    return SPK_OK;
}
