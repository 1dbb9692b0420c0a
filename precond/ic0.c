/* ic0.c -- IC(0) on the host: A ~ L L^T with L in the lower pattern of A.
 *
 * Only the lower triangle of A (diagonal included) is read: A is taken to be
 * symmetric.  Row-wise (up-looking) no-fill Cholesky on P = lower(A) with
 * every diagonal entry present (factor.h):
 *   l_ij = (a_ij - sum_{k<j} l_ik l_jk) / l_jj   for (i,j) in P, j < i,
 *   d_i  = a_ii - sum_{k<i} l_ik^2,   l_ii = sqrt(d_i),
 * where the sums run over the common pattern of rows i and j (a dense marker
 * maps row i's columns to positions).  A pivot is bad when d_i is not finite
 * or d_i <= 1e-14 * |a_ii| (a_ii of the possibly shifted input).
 * apply solves with L by rows and with L^T by columns of L (a scatter from
 * the last row up), so no transpose is stored; its traffic is L read twice
 * (2 x 12 bytes per entry of L) plus about 40 bytes per row for r, z, 1/l_ii
 * and the row pointers. */
#include <math.h>
#include <stdlib.h>

#include "factor.h"

#define IC0_PIVOT_RTOL 1e-14

/* P's values (A's on entry) <- L of A + alpha*diag(A); 0, or 1 with the failing row. */
static int ic0_numeric(spk_factor *f, double alpha, spk_factor_fail *fail)
{
    const int n = f->n, *rp = f->F.rowptr, *ci = f->F.colind;
    double *l = f->F.val, *idiag = f->idiag;
    int *mark = f->mark;
    for (int i = 0; i < n; i++) {
        const int b = rp[i], d = rp[i + 1] - 1; /* the diagonal is the last entry */
        for (int k = b; k < d; k++) mark[ci[k]] = k;
        const double aii = l[d] * (1.0 + alpha);
        double di = aii;
        for (int k = b; k < d; k++) {
            const int j = ci[k], dj = rp[j + 1] - 1;
            double v = l[k];
            for (int q = rp[j]; q < dj; q++) {
                int m = mark[ci[q]];
                if (m >= 0) v -= l[m] * l[q];
            }
            v /= l[dj];
            l[k] = v;
            di -= v * v;
        }
        for (int k = b; k < d; k++) mark[ci[k]] = -1;
        if (!(di > IC0_PIVOT_RTOL * fabs(aii)) || !isfinite(di)) {
            fail->row = i;
            fail->pivot = di;
            fail->overflow = 0;
            return -1;
        }
        l[d] = sqrt(di);
        idiag[i] = 1.0 / l[d];
    }
    return 0;
}

/* d_i = a_ii(1+alpha) - sum l_ik^2 <= 0 for every alpha when a_ii <= 0. */
int spk_ic0_hopeless(const spk_factor *f, int i)
{
    return f->adiag[i] <= 0;
}

const spk_factor_kind spk_ic0_kind = {
    "IC(0)", "non-positive pivot d_i", 1, ic0_numeric, spk_ic0_hopeless, 0, NULL, NULL, 0,
};

/* Symbolic setup (pattern, buffers) and the first numeric factorization. */
static int ic0_create(spk_exec *e, const spk_csr *A, const spk_precond_opts *o, void **impl)
{
    return spk_factor_create(e, A, o, &spk_ic0_kind, impl);
}

/* z = L^-T L^-1 r on one thread: forward substitution by rows of L, backward by its columns. */
static void ic0_solve(const spk_factor *f, const double *r, double *z)
{
    const spk_csr *L = &f->F;
    spk_factor_lower_solve(f->n, L->rowptr, 0, L->rowptr + 1, -1, L->colind, L->val, f->idiag, r, z);
    spk_factor_lower_trans_solve(f->n, L->rowptr, L->colind, L->val, f->idiag, z);
}

static int ic0_apply(void *impl, const double *r, double *z)
{
    spk_factor *f = impl;
    SPK_TRY(spk_factor_check_apply(f, r, z));
    return spk_factor_solve_levels(f, r, z, ic0_solve);
}

const struct spk_precond_ops spk_precond_ic0_host = {
    "ic0", "host", ic0_create, ic0_apply, spk_factor_refactor, spk_factor_destroy, spk_factor_shift,
    NULL, NULL, NULL, NULL, NULL, spk_factor_info_of,
};
