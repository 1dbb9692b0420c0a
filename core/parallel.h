/* parallel.h -- the host's threads: how many run, and the pragma that shares a
 * loop among them (OpenMP where spk was built with it; nothing otherwise).
 *
 * Every threaded loop of spk gives the same bits whatever the thread count:
 * each entry is computed by one thread in the order a single thread uses, and
 * sums are formed per fixed block of entries, the blocks' sums added in block
 * order (host_sum.h).  A loop runs threaded only from SPK_PAR_MIN entries,
 * where its work outweighs waking the threads. */
#ifndef SPK_CORE_PARALLEL_H
#define SPK_CORE_PARALLEL_H

#ifdef _OPENMP
#define SPK_OMP(...) _Pragma(#__VA_ARGS__)
#else
#define SPK_OMP(...)
#endif

#include <stddef.h>

#define SPK_PAR_MIN 32768

/* The threads a host loop shares out among (1 without OpenMP). */
int spk_host_threads(void);
/* Set it for later loops of the calling thread; n < 1 restores the default
 * (OMP_NUM_THREADS, else every core).  Returns the count now in use. */
int spk_host_set_threads(int n);
/* y = x for n doubles (any overlap allowed; threaded where they do not). */
void spk_host_copy(int n, const double *x, double *y);
/* memcpy (no overlap) in chunks on the threads, from SPK_PAR_MIN doubles' bytes. */
void spk_host_memcpy(void *dst, const void *src, size_t bytes);

#endif
