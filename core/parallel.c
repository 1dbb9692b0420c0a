/* parallel.c -- the host's thread count (parallel.h). */
#include "parallel.h"

#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

static int default_threads = 0; /* the count before the first change: 0 not read yet */

int spk_host_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

int spk_host_set_threads(int n)
{
#ifdef _OPENMP
    if (!default_threads) default_threads = omp_get_max_threads();
    omp_set_num_threads(n >= 1 ? n : default_threads);
    return omp_get_max_threads();
#else
    (void)n;
    (void)default_threads;
    return 1;
#endif
}

void spk_host_memcpy(void *dst, const void *src, size_t bytes)
{
    const size_t chunk = (size_t)64 << 10;
    if (bytes < SPK_PAR_MIN * sizeof(double) || spk_host_threads() < 2) {
        if (bytes) memcpy(dst, src, bytes);
        return;
    }
    const long long nc = (long long)((bytes - 1) / chunk + 1);
    SPK_OMP(omp parallel for schedule(static))
    for (long long c = 0; c < nc; c++) {
        const size_t lo = (size_t)c * chunk, len = bytes - lo < chunk ? bytes - lo : chunk;
        memcpy((char *)dst + lo, (const char *)src + lo, len);
    }
}

void spk_host_copy(int n, const double *x, double *y)
{
    if (n <= 0 || x == y) return;
    if (x < y + n && y < x + n) {
        memmove(y, x, (size_t)n * sizeof(double));
        return;
    }
    spk_host_memcpy(y, x, (size_t)n * sizeof(double));
}
