/* steps_cuda.c -- the fused steps (steps.h) on the CUDA executor: one
 * kernel each (step_kernels.cu) on the executor's stream, its scalars in
 * the executor's slots. */
#include "core/exec_cuda.h"
#include "solver/engine/step_kernels.h"
#include "solver/engine/steps.h"

/* The executor's stream and slots, or return its error. */
#define DEV(e, s, d)                                    \
    cudaStream_t s;                                     \
    spk_slot_dev d;                                     \
    SPK_TRY(spk_exec_cuda_slot_dev((e), &(d)));         \
    spk_exec_cuda_handles((e), &(s), NULL, NULL)

static int cs_cg_update(spk_exec *e, int n, int rz, int pq, const double *p, const double *q, double *x, double *r,
                        int o)
{
    DEV(e, s, d);
    SPK_CUDA_TRY(e->err, spk_step_cg_update(s, &d, n, rz, pq, p, q, x, r, o));
    return SPK_OK;
}

static int cs_cg_direction(spk_exec *e, int n, int num, int den, const double *z, double *p)
{
    DEV(e, s, d);
    SPK_CUDA_TRY(e->err, spk_step_cg_direction(s, &d, n, num, den, z, p));
    return SPK_OK;
}

static int cs_bicg_direction(spk_exec *e, int n, int fresh, int rho, int rho_old, int r0v, int ts, int tt,
                             const double *r, const double *v, double *p)
{
    DEV(e, s, d);
    SPK_CUDA_TRY(e->err, spk_step_bicg_direction(s, &d, n, fresh, rho, rho_old, r0v, ts, tt, r, v, p));
    return SPK_OK;
}

static int cs_bicg_s(spk_exec *e, int n, int rho, int r0v, const double *v, double *r, int o)
{
    DEV(e, s, d);
    SPK_CUDA_TRY(e->err, spk_step_bicg_s(s, &d, n, rho, r0v, v, r, o));
    return SPK_OK;
}

static int cs_axpy_ratio(spk_exec *e, int n, int num, int den, const double *x, double *y)
{
    DEV(e, s, d);
    SPK_CUDA_TRY(e->err, spk_step_axpy_ratio(s, &d, n, num, den, x, y));
    return SPK_OK;
}

static int cs_bicg_update(spk_exec *e, int n, int rho, int r0v, int ts, int tt, const double *ph, const double *sh,
                          const double *t, double *x, double *r, int o)
{
    DEV(e, s, d);
    SPK_CUDA_TRY(e->err, spk_step_bicg_update(s, &d, n, rho, r0v, ts, tt, ph, sh, t, x, r, o));
    return SPK_OK;
}

const struct spk_steps_ops spk_steps_cuda = {
    cs_cg_update, cs_cg_direction, cs_bicg_direction, cs_bicg_s, cs_axpy_ratio, cs_bicg_update,
};
