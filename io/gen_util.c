/* gen_util.c -- size checks and assembly helpers of the generators. */
#include "io/gen_util.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

int gen_check_size(const char *name, long long n, long long rows, long long nnz, spk_err *e)
{
    if (rows >= INT_MAX)
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "%s:%lld: its %lld rows exceed 32-bit index limits; take a smaller N", name, n,
                           rows);
    if (nnz > INT_MAX)
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "%s:%lld: its %lld entries exceed 32-bit index limits (%d); take a smaller N", name,
                           n, nnz, INT_MAX);
    return SPK_OK;
}

/* Whole: nnz from the caller; a range: counted by emit first, refused past INT_MAX.  Then one
 * fill, which must end where the count did. */
int gen_emit(const char *name, long long n, int rows, long long nnz, gen_range rg, gen_emit_fn emit,
             const void *ctx, spk_csr *A, spk_err *e)
{
    const int r0 = rg.whole ? 0 : rg.r0, r1 = rg.whole ? rows : rg.r1;
    if (!A) return spk_err_set(e, SPK_ERR_INVALID_ARG, "%s: A is NULL", name);
    if (r0 < 0 || r0 > r1 || r1 > rows)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "%s:%lld: bad row range [%d, %d) (its rows: [0, %d))", name, n,
                           r0, r1, rows);
    if (!rg.whole) {
        nnz = emit(ctx, r0, r1, NULL);
        if (nnz > INT_MAX)
            return spk_err_set(e, SPK_ERR_INVALID_ARG,
                               "%s:%lld: rows [%d, %d) have more than %d entries, past 32-bit index limits; "
                               "take a smaller range",
                               name, n, r0, r1, INT_MAX);
    }
    spk_csr T = {0};
    SPK_TRY(spk_csr_alloc(&T, r1 - r0, rows, (int)nnz, e));
    if (emit(ctx, r0, r1, &T) != nnz) {
        spk_csr_free(&T);
        return spk_err_set(e, SPK_ERR_INTERNAL, "%s:%lld: rows [%d, %d) filled differ from their count", name, n,
                           r0, r1);
    }
    *A = T;
    return SPK_OK;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

void gen_sort_ints(int *a, int n)
{
    if (n > 32) {
        qsort(a, (size_t)n, sizeof(int), cmp_int);
        return;
    }
    for (int i = 1; i < n; i++) {
        int v = a[i], j = i;
        for (; j > 0 && a[j - 1] > v; j--) a[j] = a[j - 1];
        a[j] = v;
    }
}

/* Row i of A: row i of U^T (columns < i), the diagonal, row i of U. */
int gen_sym_from_upper(const char *name, long long n, const spk_csr *U, double scale, double shift,
                       spk_csr *A, spk_err *e)
{
    spk_csr T = {0};
    SPK_TRY(gen_check_size(name, n, U->nrows, 2LL * U->nnz + U->nrows, e));
    SPK_TRY(spk_csr_transpose(U, &T, e));
    int st = spk_csr_alloc(A, U->nrows, U->nrows, 2 * U->nnz + U->nrows, e);
    if (st) {
        spk_csr_free(&T);
        return st;
    }
    int q = 0;
    for (int i = 0; i < U->nrows; i++) {
        double sum = 0;
        for (int k = T.rowptr[i]; k < T.rowptr[i + 1]; k++, q++) {
            A->colind[q] = T.colind[k];
            A->val[q] = T.val[k];
            sum += fabs(T.val[k]);
        }
        const int d = q++;
        for (int k = U->rowptr[i]; k < U->rowptr[i + 1]; k++, q++) {
            A->colind[q] = U->colind[k];
            A->val[q] = U->val[k];
            sum += fabs(U->val[k]);
        }
        A->colind[d] = i;
        A->val[d] = scale * sum + shift;
        A->rowptr[i + 1] = q;
    }
    spk_csr_free(&T);
    return SPK_OK;
}

void gen_dominant_diagonal(spk_csr *A, uint64_t seed, double lo, double hi)
{
    const double ratio = log(hi / lo);
    for (int i = 0; i < A->nrows; i++) {
        double sum = 0;
        int d = -1;
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            if (A->colind[k] == i) d = k;
            else sum += fabs(A->val[k]);
        }
        if (d < 0) continue;
        const double m = lo * exp(ratio * gen_hash_unit(seed, (uint64_t)i, 7, 11));
        A->val[d] = sum > 0 ? sum * (1.0 + m) : 1.0;
    }
}
