/* test_hmec.c -- the HMEC split (hmec.h) on matrices built so that every K,
 * row count and nonzero count is known by hand; the layout of the arrays
 * (stable sort, column-major parts, padding, CSR rest); the product of the
 * device under test (the host reference, or the kernels when compiled with
 * SPK_TEST_CUDA) against spk_csr_spmv, also after new values with p != 2;
 * empty rows, rectangular, 0 x 0 and bad part counts. */
#include <stdint.h>

#include "device.h"
#include "spmv/hmec.h"

#ifdef SPK_TEST_CUDA
#define HMEC_OPS spk_spmv_hmec_cuda
#else
#define HMEC_OPS spk_spmv_hmec_host
#endif

static uint64_t rs = 2024;
static double rnd(void)
{
    rs = rs * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rs >> 11) / 9007199254740992.0;
}

/* An m x n matrix whose rows have the lengths count[g] x len[g] (groups g),
 * spread over the rows in a scrambled order (row i takes slot (a*i + 13) % m
 * with gcd(a, m) = 1), each row's columns distinct and random, values random. */
static void build(int m, int n, int ngroups, const int *count, const int *len, spk_csr *A)
{
    spk_err e;
    int *slot = malloc(((size_t)m + 1) * sizeof(int)), q = 0;
    for (int g = 0; g < ngroups; g++)
        for (int c = 0; c < count[g]; c++) slot[q++] = len[g];
    CHECK(q == m, "groups fill %d of %d rows", q, m);
    int a = 1;
    for (int t = 7919; t > 1 && a == 1; t--) {
        int u = t, v = m;
        while (v) {
            int r = u % v;
            u = v;
            v = r;
        }
        if (u == 1) a = t;
    }
    int nnz = 0;
    for (int i = 0; i < m; i++) nnz += slot[i];
    CHECK_OK(spk_csr_alloc(A, m, n, nnz, &e), e.msg);
    char *used = calloc((size_t)n + 1, 1);
    int k = 0;
    for (int i = 0; i < m; i++) {
        int want = slot[(int)(((long long)a * i + 13) % m)], have = 0;
        A->rowptr[i] = k;
        while (have < want) { /* distinct random columns, stored in order below */
            int c = (int)(rnd() * n);
            if (!used[c]) {
                used[c] = 1;
                have++;
            }
        }
        for (int c = 0; c < n && have > 0; c++)
            if (used[c]) {
                used[c] = 0;
                have--;
                A->colind[k] = c;
                A->val[k++] = rnd() - 0.5;
            }
    }
    A->rowptr[m] = k;
    CHECK_OK(spk_csr_validate(A, 1, &e), e.msg);
    free(used);
    free(slot);
}

/* The expected split: nparts, then K, rows, nnz per part, then CSR rows and nnz. */
typedef struct expect {
    int nparts, K[4], rows[4], nnz[4], csr_rows, csr_nnz;
} expect;

static void check_split(const spk_csr *A, int parts, const expect *x, const char *what)
{
    spk_err e;
    spk_hmec_split_info I;
    CHECK_OK(spk_hmec_split(A, parts, &I, &e), e.msg);
    CHECK(I.nparts == x->nparts, "%s p=%d: %d parts, expected %d", what, parts, I.nparts, x->nparts);
    size_t stored = 0;
    for (int p = 0; p < x->nparts && p < I.nparts; p++) {
        CHECK(I.K[p] == x->K[p] && I.rows[p] == x->rows[p] && I.nnz[p] == x->nnz[p],
              "%s p=%d part %d: K=%d rows %d nnz %d, expected K=%d rows %d nnz %d", what, parts, p, I.K[p],
              I.rows[p], I.nnz[p], x->K[p], x->rows[p], x->nnz[p]);
        stored += (size_t)I.K[p] * (size_t)I.rows[p];
    }
    CHECK(I.csr_rows == x->csr_rows && I.csr_nnz == x->csr_nnz,
          "%s p=%d: CSR rest %d rows %d nnz, expected %d, %d", what, parts, I.csr_rows, I.csr_nnz,
          x->csr_rows, x->csr_nnz);
    CHECK(I.stored == stored + (size_t)I.csr_nnz, "%s p=%d: stored %zu", what, parts, I.stored);
}

/* Convert A with `parts` and check the arrays against A entry by entry:
 * jds_row a stable sort by length (descending), each part column-major with
 * entries O..O+K-1 of its rows and padding (last real column, value 0), the
 * CSR rest with the entries after the parts. */
static void check_layout(const spk_csr *A, int parts, const char *what)
{
    const spk_format *f = spk_hmec_format();
    spk_spmv_opts o;
    memset(&o, 0, sizeof o);
    o.hmec_parts = parts;
    spk_fmt_hmec F;
    memset(&F, 0, sizeof F);
    spk_err e;
    int st = f->convert(A, &o, &F, &e);
    CHECK(st == SPK_OK, "%s: convert: %s", what, e.msg);
    if (st) {
        spk_format_free_arrays(f, &F);
        return;
    }
    int m = A->nrows, bad = 0;
    char *seen = calloc((size_t)m + 1, 1);
    for (int r = 0; r < m; r++) {
        int i = F.jds_row[r];
        if (i < 0 || i >= m || seen[i]) {
            bad++;
            continue;
        }
        seen[i] = 1;
        if (r > 0) {
            int p = F.jds_row[r - 1];
            int lp = A->rowptr[p + 1] - A->rowptr[p], li = A->rowptr[i + 1] - A->rowptr[i];
            bad += lp < li || (lp == li && p > i);
        }
    }
    CHECK(bad == 0, "%s: jds_row is not a stable descending sort (%d faults)", what, bad);
    int O = 0;
    for (int p = 0; p < F.info.nparts && !bad; p++) {
        int K = F.info.K[p], rows = F.info.rows[p], real = 0, faults = 0;
        for (int r = 0; r < rows; r++) {
            int i = F.jds_row[r], b = A->rowptr[i] + O, left = A->rowptr[i + 1] - b;
            faults += left < 1;
            for (int k = 0; k < K && left >= 1; k++) {
                size_t q = F.ell_off[p] + (size_t)k * (size_t)rows + (size_t)r;
                if (k < left) {
                    faults += F.ell_col[q] != A->colind[b + k] || F.ell_val[q] != A->val[b + k];
                    real++;
                } else {
                    int lastk = (left < K ? left : K) - 1;
                    faults += F.ell_col[q] != A->colind[b + lastk] || F.ell_val[q] != 0.0;
                }
            }
        }
        if (rows < m) {
            int i = F.jds_row[rows];
            faults += A->rowptr[i + 1] - A->rowptr[i] > O; /* the next row has nothing left */
        }
        CHECK(faults == 0 && real == F.info.nnz[p], "%s: part %d: %d faults, %d real entries (info %d)", what,
              p, faults, real, F.info.nnz[p]);
        O += K;
    }
    int faults = 0, q = 0;
    for (int r = 0; r < F.info.csr_rows && !bad; r++) {
        int i = F.jds_row[r];
        faults += F.csr_rowptr[r] != q;
        for (int k = A->rowptr[i] + O; k < A->rowptr[i + 1]; k++, q++)
            faults += F.csr_col[q] != A->colind[k] || F.csr_val[q] != A->val[k];
    }
    CHECK(faults == 0 && q == F.info.csr_nnz, "%s: CSR rest: %d faults, %d entries", what, faults, q);
    free(seen);
    spk_format_free_arrays(f, &F);
}

/* The backend under test, created with `parts`, for several alpha/beta
 * (beta = 0 with NaN in y), then after new values (doubled), against
 * spk_csr_spmv: per row, |y - ref| <= 1e-13 (|alpha| sum |a_ij x_j| + |beta y_i|). */
static void check_product(spk_exec *ex, const spk_csr *A, int parts, const char *what)
{
    spk_spmv_opts o;
    memset(&o, 0, sizeof o);
    o.hmec_parts = parts;
    void *impl = NULL;
    CHECK_OK(HMEC_OPS.create(ex, A, &o, &impl), ex->err->msg);
    if (!impl) return;
    int m = A->nrows, n = A->ncols;
    double *x = malloc(((size_t)n + 1) * sizeof(double)), *y = malloc(((size_t)m + 1) * sizeof(double));
    double *y0 = malloc(((size_t)m + 1) * sizeof(double)), *ref = malloc(((size_t)m + 1) * sizeof(double));
    for (int j = 0; j < n; j++) x[j] = rnd() - 0.5;
    spk_csr B = {0};
    spk_err e2;
    CHECK_OK(spk_csr_copy(A, &B, &e2), e2.msg);
    double *dx = to_dev(ex, x, n), *dy = NULL;
    CHECK(dx != NULL, "upload x: %s", ex->err->msg);
    const double ab[][2] = {{1, 0}, {-2.5, 0}, {1, 1}, {0.5, -3}, {0, 2}, {3, 0.25}, {1, 0}, {-1, 0.5}};
    for (int t = 0; t < 8 && dx; t++) {
        double alpha = ab[t][0], beta = ab[t][1];
        if (t == 6) { /* new values, same pattern */
            for (int k = 0; k < B.nnz; k++) B.val[k] *= 2;
            CHECK_OK(HMEC_OPS.update(impl, &B), ex->err->msg);
        }
        for (int i = 0; i < m; i++) y0[i] = rnd() - 0.5;
        for (int i = 0; i < m; i++) {
            ref[i] = beta == 0 ? 0 : y0[i];
            y[i] = beta == 0 ? NAN : y0[i];
        }
        spk_csr_spmv(&B, alpha, x, beta, ref);
        if (dy) ex->ops->free(ex, dy);
        dy = to_dev(ex, y, m);
        CHECK(dy != NULL, "upload y: %s", ex->err->msg);
        if (!dy) break;
        CHECK_OK(HMEC_OPS.apply(impl, alpha, dx, beta, dy), ex->err->msg);
        for (int i = 0; i < m; i++) y[i] = NAN;
        CHECK_OK(from_dev(ex, y, dy, m), ex->err->msg);
        int faults = 0;
        double worst = 0;
        for (int i = 0; i < m; i++) {
            double mag = beta == 0 ? 0 : fabs(beta * y0[i]);
            for (int k = B.rowptr[i]; k < B.rowptr[i + 1]; k++)
                mag += fabs(alpha * B.val[k] * x[B.colind[k]]);
            double d = fabs(y[i] - ref[i]);
            if (!(d <= 1e-13 * mag)) {
                faults++;
                worst = fmax(worst, isfinite(d) ? d : INFINITY);
            }
        }
        CHECK(faults == 0, "%s %s p=%d alpha %g beta %g%s: %d rows off (worst %g)", HMEC_OPS.exec, what,
              parts, alpha, beta, t >= 6 ? " after update" : "", faults, worst);
    }
    HMEC_OPS.destroy(impl);
    if (dx) ex->ops->free(ex, dx);
    if (dy) ex->ops->free(ex, dy);
    spk_csr_free(&B);
    free(x);
    free(y);
    free(y0);
    free(ref);
}

static void stats_detail(spk_exec *ex, const spk_csr *A, int parts, char *out, size_t len)
{
    spk_spmv_opts o;
    memset(&o, 0, sizeof o);
    o.hmec_parts = parts;
    void *impl = NULL;
    out[0] = '\0';
    CHECK_OK(HMEC_OPS.create(ex, A, &o, &impl), ex->err->msg);
    if (!impl) return;
    spk_spmv_stats s;
    HMEC_OPS.stats(impl, &s);
    snprintf(out, len, "%s", s.detail);
    HMEC_OPS.destroy(impl);
}

int main(void)
{
    spk_err err;
    spk_err_clear(&err);
    spk_exec *ex = test_exec(&err);

    /* 3200 x 50, row lengths (count x length): 1200x1, 600x2, 500x3, 100x4,
     * 300x6, 100x7, 100x9, 100x10, 200x0; nnz 8700.  Rows with >= v entries:
     * g(1..10) = 3000 1800 1200 700 600 600 300 200 200 100.
     * Part 1 (x = 3000): j=2: s = 4800 > 4000; j=3: s = 6000, not > 2*9000/3
     *   = 6000 (the strict bound) -> K=2, 4800 nnz.
     * Part 2 (x = g(3) = 1200): j=2: 1900 > 1600; j=3: 2500 > 2400; j=4:
     *   3100 <= 3200 -> K=3, 2500 nnz.
     * Part 3 (x = g(6) = 600): j=2: 900 > 800; j=3: 1100 <= 1200 -> K=2, 900 nnz.
     * Then x = g(8) = 200 <= 512: the CSR rest has 200 rows, 500 nnz. */
    {
        const int count[] = {1200, 600, 500, 100, 300, 100, 100, 100, 200};
        const int len[] = {1, 2, 3, 4, 6, 7, 9, 10, 0};
        spk_csr A = {0};
        build(3200, 50, 9, count, len, &A);
        CHECK(A.nnz == 8700, "staircase nnz %d", A.nnz);
        const expect p1 = {1, {2}, {3000}, {4800}, 1200, 3900};
        const expect p2 = {2, {2, 3}, {3000, 1200}, {4800, 2500}, 600, 1400};
        const expect p3 = {3, {2, 3, 2}, {3000, 1200, 600}, {4800, 2500, 900}, 200, 500};
        check_split(&A, 1, &p1, "staircase");
        check_split(&A, 2, &p2, "staircase");
        check_split(&A, 0, &p2, "staircase (default)");
        check_split(&A, 3, &p3, "staircase");
        check_split(&A, 4, &p3, "staircase");
        check_split(&A, 8, &p3, "staircase");
        for (int p = 1; p <= 3; p++) {
            check_layout(&A, p, "staircase");
            check_product(ex, &A, p, "staircase");
        }
        check_product(ex, &A, 8, "staircase");
        char d[512];
        stats_detail(ex, &A, 0, d, sizeof d);
        CHECK(strcmp(d, "HMEC: 2 ELL parts (K=2: 3000 rows, 4800 nnz; K=3: 1200 rows, 2500 nnz), "
                        "CSR rest 600 rows 1400 nnz") == 0,
              "detail '%s'", d);
        stats_detail(ex, &A, 1, d, sizeof d);
        CHECK(strcmp(d, "HMEC: 1 ELL part (K=2: 3000 rows, 4800 nnz), CSR rest 1200 rows 3900 nnz") == 0,
              "detail '%s'", d);
        /* the same rows transposed in shape: 3200 x 5000 (wide) */
        spk_csr W = {0};
        build(3200, 5000, 9, count, len, &W);
        check_split(&W, 3, &p3, "staircase 3200 x 5000");
        check_layout(&W, 3, "staircase 3200 x 5000");
        check_product(ex, &W, 3, "staircase 3200 x 5000");
        spk_csr_free(&W);
        spk_csr_free(&A);
    }
    /* the 2/3 bound is strict at j = 2: 600 rows, 200 of length 2 -> s = 800 = 2c/3
     * -> K=1; with 201 of length 2 -> K=2 */
    {
        const int count[] = {200, 400}, len[] = {2, 1};
        spk_csr A = {0};
        build(600, 40, 2, count, len, &A);
        const expect x = {1, {1}, {600}, {600}, 200, 200};
        check_split(&A, 2, &x, "strict bound");
        check_layout(&A, 2, "strict bound");
        check_product(ex, &A, 2, "strict bound");
        spk_csr_free(&A);
        const int count2[] = {201, 399};
        build(600, 40, 2, count2, len, &A);
        const expect x2 = {1, {2}, {600}, {801}, 0, 0};
        check_split(&A, 2, &x2, "strict bound + 1");
        check_layout(&A, 2, "strict bound + 1");
        check_product(ex, &A, 2, "strict bound + 1");
        spk_csr_free(&A);
    }
    /* <= 512 nonempty rows: CSR only; 513: one part */
    {
        const int count[] = {512, 88}, len[] = {3, 0};
        spk_csr A = {0};
        build(600, 600, 2, count, len, &A);
        const expect x = {0, {0}, {0}, {0}, 512, 1536};
        check_split(&A, 2, &x, "512 rows");
        check_layout(&A, 2, "512 rows");
        check_product(ex, &A, 2, "512 rows");
        char d[512];
        stats_detail(ex, &A, 2, d, sizeof d);
        CHECK(strcmp(d, "HMEC: 0 ELL parts, CSR rest 512 rows 1536 nnz") == 0, "detail '%s'", d);
        spk_csr_free(&A);
        const int count2[] = {513, 87};
        build(600, 600, 2, count2, len, &A);
        const expect x2 = {1, {3}, {513}, {1539}, 0, 0};
        check_split(&A, 2, &x2, "513 rows");
        check_layout(&A, 2, "513 rows");
        check_product(ex, &A, 2, "513 rows");
        spk_csr_free(&A);
    }
    /* equal lengths: one part takes everything */
    {
        const int count[] = {1000}, len[] = {7};
        spk_csr A = {0};
        build(1000, 1000, 1, count, len, &A);
        const expect x = {1, {7}, {1000}, {7000}, 0, 0};
        for (int p = 1; p <= 3; p++) check_split(&A, p, &x, "equal lengths");
        check_layout(&A, 2, "equal lengths");
        check_product(ex, &A, 2, "equal lengths");
        spk_csr_free(&A);
    }
    /* a dense row among short ones (the 2/3 rule stops before it; the padding
     * stays bounded), tall rectangular with many empty rows */
    {
        const int count[] = {1, 900, 300, 800}, len[] = {400, 3, 1, 0};
        spk_csr A = {0};
        build(2001, 400, 4, count, len, &A);
        spk_hmec_split_info I;
        CHECK_OK(spk_hmec_split(&A, 2, &I, &err), err.msg);
        CHECK(I.nparts == 1 && I.K[0] == 3 && I.rows[0] == 1201 && I.csr_rows == 1 && I.csr_nnz == 397,
              "dense row: %d parts, K %d rows %d, CSR %d rows %d nnz", I.nparts, I.K[0], I.rows[0],
              I.csr_rows, I.csr_nnz);
        CHECK((double)I.stored <= 1.5 * A.nnz, "dense row: stored %zu for %d nnz", I.stored, A.nnz);
        for (int p = 1; p <= 3; p++) {
            check_layout(&A, p, "dense row");
            check_product(ex, &A, p, "dense row");
        }
        spk_csr_free(&A);
    }
    /* small and degenerate shapes: 0 x 0, 0 x 5, 5 x 0, all rows empty */
    {
        const int shapes[][2] = {{0, 0}, {0, 5}, {5, 0}, {700, 3}};
        for (int s = 0; s < 4; s++) {
            spk_csr A = {0};
            CHECK_OK(spk_csr_alloc(&A, shapes[s][0], shapes[s][1], 0, &err), err.msg);
            char what[64];
            snprintf(what, sizeof what, "%d x %d empty", shapes[s][0], shapes[s][1]);
            const expect x = {0, {0}, {0}, {0}, 0, 0};
            check_split(&A, 2, &x, what);
            check_layout(&A, 2, what);
            check_product(ex, &A, 2, what);
            spk_csr_free(&A);
        }
    }
    /* bad part counts */
    {
        const int count[] = {10}, len[] = {2};
        spk_csr A = {0};
        build(10, 10, 1, count, len, &A);
        const int badp[] = {-1, 9, 100};
        for (int b = 0; b < 3; b++) {
            spk_hmec_split_info I;
            int st = spk_hmec_split(&A, badp[b], &I, &err);
            CHECK(st == SPK_ERR_INVALID_ARG && check_contains(err.msg, "1 to 8"), "parts %d: %d %s", badp[b],
                  st, err.msg);
            spk_spmv_opts o;
            memset(&o, 0, sizeof o);
            o.hmec_parts = badp[b];
            void *impl = NULL;
            st = HMEC_OPS.create(ex, &A, &o, &impl);
            CHECK(st == SPK_ERR_INVALID_ARG && impl == NULL, "create with parts %d: %d", badp[b], st);
        }
        spk_csr_free(&A);
    }
    spk_exec_destroy(ex);
    return check_exit();
}
