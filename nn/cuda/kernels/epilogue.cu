// nn/cuda/kernels/epilogue.cu -- the convolution epilogue (scale, bias, per-position bias,
// residual, activation, board mask, second output) on its own, in place, for the outputs of
// cuDNN convolutions and cuBLAS matmuls. The per-element math is nn_cuda_ep_apply in
// conv_igemm.h, the same code the implicit-GEMM convolution runs on its accumulators.
//
// Memory-bound: each thread handles V consecutive channels at its points with one 16-byte (8
// halves, 4 floats) or 4-byte (2 halves) access per buffer; V drops to 2 or 1 when the channel
// count or a pointer's alignment does not allow wider accesses (c = 1, 7: scalar). In place
// with nothing to change in the main output (a residual stream a convolution accumulated
// into), only the second output is written.
#include <stdint.h>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "nn/cuda/kernels/conv_igemm.h"

// A thread keeps to one group of V channels and loads their factors (scale, bias, scale2,
// bias2) once, then steps through the points `step` apart: step * c / V threads in all, so that
// consecutive threads cover consecutive groups of a point and the accesses stay coalesced.
// Measured on an H100 (2026-11-27, SHIDO_CUDA_PROFILE, epilogues per forward at batch 256):
// b18c384nbt 5.49 ms, b28c512nbt 11.38 ms, against 6.92 and 15.50 ms in the same run for the
// grid-stride loop this replaced, which loaded each group's factors again (one scalar load a
// channel, the warp's 32 lanes spread over 1 KB: more L1 wavefronts than the data itself), and
// 9.82 and 19.98 ms for two points a step with both loads issued first (more registers, fewer
// threads resident; four groups a thread had been slower on an H200 too).
constexpr int EP_THREADS = 256;

template <int V, typename T>
static __global__ void __launch_bounds__(EP_THREADS)
    epilogue_kernel(T *out, unsigned total_points, int c, unsigned points, unsigned step,
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
    for (unsigned m = first; m < total_points; m += step) {
        unsigned e = m * (unsigned)c + (unsigned)ch;
        float v[V];
        nn_cuda_ep_load_vec<V>(out + e, v);
        nn_cuda_ep_apply<V>(ep, p, v, m, m / points, ch, c, e, out, store_main);
    }
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
static cudaError_t launch(T *out, int n, int points_per_image, int c, const nn_cuda_epilogue *ep,
                          cudaStream_t s)
{
    unsigned points = (unsigned)points_per_image, total_points = (unsigned)n * points;
    unsigned groups_per_point = (unsigned)(c / V);
    // Enough threads to fill an H100 several times over (132 SMs, 16 blocks each); the loop
    // over the points takes the rest. At least one point a step: a point of more groups than
    // that (a matmul's epilogue of millions of outputs) still gets a thread for each group.
    const unsigned max_threads = 132u * 16u * EP_THREADS;
    unsigned step = max_threads / groups_per_point;
    if (step < 1)
        step = 1;
    if (step > total_points)
        step = total_points;
    unsigned blocks = (step * groups_per_point + EP_THREADS - 1) / EP_THREADS;
    // in place with nothing to apply to the main output (the residual stream after a
    // convolution that accumulated into it): only out2 is written
    bool store_main = ep->scale || ep->bias || ep->bias_nc || ep->residual ||
                      ep->act != 0 || ep->mask || !ep->out2;
    epilogue_kernel<V, T><<<blocks, EP_THREADS, 0, s>>>(out, total_points, c, points, step, *ep,
                                                        store_main);
    return cudaGetLastError();
}

// Shapes the launchers take: element indices are 32-bit (n * height * width * c < 2^31: batch
// 4096 at 19x19 with 1,024 channels still fits).
static bool shape_ok(int n, int height, int width, int c)
{
    return n >= 1 && height >= 1 && width >= 1 && c >= 1 &&
           (double)n * height * width * c < 2147483647.0;
}

extern "C" cudaError_t nn_cuda_epilogue_f16(void *out, int n, int height, int width, int c,
                                            const nn_cuda_epilogue *ep, cudaStream_t s)
{
    int points = height * width;
    if (!shape_ok(n, height, width, c) || !out || !ep)
        return cudaErrorInvalidValue;
    __half *o = static_cast<__half *>(out);
    if (vector_ok(out, ep, c, 8, sizeof(__half)))
        return launch<8>(o, n, points, c, ep, s);
    if (vector_ok(out, ep, c, 2, sizeof(__half)))
        return launch<2>(o, n, points, c, ep, s);
    return launch<1>(o, n, points, c, ep, s);
}

extern "C" cudaError_t nn_cuda_epilogue_f32(float *out, int n, int height, int width, int c,
                                            const nn_cuda_epilogue *ep, cudaStream_t s)
{
    int points = height * width;
    if (!shape_ok(n, height, width, c) || !out || !ep)
        return cudaErrorInvalidValue;
    if (vector_ok(out, ep, c, 4, sizeof(float)))
        return launch<4>(out, n, points, c, ep, s);
    return launch<1>(out, n, points, c, ep, s);
}
