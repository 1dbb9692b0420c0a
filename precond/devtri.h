/* devtri.h -- triangular operators in device memory, as the GPU
 * preconditioners hand them to kernels that apply them inside one thread
 * block (the small-system applies of precond/devsweep_apply.c and the block
 * iterations of solver/engine/block_kernels.cu).  Plain C: pointers into device
 * memory, no CUDA types. */
#ifndef SPK_PRECOND_DEVTRI_H
#define SPK_PRECOND_DEVTRI_H

/* The most rows one block applies a preconditioner for (the block
 * iterations' limit too): the sweeps' iterates (2 n doubles) fill its
 * shared memory. */
#define SPK_BLOCK_ROWS 12288

/* Rows per slice of the sliced copies of a triangle (devtri.cuh). */
#define SPK_DEV_SLICE 32

/* One block's sweeps on a triangle as stored give a row of more than this
 * many entries a warp (devtri.cuh, long_rows). */
#define SPK_DEV_LONG_ROW 16

/* A cluster's sweeps on the factor as stored, g lanes a row, give a row of
 * more than this many times g entries a warp with no rows of its own
 * (devtri.cuh, cluster_long_rows). */
#define SPK_DEV_CLUSTER_LONG 4

/* A triangle for the solves: row i's strict entries at [beg[i] + boff,
 * end[i] + eoff) of col and val, D^-1 = id (NULL: I). */
typedef struct spk_dev_tri {
    const int *beg, *end, *col;
    int boff, eoff;
    const double *val, *id;
} spk_dev_tri;

/* A preconditioner z = M^-1 r that one thread block can apply (both
 * triangles, triangle 0 first, rows forward; triangle 1 rows backward):
 *   SPK_BLOCK_SWEEPS: K Jacobi sweeps on each triangle's sliced copy (sp,
 *     scol, sval: float when single, else double; D^-1 = id[t]);
 *   SPK_BLOCK_SWEEPS_CSR: K Jacobi sweeps on tri[0], tri[1] as stored
 *     (where there are no sliced copies);
 *   SPK_BLOCK_SOLVE: exact solves of tri[0], tri[1];
 *   SPK_BLOCK_DIAG: Jacobi, z_i = id[0][i] r_i (no triangles, no y, no
 *     shared memory).
 * y (n doubles, device) holds the first triangle's result; shared_bytes is
 * the shared memory the apply needs. */
enum { SPK_BLOCK_IDENTITY, SPK_BLOCK_SWEEPS, SPK_BLOCK_SWEEPS_CSR, SPK_BLOCK_SOLVE, SPK_BLOCK_DIAG };
typedef struct spk_block_prec {
    int kind;
    int k, single;
    const int *sp[2], *scol[2];
    const void *sval[2];
    const double *id[2];
    spk_dev_tri tri[2];
    double *y;
    unsigned shared_bytes;
    int wide; /* a row of a triangle of more than SPK_DEV_LONG_ROW entries: the kernels with
                 the paths for long rows (SPK_BLOCK_SWEEPS in one block: its slice's rows
                 swept to their own entries, the long ones a warp each; SPK_BLOCK_SWEEPS_CSR
                 in a cluster: long rows to its idle warps) */
} spk_block_prec;

#endif
