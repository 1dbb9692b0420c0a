/* zspmv_impl.h -- the complex product's object, shared by zspmv.c (the
 * dispatch and the host's product) and zspmv_cuda.c (the GPU's formats).
 * Internal to spmv/. */
#ifndef SPK_SPMV_ZSPMV_IMPL_H
#define SPK_SPMV_ZSPMV_IMPL_H

#include "zspmv.h"

struct spk_zspmv {
    spk_exec *e;
    const char *name;   /* the format's name */
    int nrows, ncols;
    spk_zcsr A;         /* the host executor's copy of A (unused on the GPU) */
    void *dev;          /* the GPU format's state (zspmv_cuda.c) */
    int (*apply)(spk_zspmv *s, const double *x, double *y);
    int (*update)(spk_zspmv *s, const spk_zcsr *A);
    void (*destroy)(spk_zspmv *s); /* frees dev (NULL: nothing to free) */
};

/* zspmv_cuda.c: s->e is the CUDA executor; fills name, dev and the three
 * functions for format ("cusparse" or "csr-vector"; NULL/"auto": cusparse);
 * SPK_ERR_NOT_FOUND naming the format and the choices where unknown. */
int spk_zspmv_cuda_init(spk_zspmv *s, const spk_zcsr *A, const char *format);

#endif
