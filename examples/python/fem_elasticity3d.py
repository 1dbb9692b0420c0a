#!/usr/bin/env python3
"""fem_elasticity3d.py -- 3-D linear elasticity assembled by scikit-fem, solved by spk and by SciPy.

A cantilever: the box [0, 4] x [0, 1] x [0, 1] of an isotropic material
(E = 1000, nu = 0.3) clamped on its face x = 0 (u = 0) and loaded by its own
weight, a body force (0, 0, -1).  scikit-fem builds a tensor mesh of
tetrahedra with --n elements across the section (4n along the beam),
assembles the stiffness matrix of vector P1 elements and the load vector,
and condenses the clamped degrees of freedom out (skfem.condense): an SPD
system of 3 * 4n * (n+1)^2 unknowns.  That system is solved by spk (its
default choice, and CG with IC(0)) and by SciPy (CG without and with a
Jacobi preconditioner, and spsolve up to --spsolve-max unknowns); see
fem_compare.py for the table.  The tip deflection of spk's solution is
printed next to Euler-Bernoulli's q L^4 / (8 E I) as a sanity check: linear
tetrahedra are too stiff in bending on a coarse mesh (below it), shear
deformation adds a few percent on a fine one (above it).

Exit status 1 when an spk solve misses --rtol (residual computed here) or
its solution differs from the reference by more than --max-diff.

    python3 fem_elasticity3d.py             # n = 20: 105,840 unknowns
    python3 fem_elasticity3d.py --n 6       # small: 3,528 unknowns
"""
import argparse
import sys
import time

import numpy as np
from skfem import Basis, ElementTetP1, ElementVector, LinearForm, MeshTet, asm, condense
from skfem.models.elasticity import lame_parameters, linear_elasticity

import fem_compare

LENGTH, E, NU = 4.0, 1000.0, 0.3


@LinearForm
def weight(v, _):
    return -1.0 * v.value[2]  # body force (0, 0, -1) per unit volume


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=20,
                   help="elements across the 1 x 1 section; 4n along the beam (default %(default)d)")
    fem_compare.add_arguments(p, spsolve_max=20000, max_diff=1e-5)
    args = p.parse_args()
    if args.n < 1:
        p.error("--n must be at least 1")

    t0 = time.perf_counter()
    n = args.n
    mesh = MeshTet.init_tensor(np.linspace(0.0, LENGTH, 4 * n + 1), np.linspace(0.0, 1.0, n + 1),
                               np.linspace(0.0, 1.0, n + 1))
    basis = Basis(mesh, ElementVector(ElementTetP1()))
    K = asm(linear_elasticity(*lame_parameters(E, NU)), basis)
    f = asm(weight, basis)
    clamped = basis.get_dofs(lambda x: np.isclose(x[0], 0.0))
    A, b, u, interior = condense(K, f, D=clamped)
    t_asm = time.perf_counter() - t0

    title = ("Linear elasticity, cantilever %g x 1 x 1 clamped at x = 0, own weight; vector P1 tets, "
             "%d x %d x %d cells; scikit-fem assembly %.2f s" % (LENGTH, 4 * n, n, n, t_asm))
    status, x = fem_compare.run(A, b, args, title)

    u[interior] = x
    tip = np.isclose(mesh.p[0], LENGTH)
    w_tip = -np.mean(u[basis.nodal_dofs[2]][tip])
    w_beam = 1.0 * LENGTH ** 4 / (8.0 * E * (1.0 / 12.0))  # q = weight per length = 1, I = 1/12
    print("spk default: tip deflection %.4f (Euler-Bernoulli beam %.4f)" % (w_tip, w_beam))
    print("fem_elasticity3d: %s" % ("ok" if status == 0 else "FAILED"))
    return status


if __name__ == "__main__":
    sys.exit(main())
