/* gen_util.h -- what the generators of io/gen_*.c share (not installed):
 * a small deterministic pseudo-random generator (splitmix64), a hash of a
 * few integers for entries decided independently of the order they are
 * made in, the 32-bit size check, and assembly helpers. */
#ifndef SPK_IO_GEN_UTIL_H
#define SPK_IO_GEN_UTIL_H

#include <stddef.h>
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

/* The rows a generator makes: the whole matrix (whole = 1, with the whole matrix's 32-bit
 * checks), or rows r0 .. r1-1 with their global columns (0 <= r0 <= r1 <= its rows); then only
 * the rows and the range's entries need fit in int, the whole matrix's entries need not. */
typedef struct gen_range {
    int whole, r0, r1;
} gen_range;
#define GEN_WHOLE ((gen_range){1, 0, 0})

/* A family's row writer: rows r0 .. r1-1 of its matrix (global columns) into T from position 0
 * (T->rowptr[i + 1] ends row r0 + i); with T NULL it only counts, and may stop once past
 * INT_MAX.  Returns the entries written or counted. */
typedef long long (*gen_emit_fn)(const void *ctx, int r0, int r1, spk_csr *T);
/* A = rows rg of the rows x rows matrix that emit writes (ctx: its parameters).  Whole: nnz
 * entries, counted and checked against 32 bits by the caller.  A range: counted by emit first
 * and refused when over INT_MAX.  So both come from the one writer. */
int gen_emit(const char *name, long long n, int rows, long long nnz, gen_range rg, gen_emit_fn emit,
             const void *ctx, spk_csr *A, spk_err *e);

/* The families of spk_gen_spec; GEN_P2 .. GEN_AN3 are gen_stencil.c's; GEN_ZH3 .. GEN_ZML the
 * complex ones of spk_gen_zspec (gen_complex.c). */
enum {
    GEN_P2, GEN_P3, GEN_P27, GEN_CD3, GEN_CD2, GEN_AN2, GEN_AN3, GEN_PL, GEN_PLS, GEN_RGG, GEN_RGG3, GEN_BAND,
    GEN_CIRC, GEN_EL3, GEN_SAD, GEN_BRU, GEN_ZH3, GEN_ZH2, GEN_ZCC, GEN_ZML
};

/* ---- specs: NAME:N[:P1[:P2]][:seed=S] (gen.c) -------------------------------------------- */

/* One optional parameter after N: its name in messages, its letter, its
 * default and range (lo < p < hi, or <= where incl), integer or a word
 * (rgg's ORDER: local = 0, shuffled = 1). */
typedef struct gen_param {
    const char *what, *sym, *rule;
    double def, lo, hi;
    int lo_incl, hi_incl, integer, word;
} gen_param;

/* How a family is made: GEN_F_ROWS, any range of rows on its own (grid and block families);
 * GEN_F_RANDOM, seeded from the spec and built whole (one random stream over the matrix). */
enum { GEN_F_ROWS, GEN_F_RANDOM };

typedef struct gen_family {
    int kind; /* GEN_P2 ... */
    const char *name, *alias, *usage;
    int how; /* GEN_F_ROWS or GEN_F_RANDOM */
    int np;
    gen_param p[2];
} gen_family;

/* A spec parsed: its family, N, parameters and seed. */
typedef struct gen_parsed {
    const gen_family *f;
    int n;
    double v[2];
    uint64_t seed;
} gen_parsed;

/* The family of table[0 .. n) named (or aliased) by the len bytes at s, ignoring case; NULL if none. */
const gen_family *gen_find_family(const gen_family *table, int n, const char *s, size_t len);
/* Parse "NAME:N[:P1[:P2]][:seed=S]" (spec not NULL) against the families table[0 .. n) into *g;
 * SPK_ERR_INVALID_ARG naming the spec, valid (the list of usages) in the messages about the name. */
int gen_parse_spec(const gen_family *table, int n, const char *valid, const char *spec, gen_parsed *g,
                   spk_err *e);
/* Rows rg of stencil family kind (GEN_P2 .. GEN_AN3) with its parameters v (as spk_gen_spec
 * parses them; unused ones ignored) on N points per dimension. */
int gen_stencil_rows(int kind, int n, const double *v, gen_range rg, spk_csr *A, spk_err *e);
/* Rows rg of a 3-dof block stencil on N^3 nodes (gen_block.c): blk->b[t] is the 3 x 3 block
 * between a node and its neighbour at offset gen_block27_offset(t) (t = 13: itself); full blocks
 * stored for every neighbour inside the grid.  name is used in messages. */
typedef struct gen_blocks27 {
    double b[27][3][3];
} gen_blocks27;
int gen_block27_rows(const char *name, int n, const gen_blocks27 *blk, gen_range rg, spk_csr *A, spk_err *e);
/* The offset (dx, dy, dz), each in {-1, 0, 1}, of block t = 9 (dz + 1) + 3 (dy + 1) + dx + 1. */
void gen_block27_offset(int t, int d[3]);
/* c times the block of offset d of G = D^T D, D the trilinear element's divergence per grid cell
 * (the grad-div part of elasticity3d; PSD, with 0 <= G <= 4 kron(L7, I3)). */
void gen_graddiv_block(const int d[3], double c, double blk[3][3]);
/* Rows rg of spk_gen_elasticity3d, spk_gen_saddle, spk_gen_brusselator. */
int gen_elasticity3d_rows(int n, double nu, gen_range rg, spk_csr *A, spk_err *e);
int gen_saddle_rows(int n, gen_range rg, spk_csr *A, spk_err *e);
int gen_brusselator_rows(int n, double len, gen_range rg, spk_csr *A, spk_err *e);
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
