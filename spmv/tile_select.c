/* tile_select.c -- TileSpMV (tile.h): the format of one tile.
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
 * slot of 16 rows, 8 + 1 per COO entry). */
#include "tile_select.h"

#include <math.h>
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

/* The flow chart, given the row variation v as its comparisons with te and
 * th, and whether every row (rows_ok) and every column (cols_ok) is empty
 * or full. */
static int select_kind(const spk_tile_params *p, int rows, int cols, int nnz, int above_te, int above_th,
                       int rows_ok, int cols_ok)
{
    if (nnz < SPK_TILE_COO_NNZ && above_te) return SPK_TILE_COO;
    if (nnz == rows * cols) return SPK_TILE_DNS;
    if (rows_ok) return SPK_TILE_DNSROW;
    if (cols_ok) return SPK_TILE_DNSCOL;
    if (nnz >= SPK_TILE_DENSE * rows * cols) return SPK_TILE_DNS;
    if (!above_te) return SPK_TILE_ELL;
    if (above_th) return SPK_TILE_HYB;
    return SPK_TILE_CSR;
}

int spk_tile_choose(const spk_tile_params *p, int rows, int cols, int nnz, const unsigned char *rowlen,
                    const unsigned char *collen)
{
    if (!p->adaptive) return SPK_TILE_CSR;
    const double v = row_variation(rows, nnz, rowlen);
    return select_kind(p, rows, cols, nnz, v > p->te, v >= p->th, all_empty_or(rows, rowlen, cols),
                       all_empty_or(cols, collen, rows));
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

/* What the selection reads of a pattern (rows x cols positions). */
typedef struct pattern {
    int rows, cols, k, s2;         /* s2: the sum of squared row lengths */
    unsigned char rl[SPK_TILE];    /* row lengths, 0 for empty rows */
    unsigned full_rows, full_cols; /* bit masks (full_rows: only when rows_ok) */
    int rows_ok, cols_ok;          /* every row, every column empty or full */
} pattern;

static void read_pattern(const spk_tile_scan *x, int rows, int cols, pattern *t)
{
    const unsigned colmask = (1u << cols) - 1;
    int k = 0, s2 = 0;
    memcpy(t->rl, x->rl, sizeof t->rl);
    for (int r = 0; r < SPK_TILE; r++) k += t->rl[r], s2 += t->rl[r] * t->rl[r];
    t->rows = rows, t->cols = cols, t->k = k, t->s2 = s2;
    t->rows_ok = k == spk_tile_bits(x->rows) * cols; /* every row with entries is full */
    t->full_rows = t->rows_ok ? x->rows : 0;
    t->full_cols = 0, t->cols_ok = 0; /* with an empty row no column is full */
    if (x->rows == (1u << rows) - 1) {
        unsigned all = colmask, any = 0;
        for (int r = 0; r < rows; r++) all &= x->mask[r], any |= x->mask[r];
        t->full_cols = all, t->cols_ok = (any & ~all) == 0;
    }
}

/* row_variation's comparisons with te (bit 0) and th (bit 1).  With 16 rows
 * every term of its sum is exact (multiples of 1/256): the sum is
 * (16 sum l^2 - k^2) / 16 to the bit, and the result depends on k and
 * sum l^2 alone, kept in memo (1 + the bits; 0: not yet). */
static int variation_bits(const spk_tile_params *p, const pattern *t, unsigned char *memo)
{
    const int s2 = t->s2;
    double v;
    unsigned char *m = NULL;
    if (t->rows == SPK_TILE) {
        m = memo + (size_t)t->k * (SPK_TILE * SPK_TILE * SPK_TILE + 1) + (size_t)s2;
        if (*m) return *m - 1;
        const double mean = (double)t->k / SPK_TILE, var = (double)(SPK_TILE * s2 - t->k * t->k) / SPK_TILE;
        v = sqrt(var / SPK_TILE) / mean;
    } else {
        v = row_variation(t->rows, t->k, t->rl);
    }
    const int b = (v > p->te) | (v >= p->th) << 1;
    if (m) *m = (unsigned char)(b + 1);
    return b;
}

/* The width of a tile of format kind: ELL's longest row, HYB's cheapest ELL
 * width, DnsRow's full rows, DnsCol's full columns; 0 for the others. */
static int tile_width(int kind, const pattern *t)
{
    int m = 0;
    switch (kind) {
    case SPK_TILE_ELL:
        for (int r = 0; r < t->rows; r++) m = t->rl[r] > m ? t->rl[r] : m;
        return m;
    case SPK_TILE_HYB: return hyb_width(t->rows, t->rl);
    case SPK_TILE_DNSROW: return spk_tile_bits(t->full_rows);
    case SPK_TILE_DNSCOL: return spk_tile_bits(t->full_cols);
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

int spk_tile_dropped(const spk_tile_params *p, int kind, int w)
{
    return p->defer && (kind == SPK_TILE_COO || (kind == SPK_TILE_HYB && w == 0));
}

void spk_tile_select(const spk_tile_params *p, unsigned char *memo, const spk_tile_scan *x, int rows, int cols,
                     spk_tile_choice *c)
{
    pattern pt;
    read_pattern(x, rows, cols, &pt);
    c->kind = SPK_TILE_CSR;
    if (p->adaptive) {
        const int vb = variation_bits(p, &pt, memo);
        c->kind = select_kind(p, rows, cols, pt.k, vb & 1, vb >> 1, pt.rows_ok, pt.cols_ok);
    }
    c->w = tile_width(c->kind, &pt);
    c->k = pt.k;
    c->aux = c->kind == SPK_TILE_DNSROW ? pt.full_rows : pt.full_cols;
    c->def = tile_size(p, c->kind, c->w, pt.k, rows, pt.rl, &c->nv, &c->ni);
}

int spk_tile_single_entry(const spk_tile_scan *x, int rows, int cols)
{
    if (rows != SPK_TILE || cols < 2 || (x->rows & (x->rows - 1u)) != 0) return 0;
    const unsigned m = x->mask[spk_tile_lowest64(x->rows)];
    return (m & (m - 1u)) == 0;
}
