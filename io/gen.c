/* gen.c -- the generator specs: NAME:N[:P1[:P2]][:seed=S] parsed against a
 * table of families and dispatched to gen_stencil.c, gen_graph.c,
 * gen_random.c, gen_block.c and gen_brusselator.c, for the whole matrix or
 * a range of its rows; the help text.  The parser takes its table as an
 * argument (gen_parse_spec), so the complex families (gen_complex.c) share it. */
#include "io/gen.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/gen_util.h"

#define P_NONE {NULL, NULL, NULL, 0, 0, 0, 0, 0, 0, 0}
#define P_VEL {"velocity", "W", "a finite number", 100, -INFINITY, INFINITY, 0, 0, 0, 0}
#define P_EXP {"exponent", "G", "a number > 1", 2.2, 1, INFINITY, 0, 0, 0, 0}
#define P_EPS {"anisotropy", "EPS", "a number in (0, 1e6]", 1e-3, 0, 1e6, 0, 1, 0, 0}
#define P_K {"degree", "K", "a number in (0, 1000]", 8, 0, 1000, 0, 1, 0, 0}
#define P_ORD {"order", "ORDER", "local or shuffled", 0, 0, 1, 1, 1, 0, 1}

static const gen_family families[] = {
    {GEN_P2, "poisson2d-5", "poisson5", "poisson2d-5:N", GEN_F_ROWS, 0, {P_NONE, P_NONE}},
    {GEN_P3, "poisson3d-7", "poisson7", "poisson3d-7:N", GEN_F_ROWS, 0, {P_NONE, P_NONE}},
    {GEN_P27, "poisson3d-27", "poisson27", "poisson3d-27:N", GEN_F_ROWS, 0, {P_NONE, P_NONE}},
    {GEN_CD3, "convdiff3d-7", "convdiff7", "convdiff3d-7:N[:W]", GEN_F_ROWS, 1, {P_VEL, P_NONE}},
    {GEN_CD2, "convdiff2d-5", "convdiff5", "convdiff2d-5:N[:W]", GEN_F_ROWS, 1,
     {{"velocity", "W", "a finite number", 1000, -INFINITY, INFINITY, 0, 0, 0, 0}, P_NONE}},
    {GEN_AN2, "aniso2d", NULL, "aniso2d:N[:EPS[:THETA]]", GEN_F_ROWS, 2,
     {P_EPS, {"angle", "THETA", "a finite angle in degrees", 0, -1e6, 1e6, 1, 1, 0, 0}}},
    {GEN_AN3, "aniso3d", NULL, "aniso3d:N[:EPS]", GEN_F_ROWS, 1, {P_EPS, P_NONE}},
    {GEN_PL, "powerlaw", NULL, "powerlaw:N[:G]", GEN_F_RANDOM, 1, {P_EXP, P_NONE}},
    {GEN_PLS, "powerlaw-sym", NULL, "powerlaw-sym:N[:G]", GEN_F_RANDOM, 1, {P_EXP, P_NONE}},
    {GEN_RGG, "rgg", NULL, "rgg:N[:K[:ORDER]]", GEN_F_RANDOM, 2, {P_K, P_ORD}},
    {GEN_RGG3, "rgg3d", NULL, "rgg3d:N[:K[:ORDER]]", GEN_F_RANDOM, 2, {P_K, P_ORD}},
    {GEN_BAND, "band", NULL, "band:N[:W[:F]]", GEN_F_RANDOM, 2,
     {{"half-bandwidth", "W", "an integer >= 0", 40, 0, INT_MAX, 1, 1, 1, 0},
      {"fill", "F", "a number in (0, 1]", 1, 0, 1, 0, 1, 0, 0}}},
    {GEN_CIRC, "circuit", NULL, "circuit:N[:D]", GEN_F_RANDOM, 1,
     {{"dense-net count", "D", "an integer in [0, 64]", 8, 0, 64, 1, 1, 1, 0}, P_NONE}},
    {GEN_EL3, "elasticity3d", NULL, "elasticity3d:N[:NU]", GEN_F_ROWS, 1,
     {{"Poisson ratio", "NU", "a number in [0, 0.5)", 0.3, 0, 0.5, 1, 0, 0, 0}, P_NONE}},
    {GEN_SAD, "saddle", NULL, "saddle:N", GEN_F_ROWS, 0, {P_NONE, P_NONE}},
    {GEN_BRU, "brusselator", NULL, "brusselator:N[:L]", GEN_F_ROWS, 1,
     {{"length", "L", "a finite number > 0", 0.5, 0, INFINITY, 0, 0, 0, 0}, P_NONE}},
};
#define NFAM ((int)(sizeof families / sizeof families[0]))

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
    "valid: poisson2d-5:N, poisson3d-7:N, poisson3d-27:N, convdiff3d-7:N[:W], convdiff2d-5:N[:W], " \
    "aniso2d:N[:EPS[:THETA]], aniso3d:N[:EPS], powerlaw:N[:G], powerlaw-sym:N[:G], "               \
    "rgg:N[:K[:ORDER]], rgg3d:N[:K[:ORDER]], band:N[:W[:F]], circuit:N[:D], elasticity3d:N[:NU], " \
    "saddle:N, brusselator:N[:L]; aliases poisson5, poisson7, poisson27, convdiff7, convdiff5"

/* Parse the field [s, end) as parameter p of f into *v. */
static int parse_param(const char *spec, const gen_family *f, const gen_param *p, const char *s, size_t len,
                       double *v, spk_err *e)
{
    if (p->word) {
        if (gen_name_is(s, len, "local")) *v = 0;
        else if (gen_name_is(s, len, "shuffled")) *v = 1;
        else
            return spk_err_set(e, SPK_ERR_INVALID_ARG, "bad %s in generator spec '%s': %s must be %s (%s)",
                               p->what, spec, p->sym, p->rule, f->usage);
        return SPK_OK;
    }
    char buf[64], *q;
    if (len >= sizeof buf) len = sizeof buf - 1;
    memcpy(buf, s, len);
    buf[len] = 0;
    const double x = strtod(buf, &q);
    const int ok = len > 0 && q != buf && !*q && isfinite(x) && (p->lo_incl ? x >= p->lo : x > p->lo) &&
                   (p->hi_incl ? x <= p->hi : x < p->hi) && (!p->integer || x == floor(x));
    if (!ok)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "bad %s in generator spec '%s': %s must be %s (%s)", p->what,
                           spec, p->sym, p->rule, f->usage);
    *v = x;
    return SPK_OK;
}

/* The seed of a random family: a hash of its name, N, the parameters that
 * shape the matrix (not rgg's ORDER, so both orders number the same graph)
 * and the seed= field (0 when absent). */
static uint64_t spec_seed(const gen_family *f, long long n, const double *v, uint64_t user)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *c = f->name; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
    h = gen_mix(h ^ (uint64_t)n);
    for (int k = 0; k < f->np; k++) {
        if (f->p[k].word) continue;
        uint64_t bits;
        memcpy(&bits, &v[k], sizeof bits);
        h = gen_mix(h ^ bits);
    }
    return gen_mix(h ^ gen_mix(user + 0x632BE59BD9B4E019ull));
}

/* The optional fields after N: parameters, then seed=S for a random family. */
static int parse_fields(const char *spec, const gen_family *f, const char *p, double *v, uint64_t *user,
                        int *has_user, spk_err *e)
{
    for (int k = 0; k < 2; k++) v[k] = f->p[k].def;
    *user = 0;
    *has_user = 0;
    for (int k = 0; *p == ':'; k++) {
        const char *s = p + 1, *end = strchr(s, ':');
        const size_t len = end ? (size_t)(end - s) : strlen(s);
        p = s + len;
        if (len > 5 && gen_name_is(s, 5, "seed=") && !*p) {
            char *q;
            const unsigned long long u = s[5] >= '0' && s[5] <= '9' ? strtoull(s + 5, &q, 10) : 0;
            const int random = f->how == GEN_F_RANDOM;
            if (!random || s[5] < '0' || s[5] > '9' || q != p)
                return spk_err_set(e, SPK_ERR_INVALID_ARG,
                                   random ? "bad seed in generator spec '%s': seed=S takes a decimal integer"
                                          : "generator spec '%s': %s is not random and takes no seed",
                                   spec, f->name);
            *user = u;
            *has_user = 1;
        } else if (k >= f->np) {
            return spk_err_set(e, SPK_ERR_INVALID_ARG, "generator spec '%s' has too many fields: %s%s", spec,
                               f->usage, f->how == GEN_F_RANDOM ? "[:seed=S]" : "");
        } else {
            SPK_TRY(parse_param(spec, f, &f->p[k], s, len, &v[k], e));
        }
    }
    return SPK_OK;
}

const gen_family *gen_find_family(const gen_family *table, int n, const char *s, size_t len)
{
    for (int k = 0; k < n; k++)
        if (gen_name_is(s, len, table[k].name) || (table[k].alias && gen_name_is(s, len, table[k].alias)))
            return &table[k];
    return NULL;
}

int gen_parse_spec(const gen_family *table, int nfam, const char *valid, const char *spec, gen_parsed *g,
                   spk_err *e)
{
    const char *c1 = strchr(spec, ':');
    size_t nlen = c1 ? (size_t)(c1 - spec) : strlen(spec);
    const gen_family *f = gen_find_family(table, nfam, spec, nlen);
    if (!f)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "unknown generator '%.*s' in '%s' (%s)",
                           (int)(nlen < 64 ? nlen : 64), spec, spec, valid);
    if (!c1)
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "generator spec '%s' has no size: expected NAME:N (%s)", spec, valid);
    /* N: decimal digits only, 1 <= N <= INT_MAX */
    const char *p = c1 + 1;
    long long n = 0;
    int digits = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++)
        if (n <= INT_MAX) n = n * 10 + (*p - '0');
    if (!digits || (*p && *p != ':') || n < 1 || n > INT_MAX)
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "bad size in generator spec '%s': N must be an integer from 1 to %d", spec, INT_MAX);
    uint64_t user;
    int has_user;
    SPK_TRY(parse_fields(spec, f, p, g->v, &user, &has_user, e));
    g->f = f;
    g->n = (int)n;
    g->seed = spec_seed(f, n, g->v, user);
    if (f->kind == GEN_PL && !has_user) g->seed = 12345; /* powerlaw's matrices from before seeds */
    return SPK_OK;
}

/* Parse a spec of the real families: the one parser of the spk_gen_spec* calls, so they accept
 * and refuse the same specs with the same messages. */
static int parse_spec(const char *spec, gen_parsed *g, spk_err *e)
{
    return gen_parse_spec(families, NFAM, GEN_VALID, spec, g, e);
}

/* Rows rg of g's matrix.  GEN_F_ROWS families make just those rows; GEN_F_RANDOM ones only the whole
 * matrix (rg must be GEN_WHOLE). */
static int generate(const gen_parsed *g, gen_range rg, spk_csr *A, spk_err *e)
{
    const int n = g->n;
    const double *v = g->v;
    const uint64_t seed = g->seed;
    switch (g->f->kind) {
    case GEN_EL3: return gen_elasticity3d_rows(n, v[0], rg, A, e);
    case GEN_SAD: return gen_saddle_rows(n, rg, A, e);
    case GEN_BRU: return gen_brusselator_rows(n, v[0], rg, A, e);
    case GEN_PL: return spk_gen_powerlaw_seed(n, v[0], seed, A, e);
    case GEN_PLS: return spk_gen_powerlaw_sym(n, v[0], seed, A, e);
    case GEN_RGG: return spk_gen_rgg(n, 2, v[0], v[1] != 0, seed, A, e);
    case GEN_RGG3: return spk_gen_rgg(n, 3, v[0], v[1] != 0, seed, A, e);
    case GEN_BAND: return spk_gen_band(n, (int)v[0], v[1], seed, A, e);
    case GEN_CIRC: return spk_gen_circuit(n, (int)v[0], seed, A, e);
    default: return gen_stencil_rows(g->f->kind, n, v, rg, A, e);
    }
}

/* Parse "NAME:N[:P1[:P2]][:seed=S]" and generate the matrix it names. */
int spk_gen_spec(const char *spec, spk_csr *A, spk_err *e)
{
    if (!spec || !A)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_gen_spec: %s is NULL", spec ? "A" : "spec");
    gen_parsed g;
    SPK_TRY(parse_spec(spec, &g, e));
    return generate(&g, GEN_WHOLE, A, e);
}

/* The rows (= columns) of g's matrix, with spk_gen_spec's checks of N and of the row count but
 * not of the entries: an GEN_F_ROWS family's empty range [0, 0) runs its generator's own checks and
 * gives the size; an GEN_F_RANDOM family has N rows. */
static int spec_rows(const gen_parsed *g, int *rows, spk_err *e)
{
    if (g->f->how == GEN_F_RANDOM) {
        SPK_TRY(gen_check_size(g->f->name, g->n, g->n, 0, e));
        *rows = g->n;
        return SPK_OK;
    }
    spk_csr T = {0};
    SPK_TRY(generate(g, (gen_range){0, 0, 0}, &T, e));
    *rows = T.ncols;
    spk_csr_free(&T);
    return SPK_OK;
}

int spk_gen_spec_size(const char *spec, int *n, spk_err *e)
{
    if (!spec || !n)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_gen_spec_size: %s is NULL", spec ? "n" : "spec");
    gen_parsed g;
    SPK_TRY(parse_spec(spec, &g, e));
    return spec_rows(&g, n, e);
}

int spk_gen_spec_has_rows(const char *spec)
{
    spk_err e;
    gen_parsed g;
    int n;
    return spec && !parse_spec(spec, &g, &e) && g.f->how == GEN_F_ROWS && !spec_rows(&g, &n, &e);
}

/* rows = rows r0 .. r1-1 of g's whole matrix: generated, copied out, freed. */
static int rows_of_whole(const gen_parsed *g, int r0, int r1, spk_csr *rows, spk_err *e)
{
    spk_csr W = {0}, T = {0};
    SPK_TRY(generate(g, GEN_WHOLE, &W, e));
    const int b = W.rowptr[r0], nnz = W.rowptr[r1] - b;
    int st = spk_csr_alloc(&T, r1 - r0, W.ncols, nnz, e);
    if (!st) {
        for (int i = 0; i <= r1 - r0; i++) T.rowptr[i] = W.rowptr[r0 + i] - b;
        memcpy(T.colind, W.colind + b, (size_t)nnz * sizeof(int));
        memcpy(T.val, W.val + b, (size_t)nnz * sizeof(double));
        *rows = T;
    }
    spk_csr_free(&W);
    return st;
}

/* Check the range against the size, then make it (directly for GEN_F_ROWS families); the
 * generator's messages get the spec in front. */
int spk_gen_spec_rows(const char *spec, int row_begin, int row_end, spk_csr *rows, spk_err *e)
{
    if (!spec || !rows)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "spk_gen_spec_rows: %s is NULL", spec ? "rows" : "spec");
    gen_parsed g;
    int n;
    SPK_TRY(parse_spec(spec, &g, e));
    int st = spec_rows(&g, &n, e);
    if (!st && (row_begin < 0 || row_begin > row_end || row_end > n))
        return spk_err_set(e, SPK_ERR_INVALID_ARG,
                           "bad row range [%d, %d) of generator spec '%s': need 0 <= begin <= end <= %d (its rows)",
                           row_begin, row_end, spec, n);
    if (!st && g.f->how == GEN_F_ROWS) st = generate(&g, (gen_range){0, row_begin, row_end}, rows, e);
    else if (!st) st = rows_of_whole(&g, row_begin, row_end, rows, e);
    if (st && e) spk_err_prefix(e, "generator spec '%s'", spec);
    return st;
}

/* Help text listing the generators. */
const char *spk_gen_help(void)
{
    return "Generated matrices (NAME:N[:P...]; grids: N points per dimension, Dirichlet boundary\n"
           "eliminated, scaled by h^2, h = 1/(N+1)):\n"
           "  poisson2d-5:N       2D Laplacian, 5-point stencil (4, -1): N^2 rows, SPD\n"
           "  poisson3d-7:N       3D Laplacian, 7-point stencil (6, -1): N^3 rows, SPD\n"
           "  poisson3d-27:N      3D 27-point stencil (26, -1): N^3 rows, SPD\n"
           "  convdiff3d-7:N[:W]  -lap(u) + w.grad(u), w = (W, W/2, W/4), W = 100 by default,\n"
           "                      first-order upwind: N^3 rows, nonsymmetric M-matrix\n"
           "  convdiff2d-5:N[:W]  the same in 2D, w = (W, W/2), W = 1000 by default: N^2 rows\n"
           "  aniso2d:N[:EPS[:THETA]]  -div(K grad u), K with eigenvalues 1 and EPS (1e-3 by default)\n"
           "                      rotated by THETA degrees (0 by default: EPS along y, 5 points;\n"
           "                      otherwise 9 points): N^2 rows, SPD\n"
           "  aniso3d:N[:EPS]     -u_xx - u_yy - EPS u_zz (EPS = 1e-3), 7 points: N^3 rows, SPD\n"
           "  elasticity3d:N[:NU] 3D linear-elasticity-like: N^3 nodes, 3 unknowns each, full 3x3\n"
           "                      blocks between 27-point neighbours (81 entries per interior row),\n"
           "                      kron(L27, I3)/13 + grad-div/(1 - 2 NU), NU = 0.3 by default\n"
           "                      (harder towards 0.5): SPD\n"
           "  saddle:N            [[A, B^T], [B, -C]]: A the 5-point Laplacian on N^2 nodes, B a\n"
           "                      difference (divergence-like) operator from each 2x2 patch to one\n"
           "                      unknown ((N/2)^2 rows), C = 1e-2 h^2 I: symmetric indefinite,\n"
           "                      nonsingular; CG does not apply (use BiCGStab)\n"
           "  brusselator:N[:L]   Jacobian of the 2-D Brusselator reaction-diffusion model (Bai et\n"
           "                      al.) at its steady state: u and v interleaved on N^2 nodes (2 N^2\n"
           "                      rows), 5-point diffusion Du/(h L)^2 and Dv/(h L)^2 (Du = 0.004,\n"
           "                      Dv = 0.008; not scaled by h^2), alpha = 2, beta = 5.45, L = 0.5\n"
           "                      by default: N = 10, 25, 32 give SuiteSparse's rdb200, rdb1250,\n"
           "                      rdb2048 and brusselator:20:1 its rdb800l; nonsymmetric\n"
           "Random families (the same matrix for the same spec; a last field seed=S picks\n"
           "another instance):\n"
           "  powerlaw:N[:G]      N rows, off-diagonal counts with a power-law tail L^-G (G = 2.2\n"
           "                      by default, mean about 17), random columns, strictly\n"
           "                      diagonally dominant, nonsymmetric\n"
           "  powerlaw-sym:N[:G]  symmetric: edges {i, j} from half of each row's power-law count,\n"
           "                      -(0.1..1), diagonal 1 + the row's absolute sum: SPD\n"
           "  rgg:N[:K[:ORDER]]   Laplacian of a random geometric graph: N points in the unit square\n"
           "                      joined within the radius giving K neighbours on average (K = 8),\n"
           "                      -1 per edge, diagonal degree + 0.01 K: SPD.  ORDER local (by\n"
           "                      grid cell, the default) or shuffled (random numbering)\n"
           "  rgg3d:N[:K[:ORDER]] the same in the unit cube\n"
           "  band:N[:W[:F]]      N rows, half-bandwidth W (40), a fraction F (1) of the band's\n"
           "                      pairs, one entry of 1 in 20 pairs dropped; values in [-1, 1),\n"
           "                      diagonal 1.01 x the row's absolute sum: nonsymmetric\n"
           "  circuit:N[:D]       circuit-like: rows of 2-6 entries (local and distant\n"
           "                      connections) plus D (8) supply nets, each a dense row and column\n"
           "                      over 10-50% of the nodes; nonsymmetric values, nearly symmetric\n"
           "                      pattern, strictly diagonally dominant\n"
           "Sizes whose rows or entries exceed 32-bit indices are refused.\n"
           "Aliases: poisson5, poisson7, poisson27, convdiff7, convdiff5.  Example: poisson3d-7:64\n";
}
