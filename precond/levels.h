/* levels.h -- triangular solves of the host factors on every core: rows
 * gathered by level (a row's level is one more than the highest among the
 * rows it reads), each level's rows solved side by side.
 *
 * A row is computed exactly as the one-thread substitution computes it (its
 * sum in the same order), so the result has the same bits whatever the
 * thread count; only the order in which rows are done changes.  The IC(0)
 * backward solve, which one thread does by columns of L, reads here the
 * rows of L's transpose with their entries in descending original row, the
 * order of the column sweep's updates. */
#ifndef SPK_PRECOND_LEVELS_H
#define SPK_PRECOND_LEVELS_H

#include "core/error.h"

/* The rows of one triangle by level: rows[ptr[l] .. ptr[l+1]) in ascending order. */
typedef struct spk_levels {
    int nlev;
    int *ptr, *rows;
} spk_levels;

/* The triangle of rows 0..n-1 whose row i reads the columns at positions
 * [beg[i] + boff, end[i] + eoff) of colind (all < i for a lower one, > i for
 * an upper one).  Out of memory: SPK_ERR_NOMEM with a message. */
int spk_levels_build(spk_levels *L, int n, const int *beg, int boff, const int *end, int eoff, const int *colind,
                     int upper, spk_err *err);
void spk_levels_free(spk_levels *L);

/* 1 where a threaded solve over L pays with nt threads: levels wide enough
 * that a level's work outweighs the threads' meeting at its end. */
int spk_levels_pay(const spk_levels *L, int n, int nt);

/* x = T^-1 b level by level, row i: s = b_i - sum over its positions k of
 * val[k] x[colind[k]] in position order, x_i = s * idiag[i] (s where idiag
 * is NULL).  x may equal b. */
void spk_levels_solve(const spk_levels *L, const int *beg, int boff, const int *end, int eoff, const int *colind,
                      const double *val, const double *idiag, const double *b, double *x);

#endif
