// hyb.cu -- HYB: the ELL kernel (which applies beta) then the COO runs.
#include "hyb.h"
#include "real.cuh"

namespace {

/* The ELL and COO parts in the precision of the instance. */
cudaError_t ell_part(const spk_fmt_ell *E, cudaStream_t s, double alpha, const double *x, double beta, double *y)
{
    return spk_ell_launch(E, s, alpha, x, beta, y);
}
cudaError_t ell_part(const spk_fmt_ell *E, cudaStream_t s, float alpha, const float *x, float beta, float *y)
{
    return spk_ell_launch_float(E, s, alpha, x, beta, y);
}
cudaError_t coo_part(const spk_fmt_coo *C, cudaStream_t s, double alpha, const double *x, double *y)
{
    return spk_coo_accumulate(C, s, alpha, x, y);
}
cudaError_t coo_part(const spk_fmt_coo *C, cudaStream_t s, float alpha, const float *x, float *y)
{
    return spk_coo_accumulate_float(C, s, alpha, x, y);
}

template <typename T>
cudaError_t hyb_launch(const void *fmt, cudaStream_t s, T alpha, const T *x, T beta, T *y)
{
    const spk_fmt_hyb *H = static_cast<const spk_fmt_hyb *>(fmt);
    cudaError_t e = ell_part(&H->ell, s, alpha, x, beta, y);
    return e != cudaSuccess ? e : coo_part(&H->coo, s, alpha, x, y);
}

}  // namespace

SPK_LAUNCH_BOTH(spk_hyb_launch, hyb_launch)
