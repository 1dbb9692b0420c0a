/* hmec.h -- HMEC (003 §2.3, §4.1): rows sorted by length, then up to p ELL
 * parts peeled off the front of every row, and a CSR rest.
 *
 * Rows are sorted by nnz descending (stable); jds_row[r] is the original row
 * of sorted position r.  Seen "JDS-like", column j of a row is its j-th stored
 * entry.  With S the remaining matrix and x the number of rows of S that still
 * have entries (a prefix of the sorted order), while x > 512 and fewer than p
 * parts exist: K = the largest j such that every j' = 2..j has
 * s(j') > 2 c(j') / 3 (s: nonzeros in the first j' columns of S, c = j' x),
 * K = 1 when j = 2 already fails; the first K columns of the x rows become an
 * ELL part (column-major, x rows, width K, padding a valid column with value 0)
 * and leave S.  What remains is stored as CSR in sorted order.
 *
 * y = alpha*A*x + beta*y runs one kernel per part, each adding into y through
 * jds_row: the first covers all nrows and sets y = alpha*sum + beta*y (beta ==
 * 0: y not read), the others add alpha*sum.  The host reference does the same. */
#ifndef SPK_SPMV_HMEC_H
#define SPK_SPMV_HMEC_H

#include <stddef.h>

#include "format.h"

#define SPK_HMEC_MAX_PARTS 8     /* most ELL parts (spk_spmv_opts.hmec_parts) */
#define SPK_HMEC_DEFAULT_PARTS 2 /* hmec_parts = 0 */
#define SPK_HMEC_MIN_ROWS 512    /* split only while more rows than this have entries */

/* The split of a matrix: per ELL part its width, rows and real nonzeros. */
typedef struct spk_hmec_split_info {
    int nparts;
    int K[SPK_HMEC_MAX_PARTS];
    int rows[SPK_HMEC_MAX_PARTS];
    int nnz[SPK_HMEC_MAX_PARTS];  /* real nonzeros, padding excluded */
    int csr_rows, csr_nnz;        /* the CSR rest */
    size_t stored;                /* entries stored: ELL (padding included) + CSR rest */
} spk_hmec_split_info;

/* The HMEC split of canonical A with at most `parts` ELL parts (0: 2, else
 * 1..SPK_HMEC_MAX_PARTS; others fail with SPK_ERR_INVALID_ARG). */
int spk_hmec_split(const spk_csr *A, int parts, spk_hmec_split_info *info, spk_err *err);

/* The format's host arrays.  The ELL parts lie one after another in ell_col /
 * ell_val: part p starts at entry ell_off[p] and holds entry k of sorted row r
 * (r < info.rows[p], k < info.K[p]) at ell_off[p] + k * info.rows[p] + r. */
typedef struct spk_fmt_hmec {
    int nrows, ncols, nnz;
    spk_hmec_split_info info;
    size_t ell_off[SPK_HMEC_MAX_PARTS + 1];
    int *jds_row;     /* nrows: sorted position -> original row */
    int *ell_col;     /* ell_off[nparts] */
    double *ell_val;
    int *csr_rowptr;  /* info.csr_rows + 1, over sorted rows 0 .. csr_rows-1 */
    int *csr_col;     /* info.csr_nnz */
    double *csr_val;
} spk_fmt_hmec;

/* The format table (convert, arrays, ref_apply, describe) for white-box tests. */
const spk_format *spk_hmec_format(void);

#ifdef SPK_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
/* y = alpha*A*x + beta*y: one kernel per part (device arrays). */
SPK_FORMAT_LAUNCH_DECL(spk_hmec_launch)
#ifdef __cplusplus
}
#endif
#endif

#endif
