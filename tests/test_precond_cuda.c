/* test_precond_cuda.c -- the GPU preconditioners (cuSPARSE ILU(0), IC(0),
 * Jacobi kernel, the device-resident IC(0)/ILU(0) sweeps) against the host
 * ones: the same shift alpha, the same failing row, z = M^-1 r equal to
 * rounding, before and after new values.  With enough sweeps the device
 * sweeps solve exactly, so they also meet the host's exact IC(0)/ILU(0),
 * which checks the device factorization itself.  Exits 77 when no GPU can be
 * used. */
#include <string.h>

#include "device.h"
#include "io/gen.h"
#include "io/mmio.h"
#include "precond/factor.h"
#include "precond/parfactor.h"
#include "precond/precond.h"

static spk_exec *g_host, *g_dev;
/* spk_precond_opts.dev_apply for the GPU sweeps: 0 timed, 1 + devsweep.h's
 * APPLY_SWEEPS (a kernel per sweep), APPLY_SMALL_SWEEPS (one block),
 * APPLY_SMALL_SOLVE (exact, one block), APPLY_SPSV (exact, cusparseSpSV) */
static int g_apply;
/* spk_precond_opts.build: every case runs with the factor built on the host (1) and on the device (2) */
static int g_build;
static const char *const g_apply_name[] = {"timed", "kernels", "one block", "one-block solves", "SpSV"};
/* spk_precond_opts' factorization, factor_sweeps, factor_tol for every case
 * (exact unless a case says otherwise), and the passes compare_with runs (2:
 * also after new values) */
static int g_fact = SPK_FACTORIZATION_EXACT, g_fsweeps = SPK_FACTOR_SWEEPS_DEFAULT, g_passes = 2;
static double g_ftol = SPK_FACTOR_TOL_DEFAULT;

/* Create hpc on the host and dpc on the GPU (sweeps per triangular solve
 * where they apply), compare alpha, the status and z = M^-1 r.  dev_copy:
 * the GPU one is built from a device copy of A (create_dev). */
static void compare_with(const char *what, const spk_csr *A, const char *hpc, const char *dpc, int allow_shift,
                         int sweeps, int dev_copy, int single)
{
    const char *pc = dpc;
    spk_precond_opts o;
    spk_precond_opts_default(&o);
    o.allow_shift = allow_shift;
    o.sweeps = sweeps;
    o.sweeps_float = single;
    o.dev_apply = g_apply;
    o.build = g_build;
    o.factorization = g_fact;
    o.factor_sweeps = g_fsweeps;
    o.factor_tol = g_ftol;
    const struct spk_precond_ops *hops, *dops;
    CHECK_OK(spk_precond_find(hpc, g_host, &hops, g_host->err), g_host->err->msg);
    CHECK_OK(spk_precond_find(dpc, g_dev, &dops, g_dev->err), g_dev->err->msg);
    CHECK(strcmp(dops->exec, "cuda") == 0, "%s: device variant of %s runs on %s", what, pc, dops->exec);
    void *hM = NULL, *dM = NULL;
    int hs = hops->create(g_host, A, &o, &hM);
    int ds;
    if (dev_copy) {
        spk_csr dA;
        CHECK(dops->create_dev != NULL, "%s: %s has no create_dev", what, dpc);
        CHECK_OK(spk_cuda_csr_upload(g_dev, A, &dA, "test matrix"), g_dev->err->msg);
        ds = dops->create_dev(g_dev, A, &dA, &o, &dM);
        spk_cuda_csr_free(&dA);
    } else {
        ds = dops->create(g_dev, A, &o, &dM);
    }
    CHECK(hs == ds, "%s %s: status %d on the host, %d on the GPU (%s | %s)", what, pc, hs, ds,
          g_host->err->msg, g_dev->err->msg);
    if (hs || ds) {
        /* the same failure: the row named must agree */
        const char *hr = strstr(g_host->err->msg, "row "), *dr = strstr(g_dev->err->msg, "row ");
        CHECK(hr && dr && atoi(hr + 4) == atoi(dr + 4), "%s %s: host says '%s', GPU says '%s'", what, pc,
              g_host->err->msg, g_dev->err->msg);
        printf("%-22s %-11s fails on both: %s\n", what, pc, g_dev->err->msg);
        if (!hs) hops->destroy(hM);
        if (!ds) dops->destroy(dM);
        return;
    }
    double ha = hops->shift(hM), da = dops->shift(dM);
    CHECK(ha == da, "%s %s: alpha %g on the host, %g on the GPU", what, pc, ha, da);
    int n = A->nrows;
    double *r = malloc(((size_t)n + 1) * sizeof(double)), *zh = malloc(((size_t)n + 1) * sizeof(double));
    double *zd = malloc(((size_t)n + 1) * sizeof(double));
    spk_csr B = {0};
    spk_err e;
    CHECK_OK(spk_csr_copy(A, &B, &e), e.msg);
    for (int pass = 0; pass < g_passes; pass++) {
        if (pass == 1) { /* new values, same pattern: B = 3 A (same alpha) */
            for (int k = 0; k < B.nnz; k++) B.val[k] *= 3;
            CHECK_OK(hops->refactor(hM, &B), g_host->err->msg);
            CHECK_OK(dops->refactor(dM, &B), g_dev->err->msg);
        }
        for (int i = 0; i < n; i++) r[i] = sin(1.0 + i) + 0.5;
        double *dr = to_dev(g_dev, r, n), *dz = to_dev(g_dev, r, n);
        CHECK_OK(hops->apply ? hops->apply(hM, r, zh) : 0, g_host->err->msg);
        CHECK_OK(dops->apply ? dops->apply(dM, dr, dz) : 0, g_dev->err->msg);
        CHECK_OK(from_dev(g_dev, zd, dz, n), g_dev->err->msg);
        if (!hops->apply) memcpy(zh, r, (size_t)n * sizeof(double));
        double err = 0, scale = 0;
        for (int i = 0; i < n; i++) {
            err = fmax(err, isfinite(zd[i]) ? fabs(zd[i] - zh[i]) : INFINITY);
            scale = fmax(scale, fabs(zh[i]));
        }
        /* float values: beyond the block iterations' rows the sweeps also
         * iterate in float (devsweep_slice.c, lean copies) */
        const double tol = single && n > SPK_BLOCK_ROWS ? 4e-6 : 1e-9;
        CHECK(err <= tol * fmax(scale, 1e-300), "%s %s pass %d: |z_gpu - z_host| = %g of %g", what, pc, pass,
              err, scale);
        /* r scaled by 2^-900 and 2^900, far outside float's range: z
         * scales with it (float iterates are scaled by a power of two) */
        for (int sgn = -1; sgn <= 1 && pass == 0; sgn += 2) {
            const double f = ldexp(1.0, 900 * sgn);
            for (int i = 0; i < n; i++) r[i] = (sin(1.0 + i) + 0.5) * f;
            double *sr = to_dev(g_dev, r, n), *sz = to_dev(g_dev, r, n);
            double *zs = malloc(((size_t)n + 1) * sizeof(double));
            CHECK_OK(dops->apply ? dops->apply(dM, sr, sz) : 0, g_dev->err->msg);
            CHECK_OK(from_dev(g_dev, zs, sz, n), g_dev->err->msg);
            double serr = 0;
            for (int i = 0; i < n; i++) serr = fmax(serr, isfinite(zs[i]) ? fabs(zs[i] / f - zd[i]) : INFINITY);
            CHECK(serr <= 1e-12 * fmax(scale, 1e-300), "%s %s: r scaled by 2^%d: |z/2^%d - z| = %g of %g", what,
                  pc, 900 * sgn, 900 * sgn, serr, scale);
            free(zs);
            g_dev->ops->free(g_dev, sr);
            g_dev->ops->free(g_dev, sz);
        }
        if (pass == 0)
            printf("%-22s %-11s (host %s, %d sweeps%s, %s) alpha %-6g |z_gpu - z_host|/|z| = %.1e\n", what, pc,
                   hpc, sweeps, single ? ", float values" : "", g_apply_name[g_apply], da,
                   scale > 0 ? err / scale : err);
        g_dev->ops->free(g_dev, dr);
        g_dev->ops->free(g_dev, dz);
    }
    spk_csr_free(&B);
    free(r);
    free(zh);
    free(zd);
    hops->destroy(hM);
    dops->destroy(dM);
}

static void compare(const char *what, const spk_csr *A, const char *pc, int allow_shift)
{
    compare_with(what, A, pc, pc, allow_shift, 3, 0, 0);
}

/* The device sweeps against the host's: 3 sweeps (both), also with the
 * factor's values in float (the host rounds its values the same way), and
 * enough sweeps to be exact against the host's exact factorization. */
static void sweeps(const char *what, const spk_csr *A, int ic, int allow_shift)
{
    const char *sw = ic ? "ic0-sweeps" : "ilu0-sweeps", *ex = ic ? "ic0" : "ilu0";
    for (g_apply = 0; g_apply < 3; g_apply++) { /* timed, a kernel per sweep, one block */
        compare_with(what, A, sw, sw, allow_shift, 3, 0, 0);
        compare_with(what, A, sw, sw, allow_shift, 3, 1, 1);
        compare_with(what, A, sw, sw, allow_shift, 1, 1, 0);
    }
    g_apply = 0;
    compare_with(what, A, ex, sw, allow_shift, 1000, 1, 0);
}

/* The device sweeps chosen by a check with bound tau (at most 16; and the
 * test of sweeps_rho = rho) equal the host's with some K in [2, 16]: that K,
 * or 0 when none matches. */
static int checked_k_rho(const spk_csr *A, int ic, double tau, double rho)
{
    const char *sw = ic ? "ic0-sweeps" : "ilu0-sweeps";
    const struct spk_precond_ops *dops, *hops;
    CHECK_OK(spk_precond_find(sw, g_dev, &dops, g_dev->err), g_dev->err->msg);
    CHECK_OK(spk_precond_find(sw, g_host, &hops, g_host->err), g_host->err->msg);
    spk_precond_opts o;
    spk_precond_opts_default(&o);
    o.sweeps = 16;
    o.sweeps_check = tau;
    o.sweeps_rho = rho;
    o.dev_apply = 1; /* APPLY_SWEEPS: not exact solves the timing might prefer */
    o.build = g_build;
    o.factorization = SPK_FACTORIZATION_EXACT; /* the host's sweeps apply its exact factor */
    void *dM = NULL;
    CHECK_OK(dops->create(g_dev, A, &o, &dM), g_dev->err->msg);
    const int n = A->nrows;
    double *r = malloc(((size_t)n + 1) * sizeof(double)), *zh = malloc(((size_t)n + 1) * sizeof(double));
    double *zd = malloc(((size_t)n + 1) * sizeof(double));
    for (int i = 0; i < n; i++) r[i] = cos(0.3 * i) + 1.2;
    double *dr = to_dev(g_dev, r, n), *dz = to_dev(g_dev, r, n);
    CHECK_OK(dops->apply(dM, dr, dz), g_dev->err->msg);
    CHECK_OK(from_dev(g_dev, zd, dz, n), g_dev->err->msg);
    int found = 0;
    for (int k = 2; k <= 16 && !found; k++) {
        void *hM = NULL;
        o.sweeps = k;
        o.sweeps_check = 0;
        CHECK_OK(hops->create(g_host, A, &o, &hM), g_host->err->msg);
        CHECK_OK(hops->apply(hM, r, zh), g_host->err->msg);
        double err = 0, scale = 0;
        for (int i = 0; i < n; i++) {
            err = fmax(err, fabs(zd[i] - zh[i]));
            scale = fmax(scale, fabs(zh[i]));
        }
        if (err <= 1e-10 * scale) found = k;
        hops->destroy(hM);
    }
    g_dev->ops->free(g_dev, dr);
    g_dev->ops->free(g_dev, dz);
    free(r);
    free(zh);
    free(zd);
    dops->destroy(dM);
    return found;
}

static int checked_k(const spk_csr *A, int ic, double tau)
{
    return checked_k_rho(A, ic, tau, 0);
}

/* On the host, for the factor F ("ic0": L; "ilu0": unit L and U): y = S_t x
 * (t 0: L's strict part; 1: U's, or L^T's) and D_t's entry of row i. */
static void host_smul(const spk_csr *F, const int *dg, int ic, int t, const double *x, double *y)
{
    const int n = F->nrows;
    if (t == 1 && ic) {
        for (int i = 0; i < n; i++) y[i] = 0;
        for (int i = 0; i < n; i++)
            for (int q = F->rowptr[i]; q < dg[i]; q++) y[F->colind[q]] += F->val[q] * x[i];
        return;
    }
    for (int i = 0; i < n; i++) {
        double sum = 0;
        const int lo = t == 0 ? F->rowptr[i] : dg[i] + 1, hi = t == 0 ? dg[i] : F->rowptr[i + 1];
        for (int q = lo; q < hi; q++) sum += F->val[q] * x[F->colind[q]];
        y[i] = sum;
    }
}

static double host_d(const spk_csr *F, const int *dg, int ic, int t, int i)
{
    return !ic && t == 0 ? 1.0 : F->val[dg[i]];
}

static double host_norm(int n, const double *x)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += x[i] * x[i];
    return sqrt(s);
}

/* Does K = k pass the device's growth test (devsweep_check.c, fewer_sweeps) redone
 * on the host: M from the host's factor F, M_k^-1 the host's k sweeps (A's
 * "ic0-sweeps" or "ilu0-sweeps"); does E = I - M_k^-1 M grow the positive
 * probe (devfactor.cu's) by at most rho in each of 6 power steps?  *growth:
 * the largest growth of the steps run. */
static int host_rho_pass(const spk_csr *A, const spk_csr *F, const int *dg, int ic, int k, double rho,
                         double *growth)
{
    const int n = F->nrows;
    const struct spk_precond_ops *sops;
    CHECK_OK(spk_precond_find(ic ? "ic0-sweeps" : "ilu0-sweeps", g_host, &sops, g_host->err), g_host->err->msg);
    spk_precond_opts o;
    spk_precond_opts_default(&o);
    o.sweeps = k;
    void *S = NULL;
    CHECK_OK(sops->create(g_host, A, &o, &S), g_host->err->msg);
    double *v = malloc((size_t)n * sizeof(double)), *t1 = malloc((size_t)n * sizeof(double));
    double *t2 = malloc((size_t)n * sizeof(double));
    for (int i = 0; i < n; i++) { /* devfactor.cu's probe_kernel */
        unsigned h = (unsigned)i * 2654435761u;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        v[i] = 0.5 + ((h >> 8) & 0xffff) * (1.0 / 65536.0);
    }
    double prev = host_norm(n, v);
    int ok = 1;
    *growth = 0;
    for (int j = 0; j < 6 && ok; j++) {
        /* t2 = M v = L (U v) */
        host_smul(F, dg, ic, 1, v, t1);
        for (int i = 0; i < n; i++) t1[i] += host_d(F, dg, ic, 1, i) * v[i];
        host_smul(F, dg, ic, 0, t1, t2);
        for (int i = 0; i < n; i++) t2[i] += host_d(F, dg, ic, 0, i) * t1[i];
        CHECK_OK(sops->apply(S, t2, t2), g_host->err->msg); /* t2 = M_k^-1 M v */
        for (int i = 0; i < n; i++) v[i] -= t2[i];
        const double now = host_norm(n, v);
        *growth = fmax(*growth, now / prev);
        ok = now <= rho * prev;
        prev = now;
    }
    free(v);
    free(t1);
    free(t2);
    sops->destroy(S);
    return ok;
}

/* The sweeps the device's test takes after the check's k0: bisection in
 * [2, k0 - 1] for the fewest that pass (k0 where none tested does). */
static int host_rho_k(const spk_csr *A, int ic, double rho, int k0, double growth[16])
{
    const struct spk_precond_ops *hops;
    CHECK_OK(spk_precond_find(ic ? "ic0" : "ilu0", g_host, &hops, g_host->err), g_host->err->msg);
    spk_precond_opts o;
    spk_precond_opts_default(&o);
    void *hM = NULL;
    CHECK_OK(hops->create(g_host, A, &o, &hM), g_host->err->msg);
    const spk_csr *F = NULL;
    CHECK_OK(spk_factor_inspect(hM, &F, NULL), "spk_factor_inspect");
    const int n = F->nrows;
    int *dg = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++) {
        dg[i] = -1;
        for (int q = F->rowptr[i]; q < F->rowptr[i + 1]; q++)
            if (F->colind[q] == i) dg[i] = q;
        CHECK(dg[i] >= 0, "host factor: row %d has no diagonal", i);
    }
    int kr = k0, lo = 2, hi = k0 - 1;
    while (lo <= hi) {
        const int mid = (lo + hi) / 2;
        if (host_rho_pass(A, F, dg, ic, mid, rho, &growth[mid])) {
            kr = mid;
            hi = mid - 1;
        } else {
            lo = mid + 1;
        }
    }
    free(dg);
    hops->destroy(hM);
    return kr;
}

/* Beyond SPK_DEV_SMALL_ROWS rows the sweeps' second test (sweeps_rho) takes
 * fewer sweeps than the check where E = I - M_K^-1 M stays small: off, the
 * check's K; a bound everything meets, 2; the solver's bound (0.2 for IC(0),
 * 0.1 for ILU(0)), the K the host finds. */
static void sweeps_rho(const char *what, const spk_csr *A, int ic)
{
    const double tau = ic ? 0.02 : 0.05;
    const int k0 = checked_k_rho(A, ic, tau, 0), kall = checked_k_rho(A, ic, tau, 1e300);
    const double rho = ic ? 0.2 : 0.1;
    const int k = checked_k_rho(A, ic, tau, rho);
    double growth[16] = {0};
    const int want = host_rho_k(A, ic, rho, k0, growth);
    printf("%-22s %-11s sweeps: %d by the check, %d with any growth, %d with growth <= %g (host: %d; growth", what,
           ic ? "ic0" : "ilu0", k0, kall, k, rho, want);
    for (int j = 2; j < k0 && j < 16; j++) printf(" %.3f", growth[j]); /* 0: not run */
    printf(")\n");
    CHECK(k0 > 3, "%s: the check took %d sweeps; the case needs more than 3", what, k0);
    CHECK(kall == 2, "%s: a growth bound everything meets chose %d sweeps, not 2", what, kall);
    CHECK(k == want, "%s: growth <= %g chose %d sweeps on the device, %d on the host", what, rho, k, want);
    CHECK(k < k0, "%s: the test took no fewer sweeps than the check (%d)", what, k0);
}

/* The check picks the fewest sweeps that meet its bound: 2 for a bound
 * everything meets, more for a tighter one (never fewer). */
static void sweeps_k(const char *what, const spk_csr *A, int ic)
{
    const int loose = checked_k(A, ic, 1e300), mid = checked_k(A, ic, 0.05), tight = checked_k(A, ic, 0.005);
    printf("%-22s %-11s sweeps chosen: %d (no bound), %d (0.05), %d (0.005)\n", what, ic ? "ic0" : "ilu0", loose, mid,
           tight);
    CHECK(loose == 2, "%s: a bound everything meets chose %d sweeps, not 2", what, loose);
    /* 0: exact solves (no K in [2, 16] met the bound) */
    CHECK(mid >= 2 && (tight == 0 || tight >= mid), "%s: 0.05 chose %d sweeps, 0.005 chose %d", what, mid, tight);
    CHECK(tight != 2, "%s: 0.005 chose %d sweeps: the check does not tighten", what, tight);
}

/* The sweeps' check: a bound nothing meets gives exact solves with the
 * device's factor ("-dev", equal to the host's exact factorization's
 * solves), a bound everything meets keeps the sweeps. */
static void sweeps_check(const char *what, const spk_csr *A, int ic)
{
    const char *sw = ic ? "ic0-sweeps" : "ilu0-sweeps", *ex = ic ? "ic0" : "ilu0";
    const struct spk_precond_ops *dops, *hops;
    CHECK_OK(spk_precond_find(sw, g_dev, &dops, g_dev->err), g_dev->err->msg);
    CHECK_OK(spk_precond_find(ex, g_host, &hops, g_host->err), g_host->err->msg);
    for (int run = 0; run < 4; run++) {
        /* a bound everything meets (timed), then nothing meets: timed, one block's solves, SpSV */
        const int strict = run > 0;
        spk_precond_opts o;
        spk_precond_opts_default(&o);
        o.sweeps_check = strict ? 1e-300 : 1e300;
        o.dev_apply = run < 2 ? 0 : run + 1;
        o.build = g_build;
        o.factorization = SPK_FACTORIZATION_EXACT; /* compared with the host's exact factor */
        void *dM = NULL, *hM = NULL;
        CHECK_OK(dops->create(g_dev, A, &o, &dM), g_dev->err->msg);
        CHECK_OK(hops->create(g_host, A, &o, &hM), g_host->err->msg);
        char want[32];
        snprintf(want, sizeof want, "%s%s", ex, strict ? "-dev" : "-sweeps");
        const char *got = dM && dops->describe ? dops->describe(dM) : "-";
        /* the timed choice may take exact solves for sweeps that pass (small systems) */
        CHECK(strcmp(got, want) == 0 || (!strict && strstr(got, "-dev")), "%s check %g: %s, not %s", what,
              o.sweeps_check, got, want);
        if (strict && dM && hM) { /* exact: the host's exact solves */
            const int n = A->nrows;
            double *r = malloc(((size_t)n + 1) * sizeof(double)), *zh = malloc(((size_t)n + 1) * sizeof(double));
            double *zd = malloc(((size_t)n + 1) * sizeof(double));
            for (int i = 0; i < n; i++) r[i] = cos(0.5 * i) + 1.5;
            double *dr = to_dev(g_dev, r, n), *dz = to_dev(g_dev, r, n);
            CHECK_OK(hops->apply(hM, r, zh), g_host->err->msg);
            CHECK_OK(dops->apply(dM, dr, dz), g_dev->err->msg);
            CHECK_OK(from_dev(g_dev, zd, dz, n), g_dev->err->msg);
            double err = 0, scale = 0;
            for (int i = 0; i < n; i++) {
                err = fmax(err, isfinite(zd[i]) ? fabs(zd[i] - zh[i]) : INFINITY);
                scale = fmax(scale, fabs(zh[i]));
            }
            CHECK(err <= 1e-9 * fmax(scale, 1e-300), "%s %s: |z_dev - z_host| = %g of %g", what, want, err, scale);
            printf("%-22s %-11s exact solves (%s): |z_gpu - z_host|/|z| = %.1e\n", what, want,
                   g_apply_name[o.dev_apply], scale > 0 ? err / scale : err);
            g_dev->ops->free(g_dev, dr);
            g_dev->ops->free(g_dev, dz);
            free(r);
            free(zh);
            free(zd);
        }
        if (dM) dops->destroy(dM);
        if (hM) hops->destroy(hM);
    }
}

static void with_file(const char *file, const char *pc, int allow_shift)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", SPK_TEST_DATA, file);
    spk_csr A = {0};
    spk_err e;
    CHECK_OK(spk_mm_read_csr(path, &A, NULL, &e), e.msg);
    if (strstr(pc, "-sweeps"))
        sweeps(file, &A, pc[1] == 'c', allow_shift);
    else
        compare(file, &A, pc, allow_shift);
    spk_csr_free(&A);
}

/* How the GPU sweeps' factor of A was computed with factorization = how. */
static spk_precond_factor_info dev_info(const spk_csr *A, int ic, int how, int *status)
{
    spk_precond_factor_info in;
    memset(&in, 0, sizeof in);
    spk_precond_opts o;
    spk_precond_opts_default(&o);
    o.build = g_build;
    o.factorization = how;
    const struct spk_precond_ops *ops = ic ? &spk_precond_ic0_sweeps_cuda : &spk_precond_ilu0_sweeps_cuda;
    void *M = NULL;
    *status = ops->create(g_dev, A, &o, &M);
    CHECK(ops->factor_info != NULL, "%s has no factor_info", ops->name);
    if (!*status && ops->factor_info) CHECK_OK(ops->factor_info(M, &in), "factor_info");
    ops->destroy(M);
    return in;
}

/* The factorization by sweeps (parfactor.h) on the GPU against the host's:
 * a few sweeps and the default stopping equal the host's sweeps to rounding
 * (both Jacobi style, from the same guess), swept to a standstill the exact
 * factor (checked by exact solves against the host's exact IC(0)/ILU(0)).
 * New values are compared only at the standstill: the host's refactor
 * starts from the last factor, the device's rebuild from A. */
static void iterative(const char *what, const spk_csr *A, int ic, int allow_shift)
{
    const char *sw = ic ? "ic0-sweeps" : "ilu0-sweeps", *ex = ic ? "ic0" : "ilu0";
    g_fact = SPK_FACTORIZATION_ITERATIVE;
    g_passes = 1;
    g_fsweeps = 3, g_ftol = 0;
    compare_with(what, A, sw, sw, allow_shift, 3, 1, 0);
    g_fsweeps = SPK_FACTOR_SWEEPS_DEFAULT, g_ftol = SPK_FACTOR_TOL_DEFAULT;
    compare_with(what, A, sw, sw, allow_shift, 3, 1, 0);
    g_passes = 2;
    g_fsweeps = 2000, g_ftol = 0;
    g_fact = SPK_FACTORIZATION_EXACT; /* the host's exact factor */
    compare_with(what, A, ex, sw, allow_shift, 1000, 1, 0);
    g_fact = SPK_FACTORIZATION_ITERATIVE;
    compare_with(what, A, sw, sw, allow_shift, 1000, 1, 0);
    g_fact = SPK_FACTORIZATION_EXACT, g_fsweeps = SPK_FACTOR_SWEEPS_DEFAULT, g_ftol = SPK_FACTOR_TOL_DEFAULT;
    int st = 0;
    const spk_precond_factor_info in = dev_info(A, ic, SPK_FACTORIZATION_ITERATIVE, &st);
    if (!st)
        CHECK(in.iterative == 1 && in.sweeps >= 1 && in.sweeps <= SPK_FACTOR_SWEEPS_DEFAULT && in.residual >= 0,
              "%s: factor_info %d, %d sweeps, residual %g", what, in.iterative, in.sweeps, in.residual);
}

/* factorization = auto: on the device the sweeps (the exact factor where
 * they missed factor-tol: fallback), on the host exact. */
static void auto_choice(const char *what, const spk_csr *A, int ic)
{
    int st = 0;
    const spk_precond_factor_info in = dev_info(A, ic, SPK_FACTORIZATION_AUTO, &st);
    CHECK_OK(st, g_dev->err->msg);
    if (st) return;
    if (g_build == 1) {
        CHECK(in.iterative == 0 && in.fallback == 0, "%s: auto built on the host: iterative %d, fallback %d", what,
              in.iterative, in.fallback);
        return;
    }
    CHECK(in.iterative == 1 || in.fallback == 1, "%s: auto on the device: iterative %d, fallback %d", what,
          in.iterative, in.fallback);
    /* built on the device, each phase is timed (the factor and the mode
     * at least take a launch) */
    double sum = 0;
    for (int i = 0; i < SPK_SETUP_PHASES; i++) sum += in.phase_ms[i];
    CHECK(in.phase_ms[2] > 0 && in.phase_ms[5] > 0 && sum < 6e4, "%s: build phases factor %g ms, mode %g ms, sum %g",
          what, in.phase_ms[2], in.phase_ms[5], sum);
    printf("%-22s auto: %d rows, %s\n", what, A->nrows, in.iterative ? "iterative" : "exact (the sweeps missed)");
}

/* A nonsymmetric band of half-width w, diagonally dominant: the deep case. */
static void band_matrix(int n, int w, spk_csr *A)
{
    spk_err e;
    CHECK_OK(spk_csr_alloc(A, n, n, n * (2 * w + 1), &e), e.msg);
    int q = 0;
    for (int i = 0; i < n; i++) {
        for (int j = i - w; j <= i + w; j++)
            if (j >= 0 && j < n) {
                A->colind[q] = j;
                A->val[q++] = j == i ? 1.5 * w : -0.5 - 0.4 * sin(0.7 * i + 1.3 * j);
            }
        A->rowptr[i + 1] = q;
    }
    A->nnz = q;
}

/* An SPD arrow: the last row and column full, the rest diagonal (IC(0)'s
 * last row of F is long: devsweep_iter.c's long_min). */
static void arrow_matrix(int n, spk_csr *A)
{
    spk_err e;
    CHECK_OK(spk_csr_alloc(A, n, n, 3 * n - 2, &e), e.msg);
    int q = 0;
    for (int i = 0; i < n; i++) {
        if (i < n - 1) {
            A->colind[q] = i, A->val[q++] = 4.0 + (i % 7);
            A->colind[q] = n - 1, A->val[q++] = -1.0 - 0.5 * sin(0.3 * i);
        } else {
            for (int j = 0; j < n - 1; j++) A->colind[q] = j, A->val[q++] = -1.0 - 0.5 * sin(0.3 * j);
            A->colind[q] = i, A->val[q++] = 2.0 * n;
        }
        A->rowptr[i + 1] = q;
    }
    A->nnz = q;
}

/* spk_precond_opts.stop: asked between the build's steps; stop on its
 * k-th call, for k = 1, 2, ... until a build no longer asks that often:
 * each stopped create returns SPK_PRECOND_STOPPED with nothing made and no
 * error set; then the build that ran to its end applies as one made
 * without the hook.  Where it is built and applied: g_build, g_apply. */
typedef struct stop_count {
    int calls, at;
} stop_count;

static int stop_at(void *arg)
{
    stop_count *c = arg;
    return ++c->calls >= c->at;
}

/* max_i |(M r)_i - z0_i| with M r applied on the device (dr -> dz, then z
 * on the host); *m: max_i |z0_i|. */
static double apply_away(const struct spk_precond_ops *ops, void *M, const double *dr, double *dz, double *z,
                         const double *z0, int n, double *m)
{
    double d = 0;
    *m = 0;
    CHECK_OK(ops->apply(M, dr, dz), g_dev->err->msg);
    CHECK_OK(g_dev->ops->download(g_dev, z, dz, (size_t)n * sizeof(double)), g_dev->err->msg);
    for (int i = 0; i < n; i++) {
        d = fmax(d, fabs(z[i] - z0[i]));
        *m = fmax(*m, fabs(z0[i]));
    }
    return d;
}

static void stops(const char *what, const spk_csr *A, const char *pc)
{
    const struct spk_precond_ops *ops;
    CHECK_OK(spk_precond_find(pc, g_dev, &ops, g_dev->err), g_dev->err->msg);
    spk_precond_opts o;
    spk_precond_opts_default(&o);
    o.sweeps = 16;
    o.sweeps_check = 0.01;
    o.build = g_build;
    o.dev_apply = 1; /* a kernel per sweep: no timed choice between builds */
    /* what the build would load on its way, loaded ahead (precond.h, warm) */
    CHECK(ops->warm != NULL, "%s %s: the GPU sweeps have no warm entry", what, pc);
    if (ops->warm) CHECK_OK(ops->warm(g_dev, A, &o), g_dev->err->msg);
    void *ref = NULL;
    CHECK_OK(ops->create(g_dev, A, &o, &ref), g_dev->err->msg);
    const int n = A->nrows;
    double *r = malloc((size_t)n * sizeof(double)), *z0 = malloc((size_t)n * sizeof(double));
    double *z1 = malloc((size_t)n * sizeof(double));
    double *dr = NULL, *dz = NULL;
    for (int i = 0; i < n; i++) r[i] = 1.0 + 0.25 * cos(0.3 * i);
    CHECK_OK(spk_exec_alloc_vec(g_dev, n, &dr), g_dev->err->msg);
    CHECK_OK(spk_exec_alloc_vec(g_dev, n, &dz), g_dev->err->msg);
    CHECK_OK(g_dev->ops->upload(g_dev, dr, r, (size_t)n * sizeof(double)), g_dev->err->msg);
    CHECK_OK(ops->apply(ref, dr, dz), g_dev->err->msg);
    CHECK_OK(g_dev->ops->download(g_dev, z0, dz, (size_t)n * sizeof(double)), g_dev->err->msg);
    int stopped = 0, whole = 0;
    for (int at = 1; at <= 64 && !whole; at++) {
        stop_count c = {0, at};
        o.stop = stop_at;
        o.stop_arg = &c;
        void *M = NULL;
        spk_err_clear(g_dev->err);
        const int st = ops->create(g_dev, A, &o, &M);
        if (st == SPK_PRECOND_STOPPED) {
            stopped++;
            CHECK(M == NULL && c.calls == at && g_dev->err->code == 0 && g_dev->err->msg[0] == 0,
                  "%s %s: stopped at call %d of %d: impl %p, error '%s'", what, pc, at, c.calls, M, g_dev->err->msg);
            continue;
        }
        CHECK_OK(st, g_dev->err->msg);
        if (!M) break;
        whole = 1;
        CHECK(c.calls < at, "%s %s: built whole after %d calls, stop asked at %d", what, pc, c.calls, at);
        double m;
        const double d = apply_away(ops, M, dr, dz, z1, z0, n, &m);
        CHECK(d <= 1e-12 * m, "%s %s: built after %d stops, applies %g away (of %g)", what, pc, stopped, d, m);
        ops->destroy(M);
    }
    CHECK(whole && stopped >= 2, "%s %s: %d builds stopped, one whole: %d", what, pc, stopped, whole);
    printf("%-22s %-11s stopped at each of its %d stop points, then built whole\n", what, pc, stopped);
    /* stop_dev: a flag in device memory; holding stop_value it ends the
     * device's factorization kernel, and the build ends as by stop; any
     * other value changes nothing */
    int *flag = NULL;
    const int five = 5;
    o.stop = NULL;
    o.stop_arg = NULL;
    CHECK_OK(g_dev->ops->alloc(g_dev, sizeof(int), (void **)&flag), g_dev->err->msg);
    CHECK_OK(g_dev->ops->upload(g_dev, flag, &five, sizeof five), g_dev->err->msg);
    for (int v = 5; v <= 6 && flag; v++) {
        o.stop_dev = flag;
        o.stop_value = v;
        void *M = NULL;
        spk_err_clear(g_dev->err);
        const int st = ops->create(g_dev, A, &o, &M);
        if (v == 5 && g_build == 2) {
            CHECK(st == SPK_PRECOND_STOPPED && !M && g_dev->err->code == 0,
                  "%s %s: the device's flag set: %d, impl %p, error '%s'", what, pc, st, M, g_dev->err->msg);
            continue;
        }
        CHECK_OK(st, g_dev->err->msg);
        if (!M) continue;
        double m;
        const double d = apply_away(ops, M, dr, dz, z1, z0, n, &m);
        CHECK(d <= 1e-12 * m, "%s %s: the device's flag %s: applies %g away (of %g)", what, pc,
              v == 5 ? "set (built on the host)" : "set for another race", d, m);
        ops->destroy(M);
    }
    g_dev->ops->free(g_dev, flag);
    ops->destroy(ref);
    g_dev->ops->free(g_dev, dr);
    g_dev->ops->free(g_dev, dz);
    free(r);
    free(z0);
    free(z1);
}

/* Every case, with the sweeps' factor built where g_build says. */
static void all_cases(void)
{
    spk_err e;
    spk_csr P = {0}, C = {0}, Z = {0}, O = {0};
    CHECK_OK(spk_gen_poisson3d7(12, &P, &e), e.msg);
    CHECK_OK(spk_gen_convdiff3d7(12, 100.0, &C, &e), e.msg);
    const char *all[] = {"jacobi", "ilu0", "ic0", "none"};
    for (int i = 0; i < 4; i++)
        if (CASE()) compare("poisson3d-7:12", &P, all[i], 1);
    if (CASE()) compare("convdiff3d-7:12", &C, "ilu0", 1);
    if (CASE()) compare("convdiff3d-7:12", &C, "jacobi", 1);
    /* Jacobi from A's arrays on the device: the same reciprocals; a zero
     * diagonal (west0479) fails at the host's row with its message */
    if (CASE()) compare_with("convdiff3d-7:12", &C, "jacobi", "jacobi", 1, 3, 1, 0);
    {
        char path[1024];
        spk_csr W = {0};
        snprintf(path, sizeof path, "%s/%s", SPK_TEST_DATA, "west0479.mtx.gz");
        CHECK_OK(spk_mm_read_csr(path, &W, NULL, &e), e.msg);
        if (CASE()) compare_with("west0479.mtx.gz", &W, "jacobi", "jacobi", 1, 3, 1, 0);
        spk_csr_free(&W);
    }
    if (CASE()) sweeps("poisson3d-7:12", &P, 1, 1);
    if (CASE()) sweeps("poisson3d-7:12", &P, 0, 1);
    if (CASE()) sweeps("convdiff3d-7:12", &C, 0, 1);
    /* more rows than one block's sweeps take (SPK_DEV_SMALL_ROWS): a kernel per sweep */
    spk_csr P24 = {0};
    CHECK_OK(spk_gen_poisson3d7(24, &P24, &e), e.msg);
    if (CASE()) sweeps("poisson3d-7:24", &P24, 1, 1);
    if (CASE()) sweeps("poisson3d-7:24", &P24, 0, 1);
    spk_csr_free(&P24);
    /* more rows than the factorization takes in row order (devsweep_build.c's
     * ROW_ORDER_ROWS): the computed dependency order */
    spk_csr P42 = {0};
    CHECK_OK(spk_gen_poisson3d7(42, &P42, &e), e.msg);
    if (CASE()) sweeps("poisson3d-7:42", &P42, 1, 1);
    if (CASE()) sweeps("poisson3d-7:42", &P42, 0, 1);
    spk_csr_free(&P42);
    /* couplings 35,000 rows apart (beyond 16-bit column offsets): 40,000
     * rows, a tridiagonal and -0.5 between rows i and i + 35000 */
    {
        const int m = 40000, far = 35000;
        spk_csr W = {0};
        CHECK_OK(spk_csr_alloc(&W, m, m, 3 * m - 2 + 2 * (m - far), &e), e.msg);
        int q = 0;
        for (int i = 0; i < m; i++) {
            const int cs[5] = {i - far, i - 1, i, i + 1, i + far};
            const double vs[5] = {-0.5, -1.0, 4.0, -1.0, -0.5};
            for (int t = 0; t < 5; t++)
                if (cs[t] >= 0 && cs[t] < m) {
                    W.colind[q] = cs[t];
                    W.val[q++] = vs[t];
                }
            W.rowptr[i + 1] = q;
        }
        if (CASE()) sweeps("far couplings", &W, 1, 1);
        if (CASE()) sweeps("far couplings", &W, 0, 1);
        spk_csr_free(&W);
    }
    if (CASE()) sweeps_k("poisson3d-7:12", &P, 1);
    if (CASE()) sweeps_k("convdiff3d-7:12", &C, 0);
    /* rows long enough for 8, 16 and 32 threads per row in the sweeps: the
     * 27-point stencil and two dense SPD matrices (4 on the diagonal, 1/n
     * elsewhere) */
    spk_csr P27 = {0};
    CHECK_OK(spk_gen_poisson3d27(6, &P27, &e), e.msg);
    if (CASE()) sweeps("poisson3d-27:6", &P27, 1, 1);
    if (CASE()) sweeps("poisson3d-27:6", &P27, 0, 1);
    spk_csr_free(&P27);
    /* ... and beyond the block rows: the lean sweeps' thread per row (13
     * entries a row in each triangle) */
    CHECK_OK(spk_gen_poisson3d27(24, &P27, &e), e.msg);
    if (CASE()) sweeps("poisson3d-27:24", &P27, 1, 1);
    if (CASE()) sweeps("poisson3d-27:24", &P27, 0, 1);
    spk_csr_free(&P27);
    const int dn[] = {40, 80};
    for (int t = 0; t < 2; t++) {
        spk_csr D = {0};
        const int m = dn[t];
        CHECK_OK(spk_csr_alloc(&D, m, m, m * m, &e), e.msg);
        for (int i = 0; i < m; i++) {
            D.rowptr[i + 1] = (i + 1) * m;
            for (int j = 0; j < m; j++) {
                D.colind[i * m + j] = j;
                D.val[i * m + j] = i == j ? 4.0 : 1.0 / m;
            }
        }
        char nm[32];
        snprintf(nm, sizeof nm, "dense %d", m);
        if (CASE()) sweeps(nm, &D, 1, 1);
        if (CASE()) sweeps(nm, &D, 0, 1);
        spk_csr_free(&D);
    }
    if (CASE()) sweeps_check("poisson3d-7:12", &P, 1);
    if (CASE()) sweeps_check("convdiff3d-7:12", &C, 0);
    /* more rows than one block's exact solves take (SPK_DEV_SOLVE_ROWS): cusparseSpSV */
    spk_csr P32 = {0}, C32 = {0};
    CHECK_OK(spk_gen_poisson3d7(32, &P32, &e), e.msg);
    CHECK_OK(spk_gen_convdiff3d7(32, 100.0, &C32, &e), e.msg);
    if (CASE()) sweeps_check("poisson3d-7:32", &P32, 1);
    if (CASE()) sweeps_check("convdiff3d-7:32", &C32, 0);
    if (CASE()) sweeps_rho("poisson3d-7:32", &P32, 1);
    if (CASE()) sweeps_rho("convdiff3d-7:32", &C32, 0);
    spk_csr_free(&P32);
    spk_csr_free(&C32);
    /* 0 x 0 and 1 x 1 */
    CHECK_OK(spk_csr_alloc(&Z, 0, 0, 0, &e), e.msg);
    for (int i = 0; i < 4; i++)
        if (CASE()) compare("0x0", &Z, all[i], 1);
    if (CASE()) sweeps("0x0", &Z, 1, 1);
    if (CASE()) sweeps("0x0", &Z, 0, 1);
    CHECK_OK(spk_csr_alloc(&O, 1, 1, 1, &e), e.msg);
    O.rowptr[1] = 1;
    O.colind[0] = 0;
    O.val[0] = 4;
    for (int i = 0; i < 4; i++)
        if (CASE()) compare("1x1", &O, all[i], 1);
    if (CASE()) sweeps("1x1", &O, 1, 1);
    if (CASE()) sweeps("1x1", &O, 0, 1);
    /* real matrices: plain, shifted, failing */
    if (CASE()) with_file("nos3.mtx.gz", "ic0", 1);
    if (CASE()) with_file("plat362.mtx.gz", "ic0", 1);  /* needs alpha > 0 */
    if (CASE()) with_file("bcsstk21.mtx.gz", "ic0", 1); /* needs alpha > 0 */
    if (CASE()) with_file("plat362.mtx.gz", "ic0", 0);  /* fails at the same row */
    if (CASE()) with_file("sherman3.mtx.gz", "ilu0", 1);
    if (CASE()) with_file("orsirr_1.mtx.gz", "ilu0", 1);
    if (CASE()) with_file("west0479.mtx.gz", "ilu0", 1); /* zero diagonal: fails at the same row */
    if (CASE()) with_file("west0479.mtx.gz", "jacobi", 1);
    /* the device-resident sweeps: plain, shifted, failing at the host's row */
    if (CASE()) with_file("nos3.mtx.gz", "ic0-sweeps", 1);
    if (CASE()) with_file("plat362.mtx.gz", "ic0-sweeps", 1);
    if (CASE()) with_file("bcsstk21.mtx.gz", "ic0-sweeps", 1);
    if (CASE()) with_file("plat362.mtx.gz", "ic0-sweeps", 0);
    if (CASE()) with_file("sherman3.mtx.gz", "ilu0-sweeps", 1);
    if (CASE()) with_file("orsirr_1.mtx.gz", "ilu0-sweeps", 1);
    if (CASE()) with_file("west0479.mtx.gz", "ilu0-sweeps", 1);
    /* the factor by sweeps: grids, a deep band of 50,000 rows, failures at the host's row */
    if (CASE()) iterative("poisson3d-7:12", &P, 1, 1);
    if (CASE()) iterative("convdiff3d-7:12", &C, 0, 1);
    if (CASE()) auto_choice("poisson3d-7:12", &P, 1);
    {
        spk_csr Bd = {0}, Bs = {0};
        band_matrix(50000, 40, &Bd);
        if (CASE()) iterative("band 50000/40", &Bd, 0, 1);
        if (CASE()) auto_choice("band 50000/40", &Bd, 0);
        spk_csr_free(&Bd);
        CHECK_OK(spk_gen_poisson2d5(120, &Bs, &e), e.msg);
        if (CASE()) iterative("poisson2d-5:120", &Bs, 1, 1);
        if (CASE()) auto_choice("poisson2d-5:120", &Bs, 1);
        spk_csr_free(&Bs);
        /* long rows of F, a thread per entry (devsweep_iter.c's long_min):
         * an arrow (IC and ILU), power-law degrees (IC and ILU), a circuit
         * with three supply nets (ILU) */
        arrow_matrix(3000, &Bs);
        if (CASE()) iterative("arrow 3000", &Bs, 1, 1);
        if (CASE()) iterative("arrow 3000", &Bs, 0, 1);
        spk_csr_free(&Bs);
        CHECK_OK(spk_gen_spec("powerlaw-sym:5000", &Bs, &e), e.msg);
        if (CASE()) iterative("powerlaw-sym:5000", &Bs, 1, 1);
        if (CASE()) iterative("powerlaw-sym:5000", &Bs, 0, 1);
        spk_csr_free(&Bs);
        CHECK_OK(spk_gen_spec("circuit:3000:3", &Bs, &e), e.msg);
        if (CASE()) iterative("circuit:3000:3", &Bs, 0, 1);
        spk_csr_free(&Bs);
    }
    g_fact = SPK_FACTORIZATION_ITERATIVE, g_fsweeps = 2000, g_ftol = 0;
    if (CASE()) with_file("plat362.mtx.gz", "ic0-sweeps", 1);
    if (CASE()) with_file("plat362.mtx.gz", "ic0-sweeps", 0);
    if (CASE()) with_file("west0479.mtx.gz", "ilu0-sweeps", 1);
    g_fact = SPK_FACTORIZATION_EXACT, g_fsweeps = SPK_FACTOR_SWEEPS_DEFAULT, g_ftol = SPK_FACTOR_TOL_DEFAULT;
    if (CASE()) stops("poisson3d-7:12", &P, "ic0-sweeps");
    if (CASE()) stops("convdiff3d-7:12", &C, "ilu0-sweeps");
    spk_csr_free(&P);
    spk_csr_free(&C);
    spk_csr_free(&Z);
    spk_csr_free(&O);
}

/* test_precond_cuda [host|device] [I/N]: all cases with the sweeps' factor
 * built there; without host or device, both; with I/N every N-th case from
 * the I-th (a sanitizer run can split them). */
int main(int argc, char **argv)
{
    static spk_err herr, derr;
    int first = 1, last = 2;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "host") == 0 || strcmp(argv[a], "device") == 0) {
            first = last = strcmp(argv[a], "host") == 0 ? 1 : 2;
        } else if (check_parts(argv[a]) != 0) {
            fprintf(stderr, "usage: %s [host|device] [I/N]\n", argv[0]);
            return 2;
        }
    }
    if (spk_exec_host_create(&herr, &g_host)) return 1;
    g_dev = test_exec(&derr);
    for (g_build = first; g_build <= last; g_build++) {
        printf("-- the sweeps' factor built on the %s\n", g_build == 1 ? "host" : "device");
        all_cases();
    }
    spk_exec_destroy(g_dev);
    spk_exec_destroy(g_host);
    return check_exit();
}
