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

static void check_rule(void)
{
    spk_err e;
    spk_csr A = {0};
    const char *names[16];
    CHECK_OK(spk_gen_poisson3d7(20, &A, &e), e.msg);
    int n = spk_auto_candidates(&A, names, 16);
    CHECK(n == 8 && !strcmp(names[0], "csr-vector") && !strcmp(names[1], "hyb") && in_list("cusparse", names, n) &&
              in_list("ell", names, n) && in_list("coo", names, n) && in_list("hmec", names, n),
          "small matrix: %d candidates", n);
    spk_csr_free(&A);
    CHECK_OK(spk_gen_poisson3d7(70, &A, &e), e.msg); /* 2.4M nonzeros, regular rows */
    n = spk_auto_candidates(&A, names, 16);
    CHECK(A.nnz > 2000000 && n == 5 && in_list("ell", names, n) && in_list("bell", names, n) &&
              in_list("csr-scalar", names, n) && !in_list("coo", names, n),
          "large regular matrix: %d candidates", n);
    spk_csr_free(&A);
    CHECK_OK(spk_gen_powerlaw(150000, 2.2, &A, &e), e.msg); /* large, power-law rows */
    n = spk_auto_candidates(&A, names, 16);
    CHECK(A.nnz > 2000000 && n == 4 && in_list("coo", names, n) && in_list("cusparse", names, n) &&
              !in_list("ell", names, n),
          "large irregular matrix (%d nonzeros): %d candidates", A.nnz, n);
    CHECK(spk_auto_candidates(&A, names, 2) == 2, "max not respected");
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
    int n = spk_auto_candidates(A, names, 16);
    CHECK(in_list(choice, names, n), "%s: auto chose %s, not a candidate", what, choice);
    char want[64];
    snprintf(want, sizeof want, "auto chose %s (", choice);
    CHECK(check_contains(s.detail, want) && check_contains(s.detail, "selection"), "%s: %s", what, s.detail);
    for (int i = 0; i < n; i++) {
        const struct spk_spmv_ops *c = NULL;
        spk_err keep = *ex->err;
        if (spk_spmv_find(names[i], ex, &c, ex->err)) { /* not on this executor */
            *ex->err = keep;
            continue;
        }
        CHECK(check_contains(s.detail, names[i]), "%s: candidate %s missing from '%s'", what, names[i], s.detail);
    }
    if (must_refuse) {
        char r[64];
        snprintf(r, sizeof r, "%s refused", must_refuse);
        CHECK(check_contains(s.detail, r), "%s: '%s' not in '%s'", what, r, s.detail);
    }
    CHECK(s.setup_seconds > 0 && s.bytes > 0, "%s: setup %g, bytes %zu", what, s.setup_seconds, s.bytes);
    ops->destroy(impl);
}

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
        spk_csr_free(&A);
    }
    /* one full row in 3000: ell refuses (padding bound), auto passes over it */
    spk_csr D = {0};
    {
        int m = 3000, k = 0;
        int *r = malloc((size_t)(m * 3 + m) * sizeof(int)), *c = malloc((size_t)(m * 3 + m) * sizeof(int));
        double *v = malloc((size_t)(m * 3 + m) * sizeof(double));
        for (int i = 0; i < m; i++) {
            r[k] = i, c[k] = i, v[k++] = 4;
            if (i + 1 < m) r[k] = i, c[k] = i + 1, v[k++] = -1;
            if (i > 0) r[k] = i, c[k] = i - 1, v[k++] = -1;
        }
        for (int j = 0; j < m; j++)
            if (j != 7 && j != 6 && j != 8) r[k] = 7, c[k] = j, v[k++] = 0.001;
        CHECK_OK(spk_csr_from_coo(m, m, (size_t)k, r, c, v, &D, &err), err.msg);
        free(r);
        free(c);
        free(v);
    }
    check_choice(ops, ex, &D, "one full row", "ell");
    spmv_compare(ops, ex, &D, "one full row", 1);
    spk_csr_free(&D);
    spk_exec_destroy(ex);
    return check_exit();
}
