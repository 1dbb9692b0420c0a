/* host_sum.h -- the host's order of summation, shared by the host
 * executor's dot product and every host loop that must repeat it to the
 * bit (the queued steps of solver/engine/steps_host.c).
 *
 * The entries are cut into blocks of spk_sum_block(n) entries (8192, doubled
 * until there are at most SPK_SUM_MAXBLOCKS blocks); within a block, entry i
 * feeds partial sum i mod 4, the tail the first, added as (s0 + s1) + (s2 +
 * s3); the blocks' sums are added in block order.  The blocks are shared
 * among the host's threads (parallel.h), so the sum is the same whatever
 * their number. */
#ifndef SPK_CORE_HOST_SUM_H
#define SPK_CORE_HOST_SUM_H

#include "parallel.h"

#define SPK_SUM_BLOCK 8192
#define SPK_SUM_MAXBLOCKS 1024

static inline int spk_sum_block(int n)
{
    int b = SPK_SUM_BLOCK;
    while ((n - 1) / b + 1 > SPK_SUM_MAXBLOCKS) b *= 2;
    return b;
}

/* For i = 0..n-1 run BODY(i, s, t), s and t the partial sums entry i feeds
 * (two sums formed in one pass; a body may feed only s), then out1 = the
 * s sum, out2 = the t sum. */
#define SPK_REDUCE4(n, BODY, out1, out2)                                           \
    do {                                                                             \
        const int n_ = (n), bs_ = spk_sum_block(n_), nb_ = n_ > 0 ? (n_ - 1) / bs_ + 1 : 0; \
        double p1_[SPK_SUM_MAXBLOCKS], p2_[SPK_SUM_MAXBLOCKS];                       \
        SPK_OMP(omp parallel for schedule(static) if (n_ >= SPK_PAR_MIN))            \
        for (int b_ = 0; b_ < nb_; b_++) {                                           \
            const int lo_ = b_ * bs_, hi_ = n_ - lo_ < bs_ ? n_ : lo_ + bs_;         \
            double s0 = 0, s1 = 0, s2 = 0, s3 = 0, t0 = 0, t1 = 0, t2 = 0, t3 = 0;   \
            int i_ = lo_;                                                            \
            for (; i_ + 4 <= hi_; i_ += 4) {                                         \
                BODY(i_, s0, t0);                                                    \
                BODY(i_ + 1, s1, t1);                                                \
                BODY(i_ + 2, s2, t2);                                                \
                BODY(i_ + 3, s3, t3);                                                \
            }                                                                        \
            for (; i_ < hi_; i_++) BODY(i_, s0, t0);                                 \
            p1_[b_] = (s0 + s1) + (s2 + s3);                                         \
            p2_[b_] = (t0 + t1) + (t2 + t3);                                         \
            (void)t0, (void)t1, (void)t2, (void)t3;                                  \
        }                                                                            \
        double o1_ = nb_ ? p1_[0] : 0, o2_ = nb_ ? p2_[0] : 0;                       \
        for (int b_ = 1; b_ < nb_; b_++) {                                           \
            o1_ += p1_[b_];                                                          \
            o2_ += p2_[b_];                                                          \
        }                                                                            \
        (out1) = o1_;                                                                \
        (out2) = o2_;                                                                \
    } while (0)

/* x'y in that order (four independent sums break the add latency chain). */
static inline double spk_host_dot(int n, const double *x, const double *y)
{
    double out, none;
#define SPK_DOT_(i, s, t) s += x[i] * y[i]
    SPK_REDUCE4(n, SPK_DOT_, out, none);
#undef SPK_DOT_
    (void)none;
    return out;
}

#endif
