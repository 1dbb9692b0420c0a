/* devsweep.h -- inside the GPU "ic0-sweeps" / "ilu0-sweeps" (internal):
 * the preconditioner's state, what its files share, and the steps each
 * supplies.  The files, each calling only those listed after it:
 *   devsweep.c        the ops table: create, refactor, apply, destroy, warm;
 *   devsweep_build.c  the build on the device: pattern, numeric factorization
 *                     with the shift policy, transpose;
 *   devsweep_iter.c   its numeric factorization by fixed-point sweeps, where
 *                     chosen (factorization: iterative, or auto on a deep F);
 *   devsweep_host.c   the build of a small system on the host, uploaded in one
 *                     copy;
 *   devsweep_mode.c   after a good factorization: the sweeps' count and the
 *                     timed choice of how apply runs;
 *   devsweep_check.c  the sweeps' check, and the growth test after it;
 *   devsweep_apply.c  the applies: sweeps a kernel each, lean sweeps, one
 *                     block's sweeps or solves, cusparseSpSV;
 *   devsweep_slice.c  the sliced copies of the triangles, and the scratch the
 *                     check and the timing borrow. */
#ifndef SPK_PRECOND_DEVSWEEP_H
#define SPK_PRECOND_DEVSWEEP_H

#include "core/exec_cuda.h"
#include "devfactor.h"
#include "factor.h"
#include "spsv.h"

/* One preconditioner: the factor F, its copies, and how apply runs. */
typedef struct dev_pc {
    spk_exec *e;
    cudaStream_t s;
    cusparseHandle_t h;
    int n, nnz, ic, k;         /* nnz of F; ic: IC(0); k sweeps per triangle */
    int tpr[2];                /* threads per row of each triangle's sweeps */
    int group;                 /* lanes per row of the factorization */
    spk_precond_opts opts;
    int *frp, *fci, *dpos;     /* F */
    double *v0, *v;            /* A's values in F's pattern, and the factor */
    double *adiag;
    unsigned char *missing, *flag;
    int *ctl;                  /* ctl[0]: ticket, ctl[1]: first failing row, ctl[2]: queue tail */
    int *dptr, *dep, *indeg;   /* the rows' dependencies, for the order (freed after it) */
    int *order, *done;         /* the factorization's order and done flags (freed after the shift policy) */
    int *order_buf;            /* where the order goes (NULL: row order); order is set once computed */
    void *scan;                /* scan workspace of the build */
    double *piv, *idiag;
    int *tcp, *tri;            /* IC(0): L^T in CSR (F transposed) */
    double *tv;
    void *tbuf;
    size_t tbuf_bytes;
    double *x0, *x1, *y;       /* sweep vectors */
    int *ssp[2], *scol[2];     /* each triangle's strict part as sliced ELL (NULL: the sweeps read F) */
    void *sval[2];
    int single;                /* the sliced copies hold float values */
    int lean;                  /* the sliced copies are lean (devsweep_slice.c; devfactor.h, spk_dev_lean_sweep) */
    int narrow[2];             /* ... with 16-bit column offsets */
    int wide[2];               /* ... a sweep's thread per row (else per two rows) */
    double idmax[2];           /* ... max |d_i| of each triangle's D^-1 (1: D = I) */
    unsigned long long *lmax;  /* ... max |r| and max |y| of an apply (float iterates' scales) */
    int small_ok;              /* the sweeps can run as one block's kernel (spk_dev_small_apply) */
    int longest;               /* the most entries in a row of a triangle's strict part (host build; -1: not known) */
    int mode;                  /* how apply runs (APPLY_*), chosen by time where the choice is free */
    double alpha;
    int valid;
    int exact;                 /* 1: exact solves (cusparseSpSV on F), the sweeps' check failed */
    double check;              /* the check's result: the sweeps' last update over the result */
    spk_spsv_pair sp;          /* exact: the solves */
    void *pool;                /* built on the host (devsweep_host.c): every array above in one allocation */
    void *dpool, *tpool;       /* built on the device (devsweep_build.c): the factor's arrays, and the
                                  factorization's own (freed after it) */
    double *sw[4], *spart, *snorm; /* ... in tpool: the check's and the test's vectors and norms */
    char what[64];             /* describe() */
    spk_precond_factor_info info; /* how the factor was computed (factor_info) */
    cudaEvent_t mark[SPK_SETUP_PHASES + 1]; /* the build's phase ends (info.phase_ms; NULL: not timed) */
    unsigned marked;           /* bit i: mark[i] was recorded (a build stopped early records fewer) */
    void *ipool;               /* the iterative factorization's work space (devsweep_iter.c; freed after it) */
    int *ucp, *urow, *upos;    /* ... in ipool: ILU(0)'s F by columns (positions in F) */
    int *ichunk, nchunk, lmin; /* ... the long rows' chunks, their count, and what is long */
    double *v1, *iw, *ipart;   /* ... the second iterate, |a_ii|^-1/2, the residual's partial sums */
    int *ichg;                 /* ... which blocks of a sweep changed an entry */
    int *ictl;                 /* ... sweeps taken, and the stop flag */
    double *ires;              /* ... residuals: ||W A W||^2, the last sweep's */
} dev_pc;

/* The ways to apply the preconditioner: K sweeps a kernel each, or in one
 * block's kernel (equal to the bit); exact solves in one block, or by
 * cusparseSpSV (equal to rounding). */
enum { APPLY_SWEEPS, APPLY_SMALL_SWEEPS, APPLY_SMALL_SOLVE, APPLY_SPSV };

#define CHECK_KMAX 64                      /* the most sweeps the check tries (devsweep_check.c) */
#define SCRATCH_NORMS (2 * CHECK_KMAX + 1) /* the most norms it reads back at once */
#define SWEEPS_MIN 2                       /* the fewest sweeps it takes */

/* the most entries, padding included, of the sliced copies one block's
 * apply reads (devsweep_slice.c) */
#define SMALL_ENTRIES 65536

/* The end of the build's phase i - 1 (mark[0]: the start), in stream order. */
static inline void phase_mark(dev_pc *p, int i)
{
    if (p->mark[i] && cudaEventRecord(p->mark[i], p->s) == cudaSuccess) p->marked |= 1u << i;
}

/* The host's factorization of the same kind (factor.h): its label and tests. */
static inline const spk_factor_kind *host_kind(const dev_pc *p)
{
    return p->ic ? &spk_ic0_kind : &spk_ilu0_kind;
}

/* Where the sweeps of triangle t (0: L, 1: U or L^T) read F: row i's strict
 * entries are at [beg[i] + boff, end[i] + eoff) of col and val, and id is
 * D^-1 (NULL: D = I). */
typedef spk_dev_tri tri_view;

/* The arrays of a factor (on the device, or their host copies). */
typedef struct fac_arrays {
    const int *frp, *fci, *dpos, *tcp, *tri;
    const double *v, *tv, *idiag;
} fac_arrays;

static inline tri_view tri_at(int ic, int t, const fac_arrays *a)
{
    tri_view v;
    if (t == 0) { /* IC(0): L = [S D] by rows; ILU(0): unit L below dpos */
        v.beg = a->frp, v.boff = 0, v.col = a->fci, v.val = a->v;
        v.end = ic ? a->frp + 1 : a->dpos, v.eoff = ic ? -1 : 0;
        v.id = ic ? a->idiag : NULL;
    } else if (ic) { /* L^T: its rows are L's columns, the diagonal first */
        v.beg = a->tcp, v.boff = 1, v.end = a->tcp + 1, v.eoff = 0, v.col = a->tri, v.val = a->tv, v.id = a->idiag;
    } else { /* U after dpos */
        v.beg = a->dpos, v.boff = 1, v.end = a->frp + 1, v.eoff = 0, v.col = a->fci, v.val = a->v, v.id = a->idiag;
    }
    return v;
}

/* Triangle t of p's factor. */
static inline tri_view tri_of(const dev_pc *p, int t)
{
    const fac_arrays a = {p->frp, p->fci, p->dpos, p->tcp, p->tri, p->v, p->tv, p->idiag};
    return tri_at(p->ic, t, &a);
}

/* Bytes of an array of m elements of size sz, rounded up for alignment. */
static inline size_t span(size_t m, size_t sz)
{
    return (m * sz + 255) / 256 * 256;
}

/* Threads per row of a sweep: a power of two near the average row length. */
static inline int threads_for(double avg)
{
    int t = 1;
    while (t < 32 && 2 * t <= avg) t *= 2;
    return t;
}

/* Is the build no longer wanted (spk_precond_opts.stop)? */
static inline int stopped(const dev_pc *p)
{
    return p->opts.stop && p->opts.stop(p->opts.stop_arg);
}
#define STOP_POINT(p)                                                      \
    do {                                                                   \
        if (stopped(p)) return SPK_PRECOND_STOPPED;                        \
    } while (0)

/* A triangle's strict part as the host check sweeps it: sliced (sp, scol,
 * sval in float when single) or as stored (v). */
typedef struct host_tri {
    tri_view v;
    const int *sp, *scol;
    const void *sval;
    int single;
} host_tri;

/* devsweep_build.c: the pattern and values of F from A's arrays dA in device
 * memory, and every buffer; then the factorization of A + alpha*diag(A) by
 * the host's shift policy, the transpose, the sliced copies and
 * spk_devsweep_settle. */
int spk_devsweep_build(dev_pc *p, const spk_csr *dA);
int spk_devsweep_run(dev_pc *p);

/* devsweep_iter.c: after F's pattern, the choice of factorization
 * (p->info: iterative, the chain measured for auto) and, for the sweeps,
 * their work space; one factorization by sweeps with the outcome of the
 * exact one (0, -1 and fail, or an error; p->info's sweeps and residual);
 * the work space freed. */
int spk_devsweep_iter_prepare(dev_pc *p);
int spk_devsweep_iter_numeric(dev_pc *p, double alpha, spk_factor_fail *fail);
void spk_devsweep_iter_release(dev_pc *p);
/* ... and for either factorization, the failure at row (its pivot and
 * flag read back into fail): -1, or an error. */
int spk_devsweep_failure(dev_pc *p, int row, spk_factor_fail *fail);

/* devsweep_host.c: the same, factor, transpose, sliced copies and check,
 * made on the host from A and uploaded in one copy. */
int spk_devsweep_host_build(dev_pc *p, const spk_csr *A);

/* devsweep_mode.c: after a good factorization, how to apply it (the
 * check's K where it did not run yet, fewer sweeps by the growth test, and
 * the way apply runs, by time), then ready (p->valid). */
int spk_devsweep_settle(dev_pc *p);

/* devsweep_check.c: the sweeps' check on the device, and on the host (the
 * triangles as host_tri; 0, SPK_PRECOND_STOPPED or SPK_ERR_NOMEM), setting
 * p->k, p->exact and p->check; then, after the check took p->k sweeps, the
 * fewest that pass the growth test. */
int spk_devsweep_check(dev_pc *p);
int spk_devsweep_host_check(dev_pc *p, const host_tri h[2]);
int spk_devsweep_fewer_sweeps(dev_pc *p);

/* devsweep_apply.c: one sweep on triangle t, out = D^-1 (b - S x) (x NULL:
 * x = D^-1 b); z = M^-1 r the way `mode` (APPLY_*) runs it. */
int spk_devsweep_sweep_once(dev_pc *p, int t, const double *b, const double *x, double *out);
int spk_devsweep_apply_mode(dev_pc *p, int mode, const double *r, double *z);

/* devsweep_slice.c: the sliced copies of both triangles after each good
 * factorization; nvec vectors of n doubles and room for up to `norms` norms,
 * borrowed from the build's scratch or allocated (*owned: put frees them). */
int spk_devsweep_slice(dev_pc *p);
int spk_devsweep_scratch_get(dev_pc *p, int nvec, int norms, double **w, double **part, double **nrm, int *owned);
void spk_devsweep_scratch_put(dev_pc *p, int nvec, double **w, double *part, double *nrm, int owned);

#endif
