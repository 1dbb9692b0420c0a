/* exec_cuda.c -- the CUDA executor: device vectors, cuBLAS BLAS-1 on one
 * stream, scalars returned to the host (cuBLAS host pointer mode, so each dot
 * and norm waits for the queued work, as the CPU-controlled solvers need).
 * Traffic per operation as in exec_host.c. */
#include "exec_cuda.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block_kernels.h"
#include "cuda_kernels.h"
#include "krylov_kernels.h"
#include "timing.h"

#define KRYLOV_EVENTS 64 /* phase marks between two collects before one waits */

/* A recorded graph of fused steps and the events of its marks. */
#define GRAPH_EVENTS 32
typedef struct cuda_graph {
    cudaGraphExec_t exec;
    cudaEvent_t ev[GRAPH_EVENTS]; /* ev[0]: its start; ev[i]: its i-th mark */
    int tag[GRAPH_EVENTS];
    int nev;
    int timed;                    /* marks recorded as event nodes */
} cuda_graph;

/* The fused Krylov steps' state, made at their first use. */
typedef struct krylov_state {
    spk_krylov_dev d;        /* slots, block sums, ticket (device) */
    cuda_graph *cap;         /* the graph being recorded (NULL: none) */
    cuda_graph *ran;         /* the graph launched last, whose marks are not collected yet */
    double *hslots;          /* pinned copy of the slots for read */
    cudaEvent_t ev[KRYLOV_EVENTS];
    int tag[KRYLOV_EVENTS];  /* the phase of each mark (-1: a starting point) */
    int nev;                 /* marks recorded since the last collect (ev[0] the starting point) */
    double acc[SPK_PHASES];  /* seconds of marks already added up */
    /* block iterations (ck_block), made at their first use: reads, count
     * and cycles in one device buffer and its pinned copy */
    void *blk, *hblk;
    cudaEvent_t blk_read;    /* after the copy of the reads, where they race (ck_block) */
    int blk_iters;           /* the iterations the launch whose reads are pending was asked */
    int blk_race;            /* ...and whether it runs alongside jobs (ck_block_rest waits for either) */
    int blk_true;            /* ...and whether its kernel gives the true residual's t't */
    unsigned blk_shared;     /* dynamic shared memory the block kernels are allowed */
    double *blk_scratch;     /* a cluster's sweeps' iterates: 2 SPK_BLOCK_ROWS doubles */
    int cluster_max;         /* the most blocks of a cluster here (0: not asked yet) */
} krylov_state;

/* Large uploads go through two pinned staging buffers: threads copy one
 * chunk into a buffer while the DMA engine moves the other (the plain
 * pageable copy runs at a fraction of the bus; see spk bench --floors). */
#define STAGE_BYTES ((size_t)32 << 20)
#define STAGE_MIN ((size_t)16 << 20) /* smaller uploads: one plain copy */
#define STAGE_THREADS 8

/* CG jobs alongside the executor's work (exec.h, side_run), made at the
 * first use: each job's stream, events, scalars, last read, cycles and count
 * in one device buffer (and a pinned copy); in device memory the flag the
 * first to converge sets to the race's number (`over`, never reset: each
 * race has a number of its own), which the host also writes, through the
 * executor's stream, to stop them (read by the kernels every iteration, it
 * stays in device memory: from mapped host memory a read costs a small
 * system's iteration); the frees deferred while any runs. */
typedef struct side_job {
    cudaStream_t stream;
    cudaEvent_t go, start, end;
    void *dbuf, *hbuf;
    int running, iters;
} side_job;
typedef struct side_state {
    side_job job[SPK_EXEC_SIDES];
    int *over;                 /* device memory */
    int *race;                 /* pinned: the number of the race running or last run */
    int ended;                 /* the host has written *race to *over since the race began */
    int loaded;                /* 1: the kernels preloaded; -1: they cannot be (no job runs) */
    void **later;
    int nlater, caplater;
} side_state;
#define SIDE_READS 0                                   /* in doubles */
#define SIDE_SLOTS 3
#define SIDE_CYCLES (SIDE_SLOTS + SPK_KRYLOV_SLOTS)     /* SPK_PHASES long longs */
#define SIDE_COUNT (SIDE_CYCLES + SPK_PHASES)          /* an int: count */
#define SIDE_TRUE (SIDE_COUNT + 1)                     /* t't of the true residual (spk_block_job.true_rr) */
#define SIDE_BYTES ((SIDE_TRUE + 1) * sizeof(double))

/* Is a job alongside running? */
static int side_busy(const side_state *sd)
{
    for (int w = 0; sd && w < SPK_EXEC_SIDES; w++)
        if (sd->job[w].running) return 1;
    return 0;
}

typedef struct cuda_impl {
    cudaStream_t stream;
    cublasHandle_t blas;
    cusparseHandle_t sparse;
    int device;
    krylov_state *ks;
    void *stage[2];       /* pinned, STAGE_BYTES each (made on the first large upload) */
    cudaEvent_t staged[2]; /* the last copy out of each */
    int stage_failed;     /* pinned memory refused once: plain copies from then on */
    side_state *side;
} cuda_impl;

static cuda_impl *impl_of(const spk_exec *e)
{
    return (cuda_impl *)e->impl;
}

int spk_cuda_check(spk_err *err, cudaError_t st, const char *call)
{
    if (st == cudaSuccess) return SPK_OK;
    cudaGetLastError(); /* clear a non-sticky error so the next launch check does not see it */
    int code = st == cudaErrorMemoryAllocation ? SPK_ERR_NOMEM : SPK_ERR_DEVICE;
    return spk_err_set(err, code, "%s failed: %s (%s)", call, cudaGetErrorString(st),
                       cudaGetErrorName(st));
}

int spk_cublas_check(spk_err *err, cublasStatus_t st, const char *call)
{
    if (st == CUBLAS_STATUS_SUCCESS) return SPK_OK;
    int code = st == CUBLAS_STATUS_ALLOC_FAILED ? SPK_ERR_NOMEM : SPK_ERR_DEVICE;
    return spk_err_set(err, code, "%s failed: %s (%s)", call, cublasGetStatusString(st),
                       cublasGetStatusName(st));
}

int spk_cusparse_check(spk_err *err, cusparseStatus_t st, const char *call)
{
    if (st == CUSPARSE_STATUS_SUCCESS) return SPK_OK;
    int code = st == CUSPARSE_STATUS_ALLOC_FAILED ? SPK_ERR_NOMEM : SPK_ERR_DEVICE;
    return spk_err_set(err, code, "%s failed: %s (%s)", call, cusparseGetErrorString(st),
                       cusparseGetErrorName(st));
}

int spk_cuda_available(const char **why)
{
    int count = 0;
    cudaError_t st = cudaGetDeviceCount(&count);
    if (st != cudaSuccess) {
        if (why) *why = cudaGetErrorString(st);
        cudaGetLastError(); /* clear the sticky-free error state */
        return 0;
    }
    if (count == 0) {
        if (why) *why = "no CUDA device found";
        return 0;
    }
    return 1;
}

int spk_cuda_alloc(spk_exec *e, size_t bytes, const char *what, void **p)
{
    *p = NULL;
    cudaError_t st = cudaMalloc(p, bytes ? bytes : 1);
    if (st == cudaSuccess) return SPK_OK;
    cudaGetLastError();
    *p = NULL;
    size_t freeb = 0, total = 0;
    cudaMemGetInfo(&freeb, &total);
    if (st == cudaErrorMemoryAllocation)
        return spk_err_set(e->err, SPK_ERR_NOMEM,
                           "out of device memory: %s needs %zu bytes but only %zu of %zu bytes "
                           "are free on the GPU",
                           what ? what : "an allocation", bytes, freeb, total);
    return spk_cuda_check(e->err, st, "cudaMalloc");
}

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
                          int *stencil)
{
    cuda_impl *c = impl_of(e);
    int flags[4] = {1, 1, 1, 1}, *dflags = NULL;
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
    return SPK_OK;
}

static int cu_alloc(spk_exec *e, size_t bytes, void **p)
{
    return spk_cuda_alloc(e, bytes, NULL, p);
}

void spk_cuda_free(spk_exec *e, void *p)
{
    if (!p) return;
    side_state *sd = e && spk_exec_is_cuda(e) ? impl_of(e)->side : NULL;
    if (side_busy(sd)) {
        if (sd->nlater == sd->caplater) {
            const int cap = sd->caplater ? 2 * sd->caplater : 16;
            void **l = realloc(sd->later, (size_t)cap * sizeof *l);
            if (!l) { /* no room to defer it: free it now, waiting for the job */
                cudaFree(p);
                return;
            }
            sd->later = l;
            sd->caplater = cap;
        }
        sd->later[sd->nlater++] = p;
        return;
    }
    cudaFree(p);
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
 * chunk under the threads' copy out of the other (a 32 MB solution vector
 * took 3.1-3.4 ms as one copy into pageable memory on the H100's host, its
 * DMA into pinned memory 0.6 ms). */
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

static void cu_destroy(spk_exec *e)
{
    if (!e) return;
    cuda_impl *c = impl_of(e);
    if (c) {
        side_state *sd = c->side;
        if (sd) {
            if (side_busy(sd) && sd->over && sd->race)
                cudaMemcpyAsync(sd->over, sd->race, sizeof(int), cudaMemcpyHostToDevice, c->stream);
            for (int w = 0; w < SPK_EXEC_SIDES; w++) {
                side_job *jb = &sd->job[w];
                if (jb->running) cudaStreamSynchronize(jb->stream);
                jb->running = 0;
            }
            for (int i = 0; i < sd->nlater; i++) cudaFree(sd->later[i]);
            free(sd->later);
            for (int w = 0; w < SPK_EXEC_SIDES; w++) {
                side_job *jb = &sd->job[w];
                if (jb->go) cudaEventDestroy(jb->go);
                if (jb->start) cudaEventDestroy(jb->start);
                if (jb->end) cudaEventDestroy(jb->end);
                cudaFree(jb->dbuf);
                if (jb->hbuf) cudaFreeHost(jb->hbuf);
                if (jb->stream) cudaStreamDestroy(jb->stream);
            }
            if (sd->race) cudaFreeHost(sd->race);
            cudaFree(sd->over);
            free(sd);
        }
        if (c->ks) {
            for (int i = 0; i < KRYLOV_EVENTS; i++)
                if (c->ks->ev[i]) cudaEventDestroy(c->ks->ev[i]);
            cudaFree(c->ks->d.slots);
            cudaFree(c->ks->d.part);
            cudaFree(c->ks->d.ticket);
            if (c->ks->hslots) cudaFreeHost(c->ks->hslots);
            cudaFree(c->ks->blk);
            cudaFree(c->ks->blk_scratch);
            if (c->ks->hblk) cudaFreeHost(c->ks->hblk);
            if (c->ks->blk_read) cudaEventDestroy(c->ks->blk_read);
            free(c->ks);
        }
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

/* ---- fused Krylov steps (exec.h; kernels in krylov_kernels.cu) ---------- */

/* The state, made on first use; NULL after an error (message set). */
static krylov_state *kstate(spk_exec *e)
{
    cuda_impl *c = impl_of(e);
    if (c->ks) return c->ks;
    krylov_state *k = calloc(1, sizeof *k);
    if (!k) {
        spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (Krylov state)");
        return NULL;
    }
    int st;
    SPK_CHECK(st, spk_cuda_alloc(e, SPK_KRYLOV_SLOTS * sizeof(double), "the Krylov scalars", (void **)&k->d.slots));
    SPK_CHECK(st, spk_cuda_alloc(e, 2 * KRYLOV_MAX_BLOCKS * sizeof(double), "the reduction block sums",
                                 (void **)&k->d.part));
    SPK_CHECK(st, spk_cuda_alloc(e, sizeof(unsigned), "the reduction ticket", (void **)&k->d.ticket));
    SPK_CUDA_CHECK(st, e->err, cudaMemsetAsync(k->d.ticket, 0, sizeof(unsigned), c->stream));
    SPK_CUDA_CHECK(st, e->err, cudaMemsetAsync(k->d.slots, 0, SPK_KRYLOV_SLOTS * sizeof(double), c->stream));
    SPK_CUDA_CHECK(st, e->err, cudaHostAlloc((void **)&k->hslots, SPK_KRYLOV_SLOTS * sizeof(double),
                                             cudaHostAllocDefault));
    for (int i = 0; i < KRYLOV_EVENTS; i++) SPK_CUDA_CHECK(st, e->err, cudaEventCreate(&k->ev[i]));
    c->ks = k;
    return k;
cleanup:
    for (int i = 0; i < KRYLOV_EVENTS; i++)
        if (k->ev[i]) cudaEventDestroy(k->ev[i]);
    cudaFree(k->d.slots);
    cudaFree(k->d.part);
    cudaFree(k->d.ticket);
    if (k->hslots) cudaFreeHost(k->hslots);
    free(k);
    return NULL;
}

#define KS(e, k)                                   \
    krylov_state *k = kstate(e);                   \
    if (!k) return (e)->err->code ? (e)->err->code : SPK_ERR_DEVICE
#define KLAUNCH(e, call) SPK_CUDA_TRY((e)->err, call)

static int ck_dot(spk_exec *e, int n, const double *x, const double *y, int o)
{
    KS(e, k);
    KLAUNCH(e, spk_krylov_dot(impl_of(e)->stream, &k->d, n, x, y, o));
    return SPK_OK;
}

static int ck_dot2(spk_exec *e, int n, const double *x, const double *y, int o1, int o2)
{
    KS(e, k);
    KLAUNCH(e, spk_krylov_dot2(impl_of(e)->stream, &k->d, n, x, y, o1, o2));
    return SPK_OK;
}

static int ck_set(spk_exec *e, int o, double v)
{
    KS(e, k);
    KLAUNCH(e, spk_krylov_set(impl_of(e)->stream, k->d.slots, o, v));
    return SPK_OK;
}

static int ck_cg_update(spk_exec *e, int n, int rz, int pq, const double *p, const double *q, double *x, double *r,
                        int o)
{
    KS(e, k);
    KLAUNCH(e, spk_krylov_cg_update(impl_of(e)->stream, &k->d, n, rz, pq, p, q, x, r, o));
    return SPK_OK;
}

static int ck_cg_direction(spk_exec *e, int n, int num, int den, const double *z, double *p)
{
    KS(e, k);
    KLAUNCH(e, spk_krylov_cg_direction(impl_of(e)->stream, &k->d, n, num, den, z, p));
    return SPK_OK;
}

static int ck_bicg_direction(spk_exec *e, int n, int fresh, int rho, int rho_old, int r0v, int ts, int tt,
                             const double *r, const double *v, double *p)
{
    KS(e, k);
    KLAUNCH(e, spk_krylov_bicg_direction(impl_of(e)->stream, &k->d, n, fresh, rho, rho_old, r0v, ts, tt, r, v, p));
    return SPK_OK;
}

static int ck_bicg_s(spk_exec *e, int n, int rho, int r0v, const double *v, double *r, int o)
{
    KS(e, k);
    KLAUNCH(e, spk_krylov_bicg_s(impl_of(e)->stream, &k->d, n, rho, r0v, v, r, o));
    return SPK_OK;
}

static int ck_axpy_ratio(spk_exec *e, int n, int num, int den, const double *x, double *y)
{
    KS(e, k);
    KLAUNCH(e, spk_krylov_axpy_ratio(impl_of(e)->stream, &k->d, n, num, den, x, y));
    return SPK_OK;
}

static int ck_bicg_update(spk_exec *e, int n, int rho, int r0v, int ts, int tt, const double *ph, const double *sh,
                          const double *t, double *x, double *r, int o)
{
    KS(e, k);
    KLAUNCH(e, spk_krylov_bicg_update(impl_of(e)->stream, &k->d, n, rho, r0v, ts, tt, ph, sh, t, x, r, o));
    return SPK_OK;
}

static int ck_read(spk_exec *e, const int *which, int count, double *host)
{
    KS(e, k);
    cudaStream_t s = impl_of(e)->stream;
    SPK_CUDA_TRY(e->err, cudaMemcpyAsync(k->hslots, k->d.slots, SPK_KRYLOV_SLOTS * sizeof(double),
                                         cudaMemcpyDeviceToHost, s));
    if (k->cap) return SPK_OK; /* recorded: read_wait gives the values after the graph ran */
    SPK_CUDA_TRY(e->err, cudaStreamSynchronize(s));
    for (int i = 0; i < count; i++) host[i] = k->hslots[which[i]];
    return SPK_OK;
}

/* Wait for the last of nev recorded events, then add the time from each
 * to the next to acc[] of the next one's tag (tags < 0: to none). */
static int events_add(spk_exec *e, const cudaEvent_t *ev, const int *tag, int nev, double *acc)
{
    SPK_CUDA_TRY(e->err, cudaEventSynchronize(ev[nev - 1]));
    for (int i = 1; i < nev; i++) {
        if (tag[i] < 0) continue;
        float ms = 0;
        SPK_CUDA_TRY(e->err, cudaEventElapsedTime(&ms, ev[i - 1], ev[i]));
        acc[tag[i]] += ms * 1e-3;
    }
    return SPK_OK;
}

/* Add the times of the recorded marks to k->acc; the last mark becomes ev[0]. */
static int marks_add(spk_exec *e, krylov_state *k)
{
    if (k->nev == 0) return SPK_OK;
    SPK_TRY(events_add(e, k->ev, k->tag, k->nev, k->acc));
    cudaEvent_t last = k->ev[k->nev - 1];
    k->ev[k->nev - 1] = k->ev[0];
    k->ev[0] = last;
    k->tag[0] = -1;
    k->nev = 1;
    return SPK_OK;
}

static int graph_marks_add(spk_exec *e, krylov_state *k);

static int ck_mark(spk_exec *e, int ph)
{
    KS(e, k);
    if (k->cap) { /* an event node of the graph */
        cuda_graph *g = k->cap;
        if (!g->timed) return SPK_OK;
        if (ph < 0 || g->nev == GRAPH_EVENTS)
            return spk_err_set(e->err, SPK_ERR_INTERNAL, "a graph of fused steps holds %s",
                               ph < 0 ? "a starting mark" : "too many marks");
        SPK_CUDA_TRY(e->err, cudaEventRecordWithFlags(g->ev[g->nev], impl_of(e)->stream, cudaEventRecordExternal));
        g->tag[g->nev++] = ph < SPK_PHASES ? ph : -1;
        return SPK_OK;
    }
    if (k->nev == KRYLOV_EVENTS) SPK_TRY(marks_add(e, k)); /* full: wait for what is queued */
    if (ph < 0) { /* a new starting point: what was marked before it and not
                     collected belongs to no one (a previous solve's tail) */
        SPK_TRY(graph_marks_add(e, k));
        SPK_TRY(marks_add(e, k));
        for (int p = 0; p < SPK_PHASES; p++) k->acc[p] = 0;
        k->nev = 0;
    }
    SPK_CUDA_TRY(e->err, cudaEventRecord(k->ev[k->nev], impl_of(e)->stream));
    k->tag[k->nev++] = ph < SPK_PHASES ? ph : -1;
    return SPK_OK;
}

/* Add the marks of the graph launched last to k->acc (waits for it). */
static int graph_marks_add(spk_exec *e, krylov_state *k)
{
    cuda_graph *g = k->ran;
    k->ran = NULL;
    if (!g || !g->timed) return SPK_OK;
    return events_add(e, g->ev, g->tag, g->nev, k->acc);
}

static int ck_collect(spk_exec *e, double *seconds)
{
    KS(e, k);
    SPK_TRY(graph_marks_add(e, k));
    SPK_TRY(marks_add(e, k));
    for (int p = 0; p < SPK_PHASES; p++) {
        seconds[p] += k->acc[p];
        k->acc[p] = 0;
    }
    return SPK_OK;
}

static void graph_free(void *graph)
{
    cuda_graph *g = graph;
    if (!g) return;
    if (g->exec) cudaGraphExecDestroy(g->exec);
    for (int i = 0; i < GRAPH_EVENTS; i++)
        if (g->ev[i]) cudaEventDestroy(g->ev[i]);
    free(g);
}

static int ck_capture(spk_exec *e, int timed)
{
    KS(e, k);
    if (k->cap) return spk_err_set(e->err, SPK_ERR_INTERNAL, "a graph of fused steps is already being recorded");
    cuda_graph *g = calloc(1, sizeof *g);
    if (!g) return spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (a graph of fused steps)");
    cudaStream_t s = impl_of(e)->stream;
    cudaError_t ce = cudaSuccess;
    for (int i = 0; i < GRAPH_EVENTS && ce == cudaSuccess; i++) ce = cudaEventCreate(&g->ev[i]);
    if (ce == cudaSuccess) ce = cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
    if (ce == cudaSuccess && timed) {
        ce = cudaEventRecordWithFlags(g->ev[0], s, cudaEventRecordExternal);
        if (ce != cudaSuccess) { /* end the capture it began */
            cudaGraph_t dropped = NULL;
            cudaStreamEndCapture(s, &dropped);
            if (dropped) cudaGraphDestroy(dropped);
        }
    }
    if (ce != cudaSuccess) {
        graph_free(g);
        return spk_cuda_check(e->err, ce, "recording a graph of fused steps");
    }
    g->tag[0] = -1;
    g->nev = 1;
    g->timed = timed;
    k->cap = g;
    return SPK_OK;
}

static int ck_end_capture(spk_exec *e, void **graph)
{
    *graph = NULL;
    KS(e, k);
    cuda_graph *g = k->cap;
    if (!g) return spk_err_set(e->err, SPK_ERR_INTERNAL, "no graph of fused steps is being recorded");
    k->cap = NULL;
    cudaGraph_t cg = NULL;
    cudaError_t ce = cudaStreamEndCapture(impl_of(e)->stream, &cg);
    if (ce == cudaSuccess && !cg) ce = cudaErrorStreamCaptureInvalidated;
    if (ce == cudaSuccess) ce = cudaGraphInstantiate(&g->exec, cg, 0);
    if (cg) cudaGraphDestroy(cg);
    if (ce != cudaSuccess) {
        cudaGetLastError(); /* a failed recording leaves no sticky error */
        graph_free(g);
        return spk_cuda_check(e->err, ce, "recording a graph of fused steps");
    }
    *graph = g;
    return SPK_OK;
}

static int ck_launch(spk_exec *e, void *graph)
{
    KS(e, k);
    cuda_graph *g = graph;
    cudaStream_t s = impl_of(e)->stream;
    /* the marks before it, now (a driver launches right after a read: nothing waits) */
    SPK_TRY(graph_marks_add(e, k));
    SPK_TRY(marks_add(e, k));
    SPK_CUDA_TRY(e->err, cudaGraphLaunch(g->exec, s));
    k->ran = g;
    /* the next marks start where the graph ends, not before it */
    SPK_CUDA_TRY(e->err, cudaEventRecord(k->ev[0], s));
    k->tag[0] = -1;
    k->nev = 1;
    return SPK_OK;
}

static int ck_read_wait(spk_exec *e, const int *which, int count, double *host)
{
    KS(e, k);
    SPK_CUDA_TRY(e->err, cudaStreamSynchronize(impl_of(e)->stream));
    for (int i = 0; i < count; i++) host[i] = k->hslots[which[i]];
    return SPK_OK;
}

/* Whole iterations in one block or a cluster (exec.h, spk_block_job): the
 * kernel, marked as vector work, then its reads, count and cycles in one
 * transfer.  A cluster larger than the device runs is made smaller (down to
 * one block, before sm_90: the same iterations, slower). */
#define BLOCK_READS (2 * SPK_BLOCK_ITERS)
#define BLOCK_BYTES (3 * BLOCK_READS * sizeof(double) + SPK_PHASES * sizeof(long long) + 2 * sizeof(double))
static int ck_block_rest(spk_exec *e, double *reads, int *count, double *share);

static int ck_block(spk_exec *e, spk_block_job *asked, double *reads, int *count, double *share)
{
    KS(e, k);
    cudaStream_t s = impl_of(e)->stream;
    if (asked->iters > SPK_BLOCK_ITERS || asked->n > SPK_BLOCK_ROWS || asked->cluster < 1 ||
        asked->cluster > SPK_BLOCK_CLUSTER_MAX || (asked->cluster > 1 && asked->M.kind == SPK_BLOCK_SOLVE))
        return spk_err_set(e->err, SPK_ERR_INTERNAL,
                           "block iterations: %d iterations of %d rows in %d blocks asked, at most %d of %d in %d",
                           asked->iters, asked->n, asked->cluster, SPK_BLOCK_ITERS, SPK_BLOCK_ROWS,
                           SPK_BLOCK_CLUSTER_MAX);
    spk_block_job jb = *asked, *job = &jb;
    if (job->cluster > 1 && !k->cluster_max) SPK_CUDA_TRY(e->err, spk_block_cluster_max(&k->cluster_max));
    while (job->cluster > 1 && job->cluster > k->cluster_max) job->cluster /= 2;
    asked->cluster = job->cluster;
    if (job->cluster > 1) {
        if (!k->blk_scratch)
            SPK_TRY(spk_cuda_alloc(e, 2 * (size_t)SPK_BLOCK_ROWS * sizeof(double), "the cluster's sweep iterates",
                                   (void **)&k->blk_scratch));
        job->scratch = k->blk_scratch;
    }
    if (!k->blk) SPK_TRY(spk_cuda_alloc(e, BLOCK_BYTES, "the block iterations' reads", &k->blk));
    if (!k->hblk) SPK_CUDA_TRY(e->err, cudaHostAlloc(&k->hblk, BLOCK_BYTES, cudaHostAllocDefault));
    const unsigned bytes = job->M.kind == SPK_BLOCK_IDENTITY || job->cluster > 1 ? 0 : job->M.shared_bytes;
    if (bytes > k->blk_shared) {
        SPK_CUDA_TRY(e->err, spk_block_allow(bytes));
        k->blk_shared = bytes;
    }
    double *dreads = k->blk;
    long long *dcyc = (long long *)(dreads + 3 * BLOCK_READS);
    int *dcount = (int *)(dcyc + SPK_PHASES);
    const side_state *sd = impl_of(e)->side;
    /* the true residual's t't after the count (ck_block_rest) */
    job->true_rr = job->b ? (double *)(dcyc + SPK_PHASES) + 1 : NULL;
    k->blk_true = job->b != NULL;
    job->ring = 0;
    job->over = NULL;
    job->signal = 0;
    if (side_busy(sd) && job->method == SPK_BLOCK_CG) { /* stop once a job alongside has converged */
        job->over = sd->over;
        job->race = *sd->race;
    }
    if (job->over && !k->blk_read) SPK_CUDA_TRY(e->err, cudaEventCreateWithFlags(&k->blk_read, cudaEventDisableTiming));
    KLAUNCH(e, spk_block_run(s, job, k->d.slots, dreads, dcount, dcyc));
    SPK_TRY(ck_mark(e, SPK_PHASE_VECTOR));
    SPK_CUDA_TRY(e->err, cudaMemcpyAsync(k->hblk, k->blk, BLOCK_BYTES, cudaMemcpyDeviceToHost, s));
    if (job->over) SPK_CUDA_TRY(e->err, cudaEventRecord(k->blk_read, s));
    k->blk_iters = job->iters;
    k->blk_race = job->over != NULL;
    return ck_block_rest(e, reads, count, share);
}

/* The reads of the last ck_block.  Where it runs alongside jobs, whichever
 * ends first: the reads, or a job alongside (*count = 0, the reads still
 * pending: the driver asks again after it has taken that job's end).  A
 * job alongside that converged has set the race's flag, on which these
 * iterations stop within one of theirs; but their reads are then not
 * wanted, and the answer need not wait for that iteration and their
 * readback (nos3, on an H100's timeline: 66 us and about 15). */
static int ck_block_rest(spk_exec *e, double *reads, int *count, double *share)
{
    KS(e, k);
    *count = 0;
    const side_state *sd = impl_of(e)->side;
    while (k->blk_race) {
        cudaError_t q = cudaEventQuery(k->blk_read);
        if (q == cudaSuccess) break;
        if (q != cudaErrorNotReady) SPK_CUDA_TRY(e->err, q);
        for (int w = 0; sd && w < SPK_EXEC_SIDES; w++) {
            if (!sd->job[w].running) continue;
            q = cudaEventQuery(sd->job[w].end);
            if (q == cudaSuccess) return SPK_OK;
            if (q != cudaErrorNotReady) SPK_CUDA_TRY(e->err, q);
        }
    }
    if (!k->blk_race) SPK_CUDA_TRY(e->err, cudaStreamSynchronize(impl_of(e)->stream));
    const double *hr = k->hblk;
    const long long *hc = (const long long *)(hr + 3 * BLOCK_READS);
    const int c = *(const int *)(hc + SPK_PHASES);
    if (c < 1 || c > 2 * k->blk_iters)
        return spk_err_set(e->err, SPK_ERR_INTERNAL, "block iterations: %d reads back for %d iterations", c,
                           k->blk_iters);
    memcpy(reads, hr, 3 * (size_t)c * sizeof(double));
    reads[3 * c] = k->blk_true ? ((const double *)(hc + SPK_PHASES))[1] : NAN;
    *count = c;
    double total = 0;
    for (int p = 0; p < SPK_PHASES; p++) total += (double)hc[p];
    for (int p = 0; p < SPK_PHASES; p++) share[p] = total > 0 ? (double)hc[p] / total : p == SPK_PHASE_VECTOR;
    return SPK_OK;
}

const int *spk_exec_cuda_side_over(const spk_exec *e, int *race)
{
    const side_state *sd = e && spk_exec_is_cuda(e) ? impl_of(e)->side : NULL;
    *race = sd ? *sd->race : 0;
    return side_busy(sd) ? sd->over : NULL;
}

/* The jobs alongside (exec.h, side_run), their state made at the first. */
static side_state *side_of(spk_exec *e)
{
    cuda_impl *c = impl_of(e);
    if (c->side) return c->side;
    side_state *sd = calloc(1, sizeof *sd);
    if (!sd) {
        spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (the jobs alongside)");
        return NULL;
    }
    c->side = sd; /* freed with the executor, also when made in part */
    int st;
    for (int w = 0; w < SPK_EXEC_SIDES; w++) {
        side_job *jb = &sd->job[w];
        SPK_CUDA_CHECK(st, e->err, cudaStreamCreateWithFlags(&jb->stream, cudaStreamNonBlocking));
        SPK_CUDA_CHECK(st, e->err, cudaEventCreateWithFlags(&jb->go, cudaEventDisableTiming));
        SPK_CUDA_CHECK(st, e->err, cudaEventCreate(&jb->start));
        SPK_CUDA_CHECK(st, e->err, cudaEventCreate(&jb->end));
        SPK_CHECK(st, spk_cuda_alloc(e, SIDE_BYTES, "the job alongside's scalars", &jb->dbuf));
        SPK_CUDA_CHECK(st, e->err, cudaHostAlloc(&jb->hbuf, SIDE_BYTES, cudaHostAllocDefault));
    }
    SPK_CUDA_CHECK(st, e->err, cudaHostAlloc((void **)&sd->race, sizeof(int), cudaHostAllocDefault));
    *sd->race = 0;
    SPK_CHECK(st, spk_cuda_alloc(e, sizeof(int), "the race's flag", (void **)&sd->over));
    SPK_CUDA_CHECK(st, e->err, cudaMemset(sd->over, 0, sizeof(int)));
    return sd;
cleanup:
    return NULL;
}

static int ck_side_run(spk_exec *e, int which, spk_block_job *job)
{
    KS(e, k);
    if (which < 0 || which >= SPK_EXEC_SIDES || job->method != SPK_BLOCK_CG ||
        (job->M.kind != SPK_BLOCK_IDENTITY && job->M.kind != SPK_BLOCK_DIAG) || job->ring != 1 || job->iters < 1 ||
        job->n > SPK_BLOCK_ROWS || job->cluster < 1 || job->cluster > SPK_BLOCK_CLUSTER_MAX)
        return spk_err_set(e->err, SPK_ERR_INTERNAL,
                           "job alongside %d (of %d): CG without a preconditioner or with Jacobi, one read kept, "
                           "at most %d rows",
                           which, SPK_EXEC_SIDES, SPK_BLOCK_ROWS);
    side_state *sd = side_of(e);
    if (!sd) return e->err->code ? e->err->code : SPK_ERR_DEVICE;
    side_job *jb = &sd->job[which];
    if (jb->running) return spk_err_set(e->err, SPK_ERR_INTERNAL, "job alongside %d is already running", which);
    if (!sd->loaded) { /* the kernels a solve may launch first, loaded before the job runs */
        const void *probe[] = {spk_block_kernels_probe(), spk_krylov_kernels_probe(), spk_cuda_kernels_probe(),
                               spk_devfactor_probe()};
        sd->loaded = 1;
        for (size_t i = 0; i < sizeof probe / sizeof probe[0] && sd->loaded == 1; i++) {
            int done = 0;
            SPK_CUDA_TRY(e->err, spk_module_preload(probe[i], &done));
            if (!done) sd->loaded = -1;
        }
    }
    if (sd->loaded < 0) { /* a first load during the job would wait for it */
        job->cluster = 0;
        return SPK_OK;
    }
    if (job->cluster > 1 && !k->cluster_max) SPK_CUDA_TRY(e->err, spk_block_cluster_max(&k->cluster_max));
    while (job->cluster > 1 && job->cluster > k->cluster_max) job->cluster /= 2;
    /* no job runs: a new race, a new number (never 0, the flag's first
     * value; the pinned copy is read by a copy queued before this, done by
     * now: the last race's jobs have ended) */
    if (!side_busy(sd)) {
        *sd->race = *sd->race == INT_MAX ? 1 : *sd->race + 1;
        sd->ended = 0;
    }
    double *d = jb->dbuf;
    job->over = sd->over;
    job->race = *sd->race;
    job->signal = 1;
    job->scratch = NULL; /* no sweeps: no sweeps' iterates */
    job->true_rr = d + SIDE_TRUE;
    cudaStream_t s = jb->stream;
    if (job->x0 && job->r0) /* one launch for both, before anything later on the stream may change them */
        KLAUNCH(e, spk_cuda_copy2(impl_of(e)->stream, job->n, job->x0, job->x, job->r0, job->v[0]));
    SPK_CUDA_TRY(e->err, cudaEventRecord(jb->go, impl_of(e)->stream));
    SPK_CUDA_TRY(e->err, cudaStreamWaitEvent(s, jb->go, 0));
    SPK_CUDA_TRY(e->err, cudaEventRecord(jb->start, s));
    /* the kernel writes the count at its end: no reset before it */
    KLAUNCH(e, spk_block_run(s, job, d + SIDE_SLOTS, d + SIDE_READS, (int *)(d + SIDE_COUNT),
                             (long long *)(d + SIDE_CYCLES)));
    SPK_CUDA_TRY(e->err, cudaEventRecord(jb->end, s));
    jb->running = 1;
    jb->iters = job->iters;
    return SPK_OK;
}

static int ck_side_poll(spk_exec *e, int which, int *ended)
{
    const side_state *sd = impl_of(e)->side;
    *ended = 1;
    if (!sd || which < 0 || which >= SPK_EXEC_SIDES || !sd->job[which].running) return SPK_OK;
    const cudaError_t q = cudaEventQuery(sd->job[which].end);
    if (q == cudaErrorNotReady) {
        *ended = 0;
        return SPK_OK;
    }
    SPK_CUDA_TRY(e->err, q);
    return SPK_OK;
}

static int ck_side_end(spk_exec *e, int which, double last[4], int *count, double *seconds, double *share)
{
    side_state *sd = impl_of(e)->side;
    if (!sd || which < 0 || which >= SPK_EXEC_SIDES || !sd->job[which].running)
        return spk_err_set(e->err, SPK_ERR_INTERNAL, "no job alongside %d to end", which);
    side_job *jb = &sd->job[which];
    /* still running: the race's flag set through the executor's stream (its
     * work, the solve's, is done: the copy runs at once), which ends every
     * job of the race within an iteration */
    if (!sd->ended && cudaEventQuery(jb->end) == cudaErrorNotReady) {
        SPK_CUDA_TRY(e->err,
                     cudaMemcpyAsync(sd->over, sd->race, sizeof(int), cudaMemcpyHostToDevice, impl_of(e)->stream));
        sd->ended = 1;
    }
    int st = SPK_OK;
    if (!last) { /* its answer is not wanted: the wait alone (a copy back costs a readback) */
        SPK_CUDA_CHECK(st, e->err, cudaEventSynchronize(jb->end));
        goto cleanup;
    }
    SPK_CUDA_CHECK(st, e->err, cudaMemcpyAsync(jb->hbuf, jb->dbuf, SIDE_BYTES, cudaMemcpyDeviceToHost, jb->stream));
    SPK_CUDA_CHECK(st, e->err, cudaStreamSynchronize(jb->stream));
    float ms = 0;
    SPK_CUDA_CHECK(st, e->err, cudaEventElapsedTime(&ms, jb->start, jb->end));
    const double *h = jb->hbuf;
    const long long *cyc = (const long long *)(h + SIDE_CYCLES);
    const int *hc = (const int *)(h + SIDE_COUNT);
    if (hc[0] < 1 || hc[0] > jb->iters) {
        st = spk_err_set(e->err, SPK_ERR_INTERNAL, "job alongside %d: %d iterations back for at most %d", which,
                         hc[0], jb->iters);
        goto cleanup;
    }
    memcpy(last, h + SIDE_READS, 3 * sizeof(double));
    last[3] = h[SIDE_TRUE];
    *count = hc[0];
    *seconds = 1e-3 * ms;
    double total = 0;
    for (int p = 0; p < SPK_PHASES; p++) total += (double)cyc[p];
    for (int p = 0; p < SPK_PHASES; p++) share[p] = total > 0 ? (double)cyc[p] / total : p == SPK_PHASE_VECTOR;
cleanup:
    jb->running = 0;
    if (!side_busy(sd)) {
        for (int i = 0; i < sd->nlater; i++) cudaFree(sd->later[i]);
        sd->nlater = 0;
    }
    return st;
}

static int ck_side_download(spk_exec *e, int which, double *host, const double *dev, int n)
{
    const side_state *sd = impl_of(e)->side;
    if (!sd || which < 0 || which >= SPK_EXEC_SIDES || sd->job[which].running || n < 0)
        return spk_err_set(e->err, SPK_ERR_INTERNAL, "no ended job alongside %d to copy from", which);
    cudaStream_t s = sd->job[which].stream;
    SPK_CUDA_TRY(e->err, cudaMemcpyAsync(host, dev, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost, s));
    SPK_CUDA_TRY(e->err, cudaStreamSynchronize(s));
    return SPK_OK;
}

static const struct spk_exec_krylov_ops cuda_krylov = {
    ck_dot,       ck_dot2,       ck_set,         ck_cg_update, ck_cg_direction, ck_bicg_direction,
    ck_bicg_s,    ck_axpy_ratio, ck_bicg_update, ck_read,      ck_mark,         ck_collect,
    ck_capture,   ck_end_capture, ck_launch,     ck_read_wait, graph_free,    ck_block,
    ck_block_rest, ck_side_run,  ck_side_poll,  ck_side_end,   ck_side_download,
};

static const struct spk_exec_ops cuda_ops = {
    "cuda",  cu_alloc, cu_free, cu_upload, cu_download, cu_dot,  cu_nrm2,    cu_axpy,
    cu_axpby, cu_scal, cu_copy, cu_fill,   cu_sync,     cu_destroy, &cuda_krylov,
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

/* ---- timing (core/timing.h) ------------------------------------------------------ */

size_t spk_cuda_l2_bytes(const spk_exec *e)
{
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, impl_of(e)->device) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return v > 0 ? (size_t)v : 0;
}

void spk_cuda_device_name(const spk_exec *e, char *buf, size_t len)
{
    struct cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, impl_of(e)->device) != cudaSuccess) {
        cudaGetLastError();
        snprintf(buf, len, "CUDA device %d", impl_of(e)->device);
        return;
    }
    snprintf(buf, len, "%s", p.name);
}

/* A timed batch runs behind spk_cuda_hold: the host queues the whole batch
 * and the closing event while the stream is held, then releases it, so the
 * events measure the GPU running the calls back to back and not the rate at
 * which the host launches them (which, for products of a few microseconds,
 * is the slower of the two and jitters by tens of per cent).  The hold gives
 * up by itself after HOLD_TIMEOUT_NS, far more than queueing a batch takes,
 * should the host block while queueing (a full launch queue, or a tool that
 * serializes launches). */
#define HOLD_TIMEOUT_NS 10000000ULL

typedef struct cuda_timer {
    cudaEvent_t a, b;
    void *flush;
    size_t flush_bytes;
    int round;
    int *release, *release_dev; /* pinned, mapped: the host's release of the hold */
} cuda_timer;

void spk_cuda_timer_destroy(void *timer)
{
    cuda_timer *t = timer;
    if (!t) return;
    if (t->a) cudaEventDestroy(t->a);
    if (t->b) cudaEventDestroy(t->b);
    if (t->release) cudaFreeHost(t->release);
    cudaFree(t->flush);
    free(t);
}

int spk_cuda_timer_create(spk_exec *e, int flush, void **timer)
{
    *timer = NULL;
    cuda_timer *t = calloc(1, sizeof *t);
    if (!t) return spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (timer)");
    int st;
    SPK_CUDA_CHECK(st, e->err, cudaEventCreate(&t->a));
    SPK_CUDA_CHECK(st, e->err, cudaEventCreate(&t->b));
    SPK_CUDA_CHECK(st, e->err, cudaHostAlloc((void **)&t->release, sizeof(int), cudaHostAllocMapped));
    SPK_CUDA_CHECK(st, e->err, cudaHostGetDevicePointer((void **)&t->release_dev, t->release, 0));
    if (flush) {
        size_t l2 = spk_cuda_l2_bytes(e);
        t->flush_bytes = 2 * (l2 ? l2 : (size_t)64 << 20);
        SPK_CHECK(st, spk_cuda_alloc(e, t->flush_bytes, "the buffer that flushes the L2 cache", &t->flush));
    }
    *timer = t;
    return SPK_OK;
cleanup:
    spk_cuda_timer_destroy(t);
    return st;
}

int spk_cuda_timer_call(spk_exec *e, void *timer, int (*fn)(void *arg), void *arg, int flush, int batch,
                        double *seconds)
{
    cuda_timer *t = timer;
    cudaStream_t s = impl_of(e)->stream;
    int st = SPK_OK;
    __atomic_store_n(t->release, 0, __ATOMIC_SEQ_CST);
    SPK_CUDA_TRY(e->err, spk_cuda_hold(s, t->release_dev, HOLD_TIMEOUT_NS));
    if (flush && t->flush) SPK_CUDA_CHECK(st, e->err, cudaMemsetAsync(t->flush, ++t->round & 0xff, t->flush_bytes, s));
    SPK_CUDA_CHECK(st, e->err, cudaEventRecord(t->a, s));
    for (int k = 0; k < batch; k++) SPK_CHECK(st, fn(arg));
    SPK_CUDA_CHECK(st, e->err, cudaEventRecord(t->b, s));
cleanup:
    __atomic_store_n(t->release, 1, __ATOMIC_SEQ_CST); /* also on an error: the hold must not outlive the call */
    if (st) return st;
    SPK_CUDA_TRY(e->err, cudaEventSynchronize(t->b));
    float ms = 0;
    SPK_CUDA_TRY(e->err, cudaEventElapsedTime(&ms, t->a, t->b));
    *seconds = ms * 1e-3 / batch;
    return SPK_OK;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

int spk_cuda_copy_bandwidth(spk_exec *e, double *gbs)
{
    const size_t bytes = (size_t)256 << 20;
    void *a = NULL, *b = NULL;
    cudaEvent_t ea = NULL, eb = NULL;
    cudaStream_t s = impl_of(e)->stream;
    float v[12];
    int st;
    SPK_CHECK(st, spk_cuda_alloc(e, bytes, "the copy bandwidth buffers", &a));
    SPK_CHECK(st, spk_cuda_alloc(e, bytes, "the copy bandwidth buffers", &b));
    SPK_CUDA_CHECK(st, e->err, cudaMemsetAsync(a, 1, bytes, s));
    SPK_CUDA_CHECK(st, e->err, cudaEventCreate(&ea));
    SPK_CUDA_CHECK(st, e->err, cudaEventCreate(&eb));
    for (int k = 0; k < 12; k++) {
        SPK_CUDA_CHECK(st, e->err, cudaEventRecord(ea, s));
        SPK_CUDA_CHECK(st, e->err, cudaMemcpyAsync(k % 2 ? a : b, k % 2 ? b : a, bytes, cudaMemcpyDeviceToDevice, s));
        SPK_CUDA_CHECK(st, e->err, cudaEventRecord(eb, s));
        SPK_CUDA_CHECK(st, e->err, cudaEventSynchronize(eb));
        SPK_CUDA_CHECK(st, e->err, cudaEventElapsedTime(&v[k], ea, eb));
    }
    qsort(v + 2, 10, sizeof(float), cmp_float);
    *gbs = 2.0 * (double)bytes / (0.5e-3 * (v[6] + v[7])) / 1e9;
cleanup:
    if (ea) cudaEventDestroy(ea);
    if (eb) cudaEventDestroy(eb);
    cudaFree(a);
    cudaFree(b);
    return st;
}

/* ---- floors (timing.h) --------------------------------------------------- */

static int floor_empty(void *arg)
{
    spk_exec *e = arg;
    return spk_cuda_check(e->err, spk_cuda_empty(impl_of(e)->stream), "spk_cuda_empty");
}

typedef struct floor_graph {
    spk_exec *e;
    cudaGraphExec_t g;
} floor_graph;

static int floor_graph_launch(void *arg)
{
    floor_graph *fg = arg;
    return spk_cuda_check(fg->e->err, cudaGraphLaunch(fg->g, impl_of(fg->e)->stream), "cudaGraphLaunch");
}

static int cmp_double_(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double_);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#define FLOOR_GRAPH_KERNELS 32
#define FLOOR_UPLOAD_BYTES ((size_t)256 << 20)

int spk_cuda_floors(spk_exec *e, spk_floors *f)
{
    spk_err *err = e->err;
    cudaStream_t s = impl_of(e)->stream;
    void *timer = NULL, *dbuf = NULL;
    double *dv = NULL, *pin = NULL, v[201];
    char *hpage = NULL, *hpin = NULL;
    cudaGraph_t graph = NULL;
    floor_graph fg = {e, NULL};
    int st = SPK_OK, registered = 0;
    memset(f, 0, sizeof *f);
    SPK_CHECK(st, spk_cuda_timer_create(e, 0, &timer));
    for (int k = 0; k < 16; k++) SPK_CHECK(st, floor_empty(e)); /* module loaded, stream warm */
    SPK_CUDA_CHECK(st, err, cudaStreamSynchronize(s));
    /* GPU time per kernel, back to back */
    for (int r = 0; r < 31; r++) SPK_CHECK(st, spk_cuda_timer_call(e, timer, floor_empty, e, 0, 256, &v[r]));
    f->launch_us = median_of(v, 31) * 1e6;
    /* host time to queue one */
    for (int r = 0; r < 31; r++) {
        double t0 = spk_time_now();
        for (int k = 0; k < 200; k++) SPK_CHECK(st, floor_empty(e));
        v[r] = (spk_time_now() - t0) / 200;
        SPK_CUDA_CHECK(st, err, cudaStreamSynchronize(s));
    }
    f->issue_us = median_of(v, 31) * 1e6;
    /* a kernel and a synchronize; and with an 8-byte readback */
    SPK_CHECK(st, spk_cuda_alloc(e, sizeof(double), "a floor scalar", (void **)&dv));
    SPK_CUDA_CHECK(st, err, cudaMemsetAsync(dv, 0, sizeof(double), s));
    SPK_CUDA_CHECK(st, err, cudaHostAlloc((void **)&pin, sizeof(double), cudaHostAllocDefault));
    for (int r = 0; r < 201; r++) {
        double t0 = spk_time_now();
        SPK_CHECK(st, floor_empty(e));
        SPK_CUDA_CHECK(st, err, cudaStreamSynchronize(s));
        v[r] = spk_time_now() - t0;
    }
    f->sync_us = median_of(v, 201) * 1e6;
    for (int r = 0; r < 201; r++) {
        double t0 = spk_time_now();
        SPK_CHECK(st, floor_empty(e));
        SPK_CUDA_CHECK(st, err, cudaMemcpyAsync(pin, dv, sizeof(double), cudaMemcpyDeviceToHost, s));
        SPK_CUDA_CHECK(st, err, cudaStreamSynchronize(s));
        v[r] = spk_time_now() - t0;
    }
    f->readback_us = median_of(v, 201) * 1e6;
    /* a graph of empty kernels, replayed back to back */
    SPK_CUDA_CHECK(st, err, cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int k = 0; k < FLOOR_GRAPH_KERNELS; k++) {
        cudaError_t ce = spk_cuda_empty(s);
        if (ce != cudaSuccess) {
            cudaStreamEndCapture(s, &graph);
            st = spk_cuda_check(err, ce, "spk_cuda_empty (graph capture)");
            goto cleanup;
        }
    }
    SPK_CUDA_CHECK(st, err, cudaStreamEndCapture(s, &graph));
    SPK_CUDA_CHECK(st, err, cudaGraphInstantiate(&fg.g, graph, 0));
    for (int k = 0; k < 3; k++) SPK_CHECK(st, floor_graph_launch(&fg));
    SPK_CUDA_CHECK(st, err, cudaStreamSynchronize(s));
    for (int r = 0; r < 31; r++) SPK_CHECK(st, spk_cuda_timer_call(e, timer, floor_graph_launch, &fg, 0, 8, &v[r]));
    f->graph_us = median_of(v, 31) * 1e6 / FLOOR_GRAPH_KERNELS;
    /* uploads of 256 MiB: pageable, pinned, pinned for the copy */
    SPK_CHECK(st, spk_cuda_alloc(e, FLOOR_UPLOAD_BYTES, "the upload floor buffer", &dbuf));
    if (!(hpage = malloc(FLOOR_UPLOAD_BYTES))) {
        st = spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (upload floor buffer)");
        goto cleanup;
    }
    memset(hpage, 1, FLOOR_UPLOAD_BYTES);
    SPK_CUDA_CHECK(st, err, cudaHostAlloc((void **)&hpin, FLOOR_UPLOAD_BYTES, cudaHostAllocDefault));
    memset(hpin, 1, FLOOR_UPLOAD_BYTES);
    for (int which = 0; which < 3; which++) {
        for (int r = 0; r < 5; r++) {
            double t0 = spk_time_now();
            if (which == 2) {
                SPK_CUDA_CHECK(st, err, cudaHostRegister(hpage, FLOOR_UPLOAD_BYTES, cudaHostRegisterDefault));
                registered = 1;
            }
            SPK_CUDA_CHECK(st, err, cudaMemcpyAsync(dbuf, which == 1 ? hpin : hpage, FLOOR_UPLOAD_BYTES,
                                                    cudaMemcpyHostToDevice, s));
            SPK_CUDA_CHECK(st, err, cudaStreamSynchronize(s));
            if (which == 2) {
                registered = 0;
                SPK_CUDA_CHECK(st, err, cudaHostUnregister(hpage));
            }
            v[r] = (double)FLOOR_UPLOAD_BYTES / (spk_time_now() - t0) / 1e9;
        }
        double gbs = median_of(v, 5);
        if (which == 0) f->upload_pageable_gbs = gbs;
        if (which == 1) f->upload_pinned_gbs = gbs;
        if (which == 2) f->upload_register_gbs = gbs;
    }
cleanup:
    if (registered) cudaHostUnregister(hpage);
    if (fg.g) cudaGraphExecDestroy(fg.g);
    if (graph) cudaGraphDestroy(graph);
    spk_cuda_timer_destroy(timer);
    cudaFree(dv);
    cudaFree(dbuf);
    if (pin) cudaFreeHost(pin);
    if (hpin) cudaFreeHost(hpin);
    free(hpage);
    return st;
}
