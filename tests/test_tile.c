/* test_tile.c -- TileSpMV: a matrix built so that each of its tiles must take
 * one of the seven formats; the round trip of every tile format (decoding
 * the tiles, and the deferred matrix, gives back A) on that matrix, the data/
 * matrices, generated problems and edge shapes; the rules of the adaptive
 * choice (thresholds, the deferral switch of "tile"); and the three backends
 * against CSR on the device under test, including a tile row split over
 * several warps.  (test_spmv and test_spmv_shared also run every backend.) */
#include <stdint.h>

#include "device.h"
#include "io/gen.h"
#include "io/mmio.h"
#include "spmv/tile.h"
#include "spmv_compare.h"

static uint64_t rng = 5;
static double rnd(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* Nonzero values (so that decoding cannot confuse entries with padding). */
static double nzval(void)
{
    return 0.25 + rnd();
}

typedef struct coo_list {
    int n, cap;
    int *r, *c;
    double *v;
} coo_list;

static void add(coo_list *L, int r, int c)
{
    if (L->n == L->cap) {
        L->cap = L->cap ? 2 * L->cap : 256;
        L->r = realloc(L->r, (size_t)L->cap * sizeof(int));
        L->c = realloc(L->c, (size_t)L->cap * sizeof(int));
        L->v = realloc(L->v, (size_t)L->cap * sizeof(double));
    }
    L->r[L->n] = r, L->c[L->n] = c, L->v[L->n++] = nzval();
}

/* 16 x (16*8 + 5): tile t of tile row 0 is built to be format `want[t]`;
 * the last tile column is 5 wide (an edge tile, DnsCol of height 16). */
static const int want[9] = {SPK_TILE_COO, SPK_TILE_DNS, SPK_TILE_DNSROW, SPK_TILE_DNSCOL, SPK_TILE_ELL,
                            SPK_TILE_HYB, SPK_TILE_CSR, SPK_TILE_DNS, SPK_TILE_DNSCOL};
static void forced(spk_csr *A)
{
    coo_list L = {0};
    int c0;
    /* COO: 5 entries, uneven rows */
    add(&L, 0, 0), add(&L, 0, 9), add(&L, 1, 3), add(&L, 3, 3), add(&L, 9, 15);
    c0 = 16; /* Dns: 12 of 16 in every row and column */
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 16; c++)
            if ((r + c) % 4 != 0) add(&L, r, c0 + c);
    c0 = 32; /* DnsRow: rows 2, 5, 11 full */
    for (int r = 0; r < 16; r++)
        if (r == 2 || r == 5 || r == 11)
            for (int c = 0; c < 16; c++) add(&L, r, c0 + c);
    c0 = 48; /* DnsCol: columns 1 and 7 full */
    for (int r = 0; r < 16; r++) add(&L, r, c0 + 1), add(&L, r, c0 + 7);
    c0 = 64; /* ELL: 3 per row */
    for (int r = 0; r < 16; r++) add(&L, r, c0 + r), add(&L, r, c0 + (r + 1) % 16), add(&L, r, c0 + (r + 5) % 16);
    c0 = 80; /* HYB: row 0 full but the others 1 (variation 1.87) */
    for (int c = 0; c < 16; c++) add(&L, 0, c0 + c);
    for (int r = 1; r < 16; r++) add(&L, r, c0 + r);
    c0 = 96; /* CSR: rows of 2 and 4 (variation 1/3) */
    for (int r = 0; r < 16; r++)
        for (int q = 0; q < (r % 2 ? 4 : 2); q++) add(&L, r, c0 + (r + 3 * q) % 16);
    c0 = 112; /* Dns: every position */
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 16; c++) add(&L, r, c0 + c);
    c0 = 128; /* edge tile 16 x 5: columns 0 and 3 full */
    for (int r = 0; r < 16; r++) add(&L, r, c0), add(&L, r, c0 + 3);
    spk_err e;
    CHECK_OK(spk_csr_from_coo(16, 133, (size_t)L.n, L.r, L.c, L.v, A, &e), e.msg);
    free(L.r);
    free(L.c);
    free(L.v);
}

static int same_csr(const spk_csr *A, const spk_csr *B)
{
    if (A->nrows != B->nrows || A->ncols != B->ncols || A->nnz != B->nnz) return 0;
    for (int i = 0; i <= A->nrows; i++)
        if (A->rowptr[i] != B->rowptr[i]) return 0;
    for (int k = 0; k < A->nnz; k++)
        if (A->colind[k] != B->colind[k] || A->val[k] != B->val[k]) return 0;
    return 1;
}

/* Build with p, decode, compare with A (whose values are nonzero). */
static void round_trip(const spk_csr *A, const spk_tile_params *p, const char *what)
{
    spk_err e;
    spk_fmt_tile T;
    spk_csr D = {0}, B = {0};
    CHECK_OK(spk_tile_build(A, p, &T, &D, &e), e.msg);
    long long nnz = 0;
    for (int k = 0; k < SPK_TILE_NKINDS; k++) nnz += T.stats.nnz[k];
    CHECK(nnz == A->nnz, "%s: %lld nonzeros counted in tiles, %d in A", what, nnz, A->nnz);
    CHECK(D.nnz == T.stats.deferred, "%s: deferred %d vs %lld", what, D.nnz, T.stats.deferred);
    if (!p->defer) CHECK(D.nnz == 0 && T.stats.deferred == 0, "%s: deferral without defer", what);
    /* every stored tile holds something; tiles are sorted by column */
    for (int tr = 0; tr < T.tm; tr++)
        for (int t = T.tile_ptr[tr]; t < T.tile_ptr[tr + 1]; t++) {
            CHECK(T.val_off[t + 1] > T.val_off[t], "%s: empty tile %d", what, t);
            CHECK(t == T.tile_ptr[tr] || T.tile_col[t] > T.tile_col[t - 1], "%s: tile order", what);
            if (!p->adaptive) CHECK(T.kind[t] == SPK_TILE_CSR, "%s: tile-csr made a %s tile", what,
                                    spk_tile_kind_names[T.kind[t]]);
            if (p->defer) CHECK(T.kind[t] != SPK_TILE_COO, "%s: a COO tile kept with deferral", what);
        }
    /* work units: every tile once, at most SPK_TILE_BALANCE per unit, split rows listed */
    int covered = 0, split = 0;
    for (int u = 0; u < T.nunits; u++) {
        const int *U = T.unit + (size_t)u * SPK_TILE_UNIT;
        int tr = U[0], t0 = U[1], t1 = T.tile_ptr[tr + 1], nt = t1 - t0 < SPK_TILE_BALANCE ? t1 - t0 : SPK_TILE_BALANCE;
        covered += nt;
        CHECK(U[2] == nt && U[3] == (T.tile_ptr[tr + 1] - T.tile_ptr[tr] > SPK_TILE_BALANCE), "%s: unit %d", what, u);
        CHECK(U[4] == T.val_off[t0] && U[5] == T.val_off[t0 + nt] - T.val_off[t0] && U[6] == T.idx_off[t0] &&
                  U[7] == T.idx_off[t0 + nt] - T.idx_off[t0],
              "%s: unit %d ranges", what, u);
    }
    for (int tr = 0; tr < T.tm; tr++) split += T.tile_ptr[tr + 1] - T.tile_ptr[tr] > SPK_TILE_BALANCE;
    CHECK(covered == T.ntiles && split == T.nsplit, "%s: units cover %d of %d tiles, %d of %d split rows",
          what, covered, T.ntiles, T.nsplit, split);
    CHECK_OK(spk_tile_expand(&T, &D, &B, &e), e.msg);
    CHECK(same_csr(A, &B), "%s (%s%s): decoding does not give A back (%d vs %d entries)", what,
          p->adaptive ? "adaptive" : "all CSR", p->defer ? ", deferred" : "", B.nnz, A->nnz);
    /* the host reference product against CSR */
    double *x = malloc(((size_t)A->ncols + 1) * sizeof(double)), *y = malloc(((size_t)A->nrows + 1) * sizeof(double));
    double *z = malloc(((size_t)A->nrows + 1) * sizeof(double));
    for (int j = 0; j < A->ncols; j++) x[j] = rnd() - 0.5;
    for (int i = 0; i < A->nrows; i++) y[i] = z[i] = rnd();
    spk_tile_ref(&T, 1.5, x, -0.5, y);
    if (D.nnz) spk_csr_spmv(&D, 1.5, x, 1.0, y);
    spk_csr_spmv(A, 1.5, x, -0.5, z);
    double err = 0, scale = 0;
    for (int i = 0; i < A->nrows; i++) err = fmax(err, fabs(y[i] - z[i])), scale = fmax(scale, fabs(z[i]));
    CHECK(err <= 1e-13 * (scale + 1), "%s: host tile product off by %g", what, err);
    free(x);
    free(y);
    free(z);
    spk_csr_free(&B);
    spk_csr_free(&D);
    spk_tile_free(&T);
}

static void nonzero_values(spk_csr *A)
{
    for (int k = 0; k < A->nnz; k++)
        if (A->val[k] == 0.0) A->val[k] = 1.0;
}

static void random_matrix(int m, int n, double density, spk_csr *A)
{
    coo_list L = {0};
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            if (rnd() < density) add(&L, i, j);
    spk_err e;
    CHECK_OK(spk_csr_from_coo(m, n, (size_t)L.n, L.r, L.c, L.v, A, &e), e.msg);
    free(L.r);
    free(L.c);
    free(L.v);
}

static const spk_tile_params P_CSR = {0, 0, SPK_TILE_TE, SPK_TILE_TH};
static const spk_tile_params P_ADPT = {1, 0, SPK_TILE_TE, SPK_TILE_TH};
static const spk_tile_params P_DCOO = {1, 1, SPK_TILE_TE, SPK_TILE_TH};

static void check_forced(void)
{
    spk_csr A = {0};
    forced(&A);
    spk_err e;
    spk_fmt_tile T;
    spk_csr D = {0};
    CHECK_OK(spk_tile_build(&A, &P_ADPT, &T, &D, &e), e.msg);
    CHECK(T.ntiles == 9 && T.nunits == 2 && T.nsplit == 1, "%d tiles, %d units, %d split", T.ntiles,
          T.nunits, T.nsplit);
    for (int t = 0; t < 9 && t < T.ntiles; t++)
        CHECK(T.kind[t] == want[t], "tile %d is %s, expected %s", t, spk_tile_kind_names[T.kind[t]],
              spk_tile_kind_names[want[t]]);
    CHECK(T.width[4] == 3 && T.width[2] == 3 && T.width[3] == 2 && T.width[8] == 2, "widths %d %d %d %d",
          T.width[4], T.width[2], T.width[3], T.width[8]);
    /* HYB: ELL width 1 (all 16 rows reach it) and 15 COO entries */
    CHECK(T.width[5] == 1 && T.val_off[6] - T.val_off[5] == 16 + 15, "HYB width %d, %d values", T.width[5],
          T.val_off[6] - T.val_off[5]);
    /* CSR tile: 48 values, 16 row offsets + 24 column bytes */
    CHECK(T.val_off[7] - T.val_off[6] == 48 && T.idx_off[7] - T.idx_off[6] == 16 + 24, "CSR tile sizes");
    spk_tile_free(&T);
    /* deferred: the COO tile leaves, HYB keeps its ELL part, D has the 5 + 15 */
    CHECK_OK(spk_tile_build(&A, &P_DCOO, &T, &D, &e), e.msg);
    CHECK(T.ntiles == 8 && D.nnz == 20 && T.stats.dropped_tiles == 1, "deferred: %d tiles, D %d", T.ntiles,
          D.nnz);
    CHECK(T.kind[4] == SPK_TILE_HYB && T.val_off[5] - T.val_off[4] == 16, "deferred HYB keeps %d values",
          T.val_off[5] - T.val_off[4]);
    spk_csr_free(&D);
    spk_tile_free(&T);
    /* the thresholds move tiles: te = 0.5 makes the CSR tile ELL, th = 0.3 makes it HYB */
    spk_tile_params p = P_ADPT;
    p.te = 0.5;
    CHECK_OK(spk_tile_build(&A, &p, &T, &D, &e), e.msg);
    CHECK(T.kind[6] == SPK_TILE_ELL, "te 0.5: tile 6 is %s", spk_tile_kind_names[T.kind[6]]);
    spk_tile_free(&T);
    p = P_ADPT;
    p.th = 0.3;
    CHECK_OK(spk_tile_build(&A, &p, &T, &D, &e), e.msg);
    CHECK(T.kind[6] == SPK_TILE_HYB, "th 0.3: tile 6 is %s", spk_tile_kind_names[T.kind[6]]);
    spk_tile_free(&T);
    round_trip(&A, &P_CSR, "forced formats");
    round_trip(&A, &P_ADPT, "forced formats");
    round_trip(&A, &P_DCOO, "forced formats");
    spk_csr_free(&A);
}

/* spk_tile_params_for: names, defaults, the 1.8M switch of "tile", bad thresholds */
static void check_params(void)
{
    spk_err e;
    spk_csr A = {0};
    A.nrows = A.ncols = 10;
    A.nnz = 2000000;
    spk_spmv_opts o;
    memset(&o, 0, sizeof o);
    spk_tile_params p;
    CHECK_OK(spk_tile_params_for("tile-csr", &o, &A, &p, &e), e.msg);
    CHECK(!p.adaptive && !p.defer, "tile-csr params");
    CHECK_OK(spk_tile_params_for("tile", &o, &A, &p, &e), e.msg);
    CHECK(p.adaptive && p.defer && p.te == 0.2 && p.th == 1.0, "tile above 1.8M: defer %d te %g th %g", p.defer,
          p.te, p.th);
    A.nnz = 1800000;
    CHECK_OK(spk_tile_params_for("tile", &o, &A, &p, &e), e.msg);
    CHECK(p.adaptive && !p.defer, "tile at 1.8M defers");
    o.tile_defer_nnz = 1000;
    CHECK_OK(spk_tile_params_for("tile", &o, &A, &p, &e), e.msg);
    CHECK(p.defer, "tile_defer_nnz 1000 ignored");
    o.tile_defer_nnz = -1;
    A.nnz = 2000000000;
    CHECK_OK(spk_tile_params_for("tile", &o, &A, &p, &e), e.msg);
    CHECK(!p.defer, "tile_defer_nnz -1 still defers");
    CHECK_OK(spk_tile_params_for("tile-dcoo", &o, &A, &p, &e), e.msg);
    CHECK(p.adaptive && p.defer, "tile-dcoo params");
    o.tile_te = 0.4;
    o.tile_th = 2.5;
    CHECK_OK(spk_tile_params_for("tile", &o, &A, &p, &e), e.msg);
    CHECK(p.te == 0.4 && p.th == 2.5, "thresholds not taken: %g %g", p.te, p.th);
    o.tile_te = -1;
    CHECK(spk_tile_params_for("tile", &o, &A, &p, &e) == SPK_ERR_INVALID_ARG && check_contains(e.msg, "te"),
          "negative te: %s", e.msg);
    o.tile_te = 0;
    o.tile_th = NAN;
    CHECK(spk_tile_params_for("tile-dcoo", &o, &A, &p, &e) == SPK_ERR_INVALID_ARG, "NaN th accepted");
}

int main(void)
{
    spk_err err;
    spk_err_clear(&err);
    spk_exec *ex = test_exec(&err);
    check_params();
    check_forced();

    /* round trips and products on real, generated and edge-shaped matrices */
    enum { N = 12 };
    spk_csr M[N];
    const char *names[N] = {"nos3", "plat362", "bcsstk21", "sherman3", "orsirr_1", "west0479",
                            "poisson2d-5:37", "convdiff3d-7:9", "random 37x45", "random 1x1",
                            "random 5x300 (split tile row)", "forced formats"};
    memset(M, 0, sizeof M);
    for (int f = 0; f < 6; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.mtx.gz", SPK_TEST_DATA, names[f]);
        CHECK_OK(spk_mm_read_csr(path, &M[f], NULL, &err), err.msg);
    }
    CHECK_OK(spk_gen_poisson2d5(37, &M[6], &err), err.msg);
    CHECK_OK(spk_gen_convdiff3d7(9, 50.0, &M[7], &err), err.msg);
    random_matrix(37, 45, 0.3, &M[8]);
    random_matrix(1, 1, 1.0, &M[9]);
    random_matrix(5, 300, 0.6, &M[10]);
    forced(&M[11]);
    for (int c = 0; c < N; c++) {
        nonzero_values(&M[c]);
        round_trip(&M[c], &P_CSR, names[c]);
        round_trip(&M[c], &P_ADPT, names[c]);
        round_trip(&M[c], &P_DCOO, names[c]);
    }
    /* the three backends on the device under test */
    static const char *const backends[] = {"tile-csr", "tile", "tile-dcoo"};
    for (int b = 0; b < 3; b++) {
        const struct spk_spmv_ops *ops = NULL;
        CHECK_OK(spk_spmv_find(backends[b], ex, &ops, &err), err.msg);
        for (int c = 0; c < N && ops; c++) spmv_compare(ops, ex, &M[c], names[c], 1);
        /* the deferral of "tile" on request: same product */
        if (ops && strcmp(backends[b], "tile") == 0) {
            void *impl = NULL;
            spk_spmv_opts o;
            memset(&o, 0, sizeof o);
            o.tile_defer_nnz = 10;
            CHECK_OK(ops->create(ex, &M[11], &o, &impl), ex->err->msg);
            spk_spmv_stats s;
            ops->stats(impl, &s);
            CHECK(check_contains(s.detail, "deferred"), "tile_defer_nnz 10: %s", s.detail);
            ops->destroy(impl);
        }
    }
    for (int c = 0; c < N; c++) spk_csr_free(&M[c]);
    spk_exec_destroy(ex);
    return check_exit();
}
