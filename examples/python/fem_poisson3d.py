#!/usr/bin/env python3
"""fem_poisson3d.py -- a 3-D Poisson problem assembled by scikit-fem, solved by spk and by SciPy.

    -lap u = f  in the unit cube,  u = 0 on its boundary,
    u = e^x g(x) g(y) g(z), g(t) = t (1 - t)   (the exact solution; f = -lap u)

scikit-fem builds a tensor mesh of --n points per edge, of tetrahedra (P1,
the default) or hexahedra (Q1, --mesh hex), assembles the stiffness matrix
and load vector, and condenses the Dirichlet nodes out (skfem.condense): an
SPD system of (n-2)^3 unknowns.  That system is solved by spk (its default
choice, and CG with IC(0)) and by SciPy (CG without and with a Jacobi
preconditioner, and spsolve up to --spsolve-max unknowns); see fem_compare.py
for the table.  The nodal error of spk's solution against the exact u is
printed too (O(h^2)).

Exit status 1 when an spk solve misses --rtol (residual computed here) or
its solution differs from the reference by more than --max-diff.

    python3 fem_poisson3d.py                # n = 50: 110,592 unknowns (P1 tets)
    python3 fem_poisson3d.py --n 16         # small: 2,744 unknowns
    python3 fem_poisson3d.py --mesh hex --n 40
"""
import argparse
import sys
import time

import numpy as np
from skfem import Basis, BilinearForm, ElementHex1, ElementTetP1, LinearForm, MeshHex, MeshTet, asm, condense
from skfem.helpers import dot, grad

import fem_compare


@BilinearForm
def laplace(u, v, _):
    return dot(grad(u), grad(v))


@LinearForm
def load(v, w):
    x, y, z = w.x
    gx, gy, gz = x * (1 - x), y * (1 - y), z * (1 - z)
    return np.exp(x) * (x * (x + 3) * gy * gz + 2 * gx * gz + 2 * gx * gy) * v


def exact(X):
    x, y, z = X
    return np.exp(x) * x * (1 - x) * y * (1 - y) * z * (1 - z)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=50, help="mesh points per edge of the cube (default %(default)d)")
    p.add_argument("--mesh", choices=("tet", "hex"), default="tet",
                   help="tetrahedra with P1 or hexahedra with Q1 elements (default %(default)s)")
    fem_compare.add_arguments(p, spsolve_max=40000, max_diff=1e-6)
    args = p.parse_args()
    if args.n < 3:
        p.error("--n must be at least 3")

    t0 = time.perf_counter()
    pts = np.linspace(0.0, 1.0, args.n)
    if args.mesh == "tet":
        mesh, elem = MeshTet.init_tensor(pts, pts, pts), ElementTetP1()
    else:
        mesh, elem = MeshHex.init_tensor(pts, pts, pts), ElementHex1()
    basis = Basis(mesh, elem)
    K = asm(laplace, basis)
    f = asm(load, basis)
    A, b, u, interior = condense(K, f, D=basis.get_dofs())
    t_asm = time.perf_counter() - t0

    title = ("Poisson, unit cube, %s (%s), %d points per edge, h = %.4g; scikit-fem assembly %.2f s"
             % (args.mesh, type(elem).__name__, args.n, 1.0 / (args.n - 1), t_asm))
    status, x = fem_compare.run(A, b, args, title)

    u[interior] = x
    print("spk default: max nodal error against the exact solution %.3e (max |u| %.3e)"
          % (np.max(np.abs(u - exact(mesh.p))), np.max(np.abs(exact(mesh.p)))))
    print("fem_poisson3d: %s" % ("ok" if status == 0 else "FAILED"))
    return status


if __name__ == "__main__":
    sys.exit(main())
