/* consumer.c -- a program outside the project that uses an installed spk:
 * solves a 1D Laplacian through the public header only. */
#include <math.h>
#include <stdio.h>
#include <spk.h>

int main(void)
{
    enum { N = 50 };
    int rp[N + 1], ci[3 * N], k = 0;
    double v[3 * N], b[N], x[N], xs[N];
    rp[0] = 0;
    for (int i = 0; i < N; i++) {
        if (i > 0) ci[k] = i - 1, v[k++] = -1;
        ci[k] = i, v[k++] = 2;
        if (i < N - 1) ci[k] = i + 1, v[k++] = -1;
        rp[i + 1] = k;
        xs[i] = 1.0 + i;
        x[i] = 0;
    }
    spk_context *ctx;
    spk_matrix *A;
    spk_solver *s;
    spk_result r;
    if (spk_context_create(&ctx, SPK_DEVICE_HOST)) return 1;
    if (spk_matrix_from_csr(ctx, N, N, rp, ci, v, &A) ||
        spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, NULL, &s)) {
        fprintf(stderr, "%s\n", spk_last_error(ctx));
        return 1;
    }
    spk_matrix_multiply(A, xs, b);
    if (spk_solve(s, b, x, &r)) {
        fprintf(stderr, "%s\n", spk_last_error(ctx));
        return 1;
    }
    double err = 0;
    for (int i = 0; i < N; i++) err = fmax(err, fabs(x[i] - xs[i]));
    printf("spk %s: %s + %s, %d iterations, error %.2e\n", spk_version(), spk_solver_method(s),
           spk_solver_precond(s), r.iterations, err);
    spk_solver_destroy(s);
    spk_matrix_destroy(A);
    spk_context_destroy(ctx);
    return err < 1e-8 ? 0 : 1;
}
