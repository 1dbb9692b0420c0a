/* devfactor.cu -- the kernels of devfactor.h, one module built from its
 * parts by concept:
 *   devfactor_common.cuh   block size and grids, shared by the parts;
 *   devfactor_pattern.cuh  F's pattern, the rows' dependencies and order;
 *   devfactor_numeric.cuh  the numeric IC(0) / ILU(0);
 *   devfactor_iter.cuh     ... by fixed-point sweeps;
 *   devfactor_sweep.cuh    the sweeps, and the copies of the triangles they read;
 *   devfactor_check.cuh    the probe, differences and norms of the sweeps' check;
 *   devfactor_small.cuh    a small system's apply in one thread block.
 * The parts use devfactor_common.cuh and devtri.cuh, never each other.
 * They are one translation unit, so one module, on purpose: a solve that
 * runs work alongside a build loads this module's kernels ahead through
 * spk_devfactor_probe (a kernel's first load may wait for all the device's
 * work), and every kernel the build launches must be among them. */
#include "devfactor.h"
#include "devfactor_common.cuh"
#include "devfactor_pattern.cuh"
#include "devfactor_numeric.cuh"
#include "devfactor_iter.cuh"
#include "devfactor_sweep.cuh"
#include "devfactor_check.cuh"
#include "devfactor_small.cuh"

extern "C" const void *spk_devfactor_probe(void)
{
    return (const void *)order_kernel;
}
