/* test_spmv.c -- the SpMV registry and every backend of the device under
 * test (the host, or CUDA when compiled with SPK_TEST_CUDA) against the host
 * reference product, on edge cases (empty rows, a dense row, 1x1, 0x0,
 * rectangular, long rows) and on the generated problems. */
#include <stdint.h>

#include "device.h"
#include "io/gen.h"
#include "spmv/spmv.h"

static uint64_t rs = 99;
static double rnd(void)
{
    rs = rs * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rs >> 11) / 9007199254740992.0;
}

/* Random m x n matrix: row i has len(i) entries at random columns. */
static void random_matrix(int m, int n, int dense_row, int maxlen, spk_csr *A)
{
    spk_err e;
    size_t cap = (size_t)m * (size_t)(maxlen + 1) + (size_t)n + 1;
    int *r = malloc(cap * sizeof(int)), *c = malloc(cap * sizeof(int));
    double *v = malloc(cap * sizeof(double));
    size_t k = 0;
    for (int i = 0; i < m; i++) {
        int len = i == dense_row ? n : (i % 7 == 3 ? 0 : (int)(rnd() * (maxlen + 1)));
        for (int q = 0; q < len; q++) {
            r[k] = i;
            c[k] = i == dense_row ? q : (int)(rnd() * n);
            v[k++] = rnd() - 0.5;
        }
    }
    if (spk_csr_from_coo(m, n, k, r, c, v, A, &e)) fprintf(stderr, "%s\n", e.msg);
    free(r);
    free(c);
    free(v);
}

/* Run backend ops on A for several alpha/beta and compare with the reference. */
static void compare(const struct spk_spmv_ops *ops, spk_exec *ex, const spk_csr *A, const char *what)
{
    void *impl = NULL;
    spk_spmv_opts o;
    memset(&o, 0, sizeof o);
    CHECK_OK(ops->create(ex, A, &o, &impl), ex->err->msg);
    if (!impl) return;
    int m = A->nrows, n = A->ncols;
    double *x = malloc(((size_t)n + 1) * sizeof(double)), *y = malloc(((size_t)m + 1) * sizeof(double));
    double *ref = malloc(((size_t)m + 1) * sizeof(double));
    for (int j = 0; j < n; j++) x[j] = rnd() - 0.5;
    double *dx = to_dev(ex, x, n), *dy = NULL;
    CHECK(dx != NULL, "upload x: %s", ex->err->msg);
    const double ab[][2] = {{1, 0}, {-2.5, 0}, {1, 1}, {0.5, -3}};
    for (int t = 0; t < 4 && dx; t++) {
        /* beta = 0: y holds NaN, which must not leak into the result */
        for (int i = 0; i < m; i++) ref[i] = y[i] = ab[t][1] == 0 ? NAN : rnd();
        if (ab[t][1] == 0)
            for (int i = 0; i < m; i++) ref[i] = 0;
        spk_csr_spmv(A, ab[t][0], x, ab[t][1], ref);
        if (dy) ex->ops->free(ex, dy);
        dy = to_dev(ex, y, m);
        CHECK_OK(ops->apply(impl, ab[t][0], dx, ab[t][1], dy), ex->err->msg);
        for (int i = 0; i < m; i++) y[i] = NAN;
        CHECK_OK(from_dev(ex, y, dy, m), ex->err->msg);
        double err = 0, scale = 0;
        for (int i = 0; i < m; i++) {
            err = fmax(err, isfinite(y[i]) ? fabs(y[i] - ref[i]) : INFINITY);
            scale = fmax(scale, fabs(ref[i]));
        }
        CHECK(err <= 1e-12 * (scale > 1 ? scale : 1), "%s: %s alpha %g beta %g error %g", ops->name, what,
              ab[t][0], ab[t][1], err);
    }
    spk_spmv_stats s;
    ops->stats(impl, &s);
    CHECK(s.bytes >= (size_t)A->nnz * 12, "%s: stats bytes %zu for nnz %d", ops->name, s.bytes, A->nnz);
    CHECK(s.setup_seconds >= 0, "setup time");
    /* new values (doubled), same pattern: the product doubles */
    if (ops->update && A->nnz > 0 && dx) {
        spk_csr B = {0};
        spk_err e2;
        CHECK_OK(spk_csr_copy(A, &B, &e2), e2.msg);
        for (int k = 0; k < B.nnz; k++) B.val[k] *= 2;
        CHECK_OK(ops->update(impl, &B), ex->err->msg);
        for (int i = 0; i < m; i++) ref[i] = 0;
        spk_csr_spmv(&B, 1.0, x, 0.0, ref);
        CHECK_OK(ops->apply(impl, 1.0, dx, 0.0, dy), ex->err->msg);
        CHECK_OK(from_dev(ex, y, dy, m), ex->err->msg);
        double err = 0;
        for (int i = 0; i < m; i++) err = fmax(err, fabs(y[i] - ref[i]) / fmax(1, fabs(ref[i])));
        CHECK(err <= 1e-12, "%s: %s after update: error %g", ops->name, what, err);
        ops->destroy(impl);
        impl = NULL;
        spk_csr_free(&B);
    }
    if (impl) ops->destroy(impl);
    if (dx) ex->ops->free(ex, dx);
    if (dy) ex->ops->free(ex, dy);
    free(x);
    free(y);
    free(ref);
}

int main(void)
{
    spk_err err;
    spk_err_clear(&err);
    spk_exec *ex = test_exec(&err);

    const struct spk_spmv_ops *ops = NULL;
    CHECK_OK(spk_spmv_find(TEST_FORMAT, ex, &ops, &err), err.msg);
    CHECK(ops && strcmp(ops->name, TEST_FORMAT) == 0, "lookup of %s", TEST_FORMAT);
    CHECK_OK(spk_spmv_find("auto", ex, &ops, &err), err.msg);
    CHECK(ops && strcmp(ops->name, TEST_FORMAT) == 0, "auto on %s is %s", TEST_DEVICE_NAME, TEST_FORMAT);
    /* a backend of another device is refused with a message */
    int st0 = spk_spmv_find(strcmp(TEST_FORMAT, "csr") == 0 ? "cusparse" : "csr", ex, &ops, &err);
    CHECK(st0 == SPK_ERR_NOT_FOUND, "backend of another device accepted: %d", st0);
    CHECK_OK(spk_spmv_find(NULL, ex, &ops, &err), err.msg);
    int st = spk_spmv_find("nosuch", ex, &ops, &err);
    CHECK(st == SPK_ERR_NOT_FOUND, "unknown format status %d", st);
    CHECK(check_contains(err.msg, "unknown SpMV format 'nosuch'") && check_contains(err.msg, TEST_FORMAT),
          "message: %s", err.msg);
    int count = 0;
    for (const struct spk_spmv_ops *const *p = spk_spmv_list(); *p; p++) {
        count++;
        CHECK((*p)->name && (*p)->exec && (*p)->summary && (*p)->create && (*p)->apply && (*p)->destroy
                  && (*p)->stats, "incomplete backend entry");
    }
    CHECK(count >= 1, "registry empty");

    /* edge cases through every host backend */
    spk_csr cases[8];
    const char *names[8] = {"random 50x50 with empty rows", "dense row", "1x1", "rectangular 30x70",
                            "rectangular 70x30", "long rows (> 32 and > 1024)", "poisson3d-7:6",
                            "convdiff3d-7:5"};
    memset(cases, 0, sizeof cases);
    random_matrix(50, 50, -1, 8, &cases[0]);
    random_matrix(40, 40, 17, 3, &cases[1]);
    random_matrix(1, 1, 0, 1, &cases[2]);
    random_matrix(30, 70, -1, 10, &cases[3]);
    random_matrix(70, 30, -1, 10, &cases[4]);
    random_matrix(8, 3000, 2, 1500, &cases[5]);
    CHECK_OK(spk_gen_poisson3d7(6, &cases[6], &err), err.msg);
    CHECK_OK(spk_gen_convdiff3d7(5, 100.0, &cases[7], &err), err.msg);
    for (const struct spk_spmv_ops *const *p = spk_spmv_list(); *p; p++) {
        if (strcmp((*p)->exec, ex->ops->name) != 0) continue;
        for (int c = 0; c < 8; c++) compare(*p, ex, &cases[c], names[c]);
        spk_csr empty = {0};
        CHECK_OK(spk_csr_alloc(&empty, 0, 0, 0, &err), err.msg);
        compare(*p, ex, &empty, "0x0");
        spk_csr_free(&empty);
    }
    for (int c = 0; c < 8; c++) spk_csr_free(&cases[c]);
    spk_exec_destroy(ex);
    return check_exit();
}
