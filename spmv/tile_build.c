/* tile_build.c -- TileSpMV (tile.h): the conversion of CSR to 16 x 16 tiles
 * with a format per tile (each tile's format: tile_select.c).
 *
 * Conversion, a tile row at a time, a run of a row's entries in one tile
 * at a time: one pass finds the tiles (each row's new tile columns arrive
 * ascending: runs to merge, or marks in a bitmap) and each tile's pattern
 * (a column mask and a length per row), from which its format, width and
 * size follow; after the size checks a second pass places every nonzero
 * (entries of a tile arrive in row order because CSR rows are sorted); the
 * work units last.
 *
 * On the host's threads the tile rows are cut into parts of about equal
 * entries, one a thread, each with its own scratch: the parts plan side by
 * side, their tiles go to their places in T's arrays (a prefix of their
 * counts), and they place their entries side by side.  Each tile row is
 * planned and placed as one thread would, so T is the same to the bit for
 * any thread count. */
#include "tile.h"
#include "tile_select.h"

#include "core/parallel.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void place_nibble(unsigned char *b, unsigned q, unsigned c)
{
    b[q / 2] |= (unsigned char)(c << (q & 1) * 4);
}

typedef struct slot {
    int tr, j; /* the last tile row that met this tile column, the tile's number there */
} slot;

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

/* Counts of a part of the conversion, and of the whole. */
typedef struct sums {
    int nt, kept;               /* tiles, stored tiles */
    long long nval, nidx, ndef; /* stored values and index bytes; deferred entries */
} sums;

/* One part of a conversion: a range of tile rows, planned and placed by one
 * thread.  Per tile (before deferral drops any) the columns, formats and
 * widths go to the part's own arrays (own), the offsets of the kept ones
 * too, then to T's at the part's place; per tile row, scratch indexed by the
 * tile's number in the row. */
typedef struct plan {
    const spk_csr *A;
    const spk_tile_params *p;
    int m, n, tm, tn;
    int tr0, tr1;               /* its tile rows */
    slot *slot;                 /* tn */
    int local;                  /* most tiles in one of its tile rows */
    spk_tile_scan *scan;        /* the patterns of the tile row's tiles */
    unsigned char *memo;        /* the selection's memo (SPK_TILE_MEMO_BYTES) */
    int *found, *merged;        /* the tile row's tile columns: as found, merge scratch */
    unsigned long long *bitmap; /* tn bits, zero between tile rows */
    struct dest *dest;          /* placement: where each tile of the tile row goes */
    int *fptr;                  /* the whole's tm + 1: tiles of each tile row (before deferral;
                                   counted from the part's first while it plans) */
    spk_fmt_tile own;           /* its per-tile arrays while it plans */
    unsigned short *aux;        /* per tile: DnsRow's full rows, DnsCol's full columns */
    size_t cap;                 /* room in the per-tile arrays */
    sums s, at;                 /* its counts; the parts' before it */
    spk_tile_stats stats;
    spk_tile_choice single;     /* the choice for a single entry (k 0: not made yet) */
    int st;                     /* its failure, described in err */
    spk_err err;
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
    free(P->own.tile_col);
    free(P->own.kind);
    free(P->own.width);
    free(P->own.val_off);
    free(P->own.idx_off);
    free(P->aux);
}

static int plan_alloc(plan *P, spk_err *err)
{
    const spk_csr *A = P->A;
    P->local = 1;
    for (int tr = P->tr0; tr < P->tr1; tr++) { /* a tile row has no more tiles than entries */
        const int r1 = (tr + 1) * SPK_TILE < P->m ? (tr + 1) * SPK_TILE : P->m;
        const int e = A->rowptr[r1] - A->rowptr[tr * SPK_TILE];
        P->local = e > P->local ? e : P->local;
    }
    P->local = P->local < P->tn ? P->local : P->tn;
    const size_t l = (size_t)P->local;
    P->slot = spk_malloc((size_t)P->tn, sizeof(slot), "tile marks", err);
    P->scan = spk_malloc(l, sizeof(spk_tile_scan), "tile patterns", err);
    P->memo = spk_calloc(SPK_TILE_MEMO_BYTES, 1, "tile variations", err);
    P->found = spk_malloc(l, sizeof(int), "tile columns", err);
    P->bitmap = spk_calloc((size_t)P->tn / 64 + 1, sizeof(unsigned long long), "tile marks", err);
    P->merged = spk_malloc(l, sizeof(int), "tile columns", err);
    P->dest = spk_malloc(l, sizeof(struct dest), "tile counters", err);
    if (!P->slot || !P->scan || !P->memo || !P->found || !P->bitmap || !P->merged || !P->dest)
        return SPK_ERR_NOMEM;
    for (int j = 0; j < P->tn; j++) P->slot[j].tr = -1;
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
    spk_tile_scan *const sc = P->scan;
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
            spk_tile_scan *x = sc + s->j;
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
            for (b[w] = 0; x; x &= x - 1) out[n++] = w * 64 + spk_tile_lowest64(x);
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

/* Plan tile row tr: its tiles in ascending column order appended to T's
 * per-tile arrays, each with its format, width and size (offsets of the
 * kept ones), and the statistics. */
static int plan_tile_row(plan *P, spk_fmt_tile *T, int tr, spk_tile_stats *S, spk_err *err)
{
    int run[SPK_TILE + 1], nr, lo = P->tn, hi = -1;
    const int cnt = find_tiles(P, tr, run, &nr, &lo, &hi), t0 = P->s.nt;
    const int rows = P->m - tr * SPK_TILE < SPK_TILE ? P->m - tr * SPK_TILE : SPK_TILE;
    SPK_TRY(grow_tiles(P, T, (size_t)t0 + (size_t)cnt, err));
    sort_tiles(P, cnt, run, nr, lo, hi, T->tile_col + t0);
    for (int t = t0; t < t0 + cnt; t++) {
        const int tc = T->tile_col[t], cols = P->n - tc * SPK_TILE < SPK_TILE ? P->n - tc * SPK_TILE : SPK_TILE;
        const spk_tile_scan *x = P->scan + P->slot[tc].j;
        spk_tile_choice one;
        const spk_tile_choice *c = &one;
        if (!spk_tile_single_entry(x, rows, cols)) {
            spk_tile_select(P->p, P->memo, x, rows, cols, &one);
        } else {
            if (P->single.k == 0) spk_tile_select(P->p, P->memo, x, rows, cols, &P->single);
            c = &P->single;
        }
        T->kind[t] = (unsigned char)c->kind;
        T->width[t] = (unsigned char)c->w;
        P->aux[t] = (unsigned short)c->aux;
        S->tiles[c->kind]++;
        S->nnz[c->kind] += c->k;
        P->s.ndef += c->def;
        if (c->nv == 0) {
            S->dropped_tiles++;
            continue;
        }
        P->s.nval += c->nv;
        P->s.nidx += c->ni;
        const int d = P->s.kept++; /* offsets past INT_MAX are refused later */
        T->val_off[d + 1] = P->s.nval <= INT_MAX ? (int)P->s.nval : 0;
        T->idx_off[d + 1] = P->s.nidx <= INT_MAX ? (int)P->s.nidx : 0;
    }
    P->s.nt = t0 + cnt;
    P->fptr[tr + 1] = P->s.nt;
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
        double *row = tv + spk_tile_bits(o->full & ((1u << r) - 1)) * SPK_TILE;
        for (; q < e; q++) row[colind[q] % SPK_TILE] = val[q];
        return;
    }
    default: /* DnsCol */
        for (; q < e; q++) {
            const int c = colind[q] % SPK_TILE;
            tv[spk_tile_bits(o->full & ((1u << c) - 1)) * SPK_TILE + r] = val[q];
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
        if (spk_tile_dropped(P->p, kind, o->w)) {
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
static void compact_tiles(const spk_tile_params *p, const int *fptr, const sums *w, spk_fmt_tile *T)
{
    if (w->kept == w->nt) {
        memcpy(T->tile_ptr, fptr, ((size_t)T->tm + 1) * sizeof(int));
        return;
    }
    T->tile_ptr[0] = 0;
    for (int tr = 0, d = 0; tr < T->tm; tr++) {
        for (int t = fptr[tr]; t < fptr[tr + 1]; t++) {
            if (spk_tile_dropped(p, T->kind[t], T->width[t])) continue;
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
static void count_bytes(const spk_csr *A, const sums *w, const spk_fmt_tile *T, spk_tile_stats *S)
{
    const size_t kept = (size_t)w->kept, m = (size_t)A->nrows;
    S->bytes = ((size_t)T->tm + 1 + (size_t)T->nunits * SPK_TILE_UNIT + (size_t)T->nsplit + kept * 3 + 2) * sizeof(int) +
               kept * 2 + (size_t)w->nval * sizeof(double) + (size_t)w->nidx;
    if (w->ndef > 0) S->bytes += (m + 1) * sizeof(int) + (size_t)w->ndef * (sizeof(int) + sizeof(double));
    S->csr_bytes = (m + 1) * sizeof(int) + (size_t)A->nnz * (sizeof(int) + sizeof(double));
}

/* T's arrays for w's tiles (its per-tile ones at their final size before
 * compact_tiles) and D for the deferred entries. */
static int alloc_tiles(const sums *w, spk_fmt_tile *T, spk_csr *D, spk_err *err)
{
    const size_t nt = (size_t)w->nt + 1, kept = (size_t)w->kept + 1;
    T->ntiles = w->kept;
    T->nval = (int)w->nval;
    T->nidx = (int)w->nidx;
    T->tile_ptr = spk_malloc((size_t)T->tm + 1, sizeof(int), "tile row pointers", err);
    T->tile_col = spk_malloc(nt, sizeof(int), "tile columns", err);
    T->kind = spk_malloc(nt, 1, "tile formats", err);
    T->width = spk_malloc(nt, 1, "tile widths", err);
    T->val_off = spk_malloc(kept, sizeof(int), "tile value offsets", err);
    T->idx_off = spk_malloc(kept, sizeof(int), "tile index offsets", err);
    T->val = spk_calloc((size_t)w->nval, sizeof(double), "tile values", err);
    T->idx = spk_calloc((size_t)w->nidx, 1, "tile indices", err);
    if (!T->tile_ptr || !T->tile_col || !T->kind || !T->width || !T->val_off || !T->idx_off || !T->val || !T->idx)
        return SPK_ERR_NOMEM;
    T->val_off[0] = T->idx_off[0] = 0;
    if (w->ndef > 0) {
        SPK_TRY(spk_csr_alloc(D, T->nrows, T->ncols, (int)w->ndef, err));
        memset(D->rowptr, 0, ((size_t)T->nrows + 1) * sizeof(int));
    }
    return SPK_OK;
}

/* The per-tile arrays cut to the stored tiles; a failed shrink keeps the
 * larger block. */
static void shrink_tiles(spk_fmt_tile *T)
{
    const size_t n = (size_t)T->ntiles;
    void *q;
    if ((q = realloc(T->tile_col, (n + 1) * sizeof(int)))) T->tile_col = q;
    if ((q = realloc(T->kind, n + 1))) T->kind = q;
    if ((q = realloc(T->width, n + 1))) T->width = q;
}

/* Plan the part's tile rows (one thread; a failure in P->st, P->err). */
static void plan_part(plan *P)
{
    P->st = plan_alloc(P, &P->err);
    if (!P->st) P->st = grow_tiles(P, &P->own, 1, &P->err);
    if (P->st) return;
    P->own.val_off[0] = P->own.idx_off[0] = 0;
    for (int tr = P->tr0; tr < P->tr1 && !P->st; tr++) P->st = plan_tile_row(P, &P->own, tr, &P->stats, &P->err);
}

/* The part's planned tiles to their place in T's arrays (and aux), its
 * offsets moved past the parts before it. */
static void merge_part(plan *P, spk_fmt_tile *T, unsigned short *aux)
{
    const size_t t0 = (size_t)P->at.nt, n = (size_t)P->s.nt;
    memcpy(T->tile_col + t0, P->own.tile_col, n * sizeof(int));
    memcpy(T->kind + t0, P->own.kind, n);
    memcpy(T->width + t0, P->own.width, n);
    memcpy(aux + t0, P->aux, n * sizeof(unsigned short));
    for (int d = 1; d <= P->s.kept; d++) {
        T->val_off[P->at.kept + d] = (int)(P->at.nval + P->own.val_off[d]);
        T->idx_off[P->at.kept + d] = (int)(P->at.nidx + P->own.idx_off[d]);
    }
}

/* The parts: tile rows in np ranges of about equal entries. */
static int split_parts(const spk_csr *A, int tm, plan *P, int np)
{
    const long long nnz = A->nnz;
    for (int c = 0, tr = 0; c < np; c++) {
        P[c].tr0 = tr;
        const long long want = nnz * (c + 1) / np;
        int lo = tr, hi = tm; /* the first tile row that starts at or after want's entry */
        while (lo < hi) {
            const int mid = lo + (hi - lo) / 2;
            const int r = mid * SPK_TILE < A->nrows ? mid * SPK_TILE : A->nrows;
            if (A->rowptr[r] >= want) hi = mid; else lo = mid + 1;
        }
        tr = c == np - 1 ? tm : lo;
        P[c].tr1 = tr;
    }
    return np;
}

/* Sum the parts' counts and statistics into w and S, each part's place
 * (at) among them; the first failure, or the size checks'. */
static int sum_parts(plan *P, int np, const spk_csr *A, sums *w, spk_tile_stats *S, spk_err *err)
{
    for (int c = 0; c < np; c++)
        if (P[c].st) {
            *err = P[c].err;
            return P[c].st;
        }
    memset(w, 0, sizeof *w);
    for (int c = 0; c < np; c++) {
        P[c].at = *w;
        w->nt += P[c].s.nt;
        w->kept += P[c].s.kept;
        w->nval += P[c].s.nval;
        w->nidx += P[c].s.nidx;
        w->ndef += P[c].s.ndef;
        for (int k = 0; k < SPK_TILE_NKINDS; k++) {
            S->tiles[k] += P[c].stats.tiles[k];
            S->nnz[k] += P[c].stats.nnz[k];
        }
        S->dropped_tiles += P[c].stats.dropped_tiles;
    }
    S->deferred = w->ndef;
    S->stored = w->nval;
    if (w->nval > INT_MAX || w->nidx > INT_MAX)
        return spk_err_set(err, SPK_ERR_UNSUPPORTED, "tile formats refused: %lld stored values exceed the 32-bit offsets",
                           w->nval);
    return spk_format_check_padding("tile", (size_t)w->nval, (size_t)A->nnz, A->nrows, err);
}

/* Plan the parts side by side, place them in T and D side by side. */
static int build_parts(const spk_csr *A, plan *P, int np, int *fptr, spk_fmt_tile *T, spk_csr *D, spk_err *err)
{
    SPK_OMP(omp parallel for schedule(static, 1) num_threads(np))
    for (int c = 0; c < np; c++) plan_part(&P[c]);
    sums w;
    SPK_TRY(sum_parts(P, np, A, &w, &T->stats, err));
    unsigned short *aux = spk_malloc((size_t)w.nt + 1, sizeof(unsigned short), "tile patterns", err);
    int st = aux ? alloc_tiles(&w, T, D, err) : SPK_ERR_NOMEM;
    if (st) {
        free(aux);
        return st;
    }
    for (int c = 0; c < np; c++) /* the tile row pointers counted from the whole's first tile */
        for (int tr = P[c].tr0; tr < P[c].tr1; tr++) fptr[tr + 1] += P[c].at.nt;
    SPK_OMP(omp parallel for schedule(static, 1) num_threads(np))
    for (int c = 0; c < np; c++) {
        merge_part(&P[c], T, aux);
        free(P[c].aux);
        P[c].aux = aux;
    }
    SPK_OMP(omp parallel for schedule(static, 1) num_threads(np))
    for (int c = 0; c < np; c++) {
        sink out = {D->rowptr, D->colind, D->val, P[c].at.ndef};
        int d = P[c].at.kept;
        for (int tr = P[c].tr0; tr < P[c].tr1; tr++) place_tile_row(&P[c], T, &out, tr, &d);
    }
    for (int c = 0; c < np; c++) P[c].aux = NULL;
    free(aux);
    if (w.ndef > 0)
        for (int i = 0; i < A->nrows; i++) D->rowptr[i + 1] += D->rowptr[i];
    compact_tiles(P->p, fptr, &w, T);
    shrink_tiles(T);
    SPK_TRY(build_units(T, err));
    count_bytes(A, &w, T, &T->stats);
    return SPK_OK;
}

int spk_tile_build(const spk_csr *A, const spk_tile_params *p, spk_fmt_tile *T, spk_csr *D, spk_err *err)
{
    memset(T, 0, sizeof *T);
    memset(D, 0, sizeof *D);
    T->nrows = A->nrows;
    T->ncols = A->ncols;
    T->tm = (A->nrows + SPK_TILE - 1) / SPK_TILE;
    T->tn = (A->ncols + SPK_TILE - 1) / SPK_TILE;
    T->params = *p;
    int np = A->nnz >= SPK_PAR_MIN && T->tm > 1 ? spk_host_threads() : 1;
    np = np < T->tm ? np : (T->tm > 0 ? T->tm : 1);
    plan *P = spk_calloc((size_t)np, sizeof(plan), "tile conversion parts", err);
    int *fptr = spk_malloc((size_t)T->tm + 1, sizeof(int), "tile row pointers", err);
    int st = P && fptr ? SPK_OK : SPK_ERR_NOMEM;
    if (!st) {
        fptr[0] = 0;
        split_parts(A, T->tm, P, np);
        for (int c = 0; c < np; c++) {
            P[c].A = A, P[c].p = p, P[c].fptr = fptr;
            P[c].m = A->nrows, P[c].n = A->ncols, P[c].tm = T->tm, P[c].tn = T->tn;
        }
        st = build_parts(A, P, np, fptr, T, D, err);
    }
    for (int c = 0; P && c < np; c++) plan_free(&P[c]);
    free(P);
    free(fptr);
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
