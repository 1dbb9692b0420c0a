// block_kernels.cu -- whole CG and BiCGStab iterations in one thread block
// (exec.h, spk_block_job): for small systems, where an iteration of
// separate kernels costs its launches and the waits between them more than
// its arithmetic, one block of kSmallBlock threads runs the fused steps of
// solver/fused.c back to back, the vectors in global memory (in the SM's
// L1 between steps), barriers in place of kernel boundaries.
//
// Each step is the fused kernel's arithmetic (krylov_kernels.cu) with the
// same guards; the reductions add in a fixed order (each thread its
// entries, then the warps, then the 32 warp sums in order), so a run
// repeats to the bit.  After each point where the fused driver reads its
// scalars, the kernel writes them to `reads` and applies the driver's tests
// (fused.c, krylov_common.h) to them, stopping where any would end the loop
// or leave the fast path; the host replays the reads through its own tests.
//
// Phases: thread 0 reads clock64() at the barriers that end the product,
// the preconditioner and the vector steps, and the shares of the three go
// back with the reads.
//
// A cluster of blocks (sm_90; devtri.cuh, Cluster) runs the same kernels
// for systems with more entries than one SM reads fast enough: each step's
// rows dealt over all the cluster's threads, barriers over the cluster, a
// reduction's block sums added pairwise across a warp's lanes (the same bits
// in every block, so all take the same branches), the sweeps' iterates in
// global memory, each block's rows of the factor in its shared memory.
#include <cuda.h>
#include <cuda_runtime.h>

#include <stdlib.h>

#include "block_kernels.h"
#include "precond/devtri.cuh"

namespace {

using namespace spk_devtri;

constexpr int kT = kSmallBlock;
constexpr int kWarps = kT / 32;
constexpr unsigned kFull = 0xffffffffu;

__device__ __forceinline__ bool fin(double v)
{
    return isfinite(v);
}

// Shared scratch of the reductions: the warps' sums, and (a cluster) every
// block's sum, which each block writes into every block's copy before the
// barrier, in one of two slots used in turn.  A block's slot is written
// again two sums later, after the barrier of the sum between, which no
// block passes before it has read the slot.
// stop: whether the race is over (spk_block_job.over) as thread 0 of block 0 read it
// in an iteration, written into every block's copy before a barrier, in
// two slots by the iteration's parity (the next write to a slot comes two
// iterations later, after barriers no block passes before reading it).
struct red {
    double w[kWarps];
    double all[2][SPK_BLOCK_CLUSTER_MAX];
    double stop[2];
    double2 w2[kWarps]; /* block_sum2's */
    double2 all2[2][SPK_BLOCK_CLUSTER_MAX];
    int turn;
};

// The sum of v over the block (the cluster), in every thread.
template <typename G>
__device__ __forceinline__ double block_sum(double v, red &sh)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(kFull, v, o);
    /* sh.w may still be read by the previous sum; in a cluster, its reads
     * ended before its cluster barrier */
    if (!G::kCluster) __syncthreads();
    if ((threadIdx.x & 31) == 0) sh.w[threadIdx.x >> 5] = v;
    __syncthreads();
    double t = 0;
    for (int w = 0; w < kWarps; w++) t += sh.w[w];
    if (!G::kCluster) return t;
    const int slot = sh.turn;
    if ((int)threadIdx.x < G::blocks()) G::put(&sh.all[slot][G::rank()], threadIdx.x, t);
    G::sync();
    /* lane b takes block b's sum; the lanes' values added pairwise, which
     * gives every lane of every warp of every block the same bits */
    const int lane = threadIdx.x & 31;
    double c = lane < G::blocks() ? sh.all[slot][lane] : 0.0;
    for (int o = 16; o > 0; o >>= 1) c += __shfl_xor_sync(kFull, c, o);
    if (threadIdx.x == 0) sh.turn = slot ^ 1; /* read again only after the next barrier */
    return c;
}

// Two sums at once, each with block_sum's additions in block_sum's order
// (the same bits), over one set of barriers.
template <typename G>
__device__ __forceinline__ double2 block_sum2(double a, double b, red &sh)
{
    for (int o = 16; o > 0; o >>= 1) {
        a += __shfl_xor_sync(kFull, a, o);
        b += __shfl_xor_sync(kFull, b, o);
    }
    if (!G::kCluster) __syncthreads(); /* as block_sum's */
    if ((threadIdx.x & 31) == 0) sh.w2[threadIdx.x >> 5] = make_double2(a, b);
    __syncthreads();
    double ta = 0, tb = 0;
    for (int w = 0; w < kWarps; w++) {
        ta += sh.w2[w].x;
        tb += sh.w2[w].y;
    }
    if (!G::kCluster) return make_double2(ta, tb);
    const int slot = sh.turn;
    if ((int)threadIdx.x < G::blocks()) G::put(&sh.all2[slot][G::rank()], threadIdx.x, make_double2(ta, tb));
    G::sync();
    const int lane = threadIdx.x & 31;
    double ca = 0, cb = 0;
    if (lane < G::blocks()) {
        ca = sh.all2[slot][lane].x;
        cb = sh.all2[slot][lane].y;
    }
    for (int o = 16; o > 0; o >>= 1) {
        ca += __shfl_xor_sync(kFull, ca, o);
        cb += __shfl_xor_sync(kFull, cb, o);
    }
    if (threadIdx.x == 0) sh.turn = slot ^ 1; /* read again only after the next barrier */
    return make_double2(ca, cb);
}

template <typename G>
__device__ __forceinline__ double block_dot(int n, const double *x, const double *y, red &sh)
{
    double a = 0;
    for (int i = G::first(); i < n; i += G::stride()) a += G::ld(x + i) * G::ld(y + i);
    return block_sum<G>(a, sh);
}

// f(i, (A x)_i) for each row i, `lanes` lanes a row (a power of two up to
// 32; f in its first lane), rows dealt in rounds so that every lane of a
// warp takes part in every shuffle.
template <typename G, typename F>
__device__ __forceinline__ void block_rows(int n, int g, const int *rp, const int *ci, const double *val,
                                           const double *x, F f)
{
    const int lane = threadIdx.x & (g - 1), groups = kT / g;
    const int mine = G::rank() * groups + (int)threadIdx.x / g, all = G::blocks() * groups;
    for (int base = 0; base < n; base += all) {
        const int i = base + mine;
        double s = 0;
        if (i < n)
#pragma unroll 4
            for (int k = rp[i] + lane, e = rp[i + 1]; k < e; k += g) s += val[k] * G::ld(x + ci[k]);
        for (int o = g / 2; o > 0; o >>= 1) s += __shfl_xor_sync(kFull, s, o, g);
        if (i < n && lane == 0) f(i, s);
    }
}

// y = A x; ends with a barrier.
template <typename G>
__device__ __forceinline__ void block_spmv(const spk_block_job &j, const double *x, double *y)
{
    block_rows<G>(j.n, j.lanes, j.rp, j.ci, j.val, x, [&](int i, double s) { y[i] = s; });
    G::sync();
}

// y = A x and, in one reduction with no barrier between, the sum of w_i
// y_i (w written before a barrier), in every thread: each row's first lane
// adds its own product, read by no other thread before the reduction's
// barriers.
template <typename G>
__device__ __forceinline__ double block_spmv_dot(const spk_block_job &j, const double *x, double *y,
                                                 const double *w, red &sh)
{
    double acc = 0;
    block_rows<G>(j.n, j.lanes, j.rp, j.ci, j.val, x, [&](int i, double s) {
        y[i] = s;
        acc += G::ld(w + i) * s;
    });
    return block_sum<G>(acc, sh);
}

// t't for t = b - A x, in every thread (x written before a barrier).  Not
// inlined: once a run, and inlined it cost CG's one-block kernel registers
// (0 -> 176 bytes of stack); so its arguments by value, none a reference
// into the kernel's parameter.
template <typename G>
__device__ __noinline__ double block_residual(int n, int g, const int *rp, const int *ci, const double *val,
                                              const double *x, const double *b, red *sh)
{
    double acc = 0;
    block_rows<G>(n, g, rp, ci, val, x, [&](int i, double s) {
        const double t = b[i] - s;
        acc += t * t;
    });
    return block_sum<G>(acc, *sh);
}

// The answer's true residual where the iterations ended converged at
// their last read (met, the same in every thread): t't for t = b - A x into
// *j.true_rr, so that the answer needs no kernels and no read after these;
// NaN where not met (the driver computes it then).
template <typename G>
__device__ __forceinline__ void true_residual(const spk_block_job &j, bool met, red *sh)
{
    if (!j.true_rr) return;
    const double tt = met && j.b ? block_residual<G>(j.n, j.lanes, j.rp, j.ci, j.val, j.x, j.b, sh)
                                 : __longlong_as_double(0x7ff8000000000000LL);
    if (G::first() == 0) *j.true_rr = tt;
}

// r -= a v after first(i) for each i (an update of x that reads r's old
// entry where it aliases it), giving r'r; nothing and NaN when !ok (the
// fused kernels' failed guard).
template <typename G, typename First>
__device__ __forceinline__ double residual_step(bool ok, int n, double a, const double *v, double *r, red &sh,
                                                First first)
{
    if (!ok) return __longlong_as_double(0x7ff8000000000000LL);
    double acc = 0;
    for (int i = G::first(); i < n; i += G::stride()) {
        first(i);
        const double ri = G::ld(r + i) - a * G::ld(v + i);
        r[i] = ri;
        acc += ri * ri;
    }
    return block_sum<G>(acc, sh);
}

// residual_step's update with r'r and, in the same reduction, the sum of
// second(i, r_i) over the new r (each added in the order of a single sum:
// the bits block_dot gives for it after the update).  CG with Jacobi (d_i =
// 1 / a_ii): second = r_i (r_i d_i), r'z for z = d r as diag_apply makes it,
// so that z is never stored and the next iteration needs no reduction of
// its own; BiCGStab: second = r0_i r_i, the next iteration's rho.
template <typename G, typename First, typename Second>
__device__ __forceinline__ double2 residual_step2(bool ok, int n, double a, const double *v, double *r, red &sh,
                                                  First first, Second second)
{
    const double nan = __longlong_as_double(0x7ff8000000000000LL);
    if (!ok) return make_double2(nan, nan);
    double acc = 0, acc2 = 0;
    for (int i = G::first(); i < n; i += G::stride()) {
        first(i);
        const double ri = G::ld(r + i) - a * G::ld(v + i);
        r[i] = ri;
        acc += ri * ri;
        acc2 += second(i, ri);
    }
    return block_sum2<G>(acc, acc2, sh);
}

// Phase clock of thread 0.
struct clock3 {
    long long last, acc[SPK_PHASES];
    __device__ __forceinline__ void start()
    {
        last = clock64();
        for (int p = 0; p < SPK_PHASES; p++) acc[p] = 0;
    }
    __device__ __forceinline__ void mark(int ph)
    {
        if (threadIdx.x == 0) {
            const long long t = clock64();
            acc[ph] += t - last;
            last = t;
        }
    }
};

// The fused driver's norm: sqrt(vv) on its fast path (0 < vv <= finite,
// above 1e-290), else the driver calls nrm2 (-1 here: stop).
__device__ __forceinline__ double fast_norm(double vv)
{
    return vv != 0 && fin(vv) && vv > 1e-290 ? sqrt(vv) : -1.0;
}

// Does ||r|| end the loop (krylov_end_step)?
__device__ __forceinline__ bool end_test(const spk_block_job &j, double rn)
{
    return !fin(rn) || rn <= j.conv || rn <= j.atol || (j.div > 0 && rn > j.div);
}

// read i's place: i, or i mod j.ring (a job whose host reads only its last)
__device__ __forceinline__ int read_at(const spk_block_job &j, int i)
{
    return j.ring > 0 ? i % j.ring : i;
}

template <typename G>
__device__ __forceinline__ void put3(double *reads, int i, double a, double b, double c)
{
    if (G::first() == 0) {
        reads[3 * i] = a;
        reads[3 * i + 1] = b;
        reads[3 * i + 2] = c;
    }
}

// The count and the phases (block 0), then, in a cluster, a barrier: no
// block leaves while another may still read its shared memory.
template <typename G>
__device__ __forceinline__ void finish_out(int *count, long long *cycles, int reads, const clock3 &ck)
{
    if (G::first() == 0) {
        *count = reads;
        for (int p = 0; p < SPK_PHASES; p++) cycles[p] = ck.acc[p];
    }
    if (G::kCluster) G::sync();
}

// The shared scratch of a kernel: the reductions', and the sweeps' iterates
// (one block: dynamic shared memory; a cluster: j.scratch).
#define BLOCK_SCRATCH(G, j)                                                                                        \
    extern __shared__ double xs_dyn[];                                                                             \
    __shared__ red sh;                                                                                             \
    if (threadIdx.x == 0) sh.turn = 0;                                                                             \
    __syncthreads();                                                                                               \
    double *const xs = G::kCluster ? (j).scratch : xs_dyn;                                                         \
    __shared__ Staged staged_;                                                                                     \
    const Staged *const stg = stage<G>(j, (char *)xs_dyn, &staged_);                                               \
    __shared__ LongRows long_;                                                                                     \
    const LongRows *const lrs = uneven<G, W>(j, &long_)

// The bytes of dynamic shared memory this launch has.
__device__ __forceinline__ unsigned dynamic_smem_bytes()
{
    unsigned b;
    asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(b));
    return b;
}

// A cluster's sweeps (sliced or on the factor as stored): the factor's
// entries of the block's rows in its shared memory for the run (devtri.cuh,
// stage_factor), where the launch gave it some (kStageBytes); NULL
// otherwise.
template <typename G>
__device__ __forceinline__ const Staged *stage(const spk_block_job &j, char *smem, Staged *st)
{
    if (!G::kCluster || (j.M.kind != SPK_BLOCK_SWEEPS && j.M.kind != SPK_BLOCK_SWEEPS_CSR)) return nullptr;
    const unsigned bytes = dynamic_smem_bytes();
    if (bytes == 0) return nullptr;
    stage_factor(j.n, j.M, smem, bytes, *st);
    return st;
}

// The sweeps' long rows, listed once for the run: one block's, on the
// factor as stored, or sliced with wide slices (W: spk_block_prec.wide;
// devtri.cuh, long_rows); a cluster's, on the factor as stored, with W
// (cluster_long_rows); NULL otherwise.
template <typename G, bool W>
__device__ __forceinline__ const LongRows *uneven(const spk_block_job &j, LongRows *lr)
{
    if (G::kCluster && W && j.M.kind == SPK_BLOCK_SWEEPS_CSR) {
        cluster_long_rows(j.n, j.M, *lr);
        return lr;
    }
    if (G::kCluster || (j.M.kind != SPK_BLOCK_SWEEPS_CSR && !(W && j.M.kind == SPK_BLOCK_SWEEPS))) return nullptr;
    long_rows(j.n, j.M, *lr);
    return lr;
}

// CG from the state after a read: for each iteration, z = M^-1 r and rz' =
// r'z (or ||r||^2), p = z + (rz'/rz) p, q = A p, pq = p'q, the update of x
// and r with rr = r'r; read (rz', pq, rr).
template <typename G, bool W = false>
__global__ void __launch_bounds__(kT) cg_block_kernel(spk_block_job j, double *slots, double *reads, int *count,
                                                      long long *cycles)
{
    BLOCK_SCRATCH(G, j);
    const int n = j.n, prec = j.M.kind != SPK_BLOCK_IDENTITY, jac = j.M.kind == SPK_BLOCK_DIAG;
    double *x = j.x, *r = j.v[0], *p = j.v[1], *q = j.v[2], *z = prec ? j.v[3] : r;
    const double *dg = j.M.id[0];
    int cur = j.slot[0], next = j.slot[1];
    double rz = j.first ? 1.0 : slots[cur], rn = j.rnorm, rzn = 0, pq = 0, rr = 0;
    if (prec && j.diag_of_A) /* Jacobi's 1 / a_ii, for this thread's rows only: no barrier */
        for (int i = G::first(); i < n; i += G::stride()) {
            double a = 0;
            for (int k = j.rp[i], e = j.rp[i + 1]; k < e; k++)
                if (j.ci[k] == i) {
                    a = j.val[k];
                    break;
                }
            ((double *)j.M.id[0])[i] = a != 0 ? 1.0 / a : 0.0;
        }
    /* Jacobi: r'z of the launch's r; then each iteration's update gives the next */
    double rzj = 0;
    if (jac) {
        double a = 0;
        for (int i = G::first(); i < n; i += G::stride()) {
            const double ri = G::ld(r + i);
            a += ri * (ri * dg[i]);
        }
        rzj = block_sum<G>(a, sh);
    }
    clock3 ck;
    ck.start();
    int done = 0;
    bool met = false;
    /* The race's flag: a job alongside (CG without a preconditioner or with
     * Jacobi, whose product takes less than the load) loads it an iteration
     * before it uses it, so that its latency hides behind a whole iteration
     * (the end is seen an iteration later); the solve with IC(0)/ILU(0)
     * loads it at the start of the iteration, to use after the product. */
    const int lead = j.over && G::first() == 0;
    int ahead = lead && j.signal ? *(const volatile int *)j.over : 0;
    for (int it = j.it + 1; done < j.iters; it++) {
        int seen;
        if (j.signal) {
            seen = ahead;
            ahead = lead ? *(const volatile int *)j.over : 0;
        } else {
            seen = lead ? *(const volatile int *)j.over : 0;
        }
        if (jac) { /* z_i = r_i d_i, made where p takes it */
            rzn = rzj;
            ck.mark(SPK_PHASE_PRECOND);
        } else if (prec) {
            block_prec_apply<G, W>(n, j.M, r, z, xs, stg, lrs);
            ck.mark(SPK_PHASE_PRECOND);
            rzn = block_dot<G>(n, r, z, sh);
        } else {
            rzn = rn * rn;
        }
        const double beta = rzn / rz;
        if (j.first && it == 1) /* p = z: the copy of the driver's first iteration */
            for (int i = G::first(); i < n; i += G::stride()) p[i] = jac ? G::ld(r + i) * dg[i] : G::ld(z + i);
        else if (fin(beta))
            for (int i = G::first(); i < n; i += G::stride())
                p[i] = (jac ? G::ld(r + i) * dg[i] : G::ld(z + i)) + beta * G::ld(p + i);
        G::sync();
        ck.mark(SPK_PHASE_VECTOR);
        if (lead) /* into every block's copy, published by the barriers of pq's sum */
            for (int b = 0; b < G::blocks(); b++) G::put(&sh.stop[it & 1], b, seen == j.race);
        /* a cluster: p'q summed in the product, a cluster barrier less (other
         * bits: each row's product added by its first lane; BiCGStab keeps
         * its sums as they were, its iterations on watt_2, sherman3 and
         * add20 moved by 8-84 % with them so); one block: it cost registers
         * (0 -> 152 bytes of stack) */
        if constexpr (G::kCluster) {
            pq = block_spmv_dot<G>(j, p, q, p, sh);
            ck.mark(SPK_PHASE_SPMV);
        } else {
            block_spmv<G>(j, p, q);
            ck.mark(SPK_PHASE_SPMV);
            pq = block_dot<G>(n, p, q, sh);
        }
        const double a = rzn / pq;
        const bool ok = rzn > 0 && pq > 0 && fin(rzn) && fin(pq) && fin(a);
        auto upd = [&](int i) { x[i] = G::ld(x + i) + a * G::ld(p + i); };
        if (jac) {
            const double2 s2 =
                residual_step2<G>(ok, n, a, q, r, sh, upd, [&](int i, double ri) { return ri * (ri * dg[i]); });
            rr = s2.x;
            rzj = s2.y;
        } else {
            rr = residual_step<G>(ok, n, a, q, r, sh, upd);
        }
        ck.mark(SPK_PHASE_VECTOR);
        put3<G>(reads, read_at(j, done++), rzn, pq, rr);
        rz = rzn;
        const int t = cur;
        cur = next;
        next = t;
        if (!(fin(rzn) && rzn > 0) || !(fin(pq) && pq > 0)) break;
        rn = fast_norm(rr);
        const bool halt = j.over && sh.stop[it & 1] != 0;
        met = rr == 0 || (rn >= 0 && (rn <= j.conv || rn <= j.atol));
        if (rn < 0 || end_test(j, rn) || it >= j.maxit || halt) break;
    }
    if (met && j.over && j.signal && G::first() == 0) *(volatile int *)j.over = j.race;
    true_residual<G>(j, met, &sh);
    if (G::first() == 0) {
        slots[cur] = rz;
        slots[j.slot[2]] = pq;
        slots[j.slot[3]] = rr;
    }
    finish_out<G>(count, cycles, done, ck);
}

// BiCGStab (right-preconditioned) from the state after an iteration's
// second read, not a first step (p = r): rho = r0'r, p = r + beta (p -
// omega v), ph = M^-1 p, v = A ph, r0v = r0'v, s = r - alpha v with ss = s's;
// read (rho, r0v, ss); sh = M^-1 s, t = A sh, tt = t't, ts = t's, x = (x +
// alpha ph) + omega sh, r = s - omega t with rr; read (tt, ts, rr).
template <typename G, bool W = false>
__global__ void __launch_bounds__(kT) bicg_block_kernel(spk_block_job j, double *slots, double *reads, int *count,
                                                        long long *cycles)
{
    BLOCK_SCRATCH(G, j);
    const int n = j.n, prec = j.M.kind != SPK_BLOCK_IDENTITY;
    double *x = j.x, *r = j.v[0], *r0 = j.v[1], *p = j.v[2], *v = j.v[3], *t = j.v[4];
    double *ph = prec ? j.v[5] : p, *shv = prec ? j.v[6] : r;
    int cur = j.slot[0], old = j.slot[1];
    double rho_c = slots[cur], rho_o = slots[old], r0v = slots[j.slot[2]], ss = slots[j.slot[3]];
    double tt = slots[j.slot[4]], ts = slots[j.slot[5]], rr = slots[j.slot[6]];
    clock3 ck;
    ck.start();
    int done = 0;
    /* kFold (a cluster, whose reductions each cost a cluster barrier): t't
     * and t's in one reduction, and rho = r0'r, after the launch's first,
     * from the reduction of the update before it (the same bits).  Not in
     * one block: there it made the kernel spill (0 -> 24 bytes of stack). */
    constexpr bool kFold = G::kCluster;
    double rho_next = 0;
    bool met = false;
    for (int it = j.it + 1, k = 0; k < j.iters; it++, k++) {
        const double rho = !kFold || k == 0 ? block_dot<G>(n, r0, r, sh) : rho_next;
        rho_c = rho;
        if (fin(rho) && rho != 0) {
            const double alpha_o = rho_o / r0v, omega_o = ts / tt;
            const double beta = (rho / rho_o) * (alpha_o / omega_o);
            if (fin(beta))
                for (int i = G::first(); i < n; i += G::stride())
                    p[i] = G::ld(r + i) + beta * (G::ld(p + i) - omega_o * G::ld(v + i));
        }
        G::sync();
        ck.mark(SPK_PHASE_VECTOR);
        if (prec) {
            block_prec_apply<G, W>(n, j.M, p, ph, xs, stg, lrs);
            ck.mark(SPK_PHASE_PRECOND);
        }
        block_spmv<G>(j, ph, v);
        ck.mark(SPK_PHASE_SPMV);
        r0v = block_dot<G>(n, r0, v, sh);
        const double a = rho / r0v;
        ss = residual_step<G>(fin(a), n, a, v, r, sh, [](int) {});
        ck.mark(SPK_PHASE_VECTOR);
        put3<G>(reads, read_at(j, done++), rho, r0v, ss);
        if (!fin(rho) || rho == 0 || !fin(r0v) || !fin(r0v != 0 ? rho / r0v : INFINITY)) break;
        const double sn = fast_norm(ss);
        if (sn < 0 || sn <= j.conv || sn <= j.atol) break;
        if (prec) {
            block_prec_apply<G, W>(n, j.M, r, shv, xs, stg, lrs);
            ck.mark(SPK_PHASE_PRECOND);
        }
        block_spmv<G>(j, shv, t);
        ck.mark(SPK_PHASE_SPMV);
        {
            double a2 = 0, b2 = 0;
            for (int i = G::first(); i < n; i += G::stride()) {
                const double ti = G::ld(t + i);
                a2 += ti * ti;
                b2 += ti * G::ld(r + i);
            }
            if constexpr (kFold) {
                const double2 s2 = block_sum2<G>(a2, b2, sh);
                tt = s2.x;
                ts = s2.y;
            } else {
                tt = block_sum<G>(a2, sh);
                ts = block_sum<G>(b2, sh);
            }
        }
        const double w = ts / tt;
        // shv is r without a preconditioner: its entry is read before r's is written
        const bool ok = tt != 0 && fin(tt) && fin(ts) && fin(a) && fin(w);
        auto upd = [&](int i) { x[i] = (G::ld(x + i) + a * G::ld(ph + i)) + w * G::ld(shv + i); };
        if constexpr (kFold) {
            const double2 s3 =
                residual_step2<G>(ok, n, w, t, r, sh, upd, [&](int i, double ri) { return G::ld(r0 + i) * ri; });
            rr = s3.x;
            rho_next = s3.y;
        } else {
            rr = residual_step<G>(ok, n, w, t, r, sh, upd);
        }
        ck.mark(SPK_PHASE_VECTOR);
        put3<G>(reads, read_at(j, done++), tt, ts, rr);
        // the driver's next iteration takes this rho as rho_old
        const int sw = cur;
        cur = old;
        old = sw;
        rho_o = rho_c;
        if (!fin(tt) || !fin(ts) || tt == 0) break;
        const double rn = fast_norm(rr);
        met = rr == 0 || (rn >= 0 && (rn <= j.conv || rn <= j.atol));
        if (rn < 0 || end_test(j, rn) || w == 0 || it >= j.maxit) break;
    }
    true_residual<G>(j, met, &sh);
    if (G::first() == 0) {
        slots[cur] = rho_c;
        slots[old] = rho_o;
        slots[j.slot[2]] = r0v;
        slots[j.slot[3]] = ss;
        slots[j.slot[4]] = tt;
        slots[j.slot[5]] = ts;
        slots[j.slot[6]] = rr;
    }
    finish_out<G>(count, cycles, done, ck);
}

}  // namespace

// The driver's calls for loading a module's kernels, found at run time (no
// link to the driver library); 0 where the driver has none (before 12.4).
typedef CUresult (*fn_get_module)(CUmodule *, CUfunction);
typedef CUresult (*fn_count)(unsigned *, CUmodule);
typedef CUresult (*fn_enumerate)(CUfunction *, unsigned, CUmodule);
typedef CUresult (*fn_load)(CUfunction);

static int driver_call(const char *name, void **fn)
{
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    *fn = NULL;
    return cudaGetDriverEntryPointByVersion(name, fn, 12040, cudaEnableDefault, &q) == cudaSuccess &&
           q == cudaDriverEntryPointSuccess && *fn;
}

extern "C" cudaError_t spk_module_preload(const void *kernel, int *done)
{
    *done = 0;
    void *g = NULL, *c = NULL, *en = NULL, *ld = NULL;
    if (!driver_call("cuFuncGetModule", &g) || !driver_call("cuModuleGetFunctionCount", &c) ||
        !driver_call("cuModuleEnumerateFunctions", &en) || !driver_call("cuFuncLoad", &ld))
        return cudaSuccess;
    cudaFunction_t f = NULL;
    cudaError_t st = cudaGetFuncBySymbol(&f, kernel);
    if (st != cudaSuccess) return st;
    CUmodule m = NULL;
    unsigned count = 0;
    if (((fn_get_module)g)(&m, (CUfunction)f) != CUDA_SUCCESS || ((fn_count)c)(&count, m) != CUDA_SUCCESS)
        return cudaErrorUnknown;
    CUfunction *all = (CUfunction *)calloc(count ? count : 1, sizeof *all);
    if (!all) return cudaErrorMemoryAllocation;
    st = ((fn_enumerate)en)(all, count, m) == CUDA_SUCCESS ? cudaSuccess : cudaErrorUnknown;
    for (unsigned i = 0; st == cudaSuccess && i < count; i++)
        if (((fn_load)ld)(all[i]) != CUDA_SUCCESS) st = cudaErrorUnknown;
    free(all);
    *done = st == cudaSuccess;
    return st;
}

extern "C" const void *spk_block_kernels_probe(void)
{
    return (const void *)cg_block_kernel<OneBlock>;
}

extern "C" cudaError_t spk_block_allow(unsigned shared_bytes)
{
    const void *k[4] = {(const void *)cg_block_kernel<OneBlock>, (const void *)bicg_block_kernel<OneBlock>,
                        (const void *)cg_block_kernel<OneBlock, true>, (const void *)bicg_block_kernel<OneBlock, true>};
    cudaError_t st = cudaSuccess;
    for (int i = 0; i < 4 && st == cudaSuccess; i++)
        st = cudaFuncSetAttribute(k[i], cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared_bytes);
    return st;
}

// The shared memory a cluster's block gets for its share of the sweeps'
// factor (stage; a triangle that does not fit is read from global memory,
// the same arithmetic): both triangles of a block's rows of a regular
// system near the cluster's limit with sweeps (exec.h; bcsstk15, 117,816
// entries) take about 130 KB; the rest of the SM's 256 KB stays L1 for the
// matrix of the product.  On the H100, 160 KB against 96: bcsstk15 93
// against 99 us an iteration, the smaller systems the same.
#ifndef SPK_BLOCK_STAGE_KB
#define SPK_BLOCK_STAGE_KB 160
#endif
constexpr unsigned kStageBytes = (unsigned)SPK_BLOCK_STAGE_KB << 10;

// A launch of one cluster of c blocks on stream s (at: its attribute).
static cudaLaunchConfig_t cluster_config(int c, cudaStream_t s, cudaLaunchAttribute *at)
{
    cudaLaunchConfig_t cfg = {};
    at->id = cudaLaunchAttributeClusterDimension;
    at->val.clusterDim.x = (unsigned)c;
    at->val.clusterDim.y = 1;
    at->val.clusterDim.z = 1;
    cfg.gridDim = dim3((unsigned)c);
    cfg.blockDim = dim3(kT);
    cfg.dynamicSmemBytes = 0;
    cfg.stream = s;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    return cfg;
}

extern "C" cudaError_t spk_block_cluster_max(int *out)
{
    *out = 1;
    int dev = 0, major = 0;
    cudaError_t st = cudaGetDevice(&dev);
    if (st == cudaSuccess) st = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    if (st != cudaSuccess || major < 9) return st;
    /* clusters beyond 8 blocks are not portable: allowed, then asked for */
    const void *k[4] = {(const void *)cg_block_kernel<Cluster>, (const void *)bicg_block_kernel<Cluster>,
                        (const void *)cg_block_kernel<Cluster, true>, (const void *)bicg_block_kernel<Cluster, true>};
    for (int i = 0; i < 4 && st == cudaSuccess; i++) {
        st = cudaFuncSetAttribute(k[i], cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
        if (st == cudaSuccess)
            st = cudaFuncSetAttribute(k[i], cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kStageBytes);
    }
    if (st != cudaSuccess) return st;
    for (int c = SPK_BLOCK_CLUSTER_MAX; c >= 2; c /= 2) {
        cudaLaunchAttribute at;
        cudaLaunchConfig_t cfg = cluster_config(c, 0, &at);
        cfg.dynamicSmemBytes = kStageBytes; /* as the preconditioned runs launch */
        int fit = 1;
        for (int i = 0; i < 4 && st == cudaSuccess; i++) {
            int na = 0;
            st = cudaOccupancyMaxActiveClusters(&na, k[i], &cfg);
            fit = fit && na >= 1;
        }
        if (st != cudaSuccess) return st;
        if (fit) {
            *out = c;
            return cudaSuccess;
        }
    }
    return cudaSuccess;
}

extern "C" cudaError_t spk_block_run(cudaStream_t s, const spk_block_job *j, double *slots, double *reads,
                                     int *count, long long *cycles)
{
    if (j->n < 1 || j->n > SPK_BLOCK_ROWS || j->iters < 1 || j->cluster < 1 || j->cluster > SPK_BLOCK_CLUSTER_MAX ||
        (j->over && j->method != SPK_BLOCK_CG) || j->ring < 0)
        return cudaErrorInvalidValue;
    if (j->cluster > 1) {
        if ((j->M.kind != SPK_BLOCK_IDENTITY && j->M.kind != SPK_BLOCK_DIAG && !j->scratch) ||
            j->M.kind == SPK_BLOCK_SOLVE)
            return cudaErrorInvalidValue;
        cudaLaunchAttribute at;
        cudaLaunchConfig_t cfg = cluster_config(j->cluster, s, &at);
        if (j->M.kind == SPK_BLOCK_SWEEPS || j->M.kind == SPK_BLOCK_SWEEPS_CSR) cfg.dynamicSmemBytes = kStageBytes;
        /* long rows in the factor as stored: the kernels whose idle warps take them (their
         * calls cost the others registers) */
        const bool lng = j->M.kind == SPK_BLOCK_SWEEPS_CSR && j->M.wide;
        if (j->method == SPK_BLOCK_CG && lng)
            return cudaLaunchKernelEx(&cfg, cg_block_kernel<Cluster, true>, *j, slots, reads, count, cycles);
        if (j->method == SPK_BLOCK_CG)
            return cudaLaunchKernelEx(&cfg, cg_block_kernel<Cluster>, *j, slots, reads, count, cycles);
        if (lng) return cudaLaunchKernelEx(&cfg, bicg_block_kernel<Cluster, true>, *j, slots, reads, count, cycles);
        return cudaLaunchKernelEx(&cfg, bicg_block_kernel<Cluster>, *j, slots, reads, count, cycles);
    }
    const unsigned bytes = j->M.kind == SPK_BLOCK_IDENTITY || j->M.kind == SPK_BLOCK_DIAG ? 0 : j->M.shared_bytes;
    /* wide slices: the kernels with small_tri_wide (its call costs the others registers) */
    const bool wide = j->M.kind == SPK_BLOCK_SWEEPS && j->M.wide;
    if (j->method == SPK_BLOCK_CG && wide)
        cg_block_kernel<OneBlock, true><<<1, kT, bytes, s>>>(*j, slots, reads, count, cycles);
    else if (j->method == SPK_BLOCK_CG)
        cg_block_kernel<OneBlock><<<1, kT, bytes, s>>>(*j, slots, reads, count, cycles);
    else if (wide)
        bicg_block_kernel<OneBlock, true><<<1, kT, bytes, s>>>(*j, slots, reads, count, cycles);
    else
        bicg_block_kernel<OneBlock><<<1, kT, bytes, s>>>(*j, slots, reads, count, cycles);
    return cudaGetLastError();
}
