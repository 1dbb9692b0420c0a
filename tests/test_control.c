/* test_control.c -- the methods' control logic (solver/control.h): each
 * test against the answer it must give on cases at its edges (NaN, Inf,
 * zero, the thresholds themselves, overflow), and, compiled with
 * SPK_TEST_CUDA, the device's answers on the same scalars against the
 * host's, bit for bit (the block iterations' kernels stop where the host
 * would). */
#include <math.h>

#include "check.h"
#include "control_eval.h"
#ifdef SPK_TEST_CUDA
#include "core/exec_cuda.h"
#endif

enum { MET, END, RZ, PQ, RHO, R0V, HALF, REST, RESTART };

typedef struct expect {
    double c[CONTROL_IN];
    int out[9]; /* -2: not checked */
} expect;

#define N_ -1 /* no stop */
#define X_ -2 /* not checked */

/* rtol, atol, dtol, bnorm, rnorm0, rnorm, v1, v2; the thresholds exact:
 * conv = 0.25 * 4 = 1, div = 8 * max(4, 5) = 40 */
#define T_ 0.25, 0, 8, 4, 5
static expect cases[] = {
    /* the stopping test */
    {{T_, 1, 1, 1}, {SPK_CONVERGED_RTOL, SPK_CONVERGED_RTOL, N_, N_, N_, N_, N_, N_, 0}},
    {{T_, 1.0000000000000002, 1, 1}, {N_, N_, X_, X_, X_, X_, X_, X_, X_}},
    {{0.25, 3, 8, 4, 5, 3, 1, 1}, {SPK_CONVERGED_ATOL, SPK_CONVERGED_ATOL, X_, X_, X_, X_, X_, X_, X_}},
    {{T_, 40, 1, 1}, {N_, N_, X_, X_, X_, X_, X_, X_, X_}},
    {{T_, 40.000000000000007, 1, 1}, {N_, SPK_DIVERGED_DTOL, X_, X_, X_, X_, X_, X_, X_}},
    {{0.25, 0, 0, 4, 5, 1e300, 1, 1}, {N_, N_, X_, X_, X_, X_, X_, X_, X_}}, /* dtol 0: off */
    {{T_, NAN, 1, 1}, {N_, SPK_DIVERGED_NAN, X_, X_, X_, X_, X_, X_, X_}},
    {{T_, INFINITY, 1, 1}, {N_, SPK_DIVERGED_NAN, X_, X_, X_, X_, X_, X_, X_}},
    {{0, 0, 8, 4, 5, 0, 1, 1}, {SPK_CONVERGED_RTOL, SPK_CONVERGED_RTOL, X_, X_, X_, X_, X_, X_, X_}},
    /* CG: r'z = v1, p'Ap = v2 */
    {{T_, 2, 0, 0}, {X_, X_, SPK_BREAKDOWN_PRECOND, SPK_BREAKDOWN_INDEFINITE, X_, X_, X_, X_, X_}},
    {{T_, 2, -1, -1e-300}, {X_, X_, SPK_BREAKDOWN_PRECOND, SPK_BREAKDOWN_INDEFINITE, X_, X_, X_, X_, X_}},
    {{T_, 2, NAN, INFINITY}, {X_, X_, SPK_DIVERGED_NAN, SPK_DIVERGED_NAN, X_, X_, X_, X_, X_}},
    {{T_, 2, 1e-300, 4}, {X_, X_, N_, N_, X_, X_, X_, X_, X_}},
    /* BiCGStab's halves: rho = v1, r0v = v2 (or t't = v1, t's = v2) */
    {{T_, 2, 0, 1}, {X_, X_, X_, X_, SPK_BREAKDOWN_RHO, N_, SPK_BREAKDOWN_RHO, SPK_BREAKDOWN_OMEGA, 1}},
    {{T_, 2, 1, 0}, {X_, X_, X_, X_, N_, SPK_BREAKDOWN_R0V, SPK_BREAKDOWN_R0V, N_, 1}},
    {{T_, 2, 1e300, 1e-300}, {X_, X_, X_, X_, N_, SPK_BREAKDOWN_R0V, SPK_BREAKDOWN_R0V, N_, 1}},
    {{T_, 2, NAN, 1}, {X_, X_, X_, X_, SPK_DIVERGED_NAN, SPK_BREAKDOWN_R0V, SPK_DIVERGED_NAN, SPK_DIVERGED_NAN, 0}},
    {{T_, 2, 1, NAN}, {X_, X_, X_, X_, N_, SPK_DIVERGED_NAN, SPK_DIVERGED_NAN, SPK_DIVERGED_NAN, 0}},
    {{T_, 2, -2, 3}, {X_, X_, X_, X_, N_, N_, N_, N_, 0}},
    {{T_, 2, 1, -INFINITY}, {X_, X_, X_, X_, N_, SPK_DIVERGED_NAN, SPK_DIVERGED_NAN, SPK_DIVERGED_NAN, 0}},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

/* The norm from a square: sqrt where it is exact enough, else -1 (nrm2). */
static void test_norm(void)
{
    const double sq[] = {4, 1e-290 * 2, 1e-291, 0, -1, NAN, INFINITY, 1e300};
    const double want[] = {2, sqrt(1e-290 * 2), -1, -1, -1, -1, -1, sqrt(1e300)};
    for (int i = 0; i < (int)(sizeof sq / sizeof sq[0]); i++)
        CHECK(spk_norm_from_square(sq[i]) == want[i], "norm from %g: %g, want %g", sq[i], spk_norm_from_square(sq[i]),
              want[i]);
}

/* The thresholds: div from the larger of ||b|| and ||r0||, 0 when dtol is. */
static void test_stop_of(void)
{
    spk_stop t = spk_stop_of(1e-6, 2, 10, 3, 5);
    CHECK(t.conv == 3e-6 && t.atol == 2 && t.div == 50, "stop_of: %g %g %g", t.conv, t.atol, t.div);
    t = spk_stop_of(1e-6, 0, 10, 7, 5);
    CHECK(t.div == 70, "div from ||b||: %g", t.div);
    t = spk_stop_of(1e-6, 0, 0, 7, 5);
    CHECK(t.div == 0, "dtol 0: div %g", t.div);
}

int main(void)
{
    static int host[NCASES][CONTROL_OUT];
    test_norm();
    test_stop_of();
    for (int i = 0; i < NCASES; i++) {
        control_eval(cases[i].c, host[i]);
        for (int k = 0; k < 9; k++)
            CHECK(cases[i].out[k] == X_ || host[i][k] == cases[i].out[k], "case %d, test %d: %d, want %d", i, k,
                  host[i][k], cases[i].out[k]);
    }
#ifdef SPK_TEST_CUDA
    const char *why = NULL;
    if (!spk_cuda_available(&why)) SKIP("no usable CUDA device: %s", why);
    static double in[NCASES][CONTROL_IN];
    static int dev[NCASES][CONTROL_OUT];
    for (int i = 0; i < NCASES; i++) memcpy(in[i], cases[i].c, sizeof in[i]);
    CHECK(control_eval_device(NCASES, &in[0][0], &dev[0][0], &why) == 0, "on the device: %s", why);
    for (int i = 0; i < NCASES; i++)
        for (int k = 0; k < CONTROL_OUT; k++)
            CHECK(dev[i][k] == host[i][k], "case %d, answer %d: device %d, host %d", i, k, dev[i][k], host[i][k]);
#endif
    return check_exit();
}
