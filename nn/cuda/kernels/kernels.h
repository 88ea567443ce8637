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

/* ---- KataGo 1.17's transformer blocks and RMS-norm trunk tip (transformer.cu); rows = n * area
 * points, each row a point's channels ---- */

/* y[r][c] = x[r][c] / sqrt(mean over c of x[r][.]^2 + eps) * w[c] (w: floats). */
int nn_cuda_rms_norm_f32(long rows, int c, float eps, const float *w, const float *x, float *y,
                         void *stream);
int nn_cuda_rms_norm_f16(long rows, int c, float eps, const float *w, const void *x, void *y,
                         void *stream);

/* Rotary encodings in place on t[n][area][stride]: head h of `heads` starts at channel offset +
 * h * q_dim, and its channel pairs (2p, 2p + 1) turn by the angle whose cosine and sine are
 * cos_t / sin_t[h * tables / heads][p][y * 19 + x] at the point (y, x) of the height x width
 * tensor. */
int nn_cuda_rope_f32(int n, int height, int width, int stride, int offset, int heads, int tables,
                     int q_dim, const float *cos_t, const float *sin_t, float *t, void *stream);
int nn_cuda_rope_f16(int n, int height, int width, int stride, int offset, int heads, int tables,
                     int q_dim, const float *cos_t, const float *sin_t, void *t, void *stream);

/* out[r] = softmax(in[r]) over cols <= 361 values, rows of floats in, activations out (the
 * fp32 one may work in place). */
int nn_cuda_softmax_f32(long rows, int cols, const float *in, float *out, void *stream);
int nn_cuda_softmax_f16(long rows, int cols, const float *in, void *out, void *stream);

/* SwiGLU: h[r][f] = silu(ag[r][f]) * ag[r][ffn + f] (the first feed-forward product and the
 * gate side by side). */
int nn_cuda_swiglu_f32(long rows, int ffn, const float *ag, float *h, void *stream);
int nn_cuda_swiglu_f16(long rows, int ffn, const void *ag, void *h, void *stream);

/* The RMS-norm trunk tip: out = act(x / rms * gamma[c] + beta[c]) on x[n][area][c], rms over
 * each image's area * c values (spatial) or each point's c, plus eps under the root. With
 * sequential the image's sum of squares is taken in memory order in float, one rounding per
 * product and per addition, as the cpu backend and KataGo's own backends do (a tree sum differs
 * by ~1e-5 relative, which moves the score outputs by more than the reference tolerances); one
 * thread an image then does it. */
int nn_cuda_tip_rms_f32(int n, int area, int c, int spatial, int sequential, float eps,
                        const float *gamma, const float *beta, int act, const float *x,
                        float *out, void *stream);
int nn_cuda_tip_rms_f16(int n, int area, int c, int spatial, int sequential, float eps,
                        const float *gamma, const float *beta, int act, const void *x, void *out,
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
