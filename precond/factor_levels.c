/* factor_levels.c -- the host ILU(0) and IC(0) applies on every core: their
 * triangular solves by levels (levels.h), where the levels are wide enough
 * for the host's threads.  Built at the first apply that runs threaded;
 * the levels follow the pattern, so a refactor keeps them, and IC(0)'s
 * transposed values are copied again after each new factorization. */
#include <stdlib.h>

#include "core/parallel.h"
#include "factor.h"
#include "levels.h"

struct spk_factor_plan {
    int pays;            /* 1: solve by levels */
    spk_levels lo, up;   /* the forward and the backward solve */
    /* IC(0): L's strict part transposed, row c holding l_ic for i > c in
     * descending i; tpos[k] is entry k's position in L */
    int *tptr, *tcol, *tpos;
    double *tval;
    unsigned stamp;      /* f->stamp the values were copied at */
};

void spk_factor_plan_free(struct spk_factor_plan *p)
{
    if (!p) return;
    spk_levels_free(&p->lo);
    spk_levels_free(&p->up);
    free(p->tptr);
    free(p->tcol);
    free(p->tpos);
    free(p->tval);
    free(p);
}

/* L's strict lower part (L has its diagonal last in each row) transposed,
 * each row's entries in descending original row. */
static int transpose_strict(struct spk_factor_plan *p, const spk_csr *L, spk_err *err)
{
    const int n = L->nrows, m = L->nnz - n;
    p->tptr = calloc((size_t)n + 2, sizeof(int));
    p->tcol = malloc(((size_t)m + 1) * sizeof(int));
    p->tpos = malloc(((size_t)m + 1) * sizeof(int));
    p->tval = malloc(((size_t)m + 1) * sizeof(double));
    if (!p->tptr || !p->tcol || !p->tpos || !p->tval)
        return spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (IC(0) factor transposed, %d entries)", m);
    for (int i = 0; i < n; i++)
        for (int k = L->rowptr[i]; k < L->rowptr[i + 1] - 1; k++) p->tptr[L->colind[k] + 2]++;
    for (int c = 0; c < n; c++) p->tptr[c + 2] += p->tptr[c + 1];
    for (int i = n - 1; i >= 0; i--) /* descending rows: each transposed row in descending i */
        for (int k = L->rowptr[i]; k < L->rowptr[i + 1] - 1; k++) {
            const int q = p->tptr[L->colind[k] + 1]++;
            p->tcol[q] = i;
            p->tpos[q] = k;
        }
    return SPK_OK;
}

/* The levels, and whether they pay; out of memory they do not (nothing is
 * reported: the apply runs on one thread, as it would without threads). */
static int plan_levels(struct spk_factor_plan *p, const spk_factor *f, int nt)
{
    spk_err *err = NULL;
    const spk_csr *F = &f->F;
    const int n = f->n;
    if (f->kind->lower_only) {
        SPK_TRY(spk_levels_build(&p->lo, n, F->rowptr, 0, F->rowptr + 1, -1, F->colind, 0, err));
        if (!spk_levels_pay(&p->lo, n, nt)) return SPK_OK; /* L^T has as many levels */
        SPK_TRY(transpose_strict(p, F, err));
        SPK_TRY(spk_levels_build(&p->up, n, p->tptr, 0, p->tptr + 1, 0, p->tcol, 1, err));
    } else {
        SPK_TRY(spk_levels_build(&p->lo, n, F->rowptr, 0, f->diag, 0, F->colind, 0, err));
        if (!spk_levels_pay(&p->lo, n, nt)) return SPK_OK;
        SPK_TRY(spk_levels_build(&p->up, n, f->diag, 1, F->rowptr + 1, 0, F->colind, 1, err));
    }
    p->pays = spk_levels_pay(&p->up, n, nt);
    p->stamp = f->stamp - 1;
    return SPK_OK;
}

static void plan_build(spk_factor *f, int nt)
{
    struct spk_factor_plan *p = calloc(1, sizeof *p);
    if (!p) return; /* tried again at the next apply */
    f->plan = p;
    if (plan_levels(p, f, nt) != SPK_OK || !p->pays) { /* keep only the answer */
        spk_factor_plan_free(p);
        f->plan = calloc(1, sizeof *p); /* NULL: tried again */
    }
}

int spk_factor_solve_levels(spk_factor *f, const double *r, double *z, int *done)
{
    *done = 0;
    const int nt = spk_host_threads();
    if (nt < 2 || (long long)f->F.nnz + f->n < SPK_PAR_MIN) return SPK_OK;
    if (!f->plan) plan_build(f, nt);
    struct spk_factor_plan *p = f->plan;
    if (!p || !p->pays) return SPK_OK;
    const spk_csr *F = &f->F;
    if (f->kind->lower_only) {
        if (p->stamp != f->stamp) {
            const int m = F->nnz - f->n;
            for (int q = 0; q < m; q++) p->tval[q] = F->val[p->tpos[q]];
            p->stamp = f->stamp;
        }
        spk_levels_solve(&p->lo, F->rowptr, 0, F->rowptr + 1, -1, F->colind, F->val, f->idiag, r, z);
        spk_levels_solve(&p->up, p->tptr, 0, p->tptr + 1, 0, p->tcol, p->tval, f->idiag, z, z);
    } else {
        spk_levels_solve(&p->lo, F->rowptr, 0, f->diag, 0, F->colind, F->val, NULL, r, z);
        spk_levels_solve(&p->up, f->diag, 1, F->rowptr + 1, 0, F->colind, F->val, f->idiag, z, z);
    }
    *done = 1;
    return SPK_OK;
}

int spk_factor_levels_used(const void *impl)
{
    const spk_factor *f = impl;
    return f && f->plan && f->plan->pays;
}
