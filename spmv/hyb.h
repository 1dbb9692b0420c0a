/* hyb.h -- HYB: an ELL part of width K (the first K entries of every row)
 * plus the rest of each row in COO. */
#ifndef SPK_SPMV_HYB_H
#define SPK_SPMV_HYB_H

#include "coo.h"
#include "ell.h"

typedef struct spk_fmt_hyb {
    spk_fmt_ell ell;
    spk_fmt_coo coo;
} spk_fmt_hyb;

/* The ELL width HYB chooses for A (see hyb.c). */
int spk_hyb_width(const spk_csr *A);

#ifdef SPK_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
SPK_FORMAT_LAUNCH_DECL(spk_hyb_launch)
#ifdef __cplusplus
}
#endif
#endif

#endif
