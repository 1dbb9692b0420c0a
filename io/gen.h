/* gen.h -- model problems as canonical CSR (sorted columns, no duplicates),
 * the same for every run of a spec.
 *
 * Grids have N points per dimension, lexicographic numbering, homogeneous
 * Dirichlet boundaries (boundary points eliminated), scaled by h^2:
 *   poisson2d-5:N   2D Laplacian, 5-point:   4 on the diagonal, -1 off     (N^2 rows)
 *   poisson3d-7:N   3D Laplacian, 7-point:   6 on the diagonal, -1 off     (N^3 rows)
 *   poisson3d-27:N  3D 27-point stencil:    26 on the diagonal, -1 for each of the 26 neighbours
 *   convdiff3d-7:N  -lap(u) + w . grad(u) on the unit cube, first-order upwind, w = (W, W/2, W/4)
 *                   with W = 100 unless given as convdiff3d-7:N:W (nonsymmetric M-matrix)
 *   convdiff2d-5:N[:W], aniso2d:N[:EPS[:THETA]], aniso3d:N[:EPS]  (gen_stencil.c)
 *   powerlaw:N[:G]  N rows whose off-diagonal counts follow a power law P(L) ~ L^-G (G = 2.2
 *                   unless given; L >= 3, at most N/2), at uniformly random columns, values
 *                   -(0.1..1) and a diagonal 1 + the row's absolute sum: a nonsymmetric,
 *                   strictly diagonally dominant matrix with very irregular rows (mean
 *                   length about 17 for G = 2.2), the same for every run
 *   powerlaw-sym, rgg, rgg3d (gen_graph.c); band, circuit (gen_random.c);
 *   elasticity3d, saddle (gen_block.c): see spk_gen_help().
 *   brusselator:N[:L]  Jacobian of the 2-D Brusselator model, 2 N^2 rows, not scaled by h^2;
 *                   N = 10 is SuiteSparse's rdb200 (gen_brusselator.c)
 * Random families take their seed from the spec (name, N and parameters)
 * and an optional last field seed=S.
 * Aliases: poisson5, poisson7, poisson27, convdiff7 (the baseline tools' names). */
#ifndef SPK_IO_GEN_H
#define SPK_IO_GEN_H

#include <stdint.h>

#include "core/csr.h"

int spk_gen_poisson2d5(int n, spk_csr *A, spk_err *e);
int spk_gen_poisson3d7(int n, spk_csr *A, spk_err *e);
int spk_gen_poisson3d27(int n, spk_csr *A, spk_err *e);
int spk_gen_convdiff3d7(int n, double w, spk_csr *A, spk_err *e);
int spk_gen_powerlaw(int n, double gamma, spk_csr *A, spk_err *e);
/* powerlaw with the stream seeded by seed (spk_gen_powerlaw: 12345) */
int spk_gen_powerlaw_seed(int n, double gamma, uint64_t seed, spk_csr *A, spk_err *e);
int spk_gen_convdiff2d5(int n, double w, spk_csr *A, spk_err *e);
int spk_gen_aniso2d(int n, double eps, double theta_deg, spk_csr *A, spk_err *e);
int spk_gen_aniso3d(int n, double eps, spk_csr *A, spk_err *e);
int spk_gen_powerlaw_sym(int n, double gamma, uint64_t seed, spk_csr *A, spk_err *e);
/* dims 2 or 3; k the mean degree; shuffled: a random numbering, else by cell */
int spk_gen_rgg(int n, int dims, double k, int shuffled, uint64_t seed, spk_csr *A, spk_err *e);
int spk_gen_band(int n, int w, double fill, uint64_t seed, spk_csr *A, spk_err *e);
int spk_gen_circuit(int n, int d, uint64_t seed, spk_csr *A, spk_err *e);
int spk_gen_elasticity3d(int n, double nu, spk_csr *A, spk_err *e);
int spk_gen_saddle(int n, spk_csr *A, spk_err *e);
/* len: the length L (0.5 gives rdb200, rdb1250, rdb2048; 1 gives rdb800l) */
int spk_gen_brusselator(int n, double len, spk_csr *A, spk_err *e);
/* Parse "NAME:N[:P1[:P2]][:seed=S]" and generate.  Unknown names and sizes whose row or
 * entry count exceeds 32-bit indices fail with SPK_ERR_INVALID_ARG. */
int spk_gen_spec(const char *spec, spk_csr *A, spk_err *e);
/* Help text listing the generators. */
const char *spk_gen_help(void);

/* Row ranges of a spec's matrix, so that each MPI rank builds only its own rows. */
/* The size of the matrix a spec names, without generating it: *n rows (= columns).
 * Same validation and error messages as spk_gen_spec (the spec, N and the row count; not the
 * entry count, which a range of the matrix need not reach). */
int spk_gen_spec_size(const char *spec, int *n, spk_err *e);
/* Can spk_gen_spec_rows make a row range of this spec's family directly (1), or only by
 * generating the whole matrix (0)?  (0 also for an invalid spec.)  1 for the grid and block
 * families (poisson*, convdiff*, aniso*, elasticity3d, saddle, brusselator), 0 for the random. */
int spk_gen_spec_has_rows(const char *spec);
/* Rows row_begin .. row_end-1 of the matrix spk_gen_spec(spec) makes, with their global
 * column indices: rows->nrows = row_end - row_begin, rows->ncols = n, the entries
 * bit-for-bit those of the same rows of spk_gen_spec's matrix (same order, same values).
 * Direct families use memory for the range only, and only the range's entries must fit in
 * 32 bits; the random families (powerlaw, powerlaw-sym, rgg, rgg3d, band, circuit) generate
 * the whole matrix and copy the rows out (memory of the whole matrix, then freed).
 * 0 <= row_begin <= row_end <= n, else SPK_ERR_INVALID_ARG; every message names the spec. */
int spk_gen_spec_rows(const char *spec, int row_begin, int row_end, spk_csr *rows, spk_err *e);

#endif
