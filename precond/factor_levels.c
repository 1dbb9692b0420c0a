/* factor_levels.c -- the host ILU(0) and IC(0) applies on every core: their
 * triangular solves by levels (levels.h), where the levels are wide enough
 * for the host's threads.
 *
 * Each triangle is copied with its rows in level order and its columns
 * renumbered to match, so that a level's rows lie side by side in memory
 * (solving by levels in the original numbering reads rows scattered over the
 * whole factor, which costs more than the threads gain).  A row keeps its
 * entries in their order, so its sum is the one-thread substitution's; IC(0)'s
 * backward solve, which one thread does by columns of L, reads the rows of
 * L's transpose with their entries in descending original row, the order of
 * the column sweep's updates.  Built at the first apply that runs threaded;
 * the layout follows the pattern, so a refactor only copies values again.
 * Whether it is faster than one thread depends on the machine (the copies
 * gather and scatter the vectors, and the threads meet after every level):
 * the first applies are timed both ways and the faster kept. */
#include <stdlib.h>

#include "core/exec.h"
#include "core/parallel.h"
#include "factor.h"
#include "levels.h"

/* One triangle in level order: new row q is original row lv.rows[q]. */
typedef struct tri_plan {
    spk_levels lv;
    int *ptr, *col, *src; /* row q's entries: columns in the new numbering, positions in F's values */
    int *from;            /* the backward solve: where row q's right-hand side is in the forward one's result */
    double *val, *idiag;  /* F's values at src, and 1 / pivot of each new row (NULL: unit diagonal) */
} tri_plan;

#define TRIALS 4 /* applies timed, alternately on one thread and by levels, before choosing */

struct spk_factor_plan {
    int pays;            /* 1: the levels are wide enough to try */
    int chosen;          /* 1: by levels, 0: one thread (-1: still timing) */
    int trials;
    double best[2];      /* the shortest apply seen: [0] one thread, [1] by levels */
    tri_plan t[2];       /* the forward and the backward solve */
    double *xn;          /* the two solves' results, each in its own numbering (2n) */
    unsigned stamp;      /* f->stamp the values were copied at */
};

static void tri_free(tri_plan *t)
{
    spk_levels_free(&t->lv);
    free(t->ptr);
    free(t->col);
    free(t->src);
    free(t->val);
    free(t->idiag);
    free(t->from);
}

void spk_factor_plan_free(struct spk_factor_plan *p)
{
    if (!p) return;
    tri_free(&p->t[0]);
    tri_free(&p->t[1]);
    free(p->xn);
    free(p);
}

/* A triangle read as in spk_levels_build (pos[k]: where entry k's value is
 * in F, NULL: k itself) copied in level order; 1 where the levels pay. */
static int tri_build(tri_plan *t, int n, const int *beg, int boff, const int *end, int eoff, const int *colind,
                     const int *pos, int upper, int unit, int nt)
{
    if (spk_levels_build(&t->lv, n, beg, boff, end, eoff, colind, upper, NULL)) return -1;
    if (!spk_levels_pay(&t->lv, n, nt)) return 0;
    long long m = 0;
    for (int i = 0; i < n; i++) m += end[i] + eoff - beg[i] - boff;
    int *inv = malloc(((size_t)n + 1) * sizeof(int));
    t->ptr = malloc(((size_t)n + 1) * sizeof(int));
    t->col = malloc(((size_t)m + 1) * sizeof(int));
    t->src = malloc(((size_t)m + 1) * sizeof(int));
    t->val = malloc(((size_t)m + 1) * sizeof(double));
    t->idiag = unit ? NULL : malloc(((size_t)n + 1) * sizeof(double));
    if (!inv || !t->ptr || !t->col || !t->src || !t->val || (!unit && !t->idiag)) {
        free(inv);
        return -1;
    }
    for (int q = 0; q < n; q++) inv[t->lv.rows[q]] = q;
    int at = 0;
    t->ptr[0] = 0;
    for (int q = 0; q < n; q++) {
        const int i = t->lv.rows[q];
        for (int k = beg[i] + boff, e = end[i] + eoff; k < e; k++, at++) {
            t->col[at] = inv[colind[k]];
            t->src[at] = pos ? pos[k] : k;
        }
        t->ptr[q + 1] = at;
    }
    free(inv);
    return 1;
}

/* L's strict lower part (diagonal last in each row) transposed, each row's
 * entries in descending original row: ptr, col, pos (positions in L). */
static int transpose_strict(const spk_csr *L, int **ptr, int **col, int **pos)
{
    const int n = L->nrows, m = L->nnz - n;
    *ptr = calloc((size_t)n + 2, sizeof(int));
    *col = malloc(((size_t)m + 1) * sizeof(int));
    *pos = malloc(((size_t)m + 1) * sizeof(int));
    if (!*ptr || !*col || !*pos) return -1;
    for (int i = 0; i < n; i++)
        for (int k = L->rowptr[i]; k < L->rowptr[i + 1] - 1; k++) (*ptr)[L->colind[k] + 2]++;
    for (int c = 0; c < n; c++) (*ptr)[c + 2] += (*ptr)[c + 1];
    for (int i = n - 1; i >= 0; i--) /* descending rows: each transposed row in descending i */
        for (int k = L->rowptr[i]; k < L->rowptr[i + 1] - 1; k++) {
            const int q = (*ptr)[L->colind[k] + 1]++;
            (*col)[q] = i;
            (*pos)[q] = k;
        }
    return 0;
}

/* Both triangles; 1 where both pay, 0 where not, -1 out of memory. */
static int plan_layout(struct spk_factor_plan *p, const spk_factor *f, int nt)
{
    const spk_csr *F = &f->F;
    const int n = f->n;
    int r;
    if (f->kind->lower_only) {
        r = tri_build(&p->t[0], n, F->rowptr, 0, F->rowptr + 1, -1, F->colind, NULL, 0, 0, nt);
        if (r != 1) return r; /* L^T has as many levels */
        int *tp = NULL, *tc = NULL, *tpos = NULL;
        r = transpose_strict(F, &tp, &tc, &tpos);
        if (r == 0) r = tri_build(&p->t[1], n, tp, 0, tp + 1, 0, tc, tpos, 1, 0, nt);
        free(tp);
        free(tc);
        free(tpos);
    } else {
        r = tri_build(&p->t[0], n, F->rowptr, 0, f->diag, 0, F->colind, NULL, 0, 1, nt);
        if (r != 1) return r;
        r = tri_build(&p->t[1], n, f->diag, 1, F->rowptr + 1, 0, F->colind, NULL, 1, 0, nt);
    }
    if (r == 1) { /* the backward solve reads the forward one's result where it lies */
        int *inv = malloc(((size_t)n + 1) * sizeof(int));
        p->t[1].from = malloc(((size_t)n + 1) * sizeof(int));
        p->xn = malloc((2 * (size_t)n + 1) * sizeof(double));
        if (!inv || !p->t[1].from || !p->xn) r = -1;
        for (int q = 0; r == 1 && q < n; q++) inv[p->t[0].lv.rows[q]] = q;
        for (int q = 0; r == 1 && q < n; q++) p->t[1].from[q] = inv[p->t[1].lv.rows[q]];
        free(inv);
    }
    return r;
}

/* The plan, or an empty one where the levels do not pay or memory ran out
 * (nothing is reported: the apply runs on one thread, as without threads). */
static void plan_build(spk_factor *f, int nt)
{
    struct spk_factor_plan *p = calloc(1, sizeof *p);
    if (!p) return; /* tried again at the next apply */
    f->plan = p;
    if (plan_layout(p, f, nt) == 1) {
        p->pays = 1;
        p->chosen = -1;
        p->stamp = f->stamp - 1;
        return;
    }
    spk_factor_plan_free(p);
    f->plan = calloc(1, sizeof *p); /* NULL: tried again */
}

/* The values of the factor in use into the copies. */
static void tri_values(tri_plan *t, const spk_factor *f)
{
    const int n = f->n, m = t->ptr[n];
    const double *v = f->F.val;
    SPK_OMP(omp parallel for schedule(static))
    for (int k = 0; k < m; k++) t->val[k] = v[t->src[k]];
    if (t->idiag)
        for (int q = 0; q < n; q++) t->idiag[q] = f->idiag[t->lv.rows[q]];
}

/* T^-1 b level by level into xn, in the plan's numbering: row q's b is
 * b[at[q]]; x (NULL: none) gets the result in the original numbering. */
static void tri_solve(const tri_plan *t, const double *b, const int *at, double *xn, double *x)
{
    const int *lp = t->lv.ptr, *rows = t->lv.rows, *ptr = t->ptr, *col = t->col, nlev = t->lv.nlev;
    const double *val = t->val, *idiag = t->idiag;
    SPK_OMP(omp parallel)
    for (int l = 0; l < nlev; l++) {
        const int lo = lp[l], hi = lp[l + 1];
        SPK_OMP(omp for schedule(static))
        for (int q = lo; q < hi; q++) {
            double s = b[at[q]];
            for (int k = ptr[q]; k < ptr[q + 1]; k++) s -= val[k] * xn[col[k]];
            xn[q] = idiag ? s * idiag[q] : s;
            if (x) x[rows[q]] = xn[q];
        } /* the implicit barrier: the next level reads this one's rows */
    }
}

int spk_factor_solve_levels(spk_factor *f, const double *r, double *z, void (*one)(const spk_factor *, const double *, double *))
{
    const int nt = spk_host_threads();
    if (nt < 2 || (long long)f->F.nnz + f->n < SPK_PAR_MIN) {
        one(f, r, z);
        return SPK_OK;
    }
    if (!f->plan) plan_build(f, nt);
    struct spk_factor_plan *p = f->plan;
    /* both ways give the same bits: the faster of the first applies is kept */
    const int levels = p && p->pays && (p->chosen < 0 ? p->trials % 2 : p->chosen);
    const double t0 = p && p->chosen < 0 ? spk_time_now() : 0;
    if (!levels) {
        one(f, r, z);
    } else {
        if (p->stamp != f->stamp) {
            tri_values(&p->t[0], f);
            tri_values(&p->t[1], f);
            p->stamp = f->stamp;
        }
        double *lo = p->xn, *up = p->xn + f->n;
        tri_solve(&p->t[0], r, p->t[0].lv.rows, lo, NULL);
        tri_solve(&p->t[1], lo, p->t[1].from, up, z);
    }
    if (p && p->pays && p->chosen < 0) {
        const double t = spk_time_now() - t0;
        if (p->trials < 2 || t < p->best[levels]) p->best[levels] = t;
        ++p->trials;
        /* levels twice as slow as one thread at the first try (a loaded machine): no second try */
        if (p->trials == TRIALS || (p->trials == 2 && p->best[1] > 2 * p->best[0])) p->chosen = p->best[1] < p->best[0];
    }
    return SPK_OK;
}

int spk_factor_levels_used(const void *impl)
{
    const spk_factor *f = impl;
    return f && f->plan && f->plan->pays && f->plan->trials >= 2;
}
