/* zprecond_impl.h -- the complex preconditioner's object, shared by
 * zprecond.c (the dispatch, the host's factorization and solves) and
 * zprecond_cuda.c (the GPU's applies).  Internal to precond/. */
#ifndef SPK_PRECOND_ZPRECOND_IMPL_H
#define SPK_PRECOND_ZPRECOND_IMPL_H

#include "zprecond.h"

struct spk_zprecond {
    spk_exec *e;
    spk_zpc_kind kind;
    int hermitian;
    int n;
    double shift;   /* alpha of A + alpha diag(A) (0: none) */
    spk_zcsr F;     /* ilu0/ic0: the factor in A's pattern (host) */
    int *diag;      /* ... each row's diagonal position in F */
    double *dinv;   /* jacobi: 1/a_ii, 2n doubles in the executor's memory */
    void *dev;      /* the GPU's factor state (zprecond_cuda.c) */
};

/* zprecond_cuda.c: upload p->F (host, set) and prepare the GPU's
 * triangular solves; apply them; new values of F; free p->dev. */
int spk_zprecond_cuda_init(spk_zprecond *p);
int spk_zprecond_cuda_apply(spk_zprecond *p, const double *r, double *z);
int spk_zprecond_cuda_update(spk_zprecond *p);
void spk_zprecond_cuda_free(spk_zprecond *p);

#endif
