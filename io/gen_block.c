/* gen_block.c -- block-structured model problems: 3-D linear elasticity
 * (3 x 3 blocks) and a 2-D saddle-point system. */
#include "io/gen.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "io/gen_util.h"

/* The 3 x 3 block of node offset d (each in {-1, 0, 1}) of
 *   K = kron(L27, I3) / 13 + c * G,   c = 1 / (1 - 2 nu),
 * L27 the 27-point Laplacian (26, -1) and G = D^T D, D the divergence at
 * the centre of every grid cell of the trilinear element: div_cell u =
 * (1/2) sum over its 8 corners of s . u, s = 2 t - 1 the corner's sign
 * vector (t in {0,1}^3).  So G(d)_pq = (1/4) sum over corners t with t + d
 * also a corner of s(t)_p s(t + d)_q; kron(L27, I3) is SPD, G PSD, K SPD. */
static void elastic_block(const int d[3], double c, double blk[3][3])
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
    const double l = (d[0] || d[1] || d[2]) ? -1.0 / 13.0 : 2.0;
    for (int p = 0; p < 3; p++) blk[p][p] += l;
}

/* N^3 nodes (Dirichlet boundary eliminated), 3 unknowns per node numbered
 * node-major; full 3 x 3 blocks between 27-point neighbours (81 entries in
 * an interior row; couplings that vanish by symmetry are stored as zeros,
 * as finite-element assembly does). */
int spk_gen_elasticity3d(int n, double nu, spk_csr *A, spk_err *e)
{
    if (!A) return spk_err_set(e, SPK_ERR_INVALID_ARG, "elasticity3d: A is NULL");
    if (n < 1) return spk_err_set(e, SPK_ERR_INVALID_ARG, "elasticity3d: N must be >= 1 (got %d)", n);
    if (!(nu >= 0.0) || !(nu < 0.5))
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "elasticity3d: NU must be in [0, 0.5) (got %g)", nu);
    const long long n3 = (long long)n * n * n, m = n > 1 ? n - 1 : 0;
    /* node pairs: per axis n + 2 (n - 1) */
    const long long per = n + 2 * m, pairs = per * per * per;
    SPK_TRY(gen_check_size("elasticity3d", n, 3 * n3, 9 * pairs, e));
    SPK_TRY(spk_csr_alloc(A, (int)(3 * n3), (int)(3 * n3), (int)(9 * pairs), e));
    double blk[27][3][3];
    int off[27][3], nb = 0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++, nb++) {
                off[nb][0] = dx;
                off[nb][1] = dy;
                off[nb][2] = dz;
                elastic_block(off[nb], 1.0 / (1.0 - 2.0 * nu), blk[nb]);
            }
    int q = 0, r = 0;
    for (int z = 0; z < n; z++)
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++)
                for (int p = 0; p < 3; p++, r++) {
                    for (int t = 0; t < 27; t++) {
                        const int xx = x + off[t][0], yy = y + off[t][1], zz = z + off[t][2];
                        if (xx < 0 || xx >= n || yy < 0 || yy >= n || zz < 0 || zz >= n) continue;
                        const long long node = xx + (long long)n * (yy + (long long)n * zz);
                        for (int c = 0; c < 3; c++, q++) {
                            A->colind[q] = (int)(3 * node + c);
                            A->val[q] = blk[t][p][c];
                        }
                    }
                    A->rowptr[r + 1] = q;
                }
    return SPK_OK;
}

/* [[A, B^T], [B, -C]]: A the 5-point Laplacian (4, -1) on N x N nodes, one
 * unknown p per 2 x 2 patch of nodes ((N/2)^2 of them), B the patch's
 * difference operator (h/2) (du/dx + du/dy / 2) on its 4 nodes, C = 1e-2 h^2
 * on the diagonal.  The patches are disjoint, so B has full row rank and
 * the matrix is nonsingular, symmetric, with N^2 positive and (N/2)^2
 * negative eigenvalues. */
int spk_gen_saddle(int n, spk_csr *A, spk_err *e)
{
    if (!A) return spk_err_set(e, SPK_ERR_INVALID_ARG, "saddle: A is NULL");
    if (n < 2) return spk_err_set(e, SPK_ERR_INVALID_ARG, "saddle: N must be >= 2 (got %d)", n);
    const long long nu = (long long)n * n, half = n / 2, np = half * half;
    const long long nnz5 = 5 * nu - 4LL * n;
    SPK_TRY(gen_check_size("saddle", n, nu + np, nnz5 + 9 * np, e));
    SPK_TRY(spk_csr_alloc(A, (int)(nu + np), (int)(nu + np), (int)(nnz5 + 9 * np), e));
    const double h = 1.0 / (n + 1.0), cst = 1e-2 * h * h;
    const double wt[4] = {-1.5 * h / 2, 0.5 * h / 2, -0.5 * h / 2, 1.5 * h / 2}; /* (0,0) (1,0) (0,1) (1,1) */
    int q = 0, r = 0;
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++, r++) {
            const int i = (int)(x + (long long)n * y);
            const int col[5] = {i - n, i - 1, i, i + 1, i + n};
            const int in[5] = {y > 0, x > 0, 1, x < n - 1, y < n - 1};
            for (int t = 0; t < 5; t++)
                if (in[t]) {
                    A->colind[q] = col[t];
                    A->val[q++] = t == 2 ? 4.0 : -1.0;
                }
            if (x < 2 * half && y < 2 * half) {
                A->colind[q] = (int)(nu + (y / 2) * half + x / 2);
                A->val[q++] = wt[(x & 1) + 2 * (y & 1)];
            }
            A->rowptr[r + 1] = q;
        }
    for (int py = 0; py < half; py++)
        for (int px = 0; px < half; px++, r++) {
            const int i0 = (int)(2 * px + (long long)n * 2 * py);
            const int col[4] = {i0, i0 + 1, i0 + n, i0 + n + 1};
            for (int t = 0; t < 4; t++) {
                A->colind[q] = col[t];
                A->val[q++] = wt[t];
            }
            A->colind[q] = r;
            A->val[q++] = -cst;
            A->rowptr[r + 1] = q;
        }
    return SPK_OK;
}
