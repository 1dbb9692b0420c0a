/* levels.c -- the level sets of a triangular factor (levels.h). */
#include "levels.h"

#include <stdlib.h>

#include "core/parallel.h"

int spk_levels_build(spk_levels *L, int n, const int *beg, int boff, const int *end, int eoff, const int *colind,
                     int upper, spk_err *err)
{
    L->nlev = 0;
    L->ptr = L->rows = NULL;
    int *lev = malloc(((size_t)n + 1) * sizeof(int));
    L->rows = malloc(((size_t)n + 1) * sizeof(int));
    if (!lev || !L->rows) goto nomem;
    for (int t = 0; t < n; t++) {
        const int i = upper ? n - 1 - t : t; /* every row it reads is done before it */
        int l = -1;
        for (int k = beg[i] + boff, e = end[i] + eoff; k < e; k++)
            if (lev[colind[k]] > l) l = lev[colind[k]];
        lev[i] = l + 1;
        if (l + 2 > L->nlev) L->nlev = l + 2;
    }
    L->ptr = calloc((size_t)L->nlev + 2, sizeof(int));
    if (!L->ptr) goto nomem;
    for (int i = 0; i < n; i++) L->ptr[lev[i] + 2]++;
    for (int l = 0; l < L->nlev; l++) L->ptr[l + 2] += L->ptr[l + 1];
    for (int i = 0; i < n; i++) L->rows[L->ptr[lev[i] + 1]++] = i; /* ascending within a level */
    free(lev);
    return SPK_OK;
nomem:
    free(lev);
    spk_levels_free(L);
    return spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (levels of a triangular factor, %d rows)", n);
}

void spk_levels_free(spk_levels *L)
{
    free(L->ptr);
    free(L->rows);
    L->ptr = L->rows = NULL;
    L->nlev = 0;
}

int spk_levels_pay(const spk_levels *L, int n, int nt)
{
    return nt > 1 && L->nlev > 0 && n >= SPK_PAR_MIN && (long long)n >= (long long)SPK_LEVEL_ROWS * L->nlev;
}
