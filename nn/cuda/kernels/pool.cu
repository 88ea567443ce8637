// nn/cuda/kernels/pool.cu -- KataGo's global pooling (see kernels.h) of NHWC activations.
//
// One thread per (position, channel) walks the board's points: neighbouring threads read
// neighbouring channels of one point, so every load of a warp is one contiguous segment. A
// board has at most 361 points, so a thread's loop is short and needs no reduction tree; it
// sums in double (Hopper's double adds are cheap next to the loads).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "nn/cuda/kernels/kernels.h"

namespace {

__device__ inline float load(const float *p) { return *p; }
__device__ inline float load(const __half *p) { return __half2float(*p); }

constexpr int POOL_THREADS = 64;

template <typename T>
__global__ void kata_pool_kernel(int c, int area, int value_head, const T *__restrict__ x,
                                 float *__restrict__ out)
{
    int img = blockIdx.y, ch = blockIdx.x * POOL_THREADS + threadIdx.x;
    if (ch >= c)
        return;
    const T *xi = x + (long)img * area * c + ch;
    // the sum in double, as the CPU backend and the reference backend sum (361 float additions
    // in a row lose up to ~1e-5 relative)
    double sum = 0.0;
    float max = load(xi);
    for (int p = 0; p < area; p++) {
        float v = load(xi + (long)p * c);
        sum += v;
        max = fmaxf(max, v);
    }
    double mean = sum / area;
    double scale = (sqrt((double)area) - 14.0) * 0.1;
    float *o = out + (long)img * 3 * c;
    o[ch] = (float)mean;
    o[c + ch] = (float)(mean * scale);
    o[2 * c + ch] = value_head ? (float)(mean * (scale * scale - 0.1)) : max;
}

template <typename T>
int launch(int n, int c, int area, int value_head, const T *x, float *out, void *stream)
{
    if (n <= 0 || c <= 0 || area <= 0)
        return 0;
    dim3 grid((unsigned)((c + POOL_THREADS - 1) / POOL_THREADS), (unsigned)n);
    kata_pool_kernel<T><<<grid, POOL_THREADS, 0, (cudaStream_t)stream>>>(c, area, value_head, x,
                                                                        out);
    return (int)cudaGetLastError();
}

} // namespace

extern "C" int nn_cuda_kata_pool_f32(int n, int c, int area, int value_head, const float *x,
                                     float *out, void *stream)
{
    return launch<float>(n, c, area, value_head, x, out, stream);
}

extern "C" int nn_cuda_kata_pool_f16(int n, int c, int area, int value_head, const void *x,
                                     float *out, void *stream)
{
    return launch<__half>(n, c, area, value_head, (const __half *)x, out, stream);
}
