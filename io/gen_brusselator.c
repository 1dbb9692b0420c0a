/* gen_brusselator.c -- the Jacobian of the 2-D Brusselator reaction-
 * diffusion model of Bai et al.'s non-Hermitian eigenvalue collection, the
 * "rdb" matrices of SuiteSparse's Bai group:
 *   u_t = Du/L^2 lap u + alpha - (beta + 1) u + u^2 v
 *   v_t = Dv/L^2 lap v + beta u - u^2 v
 * on the unit square, Dirichlet boundary, linearized at the steady state
 * (u, v) = (alpha, beta/alpha); centered differences on N x N interior
 * points, h = 1/(N+1), not scaled by h^2. */
#include "io/gen.h"

#include <limits.h>
#include <math.h>

#include "io/gen_util.h"

/* Only Du/L^2 and Dv/L^2 show in the matrix; these Du, Dv make rdb200,
 * rdb1250 and rdb2048 L = 0.5 and rdb800l L = 1. */
#define BRU_DU 0.004
#define BRU_DV 0.008
#define BRU_ALPHA 2.0
#define BRU_BETA 5.45

/* The Brusselator's N and coefficients: t1, t2 the diffusion couplings, du, dv the diagonals. */
typedef struct bru_ctx {
    int n;
    double t1, t2, du, dv;
} bru_ctx;

/* Append column c with value v to row position *pos of T (only count it when T is NULL). */
static void bru_put(spk_csr *T, long long *pos, long long c, double v)
{
    if (T) {
        T->colind[*pos] = (int)c;
        T->val[*pos] = v;
    }
    (*pos)++;
}

/* Rows r0 .. r1-1 (a gen_emit_fn).  Unknowns interleaved per node, node k = x + N y (x fastest):
 * row 2k is u, row 2k+1 is v.  Columns within a row come out in increasing order. */
static long long bru_emit(const void *ctx, int r0, int r1, spk_csr *T)
{
    const bru_ctx *c = ctx;
    const int n = c->n;
    long long pos = 0;
    for (int r = r0; r < r1; r++) {
        const long long k = r / 2;
        const int s = r % 2, x = (int)(k % n), y = (int)(k / n); /* s = 0: u, 1: v */
        const double t = s ? c->t2 : c->t1;
        if (y > 0) bru_put(T, &pos, 2 * (k - n) + s, t);
        if (x > 0) bru_put(T, &pos, 2 * (k - 1) + s, t);
        bru_put(T, &pos, 2 * k, s ? -BRU_BETA : c->du);
        bru_put(T, &pos, 2 * k + 1, s ? c->dv : BRU_ALPHA * BRU_ALPHA);
        if (x < n - 1) bru_put(T, &pos, 2 * (k + 1) + s, t);
        if (y < n - 1) bru_put(T, &pos, 2 * (k + n) + s, t);
        if (T) T->rowptr[r - r0 + 1] = (int)pos;
        else if (pos > INT_MAX) break;
    }
    return pos;
}

/* Blocks [[t1 T + (beta-1) I, alpha^2 I], [-beta I, t2 T - alpha^2 I]] on the interleaved
 * unknowns, T the 5-point Laplacian (-4, 1), t = D (N+1)^2 / L^2; rows rg of it. */
int gen_brusselator_rows(int n, double len, gen_range rg, spk_csr *A, spk_err *e)
{
    if (!A) return spk_err_set(e, SPK_ERR_INVALID_ARG, "brusselator: A is NULL");
    if (n < 1) return spk_err_set(e, SPK_ERR_INVALID_ARG, "brusselator: N must be >= 1 (got %d)", n);
    if (!(len > 0) || !isfinite(len))
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "brusselator: L must be a finite number > 0 (got %g)", len);
    const double m = (double)n + 1.0;
    const double t1 = BRU_DU * m * m / (len * len), t2 = BRU_DV * m * m / (len * len);
    const bru_ctx c = {n, t1, t2, (BRU_BETA - 1.0) - 4.0 * t1, -BRU_ALPHA * BRU_ALPHA - 4.0 * t2};
    if (!isfinite(c.du) || !isfinite(c.dv))
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "brusselator:%d:%g: the diffusion terms D/(h L)^2 overflow; take a larger L", n, len);
    /* rows 2 N^2; entries 2 (5 N^2 - 4 N) diffusion + 2 N^2 coupling */
    const long long rows = 2LL * n * n, nnz = rows < 2147483647LL ? 12LL * n * n - 8LL * n : 0;
    SPK_TRY(gen_check_size("brusselator", n, rows, rg.whole ? nnz : 0, e));
    return gen_emit("brusselator", n, (int)rows, nnz, rg, bru_emit, &c, A, e);
}

int spk_gen_brusselator(int n, double len, spk_csr *A, spk_err *e)
{
    return gen_brusselator_rows(n, len, GEN_WHOLE, A, e);
}
