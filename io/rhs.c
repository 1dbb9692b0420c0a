/* rhs.c -- b = A*1, or b = A*r with a fixed pseudo-random r when A*1 = 0;
 * or b = A*x* with x* uniform in [-1, 1) from a seed. */
#include "rhs.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/gen_util.h"

int spk_rhs_known_solution(const spk_csr *A, double *xstar, double *b)
{
    for (int j = 0; j < A->ncols; j++) xstar[j] = 1.0;
    spk_csr_spmv(A, 1.0, xstar, 0.0, b);
    double bmax = 0;
    for (int i = 0; i < A->nrows; i++) bmax = fmax(bmax, fabs(b[i]));
    if (bmax > 0 || A->nrows == 0) return 0;
    uint64_t s = 0x9E3779B97F4A7C15ull; /* 64-bit LCG, fixed seed: reproducible */
    for (int j = 0; j < A->ncols; j++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        xstar[j] = (double)(s >> 11) * (1.0 / 9007199254740992.0);
    }
    spk_csr_spmv(A, 1.0, xstar, 0.0, b);
    return 1;
}

/* The LCG above after j + 1 steps from its seed, by doubling (O(log j)). */
static uint64_t lcg_at(long long j)
{
    uint64_t a = 6364136223846793005ull, c = 1442695040888963407ull; /* one step */
    uint64_t am = 1, cm = 0;                                          /* the steps taken so far */
    for (unsigned long long k = (unsigned long long)j + 1; k; k >>= 1) {
        if (k & 1) {
            am *= a;
            cm = cm * a + c;
        }
        c = c * (a + 1);
        a = a * a;
    }
    return am * 0x9E3779B97F4A7C15ull + cm;
}

double spk_rhs_xstar_at(const spk_rhs_kind *k, int fallback, long long j)
{
    if (k && k->random) { /* the (j + 1)-th number of the seeded splitmix64 stream */
        const uint64_t s = gen_mix(k->seed ^ 0x5DEECE66Dull) + (uint64_t)(j + 1) * 0x9E3779B97F4A7C15ull;
        return -1.0 + (double)(gen_mix(s) >> 11) * (2.0 / 9007199254740992.0);
    }
    if (!fallback) return 1.0;
    return (double)(lcg_at(j) >> 11) * (1.0 / 9007199254740992.0);
}

int spk_rhs_known_solution_arrays(int nrows, int ncols, const int *rowptr, const int *colind,
                                  const double *val, double *xstar, double *b)
{
    spk_csr A = {nrows, ncols, rowptr[nrows], (int *)rowptr, (int *)colind, (double *)val};
    return spk_rhs_known_solution(&A, xstar, b);
}

int spk_rhs_kind_parse(const char *text, spk_rhs_kind *k, spk_err *e)
{
    k->random = 0;
    k->seed = SPK_RHS_DEFAULT_SEED;
    if (!text || strcmp(text, "ones") == 0) return SPK_OK;
    if (strncmp(text, "random", 6) == 0 && (text[6] == 0 || text[6] == ':')) {
        k->random = 1;
        if (!text[6]) return SPK_OK;
        char *q;
        const char *s = text + 7;
        if (*s >= '0' && *s <= '9') {
            k->seed = strtoull(s, &q, 10);
            if (!*q) return SPK_OK;
        }
    }
    return spk_err_set(e, SPK_ERR_INVALID_ARG,
                       "bad right-hand side kind '%s': expected ones, random or random:SEED (SEED a "
                       "decimal integer)",
                       text);
}

void spk_rhs_kind_text(const spk_rhs_kind *k, char *buf, size_t n)
{
    if (k->random) snprintf(buf, n, "random:%llu", (unsigned long long)k->seed);
    else snprintf(buf, n, "ones");
}

void spk_rhs_random_solution(const spk_csr *A, uint64_t seed, double *xstar, double *b)
{
    uint64_t s = gen_mix(seed ^ 0x5DEECE66Dull);
    for (int j = 0; j < A->ncols; j++)
        xstar[j] = -1.0 + (double)(gen_rng(&s) >> 11) * (2.0 / 9007199254740992.0); /* [-1, 1) */
    spk_csr_spmv(A, 1.0, xstar, 0.0, b);
}

void spk_rhs_random_solution_arrays(int nrows, int ncols, const int *rowptr, const int *colind,
                                    const double *val, uint64_t seed, double *xstar, double *b)
{
    spk_csr A = {nrows, ncols, rowptr[nrows], (int *)rowptr, (int *)colind, (double *)val};
    spk_rhs_random_solution(&A, seed, xstar, b);
}
