/* spsv.c -- the cusparseSpSV pair of spsv.h. */
#include "spsv.h"

#include <string.h>

void spk_spsv_pair_free(spk_spsv_pair *p)
{
    if (!p) return;
    if (p->sv1) cusparseSpSV_destroyDescr(p->sv1);
    if (p->sv2) cusparseSpSV_destroyDescr(p->sv2);
    if (p->M1) cusparseDestroySpMat(p->M1);
    if (p->M2) cusparseDestroySpMat(p->M2);
    if (p->vr) cusparseDestroyDnVec(p->vr);
    if (p->vt) cusparseDestroyDnVec(p->vt);
    if (p->vz) cusparseDestroyDnVec(p->vz);
    spk_cuda_free(p->e, p->buf1);
    spk_cuda_free(p->e, p->buf2);
    spk_cuda_free(p->e, p->t);
    memset(p, 0, sizeof *p);
}

/* One triangle of the factor as a generic descriptor. */
static int triangle(spk_err *err, cusparseSpMatDescr_t *M, int n, int nnz, int *rowptr, int *colind, double *val,
                    cusparseFillMode_t fill, cusparseDiagType_t diag, cudaDataType_t type)
{
    SPK_CUSPARSE_TRY(err, cusparseCreateCsr(M, n, n, nnz, rowptr, colind, val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                            CUSPARSE_INDEX_BASE_ZERO, type));
    SPK_CUSPARSE_TRY(err, cusparseSpMatSetAttribute(*M, CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof fill));
    SPK_CUSPARSE_TRY(err, cusparseSpMatSetAttribute(*M, CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof diag));
    return SPK_OK;
}

int spk_spsv_pair_init(spk_exec *e, spk_spsv_pair *p, int n, int nnz, int ic, int *rowptr, int *colind, double *val)
{
    return spk_spsv_pair_init_type(e, p, n, nnz, ic, rowptr, colind, val, CUDA_R_64F);
}

int spk_spsv_pair_init_type(spk_exec *e, spk_spsv_pair *p, int n, int nnz, int ic, int *rowptr, int *colind,
                            double *val, cudaDataType_t type)
{
    spk_err *err = e->err;
    memset(p, 0, sizeof *p);
    p->e = e;
    p->n = n;
    p->ic = ic;
    p->val = val;
    p->type = type;
    spk_exec_cuda_handles(e, NULL, NULL, &p->h);
    if (n == 0) return SPK_OK;
    const size_t width = type == CUDA_C_64F ? 2 * sizeof(double) : sizeof(double);
    SPK_TRY(spk_cuda_alloc(e, (size_t)n * width, "a triangular-solve vector", (void **)&p->t));
    SPK_TRY(triangle(err, &p->M1, n, nnz, rowptr, colind, val, CUSPARSE_FILL_MODE_LOWER,
                     ic ? CUSPARSE_DIAG_TYPE_NON_UNIT : CUSPARSE_DIAG_TYPE_UNIT, type));
    if (!ic)
        SPK_TRY(triangle(err, &p->M2, n, nnz, rowptr, colind, val, CUSPARSE_FILL_MODE_UPPER,
                         CUSPARSE_DIAG_TYPE_NON_UNIT, type));
    SPK_CUSPARSE_TRY(err, cusparseCreateDnVec(&p->vr, n, p->t, type));
    SPK_CUSPARSE_TRY(err, cusparseCreateDnVec(&p->vt, n, p->t, type));
    SPK_CUSPARSE_TRY(err, cusparseCreateDnVec(&p->vz, n, p->t, type));
    SPK_CUSPARSE_TRY(err, cusparseSpSV_createDescr(&p->sv1));
    SPK_CUSPARSE_TRY(err, cusparseSpSV_createDescr(&p->sv2));
    return SPK_OK;
}

/* The second solve: U (ILU(0)) or L^T (IC(0)). */
static cusparseSpMatDescr_t second(const spk_spsv_pair *p, cusparseOperation_t *op)
{
    *op = p->ic ? CUSPARSE_OPERATION_TRANSPOSE : CUSPARSE_OPERATION_NON_TRANSPOSE;
    return p->ic ? p->M1 : p->M2;
}

int spk_spsv_pair_ready(spk_spsv_pair *p)
{
    if (p->n == 0) return SPK_OK;
    spk_err *err = p->e->err;
    const double one[2] = {1.0, 0.0}; /* a real or complex 1 */
    cusparseOperation_t op2;
    cusparseSpMatDescr_t M2 = second(p, &op2);
    if (p->analyzed) {
        SPK_CUSPARSE_TRY(err, cusparseSpSV_updateMatrix(p->h, p->sv1, p->val, CUSPARSE_SPSV_UPDATE_GENERAL));
        SPK_CUSPARSE_TRY(err, cusparseSpSV_updateMatrix(p->h, p->sv2, p->val, CUSPARSE_SPSV_UPDATE_GENERAL));
        return SPK_OK;
    }
    size_t b1 = 0, b2 = 0;
    SPK_CUSPARSE_TRY(err, cusparseSpSV_bufferSize(p->h, CUSPARSE_OPERATION_NON_TRANSPOSE, one, p->M1, p->vr, p->vt,
                                                  p->type, CUSPARSE_SPSV_ALG_DEFAULT, p->sv1, &b1));
    SPK_CUSPARSE_TRY(err, cusparseSpSV_bufferSize(p->h, op2, one, M2, p->vt, p->vz, p->type,
                                                  CUSPARSE_SPSV_ALG_DEFAULT, p->sv2, &b2));
    SPK_TRY(spk_cuda_alloc(p->e, b1 ? b1 : 1, "the triangular-solve workspace", &p->buf1));
    SPK_TRY(spk_cuda_alloc(p->e, b2 ? b2 : 1, "the triangular-solve workspace", &p->buf2));
    SPK_CUSPARSE_TRY(err, cusparseSpSV_analysis(p->h, CUSPARSE_OPERATION_NON_TRANSPOSE, one, p->M1, p->vr, p->vt,
                                                p->type, CUSPARSE_SPSV_ALG_DEFAULT, p->sv1, p->buf1));
    SPK_CUSPARSE_TRY(err, cusparseSpSV_analysis(p->h, op2, one, M2, p->vt, p->vz, p->type,
                                                CUSPARSE_SPSV_ALG_DEFAULT, p->sv2, p->buf2));
    p->analyzed = 1;
    return SPK_OK;
}

int spk_spsv_pair_solve(spk_spsv_pair *p, const double *r, double *z)
{
    if (p->n == 0) return SPK_OK;
    spk_err *err = p->e->err;
    const double one[2] = {1.0, 0.0}; /* a real or complex 1 */
    cusparseOperation_t op2;
    cusparseSpMatDescr_t M2 = second(p, &op2);
    SPK_CUSPARSE_TRY(err, cusparseDnVecSetValues(p->vr, (void *)r));
    SPK_CUSPARSE_TRY(err, cusparseDnVecSetValues(p->vz, z));
    SPK_CUSPARSE_TRY(err, cusparseSpSV_solve(p->h, CUSPARSE_OPERATION_NON_TRANSPOSE, one, p->M1, p->vr, p->vt,
                                             p->type, CUSPARSE_SPSV_ALG_DEFAULT, p->sv1));
    SPK_CUSPARSE_TRY(err, cusparseSpSV_solve(p->h, op2, one, M2, p->vt, p->vz, p->type, CUSPARSE_SPSV_ALG_DEFAULT,
                                             p->sv2));
    return SPK_OK;
}
