/* format.c -- the spk_spmv_ops shared by every storage format (format.h):
 * convert on the host, then apply the host reference, or upload the arrays
 * once and launch the format's kernel.
 *
 * Single precision (spk_spmv_opts.precision): the conversion is the same;
 * then every array the format marks real is rewritten in float (the field
 * points to floats, half the bytes) before the upload, and apply_float
 * launches the format's float kernel.  On the host, the reference reads a
 * second struct whose real arrays hold those float values widened back to
 * double (so it runs over the values as stored), and y is rounded to float
 * once at the end. */
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
    void *wide;     /* single precision on the host: host with its real arrays in double
                       (the float values widened; the other arrays are host's) */
    int single;     /* values stored in float (spk_spmv_opts.precision) */
    double *xd, *yd; /* single precision on the host: x and y widened for the reference */
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

/* The arrays of fmt as an instance stores them: in single precision the
 * real arrays take half their double size. */
static int stored_arrays(const spk_format *f, int single, void *fmt, spk_format_array *list)
{
    int n = f->arrays(fmt, list);
    for (int i = 0; i < n; i++)
        if (single && list[i].real) list[i].bytes /= 2;
    return n;
}

/* The real arrays of the host struct h rewritten in float (new arrays). */
static int demote(const spk_format *f, void *h, spk_err *err)
{
    spk_format_array list[SPK_FORMAT_MAX_ARRAYS];
    int n = f->arrays(h, list);
    for (int i = 0; i < n; i++) {
        const size_t count = list[i].bytes / sizeof(double);
        if (!list[i].real || count == 0) continue;
        float *p = malloc(count * sizeof(float));
        if (!p) return spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (format '%s' in float)", f->name);
        double *d = *list[i].field;
        for (size_t k = 0; k < count; k++) p[k] = (float)d[k];
        free(d);
        *list[i].field = p;
    }
    return SPK_OK;
}

/* Release what widen() made. */
static void free_wide(const spk_format *f, void *w)
{
    if (!w) return;
    spk_format_array list[SPK_FORMAT_MAX_ARRAYS];
    int n = f->arrays(w, list);
    for (int i = 0; i < n; i++)
        if (list[i].real && list[i].bytes > 0) free(*list[i].field);
    free(w);
}

/* A copy of the float host struct h whose real arrays are double copies of
 * its float values (the other array fields point to h's arrays). */
static int widen(const spk_format *f, void *h, void **out, spk_err *err)
{
    spk_format_array hl[SPK_FORMAT_MAX_ARRAYS], wl[SPK_FORMAT_MAX_ARRAYS];
    void *w = malloc(f->host_size);
    if (!w) return spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (format '%s')", f->name);
    memcpy(w, h, f->host_size);
    int n = f->arrays(h, hl);
    f->arrays(w, wl);
    for (int i = 0; i < n; i++)
        if (wl[i].real && wl[i].bytes > 0) *wl[i].field = NULL;
    for (int i = 0; i < n; i++) {
        const size_t count = hl[i].bytes / sizeof(double);
        if (!hl[i].real || count == 0) continue;
        double *d = malloc(count * sizeof(double));
        if (!d) {
            free_wide(f, w);
            return spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (format '%s')", f->name);
        }
        const float *p = *hl[i].field;
        for (size_t k = 0; k < count; k++) d[k] = p[k];
        *wl[i].field = d;
    }
    *out = w;
    return SPK_OK;
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
    free_wide(m->f, m->wide);
    free(m->xd);
    free(m->yd);
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
int spk_format_upload_values(spk_exec *e, void *dev, const double *host, size_t count, int single,
                             const char *what)
{
    if (!single) return spk_cuda_upload(e, dev, host, count * sizeof(double), what);
    float *v = malloc((count + 1) * sizeof(float));
    if (!v) return spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (%s in float)", what);
    for (size_t k = 0; k < count; k++) v[k] = (float)host[k];
    int st = spk_cuda_upload(e, dev, v, count * sizeof(float), what);
    free(v);
    return st;
}

int spk_format_scale_y(spk_exec *e, int n, int single, double beta, void *y)
{
    if (n <= 0) return SPK_OK;
    if (single) {
        cudaStream_t s;
        spk_exec_cuda_handles(e, &s, NULL, NULL);
        return spk_cuda_check(e->err, spk_scale_float(s, n, (float)beta, y), "spk_scale_float");
    }
    return beta == 0.0 ? e->ops->fill(e, n, 0.0, y) : e->ops->scal(e, n, beta, y);
}

/* Device copies of the host arrays of m->host; m->dev gets the struct. */
static int upload(fmt_impl *m)
{
    const spk_format *f = m->f;
    spk_format_array hl[SPK_FORMAT_MAX_ARRAYS], dl[SPK_FORMAT_MAX_ARRAYS];
    m->dev = malloc(f->host_size);
    if (!m->dev) return spk_err_set(m->e->err, SPK_ERR_NOMEM, "out of host memory (format '%s')", f->name);
    memcpy(m->dev, m->host, f->host_size);
    int n = stored_arrays(f, m->single, m->host, hl);
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
    m->single = m->o.precision == SPK_SPMV_FLOAT;
    return m;
}

/* The bytes of the arrays of fmt (host or device struct) as m stores them. */
static size_t array_bytes(const fmt_impl *m, void *fmt)
{
    spk_format_array list[SPK_FORMAT_MAX_ARRAYS];
    size_t bytes = 0;
    int n = stored_arrays(m->f, m->single, fmt, list);
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
    if (m->single) {
        const size_t used = strlen(m->detail);
        snprintf(m->detail + used, sizeof m->detail - used, "; values in float");
        if ((st = demote(f, m->host, e->err))) goto fail;
        if (!cuda) {
            if ((st = widen(f, m->host, &m->wide, e->err))) goto fail;
            m->xd = malloc(((size_t)m->ncols + 1) * sizeof(double));
            m->yd = malloc(((size_t)m->nrows + 1) * sizeof(double));
            if (!m->xd || !m->yd) {
                st = spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (format '%s' in float)", f->name);
                goto fail;
            }
        }
    }
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
        m->bytes = array_bytes(m, m->host);
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
    if (!f->build_device || !dA || strcmp(e->ops->name, "cuda") != 0 || (o && o->precision == SPK_SPMV_FLOAT))
        return spk_format_create(f, e, A, o, impl); /* the device builders make double values */
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
    m->bytes = array_bytes(m, d);
    f->describe(d, m->detail, sizeof m->detail);
    m->setup = spk_time_now() - t0;
    *impl = m;
    return SPK_OK;
#else
    (void)dA;
    return spk_format_create(f, e, A, o, impl);
#endif
}

#ifdef SPK_HAVE_CUDA
static cudaStream_t stream_of(const fmt_impl *m)
{
    cudaStream_t s;
    spk_exec_cuda_handles(m->e, &s, NULL, NULL);
    return s;
}

/* The outcome of a launch of m's kernel (prec: "" or " (float)"). */
static int launch_status(const fmt_impl *m, cudaError_t ce, const char *prec)
{
    if (ce == cudaSuccess) return SPK_OK;
    char call[96];
    snprintf(call, sizeof call, "the '%s' SpMV kernel%s", m->f->name, prec);
    return spk_cuda_check(m->e->err, ce, call);
}
#endif

int spk_format_apply(void *impl, double alpha, const double *x, double beta, double *y)
{
    fmt_impl *m = impl;
    if (m->single) return spk_spmv_wrong_precision(m->e, m->f->name, 1);
    if (m->host) {
        m->f->ref_apply(m->host, alpha, x, beta, y);
        return SPK_OK;
    }
#ifdef SPK_HAVE_CUDA
    return launch_status(m, m->f->launch(m->dev, stream_of(m), alpha, x, beta, y), "");
#else
    return SPK_ERR_INTERNAL;
#endif
}

int spk_format_is_float(const void *impl)
{
    return ((const fmt_impl *)impl)->single;
}

/* The host reference in single precision: x (and y when read) widened into
 * the instance's buffers, the product over the widened float values, y
 * rounded once. */
static void host_apply_float(fmt_impl *m, float alpha, const float *x, float beta, float *y)
{
    for (int j = 0; j < m->ncols; j++) m->xd[j] = x[j];
    for (int i = 0; i < m->nrows; i++) m->yd[i] = beta == 0.0f ? 0.0 : (double)y[i];
    m->f->ref_apply(m->wide, alpha, m->xd, beta, m->yd);
    for (int i = 0; i < m->nrows; i++) y[i] = (float)m->yd[i];
}

int spk_format_apply_float(void *impl, float alpha, const float *x, float beta, float *y)
{
    fmt_impl *m = impl;
    if (!m->single) return spk_spmv_wrong_precision(m->e, m->f->name, 0);
    if (m->host) {
        host_apply_float(m, alpha, x, beta, y);
        return SPK_OK;
    }
#ifdef SPK_HAVE_CUDA
    return launch_status(m, m->f->launch_float(m->dev, stream_of(m), alpha, x, beta, y), " (float)");
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
    int st = m->single ? demote(m->f, h, err) : SPK_OK;
    if (m->host && !st) {
        void *w = NULL;
        if (m->single && (st = widen(m->f, h, &w, err))) goto done;
        free_wide(m->f, m->wide);
        m->wide = w;
        spk_format_free_arrays(m->f, m->host);
        free(m->host);
        m->host = h;
        return SPK_OK;
    }
#ifdef SPK_HAVE_CUDA
    spk_format_array hl[SPK_FORMAT_MAX_ARRAYS], dl[SPK_FORMAT_MAX_ARRAYS];
    int n = stored_arrays(m->f, m->single, h, hl);
    stored_arrays(m->f, m->single, m->dev, dl);
    for (int i = 0; i < n && !st; i++) {
        if (hl[i].bytes != dl[i].bytes)
            st = spk_err_set(err, SPK_ERR_INTERNAL,
                             "format '%s': array %d changed size on update (%zu bytes, was %zu)",
                             m->f->name, i, hl[i].bytes, dl[i].bytes);
        else
            st = spk_cuda_upload(m->e, *dl[i].field, *hl[i].field, hl[i].bytes, "new matrix values");
    }
#endif
done:
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
