/* test_auto.c -- the "auto" format on the device under test: the candidate
 * rule (small matrices, large regular and large irregular ones), the choice
 * is a candidate and every candidate the executor has was tried or refused,
 * a refusing candidate is passed over, the product (and after new values)
 * matches CSR, and spk_spmv_find("auto") gives it on the GPU (csr on the
 * host, where the solver keeps the reference). */
#include "device.h"
#include "io/gen.h"
#include "io/mmio.h"
#include "spmv/spmv.h"
#include "spmv_compare.h"

static int in_list(const char *s, const char **names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0) return 1;
    return 0;
}

/* n rows of len entries (columns i, i+1, ... mod n), every (n/nlong)-th of
 * them longlen long instead. */
static void lengths(spk_csr *A, int n, int len, int nlong, int longlen)
{
    spk_err e;
    const int step = n / nlong;
    long long nnz = 0;
    for (int i = 0; i < n; i++) nnz += i % step == 0 && i / step < nlong ? longlen : len;
    CHECK_OK(spk_csr_alloc(A, n, n, (int)nnz, &e), e.msg);
    int k = 0;
    A->rowptr[0] = 0;
    for (int i = 0; i < n; i++) {
        const int l = i % step == 0 && i / step < nlong ? longlen : len;
        const int first = i + l > n ? i + l - n : 0; /* entries that wrap to columns 0.. (sorted first) */
        for (int j = 0; j < first; j++) A->colind[k] = j, A->val[k++] = 1.0;
        for (int j = i; j < i + l - first; j++) A->colind[k] = j, A->val[k++] = j == i ? 4.0 : -0.5;
        A->rowptr[i + 1] = k;
    }
}

static void check_rule(void)
{
    spk_err e;
    spk_csr A = {0};
    const char *names[16];
    int timed = -1;
    CHECK_OK(spk_gen_poisson3d7(20, &A, &e), e.msg); /* small, regular rows */
    int n = spk_auto_candidates(&A, names, 16, &timed);
    CHECK(n == 1 && !strcmp(names[0], "csr-vector") && timed == 0, "small regular: %d, timed %d", n, timed);
    spk_csr_free(&A);
    CHECK_OK(spk_gen_poisson3d7(45, &A, &e), e.msg); /* 0.6M nonzeros, 91k rows of 7 or fewer: ELL's shape */
    n = spk_auto_candidates(&A, names, 16, &timed);
    CHECK(A.nnz >= 500000 && n == 2 && !strcmp(names[0], "ell") && !strcmp(names[1], "csr-vector") && timed == 0,
          "mid-size stencil: %d, timed %d", n, timed);
    spk_csr_free(&A);
    /* 0.94M nonzeros in rows of 6, every tenth 40 long: regular, but ELL would pad 4x */
    lengths(&A, 100000, 6, 10000, 40);
    n = spk_auto_candidates(&A, names, 16, &timed);
    CHECK(A.nnz >= 500000 && n == 1 && !strcmp(names[0], "csr-vector") && timed == 0,
          "mid-size regular, uneven rows: %d (%s), timed %d", n, n ? names[0] : "", timed);
    spk_csr_free(&A);
    /* as ELL-shaped as the stencil, but 20k rows of 30: too few rows to fill the GPU row by row */
    lengths(&A, 20000, 30, 1, 30);
    n = spk_auto_candidates(&A, names, 16, &timed);
    CHECK(A.nnz >= 500000 && n == 1 && !strcmp(names[0], "csr-vector"), "mid-size, few rows: %d (%s)", n,
          n ? names[0] : "");
    spk_csr_free(&A);
    /* small, irregular rows (rows of 4, a few longer: 4 lanes a row in csr-vector): */
    lengths(&A, 20000, 4, 10, 128); /* the longest row takes csr-vector 32 steps: csr-vector */
    n = spk_auto_candidates(&A, names, 16, &timed);
    CHECK(n == 3 && !strcmp(names[0], "csr-vector") && !strcmp(names[1], "coo") && timed == 0,
          "small irregular, 32 steps: %d (%s), timed %d", n, names[0], timed);
    spk_csr_free(&A);
    lengths(&A, 20000, 4, 10, 129); /* 33 steps: coo */
    n = spk_auto_candidates(&A, names, 16, &timed);
    CHECK(n == 2 && !strcmp(names[0], "coo") && !strcmp(names[1], "cusparse") && timed == 0,
          "small irregular, 33 steps: %d (%s), timed %d", n, names[0], timed);
    spk_csr_free(&A);
    lengths(&A, 40000, 4, 2, 8192); /* rows of up to 8192: still coo */
    n = spk_auto_candidates(&A, names, 16, &timed);
    CHECK(n == 2 && !strcmp(names[0], "coo") && timed == 0, "small irregular, a row of 8192: %d (%s), timed %d", n,
          names[0], timed);
    spk_csr_free(&A);
    lengths(&A, 40000, 4, 2, 8193); /* a longer row: cusparse */
    n = spk_auto_candidates(&A, names, 16, &timed);
    CHECK(n == 2 && !strcmp(names[0], "cusparse") && !strcmp(names[1], "coo") && timed == 0,
          "small irregular, a row of 8193: %d (%s), timed %d", n, names[0], timed);
    spk_csr_free(&A);
    CHECK_OK(spk_gen_powerlaw(5000, 2.2, &A, &e), e.msg); /* a power law: one of the three, untimed */
    n = spk_auto_candidates(&A, names, 16, &timed);
    CHECK(n >= 2 && in_list("coo", names, n) && in_list("cusparse", names, n) && timed == 0,
          "small power-law matrix: %d, timed %d", n, timed);
    spk_csr_free(&A);
    CHECK_OK(spk_gen_poisson3d7(70, &A, &e), e.msg); /* 2.4M nonzeros, regular rows */
    n = spk_auto_candidates(&A, names, 16, &timed);
    CHECK(A.nnz > 2000000 && n == 2 && !strcmp(names[0], "bell") && in_list("csr-scalar", names, n) && timed == 0,
          "large regular matrix: %d candidates, timed %d", n, timed);
    CHECK(spk_auto_candidates(&A, names, 1, NULL) == 1, "max not respected");
    spk_csr_free(&A);
    CHECK_OK(spk_gen_powerlaw(150000, 2.2, &A, &e), e.msg); /* large, power-law rows */
    n = spk_auto_candidates(&A, names, 16, &timed);
    CHECK(A.nnz > 2000000 && n == 2 && !strcmp(names[0], "cusparse") && timed == 0,
          "large power-law matrix (%d nonzeros): %d candidates, timed %d", A.nnz, n, timed);
    spk_csr_free(&A);
    /* 2.4M nonzeros, 8 per row but 10 rows of 2000: few long rows, cusparse too */
    lengths(&A, 300000, 8, 10, 2000);
    n = spk_auto_candidates(&A, names, 16, &timed);
    CHECK(n == 2 && !strcmp(names[0], "cusparse") && timed == 0,
          "large matrix with a few long rows: %d candidates, timed %d", n, timed);
    spk_csr_free(&A);
    /* rows of 2, a tenth of them 15 long: regular (15 < 8 x 3.3) but ELL would
     * pad beyond 3x, so HYB takes ELL's place and trials decide */
    lengths(&A, 1100000, 2, 110000, 15);
    n = spk_auto_candidates(&A, names, 16, &timed);
    CHECK(A.nnz > 2000000 && n == 3 && in_list("hyb", names, n) && !in_list("ell", names, n) &&
              in_list("bell", names, n) && in_list("csr-scalar", names, n) && timed == 1,
          "large regular matrix that ELL would refuse: %d candidates, timed %d", n, timed);
    spk_csr_free(&A);
}

/* create auto on A and check its report */
static void check_choice(const struct spk_spmv_ops *ops, spk_exec *ex, const spk_csr *A, const char *what,
                         const char *must_refuse)
{
    void *impl = NULL;
    CHECK_OK(ops->create(ex, A, NULL, &impl), ex->err->msg);
    if (!impl) return;
    spk_spmv_stats s;
    ops->stats(impl, &s);
    const char *names[16], *choice = spk_auto_choice(impl);
    int timed = 0;
    int n = spk_auto_candidates(A, names, 16, &timed);
    CHECK(in_list(choice, names, n), "%s: auto chose %s, not a candidate", what, choice);
    char want[64];
    snprintf(want, sizeof want, "auto chose %s (", choice);
    CHECK(check_contains(s.detail, want) && check_contains(s.detail, "selection"), "%s: %s", what, s.detail);
    /* trials: every candidate the executor has was timed or refused; the rule
     * alone: the choice is the first of them the executor has that did not
     * refuse, and nothing was timed */
    for (int i = 0; i < n; i++) {
        const struct spk_spmv_ops *c = NULL;
        spk_err keep = *ex->err;
        if (spk_spmv_find(names[i], ex, &c, ex->err)) { /* not on this executor */
            *ex->err = keep;
            continue;
        }
        CHECK(check_contains(s.detail, names[i]), "%s: candidate %s missing from '%s'", what, names[i], s.detail);
        if (!timed && strcmp(names[i], choice) == 0) break;
    }
    CHECK(timed == !check_contains(s.detail, "not timed"), "%s: timed %d, but '%s'", what, timed, s.detail);
    if (must_refuse) {
        char r[64];
        snprintf(r, sizeof r, "%s refused", must_refuse);
        CHECK(check_contains(s.detail, r), "%s: '%s' not in '%s'", what, r, s.detail);
    }
    CHECK(s.setup_seconds > 0 && s.bytes > 0, "%s: setup %g, bytes %zu", what, s.setup_seconds, s.bytes);
    ops->destroy(impl);
}

#ifdef SPK_TEST_CUDA
/* Every device builder gives the arrays of the host conversion: the two
 * backends' sizes and products agree (formats without a builder fall back
 * to the host conversion and pass trivially). */
static void check_device_builders(spk_exec *ex, const spk_csr *A, const char *what)
{
    spk_csr dA = *A;
    int nr = A->nrows, nc = A->ncols;
    CHECK_OK(ex->ops->alloc(ex, ((size_t)nr + 1) * sizeof(int), (void **)&dA.rowptr), ex->err->msg);
    CHECK_OK(ex->ops->alloc(ex, (size_t)(A->nnz ? A->nnz : 1) * sizeof(int), (void **)&dA.colind), ex->err->msg);
    CHECK_OK(ex->ops->alloc(ex, (size_t)(A->nnz ? A->nnz : 1) * sizeof(double), (void **)&dA.val), ex->err->msg);
    CHECK_OK(ex->ops->upload(ex, dA.rowptr, A->rowptr, ((size_t)nr + 1) * sizeof(int)), ex->err->msg);
    if (A->nnz) {
        CHECK_OK(ex->ops->upload(ex, dA.colind, A->colind, (size_t)A->nnz * sizeof(int)), ex->err->msg);
        CHECK_OK(ex->ops->upload(ex, dA.val, A->val, (size_t)A->nnz * sizeof(double)), ex->err->msg);
    }
    double *hx = malloc(((size_t)nc + 1) * sizeof(double)), *y1 = malloc(((size_t)nr + 1) * sizeof(double));
    double *y2 = malloc(((size_t)nr + 1) * sizeof(double));
    for (int j = 0; j < nc; j++) hx[j] = 0.5 + (j % 13) * 0.25;
    double *x = to_dev(ex, hx, nc), *y = NULL;
    CHECK_OK(spk_exec_alloc_vec(ex, nr, &y), ex->err->msg);
    int built = 0;
    for (const struct spk_spmv_ops *const *p = spk_spmv_list(); *p; p++) {
        if (strcmp((*p)->exec, "cuda") != 0 || !(*p)->create_dev) continue;
        void *a = NULL, *b = NULL;
        int sa = (*p)->create(ex, A, NULL, &a);
        int sb = (*p)->create_dev(ex, A, &dA, NULL, &b);
        CHECK(sa == sb, "%s on %s: create %d, device build %d (%s)", (*p)->name, what, sa, sb, ex->err->msg);
        if (!sa && !sb) {
            spk_spmv_stats s1, s2;
            (*p)->stats(a, &s1);
            (*p)->stats(b, &s2);
            CHECK(s1.bytes == s2.bytes, "%s on %s: %zu / %zu bytes", (*p)->name, what, s1.bytes, s2.bytes);
            CHECK_OK((*p)->apply(a, 1.0, x, 0.0, y), ex->err->msg);
            CHECK_OK(from_dev(ex, y1, y, nr), ex->err->msg);
            CHECK_OK((*p)->apply(b, 1.0, x, 0.0, y), ex->err->msg);
            CHECK_OK(from_dev(ex, y2, y, nr), ex->err->msg);
            /* equal arrays: equal products up to the order of hyb's atomic adds */
            double dmax = 0, ymax = 0;
            for (int i = 0; i < nr; i++) dmax = fmax(dmax, fabs(y1[i] - y2[i])), ymax = fmax(ymax, fabs(y1[i]));
            CHECK(dmax <= 1e-14 * ymax, "%s on %s: device build differs by %g", (*p)->name, what, dmax);
            built++;
        }
        if (a) (*p)->destroy(a);
        if (b) (*p)->destroy(b);
        spk_err_clear(ex->err);
    }
    CHECK(built >= 3, "%s: only %d device builders ran", what, built);
    ex->ops->free(ex, dA.rowptr);
    ex->ops->free(ex, dA.colind);
    ex->ops->free(ex, dA.val);
    ex->ops->free(ex, x);
    ex->ops->free(ex, y);
    free(hx);
    free(y1);
    free(y2);
}
#endif

#ifndef SPK_TEST_CUDA
/* Host backends that wrap csr and take at least 0.2 ms ("fast-test") or 1 ms
 * ("slow-test") a product: auto's early cut, deterministically. */
static const struct spk_spmv_ops *g_csr;
static int wrap_create(spk_exec *e, const spk_csr *A, const spk_spmv_opts *o, void **impl)
{
    return g_csr->create(e, A, o, impl);
}
static int wait_apply(void *impl, double alpha, const double *x, double beta, double *y, double seconds)
{
    double t0 = spk_time_now();
    int st = g_csr->apply(impl, alpha, x, beta, y);
    while (spk_time_now() - t0 < seconds) {
    }
    return st;
}
static int fast_apply(void *impl, double alpha, const double *x, double beta, double *y)
{
    return wait_apply(impl, alpha, x, beta, y, 2e-4);
}
static int slow_apply(void *impl, double alpha, const double *x, double beta, double *y)
{
    return wait_apply(impl, alpha, x, beta, y, 1e-3);
}
static void wrap_destroy(void *impl)
{
    g_csr->destroy(impl);
}
static void wrap_stats(const void *impl, spk_spmv_stats *s)
{
    g_csr->stats(impl, s);
}
static const struct spk_spmv_ops fast_ops = {"fast-test", "host", "test", wrap_create, fast_apply, NULL,
                                             wrap_destroy, wrap_stats, NULL, NULL};
static const struct spk_spmv_ops slow_ops = {"slow-test", "host", "test", wrap_create, slow_apply, NULL,
                                             wrap_destroy, wrap_stats, NULL, NULL};

/* A candidate 5x slower than the best so far is dropped after one product;
 * tried first, it is timed in full and loses.  The products are timed
 * busy waits (0.2 and 1 ms): on a loaded machine a wait can be stretched
 * past the other, so a wrong choice is tried again, up to 3 times, and the
 * checks hold the last try. */
static void check_cut(spk_exec *ex, const spk_csr *A)
{
    CHECK_OK(spk_spmv_find("csr", ex, &g_csr, ex->err), ex->err->msg);
    const struct spk_spmv_ops *order[2][2] = {{&fast_ops, &slow_ops}, {&slow_ops, &fast_ops}};
    for (int k = 0; k < 2; k++) {
        void *impl = NULL;
        spk_spmv_stats s;
        for (int attempt = 0; attempt < 3; attempt++) {
            if (impl) spk_spmv_auto_host.destroy(impl);
            impl = NULL;
            CHECK_OK(spk_auto_create_with(ex, A, NULL, order[k], 2, 1, &impl), ex->err->msg);
            if (!impl) break;
            spk_spmv_auto_host.stats(impl, &s);
            const int cut = check_contains(s.detail, "(one product;");
            if (strcmp(spk_auto_choice(impl), "fast-test") == 0 && cut == (k == 0)) break;
        }
        if (!impl) continue;
        CHECK(strcmp(spk_auto_choice(impl), "fast-test") == 0, "cut %d: chose %s", k, spk_auto_choice(impl));
        CHECK(check_contains(s.detail, "slow-test") && check_contains(s.detail, "fast-test"), "cut %d: %s", k,
              s.detail);
        CHECK(check_contains(s.detail, "(one product;") == (k == 0), "cut %d: the slow candidate %s: %s", k,
              k == 0 ? "was not cut" : "was cut though tried first", s.detail);
        spk_spmv_auto_host.destroy(impl);
    }
}
#endif

int main(void)
{
    spk_err err;
    spk_err_clear(&err);
    spk_exec *ex = test_exec(&err);
    check_rule();
#ifdef SPK_TEST_CUDA
    const struct spk_spmv_ops *ops = NULL;
    CHECK_OK(spk_spmv_find("auto", ex, &ops, &err), err.msg);
    CHECK(ops && strcmp(ops->name, "auto") == 0, "auto on the GPU is %s", ops ? ops->name : "?");
    if (!ops) return check_exit();
#else
    const struct spk_spmv_ops *ops = &spk_spmv_auto_host, *def = NULL;
    CHECK_OK(spk_spmv_find("auto", ex, &def, &err), err.msg);
    CHECK(def && strcmp(def->name, "csr") == 0, "auto on the host resolves to %s", def ? def->name : "?");
#endif
    static const char *const files[] = {"nos3", "sherman3", "west0479"};
    for (int f = 0; f < 3; f++) {
        char path[1024];
        spk_csr A = {0};
        snprintf(path, sizeof path, "%s/%s.mtx.gz", SPK_TEST_DATA, files[f]);
        CHECK_OK(spk_mm_read_csr(path, &A, NULL, &err), err.msg);
        check_choice(ops, ex, &A, files[f], NULL);
        spmv_compare(ops, ex, &A, files[f], 1);
#ifndef SPK_TEST_CUDA
        if (f == 0) check_cut(ex, &A);
#endif
#ifdef SPK_TEST_CUDA
        check_device_builders(ex, &A, files[f]);
#endif
        spk_csr_free(&A);
    }
    /* large with regular rows, but every tenth row 8 long and the others 1: ell and
     * bell refuse (padding bound), auto passes over them */
    spk_csr D = {0};
    {
        const int m = 1800000;
        CHECK_OK(spk_csr_alloc(&D, m, m, m + (m / 10) * 7, &err), err.msg);
        int q = 0;
        D.rowptr[0] = 0;
        for (int i = 0; i < m; i++) {
            if (i % 10 == 0)
                for (int k = 0; k < 8; k++) D.colind[q] = (int)(((long long)i * 7 + (long long)k * 104729) % m), D.val[q++] = 1.0 + k;
            else
                D.colind[q] = i, D.val[q++] = 2.0;
            if (i % 10 == 0) { /* sort the row's columns */
                int *c = D.colind + q - 8;
                for (int a = 1; a < 8; a++)
                    for (int b = a; b > 0 && c[b - 1] > c[b]; b--) {
                        int t = c[b];
                        c[b] = c[b - 1];
                        c[b - 1] = t;
                    }
            }
            D.rowptr[i + 1] = q;
        }
        D.nnz = q;
    }
    check_choice(ops, ex, &D, "regular rows, ell too padded", "ell");
    check_choice(ops, ex, &D, "regular rows, bell too padded", "bell");
    spmv_compare(ops, ex, &D, "regular rows, ell too padded", 1);
    { /* without trials, a refusing first candidate gives way to the next one */
        const struct spk_spmv_ops *two[2] = {NULL, NULL};
        CHECK_OK(spk_spmv_find("ell", ex, &two[0], &err), err.msg);
        CHECK_OK(spk_spmv_find("csr-vector", ex, &two[1], &err), err.msg);
        void *impl = NULL;
        CHECK_OK(spk_auto_create_with(ex, &D, NULL, two, 2, 0, &impl), ex->err->msg);
        if (impl) {
            spk_spmv_stats s;
            ops->stats(impl, &s);
            CHECK(strcmp(spk_auto_choice(impl), "csr-vector") == 0 && check_contains(s.detail, "ell refused") &&
                      check_contains(s.detail, "the rule's choice, not timed"),
                  "untimed, ell refused: chose %s: %s", spk_auto_choice(impl), s.detail);
            ops->destroy(impl);
        }
    }
#ifdef SPK_TEST_CUDA
    check_device_builders(ex, &D, "regular rows, ell too padded");
    spk_csr E = {0}; /* an empty matrix and a power-law one */
    CHECK_OK(spk_csr_alloc(&E, 0, 0, 0, &err), err.msg);
    check_device_builders(ex, &E, "0 x 0");
    spk_csr_free(&E);
    CHECK_OK(spk_gen_powerlaw(3000, 2.2, &E, &err), err.msg);
    check_device_builders(ex, &E, "powerlaw:3000");
    spk_csr_free(&E);
#endif
    spk_csr_free(&D);
    spk_exec_destroy(ex);
    return check_exit();
}
