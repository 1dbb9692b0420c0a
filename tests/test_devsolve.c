/* test_devsolve.c -- spk_solve_device: b and x in the GPU's memory.  On the
 * GPU (SPK_TEST_CUDA): the same iterations and solution as spk_solve on host
 * arrays (CG + IC(0), BiCGStab + ILU(0), no preconditioner), x0 taken from
 * device memory, managed memory, the scaling of an extreme right-hand side,
 * and the refusals: host memory, reorder, NaN in b (the index named).  On
 * the host: a host context, a complex matrix and missing vectors refused
 * with their messages. */
#include <math.h>

#include "device.h"
#include "io/gen.h"
#ifdef SPK_TEST_CUDA
#include <cuda_runtime_api.h>
#endif

static spk_matrix *generated(spk_context *ctx, const char *spec)
{
    spk_err e;
    spk_err_clear(&e);
    spk_csr A;
    CHECK_OK(spk_gen_spec(spec, &A, &e), e.msg);
    spk_matrix *M = NULL;
    CHECK_OK(spk_matrix_from_csr(ctx, A.nrows, A.ncols, A.rowptr, A.colind, A.val, &M), spk_last_error(ctx));
    spk_csr_free(&A);
    return M;
}

#ifdef SPK_TEST_CUDA
static void fill(double *v, int n, unsigned seed, double scale)
{
    unsigned s = seed * 2654435761u + 7;
    for (int i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        v[i] = scale * ((double)(s >> 8) / 16777216.0 - 0.5);
    }
}

static double *dev_copy(const double *h, int n, int managed)
{
    double *d = NULL;
    const cudaError_t c = managed ? cudaMallocManaged((void **)&d, (size_t)n * sizeof(double), cudaMemAttachGlobal)
                                  : cudaMalloc((void **)&d, (size_t)n * sizeof(double));
    CHECK(c == cudaSuccess, "cudaMalloc%s: %s", managed ? "Managed" : "", cudaGetErrorString(c));
    if (c != cudaSuccess) return NULL;
    CHECK(cudaMemcpy(d, h, (size_t)n * sizeof(double), cudaMemcpyHostToDevice) == cudaSuccess, "upload");
    return d;
}

/* One system solved by spk_solve on host arrays and by spk_solve_device on
 * device (or managed) memory: same status, iterations and x. */
static void same_as_host(spk_context *ctx, const char *spec, spk_solver_kind kind, spk_precond_kind pk,
                         double bscale, int managed)
{
    spk_matrix *A = generated(ctx, spec);
    if (!A) return;
    int n = 0;
    spk_matrix_csr(A, &n, NULL, NULL, NULL, NULL, NULL);
    double *b = malloc((size_t)n * sizeof(double)), *x = calloc((size_t)n, sizeof(double));
    double *xd = malloc((size_t)n * sizeof(double));
    fill(b, n, 3, bscale);
    spk_options o;
    spk_options_default(&o);
    o.rtol = 1e-9;
    spk_solver *s = NULL;
    CHECK_OK(spk_solver_create(ctx, A, kind, pk, &o, &s), spk_last_error(ctx));
    spk_result rh, rd;
    const int sh = spk_solve(s, b, x, &rh);
    double *db = dev_copy(b, n, managed), *dx = NULL;
    for (int i = 0; i < n; i++) xd[i] = 0;
    dx = dev_copy(xd, n, managed);
    const int sd = db && dx ? spk_solve_device(s, db, dx, &rd) : -1;
    CHECK(sd == sh && sh == SPK_OK, "%s (%s): device %s, host %s: %s", spec, managed ? "managed" : "device",
          spk_status_name(sd), spk_status_name(sh), spk_last_error(ctx));
    if (dx) CHECK(cudaMemcpy(xd, dx, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost) == cudaSuccess, "download");
    double diff = 0, big = 0;
    for (int i = 0; i < n; i++) diff = fmax(diff, fabs(xd[i] - x[i])), big = fmax(big, fabs(x[i]));
    CHECK(rd.iterations == rh.iterations && diff <= 1e-12 * big && rd.true_relres <= 1e-8,
          "%s: device %d iterations, host %d; x differs by %g of %g; true relres %g", spec, rd.iterations,
          rh.iterations, diff, big, rd.true_relres);
    /* x0 from device memory: the solution itself needs no iteration */
    if (sd == SPK_OK && dx) {
        CHECK_OK(spk_solve_device(s, db, dx, &rd), spk_last_error(ctx));
        CHECK(rd.iterations <= 1, "%s: from its own solution %d iterations", spec, rd.iterations);
    }
    cudaFree(db);
    cudaFree(dx);
    free(b), free(x), free(xd);
    spk_solver_destroy(s);
    spk_matrix_destroy(A);
}

static void refusals(spk_context *ctx)
{
    spk_matrix *A = generated(ctx, "poisson2d-5:20");
    if (!A) return;
    const int n = 400;
    double b[400], x[400];
    fill(b, n, 5, 1.0);
    for (int i = 0; i < n; i++) x[i] = 0;
    spk_solver *s = NULL;
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_CG, SPK_PRECOND_JACOBI, NULL, &s), spk_last_error(ctx));
    double *db = dev_copy(b, n, 0), *dx = dev_copy(x, n, 0);
    spk_result r;
    CHECK(spk_solve_device(s, b, dx, &r) == SPK_ERR_INVALID_ARG &&
              check_contains(spk_last_error(ctx), "b (") &&
              check_contains(spk_last_error(ctx), "is not memory of the context's GPU"),
          "host b: %s", spk_last_error(ctx));
    CHECK(spk_solve_device(s, db, x, &r) == SPK_ERR_INVALID_ARG && check_contains(spk_last_error(ctx), "x ("),
          "host x: %s", spk_last_error(ctx));
    CHECK(r.reason == SPK_SOLVE_ERROR, "a refused solve reads as %s", spk_reason_name(r.reason));
    b[77] = NAN;
    CHECK(cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice) == cudaSuccess, "upload");
    CHECK(spk_solve_device(s, db, dx, &r) == SPK_ERR_INVALID_ARG && check_contains(spk_last_error(ctx), "b[77]"),
          "NaN in b: %s", spk_last_error(ctx));
    spk_solver_destroy(s);
    spk_options o;
    spk_options_default(&o);
    CHECK_OK(spk_options_set(&o, "reorder", "multicolor", NULL, 0), "reorder option");
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_CG, SPK_PRECOND_IC0, &o, &s), spk_last_error(ctx));
    CHECK(spk_solve_device(s, db, dx, &r) == SPK_ERR_UNSUPPORTED && check_contains(spk_last_error(ctx), "reorder"),
          "reorder: %s", spk_last_error(ctx));
    spk_solver_destroy(s);
    cudaFree(db);
    cudaFree(dx);
    spk_matrix_destroy(A);
}
#endif

/* What every build refuses: no solver, no vectors, a complex matrix, and (on
 * the host) a context that is not on the GPU. */
static void host_refusals(spk_context *ctx)
{
    spk_result r;
    double v[4] = {1, 2, 3, 4};
    CHECK(spk_solve_device(NULL, v, v, &r) == SPK_ERR_INVALID_ARG && r.reason == SPK_SOLVE_ERROR, "NULL solver");
    spk_matrix *A = generated(ctx, "poisson2d-5:2");
    spk_solver *s = NULL;
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_CG, SPK_PRECOND_NONE, NULL, &s), spk_last_error(ctx));
    CHECK(spk_solve_device(s, NULL, v, &r) == SPK_ERR_INVALID_ARG &&
              check_contains(spk_last_error(ctx), "b and x are required"),
          "no b: %s", spk_last_error(ctx));
#ifndef SPK_TEST_CUDA
    const int st = spk_solve_device(s, v, v, &r);
    CHECK((st == SPK_ERR_INVALID_ARG && check_contains(spk_last_error(ctx), "the context runs on the host")) ||
              (st == SPK_ERR_UNSUPPORTED && check_contains(spk_last_error(ctx), "no CUDA support")),
          "host context: %s %s", spk_status_name(st), spk_last_error(ctx));
#endif
    spk_solver_destroy(s);
    spk_matrix_destroy(A);
    const int rp[3] = {0, 1, 2}, ci[2] = {0, 1};
    const double z[4] = {2, 1, 3, -1}; /* diag(2 + i, 3 - i) */
    spk_matrix *Z = NULL;
    CHECK_OK(spk_matrix_from_csr_complex(ctx, 2, 2, rp, ci, z, &Z), spk_last_error(ctx));
    CHECK_OK(spk_solver_create(ctx, Z, SPK_SOLVER_BICGSTAB, SPK_PRECOND_NONE, NULL, &s), spk_last_error(ctx));
    CHECK(spk_solve_device(s, v, v, &r) == SPK_ERR_INVALID_ARG && check_contains(spk_last_error(ctx), "complex"),
          "complex: %s", spk_last_error(ctx));
    spk_solver_destroy(s);
    spk_matrix_destroy(Z);
}

int main(void)
{
    spk_context *ctx = test_context();
    host_refusals(ctx);
#ifdef SPK_TEST_CUDA
    same_as_host(ctx, "poisson2d-5:60", SPK_SOLVER_CG, SPK_PRECOND_IC0, 1.0, 0);
    same_as_host(ctx, "convdiff2d-5:50", SPK_SOLVER_BICGSTAB, SPK_PRECOND_ILU0, 1.0, 0);
    same_as_host(ctx, "poisson3d-7:16", SPK_SOLVER_CG, SPK_PRECOND_NONE, 1.0, 1);
    same_as_host(ctx, "poisson2d-5:30", SPK_SOLVER_CG, SPK_PRECOND_JACOBI, 1e-310, 0); /* scaled */
    same_as_host(ctx, "poisson2d-5:30", SPK_SOLVER_CG, SPK_PRECOND_JACOBI, 1e300, 0);
    refusals(ctx);
#endif
    spk_context_destroy(ctx);
    return check_exit();
}
