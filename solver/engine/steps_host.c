/* steps_host.c -- the fused steps (steps.h) on the host executor: the
 * plain operations' arithmetic, in their order, in one pass; reductions in
 * the host executor's order (core/host_sum.h), so a fused solve equals the
 * classic one to the bit. */
#include <math.h>
#include <string.h>

#include "core/exec.h"
#include "core/host_sum.h"
#include "solver/engine/steps.h"

static int hk_cg_update(spk_exec *e, int n, int rz, int pq, const double *p, const double *q, double *x, double *r,
                        int o)
{
    double *s = e->ops->async->slots(e);
    const double a = s[rz] / s[pq], na = -a;
    if (!(s[rz] > 0 && s[pq] > 0 && isfinite(s[rz]) && isfinite(s[pq]) && isfinite(a))) {
        s[o] = NAN;
        return SPK_OK;
    }
#define CG_UPDATE(i, acc, unused)                 \
    do {                                  \
        x[i] += a * p[i];                 \
        r[i] += na * q[i];                \
        acc += r[i] * r[i];               \
    } while (0)
    double none;
    SPK_REDUCE4(n, CG_UPDATE, s[o], none);
#undef CG_UPDATE
    (void)none;
    return SPK_OK;
}

static int hk_cg_direction(spk_exec *e, int n, int num, int den, const double *z, double *p)
{
    const double *s = e->ops->async->slots(e);
    const double b = s[num] / s[den];
    if (!isfinite(b)) return SPK_OK;
    SPK_OMP(omp parallel for schedule(static) if (n >= SPK_PAR_MIN))
    for (int i = 0; i < n; i++) p[i] = 1.0 * z[i] + b * p[i];
    return SPK_OK;
}

static int hk_bicg_direction(spk_exec *e, int n, int fresh, int rho, int rho_old, int r0v, int ts, int tt,
                             const double *r, const double *v, double *p)
{
    const double *s = e->ops->async->slots(e);
    if (!(isfinite(s[rho]) && s[rho] != 0)) return SPK_OK;
    if (fresh) {
        spk_host_copy(n, r, p);
        return SPK_OK;
    }
    const double alpha = s[rho_old] / s[r0v], omega = s[ts] / s[tt];
    const double beta = (s[rho] / s[rho_old]) * (alpha / omega), nw = -omega;
    if (!isfinite(beta)) return SPK_OK;
    SPK_OMP(omp parallel for schedule(static) if (n >= SPK_PAR_MIN))
    for (int i = 0; i < n; i++) {
        const double t = p[i] + nw * v[i];
        p[i] = 1.0 * r[i] + beta * t;
    }
    return SPK_OK;
}

static int hk_bicg_s(spk_exec *e, int n, int rho, int r0v, const double *v, double *r, int o)
{
    double *s = e->ops->async->slots(e);
    const double a = s[rho] / s[r0v], na = -a;
    if (!isfinite(a)) {
        s[o] = NAN;
        return SPK_OK;
    }
#define BICG_S(i, acc, unused)                    \
    do {                                  \
        r[i] += na * v[i];                \
        acc += r[i] * r[i];               \
    } while (0)
    double none;
    SPK_REDUCE4(n, BICG_S, s[o], none);
#undef BICG_S
    (void)none;
    return SPK_OK;
}

static int hk_axpy_ratio(spk_exec *e, int n, int num, int den, const double *x, double *y)
{
    const double *s = e->ops->async->slots(e);
    const double a = s[num] / s[den];
    if (!isfinite(a)) return SPK_OK;
    SPK_OMP(omp parallel for schedule(static) if (n >= SPK_PAR_MIN))
    for (int i = 0; i < n; i++) y[i] += a * x[i];
    return SPK_OK;
}

static int hk_bicg_update(spk_exec *e, int n, int rho, int r0v, int ts, int tt, const double *ph, const double *sh,
                          const double *t, double *x, double *r, int o)
{
    double *s = e->ops->async->slots(e);
    const double a = s[rho] / s[r0v], w = s[ts] / s[tt], nw = -w;
    if (!(s[tt] != 0 && isfinite(s[tt]) && isfinite(s[ts]) && isfinite(a) && isfinite(w))) {
        s[o] = NAN;
        return SPK_OK;
    }
#define BICG_UPDATE(i, acc, unused)               \
    do {                                  \
        x[i] += a * ph[i];                \
        x[i] += w * sh[i];                \
        r[i] += nw * t[i];                \
        acc += r[i] * r[i];               \
    } while (0)
    double none;
    SPK_REDUCE4(n, BICG_UPDATE, s[o], none);
#undef BICG_UPDATE
    (void)none;
    return SPK_OK;
}

const struct spk_steps_ops spk_steps_host = {
    hk_cg_update, hk_cg_direction, hk_bicg_direction, hk_bicg_s, hk_axpy_ratio, hk_bicg_update,
};

const struct spk_steps_ops *spk_steps_of(const spk_exec *e)
{
    if (!e || !e->ops || !e->ops->async) return NULL;
#ifdef SPK_HAVE_CUDA
    if (!spk_exec_is_host(e)) return &spk_steps_cuda;
#endif
    return &spk_steps_host;
}
