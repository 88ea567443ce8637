/* nn/cuda/cuda_device.c -- device discovery and the toolchain self-test. */
#include "nn/cuda/cuda_device.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/cuda/kernels/kernels.h"

int nn_cuda_device_probe(char *err, size_t len)
{
    int n = 0, driver = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e == cudaSuccess)
        return n;
    cudaGetLastError();
    cudaDriverGetVersion(&driver);
    /* no device, or no driver library at all (driver version 0): a machine without a GPU */
    if (e == cudaErrorNoDevice || (e == cudaErrorInsufficientDriver && driver == 0))
        return 0;
    snprintf(err, len, "cudaGetDeviceCount: %s (driver %d.%d)", cudaGetErrorString(e),
             driver / 1000, driver % 1000 / 10);
    return -1;
}

int nn_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky "no driver" error */
        return 0;
    }
    return n;
}

bool nn_cuda_describe(char *buf, size_t len)
{
    int runtime = 0, driver = 0;
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    size_t used = (size_t)snprintf(buf, len,
                                   "CUDA runtime %d.%d, driver %d.%d, cuDNN %zu, cuBLAS (linked)\n",
                                   runtime / 1000, runtime % 1000 / 10, driver / 1000,
                                   driver % 1000 / 10, cudnnGetVersion());
    int n = nn_cuda_device_count();
    if (n == 0) {
        snprintf(buf + (used < len ? used : len), used < len ? len - used : 0,
                 "no CUDA device present\n");
        return false;
    }
    for (int i = 0; i < n && used < len; i++) {
        struct cudaDeviceProp prop;
        if (cudaGetDeviceProperties(&prop, i) != cudaSuccess)
            continue;
        used += (size_t)snprintf(buf + used, len - used,
                                 "device %d: %s, compute %d.%d, %d SMs, %.1f GiB\n", i, prop.name,
                                 prop.major, prop.minor, prop.multiProcessorCount,
                                 (double)prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
    }
    return true;
}

static bool close_enough(const float *got, const float *want, int n, float rtol, const char *what,
                         char *err, size_t len)
{
    for (int i = 0; i < n; i++) {
        float tol = 1e-5f + rtol * fabsf(want[i]);
        if (!(fabsf(got[i] - want[i]) <= tol)) {
            snprintf(err, len, "%s: element %d is %g, expected %g", what, i, (double)got[i],
                     (double)want[i]);
            return false;
        }
    }
    return true;
}

#define CUDA_TRY(call)                                                                             \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            snprintf(err, len, "%s failed: %s", #call, cudaGetErrorString(e_));                   \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)
#define CUBLAS_TRY(call)                                                                           \
    do {                                                                                           \
        cublasStatus_t e_ = (call);                                                                \
        if (e_ != CUBLAS_STATUS_SUCCESS) {                                                         \
            snprintf(err, len, "%s failed: cuBLAS status %d", #call, (int)e_);                    \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)
#define CUDNN_TRY(call)                                                                            \
    do {                                                                                           \
        cudnnStatus_t e_ = (call);                                                                 \
        if (e_ != CUDNN_STATUS_SUCCESS) {                                                          \
            snprintf(err, len, "%s failed: %s", #call, cudnnGetErrorString(e_));                  \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* A 3x3 convolution, padding 1, NCHW, one image: the CPU side of the cuDNN check. */
static void conv3x3_cpu(int cin, int cout, int h, int w, const float *x, const float *k, float *y)
{
    for (int o = 0; o < cout; o++)
        for (int r = 0; r < h; r++)
            for (int c = 0; c < w; c++) {
                double acc = 0;
                for (int i = 0; i < cin; i++)
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++) {
                            int rr = r + dy, cc = c + dx;
                            if (rr < 0 || rr >= h || cc < 0 || cc >= w)
                                continue;
                            acc += (double)x[(i * h + rr) * w + cc] *
                                   k[((o * cin + i) * 3 + dy + 1) * 3 + dx + 1];
                        }
                y[(o * h + r) * w + c] = (float)acc;
            }
}

bool nn_cuda_selftest(char *err, size_t len)
{
    if (nn_cuda_device_count() == 0) {
        snprintf(err, len, "no CUDA device present");
        return false;
    }
    enum { N = 1000, M = 17, K = 23, P = 31, CIN = 7, COUT = 5, H = 9, W = 9 };
    bool ok = false;
    float *host = malloc(sizeof(float) * 8192);
    float *dev = NULL;
    cublasHandle_t blas = NULL;
    cudnnHandle_t dnn = NULL;
    cudnnTensorDescriptor_t xd = NULL, yd = NULL;
    cudnnFilterDescriptor_t kd = NULL;
    cudnnConvolutionDescriptor_t cd = NULL;
    if (!host) {
        snprintf(err, len, "out of memory");
        return false;
    }
    float *x = host, *y = host + 1024, *want = host + 2048, *got = host + 4096;
    for (int i = 0; i < 1024; i++) {
        x[i] = (float)((i * 37) % 19) / 19.0f - 0.5f;
        y[i] = (float)((i * 11) % 7) / 7.0f;
    }
    CUDA_TRY(cudaSetDevice(0));
    CUDA_TRY(cudaMalloc((void **)&dev, sizeof(float) * 4096));
    float *dx = dev, *dy = dev + 1024, *dz = dev + 2048;

    /* 1. our kernel */
    CUDA_TRY(cudaMemcpy(dx, x, sizeof(float) * N, cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(dy, y, sizeof(float) * N, cudaMemcpyHostToDevice));
    CUDA_TRY((cudaError_t)nn_cuda_axpy_f32(N, 2.5f, dx, dy, NULL));
    CUDA_TRY(cudaMemcpy(got, dy, sizeof(float) * N, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        want[i] = 2.5f * x[i] + y[i];
    if (!close_enough(got, want, N, 1e-6f, "axpy kernel", err, len))
        goto out;

    /* 2. cuBLAS: C(MxP) = A(MxK) B(KxP), column-major */
    CUBLAS_TRY(cublasCreate(&blas));
    CUDA_TRY(cudaMemcpy(dx, x, sizeof(float) * M * K, cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(dy, y, sizeof(float) * K * P, cudaMemcpyHostToDevice));
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_TRY(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, M, P, K, &one, dx, M, dy, K, &zero, dz,
                           M));
    CUDA_TRY(cudaMemcpy(got, dz, sizeof(float) * M * P, cudaMemcpyDeviceToHost));
    for (int j = 0; j < P; j++)
        for (int i = 0; i < M; i++) {
            double acc = 0;
            for (int k = 0; k < K; k++)
                acc += (double)x[k * M + i] * y[j * K + k];
            want[j * M + i] = (float)acc;
        }
    if (!close_enough(got, want, M * P, 1e-4f, "cuBLAS SGEMM", err, len))
        goto out;

    /* 3. cuDNN: 3x3 convolution with padding 1 */
    CUDNN_TRY(cudnnCreate(&dnn));
    CUDNN_TRY(cudnnCreateTensorDescriptor(&xd));
    CUDNN_TRY(cudnnCreateTensorDescriptor(&yd));
    CUDNN_TRY(cudnnCreateFilterDescriptor(&kd));
    CUDNN_TRY(cudnnCreateConvolutionDescriptor(&cd));
    CUDNN_TRY(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, CIN, H, W));
    CUDNN_TRY(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, COUT, H, W));
    CUDNN_TRY(cudnnSetFilter4dDescriptor(kd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, COUT, CIN, 3, 3));
    CUDNN_TRY(cudnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                              CUDNN_DATA_FLOAT));
    CUDA_TRY(cudaMemcpy(dx, x, sizeof(float) * CIN * H * W, cudaMemcpyHostToDevice));
    CUDA_TRY(cudaMemcpy(dy, y, sizeof(float) * COUT * CIN * 9, cudaMemcpyHostToDevice));
    CUDNN_TRY(cudnnConvolutionForward(dnn, &one, xd, dx, kd, dy, cd,
                                      CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, NULL, 0, &zero,
                                      yd, dz));
    CUDA_TRY(cudaMemcpy(got, dz, sizeof(float) * COUT * H * W, cudaMemcpyDeviceToHost));
    conv3x3_cpu(CIN, COUT, H, W, x, y, want);
    if (!close_enough(got, want, COUT * H * W, 1e-4f, "cuDNN convolution", err, len))
        goto out;
    ok = true;
out:
    if (cd)
        cudnnDestroyConvolutionDescriptor(cd);
    if (kd)
        cudnnDestroyFilterDescriptor(kd);
    if (yd)
        cudnnDestroyTensorDescriptor(yd);
    if (xd)
        cudnnDestroyTensorDescriptor(xd);
    if (dnn)
        cudnnDestroy(dnn);
    if (blas)
        cublasDestroy(blas);
    cudaFree(dev);
    free(host);
    return ok;
}
