/* dist.h -- solving across MPI ranks with the unchanged CG and BiCGStab
 * drivers: more implementations of the executor and SpMV interfaces.
 *
 * Each rank holds a contiguous block of rows of A (and the same rows of b
 * and x).  The executor is the host executor whose dot products and norms
 * are global (each rank's partial result gathered to every rank and added
 * in rank order, so every rank takes the same decisions and a run repeats
 * to the bit).  The distributed SpMV splits the rank's rows into the local
 * block (columns the rank owns) and the halo block (columns other ranks
 * own), sends the x entries its neighbours need and receives the ones it
 * needs with nonblocking point-to-point messages, and computes the local
 * block's product while they travel.  A block-Jacobi preconditioner is any
 * host preconditioner (IC(0), ILU(0), Jacobi) built on the local block. */
#ifndef SPK_DIST_DIST_H
#define SPK_DIST_DIST_H

#include <mpi.h>

#include "core/csr.h"
#include "core/exec.h"
#include "spmv/spmv.h"

/* The host executor with global reductions over comm (named "host": every
 * host SpMV format and preconditioner runs on it, on the rank's rows). */
int spk_exec_mpi_create(MPI_Comm comm, spk_err *err, spk_exec **e);
/* Its communicator (MPI_COMM_NULL for another executor). */
MPI_Comm spk_exec_mpi_comm(const spk_exec *e);

/* Contiguous row blocks balanced by nonzeros: rows row0[r] .. row0[r+1]-1
 * go to part r (row0 has nparts + 1 entries; every part gets a row when
 * n >= nparts). */
void spk_dist_partition_rows(const int *rowptr, int n, int nparts, int *row0);

/* The part that holds global row `row`, given every part's first row
 * (starts: nparts + 1 entries, the last n): a binary search. */
int spk_dist_owner(const int *starts, int nparts, int row);

/* A graph partition of A's rows into nparts parts (part[i] in 0..nparts-1):
 * METIS's k-way partition of the graph of A + A^T (fewer halo entries than
 * contiguous blocks where the numbering does not follow the geometry), the
 * same on every rank (fixed seed).  SPK_ERR_NOT_FOUND where spk was built
 * without METIS (spk_dist_have_metis() == 0: Debian's libmetis-dev, optional
 * at build time). */
int spk_dist_have_metis(void);
int spk_dist_partition_graph(const spk_csr *A, int nparts, int *part, spk_err *e);
/* The order that makes each part one contiguous block, in part order:
 * perm[new] = old (stable within a part), rows row0[p] .. row0[p+1]-1 of P A
 * P^T (spk_csr_permute) are part p's (row0: nparts + 1 entries). */
int spk_dist_order_parts(const int *part, int n, int nparts, int *perm, int *row0, spk_err *e);

typedef struct spk_dist spk_dist;

/* The distributed matrix from this rank's rows: rows of a global n x n
 * matrix starting at global row row_begin, their columns global (sorted
 * within each row).  Every rank of e's communicator calls it (collective);
 * the ranks' blocks must be contiguous and in rank order.  format: the
 * local SpMV format (NULL: the host default). */
int spk_dist_create(spk_exec *e, int n, int row_begin, const spk_csr *rows, const char *format, spk_dist **d);
void spk_dist_destroy(spk_dist *d);
/* y = alpha*A*x + beta*y on this rank's rows (collective); the SpMV
 * interface's apply, for spk_krylov.A with spk_dist_spmv. */
int spk_dist_apply(void *d, double alpha, const double *x, double beta, double *y);
extern const struct spk_spmv_ops spk_dist_spmv;
/* The local block (rows and columns of this rank, local numbering): what a
 * block-Jacobi preconditioner factorizes. */
const spk_csr *spk_dist_local_block(const spk_dist *d);
/* Halo entries this rank receives, and neighbours it receives from. */
void spk_dist_halo(const spk_dist *d, int *entries, int *neighbours);
/* The MPI executor d was made on. */
spk_exec *spk_dist_exec(const spk_dist *d);

/* A status every rank of comm agrees on (collective): SPK_OK where every
 * rank's st is, else the first failing rank's status, with its message in
 * every rank's err.  What keeps a failure on one rank from leaving the
 * others waiting in a collective call. */
int spk_dist_agree(MPI_Comm comm, int st, spk_err *err);
/* spk_csr_symmetry of the global matrix whose rows row_begin.. this rank
 * holds (global columns, sorted within each row), collective: each entry is
 * looked up in its transpose's row on the rank that owns it.  pattern:
 * A's pattern is symmetric; values: A = A^T to rtol (relative per entry);
 * posdiag: every diagonal entry is stored and positive.  Any output may be
 * NULL. */
int spk_dist_symmetry(MPI_Comm comm, int n, int row_begin, const spk_csr *rows, double rtol, int *pattern,
                      int *values, int *posdiag, spk_err *err);
/* One solve across the ranks on d (collective), from x: CG (bicgstab 0) or
 * BiCGStab with the preconditioner precond ("none", "jacobi", or "ic0" /
 * "ilu0" of each rank's local block: block-Jacobi) built on the local
 * block; the iterations take o's rtol, atol, maxit, dtol, history and
 * monitor.  Every rank returns the same status; res->t_setup is the
 * preconditioner's build on this rank; res->history (keep_history) is the
 * caller's to free. */
int spk_dist_solve(spk_dist *d, int bicgstab, const char *precond, const spk_options *o, const double *b,
                   double *x, spk_result *res);

#endif
