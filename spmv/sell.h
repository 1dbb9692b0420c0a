/* sell.h -- SELL-C-sigma (Kreutzer, Hager, Wellein, Fehske, Bishop, SIAM J.
 * Sci. Comput. 2014): inside windows of sigma consecutive rows the rows are
 * sorted by decreasing length (a stable sort: equal lengths keep their
 * order); the sorted rows are cut into slices of C rows, each slice padded
 * to its longest row and stored column-major inside the slice: entry k of
 * the slice's local row r at slice_ptr[s] + k*C + r.  perm[p] is the
 * original row of sorted position p, so that y comes out in the original
 * order.  The last slice keeps the stride C: its positions beyond the rows
 * hold padding (column 0, value 0) that nothing reads.  Padding inside a
 * row repeats the row's last real column (column 0 for an empty row) with
 * value 0, as ELL's does.
 *
 * C = sell_c (0: 32); sigma = sell_sigma (0: 256, raised to a multiple of C
 * when C does not divide 256; 1: no sorting).  Any sigma >= 1 gives a
 * correct product; a multiple of C keeps each slice inside one window.
 *
 * Storage: 4 * (nslices + 1) bytes of slice offsets + 12 * padded bytes of
 * column indices and values (8 * padded in float) + 4 * nrows bytes of the
 * permutation, with
 * nslices = ceil(nrows / C) and padded = C * (the sum of the slices'
 * widths).  Refused (SPK_ERR_UNSUPPORTED, before the arrays are allocated)
 * when padded exceeds SPK_PAD_LIMIT (3) times the nonzeros and
 * SPK_PAD_FLOOR (2^20) entries, or 2^31 - 1 entries. */
#ifndef SPK_SPMV_SELL_H
#define SPK_SPMV_SELL_H

#include "format.h"

typedef struct spk_fmt_sell {
    int nrows, ncols, nnz; /* nnz: the stored nonzeros of A (padding excluded) */
    int c, sigma;          /* rows per slice, sorting window */
    int nslices;           /* ceil(nrows / c) */
    int padded;            /* entries stored, padding included: slice_ptr[nslices] */
    int *slice_ptr;        /* nslices + 1: first entry of each slice */
    int *colind;           /* padded */
    double *val;           /* padded */
    int *perm;             /* nrows: the original row of each sorted position */
} spk_fmt_sell;

/* The rows per slice and the sorting window that the options give (zeros:
 * the defaults above); SPK_ERR_INVALID_ARG for negative values. */
int spk_sell_params(const spk_spmv_opts *o, int *c, int *sigma, spk_err *err);

/* y = alpha*S*x + beta*y on the host in the kernel's order: sorted position
 * by sorted position, each over its slice's whole width (padding included),
 * the result written to y[perm[p]]. */
void spk_sell_ref(const spk_fmt_sell *S, double alpha, const double *x, double beta, double *y);

#ifdef SPK_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
/* y = alpha*S*x + beta*y, one thread per sorted row, C consecutive threads
 * per slice (device arrays in S). */
SPK_FORMAT_LAUNCH_DECL(spk_sell_launch)
#ifdef __cplusplus
}
#endif
#endif

#endif
