/* exec_cuda.c -- the CUDA executor: device vectors, cuBLAS BLAS-1 on one
 * stream, scalars returned to the host (cuBLAS host pointer mode, so each dot
 * and norm waits for the queued work, as the CPU-controlled solvers need).
 * Traffic per operation as in exec_host.c.  The scalar slots and graphs are
 * in exec_cuda_async.c, the timers in cuda_timing.c. */
#include "exec_cuda_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_kernels.h"

/* Large uploads go through two pinned staging buffers: threads copy one
 * chunk into a buffer while the DMA engine moves the other (the plain
 * pageable copy runs at a fraction of the bus; see spk bench --floors). */
#define STAGE_BYTES ((size_t)32 << 20)
#define STAGE_MIN ((size_t)16 << 20) /* smaller uploads: one plain copy */
#define STAGE_THREADS 8

#define impl_of spk_cuda_impl

/* Plain host -> device copy on the stream, synchronized. */
static int upload_plain(spk_exec *e, void *dst, const void *src, size_t bytes)
{
    cuda_impl *c = impl_of(e);
    SPK_TRY(spk_cuda_check(e->err, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, c->stream),
                           "cudaMemcpyAsync (host to device)"));
    return spk_cuda_check(e->err, cudaStreamSynchronize(c->stream), "cudaStreamSynchronize");
}

typedef struct copy_part {
    char *dst;
    const char *src;
    size_t bytes;
} copy_part;

static void *copy_thread(void *arg)
{
    copy_part *p = arg;
    memcpy(p->dst, p->src, p->bytes);
    return NULL;
}

/* memcpy by up to STAGE_THREADS threads (the calling one included). */
static void parallel_copy(char *dst, const char *src, size_t bytes)
{
    pthread_t th[STAGE_THREADS];
    copy_part part[STAGE_THREADS];
    int started[STAGE_THREADS] = {0};
    const size_t slice = (bytes / STAGE_THREADS + 4095) & ~(size_t)4095;
    int k = 0;
    for (size_t off = 0; off < bytes; off += slice, k++) {
        part[k].dst = dst + off;
        part[k].src = src + off;
        part[k].bytes = bytes - off < slice ? bytes - off : slice;
    }
    for (int i = 1; i < k; i++) started[i] = pthread_create(&th[i], NULL, copy_thread, &part[i]) == 0;
    for (int i = 0; i < k; i++)
        if (i == 0 || !started[i]) copy_thread(&part[i]); /* a thread that did not start: copied here */
    for (int i = 1; i < k; i++)
        if (started[i]) pthread_join(th[i], NULL);
}

/* The staging buffers and their events (0: ready, else use plain copies). */
static int stage_ready(cuda_impl *c)
{
    if (c->stage[1]) return 1;
    if (c->stage_failed) return 0;
    for (int b = 0; b < 2; b++) {
        if (cudaHostAlloc(&c->stage[b], STAGE_BYTES, cudaHostAllocDefault) != cudaSuccess ||
            cudaEventCreateWithFlags(&c->staged[b], cudaEventDisableTiming) != cudaSuccess) {
            cudaGetLastError();
            c->stage_failed = 1;
            for (int k = 0; k < 2; k++) {
                if (c->stage[k]) cudaFreeHost(c->stage[k]);
                if (c->staged[k]) cudaEventDestroy(c->staged[k]);
                c->stage[k] = NULL;
                c->staged[k] = NULL;
            }
            return 0;
        }
    }
    return 1;
}

int spk_cuda_upload(spk_exec *e, void *dst, const void *src, size_t bytes, const char *what)
{
    if (!bytes) return SPK_OK;
    cuda_impl *c = impl_of(e);
    int st = SPK_OK;
    if (bytes < STAGE_MIN || !stage_ready(c)) {
        st = upload_plain(e, dst, src, bytes);
    } else {
        /* chunk k: wait for buffer k % 2's previous DMA, fill it, queue its DMA */
        size_t k = 0;
        for (size_t off = 0; off < bytes && !st; off += STAGE_BYTES, k++) {
            const int b = (int)(k % 2);
            const size_t len = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;
            st = spk_cuda_check(e->err, cudaEventSynchronize(c->staged[b]), "cudaEventSynchronize");
            if (st) break;
            parallel_copy(c->stage[b], (const char *)src + off, len);
            st = spk_cuda_check(e->err,
                                cudaMemcpyAsync((char *)dst + off, c->stage[b], len, cudaMemcpyHostToDevice, c->stream),
                                "cudaMemcpyAsync (host to device)");
            if (!st) st = spk_cuda_check(e->err, cudaEventRecord(c->staged[b], c->stream), "cudaEventRecord");
        }
        if (!st) st = spk_cuda_check(e->err, cudaStreamSynchronize(c->stream), "cudaStreamSynchronize");
    }
    if (st && what) spk_err_prefix(e->err, "uploading %s", what);
    return st;
}

int spk_cuda_csr_upload(spk_exec *e, const spk_csr *A, spk_csr *dA, const char *what)
{
    memset(dA, 0, sizeof *dA);
    dA->nrows = A->nrows;
    dA->ncols = A->ncols;
    dA->nnz = A->nnz;
    int st = spk_cuda_alloc(e, ((size_t)A->nrows + 1) * sizeof(int), what, (void **)&dA->rowptr);
    if (!st) st = spk_cuda_alloc(e, (size_t)A->nnz * sizeof(int), what, (void **)&dA->colind);
    if (!st) st = spk_cuda_alloc(e, (size_t)A->nnz * sizeof(double), what, (void **)&dA->val);
    if (!st) st = spk_cuda_upload(e, dA->rowptr, A->rowptr, ((size_t)A->nrows + 1) * sizeof(int), what);
    if (!st) st = spk_cuda_upload(e, dA->colind, A->colind, (size_t)A->nnz * sizeof(int), what);
    if (!st) st = spk_cuda_upload(e, dA->val, A->val, (size_t)A->nnz * sizeof(double), what);
    if (st) spk_cuda_csr_free(dA);
    return st;
}

void spk_cuda_csr_free(spk_csr *dA)
{
    if (!dA) return;
    cudaFree(dA->rowptr);
    cudaFree(dA->colind);
    cudaFree(dA->val);
    memset(dA, 0, sizeof *dA);
}

int spk_cuda_csr_symmetry(spk_exec *e, const spk_csr *dA, double rtol, int *pattern, int *values, int *posdiag,
                          int *stencil, int *diag_nonzero, int *diag_const)
{
    cuda_impl *c = impl_of(e);
    int flags[6] = {1, 1, 1, 1, 1, 1}, *dflags = NULL;
    const int square = dA->nrows == dA->ncols;
    if (square && dA->nrows > 0) {
        SPK_TRY(spk_cuda_alloc(e, sizeof flags, "the symmetry flags", (void **)&dflags));
        int st = spk_cuda_check(e->err, cudaMemcpyAsync(dflags, flags, sizeof flags, cudaMemcpyHostToDevice, c->stream),
                                "cudaMemcpyAsync (host to device)");
        if (!st)
            st = spk_cuda_check(e->err, spk_cuda_symmetry(c->stream, dA->nrows, dA->rowptr, dA->colind, dA->val, rtol,
                                                          dflags),
                                "spk_cuda_symmetry");
        if (!st)
            st = spk_cuda_check(e->err, cudaMemcpyAsync(flags, dflags, sizeof flags, cudaMemcpyDeviceToHost, c->stream),
                                "cudaMemcpyAsync (device to host)");
        if (!st) st = spk_cuda_check(e->err, cudaStreamSynchronize(c->stream), "cudaStreamSynchronize");
        cudaFree(dflags);
        SPK_TRY(st);
    }
    if (pattern) *pattern = square && flags[0];
    if (values) *values = square && flags[1];
    if (posdiag) *posdiag = square && dA->nrows > 0 && flags[2];
    if (stencil) *stencil = square && dA->nrows > 0 && flags[3];
    if (diag_nonzero) *diag_nonzero = square && flags[4];
    if (diag_const) *diag_const = square && flags[5];
    return SPK_OK;
}

static int cu_alloc(spk_exec *e, size_t bytes, void **p)
{
    return spk_cuda_alloc(e, bytes, NULL, p);
}

void spk_cuda_free(spk_exec *e, void *p)
{
    if (!p) return;
    cuda_impl *c = e && spk_exec_is_cuda(e) ? impl_of(e) : NULL;
    if (c && c->hold > 0) {
        if (c->nlater == c->caplater) {
            const int cap = c->caplater ? 2 * c->caplater : 16;
            void **l = realloc(c->later, (size_t)cap * sizeof *l);
            if (!l) { /* no room to defer it: free it now, waiting for the work alongside */
                cudaFree(p);
                return;
            }
            c->later = l;
            c->caplater = cap;
        }
        c->later[c->nlater++] = p;
        return;
    }
    cudaFree(p);
}

void spk_exec_cuda_hold_frees(spk_exec *e, int hold)
{
    cuda_impl *c = impl_of(e);
    c->hold += hold ? 1 : -1;
    if (c->hold > 0) return;
    c->hold = 0;
    for (int i = 0; i < c->nlater; i++) cudaFree(c->later[i]);
    c->nlater = 0;
}

static void cu_free(spk_exec *e, void *p)
{
    spk_cuda_free(e, p);
}

static int cu_upload(spk_exec *e, void *dst, const void *src, size_t bytes)
{
    return spk_cuda_upload(e, dst, src, bytes, NULL);
}

/* Device -> host; large copies through the staging buffers, the DMA of one
 * chunk under the threads' copy out of the other (a DMA into pinned memory
 * runs several times faster than one into pageable memory). */
static int cu_download(spk_exec *e, void *dst, const void *src, size_t bytes)
{
    if (!bytes) return SPK_OK;
    cuda_impl *c = impl_of(e);
    if (bytes < STAGE_MIN || !stage_ready(c)) {
        SPK_CUDA_TRY(e->err, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, c->stream));
        SPK_CUDA_TRY(e->err, cudaStreamSynchronize(c->stream));
        return SPK_OK;
    }
    const size_t chunks = (bytes + STAGE_BYTES - 1) / STAGE_BYTES;
    /* chunk k into buffer k % 2; chunk k + 1's DMA queued before chunk k is copied out */
    for (size_t k = 0; k <= chunks; k++) {
        if (k < chunks) {
            const size_t off = k * STAGE_BYTES, len = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;
            const int b = (int)(k % 2);
            SPK_CUDA_TRY(e->err,
                         cudaMemcpyAsync(c->stage[b], (const char *)src + off, len, cudaMemcpyDeviceToHost, c->stream));
            SPK_CUDA_TRY(e->err, cudaEventRecord(c->staged[b], c->stream));
        }
        if (k > 0) {
            const size_t off = (k - 1) * STAGE_BYTES, len = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;
            const int b = (int)((k - 1) % 2);
            SPK_CUDA_TRY(e->err, cudaEventSynchronize(c->staged[b]));
            parallel_copy((char *)dst + off, c->stage[b], len);
        }
    }
    return SPK_OK;
}

/* *out = x'y */
static int cu_dot(spk_exec *e, int n, const double *x, const double *y, double *out)
{
    SPK_CUBLAS_TRY(e->err, cublasDdot(impl_of(e)->blas, n, x, 1, y, 1, out));
    return SPK_OK;
}

/* *out = ||x||_2 (cuBLAS scales against overflow) */
static int cu_nrm2(spk_exec *e, int n, const double *x, double *out)
{
    SPK_CUBLAS_TRY(e->err, cublasDnrm2(impl_of(e)->blas, n, x, 1, out));
    return SPK_OK;
}

/* y = a*x + y */
static int cu_axpy(spk_exec *e, int n, double a, const double *x, double *y)
{
    SPK_CUBLAS_TRY(e->err, cublasDaxpy(impl_of(e)->blas, n, &a, x, 1, y, 1));
    return SPK_OK;
}

/* y = a*x + b*y (kernel: cuBLAS has no axpby; b == 0 does not read y) */
static int cu_axpby(spk_exec *e, int n, double a, const double *x, double b, double *y)
{
    SPK_CUDA_TRY(e->err, spk_cuda_axpby(impl_of(e)->stream, n, a, x, b, y));
    return SPK_OK;
}

/* x = a*x */
static int cu_scal(spk_exec *e, int n, double a, double *x)
{
    SPK_CUBLAS_TRY(e->err, cublasDscal(impl_of(e)->blas, n, &a, x, 1));
    return SPK_OK;
}

/* y = x */
static int cu_copy(spk_exec *e, int n, const double *x, double *y)
{
    if (x == y || n <= 0) return SPK_OK;
    SPK_CUBLAS_TRY(e->err, cublasDcopy(impl_of(e)->blas, n, x, 1, y, 1));
    return SPK_OK;
}

/* x[i] = a */
static int cu_fill(spk_exec *e, int n, double a, double *x)
{
    SPK_CUDA_TRY(e->err, spk_cuda_fill(impl_of(e)->stream, n, a, x));
    return SPK_OK;
}

static int cu_sync(spk_exec *e)
{
    SPK_CUDA_TRY(e->err, cudaStreamSynchronize(impl_of(e)->stream));
    return SPK_OK;
}

/* the device scratch of at least k doubles */
static int small_of(spk_exec *e, int k, double **d)
{
    cuda_impl *c = impl_of(e);
    if (c->nsmall < k) {
        if (c->small) cudaFree(c->small);
        c->small = NULL;
        c->nsmall = 0;
        SPK_TRY(spk_cuda_alloc(e, (size_t)k * sizeof(double), "the coefficients of a multi-vector operation",
                               (void **)&c->small));
        c->nsmall = k;
    }
    *d = c->small;
    return SPK_OK;
}

/* h = V' w in one cuBLAS gemv (k columns of leading dimension ld), then to the host */
static int cu_mdot(spk_exec *e, int n, int k, const double *V, size_t ld, const double *w, double *h)
{
    if (k <= 0) return SPK_OK;
    double *dh;
    SPK_TRY(small_of(e, k, &dh));
    const double one = 1, zero = 0;
    cuda_impl *c = impl_of(e);
    SPK_CUBLAS_TRY(e->err, cublasDgemv(c->blas, CUBLAS_OP_T, n, k, &one, V, (int)ld, w, 1, &zero, dh, 1));
    SPK_CUDA_TRY(e->err, cudaMemcpyAsync(h, dh, (size_t)k * sizeof(double), cudaMemcpyDeviceToHost, c->stream));
    SPK_CUDA_TRY(e->err, cudaStreamSynchronize(c->stream));
    return SPK_OK;
}

/* w += V a in one cuBLAS gemv, a uploaded first (stream order keeps it until used) */
static int cu_maxpy(spk_exec *e, int n, int k, const double *a, const double *V, size_t ld, double *w)
{
    if (k <= 0) return SPK_OK;
    double *da;
    SPK_TRY(small_of(e, k, &da));
    const double one = 1;
    cuda_impl *c = impl_of(e);
    SPK_CUDA_TRY(e->err, cudaMemcpyAsync(da, a, (size_t)k * sizeof(double), cudaMemcpyHostToDevice, c->stream));
    SPK_CUBLAS_TRY(e->err, cublasDgemv(c->blas, CUBLAS_OP_N, n, k, &one, V, (int)ld, da, 1, &one, w, 1));
    /* the caller may change a at once: the pageable copy above is staged before the call returns */
    return SPK_OK;
}

static void cu_destroy(spk_exec *e)
{
    if (!e) return;
    cuda_impl *c = impl_of(e);
    if (c) {
        spk_cuda_async_free(c->as);
        for (int i = 0; i < c->nlater; i++) cudaFree(c->later[i]);
        if (c->small) cudaFree(c->small);
        free(c->later);
        for (int b = 0; b < 2; b++) {
            if (c->stage[b]) cudaFreeHost(c->stage[b]);
            if (c->staged[b]) cudaEventDestroy(c->staged[b]);
        }
        if (c->sparse) cusparseDestroy(c->sparse);
        if (c->blas) cublasDestroy(c->blas);
        if (c->stream) cudaStreamDestroy(c->stream);
        free(c);
    }
    free(e);
}

static const struct spk_exec_ops cuda_ops = {
    "cuda",  cu_alloc, cu_free, cu_upload, cu_download, cu_dot,  cu_nrm2,    cu_axpy,
    cu_axpby, cu_scal, cu_copy, cu_fill,   cu_sync,     cu_destroy, &spk_cuda_async_ops, cu_mdot, cu_maxpy,
};

int spk_exec_cuda_create(spk_err *err, spk_exec **out)
{
    const char *why = NULL;
    *out = NULL;
    if (!spk_cuda_available(&why))
        return spk_err_set(err, SPK_ERR_DEVICE, "no usable CUDA device: %s", why);
    spk_exec *e = calloc(1, sizeof *e);
    cuda_impl *c = calloc(1, sizeof *c);
    if (!e || !c) {
        free(e);
        free(c);
        return spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (CUDA executor)");
    }
    e->ops = &cuda_ops;
    e->impl = c;
    e->err = err;
    int st;
    SPK_CUDA_CHECK(st, err, cudaGetDevice(&c->device));
    SPK_CUDA_CHECK(st, err, cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
    SPK_CHECK(st, spk_cuda_libs_load(err));
    SPK_CHECK(st, spk_cublas_check(err, cublasCreate(&c->blas), "cublasCreate"));
    SPK_CHECK(st, spk_cublas_check(err, cublasSetStream(c->blas, c->stream), "cublasSetStream"));
    SPK_CHECK(st, spk_cublas_check(err, cublasSetPointerMode(c->blas, CUBLAS_POINTER_MODE_HOST),
                                   "cublasSetPointerMode"));
    SPK_CUSPARSE_CHECK(st, err, cusparseCreate(&c->sparse));
    SPK_CUSPARSE_CHECK(st, err, cusparseSetStream(c->sparse, c->stream));
    SPK_CUSPARSE_CHECK(st, err, cusparseSetPointerMode(c->sparse, CUSPARSE_POINTER_MODE_HOST));
    *out = e;
    return SPK_OK;
cleanup:
    cu_destroy(e);
    return st;
}

int spk_exec_is_cuda(const spk_exec *e)
{
    return e && e->ops == &cuda_ops;
}

void spk_exec_cuda_handles(const spk_exec *e, cudaStream_t *stream, cublasHandle_t *blas,
                           cusparseHandle_t *sparse)
{
    cuda_impl *c = impl_of(e);
    if (stream) *stream = c->stream;
    if (blas) *blas = c->blas;
    if (sparse) *sparse = c->sparse;
}

int spk_exec_cuda_device(const spk_exec *e)
{
    return impl_of(e)->device;
}

int spk_exec_cuda_holds(const spk_exec *e, const void *p)
{
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError(); /* not an address CUDA knows: not the device's */
        return 0;
    }
    return (a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged) && a.device == impl_of(e)->device;
}

int spk_exec_cuda_settle(spk_exec *e)
{
    SPK_CUDA_TRY(e->err, cudaDeviceSynchronize());
    return SPK_OK;
}
