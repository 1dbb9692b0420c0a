/* tile_select.h -- TileSpMV (tile.h): one tile's format, width and size
 * from its pattern (the paper's flow chart, tile_select.c); the conversion
 * (tile_build.c) finds the patterns and places the entries. */
#ifndef SPK_SPMV_TILE_SELECT_H
#define SPK_SPMV_TILE_SELECT_H

#include "tile.h"

/* One tile's pattern as the conversion's first pass finds it: each row's
 * columns as a bit mask (set only for the rows in `rows`, the others are
 * empty) and their count. */
typedef struct spk_tile_scan {
    unsigned short rows;
    unsigned short mask[SPK_TILE];
    unsigned char rl[SPK_TILE];
} spk_tile_scan;

/* What the selection makes of one tile. */
typedef struct spk_tile_choice {
    int kind, w, k;
    unsigned aux;     /* DnsRow: full rows, else full columns */
    long nv, ni, def; /* stored values, index bytes, entries deferred to the CSR matrix */
} spk_tile_choice;

/* Bytes of the memo that spk_tile_select keeps of its variation tests (zeroed
 * before the first call; one per thread). */
#define SPK_TILE_MEMO_BYTES ((size_t)(SPK_TILE * SPK_TILE + 1) * (SPK_TILE * SPK_TILE * SPK_TILE + 1))

/* The format, width and size of the tile with pattern x (rows x cols). */
void spk_tile_select(const spk_tile_params *p, unsigned char *memo, const spk_tile_scan *x, int rows, int cols,
                     spk_tile_choice *c);
/* A tile of 16 rows and >= 2 columns with a single entry: its choice does
 * not depend on where the entry is. */
int spk_tile_single_entry(const spk_tile_scan *x, int rows, int cols);
/* A tile that keeps no values: all of it deferred. */
int spk_tile_dropped(const spk_tile_params *p, int kind, int w);

/* Set bits of a 16-bit mask. */
static inline int spk_tile_bits(unsigned x)
{
    x = x - (x >> 1 & 0x5555u);
    x = (x & 0x3333u) + (x >> 2 & 0x3333u);
    x = (x + (x >> 4)) & 0x0F0Fu;
    return (int)((x + (x >> 8)) & 0x1Fu);
}

/* The lowest set bit's position (x != 0). */
static inline int spk_tile_lowest64(unsigned long long x)
{
#if defined(__GNUC__)
    return __builtin_ctzll(x);
#else
    int r = 0;
    while (!(x >> r & 1)) r++;
    return r;
#endif
}

#endif
