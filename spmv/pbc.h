/* pbc.h -- PBC (partition-block CSR, after Cui et al., as the TEB paper
 * describes it): the rows sorted by decreasing length, the sorted rows cut
 * into blocks of consecutive rows, and of the ways to cut them the one whose
 * blocks' nonzeros vary least; each block stored as ELL (column-major,
 * padded to its longest row, which sorting keeps close to the others).
 * The paper's arrays: Val_Data (values, sorted), Dev_blockPos (the row of
 * each sorted position), Dev_w (each block's width), Dev_p (each block's
 * first sorted position) and Dev_offset (column indices).
 *
 * The ways to cut: for each target T in SPK_PBC_TARGETS entries, rows join a
 * block while its entries stay at most T (a row longer than T is a block of
 * its own); the T whose blocks' entry counts have the smallest standard
 * deviation relative to their mean is taken (the mean makes targets of
 * different sizes comparable: the paper's absolute deviation would always
 * favour the smallest blocks).
 *
 * Storage (bytes): 12 X (values and column indices, X the entries stored,
 * padding included; 8 X in float, 4 bytes a value) + 4 m (Dev_blockPos)
 * + 4 P (Dev_w) + 4 (P + 1) (Dev_p) + 4 (P + 1) (each block's first stored
 * entry), P the blocks.  Refused beyond the ELL family's padding bound
 * (format.h). */
#ifndef SPK_SPMV_PBC_H
#define SPK_SPMV_PBC_H

#include "format.h"

typedef struct spk_fmt_pbc {
    int nrows, ncols, nnz;
    int nblocks;
    long long stored; /* X */
    int *pos;         /* nrows: the row of each sorted position (Dev_blockPos) */
    int *width;       /* nblocks (Dev_w) */
    int *first;       /* nblocks + 1: each block's first sorted position (Dev_p) */
    int *data;        /* nblocks + 1: each block's first stored entry */
    int *colind;      /* stored (Dev_offset) */
    double *val;      /* stored (Val_Data) */
    int target;       /* the T taken */
} spk_fmt_pbc;

/* y = alpha*P*x + beta*y on the host, each sorted row over its block's
 * width in order (the kernel's order). */
void spk_pbc_ref(const spk_fmt_pbc *P, double alpha, const double *x, double beta, double *y);

#ifdef SPK_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
/* y = alpha*P*x + beta*y: a thread block per block, a thread per row (device arrays in P). */
SPK_FORMAT_LAUNCH_DECL(spk_pbc_launch)
#ifdef __cplusplus
}
#endif
#endif

#endif
