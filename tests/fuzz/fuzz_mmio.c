/* fuzz_mmio.c -- the Matrix Market reader and the CSR checks behind it, fed
 * arbitrary bytes.
 *
 * Built with clang -fsanitize=fuzzer (cmake -DSPK_FUZZ=ON, scripts/fuzz.sh)
 * it is a libFuzzer target; built without it (every build) main() runs each
 * file named on the command line, or each file of a named folder, through the
 * same function: the CTest "test_fuzz_regress" replays the seed corpus and
 * every input the fuzzer has found a bug with (tests/fuzz/regress).
 *
 * What must hold for any input, else abort() (a finding):
 *   - the sparse reader either fails with SPK_ERR_PARSE / SPK_ERR_UNSUPPORTED /
 *     SPK_ERR_NOMEM and a message that names the input, or returns a CSR
 *     matrix that passes spk_csr_validate (sorted, no duplicates, indices in
 *     range) with finite values and dimensions that agree with the header;
 *   - the complex reader likewise, with a canonical complex matrix of finite
 *     values (real files too, and every symmetry, hermitian included);
 *   - the dense reader likewise fails with a named message, or returns
 *     nrows x ncols finite values;
 *   - what the reader returns (up to 2^22 rows + columns) can be transposed,
 *     checked for symmetry and multiplied without a sanitizer report;
 *   - the input written to a file and read through a window of 64 bytes
 *     (lines of up to 24) gives what the text in memory gives: the same
 *     status, message and matrix, unless a line is longer than 24 bytes
 *     (then refused as such). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "core/csr.h"
#include "core/zcsr.h"
#include "io/mm_parse.h" /* spk_mm_set_window */
#include "io/mmio.h"

#define NAME "fuzz-input"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void finding(const char *what, const char *msg)
{
    fprintf(stderr, "fuzz_mmio: %s%s%s\n", what, msg ? ": " : "", msg ? msg : "");
    abort();
}

static void check_failure(int st, const spk_err *e)
{
    if (st != SPK_ERR_PARSE && st != SPK_ERR_UNSUPPORTED && st != SPK_ERR_NOMEM)
        finding("unexpected status", e->msg);
    if (!strstr(e->msg, NAME)) finding("error message does not name the input", e->msg);
}

static void check_sparse(const uint8_t *data, size_t size)
{
    spk_err e;
    spk_err_clear(&e);
    spk_csr A = {0};
    spk_mm_info info;
    int st = spk_mm_read_csr_mem(NAME, (const char *)data, size, &A, &info, &e);
    if (st) {
        check_failure(st, &e);
        spk_csr_free(&A);
        return;
    }
    if (spk_csr_validate(&A, 1, &e)) finding("the reader returned an invalid CSR matrix", e.msg);
    if (A.nrows != info.nrows || A.ncols != info.ncols) finding("dimensions differ from the header", NULL);
    for (int k = 0; k < A.nnz; k++)
        if (!isfinite(A.val[k])) finding("a non-finite value was accepted", NULL);
    if ((size_t)A.nrows + (size_t)A.ncols > ((size_t)1 << 22)) { /* a legal but huge header: */
        spk_csr_free(&A);                                         /* read, not worked on */
        return;
    }
    spk_csr T = {0};
    if (spk_csr_transpose(&A, &T, &e) == SPK_OK) {
        if (T.nrows != A.ncols || T.nnz != A.nnz) finding("transpose changed the size", NULL);
        spk_csr_free(&T);
    }
    if (A.nrows == A.ncols) {
        int pattern = 0, values = 0;
        spk_csr_symmetry(&A, 1e-12, &pattern, &values, &e);
    }
    {
        double *x = malloc(((size_t)A.ncols + 1) * sizeof(double));
        double *y = malloc(((size_t)A.nrows + 1) * sizeof(double));
        if (x && y) {
            for (int j = 0; j < A.ncols; j++) x[j] = 1.0;
            spk_csr_spmv(&A, 1.0, x, 0.0, y);
        }
        free(x);
        free(y);
    }
    spk_csr_free(&A);
}

/* The complex reader: a named failure, or canonical complex CSR with finite
 * values whose symmetry can be classified and product formed. */
static void check_zsparse(const uint8_t *data, size_t size)
{
    spk_err e;
    spk_err_clear(&e);
    spk_zcsr A = {0};
    spk_mm_info info;
    int st = spk_mm_read_zcsr_mem(NAME, (const char *)data, size, &A, &info, &e);
    if (st) {
        check_failure(st, &e);
        return;
    }
    const spk_csr pattern = {A.nrows, A.ncols, A.nnz, A.rowptr, A.colind, NULL};
    if (spk_csr_validate(&pattern, 1, &e)) finding("the complex reader returned an invalid matrix", e.msg);
    if (A.nrows != info.nrows || A.ncols != info.ncols) finding("complex dimensions differ from the header", NULL);
    for (size_t k = 0; k < 2 * (size_t)A.nnz; k++)
        if (!isfinite(A.val[k])) finding("a non-finite complex value was accepted", NULL);
    if ((size_t)A.nrows + (size_t)A.ncols <= ((size_t)1 << 22)) {
        spk_zcsr_symmetry(&A);
        double *x = calloc(2 * (size_t)A.ncols + 2, sizeof(double));
        double *y = malloc((2 * (size_t)A.nrows + 2) * sizeof(double));
        if (x && y) spk_zcsr_spmv(&A, x, y);
        free(x);
        free(y);
    }
    spk_zcsr_free(&A);
}

static void check_dense(const uint8_t *data, size_t size)
{
    spk_err e;
    spk_err_clear(&e);
    int nr = -1, nc = -1;
    double *v = NULL;
    int st = spk_mm_read_dense_mem(NAME, (const char *)data, size, &nr, &nc, &v, &e);
    if (st) {
        check_failure(st, &e);
        free(v);
        return;
    }
    if (nr < 0 || nc < 0) finding("negative dense dimensions", NULL);
    for (size_t k = 0; k < (size_t)nr * (size_t)nc; k++)
        if (!isfinite(v[k])) finding("a non-finite dense value was accepted", NULL);
    free(v);
}

/* The file reader through a tiny window against the text in memory (one
 * temporary file a process, removed at exit). */
static char window_path[64];

static void remove_window_file(void)
{
    if (window_path[0]) unlink(window_path);
}

static void check_window(const uint8_t *data, size_t size)
{
    char *path = window_path;
    if (!path[0]) {
        snprintf(window_path, sizeof window_path, "/tmp/spk-fuzz-XXXXXX");
        const int fd = mkstemp(window_path);
        if (fd < 0) finding("cannot make a temporary file", window_path);
        close(fd);
        atexit(remove_window_file);
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) finding("cannot write the temporary file", path);
    spk_err em, ef;
    spk_err_clear(&em);
    spk_err_clear(&ef);
    spk_csr M = {0}, F = {0};
    const int sm = spk_mm_read_csr_mem(NAME, (const char *)data, size, &M, NULL, &em);
    spk_mm_set_window(64, 24);
    const int sf = spk_mm_read_csr(path, &F, NULL, &ef);
    spk_mm_set_window(0, 0);
    const size_t np = strlen(path), nn = strlen(NAME);
    const int long_line = sf == SPK_ERR_PARSE && strstr(ef.msg, "a line longer than");
    if (!long_line) {
        if (sf != sm) finding("the windowed file's status differs from the text's", ef.msg);
        if (sf && (strncmp(ef.msg, path, np) != 0 || strncmp(em.msg, NAME, nn) != 0 || strcmp(ef.msg + np, em.msg + nn)))
            finding("the windowed file's message differs from the text's", ef.msg);
        if (!sf && (F.nrows != M.nrows || F.ncols != M.ncols || F.nnz != M.nnz ||
                    memcmp(F.rowptr, M.rowptr, ((size_t)M.nrows + 1) * sizeof(int)) != 0 ||
                    (M.nnz && (memcmp(F.colind, M.colind, (size_t)M.nnz * sizeof(int)) != 0 ||
                               memcmp(F.val, M.val, (size_t)M.nnz * sizeof(double)) != 0))))
            finding("the windowed file's matrix differs from the text's", NULL);
    }
    spk_csr_free(&M);
    spk_csr_free(&F);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_sparse(data, size);
    check_zsparse(data, size);
    check_dense(data, size);
    check_window(data, size);
    return 0;
}

#ifndef SPK_FUZZ_LIBFUZZER
#include <dirent.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fuzz_mmio: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 1 << 16, len = 0, got;
    uint8_t *buf = malloc(cap);
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            uint8_t *b = realloc(buf, cap *= 2);
            if (!b) free(buf);
            buf = b;
        }
    }
    fclose(f);
    if (!buf) return 1;
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb) != 0) {
            fprintf(stderr, "fuzz_mmio: no such file or folder: %s\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(sb.st_mode)) {
            bad |= run_file(argv[i]);
            files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *de;
        while (d && (de = readdir(d))) {
            if (de->d_name[0] == '.') continue;
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", argv[i], de->d_name);
            if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode)) {
                bad |= run_file(p);
                files++;
            }
        }
        if (d) closedir(d);
    }
    if (files == 0) {
        fprintf(stderr, "fuzz_mmio: no input files\n");
        return 1;
    }
    printf("fuzz_mmio: %d inputs, every one %s\n", files, bad ? "read (some unreadable)" : "checked");
    return bad;
}
#endif
