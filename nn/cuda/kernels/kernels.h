/* nn/cuda/kernels/kernels.h -- extern "C" launchers of shido's own CUDA kernels, one line of
 * shape comment each. All take a stream and return a cudaError_t as int (0 = success).
 * Pointers are device pointers; "_f16" buffers hold IEEE half floats (uint16_t storage),
 * "_f32" buffers floats; area = height * width. Activations are NHWC: x[n][area][c]. */
#ifndef SHIDO_NN_CUDA_KERNELS_H
#define SHIDO_NN_CUDA_KERNELS_H

#ifdef __cplusplus
extern "C" {
#endif

/* y[i] = alpha * x[i] + y[i] for i < n (fp32, device pointers). */
int nn_cuda_axpy_f32(int n, float alpha, const float *x, float *y, void *stream);

/* out[i] = (half) in[i] for i < count: weights converted once at load. */
int nn_cuda_f32_to_f16(long count, const float *in, void *out, void *stream);

/* Input planes: in[n][c][area] floats -> out[n][area][c_pad], channels c..c_pad-1 zero (the
 * padding lets cuDNN pick tensor-core algorithms for 22- or 18-channel inputs). */
int nn_cuda_nchw_to_nhwc_f32(int n, int c, int c_pad, int area, const float *in, float *out,
                             void *stream);
int nn_cuda_nchw_to_nhwc_f16(int n, int c, int c_pad, int area, const float *in, void *out,
                             void *stream);

/* Head outputs: in[n][area][c] -> out[n][c][area] floats (backend.h's plane order). */
int nn_cuda_nhwc_to_nchw_f32(int n, int c, int area, const float *in, float *out, void *stream);
int nn_cuda_nhwc_to_nchw_f16(int n, int c, int area, const void *in, float *out, void *stream);

/* KataGo's global pooling of x[n][area][c] into out[n][3c] floats: the mean over the board,
 * mean * (sqrt(area) - 14) / 10, and the maximum (value_head 0: gpool blocks and the policy
 * head) or mean * ((sqrt(area) - 14)^2 / 100 - 0.1) (value_head 1). Every point of the tensor
 * is on the board: the backend runs each batch at its own tensor shape. */
int nn_cuda_kata_pool_f32(int n, int c, int area, int value_head, const float *x, float *out,
                          void *stream);
int nn_cuda_kata_pool_f16(int n, int c, int area, int value_head, const void *x, float *out,
                          void *stream);

/* ---- training the tsumego discriminator (train.cu); activations NCHW x[n][c][area], dense
 * rows y[n][c] ---- */

/* x[n][c][area] += bias[c], then ReLU when relu. */
int nn_cuda_train_bias_act_nchw_f32(int n, int c, int area, const float *bias, int relu, float *x,
                                    void *stream);
/* y[n][c] += bias[c], then ReLU when relu. */
int nn_cuda_train_bias_act_rows_f32(int n, int c, const float *bias, int relu, float *y,
                                    void *stream);
/* dz[i] = 0 where out[i] <= 0, i < total. */
int nn_cuda_train_relu_backward_f32(long total, const float *out, float *dz, void *stream);
/* db[c] = sum over n, area of dz[n][c][area] (deterministic). */
int nn_cuda_train_bias_grad_nchw_f32(int n, int c, int area, const float *dz, float *db,
                                     void *stream);
/* db[c] = sum over n of dz[n][c]. */
int nn_cuda_train_bias_grad_rows_f32(int n, int c, const float *dz, float *db, void *stream);
/* loss[i] = BCE(sigmoid(z[i]), y[i]); dz[i] = (sigmoid(z[i]) - y[i]) / n, i < n. */
int nn_cuda_train_bce_f32(int n, const float *z, const float *y, float *loss, float *dz,
                          void *stream);
/* One Adam step on p[n] with gradient g and moments m, v (torch.optim.Adam's arithmetic). */
int nn_cuda_train_adam_f32(long n, float beta1, float beta2, float eps, float step_size,
                           float c2s, const float *g, float *m, float *v, float *p, void *stream);

#ifdef __cplusplus
}
#endif

#endif
