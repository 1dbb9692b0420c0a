/* format.c -- the spk_spmv_ops shared by every storage format (format.h):
 * convert on the host, then apply the host reference, or upload the arrays
 * once and launch the format's kernel. */
#include "format.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SPK_HAVE_CUDA
#include "core/exec_cuda.h"
#endif

typedef struct fmt_impl {
    const spk_format *f;
    spk_exec *e;
    void *host;     /* the format's struct with host arrays (host executor) */
    void *dev;      /* the same struct with device arrays (CUDA executor) */
    int nrows, ncols, nnz;
    spk_spmv_opts o; /* the options of create(), reused by update() */
    size_t bytes;   /* array bytes held on the executor */
    double setup;   /* seconds: create() */
    double upload;  /* seconds of it: the upload of the format's arrays (host conversion) */
    char detail[512];
} fmt_impl;

int spk_format_lanes(const spk_csr *A)
{
    double avg = A->nrows > 0 ? (double)A->nnz / A->nrows : 0;
    int t = 1;
    while (t < 32 && 2.0 * t <= avg) t *= 2;
    return t;
}

double spk_format_lane_sum(const int *col, const double *val, int begin, int end, const double *x, int lanes)
{
    double part[32];
    for (int l = 0; l < lanes; l++) {
        double s = 0;
        for (int q = begin + l; q < end; q += lanes) s += val[q] * x[col[q]];
        part[l] = s;
    }
    for (int off = lanes / 2; off > 0; off /= 2)
        for (int l = 0; l < off; l++) part[l] += part[l + off];
    return part[0];
}

void spk_format_free_arrays(const spk_format *f, void *fmt)
{
    spk_format_array list[SPK_FORMAT_MAX_ARRAYS];
    int n = f->arrays(fmt, list);
    for (int i = 0; i < n; i++) {
        free(*list[i].field);
        *list[i].field = NULL;
    }
}

/* the padding bound, refused with `why` */
static int padding_bound(const char *name, size_t stored, size_t nnz, int nrows, const char *why, spk_err *err)
{
    if (stored <= SPK_PAD_FLOOR || (double)stored <= SPK_PAD_LIMIT * (double)nnz) return SPK_OK;
    return spk_err_set(err, SPK_ERR_UNSUPPORTED,
                       "format '%s' refused: it would store %zu entries (padding included) for %zu "
                       "nonzeros in %d rows, more than %.0f times the nonzeros (%s); use csr, cusparse, hyb "
                       "or hmec",
                       name, stored, nnz, nrows, SPK_PAD_LIMIT, why ? why : "rows of very different lengths");
}

int spk_format_check_padding(const char *name, size_t stored, size_t nnz, int nrows, spk_err *err)
{
    return padding_bound(name, stored, nnz, nrows, NULL, err);
}

int spk_format_check_stored(const char *name, size_t stored, size_t nnz, int nrows, const char *why, spk_err *err)
{
    SPK_TRY(padding_bound(name, stored, nnz, nrows, why, err));
    if (stored > (size_t)INT_MAX)
        return spk_err_set(err, SPK_ERR_UNSUPPORTED,
                           "format '%s' refused: %zu stored entries exceed the 32-bit index limit", name, stored);
    return SPK_OK;
}

static void impl_free(fmt_impl *m)
{
    if (!m) return;
    if (m->host) {
        spk_format_free_arrays(m->f, m->host);
        free(m->host);
    }
#ifdef SPK_HAVE_CUDA
    if (m->dev) {
        spk_format_array list[SPK_FORMAT_MAX_ARRAYS];
        int n = m->f->arrays(m->dev, list);
        for (int i = 0; i < n; i++) cudaFree(*list[i].field);
        free(m->dev);
    }
#endif
    free(m);
}

/* Convert A into a fresh host struct. */
static int convert(const spk_format *f, const spk_csr *A, const spk_spmv_opts *o, void **out,
                   spk_err *err)
{
    spk_spmv_opts def;
    if (!o) {
        memset(&def, 0, sizeof def);
        o = &def;
    }
    void *h = calloc(1, f->host_size);
    if (!h) return spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (format '%s')", f->name);
    int st = f->convert(A, o, h, err);
    if (st) {
        spk_format_free_arrays(f, h);
        free(h);
        return st;
    }
    *out = h;
    return SPK_OK;
}

#ifdef SPK_HAVE_CUDA
/* Device copies of the host arrays of m->host; m->dev gets the struct. */
static int upload(fmt_impl *m)
{
    const spk_format *f = m->f;
    spk_format_array hl[SPK_FORMAT_MAX_ARRAYS], dl[SPK_FORMAT_MAX_ARRAYS];
    m->dev = malloc(f->host_size);
    if (!m->dev) return spk_err_set(m->e->err, SPK_ERR_NOMEM, "out of host memory (format '%s')", f->name);
    memcpy(m->dev, m->host, f->host_size);
    int n = f->arrays(m->host, hl);
    f->arrays(m->dev, dl);
    for (int i = 0; i < n; i++) *dl[i].field = NULL; /* nothing allocated yet */
    const double t0 = spk_time_now();
    for (int i = 0; i < n; i++) {
        char what[96];
        snprintf(what, sizeof what, "the '%s' matrix arrays", f->name);
        SPK_TRY(spk_cuda_alloc(m->e, hl[i].bytes, what, dl[i].field));
        SPK_TRY(spk_cuda_upload(m->e, *dl[i].field, *hl[i].field, hl[i].bytes, what));
        m->bytes += hl[i].bytes;
    }
    m->upload = spk_time_now() - t0;
    return SPK_OK;
}
#endif

/* A backend instance for A (no storage yet); NULL after an out-of-memory message. */
static fmt_impl *impl_new(const spk_format *f, spk_exec *e, const spk_csr *A, const spk_spmv_opts *o)
{
    fmt_impl *m = calloc(1, sizeof *m);
    if (!m) {
        spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (format '%s')", f->name);
        return NULL;
    }
    m->f = f;
    m->e = e;
    m->nrows = A->nrows;
    m->ncols = A->ncols;
    m->nnz = A->nnz;
    if (o) m->o = *o;
    return m;
}

/* The bytes of the arrays of fmt (host or device struct). */
static size_t array_bytes(const spk_format *f, void *fmt)
{
    spk_format_array list[SPK_FORMAT_MAX_ARRAYS];
    size_t bytes = 0;
    int n = f->arrays(fmt, list);
    for (int i = 0; i < n; i++) bytes += list[i].bytes;
    return bytes;
}

int spk_format_create(const spk_format *f, spk_exec *e, const spk_csr *A, const spk_spmv_opts *o,
                      void **impl)
{
    double t0 = spk_time_now();
    *impl = NULL;
    void *h = NULL;
    SPK_TRY(convert(f, A, o, &h, e->err));
    return spk_format_adopt(f, e, A, o, h, t0, impl);
}

int spk_format_adopt(const spk_format *f, spk_exec *e, const spk_csr *A, const spk_spmv_opts *o, void *host,
                     double t0, void **impl)
{
    *impl = NULL;
    int cuda = strcmp(e->ops->name, "cuda") == 0, st;
    fmt_impl *m = NULL;
    if (!cuda && !spk_exec_is_host(e)) {
        st = spk_err_set(e->err, SPK_ERR_NOT_FOUND, "format '%s' has no backend for the '%s' executor",
                         f->name, e->ops->name);
        goto fail;
    }
    if (!(m = impl_new(f, e, A, o))) {
        st = SPK_ERR_NOMEM;
        goto fail;
    }
    m->host = host;
    host = NULL;
    f->describe(m->host, m->detail, sizeof m->detail);
    if (cuda) {
#ifdef SPK_HAVE_CUDA
        if ((st = upload(m))) goto fail;
        spk_format_free_arrays(f, m->host); /* the device holds the matrix now */
        free(m->host);
        m->host = NULL;
#else
        st = spk_err_set(e->err, SPK_ERR_DEVICE, "format '%s': this build has no CUDA support", f->name);
        goto fail;
#endif
    } else {
        m->bytes = array_bytes(f, m->host);
    }
    m->setup = spk_time_now() - t0;
    *impl = m;
    return SPK_OK;
fail:
    if (host) {
        spk_format_free_arrays(f, host);
        free(host);
    }
    impl_free(m);
    return st;
}

int spk_format_create_dev(const spk_format *f, spk_exec *e, const spk_csr *A, const spk_csr *dA,
                          const spk_spmv_opts *o, void **impl)
{
#ifdef SPK_HAVE_CUDA
    if (!f->build_device || !dA || strcmp(e->ops->name, "cuda") != 0) return spk_format_create(f, e, A, o, impl);
    double t0 = spk_time_now();
    *impl = NULL;
    spk_spmv_opts def;
    if (!o) {
        memset(&def, 0, sizeof def);
        o = &def;
    }
    fmt_impl *m = impl_new(f, e, A, o);
    void *d = m ? calloc(1, f->host_size) : NULL;
    if (!d) {
        free(m);
        return m ? spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (format '%s')", f->name) : SPK_ERR_NOMEM;
    }
    m->dev = d; /* impl_free releases whatever device arrays the builder made */
    int st = f->build_device(e, A, dA, o, d);
    if (st) {
        impl_free(m);
        return st;
    }
    m->bytes = array_bytes(f, d);
    f->describe(d, m->detail, sizeof m->detail);
    m->setup = spk_time_now() - t0;
    *impl = m;
    return SPK_OK;
#else
    (void)dA;
    return spk_format_create(f, e, A, o, impl);
#endif
}

int spk_format_apply(void *impl, double alpha, const double *x, double beta, double *y)
{
    fmt_impl *m = impl;
    if (m->host) {
        m->f->ref_apply(m->host, alpha, x, beta, y);
        return SPK_OK;
    }
#ifdef SPK_HAVE_CUDA
    cudaStream_t s;
    spk_exec_cuda_handles(m->e, &s, NULL, NULL);
    cudaError_t ce = m->f->launch(m->dev, s, alpha, x, beta, y);
    if (ce != cudaSuccess) {
        char call[64];
        snprintf(call, sizeof call, "the '%s' SpMV kernel", m->f->name);
        return spk_cuda_check(m->e->err, ce, call);
    }
    return SPK_OK;
#else
    return SPK_ERR_INTERNAL;
#endif
}

int spk_format_update(void *impl, const spk_csr *A)
{
    fmt_impl *m = impl;
    spk_err *err = m->e->err;
    if (A->nrows != m->nrows || A->ncols != m->ncols || A->nnz != m->nnz)
        return spk_err_set(err, SPK_ERR_INVALID_MATRIX,
                           "format '%s': new values for a different pattern (%d x %d, %d entries; "
                           "was %d x %d, %d)",
                           m->f->name, A->nrows, A->ncols, A->nnz, m->nrows, m->ncols, m->nnz);
    void *h = NULL;
    SPK_TRY(convert(m->f, A, &m->o, &h, err));
    return spk_format_update_adopt(impl, h);
}

int spk_format_update_adopt(void *impl, void *h)
{
    fmt_impl *m = impl;
    spk_err *err = m->e->err;
    if (m->host) {
        spk_format_free_arrays(m->f, m->host);
        free(m->host);
        m->host = h;
        return SPK_OK;
    }
    int st = SPK_OK;
#ifdef SPK_HAVE_CUDA
    spk_format_array hl[SPK_FORMAT_MAX_ARRAYS], dl[SPK_FORMAT_MAX_ARRAYS];
    int n = m->f->arrays(h, hl);
    m->f->arrays(m->dev, dl);
    for (int i = 0; i < n && !st; i++) {
        if (hl[i].bytes != dl[i].bytes)
            st = spk_err_set(err, SPK_ERR_INTERNAL,
                             "format '%s': array %d changed size on update (%zu bytes, was %zu)",
                             m->f->name, i, hl[i].bytes, dl[i].bytes);
        else
            st = spk_cuda_upload(m->e, *dl[i].field, *hl[i].field, hl[i].bytes, "new matrix values");
    }
#endif
    (void)err;
    spk_format_free_arrays(m->f, h);
    free(h);
    return st;
}

void spk_format_destroy(void *impl)
{
    impl_free(impl);
}

void spk_format_stats(const void *impl, spk_spmv_stats *s)
{
    const fmt_impl *m = impl;
    memset(s, 0, sizeof *s);
    s->bytes = m->bytes;
    s->setup_seconds = m->setup;
    s->upload_seconds = m->upload;
    snprintf(s->detail, sizeof s->detail, "%s", m->detail);
}

int spk_format_describe(const spk_format *f, const spk_csr *A, const spk_spmv_opts *o, char *buf,
                        size_t len, spk_err *err)
{
    void *h = NULL;
    SPK_TRY(convert(f, A, o, &h, err));
    f->describe(h, buf, len);
    spk_format_free_arrays(f, h);
    free(h);
    return SPK_OK;
}
