/* devsweep_slice.c -- the device memory of the GPU sweeps beyond the factor
 * (devsweep.h): each triangle's strict part as sliced ELL, lean for large
 * systems, and the scratch vectors the check and the timing borrow. */
#include <math.h>
#include <string.h>

#include "devsweep.h"

/* Rows of at most this many entries on average (the sliced copy's, padding
 * included) are swept two to a thread, whose loads are then in flight
 * together; longer rows a thread each. */
#define LEAN_SHORT_ROWS 8

/* Sliced ELL copies of both triangles' strict parts (after each good
 * factorization), unless their padding would pass half the entries again:
 * then the sweeps read F, whose values are then rounded to float in place
 * where float values are asked for (exact solves, if the check then asks
 * for them, use those too). */
int spk_devsweep_slice(dev_pc *p)
{
    spk_exec *e = p->e;
    spk_err *err = e->err;
    const int n = p->n, ns = spk_dev_sell_slices(n);
    p->small_ok = 0;
    p->lean = 0;
    p->longest = -1; /* built on the device (devsweep.c, HOST_BUILD_NNZ): the kernels for
                        long rows are not asked for */
    for (int t = 0; t < 2; t++) {
        spk_cuda_free(p->e, p->scol[t]);
        spk_cuda_free(p->e, p->sval[t]);
        p->scol[t] = NULL;
        p->sval[t] = NULL;
    }
    if (n == 0) return SPK_OK;
    size_t tb = 0;
    SPK_CUDA_TRY(err, spk_dev_pattern_temp(ns, &tb));
    void *temp = NULL;
    SPK_TRY(spk_cuda_alloc(e, tb ? tb : 1, "the sliced factor's workspace", &temp));
    /* lean copies where nothing but the kernel-per-sweep apply and the
     * check read them: more rows than one block's sweeps and the block
     * iterations take */
    const int lean = n > SPK_DEV_SMALL_ROWS && n > SPK_BLOCK_ROWS;
    int total[2] = {0, 0}, span[2] = {0, 0}, st = SPK_OK;
    unsigned long long idm = 0;
    if (lean && !p->lmax)
        st = spk_cuda_alloc(e, 2 * sizeof(unsigned long long), "the sweeps' scales", (void **)&p->lmax);
    if (lean && !st) {
        st = spk_cuda_check(err, cudaMemsetAsync(p->lmax, 0, sizeof(unsigned long long), p->s), "cudaMemsetAsync");
        if (!st) st = spk_cuda_check(err, spk_dev_absmax(p->s, n, p->idiag, p->lmax), "spk_dev_absmax");
        if (!st)
            st = spk_cuda_check(err, cudaMemcpyAsync(&idm, p->lmax, sizeof idm, cudaMemcpyDeviceToHost, p->s),
                                "cudaMemcpyAsync");
    }
    for (int t = 0; t < 2 && !st; t++) {
        if (!p->ssp[t])
            st = spk_cuda_alloc(e, ((size_t)ns + 1) * sizeof(int), "the sliced factor's slices", (void **)&p->ssp[t]);
        const tri_view v = tri_of(p, t);
        if (!st)
            st = spk_cuda_check(err, spk_dev_sell_pattern(p->s, n, v.beg, v.boff, v.end, v.eoff, p->ssp[t], temp, tb),
                                "spk_dev_sell_pattern");
        if (!st)
            st = spk_cuda_check(err, cudaMemcpyAsync(total + t, p->ssp[t] + ns, sizeof(int), cudaMemcpyDeviceToHost,
                                                     p->s), "cudaMemcpyAsync");
        /* the span, in the scales' second word (free until the first apply) */
        if (lean && !st)
            st = spk_cuda_check(err, spk_dev_tri_span(p->s, n, v.beg, v.boff, v.end, v.eoff, v.col,
                                                      (int *)(p->lmax + 1)), "spk_dev_tri_span");
        if (lean && !st)
            st = spk_cuda_check(err, cudaMemcpyAsync(span + t, p->lmax + 1, sizeof(int), cudaMemcpyDeviceToHost,
                                                     p->s), "cudaMemcpyAsync");
    }
    if (!st) st = spk_cuda_check(err, cudaStreamSynchronize(p->s), "cudaStreamSynchronize");
    spk_cuda_free(p->e, temp);
    SPK_TRY(st);
    /* the triangles' strict entries: IC(0) L's twice (L and L^T), ILU(0) F's off the diagonal */
    const double strict = (p->ic ? 2.0 : 1.0) * ((double)p->nnz - n);
    if ((double)total[0] + total[1] > 1.5 * strict + 64) {
        if (p->single) {
            SPK_CUDA_TRY(err, spk_dev_round_float(p->s, p->nnz, p->v));
            if (p->ic) SPK_CUDA_TRY(err, spk_dev_round_float(p->s, p->nnz, p->tv));
        }
        return SPK_OK;
    }
    /* small factors: the whole apply in one block, whose iterates stay in
     * shared memory and factor in its cache between sweeps (at most 64k
     * entries with padding: 512 KiB in float, 768 in double) */
    p->small_ok = n <= SPK_DEV_SMALL_ROWS && (double)total[0] + total[1] <= SMALL_ENTRIES;
    const size_t vb = p->single ? sizeof(float) : sizeof(double);
    p->lean = lean;
    for (int t = 0; t < 2; t++) {
        const tri_view v = tri_of(p, t);
        const size_t m = total[t] > 0 ? (size_t)total[t] : 1;
        p->narrow[t] = lean && span[t] <= 32767;
        p->wide[t] = (double)total[t] > LEAN_SHORT_ROWS * n;
        double dm = 1;
        if (lean && v.id) memcpy(&dm, &idm, sizeof dm);
        p->idmax[t] = dm > 0 && isfinite(dm) ? dm : 1;
        const size_t cb = p->narrow[t] ? sizeof(short) : sizeof(int);
        SPK_TRY(spk_cuda_alloc(e, m * cb, "the sliced factor's columns", (void **)&p->scol[t]));
        SPK_TRY(spk_cuda_alloc(e, m * vb, "the sliced factor's values", &p->sval[t]));
        if (lean)
            SPK_CUDA_TRY(err, spk_dev_lean_fill(p->s, n, v.beg, v.boff, v.end, v.eoff, v.col, v.val, v.id, p->ssp[t],
                                                p->scol[t], p->narrow[t], p->sval[t], p->single));
        else
            SPK_CUDA_TRY(err, spk_dev_sell_fill(p->s, n, v.beg, v.boff, v.end, v.eoff, v.col, v.val, p->ssp[t],
                                                p->scol[t], p->sval[t], p->single));
    }
    return SPK_OK;
}

/* nvec vectors of n doubles and the partial sums of up to `norms` norms
 * (spk_dev_norm_parts(n) each) with room for their results: the build's
 * scratch while the factorization's allocation lives (*owned = 0), else
 * allocated here (*owned = 1: spk_devsweep_scratch_put frees them). */
int spk_devsweep_scratch_get(dev_pc *p, int nvec, int norms, double **w, double **part, double **nrm, int *owned)
{
    const int n = p->n;
    *owned = !p->sw[0] || norms > SCRATCH_NORMS;
    *part = *nrm = NULL;
    for (int i = 0; i < nvec; i++) w[i] = *owned ? NULL : p->sw[i];
    if (!*owned) {
        *part = p->spart;
        *nrm = p->snorm;
        return SPK_OK;
    }
    int st = SPK_OK;
    for (int i = 0; i < nvec && !st; i++) st = spk_exec_alloc_vec(p->e, n, &w[i]);
    if (!st && norms > 0)
        st = spk_cuda_alloc(p->e, (size_t)norms * spk_dev_norm_parts(n) * sizeof(double), "the sweeps' check",
                            (void **)part);
    if (!st && norms > 0) st = spk_cuda_alloc(p->e, (size_t)norms * sizeof(double), "the sweeps' check", (void **)nrm);
    return st;
}

void spk_devsweep_scratch_put(dev_pc *p, int nvec, double **w, double *part, double *nrm, int owned)
{
    if (!owned) return;
    for (int i = 0; i < nvec; i++)
        if (w[i]) p->e->ops->free(p->e, w[i]);
    spk_cuda_free(p->e, part);
    spk_cuda_free(p->e, nrm);
}
