/* host_sum.h -- the host's order of summation, shared by the host
 * executor's dot product and every host loop that must repeat it to the
 * bit (the queued steps of solver/engine/steps_host.c): four partial sums,
 * entry i into sum i mod 4, the tail into the first, added as
 * (s0 + s1) + (s2 + s3). */
#ifndef SPK_CORE_HOST_SUM_H
#define SPK_CORE_HOST_SUM_H

/* Run BODY(i, s) for i = 0..n-1 with s the partial sum that entry i feeds;
 * the sums s0..s3 are locals of the caller. */
#define SPK_FOR4(n, BODY)                                                      \
    do {                                                                       \
        int i_ = 0;                                                            \
        for (; i_ + 4 <= (n); i_ += 4) {                                       \
            BODY(i_, s0);                                                      \
            BODY(i_ + 1, s1);                                                  \
            BODY(i_ + 2, s2);                                                  \
            BODY(i_ + 3, s3);                                                  \
        }                                                                      \
        for (; i_ < (n); i_++) BODY(i_, s0);                                   \
    } while (0)
#define SPK_SUM4() ((s0 + s1) + (s2 + s3))

/* x'y in that order (four independent sums break the add latency chain). */
static inline double spk_host_dot(int n, const double *x, const double *y)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#define SPK_DOT_(i, acc) acc += x[i] * y[i]
    SPK_FOR4(n, SPK_DOT_);
#undef SPK_DOT_
    return SPK_SUM4();
}

#endif
