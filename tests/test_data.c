/* test_data.c -- the README's main job: every matrix in data/ solved with the
 * defaults on the host (converged, true residual below rtol), and west0479,
 * whose ILU(0) cannot be formed, failing with a message that names the row.
 * An argument (a file name without .mtx.gz) limits the run to that matrix, so
 * that the slow sanitizer runs can go one matrix at a time. */
#include "device.h"
#include "iter_match.h"
#include "solve_common.h"
#include "spmv/spmv.h"

/* whether matrix `file` is in this run (all of them without an argument) */
static int wanted(const char *only, const char *file)
{
    size_t n = only ? strlen(only) : 0;
    return !only || (strncmp(file, only, n) == 0 && strcmp(file + n, ".mtx.gz") == 0);
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    int ran = 0;
    static const struct {
        const char *file, *method;
        int needs_shift;
        int pct; /* iteration bound between formats (0: iter_match's) */
    } ok[] = {
        {"nos3.mtx.gz", "cg+ic0", 0, 0},     {"plat362.mtx.gz", "cg+ic0", 1, 50}, /* see iter_match.h */
        {"bcsstk21.mtx.gz", "cg+ic0", 1, 0}, {"sherman3.mtx.gz", "bicgstab+ilu0", 0, 0},
        {"orsirr_1.mtx.gz", "bicgstab+ilu0", 0, 0},
    };
    spk_context *ctx = test_context(), *host = NULL;
    CHECK_OK(spk_context_create(&host, SPK_DEVICE_HOST), "host context");
    char path[1024];
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        if (!wanted(only, ok[i].file)) continue;
        ran++;
        snprintf(path, sizeof path, "%s/%s", SPK_TEST_DATA, ok[i].file);
        file_solve f;
        solve_file(ctx, path, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, &f);
        CHECK(f.read_status == 0 && f.setup_status == 0 && f.solve_status == 0, "%s: %s", ok[i].file,
              f.msg);
        /* on the GPU IC(0)/ILU(0) may run as the device's sweeps or exact solves: "cg+ic0-sweeps" */
        const size_t ml = strlen(ok[i].method);
        CHECK(strncmp(f.method, ok[i].method, ml) == 0 && (f.method[ml] == '\0' || f.method[ml] == '-'),
              "%s: method %s, expected %s", ok[i].file, f.method, ok[i].method);
        CHECK(f.r.relres <= 1e-8, "%s: relres %g", ok[i].file, f.r.relres);
        CHECK(f.r.true_relres <= 1e-7, "%s: true relres %g", ok[i].file, f.r.true_relres);
        CHECK(ok[i].needs_shift ? f.r.shift > 0 : f.r.shift == 0, "%s: shift %g", ok[i].file, f.r.shift);
        printf("%-18s %-14s %5d iterations  relres %.2e  true %.2e  shift %g  err %.2e  (%s)\n",
               ok[i].file, f.method, f.r.iterations, f.r.relres, f.r.true_relres, f.r.shift, f.err_inf,
               TEST_DEVICE_NAME);
        if (ctx != host && strcmp(TEST_DEVICE_NAME, "host") != 0) {
            file_solve h;
            solve_file_as(host, path, &f, &h);
            CHECK(iter_match_pct(f.method, f.r.iterations, h.r.iterations, ok[i].pct) && h.r.shift == f.r.shift,
                  "%s: %d iterations (shift %g) on %s, %d (shift %g) on the host", ok[i].file,
                  f.r.iterations, f.r.shift, TEST_DEVICE_NAME, h.r.iterations, h.r.shift);
        }
    }
    /* every SpMV format solves the same systems in the same number of iterations */
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        if (!wanted(only, ok[i].file)) continue;
        snprintf(path, sizeof path, "%s/%s", SPK_TEST_DATA, ok[i].file);
        file_solve base;
        solve_file_format(ctx, path, TEST_FORMAT, &base);
        for (const struct spk_spmv_ops *const *p = spk_spmv_list(); *p; p++) {
            if (strcmp((*p)->exec, spk_context_device(ctx)) != 0) continue;
            file_solve f;
            solve_file_format(ctx, path, (*p)->name, &f);
            CHECK(f.setup_status == 0 && f.solve_status == 0, "%s with %s: %s", ok[i].file, (*p)->name, f.msg);
            CHECK(iter_match_pct(f.method, f.r.iterations, base.r.iterations, ok[i].pct),
                  "%s: %d iterations with %s, %d with %s", ok[i].file, f.r.iterations, (*p)->name,
                  base.r.iterations, TEST_FORMAT);
        }
    }
    /* west0479: no diagonal at all, so ILU(0) needs the static pivoting that the default
     * applies (without it a zero pivot no shift repairs: test_pivot, test_cli) */
    if (wanted(only, "west0479.mtx.gz")) {
        ran++;
        snprintf(path, sizeof path, "%s/west0479.mtx.gz", SPK_TEST_DATA);
        file_solve f;
        solve_file(ctx, path, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, &f);
        CHECK(f.read_status == 0, "west0479 read: %s", f.msg);
        CHECK(f.setup_status == 0 && f.solve_status == 0 && f.r.true_relres <= 2e-8 && strncmp(f.method, "bicgstab+ilu0", 13) == 0,
              "west0479, ILU(0) after static pivoting: %s, status %d/%d, true residual %.2e (%s)", f.method,
              f.setup_status, f.solve_status, f.r.true_relres, f.msg);
        printf("west0479: %s, %d iterations after static pivoting\n", f.method, f.r.iterations);
        /* but it is solvable without ILU(0) */
        solve_file(ctx, path, SPK_SOLVER_BICGSTAB, SPK_PRECOND_NONE, &f);
        CHECK(f.setup_status == 0, "west0479 without preconditioner: %s", f.msg);
    }
    CHECK(ran > 0, "no matrix of data/ is named '%s'", only ? only : "");
    spk_context_destroy(ctx);
    spk_context_destroy(host);
    return check_exit();
}
