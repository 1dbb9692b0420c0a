/* mqt.c -- the "mqt" format (mqt.h): the entries sorted in Z order (row
 * and column bits interleaved, row first at each level: the quadrants'
 * depth-first order), then the tree's bits written in one walk over them.
 *
 * The sort: a counting pass and a scatter straight from CSR put the entries
 * into buckets by their top Z levels (nodes of side 2^lo), each bucket in
 * CSR order, as 64-bit items (the Z key below the bucket, then the entry's
 * index relative to its band of rows) in the values' array; each bucket is
 * then radix sorted in cache.  CSR order is row-major, and within a 2 x 2
 * node row-major is Z order, so the stable sorts skip the last level's bits.
 * Items that cannot fit 64 bits (very wide matrices) take a comparison sort.
 *
 * The walk: in Z order a node is first met in depth-first preorder, so when
 * consecutive keys first differ at level t the nodes of levels t..1 are new:
 * each takes the next 4 bits and sets its bit in its parent's 4. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/parallel.h"
#include "mqt.h"
#include "mqt_decode.h"

#define ZMAX_BUCKET_LEVELS 8 /* at most 4^8 buckets */

/* x's bits at the even positions of a 64-bit word */
static uint64_t spread(uint32_t x)
{
    uint64_t v = x;
    v = (v | v << 16) & 0x0000FFFF0000FFFFull;
    v = (v | v << 8) & 0x00FF00FF00FF00FFull;
    v = (v | v << 4) & 0x0F0F0F0F0F0F0F0Full;
    v = (v | v << 2) & 0x3333333333333333ull;
    return (v | v << 1) & 0x5555555555555555ull;
}

/* the even bits of z, packed (spread's inverse) */
static uint32_t compact(uint64_t z)
{
    z &= 0x5555555555555555ull;
    z = (z | z >> 1) & 0x3333333333333333ull;
    z = (z | z >> 2) & 0x0F0F0F0F0F0F0F0Full;
    z = (z | z >> 4) & 0x00FF00FF00FF00FFull;
    z = (z | z >> 8) & 0x0000FFFF0000FFFFull;
    return (uint32_t)(z | z >> 16);
}

static int bits_of(uint64_t x)
{
    int b = 0;
    while (b < 64 && (x >> b)) b++;
    return b;
}

/* ---- the walk: nodes and subtrees from the keys in Z order ---- */

typedef struct walker {
    spk_fmt_mqt *M;
    int K, ls;           /* levels (side 2^K); the subtrees' level (side 2^ls) */
    int k, nsub;         /* entries and subtrees walked */
    uint64_t prev;       /* the last key */
    uint64_t bit;        /* bits handed out */
    uint64_t word;       /* the word of bit `bit` (low 32 bits), kept here until the stream passes it */
    uint64_t slot[33];   /* where the current node of each level has its 4 bits */
    int shared;          /* 1: other threads write the stream too (atomic ORs) */
} walker;

/* The stream's word i |= v (atomic where threads share the stream, which is
 * then zeroed first). */
static void put_bits(unsigned *bits, uint64_t i, unsigned v, int shared)
{
    if (shared) {
        SPK_OMP(omp atomic)
        bits[i] |= v;
    } else {
        bits[i] |= v;
    }
}

/* The subtrees: the distinct blocks of side 2^ls, band by band of 2^ls
 * rows, seen[] marking each block column with the band that last met it
 * (the bands shared among the threads, each with its own marks). */
static int count_subtrees(const spk_csr *A, int ls, spk_err *err)
{
    const long long band = 1LL << ls, nbands = ((long long)A->nrows + band - 1) >> ls;
    const size_t ncb = (size_t)(((long long)A->ncols + band - 1) >> ls) + 1;
    const int nt = A->nnz >= SPK_PAR_MIN && nbands > 1 ? spk_host_threads() : 1;
    int *seen = spk_calloc(ncb * (size_t)nt, sizeof(int), "MQT blocks", err);
    if (!seen) return -1;
    long long nsub = 0;
    SPK_OMP(omp parallel for schedule(static, 1) num_threads(nt) reduction(+ : nsub))
    for (int t = 0; t < nt; t++) {
        int *mine = seen + ncb * (size_t)t;
        for (long long R = nbands * t / nt; R < nbands * (t + 1) / nt; R++) {
            const long long r0 = R * band;
            const int end = A->rowptr[r0 + band < A->nrows ? r0 + band : A->nrows];
            for (int q = A->rowptr[r0]; q < end; q++) {
                int *x = mine + (A->colind[q] >> ls);
                nsub += *x != (int)(R + 1);
                *x = (int)(R + 1);
            }
        }
    }
    free(seen);
    return (int)nsub;
}

/* At most how many bits the stream takes: the nodes of a level above the
 * subtrees' are at most nsub and 4^(levels above), those of a level below
 * it at most nnz and nsub x 4^(levels between). */
static uint64_t bits_bound(uint64_t nnz, uint64_t nsub, int K, int ls)
{
    uint64_t nodes = 0;
    for (int l = 1; l <= K; l++) {
        const int e = 2 * (l >= ls ? K - l : ls - l);
        const uint64_t cap = l >= ls ? nsub : nnz, base = l >= ls ? 1 : nsub;
        nodes += e >= 60 || base > cap >> e ? cap : base << e;
    }
    return 4 * nodes;
}

/* The stream (with room for the walk's last stores) and the subtree table. */
static int walker_init(walker *w, spk_fmt_mqt *M, const spk_csr *A, int K, spk_err *err)
{
    *w = (walker){M, K, bits_of((uint64_t)M->sub) - 1, 0, 0, 0, 0, 0, {0}, 0};
    const int nsub = count_subtrees(A, w->ls, err);
    if (nsub < 0) return SPK_ERR_NOMEM;
    M->nsub = nsub;
    M->bits = spk_calloc((size_t)(bits_bound((uint64_t)M->nnz, (uint64_t)nsub, K, w->ls) / 32) + 4,
                         sizeof(unsigned), "MQT bit stream", err);
    M->sub_row = spk_malloc((size_t)nsub + 1, sizeof(int), "MQT subtrees", err);
    M->sub_col = spk_malloc((size_t)nsub + 1, sizeof(int), "MQT subtrees", err);
    M->sub_bit = spk_malloc((size_t)nsub + 1, sizeof(int), "MQT subtrees", err);
    M->sub_val = spk_malloc((size_t)nsub + 1, sizeof(int), "MQT subtrees", err);
    return M->bits && M->sub_row && M->sub_col && M->sub_bit && M->sub_val ? SPK_OK : SPK_ERR_NOMEM;
}

/* The stream's last words written and the array cut to its bits, plus one word. */
static void walker_finish(walker *w)
{
    spk_fmt_mqt *M = w->M;
    M->nbits = (long long)w->bit;
    const size_t words = (size_t)((w->bit + 31) / 32) + 1;
    M->bits[words - 1] = 0;
    M->bits[w->bit / 32] |= (unsigned)w->word;
    unsigned *b = realloc(M->bits, words * sizeof(unsigned));
    if (b) M->bits = b;
}

/* n keys on in Z order, key i = prefix | items[i] >> shift: each one's new
 * nodes, levels t..1 where it first differs from the last key at level t
 * (all levels for the first), get 4 bits each in turn; each new node, and
 * the cell, sets its bit in its parent's 4.  The state is kept in locals.
 * The stream is zeroed: words are ORed in (atomically when shared). */
static void walk(walker *w, const uint64_t *items, size_t n, uint64_t prefix, int shift)
{
    spk_fmt_mqt *M = w->M;
    const int K = w->K, ls = w->ls;
    uint64_t prev = w->prev, bit = w->bit, word = w->word, *slot = w->slot;
    unsigned *bits = M->bits;
    int k = w->k, nsub = w->nsub;
    for (size_t i = 0; i < n; i++, k++) {
        const uint64_t z = prefix | items[i] >> shift;
        const int t = k ? (63 - __builtin_clzll((z ^ prev) | 1)) / 2 : K;
        prev = z;
        if (t >= ls && nsub++ < M->nsub) { /* a new subtree: its node's bits come 4 (t - ls) on */
            M->sub_row[nsub - 1] = (int)(compact(z >> 1) >> ls << ls);
            M->sub_col[nsub - 1] = (int)(compact(z) >> ls << ls);
            M->sub_bit[nsub - 1] = (int)(bit + 4 * (uint64_t)(t - ls));
            M->sub_val[nsub - 1] = k;
        }
        if (t < K) { /* the highest new node (or the cell) in its parent */
            const uint64_t b = slot[t + 1] + ((z >> (2 * t)) & 3);
            if (b / 32 == bit / 32)
                word |= (uint64_t)1 << (b % 32);
            else
                put_bits(bits, b / 32, 1u << (b % 32), w->shared);
        }
        for (int l = t; l >= 1; l--) { /* the new nodes, each with its child's bit */
            slot[l] = bit;
            word |= (uint64_t)1 << (bit % 32 + ((z >> (2 * l - 2)) & 3));
            bit += 4;
            if (bit % 32 == 0) {
                put_bits(bits, bit / 32 - 1, (unsigned)word, w->shared);
                word = 0;
            }
        }
    }
    w->prev = prev;
    w->bit = bit;
    w->word = word;
    w->k = k;
    w->nsub = nsub;
}

/* ---- the sort ---- */

typedef struct zplan {
    int K, lo, qb;  /* levels; levels inside a bucket; bits of an index within a band of 2^lo rows */
    size_t nb;      /* buckets: 4^(K - lo) */
    int *start;     /* nb + 1: bucket b's items at [start[b], start[b + 1]) */
} zplan;

/* 1 when items of 2 lo key bits and an index within a band of 2^lo rows fit 64 bits */
static int zplan_fits(const spk_csr *A, zplan *p)
{
    long long span = 0;
    for (long long r0 = 0; r0 < A->nrows; r0 += 1LL << p->lo) {
        const long long r1 = r0 + (1LL << p->lo) < A->nrows ? r0 + (1LL << p->lo) : A->nrows;
        const long long s = (long long)A->rowptr[r1] - A->rowptr[r0];
        if (s > span) span = s;
    }
    p->qb = bits_of(span > 0 ? (uint64_t)span - 1 : 0);
    return 2 * p->lo + p->qb <= 64;
}

/* The bucket levels: about 2^15 entries per bucket along a diagonal, more
 * levels where items would not fit.  0 when none fits (the fallback). */
static int zplan_init(const spk_csr *A, int K, zplan *p)
{
    const int dmax = K < ZMAX_BUCKET_LEVELS ? K : ZMAX_BUCKET_LEVELS;
    int d = bits_of((uint64_t)A->nnz) - 15;
    d = d < 0 ? 0 : d > dmax ? dmax : d;
    p->K = K;
    for (;; d++) {
        p->lo = K - d;
        if (zplan_fits(A, p)) break;
        if (d == dmax) return 0;
    }
    p->nb = (size_t)1 << (2 * d);
    return 1;
}

/* Items into their buckets, each in CSR order.  A band of 2^lo rows fills
 * the 2^d buckets of one bucket row, so both passes go band by band (the
 * bands shared among nt threads), with the band's counts and places in the
 * thread's nc counters of cnt (indexed by the column's bucket). */
static void zscatter(const spk_csr *A, zplan *p, uint64_t *items, int *cnt, int nt)
{
    const int lo = p->lo, nc = 1 << (p->K - lo), *colind = A->colind;
    const uint32_t lomask = (uint32_t)((1ull << lo) - 1);
    const long long band = 1LL << lo, nbands = ((long long)A->nrows + band - 1) >> lo;
    uint16_t sp[256]; /* spread() of a byte */
    for (uint32_t x = 0; x < 256; x++) sp[x] = (uint16_t)spread(x);
    memset(p->start, 0, (p->nb + 1) * sizeof(int));
    SPK_OMP(omp parallel for schedule(static, 1) num_threads(nt))
    for (int t = 0; t < nt; t++) { /* the counts */
        int *c = cnt + (size_t)nc * t;
        for (long long R = nbands * t / nt; R < nbands * (t + 1) / nt; R++) {
            const long long r0 = R * band;
            const int r1 = (int)(r0 + band < A->nrows ? r0 + band : A->nrows);
            memset(c, 0, (size_t)nc * sizeof(int));
            for (int q = A->rowptr[r0]; q < A->rowptr[r1]; q++) c[colind[q] >> lo]++;
            const uint64_t rb = spread((uint32_t)R) << 1;
            for (int C = 0; C < nc; C++) p->start[(rb | spread((uint32_t)C)) + 1] = c[C];
        }
    }
    for (size_t b = 0; b < p->nb; b++) p->start[b + 1] += p->start[b];
    SPK_OMP(omp parallel for schedule(static, 1) num_threads(nt))
    for (int t = 0; t < nt; t++) { /* the scatter */
        int *c = cnt + (size_t)nc * t;
        for (long long R = nbands * t / nt; R < nbands * (t + 1) / nt; R++) {
            const long long r0 = R * band;
            const int r1 = (int)(r0 + band < A->nrows ? r0 + band : A->nrows), base = A->rowptr[r0];
            const uint64_t rb = spread((uint32_t)R) << 1;
            for (int C = 0; C < nc; C++) c[C] = p->start[rb | spread((uint32_t)C)];
            for (int i = (int)r0; i < r1; i++) {
                const uint64_t rl = spread((uint32_t)i & lomask) << 1;
                for (int q = A->rowptr[i]; q < A->rowptr[i + 1]; q++) {
                    const uint32_t col = (uint32_t)colind[q], cl = col & lomask;
                    const uint64_t zc =
                        lo <= 16 ? (uint64_t)sp[cl & 255] | (uint64_t)sp[cl >> 8 & 255] << 16 : spread(cl);
                    items[c[col >> lo]++] = (rl | zc) << p->qb | (uint64_t)(q - base);
                }
            }
        }
    }
}

/* Stable sort of a[0, n) by item >> shift (bits bits, none set above), tmp
 * holding n items; the result in a. */
static void zsort_local(uint64_t *a, uint64_t *tmp, size_t n, int shift, int bits)
{
    if (n <= 32 || bits <= 0) {
        for (size_t i = 1; i < n; i++) {
            const uint64_t x = a[i];
            size_t j = i;
            for (; j > 0 && (a[j - 1] >> shift) > (x >> shift); j--) a[j] = a[j - 1];
            a[j] = x;
        }
        return;
    }
    const int wmax = n < 4096 ? 8 : 11, passes = (bits + wmax - 1) / wmax, w = (bits + passes - 1) / passes;
    const unsigned mask = (1u << w) - 1;
    unsigned cnt[1 << 11];
    uint64_t *src = a, *dst = tmp;
    for (int s = shift; s < shift + bits; s += w) {
        memset(cnt, 0, ((size_t)mask + 1) * sizeof *cnt);
        for (size_t i = 0; i < n; i++) cnt[(src[i] >> s) & mask]++;
        if (cnt[(src[0] >> s) & mask] == n) continue; /* one digit: the order stands */
        for (unsigned d = 0, sum = 0; d <= mask; d++) {
            const unsigned c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) dst[cnt[(src[i] >> s) & mask]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, n * sizeof *a);
}

/* The first bucket of thread t's share (of nt) of the items: buckets in
 * nt runs of about equal items. */
static size_t bucket_share(const zplan *p, int t, int nt)
{
    const long long want = (long long)p->start[p->nb] * t / nt;
    size_t lo = 0, hi = p->nb;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (p->start[mid] >= want) hi = mid; else lo = mid + 1;
    }
    return t == nt ? p->nb : lo;
}

/* Buckets [b0, b1) walked on from w's state. */
static void walk_buckets(const zplan *p, const uint64_t *items, walker *w, size_t b0, size_t b1)
{
    for (size_t b = b0; b < b1; b++)
        if (p->start[b + 1] > p->start[b])
            walk(w, items + p->start[b], (size_t)(p->start[b + 1] - p->start[b]), (uint64_t)b << 2 * p->lo, p->qb);
}

/* A thread's share of the walk: its buckets, and what the walk before it
 * leaves (the last key, the bits and subtrees so far, each level's last
 * node); its own bits, subtrees and last nodes (offsets in its bits, -1:
 * none) counted first. */
typedef struct zpart {
    size_t b0, b1;
    uint64_t prev, bits, last[33];
    int nsub;
    walker w;
} zpart;

/* The bits, subtrees and each level's last node of part z's keys (the
 * walk's rule without writing). */
static void count_part(const zplan *p, const uint64_t *items, const walker *w, zpart *z)
{
    const int K = w->K, ls = w->ls, lo2 = 2 * p->lo;
    uint64_t prev = z->prev, bits = 0;
    int first = p->start[z->b0] == 0, nsub = 0;
    for (int l = 0; l <= K; l++) z->last[l] = (uint64_t)-1;
    for (size_t b = z->b0; b < z->b1; b++)
        for (int i = p->start[b]; i < p->start[b + 1]; i++) {
            const uint64_t key = (uint64_t)b << lo2 | items[i] >> p->qb;
            const int t = first ? K : (63 - __builtin_clzll((key ^ prev) | 1)) / 2;
            first = 0;
            prev = key;
            nsub += t >= ls;
            for (int l = t; l >= 1; l--, bits += 4) z->last[l] = bits;
        }
    z->bits = bits;
    z->nsub = nsub;
}

/* The walk in nt parts side by side: each part's bits, subtrees and last
 * nodes counted, each part's start state from those before it, then each
 * walks its buckets into the shared (zeroed) stream. */
static int walk_parts(const zplan *p, const uint64_t *items, walker *w, int nt, spk_err *err)
{
    zpart *z = spk_calloc((size_t)nt, sizeof(zpart), "MQT walk parts", err);
    if (!z) return SPK_ERR_NOMEM;
    const int lo2 = 2 * p->lo;
    for (int t = 0; t < nt; t++) {
        z[t].b0 = bucket_share(p, t, nt);
        z[t].b1 = bucket_share(p, t + 1, nt);
        const int q = p->start[z[t].b0]; /* the key before the part's first: the last item before it */
        size_t b = z[t].b0;
        while (q > 0 && p->start[b] == q) b--;
        z[t].prev = q > 0 ? (uint64_t)b << lo2 | items[q - 1] >> p->qb : 0;
    }
    SPK_OMP(omp parallel for schedule(static, 1) num_threads(nt))
    for (int t = 0; t < nt; t++) count_part(p, items, w, &z[t]);
    walker at = *w; /* the state at each part's start */
    at.shared = 1;
    for (int t = 0; t < nt; t++) {
        z[t].w = at;
        z[t].w.prev = z[t].prev;
        z[t].w.k = p->start[z[t].b0];
        for (int l = 1; l <= w->K; l++)
            if (z[t].last[l] != (uint64_t)-1) at.slot[l] = at.bit + z[t].last[l];
        at.bit += z[t].bits;
        at.nsub += z[t].nsub;
    }
    SPK_OMP(omp parallel for schedule(static, 1) num_threads(nt))
    for (int t = 0; t < nt; t++) {
        walker *v = &z[t].w;
        walk_buckets(p, items, v, z[t].b0, z[t].b1);
        if (v->word) put_bits(w->M->bits, v->bit / 32, (unsigned)v->word, 1);
    }
    w->bit = at.bit;
    w->nsub = z[nt - 1].w.nsub;
    w->k = z[nt - 1].w.k;
    w->word = 0;
    free(z);
    return SPK_OK;
}

/* Each bucket sorted (the buckets shared among nt threads, each with its own
 * buffer of big items), all walked in order, then each one's values
 * replacing its items in place. */
static int zsort_walk(const spk_csr *A, const zplan *p, uint64_t *items, walker *w, int nt, spk_err *err)
{
    int big = 0;
    for (size_t b = 0; b < p->nb; b++)
        if (p->start[b + 1] - p->start[b] > big) big = p->start[b + 1] - p->start[b];
    uint64_t *tmp = spk_malloc(((size_t)big + 1) * (size_t)nt, sizeof(uint64_t), "MQT sort buffer", err);
    if (!tmp) return SPK_ERR_NOMEM;
    int st = SPK_OK;
    const int lo2 = 2 * p->lo;
    const uint64_t qmask = p->qb ? ~0ull >> (64 - p->qb) : 0;
    double *val = w->M->val;
    SPK_OMP(omp parallel for schedule(static, 1) num_threads(nt))
    for (int t = 0; t < nt; t++)
        for (size_t b = bucket_share(p, t, nt); b < bucket_share(p, t + 1, nt); b++)
            zsort_local(items + p->start[b], tmp + ((size_t)big + 1) * t, (size_t)(p->start[b + 1] - p->start[b]),
                        p->qb + 2, lo2 - 2);
    if (nt > 1)
        st = walk_parts(p, items, w, nt, err);
    else
        walk_buckets(p, items, w, 0, p->nb);
    SPK_OMP(omp parallel for schedule(static, 1) num_threads(nt))
    for (int t = 0; t < nt; t++)
        for (size_t b = bucket_share(p, t, nt); b < bucket_share(p, t + 1, nt); b++) {
            if (p->start[b + 1] == p->start[b]) continue; /* (its band may lie past the last row) */
            const double *src = A->val + A->rowptr[(long long)compact((uint64_t)b >> 1) << p->lo];
            for (int k = p->start[b]; k < p->start[b + 1]; k++) val[k] = src[items[k] & qmask];
        }
    free(tmp);
    return st;
}

/* ---- the fallback: (key, index) pairs by comparison ---- */

typedef struct zpair {
    uint64_t key;
    int q;
} zpair;

static int by_key(const void *a, const void *b)
{
    const uint64_t x = ((const zpair *)a)->key, y = ((const zpair *)b)->key;
    return x < y ? -1 : x > y;
}

/* The keys in order in items, walked, then the values in their place. */
static int zpairs_walk(const spk_csr *A, uint64_t *items, walker *w, spk_err *err)
{
    zpair *e = spk_malloc((size_t)A->nnz + 1, sizeof(zpair), "MQT entries", err);
    if (!e) return SPK_ERR_NOMEM;
    for (int i = 0; i < A->nrows; i++)
        for (int q = A->rowptr[i]; q < A->rowptr[i + 1]; q++)
            e[q] = (zpair){spread((uint32_t)i) << 1 | spread((uint32_t)A->colind[q]), q};
    qsort(e, (size_t)A->nnz, sizeof(zpair), by_key);
    for (int k = 0; k < A->nnz; k++) items[k] = e[k].key;
    walk(w, items, (size_t)A->nnz, 0, 0);
    for (int k = 0; k < A->nnz; k++) w->M->val[k] = A->val[e[k].q];
    free(e);
    return SPK_OK;
}

/* ---- the conversion ---- */

static int mqt_convert(const spk_csr *A, const spk_spmv_opts *o, void *fmt, spk_err *err)
{
    (void)o;
    spk_fmt_mqt *M = fmt;
    const int m = A->nrows, n = A->ncols, nnz = A->nnz;
    M->nrows = m;
    M->ncols = n;
    M->nnz = nnz;
    M->side = 1;
    int K = 0;
    while (M->side < m || M->side < n) {
        M->side *= 2;
        K++;
    }
    M->sub = M->side < SPK_MQT_SUB ? M->side : SPK_MQT_SUB;
    walker w;
    SPK_TRY(walker_init(&w, M, A, K, err));
    /* the items live in the values' array until the walk replaces them */
    M->val = spk_malloc((size_t)nnz + 1, sizeof(double), "MQT values", err);
    if (!M->val) return SPK_ERR_NOMEM;
    zplan p = {0};
    int st = SPK_OK;
    if (zplan_init(A, K, &p)) {
        const int nt = nnz >= SPK_PAR_MIN ? spk_host_threads() : 1;
        int *cnt = spk_malloc((size_t)nt << (K - p.lo), sizeof(int), "MQT buckets", err);
        p.start = spk_malloc(p.nb + 1, sizeof(int), "MQT buckets", err);
        if (!cnt || !p.start) st = SPK_ERR_NOMEM;
        uint64_t *items = (uint64_t *)(void *)M->val;
        if (!st) zscatter(A, &p, items, cnt, nt);
        if (!st) st = zsort_walk(A, &p, items, &w, nt, err);
        free(cnt);
        free(p.start);
    } else {
        st = zpairs_walk(A, (uint64_t *)(void *)M->val, &w, err);
    }
    if (st) return st;
    walker_finish(&w);
    if (w.nsub != M->nsub || w.k != nnz)
        return spk_err_set(err, SPK_ERR_INTERNAL, "MQT: %d subtrees and %d entries written, %d and %d counted",
                           w.nsub, w.k, M->nsub, nnz);
    return SPK_OK;
}

static int mqt_arrays(void *fmt, spk_format_array *l)
{
    spk_fmt_mqt *M = fmt;
    const size_t ns = (size_t)M->nsub * sizeof(int);
    l[0] = (spk_format_array){(void **)&M->bits, (size_t)((M->nbits + 31) / 32) * sizeof(unsigned), 0};
    l[1] = (spk_format_array){(void **)&M->val, (size_t)M->nnz * sizeof(double), 1};
    l[2] = (spk_format_array){(void **)&M->sub_row, ns, 0};
    l[3] = (spk_format_array){(void **)&M->sub_col, ns, 0};
    l[4] = (spk_format_array){(void **)&M->sub_bit, ns, 0};
    l[5] = (spk_format_array){(void **)&M->sub_val, ns, 0};
    return 6;
}

void spk_mqt_ref(const spk_fmt_mqt *M, double alpha, const double *x, double beta, double *y)
{
    for (int i = 0; i < M->nrows; i++) y[i] = beta == 0.0 ? 0.0 : beta * y[i];
    double sum[SPK_MQT_SUB];
    for (int t = 0; t < M->nsub; t++) {
        const unsigned touched = spk_mqt_decode(M->sub, M->bits, M->val, M->sub_row[t], M->sub_col[t],
                                                M->sub_bit[t], M->sub_val[t], x, sum);
        for (int r = 0; r < M->sub; r++)
            if ((touched >> r) & 1) y[M->sub_row[t] + r] += alpha * sum[r];
    }
}

static void mqt_ref(const void *fmt, double alpha, const double *x, double beta, double *y)
{
    spk_mqt_ref(fmt, alpha, x, beta, y);
}

static void mqt_describe(const void *fmt, char *buf, size_t len)
{
    const spk_fmt_mqt *M = fmt;
    snprintf(buf, len, "MQT, side %d, %lld bits of structure (%.2f an entry), %d subtrees of side %d, %d nonzeros",
             M->side, M->nbits, M->nnz ? (double)M->nbits / M->nnz : 0.0, M->nsub, M->sub, M->nnz);
}

static const spk_format mqt_format = {
    "mqt", "MQT, minimal quad tree", sizeof(spk_fmt_mqt), mqt_convert, mqt_arrays, mqt_ref,
    SPK_FORMAT_LAUNCH(spk_mqt_launch), mqt_describe, SPK_FORMAT_BUILD(NULL),
};

SPK_FORMAT_BACKENDS(mqt, "mqt",
                    "MQT: the quad tree's structure as a bit stream, values in its depth-first order; a thread "
                    "decodes each 32x32 subtree (atomics)",
                    mqt_format)
