/* ilu0.c -- ILU(0) on the host: A ~ L U with no fill.
 *
 * L (unit lower, strictly below the diagonal) and U (upper, diagonal
 * included) overwrite the values of the working pattern P = A with every
 * diagonal entry present (factor.h).  Row-wise IKJ elimination:
 *   for i: for each k < i in row i (ascending): l_ik = a_ik / u_kk,
 *          a_ij -= l_ik * u_kj for every j > k with (i,j) in P.
 * A pivot is bad when |u_ii| <= 1e-14 * max_j |a_ij| (row i of the possibly
 * shifted input) or u_ii is not finite.  Cost: sum over the entries (i,k) of
 * L of the length of U's row k; a dense marker maps columns to positions. */
#include <math.h>
#include <stdlib.h>

#include "factor.h"

#define ILU0_PIVOT_RTOL 1e-14

/* P's values (A's on entry) <- L\U of A + alpha*diag(A); 0, or 1 with the failing row. */
static int ilu0_numeric(spk_factor *f, double alpha, spk_factor_fail *fail)
{
    const int n = f->n, *rp = f->F.rowptr, *ci = f->F.colind, *dg = f->diag;
    double *lu = f->F.val, *idiag = f->idiag;
    int *mark = f->mark;
    for (int i = 0; i < n; i++) {
        const int b = rp[i], t = rp[i + 1], d = dg[i];
        double rowmax = 0;
        lu[d] *= 1.0 + alpha;
        for (int k = b; k < t; k++) {
            rowmax = fmax(rowmax, fabs(lu[k]));
            mark[ci[k]] = k;
        }
        for (int k = b; k < d; k++) {
            const int j = ci[k], ej = rp[j + 1];
            const double l = lu[k] / lu[dg[j]];
            lu[k] = l;
            for (int q = dg[j] + 1; q < ej; q++) {
                int m = mark[ci[q]];
                if (m >= 0) lu[m] -= l * lu[q];
            }
        }
        int finite = 1;
        for (int k = b; k < t; k++) {
            mark[ci[k]] = -1;
            finite &= isfinite(lu[k]) != 0;
        }
        const double piv = lu[d];
        if (!(fabs(piv) > ILU0_PIVOT_RTOL * rowmax) || !finite) {
            fail->row = i;
            fail->pivot = piv;
            fail->overflow = isfinite(piv) && !finite;
            return -1;
        }
        idiag[i] = 1.0 / piv;
    }
    return 0;
}

/* Is u_ii = 0 for every alpha?  Yes when a_ii = 0 and no (k,i) with k < i in
 * row i's L part lies in U's row k, i.e. no elimination step reaches (i,i). */
int spk_ilu0_hopeless(const spk_factor *f, int i)
{
    const int *rp = f->F.rowptr, *ci = f->F.colind, *dg = f->diag;
    if (f->adiag[i] != 0) return 0;
    for (int p = rp[i]; p < dg[i]; p++) {
        int k = ci[p], lo = dg[k] + 1, hi = rp[k + 1] - 1;
        while (lo <= hi) {
            int mid = lo + (hi - lo) / 2;
            if (ci[mid] == i) return 0;
            if (ci[mid] < i)
                lo = mid + 1;
            else
                hi = mid - 1;
        }
    }
    return 1;
}

const spk_factor_kind spk_ilu0_kind = {
    "ILU(0)", "zero pivot u_ii", 0, ilu0_numeric, spk_ilu0_hopeless, 0, NULL, NULL, 0,
};

/* Symbolic setup (pattern, buffers) and the first numeric factorization. */
static int ilu0_create(spk_exec *e, const spk_csr *A, const spk_precond_opts *o, void **impl)
{
    return spk_factor_create(e, A, o, &spk_ilu0_kind, impl);
}

/* z = U^-1 L^-1 r on one thread: forward substitution with unit L, then
 * backward with U (traffic: the factor once, 12 bytes per entry, plus about
 * 40 bytes per row). */
static void ilu0_solve(const spk_factor *f, const double *r, double *z)
{
    const spk_csr *F = &f->F;
    spk_factor_lower_solve(f->n, F->rowptr, 0, f->diag, 0, F->colind, F->val, NULL, r, z);
    spk_factor_upper_solve(f->n, f->diag, 1, F->rowptr + 1, 0, F->colind, F->val, f->idiag, z, z);
}

static int ilu0_apply(void *impl, const double *r, double *z)
{
    spk_factor *f = impl;
    SPK_TRY(spk_factor_check_apply(f, r, z));
    return spk_factor_solve_levels(f, r, z, ilu0_solve);
}

const struct spk_precond_ops spk_precond_ilu0_host = {
    "ilu0", "host", ilu0_create, ilu0_apply, spk_factor_refactor, spk_factor_destroy, spk_factor_shift,
    NULL, NULL, NULL, NULL, NULL, spk_factor_info_of,
};
