/* zprecond_cuda.c -- the GPU's applies of a complex factor (zprecond.h):
 * the host's factor F (ILU(0) layout: unit L below the diagonal, U on and
 * above) uploaded once, its two triangular solves by cusparseSpSV in
 * CUDA_C_64F (precond/spsv.c's pair); new values re-uploaded and the
 * analysis kept. */
#include <stdlib.h>

#include "spsv.h"
#include "zprecond_impl.h"

typedef struct zfac_dev {
    int *rowptr, *colind;
    double *val;        /* 2*nnz doubles */
    spk_spsv_pair pair;
} zfac_dev;

void spk_zprecond_cuda_free(spk_zprecond *p)
{
    zfac_dev *d = p->dev;
    if (!d) return;
    spk_spsv_pair_free(&d->pair);
    spk_cuda_free(p->e, d->rowptr);
    spk_cuda_free(p->e, d->colind);
    spk_cuda_free(p->e, d->val);
    free(d);
    p->dev = NULL;
}

int spk_zprecond_cuda_update(spk_zprecond *p)
{
    zfac_dev *d = p->dev;
    const spk_zcsr *F = &p->F;
    SPK_TRY(spk_cuda_upload(p->e, d->val, F->val, (size_t)F->nnz * 2 * sizeof(double), "complex factor values"));
    return spk_spsv_pair_ready(&d->pair);
}

int spk_zprecond_cuda_init(spk_zprecond *p)
{
    const spk_zcsr *F = &p->F;
    zfac_dev *d = calloc(1, sizeof *d);
    if (!d) return spk_err_set(p->e->err, SPK_ERR_NOMEM, "out of host memory (complex factor)");
    p->dev = d;
    const size_t rp = ((size_t)F->nrows + 1) * sizeof(int), ci = (size_t)F->nnz * sizeof(int);
    SPK_TRY(spk_cuda_alloc(p->e, rp, "the complex factor's row pointers", (void **)&d->rowptr));
    SPK_TRY(spk_cuda_alloc(p->e, ci ? ci : 1, "the complex factor's column indices", (void **)&d->colind));
    SPK_TRY(spk_cuda_alloc(p->e, F->nnz ? (size_t)F->nnz * 2 * sizeof(double) : 1, "the complex factor's values",
                           (void **)&d->val));
    SPK_TRY(spk_cuda_upload(p->e, d->rowptr, F->rowptr, rp, "complex factor row pointers"));
    SPK_TRY(spk_cuda_upload(p->e, d->colind, F->colind, ci, "complex factor column indices"));
    SPK_TRY(spk_spsv_pair_init_type(p->e, &d->pair, F->nrows, F->nnz, 0, d->rowptr, d->colind, d->val, CUDA_C_64F));
    return spk_zprecond_cuda_update(p);
}

int spk_zprecond_cuda_apply(spk_zprecond *p, const double *r, double *z)
{
    return spk_spsv_pair_solve(&((zfac_dev *)p->dev)->pair, r, z);
}
