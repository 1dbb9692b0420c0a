/* devfactor.h -- kernels of the device-resident IC(0) and ILU(0)
 * (devfactor.cu): the working pattern built from A's CSR arrays in device
 * memory, the numeric factorization without a host pass, and the Jacobi
 * sweeps that replace the triangular solves.  Each launcher enqueues on the
 * stream given and returns the launch status.
 *
 * The working pattern F is the one of the host factor (factor.h): A with
 * every diagonal entry present (an inserted one is 0), only its lower
 * triangle for IC(0), whose diagonal is then the last entry of each row.
 *
 * The factorization is synchronization-free and runs in an order computed
 * once per pattern (spk_dev_order): each row counts the rows it depends on
 * (indeg), a row whose count reaches zero is put on a queue, and the queue's
 * final content is the order, each row after every row it depends on.  A
 * group of lanes (group: 4 or 8 of one warp) then takes the next row of that
 * order by an atomic ticket, waits per entry for the row that entry depends
 * on (done flags), factorizes and publishes it.  A row's dependencies come
 * earlier in the order, so they went to running groups and every wait ends.
 * A bad pivot (the host's test, factor.h) sets flag[i] (1: pivot, 2: a
 * non-finite entry with a finite pivot), piv[i], and ctl[1] = min(ctl[1], i);
 * the row is still published, so the rows after it finish too. */
#ifndef SPK_PRECOND_DEVFACTOR_H
#define SPK_PRECOND_DEVFACTOR_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "precond/devtri.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cnt[0] = 0, cnt[i + 1] = the entries of row i of F (lower: of A's lower
 * triangle, plus the diagonal), then cnt[1..n] is summed in place, so cnt
 * becomes F's row pointers.  temp (temp_bytes) is scan workspace: call
 * spk_dev_pattern_temp first for its size. */
cudaError_t spk_dev_pattern_temp(int n, size_t *temp_bytes);
cudaError_t spk_dev_pattern_rows(cudaStream_t s, int n, int lower, const int *rp, const int *ci, int *cnt,
                                 void *temp, size_t temp_bytes);
/* F's columns and values (A's, 0 at an inserted diagonal), the position of
 * each row's diagonal, a_ii (0 where not stored) and missing[i] = 1 where A
 * does not store it. */
cudaError_t spk_dev_pattern_fill(cudaStream_t s, int n, int lower, const int *rp, const int *ci, const double *val,
                                 const int *frp, int *fci, double *fval, int *dpos, double *adiag,
                                 unsigned char *missing);
/* The rows depending on each row: dptr[c] .. dptr[c + 1] - 1 index the rows
 * of dep with a strictly lower entry in column c of F (dptr: n + 1 entries,
 * dep: F's strictly lower entries, at most nnz(F) - n; work: n ints; temp as
 * for spk_dev_pattern_rows). */
cudaError_t spk_dev_deps(cudaStream_t s, int n, int ic, const int *frp, const int *fci, const int *dpos, int *dptr,
                         int *dep, int *work, void *temp, size_t temp_bytes);
/* order[0 .. n - 1]: F's rows in dependency order (indeg, n ints, and ctl,
 * 3 ints, are workspace; indeg is all zero after it). */
cudaError_t spk_dev_order(cudaStream_t s, int n, int ic, const int *frp, const int *dpos, const int *dptr,
                          const int *dep, int *indeg, int *order, int *ctl);
/* Factorize F's values in place for A + alpha*diag(A) (ic: IC(0), else
 * ILU(0)) in the order of spk_dev_order (NULL: row order, also a dependency
 * order, and as fast where every row fits in the groups in flight); flag[n] zero and ctl = {0, INT_MAX,
 * 0} (ticket, first failing row, stopped) on entry; done (n ints) is set here.
 * idiag[i] = 1 / pivot (ILU(0): 1/u_ii; IC(0): 1/l_ii).  stop_flag (NULL:
 * none; device memory): read by the waits and once a row; once it holds
 * stop_value the kernel ends within the rows in flight, ctl[2] becomes 1 and
 * the factor is not one. */
cudaError_t spk_dev_factor(cudaStream_t s, int n, int ic, int group, const int *frp, const int *fci, const int *dpos,
                           double *fval, double alpha, const int *order, int *done, int *ctl, double *piv,
                           double *idiag, unsigned char *flag, const int *stop_flag, int stop_value);
/* out[i] = d_i (b[i] - sum_k val[k] x[col[k]]) over positions [beg[i] + boff,
 * end[i] + eoff) of row i, with d_i = idiag[i] (1 when idiag is NULL) and,
 * when x is NULL, x = D^-1 b (the sweeps' starting point).  threads: 1, 2,
 * 4, 8, 16 or 32 per row.  out must not be b or x. */
cudaError_t spk_dev_sweep(cudaStream_t s, int n, int threads, const int *beg, int boff, const int *end, int eoff,
                          const int *col, const double *val, const double *idiag, const double *b,
                          const double *x, double *out);
/* A triangle's strict part as sliced ELL for the sweeps (the rows' positions
 * as for spk_dev_sweep): slices of 32 rows, each as wide as its longest row,
 * stored column by column and padded with zeros at the row's own column.
 * spk_dev_sell_slices gives the number of slices; spk_dev_sell_pattern sets
 * sp (slices + 1 entries) to the slices' offsets (sp[slices]: the entries
 * with padding; temp as for spk_dev_pattern_rows); spk_dev_sell_fill copies
 * the columns and values (single: the values rounded to float, else double)
 * and spk_dev_sell_sweep is spk_dev_sweep on that copy, accumulating in
 * double. */
int spk_dev_sell_slices(int n);
cudaError_t spk_dev_sell_pattern(cudaStream_t s, int n, const int *beg, int boff, const int *end, int eoff, int *sp,
                                 void *temp, size_t temp_bytes);
cudaError_t spk_dev_sell_fill(cudaStream_t s, int n, const int *beg, int boff, const int *end, int eoff,
                              const int *col, const double *val, const int *sp, int *scol, void *sval, int single);
cudaError_t spk_dev_sell_sweep(cudaStream_t s, int n, const int *sp, const int *scol, const void *sval, int single,
                               const double *idiag, const double *b, const double *x, double *out);
/* The lean copy of a large system's triangle (devsweep_slice.c): the
 * sliced layout above, but each entry's value pre-multiplied by its row's
 * D^-1 (G = D^-1 S, single: rounded to float) and its column stored as the
 * offset c - i, in 16 bits (narrow) where the triangle's largest |c - i|
 * (spk_dev_tri_span, into a device int) is at most 32767, else in 32.
 * spk_dev_lean_sweep is then one sweep, out = c - G x with c = D^-1 b:
 * x NULL: the first, from x = c computed on the fly (and c stored, when c is
 * given); else c read from c (NULL: computed from b again).  xf: x and c are
 * float (single only), of: out is float.  bmax (NULL: no scale): the bits of
 * max |b| as a double, times f >= max |d_i|: c and the iterates are scaled
 * by the power of two that brings that bound below 1, so that float iterates
 * keep their range for any b; last: out unscaled (the triangle's result).
 * omax (NULL: none): max |out| raised to it (atomicMax on the bits).  Sums
 * in double.  wide: a thread per row, else per two rows (for rows of a few
 * entries, whose loads are then in flight together). */
cudaError_t spk_dev_tri_span(cudaStream_t s, int n, const int *beg, int boff, const int *end, int eoff,
                             const int *col, int *span);
cudaError_t spk_dev_lean_fill(cudaStream_t s, int n, const int *beg, int boff, const int *end, int eoff,
                              const int *col, const double *val, const double *idiag, const int *sp, void *scol,
                              int narrow, void *sval, int single);
cudaError_t spk_dev_lean_sweep(cudaStream_t s, int n, int wide, const int *sp, const void *scol, int narrow,
                               const void *sval, int single, int xf, int of, const double *idiag, const double *b,
                               const unsigned long long *bmax, double f, void *c, const void *x, void *out, int last,
                               unsigned long long *omax);
/* *m = max(*m, max_i |x_i|), as the bits of a double (*m zeroed by the caller). */
cudaError_t spk_dev_absmax(cudaStream_t s, int n, const double *x, unsigned long long *m);
/* v[k] = v[k] rounded to float, k < m. */
cudaError_t spk_dev_round_float(cudaStream_t s, long long m, double *v);
/* y = (a - b) / idiag (idiag NULL: a - b), elementwise; y may alias a or b. */
cudaError_t spk_dev_sub_scaled(cudaStream_t s, int n, const double *idiag, const double *a, const double *b,
                               double *y);
/* x[i] in [0.5, 1.5), a fixed hash of i: a positive probe vector. */
cudaError_t spk_dev_probe(cudaStream_t s, int n, double *x);
/* Both triangles' K sweeps in one block (n <= SPK_DEV_SMALL_ROWS), on the
 * sliced copies of spk_dev_sell_fill (index 0: L, then 1: U or L^T), with
 * D^-1 = id[t] (NULL: I): y = the L sweeps for r, z = the second triangle's
 * for y (z may be r).  spk_dev_small_init(n) first, outside any capture:
 * it allows the 16 n bytes of shared memory. */
#define SPK_DEV_SMALL_ROWS 12288
cudaError_t spk_dev_small_init(int n);
cudaError_t spk_dev_small_apply(cudaStream_t s, int n, int k, int single, const int *const sp[2],
                                const int *const scol[2], const void *const sval[2], const double *const id[2],
                                const double *r, double *y, double *z);

/* spk_dev_tri: precond/devtri.h */
/* Exact solves of a small factor (n <= SPK_DEV_SOLVE_ROWS) in one block:
 * y = the solution of L y = r (rows forward), z that of the second triangle
 * for y (rows backward); z may be r.  spk_dev_small_solve_init(n) first,
 * outside any capture (it allows the 8 n bytes of shared memory). */
#define SPK_DEV_SOLVE_ROWS 28672
cudaError_t spk_dev_small_solve_init(int n);
cudaError_t spk_dev_small_solve(cudaStream_t s, int n, spk_dev_tri l, spk_dev_tri u, const double *r, double *y,
                                double *z);

/* Norms read back together: spk_dev_scaled_norm_part writes the partial
 * sums of ||(a - b) / idiag||^2 (b, idiag NULL: 0, 1) into part[0 ..
 * spk_dev_norm_parts(n) - 1]; spk_dev_norm_finish turns m such groups of
 * `parts` partial sums, one after another, into m norms. */
int spk_dev_norm_parts(int n);
cudaError_t spk_dev_scaled_norm_part(cudaStream_t s, int n, const double *idiag, const double *a, const double *b,
                                     double *part);
cudaError_t spk_dev_norm_finish(cudaStream_t s, int m, int parts, const double *part, double *out);

/* The iterative factorization (devfactor_iter.cuh; the host's sweeps of
 * parfactor.h, Jacobi style between v and v1).  F's pattern (rp, ci, dpos),
 * A's values a0 in it, and for ILU(0) F by columns (ucp, urow: rows
 * ascending; upos: each entry's position in F, from spk_dev_iter_index).
 * Rows of F with more than lmin entries are long: chunk holds their nchunk
 * chunks (spk_dev_iter_long).  Work: w (n), part and chg (P =
 * spk_dev_iter_parts(n, group) + nchunk each), ctl (3 ints), res (2).
 * spk_dev_iter_factor queues the initial guess, up to `sweeps` sweeps (a
 * lane group of `group` = 4, 8 or 32 per row that is not long, a thread per
 * entry of a long one) and the pivots' tests: v holds the factor,
 * piv/idiag/flag and fctl[1] (the first bad row) as spk_dev_factor leaves
 * them (fctl[1] = INT_MAX on entry), ctl[0] the sweeps taken and res[1] the
 * relative residual of the last one. */
typedef struct spk_dev_iter {
    int n, nnz, ic, group, lmin, nchunk;
    const int *rp, *ci, *dpos, *ucp, *urow, *upos, *chunk;
    const double *a0;
    double *w, *v, *v1, *piv, *idiag, *part, *res;
    int *chg;
    unsigned char *flag;
    int *ctl, *fctl;
    const int *stop; /* NULL, or a device flag: holding stop_value it ends the sweeps (ctl[2] = 1) */
    int stop_value;
} spk_dev_iter;
int spk_dev_iter_parts(int n, int group);
cudaError_t spk_dev_iter_factor(cudaStream_t s, const spk_dev_iter *it, double alpha, int sweeps, double tol);
/* The long rows' chunks (2 ints each: the row, its first entry), at most
 * spk_dev_iter_chunks(nnz, lmin); cnt (n + 1 ints) ends with their count;
 * temp (temp_bytes from spk_dev_iter_long_temp) is scan workspace. */
int spk_dev_iter_chunks(int nnz, int lmin);
cudaError_t spk_dev_iter_long_temp(int n, size_t *temp_bytes);
cudaError_t spk_dev_iter_long(cudaStream_t s, int n, const int *rp, int lmin, int *cnt, void *temp, size_t temp_bytes,
                              int *chunk);
/* upos from cusparseCsr2cscEx2 of positions: stage 0 writes tmp[q] = q
 * (to transpose as values); stage 1 upos[q] = pos[q] (the transposed ones). */
cudaError_t spk_dev_iter_index(cudaStream_t s, int nnz, double *tmp, const double *pos, int *upos, int stage);

/* A kernel of devfactor.cu, whose module a build may launch first while a
 * race runs alongside (core/cuda_module.h, spk_module_preload). */
const void *spk_devfactor_probe(void);

#ifdef __cplusplus
}
#endif
#endif
