/* gen_block.c -- block-structured model problems: 3-D linear elasticity
 * (3 x 3 blocks) and a 2-D saddle-point system; the 27-point block stencil
 * and grad-div blocks that elasticity and the complex curl-curl share. */
#include "io/gen.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/gen_util.h"

/* The 3 x 3 block of node offset d (each in {-1, 0, 1}) of c * G, G = D^T D,
 * D the divergence at the centre of every grid cell of the trilinear
 * element: div_cell u = (1/2) sum over its 8 corners of s . u, s = 2 t - 1
 * the corner's sign vector (t in {0,1}^3).  So G(d)_pq = (1/4) sum over
 * corners t with t + d also a corner of s(t)_p s(t + d)_q; G is PSD. */
void gen_graddiv_block(const int d[3], double c, double blk[3][3])
{
    for (int p = 0; p < 3; p++)
        for (int q = 0; q < 3; q++) blk[p][q] = 0.0;
    for (int t = 0; t < 8; t++) {
        int a[3] = {t & 1, (t >> 1) & 1, (t >> 2) & 1}, b[3], ok = 1;
        for (int k = 0; k < 3; k++) {
            b[k] = a[k] + d[k];
            ok &= b[k] == 0 || b[k] == 1;
        }
        if (!ok) continue;
        for (int p = 0; p < 3; p++)
            for (int q = 0; q < 3; q++) blk[p][q] += c * 0.25 * (2 * a[p] - 1) * (2 * b[q] - 1);
    }
}

/* The 27 node offsets of a block stencil, (dz, dy, dx) order, with their blocks. */
typedef struct block27_ctx {
    int n;
    int off[27][3];
    double blk[27][3][3];
} block27_ctx;

/* Rows r0 .. r1-1 of a block stencil (a gen_emit_fn): row 3 node + p, node = x + N (y + N z),
 * the 3 unknowns of each neighbour inside the grid in turn. */
static long long block27_emit(const void *ctx, int r0, int r1, spk_csr *T)
{
    const block27_ctx *c = ctx;
    const int n = c->n;
    const long long node0 = r0 / 3;
    int p = r0 % 3, x = (int)(node0 % n), y = (int)((node0 / n) % n), z = (int)(node0 / ((long long)n * n));
    long long q = 0;
    for (int r = r0; r < r1; r++) {
        for (int t = 0; t < 27; t++) {
            const int xx = x + c->off[t][0], yy = y + c->off[t][1], zz = z + c->off[t][2];
            if (xx < 0 || xx >= n || yy < 0 || yy >= n || zz < 0 || zz >= n) continue;
            const long long node = xx + (long long)n * (yy + (long long)n * zz);
            for (int k = 0; k < 3; k++, q++)
                if (T) {
                    T->colind[q] = (int)(3 * node + k);
                    T->val[q] = c->blk[t][p][k];
                }
        }
        if (T) T->rowptr[r - r0 + 1] = (int)q;
        else if (q > INT_MAX) break;
        if (++p < 3) continue;
        p = 0;
        if (++x < n) continue;
        x = 0;
        if (++y < n) continue;
        y = 0;
        z++;
    }
    return q;
}

void gen_block27_offset(int t, int d[3])
{
    d[0] = t % 3 - 1;
    d[1] = t / 3 % 3 - 1;
    d[2] = t / 9 - 1;
}

/* N^3 nodes (Dirichlet boundary eliminated), 3 unknowns per node numbered
 * node-major; full 3 x 3 blocks between 27-point neighbours (81 entries in
 * an interior row; couplings that vanish by symmetry are stored as zeros,
 * as finite-element assembly does). */
int gen_block27_rows(const char *name, int n, const gen_blocks27 *blk, gen_range rg, spk_csr *A, spk_err *e)
{
    if (!A) return spk_err_set(e, SPK_ERR_INVALID_ARG, "%s: A is NULL", name);
    if (n < 1) return spk_err_set(e, SPK_ERR_INVALID_ARG, "%s: N must be >= 1 (got %d)", name, n);
    if (n > 1000000) /* 3 N^3 would pass 64 bits */
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "%s:%d: its 3 N^3 rows exceed 32-bit index limits; take a smaller N", name, n);
    const long long n3 = (long long)n * n * n, m = n > 1 ? n - 1 : 0;
    /* node pairs: per axis n + 2 (n - 1); counted only where the rows fit (no overflow) */
    const long long per = n + 2 * m, pairs = 3 * n3 < INT_MAX ? per * per * per : 0;
    SPK_TRY(gen_check_size(name, n, 3 * n3, rg.whole ? 9 * pairs : 0, e));
    block27_ctx c = {.n = n};
    for (int t = 0; t < 27; t++) gen_block27_offset(t, c.off[t]);
    memcpy(c.blk, blk->b, sizeof c.blk);
    return gen_emit(name, n, (int)(3 * n3), 9 * pairs, rg, block27_emit, &c, A, e);
}

/* Elasticity's blocks: K = kron(L27, I3) / 13 + c * G, c = 1 / (1 - 2 nu), L27 the 27-point
 * Laplacian (26, -1); kron(L27, I3) is SPD, G PSD, K SPD. */
int gen_elasticity3d_rows(int n, double nu, gen_range rg, spk_csr *A, spk_err *e)
{
    if (!A) return spk_err_set(e, SPK_ERR_INVALID_ARG, "elasticity3d: A is NULL");
    if (n < 1) return spk_err_set(e, SPK_ERR_INVALID_ARG, "elasticity3d: N must be >= 1 (got %d)", n);
    if (!(nu >= 0.0) || !(nu < 0.5))
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "elasticity3d: NU must be in [0, 0.5) (got %g)", nu);
    gen_blocks27 blk;
    for (int t = 0; t < 27; t++) {
        int d[3];
        gen_block27_offset(t, d);
        gen_graddiv_block(d, 1.0 / (1.0 - 2.0 * nu), blk.b[t]);
        const double l = t != 13 ? -1.0 / 13.0 : 2.0;
        for (int p = 0; p < 3; p++) blk.b[t][p][p] += l;
    }
    return gen_block27_rows("elasticity3d", n, &blk, rg, A, e);
}

int spk_gen_elasticity3d(int n, double nu, spk_csr *A, spk_err *e)
{
    return gen_elasticity3d_rows(n, nu, GEN_WHOLE, A, e);
}

/* The saddle's N and its pressure weights. */
typedef struct saddle_ctx {
    int n, half;
    double cst, wt[4];
} saddle_ctx;

/* Append column col with value v at position *q of T (only count it when T is NULL). */
static void saddle_put(spk_csr *T, long long *q, int col, double v)
{
    if (T) {
        T->colind[*q] = col;
        T->val[*q] = v;
    }
    (*q)++;
}

/* Rows r0 .. r1-1 of the saddle (a gen_emit_fn): N^2 velocity rows (5-point Laplacian and the
 * patch's B^T entry), then (N/2)^2 rows of B and -C. */
static long long saddle_emit(const void *ctx, int r0, int r1, spk_csr *T)
{
    const saddle_ctx *c = ctx;
    const int n = c->n, half = c->half;
    const long long nu = (long long)n * n;
    long long q = 0;
    for (int r = r0; r < r1; r++) {
        if (r < nu) {
            const int x = r % n, y = r / n, i = r;
            const int col[5] = {i - n, i - 1, i, i + 1, i + n};
            const int in[5] = {y > 0, x > 0, 1, x < n - 1, y < n - 1};
            for (int t = 0; t < 5; t++)
                if (in[t]) saddle_put(T, &q, col[t], t == 2 ? 4.0 : -1.0);
            if (x < 2 * half && y < 2 * half)
                saddle_put(T, &q, (int)(nu + (y / 2) * half + x / 2), c->wt[(x & 1) + 2 * (y & 1)]);
        } else {
            const int pr = (int)(r - nu), px = pr % half, py = pr / half;
            const int i0 = (int)(2 * px + (long long)n * 2 * py);
            const int col[4] = {i0, i0 + 1, i0 + n, i0 + n + 1};
            for (int t = 0; t < 4; t++) saddle_put(T, &q, col[t], c->wt[t]);
            saddle_put(T, &q, r, -c->cst);
        }
        if (T) T->rowptr[r - r0 + 1] = (int)q;
        else if (q > INT_MAX) break;
    }
    return q;
}

/* [[A, B^T], [B, -C]]: A the 5-point Laplacian (4, -1) on N x N nodes, one
 * unknown p per 2 x 2 patch of nodes ((N/2)^2 of them), B the patch's
 * difference operator (h/2) (du/dx + du/dy / 2) on its 4 nodes, C = 1e-2 h^2
 * on the diagonal.  The patches are disjoint, so B has full row rank and
 * the matrix is nonsingular, symmetric, with N^2 positive and (N/2)^2
 * negative eigenvalues. */
int gen_saddle_rows(int n, gen_range rg, spk_csr *A, spk_err *e)
{
    if (!A) return spk_err_set(e, SPK_ERR_INVALID_ARG, "saddle: A is NULL");
    if (n < 2) return spk_err_set(e, SPK_ERR_INVALID_ARG, "saddle: N must be >= 2 (got %d)", n);
    const long long nu = (long long)n * n, half = n / 2, np = half * half;
    /* 5-point entries, then 4 + 1 per pressure row and its 4 in the velocity rows */
    const long long nnz = nu + np < INT_MAX ? 5 * nu - 4LL * n + 9 * np : 0;
    SPK_TRY(gen_check_size("saddle", n, nu + np, rg.whole ? nnz : 0, e));
    const double h = 1.0 / (n + 1.0);
    const saddle_ctx c = {n, (int)half, 1e-2 * h * h, /* weights of (0,0) (1,0) (0,1) (1,1) */
                          {-1.5 * h / 2, 0.5 * h / 2, -0.5 * h / 2, 1.5 * h / 2}};
    return gen_emit("saddle", n, (int)(nu + np), nnz, rg, saddle_emit, &c, A, e);
}

int spk_gen_saddle(int n, spk_csr *A, spk_err *e)
{
    return gen_saddle_rows(n, GEN_WHOLE, A, e);
}
