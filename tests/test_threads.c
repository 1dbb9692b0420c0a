/* test_threads.c -- the host's threads give the bits of one thread: the dot
 * product in its documented block order (against a plain re-summation), the
 * CSR product on matrices with dense rows, the levels of a factor (every row
 * once, after the rows it reads), the IC(0) and ILU(0) applies by levels
 * against row-by-row substitution, the factorization by sweeps, and whole CG + IC(0) and
 * BiCGStab + ILU(0) solves through the public API with 1, 2, 3 and 4
 * threads (same iterations, same x), the tile conversion in parts (every
 * array the same), and every host backend's conversion (same product).  In a build without OpenMP the
 * threaded comparisons are skipped (said so). */
#include <string.h>

#include "core/csr.h"
#include "core/host_sum.h"
#include "device.h"
#include "io/gen.h"
#include "precond/factor.h"
#include "precond/levels.h"
#include "spmv/spmv.h"
#include "spmv/tile.h"

static int g_threaded; /* 1: OpenMP gives several threads */

static void fill(double *v, int n, unsigned seed)
{
    unsigned s = seed * 2654435761u + 1;
    for (int i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        v[i] = (double)(s >> 8) / 16777216.0 - 0.5 + (i % 3 ? 0 : 1e-3);
    }
}

/* the documented order, written out: blocks, four sums in each, blocks in order */
static double dot_reference(int n, const double *x, const double *y)
{
    const int bs = spk_sum_block(n);
    double total = 0;
    for (int lo = 0; lo < n; lo += bs) {
        const int hi = n - lo < bs ? n : lo + bs;
        double s[4] = {0, 0, 0, 0};
        int i = lo;
        for (; i + 4 <= hi; i += 4)
            for (int j = 0; j < 4; j++) s[j] += x[i + j] * y[i + j];
        for (; i < hi; i++) s[0] += x[i] * y[i];
        const double b = (s[0] + s[1]) + (s[2] + s[3]);
        total = lo == 0 ? b : total + b;
    }
    return total;
}

static void dots(void)
{
    const int sizes[] = {0, 1, 5, 8191, 8192, 8193, 40000, 100003, 1 << 20};
    const int big = 1 << 20;
    double *x = malloc((size_t)big * sizeof(double)), *y = malloc((size_t)big * sizeof(double));
    fill(x, big, 1);
    fill(y, big, 2);
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        const int n = sizes[k];
        spk_host_set_threads(1);
        const double one = spk_host_dot(n, x, y), ref = dot_reference(n, x, y);
        CHECK(memcmp(&one, &ref, sizeof one) == 0, "dot n=%d: %.17g, the documented order %.17g", n, one, ref);
        for (int t = 2; g_threaded && t <= 4; t++) {
            spk_host_set_threads(t);
            const double d = spk_host_dot(n, x, y);
            CHECK(memcmp(&d, &one, sizeof d) == 0, "dot n=%d with %d threads: %.17g, one thread %.17g", n, t, d, one);
        }
    }
    spk_host_set_threads(0);
    free(x);
    free(y);
}

/* the threaded copies: a large one in chunks, and overlapping ones (memmove's) */
static void copies(void)
{
    const int n = 1 << 20;
    double *x = malloc(((size_t)n + 8) * sizeof(double)), *y = malloc((size_t)n * sizeof(double));
    fill(x, n + 8, 9);
    for (int t = 1; t <= (g_threaded ? 3 : 1); t += 2) {
        spk_host_set_threads(t);
        memset(y, 0, (size_t)n * sizeof(double));
        spk_host_memcpy(y, x, (size_t)n * sizeof(double) - 3); /* not a whole number of chunks or doubles */
        CHECK(memcmp(y, x, (size_t)n * sizeof(double) - 3) == 0 && ((unsigned char *)y)[(size_t)n * 8 - 3] == 0,
              "spk_host_memcpy with %d threads", t);
        spk_host_copy(n, x, y);
        CHECK(memcmp(y, x, (size_t)n * sizeof(double)) == 0, "spk_host_copy with %d threads", t);
    }
    double *z = malloc(((size_t)n + 8) * sizeof(double));
    memcpy(z, x, ((size_t)n + 8) * sizeof(double));
    spk_host_copy(n, z, z + 8); /* overlapping: as memmove */
    CHECK(memcmp(z + 8, x, (size_t)n * sizeof(double)) == 0, "overlapping spk_host_copy");
    spk_host_set_threads(0);
    free(x), free(y), free(z);
}

static void products(void)
{
    const char *specs[] = {"powerlaw:60000", "poisson3d-7:40", "circuit:40000"};
    for (size_t k = 0; k < sizeof specs / sizeof *specs; k++) {
        spk_err e;
        spk_err_clear(&e);
        spk_csr A;
        CHECK_OK(spk_gen_spec(specs[k], &A, &e), e.msg);
        if (e.code) continue;
        double *x = malloc((size_t)A.ncols * sizeof(double)), *y1 = malloc((size_t)A.nrows * sizeof(double)),
               *y2 = malloc((size_t)A.nrows * sizeof(double)), *yr = malloc((size_t)A.nrows * sizeof(double));
        fill(x, A.ncols, 3);
        fill(y1, A.nrows, 4);
        memcpy(y2, y1, (size_t)A.nrows * sizeof(double));
        for (int i = 0; i < A.nrows; i++) { /* plain rows: y = 2 A x - y */
            double s = 0;
            for (int q = A.rowptr[i]; q < A.rowptr[i + 1]; q++) s += A.val[q] * x[A.colind[q]];
            yr[i] = 2 * s + -1.0 * y1[i];
        }
        spk_host_set_threads(1);
        spk_csr_spmv(&A, 2, x, -1, y1);
        CHECK(memcmp(y1, yr, (size_t)A.nrows * sizeof(double)) == 0, "%s: one-thread product differs from rows",
              specs[k]);
        if (g_threaded) {
            spk_host_set_threads(3);
            spk_csr_spmv(&A, 2, x, -1, y2);
            CHECK(memcmp(y1, y2, (size_t)A.nrows * sizeof(double)) == 0, "%s: 3-thread product differs", specs[k]);
        }
        spk_host_set_threads(0);
        free(x), free(y1), free(y2), free(yr);
        spk_csr_free(&A);
    }
}

#define SAME(F, N) (memcmp(a->F, b->F, (size_t)(N) * sizeof *a->F) == 0)
static int same_tiles(const spk_fmt_tile *a, const spk_fmt_tile *b)
{
    if (a->ntiles != b->ntiles || a->nunits != b->nunits || a->nsplit != b->nsplit || a->nval != b->nval ||
        a->nidx != b->nidx || a->staged != b->staged || a->stats.deferred != b->stats.deferred ||
        a->stats.dropped_tiles != b->stats.dropped_tiles || a->stats.stored != b->stats.stored ||
        a->stats.bytes != b->stats.bytes)
        return 0;
    for (int k = 0; k < SPK_TILE_NKINDS; k++)
        if (a->stats.tiles[k] != b->stats.tiles[k] || a->stats.nnz[k] != b->stats.nnz[k]) return 0;
    return SAME(tile_ptr, a->tm + 1) && SAME(tile_col, a->ntiles) && SAME(val_off, a->ntiles + 1) &&
           SAME(idx_off, a->ntiles + 1) && SAME(kind, a->ntiles) && SAME(width, a->ntiles) && SAME(val, a->nval) &&
           SAME(idx, a->nidx) && SAME(unit, (size_t)a->nunits * SPK_TILE_UNIT) && SAME(split_rows, a->nsplit);
}

static int same_csr(const spk_csr *a, const spk_csr *b)
{
    return a->nrows == b->nrows && a->nnz == b->nnz && (a->nnz == 0 || (SAME(rowptr, a->nrows + 1) &&
                                                                        SAME(colind, a->nnz) && SAME(val, a->nnz)));
}
#undef SAME

/* the tile conversion in parts, one a thread: T and D the same as one thread's */
static void conversions(void)
{
    const char *specs[] = {"powerlaw:60000", "poisson3d-7:40", "circuit:40000"};
    const spk_tile_params params[3] = {{0, 0, SPK_TILE_TE, SPK_TILE_TH}, {1, 0, SPK_TILE_TE, SPK_TILE_TH},
                                       {1, 1, SPK_TILE_TE, SPK_TILE_TH}};
    for (size_t k = 0; g_threaded && k < sizeof specs / sizeof *specs; k++) {
        spk_err e;
        spk_err_clear(&e);
        spk_csr A;
        CHECK_OK(spk_gen_spec(specs[k], &A, &e), e.msg);
        if (e.code) continue;
        for (int p = 0; p < 3; p++) {
            spk_fmt_tile one, T;
            spk_csr D1, D;
            spk_host_set_threads(1);
            CHECK_OK(spk_tile_build(&A, &params[p], &one, &D1, &e), e.msg);
            for (int t = 2; !e.code && t <= 4; t++) {
                spk_host_set_threads(t);
                CHECK_OK(spk_tile_build(&A, &params[p], &T, &D, &e), e.msg);
                if (e.code) break;
                CHECK(same_tiles(&one, &T) && same_csr(&D1, &D), "%s, tile params %d: %d threads built other tiles",
                      specs[k], p, t);
                spk_tile_free(&T);
                spk_csr_free(&D);
            }
            if (!e.code) spk_tile_free(&one), spk_csr_free(&D1);
        }
        spk_host_set_threads(0);
        spk_csr_free(&A);
    }
}

/* a backend's description without the timings that end TEB's */
static void untimed(char *detail)
{
    char *t = strstr(detail, "preprocessing");
    if (t) *t = 0;
}

/* every host backend built on 3 threads as on one: the same bytes held and
 * description, and the same product to the bit (applied on one thread) */
static void backends(void)
{
    spk_err e;
    spk_err_clear(&e);
    spk_exec *ex = NULL;
    spk_csr A;
    CHECK_OK(spk_exec_host_create(&e, &ex), e.msg);
    CHECK_OK(spk_gen_spec("powerlaw:30000", &A, &e), e.msg);
    if (e.code) return;
    double *x = malloc((size_t)A.ncols * sizeof(double)), *y1 = malloc((size_t)A.nrows * sizeof(double)),
           *y3 = malloc((size_t)A.nrows * sizeof(double));
    fill(x, A.ncols, 5);
    int n = 0;
    for (const struct spk_spmv_ops *const *l = spk_spmv_list(); g_threaded && *l; l++) {
        const struct spk_spmv_ops *ops = *l;
        if (strcmp(ops->exec, "host") != 0 || strcmp(ops->name, "auto") == 0) continue;
        spk_spmv_opts o;
        memset(&o, 0, sizeof o);
        void *one = NULL, *three = NULL;
        spk_host_set_threads(1);
        if (ops->create(ex, &A, &o, &one) != SPK_OK) continue; /* a format that refuses A */
        spk_host_set_threads(3);
        CHECK_OK(ops->create(ex, &A, &o, &three), ex->err->msg);
        spk_host_set_threads(1);
        if (three) {
            spk_spmv_stats s1, s3;
            ops->stats(one, &s1);
            ops->stats(three, &s3);
            untimed(s1.detail);
            untimed(s3.detail);
            fill(y1, A.nrows, 6);
            memcpy(y3, y1, (size_t)A.nrows * sizeof(double));
            CHECK_OK(ops->apply(one, 1.5, x, -0.5, y1), ops->name);
            CHECK_OK(ops->apply(three, 1.5, x, -0.5, y3), ops->name);
            CHECK(s1.bytes == s3.bytes && strcmp(s1.detail, s3.detail) == 0 &&
                      memcmp(y1, y3, (size_t)A.nrows * sizeof(double)) == 0,
                  "%s built on 3 threads differs from one thread's (%s | %s)", ops->name, s1.detail, s3.detail);
            ops->destroy(three);
            n++;
        }
        ops->destroy(one);
    }
    CHECK(!g_threaded || n >= 10, "only %d host backends compared", n);
    spk_host_set_threads(0);
    free(x), free(y1), free(y3);
    spk_csr_free(&A);
    spk_exec_destroy(ex);
}

/* every row in one level, after each row it reads */
static void check_levels(const spk_levels *L, int n, const int *beg, int boff, const int *end, int eoff,
                         const int *colind, const char *what)
{
    int *lev = malloc((size_t)n * sizeof(int)), bad = 0;
    for (int i = 0; i < n; i++) lev[i] = -1;
    CHECK(L->ptr[0] == 0 && L->ptr[L->nlev] == n, "%s: levels hold %d of %d rows", what, L->ptr[L->nlev], n);
    for (int l = 0; l < L->nlev; l++)
        for (int q = L->ptr[l]; q < L->ptr[l + 1]; q++) {
            bad += lev[L->rows[q]] != -1;
            lev[L->rows[q]] = l;
        }
    for (int i = 0; i < n; i++) {
        bad += lev[i] < 0;
        for (int k = beg[i] + boff; k < end[i] + eoff; k++) bad += lev[colind[k]] >= lev[i];
    }
    CHECK(bad == 0, "%s: %d rows twice, missing or before a row they read", what, bad);
    free(lev);
}

/* the levels of ILU(0)'s factors of a nonsymmetric problem */
static void factor_levels(void)
{
    spk_err e;
    spk_err_clear(&e);
    spk_exec *ex = NULL;
    CHECK_OK(spk_exec_host_create(&e, &ex), e.msg);
    spk_csr A;
    CHECK_OK(spk_gen_spec("convdiff3d-7:24", &A, &e), e.msg);
    spk_precond_opts po;
    spk_precond_opts_default(&po);
    void *impl = NULL;
    CHECK_OK(spk_precond_ilu0_host.create(ex, &A, &po, &impl), e.msg);
    if (!impl) return;
    const spk_factor *f = impl;
    const spk_csr *F = &f->F;
    const int n = f->n;
    spk_levels lo, up;
    CHECK_OK(spk_levels_build(&lo, n, F->rowptr, 0, f->diag, 0, F->colind, 0, &e), e.msg);
    CHECK_OK(spk_levels_build(&up, n, f->diag, 1, F->rowptr + 1, 0, F->colind, 1, &e), e.msg);
    check_levels(&lo, n, F->rowptr, 0, f->diag, 0, F->colind, "L");
    check_levels(&up, n, f->diag, 1, F->rowptr + 1, 0, F->colind, "U");
    CHECK(lo.nlev == 3 * 24 - 2 && up.nlev == 3 * 24 - 2, "levels of a 24^3 7-point stencil: %d and %d, not 70",
          lo.nlev, up.nlev);
    spk_levels_free(&lo);
    spk_levels_free(&up);
    spk_precond_ilu0_host.destroy(impl);
    spk_csr_free(&A);
    spk_exec_destroy(ex);
}

/* the IC(0) and ILU(0) applies: levels used with threads, the one-thread bits */
static void applies(void)
{
    spk_err e;
    spk_err_clear(&e);
    spk_exec *ex = NULL;
    CHECK_OK(spk_exec_host_create(&e, &ex), e.msg);
    const struct spk_precond_ops *ops[] = {&spk_precond_ic0_host, &spk_precond_ilu0_host};
    /* levels of about 2,150 rows (238 of them): wide enough to be tried */
    const char *specs[] = {"poisson3d-7:80", "convdiff3d-7:80"};
    for (int k = 0; k < 2; k++) {
        spk_csr A;
        CHECK_OK(spk_gen_spec(specs[k], &A, &e), e.msg);
        spk_precond_opts po;
        spk_precond_opts_default(&po);
        void *impl = NULL;
        spk_host_set_threads(1);
        CHECK_OK(ops[k]->create(ex, &A, &po, &impl), e.msg);
        if (!impl) continue;
        const int n = A.nrows;
        double *r = malloc((size_t)n * sizeof(double)), *z1 = malloc((size_t)n * sizeof(double)),
               *z2 = malloc((size_t)n * sizeof(double));
        fill(r, n, 6);
        CHECK_OK(ops[k]->apply(impl, r, z1), e.msg);
        CHECK(!spk_factor_levels_used(impl), "%s: levels with one thread", ops[k]->name);
        for (int round = 0; g_threaded && round < 2; round++) {
            spk_host_set_threads(4);
            for (int a = 0; a < 6; a++) { /* the timed trials alternate both ways, then the faster */
                memset(z2, 0, (size_t)n * sizeof(double));
                CHECK_OK(ops[k]->apply(impl, r, z2), e.msg);
                CHECK(memcmp(z1, z2, (size_t)n * sizeof(double)) == 0, "%s: 4-thread apply %d differs (round %d)",
                      ops[k]->name, a, round);
            }
            CHECK(spk_factor_levels_used(impl), "%s on %s: the levels were not tried with 4 threads", ops[k]->name,
                  specs[k]);
            /* new values: the transposed copy must follow them */
            for (int q = 0; q < A.nnz; q++) A.val[q] *= 1.0 + 0.25 * round + 0.125;
            spk_host_set_threads(1);
            CHECK_OK(ops[k]->refactor(impl, &A), e.msg);
            CHECK_OK(ops[k]->apply(impl, r, z1), e.msg);
        }
        spk_host_set_threads(0);
        free(r), free(z1), free(z2);
        ops[k]->destroy(impl);
        spk_csr_free(&A);
    }
    spk_exec_destroy(ex);
}

/* the factorization by sweeps (its rows on the threads): the same factor with 1 and 3 threads */
static void sweeps(void)
{
    spk_err e;
    spk_err_clear(&e);
    spk_exec *ex = NULL;
    CHECK_OK(spk_exec_host_create(&e, &ex), e.msg);
    const struct spk_precond_ops *ops[] = {&spk_precond_ic0_host, &spk_precond_ilu0_host};
    const char *specs[] = {"poisson3d-7:30", "convdiff3d-7:30"};
    for (int k = 0; k < 2; k++) {
        spk_csr A;
        CHECK_OK(spk_gen_spec(specs[k], &A, &e), e.msg);
        spk_precond_opts po;
        spk_precond_opts_default(&po);
        po.factorization = SPK_FACTORIZATION_ITERATIVE;
        void *f1 = NULL, *f3 = NULL;
        spk_host_set_threads(1);
        CHECK_OK(ops[k]->create(ex, &A, &po, &f1), e.msg);
        spk_host_set_threads(g_threaded ? 3 : 1);
        CHECK_OK(ops[k]->create(ex, &A, &po, &f3), e.msg);
        spk_host_set_threads(0);
        if (f1 && f3) {
            const spk_factor *a = f1, *b = f3;
            CHECK(a->info.iterative && a->info.sweeps > 0, "%s: not by sweeps", specs[k]);
            CHECK(a->info.sweeps == b->info.sweeps && a->info.residual == b->info.residual &&
                      memcmp(a->F.val, b->F.val, (size_t)a->F.nnz * sizeof(double)) == 0,
                  "%s: %d sweeps (residual %.17g) on one thread, %d (%.17g) on three, or other values", specs[k],
                  a->info.sweeps, a->info.residual, b->info.sweeps, b->info.residual);
        }
        if (f1) ops[k]->destroy(f1);
        if (f3) ops[k]->destroy(f3);
        spk_csr_free(&A);
    }
    spk_exec_destroy(ex);
}

/* whole solves through the API: the same iterations and x with 1..4 threads */
static void solves(void)
{
    const char *specs[] = {"poisson3d-7:40", "convdiff3d-7:40"};
    for (int k = 0; k < 2; k++) {
        spk_context *ctx = NULL;
        CHECK_OK(spk_context_create(&ctx, SPK_DEVICE_HOST), "context");
        spk_err e;
        spk_err_clear(&e);
        spk_csr C;
        CHECK_OK(spk_gen_spec(specs[k], &C, &e), e.msg);
        spk_matrix *A = NULL;
        CHECK_OK(spk_matrix_from_csr(ctx, C.nrows, C.ncols, C.rowptr, C.colind, C.val, &A), spk_last_error(ctx));
        const int n = C.nrows;
        spk_csr_free(&C);
        double *b = malloc((size_t)n * sizeof(double)), *x1 = calloc((size_t)n, sizeof(double)),
               *x2 = malloc((size_t)n * sizeof(double));
        fill(b, n, 7);
        int it1 = -1;
        for (int t = 1; t <= (g_threaded ? 4 : 1); t++) {
            CHECK_OK(spk_context_set_threads(ctx, t), spk_last_error(ctx));
            CHECK(spk_context_threads(ctx) == t, "context threads %d, set %d", spk_context_threads(ctx), t);
            spk_solver *s = NULL;
            CHECK_OK(spk_solver_create(ctx, A, SPK_SOLVER_AUTO, SPK_PRECOND_FACTOR, NULL, &s), spk_last_error(ctx));
            if (!s) break;
            spk_result res;
            double *x = t == 1 ? x1 : x2;
            memset(x, 0, (size_t)n * sizeof(double));
            CHECK_OK(spk_solve(s, b, x, &res), spk_last_error(ctx));
            CHECK(res.reason == SPK_CONVERGED_RTOL, "%s with %d threads: %s", specs[k], t,
                  spk_reason_name(res.reason));
            if (t == 1) it1 = res.iterations;
            CHECK(res.iterations == it1, "%s: %d iterations with %d threads, %d with one", specs[k],
                  res.iterations, t, it1);
            CHECK(t == 1 || memcmp(x1, x2, (size_t)n * sizeof(double)) == 0, "%s: x with %d threads differs",
                  specs[k], t);
            spk_solver_destroy(s);
        }
        CHECK(spk_context_set_threads(ctx, -1) == SPK_ERR_INVALID_ARG, "threads -1 accepted");
        free(b), free(x1), free(x2);
        spk_matrix_destroy(A);
        spk_context_destroy(ctx);
    }
}

int main(void)
{
    g_threaded = spk_host_set_threads(4) == 4;
    spk_host_set_threads(0);
    if (!g_threaded) printf("SKIP (this build has no OpenMP): the comparisons across thread counts\n");
    dots();
    copies();
    products();
    conversions();
    backends();
    factor_levels();
    applies();
    sweeps();
    solves();
    return check_exit();
}
