/* test_spmv.c -- the SpMV registry and every backend of the device under
 * test (the host, or CUDA when compiled with SPK_TEST_CUDA) against the host
 * reference product, on edge cases (empty rows, a dense row, 1x1, 0x0,
 * rectangular, long rows, rows of 10^5 entries among rows of one) and on
 * the generated problems. */
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

/* n x n: the diagonal, and rows 0, n/2 and n - 1 full (n entries next to rows of one) */
static void full_rows_matrix(int n, spk_csr *A)
{
    spk_err e;
    spk_err_clear(&e);
    CHECK_OK(spk_csr_alloc(A, n, n, n - 3 + 3 * n, &e), e.msg);
    if (e.code) return;
    for (int i = 0, q = 0; i < n; i++) {
        const int full = i == 0 || i == n / 2 || i == n - 1;
        for (int j = full ? 0 : i; j <= (full ? n - 1 : i); j++) {
            A->colind[q] = j;
            A->val[q++] = j == i ? 4.0 + rnd() : rnd() - 0.5;
        }
        A->rowptr[i + 1] = q;
    }
}

static int desc_int(const void *a, const void *b)
{
    const int x = *(const int *)a, y = *(const int *)b;
    return x > y ? -1 : x < y;
}

/* pbc's stored entries X and blocks P (pbc.h): lengths sorted decreasing, cut greedily at each
 * target T (a block's entries at most T), the T of least relative spread of the blocks' entries;
 * each block stores its first (longest) row's length times its rows */
static void pbc_plan(const spk_csr *A, long long *X, long long *P)
{
    const int m = A->nrows, targets[] = {256, 512, 1024, 2048, 4096, 8192};
    int *len = malloc(((size_t)m + 1) * sizeof(int));
    for (int i = 0; i < m; i++) len[i] = A->rowptr[i + 1] - A->rowptr[i];
    qsort(len, (size_t)m, sizeof(int), desc_int);
    double best = INFINITY;
    *X = *P = 0;
    for (int c = 0; c < 6; c++) {
        long long blocks = 0, total = 0, x = 0, rows = 0, w = 0;
        double sum = 0, sq = 0;
        for (int p = 0; p <= m; p++) {
            if (p == m || p == 0 || total + len[p] > targets[c]) {
                if (p > 0) { /* close the block */
                    sum += (double)total;
                    sq += (double)total * (double)total;
                    x += w * rows;
                }
                if (p == m) break;
                blocks++;
                total = rows = 0;
                w = len[p];
            }
            total += len[p];
            rows++;
        }
        if (blocks == 0) break;
        const double mean = sum / blocks, var = sq / blocks - mean * mean;
        const double rel = mean > 0 ? sqrt(var > 0 ? var : 0) / mean : 0;
        if (rel < best) {
            best = rel;
            *X = x;
            *P = blocks;
        }
    }
    free(len);
}

/* The entries a sliced ELL of A stores (sell.h, cusparse_sell.c): the row
 * lengths sorted downwards inside windows of sigma rows (1: unsorted), cut
 * into slices of c, each slice c times its longest row. */
static long long sell_padded(const spk_csr *A, int c, int sigma)
{
    const int m = A->nrows;
    int *len = malloc(((size_t)m + 1) * sizeof(int));
    for (int i = 0; i < m; i++) len[i] = A->rowptr[i + 1] - A->rowptr[i];
    if (sigma > 1)
        for (int w = 0; w < m; w += sigma)
            qsort(len + w, (size_t)(m - w < sigma ? m - w : sigma), sizeof(int), desc_int);
    long long padded = 0;
    for (int s = 0; s * c < m; s++) {
        int width = 0;
        for (int p = s * c; p < (s + 1) * c && p < m; p++) width = len[p] > width ? len[p] : width;
        padded += (long long)c * width;
    }
    free(len);
    return padded;
}

/* sell.h's and cusparse_sell.c's formulas for slice size c and window sigma */
static long long sell_bytes(const char *name, const spk_csr *A, int c, int sigma)
{
    const long long m = A->nrows, nslices = (m + c - 1) / c;
    if (strcmp(name, "sell") == 0) return 4 * (nslices + 1) + 12 * sell_padded(A, c, sigma) + 4 * m;
    return 4 * (nslices + 1) + 12 * sell_padded(A, c, 1); /* cusparse-sell: no sorting */
}

/* The storage of bcsr (bcsr.h), sbcsr (scsr.h) and cusparse-bsr (cusparse_bsr.c) with b x b
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

/* The storage cost formula a format's documentation states (the formats' headers),
 * computed here from A alone; -1 for a format without one here. */
static long long storage_formula(const char *name, const spk_csr *A)
{
    const long long m = A->nrows, n = A->ncols, nnz = A->nnz;
    if (strcmp(name, "sell") == 0 || strcmp(name, "cusparse-sell") == 0) return sell_bytes(name, A, 32, 256);
    if (strcmp(name, "bcsr") == 0 || strcmp(name, "cusparse-bsr") == 0) return block_formula(name, A, 4);
    if (strcmp(name, "csc") == 0) return 4 * (n + 1) + 12 * nnz;
    if (strcmp(name, "cmrs") == 0) return 13 * nnz + 4 * ((m + 7) / 8 + 1);
    if (strcmp(name, "mqt") == 0) { /* 4 ceil(bits / 32) + 8 nnz + 16 Nsub: bits 4 per node with entries
                                     * larger than a cell, Nsub the nonempty subtrees of side min(2^K, 32) */
        long long side = 1, internal = 0, nsub = 0;
        while (side < m || side < n) side *= 2;
        const long long sub = side < 32 ? side : 32;
        for (long long sz = side; sz >= 1 && nnz > 0; sz /= 2) {
            const long long nr = (m + sz - 1) / sz, nc = (n + sz - 1) / sz;
            long long distinct = 0;
            char *seen = calloc((size_t)(nr * nc), 1);
            for (int i = 0; i < A->nrows; i++)
                for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                    const long long cell = (i / sz) * nc + A->colind[k] / sz;
                    distinct += !seen[cell];
                    seen[cell] = 1;
                }
            free(seen);
            if (sz > 1) internal += distinct;
            if (sz == sub) nsub = distinct;
        }
        return 4 * ((4 * internal + 31) / 32) + 8 * nnz + 16 * nsub;
    }
    if (strcmp(name, "qcsr") == 0) { /* 9 nnz + (2 (D + 1) + 8) Nq + 4 (nbands + 2), Nq the nonempty 64 x 64 tiles */
        const int D = 64, nbc = (n + D - 1) / D;
        long long nq = 0;
        char *seen = calloc((size_t)nbc + 1, 1);
        for (int band = 0; band * D < A->nrows; band++) {
            memset(seen, 0, (size_t)nbc + 1);
            for (int i = band * D; i < A->nrows && i < band * D + D; i++)
                for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
                    if (!seen[A->colind[k] / D]) {
                        seen[A->colind[k] / D] = 1;
                        nq++;
                    }
        }
        free(seen);
        return 9 * nnz + (2 * (D + 1) + 8) * nq + 4 * ((m + D - 1) / D + 2);
    }
    if (strcmp(name, "scsr") == 0) { /* 12 S L + 4 (nbr + 1), L the sum of the block rows' longest rows */
        long long L = 0;
        for (int q = 0; q * 32 < A->nrows; q++) {
            int w = 0;
            for (int i = q * 32; i < A->nrows && i < q * 32 + 32; i++)
                if (A->rowptr[i + 1] - A->rowptr[i] > w) w = A->rowptr[i + 1] - A->rowptr[i];
            L += w;
        }
        return 12 * 32 * L + 4 * ((m + 31) / 32 + 1);
    }
    if (strcmp(name, "sbcsr") == 0) return block_formula(name, A, 4); /* bcsr's blocks, dealt to streams */
    if (strcmp(name, "pbc") == 0) { /* 12 X + 4 m + 4 P + 8 (P + 1) */
        long long X, P;
        pbc_plan(A, &X, &P);
        return 12 * X + 4 * m + 4 * P + 8 * (P + 1);
    }
    if (strcmp(name, "amf-csr") == 0) {
        /* 12 nnz + 4 (m + 1) + 4 (nrb + 1) + 4 (nsb + 1): rows join a row block while its entries
         * stay below 64, row blocks join a sub-block while its entries stay below 1024 */
        long long nrb = 0, nsb = 0, rb = 0, sb = 0;
        long long *sizes = malloc(((size_t)A->nrows + 1) * sizeof(long long));
        for (int i = 0; i < A->nrows; i++) {
            const long long len = A->rowptr[i + 1] - A->rowptr[i];
            if (i == 0 || rb + len >= 64) {
                if (i > 0) sizes[nrb - 1] = rb;
                nrb++;
                rb = 0;
            }
            rb += len;
        }
        if (nrb > 0) sizes[nrb - 1] = rb;
        for (long long b = 0; b < nrb; b++) {
            if (b == 0 || sb + sizes[b] >= 1024) {
                nsb++;
                sb = 0;
            }
            sb += sizes[b];
        }
        free(sizes);
        return 12 * nnz + 4 * (m + 1) + 4 * (nrb + 1) + 4 * (nsb + 1);
    }
    if (strcmp(name, "rgcsr") == 0) { /* 12 X + 4 m + 4 (Ng + 1), X = sum of 32 x each group's longest row */
        long long x = 0;
        for (int q = 0; q * 32 < A->nrows; q++) {
            int w = 0;
            for (int i = q * 32; i < A->nrows && i < q * 32 + 32; i++)
                if (A->rowptr[i + 1] - A->rowptr[i] > w) w = A->rowptr[i + 1] - A->rowptr[i];
            x += 32LL * w;
        }
        return 12 * x + 4 * m + 4 * ((m + 31) / 32 + 1);
    }
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
    if (strcmp(name, "csr5") == 0) { /* 12 nnz + 4 (m + 1) + 128 T + 16 (T + 1) + 4 nempty */
        long long sigma = m > 0 ? (nnz + m - 1) / m : 4;
        sigma = sigma < 4 ? 4 : sigma > 16 ? 16 : sigma;
        const long long W = 32 * sigma, T = nnz / W;
        long long nempty = 0;
        for (long long t = 0, r = 0; t < T; t++) {
            /* the rows of entries tW and (t + 1)W (m past the entries); the segments:
             * the tile's first, then each nonempty row starting inside the tile */
            while (A->rowptr[r + 1] <= t * W) r++;
            long long next = r, nseg = 1, empty = 0;
            if ((t + 1) * W >= nnz)
                next = m;
            else
                while (A->rowptr[next + 1] <= (t + 1) * W) next++;
            for (long long q = r + 1; q < m && A->rowptr[q] < (t + 1) * W; q++) nseg += A->rowptr[q + 1] > A->rowptr[q];
            for (long long q = r + 1; q < next; q++) empty |= A->rowptr[q] == A->rowptr[q + 1];
            if (empty) nempty += nseg;
        }
        return 12 * nnz + 4 * (m + 1) + 128 * T + 16 * (T + 1) + 4 * nempty;
    }
    if (strcmp(name, "merge") == 0) { /* CSR + 8 (nseg + 1) coordinates + 8 nseg carries, segments of 7 items */
        const long long nseg = (m + nnz + 6) / 7;
        return 4 * (m + 1) + 12 * nnz + 8 * (nseg + 1) + 8 * nseg;
    }
    if (strcmp(name, "csr-adaptive") == 0) { /* CSR + 4 (nblocks + 1): blocks of <= 1024 nonzeros and rows */
        long long nblocks = 0;
        for (int i = 0; i < A->nrows; nblocks++) {
            const int first = i;
            if (A->rowptr[i + 1] - A->rowptr[i] > 1024) i++; /* a long row alone */
            else
                while (i < A->nrows && i - first < 1024 && A->rowptr[i + 1] - A->rowptr[first] <= 1024) i++;
        }
        return 4 * (m + 1) + 12 * nnz + 4 * (nblocks + 1);
    }
    return -1;
}

/* SELL's options: slice sizes 8, 32 and 64, windows 1 (no sorting), C and
 * 4C, on a matrix whose row lengths differ widely (empty rows, short rows,
 * a few rows of 350), each product against the CSR one (beta 0 with NaN in
 * y, and beta != 0), again after new values, and stats' bytes against the
 * formula.  cusparse-sell takes the slice size only. */
static void sell_options_check(const struct spk_spmv_ops *ops, spk_exec *ex)
{
    const int m = 500, n = 400;
    spk_err e2;
    int *r = malloc((size_t)m * 351 * sizeof(int)), *c = malloc((size_t)m * 351 * sizeof(int));
    double *v = malloc((size_t)m * 351 * sizeof(double));
    size_t k = 0;
    for (int i = 0; i < m; i++) {
        const int len = i % 97 == 5 ? 350 : i % 5 == 0 ? 0 : (i * 13) % 23 + 1;
        for (int q = 0; q < len; q++, k++) { /* distinct columns: 3 is prime to 400 */
            r[k] = i;
            c[k] = (i * 7 + q * 3) % n;
            v[k] = rnd() - 0.5;
        }
    }
    spk_csr A = {0};
    CHECK_OK(spk_csr_from_coo(m, n, k, r, c, v, &A, &e2), e2.msg);
    free(r);
    free(c);
    free(v);
    CHECK(sell_padded(&A, 8, 32) < sell_padded(&A, 8, 1), "sorting does not reduce the padding");
    const int cs[3] = {8, 32, 64};
    const int sorting = strcmp(ops->name, "sell") == 0;
    for (int ci = 0; ci < 3; ci++)
        for (int si = 0; si < (sorting ? 3 : 1); si++) {
            spk_spmv_opts o;
            memset(&o, 0, sizeof o);
            o.sell_c = cs[ci];
            o.sell_sigma = si == 0 ? 1 : si == 1 ? cs[ci] : 4 * cs[ci];
            char what[64];
            snprintf(what, sizeof what, "C %d sigma %d", o.sell_c, o.sell_sigma);
            spmv_compare_opts(ops, ex, &A, what, 1, &o, sell_bytes(ops->name, &A, o.sell_c, o.sell_sigma), NULL);
        }
    spk_csr_free(&A);
}

/* bcsr, sbcsr and cusparse-bsr with b = 1, 2, 3, 4, 7, 8, 32 on A, whose sizes are
 * not multiples of most of them (partial last block row and column):
 * against the CSR product for several alpha and beta (beta = 0 with NaN in
 * y), then after new values (doubled), and stats' bytes against the formula;
 * the same in single precision. */
static void block_sizes_check(const struct spk_spmv_ops *ops, spk_exec *ex, const spk_csr *A, const char *what)
{
    static const int bs[] = {1, 2, 3, 4, 7, 8, 32}; /* 2, 4 and 8: bcsr's compiled-in sizes */
    for (size_t q = 0; q < sizeof bs / sizeof bs[0]; q++) {
        spk_spmv_opts o;
        memset(&o, 0, sizeof o);
        o.bcsr_block = bs[q];
        char where[128];
        snprintf(where, sizeof where, "%s, b = %d", what, bs[q]);
        const long long bytes = block_formula(ops->name, A, bs[q]);
        spmv_compare_opts(ops, ex, A, where, 1, &o, bytes, NULL);
        spmv_compare_float(ops, ex, A, where, 1, &o, bytes, NULL);
    }
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
    /* rows of 10^5 entries among rows of one: the diagonal, and rows 0, n/2 and n-1 full */
    spk_csr long_rows = {0};
    full_rows_matrix(100000, &long_rows);
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
        if (strcmp((*p)->name, "bcsr") == 0 || strcmp((*p)->name, "cusparse-bsr") == 0 ||
            strcmp((*p)->name, "sbcsr") == 0)
            for (int c = 0; c < 4; c++) block_sizes_check(*p, ex, &blk[c], blk_names[c]);
        for (int c = 0; c < 8; c++) {
            const long long bytes = storage_formula((*p)->name, &cases[c]);
            spmv_compare_opts(*p, ex, &cases[c], names[c], 1, NULL, bytes, NULL);
            spmv_compare_float(*p, ex, &cases[c], names[c], 1, NULL, bytes, NULL);
        }
        spmv_compare(*p, ex, &few, "40x40, entries in 5 rows", 1);
        spmv_compare_float(*p, ex, &few, "40x40, entries in 5 rows", 1, NULL, -1, NULL);
        if (strcmp((*p)->name, "sell") == 0 || strcmp((*p)->name, "cusparse-sell") == 0) sell_options_check(*p, ex);
        spk_csr empty = {0};
        CHECK_OK(spk_csr_alloc(&empty, 0, 0, 0, &err), err.msg);
        spmv_compare(*p, ex, &empty, "0x0", 1);
        spmv_compare_float(*p, ex, &empty, "0x0", 1, NULL, -1, NULL);
        spk_csr_free(&empty);
        /* rows and columns but no entries: y = beta y (beta = 0: zeros over the NaN in y) */
        spk_csr none = {0};
        CHECK_OK(spk_csr_alloc(&none, 37, 21, 0, &err), err.msg);
        spmv_compare(*p, ex, &none, "37x21 without entries", 1);
        spmv_compare_float(*p, ex, &none, "37x21 without entries", 1, NULL, -1, NULL);
        spk_csr_free(&none);
        for (int f = 0; f < 6; f++) {
            const long long bytes = storage_formula((*p)->name, &data[f]);
            spmv_compare_opts(*p, ex, &data[f], files[f], 1, NULL, bytes, NULL);
            spmv_compare_float(*p, ex, &data[f], files[f], 1, NULL, bytes, NULL);
        }
        /* ELL pads every row to the dense one, DIA stores the dense row's diagonals in full; with
         * rows of 10^5 the formats that pad groups of rows to their longest refuse too, saying so,
         * and every other format multiplies */
        const int padded = strcmp((*p)->name, "ell") == 0 || strcmp((*p)->name, "dia") == 0;
        const spk_csr *dense[2] = {&dense_row, &long_rows};
        const char *dense_names[2] = {"20000 rows, one dense", "100000 rows of one entry, three of 100000"};
        for (int d = 0; d < 2; d++) {
            const int refused = spmv_compare(*p, ex, dense[d], dense_names[d], 0) == SPK_ERR_UNSUPPORTED;
            if (d == 0 || padded)
                CHECK(refused == padded, "%s: %s %s (%s)", (*p)->name, refused ? "refused" : "accepted",
                      dense_names[d], ex->err->msg);
            if (refused)
                CHECK(check_contains(ex->err->msg, "refused") && check_contains(ex->err->msg, (*p)->name) &&
                          check_contains(ex->err->msg, "padding included"),
                      "refusal message: %s", ex->err->msg);
        }
    }
    CHECK(formats >= 8, "only %d formats on %s", formats, ex->ops->name);
    for (int c = 0; c < 8; c++) spk_csr_free(&cases[c]);
    for (int f = 0; f < 6; f++) spk_csr_free(&data[f]);
    for (int c = 0; c < 4; c++) spk_csr_free(&blk[c]);
    spk_csr_free(&dense_row);
    spk_csr_free(&long_rows);
    spk_csr_free(&few);
    spk_exec_destroy(ex);
    return check_exit();
}
