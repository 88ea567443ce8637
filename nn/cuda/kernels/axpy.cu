// nn/cuda/kernels/axpy.cu -- y = alpha * x + y in fp32: the smallest of our kernels, used by the
// device self-test to prove that nvcc-built code runs on the device at hand.
#include <cuda_runtime.h>

#include "nn/cuda/kernels/kernels.h"

static __global__ void axpy_f32_kernel(int n, float alpha, const float *__restrict__ x,
                                       float *__restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = fmaf(alpha, x[i], y[i]);
}

extern "C" int nn_cuda_axpy_f32(int n, float alpha, const float *x, float *y, void *stream)
{
    if (n <= 0)
        return 0;
    int threads = 256;
    int blocks = (n + threads - 1) / threads;
    if (blocks > 4096)
        blocks = 4096;
    axpy_f32_kernel<<<blocks, threads, 0, (cudaStream_t)stream>>>(n, alpha, x, y);
    return (int)cudaGetLastError();
}
