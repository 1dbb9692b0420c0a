/* levels.h -- the level sets of a triangular factor: a row's level is one
 * more than the highest among the rows it reads, so the rows of one level
 * can be solved side by side (factor_levels.c solves by them). */
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

/* 1 where a threaded solve over L may pay with nt threads: levels of at
 * least SPK_LEVEL_ROWS rows on average, whose work outweighs the threads'
 * meeting at each level's end (on 2 cores levels of 1,200 rows broke even,
 * and on a loaded machine every meeting waits for a descheduled thread). */
#define SPK_LEVEL_ROWS 2048
int spk_levels_pay(const spk_levels *L, int n, int nt);

#endif
