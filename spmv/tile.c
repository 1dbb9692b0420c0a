/* tile.c -- TileSpMV (001): 16 x 16 tiles with a format per tile; here the
 * host reference product, the decoding and description, and the three
 * backends:
 *   tile-csr   every tile CSR (TileSpMV_CSR)
 *   tile       the adaptive choice per tile (TileSpMV_ADPT); above 1.8M
 *              nonzeros (the paper's switch point; tile_defer_nnz) the COO
 *              entries are deferred as in tile-dcoo
 *   tile-dcoo  the adaptive choice with deferred COO (TileSpMV_DeferredCOO)
 * Layout: tile.h; conversion and the per-tile selection: tile_build.c;
 * kernels: tile.cu. */
#include "tile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const spk_tile_kind_names[SPK_TILE_NKINDS] = {"CSR", "COO", "ELL", "HYB",
                                                          "Dns", "DnsRow", "DnsCol"};


/* The products of one tile into acc[16] (xs: the tile's 16 entries of x,
 * zero beyond the last column), in the kernel's format-specific order. */
static void tile_ref_one(const spk_fmt_tile *T, int t, const double *xs, double *acc)
{
    const double *v = T->val + T->val_off[t];
    const unsigned char *ix = T->idx + T->idx_off[t];
    const int k = T->val_off[t + 1] - T->val_off[t], w = T->width[t];
    switch (T->kind[t]) {
    case SPK_TILE_CSR:
        for (int r = 0; r < SPK_TILE; r++) {
            int e = r + 1 < SPK_TILE ? ix[r + 1] : k;
            for (int q = ix[r]; q < e; q++) {
                unsigned char b = ix[SPK_TILE + q / 2];
                acc[r] += v[q] * xs[(q & 1) ? b >> 4 : b & 15];
            }
        }
        break;
    case SPK_TILE_ELL:
    case SPK_TILE_HYB:
    case SPK_TILE_COO: {
        int ew = T->kind[t] == SPK_TILE_COO ? 0 : w;
        for (int j = 0; j < ew; j++)
            for (int r = 0; r < SPK_TILE; r++) {
                int q = j * SPK_TILE + r;
                unsigned char b = ix[q / 2];
                acc[r] += v[q] * xs[(q & 1) ? b >> 4 : b & 15];
            }
        for (int q = SPK_TILE * ew; q < k; q++) {
            unsigned char b = ix[SPK_TILE / 2 * ew + (q - SPK_TILE * ew)];
            acc[b >> 4] += v[q] * xs[b & 15];
        }
        break;
    }
    case SPK_TILE_DNS:
        for (int c = 0; c < SPK_TILE; c++)
            for (int r = 0; r < SPK_TILE; r++) acc[r] += v[c * SPK_TILE + r] * xs[c];
        break;
    case SPK_TILE_DNSROW:
        for (int i = 0; i < w; i++) {
            double s = 0;
            for (int c = 0; c < SPK_TILE; c++) s += v[i * SPK_TILE + c] * xs[c];
            acc[ix[i]] += s;
        }
        break;
    default:
        for (int i = 0; i < w; i++)
            for (int r = 0; r < SPK_TILE; r++) acc[r] += v[i * SPK_TILE + r] * xs[ix[i]];
        break;
    }
}

void spk_tile_ref(const spk_fmt_tile *T, double alpha, const double *x, double beta, double *y)
{
    for (int tr = 0; tr < T->tm; tr++) {
        double acc[SPK_TILE] = {0}, xs[SPK_TILE];
        for (int t = T->tile_ptr[tr]; t < T->tile_ptr[tr + 1]; t++) {
            int c0 = T->tile_col[t] * SPK_TILE;
            for (int c = 0; c < SPK_TILE; c++) xs[c] = c0 + c < T->ncols ? x[c0 + c] : 0.0;
            tile_ref_one(T, t, xs, acc);
        }
        for (int r = 0; r < SPK_TILE && tr * SPK_TILE + r < T->nrows; r++) {
            int i = tr * SPK_TILE + r;
            y[i] = beta == 0.0 ? alpha * acc[r] : alpha * acc[r] + beta * y[i];
        }
    }
}

int spk_tile_expand(const spk_fmt_tile *T, const spk_csr *D, spk_csr *B, spk_err *err)
{
    size_t cap = (size_t)T->val_off[T->ntiles] + (D ? (size_t)D->nnz : 0);
    int *ri = spk_malloc(cap, sizeof(int), "expanded rows", err);
    int *ci = spk_malloc(cap, sizeof(int), "expanded columns", err);
    double *vv = spk_malloc(cap, sizeof(double), "expanded values", err);
    int st = SPK_ERR_NOMEM;
    if (!ri || !ci || !vv) goto done;
    size_t e = 0;
#define EMIT(R, C, V, PADDED)                                                                      \
    do {                                                                                           \
        int r_ = tr * SPK_TILE + (R), c_ = c0 + (C);                                               \
        double v_ = (V);                                                                           \
        if ((PADDED) && (v_ == 0.0 || r_ >= T->nrows || c_ >= T->ncols)) break;                    \
        ri[e] = r_, ci[e] = c_, vv[e++] = v_;                                                      \
    } while (0)
    for (int tr = 0; tr < T->tm; tr++)
        for (int t = T->tile_ptr[tr]; t < T->tile_ptr[tr + 1]; t++) {
            const double *v = T->val + T->val_off[t];
            const unsigned char *ix = T->idx + T->idx_off[t];
            const int k = T->val_off[t + 1] - T->val_off[t], w = T->width[t], c0 = T->tile_col[t] * SPK_TILE;
            switch (T->kind[t]) {
            case SPK_TILE_CSR:
                for (int r = 0; r < SPK_TILE; r++) {
                    int end = r + 1 < SPK_TILE ? ix[r + 1] : k;
                    for (int q = ix[r]; q < end; q++) {
                        unsigned char b = ix[SPK_TILE + q / 2];
                        EMIT(r, (q & 1) ? b >> 4 : b & 15, v[q], 0);
                    }
                }
                break;
            case SPK_TILE_COO:
            case SPK_TILE_ELL:
            case SPK_TILE_HYB: {
                int ew = T->kind[t] == SPK_TILE_COO ? 0 : w;
                for (int q = 0; q < SPK_TILE * ew; q++) {
                    unsigned char b = ix[q / 2];
                    EMIT(q % SPK_TILE, (q & 1) ? b >> 4 : b & 15, v[q], 1);
                }
                for (int q = SPK_TILE * ew; q < k; q++) {
                    unsigned char b = ix[SPK_TILE / 2 * ew + (q - SPK_TILE * ew)];
                    EMIT(b >> 4, b & 15, v[q], 0);
                }
                break;
            }
            case SPK_TILE_DNS:
                for (int q = 0; q < SPK_TILE * SPK_TILE; q++) EMIT(q % SPK_TILE, q / SPK_TILE, v[q], 1);
                break;
            case SPK_TILE_DNSROW:
                for (int i = 0; i < w; i++)
                    for (int c = 0; c < SPK_TILE; c++) EMIT(ix[i], c, v[i * SPK_TILE + c], c0 + c >= T->ncols);
                break;
            default:
                for (int i = 0; i < w; i++)
                    for (int r = 0; r < SPK_TILE; r++)
                        EMIT(r, ix[i], v[i * SPK_TILE + r], tr * SPK_TILE + r >= T->nrows);
                break;
            }
        }
#undef EMIT
    if (D)
        for (int i = 0; i < D->nrows; i++)
            for (int q = D->rowptr[i]; q < D->rowptr[i + 1]; q++) ri[e] = i, ci[e] = D->colind[q], vv[e++] = D->val[q];
    st = spk_csr_from_coo(T->nrows, T->ncols, e, ri, ci, vv, B, err);
done:
    free(ri);
    free(ci);
    free(vv);
    return st;
}

void spk_tile_describe(const spk_tile_stats *s, int ntiles, const spk_tile_params *p, char *buf, size_t len)
{
    long long tiles = 0, nnz = 0;
    for (int k = 0; k < SPK_TILE_NKINDS; k++) tiles += s->tiles[k], nnz += s->nnz[k];
    int w = snprintf(buf, len, "%s%s, %lld tiles (%d stored), %.1f nonzeros/tile; tiles/nonzeros %%:",
                     p->adaptive ? "adaptive" : "all CSR", p->defer ? " + deferred COO" : "", tiles,
                     ntiles, tiles ? (double)nnz / tiles : 0.0);
    for (int k = 0; k < SPK_TILE_NKINDS && w >= 0 && (size_t)w < len; k++)
        if (s->tiles[k])
            w += snprintf(buf + w, len - (size_t)w, " %s %.1f/%.1f", spk_tile_kind_names[k],
                          100.0 * s->tiles[k] / (double)tiles, nnz ? 100.0 * s->nnz[k] / (double)nnz : 0.0);
    if (w >= 0 && (size_t)w < len && p->defer)
        w += snprintf(buf + w, len - (size_t)w, "; deferred to CSR %.1f%% of nonzeros",
                      nnz ? 100.0 * s->deferred / (double)nnz : 0.0);
    if (w >= 0 && (size_t)w < len)
        snprintf(buf + w, len - (size_t)w, "; %zu bytes, %.3fx CSR", s->bytes,
                 s->csr_bytes ? (double)s->bytes / (double)s->csr_bytes : 0.0);
}

/* ---- the backends ----------------------------------------------------------------- */

static int tile_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_tile *T = fmt;
    size_t nt = (size_t)T->ntiles, I = sizeof(int);
    l[0] = (spk_format_array){(void **)&T->tile_ptr, ((size_t)T->tm + 1) * I, 0};
    l[1] = (spk_format_array){(void **)&T->tile_col, nt * I, 0};
    l[2] = (spk_format_array){(void **)&T->val_off, (nt + 1) * I, 0};
    l[3] = (spk_format_array){(void **)&T->idx_off, (nt + 1) * I, 0};
    l[4] = (spk_format_array){(void **)&T->kind, nt, 0};
    l[5] = (spk_format_array){(void **)&T->width, nt, 0};
    /* sizes from the scalar fields: the arrays may live on the device */
    l[6] = (spk_format_array){(void **)&T->val, (size_t)T->nval * sizeof(double), 1};
    l[7] = (spk_format_array){(void **)&T->idx, (size_t)T->nidx, 0};
    l[8] = (spk_format_array){(void **)&T->unit, (size_t)T->nunits * SPK_TILE_UNIT * I, 0};
    l[9] = (spk_format_array){(void **)&T->split_rows, (size_t)T->nsplit * I, 0};
    return 10;
}

static void tile_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    spk_tile_ref(fmt, alpha, x, beta, y);
}

static void tile_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_tile *T = fmt;
    spk_tile_describe(&T->stats, T->ntiles, &T->params, buf, len);
}

/* The tiles as a generic format (the deferred CSR matrix is held apart). */
static const spk_format tile_format = {
    "tile", "16x16 tiles", sizeof(spk_fmt_tile), NULL, tile_arrays, tile_ref,
    SPK_FORMAT_LAUNCH(spk_tile_launch), tile_describe, NULL,
};

typedef struct tile_impl {
    spk_exec *e;
    const char *name;
    spk_tile_params p;
    void *tiles;                        /* generic format backend over the tiles */
    const struct spk_spmv_ops *dops;    /* the deferred CSR matrix: cusparse, or csr on the host */
    void *d;
    spk_csr D;                          /* the deferred matrix (the host backend reads it) */
    int nrows, ncols, nnz;
    spk_tile_stats stats;
    int ntiles;
    double setup;
} tile_impl;

static void tile_destroy(void *impl)
{
    tile_impl *t = impl;
    if (!t) return;
    if (t->tiles) spk_format_destroy(t->tiles);
    if (t->d) t->dops->destroy(t->d);
    spk_csr_free(&t->D);
    free(t);
}

/* Build tiles and deferred matrix of A into fresh host storage. */
static int tile_convert(const tile_impl *t, const spk_csr *A, spk_fmt_tile **T, spk_csr *D, spk_err *err)
{
    *T = calloc(1, sizeof **T);
    if (!*T) return spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (format '%s')", t->name);
    int st = spk_tile_build(A, &t->p, *T, D, err);
    if (st) {
        free(*T);
        *T = NULL;
    }
    return st;
}

static int tile_create(const char *name, spk_exec *e, const spk_csr *A, const spk_spmv_opts *o, void **impl)
{
    double t0 = spk_time_now();
    *impl = NULL;
    tile_impl *t = calloc(1, sizeof *t);
    if (!t) return spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (format '%s')", name);
    t->e = e;
    t->name = name;
    t->nrows = A->nrows;
    t->ncols = A->ncols;
    t->nnz = A->nnz;
    spk_fmt_tile *T = NULL;
    int st;
    SPK_CHECK(st, spk_tile_params_for(name, o, A, &t->p, e->err));
    SPK_CHECK(st, tile_convert(t, A, &T, &t->D, e->err));
    t->stats = T->stats;
    t->ntiles = T->ntiles;
    st = spk_format_adopt(&tile_format, e, A, o, T, t0, &t->tiles);
    T = NULL; /* owned (and freed on failure) by spk_format_adopt */
    if (st) goto cleanup;
    if (t->D.nnz > 0) {
        SPK_CHECK(st, spk_spmv_find(spk_exec_is_host(e) ? "csr" : "cusparse", e, &t->dops, e->err));
        spk_spmv_opts dopt; /* the deferred part in the tiles' precision */
        memset(&dopt, 0, sizeof dopt);
        dopt.precision = o ? o->precision : SPK_SPMV_DOUBLE;
        SPK_CHECK(st, t->dops->create(e, &t->D, &dopt, &t->d));
    }
    if (!spk_exec_is_host(e)) spk_csr_free(&t->D); /* on the device now */
    t->setup = spk_time_now() - t0;
    *impl = t;
cleanup:
    if (st) tile_destroy(t);
    return st;
}

static int tile_apply(void *impl, double alpha, const double *x, double beta, double *y)
{
    tile_impl *t = impl;
    SPK_TRY(spk_format_apply(t->tiles, alpha, x, beta, y));
    if (t->d) SPK_TRY(t->dops->apply(t->d, alpha, x, 1.0, y));
    return SPK_OK;
}

static int tile_apply_float(void *impl, float alpha, const float *x, float beta, float *y)
{
    tile_impl *t = impl;
    SPK_TRY(spk_format_apply_float(t->tiles, alpha, x, beta, y));
    if (t->d) SPK_TRY(t->dops->apply_float(t->d, alpha, x, 1.0f, y));
    return SPK_OK;
}

static int tile_update(void *impl, const spk_csr *A)
{
    tile_impl *t = impl;
    spk_err *err = t->e->err;
    if (A->nrows != t->nrows || A->ncols != t->ncols || A->nnz != t->nnz)
        return spk_err_set(err, SPK_ERR_INVALID_MATRIX,
                           "format '%s': new values for a different pattern (%d x %d, %d entries; "
                           "was %d x %d, %d)",
                           t->name, A->nrows, A->ncols, A->nnz, t->nrows, t->ncols, t->nnz);
    spk_fmt_tile *T = NULL;
    spk_csr D = {0};
    SPK_TRY(tile_convert(t, A, &T, &D, err));
    int st = spk_format_update_adopt(t->tiles, T);
    if (st) {
        spk_csr_free(&D);
        return st;
    }
    spk_csr_free(&t->D);
    t->D = D; /* the host backend reads it from here */
    if (t->d) st = t->dops->update(t->d, &t->D); /* csr and cusparse both update */
    if (!spk_exec_is_host(t->e)) spk_csr_free(&t->D);
    return st;
}

static void tile_stats(const void *impl, spk_spmv_stats *s)
{
    const tile_impl *t = impl;
    spk_format_stats(t->tiles, s);
    if (t->d) {
        spk_spmv_stats ds;
        t->dops->stats(t->d, &ds);
        s->bytes += ds.bytes;
    }
    s->setup_seconds = t->setup;
}

#define TILE_BACKEND(SYM, NAME, EXEC, SUMMARY)                                                      \
    static int SYM##_##EXEC##_create(spk_exec *e, const spk_csr *A, const spk_spmv_opts *o, void **impl) \
    {                                                                                               \
        return tile_create(NAME, e, A, o, impl);                                                    \
    }                                                                                               \
    const struct spk_spmv_ops spk_spmv_##SYM##_##EXEC = {NAME, #EXEC, SUMMARY, SYM##_##EXEC##_create, \
                                                           tile_apply, tile_update, tile_destroy,   \
                                                           tile_stats, NULL, tile_apply_float};
#define TILE_SUMMARY_CSR "TileSpMV: 16x16 tiles, every tile CSR (4-bit columns), a warp per tile"
#define TILE_SUMMARY "TileSpMV: a format per 16x16 tile; COO deferred to CSR above 1.8M nonzeros"
#define TILE_SUMMARY_DCOO "TileSpMV: a format per tile, COO entries in a separate CSR (cuSPARSE)"

TILE_BACKEND(tile_csr, "tile-csr", host, TILE_SUMMARY_CSR)
TILE_BACKEND(tile, "tile", host, TILE_SUMMARY)
TILE_BACKEND(tile_dcoo, "tile-dcoo", host, TILE_SUMMARY_DCOO)
#ifdef SPK_HAVE_CUDA
TILE_BACKEND(tile_csr, "tile-csr", cuda, TILE_SUMMARY_CSR)
TILE_BACKEND(tile, "tile", cuda, TILE_SUMMARY)
TILE_BACKEND(tile_dcoo, "tile-dcoo", cuda, TILE_SUMMARY_DCOO)
#endif
