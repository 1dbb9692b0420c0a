/* csr5.c -- the "csr5" format (csr5.h): CSR's entries cut into tiles of
 * 32 x sigma, each tile transposed, with a descriptor word per lane.
 *
 * Conversion: sigma from the average row length, the tiles' values and
 * columns transposed, tile_ptr by one walk over the rows, the bit_flags from
 * each row's start, y_offset as each tile's running count of set bits, and
 * for the tiles with empty rows the row of each segment.
 *
 * The product (host reference here, kernels in csr5.cu) writes every row
 * exactly once with alpha*sum + beta*y, by its owner, then adds the carries:
 *   - a tile writes each segment that starts a row in it (its last one too,
 *     when that row goes on into the next tile, with the partial it holds);
 *     a tile whose first entry continues a row started earlier puts that
 *     first segment's sum (times alpha) in calib[t] instead;
 *   - a flagged tile writes the empty rows after each of its segments, up to
 *     the next segment's row (tile_ptr[t + 1] after the last one); tile 0
 *     writes the empty rows before its first row;
 *   - the tail writes its rows (from tail_row to the last, the empty ones
 *     included) CSR-style; its first row's share goes to calib[ntiles] where
 *     that row began in the last tile;
 *   - the calibration then adds, for each row that continues across tiles,
 *     its carried partials in tile order, with one addition into y. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csr5.h"

/* ceil(nnz / nrows) in [4, 16]: a lane covers about one average row, so most
 * lanes hold one or two segments and few rows span many lanes (the paper
 * ties sigma to the average row length on GPUs); 16 keeps the bit_flag and
 * y_offset in one 32-bit word. */
static int csr5_sigma(int m, int nnz)
{
    if (m <= 0) return SPK_CSR5_SIGMA_MIN;
    long long s = ((long long)nnz + m - 1) / m;
    if (s < SPK_CSR5_SIGMA_MIN) s = SPK_CSR5_SIGMA_MIN;
    if (s > SPK_CSR5_SIGMA_MAX) s = SPK_CSR5_SIGMA_MAX;
    return (int)s;
}

static int popcount(unsigned v)
{
    int c = 0;
    for (; v; v &= v - 1) c++;
    return c;
}

static int csr5_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    (void)o;
    spk_fmt_csr5 *F = fmt;
    const int m = A->nrows, nnz = A->nnz;
    const int sigma = csr5_sigma(m, nnz), W = SPK_CSR5_OMEGA * sigma, T = nnz / W;
    const unsigned flagmask = (1u << sigma) - 1u;
    F->nrows = m;
    F->ncols = A->ncols;
    F->nnz = nnz;
    F->sigma = sigma;
    F->ntiles = T;
    F->nempty = 0;
    F->rowptr = spk_malloc((size_t)m + 1, sizeof(int), "CSR5 row pointers", err);
    F->col = spk_malloc((size_t)nnz, sizeof(int), "CSR5 columns", err);
    F->val = spk_malloc((size_t)nnz, sizeof(double), "CSR5 values", err);
    F->tile_ptr = spk_malloc((size_t)T + 1, sizeof(unsigned), "CSR5 tile pointers", err);
    F->tile_desc = spk_calloc((size_t)T * SPK_CSR5_OMEGA, sizeof(unsigned), "CSR5 tile descriptors", err);
    F->empty_ptr = spk_calloc((size_t)T + 1, sizeof(int), "CSR5 empty-row offsets", err);
    F->calib = spk_calloc((size_t)T + 1, sizeof(double), "CSR5 calibrator", err);
    if (!F->rowptr || !F->col || !F->val || !F->tile_ptr || !F->tile_desc || !F->empty_ptr || !F->calib)
        return SPK_ERR_NOMEM;
    memcpy(F->rowptr, A->rowptr, ((size_t)m + 1) * sizeof(int));

    /* the tiles transposed (lane j's entry i of tile t at tW + i*32 + j), the tail as it is */
    for (int t = 0; t < T; t++) {
        const int base = t * W;
        for (int j = 0; j < SPK_CSR5_OMEGA; j++)
            for (int i = 0; i < sigma; i++) {
                F->col[base + i * SPK_CSR5_OMEGA + j] = A->colind[base + j * sigma + i];
                F->val[base + i * SPK_CSR5_OMEGA + j] = A->val[base + j * sigma + i];
            }
    }
    if (nnz > T * W) {
        memcpy(F->col + (size_t)T * W, A->colind + (size_t)T * W, (size_t)(nnz - T * W) * sizeof(int));
        memcpy(F->val + (size_t)T * W, A->val + (size_t)T * W, (size_t)(nnz - T * W) * sizeof(double));
    }

    /* tile_ptr[t]: the row holding entry tW (rowptr[r] <= tW < rowptr[r + 1],
     * so empty rows at tW are passed); nrows for a position past the entries */
    for (int t = 0, r = 0; t <= T; t++) {
        const int p = t * W;
        if (p >= nnz) {
            F->tile_ptr[t] = (unsigned)m;
            continue;
        }
        while (A->rowptr[r + 1] <= p) r++;
        F->tile_ptr[t] = (unsigned)r;
    }
    F->tail_row = T == 0 ? 0 : (int)F->tile_ptr[T];

    /* bit_flag: a bit at each row's first entry inside the tiles, and bit 0
     * of lane 0 of every tile (its first segment, a row's start or not) */
    for (int r = 0; r < m; r++) {
        const int p = A->rowptr[r];
        if (p == A->rowptr[r + 1] || p >= T * W) continue;
        const int t = p / W, q = p % W;
        F->tile_desc[(size_t)t * SPK_CSR5_OMEGA + q / sigma] |= 1u << (q % sigma);
    }
    /* y_offset: the set bits of the lanes before; a tile's segments in all:
     * flagged tiles (empty rows between tile_ptr[t] and tile_ptr[t + 1]) keep
     * a row per segment in empty_offset */
    for (int t = 0; t < T; t++) {
        unsigned *d = F->tile_desc + (size_t)t * SPK_CSR5_OMEGA;
        d[0] |= 1u;
        int nseg = 0;
        for (int j = 0; j < SPK_CSR5_OMEGA; j++) {
            d[j] |= (unsigned)nseg << SPK_CSR5_YOFF_SHIFT;
            nseg += popcount(d[j] & flagmask);
        }
        const int row0 = (int)F->tile_ptr[t], next = (int)(F->tile_ptr[t + 1] & ~SPK_CSR5_EMPTY);
        int empty = 0;
        for (int r = row0 + 1; r < next && !empty; r++) empty = A->rowptr[r] == A->rowptr[r + 1];
        if (empty) F->tile_ptr[t] |= SPK_CSR5_EMPTY;
        F->empty_ptr[t + 1] = F->empty_ptr[t] + (empty ? nseg : 0);
    }
    F->nempty = F->empty_ptr[T];
    F->empty_offset = spk_malloc((size_t)F->nempty, sizeof(int), "CSR5 empty-row offsets", err);
    if (!F->empty_offset) return SPK_ERR_NOMEM;
    /* a flagged tile's segments: segment 0 is tile_ptr's row, then each
     * nonempty row that starts inside the tile, in order */
    for (int t = 0; t < T; t++) {
        if (!(F->tile_ptr[t] & SPK_CSR5_EMPTY)) continue;
        const int row0 = (int)(F->tile_ptr[t] & ~SPK_CSR5_EMPTY), end = (t + 1) * W;
        const int eb = F->empty_ptr[t], nseg = F->empty_ptr[t + 1] - eb;
        int k = 0;
        F->empty_offset[eb + k++] = 0;
        for (int r = row0 + 1; r < m && A->rowptr[r] < end; r++)
            if (A->rowptr[r + 1] > A->rowptr[r]) {
                if (k < nseg) F->empty_offset[eb + k] = r - row0;
                k++;
            }
        if (k != nseg) /* the rows and the bits must name the same segments */
            return spk_err_set(err, SPK_ERR_INTERNAL, "CSR5: tile %d has %d segments by its rows, %d by its bits", t,
                               k, nseg);
    }
    return SPK_OK;
}

static int csr5_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_csr5 *F = fmt;
    const size_t T = (size_t)F->ntiles;
    l[0] = (spk_format_array){(void **)&F->rowptr, ((size_t)F->nrows + 1) * sizeof(int), 0};
    l[1] = (spk_format_array){(void **)&F->col, (size_t)F->nnz * sizeof(int), 0};
    l[2] = (spk_format_array){(void **)&F->val, (size_t)F->nnz * sizeof(double), 1};
    l[3] = (spk_format_array){(void **)&F->tile_ptr, (T + 1) * sizeof(unsigned), 0};
    l[4] = (spk_format_array){(void **)&F->tile_desc, T * SPK_CSR5_OMEGA * sizeof(unsigned), 0};
    l[5] = (spk_format_array){(void **)&F->empty_ptr, (T + 1) * sizeof(int), 0};
    l[6] = (spk_format_array){(void **)&F->empty_offset, (size_t)F->nempty * sizeof(int), 0};
    l[7] = (spk_format_array){(void **)&F->calib, (T + 1) * sizeof(double), 1};
    return 8;
}

/* y_r = alpha*v + beta*y_r (y_r not read when beta is 0) */
static void put_row(double *y, int r, double alpha, double v, double beta)
{
    y[r] = beta == 0.0 ? alpha * v : alpha * v + beta * y[r];
}

/* empty rows [lo, hi): alpha*0 + beta*y */
static void put_empty(double *y, int lo, int hi, double beta)
{
    for (int r = lo; r < hi; r++) y[r] = beta == 0.0 ? 0.0 : beta * y[r];
}

/* What a tile's segments need to find their rows (the kernel's tile_ctx). */
typedef struct tile_ctx {
    int t, row0, flagged, cont; /* cont: the first entry continues a row begun before the tile */
    int eb, ee, next;           /* flagged: empty_offset range, tile_ptr[t + 1]'s row */
} tile_ctx;

static tile_ctx tile_ctx_of(const spk_fmt_csr5 *F, int t)
{
    tile_ctx c;
    const unsigned tp = F->tile_ptr[t];
    c.t = t;
    c.row0 = (int)(tp & ~SPK_CSR5_EMPTY);
    c.flagged = (tp & SPK_CSR5_EMPTY) != 0;
    c.cont = F->rowptr[c.row0] < t * SPK_CSR5_OMEGA * F->sigma;
    c.eb = c.ee = c.next = 0;
    if (c.flagged) {
        c.eb = F->empty_ptr[t];
        c.ee = F->empty_ptr[t + 1];
        c.next = (int)(F->tile_ptr[t + 1] & ~SPK_CSR5_EMPTY);
    }
    return c;
}

/* Segment g of the tile sums to v: its row (or calib, for a continued
 * first segment), then the empty rows up to the next segment's row. */
static void put_segment(const spk_fmt_csr5 *F, const tile_ctx *c, int g, double v, double alpha, double beta,
                        double *y)
{
    const int row = c->row0 + (c->flagged ? F->empty_offset[c->eb + g] : g);
    if (g == 0 && c->cont)
        F->calib[c->t] = alpha * v;
    else
        put_row(y, row, alpha, v, beta);
    if (c->flagged) {
        const int e = c->eb + g + 1;
        put_empty(y, row + 1, e < c->ee ? c->row0 + F->empty_offset[e] : c->next, beta);
    }
}

/* Slot c of calib holds a carried partial: tile c (or the tail, c = ntiles)
 * starts inside a row begun before it. */
static int carried(const spk_fmt_csr5 *F, int c)
{
    const long long p = (long long)c * SPK_CSR5_OMEGA * F->sigma;
    if (p >= F->nnz) return 0;
    return F->rowptr[F->tile_ptr[c] & ~SPK_CSR5_EMPTY] < p;
}

void spk_csr5_ref(const spk_fmt_csr5 *F, double alpha, const double *x, double beta, double *y)
{
    const int T = F->ntiles, sigma = F->sigma, W = SPK_CSR5_OMEGA * sigma;
    const unsigned flagmask = (1u << sigma) - 1u;
    enum { L = SPK_CSR5_OMEGA };
    if (T > 0) put_empty(y, 0, (int)(F->tile_ptr[0] & ~SPK_CSR5_EMPTY), beta);
    for (int t = 0; t < T; t++) {
        const tile_ctx c = tile_ctx_of(F, t);
        double head[L], S[L], So[L];
        int n[L], yoff[L], f[L], fo[L];
        /* each lane down its column: a segment closed inside the lane is
         * written; the part before its first set bit is its head, the
         * part after its last (all of it without one) is scanned */
        for (int j = 0; j < L; j++) {
            const unsigned d = F->tile_desc[(size_t)t * L + j], flags = d & flagmask;
            double s = 0, h = 0;
            int k = 0;
            yoff[j] = (int)((d >> SPK_CSR5_YOFF_SHIFT) & SPK_CSR5_YOFF_MASK);
            for (int i = 0; i < sigma; i++) {
                const int q = t * W + i * L + j;
                if ((flags >> i) & 1u) {
                    if (k == 0)
                        h = s;
                    else
                        put_segment(F, &c, yoff[j] + k - 1, s, alpha, beta, y);
                    s = 0;
                    k++;
                }
                s += F->val[q] * x[F->col[q]];
            }
            head[j] = h;
            S[j] = s;
            n[j] = k;
            f[j] = k > 0;
        }
        /* the warp's inclusive segmented scan (Hillis-Steele, as the shuffles
         * do it): a lane with a set bit starts a new sum */
        for (int off = 1; off < L; off *= 2) {
            memcpy(So, S, sizeof S);
            memcpy(fo, f, sizeof f);
            for (int j = off; j < L; j++)
                if (!fo[j]) {
                    S[j] = So[j - off] + So[j];
                    f[j] = fo[j - off];
                }
        }
        /* a lane with a set bit closes the segment open before it with its
         * head; lane 31 writes the tile's last segment */
        for (int j = 1; j < L; j++)
            if (n[j] > 0) put_segment(F, &c, yoff[j] - 1, S[j - 1] + head[j], alpha, beta, y);
        put_segment(F, &c, yoff[L - 1] + n[L - 1] - 1, S[L - 1], alpha, beta, y);
    }
    /* the tail, row by row from tail_row; a row begun in the last tile leaves its share in calib[T] */
    const int tb = T * W;
    for (int r = F->tail_row; r < F->nrows; r++) {
        const int b = F->rowptr[r], e = F->rowptr[r + 1];
        double s = 0;
        for (int q = b > tb ? b : tb; q < e; q++) s += F->val[q] * x[F->col[q]];
        if (b < tb)
            F->calib[T] = alpha * s;
        else
            put_row(y, r, alpha, s, beta);
    }
    /* calibration: the first slot of each run carried into one row adds the run */
    for (int c = 1; c <= T; c++) {
        const int row = (int)(F->tile_ptr[c] & ~SPK_CSR5_EMPTY);
        if (!carried(F, c) || (carried(F, c - 1) && (int)(F->tile_ptr[c - 1] & ~SPK_CSR5_EMPTY) == row)) continue;
        double s = 0;
        for (int q = c; q <= T && carried(F, q) && (int)(F->tile_ptr[q] & ~SPK_CSR5_EMPTY) == row; q++)
            s += F->calib[q];
        y[row] += s;
    }
}

static void csr5_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    spk_csr5_ref(fmt, alpha, x, beta, y);
}

static void csr5_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_csr5 *F = fmt;
    const long long W = (long long)SPK_CSR5_OMEGA * F->sigma;
    snprintf(buf, len, "CSR5, tiles of 32 x %d entries: %d tiles, %lld tail entries, %d empty-row offsets",
             F->sigma, F->ntiles, (long long)F->nnz - F->ntiles * W, F->nempty);
}

static const spk_format csr5_format = {
    "csr5", "CSR5, 32 x sigma tiles of CSR's entries", sizeof(spk_fmt_csr5), csr5_convert, csr5_arrays, csr5_ref,
    SPK_FORMAT_LAUNCH(spk_csr5_launch), csr5_describe, SPK_FORMAT_BUILD(NULL),
};

SPK_FORMAT_BACKENDS(csr5, "csr5",
                    "CSR5: CSR's entries in 32 x sigma tiles, a warp per tile with a segmented scan (Liu & Vinter)",
                    csr5_format)
