/* devsweep_host.c -- the GPU sweeps' build of a small system on the host
 * (devsweep.h; devsweep.c decides which systems, HOST_BUILD_NNZ).  On the
 * device such a build costs its launches and waits, not its arithmetic.
 * The host's factor (ic0.c / ilu0.c: the same formulas, pivot test and
 * shift policy, so the same factor to rounding and the same failure
 * messages), its transpose, the sliced copies (the layout of
 * spk_dev_sell_fill) and the check (the same probe, sweeps and norms) are
 * made here, then every array goes up in one copy to one allocation. */
#include <stdlib.h>
#include <string.h>

#include "devsweep.h"

/* Offsets of the arrays in the one allocation (the vectors last: not
 * copied); end: its size. */
typedef struct host_layout {
    size_t frp, fci, dpos, v, id, tcp, tri, tv, sp[2], sc[2], sv[2], vec, end;
} host_layout;

/* The length of row i of triangle t's strict part (tri_at), from F and,
 * for L^T, the counts of L's columns (cnt, diagonal included). */
static int strict_len(const dev_pc *p, const spk_factor *f, const int *cnt, int t, int i)
{
    const int *rp = f->F.rowptr, *dg = f->diag;
    if (p->ic) return t == 0 ? rp[i + 1] - rp[i] - 1 : cnt[i] - 1;
    return t == 0 ? dg[i] - rp[i] : rp[i + 1] - dg[i] - 1;
}

/* The slices' widths, as spk_dev_sell_pattern sets them: sp[t] the ns + 1
 * offsets of triangle t's slices, total[t] = sp[t][ns]; returns the
 * longest row, and so the widest slice. */
static int slice_widths(const dev_pc *p, const spk_factor *f, const int *cnt, int ns, int *const sp[2], int total[2])
{
    const int n = p->n;
    int widest = 0;
    for (int t = 0; t < 2; t++) {
        sp[t][0] = 0;
        for (int s = 0; s < ns; s++) {
            int w = 0;
            for (int i = s * SPK_DEV_SLICE; i < n && i < (s + 1) * SPK_DEV_SLICE; i++) {
                const int len = strict_len(p, f, cnt, t, i);
                if (len > w) w = len;
            }
            sp[t][s + 1] = sp[t][s] + w * SPK_DEV_SLICE;
            if (w > widest) widest = w;
        }
        total[t] = sp[t][ns];
    }
    return widest;
}

/* The layout of n rows, nnz entries of F (ic: and of L^T), and where
 * sliced the copies of total[] entries with values of vb bytes. */
static void layout_of(host_layout *o, int n, int nnz, int ic, int sliced, int ns, const int total[2], size_t vb)
{
    const size_t nb = (size_t)n;
    size_t off = 0;
    memset(o, 0, sizeof *o);
    o->frp = off, off += span(nb + 1, sizeof(int));
    o->fci = off, off += span((size_t)nnz, sizeof(int));
    o->dpos = off, off += span(nb, sizeof(int));
    o->v = off, off += span((size_t)nnz, sizeof(double));
    o->id = off, off += span(nb, sizeof(double));
    if (ic) {
        o->tcp = off, off += span(nb + 1, sizeof(int));
        o->tri = off, off += span((size_t)nnz, sizeof(int));
        o->tv = off, off += span((size_t)nnz, sizeof(double));
    }
    for (int t = 0; t < 2 && sliced; t++) {
        o->sp[t] = off, off += span((size_t)ns + 1, sizeof(int));
        o->sc[t] = off, off += span((size_t)total[t], sizeof(int));
        o->sv[t] = off, off += span((size_t)total[t], vb);
    }
    o->vec = off, off += 3 * span(nb, sizeof(double));
    o->end = off;
}

/* The factor's arrays into the staging copy, and (IC(0)) L^T by rows: L's
 * columns in row order, so each row's columns ascend, the diagonal first
 * (cnt: the counts of L's columns, used up); *a: where they are there. */
static void stage_factor(const spk_factor *f, int n, int ic, int *cnt, unsigned char *stage, const host_layout *o,
                         fac_arrays *a)
{
    const int nnz = f->F.nnz;
    const size_t nb = (size_t)n;
    int *h_frp = (int *)(stage + o->frp), *h_fci = (int *)(stage + o->fci), *h_dpos = (int *)(stage + o->dpos);
    double *h_v = (double *)(stage + o->v), *h_id = (double *)(stage + o->id);
    int *h_tcp = ic ? (int *)(stage + o->tcp) : NULL, *h_tri = ic ? (int *)(stage + o->tri) : NULL;
    double *h_tv = ic ? (double *)(stage + o->tv) : NULL;
    memcpy(h_frp, f->F.rowptr, (nb + 1) * sizeof(int));
    memcpy(h_fci, f->F.colind, (size_t)nnz * sizeof(int));
    memcpy(h_dpos, f->diag, nb * sizeof(int));
    memcpy(h_v, f->F.val, (size_t)nnz * sizeof(double));
    memcpy(h_id, f->idiag, nb * sizeof(double));
    if (ic) {
        h_tcp[0] = 0;
        for (int i = 0; i < n; i++) h_tcp[i + 1] = h_tcp[i] + cnt[i];
        for (int i = 0; i < n; i++) cnt[i] = h_tcp[i];
        for (int i = 0; i < n; i++)
            for (int k = h_frp[i]; k < h_frp[i + 1]; k++) {
                const int at = cnt[h_fci[k]]++;
                h_tri[at] = i;
                h_tv[at] = h_v[k];
            }
    }
    const fac_arrays ha = {h_frp, h_fci, h_dpos, h_tcp, h_tri, h_v, h_tv, h_id};
    *a = ha;
}

/* Where sliced, both triangles' sliced copies into the staging copy in the
 * layout of spk_dev_sell_fill (padded with zeros at the row's own column),
 * and ht[t] sweeping them; else the sweeps read F, its values rounded to
 * float where float values are asked for (devsweep_slice.c). */
static void stage_slices(const dev_pc *p, int sliced, int ns, int nnz, int *const sp[2], unsigned char *stage,
                         const host_layout *o, host_tri ht[2])
{
    const int n = p->n, ic = p->ic;
    if (sliced) {
        for (int t = 0; t < 2; t++) {
            int *hs = (int *)(stage + o->sp[t]), *hc = (int *)(stage + o->sc[t]);
            void *hv = stage + o->sv[t];
            memcpy(hs, sp[t], ((size_t)ns + 1) * sizeof(int));
            const tri_view v = ht[t].v;
            for (int i = 0; i < n; i++) {
                const int base = hs[i / SPK_DEV_SLICE] + i % SPK_DEV_SLICE;
                const int w = (hs[i / SPK_DEV_SLICE + 1] - hs[i / SPK_DEV_SLICE]) / SPK_DEV_SLICE;
                const int b = v.beg[i] + v.boff, len = v.end[i] + v.eoff - b;
                for (int q = 0; q < w; q++) {
                    const int at = base + q * SPK_DEV_SLICE;
                    const double a = q < len ? v.val[b + q] : 0.0;
                    hc[at] = q < len ? v.col[b + q] : i;
                    if (p->single)
                        ((float *)hv)[at] = (float)a;
                    else
                        ((double *)hv)[at] = a;
                }
            }
            ht[t].sp = hs, ht[t].scol = hc, ht[t].sval = hv, ht[t].single = p->single;
        }
    } else if (p->single) {
        double *h_v = (double *)(stage + o->v), *h_tv = ic ? (double *)(stage + o->tv) : NULL;
        for (int k = 0; k < nnz; k++) h_v[k] = (double)(float)h_v[k];
        for (int k = 0; ic && k < nnz; k++) h_tv[k] = (double)(float)h_tv[k];
    }
}

/* The device's arrays in the uploaded allocation p->pool. */
static void place(dev_pc *p, const host_layout *o, int sliced)
{
    const size_t nb = (size_t)p->n;
    unsigned char *d = p->pool;
    p->frp = (int *)(d + o->frp), p->fci = (int *)(d + o->fci), p->dpos = (int *)(d + o->dpos);
    p->v = (double *)(d + o->v), p->idiag = (double *)(d + o->id);
    if (p->ic) p->tcp = (int *)(d + o->tcp), p->tri = (int *)(d + o->tri), p->tv = (double *)(d + o->tv);
    for (int t = 0; t < 2 && sliced; t++)
        p->ssp[t] = (int *)(d + o->sp[t]), p->scol[t] = (int *)(d + o->sc[t]), p->sval[t] = d + o->sv[t];
    p->x0 = (double *)(d + o->vec);
    p->x1 = (double *)(d + o->vec + span(nb, sizeof(double)));
    p->y = (double *)(d + o->vec + 2 * span(nb, sizeof(double)));
}

int spk_devsweep_host_build(dev_pc *p, const spk_csr *A)
{
    spk_exec *e = p->e;
    spk_err *err = e->err;
    spk_factor_kind kind = *host_kind(p);
    kind.any_exec = 1; /* the host's numeric for the GPU's preconditioner */
    spk_factor *f = NULL;
    unsigned char *stage = NULL;
    int *cnt = NULL, *sp[2] = {NULL, NULL};
    int st = spk_factor_setup(e, A, &p->opts, &kind, &f);
    if (!st) st = spk_factor_run(f, A);
    if (!st && stopped(p)) st = SPK_PRECOND_STOPPED;
    if (st) goto done;
    const int n = p->n, nnz = f->F.nnz, ns = spk_dev_sell_slices(n), ic = p->ic;
    const size_t nb = (size_t)n;
    p->nnz = nnz;
    p->alpha = f->alpha;
    p->info = f->info; /* the host's factorization: exact, or its sweeps where asked */
    cnt = calloc(nb + 1, sizeof(int));
    sp[0] = malloc(((size_t)ns + 1) * sizeof(int));
    sp[1] = malloc(((size_t)ns + 1) * sizeof(int));
    if (!cnt || !sp[0] || !sp[1]) {
        st = spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (%s)", kind.label);
        goto done;
    }
    if (ic)
        for (int k = 0; k < nnz; k++) cnt[f->F.colind[k]]++;
    int total[2] = {0, 0};
    p->longest = slice_widths(p, f, cnt, ns, sp, total);
    const double strict = (ic ? 2.0 : 1.0) * ((double)nnz - n);
    const int sliced = n > 0 && (double)total[0] + total[1] <= 1.5 * strict + 64;
    p->small_ok = sliced && n <= SPK_DEV_SMALL_ROWS && (double)total[0] + total[1] <= SMALL_ENTRIES;
    host_layout o;
    layout_of(&o, n, nnz, ic, sliced, ns, total, p->single ? sizeof(float) : sizeof(double));
    stage = malloc(o.vec ? o.vec : 1);
    if (!stage) {
        st = spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (%s: %zu bytes)", kind.label, o.vec);
        goto done;
    }
    fac_arrays ha;
    stage_factor(f, n, ic, cnt, stage, &o, &ha);
    host_tri ht[2];
    for (int t = 0; t < 2; t++) {
        memset(&ht[t], 0, sizeof ht[t]);
        ht[t].v = tri_at(ic, t, &ha);
    }
    stage_slices(p, sliced, ns, nnz, sp, stage, &o, ht);
    p->exact = 0;
    p->check = 0;
    if (p->opts.sweeps_check > 0 && n > 0 && (st = spk_devsweep_host_check(p, ht)) != SPK_OK) goto done;
    st = spk_cuda_alloc(e, o.end, "the preconditioner's factor", &p->pool);
    if (!st && o.vec)
        st = spk_cuda_check(err, cudaMemcpyAsync(p->pool, stage, o.vec, cudaMemcpyHostToDevice, p->s), "cudaMemcpyAsync");
    if (!st) st = spk_cuda_check(err, cudaStreamSynchronize(p->s), "cudaStreamSynchronize");
    if (st) goto done;
    place(p, &o, sliced);
    /* the strict parts' threads per row, as devsweep_build.c sets them */
    const double per = n > 0 ? (double)(nnz - n) / n : 0;
    p->tpr[0] = p->tpr[1] = threads_for(ic ? per : per / 2);
done:
    free(stage);
    free(cnt);
    free(sp[0]);
    free(sp[1]);
    spk_factor_free(f);
    return st;
}
