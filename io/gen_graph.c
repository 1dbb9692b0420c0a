/* gen_graph.c -- matrices of random graphs: power-law row lengths
 * (nonsymmetric and symmetric) and random geometric graphs. */
#include "io/gen.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "io/gen_util.h"

/* Row lengths with a power-law tail: L = floor(3 u^(-1/(gamma-1))), capped
 * at cap; their sum (+1 per row for the diagonal) in *total. */
static int *powerlaw_lengths(const char *name, int n, double gamma, int cap, int half, uint64_t *seed,
                             long long *total, spk_err *e)
{
    int *len = malloc((size_t)n * sizeof(int));
    if (!len) {
        spk_err_set(e, SPK_ERR_NOMEM, "out of host memory (%s row lengths)", name);
        return NULL;
    }
    *total = 0;
    for (int i = 0; i < n; i++) {
        double l = 3.0 * pow(gen_unit(seed), -1.0 / (gamma - 1.0));
        len[i] = l > cap ? cap : (int)l;
        if (half) len[i] = len[i] / 2 > 1 ? len[i] / 2 : 1;
        *total += len[i] + 1;
    }
    return len;
}

static int powerlaw_check(const char *name, int n, double gamma, spk_csr *A, spk_err *e)
{
    if (!A) return spk_err_set(e, SPK_ERR_INVALID_ARG, "%s: A is NULL", name);
    if (!(gamma > 1.0) || !isfinite(gamma))
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "%s: the exponent G must be a number > 1 (got %g)", name, gamma);
    if (n < 1) return spk_err_set(e, SPK_ERR_INVALID_ARG, "%s: N must be >= 1 (got %d)", name, n);
    return gen_check_size(name, n, n, 4LL * n, e); /* at least 3 + 1 entries per row */
}

int spk_gen_powerlaw_seed(int n, double gamma, uint64_t seed, spk_csr *A, spk_err *e)
{
    SPK_TRY(powerlaw_check("powerlaw", n, gamma, A, e));
    const int cap = n / 2 > 3 ? n / 2 : (n > 1 ? n - 1 : 0);
    long long total = 0;
    int *len = powerlaw_lengths("powerlaw", n, gamma, cap, 0, &seed, &total, e);
    if (!len) return SPK_ERR_NOMEM;
    if (gen_check_size("powerlaw", n, n, total, e)) {
        free(len);
        return SPK_ERR_INVALID_ARG;
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
        gen_sort_ints(row, k);
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

int spk_gen_powerlaw(int n, double gamma, spk_csr *A, spk_err *e)
{
    return spk_gen_powerlaw_seed(n, gamma, 12345, A, e);
}

/* Each row i draws half its power-law length of partners j (uniform), each
 * edge {i, j} weighted -(0.1..1); A = the symmetric sum with diagonal
 * 1 + the row's absolute sum: strictly diagonally dominant, so SPD. */
int spk_gen_powerlaw_sym(int n, double gamma, uint64_t seed, spk_csr *A, spk_err *e)
{
    SPK_TRY(powerlaw_check("powerlaw-sym", n, gamma, A, e));
    const int cap = n / 2 > 3 ? n / 2 : (n > 1 ? n - 1 : 0);
    long long total = 0;
    int *len = powerlaw_lengths("powerlaw-sym", n, gamma, cap, 1, &seed, &total, e);
    if (!len) return SPK_ERR_NOMEM;
    int st = gen_check_size("powerlaw-sym", n, n, 2 * (total - n) + n, e);
    const size_t m = (size_t)(total - n);
    int *r = st ? NULL : malloc((m + 1) * sizeof(int)), *c = st ? NULL : malloc((m + 1) * sizeof(int));
    double *v = st ? NULL : malloc((m + 1) * sizeof(double));
    if (!st && (!r || !c || !v)) st = spk_err_set(e, SPK_ERR_NOMEM, "out of host memory (powerlaw-sym edges)");
    size_t k = 0;
    for (int i = 0; !st && i < n; i++)
        for (int j = 0; j < len[i]; j++) {
            int t = (int)(gen_rng(&seed) % (uint64_t)n);
            double w = -(0.1 + 0.9 * gen_unit(&seed));
            if (t == i) continue;
            r[k] = i < t ? i : t;
            c[k] = i < t ? t : i;
            v[k++] = w;
        }
    spk_csr U = {0};
    if (!st) st = spk_csr_from_coo(n, n, k, r, c, v, &U, e);
    free(r);
    free(c);
    free(v);
    free(len);
    if (!st) st = gen_sym_from_upper("powerlaw-sym", n, &U, 1.0, 1.0, A, e);
    spk_csr_free(&U);
    return st;
}

/* Points of a random geometric graph, binned into m^dims cells of side
 * 1/m >= r so that neighbours lie in adjacent cells. */
typedef struct rgg_grid {
    int n, dims, m;
    double r2;
    double *x;            /* point i at x[dims*i ...] */
    int *start, *pts;     /* cell c holds pts[start[c] .. start[c+1]) */
} rgg_grid;

static int rgg_cell_of(const rgg_grid *g, const double *p, int *cc)
{
    int c = 0;
    for (int k = g->dims - 1; k >= 0; k--) {
        int t = (int)(p[k] * g->m);
        cc[k] = t >= g->m ? g->m - 1 : t;
        c = c * g->m + cc[k];
    }
    return c;
}

/* Bin the points by cell (counting sort); with order, also renumber them
 * in cell order (x is rewritten). */
static int rgg_bin(rgg_grid *g, int order, spk_err *e)
{
    const size_t ncell = (size_t)g->m * g->m * (g->dims == 3 ? g->m : 1);
    int cc[3];
    free(g->start);
    g->start = calloc(ncell + 1, sizeof(int));
    if (!g->start) return spk_err_set(e, SPK_ERR_NOMEM, "out of host memory (rgg cells)");
    for (int i = 0; i < g->n; i++) g->start[rgg_cell_of(g, g->x + (size_t)g->dims * i, cc) + 1]++;
    for (size_t c = 0; c < ncell; c++) g->start[c + 1] += g->start[c];
    for (int i = 0; i < g->n; i++) g->pts[g->start[rgg_cell_of(g, g->x + (size_t)g->dims * i, cc)]++] = i;
    for (size_t c = ncell; c > 0; c--) g->start[c] = g->start[c - 1];
    g->start[0] = 0;
    if (!order) return SPK_OK;
    double *y = malloc((size_t)g->n * g->dims * sizeof(double));
    if (!y) return spk_err_set(e, SPK_ERR_NOMEM, "out of host memory (rgg points)");
    for (int i = 0; i < g->n; i++)
        for (int k = 0; k < g->dims; k++) y[(size_t)g->dims * i + k] = g->x[(size_t)g->dims * g->pts[i] + k];
    free(g->x);
    g->x = y;
    for (int i = 0; i < g->n; i++) g->pts[i] = i;
    return SPK_OK;
}

/* The neighbours of point i (within r, i excluded) into out (NULL: count only). */
static int rgg_neighbours(const rgg_grid *g, int i, int *out)
{
    int cc[3] = {0, 0, 0}, cnt = 0;
    const double *p = g->x + (size_t)g->dims * i;
    rgg_cell_of(g, p, cc);
    const int dz = g->dims == 3 ? 1 : 0;
    for (int oz = -dz; oz <= dz; oz++)
        for (int oy = -1; oy <= 1; oy++)
            for (int ox = -1; ox <= 1; ox++) {
                int a = cc[0] + ox, b = cc[1] + oy, z = cc[2] + oz;
                if (a < 0 || a >= g->m || b < 0 || b >= g->m || z < 0 || z >= (dz ? g->m : 1)) continue;
                const int c = a + g->m * (b + g->m * z);
                for (int t = g->start[c]; t < g->start[c + 1]; t++) {
                    const int j = g->pts[t];
                    const double *q = g->x + (size_t)g->dims * j;
                    double d2 = 0;
                    for (int k = 0; k < g->dims; k++) d2 += (p[k] - q[k]) * (p[k] - q[k]);
                    if (j == i || !(d2 < g->r2)) continue;
                    if (out) out[cnt] = j;
                    cnt++;
                }
            }
    return cnt;
}

/* The Laplacian of the graph: -1 per edge, diagonal = degree + shift. */
static int rgg_assemble(const rgg_grid *g, const char *name, double shift, spk_csr *A, spk_err *e)
{
    long long total = g->n;
    for (int i = 0; i < g->n; i++) total += rgg_neighbours(g, i, NULL);
    SPK_TRY(gen_check_size(name, g->n, g->n, total, e));
    SPK_TRY(spk_csr_alloc(A, g->n, g->n, (int)total, e));
    int q = 0;
    for (int i = 0; i < g->n; i++) {
        int deg = rgg_neighbours(g, i, A->colind + q);
        A->colind[q + deg] = i;
        gen_sort_ints(A->colind + q, deg + 1);
        for (int k = q; k <= q + deg; k++) A->val[k] = A->colind[k] == i ? deg + shift : -1.0;
        q += deg + 1;
        A->rowptr[i + 1] = q;
    }
    return SPK_OK;
}

/* N uniform points in the unit square (dims 2) or cube (3), joined when
 * closer than r, r chosen so that a point has K neighbours on average
 * (N pi r^2 = K, N 4/3 pi r^3 = K).  Numbered by cell (shuffled = 0) or by a
 * random permutation of that; the points do not depend on the order. */
int spk_gen_rgg(int n, int dims, double k, int shuffled, uint64_t seed, spk_csr *A, spk_err *e)
{
    const char *name = dims == 3 ? "rgg3d" : "rgg";
    if (!A) return spk_err_set(e, SPK_ERR_INVALID_ARG, "%s: A is NULL", name);
    if (n < 1) return spk_err_set(e, SPK_ERR_INVALID_ARG, "%s: N must be >= 1 (got %d)", name, n);
    if (dims != 2 && dims != 3) return spk_err_set(e, SPK_ERR_INVALID_ARG, "rgg: dims must be 2 or 3");
    if (!(k > 0) || !(k <= 1000))
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "%s: K must be a number in (0, 1000] (got %g)", name, k);
    SPK_TRY(gen_check_size(name, n, n, (long long)n * (1 + (long long)k / 2), e));
    const double pi = 3.14159265358979323846;
    const double r = dims == 2 ? sqrt(k / (pi * n)) : cbrt(3.0 * k / (4.0 * pi * n));
    rgg_grid g = {.n = n, .dims = dims, .r2 = r * r};
    g.m = r >= 1 ? 1 : (int)(1.0 / r);
    const double cap = dims == 2 ? 4.0 * n + 1 : 8.0 * n + 1; /* cells, bounded by the points */
    while (pow(g.m, dims) > cap) g.m--;
    g.x = malloc((size_t)n * dims * sizeof(double));
    g.pts = malloc((size_t)n * sizeof(int));
    int st = g.x && g.pts ? SPK_OK : spk_err_set(e, SPK_ERR_NOMEM, "out of host memory (%s points)", name);
    for (size_t i = 0; !st && i < (size_t)n * dims; i++) g.x[i] = gen_unit(&seed);
    if (!st) st = rgg_bin(&g, 1, e);
    if (!st && shuffled) { /* Fisher-Yates on the cell order */
        for (int i = n - 1; i > 0; i--) {
            int j = (int)(gen_rng(&seed) % (uint64_t)(i + 1));
            for (int t = 0; t < dims; t++) {
                double s = g.x[(size_t)dims * i + t];
                g.x[(size_t)dims * i + t] = g.x[(size_t)dims * j + t];
                g.x[(size_t)dims * j + t] = s;
            }
        }
        st = rgg_bin(&g, 0, e);
    }
    if (!st) st = rgg_assemble(&g, name, 0.01 * k, A, e);
    free(g.x);
    free(g.pts);
    free(g.start);
    return st;
}
