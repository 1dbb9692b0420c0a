/* test_spmv.c -- the SpMV registry and every backend of the device under
 * test (the host, or CUDA when compiled with SPK_TEST_CUDA) against the host
 * reference product, on edge cases (empty rows, a dense row, 1x1, 0x0,
 * rectangular, long rows) and on the generated problems. */
#include <stdint.h>

#include "device.h"
#include "io/gen.h"
#include "io/mmio.h"
#include "spmv_compare.h"
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

/* The storage of bcsr (bcsr.h) and cusparse-bsr (cusparse_bsr.c) with b x b
 * blocks: 4 (mb + 1) + 4 nblocks + 8 b^2 nblocks, and for cusparse-bsr its
 * padded x (8 nb b, cols % b != 0) and y (8 mb b, rows % b != 0). */
static long long block_formula(const char *name, const spk_csr *A, int b)
{
    const long long m = A->nrows, n = A->ncols, mb = (m + b - 1) / b, nb = (n + b - 1) / b;
    long long nblocks = 0;
    int *last = malloc(((size_t)nb + 1) * sizeof(int));
    for (long long j = 0; j < nb; j++) last[j] = -1;
    for (int i = 0; i < A->nrows; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            const int bc = A->colind[k] / b;
            nblocks += last[bc] != i / b;
            last[bc] = i / b;
        }
    free(last);
    long long bytes = 4 * (mb + 1) + 4 * nblocks + 8LL * b * b * nblocks;
    if (strcmp(name, "cusparse-bsr") == 0) bytes += (n % b ? 8 * nb * b : 0) + (m % b ? 8 * mb * b : 0);
    return bytes;
}

/* The storage cost formula a format's documentation states (dia.h, csc.h,
 * bcsr.h, cusparse_bsr.c), computed here from A alone; -1 for a format
 * without one here. */
static long long storage_formula(const char *name, const spk_csr *A)
{
    const long long m = A->nrows, n = A->ncols, nnz = A->nnz;
    if (strcmp(name, "bcsr") == 0 || strcmp(name, "cusparse-bsr") == 0) return block_formula(name, A, 4);
    if (strcmp(name, "csc") == 0) return 4 * (n + 1) + 12 * nnz;
    if (strcmp(name, "dia") == 0) { /* 8 ndiag m + 4 ndiag, ndiag the distinct column - row */
        if (m == 0 || n == 0 || nnz == 0) return 0;
        char *seen = calloc((size_t)(m + n), 1);
        long long ndiag = 0;
        for (int i = 0; i < A->nrows; i++)
            for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                const long long o = A->colind[k] - i + m - 1;
                ndiag += !seen[o];
                seen[o] = 1;
            }
        free(seen);
        return 8 * ndiag * m + 4 * ndiag;
    }
    return -1;
}

/* stats()'s bytes against the stated formula, for each format that has one */
static void storage_check(const struct spk_spmv_ops *ops, spk_exec *ex, const spk_csr *A, const char *what)
{
    const long long want = storage_formula(ops->name, A);
    if (want < 0) return;
    void *impl = NULL;
    spk_spmv_opts o;
    memset(&o, 0, sizeof o);
    if (ops->create(ex, A, &o, &impl) != SPK_OK) return; /* a refusal: spmv_compare checks it */
    spk_spmv_stats st;
    ops->stats(impl, &st);
    CHECK((long long)st.bytes == want, "%s on %s: stats %zu bytes, the formula %lld", ops->name, what, st.bytes,
          want);
    ops->destroy(impl);
}

/* bcsr and cusparse-bsr with b = 1, 2, 3, 4, 7, 32 on A, whose sizes are
 * not multiples of most of them (partial last block row and column):
 * against the CSR product for several alpha and beta (beta = 0 with NaN in
 * y), then after new values (doubled), and stats' bytes against the formula. */
static void block_sizes_check(const struct spk_spmv_ops *ops, spk_exec *ex, const spk_csr *A, const char *what)
{
    static const int bs[] = {1, 2, 3, 4, 7, 32};
    static const double ab[][2] = {{1, 0}, {-2.5, 0}, {1, 1}, {0.5, -3}, {2, 0}};
    const int m = A->nrows, n = A->ncols;
    double *x = malloc(((size_t)n + 1) * sizeof(double)), *y = malloc(((size_t)m + 1) * sizeof(double));
    double *ref = malloc(((size_t)m + 1) * sizeof(double));
    for (int j = 0; j < n; j++) x[j] = rnd() - 0.5;
    double *dx = to_dev(ex, x, n);
    CHECK(dx != NULL, "upload x: %s", ex->err->msg);
    spk_csr B = {0};
    spk_err e2;
    for (int q = 0; q < 6 && dx; q++) {
        spk_spmv_opts o;
        memset(&o, 0, sizeof o);
        o.bcsr_block = bs[q];
        void *impl = NULL;
        int st = ops->create(ex, A, &o, &impl);
        CHECK(st == SPK_OK, "%s b=%d on %s: create failed: %s", ops->name, bs[q], what, ex->err->msg);
        if (st) continue;
        spk_spmv_stats ss;
        ops->stats(impl, &ss);
        const long long want = block_formula(ops->name, A, bs[q]);
        CHECK((long long)ss.bytes == want, "%s b=%d on %s: stats %zu bytes, the formula %lld", ops->name, bs[q],
              what, ss.bytes, want);
        CHECK_OK(spk_csr_copy(A, &B, &e2), e2.msg);
        for (int t = 0; t < 5; t++) {
            const double alpha = ab[t][0], beta = ab[t][1];
            if (t == 4) { /* new values, same pattern */
                for (int k = 0; k < B.nnz; k++) B.val[k] *= 2;
                CHECK_OK(ops->update(impl, &B), ex->err->msg);
            }
            for (int i = 0; i < m; i++) y[i] = beta == 0 ? NAN : rnd();
            for (int i = 0; i < m; i++) ref[i] = beta == 0 ? 0 : y[i];
            spk_csr_spmv(&B, alpha, x, beta, ref);
            double scale = 0;
            for (int i = 0; i < m; i++) {
                double s = 0;
                for (int k = B.rowptr[i]; k < B.rowptr[i + 1]; k++) s += fabs(B.val[k] * x[B.colind[k]]);
                scale = fmax(scale, fabs(alpha) * s + (beta == 0 ? 0 : fabs(beta * y[i])));
            }
            double *dy = to_dev(ex, y, m);
            CHECK_OK(ops->apply(impl, alpha, dx, beta, dy), ex->err->msg);
            for (int i = 0; i < m; i++) y[i] = NAN;
            CHECK_OK(from_dev(ex, y, dy, m), ex->err->msg);
            if (dy) ex->ops->free(ex, dy);
            double err = 0;
            for (int i = 0; i < m; i++) err = fmax(err, isfinite(y[i]) ? fabs(y[i] - ref[i]) : INFINITY);
            CHECK(err <= 1e-12 * scale, "%s b=%d on %s: alpha %g beta %g%s: error %g, bound scale %g", ops->name,
                  bs[q], what, alpha, beta, t == 4 ? " (new values)" : "", err, scale);
        }
        spk_csr_free(&B);
        ops->destroy(impl);
    }
    if (dx) ex->ops->free(ex, dx);
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
    CHECK(ops && strcmp(ops->name, TEST_AUTO_FORMAT) == 0, "auto on %s is %s", TEST_DEVICE_NAME,
          ops ? ops->name : "?");
    /* a backend of another device is refused with a message */
    int st0 = spk_spmv_find(strcmp(TEST_FORMAT, "csr") == 0 ? "cusparse" : "csr", ex, &ops, &err);
    CHECK(st0 == SPK_ERR_NOT_FOUND, "backend of another device accepted: %d", st0);
    CHECK_OK(spk_spmv_find(NULL, ex, &ops, &err), err.msg);
    CHECK(ops && strcmp(ops->name, TEST_DEFAULT_FORMAT) == 0, "default on %s is %s", TEST_DEVICE_NAME,
          ops ? ops->name : "?");
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
    /* the data/ matrices */
    static const char *const files[] = {"nos3.mtx.gz", "plat362.mtx.gz", "bcsstk21.mtx.gz",
                                        "sherman3.mtx.gz", "orsirr_1.mtx.gz", "west0479.mtx.gz"};
    spk_csr data[6];
    memset(data, 0, sizeof data);
    for (int f = 0; f < 6; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", SPK_TEST_DATA, files[f]);
        CHECK_OK(spk_mm_read_csr(path, &data[f], NULL, &err), err.msg);
    }
    /* one dense row in 20000: ELL must refuse (padding bound), the others cope */
    spk_csr dense_row = {0};
    random_matrix(20000, 20000, 777, 3, &dense_row);
    /* entries in the last 5 of 40 rows only: HYB's ELL part has width 0 and
     * the first rows are empty (a halo block looks like this) */
    spk_csr few = {0};
    CHECK_OK(spk_csr_alloc(&few, 40, 40, 10, &err), err.msg);
    for (int i = 0, q = 0; i < 40; i++) {
        if (i >= 35) {
            few.colind[q] = i - 35;
            few.val[q++] = 1.0 + i;
            few.colind[q] = i;
            few.val[q++] = -2.0;
        }
        few.rowptr[i + 1] = q;
    }
    /* block sizes: sizes that are not multiples of b, rows shorter than a block */
    spk_csr blk[4];
    const char *blk_names[4] = {"random 37x53", "53x37 with a dense row", "5x70", "poisson3d-7:5"};
    memset(blk, 0, sizeof blk);
    random_matrix(37, 53, -1, 9, &blk[0]);
    random_matrix(53, 37, 11, 6, &blk[1]);
    random_matrix(5, 70, -1, 30, &blk[2]);
    CHECK_OK(spk_gen_poisson3d7(5, &blk[3], &err), err.msg);
    int formats = 0;
    for (const struct spk_spmv_ops *const *p = spk_spmv_list(); *p; p++) {
        if (strcmp((*p)->exec, ex->ops->name) != 0) continue;
        formats++;
        if (strcmp((*p)->name, "bcsr") == 0 || strcmp((*p)->name, "cusparse-bsr") == 0)
            for (int c = 0; c < 4; c++) block_sizes_check(*p, ex, &blk[c], blk_names[c]);
        for (int c = 0; c < 8; c++) {
            spmv_compare(*p, ex, &cases[c], names[c], 1);
            storage_check(*p, ex, &cases[c], names[c]);
        }
        spmv_compare(*p, ex, &few, "40x40, entries in 5 rows", 1);
        spk_csr empty = {0};
        CHECK_OK(spk_csr_alloc(&empty, 0, 0, 0, &err), err.msg);
        spmv_compare(*p, ex, &empty, "0x0", 1);
        spk_csr_free(&empty);
        for (int f = 0; f < 6; f++) {
            spmv_compare(*p, ex, &data[f], files[f], 1);
            storage_check(*p, ex, &data[f], files[f]);
        }
        /* ELL pads every row to the dense one, DIA stores the dense row's 20,000 diagonals in full */
        int refused = spmv_compare(*p, ex, &dense_row, "20000 rows, one dense", 0) == SPK_ERR_UNSUPPORTED;
        const int padded = strcmp((*p)->name, "ell") == 0 || strcmp((*p)->name, "dia") == 0;
        CHECK(refused == padded, "%s: %s the dense-row matrix (%s)", (*p)->name, refused ? "refused" : "accepted",
              ex->err->msg);
        if (refused)
            CHECK(check_contains(ex->err->msg, "refused") && check_contains(ex->err->msg, (*p)->name),
                  "refusal message: %s", ex->err->msg);
    }
    CHECK(formats >= 8, "only %d formats on %s", formats, ex->ops->name);
    for (int c = 0; c < 8; c++) spk_csr_free(&cases[c]);
    for (int f = 0; f < 6; f++) spk_csr_free(&data[f]);
    for (int c = 0; c < 4; c++) spk_csr_free(&blk[c]);
    spk_csr_free(&dense_row);
    spk_csr_free(&few);
    spk_exec_destroy(ex);
    return check_exit();
}
