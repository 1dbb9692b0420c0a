/* gen_util.h -- what the generators of io/gen_*.c share (not installed):
 * a small deterministic pseudo-random generator (splitmix64), a hash of a
 * few integers for entries decided independently of the order they are
 * made in, the 32-bit size check, and assembly helpers. */
#ifndef SPK_IO_GEN_UTIL_H
#define SPK_IO_GEN_UTIL_H

#include <stdint.h>

#include "core/csr.h"

/* splitmix64's finalizer: a bijective scramble of 64 bits. */
static inline uint64_t gen_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The next number of the stream *s (splitmix64). */
static inline uint64_t gen_rng(uint64_t *s)
{
    return gen_mix(*s += 0x9E3779B97F4A7C15ull);
}

/* 53 random bits as a double in (0, 1). */
static inline double gen_to_unit(uint64_t z)
{
    return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

/* Uniform in (0, 1) from the stream *s. */
static inline double gen_unit(uint64_t *s)
{
    return gen_to_unit(gen_rng(s));
}

/* A uniform number in (0, 1) fixed by (seed, a, b, c) alone. */
static inline double gen_hash_unit(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t z = gen_mix(seed ^ (a * 0x9E3779B97F4A7C15ull));
    z = gen_mix(z ^ (b * 0xC2B2AE3D27D4EB4Full));
    return gen_to_unit(gen_mix(z ^ (c * 0x165667B19E3779F9ull + 1)));
}

/* SPK_ERR_INVALID_ARG naming NAME:N when rows or entries pass 32-bit indices. */
int gen_check_size(const char *name, long long n, long long rows, long long nnz, spk_err *e);
/* Sort n ints ascending (insertion sort for short rows, qsort otherwise). */
void gen_sort_ints(int *a, int n);
/* A = U + U^T + D for a canonical strictly upper triangular U, with
 * d_i = scale * (sum of |a_ij|, j != i) + shift: symmetric, canonical. */
int gen_sym_from_upper(const char *name, long long n, const spk_csr *U, double scale, double shift,
                       spk_csr *A, spk_err *e);
/* Set every stored diagonal of A to its row's off-diagonal absolute sum
 * times (1 + m_i), m_i log-uniform in [lo, hi] from seed (1 for an empty row). */
void gen_dominant_diagonal(spk_csr *A, uint64_t seed, double lo, double hi);

#endif
