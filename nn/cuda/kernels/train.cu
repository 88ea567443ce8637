// nn/cuda/kernels/train.cu -- the element-wise steps of training the tsumego discriminator on
// the GPU (nn/cuda/cuda_train.c): biases and ReLU forward and backward, bias gradients, the
// binary cross-entropy gradient and Adam. Convolutions are cuDNN's, dense layers cuBLAS's.
#include <cuda_runtime.h>

#include "nn/cuda/kernels/kernels.h"

static int blocks_for(long n, int threads)
{
    long b = (n + threads - 1) / threads;
    return (int)(b < 65535 ? (b > 0 ? b : 1) : 65535);
}

// x[n][c][area] += bias[c], then ReLU when relu
__global__ void bias_act_nchw_kernel(long total, int c, int area, const float *bias, int relu,
                                     float *x)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < total;
         i += (long)gridDim.x * blockDim.x) {
        float v = x[i] + bias[(i / area) % c];
        x[i] = relu && v < 0.0f ? 0.0f : v;
    }
}

extern "C" int nn_cuda_train_bias_act_nchw_f32(int n, int c, int area, const float *bias,
                                               int relu, float *x, void *stream)
{
    long total = (long)n * c * area;
    bias_act_nchw_kernel<<<blocks_for(total, 256), 256, 0, (cudaStream_t)stream>>>(
        total, c, area, bias, relu, x);
    return (int)cudaGetLastError();
}

// dz[i] = 0 where out[i] <= 0 (ReLU's gradient)
__global__ void relu_backward_kernel(long total, const float *out, float *dz)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < total;
         i += (long)gridDim.x * blockDim.x)
        if (out[i] <= 0.0f)
            dz[i] = 0.0f;
}

extern "C" int nn_cuda_train_relu_backward_f32(long total, const float *out, float *dz,
                                               void *stream)
{
    relu_backward_kernel<<<blocks_for(total, 256), 256, 0, (cudaStream_t)stream>>>(total, out,
                                                                                  dz);
    return (int)cudaGetLastError();
}

// db[ch] = sum over n and area of dz[n][ch][area]: one block per channel, a tree in shared
// memory (deterministic: no atomics)
__global__ void bias_grad_nchw_kernel(int n, int c, int area, const float *dz, float *db)
{
    __shared__ float part[256];
    int ch = blockIdx.x;
    float s = 0.0f;
    for (long i = threadIdx.x; i < (long)n * area; i += blockDim.x) {
        long img = i / area, at = i % area;
        s += dz[(img * c + ch) * area + at];
    }
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if ((int)threadIdx.x < w)
            part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        db[ch] = part[0];
}

extern "C" int nn_cuda_train_bias_grad_nchw_f32(int n, int c, int area, const float *dz,
                                                float *db, void *stream)
{
    bias_grad_nchw_kernel<<<c, 256, 0, (cudaStream_t)stream>>>(n, c, area, dz, db);
    return (int)cudaGetLastError();
}

// the binary cross-entropy of sigmoid(z) against y: loss[i], and dz[i] = (sigmoid(z) - y) / n
__global__ void bce_kernel(int n, const float *z, const float *y, float *loss, float *dz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = z[i], t = y[i];
    loss[i] = fmaxf(v, 0.0f) - v * t + log1pf(expf(-fabsf(v)));
    float p = v >= 0.0f ? 1.0f / (1.0f + expf(-v)) : expf(v) / (1.0f + expf(v));
    dz[i] = (p - t) / (float)n;
}

extern "C" int nn_cuda_train_bce_f32(int n, const float *z, const float *y, float *loss,
                                     float *dz, void *stream)
{
    bce_kernel<<<(n + 255) / 256, 256, 0, (cudaStream_t)stream>>>(n, z, y, loss, dz);
    return (int)cudaGetLastError();
}

// Adam, as torch.optim.Adam computes it: step_size = lr / (1 - beta1^t), c2s = sqrt(1 - beta2^t)
__global__ void adam_kernel(long n, float beta1, float beta2, float eps, float step_size,
                            float c2s, const float *g, float *m, float *v, float *p)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
         i += (long)gridDim.x * blockDim.x) {
        float gi = g[i];
        float mi = beta1 * m[i] + (1.0f - beta1) * gi;
        float vi = beta2 * v[i] + (1.0f - beta2) * gi * gi;
        m[i] = mi;
        v[i] = vi;
        p[i] -= step_size * mi / (sqrtf(vi) / c2s + eps);
    }
}

extern "C" int nn_cuda_train_adam_f32(long n, float beta1, float beta2, float eps,
                                      float step_size, float c2s, const float *g, float *m,
                                      float *v, float *p, void *stream)
{
    adam_kernel<<<blocks_for(n, 256), 256, 0, (cudaStream_t)stream>>>(
        n, beta1, beta2, eps, step_size, c2s, g, m, v, p);
    return (int)cudaGetLastError();
}

// y[n][c] += bias[c], then ReLU when relu (dense layers)
__global__ void bias_act_rows_kernel(long total, int c, const float *bias, int relu, float *y)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < total;
         i += (long)gridDim.x * blockDim.x) {
        float v = y[i] + bias[i % c];
        y[i] = relu && v < 0.0f ? 0.0f : v;
    }
}

extern "C" int nn_cuda_train_bias_act_rows_f32(int n, int c, const float *bias, int relu,
                                               float *y, void *stream)
{
    long total = (long)n * c;
    bias_act_rows_kernel<<<blocks_for(total, 256), 256, 0, (cudaStream_t)stream>>>(
        total, c, bias, relu, y);
    return (int)cudaGetLastError();
}

// db[j] = sum over rows of dz[n][c]
__global__ void bias_grad_rows_kernel(int n, int c, const float *dz, float *db)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= c)
        return;
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += dz[(long)i * c + j];
    db[j] = s;
}

extern "C" int nn_cuda_train_bias_grad_rows_f32(int n, int c, const float *dz, float *db,
                                                void *stream)
{
    bias_grad_rows_kernel<<<(c + 127) / 128, 128, 0, (cudaStream_t)stream>>>(n, c, dz, db);
    return (int)cudaGetLastError();
}
