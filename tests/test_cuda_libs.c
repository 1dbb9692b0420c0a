/* test_cuda_libs.c -- cuBLAS and cuSPARSE are opened at run time (a CUDA
 * build, no GPU needed): a host solve maps neither library; then the table
 * loads, every entry point is found, and the libraries' own host functions
 * answer through it (their names for a status). */
#include <stdio.h>
#include <string.h>

#include "core/cuda_libs.h"
#include "device.h"

/* 1 where the process has a file whose name contains `what` mapped */
static int mapped(const char *what)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return -1;
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) found = strstr(line, what) != NULL;
    fclose(f);
    return found;
}

static void host_solve_maps_nothing(void)
{
    spk_context *ctx = NULL;
    CHECK_OK(spk_context_create(&ctx, SPK_DEVICE_HOST), "context");
    const int rowptr[4] = {0, 2, 5, 7}, colind[7] = {0, 1, 0, 1, 2, 1, 2};
    const double val[7] = {4, -1, -1, 4, -1, -1, 4}, b[3] = {1, 2, 3};
    double x[3] = {0, 0, 0};
    spk_matrix *A = NULL;
    spk_solver *s = NULL;
    spk_result r;
    CHECK_OK(spk_matrix_from_csr(ctx, 3, 3, rowptr, colind, val, &A), spk_last_error(ctx));
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, NULL, &s), spk_last_error(ctx));
    CHECK_OK(spk_solve(s, b, x, &r), spk_last_error(ctx));
    CHECK(mapped("libcublas") == 0 && mapped("libcusparse") == 0,
          "a host solve mapped cuBLAS (%d) or cuSPARSE (%d)", mapped("libcublas"), mapped("libcusparse"));
    spk_solver_destroy(s);
    spk_matrix_destroy(A);
    spk_context_destroy(ctx);
}

static void table_loads(void)
{
    spk_err e;
    spk_err_clear(&e);
    CHECK_OK(spk_cuda_libs_load(&e), e.msg);
    CHECK_OK(spk_cuda_libs_load(&e), e.msg); /* once: the same answer */
    const void *const *entry = (const void *const *)&spk_cuda_libs_table;
    const int n = (int)(sizeof spk_cuda_libs_table / sizeof(void *));
    int missing = 0;
    for (int i = 0; i < n; i++) missing += entry[i] == NULL;
    CHECK(n >= 50 && missing == 0, "%d of %d entry points missing", missing, n);
    CHECK(mapped("libcublas") == 1 && mapped("libcusparse") == 1, "loaded but not mapped");
    const char *sp = cusparseGetErrorName(CUSPARSE_STATUS_NOT_INITIALIZED);
    const char *bl = cublasGetStatusName(CUBLAS_STATUS_NOT_INITIALIZED);
    CHECK(sp && strstr(sp, "NOT_INITIALIZED"), "cusparseGetErrorName through the table: %s", sp ? sp : "NULL");
    CHECK(bl && strstr(bl, "NOT_INITIALIZED"), "cublasGetStatusName through the table: %s", bl ? bl : "NULL");
}

int main(void)
{
    host_solve_maps_nothing();
    table_loads();
    return check_exit();
}
