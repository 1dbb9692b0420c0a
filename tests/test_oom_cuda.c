/* test_oom_cuda.c -- running out of device memory: a clear error with the
 * bytes needed and free, and everything allocated before the failure freed
 * again (device memory back to where it was).  Most of the GPU is reserved
 * first so that creating the SpMV backend, the preconditioner and the solver
 * for poisson3d-7:100 (1M rows, 6.9M nonzeros) must fail part way.
 * Exits 77 when no GPU can be used. */
#include <cuda_runtime_api.h>

#include "device.h"
#include "io/gen.h"
#include "precond/precond.h"
#include "spmv/spmv.h"

static size_t free_now(void)
{
    size_t f = 0, t = 0;
    cudaDeviceSynchronize();
    cudaMemGetInfo(&f, &t);
    return f;
}

int main(void)
{
    spk_err err;
    spk_err_clear(&err);
    spk_exec *ex = test_exec(&err);
    spk_context *ctx = test_context(); /* handles and their workspaces come first */
    spk_csr A = {0};
    CHECK_OK(spk_gen_poisson3d7(100, &A, &err), err.msg);
    /* all but 48 MiB of the free device memory goes into one block */
    size_t f0 = free_now(), keep = (size_t)48 << 20;
    void *block = NULL;
    CHECK(cudaMalloc(&block, f0 - keep) == cudaSuccess, "reserving %zu bytes", f0 - keep);
    size_t before = free_now();
    printf("reserved %zu bytes, %zu free\n", f0 - keep, before);

    const struct spk_spmv_ops *sops;
    CHECK_OK(spk_spmv_find("cusparse", ex, &sops, &err), err.msg);
    void *impl = NULL;
    int st = sops->create(ex, &A, NULL, &impl);
    CHECK(st == SPK_ERR_NOMEM && impl == NULL, "cusparse backend: status %d", st);
    CHECK(check_contains(err.msg, "out of device memory") && check_contains(err.msg, "free"),
          "message: %s", err.msg);
    printf("cusparse: %s\n", err.msg);
    CHECK(free_now() == before, "cusparse backend leaked %zd bytes", (ssize_t)(before - free_now()));

    const char *pcs[] = {"ilu0", "ic0", "jacobi"};
    for (int i = 0; i < 3; i++) {
        const struct spk_precond_ops *pops;
        CHECK_OK(spk_precond_find(pcs[i], ex, &pops, &err), err.msg);
        impl = NULL;
        st = pops->create(ex, &A, NULL, &impl);
        if (st == SPK_OK) { /* Jacobi needs only 8 MB: it fits */
            pops->destroy(impl);
        } else {
            CHECK(st == SPK_ERR_NOMEM, "%s: status %d (%s)", pcs[i], st, err.msg);
            CHECK(check_contains(err.msg, "free"), "%s: message %s", pcs[i], err.msg);
            printf("%s: %s\n", pcs[i], err.msg);
        }
        CHECK(free_now() == before, "%s leaked %zd bytes", pcs[i], (ssize_t)(before - free_now()));
    }

    /* the public API: solver creation fails cleanly and the context stays usable */
    size_t before_ctx = free_now();
    spk_matrix *M = NULL;
    CHECK_OK(spk_matrix_from_csr(ctx, A.nrows, A.ncols, A.rowptr, A.colind, A.val, &M), spk_last_error(ctx));
    spk_solver *s = NULL;
    st = spk_solver_create(ctx, M, SPK_SOLVER_CG, SPK_PRECOND_IC0, NULL, &s);
    CHECK(st == SPK_ERR_NOMEM && s == NULL, "solver: status %d", st);
    CHECK(check_contains(spk_last_error(ctx), "free"), "solver message: %s", spk_last_error(ctx));
    printf("solver: %s\n", spk_last_error(ctx));
    CHECK(free_now() == before_ctx, "solver creation leaked %zd bytes", (ssize_t)(before_ctx - free_now()));
    cudaFree(block);
    /* with the memory back, the same solver works */
    st = spk_solver_create(ctx, M, SPK_SOLVER_CG, SPK_PRECOND_IC0, NULL, &s);
    CHECK(st == SPK_OK, "solver after release: %s", spk_last_error(ctx));
    spk_solver_destroy(s);
    spk_matrix_destroy(M);
    spk_context_destroy(ctx);
    spk_csr_free(&A);
    spk_exec_destroy(ex);
    return check_exit();
}
