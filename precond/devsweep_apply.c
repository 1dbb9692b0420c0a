/* devsweep_apply.c -- z = M^-1 r for the GPU sweeps (devsweep.h), each
 * way: K Jacobi sweeps per triangle a kernel each (on the sliced copies, the
 * lean ones in float with scaled iterates, or F as stored), all sweeps in
 * one block, exact solves in one block, or cusparseSpSV.  Queued on the
 * executor's stream, nothing waited for. */
#include "devsweep.h"

/* One sweep on triangle t: out = D^-1 (b - S x) (x NULL: x = D^-1 b). */
int spk_devsweep_sweep_once(dev_pc *p, int t, const double *b, const double *x, double *out)
{
    spk_err *err = p->e->err;
    const int n = p->n;
    const tri_view v = tri_of(p, t);
    if (p->scol[t] && p->lean)
        SPK_CUDA_TRY(err, spk_dev_lean_sweep(p->s, n, p->wide[t], p->ssp[t], p->scol[t], p->narrow[t], p->sval[t],
                                             p->single, 0, 0, v.id, b, NULL, 1.0, NULL, x, out, 1, NULL));
    else if (p->scol[t])
        SPK_CUDA_TRY(err, spk_dev_sell_sweep(p->s, n, p->ssp[t], p->scol[t], p->sval[t], p->single, v.id, b, x, out));
    else
        SPK_CUDA_TRY(err, spk_dev_sweep(p->s, n, p->tpr[t], v.beg, v.boff, v.end, v.eoff, v.col, v.val, v.id, b, x,
                                        out));
    return SPK_OK;
}

/* K sweeps on triangle t's lean copy in float (single): the iterates x0
 * (as floats) and x1, c = D^-1 b in x0's second half, all scaled by the
 * power of two of lmax[t] (max |b|: lean_apply raises lmax[0] for r, L's
 * last sweep lmax[1] for y). */
static int lean_tri(dev_pc *p, int t, const double *b, double *out)
{
    spk_err *err = p->e->err;
    const int n = p->n, k = p->k;
    const tri_view v = tri_of(p, t);
    float *xa = (float *)p->x0, *cv = xa + n, *xb = (float *)p->x1;
    const float *x = NULL;
    for (int j = 0; j < k; j++) {
        const int last = j == k - 1;
        float *dst = j % 2 ? xb : xa;
        void *to = last ? (void *)out : (void *)dst;
        unsigned long long *omax = last && t == 0 ? p->lmax + 1 : NULL;
        SPK_CUDA_TRY(err, spk_dev_lean_sweep(p->s, n, p->wide[t], p->ssp[t], p->scol[t], p->narrow[t], p->sval[t], 1, 1,
                                             !last, v.id, b, p->lmax + t, p->idmax[t], k > 1 ? cv : NULL, x, to, last,
                                             omax));
        x = dst;
    }
    return SPK_OK;
}

static int lean_apply(dev_pc *p, const double *r, double *z)
{
    spk_err *err = p->e->err;
    SPK_CUDA_TRY(err, cudaMemsetAsync(p->lmax, 0, 2 * sizeof(unsigned long long), p->s));
    SPK_CUDA_TRY(err, spk_dev_absmax(p->s, p->n, r, p->lmax));
    SPK_TRY(lean_tri(p, 0, r, p->y));
    return lean_tri(p, 1, p->y, z); /* z may be r: r is no longer read */
}

/* K sweeps on triangle t (0: L, 1: U or L^T) for right-hand side b into out. */
static int tri_apply(dev_pc *p, int t, const double *b, double *out)
{
    const double *x = NULL;
    for (int j = 0; j < p->k; j++) {
        double *dst = j == p->k - 1 ? out : (j % 2 ? p->x1 : p->x0);
        SPK_TRY(spk_devsweep_sweep_once(p, t, b, x, dst));
        x = dst;
    }
    return SPK_OK;
}

/* z = M^-1 r the way `mode` (APPLY_*) runs it; z may be r. */
int spk_devsweep_apply_mode(dev_pc *p, int mode, const double *r, double *z)
{
    spk_err *err = p->e->err;
    const int *sp[2] = {p->ssp[0], p->ssp[1]}, *sc[2] = {p->scol[0], p->scol[1]};
    const void *sv[2] = {p->sval[0], p->sval[1]};
    const double *id[2] = {tri_of(p, 0).id, tri_of(p, 1).id};
    switch (mode) {
    case APPLY_SMALL_SOLVE:
        SPK_CUDA_TRY(err, spk_dev_small_solve(p->s, p->n, tri_of(p, 0), tri_of(p, 1), r, p->y, z));
        return SPK_OK;
    case APPLY_SPSV: return spk_spsv_pair_solve(&p->sp, r, z);
    case APPLY_SMALL_SWEEPS:
        SPK_CUDA_TRY(err, spk_dev_small_apply(p->s, p->n, p->k, p->single, sp, sc, sv, id, r, p->y, z));
        return SPK_OK;
    default:
        if (p->lean && p->single) return lean_apply(p, r, z); /* lean: both sliced copies exist */
        SPK_TRY(tri_apply(p, 0, r, p->y));
        return tri_apply(p, 1, p->y, z); /* z may be r: r is no longer read */
    }
}
