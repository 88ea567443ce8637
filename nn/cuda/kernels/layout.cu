// nn/cuda/kernels/layout.cu -- moving data between backend.h's plane order (NCHW floats) and
// the NHWC activations of the CUDA backend, and the one-off fp32 -> fp16 weight conversion.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "nn/cuda/kernels/kernels.h"

namespace {

__device__ inline void store(float *p, float v) { *p = v; }
__device__ inline void store(__half *p, float v) { *p = __float2half_rn(v); }
__device__ inline float load(const float *p) { return *p; }
__device__ inline float load(const __half *p) { return __half2float(*p); }

int blocks_for(long count, int threads)
{
    long b = (count + threads - 1) / threads;
    return (int)(b < 65535 ? b : 65535);
}

__global__ void f32_to_f16_kernel(long count, const float *__restrict__ in, __half *__restrict__ out)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < count;
         i += (long)gridDim.x * blockDim.x)
        out[i] = __float2half_rn(in[i]);
}

// One thread per output element; consecutive threads write consecutive channels.
template <typename T>
__global__ void nchw_to_nhwc_kernel(int n, int c, int c_pad, int area, const float *__restrict__ in,
                                    T *__restrict__ out)
{
    long total = (long)n * area * c_pad;
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < total;
         i += (long)gridDim.x * blockDim.x) {
        int ch = (int)(i % c_pad);
        long np = i / c_pad;
        int p = (int)(np % area);
        long img = np / area;
        store(out + i, ch < c ? in[(img * c + ch) * area + p] : 0.0f);
    }
}

// One thread per output element; consecutive threads write consecutive points.
template <typename T>
__global__ void nhwc_to_nchw_kernel(int n, int c, int area, const T *__restrict__ in,
                                    float *__restrict__ out)
{
    long total = (long)n * c * area;
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < total;
         i += (long)gridDim.x * blockDim.x) {
        int p = (int)(i % area);
        long nc = i / area;
        int ch = (int)(nc % c);
        long img = nc / c;
        out[i] = load(in + (img * area + p) * c + ch);
    }
}

} // namespace

extern "C" int nn_cuda_f32_to_f16(long count, const float *in, void *out, void *stream)
{
    if (count <= 0)
        return 0;
    f32_to_f16_kernel<<<blocks_for(count, 256), 256, 0, (cudaStream_t)stream>>>(
        count, in, (__half *)out);
    return (int)cudaGetLastError();
}

extern "C" int nn_cuda_nchw_to_nhwc_f32(int n, int c, int c_pad, int area, const float *in,
                                        float *out, void *stream)
{
    long total = (long)n * area * c_pad;
    if (total <= 0)
        return 0;
    nchw_to_nhwc_kernel<float><<<blocks_for(total, 256), 256, 0, (cudaStream_t)stream>>>(
        n, c, c_pad, area, in, out);
    return (int)cudaGetLastError();
}

extern "C" int nn_cuda_nchw_to_nhwc_f16(int n, int c, int c_pad, int area, const float *in,
                                        void *out, void *stream)
{
    long total = (long)n * area * c_pad;
    if (total <= 0)
        return 0;
    nchw_to_nhwc_kernel<__half><<<blocks_for(total, 256), 256, 0, (cudaStream_t)stream>>>(
        n, c, c_pad, area, in, (__half *)out);
    return (int)cudaGetLastError();
}

extern "C" int nn_cuda_nhwc_to_nchw_f32(int n, int c, int area, const float *in, float *out,
                                        void *stream)
{
    long total = (long)n * c * area;
    if (total <= 0)
        return 0;
    nhwc_to_nchw_kernel<float><<<blocks_for(total, 256), 256, 0, (cudaStream_t)stream>>>(
        n, c, area, in, out);
    return (int)cudaGetLastError();
}

extern "C" int nn_cuda_nhwc_to_nchw_f16(int n, int c, int area, const void *in, float *out,
                                        void *stream)
{
    long total = (long)n * c * area;
    if (total <= 0)
        return 0;
    nhwc_to_nchw_kernel<__half><<<blocks_for(total, 256), 256, 0, (cudaStream_t)stream>>>(
        n, c, area, (const __half *)in, out);
    return (int)cudaGetLastError();
}
