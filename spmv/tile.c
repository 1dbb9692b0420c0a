/* tile.c -- TileSpMV (001): conversion to 16 x 16 tiles with a format per
 * tile, the host reference product, and the three backends:
 *   tile-csr   every tile CSR (TileSpMV_CSR)
 *   tile       the adaptive choice per tile (TileSpMV_ADPT); above 1.8M
 *              nonzeros (the paper's switch point; tile_defer_nnz) the COO
 *              entries are deferred as in tile-dcoo
 *   tile-dcoo  the adaptive choice with deferred COO (TileSpMV_DeferredCOO)
 * Layout and kernels: tile.h and tile.cu.
 *
 * The selection (the paper's flow chart, Fig. 5), for a tile of R x C
 * positions holding k nonzeros with row lengths l_r, mean m = k/R and
 * variation v = std(l)/m:
 *   k < 12 and v > te (very sparse, uneven rows)     COO
 *   k = R*C                                           Dns
 *   every row empty or full                           DnsRow
 *   every column empty or full                        DnsCol
 *   k >= 0.75 R*C                                     Dns
 *   v <= te (regular rows)                            ELL
 *   v >= th (very irregular rows)                     HYB
 *   otherwise                                         CSR
 * with te = 0.2 and th = 1.0 unless the options change them.  HYB's ELL
 * width is the one that minimizes the tile's bytes (8 + 1/2 bytes per ELL
 * slot of 16 rows, 8 + 1 per COO entry).
 *
 * Conversion: one pass counts the tiles of each tile row, a second sorts
 * their columns and counts nonzeros per tile row and column, the formats
 * and sizes follow, and a third pass places every nonzero (entries of a tile
 * arrive in row order because CSR rows are sorted). */
#include "tile.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const spk_tile_kind_names[SPK_TILE_NKINDS] = {"CSR", "COO", "ELL", "HYB",
                                                          "Dns", "DnsRow", "DnsCol"};

static double row_variation(int rows, int nnz, const unsigned char *rowlen)
{
    if (nnz == 0 || rows == 0) return 0;
    double mean = (double)nnz / rows, var = 0;
    for (int r = 0; r < rows; r++) var += (rowlen[r] - mean) * (rowlen[r] - mean);
    return sqrt(var / rows) / mean;
}

static int all_empty_or(int n, const unsigned char *len, int full)
{
    for (int i = 0; i < n; i++)
        if (len[i] != 0 && len[i] != full) return 0;
    return 1;
}

int spk_tile_choose(const spk_tile_params *p, int rows, int cols, int nnz, const unsigned char *rowlen,
                    const unsigned char *collen)
{
    if (!p->adaptive) return SPK_TILE_CSR;
    double v = row_variation(rows, nnz, rowlen);
    if (nnz < SPK_TILE_COO_NNZ && v > p->te) return SPK_TILE_COO;
    if (nnz == rows * cols) return SPK_TILE_DNS;
    if (all_empty_or(rows, rowlen, cols)) return SPK_TILE_DNSROW;
    if (all_empty_or(cols, collen, rows)) return SPK_TILE_DNSCOL;
    if (nnz >= SPK_TILE_DENSE * rows * cols) return SPK_TILE_DNS;
    if (v <= p->te) return SPK_TILE_ELL;
    if (v >= p->th) return SPK_TILE_HYB;
    return SPK_TILE_CSR;
}

/* HYB: the ELL width with the fewest bytes (smallest on ties). */
static int hyb_width(int rows, const unsigned char *rowlen)
{
    int maxlen = 0;
    for (int r = 0; r < rows; r++) maxlen = rowlen[r] > maxlen ? rowlen[r] : maxlen;
    long best = -1;
    int bw = 0;
    for (int w = 0; w <= maxlen; w++) {
        long coo = 0;
        for (int r = 0; r < rows; r++) coo += rowlen[r] > w ? rowlen[r] - w : 0;
        long bytes = (long)SPK_TILE * w * 8 + (long)SPK_TILE * w / 2 + coo * 9;
        if (best < 0 || bytes < best) best = bytes, bw = w;
    }
    return bw;
}

static int max_len(int n, const unsigned char *len)
{
    int m = 0;
    for (int i = 0; i < n; i++) m = len[i] > m ? len[i] : m;
    return m;
}

static int count_full(int n, const unsigned char *len, int full)
{
    int c = 0;
    for (int i = 0; i < n; i++) c += len[i] == full;
    return c;
}

/* Rank of position i among the full ones before it. */
static int full_rank(int i, const unsigned char *len, int full)
{
    int c = 0;
    for (int j = 0; j < i; j++) c += len[j] == full;
    return c;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

void spk_tile_free(spk_fmt_tile *T)
{
    free(T->tile_ptr);
    free(T->tile_col);
    free(T->val_off);
    free(T->idx_off);
    free(T->kind);
    free(T->width);
    free(T->val);
    free(T->idx);
    free(T->unit);
    free(T->split_rows);
    T->tile_ptr = T->tile_col = T->val_off = T->idx_off = T->unit = T->split_rows = NULL;
    T->kind = T->width = T->idx = NULL;
    T->val = NULL;
}

/* Per-tile plan of the conversion (indexed by the tile before deferral). */
typedef struct plan {
    int *col;                /* tile column */
    int *nnz;                /* nonzeros */
    unsigned char *rl, *cl;  /* 16 row and 16 column counts per tile */
    unsigned char *kind, *w; /* format and width */
    int *dst;                /* index among the stored tiles, -1: dropped */
    int *seen, *cseen;       /* placement counters */
} plan;

static void plan_free(plan *P)
{
    free(P->col);
    free(P->nnz);
    free(P->rl);
    free(P->cl);
    free(P->kind);
    free(P->w);
    free(P->dst);
    free(P->seen);
    free(P->cseen);
}

static void place_nibble(unsigned char *b, long q, int c)
{
    b[q / 2] |= (unsigned char)((q & 1) ? c << 4 : c);
}

int spk_tile_build(const spk_csr *A, const spk_tile_params *p, spk_fmt_tile *T, spk_csr *D, spk_err *err)
{
    const int m = A->nrows, n = A->ncols;
    const int tm = (m + SPK_TILE - 1) / SPK_TILE, tn = (n + SPK_TILE - 1) / SPK_TILE;
    memset(T, 0, sizeof *T);
    memset(D, 0, sizeof *D);
    T->nrows = m;
    T->ncols = n;
    T->tm = tm;
    T->tn = tn;
    T->params = *p;
    plan P;
    memset(&P, 0, sizeof P);
    int st = SPK_OK;
    int *mark = spk_malloc((size_t)tn, sizeof(int), "tile marks", err);
    int *pos = spk_malloc((size_t)tn, sizeof(int), "tile positions", err);
    int *fptr = spk_calloc((size_t)tm + 1, sizeof(int), "tile row pointers", err);
    if (!mark || !pos || !fptr) {
        st = SPK_ERR_NOMEM;
        goto done;
    }
    /* pass 1: tiles per tile row */
    for (int j = 0; j < tn; j++) mark[j] = -1;
    for (int tr = 0; tr < tm; tr++) {
        int cnt = 0, r1 = (tr + 1) * SPK_TILE < m ? (tr + 1) * SPK_TILE : m;
        for (int k = A->rowptr[tr * SPK_TILE]; k < A->rowptr[r1]; k++) {
            int tc = A->colind[k] / SPK_TILE;
            if (mark[tc] != tr) mark[tc] = tr, cnt++;
        }
        fptr[tr + 1] = fptr[tr] + cnt;
    }
    const int nt = fptr[tm];
    P.col = spk_malloc((size_t)nt, sizeof(int), "tile columns", err);
    P.nnz = spk_calloc((size_t)nt, sizeof(int), "tile counts", err);
    P.rl = spk_calloc((size_t)nt, SPK_TILE, "tile row counts", err);
    P.cl = spk_calloc((size_t)nt, SPK_TILE, "tile column counts", err);
    P.kind = spk_malloc((size_t)nt, 1, "tile formats", err);
    P.w = spk_malloc((size_t)nt, 1, "tile widths", err);
    P.dst = spk_malloc((size_t)nt, sizeof(int), "tile numbers", err);
    P.seen = spk_calloc((size_t)nt, sizeof(int), "tile counters", err);
    P.cseen = spk_calloc((size_t)nt, sizeof(int), "tile counters", err);
    if (!P.col || !P.nnz || !P.rl || !P.cl || !P.kind || !P.w || !P.dst || !P.seen || !P.cseen) {
        st = SPK_ERR_NOMEM;
        goto done;
    }
    /* pass 2: sorted tile columns, counts per tile row and column */
    for (int j = 0; j < tn; j++) mark[j] = -1;
    for (int tr = 0; tr < tm; tr++) {
        int base = fptr[tr], cnt = 0, r0 = tr * SPK_TILE, r1 = r0 + SPK_TILE < m ? r0 + SPK_TILE : m;
        for (int k = A->rowptr[r0]; k < A->rowptr[r1]; k++) {
            int tc = A->colind[k] / SPK_TILE;
            if (mark[tc] != tr) mark[tc] = tr, P.col[base + cnt++] = tc;
        }
        qsort(P.col + base, (size_t)cnt, sizeof(int), cmp_int);
        for (int j = 0; j < cnt; j++) pos[P.col[base + j]] = base + j;
        for (int i = r0; i < r1; i++)
            for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                int t = pos[A->colind[k] / SPK_TILE];
                P.nnz[t]++;
                P.rl[(size_t)t * SPK_TILE + (i - r0)]++;
                P.cl[(size_t)t * SPK_TILE + A->colind[k] % SPK_TILE]++;
            }
    }
    /* formats and sizes */
    long long nval = 0, nidx = 0, ndef = 0;
    int kept = 0;
    spk_tile_stats *S = &T->stats;
    for (int tr = 0; tr < tm; tr++) {
        int rows = m - tr * SPK_TILE < SPK_TILE ? m - tr * SPK_TILE : SPK_TILE;
        for (int t = fptr[tr]; t < fptr[tr + 1]; t++) {
            int cols = n - P.col[t] * SPK_TILE < SPK_TILE ? n - P.col[t] * SPK_TILE : SPK_TILE;
            const unsigned char *rl = P.rl + (size_t)t * SPK_TILE, *cl = P.cl + (size_t)t * SPK_TILE;
            int k = P.nnz[t], kind = spk_tile_choose(p, rows, cols, k, rl, cl), w = 0;
            long nv = 0, ni = 0, def = 0;
            switch (kind) {
            case SPK_TILE_CSR: nv = k, ni = SPK_TILE + (k + 1) / 2; break;
            case SPK_TILE_COO: nv = k, ni = k; break;
            case SPK_TILE_ELL: w = max_len(rows, rl), nv = SPK_TILE * w, ni = SPK_TILE / 2 * w; break;
            case SPK_TILE_HYB: {
                w = hyb_width(rows, rl);
                long coo = k;
                for (int r = 0; r < rows; r++) coo -= rl[r] < w ? rl[r] : w;
                nv = SPK_TILE * w + coo, ni = SPK_TILE / 2 * w + coo;
                break;
            }
            case SPK_TILE_DNS: nv = SPK_TILE * SPK_TILE; break;
            case SPK_TILE_DNSROW: w = count_full(rows, rl, cols), nv = SPK_TILE * w, ni = w; break;
            default: w = count_full(cols, cl, rows), nv = SPK_TILE * w, ni = w; break;
            }
            if (p->defer && kind == SPK_TILE_COO) def = k, nv = ni = 0;
            if (p->defer && kind == SPK_TILE_HYB) def = nv - SPK_TILE * w, nv = SPK_TILE * w, ni = SPK_TILE / 2 * w;
            P.kind[t] = (unsigned char)kind;
            P.w[t] = (unsigned char)w;
            S->tiles[kind]++;
            S->nnz[kind] += k;
            ndef += def;
            if (nv == 0) {
                P.dst[t] = -1;
                S->dropped_tiles++;
                continue;
            }
            P.dst[t] = kept++;
            nval += nv;
            nidx += ni;
        }
    }
    S->deferred = ndef;
    S->stored = nval;
    if (nval > INT_MAX || nidx > INT_MAX) {
        st = spk_err_set(err, SPK_ERR_UNSUPPORTED,
                         "tile formats refused: %lld stored values exceed the 32-bit offsets", nval);
        goto done;
    }
    if ((st = spk_format_check_padding("tile", (size_t)nval, (size_t)A->nnz, m, err))) goto done;
    /* the stored tiles */
    T->ntiles = kept;
    T->nval = (int)nval;
    T->nidx = (int)nidx;
    T->tile_ptr = spk_calloc((size_t)tm + 1, sizeof(int), "tile row pointers", err);
    T->tile_col = spk_malloc((size_t)kept, sizeof(int), "tile columns", err);
    T->val_off = spk_malloc((size_t)kept + 1, sizeof(int), "tile value offsets", err);
    T->idx_off = spk_malloc((size_t)kept + 1, sizeof(int), "tile index offsets", err);
    T->kind = spk_malloc((size_t)kept, 1, "tile formats", err);
    T->width = spk_malloc((size_t)kept, 1, "tile widths", err);
    T->val = spk_calloc((size_t)nval, sizeof(double), "tile values", err);
    T->idx = spk_calloc((size_t)nidx, 1, "tile indices", err);
    if (!T->tile_ptr || !T->tile_col || !T->val_off || !T->idx_off || !T->kind || !T->width || !T->val ||
        !T->idx) {
        st = SPK_ERR_NOMEM;
        goto done;
    }
    if (ndef > 0 && (st = spk_csr_alloc(D, m, n, (int)ndef, err))) goto done;
    if (ndef > 0) memset(D->rowptr, 0, ((size_t)m + 1) * sizeof(int));
    T->val_off[0] = T->idx_off[0] = 0;
    for (int tr = 0; tr < tm; tr++) {
        int rows = m - tr * SPK_TILE < SPK_TILE ? m - tr * SPK_TILE : SPK_TILE;
        T->tile_ptr[tr + 1] = T->tile_ptr[tr];
        for (int t = fptr[tr]; t < fptr[tr + 1]; t++) {
            int d = P.dst[t];
            if (d < 0) continue;
            int cols = n - P.col[t] * SPK_TILE < SPK_TILE ? n - P.col[t] * SPK_TILE : SPK_TILE;
            int kind = P.kind[t], w = P.w[t], k = P.nnz[t];
            const unsigned char *rl = P.rl + (size_t)t * SPK_TILE, *cl = P.cl + (size_t)t * SPK_TILE;
            long nv, ni;
            unsigned char *ix = T->idx + T->idx_off[d];
            switch (kind) {
            case SPK_TILE_CSR: {
                nv = k, ni = SPK_TILE + (k + 1) / 2;
                int off = 0;
                for (int r = 0; r < SPK_TILE; r++) {
                    ix[r] = (unsigned char)off;
                    off += r < rows ? rl[r] : 0;
                }
                break;
            }
            case SPK_TILE_COO: nv = k, ni = k; break;
            case SPK_TILE_ELL: nv = SPK_TILE * w, ni = SPK_TILE / 2 * w; break;
            case SPK_TILE_HYB: {
                long coo = k;
                for (int r = 0; r < rows; r++) coo -= rl[r] < w ? rl[r] : w;
                if (p->defer) coo = 0;
                nv = SPK_TILE * w + coo, ni = SPK_TILE / 2 * w + coo;
                break;
            }
            case SPK_TILE_DNS: nv = SPK_TILE * SPK_TILE, ni = 0; break;
            case SPK_TILE_DNSROW:
                nv = SPK_TILE * w, ni = w;
                for (int r = 0, i = 0; r < rows; r++)
                    if (rl[r] == cols) ix[i++] = (unsigned char)r;
                break;
            default:
                nv = SPK_TILE * w, ni = w;
                for (int c = 0, i = 0; c < cols; c++)
                    if (cl[c] == rows) ix[i++] = (unsigned char)c;
                break;
            }
            T->tile_col[d] = P.col[t];
            T->kind[d] = (unsigned char)kind;
            T->width[d] = (unsigned char)w;
            T->val_off[d + 1] = T->val_off[d] + (int)nv;
            T->idx_off[d + 1] = T->idx_off[d] + (int)ni;
            T->tile_ptr[tr + 1]++;
        }
    }
    /* pass 3: place the nonzeros */
    long long dq = 0;
    for (int tr = 0; tr < tm; tr++) {
        int base = fptr[tr], r0 = tr * SPK_TILE, r1 = r0 + SPK_TILE < m ? r0 + SPK_TILE : m;
        int rows = r1 - r0;
        for (int t = base; t < fptr[tr + 1]; t++) pos[P.col[t]] = t;
        for (int i = r0; i < r1; i++) {
            int r = i - r0, prev = -1, kpos = 0;
            for (int q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
                int col = A->colind[q], t = pos[col / SPK_TILE], c = col % SPK_TILE;
                double v = A->val[q];
                kpos = t == prev ? kpos + 1 : 0;
                prev = t;
                int kind = P.kind[t], w = P.w[t], d = P.dst[t];
                int deferred = p->defer && (kind == SPK_TILE_COO || (kind == SPK_TILE_HYB && kpos >= w));
                if (deferred) {
                    D->rowptr[i + 1]++;
                    D->colind[dq] = col;
                    D->val[dq++] = v;
                    continue;
                }
                double *tv = T->val + T->val_off[d];
                unsigned char *ix = T->idx + T->idx_off[d];
                int cols = n - P.col[t] * SPK_TILE < SPK_TILE ? n - P.col[t] * SPK_TILE : SPK_TILE;
                const unsigned char *rl = P.rl + (size_t)t * SPK_TILE, *cl = P.cl + (size_t)t * SPK_TILE;
                switch (kind) {
                case SPK_TILE_CSR: {
                    int e = P.seen[t]++;
                    tv[e] = v;
                    place_nibble(ix + SPK_TILE, e, c);
                    break;
                }
                case SPK_TILE_COO: {
                    int e = P.seen[t]++;
                    tv[e] = v;
                    ix[e] = (unsigned char)(r << 4 | c);
                    break;
                }
                case SPK_TILE_ELL:
                case SPK_TILE_HYB:
                    if (kpos < w) {
                        tv[kpos * SPK_TILE + r] = v;
                        place_nibble(ix, (long)kpos * SPK_TILE + r, c);
                    } else {
                        int e = P.cseen[t]++;
                        tv[SPK_TILE * w + e] = v;
                        ix[SPK_TILE / 2 * w + e] = (unsigned char)(r << 4 | c);
                    }
                    break;
                case SPK_TILE_DNS: tv[c * SPK_TILE + r] = v; break;
                case SPK_TILE_DNSROW: tv[full_rank(r, rl, cols) * SPK_TILE + c] = v; break;
                default: tv[full_rank(c, cl, rows) * SPK_TILE + r] = v; break;
                }
            }
        }
    }
    if (ndef > 0)
        for (int i = 0; i < m; i++) D->rowptr[i + 1] += D->rowptr[i];
    /* work units: at most SPK_TILE_BALANCE tiles per warp */
    long long units = 0;
    for (int tr = 0; tr < tm; tr++) {
        int cnt = T->tile_ptr[tr + 1] - T->tile_ptr[tr];
        units += cnt > 0 ? (cnt + SPK_TILE_BALANCE - 1) / SPK_TILE_BALANCE : 1;
        T->nsplit += cnt > SPK_TILE_BALANCE;
    }
    T->nunits = (int)units;
    T->unit = spk_malloc((size_t)units * SPK_TILE_UNIT, sizeof(int), "tile work units", err);
    T->split_rows = spk_malloc((size_t)T->nsplit, sizeof(int), "split tile rows", err);
    if (!T->unit || !T->split_rows) {
        st = SPK_ERR_NOMEM;
        goto done;
    }
    T->staged = 1;
    for (int tr = 0, u = 0, s = 0; tr < tm; tr++) {
        int t0 = T->tile_ptr[tr], t1 = T->tile_ptr[tr + 1];
        if (t1 - t0 > SPK_TILE_BALANCE) T->split_rows[s++] = tr;
        int t = t0;
        do {
            int *U = T->unit + (size_t)u++ * SPK_TILE_UNIT, e = t1 - t < SPK_TILE_BALANCE ? t1 : t + SPK_TILE_BALANCE;
            U[0] = tr;
            U[1] = t;
            U[2] = e - t;
            U[3] = t1 - t0 > SPK_TILE_BALANCE;
            U[4] = T->val_off[t];
            U[5] = T->val_off[e] - T->val_off[t];
            U[6] = T->idx_off[t];
            U[7] = T->idx_off[e] - T->idx_off[t];
            T->staged &= U[5] <= SPK_TILE_STAGE_VALS && U[7] <= SPK_TILE_STAGE_IDX;
            t += SPK_TILE_BALANCE;
        } while (t < t1);
    }
    S->bytes = ((size_t)tm + 1 + (size_t)T->nunits * SPK_TILE_UNIT + (size_t)T->nsplit + (size_t)kept * 3 + 2) * sizeof(int) +
               (size_t)kept * 2 + (size_t)nval * sizeof(double) + (size_t)nidx;
    if (ndef > 0) S->bytes += ((size_t)m + 1) * sizeof(int) + (size_t)ndef * (sizeof(int) + sizeof(double));
    S->csr_bytes = ((size_t)m + 1) * sizeof(int) + (size_t)A->nnz * (sizeof(int) + sizeof(double));
done:
    free(mark);
    free(pos);
    free(fptr);
    plan_free(&P);
    if (st) {
        spk_tile_free(T);
        spk_csr_free(D);
    }
    return st;
}

/* The products of one tile into acc[16] (xs: the tile's 16 entries of x,
 * zero beyond the last column), in the kernel's format-specific order. */
static void tile_ref_one(const spk_fmt_tile *T, int t, const double *xs, double *acc)
{
    const double *v = T->val + T->val_off[t];
    const unsigned char *ix = T->idx + T->idx_off[t];
    const int k = T->val_off[t + 1] - T->val_off[t], w = T->width[t];
    switch (T->kind[t]) {
    case SPK_TILE_CSR:
        for (int r = 0; r < SPK_TILE; r++) {
            int e = r + 1 < SPK_TILE ? ix[r + 1] : k;
            for (int q = ix[r]; q < e; q++) {
                unsigned char b = ix[SPK_TILE + q / 2];
                acc[r] += v[q] * xs[(q & 1) ? b >> 4 : b & 15];
            }
        }
        break;
    case SPK_TILE_ELL:
    case SPK_TILE_HYB:
    case SPK_TILE_COO: {
        int ew = T->kind[t] == SPK_TILE_COO ? 0 : w;
        for (int j = 0; j < ew; j++)
            for (int r = 0; r < SPK_TILE; r++) {
                int q = j * SPK_TILE + r;
                unsigned char b = ix[q / 2];
                acc[r] += v[q] * xs[(q & 1) ? b >> 4 : b & 15];
            }
        for (int q = SPK_TILE * ew; q < k; q++) {
            unsigned char b = ix[SPK_TILE / 2 * ew + (q - SPK_TILE * ew)];
            acc[b >> 4] += v[q] * xs[b & 15];
        }
        break;
    }
    case SPK_TILE_DNS:
        for (int c = 0; c < SPK_TILE; c++)
            for (int r = 0; r < SPK_TILE; r++) acc[r] += v[c * SPK_TILE + r] * xs[c];
        break;
    case SPK_TILE_DNSROW:
        for (int i = 0; i < w; i++) {
            double s = 0;
            for (int c = 0; c < SPK_TILE; c++) s += v[i * SPK_TILE + c] * xs[c];
            acc[ix[i]] += s;
        }
        break;
    default:
        for (int i = 0; i < w; i++)
            for (int r = 0; r < SPK_TILE; r++) acc[r] += v[i * SPK_TILE + r] * xs[ix[i]];
        break;
    }
}

void spk_tile_ref(const spk_fmt_tile *T, double alpha, const double *x, double beta, double *y)
{
    for (int tr = 0; tr < T->tm; tr++) {
        double acc[SPK_TILE] = {0}, xs[SPK_TILE];
        for (int t = T->tile_ptr[tr]; t < T->tile_ptr[tr + 1]; t++) {
            int c0 = T->tile_col[t] * SPK_TILE;
            for (int c = 0; c < SPK_TILE; c++) xs[c] = c0 + c < T->ncols ? x[c0 + c] : 0.0;
            tile_ref_one(T, t, xs, acc);
        }
        for (int r = 0; r < SPK_TILE && tr * SPK_TILE + r < T->nrows; r++) {
            int i = tr * SPK_TILE + r;
            y[i] = beta == 0.0 ? alpha * acc[r] : alpha * acc[r] + beta * y[i];
        }
    }
}

int spk_tile_expand(const spk_fmt_tile *T, const spk_csr *D, spk_csr *B, spk_err *err)
{
    size_t cap = (size_t)T->val_off[T->ntiles] + (D ? (size_t)D->nnz : 0);
    int *ri = spk_malloc(cap, sizeof(int), "expanded rows", err);
    int *ci = spk_malloc(cap, sizeof(int), "expanded columns", err);
    double *vv = spk_malloc(cap, sizeof(double), "expanded values", err);
    int st = SPK_ERR_NOMEM;
    if (!ri || !ci || !vv) goto done;
    size_t e = 0;
#define EMIT(R, C, V, PADDED)                                                                      \
    do {                                                                                           \
        int r_ = tr * SPK_TILE + (R), c_ = c0 + (C);                                               \
        double v_ = (V);                                                                           \
        if ((PADDED) && (v_ == 0.0 || r_ >= T->nrows || c_ >= T->ncols)) break;                    \
        ri[e] = r_, ci[e] = c_, vv[e++] = v_;                                                      \
    } while (0)
    for (int tr = 0; tr < T->tm; tr++)
        for (int t = T->tile_ptr[tr]; t < T->tile_ptr[tr + 1]; t++) {
            const double *v = T->val + T->val_off[t];
            const unsigned char *ix = T->idx + T->idx_off[t];
            const int k = T->val_off[t + 1] - T->val_off[t], w = T->width[t], c0 = T->tile_col[t] * SPK_TILE;
            switch (T->kind[t]) {
            case SPK_TILE_CSR:
                for (int r = 0; r < SPK_TILE; r++) {
                    int end = r + 1 < SPK_TILE ? ix[r + 1] : k;
                    for (int q = ix[r]; q < end; q++) {
                        unsigned char b = ix[SPK_TILE + q / 2];
                        EMIT(r, (q & 1) ? b >> 4 : b & 15, v[q], 0);
                    }
                }
                break;
            case SPK_TILE_COO:
            case SPK_TILE_ELL:
            case SPK_TILE_HYB: {
                int ew = T->kind[t] == SPK_TILE_COO ? 0 : w;
                for (int q = 0; q < SPK_TILE * ew; q++) {
                    unsigned char b = ix[q / 2];
                    EMIT(q % SPK_TILE, (q & 1) ? b >> 4 : b & 15, v[q], 1);
                }
                for (int q = SPK_TILE * ew; q < k; q++) {
                    unsigned char b = ix[SPK_TILE / 2 * ew + (q - SPK_TILE * ew)];
                    EMIT(b >> 4, b & 15, v[q], 0);
                }
                break;
            }
            case SPK_TILE_DNS:
                for (int q = 0; q < SPK_TILE * SPK_TILE; q++) EMIT(q % SPK_TILE, q / SPK_TILE, v[q], 1);
                break;
            case SPK_TILE_DNSROW:
                for (int i = 0; i < w; i++)
                    for (int c = 0; c < SPK_TILE; c++) EMIT(ix[i], c, v[i * SPK_TILE + c], c0 + c >= T->ncols);
                break;
            default:
                for (int i = 0; i < w; i++)
                    for (int r = 0; r < SPK_TILE; r++)
                        EMIT(r, ix[i], v[i * SPK_TILE + r], tr * SPK_TILE + r >= T->nrows);
                break;
            }
        }
#undef EMIT
    if (D)
        for (int i = 0; i < D->nrows; i++)
            for (int q = D->rowptr[i]; q < D->rowptr[i + 1]; q++) ri[e] = i, ci[e] = D->colind[q], vv[e++] = D->val[q];
    st = spk_csr_from_coo(T->nrows, T->ncols, e, ri, ci, vv, B, err);
done:
    free(ri);
    free(ci);
    free(vv);
    return st;
}

void spk_tile_describe(const spk_tile_stats *s, int ntiles, const spk_tile_params *p, char *buf, size_t len)
{
    long long tiles = 0, nnz = 0;
    for (int k = 0; k < SPK_TILE_NKINDS; k++) tiles += s->tiles[k], nnz += s->nnz[k];
    int w = snprintf(buf, len, "%s%s, %lld tiles (%d stored), %.1f nonzeros/tile; tiles/nonzeros %%:",
                     p->adaptive ? "adaptive" : "all CSR", p->defer ? " + deferred COO" : "", tiles,
                     ntiles, tiles ? (double)nnz / tiles : 0.0);
    for (int k = 0; k < SPK_TILE_NKINDS && w >= 0 && (size_t)w < len; k++)
        if (s->tiles[k])
            w += snprintf(buf + w, len - (size_t)w, " %s %.1f/%.1f", spk_tile_kind_names[k],
                          100.0 * s->tiles[k] / (double)tiles, nnz ? 100.0 * s->nnz[k] / (double)nnz : 0.0);
    if (w >= 0 && (size_t)w < len && p->defer)
        w += snprintf(buf + w, len - (size_t)w, "; deferred to CSR %.1f%% of nonzeros",
                      nnz ? 100.0 * s->deferred / (double)nnz : 0.0);
    if (w >= 0 && (size_t)w < len)
        snprintf(buf + w, len - (size_t)w, "; %zu bytes, %.3fx CSR", s->bytes,
                 s->csr_bytes ? (double)s->bytes / (double)s->csr_bytes : 0.0);
}

/* ---- the backends ----------------------------------------------------------------- */

static int tile_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_tile *T = fmt;
    size_t nt = (size_t)T->ntiles, I = sizeof(int);
    l[0] = (spk_format_array){(void **)&T->tile_ptr, ((size_t)T->tm + 1) * I, 0};
    l[1] = (spk_format_array){(void **)&T->tile_col, nt * I, 0};
    l[2] = (spk_format_array){(void **)&T->val_off, (nt + 1) * I, 0};
    l[3] = (spk_format_array){(void **)&T->idx_off, (nt + 1) * I, 0};
    l[4] = (spk_format_array){(void **)&T->kind, nt, 0};
    l[5] = (spk_format_array){(void **)&T->width, nt, 0};
    /* sizes from the scalar fields: the arrays may live on the device */
    l[6] = (spk_format_array){(void **)&T->val, (size_t)T->nval * sizeof(double), 1};
    l[7] = (spk_format_array){(void **)&T->idx, (size_t)T->nidx, 0};
    l[8] = (spk_format_array){(void **)&T->unit, (size_t)T->nunits * SPK_TILE_UNIT * I, 0};
    l[9] = (spk_format_array){(void **)&T->split_rows, (size_t)T->nsplit * I, 0};
    return 10;
}

static void tile_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    spk_tile_ref(fmt, alpha, x, beta, y);
}

static void tile_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_tile *T = fmt;
    spk_tile_describe(&T->stats, T->ntiles, &T->params, buf, len);
}

/* The tiles as a generic format (the deferred CSR matrix is held apart). */
static const spk_format tile_format = {
    "tile", "16x16 tiles", sizeof(spk_fmt_tile), NULL, tile_arrays, tile_ref,
    SPK_FORMAT_LAUNCH(spk_tile_launch), tile_describe, NULL,
};

typedef struct tile_impl {
    spk_exec *e;
    const char *name;
    spk_tile_params p;
    void *tiles;                        /* generic format backend over the tiles */
    const struct spk_spmv_ops *dops;    /* the deferred CSR matrix: cusparse, or csr on the host */
    void *d;
    spk_csr D;                          /* the deferred matrix (the host backend reads it) */
    int nrows, ncols, nnz;
    spk_tile_stats stats;
    int ntiles;
    double setup;
} tile_impl;

static void tile_destroy(void *impl)
{
    tile_impl *t = impl;
    if (!t) return;
    if (t->tiles) spk_format_destroy(t->tiles);
    if (t->d) t->dops->destroy(t->d);
    spk_csr_free(&t->D);
    free(t);
}

/* Build tiles and deferred matrix of A into fresh host storage. */
static int tile_convert(const tile_impl *t, const spk_csr *A, spk_fmt_tile **T, spk_csr *D, spk_err *err)
{
    *T = calloc(1, sizeof **T);
    if (!*T) return spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (format '%s')", t->name);
    int st = spk_tile_build(A, &t->p, *T, D, err);
    if (st) {
        free(*T);
        *T = NULL;
    }
    return st;
}

static int tile_create(const char *name, spk_exec *e, const spk_csr *A, const spk_spmv_opts *o, void **impl)
{
    double t0 = spk_time_now();
    *impl = NULL;
    tile_impl *t = calloc(1, sizeof *t);
    if (!t) return spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (format '%s')", name);
    t->e = e;
    t->name = name;
    t->nrows = A->nrows;
    t->ncols = A->ncols;
    t->nnz = A->nnz;
    spk_fmt_tile *T = NULL;
    int st;
    SPK_CHECK(st, spk_tile_params_for(name, o, A, &t->p, e->err));
    SPK_CHECK(st, tile_convert(t, A, &T, &t->D, e->err));
    t->stats = T->stats;
    t->ntiles = T->ntiles;
    st = spk_format_adopt(&tile_format, e, A, o, T, t0, &t->tiles);
    T = NULL; /* owned (and freed on failure) by spk_format_adopt */
    if (st) goto cleanup;
    if (t->D.nnz > 0) {
        SPK_CHECK(st, spk_spmv_find(spk_exec_is_host(e) ? "csr" : "cusparse", e, &t->dops, e->err));
        spk_spmv_opts dopt; /* the deferred part in the tiles' precision */
        memset(&dopt, 0, sizeof dopt);
        dopt.precision = o ? o->precision : SPK_SPMV_DOUBLE;
        SPK_CHECK(st, t->dops->create(e, &t->D, &dopt, &t->d));
    }
    if (!spk_exec_is_host(e)) spk_csr_free(&t->D); /* on the device now */
    t->setup = spk_time_now() - t0;
    *impl = t;
cleanup:
    if (st) tile_destroy(t);
    return st;
}

static int tile_apply(void *impl, double alpha, const double *x, double beta, double *y)
{
    tile_impl *t = impl;
    SPK_TRY(spk_format_apply(t->tiles, alpha, x, beta, y));
    if (t->d) SPK_TRY(t->dops->apply(t->d, alpha, x, 1.0, y));
    return SPK_OK;
}

static int tile_apply_float(void *impl, float alpha, const float *x, float beta, float *y)
{
    tile_impl *t = impl;
    SPK_TRY(spk_format_apply_float(t->tiles, alpha, x, beta, y));
    if (t->d) SPK_TRY(t->dops->apply_float(t->d, alpha, x, 1.0f, y));
    return SPK_OK;
}

static int tile_update(void *impl, const spk_csr *A)
{
    tile_impl *t = impl;
    spk_err *err = t->e->err;
    if (A->nrows != t->nrows || A->ncols != t->ncols || A->nnz != t->nnz)
        return spk_err_set(err, SPK_ERR_INVALID_MATRIX,
                           "format '%s': new values for a different pattern (%d x %d, %d entries; "
                           "was %d x %d, %d)",
                           t->name, A->nrows, A->ncols, A->nnz, t->nrows, t->ncols, t->nnz);
    spk_fmt_tile *T = NULL;
    spk_csr D = {0};
    SPK_TRY(tile_convert(t, A, &T, &D, err));
    int st = spk_format_update_adopt(t->tiles, T);
    if (st) {
        spk_csr_free(&D);
        return st;
    }
    spk_csr_free(&t->D);
    t->D = D; /* the host backend reads it from here */
    if (t->d) st = t->dops->update(t->d, &t->D); /* csr and cusparse both update */
    if (!spk_exec_is_host(t->e)) spk_csr_free(&t->D);
    return st;
}

static void tile_stats(const void *impl, spk_spmv_stats *s)
{
    const tile_impl *t = impl;
    spk_format_stats(t->tiles, s);
    if (t->d) {
        spk_spmv_stats ds;
        t->dops->stats(t->d, &ds);
        s->bytes += ds.bytes;
    }
    s->setup_seconds = t->setup;
}

#define TILE_BACKEND(SYM, NAME, EXEC, SUMMARY)                                                      \
    static int SYM##_##EXEC##_create(spk_exec *e, const spk_csr *A, const spk_spmv_opts *o, void **impl) \
    {                                                                                               \
        return tile_create(NAME, e, A, o, impl);                                                    \
    }                                                                                               \
    const struct spk_spmv_ops spk_spmv_##SYM##_##EXEC = {NAME, #EXEC, SUMMARY, SYM##_##EXEC##_create, \
                                                           tile_apply, tile_update, tile_destroy,   \
                                                           tile_stats, NULL, tile_apply_float};
#define TILE_SUMMARY_CSR "TileSpMV: 16x16 tiles, every tile CSR (4-bit columns), a warp per tile"
#define TILE_SUMMARY "TileSpMV: a format per 16x16 tile; COO deferred to CSR above 1.8M nonzeros"
#define TILE_SUMMARY_DCOO "TileSpMV: a format per tile, COO entries in a separate CSR (cuSPARSE)"

TILE_BACKEND(tile_csr, "tile-csr", host, TILE_SUMMARY_CSR)
TILE_BACKEND(tile, "tile", host, TILE_SUMMARY)
TILE_BACKEND(tile_dcoo, "tile-dcoo", host, TILE_SUMMARY_DCOO)
#ifdef SPK_HAVE_CUDA
TILE_BACKEND(tile_csr, "tile-csr", cuda, TILE_SUMMARY_CSR)
TILE_BACKEND(tile, "tile", cuda, TILE_SUMMARY)
TILE_BACKEND(tile_dcoo, "tile-dcoo", cuda, TILE_SUMMARY_DCOO)
#endif
