/* tile_build.c -- TileSpMV (tile.h): the conversion of CSR to 16 x 16 tiles
 * with a format per tile.
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
 * arrive in row order because CSR rows are sorted); the work units last. */
#include "tile.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static void place_nibble(unsigned char *b, long q, int c)
{
    b[q / 2] |= (unsigned char)((q & 1) ? c << 4 : c);
}

/* The width of a tile of format kind: ELL's longest row, HYB's cheapest ELL
 * width, DnsRow's full rows, DnsCol's full columns; 0 for the others. */
static int tile_width(int kind, int rows, int cols, const unsigned char *rl, const unsigned char *cl)
{
    switch (kind) {
    case SPK_TILE_ELL: return max_len(rows, rl);
    case SPK_TILE_HYB: return hyb_width(rows, rl);
    case SPK_TILE_DNSROW: return count_full(rows, rl, cols);
    case SPK_TILE_DNSCOL: return count_full(cols, cl, rows);
    default: return 0;
    }
}

/* The values (*nv) and index bytes (*ni) that a tile of format kind, width
 * w, k nonzeros and row counts rl stores; returns the entries it defers to
 * the CSR matrix instead (with p->defer: a COO tile's, HYB's COO part). */
static long tile_size(const spk_tile_params *p, int kind, int w, int k, int rows, const unsigned char *rl,
                      long *nv, long *ni)
{
    long coo = k, stored; /* HYB: its COO entries, those kept in the tile */
    switch (kind) {
    case SPK_TILE_CSR: *nv = k, *ni = SPK_TILE + (k + 1) / 2; return 0;
    case SPK_TILE_COO: *nv = *ni = p->defer ? 0 : k; return p->defer ? k : 0;
    case SPK_TILE_ELL: *nv = SPK_TILE * w, *ni = SPK_TILE / 2 * w; return 0;
    case SPK_TILE_HYB:
        for (int r = 0; r < rows; r++) coo -= rl[r] < w ? rl[r] : w;
        stored = p->defer ? 0 : coo;
        *nv = SPK_TILE * w + stored, *ni = SPK_TILE / 2 * w + stored;
        return coo - stored;
    case SPK_TILE_DNS: *nv = SPK_TILE * SPK_TILE, *ni = 0; return 0;
    default: *nv = SPK_TILE * w, *ni = w; return 0; /* DnsRow, DnsCol */
    }
}

/* The index bytes that precede a tile's entries (ix zeroed): CSR's row
 * offsets, DnsRow's full rows, DnsCol's full columns. */
static void tile_header(int kind, int rows, int cols, const unsigned char *rl, const unsigned char *cl,
                        unsigned char *ix)
{
    int off = 0;
    switch (kind) {
    case SPK_TILE_CSR:
        for (int r = 0; r < SPK_TILE; r++) {
            ix[r] = (unsigned char)off;
            off += r < rows ? rl[r] : 0;
        }
        break;
    case SPK_TILE_DNSROW:
        for (int r = 0, i = 0; r < rows; r++)
            if (rl[r] == cols) ix[i++] = (unsigned char)r;
        break;
    case SPK_TILE_DNSCOL:
        for (int c = 0, i = 0; c < cols; c++)
            if (cl[c] == rows) ix[i++] = (unsigned char)c;
        break;
    default: break;
    }
}

/* The state of one conversion; per-tile arrays are indexed by the tile
 * before deferral (fptr's numbering). */
typedef struct plan {
    const spk_csr *A;
    const spk_tile_params *p;
    int m, n, tm, tn;           /* rows, columns, tile rows, tile columns */
    int *fptr;                  /* tm + 1: the tiles of each tile row */
    int *mark, *pos;            /* per tile column: last tile row that met it, its tile */
    int *col;                   /* tile column */
    int *nnz;                   /* nonzeros */
    unsigned char *rl, *cl;     /* 16 row and 16 column counts per tile */
    unsigned char *kind, *w;    /* format and width */
    int *dst;                   /* index among the stored tiles, -1: dropped */
    int *seen, *cseen;          /* placement counters */
    long long nval, nidx, ndef; /* stored values and index bytes; deferred entries */
    int kept;                   /* stored tiles */
} plan;

static void plan_free(plan *P)
{
    free(P->fptr);
    free(P->mark);
    free(P->pos);
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

/* Rows of tile row tr, columns of tile t: short at the bottom and right edges. */
static int tile_rows(const plan *P, int tr)
{
    return P->m - tr * SPK_TILE < SPK_TILE ? P->m - tr * SPK_TILE : SPK_TILE;
}

static int tile_cols(const plan *P, int t)
{
    return P->n - P->col[t] * SPK_TILE < SPK_TILE ? P->n - P->col[t] * SPK_TILE : SPK_TILE;
}

/* Pass 1: fptr, the tiles (distinct tile columns) of each tile row. */
static int count_tiles(plan *P, spk_err *err)
{
    const spk_csr *A = P->A;
    P->mark = spk_malloc((size_t)P->tn, sizeof(int), "tile marks", err);
    P->pos = spk_malloc((size_t)P->tn, sizeof(int), "tile positions", err);
    P->fptr = spk_calloc((size_t)P->tm + 1, sizeof(int), "tile row pointers", err);
    if (!P->mark || !P->pos || !P->fptr) return SPK_ERR_NOMEM;
    for (int j = 0; j < P->tn; j++) P->mark[j] = -1;
    for (int tr = 0; tr < P->tm; tr++) {
        int cnt = 0, r1 = (tr + 1) * SPK_TILE < P->m ? (tr + 1) * SPK_TILE : P->m;
        for (int k = A->rowptr[tr * SPK_TILE]; k < A->rowptr[r1]; k++) {
            int tc = A->colind[k] / SPK_TILE;
            if (P->mark[tc] != tr) P->mark[tc] = tr, cnt++;
        }
        P->fptr[tr + 1] = P->fptr[tr] + cnt;
    }
    return SPK_OK;
}

static int plan_alloc(plan *P, spk_err *err)
{
    const size_t nt = (size_t)P->fptr[P->tm];
    P->col = spk_malloc(nt, sizeof(int), "tile columns", err);
    P->nnz = spk_calloc(nt, sizeof(int), "tile counts", err);
    P->rl = spk_calloc(nt, SPK_TILE, "tile row counts", err);
    P->cl = spk_calloc(nt, SPK_TILE, "tile column counts", err);
    P->kind = spk_malloc(nt, 1, "tile formats", err);
    P->w = spk_malloc(nt, 1, "tile widths", err);
    P->dst = spk_malloc(nt, sizeof(int), "tile numbers", err);
    P->seen = spk_calloc(nt, sizeof(int), "tile counters", err);
    P->cseen = spk_calloc(nt, sizeof(int), "tile counters", err);
    if (!P->col || !P->nnz || !P->rl || !P->cl || !P->kind || !P->w || !P->dst || !P->seen || !P->cseen)
        return SPK_ERR_NOMEM;
    return SPK_OK;
}

/* Pass 2: each tile row's tile columns in ascending order, and the nonzeros
 * of every tile with its counts per row and column. */
static void count_entries(plan *P)
{
    const spk_csr *A = P->A;
    for (int j = 0; j < P->tn; j++) P->mark[j] = -1;
    for (int tr = 0; tr < P->tm; tr++) {
        int base = P->fptr[tr], cnt = 0, r0 = tr * SPK_TILE, r1 = r0 + SPK_TILE < P->m ? r0 + SPK_TILE : P->m;
        for (int k = A->rowptr[r0]; k < A->rowptr[r1]; k++) {
            int tc = A->colind[k] / SPK_TILE;
            if (P->mark[tc] != tr) P->mark[tc] = tr, P->col[base + cnt++] = tc;
        }
        qsort(P->col + base, (size_t)cnt, sizeof(int), cmp_int);
        for (int j = 0; j < cnt; j++) P->pos[P->col[base + j]] = base + j;
        for (int i = r0; i < r1; i++)
            for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                int t = P->pos[A->colind[k] / SPK_TILE];
                P->nnz[t]++;
                P->rl[(size_t)t * SPK_TILE + (i - r0)]++;
                P->cl[(size_t)t * SPK_TILE + A->colind[k] % SPK_TILE]++;
            }
    }
}

/* Each tile's format by the selection rule, its width and size; the tiles
 * that keep values are numbered in order (dst), the others dropped. */
static void plan_formats(plan *P, spk_tile_stats *S)
{
    for (int tr = 0; tr < P->tm; tr++) {
        const int rows = tile_rows(P, tr);
        for (int t = P->fptr[tr]; t < P->fptr[tr + 1]; t++) {
            const int cols = tile_cols(P, t), k = P->nnz[t];
            const unsigned char *rl = P->rl + (size_t)t * SPK_TILE, *cl = P->cl + (size_t)t * SPK_TILE;
            const int kind = spk_tile_choose(P->p, rows, cols, k, rl, cl), w = tile_width(kind, rows, cols, rl, cl);
            long nv, ni, def = tile_size(P->p, kind, w, k, rows, rl, &nv, &ni);
            P->kind[t] = (unsigned char)kind;
            P->w[t] = (unsigned char)w;
            S->tiles[kind]++;
            S->nnz[kind] += k;
            P->ndef += def;
            if (nv == 0) {
                P->dst[t] = -1;
                S->dropped_tiles++;
                continue;
            }
            P->dst[t] = P->kept++;
            P->nval += nv;
            P->nidx += ni;
        }
    }
    S->deferred = P->ndef;
    S->stored = P->nval;
}

/* T's arrays for the planned tiles, and D for the deferred entries. */
static int alloc_tiles(const plan *P, spk_fmt_tile *T, spk_csr *D, spk_err *err)
{
    const size_t kept = (size_t)P->kept;
    T->ntiles = P->kept;
    T->nval = (int)P->nval;
    T->nidx = (int)P->nidx;
    T->tile_ptr = spk_calloc((size_t)P->tm + 1, sizeof(int), "tile row pointers", err);
    T->tile_col = spk_malloc(kept, sizeof(int), "tile columns", err);
    T->val_off = spk_malloc(kept + 1, sizeof(int), "tile value offsets", err);
    T->idx_off = spk_malloc(kept + 1, sizeof(int), "tile index offsets", err);
    T->kind = spk_malloc(kept, 1, "tile formats", err);
    T->width = spk_malloc(kept, 1, "tile widths", err);
    T->val = spk_calloc((size_t)P->nval, sizeof(double), "tile values", err);
    T->idx = spk_calloc((size_t)P->nidx, 1, "tile indices", err);
    if (!T->tile_ptr || !T->tile_col || !T->val_off || !T->idx_off || !T->kind || !T->width || !T->val ||
        !T->idx)
        return SPK_ERR_NOMEM;
    if (P->ndef > 0) {
        SPK_TRY(spk_csr_alloc(D, P->m, P->n, (int)P->ndef, err));
        memset(D->rowptr, 0, ((size_t)P->m + 1) * sizeof(int));
    }
    return SPK_OK;
}

/* Level 1 of the stored tiles (tile_ptr, tile_col, kind, width, offsets)
 * and each tile's index header. */
static void lay_out_tiles(const plan *P, spk_fmt_tile *T)
{
    T->val_off[0] = T->idx_off[0] = 0;
    for (int tr = 0; tr < P->tm; tr++) {
        const int rows = tile_rows(P, tr);
        T->tile_ptr[tr + 1] = T->tile_ptr[tr];
        for (int t = P->fptr[tr]; t < P->fptr[tr + 1]; t++) {
            const int d = P->dst[t];
            if (d < 0) continue;
            const int cols = tile_cols(P, t), kind = P->kind[t], w = P->w[t];
            const unsigned char *rl = P->rl + (size_t)t * SPK_TILE, *cl = P->cl + (size_t)t * SPK_TILE;
            long nv, ni;
            tile_size(P->p, kind, w, P->nnz[t], rows, rl, &nv, &ni);
            tile_header(kind, rows, cols, rl, cl, T->idx + T->idx_off[d]);
            T->tile_col[d] = P->col[t];
            T->kind[d] = (unsigned char)kind;
            T->width[d] = (unsigned char)w;
            T->val_off[d + 1] = T->val_off[d] + (int)nv;
            T->idx_off[d + 1] = T->idx_off[d] + (int)ni;
            T->tile_ptr[tr + 1]++;
        }
    }
}

/* Entry v at row r, column c of tile t (a tile row of `rows` rows; kpos: the
 * entry's rank among those of its row in the tile) into the tile's format. */
static void place_entry(plan *P, spk_fmt_tile *T, int t, int rows, int kpos, int r, int c, double v)
{
    const int kind = P->kind[t], w = P->w[t], d = P->dst[t], cols = tile_cols(P, t);
    const unsigned char *rl = P->rl + (size_t)t * SPK_TILE, *cl = P->cl + (size_t)t * SPK_TILE;
    double *tv = T->val + T->val_off[d];
    unsigned char *ix = T->idx + T->idx_off[d];
    int e;
    switch (kind) {
    case SPK_TILE_CSR:
        e = P->seen[t]++;
        tv[e] = v;
        place_nibble(ix + SPK_TILE, e, c);
        break;
    case SPK_TILE_COO:
        e = P->seen[t]++;
        tv[e] = v;
        ix[e] = (unsigned char)(r << 4 | c);
        break;
    case SPK_TILE_ELL:
    case SPK_TILE_HYB:
        if (kpos < w) {
            tv[kpos * SPK_TILE + r] = v;
            place_nibble(ix, (long)kpos * SPK_TILE + r, c);
        } else {
            e = P->cseen[t]++;
            tv[SPK_TILE * w + e] = v;
            ix[SPK_TILE / 2 * w + e] = (unsigned char)(r << 4 | c);
        }
        break;
    case SPK_TILE_DNS: tv[c * SPK_TILE + r] = v; break;
    case SPK_TILE_DNSROW: tv[full_rank(r, rl, cols) * SPK_TILE + c] = v; break;
    default: tv[full_rank(c, cl, rows) * SPK_TILE + r] = v; break;
    }
}

/* Pass 3: every nonzero into its tile, or, when deferred (all of a COO tile,
 * HYB's entries beyond the ELL width), into D in row order. */
static void place_entries(plan *P, spk_fmt_tile *T, spk_csr *D)
{
    const spk_csr *A = P->A;
    long long dq = 0;
    for (int tr = 0; tr < P->tm; tr++) {
        int r0 = tr * SPK_TILE, r1 = r0 + SPK_TILE < P->m ? r0 + SPK_TILE : P->m;
        for (int t = P->fptr[tr]; t < P->fptr[tr + 1]; t++) P->pos[P->col[t]] = t;
        for (int i = r0; i < r1; i++) {
            int prev = -1, kpos = 0;
            for (int q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
                int col = A->colind[q], t = P->pos[col / SPK_TILE], kind = P->kind[t];
                kpos = t == prev ? kpos + 1 : 0;
                prev = t;
                if (P->p->defer && (kind == SPK_TILE_COO || (kind == SPK_TILE_HYB && kpos >= P->w[t]))) {
                    D->rowptr[i + 1]++;
                    D->colind[dq] = col;
                    D->val[dq++] = A->val[q];
                    continue;
                }
                place_entry(P, T, t, r1 - r0, kpos, i - r0, col % SPK_TILE, A->val[q]);
            }
        }
    }
    if (P->ndef > 0)
        for (int i = 0; i < P->m; i++) D->rowptr[i + 1] += D->rowptr[i];
}

/* The work units: each tile row in runs of at most SPK_TILE_BALANCE tiles
 * (an empty tile row too gets one, which scales its y by beta); the tile
 * rows split over several units are listed in split_rows. */
static int build_units(spk_fmt_tile *T, spk_err *err)
{
    long long units = 0;
    for (int tr = 0; tr < T->tm; tr++) {
        int cnt = T->tile_ptr[tr + 1] - T->tile_ptr[tr];
        units += cnt > 0 ? (cnt + SPK_TILE_BALANCE - 1) / SPK_TILE_BALANCE : 1;
        T->nsplit += cnt > SPK_TILE_BALANCE;
    }
    T->nunits = (int)units;
    T->unit = spk_malloc((size_t)units * SPK_TILE_UNIT, sizeof(int), "tile work units", err);
    T->split_rows = spk_malloc((size_t)T->nsplit, sizeof(int), "split tile rows", err);
    if (!T->unit || !T->split_rows) return SPK_ERR_NOMEM;
    T->staged = 1;
    for (int tr = 0, u = 0, s = 0; tr < T->tm; tr++) {
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
    return SPK_OK;
}

/* The bytes of T's arrays and D's, and those of A as CSR. */
static void count_bytes(const plan *P, const spk_fmt_tile *T, spk_tile_stats *S)
{
    const size_t kept = (size_t)P->kept, m = (size_t)P->m;
    S->bytes = ((size_t)P->tm + 1 + (size_t)T->nunits * SPK_TILE_UNIT + (size_t)T->nsplit + kept * 3 + 2) * sizeof(int) +
               kept * 2 + (size_t)P->nval * sizeof(double) + (size_t)P->nidx;
    if (P->ndef > 0) S->bytes += (m + 1) * sizeof(int) + (size_t)P->ndef * (sizeof(int) + sizeof(double));
    S->csr_bytes = (m + 1) * sizeof(int) + (size_t)P->A->nnz * (sizeof(int) + sizeof(double));
}

int spk_tile_build(const spk_csr *A, const spk_tile_params *p, spk_fmt_tile *T, spk_csr *D, spk_err *err)
{
    memset(T, 0, sizeof *T);
    memset(D, 0, sizeof *D);
    plan P;
    memset(&P, 0, sizeof P);
    P.A = A;
    P.p = p;
    P.m = T->nrows = A->nrows;
    P.n = T->ncols = A->ncols;
    P.tm = T->tm = (A->nrows + SPK_TILE - 1) / SPK_TILE;
    P.tn = T->tn = (A->ncols + SPK_TILE - 1) / SPK_TILE;
    T->params = *p;
    int st;
    SPK_CHECK(st, count_tiles(&P, err));
    SPK_CHECK(st, plan_alloc(&P, err));
    count_entries(&P);
    plan_formats(&P, &T->stats);
    if (P.nval > INT_MAX || P.nidx > INT_MAX) {
        st = spk_err_set(err, SPK_ERR_UNSUPPORTED,
                         "tile formats refused: %lld stored values exceed the 32-bit offsets", P.nval);
        goto cleanup;
    }
    SPK_CHECK(st, spk_format_check_padding("tile", (size_t)P.nval, (size_t)A->nnz, P.m, err));
    SPK_CHECK(st, alloc_tiles(&P, T, D, err));
    lay_out_tiles(&P, T);
    place_entries(&P, T, D);
    SPK_CHECK(st, build_units(T, err));
    count_bytes(&P, T, &T->stats);
cleanup:
    plan_free(&P);
    if (st) {
        spk_tile_free(T);
        spk_csr_free(D);
    }
    return st;
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
