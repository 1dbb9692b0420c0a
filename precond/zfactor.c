/* zfactor.c -- the incomplete factorizations of complex matrices on the
 * host, and their triangular solves.
 *
 * Both keep the factor as one CSR matrix F (zprecond.h): L strictly below
 * the diagonal (unit diagonal implied), U on and above it, so one pair of
 * substitutions serves both.
 *   ilu0  F has A's pattern with every diagonal entry (an absent one
 *         inserted as 0).  Row-wise IKJ elimination with no fill:
 *           for k < i in row i: l_ik = a_ik / u_kk, a_ij -= l_ik u_kj.
 *   ic0   F has the pattern of lower(A) with every diagonal entry, mirrored
 *         above the diagonal; only the lower triangle of A is read.  Row-wise
 *         (up-looking) L D L^T, with c(z) = z (symmetric) or conj(z)
 *         (Hermitian, D real):
 *           w_ij = a_ij - sum_{k<j} w_ik c(l_jk),  l_ij = w_ij / d_j,
 *           d_i  = a_ii - sum_{k<i} w_ik c(l_ik),
 *         where w_ik = l_ik d_k and the sums run over the common pattern of
 *         rows i and j.  Then U = D c(L)^T: u_ji = d_j c(l_ij), u_ii = d_i.
 * A pivot is bad when it is not finite, the row overflowed, or
 * |u_ii| <= 1e-12 |a_ii| (Hermitian ic0: d_i <= 1e-12 |a_ii|), a_ii of the
 * possibly shifted matrix; then A + alpha diag(A) (a_ii -> a_ii (1 + alpha))
 * is factored for alpha = 1e-3, doubling, up to 1, the first that succeeds
 * kept. */
#include "core/zcmplx.h"
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zprecond.h"

#define ZPIVOT_RTOL 1e-12
#define ZSHIFT_INIT 1e-3
#define ZSHIFT_MAX 1.0

static inline double complex zld(const double *v, size_t k)
{
    return CMPLX(v[2 * k], v[2 * k + 1]);
}
static inline void zst(double *v, size_t k, double complex z)
{
    v[2 * k] = creal(z);
    v[2 * k + 1] = cimag(z);
}
/* a / b by Smith's scaling (no overflow of |b|^2, no library call) */
static inline double complex zdiv(double complex a, double complex b)
{
    const double ar = creal(a), ai = cimag(a), br = creal(b), bi = cimag(b);
    if (fabs(br) >= fabs(bi)) {
        const double t = bi / br, den = br + bi * t;
        return CMPLX((ar + ai * t) / den, (ai - ar * t) / den);
    }
    const double t = br / bi, den = bi + br * t;
    return CMPLX((ar * t + ai) / den, (ai * t - ar) / den);
}

/* Where a factorization failed. */
typedef struct zfail {
    int row;
    double complex pivot, aii; /* the pivot and a_ii (shifted) of that row */
    int overflow;              /* the row got a non-finite entry */
} zfail;

/* F's pattern from the canonical square A (the file's comment); src[k] is
 * the position in A whose value entry k of F starts from, -1 for zero. */
static int build_pattern(const spk_zcsr *A, int sym, spk_zcsr *F, int *diag, int **src, spk_err *e)
{
    const int n = A->nrows;
    int *up = calloc((size_t)n + 1, sizeof(int)); /* sym: entries below the diagonal in each column */
    if (!up) return spk_err_set(e, SPK_ERR_NOMEM, "out of memory for the pattern of a factor of order %d", n);
    long long nnz = 0;
    for (int i = 0; i < n; i++) {
        int low = 0, has = 0;
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            const int j = A->colind[k];
            low += j < i;
            has |= j == i;
            if (sym && j < i) up[j]++;
        }
        nnz += sym ? low + 1 : A->rowptr[i + 1] - A->rowptr[i] + !has;
    }
    for (int j = 0; sym && j < n; j++) nnz += up[j];
    int st = nnz > INT_MAX ? spk_err_set(e, SPK_ERR_INVALID_MATRIX, "the factor would hold %lld entries, over the "
                                         "32-bit index limit", nnz)
                           : spk_zcsr_alloc(F, n, n, (int)nnz, e);
    *src = st ? NULL : malloc((size_t)(nnz ? nnz : 1) * sizeof(int));
    if (!st && !*src) st = spk_err_set(e, SPK_ERR_NOMEM, "out of memory for the pattern of a factor of order %d", n);
    if (st) {
        free(up);
        return st;
    }
    int out = 0;
    for (int i = 0; i < n; i++) {
        F->rowptr[i] = out;
        diag[i] = -1;
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            const int j = A->colind[k];
            if (j > i && sym) break;
            if (j > i && diag[i] < 0) { /* an absent diagonal entry, inserted before the first j > i */
                diag[i] = out;
                F->colind[out] = i;
                (*src)[out++] = -1;
            }
            if (j == i) diag[i] = out;
            F->colind[out] = j;
            (*src)[out++] = k;
        }
        if (diag[i] < 0) {
            diag[i] = out;
            F->colind[out] = i;
            (*src)[out++] = -1;
        }
        out += sym ? up[i] : 0; /* room for the mirror of column i, filled below */
    }
    F->rowptr[n] = out;
    /* the mirror: row j's entries above the diagonal are the rows i > j with
     * (i, j) in lower(A), in increasing i, as this scan meets them */
    for (int j = 0; sym && j < n; j++) up[j] = diag[j] + 1;
    for (int i = 0; sym && i < n; i++)
        for (int k = F->rowptr[i]; k < diag[i]; k++) {
            const int j = F->colind[k], q = up[j]++;
            F->colind[q] = i;
            (*src)[q] = -1;
        }
    free(up);
    return SPK_OK;
}

/* F's values from A's (src from build_pattern). */
static void load_values(const spk_zcsr *A, const int *src, spk_zcsr *F)
{
    for (int k = 0; k < F->nnz; k++) {
        F->val[2 * (size_t)k] = src[k] >= 0 ? A->val[2 * (size_t)src[k]] : 0.0;
        F->val[2 * (size_t)k + 1] = src[k] >= 0 ? A->val[2 * (size_t)src[k] + 1] : 0.0;
    }
}

static int row_finite(const spk_zcsr *F, int lo, int hi)
{
    int ok = 1;
    for (int k = lo; k < hi; k++) ok &= isfinite(F->val[2 * (size_t)k]) && isfinite(F->val[2 * (size_t)k + 1]);
    return ok;
}

/* F's values (A's on entry) <- L\U of A + alpha diag(A); 0, or -1 with
 * the failing row in *f.  mark: n entries, all -1 (left so). */
static int ilu0_numeric(spk_zcsr *F, const int *dg, int *mark, double alpha, zfail *f)
{
    const int n = F->nrows, *rp = F->rowptr, *ci = F->colind;
    double *v = F->val;
    for (int i = 0; i < n; i++) {
        const int b = rp[i], t = rp[i + 1], d = dg[i];
        const double complex aii = zld(v, (size_t)d) * (1.0 + alpha);
        zst(v, (size_t)d, aii);
        for (int k = b; k < t; k++) mark[ci[k]] = k;
        for (int k = b; k < d; k++) {
            const int j = ci[k];
            const double complex l = zdiv(zld(v, (size_t)k), zld(v, (size_t)dg[j]));
            zst(v, (size_t)k, l);
            for (int q = dg[j] + 1; q < rp[j + 1]; q++) {
                const int m = mark[ci[q]];
                if (m >= 0) zst(v, (size_t)m, zld(v, (size_t)m) - l * zld(v, (size_t)q));
            }
        }
        for (int k = b; k < t; k++) mark[ci[k]] = -1;
        const double complex piv = zld(v, (size_t)d);
        const int finite = row_finite(F, b, t);
        if (!(cabs(piv) > ZPIVOT_RTOL * cabs(aii)) || !finite) {
            *f = (zfail){i, piv, aii, !finite && isfinite(creal(piv)) && isfinite(cimag(piv))};
            return -1;
        }
    }
    return 0;
}

/* F's lower values and diagonal (A's on entry) <- L and D of
 * A + alpha diag(A) (the file's comment; herm: c = conj); 0, or -1 with the
 * failing row in *f.  w: room for the longest row's lower part. */
static int ic0_numeric(spk_zcsr *F, const int *dg, int *mark, double complex *w, int herm, double alpha, zfail *f)
{
    const int n = F->nrows, *rp = F->rowptr, *ci = F->colind;
    double *v = F->val;
    for (int i = 0; i < n; i++) {
        const int b = rp[i], d = dg[i];
        double complex aii = zld(v, (size_t)d) * (1.0 + alpha);
        if (herm) aii = creal(aii); /* a Hermitian matrix's diagonal is real */
        double complex di = aii;
        for (int k = b; k < d; k++) mark[ci[k]] = k;
        for (int k = b; k < d; k++) {
            const int j = ci[k];
            double complex s = zld(v, (size_t)k);
            for (int q = rp[j]; q < dg[j]; q++) {
                const int m = mark[ci[q]];
                if (m >= 0) s -= w[m - b] * (herm ? conj(zld(v, (size_t)q)) : zld(v, (size_t)q));
            }
            w[k - b] = s;
            const double complex l = zdiv(s, zld(v, (size_t)dg[j]));
            zst(v, (size_t)k, l);
            di -= s * (herm ? conj(l) : l);
        }
        for (int k = b; k < d; k++) mark[ci[k]] = -1;
        if (herm) di = creal(di);
        zst(v, (size_t)d, di);
        const int finite = row_finite(F, b, d + 1);
        const int bad = herm ? !(creal(di) > ZPIVOT_RTOL * cabs(aii)) : !(cabs(di) > ZPIVOT_RTOL * cabs(aii));
        if (bad || !finite) {
            *f = (zfail){i, di, aii, !finite && isfinite(creal(di)) && isfinite(cimag(di))};
            return -1;
        }
    }
    return 0;
}

/* U = D c(L)^T above the diagonal, in the places build_pattern left
 * (row j's entries above its diagonal in increasing row i). */
static int mirror(spk_zcsr *F, const int *dg, int herm, spk_err *e)
{
    const int n = F->nrows;
    int *next = malloc(((size_t)n + 1) * sizeof(int));
    if (!next) return spk_err_set(e, SPK_ERR_NOMEM, "out of memory mirroring a factor of order %d", n);
    for (int j = 0; j < n; j++) next[j] = dg[j] + 1;
    for (int i = 0; i < n; i++)
        for (int k = F->rowptr[i]; k < dg[i]; k++) {
            const int j = F->colind[k];
            const double complex l = zld(F->val, (size_t)k);
            zst(F->val, (size_t)next[j]++, zld(F->val, (size_t)dg[j]) * (herm ? conj(l) : l));
        }
    free(next);
    return SPK_OK;
}

/* A square canonical matrix with values (columns in range, increasing). */
static int check_input(const spk_zcsr *A, const char *label, spk_err *e)
{
    if (!A || !A->rowptr || (A->nnz > 0 && (!A->colind || !A->val)))
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "%s: the matrix or its arrays are NULL", label);
    if (A->nrows != A->ncols || A->nrows < 0)
        return spk_err_set(e, SPK_ERR_INVALID_MATRIX, "%s: the matrix is %d x %d, not square", label, A->nrows,
                           A->ncols);
    if (A->rowptr[0] != 0 || A->rowptr[A->nrows] != A->nnz)
        return spk_err_set(e, SPK_ERR_INVALID_MATRIX, "%s: rowptr runs from %d to %d, not 0 to nnz = %d", label,
                           A->rowptr[0], A->rowptr[A->nrows], A->nnz);
    for (int i = 0; i < A->nrows; i++) {
        if (A->rowptr[i + 1] < A->rowptr[i])
            return spk_err_set(e, SPK_ERR_INVALID_MATRIX, "%s: rowptr decreases at row %d", label, i);
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (A->colind[k] < 0 || A->colind[k] >= A->ncols || (k > A->rowptr[i] && A->colind[k] <= A->colind[k - 1]))
                return spk_err_set(e, SPK_ERR_INVALID_MATRIX,
                                   "%s: row %d is not canonical (column %d out of range, repeated or out of order)",
                                   label, i, A->colind[k]);
    }
    return SPK_OK;
}

/* The failure's message: the first failing row, and the last try's. */
static int report(const char *label, const char *what, const zfail *first, int absent_first, int tries,
                  double alpha, const zfail *last, int absent_last, spk_err *e)
{
    char head[384], tail[512];
    snprintf(head, sizeof head, "%s: %s (%.6g, %.6g) at row %d (0-based)%s, where a_ii = (%.6g, %.6g)%s", label,
             what, creal(first->pivot), cimag(first->pivot), first->row,
             first->overflow ? " after the row overflowed" : "", creal(first->aii), cimag(first->aii),
             absent_first ? " (not stored in A)" : "");
    const int zero = creal(last->aii) == 0 && cimag(last->aii) == 0;
    snprintf(tail, sizeof tail,
             "; retried on A + alpha*diag(A) with alpha = %g doubling up to %g (%d tr%s) and every one failed: at "
             "alpha = %g the pivot is (%.6g, %.6g) at row %d%s%s",
             ZSHIFT_INIT, ZSHIFT_MAX, tries, tries == 1 ? "y" : "ies", alpha, creal(last->pivot),
             cimag(last->pivot), last->row, absent_last ? ", whose diagonal entry is not stored" : "",
             zero ? " (a zero diagonal entry, which the shift cannot raise)" : "");
    return spk_err_set(e, SPK_ERR_ZERO_PIVOT, "%s%s", head, tail);
}

/* Factor A, else A + alpha diag(A) for alpha = 1e-3 * 2^k up to 1; the
 * pattern built (F, diag, src), A's values loaded for each try. */
static int factor_loop(const spk_zcsr *A, spk_zpc_kind kind, int herm, spk_zcsr *F, const int *diag,
                       const int *src, double *shift, spk_err *e)
{
    const int n = A->nrows, ic = kind == SPK_ZPC_IC0;
    int maxlow = 0;
    for (int i = 0; i < n; i++) maxlow = diag[i] - F->rowptr[i] > maxlow ? diag[i] - F->rowptr[i] : maxlow;
    int *mark = malloc(((size_t)n + 1) * sizeof(int));
    double complex *w = malloc(((size_t)maxlow + 1) * sizeof *w);
    if (!mark || !w) {
        free(mark);
        free(w);
        return spk_err_set(e, SPK_ERR_NOMEM, "out of memory for the work arrays of a factor of order %d", n);
    }
    for (int i = 0; i < n; i++) mark[i] = -1;
    zfail first = {0, 0, 0, 0}, last = first;
    double alpha = 0;
    int tries = 0, r;
    for (;;) {
        load_values(A, src, F);
        r = ic ? ic0_numeric(F, diag, mark, w, herm, alpha, &last) : ilu0_numeric(F, diag, mark, alpha, &last);
        if (r == 0) break;
        if (alpha == 0) first = last;
        if (alpha >= ZSHIFT_MAX) break;
        alpha = alpha == 0 ? ZSHIFT_INIT : (2 * alpha < ZSHIFT_MAX ? 2 * alpha : ZSHIFT_MAX);
        tries++;
    }
    free(mark);
    free(w);
    if (r) {
        const char *label = !ic ? "ILU(0)" : herm ? "IC(0) (L D L^H)" : "IC(0) (L D L^T)";
        const char *what = !ic ? "zero pivot u_ii =" : herm ? "non-positive pivot d_i =" : "zero pivot d_i =";
        return report(label, what, &first, src[diag[first.row]] < 0, tries, alpha, &last,
                      src[diag[last.row]] < 0, e);
    }
    *shift = alpha;
    return ic ? mirror(F, diag, herm, e) : SPK_OK;
}

int spk_zfactor_compute(const spk_zcsr *A, spk_zpc_kind kind, int hermitian, spk_zcsr *F, int **diag, double *shift,
                        spk_err *e)
{
    if (!F || !diag || !shift) return spk_err_set(e, SPK_ERR_INVALID_ARG, "complex factor: an output is NULL");
    memset(F, 0, sizeof *F);
    *diag = NULL;
    *shift = 0;
    if (kind != SPK_ZPC_ILU0 && kind != SPK_ZPC_IC0)
        return spk_err_set(e, SPK_ERR_INVALID_ARG, "complex factor: kind %d is neither ilu0 nor ic0", (int)kind);
    const char *label = kind == SPK_ZPC_ILU0 ? "ILU(0)" : "IC(0)";
    SPK_TRY(check_input(A, label, e));
    int *src = NULL;
    *diag = malloc(((size_t)A->nrows + 1) * sizeof(int));
    if (!*diag) return spk_err_set(e, SPK_ERR_NOMEM, "%s: out of memory for %d diagonal positions", label, A->nrows);
    int st = build_pattern(A, kind == SPK_ZPC_IC0, F, *diag, &src, e);
    if (!st) st = factor_loop(A, kind, hermitian, F, *diag, src, shift, e);
    free(src);
    if (st) {
        spk_zcsr_free(F);
        free(*diag);
        *diag = NULL;
        *shift = 0;
    }
    return st;
}

/* z = U^-1 L^-1 r: forward substitution with unit L, then backward with U
 * (z may be r: each entry is read before it is written). */
void spk_zfactor_solve_host(const spk_zcsr *F, const int *diag, const double *r, double *z)
{
    const int n = F->nrows, *rp = F->rowptr, *ci = F->colind;
    const double *v = F->val;
    for (int i = 0; i < n; i++) {
        double sr = r[2 * (size_t)i], si = r[2 * (size_t)i + 1];
        for (int k = rp[i]; k < diag[i]; k++) {
            const double lr = v[2 * (size_t)k], li = v[2 * (size_t)k + 1];
            const double zr = z[2 * (size_t)ci[k]], zi = z[2 * (size_t)ci[k] + 1];
            sr -= lr * zr - li * zi;
            si -= lr * zi + li * zr;
        }
        z[2 * (size_t)i] = sr;
        z[2 * (size_t)i + 1] = si;
    }
    for (int i = n - 1; i >= 0; i--) {
        double sr = z[2 * (size_t)i], si = z[2 * (size_t)i + 1];
        for (int k = diag[i] + 1; k < rp[i + 1]; k++) {
            const double ur = v[2 * (size_t)k], ui = v[2 * (size_t)k + 1];
            const double zr = z[2 * (size_t)ci[k]], zi = z[2 * (size_t)ci[k] + 1];
            sr -= ur * zr - ui * zi;
            si -= ur * zi + ui * zr;
        }
        zst(z, (size_t)i, zdiv(CMPLX(sr, si), zld(v, (size_t)diag[i])));
    }
}
