/* exec_cuda.h -- the CUDA executor: vectors in device memory, BLAS-1 through
 * cuBLAS (and small kernels where cuBLAS has none), one stream and one cuBLAS
 * and cuSPARSE handle per context, reused by every backend and solve.
 * Only compiled when spk is built with CUDA (SPK_HAVE_CUDA). */
#ifndef SPK_CORE_EXEC_CUDA_H
#define SPK_CORE_EXEC_CUDA_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include "csr.h"
#include "exec.h"
#include "slot_kernels.h"
#ifndef __CUDACC__
#include "cuda_libs.h" /* cuBLAS and cuSPARSE through the table opened at run time */
#endif

/* Is a CUDA device usable?  On no, *why (may be NULL) says why. */
int spk_cuda_available(const char **why);
/* Create the executor on the current device (device 0 unless set). */
int spk_exec_cuda_create(spk_err *err, spk_exec **e);
/* Is e the CUDA executor? */
int spk_exec_is_cuda(const spk_exec *e);
/* The context's stream and handles (any output may be NULL). */
void spk_exec_cuda_handles(const spk_exec *e, cudaStream_t *stream, cublasHandle_t *blas,
                           cusparseHandle_t *sparse);
/* Device memory: cudaMalloc that names what it was for and, when the device
 * is full, the bytes needed and free. */
int spk_cuda_alloc(spk_exec *e, size_t bytes, const char *what, void **p);
/* cudaFree, or, while frees are held, when the hold ends.  NULL-safe. */
void spk_cuda_free(spk_exec *e, void *p);
/* Hold (1) or release (0) the frees of e's device memory: cudaFree waits
 * for all the device's work, so while kernels run on streams alongside the
 * executor's (solver/engine/race_cuda.c) frees wait for the last release;
 * holds nest. */
void spk_exec_cuda_hold_frees(spk_exec *e, int hold);
/* The device e runs on. */
int spk_exec_cuda_device(const spk_exec *e);
/* 1 when p points into device or managed memory of e's device (a caller's
 * vector the kernels may use in place), else 0. */
int spk_exec_cuda_holds(const spk_exec *e, const void *p);
/* Wait for all work on e's device (a caller's kernels producing its
 * vectors, on any stream), checked. */
int spk_exec_cuda_settle(spk_exec *e);
/* The scalar slots and the reduction's scratch in device memory (made at
 * the first use), for kernels that write slots (solver/engine/steps_cuda.c). */
int spk_exec_cuda_slot_dev(spk_exec *e, spk_slot_dev *d);
/* cudaMemcpy host -> device on the executor's stream, synchronously. */
int spk_cuda_upload(spk_exec *e, void *dst, const void *src, size_t bytes, const char *what);

/* A's CSR arrays in device memory (dA gets the sizes and three device
 * arrays; `what` names them in an error); spk_cuda_csr_free releases them
 * (NULL-safe, dA zeroed). */
int spk_cuda_csr_upload(spk_exec *e, const spk_csr *A, spk_csr *dA, const char *what);
void spk_cuda_csr_free(spk_csr *dA);
/* spk_csr_symmetry (rtol) on a canonical matrix in device memory, whether
 * every diagonal entry is stored and positive (0 for 0 x 0),
 * spk_csr_stencil_like, whether every diagonal entry is stored, nonzero and
 * finite, and whether they are all equal; any output may be NULL. */
int spk_cuda_csr_symmetry(spk_exec *e, const spk_csr *dA, double rtol, int *pattern, int *values, int *posdiag,
                          int *stencil, int *diag_nonzero, int *diag_const);

/* Timing on the executor's stream (core/timing.c dispatches here). */
size_t spk_cuda_l2_bytes(const spk_exec *e);
void spk_cuda_device_name(const spk_exec *e, char *buf, size_t len);
int spk_cuda_timer_create(spk_exec *e, int flush, void **timer);
int spk_cuda_timer_call(spk_exec *e, void *timer, int (*fn)(void *arg), void *arg, int flush, int batch,
                        double *seconds);
void spk_cuda_timer_destroy(void *timer);
int spk_cuda_copy_bandwidth(spk_exec *e, double *gbs);
struct spk_floors;
int spk_cuda_floors(spk_exec *e, struct spk_floors *f);

/* Status checks: turn a failed call into an spk error naming the call and
 * the cause; return SPK_OK when the call succeeded. */
int spk_cuda_check(spk_err *err, cudaError_t st, const char *call);
int spk_cublas_check(spk_err *err, cublasStatus_t st, const char *call);
int spk_cusparse_check(spk_err *err, cusparseStatus_t st, const char *call);

#define SPK_CUDA_TRY(err, call) SPK_TRY(spk_cuda_check((err), (call), #call))
#define SPK_CUBLAS_TRY(err, call) SPK_TRY(spk_cublas_check((err), (call), #call))
#define SPK_CUSPARSE_TRY(err, call) SPK_TRY(spk_cusparse_check((err), (call), #call))
#define SPK_CUDA_CHECK(st, err, call) SPK_CHECK(st, spk_cuda_check((err), (call), #call))
#define SPK_CUSPARSE_CHECK(st, err, call) SPK_CHECK(st, spk_cusparse_check((err), (call), #call))

#endif
