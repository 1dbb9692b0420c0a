/* control_eval.h -- one evaluation of every test of solver/control.h on a
 * case of scalars, compiled for the host and for the device, so that
 * test_control checks both give the same answers (the block iterations'
 * kernels apply these tests to the reads the host then tests again). */
#ifndef SPK_TESTS_CONTROL_EVAL_H
#define SPK_TESTS_CONTROL_EVAL_H

#include "solver/control.h"

#define CONTROL_IN 8   /* a case: rtol, atol, dtol, bnorm, rnorm0, rnorm, v1, v2 */
#define CONTROL_OUT 11 /* its answers: reasons (-1: none), then the norm's bits in two ints */

SPK_HD void control_eval(const double *c, int *out)
{
    const spk_stop t = spk_stop_of(c[0], c[1], c[2], c[3], c[4]);
    const double rn = c[5], v1 = c[6], v2 = c[7];
    int why = -1;
    out[0] = spk_stop_met(&t, rn, &why) ? why : -1;
    out[1] = spk_stop_end(&t, rn, &why) ? why : -1;
    out[2] = spk_cg_rz_bad(v1, &why) ? why : -1;
    out[3] = spk_cg_pq_bad(v2, &why) ? why : -1;
    out[4] = spk_bicg_rho_bad(v1, &why) ? why : -1;
    out[5] = spk_bicg_r0v_bad(v1, v2, &why) ? why : -1;
    out[6] = spk_bicg_half_bad(v1, v2, &why) ? why : -1;
    out[7] = spk_bicg_rest_bad(v1, v2, &why) ? why : -1;
    out[8] = out[6] >= 0 && spk_bicg_restartable(out[6]);
    const double nrm = spk_norm_from_square(v1);
    unsigned long long bits = 0;
    for (int i = 0; i < 8; i++) bits |= (unsigned long long)((const unsigned char *)&nrm)[i] << (8 * i);
    out[9] = (int)(bits & 0xffffffffu);
    out[10] = (int)(bits >> 32);
}

#ifdef __cplusplus
extern "C" {
#endif
/* The cases evaluated on the device: 0, or -1 where CUDA failed (its
 * message in why). */
int control_eval_device(int n, const double *cases, int *out, const char **why);
#ifdef __cplusplus
}
#endif

#endif
