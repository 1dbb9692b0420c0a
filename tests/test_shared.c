/* test_shared.c -- the whole SuiteSparse set (label "shared"; exit 77 when the
 * folder is absent).  Every file must parse with the manifest's size; every
 * SPD matrix and the listed nonsymmetric ones must converge with the default
 * `spk solve` choices on the host, with the true residual reported below
 * 1e-6 (rtol is 1e-8 on the recurrence); every other matrix must end with a
 * converged solve or a clean, explained error.
 * The folder is SPK_SHARED_MATRICES (CMake) or the environment variable of
 * the same name. */
#include <sys/stat.h>

#include <time.h>

#include "device.h"
#include "iter_match.h"
#include "solve_common.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *const must[] = {"add20",   "add32",    "bfwb398",  "cage8",    "cage10",
                                   "cryg2500", "ex6",      "hor_131",  "orsirr_1", "pde2961",
                                   "rdb1250", "rdb2048",  "sherman1", "sherman2", "sherman3",
                                   "sherman4", "sherman5", "wang4",    "watt_2",   NULL};

static int in_must(const char *name)
{
    for (int i = 0; must[i]; i++)
        if (strcmp(must[i], name) == 0) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = getenv("SPK_SHARED_MATRICES");
    if (!dir || !*dir) dir = SPK_SHARED_MATRICES;
    /* optional: one matrix name, or --required for the required ones only */
    int required_only = argc > 1 && strcmp(argv[1], "--required") == 0;
    const char *only = argc > 1 && !required_only ? argv[1] : NULL;
    char path[2048];
    snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
    struct stat sb;
    if (stat(path, &sb) != 0) SKIP("no matrix collection at %s", dir);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "cannot open %s", path);
    if (!f) return check_exit();
    spk_context *ctx = test_context(), *host = NULL;
    CHECK_OK(spk_context_create(&host, SPK_DEVICE_HOST), "host context");
    char line[4096];
    int files = 0, must_seen = 0, solved = 0, failed_clean = 0;
    while (fgets(line, sizeof line, f)) {
        char file[256], name[256], group[256], field[64], sym[64], spd[16];
        int rows, cols;
        long long entries;
        /* file name group rows cols entries field symmetry spd ... (tab separated) */
        char *tok[12];
        int nt = 0;
        for (char *p = strtok(line, "\t\n"); p && nt < 12; p = strtok(NULL, "\t\n")) tok[nt++] = p;
        if (nt < 9 || strcmp(tok[0], "file") == 0) continue;
        snprintf(file, sizeof file, "%s", tok[0]);
        snprintf(name, sizeof name, "%s", tok[1]);
        snprintf(group, sizeof group, "%s", tok[2]);
        rows = atoi(tok[3]);
        cols = atoi(tok[4]);
        entries = atoll(tok[5]);
        snprintf(field, sizeof field, "%s", tok[6]);
        snprintf(sym, sizeof sym, "%s", tok[7]);
        snprintf(spd, sizeof spd, "%s", tok[8]);
        if (only && strcmp(only, name) != 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, file);
        int required = strcmp(spd, "yes") == 0 || in_must(name);
        if (required_only && !required) continue;
        files++;
        must_seen += required;
        file_solve s;
        double t0 = now();
        solve_file(ctx, path, SPK_SOLVER_AUTO, SPK_PRECOND_AUTO, &s);
        double t = now() - t0;
        CHECK(s.read_status == 0, "%s: %s", name, s.msg);
        if (s.read_status) continue;
        CHECK(s.n == rows, "%s: %d rows, manifest says %d", name, s.n, rows);
        long long expect_max = strcmp(sym, "general") == 0 ? entries : 2 * entries;
        CHECK(s.nnz <= expect_max && s.nnz > 0, "%s: %d nonzeros for %lld entries (%s)", name, s.nnz,
              entries, sym);
        (void)cols;
        (void)field;
        (void)group;
        int ok = s.setup_status == 0 && s.solve_status == 0;
        int host_it = -1;
        double host_ms = NAN;
        if (required) {
            CHECK(ok, "%s (required): %s", name, s.msg);
            CHECK(!ok || s.r.true_relres <= 1e-6, "%s: true relres %g", name, s.r.true_relres);
            if (strcmp(TEST_DEVICE_NAME, "host") != 0) { /* same iterations as the host */
                file_solve h;
                solve_file_as(host, path, &s, &h);
                host_it = h.r.iterations;
                host_ms = 1e3 * h.r.t_total;
                CHECK(iter_match(s.method, s.r.iterations, h.r.iterations), "%s: %d iterations on %s, %d on the host",
                      name, s.r.iterations, TEST_DEVICE_NAME, h.r.iterations);
            }
        } else {
            /* anything else: a converged solve or a clean error with an explanation */
            CHECK(ok || strlen(s.msg) > 10, "%s: failed without an explanation", name);
        }
        solved += ok;
        failed_clean += !ok;
        printf("%-30s %-3s %-14s %-10s it %5d (host %5d)  relres %.1e  true %.1e  shift %-6g err %.1e  "
               "solve %.2f ms (host %.2f ms)  %.2fs%s%s\n",
               name, required ? "req" : "", s.method[0] ? s.method : "-",
               ok ? "converged" : "FAILED", s.r.iterations, host_it, s.r.relres, s.r.true_relres,
               s.r.shift, s.err_inf, 1e3 * s.r.t_total, host_ms, t, ok ? "" : "  ", ok ? "" : s.msg);
    }
    fclose(f);
    printf("%d files, %d required, %d converged, %d ended with an error\n", files, must_seen, solved,
           failed_clean);
    CHECK(files > 0, "no matrix selected");
    spk_context_destroy(ctx);
    spk_context_destroy(host);
    return check_exit();
}
