/* test_spmv_shared.c -- every SpMV format of the device under test against
 * the host CSR product on every matrix of the SuiteSparse set (label
 * "shared"; exit 77 when the folder is absent).  Padded formats may refuse a
 * matrix (the padding bound), and must say so; every other format must
 * accept every matrix.  Each format also runs in single precision on every
 * matrix it accepts (spmv_compare_float: the float summation bound per row).
 * Prints the worst normwise error of each format, and its worst float error
 * as a fraction of that bound.  With I/N, every N-th matrix from the I-th
 * (ctest runs the set in parts side by side). */
#include <sys/stat.h>

#include "io/mmio.h"
#include "spmv_compare.h"

static int padded(const char *name)
{
    /* the ELL family and the streamed formats pad rows to their group's longest (cusparse-sell
     * too: cuSPARSE's slices are the rows in their order, with no sorting window as sell has);
     * the blocked formats (bcsr, cusparse-bsr, sbcsr) fill b x b blocks that scattered entries
     * leave mostly zeros */
    static const char *const padded_formats[] = {"ell",  "bell",         "dia",          "rgcsr", "pbc", "scsr",
                                                 "sbcsr", "bcsr", "cusparse-bsr", "cusparse-sell"};
    for (size_t k = 0; k < sizeof padded_formats / sizeof padded_formats[0]; k++)
        if (strcmp(name, padded_formats[k]) == 0) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 2 || (argc == 2 && check_parts(argv[1]) != 0)) {
        fprintf(stderr, "usage: %s [I/N]   (I/N: every N-th matrix from the I-th)\n", argv[0]);
        return 2;
    }
    const char *dir = getenv("SPK_SHARED_MATRICES");
    if (!dir || !*dir) dir = SPK_SHARED_MATRICES;
    char path[2048];
    snprintf(path, sizeof path, "%s/MANIFEST.tsv", dir);
    struct stat sb;
    if (stat(path, &sb) != 0) SKIP("no matrix collection at %s", dir);
    spk_err err;
    spk_err_clear(&err);
    spk_exec *ex = test_exec(&err);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "cannot open %s", path);
    if (!f) return check_exit();
    char line[4096];
    int matrices = 0;
    double worst[64] = {0}, worst_float[64] = {0};
    int refused[64] = {0};
    while (fgets(line, sizeof line, f)) {
        char *file = strtok(line, "\t\n");
        if (!file || strcmp(file, "file") == 0 || !CASE()) continue;
        snprintf(path, sizeof path, "%s/%s", dir, file);
        spk_csr A = {0};
        CHECK_OK(spk_mm_read_csr(path, &A, NULL, &err), err.msg);
        matrices++;
        int k = 0;
        for (const struct spk_spmv_ops *const *p = spk_spmv_list(); *p; p++) {
            if (strcmp((*p)->exec, ex->ops->name) != 0) continue;
            int st = spmv_compare_worst(*p, ex, &A, file, !padded((*p)->name), &worst[k]);
            if (st) {
                CHECK(st == SPK_ERR_UNSUPPORTED && check_contains(ex->err->msg, "refused"),
                      "%s on %s: %s", (*p)->name, file, ex->err->msg);
                refused[k]++;
                printf("%-32s %-11s refused: %s\n", file, (*p)->name, ex->err->msg);
            } else {
                spmv_compare_float(*p, ex, &A, file, 1, NULL, -1, &worst_float[k]);
            }
            k++;
        }
        spk_csr_free(&A);
    }
    fclose(f);
    int k = 0;
    for (const struct spk_spmv_ops *const *p = spk_spmv_list(); *p; p++) {
        if (strcmp((*p)->exec, ex->ops->name) != 0) continue;
        printf("%-11s worst error / (|A||x|) %.2e over %d matrices, %d refused; in float %.3f of the bound\n",
               (*p)->name, worst[k], matrices, refused[k], worst_float[k]);
        k++;
    }
    CHECK(matrices > 0, "no matrices read");
    spk_exec_destroy(ex);
    return check_exit();
}
