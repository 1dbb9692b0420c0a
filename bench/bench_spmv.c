/* bench_spmv.c -- SpMV time of every GPU format next to cuSPARSE's, in one run
 * (a benchmark, not a test; `spk bench` will grow out of it).
 *
 *   spk_bench_spmv [--repeat N] [--csv FILE] [--formats a,b,c] (MATRIX.mtx[.gz] | --dir DIR | --gen SPEC)...
 *
 * --formats limits the run to those formats (cusparse, the baseline, always runs).
 *
 * Per matrix and format: convert and upload, 5 warm-up products, then N
 * (default 50) products each timed with its own pair of CUDA events; the
 * median is reported.  Effective bandwidth uses the CSR traffic model
 *     12*nnz + 4*(rows+1) + 8*cols + 8*rows bytes
 * for every format (the bytes the product must move at least), and is given
 * as a fraction of the device-to-device copy bandwidth measured in the same
 * run (1 GiB cudaMemcpy, median of 10, bytes read + written).  The ratio
 * column is cusparse time / format time (> 1: faster than cuSPARSE).  The
 * bytes each format moves are its stored arrays plus x and y (8*cols +
 * 8*rows); "own GB/s" is that traffic over the time.
 * Each product's result is checked against the host CSR product first. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "core/exec_cuda.h"
#include "io/gen.h"
#include "io/mmio.h"
#include "spmv/spmv.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median time in ms of `repeat` products (after 5 warm-ups); -1 on failure. */
static double time_spmv(const struct spk_spmv_ops *ops, void *impl, cudaStream_t s, const double *x,
                        double *y, int repeat)
{
    for (int w = 0; w < 5; w++)
        if (ops->apply(impl, 1.0, x, 0.0, y)) return -1;
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    double *t = malloc((size_t)repeat * sizeof(double));
    for (int r = 0; r < repeat; r++) {
        float ms = 0;
        cudaEventRecord(a, s);
        ops->apply(impl, 1.0, x, 0.0, y);
        cudaEventRecord(b, s);
        cudaEventSynchronize(b);
        cudaEventElapsedTime(&ms, a, b);
        t[r] = ms;
    }
    qsort(t, (size_t)repeat, sizeof(double), cmp_double);
    double med = t[repeat / 2];
    free(t);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return med;
}

/* Device-to-device copy bandwidth in GB/s (bytes read + written), median of 10. */
static double copy_bandwidth(void)
{
    size_t bytes = (size_t)1 << 30;
    void *p = NULL, *q = NULL;
    if (cudaMalloc(&p, bytes) != cudaSuccess || cudaMalloc(&q, bytes) != cudaSuccess) return NAN;
    cudaMemset(p, 1, bytes);
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    double t[10];
    for (int r = 0; r < 11; r++) {
        float ms = 0;
        cudaEventRecord(a, 0);
        cudaMemcpy(q, p, bytes, cudaMemcpyDeviceToDevice);
        cudaEventRecord(b, 0);
        cudaEventSynchronize(b);
        cudaEventElapsedTime(&ms, a, b);
        if (r > 0) t[r - 1] = ms;
    }
    qsort(t, 10, sizeof(double), cmp_double);
    cudaFree(p);
    cudaFree(q);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return 2.0 * (double)bytes / (t[5] * 1e-3) / 1e9;
}

/* The formats asked for with --formats (NULL: all). */
static const char *only = NULL;
static int wanted(const char *name)
{
    if (!only || strcmp(name, "cusparse") == 0) return 1;
    size_t n = strlen(name);
    for (const char *p = only; (p = strstr(p, name)) != NULL; p++)
        if ((p == only || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return 1;
    return 0;
}

static void bench_matrix(const char *name, const spk_csr *A, spk_exec *ex, int repeat, double copy_gbs,
                         FILE *csv)
{
    cudaStream_t s;
    spk_exec_cuda_handles(ex, &s, NULL, NULL);
    int m = A->nrows, n = A->ncols;
    double *hx = malloc(((size_t)n + 1) * sizeof(double)), *hy = malloc(((size_t)m + 1) * sizeof(double));
    double *ref = malloc(((size_t)m + 1) * sizeof(double));
    for (int j = 0; j < n; j++) hx[j] = 1.0 + (j % 7) * 0.125;
    spk_csr_spmv(A, 1.0, hx, 0.0, ref);
    double *x = NULL, *y = NULL;
    spk_exec_alloc_vec(ex, n, &x);
    spk_exec_alloc_vec(ex, m, &y);
    ex->ops->upload(ex, x, hx, (size_t)n * sizeof(double));
    double bytes = 12.0 * A->nnz + 4.0 * (m + 1) + 8.0 * n + 8.0 * m, base = NAN;
    printf("%s: %d x %d, %d nonzeros\n", name, m, n, A->nnz);
    for (const struct spk_spmv_ops *const *p = spk_spmv_list(); *p; p++) {
        if (strcmp((*p)->exec, "cuda") != 0 || !wanted((*p)->name)) continue;
        void *impl = NULL;
        spk_spmv_opts o;
        memset(&o, 0, sizeof o);
        if ((*p)->create(ex, A, &o, &impl)) {
            printf("  %-11s skipped: %s\n", (*p)->name, ex->err->msg);
            if (csv)
                fprintf(csv, "%s\t%d\t%d\t%s\tNA\tNA\tNA\tNA\tskipped\tNA\tNA\n", name, m, A->nnz, (*p)->name);
            continue;
        }
        /* check the result before timing it */
        ex->ops->fill(ex, m, NAN, y);
        (*p)->apply(impl, 1.0, x, 0.0, y);
        ex->ops->download(ex, hy, y, (size_t)m * sizeof(double));
        double err = 0, scale = 0;
        for (int i = 0; i < m; i++) {
            err = fmax(err, isfinite(hy[i]) ? fabs(hy[i] - ref[i]) : INFINITY);
            scale = fmax(scale, fabs(ref[i]));
        }
        double rel = scale > 0 ? err / scale : err;
        double ms = time_spmv(*p, impl, s, x, y, repeat);
        if (strcmp((*p)->name, "cusparse") == 0) base = ms;
        double gbs = bytes / (ms * 1e-3) / 1e9;
        spk_spmv_stats st;
        (*p)->stats(impl, &st);
        double moved = (double)st.bytes + 8.0 * n + 8.0 * m, own = moved / (ms * 1e-3) / 1e9;
        printf("  %-11s %9.4f ms  %8.1f GB/s  %.3f of copy  x%.2f vs cusparse  moves %8.2f MB (%6.1f GB/s)  err %.1e  %s\n",
               (*p)->name, ms, gbs, gbs / copy_gbs, base / ms, moved / 1e6, own, rel, st.detail);
        if (csv)
            fprintf(csv, "%s\t%d\t%d\t%s\t%.5f\t%.1f\t%.4f\t%.3f\t%.1e\t%.0f\t%.1f\n", name, m, A->nnz, (*p)->name, ms,
                    gbs, gbs / copy_gbs, base / ms, rel, moved, own);
        (*p)->destroy(impl);
    }
    ex->ops->free(ex, x);
    ex->ops->free(ex, y);
    free(hx);
    free(hy);
    free(ref);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    spk_err err;
    spk_err_clear(&err);
    spk_exec *ex = NULL;
    if (spk_exec_cuda_create(&err, &ex)) {
        fprintf(stderr, "spk_bench_spmv: %s\n", err.msg);
        return 1;
    }
    int repeat = 50;
    FILE *csv = NULL;
    double copy_gbs = copy_bandwidth();
    printf("device-to-device copy: %.0f GB/s (read + write)\n", copy_gbs);
    for (int i = 1; i < argc; i++) {
        spk_csr A = {0};
        if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
            repeat = atoi(argv[++i]);
            if (repeat < 1) repeat = 1;
        } else if (strcmp(argv[i], "--formats") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            csv = fopen(argv[++i], "w");
            if (csv) fprintf(csv, "matrix\trows\tnnz\tformat\tms\tGBs\tfrac_of_copy\tcusparse_over_format\trel_err\tbytes_moved\town_GBs\n");
        } else if (strcmp(argv[i], "--gen") == 0 && i + 1 < argc) {
            if (spk_gen_spec(argv[++i], &A, &err)) {
                fprintf(stderr, "%s\n", err.msg);
                continue;
            }
            bench_matrix(argv[i], &A, ex, repeat, copy_gbs, csv);
        } else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
            const char *dir = argv[++i];
            DIR *d = opendir(dir);
            if (!d) {
                fprintf(stderr, "cannot open %s\n", dir);
                continue;
            }
            char *names[1024];
            int count = 0;
            for (struct dirent *e; (e = readdir(d)) && count < 1024;)
                if (strstr(e->d_name, ".mtx")) names[count++] = strdup(e->d_name);
            closedir(d);
            qsort(names, (size_t)count, sizeof(char *), by_name);
            for (int k = 0; k < count; k++) {
                char path[2048];
                snprintf(path, sizeof path, "%s/%s", dir, names[k]);
                if (!spk_mm_read_csr(path, &A, NULL, &err)) bench_matrix(names[k], &A, ex, repeat, copy_gbs, csv);
                else fprintf(stderr, "%s\n", err.msg);
                spk_csr_free(&A);
                free(names[k]);
            }
        } else if (spk_mm_read_csr(argv[i], &A, NULL, &err)) {
            fprintf(stderr, "%s\n", err.msg);
        } else {
            bench_matrix(argv[i], &A, ex, repeat, copy_gbs, csv);
        }
        spk_csr_free(&A);
    }
    if (csv) fclose(csv);
    spk_exec_destroy(ex);
    return 0;
}
