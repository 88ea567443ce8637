/* nn/cuda/kernels/kernels.h -- extern "C" launchers of shido's own CUDA kernels, one line of
 * shape comment each. All take a stream and return a cudaError_t as int (0 = success). */
#ifndef SHIDO_NN_CUDA_KERNELS_H
#define SHIDO_NN_CUDA_KERNELS_H

#ifdef __cplusplus
extern "C" {
#endif

/* y[i] = alpha * x[i] + y[i] for i < n (fp32, device pointers). */
int nn_cuda_axpy_f32(int n, float alpha, const float *x, float *y, void *stream);

#ifdef __cplusplus
}
#endif

#endif
