/* hyb.c -- the "hyb" format: ELL of width K plus a COO rest.
 *
 * How K is chosen (unless spk_spmv_opts.hyb_width sets it): K is the largest
 * k such that at least a third of the rows have k or more entries (Bell and
 * Garland's rule, without their 4096-row floor).  Then the ELL part stores at
 * most 3 entries per real entry of its last column's rows, so HYB never
 * trips the padding bound, and the long tail of a few long rows goes to COO.
 * Traffic per product: ELL part + COO rest + one extra pass over y. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hyb.h"
#ifdef SPK_HAVE_CUDA
#include "core/exec_cuda.h"
#include "devbuild.h"
#endif

int spk_hyb_width(const spk_csr *A)
{
    const int n = A->nrows;
    if (n == 0) return 0;
    int maxlen = 0;
    for (int i = 0; i < n; i++)
        if (A->rowptr[i + 1] - A->rowptr[i] > maxlen) maxlen = A->rowptr[i + 1] - A->rowptr[i];
    /* count[k] = rows with exactly k entries; walk k down accumulating rows >= k */
    int *count = calloc((size_t)maxlen + 1, sizeof(int));
    if (!count) return 0;
    for (int i = 0; i < n; i++) count[A->rowptr[i + 1] - A->rowptr[i]]++;
    int k = maxlen, atleast = 0;
    for (; k > 0; k--) {
        atleast += count[k];
        if (3LL * atleast >= n) break;
    }
    free(count);
    return k;
}

static int hyb_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    spk_fmt_hyb *H = fmt;
    int K = o->hyb_width > 0 ? o->hyb_width : spk_hyb_width(A);
    SPK_TRY(spk_ell_fill(A, K, "hyb", &H->ell, err));
    return spk_coo_fill(A, K, &H->coo, err);
}

static int hyb_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_hyb *H = fmt;
    int n = spk_ell_arrays(&H->ell, l);
    return n + spk_coo_arrays(&H->coo, l + n);
}

/* y = alpha*ELL*x + beta*y, then y += alpha*COO*x */
static void hyb_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    const spk_fmt_hyb *H = fmt;
    spk_ell_ref(&H->ell, alpha, x, beta, y);
    spk_coo_accumulate_ref(&H->coo, alpha, x, y);
}

static void hyb_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_hyb *H = fmt;
    snprintf(buf, len, "HYB, ELL width K = %d with %d nonzeros (%zu stored), COO rest %d nonzeros",
             H->ell.width, H->ell.nnz, (size_t)H->ell.width * (size_t)H->ell.nrows, H->coo.nnz);
}

#ifdef SPK_HAVE_CUDA
/* On the device: the ELL part by its kernel, the COO rest from per-row offsets. */
static int hyb_build(spk_exec *e, const spk_csr *A, const spk_csr *dA, const spk_spmv_opts *o, void *fmt)
{
    spk_fmt_hyb *H = fmt;
    const int n = A->nrows, K = o->hyb_width > 0 ? o->hyb_width : spk_hyb_width(A);
    SPK_TRY(spk_ell_build_dev(e, A, dA, K, "hyb", &H->ell));
    int *off = spk_malloc((size_t)n + 1, sizeof(int), "HYB row offsets", e->err), *doff = NULL;
    if (!off) return SPK_ERR_NOMEM;
    off[0] = 0;
    for (int i = 0; i < n; i++) {
        int len = A->rowptr[i + 1] - A->rowptr[i];
        off[i + 1] = off[i] + (len > K ? len - K : 0);
    }
    H->coo.nrows = n;
    H->coo.ncols = A->ncols;
    H->coo.nnz = off[n];
    int st;
    SPK_CHECK(st, spk_cuda_alloc(e, (size_t)H->coo.nnz * sizeof(int), "COO rows", (void **)&H->coo.row));
    SPK_CHECK(st, spk_cuda_alloc(e, (size_t)H->coo.nnz * sizeof(int), "COO columns", (void **)&H->coo.col));
    SPK_CHECK(st, spk_cuda_alloc(e, (size_t)H->coo.nnz * sizeof(double), "COO values", (void **)&H->coo.val));
    SPK_CHECK(st, spk_cuda_alloc(e, ((size_t)n + 1) * sizeof(int), "HYB row offsets", (void **)&doff));
    SPK_CHECK(st, spk_cuda_upload(e, doff, off, ((size_t)n + 1) * sizeof(int), "HYB row offsets"));
    cudaStream_t s;
    spk_exec_cuda_handles(e, &s, NULL, NULL);
    st = spk_cuda_check(e->err,
                        spk_dev_coo_rest(s, n, K, doff, dA->rowptr, dA->colind, dA->val, H->coo.row, H->coo.col,
                                         H->coo.val),
                        "the HYB build kernel");
    if (!st) st = spk_cuda_check(e->err, cudaStreamSynchronize(s), "cudaStreamSynchronize");
cleanup:
    cudaFree(doff);
    free(off);
    return st;
}
#endif

static const spk_format hyb_format = {
    "hyb", "ELL + COO", sizeof(spk_fmt_hyb), hyb_convert, hyb_arrays, hyb_ref,
    SPK_FORMAT_LAUNCH(spk_hyb_launch), hyb_describe, SPK_FORMAT_BUILD(hyb_build),
};

SPK_FORMAT_BACKENDS(hyb, "hyb", "ELL of width K (a third of the rows reach K) plus COO rest", hyb_format)
