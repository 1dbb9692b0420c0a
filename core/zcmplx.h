/* zcmplx.h -- <complex.h> with C11's CMPLX(re, im) everywhere: some
 * compilers' headers lack it (clang with glibc defines it only for gcc),
 * and re + im * I is not the same where im is infinite or NaN. */
#ifndef SPK_CORE_ZCMPLX_H
#define SPK_CORE_ZCMPLX_H

#include <complex.h>

#ifndef CMPLX
static inline double complex spk_cmplx_(double re, double im)
{
    union {
        double complex z;
        double d[2];
    } u;
    u.d[0] = re;
    u.d[1] = im;
    return u.z;
}
#define CMPLX(re, im) spk_cmplx_((re), (im))
#endif

#endif
