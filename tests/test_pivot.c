/* test_pivot.c -- static pivoting: the maximum product matching against
 * every permutation on small random matrices, a structurally singular one,
 * a large one with an empty diagonal; then the solver with pivot auto, on
 * and off: west0479 (no diagonal at all) solved by ILU(0) with BiCGStab and
 * GMRES, x in the caller's order and ||b - A x|| meeting rtol on A itself, a
 * start x0, new values on the same pattern, and the refusals (CG, IC(0),
 * reorder, the caller's preconditioner). */
#include <stdint.h>

#include "core/csr.h"
#include "device.h"

static uint64_t g_seed = 88172645463325252ull;
static double rnd(void)
{
    g_seed ^= g_seed << 13;
    g_seed ^= g_seed >> 7;
    g_seed ^= g_seed << 17;
    return (double)(g_seed >> 11) / 9007199254740992.0;
}

/* a random n x n pattern with density p (and at least one entry per row and column) */
static void random_csr(int n, double p, int zero_diag, spk_csr *A)
{
    double *dense = calloc((size_t)n * n, sizeof(double));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (rnd() < p && !(zero_diag && i == j)) dense[(size_t)i * n + j] = (rnd() - 0.5) * pow(10, 4 * rnd() - 2);
    for (int i = 0; i < n; i++) { /* a cyclic shift keeps it structurally nonsingular */
        const int j = (i + 1) % n;
        if (dense[(size_t)i * n + j] == 0) dense[(size_t)i * n + j] = 0.5 + rnd();
    }
    int nnz = 0;
    for (size_t k = 0; k < (size_t)n * n; k++) nnz += dense[k] != 0;
    spk_err e;
    spk_err_clear(&e);
    CHECK_OK(spk_csr_alloc(A, n, n, nnz, &e), e.msg);
    int k = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            if (dense[(size_t)i * n + j] != 0) A->colind[k] = j, A->val[k++] = dense[(size_t)i * n + j];
        A->rowptr[i + 1] = k;
    }
    free(dense);
}

static double entry(const spk_csr *A, int i, int j)
{
    for (int q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
        if (A->colind[q] == j) return A->val[q];
    return 0;
}

/* the largest sum of log |a_{p(j), j}| over all permutations p (n <= 8) */
static double best_by_enumeration(const spk_csr *A, int *p, int k, char *used, double acc, double best)
{
    const int n = A->nrows;
    if (k == n) return fmax(best, acc);
    for (int i = 0; i < n; i++) {
        if (used[i]) continue;
        const double a = fabs(entry(A, i, k));
        if (a == 0) continue;
        used[i] = 1;
        p[k] = i;
        best = best_by_enumeration(A, p, k + 1, used, acc + log(a), best);
        used[i] = 0;
    }
    return best;
}

static int is_permutation(const int *p, int n)
{
    char *seen = calloc((size_t)n, 1);
    int ok = 1;
    for (int i = 0; i < n && ok; i++) {
        ok = p[i] >= 0 && p[i] < n && !seen[p[i]];
        if (ok) seen[p[i]] = 1;
    }
    free(seen);
    return ok;
}

static void matching_is_optimal(void)
{
    spk_err e;
    spk_err_clear(&e);
    int worst = 0;
    for (int t = 0; t < 300; t++) {
        const int n = 2 + t % 7;
        spk_csr A = {0};
        random_csr(n, 0.25 + 0.5 * rnd(), t % 2, &A);
        int rowof[8], p[8], matched = -1;
        char used[8] = {0};
        CHECK_OK(spk_csr_max_product_matching(&A, rowof, &matched, &e), e.msg);
        double ours = 0;
        for (int j = 0; j < n; j++) ours += log(fabs(entry(&A, rowof[j], j)));
        const double best = best_by_enumeration(&A, p, 0, used, 0, -INFINITY);
        const int ok = matched == n && is_permutation(rowof, n) && fabs(ours - best) <= 1e-9 * (1 + fabs(best));
        if (!ok && worst++ < 3)
            CHECK(0, "case %d (n %d): matched %d, log-product %.12g, the best %.12g", t, n, matched, ours, best);
        spk_csr_free(&A);
    }
    CHECK(worst == 0, "%d of 300 small matchings not optimal", worst);
    /* structurally singular: two rows with entries in column 0 only */
    int rp[] = {0, 1, 2, 4}, ci[] = {0, 0, 1, 2};
    double v[] = {1, 2, 3, 4};
    spk_csr S = {3, 3, 4, rp, ci, v};
    int rowof[3], matched;
    CHECK_OK(spk_csr_max_product_matching(&S, rowof, &matched, &e), e.msg);
    CHECK(matched == 2 && is_permutation(rowof, 3) && rowof[0] == 1, "singular: matched %d, rows %d %d %d", matched,
          rowof[0], rowof[1], rowof[2]);
    /* a large one with an empty diagonal: every matched entry stored and nonzero */
    spk_csr L = {0};
    random_csr(400, 0.01, 1, &L);
    int *r = malloc(400 * sizeof(int));
    CHECK_OK(spk_csr_max_product_matching(&L, r, &matched, &e), e.msg);
    int zeros = 0;
    for (int j = 0; j < 400; j++) zeros += entry(&L, r[j], j) == 0;
    CHECK(matched == 400 && is_permutation(r, 400) && zeros == 0, "400 rows: matched %d, %d zero entries", matched,
          zeros);
    spk_csr P = {0};
    int *map = malloc((size_t)L.nnz * sizeof(int));
    CHECK_OK(spk_csr_permute_rows(&L, r, &P, map, &e), e.msg);
    int bad = 0;
    for (int i = 0; i < 400; i++) {
        bad += entry(&P, i, i) == 0;
        for (int q = P.rowptr[i]; q < P.rowptr[i + 1]; q++) bad += P.val[q] != L.val[map[q]];
    }
    CHECK(bad == 0, "P A: %d zero diagonal entries or moved values", bad);
    spk_csr_free(&P);
    spk_csr_free(&L);
    free(map);
    free(r);
}

static double true_relres(spk_matrix *A, int n, const double *b, const double *x)
{
    double *ax = malloc((size_t)n * sizeof(double)), r = 0, bn = 0;
    CHECK_OK(spk_matrix_multiply(A, x, ax), "multiply");
    for (int i = 0; i < n; i++) {
        r += (b[i] - ax[i]) * (b[i] - ax[i]);
        bn += b[i] * b[i];
    }
    free(ax);
    return sqrt(r / bn);
}

static void solves(void)
{
    spk_context *ctx = test_context();
    spk_matrix *A = NULL;
    char path[1024];
    snprintf(path, sizeof path, "%s/west0479.mtx.gz", SPK_TEST_DATA);
    CHECK_OK(spk_matrix_read(ctx, path, &A), spk_last_error(ctx));
    if (!A) return;
    int n;
    spk_matrix_csr(A, &n, NULL, NULL, NULL, NULL, NULL);
    double *b = malloc((size_t)n * sizeof(double)), *x = malloc((size_t)n * sizeof(double)),
           *ones = malloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; i++) ones[i] = 1;
    CHECK_OK(spk_matrix_multiply(A, ones, b), "multiply");
    const spk_solver_kind kinds[] = {SPK_SOLVER_BICGSTAB, SPK_SOLVER_GMRES, SPK_SOLVER_AUTO};
    for (int k = 0; k < 3; k++) {
        spk_options o;
        spk_options_default(&o);
        o.gmres_restart = 100;
        spk_solver *s = NULL;
        spk_result r;
        o.pivot = SPK_PIVOT_OFF;
        CHECK(spk_solver_create(ctx, A, kinds[k], SPK_PRECOND_FACTOR, &o, &s) == SPK_ERR_ZERO_PIVOT && !s,
              "west0479 without pivoting: %s", spk_last_error(ctx));
        o.pivot = SPK_PIVOT_AUTO;
        CHECK_OK(spk_solver_create(ctx, A, kinds[k], SPK_PRECOND_FACTOR, &o, &s), spk_last_error(ctx));
        if (!s) continue;
        CHECK(spk_solver_pivoted(s) > 400, "west0479: %d rows moved", spk_solver_pivoted(s));
        memset(x, 0, (size_t)n * sizeof(double));
        const int st = spk_solve(s, b, x, &r);
        const double tr = true_relres(A, n, b, x);
        CHECK(st == SPK_OK && tr <= 2 * o.rtol && fabs(tr - r.true_relres) <= 1e-3 * tr + 1e-15,
              "west0479 %s + %s, pivoted: status %d after %d iterations, ||b - A x|| / ||b|| %.2e (reported %.2e)",
              spk_solver_method(s), spk_solver_precond(s), st, r.iterations, tr, r.true_relres);
        /* from a start: x0 = x / 2 converges to the same x, in the caller's order */
        for (int i = 0; i < n; i++) x[i] *= 0.5;
        CHECK_OK(spk_solve(s, b, x, &r), spk_last_error(ctx));
        CHECK(true_relres(A, n, b, x) <= 2 * o.rtol, "west0479 from x0: %.2e", true_relres(A, n, b, x));
        spk_solver_destroy(s);
    }
    /* Jacobi, whose diagonal is all zeros here, on the permuted rows too */
    spk_options o;
    spk_options_default(&o);
    spk_solver *s = NULL;
    spk_result r;
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_BICGSTAB, SPK_PRECOND_JACOBI, &o, &s), spk_last_error(ctx));
    memset(x, 0, (size_t)n * sizeof(double));
    const int stj = s ? spk_solve(s, b, x, &r) : -1;
    CHECK(stj == SPK_OK && spk_solver_pivoted(s) > 400 && strcmp(spk_solver_precond(s), "jacobi") == 0 &&
              true_relres(A, n, b, x) <= 2 * o.rtol,
          "west0479 + Jacobi: status %d, %d rows moved, %s", stj, s ? spk_solver_pivoted(s) : -2, spk_last_error(ctx));
    spk_solver_destroy(s);
    /* new values on the same pattern: A doubled, x halves */
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_BICGSTAB, SPK_PRECOND_ILU0, &o, &s), spk_last_error(ctx));
    int nnz;
    const double *val;
    spk_matrix_csr(A, NULL, NULL, &nnz, NULL, NULL, &val);
    double *v2 = malloc((size_t)nnz * sizeof(double));
    for (int q = 0; q < nnz; q++) v2[q] = 2 * val[q];
    CHECK_OK(spk_matrix_update_values(A, v2), spk_last_error(ctx));
    memset(x, 0, (size_t)n * sizeof(double));
    CHECK_OK(spk_solve(s, b, x, &r), spk_last_error(ctx));
    double e = 0;
    for (int i = 0; i < n; i++) e = fmax(e, fabs(x[i] - 0.5) / 0.5);
    CHECK(true_relres(A, n, b, x) <= 2 * o.rtol, "doubled values: residual %.2e (error against 1/2: %.2e)",
          true_relres(A, n, b, x), e);
    spk_solver_destroy(s);
    /* the refusals of pivot on */
    o.pivot = SPK_PIVOT_ON;
    CHECK(spk_solver_create(ctx, A, SPK_SOLVER_CG, SPK_PRECOND_JACOBI, &o, &s) == SPK_ERR_INVALID_ARG &&
              check_contains(spk_last_error(ctx), "CG"),
          "pivot on with CG: %s", spk_last_error(ctx));
    CHECK(spk_solver_create(ctx, A, SPK_SOLVER_BICGSTAB, SPK_PRECOND_IC0, &o, &s) == SPK_ERR_INVALID_ARG &&
              check_contains(spk_last_error(ctx), "IC(0)"),
          "pivot on with IC(0): %s", spk_last_error(ctx));
    o.reorder = SPK_REORDER_MULTICOLOR;
    CHECK(spk_solver_create(ctx, A, SPK_SOLVER_BICGSTAB, SPK_PRECOND_ILU0, &o, &s) == SPK_ERR_INVALID_ARG &&
              check_contains(spk_last_error(ctx), "reorder"),
          "pivot on with reorder: %s", spk_last_error(ctx));
    spk_matrix_destroy(A);
    /* auto leaves a matrix with a good diagonal as it is */
    snprintf(path, sizeof path, "%s/sherman3.mtx.gz", SPK_TEST_DATA);
    CHECK_OK(spk_matrix_read(ctx, path, &A), spk_last_error(ctx));
    spk_options_default(&o);
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, &o, &s), spk_last_error(ctx));
    CHECK(spk_solver_pivoted(s) == -1, "sherman3 pivoted (%d rows)", spk_solver_pivoted(s));
    spk_solver_destroy(s);
    o.pivot = SPK_PIVOT_ON; /* asked: the matching may keep most rows where they are */
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_BICGSTAB, SPK_PRECOND_ILU0, &o, &s), spk_last_error(ctx));
    spk_matrix_csr(A, &n, NULL, NULL, NULL, NULL, NULL);
    double *b3 = malloc((size_t)n * sizeof(double)), *x3 = calloc((size_t)n, sizeof(double));
    for (int i = 0; i < n; i++) b3[i] = 1 + i % 3;
    CHECK(spk_solver_pivoted(s) >= 0 && spk_solve(s, b3, x3, &r) == SPK_OK && true_relres(A, n, b3, x3) <= 2e-8,
          "sherman3 with pivot on: %d rows moved, %s", spk_solver_pivoted(s), spk_last_error(ctx));
    spk_solver_destroy(s);
    spk_matrix_destroy(A);
    spk_context_destroy(ctx);
    free(b3);
    free(x3);
    free(v2);
    free(b);
    free(x);
    free(ones);
}

int main(void)
{
    matching_is_optimal();
    solves();
    return check_exit();
}
