/* gen_complex.c -- the complex model problems (gen_complex.h): each is a real matrix from the
 * real generators (the Poisson stencils, gen_block.c's block stencil) made complex, then given
 * its complex diagonal or its phases. */
#include "io/gen_complex.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/gen.h"
#include "io/gen_util.h"

#define ZGEN_2PI 6.283185307179586

/* Parameters whose default depends on N are NAN in the table and set by the generator. */
#define ZP_NONE {NULL, NULL, NULL, 0, 0, 0, 0, 0, 0, 0}
#define ZP_WAVE(def) {"wavenumber", "K", "a finite number >= 0", def, 0, INFINITY, 1, 0, 0, 0}
#define ZP_LAYER {"absorbing layer", "L", "an integer >= 0", NAN, 0, INT_MAX, 1, 1, 1, 0}

static const gen_family zfamilies[] = {
    {GEN_ZH3, "helmholtz3d", NULL, "helmholtz3d:N[:K[:L]]", GEN_F_ROWS, 2, {ZP_WAVE(NAN), ZP_LAYER}},
    {GEN_ZH2, "helmholtz2d", NULL, "helmholtz2d:N[:K[:L]]", GEN_F_ROWS, 2, {ZP_WAVE(NAN), ZP_LAYER}},
    {GEN_ZCC, "curlcurl", NULL, "curlcurl:N[:K[:S]]", GEN_F_ROWS, 2,
     {ZP_WAVE(ZGEN_2PI), {"loss", "S", "a finite number >= 0", 1, 0, INFINITY, 1, 0, 0, 0}}},
    {GEN_ZML, "maglap2d", NULL, "maglap2d:N[:B]", GEN_F_ROWS, 1,
     {{"flux per cell", "B", "a finite number", 0.1, -INFINITY, INFINITY, 0, 0, 0, 0}, ZP_NONE}},
};
#define NZFAM ((int)(sizeof zfamilies / sizeof zfamilies[0]))
#define ZGEN_VALID \
    "complex: helmholtz3d:N[:K[:L]], helmholtz2d:N[:K[:L]], curlcurl:N[:K[:S]], maglap2d:N[:B]"

/* SPK_ERR_INVALID_ARG where the N^dims rows of the (2 dims + 1)-point stencil, or its entries,
 * pass 32-bit indices (checked before anything is allocated, under the family's name). */
static int zgen_check_grid(const char *name, int n, int dims, spk_err *e)
{
    long long rows = 1;
    for (int k = 0; k < dims && rows < INT_MAX; k++) rows *= n;
    const long long nnz = rows < INT_MAX ? (2LL * dims + 1) * rows - 2LL * dims * (rows / n) : 0;
    return gen_check_size(name, n, rows, nnz, e);
}

/* A = R with imaginary parts 0 (R is freed either way). */
static int zgen_from_real(spk_csr *R, spk_zcsr *A, spk_err *e)
{
    const int st = spk_zcsr_alloc(A, R->nrows, R->ncols, R->nnz, e);
    if (!st) {
        memcpy(A->rowptr, R->rowptr, ((size_t)R->nrows + 1) * sizeof(int));
        memcpy(A->colind, R->colind, (size_t)R->nnz * sizeof(int));
        for (int k = 0; k < R->nnz; k++) {
            A->val[2 * (size_t)k] = R->val[k];
            A->val[2 * (size_t)k + 1] = 0.0;
        }
    }
    spk_csr_free(R);
    return st;
}

/* The position of row i's diagonal entry (every generator here stores it). */
static int zgen_diag(const spk_zcsr *A, int i)
{
    int k = A->rowptr[i];
    while (A->colind[k] != i) k++;
    return k;
}

/* Depth of grid coordinate c (0 .. n-1) into an absorbing layer of width l at either end:
 * 0 outside, 1 at the layer's inner edge, l at the boundary. */
static int zgen_depth(int c, int n, int l)
{
    const int lo = l - c, hi = c - (n - 1 - l);
    const int d = lo > hi ? lo : hi;
    return d > 0 ? d : 0;
}

/* helmholtz2d / helmholtz3d (gen_complex.h): k or l NAN take their defaults. */
static int zgen_helmholtz(const char *name, int dims, int n, double k, double l, spk_zcsr *A, spk_err *e)
{
    SPK_TRY(zgen_check_grid(name, n, dims, e));
    spk_csr R = {0};
    SPK_TRY(dims == 3 ? spk_gen_poisson3d7(n, &R, e) : spk_gen_poisson2d5(n, &R, e));
    SPK_TRY(zgen_from_real(&R, A, e));
    const double h = 1.0 / (n + 1.0);
    const double kk = isnan(k) ? ZGEN_2PI * (n + 1.0) / 10.0 : k, kh2 = (kk * h) * (kk * h);
    const int layer = isnan(l) ? (n / 8 > 2 ? n / 8 : 2) : (int)l;
    for (int i = 0; i < A->nrows; i++) {
        const int x = i % n, y = (i / n) % n, z = dims == 3 ? i / n / n : 0;
        int d = zgen_depth(x, n, layer);
        const int dy = zgen_depth(y, n, layer), dz = dims == 3 ? zgen_depth(z, n, layer) : 0;
        if (dy > d) d = dy;
        if (dz > d) d = dz;
        const double sigma = layer > 0 ? 1.5 * ((double)d / layer) * ((double)d / layer) : 0.0;
        const int p = zgen_diag(A, i);
        A->val[2 * (size_t)p] -= kh2;
        A->val[2 * (size_t)p + 1] = 0.0 - kh2 * sigma; /* +0 outside the layer */
    }
    return SPK_OK;
}

/* curlcurl (gen_complex.h): the blocks of kron(L7, I3) - G/4, then the complex shift. */
static int zgen_curlcurl(int n, double k, double s, spk_zcsr *A, spk_err *e)
{
    gen_blocks27 blk;
    for (int t = 0; t < 27; t++) {
        int d[3];
        gen_block27_offset(t, d);
        gen_graddiv_block(d, -0.25, blk.b[t]);
        const int dist = abs(d[0]) + abs(d[1]) + abs(d[2]);
        const double lap = dist == 0 ? 6.0 : dist == 1 ? -1.0 : 0.0;
        for (int p = 0; p < 3; p++) blk.b[t][p][p] += lap;
    }
    spk_csr R = {0};
    SPK_TRY(gen_block27_rows("curlcurl", n, &blk, GEN_WHOLE, &R, e));
    SPK_TRY(zgen_from_real(&R, A, e));
    const double h = 1.0 / (n + 1.0), kh2 = (k * h) * (k * h), loss = k * s * h * h;
    for (int i = 0; i < A->nrows; i++) {
        const int p = zgen_diag(A, i);
        A->val[2 * (size_t)p] -= kh2;
        A->val[2 * (size_t)p + 1] = loss;
    }
    return SPK_OK;
}

/* maglap2d (gen_complex.h): the 5-point Laplacian's links along x get their phases.  Entry
 * (i, i+1) is -e^{i theta}, (i+1, i) its conjugate, theta from their row y, reduced to
 * 2 pi frac(B y) (an integer flux gives real values exactly); both are formed as 0 - x, so
 * that a mirrored entry (a reader's 0 - im) has the same bits. */
static int zgen_maglap(int n, double b, spk_zcsr *A, spk_err *e)
{
    SPK_TRY(zgen_check_grid("maglap2d", n, 2, e));
    spk_csr R = {0};
    SPK_TRY(spk_gen_poisson2d5(n, &R, e));
    SPK_TRY(zgen_from_real(&R, A, e));
    for (int i = 0; i < A->nrows; i++) {
        const double f = b * (i / n), theta = ZGEN_2PI * (f - floor(f)), c = cos(theta), s = sin(theta);
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            const int j = A->colind[k];
            if (j != i + 1 && j != i - 1) continue; /* the diagonal and the links along y */
            A->val[2 * (size_t)k] = 0.0 - c;
            A->val[2 * (size_t)k + 1] = j == i + 1 ? 0.0 - s : s;
        }
    }
    return SPK_OK;
}

int spk_gen_zspec(const char *spec, spk_zcsr *A, spk_err *e)
{
    if (!spec || !A) return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_gen_zspec: %s is NULL", spec ? "A" : "spec");
    memset(A, 0, sizeof *A);
    gen_parsed g;
    SPK_TRY(gen_parse_spec(zfamilies, NZFAM, ZGEN_VALID, spec, &g, e));
    switch (g.f->kind) {
    case GEN_ZH3: return zgen_helmholtz("helmholtz3d", 3, g.n, g.v[0], g.v[1], A, e);
    case GEN_ZH2: return zgen_helmholtz("helmholtz2d", 2, g.n, g.v[0], g.v[1], A, e);
    case GEN_ZCC: return zgen_curlcurl(g.n, g.v[0], g.v[1], A, e);
    default: return zgen_maglap(g.n, g.v[0], A, e);
    }
}

int spk_gen_spec_is_complex(const char *spec)
{
    if (!spec) return 0;
    const char *colon = strchr(spec, ':');
    const size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    return gen_find_family(zfamilies, NZFAM, spec, len) != NULL;
}

const char *spk_gen_zhelp(void)
{
    return "Complex generated matrices (written as complex Matrix Market; grids as above):\n"
           "  helmholtz3d:N[:K[:L]]  Helmholtz -lap(u) - K^2 (1 + i sigma) u, 7-point: N^3 rows.  K the\n"
           "                      wavenumber (2 pi (N+1)/10 by default: 10 points per wavelength),\n"
           "                      sigma = 1.5 (d/L)^2 in an absorbing layer of L points at every\n"
           "                      face (L = max(2, N/8) by default): complex symmetric, real part\n"
           "                      indefinite (from N = 8 with the default K)\n"
           "  helmholtz2d:N[:K[:L]]  the same in 2D, 5-point: N^2 rows\n"
           "  curlcurl:N[:K[:S]]  curl curl u - K^2 u + i K S u on N^3 nodes, 3 unknowns each (3 N^3\n"
           "                      rows): kron(L7, I3) - grad-div/4 in full 3x3 blocks between 27-point\n"
           "                      neighbours, K = 2 pi and S = 1 by default: complex symmetric\n"
           "  maglap2d:N[:B]      2D magnetic Laplacian: 4 on the diagonal, -exp(i theta) to each\n"
           "                      neighbour, Peierls phases of B flux quanta per cell (B = 0.1):\n"
           "                      N^2 rows, Hermitian positive definite\n";
}
