/* test_mmio.c -- the Matrix Market reader and writer: every valid kind (files
 * in tests/mm and inline text), every malformed case with its status and
 * message, huge headers without huge allocations, exactly rounded numbers,
 * gzip, exact write/read round trips and write errors. */
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "io/gen.h"
#include "io/mm_parse.h" /* spk_mm_set_window */
#include "io/mmio.h"

#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif

/* ---- helpers --------------------------------------------------------------- */

/* This process's CPU seconds: a bound on work, which a loaded machine (other
 * processes taking the cores) does not stretch as it stretches wall time. */
static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* out = dir/name (exits on overflow). */
static void join(char *out, size_t cap, const char *dir, const char *name)
{
    int n = snprintf(out, cap, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= cap) {
        fprintf(stderr, "path too long: %s/%s\n", dir, name);
        exit(1);
    }
}

/* Write n bytes to path; 0 on success. */
static int write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return 1;
    size_t w = fwrite(data, 1, n, f);
    return (fclose(f) != 0 || w != n) ? 1 : 0;
}

/* Read a whole file (malloc'd, NUL-terminated); NULL on failure. */
static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    for (;;) {
        if (n + 1 >= cap) {
            char *nb = realloc(b, cap *= 2);
            if (!nb) break;
            b = nb;
        }
        size_t got = fread(b + n, 1, cap - n - 1, f);
        if (!got) break;
        n += got;
    }
    fclose(f);
    b[n] = '\0';
    if (len) *len = n;
    return b;
}

/* Is A canonical and equal, entry by entry, to the row-major dense d? */
static int csr_equals_dense(const spk_csr *A, int m, int n, const double *d, const char *what)
{
    spk_err e = {0};
    int ok = 1;
    CHECK(A->nrows == m && A->ncols == n, "%s: size %d x %d, expected %d x %d", what, A->nrows,
          A->ncols, m, n);
    if (A->nrows != m || A->ncols != n) return 0;
    CHECK(spk_csr_validate(A, 1, &e) == 0, "%s: not canonical: %s", what, e.msg);
    double *full = calloc((size_t)m * (size_t)n + 1, sizeof *full);
    for (int i = 0; i < m; i++)
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            full[(size_t)i * n + A->colind[k]] += A->val[k];
    for (int i = 0; i < m * n; i++)
        if (full[i] != d[i]) {
            CHECK(0, "%s: entry (%d,%d) = %.17g, expected %.17g", what, i / n + 1, i % n + 1,
                  full[i], d[i]);
            ok = 0;
        }
    free(full);
    return ok;
}

/* Is the column-major dense v equal to the row-major dense d? */
static void dense_equals(const double *v, int m, int n, const double *d, const char *what)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            CHECK(v[i + (size_t)j * m] == d[(size_t)i * n + j],
                  "%s: dense (%d,%d) = %.17g, expected %.17g", what, i + 1, j + 1,
                  v[i + (size_t)j * m], d[(size_t)i * n + j]);
}

/* Are A and B identical, values compared bit by bit? */
static void csr_identical(const spk_csr *A, const spk_csr *B, const char *what)
{
    CHECK(A->nrows == B->nrows && A->ncols == B->ncols && A->nnz == B->nnz,
          "%s: %d x %d / %d vs %d x %d / %d", what, A->nrows, A->ncols, A->nnz, B->nrows, B->ncols,
          B->nnz);
    if (A->nrows != B->nrows || A->nnz != B->nnz) return;
    CHECK(!memcmp(A->rowptr, B->rowptr, ((size_t)A->nrows + 1) * sizeof(int)), "%s: rowptr", what);
    CHECK(!memcmp(A->colind, B->colind, (size_t)A->nnz * sizeof(int)), "%s: colind", what);
    for (int k = 0; k < A->nnz; k++)
        if (memcmp(&A->val[k], &B->val[k], sizeof(double))) {
            CHECK(0, "%s: value %d: %.17g written, %.17g read", what, k, A->val[k], B->val[k]);
            break;
        }
}

/* ---- valid files ------------------------------------------------------------ */

typedef struct valid_case {
    const char *file;
    int m, n, nnz;
    spk_mm_format format;
    spk_mm_field field;
    spk_mm_symmetry symmetry;
    long long entries;
    double d[16]; /* row-major */
} valid_case;

static const valid_case valid_cases[] = {
    {"ok_real_general.mtx",
     3,
     4,
     5,
     SPK_MM_COORDINATE,
     SPK_MM_REAL,
     SPK_MM_GENERAL,
     6,
     {3, 0, 0, -1e-3, 7.25, 0, 5, 0, 0, 0, 0, -2.5}},
    {"ok_integer_general.mtx",
     2,
     3,
     3,
     SPK_MM_COORDINATE,
     SPK_MM_INTEGER,
     SPK_MM_GENERAL,
     3,
     {0, -4, 0, 7, 0, 12}},
    {"ok_pattern_general.mtx",
     3,
     3,
     4,
     SPK_MM_COORDINATE,
     SPK_MM_PATTERN,
     SPK_MM_GENERAL,
     4,
     {1, 0, 0, 0, 0, 1, 1, 1, 0}},
    {"ok_real_symmetric.mtx",
     3,
     3,
     6,
     SPK_MM_COORDINATE,
     SPK_MM_REAL,
     SPK_MM_SYMMETRIC,
     4,
     {4, -1, 0.5, -1, 0, 0, 0.5, 0, 2}},
    {"ok_integer_symmetric.mtx",
     3,
     3,
     4,
     SPK_MM_COORDINATE,
     SPK_MM_INTEGER,
     SPK_MM_SYMMETRIC,
     3,
     {2, 0, -3, 0, 5, 0, -3, 0, 0}},
    {"ok_pattern_symmetric.mtx",
     3,
     3,
     5,
     SPK_MM_COORDINATE,
     SPK_MM_PATTERN,
     SPK_MM_SYMMETRIC,
     3,
     {1, 0, 1, 0, 0, 1, 1, 1, 0}},
    {"ok_real_skew.mtx",
     3,
     3,
     4,
     SPK_MM_COORDINATE,
     SPK_MM_REAL,
     SPK_MM_SKEW,
     2,
     {0, -1.5, 0, 1.5, 0, 2, 0, -2, 0}},
    {"ok_integer_skew.mtx",
     3,
     3,
     4,
     SPK_MM_COORDINATE,
     SPK_MM_INTEGER,
     SPK_MM_SKEW,
     2,
     {0, 6, -4, -6, 0, 0, 4, 0, 0}},
    {"ok_pattern_skew.mtx",
     3,
     3,
     4,
     SPK_MM_COORDINATE,
     SPK_MM_PATTERN,
     SPK_MM_SKEW,
     2,
     {0, -1, 0, 1, 0, -1, 0, 1, 0}},
    {"ok_array_general.mtx",
     2,
     3,
     5,
     SPK_MM_ARRAY,
     SPK_MM_REAL,
     SPK_MM_GENERAL,
     6,
     {1, -2.5, 0.125, 0, 4, 6}},
    {"ok_array_integer.mtx",
     2,
     2,
     3,
     SPK_MM_ARRAY,
     SPK_MM_INTEGER,
     SPK_MM_GENERAL,
     4,
     {1, 3, -2, 0}},
    {"ok_array_symmetric.mtx",
     3,
     3,
     9,
     SPK_MM_ARRAY,
     SPK_MM_REAL,
     SPK_MM_SYMMETRIC,
     6,
     {1, 2, 3, 2, 4, 5, 3, 5, 6}},
    {"ok_array_skew.mtx",
     3,
     3,
     6,
     SPK_MM_ARRAY,
     SPK_MM_REAL,
     SPK_MM_SKEW,
     3,
     {0, -1, -2, 1, 0, -3, 2, 3, 0}},
    {"ok_crlf.mtx", 2, 2, 3, SPK_MM_COORDINATE, SPK_MM_REAL, SPK_MM_GENERAL, 3, {1.5, 0, -2, 3}},
    {"ok_mixed_case.mtx", 2, 2, 1, SPK_MM_COORDINATE, SPK_MM_REAL, SPK_MM_GENERAL, 1, {0, 0, 0, 9}},
    {"ok_no_final_newline.mtx",
     2,
     2,
     2,
     SPK_MM_COORDINATE,
     SPK_MM_REAL,
     SPK_MM_GENERAL,
     2,
     {0, 3, 4, 0}},
    {"ok_empty_matrix.mtx", 3, 3, 0, SPK_MM_COORDINATE, SPK_MM_REAL, SPK_MM_GENERAL, 0, {0}},
    {"ok_vector_array.mtx",
     4,
     1,
     3,
     SPK_MM_ARRAY,
     SPK_MM_REAL,
     SPK_MM_GENERAL,
     4,
     {1.5, -2, 0, 1e-300}},
    {"ok_vector_coordinate.mtx",
     4,
     1,
     2,
     SPK_MM_COORDINATE,
     SPK_MM_REAL,
     SPK_MM_GENERAL,
     2,
     {0, -7, 0, 0.25}},
    {"ok_gzip.mtx.gz",
     3,
     3,
     3,
     SPK_MM_COORDINATE,
     SPK_MM_REAL,
     SPK_MM_GENERAL,
     3,
     {1, 0, 0, 0, 2.5, 0, -1, 0, 0}},
    {"ok_plain_named_gz.mtx.gz",
     3,
     3,
     3,
     SPK_MM_COORDINATE,
     SPK_MM_REAL,
     SPK_MM_GENERAL,
     3,
     {1, 0, 0, 0, 2.5, 0, -1, 0, 0}},
};
enum { N_VALID = sizeof valid_cases / sizeof valid_cases[0] };

/* Every ok_* file through all four readers (file and memory, CSR and dense). */
static void test_valid_files(void)
{
    char path[1024];
    for (int c = 0; c < N_VALID; c++) {
        const valid_case *vc = &valid_cases[c];
        spk_csr A = {0};
        spk_mm_info info;
        spk_err e = {0};
        join(path, sizeof path, SPK_TEST_FILES, vc->file);
        int st = spk_mm_read_csr(path, &A, &info, &e);
        CHECK(st == 0, "%s: status %d: %s", vc->file, st, e.msg);
        if (st) continue;
        csr_equals_dense(&A, vc->m, vc->n, vc->d, vc->file);
        CHECK(A.nnz == vc->nnz, "%s: nnz %d, expected %d", vc->file, A.nnz, vc->nnz);
        CHECK(info.format == vc->format && info.field == vc->field &&
                  info.symmetry == vc->symmetry && info.entries == vc->entries &&
                  info.nrows == vc->m && info.ncols == vc->n,
              "%s: info %d %d %d %lld", vc->file, info.format, info.field, info.symmetry,
              info.entries);
        spk_csr_free(&A);

        int m = -1, n = -1;
        double *v = NULL;
        st = spk_mm_read_dense(path, &m, &n, &v, &e);
        CHECK(st == 0 && m == vc->m && n == vc->n, "%s: dense read %d (%d x %d): %s", vc->file, st,
              m, n, e.msg);
        if (!st && m == vc->m && n == vc->n) dense_equals(v, m, n, vc->d, vc->file);
        free(v);

        if (strstr(vc->file, ".gz")) continue; /* the _mem readers take plain text */
        size_t len;
        char *text = read_all(path, &len);
        CHECK(text != NULL, "cannot read %s", path);
        if (!text) continue;
        st = spk_mm_read_csr_mem(vc->file, text, len, &A, NULL, &e);
        CHECK(st == 0, "%s (mem): %s", vc->file, e.msg);
        if (!st) csr_equals_dense(&A, vc->m, vc->n, vc->d, vc->file);
        spk_csr_free(&A);
        v = NULL;
        st = spk_mm_read_dense_mem(vc->file, text, len, &m, &n, &v, &e);
        CHECK(st == 0, "%s (dense mem): %s", vc->file, e.msg);
        if (!st) dense_equals(v, m, n, vc->d, vc->file);
        free(v);
        free(text);
    }
}

/* Inline texts that exercise what the files do not. */
static void test_valid_inline(void)
{
    spk_csr A = {0};
    spk_err e = {0};
    /* comments and blanks everywhere, tabs, leading spaces, duplicates summed */
    const char *t1 = "%%MatrixMarket matrix coordinate real general\n"
                     "%\n\n   % indented comment\n\t\n"
                     "  2   2\t 4  \n"
                     "\n1 1 1\n% x\n1 1 0.5\n  2 2 -1  \n2 2 1\n";
    const double d1[] = {1.5, 0, 0, 0};
    CHECK_OK(spk_mm_read_csr_mem("t1", t1, strlen(t1), &A, NULL, &e), e.msg);
    csr_equals_dense(&A, 2, 2, d1, "t1");
    CHECK(A.nnz == 2, "t1: duplicates summed into 2 entries (an explicit zero kept), nnz %d",
          A.nnz);
    spk_csr_free(&A);
    /* a UTF-8 byte order mark before the banner is accepted; a real of 600 digits
     * is a real (rounded as strtod rounds it) */
    {
        const char *bom = "\xEF\xBB\xBF%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 3\n";
        const double db[] = {3};
        CHECK_OK(spk_mm_read_csr_mem("bom", bom, strlen(bom), &A, NULL, &e), e.msg);
        csr_equals_dense(&A, 1, 1, db, "bom");
        spk_csr_free(&A);
        char longreal[800];
        int k = snprintf(longreal, sizeof longreal, "%%%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 0.");
        for (int i = 0; i < 600; i++) longreal[k++] = (char)('0' + (i * 7 + 3) % 10);
        longreal[k++] = '\n';
        longreal[k] = '\0';
        const char *digits = strstr(longreal, "1 1 0.") + 4;
        const double dl[] = {strtod(digits, NULL)};
        CHECK_OK(spk_mm_read_csr_mem("longreal", longreal, strlen(longreal), &A, NULL, &e), e.msg);
        csr_equals_dense(&A, 1, 1, dl, "longreal");
        spk_csr_free(&A);
        /* binary bytes after the last entry are named as such, not as more entries */
        const char nul[] = "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 3\n\0\0\0\0";
        int st = spk_mm_read_csr_mem("nul", nul, sizeof nul - 1, &A, NULL, &e);
        CHECK(st == SPK_ERR_PARSE && check_contains(e.msg, "nul:4: binary data (byte 0x00) after the last of the 1 "
                                                            "entries"),
              "NUL bytes: %d %s", st, e.msg);
        spk_csr_free(&A);
    }
    /* read, but maybe not what the file meant: noted in info (and counted) */
    {
        spk_mm_info mi;
        const char *both = "%%MatrixMarket matrix coordinate real symmetric\n2 2 4\n1 1 4\n2 1 1\n1 2 1\n2 2 4\n";
        CHECK_OK(spk_mm_read_csr_mem("both", both, strlen(both), &A, &mi, &e), e.msg);
        CHECK(mi.warnings == 1 && check_contains(mi.warning, "both:5: a symmetric file with entries on both sides"),
              "both triangles: %d '%s'", mi.warnings, mi.warning);
        spk_csr_free(&A);
        const char *lower = "%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 4\n2 1 1\n2 2 4\n";
        CHECK_OK(spk_mm_read_csr_mem("lower", lower, strlen(lower), &A, &mi, &e), e.msg);
        CHECK(mi.warnings == 0 && !mi.warning[0], "lower triangle: %d '%s'", mi.warnings, mi.warning);
        spk_csr_free(&A);
        const char *big = "%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 9007199254740993\n";
        CHECK_OK(spk_mm_read_csr_mem("bigint", big, strlen(big), &A, &mi, &e), e.msg);
        CHECK(mi.warnings == 1 && check_contains(mi.warning, "bigint:3: an integer of magnitude 2^53 or more"),
              "integer beyond 2^53: %d '%s'", mi.warnings, mi.warning);
        spk_csr_free(&A);
    }
    /* a buffer that is not NUL-terminated: the last token runs to the end */
    char t2[] = "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2.5XXXX";
    size_t n2 = strlen(t2) - 4;
    const double d2[] = {2.5};
    CHECK_OK(spk_mm_read_csr_mem("t2", t2, n2, &A, NULL, &e), e.msg);
    csr_equals_dense(&A, 1, 1, d2, "t2");
    spk_csr_free(&A);
    /* 0 x 0 matrices */
    const char *t3 = "%%MatrixMarket matrix coordinate real general\n0 0 0\n";
    CHECK_OK(spk_mm_read_csr_mem("t3", t3, strlen(t3), &A, NULL, &e), e.msg);
    CHECK(A.nrows == 0 && A.ncols == 0 && A.nnz == 0, "t3: 0 x 0");
    spk_csr_free(&A);
    const char *t4 = "%%MatrixMarket matrix array real general\n0 5\n";
    int m, n;
    double *v = NULL;
    CHECK_OK(spk_mm_read_dense_mem("t4", t4, strlen(t4), &m, &n, &v, &e), e.msg);
    CHECK(m == 0 && n == 5, "t4: 0 x 5, got %d x %d", m, n);
    free(v);
    /* explicit zeros in a coordinate file are kept; zeros of an array are not */
    const char *t5 = "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 0\n";
    CHECK_OK(spk_mm_read_csr_mem("t5", t5, strlen(t5), &A, NULL, &e), e.msg);
    CHECK(A.nnz == 1, "t5: explicit zero kept, nnz %d", A.nnz);
    spk_csr_free(&A);
    /* tiny and huge exponents */
    const char *t6 = "%%MatrixMarket matrix array real general\n5 1\n1e-400\n0e999999999999\n"
                     "-0.0\n1e-99999999999\n123456789012345678901234567890e-29\n";
    CHECK_OK(spk_mm_read_dense_mem("t6", t6, strlen(t6), &m, &n, &v, &e), e.msg);
    if (v) {
        CHECK(v[0] == 0 && v[1] == 0 && v[2] == 0 && signbit(v[2]) && v[3] == 0,
              "t6: underflow to zero, -0.0 kept");
        CHECK(v[4] == strtod("123456789012345678901234567890e-29", NULL), "t6: long mantissa %.17g",
              v[4]);
    }
    free(v);
    v = NULL;
    /* a symmetric matrix with only diagonal entries */
    const char *t7 = "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n1 1 3\n2 2 -4\n";
    const double d7[] = {3, 0, 0, -4};
    CHECK_OK(spk_mm_read_csr_mem("t7", t7, strlen(t7), &A, NULL, &e), e.msg);
    csr_equals_dense(&A, 2, 2, d7, "t7");
    spk_csr_free(&A);
    /* coordinate -> dense with duplicates and mirrors */
    const char *t8 =
        "%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n2 1 1\n1 2 2\n2 2 5\n";
    CHECK_OK(spk_mm_read_dense_mem("t8", t8, strlen(t8), &m, &n, &v, &e), e.msg);
    const double d8[] = {0, 3, 3, 5};
    if (v) dense_equals(v, 2, 2, d8, "t8");
    free(v);
}

/* ---- numbers ------------------------------------------------------------------ */

/* xorshift64 step. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* The reader rounds exactly like strtod: random doubles printed in many ways,
 * random digit strings with exponents around the fast paths' limits. */
static void test_numbers(void)
{
    enum { COUNT = 120000 };
    uint64_t s = 0x9e3779b97f4a7c15ULL;
    size_t cap = (size_t)COUNT * 48 + 256, len = 0;
    char *text = malloc(cap);
    double *want = malloc(COUNT * sizeof *want);
    len += (size_t)snprintf(text, cap, "%%%%MatrixMarket matrix array real general\n%d 1\n", COUNT);
    static const char *const special[] = {"0.1",
                                          "0.3333333333333333",
                                          "1e-300",
                                          "-2.5e+300",
                                          "4.9406564584124654e-324",
                                          "2.2250738585072009e-308",
                                          "2.2250738585072014e-308",
                                          "1.7976931348623157e308",
                                          "9007199254740993",
                                          "9007199254740992",
                                          "9007199254740991",
                                          "1e22",
                                          "1e23",
                                          "-1e-22",
                                          "1e-23",
                                          "8.98846567431158e307",
                                          "123456789012345678",
                                          "1234567890123456789",
                                          "12345678901234567890",
                                          "0.000000000000000000000000000001",
                                          ".5",
                                          "5.",
                                          "+7",
                                          "1E5",
                                          "1e+05",
                                          "00012",
                                          "0.1e1",
                                          "18446744073709551615",
                                          "18446744073709551616",
                                          "2.4703282292062327e-324",
                                          "2.4703282292062328e-324",
                                          "1.0000000000000002",
                                          "0.99999999999999989",
                                          "7.4505805969238281e-09",
                                          "9999999999999999999e-27",
                                          "9999999999999999999e27",
                                          "1e27",
                                          "1e-27",
                                          "3.0517578125e-05"};
    const int nspecial = (int)(sizeof special / sizeof special[0]);
    for (int k = 0; k < COUNT; k++) {
        char tok[64];
        if (k < nspecial) {
            snprintf(tok, sizeof tok, "%s", special[k]);
        } else {
            int kind = k % 6;
            uint64_t r = rng_next(&s);
            double x;
            if (kind < 3) { /* any finite double, as %.17g / %.16g / %.6g */
                memcpy(&x, &r, sizeof x);
                if (!isfinite(x)) x = 1.0;
                snprintf(tok, sizeof tok, kind == 0 ? "%.17g" : kind == 1 ? "%.16g" : "%.6g", x);
            } else if (kind == 3) { /* moderate values, 17 digits, e-notation */
                x = ((double)(r >> 11) / 9007199254740992.0 - 0.5) *
                    pow(10.0, (double)(int)(r % 40) - 20);
                snprintf(tok, sizeof tok, "%.17e", x);
            } else { /* digit strings of 1..24 digits with exponents in -40..40 */
                int nd = 1 + (int)(r % 24), ex = (int)((r >> 8) % 81) - 40, p = 0;
                uint64_t r2 = rng_next(&s);
                if (r2 & 1) tok[p++] = '-';
                for (int i = 0; i < nd; i++) {
                    tok[p++] = (char)('0' + (int)(rng_next(&s) % 10));
                    if (kind == 5 && i == nd / 2) tok[p++] = '.';
                }
                snprintf(tok + p, sizeof tok - (size_t)p, "e%d", ex);
            }
        }
        want[k] = strtod(tok, NULL);
        len += (size_t)snprintf(text + len, cap - len, "%s\n", tok);
    }
    int m, n;
    double *v = NULL;
    spk_err e = {0};
    int st = spk_mm_read_dense_mem("numbers", text, len, &m, &n, &v, &e);
    CHECK(st == 0, "numbers: %s", e.msg);
    if (!st) {
        int bad = 0;
        const char *line = strchr(strchr(text, '\n') + 1, '\n') + 1;
        for (int k = 0; k < COUNT; k++) {
            const char *nl = strchr(line, '\n');
            if (memcmp(&v[k], &want[k], sizeof(double)) && bad++ < 10)
                CHECK(0, "number '%.*s': read %.17g (%a), strtod %.17g (%a)", (int)(nl - line),
                      line, v[k], v[k], want[k], want[k]);
            line = nl + 1;
        }
        CHECK(bad == 0, "%d of %d numbers differ from strtod", bad, COUNT);
    }
    free(v);
    free(text);
    free(want);
}

/* ---- malformed input ------------------------------------------------------------ */

typedef struct bad_case {
    const char *text;
    int code;
    const char *msg;
} bad_case;

#define MMB "%%MatrixMarket matrix "
#define MMG MMB "coordinate real general\n"
static const bad_case bad_cases[] = {
    {"", SPK_ERR_PARSE, "inline:1: empty file"},
    {"\n", SPK_ERR_PARSE, "inline:1: missing %%MatrixMarket banner"},
    {"% just a comment\n3 3 1\n", SPK_ERR_PARSE, "inline:1: missing %%MatrixMarket banner"},
    {"%%MatrixMarket\n", SPK_ERR_PARSE, "inline:1: banner is missing the object"},
    {"%%MatrixMarket tensor coordinate real general\n", SPK_ERR_PARSE,
     "inline:1: unsupported object 'tensor'"},
    {MMB "\n", SPK_ERR_PARSE, "inline:1: banner is missing the format"},
    {MMB "coordinate\n", SPK_ERR_PARSE, "inline:1: banner is missing the field"},
    {MMB "coordinate real\n2 2 0\n", SPK_ERR_PARSE, "inline:1: banner is missing the symmetry"},
    {MMB "xyz real general\n", SPK_ERR_PARSE, "inline:1: unknown qualifier 'xyz'"},
    {MMB "coordinate xyz general\n", SPK_ERR_PARSE, "inline:1: unknown qualifier 'xyz'"},
    {MMB "coordinate real xyz\n", SPK_ERR_PARSE, "inline:1: unknown qualifier 'xyz'"},
    {MMB "coordinate real general xyz\n", SPK_ERR_PARSE, "inline:1: extra word 'xyz'"},
    {MMB "coordinate complex general\n1 1 1\n1 1 1 0\n", SPK_ERR_UNSUPPORTED,
     "inline:1: complex matrix: read it as a complex system"},
    {MMB "coordinate complex hermitian\n", SPK_ERR_UNSUPPORTED,
     "inline:1: complex matrix: read it as a complex system"},
    {MMB "array real hermitian\n", SPK_ERR_PARSE, "inline:1: hermitian symmetry goes with the complex field only"},
    {MMB "array pattern general\n1 1\n", SPK_ERR_PARSE,
     "inline:1: the pattern field is not allowed"},
    {MMG, SPK_ERR_PARSE, "inline:1: missing size line"},
    {MMG "% c\n\n", SPK_ERR_PARSE, "inline:3: missing size line"},
    {MMG "3\n", SPK_ERR_PARSE,
     "inline:2: bad size line: expected 3 numbers (rows columns entries), found 1"},
    {MMG "3 3\n", SPK_ERR_PARSE,
     "inline:2: bad size line: expected 3 numbers (rows columns entries), found 2"},
    {MMG "3 3 1 7\n", SPK_ERR_PARSE,
     "inline:2: bad size line: expected 3 numbers (rows columns entries), found more ('7')"},
    {MMG "3 3 x\n", SPK_ERR_PARSE, "inline:2: bad size line: 'x' is not a non-negative integer"},
    {MMG "3 3 -1\n", SPK_ERR_PARSE, "inline:2: bad size line: '-1' is not a non-negative integer"},
    {MMG "3 3 1e3\n", SPK_ERR_PARSE,
     "inline:2: bad size line: '1e3' is not a non-negative integer"},
    {MMG "3 3 1% c\n", SPK_ERR_PARSE,
     "inline:2: bad size line: '1%' is not a non-negative integer"},
    {MMB "array real general\n3\n", SPK_ERR_PARSE,
     "inline:2: bad size line: expected 2 numbers (rows columns), found 1"},
    {MMB "array real general\n3 1 3\n", SPK_ERR_PARSE,
     "inline:2: bad size line: expected 2 numbers (rows columns), found more"},
    {MMG "2147483647 1 0\n", SPK_ERR_PARSE,
     "inline:2: matrix size 2147483647 x 1 exceeds 32-bit index limits"},
    {MMG "1 99999999999999999999999 0\n", SPK_ERR_PARSE, "inline:2: matrix size 1 x "},
    {MMG "10 10 2147483648\n", SPK_ERR_PARSE,
     "inline:2: entry count 2147483648 exceeds 32-bit index limits"},
    {MMB "coordinate real skew-symmetric\n10 10 1073741824\n", SPK_ERR_PARSE,
     "inline:2: entry count 1073741824 (up to 2147483648 after mirroring) exceeds 32-bit index "
     "limits"},
    {MMB "array real general\n65536 32768\n", SPK_ERR_PARSE,
     "inline:2: array size 65536 x 32768 (2147483648 values) exceeds 32-bit index limits"},
    {MMB "coordinate real symmetric\n2 3 0\n", SPK_ERR_PARSE,
     "inline:2: a symmetric matrix must be square, the size line says 2 x 3"},
    {MMB "coordinate real skew-symmetric\n3 2 0\n", SPK_ERR_PARSE,
     "inline:2: a skew-symmetric matrix must be square"},
    {MMB "array real symmetric\n3 2\n", SPK_ERR_PARSE,
     "inline:2: a symmetric matrix must be square"},
    {MMG "2 2 1\n1\n", SPK_ERR_PARSE, "inline:3: too few tokens, expected 3 (row column value)"},
    {MMG "2 2 1\n1 1\n", SPK_ERR_PARSE, "inline:3: too few tokens, expected 3 (row column value)"},
    {MMG "2 2 1\n1 1    \t\r\n", SPK_ERR_PARSE,
     "inline:3: too few tokens, expected 3 (row column value)"},
    {MMG "2 2 1\n1 1 1 % comment\n", SPK_ERR_PARSE,
     "inline:3: too many tokens, expected 3 (row column value)"},
    {MMB "coordinate pattern general\n2 2 1\n1\n", SPK_ERR_PARSE,
     "inline:3: too few tokens, expected 2 (row column)"},
    {MMB "coordinate pattern symmetric\n2 2 1\n1 1 1\n", SPK_ERR_PARSE,
     "inline:3: too many tokens, expected 2 (row column)"},
    {MMG "2 2 1\n3 1 1\n", SPK_ERR_PARSE, "inline:3: row index out of range: 3 not in 1..2"},
    {MMG "2 2 1\n0 1 1\n", SPK_ERR_PARSE, "inline:3: row index out of range: 0 not in 1..2"},
    {MMG "2 2 1\n-1 1 1\n", SPK_ERR_PARSE, "inline:3: row index out of range: -1 not in 1..2"},
    {MMG "2 2 1\n1 3 1\n", SPK_ERR_PARSE, "inline:3: column index out of range: 3 not in 1..2"},
    {MMG "2 5 1\n1 99999999999999999999 1\n", SPK_ERR_PARSE, "inline:3: column index out of range"},
    {MMG "0 0 1\n1 1 1\n", SPK_ERR_PARSE, "inline:3: row index out of range: 1 not in 1..0"},
    {MMG "2 2 1\n1a 1 1\n", SPK_ERR_PARSE, "inline:3: bad row index '1a'"},
    {MMG "2 2 1\n1 1.5 1\n", SPK_ERR_PARSE, "inline:3: bad column index '1.5'"},
    {MMG "2 2 1\n1 1 1.2.3\n", SPK_ERR_PARSE, "inline:3: bad value '1.2.3' (not a real number)"},
    {MMG "2 2 1\n1 1 1e\n", SPK_ERR_PARSE, "inline:3: bad value '1e' (not a real number)"},
    {MMG "2 2 1\n1 1 .\n", SPK_ERR_PARSE, "inline:3: bad value '.' (not a real number)"},
    {MMG "2 2 1\n1 1 0x10\n", SPK_ERR_PARSE, "inline:3: bad value '0x10' (not a real number)"},
    {MMG "2 2 1\n1 1 1,5\n", SPK_ERR_PARSE, "inline:3: bad value '1,5' (not a real number)"},
    {MMB "coordinate integer general\n2 2 1\n1 1 2.0\n", SPK_ERR_PARSE,
     "inline:3: bad value '2.0' (not an integer, the field is integer)"},
    {MMB "coordinate integer general\n2 2 1\n1 1 1e2\n", SPK_ERR_PARSE,
     "inline:3: bad value '1e2' (not an integer"},
    {MMB "array integer general\n1 1\n0.5\n", SPK_ERR_PARSE,
     "inline:3: bad value '0.5' (not an integer"},
    {MMG "2 2 1\n1 1 NaN\n", SPK_ERR_PARSE, "inline:3: value is not finite: 'NaN'"},
    {MMG "2 2 1\n1 1 -nan\n", SPK_ERR_PARSE, "inline:3: value is not finite: '-nan'"},
    {MMG "2 2 1\n1 1 nan(0x1)\n", SPK_ERR_PARSE, "inline:3: value is not finite: 'nan(0x1)'"},
    {MMG "2 2 1\n1 1 +infinity\n", SPK_ERR_PARSE, "inline:3: value is not finite: '+infinity'"},
    {MMG "2 2 1\n1 1 inf\n", SPK_ERR_PARSE, "inline:3: value is not finite: 'inf'"},
    {MMG "2 2 1\n1 1 -1.8e308\n", SPK_ERR_PARSE, "inline:3: value is not finite: '-1.8e308'"},
    {MMB "array real general\n1 1\ninf\n", SPK_ERR_PARSE, "inline:3: value is not finite: 'inf'"},
    {MMB "coordinate real skew-symmetric\n2 2 1\n1 1 1\n", SPK_ERR_PARSE,
     "inline:3: diagonal entry (1,1) in a skew-symmetric matrix"},
    {MMB "coordinate pattern skew-symmetric\n2 2 1\n2 2\n", SPK_ERR_PARSE,
     "inline:3: diagonal entry (2,2)"},
    {MMG "2 2 2\n1 1 1\n", SPK_ERR_PARSE, "inline:3: file ends after 1 of 2 entries"},
    {MMG "2 2 2\n1 1 1", SPK_ERR_PARSE, "inline:3: file ends after 1 of 2 entries"},
    {MMG "2 2 2\n", SPK_ERR_PARSE, "inline:2: file ends after 0 of 2 entries"},
    {MMG "2 2 1\n1 1 1\n2 2 2\n", SPK_ERR_PARSE,
     "inline:4: more entries than the 1 announced in the size line"},
    {MMG "2 2 0\n% nothing\n\n1 1 1\n", SPK_ERR_PARSE,
     "inline:5: more entries than the 0 announced"},
    {MMG "2 2 1\n1 1 1\ngarbage\n", SPK_ERR_PARSE, "inline:4: more entries than the 1 announced"},
    {MMB "array real general\n2 1\n1\n", SPK_ERR_PARSE, "inline:3: file ends after 1 of 2 values"},
    {MMB "array real general\n1 1\n1\n2\n", SPK_ERR_PARSE,
     "inline:4: more values than the 1 announced"},
    {MMB "array real general\n2 1\n1 2\n", SPK_ERR_PARSE,
     "inline:3: too many tokens, expected 1 value per line"},
    {MMB "array real symmetric\n2 2\n1\n2\n", SPK_ERR_PARSE,
     "inline:4: file ends after 2 of 3 values"},
    {MMB "array real skew-symmetric\n3 3\n1\n2\n3\n4\n", SPK_ERR_PARSE,
     "inline:6: more values than the 3 announced"},
    {MMB "array real general\n1 1\nx\n", SPK_ERR_PARSE,
     "inline:3: bad value 'x' (not a real number)"},
    {"%%MatrixMarket matrix coordinate real general\r\n% c\r\n2 2 1\r\n1 3 1\r\n", SPK_ERR_PARSE,
     "inline:4: column index out of range: 3 not in 1..2"},
    {MMG "2 2 1\n1 1 0123456789012345678901234567890123456789012345678901234567890123456789x\n",
     SPK_ERR_PARSE, "inline:3: bad value '0123456789"},
};
enum { N_BAD = sizeof bad_cases / sizeof bad_cases[0] };

/* Every malformed inline text fails with the right code and message, from
 * both memory readers, and leaves the output untouched. */
static void test_malformed_inline(void)
{
    for (int c = 0; c < N_BAD; c++) {
        const bad_case *bc = &bad_cases[c];
        spk_csr A = {0};
        spk_err e = {0};
        int st = spk_mm_read_csr_mem("inline", bc->text, strlen(bc->text), &A, NULL, &e);
        CHECK(st == bc->code && e.code == bc->code, "case %d: status %d, expected %d (%s)", c, st,
              bc->code, e.msg);
        CHECK(check_contains(e.msg, bc->msg), "case %d: message '%s' lacks '%s'", c, e.msg,
              bc->msg);
        CHECK(A.rowptr == NULL && A.nnz == 0, "case %d: A was written on failure", c);
        spk_csr_free(&A);
        int m = -7, n = -7;
        double sentinel = 0, *v = &sentinel;
        spk_err e2 = {0};
        st = spk_mm_read_dense_mem("inline", bc->text, strlen(bc->text), &m, &n, &v, &e2);
        CHECK(st == bc->code && !strcmp(e.msg, e2.msg), "case %d (dense): %d '%s'", c, st, e2.msg);
        CHECK(m == -7 && v == &sentinel, "case %d (dense): outputs written on failure", c);
    }
    /* NULL buffer with length 0 is an empty file; the name defaults */
    spk_csr A = {0};
    spk_err e = {0};
    CHECK(spk_mm_read_csr_mem(NULL, NULL, 0, &A, NULL, &e) == SPK_ERR_PARSE &&
              check_contains(e.msg, "(memory):1: empty file"),
          "NULL buffer: %s", e.msg);
    CHECK(spk_mm_read_csr_mem("x", "", 0, NULL, NULL, &e) == SPK_ERR_INVALID_ARG, "NULL A");
    CHECK(spk_mm_read_csr(NULL, &A, NULL, &e) == SPK_ERR_INVALID_ARG, "NULL path");
}

/* Every bad_* file of tests/mm fails as EXPECTED.tsv says; every file there is
 * listed (bad_*) or checked by test_valid_files (ok_*). */
static void test_malformed_files(void)
{
    char path[1024], line[1024];
    int listed = 0;
    join(path, sizeof path, SPK_TEST_FILES, "EXPECTED.tsv");
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "cannot open %s", path);
    if (!f) return;
    char *names = calloc(1, 65536);
    size_t names_len = 0;
    while (fgets(line, sizeof line, f)) {
        char *tab = strchr(line, '\t'), *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        CHECK(tab != NULL, "EXPECTED.tsv: no tab in '%s'", line);
        if (!tab) continue;
        *tab = '\0';
        const char *file = line, *want = tab + 1;
        int code = strstr(want, "complex matrix:") || strstr(want, "stored entries") ? SPK_ERR_UNSUPPORTED
                   : strstr(want, "gzip data")      ? SPK_ERR_IO
                                                    : SPK_ERR_PARSE;
        spk_csr A = {0};
        spk_err e = {0};
        join(path, sizeof path, SPK_TEST_FILES, file);
        int st = spk_mm_read_csr(path, &A, NULL, &e);
        CHECK(st == code, "%s: status %d, expected %d (%s)", file, st, code, e.msg);
        CHECK(check_contains(e.msg, want), "%s: message '%s' lacks '%s'", file, e.msg, want);
        CHECK(strncmp(e.msg, path, strlen(path)) == 0,
              "%s: message does not start with the path: %s", file, e.msg);
        spk_csr_free(&A);
        int m, n;
        double *v = NULL;
        st = spk_mm_read_dense(path, &m, &n, &v, &e);
        CHECK(st == code && check_contains(e.msg, want), "%s (dense): %d %s", file, st, e.msg);
        names_len += (size_t)snprintf(names + names_len, 65536 - names_len, "|%s|", file);
        listed++;
    }
    fclose(f);
    CHECK(listed >= 40, "EXPECTED.tsv lists only %d files", listed);
    DIR *d = opendir(SPK_TEST_FILES);
    CHECK(d != NULL, "cannot list %s", SPK_TEST_FILES);
    for (struct dirent *de; d && (de = readdir(d));) {
        char key[600];
        snprintf(key, sizeof key, "|%s|", de->d_name);
        if (!strncmp(de->d_name, "bad_", 4))
            CHECK(strstr(names, key) != NULL, "%s is not listed in EXPECTED.tsv", de->d_name);
        if (!strncmp(de->d_name, "ok_", 3)) {
            int found = 0;
            for (int c = 0; c < N_VALID; c++) found |= !strcmp(valid_cases[c].file, de->d_name);
            CHECK(found, "%s has no expected matrix in test_mmio.c", de->d_name);
        }
    }
    if (d) closedir(d);
    free(names);
}

/* A size line claiming billions of entries, backed by one entry, fails fast
 * and without a large allocation (checked under a 1 GiB address-space limit
 * in a child process where no sanitizer reserves shadow memory). */
static void test_huge_header(void)
{
    static const char *const texts[] = {
        MMG "2000000000 2000000000 2000000000\n1 1 1\n",
        MMB "coordinate pattern symmetric\n1000000000 1000000000 1000000000\n1 1\n",
        MMB "array real general\n46000 46000\n1\n",
        MMB "array real symmetric\n46000 46000\n1\n",
    };
    static const char *const msgs[] = {"inline:3: file ends after 1 of 2000000000 entries",
                                       "inline:3: file ends after 1 of 1000000000 entries",
                                       "inline:3: file ends after 1 of 2116000000 values",
                                       "inline:3: file ends after 1 of 1058023000 values"};
    for (int c = 0; c < 4; c++) {
        spk_csr A = {0};
        spk_err e = {0};
        double t = now_s();
        int st = spk_mm_read_csr_mem("inline", texts[c], strlen(texts[c]), &A, NULL, &e);
        t = now_s() - t;
        CHECK(st == SPK_ERR_PARSE && check_contains(e.msg, msgs[c]), "huge %d: %d %s", c, st,
              e.msg);
        CHECK(t < 1.0, "huge %d took %.2f s of CPU", c, t);
        int m, n;
        double *v = NULL;
        st = spk_mm_read_dense_mem("inline", texts[c], strlen(texts[c]), &m, &n, &v, &e);
        CHECK(st == SPK_ERR_PARSE && check_contains(e.msg, msgs[c]), "huge %d (dense): %s", c,
              e.msg);
#ifndef TEST_ASAN
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            struct rlimit rl = {(rlim_t)1 << 30, (rlim_t)1 << 30};
            setrlimit(RLIMIT_AS, &rl);
            st = spk_mm_read_csr_mem("inline", texts[c], strlen(texts[c]), &A, NULL, &e);
            _exit(st == SPK_ERR_PARSE && check_contains(e.msg, msgs[c]) ? 0 : 1);
        }
        int ws = 0;
        CHECK(pid > 0 && waitpid(pid, &ws, 0) == pid && WIFEXITED(ws) && WEXITSTATUS(ws) == 0,
              "huge %d under a 1 GiB address-space limit failed", c);
#endif
    }
}

/* ---- gzip ------------------------------------------------------------------------ */

/* .gz reading: zlib-written files, truncated, corrupt and empty ones, open errors. */
static void test_gzip(const char *dir)
{
    char gzpath[1024], bad[1024];
    spk_csr A = {0};
    spk_err e = {0};
    const char *text = MMG "% through zlib\n3 2 3\n1 1 0.1\n3 2 -7\n2 1 1e-300\n";
    const double d[] = {0.1, 0, 1e-300, 0, 0, -7};
    /* a .gz written with zlib directly */
    join(gzpath, sizeof gzpath, dir, "z.mtx.gz");
    gzFile gz = gzopen(gzpath, "wb9");
    CHECK(gz != NULL, "gzopen %s", gzpath);
    if (!gz) return;
    gzwrite(gz, text, (unsigned)strlen(text));
    gzclose(gz);
    CHECK_OK(spk_mm_read_csr(gzpath, &A, NULL, &e), e.msg);
    csr_equals_dense(&A, 3, 2, d, "z.mtx.gz");
    spk_csr_free(&A);
    /* truncated and corrupted copies */
    size_t len;
    char *bytes = read_all(gzpath, &len);
    join(bad, sizeof bad, dir, "trunc.mtx.gz");
    write_bytes(bad, bytes, len - 6);
    int st = spk_mm_read_csr(bad, &A, NULL, &e);
    CHECK(st == SPK_ERR_IO && check_contains(e.msg, bad) &&
              check_contains(e.msg, "truncated or corrupt gzip data (zlib: "),
          "truncated gzip: %d %s", st, e.msg);
    for (size_t k = 12; k < len - 8; k++) bytes[k] = (char)(bytes[k] ^ 0x33);
    join(bad, sizeof bad, dir, "corrupt.mtx.gz");
    write_bytes(bad, bytes, len);
    st = spk_mm_read_csr(bad, &A, NULL, &e);
    CHECK(st == SPK_ERR_IO && check_contains(e.msg, "truncated or corrupt gzip data"),
          "corrupt gzip: %d %s", st, e.msg);
    free(bytes);
    /* an empty .gz file */
    join(bad, sizeof bad, dir, "empty.mtx.gz");
    write_bytes(bad, "", 0);
    st = spk_mm_read_csr(bad, &A, NULL, &e);
    CHECK(st == SPK_ERR_PARSE && check_contains(e.msg, "empty.mtx.gz:1: empty file"),
          "empty gz: %s", e.msg);
    /* files that cannot be opened or read */
    join(bad, sizeof bad, dir, "missing.mtx.gz");
    st = spk_mm_read_csr(bad, &A, NULL, &e);
    CHECK(st == SPK_ERR_IO && check_contains(e.msg, "cannot open '") &&
              check_contains(e.msg, "missing.mtx.gz': No such file"),
          "missing gz: %s", e.msg);
    join(bad, sizeof bad, dir, "missing.mtx");
    st = spk_mm_read_csr(bad, &A, NULL, &e);
    CHECK(st == SPK_ERR_IO && check_contains(e.msg, "missing.mtx': No such file"), "missing: %s",
          e.msg);
    st = spk_mm_read_csr(dir, &A, NULL, &e);
    CHECK(st == SPK_ERR_IO && check_contains(e.msg, dir), "directory: %d %s", st, e.msg);
    int m, n;
    double *v = NULL;
    st = spk_mm_read_dense(bad, &m, &n, &v, &e);
    CHECK(st == SPK_ERR_IO, "missing (dense): %s", e.msg);
}

/* ---- the reader's window ----------------------------------------------------------- */

/* A text of n coordinate entries over a few windows: comment and blank lines
 * of up to `comment` bytes among them, varied blanks and number forms. */
static char *window_text(int n, size_t comment, size_t *len)
{
    const size_t cap = (size_t)n * 48 + 8 * comment + 4096;
    char *t = malloc(cap), *c = malloc(comment + 2);
    size_t k = 0;
    if (!t || !c) {
        free(t);
        free(c);
        return NULL;
    }
    memset(c, 'x', comment);
    c[0] = '%';
    c[comment - 1] = '\n';
    c[comment] = '\0';
    k += (size_t)snprintf(t + k, cap - k, "%scoordinate real general\n%s%d %d %d\n", MMB, c, n, n, n);
    for (int i = 0; i < n; i++) {
        if (i % 40000 == 7) k += (size_t)snprintf(t + k, cap - k, "%s   \n\n", c);
        k += (size_t)snprintf(t + k, cap - k, i % 3 ? "%d %d %.17g\n" : "  %d\t%d   %.6e \r\n", i + 1,
                              (i * 7) % n + 1, (i % 2 ? -1.0 : 1.0) * (1.0 + i) / 7.0);
    }
    free(c);
    *len = k;
    return t;
}

/* Files read through the window (plain and gzip) give what the whole text
 * gives; a line longer than the window's line limit is an error, wherever
 * it is, so no blank or comment run makes the reader hold more; a bomb of
 * blanks behind a gzip file stops at the first window. */
static void test_window(const char *dir)
{
    char plain[1024], gzp[1024];
    size_t len = 0;
    char *text = window_text(200000, 60000, &len);
    CHECK(text != NULL && len > 4 * (1u << 20), "window text of %zu bytes", len);
    if (!text) return;
    spk_csr W = {0}, A = {0};
    spk_err e = {0};
    CHECK_OK(spk_mm_read_csr_mem("inline", text, len, &W, NULL, &e), e.msg);
    join(plain, sizeof plain, dir, "window.mtx");
    join(gzp, sizeof gzp, dir, "window.mtx.gz");
    write_bytes(plain, text, len);
    gzFile gz = gzopen(gzp, "wb1");
    CHECK(gz != NULL, "gzopen %s", gzp);
    if (gz) {
        gzwrite(gz, text, (unsigned)len);
        gzclose(gz);
    }
    const char *paths[] = {plain, gzp};
    for (int f = 0; f < 2; f++) {
        CHECK_OK(spk_mm_read_csr(paths[f], &A, NULL, &e), e.msg);
        CHECK(A.nrows == W.nrows && A.nnz == W.nnz &&
                  memcmp(A.rowptr, W.rowptr, ((size_t)W.nrows + 1) * sizeof(int)) == 0 &&
                  memcmp(A.colind, W.colind, (size_t)W.nnz * sizeof(int)) == 0 &&
                  memcmp(A.val, W.val, (size_t)W.nnz * sizeof(double)) == 0,
              "%s: not the whole text's matrix", paths[f]);
        spk_csr_free(&A);
    }
    spk_csr_free(&W);
    free(text);
    /* lines longer than the window: a blank run at the end, a comment among the entries (a
     * line over 64 KiB may be refused; one over the window always is) */
    const size_t big = (2u << 20) + 1000;
    char *junk = malloc(big + 256);
    CHECK(junk != NULL, "junk");
    if (!junk) return;
    for (int c = 0; c < 2; c++) {
        size_t k = (size_t)snprintf(junk, 256, "%s2 2 %d\n1 1 1.0\n", MMG, c ? 2 : 1);
        memset(junk + k, c ? 'y' : ' ', big);
        if (c) junk[k] = '%';
        k += big;
        k += (size_t)snprintf(junk + k, 64, c ? "\n2 2 2.0\n" : "");
        join(plain, sizeof plain, dir, c ? "longcomment.mtx" : "longblank.mtx");
        write_bytes(plain, junk, k);
        int st = spk_mm_read_csr(plain, &A, NULL, &e);
        CHECK(st == SPK_ERR_PARSE && check_contains(e.msg, ":4: a line longer than 65536 bytes"),
              "%s: %d %s", plain, st, e.msg);
        spk_csr_free(&A);
    }
    free(junk);
    /* a memory limit: the same matrix within it, an error naming it below what the entries or
     * the CSR need (the window text's 200,000 entries: 3.2 MB held, 5.6 MB with the CSR) */
    {
        join(plain, sizeof plain, dir, "window.mtx");
        int st = spk_mm_read_csr_limit(plain, (size_t)64 << 20, &A, NULL, &e);
        CHECK(st == SPK_OK && A.nnz > 0, "limit 64 MiB: %d %s", st, e.msg);
        spk_csr_free(&A);
        const size_t low[] = {(size_t)1 << 20, (size_t)4 << 20};
        for (int k = 0; k < 2; k++) {
            st = spk_mm_read_csr_limit(plain, low[k], &A, NULL, &e);
            CHECK(st == SPK_ERR_NOMEM && check_contains(e.msg, "over the memory limit of") && A.rowptr == NULL,
                  "limit %zu: %d %s", low[k], st, e.msg);
            spk_csr_free(&A);
        }
    }
    /* 64 MiB of blanks behind a gzip file: the first window says so */
    join(gzp, sizeof gzp, dir, "bomb.mtx.gz");
    gz = gzopen(gzp, "wb9");
    char *blanks = malloc(1u << 20);
    if (gz && blanks) {
        const char *head = MMG "2 2 1\n1 1 1.0\n";
        gzwrite(gz, head, (unsigned)strlen(head));
        memset(blanks, ' ', 1u << 20);
        for (int i = 0; i < 64; i++) gzwrite(gz, blanks, 1u << 20);
    }
    if (gz) gzclose(gz);
    free(blanks);
    int st = spk_mm_read_csr(gzp, &A, NULL, &e);
    CHECK(st == SPK_ERR_PARSE && check_contains(e.msg, "bomb.mtx.gz:4: a line longer than 65536 bytes"),
          "gzip bomb: %d %s", st, e.msg);
    spk_csr_free(&A);
}

/* Every file of tests/mm and data/ read through tiny windows (lines of up to
 * 128 bytes in windows of 256, and of up to 40 in windows of 96: thousands
 * of refills a file, lines cut at every offset) gives what the default
 * window gives: the same status, message and matrix, bit for bit. */
static int same_csr(const spk_csr *A, const spk_csr *B)
{
    return A->nrows == B->nrows && A->ncols == B->ncols && A->nnz == B->nnz &&
           (!A->rowptr || memcmp(A->rowptr, B->rowptr, ((size_t)A->nrows + 1) * sizeof(int)) == 0) &&
           (!A->nnz || (memcmp(A->colind, B->colind, (size_t)A->nnz * sizeof(int)) == 0 &&
                        memcmp(A->val, B->val, (size_t)A->nnz * sizeof(double)) == 0));
}

static void small_windows_in(const char *folder, int *files, int *compared)
{
    DIR *dr = opendir(folder);
    for (struct dirent *de; dr && (de = readdir(dr));) {
        if (!strstr(de->d_name, ".mtx")) continue;
        char path[1024];
        join(path, sizeof path, folder, de->d_name);
        spk_csr W = {0}, A = {0};
        spk_err ew = {0}, e = {0};
        spk_mm_set_window(0, 0);
        const int sw = spk_mm_read_csr(path, &W, NULL, &ew);
        const size_t win[2][2] = {{256, 128}, {96, 40}};
        for (int k = 0; k < 2; k++) {
            spk_mm_set_window(win[k][0], win[k][1]);
            const int st = spk_mm_read_csr(path, &A, NULL, &e);
            /* a line longer than the tiny window's limit is refused there: the only difference allowed */
            if (st == SPK_ERR_PARSE && check_contains(e.msg, "a line longer than")) {
                spk_csr_free(&A);
                continue;
            }
            (*compared)++;
            CHECK(st == sw && strcmp(e.msg, ew.msg) == 0 && (st || same_csr(&A, &W)),
                  "%s, window %zu: status %d '%s', default window %d '%s'", de->d_name, win[k][0], st, e.msg, sw,
                  ew.msg);
            spk_csr_free(&A);
        }
        spk_csr_free(&W);
        (*files)++;
    }
    if (dr) closedir(dr);
    spk_mm_set_window(0, 0);
}

static void test_small_windows(void)
{
    int files = 0, compared = 0;
    small_windows_in(SPK_TEST_FILES, &files, &compared);
    small_windows_in(SPK_TEST_DATA, &files, &compared);
    CHECK(files >= 60 && compared >= 2 * files - 8, "%d files read through small windows, %d readings compared",
          files, compared);
    printf("small windows: %d files, %d readings compared with the default window's\n", files, compared);
}

/* ---- writing ------------------------------------------------------------------------ */

/* A canonical 5 x 4 matrix with awkward values (an empty row, -0, DBL_MAX, denormals). */
static void awkward_matrix(spk_csr *A)
{
    static const int rp[] = {0, 3, 3, 6, 8, 10};
    static const int ci[] = {0, 1, 3, 0, 1, 2, 2, 3, 0, 3};
    const double vals[] = {0.1,
                           1.0 / 3.0,
                           1e-300,
                           -2.5e300,
                           4.9406564584124654e-324,
                           2.2250738585072009e-308,
                           DBL_MAX,
                           -0.0,
                           -123456789.0,
                           1e15 + 0.5};
    spk_err e = {0};
    spk_csr_alloc(A, 5, 4, 10, &e);
    memcpy(A->rowptr, rp, sizeof rp);
    memcpy(A->colind, ci, sizeof ci);
    memcpy(A->val, vals, sizeof vals);
}

/* Written matrices read back bit for bit (plain, gz, symmetric); write errors. */
static void test_write_roundtrip(const char *dir)
{
    char path[1024];
    spk_csr A = {0}, B = {0}, R = {0};
    spk_err e = {0};
    spk_mm_info info;
    awkward_matrix(&A);
    const char *names[] = {"rt.mtx", "rt.mtx.gz"};
    for (int t = 0; t < 2; t++) {
        join(path, sizeof path, dir, names[t]);
        CHECK_OK(spk_mm_write_csr(path, &A, 0, "written by test_mmio\nsecond line\n", &e), e.msg);
        CHECK_OK(spk_mm_read_csr(path, &B, &info, &e), e.msg);
        csr_identical(&A, &B, names[t]);
        CHECK(info.symmetry == SPK_MM_GENERAL && info.field == SPK_MM_REAL && info.entries == 10,
              "%s: info", names[t]);
        spk_csr_free(&B);
    }
    /* the .gz really is compressed; the plain one carries the comment lines */
    size_t len;
    char *txt;
    join(path, sizeof path, dir, "rt.mtx.gz");
    txt = read_all(path, &len);
    CHECK(txt && len > 2 && (unsigned char)txt[0] == 0x1f && (unsigned char)txt[1] == 0x8b,
          "rt.mtx.gz is not gzip data");
    free(txt);
    join(path, sizeof path, dir, "rt.mtx");
    txt = read_all(path, &len);
    const char *head = "%%MatrixMarket matrix coordinate real general\n% written by test_mmio\n"
                       "% second line\n5 4 10\n1 1 0.10000000000000001\n";
    CHECK(txt && !strncmp(txt, head, strlen(head)), "rt.mtx header: %.120s", txt ? txt : "");
    free(txt);

    /* random finite doubles of every magnitude, a random pattern */
    uint64_t s = 12345;
    int m = 300, n = 200, nnz = 6000;
    int *ri = malloc(nnz * sizeof *ri), *cj = malloc(nnz * sizeof *cj);
    double *vv = malloc(nnz * sizeof *vv);
    for (int k = 0; k < nnz; k++) {
        uint64_t r = rng_next(&s);
        ri[k] = (int)(r % (uint64_t)m);
        cj[k] = (int)((r >> 20) % (uint64_t)n);
        r = rng_next(&s);
        memcpy(&vv[k], &r, sizeof(double));
        if (!isfinite(vv[k])) vv[k] = (double)k;
        if (k % 3 == 0) vv[k] = (double)(int64_t)(r % 2000001) - 1000000.0; /* integers */
    }
    CHECK_OK(spk_csr_from_coo(m, n, (size_t)nnz, ri, cj, vv, &R, &e), e.msg);
    for (int t = 0; t < 2; t++) {
        join(path, sizeof path, dir, t ? "rand.mtx.gz" : "rand.mtx");
        CHECK_OK(spk_mm_write_csr(path, &R, 0, NULL, &e), e.msg);
        CHECK_OK(spk_mm_read_csr(path, &B, NULL, &e), e.msg);
        csr_identical(&R, &B, "random matrix");
        spk_csr_free(&B);
    }
    free(ri);
    free(cj);
    free(vv);
    spk_csr_free(&R);

    /* symmetric: only the lower triangle is written, the read mirrors it back */
    static const int srp[] = {0, 2, 5, 7};
    static const int sci[] = {0, 1, 0, 1, 2, 1, 2};
    const double sva[] = {4, 0.1, 0.1, 5, -1.0 / 3.0, -1.0 / 3.0, 6e-310};
    spk_csr S = {0};
    spk_csr_alloc(&S, 3, 3, 7, &e);
    memcpy(S.rowptr, srp, sizeof srp);
    memcpy(S.colind, sci, sizeof sci);
    memcpy(S.val, sva, sizeof sva);
    join(path, sizeof path, dir, "sym.mtx");
    CHECK_OK(spk_mm_write_csr(path, &S, 1, NULL, &e), e.msg);
    CHECK_OK(spk_mm_read_csr(path, &B, &info, &e), e.msg);
    csr_identical(&S, &B, "symmetric");
    CHECK(info.symmetry == SPK_MM_SYMMETRIC && info.entries == 5, "symmetric: %d entries %lld",
          info.symmetry, info.entries);
    spk_csr_free(&B);
    txt = read_all(path, &len);
    CHECK(txt && strstr(txt, "coordinate real symmetric\n3 3 5\n"), "symmetric header: %s",
          txt ? txt : "");
    free(txt);

    /* argument errors, before any file is made */
    join(path, sizeof path, dir, "never.mtx");
    CHECK(spk_mm_write_csr(path, &A, 1, NULL, &e) == SPK_ERR_INVALID_ARG &&
              check_contains(e.msg, "not square"),
          "symmetric non-square: %s", e.msg);
    S.val[1] = 0.2; /* now A(1,2) != A(2,1) */
    CHECK(spk_mm_write_csr(path, &S, 1, NULL, &e) == SPK_ERR_INVALID_ARG &&
              check_contains(e.msg, "not symmetric"),
          "symmetric check: %s", e.msg);
    S.val[1] = NAN;
    CHECK(spk_mm_write_csr(path, &S, 0, NULL, &e) == SPK_ERR_INVALID_ARG &&
              check_contains(e.msg, "(1,2) is not finite"),
          "NaN write: %s", e.msg);
    CHECK(access(path, F_OK) != 0, "a failed write left %s", path);
    CHECK(spk_mm_write_csr(NULL, &S, 0, NULL, &e) == SPK_ERR_INVALID_ARG, "NULL path");
    spk_csr_free(&S);

    /* files that cannot be written */
    const char *nodir = "/nonexistent-spk-dir/x.mtx";
    CHECK(spk_mm_write_csr(nodir, &A, 0, NULL, &e) == SPK_ERR_IO &&
              check_contains(e.msg, "cannot open '/nonexistent-spk-dir/x.mtx' for writing"),
          "unwritable: %s", e.msg);
    CHECK(spk_mm_write_csr("/nonexistent-spk-dir/x.mtx.gz", &A, 0, NULL, &e) == SPK_ERR_IO,
          "unwritable gz: %s", e.msg);
    CHECK(spk_mm_write_dense(nodir, 1, 1, A.val, NULL, &e) == SPK_ERR_IO, "unwritable dense: %s",
          e.msg);
    CHECK(spk_mm_write_csr(dir, &A, 0, NULL, &e) == SPK_ERR_IO, "directory: %s", e.msg);
    if (access("/dev/full", W_OK) == 0) { /* a disk that is always full */
        CHECK(spk_mm_write_csr("/dev/full", &A, 0, NULL, &e) == SPK_ERR_IO &&
                  check_contains(e.msg, "error writing '/dev/full'"),
              "/dev/full: %s", e.msg);
        CHECK(spk_mm_write_dense("/dev/full", 5, 1, A.val, "c", &e) == SPK_ERR_IO,
              "/dev/full (dense): %s", e.msg);
        join(path, sizeof path, dir, "full.mtx.gz");
        if (symlink("/dev/full", path) == 0) {
            CHECK(spk_mm_write_csr(path, &A, 0, NULL, &e) == SPK_ERR_IO &&
                      check_contains(e.msg, "error writing"),
                  "/dev/full via .gz: %s", e.msg);
            remove(path);
        }
    }
    spk_csr_free(&A);
}

/* A write that fails part way (here: the file size limit) reports the error
 * and leaves the previous file as it was, with no temporary file left beside
 * it; a successful write replaces it. */
/* spk_write_file (bench reports): writes and replaces a file, compresses
 * ".gz"; a write that fails part way (the file size limit) leaves the
 * previous file as it was and no temporary file; a missing folder is named. */
static void test_write_file(const char *dir)
{
    spk_err e;
    char path[1024];
    join(path, sizeof path, dir, "report.json");
    CHECK_OK(spk_write_file(path, "{\"a\": 1}\n", 9, &e), e.msg);
    size_t len = 0;
    char *txt = read_all(path, &len);
    CHECK(txt && len == 9 && memcmp(txt, "{\"a\": 1}\n", 9) == 0, "report: %s", txt ? txt : "(none)");
    free(txt);
    const size_t big = (size_t)3 << 20;
    char *data = malloc(big);
    memset(data, 'x', big);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) { /* under a 1 MB file size limit the 3 MB report cannot be written */
        struct rlimit rl = {1 << 20, 1 << 20};
        signal(SIGXFSZ, SIG_IGN);
        setrlimit(RLIMIT_FSIZE, &rl);
        spk_err ce;
        int st = spk_write_file(path, data, big, &ce);
        _exit(st == SPK_ERR_IO && strstr(ce.msg, "report.json") ? 0 : 1);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "a report past the file size limit did not fail with an error naming the file");
    txt = read_all(path, &len);
    CHECK(txt && len == 9, "the previous report was not kept (%zu bytes)", len);
    free(txt);
    DIR *d = opendir(dir);
    int leftovers = 0;
    for (struct dirent *de; d && (de = readdir(d));) leftovers += strstr(de->d_name, "report.json.tmp") != NULL;
    if (d) closedir(d);
    CHECK(leftovers == 0, "%d temporary files left after a failed report", leftovers);
    CHECK_OK(spk_write_file(path, data, big, &e), e.msg); /* without the limit: replaced */
    txt = read_all(path, &len);
    CHECK(txt && len == big, "the new report has %zu bytes", len);
    free(txt);
    free(data);
    CHECK(spk_write_file("/nonexistent-spk-dir/r.json", "x", 1, &e) == SPK_ERR_IO &&
              check_contains(e.msg, "cannot open '/nonexistent-spk-dir/r.json' for writing"),
          "missing folder: %s", e.msg);
}

static void test_write_keeps_old_file(const char *dir)
{
    spk_err e;
    spk_csr A = {0}, B = {0};
    char path[1024];
    join(path, sizeof path, dir, "keep.mtx");
    CHECK_OK(spk_gen_poisson2d5(4, &A, &e), e.msg);
    CHECK_OK(spk_mm_write_csr(path, &A, 0, NULL, &e), e.msg);
    spk_csr big = {0};
    CHECK_OK(spk_gen_poisson2d5(300, &big, &e), e.msg); /* about 10 MB of text */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) { /* the child writes under a 1 MB file size limit */
        struct rlimit rl = {1 << 20, 1 << 20};
        signal(SIGXFSZ, SIG_IGN);
        setrlimit(RLIMIT_FSIZE, &rl);
        spk_err ce;
        int st = spk_mm_write_csr(path, &big, 0, NULL, &ce);
        _exit(st == SPK_ERR_IO && strstr(ce.msg, "keep.mtx") ? 0 : 1);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "a write past the file size limit did not fail with an error naming the file");
    CHECK_OK(spk_mm_read_csr(path, &B, NULL, &e), e.msg);
    CHECK(B.nrows == A.nrows && B.nnz == A.nnz, "the failed write changed the old file (%d rows)", B.nrows);
    spk_csr_free(&B);
    DIR *d = opendir(dir);
    int leftovers = 0;
    for (struct dirent *de; d && (de = readdir(d));) leftovers += strstr(de->d_name, "keep.mtx.tmp") != NULL;
    if (d) closedir(d);
    CHECK(leftovers == 0, "%d temporary files left after a failed write", leftovers);
    CHECK_OK(spk_mm_write_csr(path, &big, 0, NULL, &e), e.msg); /* without the limit: replaced */
    CHECK_OK(spk_mm_read_csr(path, &B, NULL, &e), e.msg);
    CHECK(B.nrows == big.nrows && B.nnz == big.nnz, "the new file was not written");
    spk_csr_free(&B);
    /* through a symbolic link: the file it names is replaced, keeping its mode; the link stays */
    char link[1024];
    join(link, sizeof link, dir, "keep-link.mtx");
    struct stat sb;
    CHECK(chmod(path, 0600) == 0 && symlink(path, link) == 0, "cannot set up the link");
    CHECK_OK(spk_mm_write_csr(link, &A, 0, NULL, &e), e.msg);
    CHECK(lstat(link, &sb) == 0 && S_ISLNK(sb.st_mode), "the symbolic link was replaced by a file");
    CHECK(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600, "the mode changed to %o", sb.st_mode & 0777);
    CHECK_OK(spk_mm_read_csr(path, &B, NULL, &e), e.msg);
    CHECK(B.nrows == A.nrows, "the file behind the link was not rewritten (%d rows)", B.nrows);
    spk_csr_free(&B);
    remove(link);
    spk_csr_free(&big);
    spk_csr_free(&A);
}

/* Dense vectors and matrices written and read back bit for bit. */
static void test_dense_roundtrip(const char *dir)
{
    char path[1024];
    spk_err e = {0};
    uint64_t s = 777;
    enum { N = 1000 };
    double *x = malloc(N * sizeof *x), *y = NULL;
    for (int k = 0; k < N; k++) {
        uint64_t r = rng_next(&s);
        memcpy(&x[k], &r, sizeof(double));
        if (!isfinite(x[k])) x[k] = -(double)k;
    }
    x[0] = 0.1;
    x[1] = -0.0;
    x[2] = 5e-324;
    for (int t = 0; t < 2; t++) {
        int m = 0, n = 0;
        join(path, sizeof path, dir, t ? "vec.mtx.gz" : "vec.mtx");
        CHECK_OK(spk_mm_write_dense(path, N, 1, x, "a vector", &e), e.msg);
        CHECK_OK(spk_mm_read_dense(path, &m, &n, &y, &e), e.msg);
        CHECK(m == N && n == 1 && y && !memcmp(x, y, N * sizeof *x), "vector round trip (%s)",
              path);
        free(y);
        y = NULL;
    }
    /* a 3 x 2 matrix, column-major; read back as CSR too */
    const double a[] = {1, 0, -2, 0.5, 0, 3}; /* columns (1,0,-2), (0.5,0,3) */
    const double arow[] = {1, 0.5, 0, 0, -2, 3};
    int m = 0, n = 0;
    join(path, sizeof path, dir, "dense.mtx");
    CHECK_OK(spk_mm_write_dense(path, 3, 2, a, NULL, &e), e.msg);
    CHECK_OK(spk_mm_read_dense(path, &m, &n, &y, &e), e.msg);
    CHECK(m == 3 && n == 2 && y && !memcmp(a, y, sizeof a), "3 x 2 round trip");
    free(y);
    spk_csr A = {0};
    CHECK_OK(spk_mm_read_csr(path, &A, NULL, &e), e.msg);
    csr_equals_dense(&A, 3, 2, arow, "dense as CSR");
    CHECK(A.nnz == 4, "dense as CSR keeps the 4 nonzeros, nnz %d", A.nnz);
    spk_csr_free(&A);
    /* an empty array */
    join(path, sizeof path, dir, "empty.mtx");
    CHECK_OK(spk_mm_write_dense(path, 0, 3, NULL, NULL, &e), e.msg);
    y = NULL;
    CHECK_OK(spk_mm_read_dense(path, &m, &n, &y, &e), e.msg);
    CHECK(m == 0 && n == 3, "0 x 3 round trip");
    free(y);
    x[5] = INFINITY;
    CHECK(spk_mm_write_dense(path, N, 1, x, NULL, &e) == SPK_ERR_INVALID_ARG &&
              check_contains(e.msg, "(6,1) is not finite"),
          "Inf write: %s", e.msg);
    CHECK(spk_mm_write_dense(path, 2, 2, NULL, NULL, &e) == SPK_ERR_INVALID_ARG, "NULL values");
    CHECK(spk_mm_write_dense(path, -1, 2, x, NULL, &e) == SPK_ERR_INVALID_ARG, "negative size");
    free(x);
}

/* The real matrices in data/ (if any) read as canonical CSR. */
static void test_data_dir(void)
{
    DIR *d = opendir(SPK_TEST_DATA);
    int count = 0;
    if (!d) {
        printf("note: %s not found, no data matrices read\n", SPK_TEST_DATA);
        return;
    }
    for (struct dirent *de; (de = readdir(d));) {
        size_t n = strlen(de->d_name);
        if (!(n > 7 && !strcmp(de->d_name + n - 7, ".mtx.gz")) &&
            !(n > 4 && !strcmp(de->d_name + n - 4, ".mtx")))
            continue;
        char path[1024];
        spk_csr A = {0};
        spk_mm_info info;
        spk_err e = {0};
        join(path, sizeof path, SPK_TEST_DATA, de->d_name);
        int st = spk_mm_read_csr(path, &A, &info, &e);
        CHECK(st == 0 || st == SPK_ERR_UNSUPPORTED, "%s: %s", de->d_name, e.msg);
        if (st) continue;
        CHECK(spk_csr_validate(&A, 1, &e) == 0, "%s: %s", de->d_name, e.msg);
        CHECK(A.nrows == info.nrows && A.ncols == info.ncols, "%s: size", de->d_name);
        if (info.symmetry == SPK_MM_SYMMETRIC) {
            int pat = 0, val = 0;
            spk_csr_symmetry(&A, 0.0, &pat, &val, &e);
            CHECK(pat && val, "%s: a symmetric file read as a nonsymmetric matrix", de->d_name);
        }
        count++;
        spk_csr_free(&A);
    }
    closedir(d);
    printf("read %d matrices from %s\n", count, SPK_TEST_DATA);
}

/* Remove everything in dir (flat), then dir. */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    char path[1024];
    for (struct dirent *de; d && (de = readdir(d));) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        join(path, sizeof path, dir, de->d_name);
        remove(path);
    }
    if (d) closedir(d);
    rmdir(dir);
}

/* The header's comment lines: kept verbatim in order (blank lines skipped,
 * "\r" dropped, those among the entries not kept), the same through small
 * windows and gzip; beyond SPK_MM_COMMENTS_MAX bytes counted, not kept; and
 * written back after the banner by spk_mm_write_csr_lines. */
static void test_comments(const char *dir)
{
    const char *text = "%%MatrixMarket matrix coordinate real general\n% first line\n\n  %second\r\n%\n"
                       "%%GraphBLAS type double\n2 2 2\n1 1 1\n% among the entries\n2 2 2\n";
    const char *want = "% first line\n%second\n%\n%%GraphBLAS type double\n";
    char path[512], gz[512], out[512];
    join(path, sizeof path, dir, "comments.mtx");
    join(gz, sizeof gz, dir, "comments.mtx.gz");
    join(out, sizeof out, dir, "comments-out.mtx");
    CHECK(write_bytes(path, text, strlen(text)) == 0, "write %s", path);
    gzFile g = gzopen(gz, "wb");
    CHECK(g && gzwrite(g, text, (unsigned)strlen(text)) == (int)strlen(text) && gzclose(g) == Z_OK, "gzip %s", gz);
    const size_t win[3][2] = {{0, 0}, {96, 48}, {128, 64}};
    for (int k = 0; k < 3; k++)
        for (int z = 0; z < 2; z++) {
            spk_csr A = {0};
            spk_mm_comments c;
            spk_err e;
            spk_err_clear(&e);
            spk_mm_set_window(win[k][0], win[k][1]);
            int st = spk_mm_read_csr_comments(z ? gz : path, 0, &A, NULL, &c, &e);
            spk_mm_set_window(0, 0);
            CHECK(st == SPK_OK && A.nnz == 2, "comments, window %zu%s: %s", win[k][0], z ? " gz" : "", e.msg);
            CHECK(c.text && strcmp(c.text, want) == 0 && c.len == strlen(want) && c.lines == 4 && !c.dropped,
                  "comments, window %zu%s: got '%s', %lld lines", win[k][0], z ? " gz" : "", c.text ? c.text : "",
                  c.lines);
            spk_mm_comments_free(&c);
            spk_csr_free(&A);
        }
    /* 100000 lines of 19 bytes: the first 64 KiB kept, the rest counted */
    const int many = 100000;
    char *big = malloc((size_t)many * 20 + 256);
    CHECK(big != NULL, "out of memory");
    if (!big) return;
    size_t n = (size_t)sprintf(big, "%%%%MatrixMarket matrix coordinate real general\n");
    for (int i = 0; i < many; i++) n += (size_t)sprintf(big + n, "%% comment %08d\n", i);
    n += (size_t)sprintf(big + n, "1 1 1\n1 1 5\n");
    CHECK(write_bytes(path, big, n) == 0, "write %s", path);
    free(big);
    spk_csr A = {0};
    spk_mm_comments c;
    spk_err e;
    spk_err_clear(&e);
    CHECK_OK(spk_mm_read_csr_comments(path, 0, &A, NULL, &c, &e), e.msg);
    CHECK(c.lines == many && c.len <= SPK_MM_COMMENTS_MAX && c.len == (size_t)(many - c.dropped) * 19 &&
              c.dropped > 0 && strncmp(c.text, "% comment 00000000\n", 19) == 0,
          "many comments: %lld lines, %zu bytes kept, %lld dropped", c.lines, c.len, c.dropped);
    CHECK_OK(spk_mm_write_csr_lines(out, &A, 0, c.text, "note", &e), e.msg);
    size_t len = 0;
    char *back = read_all(out, &len);
    const char *head = "%%MatrixMarket matrix coordinate real general\n% comment 00000000\n% comment 00000001\n";
    CHECK(back && strncmp(back, head, strlen(head)) == 0 && strstr(back, "% note\n1 1 1\n"),
          "written comments: %.120s", back ? back : "(none)");
    free(back);
    spk_mm_comments_free(&c);
    spk_csr_free(&A);
}

int main(void)
{
    char dir[] = "/tmp/spk_test_mmio_XXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    test_valid_files();
    test_valid_inline();
    test_numbers();
    test_malformed_inline();
    test_malformed_files();
    test_huge_header();
    test_gzip(dir);
    test_window(dir);
    test_small_windows();
    test_write_roundtrip(dir);
    test_dense_roundtrip(dir);
    test_write_keeps_old_file(dir);
    test_write_file(dir);
    test_data_dir();
    test_comments(dir);
    remove_dir(dir);
    return check_exit();
}
