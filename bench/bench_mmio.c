/* bench_mmio.c -- Matrix Market parse throughput (a benchmark, not a test).
 *
 *   spk_bench_mmio [ENTRIES [RUNS]]      (defaults: 3000000 entries, 5 runs)
 *
 * Writes a random sparse matrix of about ENTRIES entries as "i j %.17g" lines
 * (column by column, 8 distinct random rows each, like SuiteSparse files) into
 * a temporary folder, plus a gzip copy (level 1), then times spk_mm_read_csr on
 * both and spk_mm_read_csr_mem on the text already in memory.  Reports the best
 * and the median wall-clock time of RUNS runs and the throughput in MB/s of
 * (decompressed) text.  Also times spk_mm_write_csr.  Removes its files. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "io/mmio.h"

/* Monotonic wall-clock seconds. */
static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* xorshift64 step. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* qsort comparators. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Write the test matrix: n x n, per column `per` sorted random rows, values
 * uniform in (-1, 1) times 10^k, k in -3..3, printed with %.17g. */
static int write_matrix(const char *path, long long entries, size_t *bytes)
{
    int per = 8, n = (int)(entries / per);
    if (n < 1) n = 1;
    FILE *f = fopen(path, "wb");
    if (!f) return 1;
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    uint64_t s = 0x2545f4914f6cdd1dULL;
    int rows[64];
    long long total = (long long)n * per;
    fprintf(f, "%%%%MatrixMarket matrix coordinate real general\n");
    fprintf(f, "%% random test matrix from bench_mmio\n%d %d %lld\n", n, n, total);
    for (int j = 1; j <= n; j++) {
        int distinct;
        do { /* distinct rows, as in real files (no duplicate entries) */
            for (int k = 0; k < per; k++) rows[k] = 1 + (int)(rng_next(&s) % (uint64_t)n);
            qsort(rows, (size_t)per, sizeof rows[0], cmp_int);
            distinct = 1;
            for (int k = 1; k < per; k++) distinct &= rows[k] != rows[k - 1];
        } while (!distinct && n >= per);
        for (int k = 0; k < per; k++) {
            uint64_t r = rng_next(&s);
            double v = ((double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0);
            static const double scale[7] = {1e-3, 1e-2, 1e-1, 1, 1e1, 1e2, 1e3};
            v *= scale[r % 7];
            fprintf(f, "%d %d %.17g\n", rows[k], j, v);
        }
    }
    long pos = ftell(f);
    if (fclose(f) != 0 || pos < 0) return 1;
    *bytes = (size_t)pos;
    return 0;
}

/* Compress src into dst with gzip level 1. */
static int gzip_file(const char *src, const char *dst)
{
    FILE *f = fopen(src, "rb");
    gzFile gz = gzopen(dst, "wb1");
    char buf[1 << 16];
    int st = !f || !gz;
    for (size_t n; !st && (n = fread(buf, 1, sizeof buf, f)) > 0;)
        if (gzwrite(gz, buf, (unsigned)n) != (int)n) st = 1;
    if (f) fclose(f);
    if (gz && gzclose(gz) != Z_OK) st = 1;
    return st;
}

/* The whole file in a malloc'd buffer (NULL on failure). */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* Time `runs` reads; source is a path (mem == NULL) or text in memory. */
static int time_read(const char *label, const char *path, const char *mem, size_t memlen,
                     size_t bytes, int runs)
{
    double t[64];
    for (int r = 0; r < runs; r++) {
        spk_csr A = {0};
        spk_err e = {0};
        double t0 = now_s();
        int st = mem ? spk_mm_read_csr_mem(path, mem, memlen, &A, NULL, &e)
                     : spk_mm_read_csr(path, &A, NULL, &e);
        t[r] = now_s() - t0;
        if (st) {
            fprintf(stderr, "%s: %s\n", label, e.msg);
            return 1;
        }
        spk_csr_free(&A);
    }
    qsort(t, (size_t)runs, sizeof t[0], cmp_double);
    double best = t[0], med = t[runs / 2];
    printf("%-28s best %7.3f s  median %7.3f s   %7.1f MB/s (best)  %7.1f MB/s (median)\n", label,
           best, med, (double)bytes / best / 1e6, (double)bytes / med / 1e6);
    return 0;
}

int main(int argc, char **argv)
{
    long long entries = argc > 1 ? atoll(argv[1]) : 3000000;
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    if (entries < 8 || entries > INT_MAX || runs < 1 || runs > 64) {
        fprintf(stderr, "usage: %s [ENTRIES (8..%d)] [RUNS (1..64)]\n", argv[0], INT_MAX);
        return 2;
    }
    const char *tmp = getenv("TMPDIR");
    char dir[512], plain[600], gz[600], out[600];
    snprintf(dir, sizeof dir, "%s/spk_bench_mmio_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "mkdtemp %s: %s\n", dir, strerror(errno));
        return 1;
    }
    snprintf(plain, sizeof plain, "%s/m.mtx", dir);
    snprintf(gz, sizeof gz, "%s/m.mtx.gz", dir);
    snprintf(out, sizeof out, "%s/w.mtx", dir);
    int rc = 1;
    size_t bytes = 0, memlen = 0;
    char *mem = NULL;
    double t0 = now_s();
    if (write_matrix(plain, entries, &bytes) || gzip_file(plain, gz)) {
        fprintf(stderr, "cannot write the test files in %s\n", dir);
        goto cleanup;
    }
    FILE *fz = fopen(gz, "rb");
    long gzbytes = -1;
    if (fz) {
        fseek(fz, 0, SEEK_END);
        gzbytes = ftell(fz);
        fclose(fz);
    }
    printf("test matrix: %lld entries, %.1f MB text, %.1f MB gzip (made in %.1f s), %d runs\n",
           entries / 8 * 8, (double)bytes / 1e6, (double)gzbytes / 1e6, now_s() - t0, runs);
    if (time_read("spk_mm_read_csr  .mtx", plain, NULL, 0, bytes, runs)) goto cleanup;
    if (time_read("spk_mm_read_csr  .mtx.gz", gz, NULL, 0, bytes, runs)) goto cleanup;
    mem = slurp(plain, &memlen);
    if (!mem || time_read("spk_mm_read_csr_mem", plain, mem, memlen, bytes, runs)) goto cleanup;

    /* the writer, for reference */
    {
        spk_csr A = {0};
        spk_err e = {0};
        if (spk_mm_read_csr(plain, &A, NULL, &e)) goto cleanup;
        double tw = now_s();
        int st = spk_mm_write_csr(out, &A, 0, NULL, &e);
        tw = now_s() - tw;
        spk_csr_free(&A);
        if (st) {
            fprintf(stderr, "%s\n", e.msg);
            goto cleanup;
        }
        printf("%-28s %7.3f s   %7.1f MB/s\n", "spk_mm_write_csr .mtx", tw,
               (double)bytes / tw / 1e6);
    }
    rc = 0;
cleanup:
    free(mem);
    remove(plain);
    remove(gz);
    remove(out);
    rmdir(dir);
    return rc;
}
