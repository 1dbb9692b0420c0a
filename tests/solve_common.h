/* solve_common.h -- solve a Matrix Market file the way `spk solve` does by
 * default (b = A*1, or A*r when A*1 = 0; x0 = 0; auto method), for the tests over real matrices. */
#ifndef SPK_TESTS_SOLVE_COMMON_H
#define SPK_TESTS_SOLVE_COMMON_H

#include "check.h"
#include "io/rhs.h"
#include "spk.h"

typedef struct file_solve {
    int read_status, setup_status, solve_status;
    int n, nnz;
    spk_result r;
    char method[64];
    char factorization[128]; /* spk_solver_factorization: "by K sweeps, ...", "exact", ... */
    int random_rhs; /* A*1 = 0: b = A*r instead */
    double err_inf; /* ||x - x*||_inf */
    char msg[1024];
} file_solve;

/* Read path and solve with the defaults (optionally a given solver,
 * preconditioner, SpMV format and factorization; format NULL: "auto";
 * factorization < 0: the default). */
static inline void solve_file_with(spk_context *ctx, const char *path, spk_solver_kind sk,
                                   spk_precond_kind pk, const char *format, int factorization, file_solve *out)
{
    memset(out, 0, sizeof *out);
    out->err_inf = NAN;
    spk_matrix *A = NULL;
    spk_solver *s = NULL;
    double *b = NULL, *x = NULL, *ones = NULL;
    out->read_status = spk_matrix_read(ctx, path, &A);
    if (out->read_status) goto done;
    spk_matrix_csr(A, &out->n, NULL, &out->nnz, NULL, NULL, NULL);
    spk_options o;
    spk_options_default(&o);
    /* the preconditioned solve the host's is compared with, not the CG run
     * alongside it on the GPU (spk_options.race; test_api covers that) */
    o.race = 0;
    /* ... and the preconditioner AUTO takes from the start: the probe's
     * choice follows timings, which would make the iterations compared
     * between devices and formats differ (test_probe covers the probe) */
    o.probe = 0;
    if (format) o.format = format;
    if (factorization >= 0) o.factorization = factorization;
    out->setup_status = spk_solver_create(ctx, A, sk, pk, &o, &s);
    if (out->setup_status) goto done;
    snprintf(out->method, sizeof out->method, "%s+%s", spk_solver_method(s), spk_solver_precond(s));
    b = malloc(((size_t)out->n + 1) * sizeof(double));
    x = calloc((size_t)out->n + 1, sizeof(double));
    ones = malloc(((size_t)out->n + 1) * sizeof(double));
    const int *rp, *ci;
    const double *va;
    spk_matrix_csr(A, NULL, NULL, NULL, &rp, &ci, &va);
    out->random_rhs = spk_rhs_known_solution_arrays(out->n, out->n, rp, ci, va, ones, b);
    out->solve_status = spk_solve(s, b, x, &out->r);
    snprintf(out->method, sizeof out->method, "%s+%s", spk_solver_method(s), spk_solver_precond(s));
    snprintf(out->factorization, sizeof out->factorization, "%s", spk_solver_factorization(s));
    out->err_inf = 0;
    for (int i = 0; i < out->n; i++) out->err_inf = fmax(out->err_inf, fabs(x[i] - ones[i]));
done:
    snprintf(out->msg, sizeof out->msg, "%s", spk_last_error(ctx));
    free(b);
    free(x);
    free(ones);
    spk_solver_destroy(s);
    spk_matrix_destroy(A);
}

static inline void solve_file(spk_context *ctx, const char *path, spk_solver_kind sk,
                              spk_precond_kind pk, file_solve *out)
{
    solve_file_with(ctx, path, sk, pk, NULL, -1, out);
}

/* The host's solve of what dev solved on the GPU, for comparing iteration
 * counts: the same preconditioner (AUTO takes none on the GPU for a
 * Laplacian-shaped matrix, IC(0)/ILU(0) on the host) and the same
 * factorization (the GPU may keep the factor of the fixed-point sweeps,
 * whose quality at factor-tol is not the exact factor's: the host then runs
 * the same sweeps). */
static inline void solve_file_as(spk_context *host, const char *path, const file_solve *dev, file_solve *out)
{
    const spk_precond_kind pk = strstr(dev->method, "+none") ? SPK_PRECOND_NONE : SPK_PRECOND_AUTO;
    const int fact = strncmp(dev->factorization, "by ", 3) == 0 ? SPK_FACTORIZATION_ITERATIVE : -1;
    solve_file_with(host, path, SPK_SOLVER_AUTO, pk, NULL, fact, out);
}

static inline void solve_file_format(spk_context *ctx, const char *path, const char *format,
                                     file_solve *out)
{
    solve_file_with(ctx, path, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, format, -1, out);
}

#endif
