/* zspmv.h -- y = A x for a complex matrix on an executor.
 *
 * Formats in complex: "csr" (the host's product, core/zcsr.h) on the host;
 * on the GPU "cusparse" (cuSPARSE's CSR product in CUDA_C_64F, the default)
 * and "csr-vector" (spk's vector CSR kernel, templated on the value type).
 * "auto" or NULL: the executor's default.  Vectors are executor vectors of
 * 2*n doubles.  Errors are recorded in e->err. */
#ifndef SPK_SPMV_ZSPMV_H
#define SPK_SPMV_ZSPMV_H

#include "core/exec.h"
#include "core/zcsr.h"

typedef struct spk_zspmv spk_zspmv;

/* A is the host matrix (copied where the executor needs its own). */
int spk_zspmv_create(spk_exec *e, const spk_zcsr *A, const char *format, spk_zspmv **out);
/* y = A x */
int spk_zspmv_apply(spk_zspmv *s, const double *x, double *y);
/* New values in A's pattern (the host matrix given to create). */
int spk_zspmv_update(spk_zspmv *s, const spk_zcsr *A);
/* "csr", "cusparse", "csr-vector" */
const char *spk_zspmv_name(const spk_zspmv *s);
/* The dimensions of the matrix given to create (0 x 0 for NULL). */
void spk_zspmv_size(const spk_zspmv *s, int *nrows, int *ncols);
void spk_zspmv_destroy(spk_zspmv *s);
/* The names spk_zspmv_create takes on executor e, comma-separated. */
const char *spk_zspmv_formats(const spk_exec *e);

#endif
