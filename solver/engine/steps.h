/* steps.h -- the fused steps of CG and BiCGStab: each updates its vectors
 * and, where it has one, reduces its result into a scalar slot of the
 * executor (core/exec.h, spk_exec_async_ops), so an iteration queues its
 * work without waiting and reads its scalars once.  The ratios are computed
 * where they are used, from the slots (s[a] / s[b]), as the classic drivers
 * compute them on the host; a step whose guard fails changes no vector and
 * sets its result slot to NaN.  On the host each step does the arithmetic
 * of the plain operations it replaces, in their order (steps_host.c), so a
 * fused solve there equals the classic one to the bit; on the GPU each is
 * one kernel (step_kernels.cu). */
#ifndef SPK_SOLVER_ENGINE_STEPS_H
#define SPK_SOLVER_ENGINE_STEPS_H

#include "core/exec.h"

struct spk_steps_ops {
    /* CG: a = s[rz] / s[pq], guard s[rz] > 0, s[pq] > 0, a finite:
     * x += a p; r += (-a) q; s[o] = r'r */
    int (*cg_update)(spk_exec *e, int n, int rz, int pq, const double *p, const double *q, double *x, double *r,
                     int o);
    /* CG: b = s[num] / s[den], guard b finite: p = z + b p */
    int (*cg_direction)(spk_exec *e, int n, int num, int den, const double *z, double *p);
    /* BiCGStab: fresh: p = r; else, guard s[rho] finite and nonzero and beta
     * finite: beta = (s[rho] / s[rho_old]) * ((s[rho_old] / s[r0v]) / (s[ts] / s[tt])),
     * p = r + beta (p + (-omega) v) with omega = s[ts] / s[tt] (the previous
     * iteration's alpha and omega) */
    int (*bicg_direction)(spk_exec *e, int n, int fresh, int rho, int rho_old, int r0v, int ts, int tt,
                          const double *r, const double *v, double *p);
    /* BiCGStab: a = s[rho] / s[r0v], guard a finite: r += (-a) v; s[o] = r'r */
    int (*bicg_s)(spk_exec *e, int n, int rho, int r0v, const double *v, double *r, int o);
    /* y += (s[num] / s[den]) x, guard the ratio finite */
    int (*axpy_ratio)(spk_exec *e, int n, int num, int den, const double *x, double *y);
    /* BiCGStab: a = s[rho] / s[r0v], w = s[ts] / s[tt], guard s[tt] nonzero
     * and a, w, s[ts], s[tt] finite: x = (x + a ph) + w sh; r += (-w) t; s[o] = r'r */
    int (*bicg_update)(spk_exec *e, int n, int rho, int r0v, int ts, int tt, const double *ph, const double *sh,
                       const double *t, double *x, double *r, int o);
};

/* The steps for e's vectors: the host's or the GPU's; NULL where e keeps
 * no scalars (spk_exec_ops.async NULL, e.g. across MPI ranks). */
const struct spk_steps_ops *spk_steps_of(const spk_exec *e);

extern const struct spk_steps_ops spk_steps_host;
#ifdef SPK_HAVE_CUDA
extern const struct spk_steps_ops spk_steps_cuda;
#endif

#endif
