// nn/cuda/kernels/transformer.cu -- the element-wise and per-row pieces of KataGo 1.17's
// transformer blocks and RMS-norm trunk tip (weights/desc_kata.h) on NHWC activations: the
// RMS norm of each point, rotary position encodings, the softmax of attention scores, SwiGLU,
// and the trunk tip. The products between them (projections, q k^T, p v) are cuBLAS GEMMs
// (nn/cuda/cuda_layers.c). Every sum is taken in float; activations are float or half
// (computed in float either way).
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "nn/cuda/kernels/conv_igemm.h"
#include "nn/cuda/kernels/kernels.h"

namespace {

__device__ inline float load(const float *p) { return *p; }
__device__ inline float load(const __half *p) { return __half2float(*p); }
__device__ inline void store(float *p, float v) { *p = v; }
__device__ inline void store(__half *p, float v) { *p = __float2half_rn(v); }

constexpr int THREADS = 256;
constexpr int WARPS = THREADS / 32;
constexpr int MAX_SIDE = 19;
constexpr int MAX_AREA = MAX_SIDE * MAX_SIDE;
constexpr int SOFTMAX_PER_LANE = (MAX_AREA + 31) / 32;

__device__ inline float warp_sum(float v)
{
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ inline float warp_max(float v)
{
    for (int o = 16; o > 0; o /= 2)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

long blocks_for(long count, int per_block)
{
    long b = (count + per_block - 1) / per_block;
    return b < 65535 ? b : 65535;
}

// One warp a row (point): y = x / sqrt(mean(x^2) + eps) * w.
template <typename T>
__global__ void rms_norm_kernel(long rows, int c, float eps, const float *__restrict__ w,
                                const T *__restrict__ x, T *__restrict__ y)
{
    const int lane = threadIdx.x % 32;
    for (long r = blockIdx.x * (long)WARPS + threadIdx.x / 32; r < rows;
         r += (long)gridDim.x * WARPS) {
        const T *xr = x + r * c;
        float ss = 0.0f;
        for (int ch = lane; ch < c; ch += 32) {
            float v = load(xr + ch);
            ss += v * v;
        }
        ss = warp_sum(ss);
        float inv = 1.0f / sqrtf(ss / (float)c + eps);
        T *yr = y + r * c;
        for (int ch = lane; ch < c; ch += 32)
            store(yr + ch, load(xr + ch) * inv * w[ch]);
    }
}

// One thread a (point, head, pair): the pair (2p, 2p + 1) of the head's channels turned by the
// point's angle, read from tables [tables][pairs][361] at the point's index on a 19x19 grid.
template <typename T>
__global__ void rope_kernel(int n, int height, int width, int stride, int offset, int heads,
                            int tables, int q_dim, const float *__restrict__ cos_t,
                            const float *__restrict__ sin_t, T *__restrict__ t)
{
    const int pairs = q_dim / 2, area = height * width;
    const long total = (long)n * area * heads * pairs;
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < total;
         i += (long)gridDim.x * blockDim.x) {
        int p = (int)(i % pairs);
        long rest = i / pairs;
        int h = (int)(rest % heads);
        long row = rest / heads;
        int pt = (int)(row % area);
        int at = pt / width * MAX_SIDE + pt % width;
        size_t k = ((size_t)(h * tables / heads) * pairs + p) * MAX_AREA + at;
        float cp = cos_t[k], sp = sin_t[k];
        T *v = t + row * stride + offset + (long)h * q_dim + 2 * p;
        float v0 = load(v), v1 = load(v + 1);
        store(v, v0 * cp - v1 * sp);
        store(v + 1, v0 * sp + v1 * cp);
    }
}

// One warp a row of at most MAX_AREA scores: out = softmax(in).
template <typename T>
__global__ void softmax_kernel(long rows, int cols, const float *__restrict__ in,
                               T *__restrict__ out)
{
    const int lane = threadIdx.x % 32;
    for (long r = blockIdx.x * (long)WARPS + threadIdx.x / 32; r < rows;
         r += (long)gridDim.x * WARPS) {
        const float *ir = in + r * cols;
        float v[SOFTMAX_PER_LANE], max = -INFINITY, sum = 0.0f;
#pragma unroll
        for (int k = 0; k < SOFTMAX_PER_LANE; k++) {
            int j = lane + 32 * k;
            v[k] = j < cols ? ir[j] : -INFINITY;
            max = fmaxf(max, v[k]);
        }
        max = warp_max(max);
#pragma unroll
        for (int k = 0; k < SOFTMAX_PER_LANE; k++) {
            int j = lane + 32 * k;
            v[k] = j < cols ? expf(v[k] - max) : 0.0f;
            sum += v[k];
        }
        float inv = 1.0f / warp_sum(sum);
        T *orow = out + r * cols;
#pragma unroll
        for (int k = 0; k < SOFTMAX_PER_LANE; k++) {
            int j = lane + 32 * k;
            if (j < cols)
                store(orow + j, v[k] * inv);
        }
    }
}

// h[r][f] = silu(ag[r][f]) * ag[r][ffn + f]
template <typename T>
__global__ void swiglu_kernel(long rows, int ffn, const T *__restrict__ ag, T *__restrict__ h)
{
    const long total = rows * ffn;
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < total;
         i += (long)gridDim.x * blockDim.x) {
        long r = i / ffn;
        int f = (int)(i - r * ffn);
        const T *a = ag + r * 2 * ffn;
        float u = load(a + f);
        store(h + i, u / (1.0f + expf(-u)) * load(a + ffn + f));
    }
}

// One block an image. spatial: one normaliser for the image's area * c values; their sum of
// squares in memory order, one rounding per product and per addition, when `sequential` (the
// cpu backend's and KataGo's float sum, whose rounding moves the score outputs by more than the
// reference tolerances), else a tree. Per point otherwise, a warp a point.
template <typename T>
__global__ void tip_rms_kernel(int area, int c, int spatial, int sequential, float eps,
                               const float *__restrict__ gamma, const float *__restrict__ beta,
                               int act, const T *__restrict__ x, T *__restrict__ out)
{
    __shared__ float part[WARPS];
    __shared__ float image_inv;
    const long base = (long)blockIdx.x * area * c;
    const T *xi = x + base;
    T *oi = out + base;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const long span = (long)area * c;
    if (spatial) {
        if (sequential) {
            if (threadIdx.x == 0) {
                float ss = 0.0f;
                for (long i = 0; i < span; i++) {
                    float v = load(xi + i);
                    ss = __fadd_rn(ss, __fmul_rn(v, v));
                }
                image_inv = (float)(1.0 / sqrt((double)ss / (double)span + (double)eps));
            }
        } else {
            float ss = 0.0f;
            for (long i = threadIdx.x; i < span; i += THREADS) {
                float v = load(xi + i);
                ss += v * v;
            }
            ss = warp_sum(ss);
            if (lane == 0)
                part[warp] = ss;
            __syncthreads();
            if (threadIdx.x == 0) {
                float total = 0.0f;
                for (int k = 0; k < WARPS; k++)
                    total += part[k];
                image_inv = (float)(1.0 / sqrt((double)total / (double)span + (double)eps));
            }
        }
        __syncthreads();
        const float inv = image_inv;
        for (long i = threadIdx.x; i < span; i += THREADS) {
            int ch = (int)(i % c);
            store(oi + i, nn_cuda_ep_activate(load(xi + i) * (inv * gamma[ch]) + beta[ch], act));
        }
        return;
    }
    for (int p = warp; p < area; p += WARPS) {
        const T *xp = xi + (long)p * c;
        float ss = 0.0f;
        for (int ch = lane; ch < c; ch += 32) {
            float v = load(xp + ch);
            ss += v * v;
        }
        ss = warp_sum(ss);
        float inv = (float)(1.0 / sqrt((double)ss / (double)c + (double)eps));
        for (int ch = lane; ch < c; ch += 32)
            store(oi + (long)p * c + ch,
                  nn_cuda_ep_activate(load(xp + ch) * (inv * gamma[ch]) + beta[ch], act));
    }
}

template <typename T>
int rms_norm(long rows, int c, float eps, const float *w, const void *x, void *y, void *stream)
{
    if (rows <= 0 || c <= 0)
        return 0;
    rms_norm_kernel<T><<<(unsigned)blocks_for(rows, WARPS), THREADS, 0, (cudaStream_t)stream>>>(
        rows, c, eps, w, (const T *)x, (T *)y);
    return (int)cudaGetLastError();
}

template <typename T>
int rope(int n, int height, int width, int stride, int offset, int heads, int tables, int q_dim,
         const float *cos_t, const float *sin_t, void *t, void *stream)
{
    long total = (long)n * height * width * heads * (q_dim / 2);
    if (total <= 0)
        return 0;
    if (width > MAX_SIDE || height > MAX_SIDE || tables < 1 || heads < tables)
        return (int)cudaErrorInvalidValue;
    rope_kernel<T><<<(unsigned)blocks_for(total, THREADS), THREADS, 0, (cudaStream_t)stream>>>(
        n, height, width, stride, offset, heads, tables, q_dim, cos_t, sin_t, (T *)t);
    return (int)cudaGetLastError();
}

template <typename T>
int softmax(long rows, int cols, const float *in, void *out, void *stream)
{
    if (rows <= 0 || cols <= 0)
        return 0;
    if (cols > MAX_AREA)
        return (int)cudaErrorInvalidValue;
    softmax_kernel<T><<<(unsigned)blocks_for(rows, WARPS), THREADS, 0, (cudaStream_t)stream>>>(
        rows, cols, in, (T *)out);
    return (int)cudaGetLastError();
}

template <typename T>
int swiglu(long rows, int ffn, const void *ag, void *h, void *stream)
{
    long total = rows * ffn;
    if (total <= 0)
        return 0;
    swiglu_kernel<T><<<(unsigned)blocks_for(total, THREADS), THREADS, 0, (cudaStream_t)stream>>>(
        rows, ffn, (const T *)ag, (T *)h);
    return (int)cudaGetLastError();
}

template <typename T>
int tip_rms(int n, int area, int c, int spatial, int sequential, float eps, const float *gamma,
            const float *beta, int act, const void *x, void *out, void *stream)
{
    if (n <= 0 || area <= 0 || c <= 0)
        return 0;
    tip_rms_kernel<T><<<(unsigned)n, THREADS, 0, (cudaStream_t)stream>>>(
        area, c, spatial, sequential, eps, gamma, beta, act, (const T *)x, (T *)out);
    return (int)cudaGetLastError();
}

} // namespace

extern "C" int nn_cuda_rms_norm_f32(long rows, int c, float eps, const float *w, const float *x,
                                    float *y, void *stream)
{
    return rms_norm<float>(rows, c, eps, w, x, y, stream);
}

extern "C" int nn_cuda_rms_norm_f16(long rows, int c, float eps, const float *w, const void *x,
                                    void *y, void *stream)
{
    return rms_norm<__half>(rows, c, eps, w, x, y, stream);
}

extern "C" int nn_cuda_rope_f32(int n, int height, int width, int stride, int offset, int heads,
                                int tables, int q_dim, const float *cos_t, const float *sin_t,
                                float *t, void *stream)
{
    return rope<float>(n, height, width, stride, offset, heads, tables, q_dim, cos_t, sin_t, t,
                       stream);
}

extern "C" int nn_cuda_rope_f16(int n, int height, int width, int stride, int offset, int heads,
                                int tables, int q_dim, const float *cos_t, const float *sin_t,
                                void *t, void *stream)
{
    return rope<__half>(n, height, width, stride, offset, heads, tables, q_dim, cos_t, sin_t, t,
                        stream);
}

extern "C" int nn_cuda_softmax_f32(long rows, int cols, const float *in, float *out,
                                   void *stream)
{
    return softmax<float>(rows, cols, in, out, stream);
}

extern "C" int nn_cuda_softmax_f16(long rows, int cols, const float *in, void *out, void *stream)
{
    return softmax<__half>(rows, cols, in, out, stream);
}

extern "C" int nn_cuda_swiglu_f32(long rows, int ffn, const float *ag, float *h, void *stream)
{
    return swiglu<float>(rows, ffn, ag, h, stream);
}

extern "C" int nn_cuda_swiglu_f16(long rows, int ffn, const void *ag, void *h, void *stream)
{
    return swiglu<__half>(rows, ffn, ag, h, stream);
}

extern "C" int nn_cuda_tip_rms_f32(int n, int area, int c, int spatial, int sequential, float eps,
                                   const float *gamma, const float *beta, int act, const float *x,
                                   float *out, void *stream)
{
    return tip_rms<float>(n, area, c, spatial, sequential, eps, gamma, beta, act, x, out, stream);
}

extern "C" int nn_cuda_tip_rms_f16(int n, int area, int c, int spatial, int sequential, float eps,
                                   const float *gamma, const float *beta, int act, const void *x,
                                   void *out, void *stream)
{
    return tip_rms<__half>(n, area, c, spatial, sequential, eps, gamma, beta, act, x, out,
                           stream);
}
