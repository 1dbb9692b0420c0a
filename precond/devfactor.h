/* devfactor.h -- kernels of the device-resident IC(0) and ILU(0)
 * (devfactor.c): the working pattern built from A's CSR arrays in device
 * memory, the numeric factorization without a host pass, and the Jacobi
 * sweeps that replace the triangular solves.  Each launcher enqueues on the
 * stream given and returns the launch status.
 *
 * The working pattern F is the one of the host factor (factor.h): A with
 * every diagonal entry present (an inserted one is 0), only its lower
 * triangle for IC(0), whose diagonal is then the last entry of each row.
 *
 * The factorization is synchronization-free: a group of lanes (group: 4 or
 * 8 of one warp) takes the next row by an atomic ticket, waits for each row its row depends on (done[j] != 0, read
 * with acquire semantics), and publishes its own with release semantics.
 * Tickets are handed out in row order to warps that are running, and a row
 * only waits for rows with smaller numbers, so every wait ends.  A bad pivot
 * (the host's test, factor.h) sets flag[i] (1: pivot, 2: a non-finite entry
 * with a finite pivot), piv[i], and *failrow = min(*failrow, i); the row is
 * still published, so the rows after it finish too. */
#ifndef SPK_PRECOND_DEVFACTOR_H
#define SPK_PRECOND_DEVFACTOR_H

#include <stddef.h>

#include <cuda_runtime_api.h>

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
/* Factorize F's values in place for A + alpha*diag(A) (ic: IC(0), else
 * ILU(0)); done[n], flag[n] and *ticket must be 0 and *failrow above n - 1
 * on entry.  idiag[i] = 1 / pivot (ILU(0): 1/u_ii; IC(0): 1/l_ii). */
cudaError_t spk_dev_factor(cudaStream_t s, int n, int ic, int group, const int *frp, const int *fci, const int *dpos,
                           double *fval, double alpha, int *done, int *ticket, double *piv, double *idiag,
                           unsigned char *flag, int *failrow);
/* out[i] = d_i (b[i] - sum_k val[k] x[col[k]]) over positions [beg[i] + boff,
 * end[i] + eoff) of row i, with d_i = idiag[i] (1 when idiag is NULL) and,
 * when x is NULL, x = D^-1 b (the sweeps' starting point).  threads: 1, 2,
 * 4, 8, 16 or 32 per row.  out must not be b or x. */
cudaError_t spk_dev_sweep(cudaStream_t s, int n, int threads, const int *beg, int boff, const int *end, int eoff,
                          const int *col, const double *val, const double *idiag, const double *b,
                          const double *x, double *out);
/* |x[i]| in [0.5, 1.5) with a sign, both a fixed hash of i (a probe vector
 * with the rough components of a residual, not only smooth ones). */
cudaError_t spk_dev_probe(cudaStream_t s, int n, double *x);

#ifdef __cplusplus
}
#endif
#endif
