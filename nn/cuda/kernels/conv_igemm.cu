// nn/cuda/kernels/conv_igemm.cu -- shido's own convolution: implicit GEMM on tensor cores (fp16
// in, fp32 accumulate, fp16 out) for k = 1 and 3, stride 1, zero "same" padding, NHWC, with the
// epilogue (conv_igemm.h) applied to the fp32 accumulators before rounding.
//
// The GEMM: M = n * height * width output points, N = c_out, K = k * k * c_in_pad, where row m of
// A is the k x k neighbourhood of point m gathered from the input on the fly (never written out),
// and B is the weights in the layout prepare_f16 writes: w[tap = dy * k + dx][ci][co], with c_in
// padded to a multiple of BK = 32 and c_out to a multiple of 8, zeros in the padding. A K tile
// therefore never straddles two taps, and a 16-byte weight chunk is never ragged.
//
// One block computes a BM x BN tile of the output. Per K tile (32 input channels of one tap) it
// copies the A tile (BM points x 32 channels, zero where the tap falls off the board) and the B
// tile (32 x BN) into shared memory with cp.async, STAGES = 4 tiles in flight so the loads of
// tile t+3 overlap the mma of tile t; warps multiply 16x16x16 WMMA fragments. After the K loop
// the accumulators go through shared memory (the pipeline buffers, reused) so that each thread
// can apply the epilogue to 8 consecutive channels and store them as one 16-byte write.
//
// Tile configurations (STAGES 4, BK 32; smem = pipeline, the fp32 C tile fits in it):
//   0: 128 x 128, 8 warps of 64 x 32 (4 x 2 fragments, 64 fp32 accumulators a thread),
//      74 KB smem, 126 registers (ptxas, sm_90, CUDA 13): 2 blocks (16 warps) an SM, limited by
//      registers. Most operand reuse (0.75 fragment loads an mma); for c_out >= 256, large M.
//   1: 128 x 64, 8 warps of 32 x 32, 58 KB, 96 registers: 2 blocks an SM (registers).
//      c_out = 192 (the nested bottlenecks' inner width) without padding waste.
//   2: 64 x 64, 4 warps of 32 x 32, 38 KB, 100 registers: 5 blocks an SM. Small batches.
//   3: 64 x 32, 4 warps of 16 x 32, 30 KB, 72 registers: 7 blocks an SM. c_out = 96 without
//      padding waste, batch 1 (most blocks), heads with c_out = 1..32.
// (Registers of the VEC_A variants; the scalar-gather variants for c_in % 8 != 0 use fewer.)
// The launcher picks the configuration with the least predicted time: full waves of blocks
// times tile area, divided by a guessed relative efficiency of the tile shape and by how far the
// blocks on one SM fill its 4 tensor-core partitions (8 warps or more: full). The real
// occupancies come from cudaOccupancyMaxActiveBlocksPerMultiprocessor. bench/cuda/bench_conv
// times every configuration against cuDNN (notes, predictions and results in bench/cuda/NOTES.md).
//
// Not done (yet): a 3x3 variant that stages a (rows + 2) x (width + 2) halo of the input in shared
// memory once per channel slice instead of gathering it 9 times. On 19x19 boards a 128-point
// tile spans ~7.7 board rows, so a halo would cut the A-tile loads from 9 to about 1.5 per
// point -- but those 9 gathers hit L1/L2 (the same 64 bytes a point for 9 taps), and at c >= 256
// the kernel should be bound by the mma issue rate, not by A loads; the bench decides.
//
// bench/cuda/igemm_mirror.py mirrors the index math below (layouts, loaders, fragment offsets,
// epilogue indexing) in Python, to check changes to it on a machine without a GPU.
#include <atomic>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "nn/cuda/kernels/conv_igemm.h"

namespace {

using namespace nvcuda;

constexpr int BK = 32;        // K tile: 32 input channels of one tap
constexpr int STAGES = 4;     // K tiles in flight
constexpr int MAX_DEVICES = 64;

int pad_c_in(int c_in) { return (c_in + BK - 1) / BK * BK; }
int pad_c_out(int c_out) { return (c_out + 7) / 8 * 8; }

template <int BM_, int BN_, int WARPS_M_, int WARPS_N_, int MIN_BLOCKS_>
struct tile_cfg {
    static constexpr int BM = BM_, BN = BN_, WARPS_M = WARPS_M_, WARPS_N = WARPS_N_;
    static constexpr int MIN_BLOCKS = MIN_BLOCKS_;
    static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
    static constexpr int WTM = BM / WARPS_M, WTN = BN / WARPS_N;   // warp tile
    static constexpr int FM = WTM / 16, FN = WTN / 16;             // fragments a warp
    // Row pitches padded by 16 bytes (8 halves, 4 floats): consecutive rows start 4 banks apart,
    // so the 8 rows of a fragment load hit distinct banks; WMMA needs pitches that are
    // multiples of 16 bytes and fragment pointers 32-byte aligned, which these keep.
    static constexpr int LDA = BK + 8, LDB = BN + 8, LDC = BN + 4;
    static constexpr int A_STAGE = BM * LDA, B_STAGE = BK * LDB;  // halves
    static constexpr size_t PIPE_BYTES = (size_t)STAGES * (A_STAGE + B_STAGE) * sizeof(__half);
    static constexpr size_t C_BYTES = (size_t)BM * LDC * sizeof(float);
    static constexpr size_t SMEM = PIPE_BYTES > C_BYTES ? PIPE_BYTES : C_BYTES;
    static constexpr int A_CHUNKS = BM * BK / 8, B_CHUNKS = BK * BN / 8;  // 16-byte chunks
    static_assert(WTM % 16 == 0 && WTN % 16 == 0, "warp tile must be whole fragments");
    static_assert(A_CHUNKS % THREADS == 0 && B_CHUNKS % THREADS == 0, "uneven tile loads");
    static_assert((A_STAGE * 2) % 128 == 0 && (B_STAGE * 2) % 32 == 0, "stage alignment");
};

using cfg0 = tile_cfg<128, 128, 2, 4, 2>;
using cfg1 = tile_cfg<128, 64, 4, 2, 2>;
using cfg2 = tile_cfg<64, 64, 2, 2, 4>;
using cfg3 = tile_cfg<64, 32, 4, 1, 4>;
constexpr int NUM_CONFIGS = 4;
// Guessed throughput of a full SM with each tile shape, relative to 128 x 128 (operand reuse
// falls with the tile: fragments loaded per mma go from 0.75 to 1.5). Only the ordering matters.
constexpr double CONFIG_EFFICIENCY[NUM_CONFIGS] = {1.0, 0.85, 0.7, 0.5};

struct conv_args {
    const __half *in;     // [M][c_in]
    const __half *w;      // [K_pad][co_pad]
    __half *out;          // [M][c_out]
    int height, width, c_in, c_out, k, points;   // points = height * width
    unsigned m_total;
    int k_tiles, ci_tiles, co_pad;
    bool out_vec;         // c_out % 8 == 0 and out, residual, out2 16-byte aligned
    nn_cuda_epilogue ep;
};

__device__ __forceinline__ void cp_async16(void *smem, const void *gmem, bool valid)
{
    // src-size 0 fills the 16 bytes with zeros: off-board taps and padding channels
    unsigned dst = (unsigned)__cvta_generic_to_shared(smem);
    int src_bytes = valid ? 16 : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(gmem),
                 "r"(src_bytes)
                 : "memory");
}

__device__ __forceinline__ void cp_async_commit()
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// Loads K tile kt into pipeline stage `stage`. VEC_A: c_in % 8 == 0 and `in` 16-byte aligned,
// so a 16-byte chunk of one point's channels is either wholly inside c_in or wholly padding;
// otherwise (c_in = 1, 7, the 18 or 22 input planes) the A tile is gathered element by element.
template <class C, bool VEC_A>
__device__ __forceinline__ void load_tile(const conv_args &a, __half *As, __half *Bs, int stage,
                                          int kt, unsigned m0, int n0, const int *a_y,
                                          const int *a_x, const __half *const *a_src)
{
    const int tid = threadIdx.x;
    const int tap = kt / a.ci_tiles;
    const int ci0 = (kt - tap * a.ci_tiles) * BK;
    const int pad = a.k / 2;
    const int dy = tap / a.k - pad, dx = tap % a.k - pad;
    __half *as = As + stage * C::A_STAGE;
    __half *bs = Bs + stage * C::B_STAGE;

    if constexpr (VEC_A) {
#pragma unroll
        for (int it = 0; it < C::A_CHUNKS / C::THREADS; it++) {
            int q = tid + it * C::THREADS;
            int row = q / (BK / 8), c8 = (q % (BK / 8)) * 8;
            int y = a_y[it] + dy, x = a_x[it] + dx;
            bool valid = (unsigned)y < (unsigned)a.height && (unsigned)x < (unsigned)a.width &&
                         ci0 + c8 < a.c_in;
            const __half *src =
                valid ? a_src[it] + (ptrdiff_t)(dy * a.width + dx) * a.c_in + ci0 + c8 : a.in;
            cp_async16(as + row * C::LDA + c8, src, valid);
        }
    } else {
        for (int q = tid; q < C::BM * BK; q += C::THREADS) {
            int row = q / BK, col = q % BK;
            unsigned m = m0 + (unsigned)row;
            int ci = ci0 + col;
            __half v = __ushort_as_half(0);
            if (m < a.m_total && ci < a.c_in) {
                int p = (int)(m % (unsigned)a.points);
                int y = p / a.width + dy, x = p % a.width + dx;
                if ((unsigned)y < (unsigned)a.height && (unsigned)x < (unsigned)a.width)
                    v = a.in[((ptrdiff_t)m + dy * a.width + dx) * a.c_in + ci];
            }
            as[row * C::LDA + col] = v;
        }
    }

#pragma unroll
    for (int it = 0; it < C::B_CHUNKS / C::THREADS; it++) {
        int q = tid + it * C::THREADS;
        int r = q / (C::BN / 8), c8 = (q % (C::BN / 8)) * 8;
        int col = n0 + c8;
        bool valid = col < a.co_pad;
        const __half *src = valid ? a.w + (size_t)(kt * BK + r) * a.co_pad + col : a.w;
        cp_async16(bs + r * C::LDB + c8, src, valid);
    }
}

template <class C, bool VEC_A>
__global__ void __launch_bounds__(C::THREADS, C::MIN_BLOCKS) conv_igemm_kernel(conv_args a)
{
    extern __shared__ __align__(128) unsigned char smem[];
    __half *As = reinterpret_cast<__half *>(smem);
    __half *Bs = As + STAGES * C::A_STAGE;
    float *Cs = reinterpret_cast<float *>(smem);

    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int wm = warp / C::WARPS_N, wn = warp % C::WARPS_N;
    const int n0 = blockIdx.x * C::BN;              // x: N tiles, so that the blocks sharing an
    const unsigned m0 = blockIdx.y * C::BM;         // A tile run together and share it in L2

    // Where this thread's A chunks come from: board coordinates of their points (far off the
    // board for rows past M, so that every tap is invalid) and the point's first channel.
    constexpr int A_ITERS = VEC_A ? C::A_CHUNKS / C::THREADS : 1;
    int a_y[A_ITERS], a_x[A_ITERS];
    const __half *a_src[A_ITERS];
    if constexpr (VEC_A) {
#pragma unroll
        for (int it = 0; it < A_ITERS; it++) {
            int row = (tid + it * C::THREADS) / (BK / 8);
            unsigned m = m0 + (unsigned)row;
            int p = (int)(m % (unsigned)a.points);
            bool inside = m < a.m_total;
            a_y[it] = inside ? p / a.width : -64;
            a_x[it] = inside ? p % a.width : -64;
            a_src[it] = a.in + (size_t)(inside ? m : 0) * a.c_in;
        }
    }

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[C::FM][C::FN];
#pragma unroll
    for (int i = 0; i < C::FM; i++)
#pragma unroll
        for (int j = 0; j < C::FN; j++)
            wmma::fill_fragment(acc[i][j], 0.0f);

#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < a.k_tiles)
            load_tile<C, VEC_A>(a, As, Bs, s, s, m0, n0, a_y, a_x, a_src);
        cp_async_commit();
    }

    for (int kt = 0; kt < a.k_tiles; kt++) {
        // tile kt has landed (at most STAGES - 2 younger groups pending), and every warp is
        // done with the stage the next load overwrites (it held tile kt - 1)
        cp_async_wait<STAGES - 2>();
        __syncthreads();
        int next = kt + STAGES - 1;
        if (next < a.k_tiles)
            load_tile<C, VEC_A>(a, As, Bs, next % STAGES, next, m0, n0, a_y, a_x, a_src);
        cp_async_commit();

        const __half *as = As + (kt % STAGES) * C::A_STAGE + wm * C::WTM * C::LDA;
        const __half *bs = Bs + (kt % STAGES) * C::B_STAGE + wn * C::WTN;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa[C::FM];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb[C::FN];
#pragma unroll
            for (int i = 0; i < C::FM; i++)
                wmma::load_matrix_sync(fa[i], as + i * 16 * C::LDA + kk, C::LDA);
#pragma unroll
            for (int j = 0; j < C::FN; j++)
                wmma::load_matrix_sync(fb[j], bs + kk * C::LDB + j * 16, C::LDB);
#pragma unroll
            for (int i = 0; i < C::FM; i++)
#pragma unroll
                for (int j = 0; j < C::FN; j++)
                    wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
    }
    cp_async_wait<0>();
    __syncthreads();   // the C tile reuses the pipeline buffers

#pragma unroll
    for (int i = 0; i < C::FM; i++)
#pragma unroll
        for (int j = 0; j < C::FN; j++)
            wmma::store_matrix_sync(Cs + (wm * C::WTM + i * 16) * C::LDC + wn * C::WTN + j * 16,
                                    acc[i][j], C::LDC, wmma::mem_row_major);
    __syncthreads();

    const unsigned points = (unsigned)a.points;
    if (a.out_vec) {
        // c_out % 8 == 0: a group of 8 channels is either wholly inside c_out or wholly outside
        for (int g = tid; g < C::BM * C::BN / 8; g += C::THREADS) {
            int row = g / (C::BN / 8), col = (g % (C::BN / 8)) * 8;
            unsigned m = m0 + (unsigned)row;
            int c = n0 + col;
            if (m >= a.m_total || c >= a.c_out)
                continue;
            const float4 *src = reinterpret_cast<const float4 *>(Cs + row * C::LDC + col);
            float4 lo = src[0], hi = src[1];
            float v[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
            nn_cuda_ep_apply<8>(a.ep, v, m, m / points, c, a.c_out, m * (unsigned)a.c_out + c,
                                a.out);
        }
    } else {
        for (int g = tid; g < C::BM * C::BN; g += C::THREADS) {
            int row = g / C::BN, col = g % C::BN;
            unsigned m = m0 + (unsigned)row;
            int c = n0 + col;
            if (m >= a.m_total || c >= a.c_out)
                continue;
            float v[1] = {Cs[row * C::LDC + col]};
            nn_cuda_ep_apply<1>(a.ep, v, m, m / points, c, a.c_out, m * (unsigned)a.c_out + c,
                                a.out);
        }
    }
}

// Raises the kernel's dynamic shared memory limit (once a device) and returns its occupancy in
// blocks an SM through *occ.
template <class C, bool VEC_A> cudaError_t kernel_setup(int dev, int *occ)
{
    static std::atomic<int> cached[MAX_DEVICES];
    if (dev >= 0 && dev < MAX_DEVICES) {
        int o = cached[dev].load(std::memory_order_acquire);
        if (o > 0) {
            *occ = o;
            return cudaSuccess;
        }
    }
    auto kernel = conv_igemm_kernel<C, VEC_A>;
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)C::SMEM);
    if (e != cudaSuccess)
        return e;
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(occ, kernel, C::THREADS, C::SMEM);
    if (e != cudaSuccess)
        return e;
    if (*occ < 1)
        return cudaErrorInvalidConfiguration;
    if (dev >= 0 && dev < MAX_DEVICES)
        cached[dev].store(*occ, std::memory_order_release);
    return cudaSuccess;
}

// Sets up every kernel on the device once (prepare_f16 does it at load time; the launcher checks),
// so that no launch captured into a CUDA graph makes the non-stream calls of kernel_setup.
cudaError_t setup_all(int dev)
{
    static std::atomic<bool> done[MAX_DEVICES];
    if (dev >= 0 && dev < MAX_DEVICES && done[dev].load(std::memory_order_acquire))
        return cudaSuccess;
    int occ;
    const cudaError_t es[] = {
        kernel_setup<cfg0, true>(dev, &occ), kernel_setup<cfg0, false>(dev, &occ),
        kernel_setup<cfg1, true>(dev, &occ), kernel_setup<cfg1, false>(dev, &occ),
        kernel_setup<cfg2, true>(dev, &occ), kernel_setup<cfg2, false>(dev, &occ),
        kernel_setup<cfg3, true>(dev, &occ), kernel_setup<cfg3, false>(dev, &occ)};
    for (cudaError_t e : es)
        if (e != cudaSuccess)
            return e;
    if (dev >= 0 && dev < MAX_DEVICES)
        done[dev].store(true, std::memory_order_release);
    return cudaSuccess;
}

template <class C, bool VEC_A> cudaError_t launch(const conv_args &a, int dev, cudaStream_t s)
{
    int occ;
    cudaError_t e = kernel_setup<C, VEC_A>(dev, &occ);
    if (e != cudaSuccess)
        return e;
    unsigned m_tiles = (a.m_total + C::BM - 1) / C::BM;
    if (m_tiles > 65535u)
        return cudaErrorInvalidValue;
    dim3 grid((unsigned)((a.c_out + C::BN - 1) / C::BN), m_tiles);
    conv_igemm_kernel<C, VEC_A><<<grid, C::THREADS, C::SMEM, s>>>(a);
    return cudaGetLastError();
}

template <class C> cudaError_t launch_cfg(const conv_args &a, bool vec_a, int dev, cudaStream_t s)
{
    return vec_a ? launch<C, true>(a, dev, s) : launch<C, false>(a, dev, s);
}

template <class C, bool VEC_A>
cudaError_t predict(const conv_args &a, int dev, int sms, int cfg, double *cost)
{
    int occ;
    cudaError_t e = kernel_setup<C, VEC_A>(dev, &occ);
    if (e != cudaSuccess)
        return e;
    double tiles = (double)((a.m_total + C::BM - 1) / C::BM) *
                   (double)((a.c_out + C::BN - 1) / C::BN);
    double waves = ceil(tiles / ((double)sms * occ));
    double active = fmin((double)occ, ceil(tiles / sms));   // blocks an SM in a full wave
    double fill = fmin(1.0, active * (C::THREADS / 32) / 8.0);
    *cost = waves * (double)C::BM * C::BN * active / (CONFIG_EFFICIENCY[cfg] * fill);
    return cudaSuccess;
}

template <bool VEC_A>
cudaError_t choose_config(const conv_args &a, int dev, int *cfg)
{
    int sms;
    cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess)
        return e;
    double cost[NUM_CONFIGS];
    cudaError_t es[NUM_CONFIGS] = {predict<cfg0, VEC_A>(a, dev, sms, 0, &cost[0]),
                                   predict<cfg1, VEC_A>(a, dev, sms, 1, &cost[1]),
                                   predict<cfg2, VEC_A>(a, dev, sms, 2, &cost[2]),
                                   predict<cfg3, VEC_A>(a, dev, sms, 3, &cost[3])};
    *cfg = -1;
    for (int i = 0; i < NUM_CONFIGS; i++) {
        if (es[i] != cudaSuccess)
            return es[i];
        if (*cfg < 0 || cost[i] < cost[*cfg])
            *cfg = i;
    }
    return cudaSuccess;
}

bool aligned16(const void *p)
{
    return (uintptr_t)p % 16 == 0;
}

} // namespace

extern "C" size_t nn_cuda_conv_igemm_weight_bytes(int k, int c_in, int c_out)
{
    if ((k != 1 && k != 3) || c_in < 1 || c_out < 1)
        return 0;
    return (size_t)k * k * pad_c_in(c_in) * pad_c_out(c_out) * sizeof(__half);
}

extern "C" bool nn_cuda_conv_igemm_supported(int k, int c_in, int c_out, int height, int width)
{
    return (k == 1 || k == 3) && c_in >= 1 && c_out >= 1 && height >= 1 && height <= 19 &&
           width >= 1 && width <= 19;
}

extern "C" bool nn_cuda_conv_igemm_prepare_f16(const float *w, int k, int c_in, int c_out,
                                               void *dev_w, char *err, int err_len)
{
    size_t bytes = nn_cuda_conv_igemm_weight_bytes(k, c_in, c_out);
    if (!w || !dev_w || bytes == 0) {
        snprintf(err, (size_t)err_len, "%s: unsupported convolution k %d, c_in %d, c_out %d",
                 __func__, k, c_in, c_out);
        return false;
    }
    if (!aligned16(dev_w)) {
        snprintf(err, (size_t)err_len, "%s: device weight buffer not 16-byte aligned", __func__);
        return false;
    }
    const int cip = pad_c_in(c_in), cop = pad_c_out(c_out);
    __half *host = static_cast<__half *>(calloc(bytes, 1));   // zero bits are +0.0 halves
    if (!host) {
        snprintf(err, (size_t)err_len, "%s: out of host memory (%zu bytes)", __func__, bytes);
        return false;
    }
    for (int co = 0; co < c_out; co++)
        for (int ci = 0; ci < c_in; ci++)
            for (int tap = 0; tap < k * k; tap++) {
                float v = w[((size_t)co * c_in + ci) * k * k + tap];
                if (!(fabsf(v) <= 65504.0f)) {
                    snprintf(err, (size_t)err_len,
                             "%s: weight [%d][%d][%d] = %g is not finite in half precision",
                             __func__, co, ci, tap, (double)v);
                    free(host);
                    return false;
                }
                host[((size_t)tap * cip + ci) * cop + co] = __float2half_rn(v);
            }
    cudaError_t e = cudaMemcpy(dev_w, host, bytes, cudaMemcpyHostToDevice);
    free(host);
    if (e != cudaSuccess) {
        snprintf(err, (size_t)err_len, "%s: cudaMemcpy of %zu bytes: %s", __func__, bytes,
                 cudaGetErrorString(e));
        return false;
    }
    // kernel attributes now, at load time, rather than in the first launch (which a backend
    // may be capturing into a CUDA graph)
    int dev;
    e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = setup_all(dev);
    if (e != cudaSuccess) {
        snprintf(err, (size_t)err_len, "%s: kernel set-up: %s", __func__, cudaGetErrorString(e));
        return false;
    }
    return true;
}

extern "C" int nn_cuda_conv_igemm_config_count(void)
{
    return NUM_CONFIGS;
}

extern "C" cudaError_t nn_cuda_conv_igemm_f16_config(const void *in, const void *dev_w,
                                                     void *out, int n, int height, int width,
                                                     int c_in, int c_out, int k,
                                                     const nn_cuda_epilogue *ep, int config,
                                                     cudaStream_t s)
{
    if (!nn_cuda_conv_igemm_supported(k, c_in, c_out, height, width) || n < 1 || !in || !dev_w ||
        !out || !ep || config < -1 || config >= NUM_CONFIGS || !aligned16(dev_w))
        return cudaErrorInvalidValue;
    // element offsets are 32-bit unsigned in the kernel
    double m_total = (double)n * height * width;
    if (m_total * (c_in > c_out ? c_in : c_out) >= 4294967295.0)
        return cudaErrorInvalidValue;

    conv_args a;
    a.in = static_cast<const __half *>(in);
    a.w = static_cast<const __half *>(dev_w);
    a.out = static_cast<__half *>(out);
    a.height = height;
    a.width = width;
    a.c_in = c_in;
    a.c_out = c_out;
    a.k = k;
    a.points = height * width;
    a.m_total = (unsigned)m_total;
    a.ci_tiles = pad_c_in(c_in) / BK;
    a.k_tiles = k * k * a.ci_tiles;
    a.co_pad = pad_c_out(c_out);
    a.out_vec = c_out % 8 == 0 && aligned16(out) && aligned16(ep->residual) &&
                aligned16(ep->out2);
    a.ep = *ep;
    const bool vec_a = c_in % 8 == 0 && aligned16(in);

    int dev;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = setup_all(dev);
    if (e != cudaSuccess)
        return e;
    if (config < 0) {
        e = vec_a ? choose_config<true>(a, dev, &config) : choose_config<false>(a, dev, &config);
        if (e != cudaSuccess)
            return e;
    }
    switch (config) {
    case 0:
        return launch_cfg<cfg0>(a, vec_a, dev, s);
    case 1:
        return launch_cfg<cfg1>(a, vec_a, dev, s);
    case 2:
        return launch_cfg<cfg2>(a, vec_a, dev, s);
    default:
        return launch_cfg<cfg3>(a, vec_a, dev, s);
    }
}

extern "C" cudaError_t nn_cuda_conv_igemm_f16(const void *in, const void *dev_w, void *out, int n,
                                              int height, int width, int c_in, int c_out, int k,
                                              const nn_cuda_epilogue *ep, cudaStream_t s)
{
    return nn_cuda_conv_igemm_f16_config(in, dev_w, out, n, height, width, c_in, c_out, k, ep, -1,
                                         s);
}
