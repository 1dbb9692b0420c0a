// hyb.cu -- HYB: the ELL kernel (which applies beta) then the COO runs.
#include "hyb.h"

extern "C" cudaError_t spk_hyb_launch(const void *fmt, cudaStream_t s, double alpha, const double *x,
                                      double beta, double *y)
{
    const spk_fmt_hyb *H = static_cast<const spk_fmt_hyb *>(fmt);
    cudaError_t e = spk_ell_launch(&H->ell, s, alpha, x, beta, y);
    return e != cudaSuccess ? e : spk_coo_accumulate(&H->coo, s, alpha, x, y);
}
