/* csr.h -- the host CSR matrix and its utilities.
 *
 * A (nrows x ncols) is stored as rowptr[nrows+1], colind[nnz], val[nnz] with
 * 0-based 32-bit indices.  "Canonical" means: rowptr monotone from 0 to nnz,
 * every column in [0, ncols), columns strictly increasing within each row
 * (sorted, no duplicates).  Most of spk requires canonical CSR; the reader and
 * spk_matrix_from_csr produce it. */
#ifndef SPK_CORE_CSR_H
#define SPK_CORE_CSR_H

#include <stddef.h>

#include "error.h"

typedef struct spk_csr {
    int nrows, ncols, nnz;
    int *rowptr;   /* nrows + 1 */
    int *colind;   /* nnz */
    double *val;   /* nnz (may be NULL only transiently, never for a finished matrix) */
} spk_csr;

/* Row-length statistics. */
typedef struct spk_csr_rowstats {
    int min, max, empty;
    double mean, std;
} spk_csr_rowstats;

/* Allocate arrays for nrows x ncols with room for nnz entries; rowptr zeroed.
 * *A must be zero-initialised or freed. */
int spk_csr_alloc(spk_csr *A, int nrows, int ncols, int nnz, spk_err *e);
/* Release the arrays and zero the struct. */
void spk_csr_free(spk_csr *A);
/* Deep copy B = A. */
int spk_csr_copy(const spk_csr *A, spk_csr *B, spk_err *e);

/* Check rowptr and colind (values are not read).  With require_sorted, also
 * require strictly increasing columns in each row.  The message names the
 * first offending row and entry. */
int spk_csr_validate(const spk_csr *A, int require_sorted, spk_err *e);
/* Only the dimensions, the arrays and rowptr (O(nrows)): enough for a
 * reader that never indexes by column (the columns are not read). */
int spk_csr_validate_rows(const spk_csr *A, spk_err *e);
/* Does every row have strictly increasing columns? */
int spk_csr_is_sorted(const spk_csr *A);
/* Sort the columns of every row (values follow).  If perm is not NULL it
 * receives, for each new position k, the old position perm[k]. */
int spk_csr_sort(spk_csr *A, int *perm, spk_err *e);
/* Merge entries with equal (row, col) in a row-sorted matrix by summing their
 * values; shrinks nnz.  If map is not NULL (nnz entries on input) it receives,
 * for each old position, its new position. */
int spk_csr_sum_duplicates(spk_csr *A, int *map);

/* Build canonical CSR from nnz triplets (duplicates summed).  Indices are
 * checked against nrows/ncols.  val may be NULL: every value is 1. */
int spk_csr_from_coo(int nrows, int ncols, size_t nnz, const int *row, const int *col,
                     const double *val, spk_csr *A, spk_err *e);

/* B = A^T (canonical if A is). */
int spk_csr_transpose(const spk_csr *A, spk_csr *B, spk_err *e);

/* Symmetry of a canonical square matrix.  *pattern = 1 when (i,j) stored
 * implies (j,i) stored; *values = 1 when additionally |a_ij - a_ji| <=
 * rtol * max(|a_ij|, |a_ji|) for every pair (an entry without partner must be
 * zero).  Either output pointer may be NULL. */
int spk_csr_symmetry(const spk_csr *A, double rtol, int *pattern, int *values, spk_err *e);

/* Is A square and shaped like a discretized Laplacian: every diagonal entry
 * stored, positive and within SPK_STENCIL_DIAG_RTOL of a_00, and every row
 * weakly diagonally dominant (a_ii >= sum_{j != i} |a_ij| (1 - 1e-12))?
 * On such matrices IC(0)/ILU(0) cut the iterations by a small factor that
 * their GPU apply does not pay for (the solver's SPK_PRECOND_AUTO, solver/setup.c). */
#define SPK_STENCIL_DIAG_RTOL 0.05
int spk_csr_stencil_like(const spk_csr *A);

/* d[i] = a_ii (0 where absent; d has min(nrows, ncols) entries).  Returns the
 * number of rows whose diagonal entry is not stored. */
int spk_csr_diagonal(const spk_csr *A, double *d);
/* Position of a_ii in each row of a canonical matrix, -1 where absent. */
int spk_csr_diag_pos(const spk_csr *A, int *pos);
/* The first row whose entries start at or after position k (rowptr
 * ascending, nrows + 1 entries): where a thread's run of about equal
 * entries begins. */
int spk_csr_row_at(const int *rowptr, int nrows, long long k);
/* Return a canonical copy B of A in which every missing diagonal entry of a
 * square A is present as an explicit zero.  *added receives their count. */
int spk_csr_with_diagonal(const spk_csr *A, spk_csr *B, int *added, spk_err *e);

/* Statistics of the row lengths. */
void spk_csr_row_stats(const spk_csr *A, spk_csr_rowstats *s);
/* Number of rows with |a_ii| >= sum_{j != i} |a_ij|. */
int spk_csr_diag_dominant_rows(const spk_csr *A);
/* Levels of the triangular solve with the lower (upper = 0: entries j < i)
 * or upper (j > i) triangle of square A: the length of the longest chain of
 * rows each depending on the one before, i.e. how many sequential steps a
 * level-scheduled substitution takes and how many Jacobi sweeps make an
 * approximate one exact (plus one).  1 for a diagonal matrix, 0 for n = 0;
 * -1 when out of host memory. */
int spk_csr_tri_levels(const spk_csr *A, int upper);

/* Block multicoloring (as in algebraic block multicolor ordering; A square
 * and canonical): rows gathered into blocks of up to `block` rows breadth
 * first over A + A^T
 * (blk[i]: row i's block, *nblocks of them), the blocks colored greedily so
 * that no entry couples two different blocks of one color (color[i]: the
 * color of row i's block), and perm[new] = old ordering the rows by color,
 * then block, then row: each triangle of P A P^T then has at most `block`
 * levels per color, and a block keeps its rows' relative order.  With
 * block = 1 every row is its own block: plain greedy multicoloring of the
 * rows in order, one level per color, perm stable within a color. */
int spk_csr_block_multicolor(const spk_csr *A, int block, int *blk, int *color, int *nblocks, int *ncolors,
                             int *perm, spk_err *e);
/* B = P A P^T, b_ij = a_perm[i],perm[j] (A square and canonical; B canonical,
 * *B zero-initialised or freed).  map (may be NULL; nnz entries) receives for
 * each position of B the position of its entry in A. */
int spk_csr_permute(const spk_csr *A, const int *perm, spk_csr *B, int *map, spk_err *e);
/* matching.c: rowof[j] for each column j of the square A such that the product of the
 * |a_rowof[j],j| is the largest over all perfect matchings (static pivoting); *matched
 * (may be NULL) the columns matched, n unless A is structurally singular (the others then
 * take the unmatched rows in order). */
int spk_csr_max_product_matching(const spk_csr *A, int *rowof, int *matched, spk_err *e);
/* B = P A, row r of B being row rowof[r] of A; map as spk_csr_permute's. */
int spk_csr_permute_rows(const spk_csr *A, const int *rowof, spk_csr *B, int *map, spk_err *e);

/* y = alpha*A*x + beta*y (beta == 0: y is not read, so it may hold NaN). */
void spk_csr_spmv(const spk_csr *A, double alpha, const double *x, double beta, double *y);

/* Checked size arithmetic used by allocators: *out = a * b, fails on overflow. */
int spk_mul_size(size_t a, size_t b, size_t *out);
/* malloc/calloc that record "out of host memory (N bytes for WHAT)" on failure. */
void *spk_malloc(size_t n, size_t size, const char *what, spk_err *e);
void *spk_calloc(size_t n, size_t size, const char *what, spk_err *e);

#endif
