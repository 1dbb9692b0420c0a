/* test_zapi.c -- complex systems through the public API (host, and with
 * SPK_TEST_CUDA the GPU): matrices from unsorted CSR with duplicates, the
 * method chosen by symmetry (COCG, CG, BiCGStab) and its preconditioner, the
 * true residual of every solve, new values, the GPU's formats, history,
 * invalid input, the refusals between the real and complex calls, and the
 * Matrix Market round trip of matrices and vectors. */
#include <unistd.h>

#include "device.h"

/* A 2-D grid of m x m points: -Lap plus per-kind terms, as CSR with every
 * row's entries in reverse order and the diagonal split in two (so that
 * spk_matrix_from_csr_complex sorts and sums).  kind 0: - k^2 (1 + 0.3 i)
 * (complex symmetric); 1: Peierls phases on the x-couplings and a shift of
 * 0.5 (Hermitian positive definite); 2: a complex convection term on the
 * x-couplings (general); 3: kind 0 with a diagonal that varies. */
typedef struct zsys {
    int n, nnz;
    int *rowptr, *colind;
    double *val;
} zsys;

static void put(zsys *s, int *k, int col, double re, double im)
{
    s->colind[*k] = col;
    s->val[2 * *k] = re;
    s->val[2 * *k + 1] = im;
    (*k)++;
}

static zsys grid(int m, int kind)
{
    zsys s = {m * m, 0, NULL, NULL, NULL};
    s.rowptr = calloc((size_t)s.n + 1, sizeof(int));
    s.colind = malloc((size_t)s.n * 6 * sizeof(int));
    s.val = malloc((size_t)s.n * 12 * sizeof(double));
    int k = 0;
    for (int p = 0; p < s.n; p++) {
        const int i = p / m, j = p % m;
        const double t = 0.35 * i;
        if (i + 1 < m) put(&s, &k, p + m, -1, 0);
        if (j + 1 < m) {
            if (kind == 1) put(&s, &k, p + 1, -cos(t), -sin(t));
            else put(&s, &k, p + 1, kind == 2 ? -1.4 : -1, kind == 2 ? 0.3 : 0);
        }
        const double dre = kind == 0 || kind == 3 ? 4 - 0.6 + (kind == 3 ? 0.1 * (p % 3) : 0) : kind == 1 ? 4.5 : 4,
                     dim = kind == 0 || kind == 3 ? -0.6 * 0.3 : 0;
        put(&s, &k, p, dre / 2, dim / 2);
        put(&s, &k, p, dre / 2, dim / 2);
        if (j > 0) {
            if (kind == 1) put(&s, &k, p - 1, -cos(t), sin(t));
            else put(&s, &k, p - 1, kind == 2 ? -0.6 : -1, kind == 2 ? -0.3 : 0);
        }
        if (i > 0) put(&s, &k, p - m, -1, 0);
        s.rowptr[p + 1] = k;
    }
    s.nnz = k;
    return s;
}

static void zsys_free(zsys *s)
{
    free(s->rowptr);
    free(s->colind);
    free(s->val);
}

/* ||b - A x|| / ||b|| by the library's host product */
static double true_relres(spk_matrix *A, int n, const double *b, const double *x)
{
    double *ax = malloc((size_t)n * 2 * sizeof(double)), rr = 0, bb = 0;
    CHECK_OK(spk_matrix_multiply_complex(A, x, ax), "spk_matrix_multiply_complex");
    for (int i = 0; i < 2 * n; i++) {
        rr += (b[i] - ax[i]) * (b[i] - ax[i]);
        bb += b[i] * b[i];
    }
    free(ax);
    return sqrt(rr / bb);
}

static void rhs(int n, double *b)
{
    for (int i = 0; i < n; i++) {
        b[2 * i] = sin(0.7 * i) + 0.5;
        b[2 * i + 1] = cos(1.3 * i);
    }
}

/* One solve: the method and preconditioner it ran, converged to 1e-10. */
static int solve_case(spk_context *ctx, int kind, spk_solver_kind sk, spk_precond_kind pk, const char *format,
                      const char *method, const char *precond, double *xout)
{
    zsys s = grid(12, kind);
    spk_matrix *A = NULL;
    CHECK_OK(spk_matrix_from_csr_complex(ctx, s.n, s.n, s.rowptr, s.colind, s.val, &A), spk_last_error(ctx));
    spk_options o;
    spk_options_default(&o);
    o.rtol = 1e-10;
    o.format = format;
    spk_solver *sv = NULL;
    int its = -1;
    CHECK_OK(spk_solver_create(ctx, A, sk, pk, &o, &sv), spk_last_error(ctx));
    if (sv) {
        CHECK(!strcmp(spk_solver_method(sv), method), "kind %d: method %s, expected %s", kind,
              spk_solver_method(sv), method);
        CHECK(!strcmp(spk_solver_precond(sv), precond), "kind %d: precond %s, expected %s", kind,
              spk_solver_precond(sv), precond);
        double *b = malloc((size_t)s.n * 2 * sizeof(double)), *x = calloc((size_t)s.n * 2, sizeof(double));
        rhs(s.n, b);
        spk_result r;
        CHECK_OK(spk_solve_complex(sv, b, x, &r), spk_last_error(ctx));
        const double tr = true_relres(A, s.n, b, x);
        CHECK(tr <= 1e-9, "kind %d %s + %s: true relative residual %g", kind, method, precond, tr);
        CHECK(fabs(r.true_relres - tr) <= 1e-9, "reported true residual %g, recomputed %g", r.true_relres, tr);
        its = r.iterations;
        if (xout) memcpy(xout, x, (size_t)s.n * 2 * sizeof(double));
        free(b);
        free(x);
    }
    spk_solver_destroy(sv);
    spk_matrix_destroy(A);
    zsys_free(&s);
    return its;
}

static void test_methods(spk_context *ctx)
{
    /* auto: none where the diagonal is constant; where it varies, Jacobi on the GPU */
    solve_case(ctx, 0, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, NULL, "cocg", "none", NULL);
    solve_case(ctx, 1, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, NULL, "cg", "none", NULL);
    solve_case(ctx, 2, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, NULL, "bicgstab", "none", NULL);
#ifdef SPK_TEST_CUDA
    solve_case(ctx, 3, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, NULL, "cocg", "jacobi", NULL);
#else
    solve_case(ctx, 3, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, NULL, "cocg", "none", NULL);
#endif
    /* factor: IC(0) with CG and COCG, ILU(0) with BiCGStab */
    solve_case(ctx, 0, SPK_SOLVER_AUTO, SPK_PRECOND_FACTOR, NULL, "cocg", "ic0", NULL);
    solve_case(ctx, 1, SPK_SOLVER_AUTO, SPK_PRECOND_FACTOR, NULL, "cg", "ic0", NULL);
    solve_case(ctx, 2, SPK_SOLVER_AUTO, SPK_PRECOND_FACTOR, NULL, "bicgstab", "ilu0", NULL);
    solve_case(ctx, 0, SPK_SOLVER_BICGSTAB, SPK_PRECOND_ILU0, NULL, "bicgstab", "ilu0", NULL);
    solve_case(ctx, 1, SPK_SOLVER_BICGSTAB, SPK_PRECOND_JACOBI, NULL, "bicgstab", "jacobi", NULL);
    const int none = solve_case(ctx, 0, SPK_SOLVER_COCG, SPK_PRECOND_NONE, NULL, "cocg", "none", NULL);
    const int ic0 = solve_case(ctx, 0, SPK_SOLVER_COCG, SPK_PRECOND_IC0, NULL, "cocg", "ic0", NULL);
    CHECK(ic0 > 0 && ic0 < none, "COCG iterations: ic0 %d, none %d", ic0, none);
#ifdef SPK_TEST_CUDA
    /* the GPU's two formats agree */
    const int n = 144;
    double *x1 = malloc((size_t)n * 2 * sizeof(double)), *x2 = malloc((size_t)n * 2 * sizeof(double));
    solve_case(ctx, 2, SPK_SOLVER_BICGSTAB, SPK_PRECOND_ILU0, "cusparse", "bicgstab", "ilu0", x1);
    solve_case(ctx, 2, SPK_SOLVER_BICGSTAB, SPK_PRECOND_ILU0, "csr-vector", "bicgstab", "ilu0", x2);
    double d = 0;
    for (int i = 0; i < 2 * n; i++) d = fmax(d, fabs(x1[i] - x2[i]));
    CHECK(d <= 1e-8, "cusparse and csr-vector solutions differ by %g", d);
    free(x1);
    free(x2);
#endif
}

/* The calls refuse what does not apply, with a message that says why. */
static void test_refusals(spk_context *ctx)
{
    zsys s = grid(6, 0);
    spk_matrix *A = NULL, *R = NULL;
    CHECK_OK(spk_matrix_from_csr_complex(ctx, s.n, s.n, s.rowptr, s.colind, s.val, &A), spk_last_error(ctx));
    CHECK(spk_matrix_is_complex(A) == 1, "is_complex");
    CHECK(spk_matrix_complex_symmetry(A) == 1, "complex symmetry %d", spk_matrix_complex_symmetry(A));
    int nnz = 0;
    const int *rp;
    CHECK(spk_matrix_csr(A, NULL, NULL, NULL, NULL, NULL, NULL) == SPK_ERR_INVALID_ARG, "spk_matrix_csr on complex");
    CHECK(strstr(spk_last_error(ctx), "complex") != NULL, "message: %s", spk_last_error(ctx));
    CHECK_OK(spk_matrix_csr_complex(A, NULL, NULL, &nnz, &rp, NULL, NULL), spk_last_error(ctx));
    CHECK(nnz == s.nnz - s.n, "duplicates summed: %d entries of %d", nnz, s.nnz);
    spk_solver *sv = NULL;
    CHECK(spk_solver_create(ctx, A, SPK_SOLVER_CG, SPK_PRECOND_AUTO, NULL, &sv) == SPK_ERR_INVALID_MATRIX,
          "cg on a complex symmetric matrix");
    CHECK(spk_solver_create(ctx, A, SPK_SOLVER_GMRES, SPK_PRECOND_AUTO, NULL, &sv) == SPK_ERR_UNSUPPORTED,
          "gmres in complex");
    CHECK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_USER, NULL, &sv) != SPK_OK, "user precond");
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, NULL, &sv), spk_last_error(ctx));
    double *b = calloc((size_t)s.n * 2, sizeof(double)), *x = calloc((size_t)s.n * 2, sizeof(double));
    rhs(s.n, b);
    spk_result r;
    CHECK(spk_solve(sv, b, x, &r) == SPK_ERR_INVALID_ARG, "spk_solve on a complex solver");
    CHECK(strstr(spk_last_error(ctx), "spk_solve_complex") != NULL, "message: %s", spk_last_error(ctx));
    b[7] = NAN;
    CHECK(spk_solve_complex(sv, b, x, &r) == SPK_ERR_INVALID_ARG && r.reason == SPK_INVALID_INPUT,
          "NaN in b: reason %d", r.reason);
    CHECK(strstr(spk_last_error(ctx), "b[3]") != NULL, "message names the entry: %s", spk_last_error(ctx));
    spk_solver_destroy(sv);
    /* a real matrix refuses the complex calls and cocg */
    const int rrp[3] = {0, 1, 2}, rci[2] = {0, 1};
    const double rva[2] = {2, 3};
    CHECK_OK(spk_matrix_from_csr(ctx, 2, 2, rrp, rci, rva, &R), spk_last_error(ctx));
    CHECK(spk_matrix_complex_symmetry(R) == -1 && !spk_matrix_is_complex(R), "a real matrix");
    CHECK(spk_matrix_multiply_complex(R, b, x) == SPK_ERR_INVALID_ARG, "multiply_complex on real");
    CHECK(spk_solver_create(ctx, R, SPK_SOLVER_COCG, SPK_PRECOND_AUTO, NULL, &sv) == SPK_ERR_INVALID_ARG,
          "cocg on a real matrix");
    CHECK_OK(spk_solver_create(ctx, R, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, NULL, &sv), spk_last_error(ctx));
    CHECK(spk_solve_complex(sv, b, x, &r) == SPK_ERR_INVALID_ARG, "solve_complex on a real solver");
    spk_solver_destroy(sv);
    spk_matrix_destroy(R);
    spk_matrix_destroy(A);
    free(b);
    free(x);
    zsys_free(&s);
}

/* New values (twice A): the next solve refactors and gives x / 2; history. */
static void test_update_and_history(spk_context *ctx)
{
    zsys s = grid(10, 1);
    spk_matrix *A = NULL;
    CHECK_OK(spk_matrix_from_csr_complex(ctx, s.n, s.n, s.rowptr, s.colind, s.val, &A), spk_last_error(ctx));
    spk_options o;
    spk_options_default(&o);
    o.rtol = 1e-12;
    o.keep_history = 1;
    spk_solver *sv = NULL;
    CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, &o, &sv), spk_last_error(ctx));
    double *b = malloc((size_t)s.n * 2 * sizeof(double)), *x1 = calloc((size_t)s.n * 2, sizeof(double)),
           *x2 = calloc((size_t)s.n * 2, sizeof(double));
    rhs(s.n, b);
    spk_result r;
    CHECK_OK(spk_solve_complex(sv, b, x1, &r), spk_last_error(ctx));
    CHECK(r.history_len == r.iterations + 1 && r.history && r.history[r.history_len - 1] < r.history[0],
          "history of %d norms for %d iterations", r.history_len, r.iterations);
    for (int k = 0; k < 2 * s.nnz; k++) s.val[k] *= 2;
    CHECK_OK(spk_matrix_update_values_complex(A, s.val), spk_last_error(ctx));
    CHECK_OK(spk_solve_complex(sv, b, x2, &r), spk_last_error(ctx));
    CHECK(r.t_setup > 0, "the refactorization's time is reported");
    double d = 0;
    for (int i = 0; i < 2 * s.n; i++) d = fmax(d, fabs(2 * x2[i] - x1[i]));
    CHECK(d <= 1e-8, "x after doubling A: off x/2 by %g", d);
    s.val[5] = INFINITY;
    CHECK(spk_matrix_update_values_complex(A, s.val) == SPK_ERR_INVALID_MATRIX, "Inf in new values");
    spk_solver_destroy(sv);
    spk_matrix_destroy(A);
    free(b);
    free(x1);
    free(x2);
    zsys_free(&s);
}

/* spk_matrix_write / spk_matrix_read and the complex vectors round trip to the bit. */
static void test_files(spk_context *ctx)
{
    zsys s = grid(5, 2);
    spk_matrix *A = NULL, *B = NULL;
    CHECK_OK(spk_matrix_from_csr_complex(ctx, s.n, s.n, s.rowptr, s.colind, s.val, &A), spk_last_error(ctx));
    char path[64], vpath[64];
    snprintf(path, sizeof path, "/tmp/spk_zapi_%d.mtx", (int)getpid());
    snprintf(vpath, sizeof vpath, "/tmp/spk_zapi_%d_b.mtx", (int)getpid());
    CHECK_OK(spk_matrix_write(A, path), spk_last_error(ctx));
    CHECK_OK(spk_matrix_read(ctx, path, &B), spk_last_error(ctx));
    if (B) {
        int n1, n2, z1, z2;
        const int *c1, *c2;
        const double *v1, *v2;
        CHECK(spk_matrix_is_complex(B), "read back as complex");
        spk_matrix_csr_complex(A, &n1, NULL, &z1, NULL, &c1, &v1);
        spk_matrix_csr_complex(B, &n2, NULL, &z2, NULL, &c2, &v2);
        CHECK(n1 == n2 && z1 == z2 && !memcmp(c1, c2, (size_t)z1 * sizeof(int)) &&
                  !memcmp(v1, v2, (size_t)z1 * 2 * sizeof(double)),
              "matrix round trip");
    }
    double *b = malloc((size_t)s.n * 2 * sizeof(double)), *v = NULL;
    rhs(s.n, b);
    int n = 0;
    CHECK_OK(spk_vector_write_complex(ctx, vpath, s.n, b), spk_last_error(ctx));
    CHECK_OK(spk_vector_read_complex(ctx, vpath, &n, &v), spk_last_error(ctx));
    CHECK(n == s.n && v && !memcmp(v, b, (size_t)n * 2 * sizeof(double)), "vector round trip (%d entries)", n);
    remove(path);
    remove(vpath);
    spk_free(v);
    free(b);
    spk_matrix_destroy(A);
    spk_matrix_destroy(B);
    zsys_free(&s);
}

int main(void)
{
    spk_context *ctx = test_context();
    test_methods(ctx);
    test_refusals(ctx);
    test_update_and_history(ctx);
    test_files(ctx);
    spk_context_destroy(ctx);
    return check_exit();
}
