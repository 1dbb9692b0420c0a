/* gen.c -- model problems as canonical CSR, assembled row by row from
 * constant-coefficient stencils on N^d grids (lexicographic numbering, x
 * fastest; neighbours outside the grid are dropped, which eliminates the
 * homogeneous Dirichlet boundary). */
#include "io/gen.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* A = the stencil s applied on an n^dims grid (dims 2 or 3); name is used in
 * messages.  Columns come out sorted because s lists offsets in (dz, dy, dx)
 * order, i.e. by increasing column offset dx + n*dy + n^2*dz. */
static int gen_assemble(const char *name, int n, int dims, const gen_stencil *s, spk_csr *A,
                        spk_err *e)
{
    spk_csr T = {0};
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
    for (int t = 0; t < s->n; t++) {
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
    SPK_TRY(spk_csr_alloc(&T, (int)rows, (int)rows, (int)nnz, e));
    const int nz = dims == 3 ? n : 1;
    const long long plane = (long long)n * n;
    int pos = 0, r = 0;
    for (int z = 0; z < nz; z++)
        for (int y = 0; y < n; y++)
            for (int x = 0; x < n; x++, r++) {
                for (int t = 0; t < s->n; t++) {
                    int xx = x + s->d[t][0], yy = y + s->d[t][1], zz = z + s->d[t][2];
                    if (xx < 0 || xx >= n || yy < 0 || yy >= n || zz < 0 || zz >= nz) continue;
                    T.colind[pos] = (int)(xx + (long long)n * yy + plane * zz);
                    T.val[pos] = s->v[t];
                    pos++;
                }
                T.rowptr[r + 1] = pos;
            }
    *A = T;
    return SPK_OK;
}

/* 2D Laplacian, 5-point: 4 u_ij - u_(i-1)j - u_(i+1)j - u_i(j-1) - u_i(j+1). */
int spk_gen_poisson2d5(int n, spk_csr *A, spk_err *e)
{
    gen_stencil s = {0};
    gen_add(&s, 0, -1, 0, -1.0);
    gen_add(&s, -1, 0, 0, -1.0);
    gen_add(&s, 0, 0, 0, 4.0);
    gen_add(&s, 1, 0, 0, -1.0);
    gen_add(&s, 0, 1, 0, -1.0);
    return gen_assemble("poisson2d-5", n, 2, &s, A, e);
}

/* 3D Laplacian, 7-point: 6 on the diagonal, -1 for the six face neighbours. */
int spk_gen_poisson3d7(int n, spk_csr *A, spk_err *e)
{
    gen_stencil s = {0};
    gen_add(&s, 0, 0, -1, -1.0);
    gen_add(&s, 0, -1, 0, -1.0);
    gen_add(&s, -1, 0, 0, -1.0);
    gen_add(&s, 0, 0, 0, 6.0);
    gen_add(&s, 1, 0, 0, -1.0);
    gen_add(&s, 0, 1, 0, -1.0);
    gen_add(&s, 0, 0, 1, -1.0);
    return gen_assemble("poisson3d-7", n, 3, &s, A, e);
}

/* 3D 27-point stencil: 26 on the diagonal, -1 for each of the 26 neighbours. */
int spk_gen_poisson3d27(int n, spk_csr *A, spk_err *e)
{
    gen_stencil s = {0};
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
                gen_add(&s, dx, dy, dz, (dx || dy || dz) ? -1.0 : 26.0);
    return gen_assemble("poisson3d-27", n, 3, &s, A, e);
}

/* -lap(u) + w . grad(u), w = (W, W/2, W/4), h = 1/(N+1), scaled by h^2, with
 * first-order upwinding: along axis d the upstream neighbour gets -1 - h|w_d|,
 * the downstream one -1, and the diagonal 6 + h * sum |w_d|, so every row sums
 * to the eliminated boundary couplings (an M-matrix, nonsymmetric for W != 0). */
int spk_gen_convdiff3d7(int n, double w, spk_csr *A, spk_err *e)
{
    gen_stencil s = {0};
    if (!isfinite(w))
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "convdiff3d-7: the velocity W must be finite");
    const double h = 1.0 / ((double)n + 1.0);
    const double wd[3] = {w, w / 2, w / 4};
    double lo[3], hi[3], diag = 6.0;
    for (int k = 0; k < 3; k++) {
        lo[k] = -1.0 - (wd[k] > 0 ? h * wd[k] : 0.0); /* upstream for w_d > 0 */
        hi[k] = -1.0 - (wd[k] < 0 ? -h * wd[k] : 0.0); /* upstream for w_d < 0 */
        diag += h * fabs(wd[k]);
    }
    gen_add(&s, 0, 0, -1, lo[2]);
    gen_add(&s, 0, -1, 0, lo[1]);
    gen_add(&s, -1, 0, 0, lo[0]);
    gen_add(&s, 0, 0, 0, diag);
    gen_add(&s, 1, 0, 0, hi[0]);
    gen_add(&s, 0, 1, 0, hi[1]);
    gen_add(&s, 0, 0, 1, hi[2]);
    return gen_assemble("convdiff3d-7", n, 3, &s, A, e);
}

/* Row lengths with a power-law tail: L = floor(3 u^(-1/(gamma-1))), capped. */
static uint64_t gen_rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double gen_unit(uint64_t *s)
{
    return ((double)(gen_rng(s) >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int spk_gen_powerlaw(int n, double gamma, spk_csr *A, spk_err *e)
{
    if (!(gamma > 1.0) || !isfinite(gamma))
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "powerlaw: the exponent G must be a number > 1 (got %g)", gamma);
    if (n < 1) return spk_err_set(e, SPK_ERR_INVALID_ARG, "powerlaw: N must be >= 1 (got %d)", n);
    if (4LL * n > INT_MAX) /* at least 3 + 1 entries per row */
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "powerlaw:%d: its entries exceed 32-bit index limits", n);
    const int cap = n / 2 > 3 ? n / 2 : (n > 1 ? n - 1 : 0);
    int *len = malloc((size_t)n * sizeof(int));
    if (!len) return spk_err_set(e, SPK_ERR_NOMEM, "out of host memory (powerlaw row lengths)");
    uint64_t seed = 12345;
    long long total = 0;
    for (int i = 0; i < n; i++) {
        double l = 3.0 * pow(gen_unit(&seed), -1.0 / (gamma - 1.0));
        len[i] = l > cap ? cap : (int)l;
        total += len[i] + 1;
    }
    if (total > INT_MAX) {
        free(len);
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "powerlaw:%d: its %lld entries exceed 32-bit index limits", n, total);
    }
    int st = spk_csr_alloc(A, n, n, (int)total, e);
    int *row = st ? NULL : malloc(((size_t)cap + 2) * sizeof(int));
    if (st || !row) {
        free(len);
        spk_csr_free(A);
        return st ? st : spk_err_set(e, SPK_ERR_NOMEM, "out of host memory (powerlaw row)");
    }
    int q = 0;
    A->rowptr[0] = 0;
    for (int i = 0; i < n; i++) {
        int k = 0;
        for (int j = 0; j < len[i]; j++) {
            int c = (int)(gen_rng(&seed) % (uint64_t)n);
            if (c != i) row[k++] = c;
        }
        row[k++] = i;
        qsort(row, (size_t)k, sizeof(int), cmp_int);
        double sum = 0;
        int dpos = -1;
        for (int j = 0; j < k; j++) {
            if (j > 0 && row[j] == row[j - 1]) continue; /* repeated column: once */
            A->colind[q] = row[j];
            if (row[j] == i) {
                dpos = q;
            } else {
                A->val[q] = -(0.1 + 0.9 * gen_unit(&seed));
                sum += -A->val[q];
            }
            q++;
        }
        A->val[dpos] = 1.0 + sum;
        A->rowptr[i + 1] = q;
    }
    A->nnz = q;
    free(row);
    free(len);
    return SPK_OK;
}

/* Case-insensitive equality of the n bytes at a with the literal b. */
static int gen_name_is(const char *a, size_t n, const char *b)
{
    size_t k = 0;
    for (; k < n && b[k]; k++) {
        char x = a[k], y = b[k];
        if (x >= 'A' && x <= 'Z') x = (char)(x - 'A' + 'a');
        if (x != y) return 0;
    }
    return k == n && b[k] == '\0';
}

#define GEN_VALID                                                                                  \
    "valid: poisson2d-5:N, poisson3d-7:N, poisson3d-27:N, convdiff3d-7:N[:W], powerlaw:N[:G]; "     \
    "aliases "                                                                                     \
    "poisson5, poisson7, poisson27, convdiff7"

/* Parse "NAME:N[:W]" and generate the matrix it names. */
int spk_gen_spec(const char *spec, spk_csr *A, spk_err *e)
{
    if (!spec || !A)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_gen_spec: %s is NULL", spec ? "A" : "spec");
    const char *c1 = strchr(spec, ':');
    size_t nlen = c1 ? (size_t)(c1 - spec) : strlen(spec);
    int kind;
    if (gen_name_is(spec, nlen, "poisson2d-5") || gen_name_is(spec, nlen, "poisson5"))
        kind = 0;
    else if (gen_name_is(spec, nlen, "poisson3d-7") || gen_name_is(spec, nlen, "poisson7"))
        kind = 1;
    else if (gen_name_is(spec, nlen, "poisson3d-27") || gen_name_is(spec, nlen, "poisson27"))
        kind = 2;
    else if (gen_name_is(spec, nlen, "convdiff3d-7") || gen_name_is(spec, nlen, "convdiff7"))
        kind = 3;
    else if (gen_name_is(spec, nlen, "powerlaw"))
        kind = 4;
    else
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "unknown generator '%.*s' in '%s' (" GEN_VALID ")",
                           (int)(nlen < 64 ? nlen : 64), spec, spec);
    if (!c1)
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "generator spec '%s' has no size: expected NAME:N (" GEN_VALID ")",
                           spec);
    /* N: decimal digits only, 1 <= N <= INT_MAX */
    const char *p = c1 + 1;
    long long n = 0;
    int digits = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++)
        if (n <= INT_MAX) n = n * 10 + (*p - '0');
    if (!digits || (*p && *p != ':') || n < 1 || n > INT_MAX)
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "bad size in generator spec '%s': N must be an integer from 1 to %d",
                           spec, INT_MAX);
    double w = kind == 4 ? 2.2 : 100.0;
    if (*p == ':') {
        char *q;
        if (kind < 3)
            return spk_err_set(e, SPK_ERR_INVALID_ARG,
                               "generator spec '%s': only convdiff3d-7 (W) and powerlaw (G) take a "
                               "third field",
                               spec);
        w = strtod(p + 1, &q);
        if (q == p + 1 || *q || !isfinite(w) || (kind == 4 && !(w > 1.0)))
            return spk_err_set(e, SPK_ERR_INVALID_ARG,
                               kind == 4 ? "bad exponent in generator spec '%s': G must be a number > 1"
                                         : "bad velocity in generator spec '%s': W must be a finite number",
                               spec);
    }
    int st;
    switch (kind) {
    case 0: st = spk_gen_poisson2d5((int)n, A, e); break;
    case 1: st = spk_gen_poisson3d7((int)n, A, e); break;
    case 2: st = spk_gen_poisson3d27((int)n, A, e); break;
    case 3: st = spk_gen_convdiff3d7((int)n, w, A, e); break;
    default: st = spk_gen_powerlaw((int)n, w, A, e); break;
    }
    return st;
}

/* Help text listing the generators. */
const char *spk_gen_help(void)
{
    return "Generated matrices (NAME:N, N points per dimension, Dirichlet boundary eliminated,\n"
           "scaled by h^2, h = 1/(N+1)):\n"
           "  poisson2d-5:N       2D Laplacian, 5-point stencil (4, -1): N^2 rows, SPD\n"
           "  poisson3d-7:N       3D Laplacian, 7-point stencil (6, -1): N^3 rows, SPD\n"
           "  poisson3d-27:N      3D 27-point stencil (26, -1): N^3 rows, SPD\n"
           "  convdiff3d-7:N[:W]  -lap(u) + w.grad(u), w = (W, W/2, W/4), W = 100 by default,\n"
           "                      first-order upwind: N^3 rows, nonsymmetric M-matrix\n"
           "  powerlaw:N[:G]      N rows, off-diagonal counts with a power-law tail L^-G (G = 2.2\n"
           "                      by default, mean about 17), random columns, strictly\n"
           "                      diagonally dominant, nonsymmetric (same matrix every run)\n"
           "Aliases: poisson5, poisson7, poisson27, convdiff7.  Example: poisson3d-7:64\n";
}
