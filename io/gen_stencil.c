/* gen_stencil.c -- model problems assembled row by row from constant-
 * coefficient stencils on N^d grids (lexicographic numbering, x fastest;
 * neighbours outside the grid are dropped, which eliminates the homogeneous
 * Dirichlet boundary): the Poisson, anisotropic and convection-diffusion
 * families. */
#include "io/gen.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "io/gen_util.h"

/* A stencil: offsets (dx, dy, dz) in increasing column order, with values. */
typedef struct gen_stencil {
    int n;
    int d[27][3];
    double v[27];
} gen_stencil;

/* Append offset (dx, dy, dz) with value v to the stencil. */
static void gen_add(gen_stencil *s, int dx, int dy, int dz, double v)
{
    s->d[s->n][0] = dx;
    s->d[s->n][1] = dy;
    s->d[s->n][2] = dz;
    s->v[s->n] = v;
    s->n++;
}

/* The stencil s on an N^dims grid (nz = N in 3D, 1 in 2D): what stencil_emit reads. */
typedef struct stencil_grid {
    const gen_stencil *s;
    int n, nz;
} stencil_grid;

/* Rows r0 .. r1-1 of the stencil's matrix (a gen_emit_fn): the neighbours of each grid point
 * that lie inside, in the stencil's order. */
static long long stencil_emit(const void *ctx, int r0, int r1, spk_csr *T)
{
    const stencil_grid *g = ctx;
    const gen_stencil *s = g->s;
    const int n = g->n, nz = g->nz;
    const long long plane = (long long)n * n;
    int x = r0 % n, y = (int)((r0 / n) % n), z = (int)(r0 / plane);
    long long pos = 0;
    for (int r = r0; r < r1; r++) {
        for (int t = 0; t < s->n; t++) {
            int xx = x + s->d[t][0], yy = y + s->d[t][1], zz = z + s->d[t][2];
            if (xx < 0 || xx >= n || yy < 0 || yy >= n || zz < 0 || zz >= nz) continue;
            if (T) {
                T->colind[pos] = (int)(xx + (long long)n * yy + plane * zz);
                T->val[pos] = s->v[t];
            }
            pos++;
        }
        if (T) T->rowptr[r - r0 + 1] = (int)pos;
        else if (pos > INT_MAX) break;
        if (++x < n) continue;
        x = 0;
        if (++y < n) continue;
        y = 0;
        z++;
    }
    return pos;
}

/* A = rows rg of the stencil s applied on an n^dims grid (dims 2 or 3); name is used in
 * messages.  Columns come out sorted because s lists offsets in (dz, dy, dx) order, i.e. by
 * increasing column offset dx + n*dy + n^2*dz. */
static int gen_assemble(const char *name, int n, int dims, const gen_stencil *s, gen_range rg, spk_csr *A,
                        spk_err *e)
{
    long long rows = 1, nnz = 0;
    if (!A) return spk_err_set(e, SPK_ERR_INVALID_ARG, "%s: A is NULL", name);
    if (n < 1) return spk_err_set(e, SPK_ERR_INVALID_ARG, "%s: N must be >= 1 (got %d)", name, n);
    for (int k = 0; k < dims; k++) {
        rows *= n;
        if (rows >= INT_MAX)
            return spk_err_set(e, SPK_ERR_INVALID_ARG,
                               "%s with N = %d: %d^%d rows exceeds 32-bit index limits", name, n, n,
                               dims);
    }
    /* entries of offset (dx,dy,dz): grid points whose neighbour lies inside */
    for (int t = 0; rg.whole && t < s->n; t++) {
        long long c = 1;
        for (int k = 0; k < 3; k++) {
            int ext = k < dims ? n : 1, dk = abs(s->d[t][k]);
            c *= ext > dk ? ext - dk : 0;
        }
        nnz += c;
    }
    if (nnz > INT_MAX)
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "%s with N = %d: %lld entries exceeds 32-bit index limits", name, n,
                           nnz);
    const stencil_grid g = {s, n, dims == 3 ? n : 1};
    return gen_emit(name, n, (int)rows, nnz, rg, stencil_emit, &g, A, e);
}

/* 2D Laplacian, 5-point: 4 u_ij - u_(i-1)j - u_(i+1)j - u_i(j-1) - u_i(j+1). */
static void poisson2d5(gen_stencil *s)
{
    gen_add(s, 0, -1, 0, -1.0);
    gen_add(s, -1, 0, 0, -1.0);
    gen_add(s, 0, 0, 0, 4.0);
    gen_add(s, 1, 0, 0, -1.0);
    gen_add(s, 0, 1, 0, -1.0);
}

/* 3D Laplacian, 7-point: 6 on the diagonal, -1 for the six face neighbours. */
static void poisson3d7(gen_stencil *s)
{
    gen_add(s, 0, 0, -1, -1.0);
    gen_add(s, 0, -1, 0, -1.0);
    gen_add(s, -1, 0, 0, -1.0);
    gen_add(s, 0, 0, 0, 6.0);
    gen_add(s, 1, 0, 0, -1.0);
    gen_add(s, 0, 1, 0, -1.0);
    gen_add(s, 0, 0, 1, -1.0);
}

/* 3D 27-point stencil: 26 on the diagonal, -1 for each of the 26 neighbours. */
static void poisson3d27(gen_stencil *s)
{
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) gen_add(s, dx, dy, dz, (dx || dy || dz) ? -1.0 : 26.0);
}

/* -lap(u) + w . grad(u) on dims (2 or 3) axes, w = (W, W/2, W/4) cut to
 * them, h = 1/(N+1), scaled by h^2, with first-order upwinding: along axis d
 * the upstream neighbour gets -1 - h|w_d|, the downstream one -1, and the
 * diagonal 2 dims + h * sum |w_d|, so every row sums to the eliminated
 * boundary couplings (an M-matrix, nonsymmetric for W != 0).  convdiff2d-5
 * (w = (W, W/2)) is convection-dominated for W h > 2. */
static int upwind(const char *name, int n, int dims, double w, gen_stencil *s, spk_err *e)
{
    if (!isfinite(w)) return spk_err_set(e, SPK_ERR_INVALID_ARG, "%s: the velocity W must be finite", name);
    const double h = 1.0 / ((double)n + 1.0);
    const double wd[3] = {w, w / 2, w / 4};
    double diag = 2.0 * dims;
    for (int k = 0; k < dims; k++) diag += h * fabs(wd[k]);
    for (int k = dims - 1; k >= 0; k--) /* the upstream neighbour of axis k, for w_k > 0 */
        gen_add(s, k == 0 ? -1 : 0, k == 1 ? -1 : 0, k == 2 ? -1 : 0, -1.0 - (wd[k] > 0 ? h * wd[k] : 0.0));
    gen_add(s, 0, 0, 0, diag);
    for (int k = 0; k < dims; k++) /* ... and for w_k < 0 */
        gen_add(s, k == 0, k == 1, k == 2, -1.0 - (wd[k] < 0 ? -h * wd[k] : 0.0));
    return SPK_OK;
}

/* -div(K grad u) with K = R diag(1, eps) R^T, R the rotation by theta, scaled
 * by h^2: kxx = cos^2 + eps sin^2, kyy = sin^2 + eps cos^2, kxy = (1 - eps)
 * cos sin; 9 points, the mixed derivative by central differences (corners
 * -kxy/2 on the NE-SW diagonal, +kxy/2 on NW-SE).  SPD because kxx kyy - kxy^2
 * = eps > 0 makes the stencil's symbol positive off the origin, and a
 * Dirichlet matrix is a principal submatrix of the infinite grid's.  Without
 * mixed term (theta a multiple of 90 degrees) it is the 5-point stencil. */
static int aniso2d(double eps, double theta_deg, gen_stencil *st, spk_err *e)
{
    if (!(eps > 0) || !isfinite(eps))
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "aniso2d: EPS must be a finite number > 0 (got %g)", eps);
    if (!isfinite(theta_deg))
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "aniso2d: THETA must be a finite angle in degrees");
    const double t = theta_deg * (3.14159265358979323846 / 180.0), c = cos(t), s = sin(t);
    const double kxx = c * c + eps * s * s, kyy = s * s + eps * c * c;
    double kxy = (1.0 - eps) * c * s;
    if (fabs(kxy) <= 1e-12 * (kxx + kyy)) kxy = 0.0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            double v;
            if (dx && dy) {
                if (kxy == 0.0) continue;
                v = dx * dy > 0 ? -kxy / 2 : kxy / 2;
            } else if (dx) {
                v = -kxx;
            } else if (dy) {
                v = -kyy;
            } else {
                v = 2 * kxx + 2 * kyy;
            }
            gen_add(st, dx, dy, 0, v);
        }
    return SPK_OK;
}

/* -u_xx - u_yy - eps u_zz, 7-point, scaled by h^2: SPD, hard for small eps. */
static int aniso3d(double eps, gen_stencil *s, spk_err *e)
{
    if (!(eps > 0) || !isfinite(eps))
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "aniso3d: EPS must be a finite number > 0 (got %g)", eps);
    gen_add(s, 0, 0, -1, -eps);
    gen_add(s, 0, -1, 0, -1.0);
    gen_add(s, -1, 0, 0, -1.0);
    gen_add(s, 0, 0, 0, 4.0 + 2.0 * eps);
    gen_add(s, 1, 0, 0, -1.0);
    gen_add(s, 0, 1, 0, -1.0);
    gen_add(s, 0, 0, 1, -eps);
    return SPK_OK;
}

/* The stencil of kind, then its rows rg: the one path of the whole matrices below and of
 * spk_gen_spec_rows. */
int gen_stencil_rows(int kind, int n, const double *v, gen_range rg, spk_csr *A, spk_err *e)
{
    static const char *const names[] = {"poisson2d-5",  "poisson3d-7", "poisson3d-27", "convdiff3d-7",
                                        "convdiff2d-5", "aniso2d",     "aniso3d"};
    static const int dims[] = {2, 3, 3, 3, 2, 2, 3};
    if (kind < GEN_P2 || kind > GEN_AN3)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "gen_stencil_rows: %d is not a stencil family", kind);
    gen_stencil s = {0};
    int st = SPK_OK;
    switch (kind) {
    case GEN_P2: poisson2d5(&s); break;
    case GEN_P3: poisson3d7(&s); break;
    case GEN_P27: poisson3d27(&s); break;
    case GEN_CD3:
    case GEN_CD2: st = upwind(names[kind], n, dims[kind], v[0], &s, e); break;
    case GEN_AN2: st = aniso2d(v[0], v[1], &s, e); break;
    default: st = aniso3d(v[0], &s, e); break;
    }
    return st ? st : gen_assemble(names[kind], n, dims[kind], &s, rg, A, e);
}

int spk_gen_poisson2d5(int n, spk_csr *A, spk_err *e)
{
    return gen_stencil_rows(GEN_P2, n, NULL, GEN_WHOLE, A, e);
}

int spk_gen_poisson3d7(int n, spk_csr *A, spk_err *e)
{
    return gen_stencil_rows(GEN_P3, n, NULL, GEN_WHOLE, A, e);
}

int spk_gen_poisson3d27(int n, spk_csr *A, spk_err *e)
{
    return gen_stencil_rows(GEN_P27, n, NULL, GEN_WHOLE, A, e);
}

int spk_gen_convdiff3d7(int n, double w, spk_csr *A, spk_err *e)
{
    const double v[2] = {w, 0};
    return gen_stencil_rows(GEN_CD3, n, v, GEN_WHOLE, A, e);
}

int spk_gen_convdiff2d5(int n, double w, spk_csr *A, spk_err *e)
{
    const double v[2] = {w, 0};
    return gen_stencil_rows(GEN_CD2, n, v, GEN_WHOLE, A, e);
}

int spk_gen_aniso2d(int n, double eps, double theta_deg, spk_csr *A, spk_err *e)
{
    const double v[2] = {eps, theta_deg};
    return gen_stencil_rows(GEN_AN2, n, v, GEN_WHOLE, A, e);
}

int spk_gen_aniso3d(int n, double eps, spk_csr *A, spk_err *e)
{
    const double v[2] = {eps, 0};
    return gen_stencil_rows(GEN_AN3, n, v, GEN_WHOLE, A, e);
}
