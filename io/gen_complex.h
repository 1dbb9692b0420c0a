/* gen_complex.h -- complex model problems as canonical complex CSR (core/zcsr.h: sorted
 * columns, no duplicates, (re, im) pairs), the same for every run of a spec.
 *
 * Grids as in gen.h: N points per dimension, lexicographic numbering (x fastest), homogeneous
 * Dirichlet boundary eliminated, scaled by h^2 with h = 1/(N+1).
 *   helmholtz3d:N[:K[:L]]  -lap(u) - K^2 (1 + i sigma) u: the 7-point Laplacian (6, -1) with
 *                   -(K h)^2 (1 + i sigma) added to the diagonal.  K, the wavenumber, is
 *                   2 pi (N+1) / 10 unless given: 10 points per wavelength at every N, (N+1)/10
 *                   wavelengths across the cube.  sigma = 0 inside; an absorbing layer of the
 *                   L points nearest each face (L = max(2, N/8) unless given; 0: none) has
 *                   sigma = 1.5 (d / L)^2, d the depth of the point into the layer (1 at its
 *                   inner edge, L at the face; the deepest axis counts).  Complex symmetric
 *                   (A = A^T, not Hermitian where K > 0 and L > 0); the real part is
 *                   indefinite where (K h)^2 exceeds the Laplacian's smallest eigenvalue
 *                   12 sin^2(pi h / 2) (with the default K from N = 8 on).  N^3 rows.
 *   helmholtz2d:N[:K[:L]]  the same in 2-D: 5-point (4, -1), N^2 rows (indefinite where
 *                   (K h)^2 > 8 sin^2(pi h / 2); with the default K from N = 7 on).
 *   curlcurl:N[:K[:S]]  curl curl u - K^2 u + i K S u for a vector field u on N^3 nodes, 3
 *                   unknowns per node numbered node-major (3 N^3 rows).  curl curl = -lap +
 *                   grad div, discretized as kron(L7, I3) - G/4: L7 the 7-point Laplacian, G
 *                   elasticity3d's grad-div part (D^T D, D the divergence of the trilinear
 *                   element per cell), whose mixed second differences couple the components;
 *                   0 <= G/4 <= kron(L7, I3), so this part is positive semidefinite and nearly
 *                   singular on discrete gradients.  Then -(K h)^2 + i K S h^2 on the diagonal;
 *                   K = 2 pi (one wavelength across the cube), S = 1 unless given.  Full 3 x 3
 *                   blocks between 27-point neighbours (81 entries in an interior row; the
 *                   couplings that vanish are stored as zeros, as in elasticity3d).  Complex
 *                   symmetric (not Hermitian where K S != 0), real part indefinite.
 *   maglap2d:N[:B]  the 2-D magnetic Laplacian: 4 on the diagonal, -exp(i theta_ij) from node i
 *                   to each neighbour j, with the Peierls phases of a uniform field of B flux
 *                   quanta per cell (B = 0.1 unless given): theta = 2 pi B y on the link from
 *                   (x, y) to (x+1, y), 0 on the links along y, theta_ji = -theta_ij.  Hermitian
 *                   (not symmetric for N >= 2 unless B is an integer) and positive definite:
 *                   the Dirichlet boundary keeps its smallest eigenvalue at or above the
 *                   Laplacian's, 8 sin^2(pi h / 2) (diamagnetic inequality).  N^2 rows.
 * None is random: a seed=S field is refused. */
#ifndef SPK_IO_GEN_COMPLEX_H
#define SPK_IO_GEN_COMPLEX_H

#include "core/zcsr.h"

/* Parse "NAME:N[:P1[:P2]]" of a complex family and generate.  An unknown name, a bad N or
 * parameter, and sizes whose rows or entries exceed 32-bit indices fail with
 * SPK_ERR_INVALID_ARG and a message naming the spec. */
int spk_gen_zspec(const char *spec, spk_zcsr *A, spk_err *e);
/* 1 when the name of spec (up to its first ':') is one of the complex families above, whatever
 * follows it (so a bad spec of theirs gets spk_gen_zspec's message); else 0. */
int spk_gen_spec_is_complex(const char *spec);
/* Help text listing the complex families. */
const char *spk_gen_zhelp(void);

#endif
