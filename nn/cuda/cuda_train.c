/* nn/cuda/cuda_train.c -- the tsumego discriminator's training on a GPU (see cuda_train.h).
 * Activations are NCHW [n][c][size][size], which flattened per position is the dense layers'
 * [channel][y][x] order. */
#include "nn/cuda/cuda_train.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nn/cuda/kernels/kernels.h"

typedef struct conv_plan {
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnConvolutionFwdAlgo_t fwd;
    cudnnConvolutionBwdDataAlgo_t bwd_data;
    cudnnConvolutionBwdFilterAlgo_t bwd_filter;
    int n;                      /* the batch the descriptors are set for */
} conv_plan;

struct nn_cuda_trainer {
    nn_disc_desc shape;         /* the layer shapes (no weights) */
    int max_batch, area;
    size_t P, off[NN_DISC_MAX_LAYERS]; /* each layer's weights in the flat arrays */
    float *p, *g, *m, *v;       /* device: parameters, gradient, Adam's moments [P] */
    float *x, *labels, *loss, *dlogits;
    float *act[NN_DISC_MAX_LAYERS];
    float *d0, *d1;             /* gradients flowing back */
    void *ws;
    size_t ws_bytes;
    cudaStream_t stream;
    cudnnHandle_t dnn;
    cublasHandle_t blas;
    conv_plan plan[NN_DISC_MAX_LAYERS];
    float *host_loss;
    char err[512];
};

const char *nn_cuda_trainer_error(const nn_cuda_trainer *t) { return t->err; }

static bool fail(nn_cuda_trainer *t, const char *call, const char *why, int line)
{
    snprintf(t->err, sizeof t->err, "cuda trainer: %s failed: %s (nn/cuda/cuda_train.c:%d)",
             call, why, line);
    return false;
}

#define TRY_CUDA(call)                                                                             \
    do {                                                                                           \
        cudaError_t e_ = (cudaError_t)(call);                                                      \
        if (e_ != cudaSuccess)                                                                     \
            return fail(t, #call, cudaGetErrorString(e_), __LINE__);                              \
    } while (0)
#define TRY_DNN(call)                                                                              \
    do {                                                                                           \
        cudnnStatus_t e_ = (call);                                                                 \
        if (e_ != CUDNN_STATUS_SUCCESS)                                                            \
            return fail(t, #call, cudnnGetErrorString(e_), __LINE__);                             \
    } while (0)
#define TRY_BLAS(call)                                                                             \
    do {                                                                                           \
        cublasStatus_t e_ = (call);                                                                \
        if (e_ != CUBLAS_STATUS_SUCCESS)                                                           \
            return fail(t, #call, cublasGetStatusString(e_), __LINE__);                           \
    } while (0)

static size_t layer_params(const nn_disc_layer *L)
{
    return L->kind == NN_DISC_CONV
               ? (size_t)L->conv.c_out * (L->conv.c_in * L->conv.ky * L->conv.kx + 1)
               : (size_t)L->dense.c_out * (L->dense.c_in + 1);
}

void nn_cuda_trainer_free(nn_cuda_trainer *t)
{
    if (!t)
        return;
    for (int l = 0; l < t->shape.num_layers; l++) {
        conv_plan *c = &t->plan[l];
        if (c->xd)
            cudnnDestroyTensorDescriptor(c->xd);
        if (c->yd)
            cudnnDestroyTensorDescriptor(c->yd);
        if (c->wd)
            cudnnDestroyFilterDescriptor(c->wd);
        if (c->cd)
            cudnnDestroyConvolutionDescriptor(c->cd);
        cudaFree(t->act[l]);
    }
    cudaFree(t->p);
    cudaFree(t->g);
    cudaFree(t->m);
    cudaFree(t->v);
    cudaFree(t->x);
    cudaFree(t->labels);
    cudaFree(t->loss);
    cudaFree(t->dlogits);
    cudaFree(t->d0);
    cudaFree(t->d1);
    cudaFree(t->ws);
    if (t->blas)
        cublasDestroy(t->blas);
    if (t->dnn)
        cudnnDestroy(t->dnn);
    if (t->stream)
        cudaStreamDestroy(t->stream);
    free(t->host_loss);
    free(t);
}

/* Sets conv layer l's descriptors for a batch of n and picks its algorithms (the fastest cuDNN
 * ranks first that needs no more workspace than we may give). */
static bool plan_conv(nn_cuda_trainer *t, int l, int n)
{
    conv_plan *c = &t->plan[l];
    const nn_conv_desc *cv = &t->shape.layer[l].conv;
    int s = t->shape.size, pad = cv->ky / 2;
    if (!c->xd) {
        TRY_DNN(cudnnCreateTensorDescriptor(&c->xd));
        TRY_DNN(cudnnCreateTensorDescriptor(&c->yd));
        TRY_DNN(cudnnCreateFilterDescriptor(&c->wd));
        TRY_DNN(cudnnCreateConvolutionDescriptor(&c->cd));
        TRY_DNN(cudnnSetFilter4dDescriptor(c->wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, cv->c_out,
                                           cv->c_in, cv->ky, cv->kx));
        TRY_DNN(cudnnSetConvolution2dDescriptor(c->cd, pad, pad, 1, 1, 1, 1,
                                                CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
        TRY_DNN(cudnnSetConvolutionMathType(c->cd, CUDNN_FMA_MATH));
    }
    TRY_DNN(cudnnSetTensor4dDescriptor(c->xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, cv->c_in, s,
                                       s));
    TRY_DNN(cudnnSetTensor4dDescriptor(c->yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, cv->c_out,
                                       s, s));
    c->n = n;
    int got;
    cudnnConvolutionFwdAlgoPerf_t fp[8];
    cudnnConvolutionBwdDataAlgoPerf_t dp[8];
    cudnnConvolutionBwdFilterAlgoPerf_t wp[8];
    TRY_DNN(cudnnGetConvolutionForwardAlgorithm_v7(t->dnn, c->xd, c->wd, c->cd, c->yd, 8, &got,
                                                   fp));
    int i = 0;
    while (i < got && (fp[i].status != CUDNN_STATUS_SUCCESS || fp[i].memory > t->ws_bytes))
        i++;
    if (i == got)
        return fail(t, "cudnnGetConvolutionForwardAlgorithm_v7", "no algorithm fits", __LINE__);
    c->fwd = fp[i].algo;
    TRY_DNN(cudnnGetConvolutionBackwardDataAlgorithm_v7(t->dnn, c->wd, c->yd, c->cd, c->xd, 8,
                                                        &got, dp));
    for (i = 0; i < got && (dp[i].status != CUDNN_STATUS_SUCCESS || dp[i].memory > t->ws_bytes);)
        i++;
    if (i == got)
        return fail(t, "cudnnGetConvolutionBackwardDataAlgorithm_v7", "no algorithm fits",
                    __LINE__);
    c->bwd_data = dp[i].algo;
    TRY_DNN(cudnnGetConvolutionBackwardFilterAlgorithm_v7(t->dnn, c->xd, c->yd, c->cd, c->wd, 8,
                                                          &got, wp));
    for (i = 0; i < got && (wp[i].status != CUDNN_STATUS_SUCCESS || wp[i].memory > t->ws_bytes);)
        i++;
    if (i == got)
        return fail(t, "cudnnGetConvolutionBackwardFilterAlgorithm_v7", "no algorithm fits",
                    __LINE__);
    c->bwd_filter = wp[i].algo;
    return true;
}

static bool alloc(nn_cuda_trainer *t, const nn_disc_desc *d)
{
    size_t B = (size_t)t->max_batch, widest = (size_t)d->planes * t->area;
    TRY_CUDA(cudaStreamCreateWithFlags(&t->stream, cudaStreamNonBlocking));
    TRY_DNN(cudnnCreate(&t->dnn));
    TRY_DNN(cudnnSetStream(t->dnn, t->stream));
    TRY_BLAS(cublasCreate(&t->blas));
    TRY_BLAS(cublasSetStream(t->blas, t->stream));
    TRY_BLAS(cublasSetMathMode(t->blas, CUBLAS_PEDANTIC_MATH)); /* fp32, no TF32 */
    TRY_CUDA(cudaMalloc((void **)&t->p, t->P * sizeof(float)));
    TRY_CUDA(cudaMalloc((void **)&t->g, t->P * sizeof(float)));
    TRY_CUDA(cudaMalloc((void **)&t->m, t->P * sizeof(float)));
    TRY_CUDA(cudaMalloc((void **)&t->v, t->P * sizeof(float)));
    TRY_CUDA(cudaMemset(t->m, 0, t->P * sizeof(float)));
    TRY_CUDA(cudaMemset(t->v, 0, t->P * sizeof(float)));
    for (int l = 0; l < d->num_layers; l++) {
        size_t outs = (size_t)nn_disc_layer_outputs(d, l);
        widest = outs > widest ? outs : widest;
        TRY_CUDA(cudaMalloc((void **)&t->act[l], B * outs * sizeof(float)));
    }
    TRY_CUDA(cudaMalloc((void **)&t->x, B * d->planes * t->area * sizeof(float)));
    TRY_CUDA(cudaMalloc((void **)&t->labels, B * sizeof(float)));
    TRY_CUDA(cudaMalloc((void **)&t->loss, B * sizeof(float)));
    TRY_CUDA(cudaMalloc((void **)&t->dlogits, B * sizeof(float)));
    TRY_CUDA(cudaMalloc((void **)&t->d0, B * widest * sizeof(float)));
    TRY_CUDA(cudaMalloc((void **)&t->d1, B * widest * sizeof(float)));
    t->ws_bytes = (size_t)64 << 20;
    TRY_CUDA(cudaMalloc(&t->ws, t->ws_bytes));
    t->host_loss = malloc(B * sizeof(float));
    if (!t->host_loss)
        return fail(t, "malloc", "out of host memory", __LINE__);
    for (int l = 0; l < d->num_layers; l++)
        if (d->layer[l].kind == NN_DISC_CONV && !plan_conv(t, l, t->max_batch))
            return false;
    return true;
}

nn_cuda_trainer *nn_cuda_trainer_new(const nn_disc_desc *d, int max_batch, char *err,
                                     int err_len)
{
    int devices = 0;
    cudaError_t e = cudaGetDeviceCount(&devices);
    if (e != cudaSuccess || devices == 0) {
        snprintf(err, (size_t)err_len, "cuda trainer: no CUDA device (%s)",
                 e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        return NULL;
    }
    nn_cuda_trainer *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, (size_t)err_len, "cuda trainer: out of memory");
        return NULL;
    }
    t->shape = *d; /* the pointers are not used: weights live on the device */
    t->max_batch = max_batch;
    t->area = d->size * d->size;
    for (int l = 0; l < d->num_layers; l++) {
        t->off[l] = t->P;
        t->P += layer_params(&d->layer[l]);
    }
    if (!alloc(t, d) || !nn_cuda_trainer_push(t, NULL, NULL, d)) {
        snprintf(err, (size_t)err_len, "%s", t->err);
        nn_cuda_trainer_free(t);
        return NULL;
    }
    return t;
}

bool nn_cuda_trainer_push(nn_cuda_trainer *t, const float *m, const float *v,
                          const nn_disc_desc *d)
{
    for (int l = 0; l < d->num_layers; l++) {
        const nn_disc_layer *L = &d->layer[l];
        bool conv = L->kind == NN_DISC_CONV;
        size_t nb = (size_t)(conv ? L->conv.c_out : L->dense.c_out);
        size_t nw = layer_params(L) - nb;
        TRY_CUDA(cudaMemcpy(t->p + t->off[l], conv ? L->conv.w : L->dense.w, nw * sizeof(float),
                            cudaMemcpyHostToDevice));
        TRY_CUDA(cudaMemcpy(t->p + t->off[l] + nw, conv ? L->conv.bias : L->dense.bias,
                            nb * sizeof(float), cudaMemcpyHostToDevice));
    }
    if (m)
        TRY_CUDA(cudaMemcpy(t->m, m, t->P * sizeof(float), cudaMemcpyHostToDevice));
    if (v)
        TRY_CUDA(cudaMemcpy(t->v, v, t->P * sizeof(float), cudaMemcpyHostToDevice));
    return true;
}

bool nn_cuda_trainer_pull(nn_cuda_trainer *t, float *grad, float *m, float *v, nn_disc_desc *d)
{
    TRY_CUDA(cudaStreamSynchronize(t->stream));
    if (grad)
        TRY_CUDA(cudaMemcpy(grad, t->g, t->P * sizeof(float), cudaMemcpyDeviceToHost));
    if (m)
        TRY_CUDA(cudaMemcpy(m, t->m, t->P * sizeof(float), cudaMemcpyDeviceToHost));
    if (v)
        TRY_CUDA(cudaMemcpy(v, t->v, t->P * sizeof(float), cudaMemcpyDeviceToHost));
    for (int l = 0; d && l < d->num_layers; l++) {
        nn_disc_layer *L = &d->layer[l];
        bool conv = L->kind == NN_DISC_CONV;
        size_t nb = (size_t)(conv ? L->conv.c_out : L->dense.c_out);
        size_t nw = layer_params(L) - nb;
        TRY_CUDA(cudaMemcpy(conv ? L->conv.w : L->dense.w, t->p + t->off[l], nw * sizeof(float),
                            cudaMemcpyDeviceToHost));
        TRY_CUDA(cudaMemcpy(conv ? L->conv.bias : L->dense.bias, t->p + t->off[l] + nw,
                            nb * sizeof(float), cudaMemcpyDeviceToHost));
    }
    return true;
}

#define TRY_K(call)                                                                                \
    do {                                                                                           \
        int e_ = (call);                                                                           \
        if (e_ != 0)                                                                               \
            return fail(t, #call, cudaGetErrorString((cudaError_t)e_), __LINE__);                 \
    } while (0)

static bool forward(nn_cuda_trainer *t, int n)
{
    const nn_disc_desc *d = &t->shape;
    const float one = 1.0f, zero = 0.0f;
    const float *in = t->x;
    for (int l = 0; l < d->num_layers; l++) {
        const nn_disc_layer *L = &d->layer[l];
        const float *w = t->p + t->off[l];
        float *out = t->act[l];
        int relu = L->act == NN_ACT_RELU;
        if (L->kind == NN_DISC_CONV) {
            conv_plan *c = &t->plan[l];
            if (c->n != n && !plan_conv(t, l, n))
                return false;
            const float *bias = w + (size_t)L->conv.c_out * L->conv.c_in * L->conv.ky * L->conv.kx;
            TRY_DNN(cudnnConvolutionForward(t->dnn, &one, c->xd, in, c->wd, w, c->cd, c->fwd,
                                            t->ws, t->ws_bytes, &zero, c->yd, out));
            TRY_K(nn_cuda_train_bias_act_nchw_f32(n, L->conv.c_out, t->area, bias, relu, out,
                                                  t->stream));
        } else {
            int ci = L->dense.c_in, co = L->dense.c_out;
            TRY_BLAS(cublasSgemm(t->blas, CUBLAS_OP_N, CUBLAS_OP_N, co, n, ci, &one, w, co, in,
                                 ci, &zero, out, co));
            TRY_K(nn_cuda_train_bias_act_rows_f32(n, co, w + (size_t)ci * co, relu, out,
                                                  t->stream));
        }
        in = out;
    }
    return true;
}

static bool backward(nn_cuda_trainer *t, int n)
{
    const nn_disc_desc *d = &t->shape;
    const float one = 1.0f, zero = 0.0f;
    float *dz = t->d0, *dprev = t->d1;
    TRY_CUDA(cudaMemcpyAsync(dz, t->dlogits, (size_t)n * sizeof(float),
                             cudaMemcpyDeviceToDevice, t->stream));
    for (int l = d->num_layers - 1; l >= 0; l--) {
        const nn_disc_layer *L = &d->layer[l];
        const float *w = t->p + t->off[l], *in = l == 0 ? t->x : t->act[l - 1];
        float *gw = t->g + t->off[l];
        long outs = (long)n * nn_disc_layer_outputs(d, l);
        if (L->act == NN_ACT_RELU)
            TRY_K(nn_cuda_train_relu_backward_f32(outs, t->act[l], dz, t->stream));
        if (L->kind == NN_DISC_DENSE) {
            int ci = L->dense.c_in, co = L->dense.c_out;
            TRY_BLAS(cublasSgemm(t->blas, CUBLAS_OP_N, CUBLAS_OP_T, co, ci, n, &one, dz, co, in,
                                 ci, &zero, gw, co));
            TRY_K(nn_cuda_train_bias_grad_rows_f32(n, co, dz, gw + (size_t)ci * co, t->stream));
            if (l > 0)
                TRY_BLAS(cublasSgemm(t->blas, CUBLAS_OP_T, CUBLAS_OP_N, ci, n, co, &one, w, co,
                                     dz, co, &zero, dprev, ci));
        } else {
            conv_plan *c = &t->plan[l];
            int co = L->conv.c_out;
            size_t nw = (size_t)co * L->conv.c_in * L->conv.ky * L->conv.kx;
            TRY_DNN(cudnnConvolutionBackwardFilter(t->dnn, &one, c->xd, in, c->yd, dz, c->cd,
                                                   c->bwd_filter, t->ws, t->ws_bytes, &zero,
                                                   c->wd, gw));
            TRY_K(nn_cuda_train_bias_grad_nchw_f32(n, co, t->area, dz, gw + nw, t->stream));
            if (l > 0)
                TRY_DNN(cudnnConvolutionBackwardData(t->dnn, &one, c->wd, w, c->yd, dz, c->cd,
                                                     c->bwd_data, t->ws, t->ws_bytes, &zero,
                                                     c->xd, dprev));
        }
        float *tmp = dz;
        dz = dprev;
        dprev = tmp;
    }
    return true;
}

double nn_cuda_trainer_run(nn_cuda_trainer *t, int n, const float *x, const float *labels,
                           float *logits)
{
    if (n < 1 || n > t->max_batch) {
        snprintf(t->err, sizeof t->err, "cuda trainer: batch %d outside 1..%d", n, t->max_batch);
        return NAN;
    }
    size_t in = (size_t)t->shape.planes * t->area;
    const float *z = t->act[t->shape.num_layers - 1];
    bool ok = cudaMemcpyAsync(t->x, x, (size_t)n * in * sizeof(float), cudaMemcpyHostToDevice,
                              t->stream) == cudaSuccess ||
              fail(t, "cudaMemcpyAsync", "input", __LINE__);
    ok = ok && forward(t, n);
    double loss = 0;
    if (ok && labels) {
        ok = (cudaMemcpyAsync(t->labels, labels, (size_t)n * sizeof(float),
                              cudaMemcpyHostToDevice, t->stream) == cudaSuccess ||
              fail(t, "cudaMemcpyAsync", "labels", __LINE__)) &&
             (nn_cuda_train_bce_f32(n, z, t->labels, t->loss, t->dlogits, t->stream) == 0 ||
              fail(t, "nn_cuda_train_bce_f32", "launch", __LINE__)) &&
             backward(t, n) &&
             (cudaMemcpyAsync(t->host_loss, t->loss, (size_t)n * sizeof(float),
                              cudaMemcpyDeviceToHost, t->stream) == cudaSuccess ||
              fail(t, "cudaMemcpyAsync", "loss", __LINE__));
    }
    if (ok && logits)
        ok = cudaMemcpyAsync(logits, z, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost,
                             t->stream) == cudaSuccess ||
             fail(t, "cudaMemcpyAsync", "logits", __LINE__);
    ok = ok && (cudaStreamSynchronize(t->stream) == cudaSuccess ||
                fail(t, "cudaStreamSynchronize", "the step", __LINE__));
    if (!ok)
        return NAN;
    for (int i = 0; labels && i < n; i++)
        loss += t->host_loss[i];
    return labels ? loss / n : 0.0;
}

bool nn_cuda_trainer_adam(nn_cuda_trainer *t, uint64_t step, float lr, float beta1, float beta2,
                          float eps)
{
    double c1 = 1.0 - pow(beta1, (double)step), c2 = 1.0 - pow(beta2, (double)step);
    TRY_K(nn_cuda_train_adam_f32((long)t->P, beta1, beta2, eps, (float)(lr / c1),
                                 (float)sqrt(c2), t->g, t->m, t->v, t->p, t->stream));
    return true;
}
