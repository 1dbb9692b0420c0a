/* format.h -- what every storage format shares, so that a format is only its
 * conversion, its host reference product and its kernel.
 *
 * A format describes itself with an spk_format table:
 *   convert    host CSR -> the format's host arrays (in a struct of host_size
 *              bytes whose array fields are listed by arrays());
 *   ref_apply  y = alpha*A*x + beta*y over those host arrays (the reference
 *              that CI tests layout and indexing with);
 *   launch     the same on the GPU, given a copy of the struct whose array
 *              fields point to device copies (built with CUDA only);
 *   describe   one line for `spk info --format` and stats().
 * spk_format_ops() then provides the spk_spmv_ops entries for the host and
 * for CUDA: create (convert, check the padded-size bound, upload), apply,
 * update (convert again, upload the values), destroy and stats.
 *
 * Padded formats (ELL and its relatives): a conversion whose stored entries
 * (padding included) would exceed
 * SPK_PAD_LIMIT x nnz (and SPK_PAD_FLOOR entries) is refused with
 * SPK_ERR_UNSUPPORTED before anything large is allocated: one dense row must
 * not turn ELL into an n x n array. */
#ifndef SPK_SPMV_FORMAT_H
#define SPK_SPMV_FORMAT_H

#include <stddef.h>

#include "spmv.h"

#define SPK_PAD_LIMIT 3.0             /* stored entries / nnz */
#define SPK_PAD_FLOOR ((size_t)1 << 20) /* below this many stored entries, any padding is fine */

/* One array field of a format struct: where its pointer lives and its size.
 * real: the array holds matrix values (or sums of them), declared double and
 * sized in doubles; an instance in single precision stores it in float (half
 * the bytes, the field pointing to floats) and the kernel's float launch
 * reads it so.  Index and structure arrays are the same in both precisions. */
typedef struct spk_format_array {
    void **field;
    size_t bytes;
    int real;
} spk_format_array;

#define SPK_FORMAT_MAX_ARRAYS 12

/* Builds fmt (zeroed, host_size bytes) with device arrays from dA, the CSR
 * arrays of A in device memory; scalars come from A on the host. */
typedef int (*spk_format_build_fn)(spk_exec *e, const spk_csr *A, const spk_csr *dA, const spk_spmv_opts *o,
                                   void *fmt);

#ifdef SPK_HAVE_CUDA
#include <cuda_runtime_api.h>
typedef cudaError_t (*spk_format_launch_fn)(const void *dev_fmt, cudaStream_t s, double alpha,
                                            const double *x, double beta, double *y);
typedef cudaError_t (*spk_format_launch_float_fn)(const void *dev_fmt, cudaStream_t s, float alpha,
                                                  const float *x, float beta, float *y);
/* A format's header declares its two launches (double, and FN_float over the
 * float values; spmv/real.cuh defines both from one template). */
#define SPK_FORMAT_LAUNCH_DECL(FN)                                                                     \
    cudaError_t FN(const void *dev_fmt, cudaStream_t s, double alpha, const double *x, double beta,    \
                   double *y);                                                                         \
    cudaError_t FN##_float(const void *dev_fmt, cudaStream_t s, float alpha, const float *x, float beta, \
                           float *y);
#ifdef __cplusplus
extern "C" {
#endif
/* y = beta*y on n floats of the device (beta 0: y = 0, not read; real.cu). */
cudaError_t spk_scale_float(cudaStream_t s, int n, float beta, float *y);
#ifdef __cplusplus
}
#endif
#else
typedef int (*spk_format_launch_fn)(void);
typedef int (*spk_format_launch_float_fn)(void);
#endif

typedef struct spk_format {
    const char *name;
    const char *summary;
    size_t host_size;
    /* Fill fmt (zeroed, host_size bytes) from canonical A.  May refuse with
     * SPK_ERR_UNSUPPORTED (padded-size bound) before allocating.  NULL for a
     * format whose backend converts itself and uses spk_format_adopt. */
    int (*convert)(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err);
    /* The array fields of fmt (at most SPK_FORMAT_MAX_ARRAYS); returns the count.
     * Sizes come from scalar fields only: it is also called on the struct
     * whose pointers are device addresses. */
    int (*arrays)(void *fmt, spk_format_array *list);
    /* y = alpha*A*x + beta*y on the host arrays (beta == 0: y not read). */
    void (*ref_apply)(const void *fmt, double alpha, const double *x, double beta, double *y);
    /* The same on the device (NULL in builds without CUDA), and in float over
     * the float struct (single precision); SPK_FORMAT_LAUNCH(fn) names both. */
    spk_format_launch_fn launch;
    spk_format_launch_float_fn launch_float;
    /* One line: widths, parts, ... (scalars only: also called on device structs) */
    void (*describe)(const void *fmt, char *buf, size_t len);
    /* Optional, CUDA builds: the arrays built on the device (spmv/devbuild.cu);
     * the result must equal convert's arrays uploaded. */
    spk_format_build_fn build_device;
} spk_format;

/* Threads per row for the cooperative kernels: the largest power of two
 * <= the average row length, between 1 and 32. */
int spk_format_lanes(const spk_csr *A);
/* sum_q val[q] * x[col[q]] over [begin, end) as `lanes` threads form it:
 * lane l adds entries l, l+lanes, ...; the lanes meet pairwise (offsets
 * lanes/2, ..., 1) as warp shuffles do.  The host reference of every
 * kernel with a shuffle reduction. */
double spk_format_lane_sum(const int *col, const double *val, int begin, int end, const double *x, int lanes);

#ifdef SPK_HAVE_CUDA
/* The cuSPARSE backends' pieces in both precisions: count values to dev,
 * rounded to float when single; and y = beta*y on n entries (beta 0: y = 0,
 * not read) of a double or (single) float vector, for a matrix without
 * entries. */
int spk_format_upload_values(spk_exec *e, void *dev, const double *host, size_t count, int single,
                             const char *what);
int spk_format_scale_y(spk_exec *e, int n, int single, double beta, void *y);
#endif

/* Release the host arrays of fmt (every listed array is freed). */
void spk_format_free_arrays(const spk_format *f, void *fmt);
/* SPK_OK when storing `stored` entries for nnz nonzeros is within the bound,
 * else SPK_ERR_UNSUPPORTED with a message naming the format and the sizes. */
int spk_format_check_padding(const char *name, size_t stored, size_t nnz, int nrows, spk_err *err);
/* The same bound, the refusal saying why the format pads (NULL: rows of very
 * different lengths), and also refused beyond 32-bit indices into the
 * stored entries (the formats whose kernels index them with an int). */
int spk_format_check_stored(const char *name, size_t stored, size_t nnz, int nrows, const char *why, spk_err *err);
/* why, for the blocked formats */
#define SPK_FORMAT_BLOCKS_PAD "entries scattered over many b x b blocks; a smaller --bcsr-block pads less"


/* Generic spk_spmv_ops pieces, parameterised by the format (used through
 * SPK_FORMAT_BACKENDS below). */
int spk_format_create(const spk_format *f, spk_exec *e, const spk_csr *A, const spk_spmv_opts *o,
                      void **impl);
/* The same for a host struct already converted (malloc'd; owned from here on,
 * freed on failure too); t0 is when the conversion started (setup time). */
int spk_format_adopt(const spk_format *f, spk_exec *e, const spk_csr *A, const spk_spmv_opts *o, void *host,
                     double t0, void **impl);
/* create() from A's CSR arrays already on the device (dA): f->build_device
 * when the format has one, else the host conversion. */
int spk_format_create_dev(const spk_format *f, spk_exec *e, const spk_csr *A, const spk_csr *dA,
                          const spk_spmv_opts *o, void **impl);
/* update() with a host struct already converted from the new values (owned). */
int spk_format_update_adopt(void *impl, void *host);
int spk_format_apply(void *impl, double alpha, const double *x, double beta, double *y);
int spk_format_apply_float(void *impl, float alpha, const float *x, float beta, float *y);
/* 1 when the instance stores its values in float */
int spk_format_is_float(const void *impl);
int spk_format_update(void *impl, const spk_csr *A);
void spk_format_destroy(void *impl);
void spk_format_stats(const void *impl, spk_spmv_stats *s);
/* Convert A and describe the result in one line (for `spk info --format`). */
int spk_format_describe(const spk_format *f, const spk_csr *A, const spk_spmv_opts *o, char *buf,
                        size_t len, spk_err *err);

/* Define spk_spmv_SYM_host and (built with CUDA) spk_spmv_SYM_cuda for the
 * format table FMT; NAME and SUMMARY are string literals. */
#ifdef SPK_HAVE_CUDA
#define SPK_FORMAT_CUDA_ENTRY(SYM, NAME, SUMMARY, FMT)                                         \
    static int SYM##_create_dev(spk_exec *e, const spk_csr *A, const spk_csr *dA,             \
                                const spk_spmv_opts *o, void **impl)                          \
    {                                                                                          \
        return spk_format_create_dev(&(FMT), e, A, dA, o, impl);                               \
    }                                                                                          \
    const struct spk_spmv_ops spk_spmv_##SYM##_cuda = {                                        \
        NAME, "cuda", SUMMARY, SYM##_create, spk_format_apply, spk_format_update,              \
        spk_format_destroy, spk_format_stats, SYM##_create_dev, spk_format_apply_float};
#define SPK_FORMAT_LAUNCH(fn) fn, fn##_float
#define SPK_FORMAT_BUILD(fn) fn
#else
#define SPK_FORMAT_CUDA_ENTRY(SYM, NAME, SUMMARY, FMT)
#define SPK_FORMAT_LAUNCH(fn) NULL, NULL
#define SPK_FORMAT_BUILD(fn) NULL
#endif
#define SPK_FORMAT_BACKENDS(SYM, NAME, SUMMARY, FMT)                                           \
    static int SYM##_create(spk_exec *e, const spk_csr *A, const spk_spmv_opts *o, void **impl) \
    {                                                                                          \
        return spk_format_create(&(FMT), e, A, o, impl);                                       \
    }                                                                                          \
    const struct spk_spmv_ops spk_spmv_##SYM##_host = {NAME, "host", SUMMARY, SYM##_create,   \
                                                        spk_format_apply, spk_format_update,  \
                                                        spk_format_destroy, spk_format_stats, \
                                                        NULL, spk_format_apply_float};         \
    SPK_FORMAT_CUDA_ENTRY(SYM, NAME, SUMMARY, FMT)

#endif
