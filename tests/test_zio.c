/* test_zio.c -- complex matrices in and out: the Matrix Market complex reader
 * (every symmetry expanded, real/integer/pattern files read as complex, every
 * malformed input refused with FILE:LINE and its cause, the same through a
 * small window), the writers' exact round trips and refusals, dense complex
 * arrays, the banner peek, the memory limit; and the complex generators
 * (sizes, symmetry class, determinism, the Helmholtz diagonal and indefinite
 * real part, the curl-curl blocks, the magnetic Laplacian's phases and
 * positive definiteness, spec errors). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <unistd.h>

#include "check.h"
#include "core/csr.h"
#include "core/zcsr.h"
#include "io/gen_complex.h"
#include "io/mm_parse.h" /* spk_mm_set_window */
#include "io/mmio.h"

#define MMB "%%MatrixMarket matrix "
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---- helpers --------------------------------------------------------------- */

static void join(char *out, size_t cap, const char *dir, const char *name)
{
    const int n = snprintf(out, cap, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= cap) {
        fprintf(stderr, "path too long: %s/%s\n", dir, name);
        exit(1);
    }
}

/* Entry (i, j) of A (0-based) into re, im; 0 when it is not stored. */
static int zget(const spk_zcsr *A, int i, int j, double *re, double *im)
{
    *re = *im = 0;
    for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        if (A->colind[k] == j) {
            *re = A->val[2 * (size_t)k];
            *im = A->val[2 * (size_t)k + 1];
            return 1;
        }
    return 0;
}

/* Is A canonical, nrows x ncols with nnz entries? */
static void zshape(const spk_zcsr *A, int m, int n, int nnz, const char *what)
{
    spk_err e = {0};
    const spk_csr pattern = {A->nrows, A->ncols, A->nnz, A->rowptr, A->colind, NULL};
    CHECK(A->nrows == m && A->ncols == n && A->nnz == nnz, "%s: %d x %d with %d entries, expected %d x %d with %d",
          what, A->nrows, A->ncols, A->nnz, m, n, nnz);
    CHECK(A->rowptr && spk_csr_validate(&pattern, 1, &e) == 0, "%s: not canonical: %s", what, e.msg);
}

/* Is entry (i, j) (1-based) of A (re, im), exactly? */
static void zentry(const spk_zcsr *A, int i, int j, double re, double im, const char *what)
{
    double r, m;
    const int stored = zget(A, i - 1, j - 1, &r, &m);
    CHECK(stored && r == re && m == im, "%s: (%d,%d) = %.17g%+.17gi%s, expected %.17g%+.17gi", what, i, j, r, m,
          stored ? "" : " (not stored)", re, im);
}

/* Are A and B identical, values compared bit by bit? */
static void zidentical(const spk_zcsr *A, const spk_zcsr *B, const char *what)
{
    CHECK(A->nrows == B->nrows && A->ncols == B->ncols && A->nnz == B->nnz, "%s: %d x %d / %d vs %d x %d / %d", what,
          A->nrows, A->ncols, A->nnz, B->nrows, B->ncols, B->nnz);
    if (A->nrows != B->nrows || A->nnz != B->nnz) return;
    CHECK(!memcmp(A->rowptr, B->rowptr, ((size_t)A->nrows + 1) * sizeof(int)), "%s: rowptr", what);
    CHECK(!memcmp(A->colind, B->colind, (size_t)A->nnz * sizeof(int)), "%s: colind", what);
    for (size_t k = 0; k < 2 * (size_t)A->nnz; k++)
        if (memcmp(&A->val[k], &B->val[k], sizeof(double))) {
            CHECK(0, "%s: value %zu (%s part): %.17g vs %.17g", what, k / 2, k % 2 ? "imaginary" : "real", A->val[k],
                  B->val[k]);
            break;
        }
}

/* Read text as complex; the status. */
static int zread(const char *text, spk_zcsr *A, spk_mm_info *info, spk_err *e)
{
    spk_err_clear(e);
    return spk_mm_read_zcsr_mem("inline", text, strlen(text), A, info, e);
}

/* ---- reading ---------------------------------------------------------------- */

/* Each symmetry expanded: general (duplicates summed), symmetric (mirror
 * equal), hermitian (mirror conjugated), skew-symmetric (mirror negated);
 * the header in info. */
static void test_symmetries(void)
{
    spk_zcsr A = {0};
    spk_mm_info info;
    spk_err e;
    CHECK_OK(zread(MMB "coordinate complex general\n% c\n2 3 3\n1 1 1.5 -2\n2 3 0 1e-3\n1 1 0.5 1\n", &A, &info, &e),
             e.msg);
    zshape(&A, 2, 3, 2, "general");
    zentry(&A, 1, 1, 2.0, -1.0, "general (duplicates summed)");
    zentry(&A, 2, 3, 0.0, 1e-3, "general");
    CHECK(info.field == SPK_MM_COMPLEX && info.symmetry == SPK_MM_GENERAL && info.format == SPK_MM_COORDINATE &&
              info.entries == 3 && info.nrows == 2 && info.ncols == 3,
          "general: info %d %d %lld", info.field, info.symmetry, info.entries);
    spk_zcsr_free(&A);

    CHECK_OK(zread(MMB "coordinate complex symmetric\n3 3 3\n1 1 1 1\n2 1 2 -3\n3 2 0.5 0.25\n", &A, &info, &e), e.msg);
    zshape(&A, 3, 3, 5, "symmetric");
    zentry(&A, 2, 1, 2, -3, "symmetric");
    zentry(&A, 1, 2, 2, -3, "symmetric mirror");
    zentry(&A, 2, 3, 0.5, 0.25, "symmetric mirror");
    CHECK(spk_zcsr_symmetry(&A) == SPK_ZSYM_SYMMETRIC && info.symmetry == SPK_MM_SYMMETRIC, "symmetric: class %d",
          spk_zcsr_symmetry(&A));
    spk_zcsr_free(&A);

    CHECK_OK(zread(MMB "coordinate complex Hermitian\n3 3 4\n1 1 4 0\n2 1 2 -3\n3 2 0.5 0.25\n3 3 1 -0\n", &A,
                   &info, &e),
             e.msg);
    zshape(&A, 3, 3, 6, "hermitian");
    zentry(&A, 2, 1, 2, -3, "hermitian");
    zentry(&A, 1, 2, 2, 3, "hermitian mirror");
    zentry(&A, 2, 3, 0.5, -0.25, "hermitian mirror");
    CHECK(spk_zcsr_symmetry(&A) == SPK_ZSYM_HERMITIAN && info.symmetry == SPK_MM_HERMITIAN, "hermitian: class %d",
          spk_zcsr_symmetry(&A));
    spk_zcsr_free(&A);

    CHECK_OK(zread(MMB "coordinate complex skew-symmetric\n3 3 2\n2 1 1 -2\n3 1 0 3.5\n", &A, &info, &e), e.msg);
    zshape(&A, 3, 3, 4, "skew");
    zentry(&A, 2, 1, 1, -2, "skew");
    zentry(&A, 1, 2, -1, 2, "skew mirror");
    zentry(&A, 1, 3, 0, -3.5, "skew mirror");
    CHECK(info.symmetry == SPK_MM_SKEW, "skew: info %d", info.symmetry);
    spk_zcsr_free(&A);

    /* array files: packed lower triangles, zeros dropped */
    CHECK_OK(zread(MMB "array complex hermitian\n2 2\n1 0\n2 -1\n3 0\n", &A, &info, &e), e.msg);
    zshape(&A, 2, 2, 4, "array hermitian");
    zentry(&A, 1, 2, 2, 1, "array hermitian mirror");
    zentry(&A, 2, 2, 3, 0, "array hermitian");
    CHECK(info.format == SPK_MM_ARRAY && info.entries == 3, "array hermitian: entries %lld", info.entries);
    spk_zcsr_free(&A);
    CHECK_OK(zread(MMB "array complex general\n2 2\n1 2\n0 0\n0 -1\n4 0\n", &A, &info, &e), e.msg);
    zshape(&A, 2, 2, 3, "array general");
    zentry(&A, 1, 2, 0, -1, "array general");
    spk_zcsr_free(&A);
}

/* Real, integer and pattern files as complex: imaginary parts 0, the real
 * reader's mirroring (pattern skew: +1 stored, -1 mirrored). */
static void test_real_as_complex(void)
{
    spk_zcsr A = {0};
    spk_mm_info info;
    spk_err e;
    CHECK_OK(zread(MMB "coordinate real symmetric\n2 2 2\n1 1 2.5\n2 1 -1\n", &A, &info, &e), e.msg);
    zshape(&A, 2, 2, 3, "real symmetric");
    zentry(&A, 1, 2, -1, 0, "real symmetric mirror");
    CHECK(info.field == SPK_MM_REAL && spk_zcsr_symmetry(&A) == SPK_ZSYM_BOTH, "real symmetric: class %d",
          spk_zcsr_symmetry(&A));
    spk_zcsr_free(&A);
    CHECK_OK(zread(MMB "coordinate integer general\n2 2 1\n2 1 -7\n", &A, &info, &e), e.msg);
    zentry(&A, 2, 1, -7, 0, "integer");
    spk_zcsr_free(&A);
    CHECK_OK(zread(MMB "coordinate pattern skew-symmetric\n3 3 1\n3 1\n", &A, &info, &e), e.msg);
    zshape(&A, 3, 3, 2, "pattern skew");
    zentry(&A, 3, 1, 1, 0, "pattern skew");
    zentry(&A, 1, 3, -1, 0, "pattern skew mirror");
    spk_zcsr_free(&A);
    CHECK_OK(zread(MMB "coordinate pattern general\n2 2 2\n1 2\n2 2\n", &A, &info, &e), e.msg);
    zentry(&A, 1, 2, 1, 0, "pattern");
    spk_zcsr_free(&A);
    CHECK_OK(zread(MMB "array real skew-symmetric\n3 3\n1\n2\n3\n", &A, &info, &e), e.msg);
    zshape(&A, 3, 3, 6, "array real skew");
    zentry(&A, 3, 2, 3, 0, "array real skew");
    zentry(&A, 2, 3, -3, 0, "array real skew mirror");
    spk_zcsr_free(&A);
}

/* Every ok_* file of tests/mm read as complex equals the real reader's
 * matrix with zero imaginary parts. */
static void test_real_files(void)
{
    DIR *d = opendir(SPK_TEST_FILES);
    CHECK(d != NULL, "cannot list %s", SPK_TEST_FILES);
    int files = 0;
    for (struct dirent *de; d && (de = readdir(d));) {
        if (strncmp(de->d_name, "ok_", 3)) continue;
        char path[1024];
        join(path, sizeof path, SPK_TEST_FILES, de->d_name);
        spk_csr R = {0};
        spk_zcsr Z = {0};
        spk_err e = {0};
        CHECK_OK(spk_mm_read_csr(path, &R, NULL, &e), e.msg);
        CHECK_OK(spk_mm_read_zcsr(path, 0, &Z, NULL, &e), e.msg);
        zshape(&Z, R.nrows, R.ncols, R.nnz, de->d_name);
        if (Z.nnz == R.nnz && Z.nrows == R.nrows) {
            int same = !memcmp(Z.rowptr, R.rowptr, ((size_t)R.nrows + 1) * sizeof(int)) &&
                       !memcmp(Z.colind, R.colind, (size_t)R.nnz * sizeof(int));
            for (int k = 0; k < R.nnz; k++) same &= Z.val[2 * k] == R.val[k] && Z.val[2 * k + 1] == 0;
            CHECK(same, "%s: the complex read differs from the real one", de->d_name);
        }
        spk_csr_free(&R);
        spk_zcsr_free(&Z);
        files++;
    }
    if (d) closedir(d);
    CHECK(files >= 10, "only %d ok_* files", files);
}

/* The complex files of tests/mm: their values, and the real readers' refusal
 * naming the file, line 1 and the way to read them. */
static void test_complex_files(void)
{
    static const char *names[] = {"complex_general.mtx", "complex_hermitian.mtx", "complex_skew.mtx",
                                  "complex_array_symmetric.mtx", "complex_symmetric.mtx.gz"};
    spk_zcsr A[5];
    spk_err e;
    for (int f = 0; f < 5; f++) {
        char path[1024], want[1100];
        join(path, sizeof path, SPK_TEST_FILES, names[f]);
        memset(&A[f], 0, sizeof A[f]);
        spk_err_clear(&e);
        CHECK_OK(spk_mm_read_zcsr(path, 0, &A[f], NULL, &e), e.msg);
        spk_csr R = {0};
        snprintf(want, sizeof want, "%s:1: complex matrix: read it as a complex system", path);
        int st = spk_mm_read_csr(path, &R, NULL, &e);
        CHECK(st == SPK_ERR_UNSUPPORTED && check_contains(e.msg, want), "%s (real reader): %d %s", names[f], st, e.msg);
        int m, n;
        double *v = NULL;
        st = spk_mm_read_dense(path, &m, &n, &v, &e);
        CHECK(st == SPK_ERR_UNSUPPORTED && check_contains(e.msg, want), "%s (dense reader): %d %s", names[f], st,
              e.msg);
        spk_mm_field field = SPK_MM_REAL;
        CHECK(spk_mm_peek_field(path, &field, &e) == 0 && field == SPK_MM_COMPLEX, "%s: peek %d %s", names[f], field,
              e.msg);
    }
    zshape(&A[0], 2, 2, 1, names[0]);
    zentry(&A[0], 1, 1, 1, 2, names[0]);
    zshape(&A[1], 3, 3, 6, names[1]);
    zentry(&A[1], 1, 2, -1.5, -0.25, names[1]);
    zentry(&A[1], 2, 3, 1e-3, 7, names[1]);
    zentry(&A[1], 3, 3, 4.5, 0, names[1]);
    zshape(&A[2], 3, 3, 4, names[2]);
    zentry(&A[2], 1, 3, 0, -3.5, names[2]);
    zshape(&A[3], 2, 2, 4, names[3]);
    zentry(&A[3], 1, 2, 2.5, 0.5, names[3]);
    zentry(&A[3], 2, 2, 0, 3, names[3]);
    zshape(&A[4], 2, 2, 3, names[4]);
    zentry(&A[4], 1, 2, 0.5, -0.5, names[4]);
    for (int f = 0; f < 5; f++) spk_zcsr_free(&A[f]);
}

/* ---- malformed input -------------------------------------------------------- */

typedef struct zbad {
    const char *text;
    int code;
    const char *msg;
} zbad;

#define CG MMB "coordinate complex general\n"
static const zbad bad_cases[] = {
    {CG "2 2 1\n1 1 1.0\n", SPK_ERR_PARSE, "inline:3: too few tokens, expected 4 (row column real imaginary)"},
    {CG "2 2 1\n1 1\n", SPK_ERR_PARSE, "inline:3: too few tokens, expected 4 (row column real imaginary)"},
    {CG "2 2 1\n1 1 1 2 3\n", SPK_ERR_PARSE, "inline:3: too many tokens, expected 4 (row column real imaginary)"},
    {CG "2 2 1\n1 1 nan 0\n", SPK_ERR_PARSE, "inline:3: value is not finite: 'nan'"},
    {CG "2 2 1\n1 1 0 -Inf\n", SPK_ERR_PARSE, "inline:3: value is not finite: '-Inf'"},
    {CG "2 2 1\n1 1 0 1e999\n", SPK_ERR_PARSE, "inline:3: value is not finite: '1e999'"},
    {CG "2 2 1\n1 1 1 x\n", SPK_ERR_PARSE, "inline:3: bad value 'x' (not a real number)"},
    {CG "2 2 1\n3 1 1 1\n", SPK_ERR_PARSE, "inline:3: row index out of range: 3 not in 1..2"},
    {CG "2 2 1\n1 0 1 1\n", SPK_ERR_PARSE, "inline:3: column index out of range: 0 not in 1..2"},
    {CG "2 2 1\n1 1 1 1\n2 2 1 1\n", SPK_ERR_PARSE, "inline:4: more entries than the 1 announced in the size line"},
    {CG "% c\n2 2 2\n1 1 1 1\n", SPK_ERR_PARSE, "inline:4: file ends after 1 of 2 entries"},
    {CG "2 2\n", SPK_ERR_PARSE, "inline:2: bad size line: expected 3 numbers (rows columns entries), found 2"},
    {MMB "coordinate complex hermitian\n2 2 2\n1 1 1 0\n2 2 1 0.5\n", SPK_ERR_PARSE,
     "inline:4: diagonal entry (2,2) of a hermitian matrix is not real (imaginary part 0.5)"},
    {MMB "coordinate complex hermitian\n2 3 0\n", SPK_ERR_PARSE,
     "inline:2: a hermitian matrix must be square, the size line says 2 x 3"},
    {MMB "coordinate complex skew-symmetric\n2 2 1\n1 1 0 0\n", SPK_ERR_PARSE,
     "inline:3: diagonal entry (1,1) in a skew-symmetric matrix"},
    {MMB "coordinate real hermitian\n2 2 0\n", SPK_ERR_PARSE,
     "inline:1: hermitian symmetry goes with the complex field only (a real hermitian matrix is symmetric)"},
    {MMB "coordinate pattern hermitian\n2 2 0\n", SPK_ERR_PARSE, "inline:1: hermitian symmetry goes with the complex"},
    {MMB "coordinate complex\n2 2 0\n", SPK_ERR_PARSE,
     "inline:1: banner is missing the symmetry (general, symmetric, skew-symmetric or hermitian)"},
    {MMB "coordinate complexx general\n", SPK_ERR_PARSE, "inline:1: unknown qualifier 'complexx'"},
    {MMB "array complex general\n1 2\n1\n2 0\n", SPK_ERR_PARSE,
     "inline:3: too few tokens, expected 2 values (real imaginary) per line in a complex array file"},
    {MMB "array complex general\n1 1\n1 2 3\n", SPK_ERR_PARSE,
     "inline:3: too many tokens, expected 2 values (real imaginary) per line in a complex array file"},
    {MMB "array complex hermitian\n2 2\n1 0\n2 2\n3 -1\n", SPK_ERR_PARSE,
     "inline:5: diagonal entry (2,2) of a hermitian matrix is not real (imaginary part -1)"},
    {MMB "array complex general\n1 1\n1 NaN\n", SPK_ERR_PARSE, "inline:3: value is not finite: 'NaN'"},
    {MMB "array complex general\n2 1\n1 1\n", SPK_ERR_PARSE, "inline:3: file ends after 1 of 2 values"},
};
#define N_BAD ((int)(sizeof bad_cases / sizeof bad_cases[0]))

/* Every case from memory: its status and message; then from a file through a
 * window of 64 bytes (lines of up to 48): the same status, and the message
 * with the path in place of "inline". */
static void test_malformed(const char *dir)
{
    char path[1024];
    join(path, sizeof path, dir, "bad.mtx");
    for (int c = 0; c < N_BAD; c++) {
        const zbad *b = &bad_cases[c];
        spk_zcsr A = {0};
        spk_err e;
        const int st = zread(b->text, &A, NULL, &e);
        CHECK(st == b->code && check_contains(e.msg, b->msg), "case %d: status %d, '%s', expected %d '%s'", c, st,
              e.msg, b->code, b->msg);
        CHECK(A.rowptr == NULL, "case %d: a failed read left a matrix", c);
        FILE *f = fopen(path, "wb");
        CHECK(f && fputs(b->text, f) >= 0 && fclose(f) == 0, "cannot write %s", path);
        spk_mm_set_window(64, 48);
        spk_err ef;
        spk_err_clear(&ef);
        const int sf = spk_mm_read_zcsr(path, 0, &A, NULL, &ef);
        spk_mm_set_window(0, 0);
        const size_t np = strlen(path);
        CHECK(sf == st && !strncmp(ef.msg, path, np) && !strcmp(ef.msg + np, e.msg + strlen("inline")),
              "case %d through a file: %d '%s' vs %d '%s'", c, sf, ef.msg, st, e.msg);
        spk_zcsr_free(&A);
    }
    remove(path);
    /* the real reader: a complex banner refused at line 1, before the entries */
    spk_csr R = {0};
    spk_err e;
    const char *t = CG "2 2 1\n1 1 1\n";
    CHECK(spk_mm_read_csr_mem("inline", t, strlen(t), &R, NULL, &e) == SPK_ERR_UNSUPPORTED &&
              !strcmp(e.msg, "inline:1: complex matrix: read it as a complex system (spk_matrix_read gives a complex "
                             "matrix)"),
          "real reader on a complex text: %s", e.msg);
    CHECK(spk_mm_read_zcsr_mem("x", "", 0, NULL, NULL, &e) == SPK_ERR_INVALID_ARG, "NULL A");
    CHECK(spk_mm_read_zcsr(NULL, 0, (spk_zcsr[1]){{0}}, NULL, &e) == SPK_ERR_INVALID_ARG, "NULL path");
}

/* ---- writing ----------------------------------------------------------------- */

/* An n x n matrix with awkward values: lower triangle arbitrary, upper the
 * mirror (herm: conjugated as 0 - im, the readers' way), diagonal real where
 * herm; every row has its diagonal and a few neighbours. */
static void awkward(int n, int herm, spk_zcsr *A)
{
    static const double vals[] = {1.0 / 3, -2.5, 1e-300, 4.9406564584124654e-324, 1.7976931348623157e308,
                                  -0.1, 123456789.125, 6.02214076e23, 0.0, -7};
    int *row = malloc(sizeof(int) * 3 * (size_t)n), *col = malloc(sizeof(int) * 3 * (size_t)n);
    double *val = malloc(sizeof(double) * 6 * (size_t)n);
    int t = 0;
    for (int i = 0; i < n; i++) {
        row[t] = col[t] = i;
        val[2 * t] = vals[i % 10] == 0 ? 2 : vals[i % 10];
        val[2 * t + 1] = herm ? 0.0 : vals[(i + 3) % 10];
        t++;
        const int j = (i * 7 + 3) % n;
        if (j >= i) continue;
        const double re = vals[(i + 1) % 10], im = vals[(i + 2) % 10];
        row[t] = i, col[t] = j, val[2 * t] = re, val[2 * t + 1] = im, t++;
        row[t] = j, col[t] = i, val[2 * t] = re, val[2 * t + 1] = herm ? 0.0 - im : im, t++;
    }
    spk_err e = {0};
    CHECK_OK(spk_zcsr_from_coo(n, n, (size_t)t, row, col, val, A, &e), e.msg);
    free(row);
    free(col);
    free(val);
}

/* Write then read: the same matrix to the bit, general, symmetric and
 * hermitian, plain and gzip; the banner and the lower triangle only. */
static void test_roundtrip(const char *dir)
{
    static const char *const banner[3] = {"general", "symmetric", "hermitian"};
    for (int sym = 0; sym < 3; sym++)
        for (int gz = 0; gz < 2; gz++) {
            char path[1024], name[64], what[96];
            snprintf(name, sizeof name, "rt%d.mtx%s", sym, gz ? ".gz" : "");
            snprintf(what, sizeof what, "round trip %s%s", banner[sym], gz ? " (gzip)" : "");
            join(path, sizeof path, dir, name);
            spk_zcsr A = {0}, B = {0};
            spk_err e = {0};
            spk_mm_info info;
            awkward(37, sym == 2, &A);
            CHECK_OK(spk_mm_write_zcsr(path, &A, sym, "a comment\nof two lines", &e), e.msg);
            CHECK_OK(spk_mm_read_zcsr(path, 0, &B, &info, &e), e.msg);
            zidentical(&A, &B, what);
            int lower = 0;
            for (int i = 0; i < A.nrows; i++)
                for (int k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) lower += A.colind[k] <= i;
            CHECK(info.field == SPK_MM_COMPLEX && (int)info.symmetry == (sym == 2 ? SPK_MM_HERMITIAN : sym) &&
                      info.entries == (sym ? lower : A.nnz),
                  "%s: info %d %d %lld", what, info.field, info.symmetry, info.entries);
            spk_zcsr_free(&B);
            spk_mm_set_window(64, 48); /* the same through a small window */
            CHECK_OK(spk_mm_read_zcsr(path, 0, &B, NULL, &e), e.msg);
            spk_mm_set_window(0, 0);
            zidentical(&A, &B, what);
            spk_zcsr_free(&B);
            spk_zcsr_free(&A);
            remove(path);
        }
}

/* What the complex writer refuses, with the file named and nothing written. */
static void test_write_errors(const char *dir)
{
    char path[1024];
    join(path, sizeof path, dir, "refused.mtx");
    spk_zcsr A = {0};
    spk_err e = {0};
    awkward(12, 0, &A); /* complex symmetric, not Hermitian */
    CHECK(spk_mm_write_zcsr(path, &A, 2, NULL, &e) == SPK_ERR_INVALID_ARG &&
              check_contains(e.msg, "cannot write '") && check_contains(e.msg, "as hermitian: the diagonal entry (1,1) "
                                                                               "is not real"),
          "hermitian of a complex diagonal: %s", e.msg);
    for (int i = 0; i < A.nrows; i++) /* every diagonal real: now the off-diagonal is wrong */
        for (int k = A.rowptr[i]; k < A.rowptr[i + 1]; k++)
            if (A.colind[k] == i) A.val[2 * (size_t)k + 1] = 0;
    CHECK(spk_mm_write_zcsr(path, &A, 2, NULL, &e) == SPK_ERR_INVALID_ARG &&
              check_contains(e.msg, "is not the conjugate of"),
          "hermitian of a complex symmetric: %s", e.msg);
    CHECK_OK(spk_mm_write_zcsr(path, &A, 1, NULL, &e), e.msg);
    remove(path);
    int off = -1; /* the first off-diagonal entry */
    for (int i = 0; i < A.nrows && off < 0; i++)
        for (int k = A.rowptr[i]; k < A.rowptr[i + 1]; k++)
            if (A.colind[k] != i && off < 0) off = k;
    CHECK(off >= 0, "no off-diagonal entry");
    const double im = A.val[2 * (size_t)off + 1];
    A.val[2 * (size_t)off + 1] = im == 0 ? 1 : -im;
    CHECK(spk_mm_write_zcsr(path, &A, 1, NULL, &e) == SPK_ERR_INVALID_ARG &&
              check_contains(e.msg, "as symmetric: the entry (") && check_contains(e.msg, "is not equal to"),
          "symmetric: %s", e.msg);
    A.val[2 * (size_t)off] = NAN;
    CHECK(spk_mm_write_zcsr(path, &A, 0, NULL, &e) == SPK_ERR_INVALID_ARG && check_contains(e.msg, "is not finite"),
          "NaN: %s", e.msg);
    CHECK(spk_mm_write_zcsr(path, &A, 3, NULL, &e) == SPK_ERR_INVALID_ARG &&
              check_contains(e.msg, "symmetry 3 (0 general, 1 symmetric, 2 hermitian)"),
          "symmetry 3: %s", e.msg);
    CHECK(access(path, F_OK) != 0, "a refused write left %s", path);
    spk_zcsr_free(&A);
    /* an upper entry without its mirror: refused unless zero (then dropped) */
    const int up_rp[4] = {0, 2, 3, 4}, up_ci[4] = {0, 2, 1, 2};
    double up_v[8] = {1, 0, 0, 2, 1, 0, 1, 0};
    CHECK_OK(spk_zcsr_from_csr(3, 3, up_rp, up_ci, up_v, &A, NULL, &e), e.msg);
    CHECK(spk_mm_write_zcsr(path, &A, 1, NULL, &e) == SPK_ERR_INVALID_ARG &&
              check_contains(e.msg, "as symmetric: the entry (3,1) is not equal to (1,3)"),
          "an upper entry without a mirror: %s", e.msg);
    spk_zcsr_free(&A);
    up_v[3] = 0;
    CHECK_OK(spk_zcsr_from_csr(3, 3, up_rp, up_ci, up_v, &A, NULL, &e), e.msg);
    CHECK_OK(spk_mm_write_zcsr(path, &A, 2, NULL, &e), e.msg);
    spk_zcsr_free(&A);
    remove(path);
    spk_zcsr R = {0};
    const int rp[3] = {0, 1, 1}, ci[1] = {0};
    const double v[2] = {1, 1};
    CHECK_OK(spk_zcsr_from_csr(2, 3, rp, ci, v, &R, NULL, &e), e.msg);
    CHECK(spk_mm_write_zcsr(path, &R, 1, NULL, &e) == SPK_ERR_INVALID_ARG && check_contains(e.msg, "not square"),
          "rectangular: %s", e.msg);
    CHECK_OK(spk_mm_write_zcsr(path, &R, 0, NULL, &e), e.msg);
    spk_zcsr_free(&R);
    remove(path);
}

/* Dense complex arrays: written and read to the bit; real arrays and
 * coordinate vectors read as complex; non-finite values refused. */
static void test_dense(const char *dir)
{
    char path[1024];
    join(path, sizeof path, dir, "x.mtx.gz");
    double v[12] = {1.0 / 3, -0.0, 1e-310, 2, -5, 6.25, 7, 8e100, 0, 0, -1, 1};
    spk_err e = {0};
    CHECK_OK(spk_mm_write_zdense(path, 3, 2, v, &e), e.msg);
    int m = 0, n = 0;
    double *w = NULL;
    CHECK_OK(spk_mm_read_zdense(path, 0, &m, &n, &w, &e), e.msg);
    CHECK(m == 3 && n == 2 && w && !memcmp(v, w, sizeof v), "dense round trip: %d x %d", m, n);
    free(w);
    w = NULL;
    spk_mm_field field = SPK_MM_REAL;
    CHECK(spk_mm_peek_field(path, &field, &e) == 0 && field == SPK_MM_COMPLEX, "peek of a gzip dense file: %s", e.msg);
    v[5] = INFINITY;
    CHECK(spk_mm_write_zdense(path, 3, 2, v, &e) == SPK_ERR_INVALID_ARG &&
              check_contains(e.msg, "the value at (3,1) is not finite"),
          "dense Inf: %s", e.msg);
    remove(path);
    const char *t = MMB "array real general\n2 1\n1.5\n-2\n";
    CHECK_OK(spk_mm_read_zdense_mem("inline", t, strlen(t), &m, &n, &w, &e), e.msg);
    CHECK(m == 2 && n == 1 && w && w[0] == 1.5 && w[1] == 0 && w[2] == -2 && w[3] == 0, "real array as complex");
    free(w);
    t = MMB "coordinate complex general\n3 1 2\n1 1 1 1\n3 1 2 -2\n";
    CHECK_OK(spk_mm_read_zdense_mem("inline", t, strlen(t), &m, &n, &w, &e), e.msg);
    const double want[6] = {1, 1, 0, 0, 2, -2};
    CHECK(m == 3 && n == 1 && w && !memcmp(w, want, sizeof want), "coordinate vector as complex dense");
    free(w);
    t = MMB "array complex hermitian\n2 2\n1 0\n2 3\n4 0\n";
    CHECK_OK(spk_mm_read_zdense_mem("inline", t, strlen(t), &m, &n, &w, &e), e.msg);
    const double herm[8] = {1, 0, 2, 3, 2, -3, 4, 0}; /* column-major: (1,1) (2,1) (1,2) (2,2) */
    CHECK(m == 2 && n == 2 && w && !memcmp(w, herm, sizeof herm), "hermitian array as dense");
    free(w);
    w = NULL;
    t = MMB "array complex general\n1 1\n1\n";
    CHECK(spk_mm_read_zdense_mem("inline", t, strlen(t), &m, &n, &w, &e) == SPK_ERR_PARSE &&
              check_contains(e.msg, "inline:3: too few tokens, expected 2 values (real imaginary)"),
          "dense missing imaginary part: %s", e.msg);
}

/* The banner peek, the memory limit, and a gzip file read as complex. */
static void test_peek_and_limit(const char *dir)
{
    char path[1024];
    spk_err e = {0};
    spk_mm_field field = SPK_MM_COMPLEX;
    join(path, sizeof path, SPK_TEST_FILES, "ok_pattern_general.mtx");
    CHECK(spk_mm_peek_field(path, &field, &e) == 0 && field == SPK_MM_PATTERN, "peek pattern: %d %s", field, e.msg);
    join(path, sizeof path, SPK_TEST_FILES, "bad_banner_typo.mtx");
    CHECK(spk_mm_peek_field(path, &field, &e) == SPK_ERR_PARSE && check_contains(e.msg, "bad_banner_typo.mtx:1:"),
          "peek of a bad banner: %s", e.msg);
    join(path, sizeof path, dir, "no-such-file.mtx");
    CHECK(spk_mm_peek_field(path, &field, &e) == SPK_ERR_IO && check_contains(e.msg, "no-such-file.mtx"),
          "peek of a missing file: %s", e.msg);
    CHECK(spk_mm_peek_field(NULL, &field, &e) == SPK_ERR_INVALID_ARG, "peek NULL");
    spk_zcsr A = {0};
    CHECK_OK(spk_gen_zspec("maglap2d:40", &A, &e), e.msg);
    join(path, sizeof path, dir, "mag.mtx");
    CHECK_OK(spk_mm_write_zcsr(path, &A, 2, NULL, &e), e.msg);
    spk_zcsr B = {0};
    const int st = spk_mm_read_zcsr(path, 20000, &B, NULL, &e);
    CHECK(st == SPK_ERR_NOMEM && check_contains(e.msg, "over the memory limit of 20000 bytes"), "limit: %d %s", st,
          e.msg);
    CHECK_OK(spk_mm_read_zcsr(path, 1 << 20, &B, NULL, &e), e.msg);
    zidentical(&A, &B, "maglap2d through a hermitian file");
    spk_zcsr_free(&A);
    spk_zcsr_free(&B);
    remove(path);
}

/* ---- generators ------------------------------------------------------------- */

/* Generate spec: canonical, square, with the class and sizes given. */
static int zmake(const char *spec, spk_zcsr *A, int rows, int nnz, spk_zsym cls)
{
    spk_err e = {0};
    const int st = spk_gen_zspec(spec, A, &e);
    CHECK(st == 0, "%s: %s", spec, e.msg);
    if (st) return 0;
    zshape(A, rows, rows, nnz, spec);
    CHECK(spk_zcsr_symmetry(A) == cls, "%s: symmetry class %d, expected %d", spec, spk_zcsr_symmetry(A), cls);
    return 1;
}

/* Sizes, symmetry classes, determinism, and the file round trip in the
 * storage spk gen uses. */
static void test_gen_basic(const char *dir)
{
    static const struct {
        const char *spec;
        int rows, nnz;
        spk_zsym cls;
    } cases[] = {
        {"helmholtz3d:5", 125, 7 * 125 - 6 * 25, SPK_ZSYM_SYMMETRIC},
        {"helmholtz2d:6", 36, 5 * 36 - 4 * 6, SPK_ZSYM_SYMMETRIC},
        {"HelmHoltz3D:4:3:1", 64, 7 * 64 - 6 * 16, SPK_ZSYM_SYMMETRIC},
        {"helmholtz3d:6:0", 216, 7 * 216 - 6 * 36, SPK_ZSYM_BOTH},   /* K = 0: the Laplacian */
        {"helmholtz2d:6:5:0", 36, 5 * 36 - 4 * 6, SPK_ZSYM_BOTH},    /* no layer: real */
        {"curlcurl:3", 81, 9 * 7 * 7 * 7, SPK_ZSYM_SYMMETRIC},       /* 7 node pairs per axis */
        {"curlcurl:4:2:0", 192, 9 * 10 * 10 * 10, SPK_ZSYM_BOTH},    /* S = 0: real */
        {"maglap2d:6", 36, 5 * 36 - 4 * 6, SPK_ZSYM_HERMITIAN},
        {"maglap2d:5:0.37", 25, 5 * 25 - 4 * 5, SPK_ZSYM_HERMITIAN},
        {"maglap2d:5:2", 25, 5 * 25 - 4 * 5, SPK_ZSYM_BOTH},         /* integer flux: real phases */
        {"maglap2d:1", 1, 1, SPK_ZSYM_BOTH},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        spk_zcsr A = {0}, B = {0};
        if (!zmake(cases[c].spec, &A, cases[c].rows, cases[c].nnz, cases[c].cls)) continue;
        spk_err e = {0};
        CHECK_OK(spk_gen_zspec(cases[c].spec, &B, &e), e.msg);
        zidentical(&A, &B, cases[c].spec); /* the same for every run */
        spk_zcsr_free(&B);
        /* written as spk gen writes it, read back to the bit */
        const int how = cases[c].cls == SPK_ZSYM_HERMITIAN ? 2 : 1;
        char path[1024];
        join(path, sizeof path, dir, "gen.mtx");
        CHECK_OK(spk_mm_write_zcsr(path, &A, how, NULL, &e), e.msg);
        CHECK_OK(spk_mm_read_zcsr(path, 0, &B, NULL, &e), e.msg);
        zidentical(&A, &B, cases[c].spec);
        spk_zcsr_free(&B);
        spk_zcsr_free(&A);
        remove(path);
    }
    CHECK(spk_gen_spec_is_complex("helmholtz3d:4") && spk_gen_spec_is_complex("CURLCURL") &&
              spk_gen_spec_is_complex("maglap2d:x") && spk_gen_spec_is_complex("helmholtz2d:4:1:2"),
          "spk_gen_spec_is_complex: complex names");
    CHECK(!spk_gen_spec_is_complex("poisson3d-7:4") && !spk_gen_spec_is_complex("helm:4") &&
              !spk_gen_spec_is_complex(NULL) && !spk_gen_spec_is_complex("") && !spk_gen_spec_is_complex(":4"),
          "spk_gen_spec_is_complex: other names");
    const char *help = spk_gen_zhelp();
    CHECK(check_contains(help, "helmholtz3d:N[:K[:L]]") && check_contains(help, "helmholtz2d:N") &&
              check_contains(help, "curlcurl:N[:K[:S]]") && check_contains(help, "maglap2d:N[:B]"),
          "spk_gen_zhelp lists the families");
}

/* x^T Re(A) x / x^T x for the grid's smoothest mode prod_d sin(pi (c_d + 1) h). */
static double smooth_rayleigh(const spk_zcsr *A, int n, int dims)
{
    const double h = 1.0 / (n + 1);
    double *x = malloc(sizeof(double) * (size_t)A->nrows), num = 0, den = 0;
    for (int i = 0; i < A->nrows; i++) {
        x[i] = 1;
        for (int d = 0, c = i; d < dims; d++, c /= n) x[i] *= sin(M_PI * (c % n + 1) * h);
    }
    for (int i = 0; i < A->nrows; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) num += x[i] * A->val[2 * (size_t)k] * x[A->colind[k]];
    for (int i = 0; i < A->nrows; i++) den += x[i] * x[i];
    free(x);
    return num / den;
}

/* Helmholtz: the diagonal (-(K h)^2 on the real part, -(K h)^2 sigma on the
 * imaginary part, 0 inside the layer, deepest at the faces), the stencil
 * off the diagonal, and the real part indefinite where (K h)^2 exceeds the
 * Laplacian's smallest eigenvalue. */
static void test_helmholtz(void)
{
    spk_zcsr A = {0};
    const int n = 10;
    const double h = 1.0 / (n + 1), kd = 2 * M_PI * (n + 1) / 10.0, kh2 = kd * h * kd * h;
    if (zmake("helmholtz3d:10", &A, 1000, 7 * 1000 - 6 * 100, SPK_ZSYM_SYMMETRIC)) {
        const int centre = 5 + 10 * (5 + 10 * 5), face = 0 + 10 * (5 + 10 * 5), inner = 1 + 10 * (5 + 10 * 5);
        double re, im;
        zget(&A, centre, centre, &re, &im);
        CHECK(fabs(re - (6 - kh2)) < 1e-14 && im == 0 && !signbit(im), "centre diagonal %.17g%+.17gi", re, im);
        zget(&A, face, face, &re, &im); /* L = 2: depth 2 of 2 at the face */
        CHECK(fabs(im + kh2 * 1.5) < 1e-14, "face diagonal imaginary part %.17g, expected %.17g", im, -1.5 * kh2);
        zget(&A, inner, inner, &re, &im); /* depth 1 of 2 */
        CHECK(fabs(im + kh2 * 1.5 * 0.25) < 1e-14, "inner layer imaginary part %.17g", im);
        zentry(&A, centre + 1, centre + 2, -1, 0, "helmholtz3d off-diagonal"); /* 1-based (centre, centre + 1) */
        const double q = smooth_rayleigh(&A, n, 3), lmin = 12 * pow(sin(M_PI * h / 2), 2);
        CHECK(fabs(q - (lmin - kh2)) < 1e-12 && q < 0, "smooth mode's Rayleigh quotient %.17g, expected %.17g < 0", q,
              lmin - kh2);
        int negative = 0;
        for (int i = 0; i < A.nrows; i++) {
            zget(&A, i, i, &re, &im);
            negative += re <= 0 || im > 0;
        }
        CHECK(negative == 0, "%d diagonal entries with a real part <= 0 or an imaginary part > 0", negative);
    }
    spk_zcsr_free(&A);
    /* K and L given: K = 8, L = 3 on a 2-D grid of 10 */
    if (zmake("helmholtz2d:10:8:3", &A, 100, 5 * 100 - 4 * 10, SPK_ZSYM_SYMMETRIC)) {
        const double k2 = 64 * h * h;
        const int depth[10] = {3, 2, 1, 0, 0, 0, 0, 1, 2, 3};
        for (int x = 0; x < 10; x++) {
            double re, im;
            zget(&A, x + 10 * 5, x + 10 * 5, &re, &im);
            const double want = 0.0 - k2 * 1.5 * (depth[x] / 3.0) * (depth[x] / 3.0);
            CHECK(fabs(re - (4 - k2)) < 1e-14 && fabs(im - want) < 1e-14, "helmholtz2d x = %d: %.17g%+.17gi", x, re,
                  im);
        }
        const double q = smooth_rayleigh(&A, n, 2), lmin = 8 * pow(sin(M_PI * h / 2), 2);
        CHECK(fabs(q - (lmin - k2)) < 1e-12 && q < 0, "helmholtz2d smooth mode %.17g", q);
    }
    spk_zcsr_free(&A);
    /* below the first eigenvalue the real part is definite on the smooth mode */
    if (zmake("helmholtz3d:6", &A, 216, 7 * 216 - 6 * 36, SPK_ZSYM_SYMMETRIC))
        CHECK(smooth_rayleigh(&A, 6, 3) > 0, "helmholtz3d:6: the default K is below the first eigenvalue");
    spk_zcsr_free(&A);
}

/* Curl-curl: 81 entries in an interior row, the components coupled by the
 * grad-div part, the shift on the diagonal, and the curl-curl part
 * (Re A + (K h)^2 I) positive semidefinite on random vectors. */
static void test_curlcurl(void)
{
    spk_zcsr A = {0};
    const int n = 5;
    if (!zmake("curlcurl:5:3:2", &A, 375, 9 * 13 * 13 * 13, SPK_ZSYM_SYMMETRIC)) return;
    const double h = 1.0 / (n + 1), kh2 = 9 * h * h;
    const int node = 2 + n * (2 + n * 2), r = 3 * node; /* the centre node, its x unknown */
    CHECK(A.rowptr[r + 1] - A.rowptr[r] == 81, "interior row has %d entries", A.rowptr[r + 1] - A.rowptr[r]);
    double re, im;
    zget(&A, r, r, &re, &im);
    CHECK(fabs(re - (5.5 - kh2)) < 1e-14 && fabs(im - 3 * 2 * h * h) < 1e-15, "diagonal %.17g%+.17gi", re, im);
    zget(&A, r, 3 * (node + 1 + n) + 1, &re, &im); /* x of the centre with y of the (1,1,0) neighbour */
    CHECK(re == 0.125 && im == 0, "grad-div coupling %.17g%+.17gi", re, im);
    zget(&A, r, 3 * (node + 1), &re, &im); /* x with x of the (1,0,0) neighbour: -1 + 1/4 */
    CHECK(re == -0.75, "face coupling %.17g", re);
    uint64_t s = 12345;
    for (int trial = 0; trial < 8; trial++) {
        double *x = malloc(sizeof(double) * (size_t)A.nrows), q = 0;
        for (int i = 0; i < A.nrows; i++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            x[i] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
            if (trial == 0) x[i] = 1; /* smooth: close to the null space */
        }
        for (int i = 0; i < A.nrows; i++)
            for (int k = A.rowptr[i]; k < A.rowptr[i + 1]; k++)
                q += x[i] * (A.val[2 * (size_t)k] + (A.colind[k] == i ? kh2 : 0)) * x[A.colind[k]];
        CHECK(q > -1e-12, "curl-curl part not PSD: x^T C x = %.17g (trial %d)", q, trial);
        free(x);
    }
    spk_zcsr_free(&A);
}

/* The magnetic Laplacian: unit-modulus couplings, the phase around every
 * cell the flux, weak diagonal dominance (strict at the boundary), and
 * x^H A x > 0 for random complex x. */
static void test_maglap(void)
{
    spk_zcsr A = {0};
    const int n = 7;
    const double b = 0.1;
    if (!zmake("maglap2d:7", &A, 49, 5 * 49 - 4 * 7, SPK_ZSYM_HERMITIAN)) return;
    int weak = 0, strict = 0;
    for (int i = 0; i < A.nrows; i++) {
        double diag = 0, off = 0;
        for (int k = A.rowptr[i]; k < A.rowptr[i + 1]; k++) {
            const double re = A.val[2 * (size_t)k], im = A.val[2 * (size_t)k + 1];
            if (A.colind[k] == i) diag = re;
            else {
                off += hypot(re, im);
                CHECK(fabs(hypot(re, im) - 1) < 1e-15, "row %d: |a_ij| = %.17g", i, hypot(re, im));
            }
        }
        weak += diag >= off - 1e-14;
        strict += diag > off + 0.5;
    }
    CHECK(weak == A.nrows && strict == 4 * n - 4, "dominance: %d weak of %d, %d strict", weak, A.nrows, strict);
    for (int y = 0; y + 1 < n; y++)
        for (int x = 0; x + 1 < n; x++) { /* around the cell: right, up, left, down */
            const int i = x + n * y, p[5] = {i, i + 1, i + 1 + n, i + n, i};
            double ang = 0;
            for (int t = 0; t < 4; t++) {
                double re, im;
                zget(&A, p[t], p[t + 1], &re, &im);
                ang += atan2(-im, -re); /* a_ij = -exp(i theta_ij) */
            }
            const double flux = remainder(ang + 2 * M_PI * b, 2 * M_PI);
            CHECK(fabs(flux) < 1e-12, "cell (%d,%d): phase %.17g, expected -2 pi B", x, y, ang);
        }
    uint64_t s = 99;
    double *x = malloc(sizeof(double) * 2 * (size_t)A.nrows), *y = malloc(sizeof(double) * 2 * (size_t)A.nrows);
    for (int trial = 0; trial < 20; trial++) {
        for (int i = 0; i < 2 * A.nrows; i++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            x[i] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
        }
        spk_zcsr_spmv(&A, x, y);
        double re = 0, im = 0; /* x^H y */
        for (int i = 0; i < A.nrows; i++) {
            re += x[2 * i] * y[2 * i] + x[2 * i + 1] * y[2 * i + 1];
            im += x[2 * i] * y[2 * i + 1] - x[2 * i + 1] * y[2 * i];
        }
        CHECK(re > 0 && fabs(im) < 1e-12 * re, "x^H A x = %.17g%+.17gi (trial %d)", re, im, trial);
    }
    free(x);
    free(y);
    spk_zcsr_free(&A);
}

/* Bad specs: their status and message, nothing allocated for huge sizes. */
static void test_gen_errors(void)
{
    static const struct {
        const char *spec, *msg;
    } cases[] = {
        {"nosuch:4", "unknown generator 'nosuch' in 'nosuch:4' (complex: helmholtz3d:N[:K[:L]]"},
        {"poisson3d-7:4", "unknown generator 'poisson3d-7'"},
        {"helmholtz3d", "generator spec 'helmholtz3d' has no size: expected NAME:N"},
        {"helmholtz3d:0", "bad size in generator spec 'helmholtz3d:0': N must be an integer from 1 to"},
        {"helmholtz2d:x", "bad size in generator spec 'helmholtz2d:x'"},
        {"helmholtz3d:4:-1", "bad wavenumber in generator spec 'helmholtz3d:4:-1': K must be a finite number >= 0 "
                             "(helmholtz3d:N[:K[:L]])"},
        {"helmholtz3d:4:inf", "bad wavenumber"},
        {"helmholtz3d:4:1:1.5",
         "bad absorbing layer in generator spec 'helmholtz3d:4:1:1.5': L must be an integer >= 0"},
        {"curlcurl:4:1:-2", "bad loss in generator spec 'curlcurl:4:1:-2': S must be a finite number >= 0"},
        {"maglap2d:4:nan", "bad flux per cell in generator spec 'maglap2d:4:nan'"},
        {"maglap2d:4:1:2", "generator spec 'maglap2d:4:1:2' has too many fields: maglap2d:N[:B]"},
        {"helmholtz3d:4:seed=3", "generator spec 'helmholtz3d:4:seed=3': helmholtz3d is not random and takes no seed"},
        {"helmholtz3d:1291", "helmholtz3d:1291: its 2151685171 rows exceed 32-bit index limits"},
        {"helmholtz3d:1000", "helmholtz3d:1000: its 6994000000 entries exceed 32-bit index limits"},
        {"helmholtz2d:46341", "helmholtz2d:46341: its 2147488281 rows exceed 32-bit index limits"},
        {"maglap2d:30000", "maglap2d:30000: its 4499880000 entries exceed 32-bit index limits"},
        {"curlcurl:900", "curlcurl:900: its 2187000000 rows exceed 32-bit index limits"},
        {"curlcurl:500", "curlcurl:500: its"},
        {"curlcurl:2000000", "curlcurl:2000000: its 3 N^3 rows exceed 32-bit index limits"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        spk_zcsr A = {0};
        spk_err e = {0};
        const int st = spk_gen_zspec(cases[c].spec, &A, &e);
        CHECK(st == SPK_ERR_INVALID_ARG && check_contains(e.msg, cases[c].msg), "%s: %d '%s', expected '%s'",
              cases[c].spec, st, e.msg, cases[c].msg);
        CHECK(A.rowptr == NULL, "%s: a refused spec left a matrix", cases[c].spec);
    }
    spk_err e = {0};
    spk_zcsr A = {0};
    CHECK(spk_gen_zspec(NULL, &A, &e) == SPK_ERR_INVALID_ARG && check_contains(e.msg, "spec is NULL"), "NULL spec");
    CHECK(spk_gen_zspec("maglap2d:3", NULL, &e) == SPK_ERR_INVALID_ARG, "NULL A");
}

int main(void)
{
    char dir[] = "/tmp/spk_test_zio_XXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    test_symmetries();
    test_real_as_complex();
    test_real_files();
    test_complex_files();
    test_malformed(dir);
    test_roundtrip(dir);
    test_write_errors(dir);
    test_dense(dir);
    test_peek_and_limit(dir);
    test_gen_basic(dir);
    test_helmholtz();
    test_curlcurl();
    test_maglap();
    test_gen_errors();
    if (rmdir(dir) != 0) fprintf(stderr, "test_zio: %s left behind: %s\n", dir, strerror(errno));
    return check_exit();
}
