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
 * Conversion, a tile row at a time, a run of a row's entries in one tile
 * at a time: one pass finds the tiles (each row's new tile columns arrive
 * ascending: runs to merge, or marks in a bitmap) and each tile's pattern
 * (a column mask and a length per row), from which its format, width and
 * size follow; after the size checks a second pass places every nonzero
 * (entries of a tile arrive in row order because CSR rows are sorted); the
 * work units last. */
#include "tile.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Set bits of a 16-bit mask; below, the lowest set bit's position (x != 0). */
static int bits(unsigned x)
{
    x = x - (x >> 1 & 0x5555u);
    x = (x & 0x3333u) + (x >> 2 & 0x3333u);
    x = (x + (x >> 4)) & 0x0F0Fu;
    return (int)((x + (x >> 8)) & 0x1Fu);
}

static int lowest64(unsigned long long x)
{
#if defined(__GNUC__)
    return __builtin_ctzll(x);
#else
    int r = 0;
    while (!(x >> r & 1)) r++;
    return r;
#endif
}

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

static void place_nibble(unsigned char *b, unsigned q, unsigned c)
{
    b[q / 2] |= (unsigned char)(c << (q & 1) * 4);
}

/* One tile's pattern as pass 1 finds it: each row's columns as a bit mask
 * (set only for the rows in `rows`, the others are empty) and their count. */
typedef struct scan {
    unsigned short rows;
    unsigned short mask[SPK_TILE];
    unsigned char rl[SPK_TILE];
} scan;

/* What the selection reads of a pattern (rows x cols positions). */
typedef struct pattern {
    int rows, cols, k, s2;         /* s2: the sum of squared row lengths */
    unsigned char rl[SPK_TILE];    /* row lengths, 0 for empty rows */
    unsigned full_rows, full_cols; /* bit masks (full_rows: only when rows_ok) */
    int rows_ok, cols_ok;          /* every row, every column empty or full */
} pattern;

static void read_pattern(const scan *x, int rows, int cols, pattern *t)
{
    const unsigned colmask = (1u << cols) - 1;
    int k = 0, s2 = 0;
    memcpy(t->rl, x->rl, sizeof t->rl);
    for (int r = 0; r < SPK_TILE; r++) k += t->rl[r], s2 += t->rl[r] * t->rl[r];
    t->rows = rows, t->cols = cols, t->k = k, t->s2 = s2;
    t->rows_ok = k == bits(x->rows) * cols; /* every row with entries is full */
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
    case SPK_TILE_DNSROW: return bits(t->full_rows);
    case SPK_TILE_DNSCOL: return bits(t->full_cols);
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

/* A tile that keeps no values: all of it deferred. */
static int tile_dropped(const spk_tile_params *p, int kind, int w)
{
    return p->defer && (kind == SPK_TILE_COO || (kind == SPK_TILE_HYB && w == 0));
}

typedef struct slot {
    int tr, j; /* the last tile row that met this tile column, the tile's number there */
} slot;

/* What the selection makes of one tile. */
typedef struct choice {
    int kind, w, k;
    unsigned aux;     /* DnsRow: full rows, else full columns */
    long nv, ni, def; /* tile_size */
} choice;

/* Where the entries of one tile of a tile row go, and how many have
 * (kind SPK_TILE_NKINDS: a tile that deferral emptied, all of it to D). */
struct dest {
    double *v;
    unsigned char *ix;
    int kind, w;
    int seen, hdr;  /* entries placed (CSR, COO, HYB's COO part); CSR row offsets written */
    unsigned full;  /* DnsRow: the full rows, DnsCol: the full columns */
};

/* The deferred entries: D's arrays and the next free position. */
typedef struct sink {
    int *rowptr, *col;
    double *val;
    long long n;
} sink;

/* The state of one conversion.  Per tile (before deferral drops any) the
 * columns, formats and widths go straight to T's arrays (compacted at the
 * end), the offsets of the kept ones too; per tile row, scratch indexed by
 * the tile's number in the row. */
typedef struct plan {
    const spk_csr *A;
    const spk_tile_params *p;
    int m, n, tm, tn;
    slot *slot;                 /* tn */
    int local;                  /* most tiles in one tile row */
    scan *scan;                 /* the patterns of the tile row's tiles */
    unsigned char *memo;        /* variation_bits by nonzeros and squared row lengths */
    int *found, *merged;        /* the tile row's tile columns: as found, merge scratch */
    unsigned long long *bitmap; /* tn bits, zero between tile rows */
    struct dest *dest;          /* placement: where each tile of the tile row goes */
    int *fptr;                  /* tm + 1: tiles of each tile row (before deferral) */
    unsigned short *aux;        /* per tile: DnsRow's full rows, DnsCol's full columns */
    size_t cap;                 /* room in the per-tile arrays */
    int nt, kept;               /* tiles, stored tiles */
    long long nval, nidx, ndef; /* stored values and index bytes; deferred entries */
    choice single;              /* the choice for a single entry (k 0: not made yet) */
} plan;

static void plan_free(plan *P)
{
    free(P->slot);
    free(P->scan);
    free(P->memo);
    free(P->found);
    free(P->bitmap);
    free(P->merged);
    free(P->dest);
    free(P->fptr);
    free(P->aux);
}

static int plan_alloc(plan *P, spk_err *err)
{
    const spk_csr *A = P->A;
    for (int tr = 0; tr < P->tm; tr++) { /* a tile row has no more tiles than entries */
        const int r1 = (tr + 1) * SPK_TILE < P->m ? (tr + 1) * SPK_TILE : P->m;
        const int e = A->rowptr[r1] - A->rowptr[tr * SPK_TILE];
        P->local = e > P->local ? e : P->local;
    }
    P->local = P->local < P->tn ? P->local : P->tn;
    const size_t l = (size_t)P->local;
    P->slot = spk_malloc((size_t)P->tn, sizeof(slot), "tile marks", err);
    P->scan = spk_malloc(l, sizeof(scan), "tile patterns", err);
    P->memo = spk_calloc(SPK_TILE * SPK_TILE + 1, SPK_TILE * SPK_TILE * SPK_TILE + 1, "tile variations", err);
    P->found = spk_malloc(l, sizeof(int), "tile columns", err);
    P->bitmap = spk_calloc((size_t)P->tn / 64 + 1, sizeof(unsigned long long), "tile marks", err);
    P->merged = spk_malloc(l, sizeof(int), "tile columns", err);
    P->dest = spk_malloc(l, sizeof(struct dest), "tile counters", err);
    P->fptr = spk_malloc((size_t)P->tm + 1, sizeof(int), "tile row pointers", err);
    if (!P->slot || !P->scan || !P->memo || !P->found || !P->bitmap || !P->merged || !P->dest || !P->fptr)
        return SPK_ERR_NOMEM;
    for (int j = 0; j < P->tn; j++) P->slot[j].tr = -1;
    P->fptr[0] = 0;
    return SPK_OK;
}

/* Room for `need` tiles in the per-tile arrays (their size doubles). */
static int grow_tiles(plan *P, spk_fmt_tile *T, size_t need, spk_err *err)
{
    if (need <= P->cap) return SPK_OK;
    size_t cap = P->cap ? 2 * P->cap : 1024;
    while (cap < need) cap *= 2;
    void *q;
#define GROW(F, SIZE, WHAT)                                                                                 \
    if (!(q = realloc(F, (cap + 1) * (SIZE))))                                                              \
        return spk_err_set(err, SPK_ERR_NOMEM, "out of host memory (%zu bytes for %s)", (cap + 1) * (SIZE), \
                           WHAT);                                                                           \
    F = q;
    GROW(T->tile_col, sizeof(int), "tile columns")
    GROW(T->kind, 1, "tile formats")
    GROW(T->width, 1, "tile widths")
    GROW(P->aux, sizeof(unsigned short), "tile patterns")
    GROW(T->val_off, sizeof(int), "tile value offsets")
    GROW(T->idx_off, sizeof(int), "tile index offsets")
#undef GROW
    P->cap = cap;
    return SPK_OK;
}

/* The tiles of tile row tr as found, row by row (each row's new tile columns
 * ascending: the runs run[0..*nr]), with their patterns; returns the count. */
static int find_tiles(plan *P, int tr, int *run, int *nr, int *lo, int *hi)
{
    const int *rowptr = P->A->rowptr, *colind = P->A->colind;
    slot *const sl = P->slot;
    scan *const sc = P->scan;
    int *const found = P->found;
    const int r0 = tr * SPK_TILE, rows = P->m - r0 < SPK_TILE ? P->m - r0 : SPK_TILE;
    int cnt = 0, n = 0, l = *lo, h = *hi;
    run[0] = 0;
    for (int r = 0; r < rows; r++) {
        const int end = rowptr[r0 + r + 1];
        for (int q = rowptr[r0 + r]; q < end;) { /* a run of the row's entries in one tile */
            const unsigned tc = (unsigned)colind[q] / SPK_TILE;
            unsigned m = 1u << (unsigned)colind[q] % SPK_TILE;
            int e = q + 1;
            for (; e < end && (unsigned)colind[e] / SPK_TILE == tc; e++) m |= 1u << (unsigned)colind[e] % SPK_TILE;
            slot *s = sl + tc;
            if (s->tr != tr) {
                s->tr = tr, s->j = cnt;
                found[cnt] = (int)tc;
                l = (int)tc < l ? (int)tc : l;
                h = (int)tc > h ? (int)tc : h;
                sc[cnt].rows = 0;
                memset(sc[cnt++].rl, 0, SPK_TILE);
            }
            scan *x = sc + s->j;
            x->rows |= (unsigned short)(1u << r);
            x->mask[r] = (unsigned short)m;
            x->rl[r] = (unsigned char)(e - q);
            q = e;
        }
        if (cnt > run[n]) run[++n] = cnt;
    }
    *nr = n, *lo = l, *hi = h;
    return cnt;
}

/* The tile row's cnt tile columns P->found (ascending runs found[run[i]..
 * run[i+1]), i < nr, between lo and hi) into ascending out: through a bitmap
 * when their range is narrow, else by merging the runs pairwise. */
static void sort_tiles(plan *P, int cnt, int *run, int nr, int lo, int hi, int *out)
{
    if (nr <= 1) {
        memcpy(out, P->found, (size_t)cnt * sizeof(int));
        return;
    }
    if (hi / 64 - lo / 64 < 2 * cnt) {
        unsigned long long *b = P->bitmap;
        for (int i = 0; i < cnt; i++) b[P->found[i] / 64] |= 1ull << P->found[i] % 64;
        for (int w = lo / 64, n = 0; w <= hi / 64; w++) {
            unsigned long long x = b[w];
            for (b[w] = 0; x; x &= x - 1) out[n++] = w * 64 + lowest64(x);
        }
        return;
    }
    int *src = P->found, *dst = P->merged;
    while (nr > 1) {
        int n = 0;
        for (int i = 0; i < nr; i += 2) {
            int x = run[i], xe = run[i + 1], y = xe, ye = i + 2 <= nr ? run[i + 2] : xe, o = run[i];
            while (x < xe && y < ye) {
                const int a = src[x], c = src[y], first = a < c;
                dst[o++] = first ? a : c;
                x += first, y += !first;
            }
            while (x < xe) dst[o++] = src[x++];
            while (y < ye) dst[o++] = src[y++];
            run[n++] = run[i];
        }
        run[n] = run[nr];
        nr = n;
        int *t = src;
        src = dst, dst = t;
    }
    memcpy(out, src, (size_t)cnt * sizeof(int));
}

/* The format, width and size of the tile with pattern x (rows x cols). */
static void choose(const plan *P, const scan *x, int rows, int cols, choice *c)
{
    pattern pt;
    read_pattern(x, rows, cols, &pt);
    c->kind = SPK_TILE_CSR;
    if (P->p->adaptive) {
        const int vb = variation_bits(P->p, &pt, P->memo);
        c->kind = select_kind(P->p, rows, cols, pt.k, vb & 1, vb >> 1, pt.rows_ok, pt.cols_ok);
    }
    c->w = tile_width(c->kind, &pt);
    c->k = pt.k;
    c->aux = c->kind == SPK_TILE_DNSROW ? pt.full_rows : pt.full_cols;
    c->def = tile_size(P->p, c->kind, c->w, pt.k, rows, pt.rl, &c->nv, &c->ni);
}

/* A tile of 16 rows and >= 2 columns with a single entry: its choice does
 * not depend on where the entry is (found once, in P->single). */
static int single_entry(const scan *x, int rows, int cols)
{
    if (rows != SPK_TILE || cols < 2 || (x->rows & (x->rows - 1u)) != 0) return 0;
    const unsigned m = x->mask[lowest64(x->rows)];
    return (m & (m - 1u)) == 0;
}

/* Plan tile row tr: its tiles in ascending column order appended to T's
 * per-tile arrays, each with its format, width and size (offsets of the
 * kept ones), and the statistics. */
static int plan_tile_row(plan *P, spk_fmt_tile *T, int tr, spk_tile_stats *S, spk_err *err)
{
    int run[SPK_TILE + 1], nr, lo = P->tn, hi = -1;
    const int cnt = find_tiles(P, tr, run, &nr, &lo, &hi), t0 = P->nt;
    const int rows = P->m - tr * SPK_TILE < SPK_TILE ? P->m - tr * SPK_TILE : SPK_TILE;
    SPK_TRY(grow_tiles(P, T, (size_t)t0 + (size_t)cnt, err));
    sort_tiles(P, cnt, run, nr, lo, hi, T->tile_col + t0);
    for (int t = t0; t < t0 + cnt; t++) {
        const int tc = T->tile_col[t], cols = P->n - tc * SPK_TILE < SPK_TILE ? P->n - tc * SPK_TILE : SPK_TILE;
        const scan *x = P->scan + P->slot[tc].j;
        choice one;
        const choice *c = &one;
        if (!single_entry(x, rows, cols)) {
            choose(P, x, rows, cols, &one);
        } else {
            if (P->single.k == 0) choose(P, x, rows, cols, &P->single);
            c = &P->single;
        }
        T->kind[t] = (unsigned char)c->kind;
        T->width[t] = (unsigned char)c->w;
        P->aux[t] = (unsigned short)c->aux;
        S->tiles[c->kind]++;
        S->nnz[c->kind] += c->k;
        P->ndef += c->def;
        if (c->nv == 0) {
            S->dropped_tiles++;
            continue;
        }
        P->nval += c->nv;
        P->nidx += c->ni;
        const int d = P->kept++; /* offsets past INT_MAX are refused later */
        T->val_off[d + 1] = P->nval <= INT_MAX ? (int)P->nval : 0;
        T->idx_off[d + 1] = P->nidx <= INT_MAX ? (int)P->nidx : 0;
    }
    P->nt = t0 + cnt;
    P->fptr[tr + 1] = P->nt;
    return SPK_OK;
}

/* Entries [q, e) of row i to D. */
static void defer_entries(sink *D, const int *colind, const double *val, int q, int e, int i)
{
    D->rowptr[i + 1] += e - q;
    memcpy(D->col + D->n, colind + q, (size_t)(e - q) * sizeof(int));
    memcpy(D->val + D->n, val + q, (size_t)(e - q) * sizeof(double));
    D->n += e - q;
}

/* The COO entries [q, e) of row i (row r in the tile o, after an ELL part
 * of width ew): to D with defer, else after the tile's ELL part. */
static void place_coo(struct dest *o, const int *restrict colind, const double *restrict val, int q, int e, int i,
                      int r, int ew, int defer, sink *D)
{
    if (defer) {
        if (q < e) defer_entries(D, colind, val, q, e, i);
        return;
    }
    double *restrict const tv = o->v + SPK_TILE * ew;
    unsigned char *restrict const ix = o->ix + SPK_TILE / 2 * ew;
    int s = o->seen;
    for (; q < e; q++, s++) {
        tv[s] = val[q];
        ix[s] = (unsigned char)(r << 4 | colind[q] % SPK_TILE);
    }
    o->seen = s;
}

/* Entries [q, e) of row i (row r of its tile row), all in tile o, into the
 * tile's format; HYB's (with defer) beyond the ELL width to D. */
static void place_run(struct dest *o, const int *restrict colind, const double *restrict val, int q, int e, int i,
                      int r, int defer, sink *D)
{
    double *restrict const tv = o->v;
    unsigned char *restrict const ix = o->ix;
    int s = o->seen, ew;
    switch (o->kind) {
    case SPK_TILE_CSR:
        if (o->hdr == r) /* the row offsets up to this row (most often just this one) */
            ix[r] = (unsigned char)s;
        else
            memset(ix + o->hdr, s, (size_t)(r + 1 - o->hdr));
        o->hdr = r + 1;
        o->seen = s + (e - q);
        if (s & 1) { /* the columns, two to a byte (a byte not begun is still 0) */
            tv[s] = val[q];
            ix[SPK_TILE + s / 2] |= (unsigned char)(colind[q++] % SPK_TILE << 4), s++;
        }
        for (; q + 1 < e; q += 2, s += 2) {
            tv[s] = val[q], tv[s + 1] = val[q + 1];
            ix[SPK_TILE + s / 2] = (unsigned char)(colind[q] % SPK_TILE | colind[q + 1] % SPK_TILE << 4);
        }
        if (q < e) tv[s] = val[q], ix[SPK_TILE + s / 2] = (unsigned char)(colind[q] % SPK_TILE);
        return;
    case SPK_TILE_ELL: /* the width is the longest row */
        for (unsigned k = (unsigned)r; q < e; q++, k += SPK_TILE) {
            tv[k] = val[q];
            place_nibble(ix, k, (unsigned)colind[q] % SPK_TILE);
        }
        return;
    case SPK_TILE_HYB:
        ew = o->w;
        for (unsigned k = (unsigned)r; q < e && k < (unsigned)(ew * SPK_TILE); q++, k += SPK_TILE) {
            tv[k] = val[q];
            place_nibble(ix, k, (unsigned)colind[q] % SPK_TILE);
        }
        place_coo(o, colind, val, q, e, i, r, ew, defer, D);
        return;
    case SPK_TILE_COO:
        place_coo(o, colind, val, q, e, i, r, 0, defer, D);
        return;
    case SPK_TILE_DNS:
        for (; q < e; q++) tv[colind[q] % SPK_TILE * SPK_TILE + r] = val[q];
        return;
    case SPK_TILE_DNSROW: {
        double *row = tv + bits(o->full & ((1u << r) - 1)) * SPK_TILE;
        for (; q < e; q++) row[colind[q] % SPK_TILE] = val[q];
        return;
    }
    default: /* DnsCol */
        for (; q < e; q++) {
            const int c = colind[q] % SPK_TILE;
            tv[bits(o->full & ((1u << c) - 1)) * SPK_TILE + r] = val[q];
        }
        return;
    }
}

/* Pass 2 for tile row tr: every nonzero into its tile (a run of a row's
 * entries at a time) or D, the index headers; *d: stored tiles before it. */
static void place_tile_row(plan *P, spk_fmt_tile *T, sink *D, int tr, int *d)
{
    const int *rowptr = P->A->rowptr, *colind = P->A->colind, defer = P->p->defer;
    const double *val = P->A->val;
    const slot *sl = P->slot;
    struct dest *const dst = P->dest;
    const int t0 = P->fptr[tr], cnt = P->fptr[tr + 1] - t0, r0 = tr * SPK_TILE;
    const int rows = P->m - r0 < SPK_TILE ? P->m - r0 : SPK_TILE;
    int k = *d;
    for (int j = 0; j < cnt; j++) {
        const int t = t0 + j, kind = T->kind[t];
        struct dest *o = dst + j;
        P->slot[T->tile_col[t]].j = j;
        o->kind = kind, o->w = T->width[t], o->seen = o->hdr = 0, o->full = P->aux[t];
        o->v = T->val, o->ix = T->idx;
        if (tile_dropped(P->p, kind, o->w)) {
            o->kind = SPK_TILE_NKINDS; /* every entry goes to D */
            continue;
        }
        o->v += T->val_off[k];
        o->ix += T->idx_off[k++];
        if (kind == SPK_TILE_DNSROW || kind == SPK_TILE_DNSCOL) /* the full rows or columns */
            for (int b = 0, n = 0; b < SPK_TILE; b++)
                if (o->full >> b & 1) o->ix[n++] = (unsigned char)b;
    }
    *d = k;
    for (int r = 0; r < rows; r++) {
        const int i = r0 + r, end = rowptr[i + 1];
        int ds = rowptr[i], de = ds; /* entries for D from emptied tiles, copied a stretch at a time */
        for (int q = rowptr[i]; q < end;) {
            const unsigned tc = (unsigned)colind[q] / SPK_TILE;
            int e = q + 1;
            while (e < end && (unsigned)colind[e] / SPK_TILE == tc) e++;
            struct dest *o = dst + sl[tc].j;
            if (o->kind == SPK_TILE_NKINDS) {
                if (de != q) defer_entries(D, colind, val, ds, de, i), ds = q;
                de = e;
            } else {
                if (de > ds) defer_entries(D, colind, val, ds, de, i), ds = de;
                place_run(o, colind, val, q, e, i, r, defer, D);
            }
            q = e;
        }
        if (de > ds) defer_entries(D, colind, val, ds, de, i);
    }
    for (int j = 0; j < cnt; j++) /* CSR: the offsets of the rows after the last one with entries */
        if (dst[j].kind == SPK_TILE_CSR) memset(dst[j].ix + dst[j].hdr, dst[j].seen, (size_t)(SPK_TILE - dst[j].hdr));
}

/* Drop the tiles that deferral emptied from T's per-tile arrays, and the
 * tile row pointers of those stored. */
static void compact_tiles(plan *P, spk_fmt_tile *T)
{
    if (P->kept == P->nt) {
        memcpy(T->tile_ptr, P->fptr, ((size_t)P->tm + 1) * sizeof(int));
        return;
    }
    T->tile_ptr[0] = 0;
    for (int tr = 0, d = 0; tr < P->tm; tr++) {
        for (int t = P->fptr[tr]; t < P->fptr[tr + 1]; t++) {
            if (tile_dropped(P->p, T->kind[t], T->width[t])) continue;
            T->tile_col[d] = T->tile_col[t];
            T->kind[d] = T->kind[t];
            T->width[d++] = T->width[t];
        }
        T->tile_ptr[tr + 1] = d;
    }
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

/* T's value and index arrays, its tile row pointers, and D for the deferred entries. */
static int alloc_tiles(const plan *P, spk_fmt_tile *T, spk_csr *D, spk_err *err)
{
    T->ntiles = P->kept;
    T->nval = (int)P->nval;
    T->nidx = (int)P->nidx;
    T->tile_ptr = spk_malloc((size_t)P->tm + 1, sizeof(int), "tile row pointers", err);
    T->val = spk_calloc((size_t)P->nval, sizeof(double), "tile values", err);
    T->idx = spk_calloc((size_t)P->nidx, 1, "tile indices", err);
    if (!T->tile_ptr || !T->val || !T->idx) return SPK_ERR_NOMEM;
    if (P->ndef > 0) {
        SPK_TRY(spk_csr_alloc(D, P->m, P->n, (int)P->ndef, err));
        memset(D->rowptr, 0, ((size_t)P->m + 1) * sizeof(int));
    }
    return SPK_OK;
}

/* The per-tile arrays cut to the stored tiles (they grew by doubling); a
 * failed shrink keeps the larger block. */
static void shrink_tiles(spk_fmt_tile *T)
{
    const size_t n = (size_t)T->ntiles;
    void *q;
    if ((q = realloc(T->tile_col, (n + 1) * sizeof(int)))) T->tile_col = q;
    if ((q = realloc(T->kind, n + 1))) T->kind = q;
    if ((q = realloc(T->width, n + 1))) T->width = q;
    if ((q = realloc(T->val_off, (n + 1) * sizeof(int)))) T->val_off = q;
    if ((q = realloc(T->idx_off, (n + 1) * sizeof(int)))) T->idx_off = q;
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
    SPK_CHECK(st, plan_alloc(&P, err));
    SPK_CHECK(st, grow_tiles(&P, T, 1, err));
    T->val_off[0] = T->idx_off[0] = 0;
    for (int tr = 0; tr < P.tm; tr++) SPK_CHECK(st, plan_tile_row(&P, T, tr, &T->stats, err));
    T->stats.deferred = P.ndef;
    T->stats.stored = P.nval;
    if (P.nval > INT_MAX || P.nidx > INT_MAX) {
        st = spk_err_set(err, SPK_ERR_UNSUPPORTED,
                         "tile formats refused: %lld stored values exceed the 32-bit offsets", P.nval);
        goto cleanup;
    }
    SPK_CHECK(st, spk_format_check_padding("tile", (size_t)P.nval, (size_t)A->nnz, P.m, err));
    SPK_CHECK(st, alloc_tiles(&P, T, D, err));
    sink out = {D->rowptr, D->colind, D->val, 0};
    for (int tr = 0, d = 0; tr < P.tm; tr++) place_tile_row(&P, T, &out, tr, &d);
    if (P.ndef > 0)
        for (int i = 0; i < P.m; i++) D->rowptr[i + 1] += D->rowptr[i];
    compact_tiles(&P, T);
    shrink_tiles(T);
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
