// nn/cuda/kernels/epilogue.cu -- the convolution epilogue (scale, bias, per-position bias,
// residual, activation, board mask, second output) on its own, in place, for the outputs of
// cuDNN convolutions and cuBLAS matmuls. The per-element math is nn_cuda_ep_apply in
// conv_igemm.h, the same code the implicit-GEMM convolution runs on its accumulators.
//
// Memory-bound: each thread handles V consecutive channels of a point with one 16-byte (8 halves, 4 floats) or 4-byte (2 halves) access per buffer; V drops
// to 2 or 1 when the channel count or a pointer's alignment does not allow wider accesses
// (c = 1, 7: scalar). In place with nothing to change in the main output (a residual stream a
// convolution accumulated into), only the second output is written.
#include <stdint.h>
#include <stdlib.h>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "nn/cuda/kernels/conv_igemm.h"

// Variant 0, as measured on an H200 (2026-11-26): one group of V channels a thread, grid-stride,
// the channels' factors loaded for every group. Four groups a thread with their loads issued
// first was slower there (b18c384nbt at batch 256: 7.98 ms of epilogues per forward against
// 6.15; more registers, fewer threads resident). On an H100 (2026-11-27) the epilogues took 6.06
// of 17.3 ms, 1.5 TB/s of the 3.35: the factors' loads, a scalar load a channel that the 32
// lanes of a warp spread over 1 KB, cost more L1 wavefronts than the data itself.
constexpr int EP_THREADS = 256;

template <int V, typename T>
static __global__ void __launch_bounds__(EP_THREADS)
    epilogue_grid_stride(T *out, unsigned groups, int c, unsigned points, nn_cuda_epilogue ep,
                         bool store_main)
{
    const unsigned groups_per_point = (unsigned)c / V;
    for (unsigned g = blockIdx.x * blockDim.x + threadIdx.x; g < groups;
         g += gridDim.x * blockDim.x) {
        unsigned m = g / groups_per_point;
        int ch = (int)(g - m * groups_per_point) * V;
        unsigned e = m * (unsigned)c + (unsigned)ch;
        nn_cuda_ep_channels<V> p;
        nn_cuda_ep_load_channels<V>(ep, ch, p);
        float v[V];
        nn_cuda_ep_load_vec<V>(out + e, v);
        nn_cuda_ep_apply<V>(ep, p, v, m, m / points, ch, c, e, out, store_main);
    }
}

// Variants 1 and 2 (POINTS = 1, 2): a thread keeps to one group of V channels and loads its
// factors once, then steps through the points `step` apart (step * c / V threads in all, so
// that consecutive threads still cover consecutive 16-byte groups); POINTS 2 loads two points'
// values before applying the epilogue to either.
template <int V, int POINTS, typename T>
static __global__ void __launch_bounds__(EP_THREADS)
    epilogue_by_channel(T *out, unsigned total_points, int c, unsigned points, unsigned step,
                        nn_cuda_epilogue ep, bool store_main)
{
    const unsigned groups_per_point = (unsigned)c / V;
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= step * groups_per_point)
        return;
    const unsigned first = t / groups_per_point;
    const int ch = (int)(t - first * groups_per_point) * V;
    nn_cuda_ep_channels<V> p;
    nn_cuda_ep_load_channels<V>(ep, ch, p);
    for (unsigned m = first; m < total_points; m += POINTS * step) {
        float v[POINTS][V];
        unsigned e[POINTS];
        for (int k = 0; k < POINTS; k++) {
            e[k] = (m + k * step) * (unsigned)c + (unsigned)ch;
            if (k == 0 || m + k * step < total_points)
                nn_cuda_ep_load_vec<V>(out + e[k], v[k]);
        }
        for (int k = 0; k < POINTS; k++)
            if (k == 0 || m + k * step < total_points)
                nn_cuda_ep_apply<V>(ep, p, v[k], m + k * step, (m + k * step) / points, ch, c,
                                    e[k], out, store_main);
    }
}

// The variant launches take: SHIDO_CUDA_EPILOGUE=0, 1 or 2 (for bench/cuda's comparison),
// default 1.
static int variant(void)
{
    static const int v = [] {
        const char *s = getenv("SHIDO_CUDA_EPILOGUE");
        return s && (s[0] == '0' || s[0] == '2') && !s[1] ? s[0] - '0' : 1;
    }();
    return v;
}

static bool aligned(const void *p, size_t bytes)
{
    return ((uintptr_t)p % bytes) == 0;
}

// Whether out, residual and out2 all allow V-element accesses of elem-byte elements.
static bool vector_ok(const void *out, const nn_cuda_epilogue *ep, int c, int v, size_t elem)
{
    size_t bytes = (size_t)v * elem;
    return c % v == 0 && aligned(out, bytes) && aligned(ep->residual, bytes) &&
           aligned(ep->out2, bytes);
}

template <int V, typename T>
static cudaError_t launch(T *out, int n, int size, int c, const nn_cuda_epilogue *ep,
                          cudaStream_t s)
{
    unsigned points = (unsigned)(size * size), total_points = (unsigned)n * points;
    unsigned groups_per_point = (unsigned)(c / V), groups = total_points * groups_per_point;
    // Enough threads to fill an H100 several times over (132 SMs, 16 blocks each); the loops
    // over the points take the rest.
    const unsigned max_threads = 132u * 16u * EP_THREADS;
    // in place with nothing to apply to the main output (the residual stream after a
    // convolution that accumulated into it): only out2 is written
    bool store_main = ep->scale || ep->bias || ep->bias_nc || ep->residual ||
                      ep->act != 0 || ep->mask || !ep->out2;
    int v = variant();
    if (v == 0 || groups_per_point > max_threads) {
        unsigned threads = groups < max_threads ? groups : max_threads;
        epilogue_grid_stride<V, T><<<(threads + EP_THREADS - 1) / EP_THREADS, EP_THREADS, 0,
                                     s>>>(out, groups, c, points, *ep, store_main);
    } else {
        unsigned step = max_threads / groups_per_point;
        if (step > total_points)
            step = total_points;
        unsigned threads = step * groups_per_point, blocks = (threads + EP_THREADS - 1) /
                                                             EP_THREADS;
        if (v == 2)
            epilogue_by_channel<V, 2, T><<<blocks, EP_THREADS, 0, s>>>(
                out, total_points, c, points, step, *ep, store_main);
        else
            epilogue_by_channel<V, 1, T><<<blocks, EP_THREADS, 0, s>>>(
                out, total_points, c, points, step, *ep, store_main);
    }
    return cudaGetLastError();
}

// Shapes the launchers take: element indices are 32-bit (n * size^2 * c < 2^31: batch 4096 at
// 19x19 with 1,024 channels still fits).
static bool shape_ok(int n, int size, int c)
{
    return n >= 1 && size >= 1 && c >= 1 && (double)n * size * size * c < 2147483647.0;
}

extern "C" cudaError_t nn_cuda_epilogue_f16(void *out, int n, int size, int c,
                                            const nn_cuda_epilogue *ep, cudaStream_t s)
{
    if (!shape_ok(n, size, c) || !out || !ep)
        return cudaErrorInvalidValue;
    __half *o = static_cast<__half *>(out);
    if (vector_ok(out, ep, c, 8, sizeof(__half)))
        return launch<8>(o, n, size, c, ep, s);
    if (vector_ok(out, ep, c, 2, sizeof(__half)))
        return launch<2>(o, n, size, c, ep, s);
    return launch<1>(o, n, size, c, ep, s);
}

extern "C" cudaError_t nn_cuda_epilogue_f32(float *out, int n, int size, int c,
                                            const nn_cuda_epilogue *ep, cudaStream_t s)
{
    if (!shape_ok(n, size, c) || !out || !ep)
        return cudaErrorInvalidValue;
    if (vector_ok(out, ep, c, 4, sizeof(float)))
        return launch<4>(out, n, size, c, ep, s);
    return launch<1>(out, n, size, c, ep, s);
}
