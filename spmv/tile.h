/* tile.h -- TileSpMV (001): the matrix cut into 16 x 16 sparse tiles, each
 * stored in one of seven formats and multiplied by one warp.
 *
 * Level 1 (the tile structure, like CSR over tiles):
 *   tile_ptr  tiles of each tile row (tm + 1 offsets)
 *   tile_col  tile column of each tile (ascending in a tile row)
 *   val_off   offset of each tile's stored values (the paper's tileNnz
 *             offsets; padding of ELL/Dns tiles included)
 *   idx_off   offset of each tile's index bytes
 *   kind      the tile's format (SPK_TILE_CSR ... SPK_TILE_DNSCOL)
 *   width     ELL/HYB width, DnsRow rows, DnsCol columns (0 otherwise)
 * Level 2, per format, r and c the row and column inside the tile (4 bits):
 *   CSR     values in row order; index bytes: 16 row offsets (row 15 ends
 *           at the tile's count) then the columns, two 4-bit columns per
 *           byte (entry q in the low nibble of byte q/2 when q is even)
 *   COO     values; one byte per entry, r << 4 | c
 *   ELL     16 x width values column-major (slot j of row r at j*16 + r),
 *           4-bit columns packed like CSR's; padding has value 0, column 0
 *   HYB     an ELL part of the width that minimizes the tile's bytes, then
 *           the rest as COO (values and r << 4 | c bytes)
 *   Dns     256 values column-major (c*16 + r), zeros included
 *   DnsRow  the full rows: their row numbers (one byte each), then 16 values
 *           per row (i*16 + c)
 *   DnsCol  the full columns: their column numbers, then 16 values per
 *           column (i*16 + r)
 * Tiles at the right and bottom edges are cut short by the matrix size; their
 * padding (ELL, Dns, DnsRow/DnsCol of an edge tile) is value 0.
 *
 * Work units: one warp handles at most SPK_TILE_BALANCE tiles of one tile
 * row; a tile row with more tiles is split over several warps that add their
 * partial sums with atomics (its rows are scaled by beta first).  A unit's
 * record carries where its values and index bytes start and how many there
 * are (its tiles are consecutive), so a warp fetches them right away.
 *
 * Deferred COO (tile-dcoo, and tile above 1.8M nonzeros): the COO tiles and
 * the COO part of HYB tiles leave the tiles for a separate CSR matrix D that
 * the "cusparse" backend multiplies ("csr" on the host): a load-balanced CSR
 * product copes with the uneven rows these entries leave; y = T*x, then
 * y += D*x. */
#ifndef SPK_SPMV_TILE_H
#define SPK_SPMV_TILE_H

#include "format.h"

#define SPK_TILE 16             /* tile edge */
#define SPK_TILE_BALANCE 8      /* tbalance: most tiles per warp */
#define SPK_TILE_TE 0.2         /* row-length variation up to which a tile is ELL */
#define SPK_TILE_TH 1.0         /* variation from which a tile is HYB */
#define SPK_TILE_COO_NNZ 12     /* fewer nonzeros (with uneven rows): COO */
#define SPK_TILE_DENSE 0.75     /* this share of the tile's positions filled: Dns */
#define SPK_TILE_DEFER_NNZ 1800000LL /* "tile" defers COO entries above this many nonzeros */
#define SPK_TILE_UNIT 8         /* ints per work unit record */
#define SPK_TILE_STAGE_VALS 256 /* a unit with at most this many values ... */
#define SPK_TILE_STAGE_IDX 512  /* ... and index bytes is staged in shared memory */

enum {
    SPK_TILE_CSR = 0,
    SPK_TILE_COO,
    SPK_TILE_ELL,
    SPK_TILE_HYB,
    SPK_TILE_DNS,
    SPK_TILE_DNSROW,
    SPK_TILE_DNSCOL,
    SPK_TILE_NKINDS
};

/* The format names, indexed by kind ("CSR", "COO", ...). */
extern const char *const spk_tile_kind_names[SPK_TILE_NKINDS];

/* How to build: every tile CSR, or the adaptive choice; deferred COO or not. */
typedef struct spk_tile_params {
    int adaptive;   /* 0: TileSpMV_CSR, 1: TileSpMV_ADPT */
    int defer;      /* move COO entries to the separate CSR matrix */
    double te, th;  /* ELL and HYB thresholds on the row-length variation */
} spk_tile_params;

/* What a conversion did (host-side). */
typedef struct spk_tile_stats {
    int tiles[SPK_TILE_NKINDS];        /* tiles of each format */
    long long nnz[SPK_TILE_NKINDS];    /* nonzeros in tiles of each format (HYB: both parts) */
    long long deferred;                /* nonzeros moved to the deferred CSR matrix */
    long long dropped_tiles;           /* tiles emptied by deferral (not stored) */
    long long stored;                  /* values stored in tiles, padding included */
    size_t bytes;                      /* tile arrays + deferred CSR arrays */
    size_t csr_bytes;                  /* 12*nnz + 4*(rows+1): the same matrix as CSR */
} spk_tile_stats;

typedef struct spk_fmt_tile {
    int nrows, ncols;
    int tm, tn;                /* tile rows and columns */
    int ntiles, nunits, nsplit;
    int nval, nidx;            /* stored values and index bytes (val_off[ntiles], idx_off[ntiles]) */
    int staged;                /* every unit fits SPK_TILE_STAGE_VALS / _IDX: the staging kernel */
    int *tile_ptr;             /* tm + 1 */
    int *tile_col;             /* ntiles */
    int *val_off;              /* ntiles + 1 */
    int *idx_off;              /* ntiles + 1 */
    unsigned char *kind;       /* ntiles */
    unsigned char *width;      /* ntiles */
    double *val;               /* val_off[ntiles] */
    unsigned char *idx;        /* idx_off[ntiles] */
    int *unit;                 /* SPK_TILE_UNIT ints per warp: tile row, first tile, tiles,
                                  split flag, first value, values, first index byte, bytes */
    int *split_rows;           /* nsplit tile rows handled by several warps */
    /* host-side */
    spk_tile_params params;
    spk_tile_stats stats;
} spk_fmt_tile;

/* Resolve the parameters of backend `name` ("tile-csr", "tile", "tile-dcoo")
 * from the options (tile_te, tile_th, tile_defer_nnz; 0 = default) for A. */
int spk_tile_params_for(const char *name, const spk_spmv_opts *o, const spk_csr *A, spk_tile_params *p,
                        spk_err *err);
/* The format of one tile from its shape (rows x cols), nonzeros, row and
 * column counts: the selection of the paper's flow chart. */
int spk_tile_choose(const spk_tile_params *p, int rows, int cols, int nnz, const unsigned char *rowlen,
                    const unsigned char *collen);
/* Build the tiles of canonical A; with p->defer, the deferred entries go to
 * D (an nrows x ncols CSR matrix, possibly empty), else D is left empty. */
int spk_tile_build(const spk_csr *A, const spk_tile_params *p, spk_fmt_tile *T, spk_csr *D, spk_err *err);
/* Release T's arrays. */
void spk_tile_free(spk_fmt_tile *T);
/* y = alpha*T*x + beta*y on the host, tile by tile as the kernel does. */
void spk_tile_ref(const spk_fmt_tile *T, double alpha, const double *x, double beta, double *y);
/* Decode every tile (and D when not NULL) back to a CSR matrix B; zero values
 * of padded formats (ELL, HYB's ELL part, Dns, edge padding) are left out. */
int spk_tile_expand(const spk_fmt_tile *T, const spk_csr *D, spk_csr *B, spk_err *err);
/* One line: tiles, shares of tiles and nonzeros per format, bytes vs CSR. */
void spk_tile_describe(const spk_tile_stats *s, int ntiles, const spk_tile_params *p, char *buf, size_t len);

#ifdef SPK_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
/* One warp per work unit, a warp-level kernel per tile format. */
SPK_FORMAT_LAUNCH_DECL(spk_tile_launch)
#ifdef __cplusplus
}
#endif
#endif

#endif
