/* gen_random.c -- nonsymmetric matrices with random structure: a banded
 * matrix with random fill and a circuit-like (modified nodal analysis)
 * matrix with a few dense rows and columns. */
#include "io/gen.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "io/gen_util.h"

/* Is (i, j) stored in band's pattern?  The pair {i, j} is kept with
 * probability fill; one of its two entries is dropped with probability
 * 1/20, which makes the pattern slightly nonsymmetric. */
static int band_has(uint64_t seed, int i, int j, double fill)
{
    const uint64_t lo = (uint64_t)(i < j ? i : j), hi = (uint64_t)(i < j ? j : i);
    if (!(gen_hash_unit(seed, lo, hi, 0) < fill)) return 0;
    if (!(gen_hash_unit(seed, lo, hi, 1) < 0.05)) return 1;
    const int drop_upper = gen_hash_unit(seed, lo, hi, 2) < 0.5;
    return drop_upper ? i > j : i < j;
}

/* N x N, entries within W of the diagonal: pattern by band_has, values
 * uniform in [-1, 1) independently for (i, j) and (j, i), the diagonal the
 * row's absolute sum times 1.01 (1 for a row without off-diagonals). */
int spk_gen_band(int n, int w, double fill, uint64_t seed, spk_csr *A, spk_err *e)
{
    if (!A) return spk_err_set(e, SPK_ERR_INVALID_ARG, "band: A is NULL");
    if (n < 1) return spk_err_set(e, SPK_ERR_INVALID_ARG, "band: N must be >= 1 (got %d)", n);
    if (w < 0) return spk_err_set(e, SPK_ERR_INVALID_ARG, "band: W must be >= 0 (got %d)", w);
    if (!(fill > 0) || !(fill <= 1))
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "band: the fill F must be in (0, 1] (got %g)", fill);
    /* far beyond the limit by the expected count: refuse before counting */
    SPK_TRY(gen_check_size("band", n, n, (long long)((double)n * (1.0 + 1.9 * fill * w)), e));
    long long total = 0;
    for (int i = 0; i < n; i++) {
        const int j0 = i - w < 0 ? 0 : i - w, j1 = (long long)i + w >= n ? n - 1 : i + w;
        total++;
        for (int j = j0; j <= j1; j++) total += j != i && band_has(seed, i, j, fill);
        if (total > INT_MAX) break;
    }
    SPK_TRY(gen_check_size("band", n, n, total, e));
    SPK_TRY(spk_csr_alloc(A, n, n, (int)total, e));
    int q = 0;
    for (int i = 0; i < n; i++) {
        const int j0 = i - w < 0 ? 0 : i - w, j1 = (long long)i + w >= n ? n - 1 : i + w;
        double sum = 0;
        int d = -1;
        for (int j = j0; j <= j1; j++) {
            if (j == i) {
                d = q;
            } else if (band_has(seed, i, j, fill)) {
                A->val[q] = 2.0 * gen_hash_unit(seed, (uint64_t)i, (uint64_t)j, 3) - 1.0;
                sum += fabs(A->val[q]);
            } else {
                continue;
            }
            A->colind[q++] = j;
        }
        A->val[d] = sum > 0 ? 1.01 * sum : 1.0;
        A->rowptr[i + 1] = q;
    }
    return SPK_OK;
}

/* COO triplets with room for cap entries. */
typedef struct gen_coo {
    int *r, *c;
    double *v;
    size_t n, cap;
} gen_coo;

static void coo_add(gen_coo *t, int i, int j, double v)
{
    if (t->n == t->cap) return; /* cap is an upper bound: not reached */
    t->r[t->n] = i;
    t->c[t->n] = j;
    t->v[t->n++] = v;
}

/* A connection i -- j of conductance g: -g on both entries, each varied by
 * +-10% (nonsymmetric values); one in twenty connections is one-way (a
 * controlled source), one in ten of the entries is positive. */
static void circuit_edge(gen_coo *t, uint64_t *s, int i, int j)
{
    const double g = pow(10.0, 2.0 * gen_unit(s) - 1.0);
    const double u = gen_unit(s), a = gen_unit(s), b = gen_unit(s), sa = gen_unit(s), sb = gen_unit(s);
    coo_add(t, i, j, (sa < 0.1 ? 1.0 : -1.0) * g * (0.9 + 0.2 * a));
    if (u >= 0.05) coo_add(t, j, i, (sb < 0.1 ? 1.0 : -1.0) * g * (0.9 + 0.2 * b));
}

/* N nodes: each starts 1 or 2 connections, four in five to one of the next
 * 16 nodes, the rest anywhere; D supply nets (nodes spread over the range)
 * each connected to a fraction in [0.1, 0.5] of all nodes.  The diagonal is
 * the row's absolute sum times 1 + m, m log-uniform in [1e-3, 1e-1]: every
 * row strictly diagonally dominant, so A is nonsingular. */
int spk_gen_circuit(int n, int d, uint64_t seed, spk_csr *A, spk_err *e)
{
    if (!A) return spk_err_set(e, SPK_ERR_INVALID_ARG, "circuit: A is NULL");
    if (n < 2) return spk_err_set(e, SPK_ERR_INVALID_ARG, "circuit: N must be >= 2 (got %d)", n);
    if (d < 0 || d > n / 4 + 1)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "circuit: D must be in [0, N/4 + 1] (got %d for N = %d)", d, n);
    double frac[64];
    if (d > 64) return spk_err_set(e, SPK_ERR_INVALID_ARG, "circuit: D must be at most 64 (got %d)", d);
    long long cap = 5LL * n; /* the diagonal and 2 x 2 connections per node */
    for (int k = 0; k < d; k++) {
        frac[k] = 0.1 + 0.4 * gen_hash_unit(seed, (uint64_t)k, 1, 2);
        cap += 2LL * n; /* a net's row and column, at most */
    }
    SPK_TRY(gen_check_size("circuit", n, n, cap, e));
    gen_coo t = {malloc((size_t)cap * sizeof(int)), malloc((size_t)cap * sizeof(int)),
                 malloc((size_t)cap * sizeof(double)), 0, (size_t)cap};
    int st = t.r && t.c && t.v ? SPK_OK : spk_err_set(e, SPK_ERR_NOMEM, "out of host memory (circuit)");
    uint64_t s = seed;
    for (int i = 0; !st && i < n; i++) {
        coo_add(&t, i, i, 0.0);
        const int m = 1 + (int)(gen_rng(&s) & 1);
        for (int k = 0; k < m; k++) {
            int j;
            if (gen_unit(&s) < 0.8) {
                const int off = 1 + (int)(gen_rng(&s) % 16);
                j = (long long)i + off < n ? i + off : i - off;
                if (j < 0) j = (i + 1) % n;
            } else {
                j = (int)(gen_rng(&s) % (uint64_t)n);
            }
            if (j != i) circuit_edge(&t, &s, i, j);
        }
    }
    for (int k = 0; !st && k < d; k++) {
        const int net = (int)(((2LL * k + 1) * n) / (2LL * d)); /* spread over the numbering */
        for (int j = 0; j < n; j++)
            if (j != net && gen_hash_unit(seed, (uint64_t)k, (uint64_t)j, 5) < frac[k]) {
                const double g = pow(10.0, 2.0 * gen_hash_unit(seed, (uint64_t)k, (uint64_t)j, 6) - 1.0);
                coo_add(&t, net, j, -g);
                coo_add(&t, j, net, -g * (0.9 + 0.2 * gen_hash_unit(seed, (uint64_t)k, (uint64_t)j, 7)));
            }
    }
    if (!st) st = spk_csr_from_coo(n, n, t.n, t.r, t.c, t.v, A, e);
    free(t.r);
    free(t.c);
    free(t.v);
    if (!st) gen_dominant_diagonal(A, seed, 1e-3, 1e-1);
    return st;
}
