/* context.c -- the public API's names and contexts (include/spk.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/api_impl.h"
#include "core/parallel.h"
#ifdef SPK_HAVE_CUDA
#include "core/exec_cuda.h"
#endif

/* ---- names ---------------------------------------------------------------- */

const char *spk_version(void)
{
    return SPK_STR(SPK_VERSION_MAJOR) "." SPK_STR(SPK_VERSION_MINOR) "." SPK_STR(SPK_VERSION_PATCH);
}

int spk_abi_info(size_t *sizeof_options, size_t *sizeof_result, size_t *sizeof_option_desc, int *abi_version)
{
    if (sizeof_options) *sizeof_options = sizeof(spk_options);
    if (sizeof_result) *sizeof_result = sizeof(spk_result);
    if (sizeof_option_desc) *sizeof_option_desc = sizeof(spk_option_desc);
    if (abi_version) *abi_version = SPK_ABI_VERSION;
    return SPK_OK;
}

const char *spk_status_name(int status)
{
    static const char *const names[] = {
        "SPK_OK",          "SPK_ERR_INVALID_ARG",    "SPK_ERR_IO",         "SPK_ERR_PARSE",
        "SPK_ERR_UNSUPPORTED", "SPK_ERR_NOMEM",      "SPK_ERR_INVALID_MATRIX", "SPK_ERR_ZERO_PIVOT",
        "SPK_ERR_NOT_FOUND", "SPK_ERR_DEVICE",       "SPK_ERR_NOT_CONVERGED", "SPK_ERR_BREAKDOWN",
        "SPK_ERR_INDEFINITE", "SPK_ERR_INTERNAL",
    };
    if (status < 0 || status >= (int)(sizeof names / sizeof names[0])) return "unknown status";
    return names[status];
}

const char *spk_reason_name(spk_reason r)
{
    switch (r) {
    case SPK_CONVERGED_RTOL: return "converged (rtol)";
    case SPK_CONVERGED_ATOL: return "converged (atol)";
    case SPK_CONVERGED_ZERO_RHS: return "converged (b = 0, x = 0)";
    case SPK_DIVERGED_MAXIT: return "not converged (maximum iterations)";
    case SPK_BREAKDOWN_RHO: return "breakdown (rho = 0)";
    case SPK_BREAKDOWN_R0V: return "breakdown (r0'v = 0)";
    case SPK_BREAKDOWN_OMEGA: return "breakdown (omega = 0)";
    case SPK_BREAKDOWN_SINGULAR: return "breakdown (GMRES: singular least-squares problem)";
    case SPK_BREAKDOWN_INDEFINITE: return "breakdown (p'Ap <= 0: matrix not positive definite)";
    case SPK_BREAKDOWN_PRECOND: return "breakdown (r'z <= 0: preconditioner not positive definite)";
    case SPK_DIVERGED_NAN: return "diverged (NaN or Inf)";
    case SPK_DIVERGED_DTOL: return "diverged (residual above dtol)";
    case SPK_INVALID_INPUT: return "invalid input (NaN or Inf in b or x0)";
    case SPK_SOLVE_ERROR: return "error (see the status and the last error)";
    case SPK_PRECISION_FLOOR: return "stopped at the precision floor (no further reduction in double precision)";
    }
    return "unknown reason";
}

const char *spk_solver_kind_name(spk_solver_kind k)
{
    switch (k) {
    case SPK_SOLVER_AUTO: return "auto";
    case SPK_SOLVER_CG: return "cg";
    case SPK_SOLVER_BICGSTAB: return "bicgstab";
    case SPK_SOLVER_GMRES: return "gmres";
    case SPK_SOLVER_COCG: return "cocg";
    }
    return "unknown";
}

const char *spk_precond_kind_name(spk_precond_kind k)
{
    switch (k) {
    case SPK_PRECOND_AUTO: return "auto";
    case SPK_PRECOND_NONE: return "none";
    case SPK_PRECOND_JACOBI: return "jacobi";
    case SPK_PRECOND_ILU0: return "ilu0";
    case SPK_PRECOND_IC0: return "ic0";
    case SPK_PRECOND_FACTOR: return "factor";
    case SPK_PRECOND_USER: return "user";
    }
    return "unknown";
}

void spk_free(void *p)
{
    free(p);
}

/* ---- context -------------------------------------------------------------- */

int spk_context_create(spk_context **ctx, spk_device device)
{
    if (!ctx) return SPK_ERR_INVALID_ARG;
    *ctx = NULL;
    spk_context *c = calloc(1, sizeof *c);
    if (!c) return SPK_ERR_NOMEM;
    int st;
    switch (device) {
    case SPK_DEVICE_AUTO:
#ifdef SPK_HAVE_CUDA
        st = spk_exec_cuda_create(&c->err, &c->exec);
        if (!st) {
            snprintf(c->note, sizeof c->note, "a CUDA device was found");
            break;
        }
        snprintf(c->note, sizeof c->note, "%s", c->err.msg);
        spk_err_clear(&c->err);
#else
        snprintf(c->note, sizeof c->note, "this build of spk has no CUDA support");
#endif
        st = spk_exec_host_create(&c->err, &c->exec);
        break;
    case SPK_DEVICE_HOST: st = spk_exec_host_create(&c->err, &c->exec); break;
    case SPK_DEVICE_CUDA:
#ifdef SPK_HAVE_CUDA
        st = spk_exec_cuda_create(&c->err, &c->exec);
#else
        st = SPK_ERR_DEVICE;
#endif
        break;
    default: st = SPK_ERR_INVALID_ARG; break;
    }
    if (st) {
        free(c);
        return st;
    }
    *ctx = c;
    return SPK_OK;
}

const char *spk_context_note(const spk_context *ctx)
{
    return ctx ? ctx->note : "";
}

int spk_have_cuda(void)
{
#ifdef SPK_HAVE_CUDA
    return 1;
#else
    return 0;
#endif
}

static void context_free(spk_context *ctx)
{
    spk_exec_destroy(ctx->exec);
    free(ctx);
}

int spk_context_set_memory_limit(spk_context *ctx, size_t bytes)
{
    if (!ctx) return SPK_ERR_INVALID_ARG;
    ctx->mem_limit = bytes;
    return SPK_OK;
}

int spk_context_set_threads(spk_context *ctx, int n)
{
    if (!ctx || n < 0) return ctx ? spk_err_set(&ctx->err, SPK_ERR_INVALID_ARG, "spk_context_set_threads: "
                                                 "the count must be >= 0 (0: the default), not %d", n)
                                  : SPK_ERR_INVALID_ARG;
    ctx->threads = n;
    return SPK_OK;
}

int spk_context_threads(const spk_context *ctx)
{
    const int before = spk_threads_enter(ctx), now = spk_host_threads();
    spk_threads_leave(ctx, before);
    return now;
}

int spk_threads_enter(const spk_context *ctx)
{
    const int before = spk_host_threads();
    if (ctx && ctx->threads) spk_host_set_threads(ctx->threads);
    return before;
}

void spk_threads_leave(const spk_context *ctx, int before)
{
    if (ctx && ctx->threads) spk_host_set_threads(before);
}

void spk_context_hold(spk_context *ctx)
{
    ctx->ref.refs++;
}

void spk_context_drop(spk_context *ctx)
{
    if (spk_ref_drop(&ctx->ref)) context_free(ctx);
}

void spk_context_destroy(spk_context *ctx)
{
    if (ctx && spk_ref_close(&ctx->ref)) context_free(ctx);
}

const char *spk_context_device(const spk_context *ctx)
{
    return ctx && ctx->exec ? ctx->exec->ops->name : "none";
}

const char *spk_last_error(const spk_context *ctx)
{
    return ctx ? ctx->err.msg : "no context";
}

/* ---- matrices ------------------------------------------------------------- */

/* First non-finite value of A, as a message; SPK_OK when all are finite. */
