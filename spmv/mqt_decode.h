/* mqt_decode.h -- the decoding of one MQT subtree (mqt.h), shared by the
 * host reference (mqt.c) and the kernel (mqt.cu), so that both walk the bit
 * stream the same way: depth first from the subtree's own 4 bits at `bit`,
 * a quadrant's subtree before the next quadrant, each cell's value (from
 * `v` on) times x of its column added into sum[row - r0].  Returns the rows
 * touched (bit r for row r0 + r); sum holds `sub` entries.  The values, x
 * and sum are spk_mqt_real: double in C (the host reference), a template
 * parameter in C++/CUDA (double, or float for a single-precision kernel). */
#ifndef SPK_SPMV_MQT_DECODE_H
#define SPK_SPMV_MQT_DECODE_H

#ifdef __CUDACC__
#define SPK_MQT_HD __host__ __device__ __forceinline__
#else
#define SPK_MQT_HD static inline
#endif

#ifdef __cplusplus
#define SPK_MQT_TEMPLATE template <typename spk_mqt_real>
#else
#define SPK_MQT_TEMPLATE
typedef double spk_mqt_real;
#endif

/* the 4 bits of a node at bit b (quadrant q in bit q) */
SPK_MQT_HD int spk_mqt_get4(const unsigned *bits, long long b)
{
    int v = 0;
    for (int k = 0; k < 4; k++, b++) v |= (int)((bits[b / 32] >> (b % 32)) & 1u) << k;
    return v;
}

SPK_MQT_TEMPLATE
SPK_MQT_HD unsigned spk_mqt_decode(int sub, const unsigned *bits, const spk_mqt_real *val, int r0, int c0,
                                   long long bit, int v, const spk_mqt_real *x, spk_mqt_real *sum)
{
    for (int r = 0; r < sub; r++) sum[r] = 0;
    if (sub == 1) { /* the subtree is one cell */
        sum[0] = val[v] * x[c0];
        return 1u;
    }
    unsigned touched = 0;
    int sr[8], sc[8], ss[8], sb[8], sn[8], depth = 0; /* the path: node, its 4 bits, its next quadrant */
    sr[0] = r0;
    sc[0] = c0;
    ss[0] = sub;
    sb[0] = spk_mqt_get4(bits, bit);
    bit += 4;
    sn[0] = 0;
    while (depth >= 0) {
        int q = sn[depth];
        while (q < 4 && !((sb[depth] >> q) & 1)) q++;
        if (q == 4) {
            depth--;
            continue;
        }
        sn[depth] = q + 1;
        const int h = ss[depth] / 2, cr = sr[depth] + (q >> 1) * h, cc = sc[depth] + (q & 1) * h;
        if (h == 1) {
            sum[cr - r0] += val[v++] * x[cc];
            touched |= 1u << (cr - r0);
            continue;
        }
        depth++;
        sr[depth] = cr;
        sc[depth] = cc;
        ss[depth] = h;
        sb[depth] = spk_mqt_get4(bits, bit);
        bit += 4;
        sn[depth] = 0;
    }
    return touched;
}

#endif
